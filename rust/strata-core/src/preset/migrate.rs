//! Preset formats and what an older file left out: the defaults it was made with.
//!
//! A preset file may leave settings out; they take the defaults of the format the file was
//! written in. Format 2 changed some defaults (the Life rules became Conway's B3/S23 and the
//! terrain the realistic one of `default_hills`), so a format-1 file (RON `version: 1`, a bare RON
//! body, a `.tres` without `preset_format`, a `strata1-` world code on the built-in default) that
//! leaves one of them out gets its format-1 value here, explicitly: the world it was made with
//! (law: Nothing is lost). Files written now store every setting ([`crate::preset::ron`],
//! [`crate::preset::tres`]); world saves store their preset against the frozen format-1 baseline
//! (`fingerprint`) and never depended on the defaults.
//!
//! May use: `preset::model`.

use crate::preset::fields::FieldValue;
use crate::preset::model::WorldPreset;

/// The preset format this build writes (RON `version`, `.tres` `preset_format`).
pub const PRESET_FORMAT_VERSION: u32 = 2;

/// A setting whose default changed after format 1, with the default of format 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Format1Default {
    /// The section of the preset (`caves`, `height`, ...): the RON table the setting is in.
    pub section: &'static str,
    /// The setting's name inside its section (RON key).
    pub key: &'static str,
    /// The flat field name ([`crate::preset::fields::FIELDS`], `.tres` key, Godot property).
    pub field: &'static str,
    pub value: Format1Value,
}

/// A format-1 default value (a `const`-friendly [`FieldValue`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Format1Value {
    Int(i64),
    Float(f64),
    Text(&'static str),
}

impl Format1Value {
    pub fn to_field_value(self) -> FieldValue {
        match self {
            Format1Value::Int(i) => FieldValue::Int(i),
            Format1Value::Float(x) => FieldValue::Float(x),
            Format1Value::Text(t) => FieldValue::Text(t.into()),
        }
    }
}

/// Every setting whose default changed in format 2, with its format-1 default.
pub const FORMAT1_DEFAULTS: &[Format1Default] = &[
    // Life caves: B3/S23 now (the design's rule); format 1 defaulted to rules that carve caves
    // from a random fill.
    Format1Default {
        section: "caves",
        key: "life_rule",
        field: "caves_life_rule",
        value: Format1Value::Text("B14-19/S13-26"),
    },
    Format1Default {
        section: "side_view",
        key: "cave_life_rule",
        field: "side_view_cave_life_rule",
        value: Format1Value::Text("B678/S345678"),
    },
    // Terrain: now that of `default_hills` (β ≈ 3.8, real land); format 1 was smoother (β ≈ 5.6).
    Format1Default { section: "height", key: "amplitude", field: "height_amplitude", value: Format1Value::Float(40.0) },
    Format1Default { section: "height", key: "scale", field: "height_scale", value: Format1Value::Float(320.0) },
    Format1Default { section: "height", key: "octaves", field: "height_octaves", value: Format1Value::Int(5) },
    Format1Default {
        section: "height",
        key: "persistence",
        field: "height_persistence",
        value: Format1Value::Float(0.5),
    },
];

/// Gives every setting of [`FORMAT1_DEFAULTS`] that a format-1 file left out (`present(section,
/// key)` is false) its format-1 default.
pub fn apply_format1_defaults(preset: &mut WorldPreset, present: impl Fn(&str, &str) -> bool) {
    for d in FORMAT1_DEFAULTS {
        if !present(d.section, d.key) {
            // The values are the former defaults, valid by construction (tested below).
            let _ = preset.set_field(d.field, d.value.to_field_value());
        }
    }
}

impl WorldPreset {
    /// The built-in default of preset format 1: what a format-1 file that left every setting
    /// out, or a `strata1-` world code on the built-in default, describes.
    pub fn format1_default() -> WorldPreset {
        let mut p = WorldPreset::default();
        apply_format1_defaults(&mut p, |_, _| false);
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preset::fields::field;

    #[test]
    fn every_format1_default_names_a_field_and_is_valid() {
        let now = WorldPreset::default();
        let old = WorldPreset::format1_default();
        for d in FORMAT1_DEFAULTS {
            let spec = field(d.field).unwrap_or_else(|| panic!("{} is not a field", d.field));
            assert_eq!(spec.name, format!("{}_{}", d.section, d.key));
            assert_eq!((spec.get)(&old), d.value.to_field_value(), "{}", d.field);
            assert_ne!((spec.get)(&now), (spec.get)(&old), "{}: the default did not change", d.field);
        }
        old.validate().unwrap();
    }
}
