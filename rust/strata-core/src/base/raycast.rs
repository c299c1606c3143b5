//! Exact voxel raycast: the Amanatides–Woo walk through the unit voxel grid, visiting every voxel
//! a ray passes through in order, until a voxel the caller counts as a hit.
//!
//! The ray is `origin + t · dir` with `dir` normalised, so `t` is a distance in voxels. A point
//! belongs to the voxel `floor(point)` (half-open cells), so the origin's voxel is
//! `floor(origin)`, and a ray lying in a grid plane walks the voxels on the plane's positive
//! side. Where the ray crosses two or three boundaries at the same `t` (exactly through an edge
//! or a corner) every crossed axis steps at once: the voxels it only touches at a point are not
//! visited. Crossing times are computed from the origin afresh at every step (never accumulated),
//! so the walk is the same on every machine and agrees with the analytic box intersection.
//!
//! The walk is bounded: `max_distance` is clamped to [`MAX_RAY_DISTANCE`], so one call looks up
//! at most `3 · MAX_RAY_DISTANCE + 1` voxels. Beyond the world's bounds
//! ([`crate::base::coords::voxel_in_world`]) the world is air and the walk stops.
//!
//! May use: `base` (coordinates, block ids) and `std`.

use crate::base::block::BlockId;
use crate::base::coords::{IVec3, WORLD_LIMIT_VOXELS, voxel_in_world};
use thiserror::Error;

/// The longest ray one call walks, in voxels; longer `max_distance`s are clamped to it.
pub const MAX_RAY_DISTANCE: f64 = 4096.0;

/// Where a ray first met a hit voxel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// The voxel hit.
    pub voxel: IVec3,
    /// Outward normal of the face the ray entered through (pointing back towards the origin):
    /// one unit axis; zero when the origin is inside the hit voxel. Through an exact edge or
    /// corner, the first crossed axis in the order x, y, z.
    pub normal: IVec3,
    /// Distance from the origin to the entry point, in voxels (0 when the origin is inside).
    pub distance: f64,
    /// The entry point, `origin + distance · dir`.
    pub point: [f64; 3],
    /// The block of the hit voxel.
    pub block: BlockId,
}

/// A ray that cannot be cast; each names the value and what is allowed.
#[derive(Clone, Copy, Debug, PartialEq, Error)]
pub enum RayError {
    #[error("ray direction {0:?} is not usable; allowed: finite components, not all zero")]
    BadDirection([f64; 3]),
    #[error(
        "ray origin {origin:?} is not usable; allowed: finite components within -{limit}..{limit}",
        limit = WORLD_LIMIT_VOXELS
    )]
    BadOrigin { origin: [f64; 3] },
    #[error("ray max_distance {0} is not usable; allowed: a finite number >= 0 (clamped to {MAX_RAY_DISTANCE})")]
    BadDistance(f64),
}

