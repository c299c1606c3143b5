//! The floating origin: where the engine's small, 32-bit coordinates start in the world.
//!
//! Godot's standard build keeps positions in `f32`, whose step is 1/128 m at 100 km and 64 m at
//! 10⁹ m. A world node that shows the world far from its start therefore keeps an integer,
//! chunk-aligned *origin* and places everything at `world − origin` ("local" coordinates), which
//! stay small near the viewer. World coordinates are exact: voxels are integers (`IVec3`), points
//! are `f64` (to 1.2 × 10⁻⁷ m at the world's bounds), and a point's local coordinates are
//! `world − origin` in `f64` before they are narrowed to the engine's `f32`.
//!
//! [`FloatingOrigin::shift_for`] is the one rule for when and where the origin moves: when the
//! viewer is farther than the shift distance from it (in any axis), to the chunk corner nearest
//! the viewer. The origin is always a multiple of [`CHUNK_SIZE`], so a chunk's local corner is a
//! whole number and every block texture, light value and chunk-relative pattern is unchanged by
//! a shift.
//!
//! May use: `base::coords`.

use crate::base::coords::{CHUNK_SIZE, IVec3, WORLD_LIMIT_VOXELS};

/// The smallest distance (voxels) a world may let its viewer go from the origin before it shifts:
/// two chunks, so that a viewer standing on a chunk border does not shift back and forth.
pub const MIN_SHIFT_DISTANCE: f64 = 2.0 * CHUNK_SIZE as f64;

/// The largest shift distance allowed (voxels). At 16,384 an `f32` coordinate's step is 1/512 m
/// (2 mm), the coarsest a walk may be simulated at while staying within 1 cm a metre.
pub const MAX_SHIFT_DISTANCE: f64 = 16_384.0;

/// The shift distance a world starts with (voxels): at 1,024 an `f32`'s step is 1/16,384 m, so
/// a walk simulated in local coordinates stays within 0.1 mm a metre, and a player walking at
/// 5 m/s shifts the origin once in three minutes or more.
pub const DEFAULT_SHIFT_DISTANCE: f64 = 1024.0;

/// The one rule of when an origin moves, in 3D and in the side view: the viewer (local
/// coordinates) is farther than `distance` from the origin on some axis. `distance` is clamped to
/// [`MIN_SHIFT_DISTANCE`]..=[`MAX_SHIFT_DISTANCE`] (NaN: the largest); a viewer at a non-finite
/// point never moves it.
pub(crate) fn viewer_is_past<const N: usize>(viewer_local: [f64; N], distance: f64) -> bool {
    let distance =
        if distance.is_nan() { MAX_SHIFT_DISTANCE } else { distance.clamp(MIN_SHIFT_DISTANCE, MAX_SHIFT_DISTANCE) };
    viewer_local.iter().all(|v| v.is_finite()) && viewer_local.iter().any(|v| v.abs() > distance)
}

/// An integer, chunk-aligned origin in world voxels. `local = world − origin`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FloatingOrigin {
    voxel: IVec3,
}

impl FloatingOrigin {
    /// The world's start: local coordinates equal world coordinates.
    pub const ZERO: FloatingOrigin = FloatingOrigin { voxel: IVec3::ZERO };

    /// The origin at the chunk corner nearest `voxel` (rounded to the nearest multiple of
    /// [`CHUNK_SIZE`] on each axis, within the world's bounds).
    pub fn aligned(voxel: IVec3) -> Self {
        let align = |v: i32| {
            let c = (f64::from(v) / f64::from(CHUNK_SIZE)).round() as i64 * i64::from(CHUNK_SIZE);
            c.clamp(-i64::from(WORLD_LIMIT_VOXELS), i64::from(WORLD_LIMIT_VOXELS)) as i32
        };
        FloatingOrigin { voxel: IVec3::new(align(voxel.x), align(voxel.y), align(voxel.z)) }
    }

    /// The origin in world voxels (a multiple of [`CHUNK_SIZE`] on each axis).
    pub fn voxel(self) -> IVec3 {
        self.voxel
    }

    /// World point → local point, in `f64` (exact for every world point of `f64` precision).
    pub fn to_local(self, world: [f64; 3]) -> [f64; 3] {
        let o = self.as_f64();
        [world[0] - o[0], world[1] - o[1], world[2] - o[2]]
    }

    /// Local point → world point, in `f64`: within 1.2 × 10⁻⁷ (an `f64`'s step at 10⁹) of the
    /// exact sum, and exact for local values of 2 or more whose `f32` step is not finer.
    pub fn to_world(self, local: [f64; 3]) -> [f64; 3] {
        let o = self.as_f64();
        [local[0] + o[0], local[1] + o[1], local[2] + o[2]]
    }

    /// World voxel → local voxel (the local position of its corner). Saturates at `i32`'s range.
    pub fn voxel_to_local(self, world: IVec3) -> IVec3 {
        let d = |w: i32, o: i32| (i64::from(w) - i64::from(o)).clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32;
        IVec3::new(d(world.x, self.voxel.x), d(world.y, self.voxel.y), d(world.z, self.voxel.z))
    }

    /// The voxel a local point lies in, in world voxels (floored; saturates at `i32`'s range).
    pub fn voxel_at(self, local: [f64; 3]) -> IVec3 {
        let w = self.to_world(local);
        let f = |v: f64| v.floor().clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32;
        IVec3::new(f(w[0]), f(w[1]), f(w[2]))
    }

