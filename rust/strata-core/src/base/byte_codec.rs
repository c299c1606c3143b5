//! The byte codec that saves, journals and the wire protocol share: LEB128 varints, zigzag
//! integers, little-endian floats, length-prefixed bytes and UTF-8 text, and [`ByteReader`], a
//! bounds-checked reader.
//!
//! One implementation serves every format, so the same value is the same bytes on disk and on
//! the wire. The reader never panics, whatever the bytes: it refuses a number longer than 64
//! bits, a length past its limit or past the bytes left (before anything is allocated) and text
//! that is not UTF-8, each as a [`ReadError`] holding the offsets involved. Each format turns a
//! `ReadError` into its own error type, naming the part it was reading (law: Clear errors).
//!
//! May use: nothing from the crate (`base`).

use thiserror::Error;

/// Appends `v` as an LEB128 varint: seven bits a byte, low bits first, the high bit set on every
/// byte but the last (1 to 10 bytes).
pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends `v` zigzag-coded (0, -1, 1, -2, … as 0, 1, 2, 3, …) as a varint. An `i32` widened to
/// `i64` gives the same bytes as 32-bit zigzag.
pub fn put_zigzag(out: &mut Vec<u8>, v: i64) {
    put_varint(out, ((v << 1) ^ (v >> 63)) as u64);
}

/// Appends a little-endian `f32`.
pub fn put_f32(out: &mut Vec<u8>, v: f32) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// Appends bytes as a varint length, then the bytes.
pub fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

/// Appends text as a varint length in bytes, then its UTF-8.
pub fn put_str(out: &mut Vec<u8>, s: &str) {
    put_bytes(out, s.as_bytes());
}

/// Why [`ByteReader`] could not read an item. Offsets are from the start of its bytes; each
/// format names the item and says these in its own words.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum ReadError {
    /// The bytes end inside the item that starts at `start`; they end at `end`.
    #[error("the bytes end at {end}, inside the item at byte {start}")]
    Truncated { start: usize, end: usize },
    /// A varint of more than 64 bits (or more than 10 bytes) starts at `start`.
    #[error("the varint at byte {start} is longer than 64 bits")]
    Overlong { start: usize },
    /// A length-prefixed item at `start` claims `len` bytes: more than its limit `max` or than
    /// the `left` bytes after the length.
    #[error("the item at byte {start} claims {len} bytes; allowed: at most {max} and the {left} bytes left")]
    Length { start: usize, len: u64, max: u64, left: usize },
    /// The text at `start` is not UTF-8 from byte `at` on.
    #[error("the text at byte {start} is not UTF-8 from byte {at}")]
    NotUtf8 { start: usize, at: usize },
}

