//! The generation hook: user code amends every box the generator fills, last, so a hook that
//! decides each voxel from its position keeps the world seamless (a chunk made alone equals the
//! same box cut from a larger region, sky chunks included) and deterministic; a failing hook
//! leaves the box as generated and is counted and named; its cost is counted.

use std::sync::Arc;
use strata_core::base::block::{AIR, BlockId, STONE};
use strata_core::base::block_library::GLASS;
use strata_core::base::chunk::VoxelBuffer;
use strata_core::base::coords::{CHUNK_SIZE, ChunkCoord, IVec3};
use strata_core::gen3d::columns::ColumnGrid;
use strata_core::gen3d::hook::{GenerationHook, HookRunner};
use strata_core::gen3d::pipeline::Generator;
use strata_core::gen3d::scratch::GenScratch;
use strata_core::preset::model::WorldPreset;

/// Top of the hook's pillars: far above the default world's highest ground.
const PILLAR_TOP: i32 = 200;

/// Glass pillars from the ground to [`PILLAR_TOP`] on a 16-voxel grid (replacing air only), and
/// stone turned to glass on the plane x = 7 mod 32: each voxel from its position and the voxel
/// given.
fn pillars(min: IVec3, size: IVec3, voxels: &mut [BlockId]) -> Result<(), String> {
    for y in 0..size.y {
        for z in 0..size.z {
            for x in 0..size.x {
                let p = min + IVec3::new(x, y, z);
                let i = ((y * size.z + z) * size.x + x) as usize;
                let pillar = p.x.rem_euclid(16) == 3 && p.z.rem_euclid(16) == 5 && p.y < PILLAR_TOP;
                if pillar && voxels[i] == AIR || p.x.rem_euclid(32) == 7 && voxels[i] == STONE {
                    voxels[i] = GLASS;
                }
            }
        }
    }
    Ok(())
}

fn hooked(hook: impl GenerationHook + 'static) -> (Generator, Arc<HookRunner>) {
    let runner = Arc::new(HookRunner::new(hook));
    let g = Generator::new(&WorldPreset { seed: 4242, ..WorldPreset::default() })
        .expect("the default preset builds")
        .with_hook(Some(runner.clone()));
    (g, runner)
}

/// A pillar's x, in chunk x = 1.
const PILLAR_X: i32 = 3 * 16 + 3;

/// A surface chunk, the chunk above it (sky but for the pillars) and one far up (all sky).
fn chunks(g: &Generator) -> [ChunkCoord; 3] {
    let surface = g.surface_height(PILLAR_X, 5);
    let c = ChunkCoord::new(1, surface.div_euclid(CHUNK_SIZE), 0);
    [c, ChunkCoord::new(1, c.y + 2, 0), ChunkCoord::new(1, PILLAR_TOP.div_euclid(CHUNK_SIZE) + 2, 0)]
}

#[test]
fn a_chunk_amended_alone_equals_the_same_box_cut_from_a_larger_region() {
    let (g, _) = hooked(pillars);
    for c in chunks(&g) {
        let alone = g.generate_chunk(c);
        let big = g.generate_box(c.min_voxel() - IVec3::splat(CHUNK_SIZE), IVec3::splat(3 * CHUNK_SIZE));
        assert_eq!(alone, big.sub_buffer(c.min_voxel(), IVec3::splat(CHUNK_SIZE)), "chunk {c:?}");
        let mut padded = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
        g.generate_padded_chunk(c, &mut padded);
        assert_eq!(padded, big.sub_buffer(c.min_voxel() - IVec3::ONE, IVec3::splat(CHUNK_SIZE + 2)), "padded {c:?}");
    }
}

#[test]
fn the_hook_amends_what_it_says_and_nothing_else() {
    let (g, _) = hooked(pillars);
    let plain = Generator::new(&WorldPreset { seed: 4242, ..WorldPreset::default() }).expect("builds");
    let [surface, _, _] = chunks(&g);
    let amended = g.generate_chunk(surface);
    let generated = plain.generate_chunk(surface);
    let (mut glass, mut kept) = (0, 0);
    for (i, (&a, &b)) in amended.data().iter().zip(generated.data()).enumerate() {
        let l = IVec3::new(
            i as i32 % CHUNK_SIZE,
            i as i32 / (CHUNK_SIZE * CHUNK_SIZE),
            (i as i32 / CHUNK_SIZE) % CHUNK_SIZE,
        );
        let p = surface.min_voxel() + l;
        assert_eq!(g.voxel_at(p), a, "voxel_at {p:?} answers the amended world");
        let expected = {
            let mut v = [b];
            pillars(p, IVec3::ONE, &mut v).expect("the hook succeeds");
            v[0]
        };
        assert_eq!(a, expected, "voxel {p:?}");
        if a == GLASS && b != GLASS {
            glass += 1;
        } else {
            kept += 1;
        }
    }
    assert!(glass > 0 && kept > 0, "the hook changed {glass} voxels and kept {kept}");
}

