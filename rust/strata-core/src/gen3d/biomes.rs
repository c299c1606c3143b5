//! Biomes: Worley cells whose feature points pick a biome from the climate, blended at borders.
//!
//! * **Climate.** Temperature and moisture are two independent Perlin fBm fields of wavelength
//!   `climate_scale`, stretched to `[0, 1]` ([`BiomeMap::climate_at`]).
//! * **Cells.** One feature point per Worley cell of `cell_size` voxels
//!   ([`crate::noise::worley`]). Each feature point takes, among the biomes whose climate ranges
//!   (`temperature_min..=temperature_max`, `moisture_min..=moisture_max`) hold the climate at the
//!   point, the one whose `(temperature, moisture)` is nearest; when no range holds it, the
//!   nearest of all ([`BiomeMap::biome_for_climate`]).
//!   A position belongs to the biome of its nearest feature point (5×5 cell scan: exact).
//! * **Warp.** A position looks its biome up at a displaced point
//!   ([`crate::gen3d::biome_warp`]: layered noise, up to `warp_strength` voxels per axis), so the
//!   cells' straight edges meander like coastlines. The biome and the transition below use that
//!   point; the height blend uses the position itself, since the warp stretches and squeezes
//!   space (up to several voxels of lookup per voxel) and a blend band squeezed with it would
//!   turn borders into cliffs.
//! * **Transition.** Within `transition_width` of a border (the nearest feature point of another
//!   biome at most that much farther than the nearest one), a column takes the other biome with
//!   probability `½ · (1 − margin / transition_width)`, drawn from a hash of the seed and the
//!   column: the two biomes' surfaces mix in a dithered band that thins out away from the
//!   border, the same in any chunk and order.
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
//! Everything per biome is data of its table row: the blocks (resolved by name through the
//! world's block library, [`BiomeMap::with_library`]) and the scatter set ([`BiomeParams::scatter`]).
//! No rule here or in the stages names a biome.
//!
//! May use: `base`, `preset`, `noise`.

use crate::base::block::{self, BlockId};
use crate::base::block_library::{BlockLibrary, default_library};
use crate::base::rng::{hash2, salt, unit_f64};
use crate::gen3d::biome_warp::{BiomeWarp, WarpGrid};
use crate::noise::fractal::{FractalParams, noise_seed, perlin_fbm};
use crate::noise::worley::{cell_of, feature_point};
use crate::preset::model::{Biome, ScatterKind, ScatterPlacement, WorldPreset};
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

/// Height parameters, blocks and scatter set of one biome, resolved from its table row.
#[derive(Clone, Debug, PartialEq)]
pub struct BiomeParams {
    pub height_offset: f64,
    pub height_scale: f64,
    pub surface_block: BlockId,
    pub subsurface_block: BlockId,
    /// Top and subsurface on steep slopes.
    pub cliff_block: BlockId,
    /// Top and subsurface on shores.
    pub shore_block: BlockId,
    /// The scatter set ([`Biome::scatter_rules`]), kinds resolved, in the row's order.
    pub scatter: Vec<ScatterParams>,
    /// Trees of blocks grow here ([`crate::preset::model::TreeSettings::grow_in`]): the scatter
    /// places no mesh trees.
    pub block_trees: bool,
}

/// One resolved entry of a biome's scatter set (see [`crate::preset::model::ScatterRule`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScatterParams {
    pub kind: ScatterKind,
    pub density: f32,
    pub placement: ScatterPlacement,
    pub bare_rock_density: f32,
}

impl BiomeParams {
    /// The row `biome` with its block names looked up in `library`. A name the library lacks
    /// (only possible for a preset not validated against it) falls back to the built-in block
    /// of that name, else to `fallback`.
    fn resolve(biome: &Biome, library: &BlockLibrary, block_trees: bool) -> Self {
        let id = |name: &str, fallback: BlockId| {
            library.id_of(name).or_else(|| block::block_by_name(name)).unwrap_or(fallback)
        };
        let scatter = biome
            .scatter_rules()
            .iter()
            .filter_map(|r| {
                Some(ScatterParams {
                    kind: ScatterKind::from_name(&r.kind)?,
                    density: r.density,
                    placement: r.placement,
                    bare_rock_density: r.bare_rock_density,
                })
            })
            .collect();
        Self {
            height_offset: biome.height_offset as f64,
            height_scale: biome.height_scale as f64,
            surface_block: id(&biome.surface_block, block::GRASS),
            subsurface_block: id(&biome.subsurface_block, block::DIRT),
            cliff_block: id(&biome.cliff_block, block::STONE),
            shore_block: id(&biome.shore_block, block::SAND),
            scatter,
            block_trees,
        }
    }
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
/// (cell z, then cell x): every point that is the nearest, or within the blend or transition
/// band of the nearest, for some position of the rectangle or its lookup point. Computed once
/// per region.
#[derive(Clone, Debug, Default)]
pub struct RegionFeatures {
    /// `(x0, z0, x1, z1)`: the rectangle covered.
    rect: (f64, f64, f64, f64),
    /// The points that matter for the positions' lookup points (their biome and transition).
    features: Vec<Feature>,
    /// The points that matter for the height blend around the positions themselves, when a warp
    /// moves the lookups elsewhere; `None`: the same as `features`.
    blend: Option<Vec<Feature>>,
    /// The warp over the rectangle (empty without a warp).
    warp: WarpGrid,
    /// [`one_biome_of`] `features`, and of the blend's points.
    one_biome: Option<u8>,
    blend_one_biome: Option<u8>,
}

impl RegionFeatures {
    fn new(rect: (f64, f64, f64, f64), features: Vec<Feature>, blend: Option<Vec<Feature>>, warp: WarpGrid) -> Self {
        let one_biome = one_biome_of(&features);
        let blend_one_biome = blend.as_deref().map_or(one_biome, one_biome_of);
        Self { rect, features, blend, warp, one_biome, blend_one_biome }
    }

