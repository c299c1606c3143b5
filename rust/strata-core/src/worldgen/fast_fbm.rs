//! 2D Perlin fBm that returns exactly the same f64 bits as the `noise` crate's `Fbm<Perlin>`
//! ([`crate::worldgen::fractal::perlin_fbm`]), evaluated four points at a time.
//!
//! The world's height field depends on every bit of this noise (golden fingerprints), so this is
//! not an approximation: it performs the same IEEE operations in the same order as `noise` 0.9
//! (`Fbm::get` → `perlin_2d` with the same permutation tables), only arranged so that four points
//! run in lockstep (`[f64; 4]` lanes that the compiler turns into vector instructions). Each lane
//! is an independent copy of the scalar computation: vector adds, multiplies, compares and
//! rounding are exact IEEE operations lane by lane, and nothing is fused (Rust never contracts
//! `a * b + c` into an FMA), so every path — scalar, portable lanes, AVX2 lanes — gives the same
//! bits on every x86_64 CPU and elsewhere.
//!
//! One octave of `perlin_2d` at point `(x, y)`:
//!
//! ```text
//! corner c = trunc(v) − 1 if v ≤ 0 else trunc(v)      (per axis; note: −1.0 maps to −2)
//! d = v − c,  hash(i, j) = P[P[i & 255] ^ (j & 255)] & 3
//! g(ox, oy) = ±(dx − ox) ± (dy − oy)                   (bit 0 flips x, bit 1 flips y)
//! q(t) = t³(t(6t − 15) + 10) on clamp(t, 0, 1),   lerp(a, b, t) = b·t + a·(1 − t)
//! n = clamp(lerp(lerp(g00, g01, q(dy)), lerp(g10, g11, q(dy)), q(dx)) · 2/√2, −1, 1)
//! ```
//!
//! and the fBm sums `n(p·f·Lᵒ) · Aᵒ` (the point multiplied by the lacunarity once per octave, the
//! attenuation `A` by the persistence), then multiplies by `1 / Σ persistenceᵒ`. Octave `o` uses
//! the permutation table of seed `seed + o`, read from `noise` itself.
//!
//! The table lookups stay scalar (six byte loads per point and octave). The one deviation from
//! `noise`: it panics on NaN or on coordinates beyond ±2⁶³ after scaling; this returns a value.

use crate::worldgen::fractal::FractalParams;
use noise::permutationtable::{NoiseHasher, PermutationTable};

/// Points evaluated together by the batch kernel.
pub const LANES: usize = 4;

/// `perlin_2d`'s scale to about `[-1, 1]`, written as `noise` writes it.
const PERLIN_2D_SCALE: f64 = 2.0 / std::f64::consts::SQRT_2;

/// Below this magnitude, `v + `[`INDEX_MAGIC`] is `v` rounded to an integer `r`, held as
/// `r + 2⁵¹` in the low mantissa bits, so the corner needs no float-to-int conversion.
const INDEX_EXACT_BELOW: f64 = 2_251_799_813_685_248.0; // 2⁵¹

/// 1.5 · 2⁵² (see [`INDEX_EXACT_BELOW`]).
const INDEX_MAGIC: f64 = 6_755_399_441_055_744.0;

/// The sign bit of an f64.
const SIGN_BIT: u64 = 1 << 63;

/// One octave's permutation table and amplitude.
#[derive(Clone, Copy)]
struct Octave {
    perm: [u8; 256],
    /// `persistence^(o + 1)`, by repeated multiplication as `Fbm::get` computes it.
    attenuation: f64,
}

/// 2D Perlin fBm, bit for bit `perlin_fbm(seed, params).get([x, z])` (see the module doc).
#[derive(Clone)]
pub struct PerlinFbm2 {
    octaves: Vec<Octave>,
    frequency: f64,
    lacunarity: f64,
    /// `1 / Σ_{o=1..octaves} persistence^o`, as `Fbm::calc_scale_factor` computes it.
    scale_factor: f64,
    /// The CPU has AVX2 (checked once, at construction).
    avx2: bool,
}

impl std::fmt::Debug for PerlinFbm2 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PerlinFbm2")
            .field("octaves", &self.octaves.len())
            .field("frequency", &self.frequency)
            .field("lacunarity", &self.lacunarity)
            .field("avx2", &self.avx2)
            .finish()
    }
}

