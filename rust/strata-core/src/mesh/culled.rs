//! The reference mesher: one quad per visible unit face, each with its own AO, looked up voxel
//! by voxel. Plainly right rather than fast: the greedy mesher's tests compare against it, and
//! the greedy mesher hands it boxes wider than its 64-bit rows.
//!
//! May use: `base` and the other `mesh` modules.

use crate::base::block::{AIR, BlockId};
use crate::base::block_library::RenderMode;
use crate::base::chunk::VoxelBuffer;
use crate::base::coords::IVec3;
use crate::light::LightBuffer;
use crate::mesh::ao::corner_ao;
use crate::mesh::materials::MeshMaterials;
use crate::mesh::types::{ChunkMesh, FACE_SHADE, FACES, FULL_LIGHT, LIQUID_ALPHA, TRANSPARENT_ALPHA};

/// Reference mesher: one quad per visible unit face, each with its own AO, with the default
/// materials. Slow (it looks up every neighbour of every voxel) but plainly right; the greedy
/// mesher must show the same surface.
pub fn mesh_padded_chunk_culled(padded: &VoxelBuffer, out: &mut ChunkMesh) {
    mesh_padded_chunk_culled_with(padded, out, true);
}

/// [`mesh_padded_chunk_culled`] with ambient occlusion on or off (off: every corner open).
pub fn mesh_padded_chunk_culled_with(padded: &VoxelBuffer, out: &mut ChunkMesh, ambient_occlusion: bool) {
    mesh_padded_chunk_culled_in(padded, &MeshMaterials::shared_default(), out, ambient_occlusion);
}

/// Whether the face of block `id` towards its neighbour `nb` is drawn: never for air; never
/// against a solid opaque block; never between two blocks of the same transparent or liquid
/// type, nor of the same cutout type that hides the faces between two of its own (leaves);
/// otherwise always (other cutout faces too, even between two cutout blocks of one type, and
/// whatever a non-solid or non-opaque neighbour is).
pub(super) fn face_visible(materials: &MeshMaterials, id: BlockId, nb: BlockId) -> bool {
    if id == AIR || materials.occludes(nb) {
        return false;
    }
    !(nb == id && materials.look(id).hides_same)
}

/// [`mesh_padded_chunk_culled_with`] with `materials`: faces go to the surface of their block's
/// render mode, culled by [`face_visible`]; every surface but the liquid one carries AO (from the
/// solid opaque blocks around the corner).
pub fn mesh_padded_chunk_culled_in(
    padded: &VoxelBuffer,
    materials: &MeshMaterials,
    out: &mut ChunkMesh,
    ambient_occlusion: bool,
) {
    mesh_padded_chunk_culled_lit(padded, materials, None, out, ambient_occlusion, false);
}

/// [`mesh_padded_chunk_culled_in`] with light: each face carries the light of the voxel it looks
/// into, read from `light` by world position ([`FULL_LIGHT`] where `light` is `None` or does not
/// cover it); `shade_in_shader` as [`Mesher::set_shade_in_shader`](crate::mesh::Mesher::set_shade_in_shader).
pub fn mesh_padded_chunk_culled_lit(
    padded: &VoxelBuffer,
    materials: &MeshMaterials,
    light: Option<&LightBuffer>,
    out: &mut ChunkMesh,
    ambient_occlusion: bool,
    shade_in_shader: bool,
) {
    out.clear();
    let size = padded.size();
    let inner = size - IVec3::splat(2);
    let occludes = |l: IVec3| -> bool { materials.occludes(padded.get_local(l)) };
    for y in 1..=inner.y {
        for z in 1..=inner.z {
            for x in 1..=inner.x {
                let l = IVec3::new(x, y, z);
                let id: BlockId = padded.get_local(l);
                if id == AIR {
                    continue;
                }
                let look = materials.look(id);
                for (f, &(n, u, v)) in FACES.iter().enumerate() {
                    if !face_visible(materials, id, padded.get_local(l + n)) {
                        continue;
                    }
                    let c = unit_face_corners(l, n, u, v);
                    let liquid = look.render_mode == RenderMode::Liquid;
                    let mut ao = [1.0f32; 4];
                    if !liquid && ambient_occlusion {
                        let front = l + n;
                        for (k, (du, dv)) in [(-1, -1), (1, -1), (1, 1), (-1, 1)].into_iter().enumerate() {
                            ao[k] = corner_ao(
                                occludes(front + u * du),
                                occludes(front + v * dv),
                                occludes(front + u * du + v * dv),
                            );
                        }
                    }
                    // The face shade, unless the shaders add it (liquids always have it here).
                    let shade = if shade_in_shader && !liquid { 1.0 } else { FACE_SHADE[f] };
                    let [r, g, b] = look.color;
                    let (surface, alpha) = match look.render_mode {
                        RenderMode::Opaque => (&mut out.opaque, 1.0),
                        RenderMode::Cutout => (&mut out.cutout, 1.0),
                        RenderMode::Transparent => (&mut out.transparent, TRANSPARENT_ALPHA),
                        RenderMode::Liquid => (&mut out.liquid, LIQUID_ALPHA),
                    };
                    let face_light = light.and_then(|b| b.get(padded.min() + l + n)).map_or(FULL_LIGHT, |v| v.0);
                    surface.push_quad(c, f, [r * shade, g * shade, b * shade, alpha], ao, look.layers[f], face_light);
                }
            }
        }
    }
}

/// The corners of the unit face with normal `n` (tangents `u`, `v`) of the voxel at padded-local
/// `l`, in chunk coordinates, in the corner order of [`FACES`]: the face plane sits on the
/// positive side for +n, at the voxel origin for -n.
fn unit_face_corners(l: IVec3, n: IVec3, u: IVec3, v: IVec3) -> [[f32; 3]; 4] {
    let plane = l - IVec3::ONE + IVec3::new(n.x.max(0), n.y.max(0), n.z.max(0));
    let corner = |du: i32, dv: i32| -> [f32; 3] {
        let p = plane + u * du + v * dv;
        [p.x as f32, p.y as f32, p.z as f32]
    };
    [corner(0, 0), corner(1, 0), corner(1, 1), corner(0, 1)]
}

/// Collision triangles the plain way: each face of a solid block against a non-solid neighbour,
/// two triangles (clockwise from the front) per unit face. For boxes too wide for the greedy
/// mesher's rows.
pub(super) fn collision_faces_culled(padded: &VoxelBuffer, materials: &MeshMaterials, out: &mut Vec<[f32; 3]>) {
    let mut m = ChunkMesh::default();
    let size = padded.size();
    let inner = size - IVec3::splat(2);
    let solid = |id: BlockId| id != AIR && materials.look(id).solid;
    for y in 1..=inner.y {
        for z in 1..=inner.z {
            for x in 1..=inner.x {
                let l = IVec3::new(x, y, z);
                if !solid(padded.get_local(l)) {
                    continue;
                }
                for (f, &(n, u, v)) in FACES.iter().enumerate() {
                    if solid(padded.get_local(l + n)) {
                        continue;
                    }
                    m.opaque.push_quad(unit_face_corners(l, n, u, v), f, [1.0; 4], [1.0; 4], 0, FULL_LIGHT);
                }
            }
        }
    }
    out.extend(m.opaque.triangle_corners());
}
