//! Generated chunks kept for the workers' light boxes: a chunk's light reads its 62³ box (the
//! chunk and 15 voxels of each neighbour, [`crate::light::LIGHT_MARGIN`]) and the columns above
//! it, so without a cache every lit chunk would generate 6× its own volume. With it, each chunk
//! of the world is generated about once however many boxes it falls into, and relighting after
//! an edit copies voxels instead of generating them.
//!
//! Entries are the generator's voxels of one 32³ chunk, edits *not* applied (edits are applied
//! on top by the job that reads them, from its own snapshot), so an entry never goes stale: it
//! is a pure function of the generator (law: Deterministic). A chunk of one block (sky, solid
//! rock) is stored as that block alone; any other chunk as indices into its own palette of
//! blocks, 1, 2, 4 or 8 bits a voxel (a surface chunk of up to 16 kinds of block takes 16 KiB
//! instead of the 64 KiB of its `u16` voxels), raw only past 256 kinds. The cache is shared by
//! the workers (a mutex held only to look up and insert; generation and packing run outside it)
//! and bounded: past its byte budget the least recently used entries go first (a walk comes
//! back to the chunks it passed, so recency keeps more of them than insertion order: see
//! `docs/perf.md`, "Occluder pages and a least-recently-used voxel cache").
//!
//! May use: `base`, `gen3d`.

use crate::base::block::{AIR, BlockId};
use crate::base::chunk::VoxelBuffer;
use crate::base::coords::{CHUNK_SIZE, ChunkCoord, IVec3};
use crate::gen3d::pipeline::Generator;
use crate::gen3d::scratch::GenScratch;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Voxels in a chunk.
const VOXELS: usize = (CHUNK_SIZE * CHUNK_SIZE * CHUNK_SIZE) as usize;
/// Bytes of one raw (unpacked) entry's voxels.
const DENSE_BYTES: usize = VOXELS * size_of::<BlockId>();
/// Bytes of a packed entry of up to 16 kinds of block (4 bits a voxel), the common surface or
/// cave chunk.
const NIBBLE_BYTES: usize = VOXELS / 2;
/// What an entry costs besides its voxels (map slot, queue slot, `Arc`, palette), as counted.
const ENTRY_OVERHEAD: usize = 64;

/// The default budget, 12 MiB: 768 chunks of up to 16 kinds of block each, any number of
/// uniform ones within it. With the least recently used going first it answers 95.2 % of the
/// lookups of the 20,000-step walk at view distance 8 (16 MiB: 96.9 %, or 96.1 % with the
/// oldest inserted going first; `docs/perf.md`).
pub const DEFAULT_CACHE_BYTES: usize = 768 * NIBBLE_BYTES;

/// The generator's voxels of one chunk.
#[derive(Debug, PartialEq, Eq)]
pub enum ChunkVoxels {
    /// Every voxel is this block.
    Uniform(BlockId),
    /// Indices into `palette`, `bits` (1, 2, 4 or 8) a voxel, low bits first within a byte;
    /// voxels x fastest, then z, then y, 32³.
    Packed { bits: u8, palette: Box<[BlockId]>, data: Box<[u8]> },
    /// More than 256 kinds of block: the voxels as they are, in the same order.
    Dense(Box<[BlockId]>),
}

impl ChunkVoxels {
    /// A chunk's voxels (x fastest, then z, then y, 32³) in the smallest form that holds them.
    pub fn pack(voxels: &[BlockId]) -> Self {
        debug_assert_eq!(voxels.len(), VOXELS);
        let Some(&first) = voxels.first() else { return ChunkVoxels::Uniform(AIR) };
        // Palette indices, one byte a voxel first; runs of one block are long, so the last
        // block seen is checked before the palette.
        let mut palette: Vec<BlockId> = vec![first];
        let mut indices = Vec::with_capacity(voxels.len());
        let (mut last, mut last_index) = (first, 0u8);
        for &v in voxels {
            if v != last {
                last_index = match palette.iter().position(|&p| p == v) {
                    Some(i) => i as u8,
                    None if palette.len() < 256 => {
                        palette.push(v);
                        (palette.len() - 1) as u8
                    }
                    None => return ChunkVoxels::Dense(voxels.into()),
                };
                last = v;
            }
            indices.push(last_index);
        }
        let bits: u8 = match palette.len() {
            1 => return ChunkVoxels::Uniform(first),
            2 => 1,
            3..=4 => 2,
            5..=16 => 4,
            _ => 8,
        };
        let per_byte = 8 / bits as usize;
        let data: Box<[u8]> = indices
            .chunks(per_byte)
            .map(|group| group.iter().enumerate().fold(0u8, |b, (i, &x)| b | (x << (i * bits as usize))))
            .collect();
        ChunkVoxels::Packed { bits, palette: palette.into(), data }
    }

    fn bytes(&self) -> usize {
        ENTRY_OVERHEAD
            + match self {
                ChunkVoxels::Uniform(_) => 0,
                ChunkVoxels::Packed { palette, data, .. } => data.len() + palette.len() * size_of::<BlockId>(),
                ChunkVoxels::Dense(d) => d.len() * size_of::<BlockId>(),
            }
    }

