//! `cargo xtask platforms [windows|arm64|macos|all]`: the addon on the platforms this x86_64 Linux
//! machine cannot boot, as far as each goes here, ending with one table (platform / built / loaded
//! / tests passed / fingerprints equal). Not part of `cargo xtask test`: the arm64 suite runs under
//! emulation and takes far longer than the CI budget leaves.
//!
//! * **arm64**: `strata-godot` cross-built for `aarch64-unknown-linux-gnu`, loaded by Debian's
//!   arm64 Godot under `qemu-aarch64` ([`crate::arm64`]); the Godot suite's named subset
//!   [`ARM64_SUITES`] (why the rest is left out: its docs); the core's golden tests
//!   ([`GOLDEN_TESTS`]: chunks, meshes, presets, saves, every SIMD path against the constants
//!   x86_64 wrote) run as arm64 binaries under QEMU; and `res://tools/platform_fingerprints.tscn`
//!   run by both Godots, whose voxel, mesh and save fingerprints must be equal, each loading the
//!   other's save.
//! * **windows**: the DLL cross-built with MinGW-w64 ([`crate::package`]); it is loaded only by a
//!   Windows Godot under Wine, which this machine does not have: the row says what is missing and
//!   the step that would make it.
//! * **macos**: `cargo check` of `strata-core` and `strata-godot` for both Apple targets, then
//!   `cargo build`, which stops where Apple's SDK is needed (linking; `lipo` and signing come
//!   after); the row names the step that stopped it.
//!
//! May use: [`crate::arm64`], [`crate::package`], [`crate::setup`], [`crate::test_project`],
//! [`crate::test_suite`] (the suite's reading), [`crate::godot_install`], [`crate::godot_run`],
//! [`crate::extension`], [`crate::rustup`], [`crate::paths`].

use crate::error::{Context, Error, Result, tail};
use crate::godot_install::Godot;
use crate::godot_run::{self, Echo, RunOutput};
use crate::{arm64, extension, paths, rustup, test_suite};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

const USAGE: &str = "usage: cargo xtask platforms [windows|arm64|macos|all] [--no-suite] [--filter TEXT]
  arm64      cross-build for aarch64, run Debian's arm64 Godot under qemu-aarch64: the Godot suite
             (the named subset that fits under emulation), the core's golden tests as arm64
             binaries, and the fingerprints of chunks, meshes and saves against x86_64's
  windows    cross-build the DLL (MinGW-w64); look for a Windows Godot to load it under Wine
  macos      cargo check / build for aarch64-apple-darwin and x86_64-apple-darwin, up to Apple's SDK
  all        all three (the default)
  --no-suite skip the arm64 Godot suite (the longest step)
  --filter T run only the suite's tests whose name contains T";

/// The core's tests whose expected values are x86_64's, run as arm64 binaries: the golden worlds
/// (voxels of the shipped presets, the packed mesh bytes Godot receives), saves and old formats
/// (bytes written and read), and every SIMD path against the portable one.
pub const GOLDEN_TESTS: &[&str] = &["golden", "golden_meshes", "golden_presets", "saves", "old_formats", "simd_paths"];

/// The Godot suite's named subset run under emulation: the suites whose tests wait for no
/// streamed world (plus `test_biomes`, whose two small waits passed under QEMU on 2026-11-29),
/// about 60 tests. The others stream worlds for 0.1 to 30 s natively and wait at most 60 s of
/// wall-clock time for them, which the emulated CPU (QEMU user mode, a dev build, two shared cores;
/// 37× to 4,300× slower per test, docs/platforms.md) does not reach: on 2026-11-29 the whole
/// suite was stopped after 21 min with 36 of 267 tests run, each failure a 60 s wait for a
/// streamed area, none an assertion about a result. Streaming, meshing and saves on arm64 are
/// checked instead by `res://tools/platform_fingerprints.tscn` against x86_64's, bit for bit.
pub const ARM64_SUITES: &[&str] = &[
    "test_abuse_tools",
    "test_biomes",
    "test_cellular_automaton",
    "test_class_upgrade",
    "test_editor_warnings",
    "test_packed_files",
    "test_presets",
    "test_profiles",
    "test_scripts",
    "test_settings_menu",
    "test_strata_noise",
];

