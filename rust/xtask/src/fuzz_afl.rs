//! `cargo xtask fuzz --coverage [--minutes N] [--jobs N] [--target NAME]...`: coverage-guided fuzzing of
//! every strata-core decoder of outside bytes with AFL++, through cargo-afl on stable Rust.
//!
//! Sets up what it needs on a fresh machine: cargo-afl (`cargo install cargo-afl --locked`,
//! whose crate carries AFL++'s source and builds its runtime and `afl-fuzz` for the installed
//! rustc; `cargo afl config --build` when that runtime is missing). AFL++ itself is the one
//! cargo-afl builds: Debian's `afl++` package (4.04c) speaks an older fork-server protocol than
//! the runtime cargo-afl links into the targets, so its `afl-fuzz` cannot drive them. Then it
//! builds strata-fuzz's binaries (`cargo afl build`, feature `afl`, target directory
//! `<target>/afl` so the normal build is never invalidated), runs each target for N minutes
//! (default 10; `--jobs N` runs N targets side by side, one afl-fuzz each) from its seeds in `tests/fuzz_corpus/<target>/` (output in
//! `<target>/afl/out/<target>/`, started afresh) and prints per target the executions, the
//! corpus entries (seeds and paths found), crashes and hangs from afl-fuzz's `fuzzer_stats`.
//! Every crash and hang input is copied into `tests/fuzz_regressions/<target>/`
//! (`crash-<fnv64>` / `hang-<fnv64>`), where strata-tests replays it.
//!
//! May use: `paths`, `error`, `godot_run` (its process-group runner with a timeout), the
//! step/note printers of `main`, strata-fuzz's target list and strata-core's FNV hash.

use crate::error::{Context, Error, Result};
use crate::godot_run::Echo;
use crate::paths;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Duration;
use strata_core::preset::fingerprint::fnv1a64;

/// Default minutes per target.
const DEFAULT_MINUTES: f64 = 10.0;

/// afl-fuzz's time limit per input, in ms. Fixed rather than calibrated: on a loaded machine the
/// calibrated limit (a few times the seeds' run time, 20 ms at least) reports inputs as hangs that
/// replay in milliseconds; every decoder takes well under this for the fuzzer's small inputs.
const INPUT_TIMEOUT_MS: u32 = 500;

/// What the command line asked for.
#[derive(Debug, PartialEq)]
pub struct Options {
    pub minutes: f64,
    /// Targets run at the same time, each by its own afl-fuzz.
    pub jobs: usize,
    /// Targets to run, in order; empty: all of them.
    pub targets: Vec<String>,
}

/// Parses the arguments after `fuzz` (`--coverage` itself is skipped).
pub fn parse(args: &[String]) -> Result<Options> {
    let mut o = Options { minutes: DEFAULT_MINUTES, jobs: 1, targets: Vec::new() };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().cloned().ok_or_else(|| Error::msg(format!("`{a}` needs a value")));
        match a.as_str() {
            "--coverage" => {}
            "--minutes" => {
                let v = value()?;
                o.minutes = v
                    .parse()
                    .ok()
                    .filter(|m: &f64| m.is_finite() && *m > 0.0)
                    .ok_or_else(|| Error::msg(format!("--minutes {v}: allowed: a number of minutes above 0")))?;
            }
            "--jobs" => {
                let v = value()?;
                o.jobs = v
                    .parse()
                    .ok()
                    .filter(|j| (1..=256).contains(j))
                    .ok_or_else(|| Error::msg(format!("--jobs {v}: allowed: a whole number from 1 to 256")))?;
            }
            "--target" => {
                let v = value()?;
                if strata_fuzz::target(&v).is_none() {
                    let names: Vec<&str> = strata_fuzz::TARGETS.iter().map(|t| t.name).collect();
                    bail!("--target {v}: allowed: {}", names.join(", "));
                }
                o.targets.push(v);
            }
            other => bail!("unknown argument `{other}`; allowed with --coverage: --minutes N, --jobs N, --target NAME"),
        }
    }
    Ok(o)
}

/// The figures of one run, from `fuzzer_stats`.
#[derive(Debug, Default, PartialEq)]
pub struct Figures {
    pub executions: u64,
    pub corpus: u64,
    pub found: u64,
    pub crashes: u64,
    pub hangs: u64,
    pub seconds: u64,
}

