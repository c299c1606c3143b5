//! Light of a box of voxels: [`light_region`] and, for one chunk, [`light_chunk`]. A pure
//! function of the voxels, the sky exposure and the light table, over buffers the caller owns.
//!
//! The steps (see the layer doc in `light/mod.rs` for why each result is exact):
//! 1. every output voxel at or above its column's exposure gets sky 15, all others 0, in one
//!    branch-free pass over the output; when every output column is open the sky is done;
//! 2. sky seeds: a non-clear, non-opaque voxel under an exposure, or any voxel with a neighbour
//!    column whose sky-15 part reaches beside it, gets `15 − 1 − opacity`;
//! 3. block seeds: every emitter gets its emission (the voxels are scanned only when the table
//!    has an emitter, and a block of 64 ids only when one falls in the emissive id range);
//! 4. each channel spreads by a breadth-first search over level buckets, brightest first:
//!    a voxel's first, highest level is final, so each is expanded once. Light entering a voxel
//!    loses `1 + opacity`; opaque voxels take none. A level that cannot reach the output any
//!    more (not above its Manhattan distance to the output box) is not kept.
//!
//! Queues are flat `Vec<u32>` of packed local coordinates (x | z << 10 | y << 20) in the caller's
//! [`LightScratch`]; the per-voxel levels are reset after each call from those same queues, so
//! a call costs what the light touches, not the box's volume.
//!
//! May use: `base`, `light::buffer`, `light::error`, `light::props`, `light::sky`.

use crate::base::chunk::VoxelBuffer;
use crate::base::coords::{CHUNK_SIZE, ChunkCoord, IVec3};
use crate::light::buffer::LightBuffer;
use crate::light::error::LightError;
use crate::light::props::{LightProps, OPAQUE};
use crate::light::sky::SkyExposure;

/// The brightest light level, of open sky and of the brightest emitter.
pub const LIGHT_MAX: u8 = 15;
/// How far light spreads: a voxel's light depends only on voxels within this many steps of it
/// (a level-15 source lights a voxel 14 steps away with 1, the next one with 0).
pub const LIGHT_REACH: i32 = LIGHT_MAX as i32 - 1;
/// The shell of neighbour voxels a chunk's light buffer holds beyond the chunk (the voxels its
/// border faces look into).
pub const LIGHT_SHELL: i32 = 1;
/// The margin of padded voxels [`light_chunk`] reads around a chunk: shell plus reach.
pub const LIGHT_MARGIN: i32 = LIGHT_SHELL + LIGHT_REACH;
/// Side of a chunk's padded voxel box: 62 for 32³ chunks.
pub const LIGHT_PADDED_SIZE: i32 = CHUNK_SIZE + 2 * LIGHT_MARGIN;
/// Side of a chunk's light buffer: 34 for 32³ chunks.
pub const LIGHT_CHUNK_SIZE: i32 = CHUNK_SIZE + 2 * LIGHT_SHELL;
/// The widest voxel box [`light_region`] takes on any side (packed coordinates hold 10 bits).
pub const MAX_REGION_SIDE: i32 = 1023;

/// Reusable buffers of the light functions, owned by the worker and passed into every call; no
/// call allocates once they have grown to the largest box seen.
#[derive(Clone, Debug)]
pub struct LightScratch {
    /// Level of each voxel of the box during a search; all zero between calls.
    level: Vec<u8>,
    /// Voxels waiting at each level (packed local coordinates); empty between calls.
    buckets: [Vec<u32>; 16],
    /// Each column's exposure as a local y, clamped to `0..=size.y + 1`.
    exposure: Vec<i32>,
    /// The same for the output's columns, contiguous for the first pass.
    out_exposure: Vec<i32>,
    /// The light of an edit's box, for [`crate::light::relight_after_edit`].
    pub(crate) region: LightBuffer,
}

impl Default for LightScratch {
    fn default() -> Self {
        Self {
            level: Vec::new(),
            buckets: std::array::from_fn(|_| Vec::new()),
            exposure: Vec::new(),
            out_exposure: Vec::new(),
            region: LightBuffer::default(),
        }
    }
}

