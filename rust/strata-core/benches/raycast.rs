//! A raycast of 64 voxels, as `ChunkWorld.raycast` casts it on the main thread: the exact
//! Amanatides–Woo walk (`base::raycast`) reading voxels through `query::WorldVoxels` (edits, then
//! the workers' voxel cache, then the generator). Rays start above the ground at the benches'
//! four surface chunks and point down into it at eight headings; each walk stops at its 64th
//! voxel (the hit test counts), so every sample walks exactly 64 voxels of the real world.
//!
//! - `cached`: the chunks are in the workers' cache, as around a player in a streamed world (a
//!   few hundred edits near the rays are looked up first).
//! - `generated` (baseline): no cache, every voxel generated on its own, as a ray into unloaded
//!   space is.
//! - `flat_array` (floor): the same walk over a plain array of the same voxels, no edits, no
//!   cache lookup: what the walk itself costs.
//!
//! Run: `cargo bench -p strata-core --bench raycast`.

mod common;

use std::cell::Cell;
use std::hint::black_box;
use std::sync::LazyLock;
use strata_core::base::block::BlockId;
use strata_core::base::chunk::VoxelBuffer;
use strata_core::base::edits::EditMap;
use strata_core::base::raycast::raycast;
use strata_core::gen3d::pipeline::Generator;
use strata_core::gen3d::scratch::GenScratch;
use strata_core::stream::query::WorldVoxels;
use strata_core::stream::voxel_cache::VoxelCache;
use strata_core::{ChunkCoord, IVec3};

/// Voxels each ray walks.
const RAY_VOXELS: u32 = 64;

static GENERATOR: LazyLock<Generator> = LazyLock::new(common::generator);

/// Per ray: origin and direction.
static RAYS: LazyLock<Vec<([f64; 3], [f64; 3])>> = LazyLock::new(|| {
    let mut rays = Vec::new();
    for &(cx, cz) in &common::CHUNK_COLUMNS {
        let (x, z) = (cx * 32 + 16, cz * 32 + 16);
        let ground = GENERATOR.surface_height(x, z);
        for k in 0..8 {
            let a = k as f64 * std::f64::consts::TAU / 8.0 + 0.3;
            rays.push(([x as f64 + 0.5, ground as f64 + 6.7, z as f64 + 0.5], [a.cos(), -0.45, a.sin()]));
        }
    }
    rays
});

/// The cache holding every chunk the rays pass through (and their neighbours).
static CACHE: LazyLock<VoxelCache> = LazyLock::new(|| {
    let cache = VoxelCache::new(usize::MAX / 2);
    let (mut buffer, mut scratch) = (VoxelBuffer::new(IVec3::ZERO, IVec3::ONE), GenScratch::default());
    for &(o, _) in RAYS.iter() {
        let c = ChunkCoord::containing(IVec3::new(o[0] as i32, o[1] as i32, o[2] as i32));
        for dy in -3..=1 {
            for dz in -2..=2 {
                for dx in -2..=2 {
                    cache.chunk(&GENERATOR, ChunkCoord::new(c.x + dx, c.y + dy, c.z + dz), &mut buffer, &mut scratch);
                }
            }
        }
    }
    cache
});

/// Edits around the rays' origins: a player's dug holes and placed blocks.
static EDITS: LazyLock<EditMap> = LazyLock::new(|| {
    let mut edits = EditMap::default();
    for &(o, _) in RAYS.iter().step_by(8) {
        for i in 0..64 {
            let p = IVec3::new(o[0] as i32 + i % 8 - 12, o[1] as i32 - 10 + i / 8, o[2] as i32 + 12);
            edits.set(p, 1);
        }
    }
    edits
});

fn main() {
    divan::main();
}

/// Walks `ray` through `voxel_at` until its 64th voxel; returns the last voxel's block.
fn walk(voxel_at: impl FnMut(IVec3) -> BlockId, (origin, dir): ([f64; 3], [f64; 3])) -> BlockId {
    let seen = Cell::new(0u32);
    let hit = raycast(
        voxel_at,
        |_| {
            seen.set(seen.get() + 1);
            seen.get() == RAY_VOXELS
        },
        origin,
        dir,
        512.0,
    );
    hit.ok().flatten().map(|h| h.block).expect("the walk reaches its 64th voxel")
}

#[divan::bench(sample_count = 200)]
fn cached(bencher: divan::Bencher) {
    let (cache, edits) = (&*CACHE, &*EDITS);
    bencher.counter(divan::counter::ItemsCount::new(RAYS.len())).bench(|| {
        for &ray in RAYS.iter() {
            let mut voxels = WorldVoxels::new(&GENERATOR, Some(edits), Some(cache));
            black_box(walk(|p| voxels.get(p), black_box(ray)));
        }
    });
}

#[divan::bench(sample_count = 20)]
fn generated(bencher: divan::Bencher) {
    let edits = &*EDITS;
    bencher.counter(divan::counter::ItemsCount::new(RAYS.len())).bench(|| {
        for &ray in RAYS.iter() {
            let mut voxels = WorldVoxels::new(&GENERATOR, Some(edits), None);
            black_box(walk(|p| voxels.get(p), black_box(ray)));
        }
    });
}

#[divan::bench(sample_count = 200)]
fn flat_array(bencher: divan::Bencher) {
    // Each ray's 64 voxels stay within 64 of its origin: one 129³ box per ray would be large, so
    // the box spans the ray's own bounds.
    let boxes: Vec<VoxelBuffer> = RAYS
        .iter()
        .map(|&(o, d)| {
            let end = [o[0] + d[0] * 64.0, o[1] + d[1] * 64.0, o[2] + d[2] * 64.0];
            let lo = IVec3::new(o[0].min(end[0]) as i32 - 2, o[1].min(end[1]) as i32 - 2, o[2].min(end[2]) as i32 - 2);
            let hi = IVec3::new(o[0].max(end[0]) as i32 + 2, o[1].max(end[1]) as i32 + 2, o[2].max(end[2]) as i32 + 2);
            let mut b = VoxelBuffer::new(lo, hi - lo + IVec3::ONE);
            let mut voxels = WorldVoxels::new(&GENERATOR, None, Some(&CACHE));
            for y in lo.y..=hi.y {
                for z in lo.z..=hi.z {
                    for x in lo.x..=hi.x {
                        let p = IVec3::new(x, y, z);
                        b.set(p, voxels.get(p));
                    }
                }
            }
            b
        })
        .collect();
    bencher.counter(divan::counter::ItemsCount::new(RAYS.len())).bench(|| {
        for (&ray, b) in RAYS.iter().zip(&boxes) {
            black_box(walk(|p| b.get(p).unwrap_or(0), black_box(ray)));
        }
    });
}
