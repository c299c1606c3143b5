//! Integer coordinates: voxel positions, chunk coordinates and the mapping between them.
//!
//! One voxel is one world unit. Chunk `(cx, cy, cz)` spans voxels `[32·cx, 32·cx + 32)` on each
//! axis; negative coordinates use floor division so `-1` lies in chunk `-1`, not chunk `0`.
//!
//! May use: the other `base` modules, `std` and the crates in `Cargo.toml`; nothing else in this crate.

use serde::{Deserialize, Serialize};
use std::ops::{Add, Mul, Sub};

/// The tile a side-view point stands in: the one holding it, except that a point on a tile's
/// top edge (an object's feet on the floor below: rows grow downwards) stands in the tile above,
/// so an object on the floor at a chunk's bottom row belongs to that chunk. Clamped within `i32`;
/// a point not finite stands in tile 0.
pub fn standing_tile(position: [f64; 2]) -> [i32; 2] {
    let tile =
        |v: f64| if v.is_finite() { v.floor().clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32 } else { 0 };
    let [x, y] = position;
    let row = if y.is_finite() && y.fract() == 0.0 { tile(y).saturating_sub(1) } else { tile(y) };
    [tile(x), row]
}

/// Edge length of a chunk in voxels.
pub const CHUNK_SIZE: i32 = 32;
/// Number of voxels in a chunk.
pub const CHUNK_VOLUME: usize = (CHUNK_SIZE * CHUNK_SIZE * CHUNK_SIZE) as usize;

/// The world's bounds: chunks whose every coordinate lies in
/// `-WORLD_LIMIT_CHUNKS..=WORLD_LIMIT_CHUNKS` are generated and meshed. The limit keeps the
/// voxels of such a chunk, its one-voxel halo and the generator's two-voxel column ring inside
/// `i32` (`32 · 67_108_862 + 34 < 2³¹`), so no voxel coordinate wraps. Chunks beyond it are air:
/// the generator gives them an all-air buffer at [`ChunkCoord::clamped_to_world`] and meshing that
/// gives nothing (see [`ChunkCoord::in_world`]).
pub const WORLD_LIMIT_CHUNKS: i32 = (i32::MAX / CHUNK_SIZE) - 1;

/// The world's bounds in voxels: every voxel of an in-world chunk has coordinates in
/// `-WORLD_LIMIT_VOXELS..WORLD_LIMIT_VOXELS`.
pub const WORLD_LIMIT_VOXELS: i32 = (WORLD_LIMIT_CHUNKS + 1) * CHUNK_SIZE;

/// Whether every coordinate of voxel (or 2D tile) `p` lies in `-WORLD_LIMIT_VOXELS..WORLD_LIMIT_VOXELS`,
/// the world's bounds: beyond them the world is air and edits are refused.
#[inline]
pub fn voxel_in_world(p: IVec3) -> bool {
    let r = -WORLD_LIMIT_VOXELS..WORLD_LIMIT_VOXELS;
    r.contains(&p.x) && r.contains(&p.y) && r.contains(&p.z)
}

/// `v` moved into the world's bounds on one axis (the nearest coordinate inside).
#[inline]
pub fn clamp_to_world(v: i32) -> i32 {
    v.clamp(-WORLD_LIMIT_VOXELS, WORLD_LIMIT_VOXELS - 1)
}

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

    /// The component-wise minimum.
    pub fn min(self, o: IVec3) -> IVec3 {
        IVec3::new(self.x.min(o.x), self.y.min(o.y), self.z.min(o.z))
    }

    /// The component-wise maximum.
    pub fn max(self, o: IVec3) -> IVec3 {
        IVec3::new(self.x.max(o.x), self.y.max(o.y), self.z.max(o.z))
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

    /// Whether this chunk lies inside the world's bounds ([`WORLD_LIMIT_CHUNKS`] on every axis).
    #[inline]
    pub fn in_world(self) -> bool {
        let r = -WORLD_LIMIT_CHUNKS..=WORLD_LIMIT_CHUNKS;
        r.contains(&self.x) && r.contains(&self.y) && r.contains(&self.z)
    }

    /// The nearest chunk inside the world's bounds (this chunk when it is inside).
    pub fn clamped_to_world(self) -> Self {
        let c = |v: i32| v.clamp(-WORLD_LIMIT_CHUNKS, WORLD_LIMIT_CHUNKS);
        Self::new(c(self.x), c(self.y), c(self.z))
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

    #[test]
    fn the_world_limit_keeps_padded_chunks_inside_i32() {
        assert_eq!(WORLD_LIMIT_CHUNKS, 67_108_862);
        assert!(voxel_in_world(IVec3::new(WORLD_LIMIT_VOXELS - 1, -WORLD_LIMIT_VOXELS, 0)));
        assert!(!voxel_in_world(IVec3::new(WORLD_LIMIT_VOXELS, 0, 0)));
        assert!(!voxel_in_world(IVec3::new(0, i32::MIN, 0)));
        assert_eq!(clamp_to_world(i32::MAX), WORLD_LIMIT_VOXELS - 1);
        assert_eq!(clamp_to_world(i32::MIN), -WORLD_LIMIT_VOXELS);
        let far = ChunkCoord::splat_for_test(WORLD_LIMIT_CHUNKS);
        assert!(far.in_world() && !ChunkCoord::splat_for_test(WORLD_LIMIT_CHUNKS + 1).in_world());
        // The padded chunk plus the column ring, computed in i64: inside i32 on both sides.
        let hi = far.min_voxel().x as i64 + CHUNK_SIZE as i64 + 2;
        let lo = ChunkCoord::splat_for_test(-WORLD_LIMIT_CHUNKS).min_voxel().x as i64 - 2;
        assert!(hi <= i32::MAX as i64 && lo >= i32::MIN as i64);
        assert_eq!(far.min_voxel().x + CHUNK_SIZE, WORLD_LIMIT_VOXELS);
        assert_eq!(
            ChunkCoord::new(i32::MIN, 0, i32::MAX).clamped_to_world(),
            ChunkCoord::new(-WORLD_LIMIT_CHUNKS, 0, WORLD_LIMIT_CHUNKS)
        );
    }

    impl ChunkCoord {
        fn splat_for_test(v: i32) -> Self {
            Self::new(v, v, v)
        }
    }
}
