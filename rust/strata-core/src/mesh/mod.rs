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
//!    have equal AO exactly when both are uniform towards each other (see [`ao_uniformity`]).
//!    Where that holds, the two faces' blocks are compared;
//! 4. faces are merged greedily within each slice from those masks alone, first along the row
//!    (`trailing_zeros` scans) then across rows, so colour and shading are exactly those of the
//!    unit faces;
//! 5. each quad reads its block and AO once, at its first face, and is written to the vertex
//!    arrays as soon as step 4 has merged it (the arrays grow a few hundred quads at a time; each
//!    quad's 4 vertices go out in whole chunks).
//!
//! With ambient occlusion off ([`Mesher::set_ambient_occlusion`]) step 3 compares blocks only and
//! step 5 lights every face as open: a plain greedy mesh merged by block, as block-mesh's
//! `greedy_quads` makes (the same faces in as many quads or fewer).
//!
//! [`Mesher::collision_faces`] runs steps 1, 2 and 4 for solid faces only and merges by solidity
//! alone: far fewer triangles for a physics shape, covering exactly the solid faces.
//!
//! On x86-64 CPUs with AVX2 and BMI2 (checked at run time) the same code runs compiled for those,
//! with explicit AVX2 for the voxel classes and the transposes; the results are the same bytes
//! (integer work, and float multiplies and conversions only).
//!
//! [`mesh_padded_chunk_culled`] is the plain one-quad-per-face mesher, kept as the reference the
//! tests compare against (and used for boxes wider than 64 voxels, where rows do not fit a `u64`).
//! All are pure functions of the voxels: same voxels, same bytes, on any thread.

pub mod bytes;

use crate::base::block::{self, BlockId};
use crate::base::chunk::VoxelBuffer;
use crate::base::coords::IVec3;
use std::mem::MaybeUninit;

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
    pub indices: Vec<i32>,
}

/// The normal of each face direction, in the order of [`MeshSurface::directions`].
pub const FACE_NORMALS: [[f32; 3]; 6] = [[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, -1.0]];

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
        self.indices.clear();
    }

    pub fn quad_count(&self) -> usize {
        self.indices.len() / 6
    }

    /// The normal of vertex `v`.
    pub fn normal(&self, v: usize) -> [f32; 3] {
        FACE_NORMALS[self.directions[v] as usize]
    }

    /// The triangles as a flat list of corners (3 per triangle), e.g. for a collision shape.
    pub fn triangle_corners(&self) -> Vec<[f32; 3]> {
        self.indices.iter().map(|&i| self.positions[i as usize]).collect()
    }

    /// Appends a quad with corners `c` (any winding), face direction `d` and colour.
    fn push_quad(&mut self, c: [[f32; 3]; 4], d: usize, color: [f32; 4], ao: [f32; 4]) {
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
        self.indices.extend_from_slice(&triangles.map(|t| base + t));
    }
}

/// The two triangles of a quad as corner indices, by `[counter_clockwise][flip]`: corners running
/// counter-clockwise around the normal are taken in reverse so every triangle is clockwise from
/// the front; `flip` splits along the diagonal 1–3 instead of 0–2 (the one with the brighter ends,
/// so AO gradients stay symmetric).
const QUAD_TRIANGLES: [[[i32; 6]; 2]; 2] = [[[0, 1, 2, 0, 2, 3], [1, 2, 3, 1, 3, 0]], [[0, 2, 1, 0, 3, 2], [1, 3, 2, 1, 0, 3]]];

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

    /// Quads in both surfaces.
    pub fn quad_count(&self) -> usize {
        self.opaque.quad_count() + self.liquid.quad_count()
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

/// The six face directions: normal, and the two in-plane axes (`u`, `v`) that fix the corner order
/// `(0,0), (1,0), (1,1), (0,1)` and the AO corners `(-1,-1), (1,-1), (1,1), (-1,1)`.
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

/// Alpha of liquid surfaces (opaque ones have 1).
const LIQUID_ALPHA: f32 = 0.7;

/// Brightness of an AO level (0 = fully occluded, 3 = open).
const AO_LEVELS: [f32; 4] = [0.55, 0.7, 0.85, 1.0];

/// The AO level of an unoccluded corner.
const AO_OPEN: usize = 3;

/// AO level of a corner from the three neighbours around it.
const fn corner_level(side1: bool, side2: bool, corner: bool) -> u8 {
    if side1 && side2 { 0 } else { 3 - (side1 as u8 + side2 as u8 + corner as u8) }
}

/// Per-vertex ambient occlusion from the three neighbours around a corner (0.55 = fully occluded).
fn corner_ao(side1: bool, side2: bool, corner: bool) -> f32 {
    AO_LEVELS[corner_level(side1, side2, corner) as usize]
}

/// The eight neighbours in the layer in front of a face, as `(du, dv)` along the face's `u`, `v`
/// axes; bit `k` of a neighbour pattern is neighbour `k`.
const NEIGHBOURS: [(i32, i32); 8] = [(-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (1, -1), (1, 1), (-1, 1)];

/// For each corner `(-1,-1), (1,-1), (1,1), (-1,1)`: its two side neighbours and its diagonal one,
/// as indices into [`NEIGHBOURS`].
const CORNER_NEIGHBOURS: [(usize, usize, usize); 4] = [(0, 2, 4), (1, 2, 5), (1, 3, 6), (0, 3, 7)];

const fn bit(p: usize, k: usize) -> bool {
    (p >> k) & 1 == 1
}

/// Packed AO of a face's four corners (2 bits each, corner `k` at bits `2k`) from its window: the
/// 3×3 solid bits of the layer in front of it, bit `(dv + 1) * 3 + (du + 1)` for the voxel at
/// `(du, dv)` (the centre is ignored).
static AO_WINDOW: [u8; 512] = {
    let mut t = [0u8; 512];
    let mut w = 0;
    while w < 512 {
        let mut around = [false; 8];
        let mut k = 0;
        while k < 8 {
            let (du, dv) = NEIGHBOURS[k];
            around[k] = bit(w, ((dv + 1) * 3 + du + 1) as usize);
            k += 1;
        }
        let mut packed = 0u8;
        let mut c = 0;
        while c < 4 {
            let (s1, s2, d) = CORNER_NEIGHBOURS[c];
            packed |= corner_level(around[s1], around[s2], around[d]) << (2 * c);
            c += 1;
        }
        t[w] = packed;
        w += 1;
    }
    t
};

/// Brightness of the four corners of a face with packed AO `p`.
static AO_CORNER_LEVELS: [[f32; 4]; 256] = {
    let mut t = [[0.0; 4]; 256];
    let mut p = 0;
    while p < 256 {
        t[p] = [AO_LEVELS[p & 3], AO_LEVELS[(p >> 2) & 3], AO_LEVELS[(p >> 4) & 3], AO_LEVELS[(p >> 6) & 3]];
        p += 1;
    }
    t
};

/// [`AO_WINDOW`] for windows with `u` and `v` swapped: bit `(du + 1) * 3 + (dv + 1)` is the voxel
/// at `(du, dv)`.
static AO_WINDOW_UV_SWAPPED: [u8; 512] = {
    let mut t = [0u8; 512];
    let mut w = 0;
    while w < 512 {
        let mut swapped = 0;
        let mut a = 0;
        while a < 3 {
            let mut b = 0;
            while b < 3 {
                if bit(w, a * 3 + b) {
                    swapped |= 1 << (b * 3 + a);
                }
                b += 1;
            }
            a += 1;
        }
        t[w] = AO_WINDOW[swapped];
        w += 1;
    }
    t
};

/// Whether a face with packed AO `p` is split along the diagonal 1–3 (see [`QUAD_TRIANGLES`]):
/// exactly the float comparison [`MeshSurface::push_quad`] makes.
static AO_FLIP: [bool; 256] = {
    let mut t = [false; 256];
    let mut p = 0;
    while p < 256 {
        let l = AO_CORNER_LEVELS[p];
        t[p] = l[0] + l[2] < l[1] + l[3];
        p += 1;
    }
    t
};

/// Meshes the interior of `padded` (all but its one-voxel halo) into `out`, reusing its buffers.
///
/// Uses a per-thread [`Mesher`], so repeated calls allocate nothing once the buffers have grown.
pub fn mesh_padded_chunk(padded: &VoxelBuffer, out: &mut ChunkMesh) {
    mesh_padded_chunk_with(padded, out, true);
}

/// [`mesh_padded_chunk`] with ambient occlusion on or off (see [`Mesher::set_ambient_occlusion`]).
pub fn mesh_padded_chunk_with(padded: &VoxelBuffer, out: &mut ChunkMesh, ambient_occlusion: bool) {
    with_thread_mesher(|m| {
        m.set_ambient_occlusion(ambient_occlusion);
        m.mesh(padded, out);
    });
}

/// Collision triangles of the interior of `padded` into `out` (cleared first): see
/// [`Mesher::collision_faces`]. Uses a per-thread [`Mesher`].
pub fn collision_faces(padded: &VoxelBuffer, out: &mut Vec<[f32; 3]>) {
    with_thread_mesher(|m| m.collision_faces(padded, out));
}

/// Runs `f` with this thread's [`Mesher`] (or a fresh one if it is already in use higher up).
fn with_thread_mesher(f: impl FnOnce(&mut Mesher)) {
    thread_local! {
        static MESHER: std::cell::RefCell<Mesher> = std::cell::RefCell::new(Mesher::new());
    }
    MESHER.with(|m| match m.try_borrow_mut() {
        Ok(mut m) => f(&mut m),
        Err(_) => f(&mut Mesher::new()),
    });
}

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
                            ao[k] = corner_ao(solid(front + u * du), solid(front + v * dv), solid(front + u * du + v * dv));
                        }
                    }
                    let shade = FACE_SHADE[f];
                    let [r, g, b] = info.color;
                    let (surface, alpha) = if info.liquid { (&mut out.liquid, LIQUID_ALPHA) } else { (&mut out.opaque, 1.0) };
                    surface.push_quad(c, f, [r * shade, g * shade, b * shade, alpha], ao);
                }
            }
        }
    }
}

/// Whether this thread may run the AVX2 and BMI build of the mesher (see [`crate::base::simd`]; the
/// CPU's features are checked once, then cached).
#[cfg(target_arch = "x86_64")]
fn wide_simd_available() -> bool {
    crate::base::simd::avx2()
        && std::is_x86_feature_detected!("bmi1")
        && std::is_x86_feature_detected!("bmi2")
        && std::is_x86_feature_detected!("lzcnt")
        && std::is_x86_feature_detected!("popcnt")
}

/// Widest padded box (per axis) the bit-mask mesher handles: one `u64` per row.
const MAX_PADDED: i32 = 64;

/// Voxel classes, as bits.
const CLASS_SOLID: u8 = 1;
const CLASS_LIQUID: u8 = 2;
const CLASS_AIR: u8 = 4;

/// Which axis a face direction is normal to: the merge slices run along it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Axis {
    X,
    Y,
    Z,
}

const fn axis_of(n: IVec3) -> Axis {
    if n.x != 0 {
        Axis::X
    } else if n.y != 0 {
        Axis::Y
    } else {
        Axis::Z
    }
}

/// Index (0 = x, 1 = y, 2 = z) of the axis a unit vector runs along.
const fn axis_index(a: IVec3) -> usize {
    if a.x != 0 {
        0
    } else if a.y != 0 {
        1
    } else {
        2
    }
}

/// Sizes of the padded box and of its interior (`n* = p* - 2`).
#[derive(Clone, Copy)]
struct Dims {
    px: usize,
    py: usize,
    pz: usize,
    nx: usize,
    ny: usize,
    nz: usize,
}

/// How the rows of direction `D`'s orientation lie: the y and z directions use rows along x
/// (index `y * pz + z`, bit x); the x directions use rows along z (index `y * px + x`, bit z), so
/// that every direction's faces sit in rows running inside its slices.
#[derive(Clone, Copy)]
struct Orientation {
    /// Rows per y layer (`pz`, or `px` for the x directions).
    stride: usize,
    /// Interior rows per y layer and interior bits per row.
    rows: usize,
    bits: usize,
    /// Row delta to the voxel across the face.
    across: isize,
    /// Whether the face's `u` axis runs along the bits (else `v` does).
    u_along_bits: bool,
    /// Row delta of one step along whichever of `u` and `v` does not run along the bits.
    row_step: isize,
    /// Step in the voxel array of one bit, and of one row of this direction's slices.
    data_bit_step: usize,
    data_row_step: usize,
}

impl Orientation {
    #[inline(always)]
    fn of<const D: usize>(dims: Dims) -> Self {
        let Dims { px, pz, nx, nz, .. } = dims;
        let normal = FACES[D].0;
        match axis_of(normal) {
            // Rows along z, indexed (y, x); slices x, rows y (= u), bits z (= v).
            Axis::X => Self { stride: px, rows: nx, bits: nz, across: normal.x as isize, u_along_bits: false, row_step: px as isize, data_bit_step: px, data_row_step: px * pz },
            // Rows along x, indexed (y, z); slices y, rows z (= v), bits x (= u).
            Axis::Y => Self { stride: pz, rows: nz, bits: nx, across: normal.y as isize * pz as isize, u_along_bits: true, row_step: 1, data_bit_step: 1, data_row_step: px },
            // Rows along x, indexed (y, z); slices z, rows y (= v), bits x (= u).
            Axis::Z => Self { stride: pz, rows: nz, bits: nx, across: normal.z as isize, u_along_bits: true, row_step: pz as isize, data_bit_step: 1, data_row_step: px * pz },
        }
    }

