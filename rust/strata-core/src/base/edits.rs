//! Player edits: a sparse overlay of block changes on top of the generated world.
//!
//! Edits are stored per chunk, keyed by the voxel's index inside the chunk, so a world save is
//! the seed, the preset and this map. Applying edits is the last generation step.
//!
//! May use: the other `base` modules, `std` and the crates in `Cargo.toml`; nothing else in this crate.

use crate::base::block::BlockId;
use crate::base::chunk::VoxelBuffer;
use crate::base::coords::{CHUNK_SIZE, ChunkCoord, IVec3, local_in_chunk};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

/// Index of a voxel inside its chunk: `x + z·S + y·S²`.
pub fn local_index(l: IVec3) -> u16 {
    ((l.y * CHUNK_SIZE + l.z) * CHUNK_SIZE + l.x) as u16
}

/// Inverse of [`local_index`].
pub fn local_from_index(i: u16) -> IVec3 {
    let i = i as i32;
    IVec3::new(i % CHUNK_SIZE, i / (CHUNK_SIZE * CHUNK_SIZE), (i / CHUNK_SIZE) % CHUNK_SIZE)
}

/// All edits of one world.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EditMap {
    chunks: FxHashMap<ChunkCoord, BTreeMap<u16, BlockId>>,
}

impl EditMap {
    pub fn new() -> Self {
        Self::default()
    }

    /// Records that voxel `p` is now `id` (replacing any earlier edit there).
    pub fn set(&mut self, p: IVec3, id: BlockId) {
        let c = ChunkCoord::containing(p);
        self.chunks.entry(c).or_default().insert(local_index(local_in_chunk(p)), id);
    }

    /// Removes the edit at `p`, if any (the generated block shows again).
    pub fn clear_at(&mut self, p: IVec3) {
        let c = ChunkCoord::containing(p);
        if let Some(m) = self.chunks.get_mut(&c) {
            m.remove(&local_index(local_in_chunk(p)));
            if m.is_empty() {
                self.chunks.remove(&c);
            }
        }
    }

    /// The edit at `p`, if any.
    pub fn get(&self, p: IVec3) -> Option<BlockId> {
        self.chunks.get(&ChunkCoord::containing(p))?.get(&local_index(local_in_chunk(p))).copied()
    }

    /// The edits of chunk `c` by [`local_index`], if it has any.
    pub fn chunk_edits(&self, c: ChunkCoord) -> Option<&BTreeMap<u16, BlockId>> {
        self.chunks.get(&c)
    }

