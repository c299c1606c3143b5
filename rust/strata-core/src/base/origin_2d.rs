//! The side view's floating origin: where a 2D world node's small, 32-bit pixel coordinates start.
//!
//! The 2D counterpart of [`crate::base::origin`]: a side-view world node keeps an integer origin
//! in world *tiles*, aligned to its chunks (`side_view_chunk_tiles`, which a preset chooses, so
//! the chunk size is an argument here), and places everything at `world − origin` ("local"
//! tiles, times the tile size in pixels). World tiles are exact integers (`[i32; 2]`); points are
//! `f64` tiles; local points are narrowed to the engine's `f32` only near the origin.
//!
//! [`FloatingOrigin2D::shift_for`] is the one rule for when and where the origin moves, the same
//! rule as 3D's: when the viewer is farther than the shift distance (tiles, the same clamps as
//! 3D's voxels: [`MIN_SHIFT_DISTANCE`](crate::base::origin::MIN_SHIFT_DISTANCE)..=[`MAX_SHIFT_DISTANCE`](crate::base::origin::MAX_SHIFT_DISTANCE)) from it on either axis, to the
//! chunk corner nearest the viewer.
//!
//! A `TileMapLayer` addresses cells with integers, so a 2D world may draw its cells relative to
//! another integer corner than its origin (its *cell origin*) and place the layer node at
//! `(cell origin − origin) × tile size`: a shift then moves one node instead of rewriting every
//! cell. [`cells_exact`] is the rule for how far the two may drift apart while every pixel
//! position involved is an integer an `f32` holds exactly.
//!
//! May use: `base::coords`, `base::origin` (the shift distances).

use crate::base::coords::WORLD_LIMIT_VOXELS;
use crate::base::origin::viewer_is_past;

/// The largest pixel coordinate a cell layer may use: 2²³, half of the range (2²⁴) in which an
/// `f32` holds every integer, so a layer offset plus a cell position (each at most this) is still
/// exact.
pub const EXACT_PIXELS: i64 = 1 << 23;

/// An integer origin in world tiles, a multiple of the chunk size it was aligned to.
/// `local = world − origin`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FloatingOrigin2D {
    tile: [i32; 2],
}

impl FloatingOrigin2D {
    /// The world's start: local tiles equal world tiles.
    pub const ZERO: FloatingOrigin2D = FloatingOrigin2D { tile: [0, 0] };

    /// The origin at the chunk corner nearest `tile` (each axis rounded to the nearest multiple
    /// of `chunk_tiles`, clamped to 1..=4096, within the world's bounds).
    pub fn aligned(tile: [i32; 2], chunk_tiles: i32) -> Self {
        let chunk = i64::from(chunk_tiles.clamp(1, 4096));
        let align = |v: i32| {
            let c = (f64::from(v) / chunk as f64).round() as i64 * chunk;
            // A multiple of the chunk within the bounds (the bounds need not be one).
            let limit = i64::from(WORLD_LIMIT_VOXELS) / chunk * chunk;
            c.clamp(-limit, limit) as i32
        };
        FloatingOrigin2D { tile: [align(tile[0]), align(tile[1])] }
    }

    /// The origin in world tiles.
    pub fn tile(self) -> [i32; 2] {
        self.tile
    }

    /// World point (tiles) → local point (tiles), in `f64`.
    pub fn to_local(self, world: [f64; 2]) -> [f64; 2] {
        [world[0] - f64::from(self.tile[0]), world[1] - f64::from(self.tile[1])]
    }

    /// Local point (tiles) → world point (tiles), in `f64` (within an `f64` step, 1.2 × 10⁻⁷ at
    /// 10⁹, of the exact sum).
    pub fn to_world(self, local: [f64; 2]) -> [f64; 2] {
        [local[0] + f64::from(self.tile[0]), local[1] + f64::from(self.tile[1])]
    }

    /// World tile → local tile (saturates at `i32`'s range).
    pub fn tile_to_local(self, world: [i32; 2]) -> [i32; 2] {
        let d = |w: i32, o: i32| (i64::from(w) - i64::from(o)).clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32;
        [d(world[0], self.tile[0]), d(world[1], self.tile[1])]
    }

