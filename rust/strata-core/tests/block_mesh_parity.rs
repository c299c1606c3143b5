//! The mesher with ambient occlusion off merges faces by block alone, as block-mesh's
//! `greedy_quads` does: on the benchmark chunks it must need as many quads or fewer (the mesh
//! bench compares their speed on the same voxels).

#[path = "../benches/common/mod.rs"]
mod common;

use strata_core::mesh::{ChunkMesh, Mesher};

#[test]
fn without_ao_the_mesher_needs_no_more_quads_than_block_mesh() {
    let g = common::generator();
    let mut mesher = Mesher::new();
    mesher.set_ambient_occlusion(false);
    let mut buffer = common::new_block_mesh_buffer();
    let (mut mesh, mut ours, mut theirs) = (ChunkMesh::default(), 0, 0);
    for (c, padded) in common::padded_chunks(&g) {
        mesher.mesh(&padded, &mut mesh);
        let bm = common::block_mesh_quads(&common::to_block_mesh(&padded), &mut buffer);
        assert!(mesh.quad_count() <= bm, "chunk {c:?}: {} quads against block-mesh's {bm}", mesh.quad_count());
        ours += mesh.quad_count();
        theirs += bm;
    }
    assert!(theirs > 1000, "the chunks hold terrain: {theirs}");
    assert!(ours <= theirs);
}