impl LightScratch {
    pub fn new() -> Self {
        Self::default()
    }
}

/// The light of chunk `chunk` and its one-voxel shell (34³, [`LIGHT_CHUNK_SIZE`]) into `out`.
///
/// `voxels` must cover the chunk with [`LIGHT_MARGIN`] voxels on every side (62³, edits
/// applied), `sky` the exposure of exactly those columns. The result is the light those voxels
/// have in the whole world (see the layer doc), so it equals the same voxels' light computed in
/// any larger box (law: Seamless) and depends on nothing but these arguments (law:
/// Deterministic).
pub fn light_chunk(
    chunk: ChunkCoord,
    voxels: &VoxelBuffer,
    sky: &SkyExposure,
    props: &LightProps,
    out: &mut LightBuffer,
    scratch: &mut LightScratch,
) -> Result<(), LightError> {
    let want_min = chunk.min_voxel() - IVec3::splat(LIGHT_MARGIN);
    let want_size = IVec3::splat(LIGHT_PADDED_SIZE);
    if voxels.min() != want_min || voxels.size() != want_size {
        return Err(LightError::NotChunkPadded {
            cx: chunk.x,
            cy: chunk.y,
            cz: chunk.z,
            min: voxels.min(),
            size: voxels.size(),
            want_min,
            want_size,
        });
    }
    light_region(voxels, sky, props, out, scratch)
}

/// The light of the box `voxels` shrunk by [`LIGHT_REACH`] on every side, into `out` (reshaped
/// to that box). `sky` holds the exposure of exactly the columns of `voxels`. Every voxel of the
/// output gets the light it has in the whole world, as long as `voxels` and `sky` are the
/// world's (see the layer doc).
pub fn light_region(
    voxels: &VoxelBuffer,
    sky: &SkyExposure,
    props: &LightProps,
    out: &mut LightBuffer,
    scratch: &mut LightScratch,
) -> Result<(), LightError> {
    let size = voxels.size();
    let min_side = 2 * LIGHT_REACH + 1;
    if [size.x, size.y, size.z].iter().any(|&s| !(min_side..=MAX_REGION_SIDE).contains(&s)) {
        return Err(LightError::RegionSize { size, min: min_side, max: MAX_REGION_SIDE });
    }
    sky.check_covers(voxels)?;
    let geo = Geometry::new(voxels);
    out.reset(voxels.min() + IVec3::splat(LIGHT_REACH), geo.out_size);
    if scratch.level.len() < size.volume() {
        scratch.level.resize(size.volume(), 0);
    }

    // Step 1: sky 15 at and above each output column's exposure.
    let LightScratch { exposure, out_exposure, .. } = scratch;
    exposure.clear();
    exposure.extend(sky.heights().iter().map(|&h| h.saturating_sub(voxels.min().y).clamp(0, size.y + 1)));
    out_exposure.clear();
    let r = LIGHT_REACH;
    for z in 0..geo.out_size.z {
        let row = ((z + r) * size.x + r) as usize;
        out_exposure.extend_from_slice(&exposure[row..row + geo.out_size.x as usize]);
    }
    let all_open = out_exposure.iter().all(|&e| e <= r);
    let out_plane = out_exposure.len();
    for (oy, layer) in out.data_mut().chunks_exact_mut(out_plane).enumerate() {
        let y = oy as i32 + r;
        for (o, &e) in layer.iter_mut().zip(out_exposure.iter()) {
            *o = (((y >= e) as u8).wrapping_neg()) & (LIGHT_MAX << 4);
        }
    }

    // Steps 2 and 4 for the sky: where every output column is open, nothing can brighten it.
    if !all_open {
        seed_sky(&geo, voxels, props, scratch);
        spread::<true>(&geo, voxels, props, out, scratch);
    }
    // Steps 3 and 4 for block light.
    if props.has_emitters() && seed_emitters(&geo, voxels, props, scratch) {
        spread::<false>(&geo, voxels, props, out, scratch);
    }
    Ok(())
}

