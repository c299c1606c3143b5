//! 2D Perlin fBm that returns exactly the same f64 bits as the `noise` crate's `Fbm<Perlin>`
//! ([`crate::noise::fractal::perlin_fbm`]), evaluated several points at a time.
//!
//! The world's height field depends on every bit of this noise (golden fingerprints), so this is
//! not an approximation: it performs the same IEEE operations in the same order as `noise` 0.9
//! (`Fbm::get` → `perlin_2d` with the same permutation tables), only arranged so that `N` points
//! run in lockstep (`[f64; N]` lanes that the compiler turns into vector instructions). Each lane
//! is an independent copy of the scalar computation: vector adds, multiplies, compares and
//! bit operations are exact IEEE operations lane by lane, and nothing is fused (Rust never
//! contracts `a * b + c` into an FMA, and no kernel enables FMA), so every path gives the same
//! bits on every CPU: the scalar [`PerlinFbm2::get`], and the batch kernels ([`Kernel`]) — the
//! same generic code compiled for the baseline (4 lanes), for AVX2 (4 lanes) and for AVX-512
//! (8 lanes), one picked at construction by runtime feature detection.
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
//! The hashes are integers, so they are precomputed: per octave a 256 × 256 table (64 KiB) holds
//! the four corner hashes of every cell in one byte, one scalar load per point and octave instead
//! of six. [`PerlinFbm2::fill_row`] (constant z, as the terrain lattice samples) computes the z
//! axis once per row. The one deviation from `noise`: it panics on NaN or on coordinates beyond
//! ±2⁶³ after scaling; this returns a value.
//!
//! May use: `base`, `preset` and the other `noise` modules.

use crate::noise::fractal::FractalParams;
use noise::permutationtable::{NoiseHasher, PermutationTable};

/// Lanes of the portable kernel (the AVX2 kernel has 4, the AVX-512 kernel 8).
const PORTABLE_LANES: usize = 4;

/// `perlin_2d`'s scale to about `[-1, 1]`, written as `noise` writes it.
const PERLIN_2D_SCALE: f64 = 2.0 / std::f64::consts::SQRT_2;

/// Below this magnitude, `v + `[`INDEX_MAGIC`] is `v` rounded to an integer `r`, held as
/// `r + 2⁵¹` in the low mantissa bits, so the corner needs no float-to-int conversion.
const INDEX_EXACT_BELOW: f64 = 2_251_799_813_685_248.0; // 2⁵¹

/// 1.5 · 2⁵² (see [`INDEX_EXACT_BELOW`]).
const INDEX_MAGIC: f64 = 6_755_399_441_055_744.0;

/// The bits of 1.0.
const ONE_BITS: u64 = 0x3ff0_0000_0000_0000;

/// The sign bit of an f64.
const SIGN_BIT: u64 = 1 << 63;

/// `Fbm`'s most octaves (`Fbm::MAX_OCTAVES`).
const MAX_OCTAVES: usize = 32;

/// Cells of one octave's corner-hash table: 256 × 256 (the hash only sees the low 8 bits).
const CELLS: usize = 256 * 256;

/// One octave's corner hashes and amplitude.
#[derive(Clone)]
struct Octave {
    /// `corners[(z & 255) << 8 | (x & 255)]`: the four corner hashes of lattice cell `(x, z)`,
    /// two bits each (`hash & 3`), at bits 0, 2, 4, 6 for corners `00, 10, 01, 11`; see
    /// [`corner_hashes`].
    corners: Box<[u8; CELLS]>,
    /// `persistence^(o + 1)`, by repeated multiplication as `Fbm::get` computes it.
    attenuation: f64,
}

/// Which compiled copy of the batch kernel runs: the same generic code, built for the x86_64
/// baseline (or any other target), for AVX2 (four lanes) or for AVX-512 (eight lanes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    Portable,
    Avx2,
    Avx512,
}

impl Kernel {
    /// The fastest kernel the running CPU can execute (within this thread's SIMD limit, see
    /// [`crate::base::simd`]).
    pub fn detect() -> Self {
        Self::available().into_iter().last().unwrap_or(Kernel::Portable)
    }

