//! Far-view policy: which parts of the ground are drawn at which level of detail.
//!
//! The ground is covered by a quadtree of square columns. A column of level `L` spans
//! `32·2^L` voxels on x and z and is drawn with cells of `2^L` voxels (its *stride*), so every
//! column, whatever its level, is 32 × 32 cells across. Level 0 is the near field: ordinary 3D
//! chunks with caves, ores, edits, scatter and collision. Levels 1 and up are far columns, built
//! by [`crate::stream::far_mesh`].
//!
//! [`LodLayout::compute`] splits a column in four while its centre is closer to the viewer than
//! `R·2^(L−1)` voxels (`R` = the near view distance in voxels); a column already split stays split
//! up to a margin further (hysteresis, so walking back and forth over a border does not regenerate
//! it). Every point of the ground within the far radius `R·2^levels` is covered by exactly one
//! leaf. When the layout changes, a leaf that leaves it stays on screen until the leaves that
//! replace it are loaded ([`LodLayout::is_covered`]), so there is never a hole.
//!
//! May use: `base`, `preset`, `noise`, `automata`, `gen3d`, `gen2d`, `mesh` and the other `stream` modules.

use crate::base::coords::{CHUNK_SIZE, ChunkCoord, IVec3};
use std::collections::HashSet;

/// The most far levels a layout may have (level 6 columns are 2,048 voxels wide).
pub const MAX_LOD_LEVELS: u8 = 6;

/// A square column of the quadtree: level `level`, index `(x, z)` on that level's grid.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LodColumn {
    pub level: u8,
    pub x: i32,
    pub z: i32,
}

impl LodColumn {
    pub const fn new(level: u8, x: i32, z: i32) -> Self {
        Self { level, x, z }
    }

    /// Voxels per cell.
    pub const fn stride(self) -> i32 {
        1 << self.level
    }

    /// Width in voxels.
    pub const fn size(self) -> i32 {
        CHUNK_SIZE << self.level
    }

    /// World (x, z) of the minimum corner.
    pub const fn min_xz(self) -> (i32, i32) {
        (self.x * self.size(), self.z * self.size())
    }

    /// The column of level `level` containing world column (x, z).
    pub fn containing(level: u8, x: i32, z: i32) -> Self {
        let size = CHUNK_SIZE << level;
        Self::new(level, x.div_euclid(size), z.div_euclid(size))
    }

    /// The column one level up that contains this one.
    pub fn parent(self) -> Self {
        Self::new(self.level + 1, self.x.div_euclid(2), self.z.div_euclid(2))
    }

    /// The four columns one level down (level must be ≥ 1).
    pub fn children(self) -> [Self; 4] {
        let (l, x, z) = (self.level - 1, 2 * self.x, 2 * self.z);
        [Self::new(l, x, z), Self::new(l, x + 1, z), Self::new(l, x, z + 1), Self::new(l, x + 1, z + 1)]
    }

    /// Squared distance in voxels from world (x, z) to the column's centre.
    pub fn centre_distance_sq(self, x: f64, z: f64) -> f64 {
        let (mx, mz) = self.min_xz();
        let half = self.size() as f64 / 2.0;
        let (dx, dz) = (mx as f64 + half - x, mz as f64 + half - z);
        dx * dx + dz * dz
    }
}

/// One viewer a layout is made around: world position (x, z) in voxels and its near view
/// distance in chunks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LayoutViewer {
    pub x: f64,
    pub z: f64,
    pub view_distance: i32,
}

impl LayoutViewer {
    /// The near view distance in voxels.
    fn near_radius(&self) -> f64 {
        (self.view_distance.max(0) * CHUNK_SIZE) as f64
    }
}

/// Which leaves cover the ground around the viewers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LodLayout {
    /// Level-0 leaves: chunk columns `(cx, cz)` drawn as near chunks.
    pub near_columns: HashSet<(i32, i32)>,
    /// Leaves of level ≥ 1, drawn as far columns.
    pub far_columns: HashSet<LodColumn>,
    /// Columns that were split (internal nodes), for coverage checks and hysteresis.
    pub split: HashSet<LodColumn>,
    pub levels: u8,
}

impl LodLayout {
    /// The layout around world position `(x, z)` for a near view distance of `view_distance`
    /// chunks and `levels` far levels. `previous` is the layout it replaces (hysteresis: a column
    /// that was split stays split until its centre is `size / 2` beyond the split distance).
    /// With `levels == 0` the near field is the disc of chunk columns within `view_distance`
    /// chunks of the viewer's chunk, as without a far view.
    pub fn compute(x: f64, z: f64, view_distance: i32, levels: u8, previous: Option<&LodLayout>) -> Self {
        Self::compute_for(&[LayoutViewer { x, z, view_distance }], levels, previous)
    }