/// The shape of one call's box: the padded voxels and the output inside them.
struct Geometry {
    /// Size of the padded box.
    sx: i32,
    sy: i32,
    sz: i32,
    plane: usize,
    out_size: IVec3,
    /// Inclusive local bounds of the output box.
    lo: IVec3,
    hi: IVec3,
}

impl Geometry {
    fn new(voxels: &VoxelBuffer) -> Self {
        let s = voxels.size();
        let out_size = s - IVec3::splat(2 * LIGHT_REACH);
        let lo = IVec3::splat(LIGHT_REACH);
        Self { sx: s.x, sy: s.y, sz: s.z, plane: (s.x * s.z) as usize, out_size, lo, hi: lo + out_size - IVec3::ONE }
    }

    #[inline(always)]
    fn index(&self, x: i32, y: i32, z: i32) -> usize {
        ((y * self.sz + z) * self.sx + x) as usize
    }

    #[inline(always)]
    fn axis_distance(v: i32, lo: i32, hi: i32) -> i32 {
        (lo - v).max(v - hi).max(0)
    }

    /// Manhattan distance from local (x, y, z) to the output box.
    #[inline(always)]
    fn distance(&self, x: i32, y: i32, z: i32) -> i32 {
        Self::axis_distance(x, self.lo.x, self.hi.x)
            + Self::axis_distance(y, self.lo.y, self.hi.y)
            + Self::axis_distance(z, self.lo.z, self.hi.z)
    }

    /// Index of local (x, y, z) in the output, when inside it.
    #[inline(always)]
    fn out_index(&self, x: i32, y: i32, z: i32) -> Option<usize> {
        let inside =
            x >= self.lo.x && y >= self.lo.y && z >= self.lo.z && x <= self.hi.x && y <= self.hi.y && z <= self.hi.z;
        inside.then(|| {
            let (x, y, z) = (x - self.lo.x, y - self.lo.y, z - self.lo.z);
            ((y * self.out_size.z + z) * self.out_size.x + x) as usize
        })
    }
}

#[inline(always)]
fn pack(x: i32, y: i32, z: i32) -> u32 {
    x as u32 | (z as u32) << 10 | (y as u32) << 20
}

#[inline(always)]
fn unpack(p: u32) -> (i32, i32, i32) {
    ((p & 1023) as i32, (p >> 20) as i32, ((p >> 10) & 1023) as i32)
}

/// Gives local (x, y, z) the level `v` when that is brighter than what it has and can still
/// reach the output.
#[inline(always)]
fn push(geo: &Geometry, level: &mut [u8], buckets: &mut [Vec<u32>; 16], x: i32, y: i32, z: i32, v: u8) {
    let i = geo.index(x, y, z);
    if v > level[i] && v as i32 > geo.distance(x, y, z) {
        level[i] = v;
        buckets[v as usize].push(pack(x, y, z));
    }
}

/// Step 2: the voxels below an exposure that touch sky-15 voxels, above or beside.
fn seed_sky(geo: &Geometry, voxels: &VoxelBuffer, props: &LightProps, scratch: &mut LightScratch) {
    let LightScratch { level, buckets, exposure, .. } = scratch;
    let data = voxels.data();
    let (sx, sz) = (geo.sx, geo.sz);
    let closed = geo.sy + 1;
    for z in 0..sz {
        let dz = Geometry::axis_distance(z, geo.lo.z, geo.hi.z);
        for x in 0..sx {
            let dxz = dz + Geometry::axis_distance(x, geo.lo.x, geo.hi.x);
            // A seed has at most level 14 and must exceed its distance to the output.
            let slack = LIGHT_REACH - 1 - dxz;
            if slack < 0 {
                continue;
            }
            let c = (z * sx + x) as usize;
            let e = exposure[c];
            let mut side = closed;
            if x > 0 {
                side = side.min(exposure[c - 1]);
            }
            if x + 1 < sx {
                side = side.min(exposure[c + 1]);
            }
            if z > 0 {
                side = side.min(exposure[c - sx as usize]);
            }
            if z + 1 < sz {
                side = side.min(exposure[c + sx as usize]);
            }
            // Below the exposure (y < e), beside a sky-15 voxel (y >= side) or right under one.
            let lo = side.min(e - 1).max(0).max(geo.lo.y - slack);
            let hi = e.min(geo.sy).min(geo.hi.y + slack + 1);
            for y in lo..hi {
                let opacity = props.packed(data[y as usize * geo.plane + c]) >> 4;
                if opacity < OPAQUE {
                    push(geo, level, buckets, x, y, z, LIGHT_MAX - 1 - opacity);
                }
            }
        }
    }
}

