//! Blocky meshing: turns a padded chunk of voxels into triangle surfaces.
//!
//! Input is a chunk with a one-voxel halo (`(S+2)³`, see
//! [`Generator::generate_padded_chunk`](crate::generator::Generator::generate_padded_chunk)); the halo
//! holds the neighbours' border voxels, so a face between two solid voxels is never emitted, inside
//! a chunk or across its border. Positions are relative to the chunk's minimum corner. Triangles are
//! wound clockwise seen from the front, as Godot expects.
//!
//! [`Mesher`] is a binary greedy mesher:
//! 1. one pass over the voxels packs each row along x into `u64` bit masks (solid, liquid, air);
//! 2. for each of the six directions, the visible faces of a row are a few bit operations against
//!    the neighbouring row (or the row shifted by one bit): solid faces where the neighbour is not
//!    solid, liquid faces only where the neighbour is air;
//! 3. each visible unit face gets a key: its block id and its four corner ambient-occlusion levels,
//!    read from the eight solid bits around it in the layer in front of it;
//! 4. faces are merged greedily within each slice, first along the bit axis then across rows,
//!    only while the keys match, so colour and shading are exactly those of the unit faces (a
//!    vertex's AO depends only on the voxels around that vertex, so equal keys on neighbouring
//!    faces mean the occlusion is constant along the merge).
//!
//! [`mesh_padded_chunk_culled`] is the plain one-quad-per-face mesher, kept as the reference the
//! tests compare against (and used for boxes wider than 64 voxels, where rows do not fit a `u64`).
//! Both are pure functions of the voxels: same voxels, same mesh bytes, on any thread.

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
        let e1 = sub(c[1], c[0]);
        let e2 = sub(c[2], c[0]);
        let counter_clockwise = dot(cross(e1, e2), n) > 0.0;
        self.push_quad_wound(c, n, color, ao, counter_clockwise);
    }

    /// Appends a quad whose corner order is known to run counter-clockwise (or not) around `n`.
    /// (Element by element: building arrays on the stack and copying them cost more here.)
    #[inline(always)]
    fn push_quad_wound(&mut self, c: [[f32; 3]; 4], n: [f32; 3], color: [f32; 4], ao: [f32; 4], counter_clockwise: bool) {
        let base = self.positions.len() as i32;
        for (p, s) in c.into_iter().zip(ao) {
            self.positions.push(p);
            self.normals.push(n);
            self.colors.push([color[0] * s, color[1] * s, color[2] * s, color[3]]);
        }
        // Split along the diagonal with the brighter ends so AO gradients stay symmetric.
        let flip = ao[0] + ao[2] < ao[1] + ao[3];
        let tris: [i32; 6] = match (counter_clockwise, flip) {
            (true, false) => [0, 2, 1, 0, 3, 2],
            (false, false) => [0, 1, 2, 0, 2, 3],
            (true, true) => [1, 3, 2, 1, 0, 3],
            (false, true) => [1, 2, 3, 1, 3, 0],
        };
        for t in tris {
            self.indices.push(base + t);
        }
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

/// Brightness of an AO level (0 = fully occluded, 3 = open).
const AO_LEVELS: [f32; 4] = [0.55, 0.7, 0.85, 1.0];

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

const fn bit(p: usize, k: usize) -> bool {
    (p >> k) & 1 == 1
}

/// Packed AO of the four corners (2 bits each, corner `k` at bits `2k`) for each neighbour pattern.
static AO_TABLE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut p = 0;
    while p < 256 {
        // Corners (-1,-1), (1,-1), (1,1), (-1,1): sides u·du and v·dv, and the diagonal.
        let levels = [
            corner_level(bit(p, 0), bit(p, 2), bit(p, 4)),
            corner_level(bit(p, 1), bit(p, 2), bit(p, 5)),
            corner_level(bit(p, 1), bit(p, 3), bit(p, 6)),
            corner_level(bit(p, 0), bit(p, 3), bit(p, 7)),
        ];
        t[p] = levels[0] | levels[1] << 2 | levels[2] << 4 | levels[3] << 6;
        p += 1;
    }
    t
};

