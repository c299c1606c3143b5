//! The editor's frames for the docs (the `editor` job of `cargo xtask screenshots`): the real
//! Godot editor, Compatibility renderer (OpenGL 3 on llvmpipe), in a 1600×900 window under Xvfb,
//! opened on the addon's example scene (`addons/strata/examples/example_world.tscn`) in the demo
//! project as a user first opens it: the scene's saved view and the saved dock layout are moved
//! aside for the run (and put back after it, as is `project.godot`, which the editor rewrites),
//! and the editor's settings are a fresh set, so the Strata plugin places the 3D view above the
//! ground and selects the world (the Strata Preview dock shows its preset, the paint toolbar
//! shows in the viewport's menu). Once the frame stops
//! changing (the world has streamed in), the screen is grabbed with ImageMagick's
//! `import -window root` (`first_sight.png`); then xdotool orbits the view with the middle mouse
//! button, and a second grab (`orbit.png`) shows the view kept its place above the world instead
//! of snapping back to the origin. The editor's log is `editor.log` in the job's folder.
//!
//! Needs `xdotool` and ImageMagick (`import`, `compare`), installed with the system apt when
//! missing, like Xvfb ([`crate::xvfb`]).
//!
//! May use: `godot_install` (the Godot command), `godot_run`, `xvfb`, `paths`, `error`.

use crate::error::{Context as _, Error, Result, tail};
use crate::godot_install::Godot;
use crate::godot_run::{self, Echo};
use crate::{paths, xvfb};
use std::fs;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// The scene the frames show, in the demo project.
pub const SCENE: &str = "res://addons/strata/examples/example_world.tscn";
/// The virtual screen, and the editor window filling it.
const SCREEN: &str = "1600x900x24";
/// The whole run's limit (the editor under llvmpipe on two shared cores takes minutes).
const TIMEOUT: Duration = Duration::from_secs(900);

/// Waits for the editor window, then grabs the screen every `STEP` seconds until two grabs
/// agree (fewer than `SETTLED` pixels differ by more than 3 %) or `MAX` grabs were taken, and
/// keeps the last as `first_sight.png`; orbits with a middle-button drag over the viewport and
/// grabs again once settled (`orbit.png`). `$1` is the job's folder, the rest the editor command.
const SCRIPT: &str = r#"
set -u
work=$1; shift
STEP=10; MAX=36; SETTLED=3000
"$@" > "$work/editor.log" 2>&1 &
pid=$!
settle() {
  rm -f "$work/prev.png"
  for i in $(seq 1 $MAX); do
    sleep $STEP
    kill -0 $pid 2>/dev/null || { echo "the editor exited"; return 1; }
    import -window root "$work/grab.png" || return 1
    if [ -f "$work/prev.png" ]; then
      diff=$(compare -metric AE -fuzz 3% "$work/prev.png" "$work/grab.png" null: 2>&1 | cut -d' ' -f1)
      echo "grab $i: $diff pixels changed"
      case "$diff" in ''|*[!0-9.e+]*) ;; *) awk "BEGIN{exit !($diff < $SETTLED)}" && return 0 ;; esac
    fi
    cp "$work/grab.png" "$work/prev.png"
  done
  echo "the frame did not settle in $((STEP * MAX)) s; keeping the last grab"
}
found=""
for i in $(seq 1 120); do
  if xdotool search --onlyvisible --name 'Godot Engine' >/dev/null 2>&1; then found=1; break; fi
  sleep 1
done
[ -n "$found" ] || { echo "no editor window after 120 s"; kill $pid; exit 1; }
settle || { kill $pid; exit 1; }
cp "$work/grab.png" "$work/first_sight.png"
echo "SHOT first_sight"
# Orbit: a middle-button drag across the 3D viewport (Godot's default orbit button).
xdotool mousemove 700 500 mousedown 2
for s in $(seq 1 20); do xdotool mousemove_relative -- -15 2; sleep 0.1; done
xdotool mouseup 2 mousemove 1590 890
settle || { kill $pid; exit 1; }
cp "$work/grab.png" "$work/orbit.png"
echo "SHOT orbit"
kill $pid; wait $pid 2>/dev/null
exit 0
"#;

