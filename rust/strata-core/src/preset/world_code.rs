//! World codes: a short text that names a world (seed + settings) for a friend to paste.
//!
//! A code is `strata2-` followed by base64url (RFC 4648 §5, no padding) of:
//!
//! | bytes | what |
//! |---|---|
//! | 4 | CRC-32 (IEEE, little-endian) of every byte after it: a mistyped or cut code is caught |
//! | 4 | the low 32 bits of the world's [`fingerprint`] (little-endian): checked after decoding, so a base preset that differs here (another Strata version) is an error, never a silently different world |
//! | 1–10 | the seed, unsigned LEB128 |
//! | 1 + n | the base preset's name: its length n (0–64), then n bytes of `[a-z0-9_]`; empty = the built-in default |
//! | rest | raw deflate of the TOML text of the settings that differ from the base preset (tables recursively, lists whole; name and seed excluded) |
//!
//! The base preset is named, not embedded: the code of a shipped preset with a new seed and two
//! sliders moved is about 60 characters. Decoding ([`read_world_code`]) checks the text, the
//! checksum and the compressed settings; [`WorldCode::apply`] merges the settings into the base
//! preset the caller looked up by name, validates the result and checks the fingerprint.
//! The format is described for users in `docs/formats.md`.
//!
//! Versions: `strata2-` and `strata1-` codes read the same; only the built-in default they name
//! by "" differs: a `strata1-` code's is the default of preset format 1
//! ([`WorldPreset::format1_default`]); a `strata2-` code's is today's or, when the fingerprint
//! says so, that of preset format 2 (codes made before format 3 changed the default's biome
//! borders). So an old code keeps its world.
//!
//! May use: `preset::model`, `preset::fingerprint` (diff and merge of settings, the hash),
//! `preset::ron` (validation), flate2, crc32fast.

use crate::preset::fingerprint::{diff_tree, fingerprint, merge_tree, strip_identity};
use crate::preset::model::WorldPreset;
use std::io::{Read, Write};
use thiserror::Error;

/// What every code of this version starts with.
pub const PREFIX: &str = "strata2-";
/// The format version in [`PREFIX`].
pub const VERSION: u32 = 2;
/// The prefix of version-1 codes, still read.
pub const PREFIX_V1: &str = "strata1-";
/// Longest base preset name.
pub const MAX_BASE_NAME: usize = 64;
/// Longest code read (characters); longer text is refused before decoding.
pub const MAX_CODE_LEN: usize = 16_384;
/// Largest settings text a code may inflate to (bytes).
const MAX_SETTINGS_TEXT: u64 = 256 * 1024;

/// Why a world code could not be made or read. Each message names the problem and what is
/// allowed.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum WorldCodeError {
    #[error("world code: the code is empty; allowed: text starting with `{PREFIX}`")]
    Empty,
    #[error("world code: {length} characters is too long; allowed: at most {MAX_CODE_LEN}")]
    TooLong { length: usize },
    #[error("world code: `{start}` is not the start of a Strata world code; allowed: text starting with `{PREFIX}`")]
    Prefix { start: String },
    #[error(
        "world code: version {version} was made by a newer Strata; this one reads versions 1 and {VERSION} (`{PREFIX_V1}…`, `{PREFIX}…`)"
    )]
    Version { version: String },
    #[error(
        "world code: character `{character}` at position {position} is not allowed; allowed: A–Z, a–z, 0–9, `-` and `_` after `{PREFIX}`"
    )]
    Character { character: char, position: usize },
    #[error("world code: the code is cut short ({length} bytes of data); allowed: a whole code as it was copied")]
    Truncated { length: usize },
    #[error(
        "world code: the checksum does not match (a character is mistyped, missing or extra); allowed: the code exactly as it was copied"
    )]
    Checksum,
    #[error(
        "world code: base preset name `{name}` is not allowed; allowed: 0–{MAX_BASE_NAME} characters of a–z, 0–9 and `_`"
    )]
    BaseName { name: String },
    #[error("world code: the settings inside cannot be read: {problem}")]
    Settings { problem: String },
    #[error("world code: the base preset `{name}` is not known here; allowed: {known}")]
    UnknownBase { name: String, known: String },
    #[error("world code: the settings do not fit this Strata's presets: {problem}")]
    Invalid { problem: String },
    #[error(
        "world code: the world would differ from the one the code was made for (fingerprint {found:08x}, code says {expected:08x}): base preset `{base}` is not the same here (another Strata version?)"
    )]
    Fingerprint { base: String, expected: u32, found: u32 },
    #[error("world code: cannot encode the settings: {problem}")]
    Encode { problem: String },
}

