//! Game of Life caves against the 4-5 caves, side by side: one automaton step (3D 32³ grid, 2D
//! 512² grid; divide by the cells for the cost per cell), the flood fill of secondary regions,
//! and the cave stage of one chunk in each mode (3D cavern field of a 32³ chunk, 2D side-view
//! chunk of 64² tiles).
//!
//! Run: `cargo bench -p strata-core --bench life`.

use std::hint::black_box;
use strata_core::IVec3;
use strata_core::automata::cave_rules::{CaveRules, cave_stages};
use strata_core::automata::cellular::{BitGrid2D, BitGrid3D, CaRule, CaScratch, initial_alive};
use strata_core::automata::life::fill_secondary_open_2d;
use strata_core::gen2d::{ChunkCoord2D, Generator2D};
use strata_core::gen3d::caverns::{CavernField, CavernScratch};
use strata_core::preset::model::{CaveMode, CaveSettings, WorldPreset};

const N3: usize = 32;
const N2: usize = 512;

fn main() {
    divan::main();
}

fn grid_3d() -> BitGrid3D {
    let mut g = BitGrid3D::new(N3, N3, N3);
    for y in 0..N3 {
        for z in 0..N3 {
            for x in 0..N3 {
                g.set(x, y, z, initial_alive(42, 1, 0.5, x as i32, y as i32, z as i32));
            }
        }
    }
    g
}

fn grid_2d() -> BitGrid2D {
    let mut g = BitGrid2D::new(N2, N2);
    for y in 0..N2 {
        for x in 0..N2 {
            g.set(x, y, initial_alive(42, 1, 0.5, x as i32, y as i32, 0));
        }
    }
    g
}

/// One step of a 32³ grid: `0` the 4-5 rule's 3D analogue (14 of 27), `1` B3/S23.
#[divan::bench(args = [0, 1])]
fn step_3d(bencher: divan::Bencher, rule: usize) {
    let rule = [CaRule::AtLeast(14), CaRule::CONWAY][rule];
    let g = grid_3d();
    let (mut out, mut scratch) = (BitGrid3D::new(0, 0, 0), CaScratch::default());
    bencher.bench_local(|| {
        black_box(&g).step(rule, &mut out, &mut scratch);
        black_box(out.row(0, 0)[0])
    });
}

/// One step of a 512² grid: `0` the 4-5 rule, `1` B3/S23.
#[divan::bench(args = [0, 1])]
fn step_2d(bencher: divan::Bencher, rule: usize) {
    let rule = [CaRule::FOUR_FIVE, CaRule::CONWAY][rule];
    let g = grid_2d();
    let (mut out, mut scratch) = (BitGrid2D::new(0, 0), CaScratch::default());
    bencher.bench_local(|| {
        black_box(&g).step(rule, &mut out, &mut scratch);
        black_box(out.row(0)[0])
    });
}

/// Flood fill of every open region but the largest, 512² tiles after 8 ticks of B3/S23.
#[divan::bench]
fn fill_secondary_2d(bencher: divan::Bencher) {
    let g = strata_core::automata::life::life_ticks_2d(&grid_2d(), CaRule::CONWAY, 8);
    bencher.bench_local(|| {
        let mut c = g.clone();
        black_box(fill_secondary_open_2d(&mut c))
    });
}

fn life_caves() -> CaveSettings {
    CaveSettings { mode: CaveMode::GameOfLife, ..life_preset().caves }
}

fn life_preset() -> WorldPreset {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../godot_project/addons/strata/presets/life_caverns.ron");
    strata_core::preset::file::load_preset_file(std::path::Path::new(path)).expect("the shipped life_caverns preset")
}

/// The cavern field of one chunk's padded 34³ box (as the pipeline asks for it; with cells of 2
/// voxels it reaches into the neighbouring regions on every axis): `0` the default (4-5) caves,
/// `1` the `life_caverns` preset's.
#[divan::bench(args = [0, 1])]
fn cavern_field_chunk(bencher: divan::Bencher, mode: usize) {
    let c = if mode == 0 { CaveSettings::default() } else { life_caves() };
    let stages = cave_stages(&CaveRules::of_caves(&c)).unwrap().unwrap();
    let mut scratch = CavernScratch::default();
    bencher.bench_local(|| {
        let f = CavernField::compute(7, &c, &stages, IVec3::new(-1, -65, -1), IVec3::splat(34), &mut scratch).unwrap();
        let open = f.is_open(IVec3::new(3, -50, 4));
        f.recycle(&mut scratch);
        black_box(open)
    });
}

/// One side-view chunk (64² tiles, deep underground): `0` the default (4-5) caves, `1` the
/// `life_side_view` preset's.
#[divan::bench(args = [0, 1])]
fn side_view_chunk(bencher: divan::Bencher, mode: usize) {
    let p = if mode == 0 {
        WorldPreset::default()
    } else {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../godot_project/addons/strata/presets/life_side_view.ron");
        strata_core::preset::file::load_preset_file(std::path::Path::new(path)).expect("the shipped preset")
    };
    let g = Generator2D::new(&p).unwrap();
    bencher.bench_local(|| black_box(g.generate_chunk(ChunkCoord2D::new(1, 2))));
}
