//! Linux arm64 (aarch64) on this x86_64 machine: the cross toolchain that links `strata-godot` for
//! [`ARM64_TARGET`], QEMU's user-mode emulator that runs arm64 programs, and Debian's arm64 Godot
//! with its library closure, which loads the arm64 library for real (`cargo xtask platforms arm64`,
//! [`crate::platforms`]).
//!
//! Each is a set of Debian packages with its dependency closure, unpacked with `dpkg -x` under
//! `.tools/arm64/` through a private apt configuration ([`crate::godot_install::Apt`]); the
//! system's packages are never touched:
//! * `cross/`: the machine's own release's `gcc-aarch64-linux-gnu` and `libc6-dev-arm64-cross`
//!   (amd64 programs, arm64 C library), so the library needs no newer glibc than the release's.
//!   Cargo's linker is a wrapper script (`cross/aarch64-linux-gnu-gcc`) that runs the unpacked
//!   gcc with `--sysroot` at the unpacked root, so the C library's linker scripts resolve there.
//! * `qemu/`: the release's `qemu-user-static` (static, runs anywhere).
//! * `godot/`: Debian unstable's arm64 `godot` (the version the x86_64 install has), started as
//!   `qemu-aarch64 -L ROOT ROOT/…/ld-linux-aarch64.so.1 --library-path ROOT-libs ROOT/usr/bin/godot`.
//!
//! A `aarch64-linux-gnu-gcc` or `qemu-aarch64(-static)` on `PATH` is used as it is.
//!
//! May use: [`crate::godot_install`] (apt, unpacking, [`Godot`]), [`crate::mingw`] (the release's
//! name), [`crate::paths`].

use crate::error::{Context, Error, Result};
use crate::godot_install::{self, Apt, Godot, GodotSource, unpack_debs};
use crate::paths;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The Rust target of the Linux arm64 library.
pub const ARM64_TARGET: &str = "aarch64-unknown-linux-gnu";

/// The environment variable naming cargo's linker for [`ARM64_TARGET`].
pub const LINKER_ENV: &str = "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER";

/// The environment variable naming cargo's runner (QEMU) for [`ARM64_TARGET`]'s tests.
pub const RUNNER_ENV: &str = "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER";

/// One unpacked set of Debian packages under `.tools/arm64/<name>/root`.
struct Bundle {
    /// Folder under `.tools/arm64/`.
    name: &'static str,
    /// Debian architecture of the packages.
    arch: &'static str,
    /// `None`: the machine's own release; `Some`: that suite.
    suite: Option<&'static str>,
    /// Packages whose closure is unpacked; the first must be in the resolver's answer.
    packages: &'static [&'static str],
}

const CROSS: Bundle =
    Bundle { name: "cross", arch: "amd64", suite: None, packages: &["gcc-aarch64-linux-gnu", "libc6-dev-arm64-cross"] };

const QEMU: Bundle = Bundle { name: "qemu", arch: "amd64", suite: None, packages: &["qemu-user-static"] };

const GODOT: Bundle = Bundle { name: "godot", arch: "arm64", suite: Some("unstable"), packages: &["godot"] };

fn arm64_dir() -> PathBuf {
    paths::tools_dir().join("arm64")
}

impl Bundle {
    fn dir(&self) -> PathBuf {
        arm64_dir().join(self.name)
    }

    fn root(&self) -> PathBuf {
        self.dir().join("root")
    }

    fn marker(&self) -> PathBuf {
        self.dir().join("installed.txt")
    }

