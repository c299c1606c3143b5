//! The terrain height field: a weighted blend of height sources, shaped by biomes and ravines.
//!
//! ```text
//! height(x, z) = base_height + biome_offset + amplitude · biome_scale · Σ wᵢ·sᵢ(x, z) / Σ wᵢ
//!                − ravine(x, z)
//! ```
//!
//! Sources `sᵢ` (each about `[-1, 1]`, weight `wᵢ` from the preset): Perlin fBm, OpenSimplex
//! fBm, ridged multifractal ([`crate::noise::fractal`]), simplex fBm as defined
//! ([`crate::noise::simplex`]), octave value noise
//! ([`crate::noise::value`]), seamless diamond-square
//! ([`crate::noise::diamond_square`]) and a real heightmap ([`crate::noise::heightmap`]).
//! In heightmap border mode the heightmap's weight fades to 0 outside the image; where no other
//! source has weight, Perlin fBm fills in. Biome parameters come from [`BiomeMap::sample`].
//!
//! **Ravines** ([`crate::gen3d::ravines`]) lower the ground within `ravine_width` of paths
//! that run along x and along z.
//!
//! **The coarse lattice.** The smooth parts — the fractal and value-noise sources (`Σ wᵢ·sᵢ`),
//! the Perlin fill-in of a bordered heightmap, and the blended biome height parameters — are
//! evaluated only at world-aligned lattice points `(i·step + ½, k·step + ½)` (the centres of the
//! columns whose x and z are multiples of `step`) and interpolated bilinearly in between. Every
//! region sees the same lattice points, so the field is still a pure function of the position
//! (law: Seamless). `step` ([`lattice_step`]) is the largest power of two up to 4 that keeps at least
//! [`SAMPLES_PER_WAVELENGTH`] (5) points on the wavelength of the finest octave
//! (`scale / lacunarityᵒᶜᵗᵃᵛᵉˢ⁻¹`, 20 voxels for the default preset, so step 4) and at least four
//! over the half blend band of biome borders; linear interpolation of a sine with 5 points per
//! wavelength is off by at most ≈ 20% of that octave's amplitude (≈ 0.3 voxel for the default
//! preset's finest octave), and the coarser octaves far less. Step 1 reproduces the exact field
//! at column centres. The rest stays at full resolution: diamond-square (its own lattice),
//! heightmaps, ravines (narrow cuts) and the biome index (nearest feature point, which picks the
//! surface blocks); without blending, biome parameters are the nearest biome's per column. The
//! column pass's slope test reads neighbouring heights of this interpolated field.
//! [`Terrain::sample_exact`] evaluates every source at the point, without the lattice: the
//! benchmark baseline, not the world's field.
//!
//! [`Terrain::sample`] evaluates one position (four lattice points); [`Terrain::sample_grid`]
//! evaluates a grid, sharing work across it (the lattice, biome feature points, diamond-square
//! lattice, ravine path offsets). Both compute every quantity with the same formula from the same
//! inputs, so they agree bit for bit: a column never depends on the region it was computed in.
//!
//! May use: `base`, `preset`, `noise`, `gen3d::biomes` and `gen3d::ravines` (parts of the field).

use crate::base::block_library::{BlockLibrary, default_library};
use crate::base::rng::salt;
use crate::gen3d::biomes::{BiomeMap, RegionFeatures};
use crate::gen3d::ravines::{RavineCache, Ravines};
use crate::noise::diamond_square::{DiamondSquare, bilinear};
use crate::noise::fast_fbm::PerlinFbm2;
use crate::noise::fractal::{FractalParams, noise_seed, open_simplex_fbm, ridged};
use crate::noise::heightmap::{Heightmap, HeightmapError};
use crate::noise::simplex::{SimplexFbm, SimplexRadius};
use crate::noise::value::value_noise_2d;
use crate::preset::model::{HeightmapWrap, WorldPreset};
use noise::{Fbm, NoiseFn, OpenSimplex, Perlin, RidgedMulti};
use std::path::Path;
use std::sync::Arc;

/// Height and biome at one position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TerrainSample {
    /// Continuous ground height (world y).
    pub height: f64,
    /// Index of the biome (nearest Worley feature point) in [`BiomeMap::table`].
    pub biome: u8,
}

