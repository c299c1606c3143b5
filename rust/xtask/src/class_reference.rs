//! The class-reference check of `cargo xtask test`: every exported member, method and signal of
//! every Strata class has a description in the F1 help and inspector tooltips, and every
//! `StrataWorldPreset` field has its full help text.
//!
//! `godot --headless --path tests/godot --doctool <tmp> --gdextension-docs` writes what ClassDB
//! really exports for the extension's classes (members, methods, signals; about a second). The
//! descriptions the editor shows are gdext's, made at compile time from the `///` docs of the
//! `#[var]`/`#[export]` fields, `#[func]`s, `#[signal]`s and `#[constant]`s (gdext has no public
//! way to hand that XML out at run time), so each exported name is looked up among the
//! documented declarations of its class in `rust/strata-godot/src` and in the code the crate's
//! `build.rs` generates from the preset field table (`preset_fields.rs` in its `OUT_DIR`, whose
//! docs must be each field's help text).
//!
//! May use: `godot_run`, `setup`, `test_project`, `paths`, `strata_core::preset::fields`.

use crate::error::{Context, Result};
use crate::godot_run::{self, Echo};
use crate::{paths, setup, test_project};
use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;
use strata_core::preset::fields::FIELDS;

/// The Strata classes whose reference is checked.
pub const CLASSES: &[&str] = &[
    "StrataBiome",
    "StrataBiomeTable",
    "StrataBlockLibrary",
    "StrataBlockType",
    "StrataChunkWorld",
    "StrataChunkWorld2D",
    "StrataStructure",
    "StrataStructure2D",
    "StrataStructureRule",
    "StrataSpawnRule",
    "StrataUserProfiles",
    "StrataWorldPreset",
    "StrataWorldPreview",
    "StrataWorldSync",
    "StrataCellularAutomaton2D",
    "StrataNoise",
];

/// Runs the doctool and checks its output; `Ok(problems)` (empty: passed) and a summary.
pub fn run_check() -> Result<(Vec<String>, String)> {
    let godot = setup::prepare(crate::extension::BuildProfile::Dev)?;
    test_project::prepare(&godot)?;
    let root = paths::target_dir()?.join("xtask/class-reference");
    if root.exists() {
        fs::remove_dir_all(&root).with_context(|| format!("could not clear {}", root.display()))?;
    }
    let xml_dir = root.join("doc_classes");
    fs::create_dir_all(&xml_dir)?;
    crate::step(format!("Class reference: godot --doctool {} --gdextension-docs", root.display()));
    let mut cmd = godot.command();
    cmd.args(["--headless", "--path"]).arg(paths::godot_tests()).arg("--doctool").arg(&root);
    cmd.arg("--gdextension-docs");
    let out = godot_run::run_captured(cmd, Duration::from_secs(120), Echo::Quiet)?;
    if !out.success() {
        return Ok((vec![format!("godot --doctool {}", out.describe_exit())], String::new()));
    }
    let docs =
        SourceDocs::read(&paths::repo_root().join("rust/strata-godot/src"), generated_fields_file()?.as_deref())?;
    check_dir(&xml_dir, &docs)
}

/// The newest `preset_fields.rs` that strata-godot's build script wrote (the extension the
/// doctool loaded was built with it), or None when none was found.
fn generated_fields_file() -> Result<Option<PathBuf>> {
    let build = paths::target_dir()?.join("debug/build");
    let Ok(dirs) = fs::read_dir(&build) else { return Ok(None) };
    let newest = dirs
        .filter_map(|d| d.ok())
        .filter(|d| d.file_name().to_string_lossy().starts_with("strata-godot-"))
        .map(|d| d.path().join("out/preset_fields.rs"))
        .filter_map(|p| Some((fs::metadata(&p).ok()?.modified().ok()?, p)))
        .max();
    Ok(newest.map(|(_, p)| p))
}

/// Checks the doctool output in `dir` against the documented declarations `docs`; problems and a
/// summary of what was checked.
pub fn check_dir(dir: &Path, docs: &SourceDocs) -> Result<(Vec<String>, String)> {
    let mut problems = Vec::new();
    let mut counted = 0;
    for class in CLASSES {
        let path = dir.join(format!("{class}.xml"));
        let xml = match fs::read_to_string(&path) {
            Ok(x) => x,
            Err(e) => {
                problems.push(format!("{}: {e}", path.display()));
                continue;
            }
        };
        let items = exported_items(&xml);
        counted += items.len() + 1;
        if docs.get(class, "class", class) != Some(true) {
            problems.push(format!("{class} (class brief) has no description"));
        }
        for (tag, name) in items {
            match docs.get(class, tag, &name) {
                Some(true) => {}
                Some(false) => problems.push(format!("{class}.{name} ({tag}) has no description")),
                None => problems.push(format!(
                    "{class}.{name} ({tag}) is exported but no declaration of it was found in rust/strata-godot/src"
                )),
            }
        }
        if *class == "StrataWorldPreset" {
            for f in FIELDS {
                if !xml.contains(&format!("<member name=\"{}\"", f.name)) {
                    problems.push(format!("StrataWorldPreset.{} is not in the class reference", f.name));
                } else if docs.field_help.get(f.name) != Some(&f.help()) {
                    problems
                        .push(format!("StrataWorldPreset.{}: the description is not the field's help text", f.name));
                }
            }
        }
    }
    Ok((problems, format!("{counted} members, methods and signals of {} classes", CLASSES.len())))
}