/// Packed AO of a face with no solid neighbour in front: every corner fully lit.
const AO_OPEN: u8 = 0xFF;

/// Meshes the interior of `padded` (all but its one-voxel halo) into `out`, reusing its buffers.
///
/// Uses a per-thread [`Mesher`], so repeated calls allocate nothing once the buffers have grown.
pub fn mesh_padded_chunk(padded: &VoxelBuffer, out: &mut ChunkMesh) {
    thread_local! {
        static MESHER: std::cell::RefCell<Mesher> = std::cell::RefCell::new(Mesher::new());
    }
    MESHER.with(|m| match m.try_borrow_mut() {
        Ok(mut m) => m.mesh(padded, out),
        Err(_) => Mesher::new().mesh(padded, out),
    });
}

/// Reference mesher: one quad per visible unit face, each with its own AO. Slow (it looks up
/// every neighbour of every voxel) but plainly right; the greedy mesher must show the same
/// surface.
pub fn mesh_padded_chunk_culled(padded: &VoxelBuffer, out: &mut ChunkMesh) {
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

/// Reusable scratch for the binary greedy mesher. Keep one per worker thread and call
/// [`Mesher::mesh`] for each chunk: after the first chunk it allocates nothing.
pub struct Mesher {
    /// Rows along x (bit `x` = voxel `x`), indexed `y * pz + z` over the padded box.
    solid: Vec<u64>,
    liquid: Vec<u64>,
    air: Vec<u64>,
    /// Compare masks over the flat voxel array (64 voxels a word), before cutting into rows.
    flat_air: Vec<u64>,
    flat_liquid: Vec<u64>,
    /// Visible faces of one direction per slice row (bits along the slice's bit axis, interior
    /// coordinates), indexed `layer * rows + row`. All zero between directions.
    faces: Vec<u64>,
    /// Merge key of each visible face of one direction: `block id << 8 | packed AO`, indexed
    /// `(layer * rows + row) * bits + bit`. Only entries under a set face bit are meaningful.
    keys: Vec<u32>,
    /// Class of each block id below `BLOCK_COUNT`, then the class of unknown ids.
    class: Vec<u8>,
    /// Colour and liquid flag of each block id below `BLOCK_COUNT`, then those of unknown ids.
    looks: Vec<([f32; 3], bool)>,
    /// Set when the only non-solid ids are air and this one liquid (fast voxel pass).
    single_liquid: Option<BlockId>,
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
        let looks = (0..=count)
            .map(|id| {
                let info = block::block_info(id as BlockId);
                (info.color, info.liquid)
            })
            .collect();
        Self { looks, solid: Vec::new(), liquid: Vec::new(), air: Vec::new(), flat_air: Vec::new(), flat_liquid: Vec::new(), faces: Vec::new(), keys: Vec::new(), class, single_liquid }
    }

    /// Meshes the interior of `padded` (all but its one-voxel halo) into `out`, reusing its
    /// buffers. The result shows exactly the faces of [`mesh_padded_chunk_culled`], merged.
    pub fn mesh(&mut self, padded: &VoxelBuffer, out: &mut ChunkMesh) {
        out.clear();
        let p = padded.size();
        if p.x > MAX_PADDED || p.y > MAX_PADDED || p.z > MAX_PADDED {
            mesh_padded_chunk_culled(padded, out);
            return;
        }
        if p.min_elem() < 3 {
            return;
        }
        if !self.pack_rows(padded) {
            return;
        }
        let n = p - IVec3::splat(2);
        let volume = n.volume();
        if self.keys.len() < volume {
            self.keys.resize(volume, 0);
        }
        // Slice rows: x-normal slices are nx × ny, y-normal ny × nz, z-normal nz × ny.
        let plane_rows = (n.x * n.y).max(n.y * n.z) as usize;
        if self.faces.len() < plane_rows {
            self.faces.clear();
            self.faces.resize(plane_rows, 0);
        }
        self.direction::<0>(padded, out);
        self.direction::<1>(padded, out);
        self.direction::<2>(padded, out);
        self.direction::<3>(padded, out);
        self.direction::<4>(padded, out);
        self.direction::<5>(padded, out);
    }

    /// Step 1: packs the padded box into row masks. Returns false when the interior holds nothing
    /// that could show a face (all air, or only invisible blocks).
    fn pack_rows(&mut self, padded: &VoxelBuffer) -> bool {
        let p = padded.size();
        let (px, py, pz) = (p.x as usize, p.y as usize, p.z as usize);
        let rows = py * pz;
        for v in [&mut self.solid, &mut self.liquid, &mut self.air] {
            v.clear();
            v.resize(rows, 0);
        }
        let data = padded.data();
        let full = if px == 64 { !0u64 } else { (1u64 << px) - 1 };
        match self.single_liquid {
            Some(liquid) => {
                // Compare masks over the flat voxel array, 64 voxels a word, then cut them into
                // rows of `px` bits.
                self.flat_air.clear();
                self.flat_liquid.clear();
                let mut chunks = data.chunks_exact(64);
                for chunk in &mut chunks {
                    let chunk: &[BlockId; 64] = chunk.try_into().expect("64 voxels");
                    let (a, l) = eq_masks_64(chunk, block::AIR, liquid);
                    self.flat_air.push(a);
                    self.flat_liquid.push(l);
                }
                let (mut a, mut l) = (0u64, 0u64);
                for (x, &id) in chunks.remainder().iter().enumerate() {
                    a |= ((id == block::AIR) as u64) << x;
                    l |= ((id == liquid) as u64) << x;
                }
                self.flat_air.extend([a, 0]);
                self.flat_liquid.extend([l, 0]);
                for r in 0..rows {
                    let a = bit_range(&self.flat_air, r * px, full);
                    let l = bit_range(&self.flat_liquid, r * px, full);
                    self.air[r] = a;
                    self.liquid[r] = l;
                    self.solid[r] = !(a | l) & full;
                }
            }
            None => {
                let last = self.class.len() - 1;
                for (r, row) in data.chunks_exact(px).enumerate() {
                    let (mut s, mut l, mut a) = (0u64, 0u64, 0u64);
                    for (x, &id) in row.iter().enumerate() {
                        let c = self.class[(id as usize).min(last)];
                        s |= ((c & CLASS_SOLID) as u64) << x;
                        l |= (((c & CLASS_LIQUID) >> 1) as u64) << x;
                        a |= (((c & CLASS_AIR) >> 2) as u64) << x;
                    }
                    self.solid[r] = s;
                    self.liquid[r] = l;
                    self.air[r] = a;
                }
            }
        }
        let interior = full & !1 & !(1u64 << (px - 1));
        (1..py - 1).any(|y| (1..pz - 1).any(|z| (self.solid[y * pz + z] | self.liquid[y * pz + z]) & interior != 0))
    }

    /// Direction `D` of [`FACES`], compiled once per direction so its offsets are constants.
    fn direction<const D: usize>(&mut self, padded: &VoxelBuffer, out: &mut ChunkMesh) {
        self.collect_faces(padded, D);
        self.merge_and_emit(padded.size() - IVec3::splat(2), D, out);
    }

    /// Steps 2–3 for direction `d`: visible faces into `faces` (slice rows), their keys into `keys`.
    #[inline(always)]
    fn collect_faces(&mut self, padded: &VoxelBuffer, d: usize) {
        let p = padded.size();
        let (px, pz) = (p.x as usize, p.z as usize);
        let (nx, ny, nz) = (p.x as usize - 2, p.y as usize - 2, p.z as usize - 2);
        let (normal, u, v) = FACES[d];
        let axis = axis_of(normal);
        let interior = ((1u64 << nx) - 1) << 1;
        // Offsets (row y, row z, bit x) of the neighbour across the face and of the eight
        // neighbours in the layer in front of it.
        let off = |o: IVec3| (o.y as isize * pz as isize + o.z as isize, o.x);
        let across = off(normal);
        let around: [(isize, i32); 8] = std::array::from_fn(|k| {
            let (du, dv) = NEIGHBOURS[k];
            off(normal + u * du + v * dv)
        });
        #[inline(always)]
        fn aligned(rows: &[u64], i: usize, (dr, dx): (isize, i32)) -> u64 {
            let w = rows[(i as isize + dr) as usize];
            match dx {
                1 => w >> 1,
                -1 => w << 1,
                _ => w,
            }
        }
        let data = padded.data();
        let (solid, liquid, air) = (&self.solid, &self.liquid, &self.air);
        let (faces, keys) = (&mut self.faces, &mut self.keys);
        for y in 1..=ny {
            for z in 1..=nz {
                let i = y * pz + z;
                let fs = solid[i] & !aligned(solid, i, across) & interior;
                let fl = liquid[i] & aligned(air, i, across) & interior;
                let f = fs | fl;
                // Where this row's faces go in the slices, and where their keys go.
                let (y0, z0) = (y - 1, z - 1);
                match axis {
                    Axis::Y => faces[y0 * nz + z0] = f >> 1,
                    Axis::Z => faces[z0 * ny + y0] = f >> 1,
                    Axis::X => {}
                }
                if f == 0 {
                    continue;
                }
                let mut w = [0u64; 8];
                let mut occluded = 0u64;
                for k in 0..8 {
                    w[k] = aligned(solid, i, around[k]);
                    occluded |= w[k];
                }
                let shaded = fs & occluded;
                let row = &data[i * px..i * px + px];
                let mut bits = f;
                while bits != 0 {
                    let x = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let ao = if (shaded >> x) & 1 == 0 {
                        AO_OPEN
                    } else {
                        let mut pattern = 0usize;
                        for (k, wk) in w.iter().enumerate() {
                            pattern |= (((wk >> x) & 1) as usize) << k;
                        }
                        AO_TABLE[pattern]
                    };
                    let key = (row[x] as u32) << 8 | ao as u32;
                    let x0 = x - 1;
                    let slot = match axis {
                        Axis::X => {
                            faces[x0 * ny + y0] |= 1u64 << z0;
                            (x0 * ny + y0) * nz + z0
                        }
                        Axis::Y => (y0 * nz + z0) * nx + x0,
                        Axis::Z => (z0 * ny + y0) * nx + x0,
                    };
                    keys[slot] = key;
                }
            }
        }
    }

    /// Step 4 for direction `d`: greedy merge within each slice, then the quads into `out`.
    /// Leaves `faces` all zero.
    #[inline(always)]
    fn merge_and_emit(&mut self, n: IVec3, d: usize, out: &mut ChunkMesh) {
        let (normal, u, v) = FACES[d];
        let axis = axis_of(normal);
        let (nx, ny, nz) = (n.x as usize, n.y as usize, n.z as usize);
        // (layers, rows, bits) of the slices.
        let (layers, rows, nbits) = match axis {
            Axis::X => (nx, ny, nz),
            Axis::Y => (ny, nz, nx),
            Axis::Z => (nz, ny, nx),
        };
        let counter_clockwise = dot(cross(to_f(u), to_f(v)), to_f(normal)) > 0.0;
        let nf = to_f(normal);
        let shade = FACE_SHADE[d];
        let lift = IVec3::new(normal.x.max(0), normal.y.max(0), normal.z.max(0));
        let (faces, keys, looks) = (&mut self.faces, &self.keys, &self.looks);
        for layer in 0..layers {
            for r in 0..rows {
                let ri = layer * rows + r;
                let mut bits = faces[ri];
                faces[ri] = 0;
                while bits != 0 {
                    let b = bits.trailing_zeros() as usize;
                    let kb = ri * nbits;
                    let key = keys[kb + b];
                    // Along the bit axis: the run of set bits with the same key.
                    let mut w = 1;
                    while b + w < nbits && (bits >> (b + w)) & 1 == 1 && keys[kb + b + w] == key {
                        w += 1;
                    }
                    let run = ((1u64 << w) - 1) << b;
                    bits &= !run;
                    // Across rows: while the next row holds the whole run with the same key.
                    let mut h = 1;
                    while r + h < rows {
                        let rj = ri + h;
                        if faces[rj] & run != run {
                            break;
                        }
                        let kj = rj * nbits + b;
                        if keys[kj..kj + w].iter().any(|&k| k != key) {
                            break;
                        }
                        faces[rj] &= !run;
                        h += 1;
                    }
                    // Back to voxel coordinates: origin, and extents along the face's u and v.
                    let (origin, eu, ev) = match axis {
                        Axis::X => (IVec3::new(layer as i32, r as i32, b as i32), h as i32, w as i32),
                        Axis::Y => (IVec3::new(b as i32, layer as i32, r as i32), w as i32, h as i32),
                        Axis::Z => (IVec3::new(b as i32, r as i32, layer as i32), w as i32, h as i32),
                    };
                    let plane = origin + lift;
                    let c = [plane, plane + u * eu, plane + u * eu + v * ev, plane + v * ev].map(to_f);
                    let id = (key >> 8) as BlockId;
                    let ([cr, cg, cb], liquid) = looks[(id as usize).min(looks.len() - 1)];
                    let ao = std::array::from_fn(|k| AO_LEVELS[((key >> (2 * k)) & 3) as usize]);
                    let (surface, alpha) = if liquid { (&mut out.liquid, 0.7) } else { (&mut out.opaque, 1.0) };
                    surface.push_quad_wound(c, nf, [cr * shade, cg * shade, cb * shade, alpha], ao, counter_clockwise);
                }
            }
        }
    }
}

