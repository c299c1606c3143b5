//! `cargo xtask package [--windows | --arm64 | --all | --prebuilt DIR] [--check-fresh]`: the drop-in addon. Builds the
//! extension with the `dist` profile (release, stripped, thin LTO; see the workspace
//! `Cargo.toml`), checks that each library exports gdext's entry symbol, and writes
//! `<target>/package/strata-<version>.zip` holding exactly `addons/strata/`: every file of
//! `godot_project/addons/strata/` except its `bin/` (the debug library the tests use), with the
//! release libraries in `bin/` instead. `--prebuilt DIR` packs libraries built elsewhere (the
//! release workflow's runners) instead of building: every file in DIR must be a library
//! `strata.gdextension` lists and must export the entry symbol.
//!
//! The zip is reproducible: entries in sorted order, every timestamp 1980-01-01 00:00, fixed
//! permissions (0644, 0755 for the libraries), so the same files give the same bytes.
//!
//! The fresh-project check (`--check-fresh`, and in `cargo xtask test` with the debug library,
//! [`build_test_package`]): an empty Godot project in
//! a temporary folder with only a minimal `project.godot`, the zip unpacked into it, one
//! `--headless --import`, then a scene that instances the addon's example scene, streams until
//! the area is ready and prints the world's stats; [`check_fresh_project`] runs it. The project
//! also holds game scripts whose `class_name`s are the names a game is likely to own (every name
//! Strata 0.2 registered without its prefix, [`GAME_CLASS_NAMES`]): they must parse and run
//! beside the addon.
//!
//! May use: [`crate::paths`], [`crate::godot_install`], [`crate::godot_run`], [`crate::mingw`],
//! [`crate::arm64`], [`crate::rustup`],
//! [`crate::extension`] (the debug build),
//! the `zip` and `object` crates.

use crate::error::{Context, Error, Result};
use crate::godot_install::{self, Godot};
use crate::godot_run::{self, Echo, RunOutput};
use crate::{arm64, mingw, paths, rustup};
use std::fs;
use std::io::{Seek, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The cargo profile of the shipped libraries (`[profile.dist]` in the workspace `Cargo.toml`).
pub const PROFILE: &str = "dist";

/// The symbol Godot looks up in every library (`entry_symbol` of `strata.gdextension`).
pub const ENTRY_SYMBOL: &str = "gdext_rust_init";

/// The folder the zip holds, as Godot projects name it.
const ADDON_PREFIX: &str = "addons/strata";

/// The line the fresh project's scene prints before its stats (`key=value` pairs).
const STATS_PREFIX: &str = "strata-fresh-project stats:";

const USAGE: &str = "usage: cargo xtask package [--windows | --arm64 | --all | --prebuilt DIR] [--check-fresh]
  (default)       Linux x86_64 only, built here
  --windows       also Windows x86_64, cross-built with MinGW-w64 (installed into .tools/mingw)
  --arm64         also Linux arm64, cross-built with Debian's aarch64 gcc (installed into .tools/arm64)
  --all           every platform this machine can build (Linux x86_64 and arm64, Windows x86_64)
  --prebuilt DIR  pack the libraries in DIR (named as strata.gdextension lists them), build nothing
  --check-fresh   then unpack the zip into a new empty Godot project and stream a world in it";

/// A platform the addon ships a library for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Platform {
    /// `x86_64-unknown-linux-gnu`, built natively.
    LinuxX86_64,
    /// `x86_64-pc-windows-gnu`, cross-built with MinGW-w64.
    WindowsX86_64,
    /// `aarch64-unknown-linux-gnu`, cross-built with Debian's aarch64 gcc ([`crate::arm64`]).
    LinuxArm64,
}

impl Platform {
    /// The library's name under `addons/strata/bin/` (as `strata.gdextension` lists it).
    pub fn shipped_name(self) -> &'static str {
        match self {
            Platform::LinuxX86_64 => "libstrata_godot.so",
            Platform::WindowsX86_64 => "strata_godot.windows.x86_64.dll",
            Platform::LinuxArm64 => "libstrata_godot.linux.arm64.so",
        }
    }

    /// The file cargo writes.
    fn built_name(self) -> &'static str {
        match self {
            Platform::LinuxX86_64 | Platform::LinuxArm64 => "libstrata_godot.so",
            Platform::WindowsX86_64 => "strata_godot.dll",
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Platform::LinuxX86_64 => "Linux x86_64",
            Platform::WindowsX86_64 => "Windows x86_64 (x86_64-pc-windows-gnu, MinGW-w64)",
            Platform::LinuxArm64 => "Linux arm64 (aarch64-unknown-linux-gnu, Debian's cross gcc)",
        }
    }
}

