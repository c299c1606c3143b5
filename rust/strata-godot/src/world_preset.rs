//! `WorldPreset`: the Godot resource over [`strata_core::WorldPreset`], and its files.
//!
//! The inspector shows every field of the core field table ([`strata_core::preset::model::FIELDS`])
//! as a slider, checkbox, enum or text box in its group (`Height`, `Biomes`, `Caves`, `Ores`,
//! `Water`, `Scatter`, `SideView`). Properties are served dynamically from that one table, so a
//! field added in the core appears here, in `.tres` files and in validation without further code.
//!
//! Files from GDScript: RON sharing text, loading and saving (`res://`, `user://` or absolute
//! paths), fingerprints and reseeding. Nothing here panics on bad input: every failure is a
//! `push_error` naming the file, the field and what is allowed, kept for `last_error()` on the
//! preset it concerns, plus a null or an `Error` code. The static loaders (`from_ron`,
//! `load_from_file`) have no preset to keep the message on until they succeed: they load into a
//! new one, whose message is pushed, and return null on failure; `parse_ron` and `load_file` load
//! into an existing preset and keep the message there.
//!
//! May use: `strata_core::preset`, `files`.

use crate::files::{globalize, preset_error_code};
use crate::heightmaps;
use godot::classes::{IResource, Resource};
use godot::global::Error;
use godot::prelude::*;
use godot::register::info::{PropertyHint, PropertyHintInfo, PropertyInfo, PropertyUsageFlags};
use strata_core::preset::error::PresetError;
use strata_core::preset::file::{load_preset_file, save_preset_file};
use strata_core::preset::fingerprint::{fingerprint, with_new_seed};
use strata_core::preset::model::{FIELDS, FieldKind, FieldSpec, FieldValue};
use strata_core::preset::ron::{preset_from_ron, preset_to_ron};

/// Everything that shapes a world except player edits: seed, heights, biomes, caves, ores,
/// water and scatter. Same preset (seed included), same world, bit for bit.
#[derive(GodotClass)]
#[class(tool, base = Resource, init)]
pub struct WorldPreset {
    base: Base<Resource>,
    pub(crate) preset: strata_core::WorldPreset,
    /// The last error from a failed field change, load or save, for `last_error()`.
    last_error: GString,
    /// Bumped on every successful change, so a `ChunkWorld` can notice edits (live tuning).
    pub(crate) revision: u64,
}

impl WorldPreset {
    /// The core preset this resource holds.
    pub fn core(&self) -> &strata_core::WorldPreset {
        &self.preset
    }

    /// A new resource holding `preset`.
    pub fn from_core(preset: strata_core::WorldPreset) -> Gd<WorldPreset> {
        let mut gd = WorldPreset::new_gd();
        gd.bind_mut().preset = preset;
        gd
    }

    fn record_error(&mut self, message: String) {
        godot_error!("{message}");
        self.last_error = GString::from(message.as_str());
    }

    /// Takes the settings of a loaded preset (a `ChunkWorld` using this resource restarts), or
    /// keeps the error and changes nothing. `what` names the call in the message.
    fn take_loaded(&mut self, loaded: Result<strata_core::WorldPreset, PresetError>, what: String) -> Error {
        match loaded {
            Ok(p) => {
                self.preset = p;
                self.last_error = GString::new();
                self.revision += 1;
                self.base_mut().emit_changed();
                Error::OK
            }
            Err(e) => {
                let code = preset_error_code(&e);
                self.record_error(format!("{what}: {e}"));
                code
            }
        }
    }

    fn read_ron(&mut self, text: &GString, what: &str) -> Error {
        self.take_loaded(preset_from_ron(&text.to_string(), "RON text"), what.to_string())
    }

    fn read_file(&mut self, path: &GString, what: &str) -> Error {
        self.take_loaded(load_preset_file(&globalize(path)), format!("{what}({path})"))
    }
}

/// "SideView" → "side_view": the field-name prefix of an inspector group.
fn snake_case(group: &str) -> String {
    let mut out = String::new();
    for (i, ch) in group.chars().enumerate() {
        if ch.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(ch.to_ascii_lowercase());
    }
    out
}

