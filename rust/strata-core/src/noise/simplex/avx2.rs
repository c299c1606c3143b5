//! The AVX2 batch kernel of the 2D and 3D simplex fBm: four points per `__m256d`, written with
//! intrinsics so that every octave runs the fewest vector operations.
//!
//! It performs, lane by lane, exactly the IEEE operations of `simplex2_lanes` /
//! `simplex3_lanes` and `SimplexFbm::fbm_lanes`, in the same order and with nothing fused, so it
//! gives their bits (the parent module's pinned tests run it beside the generic code). The
//! integer side keeps each vertex hash in the low 32 bits of a 64-bit lane: `_mm256_mul_epu32`
//! reads only those bits and 32-bit shifts (`_mm256_srli_epi32`) never pull the high half down,
//! so the high half may hold anything. Two shortcuts that cannot change a bit:
//!
//! - the cells are read from the mantissa of `⌊y⌋ + 1.5·2⁵²` only for groups whose points stay
//!   below 2³⁰ in every octave (checked once per group from the first octave's magnitudes and the
//!   lacunarity); any other group runs the generic lane code;
//! - the 3D gradient index `⌊12h / 2³²⌋` is one 32 × 32-bit multiply and a shift, the same integer
//!   as `gradient_index_12`'s `3q + r`.
//!
//! May use: the parent module (`noise::simplex`) and `std::arch`.

use super::{AXIS_MULTIPLIERS, C30, INT_MAGIC, S30, SIGN_BIT, SimplexFbm, skew_factor, unskew_factor};
use std::arch::x86_64::*;

/// Constants shared by every octave of a batch.
struct Consts {
    zero: __m256d,
    one: __m256d,
    magic: __m256d,
    sign: __m256d,
    f: __m256d,
    g: __m256d,
    g2: __m256d,
    g3: __m256d,
    r2: __m256d,
    scale: __m256d,
    c30: __m256d,
    s30: __m256d,
    m: [__m256i; 3],
    mix1: __m256i,
    mix2: __m256i,
    low30: __m256i,
    third30: __m256i,
    two_thirds30: __m256i,
    twelve: __m256i,
    four: __m256i,
    seven: __m256i,
}

impl Consts {
    #[target_feature(enable = "avx2")]
    fn new(dimensions: usize, r2: f64, scale: f64) -> Self {
        let g = unskew_factor(dimensions);
        Self {
            zero: _mm256_setzero_pd(),
            one: _mm256_set1_pd(1.0),
            magic: _mm256_set1_pd(INT_MAGIC),
            sign: _mm256_castsi256_pd(_mm256_set1_epi64x(SIGN_BIT as i64)),
            f: _mm256_set1_pd(skew_factor(dimensions)),
            g: _mm256_set1_pd(g),
            g2: _mm256_set1_pd(2.0 * g),
            g3: _mm256_set1_pd(3.0 * g),
            r2: _mm256_set1_pd(r2),
            scale: _mm256_set1_pd(scale),
            c30: _mm256_set1_pd(C30),
            s30: _mm256_set1_pd(S30),
            m: [
                _mm256_set1_epi64x(AXIS_MULTIPLIERS[0] as i64),
                _mm256_set1_epi64x(AXIS_MULTIPLIERS[1] as i64),
                _mm256_set1_epi64x(AXIS_MULTIPLIERS[2] as i64),
            ],
            mix1: _mm256_set1_epi64x(0x85EB_CA6B),
            mix2: _mm256_set1_epi64x(0xC2B2_AE35),
            low30: _mm256_set1_epi64x(0x3FFF_FFFF),
            third30: _mm256_set1_epi64x((1 << 30) / 3),
            two_thirds30: _mm256_set1_epi64x((1 << 31) / 3),
            twelve: _mm256_set1_epi64x(12),
            four: _mm256_set1_epi64x(4),
            seven: _mm256_set1_epi64x(7),
        }
    }
}

