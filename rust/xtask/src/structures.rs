//! `cargo xtask structures [--check]`: the demo's structures made from code and written as
//! MagicaVoxel `.vox` files into `godot_project/game/structures/`, where the demo loads them
//! (`StrataStructure.from_vox`) into `StrataChunkWorld.structures`. The files are committed; this module is
//! their source, and `--check` (run by the unit tests too) fails when a committed file differs
//! from what the source writes.
//!
//! A `.vox` file holds colours, not block names: each block used is written with its colour in
//! the default library (air in magenta, `VOX_AIR_COLOR`), and reading the file maps each colour
//! back to the nearest block. The tests prove that round trip gives the same cells.
//!
//! - `watchtower` (7 × 18 × 7): a stone foundation three voxels deep, a stone ground room with a
//!   door and glass windows, log stilts up to a plank platform with a railing and a torch on
//!   every corner post, a stepped plank roof with a log tip. Air fills the box above the ground
//!   so a slope never buries it. Meant for the surface with `sink: 3`.
//!
//! May use: `paths`, `error`, `strata_core` (block library, structure templates).

use crate::error::{Error, Result};
use crate::paths;
use std::path::PathBuf;
use strata_core::base::block::{AIR, BlockId};
use strata_core::base::block_library::{BlockLibrary, default_library};
use strata_core::base::coords::IVec3;
use strata_core::gen3d::structures::{KEEP, StructureTemplate};

/// Where the demo's structures are written.
pub fn structure_dir() -> PathBuf {
    paths::godot_project().join("game/structures")
}

/// A template being drawn, cells by block name.
struct Drawing<'a> {
    size: IVec3,
    cells: Vec<BlockId>,
    library: &'a BlockLibrary,
}

impl Drawing<'_> {
    fn id(&self, block: &str) -> Result<BlockId> {
        if block == "air" {
            return Ok(AIR);
        }
        self.library.id_of(block).ok_or_else(|| Error::msg(format!("the default library has no block `{block}`")))
    }

    /// Fills the box `[min, max]` (inclusive) with `block`.
    fn fill(&mut self, min: (i32, i32, i32), max: (i32, i32, i32), block: &str) -> Result<()> {
        let id = self.id(block)?;
        let s = self.size;
        for y in min.1..=max.1 {
            for z in min.2..=max.2 {
                for x in min.0..=max.0 {
                    if (0..s.x).contains(&x) && (0..s.y).contains(&y) && (0..s.z).contains(&z) {
                        self.cells[((y * s.z + z) * s.x + x) as usize] = id;
                    }
                }
            }
        }
        Ok(())
    }

    fn set(&mut self, p: (i32, i32, i32), block: &str) -> Result<()> {
        self.fill(p, p, block)
    }
}

/// The watchtower (see the module's doc).
pub fn watchtower() -> Result<StructureTemplate> {
    let (w, h, d) = (7, 18, 7);
    let mut t =
        Drawing { size: IVec3::new(w, h, d), cells: vec![KEEP; (w * h * d) as usize], library: default_library() };
    t.fill((0, 0, 0), (w - 1, 2, d - 1), "stone")?;
    t.fill((0, 3, 0), (w - 1, h - 1, d - 1), "air")?;
    t.fill((0, 3, 0), (w - 1, 3, d - 1), "planks")?;
    // The ground room: stone walls, a door in front, a window in each other wall.
    t.fill((0, 4, 0), (w - 1, 6, d - 1), "stone")?;
    t.fill((1, 4, 1), (w - 2, 6, d - 2), "air")?;
    t.fill((w / 2, 4, 0), (w / 2, 5, 0), "air")?;
    for p in [(w / 2, 5, d - 1), (0, 5, d / 2), (w - 1, 5, d / 2)] {
        t.set(p, "glass")?;
    }
    t.set((1, 4, d - 2), "torch")?;
    // Stilts from the room's top to the platform.
    for (x, z) in [(0, 0), (w - 1, 0), (0, d - 1), (w - 1, d - 1)] {
        t.fill((x, 4, z), (x, 13, z), "log")?;
        t.set((x, 14, z), "torch")?;
    }
    t.fill((0, 7, 0), (w - 1, 7, d - 1), "planks")?;
    t.fill((0, 11, 0), (w - 1, 11, d - 1), "planks")?;
    // The railing: planks between the posts, a gap in the middle of each side.
    for k in [1, 2, 4, 5] {
        for p in [(k, 12, 0), (k, 12, d - 1), (0, 12, k), (w - 1, 12, k)] {
            t.set(p, "planks")?;
        }
    }
    // A stepped roof above the torches, a log at its tip.
    t.fill((1, 15, 1), (w - 2, 15, d - 2), "planks")?;
    t.fill((2, 16, 2), (w - 3, 16, d - 3), "planks")?;
    t.set((w / 2, 17, d / 2), "log")?;
    StructureTemplate::new("watchtower", t.size, t.cells).map_err(Error::msg)
}

