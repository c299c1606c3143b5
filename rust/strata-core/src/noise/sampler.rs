//! One noise of the generator, picked by kind and settings, sampled at a point of 1 to 5
//! coordinates: what `StrataNoise` in Godot calls, so that scripts and shaders get the very
//! functions the world uses (value noise, Perlin, simplex as defined, OpenSimplex, Worley,
//! ridged, each as fBm).
//!
//! Which dimensions each kind has: value noise 1 and 2; Perlin, OpenSimplex and ridged 2 to 4
//! (the `noise` crate's); simplex 2 to 5; Worley 2. A 1D sample of a kind without 1D reads its 2D
//! noise along `y = 0` (as Godot's `FastNoiseLite` does). Any other dimension is an error that
//! names the kind, the dimension asked for and the ones it has.
//!
//! May use: `base`, `preset` (the interpolation enum) and the other `noise` modules.

use crate::noise::fractal::{FractalParams, open_simplex_fbm, perlin_fbm, ridged};
use crate::noise::simplex::{SimplexFbm, SimplexRadius};
use crate::noise::value::{value_noise_1d, value_noise_2d};
use crate::noise::worley::nearest_feature;
use crate::preset::model::Interpolation;
use noise::{Fbm, NoiseFn, OpenSimplex, Perlin, RidgedMulti};
use thiserror::Error;

/// The noises a [`NoiseSampler`] offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NoiseKind {
    /// Value noise (hashed lattice values, linear or cosine interpolation, octaves at
    /// lacunarity 2), as the terrain's value-noise source.
    Value,
    /// Perlin fBm (`noise` crate), as the terrain's Perlin source.
    Perlin,
    /// Simplex fBm as defined ([`crate::noise::simplex`]).
    Simplex,
    /// OpenSimplex fBm (`noise` crate), as the terrain's OpenSimplex source.
    OpenSimplex,
    /// Worley: distance to the nearest feature point (one per cell of edge `1 / frequency`),
    /// `2·min(d / cell, 1) − 1`, as the biome map's cells.
    Worley,
    /// Ridged multifractal of Perlin noise (`noise` crate), as the terrain's ridged source.
    Ridged,
}

impl NoiseKind {
    /// Every kind, in the order of Godot's `StrataNoise.NoiseType`.
    pub const ALL: [NoiseKind; 6] =
        [Self::Value, Self::Perlin, Self::Simplex, Self::OpenSimplex, Self::Worley, Self::Ridged];

    /// The display name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Value => "value noise",
            Self::Perlin => "Perlin noise",
            Self::Simplex => "simplex noise",
            Self::OpenSimplex => "OpenSimplex noise",
            Self::Worley => "Worley noise",
            Self::Ridged => "ridged noise",
        }
    }

    /// The dimensions this kind has (besides 1D along `y = 0`, see the module doc).
    pub fn dimensions(self) -> &'static [usize] {
        match self {
            Self::Value => &[1, 2],
            Self::Perlin | Self::OpenSimplex | Self::Ridged => &[2, 3, 4],
            Self::Simplex => &[2, 3, 4, 5],
            Self::Worley => &[2],
        }
    }
}

/// Settings of a [`NoiseSampler`]. Out-of-range values are clamped by [`NoiseSettings::clamped`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NoiseSettings {
    pub kind: NoiseKind,
    pub seed: u32,
    /// Cycles per unit of the first octave (0 < f ≤ [`MAX_FREQUENCY`]).
    pub frequency: f64,
    /// 1..=[`MAX_OCTAVES`].
    pub octaves: u32,
    /// Amplitude ratio between octaves, 0..=1.
    pub persistence: f64,
    /// Frequency ratio between octaves, 1..=4 (value noise: always 2).
    pub lacunarity: f64,
    /// Value noise's interpolation.
    pub interpolation: Interpolation,
    /// Simplex noise's kernel radius.
    pub simplex_radius: SimplexRadius,
}

/// The most octaves.
pub const MAX_OCTAVES: u32 = 12;
/// The highest frequency.
pub const MAX_FREQUENCY: f64 = 100.0;
/// The lowest frequency.
pub const MIN_FREQUENCY: f64 = 1e-6;
/// The largest coordinate magnitude a sample accepts (so that no octave's scaled point leaves the
/// range the `noise` crate's integer conversion handles).
pub const MAX_COORDINATE: f64 = 1e9;

impl Default for NoiseSettings {
    fn default() -> Self {
        Self {
            kind: NoiseKind::Simplex,
            seed: 0,
            frequency: 1.0 / 64.0,
            octaves: 5,
            persistence: 0.5,
            lacunarity: 2.0,
            interpolation: Interpolation::Cosine,
            simplex_radius: SimplexRadius::Half,
        }
    }
}

