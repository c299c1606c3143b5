//! The field table: [`FIELDS`] lists each scalar setting of a [`WorldPreset`] once, with its
//! group, range, help text and accessors; [`FieldSpec::check`] checks a value against it.
//!
//! Validation, RON, `.tres`, world codes and the Godot inspector (sliders, groups, tooltips) and
//! error messages all read this one table, so a field's allowed range is stated in exactly one
//! place. [`WorldPreset::get_field`] and [`WorldPreset::set_field`] read and write a setting by
//! its flat name.
//!
//! May use: `preset::model`.

use crate::preset::model::{CaveMode, HeightmapWrap, Interpolation, SurfaceSource, WorldPreset};
use thiserror::Error;

/// What values a field takes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FieldKind {
    Int {
        min: i64,
        max: i64,
    },
    Float {
        min: f64,
        max: f64,
        step: f64,
    },
    Bool,
    /// One of `options`, stored as its index.
    Enum {
        options: &'static [&'static str],
    },
    Text,
}

/// A field's value, in the widest type of its kind.
#[derive(Clone, Debug, PartialEq)]
pub enum FieldValue {
    Int(i64),
    Float(f64),
    Bool(bool),
    Text(String),
}

impl FieldValue {
    /// What kind of value this is, in a designer's words ("a number", "text").
    pub fn kind_word(&self) -> &'static str {
        match self {
            FieldValue::Int(_) => "an integer",
            FieldValue::Float(_) => "a number",
            FieldValue::Bool(_) => "a true/false value",
            FieldValue::Text(_) => "text",
        }
    }
}

/// The value as a designer writes it: `2`, `2.5`, `true`, `"text"` (law: Clear errors).
impl std::fmt::Display for FieldValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FieldValue::Int(i) => write!(f, "{i}"),
            FieldValue::Float(x) => f.write_str(&number_text(*x)),
            FieldValue::Bool(b) => write!(f, "{b}"),
            FieldValue::Text(t) => write!(f, "\"{}\"", t.escape_default()),
        }
    }
}

/// A number as a designer reads it: the shortest text of the `f32` it came from (`0.3`, not
/// `0.30000001192092896`), `NaN`, `inf` or `-inf`.
pub fn number_text(x: f64) -> String {
    if x.is_nan() {
        "NaN".into()
    } else if (x as f32) as f64 == x {
        (x as f32).to_string()
    } else {
        x.to_string()
    }
}

/// The problem with number `v` for a field that allows `lo..=hi`, or `None` when it fits.
pub(crate) fn number_problem(v: f64, lo: f64, hi: f64) -> Option<String> {
    if !v.is_finite() {
        Some(format!("{} is not a finite number", number_text(v)))
    } else if !(lo..=hi).contains(&v) {
        Some(format!("{} is out of range", number_text(v)))
    } else {
        None
    }
}

/// One scalar setting of a [`WorldPreset`].
pub struct FieldSpec {
    /// Flat name, `group_field` (e.g. `height_octaves`): the Godot property name.
    pub name: &'static str,
    /// Inspector group (`Height`, `Biomes`, `Caves`, `Ores`, `Water`, `Scatter`, `SideView`, or `World`).
    pub group: &'static str,
    /// What the field does for a designer, with its unit (voxels, tiles, count, ratio, …): the
    /// inspector tooltip and the class reference (F1) show it with [`FieldSpec::help`].
    pub doc: &'static str,
    pub kind: FieldKind,
    pub get: fn(&WorldPreset) -> FieldValue,
    /// Stores a value already checked by [`FieldSpec::check`].
    pub set: fn(&mut WorldPreset, FieldValue),
}

impl std::fmt::Debug for FieldSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FieldSpec").field("name", &self.name).field("kind", &self.kind).finish()
    }
}

/// A field value outside what the field allows.
#[derive(Clone, Debug, Error, PartialEq)]
#[error("field `{field}`: {problem}; allowed: {allowed}")]
pub struct FieldError {
    pub field: String,
    pub problem: String,
    pub allowed: String,
}

impl FieldSpec {
    /// Human-readable statement of the allowed values.
    pub fn allowed(&self) -> String {
        match self.kind {
            FieldKind::Int { min: i64::MIN, max: i64::MAX } => "any 64-bit integer".into(),
            FieldKind::Int { min, max } => format!("an integer in {min}..={max}"),
            FieldKind::Float { .. } if self.name == SIMPLEX_RADIUS_SQUARED_FIELD => {
                "a finite number in 0.5..=0.6, exactly 0.5 or 0.6".into()
            }
            FieldKind::Float { min, max, .. } => {
                format!("a finite number in {}..={}", number_text(min), number_text(max))
            }
            FieldKind::Bool => "true or false".into(),
            FieldKind::Enum { options } => format!("one of {}", options.join(", ")),
            FieldKind::Text => "text".into(),
        }
    }

