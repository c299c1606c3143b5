//! Multiplayer across processes: `cargo xtask server` (the dedicated server), the processes
//! `cargo xtask loadtest` drives (`crate::loadtest`), and the multi-process check of
//! `cargo xtask test`.
//!
//! The server is `godot_project/addons/strata/server/dedicated_server.tscn`; the clients are
//! headless Godot processes running `tests/godot/tools/net_client.gd`, each driven by a command
//! file this harness appends to and answering on stderr (`net_client TAG JSON`). Everything talks
//! over 127.0.0.1 on a port of the run's own.
//!
//! The check ([`run_check`]): a server and up to four clients; two players edit the same voxels
//! at once, and both see every edit in one order and end with the server's chunks (compared by
//! `StrataChunkWorld.debug_chunk_hash`); a late joiner catches up, leaves, misses edits and rejoins with
//! them; malformed and oversized packets drop only their sender; the server is killed with
//! SIGKILL and its save and journal on disk hold every acknowledged edit, and a restarted server
//! serves exactly that world to a new client. Entities: a client process that hosts (its
//! `StrataChunkWorld` the objects' authority) adds, moves and removes an object, and a client process
//! sees each, at the host's position, within a bounded time.
//!
//! May use: the other xtask modules, strata-core, serde_json.

use crate::error::{Context, Error, Result};
use crate::godot_install::Godot;
use crate::{paths, setup, test_project};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};
use strata_core::base::edits::local_from_index;
use strata_core::persist::journal::read_journal;
use strata_core::persist::save::{SaveOptions, read_world_save};
use strata_core::preset::fingerprint::{fingerprint, fnv1a64};

const SERVER_SCENE: &str = "res://addons/strata/server/dedicated_server.tscn";
const CLIENT_SCRIPT: &str = "res://tools/net_client.gd";
/// The world of the check and the load test.
pub(crate) const SEED: u64 = 4242;
/// How long one answer may take (a Godot start and a first import included).
const ANSWER: Duration = Duration::from_secs(90);

const SERVER_USAGE: &str = "usage: cargo xtask server --world FILE [--port N] [--preset FILE] [--seed N] \
[--autosave SECONDS] [--max-players N] [--status FILE] [--tick-rate HZ] [--side-view]";

/// `cargo xtask server ARGS`: the dedicated server in the foreground (Ctrl+C saves and stops).
pub fn server(args: &[String]) -> Result<bool> {
    if args.is_empty() || args.iter().any(|a| a == "-h" || a == "--help") {
        eprintln!("{SERVER_USAGE}");
        return Ok(!args.is_empty());
    }
    let godot = setup::prepare(crate::extension::BuildProfile::Dev)?;
    let mut cmd = godot.command();
    cmd.args(["--headless", "--path"]).arg(paths::godot_project()).arg(SERVER_SCENE).arg("--");
    // Relative files are the caller's, not Godot's working directory's.
    let cwd = std::env::current_dir().context("no current directory")?;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        cmd.arg(a);
        if matches!(a.as_str(), "--world" | "--preset" | "--status")
            && let Some(v) = it.next()
        {
            cmd.arg(cwd.join(v));
        }
    }
    let status = cmd.status().context("could not start Godot")?;
    Ok(status.success())
}

/// A Godot process whose stderr lines arrive on a channel.
pub(crate) struct Process {
    name: String,
    child: Child,
    lines: Receiver<String>,
    seen: Vec<String>,
    commands: Option<PathBuf>,
}

impl Process {
    /// Starts `cmd`; its stderr lines arrive on a channel and are kept in `log`.
    fn spawn(name: &str, mut cmd: Command, commands: Option<PathBuf>, log: &Path) -> Result<Self> {
        cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
        let mut child = cmd.spawn().with_context(|| format!("could not start Godot for {name}"))?;
        let (tx, rx) = mpsc::channel();
        let mut log = OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .with_context(|| format!("could not write {}", log.display()))?;
        if let Some(err) = child.stderr.take() {
            std::thread::spawn(move || {
                for line in BufReader::new(err).lines().map_while(|l| l.ok()) {
                    let _ = writeln!(log, "{line}");
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            });
        }
        Ok(Self { name: name.to_string(), child, lines: rx, seen: Vec::new(), commands })
    }

    /// Appends a command line to this client's command file.
    pub(crate) fn send(&self, command: &str) -> Result<()> {
        let path = self.commands.as_ref().ok_or_else(|| Error::msg(format!("{} takes no commands", self.name)))?;
        let mut f = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("could not write {}", path.display()))?;
        writeln!(f, "{command}").with_context(|| format!("could not write {}", path.display()))?;
        Ok(())
    }