    /// Interior bits of a padded row.
    fn interior(self) -> u64 {
        ((1u64 << self.bits) - 1) << 1
    }

    /// The padded rows of the interior's y layers (halo rows of each layer included).
    fn layer_rows(self, dims: Dims) -> std::ops::Range<usize> {
        self.stride..(dims.ny + 1) * self.stride
    }

    /// Index in the voxel array of bit 0 of padded row `w` of layer `y`.
    fn data_base(self, y: usize, w: usize, dims: Dims) -> usize {
        if self.data_bit_step == 1 { (y * self.stride + w) * dims.px } else { y * dims.pz * dims.px + w }
    }
}

/// How one direction's faces lie in its row arrays: `layers` slices of `rows` rows, row `r` of
/// slice `l` at `origin + l * layer_step + r * row_step`.
#[derive(Clone, Copy)]
struct SliceLayout {
    origin: usize,
    layers: usize,
    rows: usize,
    layer_step: usize,
    row_step: usize,
}

impl SliceLayout {
    /// Direction `D`'s slices: slice, row and bit are interior coordinates.
    fn of<const D: usize>(dims: Dims) -> Self {
        let Dims { px, pz, nx, ny, nz, .. } = dims;
        match axis_of(FACES[D].0) {
            // Rows (y, x): slice x, rows y, bits z.
            Axis::X => Self { origin: px + 1, layers: nx, rows: ny, layer_step: 1, row_step: px },
            // Rows (y, z): slice y, rows z, bits x.
            Axis::Y => Self { origin: pz + 1, layers: ny, rows: nz, layer_step: pz, row_step: 1 },
            // Rows (y, z): slice z, rows y, bits x.
            Axis::Z => Self { origin: pz + 1, layers: nz, rows: ny, layer_step: 1, row_step: pz },
        }
    }
}

/// A merged quad in slice terms (see [`SliceLayout`]): slice, row, first bit, width (bits) and
/// height (rows).
#[derive(Clone, Copy)]
struct SliceQuad {
    layer: usize,
    row: usize,
    bit: usize,
    width: usize,
    height: usize,
}

/// Solid, liquid and air masks of the padded box in one orientation (see [`Orientation`]).
#[derive(Default)]
struct ClassRows {
    solid: Vec<u64>,
    liquid: Vec<u64>,
    air: Vec<u64>,
}

/// One direction's visible faces and merge masks, in its orientation's padded rows (bit `b - 1`
/// for padded bit `b`; rows of the halo hold leftovers).
#[derive(Default)]
struct DirectionFaces {
    solid: Vec<u64>,
    liquid: Vec<u64>,
    /// The face may merge with the next one along the row (`along`) or with the one in the next
    /// row of its slice (`across`); only meaningful where both faces exist.
    along: Vec<u64>,
    across: Vec<u64>,
    /// Which rows hold faces: per y layer (bit = interior row), and per slice (bit = row of the
    /// slice). A superset once merging has taken faces from later rows.
    layer_rows: Vec<u64>,
    slice_rows: Vec<u64>,
}

/// Reusable scratch for the binary greedy mesher. Keep one per worker thread and call
/// [`Mesher::mesh`] (or [`Mesher::collision_faces`]) for each chunk: after the first chunk it
/// allocates nothing.
pub struct Mesher {
    /// Class masks in rows along x (for the y and z directions) and along z (for x).
    along_x: ClassRows,
    along_z: ClassRows,
    /// Whether this box's liquid faces are meshed (rendering, and the interior holds liquid):
    /// only then are the liquid and air rows along z up to date.
    liquid_faces: bool,
    /// Masks over the flat voxel array (64 voxels a word, a spare zero word at the end), before
    /// they are cut into rows: equal to air, and equal to the liquid.
    flat_air: Vec<u64>,
    flat_liquid: Vec<u64>,
    /// One direction's faces and merge masks.
    faces: DirectionFaces,
    /// AO uniformity of the previous y layer's faces, per row, for the merge masks across y.
    layer_uniformity: Vec<u64>,
    /// Class of each block id below `BLOCK_COUNT`, then the class of unknown ids.
    class: Vec<u8>,
    /// Colour of each block id below `BLOCK_COUNT` (then of unknown ids) per face direction and
    /// AO level, in RGBA8 ([`rgba8`]): shaded, darkened by the level's brightness, with the
    /// surface's alpha. Liquid faces take the open level (brightness one).
    colors: Vec<[[[u8; 4]; 4]; 6]>,
    /// Set when the only non-solid ids are air and this one liquid (fast voxel pass).
    single_liquid: Option<BlockId>,
    /// Whether solid faces carry ambient occlusion (see [`Mesher::set_ambient_occlusion`]).
    ambient_occlusion: bool,
}

impl Default for Mesher {
    fn default() -> Self {
        Self::new()
    }
}

impl Mesher {
    pub fn new() -> Self {
        let count = block::BLOCK_COUNT as usize;
        let class: Vec<u8> = (0..=count)
            .map(|id| {
                let info = block::block_info(id as BlockId);
                if id == block::AIR as usize {
                    CLASS_AIR
                } else if info.solid {
                    CLASS_SOLID
                } else if info.liquid {
                    CLASS_LIQUID
                } else {
                    0
                }
            })
            .collect();
        let non_solid: Vec<usize> = (1..=count).filter(|&id| class[id] != CLASS_SOLID).collect();
        let single_liquid = match non_solid.as_slice() {
            [l] if class[*l] == CLASS_LIQUID => Some(*l as BlockId),
            _ => None,
        };
        let colors = (0..=count)
            .map(|id| {
                let info = block::block_info(id as BlockId);
                let [r, g, b] = info.color;
                let alpha = if info.liquid { LIQUID_ALPHA } else { 1.0 };
                std::array::from_fn(|d| {
                    let shade = FACE_SHADE[d];
                    let color = [r * shade, g * shade, b * shade, alpha];
                    // `color * [s, s, s, 1]`, as the reference mesher scales it.
                    AO_LEVELS.map(|s| rgba8([color[0] * s, color[1] * s, color[2] * s, color[3]]))
                })
            })
            .collect();
        Self {
            along_x: ClassRows::default(),
            along_z: ClassRows::default(),
            liquid_faces: false,
            flat_air: Vec::new(),
            flat_liquid: Vec::new(),
            faces: DirectionFaces::default(),
            layer_uniformity: Vec::new(),
            class,
            colors,
            single_liquid,
            ambient_occlusion: true,
        }
    }

    /// Turns the ambient occlusion of solid faces on (the default) or off. Off, every face is lit
    /// as if open (the brightest AO level) and neighbouring faces merge whenever they hold the same
    /// block, as in a plain greedy mesher: far fewer quads, for slower machines or a flat look.
    pub fn set_ambient_occlusion(&mut self, on: bool) {
        self.ambient_occlusion = on;
    }

    pub fn ambient_occlusion(&self) -> bool {
        self.ambient_occlusion
    }

    /// Meshes the interior of `padded` (all but its one-voxel halo) into `out`, reusing its
    /// buffers. The result shows exactly the faces of [`mesh_padded_chunk_culled`], merged.
    pub fn mesh(&mut self, padded: &VoxelBuffer, out: &mut ChunkMesh) {
        #[cfg(target_arch = "x86_64")]
        if wide_simd_available() {
            // SAFETY: the CPU has every feature `mesh_wide` is compiled for (checked just above).
            unsafe { self.mesh_wide(padded, out) };
            return;
        }
        if self.ambient_occlusion {
            self.mesh_with::<false, true>(padded, out);
        } else {
            self.mesh_with::<false, false>(padded, out);
        }
    }

    /// [`Mesher::mesh`] compiled for AVX2 and BMI (same code, same results, fewer instructions).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
    fn mesh_wide(&mut self, padded: &VoxelBuffer, out: &mut ChunkMesh) {
        if self.ambient_occlusion {
            self.mesh_with::<true, true>(padded, out);
        } else {
            self.mesh_with::<true, false>(padded, out);
        }
    }

    /// The mesher; `WIDE` (only in the builds for AVX2 and BMI2) also uses those explicitly; `AO`
    /// is [`Mesher::ambient_occlusion`].
    #[inline(always)]
    fn mesh_with<const WIDE: bool, const AO: bool>(&mut self, padded: &VoxelBuffer, out: &mut ChunkMesh) {
        out.clear();
        let p = padded.size();
        if p.x > MAX_PADDED || p.y > MAX_PADDED || p.z > MAX_PADDED {
            mesh_padded_chunk_culled_with(padded, out, AO);
            return;
        }
        let Some(dims) = self.prepare::<WIDE>(padded, true) else {
            return;
        };
        let data = padded.data();
        self.render_direction::<0, WIDE, AO>(data, dims, out);
        self.render_direction::<1, WIDE, AO>(data, dims, out);
        self.render_direction::<2, WIDE, AO>(data, dims, out);
        self.render_direction::<3, WIDE, AO>(data, dims, out);
        self.render_direction::<4, WIDE, AO>(data, dims, out);
        self.render_direction::<5, WIDE, AO>(data, dims, out);
    }

    /// Collision triangles of the interior of `padded` into `out` (cleared first): the corners of
    /// each triangle in turn (3 per triangle), wound clockwise seen from the front like the render
    /// mesh, positions relative to the chunk's minimum corner.
    ///
    /// Only solid faces count (liquids are not collidable), culled exactly as in the render mesh
    /// (never between two solids, the halo included), and merged greedily by solidity alone (block
    /// ids and AO ignored), so the triangles cover exactly the render mesh's opaque faces with far
    /// fewer of them.
    pub fn collision_faces(&mut self, padded: &VoxelBuffer, out: &mut Vec<[f32; 3]>) {
        #[cfg(target_arch = "x86_64")]
        if wide_simd_available() {
            // SAFETY: the CPU has every feature `collision_faces_wide` is compiled for (checked
            // just above).
            unsafe { self.collision_faces_wide(padded, out) };
            return;
        }
        self.collision_faces_with::<false>(padded, out);
    }

    /// [`Mesher::collision_faces`] compiled for AVX2 and BMI.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
    fn collision_faces_wide(&mut self, padded: &VoxelBuffer, out: &mut Vec<[f32; 3]>) {
        self.collision_faces_with::<true>(padded, out);
    }

    /// Collision faces; `WIDE` as in [`Mesher::mesh_with`].
    #[inline(always)]
    fn collision_faces_with<const WIDE: bool>(&mut self, padded: &VoxelBuffer, out: &mut Vec<[f32; 3]>) {
        out.clear();
        let p = padded.size();
        if p.x > MAX_PADDED || p.y > MAX_PADDED || p.z > MAX_PADDED {
            let mut mesh = ChunkMesh::default();
            mesh_padded_chunk_culled(padded, &mut mesh);
            out.extend(mesh.opaque.triangle_corners());
            return;
        }
        let Some(dims) = self.prepare::<WIDE>(padded, false) else {
            return;
        };
        self.collision_direction::<0>(dims, out);
        self.collision_direction::<1>(dims, out);
        self.collision_direction::<2>(dims, out);
        self.collision_direction::<3>(dims, out);
        self.collision_direction::<4>(dims, out);
        self.collision_direction::<5>(dims, out);
    }

    /// Step 1 and the scratch: class masks in both orientations (liquid and air only `with_liquid`
    /// and where there is liquid). `None` when there is nothing to mesh: a box too thin for an
    /// interior, or an interior without anything that could show a face.
    #[inline(always)]
    fn prepare<const WIDE: bool>(&mut self, padded: &VoxelBuffer, with_liquid: bool) -> Option<Dims> {
        let p = padded.size();
        if p.min_elem() < 3 {
            return None;
        }
        let (px, py, pz) = (p.x as usize, p.y as usize, p.z as usize);
        let dims = Dims { px, py, pz, nx: px - 2, ny: py - 2, nz: pz - 2 };
        let (has_faces, has_liquid) = self.pack_rows::<WIDE>(padded, dims);
        if !has_faces {
            return None;
        }
        self.liquid_faces = with_liquid && has_liquid;
        let rows = py * px.max(pz);
        let f = &mut self.faces;
        for v in [&mut f.solid, &mut f.liquid, &mut f.along, &mut f.across] {
            if v.len() < rows {
                v.resize(rows, 0);
            }
        }
        let layers = px.max(py).max(pz);
        for v in [&mut f.layer_rows, &mut f.slice_rows, &mut self.layer_uniformity] {
            if v.len() < layers {
                v.resize(layers, 0);
            }
        }
        let (a, b) = (&self.along_x, &mut self.along_z);
        transpose_layers::<WIDE>(&a.solid, &mut b.solid, dims);
        if self.liquid_faces {
            transpose_layers::<WIDE>(&a.liquid, &mut b.liquid, dims);
            transpose_layers::<WIDE>(&a.air, &mut b.air, dims);
        }
        Some(dims)
    }

