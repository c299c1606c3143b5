//! The terrain height field: a weighted blend of height sources, shaped by biomes and ravines.
//!
//! ```text
//! height(x, z) = base_height + biome_offset + amplitude · biome_scale · Σ wᵢ·sᵢ(x, z) / Σ wᵢ
//!                − ravine(x, z)
//! ```
//!
//! Sources `sᵢ` (each about `[-1, 1]`, weight `wᵢ` from the preset): Perlin fBm, simplex fBm,
//! ridged multifractal ([`crate::worldgen::fractal`]), octave value noise
//! ([`crate::worldgen::value_noise`]), seamless diamond-square
//! ([`crate::worldgen::diamond_square`]) and a real heightmap ([`crate::worldgen::heightmap`]).
//! In heightmap border mode the heightmap's weight fades to 0 outside the image; where no other
//! source has weight, Perlin fBm fills in. Biome parameters come from [`BiomeMap::sample`].
//!
//! **Ravines** follow two families of world-aligned paths, one running along x and one along z,
//! spaced `ravine_spacing` apart: path `j` of the x family sits at `z = j·spacing + jitterⱼ + Mⱼ(x)`
//! where `Mⱼ` is a [`MidpointLine`] (seamless midpoint displacement anchored at world-aligned
//! segment ends). Within `ravine_width` of a path the ground is lowered by
//! `ravine_depth · smoothstep(1 − d / ravine_width)`; where paths cross, the deeper cut wins.
//!
//! [`Terrain::sample`] evaluates one position; [`Terrain::sample_grid`] evaluates a grid, sharing
//! work across it (biome feature points, diamond-square lattice, ravine path offsets). Both
//! compute every quantity with the same formula from the same inputs, so they agree bit for bit:
//! a column never depends on the region it was computed in.

use crate::preset::{HeightmapWrap, WorldPreset};
use crate::rng::{hash1, salt, unit_f64};
use crate::worldgen::biomes::{BiomeMap, RegionFeatures};
use crate::worldgen::diamond_square::{DiamondSquare, bilinear};
use crate::worldgen::fractal::{FractalParams, noise_seed, perlin_fbm, ridged, simplex_fbm};
use crate::worldgen::heightmap::{Heightmap, HeightmapError};
use crate::worldgen::midpoint::MidpointLine;
use crate::worldgen::value_noise::value_noise_2d;
use noise::{Fbm, NoiseFn, OpenSimplex, Perlin, RidgedMulti};
use std::path::Path;

/// Height and biome at one position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TerrainSample {
    /// Continuous ground height (world y).
    pub height: f64,
    /// Index of the biome (nearest Worley feature point) in [`BiomeMap::table`].
    pub biome: u8,
}

/// The ravine paths (see the module doc).
#[derive(Clone, Debug)]
struct Ravines {
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
enum Family {
    /// Paths along x; their offset is in z.
    AlongX = 0,
    AlongZ = 1,
}

impl Ravines {
    fn new(seed: u64, h: &crate::preset::HeightSettings) -> Option<Self> {
        if h.ravine_depth <= 0.0 {
            return None;
        }
        let spacing = (h.ravine_spacing as f64).max(16.0);
        let levels = (spacing.log2().ceil() as u32).clamp(4, 16);
        let mut r = Self { seed, depth: h.ravine_depth as f64, width: (h.ravine_width as f64).max(0.5), spacing, levels, roughness: h.ravine_roughness as f64, reach: 0.0 };
        r.reach = 0.2 * spacing + r.line(Family::AlongX, 0).max_abs();
        Some(r)
    }

