//! The AVX2 per-point kernel of [`PerlinFbm3`]: four points per `__m256d`, any points (no grid),
//! written with intrinsics; [`PerlinFbm3::get_many`] and the sparse octaves of
//! [`PerlinFbm3::fill_grid`] run it.
//!
//! Lane by lane it performs exactly the IEEE operations of the parent module's `perlin_3d` and
//! `PerlinFbm3::get`, in the same order and with nothing fused, so it gives their bits (the
//! parent's tests run it beside `get`). How the same operations are reached:
//!
//! - the corner: `trunc(v)` (`roundpd` toward zero), minus one where `v ≤ 0`, is the `f64` value
//!   of `noise`'s integer corner; its low 8 bits are read from the mantissa of `c + 1.5·2⁵²`.
//!   Both are exact only below 2⁵¹, so a group runs here only when every coordinate of every
//!   octave stays below [`super::FAST_LIMIT`] (checked once per group from the first octave, see
//!   [`super::fast_bound`]); other groups, NaN and infinities included, run `get`;
//! - the hashes: per lane, the three table levels as scalar byte loads (14 per point), the last
//!   level through a table that holds the gradient's terms (`GRADIENT_TERMS` of the hash) instead
//!   of the hash, packed four bits per corner into one 32-bit word;
//! - the gradient `±u ± v`: `u` and `v` picked from the distances by `blendv` on the terms' bits,
//!   and negated by xoring the sign bit (`a − b` is `a + (−b)` bit for bit in IEEE arithmetic);
//! - the clamps as `minpd`/`maxpd`, which equal `f64::clamp` on every number.
//!
//! May use: the parent module (`noise::fast_fbm3`) and `std::arch`.

use super::{PERLIN_3D_SCALE, PerlinFbm3, SIGN_BIT};
use std::arch::x86_64::*;

/// 1.5 · 2⁵²: `c + MAGIC` holds the integer `c` (|c| < 2⁵¹) in its low mantissa bits.
const MAGIC: f64 = 6_755_399_441_055_744.0;

/// Constants shared by every octave.
#[derive(Clone, Copy)]
pub(super) struct Consts {
    zero: __m256d,
    one: __m256d,
    minus_one: __m256d,
    six: __m256d,
    fifteen: __m256d,
    ten: __m256d,
    magic: __m256d,
    sign: __m256d,
    scale: __m256d,
}

impl Consts {
    #[target_feature(enable = "avx2")]
    pub(super) fn new() -> Self {
        Self {
            zero: _mm256_setzero_pd(),
            one: _mm256_set1_pd(1.0),
            minus_one: _mm256_set1_pd(-1.0),
            six: _mm256_set1_pd(6.0),
            fifteen: _mm256_set1_pd(15.0),
            ten: _mm256_set1_pd(10.0),
            magic: _mm256_set1_pd(MAGIC),
            sign: _mm256_castsi256_pd(_mm256_set1_epi64x(SIGN_BIT as i64)),
            scale: _mm256_set1_pd(PERLIN_3D_SCALE),
        }
    }
}

/// One octave's tables: `noise`'s permutation, and per index the gradient terms of the hash it
/// ends in (`GRADIENT_TERMS[perm[i] & 15]`).
#[derive(Clone, Copy)]
pub(super) struct Tables<'a> {
    pub(super) perm: &'a [u8; 256],
    pub(super) terms: &'a [u8; 256],
}

/// One axis of four points: the distances to the lower and the upper corner, the quintic curve
/// and one minus it; the corner's integer in the low mantissa bits of `cell`.
struct Axis {
    near: __m256d,
    far: __m256d,
    curve: __m256d,
    rest: __m256d,
    cell: __m256i,
}

/// `floor_to_isize`, the distances and `quintic` of `perlin_3d` on four coordinates below
/// [`super::FAST_LIMIT`].
#[inline]
#[target_feature(enable = "avx2")]
fn axis(c: &Consts, v: __m256d) -> Axis {
    let truncated = _mm256_round_pd::<{ _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC }>(v);
    // `v as isize − 1` at and below zero: −1.0 added there, +0.0 elsewhere (`t + 0 = t` for the
    // truncation of a positive `v`, never −0).
    let below = _mm256_and_pd(_mm256_cmp_pd::<_CMP_LE_OQ>(v, c.zero), c.minus_one);
    let corner = _mm256_add_pd(truncated, below);
    let near = _mm256_sub_pd(v, corner);
    let far = _mm256_sub_pd(near, c.one);
    // `t.clamp(0, 1)`: the same value for every number (the distance is in [0, 1] anyway).
    let x = _mm256_max_pd(_mm256_min_pd(near, c.one), c.zero);
    let cube = _mm256_mul_pd(_mm256_mul_pd(x, x), x);
    let inner = _mm256_add_pd(_mm256_mul_pd(x, _mm256_sub_pd(_mm256_mul_pd(x, c.six), c.fifteen)), c.ten);
    let curve = _mm256_mul_pd(cube, inner);
    let rest = _mm256_sub_pd(c.one, curve);
    Axis { near, far, curve, rest, cell: _mm256_castpd_si256(_mm256_add_pd(corner, c.magic)) }
}

