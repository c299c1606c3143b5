//! Grass and foliage tinted by climate: the colour maps (temperature, moisture) → tint, and the
//! climate at the corners of chunk columns that the block shaders interpolate between.
//!
//! A [`ColorMap`] is four colours at the corners of the climate square (cold and dry, hot and
//! dry, cold and wet, hot and wet; sRGB, as a colour picker shows them), blended bilinearly in
//! between: hot and dry is olive and yellow-green, cold is blue-green, hot and wet lush green, in
//! the spirit of Minecraft's grass and foliage colour maps (our own numbers, [`GRASS_MAP`] and
//! [`FOLIAGE_MAP`]). What a tinted face is multiplied by ([`ColorMap::tint`]) is the map's
//! colour at the face's climate divided by its colour at [`REFERENCE_CLIMATE`], both in linear
//! RGB: 1 where the climate is average, so the textures keep their authored look there and only
//! turn yellower, bluer or lusher where the climate leaves the middle.
//!
//! The climate of a column is [`crate::gen3d::biomes::BiomeMap::climate_at`] (Perlin fBm on
//! `climate_scale`, 1,024 voxels by default: smooth over a chunk). The shaders do not evaluate
//! noise: they interpolate bilinearly between the climates at chunk-column corners (every
//! [`CORNER_SPACING`] voxels on x and z, [`corner_climate`]), which are a pure function of the
//! corner's position, so two chunks sharing a border share its corners and the tint never steps
//! there (laws: Deterministic, Seamless). [`tint_between_corners`] is that interpolation on the CPU,
//! the function the shaders evaluate.
//!
//! May use: `base` and `gen3d::biomes`.

use crate::base::coords::CHUNK_SIZE;
use crate::gen3d::biomes::BiomeMap;

/// Voxels between two corners whose climate the shaders interpolate: a chunk's side.
pub const CORNER_SPACING: i32 = CHUNK_SIZE;

/// The climate at which a tint is 1 (temperature, moisture): the middle of the square.
pub const REFERENCE_CLIMATE: (f32, f32) = (0.5, 0.5);

/// A colour map: the colours at the corners of the climate square, sRGB in `[0, 1]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ColorMap {
    /// Temperature 0, moisture 0.
    pub cold_dry: [f32; 3],
    /// Temperature 1, moisture 0.
    pub hot_dry: [f32; 3],
    /// Temperature 0, moisture 1.
    pub cold_wet: [f32; 3],
    /// Temperature 1, moisture 1.
    pub hot_wet: [f32; 3],
}

/// The grass map: tundra grey-blue green, steppe olive, taiga blue-green, jungle lush green.
/// At the reference climate it is `(0.51, 0.71, 0.42)`, a meadow green.
pub const GRASS_MAP: ColorMap = ColorMap {
    cold_dry: [0.55, 0.68, 0.56],
    hot_dry: [0.74, 0.72, 0.36],
    cold_wet: [0.40, 0.68, 0.52],
    hot_wet: [0.36, 0.76, 0.24],
};

/// The foliage map: a little darker and bluer than grass at every corner, leaves turning olive in
/// hot dry land and deep green in hot wet land.
pub const FOLIAGE_MAP: ColorMap = ColorMap {
    cold_dry: [0.47, 0.60, 0.50],
    hot_dry: [0.66, 0.63, 0.30],
    cold_wet: [0.32, 0.58, 0.46],
    hot_wet: [0.26, 0.68, 0.16],
};

/// sRGB to linear, per channel (the block shaders' `srgb_to_linear`).
pub fn srgb_to_linear(c: f32) -> f32 {
    if c < 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
}

impl ColorMap {
    /// The map's colour (sRGB) at `(temperature, moisture)`, each clamped into `[0, 1]`: the
    /// bilinear blend of the four corners.
    pub fn color_at(&self, temperature: f32, moisture: f32) -> [f32; 3] {
        let t = clamp01(temperature);
        let m = clamp01(moisture);
        std::array::from_fn(|i| {
            let dry = self.cold_dry[i] + (self.hot_dry[i] - self.cold_dry[i]) * t;
            let wet = self.cold_wet[i] + (self.hot_wet[i] - self.cold_wet[i]) * t;
            dry + (wet - dry) * m
        })
    }

    /// What a tinted face's linear colour is multiplied by at `(temperature, moisture)`: the
    /// map's colour there over its colour at [`REFERENCE_CLIMATE`], in linear RGB (1 at the
    /// reference). A channel whose reference is black is 1.
    pub fn tint(&self, temperature: f32, moisture: f32) -> [f32; 3] {
        let here = self.color_at(temperature, moisture);
        let reference = self.color_at(REFERENCE_CLIMATE.0, REFERENCE_CLIMATE.1);
        std::array::from_fn(|i| {
            let r = srgb_to_linear(reference[i]);
            if r > 0.0 { srgb_to_linear(here[i]) / r } else { 1.0 }
        })
    }

