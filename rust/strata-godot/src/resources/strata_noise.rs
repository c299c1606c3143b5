//! `StrataNoise` (Resource): every noise of the generator for scripts and shaders, as Godot's
//! `FastNoiseLite` offers its own. It holds settings only; the values come from the core's
//! [`strata_core::noise::sampler::NoiseSampler`], the same functions the world calls, so a script
//! and the world agree bit for bit.
//!
//! May use: `strata_core::noise` (the sampler), `strata_core::preset::model::Interpolation`,
//! `world_host` (clamping with a warning).

use crate::base::errors::LastError;
use crate::base::ranges::{float_in_range, int_in_range};
use godot::classes::image::Format;
use godot::classes::{IResource, Image, Resource};
use godot::prelude::*;
use strata_core::noise::sampler::{MAX_FREQUENCY, MAX_OCTAVES, MIN_FREQUENCY, NoiseKind, NoiseSampler, NoiseSettings};
use strata_core::noise::simplex::SimplexRadius;
use strata_core::preset::model::Interpolation;

/// The largest edge of `get_image`, in pixels.
const MAX_IMAGE_EDGE: i64 = 4096;

/// Every noise the world generator uses, sampled from scripts: value noise (linear or cosine
/// interpolation), Perlin, simplex (exactly as defined, 2D to 5D), OpenSimplex, Worley and
/// ridged, each as fBm (`fractal_octaves`, `fractal_persistence`, `fractal_lacunarity`). The
/// values are the world's own (the same core functions), so a shader or script that samples a
/// `StrataNoise` sees what the generator sees. Values are in [-1, 1] (Perlin, OpenSimplex and
/// ridged: about).
#[derive(GodotClass)]
#[class(tool, base = Resource)]
pub struct StrataNoise {
    base: Base<Resource>,
    /// Which noise: Value (lattice values, 1D and 2D), Perlin (2D–4D), Simplex (as defined,
    /// 2D–5D), OpenSimplex (2D–4D), Worley (distance to the nearest cell point, 2D), Ridged
    /// (ridged multifractal of Perlin, 2D–4D).
    #[var(set)]
    #[export(enum = (Value = 0, Perlin = 1, Simplex = 2, OpenSimplex = 3, Worley = 4, Ridged = 5))]
    noise_type: i64,
    /// The noise's seed: 0 to 4294967295 (clamped with a warning).
    #[var(set)]
    #[export]
    seed: i64,
    /// Cycles per unit of the first octave (Worley: cells per unit): 0.000001 to 100 (clamped
    /// with a warning; default 1/64).
    #[var(set)]
    #[export(range = (0.000001, 100.0, 0.000001, or_greater))]
    frequency: f64,
    /// Octaves of the fBm: 1 to 12 (clamped with a warning). Worley has one.
    #[var(set)]
    #[export(range = (1.0, 12.0, 1.0))]
    fractal_octaves: i64,
    /// Amplitude of each octave relative to the one before: 0 to 1 (clamped with a warning).
    #[var(set)]
    #[export(range = (0.0, 1.0, 0.01))]
    fractal_persistence: f64,
    /// Frequency of each octave relative to the one before: 1 to 4 (clamped with a warning).
    /// Value noise always uses 2.
    #[var(set)]
    #[export(range = (1.0, 4.0, 0.01))]
    fractal_lacunarity: f64,
    /// Value noise between lattice points: Linear (straight slopes) or Cosine (smooth).
    #[var(set)]
    #[export(enum = (Linear = 0, Cosine = 1))]
    value_interpolation: i64,
    /// Simplex noise's kernel radius squared: exactly 0.5 (continuous) or 0.6 (Perlin's
    /// original); any other value is refused with an error and the old one kept.
    #[var(set)]
    #[export(range = (0.5, 0.6, 0.1))]
    simplex_radius_squared: f64,
    sampler: NoiseSampler,
    last_error: LastError,
}

