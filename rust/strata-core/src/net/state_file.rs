//! The shared-state file of a shared world's server: the whole shared game state, written
//! atomically beside the save (`<save>.shared`) before a change is sent to anyone, so a server
//! killed at any instant resumes with every change its players saw (law: Nothing is lost). The
//! save holds the state as of its own writing; the server removes this file after each save and
//! writes it again at the next change, so when it exists it is newer than the save.
//!
//! Layout: magic `STRATASS`, format version u16, the fingerprint of the world's preset as 8 bytes
//! of FNV-1a (as the edit journal), the payload's length u32, the payload (a `SharedState`
//! message as the wire carries it), CRC-32 of the payload; all little-endian.
//!
//! May use: `base`, `net::protocol`, `net::shared_state`.

use crate::base::atomic_file::write_atomic;
use crate::net::protocol::{MAX_PACKET_BYTES, Message};
use crate::net::shared_state::SharedState;
use std::io;
use std::path::{Path, PathBuf};
use thiserror::Error;

const MAGIC: &[u8; 8] = b"STRATASS";
/// The shared-state file format written and read.
pub const STATE_FILE_VERSION: u16 = 1;
const HEADER_BYTES: usize = 8 + 2 + 8 + 4;

/// Why a shared-state file cannot be read or written; every variant names the file.
#[derive(Debug, Error)]
pub enum StateFileError {
    #[error("shared state file {path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error("shared state file {path}: not a Strata shared state file (no STRATASS header)")]
    NotAStateFile { path: PathBuf },
    #[error("shared state file {path}: format version {version}; this build reads version {STATE_FILE_VERSION}")]
    Version { path: PathBuf, version: u16 },
    #[error(
        "shared state file {path}: written for a world with fingerprint {found:016x}, this world's is {expected:016x}; allowed: the file of this world"
    )]
    OtherWorld { path: PathBuf, found: u64, expected: u64 },
    #[error("shared state file {path}: damaged ({what}); allowed: a file this build wrote")]
    Damaged { path: PathBuf, what: String },
}

/// Writes `state` to `path` atomically (the old file or the new one, never a mix) for the world
/// whose preset fingerprint hashes to `world`.
pub fn write_state_file(path: &Path, state: &SharedState, world: u64) -> Result<(), StateFileError> {
    let bytes = encode_state_file(state, world);
    write_atomic(path, &bytes).map_err(|source| StateFileError::Io { path: path.to_path_buf(), source })
}

/// The bytes of the shared-state file [`write_state_file`] writes.
pub fn encode_state_file(state: &SharedState, world: u64) -> Vec<u8> {
    let payload =
        Message::SharedState { entries: state.iter().map(|(k, v)| (k.to_string(), v.clone())).collect() }.encode();
    let mut bytes = Vec::with_capacity(HEADER_BYTES + payload.len() + 4);
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&STATE_FILE_VERSION.to_le_bytes());
    bytes.extend_from_slice(&world.to_le_bytes());
    bytes.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    bytes.extend_from_slice(&payload);
    bytes.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
    bytes
}

/// Reads a shared-state file written for the world whose preset fingerprint hashes to `world`.
pub fn read_state_file(path: &Path, world: u64) -> Result<SharedState, StateFileError> {
    let damaged = |what: String| StateFileError::Damaged { path: path.to_path_buf(), what };
    let len = std::fs::metadata(path).map_err(|source| StateFileError::Io { path: path.to_path_buf(), source })?.len();
    if len > (HEADER_BYTES + MAX_PACKET_BYTES + 4) as u64 {
        return Err(damaged(format!("{len} bytes, more than a shared state takes")));
    }
    let bytes = std::fs::read(path).map_err(|source| StateFileError::Io { path: path.to_path_buf(), source })?;
    decode_state_file(&bytes, path, world)
}