/// A library the package ships.
#[derive(Debug)]
pub struct BuiltLibrary {
    /// Its name under `bin/`.
    pub name: String,
    pub path: PathBuf,
    pub bytes: u64,
    /// Seconds the cargo build took (the whole command, also when nothing was rebuilt); `None`
    /// for a prebuilt library.
    pub build_s: Option<f64>,
}

/// What [`build_package`] wrote.
#[derive(Debug)]
pub struct Package {
    pub zip: PathBuf,
    pub libraries: Vec<BuiltLibrary>,
}

/// `cargo xtask package`.
pub fn run(args: &[String]) -> Result<()> {
    let mut platforms = vec![Platform::LinuxX86_64];
    let mut check_fresh = false;
    let mut prebuilt: Option<PathBuf> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--windows" => platforms.push(Platform::WindowsX86_64),
            "--arm64" => platforms.push(Platform::LinuxArm64),
            "--all" => platforms.extend([Platform::WindowsX86_64, Platform::LinuxArm64]),
            "--check-fresh" => check_fresh = true,
            "--prebuilt" => {
                let dir = it.next().with_context(|| format!("--prebuilt needs a folder\n{USAGE}"))?;
                prebuilt = Some(PathBuf::from(dir));
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => bail!("unknown argument `{other}`\n{USAGE}"),
        }
    }
    let mut unique: Vec<Platform> = Vec::new();
    for p in platforms {
        if !unique.contains(&p) {
            unique.push(p);
        }
    }
    let platforms = unique;
    let package = match prebuilt {
        Some(dir) => {
            let libraries = prebuilt_libraries(&dir)?;
            write_package(libraries)?
        }
        None => build_package(&platforms)?,
    };
    println!("{}", package.zip.display());
    if check_fresh {
        let godot = godot_install::ensure_godot()?;
        let report = check_fresh_project(&godot, &package.zip)?;
        if !report.problems.is_empty() {
            bail!("the fresh-project check failed:\n  {}", report.problems.join("\n  "));
        }
        crate::note(format!("fresh project: {} in {:.0} s", report.stats_line, report.elapsed.as_secs_f64()));
    }
    Ok(())
}

/// Builds the libraries for `platforms` and writes the zip; see the module docs.
pub fn build_package(platforms: &[Platform]) -> Result<Package> {
    let mut libraries = Vec::new();
    for &platform in platforms {
        libraries.push(build_library(platform)?);
    }
    write_package(libraries)
}

/// The package as [`build_package`] writes it for Linux x86_64, but with the tests' debug
/// library (`cargo build -p strata-godot`, which `cargo xtask test` has built already) in `bin/`:
/// what `cargo xtask test`'s fresh-project check unpacks. It checks the package's layout and a
/// fresh project's registration, classes and streaming, none of which depend on the library's
/// optimisation; the `dist` build itself is `cargo xtask package`'s (its entry-symbol check), and
/// leaving it out of the test saves a whole LTO build of the crate graph.
pub fn build_test_package() -> Result<Package> {
    let built = crate::extension::build(crate::extension::BuildProfile::Dev)?;
    let data = fs::read(&built).with_context(|| format!("could not read {}", built.display()))?;
    check_entry_symbol(&data).with_context(|| format!("{} is not a loadable GDExtension", built.display()))?;
    let library = BuiltLibrary {
        name: Platform::LinuxX86_64.shipped_name().to_string(),
        path: built,
        bytes: data.len() as u64,
        build_s: None,
    };
    write_package(vec![library])
}