/// The heightmap source and how it extends beyond the image.
struct HeightmapSource {
    map: std::sync::Arc<Heightmap>,
    cell_size: f64,
    wrap: HeightmapWrap,
}

/// A preset's height field (see the module doc). Built once per generator.
pub struct Terrain {
    seed: u64,
    base_height: f64,
    amplitude: f64,
    /// Perlin fBm: bit for bit `fractal::perlin_fbm`, evaluated a lattice row at a time.
    perlin: (f64, PerlinFbm2),
    open_simplex: Option<(f64, Fbm<OpenSimplex>)>,
    ridged: Option<(f64, RidgedMulti<Perlin>)>,
    /// `(weight, octaves, persistence, finest lattice period)`.
    value: Option<(f64, u32, f64, f64)>,
    value_interp: crate::preset::model::Interpolation,
    diamond_square: Option<(f64, DiamondSquare)>,
    /// Simplex noise as defined.
    simplex: Option<(f64, SimplexFbm<2>)>,
    heightmap: Option<(f64, HeightmapSource)>,
    ravines: Option<Ravines>,
    biomes: BiomeMap,
    /// Edge of the coarse lattice, in voxels (a power of two, 1..=[`MAX_LATTICE_STEP`]).
    step: i32,
    /// Sum of the weights of the lattice sources (Perlin, OpenSimplex, ridged, value, simplex), in
    /// blend order.
    lattice_total: f64,
    /// Heightmap in border mode with no other source: Perlin fBm fills in, on the lattice.
    fallback_perlin: bool,
    /// Biome height parameters are blended (`blend > 0`), and so interpolated from the lattice;
    /// otherwise they are the nearest biome's, per column.
    blend_on_lattice: bool,
}

/// The largest lattice step.
pub const MAX_LATTICE_STEP: i32 = 4;

/// What the lattice holds at one point (or, interpolated, between points).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct LatticeValue {
    /// `Σ wᵢ·sᵢ` over the lattice sources.
    sum: f64,
    /// Perlin fBm for the heightmap border fallback (0 when unused).
    perlin: f64,
    /// Blended biome height offset and scale (0 when not blended on the lattice).
    offset: f64,
    scale: f64,
}

impl LatticeValue {
    #[inline]
    fn bilinear(a: &Self, b: &Self, c: &Self, d: &Self, tx: f64, tz: f64) -> Self {
        Self {
            sum: bilinear(a.sum, b.sum, c.sum, d.sum, tx, tz),
            perlin: bilinear(a.perlin, b.perlin, c.perlin, d.perlin, tx, tz),
            offset: bilinear(a.offset, b.offset, c.offset, d.offset, tx, tz),
            scale: bilinear(a.scale, b.scale, c.scale, d.scale, tx, tz),
        }
    }
}

/// The lattice step for a preset (see the module doc): the largest power of two, at most
/// [`MAX_LATTICE_STEP`], that puts at least [`SAMPLES_PER_WAVELENGTH`] lattice points on the
/// finest octave's wavelength of every lattice source and at least four on half the biome blend
/// band (over which biome parameters change).
pub fn lattice_step(preset: &WorldPreset) -> i32 {
    let h = &preset.height;
    let scale = (h.scale as f64).max(1.0);
    let octaves = h.octaves.clamp(1, 24) as i32;
    let mut finest = f64::INFINITY;
    let fractal = h.perlin_weight > 0.0
        || h.open_simplex_weight > 0.0
        || h.ridged_weight > 0.0
        || h.exact_simplex_weight > 0.0
        || heightmap_border_alone(h);
    if fractal {
        finest = finest.min(scale / (h.lacunarity as f64).max(1.0).powi(octaves - 1));
    }
    if h.value_weight > 0.0 {
        finest = finest.min(scale / (1u64 << (octaves - 1)) as f64);
    }
    let b = &preset.biomes;
    let blend = if b.enabled { (b.blend_distance as f64).clamp(0.0, (b.cell_size as f64).max(1.0) * 0.5) } else { 0.0 };
    let mut step = 1;
    while step < MAX_LATTICE_STEP
        && (2 * step) as f64 * SAMPLES_PER_WAVELENGTH <= finest
        && (blend <= 0.0 || (2 * step) as f64 * 4.0 <= blend * 0.5)
    {
        step *= 2;
    }
    step
}

