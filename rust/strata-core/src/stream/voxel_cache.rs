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
//! A chunk is generated once whoever asks first: a streamed chunk's own job hands its generated
//! voxels in ([`VoxelCache::insert_padded`]) before its neighbours' light boxes ask, and a miss
//! generates the chunk padded, as the job would (one column pass for the sky test and the voxels
//! alike), keeping the chunk inside.
//!
//! Beside the voxels the cache keeps, per chunk column, the highest ground of each 8 × 8 tile
//! ([`VoxelCache::ground_top`]): the bound above which a light box's columns are open to the sky,
//! without a column pass over the whole box. Like the voxels, a pure function of the generator.
//!
//! And per chunk column, what the light boxes found of each column's sky in the generated world
//! ([`VoxelCache::sky_known`], [`VoxelCache::note_sky`]): its exposure, or a height at or above
//! which it is clear. A deep chunk's light box then needs no voxel above it for the columns the
//! boxes above it have seen. Facts about the generated world, so again a pure function of the
//! generator, whichever box found them first.
//!
//! May use: `base`, `gen3d`.

use crate::base::block::{AIR, BlockId};
use crate::base::chunk::VoxelBuffer;
use crate::base::coords::{CHUNK_SIZE, ChunkCoord, IVec3};
use crate::gen3d::columns::ColumnGrid;
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

/// Side of the tiles whose highest ground [`VoxelCache::ground_top`] keeps, in columns.
pub const GROUND_TILE: i32 = 8;
/// Tiles along one side of a chunk column.
const GROUND_TILES: usize = (CHUNK_SIZE / GROUND_TILE) as usize;
/// The highest ground (`Column::surface`) of each tile of a chunk column, x fastest.
type GroundTiles = [i32; GROUND_TILES * GROUND_TILES];
/// Chunk columns whose ground tiles are kept (68 bytes each and the map's slot); past it the
/// map starts again empty.
const GROUND_COLUMNS: usize = 16_384;

/// Chunk columns whose sky is kept (4.1 KiB each and the map's slot, 8.4 MiB in all: the
/// columns of a view distance of 16 and their ring fit); past it the map starts again empty.
const SKY_COLUMNS: usize = 2048;
/// Columns in a chunk column.
const COLUMNS: usize = (CHUNK_SIZE * CHUNK_SIZE) as usize;

/// What is known of one column's sky in the generated world (see [`VoxelCache::sky_known`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnSky {
    /// Nothing yet.
    Unknown,
    /// Every voxel at or above this height is clear, nothing more (the exposure is at most it).
    ClearFrom(i32),
    /// The exposure: the lowest height from which the column is clear to the sky.
    Exposure(i32),
}

/// The [`ColumnSky`] of each column of a chunk column, x fastest: a height, and whether it is the
/// exposure (else a bound, `i32::MAX` for unknown).
struct ChunkColumnSky {
    heights: [i32; COLUMNS],
    exact: [u64; COLUMNS / 64],
}

impl ChunkColumnSky {
    fn get(&self, i: usize) -> ColumnSky {
        match (self.heights[i], self.exact[i / 64] >> (i % 64) & 1 != 0) {
            (h, true) => ColumnSky::Exposure(h),
            (i32::MAX, false) => ColumnSky::Unknown,
            (h, false) => ColumnSky::ClearFrom(h),
        }
    }

    /// Adds `sky` to what is known: an exposure settles the column; of two bounds the lower holds.
    fn note(&mut self, i: usize, sky: ColumnSky) {
        match (self.get(i), sky) {
            (ColumnSky::Exposure(_), _) | (_, ColumnSky::Unknown) => {}
            (_, ColumnSky::Exposure(h)) => {
                self.heights[i] = h;
                self.exact[i / 64] |= 1 << (i % 64);
            }
            (_, ColumnSky::ClearFrom(h)) => self.heights[i] = self.heights[i].min(h),
        }
    }
}

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
        let data = match bits {
            1 => pack_bits::<1>(&indices),
            2 => pack_bits::<2>(&indices),
            4 => pack_bits::<4>(&indices),
            _ => indices.into_boxed_slice(),
        };
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
    #[cfg(test)]
    fn read_row(&self, from: usize, out: &mut [BlockId]) {
        RowReader::new(self).read(from, out);
    }
}