impl NoiseSettings {
    /// These settings with every number inside its range (NaN takes the default).
    pub fn clamped(self) -> Self {
        let d = Self::default();
        let clamp = |v: f64, lo: f64, hi: f64, fallback: f64| if v.is_nan() { fallback } else { v.clamp(lo, hi) };
        Self {
            frequency: clamp(self.frequency, MIN_FREQUENCY, MAX_FREQUENCY, d.frequency),
            octaves: self.octaves.clamp(1, MAX_OCTAVES),
            persistence: clamp(self.persistence, 0.0, 1.0, d.persistence),
            lacunarity: clamp(self.lacunarity, 1.0, 4.0, d.lacunarity),
            ..self
        }
    }

    fn fractal(&self) -> FractalParams {
        FractalParams {
            octaves: self.octaves,
            frequency: self.frequency,
            persistence: self.persistence,
            lacunarity: self.lacunarity,
        }
    }
}

/// A sample that cannot be taken.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum NoiseError {
    #[error("{kind} has no {dimensions}D; allowed: {allowed}")]
    Dimension { kind: &'static str, dimensions: usize, allowed: String },
    #[error("a point of {0} coordinates; allowed: 1 to 5 coordinates")]
    PointLength(usize),
    #[error("coordinate {index} is {value}; allowed: a finite number within ±{MAX_COORDINATE:e}")]
    Coordinate { index: usize, value: f64 },
}

/// The built generator of one [`NoiseSettings`].
enum Source {
    Value,
    Perlin(Box<Fbm<Perlin>>),
    Simplex(Box<(SimplexFbm<2>, SimplexFbm<3>, SimplexFbm<4>, SimplexFbm<5>)>),
    OpenSimplex(Box<Fbm<OpenSimplex>>),
    Worley,
    Ridged(Box<RidgedMulti<Perlin>>),
}

/// One noise, ready to sample (see the module doc).
pub struct NoiseSampler {
    settings: NoiseSettings,
    source: Source,
}

impl NoiseSampler {
    /// The sampler of `settings` (clamped first, see [`NoiseSettings::clamped`]).
    pub fn new(settings: NoiseSettings) -> Self {
        let settings = settings.clamped();
        let (seed, params, radius) = (settings.seed, settings.fractal(), settings.simplex_radius);
        let source = match settings.kind {
            NoiseKind::Value => Source::Value,
            NoiseKind::Perlin => Source::Perlin(Box::new(perlin_fbm(seed, params))),
            NoiseKind::Simplex => Source::Simplex(Box::new((
                SimplexFbm::new(seed, params, radius),
                SimplexFbm::new(seed, params, radius),
                SimplexFbm::new(seed, params, radius),
                SimplexFbm::new(seed, params, radius),
            ))),
            NoiseKind::OpenSimplex => Source::OpenSimplex(Box::new(open_simplex_fbm(seed, params))),
            NoiseKind::Worley => Source::Worley,
            NoiseKind::Ridged => Source::Ridged(Box::new(ridged(seed, params))),
        };
        Self { settings, source }
    }

    /// The settings in use (clamped).
    pub fn settings(&self) -> NoiseSettings {
        self.settings
    }

