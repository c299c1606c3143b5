//! Simplex noise as defined (Perlin 2001, as Gustavson describes it), in 2, 3, 4 and 5
//! dimensions, and its fBm; several points at a time for 2D and 3D.
//!
//! For a point `p` in `n` dimensions:
//!
//! ```text
//! skew:     y = p + F·Σp,  F = (√(n+1) − 1)/n        cell c = ⌊y⌋, internal x = y − c
//! simplex:  sort x descending; vertex v₀ = c, vₖ = vₖ₋₁ + e(axis of the k-th largest x)
//!           (one of the n! orderings; ties go to the lower axis)
//! unskew:   Δₖ = p − (vₖ − G·Σvₖ),  G = (1 − 1/√(n+1))/n
//!           computed as Δₖ = (x − G·Σx) − (vₖ − c) + k·G, which is the same vector
//! kernel:   noise = S · Σₖ max(0, r² − |Δₖ|²)⁴ · (Δₖ · gₖ),   r² = 0.5 or 0.6
//! ```
//!
//! The gradient `gₖ` of a vertex is picked by a 32-bit hash of (seed, vertex): a pure function of
//! both, with no table and no period (law: Deterministic). The gradient sets: in 2D twelve unit
//! vectors 30° apart; in `n ≥ 3` dimensions every vector with one coordinate 0 and the others
//! ±1 (12, 32 and 80 of them). `S` scales the result into `[-1, 1]`: it is `0.99 / B` with `B`
//! the largest value of `Σₖ max(0, r² − |Δₖ|²)⁴ · maxᵍ|Δₖ · g|` over a simplex (found by
//! search; no choice of gradients exceeds it), so no point gives more than 0.99 in magnitude.
//!
//! At a lattice vertex the noise is 0 (its own kernel has `Δ = 0`, and every other vertex is at
//! least √(n/(n+1)) > r away). With `r² = 0.5` every lattice vertex within `r` of a point is a
//! vertex of that point's simplex, so the noise is continuous; Perlin's `r² = 0.6` reaches a
//! little past the simplex and has small jumps on the simplex faces (tested and measured).
//!
//! Every path (one point, and the batch kernels of [`crate::noise::fast_fbm::Kernel`]: the
//! portable build, AVX2 and AVX-512) runs the same generic lane code, lane by lane the same IEEE
//! operations in the same order with nothing fused, so every path gives the same bits.
//!
//! 2D and 3D run lane code arranged for vector units (`simplex2_lanes`, `simplex3_lanes`) that
//! gives bit for bit what the generic code (`simplex_lanes`, which 4D and 5D run) gives, pinned
//! by tests on every path: the vertex hash in `u64` lanes beside the `f64` lanes (each multiply
//! one 32 × 32-bit product), the cell's integer read from the mantissa of `⌊y⌋ + 1.5·2⁵²`, the
//! simplex chosen by the same comparisons as lane masks, and the gradient's dot product formed
//! from the hash bits by lane selects and sign flips instead of a table load (the same products
//! and sums; a negated constant negates a product exactly). On AVX2 the 2D and 3D batches run
//! `simplex/avx2.rs`: those operations written with intrinsics, two groups of four points in
//! flight, the same bits again (the pinned tests run it).
//!
//! May use: `base`, `preset` and the other `noise` modules.

#[cfg(target_arch = "x86_64")]
mod avx2;

use crate::noise::fast_fbm::Kernel;
use crate::noise::fractal::FractalParams;
use thiserror::Error;

/// The largest dimension supported.
pub const MAX_DIMENSIONS: usize = 5;

/// Lanes of the portable batch kernel (AVX2 has 4, AVX-512 8).
const PORTABLE_LANES: usize = 4;

/// `fBm`'s most octaves.
const MAX_OCTAVES: u32 = 32;

/// The radius of the kernel, as the squared radius `r²` of the definition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SimplexRadius {
    /// `r² = 0.5`: continuous everywhere.
    Half,
    /// `r² = 0.6` (Perlin's original): rounder blobs, small jumps on simplex faces.
    SixTenths,
}

/// A squared radius other than 0.5 or 0.6.
#[derive(Clone, Debug, Error, PartialEq)]
#[error("simplex radius squared {found} is not allowed; allowed: exactly 0.5 or 0.6")]
pub struct SimplexRadiusError {
    pub found: f64,
}

impl SimplexRadius {
    /// The radius of `r²`, which must be 0.5 or 0.6 (to within 1e-6, so that the `f32` of a
    /// preset qualifies).
    pub fn from_squared(r2: f64) -> Result<Self, SimplexRadiusError> {
        if (r2 - 0.5).abs() <= 1e-6 {
            Ok(Self::Half)
        } else if (r2 - 0.6).abs() <= 1e-6 {
            Ok(Self::SixTenths)
        } else {
            Err(SimplexRadiusError { found: r2 })
        }
    }

    /// `r²`.
    pub fn squared(self) -> f64 {
        match self {
            Self::Half => 0.5,
            Self::SixTenths => 0.6,
        }
    }

    /// The scale `S` of the module doc for `n` dimensions (2..=5).
    fn scale(self, n: usize) -> f64 {
        // B per dimension 2..=5, for r² = 0.5 and r² = 0.6 (module doc).
        const BOUND: [[f64; 2]; 4] = [
            [0.009_837_128_628_769_431, 0.028_687_852_893_314_627],
            [0.013_007_157_182_859_35, 0.030_584_887_386_320_078],
            [0.015_929_221_459_014_98, 0.036_730_023_916_654_89],
            [0.018_393_470_099_451_935, 0.042_179_192_335_998_185],
        ];
        let column = match self {
            Self::Half => 0,
            Self::SixTenths => 1,
        };
        0.99 / BOUND[n.clamp(2, MAX_DIMENSIONS) - 2][column]
    }
}

/// The skew factor `F = (√(n+1) − 1)/n`.
pub fn skew_factor(n: usize) -> f64 {
    (((n + 1) as f64).sqrt() - 1.0) / n as f64
}

/// The unskew factor `G = (1 − 1/√(n+1))/n`.
pub fn unskew_factor(n: usize) -> f64 {
    (1.0 - 1.0 / ((n + 1) as f64).sqrt()) / n as f64
}

/// Multipliers of the vertex hash, one per axis (odd, well mixed).
const AXIS_MULTIPLIERS: [u32; MAX_DIMENSIONS] = [0x9E37_79B1, 0x85EB_CA77, 0xC2B2_AE3D, 0x27D4_EB2F, 0x1656_67B1];

/// MurmurHash3's 32-bit finaliser: a fast, well-mixed bijection.
#[inline(always)]
pub const fn fmix32(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85EB_CA6B);
    h ^= h >> 13;
    h = h.wrapping_mul(0xC2B2_AE35);
    h ^ (h >> 16)
}