    /// Packs the padded box into rows along x. Returns whether the interior holds anything that
    /// could show a face (not all air, nor only invisible blocks), and whether it holds liquid.
    #[inline(always)]
    fn pack_rows<const WIDE: bool>(&mut self, padded: &VoxelBuffer, dims: Dims) -> (bool, bool) {
        let Dims { px, py, pz, .. } = dims;
        let rows = py * pz;
        let ClassRows { solid, liquid, air } = &mut self.along_x;
        for v in [&mut *solid, &mut *liquid, &mut *air] {
            if v.len() < rows {
                v.resize(rows, 0);
            }
        }
        let data = padded.data();
        let full = if px == 64 { !0u64 } else { (1u64 << px) - 1 };
        match self.single_liquid {
            #[cfg(target_arch = "x86_64")]
            Some(liquid_id) if WIDE && px >= 16 => {
                // SAFETY: `WIDE` is only set in the builds compiled for AVX2 and BMI2, which run
                // only on CPUs that have them.
                unsafe { class_rows_wide(data, px, liquid_id, &mut solid[..rows], &mut liquid[..rows], &mut air[..rows]) };
            }
            Some(liquid_id) => {
                flat_masks(data, liquid_id, &mut self.flat_air, &mut self.flat_liquid);
                let mut start = 0;
                for ((s, l), a) in solid[..rows].iter_mut().zip(&mut liquid[..rows]).zip(&mut air[..rows]) {
                    *a = bit_range(&self.flat_air, start, full);
                    *l = bit_range(&self.flat_liquid, start, full);
                    *s = !(*a | *l) & full;
                    start += px;
                }
            }
            None => {
                let last = self.class.len() - 1;
                for (((row, s), l), a) in data.chunks_exact(px).zip(&mut solid[..rows]).zip(&mut liquid[..rows]).zip(&mut air[..rows]) {
                    let (mut sm, mut lm, mut am) = (0u64, 0u64, 0u64);
                    for (x, &id) in row.iter().enumerate() {
                        let c = self.class[(id as usize).min(last)];
                        sm |= ((c & CLASS_SOLID) as u64) << x;
                        lm |= (((c & CLASS_LIQUID) >> 1) as u64) << x;
                        am |= (((c & CLASS_AIR) >> 2) as u64) << x;
                    }
                    *s = sm;
                    *l = lm;
                    *a = am;
                }
            }
        }
        let interior = full & !1 & !(1u64 << (px - 1));
        let (mut visible, mut wet) = (0u64, 0u64);
        for y in 1..py - 1 {
            for z in 1..pz - 1 {
                visible |= solid[y * pz + z] | liquid[y * pz + z];
                wet |= liquid[y * pz + z];
            }
        }
        (visible & interior != 0, wet & interior != 0)
    }

    /// Step 2 for direction `D`: visible faces of the interior's y layers into the face arrays
    /// (liquid faces too unless `SOLID_ONLY`), and which rows hold any. Returns whether there are
    /// any solid and any liquid faces.
    #[inline(always)]
    fn collect_faces<const D: usize, const SOLID_ONLY: bool>(&mut self, dims: Dims) -> (bool, bool) {
        let o = Orientation::of::<D>(dims);
        let class = if axis_of(FACES[D].0) == Axis::X { &self.along_z } else { &self.along_x };
        let interior = o.interior();
        let range = o.layer_rows(dims);
        let beyond = (range.start as isize + o.across) as usize..(range.end as isize + o.across) as usize;
        let (mut any_solid, mut any_liquid) = (0u64, 0u64);
        let f = &mut self.faces;
        for ((out, &s), &n) in f.solid[range.clone()].iter_mut().zip(&class.solid[range.clone()]).zip(&class.solid[beyond.clone()]) {
            let faces = s & !n & interior;
            *out = faces >> 1;
            any_solid |= faces;
        }
        if !SOLID_ONLY && self.liquid_faces {
            for ((out, &l), &a) in f.liquid[range.clone()].iter_mut().zip(&class.liquid[range.clone()]).zip(&class.air[beyond]) {
                let faces = l & a & interior;
                *out = faces >> 1;
                any_liquid |= faces;
            }
        }
        let with_liquid = !SOLID_ONLY && any_liquid != 0;
        // Which rows of each y layer hold faces.
        let Dims { ny, .. } = dims;
        for (y0, rows) in f.layer_rows[..ny].iter_mut().enumerate() {
            let first = (y0 + 1) * o.stride + 1;
            let solid = &f.solid[first..first + o.rows];
            *rows = if with_liquid {
                let liquid = &f.liquid[first..first + o.rows];
                solid.iter().zip(liquid).enumerate().fold(0, |m, (r, (&s, &l))| m | (((s | l) != 0) as u64) << r)
            } else {
                solid.iter().enumerate().fold(0, |m, (r, &s)| m | ((s != 0) as u64) << r)
            };
        }
        // And of each slice, for the merge.
        if axis_of(FACES[D].0) == Axis::Y {
            f.slice_rows[..ny].copy_from_slice(&f.layer_rows[..ny]);
        } else {
            // Slices across the layers (x or z): transpose the occupancy.
            f.slice_rows[..o.rows].fill(0);
            for (y0, &rows) in f.layer_rows[..ny].iter().enumerate() {
                let mut left = rows;
                while left != 0 {
                    f.slice_rows[left.trailing_zeros() as usize] |= 1 << y0;
                    left &= left - 1;
                }
            }
        }
        (any_solid != 0, with_liquid)
    }

    /// Render mesh of direction `D` of [`FACES`] (compiled once per direction so its offsets are
    /// constants): steps 2–5.
    #[inline(always)]
    fn render_direction<const D: usize, const WIDE: bool, const AO: bool>(&mut self, data: &[BlockId], dims: Dims, out: &mut ChunkMesh) {
        let (any_solid, any_liquid) = self.collect_faces::<D, false>(dims);
        if !(any_solid || any_liquid) {
            return;
        }
        self.collect_merge_masks::<D, WIDE, AO>(data, dims);
        let layout = SliceLayout::of::<D>(dims);
        let o = Orientation::of::<D>(dims);
        let solid = if axis_of(FACES[D].0) == Axis::X { &self.along_z.solid } else { &self.along_x.solid };
        let f = &mut self.faces;
        let colors = &self.colors;
        // Each quad is written out as soon as it is merged.
        if any_solid {
            let mut writer = QuadWriter::<D, true, WIDE, AO>::new(&mut out.opaque, QuadLooks { data, colors, solid, dims, stride: o.stride });
            merge_faces::<false>(&mut f.solid, &f.along, &f.across, layout, &f.slice_rows, |q| writer.write(q));
            writer.finish();
        }
        if any_liquid {
            let mut writer = QuadWriter::<D, false, WIDE, AO>::new(&mut out.liquid, QuadLooks { data, colors, solid, dims, stride: o.stride });
            merge_faces::<false>(&mut f.liquid, &f.along, &f.across, layout, &f.slice_rows, |q| writer.write(q));
            writer.finish();
        }
    }

    /// Step 3 for direction `D`: the merge masks of every row with faces, from the solid faces'
    /// AO uniformity (see [`ao_uniformity`]) and, where that allows, the blocks of the two faces.
    #[inline(always)]
    fn collect_merge_masks<const D: usize, const WIDE: bool, const AO: bool>(&mut self, data: &[BlockId], dims: Dims) {
        let o = Orientation::of::<D>(dims);
        let layers_adjacent = axis_of(FACES[D].0) != Axis::Y;
        let class = if axis_of(FACES[D].0) == Axis::X { &self.along_z } else { &self.along_x };
        let (layer_uniformity, faces) = (&mut self.layer_uniformity, &mut self.faces);
        // The liquid rows are only written when this box's liquid faces are meshed; otherwise they
        // hold another box's faces.
        let wet = self.liquid_faces;
        // Every row visited (an interior row `i` of layers 1 to ny, and the row before it in its
        // slice) lies below `end`, checked once here for the unchecked accesses below.
        let end = (dims.ny + 1) * o.stride;
        assert!(faces.solid.len() >= end && faces.along.len() >= end && faces.across.len() >= end && (!wet || faces.liquid.len() >= end), "merge mask rows out of range");
        let row_mask = if o.rows >= 64 { !0 } else { (1u64 << o.rows) - 1 };
        for y in 1..=dims.ny {
            let base = y * o.stride;
            // Uniformity along the row axis of the previous row of this layer (y directions).
            let mut previous_row = 0u64;
            let mut rows_left = faces.layer_rows[y - 1] & row_mask;
            while rows_left != 0 {
                let w = rows_left.trailing_zeros() as usize + 1;
                rows_left &= rows_left - 1;
                let i = base + w;
                // Solid faces, and all faces, back in padded bits (the face arrays hold bit b - 1).
                // SAFETY: `r` is `i` (at most `ny * stride + rows`) or the row before it in its
                // slice, below `end` (checked above, the liquid rows when `wet`).
                let faces_at = |r: usize| unsafe { (*faces.solid.get_unchecked(r) << 1, (*faces.solid.get_unchecked(r) | if wet { *faces.liquid.get_unchecked(r) } else { 0 }) << 1) };
                let (solid_here, here) = faces_at(i);
                // Without AO every face is uniform: only the blocks decide.
                let (uniform_u, uniform_v) = if AO { ao_uniformity(neighbours_in_front::<D>(&class.solid, i, o), solid_here) } else { (!0, !0) };
                let (along_bits, along_rows) = if o.u_along_bits { (uniform_u, uniform_v) } else { (uniform_v, uniform_u) };
                // Two neighbouring faces merge when both are uniform towards each other and they
                // hold the same block. Along the row: this row against itself shifted. Across:
                // against the previous row of the slice, in this layer (y directions) or the
                // previous one. (A row without faces leaves no candidates.)
                let voxel = o.data_base(y, w, dims);
                let along = here & (here >> 1) & along_bits & (along_bits >> 1);
                let along_mask = same_blocks::<WIDE>(data, voxel, voxel + o.data_bit_step, o.data_bit_step, along) >> 1;
                let (previous, uniform_before) = if layers_adjacent { (i - o.stride, layer_uniformity[w - 1]) } else { (i - 1, previous_row) };
                let across = faces_at(previous).1 & here & uniform_before & along_rows;
                let across_mask = same_blocks::<WIDE>(data, voxel - o.data_row_step, voxel, o.data_bit_step, across) >> 1;
                // SAFETY: `i` and `previous` are below `end`, as above.
                unsafe {
                    *faces.along.get_unchecked_mut(i) = along_mask;
                    *faces.across.get_unchecked_mut(previous) = across_mask;
                }
                if layers_adjacent {
                    layer_uniformity[w - 1] = along_rows;
                } else {
                    previous_row = along_rows;
                }
            }
        }
    }

    /// Collision triangles of direction `D`: solid faces only, merged by solidity alone.
    #[inline(always)]
    fn collision_direction<const D: usize>(&mut self, dims: Dims, out: &mut Vec<[f32; 3]>) {
        if !self.collect_faces::<D, true>(dims).0 {
            return;
        }
        let f = &mut self.faces;
        let t = QUAD_TRIANGLES[counter_clockwise::<D>() as usize][0].map(|t| t as usize);
        merge_faces::<true>(&mut f.solid, &[], &[], SliceLayout::of::<D>(dims), &f.slice_rows, |quad| {
            let c = QuadPlacement::new::<D>(quad).corners::<D>();
            out.extend_from_slice(&[c[t[0]], c[t[1]], c[t[2]], c[t[3]], c[t[4]], c[t[5]]]);
        });
    }
}

/// Whether the corners `(0,0), (1,0), (1,1), (0,1)` of direction `D` run counter-clockwise
/// around its normal.
const fn counter_clockwise<const D: usize>() -> bool {
    let (n, u, v) = FACES[D];
    // (u × v) · n
    (u.y * v.z - u.z * v.y) * n.x + (u.z * v.x - u.x * v.z) * n.y + (u.x * v.y - u.y * v.x) * n.z > 0
}

/// A merged quad in voxel terms: its first face's voxel (padded coordinates) and its extents along
/// the face's `u` and `v` axes.
struct QuadPlacement {
    voxel: [usize; 3],
    extent_u: usize,
    extent_v: usize,
}

impl QuadPlacement {
    /// From slice coordinates (see [`SliceLayout`]) for direction `D`.
    #[inline(always)]
    fn new<const D: usize>(quad: SliceQuad) -> Self {
        let SliceQuad { layer, row, bit, width, height } = quad;
        let (voxel, extent_u, extent_v) = match axis_of(FACES[D].0) {
            Axis::X => ([layer + 1, row + 1, bit + 1], height, width),
            Axis::Y => ([bit + 1, layer + 1, row + 1], width, height),
            Axis::Z => ([bit + 1, row + 1, layer + 1], width, height),
        };
        Self { voxel, extent_u, extent_v }
    }

    /// Corners `(0,0), (1,0), (1,1), (0,1)` in `u`, `v` units, relative to the chunk's minimum
    /// corner.
    #[inline(always)]
    fn corners<const D: usize>(&self) -> [[f32; 3]; 4] {
        let (normal, u, v) = FACES[D];
        let (ui, vi) = (axis_index(u), axis_index(v));
        let lift = [normal.x.max(0), normal.y.max(0), normal.z.max(0)];
        // Padded voxel − 1 + lift: the face plane's corner.
        let corner = |k: usize| (self.voxel[k] as i32 - 1 + lift[k]) as f32;
        let p0 = [corner(0), corner(1), corner(2)];
        let (eu, ev) = (self.extent_u as f32, self.extent_v as f32);
        let mut p1 = p0;
        p1[ui] += eu;
        let mut p2 = p1;
        p2[vi] += ev;
        let mut p3 = p0;
        p3[vi] += ev;
        [p0, p1, p2, p3]
    }
}