/// A decoded world code: the base preset's name, the seed and the changed settings.
#[derive(Clone, Debug, PartialEq)]
pub struct WorldCode {
    /// The code's version (1 or [`VERSION`]).
    version: u32,
    base_name: String,
    seed: u64,
    changes: toml::Table,
    check: u32,
}

impl WorldCode {
    /// The name of the preset the code's settings are changes against ("" = built-in default).
    pub fn base_name(&self) -> &str {
        &self.base_name
    }

    /// The world's seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Number of changed settings (leaves of the change tree; a list counts once).
    pub fn change_count(&self) -> usize {
        fn leaves(t: &toml::Table) -> usize {
            t.values().map(|v| if let toml::Value::Table(s) = v { leaves(s) } else { 1 }).sum()
        }
        leaves(&self.changes)
    }

    /// The code's version: 1 (`strata1-`) or [`VERSION`].
    pub fn version(&self) -> u32 {
        self.version
    }

    /// The world: `base` (the preset named by [`WorldCode::base_name`]) with the code's seed and
    /// settings, validated, and with the fingerprint the code was made for. The name is the
    /// base's. A version-1 code on the built-in default ("") applies to the default of preset
    /// format 1, whatever `base` is.
    pub fn apply(&self, base: &WorldPreset) -> Result<WorldPreset, WorldCodeError> {
        if !self.base_name.is_empty() {
            return self.apply_to(base, base);
        }
        match self.version {
            1 => self.apply_to(&WorldPreset::format_default(1), base),
            // A `strata2-` code on the built-in default was made against the default of preset
            // format 2 or, since format 3, against format 3's: the fingerprint tells which.
            _ => self.apply_to(base, base).or_else(|e| match e {
                WorldCodeError::Fingerprint { .. } => {
                    self.apply_to(&WorldPreset::format_default(2), base).map_err(|_| e)
                }
                e => Err(e),
            }),
        }
    }

    /// [`WorldCode::apply`] with the code's settings merged into `settings_base`, named as `base`.
    fn apply_to(&self, settings_base: &WorldPreset, base: &WorldPreset) -> Result<WorldPreset, WorldCodeError> {
        let mut tree = match toml::Value::try_from(strip_identity(settings_base)) {
            Ok(toml::Value::Table(t)) => t,
            Ok(_) | Err(_) => {
                return Err(WorldCodeError::Invalid { problem: "the base preset has no settings".into() });
            }
        };
        merge_tree(&mut tree, self.changes.clone());
        let mut preset: WorldPreset = toml::Value::Table(tree)
            .try_into()
            .map_err(|e: toml::de::Error| WorldCodeError::Invalid { problem: e.message().trim().to_string() })?;
        preset.name = base.name.clone();
        preset.seed = self.seed;
        preset.validate().map_err(|e| WorldCodeError::Invalid { problem: e.to_string() })?;
        let found = fingerprint_check(&preset);
        if found != self.check {
            return Err(WorldCodeError::Fingerprint { base: self.base_name.clone(), expected: self.check, found });
        }
        Ok(preset)
    }
}