/// The hash key of a seed's octave `octave` (octave 0 is the single noise).
#[inline]
pub const fn octave_key(seed: u32, octave: u32) -> u32 {
    fmix32(seed.wrapping_add(octave).wrapping_mul(0x9E37_79B9) ^ 0x5BD1_E995)
}

/// The hash of lattice vertex `v` under `key`: `fmix32(key ^ v₀·m₀ ^ v₁·m₁ ^ …)`.
#[inline]
pub fn vertex_hash(key: u32, v: &[i32]) -> u32 {
    let mut h = key;
    for (c, m) in v.iter().zip(AXIS_MULTIPLIERS) {
        h ^= (*c as u32).wrapping_mul(m);
    }
    fmix32(h)
}

/// Index into a gradient set of `count` vectors: the high bits of `hash · count`.
#[inline(always)]
pub fn gradient_index(hash: u32, count: usize) -> usize {
    ((hash as u64 * count as u64) >> 32) as usize
}

/// cos and sin of 30°.
const C30: f64 = 0.866_025_403_784_438_6;
const S30: f64 = 0.5;

/// The 2D gradients: twelve unit vectors 30° apart (padded to five coordinates).
static GRADIENTS_2D: [[f64; MAX_DIMENSIONS]; 12] = [
    [1.0, 0.0, 0.0, 0.0, 0.0],
    [C30, S30, 0.0, 0.0, 0.0],
    [S30, C30, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0, 0.0],
    [-S30, C30, 0.0, 0.0, 0.0],
    [-C30, S30, 0.0, 0.0, 0.0],
    [-1.0, 0.0, 0.0, 0.0, 0.0],
    [-C30, -S30, 0.0, 0.0, 0.0],
    [-S30, -C30, 0.0, 0.0, 0.0],
    [0.0, -1.0, 0.0, 0.0, 0.0],
    [S30, -C30, 0.0, 0.0, 0.0],
    [C30, -S30, 0.0, 0.0, 0.0],
];

/// Every `n`-vector with one coordinate 0 and the others ±1, padded to five coordinates:
/// `n · 2ⁿ⁻¹` of them, the zero axis slowest.
const fn edge_gradients<const COUNT: usize>(n: usize) -> [[f64; MAX_DIMENSIONS]; COUNT] {
    let mut out = [[0.0; MAX_DIMENSIONS]; COUNT];
    let mut index = 0;
    let mut zero = 0;
    while zero < n {
        let mut signs = 0;
        while signs < (1 << (n - 1)) {
            let mut bit = 0;
            let mut axis = 0;
            while axis < n {
                if axis != zero {
                    out[index][axis] = if (signs >> bit) & 1 == 1 { -1.0 } else { 1.0 };
                    bit += 1;
                }
                axis += 1;
            }
            index += 1;
            signs += 1;
        }
        zero += 1;
    }
    out
}

static GRADIENTS_3D: [[f64; MAX_DIMENSIONS]; 12] = edge_gradients::<12>(3);
static GRADIENTS_4D: [[f64; MAX_DIMENSIONS]; 32] = edge_gradients::<32>(4);
static GRADIENTS_5D: [[f64; MAX_DIMENSIONS]; 80] = edge_gradients::<80>(5);

/// The gradient set of `n` dimensions (2..=5; others get the 5D set).
pub fn gradients(n: usize) -> &'static [[f64; MAX_DIMENSIONS]] {
    match n {
        2 => &GRADIENTS_2D,
        3 => &GRADIENTS_3D,
        4 => &GRADIENTS_4D,
        _ => &GRADIENTS_5D,
    }
}

/// Simplex noise of `D` dimensions (2..=5) at `p`, in `[-1, 1]` (see the module doc).
pub fn simplex<const D: usize>(seed: u32, p: [f64; D], radius: SimplexRadius) -> f64 {
    let lanes: [[f64; 1]; D] = p.map(|v| [v]);
    noise_lanes::<1, D>(octave_key(seed, 0), &lanes, radius.squared(), radius.scale(D))[0]
}

/// Simplex noise on `N` points in lockstep (`p[axis][lane]`), with hash key `key`, `r2` and
/// scale `scale`. Every lane performs the scalar computation's operations in the same order.
#[inline(always)]
fn simplex_lanes<const N: usize, const D: usize>(key: u32, p: &[[f64; N]; D], r2: f64, scale: f64) -> [f64; N] {
    const { assert!(D >= 2 && D <= MAX_DIMENSIONS) };
    let (f, g) = (skew_factor(D), unskew_factor(D));
    let table = gradients(D);
    // Skew, cell and internal coordinates.
    let mut s = [0.0; N];
    for axis in p {
        for l in 0..N {
            s[l] += axis[l];
        }
    }
    let s = s.map(|v| v * f);
    let mut x = [[0.0; N]; D];
    let mut cell = [[0u32; N]; D];
    for i in 0..D {
        for l in 0..N {
            let y = p[i][l] + s[l];
            let c = y.floor();
            x[i][l] = y - c;
            cell[i][l] = (c as i32 as u32).wrapping_mul(AXIS_MULTIPLIERS[i]);
        }
    }
    // Unskewed offset from the cell's origin: x − G·Σx.
    let mut sum = [0.0; N];
    for axis in &x {
        for l in 0..N {
            sum[l] += axis[l];
        }
    }
    let t = sum.map(|v| v * g);
    let mut d0 = [[0.0; N]; D];
    for i in 0..D {
        for l in 0..N {
            d0[i][l] = x[i][l] - t[l];
        }
    }
    // Rank of each axis in the descending order of x (ties: lower axis first): vertex k has
    // stepped along axis i when rank(i) < k.
    let mut rank = [[0u32; N]; D];
    for i in 0..D {
        for j in 0..D {
            if i != j {
                for l in 0..N {
                    let before = if j < i { x[j][l] >= x[i][l] } else { x[j][l] > x[i][l] };
                    rank[i][l] += before as u32;
                }
            }
        }
    }
    let mut out = [0.0; N];
    for k in 0..=D {
        let kg = k as f64 * g;
        let mut h = [key; N];
        let mut d = [[0.0; N]; D];
        let mut dd = [0.0; N];
        for i in 0..D {
            for l in 0..N {
                let stepped = rank[i][l] < k as u32;
                d[i][l] = (d0[i][l] - stepped as u32 as f64) + kg;
                dd[l] += d[i][l] * d[i][l];
                h[l] ^= cell[i][l].wrapping_add(AXIS_MULTIPLIERS[i] & (stepped as u32).wrapping_neg());
            }
        }
        for l in 0..N {
            let grad = &table[gradient_index(fmix32(h[l]), table.len())];
            let mut dot = 0.0;
            for i in 0..D {
                dot += d[i][l] * grad[i];
            }
            let falloff = (r2 - dd[l]).max(0.0);
            let f2 = falloff * falloff;
            out[l] += f2 * f2 * dot;
        }
    }
    out.map(|v| v * scale)
}

