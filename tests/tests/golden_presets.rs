//! Golden fingerprints of every shipped preset's world, so an unintended change to any of them
//! fails a test. Update a constant only for an intended change, and say why in the commit (see
//! `golden.rs`).

use strata_core::preset::file::load_preset_file;
use strata_tests::{shipped_presets_dir, world_fingerprint};

const GOLDEN: [(&str, u64); 7] = [
    ("default_hills", 0x7661affc5d52da2c),
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
