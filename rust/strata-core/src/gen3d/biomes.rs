//! Biomes: Worley cells whose feature points pick a biome from the climate, blended at borders.
//!
//! * **Climate.** Temperature and moisture are two independent Perlin fBm fields of wavelength
//!   `climate_scale`, stretched to `[0, 1]` ([`BiomeMap::climate_at`]).
//! * **Cells.** One feature point per Worley cell of `cell_size` voxels
//!   ([`crate::noise::worley`]). Each feature point takes the biome of the table whose
//!   `(temperature, moisture)` is nearest the climate at the point ([`BiomeMap::biome_for_climate`]).
//!   A position belongs to the biome of its nearest feature point (5×5 cell scan: exact).
//! * **Blend.** Biome height parameters (`height_offset`, `height_scale`) are averaged over the
//!   feature points whose distance `dᵢ` is within `blend` of the nearest one's `d₀`, with weight
//!   `smoothstep(1 − (dᵢ − d₀) / blend)`. On a border `dᵢ = d₀` so both sides weigh the same, and
//!   every weight is a continuous function of position, so heights have no walls. `blend` is
//!   `blend_distance` capped at half a cell: then a point that drops out of the 5×5 scan as the
//!   position crosses a cell edge has weight 0 already (it is ≥ 2 cells away, the nearest ≤ √2).
//!   Moving one voxel changes `dᵢ − d₀` by at most 2, so parameters change across a border over
//!   at least `blend / 2` voxels on each side.
//!
//! Disabled biomes mean one "plains" biome ([`crate::preset::model::Biome::default`]) everywhere.
//!
//! May use: `base`, `preset`, `noise`.

use crate::base::block::{self, BlockId};
use crate::base::rng::salt;
use crate::noise::fractal::{FractalParams, noise_seed, perlin_fbm};
use crate::noise::worley::{cell_of, feature_point};
use crate::preset::model::{Biome, WorldPreset};
use noise::{Fbm, NoiseFn, Perlin};

/// Cells scanned on each side of a position's own cell (5×5 in all).
pub const SCAN_RADIUS: i32 = 2;

/// Stretch of the climate fBm (about ±0.35 typical) onto `[0, 1]`.
const CLIMATE_STRETCH: f64 = 1.6;

/// One Worley feature point and the biome it chose.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Feature {
    pub x: f64,
    pub z: f64,
    pub biome: u8,
}

/// Height parameters and blocks of one biome, resolved from the table.
#[derive(Clone, Debug, PartialEq)]
pub struct BiomeParams {
    pub height_offset: f64,
    pub height_scale: f64,
    pub surface_block: BlockId,
    pub subsurface_block: BlockId,
}

/// What the biome layer says at one position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BiomeSample {
    /// Index of the nearest feature point's biome.
    pub biome: u8,
    /// Blended height offset and amplitude factor.
    pub height_offset: f64,
    pub height_scale: f64,
}

/// The feature points that can matter anywhere in a rectangle of positions, in canonical order
/// (cell z, then cell x): every point that is the nearest, or within the blend band of the
/// nearest, for some position of the rectangle. Computed once per region.
#[derive(Clone, Debug, Default)]
pub struct RegionFeatures {
    /// `(x0, z0, x1, z1)`: the rectangle covered.
    rect: (f64, f64, f64, f64),
    features: Vec<Feature>,
}

impl RegionFeatures {
    /// The feature points kept for the region.
    pub fn features(&self) -> &[Feature] {
        &self.features
    }
}

/// The biome layer of a generator.
pub struct BiomeMap {
    seed: u64,
    enabled: bool,
    cell_size: f64,
    blend: f64,
    temperature: Fbm<Perlin>,
    moisture: Fbm<Perlin>,
    table: Vec<Biome>,
    params: Vec<BiomeParams>,
}

impl std::fmt::Debug for BiomeMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BiomeMap").field("enabled", &self.enabled).field("biomes", &self.table.len()).finish()
    }
}

impl BiomeMap {
    /// Builds the biome layer of a (validated) preset.
    pub fn new(preset: &WorldPreset) -> Self {
        let b = &preset.biomes;
        let enabled = b.enabled && !b.table.is_empty();
        let table = if enabled { b.table.clone() } else { vec![Biome::default()] };
        let params = table
            .iter()
            .map(|t| BiomeParams {
                height_offset: t.height_offset as f64,
                height_scale: t.height_scale as f64,
                surface_block: block::block_by_name(&t.surface_block).unwrap_or(block::GRASS),
                subsurface_block: block::block_by_name(&t.subsurface_block).unwrap_or(block::DIRT),
            })
            .collect();
        let climate = FractalParams {
            octaves: 3,
            frequency: 1.0 / b.climate_scale.max(1.0) as f64,
            persistence: 0.5,
            lacunarity: 2.0,
        };
        let cell_size = (b.cell_size as f64).max(1.0);
        Self {
            seed: preset.seed,
            enabled,
            cell_size,
            blend: (b.blend_distance as f64).clamp(0.0, cell_size * 0.5),
            temperature: perlin_fbm(noise_seed(preset.seed, salt::TEMPERATURE), climate),
            moisture: perlin_fbm(noise_seed(preset.seed, salt::MOISTURE), climate),
            table,
            params,
        }
    }

