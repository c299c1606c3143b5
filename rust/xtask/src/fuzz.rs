//! `cargo xtask fuzz [--minutes N] [--cases N]`: runs the fuzz tests of strata-tests (every
//! `tests/tests/fuzz*.rs` target) with many proptest cases (`STRATA_FUZZ_CASES`), round after
//! round until N minutes have passed, printing the cases run and the failures. The targets are
//! built before the clock starts, and a round still running at the deadline is stopped there
//! (its process group killed) and not counted, so the run ends within a few seconds of N minutes.
//!
//! `--coverage` hands the command to [`crate::fuzz_afl`] (coverage-guided fuzzing with AFL++).
//!
//! May use: `paths`, `error`, `godot_run` (its process-group runner with a timeout), `fuzz_afl`
//! and the step/note printers of `main`.

use crate::error::{Error, Result};
use crate::godot_run::Echo;
use crate::paths;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Default run time and cases per property per round.
const DEFAULT_MINUTES: f64 = 10.0;
const DEFAULT_CASES: u32 = 20_000;

/// What the command line asked for.
#[derive(Debug, PartialEq)]
struct Options {
    minutes: f64,
    cases: u32,
}

fn parse(args: &[String]) -> Result<Options> {
    let mut o = Options { minutes: DEFAULT_MINUTES, cases: DEFAULT_CASES };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let value = |it: &mut std::slice::Iter<'_, String>| {
            it.next().cloned().ok_or_else(|| Error::msg(format!("`{a}` needs a value")))
        };
        match a.as_str() {
            "--minutes" => {
                let v = value(&mut it)?;
                o.minutes = v
                    .parse()
                    .ok()
                    .filter(|m: &f64| m.is_finite() && *m > 0.0)
                    .ok_or_else(|| Error::msg(format!("--minutes {v}: allowed: a number of minutes above 0")))?;
            }
            "--cases" => {
                let v = value(&mut it)?;
                o.cases = v
                    .parse()
                    .ok()
                    .filter(|c: &u32| *c > 0)
                    .ok_or_else(|| Error::msg(format!("--cases {v}: allowed: an integer above 0")))?;
            }
            other => return Err(Error::msg(format!("unknown argument `{other}`; allowed: --minutes N, --cases N"))),
        }
    }
    Ok(o)
}

/// The fuzz test targets of strata-tests: the stems of `tests/tests/fuzz*.rs`, sorted.
fn fuzz_targets() -> Result<Vec<String>> {
    let dir = paths::repo_root().join("tests/tests");
    let entries = std::fs::read_dir(&dir).map_err(|e| Error::msg(format!("{}: {e}", dir.display())))?;
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|n| n.starts_with("fuzz") && n.ends_with(".rs"))
        .map(|n| n.trim_end_matches(".rs").to_string())
        .collect();
    names.sort();
    Ok(names)
}

/// Passed and failed test counts summed over the `test result:` lines of libtest output.
fn count_results(output: &str) -> (u32, u32) {
    let number_before = |line: &str, word: &str| -> u32 {
        line.split(';')
            .find_map(|part| part.trim().strip_suffix(word).and_then(|n| n.trim().rsplit(' ').next()?.parse().ok()))
            .unwrap_or(0)
    };
    output
        .lines()
        .filter(|l| l.starts_with("test result:"))
        .fold((0, 0), |(p, f), l| (p + number_before(l, "passed"), f + number_before(l, "failed")))
}

pub fn run(args: &[String]) -> Result<ExitCode> {
    if args.iter().any(|a| a == "--coverage") {
        return crate::fuzz_afl::run(args);
    }
    let o = parse(args)?;
    let targets = fuzz_targets()?;
    if targets.is_empty() {
        return Err(Error::msg("no tests/tests/fuzz*.rs targets in strata-tests"));
    }
    crate::step(format!(
        "fuzzing {} for {} min, {} cases per property per round",
        targets.join(", "),
        o.minutes,
        o.cases
    ));
    let fuzz_command = |cases: u32, build_only: bool| {
        let mut cmd = paths::cargo();
        cmd.args(["test", "--release", "-p", "strata-tests"]);
        for t in &targets {
            cmd.args(["--test", t]);
        }
        if build_only {
            cmd.arg("--no-run");
        }
        cmd.env("STRATA_FUZZ_CASES", cases.to_string());
        cmd
    };
    let status = fuzz_command(o.cases, true).status().map_err(|e| Error::msg(format!("cannot run cargo: {e}")))?;
    if !status.success() {
        return Err(Error::msg(format!("building the fuzz targets failed ({status})")));
    }
    let deadline = Instant::now() + Duration::from_secs_f64(o.minutes * 60.0);
    let (mut rounds, mut tests_run, mut failures) = (0u32, 0u64, 0u32);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let out = crate::godot_run::run_captured(fuzz_command(o.cases, false), left, Echo::Quiet)?;
        if out.timed_out {
            crate::note(format!("round {}: stopped at the deadline; its partial results are not counted", rounds + 1));
            break;
        }
        let text = out.text();
        let (passed, failed) = count_results(&text);
        rounds += 1;
        tests_run += (passed + failed) as u64;
        failures += failed;
        crate::note(format!(
            "round {rounds}: {passed} tests passed, {failed} failed (about {} cases, {:.0} s)",
            (passed + failed) as u64 * o.cases as u64,
            out.elapsed.as_secs_f64()
        ));
        if !out.success() {
            failures += (failed == 0) as u32;
            eprintln!("{text}");
            break;
        }
        if Instant::now() >= deadline {
            break;
        }
    }
    crate::step(format!(
        "{rounds} rounds, {tests_run} test runs, about {} cases, {failures} failures",
        tests_run * o.cases as u64
    ));
    Ok(if failures == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_parse_and_refuse_bad_values() {
        let args = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
        assert_eq!(parse(&[]).unwrap(), Options { minutes: DEFAULT_MINUTES, cases: DEFAULT_CASES });
        assert_eq!(parse(&args("--minutes 2.5 --cases 100")).unwrap(), Options { minutes: 2.5, cases: 100 });
        assert!(parse(&args("--minutes 0")).is_err());
        assert!(parse(&args("--minutes")).is_err());
        assert!(parse(&args("--cases -3")).is_err());
        assert!(parse(&args("--fast")).is_err());
    }

    #[test]
    fn results_are_summed_and_targets_found() {
        let out = "running 3 tests\ntest result: ok. 3 passed; 0 failed; 0 ignored\n\
                   test result: FAILED. 5 passed; 2 failed; 0 ignored; 0 measured";
        assert_eq!(count_results(out), (8, 2));
        let targets = fuzz_targets().unwrap();
        assert!(targets.iter().any(|t| t == "fuzz_presets_heightmaps"), "{targets:?}");
        assert!(targets.iter().all(|t| t.starts_with("fuzz")));
    }
}