/// Seconds the arm64 suite may take under emulation.
const ARM64_SUITE_TIMEOUT_S: u64 = 5400;
/// Factor on the suite's `wait_until` timeouts under emulation (the runner's `--wait-scale`).
const ARM64_WAIT_SCALE: u32 = 8;

/// The line the fingerprint scene ends with.
const FINGERPRINT_PREFIX: &str = "strata-platform-fingerprints:";

/// How a step ended.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Outcome {
    Pass(String),
    Fail(String),
    /// Not possible on this machine (with why).
    Blocked(String),
    /// Not attempted.
    Skipped(String),
}

impl Outcome {
    fn cell(&self) -> String {
        match self {
            Outcome::Pass(s) => format!("yes: {s}"),
            Outcome::Fail(s) => format!("FAILED: {s}"),
            Outcome::Blocked(s) => format!("blocked: {s}"),
            Outcome::Skipped(s) => format!("not run: {s}"),
        }
    }

    fn failed(&self) -> bool {
        matches!(self, Outcome::Fail(_))
    }
}

/// One row of the table.
struct Row {
    platform: &'static str,
    built: Outcome,
    loaded: Outcome,
    tests: Outcome,
    fingerprints: Outcome,
}

impl Row {
    fn new(platform: &'static str) -> Row {
        let not_yet = || Outcome::Skipped("an earlier step failed".into());
        Row { platform, built: not_yet(), loaded: not_yet(), tests: not_yet(), fingerprints: not_yet() }
    }

    fn failed(&self) -> bool {
        [&self.built, &self.loaded, &self.tests, &self.fingerprints].iter().any(|o| o.failed())
    }
}

struct Options {
    suite: bool,
    filter: Option<String>,
}

