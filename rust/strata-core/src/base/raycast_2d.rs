//! Exact raycast on the 2D tile grid of side views: the Amanatides–Woo walk of
//! [`crate::base::raycast`] with two axes, visiting every cell a ray passes through in order,
//! until a cell the caller counts as a hit.
//!
//! The same rules as in 3D: the ray is `origin + t · dir` with `dir` normalised (so `t` is in
//! cells), a point belongs to the cell `floor(point)`, a ray exactly through a corner steps both
//! axes at once, crossing times are computed from the origin at every step, and the walk is
//! bounded by [`MAX_RAY_DISTANCE`] and by the world's bounds. Cells are `[x, y]`; in side views
//! y grows downwards, which the walk does not care about.
//!
//! May use: `base` (coordinates, block ids, the 3D raycast's limits and errors) and `std`.

use crate::base::block::BlockId;
use crate::base::coords::WORLD_LIMIT_VOXELS;
use crate::base::raycast::{MAX_RAY_DISTANCE, RayError};

/// Where a ray first met a hit cell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit2D {
    /// The cell hit.
    pub cell: [i32; 2],
    /// Outward normal of the edge the ray entered through (pointing back towards the origin):
    /// one unit axis; zero when the origin is inside the hit cell. Through an exact corner, the
    /// x axis.
    pub normal: [i32; 2],
    /// Distance from the origin to the entry point, in cells (0 when the origin is inside).
    pub distance: f64,
    /// The entry point, `origin + distance · dir`.
    pub point: [f64; 2],
    /// The block of the hit cell.
    pub block: BlockId,
}