/// Reads the items of [`put_varint`] and its neighbours from a byte slice, checking every
/// length against the bytes left. After an error its position is unspecified.
#[derive(Clone, Debug)]
pub struct ByteReader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> ByteReader<'a> {
    /// A reader at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        ByteReader { bytes, pos: 0 }
    }

    /// The offset of the next byte to read.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// The bytes not read yet.
    pub fn left(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// The length of the whole slice.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether the whole slice is empty.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    fn truncated(&self, start: usize) -> ReadError {
        ReadError::Truncated { start, end: self.bytes.len() }
    }

    /// The next `n` bytes.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], ReadError> {
        let start = self.pos;
        let b = self.bytes.get(start..start.saturating_add(n)).ok_or(self.truncated(start))?;
        self.pos += n;
        Ok(b)
    }

    /// One byte.
    pub fn byte(&mut self) -> Result<u8, ReadError> {
        Ok(self.take(1)?[0])
    }

    /// An LEB128 varint of at most 64 bits.
    pub fn varint(&mut self) -> Result<u64, ReadError> {
        let start = self.pos;
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let Some(&b) = self.bytes.get(self.pos) else {
                return Err(self.truncated(start));
            };
            self.pos += 1;
            if shift == 63 && b > 1 {
                break;
            }
            v |= ((b & 0x7f) as u64) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(ReadError::Overlong { start })
    }

    /// A zigzag-coded varint.
    pub fn zigzag(&mut self) -> Result<i64, ReadError> {
        let v = self.varint()?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }

    /// A little-endian `f32` (any bits, NaN included).
    pub fn f32(&mut self) -> Result<f32, ReadError> {
        let b = self.take(4)?;
        Ok(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A little-endian `f64` (any bits, NaN included).
    pub fn f64(&mut self) -> Result<f64, ReadError> {
        let b = self.take(8)?;
        Ok(f64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
    }

    /// Length-prefixed bytes, at most `max` of them: the length is checked against `max`, then
    /// against the bytes left after it ([`ReadError::Length`]), before anything is read.
    pub fn bytes(&mut self, max: u64) -> Result<&'a [u8], ReadError> {
        let start = self.pos;
        let len = self.varint()?;
        if len > max || len > self.left() as u64 {
            return Err(ReadError::Length { start, len, max, left: self.left() });
        }
        self.take(len as usize)
    }

    /// Length-prefixed UTF-8 text of at most `max` bytes (checked as [`ByteReader::bytes`]).
    pub fn string(&mut self, max: u64) -> Result<String, ReadError> {
        let start = self.pos;
        let raw = self.bytes(max)?;
        match std::str::from_utf8(raw) {
            Ok(s) => Ok(s.to_string()),
            Err(e) => Err(ReadError::NotUtf8 { start, at: self.pos - raw.len() + e.valid_up_to() }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_and_zigzags_round_trip_in_the_leb128_bytes() {
        for (v, bytes) in [(0u64, &[0u8][..]), (127, &[0x7f]), (128, &[0x80, 1]), (300, &[0xac, 2])] {
            let mut out = Vec::new();
            put_varint(&mut out, v);
            assert_eq!(out, bytes);
        }
        for v in [0u64, 1, 127, 128, 300, u32::MAX as u64, u64::MAX] {
            let mut out = Vec::new();
            put_varint(&mut out, v);
            let mut r = ByteReader::new(&out);
            assert_eq!(r.varint(), Ok(v));
            assert_eq!(r.left(), 0);
        }
        for v in [0i64, -1, 1, i32::MIN as i64, i32::MAX as i64, i64::MAX, i64::MIN] {
            let mut out = Vec::new();
            put_zigzag(&mut out, v);
            assert_eq!(ByteReader::new(&out).zigzag(), Ok(v));
        }
        // 32-bit zigzag, as the wire protocol wrote it, is the same bytes.
        for v in [0i32, -1, 1, i32::MIN, i32::MAX, -120, 300] {
            let mut a = Vec::new();
            put_zigzag(&mut a, v as i64);
            let mut b = Vec::new();
            put_varint(&mut b, ((v << 1) ^ (v >> 31)) as u32 as u64);
            assert_eq!(a, b, "{v}");
        }
    }

    #[test]
    fn bad_bytes_are_typed_errors_with_their_offsets() {
        assert_eq!(ByteReader::new(&[0x80, 0x80]).varint(), Err(ReadError::Truncated { start: 0, end: 2 }));
        let long = [0xff; 9].iter().copied().chain([2]).collect::<Vec<u8>>();
        assert_eq!(ByteReader::new(&long).varint(), Err(ReadError::Overlong { start: 0 }));
        let eleven = [0x80; 10].iter().copied().chain([0]).collect::<Vec<u8>>();
        assert_eq!(ByteReader::new(&eleven).varint(), Err(ReadError::Overlong { start: 0 }));
        assert_eq!(ByteReader::new(&[1, 2, 3]).f32(), Err(ReadError::Truncated { start: 0, end: 3 }));
        assert_eq!(
            ByteReader::new(&[5, b'a']).string(10),
            Err(ReadError::Length { start: 0, len: 5, max: 10, left: 1 })
        );
        assert_eq!(
            ByteReader::new(&[5, 0, 0, 0, 0, 0]).bytes(4),
            Err(ReadError::Length { start: 0, len: 5, max: 4, left: 5 })
        );
        assert_eq!(ByteReader::new(&[3, b'a', 0xff, b'b']).string(10), Err(ReadError::NotUtf8 { start: 0, at: 2 }));
        let mut out = Vec::new();
        put_str(&mut out, "hé ✓");
        put_f32(&mut out, -1.5);
        let mut r = ByteReader::new(&out);
        assert_eq!(r.string(64).as_deref(), Ok("hé ✓"));
        assert_eq!(r.f32(), Ok(-1.5));
        assert_eq!(r.byte(), Err(ReadError::Truncated { start: out.len(), end: out.len() }));
    }
}
