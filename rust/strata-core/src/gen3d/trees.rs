//! Trees of the world's blocks: how one tree of a species grows, cell by cell.
//!
//! A [`TreeShape`] is a species ([`TreeSpecies`]) with its block names resolved. Growing a tree
//! ([`TreeShape::grow`]) is a pure function of the shape and a 64-bit hash (the placement's, a
//! hash of seed, species and position): the hash draws the trunk height, crown radius, branch
//! count and lean from the species' ranges, and every later choice (branch directions, the
//! leaves trimmed off a crown's rim) comes from the same hash, so a tree is the same in every
//! chunk that stamps a part of it (laws: Deterministic, Seamless). Cells are given relative to
//! the trunk's base (the first voxel above the ground), inside the box of
//! [`TreeShape::reach`] and [`TreeShape::height`]; the structure stage places and stamps them
//! ([`crate::gen3d::structures`]): logs replace what is there, leaves fill only air.
//!
//! May use: `base`, `preset`.

use crate::base::block::BlockId;
use crate::base::block_library::BlockLibrary;
use crate::base::coords::IVec3;
use crate::base::rng::mix64;
pub use crate::preset::model::CrownShape;
use crate::preset::model::TreeSpecies;

/// What one cell of a tree is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreeCell {
    /// Trunk or branch: replaces the world's voxel.
    Log,
    /// Crown: fills only air.
    Leaves,
}

/// What one grown tree measures ([`TreeShape::size`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TreeSize {
    /// Logs of the trunk, from its base up.
    pub trunk_height: i32,
    /// The crown's radius as drawn from the species' range (0 for a bare tree).
    pub crown_radius: i32,
    /// One past its highest cell, above its base.
    pub height: i32,
}

/// A species ready to grow: block ids and ranges.
#[derive(Clone, Debug, PartialEq)]
pub struct TreeShape {
    pub name: String,
    pub log: BlockId,
    pub leaves: BlockId,
    pub crown: CrownShape,
    trunk: (i32, i32),
    radius: (i32, i32),
    branches: (i32, i32),
    lean: i32,
}

/// A stream of hashed draws from one tree's hash.
struct Draws(u64);

impl Draws {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix64(self.0)
    }

    /// A draw in `lo..=hi`.
    fn range(&mut self, lo: i32, hi: i32) -> i32 {
        lo + (self.next() % (hi - lo + 1).max(1) as u64) as i32
    }
}

/// The eight horizontal directions, axes first.
const DIRECTIONS: [(i32, i32); 8] = [(1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, 1), (-1, -1), (1, -1)];

impl TreeShape {
    /// `species` with its blocks looked up in `library`; `Err` names the field whose block the
    /// library lacks (`log_block` or `leaves_block`) and the block.
    pub fn resolve(species: &TreeSpecies, library: &BlockLibrary) -> Result<Self, (&'static str, String)> {
        let log = library.id_of(&species.log_block).ok_or(("log_block", species.log_block.clone()))?;
        let leaves = match species.crown {
            CrownShape::Bare => log,
            _ => library.id_of(&species.leaves_block).ok_or(("leaves_block", species.leaves_block.clone()))?,
        };
        let ordered = |a: i32, b: i32| (a.min(b).max(0), a.max(b).max(0));
        Ok(Self {
            name: species.name.clone(),
            log,
            leaves,
            crown: species.crown,
            trunk: ordered(species.trunk_height_min.max(1), species.trunk_height_max.max(1)),
            radius: ordered(species.crown_radius_min, species.crown_radius_max),
            branches: ordered(species.branches_min, species.branches_max),
            lean: species.lean_max.max(0),
        })
    }

    /// The farthest any cell of any tree of the species lies from its trunk's column, on x or z.
    pub fn reach(&self) -> i32 {
        let r = self.radius.1;
        self.lean
            + match self.crown {
                // A branch of up to r steps, then a ball of radius 1.
                CrownShape::Round => r + 2,
                CrownShape::Tall | CrownShape::Conical => r + 1,
                // A branch of up to 3 steps and its disc of radius r.
                CrownShape::Flat => r + 4,
                CrownShape::Bare => 2,
            }
    }

    /// One past the highest cell of any tree of the species, above its base.
    pub fn height(&self) -> i32 {
        let (t, r) = (self.trunk.1, self.radius.1);
        match self.crown {
            CrownShape::Round => t + r + 1,
            CrownShape::Tall => t + r + 3,
            CrownShape::Conical => t + 2,
            CrownShape::Flat => t + 4,
            CrownShape::Bare => t + 2,
        }
    }

    /// The measures of the tree of hash `h` (the draws [`TreeShape::grow`] makes).
    pub fn size(&self, h: u64) -> TreeSize {
        let mut d = Draws(h);
        let trunk_height = d.range(self.trunk.0, self.trunk.1);
        let r = d.range(self.radius.0, self.radius.1);
        let mut height = 0;
        self.grow(h, &mut |p, _| height = height.max(p.y + 1));
        TreeSize { trunk_height, crown_radius: if self.crown == CrownShape::Bare { 0 } else { r }, height }
    }