    /// This kernel if the running CPU can execute it and this thread's limit (see [`crate::base::simd`])
    /// allows it, else the widest narrower kernel that qualifies (all give the same bits).
    #[inline]
    pub fn allowed(self) -> Kernel {
        match self {
            Kernel::Avx512 if crate::base::simd::avx512() => Kernel::Avx512,
            Kernel::Avx512 | Kernel::Avx2 if crate::base::simd::avx2() => Kernel::Avx2,
            _ => Kernel::Portable,
        }
    }

    /// Every kernel the running CPU can execute within this thread's SIMD limit, slowest first
    /// (always starts with `Portable`).
    pub fn available() -> Vec<Kernel> {
        #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))] // set only by the x86_64 SIMD paths
        let mut kernels = vec![Kernel::Portable];
        #[cfg(target_arch = "x86_64")]
        {
            if crate::base::simd::avx2() {
                kernels.push(Kernel::Avx2);
            }
            if crate::base::simd::avx512() {
                kernels.push(Kernel::Avx512);
            }
        }
        kernels
    }
}

/// 2D Perlin fBm, bit for bit `perlin_fbm(seed, params).get([x, z])` (see the module doc).
#[derive(Clone)]
pub struct PerlinFbm2 {
    octaves: Vec<Octave>,
    frequency: f64,
    lacunarity: f64,
    /// `1 / Σ_{o=1..octaves} persistence^o`, as `Fbm::calc_scale_factor` computes it.
    scale_factor: f64,
    /// The batch kernel for this CPU (detected once, at construction).
    kernel: Kernel,
}

impl std::fmt::Debug for PerlinFbm2 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PerlinFbm2")
            .field("octaves", &self.octaves.len())
            .field("frequency", &self.frequency)
            .field("lacunarity", &self.lacunarity)
            .field("kernel", &self.kernel)
            .finish()
    }
}