/// Palette indices (each below `1 << BITS`) packed `8 / BITS` a byte, low bits first.
fn pack_bits<const BITS: usize>(indices: &[u8]) -> Box<[u8]> {
    let per_byte = 8 / BITS;
    indices.chunks(per_byte).map(|group| group.iter().rev().fold(0u8, |b, &x| (b << BITS) | x)).collect()
}

/// Reads rows of one chunk's voxels: packed ones a byte at a time through a table of each
/// byte's blocks, made once per chunk (a box copies up to 1,024 rows of a chunk).
enum RowReader<'a> {
    Fill(BlockId),
    /// `table` holds `per_byte` blocks for each of the 256 bytes.
    Table {
        per_byte: usize,
        data: &'a [u8],
        table: Vec<BlockId>,
    },
    Dense(&'a [BlockId]),
}

impl<'a> RowReader<'a> {
    fn new(voxels: &'a ChunkVoxels) -> Self {
        match voxels {
            ChunkVoxels::Uniform(id) => RowReader::Fill(*id),
            ChunkVoxels::Packed { bits, palette, data } => {
                let (bits, per_byte) = (*bits as usize, 8 / *bits as usize);
                let mask = (1usize << bits) - 1;
                let table = (0..256 * per_byte)
                    .map(|k| {
                        let (byte, slot) = (k / per_byte, k % per_byte);
                        palette.get((byte >> (slot * bits)) & mask).copied().unwrap_or(AIR)
                    })
                    .collect();
                RowReader::Table { per_byte, data, table }
            }
            ChunkVoxels::Dense(d) => RowReader::Dense(d),
        }
    }

    /// Writes the voxels from index `from` on (x fastest, then z, then y) into `out`, one per
    /// slot.
    #[inline]
    fn read(&self, from: usize, out: &mut [BlockId]) {
        match self {
            RowReader::Fill(id) => out.fill(*id),
            RowReader::Table { per_byte, data, table } => match per_byte {
                8 => read_bytes::<8>(data, table, from, out),
                4 => read_bytes::<4>(data, table, from, out),
                2 => read_bytes::<2>(data, table, from, out),
                _ => read_bytes::<1>(data, table, from, out),
            },
            RowReader::Dense(d) => out.copy_from_slice(&d[from..from + out.len()]),
        }
    }
}

/// Voxels `from..from + out.len()` of `data`, `PER_BYTE` a byte, through `table` (the blocks
/// of each byte's voxels): whole bytes as one copy each, the voxels of a byte cut by either end
/// one at a time.
#[inline]
fn read_bytes<const PER_BYTE: usize>(data: &[u8], table: &[BlockId], from: usize, out: &mut [BlockId]) {
    let one = |i: usize| table[data[i / PER_BYTE] as usize * PER_BYTE + i % PER_BYTE];
    let head = ((PER_BYTE - from % PER_BYTE) % PER_BYTE).min(out.len());
    let (first, rest) = out.split_at_mut(head);
    for (k, o) in first.iter_mut().enumerate() {
        *o = one(from + k);
    }
    let (at, rest_len) = (from + head, rest.len());
    let mut whole = rest.chunks_exact_mut(PER_BYTE);
    for (o, &b) in (&mut whole).zip(&data[at / PER_BYTE..]) {
        o.copy_from_slice(&table[b as usize * PER_BYTE..(b as usize + 1) * PER_BYTE]);
    }
    let tail = whole.into_remainder();
    let at = at + (rest_len - tail.len());
    for (k, o) in tail.iter_mut().enumerate() {
        *o = one(at + k);
    }
}

/// The chunk `c` inside `padded` (the chunk padded by one voxel) packed.
fn pack_inside(c: ChunkCoord, padded: &VoxelBuffer) -> ChunkVoxels {
    let n = CHUNK_SIZE as usize;
    let mut voxels = Vec::with_capacity(VOXELS);
    for y in 0..CHUNK_SIZE {
        for z in 0..CHUNK_SIZE {
            let at = padded.index_local(c.min_voxel() + IVec3::new(0, y, z) - padded.min());
            voxels.extend_from_slice(&padded.data()[at..at + n]);
        }
    }
    ChunkVoxels::pack(&voxels)
}

