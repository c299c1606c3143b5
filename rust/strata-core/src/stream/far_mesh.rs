//! Far meshing: the coarse columns that draw the far view (levels ≥ 1 of
//! [`crate::stream::far_policy`]).
//!
//! A far column of level `L` is the height field and the biomes sampled at its stride of `2^L`
//! voxels, with water up to sea level and no caves (they are underground and out of sight at that
//! distance): the same functions as the near field, read more sparsely. Its 32 × 32 cells are
//! meshed by the blocky [`Mesher`] in sections of 32 cells and scaled by the stride.
//!
//! Structures and trees standing above the ground raise the cells whose centre columns they
//! cover to their top there, in the block of that top: each placement's tops are worked out once
//! for all the columns of its box (a tree grown once), and a placement no higher than the ground
//! of every cell it covers is passed over.
//!
//! Cracks between levels are closed by skirts: a far column's outer cells are meshed against air,
//! so its sides are walls down to a depth below its lowest surface, and where a coarser column
//! stands higher than its finer neighbour the wall fills the step.
//!
//! With [`FarScratch::set_occluder_bits`] a column is meshed without vertex AO and carries the
//! occluder bits of its whole padded box of cells instead ([`crate::mesh::occluders`]), so the
//! block shaders compute its AO per fragment on the coarse cells (positions divided by the
//! stride), as they do for the near chunks: the quads merge by block alone.
//!
//! May use: `base`, `preset`, `noise`, `automata`, `gen3d`, `gen2d`, `mesh` and the other `stream` modules.

use crate::base::block::{self, AIR, BlockId};
use crate::base::chunk::VoxelBuffer;
use crate::base::coords::{CHUNK_SIZE, IVec3};
use crate::gen3d::pipeline::Generator;
use crate::gen3d::terrain::TerrainSample;
use crate::mesh::occluders::OccluderBits;
use crate::mesh::{ChunkMesh, Mesher};
use crate::stream::far_policy::LodColumn;

/// Cells of wall (skirt) below a far column's lowest surface.
pub const SKIRT_CELLS: i32 = 8;

/// A finished far column: its mesh, with positions relative to `origin` (world voxels).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FarMesh {
    pub column: LodColumn,
    pub origin: IVec3,
    pub mesh: ChunkMesh,
    /// The occluder bits of the column's padded box of cells (34 × rows × 34; padded cell
    /// `(i + 1, j + 1, k + 1)` is the cell at `origin + (i, j, k) · stride`), when asked for
    /// ([`FarScratch::set_occluder_bits`]) and the column has faces; empty otherwise.
    pub occluders: OccluderBits,
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
    /// One placement's top per column of its box ([`Generator::structure_column_tops`]).
    tops: Vec<Option<(i32, BlockId)>>,
    padded: Option<VoxelBuffer>,
    mesher: Mesher,
    section: ChunkMesh,
    occluder_bits: bool,
}

impl FarScratch {
    /// Far columns with ambient occlusion (the default) or without, as the near chunks.
    pub fn set_ambient_occlusion(&mut self, on: bool) {
        self.mesher.set_ambient_occlusion(on);
    }

    /// Whether far columns carry their occluder bits (off by default), for AO computed per
    /// fragment; pair it with [`FarScratch::set_ambient_occlusion`] off.
    pub fn set_occluder_bits(&mut self, on: bool) {
        self.occluder_bits = on;
    }

    /// Whether the shaders add the face shade (off by default), as
    /// [`Mesher::set_shade_in_shader`](crate::mesh::Mesher::set_shade_in_shader).
    pub fn set_shade_in_shader(&mut self, on: bool) {
        self.mesher.set_shade_in_shader(on);
    }

