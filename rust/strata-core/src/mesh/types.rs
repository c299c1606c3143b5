//! What a mesh is made of: the surfaces a mesher writes ([`ChunkMesh`], [`MeshSurface`]), the
//! six face directions with their normals, shades and corner order, and the two triangles of a
//! quad. Shared by the reference mesher and the greedy one, so both write the same bytes.
//!
//! May use: `base` and the other `mesh` modules.

use crate::base::coords::IVec3;

/// One surface: parallel vertex arrays plus a triangle index list. Normals and colours are kept
/// in the compact form the GPU gets (see [`crate::mesh::bytes`]): each vertex's face direction,
/// one byte, and its colour in RGBA8.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshSurface {
    pub positions: Vec<[f32; 3]>,
    /// Per vertex: the direction its face looks, an index into [`FACE_NORMALS`].
    pub directions: Vec<u8>,
    /// Per vertex: its colour, each channel as Godot stores it (see [`rgba8`]).
    pub colors: Vec<[u8; 4]>,
    /// Per vertex: the texture-array layer of its face
    /// ([`BlockLook::layers`](crate::mesh::BlockLook::layers)).
    pub layers: Vec<u16>,
    /// Per vertex: the light its face sees, packed as [`Light`](crate::light::Light)
    /// (`sky << 4 | block`): that of the voxel the face looks into, the same at all four
    /// corners. [`FULL_LIGHT`] (open sky, no block light) when meshed without light.
    pub lights: Vec<u8>,
    pub indices: Vec<i32>,
}

/// The light of a face meshed without light: open sky (15), no block light, packed as
/// [`Light`](crate::light::Light).
pub const FULL_LIGHT: u8 = 0xF0;

/// The normal of each face direction, in the order of [`MeshSurface::directions`].
pub const FACE_NORMALS: [[f32; 3]; 6] =
    [[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, -1.0]];

/// A colour in RGBA8 as Godot stores a float colour: each channel `× 255` in double precision,
/// clamped to 0–255 and truncated.
pub fn rgba8(c: [f32; 4]) -> [u8; 4] {
    c.map(|v| (v as f64 * 255.0).clamp(0.0, 255.0) as u8)
}

impl MeshSurface {
    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }

    pub fn clear(&mut self) {
        self.positions.clear();
        self.directions.clear();
        self.colors.clear();
        self.layers.clear();
        self.lights.clear();
        self.indices.clear();
    }

    pub fn quad_count(&self) -> usize {
        self.indices.len() / 6
    }

    /// The normal of vertex `v`.
    pub fn normal(&self, v: usize) -> [f32; 3] {
        FACE_NORMALS[self.directions[v] as usize]
    }

    /// The texture coordinates of vertex `v` (see [`face_uv`]): derived, not stored, as the block
    /// shaders derive them.
    pub fn uv(&self, v: usize) -> [f32; 2] {
        face_uv(self.directions[v] as usize, self.positions[v])
    }

    /// The triangles as a flat list of corners (3 per triangle), e.g. for a collision shape.
    pub fn triangle_corners(&self) -> Vec<[f32; 3]> {
        self.indices.iter().map(|&i| self.positions[i as usize]).collect()
    }

    /// Appends a quad with corners `c` (any winding, corner order of [`FACES`]), face direction
    /// `d`, colour, texture layer and light (packed, see [`MeshSurface::lights`]).
    pub(super) fn push_quad(
        &mut self,
        c: [[f32; 3]; 4],
        d: usize,
        color: [f32; 4],
        ao: [f32; 4],
        layer: u16,
        light: u8,
    ) {
        let e1 = sub(c[1], c[0]);
        let e2 = sub(c[2], c[0]);
        let counter_clockwise = dot(cross(e1, e2), FACE_NORMALS[d]) > 0.0;
        let flip = ao[0] + ao[2] < ao[1] + ao[3];
        let corner_colors = ao.map(|s| rgba8([color[0] * s, color[1] * s, color[2] * s, color[3]]));
        let triangles = QUAD_TRIANGLES[counter_clockwise as usize][flip as usize];
        let base = self.positions.len() as i32;
        self.positions.extend_from_slice(&c);
        self.directions.extend_from_slice(&[d as u8; 4]);
        self.colors.extend_from_slice(&corner_colors);
        self.layers.extend_from_slice(&[layer; 4]);
        self.lights.extend_from_slice(&[light; 4]);
        self.indices.extend_from_slice(&triangles.map(|t| base + t));
    }
}

/// The two triangles of a quad as corner indices, by `[counter_clockwise][flip]`: corners running
/// counter-clockwise around the normal are taken in reverse so every triangle is clockwise from
/// the front; `flip` splits along the diagonal 1–3 instead of 0–2 (the one with the brighter ends,
/// so AO gradients stay symmetric).
pub(super) const QUAD_TRIANGLES: [[[i32; 6]; 2]; 2] =
    [[[0, 1, 2, 0, 2, 3], [1, 2, 3, 1, 3, 0]], [[0, 2, 1, 0, 3, 2], [1, 3, 2, 1, 0, 3]]];

