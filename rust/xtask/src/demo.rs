//! `cargo xtask demo [--view-distance N] [--seconds S] [-- ARGS]`.
//!
//! With a display (`$DISPLAY` or `$WAYLAND_DISPLAY`) it opens the main scene in a
//! window. Without one it runs `res://demo/flythrough.tscn` twice: headless (the scene
//! prints progress and stats), then rendered with OpenGL under Xvfb, writing PNG
//! screenshots to `<target>/screenshots`.

use crate::error::{Context, Result};
use crate::godot_run::{self, Echo};
use crate::{paths, setup};
use std::fs;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, SystemTime};

const USAGE: &str = "usage: cargo xtask demo [--view-distance N] [--seconds S] [-- ARGS for the scene]";

/// Virtual screen used for the rendered run.
pub const XVFB_SCREEN: &str = "1280x720x24";

/// `cargo xtask demo`.
pub fn run(args: &[String]) -> Result<ExitCode> {
    let mut view_distance: u32 = 8;
    let mut seconds: Option<f64> = None;
    let mut extra: Vec<String> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let (key, inline) = match a.split_once('=') {
            Some((k, v)) => (k, Some(v.to_string())),
            None => (a.as_str(), None),
        };
        let mut value = |name: &str| -> Result<String> {
            inline.clone().or_else(|| it.next().cloned()).with_context(|| format!("{name} needs a value\n{USAGE}"))
        };
        match key {
            "--view-distance" => {
                let v = value("--view-distance")?;
                view_distance = v.parse().with_context(|| format!("--view-distance: `{v}` is not a whole number"))?;
            }
            "--seconds" => {
                let v = value("--seconds")?;
                let s: f64 = v.parse().with_context(|| format!("--seconds: `{v}` is not a number"))?;
                if s.is_nan() || s <= 0.0 {
                    bail!("--seconds must be positive");
                }
                seconds = Some(s);
            }
            "--" => extra.extend(it.by_ref().cloned()),
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(ExitCode::SUCCESS);
            }
            other => bail!("unknown argument `{other}`\n{USAGE}"),
        }
    }
    let mut scene_args = vec![format!("--view-distance={view_distance}")];
    if let Some(s) = seconds {
        scene_args.push(format!("--seconds={s}"));
    }
    scene_args.extend(extra);

    let godot = setup::prepare(crate::extension::BuildProfile::Release)?;
    let has_display = ["DISPLAY", "WAYLAND_DISPLAY"].iter().any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()));
    if has_display {
        crate::step("display found: opening the main scene (godot --path godot_project)");
        let mut cmd = godot.command();
        cmd.args(["--path", "godot_project", "--"]).args(&scene_args);
        let status = godot_run::run_inherit(cmd)?;
        return Ok(exit_code(status));
    }

    let scene = paths::godot_project().join("demo/flythrough.tscn");
    if !scene.is_file() {
        bail!("godot_project/demo/flythrough.tscn missing — there is no flythrough scene to run yet");
    }
    // Generous limit: the scene's own duration plus start-up and generation time.
    let timeout = Duration::from_secs_f64(seconds.unwrap_or(300.0) + 300.0);

    crate::step("no display: headless flythrough (res://demo/flythrough.tscn)");
    let mut cmd = godot.command();
    cmd.args(["--headless", "--path", "godot_project", "res://demo/flythrough.tscn", "--"]).args(&scene_args);
    let out = godot_run::run_captured(cmd, timeout, Echo::Live)?;
    if !out.success() {
        bail!("the headless flythrough failed: Godot {}", out.describe_exit());
    }

    let shots = paths::target_dir()?.join("screenshots");
    fs::create_dir_all(&shots).with_context(|| format!("could not create {}", shots.display()))?;
    for e in fs::read_dir(&shots)?.flatten() {
        if e.path().extension().is_some_and(|x| x == "png") {
            let _ = fs::remove_file(e.path());
        }
    }
    crate::step(format!("rendered flythrough under Xvfb ({XVFB_SCREEN}, OpenGL 3 / llvmpipe) → {}", shots.display()));
    let started = SystemTime::now();
    let mut cmd = godot.xvfb_command(XVFB_SCREEN)?;
    cmd.args(["--rendering-driver", "opengl3", "--rendering-method", "gl_compatibility", "--audio-driver", "Dummy"])
        .args(["--path", "godot_project", "res://demo/flythrough.tscn", "--"])
        .args(&scene_args)
        .arg(format!("--screenshot-dir={}", shots.display()));
    let out = godot_run::run_captured(cmd, timeout, Echo::Live)?;
    let pngs = list_pngs(&shots, started);
    if !out.success() {
        bail!("the rendered flythrough failed: {}", out.describe_exit());
    }
    if pngs.is_empty() {
        bail!("the rendered flythrough wrote no PNG screenshots into {}", shots.display());
    }
    crate::step(format!("{} screenshot(s):", pngs.len()));
    for p in &pngs {
        println!("{}", p.display());
    }
    Ok(ExitCode::SUCCESS)
}

fn list_pngs(dir: &std::path::Path, since: SystemTime) -> Vec<PathBuf> {
    let mut pngs: Vec<PathBuf> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "png"))
        .filter(|e| e.metadata().and_then(|m| m.modified()).is_ok_and(|t| t >= since))
        .map(|e| e.path())
        .collect();
    pngs.sort();
    pngs
}

/// Converts a child's exit status into our exit code (signals map to 128 + n).
pub fn exit_code(status: std::process::ExitStatus) -> ExitCode {
    use std::os::unix::process::ExitStatusExt;
    let code = status.code().unwrap_or_else(|| 128 + status.signal().unwrap_or(0));
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}
