//! Generated chunks kept for the workers' light boxes: a chunk's light reads its 62³ box (the
//! chunk and 15 voxels of each neighbour, [`crate::light::LIGHT_MARGIN`]) and the columns above
//! it, so without a cache every lit chunk would generate 6× its own volume. With it, each chunk
//! of the world is generated about once however many boxes it falls into, and relighting after
//! an edit copies voxels instead of generating them.
//!
//! Entries are the generator's voxels of one 32³ chunk, edits *not* applied (edits are applied
//! on top by the job that reads them, from its own snapshot), so an entry never goes stale: it
//! is a pure function of the generator (law: Deterministic). A chunk of one block (sky, solid
//! rock) is stored as that block alone. The cache is shared by the workers (a mutex held only to
//! look up and insert; generation runs outside it) and bounded: past its byte budget the oldest
//! entries go first.
//!
//! May use: `base`, `gen3d`.

use crate::base::block::{AIR, BlockId};
use crate::base::chunk::VoxelBuffer;
use crate::base::coords::{CHUNK_SIZE, ChunkCoord, IVec3};
use crate::gen3d::pipeline::Generator;
use crate::gen3d::scratch::GenScratch;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

/// Bytes of one dense entry's voxels.
const DENSE_BYTES: usize = (CHUNK_SIZE * CHUNK_SIZE * CHUNK_SIZE) as usize * size_of::<BlockId>();
/// What an entry costs besides its voxels (map slot, queue slot, `Arc`), as counted.
const ENTRY_OVERHEAD: usize = 64;

/// The default budget: 1,024 dense chunks (64 MiB), any number of uniform ones within it.
pub const DEFAULT_CACHE_BYTES: usize = 1024 * DENSE_BYTES;

/// The generator's voxels of one chunk.
#[derive(Debug, PartialEq, Eq)]
pub enum ChunkVoxels {
    /// Every voxel is this block.
    Uniform(BlockId),
    /// x fastest, then z, then y, 32³.
    Dense(Box<[BlockId]>),
}

impl ChunkVoxels {
    fn bytes(&self) -> usize {
        ENTRY_OVERHEAD + if matches!(self, ChunkVoxels::Dense(_)) { DENSE_BYTES } else { 0 }
    }

    /// The block at chunk-local `l` (each component in `0..32`).
    #[inline]
    pub fn get_local(&self, l: IVec3) -> BlockId {
        match self {
            ChunkVoxels::Uniform(id) => *id,
            ChunkVoxels::Dense(d) => d[((l.y * CHUNK_SIZE + l.z) * CHUNK_SIZE + l.x) as usize],
        }
    }
}

#[derive(Default)]
struct Entries {
    map: HashMap<ChunkCoord, Arc<ChunkVoxels>>,
    /// Insertion order, for eviction.
    order: VecDeque<ChunkCoord>,
    bytes: usize,
}

/// The shared cache (see the module doc).
pub struct VoxelCache {
    entries: Mutex<Entries>,
    budget_bytes: usize,
}

impl std::fmt::Debug for VoxelCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (n, bytes) = self.usage();
        f.debug_struct("VoxelCache").field("entries", &n).field("bytes", &bytes).finish()
    }
}

impl VoxelCache {
    /// An empty cache holding at most `budget_bytes` (at least one dense chunk).
    pub fn new(budget_bytes: usize) -> Self {
        Self { entries: Mutex::new(Entries::default()), budget_bytes: budget_bytes.max(DENSE_BYTES + ENTRY_OVERHEAD) }
    }

    /// Entries held and the bytes they count for.
    pub fn usage(&self) -> (usize, usize) {
        let e = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        (e.map.len(), e.bytes)
    }

    /// The generator's voxels of chunk `c` when the cache holds them; never generates, so a
    /// caller on the main thread only waits for the lookup.
    pub fn cached(&self, c: ChunkCoord) -> Option<Arc<ChunkVoxels>> {
        self.entries.lock().unwrap_or_else(|p| p.into_inner()).map.get(&c).cloned()
    }

