//! Preset files: the shipped presets, the versioned RON format, Godot `.tres` text, and how each
//! loader reports bad input (file, line:column, field, allowed values) without touching files.

use std::fs;
use std::path::{Path, PathBuf};
use strata_core::WorldPreset;
use strata_core::preset::error::PresetError;
use strata_core::preset::file::{load_preset_file, save_preset_file};
use strata_core::preset::fingerprint::{fingerprint, with_new_seed};
use strata_core::preset::model::{CaveMode, HeightmapWrap, SurfaceSource};
use strata_core::preset::ron::{preset_from_ron, preset_to_ron};
use strata_core::preset::tres::{preset_from_tres_text, preset_to_tres_text};

/// `life_caverns`: a Life-like 3D cave rule (rock alive; born with 14-19 of the 26 neighbours,
/// surviving with 13-26), its ticks and the chance a cell starts open.
const LIFE_3D_RULE: &str = "B14-19/S13-26";
const LIFE_3D_FILL: f32 = 0.47;
const LIFE_3D_TICKS: u32 = 6;
/// `life_side_view`: Day & Night (B3678/S34678), a Life-like rule that grows blobs of either
/// state, from a fill of 55 % rock.
const LIFE_2D_RULE: &str = "B3678/S34678";
const LIFE_2D_ROCK: f32 = 0.55;
const LIFE_2D_TICKS: u32 = 24;