/// `cargo xtask platforms`.
pub fn run(args: &[String]) -> Result<ExitCode> {
    let mut which: Vec<&str> = Vec::new();
    let mut opts = Options { suite: true, filter: None };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "windows" | "arm64" | "macos" => which.push(a.as_str()),
            "all" => which.extend(["arm64", "windows", "macos"]),
            "--no-suite" => opts.suite = false,
            "--filter" => {
                opts.filter = Some(it.next().with_context(|| format!("--filter needs a text\n{USAGE}"))?.clone())
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(ExitCode::SUCCESS);
            }
            other => bail!("unknown argument `{other}`\n{USAGE}"),
        }
    }
    if which.is_empty() {
        which = vec!["arm64", "windows", "macos"];
    }
    which.dedup();
    let started = Instant::now();
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    for platform in which {
        match platform {
            "arm64" => rows.push(arm64_row(&opts, &mut notes)),
            "windows" => rows.push(windows_row(&mut notes)),
            _ => rows.extend(macos_rows(&mut notes)),
        }
    }
    let table = render_table(&rows);
    notes.extend(cell_details(&rows));
    let log = paths::target_dir()?.join("xtask/platforms.txt");
    if let Some(dir) = log.parent() {
        fs::create_dir_all(dir).with_context(|| format!("could not create {}", dir.display()))?;
    }
    let mut text = table.clone();
    for n in &notes {
        text.push_str(&format!("\n- {n}"));
    }
    fs::write(&log, format!("{text}\n")).with_context(|| format!("could not write {}", log.display()))?;
    eprintln!();
    println!("{table}");
    for n in &notes {
        println!("- {n}");
    }
    println!("({:.0} s; table in {})", started.elapsed().as_secs_f64(), log.display());
    Ok(if rows.iter().any(Row::failed) { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

const COLUMNS: [&str; 4] = ["built", "loaded by a Godot", "tests passed", "fingerprints equal to x86_64"];

impl Row {
    fn cells(&self) -> [String; 4] {
        [self.built.cell(), self.loaded.cell(), self.tests.cell(), self.fingerprints.cell()]
    }
}

/// A table cell: the text's first non-empty line, `|` escaped; `(details below)` when lines were
/// left out (they are printed under the table, [`cell_details`]).
fn one_line(text: &str) -> String {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or("").trim_end_matches(':').replace('|', "\\|");
    if lines.next().is_some() { format!("{first} (details below)") } else { first }
}

/// A Markdown table of the rows, one line per row.
fn render_table(rows: &[Row]) -> String {
    let mut out = format!("| platform | {} |\n|---|---|---|---|---|\n", COLUMNS.join(" | "));
    for r in rows {
        let cells: Vec<String> = r.cells().iter().map(|c| one_line(c)).collect();
        out.push_str(&format!("| {} | {} |\n", r.platform, cells.join(" | ")));
    }
    out
}

/// The cells that hold more than one line, whole: `platform, column:` and the text.
fn cell_details(rows: &[Row]) -> Vec<String> {
    let mut out = Vec::new();
    for r in rows {
        for (column, cell) in COLUMNS.iter().zip(r.cells()) {
            if cell.trim().lines().count() > 1 {
                out.push(format!("{}, {column}:\n{}", r.platform, cell.trim_end()));
            }
        }
    }
    out
}

fn secs(t: Instant) -> String {
    format!("{:.0} s", t.elapsed().as_secs_f64())
}

// ---------------------------------------------------------------------------------------------
// Linux arm64

fn arm64_row(opts: &Options, notes: &mut Vec<String>) -> Row {
    let mut row = Row::new("Linux arm64 (aarch64)");
    let t = Instant::now();
    let built = match build_arm64_debug() {
        Ok(path) => {
            let bytes = fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
            row.built = Outcome::Pass(format!(
                "cross gcc, dev profile, {:.1} MiB, exports gdext_rust_init ({})",
                bytes as f64 / f64::from(1u32 << 20),
                secs(t)
            ));
            path
        }
        Err(e) => {
            row.built = Outcome::Fail(e.to_string());
            return row;
        }
    };

    // The core's golden tests as arm64 binaries under QEMU.
    let t = Instant::now();
    let golden = golden_tests_arm64();
    let golden_cell = match &golden {
        Ok((passed, 0)) => Outcome::Pass(format!("core golden tests {passed}/{passed} under QEMU ({})", secs(t))),
        Ok((passed, failed)) => Outcome::Fail(format!("core golden tests: {passed} passed, {failed} failed")),
        Err(e) => Outcome::Fail(format!("core golden tests: {e}")),
    };

    // Godot: the x86_64 reference, then the arm64 Godot with the arm64 library.
    let x86 = match crate::setup::prepare(extension::BuildProfile::Dev) {
        Ok(g) => g,
        Err(e) => {
            row.loaded = Outcome::Fail(format!("the x86_64 reference could not be prepared: {e}"));
            row.fingerprints = golden_cell;
            return row;
        }
    };
    let godot = match arm64::ensure_godot() {
        Ok(g) => g,
        Err(e) => {
            row.loaded = Outcome::Fail(e.to_string());
            row.fingerprints = golden_cell;
            return row;
        }
    };
    let qemu = arm64::qemu_version(&godot.program).unwrap_or_else(|_| "qemu-aarch64".into());
    notes.push(format!("arm64 Godot: {} — {}; {qemu}", godot.version, godot.program.display()));
    if let Err(e) = install_arm64_library(&built) {
        row.loaded = Outcome::Fail(e.to_string());
        return row;
    }
    if let Err(e) = crate::test_project::prepare(&x86) {
        row.loaded = Outcome::Fail(format!("the test project could not be prepared: {e}"));
        return row;
    }

    let t = Instant::now();
    let fingerprints = compare_fingerprints(&x86, &godot, notes);
    match &fingerprints {
        Ok(arch) if arch == "arm64" => {
            row.loaded = Outcome::Pass(format!("Godot {} arm64 under {qemu} ({})", short_version(&godot), secs(t)))
        }
        Ok(arch) => row.loaded = Outcome::Fail(format!("the emulated Godot reported architecture `{arch}`")),
        Err(e) => row.loaded = Outcome::Fail(e.to_string()),
    }
    row.fingerprints = match (&fingerprints, golden_cell) {
        (Ok(_), Outcome::Pass(g)) => Outcome::Pass(format!("{g}; Godot voxels, meshes, saves (both ways)")),
        (Ok(_), other) => other,
        (Err(e), Outcome::Pass(g)) => Outcome::Fail(format!("{g}, but Godot's: {e}")),
        (Err(e), other) => Outcome::Fail(format!("{}; Godot's: {e}", other.cell())),
    };

    row.tests = if opts.suite {
        let t = Instant::now();
        match run_arm64_suite(&godot, opts.filter.as_deref()) {
            Ok((report, log)) => {
                let counts =
                    report.counts.map_or("no result line".to_string(), |(p, f)| format!("{p} passed, {f} failed"));
                let line = format!(
                    "Godot suite subset ({} suites) {counts} ({}; log {})",
                    ARM64_SUITES.len(),
                    secs(t),
                    log.display()
                );
                if report.problems.is_empty() {
                    Outcome::Pass(line)
                } else {
                    Outcome::Fail(format!("{line}: {}", report.problems.join("; ")))
                }
            }
            Err(e) => Outcome::Fail(e.to_string()),
        }
    } else {
        Outcome::Skipped("--no-suite".into())
    };
    notes.push(format!("arm64 Godot suite subset: {} (see platforms::ARM64_SUITES for why)", ARM64_SUITES.join(", ")));
    row
}

/// `cargo build -p strata-godot --target aarch64-unknown-linux-gnu` (the tests' profile), checked
/// for gdext's entry symbol and the arm64 machine type.
fn build_arm64_debug() -> Result<PathBuf> {
    rustup::ensure_rust_target(arm64::ARM64_TARGET)?;
    let linker = arm64::ensure_linker()?;
    let mut cmd = paths::cargo();
    cmd.args(["build", "-p", "strata-godot", "--target", arm64::ARM64_TARGET]);
    cmd.env(arm64::LINKER_ENV, &linker);
    let shown = godot_run::display_command(&cmd);
    crate::step(format!("building the Linux arm64 library: {shown}"));
    let status = godot_run::run_inherit(cmd)?;
    if !status.success() {
        bail!("`{shown}` failed ({})", godot_run::describe_status(status));
    }
    let path = paths::target_dir()?.join(arm64::ARM64_TARGET).join("debug").join(extension::LIB_NAME);
    let data = fs::read(&path).with_context(|| format!("could not read {}", path.display()))?;
    crate::package::check_entry_symbol(&data)
        .with_context(|| format!("{} is not a loadable GDExtension", path.display()))?;
    let machine = elf_machine(&data);
    if machine != Some(183) {
        bail!("{} is not an arm64 ELF file (e_machine {machine:?}, want 183, EM_AARCH64)", path.display());
    }
    Ok(path)
}

/// The ELF header's `e_machine` (little-endian files).
fn elf_machine(data: &[u8]) -> Option<u16> {
    (data.len() > 20 && data.starts_with(b"\x7fELF")).then(|| u16::from_le_bytes([data[18], data[19]]))
}

/// Copies the arm64 library where `strata.gdextension`'s `linux.*.arm64` entries point.
fn install_arm64_library(built: &Path) -> Result<()> {
    let dst =
        paths::godot_project().join("addons/strata/bin").join(crate::package::Platform::LinuxArm64.shipped_name());
    if !paths::same_contents(built, &dst) {
        paths::copy_atomic(built, &dst).with_context(|| format!("could not install {}", dst.display()))?;
    }
    Ok(())
}

/// `cargo test --target aarch64-unknown-linux-gnu -p strata-tests --test …` with QEMU as the
/// runner; returns (passed, failed) summed over the test binaries.
fn golden_tests_arm64() -> Result<(u64, u64)> {
    let linker = arm64::ensure_linker()?;
    let runner = arm64::test_runner()?;
    let mut cmd = paths::cargo();
    cmd.args(["test", "--target", arm64::ARM64_TARGET, "-p", "strata-tests", "--no-fail-fast"]);
    for t in GOLDEN_TESTS {
        cmd.args(["--test", t]);
    }
    cmd.env(arm64::LINKER_ENV, &linker).env(arm64::RUNNER_ENV, &runner);
    let shown = godot_run::display_command(&cmd);
    crate::step(format!("the core's golden tests as arm64 binaries under QEMU: {shown}"));
    let out = godot_run::run_captured(cmd, Duration::from_secs(5400), Echo::Live)?;
    let log = paths::target_dir()?.join("xtask/platforms-arm64-golden.log");
    if let Some(dir) = log.parent() {
        fs::create_dir_all(dir)?;
    }
    fs::write(&log, out.text()).with_context(|| format!("could not write {}", log.display()))?;
    let (mut passed, mut failed, mut binaries) = (0, 0, 0);
    for line in &out.lines {
        if let Some((p, f)) = parse_cargo_result(line) {
            passed += p;
            failed += f;
            binaries += 1;
        }
    }
    if binaries < GOLDEN_TESTS.len() {
        return Err(Error::msg(format!(
            "{binaries} of {} test binaries reported ({}; log {}):\n{}",
            GOLDEN_TESTS.len(),
            out.describe_exit(),
            log.display(),
            tail(&out.lines, 20)
        )));
    }
    Ok((passed, failed))
}

/// `test result: ok. 3 passed; 0 failed; …` → (3, 0).
fn parse_cargo_result(line: &str) -> Option<(u64, u64)> {
    let rest = line.trim().strip_prefix("test result: ")?;
    let rest = rest.split_once(". ")?.1;
    let (passed, rest) = rest.split_once(" passed; ")?;
    let failed = rest.split_once(" failed")?.0;
    Some((passed.trim().parse().ok()?, failed.trim().parse().ok()?))
}

/// `4.6.3.stable.debian…` → `4.6.3`.
fn short_version(g: &Godot) -> String {
    crate::godot_install::parse_version(&g.version).map_or(g.version.clone(), |(a, b, c)| format!("{a}.{b}.{c}"))
}

/// The fingerprint scene's `key=value` pairs, from its output.
fn fingerprint_pairs(out: &RunOutput) -> Option<Vec<(String, String)>> {
    let line = out.lines.iter().rev().find_map(|l| l.trim().strip_prefix(FINGERPRINT_PREFIX))?;
    Some(
        line.split_whitespace()
            .filter_map(|p| p.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    )
}

fn value<'a>(pairs: &'a [(String, String)], key: &str) -> Option<&'a str> {
    pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

/// Runs the fingerprint scene in one Godot; `load` is a save the other machine wrote.
fn fingerprint_run(
    godot: &Godot,
    name: &str,
    save: &Path,
    load: Option<&Path>,
    timeout: Duration,
) -> Result<Vec<(String, String)>> {
    crate::step(format!("fingerprints on {name}: res://tools/platform_fingerprints.tscn"));
    let mut cmd = godot.command();
    cmd.args(["--headless", "--path"]).arg(paths::godot_tests()).arg("res://tools/platform_fingerprints.tscn");
    cmd.arg("--").arg(format!("--save={}", save.display()));
    if let Some(l) = load {
        cmd.arg(format!("--load={}", l.display()));
    }
    let out = godot_run::run_captured_until(cmd, timeout, Echo::Quiet, godot_run::godot_fatal)?;
    let log = paths::target_dir()?.join(format!("xtask/platforms-fingerprints-{name}.log"));
    fs::write(&log, out.text()).with_context(|| format!("could not write {}", log.display()))?;
    let forbidden: Vec<&str> =
        test_suite::FORBIDDEN.iter().copied().filter(|p| out.lines.iter().any(|l| l.contains(p))).collect();
    match fingerprint_pairs(&out) {
        Some(pairs) if out.success() && forbidden.is_empty() => Ok(pairs),
        _ => Err(Error::msg(format!(
            "the fingerprint scene failed on {name} ({}{}; log {}):\n{}",
            out.describe_exit(),
            if forbidden.is_empty() { String::new() } else { format!(", output has {forbidden:?}") },
            log.display(),
            tail(&out.lines, 15)
        ))),
    }
}

/// x86_64 first (writes its save), then arm64 (loads x86_64's, writes its own), then x86_64
/// loads arm64's; every fingerprint must be equal. Returns the arm64 Godot's architecture name.
fn compare_fingerprints(x86: &Godot, arm: &Godot, notes: &mut Vec<String>) -> Result<String> {
    let dir = paths::target_dir()?.join("tmp/platforms");
    fs::create_dir_all(&dir).with_context(|| format!("could not create {}", dir.display()))?;
    let (x86_save, arm_save) = (dir.join("x86_64.strata"), dir.join("arm64.strata"));
    let _ = fs::remove_file(&x86_save);
    let _ = fs::remove_file(&arm_save);
    let a = fingerprint_run(x86, "x86_64", &x86_save, None, Duration::from_secs(300))?;
    let b = fingerprint_run(arm, "arm64", &arm_save, Some(&x86_save), Duration::from_secs(1800))?;
    let again = dir.join("x86_64-again.strata");
    let c = fingerprint_run(x86, "x86_64-loads-arm64", &again, Some(&arm_save), Duration::from_secs(300))?;
    let mut problems = Vec::new();
    for key in ["voxels", "meshes", "mesh_count", "edited", "save"] {
        let (va, vb) = (value(&a, key), value(&b, key));
        if va.is_none() || va != vb {
            problems.push(format!("{key}: x86_64 {} ≠ arm64 {}", va.unwrap_or("-"), vb.unwrap_or("-")));
        }
    }
    // Each side's loaded world equals the writer's edited one.
    for (who, pairs) in [("arm64 loading x86_64's save", &b), ("x86_64 loading arm64's save", &c)] {
        if value(pairs, "loaded") != value(&a, "edited") {
            problems.push(format!(
                "{who}: voxels {} ≠ {}",
                value(pairs, "loaded").unwrap_or("-"),
                value(&a, "edited").unwrap_or("-")
            ));
        }
    }
    notes.push(format!(
        "fingerprints (x86_64 = arm64): voxels {}, meshes {} ({} meshes), save {}",
        value(&a, "voxels").unwrap_or("-"),
        value(&a, "meshes").unwrap_or("-"),
        value(&a, "mesh_count").unwrap_or("-"),
        value(&a, "save").unwrap_or("-")
    ));
    if !problems.is_empty() {
        bail!("fingerprints differ: {}", problems.join("; "));
    }
    Ok(value(&b, "arch").unwrap_or("").to_string())
}

/// The Godot suite's subset [`ARM64_SUITES`] in the arm64 Godot.
fn run_arm64_suite(godot: &Godot, filter: Option<&str>) -> Result<(test_suite::SuiteReport, PathBuf)> {
    crate::step(format!("Godot suite on arm64 (emulated): res://test_runner.tscn (timeout {ARM64_SUITE_TIMEOUT_S} s)"));
    let mut cmd = godot.command();
    cmd.args(["--headless", "--path"]).arg(paths::godot_tests()).arg("res://test_runner.tscn").arg("--");
    if let Some(f) = filter {
        cmd.arg(format!("--filter={f}"));
    }
    cmd.arg(format!("--suites={}", ARM64_SUITES.join(",")));
    // QEMU runs the arm64 Godot many times slower than the host: the tests wait as long for
    // the same conditions (a loaded 2-core host once took over 60 s to stream one view).
    cmd.arg(format!("--wait-scale={ARM64_WAIT_SCALE}"));
    let out = godot_run::run_captured_until(
        cmd,
        Duration::from_secs(ARM64_SUITE_TIMEOUT_S),
        Echo::Live,
        godot_run::godot_fatal,
    )?;
    let log = paths::target_dir()?.join("xtask/platforms-arm64-suite.log");
    fs::write(&log, out.text()).with_context(|| format!("could not write {}", log.display()))?;
    Ok((test_suite::analyze(&out), log))
}

// ---------------------------------------------------------------------------------------------
// Windows

/// Where a Windows Godot would be looked for: `$STRATA_WINDOWS_GODOT`, or `.tools/windows/`.
fn windows_godot() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("STRATA_WINDOWS_GODOT").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let dir = paths::tools_dir().join("windows");
    let mut found: Vec<PathBuf> = fs::read_dir(&dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().is_some_and(|n| {
                let n = n.to_string_lossy();
                n.starts_with("godot") && n.ends_with(".exe")
            })
        })
        .collect();
    found.sort();
    found.into_iter().next()
}