/// What step 5 reads to colour a quad.
#[derive(Clone, Copy)]
struct QuadLooks<'a> {
    /// The voxels (for the block of a quad's first face).
    data: &'a [BlockId],
    /// See [`Mesher::colors`].
    colors: &'a [[[[u8; 4]; 4]; 6]],
    /// Solid rows of the direction's orientation, `stride` rows per y layer (for AO).
    solid: &'a [u64],
    dims: Dims,
    stride: usize,
}

/// Step 5: appends the quads of direction `D` to a surface as step 4 merges them: solid quads
/// (`SOLID`) with their AO in the corner colours and the split it asks for, liquid ones with flat
/// colours. The arrays grow a few hundred quads at a time and are written past their lengths,
/// which [`QuadWriter::finish`] (or the next growth) sets.
struct QuadWriter<'a, const D: usize, const SOLID: bool, const WIDE: bool, const AO: bool> {
    surface: &'a mut MeshSurface,
    looks: QuadLooks<'a>,
    /// Where the next quad's first vertex and first index go (the vertex arrays' lengths and
    /// the index array's, plus the quads written past them).
    vertex: usize,
    index: usize,
    /// Every array has capacity for the quads before this vertex.
    vertex_limit: usize,
}

/// How many quads [`QuadWriter`] makes room for at a time (at least).
const QUADS_PER_GROWTH: usize = 256;

impl<'a, const D: usize, const SOLID: bool, const WIDE: bool, const AO: bool> QuadWriter<'a, D, SOLID, WIDE, AO> {
    #[inline(always)]
    fn new(surface: &'a mut MeshSurface, looks: QuadLooks<'a>) -> Self {
        let QuadLooks { data, solid, dims: Dims { px, py, pz, .. }, stride, .. } = looks;
        // Every quad's first face is an interior voxel (step 4 takes slices, rows and bits of the
        // interior only), so its voxel and the rows of the window in front of it lie inside the
        // padded box: checked here once for the unchecked reads in `write`.
        assert!(data.len() >= px * py * pz && solid.len() >= py * stride, "voxels or solid rows short of the padded box");
        let MeshSurface { positions, directions, colors, indices } = &*surface;
        // The three vertex arrays grow in step (a quad's vertices go to the same slots in each).
        assert!(directions.len() == positions.len() && colors.len() == positions.len(), "vertex arrays of different lengths");
        let (vertex, index) = (positions.len(), indices.len());
        Self { surface, looks, vertex, index, vertex_limit: vertex }
    }

    /// Sets the arrays' lengths to take in the pending quads, and makes room for more.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        self.finish();
        let MeshSurface { positions, directions, colors, indices } = &mut *self.surface;
        positions.reserve(4 * QUADS_PER_GROWTH);
        directions.reserve(4 * QUADS_PER_GROWTH);
        colors.reserve(4 * QUADS_PER_GROWTH);
        indices.reserve(6 * QUADS_PER_GROWTH);
        let spare = |v: usize, per_quad: usize| v / per_quad;
        let room = spare(positions.capacity() - self.vertex, 4)
            .min(spare(directions.capacity() - self.vertex, 4))
            .min(spare(colors.capacity() - self.vertex, 4))
            .min(spare(indices.capacity() - self.index, 6));
        self.vertex_limit = self.vertex + 4 * room;
    }

    /// Sets the arrays' lengths to take in the quads written so far.
    #[inline(always)]
    fn finish(&mut self) {
        let MeshSurface { positions, directions, colors, indices } = &mut *self.surface;
        // SAFETY: `write` wrote every slot from each array's length up to `vertex` (`index` for
        // the indices), inside its capacity (below `vertex_limit`).
        unsafe {
            positions.set_len(self.vertex);
            directions.set_len(self.vertex);
            colors.set_len(self.vertex);
            indices.set_len(self.index);
        }
    }

    /// Writes one quad past the pending ones.
    #[inline(always)]
    fn write(&mut self, quad: SliceQuad) {
        if self.vertex == self.vertex_limit {
            self.grow();
        }
        let QuadLooks { data, colors, solid, dims: Dims { px, pz, .. }, stride } = self.looks;
        let last_id = colors.len() - 1;
        let triangles = &QUAD_TRIANGLES_PADDED[counter_clockwise::<D>() as usize];
        let placement = QuadPlacement::new::<D>(quad);
        let [x, y, z] = placement.voxel;
        // SAFETY: the voxel is inside the padded box (checked in `new`), and the id is clamped to
        // the last entry of `colors`.
        let shades = unsafe { &colors.get_unchecked((*data.get_unchecked((y * pz + z) * px + x) as usize).min(last_id))[D] };
        let corners = placement.corners::<D>();
        // Whole chunks at a time, so they go out in wide stores.
        let (corner_colors, split) = if SOLID && AO {
            // SAFETY: an interior voxel, and `solid` covers the padded box (checked in `new`).
            let ao = unsafe { ao_of_face::<D>(solid, placement.voxel, stride) } as usize;
            (corner_shades::<WIDE>(shades, ao), &triangles[AO_FLIP[ao] as usize])
        } else {
            ([shades[AO_OPEN]; 4], &triangles[0])
        };
        let MeshSurface { positions, directions, colors: surface_colors, indices } = &mut *self.surface;
        let (at, at_index) = (self.vertex, self.index);
        let first = at as i32;
        // SAFETY: `vertex` is below `vertex_limit`, so each array has capacity for this quad's
        // slots at `vertex` (`index`); all are plain values, written whole, and `finish` counts
        // them in.
        unsafe {
            positions.as_mut_ptr().add(at).cast::<[[f32; 3]; 4]>().write(corners);
            directions.as_mut_ptr().add(at).cast::<[u8; 4]>().write([D as u8; 4]);
            surface_colors.as_mut_ptr().add(at).cast::<[[u8; 4]; 4]>().write(corner_colors);
            quad_indices(&mut *indices.as_mut_ptr().add(at_index).cast::<[MaybeUninit<i32>; 6]>(), split, first);
        }
        self.vertex += 4;
        self.index += 6;
    }
}

/// Bit `k` set where `data[a + k step] == data[b + k step]`, for `k` below `8 groups` (groups of
/// eight gathered lanes).
///
/// # Safety
/// The CPU must have AVX2, and `data` must hold the ids at `a, b + k step` and the one after each
/// (the gathers read 32 bits at every id).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn equal_ids_strided(data: &[BlockId], a: usize, b: usize, step: usize, groups: usize) -> u64 {
    use std::arch::x86_64::{_mm256_and_si256, _mm256_castsi256_ps, _mm256_cmpeq_epi32, _mm256_i32gather_epi32, _mm256_movemask_ps, _mm256_set1_epi32, _mm256_setr_epi32, _mm256_setzero_si256, _mm256_xor_si256};
    let s = step as i32;
    let lanes = _mm256_setr_epi32(0, s, 2 * s, 3 * s, 4 * s, 5 * s, 6 * s, 7 * s);
    let id_bits = _mm256_set1_epi32(0xFFFF);
    let mut mask = 0u64;
    for g in 0..groups {
        let at = 8 * g * step;
        // SAFETY: the caller's promise: lanes `a (b) + at + k step` and the ids after them are in
        // `data` (a scale of 2 bytes per id).
        let (x, y) = unsafe { (_mm256_i32gather_epi32::<2>(data.as_ptr().add(a + at).cast::<i32>(), lanes), _mm256_i32gather_epi32::<2>(data.as_ptr().add(b + at).cast::<i32>(), lanes)) };
        // Only the low 16 bits of each lane are the id.
        let same = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_xor_si256(x, y), id_bits), _mm256_setzero_si256());
        mask |= (_mm256_movemask_ps(_mm256_castsi256_ps(same)) as u32 as u64) << (8 * g);
    }
    mask
}

/// Bit `k` set where `x[k] == y[k]`, for two runs of 64 ids.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn equal_ids_64(x: &[BlockId], y: &[BlockId]) -> u64 {
    use std::arch::x86_64::{__m256i, _mm256_cmpeq_epi16, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_packs_epi16, _mm256_permute4x64_epi64};
    let (x, y) = (&x[..64], &y[..64]);
    let mut mask = 0u64;
    for half in 0..2 {
        // SAFETY: each load reads 16 ids at `32 half (+ 16)`, inside the 64 of `x` and `y`.
        let equal = |o: usize| unsafe { _mm256_cmpeq_epi16(_mm256_loadu_si256(x.as_ptr().add(o).cast::<__m256i>()), _mm256_loadu_si256(y.as_ptr().add(o).cast::<__m256i>())) };
        // Packing interleaves the two 16-lane halves by 64 bits; the permute puts ids back in order.
        let bytes = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packs_epi16(equal(32 * half), equal(32 * half + 16)));
        mask |= (_mm256_movemask_epi8(bytes) as u32 as u64) << (32 * half);
    }
    mask
}

/// [`QUAD_TRIANGLES`], each padded to two groups of four (the last two unused).
static QUAD_TRIANGLES_PADDED: [[[i32; 8]; 2]; 2] = {
    let mut t = [[[0; 8]; 2]; 2];
    let mut c = 0;
    while c < 2 {
        let mut f = 0;
        while f < 2 {
            let mut k = 0;
            while k < 6 {
                t[c][f][k] = QUAD_TRIANGLES[c][f][k];
                k += 1;
            }
            f += 1;
        }
        c += 1;
    }
    t
};

/// Writes a quad's six indices: its first vertex `first` plus each of `split`'s first six.
#[inline(always)]
fn quad_indices(out: &mut [MaybeUninit<i32>; 6], split: &[i32; 8], first: i32) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128i, _mm_add_epi32, _mm_loadu_si128, _mm_set1_epi32, _mm_storel_epi64, _mm_storeu_si128};
        // SSE2, which every x86-64 CPU has: two adds of four lanes, stores of four and two.
        // SAFETY: the loads read `split`'s 8 values; the stores write `out`'s slots 0..4 and 4..6.
        unsafe {
            let base = _mm_set1_epi32(first);
            let lo = _mm_add_epi32(_mm_loadu_si128(split.as_ptr().cast::<__m128i>()), base);
            let hi = _mm_add_epi32(_mm_loadu_si128(split.as_ptr().add(4).cast::<__m128i>()), base);
            _mm_storeu_si128(out.as_mut_ptr().cast::<__m128i>(), lo);
            _mm_storel_epi64(out.as_mut_ptr().add(4).cast::<__m128i>(), hi);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        *out = std::array::from_fn(|k| MaybeUninit::new(split[k] + first));
    }
}

/// The four corner colours of a solid face with packed AO `ao`: corner `k` takes the shade of its
/// level (bits `2k`, `2k + 1`). `WIDE` (only in the AVX2 build) picks all four bytes at once.
#[inline(always)]
fn corner_shades<const WIDE: bool>(shades: &[[u8; 4]; 4], ao: usize) -> [[u8; 4]; 4] {
    #[cfg(target_arch = "x86_64")]
    if WIDE {
        // SAFETY: `WIDE` code runs only on CPUs with AVX2 (checked at run time), so with SSSE3.
        return unsafe { corner_shades_ssse3(shades, ao) };
    }
    [0, 2, 4, 6].map(|k| shades[(ao >> k) & 3])
}

/// [`corner_shades`] as one byte shuffle of the 16 shade bytes by [`AO_SHADE_SHUFFLE`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
#[inline]
fn corner_shades_ssse3(shades: &[[u8; 4]; 4], ao: usize) -> [[u8; 4]; 4] {
    use std::arch::x86_64::{__m128i, _mm_shuffle_epi8};
    // SAFETY: both are 16 plain bytes, the size of `__m128i`, and any bits are valid in each.
    let (table, pick) = unsafe { (std::mem::transmute::<[[u8; 4]; 4], __m128i>(*shades), std::mem::transmute::<[u8; 16], __m128i>(AO_SHADE_SHUFFLE[ao & 255])) };
    // SAFETY: as above.
    unsafe { std::mem::transmute::<__m128i, [[u8; 4]; 4]>(_mm_shuffle_epi8(table, pick)) }
}

/// For packed AO `p`, the byte shuffle that gives each corner `k` (bytes `4k..4k + 4`) the four
/// bytes of the shade of its level (bytes `4 level..4 level + 4` of the shades).
#[cfg(target_arch = "x86_64")]
static AO_SHADE_SHUFFLE: [[u8; 16]; 256] = {
    let mut t = [[0u8; 16]; 256];
    let mut p = 0;
    while p < 256 {
        let mut k = 0;
        while k < 4 {
            let level = (p >> (2 * k)) & 3;
            let mut j = 0;
            while j < 4 {
                t[p][4 * k + j] = (4 * level + j) as u8;
                j += 1;
            }
            k += 1;
        }
        p += 1;
    }
    t
};

