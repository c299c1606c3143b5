//! `cargo xtask test`: the static checks ([`crate::lint`]), all Rust tests, then the GDScript
//! lint, the Godot test suite (`tests/godot`, `res://test_runner.tscn`, headless), the class
//! reference check ([`crate::class_reference`]), the rendered checks, the docs' snippets
//! ([`crate::doc_snippets`]), the export check ([`crate::export_test`]: the test game exported
//! as a pack and run from it), the addon package in an empty project ([`crate::package`]) and the
//! crash-consistency kills ([`crate::crash`]), with a final summary.
//!
//! The Godot run fails if Godot exits non-zero or times out, if no line matches
//! `^\d+ passed, \d+ failed`, if that line reports failures, or if the output contains
//! any of [`FORBIDDEN`].

use crate::error::{Context, Result};
use crate::godot_run::{self, Echo, RunOutput};
use crate::renderer::Renderer;
use crate::{gdscript_lint, paths, setup, test_project};
use std::fs;
use std::time::{Duration, Instant};

/// Output fragments that fail the Godot suite even if every test passed.
pub const FORBIDDEN: &[&str] = &[
    "SCRIPT ERROR",
    "Parse Error",
    "Failed to load",
    "ObjectDB instances leaked",
    "Leaked instance",
    "resources still in use at exit",
    // gdext's panic hook prints `[panic file:line]`: a panic fails the suite even when caught.
    "[panic",
];

/// Default limit for the Godot suite; override with `STRATA_GODOT_TEST_TIMEOUT` (seconds).
pub const DEFAULT_TIMEOUT_S: u64 = 600;

const USAGE: &str = "usage: cargo xtask test [--rust-only | --godot-only | --docs-only | --export-only | --editor-only | --package-only] [--no-lint] [--no-rendered] [-- ARGS for the test runner scene]";

/// What the Godot suite's output says.
#[derive(Debug, Default)]
pub struct SuiteReport {
    /// From the last `N passed, M failed` line, if any.
    pub counts: Option<(u64, u64)>,
    /// Reasons the suite fails (empty = success).
    pub problems: Vec<String>,
}

/// Checks a Godot test-runner output for the pass/fail line and forbidden messages.
pub fn analyze(out: &RunOutput) -> SuiteReport {
    let mut report = SuiteReport { counts: out.lines.iter().rev().find_map(|l| parse_counts(l)), problems: vec![] };
    if !out.success() {
        report.problems.push(format!("Godot {}", out.describe_exit()));
    }
    match report.counts {
        None => report.problems.push("no `N passed, M failed` line in the output".into()),
        Some((_, failed)) if failed > 0 => report.problems.push(format!("{failed} test(s) failed")),
        Some(_) => {}
    }
    for pat in FORBIDDEN {
        let hits: Vec<&String> = out.lines.iter().filter(|l| l.contains(pat)).collect();
        if let Some(first) = hits.first() {
            report.problems.push(format!("output contains `{pat}` ({} line(s)); first: {}", hits.len(), first.trim()));
        }
    }
    report
}

/// Parses a line starting with `<digits> passed, <digits> failed`.
pub fn parse_counts(line: &str) -> Option<(u64, u64)> {
    let (passed, rest) = split_number(line)?;
    let rest = rest.strip_prefix(" passed, ")?;
    let (failed, rest) = split_number(rest)?;
    rest.starts_with(" failed").then_some((passed, failed))
}

fn split_number(s: &str) -> Option<(u64, &str)> {
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    if end == 0 {
        return None;
    }
    Some((s[..end].parse().ok()?, &s[end..]))
}

