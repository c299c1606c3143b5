//! Collision geometry: the solid surface of a padded chunk as few triangles as possible.
//!
//! Physics needs the shape, not the looks: block ids, ambient occlusion and liquids do not
//! matter, so every solid face that touches a non-solid voxel (inside the chunk or in its halo)
//! is merged greedily with its neighbours by solidity alone. That gives far fewer triangles than
//! the render mesh (which keeps faces apart where colour or AO differ), and Godot's
//! `ConcavePolygonShape3D` build time grows with the triangle count. Runs on the workers.
//!
//! Faces are found with bit rows: one `u64` per (y, z) row of the padded box holds the solid
//! flags along x, so a slice's visible faces are a few AND/NOT operations against the
//! neighbouring row; each slice's face mask is then merged into rectangles (runs of set bits,
//! extended over following rows while they hold the same run).

use crate::block::{self, BlockId};
use crate::chunk::VoxelBuffer;

/// Reusable buffers for [`CollisionMesher::faces`].
#[derive(Default)]
pub struct CollisionMesher {
    solid: Vec<u64>,
    mask: Vec<u64>,
    is_solid: Vec<bool>,
}

impl CollisionMesher {
    pub fn new() -> Self {
        let is_solid = (0..=block::BLOCK_COUNT as usize).map(|id| block::is_solid(id as BlockId)).collect();
        Self { solid: Vec::new(), mask: Vec::new(), is_solid }
    }

    /// Appends to `out` the triangle corners (three per triangle, clockwise seen from outside,
    /// relative to the chunk's minimum corner) of the solid faces of `padded`'s interior. Boxes
    /// wider than 64 voxels on x are not supported (nothing is emitted).
    pub fn faces(&mut self, padded: &VoxelBuffer, out: &mut Vec<[f32; 3]>) {
        let p = padded.size();
        let (px, py, pz) = (p.x as usize, p.y as usize, p.z as usize);
        if px > 64 || px < 3 || py < 3 || pz < 3 {
            return;
        }
        let (nx, ny, nz) = (px - 2, py - 2, pz - 2);
        self.solid.clear();
        self.solid.resize(py * pz, 0);
        for (row, voxels) in self.solid.iter_mut().zip(padded.data().chunks_exact(px)) {
            let mut bits = 0u64;
            for (i, &v) in voxels.iter().enumerate() {
                if self.is_solid.get(v as usize).copied().unwrap_or(false) {
                    bits |= 1 << i;
                }
            }
            *row = bits;
        }
        let interior = ((1u64 << nx) - 1) << 1;
        let row = |y: usize, z: usize| self.solid[y * pz + z];
        let mask = &mut self.mask;
        // ±y faces: slice y, mask rows along z, bits along x.
        for (dir, dy) in [(2usize, 1isize), (3, -1)] {
            for y in 1..=ny {
                mask.clear();
                mask.extend((1..=nz).map(|z| row(y, z) & !row((y as isize + dy) as usize, z) & interior));
                merge(mask, |x0, w, z0, h| {
                    let yf = (y - 1) as f32 + if dy > 0 { 1.0 } else { 0.0 };
                    let (x0, x1, z0, z1) = ((x0 - 1) as f32, (x0 - 1 + w) as f32, z0 as f32, (z0 + h) as f32);
                    emit(out, [[x0, yf, z0], [x1, yf, z0], [x1, yf, z1], [x0, yf, z1]], dir);
                });
            }
        }
        // ±z faces: slice z, mask rows along y, bits along x.
        for (dir, dz) in [(4usize, 1isize), (5, -1)] {
            for z in 1..=nz {
                mask.clear();
                mask.extend((1..=ny).map(|y| row(y, z) & !row(y, (z as isize + dz) as usize) & interior));
                merge(mask, |x0, w, y0, h| {
                    let zf = (z - 1) as f32 + if dz > 0 { 1.0 } else { 0.0 };
                    let (x0, x1, y0, y1) = ((x0 - 1) as f32, (x0 - 1 + w) as f32, y0 as f32, (y0 + h) as f32);
                    emit(out, [[x0, y0, zf], [x1, y0, zf], [x1, y1, zf], [x0, y1, zf]], dir);
                });
            }
        }
        // ±x faces: per row the faces along x are one shift away; they are sparse, so each set
        // bit is moved into its x slice's mask (rows along y, bits along z).
        for (dir, dx) in [(0usize, 1i32), (1, -1)] {
            mask.clear();
            mask.resize(nx * ny, 0);
            for y in 1..=ny {
                for z in 1..=nz {
                    let s = row(y, z);
                    let neighbour = if dx > 0 { s >> 1 } else { s << 1 };
                    let mut faces = s & !neighbour & interior;
                    while faces != 0 {
                        let x = faces.trailing_zeros() as usize;
                        faces &= faces - 1;
                        mask[(x - 1) * ny + (y - 1)] |= 1 << (z - 1);
                    }
                }
            }
            for x in 1..=nx {
                merge(&mut mask[(x - 1) * ny..x * ny], |z0, w, y0, h| {
                    let xf = (x - 1) as f32 + if dx > 0 { 1.0 } else { 0.0 };
                    let (z0, z1, y0, y1) = (z0 as f32, (z0 + w) as f32, y0 as f32, (y0 + h) as f32);
                    emit(out, [[xf, y0, z0], [xf, y1, z0], [xf, y1, z1], [xf, y0, z1]], dir);
                });
            }
        }
    }
}

