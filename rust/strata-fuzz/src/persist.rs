//! Harnesses of the files a game keeps: saves (as files, and their payload behind a valid
//! header and checksum), edit journals, entity records and user profiles.
//!
//! May use: strata-core's `persist` and `base`, flate2 and crc32fast (to frame fuzzed save
//! payloads the way a save file does).

use std::io::Write;
use std::path::Path;
use strata_core::ChunkCoord;
use strata_core::base::byte_codec::ByteReader;
use strata_core::persist::entities::{RecordPositions, put_record, read_record};
use strata_core::persist::journal::decode_journal;
use strata_core::persist::profile::{Profile, profile_from_file_bytes};
use strata_core::persist::save::{
    HEADER_BYTES, SAVE_MAGIC, SaveError, SaveOptions, decode_world_save, encode_world_save,
};

/// The world fingerprint the journal harness reads its journals for.
pub const JOURNAL_WORLD: u64 = 0x4a4f_5552_0000_0001;
/// The scene table the entity-record harness reads records with.
pub const RECORD_SCENES: [&str; 3] = ["res://game/crate.tscn", "res://game/lamp.tscn", "res://game/tree.tscn"];
/// The chunk the entity-record harness's records must stand in.
pub const RECORD_CHUNK: ChunkCoord = ChunkCoord { x: 0, y: 0, z: 0 };

/// A save's bytes: refused with an error naming the file (never an I/O error from memory), or
/// loaded, saved again and loaded back equal.
pub fn save(data: &[u8]) {
    match decode_world_save(data, "fuzz.strata", SaveOptions::default()) {
        Err(SaveError::Io { .. }) => panic!("an I/O error from bytes in memory"),
        Err(e) => assert!(e.to_string().contains("fuzz.strata"), "the error does not name the file: {e}"),
        Ok(s) => {
            let again = match encode_world_save(&s, "again.strata", SaveOptions::default()) {
                Ok(b) => b,
                Err(e) => panic!("a loaded save does not save: {e}"),
            };
            match decode_world_save(&again, "again.strata", SaveOptions::default()) {
                Ok(back) => assert!(back == s, "a save changes on save and load"),
                Err(e) => panic!("a saved save does not load: {e}"),
            }
        }
    }
}

/// A save file of format `version` around `payload`: a valid header, its CRC, raw DEFLATE.
pub fn frame_save(version: u16, payload: &[u8]) -> Vec<u8> {
    let mut out = SAVE_MAGIC.to_vec();
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
    debug_assert_eq!(out.len(), HEADER_BYTES);
    let mut enc = flate2::write::DeflateEncoder::new(out, flate2::Compression::fast());
    // Writing into a Vec cannot fail.
    let _ = enc.write_all(payload);
    enc.finish().unwrap_or_default()
}

/// The payload of a save (its first byte the format version, 1 to 5, the rest the
/// decompressed payload), framed with a valid header and checksum so the fuzzer reaches the
/// payload's reader; then as [`save`].
pub fn save_payload(data: &[u8]) {
    let Some((&v, payload)) = data.split_first() else { return };
    save(&frame_save(u16::from(v % 5 + 1), payload));
}

/// A journal's bytes: refused, or read with every byte accounted for (whole records plus a
/// torn tail), and its order numbers usable.
pub fn journal(data: &[u8]) {
    let Ok(c) = decode_journal(data, Path::new("fuzz.journal"), JOURNAL_WORLD) else { return };
    assert_eq!(c.edits.len() * 18 + c.torn_bytes + 26, data.len(), "journal bytes unaccounted for");
    let _ = c.next_order();
    let _ = c.edits_from(c.first_order.saturating_add(1));
}

/// One entity record read against [`RECORD_SCENES`] in [`RECORD_CHUNK`]: refused, or written
/// again and read back equal.
pub fn entity_record(data: &[u8]) {
    let scenes: Vec<String> = RECORD_SCENES.iter().map(|s| s.to_string()).collect();
    let mut r = ByteReader::new(data);
    let Ok(record) = read_record(&mut r, &scenes, RECORD_CHUNK, RecordPositions::InChunk) else { return };
    let mut out = Vec::new();
    put_record(&mut out, &RECORD_SCENES, RECORD_CHUNK, &record);
    let mut again = ByteReader::new(&out);
    match read_record(&mut again, &scenes, RECORD_CHUNK, RecordPositions::InChunk) {
        Ok(back) => assert_eq!(back, record, "an entity record changes on write and read"),
        Err(e) => panic!("a written entity record does not read: {e}"),
    }
    assert_eq!(again.left(), 0, "a written record reads back shorter");
}

/// A profile file: refused with an error naming it, or printed and read back to the same text
/// (text, not values: NaN in an extra array never compares equal).
pub fn profile(data: &[u8]) {
    match profile_from_file_bytes(data, "fuzz.toml") {
        Err(e) => assert!(e.to_string().contains("fuzz.toml"), "the error does not name the file: {e}"),
        Ok(p) => {
            let text = p.to_toml();
            match Profile::from_toml(&text, "again.toml") {
                Ok(back) => assert_eq!(back.to_toml(), text, "a profile changes on save and load"),
                Err(e) => panic!("a loaded profile does not load again: {e}\n{text}"),
            }
        }
    }
}
