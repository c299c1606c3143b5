//! Godot `.tres` text of a [`WorldPreset`]: what the editor saves, read back without Godot.
//!
//! Written and read through the field table ([`FIELDS`]), so every field the inspector shows is
//! in the file. A biome table other than the default travels as one more line,
//! [`BIOME_TABLE_KEY`], holding the table as RON text (a list of biome rows), and structure rules as
//! [`STRUCTURE_RULES_KEY`] (a RON list of rules), spawn rules as [`SPAWN_RULES_KEY`], ore kinds
//! other than the default ones as [`ORE_KINDS_KEY`]. A `.tres` can carry code; a preset never does, so scripts and external or
//! embedded resources are refused.
//!
//! The preset format travels as [`PRESET_FORMAT_KEY`]: `preset_format = 3` from this writer, and
//! `preset_format = null` from Godot's (which leaves out every property at its default but always
//! writes this one), with `preset_format_3 = null` beside it from format 3 on
//! ([`PRESET_FORMAT_3_MARK`]). A file without it is of format 1, a `null` without the mark of
//! format 2: the settings it leaves out get the defaults of its format
//! ([`crate::preset::migrate`]).
//!
//! May use: `preset::model`, `preset::error`, `preset::ron` (validation), `preset::migrate`.

use crate::preset::error::PresetError;
use crate::preset::fields::{FIELDS, FieldKind, FieldValue};
use crate::preset::migrate::{PRESET_FORMAT_VERSION, apply_format_defaults};
use crate::preset::model::{
    Biome, OreKind, OreSettings, SpawnRule, StructureRule, TreeSettings, WorldPreset, default_biomes,
};
use crate::preset::ron::validated;
use std::fmt::Write as _;

/// The Godot class a preset resource is saved as.
pub const PRESET_CLASS: &str = "StrataWorldPreset";

/// The class name Strata 0.2 saved presets as (before every class took the `Strata` prefix):
/// still read, never written.
pub const PRESET_CLASS_0_2: &str = "WorldPreset";

/// The `.tres` key (and the Godot `WorldPreset` storage property) of the preset format: an int,
/// or `null` as Godot writes it (then format 2, or 3 with [`PRESET_FORMAT_3_MARK`] beside it).
pub const PRESET_FORMAT_KEY: &str = "preset_format";

/// A storage-only key Godot's saver writes (`preset_format_3 = null`, as it writes
/// [`PRESET_FORMAT_KEY`]) from preset format 3 on: Godot stores only a null in every file, so a
/// second null property is what tells a format-3 file from a format-2 one.
pub const PRESET_FORMAT_3_MARK: &str = "preset_format_3";

/// The `.tres` key (and the Godot `WorldPreset` storage property) of a biome table other than the
/// default one: the rows as a RON list, `[(name: "plains", surface_block: "grass", ...), ...]`.
pub const BIOME_TABLE_KEY: &str = "biomes_table_ron";

/// The biome table of `preset` as the RON text of [`BIOME_TABLE_KEY`]; empty for the default
/// table (which a file then leaves out).
pub fn biome_table_to_ron(preset: &WorldPreset) -> String {
    if preset.biomes.table == default_biomes() {
        return String::new();
    }
    ron::to_string(&preset.biomes.table).unwrap_or_default()
}

/// Reads the RON list of biome rows of [`BIOME_TABLE_KEY`] (empty text: the default table). The
/// error names the row field RON stopped at and what RON expected.
pub fn biome_table_from_ron(text: &str) -> Result<Vec<Biome>, String> {
    if text.trim().is_empty() {
        return Ok(default_biomes());
    }
    ron::from_str::<Vec<Biome>>(text).map_err(|e| {
        let (line, col) = (e.span.start.line, e.span.start.col);
        format!("{} at line {line}, column {col} of the biome table text", e.code)
    })
}

/// The `.tres` key (and the Godot `WorldPreset` storage property) of the structure rules, when
/// there are any: `[(structure: "cottage", placement: Surface, spacing: 96, chance: 0.4), ...]`.
pub const STRUCTURE_RULES_KEY: &str = "structure_rules_ron";

/// The structure rules of `preset` as the RON text of [`STRUCTURE_RULES_KEY`]; empty for none.
pub fn structure_rules_to_ron(preset: &WorldPreset) -> String {
    if preset.structures.rules.is_empty() {
        return String::new();
    }
    ron::to_string(&preset.structures.rules).unwrap_or_default()
}

