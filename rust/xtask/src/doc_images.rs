//! The docs' images check (`cargo xtask lint images`, one of the static checks `cargo xtask test`
//! runs first): every image README.md and docs/*.md show (`![alt](path)`, outside fenced code)
//! is made by `cargo xtask screenshots` ([`crate::screenshots::images`], the table of what makes
//! each one), every image the table makes is shown by a doc, every shown image exists, and
//! `docs/images/` holds no file that no doc shows. Remote images (`http://`, `https://`) are not
//! files of the repository and are left out. Reads text and lists one folder: milliseconds.
//!
//! May use: `screenshots`' table (data only), `error`. The parsing and the comparison work on
//! in-memory text and sets, which the unit tests below use.

use crate::error::{Context as _, Result};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// The images one Markdown text shows: (1-based line, target as written), in order.
pub fn image_targets(markdown: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fence: Option<&str> = None;
    for (i, line) in markdown.lines().enumerate() {
        let trimmed = line.trim_start();
        for marker in ["```", "~~~"] {
            if trimmed.starts_with(marker) {
                match fence {
                    Some(open) if open == marker => fence = None,
                    None => fence = Some(marker),
                    Some(_) => {}
                }
            }
        }
        if fence.is_some() || trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            continue;
        }
        let mut rest = line;
        while let Some(start) = rest.find("![") {
            rest = &rest[start + 2..];
            // The alt text ends at the `]` that closes it; nested brackets are balanced.
            let mut depth = 1;
            let mut close = None;
            for (j, c) in rest.char_indices() {
                match c {
                    '[' => depth += 1,
                    ']' => {
                        depth -= 1;
                        if depth == 0 {
                            close = Some(j);
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let Some(close) = close else { break };
            rest = &rest[close + 1..];
            let Some(inner) = rest.strip_prefix('(') else { continue };
            let Some(end) = inner.find(')') else { break };
            let target = inner[..end].trim();
            // `path "title"` and `<path>` forms.
            let target = target.split_once(char::is_whitespace).map_or(target, |(p, _)| p);
            let target = target.trim_start_matches('<').trim_end_matches('>');
            if !target.is_empty() {
                out.push((i + 1, target.to_string()));
            }
            rest = &inner[end + 1..];
        }
    }
    out
}

/// `target` as written in the doc at `doc` (both relative to the repository root, `/`-separated)
/// resolved to a path relative to the root; None for a remote image or one above the root.
pub fn resolve(doc: &str, target: &str) -> Option<String> {
    if target.starts_with("http://") || target.starts_with("https://") {
        return None;
    }
    let target = target.split(['#', '?']).next().unwrap_or(target);
    let mut parts: Vec<&str> = match doc.rsplit_once('/') {
        Some((dir, _)) if !target.starts_with('/') => dir.split('/').collect(),
        _ => Vec::new(),
    };
    for part in target.trim_start_matches('/').split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// What is wrong between the images the docs show (`shown`: image → the `doc:line`s showing it),
/// the images the screenshot table makes (`made`) and the files in `docs/images/` (`files`; all
/// paths relative to the repository root). Empty when they agree.
pub fn problems(
    shown: &BTreeMap<String, Vec<String>>,
    made: &BTreeSet<String>,
    files: &BTreeSet<String>,
) -> Vec<String> {
    let mut out = Vec::new();
    for (image, at) in shown {
        if !made.contains(image) {
            out.push(format!(
                "{image} (shown at {}) is made by no job of `cargo xtask screenshots`: add it to the table in rust/xtask/src/screenshots.rs",
                at.join(", ")
            ));
        }
        if !files.contains(image) {
            out.push(format!("{image} (shown at {}) does not exist: run `cargo xtask screenshots`", at.join(", ")));
        }
    }
    for image in made.difference(&shown.keys().cloned().collect()) {
        out.push(format!(
            "{image} is made by `cargo xtask screenshots` but shown by no doc: show it or drop it from the table"
        ));
    }
    for file in files {
        if !shown.contains_key(file) && !made.contains(file) {
            out.push(format!("{file} is shown by no doc and made by no screenshot job: delete it"));
        }
    }
    out
}

/// The docs the check reads: README.md and docs/*.md (sorted), relative to the root.
fn docs(root: &Path) -> Result<Vec<String>> {
    let mut docs = vec!["README.md".to_string()];
    let dir = root.join("docs");
    let mut md: Vec<String> = fs::read_dir(&dir)
        .with_context(|| format!("could not list {}", dir.display()))?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    md.sort();
    docs.extend(md);
    Ok(docs)
}

/// Every file under `dir` (relative to `root`), recursively.
fn files_under(root: &Path, dir: &str, out: &mut BTreeSet<String>) -> Result<()> {
    let path = root.join(dir);
    if !path.is_dir() {
        return Ok(());
    }
    for entry in fs::read_dir(&path).with_context(|| format!("could not list {}", path.display()))? {
        let entry = entry.with_context(|| format!("could not list {}", path.display()))?;
        let rel = format!("{dir}/{}", entry.file_name().to_string_lossy());
        if entry.file_type().with_context(|| format!("could not stat {rel}"))?.is_dir() {
            files_under(root, &rel, out)?;
        } else {
            out.insert(rel);
        }
    }
    Ok(())
}

/// The check's findings on the repository at `root`.
pub struct Report {
    pub docs: usize,
    pub images: usize,
    pub problems: Vec<String>,
}

/// Reads the docs under `root`, lists `docs/images/` and compares them with the screenshot table.
pub fn check_repo(root: &Path) -> Result<Report> {
    let docs = docs(root)?;
    let mut shown: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for doc in &docs {
        let path = root.join(doc);
        let text = fs::read_to_string(&path).with_context(|| format!("could not read {}", path.display()))?;
        for (line, target) in image_targets(&text) {
            if let Some(image) = resolve(doc, &target) {
                shown.entry(image).or_default().push(format!("{doc}:{line}"));
            }
        }
    }
    let mut files = BTreeSet::new();
    files_under(root, crate::screenshots::IMAGES_DIR, &mut files)?;
    let problems = problems(&shown, &crate::screenshots::images(), &files);
    Ok(Report { docs: docs.len(), images: shown.len(), problems })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_targets_are_read_outside_code_fences() {
        let md = "# T\n![A](docs/images/a.png) and ![B [x]](b.png \"title\")\n\
                  ```md\n![C](c.png)\n```\n| ![](<d.png>) | [link](e.png) |\n![remote](https://x.org/f.png)\n";
        let got = image_targets(md);
        assert_eq!(
            got,
            vec![
                (2, "docs/images/a.png".to_string()),
                (2, "b.png".to_string()),
                (6, "d.png".to_string()),
                (7, "https://x.org/f.png".to_string()),
            ]
        );
        assert!(image_targets("![broken](no-close.png").is_empty());
        assert!(image_targets("![alt] (spaced.png)").is_empty());
    }

    #[test]
    fn targets_resolve_against_the_doc_folder() {
        assert_eq!(resolve("README.md", "docs/images/a.png").as_deref(), Some("docs/images/a.png"));
        assert_eq!(resolve("docs/side_view.md", "images/a.png").as_deref(), Some("docs/images/a.png"));
        assert_eq!(resolve("docs/x.md", "./images/../images/a.png#frag").as_deref(), Some("docs/images/a.png"));
        assert_eq!(resolve("docs/x.md", "/docs/images/a.png").as_deref(), Some("docs/images/a.png"));
        assert_eq!(resolve("README.md", "../outside.png"), None);
        assert_eq!(resolve("README.md", "https://example.org/a.png"), None);
    }

    fn set(items: &[&str]) -> BTreeSet<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn agreeing_docs_table_and_files_have_no_problems() {
        let shown = BTreeMap::from([("docs/images/a.png".to_string(), vec!["README.md:3".to_string()])]);
        assert!(problems(&shown, &set(&["docs/images/a.png"]), &set(&["docs/images/a.png"])).is_empty());
    }

    #[test]
    fn each_disagreement_is_named() {
        let shown = BTreeMap::from([
            ("docs/images/shown_unmade.png".to_string(), vec!["README.md:1".to_string()]),
            ("docs/images/shown_missing.png".to_string(), vec!["docs/x.md:2".to_string()]),
        ]);
        let made = set(&["docs/images/shown_missing.png", "docs/images/made_unshown.png"]);
        let files = set(&["docs/images/shown_unmade.png", "docs/images/made_unshown.png", "docs/images/stray.png"]);
        let p = problems(&shown, &made, &files);
        assert_eq!(p.len(), 4, "{p:#?}");
        assert!(p[0].contains("shown_missing.png") && p[0].contains("does not exist") && p[0].contains("docs/x.md:2"));
        assert!(p[1].contains("shown_unmade.png") && p[1].contains("made by no job") && p[1].contains("README.md:1"));
        assert!(p[2].contains("made_unshown.png") && p[2].contains("shown by no doc"));
        assert!(p[3].contains("stray.png") && p[3].contains("delete it"));
    }

    #[test]
    fn the_repository_agrees_with_the_table() {
        let report = check_repo(&crate::paths::repo_root()).unwrap();
        assert!(report.problems.is_empty(), "{:#?}", report.problems);
        assert!(report.images >= 40, "{} images", report.images);
    }
}
