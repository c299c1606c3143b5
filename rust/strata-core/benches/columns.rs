//! The column pass (surface height, biome and blocks per (x, z)) and whole padded chunks:
//! the exact height field (every source at every column, the column pass before the lattice) as
//! the baseline, against the coarse lattice (`gen3d::terrain` module doc).
//!
//! * `column_pass`: the columns of one padded chunk (34 × 34 = 1,156 columns, which sample
//!   36 × 36 heights for the slope); divide by 1,156 for the cost per column.
//! * `point_sample`: 64 scattered single-point samples (`Terrain::sample_exact` against
//!   `Terrain::sample`, which reads four lattice points); divide by 64 per sample.
//! * `padded_chunk`: a whole padded chunk (columns, layers, caves, ores, water) for a surface,
//!   a deep and a sky chunk. `before`: the baseline, the exact field (lattice step 1) and the
//!   two-pass flow (`chunk_is_sky`, then `generate_padded_chunk`: two column passes);
//!   `lattice_two_passes`: the lattice, two-pass flow; `lattice`: the lattice and
//!   `generate_padded_chunk_unless_sky` (one column pass), as workers run it.
//!
//! * `horizon`: one tile of the horizon map beside one far column of level 3.
//!
//! Run: `cargo bench -p strata-core --bench columns`.

use std::hint::black_box;
use std::sync::LazyLock;
use strata_core::gen3d::columns::{Column, ColumnGrid};
use strata_core::gen3d::pipeline::{Generator, GeneratorOptions};
use strata_core::gen3d::scratch::GenScratch;
use strata_core::{CHUNK_SIZE, ChunkCoord, IVec3, VoxelBuffer, WorldPreset};

static LATTICE: LazyLock<Generator> =
    LazyLock::new(|| Generator::new(&WorldPreset::default()).expect("default preset"));
static EXACT: LazyLock<Generator> = LazyLock::new(|| {
    Generator::with_options(&WorldPreset::default(), GeneratorOptions::default().lattice_step(1))
        .expect("default preset")
});

/// Surface, deep (three chunks below the surface chunk) and sky (three above) chunks of one column.
static CHUNKS: LazyLock<[ChunkCoord; 3]> = LazyLock::new(|| {
    let (cx, cz) = (1, 1);
    let s = LATTICE.surface_height(cx * CHUNK_SIZE + 16, cz * CHUNK_SIZE + 16);
    let cy = s.div_euclid(CHUNK_SIZE);
    let chunks = [ChunkCoord::new(cx, cy, cz), ChunkCoord::new(cx, cy - 3, cz), ChunkCoord::new(cx, cy + 3, cz)];
    assert!(!LATTICE.chunk_is_sky(chunks[0]) && !LATTICE.chunk_is_sky(chunks[1]) && LATTICE.chunk_is_sky(chunks[2]));
    chunks
});

const KINDS: [&str; 3] = ["surface", "deep", "sky"];
const N: i32 = CHUNK_SIZE + 2;

fn main() {
    divan::main();
}

fn chunk(kind: &str) -> ChunkCoord {
    CHUNKS[KINDS.iter().position(|k| *k == kind).unwrap()]
}

mod column_pass {
    use super::*;

    const MIN: (i32, i32) = (31, -3);

    /// Baseline: the exact field at every column.
    #[divan::bench(sample_count = 40)]
    fn exact(bencher: divan::Bencher) {
        let mut out: Vec<Column> = Vec::with_capacity((N * N) as usize);
        bencher.bench_local(|| {
            out.clear();
            LATTICE.columns_into_exact(black_box(MIN.0), MIN.1, N as usize, N as usize, &mut out);
            black_box(out.len())
        });
    }

    /// The lattice (step 4 for the default preset), interpolated per column.
    #[divan::bench(sample_count = 40)]
    fn lattice(bencher: divan::Bencher) {
        let mut out: Vec<Column> = Vec::with_capacity((N * N) as usize);
        bencher.bench_local(|| {
            out.clear();
            LATTICE.columns_into(black_box(MIN.0), MIN.1, N as usize, N as usize, &mut out);
            black_box(out.len())
        });
    }
}

mod point_sample {
    use super::*;

    fn points() -> Vec<(f64, f64)> {
        (0..64).map(|i| ((i * 977 % 4096) as f64 - 2048.5, (i * 613 % 4096) as f64 - 1024.5)).collect()
    }