    /// The world tile a local point (tiles) lies in (floored; saturates at `i32`'s range).
    pub fn tile_at(self, local: [f64; 2]) -> [i32; 2] {
        let w = self.to_world(local);
        let f = |v: f64| if v.is_nan() { 0 } else { v.floor().clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32 };
        [f(w[0]), f(w[1])]
    }

    /// The origin to move to for a viewer at `viewer_local` (local tiles), or `None` while the
    /// viewer is within `distance` tiles of the origin on both axes. `distance` is clamped to
    /// [`MIN_SHIFT_DISTANCE`](crate::base::origin::MIN_SHIFT_DISTANCE)..=[`MAX_SHIFT_DISTANCE`](crate::base::origin::MAX_SHIFT_DISTANCE) (NaN: the largest); a viewer at a
    /// non-finite point never shifts the origin.
    pub fn shift_for(self, viewer_local: [f64; 2], distance: f64, chunk_tiles: i32) -> Option<FloatingOrigin2D> {
        if !viewer_is_past(viewer_local, distance) {
            return None;
        }
        let w = self.to_world(viewer_local);
        let clamp = |v: f64| v.round().clamp(f64::from(-WORLD_LIMIT_VOXELS), f64::from(WORLD_LIMIT_VOXELS)) as i32;
        let next = FloatingOrigin2D::aligned([clamp(w[0]), clamp(w[1])], chunk_tiles);
        (next != self).then_some(next)
    }

    /// `next − self` in tiles: what every local coordinate loses when the origin moves to `next`.
    pub fn shift_to(self, next: FloatingOrigin2D) -> [i32; 2] {
        let d = |a: i32, b: i32| (i64::from(b) - i64::from(a)).clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32;
        [d(self.tile[0], next.tile[0]), d(self.tile[1], next.tile[1])]
    }
}

