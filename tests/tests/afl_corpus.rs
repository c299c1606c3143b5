//! The committed inputs of the coverage-guided fuzz targets (rust/strata-fuzz, run by
//! `cargo xtask fuzz --coverage`), replayed through the same harnesses as plain tests:
//!
//! * every target has a seed corpus in `tests/fuzz_corpus/<target>/`, it is what the seed
//!   generator makes now (`cargo run -p strata-fuzz --bin fuzz-seeds` rewrites it), and every
//!   seed passes its harness;
//! * every crash or hang AFL++ found, kept in `tests/fuzz_regressions/<target>/`, now ends in a
//!   clean error or a round trip: its harness runs without a panic, well within a hang's time.
//!
//! A failure names the target and the file.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use strata_fuzz::TARGETS;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// The files of `dir`, sorted (none when it does not exist).
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.is_file()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// Runs `target`'s harness on `path`, naming both if it panics.
fn replay(target: &strata_fuzz::Target, path: &Path) -> Duration {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let start = Instant::now();
    if std::panic::catch_unwind(|| (target.run)(&bytes)).is_err() {
        panic!("fuzz target {}: {} panics", target.name, path.display());
    }
    start.elapsed()
}

#[test]
fn every_target_has_a_fresh_seed_corpus_that_passes() {
    let corpus = root().join("fuzz_corpus");
    for t in TARGETS {
        let dir = corpus.join(t.name);
        let committed = files(&dir);
        assert!(!committed.is_empty(), "fuzz target {} has no seed corpus in {}", t.name, dir.display());
        for (name, bytes) in strata_fuzz::seeds::seeds(t.name) {
            let path = dir.join(&name);
            assert!(
                std::fs::read(&path).ok() == Some(bytes),
                "{} is missing or stale: run `cargo run -p strata-fuzz --bin fuzz-seeds`",
                path.display()
            );
        }
        for path in committed {
            replay(t, &path);
        }
    }
    // No corpus folder without a target.
    for dir in std::fs::read_dir(&corpus).into_iter().flatten().filter_map(|e| e.ok()) {
        let name = dir.file_name().to_string_lossy().into_owned();
        assert!(strata_fuzz::target(&name).is_some(), "tests/fuzz_corpus/{name} belongs to no fuzz target");
    }
}

#[test]
fn every_kept_crash_and_hang_is_now_a_clean_result() {
    let dir = root().join("fuzz_regressions");
    for entry in std::fs::read_dir(&dir).into_iter().flatten().filter_map(|e| e.ok()) {
        let name = entry.file_name().to_string_lossy().into_owned();
        let target = strata_fuzz::target(&name)
            .unwrap_or_else(|| panic!("tests/fuzz_regressions/{name} belongs to no fuzz target"));
        for path in files(&entry.path()) {
            let took = replay(target, &path);
            // A hang was an input that took AFL++'s timeout (1 s or more, in a build with
            // overflow checks); a debug test build gets ten times that.
            assert!(took < Duration::from_secs(10), "{}: took {took:?}", path.display());
        }
    }
}
