//! A shared world's game state: a small key/value map the server alone sets (time of day,
//! weather, scores…) and every client receives, whole on joining and each change after.
//!
//! Values take a fixed, safe set of types ([`SharedValue`]: bool, integer, float, text, 2D and
//! 3D vectors, bytes), never arbitrary engine objects, and everything is bounded: keys of 1 to
//! [`MAX_SHARED_KEY_BYTES`] bytes without control characters, text and bytes of at most
//! [`MAX_SHARED_VALUE_BYTES`], at most [`MAX_SHARED_KEYS`] keys, finite numbers only. So the
//! whole state always fits one packet. Every refusal names the key, the value and what is allowed
//! (law: Clear errors).
//!
//! A world save keeps the state as text in its game state, one entry per key under
//! [`SAVE_KEY_PREFIX`] (`bool:true`, `int:-3`, `float:0.25`, `string:…`, `vector2:1,2`,
//! `vector3:1,2,3`, `bytes:<hex>`), so a save stays readable and a resumed server gets it back.
//!
//! May use: `std` and `thiserror`; nothing else in this crate.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use thiserror::Error;

/// The most keys a shared state holds.
pub const MAX_SHARED_KEYS: usize = 128;
/// The longest key, in bytes.
pub const MAX_SHARED_KEY_BYTES: usize = 64;
/// The longest text or byte value, in bytes.
pub const MAX_SHARED_VALUE_BYTES: usize = 512;
/// Where a world save's game state keeps the shared state: this prefix, then the key.
pub const SAVE_KEY_PREFIX: &str = "strata.shared.";

/// One value of the shared state.
#[derive(Clone, Debug, PartialEq)]
pub enum SharedValue {
    Bool(bool),
    Int(i64),
    /// Finite.
    Float(f64),
    /// At most [`MAX_SHARED_VALUE_BYTES`] bytes of UTF-8.
    Text(String),
    /// Finite components.
    Vector2([f32; 2]),
    /// Finite components.
    Vector3([f32; 3]),
    /// At most [`MAX_SHARED_VALUE_BYTES`] bytes.
    Bytes(Vec<u8>),
}

/// Why a key or value cannot be shared (or read back from a save).
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum SharedStateError {
    #[error(
        "shared state key {key:?} is not allowed; allowed: 1 to {MAX_SHARED_KEY_BYTES} bytes without control characters"
    )]
    BadKey { key: String },
    #[error("shared state {key:?}: {what}; allowed: {allowed}")]
    BadValue { key: String, what: String, allowed: String },
    #[error("shared state {key:?} would be key number {count}; allowed: at most {MAX_SHARED_KEYS} keys")]
    TooManyKeys { key: String, count: usize },
}

/// What a value's type may hold, for error text.
const ALLOWED_VALUES: &str = "bool, int, finite float, String or PackedByteArray of at most 512 bytes, \
                              Vector2 or Vector3 with finite components";

