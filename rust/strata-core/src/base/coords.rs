//! Integer coordinates: voxel positions, chunk coordinates and the mapping between them.
//!
//! One voxel is one world unit. Chunk `(cx, cy, cz)` spans voxels `[32·cx, 32·cx + 32)` on each
//! axis; negative coordinates use floor division so `-1` lies in chunk `-1`, not chunk `0`.
//!
//! May use: the other `base` modules, `std` and the crates in `Cargo.toml`; nothing else in this crate.

use serde::{Deserialize, Serialize};
use std::ops::{Add, Mul, Sub};

/// Edge length of a chunk in voxels.
pub const CHUNK_SIZE: i32 = 32;
/// Number of voxels in a chunk.
pub const CHUNK_VOLUME: usize = (CHUNK_SIZE * CHUNK_SIZE * CHUNK_SIZE) as usize;

/// A 3D integer vector (voxel position, extent or offset).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct IVec3 {
    pub x: i32,
    pub y: i32,
    pub z: i32,
}

impl IVec3 {
    pub const ZERO: IVec3 = IVec3 { x: 0, y: 0, z: 0 };
    pub const ONE: IVec3 = IVec3 { x: 1, y: 1, z: 1 };

    pub const fn new(x: i32, y: i32, z: i32) -> Self {
        Self { x, y, z }
    }

    pub const fn splat(v: i32) -> Self {
        Self { x: v, y: v, z: v }
    }

    /// Product of the components, as a volume (`0` for any negative extent).
    pub fn volume(self) -> usize {
        if self.x <= 0 || self.y <= 0 || self.z <= 0 { 0 } else { self.x as usize * self.y as usize * self.z as usize }
    }

    pub fn min_elem(self) -> i32 {
        self.x.min(self.y).min(self.z)
    }
}

impl Add for IVec3 {
    type Output = IVec3;
    fn add(self, o: IVec3) -> IVec3 {
        IVec3::new(self.x + o.x, self.y + o.y, self.z + o.z)
    }
}

impl Sub for IVec3 {
    type Output = IVec3;
    fn sub(self, o: IVec3) -> IVec3 {
        IVec3::new(self.x - o.x, self.y - o.y, self.z - o.z)
    }
}

impl Mul<i32> for IVec3 {
    type Output = IVec3;
    fn mul(self, s: i32) -> IVec3 {
        IVec3::new(self.x * s, self.y * s, self.z * s)
    }
}

/// The coordinate of a chunk in the chunk grid.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ChunkCoord {
    pub x: i32,
    pub y: i32,
    pub z: i32,
}

impl ChunkCoord {
    pub const fn new(x: i32, y: i32, z: i32) -> Self {
        Self { x, y, z }
    }

    /// The chunk containing voxel `p`.
    pub fn containing(p: IVec3) -> Self {
        Self::new(p.x.div_euclid(CHUNK_SIZE), p.y.div_euclid(CHUNK_SIZE), p.z.div_euclid(CHUNK_SIZE))
    }

    /// The smallest voxel position inside this chunk.
    pub fn min_voxel(self) -> IVec3 {
        IVec3::new(self.x, self.y, self.z) * CHUNK_SIZE
    }

    pub fn as_ivec3(self) -> IVec3 {
        IVec3::new(self.x, self.y, self.z)
    }

    /// Squared Euclidean distance in chunk units.
    pub fn distance_sq(self, o: ChunkCoord) -> i64 {
        let dx = (self.x - o.x) as i64;
        let dy = (self.y - o.y) as i64;
        let dz = (self.z - o.z) as i64;
        dx * dx + dy * dy + dz * dz
    }
}

/// Position of voxel `p` inside its chunk, each component in `0..CHUNK_SIZE`.
pub fn local_in_chunk(p: IVec3) -> IVec3 {
    IVec3::new(p.x.rem_euclid(CHUNK_SIZE), p.y.rem_euclid(CHUNK_SIZE), p.z.rem_euclid(CHUNK_SIZE))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negative_voxels_map_to_negative_chunks() {
        assert_eq!(ChunkCoord::containing(IVec3::new(-1, 0, 31)), ChunkCoord::new(-1, 0, 0));
        assert_eq!(ChunkCoord::containing(IVec3::new(-32, -33, 32)), ChunkCoord::new(-1, -2, 1));
        assert_eq!(local_in_chunk(IVec3::new(-1, -33, 32)), IVec3::new(31, 31, 0));
    }

    #[test]
    fn chunk_min_voxel_round_trips() {
        let c = ChunkCoord::new(-3, 2, 7);
        assert_eq!(ChunkCoord::containing(c.min_voxel()), c);
        assert_eq!(ChunkCoord::containing(c.min_voxel() + IVec3::splat(31)), c);
    }
}
