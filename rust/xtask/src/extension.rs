//! Building the `strata-godot` GDExtension, installing it into the Godot project, and
//! running Godot's import step when needed.
//!
//! * [`build`]: `cargo build -p strata-godot` → `<target>/debug/libstrata_godot.so` for the tests
//!   (dev profile: gdext's debug checks on), `--release` → `<target>/release/…` for the demo and
//!   the bench (what players run; gdext's own crates are unoptimised in the dev profile, which
//!   makes the main thread's share several times slower).
//! * [`install`]: copies it to `godot_project/addons/strata/bin/libstrata_godot.so` only
//!   when the contents differ, via a temp file + rename (Godot may have the old one mapped).
//! * [`import_project`]: `godot --headless --path PROJECT --import` (the demo `godot_project`,
//!   or the test project `tests/godot`), which writes `.godot/extension_list.cfg` (without it
//!   the extension's classes are silently missing on a fresh clone) and the global `class_name`
//!   cache. It runs when a fingerprint of the project files (paths, sizes, mtimes, the installed
//!   library, the Godot version; linked folders followed) differs from the one stored after the
//!   last import, so an unchanged project costs nothing.

use crate::error::{Context, Result};
use crate::godot_install::Godot;
use crate::godot_run::{self, Echo};
use crate::paths;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, UNIX_EPOCH};

/// The built library's file name.
pub const LIB_NAME: &str = "libstrata_godot.so";

/// What [`build_and_install`] did.
#[derive(Debug)]
pub struct InstallReport {
    /// The library inside the Godot project.
    pub installed: PathBuf,
    /// Whether the installed library was replaced by a new build.
    pub copied: bool,
    /// Whether Godot's import step ran.
    pub imported: bool,
}

/// `godot_project/addons/strata/bin/libstrata_godot.so`.
pub fn installed_lib() -> PathBuf {
    paths::godot_project().join("addons/strata/bin").join(LIB_NAME)
}

/// `PROJECT/.godot/extension_list.cfg`.
pub fn extension_list(project: &Path) -> PathBuf {
    project.join(".godot/extension_list.cfg")
}

/// Which cargo profile the extension is built with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuildProfile {
    /// `cargo build`: debug assertions and gdext's checks on; for the tests.
    Dev,
    /// `cargo build --release`: for the demo and the bench.
    Release,
}

impl BuildProfile {
    fn dir(self) -> &'static str {
        match self {
            BuildProfile::Dev => "debug",
            BuildProfile::Release => "release",
        }
    }
}

/// Builds the extension (`cargo build -p strata-godot [--release]`, output passed through) and
/// returns the path of the built library.
pub fn build(profile: BuildProfile) -> Result<PathBuf> {
    let release = profile == BuildProfile::Release;
    let shown = if release { "cargo build --release -p strata-godot" } else { "cargo build -p strata-godot" };
    crate::step(format!("building the extension: {shown}"));
    let mut cmd = paths::cargo();
    cmd.args(["build", "-p", "strata-godot"]);
    if release {
        cmd.arg("--release");
    }
    let status = godot_run::run_inherit(cmd)?;
    if !status.success() {
        bail!("`{shown}` failed ({}); fix the compile errors above", godot_run::describe_status(status));
    }
    let built = paths::target_dir()?.join(profile.dir()).join(LIB_NAME);
    if !built.is_file() {
        bail!("the build succeeded but {} does not exist", built.display());
    }
    Ok(built)
}

/// Copies `built` into the Godot project if it differs; returns whether it copied.
pub fn install(built: &Path) -> Result<bool> {
    let dst = installed_lib();
    if paths::same_contents(built, &dst) {
        return Ok(false);
    }
    paths::copy_atomic(built, &dst)
        .with_context(|| format!("could not install the extension into {}", dst.display()))?;
    crate::note(format!("installed {}", dst.display()));
    Ok(true)
}

/// Builds and installs the extension, then imports the project if needed.
pub fn build_and_install(godot: &Godot, profile: BuildProfile) -> Result<InstallReport> {
    let built = build(profile)?;
    let _lock = paths::lock_file(&paths::tools_dir().join("project.lock"))?;
    let copied = install(&built)?;
    let imported = import_project(godot, &paths::godot_project(), false)?;
    Ok(InstallReport { installed: installed_lib(), copied, imported })
}