impl SharedValue {
    /// The type's name as Godot calls it (errors, docs).
    pub fn type_name(&self) -> &'static str {
        match self {
            Self::Bool(_) => "bool",
            Self::Int(_) => "int",
            Self::Float(_) => "float",
            Self::Text(_) => "String",
            Self::Vector2(_) => "Vector2",
            Self::Vector3(_) => "Vector3",
            Self::Bytes(_) => "PackedByteArray",
        }
    }

    /// Checks the value's bounds: finite numbers, text and bytes no longer than
    /// [`MAX_SHARED_VALUE_BYTES`].
    pub fn check(&self, key: &str) -> Result<(), SharedStateError> {
        let bad =
            |what: String| SharedStateError::BadValue { key: key.to_string(), what, allowed: ALLOWED_VALUES.into() };
        match self {
            Self::Float(v) if !v.is_finite() => Err(bad(format!("the float {v} is not finite"))),
            Self::Vector2(v) if v.iter().any(|c| !c.is_finite()) => {
                Err(bad(format!("the Vector2 {v:?} has a component that is not finite")))
            }
            Self::Vector3(v) if v.iter().any(|c| !c.is_finite()) => {
                Err(bad(format!("the Vector3 {v:?} has a component that is not finite")))
            }
            Self::Text(s) if s.len() > MAX_SHARED_VALUE_BYTES => Err(bad(format!("a String of {} bytes", s.len()))),
            Self::Bytes(b) if b.len() > MAX_SHARED_VALUE_BYTES => {
                Err(bad(format!("a PackedByteArray of {} bytes", b.len())))
            }
            _ => Ok(()),
        }
    }

    /// The value as a save keeps it: `type:value` (floats in Rust's shortest exact form).
    pub fn to_text(&self) -> String {
        match self {
            Self::Bool(b) => format!("bool:{b}"),
            Self::Int(i) => format!("int:{i}"),
            Self::Float(f) => format!("float:{f:?}"),
            Self::Text(s) => format!("string:{s}"),
            Self::Vector2([x, y]) => format!("vector2:{x:?},{y:?}"),
            Self::Vector3([x, y, z]) => format!("vector3:{x:?},{y:?},{z:?}"),
            Self::Bytes(b) => {
                let mut s = String::with_capacity(6 + 2 * b.len());
                s.push_str("bytes:");
                for byte in b {
                    let _ = write!(s, "{byte:02x}");
                }
                s
            }
        }
    }

    /// Reads [`SharedValue::to_text`]'s form back (checked like a value being set).
    pub fn from_text(key: &str, text: &str) -> Result<Self, SharedStateError> {
        let bad = |what: &str| SharedStateError::BadValue {
            key: key.to_string(),
            what: format!("the saved text {:?} {what}", shorten(text)),
            allowed: "bool:, int:, float:, string:, vector2:, vector3: or bytes: then the value".into(),
        };
        let (kind, body) = text.split_once(':').ok_or_else(|| bad("has no type"))?;
        let floats = |n: usize| -> Result<Vec<f32>, SharedStateError> {
            let v: Vec<f32> = body
                .split(',')
                .map(|c| c.trim().parse::<f32>())
                .collect::<Result<_, _>>()
                .map_err(|_| bad("is not a vector"))?;
            if v.len() == n { Ok(v) } else { Err(bad("has the wrong number of components")) }
        };
        let value = match kind {
            "bool" => Self::Bool(body.parse().map_err(|_| bad("is not true or false"))?),
            "int" => Self::Int(body.parse().map_err(|_| bad("is not a 64-bit integer"))?),
            "float" => Self::Float(body.parse().map_err(|_| bad("is not a number"))?),
            "string" => Self::Text(body.to_string()),
            "vector2" => {
                let v = floats(2)?;
                Self::Vector2([v[0], v[1]])
            }
            "vector3" => {
                let v = floats(3)?;
                Self::Vector3([v[0], v[1], v[2]])
            }
            "bytes" => {
                if body.len() % 2 != 0 || !body.is_ascii() {
                    return Err(bad("is not hexadecimal bytes"));
                }
                let bytes = (0..body.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(&body[i..i + 2], 16))
                    .collect::<Result<Vec<u8>, _>>()
                    .map_err(|_| bad("is not hexadecimal bytes"))?;
                Self::Bytes(bytes)
            }
            _ => return Err(bad("has an unknown type")),
        };
        value.check(key)?;
        Ok(value)
    }
}

/// The first 40 characters of `s`, for error text.
fn shorten(s: &str) -> String {
    match s.char_indices().nth(40) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

/// Checks a key: 1 to [`MAX_SHARED_KEY_BYTES`] bytes, no control characters.
pub fn check_key(key: &str) -> Result<(), SharedStateError> {
    if key.is_empty() || key.len() > MAX_SHARED_KEY_BYTES || key.chars().any(char::is_control) {
        return Err(SharedStateError::BadKey { key: shorten(key) });
    }
    Ok(())
}

/// The shared state: keys in order, every entry within bounds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SharedState {
    entries: BTreeMap<String, SharedValue>,
}

impl SharedState {
    /// Sets `key` to `value` (`None` erases it) after checking both; true when the state changed.
    pub fn set(&mut self, key: &str, value: Option<SharedValue>) -> Result<bool, SharedStateError> {
        check_key(key)?;
        match value {
            None => Ok(self.entries.remove(key).is_some()),
            Some(value) => {
                value.check(key)?;
                if self.entries.get(key) == Some(&value) {
                    return Ok(false);
                }
                if !self.entries.contains_key(key) && self.entries.len() >= MAX_SHARED_KEYS {
                    return Err(SharedStateError::TooManyKeys { key: key.to_string(), count: self.entries.len() + 1 });
                }
                self.entries.insert(key.to_string(), value);
                Ok(true)
            }
        }
    }

    pub fn get(&self, key: &str) -> Option<&SharedValue> {
        self.entries.get(key)
    }

    /// The entries, keys in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &SharedValue)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v))
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// A state of these entries, each checked (a later duplicate key replaces an earlier one).
    pub fn from_entries(entries: impl IntoIterator<Item = (String, SharedValue)>) -> Result<Self, SharedStateError> {
        let mut state = Self::default();
        for (k, v) in entries {
            state.set(&k, Some(v))?;
        }
        Ok(state)
    }

    /// The entries as a save's game state keeps them: `(SAVE_KEY_PREFIX + key, text form)`.
    pub fn to_save_entries(&self) -> Vec<(String, String)> {
        self.iter().map(|(k, v)| (format!("{SAVE_KEY_PREFIX}{k}"), v.to_text())).collect()
    }

