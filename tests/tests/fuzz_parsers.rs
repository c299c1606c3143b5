//! Every parser of outside input, fed arbitrary and mutated bytes (proptest, 256 cases each so
//! CI stays fast; set `STRATA_FUZZ_CASES` for a long run) and the checked-in corpus
//! `tests/corpus/`: never a panic, always a typed error that names the input, and whatever a
//! loader accepts saves and loads back the same (law: Nothing is lost).
//!
//! Corpus layout: `tests/corpus/<parser>/<name>`, parser one of `preset_ron`, `preset_tres`,
//! `profile_toml`, `save`; files named `good_*` must load, every other file must be refused with
//! an error that names the file. Add any input that once crashed or misbehaved there.

use proptest::prelude::*;
use std::path::Path;
use strata_core::WorldPreset;
use strata_core::persist::profile::{InputDescriptor, Profile, ProfileError, ProfileStore, SettingValue};
use strata_core::persist::save::{
    SAVE_LIMITS, SaveError, WorldSave, decode_world_save, encode_world_save, encode_world_save_checked,
};
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

/// The number of cases of each property: `STRATA_FUZZ_CASES` when set (long runs, e.g.
/// `cargo xtask fuzz`), else 256 so CI takes seconds.
fn fuzz_cases() -> u32 {
    std::env::var("STRATA_FUZZ_CASES").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(256)
}

/// A save decoded from fuzzed bytes: refused with an error naming the file, or accepted and
/// then saved and loaded back unchanged.
fn check_save_bytes(bytes: &[u8]) -> Result<(), TestCaseError> {
    match decode_world_save(bytes, "fz.strata") {
        Err(e) => {
            prop_assert!(e.to_string().contains("fz.strata"), "{}", e);
            if let SaveError::Io { .. } = e {
                prop_assert!(false, "an I/O error from bytes in memory: {}", e);
            }
        }
        Ok(s) => {
            let again = encode_world_save_checked(&s, "again.strata", &SAVE_LIMITS);
            prop_assert!(again.is_ok(), "a loaded save does not save: {:?}", again.err().map(|e| e.to_string()));
            let back = decode_world_save(&again.unwrap_or_default(), "again.strata");
            prop_assert!(matches!(&back, Ok(b) if *b == s), "not the same after save and load");
        }
    }
    Ok(())
}

/// A profile parsed from fuzzed text: refused with an error naming the file, or accepted and
/// then saved and loaded back unchanged.
fn check_profile_text(text: &str, store: &ProfileStore) -> Result<(), TestCaseError> {
    match Profile::from_toml(text, "fz.toml") {
        Err(e) => prop_assert!(e.to_string().contains("fz.toml"), "{}", e),
        Ok(p) => {
            if let Err(e) = store.save("fuzz", &p) {
                prop_assert!(false, "a loaded profile does not save: {}", e);
            }
            let back = store.load("fuzz");
            prop_assert!(back.is_ok(), "{:?}", back.as_ref().err().map(|e| e.to_string()));
            // NaN inside an extra array never compares equal; compare the text instead.
            prop_assert_eq!(back.map(|b| b.to_toml()).unwrap_or_default(), p.to_toml());
        }
    }
    Ok(())
}

fn fuzz_store() -> ProfileStore {
    let d = std::env::temp_dir().join(format!("strata-fuzz-profiles-{}", std::process::id()));
    ProfileStore::new(d)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: fuzz_cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_saves_are_refused_cleanly_or_round_trip(edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..6), cut in 0usize..32) {
        check_save_bytes(&mutate(&valid_save(), &edits, cut))?;
    }

    #[test]
    fn mutated_profiles_are_refused_cleanly_or_round_trip(edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..6), cut in 0usize..32, extra in "[a-z_]{1,8} = [-0-9a-z.\"\\[\\], ]{0,16}") {
        let store = fuzz_store();
        let text = format!("{}\n[settings]\n{extra}\n", valid_profile());
        if let Ok(t) = std::str::from_utf8(&mutate(text.as_bytes(), &edits, cut)) {
            check_profile_text(t, &store)?;
        }
    }

    /// Settings and bindings set through the API: each set either is refused with a field
    /// error, or the profile saves and loads back the same.
    #[test]
    fn profiles_built_through_the_api_save_and_load(
        sets in proptest::collection::vec(("[a-z_]{1,10}|view_distance|fov|far_view|invert_y", -50i64..200, any::<bool>(), ".{0,40}", 0u8..4), 0..12),
        binds in proptest::collection::vec(("[a-z ]{1,12}", 0u32..200, 0u8..4), 0..6),
    ) {
        let store = fuzz_store();
        let mut p = Profile::default();
        for (key, i, b, text, kind) in sets {
            let v = match kind {
                0 => SettingValue::Int(i),
                1 => SettingValue::Float(i as f64 / 3.0),
                2 => SettingValue::Bool(b),
                _ => SettingValue::Text(text),
            };
            let before = p.clone();
            if let Err(e) = p.settings.set(&key, v) {
                prop_assert!(e.field.contains(&key) && !e.allowed.is_empty(), "{}", e);
                prop_assert_eq!(&p, &before, "a refused set changed the profile");
            }
        }
        for (action, code, kind) in binds {
            let input = match kind {
                0 => InputDescriptor::Key { physical: code },
                1 => InputDescriptor::MouseButton { button: code },
                2 => InputDescriptor::JoyButton { button: code },
                _ => InputDescriptor::JoyAxis { axis: code, direction: -1.0 },
            };
            let _ = p.set_binding(&action, vec![input], &[]);
        }
        // Whatever was accepted saves, and loads back the same.
        let saved = store.save("api", &p);
        prop_assert!(saved.is_ok(), "{:?}", saved.err().map(|e: ProfileError| e.to_string()));
        prop_assert_eq!(store.load("api").map_err(|e| e.to_string()), Ok(p));
    }

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
    // Well formed, but an edit holds a block id that no block has.
    let mut unknown = WorldSave::default();
    unknown.edits.set(strata_core::IVec3::new(3, 4, 5), strata_core::base::block::BLOCK_COUNT);
    std::fs::write(dir.join("unknown_block_id.strata"), encode_world_save(&unknown)).unwrap();
}
