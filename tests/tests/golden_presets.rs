//! Golden fingerprints of every shipped preset's world, so an unintended change to any of them
//! fails a test. Update a constant only for an intended change, and say why in the commit (see
//! `golden.rs`).

use strata_core::base::coords::ChunkCoord;
use strata_core::gen3d::pipeline::{Generator, GeneratorOptions};
use strata_core::preset::file::load_preset_file;
use strata_tests::{GOLDEN_CHUNKS, shipped_presets_dir, world_fingerprint};

const GOLDEN: [(&str, u64); 9] = [
    // Preset format 3's meandering, mixed biome borders (issue 48; 0x638e713d3699b10c before).
    ("default_hills", 0x3649b90948dc4964),
    ("archipelago", 0xc120e287b8aec506),
    ("alpine_mountains", 0x9510ee282e6e6ac9),
    ("desert_canyons", 0x4f1515d5e371cdfe),
    ("deep_caverns", 0xe5f363c760cdfe6f),
    ("side_view_classic", 0xc3fa3b6f70de9229),
    ("side_view_value_noise", 0xa90d945a761ebc79),
    ("life_caverns", 0x7d1ce40c2a6d4dbe),
    ("life_side_view", 0xae20b1f92ba4eb3a),
];

#[test]
fn every_shipped_preset_matches_its_golden_fingerprint() {
    let mut report = Vec::new();
    for (name, expected) in GOLDEN {
        let path = shipped_presets_dir().join(format!("{name}.ron"));
        let preset = load_preset_file(&path).unwrap_or_else(|e| panic!("{e}"));
        let got = world_fingerprint(&preset);
        if got != expected {
            report.push(format!("    (\"{name}\", {got:#018x}),"));
        }
    }
    assert!(report.is_empty(), "shipped worlds changed; if intended, use:\n{}", report.join("\n"));
}

#[test]
fn shipped_presets_make_different_worlds() {
    let mut seen = std::collections::HashSet::new();
    for (name, _) in GOLDEN {
        let preset = load_preset_file(&shipped_presets_dir().join(format!("{name}.ron"))).unwrap();
        assert!(seen.insert(world_fingerprint(&preset)), "{name} makes the same world as another preset");
    }
}

/// Golden fingerprints of the side-view worlds of the shipped presets made for 2D.
const GOLDEN_2D: [(&str, u64); 1] = [("life_side_view", 0x46a24dfec2e67a84)];

/// A hash of the tiles of five side-view chunks: at the surface, beside it and deep underground.
fn world_2d_fingerprint(preset: &strata_core::WorldPreset) -> u64 {
    use strata_core::gen2d::{ChunkCoord2D, Generator2D};
    let g = Generator2D::new(preset).expect("preset is valid");
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for (x, y) in [(0, 0), (1, 0), (-3, 1), (1, 2), (5, 4)] {
        for &t in &g.generate_chunk(ChunkCoord2D::new(x, y)).tiles {
            h = (h ^ t as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

#[test]
fn shipped_side_view_presets_match_their_golden_2d_fingerprints() {
    let mut report = Vec::new();
    for (name, expected) in GOLDEN_2D {
        let preset =
            load_preset_file(&shipped_presets_dir().join(format!("{name}.ron"))).unwrap_or_else(|e| panic!("{e}"));
        let got = world_2d_fingerprint(&preset);
        if got != expected {
            report.push(format!("    (\"{name}\", {got:#018x}),"));
        }
    }
    assert!(report.is_empty(), "shipped side-view worlds changed; if intended, use:\n{}", report.join("\n"));
}

/// The preset that streams the shipped real elevation model (its `res://` path read from the
/// Godot project the preset lies in): its world is pinned like the others, and it is the model's
/// relief (the lowest and highest surface a voxel apart from the model's −1 m and 88 m mapped
/// onto base 20 ± amplitude 28).
#[test]
fn the_real_dem_preset_streams_the_shipped_model() {
    let dir = shipped_presets_dir();
    let preset = load_preset_file(&dir.join("olinda_river_valleys.ron")).unwrap_or_else(|e| panic!("{e}"));
    let g = Generator::with_options(&preset, GeneratorOptions::default().base_dir(Some(&dir)))
        .unwrap_or_else(|e| panic!("{e}"));
    let got = GOLDEN_CHUNKS.iter().fold(0xcbf2_9ce4_8422_2325u64, |acc, &(x, y, z)| {
        let h = g.generate_chunk(ChunkCoord::new(x, y, z)).content_hash();
        (acc ^ h).wrapping_mul(0x0000_0100_0000_01b3).rotate_left(17)
    });
    assert_eq!(got, GOLDEN_DEM, "the real-DEM world changed; if intended, use {got:#018x}");
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for i in -333..=333 {
        for k in (-333..=333).step_by(3) {
            let h = g.height_f(i as f64, k as f64);
            lo = lo.min(h);
            hi = hi.max(h);
        }
    }
    assert!((lo - (20.0 - 28.0)).abs() < 1.0 && (hi - (20.0 + 28.0)).abs() < 1.0, "{lo}..{hi}");
    // Without the project around it, the `res://` path is reported, not guessed.
    let e = Generator::new(&preset).unwrap_err().to_string();
    assert!(e.contains("res://addons/strata/heightmaps/olinda_dem_utm25s.asc"), "{e}");
}

const GOLDEN_DEM: u64 = 0x855551f494757811;

/// The default preset looks like real land: its height field's radial power-spectrum slope β
/// within the range of real elevation models (2.4–4.0) and its slope angles near real land's
/// (mean about 14°, 90th percentile about 24°), at the origin and at a second place (see
/// `strata_core::gen3d::realism`; `cargo xtask preview --shipped` prints the same figures).
#[test]
fn the_default_preset_is_as_rough_as_real_land() {
    use strata_core::gen3d::realism::{REALISM_SIDE, measure};
    let shipped = load_preset_file(&shipped_presets_dir().join("default_hills.ron")).unwrap_or_else(|e| panic!("{e}"));
    // The built-in default (what a StrataChunkWorld without a preset uses) has the same terrain.
    let built_in = strata_core::WorldPreset::default();
    assert_eq!(built_in.height, shipped.height, "the built-in default's terrain is default hills'");
    for (what, preset) in [("default_hills", shipped), ("WorldPreset::default()", built_in)] {
        let g = Generator::new(&preset).unwrap();
        for center in [(0, 0), (5000, -3000)] {
            let r = measure(g.terrain(), center, REALISM_SIDE);
            let beta = r.spectrum_slope.unwrap();
            println!(
                "{what} at {center:?}: β {beta:.2}, mean slope {:.1}°, 90th percentile {:.1}°",
                r.slope_mean_deg, r.slope_p90_deg
            );
            assert!((2.4..=4.0).contains(&beta), "{what}: β {beta} at {center:?}: {r:?}");
            assert!((10.0..=18.0).contains(&r.slope_mean_deg), "{what}: mean slope at {center:?}: {r:?}");
            assert!((19.0..=30.0).contains(&r.slope_p90_deg), "{what}: 90th percentile at {center:?}: {r:?}");
        }
    }
}
