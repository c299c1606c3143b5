//! The byte codec of saves and their parts: LEB128 varints, zigzag integers, length-prefixed
//! text, and a bounds-checked reader whose errors name the part, the offset and what is allowed.
//!
//! May use: `persist::error`.

use crate::persist::error::SaveError;

pub(crate) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

pub(crate) fn put_zigzag(out: &mut Vec<u8>, v: i64) {
    put_varint(out, ((v << 1) ^ (v >> 63)) as u64);
}

pub(crate) fn put_str(out: &mut Vec<u8>, s: &str) {
    put_varint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

/// A little-endian `f32`.
pub(crate) fn put_f32(out: &mut Vec<u8>, v: f32) {
    out.extend_from_slice(&v.to_le_bytes());
}

pub(crate) struct Reader<'a> {
    pub(crate) file: &'a str,
    pub(crate) bytes: &'a [u8],
    pub(crate) pos: usize,
}

impl<'a> Reader<'a> {
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

    pub(crate) fn left(&self) -> usize {
        self.bytes.len() - self.pos
    }

    pub(crate) fn varint(&mut self, what: &str) -> Result<u64, SaveError> {
        let at = self.pos;
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let Some(&b) = self.bytes.get(self.pos) else {
                return Err(self.corrupt(
                    at,
                    what,
                    "the payload ends inside a number (truncated)".into(),
                    "a complete varint".into(),
                ));
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
        Err(self.corrupt(at, what, "number longer than 64 bits".into(), "a varint of at most 10 bytes".into()))
    }

    /// A varint that must be `<= max`.
    pub(crate) fn bounded(&mut self, what: &str, max: u64) -> Result<u64, SaveError> {
        let at = self.pos;
        let v = self.varint(what)?;
        if v > max {
            return Err(self.corrupt(at, what, format!("claims {v}"), format!("at most {max}")));
        }
        Ok(v)
    }

    pub(crate) fn zigzag(&mut self, what: &str) -> Result<i64, SaveError> {
        let v = self.varint(what)?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }

    /// Length-prefixed UTF-8 text of at most `max` bytes, and no longer than the bytes left
    /// after its length.
    pub(crate) fn string(&mut self, what: &str, max: u64) -> Result<String, SaveError> {
        let at = self.pos;
        let len = self.varint(what)?;
        if len > max || len > self.left() as u64 {
            return Err(self.corrupt(
                at,
                what,
                format!("claims {len} bytes"),
                format!("at most {}", max.min(self.left() as u64)),
            ));
        }
        let len = len as usize;
        let raw = &self.bytes[self.pos..self.pos + len];
        let s = std::str::from_utf8(raw)
            .map_err(|e| self.corrupt(self.pos + e.valid_up_to(), what, "invalid UTF-8".into(), "UTF-8 text".into()))?
            .to_string();
        self.pos += len;
        Ok(s)
    }
}
