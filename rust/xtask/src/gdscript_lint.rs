//! GDScript lint and format check with gdtoolkit: `gdlint` and `gdformat --check` over every
//! `.gd` file of the demo (`godot_project/`), the test project (`tests/godot/`), the export
//! check's game (`tests/export/`) and the editor check (`tests/editor_check/`), leaving out
//! `.godot/` folders and the test project's links into the demo (those files are checked once, in the demo). `gdlintrc` at the repository root holds rule settings.
//!
//! gdtoolkit comes from PyPI, pinned to [`GDTOOLKIT`], installed with pip into the venv
//! `.tools/gdtoolkit` (git-ignored) the first time it is needed.

use crate::error::tail;
use crate::error::{Context, Error, Result};
use crate::godot_run::{self, Echo, RunOutput};
use crate::paths;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The gdtoolkit release used: pinned, since a new release may lint or format differently.
pub const GDTOOLKIT: &str = "gdtoolkit==4.5.0";
const GDTOOLKIT_VERSION: &str = "4.5.0";

/// What a check found.
#[derive(Debug, Default)]
pub struct LintReport {
    /// How many files were checked.
    pub files: usize,
    /// Reasons the check fails (empty = passed), each with the tool's own lines.
    pub problems: Vec<String>,
}

/// `.tools/gdtoolkit`: the venv.
fn venv() -> PathBuf {
    paths::tools_dir().join("gdtoolkit")
}

/// Makes sure `gdlint` and `gdformat` of [`GDTOOLKIT`] are installed; returns the venv's `bin/`.
pub fn ensure_gdtoolkit() -> Result<PathBuf> {
    let bin = venv().join("bin");
    if installed(&bin) {
        return Ok(bin);
    }
    let _lock = paths::lock_file(&paths::tools_dir().join("gdtoolkit.lock"))?;
    if installed(&bin) {
        return Ok(bin);
    }
    crate::step(format!("installing {GDTOOLKIT} into .tools/gdtoolkit (python3 -m venv, pip)"));
    let hint = "gdtoolkit needs Python 3 with venv and pip (Debian: `apt-get install python3-venv`) \
                and access to PyPI";
    let python = paths::which("python3").ok_or_else(|| Error::msg("python3 is not on PATH").hint(hint))?;
    let mut venv_cmd = Command::new(python);
    venv_cmd.args(["-m", "venv", "--clear"]).arg(venv());
    run_ok(venv_cmd, Duration::from_secs(300)).map_err(|e| e.hint(hint))?;
    let mut pip = Command::new(bin.join("pip"));
    pip.args(["install", "--disable-pip-version-check", "--quiet", GDTOOLKIT]);
    run_ok(pip, Duration::from_secs(600)).map_err(|e| e.hint(hint))?;
    if !installed(&bin) {
        bail!("{GDTOOLKIT} was installed into {} but `gdlint --version` does not report it", venv().display());
    }
    Ok(bin)
}

/// Whether `bin/gdlint` and `bin/gdformat` run and are the pinned version.
fn installed(bin: &Path) -> bool {
    ["gdlint", "gdformat"].iter().all(|tool| {
        Command::new(bin.join(tool))
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).contains(GDTOOLKIT_VERSION))
    })
}

fn run_ok(cmd: Command, timeout: Duration) -> Result<RunOutput> {
    let shown = godot_run::display_command(&cmd);
    let out = godot_run::run_captured(cmd, timeout, Echo::Quiet)?;
    if !out.success() {
        bail!("`{shown}` {}:\n{}", out.describe_exit(), tail(&out.lines, 20));
    }
    Ok(out)
}

/// Every `.gd` file to check, relative to the repository root, sorted.
pub fn gd_files() -> Vec<PathBuf> {
    let root = paths::repo_root();
    let mut out = Vec::new();
    for dir in
        [paths::godot_project(), paths::godot_tests(), root.join("tests/export"), root.join("tests/editor_check")]
    {
        collect_gd(&dir, &mut out);
    }
    let mut rel: Vec<PathBuf> = out.iter().map(|p| p.strip_prefix(&root).unwrap_or(p).to_path_buf()).collect();
    rel.sort();
    rel
}

/// `.gd` files under `dir`, not following links and skipping `.godot/` and the generated doc
/// snippets ([`crate::doc_snippets`]).
fn collect_gd(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() && entry.file_name() != ".godot" && entry.file_name() != crate::doc_snippets::GENERATED_DIR {
            collect_gd(&path, out);
        } else if kind.is_file() && path.extension().is_some_and(|e| e == "gd") {
            out.push(path);
        }
    }
}

/// Runs `gdlint` and `gdformat --check` (or `gdformat`, rewriting the files, when `fix`) over
/// [`gd_files`], printing their output.
pub fn check(fix: bool) -> Result<LintReport> {
    let bin = ensure_gdtoolkit()?;
    let files = gd_files();
    let mut report = LintReport { files: files.len(), problems: vec![] };
    if files.is_empty() {
        report.problems.push("no .gd files found".into());
        return Ok(report);
    }
    let mode = if fix { "gdformat" } else { "gdformat --check" };
    crate::step(format!("GDScript: gdlint and {mode} over {} files ({GDTOOLKIT})", files.len()));
    for (tool, args) in [("gdformat", if fix { vec![] } else { vec!["--check"] }), ("gdlint", vec![])] {
        let mut cmd = Command::new(bin.join(tool));
        cmd.current_dir(paths::repo_root()).args(args).args(&files);
        let out = godot_run::run_captured(cmd, Duration::from_secs(300), Echo::Live)
            .with_context(|| format!("could not run {tool}"))?;
        if !out.success() {
            let shown = if tool == "gdformat" { mode } else { tool };
            report.problems.push(format!("{shown} {}:\n{}", out.describe_exit(), tail(&out.lines, 30)));
        }
    }
    Ok(report)
}

/// `cargo xtask gdscript [--fix]`.
pub fn run(args: &[String]) -> Result<bool> {
    let mut fix = false;
    for a in args {
        match a.as_str() {
            "--fix" => fix = true,
            other => bail!("`cargo xtask gdscript` takes only `--fix` (got `{other}`)"),
        }
    }
    let report = check(fix)?;
    for p in &report.problems {
        eprintln!("[xtask] problem: {p}");
    }
    let ok = report.problems.is_empty();
    crate::step(format!("GDScript {} ({} files)", if ok { "passed" } else { "FAILED" }, report.files));
    Ok(ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_scripts_of_both_projects_without_links_or_imports() {
        let files = gd_files();
        let has = |p: &str| files.iter().any(|f| f == Path::new(p));
        assert!(has("godot_project/game/player.gd"), "{files:?}");
        assert!(has("tests/godot/test_runner.gd"), "{files:?}");
        assert!(!files.iter().any(|f| f.starts_with("tests/godot/game")), "linked folders are skipped");
        assert!(!files.iter().any(|f| f.components().any(|c| c.as_os_str() == ".godot")));
    }
}