    /// The block at chunk-local `l` (each component in `0..32`).
    #[inline]
    pub fn get_local(&self, l: IVec3) -> BlockId {
        let i = ((l.y * CHUNK_SIZE + l.z) * CHUNK_SIZE + l.x) as usize;
        match self {
            ChunkVoxels::Uniform(id) => *id,
            ChunkVoxels::Packed { bits, palette, data } => {
                let (bits, per_byte) = (*bits as usize, 8 / *bits as usize);
                let index = (data[i / per_byte] >> ((i % per_byte) * bits)) & ((1u16 << bits) - 1) as u8;
                palette[index as usize]
            }
            ChunkVoxels::Dense(d) => d[i],
        }
    }

    /// Writes the voxels from index `from` on (x fastest, then z, then y) into `out`, one per
    /// slot.
    #[inline]
    fn read_row(&self, from: usize, out: &mut [BlockId]) {
        match self {
            ChunkVoxels::Uniform(id) => out.fill(*id),
            ChunkVoxels::Packed { bits, palette, data } => match bits {
                1 => unpack_row::<1>(data, palette, from, out),
                2 => unpack_row::<2>(data, palette, from, out),
                4 => unpack_row::<4>(data, palette, from, out),
                _ => unpack_row::<8>(data, palette, from, out),
            },
            ChunkVoxels::Dense(d) => out.copy_from_slice(&d[from..from + out.len()]),
        }
    }
}

/// Voxels `from..from + out.len()` of packed `data` (`BITS` a voxel) through `palette`.
#[inline]
fn unpack_row<const BITS: usize>(data: &[u8], palette: &[BlockId], from: usize, out: &mut [BlockId]) {
    let per_byte = 8 / BITS;
    let mask = ((1u16 << BITS) - 1) as u8;
    for (k, o) in out.iter_mut().enumerate() {
        let i = from + k;
        let index = (data[i / per_byte] >> ((i % per_byte) * BITS)) & mask;
        *o = palette[index as usize];
    }
}

#[derive(Default)]
struct Entries {
    /// Each entry and the stamp of its last use.
    map: HashMap<ChunkCoord, (Arc<ChunkVoxels>, u64)>,
    /// Uses, oldest first, for eviction: `(chunk, stamp)`; a use whose stamp is no longer its
    /// entry's was followed by a later one and is skipped.
    uses: VecDeque<(ChunkCoord, u64)>,
    next_stamp: u64,
    bytes: usize,
}

impl Entries {
    /// Entry `c`, marked as used now.
    fn use_entry(&mut self, c: ChunkCoord) -> Option<Arc<ChunkVoxels>> {
        let stamp = self.next_stamp;
        let (voxels, last) = self.map.get_mut(&c)?;
        *last = stamp;
        let voxels = voxels.clone();
        self.next_stamp += 1;
        self.uses.push_back((c, stamp));
        // Stale uses pile up with the hits: drop them once they outnumber the entries.
        if self.uses.len() > 4 * self.map.len() + 64 {
            let map = &self.map;
            self.uses.retain(|(c, s)| map.get(c).is_some_and(|e| e.1 == *s));
        }
        Some(voxels)
    }

    /// Keeps `voxels` as entry `c`, used now, and evicts the least recently used entries
    /// past `budget` bytes.
    fn insert(&mut self, c: ChunkCoord, voxels: Arc<ChunkVoxels>, budget: usize) {
        let stamp = self.next_stamp;
        self.next_stamp += 1;
        self.bytes += voxels.bytes();
        if let Some((old, _)) = self.map.insert(c, (voxels, stamp)) {
            self.bytes -= old.bytes();
        }
        self.uses.push_back((c, stamp));
        while self.bytes > budget {
            let Some((old, s)) = self.uses.pop_front() else { break };
            if self.map.get(&old).is_some_and(|e| e.1 == s)
                && let Some((v, _)) = self.map.remove(&old)
            {
                self.bytes -= v.bytes();
            }
        }
    }
}

