//! Reading and writing [`WorldPreset`]s: the versioned RON sharing format, Godot `.tres` text,
//! and the preset fingerprint.
//!
//! A shared preset file looks like
//!
//! ```ron
//! (
//!     format: "strata-preset",
//!     version: 1,
//!     preset: (name: "Archipelago", seed: 7, height: (base_height: -6.0, ...), ...),
//! )
//! ```
//!
//! Versioning: a file whose `version` is above [`PRESET_VERSION`] is refused with "made by a newer
//! Strata"; fields missing from an older file take their defaults (`#[serde(default)]`); a field
//! this build does not know is reported by name, with line:column and the fields it does know.
//! A bare preset (the `preset: (...)` body alone) is read too. Every load ends with
//! [`WorldPreset::validate`], so an out-of-range value names the field and its allowed range.
//!
//! [`fingerprint`] hashes what shapes the world (every setting and the seed, not the display
//! name): same fingerprint, same world. Settings equal to a frozen baseline (the defaults of
//! preset version 1, [`FINGERPRINT_BASELINE`]) are left out of the hash, so a later Strata that
//! adds a setting (whose default keeps the old behaviour) or changes a default keeps every
//! existing fingerprint of an unchanged world. Never edit the baseline's values; a setting added
//! later takes its current default there (serde default).

use crate::base::atomic_file::write_atomic;
use crate::preset::model::{FIELDS, FieldKind, FieldValue, WorldPreset};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::Path;
use thiserror::Error;

/// The `format` tag of a preset file.
pub const PRESET_FORMAT: &str = "strata-preset";
/// The newest preset file version this build reads and the one it writes.
pub const PRESET_VERSION: u32 = 1;
/// Preset files larger than this are refused unread (a preset is a few KB).
pub const MAX_PRESET_BYTES: u64 = 4 << 20;

/// Why a preset could not be read or written. Every variant names the file (`source_name`).
#[derive(Debug, Error)]
pub enum PresetError {
    #[error("{source_name}: cannot {action}: {error}")]
    Io {
        source_name: String,
        action: &'static str,
        #[source]
        error: std::io::Error,
    },
    /// Text that is not a well-formed preset, at `line:column` (1-based; 0 when unknown).
    #[error("{source_name}:{line}:{column}: {}{problem}; allowed: {allowed}", field_prefix(.field))]
    Parse {
        source_name: String,
        line: usize,
        column: usize,
        /// The field the error is in, or "" when it is not known.
        field: String,
        problem: String,
        allowed: String,
    },
    #[error("{source_name}: made by a newer Strata (version {found}, this reads <= {supported}); update Strata to open it")]
    NewerVersion { source_name: String, found: u64, supported: u32 },
    /// A well-formed preset with a value outside what its field allows.
    #[error("{source_name}{}: field `{field}`: {problem}; allowed: {allowed}", location(*.line, *.column))]
    Invalid {
        source_name: String,
        line: usize,
        column: usize,
        field: String,
        problem: String,
        allowed: String,
    },
}

fn field_prefix(field: &str) -> String {
    if field.is_empty() { String::new() } else { format!("field `{field}`: ") }
}

fn location(line: usize, column: usize) -> String {
    if line == 0 { String::new() } else { format!(":{line}:{column}") }
}

impl PresetError {
    /// The field the error is about, or "" when none.
    pub fn field(&self) -> &str {
        match self {
            PresetError::Parse { field, .. } | PresetError::Invalid { field, .. } => field,
            _ => "",
        }
    }
}

#[derive(Serialize)]
struct PresetFileOut<'a> {
    format: &'a str,
    version: u32,
    preset: &'a WorldPreset,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PresetFileIn {
    #[allow(dead_code)]
    format: String,
    #[allow(dead_code)]
    version: u64,
    preset: WorldPreset,
}

/// The envelope alone, read first so the version is checked before the body.
#[derive(Deserialize)]
struct Header {
    #[serde(default, deserialize_with = "present")]
    format: Option<ron::Value>,
    #[serde(default, deserialize_with = "present")]
    version: Option<ron::Value>,
}

/// A field that is there holds a value (RON would otherwise want `Some(...)` for an `Option`).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<ron::Value>, D::Error> {
    ron::Value::deserialize(d).map(Some)
}

fn pretty() -> ron::ser::PrettyConfig {
    ron::ser::PrettyConfig::new().indentor("    ").struct_names(false)
}

/// The preset as a pretty, versioned RON document (ends with a newline).
pub fn preset_to_ron(preset: &WorldPreset) -> String {
    let doc = PresetFileOut { format: PRESET_FORMAT, version: PRESET_VERSION, preset };
    // Serializing plain data to a String cannot fail except on non-string map keys (none here).
    let mut s = ron::ser::to_string_pretty(&doc, pretty()).unwrap_or_else(|e| format!("// cannot serialize: {e}\n"));
    s.push('\n');
    s
}