/// Below this magnitude an integral `f64` converts to `i32` exactly (the saturating `as i32`
/// changes nothing), and `v + `[`INT_MAGIC`] holds it in the low 32 bits.
const I32_EXACT_BELOW: f64 = 2_147_483_648.0; // 2³¹

/// 1.5 · 2⁵²: for an integral `|v| < 2⁵¹`, the low 32 bits of `v + INT_MAGIC` are those of
/// `v as i32` in two's complement.
const INT_MAGIC: f64 = 6_755_399_441_055_744.0;

/// The low 32 bits of a `u64` lane.
const LOW32: u64 = 0xFFFF_FFFF;

/// The sign bit of an f64.
const SIGN_BIT: u64 = 1 << 63;

/// `floor(v)` as `i32` (saturating, as `as` converts), in the low 32 bits of a `u64` lane. With
/// several lanes all within ±2³¹ it is read from the mantissa of `c + 1.5·2⁵²` (one add per
/// lane, exact); otherwise (and for one lane) by `as`. The same integer either way.
#[inline(always)]
fn lattice_bits<const N: usize>(c: &[f64; N]) -> [u64; N] {
    let mut small = true;
    for v in c {
        small &= v.abs() < I32_EXACT_BELOW;
    }
    let mut out = [0u64; N];
    if N > 1 && small {
        for l in 0..N {
            out[l] = (c[l] + INT_MAGIC).to_bits() & LOW32;
        }
    } else {
        for l in 0..N {
            out[l] = c[l] as i32 as u32 as u64;
        }
    }
    out
}

/// The skewed coordinates `y = p + F·Σp` of `N` points (the sum from 0, axis by axis, as
/// [`simplex_lanes`] adds it), and their cells `⌊y⌋`.
#[inline(always)]
fn skew_lanes<const N: usize, const D: usize>(p: &[[f64; N]; D], f: f64) -> ([[f64; N]; D], [[f64; N]; D]) {
    let mut s = [0.0; N];
    for axis in p {
        for l in 0..N {
            s[l] += axis[l];
        }
    }
    let mut y = [[0.0; N]; D];
    let mut c = [[0.0; N]; D];
    for i in 0..D {
        for l in 0..N {
            y[i][l] = p[i][l] + s[l] * f;
            c[i][l] = y[i][l].floor();
        }
    }
    (y, c)
}

/// [`fmix32`] of the low 32 bits of each lane, in `u64` lanes (so that the lanes match the
/// `f64` lanes; each multiply is a 32 × 32 → 64-bit one, of which the low half is kept).
#[inline(always)]
fn fmix32_lane(h: u64) -> u64 {
    let mut h = h & LOW32;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85EB_CA6B) & LOW32;
    h ^= h >> 13;
    h = h.wrapping_mul(0xC2B2_AE35) & LOW32;
    h ^ (h >> 16)
}

/// [`gradient_index`]`(h, 12)` as `(⌊index / 3⌋, index mod 3)`, without a 64-bit multiply:
/// `⌊12h / 2³²⌋ = ⌊3h / 2³⁰⌋ = 3q + ⌊3m / 2³⁰⌋` with `h = q·2³⁰ + m`, `3m < 2³²`.
#[inline(always)]
fn gradient_index_12(h: u64) -> (u64, u64) {
    (h >> 30, ((h & 0x3FFF_FFFF) * 3) >> 30)
}

/// `v` with its sign flipped where `mask` has the sign bit.
#[inline(always)]
fn flip(v: f64, mask: u64) -> f64 {
    f64::from_bits(v.to_bits() ^ mask)
}

/// One vertex's term `max(0, r² − |Δ|²)⁴ · dot`, as `simplex_lanes` computes it.
#[inline(always)]
fn kernel_term(r2: f64, dd: f64, dot: f64) -> f64 {
    let falloff = (r2 - dd).max(0.0);
    let f2 = falloff * falloff;
    f2 * f2 * dot
}

/// `Δ · g` for the 2D gradient of hash `h` (twelve directions `30°·index`): with `index = 3q + r`
/// the gradient is `(a, b)` of `r` (`(1, 0)`, `(cos 30°, sin 30°)`, `(sin 30°, cos 30°)`) turned
/// by `q` quarter turns, so the dot is `±(u·a) ± (v·b)` with `(u, v)` = `(Δx, Δy)` or
/// `(Δy, Δx)`. The same two products and one add as `0 + Δx·gx + Δy·gy` (multiplying by a
/// negated constant negates the product exactly; `0 + w` is `w` but for the sign of a zero, and
/// a term of zero adds nothing to the noise whatever its sign).
#[inline(always)]
fn dot_2d(h: u64, dx: f64, dy: f64) -> f64 {
    // q = h >> 30 is bits 31 and 30 of h; r = w >> 30 with w = 3·(h mod 2³⁰) < 2³², so r = 2
    // where bit 31 of w is set and r = 1 where bit 30 is. Each test moves its bit to the sign
    // bit, which is all that a lane select reads.
    let w = (h & 0x3FFF_FFFF) * 3;
    let sign = |bits: u64, at: u32| ((bits << (63 - at)) as i64) < 0;
    let (r_is_2, r_is_1) = (sign(w, 31), sign(w, 30));
    let a = if r_is_2 {
        S30
    } else if r_is_1 {
        C30
    } else {
        1.0
    };
    let b = if r_is_2 {
        C30
    } else if r_is_1 {
        S30
    } else {
        0.0
    };
    let (u, v) = if sign(h, 30) { (dy, dx) } else { (dx, dy) };
    // q = 0: (a, b); 1: (−b, a); 2: (−a, −b); 3: (b, −a): u is negated for q ≥ 2 (bit 31 of
    // h), v for q = 1 and 2 (bit 31 xor bit 30).
    let u_sign = (h << 32) & SIGN_BIT;
    let v_sign = ((h ^ (h << 1)) << 32) & SIGN_BIT;
    flip(u * a, u_sign) + flip(v * b, v_sign)
}

/// `Δ · g` for the 3D gradient of hash `h`: index `4·zero + signs` names the vector with a 0 on
/// axis `zero` and ±1 on the two others (bit 0 of `signs` negates the first, bit 1 the second),
/// so the dot is `±Δᵤ ± Δᵥ`: the sum `0 + Δx·gx + Δy·gy + Δz·gz` computes the same value (see
/// [`dot_2d`] on zeros).
#[inline(always)]
fn dot_3d(h: u64, d: [f64; 3]) -> f64 {
    let (q, r) = gradient_index_12(h);
    let index = q * 3 + r;
    let zero = index >> 2;
    let u = if zero == 0 { d[1] } else { d[0] };
    let v = if zero == 2 { d[1] } else { d[2] };
    flip(u, (index << 63) & SIGN_BIT) + flip(v, (index << 62) & SIGN_BIT)
}