/// The gradient terms of the eight corners of each lane's unit cube, four bits per corner
/// (corner `n = 4·dx + 2·dy + dz` at bits `4n..4n + 4`), one word per lane.
#[inline]
#[target_feature(enable = "avx2")]
fn corner_terms(t: Tables<'_>, cells: [__m256i; 3]) -> __m256i {
    let mut lanes = [[0u64; 4]; 3];
    for (lane, cell) in lanes.iter_mut().zip(cells) {
        // SAFETY: `lane` holds four u64.
        unsafe { _mm256_storeu_si256(lane.as_mut_ptr().cast(), cell) };
    }
    let word = |l: usize| {
        let (x, y, z) = (lanes[0][l] as u8, lanes[1][l] as u8, lanes[2][l] as u8);
        let (y1, z1) = (y.wrapping_add(1), z.wrapping_add(1));
        let (a0, a1) = (t.perm[usize::from(x)], t.perm[usize::from(x.wrapping_add(1))]);
        let b = [
            t.perm[usize::from(a0 ^ y)],
            t.perm[usize::from(a0 ^ y1)],
            t.perm[usize::from(a1 ^ y)],
            t.perm[usize::from(a1 ^ y1)],
        ];
        let mut w = 0u64;
        for (n, b) in b.iter().enumerate() {
            w |= u64::from(t.terms[usize::from(b ^ z)]) << (8 * n);
            w |= u64::from(t.terms[usize::from(b ^ z1)]) << (8 * n + 4);
        }
        w as i64
    };
    _mm256_setr_epi64x(word(0), word(1), word(2), word(3))
}

/// The gradient `±u ± v` of one corner whose terms' bits (`u` is y, `u` negated, `v` is z, `v`
/// negated) are at bits `63 − UY`, ... of `w`: shifted left by `UY` (...) they reach the sign
/// bit, which `blendv` reads and which masks the negation.
#[inline]
#[target_feature(enable = "avx2")]
fn gradient<const UY: i32, const UN: i32, const VZ: i32, const VN: i32>(
    c: &Consts,
    w: __m256i,
    x: __m256d,
    y: __m256d,
    z: __m256d,
) -> __m256d {
    let u = _mm256_blendv_pd(x, y, _mm256_castsi256_pd(_mm256_slli_epi64::<UY>(w)));
    let v = _mm256_blendv_pd(y, z, _mm256_castsi256_pd(_mm256_slli_epi64::<VZ>(w)));
    let u_sign = _mm256_and_pd(_mm256_castsi256_pd(_mm256_slli_epi64::<UN>(w)), c.sign);
    let v_sign = _mm256_and_pd(_mm256_castsi256_pd(_mm256_slli_epi64::<VN>(w)), c.sign);
    _mm256_add_pd(_mm256_xor_pd(u, u_sign), _mm256_xor_pd(v, v_sign))
}

/// `linear(a, b, α) = b·α + a·(1 − α)`, with `1 − α` given.
#[inline]
#[target_feature(enable = "avx2")]
fn lerp(a: __m256d, b: __m256d, alpha: __m256d, rest: __m256d) -> __m256d {
    _mm256_add_pd(_mm256_mul_pd(b, alpha), _mm256_mul_pd(a, rest))
}

/// `perlin_3d` of one octave at four points whose coordinates are below [`super::FAST_LIMIT`].
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn perlin4(c: &Consts, t: Tables<'_>, p: [__m256d; 3]) -> __m256d {
    let (ax, ay, az) = (axis(c, p[0]), axis(c, p[1]), axis(c, p[2]));
    let w = corner_terms(t, [ax.cell, ay.cell, az.cell]);
    let (x0, x1, y0, y1, z0, z1) = (ax.near, ax.far, ay.near, ay.far, az.near, az.far);
    // Corner n = 4·dx + 2·dy + dz, its terms at bits 4n (u is y), 4n + 1 (u negated), 4n + 2
    // (v is z), 4n + 3 (v negated).
    let g000 = gradient::<63, 62, 61, 60>(c, w, x0, y0, z0);
    let g001 = gradient::<59, 58, 57, 56>(c, w, x0, y0, z1);
    let g010 = gradient::<55, 54, 53, 52>(c, w, x0, y1, z0);
    let g011 = gradient::<51, 50, 49, 48>(c, w, x0, y1, z1);
    let g100 = gradient::<47, 46, 45, 44>(c, w, x1, y0, z0);
    let g101 = gradient::<43, 42, 41, 40>(c, w, x1, y0, z1);
    let g110 = gradient::<39, 38, 37, 36>(c, w, x1, y1, z0);
    let g111 = gradient::<35, 34, 33, 32>(c, w, x1, y1, z1);
    let (qz, rz, qy, ry) = (az.curve, az.rest, ay.curve, ay.rest);
    let low = lerp(lerp(g000, g001, qz, rz), lerp(g010, g011, qz, rz), qy, ry);
    let high = lerp(lerp(g100, g101, qz, rz), lerp(g110, g111, qz, rz), qy, ry);
    let v = _mm256_mul_pd(lerp(low, high, ax.curve, ax.rest), c.scale);
    _mm256_max_pd(_mm256_min_pd(v, c.one), c.minus_one)
}