/// Parses a preset document (versioned or bare) and validates it. `source_name` names the file
/// in errors.
pub fn preset_from_ron(text: &str, source_name: &str) -> Result<WorldPreset, PresetError> {
    let header: Header = match ron::from_str(text) {
        Ok(h) => h,
        // Not a struct at all, or malformed: report the syntax error where ron found it.
        Err(e) => return Err(ron_error(e, text, source_name)),
    };
    let preset = match (&header.format, &header.version) {
        (None, None) => {
            // A bare preset body.
            ron::from_str::<WorldPreset>(text).map_err(|e| ron_error(e, text, source_name))?
        }
        (format, version) => {
            let format_ok = matches!(format, Some(ron::Value::String(s)) if s == PRESET_FORMAT);
            if !format_ok {
                let (line, column) = locate_path(text, &["format"]).unwrap_or((1, 1));
                return Err(PresetError::Parse {
                    source_name: source_name.into(),
                    line,
                    column,
                    field: "format".into(),
                    problem: match format {
                        Some(v) => format!("{} is not a Strata preset format tag", short_value(v)),
                        None => "missing".into(),
                    },
                    allowed: format!("\"{PRESET_FORMAT}\""),
                });
            }
            let (line, column) = locate_path(text, &["version"]).unwrap_or((1, 1));
            let bad_version = |problem: String| PresetError::Parse {
                source_name: source_name.into(),
                line,
                column,
                field: "version".into(),
                problem,
                allowed: format!("an integer in 1..={PRESET_VERSION}"),
            };
            let found = match version {
                Some(ron::Value::Number(n)) => n.into_f64(),
                Some(v) => return Err(bad_version(format!("{} is not a version number", short_value(v)))),
                None => return Err(bad_version("missing".into())),
            };
            if !(found.fract() == 0.0 && found >= 1.0) {
                return Err(bad_version(format!("{found} is not a version number")));
            }
            if found > PRESET_VERSION as f64 {
                return Err(PresetError::NewerVersion {
                    source_name: source_name.into(),
                    found: found.min(u64::MAX as f64) as u64,
                    supported: PRESET_VERSION,
                });
            }
            ron::from_str::<PresetFileIn>(text).map_err(|e| ron_error(e, text, source_name))?.preset
        }
    };
    validated(preset, text, source_name)
}

/// Runs [`WorldPreset::validate`] and turns its error into a [`PresetError::Invalid`] located in
/// `text` where possible.
fn validated(preset: WorldPreset, text: &str, source_name: &str) -> Result<WorldPreset, PresetError> {
    match preset.validate() {
        Ok(()) => Ok(preset),
        Err(e) => {
            let (line, column) = locate_flat_field(text, &e.field).unwrap_or((0, 0));
            Err(PresetError::Invalid { source_name: source_name.into(), line, column, field: e.field, problem: e.problem, allowed: e.allowed })
        }
    }
}

fn short_value(v: &ron::Value) -> String {
    let s = ron::to_string(v).unwrap_or_else(|_| "value".into());
    if s.chars().count() > 40 { format!("{}…", s.chars().take(40).collect::<String>()) } else { s }
}

/// Turns a ron error into a [`PresetError::Parse`] with the field it concerns where known.
fn ron_error(e: ron::error::SpannedError, text: &str, source_name: &str) -> PresetError {
    use ron::error::Error as E;
    let (line, column) = (e.span.start.line, e.span.start.col);
    let near = field_before(text, line, column);
    let list = |xs: &[&str]| xs.iter().map(|x| format!("`{x}`")).collect::<Vec<_>>().join(", ");
    let (field, problem, allowed) = match &e.code {
        E::NoSuchStructField { expected, found, outer } => (
            found.clone(),
            format!(
                "unknown field `{found}`{} (made by a newer Strata, or misspelt?)",
                outer.as_ref().map(|o| format!(" in `{o}`")).unwrap_or_default()
            ),
            format!("one of {}", list(expected)),
        ),
        E::NoSuchEnumVariant { expected, found, .. } => (near, format!("`{found}` is not an option"), format!("one of {}", list(expected))),
        E::DuplicateStructField { field, .. } => (field.to_string(), format!("`{field}` appears twice"), "each field once".into()),
        E::MissingStructField { field, .. } => (field.to_string(), format!("`{field}` is missing"), "the field with a value".into()),
        E::InvalidValueForType { expected, found } => (near, format!("found {found}"), expected.clone()),
        E::IntegerOutOfBounds => (near, "integer out of bounds for this field".into(), "an integer the field's type holds".into()),
        E::ExpectedInteger => (near, e.code.to_string(), "an integer".into()),
        E::ExpectedFloat => (near, e.code.to_string(), "a number".into()),
        E::ExpectedBoolean => (near, e.code.to_string(), "true or false".into()),
        E::ExpectedString | E::ExpectedStringEnd => (near, e.code.to_string(), "a \"quoted string\"".into()),
        E::Eof => (near, "unexpected end of file (truncated?)".into(), "a complete preset document".into()),
        E::Utf8Error(_) => (String::new(), e.code.to_string(), "UTF-8 text".into()),
        E::ExceededRecursionLimit => (String::new(), e.code.to_string(), "nesting at most 128 deep".into()),
        other => (near, other.to_string(), "RON text of a Strata preset (see presets/*.ron)".into()),
    };
    PresetError::Parse { source_name: source_name.into(), line, column, field, problem, allowed }
}