/// The code of `preset` as changes against `base`, the preset called `base_name` ("" = the
/// built-in default) that the reader looks up by that name.
pub fn encode_world_code(preset: &WorldPreset, base_name: &str, base: &WorldPreset) -> Result<String, WorldCodeError> {
    check_base_name(base_name)?;
    let tree = |p: &WorldPreset| {
        toml::Value::try_from(strip_identity(p)).map_err(|e| WorldCodeError::Encode { problem: e.to_string() })
    };
    let changes = match diff_tree(&tree(preset)?, Some(&tree(base)?)) {
        Some(toml::Value::Table(t)) => t,
        _ => toml::Table::new(),
    };
    let text = if changes.is_empty() {
        String::new()
    } else {
        toml::to_string(&changes).map_err(|e| WorldCodeError::Encode { problem: e.to_string() })?
    };
    let mut body = Vec::with_capacity(64 + text.len() / 2);
    body.extend_from_slice(&fingerprint_check(preset).to_le_bytes());
    write_leb128(preset.seed, &mut body);
    body.push(base_name.len() as u8);
    body.extend_from_slice(base_name.as_bytes());
    let mut deflate = flate2::write::DeflateEncoder::new(body, flate2::Compression::best());
    deflate.write_all(text.as_bytes()).map_err(|e| WorldCodeError::Encode { problem: e.to_string() })?;
    let body = deflate.finish().map_err(|e| WorldCodeError::Encode { problem: e.to_string() })?;
    let mut bytes = crc32fast::hash(&body).to_le_bytes().to_vec();
    bytes.extend_from_slice(&body);
    Ok(format!("{PREFIX}{}", base64url_encode(&bytes)))
}

/// Reads a world code (surrounding white space is ignored). The settings are checked against
/// the base preset only by [`WorldCode::apply`].
pub fn read_world_code(code: &str) -> Result<WorldCode, WorldCodeError> {
    let code = code.trim();
    if code.is_empty() {
        return Err(WorldCodeError::Empty);
    }
    if code.len() > MAX_CODE_LEN {
        return Err(WorldCodeError::TooLong { length: code.chars().count() });
    }
    let (version, data) = match (code.strip_prefix(PREFIX), code.strip_prefix(PREFIX_V1)) {
        (Some(data), _) => (VERSION, Some(data)),
        (None, Some(data)) => (1, Some(data)),
        (None, None) => (VERSION, None),
    };
    let Some(data) = data else {
        // `strataN-` of another version, or not a code at all.
        if let Some(rest) = code.strip_prefix("strata")
            && let Some((version, _)) = rest.split_once('-')
            && !version.is_empty()
            && version.bytes().all(|b| b.is_ascii_digit())
        {
            return Err(WorldCodeError::Version { version: version.into() });
        }
        return Err(WorldCodeError::Prefix { start: code.chars().take(PREFIX.len()).collect() });
    };
    let bytes = base64url_decode(data).map_err(|(character, at)| WorldCodeError::Character {
        character,
        position: PREFIX.chars().count() + at + 1,
    })?;
    // CRC + check + seed + name length: at least 10 bytes, and the deflate stream.
    if bytes.len() < 11 {
        return Err(WorldCodeError::Truncated { length: bytes.len() });
    }
    let (crc, body) = bytes.split_at(4);
    if crc32fast::hash(body) != u32::from_le_bytes([crc[0], crc[1], crc[2], crc[3]]) {
        return Err(WorldCodeError::Checksum);
    }
    let check = u32::from_le_bytes([body[0], body[1], body[2], body[3]]);
    let mut at = 4;
    let seed = read_leb128(body, &mut at).ok_or(WorldCodeError::Truncated { length: bytes.len() })?;
    let name_len = *body.get(at).ok_or(WorldCodeError::Truncated { length: bytes.len() })? as usize;
    at += 1;
    let name_bytes = body.get(at..at + name_len).ok_or(WorldCodeError::Truncated { length: bytes.len() })?;
    let base_name = String::from_utf8_lossy(name_bytes).into_owned();
    check_base_name(&base_name)?;
    at += name_len;
    let mut text = String::new();
    flate2::read::DeflateDecoder::new(&body[at..])
        .take(MAX_SETTINGS_TEXT)
        .read_to_string(&mut text)
        .map_err(|e| WorldCodeError::Settings { problem: e.to_string() })?;
    let changes: toml::Table =
        toml::from_str(&text).map_err(|e| WorldCodeError::Settings { problem: e.message().trim().to_string() })?;
    Ok(WorldCode { version, base_name, seed, changes, check })
}

/// Reads `code` and applies it to the base preset that `lookup` returns for its name; `known`
/// lists the names `lookup` knows, for the error when it returns `None`.
pub fn preset_from_world_code(
    code: &str,
    lookup: impl Fn(&str) -> Option<WorldPreset>,
    known: &[&str],
) -> Result<WorldPreset, WorldCodeError> {
    let decoded = read_world_code(code)?;
    let Some(base) = lookup(decoded.base_name()) else {
        let list: Vec<String> = known
            .iter()
            .map(|k| if k.is_empty() { "\"\" (built-in default)".into() } else { format!("`{k}`") })
            .collect();
        return Err(WorldCodeError::UnknownBase {
            name: decoded.base_name().into(),
            known: if list.is_empty() { "no base presets".into() } else { list.join(", ") },
        });
    };
    decoded.apply(&base)
}