/// `fmix32` of the low 32 bits of each lane, left in the low 32 bits (the high half is garbage).
#[inline]
#[target_feature(enable = "avx2")]
fn fmix(c: &Consts, h: __m256i) -> __m256i {
    let h = _mm256_xor_si256(h, _mm256_srli_epi32::<16>(h));
    let h = _mm256_mul_epu32(h, c.mix1);
    let h = _mm256_xor_si256(h, _mm256_srli_epi32::<13>(h));
    let h = _mm256_mul_epu32(h, c.mix2);
    _mm256_xor_si256(h, _mm256_srli_epi32::<16>(h))
}

/// `v` where `mask`'s lane is set, else `u` (a lane mask from a comparison).
#[inline]
#[target_feature(enable = "avx2")]
fn pick(u: __m256d, v: __m256d, mask: __m256d) -> __m256d {
    _mm256_blendv_pd(u, v, mask)
}

/// The integer twin of [`pick`].
#[inline]
#[target_feature(enable = "avx2")]
fn pick_i(u: __m256i, v: __m256i, mask: __m256d) -> __m256i {
    _mm256_castpd_si256(_mm256_blendv_pd(_mm256_castsi256_pd(u), _mm256_castsi256_pd(v), mask))
}

/// `max(0, r² − dd)⁴ · dot`, as `kernel_term`: `maxpd` returns its second operand (zero) where
/// the difference is NaN, as `f64::max` does.
#[inline]
#[target_feature(enable = "avx2")]
fn kernel_term(c: &Consts, dd: __m256d, dot: __m256d) -> __m256d {
    let falloff = _mm256_max_pd(_mm256_sub_pd(c.r2, dd), c.zero);
    let f2 = _mm256_mul_pd(falloff, falloff);
    _mm256_mul_pd(_mm256_mul_pd(f2, f2), dot)
}

/// The skewed coordinates' cells as `⌊y⌋` and their integers (low 32 bits of each lane), and the
/// internal coordinates `y − ⌊y⌋`.
#[inline]
#[target_feature(enable = "avx2")]
fn cell(c: &Consts, y: __m256d) -> (__m256i, __m256d) {
    let floor = _mm256_floor_pd(y);
    (_mm256_castpd_si256(_mm256_add_pd(floor, c.magic)), _mm256_sub_pd(y, floor))
}

/// `dot_2d`: the gradient `30°·index` of hash `h` dotted with `(dx, dy)`. With `m = h mod 2³⁰`,
/// `r = ⌊3m / 2³⁰⌋` is at least 1 where `m > ⌊2³⁰/3⌋` and 2 where `m > ⌊2³¹/3⌋` (two compares in
/// place of `dot_2d`'s bits of `3m`), and `v`'s sign (bit 31 xor bit 30 of `h`) is `u`'s sign
/// flipped by the swap bit.
#[inline]
#[target_feature(enable = "avx2")]
fn dot_2d(c: &Consts, h: __m256i, dx: __m256d, dy: __m256d) -> __m256d {
    let m = _mm256_and_si256(h, c.low30);
    let r_from_1 = _mm256_castsi256_pd(_mm256_cmpgt_epi64(m, c.third30));
    let r_is_2 = _mm256_castsi256_pd(_mm256_cmpgt_epi64(m, c.two_thirds30));
    // Bit 30 of h (swap) and bit 31 (u's sign), each moved to the sign bit.
    let swap = _mm256_castsi256_pd(_mm256_slli_epi64::<33>(h));
    let a = pick(pick(c.one, c.c30, r_from_1), c.s30, r_is_2);
    let b = pick(pick(c.zero, c.s30, r_from_1), c.c30, r_is_2);
    let u = pick(dx, dy, swap);
    let v = pick(dy, dx, swap);
    let u_sign = _mm256_and_pd(_mm256_castsi256_pd(_mm256_slli_epi64::<32>(h)), c.sign);
    let v_sign = _mm256_xor_pd(u_sign, _mm256_and_pd(swap, c.sign));
    _mm256_add_pd(_mm256_xor_pd(_mm256_mul_pd(u, a), u_sign), _mm256_xor_pd(_mm256_mul_pd(v, b), v_sign))
}

