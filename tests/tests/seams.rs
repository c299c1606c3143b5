//! Seamlessness and determinism of generation with every cave mode, pockets, ores and water:
//! a chunk generated alone equals the same box cut from a 3×3×3 block; chunks come out the same
//! in any order and on 1 or 4 threads; the mesher never emits a face between two solid voxels at
//! chunk borders.

use std::collections::BTreeMap;
use strata_core::base::block::{self, BlockId};
use strata_core::base::rng::hash1;
use strata_core::gen3d::pipeline::Generator;
use strata_core::mesh::{ChunkMesh, Mesher};
use strata_core::preset::model::CaveMode;
use strata_core::{CHUNK_SIZE, ChunkCoord, IVec3, VoxelBuffer, WorldPreset};
use strata_tests::block_chunks;

/// The presets under test, named.
fn presets() -> Vec<(&'static str, WorldPreset)> {
    let base = WorldPreset::default();
    let mut v = vec![("default", base.clone())];
    let mut p = base.clone();
    p.caves.tunnel_strength = 0.0;
    p.caves.mode = CaveMode::CellularAutomata;
    v.push(("cellular automata", p));
    let mut p = base.clone();
    p.caves.mode = CaveMode::GameOfLife;
    p.caves.tunnel_strength = 0.0;
    v.push(("game of life", p));
    let mut p = base.clone();
    p.caves.mode = CaveMode::None;
    p.caves.tunnel_strength = 1.0;
    p.caves.tunnel_width = 0.1;
    p.caves.allow_surface_breach = true;
    v.push(("tunnels with breach", p));
    let mut p = base.clone();
    p.caves.cell_size = 1;
    p.caves.min_pocket_volume = 300;
    p.caves.tunnel_strength = 0.0;
    v.push(("pockets per voxel", p));
    let mut p = base.clone();
    p.caves.mode = CaveMode::None;
    p.caves.tunnel_strength = 0.0;
    for k in &mut p.ores.kinds {
        k.min_depth = 1;
        k.clusters_per_chunk_min = 20;
        k.clusters_per_chunk_max = 40;
        k.cluster_size = 24;
    }
    v.push(("dense ores", p));
    let mut p = base.clone();
    p.water.sea_level = 24;
    p.caves.min_depth = 0;
    p.caves.allow_surface_breach = true;
    p.caves.tunnel_strength = 1.0;
    p.caves.tunnel_width = 0.12;
    v.push(("high water over caves", p));
    v
}

/// The corner of a 3×3×3 block whose centre chunk (corner + 1) holds the surface at its middle.
fn corner_around_surface(g: &Generator) -> ChunkCoord {
    let s = g.surface_height(16, 48);
    ChunkCoord::new(-1, s.div_euclid(CHUNK_SIZE) - 1, 0)
}

fn block_box(g: &Generator, corner: ChunkCoord) -> VoxelBuffer {
    g.generate_box(corner.min_voxel(), IVec3::splat(3 * CHUNK_SIZE))
}

fn count(b: &VoxelBuffer, id: BlockId) -> usize {
    b.data().iter().filter(|&&v| v == id).count()
}

#[test]
fn chunks_alone_equal_the_block_they_sit_in() {
    for (name, preset) in presets() {
        let g = Generator::new(&preset).unwrap();
        let corner = corner_around_surface(&g);
        let block = block_box(&g, corner);
        // The block must exercise what the preset is about.
        let air_below = {
            let mut n = 0;
            let m = block.min();
            for z in 0..block.size().z {
                for x in 0..block.size().x {
                    let s = g.surface_height(m.x + x, m.z + z);
                    for y in 0..block.size().y {
                        if m.y + y < s && block.get_local(IVec3::new(x, y, z)) == block::AIR {
                            n += 1;
                        }
                    }
                }
            }
            n
        };
        if name != "dense ores" {
            assert!(air_below > 100, "{name}: only {air_below} cave voxels in the block");
        } else {
            assert!(count(&block, block::COAL_ORE) > 1000, "{name}: too little ore");
        }
        for c in block_chunks(corner) {
            let alone = g.generate_chunk(c);
            let cut = block.sub_buffer(c.min_voxel(), IVec3::splat(CHUNK_SIZE));
            assert!(
                alone == cut,
                "{name}: chunk {c:?} differs from the block ({} voxels)",
                alone.data().iter().zip(cut.data()).filter(|(a, b)| a != b).count()
            );
        }
        // Odd, unaligned boxes agree too.
        let odd_min = corner.min_voxel() + IVec3::new(13, 29, 40);
        let odd = g.generate_box(odd_min, IVec3::new(37, 21, 19));
        assert!(odd == block.sub_buffer(odd_min, IVec3::new(37, 21, 19)), "{name}: unaligned box differs");
    }
}