/// The highest of `surface(x, z)` over each 8 × 8 tile of a chunk column (x, z local).
/// Calls `f(chunk column, columns)` for each chunk column meeting `[min_x, min_x + size_x) ×
/// [min_z, min_z + size_z)`, `columns` the pairs (index in the rectangle, x fastest; index in the
/// chunk column) of the columns they share.
fn each_chunk_column(
    min_x: i32,
    min_z: i32,
    size_x: i32,
    size_z: i32,
    mut f: impl FnMut((i32, i32), &mut dyn Iterator<Item = (usize, usize)>),
) {
    if size_x <= 0 || size_z <= 0 {
        return;
    }
    let (end_x, end_z) = (min_x + size_x, min_z + size_z);
    for cz in min_z.div_euclid(CHUNK_SIZE)..=(end_z - 1).div_euclid(CHUNK_SIZE) {
        let (z0, z1) = ((cz * CHUNK_SIZE).max(min_z), (cz * CHUNK_SIZE + CHUNK_SIZE).min(end_z));
        for cx in min_x.div_euclid(CHUNK_SIZE)..=(end_x - 1).div_euclid(CHUNK_SIZE) {
            let (x0, x1) = ((cx * CHUNK_SIZE).max(min_x), (cx * CHUNK_SIZE + CHUNK_SIZE).min(end_x));
            let mut columns = (z0..z1).flat_map(|z| {
                (x0..x1).map(move |x| {
                    let at = ((z - min_z) * size_x + x - min_x) as usize;
                    (at, ((z - cz * CHUNK_SIZE) * CHUNK_SIZE + x - cx * CHUNK_SIZE) as usize)
                })
            });
            f((cx, cz), &mut columns);
        }
    }
}

