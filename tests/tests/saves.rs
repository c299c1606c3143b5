//! World saves: size, round trips, a simulated crash, and refusal of damaged or hostile files
//! (with byte offsets) before any large allocation.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::PathBuf;
use strata_core::IVec3;
use strata_core::WorldPreset;
use strata_core::base::atomic_file::{StopAt, write_atomic_with};
use strata_core::base::edits::EditMap;
use strata_core::persist::save::{
    HEADER_BYTES, MAX_EDITS, MAX_PAYLOAD_BYTES, SAVE_MAGIC, SaveError, WorldSave, decode_world_save, encode_world_save,
    read_world_save, write_world_save,
};
use strata_core::preset::fingerprint::{fingerprint, preset_to_sparse_ron};

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("strata-saves-{tag}-{}", std::process::id()));
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
    WorldSave { preset: WorldPreset { seed: 99, ..WorldPreset::default() }, edits: scattered(edits), state }
}

#[test]
fn saves_are_small_and_round_trip() {
    let d = scratch("size");
    let empty = sample_save(0);
    let full = sample_save(1000);
    let (pe, pf) = (d.join("empty.strata"), d.join("full.strata"));
    write_world_save(&pe, &empty).unwrap();
    write_world_save(&pf, &full).unwrap();
    let (se, sf) = (fs::metadata(&pe).unwrap().len(), fs::metadata(&pf).unwrap().len());
    println!("save sizes: no edits {se} bytes, 1,000 scattered edits {sf} bytes");
    assert!(se < 1024, "empty save is {se} bytes");
    assert!(sf < 16 * 1024, "1,000-edit save is {sf} bytes");
    assert_eq!(read_world_save(&pe).unwrap(), empty);
    assert_eq!(read_world_save(&pf).unwrap(), full);
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
    let bytes = encode_world_save(&s);
    assert!(bytes.len() < 2048, "{} bytes for a 64×64 floor", bytes.len());
    assert_eq!(decode_world_save(&bytes, "f").unwrap(), s);
}

#[test]
fn crash_before_rename_keeps_the_old_save() {
    let d = scratch("crash");
    let path = d.join("world.strata");
    let old = sample_save(10);
    write_world_save(&path, &old).unwrap();
    let new = sample_save(500);
    // Power cut after the new bytes are on disk in the temp file, before the rename.
    let tmp = write_atomic_with(&path, &encode_world_save(&new), StopAt::BeforeRename).unwrap();
    assert!(tmp.exists());
    assert_eq!(read_world_save(&path).unwrap(), old, "the old save survives and loads");
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

/// A file around `payload` with a correct header and CRC.
fn wrap(payload: &[u8]) -> Vec<u8> {
    let mut out = SAVE_MAGIC.to_vec();
    out.extend_from_slice(&1u16.to_le_bytes());
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
    let save = decode_world_save(&wrap(&payload), "hand.strata").unwrap();
    assert_eq!(save.edits.len(), 3);
    assert_eq!(save.edits.get(IVec3::new(32 + 6, 0, -32)), Some(4));
    assert!(encode_world_save(&save).len() > HEADER_BYTES);
}

#[test]
fn a_save_claiming_4_gb_is_refused_before_allocating() {
    let mut bytes = encode_world_save(&sample_save(5));
    bytes[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
    let e = decode_world_save(&bytes, "huge.strata").unwrap_err();
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
    let e = decode_world_save(&wrap(&payload), "edits.strata").unwrap_err();
    let m = e.to_string();
    assert_eq!(e.offset(), Some(at as u64), "{m}");
    assert!(
        m.contains("edit count") && m.contains(&format!("at most {MAX_EDITS}")) && m.contains("decompressed payload"),
        "{m}"
    );

    let mut payload = payload_head();
    varint(&mut payload, 1);
    varint(&mut payload, 4 << 30);
    let m = decode_world_save(&wrap(&payload), "chunks.strata").unwrap_err().to_string();
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
    let m = decode_world_save(&wrap(&payload), "run.strata").unwrap_err().to_string();
    assert!(m.contains("edit run") && m.contains("below 32768"), "{m}");
}

#[test]
fn damaged_saves_give_typed_errors_with_offsets() {
    let good = encode_world_save(&sample_save(200));
    // Empty, garbage, wrong magic.
    let e = decode_world_save(&[], "w.strata").unwrap_err();
    assert!(e.to_string().contains("w.strata") && e.to_string().contains("empty"), "{e}");
    let e = decode_world_save(b"PK\x03\x04 zip file", "w.strata").unwrap_err();
    assert!(matches!(e, SaveError::NotASave { .. }) && e.to_string().contains("STRATASV"), "{e}");
    // Future version.
    let mut future = good.clone();
    future[8..10].copy_from_slice(&9u16.to_le_bytes());
    let e = decode_world_save(&future, "w.strata").unwrap_err();
    assert!(e.to_string().contains("newer Strata") && e.to_string().contains("format 9"), "{e}");
    // Truncated at every length: an error, never a panic.
    for len in (0..good.len()).step_by(7) {
        let e = decode_world_save(&good[..len], "t.strata").unwrap_err();
        assert!(e.to_string().contains("t.strata"), "{len}: {e}");
    }
    // A flipped bit anywhere in the body is caught (decompression, length or checksum).
    for i in (HEADER_BYTES..good.len()).step_by(11) {
        let mut bad = good.clone();
        bad[i] ^= 0x10;
        if let Ok(s) = decode_world_save(&bad, "c.strata") {
            // Deflate can (rarely) absorb a flip in unused bits; then the data must be intact.
            assert_eq!(s, sample_save(200), "flip at {i} changed data undetected");
        }
    }
    let mut bad = good.clone();
    bad[16] ^= 1;
    assert!(matches!(decode_world_save(&bad, "c.strata"), Err(SaveError::Checksum { .. })));
    // Trailing junk after the chunks.
    let mut payload = payload_head();
    varint(&mut payload, 0);
    varint(&mut payload, 0);
    payload.push(7);
    let e = decode_world_save(&wrap(&payload), "j.strata").unwrap_err();
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
    let e = decode_world_save(&wrap(&payload), "fp.strata").unwrap_err();
    assert!(matches!(e, SaveError::Fingerprint { .. }), "{e}");
    assert!(e.to_string().contains("0123456789abcdef"));

    let mut payload = Vec::new();
    string(&mut payload, "(name: \"\", seed: 0, changes: {\"height\": {\"octaves\": 0}})");
    let e = decode_world_save(&wrap(&payload), "pr.strata").unwrap_err();
    let m = e.to_string();
    assert!(m.contains("pr.strata") && m.contains("height_octaves") && m.contains("1..=12"), "{m}");
}

#[test]
fn read_errors_leave_the_file_alone() {
    let d = scratch("alone");
    let path = d.join("w.strata");
    let mut bytes = encode_world_save(&sample_save(50));
    bytes.truncate(bytes.len() - 10);
    fs::write(&path, &bytes).unwrap();
    assert!(read_world_save(&path).is_err());
    assert_eq!(fs::read(&path).unwrap(), bytes);
    let e = read_world_save(&d.join("nope.strata")).unwrap_err();
    assert!(e.to_string().contains("nope.strata"), "{e}");
    // Refused write of an invalid preset: the old file stays.
    let good = sample_save(3);
    write_world_save(&path, &good).unwrap();
    let before = fs::read(&path).unwrap();
    let mut bad = good.clone();
    bad.preset.height.octaves = 99;
    assert!(write_world_save(&path, &bad).is_err());
    assert_eq!(fs::read(&path).unwrap(), before);
    fs::remove_dir_all(&d).unwrap();
}
