//! The edit journal of a shared world's server: every applied edit appended and synced to disk
//! before anyone is told it was applied, so a server killed at any instant loses no edit it
//! acknowledged (law: Nothing is lost).
//!
//! Layout: a 26-byte header (magic `STRATAJL`, format version u16, the order number of the first
//! record u64, the fingerprint of the world's preset as 8 bytes of FNV-1a), then fixed 18-byte
//! records: voxel x, y, z (i32), block id (u16), CRC-32 of those 14 bytes (all little-endian).
//! Record `i` is edit number `first_order + i`. A crash can only tear the last record (a partial
//! write, or bytes that fail their CRC): reading stops there and reports how many bytes it
//! dropped; such a record was never acknowledged. A save made later holds the edits up to its own
//! order number; replaying a journal over it skips the records it already holds
//! ([`JournalContents::edits_from`]).
//!
//! May use: `base`, `preset`.

use crate::base::block::BlockId;
use crate::base::coords::IVec3;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use thiserror::Error;

const MAGIC: &[u8; 8] = b"STRATAJL";
/// The journal format written and read.
pub const JOURNAL_VERSION: u16 = 1;
const HEADER_BYTES: usize = 8 + 2 + 8 + 8;
const RECORD_BYTES: usize = 18;
/// The highest order number a journal read may reach (its first plus its records): far beyond
/// any world's edit count, and far enough below `u64::MAX` that appending never overflows.
pub const MAX_JOURNAL_ORDER: u64 = 1 << 62;

/// Why a journal cannot be read or written; every variant names the file.
#[derive(Debug, Error)]
pub enum JournalError {
    #[error("edit journal {path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error("edit journal {path}: not a Strata edit journal (no STRATAJL header)")]
    NotAJournal { path: PathBuf },
    #[error("edit journal {path}: format version {version}; this build reads version {JOURNAL_VERSION}")]
    Version { path: PathBuf, version: u16 },
    #[error(
        "edit journal {path}: written for a world with fingerprint {found:016x}, this world's is {expected:016x}; allowed: the journal of this world"
    )]
    OtherWorld { path: PathBuf, found: u64, expected: u64 },
    #[error(
        "edit journal {path}: its first record is edit number {first_order} and it holds {records} records, past the highest order number a journal may reach ({MAX_JOURNAL_ORDER}); allowed: a journal this build wrote"
    )]
    OrderOverflow { path: PathBuf, first_order: u64, records: usize },
}

/// A journal read back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JournalContents {
    /// Order number of the first record.
    pub first_order: u64,
    /// The complete records, in order.
    pub edits: Vec<(IVec3, BlockId)>,
    /// Bytes of a torn last record dropped (0 after a clean shutdown).
    pub torn_bytes: usize,
}

impl JournalContents {
    /// The records numbered `order` and later (those a save made at `order` lacks).
    pub fn edits_from(&self, order: u64) -> &[(IVec3, BlockId)] {
        let skip = order.saturating_sub(self.first_order).min(self.edits.len() as u64) as usize;
        &self.edits[skip..]
    }

    /// The order number the next edit after these gets.
    pub fn next_order(&self) -> u64 {
        self.first_order + self.edits.len() as u64
    }
}

/// An open journal being appended to.
pub struct EditJournal {
    path: PathBuf,
    file: File,
    next_order: u64,
}

impl EditJournal {
    /// Starts a new, empty journal at `path` (replacing any) whose first record will be edit
    /// number `first_order`, for the world whose preset fingerprint hashes to `world`.
    pub fn create(path: &Path, first_order: u64, world: u64) -> Result<Self, JournalError> {
        let io = |source| JournalError::Io { path: path.to_path_buf(), source };
        let mut header = Vec::with_capacity(HEADER_BYTES);
        header.extend_from_slice(MAGIC);
        header.extend_from_slice(&JOURNAL_VERSION.to_le_bytes());
        header.extend_from_slice(&first_order.to_le_bytes());
        header.extend_from_slice(&world.to_le_bytes());
        crate::base::atomic_file::write_atomic(path, &header).map_err(io)?;
        let file = OpenOptions::new().append(true).open(path).map_err(io)?;
        Ok(Self { path: path.to_path_buf(), file, next_order: first_order })
    }

