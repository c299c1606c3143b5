//! Finding a Godot >= 4.6, or installing Debian unstable's Godot into `.tools/godot/`.
//!
//! Resolution order ([`ensure_godot`]):
//! 1. `$GODOT`, then `godot` / `godot4` on `PATH`, if `--version` reports >= 4.6;
//! 2. a previous private install (`.tools/godot/installed.txt` marker) — instant;
//! 3. otherwise a fresh private install: Debian unstable's `godot` package plus Mesa
//!    (`libgl1 libglx-mesa0 libgl1-mesa-dri libegl1 libegl-mesa0` for OpenGL on llvmpipe,
//!    `mesa-vulkan-drivers` for Vulkan on lavapipe), with their whole dependency closure,
//!    unpacked with `dpkg -x` into `.tools/godot/root`. A private install made before a
//!    package joined [`PACKAGES`] is made again (the downloaded `.deb`s are reused).
//!
//! The system's apt sources, lists and dpkg status are never touched: apt runs with a
//! private configuration under `.tools/apt/` (own `sources.list`, lists, cache and an
//! empty status file, so the resolver computes the full closure) while still reading
//! the machine's `apt.conf.d` (proxies, mirrors) and trusted keys.
//!
//! Unstable's binaries need a newer glibc than Debian 12 has, so the private Godot is
//! started through the loader from its own closure:
//! `ROOT/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 --library-path <ROOT libs> ROOT/usr/bin/godot`.
//! `--library-path` also governs `dlopen`, which is how the GL/EGL drivers are found;
//! `LIBGL_DRIVERS_PATH`, `__EGL_VENDOR_LIBRARY_DIRS` and `GBM_BACKENDS_PATH` point Mesa
//! and libglvnd at the unpacked drivers, so rendering works with llvmpipe under Xvfb.
//! For Vulkan, `VK_DRIVER_FILES` names a copy of lavapipe's ICD manifest whose
//! `library_path` is the unpacked driver's absolute path (Debian's names a bare file,
//! found only in the system's library path), so `--rendering-driver vulkan` runs the
//! Forward+ renderer on the CPU under Xvfb.

use crate::error::{Context, Error, Result, tail};
use crate::godot_run::{self, Echo};
use crate::paths;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The oldest Godot this project supports.
pub const MIN_VERSION: (u32, u32) = (4, 6);

/// Packages installed into the private root (with their dependency closures).
pub const PACKAGES: &[&str] =
    &["godot", "libgl1", "libglx-mesa0", "libgl1-mesa-dri", "libegl1", "libegl-mesa0", "mesa-vulkan-drivers"];

/// Lavapipe's ICD manifest in the unpacked root (Debian's `mesa-vulkan-drivers`).
const LAVAPIPE_ICD: &str = "usr/share/vulkan/icd.d/lvp_icd.json";

/// Where a [`Godot`] came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GodotSource {
    /// The `$GODOT` environment variable.
    EnvVar,
    /// A `godot` / `godot4` found on `PATH`.
    Path,
    /// The private Debian-unstable install under `.tools/godot/root`.
    Private,
    /// Debian unstable's arm64 Godot under `.tools/arm64/godot/root`, run by QEMU's user-mode
    /// emulator ([`crate::arm64`]).
    EmulatedArm64,
}

/// A runnable Godot: program, leading arguments and environment. Use
/// [`Godot::command`] to get a [`Command`] and append Godot's own arguments.
#[derive(Clone, Debug)]
pub struct Godot {
    /// The program to execute (the Godot binary, or the private dynamic loader).
    pub program: PathBuf,
    /// Arguments placed before Godot's own (`--library-path ... godot` for the loader).
    pub pre_args: Vec<OsString>,
    /// Environment variables to set (GL driver locations for the private install).
    pub env: Vec<(OsString, OsString)>,
    /// Full version string as printed by `--version`, e.g. `4.6.3.stable.debian4.6.3+ds-3`.
    pub version: String,
    /// Where it came from.
    pub source: GodotSource,
}

impl Godot {
    /// A command running this Godot, with its environment set and the working
    /// directory at the repository root (so `--path godot_project` works).
    pub fn command(&self) -> Command {
        let mut cmd = Command::new(&self.program);
        cmd.args(&self.pre_args);
        cmd.envs(self.env.iter().map(|(k, v)| (k, v)));
        cmd.current_dir(paths::repo_root());
        cmd
    }