fn ground_tiles(surface: impl Fn(i32, i32) -> i32) -> GroundTiles {
    let mut tiles = [i32::MIN; GROUND_TILES * GROUND_TILES];
    for z in 0..CHUNK_SIZE {
        for x in 0..CHUNK_SIZE {
            let t = &mut tiles[(z / GROUND_TILE) as usize * GROUND_TILES + (x / GROUND_TILE) as usize];
            *t = (*t).max(surface(x, z));
        }
    }
    tiles
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
    /// Ground tiles per chunk column (x, z) ([`VoxelCache::ground_top`]).
    grounds: Mutex<HashMap<(i32, i32), GroundTiles>>,
    /// The sky of the generated world's columns per chunk column (x, z) ([`VoxelCache::sky_known`]).
    skies: Mutex<HashMap<(i32, i32), Box<ChunkColumnSky>>>,
    /// Workers' lookups that found their chunk / generated it.
    hits: AtomicU64,
    misses: AtomicU64,
    /// Of the misses, the chunks that were sky (no voxel stage run).
    sky_misses: AtomicU64,
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
            grounds: Mutex::new(HashMap::new()),
            skies: Mutex::new(HashMap::new()),
            budget_bytes: budget_bytes.max(DENSE_BYTES + ENTRY_OVERHEAD),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            sky_misses: AtomicU64::new(0),
        }
    }

    /// The workers' lookups since the cache was made: `(hits, misses)` (a miss generates the
    /// chunk).
    pub fn lookups(&self) -> (u64, u64) {
        (self.hits.load(Ordering::Relaxed), self.misses.load(Ordering::Relaxed))
    }

    /// Of [`VoxelCache::lookups`]' misses, those whose chunk was sky: a column pass, no voxels
    /// generated.
    pub fn sky_misses(&self) -> u64 {
        self.sky_misses.load(Ordering::Relaxed)
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
    ///
    /// A chunk above the ground tiles, the sea and the structures is air without a column pass
    /// ([`VoxelCache::above_ground`]). Any other miss generates the chunk padded by one voxel, as
    /// its own job does
    /// ([`Generator::generate_padded_chunk_unless_sky`]): one column pass both tells a sky chunk
    /// apart and feeds the stages, and it gives the ground tiles of the chunk's column too. The
    /// chunk inside is the same voxels (law: Seamless).
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
        let mut columns = ColumnGrid::default();
        let sky = (c.in_world() && self.above_ground(generator, c.min_voxel(), IVec3::splat(CHUNK_SIZE)))
            || generator.generate_padded_chunk_unless_sky(c, buffer, &mut columns, scratch);
        if sky {
            self.sky_misses.fetch_add(1, Ordering::Relaxed);
        } else {
            self.note_columns(&columns);
        }
        let voxels = Arc::new(if sky { ChunkVoxels::Uniform(AIR) } else { pack_inside(c, buffer) });
        let mut e = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(v) = e.use_entry(c) {
            // Another worker made it meanwhile: the same voxels (a pure function of `c`).
            return v;
        }
        e.insert(c, voxels.clone(), self.budget_bytes);
        voxels
    }

    /// Keeps the generator's voxels of chunk `c` from `padded`, the chunk padded by one voxel as
    /// [`Generator::generate_padded_chunk_unless_sky`] made it (edits *not* applied; `sky` as it
    /// answered), unless the cache holds the chunk already. What a streamed chunk's job calls,
    /// so that its neighbours' light boxes find it instead of generating it again.
    pub fn insert_padded(&self, c: ChunkCoord, padded: &VoxelBuffer, sky: bool) {
        let inside = padded.min() == c.min_voxel() - IVec3::ONE && padded.size() == IVec3::splat(CHUNK_SIZE + 2);
        if !inside || self.entries.lock().unwrap_or_else(|p| p.into_inner()).map.contains_key(&c) {
            return;
        }
        let voxels = Arc::new(if sky { ChunkVoxels::Uniform(AIR) } else { pack_inside(c, padded) });
        let mut e = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if !e.map.contains_key(&c) {
            e.insert(c, voxels, self.budget_bytes);
        }
    }

    /// Keeps the ground tiles of every chunk column that `grid` covers whole (a padded chunk's
    /// columns cover their chunk's), unless kept already.
    pub fn note_columns(&self, grid: &ColumnGrid) {
        if grid.columns.len() != (grid.size_x.max(0) * grid.size_z.max(0)) as usize {
            return;
        }
        let first = |m: i32| m.div_euclid(CHUNK_SIZE) + (m.rem_euclid(CHUNK_SIZE) != 0) as i32;
        let (cx0, cz0) = (first(grid.min_x), first(grid.min_z));
        let (cx1, cz1) =
            ((grid.min_x + grid.size_x).div_euclid(CHUNK_SIZE), (grid.min_z + grid.size_z).div_euclid(CHUNK_SIZE));
        for cz in cz0..cz1 {
            for cx in cx0..cx1 {
                if self.grounds.lock().unwrap_or_else(|p| p.into_inner()).contains_key(&(cx, cz)) {
                    continue;
                }
                let (x0, z0) = (cx * CHUNK_SIZE - grid.min_x, cz * CHUNK_SIZE - grid.min_z);
                let tiles = ground_tiles(|x, z| grid.columns[((z0 + z) * grid.size_x + x0 + x) as usize].surface);
                self.keep_ground(cx, cz, tiles);
            }
        }
    }

    /// The highest ground (`Column::surface`, sea and structures not counted) over the columns of
    /// `[min_x, min_x + size_x) × [min_z, min_z + size_z)`, or of a few columns more (those of
    /// the 8 × 8 tiles it touches): a bound from above, as the column pass over the rectangle
    /// would give it, at most 7 columns wider on each side. `i32::MIN` for an empty rectangle.
    /// Chunk columns not kept yet get a column pass of their own.
    pub fn ground_top(&self, generator: &Generator, min_x: i32, min_z: i32, size_x: i32, size_z: i32) -> i32 {
        if size_x <= 0 || size_z <= 0 {
            return i32::MIN;
        }
        let (tx0, tz0) = (min_x.div_euclid(GROUND_TILE), min_z.div_euclid(GROUND_TILE));
        let (tx1, tz1) = ((min_x + size_x - 1).div_euclid(GROUND_TILE), (min_z + size_z - 1).div_euclid(GROUND_TILE));
        let per = CHUNK_SIZE / GROUND_TILE;
        let mut top = i32::MIN;
        for cz in tz0.div_euclid(per)..=tz1.div_euclid(per) {
            for cx in tx0.div_euclid(per)..=tx1.div_euclid(per) {
                let kept = self.grounds.lock().unwrap_or_else(|p| p.into_inner()).get(&(cx, cz)).copied();
                let tiles = kept.unwrap_or_else(|| {
                    let grid = generator.column_grid(cx * CHUNK_SIZE, cz * CHUNK_SIZE, CHUNK_SIZE, CHUNK_SIZE);
                    let tiles = ground_tiles(|x, z| grid.columns[(z * CHUNK_SIZE + x) as usize].surface);
                    self.keep_ground(cx, cz, tiles);
                    tiles
                });
                for (i, &t) in tiles.iter().enumerate() {
                    let (tx, tz) = (cx * per + (i % GROUND_TILES) as i32, cz * per + (i / GROUND_TILES) as i32);
                    if (tx0..=tx1).contains(&tx) && (tz0..=tz1).contains(&tz) {
                        top = top.max(t);
                    }
                }
            }
        }
        top
    }

    /// Whether the generator gives the box `[min, min + size)` all air, known without running
    /// it: the world has no generation hook, and the box lies above the highest ground of the
    /// tiles over its columns ([`VoxelCache::ground_top`]), above the sea and above every
    /// structure there (above those three the generated world is air,
    /// [`Generator::structure_top`]). It is the generator's own sky test
    /// ([`Generator::generate_padded_chunk_unless_sky`]) on a bound of the ground from above, so
    /// where this says air, so does the generator; where it says no, the generator decides.
    pub fn above_ground(&self, generator: &Generator, min: IVec3, size: IVec3) -> bool {
        if generator.hook_stats().is_some() || size.x <= 0 || size.z <= 0 {
            return false;
        }
        let water = &generator.preset().water;
        let sea = if water.enabled { water.sea_level } else { i32::MIN };
        let structures = generator.structure_top((min.x, min.z), (min.x + size.x, min.z + size.z));
        let ground = self.ground_top(generator, min.x, min.z, size.x, size.z);
        min.y > ground.max(sea).max(structures.map_or(i32::MIN, |t| t - 1))
    }

    /// What the light boxes found so far of the sky of the generated world's columns over
    /// `[min_x, min_x + size_x) × [min_z, min_z + size_z)`, into `out` (x fastest). Only facts
    /// about the generated world are kept ([`VoxelCache::note_sky`]), so what this answers holds
    /// wherever no edit touches the column.
    pub fn sky_known(&self, min_x: i32, min_z: i32, size_x: i32, size_z: i32, out: &mut Vec<ColumnSky>) {
        out.clear();
        out.resize((size_x.max(0) * size_z.max(0)) as usize, ColumnSky::Unknown);
        let skies = self.skies.lock().unwrap_or_else(|p| p.into_inner());
        if skies.is_empty() {
            return;
        }
        each_chunk_column(min_x, min_z, size_x, size_z, |key, columns| {
            if let Some(sky) = skies.get(&key) {
                for (at, i) in columns {
                    out[at] = sky.get(i);
                }
            }
        });
    }

    /// Keeps `known` (x fastest over `[min_x, min_x + size_x) × [min_z, min_z + size_z)`): the
    /// generated world's sky as a light box found it, [`ColumnSky::Unknown`] where a column was
    /// edited or nothing was learnt.
    pub fn note_sky(&self, min_x: i32, min_z: i32, size_x: i32, size_z: i32, known: &[ColumnSky]) {
        if known.len() != (size_x.max(0) * size_z.max(0)) as usize {
            return;
        }
        let mut skies = self.skies.lock().unwrap_or_else(|p| p.into_inner());
        each_chunk_column(min_x, min_z, size_x, size_z, |key, columns| {
            let mut learnt = columns.filter(|&(at, _)| known[at] != ColumnSky::Unknown).peekable();
            if learnt.peek().is_none() {
                return;
            }
            if !skies.contains_key(&key) && skies.len() >= SKY_COLUMNS {
                skies.clear();
            }
            let sky = skies
                .entry(key)
                .or_insert_with(|| Box::new(ChunkColumnSky { heights: [i32::MAX; COLUMNS], exact: [0; COLUMNS / 64] }));
            for (at, i) in learnt {
                sky.note(i, known[at]);
            }
        });
    }

    fn keep_ground(&self, cx: i32, cz: i32, tiles: GroundTiles) {
        let mut grounds = self.grounds.lock().unwrap_or_else(|p| p.into_inner());
        if grounds.len() >= GROUND_COLUMNS {
            grounds.clear();
        }
        grounds.insert((cx, cz), tiles);
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
                    let rows = RowReader::new(&voxels);
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
                            rows.read(from, &mut out.data_mut()[at..at + n]);
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

    /// The ground tiles give the highest surface of the 8 × 8 tiles a rectangle touches, as
    /// the column pass over those tiles gives it: noted from a padded chunk's columns (as a job
    /// hands them in) or computed for chunk columns not noted.
    #[test]
    fn ground_tiles_give_the_column_pass_highest_surface_over_the_tiles_touched() {
        let g = Generator::new(&WorldPreset { seed: 5, ..WorldPreset::default() }).unwrap();
        let cache = VoxelCache::new(DEFAULT_CACHE_BYTES);
        let m = ChunkCoord::new(1, 0, -2).min_voxel();
        cache.note_columns(&g.column_grid(m.x - 1, m.z - 1, CHUNK_SIZE + 2, CHUNK_SIZE + 2));
        let highest = |x0: i32, z0: i32, x1: i32, z1: i32| {
            g.column_grid(x0, z0, x1 - x0, z1 - z0).columns.iter().map(|c| c.surface).max().unwrap()
        };
        for (x, z, sx, sz) in
            [(17, -79, 62, 62), (32, -64, 32, 32), (-8, -64, 16, 8), (40, -70, 1, 1), (-100, 30, 70, 5)]
        {
            let tile = |v: i32| v.div_euclid(GROUND_TILE) * GROUND_TILE;
            let wide = highest(tile(x), tile(z), tile(x + sx - 1) + GROUND_TILE, tile(z + sz - 1) + GROUND_TILE);
            let bound = cache.ground_top(&g, x, z, sx, sz);
            assert_eq!(bound, wide, "rectangle at ({x}, {z}) of {sx} × {sz}");
            assert!(bound >= highest(x, z, x + sx, z + sz));
        }
        assert_eq!(cache.ground_top(&g, 0, 0, 0, 5), i32::MIN);
    }

    /// Where the ground tiles say a box is air, the generator's own sky test says so too and the
    /// generated voxels are air: chunks and padded chunks from below the ground to far above it,
    /// in worlds with and without sea.
    #[test]
    fn above_the_ground_tiles_the_generator_gives_air() {
        for preset in [WorldPreset { seed: 8, ..WorldPreset::default() }, {
            let mut p = WorldPreset { seed: 21, ..WorldPreset::default() };
            p.water.enabled = false;
            p
        }] {
            let g = Generator::new(&preset).unwrap();
            let cache = VoxelCache::new(DEFAULT_CACHE_BYTES);
            let (mut said, mut padded, mut columns) =
                (0, VoxelBuffer::new(IVec3::ZERO, IVec3::ONE), ColumnGrid::default());
            for (x, z) in [(0, 0), (-700, 90), (1234, -4321)] {
                let s = ChunkCoord::containing(IVec3::new(x, g.surface_height(x, z), z));
                for dy in -2..=4 {
                    let c = ChunkCoord::new(s.x, s.y + dy, s.z);
                    if cache.above_ground(&g, c.min_voxel(), IVec3::splat(CHUNK_SIZE)) {
                        said += 1;
                        assert_eq!(g.generate_chunk(c).uniform_block(), Some(AIR), "chunk {c:?}");
                    }
                    let m = c.min_voxel() - IVec3::ONE;
                    if cache.above_ground(&g, m, IVec3::splat(CHUNK_SIZE + 2)) {
                        let sky = g.generate_padded_chunk_unless_sky(
                            c,
                            &mut padded,
                            &mut columns,
                            &mut GenScratch::default(),
                        );
                        assert!(sky, "padded chunk {c:?}");
                    }
                }
            }
            assert!(said >= 3, "{said} chunks above the ground");
        }
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
