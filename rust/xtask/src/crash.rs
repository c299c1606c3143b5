//! `cargo xtask crash [--kills N] [--seed S]`: crash consistency of world saves (law: Nothing is
//! lost).
//!
//! Runs headless Godot on `tests/godot/tools/save_loop.gd`, which loads (or creates) one world
//! save and then edits and saves it in a loop, printing `saved N` after each completed save. The
//! harness kills the process with SIGKILL after a random delay (seeded RNG, spread over several
//! saves), then reads the file with strata-core's own loader
//! ([`strata_core::persist::save::read_world_save`]) and checks that it holds the last completed
//! save or the one in progress (counter N or N + 1 in its game state, with exactly the edits of
//! that save), restarts Godot on it (which loads it again) and repeats. Ends with
//! `crash consistency: N kills, N consistent, 0 lost`.
//!
//! May use: the other xtask modules and strata-core.

use crate::error::{Context, Result};
use crate::{paths, setup, test_project};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};
use strata_core::persist::save::{SaveOptions, read_world_save};

/// Kills for `cargo xtask crash` without `--kills`.
pub const DEFAULT_KILLS: u32 = 200;
/// Kills inside `cargo xtask test`.
pub const CI_KILLS: u32 = 200;
/// The delay RNG's seed without `--seed`.
pub const DEFAULT_SEED: u64 = 19;

/// Mirrors of the constants in `tests/godot/tools/save_loop.gd`.
const BASE_EDITS: usize = 20000;
const MARK_Y: i32 = 320;

const USAGE: &str = "usage: cargo xtask crash [--kills N] [--seed S]";

/// The outcome of a run of kills.
#[derive(Debug, Default)]
pub struct CrashReport {
    pub kills: u32,
    pub consistent: u32,
    /// Kills after which the file was neither the last completed save nor the one in progress.
    pub lost: u32,
    /// Kills that landed after at least one save of that process had completed.
    pub mid_loop: u32,
    /// Kills where the file already held the save whose `saved` line was never printed: the
    /// kill came after the rename, inside the save call.
    pub newer: u32,
    /// What went wrong, per inconsistent kill.
    pub problems: Vec<String>,
}

impl CrashReport {
    pub fn summary(&self) -> String {
        format!("crash consistency: {} kills, {} consistent, {} lost", self.kills, self.consistent, self.lost)
    }
}

/// `cargo xtask crash`.
pub fn run(args: &[String]) -> Result<bool> {
    let mut kills = DEFAULT_KILLS;
    let mut seed = DEFAULT_SEED;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--kills" => kills = number(it.next(), "--kills")?,
            "--seed" => seed = number(it.next(), "--seed")?,
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(true);
            }
            other => bail!("unknown argument `{other}`\n{USAGE}"),
        }
    }
    let report = run_kills(kills, seed)?;
    for p in &report.problems {
        eprintln!("[xtask]     inconsistent: {p}");
    }
    println!("{}", report.summary());
    Ok(report.lost == 0 && report.consistent == report.kills)
}

fn number<T: std::str::FromStr>(v: Option<&String>, flag: &str) -> Result<T> {
    match v.and_then(|s| s.parse().ok()) {
        Some(n) => Ok(n),
        None => bail!("{flag} needs a whole number\n{USAGE}"),
    }
}