    /// A command running this Godot on a virtual X display via
    /// `xvfb-run -a -s "-screen 0 <screen>"` (installing `xvfb` if needed);
    /// `screen` is e.g. `"1280x720x24"`. Add `--rendering-driver opengl3` yourself.
    pub fn xvfb_command(&self, screen: &str) -> Result<Command> {
        let xvfb_run = crate::xvfb::ensure_xvfb_run()?;
        let mut cmd = Command::new(xvfb_run);
        cmd.args(["-a", "-s", &format!("-screen 0 {screen}")]);
        cmd.arg(&self.program);
        cmd.args(&self.pre_args);
        cmd.envs(self.env.iter().map(|(k, v)| (k, v)));
        cmd.current_dir(paths::repo_root());
        Ok(cmd)
    }

    /// One line describing this Godot, for logs.
    pub fn describe(&self) -> String {
        let from = match self.source {
            GodotSource::EnvVar => format!("$GODOT = {}", self.program.display()),
            GodotSource::Path => format!("{} (from PATH)", self.program.display()),
            GodotSource::Private => format!("{} (private install)", private_root().display()),
            GodotSource::EmulatedArm64 => format!("{} (Debian arm64 under qemu-aarch64)", self.program.display()),
        };
        format!("Godot {} — {from}", self.version)
    }
}

/// Parses `major.minor[.patch]` from the start of a Godot version string.
pub fn parse_version(s: &str) -> Option<(u32, u32, u32)> {
    let mut it = s.trim().split(|c: char| !c.is_ascii_digit());
    let major = it.next()?.parse().ok()?;
    let minor = it.next()?.parse().ok()?;
    let patch = it.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    Some((major, minor, patch))
}

pub(crate) fn version_ok(v: &str) -> bool {
    parse_version(v).is_some_and(|(ma, mi, _)| (ma, mi) >= MIN_VERSION)
}

/// Runs `godot --headless --version` and returns the version line, if it runs at all.
pub(crate) fn probe_version(godot: &Godot) -> Result<String> {
    let mut cmd = godot.command();
    cmd.args(["--headless", "--version"]);
    let out = godot_run::run_captured(cmd, Duration::from_secs(120), Echo::Quiet)?;
    let line = out.lines.iter().rev().find(|l| parse_version(l).is_some()).cloned();
    match line {
        Some(l) if out.success() => Ok(l.trim().to_string()),
        _ => Err(Error::msg(format!(
            "`{} --headless --version` failed ({}); output:\n{}",
            godot.program.display(),
            out.describe_exit(),
            tail(&out.lines, 15)
        ))),
    }
}

fn system_candidate(program: PathBuf, source: GodotSource) -> Godot {
    Godot { program, pre_args: vec![], env: vec![], version: String::new(), source }
}

/// Returns a usable Godot >= 4.6, installing Debian unstable's Godot into
/// `.tools/godot/` if none is available (see the module docs). Fast when already done.
pub fn ensure_godot() -> Result<Godot> {
    // 1. $GODOT, then godot / godot4 on PATH.
    let mut candidates = Vec::new();
    if let Some(g) = std::env::var_os("GODOT").filter(|g| !g.is_empty()) {
        let p = PathBuf::from(&g);
        let p = if p.components().count() == 1 { paths::which(&g).unwrap_or(p) } else { p };
        candidates.push(system_candidate(p, GodotSource::EnvVar));
    }
    for name in ["godot", "godot4"] {
        if let Some(p) = paths::which(name) {
            candidates.push(system_candidate(p, GodotSource::Path));
        }
    }
    for mut cand in candidates {
        match probe_version(&cand) {
            Ok(v) if version_ok(&v) => {
                cand.version = v;
                return Ok(cand);
            }
            Ok(v) => crate::warn(format!(
                "ignoring {}: version {v} is older than {}.{}",
                cand.program.display(),
                MIN_VERSION.0,
                MIN_VERSION.1
            )),
            Err(e) => crate::warn(format!("ignoring {}: {e}", cand.program.display())),
        }
    }

    // 2. A finished private install.
    if let Some(godot) = installed_private()? {
        return Ok(godot);
    }
    // 3. Install (serialised between concurrent xtask runs).
    let _lock = paths::lock_file(&paths::tools_dir().join("godot.lock"))?;
    if let Some(godot) = installed_private()? {
        return Ok(godot);
    }
    install_private().map_err(|e| {
        e.context("could not install Godot 4.6 into .tools/godot").hint(
            "install Godot >= 4.6 yourself and put it on PATH (or set GODOT=/path/to/godot), \
             or fix the problem above and re-run; a partial download in .tools/ is reused",
        )
    })
}