/// Byte offset of 1-based (line, column in chars) in `text`.
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut off = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            return off + l.char_indices().nth(column.saturating_sub(1)).map(|(b, _)| b).unwrap_or(l.len());
        }
        off += l.len();
    }
    text.len()
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map(|l| l.chars().count()).unwrap_or(0) + 1;
    (line, col)
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Occurrences of `key:` (a whole identifier followed by a colon) at or after `from`.
fn find_key(text: &str, key: &str, from: usize) -> Option<usize> {
    let mut start = from;
    while let Some(i) = text.get(start..)?.find(key) {
        let at = start + i;
        let before_ok = text[..at].chars().next_back().is_none_or(|c| !is_ident(c));
        let after = &text[at + key.len()..];
        let after_ok = after.trim_start().starts_with(':') && after.chars().next().is_none_or(|c| !is_ident(c));
        if before_ok && after_ok {
            return Some(at);
        }
        start = at + key.len();
    }
    None
}

/// Line:column of the last key of `path`, each found after the one before.
fn locate_path(text: &str, path: &[&str]) -> Option<(usize, usize)> {
    let mut at = 0;
    for key in path {
        at = find_key(text, key, at)?;
    }
    Some(line_col(text, at))
}

/// Locates a flat field name (`height_octaves`) or path (`biomes.table[2].surface_block`).
fn locate_flat_field(text: &str, field: &str) -> Option<(usize, usize)> {
    let path: Vec<&str> = field.split(['.', '[', ']']).filter(|s| !s.is_empty() && !s.chars().all(|c| c.is_ascii_digit())).collect();
    if path.len() > 1 {
        return locate_path(text, &path);
    }
    let (group, key) = field.split_once('_')?;
    locate_path(text, &[group, key]).or_else(|| locate_path(text, &[field]))
}

/// The identifier of the nearest `name:` before (line, column): the field an error is in.
fn field_before(text: &str, line: usize, column: usize) -> String {
    let end = offset_of(text, line, column);
    let before = &text[..end];
    let mut search = before.len();
    while let Some(colon) = before[..search].rfind(':') {
        let head = before[..colon].trim_end();
        let ident: String = head.chars().rev().take_while(|&c| is_ident(c)).collect::<Vec<_>>().into_iter().rev().collect();
        if !ident.is_empty() && !ident.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            return ident;
        }
        search = colon;
    }
    String::new()
}

/// Reads and parses a preset file: `.tres` as Godot text, anything else as RON.
pub fn load_preset_file(path: &Path) -> Result<WorldPreset, PresetError> {
    let name = path.display().to_string();
    let io = |action, error| PresetError::Io { source_name: name.clone(), action, error };
    let meta = std::fs::metadata(path).map_err(|e| io("read", e))?;
    if meta.len() > MAX_PRESET_BYTES {
        return Err(PresetError::Parse {
            source_name: name.clone(),
            line: 0,
            column: 0,
            field: String::new(),
            problem: format!("the file is {} bytes", meta.len()),
            allowed: format!("at most {MAX_PRESET_BYTES} bytes"),
        });
    }
    let bytes = std::fs::read(path).map_err(|e| io("read", e))?;
    let text = text_from_bytes(&bytes, &name)?;
    if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("tres")) {
        preset_from_tres_text(text, &name)
    } else {
        preset_from_ron(text, &name)
    }
}

