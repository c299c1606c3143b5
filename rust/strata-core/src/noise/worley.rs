//! Worley (cellular) feature points: one hashed point per square grid cell; the nearest wins.
//!
//! Cell `(cx, cz)` of edge `cell_size` owns one feature point, placed at a position hashed from
//! (seed, salt, cx, cz) anywhere inside the cell. The nearest feature point to a position is found
//! by scanning the cells around the position's own cell. A 3×3 scan is the classic shortcut but
//! can miss the true nearest point when points sit in cell corners; a 5×5 scan (`radius = 2`)
//! never does, because any point three or more cells away is farther than `2·cell_size`, while
//! the own cell's point is within `√2·cell_size`.
//!
//! May use: `base`, `preset` and the other `noise` modules.

use crate::base::rng::{hash2, unit_f64};

/// The feature point of cell `(cx, cz)`, in world units.
#[inline]
pub fn feature_point(seed: u64, salt: u64, cell_size: f64, cx: i32, cz: i32) -> (f64, f64) {
    let h = hash2(seed, salt, cx, cz);
    let jx = unit_f64(h);
    let jz = unit_f64(crate::base::rng::mix64(h ^ 0x5851_f42d_4c95_7f2d));
    ((cx as f64 + jx) * cell_size, (cz as f64 + jz) * cell_size)
}

/// The cell containing world `(x, z)`.
#[inline]
pub fn cell_of(cell_size: f64, x: f64, z: f64) -> (i32, i32) {
    ((x / cell_size).floor() as i32, (z / cell_size).floor() as i32)
}

/// Index and squared distance of the point of `points` nearest to `(x, z)`; ties go to the
/// earliest. `None` for an empty slice.
pub fn nearest(points: &[(f64, f64)], x: f64, z: f64) -> Option<(usize, f64)> {
    let mut best: Option<(usize, f64)> = None;
    for (i, &(px, pz)) in points.iter().enumerate() {
        let d2 = (px - x) * (px - x) + (pz - z) * (pz - z);
        if best.is_none_or(|(_, b)| d2 < b) {
            best = Some((i, d2));
        }
    }
    best
}

/// The cell whose feature point is nearest to `(x, z)`, scanning `(2·radius + 1)²` cells around
/// the position's cell (see the module doc: `radius = 2` is exact), and the squared distance.
pub fn nearest_feature(seed: u64, salt: u64, cell_size: f64, x: f64, z: f64, radius: i32) -> ((i32, i32), f64) {
    let (cx, cz) = cell_of(cell_size, x, z);
    let mut best = ((cx, cz), f64::INFINITY);
    for dz in -radius..=radius {
        for dx in -radius..=radius {
            let (px, pz) = feature_point(seed, salt, cell_size, cx + dx, cz + dz);
            let d2 = (px - x) * (px - x) + (pz - z) * (pz - z);
            if d2 < best.1 {
                best = ((cx + dx, cz + dz), d2);
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_point_on_a_hand_made_case() {
        let points = [(0.0, 0.0), (10.0, 0.0), (0.0, 10.0), (10.0, 10.0)];
        assert_eq!(nearest(&points, 1.0, 2.0), Some((0, 5.0)));
        assert_eq!(nearest(&points, 6.0, 1.0), Some((1, 17.0)));
        assert_eq!(nearest(&points, 4.0, 9.0), Some((2, 17.0)));
        assert_eq!(nearest(&points, 9.0, 7.0), Some((3, 10.0)));
        assert_eq!(nearest(&points, 5.0, 5.0).map(|p| p.0), Some(0), "ties go to the earliest");
        assert_eq!(nearest(&[], 0.0, 0.0), None);
    }

    #[test]
    fn feature_points_lie_in_their_cells_and_the_5x5_scan_is_exact() {
        let (seed, salt, size) = (99, 3, 50.0);
        for cz in -5..5 {
            for cx in -5..5 {
                let (x, z) = feature_point(seed, salt, size, cx, cz);
                assert_eq!(cell_of(size, x, z), (cx, cz));
            }
        }
        for i in 0..3000 {
            let (x, z) = ((i * 37 % 997) as f64 * 0.61 - 300.0, (i * 53 % 991) as f64 * 0.47 - 200.0);
            let (cx, cz) = cell_of(size, x, z);
            let mut cells = Vec::new();
            let mut points = Vec::new();
            for dz in -4..=4 {
                for dx in -4..=4 {
                    cells.push((cx + dx, cz + dz));
                    points.push(feature_point(seed, salt, size, cx + dx, cz + dz));
                }
            }
            let (i_best, d2) = nearest(&points, x, z).unwrap();
            assert_eq!(nearest_feature(seed, salt, size, x, z, 2), (cells[i_best], d2));
        }
    }
}