/// 2D simplex noise on `N` points in lockstep: bit for bit [`simplex_lanes`]`::<N, 2>` (the
/// pinned tests compare them), with the work arranged for vector lanes: the vertex hash in
/// `u64` lanes beside the `f64` ones, the simplex picked by the same two comparisons, and the
/// gradient's dot product chosen by lane masks instead of a table load (see [`dot_2d`]). Where
/// an operation of the generic code is left out, it is one that cannot change a bit: `0 + w`
/// for a `w ≥ 0`, and `w − 0` then `+ 0` on vertex 0's offset (which only drops the sign of a
/// zero, and the square and the dot of a zero are zero either way).
#[inline(always)]
fn simplex2_lanes<const N: usize>(key: u32, p: &[[f64; N]; 2], r2: f64, scale: f64) -> [f64; N] {
    let (f, g) = (skew_factor(2), unskew_factor(2));
    let (g1, g2) = (g, 2.0 * g);
    let (m0, m1) = (AXIS_MULTIPLIERS[0] as u64, AXIS_MULTIPLIERS[1] as u64);
    let key = key as u64;
    let (y, c) = skew_lanes(p, f);
    let (cell0, cell1) = (lattice_bits(&c[0]), lattice_bits(&c[1]));
    let mut out = [0.0; N];
    for l in 0..N {
        let (x0, x1) = (y[0][l] - c[0][l], y[1][l] - c[1][l]);
        let t = (x0 + x1) * g;
        let (d0, d1) = (x0 - t, x1 - t);
        let (e0, e1) = (d0 - 1.0, d1 - 1.0);
        // The cells are below 2³², so each product is one 32 × 32-bit multiply.
        let (a0, a1) = ((cell0[l] & LOW32).wrapping_mul(m0), (cell1[l] & LOW32).wrapping_mul(m1));
        let (b0, b1) = (a0.wrapping_add(m0), a1.wrapping_add(m1));
        // Vertex 1 steps along each axis whose rank is 0 (ties: the lower axis first); an axis
        // with rank 1 (the other axis comes before it) stays.
        let (stay0, stay1) = (x1 > x0, x0 >= x1);
        let v1 = [(if stay0 { d0 } else { e0 }) + g1, (if stay1 { d1 } else { e1 }) + g1];
        let v2 = [e0 + g2, e1 + g2];
        let h0 = fmix32_lane(key ^ a0 ^ a1);
        let h1 = fmix32_lane(key ^ (if stay0 { a0 } else { b0 }) ^ (if stay1 { a1 } else { b1 }));
        let h2 = fmix32_lane(key ^ b0 ^ b1);
        let t0 = kernel_term(r2, d0 * d0 + d1 * d1, dot_2d(h0, d0, d1));
        let t1 = kernel_term(r2, v1[0] * v1[0] + v1[1] * v1[1], dot_2d(h1, v1[0], v1[1]));
        let t2 = kernel_term(r2, v2[0] * v2[0] + v2[1] * v2[1], dot_2d(h2, v2[0], v2[1]));
        out[l] = (0.0 + t0 + t1 + t2) * scale;
    }
    out
}

/// 3D simplex noise on `N` points in lockstep: bit for bit [`simplex_lanes`]`::<N, 3>`, arranged
/// as [`simplex2_lanes`] is (the dot product by [`dot_3d`]).
#[inline(always)]
fn simplex3_lanes<const N: usize>(key: u32, p: &[[f64; N]; 3], r2: f64, scale: f64) -> [f64; N] {
    let (f, g) = (skew_factor(3), unskew_factor(3));
    let (g1, g2, g3) = (g, 2.0 * g, 3.0 * g);
    let m = [AXIS_MULTIPLIERS[0] as u64, AXIS_MULTIPLIERS[1] as u64, AXIS_MULTIPLIERS[2] as u64];
    let key = key as u64;
    let (y, c) = skew_lanes(p, f);
    let cells = [lattice_bits(&c[0]), lattice_bits(&c[1]), lattice_bits(&c[2])];
    let mut out = [0.0; N];
    for l in 0..N {
        let x = [y[0][l] - c[0][l], y[1][l] - c[1][l], y[2][l] - c[2][l]];
        let t = (x[0] + x[1] + x[2]) * g;
        let d = [x[0] - t, x[1] - t, x[2] - t];
        let e = [d[0] - 1.0, d[1] - 1.0, d[2] - 1.0];
        // The cells are below 2³², so each product is one 32 × 32-bit multiply.
        let a = [
            (cells[0][l] & LOW32).wrapping_mul(m[0]),
            (cells[1][l] & LOW32).wrapping_mul(m[1]),
            (cells[2][l] & LOW32).wrapping_mul(m[2]),
        ];
        let b = [a[0].wrapping_add(m[0]), a[1].wrapping_add(m[1]), a[2].wrapping_add(m[2])];
        // Whether axis j comes before axis i in the descending order (ties: the lower axis).
        let (x10, x20, x21) = (x[1] > x[0], x[2] > x[0], x[2] > x[1]);
        let (x01, x02, x12) = (x[0] >= x[1], x[0] >= x[2], x[1] >= x[2]);
        // Vertex 1 steps along the axis of rank 0, vertex 2 along those of rank 0 and 1.
        let first = [!(x10 | x20), !(x01 | x21), !(x02 | x12)];
        let second = [!(x10 & x20), !(x01 & x21), !(x02 & x12)];
        let v1 = [
            (if first[0] { e[0] } else { d[0] }) + g1,
            (if first[1] { e[1] } else { d[1] }) + g1,
            (if first[2] { e[2] } else { d[2] }) + g1,
        ];
        let v2 = [
            (if second[0] { e[0] } else { d[0] }) + g2,
            (if second[1] { e[1] } else { d[1] }) + g2,
            (if second[2] { e[2] } else { d[2] }) + g2,
        ];
        let v3 = [e[0] + g3, e[1] + g3, e[2] + g3];
        let h0 = fmix32_lane(key ^ a[0] ^ a[1] ^ a[2]);
        let h1 = fmix32_lane(
            key ^ (if first[0] { b[0] } else { a[0] })
                ^ (if first[1] { b[1] } else { a[1] })
                ^ (if first[2] { b[2] } else { a[2] }),
        );
        let h2 = fmix32_lane(
            key ^ (if second[0] { b[0] } else { a[0] })
                ^ (if second[1] { b[1] } else { a[1] })
                ^ (if second[2] { b[2] } else { a[2] }),
        );
        let h3 = fmix32_lane(key ^ b[0] ^ b[1] ^ b[2]);
        let t0 = kernel_term(r2, norm3(d), dot_3d(h0, d));
        let t1 = kernel_term(r2, norm3(v1), dot_3d(h1, v1));
        let t2 = kernel_term(r2, norm3(v2), dot_3d(h2, v2));
        let t3 = kernel_term(r2, norm3(v3), dot_3d(h3, v3));
        out[l] = (0.0 + t0 + t1 + t2 + t3) * scale;
    }
    out
}

