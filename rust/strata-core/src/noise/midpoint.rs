//! Midpoint displacement in 1D, and a seamless infinite line built from it.
//!
//! [`midpoint_displacement`] is the textbook recursion: between two end points, set the midpoint
//! to their mean plus a random displacement in `±range`, then recurse into both halves with the
//! range multiplied by `roughness` (0.5 halves it each level: [`displacement_range`]).
//!
//! [`MidpointLine`] makes that infinite and seamless: the world x axis is cut into segments of
//! `2^levels` units whose end points ("anchors") sit at multiples of `2^levels`, with values
//! hashed from (seed, salt, anchor x); every interior point's random displacement is hashed from
//! its own world x. A segment therefore depends only on its two anchors and on hashes of world
//! positions, so neighbouring segments meet exactly and the line is the same however it is cut.
//! Terrain uses it for ravine paths; a 2D side view can use it for a skyline.
//!
//! May use: `base`, `preset` and the other `noise` modules.

use crate::base::rng::{hash1, unit_f64};

/// Displacement range at recursion `level` (0 = the first midpoint): `initial · roughness^level`.
#[inline]
pub fn displacement_range(initial_range: f64, roughness: f64, level: u32) -> f64 {
    initial_range * roughness.powi(level as i32)
}

/// Midpoint displacement between `left` and `right`: returns `2^levels + 1` values, the first
/// `left` and the last `right`. `unit(i)` gives the random number in `[-1, 1]` for the point at
/// index `i`; the point set at recursion level `l` is displaced by
/// `unit(i) · displacement_range(initial_range, roughness, l)`.
pub fn midpoint_displacement(
    left: f64,
    right: f64,
    levels: u32,
    initial_range: f64,
    roughness: f64,
    mut unit: impl FnMut(usize) -> f64,
) -> Vec<f64> {
    let levels = levels.min(24);
    let n = 1usize << levels;
    let mut out = vec![0.0; n + 1];
    out[0] = left;
    out[n] = right;
    let mut half = n / 2;
    let mut level = 0;
    while half >= 1 {
        let range = displacement_range(initial_range, roughness, level);
        let mut m = half;
        while m < n {
            out[m] = midpoint(out[m - half], out[m + half], range, unit(m));
            m += 2 * half;
        }
        half /= 2;
        level += 1;
    }
    out
}

#[inline]
fn midpoint(a: f64, b: f64, range: f64, unit: f64) -> f64 {
    (a + b) * 0.5 + range * unit
}

/// An infinite, seamless midpoint-displaced line over integer world x (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MidpointLine {
    pub seed: u64,
    /// Keeps independent lines (and other features) on separate random streams.
    pub salt: u64,
    /// Segments are `2^levels` world units long (at most 24).
    pub levels: u32,
    /// Anchors take values in `±anchor_range`.
    pub anchor_range: f64,
    /// Displacement range of a segment's first midpoint.
    pub initial_range: f64,
    /// Range multiplier per recursion level.
    pub roughness: f64,
}

impl MidpointLine {
    /// The random number in `[-1, 1)` for world x.
    #[inline]
    fn unit(&self, x: i64) -> f64 {
        unit_f64(hash1(self.seed, self.salt, x as i32)) * 2.0 - 1.0
    }

    /// Segment length in world units.
    pub fn segment_len(&self) -> i64 {
        1i64 << self.levels.min(24)
    }

    /// The value of the anchor at world x = `segment · segment_len()`.
    pub fn anchor(&self, segment: i64) -> f64 {
        self.anchor_range * unit_f64(hash1(self.seed, self.salt ^ 0xa5a5_a5a5, segment as i32)) * 2.0
            - self.anchor_range
    }

    /// All `segment_len() + 1` values of segment `segment` (world x from `segment · len` to
    /// `(segment + 1) · len`, both ends included).
    pub fn segment(&self, segment: i64) -> Vec<f64> {
        let base = segment * self.segment_len();
        midpoint_displacement(
            self.anchor(segment),
            self.anchor(segment + 1),
            self.levels.min(24),
            self.initial_range,
            self.roughness,
            |i| self.unit(base + i as i64),
        )
    }