    /// The shared state a save's game state holds (its entries under [`SAVE_KEY_PREFIX`]; the
    /// others are left alone).
    pub fn from_save_entries<'a>(
        state: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Self, SharedStateError> {
        let mut entries = Vec::new();
        for (k, v) in state {
            if let Some(key) = k.strip_prefix(SAVE_KEY_PREFIX) {
                entries.push((key.to_string(), SharedValue::from_text(key, v)?));
            }
        }
        Self::from_entries(entries)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_kind() -> Vec<SharedValue> {
        vec![
            SharedValue::Bool(true),
            SharedValue::Int(i64::MIN),
            SharedValue::Int(42),
            SharedValue::Float(0.1 + 0.2),
            SharedValue::Float(-1e300),
            SharedValue::Text("rain, then sun: ✓".into()),
            SharedValue::Text(String::new()),
            SharedValue::Vector2([1.5, -0.1]),
            SharedValue::Vector3([f32::MAX, f32::MIN_POSITIVE, 3.0]),
            SharedValue::Bytes(vec![0, 255, 16]),
            SharedValue::Bytes(vec![]),
        ]
    }

    #[test]
    fn every_value_round_trips_through_its_saved_text_exactly() {
        for v in every_kind() {
            assert_eq!(SharedValue::from_text("k", &v.to_text()), Ok(v.clone()), "{}", v.to_text());
        }
        assert_eq!(SharedValue::Float(0.25).to_text(), "float:0.25");
        assert_eq!(SharedValue::Bytes(vec![1, 171]).to_text(), "bytes:01ab");
    }

    #[test]
    fn bad_saved_text_is_a_named_error() {
        for text in [
            "nothing",
            "int:1.5",
            "float:x",
            "vector2:1",
            "vector3:1,2,x",
            "bytes:0",
            "bytes:zz",
            "colour:1",
            "float:inf",
        ] {
            let e = SharedValue::from_text("sky", text).unwrap_err();
            assert!(e.to_string().starts_with("shared state \"sky\""), "{e}");
        }
    }

    #[test]
    fn keys_values_and_counts_are_bounded() {
        let mut s = SharedState::default();
        assert_eq!(s.set("time_of_day", Some(SharedValue::Float(0.5))), Ok(true));
        assert_eq!(s.set("time_of_day", Some(SharedValue::Float(0.5))), Ok(false), "unchanged");
        assert!(matches!(s.set("", Some(SharedValue::Int(1))), Err(SharedStateError::BadKey { .. })));
        assert!(matches!(s.set("a\nb", Some(SharedValue::Int(1))), Err(SharedStateError::BadKey { .. })));
        let long = "k".repeat(MAX_SHARED_KEY_BYTES + 1);
        assert!(matches!(s.set(&long, Some(SharedValue::Int(1))), Err(SharedStateError::BadKey { .. })));
        assert!(s.set(&"k".repeat(MAX_SHARED_KEY_BYTES), Some(SharedValue::Int(1))).is_ok());
        let e = s.set("t", Some(SharedValue::Text("x".repeat(MAX_SHARED_VALUE_BYTES + 1)))).unwrap_err();
        assert_eq!(e.to_string(), format!("shared state \"t\": a String of 513 bytes; allowed: {ALLOWED_VALUES}"));
        assert!(s.set("t", Some(SharedValue::Bytes(vec![0; MAX_SHARED_VALUE_BYTES]))).is_ok());
        assert!(s.set("n", Some(SharedValue::Float(f64::NAN))).is_err());
        assert!(s.set("v", Some(SharedValue::Vector3([0.0, f32::INFINITY, 0.0]))).is_err());
        for i in s.len()..MAX_SHARED_KEYS {
            assert_eq!(s.set(&format!("key{i}"), Some(SharedValue::Int(i as i64))), Ok(true));
        }
        let e = s.set("one_more", Some(SharedValue::Bool(false))).unwrap_err();
        assert_eq!(e, SharedStateError::TooManyKeys { key: "one_more".into(), count: MAX_SHARED_KEYS + 1 });
        // An existing key still changes, and an erased one makes room.
        assert_eq!(s.set("time_of_day", Some(SharedValue::Float(0.75))), Ok(true));
        assert_eq!(s.set("time_of_day", None), Ok(true));
        assert_eq!(s.set("time_of_day", None), Ok(false));
        assert_eq!(s.set("one_more", Some(SharedValue::Bool(false))), Ok(true));
    }

    #[test]
    fn a_save_keeps_the_shared_state_beside_other_game_state() {
        let s =
            SharedState::from_entries(every_kind().into_iter().enumerate().map(|(i, v)| (format!("k{i}"), v))).unwrap();
        let mut saved: Vec<(String, String)> = s.to_save_entries();
        saved.push(("time_of_day".into(), "not shared".into()));
        let back = SharedState::from_save_entries(saved.iter().map(|(k, v)| (k.as_str(), v.as_str()))).unwrap();
        assert_eq!(back, s);
        let bad = [("strata.shared.x", "int:one")];
        assert!(SharedState::from_save_entries(bad).is_err());
    }
}
