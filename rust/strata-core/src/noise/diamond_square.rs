//! Diamond-square, made seamless for an infinite world.
//!
//! The plane is cut into world-aligned square cells of `N = 2^n` voxels. A cell corner's value is
//! a hash of (seed, corner world position), so the four cells around a corner agree on it. Inside
//! a cell the usual recursion runs, spacing `s = N, N/2, …, 2`, each step halving the spacing:
//!
//! * **diamond step** — a square's centre is the mean of its 4 corners plus a displacement;
//! * **square step** — an edge midpoint inside the cell is the mean of its 2 neighbours along the
//!   edge and the 2 square centres beside it, plus a displacement. A midpoint on the *cell
//!   boundary* uses only its 2 neighbours along the boundary: boundary points therefore depend
//!   only on the boundary's two corners and on displacements hashed from world positions, never
//!   on either cell's interior, so adjacent cells share their edge exactly.
//!
//! Every displacement is `unit · range(l)` with `unit` in `[-1, 1)` hashed from the point's world
//! position and `range(l) = 0.5 · 2^(−h·l)` at recursion level `l` (roughness `h`). Values lie in
//! about `[-1.5, 1.5]`, mostly in `[-1, 1]`.
//!
//! A region is computed without building whole cells: each level only computes the points that
//! the finer levels inside the region (plus a margin of one spacing) need, so the cost is about
//! the region's area whatever `n` is, and every point's value is the same however it is reached.
//!
//! May use: `base`, `preset` and the other `noise` modules.

use crate::base::rng::{hash2, salt, unit_f64};

/// `2^(−h)` from a fixed Taylor series of `exp` (only IEEE-exact operations), for `h` in `[0, 1]`.
pub fn pow2_neg(h: f64) -> f64 {
    let x = -h.clamp(0.0, 4.0) * std::f64::consts::LN_2;
    let (mut term, mut sum) = (1.0, 1.0);
    for k in 1..=30 {
        term = term * x / k as f64;
        sum += term;
    }
    sum
}

/// A seamless diamond-square height source (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct DiamondSquare {
    seed: u64,
    log2: u32,
    /// `range(l)` for every level `l` of a cell.
    ranges: Vec<f64>,
}

/// An axis-aligned rectangle of cell-local lattice points, both ends included.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Rect {
    x0: i64,
    z0: i64,
    x1: i64,
    z1: i64,
}

/// Values on the points of `rect` that are multiples of `spacing`.
struct LevelGrid {
    rect: Rect,
    spacing: i64,
    nx: usize,
    values: Vec<f64>,
}

impl LevelGrid {
    #[inline]
    fn get(&self, x: i64, z: i64) -> f64 {
        let i = ((z - self.rect.z0) / self.spacing) as usize * self.nx + ((x - self.rect.x0) / self.spacing) as usize;
        self.values[i]
    }
}

impl DiamondSquare {
    /// Cells of `2^log2` voxels (`log2` clamped to 1..=16), roughness `h` in (0, 1).
    pub fn new(seed: u64, log2: u32, roughness: f64) -> Self {
        let log2 = log2.clamp(1, 16);
        let factor = pow2_neg(roughness);
        let mut ranges = Vec::with_capacity(log2 as usize);
        let mut r = 0.5;
        for _ in 0..log2 {
            ranges.push(r);
            r *= factor;
        }
        Self { seed, log2, ranges }
    }

    /// Cell edge in voxels.
    pub fn cell_size(&self) -> i64 {
        1i64 << self.log2
    }

    /// The hashed value of the cell corner at world `(x, z)` (multiples of the cell size).
    pub fn corner_value(&self, x: i64, z: i64) -> f64 {
        unit_f64(hash2(self.seed, salt::DIAMOND_SQUARE ^ 0x00c0_ffee, x as i32, z as i32)) * 2.0 - 1.0
    }

    #[inline]
    fn unit(&self, x: i64, z: i64) -> f64 {
        unit_f64(hash2(self.seed, salt::DIAMOND_SQUARE, x as i32, z as i32)) * 2.0 - 1.0
    }

