//! Far view: which parts of the world are drawn at which level of detail, and the coarse
//! columns that draw them.
//!
//! The ground is covered by a quadtree of square columns. A column of level `L` spans
//! `32·2^L` voxels on x and z and is drawn with cells of `2^L` voxels (its *stride*), so every
//! column, whatever its level, is 32 × 32 cells across. Level 0 is the near field: ordinary 3D
//! chunks with caves, ores, edits, scatter and collision. Levels 1 and up are far columns: the
//! height field and the biomes sampled at the stride, water up to sea level, no caves (they are
//! underground and out of sight at that distance) — the same functions as the near field, read
//! more sparsely.
//!
//! [`LodLayout::compute`] splits a column in four while its centre is closer to the viewer than
//! `R·2^(L−1)` voxels (`R` = the near view distance in voxels); a column already split stays split
//! up to a margin further (hysteresis, so walking back and forth over a border does not regenerate
//! it). Every point of the ground within the far radius `R·2^levels` is covered by exactly one
//! leaf. When the layout changes, a leaf that leaves it stays on screen until the leaves that
//! replace it are loaded ([`LodLayout::is_covered`]), so there is never a hole.
//!
//! Cracks between levels are closed by skirts: a far column's outer cells are meshed against air,
//! so its sides are walls down to a depth below its lowest surface, and where a coarser column
//! stands higher than its finer neighbour the wall fills the step.

use crate::base::block::{self, AIR, BlockId};
use crate::base::chunk::VoxelBuffer;
use crate::base::coords::{CHUNK_SIZE, ChunkCoord, IVec3};
use crate::gen3d::pipeline::Generator;
use crate::mesh::{ChunkMesh, Mesher};
use crate::gen3d::terrain::TerrainSample;
use std::collections::HashSet;

/// The most far levels a layout may have (level 6 columns are 2,048 voxels wide).
pub const MAX_LOD_LEVELS: u8 = 6;

/// Cells of wall (skirt) below a far column's lowest surface.
pub const SKIRT_CELLS: i32 = 8;

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