/// Step 3: every emitter of the box; false when there is none.
fn seed_emitters(geo: &Geometry, voxels: &VoxelBuffer, props: &LightProps, scratch: &mut LightScratch) -> bool {
    let Some((lo, hi)) = props.emissive_range() else {
        return false;
    };
    let span = hi - lo;
    let LightScratch { level, buckets, .. } = scratch;
    let mut any = false;
    const BLOCK: usize = 64;
    for (b, ids) in voxels.data().chunks(BLOCK).enumerate() {
        // Branch-free over the block, so it compiles to vector compares.
        if !ids.iter().fold(false, |a, &id| a | (id.wrapping_sub(lo) <= span)) {
            continue;
        }
        for (k, &id) in ids.iter().enumerate() {
            let e = props.emission(id);
            if e > 0 {
                let i = (b * BLOCK + k) as i32;
                let (x, z, y) = (i % geo.sx, (i / geo.sx) % geo.sz, i / geo.plane as i32);
                push(geo, level, buckets, x, y, z, e);
                any = true;
            }
        }
    }
    any
}

/// Step 4 for one channel (`SKY`: sky light, high nibble; else block light, low nibble): the
/// seeded levels spread brightest first; each voxel's final level goes into `out`. Leaves the
/// levels zero and the buckets empty.
fn spread<const SKY: bool>(
    geo: &Geometry,
    voxels: &VoxelBuffer,
    props: &LightProps,
    out: &mut LightBuffer,
    scratch: &mut LightScratch,
) {
    let LightScratch { level, buckets, exposure, .. } = scratch;
    let data = voxels.data();
    let out = out.data_mut();
    let shift = if SKY { 4 } else { 0 };
    let (sx, sy, sz) = (geo.sx, geo.sy, geo.sz);
    let (dx, dz, dy) = (1isize, sx as isize, geo.plane as isize);
    for l in (1..=LIGHT_MAX).rev() {
        let mut k = 0;
        while k < buckets[l as usize].len() {
            let p = buckets[l as usize][k];
            k += 1;
            let (x, y, z) = unpack(p);
            let i = geo.index(x, y, z);
            if level[i] != l {
                continue; // raised since it was queued: expanded at its higher level
            }
            if let Some(o) = geo.out_index(x, y, z) {
                out[o] |= l << shift;
            }
            if l == 1 {
                continue;
            }
            let c = (z * sx + x) as usize;
            let neighbours = [
                (x > 0, -dx, x - 1, y, z, c.wrapping_sub(1)),
                (x + 1 < sx, dx, x + 1, y, z, c + 1),
                (z > 0, -dz, x, y, z - 1, c.wrapping_sub(sx as usize)),
                (z + 1 < sz, dz, x, y, z + 1, c + sx as usize),
                (y > 0, -dy, x, y - 1, z, c),
                (y + 1 < sy, dy, x, y + 1, z, c),
            ];
            for (ok, step, nx, ny, nz, nc) in neighbours {
                if !ok {
                    continue;
                }
                if SKY && ny >= exposure[nc] {
                    continue; // already sky 15
                }
                let n = (i as isize + step) as usize;
                let opacity = props.packed(data[n]) >> 4;
                if opacity >= OPAQUE || opacity + 1 >= l {
                    continue;
                }
                let v = l - 1 - opacity;
                if v > level[n] && v as i32 > geo.distance(nx, ny, nz) {
                    level[n] = v;
                    buckets[v as usize].push(pack(nx, ny, nz));
                }
            }
        }
    }
    for b in buckets.iter_mut() {
        for &p in b.iter() {
            let (x, y, z) = unpack(p);
            level[geo.index(x, y, z)] = 0;
        }
        b.clear();
    }
}