/// Bits `[start, start + width)` of a bit stream stored in `words` (which has a spare word at the
/// end), masked by `full` (`width` ones).
#[inline(always)]
fn bit_range(words: &[u64], start: usize, full: u64) -> u64 {
    let (i, off) = (start / 64, start % 64);
    let lo = words[i] >> off;
    let hi = if off == 0 { 0 } else { words[i + 1] << (64 - off) };
    (lo | hi) & full
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
        let (mut ma, mut mb) = (0u64, 0u64);
        for (k, &id) in c.iter().enumerate() {
            ma |= ((id == a) as u64) << k;
            mb |= ((id == b) as u64) << k;
        }
        (ma, mb)
    }
}

fn axis_of(n: IVec3) -> Axis {
    if n.x != 0 {
        Axis::X
    } else if n.y != 0 {
        Axis::Y
    } else {
        Axis::Z
    }
}

fn to_f(p: IVec3) -> [f32; 3] {
    [p.x as f32, p.y as f32, p.z as f32]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coords::ChunkCoord;
    use crate::generator::Generator;
    use crate::preset::WorldPreset;
    use crate::rng::hash3;

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
            assert_eq!(s.positions.len(), s.normals.len());
            assert_eq!(s.positions.len(), s.colors.len());
            assert_eq!(s.indices.len(), s.positions.len() / 4 * 6);
            for q in 0..s.positions.len() / 4 {
                let base = q * 4;
                let nrm = s.normals[base];
                assert!(s.normals[base..base + 4].iter().all(|&n| n == nrm));
                let d = FACES.iter().position(|(n, _, _)| to_f(*n) == nrm).expect("axis normal");
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
                let n = s.normals[t[0] as usize];
                assert!(dot(cross(sub(b2, a), sub(c, a)), n) < 0.0, "triangle not clockwise from the front");
            }
        }
    }

    /// Greedy and reference meshes of `b` show the same unit faces; returns (greedy, reference) quads.
    fn check_against_reference(b: &VoxelBuffer, mesher: &mut Mesher) -> (usize, usize) {
        let (mut g, mut r) = (ChunkMesh::default(), ChunkMesh::default());
        mesher.mesh(b, &mut g);
        mesh_padded_chunk_culled(b, &mut r);
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
    fn random_boxes_show_the_reference_surface() {
        let mut mesher = Mesher::new();
        let palettes: [&[BlockId]; 4] = [
            &[block::STONE],
            &[block::STONE, block::DIRT],
            &[block::STONE, block::WATER, block::GRASS],
            &[block::WATER, block::SAND, 200, block::AIR],
        ];
        for (i, ids) in palettes.iter().enumerate() {
            for (j, fill) in [0.1f32, 0.5, 0.9].into_iter().enumerate() {
                for size in [3, 7, 18, 34] {
                    let b = random_box((i * 10 + j) as u64, size, ids, fill);
                    check_against_reference(&b, &mut mesher);
                }
            }
        }
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
}
