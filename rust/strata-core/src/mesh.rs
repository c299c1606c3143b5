//! Blocky meshing: turns a padded chunk of voxels into triangle surfaces.
//!
//! Input is a chunk with a one-voxel halo (`(S+2)³`, see
//! [`Generator::generate_padded_chunk`](crate::generator::Generator::generate_padded_chunk)); the halo
//! holds the neighbours' border voxels, so a face between two solid voxels is never emitted, inside
//! a chunk or across its border. Positions are relative to the chunk's minimum corner. Triangles are
//! wound clockwise seen from the front, as Godot expects.

use crate::block::{self, BlockId};
use crate::chunk::VoxelBuffer;
use crate::coords::IVec3;

/// One surface: parallel vertex arrays plus a triangle index list.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshSurface {
    pub positions: Vec<[f32; 3]>,
    pub normals: Vec<[f32; 3]>,
    pub colors: Vec<[f32; 4]>,
    pub indices: Vec<i32>,
}

impl MeshSurface {
    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }

    pub fn clear(&mut self) {
        self.positions.clear();
        self.normals.clear();
        self.colors.clear();
        self.indices.clear();
    }

    pub fn quad_count(&self) -> usize {
        self.indices.len() / 6
    }

    /// The triangles as a flat list of corners (3 per triangle), e.g. for a collision shape.
    pub fn triangle_corners(&self) -> Vec<[f32; 3]> {
        self.indices.iter().map(|&i| self.positions[i as usize]).collect()
    }

    /// Appends a quad with corners `c` (any winding), normal `n` and colour.
    fn push_quad(&mut self, c: [[f32; 3]; 4], n: [f32; 3], color: [f32; 4], ao: [f32; 4]) {
        let base = self.positions.len() as i32;
        for (k, p) in c.iter().enumerate() {
            self.positions.push(*p);
            self.normals.push(n);
            let s = ao[k];
            self.colors.push([color[0] * s, color[1] * s, color[2] * s, color[3]]);
        }
        let e1 = sub(c[1], c[0]);
        let e2 = sub(c[2], c[0]);
        let counter_clockwise = dot(cross(e1, e2), n) > 0.0;
        // Split along the diagonal with the brighter ends so AO gradients stay symmetric.
        let flip = ao[0] + ao[2] < ao[1] + ao[3];
        let tris: [i32; 6] = match (counter_clockwise, flip) {
            (true, false) => [0, 2, 1, 0, 3, 2],
            (false, false) => [0, 1, 2, 0, 2, 3],
            (true, true) => [1, 3, 2, 1, 0, 3],
            (false, true) => [1, 2, 3, 1, 3, 0],
        };
        self.indices.extend(tris.iter().map(|t| base + t));
    }
}

/// The mesh of one chunk: opaque ground and translucent liquid.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChunkMesh {
    pub opaque: MeshSurface,
    pub liquid: MeshSurface,
}

impl ChunkMesh {
    pub fn is_empty(&self) -> bool {
        self.opaque.is_empty() && self.liquid.is_empty()
    }

    pub fn clear(&mut self) {
        self.opaque.clear();
        self.liquid.clear();
    }
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}
fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The six face directions: normal, and the two in-plane axes.
const FACES: [(IVec3, IVec3, IVec3); 6] = [
    (IVec3::new(1, 0, 0), IVec3::new(0, 1, 0), IVec3::new(0, 0, 1)),
    (IVec3::new(-1, 0, 0), IVec3::new(0, 1, 0), IVec3::new(0, 0, 1)),
    (IVec3::new(0, 1, 0), IVec3::new(1, 0, 0), IVec3::new(0, 0, 1)),
    (IVec3::new(0, -1, 0), IVec3::new(1, 0, 0), IVec3::new(0, 0, 1)),
    (IVec3::new(0, 0, 1), IVec3::new(1, 0, 0), IVec3::new(0, 1, 0)),
    (IVec3::new(0, 0, -1), IVec3::new(1, 0, 0), IVec3::new(0, 1, 0)),
];

/// Directional shade per face, so blocky terrain reads well even without lighting.
const FACE_SHADE: [f32; 6] = [0.86, 0.86, 1.0, 0.6, 0.93, 0.93];

/// Per-vertex ambient occlusion from the three neighbours around a corner (0 = fully occluded).
fn corner_ao(side1: bool, side2: bool, corner: bool) -> f32 {
    let level = if side1 && side2 { 0 } else { 3 - (side1 as u8 + side2 as u8 + corner as u8) };
    [0.55, 0.7, 0.85, 1.0][level as usize]
}