/// Which leaves cover the ground around a viewer.
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
        let levels = levels.min(MAX_LOD_LEVELS);
        let r = view_distance.max(0);
        let mut layout = LodLayout { levels, ..Default::default() };
        if levels == 0 {
            let v = ChunkCoord::containing(IVec3::new(x.floor() as i32, 0, z.floor() as i32));
            for dz in -r..=r {
                for dx in -r..=r {
                    if dx * dx + dz * dz <= r * r {
                        layout.near_columns.insert((v.x + dx, v.z + dz));
                    }
                }
            }
            return layout;
        }
        let near_radius = (r * CHUNK_SIZE) as f64;
        let far_radius = near_radius * (1u64 << levels) as f64;
        let top = LodColumn::containing(levels, x.floor() as i32, z.floor() as i32);
        let span = (far_radius / (CHUNK_SIZE << levels) as f64).ceil() as i32 + 1;
        for dz in -span..=span {
            for dx in -span..=span {
                let root = LodColumn::new(levels, top.x + dx, top.z + dz);
                if root.centre_distance_sq(x, z) < far_radius * far_radius {
                    layout.insert(root, x, z, near_radius, previous);
                }
            }
        }
        layout
    }

    fn insert(&mut self, c: LodColumn, x: f64, z: f64, near_radius: f64, previous: Option<&LodLayout>) {
        if c.level == 0 {
            self.near_columns.insert((c.x, c.z));
            return;
        }
        let split_at = near_radius * (1u64 << (c.level - 1)) as f64;
        let was_split = previous.is_some_and(|p| p.split.contains(&c));
        let reach = if was_split { split_at + c.size() as f64 / 2.0 } else { split_at };
        if c.centre_distance_sq(x, z) < reach * reach {
            self.split.insert(c);
            for child in c.children() {
                self.insert(child, x, z, near_radius, previous);
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

/// A finished far column: its mesh, with positions relative to `origin` (world voxels).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FarMesh {
    pub column: LodColumn,
    pub origin: IVec3,
    pub mesh: ChunkMesh,
}

/// One column of cells as the far generator sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct FarCell {
    /// Index of the top solid cell.
    top: i32,
    /// World y of the top face of the ground in this column.
    surface: i32,
    surface_block: BlockId,
    subsurface_block: BlockId,
}

/// A worker's reusable buffers for far columns.
#[derive(Default)]
pub struct FarScratch {
    samples: Vec<TerrainSample>,
    cells: Vec<FarCell>,
    padded: Option<VoxelBuffer>,
    mesher: Mesher,
    section: ChunkMesh,
}

impl FarScratch {
    /// Far columns with ambient occlusion (the default) or without, as the near chunks.
    pub fn set_ambient_occlusion(&mut self, on: bool) {
        self.mesher.set_ambient_occlusion(on);
    }
}

/// Padded columns per side: 32 cells and a one-cell halo.
const PADDED: usize = CHUNK_SIZE as usize + 2;

/// Builds far column `c` (level ≥ 1) into `out`: heights and biomes sampled at the column's
/// stride (cell centres), ground, water up to sea level, meshed in sections of 32 cells with the
/// blocky mesher and scaled by the stride. A pure function of the generator and `c`.
pub fn build_far_column(g: &Generator, c: LodColumn, scratch: &mut FarScratch, out: &mut FarMesh) {
    out.column = c;
    out.mesh.clear();
    let s = c.stride();
    let (mx, mz) = c.min_xz();
    sample_far_cells(g, c, scratch);
    let cells = &scratch.cells;
    let interior = |i: usize, k: usize| &cells[(k + 1) * PADDED + i + 1];
    let preset = g.preset();
    let (water, sea) = (preset.water.enabled, preset.water.sea_level);
    let half = s / 2;
    let (mut lo, mut hi) = (i32::MAX, i32::MIN);
    for k in 0..CHUNK_SIZE as usize {
        for i in 0..CHUNK_SIZE as usize {
            let t = interior(i, k).top;
            lo = lo.min(t);
            hi = hi.max(t);
        }
    }
    if water {
        hi = hi.max((sea - 1 - half).div_euclid(s));
    }
    let bottom = lo - SKIRT_CELLS;
    out.origin = IVec3::new(mx, bottom * s, mz);
    let block_at = |cell: &FarCell, j: i32| -> BlockId {
        let y = j * s + half;
        if j <= cell.top {
            if j == cell.top {
                cell.surface_block
            } else if cell.surface - y <= 4 {
                cell.subsurface_block
            } else {
                block::STONE
            }
        } else if water && y < sea {
            block::WATER
        } else {
            AIR
        }
    };
    let padded = scratch.padded.get_or_insert_with(|| VoxelBuffer::new(IVec3::ZERO, IVec3::ONE));
    let mut j0 = bottom;
    while j0 <= hi {
        let h = (hi + 1 - j0).min(CHUNK_SIZE);
        padded.reset(IVec3::splat(-1), IVec3::new(PADDED as i32, h + 2, PADDED as i32));
        let data = padded.data_mut();
        let plane = PADDED * PADDED;
        for (pj, layer) in data.chunks_exact_mut(plane).enumerate() {
            let j = j0 - 1 + pj as i32;
            for (idx, (v, cell)) in layer.iter_mut().zip(cells.iter()).enumerate() {
                let (pi, pk) = (idx % PADDED, idx / PADDED);
                let edge = pi == 0 || pk == 0 || pi == PADDED - 1 || pk == PADDED - 1;
                let b = if j < bottom { block::STONE } else { block_at(cell, j) };
                // Skirts: solid cells of the halo above the column's bottom read as air, so the
                // column's sides are walls that close any step to a neighbour of another level.
                *v = if edge && j >= bottom && block::is_solid(b) { AIR } else { b };
            }
        }
        scratch.mesher.mesh(padded, &mut scratch.section);
        append_scaled(&scratch.section, s as f32, ((j0 - bottom) * s) as f32, &mut out.mesh);
        j0 += h;
    }
}

/// Heights, tops and blocks of the padded 34 × 34 cells of `c`, from a 36 × 36 grid of samples at
/// cell centres (the outer ring is for slopes).
fn sample_far_cells(g: &Generator, c: LodColumn, scratch: &mut FarScratch) {
    let s = c.stride();
    let (mx, mz) = c.min_xz();
    let grid = PADDED + 2;
    let centre = |m: i32| (m - 2 * s) as f64 + s as f64 * 0.5;
    g.terrain().sample_grid(centre(mx), centre(mz), s as f64, grid, grid, &mut scratch.samples);
    let samples = &scratch.samples;
    let h = |i: usize, k: usize| samples[k * grid + i].height;
    scratch.cells.clear();
    for k in 1..=PADDED {
        for i in 1..=PADDED {
            let sample = samples[k * grid + i];
            let surface = sample.height.floor() as i32;
            let slope = (h(i + 1, k) - h(i - 1, k)).abs().max((h(i, k + 1) - h(i, k - 1)).abs()) * 0.5 / s as f64;
            let (surface_block, subsurface_block) = g.column_blocks(sample.biome, surface, slope);
            let top = (surface - 1 - s / 2).div_euclid(s);
            scratch.cells.push(FarCell { top, surface, surface_block, subsurface_block });
        }
    }
}

/// Appends `section` to `out`, positions scaled by `scale` and lifted by `lift`.
fn append_scaled(section: &ChunkMesh, scale: f32, lift: f32, out: &mut ChunkMesh) {
    for (src, dst) in [(&section.opaque, &mut out.opaque), (&section.liquid, &mut out.liquid)] {
        let base = dst.positions.len() as i32;
        dst.positions.extend(src.positions.iter().map(|p| [p[0] * scale, p[1] * scale + lift, p[2] * scale]));
        dst.directions.extend_from_slice(&src.directions);
        dst.colors.extend_from_slice(&src.colors);
        dst.indices.extend(src.indices.iter().map(|i| i + base));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::FACE_NORMALS;
    use crate::preset::model::WorldPreset;

    fn area_of(c: LodColumn) -> i64 {
        (c.size() as i64).pow(2)
    }

    #[test]
    fn leaves_tile_the_far_disc_exactly_once() {
        for (x, z, vd, levels) in [(0.0, 0.0, 8, 3), (1000.5, -77.0, 4, 2), (-40_000.0, 12_345.0, 6, 4), (16.0, 16.0, 1, 1)] {
            let l = LodLayout::compute(x, z, vd, levels, None);
            let mut seen: HashSet<(i32, i32)> = HashSet::new();
            let mut area = 0i64;
            let leaves = l.near_columns.iter().map(|&(cx, cz)| LodColumn::new(0, cx, cz)).chain(l.far_columns.iter().copied());
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
        assert!(l.near_columns.contains(&(1, -1)) && l.near_columns.contains(&(4, -1)) && !l.near_columns.contains(&(4, 1)));
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

    fn generator() -> Generator {
        Generator::new(&WorldPreset::default()).unwrap()
    }

    fn far(g: &Generator, c: LodColumn) -> FarMesh {
        let mut out = FarMesh::default();
        build_far_column(g, c, &mut FarScratch::default(), &mut out);
        out
    }

    #[test]
    fn far_columns_are_pure_and_independent_of_order() {
        let g = generator();
        let cols = [LodColumn::new(1, 3, -2), LodColumn::new(2, 0, 0), LodColumn::new(3, -5, 7)];
        let first: Vec<FarMesh> = cols.iter().map(|&c| far(&g, c)).collect();
        let mut scratch = FarScratch::default();
        for &c in cols.iter().rev() {
            let mut out = FarMesh::default();
            build_far_column(&g, c, &mut scratch, &mut out);
            assert_eq!(&out, first.iter().find(|m| m.column == c).unwrap(), "{c:?}");
        }
        let threaded = std::thread::spawn(move || far(&generator(), LodColumn::new(2, 0, 0))).join().unwrap();
        assert_eq!(threaded, first[1]);
    }

    #[test]
    fn far_tops_follow_the_height_field_at_the_stride() {
        let g = generator();
        for c in [LodColumn::new(1, 3, -2), LodColumn::new(2, -1, 4), LodColumn::new(3, 2, 2)] {
            let m = far(&g, c);
            let s = c.stride();
            let (mx, mz) = c.min_xz();
            // The highest upward face over each cell sits at the cell-rounded surface (quads
            // are four vertices each; rasterise the upward ones onto the cells they span).
            let mut top: std::collections::HashMap<(i32, i32), f32> = std::collections::HashMap::new();
            let surface = &m.mesh.opaque;
            for (q, d) in surface.positions.chunks_exact(4).zip(surface.directions.chunks_exact(4)) {
                if FACE_NORMALS[d[0] as usize][1] < 0.5 {
                    continue;
                }
                let cell = |v: f32| (v / s as f32).round() as i32;
                let (i0, i1) = (q.iter().map(|p| cell(p[0])).min().unwrap(), q.iter().map(|p| cell(p[0])).max().unwrap());
                let (k0, k1) = (q.iter().map(|p| cell(p[2])).min().unwrap(), q.iter().map(|p| cell(p[2])).max().unwrap());
                for k in k0..k1 {
                    for i in i0..i1 {
                        let e = top.entry((i, k)).or_insert(f32::MIN);
                        *e = e.max(q[0][1] + m.origin.y as f32);
                    }
                }
            }
            let mut checked = 0;
            for k in (1..31).step_by(5) {
                for i in (1..31).step_by(5) {
                    let (x, z) = ((mx + i * s) as f64 + s as f64 * 0.5, (mz + k * s) as f64 + s as f64 * 0.5);
                    let surface = g.terrain().sample(x, z).height.floor() as i32;
                    let want = ((surface - 1 - s / 2).div_euclid(s) + 1) * s;
                    let got = top.get(&(i, k)).copied().unwrap_or(f32::MIN);
                    if g.preset().water.enabled && surface < g.preset().water.sea_level {
                        continue; // under water the top face may belong to a neighbour
                    }
                    assert_eq!(got, want as f32, "{c:?} cell ({i},{k}): top face at {got}, ground at {want}");
                    checked += 1;
                }
            }
            assert!(checked > 10, "{c:?}: only {checked} dry cells");
        }
    }

    #[test]
    fn far_cells_are_seamless_a_halo_equals_the_neighbours_cells() {
        let g = generator();
        for c in [LodColumn::new(1, 3, -2), LodColumn::new(3, -1, 0)] {
            let cells_of = |c: LodColumn| {
                let mut scratch = FarScratch::default();
                sample_far_cells(&g, c, &mut scratch);
                scratch.cells
            };
            let (a, east, south) = (cells_of(c), cells_of(LodColumn::new(c.level, c.x + 1, c.z)), cells_of(LodColumn::new(c.level, c.x, c.z + 1)));
            for k in 1..PADDED - 1 {
                // a's east halo column is east's first interior column, and a's last interior
                // column is east's west halo.
                assert_eq!(a[k * PADDED + PADDED - 1], east[k * PADDED + 1], "{c:?} row {k}");
                assert_eq!(a[k * PADDED + PADDED - 2], east[k * PADDED], "{c:?} row {k}");
                assert_eq!(a[(PADDED - 1) * PADDED + k], south[PADDED + k], "{c:?} col {k}");
            }
        }
    }

    #[test]
    fn far_columns_have_walls_so_no_crack_shows_at_their_border() {
        let g = generator();
        let c = LodColumn::new(2, 1, 1);
        let m = far(&g, c);
        let size = c.size() as f32;
        // Faces on the column's four outer planes, facing outwards.
        let mut walls = [0usize; 4];
        for (p, &d) in m.mesh.opaque.positions.iter().zip(&m.mesh.opaque.directions) {
            let n = FACE_NORMALS[d as usize];
            if n[0] < -0.5 && p[0] == 0.0 {
                walls[0] += 1;
            } else if n[0] > 0.5 && p[0] == size {
                walls[1] += 1;
            } else if n[2] < -0.5 && p[2] == 0.0 {
                walls[2] += 1;
            } else if n[2] > 0.5 && p[2] == size {
                walls[3] += 1;
            }
        }
        assert!(walls.iter().all(|&w| w >= 4), "{walls:?}");
        // The lowest vertex is SKIRT_CELLS cells below the lowest top.
        let min_y = m.mesh.opaque.positions.iter().map(|p| p[1]).fold(f32::MAX, f32::min);
        assert_eq!(min_y, 0.0);
    }
}