    /// The generator's voxels of chunk `c`: from the cache, or generated (with `scratch`, into
    /// `buffer`) and kept.
    pub fn chunk(
        &self,
        generator: &Generator,
        c: ChunkCoord,
        buffer: &mut VoxelBuffer,
        scratch: &mut GenScratch,
    ) -> Arc<ChunkVoxels> {
        if let Some(v) = self.entries.lock().unwrap_or_else(|p| p.into_inner()).map.get(&c) {
            return v.clone();
        }
        let voxels = Arc::new(if !c.in_world() || generator.chunk_is_sky(c) {
            ChunkVoxels::Uniform(AIR)
        } else {
            buffer.reset(c.min_voxel(), IVec3::splat(CHUNK_SIZE));
            generator.generate_region_with(buffer, scratch);
            match buffer.uniform_block() {
                Some(id) => ChunkVoxels::Uniform(id),
                None => ChunkVoxels::Dense(buffer.data().into()),
            }
        });
        let mut e = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(v) = e.map.get(&c) {
            // Another worker made it meanwhile: the same voxels (a pure function of `c`).
            return v.clone();
        }
        e.bytes += voxels.bytes();
        e.map.insert(c, voxels.clone());
        e.order.push_back(c);
        while e.bytes > self.budget_bytes {
            let Some(old) = e.order.pop_front() else { break };
            if let Some(v) = e.map.remove(&old) {
                e.bytes -= v.bytes();
            }
        }
        voxels
    }

    /// Fills `out` (its own box) with the generator's voxels, chunk by chunk from the cache:
    /// the same voxels as [`Generator::generate_region_with`] gives for the box (chunks are
    /// generated whole, and a chunk's voxels do not depend on the box asking).
    pub fn fill_box(
        &self,
        generator: &Generator,
        out: &mut VoxelBuffer,
        buffer: &mut VoxelBuffer,
        scratch: &mut GenScratch,
    ) {
        let (min, size) = (out.min(), out.size());
        let max = min + size - IVec3::ONE;
        let (c0, c1) = (ChunkCoord::containing(min), ChunkCoord::containing(max));
        for cy in c0.y..=c1.y {
            for cz in c0.z..=c1.z {
                for cx in c0.x..=c1.x {
                    let c = ChunkCoord::new(cx, cy, cz);
                    let voxels = self.chunk(generator, c, buffer, scratch);
                    let base = c.min_voxel();
                    // The part of the box this chunk covers.
                    let lo = IVec3::new(min.x.max(base.x), min.y.max(base.y), min.z.max(base.z));
                    let hi = IVec3::new(
                        max.x.min(base.x + CHUNK_SIZE - 1),
                        max.y.min(base.y + CHUNK_SIZE - 1),
                        max.z.min(base.z + CHUNK_SIZE - 1),
                    );
                    let n = (hi.x - lo.x + 1) as usize;
                    for y in lo.y..=hi.y {
                        for z in lo.z..=hi.z {
                            let at = out.index_local(IVec3::new(lo.x, y, z) - min);
                            let row = &mut out.data_mut()[at..at + n];
                            match &*voxels {
                                ChunkVoxels::Uniform(id) => row.fill(*id),
                                ChunkVoxels::Dense(d) => {
                                    let l = IVec3::new(lo.x, y, z) - base;
                                    let from = ((l.y * CHUNK_SIZE + l.z) * CHUNK_SIZE + l.x) as usize;
                                    row.copy_from_slice(&d[from..from + n]);
                                }
                            }
                        }
                    }
                    debug_assert_eq!(voxels.get_local(lo - base), out.get(lo).unwrap_or(AIR));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preset::model::WorldPreset;

    #[test]
    fn boxes_from_the_cache_equal_generated_boxes_whatever_was_cached_or_evicted() {
        let g = Generator::new(&WorldPreset { seed: 99, ..WorldPreset::default() }).unwrap();
        let h = g.surface_height(5, 5);
        // A budget of three dense chunks: most entries are evicted along the way.
        let cache = VoxelCache::new(3 * DENSE_BYTES);
        let (mut buffer, mut scratch) = (VoxelBuffer::new(IVec3::ZERO, IVec3::ONE), GenScratch::default());
        for (min, size) in [
            (IVec3::new(-15, h - 40, -15), IVec3::splat(62)),
            (IVec3::new(3, h - 5, -70), IVec3::new(40, 33, 7)),
            (IVec3::new(-15, h - 40, -15), IVec3::splat(62)),
            (IVec3::new(1000, h + 200, 1000), IVec3::splat(20)),
        ] {
            let mut out = VoxelBuffer::new(min, size);
            cache.fill_box(&g, &mut out, &mut buffer, &mut scratch);
            assert_eq!(out, g.generate_box(min, size), "box at {min:?} size {size:?}");
        }
        let (entries, bytes) = cache.usage();
        assert!(bytes <= 3 * DENSE_BYTES && entries > 0, "{entries} entries, {bytes} bytes");
    }
}