    /// The default preset's value of this field, as the inspector writes it (an enum's option
    /// name, a number without trailing zeros).
    pub fn default_text(&self) -> String {
        match ((self.get)(&WorldPreset::default()), self.kind) {
            (FieldValue::Int(i), FieldKind::Enum { options }) => {
                options.get(i as usize).map_or_else(|| i.to_string(), |o| o.to_string())
            }
            (FieldValue::Int(i), _) => i.to_string(),
            (FieldValue::Float(f), _) => number_text(f),
            (FieldValue::Bool(b), _) => b.to_string(),
            (FieldValue::Text(t), _) => format!("{t:?}"),
        }
    }

    /// The full help text of the field for the inspector tooltip and the class reference: what
    /// it does (with its unit), the allowed values and the default.
    pub fn help(&self) -> String {
        format!("{} Allowed: {}. Default: {}.", self.doc, self.allowed(), self.default_text())
    }

    /// Checks `v` against this field's kind and range; returns the value to store.
    pub fn check(&self, v: &FieldValue) -> Result<FieldValue, FieldError> {
        let err = |problem: String| FieldError { field: self.name.into(), problem, allowed: self.allowed() };
        match (self.kind, v) {
            (FieldKind::Int { min, max }, FieldValue::Int(i)) if (min..=max).contains(i) => Ok(v.clone()),
            (FieldKind::Int { .. }, FieldValue::Int(i)) => Err(err(format!("{i} is out of range"))),
            (FieldKind::Int { .. }, FieldValue::Float(f)) if !f.is_finite() || f.fract() != 0.0 => {
                Err(err(format!("{} is not an integer", number_text(*f))))
            }
            (FieldKind::Int { min, max }, FieldValue::Float(f))
                if f.fract() == 0.0 && (min as f64..=max as f64).contains(f) =>
            {
                Ok(FieldValue::Int(*f as i64))
            }
            (FieldKind::Int { .. }, FieldValue::Float(f)) => Err(err(format!("{} is out of range", number_text(*f)))),
            // Two values, not a range: the f32 of 0.6 (0.6000000238…) is 0.6.
            (FieldKind::Float { .. }, FieldValue::Float(f)) if self.name == SIMPLEX_RADIUS_SQUARED_FIELD => {
                match number_problem(*f, f64::MIN, f64::MAX) {
                    Some(problem) => Err(err(problem)),
                    None if !is_simplex_radius_squared(*f) => {
                        Err(err(format!("{} is neither 0.5 nor 0.6", number_text(*f))))
                    }
                    None => Ok(v.clone()),
                }
            }
            (FieldKind::Float { min, max, .. }, FieldValue::Float(f)) => match number_problem(*f, min, max) {
                Some(problem) => Err(err(problem)),
                None if self.name == SIMPLEX_RADIUS_SQUARED_FIELD && !is_simplex_radius_squared(*f) => {
                    Err(err(format!("{} is neither 0.5 nor 0.6", number_text(*f))))
                }
                None => Ok(v.clone()),
            },
            (FieldKind::Float { min, max, .. }, FieldValue::Int(i))
                if (min..=max).contains(&(*i as f64)) && self.name != SIMPLEX_RADIUS_SQUARED_FIELD =>
            {
                Ok(FieldValue::Float(*i as f64))
            }
            (FieldKind::Float { .. }, FieldValue::Int(i)) => Err(err(format!("{i} is out of range"))),
            (FieldKind::Enum { options }, FieldValue::Int(i)) if *i < 0 || *i as usize >= options.len() => {
                Err(err(format!("{i} is not an option number (0..={})", options.len().saturating_sub(1))))
            }
            (FieldKind::Bool, FieldValue::Bool(_)) => Ok(v.clone()),
            (FieldKind::Enum { options }, FieldValue::Int(i)) if *i >= 0 && (*i as usize) < options.len() => {
                Ok(v.clone())
            }
            (FieldKind::Enum { options }, FieldValue::Text(s)) => options
                .iter()
                .position(|o| o.eq_ignore_ascii_case(s))
                .map(|i| FieldValue::Int(i as i64))
                .ok_or_else(|| err(format!("{v} is not an option"))),
            (FieldKind::Text, FieldValue::Text(_)) => Ok(v.clone()),
            (_, other) => Err(err(format!("{other} is {}, the wrong kind of value", other.kind_word()))),
        }
    }
}

impl WorldPreset {
    /// Reads field `name` from the table.
    pub fn get_field(&self, name: &str) -> Option<FieldValue> {
        field(name).map(|f| (f.get)(self))
    }

