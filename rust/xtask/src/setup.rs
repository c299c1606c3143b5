//! `cargo xtask setup`: make sure Godot is available, the extension is built and
//! installed, and the project is imported. [`prepare`] is what every Godot-using
//! subcommand calls first.

use crate::error::Result;
use crate::extension::{self, BuildProfile};
use crate::godot_install::{self, Godot};
use std::time::Instant;

/// Ensures Godot (installing it if needed), builds + installs the extension, and
/// imports the project when needed. Returns the Godot to run.
pub fn prepare(profile: BuildProfile) -> Result<Godot> {
    let godot = godot_install::ensure_godot()?;
    crate::note(godot.describe());
    let report = extension::build_and_install(&godot, profile)?;
    crate::note(format!(
        "extension {} ({}; {})",
        report.installed.display(),
        if report.copied { "updated" } else { "unchanged" },
        if report.imported { "project imported" } else { "import up to date" }
    ));
    Ok(godot)
}

/// `cargo xtask setup [--release]`.
pub fn run(args: &[String]) -> Result<()> {
    let mut profile = BuildProfile::Dev;
    for a in args {
        match a.as_str() {
            "--release" => profile = BuildProfile::Release,
            other => bail!("`cargo xtask setup` takes only `--release` (got `{other}`)"),
        }
    }
    let started = Instant::now();
    let godot = prepare(profile)?;
    crate::step(format!(
        "setup done in {:.1} s — Godot {}; run it with `cargo xtask godot -- ARGS`",
        started.elapsed().as_secs_f64(),
        godot.version
    ));
    Ok(())
}
