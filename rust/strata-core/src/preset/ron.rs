//! The versioned RON sharing format of a [`WorldPreset`], and where in RON text an error is.
//!
//! A shared preset file looks like
//!
//! ```ron
//! (
//!     format: "strata-preset",
//!     version: 2,
//!     preset: (name: "Archipelago", seed: 7, height: (base_height: -6.0, ...), ...),
//! )
//! ```
//!
//! Versioning: a file whose `version` is above [`PRESET_VERSION`] is refused with "made by a newer
//! Strata"; fields missing from a file take the defaults of its version: today's
//! (`#[serde(default)]`), except that a version-1 file (or a bare body, which has no version and
//! is read as version 1) gets the format-1 default of each setting whose default changed since
//! ([`crate::preset::migrate`]). Files written now store every setting. A field
//! this build does not know is reported by name, with line:column and the fields it does know.
//! A bare preset (the `preset: (...)` body alone) is read too. Every load ends with
//! [`WorldPreset::validate`] (`validated`), so an out-of-range value names the field and its
//! allowed range; the other formats validate through the same function.
//!
//! May use: `preset::model`, `preset::error`, `preset::migrate`.

use crate::preset::error::PresetError;
use crate::preset::migrate::{PRESET_FORMAT_VERSION, apply_format_defaults};
use crate::preset::model::WorldPreset;
use serde::{Deserialize, Serialize};

/// The `format` tag of a preset file.
pub const PRESET_FORMAT: &str = "strata-preset";
/// The newest preset file version this build reads and the one it writes.
pub const PRESET_VERSION: u32 = PRESET_FORMAT_VERSION;

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
            // A bare preset body: no version, read as version 1.
            let mut preset = ron::from_str::<WorldPreset>(text).map_err(|e| ron_error(e, text, source_name))?;
            migrate(&mut preset, 1, text, &[]);
            preset
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
            let mut preset = ron::from_str::<PresetFileIn>(text).map_err(|e| ron_error(e, text, source_name))?.preset;
            if found < PRESET_VERSION as f64 {
                migrate(&mut preset, found as u32, text, &["preset"]);
            }
            preset
        }
    };
    validated(preset, text, source_name)
}

/// Gives the settings a document of an older `format` (`text`, its preset body under `path`)
/// leaves out the defaults of that format. `text` already parsed as a preset, so it parses as a
/// value too.
fn migrate(preset: &mut WorldPreset, format: u32, text: &str, path: &[&str]) {
    let Ok(mut doc) = ron::from_str::<ron::Value>(text) else { return };
    for key in path {
        doc = field_of(&doc, key).cloned().unwrap_or(ron::Value::Unit);
    }
    apply_format_defaults(preset, format, |section, key| {
        field_of(&doc, section).and_then(|s| field_of(s, key)).is_some()
    });
}

/// The value of field `key` of a RON struct or map value.
fn field_of<'a>(value: &'a ron::Value, key: &str) -> Option<&'a ron::Value> {
    match value {
        ron::Value::Map(map) => {
            map.iter().find(|(k, _)| matches!(k, ron::Value::String(s) if s == key)).map(|(_, v)| v)
        }
        _ => None,
    }
}

/// Runs [`WorldPreset::validate`] and turns its error into a [`PresetError::Invalid`] located in
/// `text` where possible.
pub(crate) fn validated(preset: WorldPreset, text: &str, source_name: &str) -> Result<WorldPreset, PresetError> {
    match preset.validate() {
        Ok(()) => Ok(preset),
        Err(e) => {
            let (line, column) = locate_flat_field(text, &e.field).unwrap_or((0, 0));
            Err(PresetError::Invalid {
                source_name: source_name.into(),
                line,
                column,
                field: e.field,
                problem: e.problem,
                allowed: e.allowed,
            })
        }
    }
}

fn short_value(v: &ron::Value) -> String {
    let s = ron::to_string(v).unwrap_or_else(|_| "value".into());
    if s.chars().count() > 40 { format!("{}…", s.chars().take(40).collect::<String>()) } else { s }
}

/// Turns a ron error into a [`PresetError::Parse`] with the field it concerns where known.
pub(crate) fn ron_error(e: ron::error::SpannedError, text: &str, source_name: &str) -> PresetError {
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
        E::NoSuchEnumVariant { expected, found, .. } => {
            (near, format!("`{found}` is not an option"), format!("one of {}", list(expected)))
        }
        E::DuplicateStructField { field, .. } => {
            (field.to_string(), format!("`{field}` appears twice"), "each field once".into())
        }
        E::MissingStructField { field, .. } => {
            (field.to_string(), format!("`{field}` is missing"), "the field with a value".into())
        }
        E::InvalidValueForType { expected, found } => (near, format!("found {found}"), expected.clone()),
        E::IntegerOutOfBounds => {
            (near, "integer out of bounds for this field".into(), "an integer the field's type holds".into())
        }
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

pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
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
    let path: Vec<&str> =
        field.split(['.', '[', ']']).filter(|s| !s.is_empty() && !s.chars().all(|c| c.is_ascii_digit())).collect();
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
        let ident: String =
            head.chars().rev().take_while(|&c| is_ident(c)).collect::<Vec<_>>().into_iter().rev().collect();
        if !ident.is_empty() && !ident.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            return ident;
        }
        search = colon;
    }
    String::new()
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
    fn validation_errors_are_located() {
        let text = preset_to_ron(&WorldPreset::default()).replace("octaves: 8", "octaves: 1000");
        let e = preset_from_ron(&text, "p.ron").unwrap_err();
        let m = e.to_string();
        assert!(m.contains("p.ron:") && m.contains("height_octaves") && m.contains("1..=12"), "{m}");
    }

    #[test]
    fn version_1_and_bare_files_read_the_defaults_of_format_1() {
        let old = preset_from_ron("(format: \"strata-preset\", version: 1, preset: (seed: 3))", "a.ron").unwrap();
        assert_eq!(old, WorldPreset { seed: 3, ..WorldPreset::format1_default() });
        let bare = preset_from_ron("(seed: 3)", "b.ron").unwrap();
        assert_eq!(bare, old);
        let two = preset_from_ron("(format: \"strata-preset\", version: 2, preset: (seed: 3))", "c.ron").unwrap();
        assert_eq!(two, WorldPreset { seed: 3, ..WorldPreset::format_default(2) });
        assert_eq!((two.biomes.warp_strength, two.biomes.transition_width), (0.0, 0.0), "format 2's borders");
        let kept = "(format: \"strata-preset\", version: 2, preset: (seed: 3, biomes: (warp_strength: 5.0)))";
        assert_eq!(preset_from_ron(kept, "k.ron").unwrap().biomes.warp_strength, 5.0, "a setting given stays");
        let new = preset_from_ron("(format: \"strata-preset\", version: 3, preset: (seed: 3))", "e.ron").unwrap();
        assert_eq!(new, WorldPreset { seed: 3, ..WorldPreset::default() });
        let p = WorldPreset { seed: 3, ..WorldPreset::default() };
        assert_eq!(preset_from_ron(&preset_to_ron(&p), "d.ron").unwrap(), p, "written files keep today's values");
    }
}