fn presets_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../godot_project/addons/strata/presets")
}

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("strata-preset-io-{tag}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

/// The shipped presets, by file stem. They were made from the defaults of preset format 1 and
/// keep those settings explicitly (their files store every setting).
fn shipped() -> Vec<(&'static str, WorldPreset)> {
    // Eight octaves with persistence 0.58 give the power-spectrum slope and slope angles of real
    // land (β ≈ 3.8, mean slope ≈ 15°, 90th percentile ≈ 26°; pinned in golden_presets.rs); the
    // defaults (five at 0.5) are smoother (β ≈ 5.6).
    let mut default_hills = WorldPreset { name: "Default hills".into(), ..WorldPreset::format1_default() };
    default_hills.height.amplitude = 38.0;
    default_hills.height.scale = 460.0;
    default_hills.height.octaves = 8;
    default_hills.height.persistence = 0.58;
    // Preset format 3's biome borders, meandering and mixed (issue 48), as the default's.
    default_hills.biomes.warp_strength = WorldPreset::default().biomes.warp_strength;
    default_hills.biomes.transition_width = WorldPreset::default().biomes.transition_width;

    let mut archipelago = WorldPreset { name: "Archipelago".into(), seed: 424_242, ..WorldPreset::format1_default() };
    archipelago.height.base_height = -10.0;
    archipelago.height.amplitude = 34.0;
    archipelago.height.scale = 220.0;
    archipelago.height.octaves = 6;
    archipelago.height.perlin_weight = 0.6;
    archipelago.height.open_simplex_weight = 0.4;
    archipelago.water.sea_level = 6;
    archipelago.biomes.cell_size = 256.0;
    archipelago.caves.tunnel_strength = 0.3;
    archipelago.scatter.density = 1.3;

    let mut alpine = WorldPreset { name: "Alpine mountains".into(), seed: 8_848, ..WorldPreset::format1_default() };
    alpine.height.base_height = 48.0;
    alpine.height.amplitude = 180.0;
    alpine.height.scale = 960.0;
    alpine.height.octaves = 7;
    alpine.height.persistence = 0.55;
    alpine.height.perlin_weight = 0.25;
    alpine.height.ridged_weight = 0.75;
    alpine.biomes.rock_slope = 0.9;
    alpine.biomes.climate_scale = 2048.0;
    alpine.caves.min_depth = 16;
    alpine.water.sea_level = -24;
    alpine.scatter.density = 0.6;

    let mut desert = WorldPreset { name: "Desert canyons".into(), seed: 1_869, ..WorldPreset::format1_default() };
    desert.height.base_height = 24.0;
    desert.height.amplitude = 20.0;
    desert.height.scale = 640.0;
    desert.height.octaves = 4;
    desert.height.perlin_weight = 0.5;
    desert.height.value_weight = 0.5;
    desert.height.ravine_depth = 44.0;
    desert.height.ravine_width = 9.0;
    desert.height.ravine_spacing = 360.0;
    desert.height.ravine_roughness = 0.62;
    desert.biomes.cell_size = 768.0;
    desert.biomes.climate_scale = 6144.0;
    desert.biomes.rock_slope = 1.1;
    desert.water.enabled = false;
    desert.scatter.density = 0.2;
    desert.scatter.flowers = false;

    let mut caverns = WorldPreset { name: "Deep caverns".into(), seed: 6_502, ..WorldPreset::format1_default() };
    caverns.height.amplitude = 28.0;
    caverns.height.scale = 400.0;
    caverns.caves.mode = CaveMode::CellularAutomata;
    caverns.caves.cell_size = 4;
    caverns.caves.fill_probability = 0.5;
    caverns.caves.passes = 5;
    caverns.caves.min_depth = 3;
    caverns.caves.min_pocket_volume = 64;
    caverns.caves.tunnel_strength = 0.95;
    caverns.caves.tunnel_width = 0.16;
    caverns.caves.tunnel_scale = 72.0;
    caverns.caves.allow_surface_breach = true;
    caverns.water.sea_level = -8;

    // The side-view classic (see `gen2d::classic`): its hash-noise surface (octaves 0-4,
    // persistence 0.5, scaled by 10, rounded up) and its caves (holes at 56 % from 10 tiles down,
    // four 4-5 iterations, two wall-only ones at 6), no pocket fill, no pools.
    let mut classic = WorldPreset { name: "Side-view classic".into(), seed: 1_996, ..WorldPreset::format1_default() };
    classic.side_view.surface_source = SurfaceSource::ClassicHash;
    classic.side_view.base_height = 0.0;
    classic.side_view.amplitude = 10.0;
    classic.side_view.scale = 64.0;
    classic.side_view.octaves = 5;
    classic.side_view.persistence = 0.5;
    classic.side_view.cave_mode = CaveMode::Classic;
    classic.side_view.cave_depth = 10;
    classic.side_view.cave_passes = 4;
    classic.side_view.cave_threshold = 5;
    classic.side_view.cave_final_passes = 2;
    classic.side_view.cave_final_threshold = 6;
    classic.side_view.min_pocket_tiles = 0;
    classic.side_view.water_enabled = false;

    // The 2D value-noise example: linear value noise, six octaves, persistence 0.55.
    let mut value_2d =
        WorldPreset { name: "Side-view value noise".into(), seed: 2_025, ..WorldPreset::format1_default() };
    value_2d.side_view.surface_source = SurfaceSource::ValueNoiseLinear;
    value_2d.side_view.amplitude = 28.0;
    value_2d.side_view.scale = 256.0;
    value_2d.side_view.octaves = 6;
    value_2d.side_view.persistence = 0.55;
    // Game of Life caves, exactly: the rule's ticks, then the main region of each region kept.
    let mut life_caverns = WorldPreset { name: "Life caverns".into(), seed: 1_970, ..WorldPreset::format1_default() };
    life_caverns.caves.mode = CaveMode::GameOfLife;
    life_caverns.caves.life_rule = LIFE_3D_RULE.into();
    life_caverns.caves.fill_probability = LIFE_3D_FILL;
    life_caverns.caves.life_ticks = LIFE_3D_TICKS;
    life_caverns.caves.life_flood_fill = true;
    life_caverns.caves.min_depth = 4;

    let mut life_side_view =
        WorldPreset { name: "Life side view".into(), seed: 1_968, ..WorldPreset::format1_default() };
    life_side_view.side_view.cave_mode = CaveMode::GameOfLife;
    life_side_view.side_view.cave_life_rule = LIFE_2D_RULE.into();
    life_side_view.side_view.cave_rock_probability = LIFE_2D_ROCK;
    life_side_view.side_view.cave_life_ticks = LIFE_2D_TICKS;
    life_side_view.side_view.cave_life_flood_fill = true;
    // A real place: the Olinda elevation model (addons/strata/heightmaps/README.md) alone, each
    // 90 m cell 6 voxels wide, its 89 m of relief 56 voxels tall, the biomes' height offsets off
    // so the heights are the model's.
    let mut olinda =
        WorldPreset { name: "Olinda river valleys (real DEM)".into(), seed: 8_911, ..WorldPreset::format1_default() };
    olinda.height.perlin_weight = 0.0;
    olinda.height.heightmap_weight = 1.0;
    olinda.height.heightmap_path = "res://addons/strata/heightmaps/olinda_dem_utm25s.asc".into();
    olinda.height.heightmap_cell_size = 6.0;
    olinda.height.heightmap_wrap = HeightmapWrap::Tile;
    olinda.height.base_height = 20.0;
    olinda.height.amplitude = 28.0;
    olinda.water.sea_level = -6;
    for biome in &mut olinda.biomes.table {
        biome.height_offset = 0.0;
        biome.height_scale = 1.0;
    }

    vec![
        ("default_hills", default_hills),
        ("archipelago", archipelago),
        ("alpine_mountains", alpine),
        ("desert_canyons", desert),
        ("deep_caverns", caverns),
        ("side_view_classic", classic),
        ("side_view_value_noise", value_2d),
        ("life_caverns", life_caverns),
        ("life_side_view", life_side_view),
        ("olinda_river_valleys", olinda),
    ]
}

/// Rewrites `godot_project/addons/strata/presets/*.{tres,ron}` from [`shipped`]:
/// `cargo test -p strata-tests --test preset_io -- --ignored regenerate`.
#[test]
#[ignore]
fn regenerate_shipped_presets() {
    for (stem, p) in shipped() {
        p.validate().unwrap();
        save_preset_file(&presets_dir().join(format!("{stem}.ron")), &p).unwrap();
        save_preset_file(&presets_dir().join(format!("{stem}.tres")), &p).unwrap();
    }
}

#[test]
fn shipped_presets_validate_and_tres_matches_ron() {
    let mut fingerprints = std::collections::BTreeMap::new();
    let mut count = 0;
    for entry in fs::read_dir(presets_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "tres") {
            continue;
        }
        count += 1;
        let tres = load_preset_file(&path).unwrap_or_else(|e| panic!("{e}"));
        let ron_path = path.with_extension("ron");
        let ron = load_preset_file(&ron_path).unwrap_or_else(|e| panic!("{e}"));
        tres.validate().unwrap();
        ron.validate().unwrap();
        assert_eq!(fingerprint(&tres), fingerprint(&ron), "{}", path.display());
        assert_eq!(tres.name, ron.name);
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("[gd_resource type=\"StrataWorldPreset\" format=3]"), "{}", path.display());
        assert!(text.contains("\n[resource]\n"));
        fingerprints.insert(fingerprint(&ron), path.file_stem().unwrap().to_string_lossy().to_string());
    }
    assert!(count >= 5, "{count} shipped presets");
    assert_eq!(fingerprints.len(), count, "shipped presets must differ: {fingerprints:?}");
}