/// The libraries in `dir` (`--prebuilt`): each must be one `strata.gdextension` lists and must
/// export [`ENTRY_SYMBOL`].
fn prebuilt_libraries(dir: &Path) -> Result<Vec<BuiltLibrary>> {
    let gdextension = paths::godot_project().join(ADDON_PREFIX).join("strata.gdextension");
    let text = fs::read_to_string(&gdextension).with_context(|| format!("could not read {}", gdextension.display()))?;
    let listed = listed_libraries(&text);
    let mut out = Vec::new();
    let entries = fs::read_dir(dir).with_context(|| format!("could not list {}", dir.display()))?;
    for entry in entries {
        let path = entry.with_context(|| format!("could not list {}", dir.display()))?.path();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if !listed.contains(&name) {
            bail!(
                "{}: `{name}` is not a library strata.gdextension lists (it lists {})",
                dir.display(),
                listed.join(", ")
            );
        }
        let data = fs::read(&path).with_context(|| format!("could not read {}", path.display()))?;
        check_entry_symbol(&data).with_context(|| format!("{} is not a loadable GDExtension", path.display()))?;
        out.push(BuiltLibrary { name, path, bytes: data.len() as u64, build_s: None });
    }
    if out.is_empty() {
        bail!("{} holds no library", dir.display());
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// The file names under `res://addons/strata/bin/` that a `.gdextension`'s `[libraries]` lists.
fn listed_libraries(gdextension: &str) -> Vec<String> {
    let mut names: Vec<String> = gdextension
        .lines()
        .filter_map(|l| l.split_once('=').map(|(_, v)| v.trim().trim_matches('"')))
        .filter_map(|v| v.strip_prefix("res://addons/strata/bin/"))
        .map(String::from)
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Writes the zip of the addon folder with `libraries` in `bin/`.
fn write_package(libraries: Vec<BuiltLibrary>) -> Result<Package> {
    let version = workspace_version(&paths::repo_root().join("Cargo.toml"))?;
    let addon = paths::godot_project().join(ADDON_PREFIX);
    let mut files = addon_files(&addon)?;
    for lib in &libraries {
        files.push(ZipSource { name: format!("bin/{}", lib.name), path: lib.path.clone(), executable: true });
    }
    files.sort_by(|a, b| a.name.cmp(&b.name));
    let out_dir = paths::target_dir()?.join("package");
    fs::create_dir_all(&out_dir).with_context(|| format!("could not create {}", out_dir.display()))?;
    let zip = out_dir.join(format!("strata-{version}.zip"));
    let tmp = out_dir.join(format!(".strata-{version}.zip.{}.tmp", std::process::id()));
    let file = fs::File::create(&tmp).with_context(|| format!("could not create {}", tmp.display()))?;
    let entries =
        write_zip(file, ADDON_PREFIX, &files).with_context(|| format!("could not write {}", tmp.display()))?;
    fs::rename(&tmp, &zip).with_context(|| format!("could not move {} into place", zip.display()))?;
    let bytes = fs::metadata(&zip).map(|m| m.len()).unwrap_or(0);
    crate::step(format!("wrote {} ({} entries, {})", zip.display(), entries.len(), human_bytes(bytes)));
    for lib in &libraries {
        let built = lib.build_s.map_or("prebuilt".to_string(), |s| format!("built in {s:.0} s"));
        crate::note(format!("bin/{}: {} ({built})", lib.name, human_bytes(lib.bytes)));
    }
    Ok(Package { zip, libraries })
}

/// `version = "..."` of the `[workspace.package]` table.
pub fn workspace_version(manifest: &Path) -> Result<String> {
    let text = fs::read_to_string(manifest).with_context(|| format!("could not read {}", manifest.display()))?;
    parse_workspace_version(&text).with_context(|| {
        format!("{} has no `version = \"X.Y.Z\"` in its [workspace.package] table", manifest.display())
    })
}

fn parse_workspace_version(text: &str) -> Option<String> {
    let mut in_table = false;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_table = line == "[workspace.package]";
        } else if in_table && let Some(rest) = line.strip_prefix("version") {
            let value = rest.trim_start().strip_prefix('=')?.trim();
            let value = value.strip_prefix('"')?.split('"').next()?;
            let semver = value.split('.').count() == 3 && value.split('.').all(|p| p.parse::<u64>().is_ok());
            return semver.then(|| value.to_string());
        }
    }
    None
}

/// `cargo build -p strata-godot --profile dist [--target ...]`, then the entry-symbol check.
pub fn build_library(platform: Platform) -> Result<BuiltLibrary> {
    let mut cmd = paths::cargo();
    cmd.args(["build", "-p", "strata-godot", "--profile", PROFILE]);
    let dir = match platform {
        Platform::LinuxX86_64 => paths::target_dir()?.join(PROFILE),
        Platform::WindowsX86_64 => {
            rustup::ensure_rust_target(mingw::WINDOWS_TARGET)?;
            let linker = mingw::ensure_linker()?;
            cmd.args(["--target", mingw::WINDOWS_TARGET]);
            cmd.env("CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER", &linker);
            if let Some(tools) = mingw::tool_dir() {
                let path = std::env::var_os("PATH").unwrap_or_default();
                let joined = std::env::join_paths(std::iter::once(tools).chain(std::env::split_paths(&path)))
                    .context("the MinGW-w64 folder cannot go on PATH")?;
                cmd.env("PATH", joined);
            }
            paths::target_dir()?.join(mingw::WINDOWS_TARGET).join(PROFILE)
        }
        Platform::LinuxArm64 => {
            rustup::ensure_rust_target(arm64::ARM64_TARGET)?;
            let linker = arm64::ensure_linker()?;
            cmd.args(["--target", arm64::ARM64_TARGET]);
            cmd.env(arm64::LINKER_ENV, &linker);
            paths::target_dir()?.join(arm64::ARM64_TARGET).join(PROFILE)
        }
    };
    let shown = godot_run::display_command(&cmd);
    crate::step(format!("building the {} library: {shown}", platform.describe()));
    let started = Instant::now();
    let status = godot_run::run_inherit(cmd)?;
    if !status.success() {
        let mut e = Error::msg(format!("`{shown}` failed ({})", godot_run::describe_status(status)));
        if platform == Platform::WindowsX86_64 {
            e = e.hint(format!("the Rust standard library for it: `rustup target add {}`", mingw::WINDOWS_TARGET));
        }
        return Err(e);
    }
    let build_s = started.elapsed().as_secs_f64();
    let path = dir.join(platform.built_name());
    let data = fs::read(&path).with_context(|| format!("the build succeeded but {} is unreadable", path.display()))?;
    check_entry_symbol(&data).with_context(|| format!("{} is not a loadable GDExtension", path.display()))?;
    Ok(BuiltLibrary {
        name: platform.shipped_name().to_string(),
        path,
        bytes: data.len() as u64,
        build_s: Some(build_s),
    })
}

/// Fails unless the library (ELF, PE, Mach-O or a universal Mach-O, every architecture of it)
/// exports [`ENTRY_SYMBOL`].
pub fn check_entry_symbol(data: &[u8]) -> Result<()> {
    use object::read::macho::{FatArch, MachOFatFile32, MachOFatFile64};
    match object::FileKind::parse(data).context("not an object file")? {
        object::FileKind::MachOFat32 => {
            let fat = MachOFatFile32::parse(data).context("not a universal Mach-O file")?;
            for arch in fat.arches() {
                check_single(arch.data(data).context("a universal Mach-O slice is out of bounds")?)?;
            }
            Ok(())
        }
        object::FileKind::MachOFat64 => {
            let fat = MachOFatFile64::parse(data).context("not a universal Mach-O file")?;
            for arch in fat.arches() {
                check_single(arch.data(data).context("a universal Mach-O slice is out of bounds")?)?;
            }
            Ok(())
        }
        _ => check_single(data),
    }
}

fn check_single(data: &[u8]) -> Result<()> {
    use object::{Object, ObjectSymbol};
    let file = object::File::parse(data).context("not an object file object can read")?;
    let entry = ENTRY_SYMBOL.as_bytes();
    // Mach-O names C symbols with a leading underscore.
    let is_entry = |name: &[u8]| name == entry || name.strip_prefix(b"_") == Some(entry);
    let mut found = false;
    for export in file.exports().context("could not read the export table")? {
        found |= export.context("could not read the export table")?.name().into_name().is_some_and(is_entry);
    }
    // ELF: the dynamic symbol table is what the loader reads.
    found |= file.dynamic_symbols().any(|s| s.is_definition() && s.name_bytes().is_ok_and(is_entry));
    if !found {
        bail!("it does not export `{ENTRY_SYMBOL}` (the entry_symbol of strata.gdextension)");
    }
    Ok(())
}

/// A file to store in the zip, under `<prefix>/<name>`.
#[derive(Clone, Debug)]
pub struct ZipSource {
    /// Path inside the addon, `/`-separated.
    pub name: String,
    pub path: PathBuf,
    /// Stored with mode 0755 instead of 0644.
    pub executable: bool,
}

/// Every file of the addon folder except `bin/` (the libraries come from the build), hidden
/// files and `*.tmp`.
fn addon_files(addon: &Path) -> Result<Vec<ZipSource>> {
    let mut out = Vec::new();
    collect(addon, addon, &mut out)?;
    if !out.iter().any(|f| f.name == "strata.gdextension") {
        bail!("{} has no strata.gdextension", addon.display());
    }
    Ok(out)
}

fn collect(root: &Path, dir: &Path, out: &mut Vec<ZipSource>) -> Result<()> {
    let entries = fs::read_dir(dir).with_context(|| format!("could not list {}", dir.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("could not list {}", dir.display()))?;
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || name.ends_with(".tmp") || (dir == root && name == "bin") {
            continue;
        }
        let meta = fs::metadata(&path).with_context(|| format!("could not read {}", path.display()))?;
        if meta.is_dir() {
            collect(root, &path, out)?;
        } else {
            let rel = path.strip_prefix(root).unwrap_or(&path);
            let name = rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
            out.push(ZipSource { name, path, executable: false });
        }
    }
    Ok(())
}

/// Writes `files` (sorted by name) under `prefix/` with their folders, fixed timestamps and
/// permissions; returns the entry names in order.
pub fn write_zip<W: Write + Seek>(out: W, prefix: &str, files: &[ZipSource]) -> Result<Vec<String>> {
    use zip::write::SimpleFileOptions;
    let base = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .last_modified_time(zip::DateTime::default());
    let mut writer = zip::ZipWriter::new(out);
    let mut entries = Vec::new();
    let mut dirs_written: Vec<String> = Vec::new();
    for f in files {
        // Every folder above the file, once, before it.
        let full = format!("{prefix}/{}", f.name);
        let mut dir = String::new();
        for part in full.split('/').collect::<Vec<_>>().split_last().map_or(&[][..], |(_, d)| d) {
            dir.push_str(part);
            dir.push('/');
            if !dirs_written.contains(&dir) {
                writer.add_directory(dir.as_str(), base.unix_permissions(0o755))?;
                entries.push(dir.clone());
                dirs_written.push(dir.clone());
            }
        }
        let data = fs::read(&f.path).with_context(|| format!("could not read {}", f.path.display()))?;
        writer.start_file(full.as_str(), base.unix_permissions(if f.executable { 0o755 } else { 0o644 }))?;
        writer.write_all(&data)?;
        entries.push(full);
    }
    writer.finish()?;
    Ok(entries)
}

/// What the fresh-project check found.
#[derive(Debug)]
pub struct FreshReport {
    /// The stats line the scene printed (`key=value` pairs), or "" when none.
    pub stats_line: String,
    /// `loaded_chunks` from that line.
    pub loaded_chunks: Option<u64>,
    /// Reasons the check fails (empty = passed).
    pub problems: Vec<String>,
    /// The scene run's output (the caller checks it for forbidden messages).
    pub output: RunOutput,
    /// The run's log file.
    pub log: PathBuf,
    /// Import and run together.
    pub elapsed: Duration,
}

/// The minimal `project.godot` of the fresh project: a name and the engine version, nothing else
/// (no input actions, no autoloads, no settings the demo has).
const FRESH_PROJECT_GODOT: &str = "config_version=5\n\n[application]\n\nconfig/name=\"Strata fresh project\"\n\
config/features=PackedStringArray(\"4.6\")\n";

/// The fresh project's check scene: checks the addon's editor plugin (`plugin.cfg`, its script)
/// and loads its preview dock, instances the addon's example scene, waits for its world's area
/// to be ready (at most two minutes), prints the stats and quits with 0, or 1 on a failure.
const FRESH_SCRIPT: &str = r#"extends Node
## Instances the Strata addon's example scene in a project that has nothing else, waits for the
## world's area to be ready and prints its stats (read by `cargo xtask test`).

const EXAMPLE := "res://addons/strata/examples/example_world.tscn"
const PLUGIN := "res://addons/strata/plugin.cfg"
const DOCK := "res://addons/strata/editor/preview_dock.tscn"
const LIMIT_MS := 120000

var _world: Node
var _started_ms := 0


func _ready() -> void:
__GAME_CLASSES__	if not ClassDB.class_exists("StrataChunkWorld"):
		_fail("the StrataChunkWorld class is not registered: the extension did not load")
		return
	var plugin := ConfigFile.new()
	if plugin.load(PLUGIN) != OK or str(plugin.get_value("plugin", "script", "")) == "":
		_fail("the addon has no editor plugin (%s)" % PLUGIN)
		return
	var plugin_script := PLUGIN.get_base_dir().path_join(str(plugin.get_value("plugin", "script")))
	if not FileAccess.file_exists(plugin_script):
		_fail("the editor plugin's script %s is missing" % plugin_script)
		return
	var dock := load(DOCK) as PackedScene
	var dock_node := dock.instantiate() if dock != null else null
	if dock_node == null:
		_fail("could not load the preview dock %s" % DOCK)
		return
	dock_node.free()
	var scene := load(EXAMPLE) as PackedScene
	if scene == null:
		_fail("could not load %s" % EXAMPLE)
		return
	var example := scene.instantiate()
	add_child(example)
	for child in example.find_children("*", "StrataChunkWorld", true, false):
		_world = child
	if _world == null:
		_fail("%s has no StrataChunkWorld" % EXAMPLE)
		return
	_started_ms = Time.get_ticks_msec()


func _process(_delta: float) -> void:
	if _world == null:
		return
	if bool(_world.call("is_area_ready")):
		var stats: Dictionary = _world.call("get_stats")
		var pairs := PackedStringArray()
		for key in stats:
			pairs.append("%s=%s" % [key, stats[key]])
		print("__PREFIX__ ", " ".join(pairs))
		_world = null
		get_tree().quit(0)
	elif Time.get_ticks_msec() - _started_ms > LIMIT_MS:
		_fail("the area was not ready after %d ms (progress %s)" % [LIMIT_MS, _world.call("get_progress")])


func _fail(message: String) -> void:
	push_error("strata-fresh-project: " + message)
	_world = null
	get_tree().quit(1)
"#;

/// Class names a game's own scripts declare in the fresh project (Strata 0.2's unprefixed
/// names): with the addon installed they must still parse and run as the game's classes.
pub const GAME_CLASS_NAMES: &[&str] = &[
    "Biome",
    "BiomeTable",
    "BlockLibrary",
    "BlockType",
    "CellularAutomaton2D",
    "ChunkWorld",
    "ChunkWorld2D",
    "SpawnRule",
    "Structure",
    "StructureRule",
    "UserProfiles",
    "WorldPreset",
    "WorldPreview",
    "WorldSync",
];

/// The game script that declares `class_name NAME` in the fresh project.
fn game_class_script(name: &str) -> String {
    format!(
        "class_name {name}\nextends RefCounted\n## A game's own `{name}`: the addon must not take this name.\n\n\n\
         func owned_by() -> String:\n\treturn \"game:{name}\"\n"
    )
}

/// The fresh check's GDScript that uses every game class by its global name (a name the addon
/// also registered would make this fail to parse): `var owners := [Biome.new().owned_by(), …]`.
fn game_class_check() -> String {
    let uses: Vec<String> = GAME_CLASS_NAMES.iter().map(|n| format!("{n}.new().owned_by()")).collect();
    let expected: Vec<String> = GAME_CLASS_NAMES.iter().map(|n| format!("\"game:{n}\"")).collect();
    format!(
        "\tvar owners: Array = [{}]\n\tif owners != [{}]:\n\t\t_fail(\"the game's own classes did not run as the game's: %s\" % [owners])\n\t\treturn\n",
        uses.join(", "),
        expected.join(", ")
    )
}

const FRESH_SCENE: &str = "[gd_scene load_steps=2 format=3]\n\n\
[ext_resource type=\"Script\" path=\"res://fresh_check.gd\" id=\"1\"]\n\n\
[node name=\"FreshCheck\" type=\"Node\"]\nscript = ExtResource(\"1\")\n";

/// Unpacks `zip` into a new empty project (in `<target>/tmp/fresh-project`), imports it once and
/// runs the check scene; see the module docs.
pub fn check_fresh_project(godot: &Godot, zip: &Path) -> Result<FreshReport> {
    let started = Instant::now();
    let project = paths::target_dir()?.join("tmp/fresh-project");
    if project.exists() {
        fs::remove_dir_all(&project).with_context(|| format!("could not remove {}", project.display()))?;
    }
    fs::create_dir_all(&project).with_context(|| format!("could not create {}", project.display()))?;
    fs::write(project.join("project.godot"), FRESH_PROJECT_GODOT)?;
    let check = FRESH_SCRIPT.replace("__PREFIX__", STATS_PREFIX).replace("__GAME_CLASSES__", &game_class_check());
    fs::write(project.join("fresh_check.gd"), check)?;
    let game = project.join("game");
    fs::create_dir_all(&game).with_context(|| format!("could not create {}", game.display()))?;
    for name in GAME_CLASS_NAMES {
        let file = game.join(format!("{}.gd", name.to_lowercase()));
        fs::write(&file, game_class_script(name)).with_context(|| format!("could not write {}", file.display()))?;
    }
    fs::write(project.join("fresh_check.tscn"), FRESH_SCENE)?;
    let file = fs::File::open(zip).with_context(|| format!("could not open {}", zip.display()))?;
    zip::ZipArchive::new(file)
        .and_then(|mut a| a.extract(&project))
        .with_context(|| format!("could not unpack {} into {}", zip.display(), project.display()))?;

    let log_dir = paths::target_dir()?.join("xtask");
    fs::create_dir_all(&log_dir)?;
    crate::step(format!("fresh project: godot --headless --path {} --import", project.display()));
    let mut cmd = godot.command();
    cmd.args(["--headless", "--path"]).arg(&project).arg("--import");
    let import = godot_run::run_captured(cmd, Duration::from_secs(300), Echo::Quiet)?;
    fs::write(log_dir.join("fresh-project-import.log"), import.text())?;

    crate::step("fresh project: godot --headless res://fresh_check.tscn");
    let mut cmd = godot.command();
    cmd.args(["--headless", "--path"]).arg(&project).arg("res://fresh_check.tscn");
    let output = godot_run::run_captured(cmd, Duration::from_secs(300), Echo::Live)?;
    let log = log_dir.join("fresh-project.log");
    fs::write(&log, output.text()).with_context(|| format!("could not write {}", log.display()))?;

    let mut problems = Vec::new();
    // Godot 4.6 may abort at exit after a cold import (see crate::extension::import_project):
    // the import counts when it registered the extension.
    if !project.join(".godot/extension_list.cfg").is_file() {
        problems.push(format!(
            "the import did not register the extension (no .godot/extension_list.cfg; log {})",
            log_dir.join("fresh-project-import.log").display()
        ));
    }
    if !output.success() {
        problems.push(format!("the scene run {}", output.describe_exit()));
    }
    let stats_line =
        output.lines.iter().find_map(|l| l.trim().strip_prefix(STATS_PREFIX)).map(str::trim).unwrap_or("").to_string();
    let loaded_chunks = stat_value(&stats_line, "loaded_chunks");
    match loaded_chunks {
        None => problems.push("no stats line with loaded_chunks in the output".into()),
        Some(0) => problems.push("the world reported ready with 0 loaded chunks".into()),
        Some(_) => {}
    }
    if problems.is_empty() {
        let _ = fs::remove_dir_all(&project);
    }
    Ok(FreshReport { stats_line, loaded_chunks, problems, output, log, elapsed: started.elapsed() })
}

/// The integer value of `key=` in a line of `key=value` pairs.
fn stat_value(line: &str, key: &str) -> Option<u64> {
    line.split_whitespace().find_map(|pair| pair.strip_prefix(key)?.strip_prefix('=')?.parse().ok())
}

fn human_bytes(n: u64) -> String {
    if n >= 1 << 20 {
        format!("{:.2} MiB", n as f64 / (1u64 << 20) as f64)
    } else {
        format!("{:.1} KiB", n as f64 / 1024.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_repository_licenses_are_the_ones_the_addon_ships() {
        let root = paths::repo_root();
        let shipped = fs::read_to_string(root.join("godot_project/addons/strata/LICENSE")).unwrap();
        for (file, title) in [("LICENSE-MIT", "MIT License"), ("LICENSE-APACHE", "")] {
            let text = fs::read_to_string(root.join(file)).unwrap();
            let body = text.strip_prefix(title).unwrap_or(&text).trim();
            assert!(body.len() > 500, "{file} holds a license");
            assert!(shipped.contains(body), "{file} is the text in addons/strata/LICENSE");
        }
    }

    #[test]
    fn workspace_versions() {
        let toml = "[workspace]\nmembers = []\n\n[workspace.package]\nversion = \"0.2.0\"\nedition = \"2024\"\n";
        assert_eq!(parse_workspace_version(toml).as_deref(), Some("0.2.0"));
        assert_eq!(parse_workspace_version("[package]\nversion = \"1.0.0\"\n"), None);
        assert_eq!(parse_workspace_version("[workspace.package]\nversion = \"1.0\"\n"), None);
        assert!(workspace_version(&paths::repo_root().join("Cargo.toml")).is_ok());
    }

    #[test]
    fn stats_values() {
        assert_eq!(stat_value("loaded_chunks=42 pending_chunks=0", "loaded_chunks"), Some(42));
        assert_eq!(stat_value("far_loaded_chunks=3 loaded_chunks=7", "loaded_chunks"), Some(7));
        assert_eq!(stat_value("pending_chunks=0", "loaded_chunks"), None);
    }

    /// Two zips of the same files are the same bytes, whatever the files' timestamps; they hold
    /// the folders, then the files under the prefix, and unpack to the same contents.
    #[test]
    fn zips_are_reproducible() {
        let dir = std::env::temp_dir().join(format!("strata-zip-test-{}", std::process::id()));
        fs::create_dir_all(dir.join("sub")).unwrap();
        fs::write(dir.join("a.txt"), "alpha").unwrap();
        fs::write(dir.join("sub/b.bin"), [0u8, 1, 2, 3]).unwrap();
        let mut files = vec![
            ZipSource { name: "sub/b.bin".into(), path: dir.join("sub/b.bin"), executable: true },
            ZipSource { name: "a.txt".into(), path: dir.join("a.txt"), executable: false },
        ];
        files.sort_by(|a, b| a.name.cmp(&b.name));
        let first = {
            let mut buf = std::io::Cursor::new(Vec::new());
            let entries = write_zip(&mut buf, "addons/x", &files).unwrap();
            assert_eq!(entries, ["addons/", "addons/x/", "addons/x/a.txt", "addons/x/sub/", "addons/x/sub/b.bin"]);
            buf.into_inner()
        };
        std::thread::sleep(Duration::from_millis(20));
        fs::write(dir.join("a.txt"), "alpha").unwrap();
        let mut buf = std::io::Cursor::new(Vec::new());
        write_zip(&mut buf, "addons/x", &files).unwrap();
        assert_eq!(first, buf.into_inner());

        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(first)).unwrap();
        let out = dir.join("out");
        archive.extract(&out).unwrap();
        assert_eq!(fs::read_to_string(out.join("addons/x/a.txt")).unwrap(), "alpha");
        assert_eq!(fs::read(out.join("addons/x/sub/b.bin")).unwrap(), [0, 1, 2, 3]);
        let _ = fs::remove_dir_all(&dir);
    }

    /// Every library `cargo xtask package` builds is one that `strata.gdextension` lists, and it
    /// lists the four platforms.
    #[test]
    fn gdextension_lists_the_built_libraries() {
        let path = paths::godot_project().join(ADDON_PREFIX).join("strata.gdextension");
        let listed = listed_libraries(&fs::read_to_string(path).unwrap());
        for p in [Platform::LinuxX86_64, Platform::WindowsX86_64, Platform::LinuxArm64] {
            assert!(listed.iter().any(|n| n == p.shipped_name()), "{} not in {listed:?}", p.shipped_name());
        }
        assert_eq!(listed.len(), 4, "{listed:?}");
    }

    #[test]
    fn entry_symbol_of_a_library_without_it_is_refused() {
        // This test binary is an ELF file without gdext's entry symbol.
        let exe = std::env::current_exe().unwrap();
        let data = fs::read(exe).unwrap();
        assert!(check_entry_symbol(&data).is_err());
        assert!(check_entry_symbol(b"not an object file").is_err());
    }
}
