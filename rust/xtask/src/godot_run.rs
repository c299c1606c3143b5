//! Running Godot (or any command): with inherited stdio, by replacing this process,
//! or with a timeout while streaming its output live and capturing it.
//!
//! Captured runs put the child in its own process group, so a timeout (or Ctrl-C /
//! SIGTERM delivered to xtask) kills the whole tree — e.g. `xvfb-run`, `Xvfb` and
//! `godot` together — instead of leaving orphans behind.

use crate::error::{Context, Error, Result};
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What to do with the child's output while it runs (it is always captured).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Echo {
    /// Stream each line to our stdout/stderr as it arrives.
    Live,
    /// Print nothing; the caller inspects or saves [`RunOutput::lines`].
    Quiet,
}

/// The result of [`run_captured`].
#[derive(Debug)]
pub struct RunOutput {
    /// The exit status; `None` if the child was killed because of the timeout.
    pub status: Option<ExitStatus>,
    /// Whether the timeout expired and the process group was killed.
    pub timed_out: bool,
    /// stdout and stderr lines, interleaved in arrival order, ANSI colour codes removed.
    pub lines: Vec<String>,
    /// Wall-clock run time.
    pub elapsed: Duration,
    /// The output line that made [`run_captured_until`] stop the run early (the group was
    /// killed as on a timeout); `None` when it ran to its end or to the timeout.
    pub stopped_at: Option<String>,
}

impl RunOutput {
    /// Exited by itself with status 0.
    pub fn success(&self) -> bool {
        !self.timed_out && self.stopped_at.is_none() && self.status.is_some_and(|s| s.success())
    }

    /// The combined output as one string.
    pub fn text(&self) -> String {
        let mut s = self.lines.join("\n");
        s.push('\n');
        s
    }

    /// A short description of how the process ended ("exit code 1", "timed out after 600 s").
    pub fn describe_exit(&self) -> String {
        if let Some(line) = &self.stopped_at {
            return format!("stopped after {:.0} s at the line `{}`", self.elapsed.as_secs_f64(), line.trim());
        }
        if self.timed_out {
            return format!("timed out after {:.0} s and was killed", self.elapsed.as_secs_f64());
        }
        match self.status {
            Some(s) => describe_status(s),
            None => "unknown status".into(),
        }
    }
}

/// "exit code N" or "killed by signal N".
pub fn describe_status(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(sig)) => format!("killed by signal {sig}"),
        _ => format!("{status}"),
    }
}

/// Appends `inner` (its program, arguments and environment changes) to `outer`, which runs it:
/// `nice -n 10 <inner>`, `xvfb-run … <inner>`.
pub fn append_command(outer: &mut Command, inner: &Command) {
    outer.arg(inner.get_program()).args(inner.get_args());
    for (k, v) in inner.get_envs() {
        match v {
            Some(v) => outer.env(k, v),
            None => outer.env_remove(k),
        };
    }
    if let Some(dir) = inner.get_current_dir() {
        outer.current_dir(dir);
    }
}

/// Renders a command line for messages (program and arguments, shell-ish quoting).
pub fn display_command(cmd: &Command) -> String {
    let mut parts = vec![cmd.get_program().to_string_lossy().into_owned()];
    for arg in cmd.get_args() {
        let a = arg.to_string_lossy();
        if a.is_empty() || a.contains([' ', '"', '\'', '$', '*']) {
            parts.push(format!("'{}'", a.replace('\'', "'\\''")));
        } else {
            parts.push(a.into_owned());
        }
    }
    parts.join(" ")
}

/// Runs `cmd` with inherited stdio and waits for it.
pub fn run_inherit(mut cmd: Command) -> Result<ExitStatus> {
    cmd.status().with_context(|| format!("could not start `{}`", display_command(&cmd)))
}

/// Replaces the current process with `cmd` (stdio, signals and exit code pass through
/// untouched). Only returns on failure to start.
pub fn exec(mut cmd: Command) -> Error {
    let shown = display_command(&cmd);
    Error::from(cmd.exec()).context(format!("could not start `{shown}`"))
}

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

