//! World saves: size, round trips, a simulated crash, refusal of damaged or hostile files (with
//! byte offsets) before any large allocation, unknown block ids, and the law that a save is
//! never written that loading would refuse (each limit at its edge, and a property test). Block
//! tables: a save loads by block name into a library whose blocks are reordered or extended, a
//! block the library lacks is refused naming it, and format-1 saves still load.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use strata_core::IVec3;
use strata_core::WorldPreset;
use strata_core::base::atomic_file::{StopAt, write_atomic_with};
use strata_core::base::block::{BLOCK_COUNT, BlockId};
use strata_core::base::block_library::{BlockDef, BlockFaces, BlockLibrary, RenderMode, default_library};
use strata_core::base::edits::EditMap;
use strata_core::persist::save::{
    HEADER_BYTES, MAX_EDITS, MAX_PAYLOAD_BYTES, MAX_STATE_ENTRIES, MAX_STRING_BYTES, SAVE_LIMITS, SAVE_MAGIC,
    SAVE_VERSION_WITHOUT_FLOWS, SaveError, SaveLimits, SaveOptions, WorldSave, decode_world_save, encode_world_save,
    read_world_save, voxel_of, write_world_save,
};
use strata_core::preset::fingerprint::{fingerprint, preset_to_sparse_ron};