/// The shared cache (see the module doc).
pub struct VoxelCache {
    entries: Mutex<Entries>,
    budget_bytes: usize,
    /// Workers' lookups that found their chunk / generated it.
    hits: AtomicU64,
    misses: AtomicU64,
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
        Self {
            entries: Mutex::new(Entries::default()),
            budget_bytes: budget_bytes.max(DENSE_BYTES + ENTRY_OVERHEAD),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    /// The workers' lookups since the cache was made: `(hits, misses)` (a miss generates the
    /// chunk).
    pub fn lookups(&self) -> (u64, u64) {
        (self.hits.load(Ordering::Relaxed), self.misses.load(Ordering::Relaxed))
    }

    /// Entries held and the bytes they count for.
    pub fn usage(&self) -> (usize, usize) {
        let e = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        (e.map.len(), e.bytes)
    }

    /// The generator's voxels of chunk `c` when the cache holds them; never generates, so a
    /// caller on the main thread only waits for the lookup.
    pub fn cached(&self, c: ChunkCoord) -> Option<Arc<ChunkVoxels>> {
        self.entries.lock().unwrap_or_else(|p| p.into_inner()).use_entry(c)
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
        if let Some(v) = self.entries.lock().unwrap_or_else(|p| p.into_inner()).use_entry(c) {
            self.hits.fetch_add(1, Ordering::Relaxed);
            return v;
        }
        self.misses.fetch_add(1, Ordering::Relaxed);
        let voxels = Arc::new(if !c.in_world() || generator.chunk_is_sky(c) {
            ChunkVoxels::Uniform(AIR)
        } else {
            buffer.reset(c.min_voxel(), IVec3::splat(CHUNK_SIZE));
            generator.generate_region_with(buffer, scratch);
            ChunkVoxels::pack(buffer.data())
        });
        let mut e = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(v) = e.use_entry(c) {
            // Another worker made it meanwhile: the same voxels (a pure function of `c`).
            return v;
        }
        e.insert(c, voxels.clone(), self.budget_bytes);
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
                            let l = IVec3::new(lo.x, y, z) - base;
                            let from = ((l.y * CHUNK_SIZE + l.z) * CHUNK_SIZE + l.x) as usize;
                            voxels.read_row(from, &mut out.data_mut()[at..at + n]);
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

    /// Chunks of 1, 2, 3, 5, 17 and 300 kinds of block: each packs into the smallest form that
    /// holds it and gives back every voxel, one at a time and row by row.
    #[test]
    fn packed_chunks_give_back_every_voxel() {
        for (kinds, bytes) in
            [(1, 0), (2, VOXELS / 8), (3, VOXELS / 4), (5, VOXELS / 2), (17, VOXELS), (300, DENSE_BYTES)]
        {
            // Scrambled so that runs and byte boundaries fall everywhere.
            let voxels: Vec<BlockId> = (0..VOXELS).map(|i| ((i * 7919 + i / 3) % kinds) as BlockId + 1).collect();
            let packed = ChunkVoxels::pack(&voxels);
            let stored = match &packed {
                ChunkVoxels::Uniform(id) => {
                    assert_eq!(*id, 1);
                    0
                }
                ChunkVoxels::Packed { data, palette, .. } => {
                    assert_eq!(palette.len(), kinds);
                    data.len()
                }
                ChunkVoxels::Dense(d) => d.len() * 2,
            };
            assert_eq!(stored, bytes, "{kinds} kinds");
            for (i, &v) in voxels.iter().enumerate() {
                let c = CHUNK_SIZE as usize;
                let l = IVec3::new((i % c) as i32, (i / (c * c)) as i32, (i / c % c) as i32);
                assert_eq!(packed.get_local(l), v, "{kinds} kinds, voxel {i}");
            }
            for (from, n) in [(0, 32), (1, 31), (3, 17), (VOXELS - 5, 5), (1000, 1)] {
                let mut row = vec![0; n];
                packed.read_row(from, &mut row);
                assert_eq!(row, voxels[from..from + n], "{kinds} kinds, row at {from}");
            }
        }
    }

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

    /// Past its budget the cache lets go of the chunk used longest ago, not the one inserted
    /// first: a chunk looked up again stays; the bytes always match the entries kept, however
    /// many stale uses were dropped along the way.
    #[test]
    fn the_least_recently_used_chunk_goes_first() {
        let g = Generator::new(&WorldPreset::default()).unwrap();
        let budget = DENSE_BYTES + ENTRY_OVERHEAD;
        let cache = VoxelCache::new(budget);
        let (mut buffer, mut scratch) = (VoxelBuffer::new(IVec3::ZERO, IVec3::ONE), GenScratch::default());
        // Chunks beyond the world's bounds: uniform air, `ENTRY_OVERHEAD` bytes each.
        let beyond = |i: i32| ChunkCoord::new(i, 1 << 20, 0);
        let fits = (budget / ENTRY_OVERHEAD) as i32;
        for i in 0..fits {
            cache.chunk(&g, beyond(i), &mut buffer, &mut scratch);
        }
        assert_eq!(cache.usage(), (fits as usize, fits as usize * ENTRY_OVERHEAD));
        // Chunk 0 used again, many times (stale uses pile up and are dropped).
        for _ in 0..10 * fits {
            assert!(cache.cached(beyond(0)).is_some());
        }
        cache.chunk(&g, beyond(fits), &mut buffer, &mut scratch);
        assert!(cache.cached(beyond(0)).is_some(), "the chunk used last stays");
        assert!(cache.cached(beyond(1)).is_none(), "the chunk used longest ago went");
        assert!(cache.cached(beyond(fits)).is_some());
        for i in fits + 1..3 * fits {
            cache.chunk(&g, beyond(i), &mut buffer, &mut scratch);
        }
        let (entries, bytes) = cache.usage();
        assert_eq!((entries, bytes), (fits as usize, fits as usize * ENTRY_OVERHEAD));
        assert_eq!(cache.lookups(), (0, 3 * fits as u64), "every chunk generated once");
        let e = cache.entries.lock().unwrap();
        assert!(e.uses.len() <= 4 * e.map.len() + 64 + 1, "{} uses kept", e.uses.len());
    }
}