    /// Writes the values at integer world points `[x0, x0 + w) × [z0, z0 + h)` into `out`
    /// (row-major, x fastest; `out` is cleared first).
    pub fn fill(&self, x0: i64, z0: i64, w: usize, h: usize, out: &mut Vec<f64>) {
        out.clear();
        out.resize(w * h, 0.0);
        if w == 0 || h == 0 {
            return;
        }
        let n = self.cell_size();
        let (x1, z1) = (x0 + w as i64 - 1, z0 + h as i64 - 1);
        for cz in z0.div_euclid(n)..=z1.div_euclid(n) {
            for cx in x0.div_euclid(n)..=x1.div_euclid(n) {
                let (ox, oz) = (cx * n, cz * n);
                let target = Rect {
                    x0: (x0 - ox).max(0),
                    z0: (z0 - oz).max(0),
                    x1: (x1 - ox).min(n - 1),
                    z1: (z1 - oz).min(n - 1),
                };
                let grid = self.cell_points(ox, oz, target);
                for z in target.z0..=target.z1 {
                    for x in target.x0..=target.x1 {
                        out[((oz + z - z0) as usize) * w + (ox + x - x0) as usize] = grid.get(x, z);
                    }
                }
            }
        }
    }

    /// The values of every point of the cell whose lowest corner is world `(ox, oz)`:
    /// `(N + 1)²` values, row-major. Meant for tests and tools.
    pub fn cell_grid(&self, ox: i64, oz: i64) -> Vec<f64> {
        let n = self.cell_size();
        self.cell_points(ox, oz, Rect { x0: 0, z0: 0, x1: n, z1: n }).values
    }

    /// The value at integer world `(x, z)`.
    pub fn value_at(&self, x: i64, z: i64) -> f64 {
        let mut out = Vec::with_capacity(1);
        self.fill(x, z, 1, 1, &mut out);
        out[0]
    }

    /// The value at real world `(x, z)`: bilinear between the four surrounding integer points.
    pub fn sample(&self, x: f64, z: f64) -> f64 {
        let (fx, fz) = (x.floor(), z.floor());
        let mut v = Vec::with_capacity(4);
        self.fill(fx as i64, fz as i64, 2, 2, &mut v);
        bilinear(v[0], v[1], v[2], v[3], x - fx, z - fz)
    }

    /// Runs the recursion in the cell at world `(ox, oz)`, computing at each level only the points
    /// needed for `target` (cell-local, inside `[0, N]²`).
    fn cell_points(&self, ox: i64, oz: i64, target: Rect) -> LevelGrid {
        let n = self.cell_size();
        // Rects needed at spacings 1, 2, 4, …, N (index = level from the finest).
        let mut rects = Vec::with_capacity(self.log2 as usize + 1);
        rects.push(target);
        let mut s = 1;
        while s < n {
            s *= 2;
            let r = *rects.last().unwrap_or(&target);
            let down = |v: i64| ((v - s).max(0)).div_euclid(s) * s;
            let up = |v: i64| (((v + s).min(n) + s - 1).div_euclid(s) * s).min(n);
            rects.push(Rect { x0: down(r.x0), z0: down(r.z0), x1: up(r.x1), z1: up(r.z1) });
        }
        // Coarsest level: the corners.
        let mut grid =
            LevelGrid { rect: Rect { x0: 0, z0: 0, x1: n, z1: n }, spacing: n, nx: 2, values: Vec::with_capacity(4) };
        for (x, z) in [(0, 0), (n, 0), (0, n), (n, n)] {
            grid.values.push(self.corner_value(ox + x, oz + z));
        }
        let mut s = n;
        let mut level = 0usize;
        while s > 1 {
            let t = s / 2;
            let rect = rects[self.log2 as usize - level - 1];
            let range = self.ranges[level];
            let old = &grid;
            let center = |x: i64, z: i64| {
                (old.get(x - t, z - t) + old.get(x + t, z - t) + old.get(x - t, z + t) + old.get(x + t, z + t)) * 0.25
                    + range * self.unit(ox + x, oz + z)
            };
            let nx = ((rect.x1 - rect.x0) / t + 1) as usize;
            let nz = ((rect.z1 - rect.z0) / t + 1) as usize;
            let mut values = Vec::with_capacity(nx * nz);
            for iz in 0..nz as i64 {
                let z = rect.z0 + iz * t;
                for ix in 0..nx as i64 {
                    let x = rect.x0 + ix * t;
                    let v = match (x % s == 0, z % s == 0) {
                        (true, true) => old.get(x, z),
                        (false, false) => center(x, z),
                        // Midpoint of an edge running along x.
                        (false, true) => {
                            let along = old.get(x - t, z) + old.get(x + t, z);
                            if z == 0 || z == n {
                                along * 0.5 + range * self.unit(ox + x, oz + z)
                            } else {
                                (along + center(x, z - t) + center(x, z + t)) * 0.25 + range * self.unit(ox + x, oz + z)
                            }
                        }
                        // Midpoint of an edge running along z.
                        (true, false) => {
                            let along = old.get(x, z - t) + old.get(x, z + t);
                            if x == 0 || x == n {
                                along * 0.5 + range * self.unit(ox + x, oz + z)
                            } else {
                                (along + center(x - t, z) + center(x + t, z)) * 0.25 + range * self.unit(ox + x, oz + z)
                            }
                        }
                    };
                    values.push(v);
                }
            }
            grid = LevelGrid { rect, spacing: t, nx, values };
            s = t;
            level += 1;
        }
        grid
    }
}