/// `dot_3d`: index `⌊12h / 2³²⌋ = 4·zero + signs`, the dot `±Δᵤ ± Δᵥ`.
#[inline]
#[target_feature(enable = "avx2")]
fn dot_3d(c: &Consts, h: __m256i, d: [__m256d; 3]) -> __m256d {
    let index = _mm256_srli_epi64::<32>(_mm256_mul_epu32(h, c.twelve));
    let zero_is_0 = _mm256_castsi256_pd(_mm256_cmpgt_epi64(c.four, index));
    let zero_is_2 = _mm256_castsi256_pd(_mm256_cmpgt_epi64(index, c.seven));
    let u = pick(d[0], d[1], zero_is_0);
    let v = pick(d[2], d[1], zero_is_2);
    let u_sign = _mm256_castsi256_pd(_mm256_slli_epi64::<63>(index));
    let v_sign = _mm256_and_pd(_mm256_castsi256_pd(_mm256_slli_epi64::<62>(index)), c.sign);
    _mm256_add_pd(_mm256_xor_pd(u, u_sign), _mm256_xor_pd(v, v_sign))
}

/// `|v|²`, summed in axis order.
#[inline]
#[target_feature(enable = "avx2")]
fn norm2(a: __m256d, b: __m256d) -> __m256d {
    _mm256_add_pd(_mm256_mul_pd(a, a), _mm256_mul_pd(b, b))
}

/// `simplex2_lanes` on four points (their cells below 2³⁰).
#[inline]
#[target_feature(enable = "avx2")]
fn simplex2(c: &Consts, key: __m256i, p: [__m256d; 2]) -> __m256d {
    let s = _mm256_add_pd(p[0], p[1]);
    let sf = _mm256_mul_pd(s, c.f);
    let (cell0, x0) = cell(c, _mm256_add_pd(p[0], sf));
    let (cell1, x1) = cell(c, _mm256_add_pd(p[1], sf));
    let t = _mm256_mul_pd(_mm256_add_pd(x0, x1), c.g);
    let (d0, d1) = (_mm256_sub_pd(x0, t), _mm256_sub_pd(x1, t));
    let (e0, e1) = (_mm256_sub_pd(d0, c.one), _mm256_sub_pd(d1, c.one));
    let (a0, a1) = (_mm256_mul_epu32(cell0, c.m[0]), _mm256_mul_epu32(cell1, c.m[1]));
    let (b0, b1) = (_mm256_add_epi64(a0, c.m[0]), _mm256_add_epi64(a1, c.m[1]));
    let stay0 = _mm256_cmp_pd::<_CMP_GT_OQ>(x1, x0);
    let stay1 = _mm256_cmp_pd::<_CMP_GE_OQ>(x0, x1);
    let v1 = [_mm256_add_pd(pick(e0, d0, stay0), c.g), _mm256_add_pd(pick(e1, d1, stay1), c.g)];
    let v2 = [_mm256_add_pd(e0, c.g2), _mm256_add_pd(e1, c.g2)];
    let h0 = fmix(c, _mm256_xor_si256(key, _mm256_xor_si256(a0, a1)));
    let h1 = fmix(c, _mm256_xor_si256(key, _mm256_xor_si256(pick_i(b0, a0, stay0), pick_i(b1, a1, stay1))));
    let h2 = fmix(c, _mm256_xor_si256(key, _mm256_xor_si256(b0, b1)));
    let t0 = kernel_term(c, norm2(d0, d1), dot_2d(c, h0, d0, d1));
    let t1 = kernel_term(c, norm2(v1[0], v1[1]), dot_2d(c, h1, v1[0], v1[1]));
    let t2 = kernel_term(c, norm2(v2[0], v2[1]), dot_2d(c, h2, v2[0], v2[1]));
    let sum = _mm256_add_pd(_mm256_add_pd(t0, t1), t2);
    _mm256_mul_pd(sum, c.scale)
}

/// `|v|²`, summed in axis order.
#[inline]
#[target_feature(enable = "avx2")]
fn norm3(v: [__m256d; 3]) -> __m256d {
    _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(v[0], v[0]), _mm256_mul_pd(v[1], v[1])), _mm256_mul_pd(v[2], v[2]))
}