/// Reads the RON list of [`STRUCTURE_RULES_KEY`] (empty text: no rules). The error names where
/// RON stopped and what it expected.
pub fn structure_rules_from_ron(text: &str) -> Result<Vec<StructureRule>, String> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    ron::from_str::<Vec<StructureRule>>(text).map_err(|e| {
        let (line, col) = (e.span.start.line, e.span.start.col);
        format!("{} at line {line}, column {col} of the structure rules text", e.code)
    })
}

/// The `.tres` key (and the Godot `WorldPreset` storage property) of the spawn rules, when there
/// are any: `[(scene: "res://mobs/deer.tscn", habitat: Surface, density: 0.5), ...]`.
pub const SPAWN_RULES_KEY: &str = "spawn_rules_ron";

/// The spawn rules of `preset` as the RON text of [`SPAWN_RULES_KEY`]; empty for none.
pub fn spawn_rules_to_ron(preset: &WorldPreset) -> String {
    if preset.spawns.rules.is_empty() {
        return String::new();
    }
    ron::to_string(&preset.spawns.rules).unwrap_or_default()
}

/// Reads the RON list of [`SPAWN_RULES_KEY`] (empty text: no rules). The error names where RON
/// stopped and what it expected.
pub fn spawn_rules_from_ron(text: &str) -> Result<Vec<SpawnRule>, String> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    ron::from_str::<Vec<SpawnRule>>(text).map_err(|e| {
        let (line, col) = (e.span.start.line, e.span.start.col);
        format!("{} at line {line}, column {col} of the spawn rules text", e.code)
    })
}

/// The `.tres` key of an ore list other than the default one: the kinds as a RON list,
/// `[(block: "coal_ore", min_depth: 6, clusters_per_chunk_min: 3, ...), ...]`. Written and read
/// by the core (`save_preset_file`, the tools); the Godot resource has no property of that name
/// yet, so a preset saved by the editor still keeps the default ores.
pub const ORE_KINDS_KEY: &str = "ore_kinds_ron";

/// The ore kinds of `preset` as the RON text of [`ORE_KINDS_KEY`]; empty for the default list
/// (which a file then leaves out).
pub fn ore_kinds_to_ron(preset: &WorldPreset) -> String {
    if preset.ores.kinds == OreSettings::default().kinds {
        return String::new();
    }
    ron::to_string(&preset.ores.kinds).unwrap_or_default()
}

/// Reads the RON list of [`ORE_KINDS_KEY`] (empty text: the default list). The error names where
/// RON stopped and what it expected.
pub fn ore_kinds_from_ron(text: &str) -> Result<Vec<OreKind>, String> {
    if text.trim().is_empty() {
        return Ok(OreSettings::default().kinds);
    }
    ron::from_str::<Vec<OreKind>>(text).map_err(|e| {
        let (line, col) = (e.span.start.line, e.span.start.col);
        format!("{} at line {line}, column {col} of the ore kinds text", e.code)
    })
}

/// The `.tres` key of tree settings other than the default ones: the whole `trees` section as
/// RON, `(enabled: true, spacing: 5, species: [(name: "oak", ...), ...])`. Written and read by the
/// core, and by the Godot resource's property of that name (`StrataWorldPreset.tree_settings_ron`).
pub const TREE_SETTINGS_KEY: &str = "tree_settings_ron";

/// The tree settings of `preset` as the RON text of [`TREE_SETTINGS_KEY`]; empty for the
/// default (which a file then leaves out).
pub fn tree_settings_to_ron(preset: &WorldPreset) -> String {
    if preset.trees.is_default() {
        return String::new();
    }
    ron::to_string(&preset.trees).unwrap_or_default()
}

/// Reads the RON of [`TREE_SETTINGS_KEY`] (empty text: the default). The error names where RON
/// stopped and what it expected.
pub fn tree_settings_from_ron(text: &str) -> Result<TreeSettings, String> {
    if text.trim().is_empty() {
        return Ok(TreeSettings::default());
    }
    ron::from_str::<TreeSettings>(text).map_err(|e| {
        let (line, col) = (e.span.start.line, e.span.start.col);
        format!("{} at line {line}, column {col} of the tree settings text", e.code)
    })
}

/// Keys Godot writes for every resource; they carry nothing of the world and are skipped.
fn is_resource_builtin(key: &str) -> bool {
    matches!(key, "resource_name" | "resource_local_to_scene" | "resource_path" | "resource_scene_unique_id")
        || key.starts_with("metadata/")
}

