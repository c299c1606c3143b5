//! The surface line of a side-view world and the water pools its hollows hold.
//!
//! [`SurfaceLine`] turns one of the shared 1D height sources into a height per world x:
//! `height(x) = base_height + amplitude · source(x)` (tiles, measured up). The sources are the
//! engine-free ones of [`crate::noise`], called, never copied: octave value noise
//! ([`value_noise_1d`], linear or cosine), Perlin fBm from the `noise` crate sampled on the line
//! y = 0 ([`perlin_fbm`]), seamless midpoint displacement ([`MidpointLine`]); the fifth,
//! [`smoothed_hash_noise`], is built here from the same lattice ([`lattice_1d`]) with each
//! lattice value smoothed by its neighbours; the sixth, the side-view classic's integer hash
//! noise, is [`crate::gen2d::classic::classic_hash_noise`], sampled at the column `floor(x)` and
//! rounded up after scaling (`height = base_height + ceil(amplitude · noise)`).
//!
//! **Rows.** Tile row `y` (down) covers heights `(−y − 1, −y]`; a tile is ground when its centre
//! lies under the line, so the topmost ground tile of column x is
//! `surface_row(x) = ceil(−height(x + ½) − ½)`.
//!
//! **Pools** ([`SurfaceProfile`]). Water stands only in a hollow of the surface line and only up
//! to the level of the hollow's lower rim, so it never floats and never spills. With the surface
//! rows `s(x)` and `R = max_pool_width`, the first estimate of the water level (a row) is
//! `max(min s over [x−R, x−1], min s over [x+1, x+R])` — the lower of the highest ground within
//! `R` tiles on each side. Then the levels relax: a column's water may stand no higher than the
//! top of what is beside it (`level(x) ≥ min(s, level)` of both neighbours), repeated until
//! nothing changes, which makes every pool flat and bounded by its lower rim. Column x holds water
//! in rows `[level(x), s(x))` when `level(x) < s(x)`. A chain of wet columns is shorter than `2R`
//! (its highest column needs strictly higher ground within `R` on both sides, outside the chain),
//! so computing levels over the wanted columns plus `2R + 1` and surface rows plus `3R + 2` on
//! each side gives the same pools as any larger window (law: Seamless).
//!
//! May use: `base`, `preset`, `noise`.

use crate::base::rng::{mix64, salt};
use crate::gen2d::classic::classic_hash_noise;
use crate::noise::fractal::{FractalParams, noise_seed, perlin_fbm};
use crate::noise::midpoint::MidpointLine;
use crate::noise::value::{interpolate, lattice_1d, octave_weights, value_noise_1d};
use crate::preset::model::{Interpolation, SideViewSettings, SurfaceSource};
use noise::{Fbm, NoiseFn, Perlin};

/// Salt of the side-view line, so a 2D world never repeats the 3D world's height pattern.
const SIDE_VIEW_SALT: u64 = 0x51de_0000;

/// Hashed integer noise smoothed with its neighbours, cosine-interpolated, summed over octaves.
///
/// The lattice value at integer `n` is [`lattice_1d`]; its smoothed value is
/// `L(n)/2 + L(n − step)/4 + L(n + step)/4` where `step = 2^i` for octave `i` (which reads every
/// `step`-th lattice point, period `base_period · step`). Octaves and weights follow
/// [`value_noise_1d`]: octave 0 is the finest, the coarsest weighs 1, each finer one
/// `persistence` times the one above, and the sum is divided by the sum of the weights. The
/// smoothing narrows the spread: values lie in `[-1, 1]` but mostly within about `±0.6`.
pub fn smoothed_hash_noise(seed: u64, x: f64, octaves: u32, persistence: f64, base_period: f64) -> f64 {
    let octaves = octaves.clamp(1, 24);
    let u = x / base_period;
    let smoothed = |n: i64, step: i64| -> f64 {
        let at = |m: i64| lattice_1d(seed, m as i32);
        at(n) * 0.5 + at(n - step) * 0.25 + at(n + step) * 0.25
    };
    let (mut sum, mut total) = (0.0, 0.0);
    for (i, w) in octave_weights(octaves, persistence).enumerate() {
        let step = 1i64 << i;
        let v = u / step as f64;
        let f = v.floor();
        let lo = (f as i64).wrapping_mul(step);
        sum += w * interpolate(smoothed(lo, step), smoothed(lo + step, step), v - f, Interpolation::Cosine);
        total += w;
    }
    if total > 0.0 { sum / total } else { 0.0 }
}