    /// The origin to move to for a viewer at `viewer_local` (local coordinates), or `None` while
    /// the viewer is within `distance` of the origin on every axis. `distance` is clamped to
    /// [`MIN_SHIFT_DISTANCE`]..=[`MAX_SHIFT_DISTANCE`]; a viewer at a non-finite point never
    /// shifts the origin.
    pub fn shift_for(self, viewer_local: [f64; 3], distance: f64) -> Option<FloatingOrigin> {
        if !viewer_is_past(viewer_local, distance) {
            return None;
        }
        let w = self.to_world(viewer_local);
        let clamp = |v: f64| v.round().clamp(f64::from(-WORLD_LIMIT_VOXELS), f64::from(WORLD_LIMIT_VOXELS)) as i32;
        let next = FloatingOrigin::aligned(IVec3::new(clamp(w[0]), clamp(w[1]), clamp(w[2])));
        (next != self).then_some(next)
    }

    /// `next − self`: what every local coordinate loses when the origin moves to `next`.
    pub fn shift_to(self, next: FloatingOrigin) -> IVec3 {
        IVec3::new(next.voxel.x - self.voxel.x, next.voxel.y - self.voxel.y, next.voxel.z - self.voxel.z)
    }

    fn as_f64(self) -> [f64; 3] {
        [f64::from(self.voxel.x), f64::from(self.voxel.y), f64::from(self.voxel.z)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_origins_are_chunk_corners_nearest_the_voxel() {
        assert_eq!(FloatingOrigin::aligned(IVec3::new(15, 16, -17)).voxel(), IVec3::new(0, 32, -32));
        let far = FloatingOrigin::aligned(IVec3::new(1_000_000_000, -1_000_000_007, 4_000_008));
        assert_eq!(far.voxel(), IVec3::new(1_000_000_000, -1_000_000_000, 4_000_000));
        for v in [far.voxel().x, far.voxel().y, far.voxel().z] {
            assert_eq!(v % CHUNK_SIZE, 0);
        }
        let edge = FloatingOrigin::aligned(IVec3::new(i32::MAX, i32::MIN, 0)).voxel();
        assert_eq!((edge.x, edge.y), (WORLD_LIMIT_VOXELS, -WORLD_LIMIT_VOXELS));
    }

    #[test]
    fn local_and_world_round_trip_exactly_at_the_bounds() {
        let o = FloatingOrigin::aligned(IVec3::splat(1_000_000_000));
        // Local values near the viewer map to world points within an f64 step and back.
        for local in [0.0f32, 8.5, -31.999_998, 1e-3, 2048.125] {
            let l = [f64::from(local), f64::from(-local), 0.25];
            let w = o.to_world(l);
            assert!((w[0] - 1_000_000_000.0 - f64::from(local)).abs() <= 1.2e-7, "{w:?}");
            let back = o.to_local(w);
            assert!((0..3).all(|i| (back[i] - l[i]).abs() <= 1.2e-7), "{back:?} {l:?}");
        }
        // Coarser values (2 or more, an f32 step of 2^-22 or coarser) are exact.
        assert_eq!(o.to_world([8.5, -31.999_998_092_651_367, 2048.125])[1], 1_000_000_000.0 - 31.999_998_092_651_367);
        assert_eq!(o.voxel_at([0.5, -0.5, 31.9]), IVec3::new(1_000_000_000, 999_999_999, 1_000_000_031));
        assert_eq!(o.voxel_to_local(IVec3::new(1_000_000_003, 999_999_999, 1_000_000_000)), IVec3::new(3, -1, 0));
        assert_eq!(o.voxel_to_local(IVec3::splat(-2_000_000_000)), IVec3::splat(i32::MIN));
    }

    #[test]
    fn the_origin_shifts_only_past_the_distance_and_to_the_viewers_chunk() {
        let o = FloatingOrigin::ZERO;
        assert_eq!(o.shift_for([1023.9, -1024.0, 0.0], 1024.0), None);
        let next = o.shift_for([1024.5, 3.0, -7.0], 1024.0).expect("past the distance");
        assert_eq!(next.voxel(), IVec3::new(1024, 0, 0));
        assert_eq!(o.shift_to(next), IVec3::new(1024, 0, 0));
        // After the shift the viewer is near the new origin, so it does not shift again.
        assert_eq!(next.shift_for(next.to_local([1024.5, 3.0, -7.0]), 1024.0), None);
        // The distance is clamped: 0 means two chunks, not a shift every frame.
        assert_eq!(o.shift_for([60.0, 0.0, 0.0], 0.0), None);
        assert!(o.shift_for([65.0, 0.0, 0.0], 0.0).is_some());
        assert_eq!(o.shift_for([f64::NAN, 0.0, 0.0], 64.0), None);
        assert_eq!(o.shift_for([f64::INFINITY, 0.0, 0.0], 64.0), None);
    }

    #[test]
    fn the_origin_never_leaves_the_world() {
        let o = FloatingOrigin::aligned(IVec3::splat(WORLD_LIMIT_VOXELS - 16));
        let next = o.shift_for([1e6, -1e6, 0.0], 1024.0).map_or(o, |n| n);
        assert!(next.voxel().x <= WORLD_LIMIT_VOXELS && next.voxel().y >= -WORLD_LIMIT_VOXELS);
    }
}