    /// Checks and writes field `name`. Unknown names and bad values are errors; nothing changes.
    pub fn set_field(&mut self, name: &str, value: FieldValue) -> Result<(), FieldError> {
        let spec = field(name).ok_or_else(|| FieldError {
            field: name.into(),
            problem: "no such field".into(),
            allowed: "a field listed in strata_core::preset::model::FIELDS".into(),
        })?;
        let v = spec.check(&value)?;
        (spec.set)(self, v);
        Ok(())
    }
}

/// The one float field that takes exactly two values (0.5 or 0.6), not a range.
pub const SIMPLEX_RADIUS_SQUARED_FIELD: &str = "height_simplex_radius_squared";

/// `r2` is 0.5 or 0.6 (within 1e-6, so that an `f32` qualifies).
pub fn is_simplex_radius_squared(r2: f64) -> bool {
    (r2 - 0.5).abs() <= 1e-6 || (r2 - 0.6).abs() <= 1e-6
}

macro_rules! float_field {
    ($name:literal, $group:literal, $($path:ident).+, $min:expr, $max:expr, $step:expr, $doc:literal) => {
        FieldSpec {
            name: $name,
            group: $group,
            doc: $doc,
            kind: FieldKind::Float { min: $min, max: $max, step: $step },
            get: |p| FieldValue::Float(p.$($path).+ as f64),
            set: |p, v| if let FieldValue::Float(f) = v { p.$($path).+ = f as _ },
        }
    };
}

macro_rules! int_field {
    ($name:literal, $group:literal, $($path:ident).+, $min:expr, $max:expr, $doc:literal) => {
        FieldSpec {
            name: $name,
            group: $group,
            doc: $doc,
            kind: FieldKind::Int { min: $min, max: $max },
            get: |p| FieldValue::Int(p.$($path).+ as i64),
            set: |p, v| if let FieldValue::Int(i) = v { p.$($path).+ = i as _ },
        }
    };
}

macro_rules! bool_field {
    ($name:literal, $group:literal, $($path:ident).+, $doc:literal) => {
        FieldSpec {
            name: $name,
            group: $group,
            doc: $doc,
            kind: FieldKind::Bool,
            get: |p| FieldValue::Bool(p.$($path).+),
            set: |p, v| if let FieldValue::Bool(b) = v { p.$($path).+ = b },
        }
    };
}

macro_rules! text_field {
    ($name:literal, $group:literal, $($path:ident).+, $doc:literal) => {
        FieldSpec {
            name: $name,
            group: $group,
            doc: $doc,
            kind: FieldKind::Text,
            get: |p| FieldValue::Text(p.$($path).+.clone()),
            set: |p, v| if let FieldValue::Text(s) = v { p.$($path).+ = s },
        }
    };
}

macro_rules! enum_field {
    ($name:literal, $group:literal, $($path:ident).+, [$($variant:expr => $label:literal),+ $(,)?], $doc:literal) => {
        FieldSpec {
            name: $name,
            group: $group,
            doc: $doc,
            kind: FieldKind::Enum { options: &[$($label),+] },
            get: |p| {
                let all = [$($variant),+];
                FieldValue::Int(all.iter().position(|v| *v == p.$($path).+).unwrap_or(0) as i64)
            },
            set: |p, v| if let FieldValue::Int(i) = v {
                let all = [$($variant),+];
                if let Some(x) = all.get(i as usize) { p.$($path).+ = *x; }
            },
        }
    };
}