    /// The layout around several viewers: one quadtree whose columns split while any viewer is
    /// close enough by its own view distance, so the leaves still tile the ground exactly once
    /// (no far column under another viewer's near chunks). With `levels == 0` the near field is
    /// the union of the viewers' discs. No viewers, no leaves.
    pub fn compute_for(viewers: &[LayoutViewer], levels: u8, previous: Option<&LodLayout>) -> Self {
        let levels = levels.min(MAX_LOD_LEVELS);
        let mut layout = LodLayout { levels, ..Default::default() };
        if levels == 0 {
            for v in viewers {
                let r = v.view_distance.max(0);
                let c = ChunkCoord::containing(IVec3::new(v.x.floor() as i32, 0, v.z.floor() as i32));
                for dz in -r..=r {
                    for dx in -r..=r {
                        if dx * dx + dz * dz <= r * r {
                            layout.near_columns.insert((c.x + dx, c.z + dz));
                        }
                    }
                }
            }
            return layout;
        }
        let mut roots = HashSet::new();
        for v in viewers {
            let far_radius = v.near_radius() * (1u64 << levels) as f64;
            let top = LodColumn::containing(levels, v.x.floor() as i32, v.z.floor() as i32);
            let span = (far_radius / (CHUNK_SIZE << levels) as f64).ceil() as i32 + 1;
            for dz in -span..=span {
                for dx in -span..=span {
                    let root = LodColumn::new(levels, top.x + dx, top.z + dz);
                    if root.centre_distance_sq(v.x, v.z) < far_radius * far_radius {
                        roots.insert(root);
                    }
                }
            }
        }
        for root in roots {
            layout.insert(root, viewers, previous);
        }
        layout
    }

    fn insert(&mut self, c: LodColumn, viewers: &[LayoutViewer], previous: Option<&LodLayout>) {
        if c.level == 0 {
            self.near_columns.insert((c.x, c.z));
            return;
        }
        let was_split = previous.is_some_and(|p| p.split.contains(&c));
        let near_enough = viewers.iter().any(|v| {
            let split_at = v.near_radius() * (1u64 << (c.level - 1)) as f64;
            let reach = if was_split { split_at + c.size() as f64 / 2.0 } else { split_at };
            c.centre_distance_sq(v.x, v.z) < reach * reach
        });
        if near_enough {
            self.split.insert(c);
            for child in c.children() {
                self.insert(child, viewers, previous);
            }
        } else {
            self.far_columns.insert(c);
        }
    }

    /// The far leaf that contains column `c` (any level), if there is one at or above it.
    pub fn far_ancestor(&self, mut c: LodColumn) -> Option<LodColumn> {
        while c.level <= self.levels {
            if self.far_columns.contains(&c) {
                return Some(c);
            }
            c = c.parent();
        }
        None
    }

    /// Whether the ground under column `c` (a leaf of an older layout) is drawn by leaves of this
    /// layout for which `loaded` is true — near columns are asked as level-0 columns. Ground this
    /// layout does not cover at all counts as covered (nothing will be drawn there).
    pub fn is_covered(&self, c: LodColumn, loaded: &impl Fn(LodColumn) -> bool) -> bool {
        if let Some(a) = self.far_ancestor(c) {
            return loaded(a);
        }
        // No far leaf at or above `c`: its ground is drawn by leaves below it, or not at all.
        self.covered_below(c, loaded)
    }