fn stamp_path(project: &Path) -> PathBuf {
    project.join(".godot/xtask-import.stamp")
}

/// Runs `godot --headless --path PROJECT --import` if `force`, if
/// `extension_list.cfg` is missing, or if the project changed since the last import.
/// Godot's exit status is ignored: a cold `--headless --import` of a project with a GDExtension
/// aborts at exit in Godot 4.6 after everything is written (godotengine/godot#111048: a deferred
/// editor-docs callback runs after cleanup; fix pending upstream), and import also reports errors
/// for scenes using classes that are not registered yet. It is an error only if
/// `extension_list.cfg` is still missing afterwards. The full log goes to
/// `<target>/xtask/godot-import-<project>.log`.
pub fn import_project(godot: &Godot, project: &Path, force: bool) -> Result<bool> {
    let before = project_fingerprint(godot, project);
    let stamp = fs::read_to_string(stamp_path(project)).unwrap_or_default();
    if !force && extension_list(project).is_file() && stamp.trim() == before {
        return Ok(false);
    }
    let shown = project.strip_prefix(paths::repo_root()).unwrap_or(project).display().to_string();
    crate::step(format!("importing the Godot project: godot --headless --path {shown} --import"));
    let started = Instant::now();
    let mut cmd = godot.command();
    cmd.args(["--headless", "--path"]).arg(project).arg("--import");
    let out = godot_run::run_captured(cmd, Duration::from_secs(600), Echo::Quiet)?;
    let log = paths::target_dir()?.join(format!("xtask/godot-import-{}.log", shown.replace('/', "-")));
    if let Some(dir) = log.parent() {
        fs::create_dir_all(dir)?;
    }
    fs::write(&log, out.text()).with_context(|| format!("could not write {}", log.display()))?;
    let errors = out
        .lines
        .iter()
        .filter(|l| l.contains("ERROR") || l.contains("SCRIPT ERROR") || l.contains("Parse Error"))
        .count();
    crate::note(format!(
        "import finished in {:.1} s ({}; {errors} error lines; log: {})",
        started.elapsed().as_secs_f64(),
        out.describe_exit(),
        log.display()
    ));
    if !extension_list(project).is_file() {
        return Err(crate::error::Error::msg(format!(
            "Godot's import did not write {} — the Strata extension would not load; output tail:\n{}",
            extension_list(project).display(),
            crate::error::tail(&out.lines, 20)
        ))
        .hint(format!("check {shown}/addons/strata/strata.gdextension and the log {}", log.display())));
    }
    fs::write(stamp_path(project), project_fingerprint(godot, project))
        .with_context(|| format!("could not write {}", stamp_path(project).display()))?;
    Ok(true)
}

/// A fingerprint of everything the import depends on: the Godot version and the path,
/// size and mtime of every file in the project outside `.godot/`, through linked folders
/// (the test project links the demo's).
fn project_fingerprint(godot: &Godot, project: &Path) -> String {
    let root = project.to_path_buf();
    let mut files = Vec::new();
    collect_files(&root, &root, &mut files);
    files.sort();
    let mut h = Fnv64::new();
    h.write(godot.version.as_bytes());
    for (rel, size, mtime) in files {
        h.write(rel.as_bytes());
        h.write(&size.to_le_bytes());
        h.write(&mtime.to_le_bytes());
    }
    format!("{:016x}", h.0)
}

fn collect_files(root: &Path, dir: &Path, out: &mut Vec<(String, u64, u128)>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if dir == root && name == ".godot" {
            continue;
        }
        if name.ends_with(".tmp") {
            continue;
        }
        // Follows links: a linked folder's files count as the project's.
        let Ok(meta) = fs::metadata(&path) else { continue };
        if meta.is_dir() {
            collect_files(root, &path, out);
        } else {
            let mtime =
                meta.modified().ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos());
            let rel = path.strip_prefix(root).unwrap_or(&path).to_string_lossy().into_owned();
            out.push((rel, meta.len(), mtime));
        }
    }
}

/// FNV-1a, 64 bit: a stable hash with no dependency.
struct Fnv64(u64);

impl Fnv64 {
    fn new() -> Self {
        Fnv64(0xcbf2_9ce4_8422_2325)
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
        // Separator, so ("ab","c") and ("a","bc") differ.
        self.0 = self.0.wrapping_mul(0x0100_0000_01b3) ^ 0xff;
    }
}