/// The hash of the vertex whose axis products are `v`.
#[inline]
#[target_feature(enable = "avx2")]
fn hash3(c: &Consts, key: __m256i, v: [__m256i; 3]) -> __m256i {
    fmix(c, _mm256_xor_si256(_mm256_xor_si256(key, v[0]), _mm256_xor_si256(v[1], v[2])))
}

/// `simplex3_lanes` on four points (their cells below 2³⁰).
#[inline]
#[target_feature(enable = "avx2")]
fn simplex3(c: &Consts, key: __m256i, p: [__m256d; 3]) -> __m256d {
    let s = _mm256_add_pd(_mm256_add_pd(p[0], p[1]), p[2]);
    let sf = _mm256_mul_pd(s, c.f);
    let (cell0, x0) = cell(c, _mm256_add_pd(p[0], sf));
    let (cell1, x1) = cell(c, _mm256_add_pd(p[1], sf));
    let (cell2, x2) = cell(c, _mm256_add_pd(p[2], sf));
    let t = _mm256_mul_pd(_mm256_add_pd(_mm256_add_pd(x0, x1), x2), c.g);
    let d = [_mm256_sub_pd(x0, t), _mm256_sub_pd(x1, t), _mm256_sub_pd(x2, t)];
    let e = [_mm256_sub_pd(d[0], c.one), _mm256_sub_pd(d[1], c.one), _mm256_sub_pd(d[2], c.one)];
    let a = [_mm256_mul_epu32(cell0, c.m[0]), _mm256_mul_epu32(cell1, c.m[1]), _mm256_mul_epu32(cell2, c.m[2])];
    let b = [_mm256_add_epi64(a[0], c.m[0]), _mm256_add_epi64(a[1], c.m[1]), _mm256_add_epi64(a[2], c.m[2])];
    // Whether axis j comes before axis i in the descending order (ties: the lower axis).
    let x10 = _mm256_cmp_pd::<_CMP_GT_OQ>(x1, x0);
    let x20 = _mm256_cmp_pd::<_CMP_GT_OQ>(x2, x0);
    let x21 = _mm256_cmp_pd::<_CMP_GT_OQ>(x2, x1);
    let x01 = _mm256_cmp_pd::<_CMP_GE_OQ>(x0, x1);
    let x02 = _mm256_cmp_pd::<_CMP_GE_OQ>(x0, x2);
    let x12 = _mm256_cmp_pd::<_CMP_GE_OQ>(x1, x2);
    // Vertex 1 stays on an axis that some other axis comes before, vertex 2 on one that both
    // others come before (`first`/`second` of `simplex3_lanes`, negated).
    let stay1 = [_mm256_or_pd(x10, x20), _mm256_or_pd(x01, x21), _mm256_or_pd(x02, x12)];
    let stay2 = [_mm256_and_pd(x10, x20), _mm256_and_pd(x01, x21), _mm256_and_pd(x02, x12)];
    let v1 = [
        _mm256_add_pd(pick(e[0], d[0], stay1[0]), c.g),
        _mm256_add_pd(pick(e[1], d[1], stay1[1]), c.g),
        _mm256_add_pd(pick(e[2], d[2], stay1[2]), c.g),
    ];
    let v2 = [
        _mm256_add_pd(pick(e[0], d[0], stay2[0]), c.g2),
        _mm256_add_pd(pick(e[1], d[1], stay2[1]), c.g2),
        _mm256_add_pd(pick(e[2], d[2], stay2[2]), c.g2),
    ];
    let v3 = [_mm256_add_pd(e[0], c.g3), _mm256_add_pd(e[1], c.g3), _mm256_add_pd(e[2], c.g3)];
    let h0 = hash3(c, key, a);
    let h1 = hash3(c, key, [pick_i(b[0], a[0], stay1[0]), pick_i(b[1], a[1], stay1[1]), pick_i(b[2], a[2], stay1[2])]);
    let h2 = hash3(c, key, [pick_i(b[0], a[0], stay2[0]), pick_i(b[1], a[1], stay2[1]), pick_i(b[2], a[2], stay2[2])]);
    let h3 = hash3(c, key, b);
    let t0 = kernel_term(c, norm3(d), dot_3d(c, h0, d));
    let t1 = kernel_term(c, norm3(v1), dot_3d(c, h1, v1));
    let t2 = kernel_term(c, norm3(v2), dot_3d(c, h2, v2));
    let t3 = kernel_term(c, norm3(v3), dot_3d(c, h3, v3));
    let sum = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(t0, t1), t2), t3);
    _mm256_mul_pd(sum, c.scale)
}

