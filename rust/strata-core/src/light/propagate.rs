//! Light of a box of voxels: [`light_region`] and, for one chunk, [`light_chunk`]. A pure
//! function of the voxels, the sky exposure and the light table, over buffers the caller owns.
//!
//! The steps (see the layer doc in `light/mod.rs` for why each result is exact):
//! 1. every output voxel at or above its column's exposure gets sky 15, all others 0: layers
//!    below every exposure or above all of them are one fill, the rest one branch-free compare
//!    per voxel. When every output column is open the sky is done (sky chunks);
//! 2. sky seeds: a non-opaque voxel under its column's exposure, or beside a neighbour column's
//!    sky-15 voxels, gets `15 − 1 − opacity`. Each column's range of candidates is worked out a
//!    row of columns at a time (usually just the voxel under its exposure), and only within
//!    reach of the output. When no column of the box has sky 15 inside it, no seed can reach the
//!    output and the step is skipped (deep chunks);
//! 3. block seeds: every emitter gets its emission (the voxels are searched only when the table
//!    has an emitter, and a block of 1024 ids only when its smallest id minus the lowest
//!    emissive id is in the emissive range);
//! 4. each channel spreads by a breadth-first search over level buckets, brightest first:
//!    a voxel's first, highest level is final, so each is expanded once. Light entering a voxel
//!    loses `1 + opacity`; opaque voxels take none. A level that cannot reach the output any
//!    more (not above its Manhattan distance to the output box) is not kept.
//!
//! On x86-64 with AVX2 (checked at run time) the same code runs compiled for it: integer work
//! only, so the same bytes on every path (law: Deterministic).
//!
//! Queues are flat `Vec<u32>` of packed local coordinates (x | z << 10 | y << 20) in the caller's
//! [`LightScratch`]; the per-voxel levels are reset after each call from those same queues, so
//! a call costs what the light touches, not the box's volume.
//!
//! May use: `base`, `light::buffer`, `light::error`, `light::props`, `light::sky`.

use crate::base::block::BlockId;
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
    /// Each column's exposure as a local y, clamped to `0..=size.y + 1`, on the box's columns
    /// with a border of closed ones (`(size.x + 2) × (size.z + 2)`), so neighbours need no
    /// bounds checks.
    exposure: Vec<i32>,
    /// The range of local y each column of one row seeds (step 2).
    seed_lo: Vec<i32>,
    seed_hi: Vec<i32>,
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
            seed_lo: Vec::new(),
            seed_hi: Vec::new(),
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
    #[cfg(target_arch = "x86_64")]
    if crate::base::simd::avx2() {
        // SAFETY: the CPU has AVX2.
        unsafe { light_region_avx2(voxels, sky, props, out, scratch) };
        return Ok(());
    }
    light_region_body(voxels, sky, props, out, scratch);
    Ok(())
}

/// [`light_region_body`] built for AVX2: the same integer code, so the same bytes (law:
/// Deterministic); the scans over whole layers and the emitter search take twice the ids at once.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn light_region_avx2(
    voxels: &VoxelBuffer,
    sky: &SkyExposure,
    props: &LightProps,
    out: &mut LightBuffer,
    scratch: &mut LightScratch,
) {
    light_region_body(voxels, sky, props, out, scratch)
}

