//! Harnesses of world presets: RON files, the sparse RON a save and a server's welcome carry,
//! Godot `.tres` files and world codes (raw, and with a valid checksum around fuzzed bytes).
//!
//! May use: strata-core's `preset`, crc32fast (to give a fuzzed world code a valid checksum).

use strata_core::WorldPreset;
use strata_core::preset::file::preset_from_file_bytes;
use strata_core::preset::fingerprint::{preset_from_sparse_ron, preset_to_sparse_ron};
use strata_core::preset::ron::{preset_from_ron, preset_to_ron};
use strata_core::preset::tres::{preset_from_tres_text, preset_to_tres_text};
use strata_core::preset::world_code::{PREFIX, encode_world_code, read_world_code};

/// Asserts that `again` (read back from what `first` printed) is the same preset, comparing
/// their RON text (floats compare by their printed value).
fn assert_same(first: &WorldPreset, again: Result<WorldPreset, impl std::fmt::Display>, how: &str) {
    match again {
        Ok(back) => assert_eq!(preset_to_ron(&back), preset_to_ron(first), "a preset changes through {how}"),
        Err(e) => panic!("a loaded preset does not load again through {how}: {e}"),
    }
}

/// A RON preset file: refused with an error naming it, or printed as RON and as `.tres` and
/// read back the same through both.
pub fn ron(data: &[u8]) {
    match preset_from_file_bytes(data, "fuzz.ron") {
        Err(e) => assert!(e.to_string().contains("fuzz.ron"), "the error does not name the file: {e}"),
        Ok(p) => {
            assert_same(&p, preset_from_ron(&preset_to_ron(&p), "again.ron"), "RON");
            assert_same(&p, preset_from_tres_text(&preset_to_tres_text(&p), "again.tres"), ".tres");
        }
    }
}

/// The sparse RON a welcome packet and a save carry: refused, or printed sparse and read back
/// the same.
pub fn sparse_ron(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(p) = preset_from_sparse_ron(text, "welcome") {
        assert_same(&p, preset_from_sparse_ron(&preset_to_sparse_ron(&p), "again"), "sparse RON");
    }
}

/// A `.tres` preset file: refused with an error naming it, or printed as `.tres` and read back
/// the same.
pub fn tres(data: &[u8]) {
    match preset_from_file_bytes(data, "fuzz.tres") {
        Err(e) => assert!(e.to_string().contains("fuzz.tres"), "the error does not name the file: {e}"),
        Ok(p) => assert_same(&p, preset_from_tres_text(&preset_to_tres_text(&p), "again.tres"), ".tres"),
    }
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Base64url without padding, as world codes are written.
fn base64url(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..chunk.len() + 1 {
            out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

/// A world code whose body (check, seed, base name, deflated settings) is `body`, with its
/// checksum right.
pub fn frame_world_code(body: &[u8]) -> String {
    let mut bytes = crc32fast::hash(body).to_le_bytes().to_vec();
    bytes.extend_from_slice(body);
    format!("{PREFIX}{}", base64url(&bytes))
}

/// A world code, as typed (the input as text) and as a body with a valid checksum: refused, or
/// applied to the default preset; a world that applies encodes to a code that gives it again.
pub fn world_code(data: &[u8]) {
    let base = WorldPreset::default();
    for code in [String::from_utf8_lossy(data).into_owned(), frame_world_code(data)] {
        let Ok(decoded) = read_world_code(&code) else { continue };
        let _ = (decoded.base_name(), decoded.seed(), decoded.change_count(), decoded.version());
        let Ok(preset) = decoded.apply(&base) else { continue };
        let again = match encode_world_code(&preset, decoded.base_name(), &base) {
            Ok(c) => c,
            Err(e) => panic!("a world from a code does not encode: {e}"),
        };
        let back =
            read_world_code(&again).map_err(|e| e.to_string()).and_then(|c| c.apply(&base).map_err(|e| e.to_string()));
        assert_same(&preset, back, "a world code");
    }
}