#[test]
fn shipped_presets_match_their_definitions() {
    for (stem, p) in shipped() {
        let ron = load_preset_file(&presets_dir().join(format!("{stem}.ron"))).unwrap();
        assert_eq!(fingerprint(&ron), fingerprint(&p), "{stem}: run the ignored regenerate_shipped_presets test");
    }
    let all = shipped();
    let get = |n: &str| all.iter().find(|(s, _)| *s == n).unwrap().1.clone();
    // They differ where the brief says they do.
    assert!(get("archipelago").water.sea_level as f32 > get("archipelago").height.base_height);
    assert!(get("alpine_mountains").height.ridged_weight > 0.5 && get("alpine_mountains").height.amplitude >= 150.0);
    assert!(get("desert_canyons").height.ravine_depth > 0.0 && !get("desert_canyons").water.enabled);
    assert!(get("deep_caverns").caves.cell_size >= 4 && get("deep_caverns").caves.tunnel_strength > 0.9);
    // The 2D presets keep their documented numbers (README "Side-view worlds").
    let classic = get("side_view_classic").side_view;
    assert_eq!((classic.surface_source, classic.cave_mode), (SurfaceSource::ClassicHash, CaveMode::Classic));
    assert_eq!((classic.octaves, classic.persistence, classic.amplitude), (5, 0.5, 10.0));
    assert_eq!(
        (classic.cave_depth, classic.cave_threshold, classic.cave_final_passes, classic.cave_final_threshold),
        (10, 5, 2, 6)
    );
    assert!(!classic.classic_xor_frequency);
    let value_2d = get("side_view_value_noise").side_view;
    assert_eq!(value_2d.surface_source, SurfaceSource::ValueNoiseLinear);
    assert_eq!(value_2d.persistence, 0.55, "the 2D value-noise example's documented persistence");
    for stem in ["side_view_classic", "side_view_value_noise"] {
        let file = load_preset_file(&presets_dir().join(format!("{stem}.tres"))).unwrap();
        assert_eq!(file.side_view, get(stem).side_view, "{stem}.tres");
    }
}