/// Walks the ray from `origin` along `dir` for at most `max_distance` voxels (clamped to
/// [`MAX_RAY_DISTANCE`]) and returns the first voxel whose block `is_hit` accepts, looking each
/// voxel up once through `voxel_at`, in order. `Ok(None)` when nothing is hit within the
/// distance or the ray leaves the world's bounds first.
pub fn raycast(
    mut voxel_at: impl FnMut(IVec3) -> BlockId,
    is_hit: impl Fn(BlockId) -> bool,
    origin: [f64; 3],
    dir: [f64; 3],
    max_distance: f64,
) -> Result<Option<RayHit>, RayError> {
    let limit = WORLD_LIMIT_VOXELS as f64;
    if origin.iter().any(|c| !c.is_finite() || c.abs() >= limit) {
        return Err(RayError::BadOrigin { origin });
    }
    let len = (dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]).sqrt();
    if !len.is_finite() || len == 0.0 {
        return Err(RayError::BadDirection(dir));
    }
    if max_distance.is_nan() || max_distance < 0.0 {
        return Err(RayError::BadDistance(max_distance));
    }
    let max_t = max_distance.min(MAX_RAY_DISTANCE);
    let d = [dir[0] / len, dir[1] / len, dir[2] / len];
    // Voxel coordinates in i64: the walk never overflows, even a step past the world's edge.
    let mut v = [origin[0].floor() as i64, origin[1].floor() as i64, origin[2].floor() as i64];
    let step = d.map(|c| {
        if c > 0.0 {
            1i64
        } else if c < 0.0 {
            -1
        } else {
            0
        }
    });
    // The time the ray crosses axis `a`'s next boundary out of voxel coordinate `va`, from the
    // origin (not accumulated). An axis's time changes only when it steps, so each is computed
    // once per voxel boundary: the same values as computing all three at every step.
    let cross = |a: usize, va: i64| -> f64 {
        match step[a] {
            1 => ((va + 1) as f64 - origin[a]) / d[a],
            -1 => (va as f64 - origin[a]) / d[a],
            _ => f64::INFINITY,
        }
    };
    let mut times = [cross(0, v[0]), cross(1, v[1]), cross(2, v[2])];
    let (mut t, mut normal) = (0.0f64, IVec3::ZERO);
    loop {
        let voxel = IVec3::new(v[0] as i32, v[1] as i32, v[2] as i32);
        if v.iter().any(|&c| c < i32::MIN as i64 || c > i32::MAX as i64) || !voxel_in_world(voxel) {
            return Ok(None);
        }
        let block = voxel_at(voxel);
        if is_hit(block) {
            let point = [origin[0] + d[0] * t, origin[1] + d[1] * t, origin[2] + d[2] * t];
            return Ok(Some(RayHit { voxel, normal, distance: t, point, block }));
        }
        let next = times[0].min(times[1]).min(times[2]);
        if next > max_t {
            return Ok(None);
        }
        normal = IVec3::ZERO;
        for a in (0..3).rev() {
            if times[a] == next {
                v[a] += step[a];
                times[a] = cross(a, v[a]);
                let mut n = [0; 3];
                n[a] = -step[a] as i32;
                normal = IVec3::new(n[0], n[1], n[2]);
            }
        }
        t = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator for the random cases (splitmix64).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
        fn unit(&mut self) -> f64 {
            (self.next() >> 11) as f64 / (1u64 << 53) as f64
        }
        fn range(&mut self, lo: f64, hi: f64) -> f64 {
            lo + (hi - lo) * self.unit()
        }
    }

    /// The interval of `t >= 0` over which the ray lies in voxel `v` (slab method), if it has
    /// positive length or contains the origin.
    fn slab(v: IVec3, o: [f64; 3], d: [f64; 3]) -> Option<(f64, f64)> {
        let (mut lo, mut hi) = (0.0f64, f64::INFINITY);
        for (a, c) in [v.x, v.y, v.z].into_iter().enumerate() {
            let (min, max) = (c as f64, c as f64 + 1.0);
            if d[a] == 0.0 {
                // Half-open cells: a ray in the plane `min` belongs to this voxel.
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

    fn normalised(d: [f64; 3]) -> [f64; 3] {
        let l = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
        d.map(|c| c / l)
    }

    /// Every voxel the ray visits, in order, over an all-air world.
    fn walk(o: [f64; 3], d: [f64; 3], max: f64) -> Vec<IVec3> {
        let mut seen = Vec::new();
        let hit = raycast(
            |p| {
                seen.push(p);
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
    fn random_rays_hit_the_nearest_solid_voxel_of_the_analytic_reference() {
        let mut rng = Rng(7);
        for case in 0..400 {
            // A random box of voxels around the origin, a quarter of them solid, negative
            // coordinates included.
            let mut solid = std::collections::HashSet::new();
            for x in -12..12 {
                for y in -12..12 {
                    for z in -12..12 {
                        if rng.next().is_multiple_of(4) {
                            solid.insert(IVec3::new(x, y, z));
                        }
                    }
                }
            }
            let o = [rng.range(-10.0, 10.0), rng.range(-10.0, 10.0), rng.range(-10.0, 10.0)];
            let d = [rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)];
            let max = rng.range(0.0, 30.0);
            let got = raycast(|p| solid.contains(&p) as BlockId, |b| b != 0, o, d, max).unwrap();
            let dn = normalised(d);
            let expected = solid
                .iter()
                .filter_map(|&v| slab(v, o, dn).map(|(t0, _)| (t0, v)))
                .filter(|&(t0, _)| t0 <= max)
                .min_by(|a, b| a.0.total_cmp(&b.0));
            match (got, expected) {
                (None, None) => {}
                (Some(h), Some((t0, v))) => {
                    assert_eq!(h.voxel, v, "case {case}: origin {o:?} dir {d:?}");
                    assert!((h.distance - t0).abs() < 1e-9, "case {case}: {} vs {t0}", h.distance);
                    assert_eq!(h.block, 1);
                    for a in 0..3 {
                        assert!((h.point[a] - (o[a] + dn[a] * t0)).abs() < 1e-9);
                    }
                    if t0 == 0.0 {
                        assert_eq!(h.normal, IVec3::ZERO);
                    } else {
                        // The normal faces back along the ray and names the face the point lies on.
                        let n = [h.normal.x, h.normal.y, h.normal.z];
                        let a = n.iter().position(|&c| c != 0).unwrap();
                        assert!(n[a] as f64 * dn[a] < 0.0);
                        let face = if n[a] < 0 { [v.x, v.y, v.z][a] } else { [v.x, v.y, v.z][a] + 1 };
                        assert!((h.point[a] - face as f64).abs() < 1e-9);
                    }
                }
                (g, e) => panic!("case {case}: origin {o:?} dir {d:?} max {max}: got {g:?}, expected {e:?}"),
            }
        }
    }

    #[test]
    fn random_rays_visit_exactly_the_voxels_they_pass_through_in_order() {
        let mut rng = Rng(11);
        for _ in 0..200 {
            let o = [rng.range(-5.0, 5.0), rng.range(-5.0, 5.0), rng.range(-5.0, 5.0)];
            let d = [rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)];
            let max = rng.range(0.0, 8.0);
            let seen = walk(o, d, max);
            let dn = normalised(d);
            // The reference: every voxel near the ray whose interval starts within the distance,
            // sorted by entry time.
            let mut expected: Vec<(f64, IVec3)> = Vec::new();
            for x in -15..15 {
                for y in -15..15 {
                    for z in -15..15 {
                        let v = IVec3::new(x, y, z);
                        if let Some((t0, _)) = slab(v, o, dn).filter(|&(t0, _)| t0 <= max) {
                            expected.push((t0, v));
                        }
                    }
                }
            }
            expected.sort_by(|a, b| a.0.total_cmp(&b.0));
            let expected: Vec<IVec3> = expected.into_iter().map(|e| e.1).collect();
            assert_eq!(seen, expected, "origin {o:?} dir {d:?} max {max}");
            // Consecutive voxels share a face (no corner crossing in random rays).
            for w in seen.windows(2) {
                let diff = w[1] - w[0];
                assert_eq!(diff.x.abs() + diff.y.abs() + diff.z.abs(), 1);
            }
        }
    }

    #[test]
    fn axis_aligned_rays_walk_one_column_and_hit_with_the_facing_normal() {
        let ground = |p: IVec3| if p.y < 0 { 1 } else { 0 };
        let hit = raycast(ground, |b| b != 0, [3.5, 10.25, -7.5], [0.0, -2.0, 0.0], 100.0).unwrap().unwrap();
        assert_eq!(hit.voxel, IVec3::new(3, -1, -8));
        assert_eq!(hit.normal, IVec3::new(0, 1, 0));
        assert_eq!(hit.distance, 10.25);
        assert_eq!(hit.point, [3.5, 0.0, -7.5]);
        assert_eq!(
            walk([0.5, 0.5, 0.5], [-1.0, 0.0, 0.0], 3.0),
            (0..=3).map(|i| IVec3::new(-i, 0, 0)).collect::<Vec<_>>()
        );
        assert_eq!(
            walk([0.5, 0.5, 0.5], [0.0, 0.0, 1.0], 2.4),
            (0..=2).map(|i| IVec3::new(0, 0, i)).collect::<Vec<_>>()
        );
        // Too short to reach the ground.
        assert_eq!(raycast(ground, |b| b != 0, [0.5, 5.0, 0.5], [0.0, -1.0, 0.0], 4.99).unwrap(), None);
    }

    #[test]
    fn a_ray_starting_inside_a_hit_voxel_hits_it_at_distance_zero() {
        let hit = raycast(|_| 3, |b| b == 3, [-1.5, -2.25, 7.0], [1.0, 1.0, 1.0], 10.0).unwrap().unwrap();
        assert_eq!(hit.voxel, IVec3::new(-2, -3, 7));
        assert_eq!((hit.normal, hit.distance, hit.block), (IVec3::ZERO, 0.0, 3));
        assert_eq!(hit.point, [-1.5, -2.25, 7.0]);
    }

    #[test]
    fn rays_through_exact_edges_and_corners_step_every_crossed_axis_at_once() {
        // Through corners: the diagonal visits (i, i, i) only.
        let seen = walk([0.5, 0.5, 0.5], [1.0, 1.0, 1.0], 4.0 * 3f64.sqrt());
        assert_eq!(seen, (0..=4).map(IVec3::splat).collect::<Vec<_>>());
        // Through edges, negative direction.
        let seen = walk([0.5, 0.5, 0.5], [-1.0, -1.0, 0.0], 3.0 * 2f64.sqrt());
        assert_eq!(seen, (0..=3).map(|i| IVec3::new(-i, -i, 0)).collect::<Vec<_>>());
        // Along an edge line: the ray belongs to the voxels on the planes' positive side.
        let seen = walk([0.0, 0.0, 0.25], [0.0, 0.0, -1.0], 2.0);
        assert_eq!(seen, vec![IVec3::new(0, 0, 0), IVec3::new(0, 0, -1), IVec3::new(0, 0, -2)]);
        // The hit normal through a corner names the first crossed axis (x, y, z order).
        let hit = raycast(|p| (p == IVec3::ONE) as BlockId, |b| b != 0, [0.5; 3], [1.0; 3], 5.0).unwrap().unwrap();
        assert_eq!((hit.voxel, hit.normal), (IVec3::ONE, IVec3::new(-1, 0, 0)));
        // Same inputs, same walk (law: Deterministic).
        assert_eq!(walk([0.0, 0.0, 0.25], [0.0, 0.0, -1.0], 2.0), seen);
    }

    #[test]
    fn bad_rays_are_refused_and_long_rays_are_clamped() {
        let air = |_| 0;
        let solid = |b: BlockId| b != 0;
        for d in [[0.0; 3], [f64::NAN, 0.0, 1.0], [f64::INFINITY, 0.0, 0.0]] {
            assert!(matches!(raycast(air, solid, [0.0; 3], d, 1.0), Err(RayError::BadDirection(_))));
        }
        assert!(matches!(
            raycast(air, solid, [f64::NAN, 0.0, 0.0], [1.0, 0.0, 0.0], 1.0),
            Err(RayError::BadOrigin { .. })
        ));
        assert!(matches!(raycast(air, solid, [3e9, 0.0, 0.0], [1.0, 0.0, 0.0], 1.0), Err(RayError::BadOrigin { .. })));
        for m in [f64::NAN, -1.0] {
            let e = raycast(air, solid, [0.0; 3], [1.0, 0.0, 0.0], m).unwrap_err();
            assert!(e.to_string().contains("max_distance"), "{e}");
        }
        // An infinite distance walks MAX_RAY_DISTANCE voxels and stops.
        let seen = walk([0.5; 3], [1.0, 0.0, 0.0], f64::INFINITY);
        assert_eq!(seen.len(), MAX_RAY_DISTANCE as usize + 1);
        // At the world's edge the walk stops: beyond it is air.
        let edge = (WORLD_LIMIT_VOXELS - 2) as f64 + 0.5;
        assert_eq!(walk([edge, 0.5, 0.5], [1.0, 0.0, 0.0], 100.0).len(), 2);
    }
}
