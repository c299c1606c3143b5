//! 3D fractal noise, 5 octaves (frequency 1/64, gain 0.5, lacunarity 2, seed 7), over the
//! voxels of one 32³ chunk (32,768 points), against the fastest fBm crates on the same points:
//! `simdnoise` 3.1 (simplex fBm in `f32`, SIMD chosen at run time, a whole grid per call, its
//! output allocated and scanned for its minimum and maximum) and `fastnoise-lite` 1.1 (`f32`,
//! Perlin or OpenSimplex2 fBm, one call per point). Theirs need not be deterministic across SIMD
//! paths; Strata's is: `PerlinFbm3` is bit for bit `noise`'s `Fbm<Perlin>` on every path.
//!
//! Three kinds of rows, named by prefix:
//! - per point (`*_point`): one call per point, any points; Strata's `PerlinFbm3::get` and
//!   `noise`'s `Fbm<Perlin>` (what `noise::fractal::perlin_fbm` builds) against fastnoise-lite.
//! - as a batch (`*_batch`): Strata's `PerlinFbm3::get_many` (the per-point AVX2 kernel, any
//!   points) on the same points, in one call.
//! - on the grid (`*_grid`): the same 32³ points as one separable grid: Strata's
//!   `PerlinFbm3::fill_grid` (the detected kernel, and the portable one) against simdnoise's
//!   grid call (its only API).
//! - on the lattice (`*_lattice`): what the generator does with 3D noise (cave tunnels,
//!   `gen3d/tunnels.rs`): the fBm at the 9³ points of a lattice every 4 voxels, then trilinear
//!   interpolation (in `f32`) to the 32³ voxels; the same interpolation code after each side's
//!   lattice. Not the same values as the per-voxel noise: a smoother field, the generator's
//!   choice. `strata_fbm3_lattice` calls `fill_grid`, which runs such a lattice (its rows cross
//!   a unit cube every few points at every octave) through its lattice kernel (axis terms per
//!   grid line, y per plane, hashes per plane position; the same bits);
//!   `strata_fbm3_batch_lattice` calls `get_many` on the lattice's points directly.
//!
//! Each iteration makes all 32,768 values; divide the times by 32,768 for the cost per point
//! (`cargo xtask bench` does).
//!
//! Run: `cargo bench -p strata-core --bench noise3d`.

use noise::{Fbm, MultiFractal, NoiseFn, Perlin};
use std::hint::black_box;
use strata_core::noise::fast_fbm::Kernel;
use strata_core::noise::fast_fbm3::PerlinFbm3;
use strata_core::noise::fractal::FractalParams;

const SIDE: usize = 32;
/// Lattice spacing in voxels, and lattice points per side (both ends included).
const STEP: usize = 4;
const LATTICE: usize = SIDE / STEP + 1;
const SEED: u32 = 7;
const PARAMS: FractalParams = FractalParams { octaves: 5, frequency: 1.0 / 64.0, persistence: 0.5, lacunarity: 2.0 };
/// The chunk's first voxel (its centre: `+ 0.5`).
const ORIGIN: [f64; 3] = [1000.0, -40.0, -3000.0];

fn main() {
    divan::main();
}

/// Voxel centres along axis `a`.
fn voxels(a: usize) -> Vec<f64> {
    (0..SIDE).map(|i| ORIGIN[a] + i as f64 + 0.5).collect()
}

/// Lattice points along axis `a` (every `STEP` voxels from the chunk's first voxel centre).
fn lattice(a: usize) -> Vec<f64> {
    (0..LATTICE).map(|i| ORIGIN[a] + (i * STEP) as f64 + 0.5).collect()
}

/// The points of the grid `xs × ys × zs` in the grid's order (x fastest, then z, then y).
fn grid_points(xs: &[f64], ys: &[f64], zs: &[f64]) -> Vec<[f64; 3]> {
    let mut points = Vec::with_capacity(xs.len() * ys.len() * zs.len());
    for &y in ys {
        for &z in zs {
            points.extend(xs.iter().map(|&x| [x, y, z]));
        }
    }
    points
}