    /// Whether every colour is finite and within `[0, 1]`.
    pub fn is_valid(&self) -> bool {
        [self.cold_dry, self.hot_dry, self.cold_wet, self.hot_wet]
            .iter()
            .flatten()
            .all(|c| c.is_finite() && (0.0..=1.0).contains(c))
    }
}

fn clamp01(v: f32) -> f32 {
    if v.is_nan() { 0.5 } else { v.clamp(0.0, 1.0) }
}

/// The climate (temperature, moisture, each in `[0, 1]`) at corner `(cx, cz)`: world column
/// `(cx, cz) · CORNER_SPACING`. A pure function of the map and the corner, whichever chunk or
/// tile asks (law: Seamless).
pub fn corner_climate(map: &BiomeMap, cx: i32, cz: i32) -> (f32, f32) {
    let at = |c: i32| f64::from(c) * f64::from(CORNER_SPACING);
    let (t, m) = map.climate_at(at(cx), at(cz));
    (t as f32, m as f32)
}

/// The corner holding world column `(x, z)` at its minimum: `(⌊x / 32⌋, ⌊z / 32⌋)`, and where
/// `(x, z)` lies between it and the next, each in `[0, 1)`.
pub fn corner_of(x: f64, z: f64) -> ((i32, i32), (f32, f32)) {
    let s = f64::from(CORNER_SPACING);
    let (gx, gz) = ((x / s).floor(), (z / s).floor());
    ((gx as i32, gz as i32), ((x / s - gx) as f32, (z / s - gz) as f32))
}

/// The climate the shaders give a fragment at `(fx, fz)` (each in `[0, 1]`) between the corners
/// `[(cx, cz), (cx + 1, cz), (cx, cz + 1), (cx + 1, cz + 1)]`'s climates `corners`: bilinear.
pub fn climate_between_corners(corners: [(f32, f32); 4], fx: f32, fz: f32) -> (f32, f32) {
    let lerp = |a: f32, b: f32, f: f32| a + (b - a) * f;
    let axis = |pick: fn((f32, f32)) -> f32| {
        lerp(lerp(pick(corners[0]), pick(corners[1]), fx), lerp(pick(corners[2]), pick(corners[3]), fx), fz)
    };
    (axis(|c| c.0), axis(|c| c.1))
}