    /// Waits for a line starting with `prefix`; the rest of it.
    fn wait_line(&mut self, prefix: &str, timeout: Duration) -> Result<String> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if let Some(rest) = line.strip_prefix(prefix) {
                        return Ok(rest.to_string());
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    bail!(
                        "{} printed no `{prefix}` within {} s; its output:\n{}",
                        self.name,
                        timeout.as_secs(),
                        self.tail()
                    )
                }
                Err(RecvTimeoutError::Disconnected) => {
                    bail!("{} ended before `{prefix}`; its output:\n{}", self.name, self.tail())
                }
            }
        }
    }

    /// Sends `command` and waits for the answer tagged `tag`.
    pub(crate) fn ask(&mut self, command: &str, tag: &str) -> Result<Value> {
        self.send(command)?;
        self.answer(tag)
    }

    pub(crate) fn answer(&mut self, tag: &str) -> Result<Value> {
        let rest = self.wait_line(&format!("net_client {tag} "), ANSWER)?;
        serde_json::from_str(&rest).map_err(|e| Error::msg(format!("{}: `{tag}` is not JSON ({e}): {rest}", self.name)))
    }

    /// The answer tagged `tag` if one arrives within `wait`; None if not yet.
    pub(crate) fn poll_answer(&mut self, tag: &str, wait: Duration) -> Result<Option<Value>> {
        let prefix = format!("net_client {tag} ");
        let deadline = Instant::now() + wait;
        loop {
            match self.lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if let Some(rest) = line.strip_prefix(&prefix) {
                        return serde_json::from_str(rest)
                            .map(Some)
                            .map_err(|e| Error::msg(format!("{}: `{tag}` is not JSON ({e}): {rest}", self.name)));
                    }
                }
                Err(RecvTimeoutError::Timeout) => return Ok(None),
                Err(RecvTimeoutError::Disconnected) => {
                    bail!("{} ended before `{prefix}`; its output:\n{}", self.name, self.tail())
                }
            }
        }
    }

    fn tail(&self) -> String {
        let from = self.seen.len().saturating_sub(40);
        self.seen[from..].join("\n")
    }

    /// Script errors and panics seen so far, read to the end of what arrived.
    pub(crate) fn errors(&mut self) -> Vec<String> {
        while let Ok(line) = self.lines.try_recv() {
            self.seen.push(line);
        }
        self.seen
            .iter()
            .filter(|l| {
                l.contains("SCRIPT ERROR")
                    || l.contains("[panic")
                    || l.contains("Parse Error")
                    || l.starts_with("ERROR:")
            })
            .map(|l| format!("{}: {l}", self.name))
            .collect()
    }

    pub(crate) fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Sends SIGTERM and waits up to `timeout` for the exit code (None: ended by a signal).
    pub(crate) fn terminate(&mut self, timeout: Duration) -> std::result::Result<Option<i32>, String> {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill").args(["-TERM", &pid]).status().map_err(|e| format!("kill -TERM: {e}"))?;
        if !sent.success() {
            return Err(format!("kill -TERM {pid} failed"));
        }
        match self.wait_exit(timeout) {
            Some(status) => Ok(status.code()),
            None => Err(format!("still running {} s after SIGTERM", timeout.as_secs())),
        }
    }

    /// Asks a client to quit and waits a little for it.
    pub(crate) fn quit(&mut self) {
        let _ = self.send("quit");
        if self.wait_exit(Duration::from_secs(10)).is_none() {
            self.kill();
        }
    }

    /// The exit status once the process ended within `timeout`; None while it still runs.
    fn wait_exit(&mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Where a run keeps its files, and how it starts its processes.
pub(crate) struct Run {
    godot: Godot,
    pub(crate) dir: PathBuf,
    pub(crate) port: u16,
    /// Niceness the client processes start with (`nice -n`; 0: none).
    pub(crate) client_nice: u32,
}

impl Run {
    pub(crate) fn new(godot: Godot, name: &str) -> Result<Self> {
        let dir = paths::target_dir()?.join("xtask").join(name);
        if dir.exists() {
            std::fs::remove_dir_all(&dir).with_context(|| format!("could not clear {}", dir.display()))?;
        }
        std::fs::create_dir_all(&dir).with_context(|| format!("could not create {}", dir.display()))?;
        // A port of this run's own, so that runs on one machine do not meet.
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
        let port = 20000 + (nanos ^ std::process::id()) % 20000;
        Ok(Self { godot, dir, port: port as u16, client_nice: 0 })
    }

    pub(crate) fn save(&self) -> PathBuf {
        self.dir.join("world.strata")
    }

    fn status(&self) -> PathBuf {
        self.dir.join("server_status.json")
    }

    pub(crate) fn server(&self, extra: &[&str]) -> Result<Process> {
        let mut cmd = self.godot.command();
        cmd.args(["--headless", "--path"]).arg(paths::godot_tests()).arg(SERVER_SCENE).arg("--");
        cmd.arg("--world").arg(self.save()).args(["--port", &self.port.to_string(), "--seed", &SEED.to_string()]);
        cmd.arg("--status").arg(self.status()).args(extra);
        let mut p = Process::spawn("server", cmd, None, &self.dir.join("server.log"))?;
        p.wait_line("dedicated server: serving", ANSWER)?;
        Ok(p)
    }

    pub(crate) fn client(&self, name: &str) -> Result<Process> {
        self.client_on(name, self.port)
    }

    /// A client process that talks to 127.0.0.1:`port`.
    fn client_on(&self, name: &str, port: u16) -> Result<Process> {
        self.client_running(name, port, CLIENT_SCRIPT)
    }

    /// A client process running `script` (a `net_client` of the test project) that talks to
    /// 127.0.0.1:`port`.
    pub(crate) fn client_running(&self, name: &str, port: u16, script: &str) -> Result<Process> {
        let commands = self.dir.join(format!("{name}.commands"));
        std::fs::write(&commands, "").with_context(|| format!("could not create {}", commands.display()))?;
        let mut cmd = self.godot.command();
        cmd.args(["--headless", "--path"]).arg(paths::godot_tests()).args(["-s", script, "--"]);
        cmd.arg(format!("--port={port}")).arg(format!("--commands={}", commands.display()));
        if self.client_nice > 0 {
            cmd = niced(&cmd, self.client_nice);
        }
        let mut p = Process::spawn(name, cmd, Some(commands), &self.dir.join(format!("{name}.log")))?;
        p.answer("ready")?;
        Ok(p)
    }

    pub(crate) fn server_status(&self) -> Result<Value> {
        let text = std::fs::read_to_string(self.status())
            .with_context(|| format!("could not read {}", self.status().display()))?;
        serde_json::from_str(&text).map_err(|e| Error::msg(format!("{}: {e}", self.status().display())))
    }
}

/// `cmd` run under `nice -n n` (every thread of it starts at that niceness).
fn niced(cmd: &Command, n: u32) -> Command {
    let mut out = Command::new("nice");
    out.arg("-n").arg(n.to_string());
    crate::godot_run::append_command(&mut out, cmd);
    out
}

/// The checks' outcome.
#[derive(Default)]
pub struct CheckReport {
    pub passed: Vec<String>,
    pub failed: Vec<String>,
}

impl CheckReport {
    pub(crate) fn check(&mut self, name: &str, ok: bool, detail: impl FnOnce() -> String) {
        if ok {
            self.passed.push(name.to_string());
        } else {
            self.failed.push(format!("{name}: {}", detail()));
        }
    }

    pub fn summary(&self) -> String {
        format!("multiplayer processes: {} passed, {} failed", self.passed.len(), self.failed.len())
    }
}

/// An acknowledged edit: (order, x, y, z, block).
type Edit = (u64, i32, i32, i32, u16);

fn acked_edits(answer: &Value) -> Vec<Edit> {
    answer["acked"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|e| {
                    let v: Vec<i64> = e.as_array()?.iter().filter_map(Value::as_i64).collect();
                    (v.len() >= 5).then(|| (v[0] as u64, v[1] as i32, v[2] as i32, v[3] as i32, v[4] as u16))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn count(answer: &Value, key: &str) -> usize {
    answer[key].as_array().map(|a| a.len()).or_else(|| answer[key].as_u64().map(|n| n as usize)).unwrap_or(0)
}

/// The multi-process check (see the module docs).
pub fn run_check() -> Result<CheckReport> {
    let godot = setup::prepare(crate::extension::BuildProfile::Dev)?;
    test_project::prepare(&godot)?;
    let run = Run::new(godot, "net")?;
    crate::step(format!(
        "Multiplayer across processes: a dedicated server and headless clients on 127.0.0.1:{}",
        run.port
    ));
    let mut report = CheckReport::default();
    // A day of 60 s: the server's clock moves 1/60 of a day a second.
    let mut server = run.server(&["--autosave", "5", "--day-length", "60"])?;
    let mut a = run.client("ada")?;
    let mut b = run.client("bo")?;
    for (c, name) in [(&mut a, "ada"), (&mut b, "bo")] {
        let joined = c.ask(&format!("join {name}"), "joined")?;
        report.check(&format!("{name} joins"), joined["player"].as_i64().unwrap_or(0) > 0, || joined.to_string());
    }
    // The dedicated server keeps the time of day in the shared state, and it advances.
    let t0 = a.ask("shared time_of_day", "shared")?;
    std::thread::sleep(Duration::from_millis(2500));
    let t1 = a.ask("shared time_of_day", "shared")?;
    let length = a.ask("shared day_length_s", "shared")?;
    let advanced = match (t0["value"].as_f64(), t1["value"].as_f64()) {
        (Some(x), Some(y)) => (y - x).rem_euclid(1.0) > 0.5 / 60.0 && (y - x).rem_euclid(1.0) < 0.5,
        _ => false,
    };
    report.check(
        "a guest of the dedicated server receives its time of day, and it advances",
        advanced && length["value"].as_f64() == Some(60.0),
        || format!("time_of_day {t0} then {t1}, day_length_s {length}"),
    );
    let stood = a.ask("stand 0 0", "stood")?;
    b.ask("stand 4 0", "stood")?;
    let h = stood["height"].as_f64().unwrap_or(0.0).floor() as i32;
    let chunk_y = |y: i32| y.div_euclid(strata_core::CHUNK_SIZE);
    let hash_box = format!("hash -1 {} -1 0 {} 0", chunk_y(h - 8), chunk_y(h + 8));

    // Two players edit overlapping voxels at once.
    a.send("edits 30 20 1")?;
    b.send("edits 30 20 2")?;
    let ea = a.answer("edits")?;
    let eb = b.answer("edits")?;
    let mut acked: Vec<Edit> = acked_edits(&ea);
    acked.extend(acked_edits(&eb));
    report.check(
        "60 edits from two players at once are all acknowledged",
        acked.len() == 60 && count(&ea, "rejected") + count(&eb, "rejected") == 0,
        || format!("ada {ea}, bo {eb}"),
    );
    let oa = a.ask("wait_order 60", "order")?;
    let ob = b.ask("wait_order 60", "order")?;
    report.check(
        "both players saw the 60 edits in one order",
        oa["log_size"] == 60 && oa["log_hash"] == ob["log_hash"],
        || format!("ada {oa}, bo {ob}"),
    );
    let ha = a.ask(&hash_box, "hash")?;
    let hb = b.ask(&hash_box, "hash")?;
    report.check("both players hold the same chunks", ha["synced"] == true && ha["hashes"] == hb["hashes"], || {
        format!("ada {ha}, bo {hb}")
    });

    // A late joiner, who leaves, misses edits and comes back.
    let mut c = run.client("cy")?;
    c.ask("join cy", "joined")?;
    c.ask("stand 0 0", "stood")?;
    let hc = c.ask(&hash_box, "hash")?;
    report.check("a late joiner gets every earlier edit", hc["synced"] == true && hc["hashes"] == ha["hashes"], || {
        format!("cy {hc}, ada {ha}")
    });
    c.ask("leave", "left")?;
    let eb2 = b.ask("edits 10 20 3", "edits")?;
    acked.extend(acked_edits(&eb2));
    b.ask("wait_order 70", "order")?;
    let hb2 = b.ask(&hash_box, "hash")?;
    c.ask("join cy", "joined")?;
    c.ask("stand 0 0", "stood")?;
    let hc2 = c.ask(&hash_box, "hash")?;
    report.check(
        "a player who left and rejoined has the edits made while away",
        acked.len() == 70 && hc2["hashes"] == hb2["hashes"] && hb2["hashes"] != hb["hashes"],
        || format!("cy {hc2}, bo {hb2}"),
    );

    // Malformed and oversized packets drop only their sender.
    let mut m = run.client("mallory")?;
    for kind in ["junk", "oversized"] {
        let g = m.ask(&format!("garbage {kind}"), "garbage")?;
        report.check(
            &format!("a {kind} packet drops its sender"),
            g["connected"] == true && g["dropped"] == true,
            || g.to_string(),
        );
    }
    let eb3 = b.ask("edits 5 20 4", "edits")?;
    acked.extend(acked_edits(&eb3));
    report.check("the server keeps serving after malformed packets", acked.len() == 75, || eb3.to_string());
    b.ask("wait_order 75", "order")?;
    let hb3 = b.ask(&hash_box, "hash")?;

    // SIGKILL: every acknowledged edit is on disk, and a restarted server serves it.
    server.kill();
    match edits_on_disk(&run.save()) {
        Ok(on_disk) => {
            let mut expected = BTreeMap::new();
            acked.sort();
            for (_, x, y, z, block) in &acked {
                expected.insert((*x, *y, *z), *block);
            }
            report.check(
                "after SIGKILL the save and journal hold every acknowledged edit",
                on_disk == expected,
                || format!("{} voxels on disk, {} acknowledged", on_disk.len(), expected.len()),
            );
        }
        Err(e) => report.check("after SIGKILL the save and journal read", false, || e.to_string()),
    }
    let mut server = run.server(&["--autosave", "5"])?;
    let mut d = run.client("dee")?;
    d.ask("join dee", "joined")?;
    d.ask("stand 0 0", "stood")?;
    let hd = d.ask(&hash_box, "hash")?;
    report.check(
        "a server restarted after SIGKILL serves every acknowledged edit",
        hd["synced"] == true && hd["hashes"] == hb3["hashes"],
        || format!("dee {hd}, bo before the kill {hb3}"),
    );
    let status = run.server_status()?;
    report.check("the restarted server numbers on from edit 75", status["next_order"] == 75, || status.to_string());

    for p in [&mut a, &mut b, &mut c, &mut m, &mut d] {
        p.quit();
    }
    // SIGTERM: the server saves (the journal's edits go into the save) and exits cleanly.
    let stopped = server.terminate(Duration::from_secs(20));
    let saved = read_world_save(&run.save(), SaveOptions::default()).map_err(|e| e.to_string()).and_then(|w| {
        let next: Option<u64> = w.state.get("strata.net.next_order").and_then(|n| n.parse().ok());
        edits_on_disk(&run.save()).map(|v| (next, v.len())).map_err(|e| e.to_string())
    });
    report.check(
        "SIGTERM saves the world and stops the server with exit code 0",
        stopped.as_ref().is_ok_and(|code| *code == Some(0)) && saved.as_ref().is_ok_and(|(next, _)| *next == Some(75)),
        || format!("exit {stopped:?}, save {saved:?}"),
    );
    let (mut host, mut eve) = entity_checks(&run, &mut report)?;
    let mut errors = Vec::new();
    for p in [&mut a, &mut b, &mut c, &mut m, &mut d, &mut server, &mut host, &mut eve] {
        errors.extend(p.errors());
    }
    report.check("no script error or panic in any process", errors.is_empty(), || errors.join("\n"));
    Ok(report)
}

/// How long a client may take to show what the host's objects did (publication every 0.1 s,
/// streaming and a glide of 0.1 s on a shared machine).
const ENTITY_SEEN_S: u32 = 30;

/// Entities across processes: a host process (a player that serves, its world the objects'
/// authority) adds an object near a client process's player, moves it, then removes it; the
/// client sees each at the host's position. Returns both processes (for the error check).
fn entity_checks(run: &Run, report: &mut CheckReport) -> Result<(Process, Process)> {
    let port = if run.port >= 65000 { run.port - 1 } else { run.port + 1 };
    let mut host = run.client_on("hostess", port)?;
    let hosting = host.ask(&format!("host {SEED}"), "hosting")?;
    report.check("a player process hosts a world", hosting["port"] == port, || hosting.to_string());
    host.ask("stand 0 0", "stood")?;
    let mut eve = run.client_on("eve", port)?;
    let joined = eve.ask("join eve", "joined")?;
    report.check("eve joins the hosting player", joined["player"].as_i64().unwrap_or(0) > 0, || joined.to_string());
    eve.ask("stand 2 2", "stood")?;
    let position = |answer: &Value| -> Option<[f64; 3]> {
        let p: Vec<f64> = answer["position"].as_array()?.iter().filter_map(Value::as_f64).collect();
        (p.len() == 3).then(|| [p[0], p[1], p[2]])
    };
    let seen = |eve: &mut Process, at: [f64; 3], present: bool| -> Result<Value> {
        eve.ask(
            &format!("entity_seen {} {} {} {} {ENTITY_SEEN_S}", at[0], at[1], at[2], u8::from(present)),
            "entity_seen",
        )
    };
    let added = host.ask("entity add 4.5 3.5", "entity")?;
    let Some(at) = position(&added) else {
        report.check("the host adds an object", false, || added.to_string());
        return Ok((host, eve));
    };
    let s = seen(&mut eve, at, true)?;
    report.check("an object the host adds appears on a client process", s["ok"] == true, || {
        format!("host {added}, eve {s}")
    });
    let moved = host.ask("entity move 9.5 6.5", "entity")?;
    let Some(to) = position(&moved) else {
        report.check("the host moves its object", false, || moved.to_string());
        return Ok((host, eve));
    };
    let s = seen(&mut eve, to, true)?;
    report.check("an object the host moves is seen at its new place on a client process", s["ok"] == true, || {
        format!("host {moved}, eve {s}")
    });
    let removed = host.ask("entity remove", "entity")?;
    let s = seen(&mut eve, to, false)?;
    report.check(
        "an object the host removes disappears on a client process",
        removed["removed"] == true && s["ok"] == true,
        || format!("host {removed}, eve {s}"),
    );
    eve.quit();
    host.quit();
    Ok((host, eve))
}

/// The voxels a server's save and journal hold: the save's edits with the journal replayed.
pub(crate) fn edits_on_disk(save: &Path) -> Result<BTreeMap<(i32, i32, i32), u16>> {
    let world = read_world_save(save, SaveOptions::default()).map_err(|e| Error::msg(e.to_string()))?;
    let mut voxels = BTreeMap::new();
    for (chunk, edits) in world.edits.chunks_sorted() {
        let min = chunk.min_voxel();
        for (i, b) in edits {
            let l = local_from_index(*i);
            voxels.insert((min.x + l.x, min.y + l.y, min.z + l.z), *b);
        }
    }
    let base: u64 = world.state.get("strata.net.next_order").and_then(|n| n.parse().ok()).unwrap_or(0);
    let journal = PathBuf::from(format!("{}.journal", save.display()));
    if journal.exists() {
        let contents = read_journal(&journal, fnv1a64(fingerprint(&world.preset).as_bytes()))
            .map_err(|e| Error::msg(e.to_string()))?;
        for (p, b) in contents.edits_from(base) {
            voxels.insert((p.x, p.y, p.z), *b);
        }
    }
    Ok(voxels)
}

/// `cargo xtask test`'s line for the check, and whether it passed.
pub fn check_line() -> (String, bool) {
    let t = Instant::now();
    let name = "Multiplayer across processes (server + 4 headless clients, malformed packets, SIGKILL, SIGTERM, a hosting player's objects)";
    report_line(name, t, run_check())
}

/// A multi-process check's line for `cargo xtask test` (its name, what passed and failed, how
/// long it took since `t`), and whether it passed.
pub(crate) fn report_line(name: &str, t: Instant, result: Result<CheckReport>) -> (String, bool) {
    match result {
        Ok(report) => {
            let ok = report.failed.is_empty();
            let mut line = format!(
                "{name}: {} — {} in {:.0} s",
                if ok { "passed" } else { "FAILED" },
                report.summary(),
                t.elapsed().as_secs_f64()
            );
            for f in &report.failed {
                line.push_str(&format!("\n    failed: {f}"));
            }
            (line, ok)
        }
        Err(e) => (format!("{name}: FAILED — {e}"), false),
    }
}

/// `cargo xtask net-check`: the check alone.
pub fn check(args: &[String]) -> Result<bool> {
    if !args.is_empty() {
        bail!("usage: cargo xtask net-check");
    }
    let (line, ok) = check_line();
    eprintln!("{line}");
    Ok(ok)
}