/// `.tools/godot/root`: the unpacked package closure.
pub fn private_root() -> PathBuf {
    paths::tools_dir().join("godot").join("root")
}

fn marker_path() -> PathBuf {
    paths::tools_dir().join("godot").join("installed.txt")
}

fn apt_dir() -> PathBuf {
    paths::tools_dir().join("apt")
}

/// The private install, if its marker and files are present.
fn installed_private() -> Result<Option<Godot>> {
    let Ok(marker) = fs::read_to_string(marker_path()) else {
        return Ok(None);
    };
    let Some(version) = marker.lines().find_map(|l| l.strip_prefix("version=")) else {
        return Ok(None);
    };
    if !marker_has_every_package(&marker) {
        crate::note("the private Godot install predates a package it now needs: installing it again");
        return Ok(None);
    }
    match godot_from_root(&private_root(), version.trim()) {
        Ok(g) if version_ok(&g.version) => Ok(Some(g)),
        _ => Ok(None),
    }
}

/// Whether an install marker lists every package of [`PACKAGES`] (`packages=name=version ...`).
fn marker_has_every_package(marker: &str) -> bool {
    let listed: Vec<&str> = marker
        .lines()
        .filter_map(|l| l.strip_prefix("packages="))
        .flat_map(str::split_whitespace)
        .map(|p| p.split_once('=').map_or(p, |(name, _)| name))
        .collect();
    PACKAGES.iter().all(|p| listed.contains(p))
}

/// Writes `.tools/godot/lvp_icd.json`: lavapipe's manifest with the unpacked driver's
/// absolute path, for `VK_DRIVER_FILES`. `None` when the root has no lavapipe.
fn lavapipe_manifest(root: &Path) -> Result<Option<PathBuf>> {
    let Ok(text) = fs::read_to_string(root.join(LAVAPIPE_ICD)) else {
        return Ok(None);
    };
    let driver = root.join("usr/lib/x86_64-linux-gnu/libvulkan_lvp.so");
    if !driver.is_file() {
        return Ok(None);
    }
    let mut manifest: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{} is not JSON", root.join(LAVAPIPE_ICD).display()))?;
    let Some(icd) = manifest.get_mut("ICD").and_then(|v| v.as_object_mut()) else {
        bail!("{} has no \"ICD\" object", root.join(LAVAPIPE_ICD).display());
    };
    icd.insert("library_path".into(), driver.display().to_string().into());
    let out = root.with_file_name("lvp_icd.json");
    let text = serde_json::to_string_pretty(&manifest).context("could not write lavapipe's manifest")?;
    if fs::read_to_string(&out).ok().as_deref() != Some(text.as_str()) {
        fs::write(&out, text).with_context(|| format!("could not write {}", out.display()))?;
    }
    Ok(Some(out))
}

