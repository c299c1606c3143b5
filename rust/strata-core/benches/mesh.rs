//! Meshing one 32³ terrain chunk (padded 34³): Strata's binary greedy mesher (quads with AO,
//! written out as vertex arrays; and with AO off, merged by block alone like block-mesh, as many
//! quads or fewer) against block-mesh's `greedy_quads` (quads only) and Strata's
//! culled reference mesher, on the same voxels from `Generator::generate_padded_chunk`; and
//! Strata's collision faces (solid faces merged by solidity alone, written out as triangle
//! corners).
//!
//! Run: `cargo bench -p strata-core --bench mesh`. Prints the quad counts before the timings.

mod common;

use std::hint::black_box;
use std::sync::LazyLock;
use strata_core::VoxelBuffer;
use strata_core::mesh::{ChunkMesh, Mesher, mesh_padded_chunk_culled};

/// Corners per collision quad (two triangles).
const CORNERS_PER_QUAD: usize = 6;

static CHUNKS: LazyLock<Vec<VoxelBuffer>> =
    LazyLock::new(|| common::padded_chunks(&common::generator()).into_iter().map(|(_, b)| b).collect());
static BM_CHUNKS: LazyLock<Vec<Vec<common::BmVoxel>>> =
    LazyLock::new(|| CHUNKS.iter().map(common::to_block_mesh).collect());

const ARGS: [usize; 4] = [0, 1, 2, 3];

fn main() {
    let g = common::generator();
    let mut mesher = Mesher::new();
    let mut bm = common::new_block_mesh_buffer();
    for (i, (c, b)) in common::padded_chunks(&g).iter().enumerate() {
        let (mut greedy, mut culled, mut flat) = (ChunkMesh::default(), ChunkMesh::default(), ChunkMesh::default());
        mesher.mesh(b, &mut greedy);
        mesher.set_ambient_occlusion(false);
        mesher.mesh(b, &mut flat);
        mesher.set_ambient_occlusion(true);
        mesh_padded_chunk_culled(b, &mut culled);
        let mut collision = Vec::new();
        mesher.collision_faces(b, &mut collision);
        let baseline = common::block_mesh_quads(&common::to_block_mesh(b), &mut bm);
        println!(
            "quads chunk={i} coord=({},{},{}) strata_greedy={} strata_flat={} culled={} block_mesh={} collision={}",
            c.x,
            c.y,
            c.z,
            greedy.quad_count(),
            flat.quad_count(),
            culled.quad_count(),
            baseline,
            collision.len() / CORNERS_PER_QUAD
        );
    }
    divan::main();
}

/// Strata's binary greedy mesher, vertex arrays included.
#[divan::bench(args = ARGS)]
fn strata_greedy(bencher: divan::Bencher, chunk: usize) {
    let b = &CHUNKS[chunk];
    let mut mesher = Mesher::new();
    let mut out = ChunkMesh::default();
    bencher.bench_local(|| {
        mesher.mesh(black_box(b), &mut out);
        black_box(out.opaque.indices.len())
    });
}

/// The same mesher with ambient occlusion off: faces merged by block alone, lit open (what
/// block-mesh's `greedy_quads` merges by), vertex arrays included.
#[divan::bench(args = ARGS)]
fn strata_greedy_flat(bencher: divan::Bencher, chunk: usize) {
    let b = &CHUNKS[chunk];
    let mut mesher = Mesher::new();
    mesher.set_ambient_occlusion(false);
    let mut out = ChunkMesh::default();
    bencher.bench_local(|| {
        mesher.mesh(black_box(b), &mut out);
        black_box(out.opaque.indices.len())
    });
}

/// Strata's collision faces: solid faces only, merged by solidity, triangle corners included.
#[divan::bench(args = ARGS)]
fn strata_collision_faces(bencher: divan::Bencher, chunk: usize) {
    let b = &CHUNKS[chunk];
    let mut mesher = Mesher::new();
    let mut out = Vec::new();
    bencher.bench_local(|| {
        mesher.collision_faces(black_box(b), &mut out);
        black_box(out.len())
    });
}

/// Baseline: block-mesh `greedy_quads` (quads only).
#[divan::bench(args = ARGS)]
fn block_mesh_greedy(bencher: divan::Bencher, chunk: usize) {
    let v = &BM_CHUNKS[chunk];
    let mut buffer = common::new_block_mesh_buffer();
    bencher.bench_local(|| black_box(common::block_mesh_quads(black_box(v), &mut buffer)));
}

/// Strata's one-quad-per-face reference mesher (what the greedy mesher replaced).
#[divan::bench(args = ARGS, sample_count = 20)]
fn strata_culled_reference(bencher: divan::Bencher, chunk: usize) {
    let b = &CHUNKS[chunk];
    let mut out = ChunkMesh::default();
    bencher.bench_local(|| {
        mesh_padded_chunk_culled(black_box(b), &mut out);
        black_box(out.opaque.indices.len())
    });
}