#[test]
fn a_sky_chunk_the_hook_builds_in_is_not_sky_and_an_empty_one_stays_sky() {
    let (g, _) = hooked(pillars);
    let [_, above, far_up] = chunks(&g);
    let (mut padded, mut columns, mut scratch) =
        (VoxelBuffer::new(IVec3::ZERO, IVec3::ONE), ColumnGrid::default(), GenScratch::default());
    assert!(!g.chunk_is_sky(above), "the pillars rise through {above:?}");
    assert!(!g.generate_padded_chunk_unless_sky(above, &mut padded, &mut columns, &mut scratch));
    assert_eq!(padded.get(IVec3::new(PILLAR_X, above.min_voxel().y, 5)), Some(GLASS), "a pillar in the sky chunk");
    let mut whole = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
    g.generate_padded_chunk(above, &mut whole);
    assert_eq!(padded, whole, "the shortcut gives what generating gives");
    assert!(g.chunk_is_sky(far_up), "nothing reaches {far_up:?}");
    assert!(g.generate_padded_chunk_unless_sky(far_up, &mut padded, &mut columns, &mut scratch));
    assert_eq!(padded.uniform_block(), Some(AIR));
}

#[test]
fn the_same_hook_gives_the_same_voxels_whatever_the_order_and_thread() {
    let (g, _) = hooked(pillars);
    let g = Arc::new(g);
    let coords: Vec<ChunkCoord> = (0..4).flat_map(|x| (1..4).map(move |y| ChunkCoord::new(x, y, -1))).collect();
    let forward: Vec<VoxelBuffer> = coords.iter().map(|&c| g.generate_chunk(c)).collect();
    let threads: Vec<_> = coords
        .iter()
        .rev()
        .map(|&c| {
            let g = g.clone();
            std::thread::spawn(move || g.generate_chunk(c))
        })
        .collect();
    let mut backward: Vec<VoxelBuffer> = threads.into_iter().map(|t| t.join().expect("no panic")).collect();
    backward.reverse();
    assert_eq!(forward, backward);
}

#[test]
fn a_failing_hook_leaves_the_box_as_generated_and_is_counted_and_named() {
    let (g, runner) =
        hooked(
            |min: IVec3, _: IVec3, _: &mut [BlockId]| {
                if min.x >= 0 { Err("block id 9999 is not in the library (0..=22)".to_string()) } else { Ok(()) }
            },
        );
    let plain = Generator::new(&WorldPreset { seed: 4242, ..WorldPreset::default() }).expect("builds");
    let c = ChunkCoord::new(1, 1, 1);
    assert_eq!(g.generate_chunk(c), plain.generate_chunk(c));
    let stats = runner.stats();
    assert_eq!(stats.failures, 1);
    let failure = stats.last_failure.expect("the failure is kept");
    assert_eq!(failure.min, c.min_voxel());
    let message = failure.to_string();
    assert!(message.contains("9999") && message.contains("at (32, 32, 32) of size 32×32×32"), "{message}");
    g.generate_chunk(ChunkCoord::new(-1, 1, 1));
    assert_eq!(runner.stats().failures, 1, "a call that succeeds is no failure");
}

#[test]
fn the_hook_counts_its_calls_and_time_and_no_hook_costs_nothing() {
    let (g, runner) = hooked(pillars);
    for x in 0..3 {
        g.generate_chunk(ChunkCoord::new(x, 1, 0));
    }
    let stats = g.hook_stats().expect("a hook is set");
    assert_eq!(stats, runner.stats());
    assert_eq!(stats.calls, 3);
    assert!(stats.total_ms > 0.0 && stats.mean_us() > 0.0, "{stats:?}");
    let plain = Generator::new(&WorldPreset::default()).expect("builds");
    assert_eq!(plain.hook_stats(), None);
}