#[godot_api]
impl IResource for StrataNoise {
    fn init(base: Base<Resource>) -> Self {
        let d = NoiseSettings::default();
        Self {
            base,
            noise_type: kind_index(d.kind),
            seed: d.seed as i64,
            frequency: d.frequency,
            fractal_octaves: d.octaves as i64,
            fractal_persistence: d.persistence,
            fractal_lacunarity: d.lacunarity,
            value_interpolation: interpolation_index(d.interpolation),
            simplex_radius_squared: d.simplex_radius.squared(),
            sampler: NoiseSampler::new(d),
            last_error: LastError::default(),
        }
    }
}

fn kind_index(kind: NoiseKind) -> i64 {
    NoiseKind::ALL.iter().position(|k| *k == kind).unwrap_or(0) as i64
}

fn interpolation_index(i: Interpolation) -> i64 {
    match i {
        Interpolation::Linear => 0,
        Interpolation::Cosine => 1,
    }
}

#[godot_api]
impl StrataNoise {
    /// `noise_type`: value noise (lattice values, 1D and 2D).
    #[constant]
    pub const NOISE_TYPE_VALUE: i64 = 0;
    /// `noise_type`: Perlin noise (2D–4D).
    #[constant]
    pub const NOISE_TYPE_PERLIN: i64 = 1;
    /// `noise_type`: simplex noise as defined (2D–5D).
    #[constant]
    pub const NOISE_TYPE_SIMPLEX: i64 = 2;
    /// `noise_type`: OpenSimplex noise (2D–4D).
    #[constant]
    pub const NOISE_TYPE_OPEN_SIMPLEX: i64 = 3;
    /// `noise_type`: Worley noise, the distance to the nearest cell point (2D).
    #[constant]
    pub const NOISE_TYPE_WORLEY: i64 = 4;
    /// `noise_type`: ridged multifractal of Perlin noise (2D–4D).
    #[constant]
    pub const NOISE_TYPE_RIDGED: i64 = 5;
    /// `value_interpolation`: straight slopes between lattice points.
    #[constant]
    pub const VALUE_INTERPOLATION_LINEAR: i64 = 0;
    /// `value_interpolation`: smooth slopes between lattice points.
    #[constant]
    pub const VALUE_INTERPOLATION_COSINE: i64 = 1;

    #[func]
    fn set_noise_type(&mut self, value: i64) {
        self.noise_type = int_in_range("StrataNoise", "noise_type", value, 0, NoiseKind::ALL.len() as i64 - 1);
        self.rebuild();
    }

    #[func]
    fn set_seed(&mut self, value: i64) {
        self.seed = int_in_range("StrataNoise", "seed", value, 0, u32::MAX as i64);
        self.rebuild();
    }

    #[func]
    fn set_frequency(&mut self, value: f64) {
        self.frequency =
            float_in_range("StrataNoise", "frequency", value, MIN_FREQUENCY, MAX_FREQUENCY, self.frequency);
        self.rebuild();
    }

    #[func]
    fn set_fractal_octaves(&mut self, value: i64) {
        self.fractal_octaves = int_in_range("StrataNoise", "fractal_octaves", value, 1, MAX_OCTAVES as i64);
        self.rebuild();
    }

    #[func]
    fn set_fractal_persistence(&mut self, value: f64) {
        self.fractal_persistence =
            float_in_range("StrataNoise", "fractal_persistence", value, 0.0, 1.0, self.fractal_persistence);
        self.rebuild();
    }

    #[func]
    fn set_fractal_lacunarity(&mut self, value: f64) {
        self.fractal_lacunarity =
            float_in_range("StrataNoise", "fractal_lacunarity", value, 1.0, 4.0, self.fractal_lacunarity);
        self.rebuild();
    }

    #[func]
    fn set_value_interpolation(&mut self, value: i64) {
        self.value_interpolation = int_in_range("StrataNoise", "value_interpolation", value, 0, 1);
        self.rebuild();
    }

    #[func]
    fn set_simplex_radius_squared(&mut self, value: f64) {
        match SimplexRadius::from_squared(value) {
            Ok(radius) => {
                self.simplex_radius_squared = radius.squared();
                self.rebuild();
            }
            Err(e) => self.last_error.record(format!("StrataNoise.simplex_radius_squared: {e}")),
        }
    }

    /// The noise at `x` (value noise: its 1D noise; the others: their 2D noise at `(x, 0)`).
    #[func]
    fn get_noise_1d(&mut self, x: f64) -> f64 {
        self.sample("get_noise_1d", &[x])
    }