    /// Far columns meshed with `materials` (colours of the blocks), as the near chunks.
    pub fn set_materials(&mut self, materials: std::sync::Arc<crate::mesh::MeshMaterials>) {
        self.mesher.set_materials(materials);
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
    out.occluders.clear();
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
    let ground_at = |cell: &FarCell, j: i32| -> BlockId {
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
    // The block of padded cell `cell` (`edge`: in the halo ring) at cell row `j`.
    let block_at = |cell: &FarCell, j: i32, edge: bool| -> BlockId {
        let b = ground_at(cell, j);
        // Skirts: solid cells of the halo above the column's bottom read as air, so the
        // column's sides are walls that close any step to a neighbour of another level.
        if j < bottom {
            block::STONE
        } else if edge && block::is_solid(b) {
            AIR
        } else {
            b
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
                *v = block_at(cell, j, is_halo(idx));
            }
        }
        scratch.mesher.mesh(padded, &mut scratch.section);
        append_scaled(&scratch.section, s as f32, ((j0 - bottom) * s) as f32, &mut out.mesh);
        j0 += h;
    }
    if scratch.occluder_bits && !out.mesh.is_empty() {
        let materials = scratch.mesher.materials();
        // Padded rows from the cells below the bottom to the row above the highest section.
        let rows = (hi + 1 - bottom + 2) as usize;
        out.occluders.reset([PADDED, rows, PADDED]);
        for pj in 0..rows {
            let j = bottom - 1 + pj as i32;
            for (idx, cell) in cells.iter().enumerate() {
                if materials.occludes(block_at(cell, j, is_halo(idx))) {
                    out.occluders.set(idx % PADDED, pj, idx / PADDED);
                }
            }
        }
    }
}

/// Whether padded cell `idx` (x fastest) is in the halo ring around the 32 × 32 cells.
fn is_halo(idx: usize) -> bool {
    let (pi, pk) = (idx % PADDED, idx / PADDED);
    pi == 0 || pk == 0 || pi == PADDED - 1 || pk == PADDED - 1
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
    // Structures and trees above the ground raise the cells whose centre columns they cover:
    // their silhouette, in the block of their top.
    let reach = (mx - s, mz - s);
    let end = (mx + (CHUNK_SIZE + 1) * s, mz + (CHUNK_SIZE + 1) * s);
    // The cells whose centre columns (`origin + i · s + s / 2`) lie in `[lo, hi)`.
    let cells_in = |origin: i32, lo: i32, hi: i32| {
        let first = (lo - origin - s / 2 + s - 1).div_euclid(s).max(0);
        let end = ((hi - origin - s / 2 + s - 1).div_euclid(s)).min(PADDED as i32);
        first as usize..end.max(first) as usize
    };
    for q in g.placements_in(reach, end) {
        let (ks, is) = (cells_in(reach.1, q.min.z, q.max().z), cells_in(reach.0, q.min.x, q.max().x));
        // A placement no higher than the ground of every cell it covers raises none.
        let covered = ks.clone().flat_map(|k| is.clone().map(move |i| k * PADDED + i));
        if covered.map(|idx| scratch.cells[idx].surface).all(|ground| q.max().y <= ground) {
            continue;
        }
        g.structure_column_tops(&q, &mut scratch.tops);
        for k in ks {
            for i in is.clone() {
                let (x, z) = (reach.0 + i as i32 * s + s / 2, reach.1 + k as i32 * s + s / 2);
                let cell = &mut scratch.cells[k * PADDED + i];
                let column = (z - q.min.z) as usize * q.size.x as usize + (x - q.min.x) as usize;
                if let Some((top, block)) = scratch.tops[column]
                    && top > cell.surface
                {
                    *cell = FarCell {
                        top: (top - 1 - s / 2).div_euclid(s),
                        surface: top,
                        surface_block: block,
                        subsurface_block: block,
                    };
                }
            }
        }
    }
}

/// Appends `section` to `out`, positions scaled by `scale` and lifted by `lift` (the shaders
/// derive texture coordinates from positions, so a far cell tiles its texture once a voxel, as
/// the near chunks do).
fn append_scaled(section: &ChunkMesh, scale: f32, lift: f32, out: &mut ChunkMesh) {
    for (src, dst) in section.surfaces().into_iter().zip(out.surfaces_mut()) {
        let base = dst.positions.len() as i32;
        dst.positions.extend(src.positions.iter().map(|p| [p[0] * scale, p[1] * scale + lift, p[2] * scale]));
        dst.directions.extend_from_slice(&src.directions);
        dst.colors.extend_from_slice(&src.colors);
        dst.layers.extend_from_slice(&src.layers);
        dst.lights.extend_from_slice(&src.lights);
        dst.indices.extend(src.indices.iter().map(|i| i + base));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::FACE_NORMALS;
    use crate::preset::model::WorldPreset;

    fn generator() -> Generator {
        Generator::new(&WorldPreset::default()).unwrap()
    }

    fn far(g: &Generator, c: LodColumn) -> FarMesh {
        let mut out = FarMesh::default();
        build_far_column(g, c, &mut FarScratch::default(), &mut out);
        out
    }

    #[test]
    fn every_vertex_array_of_a_far_column_is_complete() {
        let g = generator();
        let m = far(&g, LodColumn::new(2, 1, -1));
        for s in m.mesh.surfaces() {
            let n = s.positions.len();
            assert!(
                [s.directions.len(), s.colors.len(), s.layers.len(), s.lights.len()].iter().all(|&l| l == n),
                "arrays of one length"
            );
            assert!(s.lights.iter().all(|&l| l == crate::mesh::FULL_LIGHT), "far ground is under open sky");
        }
        assert!(crate::mesh::bytes::MeshBytes::from_mesh(&m.mesh).opaque.is_some(), "packs");
    }

    #[test]
    fn trees_raise_the_far_cells_over_their_crowns_to_their_tops() {
        let mut p = WorldPreset::default();
        p.trees.enabled = true;
        let (with, plain) = (Generator::new(&p).unwrap(), generator());
        let mut raised = 0;
        for c in [LodColumn::new(1, 0, 0), LodColumn::new(2, -3, 4), LodColumn::new(1, 5, -2), LodColumn::new(2, 1, 1)]
        {
            let (mut a, mut b) = (FarScratch::default(), FarScratch::default());
            sample_far_cells(&with, c, &mut a);
            sample_far_cells(&plain, c, &mut b);
            let s = c.stride();
            let (mx, mz) = c.min_xz();
            let reach = (mx - s, mz - s);
            let placements = with.placements_in(reach, (mx + (CHUNK_SIZE + 1) * s, mz + (CHUNK_SIZE + 1) * s));
            for (idx, (cell, ground)) in a.cells.iter().zip(&b.cells).enumerate() {
                let (x, z) = (reach.0 + (idx % PADDED) as i32 * s + s / 2, reach.1 + (idx / PADDED) as i32 * s + s / 2);
                let tops = placements.iter().filter_map(|q| with.structure_column_top(q, x, z)).map(|(t, _)| t);
                let expected = tops.fold(ground.surface, i32::max);
                assert_eq!(cell.surface, expected, "{c:?} cell {idx}");
                raised += usize::from(cell.surface > ground.surface);
            }
        }
        assert!(raised > 10, "{raised} far cells show a tree");
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
                let (i0, i1) =
                    (q.iter().map(|p| cell(p[0])).min().unwrap(), q.iter().map(|p| cell(p[0])).max().unwrap());
                let (k0, k1) =
                    (q.iter().map(|p| cell(p[2])).min().unwrap(), q.iter().map(|p| cell(p[2])).max().unwrap());
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
            let (a, east, south) = (
                cells_of(c),
                cells_of(LodColumn::new(c.level, c.x + 1, c.z)),
                cells_of(LodColumn::new(c.level, c.x, c.z + 1)),
            );
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

    /// A column meshed without AO and with its occluder bits, and meshed with vertex AO, by
    /// white blocks.
    fn both_ways(g: &Generator, c: LodColumn) -> (FarMesh, FarMesh) {
        let meshed = |ao: bool| {
            let mut scratch = FarScratch::default();
            scratch.set_materials(crate::mesh::test_support::white_materials());
            scratch.set_ambient_occlusion(ao);
            scratch.set_occluder_bits(!ao);
            let mut out = FarMesh::default();
            build_far_column(g, c, &mut scratch, &mut out);
            out
        };
        (meshed(false), meshed(true))
    }

    #[test]
    fn far_occluder_bits_give_every_corner_of_the_coarse_cells_the_level_of_the_vertex_ao() {
        use crate::mesh::occluders::occlusion_at;
        let g = generator();
        let mut corners = 0;
        for c in [LodColumn::new(1, 3, -2), LodColumn::new(2, 1, 1), LodColumn::new(3, -1, 0)] {
            let (open, with_ao) = both_ways(&g, c);
            let bits = &open.occluders;
            assert_eq!(open.origin, with_ao.origin);
            assert!(with_ao.occluders.is_empty(), "{c:?}: no bits unless asked for");
            let rows = (bits.size[1] - 2) as f32 * c.stride() as f32;
            assert_eq!((bits.size[0], bits.size[2]), (PADDED, PADDED), "{c:?}");
            let top = open.mesh.surfaces().iter().flat_map(|s| s.positions.iter().map(|p| p[1])).fold(0.0, f32::max);
            assert!(top <= rows, "{c:?}: the bits' rows reach the highest face ({top} ≤ {rows})");
            let quads = |m: &FarMesh| m.mesh.opaque.positions.len() / 4;
            assert!(quads(&open) < quads(&with_ao), "{c:?}: {} quads against {}", quads(&open), quads(&with_ao));
            // White blocks under open sky: the open colour is a face's shade, one per direction.
            let mut shade = [0u8; 6];
            for (col, &d) in open.mesh.opaque.colors.iter().zip(&open.mesh.opaque.directions) {
                assert!(shade[d as usize] == 0 || shade[d as usize] == col[0], "{c:?}: one shade a direction");
                shade[d as usize] = col[0];
            }
            let s = &with_ao.mesh.opaque;
            let stride = c.stride() as f32;
            for q in 0..s.positions.len() / 4 {
                let quad = &s.positions[4 * q..4 * q + 4];
                let face = s.directions[4 * q] as usize;
                let centre = [0, 1, 2].map(|k| quad.iter().map(|p| p[k]).sum::<f32>() / 4.0);
                for (k, p) in quad.iter().enumerate() {
                    let inside = [0, 1, 2].map(|a| (p[a] + (centre[a] - p[a]) * 0.002) / stride);
                    let want = s.colors[4 * q + k][0] as f32 / shade[face] as f32;
                    let got = occlusion_at(bits, inside, face);
                    assert!(
                        (got - want).abs() < 0.02,
                        "{c:?}: corner {p:?} dir {face}: {got} against vertex AO {want}"
                    );
                    corners += 1;
                }
            }
        }
        assert!(corners > 1000, "{corners} corners");
    }
}
