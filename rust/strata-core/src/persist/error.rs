//! Why a save could not be read or written: one error type for the save and its parts.
//!
//! May use: `base`, `preset`.

use crate::base::coords::IVec3;
use thiserror::Error;

/// Why a save could not be read or written. Offsets are bytes from the start of the file, or of
/// the decompressed payload where `in_payload` says so.
#[derive(Debug, Error)]
pub enum SaveError {
    #[error("{file}: cannot {action}: {error}")]
    Io {
        file: String,
        action: &'static str,
        #[source]
        error: std::io::Error,
    },
    #[error("{file}: not a Strata world save (first bytes {found:02x?}; allowed: a file starting with \"STRATASV\")")]
    NotASave { file: String, found: Vec<u8> },
    #[error(
        "{file}: made by a newer Strata (save format {found}, this reads <= {supported}); the file was not changed"
    )]
    NewerVersion { file: String, found: u16, supported: u16 },
    #[error("{file}: at byte {offset}{}: {what}: {problem}; allowed: {allowed}", if *.in_payload { " of the decompressed payload" } else { "" })]
    Corrupt {
        file: String,
        offset: u64,
        in_payload: bool,
        /// The part of the save being read (`payload length`, `chunk count`, …).
        what: String,
        problem: String,
        allowed: String,
    },
    #[error("{file}: checksum mismatch (stored {stored:08x}, computed {computed:08x}): the file is damaged")]
    Checksum { file: String, stored: u32, computed: u32 },
    #[error("{file}: the preset does not match its recorded fingerprint (recorded {recorded}, computed {computed})")]
    Fingerprint { file: String, recorded: String, computed: String },
    #[error(
        "{file}: edit at ({}, {}, {}) has block id {id}, which no block has; allowed: {allowed}{}",
        at.x, at.y, at.z,
        if *.saving { "; the save was not written and the previous file is unchanged" } else { "" }
    )]
    UnknownBlock {
        file: String,
        /// The first such edit (in chunk, then voxel order).
        at: IVec3,
        id: u64,
        /// Where it is in the decompressed payload, when reading.
        offset: Option<u64>,
        /// The ids that would be accepted: the library's when saving, the block table's (or the
        /// built-in ids of format 1) when reading.
        allowed: String,
        saving: bool,
    },
    #[error(
        "{file}: edit at ({}, {}, {}) is the block \"{name}\", which the block library does not have; allowed: the library's blocks: {allowed}; nothing was loaded",
        at.x, at.y, at.z
    )]
    MissingBlock {
        file: String,
        /// The block's name as the save stores it.
        name: String,
        /// The first edit of that block (in chunk, then voxel order).
        at: IVec3,
        /// Where that edit's block id is in the decompressed payload.
        offset: Option<u64>,
        /// The loading library's block names.
        allowed: String,
    },
    #[error("{file}: not saved: {what} is {value}; allowed: {allowed}; the previous file is unchanged")]
    TooLarge {
        file: String,
        /// The limited part: `edit count`, `game state entries`, `game state value of "key"`, …
        what: String,
        value: String,
        allowed: String,
    },
    #[error("{file}: not saved: it would not read back as saved ({problem}); the previous file is unchanged")]
    WouldNotLoad { file: String, problem: String },
    #[error("{file}: preset: {error}")]
    Preset {
        file: String,
        #[source]
        error: Box<crate::preset::error::PresetError>,
    },
}

impl SaveError {
    /// The byte offset the error is at, when it has one.
    pub fn offset(&self) -> Option<u64> {
        match self {
            SaveError::Corrupt { offset, .. } => Some(*offset),
            SaveError::UnknownBlock { offset, .. } | SaveError::MissingBlock { offset, .. } => *offset,
            _ => None,
        }
    }
}