/// Builds the loader-based [`Godot`] for an unpacked root.
fn godot_from_root(root: &Path, version: &str) -> Result<Godot> {
    let loader = [
        "usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
        "usr/lib64/ld-linux-x86-64.so.2",
        "lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
        "lib64/ld-linux-x86-64.so.2",
    ]
    .iter()
    .map(|p| root.join(p))
    .find(|p| p.is_file())
    .with_context(|| format!("no ld-linux-x86-64.so.2 under {}", root.display()))?;
    let binary = ["usr/bin/godot", "usr/bin/godot4", "usr/games/godot"]
        .iter()
        .map(|p| root.join(p))
        .find(|p| is_elf(p))
        .with_context(|| format!("no Godot ELF binary under {}/usr/bin", root.display()))?;
    let lib_dirs: Vec<PathBuf> =
        ["usr/lib/x86_64-linux-gnu", "usr/lib/x86_64-linux-gnu/pulseaudio", "lib/x86_64-linux-gnu", "usr/lib"]
            .iter()
            .map(|p| root.join(p))
            .filter(|p| p.is_dir())
            .collect();
    let library_path = std::env::join_paths(&lib_dirs).context("library path contains ':'")?;

    let mut env: Vec<(OsString, OsString)> = Vec::new();
    let mut set_if_dir = |key: &str, rel: &str| {
        let p = root.join(rel);
        if p.is_dir() {
            env.push((key.into(), p.into_os_string()));
        }
    };
    set_if_dir("LIBGL_DRIVERS_PATH", "usr/lib/x86_64-linux-gnu/dri");
    set_if_dir("__EGL_VENDOR_LIBRARY_DIRS", "usr/share/glvnd/egl_vendor.d");
    set_if_dir("GBM_BACKENDS_PATH", "usr/lib/x86_64-linux-gnu/gbm");
    set_if_dir("XKB_CONFIG_ROOT", "usr/share/X11/xkb");
    if !Path::new("/etc/fonts/fonts.conf").exists() {
        set_if_dir("FONTCONFIG_PATH", "etc/fonts");
    }
    // Vulkan on lavapipe, unless the caller names its own drivers.
    let drivers_named = std::env::var_os("VK_DRIVER_FILES").is_some() || std::env::var_os("VK_ICD_FILENAMES").is_some();
    if !drivers_named && let Some(manifest) = lavapipe_manifest(root)? {
        env.push(("VK_DRIVER_FILES".into(), manifest.clone().into_os_string()));
        env.push(("VK_ICD_FILENAMES".into(), manifest.into_os_string()));
    }

    Ok(Godot {
        program: loader,
        pre_args: vec!["--library-path".into(), library_path, binary.into_os_string()],
        env,
        version: version.to_string(),
        source: GodotSource::Private,
    })
}

fn is_elf(p: &Path) -> bool {
    use std::io::Read;
    let mut magic = [0u8; 4];
    fs::File::open(p).and_then(|mut f| f.read_exact(&mut magic)).is_ok() && magic == *b"\x7fELF"
}

/// Downloads and unpacks Godot + Mesa from Debian unstable into `.tools/godot/root`.
fn install_private() -> Result<Godot> {
    let started = Instant::now();
    if !(cfg!(target_os = "linux") && cfg!(target_arch = "x86_64")) {
        bail!(
            "the automatic Godot install only supports Linux x86_64 (this is {} {})",
            std::env::consts::OS,
            std::env::consts::ARCH
        );
    }
    for tool in ["apt-get", "dpkg"] {
        if paths::which(tool).is_none() {
            return Err(Error::msg(format!(
                "`{tool}` not found: the automatic Godot install needs a Debian-based system"
            )));
        }
    }
    crate::step("installing Godot 4.6 from Debian unstable into .tools/godot (one-time, ~160 MB)");
    let apt = Apt::prepare(apt_dir(), "unstable")?;

    crate::note(format!("apt-get update (private lists; mirror {})", apt.mirror));
    apt.run(&["update"], &apt.dir, Duration::from_secs(600)).context("`apt-get update` for Debian unstable failed")?;

    let packages = apt.resolve_closure(PACKAGES)?;
    crate::note(format!("dependency closure: {} packages", packages.len()));

    let debs = apt.download(&packages)?;

    let root = private_root();
    let staging = root.with_file_name("root.tmp");
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

    let mut godot = godot_from_root(&root, "")?;
    let version = probe_version(&godot).context("the unpacked Godot does not run")?;
    if !version_ok(&version) {
        bail!("Debian unstable's Godot is {version}, but >= {}.{} is required", MIN_VERSION.0, MIN_VERSION.1);
    }
    godot.version = version.clone();
    let pkg_list: Vec<String> = packages.iter().map(|(n, v)| format!("{n}={v}")).collect();
    fs::write(marker_path(), format!("version={version}\nmirror={}\npackages={}\n", apt.mirror, pkg_list.join(" ")))?;
    crate::note(format!("installed Godot {version} in {:.0} s", started.elapsed().as_secs_f64()));
    Ok(godot)
}

/// Unpacks `.deb` files into `root` with `dpkg -x` (no scripts run, nothing registered).
pub(crate) fn unpack_debs(debs: &[PathBuf], root: &Path) -> Result<()> {
    crate::note(format!("unpacking {} packages with dpkg -x", debs.len()));
    for deb in debs {
        let out = Command::new("dpkg").arg("-x").arg(deb).arg(root).output().context("could not run `dpkg -x`")?;
        if !out.status.success() {
            bail!("`dpkg -x {}` failed: {}", deb.display(), String::from_utf8_lossy(&out.stderr).trim());
        }
    }
    Ok(())
}

