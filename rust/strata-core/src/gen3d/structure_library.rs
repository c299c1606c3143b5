//! The structures Strata ships: a cottage, a ruin and a crypt, built in code from block names
//! and resolved through the world's block library, so a world whose library lacks one of their
//! blocks gets an error naming it.
//!
//! - `cottage` (9 × 11 × 7): a stone foundation three voxels deep, a plank floor, plank walls
//!   with log corners, glass windows and a door, a stepped plank roof with a log ridge, a torch
//!   inside. Meant for the surface with `sink: 3` (its floor on the ground).
//! - `ruin` (11 × 5 × 11): broken stone and gravel walls around a courtyard that keeps the
//!   ground, two pillars; gaps from a fixed hash, so it is the same everywhere. Surface, `sink: 1`.
//! - `crypt` (13 × 7 × 13): a buried stone hall, its air carved out of the rock, four pillars
//!   with torches and a block of gold ore in the middle. Underground.
//!
//! May use: `base`, `gen3d::structures`.

use crate::base::block::{AIR, BlockId};
use crate::base::block_library::BlockLibrary;
use crate::base::coords::IVec3;
use crate::base::rng::hash3;
use crate::gen3d::structures::{KEEP, StructureError, StructureLibrary, StructureTemplate};

/// The names of the shipped structures, in library order.
pub const SHIPPED_STRUCTURES: [&str; 3] = ["cottage", "ruin", "crypt"];

/// The shipped structures with the ids of `library`.
pub fn shipped_structures(library: &BlockLibrary) -> Result<StructureLibrary, StructureError> {
    Ok(StructureLibrary::new(vec![cottage(library)?, ruin(library)?, crypt(library)?]))
}

/// The structure library of a world that brings its own structures: the shipped ones made of
/// `library`'s blocks (left out when `library` lacks one of their blocks), then `own` in order,
/// a structure of a shipped one's name replacing it.
pub fn shipped_structures_with(library: &BlockLibrary, own: Vec<StructureTemplate>) -> StructureLibrary {
    let mut all = shipped_structures(library).unwrap_or_default();
    for t in own {
        all.insert(t);
    }
    all
}

/// A template being built: cells by block name, resolved at the end.
struct Builder<'a> {
    name: &'static str,
    size: IVec3,
    cells: Vec<BlockId>,
    library: &'a BlockLibrary,
}

impl<'a> Builder<'a> {
    fn new(name: &'static str, size: IVec3, library: &'a BlockLibrary) -> Self {
        Self { name, size, cells: vec![KEEP; size.volume()], library }
    }

    fn id(&self, block: &str) -> Result<BlockId, StructureError> {
        if block == "air" {
            return Ok(AIR);
        }
        self.library.id_of(block).ok_or_else(|| StructureError::UnknownBlock {
            name: self.name.into(),
            index: 0,
            block: block.into(),
            allowed: "a block library holding the shipped structures' blocks (stone, gravel, planks, log, glass, torch, gold_ore)".into(),
        })
    }

    /// Fills the box `[min, max]` (inclusive) with `block`.
    fn fill(&mut self, min: (i32, i32, i32), max: (i32, i32, i32), block: &str) -> Result<(), StructureError> {
        let id = self.id(block)?;
        for y in min.1..=max.1 {
            for z in min.2..=max.2 {
                for x in min.0..=max.0 {
                    self.set_id((x, y, z), id);
                }
            }
        }
        Ok(())
    }

    fn set(&mut self, p: (i32, i32, i32), block: &str) -> Result<(), StructureError> {
        let id = self.id(block)?;
        self.set_id(p, id);
        Ok(())
    }

    fn set_id(&mut self, (x, y, z): (i32, i32, i32), id: BlockId) {
        let s = self.size;
        if (0..s.x).contains(&x) && (0..s.y).contains(&y) && (0..s.z).contains(&z) {
            self.cells[((y * s.z + z) * s.x + x) as usize] = id;
        }
    }

