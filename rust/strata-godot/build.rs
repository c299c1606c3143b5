//! Generates `StrataWorldPreset`'s field properties from the core's field table
//! ([`strata_core::preset::fields::FIELDS`]) at compile time, so that they are ordinary gdext
//! `#[var]` properties: ClassDB properties in the table's order and inspector groups, with the
//! table's ranges and enum options as hints and its help text as their `///` docs (the class
//! reference, F1 and the inspector tooltips), all through gdext's public API.
//!
//! `$OUT_DIR/preset_fields.rs` defines two macros that `world_preset.rs` wraps its items in:
//! `world_preset_struct!` appends one `PhantomVar` field per table field to the struct (the
//! value lives in the core preset), before the fields of an optional `after { ... }` block (so
//! their inspector groups follow the table's), and `world_preset_fields_api!` makes the primary
//! `#[godot_api]` block of the typed getters and setters those fields name (gdext looks up a
//! `#[var]`'s accessors only in the primary block) plus one `#[constant]` per option of every
//! enumerated field (`CAVES_MODE_GAME_OF_LIFE`). A field added to the table appears in Godot
//! without further code.
//!
//! May use: `strata_core::preset::fields` (a build dependency), std.

use std::fmt::Write as _;
use strata_core::preset::fields::{FIELDS, FieldKind, FieldSpec};

/// Godot methods of `Resource` and `Object` whose names a field's `get_`/`set_` accessor would
/// shadow: such a field's accessors are `get_preset_<field>` / `set_preset_<field>`.
const TAKEN_ACCESSOR_NAMES: &[&str] = &["name", "path", "script", "meta", "class", "rid", "local_to_scene"];

/// "SideView" → "side_view": the field-name prefix of an inspector group.
fn snake_case(text: &str) -> String {
    let mut out = String::new();
    for (i, ch) in text.chars().enumerate() {
        if ch.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(ch.to_ascii_lowercase());
    }
    out
}

/// `text` with every ASCII punctuation character backslash-escaped, so that gdext's Markdown
/// to BBCode conversion of doc comments gives back exactly `text` (CommonMark allows escaping
/// any ASCII punctuation).
fn markdown_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for ch in text.chars() {
        if ch.is_ascii_punctuation() {
            out.push('\\');
        }
        out.push(ch);
    }
    out
}

/// The accessor name stem of a field: its name, or `preset_<name>` where `get_<name>` would
/// shadow an engine method.
fn accessor_stem(spec: &FieldSpec) -> String {
    if TAKEN_ACCESSOR_NAMES.contains(&spec.name) { format!("preset_{}", spec.name) } else { spec.name.to_string() }
}

/// The Rust type of a field's property, the helper its getter reads with, and its hint (name
/// and hint string) as the inspector gets it.
fn property_shape(spec: &FieldSpec) -> (&'static str, &'static str, Option<(&'static str, String)>) {
    match spec.kind {
        // The seed (and any field of nearly the whole i64 range): a plain integer box.
        FieldKind::Int { min, max } if spec.name == "seed" || max.abs_diff(min) > 1 << 40 => ("i64", "field_int", None),
        FieldKind::Int { min, max } => ("i64", "field_int", Some(("RANGE", format!("{min},{max},1")))),
        FieldKind::Float { min, max, step } => ("f64", "field_float", Some(("RANGE", format!("{min},{max},{step}")))),
        FieldKind::Bool => ("bool", "field_bool", None),
        FieldKind::Enum { options } => ("i64", "field_int", Some(("ENUM", options.join(",")))),
        FieldKind::Text if spec.name.ends_with("_path") => {
            ("::godot::builtin::GString", "field_text", Some(("FILE", "*.png,*.hgt".to_string())))
        }
        FieldKind::Text => ("::godot::builtin::GString", "field_text", None),
    }
}

/// "GameOfLife" → "GAME_OF_LIFE", "ValueNoiseLinear" → "VALUE_NOISE_LINEAR".
fn constant_case(option: &str) -> String {
    let mut out = String::new();
    let chars: Vec<char> = option.chars().collect();
    for (i, &ch) in chars.iter().enumerate() {
        let boundary = i > 0
            && ch.is_ascii_uppercase()
            && (chars[i - 1].is_ascii_lowercase() || chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase()));
        if boundary {
            out.push('_');
        }
        out.push(ch.to_ascii_uppercase());
    }
    out
}

fn generate() -> String {
    let mut fields = String::new();
    let mut api = String::new();
    let mut group = "";
    for (index, spec) in FIELDS.iter().enumerate() {
        if spec.group != group {
            group = spec.group;
            let prefix = if group == "World" { String::new() } else { format!("{}_", snake_case(group)) };
            writeln!(fields, "#[export_group(name = {group:?}, prefix = {prefix:?})]").unwrap();
        }
        let (ty, read, hint) = property_shape(spec);
        let stem = accessor_stem(spec);
        let hint = match hint {
            Some((hint, text)) => format!(", hint = {hint}, hint_string = {text:?}"),
            None => String::new(),
        };
        writeln!(fields, "#[doc = {:?}]", markdown_literal(&spec.help())).unwrap();
        writeln!(fields, "#[var(get = get_{stem}, set = set_{stem}{hint}, usage_flags = [DEFAULT])]").unwrap();
        writeln!(fields, "{}: ::godot::prelude::PhantomVar<{ty}>,", spec.name).unwrap();

        writeln!(fields).unwrap();
        writeln!(api, "#[doc = {:?}]", format!("The getter of `{}`.", spec.name)).unwrap();
        writeln!(api, "#[func]\nfn get_{stem}(&self) -> {ty} {{ self.{read}({index}) }}").unwrap();
        writeln!(api, "#[doc = {:?}]", format!("The setter of `{}` (see `set_field_at`).", spec.name)).unwrap();
        writeln!(
            api,
            "#[func]\nfn set_{stem}(&mut self, value: {ty}) {{ \
             self.set_field_at({index}, ::godot::meta::ToGodot::to_variant(&value)) }}"
        )
        .unwrap();
        if let FieldKind::Enum { options } = spec.kind {
            for (value, option) in options.iter().enumerate() {
                let name = format!("{}_{}", spec.name.to_ascii_uppercase(), constant_case(option));
                writeln!(api, "#[doc = {:?}]", markdown_literal(&format!("`{}` = {option}.", spec.name))).unwrap();
                writeln!(api, "#[constant]\nconst {name}: i64 = {value};").unwrap();
            }
        }
    }
    format!(
        // `tt` captures, not `meta`/`vis` fragments: gdext's macros parse the attributes they get,
        // and a captured fragment would reach them as an opaque group.
        "// Generated by rust/strata-godot/build.rs from strata_core::preset::fields::FIELDS.\n\
         macro_rules! world_preset_struct {{\n\
         ($(#[$($meta:tt)*])* pub struct $name:ident {{ $($body:tt)* }} $(after {{ $($after:tt)* }})?) => {{\n\
         $(#[$($meta)*])* pub struct $name {{\n$($body)*\n{fields}$($($after)*)?\n}}\n}};\n}}\n\n\
         macro_rules! world_preset_fields_api {{\n\
         ($(#[$($meta:tt)*])* impl $name:ident {{ $($body:tt)* }}) => {{\n\
         $(#[$($meta)*])* impl $name {{\n$($body)*\n{api}}}\n}};\n}}\n"
    )
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("preset_fields.rs"), generate()).expect("OUT_DIR is writable");
}