/// Reads afl-fuzz's `fuzzer_stats` text (`key : value` lines; AFL++ 4 names).
pub fn read_stats(text: &str) -> Figures {
    let map: BTreeMap<&str, u64> = text
        .lines()
        .filter_map(|l| l.split_once(':'))
        .filter_map(|(k, v)| Some((k.trim(), v.trim().parse().ok()?)))
        .collect();
    let get = |keys: &[&str]| keys.iter().find_map(|k| map.get(k).copied()).unwrap_or(0);
    Figures {
        executions: get(&["execs_done"]),
        corpus: get(&["corpus_count", "paths_total"]),
        found: get(&["corpus_found", "paths_found"]),
        crashes: get(&["saved_crashes", "unique_crashes"]),
        hangs: get(&["saved_hangs", "unique_hangs"]),
        seconds: get(&["run_time"]),
    }
}

fn run_ok(mut cmd: Command, what: &str) -> Result<()> {
    let shown = crate::godot_run::display_command(&cmd);
    let status = cmd.status().with_context(|| format!("could not run `{shown}`"))?;
    if !status.success() {
        bail!("{what} failed: `{shown}` ({status})");
    }
    Ok(())
}

/// `cargo afl` works: installs cargo-afl and builds AFL++'s runtime when missing.
fn ensure_cargo_afl() -> Result<()> {
    let works =
        |args: &[&str]| paths::cargo().args(args).output().is_ok_and(|o| o.status.success() && !o.stdout.is_empty());
    if !works(&["afl", "--version"]) {
        crate::step("installing cargo-afl (cargo install cargo-afl --locked; builds AFL++ from the crate)");
        let mut cmd = paths::cargo();
        cmd.args(["install", "cargo-afl", "--locked"]);
        run_ok(cmd, "installing cargo-afl").map_err(|e| e.hint("cargo-afl needs crates.io, make and a C compiler"))?;
    }
    // Builds the runtime for this rustc; says so and fails harmlessly when it is there already.
    let out = paths::cargo().args(["afl", "config", "--build"]).output().context("could not run `cargo afl config`")?;
    let text = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() && !text.contains("already built") {
        bail!("`cargo afl config --build` failed:\n{}", text.lines().take(20).collect::<Vec<_>>().join("\n"));
    }
    Ok(())
}

/// Builds the AFL++ binaries into `<target>/afl`.
fn build(afl_target: &Path) -> Result<()> {
    crate::step("building the fuzz targets (cargo afl build -p strata-fuzz --features afl)");
    let mut cmd = paths::cargo();
    cmd.args(["afl", "build", "-p", "strata-fuzz", "--features", "afl", "--bins"]).env("CARGO_TARGET_DIR", afl_target);
    run_ok(cmd, "building the fuzz targets")
}

/// Copies every crash and hang input of `out` into `tests/fuzz_regressions/<target>/`; returns
/// the new files.
fn keep_findings(out: &Path, target: &str) -> Result<Vec<PathBuf>> {
    let dest = paths::repo_root().join("tests/fuzz_regressions").join(target);
    let mut kept = Vec::new();
    for (dir, kind) in [("crashes", "crash"), ("hangs", "hang")] {
        let Ok(entries) = std::fs::read_dir(out.join("default").join(dir)) else { continue };
        for e in entries.filter_map(|e| e.ok()) {
            if !e.file_name().to_string_lossy().starts_with("id:") {
                continue;
            }
            let bytes = std::fs::read(e.path()).with_context(|| format!("reading {}", e.path().display()))?;
            let path = dest.join(format!("{kind}-{:016x}", fnv1a64(&bytes)));
            if !path.exists() {
                std::fs::create_dir_all(&dest).with_context(|| format!("creating {}", dest.display()))?;
                std::fs::write(&path, &bytes).with_context(|| format!("writing {}", path.display()))?;
                kept.push(path);
            }
        }
    }
    Ok(kept)
}

/// Runs one target for `minutes` from its seeds; its figures.
fn fuzz_one(afl_target: &Path, name: &str, minutes: f64) -> Result<Figures> {
    let seeds = paths::repo_root().join("tests/fuzz_corpus").join(name);
    if std::fs::read_dir(&seeds).map(|d| d.count()).unwrap_or(0) == 0 {
        bail!("{name}: no seeds in {}", seeds.display());
    }
    let out = afl_target.join("out").join(name);
    if out.exists() {
        std::fs::remove_dir_all(&out).with_context(|| format!("clearing {}", out.display()))?;
    }
    // afl-fuzz makes the output folder, not its parents.
    std::fs::create_dir_all(afl_target.join("out")).with_context(|| format!("creating {}", afl_target.display()))?;
    let binary = afl_target.join("debug").join(name);
    let seconds = (minutes * 60.0).round().max(1.0) as u64;
    let mut cmd = paths::cargo();
    cmd.args(["afl", "fuzz", "-t", &INPUT_TIMEOUT_MS.to_string(), "-V", &seconds.to_string(), "-i"])
        .arg(&seeds)
        .arg("-o")
        .arg(&out)
        .arg("--")
        .arg(&binary)
        .env("AFL_NO_UI", "1")
        .env("AFL_SKIP_CPUFREQ", "1")
        .env("AFL_NO_AFFINITY", "1")
        .env("AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES", "1");
    let limit = Duration::from_secs(seconds + 120);
    let run = crate::godot_run::run_captured(cmd, limit, Echo::Quiet)?;
    let stats = std::fs::read_to_string(out.join("default/fuzzer_stats")).map_err(|e| {
        Error::msg(format!("{name}: afl-fuzz wrote no fuzzer_stats ({e}); it {}", run.describe_exit()))
            .context(crate::error::tail(&run.lines, 25))
    })?;
    let figures = read_stats(&stats);
    for path in keep_findings(&out, name)? {
        crate::warn(format!("{name}: kept {}", path.display()));
    }
    Ok(figures)
}

