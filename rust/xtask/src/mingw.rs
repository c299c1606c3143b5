//! The MinGW-w64 cross toolchain for the Windows build of the addon (`cargo xtask package
//! --windows`): Debian's `gcc-mingw-w64-x86-64-win32`, `binutils-mingw-w64-x86-64` and
//! `mingw-w64-x86-64-dev`, with their dependency closure, unpacked with `dpkg -x` into
//! `.tools/mingw/root` through a private apt configuration (`.tools/mingw/apt`, see
//! [`crate::godot_install::Apt`]); the system's packages are never touched.
//!
//! The packages come from the machine's own Debian release (`VERSION_CODENAME` of
//! `/etc/os-release`), so the unpacked compiler driver, `collect2` and `ld` run on the system's
//! C library directly; the libraries they load from the closure (GMP, MPFR, ...) are found through
//! `LD_LIBRARY_PATH`, set by a small wrapper script that is the linker cargo is given
//! (`CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER`).
//!
//! May use: [`crate::godot_install`] (apt, unpacking), [`crate::paths`].

use crate::error::{Context, Result};
use crate::godot_install::{Apt, unpack_debs};
use crate::paths;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The Rust target the Windows library is built for.
pub const WINDOWS_TARGET: &str = "x86_64-pc-windows-gnu";

/// Packages unpacked into the private root (with their dependency closures). The first one is the
/// one the resolver must list.
const PACKAGES: &[&str] = &["gcc-mingw-w64-x86-64-win32", "binutils-mingw-w64-x86-64", "mingw-w64-x86-64-dev"];

fn mingw_dir() -> PathBuf {
    paths::tools_dir().join("mingw")
}

fn marker_path() -> PathBuf {
    mingw_dir().join("installed.txt")
}

/// The wrapper script cargo runs as the linker (`.tools/mingw/x86_64-w64-mingw32-gcc`).
fn wrapper_path() -> PathBuf {
    mingw_dir().join("x86_64-w64-mingw32-gcc")
}

/// Returns the linker for [`WINDOWS_TARGET`], installing the toolchain into `.tools/mingw` first
/// when it is missing. A `x86_64-w64-mingw32-gcc` on `PATH` is used as it is.
pub fn ensure_linker() -> Result<PathBuf> {
    if let Some(gcc) = paths::which("x86_64-w64-mingw32-gcc") {
        return Ok(gcc);
    }
    let wrapper = wrapper_path();
    if marker_path().is_file() && wrapper.is_file() {
        return Ok(wrapper);
    }
    let _lock = paths::lock_file(&paths::tools_dir().join("mingw.lock"))?;
    if marker_path().is_file() && wrapper.is_file() {
        return Ok(wrapper);
    }
    install().map_err(|e| {
        e.context("could not install MinGW-w64 into .tools/mingw").hint(
            "install Debian's gcc-mingw-w64-x86-64 yourself (x86_64-w64-mingw32-gcc on PATH), or fix the \
             problem above and re-run; downloaded packages in .tools/mingw/apt/debs are reused",
        )
    })
}

/// The folder of the unpacked MinGW-w64's programs (`x86_64-w64-mingw32-dlltool`, which rustc
/// runs for the `raw-dylib` imports of crates such as `windows-sys`), to put on the build's
/// `PATH`; `None` when the system's MinGW-w64 is on `PATH` already.
pub fn tool_dir() -> Option<PathBuf> {
    if paths::which("x86_64-w64-mingw32-dlltool").is_some() {
        return None;
    }
    Some(mingw_dir().join("root/usr/bin")).filter(|d| d.is_dir())
}

/// The system's Debian release name (`bookworm`), from `/etc/os-release`; also [`crate::arm64`]'s.
pub(crate) fn debian_codename() -> Result<String> {
    let text = fs::read_to_string("/etc/os-release").context("could not read /etc/os-release")?;
    text.lines()
        .find_map(|l| l.strip_prefix("VERSION_CODENAME="))
        .map(|v| v.trim_matches('"').to_string())
        .filter(|v| !v.is_empty())
        .context("/etc/os-release has no VERSION_CODENAME: the MinGW install needs a Debian release")
}

fn install() -> Result<PathBuf> {
    let suite = debian_codename()?;
    crate::step(format!("installing MinGW-w64 from Debian {suite} into .tools/mingw (one-time)"));
    let apt = Apt::prepare(mingw_dir().join("apt"), &suite)?;
    crate::note(format!("apt-get update (private lists; mirror {})", apt.mirror));
    apt.run(&["update"], &apt.dir, Duration::from_secs(600))
        .with_context(|| format!("`apt-get update` for Debian {suite} failed"))?;
    let packages = apt.resolve_closure(PACKAGES)?;
    crate::note(format!("dependency closure: {} packages", packages.len()));
    let debs = apt.download(&packages)?;

    let root = mingw_dir().join("root");
    let staging = mingw_dir().join("root.tmp");
    if staging.exists() {
        fs::remove_dir_all(&staging).with_context(|| format!("could not remove {}", staging.display()))?;
    }
    fs::create_dir_all(&staging)?;
    unpack_debs(&debs, &staging)?;
    let _ = fs::remove_file(marker_path());
    if root.exists() {
        fs::remove_dir_all(&root).with_context(|| format!("could not remove {}", root.display()))?;
    }
    fs::rename(&staging, &root).with_context(|| format!("could not move {} into place", staging.display()))?;

    let gcc = find_gcc(&root)?;
    write_wrapper(&root, &gcc)?;
    let pkg_list: Vec<String> = packages.iter().map(|(n, v)| format!("{n}={v}")).collect();
    fs::write(marker_path(), format!("suite={suite}\ngcc={}\npackages={}\n", gcc.display(), pkg_list.join(" ")))?;
    Ok(wrapper_path())
}

/// The unpacked compiler driver: Debian installs it as `x86_64-w64-mingw32-gcc-win32` (the plain
/// name is an alternatives link that `dpkg -x` does not make).
fn find_gcc(root: &Path) -> Result<PathBuf> {
    let bin = root.join("usr/bin");
    let mut names: Vec<PathBuf> = fs::read_dir(&bin)
        .with_context(|| format!("could not list {}", bin.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().is_some_and(|n| {
                let n = n.to_string_lossy();
                n.starts_with("x86_64-w64-mingw32-gcc") && n.ends_with("-win32") && !n.contains("gcc-ar")
            }) && paths::is_executable(p)
        })
        .collect();
    names.sort();
    names.into_iter().next().with_context(|| format!("no x86_64-w64-mingw32-gcc*-win32 under {}", bin.display()))
}

/// Writes the linker wrapper: the unpacked gcc with the closure's libraries on `LD_LIBRARY_PATH`.
fn write_wrapper(root: &Path, gcc: &Path) -> Result<()> {
    let script = format!(
        "#!/bin/sh\n# Made by `cargo xtask package --windows` (rust/xtask/src/mingw.rs): the MinGW-w64 gcc unpacked\n\
         # under .tools/mingw/root, with its libraries found there.\n\
         LD_LIBRARY_PATH='{}'${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}} exec '{}' \"$@\"\n",
        crate::godot_install::unpacked_library_path(root),
        gcc.display()
    );
    crate::godot_install::write_executable(&wrapper_path(), &script)
}