/// Step 4: greedy merge of one direction's faces, slice by slice: from the lowest face left, the
/// run along the row while `along` allows, then the next rows while they hold the whole run and
/// `across` allows. Only the rows marked in `slice_rows` (per slice) are visited. The quads go to
/// `emit` in slice, row, bit order. Clears the bits of `faces` that later rows'
/// quads take. With `ANY`, every face merges with every neighbouring face (`along` and `across`
/// are not read).
#[inline(always)]
fn merge_faces<const ANY: bool>(faces: &mut [u64], along: &[u64], across: &[u64], layout: SliceLayout, slice_rows: &[u64], mut emit: impl FnMut(SliceQuad)) {
    let SliceLayout { origin, layers, rows, layer_step, row_step } = layout;
    // Every row of every slice lies below `end`, checked once here for the unchecked reads
    // below.
    let end = origin + layers.saturating_sub(1) * layer_step + rows.saturating_sub(1) * row_step + 1;
    assert!(faces.len() >= end && (ANY || (along.len() >= end && across.len() >= end)), "merge rows out of range");
    // Only rows below `rows` (so below `end`) are visited.
    let row_mask = if rows >= 64 { !0 } else { (1u64 << rows) - 1 };
    for (layer, &occupied) in slice_rows[..layers].iter().enumerate() {
        let mut rows_left = occupied & row_mask;
        while rows_left != 0 {
            let r = rows_left.trailing_zeros() as usize;
            rows_left &= rows_left - 1;
            let ri = origin + layer * layer_step + r * row_step;
            // SAFETY: row `r` of slice `layer` is below `end` (checked above against all three
            // arrays).
            let (mut bits, joins) = unsafe { (*faces.get_unchecked(ri), if ANY { !0 } else { *along.get_unchecked(ri) }) };
            if bits == 0 {
                continue;
            }
            while bits != 0 {
                let b = bits.trailing_zeros() as usize;
                // Bit k of `cont`: faces k and k + 1 are both left and may merge.
                let cont = joins & bits & (bits >> 1);
                let w = (!(cont >> b)).trailing_zeros() as usize + 1;
                let run = ((1u64 << w) - 1) << b;
                bits &= !run;
                let mut h = 1;
                let mut rj = ri;
                while r + h < rows {
                    let next = rj + row_step;
                    // SAFETY: `rj` and `next` are rows `r + h - 1` and `r + h` of this slice, both
                    // below `rows`, so below `end` (checked above against all three arrays).
                    let (below, down) = unsafe { (faces.get_unchecked_mut(next), if ANY { !0 } else { *across.get_unchecked(rj) }) };
                    if *below & run != run || down & run != run {
                        break;
                    }
                    *below &= !run;
                    rj = next;
                    h += 1;
                }
                emit(SliceQuad { layer, row: r, bit: b, width: w, height: h });
            }
        }
    }
}

/// Row `w` shifted so bit `b` holds the voxel at `b + db` (`db` in -1..=1).
#[inline(always)]
fn shift_bits(w: u64, db: i32) -> u64 {
    match db {
        1 => w >> 1,
        -1 => w << 1,
        _ => w,
    }
}

/// The solid rows of the eight neighbours in [`NEIGHBOURS`] order in the layer in front of the
/// faces of direction `D` of padded row `i`, aligned so bit `b` is the neighbour of face `b`.
#[inline(always)]
fn neighbours_in_front<const D: usize>(solid: &[u64], i: usize, o: Orientation) -> [u64; 8] {
    let (front, step) = ((i as isize + o.across) as usize, o.row_step as usize);
    // Three rows (one step each way along the axis that is not the bits), each shifted along the
    // bits; one range check for the three.
    let window = &solid[front - step..=front + step];
    let rows = [window[0], window[step], window[2 * step]];
    let mut around = [0u64; 8];
    for (n, &(du, dv)) in around.iter_mut().zip(&NEIGHBOURS) {
        let (along_rows, along_bits) = if o.u_along_bits { (dv, du) } else { (du, dv) };
        *n = shift_bits(rows[(along_rows + 1) as usize], along_bits);
    }
    around
}

/// Packed AO (see [`AO_WINDOW`]) of the face of direction `D` at padded voxel `voxel`, from the
/// solid rows of its orientation (`stride` rows per y layer).
///
/// # Safety
/// `voxel` must be an interior voxel of the padded box, and `solid` must hold all its rows
/// (`py * stride`), so the three rows of the window in front are inside `solid`.
#[inline(always)]
unsafe fn ao_of_face<const D: usize>(solid: &[u64], [x, y, z]: [usize; 3], stride: usize) -> u8 {
    let normal = FACES[D].0;
    let (front_y, front_x, front_z) = ((y as i32 + normal.y) as usize, (x as i32 + normal.x) as usize, (z as i32 + normal.z) as usize);
    // Three rows of the 3×3 window in front (the first, and the step to the next), three bits
    // from each.
    let (first, step, bit) = match axis_of(normal) {
        // Rows (y, x) along z: y steps (u), bits z (v).
        Axis::X => ((front_y - 1) * stride + front_x, stride, front_z),
        // Rows (y, z) along x: z steps (v), bits x (u).
        Axis::Y => (front_y * stride + front_z - 1, 1, front_x),
        // Rows (y, z) along x: y steps (v), bits x (u).
        Axis::Z => ((front_y - 1) * stride + front_z, stride, front_x),
    };
    debug_assert!(first + 2 * step < solid.len());
    // SAFETY: the window's rows are those of the padded box around an interior voxel, inside
    // `solid` (the caller's promise).
    let row = |k: usize| unsafe { *solid.get_unchecked(first + k * step) };
    let window = [row(0), row(1), row(2)].iter().enumerate().fold(0, |w, (k, &r)| w | (((r >> (bit - 1)) & 7) as usize) << (3 * k));
    // The x directions' windows come with u and v swapped.
    if axis_of(normal) == Axis::X { AO_WINDOW_UV_SWAPPED[window] } else { AO_WINDOW[window] }
}

/// AO uniformity of a row of faces, from the eight neighbour rows in front (aligned, in
/// [`NEIGHBOURS`] order): bit `b` of the first mask is set where face `b` has the same AO level at
/// both ends of its edges along `u` (corners 0 = 1 and 3 = 2), of the second where it has along
/// `v` (corners 0 = 3 and 1 = 2); both are set where there is no solid face (`solid_faces`).
///
/// This is all the merge needs: for solid faces, a corner's level depends only on the four
/// voxels around that vertex in the layer in front (the face's own front voxel is never solid),
/// so two faces side by side in a slice always agree on their two shared corners, and their four
/// levels are equal exactly when both are uniform along the direction that joins them.
#[inline(always)]
fn ao_uniformity(around: [u64; 8], solid_faces: u64) -> (u64, u64) {
    let mut lo = [0u64; 4];
    let mut hi = [0u64; 4];
    for (k, &(a, b, c)) in CORNER_NEIGHBOURS.iter().enumerate() {
        let (s1, s2, d) = (around[a], around[b], around[c]);
        let both = s1 & s2;
        // `3 - level` in two bits: 3 when both sides are solid, else the number of occluders.
        lo[k] = (s1 ^ s2 ^ d) | both;
        hi[k] = both | (d & (s1 | s2));
    }
    let differ = |p: usize, q: usize| (lo[p] ^ lo[q]) | (hi[p] ^ hi[q]);
    let no_ao = !solid_faces;
    (!(differ(0, 1) | differ(3, 2)) | no_ao, !(differ(0, 3) | differ(1, 2)) | no_ao)
}

/// Up to this many candidates, [`same_blocks`] compares strided voxels one by one.
const FEW_CANDIDATES: u32 = 6;

/// `candidates` (bits `b` of a padded row) less the bits where the voxels at `a + b * step` and
/// `b + b * step` hold different blocks. `WIDE` (only in the AVX2 build) compares a contiguous
/// row (`step` 1) 64 voxels at a time, and a strided one with more than [`FEW_CANDIDATES`]
/// candidates in groups of eight gathered lanes.
#[inline(always)]
fn same_blocks<const WIDE: bool>(data: &[BlockId], a: usize, b: usize, step: usize, candidates: u64) -> u64 {
    // The wide compares read every lane instead of branching on each candidate (whose number
    // the branch predictor cannot guess).
    #[cfg(target_arch = "x86_64")]
    if WIDE && candidates != 0 {
        let far = a.max(b);
        if step == 1 && far + 64 <= data.len() {
            // SAFETY: `WIDE` code runs only on CPUs with AVX2 (checked at run time).
            return candidates & unsafe { equal_ids_64(&data[a..a + 64], &data[b..b + 64]) };
        }
        let groups = (64 - candidates.leading_zeros() as usize).div_ceil(8);
        // A few candidates are cheaper one by one than whole groups of gathered lanes.
        if step > 1 && candidates.count_ones() > FEW_CANDIDATES && far + (8 * groups - 1) * step + 2 <= data.len() {
            // SAFETY: AVX2 as above; the gathers read ids `a, b + k step (+ 1)` for k below
            // `8 groups`, inside `data` (checked just above).
            return candidates & unsafe { equal_ids_strided(data, a, b, step, groups) };
        }
    }
    let mut kept = candidates;
    let mut left = candidates;
    while left != 0 {
        let k = left.trailing_zeros() as usize;
        left &= left - 1;
        kept &= !(((data[a + k * step] != data[b + k * step]) as u64) << k);
    }
    kept
}

/// Transposes the rows along x of `rows` (index `y * pz + z`, bit x) into rows along z of `out`
/// (index `y * px + x`, bit z), every padded layer: layers all empty or all full directly, the
/// others two at a time (four with `WIDE`, in the AVX2 build).
#[inline(always)]
fn transpose_layers<const WIDE: bool>(rows: &[u64], out: &mut Vec<u64>, Dims { px, py, pz, .. }: Dims) {
    if out.len() < py * px {
        out.resize(py * px, 0);
    }
    let full_x = if px == 64 { !0 } else { (1u64 << px) - 1 };
    let full_z = if pz == 64 { !0 } else { (1u64 << pz) - 1 };
    let lanes = if WIDE { 4 } else { 2 };
    let mut group = [0usize; 4];
    let mut waiting = 0;
    for y in 0..=py {
        if y < py {
            let layer = &rows[y * pz..y * pz + pz];
            let (any, all) = layer.iter().fold((0, !0), |(any, all), &r| (any | r, all & r));
            if any == 0 || all & full_x == full_x {
                out[y * px..y * px + px].fill(if any == 0 { 0 } else { full_z });
                continue;
            }
            group[waiting] = y;
            waiting += 1;
        }
        // A full group, or what is left at the end.
        if waiting == lanes || (y == py && waiting > 0) {
            #[cfg(target_arch = "x86_64")]
            if WIDE && pz <= 32 + MAX_EXTRA_ROWS {
                // SAFETY: `WIDE` is only set in the builds compiled for AVX2, which run only on
                // CPUs that have it.
                unsafe { transpose_layers_4_wide(rows, out, &group[..waiting], px, pz) };
                waiting = 0;
                continue;
            }
            let inputs: [&[u64]; 4] = std::array::from_fn(|k| if k < waiting { &rows[group[k] * pz..group[k] * pz + pz] } else { &[] });
            let mut transposed = [[0u64; 4]; 64];
            #[cfg(target_arch = "x86_64")]
            if WIDE {
                // SAFETY: `WIDE` is only set in the builds compiled for AVX2 and BMI2, which run
                // only on CPUs that have them.
                unsafe { transpose_64x4_wide(inputs, &mut transposed) };
            } else {
                transpose_64x2(inputs, &mut transposed);
            }
            #[cfg(not(target_arch = "x86_64"))]
            transpose_64x2(inputs, &mut transposed);
            for (k, &layer) in group.iter().enumerate().take(waiting) {
                for (slot, row) in out[layer * px..layer * px + px].iter_mut().zip(&transposed) {
                    *slot = row[k];
                }
            }
            waiting = 0;
        }
    }
}

/// Rows past the first 32 that [`transpose_layers_4_wide`] takes (bit by bit).
const MAX_EXTRA_ROWS: usize = 8;

/// One round of a transpose of four bit matrices side by side (one AVX2 register per row, `N`
/// rows): block swaps between rows `r` and `r + J` (`r & J == 0`), `lo` = the columns without
/// bit `J`. Only for callers compiled for AVX2, into which it is inlined.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn transpose_round_wide<const J: i32, const N: usize>(v: &mut [std::arch::x86_64::__m256i; N], lo: u64) {
    use std::arch::x86_64::{_mm256_and_si256, _mm256_set1_epi64x, _mm256_slli_epi64, _mm256_srli_epi64, _mm256_xor_si256};
    // SAFETY: AVX2 register operations only; the callers are compiled for AVX2 and run only on
    // CPUs that have it.
    unsafe {
        let lo = _mm256_set1_epi64x(lo as i64);
        let j = J as usize;
        let mut base = 0;
        while base < N {
            for r in base..base + j {
                let t = _mm256_and_si256(_mm256_xor_si256(_mm256_srli_epi64::<J>(v[r]), v[r + j]), lo);
                v[r + j] = _mm256_xor_si256(v[r + j], t);
                v[r] = _mm256_xor_si256(v[r], _mm256_slli_epi64::<J>(t));
            }
            base += 2 * j;
        }
    }
}