    /// The biome table in use (one default plains biome when biomes are disabled).
    pub fn table(&self) -> &[Biome] {
        &self.table
    }

    pub fn params(&self, biome: u8) -> &BiomeParams {
        &self.params[biome as usize]
    }

    /// Temperature and moisture at world `(x, z)`, each in `[0, 1]`.
    pub fn climate_at(&self, x: f64, z: f64) -> (f64, f64) {
        let stretch = |n: f64| (0.5 + n * CLIMATE_STRETCH).clamp(0.0, 1.0);
        (stretch(self.temperature.get([x, z])), stretch(self.moisture.get([x, z])))
    }

    /// The biome whose preferred climate is nearest `(temperature, moisture)`; ties go to the
    /// earlier table row.
    pub fn biome_for_climate(&self, temperature: f64, moisture: f64) -> u8 {
        let mut best = (0u8, f64::INFINITY);
        for (i, b) in self.table.iter().enumerate() {
            let (dt, dm) = (b.temperature as f64 - temperature, b.moisture as f64 - moisture);
            let d2 = dt * dt + dm * dm;
            if d2 < best.1 {
                best = (i as u8, d2);
            }
        }
        best.0
    }

    /// The feature point of cell `(cx, cz)` and the biome its climate picks.
    pub fn feature(&self, cx: i32, cz: i32) -> Feature {
        let (x, z) = feature_point(self.seed, salt::BIOME, self.cell_size, cx, cz);
        let biome = if self.table.len() > 1 {
            let (t, m) = self.climate_at(x, z);
            self.biome_for_climate(t, m)
        } else {
            0
        };
        Feature { x, z, biome }
    }

    /// The feature points that matter for positions in `[x0, x1] × [z0, z1]`.
    ///
    /// Candidates are the feature points of the 5×5 cells around every cell of the rectangle
    /// (exact, see the module doc). With `D` the smallest over candidates of their farthest
    /// distance to the rectangle, every position has its nearest point within `D`; a candidate
    /// whose nearest distance to the rectangle is `≥ D + blend` can then be neither the nearest
    /// nor inside the blend band anywhere, and is dropped (with one voxel of slack for rounding).
    pub fn region_features(&self, x0: f64, z0: f64, x1: f64, z1: f64) -> RegionFeatures {
        let rect = (x0, z0, x1, z1);
        if !self.enabled {
            return RegionFeatures { rect, features: Vec::new() };
        }
        let (cx0, cz0) = cell_of(self.cell_size, x0, z0);
        let (cx1, cz1) = cell_of(self.cell_size, x1, z1);
        // Positions first (a hash each); the climate (two fBm samples) only for the kept points.
        let mut candidates = Vec::with_capacity(((cx1 - cx0 + 5) * (cz1 - cz0 + 5)) as usize);
        for cz in cz0 - SCAN_RADIUS..=cz1 + SCAN_RADIUS {
            for cx in cx0 - SCAN_RADIUS..=cx1 + SCAN_RADIUS {
                let (x, z) = feature_point(self.seed, salt::BIOME, self.cell_size, cx, cz);
                candidates.push((cx, cz, x, z));
            }
        }
        let near = |&(_, _, x, z): &(i32, i32, f64, f64)| {
            let gx = (x0 - x).max(x - x1).max(0.0);
            let gz = (z0 - z).max(z - z1).max(0.0);
            (gx * gx + gz * gz).sqrt()
        };
        let far = |&(_, _, x, z): &(i32, i32, f64, f64)| {
            let gx = (x - x0).abs().max((x - x1).abs());
            let gz = (z - z0).abs().max((z - z1).abs());
            (gx * gx + gz * gz).sqrt()
        };
        let d = candidates.iter().map(far).fold(f64::INFINITY, f64::min);
        let keep = d + self.blend + 1.0;
        let features =
            candidates.iter().filter(|c| near(c) < keep).map(|&(cx, cz, _, _)| self.feature(cx, cz)).collect();
        RegionFeatures { rect, features }
    }

