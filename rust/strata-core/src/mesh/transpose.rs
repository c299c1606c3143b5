//! Bit-matrix transposes for step 1 of the greedy mesher: a layer's rows along x (bit x of row
//! z) become rows along z (bit z of row x), so the x faces also have rows running inside their
//! slices. Layers that are all empty or all full are filled directly; the others go two at a
//! time through SSE2 (the x86-64 baseline), or four at a time through AVX2 in the AVX2 build
//! (as 32×32 halves while a layer has at most 40 rows, else as whole 64×64 matrices).
//!
//! May use: `base` and the other `mesh` modules.

use crate::base::simd::AVX2;
use crate::mesh::layout::Dims;

/// Transposes the rows along x of `rows` (index `y * pz + z`, bit x) into rows along z of `out`
/// (index `y * px + x`, bit z), every padded layer: layers all empty or all full directly, the
/// others two at a time (four in the AVX2 builds, `SIMD`).
#[inline(always)]
pub(super) fn transpose_layers<const SIMD: u8>(rows: &[u64], out: &mut Vec<u64>, Dims { px, py, pz, .. }: Dims) {
    if out.len() < py * px {
        out.resize(py * px, 0);
    }
    let full_x = if px == 64 { !0 } else { (1u64 << px) - 1 };
    let full_z = if pz == 64 { !0 } else { (1u64 << pz) - 1 };
    let lanes = if SIMD >= AVX2 { 4 } else { 2 };
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
            if SIMD >= AVX2 && pz <= 32 + MAX_EXTRA_ROWS {
                // SAFETY: `SIMD` is `AVX2` or above only in the builds compiled for AVX2, which run only on
                // CPUs that have it.
                unsafe { transpose_layers_4_wide(rows, out, &group[..waiting], px, pz) };
                waiting = 0;
                continue;
            }
            let inputs: [&[u64]; 4] =
                std::array::from_fn(|k| if k < waiting { &rows[group[k] * pz..group[k] * pz + pz] } else { &[] });
            let mut transposed = [[0u64; 4]; 64];
            #[cfg(target_arch = "x86_64")]
            if SIMD >= AVX2 {
                // SAFETY: `SIMD` is `AVX2` or above only in the builds compiled for AVX2 and BMI2, which run
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
#[cfg(target_arch = "x86_64")]
const MAX_EXTRA_ROWS: usize = 8;

/// One round of a transpose of four bit matrices side by side (one AVX2 register per row, `N`
/// rows): block swaps between rows `r` and `r + J` (`r & J == 0`), `lo` = the columns without
/// bit `J`. Only for callers compiled for AVX2, into which it is inlined.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn transpose_round_wide<const J: i32, const N: usize>(v: &mut [std::arch::x86_64::__m256i; N], lo: u64) {
    use std::arch::x86_64::{
        _mm256_and_si256, _mm256_set1_epi64x, _mm256_slli_epi64, _mm256_srli_epi64, _mm256_xor_si256,
    };
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
    let row = |r: usize| {
        _mm256_set_epi64x(inputs[3][r] as i64, inputs[2][r] as i64, inputs[1][r] as i64, inputs[0][r] as i64)
    };
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
            w = _mm256_or_si256(
                w,
                _mm256_sllv_epi64(_mm256_and_si256(_mm256_srlv_epi64(x, at), one), _mm256_set1_epi64x(32 + r as i64)),
            );
        }
        w
    };
    // Four columns at a time: a 4×4 transpose of their lanes gives each layer's four output rows
    // in one register.
    let mut c = 0;
    while c + 4 <= px {
        let (w0, w1, w2, w3) = (column(c), column(c + 1), column(c + 2), column(c + 3));
        let (t0, t1, t2, t3) = (
            _mm256_unpacklo_epi64(w0, w1),
            _mm256_unpackhi_epi64(w0, w1),
            _mm256_unpacklo_epi64(w2, w3),
            _mm256_unpackhi_epi64(w2, w3),
        );
        let by_layer = [
            _mm256_permute2x128_si256::<0x20>(t0, t2),
            _mm256_permute2x128_si256::<0x20>(t1, t3),
            _mm256_permute2x128_si256::<0x31>(t0, t2),
            _mm256_permute2x128_si256::<0x31>(t1, t3),
        ];
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
const TRANSPOSE_LOW: [u64; 6] = [
    0x0000_0000_FFFF_FFFF,
    0x0000_FFFF_0000_FFFF,
    0x00FF_00FF_00FF_00FF,
    0x0F0F_0F0F_0F0F_0F0F,
    0x3333_3333_3333_3333,
    0x5555_5555_5555_5555,
];

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
            *row = [
                unsafe { _mm_cvtsi128_si64(w) } as u64,
                unsafe { _mm_cvtsi128_si64(_mm_unpackhi_epi64(w, w)) } as u64,
                0,
                0,
            ];
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
