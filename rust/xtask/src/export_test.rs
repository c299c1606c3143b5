//! The export check of `cargo xtask test`: Strata in an exported game.
//!
//! [`run`] makes a small project in `<target>/xtask/export-test/project`: the game of
//! `tests/export/` (project, export preset, a scene whose script checks), the addon of
//! `godot_project/addons/strata` with the built library, and files it writes with the core: a
//! heightmap PNG kept as it is by the export (`importer="keep"`), a preset using it (`.ron`, and
//! `.tres`, which the export turns binary), a world save and a user profile with a preset. It
//! imports the project, exports it with `godot --headless --export-pack "Linux"` (a pack needs no
//! export template), and runs the pack from another folder, `godot --headless --main-pack`, with
//! the library next to the program that runs (where an exported game's loader looks: Godot
//! opens a `res://` library that is not on disk from the executable's folder) and `user://` in
//! the temporary folder. The caller reads the game's output as a suite's (`N passed, N failed`,
//! no forbidden messages); the heights it prints must be the ones the core computes from the
//! same preset and PNG on disk.
//!
//! May use: `strata_core` (presets, saves, profiles, the generator), `setup`, `extension`,
//! `godot_run`, `paths`.

use crate::error::{Context, Result};
use crate::godot_install::Godot;
use crate::godot_run::{self, Echo, RunOutput};
use crate::{extension, paths, setup};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use strata_core::WorldPreset;
use strata_core::base::coords::IVec3;
use strata_core::gen3d::pipeline::{Generator, GeneratorOptions};
use strata_core::noise::heightmap::Heightmap;
use strata_core::persist::profile::{ProfileStore, SettingValue};
use strata_core::persist::save::{SaveOptions, WorldSave, write_world_save};
use strata_core::preset::ron::preset_to_ron;
use strata_core::preset::tres::preset_to_tres_text;
use strata_core::stream::query::top_solid_y;

/// The export preset of `tests/export/export_presets.cfg`.
const EXPORT_PRESET: &str = "Linux";
/// The pack's file name.
const PACK: &str = "strata_export_test.pck";
/// Side of the heightmap, in pixels.
const MAP_SIDE: u32 = 64;
/// The columns whose heights the game prints (x from -120 to 120 by 20, at z = 8).
const HEIGHT_COLUMNS_Z: i32 = 8;
/// The line the game prints its heights on.
const HEIGHTS_LINE: &str = "export heights: ";

/// What running the exported game gave.
pub struct ExportRun {
    /// The game's output, to be read as a suite's.
    pub out: RunOutput,
    /// Problems found besides the suite's own (heights that differ from the core's).
    pub problems: Vec<String>,
    /// The log of the run.
    pub log: PathBuf,
}

