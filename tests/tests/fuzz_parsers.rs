//! Every parser of outside input, fed arbitrary and mutated bytes (proptest, 256 cases each so
//! CI stays fast; set `STRATA_FUZZ_CASES` for a long run) and the checked-in corpus
//! `tests/corpus/`: never a panic, always a typed error that names the input, and whatever a
//! loader accepts saves and loads back the same (law: Nothing is lost).
//!
//! Corpus layout: `tests/corpus/<parser>/<name>`, parser one of `preset_ron`, `preset_tres`,
//! `profile_toml`, `save`; files named `good_*` must load, every other file must be refused with
//! an error that names the file. Add any input that once crashed or misbehaved there. The save
//! files whose names start with `v1_` or `good_v1_` are format 1, written by the format-1
//! encoder, and are kept as they are; the others are written by [`regenerate_save_corpus`].

use proptest::prelude::*;
use std::io::{Read, Write};
use std::path::Path;
use strata_core::WorldPreset;
use strata_core::base::block_library::{BlockDef, BlockFaces, BlockLibrary, RenderMode, default_library};
use strata_core::persist::profile::{InputDescriptor, Profile, ProfileError, ProfileStore, SettingValue};
use strata_core::persist::save::{
    HEADER_BYTES, SaveError, SaveOptions, WorldSave, decode_world_save, encode_world_save,
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
    decode_world_save(bytes, name, SaveOptions::default()).map(|_| ()).map_err(|e| e.to_string())
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
    encode_world_save(&s, "", SaveOptions::default().unchecked()).unwrap()
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
    check_save_bytes_with(bytes, default_library())
}

/// [`check_save_bytes`], the save's blocks read into `library`.
fn check_save_bytes_with(bytes: &[u8], library: &BlockLibrary) -> Result<(), TestCaseError> {
    match decode_world_save(bytes, "fz.strata", SaveOptions::default().library(library)) {
        Err(e) => {
            prop_assert!(e.to_string().contains("fz.strata"), "{}", e);
            if let SaveError::Io { .. } = e {
                prop_assert!(false, "an I/O error from bytes in memory: {}", e);
            }
        }
        Ok(s) => {
            let again = encode_world_save(&s, "again.strata", SaveOptions::default().library(library));
            prop_assert!(again.is_ok(), "a loaded save does not save: {:?}", again.err().map(|e| e.to_string()));
            let back =
                decode_world_save(&again.unwrap_or_default(), "again.strata", SaveOptions::default().library(library));
            prop_assert!(matches!(&back, Ok(b) if *b == s), "not the same after save and load");
        }
    }
    Ok(())
}

/// A library of the default blocks after air in `order` (indices, each used once; the rest
/// dropped), with `extra` new blocks at the end.
fn library_of(order: &[usize], extra: usize) -> BlockLibrary {
    let d = default_library().blocks();
    let new = |k: usize| BlockDef {
        name: format!("extra_{k}"),
        faces: BlockFaces::All("extra".into()),
        color: [0.5, 0.5, 0.5],
        render_mode: RenderMode::Opaque,
        solid: true,
        light_emission: 0,
        light_opacity: 15,
        hide_faces_between_same: false,
        tint: Default::default(),
    };
    let mut seen = std::collections::HashSet::new();
    let blocks = std::iter::once(d[0].clone())
        .chain(order.iter().filter(|&&i| (1..d.len()).contains(&i) && seen.insert(i)).map(|&i| d[i].clone()))
        .chain((0..extra).map(new))
        .collect();
    BlockLibrary::new(blocks).unwrap_or_default()
}

/// A save using every block of `library` but air, a few times each.
fn save_using(library: &BlockLibrary) -> WorldSave {
    let mut s = WorldSave::default();
    for id in 1..library.len() {
        for k in 0..3 {
            s.edits.set(strata_core::IVec3::new(id as i32 * 2, k * 40 - 40, -(id as i32)), id as u16);
        }
    }
    s
}

