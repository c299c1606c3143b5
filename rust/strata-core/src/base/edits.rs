//! Player edits: a sparse overlay of block changes on top of the generated world.
//!
//! Edits are stored per chunk, keyed by the voxel's index inside the chunk, so a world save is
//! the seed, the preset and this map. Applying edits is the last generation step.
//!
//! May use: the other `base` modules, `std` and the crates in `Cargo.toml`; nothing else in this crate.

use crate::base::block::BlockId;
use crate::base::chunk::VoxelBuffer;
use crate::base::coords::{CHUNK_SIZE, ChunkCoord, IVec3, local_in_chunk};
use std::collections::{BTreeMap, HashMap};

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
    chunks: HashMap<ChunkCoord, BTreeMap<u16, BlockId>>,
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
    /// `min_y` (what lighting a box needs: its own edits and those above it).
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
        let mut out = Vec::new();
        for (coord, m) in &self.chunks {
            if coord.x < lo.x || coord.x > hi.x || coord.z < lo.z || coord.z > hi.z || coord.y < lo.y {
                continue;
            }
            for (&i, &id) in m {
                let p = coord.min_voxel() + local_from_index(i);
                if p.x >= min_x && p.x < max_x && p.z >= min_z && p.z < max_z && p.y >= min_y {
                    out.push((p, id));
                }
            }
        }
        // The map's order is not fixed; the order edits are applied in must not matter, but a
        // fixed one keeps jobs reproducible.
        out.sort_unstable_by_key(|&(p, _)| (p.y, p.z, p.x));
        out
    }

    /// Every edit in the vertical column (x, z), any height.
    pub fn edits_in_column(&self, x: i32, z: i32) -> Vec<(IVec3, BlockId)> {
        let probe = IVec3::new(x, 0, z);
        let (c, l) = (ChunkCoord::containing(probe), local_in_chunk(probe));
        let mut out = Vec::new();
        for (coord, m) in &self.chunks {
            if coord.x != c.x || coord.z != c.z {
                continue;
            }
            for (&i, &id) in m {
                let q = local_from_index(i);
                if q.x == l.x && q.z == l.z {
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
}