/// Calls `f` at every voxel centre (x fastest, then z, then y) and sums the values.
fn per_point(f: impl Fn(f64, f64, f64) -> f64) -> f64 {
    let (xs, ys, zs) = (voxels(0), voxels(1), voxels(2));
    let mut acc = 0.0;
    for &y in &ys {
        for &z in &zs {
            for &x in &xs {
                acc += f(black_box(x), y, z);
            }
        }
    }
    acc
}

/// Trilinear interpolation of a `LATTICE³` lattice (x fastest, then z, then y) to the `SIDE³`
/// voxels (same order), in `f32` as the tunnel field stores its values: per row of voxels, the
/// lattice row between its four lattice rows, then each lattice cell's `STEP` voxels.
fn trilinear(lattice: &[f32], out: &mut [f32]) {
    const FRACTION: [f32; STEP] = [0.0, 0.25, 0.5, 0.75];
    let lattice_row = |j: usize, k: usize| &lattice[LATTICE * (k + LATTICE * j)..][..LATTICE];
    let mut row = [0.0f32; LATTICE];
    for (y, plane) in out.chunks_exact_mut(SIDE * SIDE).enumerate() {
        let (j, fy) = (y / STEP, FRACTION[y % STEP]);
        for (z, out_row) in plane.chunks_exact_mut(SIDE).enumerate() {
            let (k, fz) = (z / STEP, FRACTION[z % STEP]);
            let (a, b, c, d) =
                (lattice_row(j, k), lattice_row(j, k + 1), lattice_row(j + 1, k), lattice_row(j + 1, k + 1));
            for i in 0..LATTICE {
                let lo = a[i] + (b[i] - a[i]) * fz;
                let hi = c[i] + (d[i] - c[i]) * fz;
                row[i] = lo + (hi - lo) * fy;
            }
            for (i, cell) in out_row.chunks_exact_mut(STEP).enumerate() {
                let (lo, step) = (row[i], row[i + 1] - row[i]);
                for (o, f) in cell.iter_mut().zip(FRACTION) {
                    *o = lo + step * f;
                }
            }
        }
    }
}

fn fastnoise_lite(noise: fastnoise_lite::NoiseType) -> fastnoise_lite::FastNoiseLite {
    use fastnoise_lite::{FastNoiseLite, FractalType};
    let mut n = FastNoiseLite::with_seed(SEED as i32);
    n.set_noise_type(Some(noise));
    n.set_fractal_type(Some(FractalType::FBm));
    n.set_fractal_octaves(Some(PARAMS.octaves as i32));
    n.set_fractal_gain(Some(PARAMS.persistence as f32));
    n.set_fractal_lacunarity(Some(PARAMS.lacunarity as f32));
    n.set_frequency(Some(PARAMS.frequency as f32));
    n
}

/// `simdnoise`'s fBm on a grid of `side³` points from `offset`, `step` voxels apart.
fn simdnoise_grid(side: usize, step: f32) -> Vec<f32> {
    let o = ORIGIN.map(|v| (v as f32 + 0.5) / step);
    let mut settings = simdnoise::NoiseBuilder::fbm_3d_offset(black_box(o[0]), side, o[1], side, o[2], side);
    settings
        .with_freq(PARAMS.frequency as f32 * step)
        .with_octaves(PARAMS.octaves as u8)
        .with_gain(PARAMS.persistence as f32)
        .with_lacunarity(PARAMS.lacunarity as f32)
        .with_seed(SEED as i32);
    settings.generate().0
}

/// Baseline: `noise::Fbm<Perlin>` in 3D, one `get` per point (what
/// `noise::fractal::perlin_fbm` builds; `PerlinFbm3` equals it bit for bit).
#[divan::bench(sample_count = 20)]
fn noise_crate_fbm_perlin_point(bencher: divan::Bencher) {
    let n = Fbm::<Perlin>::new(SEED)
        .set_octaves(PARAMS.octaves as usize)
        .set_frequency(PARAMS.frequency)
        .set_persistence(PARAMS.persistence)
        .set_lacunarity(PARAMS.lacunarity);
    bencher.bench_local(|| black_box(per_point(|x, y, z| n.get([x, y, z]))));
}