    /// Opens an existing journal to append to, after reading it (a torn tail is cut off first).
    pub fn open(path: &Path, world: u64) -> Result<(Self, JournalContents), JournalError> {
        let contents = read_journal(path, world)?;
        let io = |source| JournalError::Io { path: path.to_path_buf(), source };
        let file = OpenOptions::new().write(true).open(path).map_err(io)?;
        file.set_len((HEADER_BYTES + contents.edits.len() * RECORD_BYTES) as u64).map_err(io)?;
        file.sync_data().map_err(io)?;
        drop(file);
        let file = OpenOptions::new().append(true).open(path).map_err(io)?;
        Ok((Self { path: path.to_path_buf(), file, next_order: contents.next_order() }, contents))
    }

    /// Appends `edits` (the next ones in order) and waits until they are on disk. Only then may
    /// they be acknowledged.
    pub fn append(&mut self, edits: &[(IVec3, BlockId)]) -> Result<(), JournalError> {
        if edits.is_empty() {
            return Ok(());
        }
        let mut bytes = Vec::with_capacity(edits.len() * RECORD_BYTES);
        for (p, b) in edits {
            let start = bytes.len();
            for v in [p.x, p.y, p.z] {
                bytes.extend_from_slice(&v.to_le_bytes());
            }
            bytes.extend_from_slice(&b.to_le_bytes());
            let crc = crc32fast::hash(&bytes[start..]);
            bytes.extend_from_slice(&crc.to_le_bytes());
        }
        let io = |source| JournalError::Io { path: self.path.clone(), source };
        self.file.write_all(&bytes).map_err(io)?;
        self.file.sync_data().map_err(io)?;
        self.next_order += edits.len() as u64;
        Ok(())
    }

    /// The order number the next appended edit gets.
    pub fn next_order(&self) -> u64 {
        self.next_order
    }
}

/// Reads a journal; a torn last record is dropped and counted, never an error.
pub fn read_journal(path: &Path, world: u64) -> Result<JournalContents, JournalError> {
    let io = |source| JournalError::Io { path: path.to_path_buf(), source };
    let mut bytes = Vec::new();
    File::open(path).and_then(|mut f| f.read_to_end(&mut bytes)).map_err(io)?;
    decode_journal(&bytes, path, world)
}

