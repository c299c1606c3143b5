//! Ambient occlusion computed where the pixels are: the occluder bits of a padded chunk, which a
//! worker writes next to the chunk's mesh, and [`occlusion_at`], the function the block shaders
//! evaluate per fragment over them (`addons/strata/shaders/blocks.gdshaderinc`, `block_occlusion`).
//!
//! With the AO baked into the vertices, a greedy quad may only span faces whose four corner
//! levels agree, so AO splits the ground into two to three times the quads that its blocks and
//! light need. With the occluders beside the mesh the quads merge by block and light alone (the
//! vertex colour is the open level) and each fragment reads the 3×3 occluders in front of its
//! face cell: the same four corner levels the vertex AO has, blended bilinearly across the cell
//! instead of across two triangles.
//!
//! Layout of [`OccluderBits::bytes`] (what the Godot layer uploads as an `R8` image, `width` ×
//! `height` = [`OccluderBits::image_size`]): the padded box's rows along x, `row_bytes =
//! ⌈size.x / 8⌉` bytes each, x = 0 in bit 0 of the first byte; row `(y, z)` starts at byte
//! `((y − first_row) · size.z + z) · row_bytes`, so image texel `(x / 8 + row_bytes · z, y −
//! first_row)` holds voxel `(x, y, z)` in bit `x mod 8`. A chunk keeps only the rows its faces
//! reach (`first_row`, the shaders' `strata_occluder_row0`, and the image's height).
//!
//! May use: `base` and the other `mesh` modules.

use crate::mesh::ao::AO_LEVELS;

/// Padded rows in one layer of the block shaders' occluder pages (`ChunkWorld` keeps every
/// chunk's bits in layers of shared texture arrays): a padded chunk's height, so a chunk's kept
/// rows fill one layer and a far column's take one layer per 34 rows.
pub const LAYER_ROWS: usize = 34;

/// Which voxels of a padded box occlude (the blocks that hide faces, whose bits step 1 of the
/// mesher packs), one bit a voxel; empty when not asked for
/// ([`Mesher::set_occluder_bits`](crate::mesh::Mesher::set_occluder_bits)).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OccluderBits {
    /// The padded box's size in voxels (x, y, z); zero when empty.
    pub size: [usize; 3],
    /// The padded row (y) of the bytes' first row: the rows below it, like those above the
    /// last one kept, lie beyond every face's reach ([`OccluderBits::keep_rows`]) and read as
    /// open.
    pub first_row: usize,
    /// The bits of rows `first_row..`, in the layout of the module doc.
    pub bytes: Vec<u8>,
}

impl OccluderBits {
    /// Bytes per row along x.
    pub fn row_bytes(&self) -> usize {
        self.size[0].div_ceil(8)
    }

    /// The bytes as an image: `(width, height)` texels of one byte, a row per padded row kept.
    pub fn image_size(&self) -> (usize, usize) {
        let width = self.row_bytes() * self.size[2];
        (width, self.bytes.len().checked_div(width).unwrap_or(0))
    }

    /// The box as the shaders see it: the padded box up to the last row kept.
    pub fn box_size(&self) -> [usize; 3] {
        [self.size[0], self.first_row + self.image_size().1, self.size[2]]
    }