    /// The value at integer world x, by descending only the intervals that contain x
    /// (`levels` steps); equal bit for bit to the matching entry of [`MidpointLine::segment`].
    pub fn value_at(&self, x: i64) -> f64 {
        let levels = self.levels.min(24);
        let len = self.segment_len();
        let segment = x.div_euclid(len);
        let (mut lo, mut hi) = (segment * len, segment * len + len);
        let (mut vlo, mut vhi) = (self.anchor(segment), self.anchor(segment + 1));
        if x == lo {
            return vlo;
        }
        for level in 0..levels {
            let m = lo + (hi - lo) / 2;
            let vm = midpoint(vlo, vhi, displacement_range(self.initial_range, self.roughness, level), self.unit(m));
            if x == m {
                return vm;
            }
            if x < m {
                (hi, vhi) = (m, vm);
            } else {
                (lo, vlo) = (m, vm);
            }
        }
        vlo
    }

    /// The value at real world x: linear between the two neighbouring integer points.
    pub fn sample(&self, x: f64) -> f64 {
        let f = x.floor();
        let i = f as i64;
        let t = x - f;
        let a = self.value_at(i);
        if t == 0.0 { a } else { a + (self.value_at(i + 1) - a) * t }
    }

    /// An upper bound of `|value|` anywhere on the line.
    pub fn max_abs(&self) -> f64 {
        self.anchor_range.abs()
            + (0..self.levels.min(24))
                .map(|l| displacement_range(self.initial_range, self.roughness, l).abs())
                .sum::<f64>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_range_halves_each_level_with_roughness_one_half() {
        assert_eq!(displacement_range(8.0, 0.5, 0), 8.0);
        assert_eq!(displacement_range(8.0, 0.5, 1), 4.0);
        assert_eq!(displacement_range(8.0, 0.5, 3), 1.0);
        // Every unit at +1 on a flat line: midpoint 0 + 8; quarter points (0 + 8) / 2 + 4 = 8.
        assert_eq!(midpoint_displacement(0.0, 0.0, 2, 8.0, 0.5, |_| 1.0), vec![0.0, 8.0, 8.0, 8.0, 0.0]);
        // With no randomness the recursion is the straight line between the end points.
        assert_eq!(midpoint_displacement(0.0, 8.0, 3, 8.0, 0.5, |_| 0.0), (0..=8).map(f64::from).collect::<Vec<_>>());
        // Only the level-1 points (indices 2, 6) displaced: each sits range(1) = 4 above the line,
        // and the level-2 points between them lie on the straight lines.
        let out = midpoint_displacement(0.0, 0.0, 3, 8.0, 0.5, |i| if i % 4 == 2 { 1.0 } else { 0.0 });
        assert_eq!(out, vec![0.0, 2.0, 4.0, 2.0, 0.0, 2.0, 4.0, 2.0, 0.0]);
        // Only the level-2 points (odd indices) displaced: each sits range(2) = 2 above the line.
        let out = midpoint_displacement(0.0, 0.0, 3, 8.0, 0.5, |i| if i % 2 == 1 { 1.0 } else { 0.0 });
        assert_eq!(out, vec![0.0, 2.0, 0.0, 2.0, 0.0, 2.0, 0.0, 2.0, 0.0]);
    }

    #[test]
    fn the_line_is_seamless_and_its_descent_matches_whole_segments() {
        let line =
            MidpointLine { seed: 5, salt: 77, levels: 5, anchor_range: 10.0, initial_range: 6.0, roughness: 0.55 };
        for segment in -3..3 {
            let values = line.segment(segment);
            assert_eq!(values.len(), 33);
            for (i, v) in values.iter().enumerate() {
                assert_eq!(line.value_at(segment * 32 + i as i64), *v);
            }
            // Shared end point with the next segment.
            assert_eq!(*values.last().unwrap(), line.segment(segment + 1)[0]);
        }
        let bound = line.max_abs();
        assert!((-200..200).all(|x| line.value_at(x).abs() <= bound));
        assert_eq!(line.sample(3.0), line.value_at(3));
        assert_eq!(line.sample(3.5), 0.5 * (line.value_at(3) + line.value_at(4)));
    }
}
