//! End-to-end determinism of the streaming pipeline: generation + meshing through real worker
//! threads give the same meshes whatever the number of workers or the order of requests.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use strata_core::gen3d::pipeline::Generator;
use strata_core::mesh::{ChunkMesh, Mesher};
use strata_core::stream::streamer::{StreamConfig, StreamKey, StreamResult, Streamer};
use strata_core::{ChunkCoord, IVec3, VoxelBuffer, WorldPreset};

fn mesh_hash(m: &ChunkMesh) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bits: u32| {
        for b in bits.to_le_bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    for s in [&m.opaque, &m.liquid] {
        s.positions.iter().flatten().for_each(|f| eat(f.to_bits()));
        s.directions.iter().for_each(|&d| eat(d as u32));
        s.colors.iter().for_each(|&c| eat(u32::from_le_bytes(c)));
        s.indices.iter().for_each(|&i| eat(i as u32));
    }
    h
}

/// Streams a view around `viewer` (near chunks only) and returns every chunk's mesh hash.
fn stream_all(workers: usize, viewer: [f64; 3]) -> BTreeMap<ChunkCoord, u64> {
    stream_view(workers, viewer, 0)
        .into_iter()
        .filter_map(|(k, h)| match k {
            StreamKey::Near(c) => Some((c, h)),
            StreamKey::Far(_) => None,
        })
        .collect()
}

/// Streams the near field and `lod_levels` far levels around `viewer` until both are complete.
fn stream_view(workers: usize, viewer: [f64; 3], lod_levels: u8) -> BTreeMap<StreamKey, u64> {
    let g = Arc::new(Generator::new(&WorldPreset::default()).unwrap());
    let mut s = Streamer::new(
        g,
        StreamConfig {
            view_distance: 3,
            vertical_view_distance: 1,
            worker_threads: workers,
            lod_levels,
            ..Default::default()
        },
    )
    .unwrap();
    s.set_viewer(viewer);
    let start = Instant::now();
    let mut out = BTreeMap::new();
    while !s.is_view_complete() {
        assert!(start.elapsed() < Duration::from_secs(120), "never ready");
        s.pump();
        match s.try_recv() {
            Some(StreamResult::Near(r)) => {
                out.insert(StreamKey::Near(r.coord), mesh_hash(&r.mesh));
            }
            Some(StreamResult::Far(r)) => {
                let mut h = mesh_hash(&r.far.mesh);
                h ^= (r.far.origin.y as i64 as u64).rotate_left(17);
                out.insert(StreamKey::Far(r.far.column), h);
            }
            None => std::thread::sleep(Duration::from_millis(1)),
        }
    }
    out
}

#[test]
fn streamed_meshes_do_not_depend_on_worker_count() {
    let one = stream_all(1, [5.0, 10.0, -7.0]);
    let four = stream_all(4, [5.0, 10.0, -7.0]);
    assert_eq!(one.len(), 29 * 3);
    assert_eq!(one, four);
    assert!(one.values().filter(|&&h| h != mesh_hash(&ChunkMesh::default())).count() > 10, "terrain was meshed");
}

#[test]
fn the_far_view_does_not_depend_on_worker_count_or_history() {
    let one = stream_view(1, [5.0, 10.0, -7.0], 2);
    let three = stream_view(3, [5.0, 10.0, -7.0], 2);
    assert_eq!(one, three);
    let far = one.keys().filter(|k| matches!(k, StreamKey::Far(_))).count();
    assert!(far > 20, "{far} far columns");
    // A far column built alone equals the streamed one.
    let g = Generator::new(&WorldPreset::default()).unwrap();
    let (&key, &hash) =
        one.iter().find(|(k, _)| matches!(k, StreamKey::Far(f) if f.level == 2)).expect("a level-2 column");
    let StreamKey::Far(col) = key else { unreachable!() };
    let mut alone = strata_core::stream::far_mesh::FarMesh::default();
    strata_core::stream::far_mesh::build_far_column(
        &g,
        col,
        &mut strata_core::stream::far_mesh::FarScratch::default(),
        &mut alone,
    );
    assert_eq!(mesh_hash(&alone.mesh) ^ (alone.origin.y as i64 as u64).rotate_left(17), hash);
}

#[test]
fn a_chunk_meshed_alone_equals_the_streamed_one_whatever_came_before() {
    // Stream around a far place first, then near the origin: chunk (1, 0, 1) must match a mesh
    // made on this thread from nothing.
    let streamed = stream_all(2, [33.0, 0.0, 40.0]);
    let g = Generator::new(&WorldPreset::default()).unwrap();
    let c = ChunkCoord::new(1, 0, 1);
    let mut padded = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
    g.generate_padded_chunk(c, &mut padded);
    let mut m = ChunkMesh::default();
    Mesher::new().mesh(&padded, &mut m);
    assert_eq!(streamed[&c], mesh_hash(&m));
}

#[test]
fn padded_chunk_equals_the_same_box_cut_from_a_larger_region() {
    let g = Generator::new(&WorldPreset::default()).unwrap();
    let c = ChunkCoord::new(-1, 0, 2);
    let mut padded = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
    g.generate_padded_chunk(c, &mut padded);
    let big = g.generate_box(c.min_voxel() - IVec3::splat(20), IVec3::splat(72));
    assert_eq!(padded, big.sub_buffer(padded.min(), padded.size()));
}