#[test]
fn ron_and_tres_round_trip_keep_the_fingerprint() {
    for (_, p) in shipped() {
        let back = preset_from_ron(&preset_to_ron(&p), "x.ron").unwrap();
        assert_eq!(back, p);
        let back = preset_from_tres_text(&preset_to_tres_text(&p), "x.tres").unwrap();
        assert_eq!(fingerprint(&back), fingerprint(&p));
    }
}

#[test]
fn fingerprint_is_stable_and_seed_sensitive() {
    // Pinned: a change here means every shared fingerprint changes; do that only on purpose.
    let f = fingerprint(&WorldPreset::default());
    assert_eq!(f, fingerprint(&WorldPreset::default()));
    assert!(f.chars().all(|c| c.is_ascii_hexdigit()) && f.len() == 16);
    let p = WorldPreset::default();
    let q = with_new_seed(&p, 77);
    assert_eq!(q.seed, 77);
    assert_eq!(q.height, p.height);
    assert_eq!(q.caves, p.caves);
    assert_ne!(fingerprint(&q), f);
}

#[test]
fn newer_version_is_refused_by_name() {
    let text = preset_to_ron(&WorldPreset::default()).replace("version: 3", "version: 7");
    let e = preset_from_ron(&text, "shared.ron").unwrap_err();
    assert!(matches!(e, PresetError::NewerVersion { found: 7, .. }), "{e:?}");
    let m = e.to_string();
    assert!(
        m.contains("shared.ron") && m.contains("newer Strata") && m.contains("version 7") && m.contains("<= 3"),
        "{m}"
    );
}

#[test]
fn unknown_field_is_named_with_its_line() {
    let text =
        preset_to_ron(&WorldPreset::default()).replace("octaves: 8,", "octaves: 8,\n        erosion_strength: 0.5,");
    let line = text.lines().position(|l| l.contains("erosion_strength")).unwrap() + 1;
    let e = preset_from_ron(&text, "new_minor.ron").unwrap_err();
    assert_eq!(e.field(), "erosion_strength");
    let m = e.to_string();
    assert!(m.contains(&format!("new_minor.ron:{line}:")), "{m}");
    assert!(m.contains("unknown field `erosion_strength`") && m.contains("`octaves`"), "{m}");
}