/// Greedy rectangles of a 2D bit mask (rows × bits): calls `f(bit, width, row, height)` for each
/// and clears the mask.
fn merge(mask: &mut [u64], mut f: impl FnMut(usize, usize, usize, usize)) {
    for r in 0..mask.len() {
        while mask[r] != 0 {
            let start = mask[r].trailing_zeros() as usize;
            let width = (mask[r] >> start).trailing_ones() as usize;
            let run = if width == 64 { u64::MAX } else { ((1u64 << width) - 1) << start };
            mask[r] &= !run;
            let mut h = 1;
            while r + h < mask.len() && mask[r + h] & run == run {
                mask[r + h] &= !run;
                h += 1;
            }
            f(start, width, r, h);
        }
    }
}

/// Face normals by direction index: +x, −x, +y, −y, +z, −z.
const NORMALS: [[f32; 3]; 6] = [[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, -1.0]];

/// Appends the quad `c` (corners in order around it) as two triangles, clockwise seen from the
/// side its normal points to.
fn emit(out: &mut Vec<[f32; 3]>, c: [[f32; 3]; 4], dir: usize) {
    let n = NORMALS[dir];
    let (e1, e2) = (sub(c[1], c[0]), sub(c[2], c[0]));
    let cross = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]];
    let counter_clockwise = cross[0] * n[0] + cross[1] * n[1] + cross[2] * n[2] > 0.0;
    let order = if counter_clockwise { [0, 2, 1, 0, 3, 2] } else { [0, 1, 2, 0, 2, 3] };
    out.extend(order.iter().map(|&i| c[i]));
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

thread_local! {
    static MESHER: std::cell::RefCell<CollisionMesher> = std::cell::RefCell::new(CollisionMesher::new());
}