impl<const D: usize> SimplexFbm<D> {
    /// `get_many` for 2D and 3D on AVX2: eight points at a time, as two groups of four through
    /// [`simplex2`] / [`simplex3`] (each octave's chain of dependent operations is long, and two
    /// independent chains keep the vector units busy); the groups that do not qualify and the
    /// last, partial ones through the generic lane code. Other dimensions run the generic lane
    /// code throughout.
    #[target_feature(enable = "avx2")]
    pub(super) fn batch_avx2_intrinsics(&self, points: &[[f64; D]], out: &mut [f64]) {
        if !(D == 2 || D == 3) {
            self.batch::<4>(points, out);
            return;
        }
        let c = Consts::new(D, self.radius.squared(), self.noise_scale);
        let mut octaves = Vec::with_capacity(self.keys.len());
        for (key, amplitude) in self.keys.iter().zip(&self.amplitudes) {
            octaves.push((_mm256_set1_epi64x(*key as i64), _mm256_set1_pd(*amplitude)));
        }
        let (frequency, lacunarity) = (_mm256_set1_pd(self.frequency), _mm256_set1_pd(self.lacunarity));
        let scale_factor = _mm256_set1_pd(self.scale_factor);
        let bound = _mm256_set1_pd(self.fast_bound);
        let whole = points.len() / 8 * 8;
        for (group, values) in points[..whole].chunks_exact(8).zip(out[..whole].chunks_exact_mut(8)) {
            let mut p = [[c.zero; D]; 2];
            let mut small = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
            for (part, lanes) in p.iter_mut().enumerate() {
                let g = &group[part * 4..part * 4 + 4];
                for (i, axis) in lanes.iter_mut().enumerate() {
                    *axis = _mm256_mul_pd(_mm256_set_pd(g[3][i], g[2][i], g[1][i], g[0][i]), frequency);
                    // Every coordinate of the first octave below the bound (false for NaN).
                    let magnitude = _mm256_andnot_pd(c.sign, *axis);
                    small = _mm256_and_pd(small, _mm256_cmp_pd::<_CMP_LT_OQ>(magnitude, bound));
                }
            }
            if _mm256_movemask_pd(small) != 0b1111 {
                self.batch::<4>(group, values);
                continue;
            }
            let (mut first, mut second) = (c.zero, c.zero);
            for (key, amplitude) in &octaves {
                // The two groups written out: a loop over them is not unrolled, and then their
                // chains do not overlap.
                let (a, b) = if D == 2 {
                    (simplex2(&c, *key, [p[0][0], p[0][1]]), simplex2(&c, *key, [p[1][0], p[1][1]]))
                } else {
                    (
                        simplex3(&c, *key, [p[0][0], p[0][1], p[0][2 % D]]),
                        simplex3(&c, *key, [p[1][0], p[1][1], p[1][2 % D]]),
                    )
                };
                first = _mm256_add_pd(first, _mm256_mul_pd(a, *amplitude));
                second = _mm256_add_pd(second, _mm256_mul_pd(b, *amplitude));
                for axis in p.iter_mut().flatten() {
                    *axis = _mm256_mul_pd(*axis, lacunarity);
                }
            }
            // SAFETY: `values` holds exactly eight f64.
            unsafe {
                _mm256_storeu_pd(values.as_mut_ptr(), _mm256_mul_pd(first, scale_factor));
                _mm256_storeu_pd(values.as_mut_ptr().add(4), _mm256_mul_pd(second, scale_factor));
            }
        }
        self.batch::<4>(&points[whole..], &mut out[whole..]);
    }
}