/// The preset as a Godot text resource of a `WorldPreset` (every table field, `[resource]`).
pub fn preset_to_tres_text(preset: &WorldPreset) -> String {
    let mut s = format!("[gd_resource type=\"{PRESET_CLASS}\" format=3]\n\n[resource]\n");
    let _ = writeln!(s, "{PRESET_FORMAT_KEY} = {PRESET_FORMAT_VERSION}");
    for f in FIELDS {
        let v = match (f.get)(preset) {
            FieldValue::Int(i) => i.to_string(),
            FieldValue::Float(x) => godot_float(x),
            FieldValue::Bool(b) => b.to_string(),
            FieldValue::Text(t) => godot_string(&t),
        };
        let _ = writeln!(s, "{} = {v}", f.name);
    }
    let table = biome_table_to_ron(preset);
    if !table.is_empty() {
        let _ = writeln!(s, "{BIOME_TABLE_KEY} = {}", godot_string(&table));
    }
    let rules = structure_rules_to_ron(preset);
    if !rules.is_empty() {
        let _ = writeln!(s, "{STRUCTURE_RULES_KEY} = {}", godot_string(&rules));
    }
    let spawns = spawn_rules_to_ron(preset);
    if !spawns.is_empty() {
        let _ = writeln!(s, "{SPAWN_RULES_KEY} = {}", godot_string(&spawns));
    }
    // Found by fuzzing (strata-fuzz `preset_ron`): a preset's own ore kinds were left out, so
    // saving it as `.tres` gave back the default ores.
    let ores = ore_kinds_to_ron(preset);
    if !ores.is_empty() {
        let _ = writeln!(s, "{ORE_KINDS_KEY} = {}", godot_string(&ores));
    }
    let trees = tree_settings_to_ron(preset);
    if !trees.is_empty() {
        let _ = writeln!(s, "{TREE_SETTINGS_KEY} = {}", godot_string(&trees));
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
            // Other control characters as `\uXXXX`, which Godot reads too, so every line of
            // the file stays one field.
            c if c.is_control() => {
                let _ = write!(s, "\\u{:04X}", c as u32);
            }
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
    // Fields the file sets, and its format (1 when it does not say).
    let mut present: Vec<&str> = Vec::new();
    let mut format = 1;
    // `preset_format = null` (Godot's saver) and the format-3 mark beside it.
    let (mut godot_saved, mut format_3_mark) = (false, false);
    let mut section: Option<String> = None;
    let mut saw_header = false;
    let mut saw_resource = false;
    let lines: Vec<&str> = text.lines().collect();
    let mut next = 0;
    while next < lines.len() {
        let raw = lines[next];
        next += 1;
        let line_no = next;
        let line = raw.trim();
        if line.is_empty() || line.starts_with(';') {
            continue;
        }
        if line.starts_with('[') {
            if !line.ends_with(']') {
                return Err(err(
                    line_no,
                    "",
                    format!("unterminated section header `{}`", clip(line)),
                    "[gd_resource ...] or [resource]",
                ));
            }
            let inner = &line[1..line.len() - 1];
            let tag = inner.split_whitespace().next().unwrap_or("");
            match tag {
                "gd_resource" if !saw_header && section.is_none() => {
                    let ty = attr(inner, "type");
                    if !matches!(ty.as_deref(), Some(PRESET_CLASS | PRESET_CLASS_0_2)) {
                        return Err(err(
                            line_no,
                            "type",
                            format!("resource type {}", ty.map(|t| format!("`{t}`")).unwrap_or("missing".into())),
                            "type=\"StrataWorldPreset\" (or Strata 0.2's \"WorldPreset\")",
                        ));
                    }
                    saw_header = true;
                }
                "resource" if saw_header && !saw_resource => saw_resource = true,
                "ext_resource" | "sub_resource" => {
                    return Err(err(
                        line_no,
                        "",
                        format!("`[{tag}]` sections are not part of a preset"),
                        "a StrataWorldPreset with only [resource] field lines",
                    ));
                }
                _ => {
                    return Err(err(
                        line_no,
                        "",
                        format!("unexpected section `[{}]`", clip(inner)),
                        "[gd_resource type=\"StrataWorldPreset\" format=3] then [resource]",
                    ));
                }
            }
            section = Some(tag.to_string());
            continue;
        }
        if section.as_deref() != Some("resource") {
            return Err(err(
                line_no,
                "",
                format!("`{}` outside the [resource] section", clip(line)),
                "field lines under [resource]",
            ));
        }
        let Some((key, _)) = line.split_once('=') else {
            return Err(err(line_no, "", format!("`{}` is not a `name = value` line", clip(line)), "name = value"));
        };
        let key = key.trim();
        // The value from the untrimmed line: a string keeps its spaces, and a string Godot
        // wrote over several lines (it writes newlines raw) takes the lines up to its closing quote.
        let mut value = raw.split_once('=').map_or("", |(_, v)| v).trim_start().to_string();
        if value.starts_with('"') || value.starts_with("&\"") {
            let body = |v: &str| unescape(v.strip_prefix("&\"").or_else(|| v.strip_prefix('"')).unwrap_or(v));
            while body(&value).is_err_and(|e| e == UNTERMINATED) && next < lines.len() {
                value.push('\n');
                value.push_str(lines[next]);
                next += 1;
            }
        } else {
            value = value.trim().to_string();
        }
        let value = value.as_str();
        if is_resource_builtin(key) {
            continue;
        }
        if key == PRESET_FORMAT_3_MARK {
            format_3_mark = true;
            continue;
        }
        if key == PRESET_FORMAT_KEY {
            format = match (value, parse_godot_value(value)) {
                ("null", _) => {
                    godot_saved = true;
                    2
                }
                (_, Ok(FieldValue::Int(n))) if (1..=PRESET_FORMAT_VERSION as i64).contains(&n) => n,
                (_, Ok(FieldValue::Int(n))) if n > PRESET_FORMAT_VERSION as i64 => {
                    return Err(PresetError::NewerVersion {
                        source_name: source_name.into(),
                        found: n as u64,
                        supported: PRESET_FORMAT_VERSION,
                    });
                }
                _ => {
                    return Err(err(
                        line_no,
                        key,
                        format!("`{}` is not a preset format", clip(value)),
                        &format!("an integer in 1..={PRESET_FORMAT_VERSION}, or null"),
                    ));
                }
            };
            continue;
        }
        if key == "script" {
            return Err(err(line_no, "script", "a script is attached".into(), "a StrataWorldPreset without a script"));
        }
        if key == BIOME_TABLE_KEY {
            let table = match parse_godot_value(value) {
                Ok(FieldValue::Text(t)) => biome_table_from_ron(&t),
                Ok(other) => Err(format!("{other} is {}, not text", other.kind_word())),
                Err(p) => Err(p),
            };
            preset.biomes.table = table.map_err(|p| {
                err(line_no, key, p, "a RON list of biome rows, e.g. [(name: \"plains\", surface_block: \"grass\")]")
            })?;
            continue;
        }
        if key == STRUCTURE_RULES_KEY {
            let rules = match parse_godot_value(value) {
                Ok(FieldValue::Text(t)) => structure_rules_from_ron(&t),
                Ok(other) => Err(format!("{other} is {}, not text", other.kind_word())),
                Err(p) => Err(p),
            };
            preset.structures.rules = rules.map_err(|p| {
                err(line_no, key, p, "a RON list of structure rules, e.g. [(structure: \"cottage\", spacing: 96)]")
            })?;
            continue;
        }
        if key == ORE_KINDS_KEY {
            let kinds = match parse_godot_value(value) {
                Ok(FieldValue::Text(t)) => ore_kinds_from_ron(&t),
                Ok(other) => Err(format!("{other} is {}, not text", other.kind_word())),
                Err(p) => Err(p),
            };
            preset.ores.kinds = kinds.map_err(|p| {
                err(line_no, key, p, "a RON list of ore kinds, e.g. [(block: \"coal_ore\", min_depth: 6)]")
            })?;
            continue;
        }
        if key == TREE_SETTINGS_KEY {
            let trees = match parse_godot_value(value) {
                Ok(FieldValue::Text(t)) => tree_settings_from_ron(&t),
                Ok(other) => Err(format!("{other} is {}, not text", other.kind_word())),
                Err(p) => Err(p),
            };
            preset.trees = trees.map_err(|p| {
                err(
                    line_no,
                    key,
                    p,
                    "the RON of a tree section, e.g. (enabled: true, spacing: 5, species: [(name: \"oak\")])",
                )
            })?;
            continue;
        }
        if key == SPAWN_RULES_KEY {
            let rules = match parse_godot_value(value) {
                Ok(FieldValue::Text(t)) => spawn_rules_from_ron(&t),
                Ok(other) => Err(format!("{other} is {}, not text", other.kind_word())),
                Err(p) => Err(p),
            };
            preset.spawns.rules = rules.map_err(|p| {
                err(
                    line_no,
                    key,
                    p,
                    "a RON list of spawn rules, e.g. [(scene: \"res://mobs/deer.tscn\", density: 0.5)]",
                )
            })?;
            continue;
        }
        let Some(spec) = crate::preset::fields::field(key) else {
            return Err(err(
                line_no,
                key,
                format!("unknown field `{key}` (made by a newer Strata, or misspelt?)"),
                "a field listed in StrataWorldPreset.field_names()",
            ));
        };
        let v = parse_godot_value(value).map_err(|p| err(line_no, key, p, &spec.allowed()))?;
        let v = match (spec.kind, v) {
            // Godot writes enum properties as ints; accept their option names too.
            (FieldKind::Enum { .. }, FieldValue::Text(t)) => FieldValue::Text(t),
            (_, v) => v,
        };
        present.push(spec.name);
        if let Err(e) = preset.set_field(key, v) {
            return Err(PresetError::Invalid {
                source_name: source_name.into(),
                line: line_no,
                column: 1,
                field: e.field,
                problem: e.problem,
                allowed: e.allowed,
            });
        }
    }
    if !saw_header {
        return Err(err(
            1,
            "",
            "no `[gd_resource type=\"StrataWorldPreset\" ...]` header (empty or not a .tres file?)".into(),
            "a Godot text resource of type StrataWorldPreset",
        ));
    }
    if godot_saved && format_3_mark {
        format = 3;
    }
    apply_format_defaults(&mut preset, format as u32, |section, key| {
        present.contains(&format!("{section}_{key}").as_str())
    });
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
                return if rest.trim().is_empty() {
                    Ok(out)
                } else {
                    Err(format!("unexpected `{}` after the string", clip(rest.trim())))
                };
            }
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('r') => out.push('\r'),
                Some('"') => out.push('"'),
                Some('\'') => out.push('\''),
                Some('\\') => out.push('\\'),
                Some('b') => out.push('\u{8}'),
                Some('f') => out.push('\u{c}'),
                Some('v') => out.push('\u{b}'),
                Some('a') => out.push('\u{7}'),
                Some('u') => out.push(unicode_escape(&mut chars, 4)?),
                Some('U') => out.push(unicode_escape(&mut chars, 6)?),
                Some(o) => return Err(format!("unknown escape `\\{o}`")),
                None => break,
            },
            c => out.push(c),
        }
    }
    Err(UNTERMINATED.into())
}

