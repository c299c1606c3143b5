//! The class-reference check of `cargo xtask test`: every exported member, method and signal of
//! every Strata class has a description in the F1 help and inspector tooltips, and every
//! `WorldPreset` field has its full help text.
//!
//! `godot --headless --path tests/godot --doctool <tmp> --gdextension-docs` writes the class
//! reference of the extension's classes from ClassDB (what really is exported), merged with the
//! XML found in `<tmp>/doc_classes`. The extension writes the XML it hands to the editor there
//! first (`STRATA_CLASS_DOCS_DIR`, see `strata-godot/src/class_docs.rs`), so a member without a
//! description in the output is one the editor shows without one. About a second.
//!
//! May use: `godot_run`, `setup`, `test_project`, `paths`, `strata_core::preset::model`.

use crate::error::{Context, Result};
use crate::godot_run::{self, Echo};
use crate::{paths, setup, test_project};
use std::fs;
use std::path::Path;
use std::time::Duration;
use strata_core::preset::model::FIELDS;

/// The Strata classes whose reference is checked.
pub const CLASSES: &[&str] = &[
    "Biome",
    "BiomeTable",
    "BlockLibrary",
    "BlockType",
    "ChunkWorld",
    "ChunkWorld2D",
    "Structure",
    "StructureRule",
    "SpawnRule",
    "UserProfiles",
    "WorldPreset",
    "WorldPreview",
    "WorldSync",
    "CellularAutomaton2D",
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
    cmd.env("STRATA_CLASS_DOCS_DIR", &xml_dir);
    cmd.args(["--headless", "--path"]).arg(paths::godot_tests()).arg("--doctool").arg(&root);
    cmd.arg("--gdextension-docs");
    let out = godot_run::run_captured(cmd, Duration::from_secs(120), Echo::Quiet)?;
    if !out.success() {
        return Ok((vec![format!("godot --doctool {}", out.describe_exit())], String::new()));
    }
    check_dir(&xml_dir)
}

/// Checks the doctool output in `dir`; problems and a summary of what was checked.
pub fn check_dir(dir: &Path) -> Result<(Vec<String>, String)> {
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
        let (n, missing) = undescribed(&xml);
        counted += n;
        problems.extend(missing.into_iter().map(|m| format!("{class}.{m} has no description")));
        if *class == "WorldPreset" {
            for f in FIELDS {
                if !xml.contains(&format!("<member name=\"{}\"", f.name)) {
                    problems.push(format!("WorldPreset.{} is not in the class reference", f.name));
                } else if !xml.contains(&escape(&f.help()).replace("&quot;", "\"")) {
                    problems.push(format!("WorldPreset.{}: the description is not the field's help text", f.name));
                }
            }
        }
    }
    Ok((problems, format!("{counted} members, methods and signals of {} classes", CLASSES.len())))
}

/// `text` as Godot writes it in an XML text node.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// The number of documented items in a doctool class file (class, members, methods, signals),
/// and the names of those without a description.
fn undescribed(xml: &str) -> (usize, Vec<String>) {
    let mut count = 1;
    let mut missing = Vec::new();
    if text_between(xml, "<brief_description>", "</brief_description>").is_none_or(|t| t.trim().is_empty()) {
        missing.push("(class brief)".to_string());
    }
    for (tag, text_tag) in [("member", None), ("method", Some("description")), ("signal", Some("description"))] {
        let open = format!("<{tag} name=\"");
        let close = format!("</{tag}>");
        let mut rest = xml;
        while let Some(at) = rest.find(&open) {
            let item = &rest[at..];
            let end = item.find(&close).map_or(item.len(), |e| e + close.len());
            let name = item[open.len()..].split('"').next().unwrap_or("?");
            let body = &item[..end];
            let text = match text_tag {
                None => body.split_once('>').and_then(|(_, b)| b.strip_suffix(close.as_str())),
                Some(t) => text_between(body, &format!("<{t}>"), &format!("</{t}>")),
            };
            count += 1;
            if text.is_none_or(|t| t.trim().is_empty()) {
                missing.push(format!("{name} ({tag})"));
            }
            rest = &item[end..];
        }
    }
    (count, missing)
}

fn text_between<'a>(s: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let start = s.find(open)? + open.len();
    Some(&s[start..start + s[start..].find(close)?])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_items_without_description() {
        let xml = "<class name=\"X\"><brief_description>A thing.</brief_description><methods>\
            <method name=\"a\"><return type=\"int\" /><description>\n\t\tDoes a.\n\t</description></method>\
            <method name=\"b\"><description>\n\t</description></method></methods><members>\
            <member name=\"m\" type=\"int\" setter=\"\" getter=\"\" default=\"0\">\n\tUsed.\n</member>\
            <member name=\"n\" type=\"int\" setter=\"\" getter=\"\" default=\"0\">\n</member></members>\
            <signals><signal name=\"s\"><description></description></signal></signals></class>";
        let (count, missing) = undescribed(xml);
        assert_eq!(count, 6);
        assert_eq!(missing, ["n (member)", "b (method)", "s (signal)"]);
        let (_, missing) = undescribed("<class name=\"Y\"><brief_description>\n</brief_description></class>");
        assert_eq!(missing, ["(class brief)"]);
    }
}
