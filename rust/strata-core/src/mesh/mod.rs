//! Blocky meshing: turns a padded chunk of voxels into triangle surfaces, and into collision
//! triangles.
//!
//! Input is a chunk with a one-voxel halo (`(S+2)³`, see
//! [`Generator::generate_padded_chunk`](crate::gen3d::pipeline::Generator::generate_padded_chunk)); the halo
//! holds the neighbours' border voxels, so a face between two solid voxels is never emitted, inside
//! a chunk or across its border. Positions are relative to the chunk's minimum corner. Triangles are
//! wound clockwise seen from the front, as Godot expects.
//!
//! [`Mesher`] is a binary greedy mesher that works on whole rows of 64 bits at a time:
//! 1. one pass over the voxels packs each row along x into `u64` class masks (solid, liquid, air);
//!    the layers that are neither all empty nor all solid are also transposed (64×64 bit
//!    matrices, two or four at a time in SIMD registers; with AVX2 and at most 40 rows, four
//!    layers as 32×32 halves plus the rows past 32 bit by bit) into rows along z, so that every
//!    direction has rows that run inside its slices: rows along x for the y and z faces, along z
//!    for the x faces;
//! 2. for each of the six directions, the visible faces of a row are a few bit operations against
//!    the row across the face: solid faces where that is not solid, liquid faces only where it is
//!    air; and a mask per layer says which rows hold any;
//! 3. for each row with faces, two merge masks: which faces may join the next one along the row,
//!    and which the one in the next row of the slice. For solid faces the four corner AO levels
//!    come out bitwise from the three solid rows in front; a corner's level depends only on the
//!    four voxels around that vertex, so two neighbouring faces agree on their shared corners and
//!    have equal AO exactly when both are uniform towards each other (see `ao::ao_uniformity`).
//!    Where that holds, the two faces' blocks are compared;
//! 4. faces are merged greedily within each slice from those masks alone, first along the row
//!    (`trailing_zeros` scans) then across rows, so colour and shading are exactly those of the
//!    unit faces;
//! 5. each quad reads its block and AO once, at its first face, and is written out as soon as
//!    step 4 has merged it (the output grows a few hundred quads at a time; each quad's 4 vertices
//!    go out in whole chunks): to [`ChunkMesh`]'s vertex arrays ([`Mesher::mesh`],
//!    [`Mesher::mesh_lit`]), or straight into Godot's byte streams ([`Mesher::mesh_bytes`],
//!    [`Mesher::mesh_lit_bytes`], the same bytes as packing the arrays, in one pass).
//!
//! With ambient occlusion off ([`Mesher::set_ambient_occlusion`]) step 3 compares blocks only and
//! step 5 lights every face as open: a plain greedy mesh merged by block, as block-mesh's
//! `greedy_quads` makes (the same faces in as many quads or fewer).
//!
//! [`Mesher::collision_faces`] runs steps 1, 2 and 4 for solid faces only and merges by solidity
//! alone: far fewer triangles for a physics shape, covering exactly the solid faces.
//!
//! On x86-64 CPUs with AVX2 and BMI2 (checked at run time) the same code runs compiled for those,
//! with explicit AVX2 for the voxel classes, the row compares and the transposes; on CPUs that
//! also have AVX-512 F and BW, compiled for those too, the bulk compares going into mask
//! registers. The results are the same bytes on every build (integer work, and float multiplies
//! and conversions only; `tests/tests/simd_paths.rs` runs each build the CPU has).
//!
//! [`mesh_padded_chunk_culled`] is the plain one-quad-per-face mesher, kept as the reference the
//! tests compare against (and used for boxes wider than 64 voxels, where rows do not fit a `u64`).
//! All are pure functions of the voxels: same voxels, same bytes, on any thread.
//!
//! Files, one job each: `types` (the output surfaces and the six face directions),
//! `ao` (ambient occlusion levels, per face and per row), `culled` (the reference mesher),
//! `layout` (how a direction's faces lie in bit rows and slices), `voxels` (bulk compares of block
//! ids: step 1's class masks and step 3's block equality), `transpose` (the bit-matrix
//! transposes of step 1), `greedy` ([`Mesher`]: steps 1 to 3), `merge` (step 4), `quads` (step 5 into vertex
//! arrays, and what both forms of output share), `quad_bytes` (step 5 into Godot's streams), `collision`
//! ([`Mesher::collision_faces`]) and [`bytes`] (surfaces packed for Godot).
//!
//! May use: `base`, `light` (the light a face sees; the layers `preset` to `gen2d` are allowed too, but only the tests use them).

mod ao;
pub mod bytes;
mod collision;
mod culled;
mod error;
mod greedy;
mod layout;
mod materials;
mod merge;
pub mod occluders;
mod quad_bytes;
mod quads;
#[cfg(test)]
pub(crate) mod test_support;
mod transpose;
mod types;
mod voxels;

pub use collision::{COLLISION_PART_TRIANGLES, CollisionParts};
pub use culled::{
    mesh_padded_chunk_culled, mesh_padded_chunk_culled_in, mesh_padded_chunk_culled_lit, mesh_padded_chunk_culled_with,
};
pub use error::MeshError;
pub use greedy::Mesher;
pub use materials::{BlockLook, MeshMaterials, NO_TEXTURE, UNKNOWN_LOOK, layer_tints, texture_layers, texture_order};
pub use types::{ChunkMesh, FACE_NORMALS, FULL_LIGHT, MeshSurface, SURFACE_NAMES, face_uv, rgba8};
