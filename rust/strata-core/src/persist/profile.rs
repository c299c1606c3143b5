//! Per-user profiles: settings, key bindings and a library of named world presets.
//!
//! Under one profiles directory (on disk; [`profile_from_file_bytes`] and
//! [`preset_file_in_dir`] serve readers of other file systems, such as a game's pack):
//!
//! ```text
//! <dir>/<user>.toml                   the profile (version, [settings], [bindings])
//! <dir>/<user>/presets/<preset>.ron   the user's presets, in the shared preset format
//! ```
//!
//! ```toml
//! version = 1
//!
//! [settings]
//! view_distance = 12
//! mouse_sensitivity = 1.5
//! invert_y = false
//! fov = 80.0
//! fullscreen = false
//! smooth_lighting = true    # ambient occlusion on block faces
//! hud_scale = 1.25          # free-form extra keys are kept as they are
//!
//! [bindings]                # only actions changed from the project's defaults
//! jump = [{ type = "key", physical = 70 }]
//! fire = [{ type = "mouse_button", button = 2 }, { type = "joy_button", button = 5 }]
//! crouch = []               # explicitly unbound
//! ```
//!
//! Bindings store only the changes over the project's default input map (an absent action means
//! "the default"), so a default changed in a later version of the game reaches every player.
//! Keys are stored by physical keycode (the key's place on the keyboard, not its label).
//! User and preset names are checked by [`validate_name`] (names Windows reserves for devices,
//! such as `con` or `com1`, are refused), and a new name that differs from an existing one only
//! in case is refused too: on Windows and macOS both would be the same file. Every write is
//! atomic; a file that does not load is reported with its path, line:column, field and allowed
//! values and is never overwritten by the failed load.
//!
//! What is saved always loads back (law: Nothing is lost): the size limits are shared by both
//! sides ([`MAX_PROFILE_BYTES`] for the file, [`MAX_SETTINGS_BYTES`] for the settings, which
//! [`Settings::set`] checks when a setting is set), and [`ProfileStore::save`] parses the text
//! it is about to write before writing it.
//!
//! May use: `base`, `preset`.

use crate::base::atomic_file::write_atomic;
use crate::preset::error::PresetError;
use crate::preset::file::{load_preset_file, save_preset_file};
use crate::preset::model::WorldPreset;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The newest profile version this build reads and the one it writes.
pub const PROFILE_VERSION: u32 = 1;
/// Longest user or preset name, in characters.
pub const MAX_NAME_CHARS: usize = 32;
/// Profile files larger than this are refused unread, and a profile whose text would be larger
/// is not saved. It lies above the largest profile the other limits allow (the most bindings,
/// [`MAX_BINDINGS`] actions of [`MAX_INPUTS_PER_ACTION`] inputs with the longest names, take
/// about 1.6 MB; the settings at most [`MAX_SETTINGS_BYTES`]), so whatever can be set can be
/// saved and loaded (law: Nothing is lost).
pub const MAX_PROFILE_BYTES: u64 = 4 << 20;
/// Most bytes the `[settings]` table takes as TOML: checked when a setting is set and when a
/// profile is loaded.
pub const MAX_SETTINGS_BYTES: u64 = 256 << 10;
/// Most actions with overrides, and most inputs bound to one action.
pub const MAX_BINDINGS: usize = 512;
pub const MAX_INPUTS_PER_ACTION: usize = 16;

/// One physical input bound to an action.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum InputDescriptor {
    /// A keyboard key by physical keycode (Godot's `Key` value of `physical_keycode`).
    Key { physical: u32 },
    /// A mouse button (Godot's `MouseButton` value: 1 left, 2 right, 3 middle, …).
    MouseButton { button: u32 },
    /// A joypad button (Godot's `JoyButton` value).
    JoyButton { button: u32 },
    /// A joypad axis pushed in `direction` (−1 or +1).
    JoyAxis { axis: u32, direction: f32 },
}

impl InputDescriptor {
    fn check(&self) -> Result<(), String> {
        match *self {
            InputDescriptor::Key { physical } if physical == 0 || physical > 0x7f_ffff => {
                Err(format!("key code {physical}"))
            }
            InputDescriptor::MouseButton { button } if !(1..=9).contains(&button) => {
                Err(format!("mouse button {button}"))
            }
            InputDescriptor::JoyButton { button } if button > 127 => Err(format!("joypad button {button}")),
            InputDescriptor::JoyAxis { axis, .. } if axis > 15 => Err(format!("joypad axis {axis}")),
            InputDescriptor::JoyAxis { direction, .. } if direction != 1.0 && direction != -1.0 => {
                Err(format!("axis direction {direction}"))
            }
            _ => Ok(()),
        }
    }

