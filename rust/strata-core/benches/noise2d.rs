//! 2D fractal noise, 5 octaves, per sample: the `noise` crate's `Fbm<Perlin>` (baseline) against
//! what Strata's generator uses (`worldgen::fractal::perlin_fbm`, built on the same crate, and the
//! whole height field `Terrain::sample_grid` that the column pass calls).
//!
//! Each iteration samples a 32×32 grid (1,024 samples, one column of a chunk each); divide the
//! times by 1,024 for the cost per sample (`cargo xtask bench` does).
//!
//! Run: `cargo bench -p strata-core --bench noise2d`.

mod common;

use noise::{Fbm, MultiFractal, NoiseFn, Perlin};
use std::hint::black_box;
use std::sync::LazyLock;
use strata_core::generator::Generator;
use strata_core::worldgen::fractal::{FractalParams, perlin_fbm};
use strata_core::worldgen::terrain::TerrainSample;

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
    let n = Fbm::<Perlin>::new(7).set_octaves(5).set_frequency(PARAMS.frequency).set_persistence(0.5).set_lacunarity(2.0);
    bencher.bench_local(|| black_box(grid(|x, z| n.get([black_box(x), z]))));
}

/// The generator's Perlin fBm source (same crate, configured from the preset's parameters).
#[divan::bench]
fn strata_perlin_fbm(bencher: divan::Bencher) {
    let n = perlin_fbm(7, PARAMS);
    bencher.bench_local(|| black_box(grid(|x, z| n.get([black_box(x), z]))));
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