    /// The feature points kept for the region's lookups.
    pub fn features(&self) -> &[Feature] {
        &self.features
    }

    /// The feature points kept for the height blend around the region's positions.
    pub fn blend_features(&self) -> &[Feature] {
        self.blend.as_deref().unwrap_or(&self.features)
    }
}

/// The biome layer of a generator.
pub struct BiomeMap {
    seed: u64,
    enabled: bool,
    cell_size: f64,
    blend: f64,
    warp: Option<BiomeWarp>,
    /// `transition_width` (0 without a transition band).
    transition: f64,
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
    /// Builds the biome layer of a (validated) preset, block names from the default library.
    pub fn new(preset: &WorldPreset) -> Self {
        Self::with_library(preset, default_library())
    }

    /// Builds the biome layer of a preset validated against `library`
    /// ([`WorldPreset::validate_with_library`]), its block names resolved through `library`.
    pub fn with_library(preset: &WorldPreset, library: &BlockLibrary) -> Self {
        let b = &preset.biomes;
        let enabled = b.enabled && !b.table.is_empty();
        let table = if enabled { b.table.clone() } else { vec![Biome::default()] };
        let params = table.iter().map(|t| BiomeParams::resolve(t, library, preset.trees.grow_in(&t.name))).collect();
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
            warp: if enabled { BiomeWarp::new(preset.seed, b.warp_strength as f64, b.warp_scale as f64) } else { None },
            transition: if enabled { (b.transition_width as f64).max(0.0) } else { 0.0 },
            temperature: perlin_fbm(noise_seed(preset.seed, salt::TEMPERATURE), climate),
            moisture: perlin_fbm(noise_seed(preset.seed, salt::MOISTURE), climate),
            table,
            params,
        }
    }

    /// This map with another warp: for tuning it.
    #[doc(hidden)]
    pub fn with_warp(mut self, warp: Option<BiomeWarp>) -> Self {
        self.warp = warp;
        self
    }

    /// The biome table in use (one default plains biome when biomes are disabled).
    pub fn table(&self) -> &[Biome] {
        &self.table
    }

    pub fn params(&self, biome: u8) -> &BiomeParams {
        &self.params[biome as usize]
    }

    /// The resolved rows of [`BiomeMap::table`], in the same order.
    pub fn all_params(&self) -> &[BiomeParams] {
        &self.params
    }

    /// Temperature and moisture at world `(x, z)`, each in `[0, 1]`.
    pub fn climate_at(&self, x: f64, z: f64) -> (f64, f64) {
        let stretch = |n: f64| (0.5 + n * CLIMATE_STRETCH).clamp(0.0, 1.0);
        (stretch(self.temperature.get([x, z])), stretch(self.moisture.get([x, z])))
    }