/// The texture coordinates of a point `p` on a face of direction `d`: its position projected on
/// the face's plane, in voxels, so a texture repeats once a voxel (a shader takes `fract()`) and
/// a merged quad looks like the faces it merged. Side faces are upright (texture `v` grows
/// downwards in world y) and not mirrored seen from the front (texture `u` grows to the viewer's
/// right: −z on +x faces, +z on −x, +x on +z, −x on −z); top and bottom faces run `u` along world
/// x and `v` along world z. The block shaders compute the same from `VERTEX` and the face's
/// direction (`blocks.gdshaderinc`), so meshes carry no texture coordinates.
#[inline]
pub fn face_uv(d: usize, p: [f32; 3]) -> [f32; 2] {
    let [x, y, z] = p;
    match d {
        0 => [-z, -y],
        1 => [z, -y],
        2 | 3 => [x, z],
        4 => [x, -y],
        _ => [-x, -y],
    }
}

/// The surfaces of a chunk mesh, one per [`RenderMode`](crate::base::block_library::RenderMode),
/// in this order (the order [`ChunkMesh::surfaces`] and the packed streams keep).
pub const SURFACE_NAMES: [&str; 4] = ["opaque", "cutout", "transparent", "liquid"];

/// The mesh of one chunk: a surface per render mode. Opaque ground; alpha-tested cutout (leaves,
/// torches); blended transparent (glass); the liquid surface (water).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChunkMesh {
    pub opaque: MeshSurface,
    pub cutout: MeshSurface,
    pub transparent: MeshSurface,
    pub liquid: MeshSurface,
}

impl ChunkMesh {
    /// The four surfaces in [`SURFACE_NAMES`] order.
    pub fn surfaces(&self) -> [&MeshSurface; 4] {
        [&self.opaque, &self.cutout, &self.transparent, &self.liquid]
    }

    /// The four surfaces in [`SURFACE_NAMES`] order, to write.
    pub fn surfaces_mut(&mut self) -> [&mut MeshSurface; 4] {
        [&mut self.opaque, &mut self.cutout, &mut self.transparent, &mut self.liquid]
    }

    pub fn is_empty(&self) -> bool {
        self.surfaces().iter().all(|s| s.is_empty())
    }

    pub fn clear(&mut self) {
        self.surfaces_mut().into_iter().for_each(MeshSurface::clear);
    }

    /// Quads in all surfaces.
    pub fn quad_count(&self) -> usize {
        self.surfaces().iter().map(|s| s.quad_count()).sum()
    }
}

pub(super) fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
pub(super) fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}
pub(super) fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The six face directions: normal, and the two in-plane axes (`u`, `v`) that fix the corner order
/// `(0,0), (1,0), (1,1), (0,1)` and the AO corners `(-1,-1), (1,-1), (1,1), (-1,1)`.
pub(super) const FACES: [(IVec3, IVec3, IVec3); 6] = [
    (IVec3::new(1, 0, 0), IVec3::new(0, 1, 0), IVec3::new(0, 0, 1)),
    (IVec3::new(-1, 0, 0), IVec3::new(0, 1, 0), IVec3::new(0, 0, 1)),
    (IVec3::new(0, 1, 0), IVec3::new(1, 0, 0), IVec3::new(0, 0, 1)),
    (IVec3::new(0, -1, 0), IVec3::new(1, 0, 0), IVec3::new(0, 0, 1)),
    (IVec3::new(0, 0, 1), IVec3::new(1, 0, 0), IVec3::new(0, 1, 0)),
    (IVec3::new(0, 0, -1), IVec3::new(1, 0, 0), IVec3::new(0, 1, 0)),
];

/// Directional shade per face, so blocky terrain reads well even without lighting.
pub(super) const FACE_SHADE: [f32; 6] = [0.86, 0.86, 1.0, 0.6, 0.93, 0.93];

/// Alpha of liquid surfaces (opaque and cutout ones have 1).
pub(super) const LIQUID_ALPHA: f32 = 0.7;
/// Alpha of transparent surfaces (glass): the vertex colour's share of the blend.
pub(super) const TRANSPARENT_ALPHA: f32 = 0.45;

/// Whether the corners `(0,0), (1,0), (1,1), (0,1)` of direction `D` run counter-clockwise
/// around its normal.
pub(super) const fn counter_clockwise<const D: usize>() -> bool {
    let (n, u, v) = FACES[D];
    // (u × v) · n
    (u.y * v.z - u.z * v.y) * n.x + (u.z * v.x - u.x * v.z) * n.y + (u.x * v.y - u.y * v.x) * n.z > 0
}
