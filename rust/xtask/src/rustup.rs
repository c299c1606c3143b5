//! Rust targets for the cross builds (`cargo xtask package`, `cargo xtask platforms`): added
//! through rustup when missing.
//!
//! May use: [`crate::godot_run`] (running a command), [`crate::paths`].

use crate::error::Result;
use crate::{godot_run, paths};
use std::process::Command;

/// `rustup target add TARGET` unless rustup lists it as installed (no rustup: left to cargo's
/// error, with a hint).
pub fn ensure_rust_target(target: &str) -> Result<()> {
    let Some(rustup) = paths::which("rustup") else {
        return Ok(());
    };
    let out = Command::new(&rustup).args(["target", "list", "--installed"]).current_dir(paths::repo_root()).output();
    if out.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).lines().any(|l| l.trim() == target)) {
        return Ok(());
    }
    crate::step(format!("rustup target add {target}"));
    let mut cmd = Command::new(rustup);
    cmd.args(["target", "add", target]).current_dir(paths::repo_root());
    let status = godot_run::run_inherit(cmd)?;
    if !status.success() {
        bail!("`rustup target add {target}` failed ({})", godot_run::describe_status(status));
    }
    Ok(())
}
