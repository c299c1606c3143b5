//! Property and fuzz tests of every preset loader (RON, `.tres`) and heightmap loader (PNG bytes,
//! SRTM `.hgt` bytes): arbitrary and mutated input never panics and ends in a typed error that
//! names the input, and every preset name round-trips through both preset formats.
//!
//! Bounded for CI: 256 cases per property unless `STRATA_FUZZ_CASES` says otherwise;
//! `cargo xtask fuzz --minutes N` runs these tests (their names contain `fuzz`) with many cases,
//! again and again.

use proptest::prelude::*;
use std::path::Path;
use strata_core::WorldPreset;
use strata_core::noise::heightmap::{HGT_SIDES, Heightmap, HeightmapError};
use strata_core::preset::error::PresetError;
use strata_core::preset::ron::{preset_from_ron, preset_to_ron};
use strata_core::preset::tres::{preset_from_tres_text, preset_to_tres_text};

/// Cases per property: `STRATA_FUZZ_CASES`, or 256.
fn cases() -> u32 {
    std::env::var("STRATA_FUZZ_CASES").ok().and_then(|v| v.trim().parse().ok()).filter(|&n| n > 0).unwrap_or(256)
}

fn config(divisor: u32) -> ProptestConfig {
    ProptestConfig { cases: (cases() / divisor).max(1), failure_persistence: None, ..ProptestConfig::default() }
}

/// Overwrites a few bytes of `base` at positions/values drawn from `edits`, then cuts the end.
fn mutate(base: &[u8], edits: &[(usize, u8)], cut: usize) -> Vec<u8> {
    let mut v = base.to_vec();
    for &(i, b) in edits {
        if !v.is_empty() {
            let n = v.len();
            v[i % n] = b;
        }
    }
    v.truncate(v.len().saturating_sub(cut));
    v
}

fn preset_err_names(e: &PresetError, name: &str) {
    assert!(e.to_string().contains(name), "{e}");
}

fn heightmap_err_names(e: &HeightmapError, name: &str) {
    assert!(e.to_string().contains(name), "{e}");
}

/// A small valid 16-bit grayscale PNG.
fn valid_png() -> Vec<u8> {
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, 5, 4);
    enc.set_color(png::ColorType::Grayscale);
    enc.set_depth(png::BitDepth::Sixteen);
    let data: Vec<u8> = (0..20u16).flat_map(|i| (i * 3000).to_be_bytes()).collect();
    let mut w = enc.write_header().unwrap();
    w.write_image_data(&data).unwrap();
    w.finish().unwrap();
    out
}

#[test]
fn fuzz_seed_inputs_load() {
    let p = WorldPreset::default();
    assert_eq!(preset_from_ron(&preset_to_ron(&p), "a.ron").unwrap(), p);
    assert_eq!(preset_from_tres_text(&preset_to_tres_text(&p), "a.tres").unwrap(), p);
    assert_eq!(Heightmap::from_png_bytes(&valid_png(), Path::new("a.png")).unwrap().width(), 5);
    let hgt: Vec<u8> = (0..1201 * 1201).flat_map(|i: i32| ((i % 500) as i16).to_be_bytes()).collect();
    assert_eq!(Heightmap::from_hgt_bytes(&hgt, Path::new("a.hgt")).unwrap().width(), 1201);
}