/// `|v|²`, summed in axis order.
#[inline(always)]
fn norm3(v: [f64; 3]) -> f64 {
    v[0] * v[0] + v[1] * v[1] + v[2] * v[2]
}

/// Simplex noise of `D` dimensions on `N` points: the 2D and 3D lane code, or the generic one.
#[inline(always)]
fn noise_lanes<const N: usize, const D: usize>(key: u32, p: &[[f64; N]; D], r2: f64, scale: f64) -> [f64; N] {
    match D {
        2 => simplex2_lanes::<N>(key, &[p[0], p[1]], r2, scale),
        3 => simplex3_lanes::<N>(key, &[p[0], p[1], p[2]], r2, scale),
        _ => simplex_lanes::<N, D>(key, p, r2, scale),
    }
}

/// fBm of simplex noise in `D` dimensions (2..=5): `Σₒ simplex(p·f·Lᵒ)·Pᵒ / Σₒ Pᵒ` with the
/// point multiplied by the lacunarity `L` once per octave and the amplitude by the persistence
/// `P`; octave `o` hashes with [`octave_key`]`(seed, o)`. In `[-1, 1]`.
#[derive(Clone, Debug)]
pub struct SimplexFbm<const D: usize> {
    keys: Vec<u32>,
    amplitudes: Vec<f64>,
    frequency: f64,
    lacunarity: f64,
    /// `1 / Σ amplitudes`.
    scale_factor: f64,
    radius: SimplexRadius,
    /// The radius's scale `S` in `D` dimensions.
    noise_scale: f64,
    /// The AVX2 kernel's bound on first-octave coordinates ([`fast_bound`]).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    fast_bound: f64,
    kernel: Kernel,
}

/// Every skewed cell of every octave stays below this magnitude in a group that the AVX2 kernel
/// takes (see [`fast_bound`]), far inside the exact range of the mantissa read.
const FAST_CELL_LIMIT: f64 = 1_073_741_824.0; // 2³⁰

/// The largest first-octave coordinate magnitude for which every octave's skewed cells stay
/// below [`FAST_CELL_LIMIT`]: the skew multiplies a magnitude by at most `1 + D·F`, each octave
/// by `|lacunarity|`, rounding by far less than the 1 % margin, and the floor adds at most one.
/// Zero (no group qualifies) for a lacunarity that is not finite.
fn fast_bound(dimensions: usize, octaves: usize, lacunarity: f64) -> f64 {
    let mut growth: f64 = 1.0;
    let mut power: f64 = 1.0;
    for _ in 1..octaves {
        power *= lacunarity.abs();
        growth = growth.max(power);
    }
    let factor = growth * (1.0 + dimensions as f64 * skew_factor(dimensions)) * 1.01;
    if factor.is_finite() && factor > 0.0 { (FAST_CELL_LIMIT - 2.0) / factor } else { 0.0 }
}

impl<const D: usize> SimplexFbm<D> {
    /// The fBm of `params` (octaves clamped to 1..=32).
    pub fn new(seed: u32, params: FractalParams, radius: SimplexRadius) -> Self {
        let count = params.octaves.clamp(1, MAX_OCTAVES);
        let keys = (0..count).map(|o| octave_key(seed, o)).collect();
        let mut amplitude = 1.0;
        let amplitudes: Vec<f64> = (0..count)
            .map(|_| {
                let a = amplitude;
                amplitude *= params.persistence;
                a
            })
            .collect();
        let total = amplitudes.iter().fold(0.0, |t, a| t + a);
        Self {
            keys,
            amplitudes,
            frequency: params.frequency,
            lacunarity: params.lacunarity,
            scale_factor: if total > 0.0 { 1.0 / total } else { 0.0 },
            radius,
            noise_scale: radius.scale(D),
            fast_bound: fast_bound(D, count as usize, params.lacunarity),
            kernel: Kernel::detect(),
        }
    }

    /// The batch kernel in use.
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    /// The fBm at `p`.
    #[inline]
    pub fn get(&self, p: [f64; D]) -> f64 {
        self.fbm_lanes::<1>(&p.map(|v| [v]))[0]
    }

    /// `out[i] = get(points[i])`, several points at a time. The slices must have equal lengths.
    pub fn get_many(&self, points: &[[f64; D]], out: &mut [f64]) {
        self.get_many_with(self.kernel, points, out);
    }