/// `bytes` as UTF-8 text, or an error with the byte offset of the first bad byte.
pub fn text_from_bytes<'a>(bytes: &'a [u8], source_name: &str) -> Result<&'a str, PresetError> {
    std::str::from_utf8(bytes).map_err(|e| {
        let (line, column) = line_col(std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or(""), e.valid_up_to());
        PresetError::Parse {
            source_name: source_name.into(),
            line,
            column,
            field: String::new(),
            problem: format!("invalid UTF-8 at byte offset {} (binary file?)", e.valid_up_to()),
            allowed: "UTF-8 text".into(),
        }
    })
}

/// Writes `preset` atomically: `.tres` as Godot text, anything else as versioned RON. Invalid
/// presets are refused and the existing file is left alone.
pub fn save_preset_file(path: &Path, preset: &WorldPreset) -> Result<(), PresetError> {
    let name = path.display().to_string();
    validated(preset.clone(), "", &name)?;
    let text = if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("tres")) { preset_to_tres_text(preset) } else { preset_to_ron(preset) };
    write_atomic(path, text.as_bytes()).map_err(|error| PresetError::Io { source_name: name, action: "write", error })
}

/// A copy of `preset` with another seed: every other setting is kept.
pub fn with_new_seed(preset: &WorldPreset, seed: u64) -> WorldPreset {
    WorldPreset { seed, ..preset.clone() }
}

// ------------------------------------------------------------------------------------------------
// Godot .tres text

/// Keys Godot writes for every resource; they carry nothing of the world and are skipped.
fn is_resource_builtin(key: &str) -> bool {
    matches!(key, "resource_name" | "resource_local_to_scene" | "resource_path" | "resource_scene_unique_id") || key.starts_with("metadata/")
}

/// The preset as a Godot text resource of a `WorldPreset` (every table field, `[resource]`).
pub fn preset_to_tres_text(preset: &WorldPreset) -> String {
    let mut s = String::from("[gd_resource type=\"WorldPreset\" format=3]\n\n[resource]\n");
    for f in FIELDS {
        let v = match (f.get)(preset) {
            FieldValue::Int(i) => i.to_string(),
            FieldValue::Float(x) => godot_float(x),
            FieldValue::Bool(b) => b.to_string(),
            FieldValue::Text(t) => godot_string(&t),
        };
        let _ = writeln!(s, "{} = {v}", f.name);
    }
    s
}

fn godot_float(x: f64) -> String {
    if x.is_nan() {
        "nan".into()
    } else if x.is_infinite() {
        if x > 0.0 { "inf".into() } else { "-inf".into() }
    } else {
        // Shortest text that reads back to the same f32 (the fields are f32 in the core).
        let f = x as f32;
        if (f as f64) == x {
            let s = format!("{f:?}");
            if s.contains(['.', 'e']) { s } else { format!("{s}.0") }
        } else {
            format!("{x:?}")
        }
    }
}

fn godot_string(t: &str) -> String {
    let mut s = String::with_capacity(t.len() + 2);
    s.push('"');
    for c in t.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            '\t' => s.push_str("\\t"),
            '\r' => s.push_str("\\r"),
            c => s.push(c),
        }
    }
    s.push('"');
    s
}