fn value_to_variant(v: FieldValue) -> Variant {
    match v {
        FieldValue::Int(i) => i.to_variant(),
        FieldValue::Float(f) => f.to_variant(),
        FieldValue::Bool(b) => b.to_variant(),
        FieldValue::Text(s) => GString::from(s.as_str()).to_variant(),
    }
}

fn variant_to_value(spec: &FieldSpec, v: &Variant) -> Option<FieldValue> {
    Some(match spec.kind {
        FieldKind::Int { .. } | FieldKind::Enum { .. } => match v.get_type() {
            VariantType::INT => FieldValue::Int(v.to::<i64>()),
            VariantType::FLOAT => FieldValue::Float(v.to::<f64>()),
            VariantType::STRING => FieldValue::Text(v.to::<GString>().to_string()),
            _ => return None,
        },
        FieldKind::Float { .. } => match v.get_type() {
            VariantType::FLOAT => FieldValue::Float(v.to::<f64>()),
            VariantType::INT => FieldValue::Int(v.to::<i64>()),
            _ => return None,
        },
        FieldKind::Bool => match v.get_type() {
            VariantType::BOOL => FieldValue::Bool(v.to::<bool>()),
            _ => return None,
        },
        FieldKind::Text => match v.get_type() {
            VariantType::STRING => FieldValue::Text(v.to::<GString>().to_string()),
            VariantType::STRING_NAME => FieldValue::Text(v.to::<StringName>().to_string()),
            _ => return None,
        },
    })
}

fn property_info(spec: &FieldSpec) -> PropertyInfo {
    let usage = PropertyUsageFlags::DEFAULT;
    let (variant_type, hint, hint_string) = match spec.kind {
        FieldKind::Int { min, max } if spec.name == "seed" || max - min > 1 << 40 => {
            let _ = (min, max);
            (VariantType::INT, PropertyHint::NONE, String::new())
        }
        FieldKind::Int { min, max } => (VariantType::INT, PropertyHint::RANGE, format!("{min},{max},1")),
        FieldKind::Float { min, max, step } => (VariantType::FLOAT, PropertyHint::RANGE, format!("{min},{max},{step}")),
        FieldKind::Bool => (VariantType::BOOL, PropertyHint::NONE, String::new()),
        FieldKind::Enum { options } => (VariantType::INT, PropertyHint::ENUM, options.join(",")),
        FieldKind::Text if spec.name.ends_with("_path") => {
            (VariantType::STRING, PropertyHint::FILE, "*.png,*.hgt".to_string())
        }
        FieldKind::Text => (VariantType::STRING, PropertyHint::NONE, String::new()),
    };
    PropertyInfo {
        variant_type,
        class_name: StringName::default(),
        property_name: spec.name.into(),
        hint_info: PropertyHintInfo { hint, hint_string: hint_string.as_str().into() },
        usage,
    }
}

#[godot_api]
impl IResource for WorldPreset {
    fn on_get_property_list(&mut self) -> Vec<PropertyInfo> {
        let mut out = Vec::with_capacity(FIELDS.len() + 8);
        let mut group = "";
        for spec in FIELDS {
            if spec.group != group {
                group = spec.group;
                let prefix = if group == "World" { String::new() } else { format!("{}_", snake_case(group)) };
                out.push(PropertyInfo::new_group(group, &prefix));
            }
            out.push(property_info(spec));
        }
        out
    }

    fn on_get(&self, property: StringName) -> Option<Variant> {
        let name = property.to_string();
        strata_core::preset::model::field(&name).map(|spec| value_to_variant((spec.get)(&self.preset)))
    }

    fn on_set(&mut self, property: StringName, value: Variant) -> bool {
        let name = property.to_string();
        let Some(spec) = strata_core::preset::model::field(&name) else { return false };
        let Some(v) = variant_to_value(spec, &value) else {
            self.record_error(format!("WorldPreset.{name}: {value} has the wrong type; allowed: {}", spec.allowed()));
            return true;
        };
        match self.preset.set_field(&name, v) {
            Ok(()) => {
                self.revision += 1;
                self.base_mut().emit_changed();
            }
            Err(e) => self.record_error(format!("WorldPreset: {e}")),
        }
        true
    }

