//! `xvfb-run` for rendered runs without a display. It comes from the machine's own
//! Debian release (`xvfb` + `xauth` packages), installed with the system apt only when
//! a rendered run needs it and it is missing.

use crate::error::{Context, Error, Result, tail};
use crate::godot_run::{self, Echo};
use crate::paths;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

unsafe extern "C" {
    fn geteuid() -> u32;
}

/// Whether xtask runs as root.
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { geteuid() == 0 }
}

/// Returns the path of `xvfb-run`, installing `xvfb` and `xauth` with the system apt
/// (`apt-get update` first if the install fails) when either is missing.
pub fn ensure_xvfb_run() -> Result<PathBuf> {
    if let (Some(x), Some(_)) = (paths::which("xvfb-run"), paths::which("xauth")) {
        return Ok(x);
    }
    let _lock = paths::lock_file(&paths::tools_dir().join("xvfb.lock"))?;
    if let (Some(x), Some(_)) = (paths::which("xvfb-run"), paths::which("xauth")) {
        return Ok(x);
    }
    let hint = "install them yourself: `sudo apt-get install --no-install-recommends xvfb xauth`";
    if paths::which("apt-get").is_none() {
        return Err(Error::msg("xvfb-run/xauth are missing and there is no apt-get to install them").hint(hint));
    }
    let sudo = if is_root() {
        false
    } else if paths::which("sudo").is_some() {
        true
    } else {
        return Err(Error::msg("xvfb-run/xauth are missing and xtask is not root (and has no sudo)").hint(hint));
    };
    crate::step("installing xvfb and xauth with the system apt-get");
    let apt = |args: &[&str]| -> Result<()> {
        let mut cmd = if sudo {
            let mut c = Command::new("sudo");
            c.args(["-n", "apt-get"]);
            c
        } else {
            Command::new("apt-get")
        };
        cmd.args(["-o", "DPkg::Lock::Timeout=300", "-q"]).args(args);
        cmd.env("DEBIAN_FRONTEND", "noninteractive");
        let out = godot_run::run_captured(cmd, Duration::from_secs(900), Echo::Quiet)?;
        if !out.success() {
            bail!("apt-get {} {}:\n{}", args.join(" "), out.describe_exit(), tail(&out.lines, 20));
        }
        Ok(())
    };
    let install = ["install", "-y", "--no-install-recommends", "xvfb", "xauth"];
    if apt(&install).is_err() {
        apt(&["update"]).map_err(|e| e.hint(hint))?;
        apt(&install).map_err(|e| e.hint(hint))?;
    }
    paths::which("xvfb-run").context("xvfb-run still not on PATH after installing xvfb")
}