    fn build(self) -> Result<StructureTemplate, StructureError> {
        StructureTemplate::new(self.name, self.size, self.cells)
    }
}

fn cottage(library: &BlockLibrary) -> Result<StructureTemplate, StructureError> {
    let (w, h, d) = (9, 11, 7);
    let mut b = Builder::new("cottage", IVec3::new(w, h, d), library);
    b.fill((0, 0, 0), (w - 1, 2, d - 1), "stone")?;
    b.fill((0, 3, 0), (w - 1, 3, d - 1), "planks")?;
    // Walls, the room inside them carved out.
    b.fill((0, 4, 0), (w - 1, 6, d - 1), "planks")?;
    b.fill((1, 4, 1), (w - 2, 6, d - 2), "air")?;
    for (x, z) in [(0, 0), (w - 1, 0), (0, d - 1), (w - 1, d - 1)] {
        b.fill((x, 4, z), (x, 6, z), "log")?;
    }
    // Door in the front wall, windows in the others.
    b.fill((w / 2, 4, 0), (w / 2, 5, 0), "air")?;
    for p in [(2, 5, d - 1), (w - 3, 5, d - 1), (0, 5, d / 2), (w - 1, 5, d / 2)] {
        b.set(p, "glass")?;
    }
    b.set((1, 4, d - 2), "torch")?;
    // A stepped roof, each step one in from the last on z, with a log ridge; air above the walls
    // inside the roof so the terrain of a slope never fills it.
    for (k, y) in (7..=9).enumerate() {
        let k = k as i32;
        b.fill((0, y, k), (w - 1, y, d - 1 - k), "planks")?;
        if k < d - 2 - k {
            b.fill((1, y, k + 1), (w - 2, y, d - 2 - k), "air")?;
        }
    }
    b.fill((0, 10, d / 2), (w - 1, 10, d / 2), "log")?;
    b.build()
}

fn ruin(library: &BlockLibrary) -> Result<StructureTemplate, StructureError> {
    let (w, h, d) = (11, 5, 11);
    let mut b = Builder::new("ruin", IVec3::new(w, h, d), library);
    b.fill((0, 0, 0), (w - 1, 0, d - 1), "gravel")?;
    b.fill((1, 0, 1), (w - 2, 0, d - 2), "stone")?;
    let (stone, gravel) = (b.id("stone")?, b.id("gravel")?);
    for y in 1..h {
        for z in 0..d {
            for x in 0..w {
                let wall = x == 0 || z == 0 || x == w - 1 || z == d - 1;
                if !wall {
                    continue;
                }
                // Walls crumble towards the top: fewer blocks stand the higher the row.
                let roll = hash3(0x5275_696e, 0, x, y, z) % 100;
                let stands = roll < (100 - 22 * y as u64);
                if stands {
                    b.set_id((x, y, z), if roll.is_multiple_of(5) { gravel } else { stone });
                }
            }
        }
    }
    for (x, z) in [(3, 3), (w - 4, d - 4)] {
        b.fill((x, 1, z), (x, h - 1, z), "stone")?;
    }
    b.build()
}

fn crypt(library: &BlockLibrary) -> Result<StructureTemplate, StructureError> {
    let (w, h, d) = (13, 7, 13);
    let mut b = Builder::new("crypt", IVec3::new(w, h, d), library);
    b.fill((0, 0, 0), (w - 1, h - 1, d - 1), "stone")?;
    b.fill((1, 1, 1), (w - 2, h - 2, d - 2), "air")?;
    for (x, z) in [(3, 3), (w - 4, 3), (3, d - 4), (w - 4, d - 4)] {
        b.fill((x, 1, z), (x, h - 2, z), "stone")?;
        b.set((x + if x < w / 2 { 1 } else { -1 }, 3, z), "torch")?;
    }
    b.set((w / 2, 1, d / 2), "gold_ore")?;
    b.build()
}
