//! Preset formats and what an older file left out: the defaults it was made with.
//!
//! A preset file may leave settings out; they take the defaults of the format the file was
//! written in. Format 2 changed some defaults (the Life rules became Conway's B3/S23 and the
//! terrain the realistic one of `default_hills`); format 3 added settings whose defaults change
//! the world (biome borders that meander and mix: `biomes.warp_strength`,
//! `biomes.transition_width`). So a file of an older format (RON `version`, `.tres`
//! `preset_format`, a world code's prefix on the built-in default; a bare RON body or a `.tres`
//! without `preset_format` is format 1) that leaves one of them out gets that format's value
//! here, explicitly: the world it was made with (law: Nothing is lost). Files written now store
//! every setting ([`crate::preset::ron`], [`crate::preset::tres`]); world saves store their
//! preset against the frozen format-1 baseline (`fingerprint`, which holds format 3's additions
//! at the values that keep the old world) and never depended on the defaults.
//!
//! May use: `preset::model`.

use crate::preset::fields::FieldValue;
use crate::preset::model::WorldPreset;

/// The preset format this build writes (RON `version`, `.tres` `preset_format`).
pub const PRESET_FORMAT_VERSION: u32 = 3;

/// A setting whose default changed after an older format, with the default of that format.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OldDefault {
    /// The section of the preset (`caves`, `height`, ...): the RON table the setting is in.
    pub section: &'static str,
    /// The setting's name inside its section (RON key).
    pub key: &'static str,
    /// The flat field name ([`crate::preset::fields::FIELDS`], `.tres` key, Godot property).
    pub field: &'static str,
    pub value: OldValue,
}

/// An older format's default value (a `const`-friendly [`FieldValue`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OldValue {
    Int(i64),
    Float(f64),
    Text(&'static str),
}

impl OldValue {
    pub fn to_field_value(self) -> FieldValue {
        match self {
            OldValue::Int(i) => FieldValue::Int(i),
            OldValue::Float(x) => FieldValue::Float(x),
            OldValue::Text(t) => FieldValue::Text(t.into()),
        }
    }
}

/// Every setting whose default changed in format 2, with its format-1 default.
pub const FORMAT1_DEFAULTS: &[OldDefault] = &[
    // Life caves: B3/S23 now (the design's rule); format 1 defaulted to rules that carve caves
    // from a random fill.
    OldDefault { section: "caves", key: "life_rule", field: "caves_life_rule", value: OldValue::Text("B14-19/S13-26") },
    OldDefault {
        section: "side_view",
        key: "cave_life_rule",
        field: "side_view_cave_life_rule",
        value: OldValue::Text("B678/S345678"),
    },
    // Terrain: now that of `default_hills` (β ≈ 3.8, real land); format 1 was smoother (β ≈ 5.6).
    OldDefault { section: "height", key: "amplitude", field: "height_amplitude", value: OldValue::Float(40.0) },
    OldDefault { section: "height", key: "scale", field: "height_scale", value: OldValue::Float(320.0) },
    OldDefault { section: "height", key: "octaves", field: "height_octaves", value: OldValue::Int(5) },
    OldDefault { section: "height", key: "persistence", field: "height_persistence", value: OldValue::Float(0.5) },
];

/// Every setting whose default changed in format 3, with its default of formats 1 and 2: the
/// biome borders of those formats were the Worley cells' straight edges, switching at once.
pub const FORMAT2_DEFAULTS: &[OldDefault] = &[
    OldDefault { section: "biomes", key: "warp_strength", field: "biomes_warp_strength", value: OldValue::Float(0.0) },
    OldDefault {
        section: "biomes",
        key: "transition_width",
        field: "biomes_transition_width",
        value: OldValue::Float(0.0),
    },
];

/// Gives every setting whose default changed after preset format `format` and that its file
/// left out (`present(section, key)` is false) the default of that format.
pub fn apply_format_defaults(preset: &mut WorldPreset, format: u32, present: impl Fn(&str, &str) -> bool) {
    let tables: [(u32, &[OldDefault]); 2] = [(1, FORMAT1_DEFAULTS), (2, FORMAT2_DEFAULTS)];
    for (last_format, table) in tables {
        if format > last_format {
            continue;
        }
        for d in table {
            if !present(d.section, d.key) {
                // The values are the former defaults, valid by construction (tested below).
                let _ = preset.set_field(d.field, d.value.to_field_value());
            }
        }
    }
}

/// Gives the settings added after preset format `format` (those of [`FORMAT2_DEFAULTS`] for a
/// format below 3) that format's values, whatever the preset holds: for a reader that learns a
/// file's format after reading its settings (Godot's loader), since such a file holds none of
/// them.
pub fn apply_added_after(preset: &mut WorldPreset, format: u32) {
    if format < 3 {
        for d in FORMAT2_DEFAULTS {
            // The values are the former defaults, valid by construction (tested below).
            let _ = preset.set_field(d.field, d.value.to_field_value());
        }
    }
}

impl WorldPreset {
    /// The built-in default of preset format 1: what a format-1 file that left every setting
    /// out, or a `strata1-` world code on the built-in default, describes.
    pub fn format1_default() -> WorldPreset {
        Self::format_default(1)
    }

    /// The built-in default of preset format `format` (1 up to [`PRESET_FORMAT_VERSION`]).
    pub fn format_default(format: u32) -> WorldPreset {
        let mut p = WorldPreset::default();
        apply_format_defaults(&mut p, format, |_, _| false);
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preset::fields::field;

    #[test]
    fn every_old_default_names_a_field_and_is_valid() {
        let now = WorldPreset::default();
        for (format, table) in [(1, FORMAT1_DEFAULTS), (2, FORMAT2_DEFAULTS)] {
            let old = WorldPreset::format_default(format);
            for d in table {
                let spec = field(d.field).unwrap_or_else(|| panic!("{} is not a field", d.field));
                assert_eq!(spec.name, format!("{}_{}", d.section, d.key));
                assert_eq!((spec.get)(&old), d.value.to_field_value(), "{}", d.field);
                assert_ne!((spec.get)(&now), (spec.get)(&old), "{}: the default did not change", d.field);
            }
            old.validate().unwrap();
        }
        assert_eq!(WorldPreset::format_default(PRESET_FORMAT_VERSION), now);
        // Format 1 also lacked what format 3 added.
        let f1 = WorldPreset::format1_default();
        assert_eq!((f1.biomes.warp_strength, f1.biomes.transition_width), (0.0, 0.0));
    }

    #[test]
    fn the_fingerprint_baseline_holds_format_3_additions_at_their_old_values() {
        // A world save or fingerprint made before format 3 leaves them out; the baseline they are
        // read against must give the old world.
        let base = ron::from_str::<WorldPreset>(crate::preset::fingerprint::FINGERPRINT_BASELINE).unwrap();
        for d in FORMAT2_DEFAULTS {
            let spec = field(d.field).unwrap();
            assert_eq!((spec.get)(&base), d.value.to_field_value(), "{}", d.field);
        }
    }
}
