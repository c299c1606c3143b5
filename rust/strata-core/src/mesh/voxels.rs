//! Bulk compares of block ids, for the greedy mesher: step 1's class masks (solid, liquid, air)
//! of whole rows of voxels, and step 3's test of which neighbouring faces hold the same block.
//! Portable code, SSE2 (the x86-64 baseline), AVX2 in the AVX2 build and AVX-512 in the
//! AVX-512 one (see `base::simd::AVX2`); every path gives the same bits.
//!
//! May use: `base` and the other `mesh` modules.

use crate::base::block::{self, BlockId};
#[cfg(target_arch = "x86_64")]
use crate::base::simd::{AVX2, AVX512};

/// Voxel classes, as bits: hides its neighbours' faces (solid and opaque); draws liquid faces;
/// air; draws cutout, transparent or opaque faces; solid for collision; a cutout block that hides
/// the faces between two of its own voxels (leaves).
pub(super) const CLASS_SOLID: u8 = 1;
pub(super) const CLASS_LIQUID: u8 = 2;
pub(super) const CLASS_AIR: u8 = 4;
pub(super) const CLASS_CUTOUT: u8 = 8;
pub(super) const CLASS_TRANSPARENT: u8 = 16;
pub(super) const CLASS_OPAQUE: u8 = 32;
pub(super) const CLASS_PHYSICS: u8 = 64;
pub(super) const CLASS_CUTOUT_HIDES_SAME: u8 = 128;

/// Bits `[start, start + 64)` of the bit stream `words` (which has a spare word at the end),
/// masked by `full`.
#[inline(always)]
pub(super) fn bit_range(words: &[u64], start: usize, full: u64) -> u64 {
    let (i, off) = (start / 64, (start % 64) as u32);
    // `hi << 1 << (63 - off)`: no shift by 64 when `off` is 0.
    ((words[i] >> off) | (words[i + 1] << 1 << (63 - off))) & full
}

/// Step 1's compares over the flat voxel array, 64 voxels a word (each with a spare zero word at
/// the end): equal to air into `air`, equal to `liquid` into `liquid`.
#[inline(always)]
pub(super) fn flat_masks(data: &[BlockId], liquid: BlockId, air_out: &mut Vec<u64>, liquid_out: &mut Vec<u64>) {
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

/// Class rows of the voxels `data`, rows of `px` ids (32 to 64), when the only non-solid ids
/// are air and `liquid_id`, compared with AVX2 in groups of 32 ids (the second group
/// overlapping the first when `px` is not 64): two loads and two compares per class, the 16-bit
/// compare masks packed to bytes so that one byte mask holds the group's 32 bits in order.
/// Returns the highest id of `data` (read from the same loads), which says whether those
/// classes are the whole answer.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) fn class_rows_wide(
    data: &[BlockId],
    px: usize,
    liquid_id: BlockId,
    solid: &mut [u64],
    liquid: &mut [u64],
    air: &mut [u64],
) -> BlockId {
    use std::arch::x86_64::*;
    let full = class_rows_full(data, px, &[solid.len(), liquid.len(), air.len()]);
    let (air_ids, liquid_ids) = (_mm256_set1_epi16(block::AIR as i16), _mm256_set1_epi16(liquid_id as i16));
    let starts = [0, px - 32];
    let mut highest = _mm256_setzero_si256();
    for (((row, s), l), a) in data.chunks_exact(px).zip(solid).zip(liquid).zip(air) {
        let (mut air_mask, mut liquid_mask) = (0u64, 0u64);
        for at in starts {
            let (lo, hi) = load_32(&row[at..at + 32]);
            air_mask |= equal_bits_32(lo, hi, air_ids) << at;
            liquid_mask |= equal_bits_32(lo, hi, liquid_ids) << at;
            highest = _mm256_max_epu16(highest, _mm256_max_epu16(lo, hi));
        }
        *a = air_mask;
        *l = liquid_mask;
        *s = !(air_mask | liquid_mask) & full;
    }
    highest_of_16(highest)
}

/// The 32 ids of `ids` (at least 32) in two AVX2 registers of 16.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn load_32(ids: &[BlockId]) -> (std::arch::x86_64::__m256i, std::arch::x86_64::__m256i) {
    use std::arch::x86_64::*;
    assert!(ids.len() >= 32, "32 ids");
    // SAFETY: the loads read the first 32 ids (64 bytes) of `ids`, checked just above.
    unsafe {
        (_mm256_loadu_si256(ids.as_ptr().cast::<__m256i>()), _mm256_loadu_si256(ids.as_ptr().add(16).cast::<__m256i>()))
    }
}

