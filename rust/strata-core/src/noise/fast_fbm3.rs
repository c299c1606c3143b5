//! 3D Perlin fBm that returns exactly the same f64 bits as the `noise` crate's `Fbm<Perlin>` in
//! 3D ([`crate::noise::fractal::perlin_fbm`]`(seed, params).get([x, y, z])`): one point at a time
//! ([`PerlinFbm3::get`]), as a batch over any points ([`PerlinFbm3::get_many`]: on AVX2 four
//! points a register, `fast_fbm3/avx2.rs`), and on a whole separable grid
//! ([`PerlinFbm3::fill_grid`], the points `(xs[i], ys[j], zs[k])`, as a chunk's voxels or a
//! world-aligned lattice are) several points at a time.
//!
//! Like [`crate::noise::fast_fbm`], this is not an approximation: every point goes through the
//! same IEEE operations in the same order as `noise` 0.9 (`Fbm::get` → `perlin_3d`), so every
//! path gives the same bits on every CPU: the grid's portable kernel (one point at a time) and
//! its AVX2 kernel (four points in the lanes of one register, also taken on CPUs with AVX-512)
//! perform the same operations on each point, nothing is fused into an FMA, and the clamp is
//! written as the vector minimum and maximum compute it. One octave of `perlin_3d` at
//! `(x, y, z)`:
//!
//! ```text
//! corner c = trunc(v) − 1 if v ≤ 0 else trunc(v)        (per axis), d = v − c
//! h = P[P[P[cx + dx] ^ (cy + dy)] ^ (cz + dz)] & 15       (all indices & 255)
//! g = ±u ± v, u ∈ {x, y}, v ∈ {y, z} distances to the corner (dx, dy, dz), chosen by h
//! lerp(a, b, t) = b·t + a·(1 − t),  q(t) = t³(t(6t − 15) + 10) on clamp(t, 0, 1)
//! n = clamp(lerp(lerp(lerp(g000, g001, qz), lerp(g010, g011, qz), qy),
//!                lerp(lerp(g100, g101, qz), lerp(g110, g111, qz), qy), qx) · 2/√3, −1, 1)
//! ```
//!
//! and the fBm sums `n(p·f·Lᵒ) · Aᵒ` over octaves `o` (seed `seed + o`), times `1 / Σ Aᵒ`.
//!
//! What makes the grid fast, with the same operations per point: on a separable grid the
//! coordinates of octave `o` along one axis depend on that axis's index alone, so the unit-cube
//! corner, the distances and the quintic curve are computed once per grid line; the eight
//! gradient numbers once per unit cube; and along a row of constant `y` and `z` inside one unit
//! cube, every gradient is `(±x distance) + constant` or a constant (`±y ± z`), where the
//! constants are computed once per row and cube. Each point then costs eight adds, seven
//! interpolations, the scale and the clamp per octave, four points per AVX2 register. A gradient
//! whose `u` is not x is written as `−0.0 + constant`, which is the constant exactly (IEEE:
//! `a + −0 = a` for every `a`, zeros included).
//!
//! Each octave writes its terms (`signal · attenuation`) of a row to a row of its own; the rows
//! are then summed in octave order from zero, as `Fbm::get` sums them, so that no vector load
//! waits on the overlapping store of the run before it (as adding into one row would).
//!
//! Where a grid is sparse, sharing saves less than its setup costs: on AVX2 a grid whose rows
//! cross a unit cube every fewer than [`SHORT_RUNS_BELOW`] points at every octave (the cave
//! lattice every 4 voxels) runs the lattice kernel (`fast_fbm3/avx2.rs`: the axes' terms once
//! per grid line, y's once per plane, the corners' hash per plane position, then per point the
//! gradients and interpolations, four points a register; the per-point batch where a coordinate
//! is out of its range), and an octave with fewer than [`SPARSE_BELOW`] points per unit cube runs
//! the per-point kernel for that octave; the same bits either way.
//!
//! [`PerlinFbm3::fill_grid_f32`] is the same grid with the distances and curves rounded to `f32`
//! after `noise`'s `f64` corner search, and the gradients and interpolation in `f32`: eight
//! points per AVX2 register. Its reference is [`PerlinFbm3::get_f32`]; it is not `noise`'s bits.
//!
//! The one deviation from `noise`: it panics on NaN or on coordinates beyond ±2⁶³ after scaling;
//! this returns a value.
//!
//! May use: `base`, `preset` and the other `noise` modules.

use crate::noise::fast_fbm::Kernel;
use crate::noise::fractal::FractalParams;
use noise::permutationtable::{NoiseHasher, PermutationTable};

#[cfg(target_arch = "x86_64")]
mod avx2;

/// `perlin_3d`'s scale to about `[-1, 1]`, as `noise` writes it (2/√3).
const PERLIN_3D_SCALE: f64 = 1.154_700_538_379_251_5;

/// [`PERLIN_3D_SCALE`] rounded to `f32`.
const PERLIN_3D_SCALE_F32: f32 = PERLIN_3D_SCALE as f32;

/// `Fbm`'s most octaves (`Fbm::MAX_OCTAVES`).
const MAX_OCTAVES: usize = 32;

/// The sign bit of an f64.
const SIGN_BIT: u64 = 1 << 63;

/// Every coordinate of every octave stays below this magnitude where the per-point AVX2 kernel
/// runs, far inside the exact range (2⁵¹) of its corner's mantissa read.
const FAST_LIMIT: f64 = 1_125_899_906_842_624.0; // 2⁵⁰

/// A grid's octave runs the per-point kernel when it has fewer than this many points per unit
/// cube (on average): there the grid's sharing saves less than its per-cube and per-run setup
/// costs (measured on the cave lattice, docs/perf.md).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const SPARSE_BELOW: f64 = 2.0;

/// A whole grid runs the lattice kernel (`PerlinFbm3::lattice_avx2`) when at every octave its
/// rows cross a unit cube every fewer than this many points on average: the row kernel then
/// runs about one vector per run, and its per-run setup costs more than the lattice kernel (the
/// cave lattice, 9 points a row: measured in docs/perf.md).
const SHORT_RUNS_BELOW: f64 = 5.0;

/// The largest first-octave coordinate magnitude for which every octave's coordinates stay
/// below [`FAST_LIMIT`]: each octave multiplies a magnitude by `|lacunarity|` (rounding adds far
/// less than the 1 % margin). Zero (no group qualifies) for a lacunarity that is not finite.
fn fast_bound(octaves: usize, lacunarity: f64) -> f64 {
    let mut growth: f64 = 1.0;
    let mut power: f64 = 1.0;
    for _ in 1..octaves {
        power *= lacunarity.abs();
        growth = growth.max(power);
    }
    let factor = growth * 1.01;
    if factor.is_finite() { (FAST_LIMIT - 2.0) / factor } else { 0.0 }
}

/// Which distances `noise`'s gradient `h` (0..16) adds, as bits: 1 when `u` is y (else x), 2 when
/// `u` is negated, 4 when `v` is z (else y), 8 when `v` is negated; the gradient is `±u ± v`.
const GRADIENT_TERMS: [u8; 16] = [0, 2, 8, 10, 4, 6, 12, 14, 5, 7, 13, 15, 0, 2, 7, 15];

/// 3D Perlin fBm, bit for bit `perlin_fbm(seed, params).get([x, y, z])` (see the module doc).
#[derive(Clone)]
pub struct PerlinFbm3 {
    /// Per octave: `noise`'s permutation table of seed `seed + o`.
    tables: Vec<[u8; 256]>,
    /// Per octave: `pairs[z][b]`, the gradient terms of the two corners whose hash's last level
    /// reads `table[b ^ z]` and `table[b ^ (z + 1)]`, four bits each (`GRADIENT_TERMS` of the
    /// hash, the lower corner in the low bits): the per-point kernel's last lookup, two corners
    /// at a time.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pairs: Vec<Box<ByteTable>>,
    /// Per octave: `columns[x][y] = table[table[x] ^ y]`, the hash's first two levels (the
    /// per-point kernel's first lookup).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    columns: Vec<Box<ByteTable>>,
    /// Per octave: `persistence^(o + 1)`, by repeated multiplication as `Fbm::get` computes it.
    attenuations: Vec<f64>,
    /// The per-point AVX2 kernel's bound on first-octave coordinates ([`fast_bound`]).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    fast_bound: f64,
    frequency: f64,
    lacunarity: f64,
    /// `1 / Σ_{o=1..octaves} persistence^o`, as `Fbm::calc_scale_factor` computes it.
    scale_factor: f64,
    /// The grid kernel for this CPU (detected once, at construction).
    kernel: Kernel,
}

