//! 2D fractal noise, 5 octaves, per sample: the `noise` crate's `Fbm<Perlin>` (baseline) against
//! Strata's own: `noise::fractal::perlin_fbm` (built on the same crate), the bit-exact
//! `noise::fast_fbm::PerlinFbm2` (scalar, in rows and as a whole grid), and the whole height field
//! `Terrain::sample_grid` that the column pass calls; and the fastest fBm crates on the same
//! grid, octaves, frequency, gain and lacunarity: `simdnoise` 3.1 (simplex fBm in `f32`, SIMD
//! chosen at run time, a whole grid per call) and `fastnoise-lite` 1.1 (Perlin fBm in `f32`, one
//! call per sample). Theirs need not be deterministic across SIMD paths; Strata's must be.
//!
//! Each iteration samples a 32×32 grid (1,024 samples, one column of a chunk each); divide the
//! times by 1,024 for the cost per sample (`cargo xtask bench` does).
//!
//! Run: `cargo bench -p strata-core --bench noise2d`.

mod common;

use noise::{Fbm, MultiFractal, NoiseFn, Perlin};
use std::hint::black_box;
use std::sync::LazyLock;
use strata_core::gen3d::pipeline::Generator;
use strata_core::gen3d::terrain::TerrainSample;
use strata_core::noise::fast_fbm::{Kernel, PerlinFbm2};
use strata_core::noise::fractal::{FractalParams, perlin_fbm};

const SIDE: usize = 32;
const PARAMS: FractalParams = FractalParams { octaves: 5, frequency: 1.0 / 128.0, persistence: 0.5, lacunarity: 2.0 };

static GEN: LazyLock<Generator> = LazyLock::new(common::generator);

fn main() {
    divan::main();
}

fn grid(f: impl Fn(f64, f64) -> f64) -> f64 {
    let mut acc = 0.0;
    for k in 0..SIDE {
        for i in 0..SIDE {
            acc += f(i as f64 + 0.5 + 1000.0, k as f64 + 0.5 - 3000.0);
        }
    }
    acc
}

/// Baseline: `noise::Fbm<Perlin>`, 5 octaves, one `get` per sample.
#[divan::bench]
fn noise_crate_fbm_perlin(bencher: divan::Bencher) {
    let n =
        Fbm::<Perlin>::new(7).set_octaves(5).set_frequency(PARAMS.frequency).set_persistence(0.5).set_lacunarity(2.0);
    bencher.bench_local(|| black_box(grid(|x, z| n.get([black_box(x), z]))));
}

/// `noise::fractal::perlin_fbm` (the `noise` crate configured from a preset's parameters; the
/// biome climate and the 2D side view use it; the terrain uses [`PerlinFbm2`], equal bit for bit).
#[divan::bench]
fn strata_perlin_fbm(bencher: divan::Bencher) {
    let n = perlin_fbm(7, PARAMS);
    bencher.bench_local(|| black_box(grid(|x, z| n.get([black_box(x), z]))));
}

/// Strata's bit-exact fBm ([`PerlinFbm2`]), one scalar `get` per sample.
#[divan::bench]
fn strata_fast_fbm(bencher: divan::Bencher) {
    let n = PerlinFbm2::new(7, PARAMS);
    bencher.bench_local(|| black_box(grid(|x, z| n.get(black_box(x), z))));
}

/// [`PerlinFbm2`] in rows (`fill_row`: the AVX-512, AVX2 or portable kernel, whichever the CPU
/// has), as the terrain lattice samples it.
#[divan::bench]
fn strata_fast_fbm_batch(bencher: divan::Bencher) {
    let n = PerlinFbm2::new(7, PARAMS);
    let xs: Vec<f64> = (0..SIDE).map(|i| i as f64 + 0.5 + 1000.0).collect();
    let mut row = vec![0.0; SIDE];
    bencher.bench_local(|| {
        let mut acc = 0.0;
        for k in 0..SIDE {
            n.fill_row(black_box(&xs), k as f64 + 0.5 - 3000.0, &mut row);
            acc += row.iter().sum::<f64>();
        }
        black_box(acc)
    });
}