/// The step that would build a Windows Godot here (Godot's documented cross-compilation).
pub const WINDOWS_GODOT_BUILD: &str = "apt-get source godot (Debian unstable, 4.6.3+ds) && cd godot-4.6.3* && \
scons platform=windows target=template_debug arch=x86_64 use_mingw=yes d3d12=no -j2 (MinGW-w64 from .tools/mingw), \
then wine64 bin/godot.windows.template_debug.x86_64.exe --headless";

fn windows_row(notes: &mut Vec<String>) -> Row {
    let mut row = Row::new("Windows x86_64");
    let t = Instant::now();
    match crate::package::build_library(crate::package::Platform::WindowsX86_64) {
        Ok(lib) => {
            row.built = Outcome::Pass(format!(
                "MinGW-w64 cross-build, dist profile, {:.1} MiB PE exporting gdext_rust_init ({})",
                lib.bytes as f64 / f64::from(1u32 << 20),
                secs(t)
            ))
        }
        Err(e) => row.built = Outcome::Fail(e.to_string()),
    }
    let wine = ["wine", "wine64"].iter().find_map(paths::which);
    let reason = match (windows_godot(), &wine) {
        (Some(g), Some(w)) => format!(
            "a Windows Godot ({}) and Wine ({}) are here, but running the suite under Wine is not written yet",
            g.display(),
            w.display()
        ),
        (g, w) => format!(
            "no Windows Godot 4.6 ({}) {} Wine ({}): Debian ships no Windows build of Godot, and building one from \
             Godot's source with SCons and MinGW-w64 takes hours on this 2-core machine",
            g.map_or("none in $STRATA_WINDOWS_GODOT or .tools/windows/".to_string(), |p| p.display().to_string()),
            if w.is_some() { "with" } else { "and no" },
            w.as_ref().map_or("not on PATH".to_string(), |p| p.display().to_string())
        ),
    };
    row.loaded = Outcome::Blocked(reason);
    row.tests = Outcome::Blocked("nothing loads the DLL here".into());
    row.fingerprints = Outcome::Blocked("nothing loads the DLL here".into());
    notes.push(format!("Windows Godot would come from: {WINDOWS_GODOT_BUILD}"));
    row
}