proptest! {
    #![proptest_config(config(1))]

    #[test]
    fn fuzz_preset_text_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..1024)) {
        let text = String::from_utf8_lossy(&bytes);
        for t in [
            text.to_string(),
            format!("(format: \"strata-preset\", version: 1, preset: ({text}))"),
        ] {
            if let Err(e) = preset_from_ron(&t, "fuzz.ron") { preset_err_names(&e, "fuzz.ron") }
        }
        for t in [text.to_string(), format!("[gd_resource type=\"StrataWorldPreset\" format=3]\n[resource]\n{text}")] {
            if let Err(e) = preset_from_tres_text(&t, "fuzz.tres") { preset_err_names(&e, "fuzz.tres") }
        }
    }

    #[test]
    fn fuzz_mutated_presets_never_panic(edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8), cut in 0usize..64) {
        let ron = preset_to_ron(&WorldPreset::default());
        let tres = preset_to_tres_text(&WorldPreset::default());
        let ron = mutate(ron.as_bytes(), &edits, cut);
        let tres = mutate(tres.as_bytes(), &edits, cut);
        if let Err(e) = preset_from_ron(&String::from_utf8_lossy(&ron), "m.ron") { preset_err_names(&e, "m.ron") }
        if let Err(e) = preset_from_tres_text(&String::from_utf8_lossy(&tres), "m.tres") { preset_err_names(&e, "m.tres") }
    }

    /// Any name (newlines, control characters, quotes, backslashes, any Unicode) saves and loads
    /// back identically in both formats.
    #[test]
    fn fuzz_any_preset_name_round_trips(name in any::<String>(), seed in any::<u64>()) {
        let p = WorldPreset { name, seed, ..WorldPreset::default() };
        prop_assert_eq!(&preset_from_tres_text(&preset_to_tres_text(&p), "n.tres").unwrap(), &p);
        prop_assert_eq!(&preset_from_ron(&preset_to_ron(&p), "n.ron").unwrap(), &p);
    }

    #[test]
    fn fuzz_png_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        if let Err(e) = Heightmap::from_png_bytes(&bytes, Path::new("fuzz.png")) { heightmap_err_names(&e, "fuzz.png") }
        // Behind a real signature, to get past the first check.
        let mut framed = b"\x89PNG\r\n\x1a\n".to_vec();
        framed.extend_from_slice(&bytes);
        if let Err(e) = Heightmap::from_png_bytes(&framed, Path::new("fuzz.png")) { heightmap_err_names(&e, "fuzz.png") }
    }

    #[test]
    fn fuzz_mutated_pngs_never_panic(edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..6), cut in 0usize..32) {
        let bytes = mutate(&valid_png(), &edits, cut);
        if let Err(e) = Heightmap::from_png_bytes(&bytes, Path::new("m.png")) { heightmap_err_names(&e, "m.png") }
    }

    #[test]
    fn fuzz_asc_text_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..512), cut in 0usize..200) {
        if let Err(e) = Heightmap::from_asc_bytes(&bytes, Path::new("fuzz.asc")) { heightmap_err_names(&e, "fuzz.asc") }
        // A valid header with the data cut and junk after it.
        let mut text = b"ncols 3\nnrows 2\nxllcenter 1\nyllcorner 2\ncellsize 5\nnodata_value -1\n1 -1 3\n4 5 6\n".to_vec();
        text.truncate(text.len().saturating_sub(cut % 40));
        text.extend_from_slice(&bytes[..bytes.len().min(cut)]);
        if let Err(e) = Heightmap::from_asc_bytes(&text, Path::new("m.asc")) { heightmap_err_names(&e, "m.asc") }
    }

    #[test]
    fn fuzz_spca_bytes_never_panic(edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..6), cut in 0usize..32) {
        let data: Vec<f64> = (0..48).map(|i| ((i * 13 % 7) as f64).sin() + (i / 6) as f64).collect();
        let pca = strata_core::noise::pca::Pca::fit(8, 6, &data).unwrap();
        let good = strata_core::noise::pca::PcaModel::new(&pca, &data, 3, 1.0).unwrap().to_bytes();
        let bytes = mutate(&good, &edits, cut);
        if let Err(e) = Heightmap::from_spca_bytes(&bytes, Path::new("m.spca")) { heightmap_err_names(&e, "m.spca") }
    }

    #[test]
    fn fuzz_hgt_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..4096)) {
        let e = Heightmap::from_hgt_bytes(&bytes, Path::new("fuzz.hgt")).unwrap_err();
        prop_assert!(matches!(e, HeightmapError::HgtSize { .. }), "{}", e);
    }
}

proptest! {
    // A whole tile per case: an eighth of the cases.
    #![proptest_config(config(8))]

    #[test]
    fn fuzz_hgt_tiles_never_panic(fill in any::<i16>(), edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..64), big in any::<bool>()) {
        let side = HGT_SIDES[big as usize];
        let mut bytes = fill.to_be_bytes().repeat(side * side);
        for (i, b) in edits {
            let n = bytes.len();
            bytes[i % n] = b;
        }
        match Heightmap::from_hgt_bytes(&bytes, Path::new("t.hgt")) {
            Ok(map) => prop_assert_eq!(map.width(), side),
            Err(e) => prop_assert!(matches!(e, HeightmapError::AllVoid { .. }), "{}", e),
        }
    }
}
