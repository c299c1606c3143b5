//! Ravines: narrow cuts in the height field along two families of world-aligned paths.
//!
//! One family runs along x and one along z, spaced `ravine_spacing` apart: path `j` of the x
//! family sits at `z = j·spacing + jitterⱼ + Mⱼ(x)` where `Mⱼ` is a [`MidpointLine`] (seamless
//! midpoint displacement anchored at world-aligned segment ends). Within `ravine_width` of a
//! path the ground is lowered by `ravine_depth · smoothstep(1 − d / ravine_width)`; where paths
//! cross, the deeper cut wins. Every quantity is a pure function of the seed and the position.
//!
//! May use: `base`, `preset`, `noise`.

use crate::base::rng::{hash1, salt, unit_f64};
use crate::noise::midpoint::MidpointLine;
use crate::preset::model::HeightSettings;

/// The ravine paths of a preset (see the module doc).
#[derive(Clone, Debug)]
pub struct Ravines {
    seed: u64,
    depth: f64,
    width: f64,
    spacing: f64,
    levels: u32,
    roughness: f64,
    /// Largest distance of a path from its row `j·spacing`.
    reach: f64,
}

/// Which way a ravine family runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Paths along x; their offset is in z.
    AlongX = 0,
    AlongZ = 1,
}

impl Ravines {
    /// The ravines of height settings `h`; `None` when they cut nothing (depth 0).
    pub fn new(seed: u64, h: &HeightSettings) -> Option<Self> {
        if h.ravine_depth <= 0.0 {
            return None;
        }
        let spacing = (h.ravine_spacing as f64).max(16.0);
        let levels = (spacing.log2().ceil() as u32).clamp(4, 16);
        let mut r = Self {
            seed,
            depth: h.ravine_depth as f64,
            width: (h.ravine_width as f64).max(0.5),
            spacing,
            levels,
            roughness: h.ravine_roughness as f64,
            reach: 0.0,
        };
        r.reach = 0.2 * spacing + r.line(Family::AlongX, 0).max_abs();
        Some(r)
    }

    /// The midpoint line of path `j` of a family: its offset from its row along the way.
    #[inline]
    pub fn line(&self, family: Family, j: i64) -> MidpointLine {
        MidpointLine {
            seed: self.seed,
            salt: salt::RIVER ^ ((family as u64) << 40) ^ (j as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15),
            levels: self.levels,
            anchor_range: 0.1 * self.spacing,
            initial_range: 0.12 * self.spacing,
            roughness: self.roughness,
        }
    }

    /// Row position of path `j` (before its midpoint offset).
    #[inline]
    fn row(&self, family: Family, j: i64) -> f64 {
        let jitter = unit_f64(hash1(self.seed, salt::RIVER ^ 0xfeed ^ family as u64, j as i32)) * 0.4 - 0.2;
        (j as f64 + jitter) * self.spacing
    }

    /// Paths of a family that can pass within `width` of positions `[lo, hi]` across the family.
    #[inline]
    fn paths_near(&self, lo: f64, hi: f64) -> std::ops::RangeInclusive<i64> {
        let margin = self.reach + self.width;
        (((lo - margin) / self.spacing).floor() as i64)..=(((hi + margin) / self.spacing).ceil() as i64)
    }

    /// How far the ground is lowered at `(x, z)`. `offset(family, j, i)` gives path `j`'s
    /// midpoint offset at integer position `i` along it.
    pub fn carve(&self, x: f64, z: f64, offset: &impl Fn(Family, i64, i64) -> f64) -> f64 {
        let mut cut = 0.0f64;
        for (family, along, across) in [(Family::AlongX, x, z), (Family::AlongZ, z, x)] {
            let (f, t) = (along.floor(), along - along.floor());
            let i = f as i64;
            for j in self.paths_near(across, across) {
                let (a, b) = (offset(family, j, i), offset(family, j, i + 1));
                let path = self.row(family, j) + a + (b - a) * t;
                let d = (across - path).abs();
                if d < self.width {
                    let s = 1.0 - d / self.width;
                    cut = cut.max(self.depth * s * s * (3.0 - 2.0 * s));
                }
            }
        }
        cut
    }

    /// The offsets of every path that can cut the rectangle `[x0, x1] × [z0, z1]`, at every
    /// integer position along it that the rectangle's points interpolate between.
    pub fn cache(&self, x0: f64, z0: f64, x1: f64, z1: f64) -> RavineCache {
        let mut cache = RavineCache::default();
        for (family, (a0, a1), (c0, c1)) in [(Family::AlongX, (x0, x1), (z0, z1)), (Family::AlongZ, (z0, z1), (x0, x1))]
        {
            let first = a0.floor() as i64;
            let last = a1.floor() as i64 + 1;
            for j in self.paths_near(c0, c1) {
                let line = self.line(family, j);
                cache.lines.push((family, j, first, (first..=last).map(|i| line.value_at(i)).collect()));
            }
        }
        cache
    }
}

/// Path offsets cached for a region: per family, per path, per integer position along it.
#[derive(Default)]
pub struct RavineCache {
    /// `(family, j, first position, values)`.
    lines: Vec<(Family, i64, i64, Vec<f64>)>,
}

impl RavineCache {
    /// Path `j`'s offset at position `i`, when cached.
    #[inline]
    pub fn get(&self, family: Family, j: i64, i: i64) -> Option<f64> {
        self.lines
            .iter()
            .find(|(f, lj, _, _)| *f == family && *lj == j)
            .and_then(|(_, _, first, values)| values.get(usize::try_from(i - first).ok()?).copied())
    }
}