/// Lattice points per wavelength of the finest octave (see [`lattice_step`]).
pub const SAMPLES_PER_WAVELENGTH: f64 = 5.0;

impl std::fmt::Debug for Terrain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Terrain").field("seed", &self.seed).field("biomes", &self.biomes).finish()
    }
}

/// Where the preset's heightmap is: `heightmap_path` resolved against `base_dir` when relative.
pub fn heightmap_path(preset: &WorldPreset, base_dir: Option<&Path>) -> std::path::PathBuf {
    heightmap_path_in(preset.height.heightmap_path.trim(), base_dir)
}

/// `path` resolved against `base_dir` when relative. A `res://` path (a preset shipped inside a
/// Godot project, read the same way by Godot) is resolved against the nearest folder at or above
/// `base_dir` that holds `project.godot`; without one it stays as written.
pub(crate) fn heightmap_path_in(path: &str, base_dir: Option<&Path>) -> std::path::PathBuf {
    if let Some(rest) = path.strip_prefix("res://") {
        let root = base_dir.and_then(|dir| dir.ancestors().find(|d| d.join("project.godot").is_file()));
        return root.map_or_else(|| std::path::PathBuf::from(path), |root| root.join(rest));
    }
    let path = Path::new(path);
    match base_dir {
        Some(dir) if path.is_relative() => dir.join(path),
        _ => path.to_path_buf(),
    }
}

impl Terrain {
    /// Builds the height field of a validated preset. A relative `heightmap_path` is resolved
    /// against `base_dir` (the preset file's folder) when given, else the working directory.
    pub fn new(preset: &WorldPreset, base_dir: Option<&Path>) -> Result<Self, HeightmapError> {
        Self::with_heightmap_loader(preset, |path| Heightmap::load(&heightmap_path_in(path, base_dir)).map(Arc::new))
    }

    /// Builds the height field of a validated preset, asking `load` for the heightmap (given
    /// the preset's `heightmap_path` as written) when the preset uses one: for hosts that read
    /// files their own way or keep loaded heightmaps (an engine's virtual file system, a cache).
    pub fn with_heightmap_loader(
        preset: &WorldPreset,
        load: impl FnOnce(&str) -> Result<Arc<Heightmap>, HeightmapError>,
    ) -> Result<Self, HeightmapError> {
        Self::with_library_and_loader(preset, default_library(), load)
    }