    /// Grows the tree of hash `h`: every cell, relative to the trunk's base, handed to `emit`
    /// (a cell may come more than once, as log and as leaves: the log wins when stamped).
    pub fn grow(&self, h: u64, emit: &mut impl FnMut(IVec3, TreeCell)) {
        let mut d = Draws(h);
        let t = d.range(self.trunk.0, self.trunk.1);
        let r = d.range(self.radius.0, self.radius.1);
        let branches = d.range(self.branches.0, self.branches.1);
        let lean = d.range(0, self.lean);
        let (lx, lz) = DIRECTIONS[(d.next() % 8) as usize];
        // The trunk: straight up its lower half, then leaning `lean` voxels towards (lx, lz).
        let bend_from = t / 2;
        let offset = |y: i32| {
            if lean == 0 || y < bend_from {
                (0, 0)
            } else {
                let k = (lean * (y - bend_from + 1) + (t - bend_from) / 2) / (t - bend_from).max(1);
                (lx * k.min(lean), lz * k.min(lean))
            }
        };
        for y in 0..t {
            let (ox, oz) = offset(y);
            emit(IVec3::new(ox, y, oz), TreeCell::Log);
        }
        let (ox, oz) = offset(t - 1);
        let top = IVec3::new(ox, t - 1, oz);
        let trim = |p: IVec3| mix64(h ^ ((p.x as u64 & 0xff) | (p.y as u64 & 0xff) << 8 | (p.z as u64 & 0xff) << 16));
        match self.crown {
            CrownShape::Round => {
                ball(top, r, &trim, emit);
                for _ in 0..branches {
                    let (bx, bz) = DIRECTIONS[(d.next() % 8) as usize];
                    let start = d.range(t / 2, (t - 2).max(t / 2));
                    let len = d.range(1, r.max(1));
                    let (sx, sz) = offset(start);
                    let mut end = IVec3::new(sx, start, sz);
                    for s in 1..=len {
                        end = IVec3::new(sx + bx * s, start + (s + 1) / 2, sz + bz * s);
                        emit(end, TreeCell::Log);
                    }
                    ball(end, 1, &trim, emit);
                }
            }
            CrownShape::Tall => {
                // An upright ellipsoid: r across, r + 2 up and down, its centre a voxel below the top.
                let (ry, c) = (r + 2, top - IVec3::new(0, 1, 0));
                let (a2, b2) = ((2 * r + 1) * (2 * r + 1), (2 * ry + 1) * (2 * ry + 1));
                for dy in -ry..=ry {
                    for dz in -r..=r {
                        for dx in -r..=r {
                            // (2dx)²/(2r+1)² + (2dy)²/(2ry+1)² <= 1, in integers.
                            if 4 * (dx * dx + dz * dz) * b2 + 4 * dy * dy * a2 <= a2 * b2 {
                                emit(c + IVec3::new(dx, dy, dz), TreeCell::Leaves);
                            }
                        }
                    }
                }
                emit(top + IVec3::new(0, ry, 0), TreeCell::Leaves);
            }
            CrownShape::Conical => {
                // Layers from a third up the trunk to a point above it, each narrower, every
                // other one drawn in by a voxel.
                let (y0, y1) = ((t / 3).max(1), t);
                for y in y0..=y1 {
                    let span = (y1 - y0).max(1);
                    let mut rad = (r * (y1 - y) + span / 2) / span;
                    if (y1 - y) % 2 == 1 {
                        rad -= 1;
                    }
                    let (cx, cz) = offset(y.min(t - 1));
                    disc(IVec3::new(cx, y, cz), rad.max(if y < y1 { 1 } else { 0 }), &trim, emit);
                }
                emit(top + IVec3::new(0, 2, 0), TreeCell::Leaves);
            }
            CrownShape::Flat => {
                disc(top + IVec3::new(0, 1, 0), r, &trim, emit);
                disc(top + IVec3::new(0, 2, 0), (r - 1).max(0), &trim, emit);
                for k in 0..branches {
                    // Away from the lean (or anywhere for a straight trunk), up 3 steps.
                    let (bx, bz) = if lean > 0 && k == 0 { (-lx, -lz) } else { DIRECTIONS[(d.next() % 8) as usize] };
                    let start = d.range((t / 2).max(1), (t - 1).max(1));
                    let (sx, sz) = offset(start);
                    let mut end = IVec3::new(sx, start, sz);
                    for s in 1..=3 {
                        end = IVec3::new(sx + bx * s, start + s.min(2), sz + bz * s);
                        emit(end, TreeCell::Log);
                    }
                    disc(end + IVec3::new(0, 1, 0), (r - 1).max(1), &trim, emit);
                }
            }
            CrownShape::Bare => {
                for _ in 0..branches {
                    // An arm: one voxel out, then up one or two (a cactus's arms, a dead bush's twigs).
                    let (bx, bz) = DIRECTIONS[(d.next() % 4) as usize];
                    let start = d.range((t / 3).max(1), (t - 1).max(1));
                    let (sx, sz) = offset(start);
                    emit(IVec3::new(sx + bx, start, sz + bz), TreeCell::Log);
                    for up in 1..=d.range(1, 2) {
                        emit(IVec3::new(sx + bx, start + up, sz + bz), TreeCell::Log);
                    }
                }
            }
        }
    }
}