/// Parses a Godot text resource of a `WorldPreset`: the `[resource]` section's `name = value`
/// lines (int, float, bool, "string"); fields not listed keep their defaults. External or
/// embedded resources and scripts are refused (a `.tres` can carry code; a preset never does).
pub fn preset_from_tres_text(text: &str, source_name: &str) -> Result<WorldPreset, PresetError> {
    let err = |line: usize, field: &str, problem: String, allowed: &str| PresetError::Parse {
        source_name: source_name.into(),
        line,
        column: 1,
        field: field.into(),
        problem,
        allowed: allowed.into(),
    };
    let mut preset = WorldPreset::default();
    let mut section: Option<String> = None;
    let mut saw_header = false;
    let mut saw_resource = false;
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with(';') {
            continue;
        }
        if line.starts_with('[') {
            if !line.ends_with(']') {
                return Err(err(line_no, "", format!("unterminated section header `{}`", clip(line)), "[gd_resource ...] or [resource]"));
            }
            let inner = &line[1..line.len() - 1];
            let tag = inner.split_whitespace().next().unwrap_or("");
            match tag {
                "gd_resource" if !saw_header && section.is_none() => {
                    let ty = attr(inner, "type");
                    if ty.as_deref() != Some("WorldPreset") {
                        return Err(err(line_no, "type", format!("resource type {}", ty.map(|t| format!("`{t}`")).unwrap_or("missing".into())), "type=\"WorldPreset\""));
                    }
                    saw_header = true;
                }
                "resource" if saw_header && !saw_resource => saw_resource = true,
                "ext_resource" | "sub_resource" => {
                    return Err(err(line_no, "", format!("`[{tag}]` sections are not part of a preset"), "a WorldPreset with only [resource] field lines"));
                }
                _ => return Err(err(line_no, "", format!("unexpected section `[{}]`", clip(inner)), "[gd_resource type=\"WorldPreset\" format=3] then [resource]")),
            }
            section = Some(tag.to_string());
            continue;
        }
        if section.as_deref() != Some("resource") {
            return Err(err(line_no, "", format!("`{}` outside the [resource] section", clip(line)), "field lines under [resource]"));
        }
        let Some((key, value)) = line.split_once('=') else {
            return Err(err(line_no, "", format!("`{}` is not a `name = value` line", clip(line)), "name = value"));
        };
        let key = key.trim();
        let value = value.trim();
        if is_resource_builtin(key) {
            continue;
        }
        if key == "script" {
            return Err(err(line_no, "script", "a script is attached".into(), "a WorldPreset without a script"));
        }
        let Some(spec) = crate::preset::model::field(key) else {
            return Err(err(line_no, key, format!("unknown field `{key}` (made by a newer Strata, or misspelt?)"), "a field listed in WorldPreset.field_names()"));
        };
        let v = parse_godot_value(value).map_err(|p| err(line_no, key, p, &spec.allowed()))?;
        let v = match (spec.kind, v) {
            // Godot writes enum properties as ints; accept their option names too.
            (FieldKind::Enum { .. }, FieldValue::Text(t)) => FieldValue::Text(t),
            (_, v) => v,
        };
        if let Err(e) = preset.set_field(key, v) {
            return Err(PresetError::Invalid { source_name: source_name.into(), line: line_no, column: 1, field: e.field, problem: e.problem, allowed: e.allowed });
        }
    }
    if !saw_header {
        return Err(err(1, "", "no `[gd_resource type=\"WorldPreset\" ...]` header (empty or not a .tres file?)".into(), "a Godot text resource of type WorldPreset"));
    }
    validated(preset, "", source_name)
}

fn clip(s: &str) -> String {
    if s.chars().count() > 60 { format!("{}…", s.chars().take(60).collect::<String>()) } else { s.to_string() }
}

/// The value of `name="..."` in a section header.
fn attr(inner: &str, name: &str) -> Option<String> {
    let pat = format!("{name}=\"");
    let i = inner.find(&pat)? + pat.len();
    let rest = &inner[i..];
    Some(rest[..rest.find('"')?].to_string())
}

fn parse_godot_value(v: &str) -> Result<FieldValue, String> {
    match v {
        "true" => return Ok(FieldValue::Bool(true)),
        "false" => return Ok(FieldValue::Bool(false)),
        "nan" => return Ok(FieldValue::Float(f64::NAN)),
        "inf" => return Ok(FieldValue::Float(f64::INFINITY)),
        "-inf" | "inf_neg" => return Ok(FieldValue::Float(f64::NEG_INFINITY)),
        _ => {}
    }
    let quoted = v.strip_prefix("&\"").or_else(|| v.strip_prefix('"'));
    if let Some(body) = quoted {
        return unescape(body).map(FieldValue::Text);
    }
    if v.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+' || c == '.') {
        if !v.contains(['.', 'e', 'E']) {
            if let Ok(i) = v.parse::<i64>() {
                return Ok(FieldValue::Int(i));
            }
            // Seeds above i64::MAX written as unsigned.
            if let Ok(u) = v.parse::<u64>() {
                return Ok(FieldValue::Int(u as i64));
            }
        }
        if let Ok(f) = v.parse::<f64>() {
            return Ok(FieldValue::Float(f));
        }
    }
    Err(format!("`{}` is not an int, float, bool or \"string\" value", clip(v)))
}

/// Undoes Godot string escapes; `body` is the text after the opening quote.
fn unescape(body: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                let rest: String = chars.collect();
                return if rest.trim().is_empty() { Ok(out) } else { Err(format!("unexpected `{}` after the string", clip(rest.trim()))) };
            }
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('r') => out.push('\r'),
                Some('"') => out.push('"'),
                Some('\\') => out.push('\\'),
                Some(o) => return Err(format!("unknown escape `\\{o}`")),
                None => break,
            },
            c => out.push(c),
        }
    }
    Err("unterminated string (strings must end on the same line)".into())
}

// ------------------------------------------------------------------------------------------------
// Fingerprint

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// 64-bit FNV-1a.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(FNV_OFFSET, |h, &b| (h ^ b as u64).wrapping_mul(FNV_PRIME))
}