/// Bit `k` set where id `k` of the 32 in `lo`, `hi` ([`load_32`]) equals `want` (splat).
/// Packing interleaves the two 16-id halves by 64 bits; the permute puts the ids back in order.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn equal_bits_32(
    lo: std::arch::x86_64::__m256i,
    hi: std::arch::x86_64::__m256i,
    want: std::arch::x86_64::__m256i,
) -> u64 {
    use std::arch::x86_64::*;
    let packed = _mm256_packs_epi16(_mm256_cmpeq_epi16(lo, want), _mm256_cmpeq_epi16(hi, want));
    _mm256_movemask_epi8(_mm256_permute4x64_epi64::<0b11_01_10_00>(packed)) as u32 as u64
}

/// How many other ids [`cutout_rows_wide`] looks for at most.
pub(super) const FAST_CUTOUT_OTHERS: usize = 4;

/// Step 1's second look, in the AVX2 builds, at a box whose ids reach past the fast pass's
/// prefix of simple ids: the voxels equal to `cutout_id` into `cutout` (a word per row of `px`
/// ids, as [`class_rows_wide`] packs them), and whether no voxel holds any of `others`. Every id
/// below the library's end that is neither simple nor `cutout_id` is in `others` (repeated to
/// fill it), so a box where this returns true holds only the fast pass's classes and one cutout
/// block.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) fn cutout_rows_wide(
    data: &[BlockId],
    px: usize,
    cutout_id: BlockId,
    others: [BlockId; FAST_CUTOUT_OTHERS],
    cutout: &mut [u64],
) -> bool {
    use std::arch::x86_64::*;
    class_rows_full(data, px, &[cutout.len()]);
    let cutout_ids = _mm256_set1_epi16(cutout_id as i16);
    let others = others.map(|id| _mm256_set1_epi16(id as i16));
    let starts = [0, px - 32];
    let mut found = _mm256_setzero_si256();
    for (row, c) in data.chunks_exact(px).zip(cutout) {
        let mut mask = 0u64;
        for at in starts {
            let (lo, hi) = load_32(&row[at..at + 32]);
            mask |= equal_bits_32(lo, hi, cutout_ids) << at;
            for other in others {
                found = _mm256_or_si256(
                    found,
                    _mm256_or_si256(_mm256_cmpeq_epi16(lo, other), _mm256_cmpeq_epi16(hi, other)),
                );
            }
        }
        *c = mask;
    }
    _mm256_testz_si256(found, found) != 0
}

/// Checks the class rows' buffers against `data` (rows of `px` ids, 32 to 64; a word per row in
/// each class) and returns the mask of a row's `px` bits.
#[cfg(target_arch = "x86_64")]
fn class_rows_full(data: &[BlockId], px: usize, class_lens: &[usize]) -> u64 {
    assert!((32..=64).contains(&px), "rows of 32 to 64 ids");
    let rows = data.len() / px;
    assert!(
        rows * px == data.len() && class_lens.iter().all(|&n| n == rows),
        "whole rows of ids, a word per row in each class"
    );
    if px == 64 { !0u64 } else { (1u64 << px) - 1 }
}

/// The highest of 16 ids in an AVX2 register: the halves folded onto each other down to one
/// lane.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn highest_of_16(ids: std::arch::x86_64::__m256i) -> BlockId {
    use std::arch::x86_64::*;
    let m = _mm_max_epu16(_mm256_castsi256_si128(ids), _mm256_extracti128_si256::<1>(ids));
    let m = _mm_max_epu16(m, _mm_srli_si128::<8>(m));
    let m = _mm_max_epu16(m, _mm_srli_si128::<4>(m));
    let m = _mm_max_epu16(m, _mm_srli_si128::<2>(m));
    _mm_extract_epi16::<0>(m) as BlockId
}