/// Four points of `points` from `first` as the lanes of each axis; lanes past the end repeat
/// the first point (lanes are independent: padding changes nothing).
#[inline]
#[target_feature(enable = "avx2")]
fn lanes(points: &[[f64; 3]], first: usize) -> [__m256d; 3] {
    let at = |l: usize| points.get(first + l).unwrap_or(&points[first]);
    let (a, b, c, d) = (at(0), at(1), at(2), at(3));
    std::array::from_fn(|i| _mm256_setr_pd(a[i], b[i], c[i], d[i]))
}

/// Whether every coordinate of the lanes is below `bound` in magnitude (false for NaN).
#[inline]
#[target_feature(enable = "avx2")]
fn small(c: &Consts, p: &[__m256d; 3], bound: __m256d) -> bool {
    let mut all = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
    for v in p {
        let magnitude = _mm256_andnot_pd(c.sign, *v);
        all = _mm256_and_pd(all, _mm256_cmp_pd::<_CMP_LT_OQ>(magnitude, bound));
    }
    _mm256_movemask_pd(all) == 0b1111
}

impl PerlinFbm3 {
    /// `get_many` on AVX2: eight points at a time, as two groups of four through [`perlin4`]
    /// (written out: each octave's chain of dependent operations is long, and two independent
    /// chains keep the vector units busy); a group of eight with a point out of the kernel's
    /// range runs `get` point by point, and the last, partial group is padded.
    #[target_feature(enable = "avx2")]
    pub(super) fn many_avx2(&self, points: &[[f64; 3]], out: &mut [f64]) {
        let c = Consts::new();
        let tables: Vec<(Tables<'_>, __m256d)> = self
            .tables
            .iter()
            .zip(&self.terms)
            .zip(&self.attenuations)
            .map(|((perm, terms), a)| (Tables { perm, terms }, _mm256_set1_pd(*a)))
            .collect();
        let (frequency, lacunarity) = (_mm256_set1_pd(self.frequency), _mm256_set1_pd(self.lacunarity));
        let scale_factor = _mm256_set1_pd(self.scale_factor);
        let bound = _mm256_set1_pd(self.fast_bound);
        for first in (0..points.len()).step_by(8) {
            let second = if first + 4 < points.len() { first + 4 } else { first };
            let (mut p, mut q) = (lanes(points, first), lanes(points, second));
            for v in p.iter_mut().chain(q.iter_mut()) {
                *v = _mm256_mul_pd(*v, frequency);
            }
            let len = (points.len() - first).min(8);
            let values = &mut out[first..first + len];
            if !(small(&c, &p, bound) && small(&c, &q, bound)) {
                for (value, point) in values.iter_mut().zip(&points[first..]) {
                    *value = self.get(point[0], point[1], point[2]);
                }
                continue;
            }
            let (mut a, mut b) = (c.zero, c.zero);
            for (t, attenuation) in &tables {
                // The two groups written out, not a loop (see above).
                let (sa, sb) = (perlin4(&c, *t, p), perlin4(&c, *t, q));
                a = _mm256_add_pd(a, _mm256_mul_pd(sa, *attenuation));
                b = _mm256_add_pd(b, _mm256_mul_pd(sb, *attenuation));
                for v in p.iter_mut().chain(q.iter_mut()) {
                    *v = _mm256_mul_pd(*v, lacunarity);
                }
            }
            let mut result = [0.0; 8];
            // SAFETY: `result` holds eight f64.
            unsafe {
                _mm256_storeu_pd(result.as_mut_ptr(), _mm256_mul_pd(a, scale_factor));
                _mm256_storeu_pd(result.as_mut_ptr().add(4), _mm256_mul_pd(b, scale_factor));
            }
            values.copy_from_slice(&result[..len]);
        }
    }
}

/// One octave's terms `perlin_3d(p) · attenuation` at `points` (already scaled to the octave,
/// every coordinate below [`super::FAST_LIMIT`]), eight at a time: the sparse octaves of a grid.
#[target_feature(enable = "avx2")]
pub(super) fn octave_terms_avx2(t: Tables<'_>, points: &[[f64; 3]], attenuation: f64, out: &mut [f64]) {
    let c = Consts::new();
    let attenuation = _mm256_set1_pd(attenuation);
    for first in (0..points.len()).step_by(8) {
        let second = if first + 4 < points.len() { first + 4 } else { first };
        let (p, q) = (lanes(points, first), lanes(points, second));
        let (sa, sb) = (perlin4(&c, t, p), perlin4(&c, t, q));
        let mut result = [0.0; 8];
        // SAFETY: `result` holds eight f64.
        unsafe {
            _mm256_storeu_pd(result.as_mut_ptr(), _mm256_mul_pd(sa, attenuation));
            _mm256_storeu_pd(result.as_mut_ptr().add(4), _mm256_mul_pd(sb, attenuation));
        }
        let len = (points.len() - first).min(8);
        out[first..first + len].copy_from_slice(&result[..len]);
    }
}