/// Strata's `PerlinFbm3::get`, one scalar call per point.
#[divan::bench(sample_count = 20)]
fn strata_fbm3_point(bencher: divan::Bencher) {
    let n = PerlinFbm3::new(SEED, PARAMS);
    bencher.bench_local(|| black_box(per_point(|x, y, z| n.get(x, y, z))));
}

/// Peer: `fastnoise-lite` 1.1 Perlin fBm, one call per point.
#[divan::bench(sample_count = 20)]
fn peer_fastnoise_lite_perlin_point(bencher: divan::Bencher) {
    let n = fastnoise_lite(fastnoise_lite::NoiseType::Perlin);
    bencher.bench_local(|| black_box(per_point(|x, y, z| n.get_noise_3d(x as f32, y as f32, z as f32) as f64)));
}

/// Peer: `fastnoise-lite` 1.1 OpenSimplex2 fBm, one call per point.
#[divan::bench(sample_count = 20)]
fn peer_fastnoise_lite_opensimplex2_point(bencher: divan::Bencher) {
    let n = fastnoise_lite(fastnoise_lite::NoiseType::OpenSimplex2);
    bencher.bench_local(|| black_box(per_point(|x, y, z| n.get_noise_3d(x as f32, y as f32, z as f32) as f64)));
}

/// Strata's `PerlinFbm3::fill_grid` over the chunk's voxels (the detected kernel).
#[divan::bench]
fn strata_fbm3_grid(bencher: divan::Bencher) {
    let n = PerlinFbm3::new(SEED, PARAMS);
    let (xs, ys, zs) = (voxels(0), voxels(1), voxels(2));
    let mut out = vec![0.0; SIDE * SIDE * SIDE];
    bencher.bench_local(|| {
        n.fill_grid(black_box(&xs), &ys, &zs, &mut out);
        black_box(&out);
    });
}

/// [`strata_fbm3_grid`] on the portable kernel (plain Rust for the baseline x86_64 target).
#[divan::bench]
fn strata_fbm3_grid_portable(bencher: divan::Bencher) {
    let n = PerlinFbm3::new(SEED, PARAMS);
    let (xs, ys, zs) = (voxels(0), voxels(1), voxels(2));
    let mut out = vec![0.0; SIDE * SIDE * SIDE];
    bencher.bench_local(|| {
        n.fill_grid_with(Kernel::Portable, black_box(&xs), &ys, &zs, &mut out);
        black_box(&out);
    });
}

/// Strata's `PerlinFbm3::get_many` (the per-point batch, any points) on the chunk's voxels.
#[divan::bench]
fn strata_fbm3_batch(bencher: divan::Bencher) {
    let n = PerlinFbm3::new(SEED, PARAMS);
    let points = grid_points(&voxels(0), &voxels(1), &voxels(2));
    let mut out = vec![0.0; points.len()];
    bencher.bench_local(|| {
        n.get_many(black_box(&points), &mut out);
        black_box(&out);
    });
}

/// Strata's `PerlinFbm3::fill_grid_f32` over the chunk's voxels: the unit cubes and distances in
/// `f64`, gradients and interpolation in `f32` (eight lanes), deterministic across kernels but
/// not `noise`'s bits (within 1e-5 of them).
#[divan::bench]
fn strata_fbm3_f32_grid(bencher: divan::Bencher) {
    let n = PerlinFbm3::new(SEED, PARAMS);
    let (xs, ys, zs) = (voxels(0), voxels(1), voxels(2));
    let mut out = vec![0.0f32; SIDE * SIDE * SIDE];
    bencher.bench_local(|| {
        n.fill_grid_f32(black_box(&xs), &ys, &zs, &mut out);
        black_box(&out);
    });
}

/// [`strata_fbm3_f32_grid`] on the portable kernel.
#[divan::bench]
fn strata_fbm3_f32_grid_portable(bencher: divan::Bencher) {
    let n = PerlinFbm3::new(SEED, PARAMS);
    let (xs, ys, zs) = (voxels(0), voxels(1), voxels(2));
    let mut out = vec![0.0f32; SIDE * SIDE * SIDE];
    bencher.bench_local(|| {
        n.fill_grid_f32_with(Kernel::Portable, black_box(&xs), &ys, &zs, &mut out);
        black_box(&out);
    });
}