/// [`class_rows_wide`] with AVX-512: each group of 32 ids is one load, compared into mask
/// registers (one compare per class, no packing).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,avx512f,avx512bw")]
pub(super) fn class_rows_wide_512(
    data: &[BlockId],
    px: usize,
    liquid_id: BlockId,
    solid: &mut [u64],
    liquid: &mut [u64],
    air: &mut [u64],
) -> BlockId {
    use std::arch::x86_64::*;
    let full = class_rows_full(data, px, &[solid.len(), liquid.len(), air.len()]);
    let (air_ids, liquid_ids) = (_mm512_set1_epi16(block::AIR as i16), _mm512_set1_epi16(liquid_id as i16));
    let tail = px - 32;
    let mut highest = _mm512_setzero_si512();
    for (((row, s), l), a) in data.chunks_exact(px).zip(solid).zip(liquid).zip(air) {
        // SAFETY: the loads read ids `0..32` and `tail..tail + 32` of the row's `px` (32 to 64).
        let (lo, hi) =
            unsafe { (_mm512_loadu_si512(row.as_ptr().cast()), _mm512_loadu_si512(row.as_ptr().add(tail).cast())) };
        let bits = |want: __m512i| {
            (_mm512_cmpeq_epi16_mask(lo, want) as u64) | (_mm512_cmpeq_epi16_mask(hi, want) as u64) << tail
        };
        let (air_mask, liquid_mask) = (bits(air_ids), bits(liquid_ids));
        highest = _mm512_max_epu16(highest, _mm512_max_epu16(lo, hi));
        *a = air_mask;
        *l = liquid_mask;
        *s = !(air_mask | liquid_mask) & full;
    }
    // The highest of the 32 lanes: the two halves' highest, then the highest of those 16.
    highest_of_16(_mm256_max_epu16(_mm512_castsi512_si256(highest), _mm512_extracti64x4_epi64::<1>(highest)))
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
        c.iter()
            .enumerate()
            .fold((0, 0), |(ma, mb), (k, &id)| (ma | ((id == a) as u64) << k, mb | ((id == b) as u64) << k))
    }
}

/// Up to this many candidates, [`same_blocks`] compares strided voxels one by one.
#[cfg(target_arch = "x86_64")]
const FEW_CANDIDATES: u32 = 6;

/// `candidates` (bits `b` of a padded row) less the bits where the voxels at `a + b * step` and
/// `b + b * step` hold different blocks. The AVX2 builds (`SIMD`) compare a contiguous row
/// (`step` 1) 64 voxels at a time (the AVX-512 one into mask registers), and a strided one with
/// more than [`FEW_CANDIDATES`] candidates in groups of eight gathered lanes.
#[inline(always)]
pub(super) fn same_blocks<const SIMD: u8>(data: &[BlockId], a: usize, b: usize, step: usize, candidates: u64) -> u64 {
    // The wide compares read every lane instead of branching on each candidate (whose number
    // the branch predictor cannot guess).
    #[cfg(target_arch = "x86_64")]
    if SIMD >= AVX2 && candidates != 0 {
        let far = a.max(b);
        if step == 1 && far + 64 <= data.len() {
            let (x, y) = (&data[a..a + 64], &data[b..b + 64]);
            // SAFETY: `SIMD` code at `AVX2` or above runs only on CPUs with AVX2, at `AVX512`
            // only on CPUs with AVX-512 F and BW (checked at run time).
            return candidates & unsafe { if SIMD >= AVX512 { equal_ids_64_512(x, y) } else { equal_ids_64(x, y) } };
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
    use std::arch::x86_64::{
        _mm256_and_si256, _mm256_castsi256_ps, _mm256_cmpeq_epi32, _mm256_i32gather_epi32, _mm256_movemask_ps,
        _mm256_set1_epi32, _mm256_setr_epi32, _mm256_setzero_si256, _mm256_xor_si256,
    };
    let s = step as i32;
    let lanes = _mm256_setr_epi32(0, s, 2 * s, 3 * s, 4 * s, 5 * s, 6 * s, 7 * s);
    let id_bits = _mm256_set1_epi32(0xFFFF);
    let mut mask = 0u64;
    for g in 0..groups {
        let at = 8 * g * step;
        // SAFETY: the caller's promise: lanes `a (b) + at + k step` and the ids after them are in
        // `data` (a scale of 2 bytes per id).
        let (x, y) = unsafe {
            (
                _mm256_i32gather_epi32::<2>(data.as_ptr().add(a + at).cast::<i32>(), lanes),
                _mm256_i32gather_epi32::<2>(data.as_ptr().add(b + at).cast::<i32>(), lanes),
            )
        };
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
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi16, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_packs_epi16,
        _mm256_permute4x64_epi64,
    };
    let (x, y) = (&x[..64], &y[..64]);
    let mut mask = 0u64;
    for half in 0..2 {
        // SAFETY: each load reads 16 ids at `32 half (+ 16)`, inside the 64 of `x` and `y`.
        let equal = |o: usize| unsafe {
            _mm256_cmpeq_epi16(
                _mm256_loadu_si256(x.as_ptr().add(o).cast::<__m256i>()),
                _mm256_loadu_si256(y.as_ptr().add(o).cast::<__m256i>()),
            )
        };
        // Packing interleaves the two 16-lane halves by 64 bits; the permute puts ids back in order.
        let bytes =
            _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packs_epi16(equal(32 * half), equal(32 * half + 16)));
        mask |= (_mm256_movemask_epi8(bytes) as u32 as u64) << (32 * half);
    }
    mask
}

/// [`equal_ids_64`] with AVX-512: two compares into mask registers.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn equal_ids_64_512(x: &[BlockId], y: &[BlockId]) -> u64 {
    use std::arch::x86_64::{_mm512_cmpeq_epi16_mask, _mm512_loadu_si512};
    let (x, y) = (&x[..64], &y[..64]);
    // SAFETY: each load reads 32 ids at `o` (0 or 32), inside the 64 of `x` and `y`.
    let equal = |o: usize| unsafe {
        _mm512_cmpeq_epi16_mask(
            _mm512_loadu_si512(x.as_ptr().add(o).cast()),
            _mm512_loadu_si512(y.as_ptr().add(o).cast()),
        ) as u64
    };
    equal(0) | equal(32) << 32
}