    /// Human-readable text, e.g. `key 70`, `mouse button 2`.
    pub fn describe(&self) -> String {
        match *self {
            InputDescriptor::Key { physical } => format!("key {physical}"),
            InputDescriptor::MouseButton { button } => format!("mouse button {button}"),
            InputDescriptor::JoyButton { button } => format!("joypad button {button}"),
            InputDescriptor::JoyAxis { axis, direction } => {
                format!("joypad axis {axis}{}", if direction < 0.0 { '-' } else { '+' })
            }
        }
    }
}

const ALLOWED_INPUT: &str = "{ type = \"key\", physical = N>0 } | { type = \"mouse_button\", button = 1..=9 } | { type = \"joy_button\", button = 0..=127 } | { type = \"joy_axis\", axis = 0..=15, direction = -1.0 or 1.0 }";

/// Player settings. Extra keys (a game's own settings) are kept as they are.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// Chunks streamed around the player, 2..=32.
    pub view_distance: i64,
    /// Far view levels beyond the view distance (each doubles the reach), 0..=6.
    pub far_view: i64,
    /// 0.01..=10.
    pub mouse_sensitivity: f64,
    pub invert_y: bool,
    /// Vertical field of view in degrees, 40..=120.
    pub fov: f64,
    pub fullscreen: bool,
    /// Ambient occlusion on block faces; off meshes faster into fewer triangles.
    pub smooth_lighting: bool,
    #[serde(flatten)]
    pub extra: BTreeMap<String, toml::Value>,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            view_distance: 8,
            far_view: 3,
            mouse_sensitivity: 1.0,
            invert_y: false,
            fov: 75.0,
            fullscreen: false,
            smooth_lighting: true,
            extra: BTreeMap::new(),
        }
    }
}

/// A setting's value.
#[derive(Clone, Debug, PartialEq)]
pub enum SettingValue {
    Int(i64),
    Float(f64),
    Bool(bool),
    Text(String),
}

impl std::fmt::Display for SettingValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SettingValue::Int(i) => write!(f, "{i}"),
            SettingValue::Float(x) => write!(f, "{x}"),
            SettingValue::Bool(b) => write!(f, "{b}"),
            SettingValue::Text(s) => write!(f, "{s:?}"),
        }
    }
}

impl Settings {
    /// The setting `key` (a known one or an extra).
    pub fn get(&self, key: &str) -> Option<SettingValue> {
        Some(match key {
            "view_distance" => SettingValue::Int(self.view_distance),
            "far_view" => SettingValue::Int(self.far_view),
            "mouse_sensitivity" => SettingValue::Float(self.mouse_sensitivity),
            "invert_y" => SettingValue::Bool(self.invert_y),
            "fov" => SettingValue::Float(self.fov),
            "fullscreen" => SettingValue::Bool(self.fullscreen),
            "smooth_lighting" => SettingValue::Bool(self.smooth_lighting),
            _ => match self.extra.get(key)? {
                toml::Value::Integer(i) => SettingValue::Int(*i),
                toml::Value::Float(f) => SettingValue::Float(*f),
                toml::Value::Boolean(b) => SettingValue::Bool(*b),
                other => SettingValue::Text(match other {
                    toml::Value::String(s) => s.clone(),
                    o => o.to_string(),
                }),
            },
        })
    }