/// Every scalar field of [`WorldPreset`], in inspector order. Table-valued settings (the biome
/// table, ore kinds) are edited in RON and checked by [`WorldPreset::validate`].
pub static FIELDS: &[FieldSpec] = &[
    text_field!(
        "name",
        "World",
        name,
        "Name of the world shown in menus and save lists; it does not change the terrain."
    ),
    // The seed is handled specially (u64 in Rust, int in Godot); it is listed for completeness.
    FieldSpec {
        name: "seed",
        group: "World",
        doc: "World seed: the same seed with the same settings gives the same world, bit for bit; change it for a new world of the same kind. Any 64-bit integer.",
        kind: FieldKind::Int { min: i64::MIN, max: i64::MAX },
        get: |p| FieldValue::Int(p.seed as i64),
        set: |p, v| {
            if let FieldValue::Int(i) = v {
                p.seed = i as u64
            }
        },
    },
    float_field!(
        "height_base_height",
        "Height",
        height.base_height,
        -256.0,
        256.0,
        0.5,
        "World y (in voxels) of the average ground level; hills rise above it and valleys sink below it."
    ),
    float_field!(
        "height_amplitude",
        "Height",
        height.amplitude,
        0.0,
        512.0,
        0.5,
        "How far hills and valleys reach above and below the base height, in voxels (0 = flat)."
    ),
    float_field!(
        "height_scale",
        "Height",
        height.scale,
        8.0,
        8192.0,
        1.0,
        "Horizontal size of the largest hills and valleys (wavelength of the first noise octave), in voxels: larger is broader, gentler land."
    ),
    int_field!(
        "height_octaves",
        "Height",
        height.octaves,
        1,
        12,
        "Layers of noise added together (count): more octaves add finer bumps on top of the large shapes, at some generation cost."
    ),
    float_field!(
        "height_persistence",
        "Height",
        height.persistence,
        0.0,
        1.0,
        0.01,
        "Height of each finer octave relative to the one before (ratio): low is smooth, high is rough and craggy."
    ),
    float_field!(
        "height_lacunarity",
        "Height",
        height.lacunarity,
        1.0,
        4.0,
        0.01,
        "Frequency step between octaves (ratio): 2 makes each octave's features half the size of the one before."
    ),
    float_field!(
        "height_perlin_weight",
        "Height",
        height.perlin_weight,
        0.0,
        1.0,
        0.01,
        "Share of Perlin noise in the terrain mix (weight, relative to the other weights): rolling, natural hills."
    ),
    float_field!(
        "height_open_simplex_weight",
        "Height",
        height.open_simplex_weight,
        0.0,
        1.0,
        0.01,
        "Share of OpenSimplex noise in the terrain mix (weight, relative to the other weights): like Perlin with fewer grid-aligned artefacts. Files that say height_simplex_weight mean this one."
    ),
    float_field!(
        "height_exact_simplex_weight",
        "Height",
        height.exact_simplex_weight,
        0.0,
        1.0,
        0.01,
        "Share of simplex noise as defined (skewed simplex lattice, kernels (r² − d²)⁴) in the terrain mix (weight, relative to the other weights)."
    ),
    float_field!(
        "height_simplex_radius_squared",
        "Height",
        height.simplex_radius_squared,
        0.5,
        0.6,
        0.1,
        "Squared radius r² of the simplex noise kernel, in lattice units squared (a factor): exactly 0.5 (continuous) or 0.6 (Perlin's original, rounder, small jumps on simplex faces)."
    ),
    float_field!(
        "height_ridged_weight",
        "Height",
        height.ridged_weight,
        0.0,
        1.0,
        0.01,
        "Share of ridged multifractal noise in the terrain mix (weight, relative to the other weights): sharp mountain crests and ranges."
    ),
    float_field!(
        "height_value_weight",
        "Height",
        height.value_weight,
        0.0,
        1.0,
        0.01,
        "Share of octave value noise in the terrain mix (weight, relative to the other weights): blocky, plateau-like hills."
    ),
    enum_field!("height_value_interpolation", "Height", height.value_interpolation,
        [Interpolation::Linear => "Linear", Interpolation::Cosine => "Cosine"], "How value noise blends between its lattice points: Linear gives straight slopes and creases, Cosine smooth rounded ones."),
    float_field!(
        "height_diamond_square_weight",
        "Height",
        height.diamond_square_weight,
        0.0,
        1.0,
        0.01,
        "Share of diamond-square fractal terrain in the mix (weight, relative to the other weights): rugged, realistic relief."
    ),
    int_field!(
        "height_diamond_square_cell_log2",
        "Height",
        height.diamond_square_cell_log2,
        2,
        12,
        "Size of one diamond-square tile as a power of two: the tile edge is 2^n voxels (7 = 128 voxels); larger tiles give larger landforms."
    ),
    float_field!(
        "height_diamond_square_roughness",
        "Height",
        height.diamond_square_roughness,
        0.01,
        0.99,
        0.01,
        "Smoothness exponent h of diamond-square terrain (fraction): each finer level is displaced 2^-h as much as the one before, so high is smooth and low is jagged."
    ),
    float_field!(
        "height_ravine_depth",
        "Height",
        height.ravine_depth,
        0.0,
        128.0,
        0.5,
        "Depth of ravines and river beds cut into the terrain, in voxels (0 = no ravines)."
    ),
    float_field!(
        "height_ravine_width",
        "Height",
        height.ravine_width,
        1.0,
        64.0,
        0.5,
        "Half-width of a ravine, in voxels (a ravine is about twice this wide)."
    ),
    float_field!(
        "height_ravine_spacing",
        "Height",
        height.ravine_spacing,
        64.0,
        8192.0,
        1.0,
        "Average distance between neighbouring ravines, in voxels."
    ),
    float_field!(
        "height_ravine_roughness",
        "Height",
        height.ravine_roughness,
        0.0,
        1.0,
        0.01,
        "How much ravines wander (ratio per subdivision): 0 is straight, 1 is very winding."
    ),
    float_field!(
        "height_heightmap_weight",
        "Height",
        height.heightmap_weight,
        0.0,
        1.0,
        0.01,
        "Share of the heightmap image in the terrain mix (weight, relative to the other weights; 0 = heightmap unused)."
    ),
    text_field!(
        "height_heightmap_path",
        "Height",
        height.heightmap_path,
        "Heightmap file: a 16-bit grayscale PNG, an SRTM .hgt tile, an ESRI ASCII grid (.asc) or PCA components (.spca, from cargo xtask pca), as a res://, user:// or absolute path (a bare path is relative to res://). Used when the heightmap weight is above 0."
    ),
    float_field!(
        "height_heightmap_cell_size",
        "Height",
        height.heightmap_cell_size,
        0.25,
        256.0,
        0.25,
        "Voxels per heightmap pixel, horizontally: 1 maps each pixel to one column, 4 stretches each pixel over 4×4 columns."
    ),
    enum_field!("height_heightmap_wrap", "Height", height.heightmap_wrap,
        [HeightmapWrap::Tile => "Tile", HeightmapWrap::Border => "Border"], "Beyond the heightmap's edges: Tile repeats the image, Border continues with generated terrain."),
    bool_field!(
        "biomes_enabled",
        "Biomes",
        biomes.enabled,
        "Use the biome table (deserts, forests, snow, …); off, the whole world is one plains biome."
    ),
    float_field!(
        "biomes_cell_size",
        "Biomes",
        biomes.cell_size,
        16.0,
        8192.0,
        1.0,
        "Typical size of one biome region (Worley cell edge), in voxels."
    ),
    float_field!(
        "biomes_blend_distance",
        "Biomes",
        biomes.blend_distance,
        0.0,
        256.0,
        0.5,
        "Width of the strip over which terrain heights blend between neighbouring biomes, in voxels (0 = hard steps at borders)."
    ),
    float_field!(
        "biomes_climate_scale",
        "Biomes",
        biomes.climate_scale,
        32.0,
        16384.0,
        1.0,
        "Size of the temperature and moisture patterns (noise wavelength), in voxels: larger keeps similar biomes together over longer distances."
    ),
    float_field!(
        "biomes_rock_slope",
        "Biomes",
        biomes.rock_slope,
        0.1,
        16.0,
        0.05,
        "Steepness (rise over run, in voxels per voxel) above which slopes show bare rock instead of the biome's surface block."
    ),
    float_field!(
        "biomes_warp_strength",
        "Biomes",
        biomes.warp_strength,
        0.0,
        512.0,
        1.0,
        "How far biome borders meander, in voxels: each position is moved up to this far by layered noise before its biome is looked up (0 = the straight edges of the biome cells)."
    ),
    float_field!(
        "biomes_warp_scale",
        "Biomes",
        biomes.warp_scale,
        16.0,
        4096.0,
        1.0,
        "Size of the largest bends of biome borders (the warp noise's longest wavelength), in voxels; smaller bends down to a few voxels ride on them."
    ),
    float_field!(
        "biomes_transition_width",
        "Biomes",
        biomes.transition_width,
        0.0,
        64.0,
        0.5,
        "Width of the zone where two neighbouring biomes' surface blocks mix, column by column, in voxels (0 = a clean switch at the border)."
    ),
    enum_field!("caves_mode", "Caves", caves.mode,
        [CaveMode::None => "None", CaveMode::CellularAutomata => "CellularAutomata", CaveMode::GameOfLife => "GameOfLife"], "Cave generator: None (solid ground), CellularAutomata (round caverns from the 4-5 smoothing rule) or GameOfLife (caverns from the birth/survival rule below)."),
    float_field!(
        "caves_fill_probability",
        "Caves",
        caves.fill_probability,
        0.0,
        1.0,
        0.01,
        "Chance that an automaton cell starts as air (probability): higher gives larger, more connected caves."
    ),
    int_field!(
        "caves_passes",
        "Caves",
        caves.passes,
        0,
        16,
        "Smoothing passes with the threshold below (count): more passes give rounder, smoother caverns."
    ),
    int_field!(
        "caves_threshold",
        "Caves",
        caves.threshold,
        0,
        27,
        "Rock cells among a cell's 27 neighbours (3×3×3, itself included) needed to make it rock (count): 14 is the majority rule; higher opens more caves."
    ),
    int_field!(
        "caves_final_passes",
        "Caves",
        caves.final_passes,
        0,
        8,
        "Refining passes with the final threshold after the smoothing passes (count; 0 = none)."
    ),
    int_field!(
        "caves_final_threshold",
        "Caves",
        caves.final_threshold,
        0,
        27,
        "Rock neighbours out of 27 needed to stay rock in the refining passes (count): higher opens and rounds the caverns."
    ),
    text_field!(
        "caves_life_rule",
        "Caves",
        caves.life_rule,
        "Birth/survival rule of GameOfLife caves over the 26 neighbours, rock being alive: \"B…/S…\" with counts, commas and ranges, e.g. B3/S23 (Conway) or B14-19/S13-26."
    ),
    int_field!(
        "caves_life_ticks",
        "Caves",
        caves.life_ticks,
        0,
        64,
        "GameOfLife caves: ticks of the birth/survival rule from the random fill (count); each is computed from the previous one only."
    ),
    bool_field!(
        "caves_life_flood_fill",
        "Caves",
        caves.life_flood_fill,
        "GameOfLife caves: fill every open region except the main (largest) one of its world-aligned region of 32 cells (plus an 8-cell margin)."
    ),
    int_field!(
        "caves_cell_size",
        "Caves",
        caves.cell_size,
        1,
        8,
        "Edge of one automaton cell, in voxels: 1 carves per voxel, 2 or 4 give larger, blockier caverns."
    ),
    int_field!(
        "caves_min_depth",
        "Caves",
        caves.min_depth,
        0,
        256,
        "Caves start this many voxels below the surface, so the ground above stays intact."
    ),
    int_field!(
        "caves_min_pocket_volume",
        "Caves",
        caves.min_pocket_volume,
        0,
        4096,
        "Air pockets smaller than this many voxels are filled with rock (0 = keep all)."
    ),
    float_field!(
        "caves_tunnel_strength",
        "Caves",
        caves.tunnel_strength,
        0.0,
        1.0,
        0.01,
        "Strength of the long noise tunnels that connect caverns (fraction; 0 = no tunnels)."
    ),
    float_field!(
        "caves_tunnel_scale",
        "Caves",
        caves.tunnel_scale,
        8.0,
        2048.0,
        1.0,
        "Length of tunnel bends (noise wavelength), in voxels: larger gives longer, straighter tunnels."
    ),
    float_field!(
        "caves_tunnel_width",
        "Caves",
        caves.tunnel_width,
        0.0,
        0.5,
        0.005,
        "Width of the tunnels (fraction of the noise band): larger gives wider tunnels."
    ),
    bool_field!(
        "caves_allow_surface_breach",
        "Caves",
        caves.allow_surface_breach,
        "Let caves and tunnels open to the surface as cave mouths; off, they stay sealed below ground."
    ),
    bool_field!(
        "ores_enabled",
        "Ores",
        ores.enabled,
        "Place ore clusters (kinds, depths and clusters per 32³ chunk come from the preset's ore list)."
    ),
    bool_field!(
        "water_enabled",
        "Water",
        water.enabled,
        "Fill hollows below sea level with water where the ground holds it."
    ),
    int_field!(
        "water_sea_level",
        "Water",
        water.sea_level,
        -1024,
        1024,
        "World y of the water surface, in voxels: hollows below it fill with water."
    ),
    bool_field!(
        "scatter_enabled",
        "Scatter",
        scatter.enabled,
        "Scatter trees, bushes, flowers and rocks on the surface, as each biome's scatter rules say."
    ),
    float_field!(
        "scatter_density",
        "Scatter",
        scatter.density,
        0.0,
        4.0,
        0.01,
        "Multiplier on every biome's scatter densities (factor): 0 places nothing, 2 twice as much."
    ),
    float_field!(
        "scatter_density_scale",
        "Scatter",
        scatter.density_scale,
        8.0,
        4096.0,
        1.0,
        "Size of the groves and clearings (density noise wavelength), in voxels."
    ),
    bool_field!("scatter_trees", "Scatter", scatter.trees, "Place trees."),
    bool_field!("scatter_bushes", "Scatter", scatter.bushes, "Place bushes."),
    bool_field!("scatter_flowers", "Scatter", scatter.flowers, "Place flowers."),
    bool_field!("scatter_rocks", "Scatter", scatter.rocks, "Place rocks."),
    enum_field!("side_view_surface_source", "SideView", side_view.surface_source,
        [SurfaceSource::ValueNoiseLinear => "ValueNoiseLinear", SurfaceSource::ValueNoiseCosine => "ValueNoiseCosine",
         SurfaceSource::PerlinFbm => "PerlinFbm", SurfaceSource::MidpointDisplacement => "MidpointDisplacement",
         SurfaceSource::SmoothedHashNoise => "SmoothedHashNoise", SurfaceSource::ClassicHash => "ClassicHash"], "2D worlds only: the noise that draws the surface line (value noise, Perlin, midpoint displacement, smoothed hash noise or the side-view classic's hash noise)."),
    float_field!(
        "side_view_base_height",
        "SideView",
        side_view.base_height,
        -4096.0,
        4096.0,
        0.5,
        "2D worlds only: average height of the surface above tile row 0, in tiles."
    ),
    float_field!(
        "side_view_amplitude",
        "SideView",
        side_view.amplitude,
        0.0,
        512.0,
        0.5,
        "2D worlds only: how far hills and valleys reach above and below the base height, in tiles."
    ),
    float_field!(
        "side_view_scale",
        "SideView",
        side_view.scale,
        4.0,
        8192.0,
        1.0,
        "2D worlds only: width of the largest hills (noise wavelength), in tiles."
    ),
    int_field!(
        "side_view_octaves",
        "SideView",
        side_view.octaves,
        1,
        12,
        "2D worlds only: layers of surface noise added together (count): more adds finer bumps."
    ),
    float_field!(
        "side_view_persistence",
        "SideView",
        side_view.persistence,
        0.0,
        1.0,
        0.01,
        "2D worlds only: height of each finer octave relative to the one before (ratio): low is smooth, high is rough."
    ),
    float_field!(
        "side_view_roughness",
        "SideView",
        side_view.roughness,
        0.0,
        1.0,
        0.01,
        "2D worlds only, MidpointDisplacement: displacement kept per subdivision (ratio): low is smooth, high is jagged."
    ),
    float_field!(
        "side_view_initial_range",
        "SideView",
        side_view.initial_range,
        0.0,
        4.0,
        0.01,
        "2D worlds only, MidpointDisplacement: size of the first displacement, relative to the height range between the anchor points (ratio)."
    ),
    int_field!(
        "side_view_dirt_depth",
        "SideView",
        side_view.dirt_depth,
        0,
        64,
        "2D worlds only: dirt tiles between the grass on top and the stone below, in tiles."
    ),
    enum_field!("side_view_cave_mode", "SideView", side_view.cave_mode,
        [CaveMode::None => "None", CaveMode::CellularAutomata => "CellularAutomata", CaveMode::GameOfLife => "GameOfLife", CaveMode::Classic => "Classic"], "2D worlds only: cave generator: None, CellularAutomata (4-5 rule), GameOfLife (the birth/survival rule below) or Classic (the side-view classic: holes poked at 56 %, 4-5 rule opening at 2 or fewer walls, wall-only final passes)."),
    int_field!(
        "side_view_cave_depth",
        "SideView",
        side_view.cave_depth,
        1,
        1024,
        "2D worlds only: caves open only this many tiles below the surface or deeper, so the surface stays whole."
    ),
    float_field!(
        "side_view_cave_rock_probability",
        "SideView",
        side_view.cave_rock_probability,
        0.0,
        1.0,
        0.01,
        "2D worlds only: chance that a cave cell starts as rock (probability): lower gives larger caves."
    ),
    int_field!(
        "side_view_cave_passes",
        "SideView",
        side_view.cave_passes,
        0,
        16,
        "2D worlds only: smoothing passes of the 4-5 rule (count): more gives smoother caves."
    ),
    int_field!(
        "side_view_cave_threshold",
        "SideView",
        side_view.cave_threshold,
        0,
        9,
        "2D worlds only: rock cells among a cell's 3×3 block (itself included) needed to make it rock (count): 5 is the 4-5 rule."
    ),
    int_field!(
        "side_view_cave_final_passes",
        "SideView",
        side_view.cave_final_passes,
        0,
        8,
        "2D worlds only: refining passes with the final threshold (count; 0 = none)."
    ),
    int_field!(
        "side_view_cave_final_threshold",
        "SideView",
        side_view.cave_final_threshold,
        0,
        9,
        "2D worlds only: rock cells of the 3×3 block needed to stay rock in the refining passes (count)."
    ),
    text_field!(
        "side_view_cave_life_rule",
        "SideView",
        side_view.cave_life_rule,
        "2D worlds only: birth/survival rule of GameOfLife caves over the 8 neighbours, rock being alive, e.g. B3/S23 (Conway) or B3678/S34678."
    ),
    int_field!(
        "side_view_cave_life_ticks",
        "SideView",
        side_view.cave_life_ticks,
        0,
        64,
        "2D worlds only: ticks of the GameOfLife rule from the random fill (count); each is computed from the previous one only."
    ),
    bool_field!(
        "side_view_cave_life_flood_fill",
        "SideView",
        side_view.cave_life_flood_fill,
        "2D worlds only: GameOfLife caves fill every open region except the main (largest) one of its world-aligned region of 64 tiles (plus a 16-tile margin)."
    ),
    int_field!(
        "side_view_min_pocket_tiles",
        "SideView",
        side_view.min_pocket_tiles,
        0,
        64,
        "2D worlds only: cave pockets of fewer tiles than this are filled with rock (count; 0 = keep all)."
    ),
    int_field!(
        "side_view_ore_depth",
        "SideView",
        side_view.ore_depth,
        0,
        1024,
        "2D worlds only: ores appear only this many tiles below the surface or deeper."
    ),
    bool_field!(
        "side_view_water_enabled",
        "SideView",
        side_view.water_enabled,
        "2D worlds only: fill surface hollows with water pools."
    ),
    int_field!(
        "side_view_max_pool_width",
        "SideView",
        side_view.max_pool_width,
        1,
        128,
        "2D worlds only: widest hollow that holds a pool, in tiles."
    ),
    int_field!(
        "side_view_chunk_tiles",
        "SideView",
        side_view.chunk_tiles,
        16,
        128,
        "2D worlds only: edge of a square chunk, in tiles: larger chunks mean fewer, bigger generation jobs."
    ),
    bool_field!(
        "side_view_classic_xor_frequency",
        "SideView",
        side_view.classic_xor_frequency,
        "2D worlds only, ClassicHash: octave i at frequency 2 XOR i, as the original's `2 ^ i` computes in C-like languages, instead of 2 to the power i."
    ),
];