/// Leaves in a ball of radius `r` about `c` (distance² <= r² + r), a third of its rim trimmed.
fn ball(c: IVec3, r: i32, trim: &impl Fn(IVec3) -> u64, emit: &mut impl FnMut(IVec3, TreeCell)) {
    let (full, inner) = (r * r + r, (r - 1) * (r - 1) + (r - 1));
    for dy in -r..=r {
        for dz in -r..=r {
            for dx in -r..=r {
                let d2 = dx * dx + dy * dy + dz * dz;
                let p = c + IVec3::new(dx, dy, dz);
                if d2 <= full && (d2 <= inner.max(0) || !trim(p).is_multiple_of(3)) {
                    emit(p, TreeCell::Leaves);
                }
            }
        }
    }
}

/// Leaves in a disc of radius `r` at `c` (distance² <= r² + r), a quarter of its rim trimmed.
fn disc(c: IVec3, r: i32, trim: &impl Fn(IVec3) -> u64, emit: &mut impl FnMut(IVec3, TreeCell)) {
    let (full, inner) = (r * r + r, (r - 1) * (r - 1) + (r - 1));
    for dz in -r..=r {
        for dx in -r..=r {
            let d2 = dx * dx + dz * dz;
            let p = c + IVec3::new(dx, 0, dz);
            if d2 <= full && (d2 <= inner.max(0) || !trim(p).is_multiple_of(4)) {
                emit(p, TreeCell::Leaves);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::block_library::default_library;
    use crate::base::rng::hash1;
    use crate::preset::model::default_tree_species;

    fn shapes() -> Vec<TreeShape> {
        default_tree_species()
            .iter()
            .chain([&TreeSpecies {
                name: "cactus".into(),
                crown: CrownShape::Bare,
                branches_max: 3,
                lean_max: 1,
                ..TreeSpecies::default()
            }])
            .map(|s| TreeShape::resolve(s, default_library()).unwrap())
            .collect()
    }

    #[test]
    fn every_cell_lies_inside_the_species_box_and_trees_vary() {
        for shape in shapes() {
            let (reach, height) = (shape.reach(), shape.height());
            let mut sizes = std::collections::HashSet::new();
            for i in 0..500 {
                let mut cells = Vec::new();
                shape.grow(hash1(7, 3, i), &mut |p, c| cells.push((p, c)));
                for (p, _) in &cells {
                    assert!(
                        p.x.abs() <= reach && p.z.abs() <= reach && (0..height).contains(&p.y),
                        "{}: cell {p:?} outside ±{reach} × 0..{height}",
                        shape.name
                    );
                }
                assert!(cells.iter().any(|(p, c)| *p == IVec3::ZERO && *c == TreeCell::Log), "{}", shape.name);
                let mut again = Vec::new();
                shape.grow(hash1(7, 3, i), &mut |p, c| again.push((p, c)));
                assert_eq!(cells, again, "{}: the same hash grows the same tree", shape.name);
                sizes.insert(cells.len());
            }
            assert!(sizes.len() >= 3, "{}: {} different sizes in 500 trees", shape.name, sizes.len());
        }
    }

    #[test]
    fn species_grow_visibly_different_shapes() {
        // Leaves per layer above the base, averaged over many trees: the profile of each species.
        let profile = |shape: &TreeShape| {
            let mut per_layer = vec![0usize; 40];
            for i in 0..200 {
                shape.grow(hash1(11, 5, i), &mut |p, c| {
                    if c == TreeCell::Leaves {
                        per_layer[p.y as usize] += 1;
                    }
                });
            }
            per_layer
        };
        let all = shapes();
        let profiles: Vec<Vec<usize>> = all.iter().map(profile).collect();
        for i in 0..all.len() {
            for j in i + 1..all.len() {
                assert_ne!(profiles[i], profiles[j], "{} and {}", all[i].name, all[j].name);
            }
        }
        // A spruce is widest low down, an acacia's leaves lie in its top layers alone.
        let spruce = &profiles[2];
        let widest = (0..40).max_by_key(|&y| spruce[y]).unwrap();
        let highest = (0..40).rev().find(|&y| spruce[y] > 0).unwrap();
        assert!(widest < highest - 2, "spruce: widest layer {widest}, top {highest}");
        let acacia = &profiles[3];
        let first = (0..40).find(|&y| acacia[y] > 0).unwrap();
        assert!(first >= 3, "acacia leaves from layer {first}");
        assert!(profiles[4].iter().all(|&n| n == 0), "a bare species has no leaves");
    }
}