/// The members, methods and signals of a doctool class file, as (tag, name).
fn exported_items(xml: &str) -> Vec<(&'static str, String)> {
    let mut items = Vec::new();
    for tag in ["member", "method", "signal"] {
        let open = format!("<{tag} name=\"");
        let mut rest = xml;
        while let Some(at) = rest.find(&open) {
            rest = &rest[at + open.len()..];
            items.push((tag, rest.split('"').next().unwrap_or("?").to_string()));
        }
    }
    items
}

/// Which exported items of which classes have docs, read from the gdext declarations of
/// `strata-godot`: (Godot class, tag, Godot name) → documented. The tags are those of the
/// doctool: `member`, `method`, `signal`, plus `class` for the class itself.
#[derive(Debug, Default)]
pub struct SourceDocs {
    items: HashMap<(String, &'static str, String), bool>,
    /// Each generated preset field's doc text (Markdown escapes removed).
    field_help: HashMap<String, String>,
}

/// One declaration being read: its attributes and whether a doc comment came with them.
#[derive(Default)]
struct Pending {
    attrs: String,
    documented: bool,
}

impl SourceDocs {
    /// Reads every `.rs` file under `src` and the generated field file `generated`.
    pub fn read(src: &Path, generated: Option<&Path>) -> Result<SourceDocs> {
        let mut files = Vec::new();
        collect_rs(src, &mut files)?;
        let read = |f: &Path| fs::read_to_string(f).with_context(|| format!("could not read {}", f.display()));
        let texts: Vec<String> = files.iter().map(|f| read(f)).collect::<Result<_>>()?;
        let mut docs = SourceDocs::default();
        // Rust struct name → Godot class name, from every file first (secondary impl blocks
        // live in other files than their struct).
        let mut classes = HashMap::new();
        for text in &texts {
            docs.scan(text, &mut classes, true, None);
        }
        for text in &texts {
            docs.scan(text, &mut classes, false, None);
        }
        // The generated fields and accessors, all `StrataWorldPreset`'s (inside macros that
        // wrap its struct and primary impl block).
        if let Some(g) = generated {
            docs.scan(&read(g)?, &mut classes, false, Some("StrataWorldPreset"));
        }
        Ok(docs)
    }

    /// Whether item `name` (tag `tag`) of `class` is documented; None when not declared.
    pub fn get(&self, class: &str, tag: &'static str, name: &str) -> Option<bool> {
        self.items.get(&(class.to_string(), tag, name.to_string())).copied()
    }

    fn record(&mut self, class: &str, tag: &'static str, name: &str, documented: bool) {
        let e = self.items.entry((class.to_string(), tag, name.to_string())).or_insert(false);
        *e |= documented;
    }

    /// One pass over a file: the class map (`map_only`) or the items; `fixed`: every item of
    /// the file belongs to that class.
    fn scan(&mut self, text: &str, classes: &mut HashMap<String, String>, map_only: bool, fixed: Option<&str>) {
        let mut pending = Pending::default();
        let mut open_attr = String::new();
        // The Godot class whose struct or `#[godot_api]` impl block is open, and the brace
        // depth that closes it.
        let mut context: Option<(String, bool, i32)> = fixed.map(|c| (c.to_string(), true, i32::MIN));
        let mut depth = 0i32;
        for raw in text.lines() {
            let line = raw.trim();
            if !open_attr.is_empty() {
                open_attr.push_str(line);
                if balanced(&open_attr) {
                    pending.attrs.push_str(&std::mem::take(&mut open_attr));
                }
                continue;
            }
            if line.starts_with("///") || line.starts_with("#[doc") {
                pending.documented = true;
            } else if line.starts_with("#[") {
                if balanced(line) {
                    pending.attrs.push_str(line);
                } else {
                    open_attr.push_str(line);
                }
            } else if !line.is_empty() && !line.starts_with("//") {
                let words: Vec<&str> =
                    line.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).collect();
                let p = std::mem::take(&mut pending);
                if let Some(at) = words.iter().position(|w| *w == "struct")
                    && p.attrs.contains("GodotClass")
                    && let Some(rust) = words.get(at + 1)
                {
                    let godot = attr_value(&p.attrs, "rename").unwrap_or_else(|| rust.to_string());
                    if map_only {
                        classes.insert(rust.to_string(), godot.clone());
                    } else {
                        self.record(&godot, "class", &godot, p.documented);
                    }
                    context = Some((godot, true, depth));
                } else if words.first() == Some(&"impl") && p.attrs.contains("godot_api") {
                    let rust = words.iter().position(|w| *w == "for").map_or(words.get(1), |at| words.get(at + 1));
                    if let Some(godot) = rust.and_then(|r| classes.get(*r)) {
                        context = Some((godot.clone(), false, depth));
                    }
                } else if let Some((class, is_struct, _)) = &context
                    && !map_only
                {
                    let class = class.clone();
                    if *is_struct && (p.attrs.contains("#[var") || p.attrs.contains("#[export")) {
                        let field = words.iter().find(|w| **w != "pub" && **w != "crate").copied().unwrap_or("?");
                        let name = attr_value(&p.attrs, "rename").unwrap_or_else(|| field.to_string());
                        self.record(&class, "member", &name, p.documented);
                        if let Some(doc) = generated_doc(raw, text, field) {
                            self.field_help.insert(field.to_string(), doc);
                        }
                    } else if let Some(at) = words.iter().position(|w| *w == "fn") {
                        let rust = words.get(at + 1).copied().unwrap_or("?");
                        let name = attr_value(&p.attrs, "rename").unwrap_or_else(|| rust.to_string());
                        if p.attrs.contains("#[func") {
                            self.record(&class, "method", &name, p.documented);
                        } else if p.attrs.contains("#[signal") {
                            self.record(&class, "signal", &name, p.documented);
                        }
                    }
                }
            }
            depth += line.matches('{').count() as i32 - line.matches('}').count() as i32;
            if context.as_ref().is_some_and(|(_, _, d)| depth <= *d && line.contains('}')) {
                context = None;
            }
        }
    }
}