/// Meshes the interior of `padded` (all but its one-voxel halo) into `out`, reusing its buffers.
pub fn mesh_padded_chunk(padded: &VoxelBuffer, out: &mut ChunkMesh) {
    out.clear();
    let size = padded.size();
    let inner = size - IVec3::splat(2);
    let solid = |l: IVec3| -> bool { block::is_solid(padded.get_local(l)) };
    for y in 1..=inner.y {
        for z in 1..=inner.z {
            for x in 1..=inner.x {
                let l = IVec3::new(x, y, z);
                let id: BlockId = padded.get_local(l);
                if id == block::AIR {
                    continue;
                }
                let info = block::block_info(id);
                let origin = l - IVec3::ONE;
                for (f, &(n, u, v)) in FACES.iter().enumerate() {
                    let nb = padded.get_local(l + n);
                    let visible = if info.solid { !block::is_solid(nb) } else { info.liquid && nb == block::AIR };
                    if !visible {
                        continue;
                    }
                    // The face plane sits on the positive side for +n, at the voxel origin for -n.
                    let plane = origin + IVec3::new(n.x.max(0), n.y.max(0), n.z.max(0));
                    let corner = |du: i32, dv: i32| -> [f32; 3] {
                        let p = plane + u * du + v * dv;
                        [p.x as f32, p.y as f32, p.z as f32]
                    };
                    let c = [corner(0, 0), corner(1, 0), corner(1, 1), corner(0, 1)];
                    let mut ao = [1.0f32; 4];
                    if info.solid {
                        let front = l + n;
                        for (k, (du, dv)) in [(-1, -1), (1, -1), (1, 1), (-1, 1)].into_iter().enumerate() {
                            ao[k] = corner_ao(solid(front + u * du), solid(front + v * dv), solid(front + u * du + v * dv));
                        }
                    }
                    let shade = FACE_SHADE[f];
                    let [r, g, b] = info.color;
                    let (surface, alpha) = if info.liquid { (&mut out.liquid, 0.7) } else { (&mut out.opaque, 1.0) };
                    surface.push_quad(c, [n.x as f32, n.y as f32, n.z as f32], [r * shade, g * shade, b * shade, alpha], ao);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn padded_with(points: &[(i32, i32, i32, BlockId)]) -> VoxelBuffer {
        let mut b = VoxelBuffer::new(IVec3::splat(-1), IVec3::splat(6));
        for &(x, y, z, id) in points {
            b.set(IVec3::new(x, y, z), id);
        }
        b
    }

    #[test]
    fn lone_block_has_six_clockwise_faces() {
        let b = padded_with(&[(1, 1, 1, block::STONE)]);
        let mut m = ChunkMesh::default();
        mesh_padded_chunk(&b, &mut m);
        assert_eq!(m.opaque.quad_count(), 6);
        for t in m.opaque.indices.chunks(3) {
            let [a, b2, c] = [0, 1, 2].map(|k| m.opaque.positions[t[k] as usize]);
            let n = m.opaque.normals[t[0] as usize];
            assert!(dot(cross(sub(b2, a), sub(c, a)), n) < 0.0, "triangle not clockwise from the front");
        }
    }

    #[test]
    fn faces_between_solids_are_culled_even_against_the_halo() {
        // Two blocks side by side, and one block touching the halo at x = -1.
        let b = padded_with(&[(1, 1, 1, block::STONE), (2, 1, 1, block::DIRT), (0, 3, 3, block::STONE), (-1, 3, 3, block::STONE)]);
        let mut m = ChunkMesh::default();
        mesh_padded_chunk(&b, &mut m);
        // Pair: 10 faces; the block at x=0 against the solid halo: 5 faces.
        assert_eq!(m.opaque.quad_count(), 15);
    }

    #[test]
    fn water_meshes_only_against_air() {
        let b = padded_with(&[(1, 1, 1, block::WATER), (1, 0, 1, block::STONE), (2, 1, 1, block::WATER)]);
        let mut m = ChunkMesh::default();
        mesh_padded_chunk(&b, &mut m);
        // (1,1,1): 4 faces (water beside it, stone below); (2,1,1): 5 faces (water beside it).
        assert_eq!(m.liquid.quad_count(), 9);
        // The stone shows all six faces: water does not hide ground.
        assert_eq!(m.opaque.quad_count(), 6);
    }
}