/// Decodes a journal's bytes held in memory ([`read_journal`] without the file; `path` names it
/// in errors); a torn last record is dropped and counted, never an error.
pub fn decode_journal(bytes: &[u8], path: &Path, world: u64) -> Result<JournalContents, JournalError> {
    if bytes.len() < HEADER_BYTES || &bytes[..8] != MAGIC {
        return Err(JournalError::NotAJournal { path: path.to_path_buf() });
    }
    let version = u16::from_le_bytes([bytes[8], bytes[9]]);
    if version != JOURNAL_VERSION {
        return Err(JournalError::Version { path: path.to_path_buf(), version });
    }
    let u64_at = |at: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&bytes[at..at + 8]);
        u64::from_le_bytes(b)
    };
    let first_order = u64_at(10);
    let found = u64_at(18);
    if found != world {
        return Err(JournalError::OtherWorld { path: path.to_path_buf(), found, expected: world });
    }
    let body = &bytes[HEADER_BYTES..];
    let mut edits = Vec::with_capacity(body.len() / RECORD_BYTES);
    let mut good = 0;
    for r in body.chunks_exact(RECORD_BYTES) {
        let crc = u32::from_le_bytes([r[14], r[15], r[16], r[17]]);
        if crc32fast::hash(&r[..14]) != crc {
            break;
        }
        let i = |at: usize| i32::from_le_bytes([r[at], r[at + 1], r[at + 2], r[at + 3]]);
        edits.push((IVec3::new(i(0), i(4), i(8)), u16::from_le_bytes([r[12], r[13]])));
        good += RECORD_BYTES;
    }
    // Found while writing the journal's fuzz target: a header whose first order number is near
    // u64::MAX made the next order number overflow (a panic in debug builds, a wrong number in
    // release ones).
    if first_order.checked_add(edits.len() as u64).is_none_or(|end| end > MAX_JOURNAL_ORDER) {
        return Err(JournalError::OrderOverflow { path: path.to_path_buf(), first_order, records: edits.len() });
    }
    Ok(JournalContents { first_order, edits, torn_bytes: body.len() - good })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("strata-journal-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("world.journal")
    }

    #[test]
    fn appended_edits_read_back_and_a_torn_tail_at_any_byte_loses_only_the_unsynced_record() {
        let path = temp("torn");
        let mut j = EditJournal::create(&path, 40, 7).unwrap();
        let edits: Vec<(IVec3, BlockId)> = (0..5).map(|i| (IVec3::new(i, -i * 1000, i32::MAX - i), i as u16)).collect();
        j.append(&edits[..3]).unwrap();
        j.append(&edits[3..]).unwrap();
        assert_eq!(j.next_order(), 45);
        let full = std::fs::read(&path).unwrap();
        let c = read_journal(&path, 7).unwrap();
        assert_eq!((c.first_order, c.edits.clone(), c.torn_bytes), (40, edits.clone(), 0));
        assert_eq!(c.edits_from(43), &edits[3..]);
        assert_eq!(c.edits_from(0), &edits[..]);
        assert!(c.edits_from(99).is_empty());
        // A crash in the middle of the last write: every cut keeps exactly the whole records.
        for cut in HEADER_BYTES..full.len() {
            std::fs::write(&path, &full[..cut]).unwrap();
            let c = read_journal(&path, 7).unwrap();
            let whole = (cut - HEADER_BYTES) / RECORD_BYTES;
            assert_eq!(c.edits, edits[..whole], "cut at {cut}");
            assert_eq!(c.torn_bytes, (cut - HEADER_BYTES) % RECORD_BYTES);
        }
        // A flipped byte in the last record: it is dropped, the others stay.
        let mut bad = full.clone();
        let n = bad.len();
        bad[n - 3] ^= 0x40;
        std::fs::write(&path, &bad).unwrap();
        assert_eq!(read_journal(&path, 7).unwrap().edits, edits[..4]);
        // Reopening cuts the torn tail and appends after the good records.
        let (mut j, c) = EditJournal::open(&path, 7).unwrap();
        assert_eq!(c.next_order(), 44);
        j.append(&[(IVec3::new(1, 2, 3), 9)]).unwrap();
        let c = read_journal(&path, 7).unwrap();
        assert_eq!(c.edits.len(), 5);
        assert_eq!(c.edits[4], (IVec3::new(1, 2, 3), 9));
        assert_eq!(c.torn_bytes, 0);
    }

    #[test]
    fn other_files_and_other_worlds_are_refused_by_name() {
        let path = temp("refused");
        EditJournal::create(&path, 0, 1).unwrap();
        let e = read_journal(&path, 2).unwrap_err().to_string();
        assert!(e.contains("world.journal") && e.contains("fingerprint"), "{e}");
        std::fs::write(&path, b"hello").unwrap();
        assert!(matches!(read_journal(&path, 1), Err(JournalError::NotAJournal { .. })));
        let mut v = Vec::from(&MAGIC[..]);
        v.extend_from_slice(&9u16.to_le_bytes());
        v.extend_from_slice(&[0; 16]);
        std::fs::write(&path, &v).unwrap();
        assert!(read_journal(&path, 0).unwrap_err().to_string().contains("version 9"));
    }

    #[test]
    fn order_numbers_past_the_limit_are_refused_by_name() {
        let path = temp("order");
        let mut j = EditJournal::create(&path, MAX_JOURNAL_ORDER - 1, 3).unwrap();
        j.append(&[(IVec3::new(1, 2, 3), 4)]).unwrap();
        assert_eq!(read_journal(&path, 3).unwrap().next_order(), MAX_JOURNAL_ORDER);
        j.append(&[(IVec3::new(1, 2, 3), 5)]).unwrap();
        let e = read_journal(&path, 3).unwrap_err();
        assert!(matches!(e, JournalError::OrderOverflow { records: 2, .. }), "{e}");
        assert!(e.to_string().contains("world.journal"), "{e}");
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[10..18].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(matches!(decode_journal(&bytes, &path, 3), Err(JournalError::OrderOverflow { .. })));
    }
}
