//! One pass of a 3D cellular automaton over a 32³ grid: `automata::cellular`'s bit-parallel step
//! (64 cells per word, bit-sliced neighbour sums) against its naive per-cell neighbour count.
//!
//! Divide by 32,768 for the cost per cell (`cargo xtask bench` does).
//!
//! Run: `cargo bench -p strata-core --bench ca3d`.

use std::hint::black_box;
use strata_core::automata::cellular::{BitGrid3D, CaRule, CaScratch, initial_alive, naive_step_3d};

const N: usize = 32;
/// A 3D cave rule: rock where at least 14 of the 27 cells of the 3×3×3 block are rock.
const RULE: CaRule = CaRule::AtLeast(14);

fn main() {
    divan::main();
}

fn seeded_grid() -> BitGrid3D {
    let mut g = BitGrid3D::new(N, N, N);
    for y in 0..N {
        for z in 0..N {
            for x in 0..N {
                g.set(x, y, z, initial_alive(42, 1, 0.5, x as i32, y as i32, z as i32));
            }
        }
    }
    g
}

/// Bit-parallel step.
#[divan::bench]
fn bit_parallel(bencher: divan::Bencher) {
    let g = seeded_grid();
    let mut out = BitGrid3D::new(N, N, N);
    let mut scratch = CaScratch::default();
    bencher.bench_local(|| {
        black_box(&g).step(RULE, &mut out, &mut scratch);
        black_box(out.row(0, 0)[0])
    });
}

/// Baseline: naive neighbour count per cell.
#[divan::bench(sample_count = 20)]
fn naive(bencher: divan::Bencher) {
    let g = seeded_grid();
    bencher.bench_local(|| black_box(naive_step_3d(black_box(&g), RULE)));
}