    /// Checks and stores setting `key`; on error nothing changes.
    pub fn set(&mut self, key: &str, value: SettingValue) -> Result<(), ProfileFieldError> {
        let err = |problem: String, allowed: &str| ProfileFieldError {
            field: format!("settings.{key}"),
            problem,
            allowed: allowed.into(),
        };
        let as_f64 = |v: &SettingValue| match v {
            SettingValue::Float(f) => Some(*f),
            SettingValue::Int(i) => Some(*i as f64),
            _ => None,
        };
        match key {
            "view_distance" => match value {
                SettingValue::Int(i) if (2..=32).contains(&i) => self.view_distance = i,
                SettingValue::Float(f) if f.fract() == 0.0 && (2.0..=32.0).contains(&f) => {
                    self.view_distance = f as i64
                }
                v => return Err(err(format!("{v} is out of range or not an integer"), "an integer in 2..=32")),
            },
            "far_view" => match value {
                SettingValue::Int(i) if (0..=6).contains(&i) => self.far_view = i,
                SettingValue::Float(f) if f.fract() == 0.0 && (0.0..=6.0).contains(&f) => self.far_view = f as i64,
                v => return Err(err(format!("{v} is out of range or not an integer"), "an integer in 0..=6")),
            },
            "mouse_sensitivity" | "fov" => {
                let (lo, hi, allowed) = if key == "fov" {
                    (40.0, 120.0, "a number in 40..=120")
                } else {
                    (0.01, 10.0, "a number in 0.01..=10")
                };
                match as_f64(&value) {
                    Some(f) if f.is_finite() && (lo..=hi).contains(&f) => {
                        if key == "fov" {
                            self.fov = f
                        } else {
                            self.mouse_sensitivity = f
                        }
                    }
                    _ => return Err(err(format!("{value} is out of range or not a number"), allowed)),
                }
            }
            "invert_y" | "fullscreen" | "smooth_lighting" => match value {
                SettingValue::Bool(b) => match key {
                    "invert_y" => self.invert_y = b,
                    "fullscreen" => self.fullscreen = b,
                    _ => self.smooth_lighting = b,
                },
                v => return Err(err(format!("{v} is not a bool"), "true or false")),
            },
            _ => {
                if key.is_empty() || key.len() > 64 || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                    return Err(err(format!("`{key}` is not a setting name"), "1 to 64 ASCII letters, digits or _"));
                }
                let v = match value {
                    SettingValue::Int(i) => toml::Value::Integer(i),
                    SettingValue::Float(f) if f.is_finite() => toml::Value::Float(f),
                    SettingValue::Float(f) => return Err(err(format!("{f} is not finite"), "a finite number")),
                    SettingValue::Bool(b) => toml::Value::Boolean(b),
                    SettingValue::Text(s) if s.len() <= 4096 => toml::Value::String(s),
                    SettingValue::Text(_) => {
                        return Err(err("text longer than 4096 bytes".into(), "at most 4096 bytes"));
                    }
                };
                let old = self.extra.insert(key.to_string(), v);
                let size = self.toml_bytes();
                if size > MAX_SETTINGS_BYTES {
                    match old {
                        Some(old) => self.extra.insert(key.to_string(), old),
                        None => self.extra.remove(key),
                    };
                    return Err(err(
                        format!("the settings would take {size} bytes"),
                        &format!(
                            "at most {MAX_SETTINGS_BYTES} bytes of settings in all (fewer or shorter extra settings)"
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The bytes the settings take as TOML text.
    pub fn toml_bytes(&self) -> u64 {
        // Plain data with string keys always serializes; a failure counts as too large.
        toml::to_string(self).map(|t| t.len() as u64).unwrap_or(u64::MAX)
    }

    /// Checks every known setting's range and the size of all settings.
    pub fn validate(&self) -> Result<(), ProfileFieldError> {
        let size = self.toml_bytes();
        if size > MAX_SETTINGS_BYTES {
            return Err(ProfileFieldError {
                field: "settings".into(),
                problem: format!("the settings take {size} bytes"),
                allowed: format!("at most {MAX_SETTINGS_BYTES} bytes of settings in all"),
            });
        }
        let mut copy = Settings::default();
        for key in
            ["view_distance", "far_view", "mouse_sensitivity", "invert_y", "fov", "fullscreen", "smooth_lighting"]
        {
            // `get` of a known key is always Some.
            if let Some(v) = self.get(key) {
                copy.set(key, v)?;
            }
        }
        for (k, v) in &self.extra {
            if let toml::Value::Float(f) = v
                && !f.is_finite()
            {
                return Err(ProfileFieldError {
                    field: format!("settings.{k}"),
                    problem: format!("{f} is not finite"),
                    allowed: "a finite number".into(),
                });
            }
        }
        Ok(())
    }
}

/// A setting or binding outside what is allowed.
#[derive(Clone, Debug, Error, PartialEq)]
#[error("field `{field}`: {problem}; allowed: {allowed}")]
pub struct ProfileFieldError {
    pub field: String,
    pub problem: String,
    pub allowed: String,
}

/// One user's profile.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Profile {
    pub version: u32,
    pub settings: Settings,
    /// Action name → inputs, only for actions changed from the project defaults.
    pub bindings: BTreeMap<String, Vec<InputDescriptor>>,
}

impl Default for Profile {
    fn default() -> Self {
        Self { version: PROFILE_VERSION, settings: Settings::default(), bindings: BTreeMap::new() }
    }
}

impl Profile {
    /// Sets `action`'s inputs; when they equal `defaults` (same inputs, any order) the override
    /// is removed, so the profile keeps only real changes.
    pub fn set_binding(
        &mut self,
        action: &str,
        inputs: Vec<InputDescriptor>,
        defaults: &[InputDescriptor],
    ) -> Result<(), ProfileFieldError> {
        let field = format!("bindings.{action}");
        if action.is_empty() || action.len() > 128 || action.chars().any(|c| c.is_control()) {
            return Err(ProfileFieldError {
                field,
                problem: "not an action name".into(),
                allowed: "1 to 128 printable characters".into(),
            });
        }
        if inputs.len() > MAX_INPUTS_PER_ACTION {
            return Err(ProfileFieldError {
                field,
                problem: format!("{} inputs", inputs.len()),
                allowed: format!("at most {MAX_INPUTS_PER_ACTION} inputs"),
            });
        }
        for i in &inputs {
            i.check().map_err(|p| ProfileFieldError {
                field: field.clone(),
                problem: p,
                allowed: ALLOWED_INPUT.into(),
            })?;
        }
        let same = inputs.len() == defaults.len()
            && inputs.iter().all(|i| defaults.contains(i))
            && defaults.iter().all(|d| inputs.contains(d));
        if same {
            self.bindings.remove(action);
        } else {
            if !self.bindings.contains_key(action) && self.bindings.len() >= MAX_BINDINGS {
                return Err(ProfileFieldError {
                    field,
                    problem: "too many overridden actions".into(),
                    allowed: format!("at most {MAX_BINDINGS}"),
                });
            }
            self.bindings.insert(action.to_string(), inputs);
        }
        Ok(())
    }

    /// Drops `action`'s override (back to the default).
    pub fn reset_binding(&mut self, action: &str) {
        self.bindings.remove(action);
    }

    /// The inputs of `action` given the project `defaults`.
    pub fn effective<'a>(&'a self, action: &str, defaults: &'a [InputDescriptor]) -> &'a [InputDescriptor] {
        self.bindings.get(action).map(|v| v.as_slice()).unwrap_or(defaults)
    }

    /// Checks version, settings and bindings.
    pub fn validate(&self) -> Result<(), ProfileFieldError> {
        if !(1..=PROFILE_VERSION).contains(&self.version) {
            return Err(ProfileFieldError {
                field: "version".into(),
                problem: format!("{}", self.version),
                allowed: format!("1..={PROFILE_VERSION}"),
            });
        }
        self.settings.validate()?;
        if self.bindings.len() > MAX_BINDINGS {
            return Err(ProfileFieldError {
                field: "bindings".into(),
                problem: format!("{} actions", self.bindings.len()),
                allowed: format!("at most {MAX_BINDINGS}"),
            });
        }
        let mut copy = Profile::default();
        for (action, inputs) in &self.bindings {
            // Against an impossible default, so every entry is kept and checked.
            copy.set_binding(action, inputs.clone(), &[InputDescriptor::Key { physical: u32::MAX }])?;
        }
        Ok(())
    }

    /// The profile as TOML text.
    pub fn to_toml(&self) -> String {
        // Plain data with string keys always serializes.
        toml::to_string_pretty(self).unwrap_or_else(|e| format!("# cannot serialize: {e}\n"))
    }

    /// Parses and checks profile TOML; `source_name` names the file in errors.
    pub fn from_toml(text: &str, source_name: &str) -> Result<Profile, ProfileError> {
        // Check the version first, so a newer file is named as such rather than as unknown keys.
        if let Ok(t) = toml::from_str::<toml::Table>(text)
            && let Some(v) = t.get("version")
        {
            match v.as_integer() {
                Some(n) if n > PROFILE_VERSION as i64 => {
                    return Err(ProfileError::NewerVersion {
                        file: source_name.into(),
                        found: n,
                        supported: PROFILE_VERSION,
                    });
                }
                Some(n) if n >= 1 => {}
                _ => {
                    return Err(ProfileError::Parse {
                        file: source_name.into(),
                        line: line_of_key(text, "version").0,
                        column: line_of_key(text, "version").1,
                        field: "version".into(),
                        problem: format!("{v} is not a profile version"),
                        allowed: format!("an integer in 1..={PROFILE_VERSION}"),
                    });
                }
            }
        }
        let p: Profile = toml::from_str(text).map_err(|e| {
            let (line, column) = e.span().map(|s| line_col(text, s.start)).unwrap_or((0, 0));
            let msg = e.message().to_string();
            let field = field_from_message(&msg, text, e.span().map(|s| s.start));
            let allowed = if msg.contains("unknown field") {
                "top-level keys version, settings, bindings".to_string()
            } else if msg.contains("variant") || msg.contains("type") && field.starts_with("bindings") {
                ALLOWED_INPUT.to_string()
            } else {
                "a TOML profile as documented in strata_core::persist::profile".to_string()
            };
            ProfileError::Parse {
                file: source_name.into(),
                line,
                column,
                field,
                problem: msg.trim().to_string(),
                allowed,
            }
        })?;
        p.validate().map_err(|e| {
            let key = e.field.rsplit('.').next().unwrap_or("").to_string();
            let (line, column) = line_of_key(text, &key);
            ProfileError::Invalid { file: source_name.into(), line, column, error: e }
        })?;
        Ok(p)
    }
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut off = offset.min(text.len());
    while !text.is_char_boundary(off) {
        off -= 1;
    }
    let before = &text[..off];
    (before.matches('\n').count() + 1, before.rsplit('\n').next().map(|l| l.chars().count()).unwrap_or(0) + 1)
}

/// Line:column of the first line that assigns `key` (0:0 when none).
fn line_of_key(text: &str, key: &str) -> (usize, usize) {
    if key.is_empty() {
        return (0, 0);
    }
    for (i, l) in text.lines().enumerate() {
        let t = l.trim_start();
        if let Some(rest) = t.strip_prefix(key)
            && rest.trim_start().starts_with('=')
        {
            return (i + 1, l.len() - t.len() + 1);
        }
    }
    (0, 0)
}

/// The key whose value holds byte `at`: the nearest `key =` before it.
fn field_from_message(msg: &str, text: &str, at: Option<usize>) -> String {
    if let Some(i) = msg.find("unknown field `") {
        let rest = &msg[i + 15..];
        return rest[..rest.find('`').unwrap_or(rest.len())].to_string();
    }
    let Some(at) = at else { return String::new() };
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    let line = &text[line_start..];
    let key = line.split('=').next().unwrap_or("").trim();
    let section = before.lines().rev().find_map(|l| {
        let l = l.trim();
        (l.starts_with('[') && l.ends_with(']')).then(|| l.trim_matches(['[', ']']).to_string())
    });
    match section {
        Some(s) if !key.is_empty() && !key.starts_with('[') => format!("{s}.{key}"),
        _ => key.to_string(),
    }
}

/// Why a profile operation failed. Every variant names the file or the name at fault.
#[derive(Debug, Error)]
pub enum ProfileError {
    #[error("{file}: cannot {action}: {error}")]
    Io {
        file: String,
        action: &'static str,
        #[source]
        error: std::io::Error,
    },
    #[error("{file}:{line}:{column}: field `{field}`: {problem}; allowed: {allowed}")]
    Parse { file: String, line: usize, column: usize, field: String, problem: String, allowed: String },
    #[error("{file}:{line}:{column}: {error}")]
    Invalid { file: String, line: usize, column: usize, error: ProfileFieldError },
    #[error(
        "{file}: made by a newer Strata (profile version {found}, this reads <= {supported}); the file was not changed"
    )]
    NewerVersion { file: String, found: i64, supported: u32 },
    #[error(
        "{what} name `{name}`: {problem}; allowed: 1 to 32 letters, digits, spaces, - or _, not starting with a dot or space, and not a device name Windows reserves (con, prn, aux, nul, com1 to com9, lpt1 to lpt9)"
    )]
    BadName { what: &'static str, name: String, problem: String },
    #[error(
        "{what} `{name}` collides with the existing {what} `{existing}` in {dir}: names that differ only in case are the same file on Windows and macOS; allowed: a name that differs from `{existing}` by more than case, or `{existing}` itself"
    )]
    CaseCollision { what: &'static str, name: String, existing: String, dir: String },
    #[error(
        "the profiles folder is empty: profiles would be written into the working folder; allowed: a folder path such as user://profiles"
    )]
    NoDirectory,
    #[error("no {what} named `{name}` in {dir}")]
    NotFound { what: &'static str, name: String, dir: String },
    #[error("{what} `{name}` already exists in {dir}")]
    Exists { what: &'static str, name: String, dir: String },
    #[error("{0}")]
    Field(#[from] ProfileFieldError),
    #[error(transparent)]
    Preset(#[from] PresetError),
}

/// Checks a user or preset name: non-empty, at most 32 characters, letters (any script), digits,
/// space, `-` or `_`; no leading dot or space, no path separators, no `..`.
pub fn validate_name(what: &'static str, name: &str) -> Result<(), ProfileError> {
    let bad = |problem: &str| {
        Err(ProfileError::BadName { what, name: name.chars().take(64).collect(), problem: problem.into() })
    };
    if name.is_empty() {
        return bad("empty");
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return bad("longer than 32 characters");
    }
    if name.starts_with('.') || name.contains("..") {
        return bad("starts with a dot or contains `..`");
    }
    if let Some(device) = reserved_device(name) {
        return bad(&format!("`{device}` is a device name Windows reserves (with any extension, in any case)"));
    }
    if name.starts_with(' ') || name.ends_with(' ') {
        return bad("starts or ends with a space");
    }
    if let Some(c) = name.chars().find(|&c| !(c.is_alphanumeric() || c == ' ' || c == '-' || c == '_')) {
        return bad(&format!("contains {c:?}"));
    }
    Ok(())
}

/// The device name Windows reserves that `name` is (any case, with or without an extension):
/// `con`, `prn`, `aux`, `nul`, `com1`–`com9`, `lpt1`–`lpt9` (and `com¹`…`lpt³`).
fn reserved_device(name: &str) -> Option<&str> {
    let stem = name.split('.').next().unwrap_or(name).trim_end_matches(' ');
    let lower = stem.to_lowercase();
    let reserved = match lower.as_str() {
        "con" | "prn" | "aux" | "nul" => true,
        _ => {
            let mut chars = lower.chars();
            let prefix: String = chars.by_ref().take(3).collect();
            let rest: Vec<char> = chars.collect();
            (prefix == "com" || prefix == "lpt")
                && matches!(rest.as_slice(), [d] if ('1'..='9').contains(d) || matches!(d, '¹' | '²' | '³'))
        }
    };
    reserved.then_some(stem)
}

/// The profiles directory: users, their profiles and their preset libraries.
#[derive(Clone, Debug)]
pub struct ProfileStore {
    dir: PathBuf,
}

impl ProfileStore {
    /// A store in `dir`. An empty `dir` is accepted here and refused by every operation with
    /// [`ProfileError::NoDirectory`] (it would write into the working folder).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The profiles folder, refused when empty.
    fn root(&self) -> Result<&Path, ProfileError> {
        if self.dir.as_os_str().is_empty() { Err(ProfileError::NoDirectory) } else { Ok(&self.dir) }
    }

    /// The path of `user`'s profile file.
    pub fn profile_path(&self, user: &str) -> Result<PathBuf, ProfileError> {
        let file = profile_file_in_dir(user)?;
        Ok(self.root()?.join(file))
    }

    fn presets_dir(&self, user: &str) -> Result<PathBuf, ProfileError> {
        validate_name("user", user)?;
        Ok(self.root()?.join(user).join("presets"))
    }

    /// Refuses `name` when `existing` holds a different name equal to it but for case.
    fn check_case(what: &'static str, name: &str, existing: Vec<String>, dir: &Path) -> Result<(), ProfileError> {
        let lower = name.to_lowercase();
        match existing.into_iter().find(|e| e != name && e.to_lowercase() == lower) {
            Some(existing) => {
                Err(ProfileError::CaseCollision { what, name: name.into(), existing, dir: dir.display().to_string() })
            }
            None => Ok(()),
        }
    }

    fn io(&self, path: &Path, action: &'static str) -> impl FnOnce(std::io::Error) -> ProfileError {
        let file = path.display().to_string();
        move |error| ProfileError::Io { file, action, error }
    }

    /// Users with a profile file, sorted.
    pub fn list_users(&self) -> Result<Vec<String>, ProfileError> {
        list_names(self.root()?, "toml")
    }

    /// Creates `user` with a default profile; an existing user, or one whose name differs only
    /// in case, is an error.
    pub fn create_user(&self, user: &str) -> Result<Profile, ProfileError> {
        let path = self.profile_path(user)?;
        Self::check_case("user", user, self.list_users()?, &self.dir)?;
        if path.exists() {
            return Err(ProfileError::Exists { what: "user", name: user.into(), dir: self.dir.display().to_string() });
        }
        let p = Profile::default();
        self.save(user, &p)?;
        Ok(p)
    }

    /// Removes `user`'s profile and preset library.
    pub fn delete_user(&self, user: &str) -> Result<(), ProfileError> {
        let path = self.profile_path(user)?;
        if !path.exists() {
            return Err(ProfileError::NotFound {
                what: "user",
                name: user.into(),
                dir: self.dir.display().to_string(),
            });
        }
        std::fs::remove_file(&path).map_err(self.io(&path, "delete"))?;
        let lib = self.dir.join(user);
        if lib.exists() {
            std::fs::remove_dir_all(&lib).map_err(self.io(&lib, "delete"))?;
        }
        Ok(())
    }

    /// Loads and checks `user`'s profile.
    pub fn load(&self, user: &str) -> Result<Profile, ProfileError> {
        let path = self.profile_path(user)?;
        if !path.exists() {
            return Err(ProfileError::NotFound {
                what: "user",
                name: user.into(),
                dir: self.dir.display().to_string(),
            });
        }
        let meta = std::fs::metadata(&path).map_err(self.io(&path, "read"))?;
        let file = path.display().to_string();
        check_profile_len(meta.len(), &file)?;
        let bytes = std::fs::read(&path).map_err(self.io(&path, "read"))?;
        profile_from_file_bytes(&bytes, &file)
    }

    /// Checks and writes `user`'s profile atomically. The text is parsed back before it is
    /// written: a profile that would not load is refused and the previous file kept.
    pub fn save(&self, user: &str, profile: &Profile) -> Result<(), ProfileError> {
        let path = self.profile_path(user)?;
        Self::check_case("user", user, self.list_users()?, &self.dir)?;
        profile.validate()?;
        let text = profile.to_toml();
        if text.len() as u64 > MAX_PROFILE_BYTES {
            return Err(ProfileFieldError {
                field: "profile".into(),
                problem: format!("the profile would take {} bytes", text.len()),
                allowed: format!("at most {MAX_PROFILE_BYTES} bytes (fewer bindings or settings)"),
            }
            .into());
        }
        Profile::from_toml(&text, &path.display().to_string())?;
        write_atomic(&path, text.as_bytes()).map_err(self.io(&path, "write"))
    }

    /// Path of preset `name` in `user`'s library.
    pub fn preset_path(&self, user: &str, name: &str) -> Result<PathBuf, ProfileError> {
        let file = preset_file_in_dir(user, name)?;
        Ok(self.root()?.join(file))
    }

    /// Stores `preset` as `name` in `user`'s library (replacing one of that name; a name that
    /// differs from an existing one only in case is refused).
    pub fn save_preset(&self, user: &str, name: &str, preset: &WorldPreset) -> Result<(), ProfileError> {
        let path = self.preset_path(user, name)?;
        Self::check_case("preset", name, self.list_presets(user)?, &self.presets_dir(user)?)?;
        save_preset_file(&path, preset)?;
        Ok(())
    }

    /// Names of `user`'s presets, sorted.
    pub fn list_presets(&self, user: &str) -> Result<Vec<String>, ProfileError> {
        list_names(&self.presets_dir(user)?, "ron")
    }

    pub fn load_preset(&self, user: &str, name: &str) -> Result<WorldPreset, ProfileError> {
        let path = self.preset_path(user, name)?;
        if !path.exists() {
            return Err(ProfileError::NotFound {
                what: "preset",
                name: name.into(),
                dir: self.presets_dir(user)?.display().to_string(),
            });
        }
        Ok(load_preset_file(&path)?)
    }

    pub fn delete_preset(&self, user: &str, name: &str) -> Result<(), ProfileError> {
        let path = self.preset_path(user, name)?;
        if !path.exists() {
            return Err(ProfileError::NotFound {
                what: "preset",
                name: name.into(),
                dir: self.presets_dir(user)?.display().to_string(),
            });
        }
        std::fs::remove_file(&path).map_err(self.io(&path, "delete"))
    }
}

/// The path of `user`'s profile file inside a profiles folder, `/`-separated: `<user>.toml`.
pub fn profile_file_in_dir(user: &str) -> Result<String, ProfileError> {
    validate_name("user", user)?;
    Ok(format!("{user}.toml"))
}

/// The path of preset `name` of `user` inside a profiles folder, `/`-separated:
/// `<user>/presets/<name>.ron`.
pub fn preset_file_in_dir(user: &str, name: &str) -> Result<String, ProfileError> {
    validate_name("preset", name)?;
    validate_name("user", user)?;
    Ok(format!("{user}/presets/{name}.ron"))
}

/// Refuses a profile file of `len` bytes larger than [`MAX_PROFILE_BYTES`], before it is read.
/// `file` names it in the error.
pub fn check_profile_len(len: u64, file: &str) -> Result<(), ProfileError> {
    if len > MAX_PROFILE_BYTES {
        return Err(ProfileError::Parse {
            file: file.into(),
            line: 0,
            column: 0,
            field: String::new(),
            problem: format!("the file is {len} bytes"),
            allowed: format!("at most {MAX_PROFILE_BYTES} bytes"),
        });
    }
    Ok(())
}

/// Parses and checks the bytes of a profile file, read from disk by [`ProfileStore::load`] or
/// elsewhere (Godot's file access, inside an exported game's pack). `file` names it in errors.
pub fn profile_from_file_bytes(bytes: &[u8], file: &str) -> Result<Profile, ProfileError> {
    check_profile_len(bytes.len() as u64, file)?;
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let (line, column) = line_col(std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or(""), e.valid_up_to());
        ProfileError::Parse {
            file: file.into(),
            line,
            column,
            field: String::new(),
            problem: format!("invalid UTF-8 at byte offset {}", e.valid_up_to()),
            allowed: "UTF-8 TOML text".into(),
        }
    })?;
    Profile::from_toml(text, file)
}

/// Stems of the files `*.ext` in `dir` with valid names, sorted (missing dir = none).
fn list_names(dir: &Path, ext: &str) -> Result<Vec<String>, ProfileError> {
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(ProfileError::Io { file: dir.display().to_string(), action: "list", error }),
    };
    let mut out = Vec::new();
    for entry in rd.flatten() {
        let p = entry.path();
        if p.is_file()
            && p.extension().is_some_and(|e| e == ext)
            && let Some(stem) = p.file_stem().and_then(|s| s.to_str())
            && validate_name("user", stem).is_ok()
        {
            out.push(stem.to_string());
        }
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked() {
        for ok in ["alice", "Bob 2", "x-y_z", "Zoë"] {
            validate_name("user", ok).unwrap();
        }
        for bad in ["", ".hidden", "a/b", "a\\b", "..", "a..b", " lead", &"x".repeat(33), "nul\0", "c:d"] {
            assert!(validate_name("user", bad).is_err(), "{bad:?}");
        }
        for device in ["con", "PRN", "Aux", "nul", "com1", "COM9", "lpt1", "LpT9", "con.txt", "NUL.tar.gz", "com¹"] {
            let m = validate_name("user", device).unwrap_err().to_string();
            assert!(m.contains("device name Windows reserves"), "{device}: {m}");
        }
        for ok in ["console", "com", "com0", "com10", "lpt", "nul1", "aux_2", "conan"] {
            validate_name("user", ok).unwrap();
        }
    }

    #[test]
    fn bindings_equal_to_defaults_are_not_stored() {
        let mut p = Profile::default();
        let def = [InputDescriptor::Key { physical: 32 }];
        p.set_binding("jump", vec![InputDescriptor::Key { physical: 70 }], &def).unwrap();
        assert_eq!(p.bindings.len(), 1);
        p.set_binding("jump", def.to_vec(), &def).unwrap();
        assert!(p.bindings.is_empty());
        let text = p.to_toml();
        assert!(!text.contains("jump"), "{text}");
    }

    #[test]
    fn toml_round_trip_with_extra_settings() {
        let mut p = Profile::default();
        p.settings.set("view_distance", SettingValue::Int(12)).unwrap();
        assert_eq!(p.settings.get("far_view"), Some(SettingValue::Int(3)));
        p.settings.set("far_view", SettingValue::Int(0)).unwrap();
        let e = p.settings.set("far_view", SettingValue::Int(7)).unwrap_err();
        assert!(e.to_string().contains("settings.far_view") && e.to_string().contains("0..=6"), "{e}");
        assert_eq!(p.settings.get("far_view"), Some(SettingValue::Int(0)));
        assert_eq!(p.settings.get("smooth_lighting"), Some(SettingValue::Bool(true)));
        p.settings.set("smooth_lighting", SettingValue::Bool(false)).unwrap();
        let e = p.settings.set("smooth_lighting", SettingValue::Int(1)).unwrap_err();
        assert!(e.to_string().contains("settings.smooth_lighting") && e.to_string().contains("true or false"), "{e}");
        assert_eq!(p.settings.get("smooth_lighting"), Some(SettingValue::Bool(false)));
        p.settings.set("hud_scale", SettingValue::Float(1.25)).unwrap();
        p.set_binding(
            "fire",
            vec![InputDescriptor::MouseButton { button: 2 }, InputDescriptor::JoyAxis { axis: 5, direction: 1.0 }],
            &[],
        )
        .unwrap();
        let text = p.to_toml();
        assert_eq!(Profile::from_toml(&text, "p.toml").unwrap(), p, "{text}");
        let e = p.settings.set("view_distance", SettingValue::Int(-1)).unwrap_err();
        assert!(e.to_string().contains("2..=32"), "{e}");
    }
}