    fn covered_below(&self, c: LodColumn, loaded: &impl Fn(LodColumn) -> bool) -> bool {
        if c.level == 0 {
            return !self.near_columns.contains(&(c.x, c.z)) || loaded(c);
        }
        if self.far_columns.contains(&c) {
            return loaded(c);
        }
        if self.split.contains(&c) {
            return c.children().into_iter().all(|child| self.covered_below(child, loaded));
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn area_of(c: LodColumn) -> i64 {
        (c.size() as i64).pow(2)
    }

    #[test]
    fn several_viewers_share_one_tiling_with_near_chunks_around_each() {
        let viewers = [
            LayoutViewer { x: 0.0, z: 0.0, view_distance: 4 },
            LayoutViewer { x: 700.0, z: -300.0, view_distance: 2 },
            LayoutViewer { x: 90.0, z: 40.0, view_distance: 3 },
        ];
        for levels in [0u8, 1, 3] {
            let l = LodLayout::compute_for(&viewers, levels, None);
            let mut seen: HashSet<(i32, i32)> = HashSet::new();
            let leaves =
                l.near_columns.iter().map(|&(cx, cz)| LodColumn::new(0, cx, cz)).chain(l.far_columns.iter().copied());
            for c in leaves {
                let n = 1 << c.level;
                for dz in 0..n {
                    for dx in 0..n {
                        assert!(seen.insert((c.x * n + dx, c.z * n + dz)), "levels {levels}: {c:?} overlaps");
                    }
                }
            }
            for v in &viewers {
                let own = LodLayout::compute(v.x, v.z, v.view_distance, levels, None);
                let c = LodColumn::containing(0, v.x as i32, v.z as i32);
                assert!(l.near_columns.contains(&(c.x, c.z)), "levels {levels}: no near chunks at {v:?}");
                // Everything one viewer alone would load near is near here too.
                assert!(own.near_columns.is_subset(&l.near_columns), "levels {levels}: {v:?} lost near columns");
            }
            // One viewer alone gives exactly the single-viewer layout.
            let one = LodLayout::compute_for(&viewers[..1], levels, None);
            assert_eq!(one, LodLayout::compute(0.0, 0.0, 4, levels, None));
        }
        assert_eq!(LodLayout::compute_for(&[], 3, None).near_columns.len(), 0);
    }

    #[test]
    fn leaves_tile_the_far_disc_exactly_once() {
        for (x, z, vd, levels) in
            [(0.0, 0.0, 8, 3), (1000.5, -77.0, 4, 2), (-40_000.0, 12_345.0, 6, 4), (16.0, 16.0, 1, 1)]
        {
            let l = LodLayout::compute(x, z, vd, levels, None);
            let mut seen: HashSet<(i32, i32)> = HashSet::new();
            let mut area = 0i64;
            let leaves =
                l.near_columns.iter().map(|&(cx, cz)| LodColumn::new(0, cx, cz)).chain(l.far_columns.iter().copied());
            for c in leaves {
                area += area_of(c);
                // Every level-0 column under a leaf is counted once.
                let n = 1 << c.level;
                for dz in 0..n {
                    for dx in 0..n {
                        assert!(seen.insert((c.x * n + dx, c.z * n + dz)), "{c:?} overlaps another leaf");
                    }
                }
            }
            assert_eq!(area, seen.len() as i64 * 32 * 32);
            // The far disc is covered: every chunk column whose centre is well inside it.
            let far = (vd * 32) as f64 * (1 << levels) as f64;
            let v = LodColumn::containing(0, x as i32, z as i32);
            let span = (far / 32.0) as i32;
            for dz in (-span..=span).step_by(3) {
                for dx in (-span..=span).step_by(3) {
                    let c = LodColumn::new(0, v.x + dx, v.z + dz);
                    if c.centre_distance_sq(x, z).sqrt() < far - (32 << levels) as f64 * 0.8 {
                        assert!(seen.contains(&(c.x, c.z)), "hole at {c:?}");
                    }
                }
            }
            // Near the viewer it is the near field; levels grow outwards.
            assert!(l.near_columns.contains(&(v.x, v.z)));
            for c in &l.far_columns {
                let d = c.centre_distance_sq(x, z).sqrt();
                let split_at = (vd * 32) as f64 * (1 << (c.level - 1)) as f64;
                assert!(d >= split_at, "{c:?} at {d} should have been split (< {split_at})");
            }
        }
    }

    #[test]
    fn no_levels_is_the_near_disc() {
        let l = LodLayout::compute(40.0, -3.0, 3, 0, None);
        assert!(l.far_columns.is_empty());
        assert_eq!(l.near_columns.len(), 29); // lattice points with dx² + dz² ≤ 9
        assert!(
            l.near_columns.contains(&(1, -1)) && l.near_columns.contains(&(4, -1)) && !l.near_columns.contains(&(4, 1))
        );
    }

    #[test]
    fn a_split_column_stays_split_within_the_margin() {
        let a = LodLayout::compute(0.0, 0.0, 4, 2, None);
        // Step back a little: without hysteresis some columns would merge.
        let b_fresh = LodLayout::compute(40.0, 0.0, 4, 2, None);
        let b = LodLayout::compute(40.0, 0.0, 4, 2, Some(&a));
        assert!(b_fresh.split != a.split, "the step changes the fresh layout");
        let lost: Vec<_> = a.split.iter().filter(|c| !b.split.contains(c)).collect();
        assert!(lost.len() < a.split.iter().filter(|c| !b_fresh.split.contains(c)).count().max(1), "{lost:?}");
    }

    #[test]
    fn a_retired_leaf_is_covered_only_when_its_replacements_are_loaded() {
        let a = LodLayout::compute(0.0, 0.0, 4, 2, None);
        let b = LodLayout::compute(6000.0, 0.0, 4, 2, Some(&a));
        // Far away: b covers none of a's ground, so every old leaf may go at once.
        assert!(a.near_columns.iter().all(|&(x, z)| b.is_covered(LodColumn::new(0, x, z), &|_| false)));
        // Moving a little: a level-1 leaf that splits waits for its four near columns.
        let c = LodLayout::compute(200.0, 0.0, 4, 2, Some(&a));
        let split: Vec<LodColumn> = a.far_columns.iter().filter(|f| c.split.contains(f)).copied().collect();
        assert!(!split.is_empty(), "moving 200 voxels splits some far columns");
        for f in &split {
            assert!(!c.is_covered(*f, &|_| false));
            assert!(c.is_covered(*f, &|_| true));
        }
        // Near columns that merged into a far leaf wait for that leaf.
        let merged: Vec<(i32, i32)> = a.near_columns.iter().filter(|n| !c.near_columns.contains(n)).copied().collect();
        assert!(!merged.is_empty());
        for &(x, z) in &merged {
            let n = LodColumn::new(0, x, z);
            let parent = c.far_ancestor(n).expect("merged into a far leaf");
            assert!(!c.is_covered(n, &|_| false));
            assert!(c.is_covered(n, &|q| q == parent));
        }
    }
}