/// A private apt configuration rooted at a folder of `.tools/` (`.tools/apt/` for Godot), reading
/// one suite of the Debian mirror. Also used for the MinGW-w64 toolchain ([`crate::mingw`]).
pub(crate) struct Apt {
    pub(crate) dir: PathBuf,
    pub(crate) mirror: String,
    opts: Vec<String>,
}

impl Apt {
    /// Creates the configuration under `dir`, with `suite` (e.g. `unstable`) as its only source,
    /// for amd64 packages.
    pub(crate) fn prepare(dir: PathBuf, suite: &str) -> Result<Apt> {
        Apt::prepare_arch(dir, suite, "amd64")
    }

    /// [`Apt::prepare`] for the packages of one Debian architecture (`amd64`, `arm64`): the
    /// resolver computes the closure in that architecture and `download` fetches its `.deb`s.
    pub(crate) fn prepare_arch(dir: PathBuf, suite: &str, arch: &str) -> Result<Apt> {
        for sub in ["lists/partial", "cache/archives/partial", "state", "debs", "empty.d"] {
            fs::create_dir_all(dir.join(sub))
                .with_context(|| format!("could not create {}", dir.join(sub).display()))?;
        }
        let mirror = debian_mirror();
        fs::write(dir.join("sources.list"), format!("deb {mirror} {suite} main\n"))?;
        // An empty status file: nothing counts as installed, so the resolver returns
        // the complete closure.
        fs::write(dir.join("status"), "")?;
        let d = |p: &str| dir.join(p).display().to_string();
        let mut opts = vec![
            format!("Dir::Etc::SourceList={}", d("sources.list")),
            format!("Dir::Etc::SourceParts={}", d("empty.d")),
            format!("Dir::Etc::Preferences={}", d("preferences")),
            format!("Dir::Etc::PreferencesParts={}", d("empty.d")),
            format!("Dir::State={}", d("state")),
            format!("Dir::State::Lists={}", d("lists")),
            format!("Dir::State::Status={}", d("status")),
            format!("Dir::Cache={}", d("cache")),
            format!("Dir::Cache::Archives={}", d("cache/archives")),
            format!("APT::Architecture={arch}"),
            format!("APT::Architectures={arch}"),
            "APT::Install-Recommends=false".into(),
            "APT::Install-Suggests=false".into(),
            "Acquire::Languages=none".into(),
            "Acquire::Retries=3".into(),
            "quiet=1".into(),
        ];
        for t in ["DEP-11", "DEP-11-icons", "DEP-11-icons-small", "DEP-11-icons-large", "DEP-11-icons-hidpi"] {
            opts.push(format!("Acquire::IndexTargets::deb::{t}::DefaultEnabled=false"));
        }
        if crate::xvfb::is_root() {
            // Files in .tools are not readable by the `_apt` sandbox user.
            opts.push("APT::Sandbox::User=root".into());
        }
        Ok(Apt { dir, mirror, opts })
    }

    fn command(&self, program: &str) -> Command {
        let mut cmd = Command::new(program);
        for o in &self.opts {
            cmd.arg("-o").arg(o);
        }
        cmd.env("DEBIAN_FRONTEND", "noninteractive");
        cmd
    }

    /// Runs `apt-get <args>` in `cwd`, returning its output; errors carry the tail.
    pub(crate) fn run(&self, args: &[&str], cwd: &Path, timeout: Duration) -> Result<Vec<String>> {
        let mut cmd = self.command("apt-get");
        cmd.args(args).current_dir(cwd);
        let out = godot_run::run_captured(cmd, timeout, Echo::Quiet)?;
        if !out.success() {
            bail!("apt-get {} {}; output:\n{}", args.join(" "), out.describe_exit(), tail(&out.lines, 25));
        }
        Ok(out.lines)
    }