/// The settings against which [`fingerprint`] prunes: the version-1 defaults, frozen. Fields
/// added later are absent here and take their defaults when it is read.
pub const FINGERPRINT_BASELINE: &str = r#"(
    height: (
        base_height: 8.0,
        amplitude: 40.0,
        scale: 320.0,
        octaves: 5,
        persistence: 0.5,
        lacunarity: 2.0,
        perlin_weight: 1.0,
        simplex_weight: 0.0,
        ridged_weight: 0.0,
        value_weight: 0.0,
        value_interpolation: Cosine,
        diamond_square_weight: 0.0,
        diamond_square_cell_log2: 7,
        diamond_square_roughness: 0.6,
        ravine_depth: 0.0,
        ravine_width: 4.0,
        ravine_spacing: 512.0,
        ravine_roughness: 0.55,
        heightmap_weight: 0.0,
        heightmap_path: "",
        heightmap_cell_size: 4.0,
        heightmap_wrap: Tile,
    ),
    biomes: (
        enabled: true,
        cell_size: 384.0,
        blend_distance: 32.0,
        climate_scale: 1024.0,
        rock_slope: 1.6,
        table: [
            (
                name: "plains",
                surface_block: "grass",
                subsurface_block: "dirt",
                height_offset: 0.0,
                height_scale: 0.6,
                tree_density: 0.05,
                flower_density: 0.5,
                color: (0.45, 0.75, 0.3),
                temperature: 0.55,
                moisture: 0.45,
            ),
            (
                name: "forest",
                surface_block: "grass",
                subsurface_block: "dirt",
                height_offset: 4.0,
                height_scale: 1.0,
                tree_density: 0.6,
                flower_density: 0.2,
                color: (0.15, 0.5, 0.15),
                temperature: 0.5,
                moisture: 0.75,
            ),
            (
                name: "desert",
                surface_block: "sand",
                subsurface_block: "sandstone",
                height_offset: -2.0,
                height_scale: 0.5,
                tree_density: 0.0,
                flower_density: 0.02,
                color: (0.9, 0.8, 0.5),
                temperature: 0.9,
                moisture: 0.1,
            ),
            (
                name: "mountains",
                surface_block: "stone",
                subsurface_block: "stone",
                height_offset: 24.0,
                height_scale: 1.8,
                tree_density: 0.05,
                flower_density: 0.05,
                color: (0.55, 0.55, 0.55),
                temperature: 0.3,
                moisture: 0.4,
            ),
            (
                name: "tundra",
                surface_block: "snow",
                subsurface_block: "dirt",
                height_offset: 6.0,
                height_scale: 1.1,
                tree_density: 0.1,
                flower_density: 0.0,
                color: (0.9, 0.92, 0.96),
                temperature: 0.05,
                moisture: 0.5,
            ),
            (
                name: "taiga",
                surface_block: "podzol",
                subsurface_block: "dirt",
                height_offset: 3.0,
                height_scale: 0.9,
                tree_density: 0.45,
                flower_density: 0.05,
                color: (0.25, 0.45, 0.35),
                temperature: 0.2,
                moisture: 0.7,
            ),
            (
                name: "badlands",
                surface_block: "red_sand",
                subsurface_block: "sandstone",
                height_offset: 6.0,
                height_scale: 1.2,
                tree_density: 0.0,
                flower_density: 0.0,
                color: (0.8, 0.45, 0.22),
                temperature: 0.85,
                moisture: 0.3,
            ),
        ],
    ),
    caves: (
        mode: CellularAutomata,
        fill_probability: 0.45,
        passes: 4,
        threshold: 14,
        final_passes: 1,
        final_threshold: 16,
        life_rule: "B14-19/S13-26",
        cell_size: 2,
        min_depth: 6,
        min_pocket_volume: 16,
        tunnel_strength: 0.5,
        tunnel_scale: 96.0,
        tunnel_width: 0.08,
        allow_surface_breach: false,
    ),
    ores: (
        enabled: true,
        kinds: [
            (
                block: "coal_ore",
                min_depth: 6,
                clusters_per_chunk_min: 3,
                clusters_per_chunk_max: 8,
                cluster_size: 10,
            ),
            (
                block: "iron_ore",
                min_depth: 16,
                clusters_per_chunk_min: 2,
                clusters_per_chunk_max: 5,
                cluster_size: 7,
            ),
            (
                block: "gold_ore",
                min_depth: 40,
                clusters_per_chunk_min: 0,
                clusters_per_chunk_max: 2,
                cluster_size: 5,
            ),
            (
                block: "diamond_ore",
                min_depth: 64,
                clusters_per_chunk_min: 0,
                clusters_per_chunk_max: 1,
                cluster_size: 4,
            ),
        ],
    ),
    water: (
        enabled: true,
        sea_level: 0,
    ),
    scatter: (
        enabled: true,
        density: 1.0,
        density_scale: 96.0,
        trees: true,
        bushes: true,
        flowers: true,
        rocks: true,
    ),
    side_view: (
        surface_source: ValueNoiseCosine,
        base_height: 0.0,
        amplitude: 24.0,
        scale: 256.0,
        octaves: 5,
        persistence: 0.5,
        roughness: 0.55,
        initial_range: 0.5,
        dirt_depth: 4,
        cave_mode: CellularAutomata,
        cave_depth: 10,
        cave_rock_probability: 0.5,
        cave_passes: 4,
        cave_threshold: 5,
        cave_final_passes: 1,
        cave_final_threshold: 5,
        cave_life_rule: "B678/S345678",
        min_pocket_tiles: 12,
        ore_depth: 6,
        water_enabled: true,
        max_pool_width: 32,
        chunk_tiles: 64,
    ),
)"#;