    #[divan::bench(sample_count = 40)]
    fn exact(bencher: divan::Bencher) {
        let (t, p) = (LATTICE.terrain(), points());
        bencher.bench_local(|| p.iter().map(|&(x, z)| t.sample_exact(black_box(x), z).height).sum::<f64>());
    }

    #[divan::bench(sample_count = 40)]
    fn lattice(bencher: divan::Bencher) {
        let (t, p) = (LATTICE.terrain(), points());
        bencher.bench_local(|| p.iter().map(|&(x, z)| t.sample(black_box(x), z).height).sum::<f64>());
    }
}

mod padded_chunk {
    use super::*;

    /// The old worker flow: the sky test, then the chunk (its own column pass).
    fn two_passes(g: &Generator, c: ChunkCoord, out: &mut VoxelBuffer, scratch: &mut GenScratch) -> bool {
        let sky = g.chunk_is_sky(c);
        if !sky {
            g.generate_padded_chunk_with(c, out, scratch);
        }
        sky
    }

    #[divan::bench(args = KINDS, sample_count = 30)]
    fn before(bencher: divan::Bencher, kind: &str) {
        let c = chunk(kind);
        let (mut out, mut scratch) = (VoxelBuffer::new(IVec3::ZERO, IVec3::ONE), GenScratch::default());
        bencher.bench_local(|| black_box(two_passes(&EXACT, black_box(c), &mut out, &mut scratch)));
    }

    #[divan::bench(args = KINDS, sample_count = 30)]
    fn lattice_two_passes(bencher: divan::Bencher, kind: &str) {
        let c = chunk(kind);
        let (mut out, mut scratch) = (VoxelBuffer::new(IVec3::ZERO, IVec3::ONE), GenScratch::default());
        bencher.bench_local(|| black_box(two_passes(&LATTICE, black_box(c), &mut out, &mut scratch)));
    }

    #[divan::bench(args = KINDS, sample_count = 30)]
    fn lattice(bencher: divan::Bencher, kind: &str) {
        let c = chunk(kind);
        let (mut out, mut columns, mut scratch) =
            (VoxelBuffer::new(IVec3::ZERO, IVec3::ONE), ColumnGrid::default(), GenScratch::default());
        bencher.bench_local(|| {
            // A chunk from nothing: no column pass kept from the last sample.
            scratch.forget_column_passes();
            black_box(LATTICE.generate_padded_chunk_unless_sky(black_box(c), &mut out, &mut columns, &mut scratch))
        });
    }
}

/// `Generator::scatter_chunk` for the surface chunk: 64 candidates, each a `Generator::column`
/// (its own small column pass); shown to size what sharing the padded chunk's columns would save.
#[divan::bench(sample_count = 30)]
fn scatter_chunk_surface(bencher: divan::Bencher) {
    let c = chunk("surface");
    bencher.bench_local(|| black_box(LATTICE.scatter_chunk(black_box(c)).len()));
}

/// One `Generator::column` (a 3 × 3 sample grid on the lattice).
#[divan::bench(sample_count = 40)]
fn single_column(bencher: divan::Bencher) {
    bencher.bench_local(|| black_box(LATTICE.column(black_box(123), -45)));
}

/// The horizon map's worker per tile (`horizon_map::build_tile`: 64 × 64 ground heights 8
/// voxels apart), beside one far column of level 3 (`far_mesh::build_far_column`: 36 × 36
/// heights 8 voxels apart, then meshing), which the far view's workers build by the hundred.
mod horizon {
    use super::*;
    use strata_core::stream::far_mesh::{FarMesh, FarScratch, build_far_column};
    use strata_core::stream::far_policy::LodColumn;
    use strata_core::stream::horizon_map::{HorizonTile, build_tile};

    #[divan::bench(sample_count = 30)]
    fn tile(bencher: divan::Bencher) {
        let (mut samples, mut out) = (Vec::new(), Vec::new());
        bencher.bench_local(|| {
            build_tile(&LATTICE, black_box(HorizonTile { x: 1, z: -2 }), &mut samples, &mut out);
            black_box(out.len())
        });
    }

    #[divan::bench(sample_count = 30)]
    fn far_column_level_3(bencher: divan::Bencher) {
        let (mut scratch, mut out) = (FarScratch::default(), FarMesh::default());
        bencher.bench_local(|| {
            build_far_column(&LATTICE, black_box(LodColumn::new(3, 1, -2)), &mut scratch, &mut out);
            black_box(out.mesh.opaque.positions.len())
        });
    }
}
