//! The voxels of simple shapes, for edits that change many voxels at once: a box, a sphere and a
//! vertical cylinder, and for side views the tiles of a rectangle and a circle (tile `(x, y)` is
//! voxel `(x, y, 0)`, as the side view's edits store it). Each is counted exactly before anything is allocated, and one call may name
//! at most [`MAX_SHAPE_VOXELS`] voxels, all inside the world's bounds; anything else is a typed
//! error naming the shape, the value and what is allowed.
//!
//! Voxels come in a fixed order (y, then z, then x, ascending), so the same shape always gives the
//! same list.
//!
//! May use: `base` (coordinates) and `std`.

use crate::base::coords::{IVec3, WORLD_LIMIT_VOXELS};
use thiserror::Error;

/// The most voxels one shape may name.
pub const MAX_SHAPE_VOXELS: u64 = 1_000_000;

/// The largest radius a sphere or cylinder may have (already far beyond [`MAX_SHAPE_VOXELS`]),
/// so that counting stays cheap.
pub const MAX_SHAPE_RADIUS: f64 = 1024.0;

/// A shape that cannot be edited.
#[derive(Clone, Copy, Debug, PartialEq, Error)]
pub enum ShapeError {
    #[error("{shape} has {count} voxels; allowed: at most {limit} in one edit")]
    TooLarge { shape: &'static str, count: u64, limit: u64 },
    #[error("{shape} radius {radius} is not usable; allowed: a finite number in 0..={MAX_SHAPE_RADIUS}")]
    BadRadius { shape: &'static str, radius: f64 },
    #[error("{shape} height {height} is not usable; allowed: at least 1")]
    BadHeight { shape: &'static str, height: i32 },
    #[error(
        "{shape} reaches from {min:?} to {max:?}, beyond the world's bounds; allowed: x, y and z in -{limit}..{limit}",
        limit = WORLD_LIMIT_VOXELS
    )]
    OutOfWorld { shape: &'static str, min: [i64; 3], max: [i64; 3] },
}

/// Checks that the inclusive box `min..=max` lies in the world.
fn check_in_world(shape: &'static str, min: [i64; 3], max: [i64; 3]) -> Result<(), ShapeError> {
    let l = WORLD_LIMIT_VOXELS as i64;
    if min.iter().chain(max.iter()).any(|&c| c < -l || c >= l) {
        return Err(ShapeError::OutOfWorld { shape, min, max });
    }
    Ok(())
}

fn check_count(shape: &'static str, count: u64) -> Result<(), ShapeError> {
    if count > MAX_SHAPE_VOXELS {
        return Err(ShapeError::TooLarge { shape, count, limit: MAX_SHAPE_VOXELS });
    }
    Ok(())
}

fn check_radius(shape: &'static str, radius: f64) -> Result<i64, ShapeError> {
    if !radius.is_finite() || !(0.0..=MAX_SHAPE_RADIUS).contains(&radius) {
        return Err(ShapeError::BadRadius { shape, radius });
    }
    Ok(radius.floor() as i64)
}

/// The largest `k >= 0` with `k² <= rem` (`rem >= 0`), exact for the integers used here.
fn isqrt_at_most(rem: f64) -> i64 {
    let mut k = rem.sqrt().floor() as i64;
    while ((k + 1) * (k + 1)) as f64 <= rem {
        k += 1;
    }
    while k > 0 && (k * k) as f64 > rem {
        k -= 1;
    }
    k
}

/// Every voxel of the box with corners `a` and `b`, both included (in any order).
pub fn box_voxels(a: IVec3, b: IVec3) -> Result<Vec<IVec3>, ShapeError> {
    const SHAPE: &str = "box";
    let min = [a.x.min(b.x), a.y.min(b.y), a.z.min(b.z)];
    let max = [a.x.max(b.x), a.y.max(b.y), a.z.max(b.z)];
    let count = (0..3).map(|i| (max[i] as i64 - min[i] as i64 + 1) as u64).fold(1u64, u64::saturating_mul);
    check_count(SHAPE, count)?;
    check_in_world(SHAPE, min.map(i64::from), max.map(i64::from))?;
    let mut out = Vec::with_capacity(count as usize);
    for y in min[1]..=max[1] {
        for z in min[2]..=max[2] {
            for x in min[0]..=max[0] {
                out.push(IVec3::new(x, y, z));
            }
        }
    }
    Ok(out)
}

/// Every voxel whose centre lies within `radius` of the centre of voxel `center` (offsets with
/// `dx² + dy² + dz² <= radius²`); radius 0 is the one voxel.
pub fn sphere_voxels(center: IVec3, radius: f64) -> Result<Vec<IVec3>, ShapeError> {
    const SHAPE: &str = "sphere";
    let r = check_radius(SHAPE, radius)?;
    let r2 = radius * radius;
    let mut count = 0u64;
    for dy in -r..=r {
        for dx in -r..=r {
            let rem = r2 - (dx * dx + dy * dy) as f64;
            if rem >= 0.0 {
                count += 2 * isqrt_at_most(rem) as u64 + 1;
            }
        }
    }
    check_count(SHAPE, count)?;
    let c = [center.x as i64, center.y as i64, center.z as i64];
    check_in_world(SHAPE, c.map(|v| v - r), c.map(|v| v + r))?;
    let mut out = Vec::with_capacity(count as usize);
    for dy in -r..=r {
        for dz in -r..=r {
            for dx in -r..=r {
                if ((dx * dx + dy * dy + dz * dz) as f64) <= r2 {
                    out.push(IVec3::new((c[0] + dx) as i32, (c[1] + dy) as i32, (c[2] + dz) as i32));
                }
            }
        }
    }
    debug_assert_eq!(out.len() as u64, count);
    Ok(out)
}

/// Every voxel of the vertical cylinder standing on voxel `base`: the voxels `height` high from
/// `base.y` up whose centre lies within `radius` of the axis through `base`'s centre
/// (`dx² + dz² <= radius²`).
pub fn cylinder_voxels(base: IVec3, radius: f64, height: i32) -> Result<Vec<IVec3>, ShapeError> {
    const SHAPE: &str = "cylinder";
    let r = check_radius(SHAPE, radius)?;
    if height < 1 {
        return Err(ShapeError::BadHeight { shape: SHAPE, height });
    }
    let r2 = radius * radius;
    let mut disc = Vec::new();
    for dz in -r..=r {
        for dx in -r..=r {
            if ((dx * dx + dz * dz) as f64) <= r2 {
                disc.push((dx, dz));
            }
        }
    }
    check_count(SHAPE, disc.len() as u64 * height as u64)?;
    let c = [base.x as i64, base.y as i64, base.z as i64];
    check_in_world(SHAPE, [c[0] - r, c[1], c[2] - r], [c[0] + r, c[1] + height as i64 - 1, c[2] + r])?;
    let mut out = Vec::with_capacity(disc.len() * height as usize);
    for dy in 0..height as i64 {
        for &(dx, dz) in &disc {
            out.push(IVec3::new((c[0] + dx) as i32, (c[1] + dy) as i32, (c[2] + dz) as i32));
        }
    }
    Ok(out)
}

/// Every tile of the rectangle with corners `a` and `b`, both included (in any order), as
/// voxels `(x, y, 0)`, row by row (y, then x, ascending).
pub fn rect_tiles(a: [i32; 2], b: [i32; 2]) -> Result<Vec<IVec3>, ShapeError> {
    const SHAPE: &str = "rect";
    let min = [a[0].min(b[0]), a[1].min(b[1])];
    let max = [a[0].max(b[0]), a[1].max(b[1])];
    let count = (0..2).map(|i| (max[i] as i64 - min[i] as i64 + 1) as u64).fold(1u64, u64::saturating_mul);
    check_count(SHAPE, count)?;
    check_in_world(SHAPE, [min[0] as i64, min[1] as i64, 0], [max[0] as i64, max[1] as i64, 0])?;
    let mut out = Vec::with_capacity(count as usize);
    for y in min[1]..=max[1] {
        out.extend((min[0]..=max[0]).map(|x| IVec3::new(x, y, 0)));
    }
    Ok(out)
}

/// Every tile whose centre lies within `radius` of the centre of tile `center` (offsets with
/// `dx² + dy² <= radius²`), as voxels `(x, y, 0)`, row by row; radius 0 is the one tile.
pub fn circle_tiles(center: [i32; 2], radius: f64) -> Result<Vec<IVec3>, ShapeError> {
    const SHAPE: &str = "circle";
    let r = check_radius(SHAPE, radius)?;
    let r2 = radius * radius;
    let half = |dy: i64| {
        let rem = r2 - (dy * dy) as f64;
        (rem >= 0.0).then(|| isqrt_at_most(rem))
    };
    let count: u64 = (-r..=r).filter_map(half).map(|k| 2 * k as u64 + 1).sum();
    check_count(SHAPE, count)?;
    let c = [center[0] as i64, center[1] as i64];
    check_in_world(SHAPE, [c[0] - r, c[1] - r, 0], [c[0] + r, c[1] + r, 0])?;
    let mut out = Vec::with_capacity(count as usize);
    for dy in -r..=r {
        let Some(k) = half(dy) else { continue };
        out.extend((-k..=k).map(|dx| IVec3::new((c[0] + dx) as i32, (c[1] + dy) as i32, 0)));
    }
    debug_assert_eq!(out.len() as u64, count);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn a_box_names_every_voxel_between_its_corners_once() {
        let v = box_voxels(IVec3::new(2, -1, 5), IVec3::new(-1, 0, 5)).unwrap();
        assert_eq!(v.len(), 4 * 2);
        assert_eq!(v.iter().collect::<HashSet<_>>().len(), v.len());
        assert!(v.iter().all(|p| (-1..=2).contains(&p.x) && (-1..=0).contains(&p.y) && p.z == 5));
        assert_eq!(box_voxels(IVec3::ONE, IVec3::ONE).unwrap(), vec![IVec3::ONE]);
    }

    #[test]
    fn a_sphere_names_the_voxels_whose_centre_is_within_the_radius() {
        assert_eq!(sphere_voxels(IVec3::new(4, -9, 0), 0.0).unwrap(), vec![IVec3::new(4, -9, 0)]);
        // Radius 1: the centre and its six face neighbours.
        assert_eq!(sphere_voxels(IVec3::ZERO, 1.0).unwrap().len(), 7);
        // Radius 1.5: plus the twelve edge neighbours (distance √2), not the corners (√3).
        assert_eq!(sphere_voxels(IVec3::ZERO, 1.5).unwrap().len(), 19);
        let c = IVec3::new(-3, 10, 7);
        for r in [2.0, 3.7, 6.0] {
            let got: HashSet<IVec3> = sphere_voxels(c, r).unwrap().into_iter().collect();
            let mut expected = HashSet::new();
            for x in -8..=8 {
                for y in -8..=8 {
                    for z in -8..=8 {
                        if ((x * x + y * y + z * z) as f64).sqrt() <= r {
                            expected.insert(c + IVec3::new(x, y, z));
                        }
                    }
                }
            }
            assert_eq!(got, expected, "radius {r}");
        }
    }

    #[test]
    fn a_cylinder_stacks_the_same_disc() {
        let v = cylinder_voxels(IVec3::new(0, -2, 0), 1.0, 3).unwrap();
        assert_eq!(v.len(), 5 * 3);
        assert!(v.iter().all(|p| (-2..=0).contains(&p.y) && p.x.abs() + p.z.abs() <= 1));
        assert!(matches!(cylinder_voxels(IVec3::ZERO, 1.0, 0), Err(ShapeError::BadHeight { .. })));
    }

    #[test]
    fn too_large_or_bad_shapes_are_refused_with_the_count_and_the_limit() {
        let e = box_voxels(IVec3::ZERO, IVec3::new(100, 100, 99)).unwrap_err();
        assert_eq!(e, ShapeError::TooLarge { shape: "box", count: 101 * 101 * 100, limit: MAX_SHAPE_VOXELS });
        assert!(e.to_string().contains("box has 1020100 voxels") && e.to_string().contains("1000000"), "{e}");
        // The largest box allowed is exactly the limit.
        assert_eq!(box_voxels(IVec3::ZERO, IVec3::splat(99)).unwrap().len() as u64, MAX_SHAPE_VOXELS);
        // A huge box is counted without overflow (saturating).
        let e = box_voxels(IVec3::splat(i32::MIN), IVec3::splat(i32::MAX)).unwrap_err();
        assert_eq!(e, ShapeError::TooLarge { shape: "box", count: u64::MAX, limit: MAX_SHAPE_VOXELS });
        match sphere_voxels(IVec3::ZERO, 70.0).unwrap_err() {
            ShapeError::TooLarge { shape: "sphere", count, .. } => assert!(count > MAX_SHAPE_VOXELS),
            e => panic!("{e}"),
        }
        for r in [-1.0, f64::NAN, f64::INFINITY, MAX_SHAPE_RADIUS + 1.0] {
            assert!(matches!(sphere_voxels(IVec3::ZERO, r), Err(ShapeError::BadRadius { .. })));
        }
        let edge = IVec3::new(WORLD_LIMIT_VOXELS - 1, 0, 0);
        assert!(matches!(sphere_voxels(edge, 1.0), Err(ShapeError::OutOfWorld { .. })));
        assert!(matches!(box_voxels(edge, edge + IVec3::new(1, 0, 0)), Err(ShapeError::OutOfWorld { .. })));
        assert_eq!(box_voxels(edge, edge).unwrap(), vec![edge]);
    }

    #[test]
    fn a_rect_names_every_tile_between_its_corners_once_in_rows() {
        let v = rect_tiles([3, -2], [1, 0]).unwrap();
        assert_eq!(v.len(), 3 * 3);
        assert_eq!(v.first(), Some(&IVec3::new(1, -2, 0)));
        assert_eq!(v.last(), Some(&IVec3::new(3, 0, 0)));
        assert_eq!(v.iter().collect::<HashSet<_>>().len(), v.len());
        assert!(v.iter().all(|p| (1..=3).contains(&p.x) && (-2..=0).contains(&p.y) && p.z == 0));
        assert_eq!(rect_tiles([5, 5], [5, 5]).unwrap(), vec![IVec3::new(5, 5, 0)]);
        // The 64 × 64 rectangle of a bomb or a structure.
        assert_eq!(rect_tiles([0, 0], [63, 63]).unwrap().len(), 4096);
    }

    #[test]
    fn a_circle_names_the_tiles_whose_centre_is_within_the_radius() {
        assert_eq!(circle_tiles([4, -9], 0.0).unwrap(), vec![IVec3::new(4, -9, 0)]);
        // Radius 1: the centre and its four edge neighbours; 1.5 adds the corners (√2).
        assert_eq!(circle_tiles([0, 0], 1.0).unwrap().len(), 5);
        assert_eq!(circle_tiles([0, 0], 1.5).unwrap().len(), 9);
        let c = [-3, 10];
        for r in [2.0, 3.7, 6.0, 10.5] {
            let got: Vec<IVec3> = circle_tiles(c, r).unwrap();
            let mut expected = Vec::new();
            for y in -12..=12 {
                for x in -12..=12 {
                    if ((x * x + y * y) as f64).sqrt() <= r {
                        expected.push(IVec3::new(c[0] + x, c[1] + y, 0));
                    }
                }
            }
            // The same tiles, in the same row-by-row order.
            assert_eq!(got, expected, "radius {r}");
        }
    }

    #[test]
    fn bad_rects_and_circles_are_refused_naming_the_shape_and_what_is_allowed() {
        let e = rect_tiles([0, 0], [1000, 1000]).unwrap_err();
        assert_eq!(e, ShapeError::TooLarge { shape: "rect", count: 1001 * 1001, limit: MAX_SHAPE_VOXELS });
        assert!(e.to_string().starts_with("rect has 1002001 voxels"), "{e}");
        assert_eq!(rect_tiles([0, 0], [999, 999]).unwrap().len() as u64, MAX_SHAPE_VOXELS);
        let e = rect_tiles([i32::MIN, i32::MIN], [i32::MAX, i32::MAX]).unwrap_err();
        assert!(matches!(e, ShapeError::TooLarge { shape: "rect", .. }), "{e}");
        for r in [-0.5, f64::NAN, f64::NEG_INFINITY, MAX_SHAPE_RADIUS + 0.5] {
            let e = circle_tiles([0, 0], r).unwrap_err();
            assert!(matches!(e, ShapeError::BadRadius { shape: "circle", .. }), "{e}");
            assert!(e.to_string().contains("allowed: a finite number in 0..=1024"), "{e}");
        }
        // Radius 1024 is allowed by value but names more than a million tiles.
        assert!(matches!(circle_tiles([0, 0], MAX_SHAPE_RADIUS), Err(ShapeError::TooLarge { shape: "circle", .. })));
        let edge = WORLD_LIMIT_VOXELS - 1;
        let e = circle_tiles([0, edge], 1.0).unwrap_err();
        assert!(matches!(e, ShapeError::OutOfWorld { shape: "circle", .. }), "{e}");
        assert!(e.to_string().contains("beyond the world's bounds"), "{e}");
        assert!(matches!(rect_tiles([edge, 0], [edge + 1, 0]), Err(ShapeError::OutOfWorld { shape: "rect", .. })));
        assert_eq!(rect_tiles([edge, 0], [edge, 0]).unwrap(), vec![IVec3::new(edge, 0, 0)]);
    }
}