/// The surface line of a side-view world: height (tiles, up) per world x.
pub struct SurfaceLine {
    source: SurfaceSource,
    seed: u64,
    base_height: f64,
    amplitude: f64,
    octaves: u32,
    persistence: f64,
    /// Period of the finest octave, so that the coarsest one has period `scale`.
    base_period: f64,
    /// `ClassicHash`: the period of its octave 0 (`scale`) and its XOR-frequency flag.
    scale: f64,
    classic_xor: bool,
    perlin: Fbm<Perlin>,
    midpoint: MidpointLine,
}

impl std::fmt::Debug for SurfaceLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SurfaceLine").field("source", &self.source).field("seed", &self.seed).finish()
    }
}

impl SurfaceLine {
    /// The line of `settings` for world seed `seed`.
    pub fn new(seed: u64, settings: &SideViewSettings) -> Self {
        let octaves = settings.octaves.clamp(1, 24);
        let scale = (settings.scale as f64).max(1.0);
        let line_seed = mix64(seed ^ SIDE_VIEW_SALT);
        let perlin = perlin_fbm(
            noise_seed(seed, salt::HEIGHT ^ SIDE_VIEW_SALT),
            FractalParams {
                octaves,
                frequency: 1.0 / scale,
                persistence: settings.persistence as f64,
                lacunarity: 2.0,
            },
        );
        // Segments as long as the largest features (a power of two), anchors in ±1.
        let levels = (scale.log2().round() as i64).clamp(1, 20) as u32;
        let midpoint = MidpointLine {
            seed: line_seed,
            salt: salt::MIDPOINT,
            levels,
            anchor_range: 1.0,
            initial_range: settings.initial_range as f64,
            roughness: settings.roughness as f64,
        };
        Self {
            source: settings.surface_source,
            seed: line_seed,
            base_height: settings.base_height as f64,
            amplitude: settings.amplitude as f64,
            octaves,
            persistence: settings.persistence as f64,
            base_period: scale / (1u64 << (octaves - 1)) as f64,
            scale,
            classic_xor: settings.classic_xor_frequency,
            perlin,
            midpoint,
        }
    }

    /// The source's value at world x, about `[-1, 1]`.
    pub fn source_value(&self, x: f64) -> f64 {
        match self.source {
            SurfaceSource::ValueNoiseLinear => {
                value_noise_1d(self.seed, x, self.octaves, self.persistence, Interpolation::Linear, self.base_period)
            }
            SurfaceSource::ValueNoiseCosine => {
                value_noise_1d(self.seed, x, self.octaves, self.persistence, Interpolation::Cosine, self.base_period)
            }
            SurfaceSource::PerlinFbm => self.perlin.get([x, 0.0]),
            SurfaceSource::MidpointDisplacement => {
                self.midpoint.sample(x) / (self.midpoint.anchor_range + self.midpoint.initial_range).max(1e-9)
            }
            SurfaceSource::SmoothedHashNoise => {
                smoothed_hash_noise(self.seed, x, self.octaves, self.persistence, self.base_period)
            }
            SurfaceSource::ClassicHash => {
                classic_hash_noise(self.seed, x.floor(), self.octaves, self.persistence, self.scale, self.classic_xor)
            }
        }
    }

    /// Height of the line above tile row 0 at world x, in tiles (up); `ClassicHash` rounds the
    /// scaled noise up, as the original does.
    pub fn height(&self, x: f64) -> f64 {
        if self.source == SurfaceSource::ClassicHash {
            return self.base_height + (self.amplitude * self.source_value(x)).ceil();
        }
        self.base_height + self.amplitude * self.source_value(x)
    }

    /// Row (y down) of the topmost ground tile of column `x`; see the module docs.
    pub fn surface_row(&self, x: i32) -> i32 {
        let r = (-self.height(x as f64 + 0.5) - 0.5).ceil();
        r.clamp(i32::MIN as f64 / 4.0, i32::MAX as f64 / 4.0) as i32
    }
}

/// Surface rows and water levels of the columns `[min_x, min_x + width)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SurfaceProfile {
    pub min_x: i32,
    /// Row of the topmost ground tile per column.
    pub surface: Vec<i32>,
    /// Row of the topmost water tile per column; equal to `surface` where the column is dry.
    pub water_top: Vec<i32>,
    /// Row of the topmost generated tile other than air per column: `water_top`, or higher
    /// where a structure stands over the ground (set by the generator,
    /// [`crate::gen2d::Generator2D::profile`]).
    pub top: Vec<i32>,
}