/// SplitMix64: the kill delays, reproducible from `--seed`.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// A uniform float in `[0, 1)`.
fn unit(rng: &mut SplitMix64) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// Builds the extension, imports the test project, then kills Godot `kills` times.
pub fn run_kills(kills: u32, seed: u64) -> Result<CrashReport> {
    let godot = setup::prepare(crate::extension::BuildProfile::Dev)?;
    test_project::prepare(&godot)?;
    let dir = paths::target_dir()?.join("xtask/crash");
    if dir.exists() {
        std::fs::remove_dir_all(&dir).with_context(|| format!("could not clear {}", dir.display()))?;
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("could not create {}", dir.display()))?;
    let save = dir.join("world.strata");
    crate::step(format!("Crash consistency: {kills} SIGKILLs of Godot saving {} (seed {seed})", save.display()));
    let mut rng = SplitMix64(seed);
    let mut report = CrashReport::default();
    // The counter the file held after the previous kill (None: no file yet).
    let mut on_disk: Option<u64> = None;
    // Seconds per save, measured as the run goes (the first process has no figure yet).
    let mut save_period = 0.05f64;
    let started = Instant::now();
    while report.kills < kills {
        let mut cmd = godot.command();
        cmd.args(["--headless", "--path"]).arg(paths::godot_tests());
        cmd.args(["-s", "res://tools/save_loop.gd", "--"]).arg(format!("--save={}", save.display()));
        cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
        let mut child = cmd.spawn().context("could not start Godot for the crash test")?;
        let lines = read_lines(&mut child);
        // Up to the `ready` line: the process has loaded the previous save (a second check that
        // it loads) and is about to save.
        let loaded = match wait_ready(&lines, Duration::from_secs(60)) {
            Ok(loaded) => loaded,
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(e);
            }
        };
        // Godot must load what strata-core read from the file after the previous kill.
        let mut errors: Vec<String> = Vec::new();
        if loaded != on_disk {
            errors.push(format!("Godot loaded counter {loaded:?}, the file held {on_disk:?} after the previous kill"));
        }
        // Kill somewhere in the next ~6 saves, at a random fraction of a save.
        let delay = Duration::from_secs_f64(unit(&mut rng) * 6.0 * save_period);
        let t0 = Instant::now();
        std::thread::sleep(delay);
        child.kill().context("could not kill Godot")?;
        let _ = child.wait();
        let mut completed: Vec<u64> = Vec::new();
        // Every line written before the kill is in the pipe; the reader ends at its close.
        for line in lines.iter() {
            match line.strip_prefix("saved ").and_then(|n| n.trim().parse().ok()) {
                Some(n) => completed.push(n),
                None if line.contains("failed") || line.contains("[panic") => errors.push(format!("Godot: {line}")),
                None => {}
            }
        }
        if completed.len() >= 2 {
            let per = t0.elapsed().as_secs_f64() / completed.len() as f64;
            save_period = 0.8 * save_period + 0.2 * per;
        }
        report.kills += 1;
        if !completed.is_empty() {
            report.mid_loop += 1;
        }
        let last_completed = completed.last().copied().or(loaded);
        let verdict = check_file(&save, last_completed)
            .and_then(|n| if errors.is_empty() { Ok(n) } else { Err(errors.join("; ")) });
        match verdict {
            Ok(n) => {
                report.consistent += 1;
                if n.is_some() && n > last_completed {
                    report.newer += 1;
                }
                on_disk = n;
            }
            Err(why) => {
                report.lost += 1;
                report.problems.push(format!("kill {}: {why}", report.kills));
                // Go on from whatever is there, so one failure does not hide the others.
                on_disk = read_world_save(&save, SaveOptions::default()).ok().and_then(|s| counter_of(&s.state));
                if on_disk.is_none() {
                    let _ = std::fs::remove_file(&save);
                }
            }
        }
        remove_temporaries(&dir);
        if report.kills.is_multiple_of(25) {
            crate::note(format!(
                "{} kills, {} consistent, {} lost ({:.0} s; save every {:.0} ms)",
                report.kills,
                report.consistent,
                report.lost,
                started.elapsed().as_secs_f64(),
                save_period * 1000.0
            ));
        }
    }
    crate::note(format!(
        "{} of {} kills landed after a save of that process had completed, {} inside a save call \
         after its rename; a save every {:.0} ms; {:.0} s in all",
        report.mid_loop,
        report.kills,
        report.newer,
        save_period * 1000.0,
        started.elapsed().as_secs_f64()
    ));
    Ok(report)
}

/// The child's stderr, line by line, through a channel that closes when the process is gone.
fn read_lines(child: &mut Child) -> Receiver<String> {
    let (tx, rx) = mpsc::channel();
    if let Some(err) = child.stderr.take() {
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(std::io::Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
    }
    rx
}

/// Waits for `ready`; returns the counter of a `loaded N` line before it (None after `created`).
fn wait_ready(lines: &Receiver<String>, timeout: Duration) -> Result<Option<u64>> {
    let deadline = Instant::now() + timeout;
    let mut loaded = None;
    let mut seen = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match lines.recv_timeout(left) {
            Ok(line) if line == "ready" => return Ok(loaded),
            Ok(line) => {
                if let Some(n) = line.strip_prefix("loaded ").and_then(|n| n.trim().parse().ok()) {
                    loaded = Some(n);
                }
                seen.push(line);
            }
            Err(RecvTimeoutError::Timeout) => {
                bail!(
                    "save_loop.gd printed no `ready` within {} s; its output:\n{}",
                    timeout.as_secs(),
                    seen.join("\n")
                )
            }
            Err(RecvTimeoutError::Disconnected) => {
                bail!("save_loop.gd ended before `ready`; its output:\n{}", seen.join("\n"))
            }
        }
    }
}

/// The `counter` that `save_loop.gd` keeps with `set_state`: the world keeps a game value under
/// `strata.variant.<key>` as the base64 of Godot's `var_to_bytes` (a String or an int here), a
/// save of 0.2 as plain text under the key.
fn counter_of(state: &std::collections::BTreeMap<String, String>) -> Option<u64> {
    if let Some(text) = state.get("counter") {
        return text.parse().ok();
    }
    let bytes = base64_decode(state.get("strata.variant.counter")?)?;
    let word = |at: usize| Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?));
    let header = word(0)?;
    match header & 0xffff {
        // INT: 32-bit, or 64-bit with the ENCODE_FLAG_64 bit (1 << 16).
        2 if header & (1 << 16) != 0 => u64::try_from(i64::from_le_bytes(bytes.get(4..12)?.try_into().ok()?)).ok(),
        2 => u64::try_from(word(4)? as i32).ok(),
        // STRING: a byte length, then UTF-8.
        4 => std::str::from_utf8(bytes.get(8..8 + word(4)? as usize)?).ok()?.parse().ok(),
        _ => None,
    }
}