// ---------------------------------------------------------------------------------------------
// macOS

const MACOS_TARGETS: &[(&str, &str)] =
    &[("aarch64-apple-darwin", "macOS arm64"), ("x86_64-apple-darwin", "macOS x86_64")];

fn macos_rows(notes: &mut Vec<String>) -> Vec<Row> {
    let mut rows = Vec::new();
    for (target, platform) in MACOS_TARGETS {
        let mut row = Row::new(platform);
        let t = Instant::now();
        let checked = rustup::ensure_rust_target(target).and_then(|()| {
            cargo_step(
                &["check", "-p", "strata-core", "-p", "strata-godot", "--target", target],
                &format!("macos-check-{target}"),
            )
        });
        let check_cell = match checked {
            Ok(_) => format!("`cargo check` of strata-core and strata-godot ({})", secs(t)),
            Err(e) => {
                row.built = Outcome::Fail(format!("`cargo check --target {target}`: {e}"));
                rows.push(row);
                continue;
            }
        };
        let t = Instant::now();
        let core = cargo_step(&["build", "-p", "strata-core", "--target", target], &format!("macos-core-{target}"));
        let godot = cargo_step(&["build", "-p", "strata-godot", "--target", target], &format!("macos-build-{target}"));
        row.built = match (core, godot) {
            (Ok(_), Ok(_)) => Outcome::Pass(format!("{check_cell}; `cargo build` linked the dylib ({})", secs(t))),
            (Ok(_), Err(e)) => {
                let first = e.to_string();
                let needs_sdk = first.contains("-arch") || first.contains("linking with") || first.contains("ld:");
                notes.push(format!(
                    "macOS {target}: `cargo build -p strata-godot` stopped at: {}",
                    first.lines().next().unwrap_or("")
                ));
                let step = if needs_sdk {
                    "the link of the dylib needs Apple's linker and SDK (then lipo, codesign)"
                } else {
                    "the build failed"
                };
                Outcome::Blocked(format!("{check_cell}; strata-core built (rlib); {step} ({})", secs(t)))
            }
            (Err(e), _) => Outcome::Fail(format!("{check_cell}; `cargo build -p strata-core`: {e}")),
        };
        row.loaded = Outcome::Blocked("no macOS Godot runs on Linux".into());
        row.tests = Outcome::Blocked("no macOS Godot runs on Linux".into());
        row.fingerprints = Outcome::Blocked("no macOS Godot runs on Linux".into());
        rows.push(row);
    }
    rows
}