/// `cargo xtask test`.
pub fn run(args: &[String]) -> Result<bool> {
    let mut rust = true;
    let mut godot = true;
    let mut rendered = true;
    let mut lint = true;
    let mut export_only = false;
    let mut editor_only = false;
    let mut package_only = false;
    let mut suite = true;
    let mut runner_args: Vec<String> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--rust-only" => godot = false,
            "--godot-only" => rust = false,
            "--docs-only" => (rust, suite, rendered) = (false, false, false),
            "--no-rendered" => rendered = false,
            "--no-lint" => lint = false,
            "--export-only" => export_only = true,
            "--editor-only" => editor_only = true,
            "--package-only" => package_only = true,
            "--" => runner_args.extend(it.by_ref().cloned()),
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(true);
            }
            other => bail!("unknown argument `{other}`\n{USAGE}"),
        }
    }
    let started = Instant::now();
    let mut summary: Vec<(String, bool)> = Vec::new();
    let mut godot_counts: Vec<(u64, u64)> = Vec::new();
    if editor_only {
        (rust, godot) = (false, false);
        summary.push(editor_check_line());
    }
    if package_only {
        (rust, godot) = (false, false);
        summary.push(fresh_project_line());
    }
    if export_only {
        (rust, godot) = (false, false);
        let t = Instant::now();
        let result = export_check();
        godot_counts.extend(result.as_ref().ok().and_then(|(r, _)| r.counts));
        summary.push(summary_line(EXPORT_CHECK, result, t));
    }

    // Static checks first (crate::lint): import layers, rustfmt, clippy. Not with --godot-only.
    if rust && lint {
        summary.extend(crate::lint::run_checks(&crate::lint::ALL));
    }

    if rust {
        crate::step("Rust tests: cargo test --workspace --exclude strata-godot");
        let t = Instant::now();
        let mut cmd = paths::cargo();
        cmd.args(["test", "--workspace", "--exclude", "strata-godot", "--no-fail-fast"]);
        let status = godot_run::run_inherit(cmd)?;
        summary.push((
            format!(
                "Rust tests (cargo test --workspace --exclude strata-godot): {} in {:.0} s",
                if status.success() {
                    "passed".to_string()
                } else {
                    format!("FAILED, {}", godot_run::describe_status(status))
                },
                t.elapsed().as_secs_f64()
            ),
            status.success(),
        ));
    }

    if godot && suite {
        summary.push(lint_summary_line());
        let t = Instant::now();
        let result = run_godot_suite(&runner_args);
        godot_counts.extend(result.as_ref().ok().and_then(|(r, _)| r.counts));
        summary.push(summary_line("Godot suite (tests/godot, res://test_runner.tscn)", result, t));
        summary.push(class_reference_line());
        // The rendered checks (real frames under Xvfb) run with the full suite, not with a filter.
        if rendered && runner_args.is_empty() {
            for check in RENDERED {
                let t = Instant::now();
                let result = run_rendered_check(check);
                godot_counts.extend(result.as_ref().ok().and_then(|(r, _)| r.counts));
                summary.push(summary_line(
                    &format!("Rendered checks (Xvfb, {:?}, {})", check.renderer, check.scene),
                    result,
                    t,
                ));
            }
        }
    }

    // The docs' GDScript snippets (crate::doc_snippets), not with a runner filter.
    if godot && runner_args.is_empty() {
        let t = Instant::now();
        let name = "Doc snippets (README.md, docs/*.md, res://tools/doc_snippets.tscn)";
        summary.push(match crate::doc_snippets::run() {
            Ok(run) => {
                let mut report = analyze(&run.output);
                report.problems.extend(run.problems);
                match report.counts {
                    Some((p, f)) if (p + f) as usize != run.snippets => report.problems.push(format!(
                        "{} snippets were extracted but the runner reported {}",
                        run.snippets,
                        p + f
                    )),
                    _ => {}
                }
                godot_counts.extend(report.counts);
                let (mut line, ok) = summary_line(name, Ok((report, run.log)), t);
                line.push_str(&format!("\n    {}", run.counts));
                (line, ok)
            }
            Err(e) => (format!("{name}: FAILED — {e}"), false),
        });
    }

    // The editor check (crate::editor_check): the real editor, headless, streams a StrataChunkWorld
    // around its camera. With the full Godot part only.
    if godot && suite && runner_args.is_empty() {
        summary.push(editor_check_line());
    }

    // The export check (crate::export_test), with the full Godot part only.
    if godot && suite && runner_args.is_empty() {
        let t = Instant::now();
        let result = export_check();
        godot_counts.extend(result.as_ref().ok().and_then(|(r, _)| r.counts));
        summary.push(summary_line(EXPORT_CHECK, result, t));
    }

    // The addon package (crate::package): the zip unpacked into an empty project streams a world.
    // With the full Godot part only (not with a runner filter).
    if godot && suite && runner_args.is_empty() {
        summary.push(fresh_project_line());
    }

    // Multiplayer across processes (crate::net_test), with the full Godot part only.
    if godot && suite && runner_args.is_empty() {
        summary.push(crate::net_test::check_line());
        summary.push(crate::net_test_2d::check_line());
    }

    // A crowd on one server, small (crate::loadtest), with the full Godot part only.
    if godot && suite && runner_args.is_empty() {
        summary.push(crate::loadtest::check_line());
    }

    // Crash consistency (crate::crash): SIGKILLs of Godot while it saves, with the full Godot
    // part only (not with a runner filter).
    let mut crash_line = None;
    if godot && suite && runner_args.is_empty() {
        let t = Instant::now();
        let name = format!("Crash consistency ({} SIGKILLs while saving)", crate::crash::CI_KILLS);
        summary.push(match crate::crash::run_kills(crate::crash::CI_KILLS, crate::crash::DEFAULT_SEED) {
            Ok(report) => {
                let ok = report.lost == 0 && report.consistent == report.kills;
                let mut line = format!(
                    "{name}: {} — {} in {:.0} s",
                    if ok { "passed" } else { "FAILED" },
                    report.summary(),
                    t.elapsed().as_secs_f64()
                );
                for p in &report.problems {
                    line.push_str(&format!("\n    problem: {p}"));
                }
                crash_line = Some(report.summary());
                (line, ok)
            }
            Err(e) => (format!("{name}: FAILED — {e}"), false),
        });
    }

    let ok = summary.iter().all(|(_, ok)| *ok);
    eprintln!();
    eprintln!("==================== xtask test summary ====================");
    for (line, _) in &summary {
        eprintln!("{line}");
    }
    eprintln!("RESULT: {} ({:.0} s)", if ok { "PASSED" } else { "FAILED" }, started.elapsed().as_secs_f64());
    if !godot_counts.is_empty() {
        // The closing line: every test that ran inside Godot (suite + rendered checks).
        let (p, f) = godot_counts.iter().fold((0, 0), |(p, f), (a, b)| (p + a, f + b));
        println!("godot: {p} passed, {f} failed");
    }
    if let Some(line) = crash_line {
        println!("{line}");
    }
    Ok(ok)
}