    /// Among the biomes whose climate ranges hold `(temperature, moisture)`, the one whose
    /// preferred climate is nearest; the nearest of all when no range holds it. Ties go to the
    /// earlier table row.
    pub fn biome_for_climate(&self, temperature: f64, moisture: f64) -> u8 {
        let holds = |b: &Biome| {
            (b.temperature_min as f64..=b.temperature_max as f64).contains(&temperature)
                && (b.moisture_min as f64..=b.moisture_max as f64).contains(&moisture)
        };
        let nearest = |in_range: bool| {
            let mut best = (None, f64::INFINITY);
            for (i, b) in self.table.iter().enumerate() {
                if in_range && !holds(b) {
                    continue;
                }
                let (dt, dm) = (b.temperature as f64 - temperature, b.moisture as f64 - moisture);
                let d2 = dt * dt + dm * dm;
                if d2 < best.1 || best.0.is_none() {
                    best = (Some(i as u8), d2);
                }
            }
            best.0
        };
        nearest(true).or_else(|| nearest(false)).unwrap_or(0)
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

    /// The feature points that matter for positions in `[x0, x1] × [z0, z1]`, and the warp over
    /// them.
    ///
    /// Two sets of points matter, each for a rectangle that holds every point it is asked about:
    /// the height blend looks around the positions themselves (the rectangle given), the biome
    /// and its transition around their lookup points. Without a warp the two are the same; with
    /// one, a lookup lies in the rectangle moved by the warp's least and greatest displacement on
    /// each axis over the rectangle's lattice points (an interpolation never leaves its four
    /// points' range). For a rectangle, candidates are the feature points of the 5×5 cells around
    /// every cell of it (exact, see the module doc). With `D` the smallest over candidates of
    /// their farthest distance to it, every position in it has its nearest point within `D`; a
    /// candidate whose nearest distance to it is `≥ D + band` can then be neither the nearest
    /// nor inside the band anywhere, and is dropped (with one voxel of slack for rounding). The
    /// band is the blend's for the blend set, the transition's for the lookup set, and the
    /// larger of the two when one set serves both. A subset that keeps every point that can
    /// matter, in canonical order, gives the same nearest points and the same sums as any larger
    /// one, so results do not depend on the region.
    pub fn region_features(&self, x0: f64, z0: f64, x1: f64, z1: f64) -> RegionFeatures {
        let rect = (x0, z0, x1, z1);
        if !self.enabled {
            return RegionFeatures { rect, ..RegionFeatures::default() };
        }
        let (warp, lookups) = match &self.warp {
            Some(w) => {
                let grid = w.grid(x0, z0, x1, z1);
                let (dx0, dx1, dz0, dz1) = grid.bounds();
                (grid, Some((x0 + dx0, z0 + dz0, x1 + dx1, z1 + dz1)))
            }
            None => (WarpGrid::default(), None),
        };
        // Candidates over the cells of both rectangles; positions first (a hash each), the
        // climate (two fBm samples) only for the kept points.
        let (ux0, uz0, ux1, uz1) = match lookups {
            Some((lx0, lz0, lx1, lz1)) => (x0.min(lx0), z0.min(lz0), x1.max(lx1), z1.max(lz1)),
            None => rect,
        };
        let (cx0, cz0) = cell_of(self.cell_size, ux0, uz0);
        let (cx1, cz1) = cell_of(self.cell_size, ux1, uz1);
        let mut candidates = Vec::with_capacity(((cx1 - cx0 + 5) * (cz1 - cz0 + 5)) as usize);
        for cz in cz0 - SCAN_RADIUS..=cz1 + SCAN_RADIUS {
            for cx in cx0 - SCAN_RADIUS..=cx1 + SCAN_RADIUS {
                let (x, z) = feature_point(self.seed, salt::BIOME, self.cell_size, cx, cz);
                candidates.push((cx, cz, x, z));
            }
        }
        let Some(lookups) = lookups else {
            let keep = kept_for(&candidates, rect, self.blend.max(self.transition));
            let features = candidates.iter().zip(&keep).filter(|(_, k)| **k).map(|(c, _)| self.feature(c.0, c.1));
            return RegionFeatures::new(rect, features.collect(), None, warp);
        };
        let (for_blend, for_lookups) =
            (kept_for(&candidates, rect, self.blend), kept_for(&candidates, lookups, self.transition));
        let (mut blend, mut features) = (Vec::new(), Vec::new());
        for ((c, &b), &l) in candidates.iter().zip(&for_blend).zip(&for_lookups) {
            if b || l {
                let f = self.feature(c.0, c.1);
                if b {
                    blend.push(f);
                }
                if l {
                    features.push(f);
                }
            }
        }
        RegionFeatures::new(rect, features, Some(blend), warp)
    }

    /// Whether lookups are warped or dithered (otherwise a position looks up its own biome).
    #[inline]
    fn mixes(&self) -> bool {
        self.warp.is_some() || self.transition > 0.0
    }

    /// Where `(x, z)` looks up its biome: the warped point, or itself without a warp.
    #[inline]
    fn lookup(&self, x: f64, z: f64, region: &RegionFeatures) -> (f64, f64) {
        if self.warp.is_some() { region.warp.warped(x, z) } else { (x, z) }
    }

    /// The biome column `(x, z)` shows, given the nearest feature point's biome and squared
    /// distance to its lookup and those of the nearest point of another biome (see
    /// [`nearest_two`]): the other biome, with the transition band's probability.
    #[inline]
    fn dithered(&self, x: f64, z: f64, (b0, d0, b1, d1): (u8, f64, u8, f64)) -> u8 {
        if self.transition <= 0.0 || b1 == NO_BIOME {
            return b0;
        }
        let margin = d1.sqrt() - d0.sqrt();
        if margin.is_nan() || margin >= self.transition {
            return b0;
        }
        let chance = 0.5 * (1.0 - margin / self.transition);
        let (cx, cz) = (x.floor() as i32, z.floor() as i32);
        if unit_f64(hash2(self.seed, salt::BIOME_DITHER, cx, cz)) < chance { b1 } else { b0 }
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
        let mut sample = self.sample_at(x, z, region);
        if self.mixes() && !region.features.is_empty() {
            sample.biome = self.nearest_in(x, z, region);
        }
        sample
    }

    /// [`BiomeMap::sample_in`] without the warp and the transition's dither.
    fn sample_at(&self, x: f64, z: f64, region: &RegionFeatures) -> BiomeSample {
        let features = region.blend_features();
        if !self.enabled || features.is_empty() {
            let p = &self.params[0];
            return BiomeSample { biome: 0, height_offset: p.height_offset, height_scale: p.height_scale };
        }
        let dist2 = |f: &Feature| (f.x - x) * (f.x - x) + (f.z - z) * (f.z - z);
        let (mut nearest, mut best_d2) = (0u8, f64::INFINITY);
        for f in features {
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
        for f in features {
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

    /// [`BiomeMap::sample_in`]'s blended height parameters `(height_offset, height_scale)` at
    /// every `(xs[i], z)` of one row, into `out[i]` (`out` as long as `xs`; the positions inside
    /// `region`'s rectangle): the same bits. A region whose feature points all chose one biome
    /// gives that biome's own parameters everywhere (what `sample_in` returns when no other
    /// biome is near), with no per-position work; otherwise, with AVX2, four positions at a
    /// time: the same distances (from the positions themselves: heights blend unwarped), square
    /// roots and weights, summed in the same order, a point skipped where `sample_in` skips it
    /// (`d ≥ reach`).
    pub fn blend_row(&self, xs: &[f64], z: f64, region: &RegionFeatures, out: &mut [(f64, f64)]) {
        assert_eq!(xs.len(), out.len(), "one blend per position");
        let features = region.blend_features();
        let own = |b: u8| (self.params[b as usize].height_offset, self.params[b as usize].height_scale);
        if !self.enabled || features.is_empty() {
            out.fill(own(0));
            return;
        }
        // Finite positions (every distance finite: the nearest is then a feature's biome).
        if let Some(b) = region.blend_one_biome
            && finite(z)
            && xs.iter().all(|&x| finite(x))
        {
            out.fill(own(b));
            return;
        }
        // Blocks of positions on the stack: no allocation per row. Heights blend around the
        // positions themselves, not their warped lookups (see the module doc).
        let mut lz = [0.0; ROW_BLOCK];
        for (xs, out) in xs.chunks(ROW_BLOCK).zip(out.chunks_mut(ROW_BLOCK)) {
            let (lx, lz) = (xs, &mut lz[..xs.len()]);
            lz.fill(z);
            #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))] // set only by the x86_64 SIMD paths
            let mut done = 0;
            #[cfg(target_arch = "x86_64")]
            if self.blend > 0.0 && crate::base::simd::avx2() {
                // SAFETY: the CPU has AVX2.
                done = unsafe { blend_row_avx2(lx, lz, features, &self.params, self.blend, out) };
            }
            for ((&x, &z), o) in lx[done..].iter().zip(&lz[done..]).zip(&mut out[done..]) {
                let s = self.sample_at(x, z, region);
                *o = (s.height_offset, s.height_scale);
            }
        }
    }

    /// The lookup points of `(xs[i], z)`, `i` along the row, into `lx` and `lz` (each as long as
    /// `xs`).
    #[inline]
    fn lookup_row(&self, xs: &[f64], z: f64, region: &RegionFeatures, lx: &mut [f64], lz: &mut [f64]) {
        if self.warp.is_some() {
            region.warp.warped_row(xs, z, lx, lz);
        } else {
            lx.copy_from_slice(xs);
            lz.fill(z);
        }
    }

    /// The biome column `(x, z)` shows, a position inside `region`'s rectangle (the biome
    /// [`BiomeMap::sample_in`] gives, without the blend).
    #[inline]
    pub fn nearest_in(&self, x: f64, z: f64, region: &RegionFeatures) -> u8 {
        if self.mixes() {
            if region.features.is_empty() {
                return 0;
            }
            let (lx, lz) = self.lookup(x, z, region);
            return self.dithered(x, z, nearest_two(&region.features, lx, lz));
        }
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
    /// `xs`). The same lookup points and distances, compared in the same order (a point replaces
    /// the best only when strictly nearer), so the same biomes; with AVX2 four positions at a
    /// time.
    pub fn nearest_row(&self, xs: &[f64], z: f64, region: &RegionFeatures, out: &mut [u8]) {
        assert_eq!(xs.len(), out.len(), "one biome per position");
        let features = &region.features;
        if self.mixes() && features.is_empty() {
            out.fill(0);
            return;
        }
        // Every point of one biome: that biome wherever distances are finite (the nearest is then
        // one of them, and no other biome is there to mix in), with no per-position work.
        if let Some(b) = region.one_biome
            && finite(z)
            && xs.iter().all(|&x| finite(x))
        {
            out.fill(b);
            return;
        }
        let second = self.transition > 0.0;
        // Blocks of positions on the stack: no allocation per row.
        let (mut lx, mut lz) = ([0.0; ROW_BLOCK], [0.0; ROW_BLOCK]);
        for (xs, out) in xs.chunks(ROW_BLOCK).zip(out.chunks_mut(ROW_BLOCK)) {
            let n = xs.len();
            let (lx, lz) = (&mut lx[..n], &mut lz[..n]);
            self.lookup_row(xs, z, region, lx, lz);
            #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))] // set only by the x86_64 SIMD paths
            let mut done = 0;
            #[cfg(target_arch = "x86_64")]
            if crate::base::simd::avx2() {
                // SAFETY: the CPU has AVX2.
                done = unsafe {
                    if second {
                        self.nearest_row_avx2::<true>(xs, z, lx, lz, features, out)
                    } else {
                        self.nearest_row_avx2::<false>(xs, z, lx, lz, features, out)
                    }
                };
            }
            for (((&x, &lx), &lz), b) in xs.iter().zip(&*lx).zip(&*lz).zip(out.iter_mut()).skip(done) {
                let n = nearest_two(features, lx, lz);
                *b = if second { self.dithered(x, z, n) } else { n.0 };
            }
        }
    }

    /// [`BiomeMap::nearest_row`]'s biomes for the leading multiple of four positions
    /// `(xs[i], z)`, their lookup points `(lx[i], lz[i])`, into `out`; returns how many it did.
    /// Lanes are positions, points are scanned in order, and a lane takes a point only when its
    /// distance is strictly less (`_CMP_LT_OQ`), as [`nearest_two`] does; `dx·dx + dz·dz` rounds
    /// as there (no fused multiply-add). With `SECOND`, the nearest point of another biome is
    /// tracked too, the margin `√d₁ − √d₀` computed as [`BiomeMap::dithered`] computes it, and
    /// only lanes inside the transition band (`margin < width`, which is what `dithered` tests)
    /// go through `dithered` itself; the others show the nearest biome, as `dithered` returns.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn nearest_row_avx2<const SECOND: bool>(
        &self,
        xs: &[f64],
        z: f64,
        lx: &[f64],
        lz: &[f64],
        features: &[Feature],
        out: &mut [u8],
    ) -> usize {
        use std::arch::x86_64::*;
        let blocks = lx.len() / 4;
        let width = _mm256_set1_pd(self.transition);
        for (((x4, z4), o4), p4) in
            lx.chunks_exact(4).zip(lz.chunks_exact(4)).zip(out.chunks_exact_mut(4)).zip(xs.chunks_exact(4))
        {
            // SAFETY: `x4` and `z4` hold four f64 each, read unaligned.
            let (x, z4) = unsafe { (_mm256_loadu_pd(x4.as_ptr()), _mm256_loadu_pd(z4.as_ptr())) };
            let inf = _mm256_set1_pd(f64::INFINITY);
            let (mut best, mut biome) = (inf, _mm256_setzero_pd());
            let (mut other, mut other_biome) = (inf, _mm256_set1_pd(NO_BIOME as f64));
            for f in features {
                let dx = _mm256_sub_pd(_mm256_set1_pd(f.x), x);
                let dz = _mm256_sub_pd(_mm256_set1_pd(f.z), z4);
                let d = _mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dz, dz));
                let fb = _mm256_set1_pd(f.biome as f64);
                let nearer = _mm256_cmp_pd::<_CMP_LT_OQ>(d, best);
                if SECOND {
                    let differs = _mm256_cmp_pd::<_CMP_NEQ_UQ>(fb, biome);
                    // Nearer and of another biome: the old best becomes the other.
                    let demote = _mm256_and_pd(nearer, differs);
                    // Not nearer, of another biome and nearer than the other: the new other.
                    let take = _mm256_andnot_pd(nearer, _mm256_and_pd(differs, _mm256_cmp_pd::<_CMP_LT_OQ>(d, other)));
                    other = _mm256_blendv_pd(_mm256_blendv_pd(other, best, demote), d, take);
                    other_biome = _mm256_blendv_pd(_mm256_blendv_pd(other_biome, biome, demote), fb, take);
                }
                best = _mm256_blendv_pd(best, d, nearer);
                biome = _mm256_blendv_pd(biome, fb, nearer);
            }
            // The biome indices as bytes: lane l's in byte 4·l of the 32-bit conversion.
            let bytes = _mm_cvtsi128_si32(_mm_shuffle_epi8(
                _mm256_cvttpd_epi32(biome),
                _mm_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1),
            ));
            o4.copy_from_slice(&bytes.to_le_bytes());
            if SECOND {
                let margin = _mm256_sub_pd(_mm256_sqrt_pd(other), _mm256_sqrt_pd(best));
                let inside = _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_LT_OQ>(margin, width));
                if inside != 0 {
                    let mut lanes = [[0.0f64; 4]; 4];
                    // SAFETY: each row of `lanes` holds four f64, written unaligned.
                    unsafe {
                        _mm256_storeu_pd(lanes[0].as_mut_ptr(), biome);
                        _mm256_storeu_pd(lanes[1].as_mut_ptr(), best);
                        _mm256_storeu_pd(lanes[2].as_mut_ptr(), other_biome);
                        _mm256_storeu_pd(lanes[3].as_mut_ptr(), other);
                    }
                    for l in (0..4).filter(|l| inside & (1 << l) != 0) {
                        let b1 = if lanes[1][l] == f64::INFINITY { NO_BIOME } else { lanes[2][l] as u8 };
                        o4[l] = self.dithered(p4[l], z, (lanes[0][l] as u8, lanes[1][l], b1, lanes[3][l]));
                    }
                }
            }
        }
        blocks * 4
    }