    /// The full dependency closure of `packages` as `(name, version)`, computed by
    /// apt's own resolver against the empty status file (`apt-get -s install`), which
    /// picks one branch of each alternative and resolves virtual packages. Falls back
    /// to a recursive `apt-cache depends` if the simulation fails or lists no `packages[0]`.
    pub(crate) fn resolve_closure(&self, packages: &[&str]) -> Result<Vec<(String, String)>> {
        let mut args = vec!["-s", "install", "--no-install-recommends"];
        args.extend_from_slice(packages);
        match self.run(&args, &self.dir, Duration::from_secs(300)) {
            Ok(lines) => {
                let pkgs: Vec<(String, String)> = lines
                    .iter()
                    .filter_map(|l| {
                        let rest = l.strip_prefix("Inst ")?;
                        let name = rest.split_whitespace().next()?.to_string();
                        let version = rest.split_once('(')?.1.split_whitespace().next()?.to_string();
                        Some((name, version))
                    })
                    .collect();
                if pkgs.iter().any(|(n, _)| Some(&n.as_str()) == packages.first()) {
                    return Ok(pkgs);
                }
                crate::warn(format!(
                    "`apt-get -s install` listed no {}; falling back to apt-cache depends",
                    packages.first().copied().unwrap_or("package")
                ));
            }
            Err(e) => crate::warn(format!("{e}\nfalling back to `apt-cache depends --recurse`")),
        }
        self.resolve_closure_apt_cache(packages)
    }

    fn resolve_closure_apt_cache(&self, packages: &[&str]) -> Result<Vec<(String, String)>> {
        let mut cmd = self.command("apt-cache");
        cmd.args([
            "depends",
            "--recurse",
            "--no-recommends",
            "--no-suggests",
            "--no-conflicts",
            "--no-breaks",
            "--no-replaces",
            "--no-enhances",
        ]);
        cmd.args(packages);
        let out = godot_run::run_captured(cmd, Duration::from_secs(300), Echo::Quiet)?;
        if !out.success() {
            bail!("apt-cache depends failed ({}):\n{}", out.describe_exit(), tail(&out.lines, 25));
        }
        let mut names: Vec<String> = out
            .lines
            .iter()
            .filter(|l| !l.starts_with(' ') && !l.starts_with('<') && !l.trim().is_empty())
            .map(|l| l.trim().to_string())
            .collect();
        names.sort();
        names.dedup();
        // Versions are the candidates; look them up so downloads can be matched.
        let mut cmd = self.command("apt-cache");
        cmd.arg("policy").args(&names);
        let out = godot_run::run_captured(cmd, Duration::from_secs(300), Echo::Quiet)?;
        let mut result = Vec::new();
        let mut current: Option<String> = None;
        for l in &out.lines {
            if !l.starts_with(' ') && l.ends_with(':') {
                current = Some(l.trim_end_matches(':').to_string());
            } else if let (Some(name), Some(v)) = (&current, l.trim().strip_prefix("Candidate: "))
                && v != "(none)"
            {
                result.push((name.clone(), v.to_string()));
            }
        }
        Ok(result)
    }

    /// Downloads the given packages into `<dir>/debs` (skipping ones already
    /// there, deleting stale versions) and returns the `.deb` paths.
    pub(crate) fn download(&self, packages: &[(String, String)]) -> Result<Vec<PathBuf>> {
        self.download_into(packages, &self.dir.join("debs"))
    }

    /// [`Apt::download`] into `debs_dir` (created when missing): for configurations several
    /// installs share ([`crate::arm64`]), each keeping its own packages.
    pub(crate) fn download_into(&self, packages: &[(String, String)], debs_dir: &Path) -> Result<Vec<PathBuf>> {
        fs::create_dir_all(debs_dir).with_context(|| format!("could not create {}", debs_dir.display()))?;
        let find = |name: &str, version: &str| -> Option<PathBuf> {
            let prefix = format!("{name}_{}_", version.replace(':', "%3a"));
            fs::read_dir(debs_dir).ok()?.flatten().map(|e| e.path()).find(|p| {
                p.file_name().is_some_and(|f| {
                    let f = f.to_string_lossy();
                    f.starts_with(&prefix) && f.ends_with(".deb")
                })
            })
        };
        let missing: Vec<String> =
            packages.iter().filter(|(n, v)| find(n, v).is_none()).map(|(n, v)| format!("{n}={v}")).collect();
        if !missing.is_empty() {
            crate::note(format!(
                "downloading {} packages (of {}) into {}",
                missing.len(),
                packages.len(),
                debs_dir.display()
            ));
            let mut args = vec!["download"];
            args.extend(missing.iter().map(String::as_str));
            self.run(&args, debs_dir, Duration::from_secs(1800)).context("downloading the packages failed")?;
        }
        let mut debs = Vec::new();
        for (n, v) in packages {
            debs.push(find(n, v).with_context(|| format!("{n}_{v} was not downloaded"))?);
        }
        // Delete stale versions left from older installs.
        if let Ok(entries) = fs::read_dir(debs_dir) {
            for e in entries.flatten() {
                let p = e.path();
                if p.extension().is_some_and(|x| x == "deb") && !debs.contains(&p) {
                    let _ = fs::remove_file(p);
                }
            }
        }
        Ok(debs)
    }
}