/// The table entry for field `name`.
pub fn field(name: &str) -> Option<&'static FieldSpec> {
    let name = FIELD_ALIASES.iter().find(|(old, _)| *old == name).map_or(name, |(_, now)| now);
    FIELDS.iter().find(|f| f.name == name)
}

/// Old field names that still read (in `.tres` files, `set_field` and Godot's `set`), each with
/// the field it names now: `height_simplex_weight` was always OpenSimplex.
pub const FIELD_ALIASES: &[(&str, &str)] = &[("height_simplex_weight", "height_open_simplex_weight")];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preset::model::CaveMode;

    /// Every field explains itself to a designer: a sentence, a unit for numbers, the range.
    #[test]
    fn every_field_has_a_doc_with_unit_and_range() {
        const UNITS: &[&str] =
            &["voxels", "tiles", "count", "ratio", "weight", "fraction", "probability", "factor", "integer"];
        for f in FIELDS {
            assert!(f.doc.len() >= 12 && f.doc.ends_with('.'), "{}: doc must be a sentence: {:?}", f.name, f.doc);
            if matches!(f.kind, FieldKind::Int { .. } | FieldKind::Float { .. }) {
                let doc = f.doc.to_lowercase();
                assert!(UNITS.iter().any(|u| doc.contains(u)), "{}: doc names no unit: {:?}", f.name, f.doc);
            }
            let help = f.help();
            assert!(help.starts_with(f.doc) && help.contains(&f.allowed()), "{}: {help}", f.name);
        }
        let f = field("height_octaves").unwrap();
        assert!(f.help().ends_with("Allowed: an integer in 1..=12. Default: 8."), "{}", f.help());
        let f = field("caves_mode").unwrap();
        assert!(f.help().ends_with("Allowed: one of None, CellularAutomata, GameOfLife. Default: CellularAutomata."));
        assert_eq!(field("seed").unwrap().allowed(), "any 64-bit integer");
    }

    /// Groups are contiguous and in the order a designer works: the world, its terrain, then
    /// what fills it, then the 2D settings.
    #[test]
    fn groups_come_in_designer_order() {
        let mut groups: Vec<&str> = Vec::new();
        for f in FIELDS {
            if groups.last() != Some(&f.group) {
                assert!(!groups.contains(&f.group), "group {} is split at {}", f.group, f.name);
                groups.push(f.group);
            }
        }
        assert_eq!(groups, ["World", "Height", "Biomes", "Caves", "Ores", "Water", "Scatter", "SideView"]);
    }

    #[test]
    fn every_field_round_trips_through_the_table() {
        let mut p = WorldPreset::default();
        for f in FIELDS {
            let v = (f.get)(&p);
            p.set_field(f.name, v.clone()).unwrap();
            assert_eq!((f.get)(&p), v, "{}", f.name);
        }
        assert_eq!(p, WorldPreset::default());
        let names: std::collections::HashSet<_> = FIELDS.iter().map(|f| f.name).collect();
        assert_eq!(names.len(), FIELDS.len(), "duplicate field names");
    }

    #[test]
    fn out_of_range_values_name_the_field_and_range() {
        let mut p = WorldPreset::default();
        let e = p.set_field("height_octaves", FieldValue::Int(0)).unwrap_err();
        assert_eq!(e.field, "height_octaves");
        assert!(e.to_string().contains("1..=12"), "{e}");
        let e = p.set_field("height_octaves", FieldValue::Int(1000)).unwrap_err();
        assert!(e.problem.contains("1000"));
        let e = p.set_field("height_amplitude", FieldValue::Float(f64::NAN)).unwrap_err();
        assert!(e.problem.contains("finite"));
        assert_eq!(p, WorldPreset::default(), "failed sets change nothing");
        p.set_field("caves_mode", FieldValue::Text("gameoflife".into())).unwrap();
        assert_eq!(p.caves.mode, CaveMode::GameOfLife);
        p.height.octaves = 0;
        assert_eq!(p.validate().unwrap_err().field, "height_octaves");
    }
}
