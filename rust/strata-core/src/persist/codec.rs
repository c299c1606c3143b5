//! The save-side face of the shared byte codec ([`crate::base::byte_codec`]): a [`Reader`] over a
//! save's payload whose errors are [`SaveError::Corrupt`], naming the file, the part being read,
//! the offset and what is allowed.
//!
//! May use: `base::byte_codec`, `persist::error`.

use crate::base::byte_codec::{ByteReader, ReadError};
use crate::persist::error::SaveError;

/// Reads a save's payload (file `file`); see the module docs.
pub(crate) struct Reader<'a> {
    /// The save, for errors.
    pub(crate) file: &'a str,
    /// The shared reader over the payload.
    pub(crate) raw: ByteReader<'a>,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `bytes`, the payload of save `file`.
    pub(crate) fn new(file: &'a str, bytes: &'a [u8]) -> Self {
        Reader { file, raw: ByteReader::new(bytes) }
    }

    /// The offset of the next byte to read.
    pub(crate) fn pos(&self) -> usize {
        self.raw.pos()
    }

    pub(crate) fn corrupt(&self, at: usize, what: &str, problem: String, allowed: String) -> SaveError {
        SaveError::Corrupt {
            file: self.file.into(),
            offset: at as u64,
            in_payload: true,
            what: what.into(),
            problem,
            allowed,
        }
    }

    /// The save error for `e`, met while reading `what`.
    pub(crate) fn error(&self, what: &str, e: ReadError) -> SaveError {
        match e {
            ReadError::Truncated { start, .. } => self.corrupt(
                start,
                what,
                "the payload ends inside a number (truncated)".into(),
                "a complete varint".into(),
            ),
            ReadError::Overlong { start } => {
                self.corrupt(start, what, "number longer than 64 bits".into(), "a varint of at most 10 bytes".into())
            }
            ReadError::Length { start, len, max, left } => {
                self.corrupt(start, what, format!("claims {len} bytes"), format!("at most {}", max.min(left as u64)))
            }
            ReadError::NotUtf8 { at, .. } => self.corrupt(at, what, "invalid UTF-8".into(), "UTF-8 text".into()),
        }
    }

    pub(crate) fn left(&self) -> usize {
        self.raw.left()
    }

    pub(crate) fn varint(&mut self, what: &str) -> Result<u64, SaveError> {
        self.raw.varint().map_err(|e| self.error(what, e))
    }

    /// A varint that must be `<= max`.
    pub(crate) fn bounded(&mut self, what: &str, max: u64) -> Result<u64, SaveError> {
        let at = self.pos();
        let v = self.varint(what)?;
        if v > max {
            return Err(self.corrupt(at, what, format!("claims {v}"), format!("at most {max}")));
        }
        Ok(v)
    }

    pub(crate) fn zigzag(&mut self, what: &str) -> Result<i64, SaveError> {
        self.raw.zigzag().map_err(|e| self.error(what, e))
    }

    /// Length-prefixed UTF-8 text of at most `max` bytes, and no longer than the bytes left
    /// after its length.
    pub(crate) fn string(&mut self, what: &str, max: u64) -> Result<String, SaveError> {
        self.raw.string(max).map_err(|e| self.error(what, e))
    }
}
