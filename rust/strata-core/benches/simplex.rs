//! Simplex fBm as defined (`noise::simplex::SimplexFbm`) side by side with Strata's Perlin fBm,
//! in the same run, on the same points, octaves, frequency, persistence and lacunarity:
//!
//! - 2D: a 32×32 grid (1,024 points) — `PerlinFbm2::get_many` against `SimplexFbm<2>::get_many`
//!   (each the batch kernel the CPU has), and one scalar `get` per point for both.
//! - 3D: a 32³ chunk (32,768 points) — `PerlinFbm3::get_many` (the per-point AVX2 batch, like
//!   for like with simplex's), `PerlinFbm3::get` per point and `PerlinFbm3::fill_grid`
//!   (separable grid) against `SimplexFbm<3>::get_many` and `SimplexFbm<3>::get` per point.
//!
//! Divide the times by the point counts for the cost per point.
//!
//! Medians on a shared 2-core AMD EPYC (Zen 3, AVX2 kernel), per point, 5 octaves, both sides
//! in the same run (2026-11-26, load 5–6, docs/perf.md has the runs):
//!
//! | | Perlin batch | simplex batch | ratio | before the AVX2 intrinsics (same run) |
//! |---|---|---|---|---|
//! | 2D | 24.6 ns (`get_many`) | 29.3 ns | 1.19× | 39.3 ns (1.59×) |
//! | 3D | 18.3 ns (`fill_grid`) | 39.2 ns | 2.14× | 50.6 ns (2.8×) |
//!
//! Against Perlin's 3D per-point batch (`PerlinFbm3::get_many`, 2026-11-26 night, load 2.9, two
//! runs): Perlin 44.2 / 44.9 ns, simplex 41.5 / 41.5 ns per point: simplex ÷ Perlin 0.94× /
//! 0.92×, within 1.2× like for like (docs/perf.md).
//!
//! Perlin's 3D batch works on a separable grid (axis terms once per grid line); simplex skews
//! every point by the sum of its coordinates, so its batch takes any points. 3D Perlin one point
//! at a time (`get`) costs about 920 ns per point in that run.
//!
//! Run: `cargo bench -p strata-core --bench simplex`.

use std::hint::black_box;
use strata_core::noise::fast_fbm::PerlinFbm2;
use strata_core::noise::fast_fbm3::PerlinFbm3;
use strata_core::noise::fractal::FractalParams;
use strata_core::noise::simplex::{SimplexFbm, SimplexRadius};

const SIDE: usize = 32;
const SEED: u32 = 7;
const PARAMS: FractalParams = FractalParams { octaves: 5, frequency: 1.0 / 64.0, persistence: 0.5, lacunarity: 2.0 };

fn main() {
    divan::main();
}

fn axis(origin: f64) -> Vec<f64> {
    (0..SIDE).map(|i| origin + i as f64 + 0.5).collect()
}

fn points2() -> Vec<[f64; 2]> {
    let (xs, zs) = (axis(1000.0), axis(-3000.0));
    zs.iter().flat_map(|z| xs.iter().map(move |x| [*x, *z])).collect()
}

fn points3() -> Vec<[f64; 3]> {
    let (xs, ys, zs) = (axis(1000.0), axis(-40.0), axis(-3000.0));
    let mut out = Vec::with_capacity(SIDE * SIDE * SIDE);
    for y in &ys {
        for z in &zs {
            for x in &xs {
                out.push([*x, *y, *z]);
            }
        }
    }
    out
}

mod fbm2d {
    use super::*;

    #[divan::bench]
    fn perlin_batch(bencher: divan::Bencher) {
        let n = PerlinFbm2::new(SEED, PARAMS);
        let p = points2();
        let (xs, zs): (Vec<f64>, Vec<f64>) = p.iter().map(|q| (q[0], q[1])).unzip();
        let mut out = vec![0.0; p.len()];
        bencher.bench_local(|| {
            n.get_many(black_box(&xs), &zs, &mut out);
            black_box(out.iter().sum::<f64>())
        });
    }

    #[divan::bench]
    fn simplex_batch(bencher: divan::Bencher) {
        let n = SimplexFbm::<2>::new(SEED, PARAMS, SimplexRadius::Half);
        let p = points2();
        let mut out = vec![0.0; p.len()];
        bencher.bench_local(|| {
            n.get_many(black_box(&p), &mut out);
            black_box(out.iter().sum::<f64>())
        });
    }

    #[divan::bench]
    fn perlin_point(bencher: divan::Bencher) {
        let n = PerlinFbm2::new(SEED, PARAMS);
        let p = points2();
        bencher.bench_local(|| black_box(p.iter().map(|q| n.get(black_box(q[0]), q[1])).sum::<f64>()));
    }

    #[divan::bench]
    fn simplex_point(bencher: divan::Bencher) {
        let n = SimplexFbm::<2>::new(SEED, PARAMS, SimplexRadius::Half);
        let p = points2();
        bencher.bench_local(|| black_box(p.iter().map(|q| n.get(black_box(*q))).sum::<f64>()));
    }
}

mod fbm3d {
    use super::*;

    #[divan::bench(sample_count = 20)]
    fn perlin_point(bencher: divan::Bencher) {
        let n = PerlinFbm3::new(SEED, PARAMS);
        let p = points3();
        bencher.bench_local(|| black_box(p.iter().map(|q| n.get(black_box(q[0]), q[1], q[2])).sum::<f64>()));
    }

    #[divan::bench(sample_count = 20)]
    fn perlin_grid(bencher: divan::Bencher) {
        let n = PerlinFbm3::new(SEED, PARAMS);
        let (xs, ys, zs) = (axis(1000.0), axis(-40.0), axis(-3000.0));
        let mut out = vec![0.0; SIDE * SIDE * SIDE];
        bencher.bench_local(|| {
            n.fill_grid(black_box(&xs), &ys, &zs, &mut out);
            black_box(out.iter().sum::<f64>())
        });
    }

    /// `PerlinFbm3::get_many`, the per-point batch, on the same points as `simplex_batch`.
    #[divan::bench(sample_count = 20)]
    fn perlin_batch(bencher: divan::Bencher) {
        let n = PerlinFbm3::new(SEED, PARAMS);
        let p = points3();
        let mut out = vec![0.0; p.len()];
        bencher.bench_local(|| {
            n.get_many(black_box(&p), &mut out);
            black_box(out.iter().sum::<f64>())
        });
    }

    #[divan::bench(sample_count = 20)]
    fn simplex_batch(bencher: divan::Bencher) {
        let n = SimplexFbm::<3>::new(SEED, PARAMS, SimplexRadius::Half);
        let p = points3();
        let mut out = vec![0.0; p.len()];
        bencher.bench_local(|| {
            n.get_many(black_box(&p), &mut out);
            black_box(out.iter().sum::<f64>())
        });
    }

    #[divan::bench(sample_count = 20)]
    fn simplex_point(bencher: divan::Bencher) {
        let n = SimplexFbm::<3>::new(SEED, PARAMS, SimplexRadius::Half);
        let p = points3();
        bencher.bench_local(|| black_box(p.iter().map(|q| n.get(black_box(*q))).sum::<f64>()));
    }
}