    /// The noise at `(x, y)`.
    #[func]
    fn get_noise_2d(&mut self, x: f64, y: f64) -> f64 {
        self.sample("get_noise_2d", &[x, y])
    }

    /// The noise at `(x, y, z)`; 0 with an error for a noise without 3D (value, Worley).
    #[func]
    fn get_noise_3d(&mut self, x: f64, y: f64, z: f64) -> f64 {
        self.sample("get_noise_3d", &[x, y, z])
    }

    /// The noise at `(x, y, z, w)`; 0 with an error for a noise without 4D (value, Worley).
    #[func]
    fn get_noise_4d(&mut self, x: f64, y: f64, z: f64, w: f64) -> f64 {
        self.sample("get_noise_4d", &[x, y, z, w])
    }

    /// The noise at a point of 2 to 5 coordinates (simplex has all four; Perlin, OpenSimplex and
    /// ridged 2 to 4; value noise and Worley 2). Another length, or a dimension the noise lacks,
    /// returns 0 and reports an error naming the length and what is allowed (`last_error()`).
    #[func]
    fn get_noise_nd(&mut self, point: PackedFloat64Array) -> f64 {
        let p = point.as_slice();
        if !(2..=5).contains(&p.len()) {
            self.last_error.record(format!(
                "StrataNoise.get_noise_nd: a point of {} coordinates; allowed: 2 to 5 (get_noise_1d for one)",
                p.len()
            ));
            return 0.0;
        }
        self.sample("get_noise_nd", p)
    }

    /// A `width` × `height` greyscale image (`FORMAT_L8`) of the 2D noise at the pixel
    /// coordinates `(x, y)`, -1 black and 1 white. Each edge 1 to 4096; other sizes return null
    /// and report an error.
    #[func]
    fn get_image(&mut self, width: i64, height: i64) -> Option<Gd<Image>> {
        if !(1..=MAX_IMAGE_EDGE).contains(&width) || !(1..=MAX_IMAGE_EDGE).contains(&height) {
            self.last_error.record(format!(
                "StrataNoise.get_image: {width} × {height} pixels; allowed: each edge 1 to {MAX_IMAGE_EDGE}"
            ));
            return None;
        }
        let mut bytes = Vec::with_capacity((width * height) as usize);
        for y in 0..height {
            for x in 0..width {
                let v = self.sampler.sample(&[x as f64, y as f64]).unwrap_or(0.0);
                bytes.push((((v.clamp(-1.0, 1.0) + 1.0) * 0.5) * 255.0).round() as u8);
            }
        }
        Image::create_from_data(width as i32, height as i32, false, Format::L8, &PackedByteArray::from(bytes))
    }

    /// The message of the last refused call or value; "" when none since `clear_error()`.
    #[func]
    fn last_error(&self) -> GString {
        self.last_error.get()
    }

    /// Clears `last_error()`.
    #[func]
    fn clear_error(&mut self) {
        self.last_error.clear();
    }
}

impl StrataNoise {
    fn settings(&self) -> NoiseSettings {
        NoiseSettings {
            kind: NoiseKind::ALL[self.noise_type.clamp(0, NoiseKind::ALL.len() as i64 - 1) as usize],
            seed: self.seed.clamp(0, u32::MAX as i64) as u32,
            frequency: self.frequency,
            octaves: self.fractal_octaves.clamp(1, MAX_OCTAVES as i64) as u32,
            persistence: self.fractal_persistence,
            lacunarity: self.fractal_lacunarity,
            interpolation: if self.value_interpolation == 0 { Interpolation::Linear } else { Interpolation::Cosine },
            simplex_radius: SimplexRadius::from_squared(self.simplex_radius_squared).unwrap_or(SimplexRadius::Half),
        }
    }

    fn rebuild(&mut self) {
        self.sampler = NoiseSampler::new(self.settings());
        self.base_mut().emit_changed();
    }

    fn sample(&mut self, what: &str, p: &[f64]) -> f64 {
        match self.sampler.sample(p) {
            Ok(v) => v,
            Err(e) => {
                self.last_error.record(format!("StrataNoise.{what}: {e}"));
                0.0
            }
        }
    }
}