    /// [`Terrain::with_heightmap_loader`] with the biome table's block names resolved through
    /// `library` (the preset validated against it).
    pub fn with_library_and_loader(
        preset: &WorldPreset,
        library: &BlockLibrary,
        load: impl FnOnce(&str) -> Result<Arc<Heightmap>, HeightmapError>,
    ) -> Result<Self, HeightmapError> {
        let h = &preset.height;
        let seed = preset.seed;
        let params = FractalParams {
            octaves: h.octaves,
            frequency: 1.0 / (h.scale as f64).max(1.0),
            persistence: h.persistence as f64,
            lacunarity: h.lacunarity as f64,
        };
        let weight = |w: f32| (w > 0.0).then_some(w as f64);
        let heightmap = match weight(h.heightmap_weight) {
            Some(w) => {
                let map = load(preset.height.heightmap_path.trim())?;
                Some((
                    w,
                    HeightmapSource {
                        map,
                        cell_size: (h.heightmap_cell_size as f64).max(0.01),
                        wrap: h.heightmap_wrap,
                    },
                ))
            }
            None => None,
        };
        let octaves = h.octaves.clamp(1, 24);
        Ok(Self {
            seed,
            base_height: h.base_height as f64,
            amplitude: h.amplitude as f64,
            perlin: (h.perlin_weight.max(0.0) as f64, PerlinFbm2::new(noise_seed(seed, salt::HEIGHT), params)),
            open_simplex: weight(h.open_simplex_weight)
                .map(|w| (w, open_simplex_fbm(noise_seed(seed, salt::HEIGHT ^ 0x51), params))),
            simplex: weight(h.exact_simplex_weight).map(|w| {
                let radius =
                    SimplexRadius::from_squared(h.simplex_radius_squared as f64).unwrap_or(SimplexRadius::Half);
                (w, SimplexFbm::new(noise_seed(seed, salt::HEIGHT ^ 0x53), params, radius))
            }),
            ridged: weight(h.ridged_weight).map(|w| (w, ridged(noise_seed(seed, salt::HEIGHT ^ 0x52), params))),
            value: weight(h.value_weight).map(|w| {
                (w, octaves, h.persistence as f64, (h.scale as f64).max(1.0) / (1u64 << (octaves - 1)) as f64)
            }),
            value_interp: h.value_interpolation,
            diamond_square: weight(h.diamond_square_weight)
                .map(|w| (w, DiamondSquare::new(seed, h.diamond_square_cell_log2, h.diamond_square_roughness as f64))),
            heightmap,
            ravines: Ravines::new(seed, h),
            biomes: BiomeMap::with_library(preset, library),
            step: lattice_step(preset),
            lattice_total: [
                h.perlin_weight,
                h.open_simplex_weight,
                h.ridged_weight,
                h.value_weight,
                h.exact_simplex_weight,
            ]
            .iter()
            .filter(|w| **w > 0.0)
            .fold(0.0, |t, w| t + *w as f64),
            fallback_perlin: heightmap_border_alone(h),
            blend_on_lattice: preset.biomes.enabled
                && !preset.biomes.table.is_empty()
                && preset.biomes.blend_distance > 0.0,
        })
    }

    pub fn biomes(&self) -> &BiomeMap {
        &self.biomes
    }

    /// The lattice step in voxels (see the module doc).
    pub fn lattice_step(&self) -> i32 {
        self.step
    }

    /// This field with another lattice step (a power of two from 1 to [`MAX_LATTICE_STEP`]):
    /// step 1 is the exact field at column centres. For benchmarks and comparisons; the world
    /// uses [`lattice_step`].
    #[doc(hidden)]
    pub fn with_lattice_step(mut self, step: i32) -> Self {
        assert!((1..=MAX_LATTICE_STEP).contains(&step) && (step & (step - 1)) == 0, "lattice step {step}");
        self.step = step;
        self
    }

    /// Lattice cell of world coordinate `v`: the index `i` of the lattice point at or below it
    /// (lattice points sit at `i·step + ½`) and the fraction `t ∈ [0, 1)` towards point `i + 1`.
    /// `step` is a power of two, so `t` is exact.
    #[inline]
    fn cell(&self, v: f64) -> (i64, f64) {
        let u = (v - 0.5) / self.step as f64;
        let f = u.floor();
        (f as i64, u - f)
    }

    /// World coordinate of lattice index `i`.
    #[inline]
    fn point(&self, i: i64) -> f64 {
        (i * self.step as i64) as f64 + 0.5
    }

    /// Perlin fBm is needed on the lattice (it has weight, or fills in around a heightmap).
    fn lattice_needs_perlin(&self) -> bool {
        self.perlin.0 > 0.0 || self.fallback_perlin
    }

    /// The lattice sources and blended biome parameters at one point; `features` must cover it.
    fn lattice_value(&self, x: f64, z: f64, features: &RegionFeatures) -> LatticeValue {
        let perlin = if self.lattice_needs_perlin() { self.perlin.1.get(x, z) } else { 0.0 };
        let simplex = self.simplex.as_ref().map_or(0.0, |(_, n)| n.get([x, z]));
        let blend = if self.blend_on_lattice {
            let b = self.biomes.sample_in(x, z, features);
            (b.height_offset, b.height_scale)
        } else {
            (0.0, 0.0)
        };
        self.lattice_value_with(x, z, perlin, simplex, blend)
    }