/// [`CollisionMesher::faces`] with this thread's reusable buffers.
pub fn collision_faces(padded: &VoxelBuffer, out: &mut Vec<[f32; 3]>) {
    MESHER.with_borrow_mut(|m| m.faces(padded, out));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coords::{ChunkCoord, IVec3};
    use crate::generator::Generator;
    use crate::mesh::{ChunkMesh, mesh_padded_chunk, mesh_padded_chunk_culled};
    use crate::preset::WorldPreset;
    use std::collections::BTreeSet;

    /// A unit face: its cell's minimum corner (scaled by 2 to keep integers) and normal index.
    type UnitFace = ([i32; 3], usize);

    fn normal_index(n: [f32; 3]) -> usize {
        NORMALS.iter().position(|m| *m == n).expect("axis normal")
    }

    /// Unit faces covered by triangles (pairs of triangles forming axis-aligned rectangles).
    fn rasterise(corners: &[[f32; 3]]) -> BTreeSet<UnitFace> {
        let mut out = BTreeSet::new();
        for quad in corners.chunks_exact(6) {
            let (a, b, c) = (quad[0], quad[1], quad[2]);
            let cr = {
                let (e1, e2) = (sub(b, a), sub(c, a));
                [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]]
            };
            // Clockwise from the front: the counter-clockwise normal points inwards.
            let axis = (0..3).max_by(|&i, &j| cr[i].abs().total_cmp(&cr[j].abs())).unwrap();
            let mut n = [0.0f32; 3];
            n[axis] = -cr[axis].signum();
            let lo: Vec<f32> = (0..3).map(|k| quad.iter().map(|p| p[k]).fold(f32::MAX, f32::min)).collect();
            let hi: Vec<f32> = (0..3).map(|k| quad.iter().map(|p| p[k]).fold(f32::MIN, f32::max)).collect();
            let d = normal_index(n);
            let range = |k: usize| if k == axis { vec![lo[k] as i32] } else { (lo[k] as i32..hi[k] as i32).collect() };
            for x in range(0) {
                for y in range(1) {
                    for z in range(2) {
                        out.insert(([x, y, z], d));
                    }
                }
            }
        }
        out
    }

    fn reference_faces(b: &VoxelBuffer) -> BTreeSet<UnitFace> {
        let mut m = ChunkMesh::default();
        mesh_padded_chunk_culled(b, &mut m);
        let s = &m.opaque;
        let mut out = BTreeSet::new();
        for (q, n) in s.positions.chunks_exact(4).zip(s.normals.chunks_exact(4)) {
            let d = normal_index(n[0]);
            let axis = d / 2;
            let mut p = [0i32; 3];
            for k in 0..3 {
                p[k] = q.iter().map(|v| v[k]).fold(f32::MAX, f32::min) as i32;
            }
            let _ = axis;
            out.insert((p, d));
        }
        out
    }

    #[test]
    fn covers_exactly_the_solid_faces_of_the_reference_with_fewer_triangles() {
        let g = Generator::new(&WorldPreset::default()).unwrap();
        let mut padded = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
        let mut checked = 0;
        for c in [ChunkCoord::new(0, 0, 0), ChunkCoord::new(0, -1, 0), ChunkCoord::new(3, 0, -2), ChunkCoord::new(-5, 1, 7), ChunkCoord::new(1, -2, 1)] {
            g.generate_padded_chunk(c, &mut padded);
            let mut faces = Vec::new();
            collision_faces(&padded, &mut faces);
            let want = reference_faces(&padded);
            assert_eq!(rasterise(&faces), want, "{c:?}");
            let mut render = ChunkMesh::default();
            mesh_padded_chunk(&padded, &mut render);
            if !want.is_empty() {
                assert!(faces.len() / 3 < render.opaque.indices.len() / 3, "{c:?}: {} vs {} triangles", faces.len() / 3, render.opaque.indices.len() / 3);
                checked += 1;
            }
        }
        assert!(checked >= 3);
    }

    #[test]
    fn a_lone_block_is_six_quads_and_a_slab_six_too() {
        let mut b = VoxelBuffer::new(IVec3::splat(-1), IVec3::splat(6));
        b.set(IVec3::new(1, 1, 1), block::STONE);
        let mut faces = Vec::new();
        collision_faces(&b, &mut faces);
        assert_eq!(faces.len(), 36);
        let mut slab = VoxelBuffer::new(IVec3::splat(-1), IVec3::splat(6));
        for x in 0..4 {
            for z in 0..4 {
                slab.set(IVec3::new(x, 0, z), if (x + z) % 2 == 0 { block::STONE } else { block::GRASS });
            }
        }
        faces.clear();
        collision_faces(&slab, &mut faces);
        assert_eq!(faces.len(), 36, "block ids do not split collision faces");
        assert_eq!(rasterise(&faces), reference_faces(&slab));
    }
}