impl PerlinFbm2 {
    /// The fBm that [`crate::noise::fractal::perlin_fbm`]`(seed, params)` builds.
    pub fn new(seed: u32, params: FractalParams) -> Self {
        let octave_count = params.octaves.clamp(1, MAX_OCTAVES as u32) as usize;
        let persistence = params.persistence;
        let mut attenuation = persistence;
        let octaves = (0..octave_count)
            .map(|o| {
                // `Fbm` seeds octave `o` with `seed + o` (wrapping, as in a release build of `noise`).
                let table = PermutationTable::new(seed.wrapping_add(o as u32));
                let perm: [u8; 256] = std::array::from_fn(|i| table.hash(&[i as isize]) as u8);
                let octave = Octave { corners: corner_hashes(&perm), attenuation };
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
            kernel: Kernel::detect(),
        }
    }

    /// The batch kernel in use.
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    /// The fBm at `(x, z)` (one lane of the kernel, built for AVX2 where the CPU has it).
    #[inline]
    pub fn get(&self, x: f64, z: f64) -> f64 {
        #[cfg(target_arch = "x86_64")]
        if self.kernel != Kernel::Portable {
            // SAFETY: the AVX2 and AVX-512 kernels are detected only on CPUs with AVX2.
            return unsafe { self.get_avx2(x, z) };
        }
        self.fbm_lanes::<1, false>([x], [z], &[])[0]
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn get_avx2(&self, x: f64, z: f64) -> f64 {
        self.fbm_lanes::<1, false>([x], [z], &[])[0]
    }

    /// `out[i] = get(xs[i], zs[i])`, a vector of points at a time. The slices must have equal
    /// lengths.
    pub fn get_many(&self, xs: &[f64], zs: &[f64], out: &mut [f64]) {
        self.get_many_with(self.kernel, xs, zs, out);
    }

    /// `out[i] = get(xs[i], z)`: one row of constant `z`. The slices must have equal lengths.
    pub fn fill_row(&self, xs: &[f64], z: f64, out: &mut [f64]) {
        self.fill_row_with(self.kernel, xs, z, out);
    }

    /// `out[k · xs.len() + i] = get(xs[i], zs[k])`: a grid of rows of constant `z` that share
    /// their `x` positions (as the terrain lattice samples it). Each `x`'s axis per octave
    /// (corner, distance, curve) is computed once for the whole grid and each row's `z` axis once
    /// per row: the same operations on the same inputs as [`PerlinFbm2::get`], so the same bits.
    /// `out` must hold `xs.len() · zs.len()` values.
    pub fn fill_grid(&self, xs: &[f64], zs: &[f64], out: &mut [f64]) {
        self.fill_grid_with(self.kernel, xs, zs, out);
    }

    /// [`PerlinFbm2::fill_grid`] with a given kernel (see [`PerlinFbm2::get_many_with`]).
    #[doc(hidden)]
    pub fn fill_grid_with(&self, kernel: Kernel, xs: &[f64], zs: &[f64], out: &mut [f64]) {
        assert_eq!(
            xs.len() * zs.len(),
            out.len(),
            "fill_grid: {} xs × {} zs, {} outputs",
            xs.len(),
            zs.len(),
            out.len()
        );
        match kernel.allowed() {
            // SAFETY: `allowed` keeps a kernel only when the running CPU has its features.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => unsafe { self.grid_avx512(xs, zs, out) },
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { self.grid_avx2(xs, zs, out) },
            _ => self.grid::<PORTABLE_LANES>(xs, zs, out),
        }
    }

    /// [`PerlinFbm2::get_many`] with a given kernel (for tests and benchmarks); a kernel the CPU
    /// lacks (not in [`Kernel::available`]) or the thread's SIMD limit forbids runs the widest
    /// one below it that qualifies.
    #[doc(hidden)]
    pub fn get_many_with(&self, kernel: Kernel, xs: &[f64], zs: &[f64], out: &mut [f64]) {
        assert!(
            xs.len() == zs.len() && xs.len() == out.len(),
            "get_many: {} xs, {} zs, {} outputs",
            xs.len(),
            zs.len(),
            out.len()
        );
        let point = |i: usize| (xs[i], zs[i]);
        match kernel.allowed() {
            // SAFETY: `allowed` keeps a kernel only when the running CPU has its features.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => unsafe { self.batch_avx512::<false>(xs.len(), point, out) },
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { self.batch_avx2::<false>(xs.len(), point, out) },
            _ => self.batch::<PORTABLE_LANES, false>(xs.len(), point, out),
        }
    }

    /// [`PerlinFbm2::fill_row`] with a given kernel (see [`PerlinFbm2::get_many_with`]).
    #[doc(hidden)]
    pub fn fill_row_with(&self, kernel: Kernel, xs: &[f64], z: f64, out: &mut [f64]) {
        assert_eq!(xs.len(), out.len(), "fill_row: {} xs, {} outputs", xs.len(), out.len());
        let point = |i: usize| (xs[i], z);
        match kernel.allowed() {
            // SAFETY: `allowed` keeps a kernel only when the running CPU has its features.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => unsafe { self.batch_avx512::<true>(xs.len(), point, out) },
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { self.batch_avx2::<true>(xs.len(), point, out) },
            _ => self.batch::<PORTABLE_LANES, true>(xs.len(), point, out),
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn batch_avx2<const ROW: bool>(&self, n: usize, point: impl Fn(usize) -> (f64, f64), out: &mut [f64]) {
        self.batch::<4, ROW>(n, point, out);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,avx512f,avx512dq,avx512vl,avx512bw")]
    fn batch_avx512<const ROW: bool>(&self, n: usize, point: impl Fn(usize) -> (f64, f64), out: &mut [f64]) {
        self.batch::<8, ROW>(n, point, out);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn grid_avx2(&self, xs: &[f64], zs: &[f64], out: &mut [f64]) {
        self.grid::<4>(xs, zs, out);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,avx512f,avx512dq,avx512vl,avx512bw")]
    fn grid_avx512(&self, xs: &[f64], zs: &[f64], out: &mut [f64]) {
        self.grid::<8>(xs, zs, out);
    }

    /// [`PerlinFbm2::fill_grid`], `N` lanes of one row at a time; the last group of a row is
    /// padded with copies of its first point, as in [`PerlinFbm2::batch`]. Per lane and octave
    /// this is [`PerlinFbm2::fbm_lanes`]' computation: the x axis from `x · frequency ·
    /// lacunarityᵒ` (multiplied octave by octave), the z axis likewise, the signals summed in
    /// octave order, then scaled.
    #[inline(always)]
    fn grid<const N: usize>(&self, xs: &[f64], zs: &[f64], out: &mut [f64]) {
        let (ni, octaves) = (xs.len(), self.octaves.len());
        if ni == 0 || zs.is_empty() {
            return;
        }
        let groups = ni.div_ceil(N);
        // The x axes, group-major (a group's octaves side by side).
        let mut x_axes = Vec::with_capacity(groups * octaves);
        for first in (0..ni).step_by(N) {
            let len = (ni - first).min(N);
            let mut px: [f64; N] =
                std::array::from_fn(|l| xs[if l < len { first + l } else { first }] * self.frequency);
            for _ in 0..octaves {
                x_axes.push(Axis::new(px));
                px = px.map(|v| v * self.lacunarity);
            }
        }
        let mut z_axes = [Axis::<1>::default(); MAX_OCTAVES];
        for (&z, row) in zs.iter().zip(out.chunks_exact_mut(ni)) {
            let mut pz = z * self.frequency;
            for axis in z_axes.iter_mut().take(octaves) {
                *axis = Axis::new([pz]);
                pz *= self.lacunarity;
            }
            for (g, axes) in x_axes.chunks_exact(octaves).enumerate() {
                let mut result = [0.0; N];
                for ((octave, x_axis), z_axis) in self.octaves.iter().zip(axes).zip(&z_axes) {
                    let signal = perlin_lanes(&octave.corners, *x_axis, z_axis.splat());
                    for l in 0..N {
                        result[l] += signal[l] * octave.attenuation;
                    }
                }
                let first = g * N;
                let len = (ni - first).min(N);
                for (o, r) in row[first..first + len].iter_mut().zip(result) {
                    *o = r * self.scale_factor;
                }
            }
        }
    }

    /// `out[i]` = the fBm at `point(i)` for `i < n`, `N` lanes at a time; the last group is
    /// padded with copies of its first point (lanes are independent, so padding changes nothing).
    /// `ROW`: every point has the same `z`.
    #[inline(always)]
    fn batch<const N: usize, const ROW: bool>(&self, n: usize, point: impl Fn(usize) -> (f64, f64), out: &mut [f64]) {
        if n == 0 {
            return;
        }
        // A row's z axis per octave, computed once: the same operations as in every lane.
        let mut row_axes = [Axis::<1>::default(); MAX_OCTAVES];
        if ROW {
            let mut pz = point(0).1 * self.frequency;
            for axis in row_axes.iter_mut().take(self.octaves.len()) {
                *axis = Axis::new([pz]);
                pz *= self.lacunarity;
            }
        }
        let out = &mut out[..n];
        for first in (0..n).step_by(N) {
            let len = (n - first).min(N);
            let mut xs = [0.0; N];
            let mut zs = [0.0; N];
            for l in 0..N {
                (xs[l], zs[l]) = point(if l < len { first + l } else { first });
            }
            let values = self.fbm_lanes::<N, ROW>(xs, zs, &row_axes);
            if len == N {
                out[first..first + N].copy_from_slice(&values);
            } else {
                out[first..first + len].copy_from_slice(&values[..len]);
            }
        }
    }

    /// `Fbm::get` on `N` points in lockstep. With `ROW`, every lane has the same `z`, whose axis
    /// per octave is in `row_axes` (the same operations, so the same bits).
    #[inline(always)]
    fn fbm_lanes<const N: usize, const ROW: bool>(&self, x: [f64; N], z: [f64; N], row_axes: &[Axis<1>]) -> [f64; N] {
        let mut px = x.map(|v| v * self.frequency);
        let mut pz = z.map(|v| v * self.frequency);
        let mut result = [0.0; N];
        for (o, octave) in self.octaves.iter().enumerate() {
            let z_axis = if ROW { row_axes[o].splat() } else { Axis::new(pz) };
            let signal = perlin_lanes(&octave.corners, Axis::new(px), z_axis);
            for l in 0..N {
                result[l] += signal[l] * octave.attenuation;
                px[l] *= self.lacunarity;
                pz[l] *= self.lacunarity;
            }
        }
        result.map(|r| r * self.scale_factor)
    }
}

/// The four corner hashes of every cell `(x, z)` of one octave (see [`Octave::corners`]):
/// `noise`'s `hash([x, z]) = P[P[x & 255] ^ (z & 255)]`, of which `perlin_2d` uses `& 3`.
fn corner_hashes(perm: &[u8; 256]) -> Box<[u8; CELLS]> {
    // `pairs(z)[x] = hash([x, z]) & 3 | (hash([x + 1, z]) & 3) << 2`; row z's pairs are the
    // lower corners of cells z and the upper corners of cells z − 1.
    let pairs = |z: usize| -> [u8; 256] {
        let hashes: [u8; 257] = std::array::from_fn(|x| perm[perm[x & 255] as usize ^ (z & 255)] & 3);
        std::array::from_fn(|x| hashes[x] | hashes[x + 1] << 2)
    };
    let mut corners = vec![0u8; CELLS];
    let mut lower = pairs(0);
    for (z, cells) in corners.chunks_exact_mut(256).enumerate() {
        let upper = pairs(z + 1);
        for ((cell, l), u) in cells.iter_mut().zip(&lower).zip(&upper) {
            *cell = l | u << 4;
        }
        lower = upper;
    }
    match corners.into_boxed_slice().try_into() {
        Ok(table) => table,
        Err(_) => unreachable!("the table has {CELLS} cells"),
    }
}

/// One axis of `perlin_2d` for `N` lanes: distance to the corner, its quintic curve, and the
/// corner's low 8 bits.
#[derive(Clone, Copy)]
struct Axis<const N: usize> {
    distance: [f64; N],
    curve: [f64; N],
    cell: [usize; N],
}

impl<const N: usize> Axis<N> {
    #[inline(always)]
    fn new(v: [f64; N]) -> Self {
        let (distance, corner) = corner(v);
        Self { distance, curve: distance.map(quintic), cell: corner.map(|c| c & 255) }
    }
}

impl Default for Axis<1> {
    fn default() -> Self {
        Self { distance: [0.0], curve: [0.0], cell: [0] }
    }
}

impl Axis<1> {
    /// The same axis in every lane.
    #[inline(always)]
    fn splat<const N: usize>(self) -> Axis<N> {
        Axis { distance: [self.distance[0]; N], curve: [self.curve[0]; N], cell: [self.cell[0]; N] }
    }
}

/// `perlin_2d` on `N` points in lockstep.
#[inline(always)]
fn perlin_lanes<const N: usize>(corners: &[u8; CELLS], x: Axis<N>, z: Axis<N>) -> [f64; N] {
    let hashes: [u64; N] = std::array::from_fn(|l| corners[(z.cell[l] << 8 | x.cell[l]) & (CELLS - 1)] as u64);
    // Sign masks: bit 0 of corner `c`'s hash (bit 2c) flips the x part, bit 1 the z part.
    let flip_x = |c: u32| hashes.map(|h| (h << (63 - 2 * c)) & SIGN_BIT);
    let flip_z = |c: u32| hashes.map(|h| (h << (62 - 2 * c)) & SIGN_BIT);
    let (fx00, fx10, fx01, fx11) = (flip_x(0), flip_x(1), flip_x(2), flip_x(3));
    let (fz00, fz10, fz01, fz11) = (flip_z(0), flip_z(1), flip_z(2), flip_z(3));
    let mut out = [0.0; N];
    for l in 0..N {
        let (x0, x1) = (x.distance[l], x.distance[l] - 1.0);
        let (z0, z1) = (z.distance[l], z.distance[l] - 1.0);
        let g00 = flip(x0, fx00[l]) + flip(z0, fz00[l]);
        let g10 = flip(x1, fx10[l]) + flip(z0, fz10[l]);
        let g01 = flip(x0, fx01[l]) + flip(z1, fz01[l]);
        let g11 = flip(x1, fx11[l]) + flip(z1, fz11[l]);
        let (qx, qz) = (x.curve[l], z.curve[l]);
        out[l] = (linear(linear(g00, g01, qz), linear(g10, g11, qz), qx) * PERLIN_2D_SCALE).clamp(-1.0, 1.0);
    }
    out
}

/// `noise`'s corner and distance along one axis: corner `c = trunc(v) − 1` for `v ≤ 0` (so
/// integers ≤ 0 go one lower), else `trunc(v)`; returns `d = v − c` (with `c` as `noise` converts
/// it to f64) and `c` as an integer (only its low 8 bits are used).
///
/// With several lanes all `|v| < 2⁵¹`: `v + 1.5·2⁵²` rounds `v` to the nearest integer `r` and
/// holds it in the low mantissa bits; `c` is `r` or `r − 1` (see the comparisons), all exact
/// integers in f64, so `v − c` is the same operation `noise` performs. Otherwise (and for a
/// single lane, where a scalar conversion is cheaper) `noise`'s own integer conversion.
#[inline(always)]
fn corner<const N: usize>(v: [f64; N]) -> ([f64; N], [usize; N]) {
    if N > 1 && v.iter().fold(true, |small, v| small & (v.abs() < INDEX_EXACT_BELOW)) {
        let biased = v.map(|v| v + INDEX_MAGIC);
        let mut d = [0.0; N];
        let mut index = [0usize; N];
        for l in 0..N {
            let r = biased[l] - INDEX_MAGIC;
            // The corner is r, or r − 1 when r rounded up, or when v is an integer ≤ 0.
            let one_lower = (r > v[l]) | ((r == v[l]) & (v[l] <= 0.0));
            let c = r - f64::from_bits(ONE_BITS & (one_lower as u64).wrapping_neg());
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
    use crate::noise::fractal::perlin_fbm;
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
        sets.push(FractalParams {
            octaves: 4,
            frequency: 0.731,
            persistence: 0.45,
            lacunarity: std::f64::consts::PI * 2.0 / 3.0,
        });
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
        for &(x, z) in &[
            (0.0, 0.0),
            (-0.0, 0.0),
            (0.0, -0.0),
            (1e6, -1e6),
            (-1e6, 1e6),
            (1e6 + 0.5, 1e6 - 0.25),
            (-999_999.5, -1e6 + 3.0),
        ] {
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
        for (i, &(x, z)) in pts.iter().enumerate() {
            assert_eq!(
                fast.get(x, z).to_bits(),
                expected[i].to_bits(),
                "scalar get, seed {seed}, {params:?}, ({x}, {z})"
            );
        }
        for kernel in Kernel::available() {
            let mut many = vec![f64::NAN; pts.len()];
            fast.get_many_with(kernel, &xs, &zs, &mut many);
            for (i, &(x, z)) in pts.iter().enumerate() {
                assert_eq!(
                    many[i].to_bits(),
                    expected[i].to_bits(),
                    "get_many {kernel:?}, seed {seed}, {params:?}, ({x}, {z}): noise {}",
                    expected[i]
                );
            }
        }
    }

    #[test]
    fn every_path_equals_the_noise_crate_bit_for_bit() {
        eprintln!("kernels on this CPU: {:?}", Kernel::available());
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
        for len in 0..27 {
            for z in [-3000.5, -1.0, -0.0, 0.5, 40.0, 12345.5] {
                let xs: Vec<f64> = (0..len).map(|i| (i as f64 - 7.0) * 4.0 + 0.5).collect();
                for kernel in Kernel::available() {
                    let mut row = vec![f64::NAN; len];
                    fast.fill_row_with(kernel, &xs, z, &mut row);
                    for (i, &x) in xs.iter().enumerate() {
                        assert_eq!(
                            row[i].to_bits(),
                            reference.get([x, z]).to_bits(),
                            "fill_row {kernel:?} len {len} at ({x}, {z})"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn grids_equal_the_noise_crate_at_every_shape() {
        // Every kernel, row lengths around the lane counts, the shipped parameter sets (the
        // default terrain's 8 octaves at 0.58 included) and points on both sides of zero.
        let mut sets = parameter_sets();
        sets.push(FractalParams { octaves: 8, frequency: 1.0 / 460.0, persistence: 0.58f32 as f64, lacunarity: 2.0 });
        for (n, params) in sets.into_iter().enumerate() {
            let seed = black_box(0x5eed_0000 + n as u32);
            let reference = perlin_fbm(seed, black_box(params));
            let fast = PerlinFbm2::new(seed, black_box(params));
            for (ni, nk) in [(0, 3), (3, 0), (1, 1), (7, 2), (9, 3), (17, 4), (37, 5)] {
                let xs: Vec<f64> = (0..ni).map(|i| (i as f64 - 11.0) * 1.0 + 0.5 - 64.0 * n as f64).collect();
                let zs: Vec<f64> = (0..nk).map(|k| (k as f64 - 2.0) * 3.25 + 0.5 + 1e5 * (n % 3) as f64).collect();
                for kernel in Kernel::available() {
                    let mut grid = vec![f64::NAN; ni * nk];
                    fast.fill_grid_with(kernel, &xs, &zs, &mut grid);
                    for (k, &z) in zs.iter().enumerate() {
                        for (i, &x) in xs.iter().enumerate() {
                            assert_eq!(
                                grid[k * ni + i].to_bits(),
                                reference.get([x, z]).to_bits(),
                                "fill_grid {kernel:?} {ni}×{nk} at ({x}, {z}), {params:?}"
                            );
                        }
                    }
                }
            }
        }
        let pts = points();
        let xs: Vec<f64> = pts.iter().take(300).map(|p| p.0).collect();
        let zs: Vec<f64> = pts.iter().skip(300).take(9).map(|p| p.1).collect();
        let params = parameter_sets()[2];
        let reference = perlin_fbm(black_box(99), black_box(params));
        let fast = PerlinFbm2::new(black_box(99), black_box(params));
        let mut grid = vec![f64::NAN; xs.len() * zs.len()];
        for kernel in Kernel::available() {
            fast.fill_grid_with(kernel, &xs, &zs, &mut grid);
            for (j, v) in grid.iter().enumerate() {
                let (x, z) = (xs[j % xs.len()], zs[j / xs.len()]);
                assert_eq!(v.to_bits(), reference.get([x, z]).to_bits(), "fill_grid {kernel:?} at ({x}, {z})");
            }
        }
    }

    #[test]
    fn vector_kernels_equal_the_portable_kernel() {
        // The same voxels with and without AVX2 / AVX-512: each kernel the CPU has against the
        // baseline build, on every point and parameter set.
        let pts = points();
        let xs: Vec<f64> = pts.iter().map(|p| p.0).collect();
        let zs: Vec<f64> = pts.iter().map(|p| p.1).collect();
        let kernels = Kernel::available();
        assert_eq!(kernels[0], Kernel::Portable);
        assert_eq!(PerlinFbm2::new(1, parameter_sets()[0]).kernel(), Kernel::detect());
        for params in parameter_sets() {
            let fast = PerlinFbm2::new(42, params);
            let mut portable = vec![0.0; pts.len()];
            fast.get_many_with(Kernel::Portable, &xs, &zs, &mut portable);
            for &kernel in &kernels[1..] {
                let mut vector = vec![0.0; pts.len()];
                fast.get_many_with(kernel, &xs, &zs, &mut vector);
                assert!(
                    vector.iter().zip(&portable).all(|(a, b)| a.to_bits() == b.to_bits()),
                    "{kernel:?}, {params:?}"
                );
            }
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
        for kernel in Kernel::available() {
            let mut many = vec![0.0; pts.len()];
            fast.get_many_with(kernel, &xs, &zs, &mut many);
            for (i, &(x, z)) in pts.iter().enumerate() {
                let e = reference.get([x, z]).to_bits();
                assert_eq!(fast.get(x, z).to_bits(), e, "({x}, {z})");
                assert_eq!(many[i].to_bits(), e, "{kernel:?} ({x}, {z})");
            }
        }
    }
}