#[test]
fn older_files_take_defaults_and_bare_presets_load() {
    // Version 1: what the file leaves out takes the defaults of format 1.
    let text = "(format: \"strata-preset\", version: 1, preset: (seed: 5, height: (octaves: 3)))";
    let p = preset_from_ron(text, "old.ron").unwrap();
    assert_eq!((p.seed, p.height.octaves), (5, 3));
    assert_eq!(p.caves, WorldPreset::format1_default().caves);
    let bare = preset_from_ron("(seed: 9, water: (sea_level: 12))", "bare.ron").unwrap();
    assert_eq!((bare.seed, bare.water.sea_level), (9, 12));
    assert_eq!(bare.caves, WorldPreset::format1_default().caves, "a bare body reads as version 1");
    // Version 2: today's defaults.
    let text = "(format: \"strata-preset\", version: 2, preset: (seed: 5, height: (octaves: 3)))";
    let p = preset_from_ron(text, "new.ron").unwrap();
    assert_eq!((p.seed, p.height.octaves), (5, 3));
    assert_eq!(p.caves, WorldPreset::default().caves);
    assert_eq!(p.caves.life_rule, "B3/S23");
    // A setting a version-1 file does give keeps its value.
    let text = "(format: \"strata-preset\", version: 1, preset: (caves: (life_rule: \"B3/S23\")))";
    let p = preset_from_ron(text, "old.ron").unwrap();
    assert_eq!(p.caves.life_rule, "B3/S23");
    assert_eq!(p.side_view.cave_life_rule, "B678/S345678");
}

#[test]
fn out_of_range_values_name_field_and_range() {
    let base = preset_to_ron(&WorldPreset::default());
    for (from, to, field, allowed) in [
        ("octaves: 8", "octaves: 0", "height_octaves", "1..=12"),
        ("octaves: 8", "octaves: 1000", "height_octaves", "1..=12"),
        ("amplitude: 38.0", "amplitude: NaN", "height_amplitude", "finite"),
        ("sea_level: 0", "sea_level: 5000", "water_sea_level", "-1024..=1024"),
    ] {
        assert!(base.contains(from), "{from}");
        let e = preset_from_ron(&base.replacen(from, to, 1), "r.ron").unwrap_err();
        let m = e.to_string();
        assert_eq!(e.field(), field, "{m}");
        assert!(m.contains("r.ron:") && m.contains(allowed), "{m}");
    }
    // A negative count does not even parse as the field's type: the field is still named.
    let e = preset_from_ron(&base.replacen("octaves: 8", "octaves: -1", 1), "r.ron").unwrap_err();
    assert_eq!(e.field(), "octaves", "{e}");
}

#[test]
fn broken_ron_inputs_give_clear_errors() {
    let good = preset_to_ron(&WorldPreset::default());
    let cases: Vec<(&str, String)> = vec![
        ("empty", String::new()),
        ("truncated", good[..good.len() / 2].to_string()),
        ("corrupted", good.replacen("height: (", "height: [", 1)),
        ("garbage", "\u{1}\u{2}%%%\u{7f}".to_string()),
        ("wrong format tag", good.replace("strata-preset", "something-else")),
        ("wrong type", good.replacen("octaves: 8", "octaves: \"five\"", 1)),
        ("bad enum", good.replacen("CellularAutomata", "Marching", 1)),
    ];
    for (what, text) in cases {
        let e = preset_from_ron(&text, "broken.ron").unwrap_err();
        let m = e.to_string();
        assert!(m.starts_with("broken.ron"), "{what}: {m}");
        assert!(m.contains("allowed") || m.contains("newer"), "{what}: {m}");
    }
    let e = preset_from_ron(&good.replacen("CellularAutomata", "Marching", 1), "b.ron").unwrap_err().to_string();
    assert!(e.contains("GameOfLife"), "{e}");
    let e = preset_from_ron(&good.replace("strata-preset", "other"), "b.ron").unwrap_err();
    assert_eq!(e.field(), "format");
}