impl PerlinFbm2 {
    /// The fBm that [`crate::worldgen::fractal::perlin_fbm`]`(seed, params)` builds.
    pub fn new(seed: u32, params: FractalParams) -> Self {
        let octave_count = params.octaves.clamp(1, 32) as usize;
        let persistence = params.persistence;
        let mut attenuation = persistence;
        let octaves = (0..octave_count)
            .map(|o| {
                // `Fbm` seeds octave `o` with `seed + o` (wrapping, as in a release build of `noise`).
                let table = PermutationTable::new(seed.wrapping_add(o as u32));
                let perm = std::array::from_fn(|i| table.hash(&[i as isize]) as u8);
                let octave = Octave { perm, attenuation };
                attenuation *= persistence;
                octave
            })
            .collect();
        let denominator = (1..=octave_count).fold(0.0, |acc, o| acc + persistence.powi(o as i32));
        Self {
            octaves,
            frequency: params.frequency,
            lacunarity: params.lacunarity,
            scale_factor: 1.0 / denominator,
            avx2: avx2_available(),
        }
    }

    /// The fBm at `(x, z)`.
    #[inline]
    pub fn get(&self, x: f64, z: f64) -> f64 {
        self.fbm_lanes::<1>([x], [z])[0]
    }

    /// `out[i] = get(xs[i], zs[i])`, four points at a time. The slices must have equal lengths.
    pub fn get_many(&self, xs: &[f64], zs: &[f64], out: &mut [f64]) {
        assert!(xs.len() == zs.len() && xs.len() == out.len(), "get_many: {} xs, {} zs, {} outputs", xs.len(), zs.len(), out.len());
        #[cfg(target_arch = "x86_64")]
        if self.avx2 {
            // SAFETY: `avx2` is true only when the running CPU reports AVX2.
            unsafe { self.get_many_avx2(xs, zs, out) };
            return;
        }
        self.get_many_portable(xs, zs, out);
    }

    /// `out[i] = get(xs[i], z)`: one row of constant `z`. The slices must have equal lengths.
    pub fn fill_row(&self, xs: &[f64], z: f64, out: &mut [f64]) {
        assert_eq!(xs.len(), out.len(), "fill_row: {} xs, {} outputs", xs.len(), out.len());
        #[cfg(target_arch = "x86_64")]
        if self.avx2 {
            // SAFETY: `avx2` is true only when the running CPU reports AVX2.
            unsafe { self.fill_row_avx2(xs, z, out) };
            return;
        }
        self.fill_row_portable(xs, z, out);
    }

    /// [`PerlinFbm2::get_many`] compiled for the x86_64 baseline (or any other target).
    #[doc(hidden)]
    pub fn get_many_portable(&self, xs: &[f64], zs: &[f64], out: &mut [f64]) {
        self.batch(xs.len(), |i| (xs[i], zs[i]), out);
    }