    /// The biome column `(x, z)` shows (see [`BiomeMap::nearest_in`]).
    pub fn biome_index_at(&self, x: f64, z: f64) -> u8 {
        if !self.enabled {
            return 0;
        }
        if self.mixes() {
            return self.nearest_in(x, z, &self.region_features(x, z, x, z));
        }
        let ((cx, cz), _) =
            crate::noise::worley::nearest_feature(self.seed, salt::BIOME, self.cell_size, x, z, SCAN_RADIUS);
        self.feature(cx, cz).biome
    }
}

/// Whether `v` is far from overflowing a squared distance (so every distance from it is finite).
#[inline]
fn finite(v: f64) -> bool {
    v.abs() < 1e100
}

/// The biome of every point of `features` when they all have one and finite positions (then it
/// is the nearest biome of every finite position, and no other biome is near any); `None` for
/// no points.
fn one_biome_of(features: &[Feature]) -> Option<u8> {
    let first = features.first()?;
    features.iter().all(|f| f.biome == first.biome && finite(f.x) && finite(f.z)).then_some(first.biome)
}

/// Which of `candidates` (cell, position) can be the nearest feature point, or within `band` of
/// the nearest, for some point of `rect` (see [`BiomeMap::region_features`]).
fn kept_for(candidates: &[(i32, i32, f64, f64)], rect: (f64, f64, f64, f64), band: f64) -> Vec<bool> {
    let d = candidates.iter().map(|&(_, _, x, z)| farthest(rect, x, z)).fold(f64::INFINITY, f64::min);
    let keep = d + band + 1.0;
    candidates.iter().map(|&(_, _, x, z)| nearest_distance(rect, x, z) < keep).collect()
}

