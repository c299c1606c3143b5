//! Files written before preset format 2 (saves, RON and `.tres` presets, world codes) still load
//! the world they were made with (law: Nothing is lost, Deterministic).
//!
//! The fixtures in `tests/fixtures/format1/` were written by the Strata of preset format 1, before
//! the defaults of the Game of Life rules and of the terrain changed; `expected.txt` holds the
//! fingerprint each file had then. Never regenerate them: they stand for files users already have.
//! They hold two worlds: the built-in default with seed 99 (a save with one edit, and a world
//! code on the built-in default), and "Old life world" (seed 2024, Game of Life caves in 3D and
//! 2D with the rules left at their defaults) as a save, a complete and a sparse versioned RON, a
//! bare RON body, a complete `.tres` and a sparse one as Godot's inspector saves it (only what
//! differs from the defaults), and a world code on the built-in default.

use std::fs;
use std::path::{Path, PathBuf};
use strata_core::WorldPreset;
use strata_core::preset::fingerprint::fingerprint;
use strata_core::preset::model::CaveMode;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/format1")
}

/// The fixtures and the fingerprints they were written with.
fn expected() -> Vec<(String, String)> {
    fs::read_to_string(fixtures().join("expected.txt"))
        .unwrap()
        .lines()
        .map(|l| {
            let (name, print) = l.split_once(' ').unwrap();
            (name.to_string(), print.to_string())
        })
        .collect()
}

/// What `name` in the fixtures loads as today.
fn load(name: &str) -> WorldPreset {
    use strata_core::persist::save::{SaveOptions, read_world_save};
    use strata_core::preset::file::load_preset_file;
    use strata_core::preset::world_code::preset_from_world_code;
    let path = fixtures().join(name);
    if name.ends_with(".strata") {
        return read_world_save(&path, SaveOptions::default()).unwrap_or_else(|e| panic!("{e}")).preset;
    }
    if let Some(which) = name.strip_prefix("world_code_") {
        let codes = fs::read_to_string(fixtures().join("world_codes.txt")).unwrap();
        let code = codes.lines().nth(if which == "life" { 0 } else { 1 }).unwrap();
        // The reader's built-in default is today's.
        let lookup = |base: &str| base.is_empty().then(WorldPreset::default);
        return preset_from_world_code(code, lookup, &[""]).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    load_preset_file(&path).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn format1_files_load_the_world_they_were_made_with() {
    let list = expected();
    assert_eq!(list.len(), 9, "{list:?}");
    for (name, print) in list {
        let p = load(&name);
        assert_eq!(fingerprint(&p), print, "{name} loads another world");
        assert_eq!(p.caves.life_rule, "B14-19/S13-26", "{name}");
        assert_eq!(p.side_view.cave_life_rule, "B678/S345678", "{name}");
        assert_eq!(
            (p.height.octaves, p.height.persistence, p.height.amplitude, p.height.scale),
            (5, 0.5, 40.0, 320.0),
            "{name}: the terrain of format 1"
        );
        if name.starts_with("life_world") || name == "world_code_life" {
            assert_eq!((p.caves.mode, p.side_view.cave_mode), (CaveMode::GameOfLife, CaveMode::GameOfLife), "{name}");
        }
    }
}