/// Exports the test game, runs its pack and compares the heights it prints with the core's.
pub fn run() -> Result<ExportRun> {
    let godot = setup::prepare(extension::BuildProfile::Dev)?;
    let root = paths::target_dir()?.join("xtask/export-test");
    if root.exists() {
        fs::remove_dir_all(&root).with_context(|| format!("could not clear {}", root.display()))?;
    }
    let project = root.join("project");
    let game = root.join("game");
    fs::create_dir_all(&game)?;
    copy_tree(&paths::repo_root().join("tests/export"), &project)?;
    copy_tree(&paths::godot_project().join("addons/strata"), &project.join("addons/strata"))?;
    let preset = write_world_files(&project)?;
    let log_dir = paths::target_dir()?.join("xtask");

    crate::step("export check: importing and exporting the test game (godot --headless --export-pack)");
    let mut import = godot.command();
    import.args(["--headless", "--path"]).arg(&project).arg("--import");
    let out = godot_run::run_captured(import, Duration::from_secs(300), Echo::Quiet)?;
    fs::write(log_dir.join("export-import.log"), out.text())?;
    let pack = game.join(PACK);
    let mut export = godot.command();
    export.args(["--headless", "--path"]).arg(&project).args(["--export-pack", EXPORT_PRESET]).arg(&pack);
    let out = godot_run::run_captured(export, Duration::from_secs(300), Echo::Quiet)?;
    let export_log = log_dir.join("export-pack.log");
    fs::write(&export_log, out.text())?;
    if !pack.is_file() {
        bail!(
            "`godot --export-pack {EXPORT_PRESET}` wrote no {} ({}); log: {}",
            pack.display(),
            out.describe_exit(),
            export_log.display()
        );
    }

    crate::step(format!("export check: running the pack (godot --headless --main-pack {PACK})"));
    let mut cmd = command_beside_library(&godot, &game)?;
    cmd.current_dir(&game).env("XDG_DATA_HOME", root.join("user_data"));
    cmd.args(["--headless", "--main-pack"]).arg(&pack);
    let out = godot_run::run_captured(cmd, Duration::from_secs(300), Echo::Live)?;
    let log = log_dir.join("export-game.log");
    fs::write(&log, out.text()).with_context(|| format!("could not write {}", log.display()))?;
    let mut problems = Vec::new();
    match printed_heights(&out.lines) {
        None => problems.push(format!("no `{HEIGHTS_LINE}[...]` line in the game's output")),
        Some(printed) => {
            let expected = core_heights(&preset, &project.join("world/ramp.png"))?;
            if printed != expected {
                problems.push(format!(
                    "the exported game's heights {printed:?} differ from the core's {expected:?} for the same preset and heightmap"
                ));
            } else {
                crate::note(format!("heights from the pack's heightmap match the core's: {printed:?}"));
            }
        }
    }
    Ok(ExportRun { out, problems, log })
}

/// A command running Godot from `dir`, next to a copy of the library, as an exported game runs:
/// the program Godot reports as its executable (the private install's loader, or the binary) is
/// copied into `dir` and the library put beside it.
fn command_beside_library(godot: &Godot, dir: &Path) -> Result<std::process::Command> {
    let name = godot.program.file_name().context("the Godot program has no file name")?;
    let program = dir.join(name);
    link_or_copy(&godot.program, &program)?;
    link_or_copy(&extension::installed_lib(), &dir.join(extension::LIB_NAME))?;
    let mut cmd = std::process::Command::new(&program);
    cmd.args(&godot.pre_args);
    cmd.envs(godot.env.iter().map(|(k, v)| (k, v)));
    Ok(cmd)
}

/// Writes the game's data with the core: `world/ramp.png` (kept as it is by the export), the
/// preset using it as `world/preset.ron` and `world/preset.tres`, a save `world/world.strata`
/// and user `alice` with a preset under `profiles/`. Returns the preset.
fn write_world_files(project: &Path) -> Result<WorldPreset> {
    let world = project.join("world");
    fs::create_dir_all(&world)?;
    write_ramp(&world.join("ramp.png"))?;
    fs::write(world.join("ramp.png.import"), "[remap]\n\nimporter=\"keep\"\n")?;
    let mut preset = WorldPreset { seed: 5, ..WorldPreset::default() };
    let h = &mut preset.height;
    (h.perlin_weight, h.open_simplex_weight, h.ridged_weight, h.value_weight) = (0.0, 0.0, 0.0, 0.0);
    h.diamond_square_weight = 0.0;
    h.heightmap_weight = 1.0;
    h.heightmap_cell_size = 4.0;
    h.heightmap_path = "res://world/ramp.png".into();
    fs::write(world.join("preset.ron"), preset_to_ron(&preset))?;
    fs::write(world.join("preset.tres"), preset_to_tres_text(&preset))?;
    let mut save = WorldSave { preset: preset.clone(), ..WorldSave::default() };
    save.edits.set(IVec3::new(3, 90, 4), 1);
    save.state.insert("exported".into(), "yes".into());
    write_world_save(&world.join("world.strata"), &save, SaveOptions::default()).map_err(crate::error::Error::msg)?;
    let store = ProfileStore::new(project.join("profiles"));
    let mut profile = store.create_user("alice").map_err(crate::error::Error::msg)?;
    profile.settings.set("fov", SettingValue::Float(90.0)).map_err(crate::error::Error::msg)?;
    store.save("alice", &profile).map_err(crate::error::Error::msg)?;
    store.save_preset("alice", "ramp", &preset).map_err(crate::error::Error::msg)?;
    Ok(preset)
}