/// The problem of a string with no closing quote before the end of the file.
const UNTERMINATED: &str = "unterminated string (no closing `\"`)";

/// The character of a `\uXXXX` (4 hex digits) or `\UXXXXXX` (6) escape, the `u`/`U` read.
fn unicode_escape(chars: &mut std::str::Chars<'_>, digits: usize) -> Result<char, String> {
    let hex: String = chars.by_ref().take(digits).collect();
    let code = (hex.len() == digits).then(|| u32::from_str_radix(&hex, 16).ok()).flatten();
    let Some(code) = code else {
        return Err(format!("`{hex}` is not {digits} hex digits of a `\\u` escape"));
    };
    // A UTF-16 surrogate pair, as Godot writes characters beyond the first plane.
    if (0xD800..0xDC00).contains(&code) && digits == 4 {
        let rest = chars.as_str();
        let low = rest.strip_prefix("\\u").and_then(|r| r.get(..4)).and_then(|h| u32::from_str_radix(h, 16).ok());
        if let Some(low) = low.filter(|l| (0xDC00..0xE000).contains(l)) {
            chars.nth(5);
            let c = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
            return char::from_u32(c).ok_or_else(|| format!("`\\u{hex}` is not a character"));
        }
    }
    char::from_u32(code).ok_or_else(|| format!("`\\u{hex}` is not a character"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preset::fingerprint::fingerprint;

    #[test]
    fn own_ore_kinds_round_trip_and_default_ones_are_left_out() {
        let mut p = WorldPreset::default();
        assert!(!preset_to_tres_text(&p).contains(ORE_KINDS_KEY));
        p.ores.kinds[0].min_depth += 1;
        p.ores.kinds.pop();
        let text = preset_to_tres_text(&p);
        assert_eq!(text.lines().filter(|l| l.starts_with(ORE_KINDS_KEY)).count(), 1, "{text}");
        assert_eq!(preset_from_tres_text(&text, "ores.tres").unwrap().ores.kinds, p.ores.kinds);
        let broken = format!("{}{ORE_KINDS_KEY} = \"[(block: 3)]\"\n", preset_to_tres_text(&WorldPreset::default()));
        let e = preset_from_tres_text(&broken, "ores.tres").unwrap_err();
        assert!(e.to_string().contains(ORE_KINDS_KEY) && e.to_string().contains("ores.tres"), "{e}");
    }

    #[test]
    fn own_tree_settings_round_trip_and_default_ones_are_left_out() {
        let mut p = WorldPreset::default();
        assert!(!preset_to_tres_text(&p).contains(TREE_SETTINGS_KEY));
        p.trees.enabled = true;
        p.trees.species[1].trunk_height_max = 12;
        p.trees.species.pop();
        let text = preset_to_tres_text(&p);
        assert_eq!(text.lines().filter(|l| l.starts_with(TREE_SETTINGS_KEY)).count(), 1, "{text}");
        assert_eq!(preset_from_tres_text(&text, "trees.tres").unwrap().trees, p.trees);
        let broken =
            format!("{}{TREE_SETTINGS_KEY} = \"(spacing: \\\"x\\\")\"\n", preset_to_tres_text(&WorldPreset::default()));
        let e = preset_from_tres_text(&broken, "trees.tres").unwrap_err();
        assert!(e.to_string().contains(TREE_SETTINGS_KEY) && e.to_string().contains("trees.tres"), "{e}");
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
    fn tres_is_written_as_strata_world_preset_and_0_2_files_still_read() {
        let p = WorldPreset { seed: 42, ..WorldPreset::default() };
        let text = preset_to_tres_text(&p);
        assert!(text.starts_with("[gd_resource type=\"StrataWorldPreset\" format=3]"), "{text}");
        let old = text.replacen("type=\"StrataWorldPreset\"", "type=\"WorldPreset\"", 1);
        assert_eq!(preset_from_tres_text(&old, "0_2.tres").unwrap(), p);
        let e = preset_from_tres_text(&text.replacen("StrataWorldPreset", "Preset", 1), "x.tres").unwrap_err();
        assert!(e.to_string().contains("`Preset`") && e.to_string().contains("StrataWorldPreset"), "{e}");
    }

    #[test]
    fn tres_names_with_control_characters_round_trip() {
        for name in [
            "line one\nline two",
            "tab\there",
            "cr\r",
            "bell\u{7} nul\u{0} del\u{7f}",
            "quote \" back \\ \\n",
            "  spaced  ",
            "é 🌋 \u{2028}",
        ] {
            let p = WorldPreset { name: name.into(), ..WorldPreset::default() };
            let text = preset_to_tres_text(&p);
            // Header, blank, [resource], the format, then one line per field.
            assert_eq!(text.lines().count(), crate::preset::fields::FIELDS.len() + 4, "one line per field: {text}");
            assert_eq!(preset_from_tres_text(&text, "t.tres").unwrap().name, name, "{text}");
        }
    }

    #[test]
    fn tres_without_a_format_reads_the_defaults_of_format_1() {
        let head = "[gd_resource type=\"WorldPreset\" format=3]\n\n[resource]\n";
        let old = preset_from_tres_text(&format!("{head}seed = 5\n"), "old.tres").unwrap();
        assert_eq!(old, WorldPreset { seed: 5, ..WorldPreset::format1_default() });
        // Godot's saver writes `preset_format = null` (and the mark from format 3 on); Strata's
        // writer the number.
        for format in ["null\npreset_format_3 = null", "3"] {
            let new =
                preset_from_tres_text(&format!("{head}preset_format = {format}\nseed = 5\n"), "new.tres").unwrap();
            assert_eq!(new, WorldPreset { seed: 5, ..WorldPreset::default() }, "{format}");
        }
        for format in ["null", "2"] {
            let two =
                preset_from_tres_text(&format!("{head}preset_format = {format}\nseed = 5\n"), "two.tres").unwrap();
            assert_eq!(two, WorldPreset { seed: 5, ..WorldPreset::format_default(2) }, "{format}");
            assert_eq!(two.biomes.warp_strength, 0.0, "format 2's borders are the cells' edges");
        }
        let warped = preset_from_tres_text(
            &format!("{head}preset_format = null\nbiomes_warp_strength = 40.0\nseed = 5\n"),
            "two.tres",
        )
        .unwrap();
        assert_eq!(warped.biomes.warp_strength, 40.0, "a setting the file gives keeps its value");
        let kept = preset_from_tres_text(&format!("{head}caves_life_rule = \"B3/S23\"\n"), "old.tres").unwrap();
        assert_eq!(kept.caves.life_rule, "B3/S23", "a setting the file gives keeps its value");
        let e = preset_from_tres_text(&format!("{head}preset_format = 9\n"), "next.tres").unwrap_err();
        assert!(e.to_string().contains("newer Strata") && e.to_string().contains("next.tres"), "{e}");
        let e = preset_from_tres_text(&format!("{head}preset_format = \"x\"\n"), "bad.tres").unwrap_err();
        assert_eq!(e.field(), "preset_format", "{e}");
    }

    #[test]
    fn tres_reads_godot_multiline_strings_and_escapes() {
        let text = "[gd_resource type=\"WorldPreset\" format=3]\n\n[resource]\nname = \"first \n  second\"\nseed = 5\n";
        let p = preset_from_tres_text(text, "g.tres").unwrap();
        assert_eq!((p.name.as_str(), p.seed), ("first \n  second", 5));
        let text =
            "[gd_resource type=\"WorldPreset\" format=3]\n[resource]\nname = \"\\u00e9\\U01F30B\\ud83c\\udf0b\\b\"\n";
        assert_eq!(preset_from_tres_text(text, "g.tres").unwrap().name, "é🌋🌋\u{8}");
        let text = "[gd_resource type=\"WorldPreset\" format=3]\n[resource]\nname = \"never closed\nseed = 5\n";
        let e = preset_from_tres_text(text, "g.tres").unwrap_err().to_string();
        assert_eq!(e, "g.tres:3:1: field `name`: unterminated string (no closing `\"`); allowed: text");
    }

    #[test]
    fn tres_keeps_a_custom_biome_table() {
        use crate::preset::model::{ScatterPlacement, ScatterRule};
        let mut p = WorldPreset::default();
        p.biomes.table.truncate(2);
        p.biomes.table[1].name = "glade \"quoted\"".into();
        p.biomes.table[1].temperature_max = 0.75;
        p.biomes.table[1].scatter = Some(vec![ScatterRule {
            kind: "flower".into(),
            density: 0.5,
            placement: ScatterPlacement::Clearings,
            bare_rock_density: 0.0,
        }]);
        let text = preset_to_tres_text(&p);
        assert_eq!(text.lines().filter(|l| l.starts_with(BIOME_TABLE_KEY)).count(), 1, "{text}");
        let back = preset_from_tres_text(&text, "t.tres").unwrap();
        assert_eq!(back, p);
        assert_eq!(fingerprint(&back), fingerprint(&p));
        assert!(!preset_to_tres_text(&WorldPreset::default()).contains(BIOME_TABLE_KEY));
        let bad = text.replace("\\\"flower\\\"", "\\\"cactus\\\"");
        assert_ne!(bad, text);
        let e = preset_from_tres_text(&bad, "t.tres").unwrap_err();
        assert_eq!(e.field(), "biomes.table[1].scatter[0].kind", "{e}");
        let broken = format!("{}{BIOME_TABLE_KEY} = \"[(name: 3)]\"\n", preset_to_tres_text(&WorldPreset::default()));
        let e = preset_from_tres_text(&broken, "b.tres").unwrap_err();
        assert_eq!(e.field(), BIOME_TABLE_KEY, "{e}");
        assert!(e.to_string().contains("b.tres:") && e.to_string().contains("biome table text"), "{e}");
    }

    #[test]
    fn tres_keeps_structure_rules() {
        use crate::preset::model::{StructurePlacement, StructureRule};
        let mut p = WorldPreset::default();
        p.structures.rules = vec![
            StructureRule { structure: "cottage".into(), spacing: 96, chance: 0.4, sink: 3, ..Default::default() },
            StructureRule {
                structure: "crypt".into(),
                placement: StructurePlacement::Underground,
                biomes: vec!["plains".into()],
                ..Default::default()
            },
        ];
        let text = preset_to_tres_text(&p);
        assert_eq!(text.lines().filter(|l| l.starts_with(STRUCTURE_RULES_KEY)).count(), 1, "{text}");
        let back = preset_from_tres_text(&text, "t.tres").unwrap();
        assert_eq!(back, p);
        assert_eq!(fingerprint(&back), fingerprint(&p));
        assert!(!preset_to_tres_text(&WorldPreset::default()).contains(STRUCTURE_RULES_KEY));
        let bad = text.replace("spacing:96", "spacing:4").replace("spacing: 96", "spacing: 4");
        assert_ne!(bad, text, "{text}");
        let e = preset_from_tres_text(&bad, "t.tres").unwrap_err();
        assert_eq!(e.field(), "structures.rules[0].spacing", "{e}");
        let broken = format!(
            "{}{STRUCTURE_RULES_KEY} = \"[(spacing: \\\"x\\\")]\"\n",
            preset_to_tres_text(&WorldPreset::default())
        );
        let e = preset_from_tres_text(&broken, "b.tres").unwrap_err();
        assert_eq!(e.field(), STRUCTURE_RULES_KEY, "{e}");
        assert!(e.to_string().contains("structure rules text"), "{e}");
    }

    /// The field once called `simplex_weight` (always OpenSimplex) reads under its old name in
    /// RON, `.tres`, saves' sparse RON and `set_field`, and keeps the fingerprint it had (law:
    /// Nothing is lost).
    #[test]
    fn the_old_simplex_weight_name_loads_the_same_world() {
        use crate::preset::fingerprint::{canonical_text, preset_from_sparse_ron, preset_to_sparse_ron};
        use crate::preset::ron::{preset_from_ron, preset_to_ron};
        let mut now = WorldPreset::default();
        now.height.open_simplex_weight = 0.4;
        let ron = preset_to_ron(&now);
        assert!(ron.contains("open_simplex_weight: 0.4"), "{ron}");
        let old_ron = ron.replace("open_simplex_weight", "simplex_weight");
        assert_eq!(preset_from_ron(&old_ron, "old.ron").unwrap(), now);
        // Hashed under the name it had, in the place it had: the fingerprint of before the rename.
        let hashed = canonical_text(&now);
        assert!(hashed.contains("height.simplex_weight=0.4") && !hashed.contains("open_simplex"), "{hashed}");
        let sparse = preset_to_sparse_ron(&now);
        assert!(sparse.contains("open_simplex_weight"), "{sparse}");
        let old_sparse = sparse.replace("open_simplex_weight", "simplex_weight");
        assert_eq!(preset_from_sparse_ron(&old_sparse, "save").unwrap(), now);
        let tres = preset_to_tres_text(&now);
        let old_tres = tres.replace("height_open_simplex_weight", "height_simplex_weight");
        assert_ne!(old_tres, tres);
        assert_eq!(preset_from_tres_text(&old_tres, "old.tres").unwrap(), now);
        let mut by_old_name = WorldPreset::default();
        by_old_name.set_field("height_simplex_weight", FieldValue::Float(0.4)).unwrap();
        assert_eq!(by_old_name.height.open_simplex_weight, 0.4);
        assert_eq!(by_old_name.height.exact_simplex_weight, 0.0, "the old name never means exact simplex");
    }

    #[test]
    fn simplex_radius_squared_is_exactly_half_or_six_tenths() {
        let mut p = WorldPreset::default();
        assert_eq!(p.height.simplex_radius_squared, 0.5);
        p.set_field("height_simplex_radius_squared", FieldValue::Float(0.6)).unwrap();
        assert_eq!(p.height.simplex_radius_squared, 0.6);
        for bad in [0.55, 0.4, 0.7, f64::NAN] {
            let e = p.set_field("height_simplex_radius_squared", FieldValue::Float(bad)).unwrap_err();
            assert_eq!(e.field, "height_simplex_radius_squared");
            assert!(e.allowed.ends_with("exactly 0.5 or 0.6"), "{bad}: {}; allowed: {}", e.problem, e.allowed);
        }
        assert!(p.set_field("height_simplex_radius_squared", FieldValue::Int(1)).is_err());
        assert_eq!(p.height.simplex_radius_squared, 0.6, "a refused value changes nothing");
        let text: String = preset_to_tres_text(&p)
            .lines()
            .map(|l| {
                if l.starts_with("height_simplex_radius_squared") {
                    "height_simplex_radius_squared = 0.55\n".to_string()
                } else {
                    format!("{l}\n")
                }
            })
            .collect();
        let e = preset_from_tres_text(&text, "r.tres").unwrap_err().to_string();
        assert!(
            e.contains("r.tres:") && e.contains("height_simplex_radius_squared") && e.contains("exactly 0.5 or 0.6"),
            "{e}"
        );
    }
}