fn shuffled(mut v: Vec<ChunkCoord>, seed: u64) -> Vec<ChunkCoord> {
    for i in (1..v.len()).rev() {
        let j = (hash1(seed, 77, i as i32) % (i as u64 + 1)) as usize;
        v.swap(i, j);
    }
    v
}

fn hashes_on_threads(g: &Generator, chunks: &[ChunkCoord], threads: usize) -> BTreeMap<ChunkCoord, u64> {
    let mut out = BTreeMap::new();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || {
                    chunks
                        .iter()
                        .skip(t)
                        .step_by(threads)
                        .map(|&c| (c, g.generate_chunk(c).content_hash()))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for h in handles {
            out.extend(h.join().expect("worker panicked"));
        }
    });
    out
}

#[test]
fn any_order_and_thread_count_give_the_same_chunks() {
    let chunks: Vec<ChunkCoord> =
        block_chunks(ChunkCoord::new(3, -2, -5)).into_iter().chain(block_chunks(ChunkCoord::new(-7, -1, 2))).collect();
    for (name, preset) in presets() {
        let g = Generator::new(&preset).unwrap();
        let one = hashes_on_threads(&g, &chunks, 1);
        let four = hashes_on_threads(&g, &shuffled(chunks.clone(), 1), 4);
        let four_again = hashes_on_threads(&g, &shuffled(chunks.clone(), 2), 4);
        assert_eq!(one, four, "{name}");
        assert_eq!(one, four_again, "{name}");
        // A second generator from the same preset agrees too.
        let g2 = Generator::new(&preset).unwrap();
        assert_eq!(one, hashes_on_threads(&g2, &shuffled(chunks.clone(), 3), 1), "{name}");
    }
}

/// Checks every opaque face of chunk `c`'s mesh against `block`: solid behind, not solid in front.
fn check_faces(name: &str, g: &Generator, c: ChunkCoord, block: &VoxelBuffer) -> usize {
    let mut padded = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
    g.generate_padded_chunk(c, &mut padded);
    let mut mesh = ChunkMesh::default();
    Mesher::new().mesh(&padded, &mut mesh);
    let origin = c.min_voxel();
    let mut border_faces = 0;
    for q in 0..mesh.opaque.quad_count() {
        let corners: Vec<[f32; 3]> = (0..4).map(|k| mesh.opaque.positions[q * 4 + k]).collect();
        let n = mesh.opaque.normal(q * 4);
        let centre: Vec<f32> = (0..3).map(|a| corners.iter().map(|p| p[a]).sum::<f32>() / 4.0).collect();
        let voxel = |sign: f32| {
            IVec3::new(
                (centre[0] + sign * 0.5 * n[0]).floor() as i32,
                (centre[1] + sign * 0.5 * n[1]).floor() as i32,
                (centre[2] + sign * 0.5 * n[2]).floor() as i32,
            ) + origin
        };
        let (inside, outside) = (voxel(-1.0), voxel(1.0));
        let at = |p: IVec3| block.get(p).expect("face neighbour inside the block");
        assert!(block::is_solid(at(inside)), "{name}: face of non-solid voxel {inside:?}");
        assert!(!block::is_solid(at(outside)), "{name}: face between solids {inside:?} → {outside:?}");
        if ChunkCoord::containing(outside) != c {
            border_faces += 1;
        }
    }
    border_faces
}

#[test]
fn mesher_emits_no_face_between_solids_at_chunk_borders() {
    for (name, preset) in presets() {
        let g = Generator::new(&preset).unwrap();
        let corner = corner_around_surface(&g);
        let centre = ChunkCoord::new(corner.x + 1, corner.y + 1, corner.z + 1);
        let block = block_box(&g, corner);
        let border_faces = check_faces(name, &g, centre, &block);
        assert!(border_faces > 0, "{name}: the chunk has no faces on its border; choose a busier one");
    }
}
