//! `cargo xtask movement-soak [--minutes N] [--no-build]`: the server's movement checks
//! (`StrataWorldSync`'s "Server checks", strata-core's `net/movement.rs`) against honest players
//! for minutes: no honest move may ever be corrected.
//!
//! Runs headless Godot on `tests/godot/tools/movement_soak.tscn`: one server and one bot per
//! honest behaviour of the demo's player (`tests/godot/tools/movement_bot.gd`: walk, sprint,
//! jump, crouch and lie down, fall 34 voxels again and again, swim, sprint-jump over a lagging
//! connection), each a client of its own over ENet on 127.0.0.1, all at once for N minutes
//! (default 5), the server stalling 0.4 s every 30 s. Reads the `movement_soak {JSON}` line it
//! prints and prints per behaviour the seconds run, the poses sent and the corrections; fails
//! on any correction, any pose the server refused, or a bot that could not play. The Godot
//! suite (`suites/test_movement_checks.gd`) runs the same bots for seconds.
//!
//! `--no-build` runs the extension already installed in the project instead of building it
//! first (while the crates are being changed, or to soak a given build).
//!
//! May use: the other xtask modules, serde_json.

use crate::error::{Context, Error, Result};
use crate::godot_run::{self, Echo};
use crate::{godot_install, paths, setup, test_project};
use serde_json::Value;
use std::time::Duration;

/// Minutes without `--minutes`.
pub const DEFAULT_MINUTES: f64 = 5.0;
/// The behaviours the soak runs, in the order printed (the bot's `BEHAVIOURS`).
const BEHAVIOURS: &[&str] = &["walk", "sprint", "jump", "crouch", "fall", "swim", "lag"];
/// Time allowed besides the soak itself: Godot's start, the worlds streaming, the bots joining.
const OVERHEAD_S: f64 = 300.0;
/// Lines of Godot's output shown when the soak fails.
const TAIL_LINES: usize = 60;

const USAGE: &str = "usage: cargo xtask movement-soak [--minutes N] [--no-build]";

/// `cargo xtask movement-soak`.
pub fn run(args: &[String]) -> Result<bool> {
    let mut minutes = DEFAULT_MINUTES;
    let mut build = true;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--minutes" => {
                minutes = match it.next().and_then(|v| v.parse::<f64>().ok()) {
                    Some(m) if m > 0.0 && m.is_finite() => m,
                    _ => bail!("--minutes needs a number of minutes above 0\n{USAGE}"),
                }
            }
            "--no-build" => build = false,
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(true);
            }
            other => bail!("unknown argument `{other}`\n{USAGE}"),
        }
    }
    let godot = if build {
        setup::prepare(crate::extension::BuildProfile::Dev)?
    } else {
        let godot = godot_install::ensure_godot()?;
        crate::note(format!("{} (the extension installed in the project, not rebuilt)", godot.describe()));
        godot
    };
    test_project::prepare(&godot)?;
    let log = paths::target_dir()?.join("xtask/movement_soak.log");
    crate::step(format!(
        "movement soak: {} honest bots for {minutes} min on one server (Godot's output: {})",
        BEHAVIOURS.len(),
        log.display()
    ));
    let mut cmd = godot.command();
    cmd.args(["--headless", "--path"]).arg(paths::godot_tests()).args([
        "res://tools/movement_soak.tscn",
        "--",
        &format!("--minutes={minutes}"),
    ]);
    let out = godot_run::run_captured(cmd, Duration::from_secs_f64(minutes * 60.0 + OVERHEAD_S), Echo::Quiet)?;
    if let Some(dir) = log.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("could not create {}", dir.display()))?;
    }
    std::fs::write(&log, out.text()).with_context(|| format!("could not write {}", log.display()))?;
    let report = out.lines.iter().rev().find_map(|l| l.strip_prefix("movement_soak ")).map(serde_json::from_str);
    let report: Value = match report {
        Some(Ok(v)) => v,
        Some(Err(e)) => return Err(failed(&out.lines, format!("its `movement_soak` line is not JSON ({e})"))),
        None => {
            return Err(failed(&out.lines, format!("Godot printed no `movement_soak` line ({})", out.describe_exit())));
        }
    };
    let (table, ok) = summary(&report);
    println!("{table}");
    if !ok || !out.success() {
        print_tail(&out.lines);
        println!("movement soak: FAILED ({}); the whole output: {}", out.describe_exit(), log.display());
        return Ok(false);
    }
    println!("movement soak: ok, no honest move corrected");
    Ok(true)
}

