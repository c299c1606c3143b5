//! The world's bounds (`WORLD_LIMIT_CHUNKS`): chunks at the limit on every axis generate and mesh
//! without a panic or wrapped coordinates; chunks beyond it, up to `i32::MIN`/`i32::MAX`, are air.

use strata_core::base::chunk::VoxelBuffer;
use strata_core::base::coords::{CHUNK_SIZE, ChunkCoord, IVec3, WORLD_LIMIT_CHUNKS};
use strata_core::gen3d::columns::ColumnGrid;
use strata_core::gen3d::pipeline::Generator;
use strata_core::gen3d::scratch::GenScratch;
use strata_core::mesh::{ChunkMesh, Mesher, mesh_padded_chunk_culled};
use strata_core::preset::model::WorldPreset;

const L: i32 = WORLD_LIMIT_CHUNKS;

#[test]
fn chunks_at_and_beyond_the_world_limit_generate_and_mesh() {
    let g = Generator::new(&WorldPreset::default()).unwrap();
    let mut padded = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
    let mut sky = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
    let (mut columns, mut scratch) = (ColumnGrid::default(), GenScratch::default());
    let mut mesher = Mesher::new();
    let mut out = ChunkMesh::default();
    // Surface chunks at the limit (y near 0) have terrain; chunks at the vertical limit are sky.
    let inside = [
        (L, 0, 0),
        (-L, 0, 0),
        (0, 0, L),
        (0, 0, -L),
        (L, 0, -L),
        (-L, 0, L),
        (0, L, 0),
        (0, -L, 0),
        (L, L, L),
        (-L, -L, -L),
    ];
    let mut solid = 0;
    for (x, y, z) in inside {
        let c = ChunkCoord::new(x, y, z);
        assert!(c.in_world());
        g.generate_padded_chunk(c, &mut padded);
        assert_eq!(padded.min(), c.min_voxel() - IVec3::ONE, "{c:?}");
        assert_eq!(padded.size(), IVec3::splat(CHUNK_SIZE + 2));
        mesher.mesh(&padded, &mut out);
        solid += !out.is_empty() as usize;
        mesh_padded_chunk_culled(&padded, &mut out);
        let is_sky = g.generate_padded_chunk_unless_sky(c, &mut sky, &mut columns, &mut scratch);
        if !is_sky {
            assert!(sky == padded, "{c:?}");
        }
    }
    assert!(solid >= 4, "the surface chunks at the limit have terrain ({solid})");
    for v in [L + 1, -L - 1, 67_108_863, -67_108_864, i32::MAX, i32::MIN] {
        for c in
            [ChunkCoord::new(v, 0, 0), ChunkCoord::new(0, v, 0), ChunkCoord::new(0, 0, v), ChunkCoord::new(v, v, v)]
        {
            assert!(!c.in_world());
            g.generate_padded_chunk(c, &mut padded);
            assert_eq!(padded.min(), c.clamped_to_world().min_voxel() - IVec3::ONE, "{c:?}");
            mesher.mesh(&padded, &mut out);
            assert!(out.is_empty(), "{c:?} is beyond the world: air");
            mesh_padded_chunk_culled(&padded, &mut out);
            assert!(out.is_empty());
            assert!(g.generate_padded_chunk_unless_sky(c, &mut sky, &mut columns, &mut scratch));
        }
    }
}

#[test]
fn boxes_reaching_past_the_world_bounds_are_air_there_and_never_wrap() {
    use strata_core::base::block::AIR;
    use strata_core::base::coords::WORLD_LIMIT_VOXELS as LV;
    let g = Generator::new(&WorldPreset::default()).unwrap();
    // Straddling the limit on x (at the surface), on z, and with a far corner past i32::MAX.
    let boxes = [
        (IVec3::new(LV - 6, -20, 5), IVec3::new(12, 40, 4)),
        (IVec3::new(-LV - 6, -20, 5), IVec3::new(12, 40, 4)),
        (IVec3::new(3, -20, LV - 3), IVec3::new(4, 40, 8)),
        (IVec3::new(i32::MAX - 4, -20, 0), IVec3::new(8, 40, 2)),
        (IVec3::new(i32::MAX - 2, i32::MAX - 2, i32::MAX - 2), IVec3::splat(4)),
        (IVec3::new(i32::MIN, i32::MIN, i32::MIN), IVec3::splat(3)),
    ];
    for (min, size) in boxes {
        let b = g.generate_box(min, size);
        for y in 0..size.y {
            for z in 0..size.z {
                for x in 0..size.x {
                    let l = IVec3::new(x, y, z);
                    let p = IVec3::new(
                        (min.x as i64 + x as i64) as i32,
                        (min.y as i64 + y as i64) as i32,
                        (min.z as i64 + z as i64) as i32,
                    );
                    let wraps = [(min.x, x), (min.y, y), (min.z, z)].iter().any(|&(m, d)| m.checked_add(d).is_none());
                    let v = b.get_local(l);
                    if wraps || !strata_core::base::coords::voxel_in_world(p) {
                        assert_eq!(v, AIR, "{p:?} beyond the bounds is air");
                    } else {
                        assert_eq!(v, g.voxel_at(p), "{p:?} inside equals the single-voxel query");
                    }
                }
            }
        }
    }
    // The halo of a padded chunk at the limit is air past it, whichever path made it.
    let c = ChunkCoord::new(L, 0, 0);
    let mut padded = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
    g.generate_padded_chunk(c, &mut padded);
    let mut other = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
    let (mut columns, mut scratch) = (ColumnGrid::default(), GenScratch::default());
    if !g.generate_padded_chunk_unless_sky(c, &mut other, &mut columns, &mut scratch) {
        assert!(other == padded);
    }
    for y in 0..CHUNK_SIZE + 2 {
        for z in 0..CHUNK_SIZE + 2 {
            assert_eq!(padded.get_local(IVec3::new(CHUNK_SIZE + 1, y, z)), AIR);
        }
    }
}
