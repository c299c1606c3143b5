//! The static checks `cargo xtask test` runs before any test, in this order: the import
//! layers ([`crate::layers`], no compilation), the docs' images ([`crate::doc_images`]: every
//! image the docs show is made by `cargo xtask screenshots`, and the reverse; milliseconds),
//! `cargo fmt --all --check` and `cargo clippy --workspace --all-targets -- -D warnings`.
//! `cargo xtask lint [CHECK...]` runs them (or the named ones) alone.
//!
//! Uses [`crate::layers`], [`crate::doc_images`], [`crate::godot_run`] (to run cargo) and
//! [`crate::paths`].

use crate::error::Result;
use crate::{doc_images, godot_run, layers, paths};
use std::time::Instant;

const USAGE: &str = "usage: cargo xtask lint [layers] [images] [fmt] [clippy]   (no names: all four, in that order)";

/// One static check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// strata-core's layer order and module cycles, no Godot in strata-core, xtask's module cycles.
    Layers,
    /// The docs' images against `cargo xtask screenshots`' table ([`crate::doc_images`]).
    Images,
    /// `cargo fmt --all --check`.
    Fmt,
    /// `cargo clippy --workspace --all-targets -- -D warnings`.
    Clippy,
}

/// Every check, in the order `cargo xtask test` runs them.
pub const ALL: [Check; 4] = [Check::Layers, Check::Images, Check::Fmt, Check::Clippy];

impl Check {
    fn parse(name: &str) -> Option<Check> {
        ALL.into_iter().find(|c| c.name() == name)
    }

    /// The name `cargo xtask lint` takes.
    pub fn name(self) -> &'static str {
        match self {
            Check::Layers => "layers",
            Check::Images => "images",
            Check::Fmt => "fmt",
            Check::Clippy => "clippy",
        }
    }
}

/// `cargo xtask lint [layers] [fmt] [clippy]`: runs the named checks (all without names)
/// and prints a summary; true when all passed.
pub fn run(args: &[String]) -> Result<bool> {
    let mut checks = Vec::new();
    for a in args {
        match (a.as_str(), Check::parse(a)) {
            ("-h" | "--help", _) => {
                println!("{USAGE}");
                return Ok(true);
            }
            (_, Some(c)) => checks.push(c),
            (other, None) => bail!("unknown check `{other}`\n{USAGE}"),
        }
    }
    if checks.is_empty() {
        checks = ALL.to_vec();
    }
    let summary = run_checks(&checks);
    let ok = summary.iter().all(|(_, ok)| *ok);
    eprintln!();
    eprintln!("==================== xtask lint summary ====================");
    for (line, _) in &summary {
        eprintln!("{line}");
    }
    eprintln!("RESULT: {}", if ok { "PASSED" } else { "FAILED" });
    Ok(ok)
}

/// Runs `checks` in order, each even when an earlier one failed; returns one summary line
/// per check and whether it passed.
pub fn run_checks(checks: &[Check]) -> Vec<(String, bool)> {
    checks
        .iter()
        .map(|c| match c {
            Check::Layers => layers_check(),
            Check::Images => images_check(),
            Check::Fmt => cargo_check(
                "Format",
                &["fmt", "--all", "--check"],
                "rustfmt",
                "the diff above shows what to change; `cargo fmt --all` applies it",
            ),
            Check::Clippy => cargo_check(
                "Clippy",
                &["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"],
                "clippy",
                "fix the warnings above (`cargo clippy --workspace --all-targets -- -D warnings` lists them again)",
            ),
        })
        .collect()
}

fn layers_check() -> (String, bool) {
    let name = "Import layers (strata-core and strata-godot layer order; import cycles and file sizes of every crate; no Godot in strata-core)";
    crate::step(format!("{name}: reading rust/strata-core/src and rust/xtask/src"));
    let t = Instant::now();
    match layers::check_repo(&paths::repo_root()) {
        Ok(report) if report.problems.is_empty() => {
            let line = format!(
                "{name}: passed — {} files, {} module imports in {:.2} s",
                report.files,
                report.imports,
                t.elapsed().as_secs_f64()
            );
            crate::note(&line);
            (line, true)
        }
        Ok(report) => {
            let mut line = format!("{name}: FAILED — {} problem(s):", report.problems.len());
            for p in &report.problems {
                line.push_str(&format!("\n    problem: {p}"));
            }
            eprintln!("{line}");
            (line, false)
        }
        Err(e) => (format!("{name}: FAILED — {e}"), false),
    }
}

fn images_check() -> (String, bool) {
    let name =
        "Docs' images (README.md and docs/*.md show exactly what `cargo xtask screenshots` makes, and it exists)";
    crate::step(format!("{name}: reading the docs and docs/images"));
    let t = Instant::now();
    match doc_images::check_repo(&paths::repo_root()) {
        Ok(report) if report.problems.is_empty() => {
            let line = format!(
                "{name}: passed — {} docs, {} images in {:.3} s",
                report.docs,
                report.images,
                t.elapsed().as_secs_f64()
            );
            crate::note(&line);
            (line, true)
        }
        Ok(report) => {
            let mut line = format!("{name}: FAILED — {} problem(s):", report.problems.len());
            for p in &report.problems {
                line.push_str(&format!("\n    problem: {p}"));
            }
            eprintln!("{line}");
            (line, false)
        }
        Err(e) => (format!("{name}: FAILED — {e}"), false),
    }
}

/// Runs `cargo ARGS` with inherited output; `component` is the rustup component it needs.
fn cargo_check(name: &str, args: &[&str], component: &str, fix: &str) -> (String, bool) {
    let shown = format!("cargo {}", args.join(" "));
    crate::step(format!("{name}: {shown}"));
    let t = Instant::now();
    // `cargo fmt` / `cargo clippy` without the component fails with a confusing message.
    let installed = paths::cargo()
        .args([args[0], "--version"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !installed {
        let line = format!(
            "{name} ({shown}): FAILED — `cargo {}` is not installed (`rustup component add {component}`)",
            args[0]
        );
        eprintln!("{line}");
        return (line, false);
    }
    let mut cmd = paths::cargo();
    cmd.args(args);
    match godot_run::run_inherit(cmd) {
        Ok(status) if status.success() => {
            (format!("{name} ({shown}): passed in {:.0} s", t.elapsed().as_secs_f64()), true)
        }
        Ok(status) => {
            let line = format!(
                "{name} ({shown}): FAILED, {} in {:.0} s — {fix}",
                godot_run::describe_status(status),
                t.elapsed().as_secs_f64()
            );
            eprintln!("[xtask] {line}");
            (line, false)
        }
        Err(e) => (format!("{name} ({shown}): FAILED — {e}"), false),
    }
}