    /// Whether a finished install lists every package of this bundle.
    fn installed(&self) -> bool {
        let Ok(text) = fs::read_to_string(self.marker()) else {
            return false;
        };
        let listed: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("packages="))
            .flat_map(str::split_whitespace)
            .map(|p| p.split_once('=').map_or(p, |(n, _)| n))
            .collect();
        self.packages.iter().all(|p| listed.contains(p)) && self.root().is_dir()
    }

    /// Unpacks the closure into `root` (once; serialised between xtask runs); returns the root.
    fn ensure(&self) -> Result<PathBuf> {
        if self.installed() {
            return Ok(self.root());
        }
        let _lock = paths::lock_file(&arm64_dir().join(format!("{}.lock", self.name)))?;
        if self.installed() {
            return Ok(self.root());
        }
        self.install().map_err(|e| {
            e.context(format!(
                "could not unpack {} ({}) into {}",
                self.packages.join(", "),
                self.arch,
                self.dir().display()
            ))
            .hint("fix the problem above and re-run; downloaded packages are reused")
        })?;
        Ok(self.root())
    }

    fn install(&self) -> Result<()> {
        let suite = match self.suite {
            Some(s) => s.to_string(),
            None => crate::mingw::debian_codename()?,
        };
        crate::step(format!(
            "unpacking Debian {suite}'s {} ({}) into {} (one-time)",
            self.packages.join(", "),
            self.arch,
            self.dir().display()
        ));
        // One apt configuration per (suite, architecture), shared by the bundles that use it.
        let apt = Apt::prepare_arch(arm64_dir().join(format!("apt-{suite}-{}", self.arch)), &suite, self.arch)?;
        if !apt.dir.join("lists").read_dir().is_ok_and(|mut d| d.any(|e| e.is_ok_and(|e| e.path().is_file()))) {
            crate::note(format!("apt-get update (private lists; mirror {})", apt.mirror));
            apt.run(&["update"], &apt.dir, Duration::from_secs(600))
                .with_context(|| format!("`apt-get update` for Debian {suite} ({}) failed", self.arch))?;
        }
        let packages = apt.resolve_closure(self.packages)?;
        crate::note(format!("dependency closure: {} packages", packages.len()));
        let debs = apt.download_into(&packages, &self.dir().join("debs"))?;
        let root = self.root();
        let staging = self.dir().join("root.tmp");
        if staging.exists() {
            fs::remove_dir_all(&staging).with_context(|| format!("could not remove {}", staging.display()))?;
        }
        fs::create_dir_all(&staging).with_context(|| format!("could not create {}", staging.display()))?;
        unpack_debs(&debs, &staging)?;
        let _ = fs::remove_file(self.marker());
        if root.exists() {
            fs::remove_dir_all(&root).with_context(|| format!("could not remove {}", root.display()))?;
        }
        fs::rename(&staging, &root).with_context(|| format!("could not move {} into place", staging.display()))?;
        let list: Vec<String> = packages.iter().map(|(n, v)| format!("{n}={v}")).collect();
        fs::write(self.marker(), format!("suite={suite}\narch={}\npackages={}\n", self.arch, list.join(" ")))
            .with_context(|| format!("could not write {}", self.marker().display()))?;
        Ok(())
    }
}

/// The linker for [`ARM64_TARGET`]: `aarch64-linux-gnu-gcc` on `PATH`, or the wrapper over the
/// unpacked cross gcc (installed when missing).
pub fn ensure_linker() -> Result<PathBuf> {
    if let Some(gcc) = paths::which("aarch64-linux-gnu-gcc") {
        return Ok(gcc);
    }
    let root = CROSS.ensure()?;
    let gcc = find_program(&root.join("usr/bin"), |n| {
        n.starts_with("aarch64-linux-gnu-gcc") && !n.contains("-ar") && !n.contains("-nm") && !n.contains("-ranlib")
    })?;
    let wrapper = CROSS.dir().join("aarch64-linux-gnu-gcc");
    let script = format!(
        "#!/bin/sh\n# Made by `cargo xtask platforms arm64` (rust/xtask/src/arm64.rs): Debian's aarch64 cross gcc\n\
         # unpacked under .tools/arm64/cross/root, its sysroot there too.\n\
         LD_LIBRARY_PATH='{}'${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}} exec '{}' --sysroot='{}' \"$@\"\n",
        godot_install::unpacked_library_path(&root),
        gcc.display(),
        root.display()
    );
    godot_install::write_executable(&wrapper, &script)?;
    Ok(wrapper)
}

/// The arm64 C library the cross toolchain links against (`-L` for QEMU when it runs the tests'
/// binaries): `usr/aarch64-linux-gnu` of the unpacked cross root, or the system's.
pub fn cross_sysroot() -> Result<PathBuf> {
    if paths::which("aarch64-linux-gnu-gcc").is_some() && Path::new("/usr/aarch64-linux-gnu/lib").is_dir() {
        return Ok(PathBuf::from("/usr/aarch64-linux-gnu"));
    }
    Ok(CROSS.ensure()?.join("usr/aarch64-linux-gnu"))
}