/// Bilinear interpolation of `v00` (at 0,0), `v10` (1,0), `v01` (0,1), `v11` (1,1).
#[inline]
pub fn bilinear(v00: f64, v10: f64, v01: f64, v11: f64, tx: f64, tz: f64) -> f64 {
    let top = v00 + (v10 - v00) * tx;
    let bottom = v01 + (v11 - v01) * tx;
    top + (bottom - top) * tz
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pow2_neg_matches_std() {
        for i in 0..=100 {
            let h = i as f64 / 100.0;
            assert!((pow2_neg(h) - 2f64.powf(-h)).abs() < 1e-15);
        }
    }

    #[test]
    fn corners_are_the_hashed_values() {
        let ds = DiamondSquare::new(11, 4, 0.6);
        for (cx, cz) in [(0, 0), (-1, 3), (5, -7)] {
            let (x, z) = (cx * 16, cz * 16);
            assert_eq!(ds.value_at(x, z), ds.corner_value(x, z));
            let grid = ds.cell_grid(x, z);
            assert_eq!(grid[0], ds.corner_value(x, z));
            assert_eq!(grid[16], ds.corner_value(x + 16, z));
            assert_eq!(grid[17 * 16 + 16], ds.corner_value(x + 16, z + 16));
        }
    }

    #[test]
    fn neighbouring_cells_share_edges_exactly() {
        let ds = DiamondSquare::new(3, 5, 0.5);
        let n = 32usize;
        let a = ds.cell_grid(0, 0);
        let right = ds.cell_grid(32, 0);
        let below = ds.cell_grid(0, 32);
        for i in 0..=n {
            assert_eq!(a[i * (n + 1) + n], right[i * (n + 1)], "shared vertical edge at {i}");
            assert_eq!(a[n * (n + 1) + i], below[i], "shared horizontal edge at {i}");
        }
        // Edges vary (they are displaced, not straight lines between the corners).
        let straight = (a[0] + a[n]) * 0.5;
        assert_ne!(a[n / 2], straight);
    }

    #[test]
    fn any_region_matches_whole_cells() {
        let ds = DiamondSquare::new(8, 4, 0.7);
        let mut region = Vec::new();
        ds.fill(-21, 5, 40, 30, &mut region);
        for z in 5..35i64 {
            for x in -21..19i64 {
                let (cx, cz) = (x.div_euclid(16) * 16, z.div_euclid(16) * 16);
                let grid = ds.cell_grid(cx, cz);
                let want = grid[((z - cz) * 17 + (x - cx)) as usize];
                assert_eq!(region[((z - 5) * 40 + (x + 21)) as usize], want);
                assert_eq!(ds.value_at(x, z), want);
            }
        }
        assert_ne!(DiamondSquare::new(9, 4, 0.7).value_at(3, 3), ds.value_at(3, 3));
    }

    #[test]
    fn values_stay_near_unit_range_and_roughness_orders_detail() {
        let smooth = DiamondSquare::new(1, 6, 0.9);
        let rough = DiamondSquare::new(1, 6, 0.1);
        let (mut ds, mut dr, mut max) = (0.0, 0.0, 0.0f64);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        smooth.fill(0, 0, 128, 128, &mut a);
        rough.fill(0, 0, 128, 128, &mut b);
        for i in 1..a.len() {
            ds += (a[i] - a[i - 1]).abs();
            dr += (b[i] - b[i - 1]).abs();
            max = max.max(a[i].abs()).max(b[i].abs());
        }
        assert!(dr > 2.0 * ds, "rough {dr} smooth {ds}");
        assert!(max < 2.5, "{max}");
    }
}