    /// [`Terrain::lattice_value`] given the Perlin fBm and the simplex fBm at the point (each
    /// unused when not needed) and the blended biome height parameters there (`(0, 0)` when not
    /// blended on the lattice). Inlined into the lattice loop of [`Terrain::lattice_fill`].
    #[inline(always)]
    fn lattice_value_with(&self, x: f64, z: f64, perlin: f64, simplex: f64, blend: (f64, f64)) -> LatticeValue {
        let mut sum = 0.0;
        let pw = self.perlin.0;
        if pw > 0.0 {
            sum += pw * perlin;
        }
        if let Some((w, n)) = &self.open_simplex {
            sum += w * n.get([x, z]);
        }
        if let Some((w, n)) = &self.ridged {
            sum += w * n.get([x, z]);
        }
        if let Some((w, octaves, persistence, period)) = self.value {
            sum += w * value_noise_2d(self.seed, x, z, octaves, persistence, self.value_interp, period);
        }
        if let Some((w, _)) = &self.simplex {
            sum += w * simplex;
        }
        let perlin = if self.fallback_perlin { perlin } else { 0.0 };
        let (offset, scale) = blend;
        LatticeValue { sum, perlin, offset, scale }
    }

    /// Lattice values at points `(i0..i0 + ni) × (k0..k0 + nk)` (row-major, i fastest). The
    /// Perlin fBm of the whole lattice is evaluated in one batch ([`PerlinFbm2::fill_grid`]: the
    /// x axes shared by every row), the simplex fBm a row at a time ([`SimplexFbm::get_many`]);
    /// both the same bits as one point at a time; the blended biome parameters a row at a time
    /// ([`BiomeMap::blend_row`], the same bits as [`BiomeMap::sample_in`]).
    fn lattice_fill(&self, i0: i64, k0: i64, ni: usize, nk: usize, features: &RegionFeatures) -> Vec<LatticeValue> {
        let mut values = Vec::with_capacity(ni * nk);
        let xs: Vec<f64> = (0..ni as i64).map(|i| self.point(i0 + i)).collect();
        let zs: Vec<f64> = (0..nk as i64).map(|k| self.point(k0 + k)).collect();
        let mut perlin = vec![0.0; ni * nk];
        if self.lattice_needs_perlin() {
            self.perlin.1.fill_grid(&xs, &zs, &mut perlin);
        }
        let mut simplex = vec![0.0; ni];
        let mut row_points = vec![[0.0; 2]; ni];
        let mut blends = vec![(0.0, 0.0); ni];
        for (&z, perlin) in zs.iter().zip(perlin.chunks_exact(ni.max(1))) {
            if self.blend_on_lattice {
                self.biomes.blend_row(&xs, z, features, &mut blends);
            }
            if let Some((_, n)) = &self.simplex {
                for (point, &x) in row_points.iter_mut().zip(&xs) {
                    *point = [x, z];
                }
                n.get_many(&row_points, &mut simplex);
            }
            for (((&x, &p), &s), &b) in xs.iter().zip(perlin).zip(&simplex).zip(&blends) {
                values.push(self.lattice_value_with(x, z, p, s, b));
            }
        }
        values
    }

    /// Region features covering the lattice points around `[x0, x1] × [z0, z1]` (and so the
    /// rectangle itself).
    fn lattice_features(&self, x0: f64, z0: f64, x1: f64, z1: f64) -> RegionFeatures {
        let (i0, k0) = (self.cell(x0).0, self.cell(z0).0);
        let (i1, k1) = (self.cell(x1).0 + 1, self.cell(z1).0 + 1);
        self.biomes.region_features(self.point(i0), self.point(k0), self.point(i1), self.point(k1))
    }

    /// Height and biome at world `(x, z)`: the lattice interpolated bilinearly, the full-resolution
    /// parts (diamond-square, heightmap, ravines, the biome index) at the point.
    pub fn sample(&self, x: f64, z: f64) -> TerrainSample {
        let features = self.lattice_features(x, z, x, z);
        let ((i, tx), (k, tz)) = (self.cell(x), self.cell(z));
        let v = self.lattice_fill(i, k, 2, 2, &features);
        let lattice = LatticeValue::bilinear(&v[0], &v[1], &v[2], &v[3], tx, tz);
        let ds = self.diamond_square.as_ref().map(|(_, ds)| ds.sample(x, z));
        let ravine =
            self.ravines.as_ref().map(|r| r.carve(x, z, &|family, j, i| r.line(family, j).value_at(i))).unwrap_or(0.0);
        self.combine(x, z, lattice, ds, ravine, self.biomes.nearest_in(x, z, &features))
    }