/// Decodes a shared-state file's bytes held in memory ([`read_state_file`] without the file;
/// `path` names it in errors).
pub fn decode_state_file(bytes: &[u8], path: &Path, world: u64) -> Result<SharedState, StateFileError> {
    let damaged = |what: String| StateFileError::Damaged { path: path.to_path_buf(), what };
    if bytes.len() > HEADER_BYTES + MAX_PACKET_BYTES + 4 {
        return Err(damaged(format!("{} bytes, more than a shared state takes", bytes.len())));
    }
    if bytes.len() < HEADER_BYTES || &bytes[..8] != MAGIC {
        return Err(StateFileError::NotAStateFile { path: path.to_path_buf() });
    }
    let version = u16::from_le_bytes([bytes[8], bytes[9]]);
    if version != STATE_FILE_VERSION {
        return Err(StateFileError::Version { path: path.to_path_buf(), version });
    }
    let mut hash = [0u8; 8];
    hash.copy_from_slice(&bytes[10..18]);
    let found = u64::from_le_bytes(hash);
    if found != world {
        return Err(StateFileError::OtherWorld { path: path.to_path_buf(), found, expected: world });
    }
    let n = u32::from_le_bytes([bytes[18], bytes[19], bytes[20], bytes[21]]) as usize;
    if bytes.len() != HEADER_BYTES + n + 4 {
        return Err(damaged(format!("{} bytes where the header says {}", bytes.len(), HEADER_BYTES + n + 4)));
    }
    let payload = &bytes[HEADER_BYTES..HEADER_BYTES + n];
    let crc = &bytes[HEADER_BYTES + n..];
    if crc32fast::hash(payload).to_le_bytes() != crc {
        return Err(damaged("checksum mismatch".into()));
    }
    match Message::decode(payload) {
        Ok(Message::SharedState { entries }) => SharedState::from_entries(entries).map_err(|e| damaged(e.to_string())),
        Ok(_) => Err(damaged("not a shared state".into())),
        Err(e) => Err(damaged(e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::shared_state::SharedValue;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("strata-shared-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("w.strata.shared")
    }

    fn state() -> SharedState {
        SharedState::from_entries([
            ("time_of_day".to_string(), SharedValue::Float(0.625)),
            ("weather".to_string(), SharedValue::Text("storm".into())),
            ("gate".to_string(), SharedValue::Vector3([1.0, 64.0, -9.5])),
        ])
        .unwrap()
    }

    #[test]
    fn a_state_file_round_trips_and_is_tied_to_its_world() {
        let path = temp("round");
        write_state_file(&path, &state(), 77).unwrap();
        assert_eq!(read_state_file(&path, 77).unwrap(), state());
        let e = read_state_file(&path, 78).unwrap_err();
        assert!(matches!(e, StateFileError::OtherWorld { found: 77, expected: 78, .. }), "{e}");
        // Overwritten whole by the next change.
        write_state_file(&path, &SharedState::default(), 77).unwrap();
        assert!(read_state_file(&path, 77).unwrap().is_empty());
    }

    #[test]
    fn a_damaged_state_file_is_a_named_error() {
        let path = temp("damaged");
        write_state_file(&path, &state(), 1).unwrap();
        let good = std::fs::read(&path).unwrap();
        let mut flipped = good.clone();
        flipped[HEADER_BYTES + 3] ^= 0x40;
        std::fs::write(&path, &flipped).unwrap();
        let e = read_state_file(&path, 1).unwrap_err();
        assert!(e.to_string().contains("checksum mismatch") && e.to_string().contains("w.strata.shared"), "{e}");
        std::fs::write(&path, &good[..good.len() - 1]).unwrap();
        assert!(matches!(read_state_file(&path, 1), Err(StateFileError::Damaged { .. })));
        std::fs::write(&path, b"STRATAJL").unwrap();
        assert!(matches!(read_state_file(&path, 1), Err(StateFileError::NotAStateFile { .. })));
        let mut other = good.clone();
        other[8] = 9;
        std::fs::write(&path, &other).unwrap();
        assert!(matches!(read_state_file(&path, 1), Err(StateFileError::Version { version: 9, .. })));
    }
}