/// The Debian mirror the machine's own apt uses (same host, so proxies and firewall
/// rules apply), or `$STRATA_DEBIAN_MIRROR`, defaulting to `http://deb.debian.org/debian`.
fn debian_mirror() -> String {
    if let Ok(m) = std::env::var("STRATA_DEBIAN_MIRROR")
        && !m.is_empty()
    {
        return m;
    }
    let mut entries = Vec::new();
    if let Ok(text) = fs::read_to_string("/etc/apt/sources.list") {
        entries.extend(parse_one_line_sources(&text));
    }
    if let Ok(dir) = fs::read_dir("/etc/apt/sources.list.d") {
        let mut files: Vec<PathBuf> = dir.flatten().map(|e| e.path()).collect();
        files.sort();
        for f in files {
            let Ok(text) = fs::read_to_string(&f) else {
                continue;
            };
            match f.extension().and_then(|e| e.to_str()) {
                Some("list") => entries.extend(parse_one_line_sources(&text)),
                Some("sources") => entries.extend(parse_deb822_sources(&text)),
                _ => {}
            }
        }
    }
    pick_mirror(&entries).unwrap_or_else(|| "http://deb.debian.org/debian".to_string())
}

/// Chooses the main Debian archive among `(uri, suites)` entries: a URI ending in
/// `/debian` with a non-security suite. Snapshot mirrors are frozen in time and would
/// not carry today's unstable, so those map to `deb.debian.org`.
fn pick_mirror(entries: &[(String, Vec<String>)]) -> Option<String> {
    entries.iter().find_map(|(uri, suites)| {
        let uri = uri.trim_end_matches('/');
        let is_main = uri.ends_with("/debian") && suites.iter().any(|s| !s.contains("security"));
        if !is_main {
            return None;
        }
        if uri.contains("snapshot.debian.org") {
            let scheme = uri.split("://").next().unwrap_or("http");
            return Some(format!("{scheme}://deb.debian.org/debian"));
        }
        Some(uri.to_string())
    })
}

fn parse_one_line_sources(text: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        let Some(rest) = line.strip_prefix("deb ").or_else(|| line.strip_prefix("deb\t")) else {
            continue;
        };
        let mut rest = rest.trim_start();
        if rest.starts_with('[') {
            let Some(end) = rest.find(']') else { continue };
            rest = rest[end + 1..].trim_start();
        }
        let mut words = rest.split_whitespace();
        if let (Some(uri), Some(suite)) = (words.next(), words.next()) {
            out.push((uri.to_string(), vec![suite.to_string()]));
        }
    }
    out
}

fn parse_deb822_sources(text: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    for stanza in text.split("\n\n") {
        let mut types = String::new();
        let mut uris = String::new();
        let mut suites = String::new();
        let mut enabled = true;
        for line in stanza.lines() {
            if line.trim_start().starts_with('#') {
                continue;
            }
            let Some((k, v)) = line.split_once(':') else {
                continue;
            };
            let v = v.trim().to_string();
            match k.trim().to_ascii_lowercase().as_str() {
                "types" => types = v,
                "uris" => uris = v,
                "suites" => suites = v,
                "enabled" => enabled = v != "no",
                _ => {}
            }
        }
        if !enabled || !types.split_whitespace().any(|t| t == "deb") {
            continue;
        }
        let suites: Vec<String> = suites.split_whitespace().map(String::from).collect();
        for uri in uris.split_whitespace() {
            out.push((uri.to_string(), suites.clone()));
        }
    }
    out
}