/// [`equal_bytes_64`] with AVX-512: one compare into a mask register.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
pub(super) fn equal_bytes_64_512(x: &[u8], y: &[u8]) -> u64 {
    use std::arch::x86_64::{_mm512_cmpeq_epi8_mask, _mm512_loadu_si512};
    let (x, y) = (&x[..64], &y[..64]);
    // SAFETY: each load reads the 64 bytes of `x` or `y`.
    unsafe { _mm512_cmpeq_epi8_mask(_mm512_loadu_si512(x.as_ptr().cast()), _mm512_loadu_si512(y.as_ptr().cast())) }
}

/// Bit `k` set where `x[k] == y[k]`, for the first 64 bytes of each (the light a row of faces
/// sees, 64 voxels at a time).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn equal_bytes_64(x: &[u8], y: &[u8]) -> u64 {
    use std::arch::x86_64::{__m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8};
    let (x, y) = (&x[..64], &y[..64]);
    // SAFETY: each load reads 32 bytes at `o` (0 or 32), inside the 64 of `x` and `y`.
    let equal = |o: usize| unsafe {
        _mm256_movemask_epi8(_mm256_cmpeq_epi8(
            _mm256_loadu_si256(x.as_ptr().add(o).cast::<__m256i>()),
            _mm256_loadu_si256(y.as_ptr().add(o).cast::<__m256i>()),
        )) as u32 as u64
    };
    equal(0) | equal(32) << 32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::rng::hash3;

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn wide_class_rows_equal_one_voxel_at_a_time_for_every_row_width_from_32_to_64() {
        if !crate::base::simd::avx2() {
            return;
        }
        let liquid_id = block::WATER;
        for px in 32..=64usize {
            let rows = 7;
            let data: Vec<BlockId> = (0..px * rows)
                .map(|k| {
                    let h = hash3(px as u64, 3, k as i32, 0, 0);
                    // Mostly the common ids, now and then any id (the highest id is asked for).
                    [block::AIR, block::STONE, liquid_id, block::DIRT, (h >> 32) as BlockId][(h % 5) as usize]
                })
                .collect();
            let (mut solid, mut liquid, mut air) = (vec![0; rows], vec![0; rows], vec![0; rows]);
            // SAFETY: the CPU has AVX2 (checked above).
            let highest = unsafe { class_rows_wide(&data, px, liquid_id, &mut solid, &mut liquid, &mut air) };
            assert_eq!(Some(highest), data.iter().copied().max(), "highest id of rows of {px}");
            if crate::base::simd::avx512() {
                let (mut solid_512, mut liquid_512, mut air_512) = (vec![0; rows], vec![0; rows], vec![0; rows]);
                // SAFETY: the CPU has AVX-512 F and BW (checked just above).
                let highest_512 =
                    unsafe { class_rows_wide_512(&data, px, liquid_id, &mut solid_512, &mut liquid_512, &mut air_512) };
                assert_eq!(
                    (highest_512, &solid_512, &liquid_512, &air_512),
                    (highest, &solid, &liquid, &air),
                    "AVX-512 against AVX2, rows of {px}"
                );
            }
            for (r, row) in data.chunks_exact(px).enumerate() {
                let mask = |f: &dyn Fn(BlockId) -> bool| {
                    row.iter().enumerate().fold(0u64, |m, (x, &id)| m | (f(id) as u64) << x)
                };
                assert_eq!(air[r], mask(&|id| id == block::AIR), "air, row {r} of {px}");
                assert_eq!(liquid[r], mask(&|id| id == liquid_id), "liquid, row {r} of {px}");
                assert_eq!(solid[r], mask(&|id| id != block::AIR && id != liquid_id), "solid, row {r} of {px}");
            }
        }
    }
}