/// Transposes the layers `layers` (one to four) of `rows` (`pz` rows of `px` bits each, `pz` at
/// most `32 + MAX_EXTRA_ROWS`) into `out` (`px` rows of `pz` bits each, at `layer * px`), one
/// layer per 64-bit lane: the last five rounds of [`transpose_64x2`] on the first 32 rows turn
/// both 32-bit halves into 32×32 transposes (row `c` holds column `c` in its low half and column
/// `32 + c` in its high half); the rows past 32 are added bit by bit.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn transpose_layers_4_wide(rows: &[u64], out: &mut [u64], layers: &[usize], px: usize, pz: usize) {
    use std::arch::x86_64::*;
    // Unused lanes repeat the first layer (and are not written out).
    let layer = |k: usize| layers.get(k).copied().unwrap_or(layers[0]);
    let inputs: [&[u64]; 4] = std::array::from_fn(|k| &rows[layer(k) * pz..layer(k) * pz + pz]);
    let row = |r: usize| _mm256_set_epi64x(inputs[3][r] as i64, inputs[2][r] as i64, inputs[1][r] as i64, inputs[0][r] as i64);
    let mut v = [_mm256_setzero_si256(); 32];
    for (r, slot) in v.iter_mut().enumerate().take(pz.min(32)) {
        *slot = row(r);
    }
    transpose_round_wide::<16, _>(&mut v, TRANSPOSE_LOW[1]);
    transpose_round_wide::<8, _>(&mut v, TRANSPOSE_LOW[2]);
    transpose_round_wide::<4, _>(&mut v, TRANSPOSE_LOW[3]);
    transpose_round_wide::<2, _>(&mut v, TRANSPOSE_LOW[4]);
    transpose_round_wide::<1, _>(&mut v, TRANSPOSE_LOW[5]);
    let extra = pz.saturating_sub(32);
    let mut extra_rows = [_mm256_setzero_si256(); MAX_EXTRA_ROWS];
    for (r, slot) in extra_rows.iter_mut().enumerate().take(extra) {
        *slot = row(32 + r);
    }
    let (low_half, one) = (_mm256_set1_epi64x(0xFFFF_FFFF), _mm256_set1_epi64x(1));
    // Column `c` of the four layers, one per lane.
    let column = |c: usize| {
        let mut w = if c < 32 { _mm256_and_si256(v[c], low_half) } else { _mm256_srli_epi64::<32>(v[c - 32]) };
        let at = _mm256_set1_epi64x(c as i64);
        for (r, &x) in extra_rows.iter().enumerate().take(extra) {
            // Bit `c` of row `32 + r` to bit `32 + r`.
            w = _mm256_or_si256(w, _mm256_sllv_epi64(_mm256_and_si256(_mm256_srlv_epi64(x, at), one), _mm256_set1_epi64x(32 + r as i64)));
        }
        w
    };
    // Four columns at a time: a 4×4 transpose of their lanes gives each layer's four output rows
    // in one register.
    let mut c = 0;
    while c + 4 <= px {
        let (w0, w1, w2, w3) = (column(c), column(c + 1), column(c + 2), column(c + 3));
        let (t0, t1, t2, t3) = (_mm256_unpacklo_epi64(w0, w1), _mm256_unpackhi_epi64(w0, w1), _mm256_unpacklo_epi64(w2, w3), _mm256_unpackhi_epi64(w2, w3));
        let by_layer = [_mm256_permute2x128_si256::<0x20>(t0, t2), _mm256_permute2x128_si256::<0x20>(t1, t3), _mm256_permute2x128_si256::<0x31>(t0, t2), _mm256_permute2x128_si256::<0x31>(t1, t3)];
        for (&l, &w) in layers.iter().zip(&by_layer) {
            let dst = &mut out[l * px + c..l * px + c + 4];
            // SAFETY: the store writes the 4 words (32 bytes) of `dst`, unaligned.
            unsafe { _mm256_storeu_si256(dst.as_mut_ptr().cast::<__m256i>(), w) };
        }
        c += 4;
    }
    for c in c..px {
        // SAFETY: `__m256i` and `[u64; 4]` are 32 plain bytes, any bits valid in each.
        let lanes = unsafe { std::mem::transmute::<__m256i, [u64; 4]>(column(c)) };
        for (&l, &bits) in layers.iter().zip(&lanes) {
            out[l * px + c] = bits;
        }
    }
}

/// Transposes four bit matrices of up to 64 rows of 64 bits (shorter ones read as zero rows):
/// bit `c` of `inputs[k][r]` moves to bit `r` of `out[c][k]`. The rounds of [`transpose_64x2`],
/// four matrices side by side in one AVX2 register per row.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn transpose_64x4_wide(inputs: [&[u64]; 4], out: &mut [[u64; 4]; 64]) {
    use std::arch::x86_64::*;
    let rows = inputs.iter().map(|m| m.len()).max().unwrap_or(0);
    let mut v = [_mm256_setzero_si256(); 64];
    for (r, slot) in v.iter_mut().enumerate().take(rows) {
        let lane = |k: usize| inputs[k].get(r).copied().unwrap_or(0) as i64;
        *slot = _mm256_set_epi64x(lane(3), lane(2), lane(1), lane(0));
    }
    transpose_round_wide::<32, _>(&mut v, TRANSPOSE_LOW[0]);
    transpose_round_wide::<16, _>(&mut v, TRANSPOSE_LOW[1]);
    transpose_round_wide::<8, _>(&mut v, TRANSPOSE_LOW[2]);
    transpose_round_wide::<4, _>(&mut v, TRANSPOSE_LOW[3]);
    transpose_round_wide::<2, _>(&mut v, TRANSPOSE_LOW[4]);
    transpose_round_wide::<1, _>(&mut v, TRANSPOSE_LOW[5]);
    for (row, w) in out.iter_mut().zip(v) {
        // SAFETY: the store writes the 32 bytes of `row`, unaligned.
        unsafe { _mm256_storeu_si256(row.as_mut_ptr() as *mut __m256i, w) };
    }
}

/// The columns without bit `j` in the rounds of the 64×64 transposes, for `j` = 32, 16, …, 1.
const TRANSPOSE_LOW: [u64; 6] = [0x0000_0000_FFFF_FFFF, 0x0000_FFFF_0000_FFFF, 0x00FF_00FF_00FF_00FF, 0x0F0F_0F0F_0F0F_0F0F, 0x3333_3333_3333_3333, 0x5555_5555_5555_5555];

/// Transposes the first two of `inputs`, bit matrices of up to 64 rows of 64 bits (shorter
/// ones read as zero rows): bit `c` of `inputs[k][r]` moves to bit `r` of `out[c][k]`. At step
/// `j` (halving from 32), rows `r` and `r + j` (`r & j == 0`) swap the columns with bit `j` set
/// in `r` for those without it in `r + j`, both matrices side by side in one SSE2 register per
/// row.
#[inline(always)]
fn transpose_64x2(inputs: [&[u64]; 4], out: &mut [[u64; 4]; 64]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        /// One round of block swaps between rows `r` and `r + J`, `lo` = the columns without bit `J`.
        #[inline(always)]
        fn round<const J: i32>(v: &mut [__m128i; 64], lo: u64) {
            // SAFETY: SSE2 register operations only, part of the x86_64 baseline.
            unsafe {
                let lo = _mm_set1_epi64x(lo as i64);
                let j = J as usize;
                let mut base = 0;
                while base < 64 {
                    for r in base..base + j {
                        let t = _mm_and_si128(_mm_xor_si128(_mm_srli_epi64::<J>(v[r]), v[r + j]), lo);
                        v[r + j] = _mm_xor_si128(v[r + j], t);
                        v[r] = _mm_xor_si128(v[r], _mm_slli_epi64::<J>(t));
                    }
                    base += 2 * j;
                }
            }
        }
        // SAFETY (every block below): SSE2 register operations only, part of the x86_64 baseline.
        let mut v = [unsafe { _mm_setzero_si128() }; 64];
        for (r, slot) in v.iter_mut().enumerate().take(inputs[0].len().max(inputs[1].len())) {
            let lane = |m: &[u64]| m.get(r).copied().unwrap_or(0) as i64;
            *slot = unsafe { _mm_set_epi64x(lane(inputs[1]), lane(inputs[0])) };
        }
        round::<32>(&mut v, TRANSPOSE_LOW[0]);
        round::<16>(&mut v, TRANSPOSE_LOW[1]);
        round::<8>(&mut v, TRANSPOSE_LOW[2]);
        round::<4>(&mut v, TRANSPOSE_LOW[3]);
        round::<2>(&mut v, TRANSPOSE_LOW[4]);
        round::<1>(&mut v, TRANSPOSE_LOW[5]);
        for (row, &w) in out.iter_mut().zip(&v) {
            *row = [unsafe { _mm_cvtsi128_si64(w) } as u64, unsafe { _mm_cvtsi128_si64(_mm_unpackhi_epi64(w, w)) } as u64, 0, 0];
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        for (k, input) in inputs.iter().enumerate().take(2) {
            let mut m = [0u64; 64];
            m[..input.len()].copy_from_slice(input);
            let mut j = 32;
            for lo in TRANSPOSE_LOW {
                let mut base = 0;
                while base < 64 {
                    for r in base..base + j {
                        let t = ((m[r] >> j) ^ m[r + j]) & lo;
                        m[r + j] ^= t;
                        m[r] ^= t << j;
                    }
                    base += 2 * j;
                }
                j /= 2;
            }
            for (row, w) in out.iter_mut().zip(m) {
                row[k] = w;
            }
        }
    }
}

/// Bits `[start, start + 64)` of the bit stream `words` (which has a spare word at the end),
/// masked by `full`.
#[inline(always)]
fn bit_range(words: &[u64], start: usize, full: u64) -> u64 {
    let (i, off) = (start / 64, (start % 64) as u32);
    // `hi << 1 << (63 - off)`: no shift by 64 when `off` is 0.
    ((words[i] >> off) | (words[i + 1] << 1 << (63 - off))) & full
}

/// Step 1's compares over the flat voxel array, 64 voxels a word (each with a spare zero word at
/// the end): equal to air into `air`, equal to `liquid` into `liquid`.
#[inline(always)]
fn flat_masks(data: &[BlockId], liquid: BlockId, air_out: &mut Vec<u64>, liquid_out: &mut Vec<u64>) {
    air_out.clear();
    liquid_out.clear();
    let mut chunks = data.chunks_exact(64);
    for chunk in &mut chunks {
        let (air, liquid) = eq_masks_64(chunk.try_into().expect("64 voxels"), block::AIR, liquid);
        air_out.push(air);
        liquid_out.push(liquid);
    }
    let tail = chunks.remainder();
    air_out.extend([tail.iter().enumerate().fold(0, |m, (k, &id)| m | ((id == block::AIR) as u64) << k), 0]);
    liquid_out.extend([tail.iter().enumerate().fold(0, |m, (k, &id)| m | ((id == liquid) as u64) << k), 0]);
}

/// Class rows of the voxels `data`, rows of `px` ids (16 to 64), when the only non-solid ids
/// are air and `liquid_id`: each row in blocks of 16 ids (the last one overlapping the one
/// before when `px` is not a multiple of 16), compared with AVX2, the byte masks squeezed to one
/// bit per id with BMI2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi2")]
fn class_rows_wide(data: &[BlockId], px: usize, liquid_id: BlockId, solid: &mut [u64], liquid: &mut [u64], air: &mut [u64]) {
    /// Rows of `BLOCKS` blocks.
    #[inline(always)]
    fn rows_of<const BLOCKS: usize>(data: &[BlockId], px: usize, liquid_id: BlockId, solid: &mut [u64], liquid: &mut [u64], air: &mut [u64]) {
        use std::arch::x86_64::*;
        let full = if px == 64 { !0u64 } else { (1u64 << px) - 1 };
        // SAFETY (both): AVX2 register operations only; this runs inside `class_rows_wide`.
        let (air_ids, liquid_ids) = unsafe { (_mm256_set1_epi16(block::AIR as i16), _mm256_set1_epi16(liquid_id as i16)) };
        let starts: [usize; BLOCKS] = std::array::from_fn(|k| (16 * k).min(px - 16));
        for (((row, s), l), a) in data.chunks_exact(px).zip(solid).zip(liquid).zip(air) {
            let (mut air_mask, mut liquid_mask) = (0u64, 0u64);
            for &at in &starts {
                let ids = &row[at..at + 16];
                // SAFETY: AVX2 and BMI2 as above; the load reads the 16 ids (32 bytes) of `ids`.
                let (on_air, on_liquid) = unsafe {
                    let v = _mm256_loadu_si256(ids.as_ptr() as *const __m256i);
                    // Bytes: ids 0–7 air, 0–7 liquid, 8–15 air, 8–15 liquid.
                    let both = _mm256_movemask_epi8(_mm256_packs_epi16(_mm256_cmpeq_epi16(v, air_ids), _mm256_cmpeq_epi16(v, liquid_ids))) as u32;
                    (_pext_u32(both, 0x00FF_00FF) as u64, _pext_u32(both, 0xFF00_FF00) as u64)
                };
                air_mask |= on_air << at;
                liquid_mask |= on_liquid << at;
            }
            *a = air_mask;
            *l = liquid_mask;
            *s = !(air_mask | liquid_mask) & full;
        }
    }
    match px.div_ceil(16) {
        1 => rows_of::<1>(data, px, liquid_id, solid, liquid, air),
        2 => rows_of::<2>(data, px, liquid_id, solid, liquid, air),
        3 => rows_of::<3>(data, px, liquid_id, solid, liquid, air),
        _ => rows_of::<4>(data, px, liquid_id, solid, liquid, air),
    }
}