/// QEMU's user-mode emulator for arm64 programs (on `PATH`, or unpacked when missing).
pub fn ensure_qemu() -> Result<PathBuf> {
    for name in ["qemu-aarch64-static", "qemu-aarch64"] {
        if let Some(q) = paths::which(name) {
            return Ok(q);
        }
    }
    let root = QEMU.ensure()?;
    let q = root.join("usr/bin/qemu-aarch64-static");
    if paths::is_executable(&q) {
        return Ok(q);
    }
    find_program(&root.join("usr/bin"), |n| n.starts_with("qemu-aarch64"))
}

/// QEMU's version line (`qemu-aarch64 version 7.2.…`).
pub fn qemu_version(qemu: &Path) -> Result<String> {
    let out =
        Command::new(qemu).arg("--version").output().with_context(|| format!("could not run {}", qemu.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines().next().map(|l| l.trim().to_string()).context("qemu --version printed nothing")
}

/// cargo's runner for [`ARM64_TARGET`] test binaries: `QEMU -L <cross sysroot>`.
pub fn test_runner() -> Result<String> {
    let qemu = ensure_qemu()?;
    let sysroot = cross_sysroot()?;
    Ok(format!("{} -L {}", qemu.display(), sysroot.display()))
}

/// Debian's arm64 Godot under QEMU, unpacked when missing; fails unless it reports >= 4.6.
pub fn ensure_godot() -> Result<Godot> {
    let qemu = ensure_qemu()?;
    let root = GODOT.ensure()?;
    let mut godot = godot_from_root(&qemu, &root)?;
    let version =
        godot_install::probe_version(&godot).context("Debian's arm64 Godot does not run under qemu-aarch64")?;
    if !godot_install::version_ok(&version) {
        bail!("Debian unstable's arm64 Godot is {version}, but >= 4.6 is required");
    }
    godot.version = version;
    Ok(godot)
}

fn godot_from_root(qemu: &Path, root: &Path) -> Result<Godot> {
    let loader = ["usr/lib/aarch64-linux-gnu/ld-linux-aarch64.so.1", "lib/aarch64-linux-gnu/ld-linux-aarch64.so.1"]
        .iter()
        .map(|p| root.join(p))
        .find(|p| p.is_file())
        .with_context(|| format!("no ld-linux-aarch64.so.1 under {}", root.display()))?;
    let binary = ["usr/bin/godot", "usr/bin/godot4", "usr/games/godot"]
        .iter()
        .map(|p| root.join(p))
        .find(|p| p.is_file())
        .with_context(|| format!("no Godot binary under {}/usr/bin", root.display()))?;
    let lib_dirs: Vec<PathBuf> = ["usr/lib/aarch64-linux-gnu", "lib/aarch64-linux-gnu", "usr/lib"]
        .iter()
        .map(|p| root.join(p))
        .filter(|p| p.is_dir())
        .collect();
    let library_path = std::env::join_paths(&lib_dirs).context("library path contains ':'")?;
    let mut pre_args: Vec<OsString> = vec!["-L".into(), root.as_os_str().to_owned(), loader.into_os_string()];
    pre_args.extend(["--library-path".into(), library_path, binary.into_os_string()]);
    Ok(Godot {
        program: qemu.to_path_buf(),
        pre_args,
        env: vec![],
        version: String::new(),
        source: GodotSource::EmulatedArm64,
    })
}

/// The one executable in `dir` whose name `wanted` accepts (sorted, first).
fn find_program(dir: &Path, wanted: impl Fn(&str) -> bool) -> Result<PathBuf> {
    let mut found: Vec<PathBuf> = fs::read_dir(dir)
        .with_context(|| format!("could not list {}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().is_some_and(|n| wanted(&n.to_string_lossy())) && paths::is_executable(p))
        .collect();
    found.sort();
    found.into_iter().next().ok_or_else(|| Error::msg(format!("no such program in {}", dir.display())))
}