impl std::fmt::Debug for PerlinFbm3 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PerlinFbm3")
            .field("octaves", &self.tables.len())
            .field("frequency", &self.frequency)
            .field("lacunarity", &self.lacunarity)
            .field("kernel", &self.kernel)
            .finish()
    }
}

/// One axis of a grid at one octave: per grid index, `perlin_3d`'s corner, the distances to the
/// lower and the upper corner, the quintic curve and one minus it; and the runs of indices that
/// share a corner.
#[derive(Clone, Debug, Default)]
struct GridAxis {
    /// Scaled coordinates of the current octave (multiplied by the frequency, then once more by
    /// the lacunarity per octave, as `Fbm::get` scales the point).
    scaled: Vec<f64>,
    corner: Vec<isize>,
    near: Vec<f64>,
    far: Vec<f64>,
    curve: Vec<f64>,
    rest: Vec<f64>,
    /// The same terms for the `f32` grid ([`PerlinFbm3::fill_grid_f32`]): the distance to the
    /// lower corner and the curve rounded to `f32`, the others computed from them in `f32`.
    near32: Vec<f32>,
    far32: Vec<f32>,
    curve32: Vec<f32>,
    rest32: Vec<f32>,
    /// Per index: its run.
    run_of: Vec<u32>,
    /// Per run: its first index (and, last, the axis length).
    run_start: Vec<u32>,
}

impl GridAxis {
    fn new(coordinates: &[f64], frequency: f64) -> Self {
        Self { scaled: coordinates.iter().map(|v| v * frequency).collect(), ..Self::default() }
    }

    /// The terms and runs of the current octave, the terms followed by `pad` copies of the last
    /// (lanes past the end read them).
    fn derive(&mut self, pad: usize) {
        let n = self.scaled.len();
        for v in [&mut self.near, &mut self.far, &mut self.curve, &mut self.rest] {
            v.clear();
        }
        for v in [&mut self.near32, &mut self.far32, &mut self.curve32, &mut self.rest32] {
            v.clear();
        }
        self.corner.clear();
        self.run_of.clear();
        self.run_start.clear();
        for &v in &self.scaled {
            let corner = floor_to_isize(v);
            let near = v - corner as f64;
            let curve = quintic(near);
            if self.corner.last() != Some(&corner) {
                self.run_start.push(self.corner.len() as u32);
            }
            self.corner.push(corner);
            self.near.push(near);
            self.far.push(near - 1.0);
            self.curve.push(curve);
            self.rest.push(1.0 - curve);
            let [near32, far32, curve32, rest32] = terms_f32(near, curve);
            self.near32.push(near32);
            self.far32.push(far32);
            self.curve32.push(curve32);
            self.rest32.push(rest32);
            self.run_of.push(self.run_start.len() as u32 - 1);
        }
        self.run_start.push(n as u32);
        for v in [&mut self.near, &mut self.far, &mut self.curve, &mut self.rest] {
            let last = v.last().copied().unwrap_or(0.0);
            v.extend(std::iter::repeat_n(last, pad));
        }
        for v in [&mut self.near32, &mut self.far32, &mut self.curve32, &mut self.rest32] {
            let last = v.last().copied().unwrap_or(0.0);
            v.extend(std::iter::repeat_n(last, pad));
        }
    }

    fn runs(&self) -> usize {
        self.run_start.len() - 1
    }

    /// The next octave's coordinates.
    fn advance(&mut self, lacunarity: f64) {
        self.scaled.iter_mut().for_each(|v| *v *= lacunarity);
    }
}

/// Per unit cube and corner (index `4·dx + 2·dy + dz`), the gradient's terms as masks: `keep`
/// (all ones where `u` is x, else zero), `u_sign` (the sign bit where `u` is negated, or, where
/// `u` is not x, always: the x part is then `−0.0`), `v_is_z` (all ones where `v` is z) and
/// `v_sign`, and `y_sign` (the sign bit where `u` is y and negated).
#[derive(Clone, Copy, Debug, Default)]
struct CubeMasks {
    keep: [u64; 8],
    x_sign: [u64; 8],
    v_is_z: [u64; 8],
    v_sign: [u64; 8],
    y_sign: [u64; 8],
}

impl CubeMasks {
    /// The masks of the cube whose lowest corner is `(cx, cy, cz)`, written in place (a grid of
    /// sparse points has about one cube per point, and building each on the stack and moving it
    /// into its vector cost more than computing it).
    fn fill(&mut self, table: &[u8; 256], (cx, cy, cz): (isize, isize, isize)) {
        let m = self;
        for n in 0..8 {
            let terms = GRADIENT_TERMS[gradient_number(
                table,
                cx.wrapping_add((n >> 2) as isize),
                cy.wrapping_add(((n >> 1) & 1) as isize),
                cz.wrapping_add((n & 1) as isize),
            ) as usize];
            let all = |bit: u8| if terms & bit != 0 { u64::MAX } else { 0 };
            let u_is_x = terms & 1 == 0;
            m.keep[n] = if u_is_x { u64::MAX } else { 0 };
            m.x_sign[n] = if u_is_x { all(2) & SIGN_BIT } else { SIGN_BIT };
            m.y_sign[n] = if u_is_x { 0 } else { all(2) & SIGN_BIT };
            m.v_is_z[n] = all(4);
            m.v_sign[n] = all(8) & SIGN_BIT;
        }
    }
}

/// A byte per pair of bytes: [`PerlinFbm3::pairs`] and [`PerlinFbm3::columns`] (64 KiB).
type ByteTable = [[u8; 256]; 256];

/// The table `[i][j] = f(i, j)`.
fn byte_table(f: impl Fn(usize, usize) -> u8) -> Box<ByteTable> {
    let mut table: Box<ByteTable> =
        vec![[0u8; 256]; 256].into_boxed_slice().try_into().unwrap_or_else(|_| unreachable!("256 rows of 256"));
    for (i, row) in table.iter_mut().enumerate() {
        for (j, v) in row.iter_mut().enumerate() {
            *v = f(i, j);
        }
    }
    table
}

/// The corner pairs' terms of one octave's permutation table (see [`PerlinFbm3::pairs`]).
fn corner_pairs(table: &[u8; 256]) -> Box<ByteTable> {
    let terms = |i: usize| GRADIENT_TERMS[usize::from(table[i & 255] & 15)];
    byte_table(|z, b| terms(b ^ z) | terms(b ^ ((z + 1) & 255)) << 4)
}

/// `noise`'s hash of a corner, `& 15`. Only the low 8 bits of each coordinate count, so callers
/// add a corner's offset wrapping: a huge point's floor saturates at `isize::MAX`.
#[inline(always)]
fn gradient_number(table: &[u8; 256], x: isize, y: isize, z: isize) -> u8 {
    let byte = |v: isize| (v & 0xff) as usize;
    let a = table[byte(x)] as usize ^ byte(y);
    let b = table[a] as usize ^ byte(z);
    table[b] & 15
}

impl PerlinFbm3 {
    /// The fBm that [`crate::noise::fractal::perlin_fbm`]`(seed, params)` builds, in 3D.
    pub fn new(seed: u32, params: FractalParams) -> Self {
        let octave_count = params.octaves.clamp(1, MAX_OCTAVES as u32) as usize;
        let persistence = params.persistence;
        let tables: Vec<[u8; 256]> = (0..octave_count)
            .map(|o| {
                // `Fbm` seeds octave `o` with `seed + o` (wrapping, as in a release build of `noise`).
                let table = PermutationTable::new(seed.wrapping_add(o as u32));
                std::array::from_fn(|i| table.hash(&[i as isize]) as u8)
            })
            .collect();
        let pairs = tables.iter().map(corner_pairs).collect();
        let columns = tables.iter().map(|t| byte_table(|x, y| t[usize::from(t[x] ^ y as u8)])).collect();
        let mut attenuation = persistence;
        let attenuations = (0..octave_count)
            .map(|_| {
                let a = attenuation;
                attenuation *= persistence;
                a
            })
            .collect();
        let denominator = (1..=octave_count).fold(0.0, |acc, o| acc + persistence.powi(o as i32));
        Self {
            tables,
            pairs,
            columns,
            attenuations,
            fast_bound: fast_bound(octave_count, params.lacunarity),
            frequency: params.frequency,
            lacunarity: params.lacunarity,
            scale_factor: 1.0 / denominator,
            kernel: Kernel::detect(),
        }
    }

