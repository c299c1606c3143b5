//! Golden fingerprints of every shipped preset's world, so an unintended change to any of them
//! fails a test. Update a constant only for an intended change, and say why in the commit (see
//! `golden.rs`).

use strata_core::base::coords::ChunkCoord;
use strata_core::gen3d::pipeline::Generator;
use strata_core::preset::file::load_preset_file;
use strata_tests::{GOLDEN_CHUNKS, shipped_presets_dir, world_fingerprint};

const GOLDEN: [(&str, u64); 5] = [
    ("default_hills", 0x638e713d3699b10c),
    ("archipelago", 0xc120e287b8aec506),
    ("alpine_mountains", 0x9510ee282e6e6ac9),
    ("desert_canyons", 0x4f1515d5e371cdfe),
    ("deep_caverns", 0xe5f363c760cdfe6f),
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

/// The preset that streams the shipped real elevation model (its `res://` path read from the
/// Godot project the preset lies in): its world is pinned like the others, and it is the model's
/// relief (the lowest and highest surface a voxel apart from the model's −1 m and 88 m mapped
/// onto base 20 ± amplitude 28).
#[test]
fn the_real_dem_preset_streams_the_shipped_model() {
    let dir = shipped_presets_dir();
    let preset = load_preset_file(&dir.join("olinda_river_valleys.ron")).unwrap_or_else(|e| panic!("{e}"));
    let g = Generator::with_base_dir(&preset, Some(&dir)).unwrap_or_else(|e| panic!("{e}"));
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
    let preset = load_preset_file(&shipped_presets_dir().join("default_hills.ron")).unwrap_or_else(|e| panic!("{e}"));
    let g = Generator::new(&preset).unwrap();
    for center in [(0, 0), (5000, -3000)] {
        let r = measure(g.terrain(), center, REALISM_SIDE);
        let beta = r.spectrum_slope.unwrap();
        assert!((2.4..=4.0).contains(&beta), "β {beta} at {center:?}: {r:?}");
        assert!((10.0..=18.0).contains(&r.slope_mean_deg), "mean slope at {center:?}: {r:?}");
        assert!((19.0..=30.0).contains(&r.slope_p90_deg), "90th percentile at {center:?}: {r:?}");
    }
}