/// Renders the editor frames into `work` (`first_sight.png`, `orbit.png`).
pub fn run(godot: &Godot, work: &Path) -> Result<()> {
    ensure_tools()?;
    // The editor keeps each scene's view in `.godot/editor/<scene>-editstate-<md5>.cfg` and the
    // docks in `editor_layout.cfg`; without them the scene opens as it does the first time. They
    // are moved aside for the run and put back after it.
    let editor_dir = paths::godot_project().join(".godot/editor");
    let aside = work.join("editor-state-aside");
    fs::create_dir_all(&aside).with_context(|| format!("could not create {}", aside.display()))?;
    let mut moved = Vec::new();
    for e in fs::read_dir(&editor_dir).into_iter().flatten().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with("example_world.tscn-editstate-") || name == "editor_layout.cfg" {
            fs::rename(e.path(), aside.join(&name))
                .with_context(|| format!("could not move {} aside", e.path().display()))?;
            moved.push(name);
        }
    }
    // The editor rewrites `project.godot` in its own layout when it quits; the file is put back.
    let project_file = paths::godot_project().join("project.godot");
    let project_text = fs::read(&project_file).with_context(|| format!("could not read {}", project_file.display()))?;
    let result = run_editor(godot, work);
    if fs::read(&project_file).ok().as_deref() != Some(&project_text[..]) {
        fs::write(&project_file, &project_text)
            .with_context(|| format!("could not put {} back", project_file.display()))?;
    }
    for name in &moved {
        // The run wrote its own; the developer's come back.
        fs::rename(aside.join(name), editor_dir.join(name))
            .with_context(|| format!("could not put {name} back into {}", editor_dir.display()))?;
    }
    result
}

fn run_editor(godot: &Godot, work: &Path) -> Result<()> {
    let mut editor = godot.command();
    editor.args(["--editor", "--rendering-driver", "opengl3", "--rendering-method", "gl_compatibility"]);
    editor.args(["--audio-driver", "Dummy", "--resolution", "1600x900", "--position", "0,0", "--path"]);
    editor.arg(paths::godot_project()).arg(SCENE);
    let mut cmd = Command::new(xvfb::ensure_xvfb_run()?);
    cmd.args(["-a", "-s", &format!("-screen 0 {SCREEN}"), "bash", "-c", SCRIPT, "bash"]);
    cmd.arg(work);
    godot_run::append_command(&mut cmd, &editor);
    // A fresh editor configuration (settings, layout of a first start), not the developer's.
    let xdg = work.join("xdg");
    for (var, dir) in [("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"), ("XDG_CACHE_HOME", "cache")] {
        fs::create_dir_all(xdg.join(dir)).with_context(|| format!("could not create {}", xdg.display()))?;
        cmd.env(var, xdg.join(dir));
    }
    cmd.current_dir(paths::repo_root());
    crate::note(godot_run::display_command(&editor));
    let out = godot_run::run_captured(cmd, TIMEOUT, Echo::Live)?;
    let log = fs::read_to_string(work.join("editor.log")).unwrap_or_default();
    let mut problems = Vec::new();
    if !out.success() {
        problems.push(format!("the editor run {}", out.describe_exit()));
    }
    for pat in ["SCRIPT ERROR", "Parse Error", "[panic"] {
        if let Some(first) = log.lines().find(|l| l.contains(pat)) {
            problems.push(format!("the editor's output has `{pat}`: {}", first.trim()));
        }
    }
    if !log.contains("- Compatibility -") {
        problems.push("the editor did not report the Compatibility renderer".to_string());
    }
    if !problems.is_empty() {
        return Err(Error::msg(format!(
            "{} (log: {}); last lines:\n{}",
            problems.join("; "),
            work.join("editor.log").display(),
            tail(&out.lines, 15)
        )));
    }
    Ok(())
}

/// Installs `xdotool` and `imagemagick` with the system apt when `xdotool`, `import` or
/// `compare` is missing.
fn ensure_tools() -> Result<()> {
    if ["xdotool", "import", "compare"].iter().all(|t| paths::which(t).is_some()) {
        return Ok(());
    }
    let hint = "install them yourself: `sudo apt-get install --no-install-recommends xdotool imagemagick`";
    if !xvfb::is_root() || paths::which("apt-get").is_none() {
        return Err(Error::msg("xdotool or ImageMagick (import, compare) is missing").hint(hint));
    }
    crate::step("installing xdotool and imagemagick with the system apt-get");
    let mut cmd = Command::new("apt-get");
    cmd.args([
        "-o",
        "DPkg::Lock::Timeout=300",
        "-q",
        "install",
        "-y",
        "--no-install-recommends",
        "xdotool",
        "imagemagick",
    ]);
    cmd.env("DEBIAN_FRONTEND", "noninteractive");
    let out = godot_run::run_captured(cmd, Duration::from_secs(900), Echo::Quiet)?;
    if !out.success() {
        return Err(
            Error::msg(format!("apt-get install {}:\n{}", out.describe_exit(), tail(&out.lines, 20))).hint(hint)
        );
    }
    Ok(())
}