/// Whether a tile layer whose cells are drawn relative to world tile `cell_origin` (cell = world
/// − `cell_origin`), placed at `(cell_origin − origin) × tile_px` in the node's space, puts the
/// world tiles `lo..=hi` at exact pixel positions: the layer's offset and every cell corner of
/// the box (and one tile more, the far corners) are within [`EXACT_PIXELS`] of zero. When it does
/// not, the layer has to be drawn again relative to the origin.
pub fn cells_exact(cell_origin: [i32; 2], origin: [i32; 2], tile_px: [i32; 2], lo: [i32; 2], hi: [i32; 2]) -> bool {
    (0..2).all(|a| {
        let px = i64::from(tile_px[a].max(1));
        let offset = (i64::from(cell_origin[a]) - i64::from(origin[a])) * px;
        let lo_cell = (i64::from(lo[a]) - i64::from(cell_origin[a])) * px;
        let hi_cell = (i64::from(hi[a]) + 1 - i64::from(cell_origin[a])) * px;
        offset.abs() <= EXACT_PIXELS && lo_cell.abs() <= EXACT_PIXELS && hi_cell.abs() <= EXACT_PIXELS
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_origins_are_chunk_corners_nearest_the_tile() {
        assert_eq!(FloatingOrigin2D::aligned([31, -33], 64).tile(), [0, -64]);
        assert_eq!(FloatingOrigin2D::aligned([1_000_000_007, 4_000_000], 64).tile(), [1_000_000_000, 4_000_000]);
        // Any chunk size a preset allows, each axis a multiple of it.
        let o = FloatingOrigin2D::aligned([123_456_789, -987_654_321], 48);
        assert!(o.tile().iter().all(|v| v % 48 == 0), "{o:?}");
        assert!((o.tile()[0] - 123_456_789).abs() <= 24 && (o.tile()[1] + 987_654_321).abs() <= 24);
        // Never past the bounds, and still a multiple of the chunk there.
        let edge = FloatingOrigin2D::aligned([i32::MAX, i32::MIN], 64).tile();
        assert!(edge[0] <= WORLD_LIMIT_VOXELS && edge[1] >= -WORLD_LIMIT_VOXELS && edge[0] % 64 == 0, "{edge:?}");
        // Out-of-range chunk sizes are clamped, never a division by zero.
        assert_eq!(FloatingOrigin2D::aligned([5, -5], 0).tile(), [5, -5]);
    }

    #[test]
    fn local_and_world_round_trip_exactly_at_the_bounds() {
        let o = FloatingOrigin2D::aligned([1_000_000_000, -1_000_000_000], 64);
        assert_eq!(o.tile(), [1_000_000_000, -1_000_000_000]);
        for local in [0.0f32, 8.5, -31.999_998, 1e-3, 2048.125] {
            let l = [f64::from(local), f64::from(-local)];
            let w = o.to_world(l);
            assert!((w[0] - 1_000_000_000.0 - f64::from(local)).abs() <= 1.2e-7, "{w:?}");
            let back = o.to_local(w);
            assert!((0..2).all(|i| (back[i] - l[i]).abs() <= 1.2e-7), "{back:?} {l:?}");
        }
        assert_eq!(o.tile_at([0.5, -0.5]), [1_000_000_000, -1_000_000_001]);
        assert_eq!(o.tile_at([f64::NAN, 0.0]), [0, -1_000_000_000]);
        assert_eq!(o.tile_to_local([1_000_000_003, -999_999_999]), [3, 1]);
        assert_eq!(o.tile_to_local([-2_000_000_000, 2_000_000_000]), [i32::MIN, i32::MAX]);
    }

    #[test]
    fn the_origin_shifts_only_past_the_distance_and_to_the_viewers_chunk() {
        let o = FloatingOrigin2D::ZERO;
        assert_eq!(o.shift_for([1023.9, -1024.0], 1024.0, 64), None);
        let next = o.shift_for([1024.5, 3.0], 1024.0, 64).expect("past the distance");
        assert_eq!(next.tile(), [1024, 0]);
        assert_eq!(o.shift_to(next), [1024, 0]);
        assert_eq!(next.shift_for(next.to_local([1024.5, 3.0]), 1024.0, 64), None);
        // Chunks of 48 tiles: the corner nearest the viewer on that grid.
        assert_eq!(o.shift_for([-1100.0, 0.0], 1024.0, 48).map(|n| n.tile()), Some([-1104, 0]));
        // The distance is clamped as 3D's: 0 means 64 tiles.
        assert_eq!(o.shift_for([60.0, 0.0], 0.0, 64), None);
        assert!(o.shift_for([65.0, 0.0], 0.0, 64).is_some());
        assert_eq!(o.shift_for([f64::NAN, 0.0], 64.0, 64), None);
        assert_eq!(o.shift_for([0.0, f64::NEG_INFINITY], 64.0, 64), None);
        // Never past the bounds.
        let far = FloatingOrigin2D::aligned([WORLD_LIMIT_VOXELS, 0], 64);
        let next = far.shift_for([1e6, 0.0], 1024.0, 64).unwrap_or(far);
        assert!(next.tile()[0] <= WORLD_LIMIT_VOXELS);
    }

    #[test]
    fn a_cell_layer_is_exact_while_its_offset_and_cells_stay_below_2_pow_23_pixels() {
        let origin = [1_000_000_000, 0];
        // Cells drawn at the origin itself: exact around it.
        assert!(cells_exact(origin, origin, [16, 16], [999_999_900, -50], [1_000_000_100, 50]));
        // A lag of a few shifts (the layer moved instead of its cells): exact.
        let lagging = [1_000_000_000 - 4 * 1024, 0];
        assert!(cells_exact(lagging, origin, [16, 16], [999_999_900, -50], [1_000_000_100, 50]));
        // Cells drawn relative to the world's start, seen at 10⁹: 1.6 × 10¹⁰ pixels, not exact.
        assert!(!cells_exact([0, 0], origin, [16, 16], [999_999_900, -50], [1_000_000_100, 50]));
        // The limit is 2²³ pixels: 524,288 tiles of 16 pixels, 32,768 of 256.
        assert!(cells_exact([0, 0], [524_287, 0], [16, 16], [524_200, 0], [524_286, 0]));
        assert!(!cells_exact([0, 0], [524_352, 0], [16, 16], [524_300, 0], [524_310, 0]));
        assert!(!cells_exact([0, 0], [32_832, 0], [256, 256], [32_800, 0], [32_810, 0]));
    }
}