/// An 8-bit grayscale PNG rising from black in the west to white in the east, with a bright
/// bump, so the world's heights follow it.
fn write_ramp(path: &Path) -> Result<()> {
    let mut pixels = Vec::with_capacity((MAP_SIDE * MAP_SIDE) as usize);
    for y in 0..MAP_SIDE {
        for x in 0..MAP_SIDE {
            let bump = (x as f64 - 20.0).hypot(y as f64 - 40.0) < 6.0;
            pixels.push(if bump { 255 } else { (x * 255 / (MAP_SIDE - 1)) as u8 });
        }
    }
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, MAP_SIDE, MAP_SIDE);
    enc.set_color(png::ColorType::Grayscale);
    enc.set_depth(png::BitDepth::Eight);
    let mut writer = enc.write_header().map_err(crate::error::Error::msg)?;
    writer.write_image_data(&pixels).map_err(crate::error::Error::msg)?;
    writer.finish().map_err(crate::error::Error::msg)?;
    fs::write(path, out).with_context(|| format!("could not write {}", path.display()))?;
    Ok(())
}

/// The heights the game prints: `export heights: [h, ...]`.
fn printed_heights(lines: &[String]) -> Option<Vec<i32>> {
    let line = lines.iter().rev().find_map(|l| l.split_once(HEIGHTS_LINE).map(|(_, rest)| rest.trim()))?;
    let inner = line.strip_prefix('[')?.strip_suffix(']')?;
    inner.split(',').map(|v| v.trim().parse().ok()).collect()
}

/// The heights of the game's columns by the core, from `preset` with the heightmap read from
/// `png` on disk.
fn core_heights(preset: &WorldPreset, png: &Path) -> Result<Vec<i32>> {
    let generator = Generator::with_options(
        preset,
        GeneratorOptions::default().heightmap_loader(|_| Heightmap::load(png).map(Arc::new)),
    )
    .map_err(crate::error::Error::msg)?;
    Ok((-120..=120).step_by(20).map(|x| top_solid_y(&generator, None, x, HEIGHT_COLUMNS_Z)).collect())
}

/// Makes `to` a hard link to `from` (a program or library nothing writes to), or a copy where
/// a link cannot be made.
fn link_or_copy(from: &Path, to: &Path) -> Result<()> {
    if fs::hard_link(from, to).is_err() {
        fs::copy(from, to).with_context(|| format!("could not copy {} to {}", from.display(), to.display()))?;
    }
    Ok(())
}

/// Copies the files under `from` into `to` (made as needed), skipping Godot's `.godot` folder;
/// libraries (`.so`, large and never written) are linked instead.
fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    fs::create_dir_all(to).with_context(|| format!("could not make {}", to.display()))?;
    for entry in fs::read_dir(from).with_context(|| format!("could not read {}", from.display()))? {
        let entry = entry?;
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if entry.file_name() == ".godot" {
            continue;
        }
        if src.is_dir() {
            copy_tree(&src, &dst)?;
        } else if src.extension().is_some_and(|e| e == "so") {
            link_or_copy(&src, &dst)?;
        } else {
            fs::copy(&src, &dst).with_context(|| format!("could not copy {} to {}", src.display(), dst.display()))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heights_line() {
        let lines = vec!["x".to_string(), "export heights: [1, -2,30]".to_string()];
        assert_eq!(printed_heights(&lines), Some(vec![1, -2, 30]));
        assert_eq!(printed_heights(&["export heights: [1, a]".to_string()]), None);
        assert_eq!(printed_heights(&[]), None);
    }
}