/// The tint `map` gives world column `(x, z)`: the climate interpolated between its four corners,
/// then [`ColorMap::tint`] (what the block shaders draw, up to the texture's 8-bit climate).
pub fn tint_between_corners(biomes: &BiomeMap, map: &ColorMap, x: f64, z: f64) -> [f32; 3] {
    let ((cx, cz), (fx, fz)) = corner_of(x, z);
    let corners = [(0, 0), (1, 0), (0, 1), (1, 1)].map(|(dx, dz)| corner_climate(biomes, cx + dx, cz + dz));
    let (t, m) = climate_between_corners(corners, fx, fz);
    map.tint(t, m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen3d::pipeline::Generator;
    use crate::preset::model::WorldPreset;

    fn close(a: [f32; 3], b: [f32; 3], eps: f32) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() <= eps)
    }

    #[test]
    fn the_maps_are_valid_and_one_at_the_reference_climate() {
        for map in [GRASS_MAP, FOLIAGE_MAP] {
            assert!(map.is_valid());
            assert!(close(map.tint(0.5, 0.5), [1.0; 3], 1e-6), "{:?}", map.tint(0.5, 0.5));
            // The corners are the map's colours; out-of-range and NaN climates are clamped.
            assert!(close(map.color_at(0.0, 0.0), map.cold_dry, 1e-6));
            assert!(close(map.color_at(1.0, 0.0), map.hot_dry, 1e-6));
            assert!(close(map.color_at(0.0, 1.0), map.cold_wet, 1e-6));
            assert!(close(map.color_at(1.0, 1.0), map.hot_wet, 1e-6));
            assert!(close(map.color_at(-3.0, 7.0), map.cold_wet, 1e-6));
            assert_eq!(map.color_at(f32::NAN, f32::NAN), map.color_at(0.5, 0.5));
            // Every tint is positive and finite, and within a factor the textures survive.
            for i in 0..=10 {
                for k in 0..=10 {
                    let t = map.tint(i as f32 / 10.0, k as f32 / 10.0);
                    assert!(t.iter().all(|c| c.is_finite() && *c > 0.2 && *c < 3.0), "{t:?}");
                }
            }
        }
        let reference = GRASS_MAP.color_at(0.5, 0.5);
        assert!(close(reference, [0.5125, 0.71, 0.42], 1e-6), "{reference:?}");
    }

    #[test]
    fn hot_dry_is_yellower_cold_is_bluer_and_wet_is_lusher() {
        for map in [GRASS_MAP, FOLIAGE_MAP] {
            let [hot_dry, cold, lush] = [map.tint(0.95, 0.05), map.tint(0.05, 0.5), map.tint(0.9, 0.95)];
            // Yellow: red rises against green; blue-green: blue rises against red; lush: green
            // rises against red and blue.
            assert!(hot_dry[0] > 1.3 && hot_dry[0] > hot_dry[1] && hot_dry[2] < 1.0, "{hot_dry:?}");
            assert!(cold[2] > 1.1 && cold[0] < cold[2], "{cold:?}");
            assert!(lush[1] > lush[0] && lush[1] > lush[2] && lush[2] < 0.8, "{lush:?}");
        }
        // Foliage is darker than grass at every corner.
        for (g, f) in [
            (GRASS_MAP.cold_dry, FOLIAGE_MAP.cold_dry),
            (GRASS_MAP.hot_dry, FOLIAGE_MAP.hot_dry),
            (GRASS_MAP.cold_wet, FOLIAGE_MAP.cold_wet),
            (GRASS_MAP.hot_wet, FOLIAGE_MAP.hot_wet),
        ] {
            assert!(f.iter().sum::<f32>() < g.iter().sum::<f32>());
        }
    }

    #[test]
    fn corners_are_pure_and_shared_by_neighbouring_chunks() {
        let g = Generator::new(&WorldPreset::default()).unwrap();
        let other = Generator::new(&WorldPreset::default()).unwrap();
        let biomes = g.terrain().biomes();
        for (cx, cz) in [(0, 0), (-1, 3), (1000, -2000), (-31_250_000, 31_250_000)] {
            let c = corner_climate(biomes, cx, cz);
            assert_eq!(c, corner_climate(other.terrain().biomes(), cx, cz));
            assert!((0.0..=1.0).contains(&c.0) && (0.0..=1.0).contains(&c.1), "{c:?}");
            let (t, m) = biomes.climate_at(f64::from(cx) * 32.0, f64::from(cz) * 32.0);
            assert_eq!(c, (t as f32, m as f32));
        }
        // Along the border x = 32 between chunks 0 and 1, the tint from either side's corners is
        // the same: both interpolate between corners (1, k) and (1, k + 1) alone.
        for z in [0.0, 5.5, 17.25, 31.9] {
            let left = {
                let corners = [(0, 0), (1, 0), (0, 1), (1, 1)].map(|(dx, dz)| corner_climate(biomes, dx, dz));
                climate_between_corners(corners, 1.0, z as f32 / 32.0)
            };
            let right = {
                let corners = [(1, 0), (2, 0), (1, 1), (2, 1)].map(|(dx, dz)| corner_climate(biomes, dx, dz));
                climate_between_corners(corners, 0.0, z as f32 / 32.0)
            };
            assert!((left.0 - right.0).abs() < 1e-6 && (left.1 - right.1).abs() < 1e-6, "{left:?} {right:?}");
            let near = tint_between_corners(biomes, &GRASS_MAP, 32.0 - 1e-4, z);
            let far = tint_between_corners(biomes, &GRASS_MAP, 32.0, z);
            assert!(close(near, far, 1e-3), "{near:?} {far:?}");
        }
        assert_eq!(corner_of(-0.5, 33.0), ((-1, 1), (0.984375, 0.03125)));
    }

    #[test]
    fn the_interpolated_climate_follows_the_noise_closely() {
        // The corners every 32 voxels stand in for the climate in between: on the default scale
        // of 1,024 voxels the interpolation stays within 0.05 of it (a barely visible hue shift).
        let g = Generator::new(&WorldPreset::default()).unwrap();
        let biomes = g.terrain().biomes();
        let mut worst = 0.0f32;
        for i in 0..400 {
            let (x, z) = (f64::from(i) * 37.3 - 7000.0, f64::from(i) * -23.9 + 1234.0);
            let ((cx, cz), (fx, fz)) = corner_of(x, z);
            let corners = [(0, 0), (1, 0), (0, 1), (1, 1)].map(|(dx, dz)| corner_climate(biomes, cx + dx, cz + dz));
            let (t, m) = climate_between_corners(corners, fx, fz);
            let (tt, mm) = biomes.climate_at(x, z);
            worst = worst.max((t - tt as f32).abs()).max((m - mm as f32).abs());
        }
        assert!(worst < 0.05, "{worst}");
    }

    #[test]
    fn two_distant_places_of_the_default_world_get_different_tints() {
        let g = Generator::new(&WorldPreset::default()).unwrap();
        let biomes = g.terrain().biomes();
        let mut seen: Vec<[f32; 3]> = Vec::new();
        for i in 0..64 {
            seen.push(tint_between_corners(biomes, &GRASS_MAP, f64::from(i) * 997.0, f64::from(i) * -613.0));
        }
        let spread = (0..3)
            .map(|c| {
                let (lo, hi) = seen.iter().fold((f32::MAX, f32::MIN), |(lo, hi), t| (lo.min(t[c]), hi.max(t[c])));
                hi - lo
            })
            .fold(0.0f32, f32::max);
        assert!(spread > 0.2, "the tint hardly varies across the world: {spread}");
    }
}