fn strip_identity(p: &WorldPreset) -> WorldPreset {
    WorldPreset { name: String::new(), seed: 0, ..p.clone() }
}

/// The frozen baseline as a value tree (the current defaults if this build cannot read it).
fn baseline() -> &'static Option<toml::Value> {
    static BASELINE: std::sync::OnceLock<Option<toml::Value>> = std::sync::OnceLock::new();
    BASELINE.get_or_init(|| {
        let p = ron::from_str::<WorldPreset>(FINGERPRINT_BASELINE).unwrap_or_default();
        toml::Value::try_from(strip_identity(&p)).ok()
    })
}

/// The canonical text hashed by [`fingerprint`]: `seed=…` then every setting that differs from
/// [`FINGERPRINT_BASELINE`] as sorted `path=value` lines (name excluded).
pub fn canonical_text(preset: &WorldPreset) -> String {
    let mut out = format!("strata-preset-fingerprint v1\nseed={}\n", preset.seed);
    let (Ok(now), Some(base)) = (toml::Value::try_from(strip_identity(preset)), baseline()) else {
        // Unreachable for plain data; fall back to the full RON text.
        out.push_str(&ron::to_string(&strip_identity(preset)).unwrap_or_default());
        return out;
    };
    diff_lines(&now, Some(base), "", &mut out);
    out
}

/// The part of `now` that differs from `base` (tables recursively, other values whole).
fn diff_tree(now: &toml::Value, base: Option<&toml::Value>) -> Option<toml::Value> {
    match (now, base) {
        (toml::Value::Table(t), Some(toml::Value::Table(b))) => {
            let mut out = toml::Table::new();
            for (k, v) in t {
                if let Some(d) = diff_tree(v, b.get(k.as_str())) {
                    out.insert(k.clone(), d);
                }
            }
            (!out.is_empty()).then_some(toml::Value::Table(out))
        }
        (v, Some(b)) if v == b => None,
        (v, _) => Some(v.clone()),
    }
}