/// The export check ([`crate::export_test`]) read as a suite: its output's counts and
/// forbidden messages, and its own problems.
fn export_check() -> Result<(SuiteReport, std::path::PathBuf)> {
    let run = crate::export_test::run()?;
    let mut report = analyze(&run.out);
    report.problems.extend(run.problems);
    Ok((report, run.log))
}

/// The export check's name in the summary.
const EXPORT_CHECK: &str = "Export check (--export-pack, run from the pack: presets, heightmap, save, profiles)";

/// The summary line of the class-reference check ([`crate::class_reference`]).
fn class_reference_line() -> (String, bool) {
    let t = Instant::now();
    let name = "Class reference (godot --doctool --gdextension-docs: every member described)";
    match crate::class_reference::run_check() {
        Ok((problems, checked)) if problems.is_empty() => {
            (format!("{name}: passed — {checked} in {:.1} s", t.elapsed().as_secs_f64()), true)
        }
        Ok((problems, _)) => (format!("{name}: FAILED\n    {}", problems.join("\n    ")), false),
        Err(e) => (format!("{name}: FAILED — {e}"), false),
    }
}

/// One summary line (and whether it passed) for a Godot run.
fn summary_line(name: &str, result: Result<(SuiteReport, std::path::PathBuf)>, t: Instant) -> (String, bool) {
    match result {
        Ok((report, log)) => {
            let counts = match report.counts {
                Some((p, f)) => format!("{p} passed, {f} failed"),
                None => "no result line".into(),
            };
            let ok = report.problems.is_empty();
            let mut line = format!(
                "{name}: {} — {counts} in {:.0} s (log: {})",
                if ok { "passed" } else { "FAILED" },
                t.elapsed().as_secs_f64(),
                log.display()
            );
            for p in &report.problems {
                line.push_str(&format!("\n    problem: {p}"));
            }
            (line, ok)
        }
        Err(e) => (format!("{name}: FAILED — {e}"), false),
    }
}