/// The decompressed payload of a save file (empty when it does not decompress).
fn payload_of(bytes: &[u8]) -> Vec<u8> {
    let mut payload = Vec::new();
    let _ = flate2::read::DeflateDecoder::new(&bytes[HEADER_BYTES.min(bytes.len())..]).read_to_end(&mut payload);
    payload
}

/// A format-2 file around `payload` with a correct header and CRC, so that decoding reaches it.
fn wrap_v2(payload: &[u8]) -> Vec<u8> {
    let mut crc = !0u32;
    for &b in payload {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xedb8_8320 } else { crc >> 1 };
        }
    }
    let mut out = b"STRATASV".to_vec();
    out.extend_from_slice(&2u16.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(&(!crc).to_le_bytes());
    let mut enc = flate2::write::DeflateEncoder::new(out, flate2::Compression::fast());
    let _ = enc.write_all(payload);
    enc.finish().unwrap_or_default()
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

    /// Saves written with one library, their payload (block table and runs) mutated behind a
    /// valid checksum, read into another library: refused naming the file, or loaded and then
    /// saved and loaded back the same.
    #[test]
    fn mutated_block_tables_are_refused_cleanly_or_round_trip(
        writer in (Just((1..default_library().len()).collect::<Vec<usize>>()).prop_shuffle(), 0usize..3),
        reader in (Just((1..default_library().len()).collect::<Vec<usize>>()).prop_shuffle(), prop_oneof![3 => Just(0usize), 1 => 1usize..4], 0usize..3),
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..4),
        cut in 0usize..8,
    ) {
        let writer = library_of(&writer.0, writer.1);
        // The reader lacks its last `reader.1` blocks of its order, and has `reader.2` new ones.
        let reader = library_of(&reader.0[..reader.0.len() - reader.1], reader.2);
        let unchecked = SaveOptions::default().library(&writer).unchecked();
        let bytes = encode_world_save(&save_using(&writer), "", unchecked).unwrap();
        // The table follows the preset, fingerprint and state: mutate from there on. An empty
        // save's payload is that head, then three zero counts (table, edits, chunks).
        let payload = payload_of(&bytes);
        let empty = encode_world_save(&WorldSave::default(), "", SaveOptions::default().unchecked()).unwrap();
        let head = payload_of(&empty).len().saturating_sub(3).min(payload.len());
        let mut tail = mutate(&payload[head..], &edits, cut);
        let mut mutated = payload[..head].to_vec();
        mutated.append(&mut tail);
        check_save_bytes_with(&wrap_v2(&mutated), &reader)?;
        check_save_bytes_with(&mutate(&bytes, &edits, cut), &reader)?;
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
        let _ = preset_from_tres_text(&format!("[gd_resource type=\"StrataWorldPreset\" format=3]\n[resource]\n{text}"), "fuzz");
        let _ = Profile::from_toml(&format!("version = 1\n[settings]\n{text}"), "fuzz");
        for version in [1u8, 2] {
            let mut framed = b"STRATASV".to_vec();
            framed.extend_from_slice(&[version, 0, 0, 0]);
            framed.extend_from_slice(&bytes);
            let _ = decode_world_save(&framed, "fuzz", SaveOptions::default());
        }
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

/// Rewrites the save files of the corpus that are derived from a valid save, in the current
/// format (the `v1_` and `good_v1_` files stay as the format-1 encoder wrote them):
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
    unknown.edits.set(strata_core::IVec3::new(3, 4, 5), default_library().len() as u16);
    std::fs::write(
        dir.join("unknown_block_id.strata"),
        encode_world_save(&unknown, "", SaveOptions::default().unchecked()).unwrap(),
    )
    .unwrap();
    // Well formed, but a block the built-in library does not have.
    let marble = library_of(&[1, 2], 1);
    let mut missing = WorldSave::default();
    missing.edits.set(strata_core::IVec3::new(-3, 4, 5), marble.id_of("extra_0").unwrap());
    std::fs::write(
        dir.join("missing_block_name.strata"),
        encode_world_save(&missing, "", SaveOptions::default().library(&marble).unchecked()).unwrap(),
    )
    .unwrap();
}