    /// The grid kernel in use.
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    /// The fBm at `(x, y, z)`, one point (`noise`'s computation, written out).
    pub fn get(&self, x: f64, y: f64, z: f64) -> f64 {
        let mut p = [x * self.frequency, y * self.frequency, z * self.frequency];
        let mut result = 0.0;
        for (table, &attenuation) in self.tables.iter().zip(&self.attenuations) {
            result += perlin_3d(table, p) * attenuation;
            p = p.map(|v| v * self.lacunarity);
        }
        result * self.scale_factor
    }

    /// `out[i] = get(points[i])` for any points, several at a time: four per AVX2 register on
    /// CPUs with AVX2 (see `fast_fbm3/avx2.rs`), else one `get` per point. The same bits on
    /// every path. The slices must have equal lengths.
    pub fn get_many(&self, points: &[[f64; 3]], out: &mut [f64]) {
        self.get_many_with(self.kernel, points, out);
    }

    /// [`PerlinFbm3::get_many`] with a given kernel (for tests and benchmarks); a kernel the CPU
    /// lacks or the thread's SIMD limit forbids runs the widest one below it that qualifies.
    #[doc(hidden)]
    pub fn get_many_with(&self, kernel: Kernel, points: &[[f64; 3]], out: &mut [f64]) {
        assert_eq!(points.len(), out.len(), "get_many: {} points, {} outputs", points.len(), out.len());
        match kernel.allowed() {
            // SAFETY: `allowed` keeps a kernel only when the running CPU has its features, and
            // both vector kernels need AVX2.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 | Kernel::Avx2 => unsafe { self.many_avx2(points, out) },
            _ => {
                for (o, p) in out.iter_mut().zip(points) {
                    *o = self.get(p[0], p[1], p[2]);
                }
            }
        }
    }

    /// `out[i + nx·(k + nz·j)] = get(xs[i], ys[j], zs[k])` for the grid of `xs`, `ys`, `zs` (x
    /// fastest, then z, then y: the order of a chunk's voxels and of the cave lattices), several
    /// points at a time. `out` must hold `xs.len() · ys.len() · zs.len()` values.
    pub fn fill_grid(&self, xs: &[f64], ys: &[f64], zs: &[f64], out: &mut [f64]) {
        self.fill_grid_with(self.kernel, xs, ys, zs, out);
    }