    /// [`PerlinFbm2::fill_row`] compiled for the x86_64 baseline (or any other target).
    #[doc(hidden)]
    pub fn fill_row_portable(&self, xs: &[f64], z: f64, out: &mut [f64]) {
        self.batch(xs.len(), |i| (xs[i], z), out);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn get_many_avx2(&self, xs: &[f64], zs: &[f64], out: &mut [f64]) {
        self.batch(xs.len(), |i| (xs[i], zs[i]), out);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn fill_row_avx2(&self, xs: &[f64], z: f64, out: &mut [f64]) {
        self.batch(xs.len(), |i| (xs[i], z), out);
    }

    /// `out[i]` = the fBm at `point(i)` for `i < n`, [`LANES`] at a time; the last group is
    /// padded with copies of its first point (lanes are independent, so padding changes nothing).
    #[inline(always)]
    fn batch(&self, n: usize, point: impl Fn(usize) -> (f64, f64), out: &mut [f64]) {
        let out = &mut out[..n];
        for (g, chunk) in out.chunks_mut(LANES).enumerate() {
            let first = g * LANES;
            let mut xs = [0.0; LANES];
            let mut zs = [0.0; LANES];
            for l in 0..LANES {
                let i = if l < chunk.len() { first + l } else { first };
                (xs[l], zs[l]) = point(i);
            }
            let values = self.fbm_lanes::<LANES>(xs, zs);
            chunk.copy_from_slice(&values[..chunk.len()]);
        }
    }

    /// `Fbm::get` on `N` points in lockstep.
    #[inline(always)]
    fn fbm_lanes<const N: usize>(&self, x: [f64; N], z: [f64; N]) -> [f64; N] {
        let mut px = x.map(|v| v * self.frequency);
        let mut pz = z.map(|v| v * self.frequency);
        let mut result = [0.0; N];
        for octave in &self.octaves {
            let signal = perlin_lanes(&octave.perm, px, pz);
            for l in 0..N {
                result[l] += signal[l] * octave.attenuation;
                px[l] *= self.lacunarity;
                pz[l] *= self.lacunarity;
            }
        }
        result.map(|r| r * self.scale_factor)
    }
}

/// The CPU can run the AVX2 kernel.
fn avx2_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `perlin_2d` on `N` points in lockstep.
#[inline(always)]
fn perlin_lanes<const N: usize>(perm: &[u8; 256], px: [f64; N], pz: [f64; N]) -> [f64; N] {
    let (dx, ix) = corner(px);
    let (dz, iz) = corner(pz);
    // The four corner hashes of each lane, one byte each: g00, g10, g01, g11.
    let mut hashes = [0u64; N];
    for l in 0..N {
        let (x0, x1) = (ix[l] & 255, ix[l].wrapping_add(1) & 255);
        let (z0, z1) = (iz[l] & 255, iz[l].wrapping_add(1) & 255);
        let (a0, a1) = (perm[x0] as usize, perm[x1] as usize);
        hashes[l] = perm[a0 ^ z0] as u64 | (perm[a1 ^ z0] as u64) << 8 | (perm[a0 ^ z1] as u64) << 16 | (perm[a1 ^ z1] as u64) << 24;
    }
    // Sign masks: bit 0 of corner `c`'s hash (bit 8c) flips the x part, bit 1 the z part.
    let flip_x = |c: u32| hashes.map(|h| (h << (63 - 8 * c)) & SIGN_BIT);
    let flip_z = |c: u32| hashes.map(|h| (h << (62 - 8 * c)) & SIGN_BIT);
    let (fx00, fx10, fx01, fx11) = (flip_x(0), flip_x(1), flip_x(2), flip_x(3));
    let (fz00, fz10, fz01, fz11) = (flip_z(0), flip_z(1), flip_z(2), flip_z(3));
    let mut out = [0.0; N];
    for l in 0..N {
        let (x0, x1) = (dx[l], dx[l] - 1.0);
        let (z0, z1) = (dz[l], dz[l] - 1.0);
        let g00 = flip(x0, fx00[l]) + flip(z0, fz00[l]);
        let g10 = flip(x1, fx10[l]) + flip(z0, fz10[l]);
        let g01 = flip(x0, fx01[l]) + flip(z1, fz01[l]);
        let g11 = flip(x1, fx11[l]) + flip(z1, fz11[l]);
        let (qx, qz) = (quintic(dx[l]), quintic(dz[l]));
        out[l] = (linear(linear(g00, g01, qz), linear(g10, g11, qz), qx) * PERLIN_2D_SCALE).clamp(-1.0, 1.0);
    }
    out
}

/// `noise`'s corner and distance along one axis: corner `c = trunc(v) − 1` for `v ≤ 0` (so
/// integers ≤ 0 go one lower), else `trunc(v)`; returns `d = v − c` (with `c` as `noise` converts
/// it to f64) and `c` as an integer (only its low 8 bits are used).
///
/// When every `|v| < 2⁵¹`: `v + 1.5·2⁵²` rounds `v` to the nearest integer `r` and holds it in the
/// low mantissa bits; `c` is `r` or `r − 1` (see the comparisons), all exact integers in f64, so
/// `v − c` is the same operation `noise` performs. Otherwise the exact integer conversion.
#[inline(always)]
fn corner<const N: usize>(v: [f64; N]) -> ([f64; N], [usize; N]) {
    if v.iter().fold(true, |small, v| small & (v.abs() < INDEX_EXACT_BELOW)) {
        let biased = v.map(|v| v + INDEX_MAGIC);
        let mut d = [0.0; N];
        let mut index = [0usize; N];
        for l in 0..N {
            let r = biased[l] - INDEX_MAGIC;
            // trunc(v) is r, or r ∓ 1 when rounding went away from zero; then −1 for v ≤ 0.
            let one_lower = if v[l] <= 0.0 { !(r < v[l]) } else { r > v[l] };
            let c = if one_lower { r - 1.0 } else { r };
            d[l] = v[l] - c;
            index[l] = (biased[l].to_bits() as usize).wrapping_sub(one_lower as usize);
        }
        (d, index)
    } else {
        let c = v.map(|v| (v as i64).wrapping_sub((v <= 0.0) as i64));
        (std::array::from_fn(|l| v[l] - c[l] as f64), c.map(|c| c as usize))
    }
}

/// `v` with its sign flipped where `mask` has the sign bit: exactly `-v` or `v`, so
/// `flip(x, sx) + flip(y, sy)` is bit for bit `noise`'s `±x ± y`.
#[inline(always)]
fn flip(v: f64, mask: u64) -> f64 {
    f64::from_bits(v.to_bits() ^ mask)
}

/// `noise`'s quintic S-curve (clamped to `[0, 1]` first), same operation order.
#[inline(always)]
fn quintic(t: f64) -> f64 {
    let x = t.clamp(0.0, 1.0);
    x * x * x * (x * (x * 6.0 - 15.0) + 10.0)
}

/// `noise`'s `linear`: `b·α + a·(1 − α)`.
#[inline(always)]
fn linear(a: f64, b: f64, alpha: f64) -> f64 {
    b * alpha + a * (1.0 - alpha)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worldgen::fractal::perlin_fbm;
    use noise::NoiseFn;
    use std::hint::black_box;

    /// Parameter sets: the shipped presets' height fields (scale 220..960, octaves 4..7,
    /// persistence 0.5 and 0.55 as f32), the climate (3 octaves), the bench, and odd ones.
    fn parameter_sets() -> Vec<FractalParams> {
        let mut sets = Vec::new();
        for (octaves, scale, persistence, lacunarity) in [
            (5u32, 320.0f32, 0.5f32, 2.0f32),
            (6, 220.0, 0.5, 2.0),
            (7, 960.0, 0.55, 2.0),
            (5, 400.0, 0.5, 2.0),
            (4, 640.0, 0.5, 2.0),
            (3, 1024.0, 0.5, 2.0),
            (5, 128.0, 0.5, 2.0),
            (1, 50.0, 0.5, 2.0),
            (2, 1.0, 0.9, 3.1),
            (6, 17.3, 0.37, 1.7),
            (3, 3.0, 1.0, 2.5),
            (40, 64.0, 0.61, 1.93),
        ] {
            sets.push(FractalParams {
                octaves,
                frequency: 1.0 / (scale as f64).max(1.0),
                persistence: persistence as f64,
                lacunarity: lacunarity as f64,
            });
        }
        sets.push(FractalParams { octaves: 5, frequency: 1.0 / 128.0, persistence: 0.5, lacunarity: 2.0 });
        sets.push(FractalParams { octaves: 4, frequency: 0.731, persistence: 0.45, lacunarity: std::f64::consts::PI * 2.0 / 3.0 });
        sets
    }

    /// Points: negative, large (±1e6), integer lattice coordinates (also after scaling), zero,
    /// column centres and irrational steps.
    fn points() -> Vec<(f64, f64)> {
        let mut p = Vec::new();
        for k in -6..6 {
            for i in -6..6 {
                p.push((i as f64, k as f64));
                p.push((i as f64 * 64.0, k as f64 * 128.0));
                p.push((i as f64 + 0.5, k as f64 - 0.5));
            }
        }
        for &(x, z) in &[(0.0, 0.0), (-0.0, 0.0), (0.0, -0.0), (1e6, -1e6), (-1e6, 1e6), (1e6 + 0.5, 1e6 - 0.25), (-999_999.5, -1e6 + 3.0)] {
            p.push((x, z));
        }
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for i in 0..3000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let a = (state >> 11) as f64 / (1u64 << 53) as f64;
            let b = ((state >> 3) & 0xffff_ffff) as f64 / 4_294_967_296.0;
            let range = [4.0, 300.0, 5000.0, 2e6][i % 4];
            p.push(((a - 0.5) * range, (b - 0.5) * range));
        }
        for i in 0..200 {
            p.push((i as f64 * 1.37 - 137.0, -(i as f64) * 0.71 + 40.0));
        }
        p
    }

    fn assert_all_paths_match(seed: u32, params: FractalParams, pts: &[(f64, f64)]) {
        // Runtime parameters for both, so neither constructor is constant-folded differently.
        let params = black_box(params);
        let reference = perlin_fbm(black_box(seed), params);
        let fast = PerlinFbm2::new(black_box(seed), params);
        let xs: Vec<f64> = pts.iter().map(|p| p.0).collect();
        let zs: Vec<f64> = pts.iter().map(|p| p.1).collect();
        let expected: Vec<f64> = pts.iter().map(|&(x, z)| reference.get([x, z])).collect();
        let (mut many, mut many_portable) = (vec![0.0; pts.len()], vec![0.0; pts.len()]);
        fast.get_many(&xs, &zs, &mut many);
        fast.get_many_portable(&xs, &zs, &mut many_portable);
        for (i, &(x, z)) in pts.iter().enumerate() {
            let e = expected[i].to_bits();
            let what = format!("seed {seed}, {params:?}, ({x}, {z}): noise {}", expected[i]);
            assert_eq!(fast.get(x, z).to_bits(), e, "scalar get, {what}");
            assert_eq!(many[i].to_bits(), e, "get_many, {what}");
            assert_eq!(many_portable[i].to_bits(), e, "get_many_portable, {what}");
        }
    }

    #[test]
    fn every_path_equals_the_noise_crate_bit_for_bit() {
        let pts = points();
        for seed in [0u32, 1, 7, 0x9e37_79b9, u32::MAX - 40] {
            for params in parameter_sets() {
                assert_all_paths_match(seed, params, &pts);
            }
        }
    }

    #[test]
    fn rows_equal_the_noise_crate_at_every_length() {
        let params = FractalParams { octaves: 5, frequency: 1.0 / 320.0, persistence: 0.5, lacunarity: 2.0 };
        let reference = perlin_fbm(black_box(0xdead_beef), black_box(params));
        let fast = PerlinFbm2::new(black_box(0xdead_beef), black_box(params));
        for len in 0..19 {
            for z in [-3000.5, -0.0, 0.5, 40.0, 12345.5] {
                let xs: Vec<f64> = (0..len).map(|i| (i as f64 - 7.0) * 4.0 + 0.5).collect();
                let (mut row, mut row_portable) = (vec![f64::NAN; len], vec![f64::NAN; len]);
                fast.fill_row(&xs, z, &mut row);
                fast.fill_row_portable(&xs, z, &mut row_portable);
                for (i, &x) in xs.iter().enumerate() {
                    let e = reference.get([x, z]).to_bits();
                    assert_eq!(row[i].to_bits(), e, "fill_row len {len} at ({x}, {z})");
                    assert_eq!(row_portable[i].to_bits(), e, "fill_row_portable len {len} at ({x}, {z})");
                }
            }
        }
    }

    #[test]
    fn avx2_and_portable_kernels_agree() {
        // On a CPU with AVX2 `get_many` runs the AVX2 kernel; this pins it to the baseline build.
        eprintln!("AVX2 kernel in use: {}", avx2_available());
        let pts = points();
        let xs: Vec<f64> = pts.iter().map(|p| p.0).collect();
        let zs: Vec<f64> = pts.iter().map(|p| p.1).collect();
        for params in parameter_sets() {
            let fast = PerlinFbm2::new(42, params);
            let (mut a, mut b) = (vec![0.0; pts.len()], vec![0.0; pts.len()]);
            fast.get_many(&xs, &zs, &mut a);
            fast.get_many_portable(&xs, &zs, &mut b);
            assert!(a.iter().zip(&b).all(|(a, b)| a.to_bits() == b.to_bits()), "{params:?}");
        }
    }

    #[test]
    fn huge_coordinates_take_the_integer_index_path_and_still_match() {
        let params = FractalParams { octaves: 3, frequency: 1.0, persistence: 0.5, lacunarity: 2.0 };
        let reference = perlin_fbm(black_box(5), black_box(params));
        let fast = PerlinFbm2::new(black_box(5), black_box(params));
        // Beyond 2⁵¹ (the mantissa index path) but inside ±2⁶² after three octaves.
        let pts = [(3.0e15, 1.5), (-3.0e15, -7.25), (1.0e18, -1.0e18), (-4.0e15 - 0.5, 2.0e16), (2.0e15, 1.0)];
        let xs: Vec<f64> = pts.iter().map(|p| p.0).collect();
        let zs: Vec<f64> = pts.iter().map(|p| p.1).collect();
        let mut many = vec![0.0; pts.len()];
        fast.get_many(&xs, &zs, &mut many);
        for (i, &(x, z)) in pts.iter().enumerate() {
            let e = reference.get([x, z]).to_bits();
            assert_eq!(fast.get(x, z).to_bits(), e, "({x}, {z})");
            assert_eq!(many[i].to_bits(), e, "({x}, {z})");
        }
    }
}
