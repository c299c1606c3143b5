//! The navigation bake of one 32³ chunk from real generated voxels of the default preset (the
//! benches' four surface chunks): the bake alone over its input box (the chunk, a voxel around
//! and below, the agent's two voxels above), and the worker's whole navigation step in a streamed
//! job (the layer above the padded chunk generated, then the bake). Prints each chunk's polygon
//! and vertex counts first.
//!
//! Run: `cargo bench -p strata-core --bench nav`.

mod common;

use std::hint::black_box;
use std::sync::LazyLock;
use strata_core::gen3d::pipeline::Generator;
use strata_core::gen3d::scratch::GenScratch;
use strata_core::mesh::MeshMaterials;
use strata_core::nav::{NavMesh, NavScratch, NavSettings, bake_chunk};
use strata_core::stream::navigation::{NavConfig, NavInput, StreamedChunk, bake_streamed_chunk};
use strata_core::{ChunkCoord, VoxelBuffer};

static GENERATOR: LazyLock<Generator> = LazyLock::new(common::generator);

static CONFIG: LazyLock<NavConfig> =
    LazyLock::new(|| NavConfig::from_materials(2, NavSettings::default(), &MeshMaterials::shared_default()));

/// Per benchmark chunk: its coordinate, its padded voxels, its navigation input box.
static CHUNKS: LazyLock<Vec<(ChunkCoord, VoxelBuffer, VoxelBuffer)>> = LazyLock::new(|| {
    common::padded_chunks(&GENERATOR)
        .into_iter()
        .map(|(c, padded)| {
            let (min, size) = CONFIG.settings.input_box(c);
            (c, padded, GENERATOR.generate_box(min, size))
        })
        .collect()
});

const ARGS: [usize; 4] = [0, 1, 2, 3];

fn main() {
    for (i, (c, _, input)) in CHUNKS.iter().enumerate() {
        let mut mesh = NavMesh::default();
        bake_chunk(input, *c, &CONFIG.settings, &CONFIG.blocks, &mut NavScratch::default(), &mut mesh).expect("bake");
        println!("nav chunk={i} polygons={} vertices={}", mesh.polygon_count(), mesh.vertices.len());
    }
    divan::main();
}

/// The bake alone, over the chunk's input box.
#[divan::bench(args = ARGS)]
fn nav_bake(bencher: divan::Bencher, i: usize) {
    let (c, _, input) = &CHUNKS[i % CHUNKS.len()];
    let (mut scratch, mut mesh) = (NavScratch::default(), NavMesh::default());
    bencher.bench_local(|| {
        bake_chunk(black_box(input), *c, &CONFIG.settings, &CONFIG.blocks, &mut scratch, &mut mesh).expect("bake");
        mesh.polygon_count()
    });
}

/// What a streamed job adds for navigation: the layer above the padded chunk generated, the input
/// box assembled, the bake.
#[divan::bench(args = ARGS)]
fn nav_streamed_job(bencher: divan::Bencher, i: usize) {
    let (c, padded, _) = &CHUNKS[i % CHUNKS.len()];
    let (mut generation, mut work) = (GenScratch::default(), NavInput::default());
    bencher.bench_local(|| {
        let chunk = StreamedChunk { coord: *c, padded: black_box(padded), sky: false, edits: &[] };
        let (mesh, _) = bake_streamed_chunk(&GENERATOR, chunk, &CONFIG, &mut generation, &mut work);
        mesh.expect("bake").polygon_count()
    });
}