/// Peer: `simdnoise` 3.1 fBm over the same 32³ points in one call.
#[divan::bench]
fn peer_simdnoise_grid(bencher: divan::Bencher) {
    bencher.bench_local(|| black_box(simdnoise_grid(SIDE, 1.0)));
}

/// Strata on the generator's lattice: `fill_grid` at the 9³ lattice points, then trilinear.
#[divan::bench]
fn strata_fbm3_lattice(bencher: divan::Bencher) {
    let n = PerlinFbm3::new(SEED, PARAMS);
    let (xs, ys, zs) = (lattice(0), lattice(1), lattice(2));
    let (mut values, mut points, mut out) =
        (vec![0.0; LATTICE.pow(3)], vec![0.0f32; LATTICE.pow(3)], vec![0.0f32; SIDE.pow(3)]);
    bencher.bench_local(|| {
        n.fill_grid(black_box(&xs), &ys, &zs, &mut values);
        points.iter_mut().zip(&values).for_each(|(p, v)| *p = *v as f32);
        trilinear(&points, &mut out);
        black_box(&out);
    });
}

/// Strata on the lattice with the per-point batch: `get_many` at the 9³ lattice points (every
/// octave one point at a time), then the same trilinear.
#[divan::bench]
fn strata_fbm3_batch_lattice(bencher: divan::Bencher) {
    let n = PerlinFbm3::new(SEED, PARAMS);
    let points = grid_points(&lattice(0), &lattice(1), &lattice(2));
    let (mut values, mut lattice_values, mut out) =
        (vec![0.0; LATTICE.pow(3)], vec![0.0f32; LATTICE.pow(3)], vec![0.0f32; SIDE.pow(3)]);
    bencher.bench_local(|| {
        n.get_many(black_box(&points), &mut values);
        lattice_values.iter_mut().zip(&values).for_each(|(p, v)| *p = *v as f32);
        trilinear(&lattice_values, &mut out);
        black_box(&out);
    });
}

/// [`strata_fbm3_lattice`] with `fill_grid_f32`.
#[divan::bench]
fn strata_fbm3_f32_lattice(bencher: divan::Bencher) {
    let n = PerlinFbm3::new(SEED, PARAMS);
    let (xs, ys, zs) = (lattice(0), lattice(1), lattice(2));
    let (mut points, mut out) = (vec![0.0f32; LATTICE.pow(3)], vec![0.0f32; SIDE.pow(3)]);
    bencher.bench_local(|| {
        n.fill_grid_f32(black_box(&xs), &ys, &zs, &mut points);
        trilinear(&points, &mut out);
        black_box(&out);
    });
}

/// Peer: `simdnoise` on the same lattice (frequency × 4, offsets ÷ 4), then the same trilinear.
#[divan::bench]
fn peer_simdnoise_lattice(bencher: divan::Bencher) {
    let mut out = vec![0.0f32; SIDE.pow(3)];
    bencher.bench_local(|| {
        let points = simdnoise_grid(LATTICE, STEP as f32);
        // simdnoise's order is x fastest, then y, then z: as a lattice, y and z swap names,
        // which costs the interpolation nothing.
        trilinear(&points, &mut out);
        black_box(&out);
    });
}

/// Peer: `fastnoise-lite` Perlin fBm at the lattice points, then the same trilinear.
#[divan::bench]
fn peer_fastnoise_lite_perlin_lattice(bencher: divan::Bencher) {
    let n = fastnoise_lite(fastnoise_lite::NoiseType::Perlin);
    let (xs, ys, zs) = (lattice(0), lattice(1), lattice(2));
    let (mut points, mut out) = (vec![0.0f32; LATTICE.pow(3)], vec![0.0f32; SIDE.pow(3)]);
    bencher.bench_local(|| {
        let mut at = 0;
        for &y in &ys {
            for &z in &zs {
                for &x in black_box(&xs) {
                    points[at] = n.get_noise_3d(x as f32, y as f32, z as f32);
                    at += 1;
                }
            }
        }
        trilinear(&points, &mut out);
        black_box(&out);
    });
}