/// The table of figures per behaviour and the server's counters, and whether the soak passed
/// (every behaviour ran, nothing corrected or refused, no error).
fn summary(report: &Value) -> (String, bool) {
    let int = |v: &Value, key: &str| v.get(key).and_then(Value::as_i64).unwrap_or(0);
    let mut ok = true;
    let mut lines = vec![format!(
        "{:<9} {:>9} {:>10} {:>13} {:>12} {:>10}",
        "behaviour", "seconds", "poses set", "packets sent", "corrections", "distance"
    )];
    for &b in BEHAVIOURS {
        let Some(r) = report["behaviours"].get(b) else {
            lines.push(format!("{b:<9} did not run"));
            ok = false;
            continue;
        };
        let corrections = int(r, "corrections");
        ok &= corrections == 0;
        lines.push(format!(
            "{b:<9} {:>9.1} {:>10} {:>13} {:>12} {:>10.1}",
            r["seconds"].as_f64().unwrap_or(0.0),
            int(r, "poses"),
            int(r, "packets"),
            corrections,
            r["distance"].as_f64().unwrap_or(0.0),
        ));
    }
    let server = &report["server"];
    let (corrected, refused) = (int(server, "pose_corrections"), int(server, "poses_refused"));
    ok &= corrected == 0 && refused == 0;
    lines.push(format!("server: pose_corrections {corrected}, poses_refused {refused}"));
    for e in report["errors"].as_array().into_iter().flatten() {
        lines.push(format!("error: {}", e.as_str().unwrap_or_default()));
        ok = false;
    }
    (lines.join("\n"), ok)
}

fn print_tail(lines: &[String]) {
    for l in &lines[lines.len().saturating_sub(TAIL_LINES)..] {
        eprintln!("[godot] {l}");
    }
}

/// An error for a soak whose figures could not be read, after the tail of Godot's output.
fn failed(lines: &[String], why: String) -> Error {
    print_tail(lines);
    Error::msg(format!("movement soak: {why}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_fails_on_a_correction_a_refusal_an_error_or_a_missing_behaviour() {
        let behaviour = |corrections: i64| serde_json::json!({"seconds": 60.0, "poses": 3600, "packets": 900, "corrections": corrections, "distance": 12.5});
        let all = |corrections: i64| {
            let mut m = serde_json::Map::new();
            for b in BEHAVIOURS {
                m.insert(b.to_string(), behaviour(if *b == "swim" { corrections } else { 0 }));
            }
            Value::Object(m)
        };
        let clean = serde_json::json!({"behaviours": all(0), "server": {"pose_corrections": 0, "poses_refused": 0}, "errors": []});
        let (table, ok) = summary(&clean);
        assert!(ok, "{table}");
        assert!(table.contains("swim           60.0       3600           900            0       12.5"), "{table}");
        let corrected = serde_json::json!({"behaviours": all(2), "server": {"pose_corrections": 2, "poses_refused": 2}, "errors": []});
        assert!(!summary(&corrected).0.is_empty() && !summary(&corrected).1);
        let refused = serde_json::json!({"behaviours": all(0), "server": {"pose_corrections": 0, "poses_refused": 1}, "errors": []});
        assert!(!summary(&refused).1);
        let error = serde_json::json!({"behaviours": all(0), "server": {}, "errors": ["swim: no place to play"]});
        assert!(!summary(&error).1);
        let mut missing = clean.clone();
        missing["behaviours"].as_object_mut().unwrap().remove("fall");
        let (table, ok) = summary(&missing);
        assert!(!ok && table.contains("fall      did not run"), "{table}");
    }
}