    /// [`PerlinFbm3::fill_grid`] with a given kernel (for tests and benchmarks); a kernel the CPU
    /// lacks or the thread's SIMD limit forbids runs the widest one below it that qualifies.
    #[doc(hidden)]
    pub fn fill_grid_with(&self, kernel: Kernel, xs: &[f64], ys: &[f64], zs: &[f64], out: &mut [f64]) {
        assert_eq!(
            out.len(),
            xs.len() * ys.len() * zs.len(),
            "fill_grid: {} × {} × {} points, {} outputs",
            xs.len(),
            ys.len(),
            zs.len(),
            out.len()
        );
        if out.is_empty() {
            return;
        }
        match kernel.allowed() {
            // SAFETY: `allowed` keeps a kernel only when the running CPU has its features, and
            // both vector kernels need AVX2.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 | Kernel::Avx2 => unsafe { self.grid_avx2(xs, ys, zs, out) },
            _ => self.grid::<f64, 1>(
                (xs, ys, zs),
                out,
                (&self.attenuations, self.scale_factor),
                octave_row_portable,
                |_, _, _| false,
            ),
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn grid_avx2(&self, xs: &[f64], ys: &[f64], zs: &[f64], out: &mut [f64]) {
        if self.short_runs(xs) {
            if self.lattice_avx2(xs, ys, zs, out) {
                return;
            }
            let mut points = Vec::with_capacity(out.len());
            push_grid_points(&mut points, xs, ys, zs);
            self.many_avx2(&points, out);
            return;
        }
        // SAFETY (of the call inside): this function only runs on CPUs with AVX2.
        let row = |a: &_, c: &_, j, k, att, row: &mut _| unsafe { octave_row_avx2(a, c, j, k, att, row) };
        let mut points = Vec::new();
        let sparse = |o: usize, axes: &[GridAxis; 3], terms: &mut Vec<f64>| {
            let [ax, ay, az] = axes;
            let count = ax.scaled.len() * ay.scaled.len() * az.scaled.len();
            let cubes = ax.runs() * ay.runs() * az.runs();
            let in_range = axes.iter().all(|a| a.scaled.iter().all(|v| v.abs() < FAST_LIMIT));
            if !(in_range && (count as f64) < SPARSE_BELOW * cubes as f64) {
                return false;
            }
            points.clear();
            push_grid_points(&mut points, &ax.scaled, &ay.scaled, &az.scaled);
            terms.resize(count, 0.0);
            self.octave_terms_avx2(o, &points, terms);
            true
        };
        self.grid::<f64, 4>((xs, ys, zs), out, (&self.attenuations, self.scale_factor), row, sparse);
    }

    /// Whether rows along `xs` cross a unit cube every fewer than [`SHORT_RUNS_BELOW`] points
    /// at every octave (the grid then runs the lattice kernel, see [`PerlinFbm3::grid_avx2`]).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    fn short_runs(&self, xs: &[f64]) -> bool {
        let mut scaled: Vec<f64> = xs.iter().map(|v| v * self.frequency).collect();
        for _ in 0..self.tables.len() {
            let mut runs = 0usize;
            let mut last = None;
            for &v in &scaled {
                let corner = Some(floor_to_isize(v));
                runs += usize::from(corner != last);
                last = corner;
            }
            if xs.len() as f64 >= SHORT_RUNS_BELOW * runs as f64 {
                return false;
            }
            scaled.iter_mut().for_each(|v| *v *= self.lacunarity);
        }
        true
    }

    /// The attenuations and the scale factor rounded to `f32`.
    fn factors_f32(&self) -> (Vec<f32>, f32) {
        (self.attenuations.iter().map(|&a| a as f32).collect(), self.scale_factor as f32)
    }

    /// The `f32` fBm at `(x, y, z)`, one point: what [`PerlinFbm3::fill_grid_f32`] computes
    /// there (its reference). Not `noise`'s value: within about 1e-6 of [`PerlinFbm3::get`].
    pub fn get_f32(&self, x: f64, y: f64, z: f64) -> f32 {
        let (attenuations, scale_factor) = self.factors_f32();
        let mut p = [x * self.frequency, y * self.frequency, z * self.frequency];
        let mut result = 0.0f32;
        for (table, &attenuation) in self.tables.iter().zip(&attenuations) {
            result += perlin_3d_f32(table, p) * attenuation;
            p = p.map(|v| v * self.lacunarity);
        }
        result * scale_factor
    }

    /// [`PerlinFbm3::fill_grid`] with the gradients and interpolation in `f32` (eight points per
    /// AVX2 register instead of four): the same grid, the unit cubes and the distances to their
    /// corners found in `f64` as `noise` finds them (so the result does not lose precision far
    /// from the origin), then rounded to `f32`. Deterministic: every kernel returns the bits of
    /// [`PerlinFbm3::get_f32`] (tested), on every CPU. Used nowhere in the world today.
    pub fn fill_grid_f32(&self, xs: &[f64], ys: &[f64], zs: &[f64], out: &mut [f32]) {
        self.fill_grid_f32_with(self.kernel, xs, ys, zs, out);
    }

    /// [`PerlinFbm3::fill_grid_f32`] with a given kernel (see [`PerlinFbm3::fill_grid_with`]).
    #[doc(hidden)]
    pub fn fill_grid_f32_with(&self, kernel: Kernel, xs: &[f64], ys: &[f64], zs: &[f64], out: &mut [f32]) {
        assert_eq!(
            out.len(),
            xs.len() * ys.len() * zs.len(),
            "fill_grid_f32: {} × {} × {} points, {} outputs",
            xs.len(),
            ys.len(),
            zs.len(),
            out.len()
        );
        if out.is_empty() {
            return;
        }
        let (attenuations, scale_factor) = self.factors_f32();
        match kernel.allowed() {
            // SAFETY: `allowed` keeps a kernel only when the running CPU has its features, and
            // both vector kernels need AVX2.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 | Kernel::Avx2 => unsafe {
                self.grid_f32_avx2(xs, ys, zs, out, &attenuations, scale_factor)
            },
            _ => self.grid::<f32, 1>(
                (xs, ys, zs),
                out,
                (&attenuations, scale_factor),
                octave_row_portable_f32,
                |_, _, _| false,
            ),
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn grid_f32_avx2(&self, xs: &[f64], ys: &[f64], zs: &[f64], out: &mut [f32], attenuations: &[f32], scale: f32) {
        // SAFETY (of the call inside): this function only runs on CPUs with AVX2.
        let row = |a: &_, c: &_, j, k, att, row: &mut _| unsafe { octave_row_avx2_f32(a, c, j, k, att, row) };
        self.grid::<f32, 8>((xs, ys, zs), out, (attenuations, scale), row, |_, _, _| false);
    }

    /// The grid, row by row: each octave's terms of a row written by `octave_row`, which
    /// processes `N` points at a time (see the module doc), then summed. An octave for which
    /// `sparse(o, axes, terms)` returns true (it wrote the octave's terms at every point of the
    /// grid, in the grid's order, one point at a time) is not computed row by row.
    #[inline(always)]
    fn grid<T: Copy + Default + std::ops::Add<Output = T> + std::ops::Mul<Output = T>, const N: usize>(
        &self,
        (xs, ys, zs): (&[f64], &[f64], &[f64]),
        out: &mut [T],
        (attenuations, scale_factor): (&[T], T),
        octave_row: impl Fn(&[GridAxis; 3], &[CubeMasks], usize, usize, T, &mut [T]),
        mut sparse: impl FnMut(usize, &[GridAxis; 3], &mut Vec<T>) -> bool,
    ) {
        let (nx, nz) = (xs.len(), zs.len());
        let mut axes =
            [GridAxis::new(xs, self.frequency), GridAxis::new(ys, self.frequency), GridAxis::new(zs, self.frequency)];
        // Per octave: the three axes' terms and every unit cube's masks, `[(y run · z runs + z
        // run) · x runs + x run]`; or the terms of every point.
        let mut octaves: Vec<GridOctave<T>> = Vec::with_capacity(self.tables.len());
        for (o, table) in self.tables.iter().enumerate() {
            axes.iter_mut().for_each(|a| a.derive(N));
            let mut terms = Vec::new();
            if sparse(o, &axes, &mut terms) {
                octaves.push(GridOctave::Points(terms));
            } else {
                let [ax, ay, az] = &axes;
                let mut cubes = vec![CubeMasks::default(); ax.runs() * ay.runs() * az.runs()];
                let mut slots = cubes.iter_mut();
                for ry in 0..ay.runs() {
                    for rz in 0..az.runs() {
                        for rx in 0..ax.runs() {
                            let corner = (
                                ax.corner[ax.run_start[rx] as usize],
                                ay.corner[ay.run_start[ry] as usize],
                                az.corner[az.run_start[rz] as usize],
                            );
                            if let Some(m) = slots.next() {
                                m.fill(table, corner);
                            }
                        }
                    }
                }
                octaves.push(GridOctave::Rows(Box::new(axes.clone()), cubes));
            }
            axes.iter_mut().for_each(|a| a.advance(self.lacunarity));
        }
        // Per octave, the row's `signal · attenuation`, then summed in octave order from zero as
        // `Fbm::get` sums them (each octave writes its own row: no load waits on a store of
        // lanes that a neighbouring run wrote).
        let stride = nx + N;
        let mut terms = vec![T::default(); stride * octaves.len()];
        let mut sum = vec![T::default(); nx];
        for (j, plane) in out.chunks_exact_mut(nx * nz).enumerate() {
            for (k, out_row) in plane.chunks_exact_mut(nx).enumerate() {
                for ((octave, &attenuation), row) in
                    octaves.iter().zip(attenuations).zip(terms.chunks_exact_mut(stride))
                {
                    if let GridOctave::Rows(a, cubes) = octave {
                        octave_row(a, cubes, j, k, attenuation, row);
                    }
                }
                sum.fill(T::default());
                for (octave, row) in octaves.iter().zip(terms.chunks_exact(stride)) {
                    let row = match octave {
                        GridOctave::Rows(..) => &row[..nx],
                        GridOctave::Points(all) => &all[(j * nz + k) * nx..][..nx],
                    };
                    for (s, &t) in sum.iter_mut().zip(row) {
                        *s = *s + t;
                    }
                }
                for (o, &s) in out_row.iter_mut().zip(&sum) {
                    *o = s * scale_factor;
                }
            }
        }
    }
}

/// Appends the grid's points `(xs[i], ys[j], zs[k])` in the grid's order (x fastest, then z,
/// then y), for the per-point kernel.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
fn push_grid_points(points: &mut Vec<[f64; 3]>, xs: &[f64], ys: &[f64], zs: &[f64]) {
    for &y in ys {
        for &z in zs {
            points.extend(xs.iter().map(|&x| [x, y, z]));
        }
    }
}

/// One octave of a grid: its axes and unit cubes, computed row by row; or the terms of every
/// point, computed beforehand one point at a time.
enum GridOctave<T> {
    Rows(Box<[GridAxis; 3]>, Vec<CubeMasks>),
    Points(Vec<T>),
}

/// The y and z terms of row `(j, k)` at one octave, and which unit cubes it crosses.
struct RowTerms {
    /// The y and z distances of corner `n` (`4·dx + 2·dy + dz`), as bits.
    py: [u64; 8],
    pz: [u64; 8],
    /// y's curve and one minus it, the same for z.
    cy: f64,
    ry: f64,
    cz: f64,
    rz: f64,
    /// The index of the row's first unit cube in the octave's table.
    first_cube: usize,
}

impl RowTerms {
    #[inline(always)]
    fn new([ax, ay, az]: &[GridAxis; 3], j: usize, k: usize) -> Self {
        let (y0, y1, z0, z1) = (ay.near[j], ay.far[j], az.near[k], az.far[k]);
        Self {
            py: std::array::from_fn(|n| if n & 2 != 0 { y1 } else { y0 }.to_bits()),
            pz: std::array::from_fn(|n| if n & 1 != 0 { z1 } else { z0 }.to_bits()),
            cy: ay.curve[j],
            ry: ay.rest[j],
            cz: az.curve[k],
            rz: az.rest[k],
            first_cube: (ay.run_of[j] as usize * az.runs() + az.run_of[k] as usize) * ax.runs(),
        }
    }

    /// Per corner, the constant part of the gradient along the row inside cube `m`: `±v` where
    /// `u` is x, the whole `±y ± z` where it is not; as bits.
    #[inline(always)]
    fn constants(&self, m: &CubeMasks) -> [u64; 8] {
        std::array::from_fn(|n| {
            let v = f64::from_bits((self.py[n] & !m.v_is_z[n] | self.pz[n] & m.v_is_z[n]) ^ m.v_sign[n]);
            let u = f64::from_bits(self.py[n] ^ m.y_sign[n]) + v;
            v.to_bits() & m.keep[n] | u.to_bits() & !m.keep[n]
        })
    }
}

/// `_mm256_min_pd` / `_mm256_max_pd` on one lane: the second operand unless the first is
/// strictly smaller (larger), so NaN and equal values give the second, as the vector
/// instructions do. For a number, `max(min(v, 1), −1)` is `v.clamp(−1, 1)`.
#[inline(always)]
fn min_lane(a: f64, b: f64) -> f64 {
    if a < b { a } else { b }
}

#[inline(always)]
fn max_lane(a: f64, b: f64) -> f64 {
    if a > b { a } else { b }
}

/// One octave's terms (`signal · attenuation`) of row `(j, k)` (constant y and z) written to
/// `row`, one point at a time: the operations of [`octave_row_avx2`], lane by lane.
fn octave_row_portable(
    axes: &[GridAxis; 3],
    cubes: &[CubeMasks],
    j: usize,
    k: usize,
    attenuation: f64,
    row: &mut [f64],
) {
    let ax = &axes[0];
    let t = RowTerms::new(axes, j, k);
    for (r, m) in cubes[t.first_cube..t.first_cube + ax.runs()].iter().enumerate() {
        let c = t.constants(m);
        let (start, end) = (ax.run_start[r] as usize, ax.run_start[r + 1] as usize);
        for (i, term) in (start..end).zip(&mut row[start..end]) {
            let g = |n: usize| {
                let x = if n & 4 != 0 { ax.far[i] } else { ax.near[i] };
                f64::from_bits((x.to_bits() & m.keep[n]) ^ m.x_sign[n]) + f64::from_bits(c[n])
            };
            let lz = |n: usize| g(n + 1) * t.cz + g(n) * t.rz;
            let ly = |n: usize| lz(n + 2) * t.cy + lz(n) * t.ry;
            let signal = max_lane(min_lane((ly(4) * ax.curve[i] + ly(0) * ax.rest[i]) * PERLIN_3D_SCALE, 1.0), -1.0);
            *term = signal * attenuation;
        }
    }
}

/// [`octave_row_portable`] four points at a time with AVX2: the same operations on each lane.
/// The x axis's arrays and `row` hold at least 4 values past the row's end, so that every group
/// of lanes loads and stores whole vectors; runs are written in order, so what lanes past a run
/// write is overwritten by the next run, or lies past the row's end.
///
/// # Safety
///
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn octave_row_avx2(
    axes: &[GridAxis; 3],
    cubes: &[CubeMasks],
    j: usize,
    k: usize,
    attenuation: f64,
    row: &mut [f64],
) {
    use std::arch::x86_64::*;
    let ax = &axes[0];
    let t = RowTerms::new(axes, j, k);
    let (cz, rz, cy, ry) = (_mm256_set1_pd(t.cz), _mm256_set1_pd(t.rz), _mm256_set1_pd(t.cy), _mm256_set1_pd(t.ry));
    let (scale, one, minus_one, att) =
        (_mm256_set1_pd(PERLIN_3D_SCALE), _mm256_set1_pd(1.0), _mm256_set1_pd(-1.0), _mm256_set1_pd(attenuation));
    let n_len = ax.near.len().min(ax.far.len()).min(ax.curve.len()).min(ax.rest.len()).min(row.len());
    let bits = |v: &[u64; 8], half: usize| {
        let at = |l: usize| v[4 * half + l] as i64;
        _mm256_castsi256_pd(_mm256_setr_epi64x(at(0), at(1), at(2), at(3)))
    };
    let (py, pz) = ([bits(&t.py, 0), bits(&t.py, 1)], [bits(&t.pz, 0), bits(&t.pz, 1)]);
    for (r, m) in cubes[t.first_cube..t.first_cube + ax.runs()].iter().enumerate() {
        // `RowTerms::constants`, four corners at a time.
        let mut c = [0u64; 8];
        for half in 0..2 {
            let v_is_z = bits(&m.v_is_z, half);
            let v = _mm256_xor_pd(
                _mm256_or_pd(_mm256_andnot_pd(v_is_z, py[half]), _mm256_and_pd(v_is_z, pz[half])),
                bits(&m.v_sign, half),
            );
            let u = _mm256_add_pd(_mm256_xor_pd(py[half], bits(&m.y_sign, half)), v);
            let keep = bits(&m.keep, half);
            let both = _mm256_or_pd(_mm256_and_pd(keep, v), _mm256_andnot_pd(keep, u));
            // SAFETY: `c` holds 8 values; `4 * half + 4 <= 8`.
            unsafe { _mm256_storeu_pd(c[4 * half..].as_mut_ptr().cast(), both) };
        }
        let broadcast = |v: u64| _mm256_castsi256_pd(_mm256_set1_epi64x(v as i64));
        let keep: [__m256d; 8] = std::array::from_fn(|n| broadcast(m.keep[n]));
        let x_sign: [__m256d; 8] = std::array::from_fn(|n| broadcast(m.x_sign[n]));
        let constant: [__m256d; 8] = std::array::from_fn(|n| broadcast(c[n]));
        let (start, end) = (ax.run_start[r] as usize, ax.run_start[r + 1] as usize);
        let mut i = start;
        debug_assert!(end + 3 <= n_len, "the x axis and the row are padded by at least 3 values");
        while i < end && i + 4 <= n_len {
            // SAFETY: `i + 4 <= n_len`, the shortest of the arrays read and written.
            let load = |v: &[f64]| unsafe { _mm256_loadu_pd(v.as_ptr().add(i)) };
            let (x0, x1, cx, rx) = (load(&ax.near), load(&ax.far), load(&ax.curve), load(&ax.rest));
            let g = |n: usize| {
                let x = if n & 4 != 0 { x1 } else { x0 };
                _mm256_add_pd(_mm256_xor_pd(_mm256_and_pd(x, keep[n]), x_sign[n]), constant[n])
            };
            let lz = |n: usize| _mm256_add_pd(_mm256_mul_pd(g(n + 1), cz), _mm256_mul_pd(g(n), rz));
            let ly = |n: usize| _mm256_add_pd(_mm256_mul_pd(lz(n + 2), cy), _mm256_mul_pd(lz(n), ry));
            let v = _mm256_mul_pd(_mm256_add_pd(_mm256_mul_pd(ly(4), cx), _mm256_mul_pd(ly(0), rx)), scale);
            let signal = _mm256_max_pd(_mm256_min_pd(v, one), minus_one);
            // Lanes past the run are written too; the next run (or nobody) overwrites them.
            // SAFETY: as for `load`.
            unsafe { _mm256_storeu_pd(row.as_mut_ptr().add(i), _mm256_mul_pd(signal, att)) };
            i += 4;
        }
    }
}

/// [`RowTerms`] in `f32`: masks are the high halves of the `f64` masks (all ones, zero, or the
/// sign bit, which is bit 63 of an `f64` and bit 31 of an `f32`).
struct RowTerms32 {
    py: [u32; 8],
    pz: [u32; 8],
    cy: f32,
    ry: f32,
    cz: f32,
    rz: f32,
    first_cube: usize,
}

/// The high half of a 64-bit mask (see [`RowTerms32`]).
#[inline(always)]
fn half(m: u64) -> u32 {
    (m >> 32) as u32
}

impl RowTerms32 {
    #[inline(always)]
    fn new([ax, ay, az]: &[GridAxis; 3], j: usize, k: usize) -> Self {
        let (y0, y1, z0, z1) = (ay.near32[j], ay.far32[j], az.near32[k], az.far32[k]);
        Self {
            py: std::array::from_fn(|n| if n & 2 != 0 { y1 } else { y0 }.to_bits()),
            pz: std::array::from_fn(|n| if n & 1 != 0 { z1 } else { z0 }.to_bits()),
            cy: ay.curve32[j],
            ry: ay.rest32[j],
            cz: az.curve32[k],
            rz: az.rest32[k],
            first_cube: (ay.run_of[j] as usize * az.runs() + az.run_of[k] as usize) * ax.runs(),
        }
    }

    /// [`RowTerms::constants`] in `f32`.
    #[inline(always)]
    fn constants(&self, m: &CubeMasks) -> [u32; 8] {
        std::array::from_fn(|n| {
            let v_is_z = half(m.v_is_z[n]);
            let v = f32::from_bits((self.py[n] & !v_is_z | self.pz[n] & v_is_z) ^ half(m.v_sign[n]));
            let u = f32::from_bits(self.py[n] ^ half(m.y_sign[n])) + v;
            v.to_bits() & half(m.keep[n]) | u.to_bits() & !half(m.keep[n])
        })
    }
}

/// [`octave_row_portable`] in `f32`.
fn octave_row_portable_f32(
    axes: &[GridAxis; 3],
    cubes: &[CubeMasks],
    j: usize,
    k: usize,
    attenuation: f32,
    row: &mut [f32],
) {
    let ax = &axes[0];
    let t = RowTerms32::new(axes, j, k);
    for (r, m) in cubes[t.first_cube..t.first_cube + ax.runs()].iter().enumerate() {
        let c = t.constants(m);
        let (start, end) = (ax.run_start[r] as usize, ax.run_start[r + 1] as usize);
        for (i, term) in (start..end).zip(&mut row[start..end]) {
            let g = |n: usize| {
                let x = if n & 4 != 0 { ax.far32[i] } else { ax.near32[i] };
                f32::from_bits((x.to_bits() & half(m.keep[n])) ^ half(m.x_sign[n])) + f32::from_bits(c[n])
            };
            let lz = |n: usize| g(n + 1) * t.cz + g(n) * t.rz;
            let ly = |n: usize| lz(n + 2) * t.cy + lz(n) * t.ry;
            let v = (ly(4) * ax.curve32[i] + ly(0) * ax.rest32[i]) * PERLIN_3D_SCALE_F32;
            let signal = if v < 1.0 { v } else { 1.0 };
            let signal = if signal > -1.0 { signal } else { -1.0 };
            *term = signal * attenuation;
        }
    }
}

/// [`octave_row_portable_f32`] eight points at a time with AVX2 (see [`octave_row_avx2`]).
///
/// # Safety
///
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn octave_row_avx2_f32(
    axes: &[GridAxis; 3],
    cubes: &[CubeMasks],
    j: usize,
    k: usize,
    attenuation: f32,
    row: &mut [f32],
) {
    use std::arch::x86_64::*;
    let ax = &axes[0];
    let t = RowTerms32::new(axes, j, k);
    let (cz, rz, cy, ry) = (_mm256_set1_ps(t.cz), _mm256_set1_ps(t.rz), _mm256_set1_ps(t.cy), _mm256_set1_ps(t.ry));
    let (scale, one, minus_one, att) =
        (_mm256_set1_ps(PERLIN_3D_SCALE_F32), _mm256_set1_ps(1.0), _mm256_set1_ps(-1.0), _mm256_set1_ps(attenuation));
    let n_len = ax.near32.len().min(ax.far32.len()).min(ax.curve32.len()).min(ax.rest32.len()).min(row.len());
    let vector = |v: [u32; 8]| {
        _mm256_castsi256_ps(_mm256_setr_epi32(
            v[0] as i32,
            v[1] as i32,
            v[2] as i32,
            v[3] as i32,
            v[4] as i32,
            v[5] as i32,
            v[6] as i32,
            v[7] as i32,
        ))
    };
    let (py, pz) = (vector(t.py), vector(t.pz));
    for (r, m) in cubes[t.first_cube..t.first_cube + ax.runs()].iter().enumerate() {
        // `RowTerms32::constants`, the eight corners at once.
        let masks = |v: &[u64; 8]| vector(v.map(half));
        let (v_is_z, keep) = (masks(&m.v_is_z), masks(&m.keep));
        let v = _mm256_xor_ps(_mm256_or_ps(_mm256_andnot_ps(v_is_z, py), _mm256_and_ps(v_is_z, pz)), masks(&m.v_sign));
        let u = _mm256_add_ps(_mm256_xor_ps(py, masks(&m.y_sign)), v);
        let mut c = [0f32; 8];
        // SAFETY: `c` holds 8 values.
        unsafe { _mm256_storeu_ps(c.as_mut_ptr(), _mm256_or_ps(_mm256_and_ps(keep, v), _mm256_andnot_ps(keep, u))) };
        let broadcast = |v: u32| _mm256_castsi256_ps(_mm256_set1_epi32(v as i32));
        let keep: [__m256; 8] = std::array::from_fn(|n| broadcast(half(m.keep[n])));
        let x_sign: [__m256; 8] = std::array::from_fn(|n| broadcast(half(m.x_sign[n])));
        let constant: [__m256; 8] = std::array::from_fn(|n| _mm256_set1_ps(c[n]));
        let (start, end) = (ax.run_start[r] as usize, ax.run_start[r + 1] as usize);
        let mut i = start;
        debug_assert!(end + 7 <= n_len, "the x axis and the row are padded by at least 7 values");
        while i < end && i + 8 <= n_len {
            // SAFETY: `i + 8 <= n_len`, the shortest of the arrays read and written.
            let load = |v: &[f32]| unsafe { _mm256_loadu_ps(v.as_ptr().add(i)) };
            let (x0, x1, cx, rx) = (load(&ax.near32), load(&ax.far32), load(&ax.curve32), load(&ax.rest32));
            let g = |n: usize| {
                let x = if n & 4 != 0 { x1 } else { x0 };
                _mm256_add_ps(_mm256_xor_ps(_mm256_and_ps(x, keep[n]), x_sign[n]), constant[n])
            };
            let lz = |n: usize| _mm256_add_ps(_mm256_mul_ps(g(n + 1), cz), _mm256_mul_ps(g(n), rz));
            let ly = |n: usize| _mm256_add_ps(_mm256_mul_ps(lz(n + 2), cy), _mm256_mul_ps(lz(n), ry));
            let v = _mm256_mul_ps(_mm256_add_ps(_mm256_mul_ps(ly(4), cx), _mm256_mul_ps(ly(0), rx)), scale);
            let signal = _mm256_max_ps(_mm256_min_ps(v, one), minus_one);
            // Lanes past the run are written too; the next run (or nobody) overwrites them.
            // SAFETY: as for `load`.
            unsafe { _mm256_storeu_ps(row.as_mut_ptr().add(i), _mm256_mul_ps(signal, att)) };
            i += 8;
        }
    }
}

/// `perlin_3d` with the corner and the distances found in `f64`, the rest in `f32` (the
/// reference of [`PerlinFbm3::fill_grid_f32`], the same operations as its kernels).
fn perlin_3d_f32(table: &[u8; 256], p: [f64; 3]) -> f32 {
    let c = p.map(floor_to_isize);
    let terms: [[f32; 4]; 3] = std::array::from_fn(|a| {
        let near = p[a] - c[a] as f64;
        terms_f32(near, quintic(near))
    });
    let g = |dx: usize, dy: usize, dz: usize| {
        let (px, py, pz) = (terms[0][dx], terms[1][dy], terms[2][dz]);
        match gradient_number(
            table,
            c[0].wrapping_add(dx as isize),
            c[1].wrapping_add(dy as isize),
            c[2].wrapping_add(dz as isize),
        ) {
            0 | 12 => px + py,
            1 | 13 => -px + py,
            2 => px - py,
            3 => -px - py,
            4 => px + pz,
            5 => -px + pz,
            6 => px - pz,
            7 => -px - pz,
            8 => py + pz,
            9 | 14 => -py + pz,
            10 => py - pz,
            _ => -py - pz,
        }
    };
    let lerp = |a: f32, b: f32, axis: usize| b * terms[axis][2] + a * terms[axis][3];
    let v = lerp(
        lerp(lerp(g(0, 0, 0), g(0, 0, 1), 2), lerp(g(0, 1, 0), g(0, 1, 1), 2), 1),
        lerp(lerp(g(1, 0, 0), g(1, 0, 1), 2), lerp(g(1, 1, 0), g(1, 1, 1), 2), 1),
        0,
    ) * PERLIN_3D_SCALE_F32;
    let v = if v < 1.0 { v } else { 1.0 };
    if v > -1.0 { v } else { -1.0 }
}

/// The `f32` terms of one axis from the `f64` distance to the lower corner and its curve: both
/// rounded to `f32`, the distance to the upper corner and one minus the curve computed in `f32`.
#[inline(always)]
fn terms_f32(near: f64, curve: f64) -> [f32; 4] {
    let (near32, curve32) = (near as f32, curve as f32);
    [near32, near32 - 1.0, curve32, 1.0 - curve32]
}

/// `noise`'s `floor_to_isize`: truncation, one lower at and below zero (wrapping, as release
/// builds do, for a huge negative point whose truncation saturates at `isize::MIN`).
#[inline(always)]
fn floor_to_isize(v: f64) -> isize {
    if v <= 0.0 { (v as isize).wrapping_sub(1) } else { v as isize }
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

/// `noise::core::perlin::perlin_3d` at `p` with permutation table `table`, written out.
fn perlin_3d(table: &[u8; 256], p: [f64; 3]) -> f64 {
    let c = p.map(floor_to_isize);
    let d = [p[0] - c[0] as f64, p[1] - c[1] as f64, p[2] - c[2] as f64];
    let g = |dx: isize, dy: isize, dz: isize| {
        let (px, py, pz) = (d[0] - dx as f64, d[1] - dy as f64, d[2] - dz as f64);
        match gradient_number(table, c[0].wrapping_add(dx), c[1].wrapping_add(dy), c[2].wrapping_add(dz)) {
            0 | 12 => px + py,
            1 | 13 => -px + py,
            2 => px - py,
            3 => -px - py,
            4 => px + pz,
            5 => -px + pz,
            6 => px - pz,
            7 => -px - pz,
            8 => py + pz,
            9 | 14 => -py + pz,
            10 => py - pz,
            _ => -py - pz,
        }
    };
    let (g000, g100, g010, g110) = (g(0, 0, 0), g(1, 0, 0), g(0, 1, 0), g(1, 1, 0));
    let (g001, g101, g011, g111) = (g(0, 0, 1), g(1, 0, 1), g(0, 1, 1), g(1, 1, 1));
    let q = d.map(quintic);
    let result = linear(
        linear(linear(g000, g001, q[2]), linear(g010, g011, q[2]), q[1]),
        linear(linear(g100, g101, q[2]), linear(g110, g111, q[2]), q[1]),
        q[0],
    ) * PERLIN_3D_SCALE;
    result.clamp(-1.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::rng::mix64;
    use crate::noise::fractal::perlin_fbm;
    use noise::NoiseFn;

    fn parameter_sets() -> Vec<FractalParams> {
        vec![
            FractalParams { octaves: 5, frequency: 1.0 / 64.0, persistence: 0.5, lacunarity: 2.0 },
            FractalParams { octaves: 1, frequency: 1.0 / 96.0, persistence: 0.5, lacunarity: 2.0 },
            FractalParams { octaves: 7, frequency: 0.0371, persistence: 0.61, lacunarity: 2.137 },
            FractalParams { octaves: 3, frequency: 1.0, persistence: 0.45, lacunarity: 1.9 },
        ]
    }

    /// Axes: chunk-like runs across zero, a lattice every 4 voxels, random values at several
    /// scales, and integers and edges where the corner and the distances are at their limits.
    fn axes() -> Vec<Vec<f64>> {
        let mut h = 0x5eed_f00du64;
        let mut next = || {
            h = mix64(h.wrapping_add(0x9e37_79b9_7f4a_7c15));
            h
        };
        let mut axes: Vec<Vec<f64>> = vec![
            (-16..17).map(|i| i as f64).collect(),
            (-3..7).map(|i| (i * 4) as f64 + 1000.0).collect(),
            (0..13).map(|i| i as f64 + 0.5 - 3000.0).collect(),
            vec![-2.0, -1.0, -0.5, -0.0, 0.0, 1e-310, 0.5, 1.0 - 1e-16, 1.0, 2.0, 255.0, 256.0, 257.5, -256.0, 64.0],
        ];
        for scale in [1e-3, 0.7, 13.0, 900.0, 3e5] {
            axes.push((0..11).map(|_| (next() as i64 as f64 / i64::MAX as f64) * scale).collect());
        }
        axes
    }

    #[test]
    fn get_equals_the_noise_crate_bit_for_bit() {
        for seed in [0u32, 7, 0xdead_beef, u32::MAX - 64] {
            for params in parameter_sets() {
                let (ours, theirs) = (PerlinFbm3::new(seed, params), perlin_fbm(seed, params));
                for a in axes() {
                    for (n, &x) in a.iter().enumerate() {
                        let (y, z) = (a[(n * 7 + 3) % a.len()], -a[(n * 5 + 1) % a.len()] * 0.37);
                        let want = theirs.get([x, y, z]);
                        assert_eq!(
                            ours.get(x, y, z).to_bits(),
                            want.to_bits(),
                            "seed {seed}, {params:?} at {:?}",
                            (x, y, z)
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn every_grid_kernel_equals_the_noise_crate_bit_for_bit() {
        let axes = axes();
        for seed in [0u32, 7, 0xdead_beef] {
            for params in parameter_sets() {
                let theirs = perlin_fbm(seed, params);
                let ours = PerlinFbm3::new(seed, params);
                for (a, b, c) in [(0, 0, 0), (1, 2, 3), (3, 3, 3), (4, 5, 6), (7, 8, 2), (8, 0, 1)] {
                    let [xs, ys, zs] = [&axes[a], &axes[b], &axes[c]];
                    let mut want = Vec::new();
                    for &y in ys {
                        for &z in zs {
                            for &x in xs {
                                want.push(theirs.get([x, y, z]).to_bits());
                            }
                        }
                    }
                    for kernel in Kernel::available() {
                        let mut got = vec![0.0; want.len()];
                        ours.fill_grid_with(kernel, xs, ys, zs, &mut got);
                        let got: Vec<u64> = got.iter().map(|v| v.to_bits()).collect();
                        assert!(got == want, "seed {seed}, {params:?}, axes {:?}, kernel {kernel:?}", (a, b, c));
                    }
                }
            }
        }
    }

    #[test]
    fn every_f32_grid_kernel_equals_the_f32_reference_which_stays_near_noise() {
        let axes = axes();
        for seed in [0u32, 7, 0xdead_beef] {
            for params in parameter_sets() {
                let ours = PerlinFbm3::new(seed, params);
                for (a, b, c) in [(0, 0, 0), (1, 2, 3), (3, 3, 3), (4, 5, 6), (7, 8, 2), (8, 0, 1)] {
                    let [xs, ys, zs] = [&axes[a], &axes[b], &axes[c]];
                    let mut want = Vec::new();
                    for &y in ys {
                        for &z in zs {
                            for &x in xs {
                                let v = ours.get_f32(x, y, z);
                                let exact = ours.get(x, y, z);
                                assert!((v as f64 - exact).abs() < 1e-5, "{v} against {exact} at {:?}", (x, y, z));
                                want.push(v.to_bits());
                            }
                        }
                    }
                    for kernel in Kernel::available() {
                        let mut got = vec![0.0f32; want.len()];
                        ours.fill_grid_f32_with(kernel, xs, ys, zs, &mut got);
                        let got: Vec<u32> = got.iter().map(|v| v.to_bits()).collect();
                        assert!(got == want, "seed {seed}, {params:?}, axes {:?}, kernel {kernel:?}", (a, b, c));
                    }
                }
            }
        }
    }

    /// Points for the batch: the axes' values combined, random points at several scales (negative
    /// and positive, up to ±3·10⁵ before the frequency), integers and cube edges.
    fn batch_points() -> Vec<[f64; 3]> {
        let axes = axes();
        let mut points = Vec::new();
        for a in &axes {
            for (n, &x) in a.iter().enumerate() {
                points.push([x, a[(n * 7 + 3) % a.len()], -a[(n * 5 + 1) % a.len()] * 0.37]);
                points.push([-x, x, a[(n * 3 + 2) % a.len()]]);
            }
        }
        let mut h = 0x000b_a7c4_u64;
        let mut next = || {
            h = mix64(h.wrapping_add(0x9e37_79b9_7f4a_7c15));
            h as i64 as f64 / i64::MAX as f64
        };
        for scale in [1.0, 40.0, 1e3, 1e5, 3e5] {
            for _ in 0..200 {
                points.push([next() * scale, next() * scale, next() * scale]);
            }
        }
        points
    }

    #[test]
    fn get_many_equals_get_bit_for_bit_on_every_kernel() {
        let points = batch_points();
        for seed in [0u32, 7, 0xdead_beef, u32::MAX - 64] {
            for params in parameter_sets() {
                let ours = PerlinFbm3::new(seed, params);
                let want: Vec<u64> = points.iter().map(|p| ours.get(p[0], p[1], p[2]).to_bits()).collect();
                for kernel in Kernel::available() {
                    // Every length up to 19 (partial groups of four and eight), then all.
                    for len in (0..20).chain([points.len()]) {
                        let mut got = vec![f64::NAN; len];
                        ours.get_many_with(kernel, &points[..len], &mut got);
                        let got: Vec<u64> = got.iter().map(|v| v.to_bits()).collect();
                        assert!(got == want[..len], "seed {seed}, {params:?}, {kernel:?}, {len} points");
                    }
                }
            }
        }
    }

    #[test]
    fn get_many_equals_the_noise_crate() {
        let points = batch_points();
        let params = parameter_sets()[2];
        let (ours, theirs) = (PerlinFbm3::new(11, params), perlin_fbm(11, params));
        let mut got = vec![0.0; points.len()];
        ours.get_many(&points, &mut got);
        for (p, v) in points.iter().zip(&got) {
            assert_eq!(v.to_bits(), theirs.get(*p).to_bits(), "at {p:?}");
        }
    }

    /// Groups of eight in which one point is huge (beyond the kernel's range after the octaves'
    /// lacunarity), infinite or NaN run `get`; the other groups of the same call still take the
    /// kernel, and every value equals `get`'s (a NaN is a NaN whatever its bits).
    #[test]
    fn huge_infinite_and_nan_points_give_the_same_bits_on_every_path() {
        let ours = PerlinFbm3::new(3, FractalParams { octaves: 6, frequency: 0.02, persistence: 0.5, lacunarity: 2.0 });
        let odd = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 3e15, -7e16, 1e300, 2.0e14, -1e19];
        let mut points = Vec::new();
        for (i, v) in odd.iter().enumerate() {
            for j in 0..8 {
                let base = (i * 8 + j) as f64 * 1.7 - 40.0;
                points.push(std::array::from_fn(|a| if j == i % 8 && a == i % 3 { *v } else { base + a as f64 * 0.3 }));
            }
        }
        let bits = |v: f64| if v.is_nan() { f64::NAN.to_bits() } else { v.to_bits() };
        let want: Vec<u64> = points.iter().map(|p: &[f64; 3]| bits(ours.get(p[0], p[1], p[2]))).collect();
        for kernel in Kernel::available() {
            let mut got = vec![0.0; points.len()];
            ours.get_many_with(kernel, &points, &mut got);
            assert_eq!(got.iter().map(|v| bits(*v)).collect::<Vec<_>>(), want, "{kernel:?}");
        }
    }

    /// Grids whose rows cross a unit cube every few points at every octave (the cave lattice
    /// every 4 voxels, lattices of spacing above one unit cube) take the per-point kernel on
    /// AVX2, and a grid with long rows at its first octave and one point per unit cube at its
    /// last mixes the row kernel and the per-point kernel; every kernel gives `noise`'s bits.
    #[test]
    fn sparse_grids_equal_the_noise_crate_on_every_kernel() {
        let lattice =
            |origin: f64, step: f64, n: usize| -> Vec<f64> { (0..n).map(|i| origin + i as f64 * step).collect() };
        let chunk = FractalParams { octaves: 5, frequency: 1.0 / 64.0, persistence: 0.5, lacunarity: 2.0 };
        let coarse = FractalParams { octaves: 4, frequency: 0.9, persistence: 0.55, lacunarity: 2.3 };
        // Long rows at the first octave, one point per unit cube at the last.
        let steep = FractalParams { octaves: 3, frequency: 1.0, persistence: 0.5, lacunarity: 8.0 };
        for (seed, params, step, nx) in [
            (7u32, chunk, 4.0, 9),
            (7, chunk, 1.0, 9),
            (0xdead_beef, coarse, 1.37, 9),
            (1, coarse, 0.3, 9),
            (5, steep, 0.03, 40),
        ] {
            let (ours, theirs) = (PerlinFbm3::new(seed, params), perlin_fbm(seed, params));
            let (xs, ys, zs) = (lattice(1000.5, step, nx), lattice(-40.5, step, 7), lattice(-3000.5, step, 10));
            if step == 0.03 {
                assert!(!ours.short_runs(&xs), "the rows of the first octave are long");
            }
            let mut want = Vec::new();
            for &y in &ys {
                for &z in &zs {
                    for &x in &xs {
                        want.push(theirs.get([x, y, z]).to_bits());
                    }
                }
            }
            for kernel in Kernel::available() {
                let mut got = vec![0.0; want.len()];
                ours.fill_grid_with(kernel, &xs, &ys, &zs, &mut got);
                let got: Vec<u64> = got.iter().map(|v| v.to_bits()).collect();
                assert!(got == want, "seed {seed}, {params:?}, step {step}, {kernel:?}");
            }
        }
    }

    /// The lattice kernel (grids with short runs on AVX2) on planes of every size up to 6 × 5
    /// (partial vectors), one to three planes, axes that go down as well as up, negative and
    /// large coordinates; and grids with a coordinate beyond the kernel's range, which fall
    /// back to the per-point batch. Every kernel gives `get`'s bits. (Infinite and NaN
    /// coordinates: the AVX2 kernels only, as the portable grid kernel's clamp gives NaN's
    /// neighbours there, see `min_lane`.)
    #[test]
    fn lattices_of_every_shape_equal_get_on_every_kernel() {
        let params = FractalParams { octaves: 5, frequency: 1.0 / 64.0, persistence: 0.5, lacunarity: 2.0 };
        let ours = PerlinFbm3::new(9, params);
        let bits = |v: f64| if v.is_nan() { f64::NAN.to_bits() } else { v.to_bits() };
        let check = |xs: &[f64], ys: &[f64], zs: &[f64], kernels: &[Kernel]| {
            let mut want = Vec::new();
            for &y in ys {
                for &z in zs {
                    for &x in xs {
                        want.push(bits(ours.get(x, y, z)));
                    }
                }
            }
            for &kernel in kernels {
                let mut got = vec![0.0; want.len()];
                ours.fill_grid_with(kernel, xs, ys, zs, &mut got);
                let got: Vec<u64> = got.iter().map(|v| bits(*v)).collect();
                assert!(got == want, "{kernel:?}, axes {xs:?} {ys:?} {zs:?}");
            }
        };
        for nx in 1..7 {
            for nz in 1..6 {
                for ny in 1..4 {
                    let origin = (nx * 31 + nz * 7 + ny) as f64 * 97.3 - 900.0;
                    let xs: Vec<f64> = (0..nx).map(|i| origin + i as f64 * 64.0).collect();
                    let ys: Vec<f64> = (0..ny).map(|j| -origin * 3.0 - j as f64 * 17.0).collect();
                    let zs: Vec<f64> = (0..nz).map(|k| origin * 0.5 + [0.0, 40.0, -13.0, 5e4, 7.5][k]).collect();
                    assert!(ours.short_runs(&xs), "{xs:?}");
                    check(&xs, &ys, &zs, &Kernel::available());
                }
            }
        }
        let xs: Vec<f64> = (0..9).map(|i| i as f64 * 4.0 - 16.5).collect();
        let vector: Vec<Kernel> = Kernel::available().into_iter().filter(|k| *k != Kernel::Portable).collect();
        for (odd, kernels) in [
            (3e15, Kernel::available()),
            (-7e16, Kernel::available()),
            (1e300, Kernel::available()),
            (f64::INFINITY, vector.clone()),
            (f64::NAN, vector),
        ] {
            check(&xs, &[1.0, odd], &[2.0, 6.0, 10.0], &kernels);
            check(&xs, &[1.0], &[odd, 6.0], &kernels);
        }
    }

    #[test]
    fn grids_of_every_row_length_match_and_empty_grids_are_empty() {
        let params = parameter_sets()[0];
        let (ours, theirs) = (PerlinFbm3::new(3, params), perlin_fbm(3, params));
        for len in 1..19 {
            let xs: Vec<f64> = (0..len).map(|i| i as f64 * 7.3 - 40.0).collect();
            let (ys, zs) = ([5.5, -70.25], [1.0e4]);
            let mut got = vec![0.0; len * 2];
            let mut got32 = vec![0.0f32; len * 2];
            ours.fill_grid(&xs, &ys, &zs, &mut got);
            ours.fill_grid_f32(&xs, &ys, &zs, &mut got32);
            for (j, &y) in ys.iter().enumerate() {
                for (i, &x) in xs.iter().enumerate() {
                    assert_eq!(got[j * len + i].to_bits(), theirs.get([x, y, zs[0]]).to_bits(), "length {len}");
                    assert_eq!(got32[j * len + i].to_bits(), ours.get_f32(x, y, zs[0]).to_bits(), "length {len}");
                }
            }
        }
        ours.fill_grid(&[], &[1.0], &[2.0], &mut []);
        ours.fill_grid_f32(&[1.0], &[], &[2.0], &mut []);
    }
}