    /// The biome and blended height parameters at world `(x, z)`.
    pub fn sample(&self, x: f64, z: f64) -> BiomeSample {
        self.sample_in(x, z, &self.region_features(x, z, x, z))
    }

    /// Like [`BiomeMap::sample`], for a position inside `region`'s rectangle; the result does not
    /// depend on the region: the nearest point is the first in canonical order among those at
    /// the least distance, and weights are summed in canonical order over the points inside the
    /// blend band, which every region containing the position keeps.
    pub fn sample_in(&self, x: f64, z: f64, region: &RegionFeatures) -> BiomeSample {
        debug_assert!({
            let (x0, z0, x1, z1) = region.rect;
            !self.enabled || (x0..=x1).contains(&x) && (z0..=z1).contains(&z)
        });
        if !self.enabled || region.features.is_empty() {
            let p = &self.params[0];
            return BiomeSample { biome: 0, height_offset: p.height_offset, height_scale: p.height_scale };
        }
        let dist2 = |f: &Feature| (f.x - x) * (f.x - x) + (f.z - z) * (f.z - z);
        let (mut nearest, mut best_d2) = (0u8, f64::INFINITY);
        for f in &region.features {
            let d = dist2(f);
            if d < best_d2 {
                (nearest, best_d2) = (f.biome, d);
            }
        }
        let p = &self.params[nearest as usize];
        if self.blend <= 0.0 {
            return BiomeSample { biome: nearest, height_offset: p.height_offset, height_scale: p.height_scale };
        }
        let d0 = best_d2.sqrt();
        let reach = (d0 + self.blend) * (d0 + self.blend);
        let (mut w_sum, mut offset, mut scale, mut others) = (0.0, 0.0, 0.0, false);
        for f in &region.features {
            let d = dist2(f);
            if d >= reach {
                continue;
            }
            let t = 1.0 - (d.sqrt() - d0) / self.blend;
            let w = t * t * (3.0 - 2.0 * t);
            let q = &self.params[f.biome as usize];
            others |= f.biome != nearest;
            w_sum += w;
            offset += w * q.height_offset;
            scale += w * q.height_scale;
        }
        if !others {
            // Only points of the same biome nearby: its own parameters, exactly.
            return BiomeSample { biome: nearest, height_offset: p.height_offset, height_scale: p.height_scale };
        }
        BiomeSample { biome: nearest, height_offset: offset / w_sum, height_scale: scale / w_sum }
    }

    /// The biome of the nearest feature point to `(x, z)`, a position inside `region`'s rectangle
    /// (the biome [`BiomeMap::sample_in`] gives, without the blend).
    #[inline]
    pub fn nearest_in(&self, x: f64, z: f64, region: &RegionFeatures) -> u8 {
        let (mut nearest, mut best_d2) = (0u8, f64::INFINITY);
        for f in &region.features {
            let d = (f.x - x) * (f.x - x) + (f.z - z) * (f.z - z);
            if d < best_d2 {
                (nearest, best_d2) = (f.biome, d);
            }
        }
        nearest
    }

    /// [`BiomeMap::nearest_in`] at every `(xs[i], z)` of one row, into `out[i]` (`out` as long as
    /// `xs`). The same distances, compared in the same order (a point replaces the best only when
    /// strictly nearer), so the same biomes; with AVX2 four positions at a time.
    pub fn nearest_row(&self, xs: &[f64], z: f64, region: &RegionFeatures, out: &mut [u8]) {
        assert_eq!(xs.len(), out.len(), "one biome per position");
        // Squared z distance of each point to the row: the second term of every distance.
        let dz2: Vec<f64> = region.features.iter().map(|f| (f.z - z) * (f.z - z)).collect();
        let mut done = 0;
        #[cfg(target_arch = "x86_64")]
        if crate::base::simd::avx2() {
            // SAFETY: the CPU has AVX2.
            done = unsafe { nearest_row_avx2(xs, &dz2, &region.features, out) };
        }
        for (x, b) in xs[done..].iter().zip(&mut out[done..]) {
            let (mut nearest, mut best_d2) = (0u8, f64::INFINITY);
            for (f, dz2) in region.features.iter().zip(&dz2) {
                let d = (f.x - x) * (f.x - x) + dz2;
                if d < best_d2 {
                    (nearest, best_d2) = (f.biome, d);
                }
            }
            *b = nearest;
        }
    }

    /// The biome of the nearest feature point to `(x, z)`.
    pub fn biome_index_at(&self, x: f64, z: f64) -> u8 {
        if !self.enabled {
            return 0;
        }
        let ((cx, cz), _) =
            crate::noise::worley::nearest_feature(self.seed, salt::BIOME, self.cell_size, x, z, SCAN_RADIUS);
        self.feature(cx, cz).biome
    }
}