/// Distance from `(x, z)` to the nearest point of the rectangle `(x0, z0, x1, z1)` (0 inside).
#[inline]
fn nearest_distance((x0, z0, x1, z1): (f64, f64, f64, f64), x: f64, z: f64) -> f64 {
    let gx = (x0 - x).max(x - x1).max(0.0);
    let gz = (z0 - z).max(z - z1).max(0.0);
    (gx * gx + gz * gz).sqrt()
}

/// Distance from `(x, z)` to the farthest point of the rectangle `(x0, z0, x1, z1)`.
#[inline]
fn farthest((x0, z0, x1, z1): (f64, f64, f64, f64), x: f64, z: f64) -> f64 {
    let gx = (x - x0).abs().max((x - x1).abs());
    let gz = (z - z0).abs().max((z - z1).abs());
    (gx * gx + gz * gz).sqrt()
}

/// Positions of a row handled at a time by the row functions (their buffers live on the stack).
const ROW_BLOCK: usize = 64;

/// No biome: the "other biome" of a position whose region holds one biome only.
const NO_BIOME: u8 = u8::MAX;

/// [`nearest_two`] of no feature point.
const NEAREST_NONE: (u8, f64, u8, f64) = (0, f64::INFINITY, NO_BIOME, f64::INFINITY);