    /// Number of edited voxels.
    pub fn len(&self) -> usize {
        self.chunks.values().map(|m| m.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    pub fn clear(&mut self) {
        self.chunks.clear();
    }

    /// Edited chunks with their edits, sorted by chunk coordinate (stable order for saves).
    pub fn chunks_sorted(&self) -> Vec<(ChunkCoord, &BTreeMap<u16, BlockId>)> {
        let mut v: Vec<_> = self.chunks.iter().map(|(c, m)| (*c, m)).collect();
        v.sort_by_key(|(c, _)| *c);
        v
    }

    /// Every edit whose position lies in `[min, min + size)`.
    pub fn edits_in_box(&self, min: IVec3, size: IVec3) -> Vec<(IVec3, BlockId)> {
        let max = min + size - IVec3::ONE;
        let (c0, c1) = (ChunkCoord::containing(min), ChunkCoord::containing(max));
        let mut out = Vec::new();
        for cy in c0.y..=c1.y {
            for cz in c0.z..=c1.z {
                for cx in c0.x..=c1.x {
                    let c = ChunkCoord::new(cx, cy, cz);
                    let Some(m) = self.chunks.get(&c) else { continue };
                    for (&i, &id) in m {
                        let p = c.min_voxel() + local_from_index(i);
                        if p.x >= min.x && p.y >= min.y && p.z >= min.z && p.x <= max.x && p.y <= max.y && p.z <= max.z
                        {
                            out.push((p, id));
                        }
                    }
                }
            }
        }
        out
    }

    /// Every edit in the columns `[min_x, min_x + size_x) × [min_z, min_z + size_z)` at or above
    /// `min_y` (what lighting a box needs: its own edits and those above it), chunk by chunk in
    /// chunk order and by [`local_index`] within a chunk: a fixed order (the order edits are
    /// applied in does not matter, but a fixed one keeps jobs reproducible) without sorting the
    /// edits, which a crowd editing one place makes many.
    pub fn edits_in_columns_from(
        &self,
        min_x: i32,
        min_z: i32,
        size_x: i32,
        size_z: i32,
        min_y: i32,
    ) -> Vec<(IVec3, BlockId)> {
        let (max_x, max_z) = (min_x.saturating_add(size_x), min_z.saturating_add(size_z));
        let (lo, hi) = (
            ChunkCoord::containing(IVec3::new(min_x, min_y, min_z)),
            ChunkCoord::containing(IVec3::new(max_x.saturating_sub(1), min_y, max_z.saturating_sub(1))),
        );
        let mut chunks: Vec<(ChunkCoord, &BTreeMap<u16, BlockId>)> = self
            .chunks
            .iter()
            .filter(|(c, _)| c.x >= lo.x && c.x <= hi.x && c.z >= lo.z && c.z <= hi.z && c.y >= lo.y)
            .map(|(c, m)| (*c, m))
            .collect();
        chunks.sort_unstable_by_key(|(c, _)| *c);
        let mut out = Vec::with_capacity(chunks.iter().map(|(_, m)| m.len()).sum());
        for (coord, m) in chunks {
            let origin = coord.min_voxel();
            let end = origin + IVec3::splat(CHUNK_SIZE);
            if origin.x >= min_x && end.x <= max_x && origin.z >= min_z && end.z <= max_z && origin.y >= min_y {
                out.extend(m.iter().map(|(&i, &id)| (origin + local_from_index(i), id)));
                continue;
            }
            for (&i, &id) in m {
                let p = origin + local_from_index(i);
                if p.x >= min_x && p.x < max_x && p.z >= min_z && p.z < max_z && p.y >= min_y {
                    out.push((p, id));
                }
            }
        }
        out
    }

    /// Every edit in the columns `[min_x, min_x + size_x)` of layer `z` below `max_y` (y <
    /// `max_y`): what lighting a side view's box needs, its own edits and those above it (a side
    /// view's y grows down). Chunk by chunk in chunk order and by [`local_index`] within a chunk,
    /// as [`EditMap::edits_in_columns_from`].
    pub fn edits_in_columns_to(&self, min_x: i32, size_x: i32, z: i32, max_y: i32) -> Vec<(IVec3, BlockId)> {
        let max_x = min_x.saturating_add(size_x);
        let (lo, hi) = (
            ChunkCoord::containing(IVec3::new(min_x, max_y.saturating_sub(1), z)),
            ChunkCoord::containing(IVec3::new(max_x.saturating_sub(1), max_y.saturating_sub(1), z)),
        );
        let mut chunks: Vec<(ChunkCoord, &BTreeMap<u16, BlockId>)> = self
            .chunks
            .iter()
            .filter(|(c, _)| c.x >= lo.x && c.x <= hi.x && c.z == lo.z && c.y <= hi.y)
            .map(|(c, m)| (*c, m))
            .collect();
        chunks.sort_unstable_by_key(|(c, _)| *c);
        let mut out = Vec::new();
        for (coord, m) in chunks {
            let origin = coord.min_voxel();
            for (&i, &id) in m {
                let p = origin + local_from_index(i);
                if p.x >= min_x && p.x < max_x && p.z == z && p.y < max_y {
                    out.push((p, id));
                }
            }
        }
        out
    }

    /// Every edit in the vertical column (x, z), any height, from the bottom up: a look-up of
    /// each of the column's voxels in each edited chunk the column crosses, not a scan of the
    /// chunks' edits.
    pub fn edits_in_column(&self, x: i32, z: i32) -> Vec<(IVec3, BlockId)> {
        let probe = IVec3::new(x, 0, z);
        let (c, l) = (ChunkCoord::containing(probe), local_in_chunk(probe));
        let mut chunks: Vec<(ChunkCoord, &BTreeMap<u16, BlockId>)> =
            self.chunks.iter().filter(|(coord, _)| coord.x == c.x && coord.z == c.z).map(|(c, m)| (*c, m)).collect();
        chunks.sort_unstable_by_key(|(c, _)| c.y);
        let mut out = Vec::new();
        for (coord, m) in chunks {
            for y in 0..CHUNK_SIZE {
                let q = IVec3::new(l.x, y, l.z);
                if let Some(&id) = m.get(&local_index(q)) {
                    out.push((coord.min_voxel() + q, id));
                }
            }
        }
        out
    }

    /// Chunks whose padded (one-voxel halo) box contains `p`: the chunks to remesh after an edit.
    pub fn chunks_touching(p: IVec3) -> Vec<ChunkCoord> {
        let mut out = Vec::with_capacity(8);
        let l = local_in_chunk(p);
        let c = ChunkCoord::containing(p);
        let axis = |v: i32| -> Vec<i32> {
            if v == 0 {
                vec![0, -1]
            } else if v == CHUNK_SIZE - 1 {
                vec![0, 1]
            } else {
                vec![0]
            }
        };
        for dy in axis(l.y) {
            for dz in axis(l.z) {
                for dx in axis(l.x) {
                    out.push(ChunkCoord::new(c.x + dx, c.y + dy, c.z + dz));
                }
            }
        }
        out
    }
}

/// Writes `edits` into `buf` (positions outside it are skipped).
pub fn apply_edits(buf: &mut VoxelBuffer, edits: &[(IVec3, BlockId)]) {
    for &(p, id) in edits {
        buf.set(p, id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_index_round_trips() {
        for i in [0u16, 1, 31, 32, 1023, 1024, 32767] {
            assert_eq!(local_index(local_from_index(i)), i);
        }
    }

    /// The column queries agree with a scan of every edit, across chunk borders and below zero,
    /// and come out in chunk order (a fixed order whatever the map's).
    #[test]
    fn column_queries_match_a_scan_of_every_edit() {
        use rand_xoshiro::Xoshiro256PlusPlus;
        use rand_xoshiro::rand_core::{Rng, SeedableRng};
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        let mut e = EditMap::new();
        let mut all = Vec::new();
        for _ in 0..4000 {
            let r = |rng: &mut Xoshiro256PlusPlus, span: u32| (rng.next_u32() % span) as i32 - span as i32 / 2;
            let p = IVec3::new(r(&mut rng, 96), r(&mut rng, 160), r(&mut rng, 96));
            let id = (rng.next_u32() % 9) as BlockId;
            e.set(p, id);
            all.retain(|&(q, _)| q != p);
            all.push((p, id));
        }
        // A dense column, as a crowd digging one place makes.
        for y in -70..90 {
            e.set(IVec3::new(-33, y, 31), 3);
            all.retain(|&(q, _)| q != IVec3::new(-33, y, 31));
            all.push((IVec3::new(-33, y, 31), 3));
        }
        let scan = |keep: &dyn Fn(IVec3) -> bool| {
            let mut v: Vec<_> = all.iter().copied().filter(|&(p, _)| keep(p)).collect();
            v.sort_by_key(|&(p, _)| (p.x, p.y, p.z));
            v
        };
        let sorted = |mut v: Vec<(IVec3, BlockId)>| {
            v.sort_by_key(|&(p, _)| (p.x, p.y, p.z));
            v
        };
        for (x, z) in [(-33, 31), (0, 0), (-1, -1), (31, 32), (-48, 47), (5, -20)] {
            let column = e.edits_in_column(x, z);
            assert!(column.windows(2).all(|w| w[0].0.y < w[1].0.y), "({x}, {z}) from the bottom up");
            assert_eq!(sorted(column), scan(&|p| p.x == x && p.z == z), "column ({x}, {z})");
        }
        for (min, size, min_y) in [((-40, -40), (62, 62), -20), ((-33, 31), (1, 1), -80), ((0, 0), (32, 32), 0)] {
            let got = e.edits_in_columns_from(min.0, min.1, size.0, size.1, min_y);
            let keys: Vec<ChunkCoord> = got.iter().map(|(p, _)| ChunkCoord::containing(*p)).collect();
            assert!(keys.windows(2).all(|w| w[0] <= w[1]), "chunk order");
            let inside =
                |p: IVec3| p.x >= min.0 && p.x < min.0 + size.0 && p.z >= min.1 && p.z < min.1 + size.1 && p.y >= min_y;
            assert_eq!(sorted(got), scan(&inside), "columns from {min:?} size {size:?} above {min_y}");
        }
    }

    #[test]
    fn edits_in_box_and_touching_chunks() {
        let mut e = EditMap::new();
        e.set(IVec3::new(-1, 5, 0), 3);
        e.set(IVec3::new(40, 5, 0), 4);
        e.set(IVec3::new(-1, 5, 0), 6);
        assert_eq!(e.len(), 2);
        assert_eq!(e.get(IVec3::new(-1, 5, 0)), Some(6));
        let inside = e.edits_in_box(IVec3::new(-1, -1, -1), IVec3::splat(34));
        assert_eq!(inside, vec![(IVec3::new(-1, 5, 0), 6)]);
        let t = EditMap::chunks_touching(IVec3::new(0, 5, 31));
        assert_eq!(t.len(), 4);
        assert!(t.contains(&ChunkCoord::new(-1, 0, 1)));
        e.clear_at(IVec3::new(40, 5, 0));
        assert_eq!(e.len(), 1);
    }

    #[test]
    fn columns_to_match_a_scan_of_every_edit() {
        let mut m = EditMap::new();
        for (x, y, z) in [(-40, -900, 0), (-3, 5, 0), (0, 63, 0), (7, 64, 0), (12, -1, 0), (5, 2, 1), (13, 0, 0)] {
            m.set(IVec3::new(x, y, z), 3);
        }
        let mut got = m.edits_in_columns_to(-40, 53, 0, 64);
        got.sort_by_key(|(p, _)| (p.x, p.y));
        let want: Vec<IVec3> =
            [(-40, -900), (-3, 5), (0, 63), (12, -1)].iter().map(|&(x, y)| IVec3::new(x, y, 0)).collect();
        assert_eq!(got.iter().map(|(p, _)| *p).collect::<Vec<_>>(), want);
    }
}