    /// [`SimplexFbm::get_many`] with a given kernel (for tests and benchmarks); a kernel the CPU
    /// lacks or the thread's SIMD limit forbids runs the widest one below it that qualifies.
    #[doc(hidden)]
    pub fn get_many_with(&self, kernel: Kernel, points: &[[f64; D]], out: &mut [f64]) {
        assert_eq!(points.len(), out.len(), "get_many: {} points, {} outputs", points.len(), out.len());
        match kernel.allowed() {
            // SAFETY: `allowed` keeps a kernel only when the running CPU has its features.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => unsafe { self.batch_avx512(points, out) },
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { self.batch_avx2(points, out) },
            _ => self.batch::<PORTABLE_LANES>(points, out),
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn batch_avx2(&self, points: &[[f64; D]], out: &mut [f64]) {
        self.batch_avx2_intrinsics(points, out);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,avx512f,avx512dq,avx512vl,avx512bw")]
    fn batch_avx512(&self, points: &[[f64; D]], out: &mut [f64]) {
        self.batch::<8>(points, out);
    }

    /// `N` points at a time; the last group is padded with copies of its first point.
    #[inline(always)]
    fn batch<const N: usize>(&self, points: &[[f64; D]], out: &mut [f64]) {
        for (group, values) in points.chunks(N).zip(out.chunks_mut(N)) {
            let mut lanes = [[0.0; N]; D];
            for (i, axis) in lanes.iter_mut().enumerate() {
                for (l, v) in axis.iter_mut().enumerate() {
                    *v = group.get(l).unwrap_or(&group[0])[i];
                }
            }
            let result = self.fbm_lanes::<N>(&lanes);
            values.copy_from_slice(&result[..values.len()]);
        }
    }

    #[inline(always)]
    fn fbm_lanes<const N: usize>(&self, p: &[[f64; N]; D]) -> [f64; N] {
        let (r2, scale) = (self.radius.squared(), self.noise_scale);
        let mut point = [[0.0; N]; D];
        for i in 0..D {
            for l in 0..N {
                point[i][l] = p[i][l] * self.frequency;
            }
        }
        let mut result = [0.0; N];
        for (key, amplitude) in self.keys.iter().zip(&self.amplitudes) {
            let signal = noise_lanes::<N, D>(*key, &point, r2, scale);
            for l in 0..N {
                result[l] += signal[l] * amplitude;
            }
            for axis in point.iter_mut() {
                for v in axis.iter_mut() {
                    *v *= self.lacunarity;
                }
            }
        }
        for r in result.iter_mut() {
            *r *= self.scale_factor;
        }
        result
    }
}

#[cfg(test)]
mod tests {
    //! Tests against the definition: a slow reference written from the module doc's procedure
    //! (explicit sort, vertices unskewed one by one), compared with the fast lane code.
    use super::*;
    use crate::base::rng::{hash3, unit_f64};

    /// The definition, step by step, for any n.
    fn reference(seed: u32, p: &[f64], radius: SimplexRadius) -> f64 {
        let n = p.len();
        let (f, g) = (skew_factor(n), unskew_factor(n));
        let s: f64 = p.iter().sum::<f64>() * f;
        let cell: Vec<i64> = p.iter().map(|v| (v + s).floor() as i64).collect();
        let internal: Vec<f64> = p.iter().zip(&cell).map(|(v, c)| v + s - *c as f64).collect();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|a, b| internal[*b].partial_cmp(&internal[*a]).unwrap_or(std::cmp::Ordering::Equal));
        let mut vertex = cell.clone();
        let key = octave_key(seed, 0);
        let table = gradients(n);
        let mut total = 0.0;
        for k in 0..=n {
            if k > 0 {
                vertex[order[k - 1]] += 1;
            }
            let vsum: i64 = vertex.iter().sum();
            let delta: Vec<f64> = (0..n).map(|i| p[i] - (vertex[i] as f64 - g * vsum as f64)).collect();
            let d2: f64 = delta.iter().map(|d| d * d).sum();
            let falloff = radius.squared() - d2;
            if falloff > 0.0 {
                let v32: Vec<i32> = vertex.iter().map(|c| *c as i32).collect();
                let grad = &table[gradient_index(vertex_hash(key, &v32), table.len())];
                let dot: f64 = (0..n).map(|i| delta[i] * grad[i]).sum();
                total += falloff.powi(4) * dot;
            }
        }
        total * radius.scale(n)
    }

    fn fast(seed: u32, p: &[f64], radius: SimplexRadius) -> f64 {
        match p.len() {
            2 => simplex::<2>(seed, [p[0], p[1]], radius),
            3 => simplex::<3>(seed, [p[0], p[1], p[2]], radius),
            4 => simplex::<4>(seed, [p[0], p[1], p[2], p[3]], radius),
            _ => simplex::<5>(seed, [p[0], p[1], p[2], p[3], p[4]], radius),
        }
    }

    fn random_point(n: usize, i: u64, span: f64) -> Vec<f64> {
        (0..n).map(|a| (unit_f64(hash3(99, n as u64, i as i32, a as i32, 0)) - 0.5) * span).collect()
    }

    const RADII: [SimplexRadius; 2] = [SimplexRadius::Half, SimplexRadius::SixTenths];

    #[test]
    fn matches_the_reference_definition_in_2_to_5_dimensions() {
        for n in 2..=5 {
            for radius in RADII {
                for i in 0..4000 {
                    let p = random_point(n, i, 200.0);
                    let (a, b) = (fast(7, &p, radius), reference(7, &p, radius));
                    assert!((a - b).abs() < 1e-12, "n={n} r²={} at {p:?}: fast {a}, reference {b}", radius.squared());
                }
            }
        }
    }

    #[test]
    fn factors_are_the_definitions() {
        assert!((skew_factor(2) - (3f64.sqrt() - 1.0) / 2.0).abs() < 1e-15);
        assert!((unskew_factor(2) - (3.0 - 3f64.sqrt()) / 6.0).abs() < 1e-15);
        assert!((skew_factor(3) - 1.0 / 3.0).abs() < 1e-15);
        assert!((unskew_factor(3) - 1.0 / 6.0).abs() < 1e-15);
        assert_eq!(gradients(5).len(), 80);
        assert_eq!(gradients(4).len(), 32);
        for g in gradients(4) {
            assert_eq!(g.iter().filter(|c| **c == 0.0).count(), 2, "one zero in 4 axes, plus the padding: {g:?}");
        }
    }

    /// Lattice vertices `v` (integer skewed coordinates), unskewed: `v − G·Σv`.
    fn lattice_vertices(n: usize) -> Vec<Vec<f64>> {
        let g = unskew_factor(n);
        (0..600u64)
            .map(|i| {
                let v: Vec<i64> =
                    (0..n).map(|a| (hash3(5, n as u64, i as i32, a as i32, 1) % 41) as i64 - 20).collect();
                let sum: i64 = v.iter().sum();
                v.iter().map(|c| *c as f64 - g * sum as f64).collect()
            })
            .collect()
    }

    #[test]
    fn zero_at_every_lattice_vertex() {
        for n in 2..=5 {
            for radius in RADII {
                for p in lattice_vertices(n) {
                    let v = fast(3, &p, radius);
                    // The vertex's own kernel has Δ within rounding of 0; every other vertex is
                    // beyond r. On the vertices with Σv = 0 (exact in f64) it is exactly 0.
                    assert!(v.abs() < 1e-13, "n={n} at vertex {p:?}: {v}");
                }
                let mut on_plane = vec![0.0; n];
                on_plane[0] = 3.0;
                on_plane[n - 1] = -3.0;
                assert_eq!(fast(3, &on_plane, radius), 0.0, "n={n} exact vertex");
                assert_eq!(fast(3, &vec![0.0; n], radius), 0.0, "n={n} origin");
            }
        }
    }

    /// The edge of the simplex is longer than r: no kernel reaches a neighbouring vertex.
    #[test]
    fn every_other_vertex_is_beyond_r() {
        for n in 2..=5 {
            let g = unskew_factor(n);
            let edge2 = (1.0 - g) * (1.0 - g) + (n - 1) as f64 * g * g;
            assert!((edge2 - n as f64 / (n + 1) as f64).abs() < 1e-12);
            assert!(edge2 > 0.6, "n={n} edge² {edge2}");
        }
    }

    /// With r² = 0.5 the sum over the simplex equals the sum over every lattice vertex within r
    /// (a brute-force search of the neighbouring cells): nothing beyond r contributes, and
    /// nothing within r is left out.
    #[test]
    fn no_contribution_beyond_r_and_none_missing() {
        for n in 2..=5 {
            let (f, g) = (skew_factor(n), unskew_factor(n));
            let key = octave_key(11, 0);
            let table = gradients(n);
            for i in 0..300 {
                let p = random_point(n, i + 7000, 50.0);
                let s: f64 = p.iter().sum::<f64>() * f;
                let base: Vec<i64> = p.iter().map(|v| (v + s).floor() as i64).collect();
                let mut total = 0.0;
                for offset in 0..3usize.pow(n as u32) {
                    let vertex: Vec<i64> =
                        (0..n).map(|a| base[a] + (offset / 3usize.pow(a as u32) % 3) as i64 - 1).collect();
                    let vsum: i64 = vertex.iter().sum();
                    let delta: Vec<f64> = (0..n).map(|a| p[a] - (vertex[a] as f64 - g * vsum as f64)).collect();
                    let falloff = 0.5 - delta.iter().map(|d| d * d).sum::<f64>();
                    if falloff > 0.0 {
                        let v32: Vec<i32> = vertex.iter().map(|c| *c as i32).collect();
                        let grad = &table[gradient_index(vertex_hash(key, &v32), table.len())];
                        total += falloff.powi(4) * (0..n).map(|a| delta[a] * grad[a]).sum::<f64>();
                    }
                }
                let brute = total * SimplexRadius::Half.scale(n);
                let v = fast(11, &p, SimplexRadius::Half);
                assert!((v - brute).abs() < 1e-12, "n={n} at {p:?}: {v} vs all vertices within r {brute}");
            }
        }
    }

    /// Largest change over a step of 1e-6 in any direction: bounded by a gradient bound times
    /// the step with r² = 0.5; with 0.6 the jumps on simplex faces are measured and bounded.
    #[test]
    fn continuity() {
        for n in 2..=5 {
            for radius in RADII {
                let mut worst: f64 = 0.0;
                for i in 0..20_000 {
                    let p = random_point(n, i + 100_000, 40.0);
                    let dir = random_point(n, i + 300_000, 2.0);
                    let q: Vec<f64> = p.iter().zip(&dir).map(|(a, d)| a + d * 1e-6).collect();
                    worst = worst.max((fast(1, &p, radius) - fast(1, &q, radius)).abs());
                }
                match radius {
                    // The gradient of the scaled noise stays below about 10 per unit.
                    SimplexRadius::Half => assert!(worst < 1e-4, "n={n} r²=0.5: change {worst} over a 1e-6 step"),
                    SimplexRadius::SixTenths => assert!(worst < 0.2, "n={n} r²=0.6: jump {worst} over a 1e-6 step"),
                }
            }
        }
    }

    #[test]
    fn range_is_within_minus_one_to_one_and_used() {
        for n in 2..=5 {
            for radius in RADII {
                let (mut lo, mut hi) = (f64::MAX, f64::MIN);
                for i in 0..100_000 {
                    let v = fast(9, &random_point(n, i + 1_000_000, 300.0), radius);
                    assert!((-1.0..=1.0).contains(&v), "n={n} r²={}: {v}", radius.squared());
                    (lo, hi) = (lo.min(v), hi.max(v));
                }
                assert!(lo < -0.4 && hi > 0.4, "n={n} r²={}: range {lo}..{hi} uses [-1, 1]", radius.squared());
            }
        }
    }

    #[test]
    fn deterministic_and_seed_dependent() {
        for n in 2..=5 {
            let mut differ = 0;
            for i in 0..500 {
                let p = random_point(n, i + 5_000_000, 100.0);
                assert_eq!(fast(4, &p, SimplexRadius::Half).to_bits(), fast(4, &p, SimplexRadius::Half).to_bits());
                differ += (fast(4, &p, SimplexRadius::Half) != fast(5, &p, SimplexRadius::Half)) as u32;
            }
            assert!(differ > 450, "n={n}: seeds differ at {differ} of 500 points");
        }
    }

    #[test]
    fn radius_is_exactly_one_of_two() {
        assert_eq!(SimplexRadius::from_squared(0.5), Ok(SimplexRadius::Half));
        assert_eq!(SimplexRadius::from_squared(0.6f32 as f64), Ok(SimplexRadius::SixTenths));
        let e = SimplexRadius::from_squared(0.55).unwrap_err();
        assert_eq!(e.to_string(), "simplex radius squared 0.55 is not allowed; allowed: exactly 0.5 or 0.6");
        assert!(SimplexRadius::from_squared(f64::NAN).is_err());
    }

    const P: FractalParams = FractalParams { octaves: 5, frequency: 1.0 / 64.0, persistence: 0.5, lacunarity: 2.0 };

    fn fbm_reference<const D: usize>(seed: u32, p: [f64; D], radius: SimplexRadius) -> f64 {
        let (mut total, mut amp, mut norm) = (0.0, 1.0, 0.0);
        let mut q = p.map(|v| v * P.frequency);
        for o in 0..P.octaves {
            let key = octave_key(seed, o);
            total += simplex_lanes::<1, D>(key, &q.map(|v| [v]), radius.squared(), radius.scale(D))[0] * amp;
            norm += amp;
            amp *= P.persistence;
            q = q.map(|v| v * P.lacunarity);
        }
        total / norm
    }

    fn kernels_agree<const D: usize>() {
        for radius in RADII {
            let fbm = SimplexFbm::<D>::new(21, P, radius);
            let points: Vec<[f64; D]> =
                (0..1001).map(|i| std::array::from_fn(|a| random_point(D, i, 5000.0)[a])).collect();
            let scalar: Vec<u64> = points.iter().map(|p| fbm.get(*p).to_bits()).collect();
            for kernel in [Kernel::Portable, Kernel::Avx2, Kernel::Avx512] {
                let mut out = vec![0.0; points.len()];
                fbm.get_many_with(kernel, &points, &mut out);
                assert_eq!(
                    out.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                    scalar,
                    "{kernel:?} D={D} (law: Deterministic)"
                );
            }
            for p in points.iter().take(200) {
                let (a, b) = (fbm.get(*p), fbm_reference::<D>(21, *p, radius));
                assert!((a - b).abs() < 1e-12 && (-1.0..=1.0).contains(&a), "D={D}: {a} vs {b}");
            }
        }
    }

    #[test]
    fn fbm_paths_give_the_same_bits_2d_to_5d() {
        kernels_agree::<2>();
        kernels_agree::<3>();
        kernels_agree::<4>();
        kernels_agree::<5>();
    }
}

#[cfg(test)]
mod pinned_bits {
    //! The 2D and 3D fBm pinned bit for bit: every path (one point, each batch kernel) against the
    //! generic lane code run one point at a time, on many points, seeds, parameters and both radii;
    //! and a fingerprint of those bits taken from that generic code.
    use super::*;
    use crate::base::rng::{hash3, unit_f64};

    /// The fBm as the generic lane code computes it, one point at a time.
    fn generic_fbm<const D: usize>(fbm: &SimplexFbm<D>, p: [f64; D]) -> f64 {
        let (r2, scale) = (fbm.radius.squared(), fbm.radius.scale(D));
        let mut point = p.map(|v| [v * fbm.frequency]);
        let mut result = 0.0;
        for (key, amplitude) in fbm.keys.iter().zip(&fbm.amplitudes) {
            result += simplex_lanes::<1, D>(*key, &point, r2, scale)[0] * amplitude;
            for v in point.iter_mut() {
                v[0] *= fbm.lacunarity;
            }
        }
        result * fbm.scale_factor
    }

    /// Parameter sets: the bench, shipped height fields (f32 values as presets store them), odd
    /// lacunarity, one octave and many.
    fn parameter_sets() -> Vec<FractalParams> {
        let f32s = |octaves, scale: f32, persistence: f32, lacunarity: f32| FractalParams {
            octaves,
            frequency: 1.0 / scale as f64,
            persistence: persistence as f64,
            lacunarity: lacunarity as f64,
        };
        vec![
            FractalParams { octaves: 5, frequency: 1.0 / 64.0, persistence: 0.5, lacunarity: 2.0 },
            f32s(6, 220.0, 0.5, 2.0),
            f32s(7, 960.0, 0.55, 2.0),
            f32s(3, 37.3, 0.61, 1.87),
            FractalParams { octaves: 1, frequency: 1.0, persistence: 0.5, lacunarity: 2.0 },
            FractalParams { octaves: 12, frequency: 0.013, persistence: 0.7, lacunarity: 2.2 },
        ]
    }

    /// Points: random at several spans (up to ±1e7), grids of half-integers and integers (as the
    /// bench and the terrain lattice sample), ties of the internal coordinates (equal
    /// coordinates), zeros of both signs and lattice vertices.
    fn points<const D: usize>() -> Vec<[f64; D]> {
        let mut out = Vec::new();
        for (s, span) in [1.0, 7.0, 300.0, 20_000.0, 2e7].into_iter().enumerate() {
            for i in 0..700 {
                out.push(std::array::from_fn(|a| (unit_f64(hash3(41, D as u64, i, a as i32, s as i32)) - 0.5) * span));
            }
        }
        for i in 0..300i32 {
            out.push(std::array::from_fn(|a| ((i * (a as i32 + 3)) % 23 - 11) as f64 + 0.5));
            out.push(std::array::from_fn(|a| ((i * (a as i32 + 5)) % 29 - 14) as f64 * 16.0));
            let v = (i - 150) as f64 * 0.37;
            out.push([v; D]);
            out.push(std::array::from_fn(|a| if a == 0 { v } else { -v }));
        }
        out.push([0.0; D]);
        out.push([-0.0; D]);
        let g = unskew_factor(D);
        for i in 0..100i32 {
            let v: [f64; D] = std::array::from_fn(|a| ((i * 7 + a as i32 * 13) % 17 - 8) as f64);
            let sum: f64 = v.iter().sum();
            out.push(v.map(|c| c - g * sum));
        }
        out
    }

    /// Every path against the generic code; returns a fingerprint of all the bits.
    fn check<const D: usize>() -> u64 {
        let points = points::<D>();
        let mut fingerprint = 0xcbf2_9ce4_8422_2325u64;
        for (set, params) in parameter_sets().into_iter().enumerate() {
            for seed in [0u32, 7, 0xDEAD_BEEF] {
                for radius in [SimplexRadius::Half, SimplexRadius::SixTenths] {
                    let fbm = SimplexFbm::<D>::new(seed, params, radius);
                    let expected: Vec<u64> = points.iter().map(|p| generic_fbm(&fbm, *p).to_bits()).collect();
                    let single: Vec<u64> = points.iter().map(|p| fbm.get(*p).to_bits()).collect();
                    assert!(single == expected, "D={D} set {set} seed {seed} {radius:?}: get differs");
                    for kernel in [Kernel::Portable, Kernel::Avx2, Kernel::Avx512] {
                        // Every slice length, so that each padded tail is met.
                        for len in [points.len(), 1, 3, 5, 9, 17] {
                            let mut out = vec![0.0; len];
                            fbm.get_many_with(kernel, &points[..len], &mut out);
                            let got: Vec<u64> = out.iter().map(|v| v.to_bits()).collect();
                            assert!(
                                got == expected[..len],
                                "D={D} set {set} seed {seed} {radius:?} {kernel:?} len {len}: batch differs"
                            );
                        }
                    }
                    // The lane counts of AVX-512 (8) and others, compiled for this CPU's baseline,
                    // so that the eight-lane code is checked where the CPU lacks AVX-512.
                    for lanes in [2usize, 3, 8] {
                        let mut out = vec![0.0; points.len()];
                        match lanes {
                            2 => fbm.batch::<2>(&points, &mut out),
                            3 => fbm.batch::<3>(&points, &mut out),
                            _ => fbm.batch::<8>(&points, &mut out),
                        }
                        let got: Vec<u64> = out.iter().map(|v| v.to_bits()).collect();
                        assert!(got == expected, "D={D} set {set} seed {seed} {radius:?}: {lanes} lanes differ");
                    }
                    for bits in expected {
                        fingerprint = (fingerprint ^ bits).wrapping_mul(0x0000_0100_0000_01B3);
                    }
                }
            }
        }
        fingerprint
    }

    /// Groups of eight in which one point is huge, infinite or NaN run the generic code; the
    /// others in the same slice still take the AVX2 kernel, and every value equals `get`'s (a NaN
    /// is a NaN whatever its sign bit, which the paths need not agree on).
    fn odd_points_agree<const D: usize>() {
        let fbm = SimplexFbm::<D>::new(
            3,
            FractalParams { octaves: 6, frequency: 0.02, persistence: 0.5, lacunarity: 2.0 },
            SimplexRadius::Half,
        );
        let odd = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 3e9, -7e12, 1e300];
        let mut points: Vec<[f64; D]> = Vec::new();
        for (i, v) in odd.iter().enumerate() {
            for j in 0..8 {
                let base = (i * 8 + j) as f64 * 1.7 - 40.0;
                points
                    .push(std::array::from_fn(|a| if j == i % 8 && a == (i % D) { *v } else { base + a as f64 * 0.3 }));
            }
        }
        let bits = |v: f64| if v.is_nan() { f64::NAN.to_bits() } else { v.to_bits() };
        let expected: Vec<u64> = points.iter().map(|p| bits(fbm.get(*p))).collect();
        assert!(expected.iter().any(|b| *b == f64::NAN.to_bits()) && expected.iter().any(|b| *b != f64::NAN.to_bits()));
        for kernel in [Kernel::Portable, Kernel::Avx2, Kernel::Avx512] {
            let mut out = vec![0.0; points.len()];
            fbm.get_many_with(kernel, &points, &mut out);
            assert_eq!(out.iter().map(|v| bits(*v)).collect::<Vec<_>>(), expected, "D={D} {kernel:?}");
        }
    }

    #[test]
    fn huge_infinite_and_nan_points_give_the_same_bits_on_every_path() {
        odd_points_agree::<2>();
        odd_points_agree::<3>();
    }

    #[test]
    fn fbm_2d_bits_are_pinned() {
        let fingerprint = check::<2>();
        assert_eq!(fingerprint, 0xafa0_46cb_498b_b4b8, "2D fingerprint {fingerprint:#x}");
    }

    #[test]
    fn fbm_3d_bits_are_pinned() {
        let fingerprint = check::<3>();
        assert_eq!(fingerprint, 0x814c_466c_7446_665e, "3D fingerprint {fingerprint:#x}");
    }
}
