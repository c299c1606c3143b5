//! Collision geometry for one 32³ chunk: Strata's solidity-only greedy faces
//! (`Mesher::collision_faces`, what the workers hand to Godot) against the render mesh's
//! triangles as the baseline (AO and block ids split its quads), and their split into the parts
//! Godot builds one a step (`CollisionParts::split`). Prints the triangle counts
//! first: Godot's `ConcavePolygonShape3D` build time grows with them.
//!
//! Run: `cargo bench -p strata-core --bench collision`.

mod common;

use std::hint::black_box;
use std::sync::LazyLock;
use strata_core::VoxelBuffer;
use strata_core::mesh::{COLLISION_PART_TRIANGLES, ChunkMesh, CollisionParts, Mesher};

static CHUNKS: LazyLock<Vec<VoxelBuffer>> =
    LazyLock::new(|| common::padded_chunks(&common::generator()).into_iter().map(|(_, b)| b).collect());

const ARGS: [usize; 4] = [0, 1, 2, 3];

fn main() {
    let mut mesher = Mesher::new();
    for (i, b) in CHUNKS.iter().enumerate() {
        let (mut render, mut faces) = (ChunkMesh::default(), Vec::new());
        mesher.mesh(b, &mut render);
        mesher.collision_faces(b, &mut faces);
        println!("triangles chunk={i} collision={} render_opaque={}", faces.len() / 3, render.opaque.indices.len() / 3);
    }
    divan::main();
}

/// The binary mesher's collision pass (same faces, merged by solidity on its own row masks).
#[divan::bench(args = ARGS)]
fn mesher_collision_faces(bencher: divan::Bencher, i: usize) {
    let b = &CHUNKS[i % CHUNKS.len()];
    let mut out = Vec::with_capacity(4096);
    let mut mesher = Mesher::new();
    bencher.bench_local(|| {
        out.clear();
        mesher.collision_faces(black_box(b), &mut out);
        out.len()
    });
}

/// The worker's split of a chunk's collision faces into parts of at most
/// `COLLISION_PART_TRIANGLES` (what it hands to Godot instead of one list of faces).
#[divan::bench(args = ARGS)]
fn collision_parts_split(bencher: divan::Bencher, i: usize) {
    let b = &CHUNKS[i % CHUNKS.len()];
    let mut faces = Vec::with_capacity(4096);
    Mesher::new().collision_faces(b, &mut faces);
    bencher.bench_local(|| CollisionParts::split(black_box(&faces), COLLISION_PART_TRIANGLES).len());
}