fn merge_tree(base: &mut toml::Table, changes: toml::Table) {
    for (k, v) in changes {
        match (base.get_mut(k.as_str()), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(c)) => merge_tree(b, c),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

#[derive(Serialize)]
struct SparseOut<'a> {
    name: &'a str,
    seed: u64,
    changes: toml::Table,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SparseIn {
    name: String,
    seed: u64,
    changes: toml::Table,
}

/// Compact RON of `preset` as its differences from [`FINGERPRINT_BASELINE`] (plus name and
/// seed): a complete description, since the baseline never changes, and a few bytes for a
/// preset close to the defaults. Used by world saves.
pub fn preset_to_sparse_ron(preset: &WorldPreset) -> String {
    let changes = match (toml::Value::try_from(strip_identity(preset)), baseline()) {
        (Ok(now), Some(base)) => match diff_tree(&now, Some(base)) {
            Some(toml::Value::Table(t)) => t,
            _ => toml::Table::new(),
        },
        (Ok(toml::Value::Table(t)), None) => t,
        _ => toml::Table::new(),
    };
    ron::to_string(&SparseOut { name: &preset.name, seed: preset.seed, changes }).unwrap_or_default()
}

/// Reads [`preset_to_sparse_ron`] text and validates the preset.
pub fn preset_from_sparse_ron(text: &str, source_name: &str) -> Result<WorldPreset, PresetError> {
    let sparse: SparseIn = ron::from_str(text).map_err(|e| ron_error(e, text, source_name))?;
    let mut tree = match baseline() {
        Some(toml::Value::Table(t)) => t.clone(),
        _ => toml::Table::new(),
    };
    merge_tree(&mut tree, sparse.changes);
    let mut preset: WorldPreset = toml::Value::Table(tree).try_into().map_err(|e: toml::de::Error| {
        let msg = e.message().to_string();
        let field = msg.split('`').nth(1).unwrap_or("").to_string();
        PresetError::Parse {
            source_name: source_name.into(),
            line: 0,
            column: 0,
            field,
            problem: msg.trim().to_string(),
            allowed: "settings of this Strata's WorldPreset".into(),
        }
    })?;
    preset.name = sparse.name;
    preset.seed = sparse.seed;
    validated(preset, "", source_name)
}

fn diff_lines(v: &toml::Value, default: Option<&toml::Value>, path: &str, out: &mut String) {
    if let toml::Value::Table(t) = v {
        let mut keys: Vec<&String> = t.keys().collect();
        keys.sort();
        for k in keys {
            let d = default.and_then(|d| d.as_table()).and_then(|d| d.get(k.as_str()));
            let p = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
            diff_lines(&t[k.as_str()], d, &p, out);
        }
    } else if default != Some(v) {
        let _ = writeln!(out, "{path}={}", canonical_value(v));
    }
}

fn canonical_value(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => format!("{s:?}"),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(f) => format!("{:?}", *f as f32),
        toml::Value::Boolean(b) => b.to_string(),
        toml::Value::Datetime(d) => d.to_string(),
        toml::Value::Array(a) => format!("[{}]", a.iter().map(canonical_value).collect::<Vec<_>>().join(",")),
        toml::Value::Table(t) => {
            let mut keys: Vec<&String> = t.keys().collect();
            keys.sort();
            format!("{{{}}}", keys.iter().map(|k| format!("{k}={}", canonical_value(&t[k.as_str()]))).collect::<Vec<_>>().join(","))
        }
    }
}

/// A stable 16-hex-digit hash of everything that shapes the world (seed and settings, not the
/// name): same fingerprint, same world.
pub fn fingerprint(preset: &WorldPreset) -> String {
    format!("{:016x}", fnv1a64(canonical_text(preset).as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ron_round_trip_keeps_everything() {
        let mut p = WorldPreset { name: "Round \"trip\"".into(), seed: u64::MAX - 3, ..WorldPreset::default() };
        p.height.octaves = 7;
        let text = preset_to_ron(&p);
        assert!(text.contains("format: \"strata-preset\""), "{text}");
        assert_eq!(preset_from_ron(&text, "t.ron").unwrap(), p);
    }

    #[test]
    fn tres_round_trip_keeps_table_fields() {
        let mut p = WorldPreset { seed: 99, name: "a\\b \"c\"".into(), ..WorldPreset::default() };
        p.caves.mode = crate::preset::model::CaveMode::GameOfLife;
        p.height.scale = 123.25;
        let text = preset_to_tres_text(&p);
        let back = preset_from_tres_text(&text, "t.tres").unwrap();
        assert_eq!(back, p);
        assert_eq!(fingerprint(&back), fingerprint(&p));
    }

    #[test]
    fn fingerprint_ignores_name_and_follows_seed_and_settings() {
        let p = WorldPreset::default();
        let f = fingerprint(&p);
        assert_eq!(f.len(), 16);
        assert_eq!(fingerprint(&WorldPreset { name: "x".into(), ..p.clone() }), f);
        assert_ne!(fingerprint(&with_new_seed(&p, 5)), f);
        let mut q = p.clone();
        q.height.amplitude += 1.0;
        assert_ne!(fingerprint(&q), f);
    }

    #[test]
    fn sparse_ron_round_trips_and_is_small() {
        let mut p = WorldPreset { name: "S".into(), seed: u64::MAX, ..WorldPreset::default() };
        p.height.octaves = 9;
        p.biomes.table.pop();
        let text = preset_to_sparse_ron(&p);
        assert_eq!(preset_from_sparse_ron(&text, "s").unwrap(), p);
        assert!(preset_to_sparse_ron(&WorldPreset::default()).len() < 400);
        let e = preset_from_sparse_ron("(name: \"x\", seed: 1, changes: {\"height\": {\"warp\": 1}})", "s").unwrap_err();
        assert_eq!(e.field(), "warp", "{e}");
    }

    #[test]
    fn the_fingerprint_baseline_reads() {
        ron::from_str::<WorldPreset>(FINGERPRINT_BASELINE).expect("FINGERPRINT_BASELINE must stay readable");
        assert!(baseline().is_some());
    }

    #[test]
    fn validation_errors_are_located() {
        let text = preset_to_ron(&WorldPreset::default()).replace("octaves: 5", "octaves: 1000");
        let e = preset_from_ron(&text, "p.ron").unwrap_err();
        let m = e.to_string();
        assert!(m.contains("p.ron:") && m.contains("height_octaves") && m.contains("1..=12"), "{m}");
    }
}