impl SurfaceProfile {
    /// The profile of `width` columns from `min_x`; `max_pool_width = None` means no water.
    pub fn compute(line: &SurfaceLine, min_x: i32, width: i32, max_pool_width: Option<u32>) -> Self {
        let width = width.max(0);
        // Columns are counted in i64: the padding reaches past i32 at the world's bounds, where
        // a column beyond i32 answers as the last one (the line itself takes any i32).
        let column = |x: i64| line.surface_row(x.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32);
        let x0 = i64::from(min_x);
        let Some(r) = max_pool_width.map(|r| i64::from(r.clamp(1, 1024))) else {
            let surface: Vec<i32> = (0..i64::from(width)).map(|i| column(x0 + i)).collect();
            return Self { min_x, water_top: surface.clone(), top: surface.clone(), surface };
        };
        // Surface rows over the wanted columns ± (3R + 2), levels over ± (2R + 1).
        let s_pad = 3 * r + 2;
        let s0 = x0 - s_pad;
        let s: Vec<i32> = (0..i64::from(width) + 2 * s_pad).map(|i| column(s0 + i)).collect();
        let l_pad = 2 * r + 1;
        let l_len = (i64::from(width) + 2 * l_pad) as usize;
        let s_at = |x: i64| s[(x - s0) as usize];
        let l0 = x0 - l_pad;
        let mut level: Vec<i32> = (0..l_len as i64)
            .map(|i| {
                let x = l0 + i;
                let left = (x - r..x).map(s_at).min().unwrap_or(i32::MAX);
                let right = (x + 1..=x + r).map(s_at).min().unwrap_or(i32::MAX);
                left.max(right)
            })
            .collect();
        // Relax: water stands no higher than the top (ground or water) of its neighbours.
        let top = |level: &[i32], i: usize| level[i].min(s_at(l0 + i as i64));
        loop {
            let mut changed = false;
            for pass in 0..2 {
                for k in 0..l_len {
                    let i = if pass == 0 { k } else { l_len - 1 - k };
                    let mut v = level[i];
                    if i > 0 {
                        v = v.max(top(&level, i - 1));
                    }
                    if i + 1 < l_len {
                        v = v.max(top(&level, i + 1));
                    }
                    if v != level[i] {
                        level[i] = v;
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        let surface: Vec<i32> = (0..i64::from(width)).map(|i| s_at(x0 + i)).collect();
        let water_top: Vec<i32> =
            (0..i64::from(width)).map(|i| level[(i + l_pad) as usize].min(surface[i as usize])).collect();
        Self { min_x, surface, top: water_top.clone(), water_top }
    }

    /// Row of the topmost ground tile of column `x` (inside the profile).
    #[inline]
    pub fn surface_at(&self, x: i32) -> i32 {
        self.surface[(x - self.min_x) as usize]
    }

    /// Row of the topmost water tile of column `x` (`== surface_at(x)` when dry).
    #[inline]
    pub fn water_top_at(&self, x: i32) -> i32 {
        self.water_top[(x - self.min_x) as usize]
    }

    /// Row of the topmost generated tile of column `x` other than air: its water, ground or a
    /// structure standing on it (what a walk down from the sky starts at).
    #[inline]
    pub fn top_at(&self, x: i32) -> i32 {
        self.top[(x - self.min_x) as usize]
    }

    /// Whether column `x` holds water.
    #[inline]
    pub fn is_wet(&self, x: i32) -> bool {
        self.water_top_at(x) < self.surface_at(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(source: SurfaceSource) -> SurfaceLine {
        SurfaceLine::new(7, &SideViewSettings { surface_source: source, ..SideViewSettings::default() })
    }

    #[test]
    fn every_source_is_bounded_pure_and_varied() {
        for source in [
            SurfaceSource::ValueNoiseLinear,
            SurfaceSource::ValueNoiseCosine,
            SurfaceSource::PerlinFbm,
            SurfaceSource::MidpointDisplacement,
            SurfaceSource::SmoothedHashNoise,
            SurfaceSource::ClassicHash,
        ] {
            let l = line(source);
            let hs: Vec<f64> = (-300..300).map(|x| l.height(x as f64 * 3.7)).collect();
            let (lo, hi) = hs.iter().fold((f64::MAX, f64::MIN), |(a, b), &h| (a.min(h), b.max(h)));
            assert!(lo >= -24.0 * 2.5 && hi <= 24.0 * 2.5, "{source:?}: {lo}..{hi}");
            assert!(hi - lo > 8.0, "{source:?} is too flat: {lo}..{hi}");
            assert_eq!(l.height(123.25), line(source).height(123.25));
        }
    }

    #[test]
    fn smoothed_hash_noise_is_the_neighbour_smoothed_lattice_at_lattice_points() {
        // One octave, period 1: at integer x the value is exactly the smoothed lattice value.
        for n in -5..5 {
            let want = lattice_1d(3, n) * 0.5 + lattice_1d(3, n - 1) * 0.25 + lattice_1d(3, n + 1) * 0.25;
            assert_eq!(smoothed_hash_noise(3, n as f64, 1, 0.5, 1.0), want);
        }
        // Half way, cosine interpolation weighs both ends equally.
        let (a, b) = (smoothed_hash_noise(3, 2.0, 1, 0.5, 1.0), smoothed_hash_noise(3, 3.0, 1, 0.5, 1.0));
        assert!((smoothed_hash_noise(3, 2.5, 1, 0.5, 1.0) - (a + b) / 2.0).abs() < 1e-12);
    }

    #[test]
    fn classic_hash_line_is_the_classic_noise_scaled_and_rounded_up() {
        for xor in [false, true] {
            let settings = SideViewSettings {
                surface_source: SurfaceSource::ClassicHash,
                base_height: 3.0,
                amplitude: 10.0,
                scale: 24.0,
                persistence: 0.5,
                classic_xor_frequency: xor,
                ..SideViewSettings::default()
            };
            let l = SurfaceLine::new(5, &settings);
            let seed = mix64(5 ^ SIDE_VIEW_SALT);
            for x in -300..300 {
                let noise = classic_hash_noise(seed, x as f64, 5, 0.5, 24.0, xor);
                let h = 3.0 + (10.0 * noise).ceil();
                assert_eq!(l.height(x as f64 + 0.5), h, "x {x}");
                assert_eq!(h.fract(), 0.0);
                // An integer height: the surface row is exactly its negation.
                assert_eq!(l.surface_row(x), -(h as i32));
            }
        }
    }

    #[test]
    fn surface_row_follows_the_height() {
        let l = line(SurfaceSource::ValueNoiseCosine);
        for x in -50..50 {
            let h = l.height(x as f64 + 0.5);
            let row = l.surface_row(x);
            // The ground tile's centre is under the line; the tile above it is not.
            assert!(-(row as f64 + 0.5) <= h && -(row as f64 - 0.5) > h, "x {x}: row {row}, height {h}");
        }
    }

    #[test]
    fn profiles_at_the_ends_of_i32_have_their_columns_and_do_not_overflow() {
        // The pool padding (3R + 2 columns) reaches past i32 there: it answers as the last column.
        let l = line(SurfaceSource::ValueNoiseCosine);
        for (min_x, width) in [(i32::MIN, 3), (i32::MAX - 2, 3), (-2_147_483_616, 1), (2_147_483_615, 1)] {
            for pools in [None, Some(1024)] {
                let p = SurfaceProfile::compute(&l, min_x, width, pools);
                for i in 0..width {
                    let x = min_x + i;
                    assert_eq!(p.surface_at(x), l.surface_row(x), "column {x}, pools {pools:?}");
                    assert!(p.water_top_at(x) <= p.surface_at(x));
                }
            }
        }
    }

    #[test]
    fn pools_are_flat_supported_and_the_same_in_any_window() {
        let l = line(SurfaceSource::ValueNoiseCosine);
        let wide = SurfaceProfile::compute(&l, -2000, 4000, Some(32));
        let mut wet = 0;
        for x in -2000..2000 {
            if !wide.is_wet(x) {
                continue;
            }
            wet += 1;
            // Neighbours' tops are at or above the water: the pool is held.
            for n in [x - 1, x + 1] {
                if (-2000..2000).contains(&n) {
                    let t = wide.water_top_at(n).min(wide.surface_at(n));
                    assert!(t <= wide.water_top_at(x), "water at {x} spills over {n}");
                }
            }
        }
        assert!(wet > 20, "expected some pools, got {wet} wet columns");
        for (x0, w) in [(-37, 64), (0, 1), (500, 130), (-1999 + 300, 7)] {
            let part = SurfaceProfile::compute(&l, x0, w, Some(32));
            for x in x0..x0 + w {
                assert_eq!(part.water_top_at(x), wide.water_top_at(x), "x {x}");
                assert_eq!(part.surface_at(x), wide.surface_at(x));
            }
        }
    }
}