/// The command: set up, build, fuzz each target, print the table.
pub fn run(args: &[String]) -> Result<ExitCode> {
    let o = parse(args)?;
    let names: Vec<String> = if o.targets.is_empty() {
        strata_fuzz::TARGETS.iter().map(|t| t.name.to_string()).collect()
    } else {
        o.targets.clone()
    };
    ensure_cargo_afl()?;
    let afl_target = paths::target_dir()?.join("afl");
    build(&afl_target)?;
    crate::step(format!(
        "fuzzing {} targets for {} min each, {} at a time: {}",
        names.len(),
        o.minutes,
        o.jobs,
        names.join(", ")
    ));
    // Workers take the next target from a shared index; rows keep the list's order.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: std::sync::Mutex<Vec<Option<Result<Figures>>>> =
        std::sync::Mutex::new(names.iter().map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..o.jobs.min(names.len()) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    let Some(name) = names.get(i) else { break };
                    let result = fuzz_one(&afl_target, name, o.minutes);
                    if let Ok(f) = &result {
                        crate::note(format!(
                            "{name}: {} executions in {} s, {} corpus entries ({} found), {} crashes, {} hangs",
                            f.executions, f.seconds, f.corpus, f.found, f.crashes, f.hangs
                        ));
                    }
                    if let Ok(mut r) = results.lock() {
                        r[i] = Some(result);
                    }
                }
            });
        }
    });
    let mut rows = Vec::new();
    let results = results.into_inner().map_err(|_| Error::msg("a fuzzing worker panicked"))?;
    for (name, result) in names.iter().zip(results) {
        let f = result.ok_or_else(|| Error::msg(format!("{name}: not run")))??;
        rows.push((name.clone(), f));
    }
    println!("| target | minutes | executions | corpus (found) | crashes / hangs |");
    println!("|---|---:|---:|---:|---:|");
    for (name, f) in &rows {
        println!(
            "| {name} | {:.1} | {} | {} ({}) | {} / {} |",
            f.seconds as f64 / 60.0,
            f.executions,
            f.corpus,
            f.found,
            f.crashes,
            f.hangs
        );
    }
    let bad = rows.iter().filter(|(_, f)| f.crashes + f.hangs > 0).count();
    if bad > 0 {
        crate::warn(format!(
            "{bad} targets crashed or hung: the inputs are in tests/fuzz_regressions/ (replayed by strata-tests)"
        ));
    }
    Ok(if bad == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_parse_and_refuse_bad_values() {
        let args = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
        assert_eq!(parse(&args("--coverage")).unwrap(), Options { minutes: DEFAULT_MINUTES, jobs: 1, targets: vec![] });
        assert_eq!(
            parse(&args("--coverage --minutes 2 --jobs 2 --target save --target vox")).unwrap(),
            Options { minutes: 2.0, jobs: 2, targets: vec!["save".into(), "vox".into()] }
        );
        assert!(parse(&args("--coverage --jobs 0")).is_err());
        assert!(parse(&args("--coverage --target nope")).is_err());
        assert!(parse(&args("--coverage --minutes 0")).is_err());
        assert!(parse(&args("--coverage --cases 5")).is_err());
    }

    #[test]
    fn fuzzer_stats_are_read() {
        let text = "start_time        : 1\nrun_time          : 600\nexecs_done        : 123456\n\
                    corpus_count      : 80\ncorpus_found      : 75\nsaved_crashes     : 2\nsaved_hangs       : 0\n\
                    target_mode       : shmem_testcase default\n";
        let f = read_stats(text);
        assert_eq!(f, Figures { executions: 123456, corpus: 80, found: 75, crashes: 2, hangs: 0, seconds: 600 });
    }
}