/// The `.rs` files under `dir`, recursively.
fn collect_rs(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for entry in fs::read_dir(dir).with_context(|| format!("could not list {}", dir.display()))? {
        let path = entry?.path();
        if path.is_dir() {
            collect_rs(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

/// Whether the brackets of an attribute are closed.
fn balanced(attr: &str) -> bool {
    attr.matches('[').count() <= attr.matches(']').count() && attr.matches('(').count() <= attr.matches(')').count()
}

/// The value of `key = value` in attributes (`rename = StrataWorldPreset`).
fn attr_value(attrs: &str, key: &str) -> Option<String> {
    let at = attrs.find(&format!("{key} ="))? + key.len() + 2;
    let value: String = attrs[at..].trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
    (!value.is_empty()).then_some(value)
}

/// The doc of a generated `PhantomVar` field: the `#[doc = "…"]` line above its declaration
/// `line` in `text`, its string unescaped (Rust, then Markdown backslashes).
fn generated_doc(line: &str, text: &str, field: &str) -> Option<String> {
    if !line.contains("PhantomVar") {
        return None;
    }
    let before = &text[..text.find(&format!("\n{field}: "))?];
    let doc_line = before.lines().rev().find(|l| l.starts_with("#[doc = "))?;
    let literal = doc_line.strip_prefix("#[doc = \"")?.strip_suffix("\"]")?;
    let mut out = String::new();
    let mut chars = literal.chars();
    // Rust escapes first (`\\` and `\"`; the help text has no other), then Markdown's `\x`.
    let mut rust = String::new();
    while let Some(c) = chars.next() {
        if c == '\\' {
            rust.push(chars.next()?);
        } else {
            rust.push(c);
        }
    }
    let mut chars = rust.chars();
    while let Some(c) = chars.next() {
        out.push(if c == '\\' { chars.next()? } else { c });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_documented_declarations() {
        let src = "/// A thing.\n#[derive(GodotClass)]\n#[class(init, rename = StrataThing)]\npub struct Thing {\n\
            base: Base<Node>,\n    /// Used.\n    #[export]\n    m: i64,\n    #[var(rename = n2)]\n    n: i64,\n}\n\
            #[godot_api]\nimpl Thing {\n    /// Does a.\n    #[func]\n    fn a(&self) {}\n    #[func(rename = b2)]\n\
            fn b(&self) {}\n    #[signal]\n    fn s();\n    fn plain(&self) {}\n}\n";
        let mut docs = SourceDocs::default();
        let mut classes = HashMap::new();
        docs.scan(src, &mut classes, true, None);
        docs.scan(src, &mut classes, false, None);
        assert_eq!(docs.get("StrataThing", "class", "StrataThing"), Some(true));
        assert_eq!(docs.get("StrataThing", "member", "m"), Some(true));
        assert_eq!(docs.get("StrataThing", "member", "n2"), Some(false));
        assert_eq!(docs.get("StrataThing", "method", "a"), Some(true));
        assert_eq!(docs.get("StrataThing", "method", "b2"), Some(false));
        assert_eq!(docs.get("StrataThing", "signal", "s"), Some(false));
        assert_eq!(docs.get("StrataThing", "method", "plain"), None);
        let xml = "<members><member name=\"m\" type=\"int\"></member></members><methods><method name=\"a\">";
        assert_eq!(exported_items(xml), [("member", "m".to_string()), ("method", "a".to_string())]);
    }
}