    /// The height field without the lattice: every source evaluated at the point. The baseline
    /// of the column benchmark; not the world's height field.
    #[doc(hidden)]
    pub fn sample_exact(&self, x: f64, z: f64) -> TerrainSample {
        let features = self.biomes.region_features(x, z, x, z);
        let ds = self.diamond_square.as_ref().map(|(_, ds)| ds.sample(x, z));
        let ravine =
            self.ravines.as_ref().map(|r| r.carve(x, z, &|family, j, i| r.line(family, j).value_at(i))).unwrap_or(0.0);
        self.combine(x, z, self.lattice_value(x, z, &features), ds, ravine, self.biomes.nearest_in(x, z, &features))
    }

    /// [`Terrain::sample_grid`] with [`Terrain::sample_exact`] at every point (the benchmark
    /// baseline: the column pass without the lattice).
    #[doc(hidden)]
    pub fn sample_grid_exact(&self, x0: f64, z0: f64, step: f64, nx: usize, nz: usize, out: &mut Vec<TerrainSample>) {
        self.grid(x0, z0, step, nx, nz, true, out);
    }

    /// Samples the grid `x = x0 + i·step`, `z = z0 + k·step` (`i < nx`, `k < nz`) into `out`
    /// (row-major, x fastest), sharing work across the grid (the lattice, biome feature points,
    /// diamond-square lattice, ravine path offsets); equal to [`Terrain::sample`] at every point.
    pub fn sample_grid(&self, x0: f64, z0: f64, step: f64, nx: usize, nz: usize, out: &mut Vec<TerrainSample>) {
        self.grid(x0, z0, step, nx, nz, false, out);
    }

    #[allow(clippy::too_many_arguments)]
    fn grid(&self, x0: f64, z0: f64, step: f64, nx: usize, nz: usize, exact: bool, out: &mut Vec<TerrainSample>) {
        #[cfg(target_arch = "x86_64")]
        if crate::base::simd::avx2() {
            // SAFETY: the CPU has AVX2.
            return unsafe { self.grid_avx2(x0, z0, step, nx, nz, exact, out) };
        }
        self.grid_body(x0, z0, step, nx, nz, exact, out)
    }