    /// Keeps padded rows `from..=to` alone (clamped to the box): the rows in reach of faces
    /// whose corners lie between chunk heights `from` and `to - 1`.
    pub fn keep_rows(&mut self, from: usize, to: usize) {
        let (width, rows) = self.image_size();
        let (from, to) = (from.min(rows), to.min(rows.saturating_sub(1)));
        if to < from {
            return;
        }
        self.bytes.truncate((to + 1) * width);
        self.bytes.drain(..from * width);
        self.first_row += from;
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Layers of [`LAYER_ROWS`] rows that the kept rows take.
    pub fn layer_count(&self) -> usize {
        self.image_size().1.div_ceil(LAYER_ROWS)
    }

    /// Writes layer `k` into `out` (replacing its contents): kept rows `k · LAYER_ROWS ..`, one
    /// image row each as in [`OccluderBits::image_size`], and zero (open) rows after the last
    /// kept one, `LAYER_ROWS` rows in all. Kept row `r` is row `r mod LAYER_ROWS` of layer `r /
    /// LAYER_ROWS`.
    pub fn write_layer(&self, k: usize, out: &mut Vec<u8>) {
        let (width, rows) = self.image_size();
        let from = (k * LAYER_ROWS).min(rows);
        let to = ((k + 1) * LAYER_ROWS).min(rows);
        out.clear();
        out.extend_from_slice(&self.bytes[from * width..to * width]);
        out.resize(LAYER_ROWS * width, 0);
    }

    /// Empties the bits, keeping the buffer.
    pub fn clear(&mut self) {
        self.size = [0; 3];
        self.first_row = 0;
        self.bytes.clear();
    }

    /// A box of `size` with no occluder, keeping the buffer.
    pub fn reset(&mut self, size: [usize; 3]) {
        self.size = size;
        self.first_row = 0;
        let bytes = self.row_bytes() * size[1] * size[2];
        self.bytes.clear();
        self.bytes.resize(bytes, 0);
    }

    /// Marks padded voxel `(x, y, z)` (inside the box, all rows kept) as an occluder.
    #[inline]
    pub fn set(&mut self, x: usize, y: usize, z: usize) {
        let at = (y * self.size[2] + z) * self.row_bytes() + x / 8;
        self.bytes[at] |= 1 << (x % 8);
    }

    /// Sets the size and fills the bytes of padded rows `from..=to` (clamped to the box) from
    /// rows along x (`rows[y · size.z + z]`, bit x).
    pub(super) fn fill_from_rows(&mut self, size: [usize; 3], rows: &[u64], from: usize, to: usize) {
        let (from, to) = (from.min(size[1]), to.min(size[1].saturating_sub(1)));
        self.size = size;
        self.first_row = from;
        let row_bytes = self.row_bytes();
        let count = (to + 1).saturating_sub(from) * size[2];
        self.bytes.clear();
        self.bytes.resize(count * row_bytes, 0);
        let rows = &rows[from * size[2]..from * size[2] + count];
        let mask = if size[0] >= 64 { !0 } else { (1u64 << size[0]) - 1 };
        if row_bytes == 5 {
            // A padded chunk's rows (34 voxels): a fixed-size copy each.
            for (out, &row) in self.bytes.chunks_exact_mut(5).zip(rows) {
                out.copy_from_slice(&(row & mask).to_le_bytes()[..5]);
            }
        } else {
            for (out, &row) in self.bytes.chunks_exact_mut(row_bytes).zip(rows) {
                out.copy_from_slice(&(row & mask).to_le_bytes()[..row_bytes]);
            }
        }
    }

    /// Whether padded voxel `(x, y, z)` occludes; false outside the box.
    pub fn occludes(&self, x: i32, y: i32, z: i32) -> bool {
        let [sx, sy, sz] = self.box_size().map(|s| s as i32);
        let y = y - self.first_row as i32;
        if x < 0 || y < 0 || z < 0 || x >= sx || y >= sy - self.first_row as i32 || z >= sz {
            return false;
        }
        let row = (y * sz + z) as usize * self.row_bytes();
        self.bytes.get(row + (x / 8) as usize).is_some_and(|b| (b >> (x % 8)) & 1 == 1)
    }
}

/// The in-face axes `(u, v)` of a face looking along `axis` (0 = x, 1 = y, 2 = z), as the
/// shader takes them.
const fn face_axes(axis: usize) -> (usize, usize) {
    match axis {
        0 => (1, 2),
        1 => (0, 2),
        _ => (0, 1),
    }
}

/// The brightness (0.55 fully occluded to 1 open, the vertex AO's levels) that ambient occlusion
/// gives point `p` of a face looking in direction `face` (0–5: +x, −x, +y, −y, +z, −z), `p` in
/// the chunk's own voxels (padded voxel `(x + 1, y + 1, z + 1)` is chunk voxel `(x, y, z)`), as
/// the block shaders compute it per fragment:
/// 1. the face's plane is the nearest whole coordinate along its axis, the voxels in front the
///    layer it looks into; the face cell is the one `p` falls in, clamped to the chunk;
/// 2. a visible face never has an occluder in front of its own cell, so a point that fell into
///    a cell beyond its quad's edge (on the edge, or rounded past it) moves back into a cell
///    whose front is open: across the nearer cell edge, else the other one, else both. (Every
///    cell around a corner whose front is open gives that corner the same level.)
/// 3. each corner's level comes from its two side neighbours and its diagonal one in front
///    (both sides: 0, else 3 minus the occluders), as the vertex AO's; the four brightnesses
///    blend bilinearly across the cell.
pub fn occlusion_at(bits: &OccluderBits, p: [f32; 3], face: usize) -> f32 {
    let axis = (face / 2).min(2);
    let (u, v) = face_axes(axis);
    let plane = p[axis].round() as i32;
    // Padded coordinates of the layer in front.
    let front = if face.is_multiple_of(2) { plane + 1 } else { plane };
    let size = bits.box_size();
    let cells = |a: usize| size[a] as i32 - 2;
    let cell_of = |a: usize| (p[a].floor() as i32).clamp(0, (cells(a) - 1).max(0));
    let (mut cu, mut cv) = (cell_of(u), cell_of(v));
    let (mut fu, mut fv) = (p[u] - cu as f32, p[v] - cv as f32);
    let occluder = |du: i32, dv: i32, cu: i32, cv: i32| {
        let mut q = [0i32; 3];
        q[axis] = front;
        q[u] = cu + 1 + du;
        q[v] = cv + 1 + dv;
        bits.occludes(q[0], q[1], q[2])
    };
    if occluder(0, 0, cu, cv) {
        // Across the nearer cell edge, else the other one, else both (a corner).
        let (du, dv) = (if fu < 0.5 { -1 } else { 1 }, if fv < 0.5 { -1 } else { 1 });
        let (su, sv) = if fu.min(1.0 - fu) <= fv.min(1.0 - fv) { ((du, 0), (0, dv)) } else { ((0, dv), (du, 0)) };
        let step = if !occluder(su.0, su.1, cu, cv) {
            su
        } else if !occluder(sv.0, sv.1, cu, cv) {
            sv
        } else {
            (du, dv)
        };
        cu += step.0;
        cv += step.1;
        fu -= step.0 as f32;
        fv -= step.1 as f32;
    }
    let brightness = |su: i32, sv: i32| {
        let (s1, s2, d) = (occluder(su, 0, cu, cv), occluder(0, sv, cu, cv), occluder(su, sv, cu, cv));
        let level = if s1 && s2 { 0 } else { 3 - (s1 as usize + s2 as usize + d as usize) };
        AO_LEVELS[level]
    };
    let low = brightness(-1, -1) + (brightness(1, -1) - brightness(-1, -1)) * fu;
    let high = brightness(-1, 1) + (brightness(1, 1) - brightness(-1, 1)) * fu;
    low + (high - low) * fv
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::WorldPreset;
    use crate::base::block;
    use crate::base::block_library::default_library;
    use crate::base::chunk::VoxelBuffer;
    use crate::base::coords::{ChunkCoord, IVec3};
    use crate::gen3d::pipeline::Generator;
    use crate::mesh::bytes::{MeshBytes, SurfaceBytes};
    use crate::mesh::test_support::{random_box, white_materials};
    use crate::mesh::{ChunkMesh, Mesher, mesh_padded_chunk_culled_in};

    /// Generated chunks, and random boxes of every kind of block (glass, leaves, torches, water,
    /// ids the library lacks).
    fn boxes() -> Vec<VoxelBuffer> {
        let g = Generator::new(&WorldPreset::default()).expect("the default preset");
        let mut out = Vec::new();
        for c in [(0, 0, 0), (1, 0, 1), (-2, 0, 3), (0, -1, 0), (5, 0, -4)] {
            let mut padded = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
            g.generate_padded_chunk(ChunkCoord::new(c.0, c.1, c.2), &mut padded);
            out.push(padded);
        }
        let library = default_library();
        let ids: Vec<u16> = ["stone", "glass", "leaves", "torch", "water", "ice", "planks"]
            .iter()
            .filter_map(|n| library.id_of(n))
            .chain([block::DIRT, 300])
            .collect();
        for seed in 0..6 {
            out.push(random_box(seed, 12 + seed as i32 * 5, &ids, 0.45));
        }
        out
    }

    /// Every kept row lands in its layer once, as the shaders read it (layer `r / 34`, row `r
    /// mod 34`), and the rows past the last kept one read open: a chunk's cropped bits and a
    /// far column's bits taller than one layer.
    #[test]
    fn layers_hold_every_kept_row_where_the_shaders_read_it() {
        let mut tall = OccluderBits::default();
        tall.reset([34, 75, 34]);
        for (x, y, z) in [(0, 0, 0), (33, 33, 33), (5, 34, 7), (17, 67, 2), (33, 68, 33), (1, 74, 30)] {
            tall.set(x, y, z);
        }
        let mut chunk = OccluderBits::default();
        chunk.reset([34, 34, 34]);
        chunk.set(3, 9, 4);
        chunk.set(30, 20, 31);
        chunk.keep_rows(8, 21);
        for (bits, layers) in [(&tall, 3), (&chunk, 1)] {
            assert_eq!(bits.layer_count(), layers);
            let mut layer = Vec::new();
            let [sx, sy, sz] = bits.box_size();
            for y in 0..sy + 40 {
                let Some(r) = y.checked_sub(bits.first_row) else { continue };
                bits.write_layer(r / LAYER_ROWS, &mut layer);
                assert_eq!(layer.len(), LAYER_ROWS * 5 * sz);
                for z in 0..sz {
                    for x in 0..sx {
                        let at = ((r % LAYER_ROWS) * sz + z) * 5 + x / 8;
                        let read = layer.get(at).is_some_and(|b| (b >> (x % 8)) & 1 == 1);
                        let want = bits.occludes(x as i32, y as i32, z as i32);
                        assert_eq!(read, want, "voxel ({x}, {y}, {z})");
                    }
                }
            }
        }
        assert!(tall.occludes(1, 74, 30) && chunk.occludes(30, 20, 31), "the test reaches set bits");
    }

    #[test]
    fn occluder_bits_are_the_blocks_that_hide_faces_whichever_way_the_box_is_meshed() {
        let materials = white_materials();
        let mut mesher = Mesher::with_materials(materials.clone());
        mesher.set_ambient_occlusion(false);
        mesher.set_occluder_bits(true);
        let mut bytes = MeshBytes::default();
        // A box wider than the 64-bit rows takes the reference mesher (and the voxel-at-a-time bits).
        let mut wide = random_box(9, 70, &[block::STONE, block::WATER], 0.4);
        wide.set_local(IVec3::new(69, 3, 3), block::STONE);
        let mut all = boxes();
        all.push(wide);
        for (i, b) in all.iter().enumerate() {
            mesher.mesh_bytes(b, &mut bytes);
            assert!(!bytes.is_empty(), "box {i} has faces");
            let s = b.size();
            let bits = &bytes.occluders;
            assert_eq!(bits.size, [s.x as usize, s.y as usize, s.z as usize]);
            // The rows kept: from the lowest corner's height to one above the highest's.
            let surfaces: Vec<&SurfaceBytes> = bytes.surfaces().into_iter().flatten().collect();
            let lo = surfaces.iter().map(|s| s.aabb_position[1]).fold(f32::INFINITY, f32::min);
            let hi = surfaces.iter().map(|s| s.aabb_position[1] + s.aabb_size[1]).fold(0.0, f32::max);
            let rows = bits.first_row as i32..bits.box_size()[1] as i32;
            assert_eq!(rows, lo.round() as i32..(hi.round() as i32 + 2).min(s.y), "box {i}: rows kept");
            assert_eq!(bits.bytes.len(), bits.row_bytes() * rows.len() * s.z as usize);
            for y in 0..s.y {
                for z in 0..s.z {
                    for x in 0..s.x {
                        let id = b.get_local(IVec3::new(x, y, z));
                        assert_eq!(
                            bits.occludes(x, y, z),
                            rows.contains(&y) && materials.occludes(id),
                            "box {i}: voxel ({x}, {y}, {z}), block {id}"
                        );
                    }
                }
            }
        }
        // Nothing to draw, no bits; and none unless asked for.
        mesher.mesh_bytes(&VoxelBuffer::new(IVec3::ZERO, IVec3::splat(34)), &mut bytes);
        assert!(bytes.is_empty() && bytes.occluders.is_empty());
        mesher.set_occluder_bits(false);
        mesher.mesh_bytes(&all[0], &mut bytes);
        assert!(!bytes.is_empty() && bytes.occluders.is_empty());
    }

    /// The nearest AO brightness to `ratio`, which must be within rounding of one.
    fn level_of(ratio: f32, what: &str) -> f32 {
        let level = AO_LEVELS.iter().copied().min_by(|a, b| (a - ratio).abs().total_cmp(&(b - ratio).abs()));
        let level = level.expect("four levels");
        assert!((level - ratio).abs() < 0.02, "{what}: colour ratio {ratio} is no AO level");
        level
    }

    #[test]
    fn the_shader_gives_every_face_corner_the_level_of_the_vertex_ao() {
        let materials = white_materials();
        let (mut with_ao, mut open) = (ChunkMesh::default(), ChunkMesh::default());
        let mut mesher = Mesher::with_materials(materials.clone());
        mesher.set_ambient_occlusion(false);
        mesher.set_occluder_bits(true);
        let mut bytes = MeshBytes::default();
        let mut corners = 0;
        for (i, b) in boxes().iter().enumerate() {
            // The reference mesher: one quad per unit face, each corner with its AO level.
            mesh_padded_chunk_culled_in(b, &materials, &mut with_ao, true);
            mesh_padded_chunk_culled_in(b, &materials, &mut open, false);
            mesher.mesh_bytes(b, &mut bytes);
            let bits = &bytes.occluders;
            // Every surface but the liquid one carries AO.
            for (s, (a, o)) in with_ao.surfaces().into_iter().zip(open.surfaces()).enumerate().take(3) {
                assert_eq!(a.positions, o.positions);
                for q in 0..a.positions.len() / 4 {
                    let quad = &a.positions[4 * q..4 * q + 4];
                    let centre = [0, 1, 2].map(|k| quad.iter().map(|p| p[k]).sum::<f32>() / 4.0);
                    let face = a.directions[4 * q] as usize;
                    let mut levels = [0.0f32; 4];
                    for (k, p) in quad.iter().enumerate() {
                        let v = 4 * q + k;
                        // The brightest channel (a block the library lacks is not white).
                        let channel = (0..3).max_by_key(|&c| o.colors[v][c]).unwrap_or(0);
                        let (lit, bright) = (a.colors[v][channel] as f32, o.colors[v][channel] as f32);
                        let what = format!("box {i}, surface {s}, face at {p:?} dir {face}");
                        levels[k] = level_of(lit / bright, &what);
                        // Just inside the face, off the corner.
                        let inside = [0, 1, 2].map(|c| p[c] + (centre[c] - p[c]) * 0.002);
                        let got = occlusion_at(bits, inside, face);
                        assert!(
                            (got - levels[k]).abs() < 2e-3,
                            "{what}: the shader gives {got}, the vertex {}",
                            levels[k]
                        );
                        corners += 1;
                    }
                    // The centre blends the four corners.
                    let got = occlusion_at(bits, centre, face);
                    let mean = levels.iter().sum::<f32>() / 4.0;
                    assert!(
                        (got - mean).abs() < 1e-5,
                        "box {i}: centre of the face at {centre:?}: {got} against {mean}"
                    );
                }
            }
        }
        assert!(corners > 20_000, "{corners} corners checked");
    }

    #[test]
    fn on_the_edges_of_merged_quads_the_shader_reads_the_quad_own_cells() {
        let mut mesher = Mesher::with_materials(white_materials());
        mesher.set_ambient_occlusion(false);
        mesher.set_occluder_bits(true);
        let (mut merged, mut bytes) = (ChunkMesh::default(), MeshBytes::default());
        let mut edges = 0;
        for (i, b) in boxes().iter().enumerate() {
            mesher.mesh(b, &mut merged);
            mesher.mesh_bytes(b, &mut bytes);
            for s in merged.surfaces().into_iter().take(3) {
                for q in 0..s.positions.len() / 4 {
                    let quad = &s.positions[4 * q..4 * q + 4];
                    let face = s.directions[4 * q] as usize;
                    let centre = [0, 1, 2].map(|k| quad.iter().map(|p| p[k]).sum::<f32>() / 4.0);
                    for k in 0..4 {
                        // Each edge's midpoint, and a point just inside it.
                        let (a, c) = (quad[k], quad[(k + 1) % 4]);
                        let mid = [0, 1, 2].map(|j| (a[j] + c[j]) / 2.0);
                        let to_centre = [0, 1, 2].map(|j| centre[j] - mid[j]);
                        let length = to_centre.iter().map(|d| d * d).sum::<f32>().sqrt();
                        let inside = [0, 1, 2].map(|j| mid[j] + to_centre[j] / length * 1e-3);
                        let (on, near) =
                            (occlusion_at(&bytes.occluders, mid, face), occlusion_at(&bytes.occluders, inside, face));
                        assert!(
                            (on - near).abs() < 2e-3,
                            "box {i}: edge {mid:?} of a quad facing {face}: {on} against {near} inside"
                        );
                        edges += 1;
                    }
                }
            }
        }
        assert!(edges > 5_000, "{edges} edges checked");
    }

    /// The block shaders' common part.
    const SHADER: &str = include_str!("../../../../godot_project/addons/strata/shaders/blocks.gdshaderinc");

    /// A `const float NAME[N] = float[N](…);` table of the block shaders, as numbers.
    fn shader_table(name: &str) -> Vec<f32> {
        let line = SHADER
            .lines()
            .find(|l| l.starts_with(&format!("const float {name}[")))
            .unwrap_or_else(|| panic!("no table {name} in blocks.gdshaderinc"));
        let inside = &line[line.rfind('(').expect("a list") + 1..line.rfind(')').expect("a list")];
        inside.split(',').map(|v| v.trim().parse().expect("a number")).collect()
    }

    #[test]
    fn the_block_shaders_tables_are_the_meshers() {
        assert_eq!(shader_table("OCCLUDER_LEVELS"), AO_LEVELS.to_vec(), "AO levels");
        assert_eq!(shader_table("FACE_SHADE"), crate::mesh::types::FACE_SHADE.to_vec(), "face shade");
        assert_eq!(shader_int("OCCLUDER_LAYER_ROWS"), LAYER_ROWS as i64, "rows in a layer of a page");
    }

    /// A `const int NAME = N;` of the block shaders.
    fn shader_int(name: &str) -> i64 {
        let line = SHADER
            .lines()
            .find_map(|l| l.strip_prefix(&format!("const int {name} = ")))
            .unwrap_or_else(|| panic!("no int {name} in blocks.gdshaderinc"));
        line.trim_end_matches(';').trim().parse().expect("a number")
    }
}