const SIGINT: i32 = 2;
const SIGKILL: i32 = 9;
const SIGTERM: i32 = 15;

unsafe extern "C" {
    fn kill(pid: i32, sig: i32) -> i32;
    fn signal(signum: i32, handler: usize) -> usize;
}

extern "C" fn on_signal(_sig: i32) {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Routes SIGINT/SIGTERM to [`INTERRUPTED`] while alive; restores the previous
/// dispositions when dropped.
struct SignalGuard {
    previous: [usize; 2],
}

impl SignalGuard {
    fn install() -> Self {
        INTERRUPTED.store(false, Ordering::SeqCst);
        let handler = on_signal as extern "C" fn(i32) as usize;
        // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
        let previous = unsafe { [signal(SIGINT, handler), signal(SIGTERM, handler)] };
        SignalGuard { previous }
    }
}

impl Drop for SignalGuard {
    fn drop(&mut self) {
        // SAFETY: restores the dispositions that signal() returned.
        unsafe {
            signal(SIGINT, self.previous[0]);
            signal(SIGTERM, self.previous[1]);
        }
    }
}

fn kill_group(pgid: u32, sig: i32) {
    // SAFETY: plain syscall; a negative pid addresses the process group we created.
    unsafe {
        kill(-(pgid as i32), sig);
    }
}

/// Runs `cmd` in its own process group with stdin closed, capturing stdout and stderr
/// (and echoing them live if `echo` is [`Echo::Live`]). After `timeout` the whole group
/// is sent SIGTERM, then SIGKILL 5 s later. Ctrl-C / SIGTERM to xtask do the same and
/// then return an error (the previous signal dispositions are restored afterwards).
pub fn run_captured(cmd: Command, timeout: Duration, echo: Echo) -> Result<RunOutput> {
    run_captured_until(cmd, timeout, echo, |_| false)
}

/// Output that means a Godot run cannot do what it was started for, so waiting for it is
/// pointless: its scene or a script failed to load or parse (the root node then stays without its
/// script and nothing ever quits), or the extension's library did not load.
pub const GODOT_FATAL: &[&str] = &[
    "Parse Error",
    "Failed to load script",
    "Failed loading resource",
    "Failed to load scene",
    "Can't open dynamic library",
    "GDExtension dynamic library not found",
    "Error loading extension",
];

/// Whether `line` is one of [`GODOT_FATAL`]'s.
pub fn godot_fatal(line: &str) -> bool {
    GODOT_FATAL.iter().any(|p| line.contains(p))
}

/// [`run_captured`], but the run is also stopped (the group killed, as on a timeout) as soon as
/// an output line satisfies `stop`; [`RunOutput::stopped_at`] holds that line. Output that arrives
/// in the next second is still kept (the lines around an error).
pub fn run_captured_until(
    mut cmd: Command,
    timeout: Duration,
    echo: Echo,
    stop: impl Fn(&str) -> bool,
) -> Result<RunOutput> {
    let _signals = SignalGuard::install();
    let shown = display_command(&cmd);
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
    let start = Instant::now();
    let mut child = cmd.spawn().with_context(|| format!("could not start `{shown}`"))?;
    let pgid = child.id();

    let lines = Arc::new(Mutex::new(Vec::<String>::new()));
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let stdout = child.stdout.take().expect("piped stdout");
    let stderr = child.stderr.take().expect("piped stderr");
    spawn_reader(stdout, false, echo, lines.clone(), done_tx.clone());
    spawn_reader(stderr, true, echo, lines.clone(), done_tx);

    let deadline = start + timeout;
    let mut timed_out = false;
    let mut interrupted = false;
    let mut stopped_at: Option<String> = None;
    let mut stop_deadline: Option<Instant> = None;
    let mut scanned = 0;
    let status = loop {
        if let Some(status) = child.try_wait().context("could not wait for child process")? {
            break Some(status);
        }
        if stopped_at.is_none() {
            let seen = lines.lock().unwrap();
            stopped_at = seen[scanned..].iter().find(|l| stop(l)).cloned();
            scanned = seen.len();
            if stopped_at.is_some() {
                stop_deadline = Some(Instant::now() + Duration::from_secs(1));
            }
        }
        if INTERRUPTED.load(Ordering::SeqCst) {
            interrupted = true;
        } else if Instant::now() >= deadline {
            timed_out = true;
        } else if stop_deadline.is_none_or(|d| Instant::now() < d) {
            std::thread::sleep(Duration::from_millis(50));
            continue;
        }
        // Timeout or interrupt: terminate the whole group, escalating to SIGKILL.
        kill_group(pgid, SIGTERM);
        let grace = Instant::now() + Duration::from_secs(5);
        loop {
            if child.try_wait()?.is_some() || Instant::now() >= grace {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        kill_group(pgid, SIGKILL);
        let _ = child.wait();
        break None;
    };
    // Anything left in the group (e.g. a stray Xvfb) is ours to clean up.
    kill_group(pgid, SIGKILL);

    // Wait for both readers to reach EOF, but don't hang if something detached still
    // holds the pipe open.
    let drain_deadline = Instant::now() + Duration::from_secs(5);
    for _ in 0..2 {
        let left = drain_deadline.saturating_duration_since(Instant::now());
        if done_rx.recv_timeout(left).is_err() {
            break;
        }
    }
    let lines = std::mem::take(&mut *lines.lock().unwrap());
    if interrupted {
        return Err(Error::msg(format!("interrupted while running `{shown}`")));
    }
    Ok(RunOutput {
        status: if timed_out { None } else { status },
        timed_out,
        lines,
        elapsed: start.elapsed(),
        stopped_at,
    })
}

fn spawn_reader(
    pipe: impl Read + Send + 'static,
    is_stderr: bool,
    echo: Echo,
    lines: Arc<Mutex<Vec<String>>>,
    done: mpsc::Sender<()>,
) {
    std::thread::spawn(move || {
        let mut reader = BufReader::new(pipe);
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match reader.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            if echo == Echo::Live {
                if is_stderr {
                    let mut err = std::io::stderr().lock();
                    let _ = err.write_all(&buf);
                    let _ = err.flush();
                } else {
                    let mut out = std::io::stdout().lock();
                    let _ = out.write_all(&buf);
                    let _ = out.flush();
                }
            }
            let text = String::from_utf8_lossy(&buf);
            let text = strip_ansi(text.trim_end_matches(['\n', '\r']));
            lines.lock().unwrap().push(text);
        }
        let _ = done.send(());
    });
}

/// Removes ANSI escape sequences (`ESC [ ... letter`) from a line.
pub fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.peek() == Some(&'[') {
                chars.next();
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_colour_codes() {
        assert_eq!(strip_ansi("\u{1b}[1;31mERROR:\u{1b}[0m boom"), "ERROR: boom");
    }

    #[test]
    fn captures_and_times_out() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo out; echo err >&2; exit 3"]);
        let out = run_captured(cmd, Duration::from_secs(10), Echo::Quiet).unwrap();
        assert_eq!(out.status.unwrap().code(), Some(3));
        assert!(out.lines.contains(&"out".to_string()));
        assert!(out.lines.contains(&"err".to_string()));

        let mut cmd = Command::new("sh");
        cmd.args(["-c", "sleep 30 & sleep 30"]);
        let out = run_captured(cmd, Duration::from_millis(300), Echo::Quiet).unwrap();
        assert!(out.timed_out && !out.success());
        assert!(out.elapsed < Duration::from_secs(10));
    }

    #[test]
    fn stops_at_a_fatal_line() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo 'SCRIPT ERROR: Parse Error: Unexpected'; echo after; sleep 30"]);
        let out = run_captured_until(cmd, Duration::from_secs(60), Echo::Quiet, godot_fatal).unwrap();
        assert!(!out.timed_out && !out.success(), "{out:?}");
        assert_eq!(out.stopped_at.as_deref(), Some("SCRIPT ERROR: Parse Error: Unexpected"));
        assert!(out.lines.contains(&"after".to_string()));
        assert!(out.elapsed < Duration::from_secs(10));
        assert!(out.describe_exit().starts_with("stopped after"), "{}", out.describe_exit());
    }
}
