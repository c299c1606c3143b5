//! Every parser of outside input, fed arbitrary and mutated bytes (proptest, 256 cases each so
//! CI stays fast) and the checked-in corpus `tests/corpus/`: never a panic, always a result.
//!
//! Corpus layout: `tests/corpus/<parser>/<name>`, parser one of `preset_ron`, `preset_tres`,
//! `profile_toml`, `save`; files named `good_*` must load, every other file must be refused with
//! an error that names the file. Add any input that once crashed or misbehaved there.

use proptest::prelude::*;
use std::path::Path;
use strata_core::WorldPreset;
use strata_core::persist::profile::{InputDescriptor, Profile};
use strata_core::persist::save::{WorldSave, decode_world_save, encode_world_save};
use strata_core::preset::ron::{preset_from_ron, preset_to_ron};
use strata_core::preset::tres::{preset_from_tres_text, preset_to_tres_text};

fn parse_ron(bytes: &[u8], name: &str) -> Result<(), String> {
    let text = std::str::from_utf8(bytes).map_err(|e| format!("{name}: {e}"))?;
    preset_from_ron(text, name).map(|_| ()).map_err(|e| e.to_string())
}

fn parse_tres(bytes: &[u8], name: &str) -> Result<(), String> {
    let text = std::str::from_utf8(bytes).map_err(|e| format!("{name}: {e}"))?;
    preset_from_tres_text(text, name).map(|_| ()).map_err(|e| e.to_string())
}

fn parse_toml(bytes: &[u8], name: &str) -> Result<(), String> {
    let text = std::str::from_utf8(bytes).map_err(|e| format!("{name}: {e}"))?;
    Profile::from_toml(text, name).map(|_| ()).map_err(|e| e.to_string())
}

fn parse_save(bytes: &[u8], name: &str) -> Result<(), String> {
    decode_world_save(bytes, name).map(|_| ()).map_err(|e| e.to_string())
}

type Parser = fn(&[u8], &str) -> Result<(), String>;
const PARSERS: [(&str, Parser); 4] =
    [("preset_ron", parse_ron), ("preset_tres", parse_tres), ("profile_toml", parse_toml), ("save", parse_save)];

fn valid_save() -> Vec<u8> {
    let mut s = WorldSave::default();
    for i in 0..30 {
        s.edits.set(strata_core::IVec3::new(i * 5, i - 10, -i * 3), (i % 7) as u16);
    }
    s.state.insert("time".into(), "1".into());
    encode_world_save(&s)
}

fn valid_profile() -> String {
    let mut p = Profile::default();
    p.set_binding("jump", vec![InputDescriptor::Key { physical: 70 }], &[]).unwrap();
    p.to_toml()
}

#[test]
fn corpus_inputs_load_or_fail_cleanly() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut seen = 0;
    for (dir, parse) in PARSERS {
        let entries = std::fs::read_dir(root.join(dir)).unwrap_or_else(|e| panic!("corpus/{dir}: {e}"));
        for entry in entries {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            let bytes = std::fs::read(&path).unwrap();
            let result = parse(&bytes, &name);
            seen += 1;
            if name.starts_with("good_") {
                assert!(result.is_ok(), "corpus/{dir}/{name}: {result:?}");
            } else {
                let e = result.expect_err(&format!("corpus/{dir}/{name} should be refused"));
                assert!(e.contains(&name), "corpus/{dir}/{name}: error does not name the file: {e}");
            }
        }
    }
    assert!(seen >= 20, "{seen} corpus files");
}

/// Overwrites a few bytes of `base` at positions/values drawn from `edits`.
fn mutate(base: &[u8], edits: &[(usize, u8)], cut: usize) -> Vec<u8> {
    let mut v = base.to_vec();
    for &(i, b) in edits {
        if !v.is_empty() {
            let n = v.len();
            v[i % n] = b;
        }
    }
    v.truncate(cut.min(v.len()).max(v.len().saturating_sub(cut)));
    v
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        for (_, parse) in PARSERS {
            let _ = parse(&bytes, "fuzz");
        }
        // Also as text with the right envelopes, to get past the first checks.
        let text = String::from_utf8_lossy(&bytes);
        let _ = preset_from_ron(&format!("(format: \"strata-preset\", version: 1, preset: ({text}))"), "fuzz");
        let _ = preset_from_tres_text(&format!("[gd_resource type=\"WorldPreset\" format=3]\n[resource]\n{text}"), "fuzz");
        let _ = Profile::from_toml(&format!("version = 1\n[settings]\n{text}"), "fuzz");
        let mut framed = b"STRATASV\x01\x00\x00\x00".to_vec();
        framed.extend_from_slice(&bytes);
        let _ = decode_world_save(&framed, "fuzz");
    }

    #[test]
    fn mutated_valid_inputs_never_panic(edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8), cut in 0usize..64) {
        let ron = preset_to_ron(&WorldPreset::default());
        let tres = preset_to_tres_text(&WorldPreset::default());
        let toml = valid_profile();
        let save = valid_save();
        let _ = parse_ron(&mutate(ron.as_bytes(), &edits, cut), "m");
        let _ = parse_tres(&mutate(tres.as_bytes(), &edits, cut), "m");
        let _ = parse_toml(&mutate(toml.as_bytes(), &edits, cut), "m");
        let _ = parse_save(&mutate(&save, &edits, cut), "m");
    }
}

/// Rewrites the save files of the corpus that are derived from a valid save:
/// `cargo test -p strata-tests --test fuzz_parsers -- --ignored regenerate`.
#[test]
#[ignore]
fn regenerate_save_corpus() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/save");
    let good = valid_save();
    std::fs::write(dir.join("good_small.strata"), &good).unwrap();
    std::fs::write(dir.join("truncated.strata"), &good[..good.len() * 2 / 3]).unwrap();
    let mut crc = good.clone();
    crc[17] ^= 0x40;
    std::fs::write(dir.join("bad_checksum.strata"), &crc).unwrap();
    let mut flipped = good.clone();
    let n = flipped.len();
    flipped[n / 2] ^= 0xff;
    std::fs::write(dir.join("flipped_body.strata"), &flipped).unwrap();
}