/// The editor check's summary line (`--editor-only` runs it alone).
fn editor_check_line() -> (String, bool) {
    let t = Instant::now();
    let name = "Editor check (godot --headless --editor: StrataChunkWorld streams around the editor camera)";
    let result = setup::prepare(crate::extension::BuildProfile::Dev).and_then(|godot| crate::editor_check::run(&godot));
    match result {
        Ok(check) => {
            let ok = check.problems.is_empty();
            let mut line = format!(
                "{name}: {} — {} in {:.0} s (log: {})",
                if ok { "passed" } else { "FAILED" },
                if check.line.is_empty() { "no result line" } else { check.line.as_str() },
                t.elapsed().as_secs_f64(),
                check.log.display()
            );
            for p in &check.problems {
                line.push_str(&format!("\n    problem: {p}"));
            }
            (line, ok)
        }
        Err(e) => (format!("{name}: FAILED — {e}"), false),
    }
}

/// The fresh-project check's summary line: the addon package with the tests' debug library
/// ([`crate::package::build_test_package`]; `cargo xtask package --check-fresh` runs the same
/// check on the `dist` build), the zip unpacked
/// into an empty Godot project, one import, a scene streaming the example world until ready.
fn fresh_project_line() -> (String, bool) {
    let t = Instant::now();
    let name = "Addon package (zip unpacked into an empty project whose own scripts declare class_name Biome, Structure, BlockType… ; one import; example world streams)";
    let result = crate::package::build_test_package().and_then(|package| {
        let godot = crate::godot_install::ensure_godot()?;
        Ok((crate::package::check_fresh_project(&godot, &package.zip)?, package))
    });
    match result {
        Ok((mut report, package)) => {
            for pat in FORBIDDEN {
                if let Some(first) = report.output.lines.iter().find(|l| l.contains(pat)) {
                    report.problems.push(format!("output contains `{pat}`; first: {}", first.trim()));
                }
            }
            let ok = report.problems.is_empty();
            let zip_name = package.zip.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let zip_bytes = fs::metadata(&package.zip).map(|m| m.len()).unwrap_or(0);
            let lib_bytes = package.libraries.iter().map(|l| l.bytes).sum::<u64>();
            let mut line = format!(
                "{name}: {} — {zip_name} ({:.1} MiB, library {:.1} MiB), loaded_chunks={} in {:.0} s (log: {})",
                if ok { "passed" } else { "FAILED" },
                zip_bytes as f64 / f64::from(1u32 << 20),
                lib_bytes as f64 / f64::from(1u32 << 20),
                report.loaded_chunks.map_or("none".to_string(), |n| n.to_string()),
                t.elapsed().as_secs_f64(),
                report.log.display()
            );
            for p in &report.problems {
                line.push_str(&format!("\n    problem: {p}"));
            }
            (line, ok)
        }
        Err(e) => (format!("{name}: FAILED — {e}"), false),
    }
}

/// The GDScript lint's summary line (gdlint and `gdformat --check`, see [`gdscript_lint`]).
fn lint_summary_line() -> (String, bool) {
    let t = Instant::now();
    let name = format!("GDScript lint (gdlint, gdformat --check; {})", gdscript_lint::GDTOOLKIT);
    match gdscript_lint::check(false) {
        Ok(report) => {
            let ok = report.problems.is_empty();
            let mut line = format!(
                "{name}: {} — {} files in {:.0} s",
                if ok { "passed" } else { "FAILED" },
                report.files,
                t.elapsed().as_secs_f64()
            );
            for p in &report.problems {
                line.push_str(&format!("\n    problem: {p}"));
            }
            (line, ok)
        }
        Err(e) => (format!("{name}: FAILED — {e}"), false),
    }
}

/// A rendered check: a scene of the test project run under Xvfb.
struct RenderedCheck {
    /// The scene, in the test project.
    scene: &'static str,
    /// User arguments besides `--out-dir`.
    args: &'static [&'static str],
    /// Log file name under `<target>/xtask/`.
    log: &'static str,
    /// The renderer it runs on.
    renderer: Renderer,
}