    fn line(&self, family: Family, j: i64) -> MidpointLine {
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
    fn row(&self, family: Family, j: i64) -> f64 {
        let jitter = unit_f64(hash1(self.seed, salt::RIVER ^ 0xfeed ^ family as u64, j as i32)) * 0.4 - 0.2;
        (j as f64 + jitter) * self.spacing
    }

    /// Paths of a family that can pass within `width` of positions `[lo, hi]` across the family.
    fn paths_near(&self, lo: f64, hi: f64) -> std::ops::RangeInclusive<i64> {
        let margin = self.reach + self.width;
        (((lo - margin) / self.spacing).floor() as i64)..=(((hi + margin) / self.spacing).ceil() as i64)
    }

    /// How far the ground is lowered at `(x, z)`. `offset(family, j, i)` gives path `j`'s
    /// midpoint offset at integer position `i` along it.
    fn carve(&self, x: f64, z: f64, offset: &impl Fn(Family, i64, i64) -> f64) -> f64 {
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
}

/// Path offsets cached for a region: per family, per path, per integer position along it.
#[derive(Default)]
struct RavineCache {
    /// `(family, j, first position, values)`.
    lines: Vec<(Family, i64, i64, Vec<f64>)>,
}

impl RavineCache {
    fn get(&self, family: Family, j: i64, i: i64) -> Option<f64> {
        self.lines
            .iter()
            .find(|(f, lj, _, _)| *f == family && *lj == j)
            .and_then(|(_, _, first, values)| values.get(usize::try_from(i - first).ok()?).copied())
    }
}

/// The heightmap source and how it extends beyond the image.
struct HeightmapSource {
    map: Heightmap,
    cell_size: f64,
    wrap: HeightmapWrap,
}

/// A preset's height field (see the module doc). Built once per generator.
pub struct Terrain {
    seed: u64,
    base_height: f64,
    amplitude: f64,
    perlin: (f64, Fbm<Perlin>),
    simplex: Option<(f64, Fbm<OpenSimplex>)>,
    ridged: Option<(f64, RidgedMulti<Perlin>)>,
    /// `(weight, octaves, persistence, finest lattice period)`.
    value: Option<(f64, u32, f64, f64)>,
    value_interp: crate::preset::Interpolation,
    diamond_square: Option<(f64, DiamondSquare)>,
    heightmap: Option<(f64, HeightmapSource)>,
    ravines: Option<Ravines>,
    biomes: BiomeMap,
}

impl std::fmt::Debug for Terrain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Terrain").field("seed", &self.seed).field("biomes", &self.biomes).finish()
    }
}

impl Terrain {
    /// Builds the height field of a validated preset. A relative `heightmap_path` is resolved
    /// against `base_dir` (the preset file's folder) when given, else the working directory.
    pub fn new(preset: &WorldPreset, base_dir: Option<&Path>) -> Result<Self, HeightmapError> {
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
                let path = Path::new(h.heightmap_path.trim());
                let path = match base_dir {
                    Some(dir) if path.is_relative() => dir.join(path),
                    _ => path.to_path_buf(),
                };
                let map = Heightmap::load(&path)?;
                Some((w, HeightmapSource { map, cell_size: (h.heightmap_cell_size as f64).max(0.01), wrap: h.heightmap_wrap }))
            }
            None => None,
        };
        let octaves = h.octaves.clamp(1, 24);
        Ok(Self {
            seed,
            base_height: h.base_height as f64,
            amplitude: h.amplitude as f64,
            perlin: (h.perlin_weight.max(0.0) as f64, perlin_fbm(noise_seed(seed, salt::HEIGHT), params)),
            simplex: weight(h.simplex_weight).map(|w| (w, simplex_fbm(noise_seed(seed, salt::HEIGHT ^ 0x51), params))),
            ridged: weight(h.ridged_weight).map(|w| (w, ridged(noise_seed(seed, salt::HEIGHT ^ 0x52), params))),
            value: weight(h.value_weight).map(|w| (w, octaves, h.persistence as f64, (h.scale as f64).max(1.0) / (1u64 << (octaves - 1)) as f64)),
            value_interp: h.value_interpolation,
            diamond_square: weight(h.diamond_square_weight)
                .map(|w| (w, DiamondSquare::new(seed, h.diamond_square_cell_log2, h.diamond_square_roughness as f64))),
            heightmap,
            ravines: Ravines::new(seed, h),
            biomes: BiomeMap::new(preset),
        })
    }

    pub fn biomes(&self) -> &BiomeMap {
        &self.biomes
    }

    /// Height and biome at world `(x, z)`.
    pub fn sample(&self, x: f64, z: f64) -> TerrainSample {
        let ds = self.diamond_square.as_ref().map(|(_, ds)| ds.sample(x, z));
        let ravine = self.ravines.as_ref().map(|r| r.carve(x, z, &|family, j, i| r.line(family, j).value_at(i))).unwrap_or(0.0);
        self.combine(x, z, ds, ravine, &self.biomes.region_features(x, z, x, z))
    }

    /// Samples the grid `x = x0 + i·step`, `z = z0 + k·step` (`i < nx`, `k < nz`) into `out`
    /// (row-major, x fastest), sharing work across the grid; equal to [`Terrain::sample`] at
    /// every point.
    pub fn sample_grid(&self, x0: f64, z0: f64, step: f64, nx: usize, nz: usize, out: &mut Vec<TerrainSample>) {
        out.clear();
        if nx == 0 || nz == 0 {
            return;
        }
        let (x1, z1) = (x0 + (nx - 1) as f64 * step, z0 + (nz - 1) as f64 * step);
        let features = self.biomes.region_features(x0, z0, x1, z1);
        // Diamond-square lattice over the grid's integer span (only worth it on a dense grid).
        let mut lattice = Vec::new();
        let (lx0, lz0) = (x0.floor() as i64, z0.floor() as i64);
        let lw = (x1.floor() as i64 - lx0 + 2) as usize;
        let dense = step <= 1.0;
        if let (Some((_, ds)), true) = (&self.diamond_square, dense) {
            ds.fill(lx0, lz0, lw, (z1.floor() as i64 - lz0 + 2) as usize, &mut lattice);
        }
        let ravine_cache = match (&self.ravines, dense) {
            (Some(r), true) => Self::ravine_cache(r, x0, z0, x1, z1),
            _ => RavineCache::default(),
        };
        out.reserve(nx * nz);
        for k in 0..nz {
            let z = z0 + k as f64 * step;
            for i in 0..nx {
                let x = x0 + i as f64 * step;
                let ds = self.diamond_square.as_ref().map(|(_, ds)| {
                    if dense {
                        let (fx, fz) = (x.floor(), z.floor());
                        let at = |dx: i64, dz: i64| lattice[((fz as i64 + dz - lz0) as usize) * lw + (fx as i64 + dx - lx0) as usize];
                        bilinear(at(0, 0), at(1, 0), at(0, 1), at(1, 1), x - fx, z - fz)
                    } else {
                        ds.sample(x, z)
                    }
                });
                let ravine = self
                    .ravines
                    .as_ref()
                    .map(|r| r.carve(x, z, &|family, j, i| ravine_cache.get(family, j, i).unwrap_or_else(|| r.line(family, j).value_at(i))))
                    .unwrap_or(0.0);
                out.push(self.combine(x, z, ds, ravine, &features));
            }
        }
    }

    fn ravine_cache(r: &Ravines, x0: f64, z0: f64, x1: f64, z1: f64) -> RavineCache {
        let mut cache = RavineCache::default();
        for (family, (a0, a1), (c0, c1)) in [(Family::AlongX, (x0, x1), (z0, z1)), (Family::AlongZ, (z0, z1), (x0, x1))] {
            let first = a0.floor() as i64;
            let last = a1.floor() as i64 + 1;
            for j in r.paths_near(c0, c1) {
                let line = r.line(family, j);
                cache.lines.push((family, j, first, (first..=last).map(|i| line.value_at(i)).collect()));
            }
        }
        cache
    }

    /// The blend of all sources at `(x, z)`, given the diamond-square value and ravine cut.
    fn combine(&self, x: f64, z: f64, ds: Option<f64>, ravine: f64, features: &RegionFeatures) -> TerrainSample {
        let (mut sum, mut total) = (0.0, 0.0);
        let (pw, perlin) = &self.perlin;
        if *pw > 0.0 {
            sum += pw * perlin.get([x, z]);
            total += pw;
        }
        if let Some((w, n)) = &self.simplex {
            sum += w * n.get([x, z]);
            total += w;
        }
        if let Some((w, n)) = &self.ridged {
            sum += w * n.get([x, z]);
            total += w;
        }
        if let Some((w, octaves, persistence, period)) = self.value {
            sum += w * value_noise_2d(self.seed, x, z, octaves, persistence, self.value_interp, period);
            total += w;
        }
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
                    let generated = if total > 0.0 { sum / total } else { perlin.get([x, z]) };
                    let inside = if mask > 0.0 { (sum + w * src.map.sample_clamped(u, v)) / (total + w) } else { 0.0 };
                    sum = mask * inside + (1.0 - mask) * generated;
                    total = 1.0;
                }
            }
        }
        let n = if total > 0.0 { sum / total } else { 0.0 };
        let b = self.biomes.sample_in(x, z, features);
        let height = self.base_height + b.height_offset + self.amplitude * b.height_scale * n - ravine;
        TerrainSample { height, biome: b.biome }
    }
}
