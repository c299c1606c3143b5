//! Collision and render triangles per chunk, and generation + mesh time, over an area of the
//! default world against the same code on preset format 1's default terrain
//! (`WorldPreset::format1_default()`: 5 height octaves over 320 voxels on the 4-voxel lattice,
//! the built-in default before 778d22f). The main thread's collision body
//! (`ConcavePolygonShape3D.set_faces`) grows with the triangles a worker hands it.
//!
//! Run: `cargo run --release -p strata-core --example face_counts [RADIUS]` (chunk columns
//! -RADIUS..RADIUS on both axes, the surface chunk and the ones above and below; default 8).
//! Under `valgrind --tool=callgrind` with a small radius it counts instructions per chunk.

use std::time::Instant;
use strata_core::gen3d::pipeline::Generator;
use strata_core::gen3d::scratch::GenScratch;
use strata_core::mesh::{ChunkMesh, Mesher};
use strata_core::{CHUNK_SIZE, ChunkCoord, IVec3, VoxelBuffer, WorldPreset};

fn main() {
    let r: i32 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(8);
    for (name, preset) in [("format1_default", WorldPreset::format1_default()), ("default", WorldPreset::default())] {
        let g = Generator::new(&preset).expect("preset");
        let mut coords = Vec::new();
        for cx in -r..r {
            for cz in -r..r {
                let mid = CHUNK_SIZE / 2;
                let s = g.surface_height(cx * CHUNK_SIZE + mid, cz * CHUNK_SIZE + mid).div_euclid(CHUNK_SIZE);
                coords.extend((-1..=1).map(|dy| ChunkCoord::new(cx, s + dy, cz)));
            }
        }
        let (mut padded, mut scratch) = (VoxelBuffer::new(IVec3::ZERO, IVec3::ONE), GenScratch::default());
        let (mut mesher, mut mesh, mut faces) = (Mesher::new(), ChunkMesh::default(), Vec::new());
        let (mut collision, mut render) = (Vec::new(), 0usize);
        let t = Instant::now();
        for &c in &coords {
            g.generate_padded_chunk_with(c, &mut padded, &mut scratch);
            mesher.mesh(&padded, &mut mesh);
            render += mesh.opaque.indices.len() / 3;
            faces.clear();
            mesher.collision_faces(&padded, &mut faces);
            if !faces.is_empty() {
                collision.push(faces.len() / 3);
            }
        }
        let us = t.elapsed().as_secs_f64() * 1e6 / coords.len() as f64;
        collision.sort_unstable();
        let n = collision.len().max(1);
        let q = |f: f64| collision.get(((n - 1) as f64 * f) as usize).copied().unwrap_or(0);
        println!(
            "{name:16} chunks={} with_collision={} collision_tris mean={:.0} median={} p90={} max={} \
             render_opaque_tris mean={:.0} gen+mesh+collision {us:.1} us/chunk",
            coords.len(),
            collision.len(),
            collision.iter().sum::<usize>() as f64 / n as f64,
            q(0.5),
            q(0.9),
            q(1.0),
            render as f64 / coords.len() as f64,
        );
    }
}