/// [`light_region`] on checked arguments.
#[inline(always)]
fn light_region_body(
    voxels: &VoxelBuffer,
    sky: &SkyExposure,
    props: &LightProps,
    out: &mut LightBuffer,
    scratch: &mut LightScratch,
) {
    let size = voxels.size();
    let geo = Geometry::new(voxels);
    let r = LIGHT_REACH;
    let (out_min, out_size) = (voxels.min() + IVec3::splat(r), geo.out_size);
    if scratch.level.len() < size.volume() {
        scratch.level.resize(size.volume(), 0);
    }

    // Step 1: sky 15 at and above each output column's exposure, as local y clamped to
    // `0..=size.y + 1` (below the box: open through it; above its top: closed).
    let LightScratch { exposure, out_exposure, .. } = scratch;
    let bottom = voxels.min().y;
    let (closed, closed_world) = (size.y + 1, bottom.saturating_add(size.y + 1));
    let row_len = geo.sx as usize + 2;
    exposure.clear();
    exposure.resize(row_len, closed);
    for row in sky.heights().chunks_exact(geo.sx as usize) {
        exposure.push(closed);
        exposure.extend(row.iter().map(|&h| h.clamp(bottom, closed_world) - bottom));
        exposure.push(closed);
    }
    exposure.resize(exposure.len() + row_len, closed);
    out_exposure.clear();
    for z in 0..out_size.z {
        let row = geo.column(r, z + r);
        out_exposure.extend_from_slice(&exposure[row..row + out_size.x as usize]);
    }
    let (lowest, highest) = out_exposure.iter().fold((i32::MAX, i32::MIN), |(a, b), &e| (a.min(e), b.max(e)));
    out.reshape_for_overwrite(out_min, out_size);
    let out_plane = out_exposure.len();
    for (oy, layer) in out.data_mut().chunks_exact_mut(out_plane).enumerate() {
        let y = oy as i32 + r;
        if y < lowest {
            layer.fill(0);
        } else if y >= highest {
            layer.fill(LIGHT_MAX << 4);
        } else {
            for (o, &e) in layer.iter_mut().zip(out_exposure.iter()) {
                *o = (((y >= e) as u8).wrapping_neg()) & (LIGHT_MAX << 4);
            }
        }
    }

    // Steps 2 and 4 for the sky. Nothing can brighten an output whose every column is open;
    // and when no column has sky 15 inside the box, every seed lies at its top layer, 14 or
    // more from the output with at most 14, so none reaches it.
    let lowest_anywhere = exposure.iter().copied().min().unwrap_or(closed);

    if highest > r && lowest_anywhere < geo.sy {
        seed_sky(&geo, voxels, props, scratch);
        spread::<true>(&geo, voxels, props, out, scratch);
    }
    // Steps 3 and 4 for block light.
    if props.has_emitters() && seed_emitters(&geo, voxels, props, scratch) {
        spread::<false>(&geo, voxels, props, out, scratch);
    }
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

    /// Index of column (x, z) in the bordered exposure grid.
    #[inline(always)]
    fn column(&self, x: i32, z: i32) -> usize {
        ((z + 1) * (self.sx + 2) + x + 1) as usize
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

/// Step 2: the voxels below an exposure that touch sky-15 voxels, above or beside. The range
/// of each column is worked out a row at a time in vector registers; a column then looks at the
/// voxels of its range (usually just the non-clear voxel under its exposure).
#[inline(always)]
fn seed_sky(geo: &Geometry, voxels: &VoxelBuffer, props: &LightProps, scratch: &mut LightScratch) {
    let LightScratch { level, buckets, exposure, seed_lo, seed_hi, .. } = scratch;
    let data = voxels.data();
    let (sx, row_len) = (geo.sx as usize, geo.sx as usize + 2);
    seed_lo.resize(sx, 0);
    seed_hi.resize(sx, 0);
    for z in 0..geo.sz {
        let dz = Geometry::axis_distance(z, geo.lo.z, geo.hi.z);
        // A seed has at most level 14 and must exceed its distance to the output.
        if dz > LIGHT_REACH - 1 {
            continue;
        }
        let at = geo.column(0, z);
        let row = |from: usize| &exposure[from..from + sx];
        let (centre, left, right, up, down) = (row(at), row(at - 1), row(at + 1), row(at - row_len), row(at + row_len));
        let (dz_lo, dz_hi) = (geo.lo.y + dz - (LIGHT_REACH - 1), geo.hi.y - dz + LIGHT_REACH);
        let (lo_x, hi_x) = (geo.lo.x, geo.hi.x);
        let columns =
            seed_lo.iter_mut().zip(seed_hi.iter_mut()).zip(centre.iter().zip(left).zip(right.iter().zip(up).zip(down)));
        for (x, ((lo_out, hi_out), ((&e, &l), ((&r, &u), &d)))) in columns.enumerate() {
            let dx = Geometry::axis_distance(x as i32, lo_x, hi_x);
            let side = l.min(r).min(u).min(d);
            // Below the exposure (y < e), beside a sky-15 voxel (y >= side) or right under
            // one, and near enough the output: `slack = 13 − dz − dx` more steps allowed.
            let lo = side.min(e - 1).max(0).max(dz_lo + dx);
            let hi = e.min(geo.sy).min(dz_hi - dx);
            *lo_out = lo;
            *hi_out = if dx + dz > LIGHT_REACH - 1 { lo } else { hi };
        }
        for x in 0..sx {
            let c = z as usize * sx + x;
            for y in seed_lo[x]..seed_hi[x] {
                let opacity = props.packed(data[y as usize * geo.plane + c]) >> 4;
                if opacity < OPAQUE {
                    push(geo, level, buckets, x as i32, y, z, LIGHT_MAX - 1 - opacity);
                }
            }
        }
    }
}

/// Step 3: every emitter of the box; false when there is none.
#[inline(always)]
fn seed_emitters(geo: &Geometry, voxels: &VoxelBuffer, props: &LightProps, scratch: &mut LightScratch) -> bool {
    let Some((lo, hi)) = props.emissive_range() else {
        return false;
    };
    let span = hi - lo;
    let LightScratch { level, buckets, .. } = scratch;
    let mut any = false;
    const BLOCK: usize = 1024;
    for (b, ids) in voxels.data().chunks(BLOCK).enumerate() {
        // The smallest id above `lo` (wrapping), over the block at once: vector minimums.
        if ids.iter().fold(BlockId::MAX, |m, &id| m.min(id.wrapping_sub(lo))) > span {
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
#[inline(always)]
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
            let c = geo.column(x, z);
            let row_len = sx as usize + 2;
            let neighbours = [
                (x > 0, -dx, x - 1, y, z, c - 1),
                (x + 1 < sx, dx, x + 1, y, z, c + 1),
                (z > 0, -dz, x, y, z - 1, c - row_len),
                (z + 1 < sz, dz, x, y, z + 1, c + row_len),
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