/// Runs `cargo ARGS`, logging to `<target>/xtask/platforms-NAME.log`; an error carries the first
/// `error` line and the log's path.
fn cargo_step(args: &[&str], name: &str) -> Result<()> {
    let mut cmd: Command = paths::cargo();
    cmd.args(args);
    let shown = godot_run::display_command(&cmd);
    crate::step(shown.clone());
    let out = godot_run::run_captured(cmd, Duration::from_secs(3600), Echo::Quiet)?;
    let log = paths::target_dir()?.join(format!("xtask/platforms-{name}.log"));
    if let Some(dir) = log.parent() {
        fs::create_dir_all(dir)?;
    }
    fs::write(&log, out.text()).with_context(|| format!("could not write {}", log.display()))?;
    if out.success() {
        return Ok(());
    }
    let first = out.lines.iter().find(|l| l.trim_start().starts_with("error")).cloned().unwrap_or_default();
    let detail = out
        .lines
        .iter()
        .find(|l| l.contains("-arch") || l.contains("ld:") || l.contains("cc: error"))
        .cloned()
        .unwrap_or_default();
    Err(Error::msg(format!(
        "`{shown}` failed ({}): {} {} (log {})",
        out.describe_exit(),
        first.trim(),
        detail.trim(),
        log.display()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cargo_result_lines() {
        assert_eq!(parse_cargo_result("test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured"), Some((3, 0)));
        assert_eq!(parse_cargo_result("test result: FAILED. 2 passed; 1 failed; 0 ignored"), Some((2, 1)));
        assert_eq!(parse_cargo_result("running 3 tests"), None);
    }

    #[test]
    fn elf_machines() {
        let mut header = vec![0u8; 64];
        header[..4].copy_from_slice(b"\x7fELF");
        header[18] = 183;
        assert_eq!(elf_machine(&header), Some(183));
        assert_eq!(elf_machine(b"MZ"), None);
    }

    #[test]
    fn the_table_has_a_row_per_platform() {
        let mut row = Row::new("Linux arm64");
        row.built = Outcome::Pass("x".into());
        let table = render_table(&[row]);
        assert!(table.lines().nth(2).is_some_and(|l| l.starts_with("| Linux arm64 | yes: x |")), "{table}");
    }

    #[test]
    fn a_cell_is_one_line_and_the_rest_is_below() {
        let mut row = Row::new("Linux arm64");
        row.loaded = Outcome::Fail("the scene failed (exit code 1):\n    SCRIPT ERROR: a | b\n    at line 3".into());
        let rows = [row];
        let table = render_table(&rows);
        assert_eq!(table.lines().count(), 3, "{table}");
        assert!(table.contains("| FAILED: the scene failed (exit code 1) (details below) |"), "{table}");
        let details = cell_details(&rows);
        assert_eq!(details.len(), 1);
        assert!(details[0].starts_with("Linux arm64, loaded by a Godot:\nFAILED: the scene failed"), "{details:?}");
        assert!(details[0].contains("at line 3"));
        assert_eq!(one_line("a | b"), "a \\| b");
    }
}