/// The library directories of an unpacked x86_64 package closure under `root` that exist,
/// joined for `LD_LIBRARY_PATH`: what a wrapper needs to run a compiler unpacked there.
pub fn unpacked_library_path(root: &Path) -> String {
    ["usr/lib/x86_64-linux-gnu", "lib/x86_64-linux-gnu"]
        .iter()
        .map(|d| root.join(d))
        .filter(|d| d.is_dir())
        .map(|d| d.display().to_string())
        .collect::<Vec<_>>()
        .join(":")
}

/// Writes `text` to `path` as an executable script (mode 755).
pub fn write_executable(path: &Path, text: &str) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    fs::write(path, text).with_context(|| format!("could not write {}", path.display()))?;
    fs::set_permissions(path, fs::Permissions::from_mode(0o755))
        .with_context(|| format!("could not make {} executable", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        assert_eq!(parse_version("4.6.3.stable.debian4.6.3+ds-3"), Some((4, 6, 3)));
        assert_eq!(parse_version("4.6.stable.official.abc"), Some((4, 6, 0)));
        assert!(version_ok("4.6.1.stable"));
        assert!(version_ok("5.0.stable"));
        assert!(!version_ok("4.5.1.stable"));
        assert!(!version_ok("Godot Engine"));
    }

    #[test]
    fn mirrors() {
        let deb822 = "Types: deb\n# http://snapshot.debian.org/archive/debian/20250520T000000Z\n\
            URIs: http://deb.debian.org/debian\nSuites: bookworm bookworm-updates\nComponents: main\n\n\
            Types: deb\nURIs: http://deb.debian.org/debian-security\nSuites: bookworm-security\n";
        let e = parse_deb822_sources(deb822);
        assert_eq!(pick_mirror(&e).unwrap(), "http://deb.debian.org/debian");

        let list = "deb [arch=amd64 signed-by=/x] http://mirror.example/debian/ bookworm main\n";
        assert_eq!(pick_mirror(&parse_one_line_sources(list)).unwrap(), "http://mirror.example/debian");

        let snap = "deb http://snapshot.debian.org/archive/debian/20250520T000000Z bookworm main\n";
        // Not ending in /debian: not recognised as the main archive.
        assert_eq!(pick_mirror(&parse_one_line_sources(snap)), None);
        let snap2 = "deb https://snapshot.debian.org/debian bookworm main\n";
        assert_eq!(pick_mirror(&parse_one_line_sources(snap2)).unwrap(), "https://deb.debian.org/debian");
    }

    #[test]
    fn an_install_without_a_package_of_today_is_made_again() {
        let every = format!(
            "version=4.6.3\npackages={}\n",
            PACKAGES.iter().map(|p| format!("{p}=1.0")).collect::<Vec<_>>().join(" ")
        );
        assert!(marker_has_every_package(&every));
        let without_vulkan = every.replace("mesa-vulkan-drivers=1.0", "");
        assert!(!marker_has_every_package(&without_vulkan));
        assert!(!marker_has_every_package("version=4.6.3\n"));
    }

    #[test]
    fn lavapipes_manifest_names_the_unpacked_driver() {
        let dir = std::env::temp_dir().join(format!("strata-lvp-{}", std::process::id()));
        let root = dir.join("root");
        fs::create_dir_all(root.join("usr/share/vulkan/icd.d")).unwrap();
        fs::create_dir_all(root.join("usr/lib/x86_64-linux-gnu")).unwrap();
        assert_eq!(lavapipe_manifest(&root).unwrap(), None, "no manifest, no driver");
        fs::write(root.join(LAVAPIPE_ICD), r#"{"ICD": {"api_version": "1.4.354", "library_path": "libvulkan_lvp.so"}, "file_format_version": "1.0.1"}"#).unwrap();
        fs::write(root.join("usr/lib/x86_64-linux-gnu/libvulkan_lvp.so"), b"").unwrap();
        let out = lavapipe_manifest(&root).unwrap().unwrap();
        let written: serde_json::Value = serde_json::from_str(&fs::read_to_string(&out).unwrap()).unwrap();
        let lib = root.join("usr/lib/x86_64-linux-gnu/libvulkan_lvp.so");
        assert_eq!(written["ICD"]["library_path"], lib.display().to_string());
        assert_eq!(written["ICD"]["api_version"], "1.4.354");
        fs::write(root.join(LAVAPIPE_ICD), "not json").unwrap();
        assert!(lavapipe_manifest(&root).unwrap_err().to_string().contains("is not JSON"));
        fs::remove_dir_all(&dir).unwrap();
    }
}