fn scratch(tag: &str) -> PathBuf {
    // Tests run in parallel and some share a tag: a counter keeps their folders apart.
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let d = std::env::temp_dir().join(format!("strata-saves-{tag}-{}-{n}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

/// A deterministic scatter of `n` edits over a 512 × 128 × 512 region (xorshift).
fn scattered(n: usize) -> EditMap {
    let mut e = EditMap::new();
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    while e.len() < n {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        let p = IVec3::new((s % 512) as i32 - 256, ((s >> 16) % 128) as i32 - 64, ((s >> 32) % 512) as i32 - 256);
        e.set(p, ((s >> 48) % 18) as u16);
    }
    e
}

fn sample_save(edits: usize) -> WorldSave {
    let mut state = BTreeMap::new();
    state.insert("time_of_day".to_string(), "0.375".to_string());
    state.insert("player_position".to_string(), "12.5,40,-3".to_string());
    WorldSave {
        preset: WorldPreset { seed: 99, ..WorldPreset::default() },
        edits: scattered(edits),
        state,
        ..WorldSave::default()
    }
}

#[test]
fn saves_are_small_and_round_trip() {
    let d = scratch("size");
    let empty = sample_save(0);
    let full = sample_save(1000);
    let (pe, pf) = (d.join("empty.strata"), d.join("full.strata"));
    write_world_save(&pe, &empty, SaveOptions::default()).unwrap();
    write_world_save(&pf, &full, SaveOptions::default()).unwrap();
    let (se, sf) = (fs::metadata(&pe).unwrap().len(), fs::metadata(&pf).unwrap().len());
    println!("save sizes: no edits {se} bytes, 1,000 scattered edits {sf} bytes");
    assert!(se < 1024, "empty save is {se} bytes");
    assert!(sf < 16 * 1024, "1,000-edit save is {sf} bytes");
    assert_eq!(read_world_save(&pe, SaveOptions::default()).unwrap(), empty);
    assert_eq!(read_world_save(&pf, SaveOptions::default()).unwrap(), full);
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn dense_builds_compress_to_runs() {
    let mut s = sample_save(0);
    for x in 0..64 {
        for z in 0..64 {
            s.edits.set(IVec3::new(x, 10, z), 1);
        }
    }
    let bytes = encode_world_save(&s, "", SaveOptions::default().unchecked()).unwrap();
    assert!(bytes.len() < 2048, "{} bytes for a 64×64 floor", bytes.len());
    assert_eq!(decode_world_save(&bytes, "f", SaveOptions::default()).unwrap(), s);
}

#[test]
fn crash_before_rename_keeps_the_old_save() {
    let d = scratch("crash");
    let path = d.join("world.strata");
    let old = sample_save(10);
    write_world_save(&path, &old, SaveOptions::default()).unwrap();
    let new = sample_save(500);
    // Power cut after the new bytes are on disk in the temp file, before the rename.
    let tmp = write_atomic_with(
        &path,
        &encode_world_save(&new, "", SaveOptions::default().unchecked()).unwrap(),
        StopAt::BeforeRename,
    )
    .unwrap();
    assert!(tmp.exists());
    assert_eq!(read_world_save(&path, SaveOptions::default()).unwrap(), old, "the old save survives and loads");
    fs::remove_dir_all(&d).unwrap();
}

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn string(out: &mut Vec<u8>, s: &str) {
    varint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

/// A format-1 file around `payload` with a correct header and CRC.
fn wrap(payload: &[u8]) -> Vec<u8> {
    wrap_version(1, payload)
}

/// A file of format `version` around `payload` with a correct header and CRC.
fn wrap_version(version: u16, payload: &[u8]) -> Vec<u8> {
    let mut out = SAVE_MAGIC.to_vec();
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(&crc32fast_hash(payload).to_le_bytes());
    let mut enc = flate2_deflate(out);
    enc.write_all(payload).unwrap();
    enc.finish().unwrap()
}

fn crc32fast_hash(bytes: &[u8]) -> u32 {
    // CRC-32 (IEEE), bitwise: the tests do not depend on the crate the encoder uses.
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xedb8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

fn flate2_deflate(out: Vec<u8>) -> flate2::write::DeflateEncoder<Vec<u8>> {
    flate2::write::DeflateEncoder::new(out, flate2::Compression::fast())
}

/// Payload prefix: a valid preset, its fingerprint and no state.
fn payload_head() -> Vec<u8> {
    let p = WorldPreset::default();
    let mut out = Vec::new();
    string(&mut out, &preset_to_sparse_ron(&p));
    string(&mut out, &fingerprint(&p));
    varint(&mut out, 0);
    out
}

#[test]
fn handmade_payload_matches_the_documented_layout() {
    let mut payload = payload_head();
    varint(&mut payload, 3); // edits
    varint(&mut payload, 1); // chunks
    payload.extend_from_slice(&[2, 0, 1]); // chunk (1, 0, -1) as zigzag deltas
    varint(&mut payload, 1); // one run
    payload.extend_from_slice(&[5, 2, 4]); // gap 5, length 3, sand
    let save = decode_world_save(&wrap(&payload), "hand.strata", SaveOptions::default()).unwrap();
    assert_eq!(save.edits.len(), 3);
    assert_eq!(save.edits.get(IVec3::new(32 + 6, 0, -32)), Some(4));
    assert!(encode_world_save(&save, "", SaveOptions::default().unchecked()).unwrap().len() > HEADER_BYTES);
}

#[test]
fn a_save_claiming_4_gb_is_refused_before_allocating() {
    let mut bytes = encode_world_save(&sample_save(5), "", SaveOptions::default().unchecked()).unwrap();
    bytes[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
    let e = decode_world_save(&bytes, "huge.strata", SaveOptions::default()).unwrap_err();
    let m = e.to_string();
    assert_eq!(e.offset(), Some(12), "{m}");
    assert!(
        m.contains("huge.strata") && m.contains("4294967295") && m.contains(&format!("at most {MAX_PAYLOAD_BYTES}")),
        "{m}"
    );

    // Inside the payload: 4 G edits, or 4 G chunks, declared in a few bytes.
    let mut payload = payload_head();
    let at = payload.len();
    varint(&mut payload, 4 << 30);
    varint(&mut payload, 0);
    let e = decode_world_save(&wrap(&payload), "edits.strata", SaveOptions::default()).unwrap_err();
    let m = e.to_string();
    assert_eq!(e.offset(), Some(at as u64), "{m}");
    assert!(
        m.contains("edit count") && m.contains(&format!("at most {MAX_EDITS}")) && m.contains("decompressed payload"),
        "{m}"
    );

    let mut payload = payload_head();
    varint(&mut payload, 1);
    varint(&mut payload, 4 << 30);
    let m = decode_world_save(&wrap(&payload), "chunks.strata", SaveOptions::default()).unwrap_err().to_string();
    assert!(m.contains("chunk count") && m.contains("claims 4294967296"), "{m}");

    // A run past the end of its chunk.
    let mut payload = payload_head();
    varint(&mut payload, 40_000);
    varint(&mut payload, 1);
    payload.extend_from_slice(&[0, 0, 0]);
    varint(&mut payload, 1);
    varint(&mut payload, 0);
    varint(&mut payload, 39_999);
    varint(&mut payload, 1);
    let m = decode_world_save(&wrap(&payload), "run.strata", SaveOptions::default()).unwrap_err().to_string();
    assert!(m.contains("edit run") && m.contains("below 32768"), "{m}");
}

#[test]
fn damaged_saves_give_typed_errors_with_offsets() {
    let good = encode_world_save(&sample_save(200), "", SaveOptions::default().unchecked()).unwrap();
    // Empty, garbage, wrong magic.
    let e = decode_world_save(&[], "w.strata", SaveOptions::default()).unwrap_err();
    assert!(e.to_string().contains("w.strata") && e.to_string().contains("empty"), "{e}");
    let e = decode_world_save(b"PK\x03\x04 zip file", "w.strata", SaveOptions::default()).unwrap_err();
    assert!(matches!(e, SaveError::NotASave { .. }) && e.to_string().contains("STRATASV"), "{e}");
    // Future version.
    let mut future = good.clone();
    future[8..10].copy_from_slice(&9u16.to_le_bytes());
    let e = decode_world_save(&future, "w.strata", SaveOptions::default()).unwrap_err();
    assert!(e.to_string().contains("newer Strata") && e.to_string().contains("format 9"), "{e}");
    // Truncated at every length: an error, never a panic.
    for len in (0..good.len()).step_by(7) {
        let e = decode_world_save(&good[..len], "t.strata", SaveOptions::default()).unwrap_err();
        assert!(e.to_string().contains("t.strata"), "{len}: {e}");
    }
    // A flipped bit anywhere in the body is caught (decompression, length or checksum).
    for i in (HEADER_BYTES..good.len()).step_by(11) {
        let mut bad = good.clone();
        bad[i] ^= 0x10;
        if let Ok(s) = decode_world_save(&bad, "c.strata", SaveOptions::default()) {
            // Deflate can (rarely) absorb a flip in unused bits; then the data must be intact.
            assert_eq!(s, sample_save(200), "flip at {i} changed data undetected");
        }
    }
    let mut bad = good.clone();
    bad[16] ^= 1;
    assert!(matches!(decode_world_save(&bad, "c.strata", SaveOptions::default()), Err(SaveError::Checksum { .. })));
    // Trailing junk after the chunks.
    let mut payload = payload_head();
    varint(&mut payload, 0);
    varint(&mut payload, 0);
    payload.push(7);
    let e = decode_world_save(&wrap(&payload), "j.strata", SaveOptions::default()).unwrap_err();
    assert!(e.to_string().contains("trailing"), "{e}");
}

#[test]
fn fingerprint_and_preset_are_checked() {
    let p = WorldPreset::default();
    let mut payload = Vec::new();
    string(&mut payload, &preset_to_sparse_ron(&p));
    string(&mut payload, "0123456789abcdef");
    varint(&mut payload, 0);
    varint(&mut payload, 0);
    varint(&mut payload, 0);
    let e = decode_world_save(&wrap(&payload), "fp.strata", SaveOptions::default()).unwrap_err();
    assert!(matches!(e, SaveError::Fingerprint { .. }), "{e}");
    assert!(e.to_string().contains("0123456789abcdef"));

    let mut payload = Vec::new();
    string(&mut payload, "(name: \"\", seed: 0, changes: {\"height\": {\"octaves\": 0}})");
    let e = decode_world_save(&wrap(&payload), "pr.strata", SaveOptions::default()).unwrap_err();
    let m = e.to_string();
    assert!(m.contains("pr.strata") && m.contains("height_octaves") && m.contains("1..=12"), "{m}");
}

#[test]
fn read_errors_leave_the_file_alone() {
    let d = scratch("alone");
    let path = d.join("w.strata");
    let mut bytes = encode_world_save(&sample_save(50), "", SaveOptions::default().unchecked()).unwrap();
    bytes.truncate(bytes.len() - 10);
    fs::write(&path, &bytes).unwrap();
    assert!(read_world_save(&path, SaveOptions::default()).is_err());
    assert_eq!(fs::read(&path).unwrap(), bytes);
    let e = read_world_save(&d.join("nope.strata"), SaveOptions::default()).unwrap_err();
    assert!(e.to_string().contains("nope.strata"), "{e}");
    // Refused write of an invalid preset: the old file stays.
    let good = sample_save(3);
    write_world_save(&path, &good, SaveOptions::default()).unwrap();
    let before = fs::read(&path).unwrap();
    let mut bad = good.clone();
    bad.preset.height.octaves = 99;
    assert!(write_world_save(&path, &bad, SaveOptions::default()).is_err());
    assert_eq!(fs::read(&path).unwrap(), before);
    fs::remove_dir_all(&d).unwrap();
}

/// The number of proptest cases: `STRATA_FUZZ_CASES` (for long runs), else `default`.
fn fuzz_cases(default: u32) -> u32 {
    std::env::var("STRATA_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[test]
fn unknown_block_ids_are_refused_on_load_naming_the_first_bad_edit() {
    for id in [BLOCK_COUNT as u64, 200, 65_535, 70_000] {
        let mut payload = payload_head();
        varint(&mut payload, 4); // edits
        varint(&mut payload, 1); // chunks
        payload.extend_from_slice(&[2, 0, 1]); // chunk (1, 0, -1)
        varint(&mut payload, 2); // two runs
        payload.extend_from_slice(&[5, 1, 4]); // gap 5, length 2, sand: fine
        let id_at = payload.len() + 2;
        payload.extend_from_slice(&[3, 1]); // gap 3 (index 10), length 2 …
        varint(&mut payload, id); // … of an unknown block
        let e = decode_world_save(&wrap(&payload), "ids.strata", SaveOptions::default()).unwrap_err();
        let m = e.to_string();
        // Index 10 of chunk (1, 0, -1): x 32 + 10, y 0, z −32.
        assert!(
            matches!(e, SaveError::UnknownBlock { id: i, at, .. } if i == id && at == IVec3::new(42, 0, -32)),
            "{m}"
        );
        assert_eq!(e.offset(), Some(id_at as u64), "{m}");
        assert!(
            m.contains("ids.strata")
                && m.contains("(42, 0, -32)")
                && m.contains(&format!("block id {id}"))
                && m.contains(&format!("0..={}", BLOCK_COUNT - 1)),
            "{m}"
        );
    }
    // The last known id loads.
    let mut payload = payload_head();
    varint(&mut payload, 1);
    varint(&mut payload, 1);
    payload.extend_from_slice(&[0, 0, 0, 1, 0, 0]);
    varint(&mut payload, BLOCK_COUNT as u64 - 1);
    assert_eq!(decode_world_save(&wrap(&payload), "ok.strata", SaveOptions::default()).unwrap().edits.len(), 1);
}

#[test]
fn unknown_block_ids_are_refused_on_save_and_the_old_file_kept() {
    let d = scratch("ids");
    let path = d.join("w.strata");
    let good = sample_save(20);
    write_world_save(&path, &good, SaveOptions::default()).unwrap();
    let before = fs::read(&path).unwrap();
    let mut bad = good.clone();
    let unknown = default_library().len() as BlockId;
    bad.edits.set(IVec3::new(-5, 7, 900), unknown);
    bad.edits.set(IVec3::new(1000, 7, 900), 999);
    let e = write_world_save(&path, &bad, SaveOptions::default()).unwrap_err();
    let m = e.to_string();
    assert!(matches!(e, SaveError::UnknownBlock { .. }), "{m}");
    assert!(m.contains("w.strata") && m.contains("(-5, 7, 900)") && m.contains(&format!("block id {unknown}")), "{m}");
    assert!(m.contains(&format!("allowed: block ids 0..={}", unknown - 1)), "{m}");
    assert!(m.contains("previous file is unchanged"), "{m}");
    assert_eq!(fs::read(&path).unwrap(), before);
    fs::remove_dir_all(&d).unwrap();
}

/// `write_world_save` refuses `bad` with a message containing every `needles`, and leaves the
/// previous file as it was.
fn refused(bad: &WorldSave, needles: &[&str]) {
    let d = scratch("refused");
    let path = d.join("w.strata");
    write_world_save(&path, &sample_save(3), SaveOptions::default()).unwrap();
    let before = fs::read(&path).unwrap();
    let m = write_world_save(&path, bad, SaveOptions::default()).unwrap_err().to_string();
    for n in needles {
        assert!(m.contains(n), "missing {n:?} in: {m}");
    }
    assert!(m.contains("w.strata") && m.contains("allowed"), "{m}");
    assert_eq!(fs::read(&path).unwrap(), before, "the previous save is untouched");
    fs::remove_dir_all(&d).unwrap();
}

/// `write_world_save` writes `ok` and `read_world_save` gives it back exactly.
fn saved_and_loaded(ok: &WorldSave) {
    let d = scratch("edge");
    let path = d.join("w.strata");
    write_world_save(&path, ok, SaveOptions::default()).unwrap();
    assert!(read_world_save(&path, SaveOptions::default()).unwrap() == *ok, "round trip at the edge");
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn save_refuses_game_state_beyond_the_load_limits() {
    // Entries: the most allowed saves and loads, one more is refused.
    let mut s = sample_save(5);
    s.state.clear();
    for i in 0..MAX_STATE_ENTRIES {
        s.state.insert(format!("k{i}"), String::new());
    }
    saved_and_loaded(&s);
    s.state.insert("one_more".into(), "x".into());
    refused(
        &s,
        &["game state", &format!("{} entries", MAX_STATE_ENTRIES + 1), &format!("at most {MAX_STATE_ENTRIES}")],
    );

    // A value of exactly the limit saves; one byte more is refused, naming the key.
    let mut s = sample_save(5);
    s.state.insert("map".into(), "a".repeat(MAX_STRING_BYTES as usize));
    saved_and_loaded(&s);
    s.state.insert("map".into(), "a".repeat(MAX_STRING_BYTES as usize + 1));
    refused(&s, &["\"map\"", &format!("{} bytes", MAX_STRING_BYTES + 1), &format!("at most {MAX_STRING_BYTES} bytes")]);
    // Same for a key.
    let mut s = sample_save(5);
    s.state.insert("k".repeat(MAX_STRING_BYTES as usize + 1), String::new());
    refused(&s, &["game state key", &format!("at most {MAX_STRING_BYTES} bytes")]);
}

#[test]
fn save_refuses_a_preset_name_of_megabytes() {
    let mut s = sample_save(5);
    s.preset.name = "n".repeat(2 << 20);
    refused(&s, &["the preset", "its name alone is 2097152 bytes", &format!("at most {MAX_STRING_BYTES} bytes")]);
    // A long name within the limit saves and loads.
    s.preset.name = "Ünïcode name ".repeat(1000);
    saved_and_loaded(&s);
}

#[test]
fn save_refuses_more_edits_than_load_accepts() {
    // MAX_EDITS voxels exactly fill 512 chunks; a dense fill saves as a few runs per chunk.
    let mut s = sample_save(0);
    let side = 8 * 32; // 8 × 8 × 8 chunks
    for y in 0..side {
        for z in 0..side {
            for x in 0..side {
                s.edits.set(IVec3::new(x, y, z), 1);
            }
        }
    }
    assert_eq!(s.edits.len() as u64, MAX_EDITS);
    s.edits.set(IVec3::new(-1, 0, 0), 2);
    refused(&s, &["the edit count", &format!("{} edited voxels", MAX_EDITS + 1), &format!("at most {MAX_EDITS}")]);
    s.edits.clear_at(IVec3::new(-1, 0, 0));
    saved_and_loaded(&s);
}

#[test]
fn the_payload_and_file_limits_are_checked_on_save() {
    // Small limits make the size limits reachable: random text compresses badly.
    let mut s = sample_save(0);
    let mut x = 1u64;
    let noise: String = (0..3000)
        .map(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            char::from(b'!' + (x >> 58) as u8)
        })
        .collect();
    s.state.insert("noise".into(), noise);
    let small = SaveLimits { max_payload_bytes: 2000, ..SAVE_LIMITS };
    let m = encode_world_save(&s, "p.strata", SaveOptions::default().limits(small)).unwrap_err().to_string();
    assert!(m.contains("before compression") && m.contains("at most 2000 bytes"), "{m}");
    assert!(
        decode_world_save(
            &encode_world_save(&s, "", SaveOptions::default().unchecked()).unwrap(),
            "p.strata",
            SaveOptions::default().limits(small)
        )
        .is_err()
    );
    let small = SaveLimits { max_file_bytes: 1000, ..SAVE_LIMITS };
    let m = encode_world_save(&s, "f.strata", SaveOptions::default().limits(small)).unwrap_err().to_string();
    assert!(m.contains("the save file") && m.contains("at most 1000 bytes"), "{m}");
    assert!(
        decode_world_save(
            &encode_world_save(&s, "", SaveOptions::default().unchecked()).unwrap(),
            "f.strata",
            SaveOptions::default().limits(small)
        )
        .is_err()
    );
}

#[cfg(unix)]
#[test]
fn saving_through_a_symlink_keeps_the_link_and_dev_null_is_refused() {
    let d = scratch("links");
    let real = d.join("slots/slot1.strata");
    fs::create_dir_all(real.parent().unwrap()).unwrap();
    write_world_save(&real, &sample_save(3), SaveOptions::default()).unwrap();
    let link = d.join("current.strata");
    std::os::unix::fs::symlink("slots/slot1.strata", &link).unwrap();
    let s = sample_save(40);
    write_world_save(&link, &s, SaveOptions::default()).unwrap();
    assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(read_world_save(&real, SaveOptions::default()).unwrap(), s);
    let e = write_world_save(std::path::Path::new("/dev/null"), &s, SaveOptions::default()).unwrap_err();
    let m = e.to_string();
    assert!(matches!(e, SaveError::Io { .. }) && m.contains("/dev/null") && m.contains("character device"), "{m}");
    let e = write_world_save(&d, &s, SaveOptions::default()).unwrap_err();
    assert!(e.to_string().contains("a folder"), "{e}");
    fs::remove_dir_all(&d).unwrap();
}

/// Small limits, so that random saves fall on both sides of each.
const SMALL: SaveLimits = SaveLimits {
    max_file_bytes: 1400,
    max_payload_bytes: 2600,
    max_edits: 40,
    max_state_entries: 6,
    max_string_bytes: 420,
};

fn arb_save() -> impl Strategy<Value = WorldSave> {
    let known = default_library().len() as BlockId;
    let edit = (-70_000i32..70_000, -300i32..300, -70_000i32..70_000, 0u16..(known + 3));
    let local = (0i32..40, 0i32..40, 0i32..40, 0u16..(known + 1));
    (
        proptest::collection::vec(edit, 0..24),
        proptest::collection::vec(local, 0..40),
        proptest::collection::btree_map(".{0,12}", ".{0,200}", 0..9),
        (".{0,300}", any::<u64>(), 0u32..15),
        proptest::bool::weighted(0.05),
    )
        .prop_map(|(far, near, state, (name, seed, octaves), huge_value)| {
            let mut s = WorldSave::default();
            for (x, y, z, id) in far.into_iter().chain(near) {
                s.edits.set(IVec3::new(x, y, z), id);
            }
            s.state = state;
            if huge_value {
                s.state.insert("big".into(), "v".repeat(500));
            }
            s.preset.name = name;
            s.preset.seed = seed;
            s.preset.height.octaves = octaves;
            s
        })
}

use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: fuzz_cases(256), failure_persistence: None, ..ProptestConfig::default() })]

    /// Law: Nothing is lost. Under the same limits, `save` succeeds exactly when `load` of what
    /// it would write succeeds and gives the save back; and both agree with the limits computed
    /// here from the save itself.
    #[test]
    fn save_succeeds_iff_load_round_trips(s in arb_save()) {
        let unchecked = encode_world_save(&s, "", SaveOptions::default().unchecked()).unwrap();
        let saved = encode_world_save(&s, "p.strata", SaveOptions::default().limits(SMALL));
        let loaded = decode_world_save(&unchecked, "p.strata", SaveOptions::default().limits(SMALL));
        let round_trips = matches!(&loaded, Ok(back) if *back == s);
        prop_assert_eq!(saved.is_ok(), round_trips, "save {:?} / load {:?}", saved.as_ref().err().map(|e| e.to_string()), loaded.as_ref().err().map(|e| e.to_string()));
        if let Ok(bytes) = &saved {
            prop_assert_eq!(bytes, &unchecked);
        }
        // The limits, computed independently of the encoder.
        let declared = u32::from_le_bytes([unchecked[12], unchecked[13], unchecked[14], unchecked[15]]);
        let max = SMALL.max_string_bytes as usize;
        let within = s.edits.len() as u64 <= SMALL.max_edits
            && s.edits.chunks_sorted().iter().all(|(_, m)| m.values().all(|&id| (id as usize) < default_library().len()))
            && s.state.len() as u64 <= SMALL.max_state_entries
            && s.state.iter().all(|(k, v)| k.len() <= max && v.len() <= max)
            && preset_to_sparse_ron(&s.preset).len() <= max
            && (1..=12).contains(&s.preset.height.octaves)
            && declared <= SMALL.max_payload_bytes
            && unchecked.len() as u64 <= SMALL.max_file_bytes;
        prop_assert_eq!(saved.is_ok(), within, "{:?}", saved.as_ref().err().map(|e| e.to_string()));
        if let Err(e) = &saved {
            let m = e.to_string();
            prop_assert!(m.contains("p.strata") && m.contains("allowed"), "{}", m);
        }
    }
}

// ------------------------------------------------------------------------------------------------
// Block tables (format 2) and format 1

/// Every edit of `e` with its block's name in `library`.
fn named_edits(e: &EditMap, library: &BlockLibrary) -> Vec<(IVec3, String)> {
    e.chunks_sorted()
        .into_iter()
        .flat_map(|(c, m)| m.iter().map(move |(&i, &id)| (voxel_of(c, i), id)).collect::<Vec<_>>())
        .map(|(p, id)| (p, library.name_of(id).unwrap_or("<no such block>").to_string()))
        .collect()
}

fn block(name: &str) -> BlockDef {
    BlockDef {
        name: name.into(),
        faces: BlockFaces::All(name.into()),
        color: [0.3, 0.3, 0.3],
        render_mode: RenderMode::Opaque,
        solid: true,
        light_emission: 0,
        light_opacity: 15,
        hide_faces_between_same: false,
        tint: Default::default(),
    }
}

/// The default library with its blocks after air in `order` (indices into the default blocks),
/// then `extra` new blocks.
fn library_of(order: &[usize], extra: &[&str]) -> BlockLibrary {
    let d = default_library().blocks();
    let blocks = std::iter::once(d[0].clone())
        .chain(order.iter().map(|&i| d[i].clone()))
        .chain(extra.iter().map(|n| block(n)))
        .collect();
    BlockLibrary::new(blocks).unwrap()
}

/// A save that uses every block of the default library but air, torch (18) among them.
fn every_block_save() -> WorldSave {
    let mut s = sample_save(300);
    for id in 1..default_library().len() as BlockId {
        s.edits.set(IVec3::new(id as i32 * 3, -20, 7), id);
    }
    s
}

#[test]
fn a_save_loads_into_a_reordered_and_extended_library_by_name() {
    let d = scratch("reorder");
    let path = d.join("w.strata");
    let s = every_block_save();
    write_world_save(&path, &s, SaveOptions::default()).unwrap();
    // New blocks before, between and after, and every old block at a different id.
    let n = default_library().len();
    let order: Vec<usize> = (1..n).rev().collect();
    let lib = library_of(&order, &["marble", "basalt"]);
    let lib = {
        let mut blocks = lib.into_blocks();
        blocks.insert(1, block("obsidian"));
        blocks.insert(9, block("slate"));
        BlockLibrary::new(blocks).unwrap()
    };
    assert_ne!(lib.id_of("stone"), default_library().id_of("stone"));
    let back = read_world_save(&path, SaveOptions::default().library(&lib)).unwrap();
    assert_eq!(back.edits.len(), s.edits.len());
    assert_eq!(named_edits(&back.edits, &lib), named_edits(&s.edits, default_library()));
    assert_eq!((back.preset, back.state), (s.preset.clone(), s.state.clone()));
    // Written again with that library, it loads back into the default one unchanged.
    write_world_save(
        &path,
        &read_world_save(&path, SaveOptions::default().library(&lib)).unwrap(),
        SaveOptions::default().library(&lib),
    )
    .unwrap();
    assert_eq!(read_world_save(&path, SaveOptions::default()).unwrap(), s);
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_block_missing_from_the_library_is_refused_naming_it() {
    let d = scratch("missing");
    let path = d.join("w.strata");
    let mut s = sample_save(50);
    let torch = default_library().id_of("torch").unwrap();
    // The first torch in chunk, then voxel order: chunk (-1, 0, 0) comes before chunk (0, 0, 0).
    s.edits.set(IVec3::new(5, 1, 2), torch);
    s.edits.set(IVec3::new(-3, 4, 6), torch);
    write_world_save(&path, &s, SaveOptions::default()).unwrap();
    let before = fs::read(&path).unwrap();
    let n = default_library().len();
    let without_torch: Vec<usize> = (1..n).filter(|&i| i != torch as usize).collect();
    let lib = library_of(&without_torch, &["marble"]);
    let e = read_world_save(&path, SaveOptions::default().library(&lib)).unwrap_err();
    let m = e.to_string();
    assert!(
        matches!(&e, SaveError::MissingBlock { name, at, .. } if name == "torch" && *at == IVec3::new(-3, 4, 6)),
        "{m}"
    );
    assert!(e.offset().is_some(), "{m}");
    assert!(
        m.contains(&path.display().to_string())
            && m.contains("\"torch\"")
            && m.contains("(-3, 4, 6)")
            && m.contains("allowed: the library's blocks: air, stone, dirt")
            && m.contains("marble"),
        "{m}"
    );
    assert_eq!(fs::read(&path).unwrap(), before, "reading never changes the file");
    // The unused entries of a table do not matter: a save without torch loads into that library.
    let mut no_torch = s.clone();
    no_torch.edits.clear_at(IVec3::new(5, 1, 2));
    no_torch.edits.clear_at(IVec3::new(-3, 4, 6));
    let bytes = encode_world_save(&no_torch, "", SaveOptions::default().unchecked()).unwrap();
    let back = decode_world_save(&bytes, "n.strata", SaveOptions::default().library(&lib)).unwrap();
    assert_eq!(named_edits(&back.edits, &lib), named_edits(&no_torch.edits, default_library()));
    fs::remove_dir_all(&d).unwrap();
}

/// `save` in format 1 as the format-1 encoder wrote it: no block table, the built-in ids.
fn v1_bytes(save: &WorldSave) -> Vec<u8> {
    let mut out = Vec::new();
    string(&mut out, &preset_to_sparse_ron(&save.preset));
    string(&mut out, &fingerprint(&save.preset));
    varint(&mut out, save.state.len() as u64);
    for (k, v) in &save.state {
        string(&mut out, k);
        string(&mut out, v);
    }
    varint(&mut out, save.edits.len() as u64);
    let chunks = save.edits.chunks_sorted();
    varint(&mut out, chunks.len() as u64);
    let zigzag = |v: i64| ((v << 1) ^ (v >> 63)) as u64;
    let mut prev = [0i64; 3];
    for (c, edits) in chunks {
        let now = [c.x as i64, c.y as i64, c.z as i64];
        for a in 0..3 {
            varint(&mut out, zigzag(now[a] - prev[a]));
        }
        prev = now;
        let mut runs: Vec<(u32, u32, BlockId)> = Vec::new();
        for (&i, &id) in edits {
            match runs.last_mut() {
                Some((start, len, rid)) if *rid == id && *start + *len == i as u32 => *len += 1,
                _ => runs.push((i as u32, 1, id)),
            }
        }
        varint(&mut out, runs.len() as u64);
        let mut next = 0;
        for (start, len, id) in runs {
            varint(&mut out, (start - next) as u64);
            varint(&mut out, len as u64 - 1);
            varint(&mut out, id as u64);
            next = start + len;
        }
    }
    wrap(&out)
}

#[test]
fn version_1_saves_still_load_with_the_same_edits() {
    let s = sample_save(500);
    assert!(s.edits.chunks_sorted().iter().all(|(_, m)| m.values().all(|&id| id < BLOCK_COUNT)));
    let v1 = v1_bytes(&s);
    assert_eq!(u16::from_le_bytes([v1[8], v1[9]]), 1);
    assert_eq!(decode_world_save(&v1, "v1.strata", SaveOptions::default()).unwrap(), s);
    // Into a reordered library: the same blocks by name.
    let n = default_library().len();
    let lib = library_of(&(1..n).rev().collect::<Vec<_>>(), &["marble"]);
    let back = decode_world_save(&v1, "v1.strata", SaveOptions::default().library(&lib)).unwrap();
    assert_eq!(named_edits(&back.edits, &lib), named_edits(&s.edits, default_library()));
    // Saving it again writes the current format, which loads the same.
    let again = encode_world_save(&s, "v2.strata", SaveOptions::default()).unwrap();
    assert_eq!(u16::from_le_bytes([again[8], again[9]]), SAVE_VERSION_WITHOUT_FLOWS);
    assert_eq!(decode_world_save(&again, "v2.strata", SaveOptions::default()).unwrap(), s);

    // The committed format-1 file (written by the format-1 encoder) loads with its edits.
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/save/good_v1_small.strata");
    let bytes = fs::read(&corpus).unwrap();
    assert_eq!(u16::from_le_bytes([bytes[8], bytes[9]]), 1);
    let loaded = decode_world_save(&bytes, "good_v1_small.strata", SaveOptions::default()).unwrap();
    // Written with the built-in default preset of its day: preset format 1's.
    let mut expected = WorldSave { preset: WorldPreset::format1_default(), ..WorldSave::default() };
    for i in 0..30 {
        expected.edits.set(IVec3::new(i * 5, i - 10, -i * 3), (i % 7) as u16);
    }
    expected.state.insert("time".into(), "1".into());
    assert_eq!(loaded, expected);
    // The format-1 encoder of this test writes exactly what the real one did.
    assert_eq!(payload_of(&v1_bytes(&expected)), payload_of(&bytes));
    let back = decode_world_save(&bytes, "good_v1_small.strata", SaveOptions::default().library(&lib)).unwrap();
    assert_eq!(named_edits(&back.edits, &lib), named_edits(&expected.edits, default_library()));
    // A block format 1 had, missing from the library, is refused naming it.
    let no_dirt = library_of(&(1..n).filter(|&i| i != 2).collect::<Vec<_>>(), &[]);
    let e = decode_world_save(&bytes, "good_v1_small.strata", SaveOptions::default().library(&no_dirt)).unwrap_err();
    assert!(matches!(&e, SaveError::MissingBlock { name, .. } if name == "dirt"), "{e}");
}

/// Payload: the head, a block table of `table` (id, name) and one chunk at (0, 0, 0) with one
/// run of `len` voxels of file id `id` at index `start`.
fn v2_payload(table: &[(u64, &str)], start: u64, len: u64, id: u64) -> (Vec<u8>, usize) {
    let mut payload = payload_head();
    varint(&mut payload, table.len() as u64);
    for &(i, name) in table {
        varint(&mut payload, i);
        string(&mut payload, name);
    }
    varint(&mut payload, len); // edits
    varint(&mut payload, 1); // chunks
    payload.extend_from_slice(&[0, 0, 0]);
    varint(&mut payload, 1); // one run
    varint(&mut payload, start);
    varint(&mut payload, len - 1);
    let id_at = payload.len();
    varint(&mut payload, id);
    (payload, id_at)
}

#[test]
fn handmade_v2_payload_matches_the_documented_layout() {
    // The file's ids need not be the library's: they are names in the table.
    let (payload, _) = v2_payload(&[(3, "stone"), (700, "torch")], 5, 3, 700);
    let save = decode_world_save(&wrap_version(2, &payload), "hand2.strata", SaveOptions::default()).unwrap();
    let torch = default_library().id_of("torch").unwrap();
    assert_eq!(save.edits.len(), 3);
    assert_eq!(save.edits.get(IVec3::new(5, 0, 0)), Some(torch));
    assert_eq!(save.edits.get(IVec3::new(7, 0, 0)), Some(torch));
    // The writer lists exactly the blocks used, by their library ids, in order.
    let mut s = WorldSave::default();
    s.edits.set(IVec3::new(1, 0, 0), torch);
    s.edits.set(IVec3::new(2, 0, 0), 4);
    let mut expected = payload_head();
    varint(&mut expected, 2); // table entries
    varint(&mut expected, 4);
    string(&mut expected, "sand");
    varint(&mut expected, torch as u64);
    string(&mut expected, "torch");
    varint(&mut expected, 2); // edits
    varint(&mut expected, 1); // chunks
    expected.extend_from_slice(&[0, 0, 0]); // chunk (0, 0, 0)
    varint(&mut expected, 2); // runs
    expected.extend_from_slice(&[1, 0, torch as u8]); // gap 1, length 1, torch
    expected.extend_from_slice(&[0, 0, 4]); // gap 0, length 1, sand
    assert_eq!(decode_world_save(&wrap_version(2, &expected), "e.strata", SaveOptions::default()).unwrap(), s);
    // The writer writes format 3: the same, then an empty entity section (no scenes, no removed
    // spawns, no kept entities, no harvested decorations).
    let bytes = encode_world_save(&s, "", SaveOptions::default().unchecked()).unwrap();
    assert_eq!(u16::from_le_bytes([bytes[8], bytes[9]]), 3);
    expected.extend_from_slice(&[0, 0, 0, 0]);
    assert_eq!(payload_of(&bytes), expected);
    assert_eq!(decode_world_save(&wrap_version(3, &expected), "e.strata", SaveOptions::default()).unwrap(), s);
}

/// The decompressed payload of a save file.
fn payload_of(bytes: &[u8]) -> Vec<u8> {
    let mut payload = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::DeflateDecoder::new(&bytes[HEADER_BYTES..]), &mut payload).unwrap();
    payload
}

#[test]
fn damaged_block_tables_are_refused_with_offsets() {
    let file = |table: &[(u64, &str)], id: u64| {
        let (payload, id_at) = v2_payload(table, 0, 1, id);
        (decode_world_save(&wrap_version(2, &payload), "t.strata", SaveOptions::default()), id_at)
    };
    // A run whose id the table lacks.
    let (r, id_at) = file(&[(1, "stone"), (2, "dirt")], 9);
    let e = r.unwrap_err();
    let m = e.to_string();
    assert!(matches!(e, SaveError::UnknownBlock { id: 9, at, .. } if at == IVec3::new(0, 0, 0)), "{m}");
    assert_eq!(e.offset(), Some(id_at as u64), "{m}");
    assert!(m.contains("t.strata") && m.contains("the ids of the save's block table: 1, 2"), "{m}");
    let m = file(&[], 0).0.unwrap_err().to_string();
    assert!(m.contains("block id 0") && m.contains("block table is empty"), "{m}");
    // Out of order, repeated, bad and duplicate names.
    for (table, needles) in [
        (&[(2, "stone"), (1, "dirt")][..], &["block table id", "1 is out of order", "increasing"][..]),
        (&[(2, "stone"), (2, "dirt")][..], &["block table id", "2 is out of order"][..]),
        (&[(1, "Stone")][..], &["block table name", "\"Stone\"", "a-z, 0-9 and _"][..]),
        (&[(1, "")][..], &["block table name", "1..=64"][..]),
        (&[(1, "stone"), (2, "stone")][..], &["block table name", "\"stone\" is named twice", "each name once"][..]),
    ] {
        let e = file(table, 1).0.unwrap_err();
        let m = e.to_string();
        assert!(matches!(e, SaveError::Corrupt { in_payload: true, .. }), "{m}");
        for n in needles {
            assert!(m.contains(n), "missing {n:?} in: {m}");
        }
    }
    let long = "a".repeat(65);
    let m = file(&[(1, &long)], 1).0.unwrap_err().to_string();
    assert!(m.contains("block table name") && m.contains("at most 64"), "{m}");
    // A table id beyond u16 and a count beyond what the payload holds.
    let m = file(&[(70_000, "stone")], 70_000).0.unwrap_err().to_string();
    assert!(m.contains("block table id") && m.contains("at most 65535"), "{m}");
    let mut payload = payload_head();
    let at = payload.len();
    varint(&mut payload, 1 << 16);
    let e = decode_world_save(&wrap_version(2, &payload), "c.strata", SaveOptions::default()).unwrap_err();
    assert_eq!(e.offset(), Some(at as u64), "{e}");
    assert!(e.to_string().contains("block table count") && e.to_string().contains("claims 65536"), "{e}");
}

#[test]
fn saving_with_a_library_checks_its_ids_and_keeps_the_old_file() {
    let d = scratch("libids");
    let path = d.join("w.strata");
    let lib = library_of(&[1, 2, 3], &["marble"]);
    let mut s = sample_save(0);
    s.edits.set(IVec3::new(1, 2, 3), 4);
    write_world_save(&path, &s, SaveOptions::default().library(&lib)).unwrap();
    let before = fs::read(&path).unwrap();
    assert_eq!(read_world_save(&path, SaveOptions::default().library(&lib)).unwrap(), s);
    // Marble is unknown to the default library: a clear refusal, not another block.
    let e = read_world_save(&path, SaveOptions::default()).unwrap_err();
    assert!(matches!(&e, SaveError::MissingBlock { name, .. } if name == "marble"), "{e}");
    s.edits.set(IVec3::new(-9, 2, 3), 5);
    let e = write_world_save(&path, &s, SaveOptions::default().library(&lib)).unwrap_err();
    let m = e.to_string();
    assert!(matches!(e, SaveError::UnknownBlock { saving: true, .. }), "{m}");
    assert!(m.contains("(-9, 2, 3)") && m.contains("block id 5") && m.contains("allowed: block ids 0..=4"), "{m}");
    assert!(m.contains("previous file is unchanged"), "{m}");
    assert_eq!(fs::read(&path).unwrap(), before);
    fs::remove_dir_all(&d).unwrap();
}

/// A random library: the default blocks after air in a random order, with a few new ones.
fn arb_library() -> impl Strategy<Value = BlockLibrary> {
    let n = default_library().len();
    (Just((1..n).collect::<Vec<usize>>()).prop_shuffle(), proptest::collection::vec(0usize..n, 0..4)).prop_map(
        |(order, extra_at)| {
            let mut lib = library_of(&order, &[]).into_blocks();
            for (k, at) in extra_at.into_iter().enumerate() {
                lib.insert(at.max(1).min(lib.len()), block(&format!("extra_{k}")));
            }
            BlockLibrary::new(lib).unwrap()
        },
    )
}

fn arb_named_edits() -> impl Strategy<Value = Vec<(IVec3, BlockId)>> {
    let n = default_library().len() as BlockId;
    proptest::collection::vec(((-200i32..200, -40i32..40, -200i32..200), 0..n), 0..120)
        .prop_map(|v| v.into_iter().map(|((x, y, z), id)| (IVec3::new(x, y, z), id)).collect())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: fuzz_cases(128), failure_persistence: None, ..ProptestConfig::default() })]

    /// Edits written with one library load into another by block name, whatever the order of
    /// either; written and read with the same library they round-trip exactly.
    #[test]
    fn edits_round_trip_by_name_through_permuted_libraries(
        edits in arb_named_edits(),
        writer in arb_library(),
        reader in arb_library(),
    ) {
        // The edits' ids are default ids; as the writer's ids they name the same blocks.
        let mut s = WorldSave::default();
        for (p, id) in edits {
            let name = default_library().name_of(id).unwrap();
            s.edits.set(p, writer.id_of(name).unwrap());
        }
        let bytes = encode_world_save(&s, "p.strata", SaveOptions::default().library(&writer));
        prop_assert!(bytes.is_ok(), "{:?}", bytes.as_ref().err().map(|e| e.to_string()));
        let bytes = bytes.unwrap_or_default();
        let unchecked = encode_world_save(&s, "", SaveOptions::default().library(&writer).unchecked()).unwrap();
        prop_assert_eq!(&bytes, &unchecked);
        let same = decode_world_save(&bytes, "p.strata", SaveOptions::default().library(&writer));
        prop_assert!(matches!(&same, Ok(b) if *b == s));
        let other = decode_world_save(&bytes, "p.strata", SaveOptions::default().library(&reader));
        prop_assert!(other.is_ok(), "{:?}", other.as_ref().err().map(|e| e.to_string()));
        let other = other.unwrap_or_default();
        prop_assert_eq!(named_edits(&other.edits, &reader), named_edits(&s.edits, &writer));
    }
}

/// The number written just before `marker` in `text` (digits, with `,` or `.` inside), for the
/// figures the docs quote.
fn figure_before(text: &str, marker: &str, doc: &str) -> f64 {
    let at = text.find(marker).unwrap_or_else(|| panic!("{doc} no longer says `{marker}`"));
    let head = text[..at].trim_end();
    let start = head.rfind(|c: char| !(c.is_ascii_digit() || c == ',' || c == '.')).map_or(0, |i| i + 1);
    let number = head[start..].replace(',', "");
    number.parse().unwrap_or_else(|_| panic!("{doc}: `{}` before `{marker}` is not a number", &head[start..]))
}

/// The save sizes docs/saves.md and the README quote are what `save_world` writes: the default
/// preset and library, no game state, no edits / the 1,000 scattered edits of [`scattered`].
#[test]
fn documented_save_sizes_are_measured() {
    let d = scratch("documented");
    let empty = WorldSave { preset: WorldPreset::default(), edits: EditMap::new(), ..WorldSave::default() };
    let full = WorldSave { edits: scattered(1000), ..empty.clone() };
    let (pe, pf) = (d.join("empty.strata"), d.join("full.strata"));
    write_world_save(&pe, &empty, SaveOptions::default().library(default_library())).unwrap();
    write_world_save(&pf, &full, SaveOptions::default().library(default_library())).unwrap();
    let (se, sf) = (fs::metadata(&pe).unwrap().len(), fs::metadata(&pf).unwrap().len());
    println!("documented save sizes: default preset, no edits {se} bytes; 1,000 scattered edits {sf} bytes");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for doc in ["README.md", "docs/saves.md"] {
        let text = fs::read_to_string(root.join(doc)).unwrap_or_else(|e| panic!("{doc}: {e}"));
        let quoted_empty = figure_before(&text, " bytes with the default preset and no edits", doc);
        assert_eq!(quoted_empty, se as f64, "{doc} quotes {quoted_empty} bytes for an empty save; measured {se}");
        let quoted_full = figure_before(&text, " KB after 1,000 scattered edits", doc);
        let measured_kb = (sf as f64 / 1000.0 * 10.0).round() / 10.0;
        assert_eq!(quoted_full, measured_kb, "{doc} quotes {quoted_full} KB for 1,000 edits; measured {sf} bytes");
    }
    fs::remove_dir_all(&d).unwrap();
}

/// A kept object far from the world's start (where an `f32` world coordinate steps by 64) comes
/// back to the same point from a save (format 5: records placed from their chunk's corner); a
/// save without kept objects stays in the format older builds read.
#[test]
fn kept_objects_far_away_reload_exactly_and_only_they_need_format_5() {
    use strata_core::persist::entities::EntityRecord;
    use strata_core::persist::save::SAVE_VERSION;
    let mut save = sample_save(10);
    assert_eq!(save.format_version(), SAVE_VERSION_WITHOUT_FLOWS, "no records: format 3");
    for (i, x) in [1_000_000_000.25, -1_073_741_800.5, 4_000_008.5, 8.5].into_iter().enumerate() {
        save.entities.push_record(EntityRecord {
            scene: "res://game/life/deer.tscn".into(),
            position: [x, 20.0 + i as f64 * 0.125, -x - 0.75],
            rotation: EntityRecord::NO_ROTATION,
            scale: EntityRecord::NO_SCALE,
            state: vec![i as u8],
        });
    }
    assert_eq!(save.format_version(), SAVE_VERSION, "records: the newest format");
    let bytes = encode_world_save(&save, "far.strata", SaveOptions::default()).expect("writes");
    assert_eq!(u16::from_le_bytes([bytes[8], bytes[9]]), SAVE_VERSION);
    let back = decode_world_save(&bytes, "far.strata", SaveOptions::default()).expect("reads");
    assert!(back == save, "every record at its exact place");
    let far = back.entities.records.values().flatten().find(|r| r.state == [0]).expect("the record at 1e9");
    assert_eq!(far.position, [1_000_000_000.25, 20.0, -1_000_000_001.0]);
}
