//! Voxel storage: a dense box of block ids anchored at a world position.
//!
//! [`VoxelBuffer`] holds any axis-aligned box of voxels (a chunk, a chunk with a one-voxel halo
//! for meshing, or a large test block). Layout is x fastest, then z, then y, so a vertical column
//! is a strided walk and a horizontal slab is contiguous.
//!
//! May use: the other `base` modules, `std` and the crates in `Cargo.toml`; nothing else in this crate.

use crate::base::block::{AIR, BlockId};
use crate::base::coords::{CHUNK_SIZE, ChunkCoord, IVec3};

/// A dense box of voxels covering world positions `[min, min + size)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VoxelBuffer {
    min: IVec3,
    size: IVec3,
    data: Vec<BlockId>,
}

impl VoxelBuffer {
    /// A buffer of air covering `[min, min + size)`.
    pub fn new(min: IVec3, size: IVec3) -> Self {
        assert!(size.x > 0 && size.y > 0 && size.z > 0, "empty voxel buffer {size:?}");
        Self { min, size, data: vec![AIR; size.volume()] }
    }

    /// A buffer covering exactly chunk `coord`.
    pub fn for_chunk(coord: ChunkCoord) -> Self {
        Self::new(coord.min_voxel(), IVec3::splat(CHUNK_SIZE))
    }

    /// Reuse this buffer's allocation for a new box (contents become air).
    pub fn reset(&mut self, min: IVec3, size: IVec3) {
        self.min = min;
        self.size = size;
        self.data.clear();
        self.data.resize(size.volume(), AIR);
    }

    /// Reuse this buffer's allocation for a new box whose every voxel the caller then writes:
    /// the contents are left unspecified (what the buffer held, air where it grew), which saves
    /// clearing a buffer that is about to be overwritten.
    pub(crate) fn reshape_for_overwrite(&mut self, min: IVec3, size: IVec3) {
        self.min = min;
        self.size = size;
        self.data.resize(size.volume(), AIR);
    }

    pub fn min(&self) -> IVec3 {
        self.min
    }

    pub fn size(&self) -> IVec3 {
        self.size
    }

    /// One past the largest world position covered.
    pub fn max(&self) -> IVec3 {
        self.min + self.size
    }

    pub fn data(&self) -> &[BlockId] {
        &self.data
    }

    pub fn data_mut(&mut self) -> &mut [BlockId] {
        &mut self.data
    }

    /// The block every voxel holds, when the buffer is all one block (a chunk of sky, of solid
    /// rock): then it shows no face and stores as that block alone.
    pub fn uniform_block(&self) -> Option<BlockId> {
        let first = *self.data.first()?;
        self.data.iter().all(|&v| v == first).then_some(first)
    }

    /// Index of local position `l` (each component in `0..size`).
    #[inline]
    pub fn index_local(&self, l: IVec3) -> usize {
        debug_assert!(self.contains_local(l), "{l:?} outside {:?}", self.size);
        ((l.y * self.size.z + l.z) * self.size.x + l.x) as usize
    }

    #[inline]
    pub fn contains_local(&self, l: IVec3) -> bool {
        l.x >= 0 && l.y >= 0 && l.z >= 0 && l.x < self.size.x && l.y < self.size.y && l.z < self.size.z
    }

    #[inline]
    pub fn contains(&self, p: IVec3) -> bool {
        self.contains_local(p - self.min)
    }

    /// Block at local position `l`.
    #[inline]
    pub fn get_local(&self, l: IVec3) -> BlockId {
        self.data[self.index_local(l)]
    }

    #[inline]
    pub fn set_local(&mut self, l: IVec3, id: BlockId) {
        let i = self.index_local(l);
        self.data[i] = id;
    }

    /// Block at world position `p`, or `None` outside the buffer.
    #[inline]
    pub fn get(&self, p: IVec3) -> Option<BlockId> {
        let l = p - self.min;
        self.contains_local(l).then(|| self.data[self.index_local(l)])
    }

    /// Set the block at world position `p`; returns false outside the buffer.
    pub fn set(&mut self, p: IVec3, id: BlockId) -> bool {
        let l = p - self.min;
        if self.contains_local(l) {
            let i = self.index_local(l);
            self.data[i] = id;
            true
        } else {
            false
        }
    }

    /// Copy of the sub-box `[min, min + size)` (world coordinates), which must lie inside.
    pub fn sub_buffer(&self, min: IVec3, size: IVec3) -> VoxelBuffer {
        let mut out = VoxelBuffer::new(min, size);
        let off = min - self.min;
        assert!(self.contains_local(off) && self.contains_local(off + size - IVec3::ONE));
        for y in 0..size.y {
            for z in 0..size.z {
                let src = self.index_local(IVec3::new(off.x, off.y + y, off.z + z));
                let dst = out.index_local(IVec3::new(0, y, z));
                out.data[dst..dst + size.x as usize].copy_from_slice(&self.data[src..src + size.x as usize]);
            }
        }
        out
    }

    /// Copies every voxel of `src`, whose box must lie inside this buffer's, to the same world
    /// positions here.
    pub fn paste(&mut self, src: &VoxelBuffer) {
        let off = src.min - self.min;
        let size = src.size;
        assert!(self.contains_local(off) && self.contains_local(off + size - IVec3::ONE));
        for y in 0..size.y {
            for z in 0..size.z {
                let s = src.index_local(IVec3::new(0, y, z));
                let d = self.index_local(IVec3::new(off.x, off.y + y, off.z + z));
                self.data[d..d + size.x as usize].copy_from_slice(&src.data[s..s + size.x as usize]);
            }
        }
    }

    /// True when every voxel is air.
    pub fn is_empty(&self) -> bool {
        self.data.iter().all(|&b| b == AIR)
    }

    /// A 64-bit FNV-1a hash of the extent and contents, for golden tests and fingerprints.
    pub fn content_hash(&self) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |b: u8| {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        };
        for v in [self.min.x, self.min.y, self.min.z, self.size.x, self.size.y, self.size.z] {
            v.to_le_bytes().into_iter().for_each(&mut eat);
        }
        for &id in &self.data {
            id.to_le_bytes().into_iter().for_each(&mut eat);
        }
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_get_and_sub_buffer() {
        let mut b = VoxelBuffer::new(IVec3::new(-4, -4, -4), IVec3::new(8, 6, 5));
        b.set(IVec3::new(-4, 1, 0), 3);
        b.set(IVec3::new(3, -4, 0), 7);
        assert_eq!(b.get(IVec3::new(-4, 1, 0)), Some(3));
        assert_eq!(b.get(IVec3::new(4, 0, 0)), None);
        let s = b.sub_buffer(IVec3::new(-4, 0, -1), IVec3::new(2, 2, 2));
        assert_eq!(s.get(IVec3::new(-4, 1, 0)), Some(3));
        assert_eq!(s.data().iter().filter(|&&v| v != 0).count(), 1);
    }
}