/// [`PerlinFbm2`] over the whole grid in one call (`fill_grid`: each x's axes computed once for
/// every row, as the terrain lattice samples it; `simdnoise` also fills a whole grid per call).
#[divan::bench]
fn strata_fast_fbm_grid(bencher: divan::Bencher) {
    let n = PerlinFbm2::new(7, PARAMS);
    let xs: Vec<f64> = (0..SIDE).map(|i| i as f64 + 0.5 + 1000.0).collect();
    let zs: Vec<f64> = (0..SIDE).map(|k| k as f64 + 0.5 - 3000.0).collect();
    let mut grid = vec![0.0; SIDE * SIDE];
    bencher.bench_local(|| {
        n.fill_grid(black_box(&xs), &zs, &mut grid);
        black_box(grid.iter().sum::<f64>())
    });
}

/// [`strata_fast_fbm_grid`] pinned to the AVX2 kernel (the portable one on a CPU without AVX2):
/// the same SIMD width as `simdnoise` on an AVX2 machine.
#[divan::bench]
fn strata_fast_fbm_grid_avx2(bencher: divan::Bencher) {
    let n = PerlinFbm2::new(7, PARAMS);
    let xs: Vec<f64> = (0..SIDE).map(|i| i as f64 + 0.5 + 1000.0).collect();
    let zs: Vec<f64> = (0..SIDE).map(|k| k as f64 + 0.5 - 3000.0).collect();
    let mut grid = vec![0.0; SIDE * SIDE];
    bencher.bench_local(|| {
        n.fill_grid_with(Kernel::Avx2, black_box(&xs), &zs, &mut grid);
        black_box(grid.iter().sum::<f64>())
    });
}

/// [`strata_fast_fbm_batch`] pinned to the AVX2 kernel (the portable one on a CPU without AVX2).
#[divan::bench]
fn strata_fast_fbm_batch_avx2(bencher: divan::Bencher) {
    let n = PerlinFbm2::new(7, PARAMS);
    let xs: Vec<f64> = (0..SIDE).map(|i| i as f64 + 0.5 + 1000.0).collect();
    let mut row = vec![0.0; SIDE];
    bencher.bench_local(|| {
        let mut acc = 0.0;
        for k in 0..SIDE {
            n.fill_row_with(Kernel::Avx2, black_box(&xs), k as f64 + 0.5 - 3000.0, &mut row);
            acc += row.iter().sum::<f64>();
        }
        black_box(acc)
    });
}

/// The whole default height field per column (weighted sources, biomes, ravines), as the column
/// pass samples it.
#[divan::bench]
fn strata_terrain_sample_grid(bencher: divan::Bencher) {
    let t = GEN.terrain();
    let mut out: Vec<TerrainSample> = Vec::with_capacity(SIDE * SIDE);
    bencher.bench_local(|| {
        out.clear();
        t.sample_grid(black_box(1000.5), -2999.5, 1.0, SIDE, SIDE, &mut out);
        black_box(out.len())
    });
}

/// Peer: `simdnoise` 3.1 fBm, 5 octaves, the same 32×32 grid in one call (its API also scans
/// for the minimum and maximum and allocates the output).
#[divan::bench]
fn peer_simdnoise_fbm(bencher: divan::Bencher) {
    bencher.bench_local(|| {
        let mut settings = simdnoise::NoiseBuilder::fbm_2d_offset(black_box(1000.5), SIDE, -2999.5, SIDE);
        settings.with_freq(PARAMS.frequency as f32).with_octaves(5).with_gain(0.5).with_lacunarity(2.0).with_seed(7);
        let (values, _, _) = settings.generate();
        black_box(values.iter().sum::<f32>())
    });
}

/// Peer: `fastnoise-lite` 1.1 Perlin fBm, 5 octaves, one call per sample.
#[divan::bench]
fn peer_fastnoise_lite_fbm(bencher: divan::Bencher) {
    use fastnoise_lite::{FastNoiseLite, FractalType, NoiseType};
    let mut n = FastNoiseLite::with_seed(7);
    n.set_noise_type(Some(NoiseType::Perlin));
    n.set_fractal_type(Some(FractalType::FBm));
    n.set_fractal_octaves(Some(5));
    n.set_fractal_gain(Some(0.5));
    n.set_fractal_lacunarity(Some(2.0));
    n.set_frequency(Some(PARAMS.frequency as f32));
    bencher.bench_local(|| black_box(grid(|x, z| n.get_noise_2d(black_box(x as f32), z as f32) as f64)));
}