/// The rendered checks: the world at noon and at midnight (brightness, and the world filling
/// the lower half of the frame); baked light (a sealed room black, lit by torches; torches at
/// midnight; a sunset with long shadows); the sun's shadows by distance band against the height
/// field's (horizon); the floating origin (a scene drawn at the origin and at x = z = 1e9, and
/// just before and after an origin shift, gives the same frame; the side view's too, at 10⁹
/// tiles and across a shift); the main menu, settings menu,
/// HUD and pause menu.
/// The world and light checks run again on Forward+ (Vulkan on lavapipe): the block shader,
/// water and sky must work in both renderers.
const RENDERED: &[RenderedCheck] = &[
    RenderedCheck {
        scene: "res://rendered/day_night_shots.tscn",
        args: &[],
        log: "rendered-tests.log",
        renderer: Renderer::Compatibility,
    },
    RenderedCheck {
        scene: "res://rendered/light_shots.tscn",
        args: &[],
        log: "rendered-light.log",
        renderer: Renderer::Compatibility,
    },
    // The sun's shadow maps to the far view's 2,048 m, then to 250 m only (beyond, the horizon
    // shadows alone must shade), in one world streamed once.
    RenderedCheck {
        scene: "res://rendered/horizon_shadow_shots.tscn",
        args: &["--shadow-distance=2048,250"],
        log: "rendered-horizon.log",
        renderer: Renderer::Compatibility,
    },
    RenderedCheck {
        scene: "res://rendered/origin_shots.tscn",
        args: &[],
        log: "rendered-origin.log",
        renderer: Renderer::Compatibility,
    },
    // The same ground as near chunks and as far columns: no colour pop (ΔE of its mean colour).
    RenderedCheck {
        scene: "res://rendered/far_colour_shots.tscn",
        args: &[],
        log: "rendered-far-colour.log",
        renderer: Renderer::Compatibility,
    },
    // A platform of stone and grass close up with the 16 and the 32 texture sets: the 32 set
    // shows finer detail (neighbouring pixels differ more) in the same mean colour.
    RenderedCheck {
        scene: "res://rendered/texture_sets_shots.tscn",
        args: &[],
        log: "rendered-texture-sets.log",
        renderer: Renderer::Compatibility,
    },
    // A forest with trees of blocks and without, from one camera: the crown shows where the
    // world says.
    RenderedCheck {
        scene: "res://rendered/tree_shots.tscn",
        args: &[],
        log: "rendered-trees.log",
        renderer: Renderer::Compatibility,
    },
    // Grass tinted by climate: two places' hues differ, no step across a chunk border, the
    // drawn tint is the core's and the climate texture holds the core's corners.
    RenderedCheck {
        scene: "res://rendered/climate_tint_shots.tscn",
        args: &[],
        log: "rendered-climate-tint.log",
        renderer: Renderer::Compatibility,
    },
    RenderedCheck {
        scene: "res://rendered/origin_shots_2d.tscn",
        args: &[],
        log: "rendered-origin-2d.log",
        renderer: Renderer::Compatibility,
    },
    RenderedCheck {
        scene: "res://rendered/ui_shots.tscn",
        args: &["--view-distance=3", "--far-view=1"],
        log: "rendered-ui.log",
        renderer: Renderer::Compatibility,
    },
    RenderedCheck {
        scene: "res://rendered/day_night_shots.tscn",
        args: &[],
        log: "rendered-tests-forward-plus.log",
        renderer: Renderer::ForwardPlus,
    },
    RenderedCheck {
        scene: "res://rendered/light_shots.tscn",
        args: &[],
        log: "rendered-light-forward-plus.log",
        renderer: Renderer::ForwardPlus,
    },
];