    /// [`Terrain::grid`] built for AVX2: the same code, so the same samples (floors are single
    /// instructions there, not library calls).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[allow(clippy::too_many_arguments)]
    fn grid_avx2(&self, x0: f64, z0: f64, step: f64, nx: usize, nz: usize, exact: bool, out: &mut Vec<TerrainSample>) {
        self.grid_body(x0, z0, step, nx, nz, exact, out)
    }

    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn grid_body(&self, x0: f64, z0: f64, step: f64, nx: usize, nz: usize, exact: bool, out: &mut Vec<TerrainSample>) {
        out.clear();
        if nx == 0 || nz == 0 {
            return;
        }
        let (x1, z1) = (x0 + (nx - 1) as f64 * step, z0 + (nz - 1) as f64 * step);
        let features =
            if exact { self.biomes.region_features(x0, z0, x1, z1) } else { self.lattice_features(x0, z0, x1, z1) };
        // Diamond-square lattice over the grid's integer span (only worth it on a dense grid).
        let mut ds_lattice = Vec::new();
        let (lx0, lz0) = (x0.floor() as i64, z0.floor() as i64);
        let lw = (x1.floor() as i64 - lx0 + 2) as usize;
        let dense = step <= 1.0;
        if let (Some((_, ds)), true) = (&self.diamond_square, dense) {
            ds.fill(lx0, lz0, lw, (z1.floor() as i64 - lz0 + 2) as usize, &mut ds_lattice);
        }
        let ravine_cache = match (&self.ravines, dense) {
            (Some(r), true) => r.cache(x0, z0, x1, z1),
            _ => RavineCache::default(),
        };
        // The coarse lattice over the grid, when its points are not sparser than the grid's.
        let (i0, k0) = (self.cell(x0).0, self.cell(z0).0);
        let (ni, nk) = ((self.cell(x1).0 - i0 + 2) as usize, (self.cell(z1).0 - k0 + 2) as usize);
        let shared = !exact && step <= 2.0 * self.step as f64;
        let lattice = if shared { self.lattice_fill(i0, k0, ni, nk, &features) } else { Vec::new() };
        // Per-row and per-column lattice cells.
        let xs: Vec<(f64, i64, f64)> =
            (0..nx).map(|i| x0 + i as f64 * step).map(|x| (x, self.cell(x).0, self.cell(x).1)).collect();
        let row_x: Vec<f64> = xs.iter().map(|&(x, _, _)| x).collect();
        let mut row_biomes = vec![0u8; nx];
        out.reserve(nx * nz);
        for k in 0..nz {
            let z = z0 + k as f64 * step;
            let (ck, tz) = self.cell(z);
            self.biomes.nearest_row(&row_x, z, &features, &mut row_biomes);
            for (&(x, ci, tx), &biome) in xs.iter().zip(&row_biomes) {
                let ds = self.diamond_square.as_ref().map(|(_, ds)| {
                    if dense {
                        let (fx, fz) = (x.floor(), z.floor());
                        let at = |dx: i64, dz: i64| {
                            ds_lattice[((fz as i64 + dz - lz0) as usize) * lw + (fx as i64 + dx - lx0) as usize]
                        };
                        bilinear(at(0, 0), at(1, 0), at(0, 1), at(1, 1), x - fx, z - fz)
                    } else {
                        ds.sample(x, z)
                    }
                });
                let ravine = self
                    .ravines
                    .as_ref()
                    .map(|r| {
                        r.carve(x, z, &|family, j, i| {
                            ravine_cache.get(family, j, i).unwrap_or_else(|| r.line(family, j).value_at(i))
                        })
                    })
                    .unwrap_or(0.0);
                let lv = if exact {
                    self.lattice_value(x, z, &features)
                } else if shared {
                    let at = |di: i64, dk: i64| &lattice[(ck + dk - k0) as usize * ni + (ci + di - i0) as usize];
                    LatticeValue::bilinear(at(0, 0), at(1, 0), at(0, 1), at(1, 1), tx, tz)
                } else {
                    let v = self.lattice_fill(ci, ck, 2, 2, &features);
                    LatticeValue::bilinear(&v[0], &v[1], &v[2], &v[3], tx, tz)
                };
                out.push(self.combine(x, z, lv, ds, ravine, biome));
            }
        }
    }

    /// The blend of all sources at `(x, z)`, given the (interpolated) lattice value, the
    /// diamond-square value, the ravine cut and the biome index (the nearest feature point's, at
    /// the point); the height parameters come from the lattice when blended, else from the biome.
    #[inline(always)]
    fn combine(&self, x: f64, z: f64, lattice: LatticeValue, ds: Option<f64>, ravine: f64, biome: u8) -> TerrainSample {
        let (mut sum, mut total) = (lattice.sum, self.lattice_total);
        if let (Some((w, _)), Some(v)) = (&self.diamond_square, ds) {
            sum += w * v;
            total += w;
        }
        if let Some((w, src)) = &self.heightmap {
            let (u, v) = src.map.to_pixel(x, z, src.cell_size);
            match src.wrap {
                HeightmapWrap::Tile => {
                    sum += w * src.map.sample_mirrored(u, v);
                    total += w;
                }
                HeightmapWrap::Border => {
                    // Inside the image it blends with the other sources by weight; outside, the
                    // other sources (or Perlin fBm when none has weight) rule; the border band
                    // mixes the two.
                    let mask = src.map.border_mask(u, v);
                    let generated = if total > 0.0 { sum / total } else { lattice.perlin };
                    let inside = if mask > 0.0 { (sum + w * src.map.sample_clamped(u, v)) / (total + w) } else { 0.0 };
                    sum = mask * inside + (1.0 - mask) * generated;
                    total = 1.0;
                }
            }
        }
        let n = if total > 0.0 { sum / total } else { 0.0 };
        let (offset, scale) = if self.blend_on_lattice {
            (lattice.offset, lattice.scale)
        } else {
            let p = self.biomes.params(biome);
            (p.height_offset, p.height_scale)
        };
        let height = self.base_height + offset + self.amplitude * scale * n - ravine;
        TerrainSample { height, biome }
    }
}