/// Low 32 bits of the world's fingerprint.
fn fingerprint_check(preset: &WorldPreset) -> u32 {
    u64::from_str_radix(&fingerprint(preset), 16).unwrap_or(0) as u32
}

fn check_base_name(name: &str) -> Result<(), WorldCodeError> {
    if name.len() <= MAX_BASE_NAME && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_') {
        Ok(())
    } else {
        Err(WorldCodeError::BaseName { name: name.chars().take(80).collect() })
    }
}

fn write_leb128(mut v: u64, out: &mut Vec<u8>) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn read_leb128(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        v |= ((b & 0x7f) as u64).checked_shl(shift)?;
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

fn base64url_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | (b as u32) << (16 - 8 * i));
        for i in 0..chunk.len() + 1 {
            out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

/// The bytes of base64url text without padding; `Err((character, index))` for a character
/// outside the alphabet (or a lone last character, which no byte string encodes to).
fn base64url_decode(text: &str) -> Result<Vec<u8>, (char, usize)> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for (i, c) in text.chars().enumerate() {
        let v = match c {
            'A'..='Z' => c as u32 - 'A' as u32,
            'a'..='z' => c as u32 - 'a' as u32 + 26,
            '0'..='9' => c as u32 - '0' as u32 + 52,
            '-' => 62,
            '_' => 63,
            _ => return Err((c, i)),
        };
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    // A lone last character, or one whose unused low bits are set, is not what any bytes
    // encode to: refused, so that each code has one spelling.
    if bits == 6 || acc != 0 {
        let last = text.chars().count() - 1;
        return Err((text.chars().last().unwrap_or(' '), last));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preset::fields::FieldValue;
    use crate::preset::fingerprint::with_new_seed;

    fn customised() -> WorldPreset {
        let mut p = with_new_seed(&WorldPreset::default(), 1_234_567_890);
        p.set_field("height_amplitude", FieldValue::Float(61.5)).unwrap();
        p.set_field("height_scale", FieldValue::Float(512.0)).unwrap();
        p.set_field("water_sea_level", FieldValue::Int(12)).unwrap();
        p.set_field("caves_fill_probability", FieldValue::Float(0.5)).unwrap();
        p.ores.kinds[0].clusters_per_chunk_max = 9;
        p
    }

    fn lookup(name: &str) -> Option<WorldPreset> {
        name.is_empty().then(WorldPreset::default)
    }

    #[test]
    fn a_code_round_trips_to_the_same_world() {
        let p = customised();
        let code = encode_world_code(&p, "", &WorldPreset::default()).unwrap();
        assert!(code.starts_with(PREFIX), "{code}");
        // Seed, four fields and one whole list (the ore kinds: lists travel whole): 302 characters.
        assert!(code.len() < 400, "short: {} characters: {code}", code.len());
        let back = preset_from_world_code(&code, lookup, &[""]).unwrap();
        assert_eq!(back, p);
        assert_eq!(fingerprint(&back), fingerprint(&p));
        let decoded = read_world_code(&code).unwrap();
        assert_eq!((decoded.base_name(), decoded.seed(), decoded.change_count()), ("", 1_234_567_890, 5));
        // White space around a pasted code is ignored; the same preset gives the same code.
        assert_eq!(preset_from_world_code(&format!("  {code}\n"), lookup, &[""]).unwrap(), p);
        assert_eq!(encode_world_code(&p, "", &WorldPreset::default()).unwrap(), code);
    }

    #[test]
    fn a_reseeded_base_preset_gives_a_short_code() {
        let mut base = WorldPreset::default();
        base.height.amplitude = 90.0;
        let p = with_new_seed(&base, u64::MAX);
        let code = encode_world_code(&p, "alpine_mountains", &base).unwrap();
        // 4 + 4 + 10 (the largest seed) + 17 (the name) + 2 bytes: 58 characters.
        assert!(code.len() <= 60, "{} characters: {code}", code.len());
        let decoded = read_world_code(&code).unwrap();
        assert_eq!((decoded.base_name(), decoded.seed(), decoded.change_count()), ("alpine_mountains", u64::MAX, 0));
        assert_eq!(decoded.apply(&base).unwrap(), p);
    }

    #[test]
    fn every_bad_code_names_its_problem() {
        let code = encode_world_code(&customised(), "", &WorldPreset::default()).unwrap();
        let err = |c: &str| read_world_code(c).unwrap_err();
        assert_eq!(err("  "), WorldCodeError::Empty);
        assert!(matches!(err("hello world"), WorldCodeError::Prefix { .. }));
        assert!(err("hello world").to_string().contains("strata2-"));
        assert_eq!(err("strata3-AAAA"), WorldCodeError::Version { version: "3".into() });
        assert!(matches!(err("strata2-AAAA"), WorldCodeError::Truncated { .. }));
        let bad_char = format!("{}!{}", &code[..20], &code[21..]);
        assert_eq!(err(&bad_char), WorldCodeError::Character { character: '!', position: 21 });
        assert!(matches!(err("strata1-AAAA"), WorldCodeError::Truncated { .. }));
        assert!(matches!(err(&"x".repeat(MAX_CODE_LEN + 1)), WorldCodeError::TooLong { .. }));
        // Every single-character typo and every cut is caught (checksum or a later check).
        let chars: Vec<char> = code.chars().collect();
        for i in PREFIX.len()..chars.len() {
            let mut typo = chars.clone();
            typo[i] = if typo[i] == 'A' { 'B' } else { 'A' };
            let typo: String = typo.into_iter().collect();
            assert!(preset_from_world_code(&typo, lookup, &[""]).is_err(), "typo at {i} accepted");
            assert!(preset_from_world_code(&code[..i], lookup, &[""]).is_err(), "cut at {i} accepted");
        }
        let at = PREFIX.len() + 12;
        let typo = format!("{}{}{}", &code[..at], if &code[at..at + 1] == "A" { "B" } else { "A" }, &code[at + 1..]);
        assert_eq!(err(&typo), WorldCodeError::Checksum);
    }

    #[test]
    fn an_unknown_or_different_base_is_an_error_not_another_world() {
        let p = customised();
        let code = encode_world_code(&p, "archipelago", &WorldPreset::default()).unwrap();
        let e = preset_from_world_code(&code, lookup, &["", "default_hills"]).unwrap_err();
        assert!(matches!(&e, WorldCodeError::UnknownBase { name, .. } if name == "archipelago"), "{e}");
        assert!(e.to_string().contains("`default_hills`"), "{e}");
        // The same name standing for other settings here: the fingerprint check refuses it.
        let mut other = WorldPreset::default();
        other.height.base_height = 30.0;
        let e = read_world_code(&code).unwrap().apply(&other).unwrap_err();
        assert!(matches!(e, WorldCodeError::Fingerprint { .. }), "{e}");
        assert!(e.to_string().contains("archipelago"), "{e}");
    }

    #[test]
    fn bad_base_names_are_refused_when_encoding() {
        let e = encode_world_code(&WorldPreset::default(), "My Preset", &WorldPreset::default()).unwrap_err();
        assert!(matches!(e, WorldCodeError::BaseName { .. }), "{e}");
        let long = "a".repeat(MAX_BASE_NAME + 1);
        assert!(encode_world_code(&WorldPreset::default(), &long, &WorldPreset::default()).is_err());
    }

    #[test]
    fn base64url_round_trips_every_length() {
        for n in 0..20u8 {
            let bytes: Vec<u8> = (0..n).map(|i| i.wrapping_mul(97).wrapping_add(n)).collect();
            assert_eq!(base64url_decode(&base64url_encode(&bytes)).unwrap(), bytes);
        }
        let mut out = Vec::new();
        for v in [0, 1, 127, 128, 300, u32::MAX as u64, u64::MAX] {
            out.clear();
            write_leb128(v, &mut out);
            let mut at = 0;
            assert_eq!(read_leb128(&out, &mut at), Some(v));
            assert_eq!(at, out.len());
        }
    }
}