/// Standard base64 (with `=` padding), as Godot's `Marshalls.raw_to_base64` writes it.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let digits = text.trim_end_matches('=').as_bytes();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for &c in digits {
        acc = (acc << 6) | u32::from(value(c)?);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

/// Checks that `save` holds the last completed save or the next one; returns its counter (None
/// when there is no file and no save ever completed).
fn check_file(save: &Path, last_completed: Option<u64>) -> std::result::Result<Option<u64>, String> {
    if !save.exists() {
        return match last_completed {
            None => Ok(None),
            Some(n) => Err(format!("the file is gone, save {n} had completed")),
        };
    }
    let world = read_world_save(save, SaveOptions::default()).map_err(|e| format!("the file does not load: {e}"))?;
    let counter: u64 = counter_of(&world.state)
        .ok_or_else(|| format!("the file has no counter in its game state: {:?}", world.state))?;
    let allowed = match last_completed {
        Some(n) => [n, n + 1],
        None => [1, 1],
    };
    if !allowed.contains(&counter) {
        return Err(format!("the file holds save {counter}; allowed: {} or {}", allowed[0], allowed[1]));
    }
    let expected = BASE_EDITS + counter as usize;
    if world.edits.len() != expected {
        return Err(format!("save {counter} has {} edits; expected {expected}", world.edits.len()));
    }
    let x = i32::try_from(counter).map_err(|_| format!("counter {counter} out of range"))?;
    let block = 1 + (counter % 3) as strata_core::BlockId;
    match world.edits.get(strata_core::IVec3::new(x, MARK_Y, 0)) {
        Some(b) if b == block => Ok(Some(counter)),
        Some(b) => Err(format!("save {counter}: block {b} at ({x}, {MARK_Y}, 0); expected {block}")),
        None => Err(format!("save {counter}: no edit at ({x}, {MARK_Y}, 0); expected block {block}")),
    }
}

/// Removes the temporary files a killed save leaves beside the target.
fn remove_temporaries(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        if e.file_name().to_string_lossy().starts_with(".world.strata.tmp-") {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_core::persist::save::{SaveOptions, WorldSave, write_world_save};

    /// A save as `save_loop.gd` writes it after `counter` saves.
    fn save_of(counter: u64) -> WorldSave {
        let mut s = WorldSave::default();
        for i in 0..BASE_EDITS as i32 {
            s.edits.set(strata_core::IVec3::new(i % 100, 300 + i / 10000, (i / 100) % 100), 1 + (i % 3) as u16);
        }
        for n in 1..=counter {
            s.edits.set(strata_core::IVec3::new(n as i32, MARK_Y, 0), 1 + (n % 3) as u16);
        }
        s.state.insert("counter".into(), counter.to_string());
        s
    }

    #[test]
    fn the_counter_reads_as_set_state_keeps_it() {
        let state = |k: &str, v: &str| std::collections::BTreeMap::from([(k.to_string(), v.to_string())]);
        // var_to_bytes("5") and var_to_bytes(7), base64 (Godot 4.6).
        assert_eq!(counter_of(&state("strata.variant.counter", "BAAAAAEAAAA1AAAA")), Some(5));
        assert_eq!(counter_of(&state("strata.variant.counter", "AgAAAAcAAAA=")), Some(7));
        assert_eq!(counter_of(&state("counter", "12")), Some(12), "a 0.2 save");
        assert_eq!(counter_of(&state("strata.variant.counter", "!!")), None);
        assert_eq!(counter_of(&state("other", "1")), None);
    }

    #[test]
    fn the_file_must_hold_the_last_save_or_the_next() {
        let dir = std::env::temp_dir().join(format!("strata-crash-test-{}", std::process::id()));
        let path = dir.join("world.strata");
        assert_eq!(check_file(&path, None), Ok(None), "no file, no save yet");
        assert!(check_file(&path, Some(3)).is_err(), "a file that vanished is lost");
        write_world_save(&path, &save_of(4), SaveOptions::default()).unwrap();
        assert_eq!(check_file(&path, Some(4)), Ok(Some(4)));
        assert_eq!(check_file(&path, Some(3)), Ok(Some(4)), "the save in progress");
        assert!(check_file(&path, Some(5)).is_err(), "an older save is lost work");
        assert!(check_file(&path, Some(2)).is_err(), "a save from the future");
        let mut wrong = save_of(4);
        wrong.edits.clear_at(strata_core::IVec3::new(4, MARK_Y, 0));
        write_world_save(&path, &wrong, SaveOptions::default()).unwrap();
        assert!(check_file(&path, Some(4)).is_err(), "the counter without its edit");
        std::fs::write(&path, b"STRATASV").unwrap();
        assert!(check_file(&path, Some(4)).unwrap_err().contains("does not load"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn delays_are_spread() {
        let mut rng = SplitMix64(DEFAULT_SEED);
        let v: Vec<f64> = (0..1000).map(|_| unit(&mut rng)).collect();
        assert!(v.iter().all(|x| (0.0..1.0).contains(x)));
        assert!(v.iter().filter(|&&x| x < 0.1).count() > 50 && v.iter().filter(|&&x| x > 0.9).count() > 50);
    }
}