/// Heightmap in border mode and no other source with weight: Perlin fBm fills in outside.
fn heightmap_border_alone(h: &crate::preset::model::HeightSettings) -> bool {
    h.heightmap_weight > 0.0
        && h.heightmap_wrap == HeightmapWrap::Border
        && [
            h.perlin_weight,
            h.open_simplex_weight,
            h.ridged_weight,
            h.value_weight,
            h.diamond_square_weight,
            h.exact_simplex_weight,
        ]
        .iter()
        .all(|w| *w <= 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_five_octave_lattice_is_four_voxels_and_close_to_the_exact_field() {
        // The default terrain's finest octave, 460 / 2⁷ ≈ 3.6 voxels, is too fine for a lattice:
        // it is sampled at every voxel. Five octaves over 320 (preset format 1's default) are not.
        assert_eq!(lattice_step(&WorldPreset::default()), 1, "finest octave 460 / 2⁷ ≈ 3.6 voxels");
        let preset = WorldPreset::format1_default();
        assert_eq!(lattice_step(&preset), 4, "finest octave 320 / 2⁴ = 20 voxels, 5 points per wavelength");
        let t = Terrain::new(&preset, None).unwrap();
        let (mut worst, mut sum, mut n, mut moved) = (0.0f64, 0.0f64, 0, 0);
        for k in -300..300 {
            for i in -300..300 {
                let (x, z) = ((i * 7) as f64 + 0.5, (k * 5) as f64 + 0.5);
                let (a, e) = (t.sample(x, z), t.sample_exact(x, z));
                assert_eq!(a.biome, e.biome, "the biome index stays exact");
                let d = (a.height - e.height).abs();
                worst = worst.max(d);
                sum += d;
                n += 1;
                moved += (a.height.floor() != e.height.floor()) as u32;
                if (i * 7i32).rem_euclid(4) == 0 && (k * 5i32).rem_euclid(4) == 0 {
                    assert_eq!(a.height, e.height, "lattice points are exact");
                }
            }
        }
        let mean = sum / n as f64;
        let moved = moved as f64 / n as f64;
        eprintln!("interpolation error: worst {worst}, mean {mean}, surfaces moved {moved}");
        assert!(
            worst < 2.0 && mean < 0.1 && moved < 0.1,
            "interpolation error: worst {worst}, mean {mean}, surfaces moved {moved}"
        );
    }

    #[test]
    fn step_one_is_the_exact_field_at_column_centres() {
        let mut preset = WorldPreset::default();
        preset.height.scale = 48.0; // finest octave 3 voxels
        preset.height.ridged_weight = 0.5;
        assert_eq!(lattice_step(&preset), 1);
        let t = Terrain::new(&preset, None).unwrap();
        for i in 0..500 {
            let (x, z) = ((i * 37 % 1000) as f64 - 500.5, (i * 91 % 1000) as f64 - 300.5);
            assert_eq!(t.sample(x, z), t.sample_exact(x, z));
        }
    }

    #[test]
    fn grids_equal_points_at_any_step_and_offset() {
        let mut preset = WorldPreset::default();
        preset.height.value_weight = 0.3;
        preset.height.diamond_square_weight = 0.2;
        preset.height.ravine_depth = 8.0;
        let t = Terrain::new(&preset, None).unwrap();
        let mut out = Vec::new();
        for (x0, z0, step, nx, nz) in [
            (-17.5, 3.5, 1.0, 23, 9),
            (100.25, -40.75, 0.5, 11, 7),
            (-300.5, 77.5, 3.0, 9, 9),
            (12.5, 12.5, 16.0, 5, 4),
        ] {
            t.sample_grid(x0, z0, step, nx, nz, &mut out);
            for (j, s) in out.iter().enumerate() {
                let (x, z) = (x0 + (j % nx) as f64 * step, z0 + (j / nx) as f64 * step);
                assert_eq!(*s, t.sample(x, z), "({x}, {z}) step {step}");
            }
        }
    }
}