/// [`BiomeMap::nearest_row`] for the leading multiple of four positions; returns how many it did.
/// Lanes are positions, points are scanned in order, and a lane takes a point only when its
/// distance is strictly less (`_CMP_LT_OQ`), as the scalar loop does; `dx·dx + dz2` rounds as
/// there (no fused multiply-add).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn nearest_row_avx2(xs: &[f64], dz2: &[f64], features: &[Feature], out: &mut [u8]) -> usize {
    use std::arch::x86_64::*;
    let blocks = xs.len() / 4;
    for (x4, b4) in xs.chunks_exact(4).zip(out.chunks_exact_mut(4)) {
        // SAFETY: `x4` holds four f64, read unaligned.
        let x = unsafe { _mm256_loadu_pd(x4.as_ptr()) };
        let (mut best, mut biome) = (_mm256_set1_pd(f64::INFINITY), _mm256_setzero_pd());
        for (f, &dz2) in features.iter().zip(dz2) {
            let dx = _mm256_sub_pd(_mm256_set1_pd(f.x), x);
            let d = _mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_set1_pd(dz2));
            let nearer = _mm256_cmp_pd::<_CMP_LT_OQ>(d, best);
            best = _mm256_blendv_pd(best, d, nearer);
            biome = _mm256_blendv_pd(biome, _mm256_set1_pd(f.biome as f64), nearer);
        }
        let mut lanes = [0.0f64; 4];
        // SAFETY: `lanes` holds four f64, written unaligned.
        unsafe { _mm256_storeu_pd(lanes.as_mut_ptr(), biome) };
        for (b, l) in b4.iter_mut().zip(lanes) {
            *b = l as u8;
        }
    }
    blocks * 4
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_climate_wins() {
        let map = BiomeMap::new(&WorldPreset::default());
        let names = |i: u8| map.table()[i as usize].name.clone();
        assert_eq!(names(map.biome_for_climate(0.9, 0.1)), "desert");
        assert_eq!(names(map.biome_for_climate(0.0, 0.5)), "tundra");
        assert_eq!(names(map.biome_for_climate(0.5, 0.8)), "forest");
        assert_eq!(names(map.biome_for_climate(0.3, 0.35)), "mountains");
    }

    #[test]
    fn sample_agrees_with_the_nearest_feature_and_blends_only_near_borders() {
        let map = BiomeMap::new(&WorldPreset::default());
        let region = map.region_features(-2000.0, -2000.0, 2000.0, 2000.0);
        let mut blended = 0;
        for i in 0..4000 {
            let (x, z) = ((i * 131 % 4000) as f64 - 2000.0 + 0.5, (i * 277 % 4000) as f64 - 2000.0 + 0.5);
            let s = map.sample(x, z);
            assert_eq!(s.biome, map.biome_index_at(x, z));
            assert_eq!(s, map.sample_in(x, z, &region), "the region changes nothing");
            let small = map.region_features(x - 3.0, z - 40.0, x + 30.0, z + 1.0);
            assert_eq!(s, map.sample_in(x, z, &small), "the region changes nothing");
            let p = map.params(s.biome);
            if (s.height_offset, s.height_scale) != (p.height_offset, p.height_scale) {
                blended += 1;
            }
        }
        assert!(blended > 0 && blended < 1000, "{blended} blended of 4000");
    }

    #[test]
    fn nearest_row_equals_nearest_in_at_every_position() {
        let map = BiomeMap::new(&WorldPreset::default());
        for (n, (x0, z)) in [
            (1usize, (0.5, 0.5)),
            (4, (-300.5, 70.5)),
            (7, (1234.5, -999.5)),
            (18, (-64.5, 15.5)),
            (37, (511.25, 640.0)),
        ] {
            let xs: Vec<f64> = (0..n).map(|i| x0 + i as f64 * 13.0).collect();
            let region = map.region_features(xs[0], z, xs[n - 1], z);
            let mut row = vec![u8::MAX; n];
            map.nearest_row(&xs, z, &region, &mut row);
            for (&x, &b) in xs.iter().zip(&row) {
                assert_eq!(b, map.nearest_in(x, z, &region), "at ({x}, {z})");
            }
        }
    }

    #[test]
    fn disabled_biomes_are_plains_everywhere() {
        let mut preset = WorldPreset::default();
        preset.biomes.enabled = false;
        let map = BiomeMap::new(&preset);
        assert_eq!(map.table().len(), 1);
        assert_eq!(map.table()[0].name, "plains");
        let s = map.sample(123.0, -77.0);
        assert_eq!((s.biome, s.height_offset, s.height_scale), (0, 0.0, 1.0));
    }
}