/// Masks of the voxels equal to `a` and to `b` among 64 (bit `k` = voxel `k`).
#[inline(always)]
fn eq_masks_64(c: &[BlockId; 64], a: BlockId, b: BlockId) -> (u64, u64) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is part of the x86_64 baseline; every load reads 8 ids inside `c`.
        unsafe {
            let (va, vb) = (_mm_set1_epi16(a as i16), _mm_set1_epi16(b as i16));
            let (mut ma, mut mb) = (0u64, 0u64);
            for k in 0..4 {
                let lo = _mm_loadu_si128(c.as_ptr().add(16 * k) as *const __m128i);
                let hi = _mm_loadu_si128(c.as_ptr().add(16 * k + 8) as *const __m128i);
                let ea = _mm_packs_epi16(_mm_cmpeq_epi16(lo, va), _mm_cmpeq_epi16(hi, va));
                let eb = _mm_packs_epi16(_mm_cmpeq_epi16(lo, vb), _mm_cmpeq_epi16(hi, vb));
                ma |= (_mm_movemask_epi8(ea) as u32 as u64) << (16 * k);
                mb |= (_mm_movemask_epi8(eb) as u32 as u64) << (16 * k);
            }
            (ma, mb)
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        c.iter().enumerate().fold((0, 0), |(ma, mb), (k, &id)| (ma | ((id == a) as u64) << k, mb | ((id == b) as u64) << k))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::coords::ChunkCoord;
    use crate::gen3d::pipeline::Generator;
    use crate::preset::model::WorldPreset;
    use crate::base::rng::hash3;

    fn to_f(p: IVec3) -> [f32; 3] {
        [p.x as f32, p.y as f32, p.z as f32]
    }

    fn padded_with(points: &[(i32, i32, i32, BlockId)]) -> VoxelBuffer {
        let mut b = VoxelBuffer::new(IVec3::splat(-1), IVec3::splat(6));
        for &(x, y, z, id) in points {
            b.set(IVec3::new(x, y, z), id);
        }
        b
    }

    /// One visible unit face: voxel (local to the chunk interior), direction, surface, and its
    /// four corner colours (quantised) in the corner order of [`FACES`].
    type UnitFace = ([i32; 3], usize, bool, [[i32; 4]; 4]);

    /// Rasterises every quad of `m` back into unit faces, interpolating the corner colours.
    fn unit_faces(m: &ChunkMesh) -> Vec<UnitFace> {
        let mut out = Vec::new();
        for (liquid, s) in [(false, &m.opaque), (true, &m.liquid)] {
            assert_eq!(s.positions.len() % 4, 0);
            assert_eq!(s.positions.len(), s.directions.len());
            assert_eq!(s.positions.len(), s.colors.len());
            assert_eq!(s.indices.len(), s.positions.len() / 4 * 6);
            for q in 0..s.positions.len() / 4 {
                let base = q * 4;
                let d = s.directions[base] as usize;
                assert!(s.directions[base..base + 4].iter().all(|&n| n as usize == d));
                assert_eq!(to_f(FACES[d].0), FACE_NORMALS[d], "FACE_NORMALS follows FACES");
                let (n, u, v) = FACES[d];
                let p0 = s.positions[base];
                let rel = |p: [f32; 3]| -> (f32, f32) {
                    let dp = sub(p, p0);
                    (dot(dp, to_f(u)), dot(dp, to_f(v)))
                };
                let (eu, ev) = rel(s.positions[base + 2]);
                assert_eq!(rel(s.positions[base + 1]), (eu, 0.0));
                assert_eq!(rel(s.positions[base + 3]), (0.0, ev));
                assert!(eu >= 1.0 && ev >= 1.0 && eu.fract() == 0.0 && ev.fract() == 0.0);
                let c = &s.colors[base..base + 4];
                // In f64, so interpolating between equal corners gives back the corner value.
                let lerp = |sv: f64, tv: f64| -> [i32; 4] {
                    std::array::from_fn(|k| {
                        let c = |i: usize| c[i][k] as f64;
                        let x = c(0) * (1.0 - sv) * (1.0 - tv) + c(1) * sv * (1.0 - tv) + c(2) * sv * tv + c(3) * (1.0 - sv) * tv;
                        (x * 10_000.0).round() as i32
                    })
                };
                let lift = IVec3::new(n.x.max(0), n.y.max(0), n.z.max(0));
                let plane = IVec3::new(p0[0] as i32, p0[1] as i32, p0[2] as i32);
                for i in 0..eu as i32 {
                    for j in 0..ev as i32 {
                        let voxel = plane - lift + u * i + v * j;
                        let corners = [(0, 0), (1, 0), (1, 1), (0, 1)]
                            .map(|(a, b)| lerp((i + a) as f64 / eu as f64, (j + b) as f64 / ev as f64));
                        out.push(([voxel.x, voxel.y, voxel.z], d, liquid, corners));
                    }
                }
            }
        }
        out.sort();
        out
    }

    fn assert_clockwise(m: &ChunkMesh) {
        for s in [&m.opaque, &m.liquid] {
            for t in s.indices.chunks(3) {
                let [a, b2, c] = [0, 1, 2].map(|k| s.positions[t[k] as usize]);
                let n = s.normal(t[0] as usize);
                assert!(dot(cross(sub(b2, a), sub(c, a)), n) < 0.0, "triangle not clockwise from the front");
            }
        }
    }

    /// Greedy and reference meshes of `b` show the same unit faces (with the mesher's AO setting);
    /// returns (greedy, reference) quads.
    fn check_against_reference(b: &VoxelBuffer, mesher: &mut Mesher) -> (usize, usize) {
        let (mut g, mut r) = (ChunkMesh::default(), ChunkMesh::default());
        mesher.mesh(b, &mut g);
        mesh_padded_chunk_culled_with(b, &mut r, mesher.ambient_occlusion());
        let (gf, rf) = (unit_faces(&g), unit_faces(&r));
        assert_eq!(rf.len(), r.quad_count());
        assert!(gf.windows(2).all(|w| w[0] != w[1]), "overlapping quads");
        if gf != rf {
            let missing: Vec<_> = rf.iter().filter(|f| !gf.contains(f)).take(3).collect();
            let extra: Vec<_> = gf.iter().filter(|f| !rf.contains(f)).take(3).collect();
            panic!("surfaces differ: {} vs {} faces; missing {missing:?}; extra {extra:?}", gf.len(), rf.len());
        }
        assert_clockwise(&g);
        assert!(g.quad_count() <= r.quad_count());
        // Never a face between two solids (or a liquid face against anything but air), halo included.
        for &(p, d, liquid, _) in &gf {
            let nb = b.get_local(IVec3::new(p[0], p[1], p[2]) + IVec3::ONE + FACES[d].0);
            assert!(!block::is_solid(nb), "face against a solid at {p:?} dir {d}");
            assert!(!liquid || nb == block::AIR);
        }
        (g.quad_count(), r.quad_count())
    }

    fn random_box(seed: u64, size: i32, ids: &[BlockId], fill: f32) -> VoxelBuffer {
        let mut b = VoxelBuffer::new(IVec3::splat(-1), IVec3::splat(size));
        for y in 0..size {
            for z in 0..size {
                for x in 0..size {
                    let h = hash3(seed, 7, x, y, z);
                    if ((h >> 40) as f32 / (1u64 << 24) as f32) < fill {
                        b.set_local(IVec3::new(x, y, z), ids[(h % ids.len() as u64) as usize]);
                    }
                }
            }
        }
        b
    }

    #[test]
    fn lone_block_has_six_clockwise_faces() {
        let b = padded_with(&[(1, 1, 1, block::STONE)]);
        let mut m = ChunkMesh::default();
        mesh_padded_chunk(&b, &mut m);
        assert_eq!(m.opaque.quad_count(), 6);
        assert_clockwise(&m);
    }

    #[test]
    fn faces_between_solids_are_culled_even_against_the_halo() {
        // Two blocks side by side, and one block touching the halo at x = -1.
        let b = padded_with(&[(1, 1, 1, block::STONE), (2, 1, 1, block::DIRT), (0, 3, 3, block::STONE), (-1, 3, 3, block::STONE)]);
        let mut m = ChunkMesh::default();
        mesh_padded_chunk(&b, &mut m);
        // Pair: 10 faces; the block at x=0 against the solid halo: 5 faces. Stone and dirt never
        // merge, so every face stays its own quad.
        assert_eq!(unit_faces(&m).len(), 15);
        assert_eq!(m.opaque.quad_count(), 15);
        check_against_reference(&b, &mut Mesher::new());
    }

    #[test]
    fn water_meshes_only_against_air() {
        let b = padded_with(&[(1, 1, 1, block::WATER), (1, 0, 1, block::STONE), (2, 1, 1, block::WATER)]);
        let mut m = ChunkMesh::default();
        mesh_padded_chunk(&b, &mut m);
        // (1,1,1): 4 faces (water beside it, stone below); (2,1,1): 5 faces (water beside it).
        let liquid = unit_faces(&m).iter().filter(|f| f.2).count();
        assert_eq!(liquid, 9);
        // Merged: top, north and south span both blocks; the two ends and one bottom stay.
        assert_eq!(m.liquid.quad_count(), 6);
        // The stone shows all six faces: water does not hide ground.
        assert_eq!(m.opaque.quad_count(), 6);
        check_against_reference(&b, &mut Mesher::new());
    }

    #[test]
    fn a_slab_merges_into_six_quads_with_ao_kept_apart() {
        // A 4×1×4 floor: one quad per side.
        let mut pts = Vec::new();
        for x in 0..4 {
            for z in 0..4 {
                pts.push((x, 0, z, block::STONE));
            }
        }
        let mut b = padded_with(&pts);
        let mut m = ChunkMesh::default();
        mesh_padded_chunk(&b, &mut m);
        assert_eq!(m.opaque.quad_count(), 6);
        // A block on top darkens the corners around it: those faces cannot merge with open ones.
        b.set(IVec3::new(1, 1, 1), block::STONE);
        let (greedy, reference) = check_against_reference(&b, &mut Mesher::new());
        assert!(greedy > 6 + 4 && greedy < reference, "{greedy} vs {reference}");
    }

    #[test]
    fn a_dry_box_after_a_wet_bigger_one_ignores_the_old_liquid_rows() {
        // The scratch's liquid rows still hold the big box's faces, some beyond the small box.
        let mut mesher = Mesher::new();
        let mut m = ChunkMesh::default();
        mesher.mesh(&random_box(1, 34, &[block::WATER, block::STONE], 0.6), &mut m);
        assert!(!m.liquid.is_empty());
        for ao in [true, false] {
            mesher.set_ambient_occlusion(ao);
            check_against_reference(&random_box(2, 7, &[block::STONE, block::DIRT], 0.5), &mut mesher);
        }
    }

    #[test]
    fn one_mesher_reused_across_boxes_of_any_size_and_content_shows_each_reference_surface() {
        // The scratch keeps rows of earlier boxes (bigger, wetter, another AO setting): every box
        // must come out exactly as a fresh reference mesh, in whatever order boxes arrive.
        let mut mesher = Mesher::new();
        let palettes: [&[BlockId]; 4] = [&[block::STONE], &[block::WATER, block::STONE], &[block::WATER], &[block::DIRT, block::WATER, block::AIR, 300]];
        for k in 0..64u64 {
            let h = hash3(k, 11, k as i32, 0, 0);
            // Every other box is a big one; the small ones in between see its leftovers.
            let size = if k % 2 == 0 { [33, 34][(h % 2) as usize] } else { [3, 5, 7, 9, 16][(h % 5) as usize] };
            let ids = palettes[((h >> 8) % 4) as usize];
            let fill = [0.05f32, 0.4, 0.8, 1.0][((h >> 16) % 4) as usize];
            mesher.set_ambient_occlusion((h >> 24) & 1 == 0);
            check_against_reference(&random_box(k, size, ids, fill), &mut mesher);
        }
    }

    #[test]
    fn without_ao_faces_merge_by_block_alone_and_are_lit_open() {
        // The slab with a block on top: with AO the corners around it keep faces apart; without,
        // the slab's top is the fewest rectangles around the covered face.
        let mut pts: Vec<_> = (0..16).map(|k| (k % 4, 0, k / 4, block::STONE)).collect();
        pts.push((1, 1, 1, block::STONE));
        let b = padded_with(&pts);
        let mut mesher = Mesher::new();
        let (with_ao, _) = check_against_reference(&b, &mut mesher);
        mesher.set_ambient_occlusion(false);
        let (flat, reference) = check_against_reference(&b, &mut mesher);
        // Slab: 4 sides + bottom + its top around the covered face in 4 rectangles (rows merge
        // along x first: the row in front, the two pieces of the covered row, the last two rows
        // together); the block on top: 5 faces.
        assert_eq!(flat, 5 + 4 + 5, "{with_ao} with AO, {reference} unit faces");
        assert!(flat < with_ao);
        let mut m = ChunkMesh::default();
        mesher.mesh(&b, &mut m);
        let stone = &mesher.colors[block::STONE as usize];
        for (v, c) in m.opaque.colors.iter().enumerate() {
            assert_eq!(*c, stone[m.opaque.directions[v] as usize][AO_OPEN], "vertex {v} is lit open");
        }
        // A box too wide for the bit rows goes to the reference mesher, with the same setting.
        let mut wide = random_box(8, 1, &[block::STONE], 0.0);
        wide.reset(IVec3::splat(-1), IVec3::new(70, 4, 4));
        for (k, id) in wide.data_mut().iter_mut().enumerate() {
            *id = [block::AIR, block::STONE, block::DIRT][(hash3(6, 1, k as i32, 0, 0) % 3) as usize];
        }
        check_against_reference(&wide, &mut mesher);
        // The same voxels with AO again: the setting is the only difference.
        mesher.set_ambient_occlusion(true);
        let mut again = ChunkMesh::default();
        mesher.mesh(&b, &mut again);
        assert_eq!(again.quad_count(), with_ao);
    }

    #[test]
    fn random_boxes_show_the_reference_surface() {
        let mut mesher = Mesher::new();
        let palettes: [&[BlockId]; 4] = [
            &[block::STONE],
            &[block::STONE, block::DIRT],
            &[block::STONE, block::WATER, block::GRASS],
            &[block::WATER, block::SAND, 200, block::AIR],
        ];
        for ao in [true, false] {
            mesher.set_ambient_occlusion(ao);
            for (i, ids) in palettes.iter().enumerate() {
                for (j, fill) in [0.1f32, 0.5, 0.9].into_iter().enumerate() {
                    for size in [3, 7, 18, 34] {
                        let b = random_box((i * 10 + j) as u64, size, ids, fill);
                        check_against_reference(&b, &mut mesher);
                    }
                }
            }
        }
        mesher.set_ambient_occlusion(true);
        // A non-cubic box, and the widest one the bit rows hold.
        let mut b = random_box(99, 1, &[block::STONE], 0.0);
        b.reset(IVec3::splat(-1), IVec3::new(10, 40, 64));
        for (k, id) in b.data_mut().iter_mut().enumerate() {
            *id = [block::AIR, block::STONE, block::WATER, block::DIRT][(hash3(5, 1, k as i32, 0, 0) % 4) as usize];
        }
        check_against_reference(&b, &mut mesher);
    }

    #[test]
    fn the_generic_class_path_agrees_with_the_fast_one() {
        let mut fast = Mesher::new();
        assert_eq!(fast.single_liquid, Some(block::WATER), "the block table changed: revisit the fast path");
        let mut generic = Mesher::new();
        generic.single_liquid = None;
        for seed in 0..4 {
            let b = random_box(seed, 20, &[block::STONE, block::WATER, block::DIRT, 300], 0.5);
            let (mut a, mut c) = (ChunkMesh::default(), ChunkMesh::default());
            fast.mesh(&b, &mut a);
            generic.mesh(&b, &mut c);
            assert_eq!(a, c);
        }
    }

    #[test]
    fn generated_chunks_show_the_reference_surface_with_fewer_quads() {
        let g = Generator::new(&WorldPreset::default()).unwrap();
        let mut mesher = Mesher::new();
        let mut padded = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
        let (mut greedy, mut reference) = (0, 0);
        for c in [(0, 0, 0), (1, 0, 1), (-1, 0, 2), (0, -1, 0), (0, 1, 0), (3, 0, -2), (-2, -1, -3), (5, 0, 5)] {
            g.generate_padded_chunk(ChunkCoord::new(c.0, c.1, c.2), &mut padded);
            let (gq, rq) = check_against_reference(&padded, &mut mesher);
            greedy += gq;
            reference += rq;
        }
        assert!(reference > 1000, "the chunks hold terrain: {reference}");
        // AO keeps faces apart around every step of the terrain, so the saving is well under 2×.
        assert!(greedy * 4 < reference * 3, "greedy {greedy} vs culled {reference}");
        // Without AO only the blocks keep faces apart (block-mesh's count: `tests/block_mesh_parity.rs`).
        mesher.set_ambient_occlusion(false);
        let mut flat = 0;
        for c in [(0, 0, 0), (1, 0, 1), (-1, 0, 2), (0, -1, 0), (5, 0, 5)] {
            g.generate_padded_chunk(ChunkCoord::new(c.0, c.1, c.2), &mut padded);
            flat += check_against_reference(&padded, &mut mesher).0;
        }
        assert!(flat * 2 < greedy, "flat {flat} vs {greedy} with AO");
    }

    #[test]
    fn same_voxels_same_bytes_on_any_thread_and_scratch() {
        let g = Generator::new(&WorldPreset::default()).unwrap();
        let mut a = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
        let mut b = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
        g.generate_padded_chunk(ChunkCoord::new(1, 0, 1), &mut a);
        g.generate_padded_chunk(ChunkCoord::new(2, 0, -1), &mut b);
        let mut mesher = Mesher::new();
        let (mut m1, mut m2) = (ChunkMesh::default(), ChunkMesh::default());
        mesher.mesh(&a, &mut m1);
        // The scratch has meshed another chunk (and a small box) in between.
        mesher.mesh(&b, &mut m2);
        mesher.mesh(&padded_with(&[(1, 1, 1, block::STONE)]), &mut m2);
        mesher.mesh(&a, &mut m2);
        assert_eq!(m1, m2);
        let m3 = std::thread::spawn(move || {
            let mut m = ChunkMesh::default();
            mesh_padded_chunk(&a, &mut m);
            m
        })
        .join()
        .unwrap();
        assert_eq!(m1, m3);
    }

    /// The unit faces (voxel local to the chunk interior, direction) covered by collision
    /// triangles: each quad is two triangles over a rectangle of whole units, clockwise from the
    /// front.
    fn collision_unit_faces(corners: &[[f32; 3]]) -> Vec<([i32; 3], usize)> {
        assert_eq!(corners.len() % 6, 0, "two triangles a quad");
        let mut out = Vec::new();
        for quad in corners.chunks(6) {
            // The front is where the clockwise triangles' normals point away from.
            let n = cross(sub(quad[1], quad[0]), sub(quad[2], quad[0]));
            let d = FACES.iter().position(|(f, _, _)| dot(to_f(*f), n) < 0.0 && dot(to_f(*f), n).abs() == dot(n, n).sqrt()).expect("an axis-aligned quad");
            let (normal, u, v) = FACES[d];
            let second = cross(sub(quad[4], quad[3]), sub(quad[5], quad[3]));
            assert!(dot(to_f(normal), second) < 0.0, "both triangles clockwise from the front");
            let (lo, hi) = quad.iter().fold(([f32::MAX; 3], [f32::MIN; 3]), |(lo, hi), p| (std::array::from_fn(|k| lo[k].min(p[k])), std::array::from_fn(|k| hi[k].max(p[k]))));
            // The two triangles share a diagonal and together use the rectangle's four corners.
            let mut distinct: Vec<[f32; 3]> = quad.to_vec();
            distinct.sort_by(|a, b| a.partial_cmp(b).unwrap());
            distinct.dedup();
            assert_eq!(distinct.len(), 4, "a quad's triangles share two corners");
            assert!(distinct.iter().all(|p| (0..3).all(|k| p[k] == lo[k] || p[k] == hi[k])));
            let extent = sub(hi, lo);
            let (eu, ev) = (dot(extent, to_f(u)) as i32, dot(extent, to_f(v)) as i32);
            assert!(eu >= 1 && ev >= 1 && dot(extent, to_f(normal)) == 0.0);
            let lift = IVec3::new(normal.x.max(0), normal.y.max(0), normal.z.max(0));
            let plane = IVec3::new(lo[0] as i32, lo[1] as i32, lo[2] as i32);
            for i in 0..eu {
                for j in 0..ev {
                    let voxel = plane - lift + u * i + v * j;
                    out.push(([voxel.x, voxel.y, voxel.z], d));
                }
            }
        }
        out.sort();
        out
    }

    /// Collision triangles of `b` cover exactly the reference's opaque unit faces, once each;
    /// returns (collision quads, render opaque quads).
    fn check_collision_against_reference(b: &VoxelBuffer, mesher: &mut Mesher) -> (usize, usize) {
        let mut corners = Vec::new();
        mesher.collision_faces(b, &mut corners);
        let (mut reference, mut render) = (ChunkMesh::default(), ChunkMesh::default());
        mesh_padded_chunk_culled(b, &mut reference);
        mesher.mesh(b, &mut render);
        let solid: Vec<([i32; 3], usize)> = unit_faces(&reference).into_iter().filter(|f| !f.2).map(|f| (f.0, f.1)).collect();
        let covered = collision_unit_faces(&corners);
        assert!(covered.windows(2).all(|w| w[0] != w[1]), "overlapping collision quads");
        if covered != solid {
            let missing: Vec<_> = solid.iter().filter(|f| !covered.contains(f)).take(3).collect();
            let extra: Vec<_> = covered.iter().filter(|f| !solid.contains(f)).take(3).collect();
            panic!("collision faces differ: {} vs {} unit faces; missing {missing:?}; extra {extra:?}", covered.len(), solid.len());
        }
        let quads = corners.len() / 6;
        assert!(quads <= render.opaque.quad_count(), "{quads} collision quads vs {} rendered", render.opaque.quad_count());
        (quads, render.opaque.quad_count())
    }

    #[test]
    fn collision_faces_cover_exactly_the_solid_faces() {
        let mut mesher = Mesher::new();
        // Hand-made boxes: a lone block, a pair against the halo, water next to stone.
        for b in [
            padded_with(&[(1, 1, 1, block::STONE)]),
            padded_with(&[(1, 1, 1, block::STONE), (2, 1, 1, block::DIRT), (0, 3, 3, block::STONE), (-1, 3, 3, block::STONE)]),
            padded_with(&[(1, 1, 1, block::WATER), (1, 0, 1, block::STONE), (2, 1, 1, block::WATER)]),
        ] {
            check_collision_against_reference(&b, &mut mesher);
        }
        // A lone block: one quad a side, whatever its AO.
        let mut corners = Vec::new();
        collision_faces(&padded_with(&[(1, 1, 1, block::STONE)]), &mut corners);
        assert_eq!(corners.len(), 6 * 6);
        let palettes: [&[BlockId]; 3] = [&[block::STONE, block::DIRT], &[block::STONE, block::WATER, block::GRASS], &[block::WATER, block::SAND, 200, block::AIR]];
        for (i, ids) in palettes.iter().enumerate() {
            for (j, fill) in [0.1f32, 0.5, 0.9].into_iter().enumerate() {
                for size in [3, 7, 18, 34] {
                    check_collision_against_reference(&random_box((i * 10 + j) as u64, size, ids, fill), &mut mesher);
                }
            }
        }
        // The widest box the bit rows hold, and one wider than that (the reference's faces).
        for size in [IVec3::new(10, 40, 64), IVec3::new(66, 5, 4)] {
            let mut b = random_box(99, 1, &[block::STONE], 0.0);
            b.reset(IVec3::splat(-1), size);
            for (k, id) in b.data_mut().iter_mut().enumerate() {
                *id = [block::AIR, block::STONE, block::WATER, block::DIRT][(hash3(5, 1, k as i32, 0, 0) % 4) as usize];
            }
            check_collision_against_reference(&b, &mut mesher);
        }
    }

    #[test]
    fn collision_faces_of_generated_chunks_need_fewer_triangles_than_the_render_mesh() {
        let g = Generator::new(&WorldPreset::default()).unwrap();
        let mut mesher = Mesher::new();
        let mut padded = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
        let (mut collision, mut render) = (0, 0);
        for c in [(0, 0, 0), (1, 0, 1), (-1, 0, 2), (0, -1, 0), (3, 0, -2), (-2, -1, -3), (5, 0, 5)] {
            g.generate_padded_chunk(ChunkCoord::new(c.0, c.1, c.2), &mut padded);
            let (cq, rq) = check_collision_against_reference(&padded, &mut mesher);
            assert!(rq == 0 || cq < rq, "chunk {c:?}: {cq} collision quads vs {rq} rendered");
            collision += cq;
            render += rq;
        }
        // Merged by solidity alone, the terrain's steps and AO no longer split it.
        assert!(render > 1000 && collision * 2 < render, "collision {collision} vs render {render}");
    }

    #[test]
    fn portable_and_wide_builds_give_the_same_bytes() {
        // Without AVX2 both calls take the portable build and simply agree with themselves.
        let g = Generator::new(&WorldPreset::default()).unwrap();
        let mut mesher = Mesher::new();
        let mut boxes = Vec::new();
        for c in [(0, 0, 0), (1, -1, 1), (-2, 0, 3), (5, 0, -4)] {
            let mut padded = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
            g.generate_padded_chunk(ChunkCoord::new(c.0, c.1, c.2), &mut padded);
            boxes.push(padded);
        }
        boxes.push(random_box(3, 18, &[block::STONE, block::WATER, block::DIRT, 300], 0.5));
        boxes.push(random_box(4, 7, &[block::STONE, block::WATER], 0.5));
        for b in &boxes {
            let (mut chosen, mut portable) = (ChunkMesh::default(), ChunkMesh::default());
            mesher.mesh(b, &mut chosen);
            mesher.mesh_with::<false, true>(b, &mut portable);
            assert_eq!(chosen, portable);
            mesher.set_ambient_occlusion(false);
            mesher.mesh(b, &mut chosen);
            mesher.mesh_with::<false, false>(b, &mut portable);
            assert_eq!(chosen, portable);
            mesher.set_ambient_occlusion(true);
            let (mut chosen, mut portable) = (Vec::new(), Vec::new());
            mesher.collision_faces(b, &mut chosen);
            mesher.collision_faces_with::<false>(b, &mut portable);
            assert_eq!(chosen, portable);
        }
    }
}