/// Walks the ray from `origin` along `dir` for at most `max_distance` cells (clamped to
/// [`MAX_RAY_DISTANCE`]) and returns the first cell whose block `is_hit` accepts, looking each
/// cell up once through `cell_at`, in order. `Ok(None)` when nothing is hit within the distance
/// or the ray leaves the world's bounds first. Errors are those of the 3D raycast (the third
/// component of a reported vector is 0).
pub fn raycast_2d(
    mut cell_at: impl FnMut([i32; 2]) -> BlockId,
    is_hit: impl Fn(BlockId) -> bool,
    origin: [f64; 2],
    dir: [f64; 2],
    max_distance: f64,
) -> Result<Option<RayHit2D>, RayError> {
    let limit = WORLD_LIMIT_VOXELS as f64;
    if origin.iter().any(|c| !c.is_finite() || c.abs() >= limit) {
        return Err(RayError::BadOrigin { origin: [origin[0], origin[1], 0.0] });
    }
    let len = (dir[0] * dir[0] + dir[1] * dir[1]).sqrt();
    if !len.is_finite() || len == 0.0 {
        return Err(RayError::BadDirection([dir[0], dir[1], 0.0]));
    }
    if max_distance.is_nan() || max_distance < 0.0 {
        return Err(RayError::BadDistance(max_distance));
    }
    let max_t = max_distance.min(MAX_RAY_DISTANCE);
    let d = [dir[0] / len, dir[1] / len];
    let mut v = [origin[0].floor() as i64, origin[1].floor() as i64];
    let step = d.map(|c| {
        if c > 0.0 {
            1i64
        } else if c < 0.0 {
            -1
        } else {
            0
        }
    });
    let l = WORLD_LIMIT_VOXELS as i64;
    let (mut t, mut normal) = (0.0f64, [0i32; 2]);
    loop {
        if v.iter().any(|&c| c < -l || c >= l) {
            return Ok(None);
        }
        let cell = [v[0] as i32, v[1] as i32];
        let block = cell_at(cell);
        if is_hit(block) {
            let point = [origin[0] + d[0] * t, origin[1] + d[1] * t];
            return Ok(Some(RayHit2D { cell, normal, distance: t, point, block }));
        }
        let cross = |a: usize| -> f64 {
            match step[a] {
                1 => ((v[a] + 1) as f64 - origin[a]) / d[a],
                -1 => (v[a] as f64 - origin[a]) / d[a],
                _ => f64::INFINITY,
            }
        };
        let times = [cross(0), cross(1)];
        let next = times[0].min(times[1]);
        if next > max_t {
            return Ok(None);
        }
        normal = [0, 0];
        for a in (0..2).rev() {
            if times[a] == next {
                v[a] += step[a];
                normal = [0, 0];
                normal[a] = -step[a] as i32;
            }
        }
        t = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// splitmix64, for the random cases.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
        fn range(&mut self, lo: f64, hi: f64) -> f64 {
            lo + (hi - lo) * ((self.next() >> 11) as f64 / (1u64 << 53) as f64)
        }
    }

    /// The interval of `t >= 0` over which the ray lies in cell `c` (slab method), if it has
    /// positive length.
    fn slab(c: [i32; 2], o: [f64; 2], d: [f64; 2]) -> Option<(f64, f64)> {
        let (mut lo, mut hi) = (0.0f64, f64::INFINITY);
        for a in 0..2 {
            let (min, max) = (c[a] as f64, c[a] as f64 + 1.0);
            if d[a] == 0.0 {
                if o[a] < min || o[a] >= max {
                    return None;
                }
            } else {
                let (t0, t1) = ((min - o[a]) / d[a], (max - o[a]) / d[a]);
                lo = lo.max(t0.min(t1));
                hi = hi.min(t0.max(t1));
            }
        }
        (hi > lo).then_some((lo, hi))
    }

    fn normalised(d: [f64; 2]) -> [f64; 2] {
        let l = (d[0] * d[0] + d[1] * d[1]).sqrt();
        [d[0] / l, d[1] / l]
    }

    fn walk(o: [f64; 2], d: [f64; 2], max: f64) -> Vec<[i32; 2]> {
        let mut seen = Vec::new();
        let hit = raycast_2d(
            |c| {
                seen.push(c);
                0
            },
            |b| b != 0,
            o,
            d,
            max,
        )
        .unwrap();
        assert!(hit.is_none());
        seen
    }

    #[test]
    fn random_rays_hit_the_nearest_solid_cell_of_the_analytic_reference() {
        let mut rng = Rng(5);
        for case in 0..1000 {
            let mut solid = HashSet::new();
            for x in -16..16 {
                for y in -16..16 {
                    if rng.next().is_multiple_of(5) {
                        solid.insert([x, y]);
                    }
                }
            }
            let o = [rng.range(-12.0, 12.0), rng.range(-12.0, 12.0)];
            let d = [rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)];
            let max = rng.range(0.0, 30.0);
            let got = raycast_2d(|c| solid.contains(&c) as BlockId, |b| b != 0, o, d, max).unwrap();
            let dn = normalised(d);
            let expected = solid
                .iter()
                .filter_map(|&c| slab(c, o, dn).map(|(t0, _)| (t0, c)))
                .filter(|&(t0, _)| t0 <= max)
                .min_by(|a, b| a.0.total_cmp(&b.0));
            match (got, expected) {
                (None, None) => {}
                (Some(h), Some((t0, c))) => {
                    assert_eq!(h.cell, c, "case {case}: origin {o:?} dir {d:?}");
                    assert!((h.distance - t0).abs() < 1e-9, "case {case}: {} vs {t0}", h.distance);
                    for a in 0..2 {
                        assert!((h.point[a] - (o[a] + dn[a] * t0)).abs() < 1e-9);
                    }
                    if t0 == 0.0 {
                        assert_eq!(h.normal, [0, 0]);
                    } else {
                        let a = h.normal.iter().position(|&n| n != 0).unwrap();
                        assert!(h.normal[a] as f64 * dn[a] < 0.0, "case {case}: the normal faces the ray");
                        let edge = if h.normal[a] < 0 { c[a] } else { c[a] + 1 };
                        assert!((h.point[a] - edge as f64).abs() < 1e-9, "case {case}: the point lies on the edge");
                    }
                }
                (g, e) => panic!("case {case}: origin {o:?} dir {d:?} max {max}: got {g:?}, expected {e:?}"),
            }
        }
    }

    #[test]
    fn random_rays_visit_exactly_the_cells_they_pass_through_in_order() {
        let mut rng = Rng(9);
        for _ in 0..300 {
            let o = [rng.range(-5.0, 5.0), rng.range(-5.0, 5.0)];
            let d = [rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)];
            let max = rng.range(0.0, 10.0);
            let seen = walk(o, d, max);
            let dn = normalised(d);
            let mut expected: Vec<(f64, [i32; 2])> = Vec::new();
            for x in -20..20 {
                for y in -20..20 {
                    if let Some((t0, _)) = slab([x, y], o, dn).filter(|&(t0, _)| t0 <= max) {
                        expected.push((t0, [x, y]));
                    }
                }
            }
            expected.sort_by(|a, b| a.0.total_cmp(&b.0));
            let expected: Vec<[i32; 2]> = expected.into_iter().map(|e| e.1).collect();
            assert_eq!(seen, expected, "origin {o:?} dir {d:?} max {max}");
        }
    }

    #[test]
    fn axis_rays_corners_and_the_origin_cell() {
        // Straight down (y grows downwards in side views) onto a floor at y = 10.
        let floor = |c: [i32; 2]| (c[1] >= 10) as BlockId;
        let h = raycast_2d(floor, |b| b != 0, [3.5, 2.25], [0.0, 1.0], 100.0).unwrap().unwrap();
        assert_eq!((h.cell, h.normal, h.distance, h.point), ([3, 10], [0, -1], 7.75, [3.5, 10.0]));
        assert_eq!(raycast_2d(floor, |b| b != 0, [3.5, 2.25], [0.0, 1.0], 7.7).unwrap(), None);
        // Through corners: the diagonal visits (i, i) only, and a hit there faces x.
        assert_eq!(walk([0.5, 0.5], [1.0, 1.0], 3.0 * 2f64.sqrt()), (0..=3).map(|i| [i, i]).collect::<Vec<_>>());
        let h = raycast_2d(|c| (c == [2, 2]) as BlockId, |b| b != 0, [0.5, 0.5], [1.0, 1.0], 9.0).unwrap().unwrap();
        assert_eq!((h.cell, h.normal), ([2, 2], [-1, 0]));
        // Starting inside a hit cell.
        let h = raycast_2d(|_| 4, |b| b == 4, [-1.5, -0.25], [-1.0, 0.0], 3.0).unwrap().unwrap();
        assert_eq!((h.cell, h.normal, h.distance, h.block), ([-2, -1], [0, 0], 0.0, 4));
    }

    #[test]
    fn bad_rays_are_refused_and_long_rays_are_clamped() {
        let air = |_| 0;
        let solid = |b: BlockId| b != 0;
        for d in [[0.0; 2], [f64::NAN, 1.0], [f64::INFINITY, 0.0]] {
            assert!(matches!(raycast_2d(air, solid, [0.0; 2], d, 1.0), Err(RayError::BadDirection(_))));
        }
        assert!(matches!(raycast_2d(air, solid, [f64::NAN, 0.0], [1.0, 0.0], 1.0), Err(RayError::BadOrigin { .. })));
        assert!(matches!(raycast_2d(air, solid, [0.0; 2], [1.0, 0.0], -1.0), Err(RayError::BadDistance(_))));
        assert_eq!(walk([0.5; 2], [0.0, -1.0], f64::INFINITY).len(), MAX_RAY_DISTANCE as usize + 1);
        let edge = (WORLD_LIMIT_VOXELS - 2) as f64 + 0.5;
        assert_eq!(walk([edge, 0.5], [1.0, 0.0], 100.0).len(), 2);
    }
}