/// The nearest of `features` to `(x, z)`, its biome and squared distance, and the nearest of
/// those of another biome, its biome and squared distance (`NO_BIOME`, ∞ when there is none).
/// Points are scanned in order and replace a best only when strictly nearer.
#[inline]
fn nearest_two(features: &[Feature], x: f64, z: f64) -> (u8, f64, u8, f64) {
    let (mut b0, mut d0, mut b1, mut d1) = NEAREST_NONE;
    for f in features {
        let d = (f.x - x) * (f.x - x) + (f.z - z) * (f.z - z);
        if d < d0 {
            // The old nearest is the nearest of the other biomes when it differs; when it is of
            // the same biome, the nearest other one stays.
            if f.biome != b0 {
                (b1, d1) = (b0, d0);
            }
            (b0, d0) = (f.biome, d);
        } else if f.biome != b0 && d < d1 {
            (b1, d1) = (f.biome, d);
        }
    }
    if d0 == f64::INFINITY {
        // No point was nearer than ∞: the first biome, as the scalar loops give.
        b1 = NO_BIOME;
    }
    (b0, d0, b1, d1)
}

/// [`BiomeMap::blend_row`] at lookup points `(xs[i], zs[i])` for the leading multiple of four
/// positions (`blend > 0`); returns how many it did. Lanes are positions; each step is
/// [`BiomeMap::sample_in`]'s, lane by lane: the nearest point (strictly nearer replaces,
/// `_CMP_LT_OQ`), `d₀ = √best`, then over the points in order those with `!(d ≥ reach)`
/// (`_CMP_NGE_UQ`) add their smoothstep weight, with masked adds so that a skipped point leaves
/// the sums' bits alone; where no point of another biome was added, the nearest biome's own
/// parameters. No fused multiply-add, as in the scalar code.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn blend_row_avx2(
    xs: &[f64],
    zs: &[f64],
    features: &[Feature],
    params: &[BiomeParams],
    blend: f64,
    out: &mut [(f64, f64)],
) -> usize {
    use std::arch::x86_64::*;
    let blocks = xs.len() / 4;
    let (one, two, three, vblend) =
        (_mm256_set1_pd(1.0), _mm256_set1_pd(2.0), _mm256_set1_pd(3.0), _mm256_set1_pd(blend));
    for ((x4, z4), o4) in xs.chunks_exact(4).zip(zs.chunks_exact(4)).zip(out.chunks_exact_mut(4)) {
        // SAFETY: `x4` and `z4` hold four f64 each, read unaligned.
        let (x, z) = unsafe { (_mm256_loadu_pd(x4.as_ptr()), _mm256_loadu_pd(z4.as_ptr())) };
        let dist2 = |f: &Feature| {
            let dx = _mm256_sub_pd(_mm256_set1_pd(f.x), x);
            let dz = _mm256_sub_pd(_mm256_set1_pd(f.z), z);
            _mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dz, dz))
        };
        let (mut best, mut nearest) = (_mm256_set1_pd(f64::INFINITY), _mm256_setzero_pd());
        for f in features {
            let d = dist2(f);
            let nearer = _mm256_cmp_pd::<_CMP_LT_OQ>(d, best);
            best = _mm256_blendv_pd(best, d, nearer);
            nearest = _mm256_blendv_pd(nearest, _mm256_set1_pd(f.biome as f64), nearer);
        }
        let d0 = _mm256_sqrt_pd(best);
        let reach = _mm256_mul_pd(_mm256_add_pd(d0, vblend), _mm256_add_pd(d0, vblend));
        let (mut w_sum, mut offset, mut scale, mut others) =
            (_mm256_setzero_pd(), _mm256_setzero_pd(), _mm256_setzero_pd(), _mm256_setzero_pd());
        for f in features {
            let d = dist2(f);
            let inside = _mm256_cmp_pd::<_CMP_NGE_UQ>(d, reach);
            let t = _mm256_sub_pd(one, _mm256_div_pd(_mm256_sub_pd(_mm256_sqrt_pd(d), d0), vblend));
            let w = _mm256_mul_pd(_mm256_mul_pd(t, t), _mm256_sub_pd(three, _mm256_mul_pd(two, t)));
            let q = &params[f.biome as usize];
            let biome = _mm256_set1_pd(f.biome as f64);
            others = _mm256_or_pd(others, _mm256_and_pd(inside, _mm256_cmp_pd::<_CMP_NEQ_UQ>(biome, nearest)));
            w_sum = _mm256_blendv_pd(w_sum, _mm256_add_pd(w_sum, w), inside);
            offset = _mm256_blendv_pd(
                offset,
                _mm256_add_pd(offset, _mm256_mul_pd(w, _mm256_set1_pd(q.height_offset))),
                inside,
            );
            scale =
                _mm256_blendv_pd(scale, _mm256_add_pd(scale, _mm256_mul_pd(w, _mm256_set1_pd(q.height_scale))), inside);
        }
        let (offset, scale) = (_mm256_div_pd(offset, w_sum), _mm256_div_pd(scale, w_sum));
        let mut lanes = [[0.0f64; 4]; 4];
        // SAFETY: each row of `lanes` holds four f64, written unaligned.
        unsafe {
            _mm256_storeu_pd(lanes[0].as_mut_ptr(), nearest);
            _mm256_storeu_pd(lanes[1].as_mut_ptr(), others);
            _mm256_storeu_pd(lanes[2].as_mut_ptr(), offset);
            _mm256_storeu_pd(lanes[3].as_mut_ptr(), scale);
        }
        for (l, o) in o4.iter_mut().enumerate() {
            *o = if lanes[1][l].to_bits() == 0 {
                let p = &params[lanes[0][l] as usize];
                (p.height_offset, p.height_scale)
            } else {
                (lanes[2][l], lanes[3][l])
            };
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
        // The default (warp and transition), the transition alone, plain cells, and a two-biome
        // table whose borders are everywhere; rows sparse and chunk-like (a voxel apart).
        let mut transition_only = WorldPreset::default();
        transition_only.biomes.warp_strength = 0.0;
        let mut plain = transition_only.clone();
        plain.biomes.transition_width = 0.0;
        let two = two_biome_preset();
        let mut dithered = 0;
        for preset in [WorldPreset::default(), transition_only, plain, two] {
            let map = BiomeMap::new(&preset);
            for (n, (x0, z), step) in [
                (1usize, (0.5, 0.5), 13.0),
                (4, (-300.5, 70.5), 13.0),
                (7, (1234.5, -999.5), 13.0),
                (18, (-64.5, 15.5), 13.0),
                (37, (511.25, 640.0), 13.0),
                (34, (-1.5, 2.5), 1.0),
                (34, (159.5, -93.5), 1.0),
            ] {
                for shift in 0..40 {
                    let (x0, z) = (x0 + shift as f64 * 97.0, z + shift as f64 * 31.0);
                    let xs: Vec<f64> = (0..n).map(|i| x0 + i as f64 * step).collect();
                    let region = map.region_features(xs[0], z, xs[n - 1], z);
                    let mut row = vec![u8::MAX; n];
                    map.nearest_row(&xs, z, &region, &mut row);
                    for (&x, &b) in xs.iter().zip(&row) {
                        let alone = map.nearest_in(x, z, &region);
                        assert_eq!(b, alone, "at ({x}, {z})");
                        if map.transition > 0.0 {
                            let (lx, lz) = map.lookup(x, z, &region);
                            dithered += (alone != nearest_two(region.features(), lx, lz).0) as u32;
                        }
                    }
                }
            }
        }
        assert!(dithered > 0, "some columns show the other biome of a transition band");
    }

    #[test]
    fn blend_row_equals_sample_in_at_every_position() {
        // Rows across biome borders (blended), inside one cell (one biome), of every length
        // around the lane count; the default table and a fast-varying two-biome one.
        let mut two = two_biome_preset();
        (two.biomes.table[0].height_offset, two.biomes.table[1].height_scale) = (6.0, 1.5);
        for preset in [WorldPreset::default(), two] {
            let map = BiomeMap::new(&preset);
            let (mut blended, mut checked) = (0, 0);
            for r in 0..160 {
                let n = [1usize, 3, 4, 5, 9, 37][r % 6];
                let (x0, z) = ((r * 997 % 6000) as f64 - 3000.5, (r * 1493 % 6000) as f64 - 3000.5);
                let xs: Vec<f64> = (0..n).map(|i| x0 + i as f64 * [1.0, 7.0, 31.0][r % 3]).collect();
                let region = map.region_features(xs[0], z, xs[n - 1], z);
                let mut row = vec![(f64::NAN, f64::NAN); n];
                map.blend_row(&xs, z, &region, &mut row);
                for (&x, &(offset, scale)) in xs.iter().zip(&row) {
                    let s = map.sample_in(x, z, &region);
                    assert_eq!(
                        (offset.to_bits(), scale.to_bits()),
                        (s.height_offset.to_bits(), s.height_scale.to_bits()),
                        "at ({x}, {z})"
                    );
                    let p = map.params(s.biome);
                    blended += ((offset, scale) != (p.height_offset, p.height_scale)) as u32;
                    checked += 1;
                }
            }
            assert!(blended > 0 && blended < checked, "{blended} blended of {checked}");
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

    /// A two-biome table: hot sand and cold snow, climate varying fast, no cliffs or shores.
    fn two_biome_preset() -> WorldPreset {
        let mut p = WorldPreset::default();
        let row = |name: &str, surface: &str, sub: &str, t: f32| Biome {
            name: name.into(),
            surface_block: surface.into(),
            subsurface_block: sub.into(),
            temperature: t,
            ..Biome::default()
        };
        p.biomes.table = vec![row("hot", "sand", "sandstone", 1.0), row("cold", "snow", "gravel", 0.0)];
        p.biomes.cell_size = 32.0;
        p.biomes.climate_scale = 64.0;
        p.biomes.rock_slope = 16.0;
        p.water.enabled = false;
        p
    }

    #[test]
    fn a_custom_table_of_two_biomes_gives_its_blocks() {
        let p = two_biome_preset();
        let g = crate::gen3d::pipeline::Generator::new(&p).unwrap();
        let grid = g.column_grid(-256, -256, 512, 512);
        let mut seen = [0usize; 2];
        for (i, c) in grid.columns.iter().enumerate() {
            let (x, z) = (-256 + (i % 512) as i32, -256 + (i / 512) as i32);
            let expected = match c.biome {
                0 => (block::SAND, block::SANDSTONE),
                1 => (block::SNOW, block::block_by_name("gravel").unwrap()),
                b => panic!("biome {b} of a two-row table"),
            };
            assert_eq!((c.surface_block, c.subsurface_block), expected, "column ({x}, {z})");
            seen[c.biome as usize] += 1;
            if i % 997 == 0 {
                let top = crate::base::coords::IVec3::new(x, c.surface - 1, z);
                assert_eq!(g.voxel_at(top), expected.0, "the voxel under the surface at ({x}, {z})");
            }
        }
        assert!(seen[0] > 1000 && seen[1] > 1000, "both biomes appear: {seen:?}");
    }

    #[test]
    fn climate_ranges_choose_among_the_biomes_that_allow_the_climate() {
        let mut p = WorldPreset::default();
        let a = Biome { name: "a".into(), temperature: 0.5, moisture: 0.5, temperature_max: 0.55, ..Biome::default() };
        let b = Biome { name: "b".into(), temperature: 0.9, moisture: 0.9, moisture_min: 0.3, ..Biome::default() };
        p.biomes.table = vec![a, b];
        let map = BiomeMap::new(&p);
        assert_eq!(map.biome_for_climate(0.2, 0.5), 0, "both allow it: the nearest centre");
        assert_eq!(map.biome_for_climate(0.6, 0.5), 1, "only b allows a temperature above 0.55");
        assert_eq!(map.biome_for_climate(0.7, 0.1), 0, "no range holds it: the nearest of all");
        // The default table's ranges are whole, so only the centres decide (as before ranges).
        let d = BiomeMap::new(&WorldPreset::default());
        for (t, m) in [(0.1, 0.2), (0.5, 0.5), (0.95, 0.05), (0.33, 0.71)] {
            let nearest = d
                .table()
                .iter()
                .enumerate()
                .map(|(i, b)| (i, (b.temperature as f64 - t).powi(2) + (b.moisture as f64 - m).powi(2)))
                .fold((0, f64::INFINITY), |best, (i, d2)| if d2 < best.1 { (i, d2) } else { best })
                .0;
            assert_eq!(d.biome_for_climate(t, m) as usize, nearest);
        }
    }

    #[test]
    fn block_names_resolve_through_the_worlds_library() {
        use crate::base::block_library::{BlockDef, BlockLibrary};
        let mut p = two_biome_preset();
        p.biomes.table[1].surface_block = "moss".into();
        p.biomes.table[1].cliff_block = "moss".into();
        let e = crate::gen3d::pipeline::Generator::new(&p).unwrap_err().to_string();
        assert!(
            e.contains("biomes.table[1].surface_block")
                && e.contains("unknown block `moss` in biome `cold`")
                && e.contains("grass"),
            "{e}"
        );
        let mut blocks = default_library().blocks().to_vec();
        let moss = BlockDef { name: "moss".into(), ..blocks[block::GRASS as usize].clone() };
        blocks.push(moss);
        let library = BlockLibrary::new(blocks).unwrap();
        let moss = library.id_of("moss").unwrap();
        let no_heightmap = |path: &str| -> Result<std::sync::Arc<crate::noise::heightmap::Heightmap>, _> {
            panic!("no heightmap is read for {path}")
        };
        let checked = crate::gen3d::pipeline::Generator::check_preset(
            &p,
            crate::gen3d::pipeline::GeneratorOptions::default().heightmap_loader(no_heightmap),
        );
        assert_eq!(checked.unwrap_err().to_string(), e, "the check reports what the build would");
        crate::gen3d::pipeline::Generator::check_preset(
            &p,
            crate::gen3d::pipeline::GeneratorOptions::default().library(&library).heightmap_loader(no_heightmap),
        )
        .unwrap();
        let g = crate::gen3d::pipeline::Generator::with_options(
            &p,
            crate::gen3d::pipeline::GeneratorOptions::default().library(&library),
        )
        .unwrap();
        let params = g.terrain().biomes().params(1);
        assert_eq!((params.surface_block, params.cliff_block, params.shore_block), (moss, moss, block::SAND));
        let grid = g.column_grid(-128, -128, 256, 256);
        let cold = grid.columns.iter().filter(|c| c.biome == 1).collect::<Vec<_>>();
        assert!(!cold.is_empty() && cold.iter().all(|c| c.surface_block == moss));
    }

    #[test]
    fn cliff_and_shore_blocks_are_the_biomes() {
        let mut p = two_biome_preset();
        p.water.enabled = true;
        p.water.sea_level = 8;
        p.biomes.rock_slope = 0.5;
        for b in &mut p.biomes.table {
            b.cliff_block = "clay".into();
            b.shore_block = "gravel".into();
        }
        let g = crate::gen3d::pipeline::Generator::new(&p).unwrap();
        let grid = g.column_grid(-256, -256, 512, 512);
        let (clay, gravel) = (block::block_by_name("clay").unwrap(), block::block_by_name("gravel").unwrap());
        let cliffs = grid.columns.iter().filter(|c| c.surface_block == clay && c.subsurface_block == clay).count();
        let shores = grid.columns.iter().filter(|c| c.surface_block == gravel && c.subsurface_block == gravel).count();
        assert!(cliffs > 0 && shores > 0, "{cliffs} cliff and {shores} shore columns");
        for c in &grid.columns {
            assert!([block::SAND, block::SNOW, clay, gravel].contains(&c.surface_block), "{c:?}");
        }
    }
}