    /// The noise at `p` (1 to 5 coordinates), in `[-1, 1]` (Perlin, OpenSimplex and ridged: about).
    pub fn sample(&self, p: &[f64]) -> Result<f64, NoiseError> {
        if p.is_empty() || p.len() > 5 {
            return Err(NoiseError::PointLength(p.len()));
        }
        if let Some((index, value)) = p.iter().enumerate().find(|(_, v)| !v.is_finite() || v.abs() > MAX_COORDINATE) {
            return Err(NoiseError::Coordinate { index, value: *value });
        }
        let kind = self.settings.kind;
        if p.len() == 1 && kind != NoiseKind::Value {
            return self.sample(&[p[0], 0.0]);
        }
        let s = &self.settings;
        let missing = || NoiseError::Dimension {
            kind: kind.name(),
            dimensions: p.len(),
            allowed: kind.dimensions().iter().map(|d| format!("{d}D")).collect::<Vec<_>>().join(", "),
        };
        let period = 1.0 / s.frequency;
        let value = match (&self.source, p) {
            (Source::Value, [x]) => {
                value_noise_1d(s.seed as u64, *x, s.octaves, s.persistence, s.interpolation, period)
            }
            (Source::Value, [x, y]) => {
                value_noise_2d(s.seed as u64, *x, *y, s.octaves, s.persistence, s.interpolation, period)
            }
            (Source::Perlin(n), [x, y]) => n.get([*x, *y]),
            (Source::Perlin(n), [x, y, z]) => n.get([*x, *y, *z]),
            (Source::Perlin(n), [x, y, z, w]) => n.get([*x, *y, *z, *w]),
            (Source::Simplex(n), [x, y]) => n.0.get([*x, *y]),
            (Source::Simplex(n), [x, y, z]) => n.1.get([*x, *y, *z]),
            (Source::Simplex(n), [x, y, z, w]) => n.2.get([*x, *y, *z, *w]),
            (Source::Simplex(n), [x, y, z, w, v]) => n.3.get([*x, *y, *z, *w, *v]),
            (Source::OpenSimplex(n), [x, y]) => n.get([*x, *y]),
            (Source::OpenSimplex(n), [x, y, z]) => n.get([*x, *y, *z]),
            (Source::OpenSimplex(n), [x, y, z, w]) => n.get([*x, *y, *z, *w]),
            (Source::Ridged(n), [x, y]) => n.get([*x, *y]),
            (Source::Ridged(n), [x, y, z]) => n.get([*x, *y, *z]),
            (Source::Ridged(n), [x, y, z, w]) => n.get([*x, *y, *z, *w]),
            (Source::Worley, [x, y]) => {
                let (_, d2) = nearest_feature(s.seed as u64, 0, period, *x, *y, 2);
                2.0 * (d2.sqrt() / period).min(1.0) - 1.0
            }
            _ => return Err(missing()),
        };
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::fractal::noise_seed;

    fn sampler(kind: NoiseKind) -> NoiseSampler {
        NoiseSampler::new(NoiseSettings { kind, seed: 42, ..NoiseSettings::default() })
    }

    #[test]
    fn every_kind_answers_its_dimensions_and_names_the_others() {
        for kind in NoiseKind::ALL {
            let s = sampler(kind);
            for n in 1..=5 {
                let p: Vec<f64> = (0..n).map(|i| 13.7 * i as f64 - 5.25).collect();
                let got = s.sample(&p);
                if n == 1 || kind.dimensions().contains(&n) {
                    let v = got.unwrap_or_else(|e| panic!("{kind:?} {n}D: {e}"));
                    assert!((-1.5..=1.5).contains(&v), "{kind:?} {n}D: {v}");
                } else {
                    let e = got.unwrap_err().to_string();
                    assert!(e.contains(&format!("has no {n}D")) && e.contains("allowed: "), "{e}");
                }
            }
            assert_eq!(s.sample(&[]).unwrap_err().to_string(), "a point of 0 coordinates; allowed: 1 to 5 coordinates");
            assert!(s.sample(&[0.0; 6]).is_err());
            let e = s.sample(&[1.0, f64::NAN]).unwrap_err().to_string();
            assert!(e.starts_with("coordinate 1 is NaN; allowed: a finite number"), "{e}");
            assert!(s.sample(&[1e30, 0.0]).is_err());
        }
    }

    #[test]
    fn samples_are_the_world_functions() {
        let settings = NoiseSettings { seed: noise_seed(7, 1), ..NoiseSettings::default() };
        let params = settings.fractal();
        let p = NoiseSampler::new(NoiseSettings { kind: NoiseKind::Perlin, ..settings });
        assert_eq!(p.sample(&[3.5, -8.25]).unwrap(), perlin_fbm(settings.seed, params).get([3.5, -8.25]));
        let s = NoiseSampler::new(NoiseSettings { kind: NoiseKind::Simplex, ..settings });
        let fbm = SimplexFbm::<2>::new(settings.seed, params, SimplexRadius::Half);
        assert_eq!(s.sample(&[3.5, -8.25]).unwrap(), fbm.get([3.5, -8.25]));
        // 1D reads 2D along y = 0.
        assert_eq!(s.sample(&[3.5]).unwrap(), fbm.get([3.5, 0.0]));
    }

    /// Values that the Godot suite `test_strata_noise.gd` pins too: `StrataNoise` returns what the
    /// core computes.
    #[test]
    fn pinned_values_for_the_godot_suite() {
        let simplex = NoiseSampler::new(NoiseSettings { seed: 1234, ..NoiseSettings::default() });
        let got = simplex.sample(&[10.5, -20.25]).unwrap();
        assert_eq!(got, PINNED_SIMPLEX_2D, "pinned simplex value changed: {got:?}");
        let got3 = simplex.sample(&[10.5, -20.25, 3.0]).unwrap();
        assert_eq!(got3, PINNED_SIMPLEX_3D, "pinned simplex 3D value changed: {got3:?}");
    }

    const PINNED_SIMPLEX_2D: f64 = -0.22880840649640877;
    const PINNED_SIMPLEX_3D: f64 = 0.5243522671812351;
}