    fn on_property_get_revert(&self, property: StringName) -> Option<Variant> {
        let name = property.to_string();
        let defaults = strata_core::WorldPreset::default();
        strata_core::preset::model::field(&name).map(|spec| value_to_variant((spec.get)(&defaults)))
    }
}

#[godot_api]
impl WorldPreset {
    /// The message of the last failed field change, load or save; "" when none failed since
    /// `clear_error()`, or after a successful `parse_ron` or `load_file`.
    #[func]
    pub fn last_error(&self) -> GString {
        self.last_error.clone()
    }

    /// Clears `last_error()`.
    #[func]
    pub fn clear_error(&mut self) {
        self.last_error = GString::new();
    }

    /// Names of every preset field, in inspector order.
    #[func]
    pub fn field_names() -> PackedStringArray {
        FIELDS.iter().map(|f| GString::from(f.name)).collect()
    }

    /// Checks every field and the rules between fields, and that the heightmap file (when
    /// used) loads; "" when valid, else the error a world built from it would report. The
    /// heightmap is read at once if it was not loaded before, and kept: the world built from
    /// this preset then does not read it again.
    #[func]
    pub fn validate(&self) -> GString {
        match strata_core::gen3d::pipeline::Generator::check_preset_with_loader(&self.preset, heightmaps::load_now) {
            Ok(()) => GString::new(),
            Err(e) => e.to_string().as_str().into(),
        }
    }

    /// This preset as versioned RON text (`format: "strata-preset", version: 1`), for sharing.
    #[func]
    pub fn to_ron(&self) -> GString {
        preset_to_ron(&self.preset).as_str().into()
    }

    /// A new preset from versioned RON text, or null on error (the message, with line:column,
    /// field and allowed values, is pushed to the console; `parse_ron` keeps it).
    #[func]
    pub fn from_ron(text: GString) -> Option<Gd<WorldPreset>> {
        let mut p = WorldPreset::new_gd();
        let code = p.bind_mut().read_ron(&text, "WorldPreset.from_ron");
        (code == Error::OK).then_some(p)
    }

    /// Replaces every setting of this preset with those of versioned RON text. On error nothing
    /// changes; the message (line:column, field, allowed values) is in `last_error()`.
    #[func]
    pub fn parse_ron(&mut self, text: GString) -> Error {
        self.read_ron(&text, "WorldPreset.parse_ron")
    }

    /// Writes this preset to `path` atomically (`res://`, `user://` or absolute): `.tres` as a
    /// Godot text resource, any other extension as versioned RON. An invalid preset or a failed
    /// write leaves any existing file as it was; the message is in `last_error()`.
    #[func]
    pub fn save_to_file(&mut self, path: GString) -> Error {
        match save_preset_file(&globalize(&path), &self.preset) {
            Ok(()) => Error::OK,
            Err(e) => {
                let code = preset_error_code(&e);
                self.record_error(format!("WorldPreset.save_to_file: {e}"));
                code
            }
        }
    }

    /// A new preset read from a file (`.ron` or `.tres`; `res://`, `user://` or absolute), or
    /// null on error (the message is pushed to the console; `load_file` keeps it).
    #[func]
    pub fn load_from_file(path: GString) -> Option<Gd<WorldPreset>> {
        let mut p = WorldPreset::new_gd();
        let code = p.bind_mut().read_file(&path, "WorldPreset.load_from_file");
        (code == Error::OK).then_some(p)
    }

    /// Replaces every setting of this preset with those of a file (`.ron` or `.tres`;
    /// `res://`, `user://` or absolute). On error nothing changes; the message is in
    /// `last_error()`.
    #[func]
    pub fn load_file(&mut self, path: GString) -> Error {
        self.read_file(&path, "WorldPreset.load_file")
    }

    /// A 16-hex-digit hash of everything that shapes the world (seed and settings, not the
    /// name): same fingerprint, same world.
    #[func]
    pub fn fingerprint(&self) -> GString {
        fingerprint(&self.preset).as_str().into()
    }

    /// A new preset with every setting of this one and the given seed.
    #[func]
    pub fn with_new_seed(&self, seed: i64) -> Gd<WorldPreset> {
        WorldPreset::from_core(with_new_seed(&self.preset, seed as u64))
    }
}