#[test]
fn loading_and_failed_saves_leave_files_untouched() {
    let d = scratch("untouched");
    let path = d.join("mine.ron");
    save_preset_file(&path, &WorldPreset::default()).unwrap();
    let before = fs::read(&path).unwrap();
    let mut bad = WorldPreset::default();
    bad.height.octaves = 0;
    let e = save_preset_file(&path, &bad).unwrap_err();
    assert!(e.to_string().contains("height_octaves"), "{e}");
    assert_eq!(fs::read(&path).unwrap(), before);

    let broken = d.join("broken.ron");
    fs::write(&broken, b"\x00\xff\xfe binary").unwrap();
    let e = load_preset_file(&broken).unwrap_err();
    assert!(e.to_string().contains("broken.ron") && e.to_string().contains("byte offset 1"), "{e}");
    assert_eq!(fs::read(&broken).unwrap(), b"\x00\xff\xfe binary");
    let e = load_preset_file(&d.join("missing.ron")).unwrap_err();
    assert!(e.to_string().contains("missing.ron"), "{e}");
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn tres_bad_inputs_give_clear_errors() {
    let good = preset_to_tres_text(&WorldPreset::default());
    let header = "[gd_resource type=\"StrataWorldPreset\" format=3]\n\n[resource]\n";
    let cases: Vec<(&str, String, &str, &str)> = vec![
        ("empty", String::new(), "", "StrataWorldPreset"),
        ("other type", "[gd_resource type=\"Theme\" format=3]\n[resource]\n".into(), "type", "StrataWorldPreset"),
        ("script", format!("{header}script = ExtResource(\"1\")\n"), "script", "without a script"),
        ("ext_resource", "[gd_resource type=\"StrataWorldPreset\" format=3]\n[ext_resource type=\"Script\" path=\"res://x.gd\" id=\"1\"]\n".into(), "", "only [resource]"),
        ("unknown field", format!("{header}height_erosion = 3\n"), "height_erosion", "field_names"),
        ("out of range", format!("{header}height_octaves = 1000\n"), "height_octaves", "1..=12"),
        ("nan", format!("{header}height_amplitude = nan\n"), "height_amplitude", "finite"),
        ("wrong type", format!("{header}height_octaves = Vector2(1, 2)\n"), "height_octaves", "1..=12"),
        ("unterminated", format!("{header}name = \"abc\n"), "name", "text"),
        ("truncated", good[..good.len() / 3].to_string() + "height_sca", "", "name = value"),
    ];
    for (what, text, field, allowed) in cases {
        let e = preset_from_tres_text(&text, "p.tres").unwrap_err();
        let m = e.to_string();
        assert!(m.starts_with("p.tres"), "{what}: {m}");
        assert_eq!(e.field(), field, "{what}: {m}");
        assert!(m.contains(allowed), "{what}: {m}");
    }
    // The line of the bad field is named.
    let e = preset_from_tres_text(&format!("{header}\nheight_octaves = 0\n"), "p.tres").unwrap_err();
    assert!(e.to_string().starts_with("p.tres:5:"), "{e}");
}

#[test]
fn tres_written_by_godot_reads() {
    // What Godot's ResourceSaver writes: only changed properties, resource_name, an uid.
    let text = "[gd_resource type=\"StrataWorldPreset\" format=3 uid=\"uid://b3x\"]\n\n[resource]\nresource_name = \"x\"\nseed = -5\nheight_octaves = 7\ncaves_mode = 2\nname = \"Tab\\there \\\"q\\\"\"\n";
    let p = preset_from_tres_text(text, "g.tres").unwrap();
    assert_eq!(p.seed, (-5i64) as u64);
    assert_eq!(p.height.octaves, 7);
    assert_eq!(p.caves.mode, CaveMode::GameOfLife);
    assert_eq!(p.name, "Tab\there \"q\"");
}
