//! The reference mesher: one quad per visible unit face, each with its own AO, looked up voxel
//! by voxel. Plainly right rather than fast: the greedy mesher's tests compare against it, and
//! the greedy mesher hands it boxes wider than its 64-bit rows.
//!
//! May use: `base` and the other `mesh` modules.

use crate::base::block::{self, BlockId};
use crate::base::chunk::VoxelBuffer;
use crate::base::coords::IVec3;
use crate::mesh::ao::corner_ao;
use crate::mesh::types::{ChunkMesh, FACE_SHADE, FACES, LIQUID_ALPHA};

/// Reference mesher: one quad per visible unit face, each with its own AO. Slow (it looks up
/// every neighbour of every voxel) but plainly right; the greedy mesher must show the same
/// surface.
pub fn mesh_padded_chunk_culled(padded: &VoxelBuffer, out: &mut ChunkMesh) {
    mesh_padded_chunk_culled_with(padded, out, true);
}

/// [`mesh_padded_chunk_culled`] with ambient occlusion on or off (off: every corner open).
pub fn mesh_padded_chunk_culled_with(padded: &VoxelBuffer, out: &mut ChunkMesh, ambient_occlusion: bool) {
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
                    if info.solid && ambient_occlusion {
                        let front = l + n;
                        for (k, (du, dv)) in [(-1, -1), (1, -1), (1, 1), (-1, 1)].into_iter().enumerate() {
                            ao[k] =
                                corner_ao(solid(front + u * du), solid(front + v * dv), solid(front + u * du + v * dv));
                        }
                    }
                    let shade = FACE_SHADE[f];
                    let [r, g, b] = info.color;
                    let (surface, alpha) =
                        if info.liquid { (&mut out.liquid, LIQUID_ALPHA) } else { (&mut out.opaque, 1.0) };
                    surface.push_quad(c, f, [r * shade, g * shade, b * shade, alpha], ao);
                }
            }
        }
    }
}
