//! Writes the seed corpus of every fuzz target ([`strata_fuzz::seeds`]) into
//! `tests/fuzz_corpus/<target>/`, replacing the generated files there; `--check` only reports
//! (exit 1) when a committed seed differs from what the encoders make now.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let check = std::env::args().skip(1).any(|a| a == "--check");
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fuzz_corpus");
    let mut stale = 0;
    for t in strata_fuzz::TARGETS {
        let dir = root.join(t.name);
        let seeds = strata_fuzz::seeds::seeds(t.name);
        if seeds.is_empty() {
            eprintln!("{}: no seeds", t.name);
            return ExitCode::FAILURE;
        }
        if !check && let Err(e) = std::fs::create_dir_all(&dir) {
            eprintln!("{}: {e}", dir.display());
            return ExitCode::FAILURE;
        }
        for (name, bytes) in &seeds {
            let path = dir.join(name);
            if std::fs::read(&path).ok().as_ref() == Some(bytes) {
                continue;
            }
            stale += 1;
            if check {
                eprintln!("stale or missing seed: {}", path.display());
            } else if let Err(e) = std::fs::write(&path, bytes) {
                eprintln!("{}: {e}", path.display());
                return ExitCode::FAILURE;
            }
        }
        println!("{}: {} seeds", t.name, seeds.len());
    }
    if check && stale > 0 { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}