/// Every file this module writes and its bytes.
fn outputs() -> Result<Vec<(PathBuf, Vec<u8>)>> {
    let tower = watchtower()?;
    let (bytes, _) = tower.to_vox_bytes(default_library());
    Ok(vec![(structure_dir().join("watchtower.vox"), bytes)])
}

/// The committed files that differ from what the source writes (missing ones included).
pub fn stale_files() -> Result<Vec<PathBuf>> {
    let mut stale = Vec::new();
    for (path, bytes) in outputs()? {
        if std::fs::read(&path).ok().as_deref() != Some(&bytes[..]) {
            stale.push(path);
        }
    }
    Ok(stale)
}

pub fn run(args: &[String]) -> Result<std::process::ExitCode> {
    let check = match args {
        [] => false,
        [a] if a == "--check" => true,
        _ => return Err(Error::msg("usage: cargo xtask structures [--check]")),
    };
    let relative = |p: &PathBuf| p.strip_prefix(paths::repo_root()).unwrap_or(p).display().to_string();
    if check {
        let stale = stale_files()?;
        if stale.is_empty() {
            crate::step("the demo's structure files are up to date");
            return Ok(std::process::ExitCode::SUCCESS);
        }
        for p in &stale {
            eprintln!("stale: {} (run `cargo xtask structures`)", relative(p));
        }
        return Ok(std::process::ExitCode::FAILURE);
    }
    for (path, bytes) in outputs()? {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| Error::msg(format!("{}: {e}", dir.display())))?;
        }
        std::fs::write(&path, &bytes).map_err(|e| Error::msg(format!("{}: {e}", path.display())))?;
        crate::step(format!("wrote {}", relative(&path)));
    }
    Ok(std::process::ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_structure_files_are_what_the_source_writes() {
        let stale = stale_files().unwrap();
        assert!(stale.is_empty(), "stale (run `cargo xtask structures`): {stale:?}");
    }

    #[test]
    fn the_watchtower_reads_back_from_its_vox_file_by_colour_to_the_same_cells() {
        let tower = watchtower().unwrap();
        let (bytes, names) = tower.to_vox_bytes(default_library());
        let back = StructureTemplate::from_vox_bytes("watchtower", &bytes, default_library(), &[]).unwrap();
        assert_eq!(back, tower, "nearest colour finds each block: no two of its blocks share a colour");
        let used: Vec<&str> = names.iter().map(|(_, n)| n.as_str()).collect();
        assert_eq!(used, ["air", "stone", "torch", "glass", "log", "planks"]);
        assert_eq!(tower.size(), IVec3::new(7, 18, 7));
        assert_eq!(tower.get(IVec3::new(0, 0, 0)), default_library().id_of("stone").unwrap());
        assert_eq!(tower.get(IVec3::new(3, 8, 3)), AIR, "open under the platform");
    }
}
