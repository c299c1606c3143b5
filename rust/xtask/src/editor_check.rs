//! The editor check: `StrataChunkWorld` streams its preview around the real editor's 3D camera,
//! and `StrataChunkWorld2D` around the centre of its 2D view.
//!
//! Copies `tests/editor_check` (a project that enables the Strata editor plugin and a check
//! plugin, and a scene with a `StrataChunkWorld`) to `target/tmp/editor-check`, links
//! `godot_project/addons/strata` into it, imports it and runs the real editor headless
//! (`godot --headless --editor`). The check plugin opens the scene, moves the editor camera far
//! from the origin and waits until the world's editor viewer is the camera's position and the
//! chunks around it are loaded; then it selects the world, digs and paints through the Strata
//! plugin's viewport input, undoes and redoes through the editor's undo history and saves the
//! scene with the voxels it expects beside it; then the same for a side-view scene (its preview,
//! a dig and a paint stroke in the 2D viewport, undo and redo, the tiles saved). It prints an `EDITOR_CHECK` line and quits with 0
//! or 1. A running game (`godot --headless --script res://runtime_check.gd`) then instances the
//! saved scene and checks that it shows the painted voxels (a `RUNTIME_CHECK` line). Each run
//! is bounded by [`TIMEOUT`].
//!
//! May use: `godot_install` (the Godot binary), `godot_run`, `extension` (import), `paths`.

use crate::error::{Context as _, Result};
use crate::godot_install::Godot;
use crate::godot_run::{self, Echo};
use crate::paths;
use std::fs;
use std::path::PathBuf;
use std::time::Duration;

/// The whole editor run, start to quit (it takes a few seconds when it passes).
pub const TIMEOUT: Duration = Duration::from_secs(45);
/// The line the check plugin prints.
const PREFIX: &str = "EDITOR_CHECK ";
/// The line the runtime check prints.
const RUNTIME_PREFIX: &str = "RUNTIME_CHECK ";

/// What the editor check saw.
pub struct EditorCheck {
    /// The check plugin's line after [`PREFIX`] ("passed …" or "FAILED …"), or "" when none.
    pub line: String,
    pub problems: Vec<String>,
    pub log: PathBuf,
}

/// Runs the editor check with `godot` (the extension already built and installed).
pub fn run(godot: &Godot) -> Result<EditorCheck> {
    let source = paths::repo_root().join("tests/editor_check");
    let project = paths::target_dir()?.join("tmp/editor-check");
    if project.exists() {
        fs::remove_dir_all(&project).with_context(|| format!("could not remove {}", project.display()))?;
    }
    let check_addon = project.join("addons/editor_check");
    fs::create_dir_all(&check_addon).with_context(|| format!("could not create {}", check_addon.display()))?;
    for (file, to) in [
        ("project.godot", project.join("project.godot")),
        ("editor_check_scene.tscn", project.join("editor_check_scene.tscn")),
        ("editor_check_scene_2d.tscn", project.join("editor_check_scene_2d.tscn")),
        ("plugin.cfg", check_addon.join("plugin.cfg")),
        ("editor_check_plugin.gd", check_addon.join("editor_check_plugin.gd")),
        ("runtime_check.gd", project.join("runtime_check.gd")),
    ] {
        fs::copy(source.join(file), &to).with_context(|| format!("could not copy {file} to {}", to.display()))?;
    }
    // A MagicaVoxel file for the plugin's `.vox` importer: the import below makes it a
    // `StrataStructure` that the runtime check loads.
    let vox = paths::godot_project().join("game/structures/watchtower.vox");
    fs::copy(&vox, project.join("structure_check.vox"))
        .with_context(|| format!("could not copy {} into {}", vox.display(), project.display()))?;
    let strata = paths::godot_project().join("addons/strata");
    std::os::unix::fs::symlink(&strata, project.join("addons/strata"))
        .with_context(|| format!("could not link {} into {}", strata.display(), project.display()))?;
    crate::extension::import_project(godot, &project, true)?;

    crate::step(format!(
        "Editor check: godot --headless --editor --path {} (timeout {} s)",
        project.display(),
        TIMEOUT.as_secs()
    ));
    let mut cmd = godot.command();
    cmd.args(["--headless", "--editor", "--path"]).arg(&project);
    let output = godot_run::run_captured(cmd, TIMEOUT, Echo::Quiet)?;
    let log = paths::target_dir()?.join("xtask/editor-check.log");
    if let Some(dir) = log.parent() {
        fs::create_dir_all(dir)?;
    }
    fs::write(&log, output.text()).with_context(|| format!("could not write {}", log.display()))?;
    let mut line = output.lines.iter().find_map(|l| l.trim().strip_prefix(PREFIX)).unwrap_or("").to_string();
    let mut problems = Vec::new();
    if line.is_empty() {
        problems.push(format!("the check plugin printed no `{}` line ({})", PREFIX.trim(), output.describe_exit()));
    } else if !line.starts_with("passed") {
        problems.push(line.clone());
    } else if !output.success() {
        problems.push(format!("the editor {} after the check passed", output.describe_exit()));
    }
    if problems.is_empty() {
        let mut cmd = godot.command();
        cmd.args(["--headless", "--path"]).arg(&project).args(["--script", "res://runtime_check.gd"]);
        let runtime = godot_run::run_captured(cmd, TIMEOUT, Echo::Quiet)?;
        fs::write(&log, format!("{}\n--- runtime check ---\n{}", output.text(), runtime.text()))
            .with_context(|| format!("could not write {}", log.display()))?;
        match runtime.lines.iter().find_map(|l| l.trim().strip_prefix(RUNTIME_PREFIX)) {
            Some(r) if r.starts_with("passed") && runtime.success() => line.push_str(&format!("; game: {r}")),
            Some(r) => problems.push(format!("the saved scene in a running game: {r}")),
            None => problems.push(format!(
                "the runtime check printed no `{}` line ({})",
                RUNTIME_PREFIX.trim(),
                runtime.describe_exit()
            )),
        }
    }
    if problems.is_empty() {
        let _ = fs::remove_dir_all(&project);
    }
    Ok(EditorCheck { line, problems, log })
}