/// Renders real frames under Xvfb on the check's renderer and saves the screenshots to
/// `<target>/screenshots/rendered-tests` (`…/forward_plus` for Forward+).
fn run_rendered_check(check: &RenderedCheck) -> Result<(SuiteReport, std::path::PathBuf)> {
    let godot = setup::prepare(crate::extension::BuildProfile::Dev)?;
    test_project::prepare(&godot)?;
    let shots = paths::target_dir()?.join("screenshots").join(check.renderer.shots_dir());
    fs::create_dir_all(&shots)?;
    crate::step(format!("Rendered checks under Xvfb ({:?}): {} → {}", check.renderer, check.scene, shots.display()));
    let mut cmd = godot.xvfb_command("1280x720x24")?;
    cmd.args(check.renderer.args()).args(["--audio-driver", "Dummy", "--path"]);
    cmd.arg(paths::godot_tests()).arg(check.scene).arg("--");
    cmd.arg(format!("--out-dir={}", shots.display())).args(check.args);
    // Software rendering on two shared cores: a check with several views takes minutes.
    let out = godot_run::run_captured(cmd, Duration::from_secs(600), Echo::Live)?;
    let log = paths::target_dir()?.join("xtask").join(check.log);
    if let Some(dir) = log.parent() {
        fs::create_dir_all(dir)?;
    }
    fs::write(&log, out.text()).with_context(|| format!("could not write {}", log.display()))?;
    let mut report = analyze(&out);
    report.problems.extend(check.renderer.check_output(&out.lines));
    Ok((report, log))
}

fn run_godot_suite(runner_args: &[String]) -> Result<(SuiteReport, std::path::PathBuf)> {
    let runner = paths::godot_tests().join("test_runner.tscn");
    let godot = setup::prepare(crate::extension::BuildProfile::Dev)?;
    if !runner.is_file() {
        bail!("tests/godot/test_runner.tscn missing — the Godot test suite cannot run");
    }
    test_project::prepare(&godot)?;
    let timeout =
        std::env::var("STRATA_GODOT_TEST_TIMEOUT").ok().and_then(|s| s.parse().ok()).unwrap_or(DEFAULT_TIMEOUT_S);
    crate::step(format!(
        "Godot suite: godot --headless --path tests/godot res://test_runner.tscn (timeout {timeout} s)"
    ));
    let mut cmd = godot.command();
    cmd.args(["--headless", "--path"]).arg(paths::godot_tests()).arg("res://test_runner.tscn");
    if !runner_args.is_empty() {
        cmd.arg("--").args(runner_args);
    }
    let out = godot_run::run_captured(cmd, Duration::from_secs(timeout), Echo::Live)?;
    let log = paths::target_dir()?.join("xtask/godot-tests.log");
    if let Some(dir) = log.parent() {
        fs::create_dir_all(dir)?;
    }
    fs::write(&log, out.text()).with_context(|| format!("could not write {}", log.display()))?;
    Ok((analyze(&out), log))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts() {
        assert_eq!(parse_counts("12 passed, 0 failed"), Some((12, 0)));
        assert_eq!(parse_counts("3 passed, 2 failed (1.2 s)"), Some((3, 2)));
        assert_eq!(parse_counts(" 3 passed, 2 failed"), None);
        assert_eq!(parse_counts("passed, 2 failed"), None);
        assert_eq!(parse_counts("3 passed, x failed"), None);
    }

    #[test]
    fn analysis() {
        use std::os::unix::process::ExitStatusExt;
        let out = |lines: &[&str], code: i32| RunOutput {
            status: Some(std::process::ExitStatus::from_raw(code << 8)),
            timed_out: false,
            lines: lines.iter().map(|s| s.to_string()).collect(),
            elapsed: Duration::ZERO,
            stopped_at: None,
        };
        assert!(analyze(&out(&["ok a", "5 passed, 0 failed"], 0)).problems.is_empty());
        assert_eq!(analyze(&out(&["5 passed, 1 failed"], 1)).problems.len(), 2);
        assert_eq!(analyze(&out(&["hello"], 0)).problems.len(), 1);
        let r = analyze(&out(&["WARNING: ObjectDB instances leaked at exit", "5 passed, 0 failed"], 0));
        assert_eq!(r.problems.len(), 1);
        let r = analyze(&out(&["ERROR: [panic rust/strata-core/src/base/coords.rs:63]", "5 passed, 0 failed"], 0));
        assert_eq!(r.problems.len(), 1, "a caught panic still fails the suite");
    }
}
