//! Preset files from GDScript: RON sharing text, loading and saving (`res://`, `user://` or
//! absolute paths), fingerprints and reseeding, on the [`WorldPreset`] resource.
//!
//! Static loaders have no instance to keep an error on, so the message of the last failed static
//! load is kept for [`WorldPreset::last_load_error`]. Nothing here panics on bad input: every
//! failure is a `push_error` naming the file, the field and what is allowed, plus a null or an
//! `Error` code.

use crate::world_preset::WorldPreset;
use godot::classes::ProjectSettings;
use godot::global::Error;
use godot::prelude::*;
use std::cell::RefCell;
use std::path::PathBuf;
use strata_core::preset::{error as preset_err, file as preset_file, fingerprint as preset_fp, ron as preset_ron};

thread_local! {
    static LAST_LOAD_ERROR: RefCell<String> = const { RefCell::new(String::new()) };
}

fn set_load_error(message: String) {
    if !message.is_empty() {
        godot_error!("{message}");
    }
    LAST_LOAD_ERROR.with(|e| *e.borrow_mut() = message);
}

/// `res://`, `user://` or an OS path, as an OS path.
pub(crate) fn globalize(path: &GString) -> PathBuf {
    let s = path.to_string();
    if s.starts_with("res://") || s.starts_with("user://") {
        PathBuf::from(ProjectSettings::singleton().globalize_path(path).to_string())
    } else {
        PathBuf::from(s)
    }
}

/// The Godot error code closest to a preset error.
pub(crate) fn preset_error_code(e: &preset_err::PresetError) -> Error {
    match e {
        preset_err::PresetError::Io { error, .. } if error.kind() == std::io::ErrorKind::NotFound => Error::ERR_FILE_NOT_FOUND,
        preset_err::PresetError::Io { action: "write", .. } => Error::ERR_FILE_CANT_WRITE,
        preset_err::PresetError::Io { .. } => Error::ERR_FILE_CANT_READ,
        preset_err::PresetError::Parse { .. } | preset_err::PresetError::NewerVersion { .. } => Error::ERR_PARSE_ERROR,
        preset_err::PresetError::Invalid { .. } => Error::ERR_INVALID_DATA,
    }
}

#[godot_api(secondary)]
impl WorldPreset {
    /// This preset as versioned RON text (`format: "strata-preset", version: 1`), for sharing.
    #[func]
    pub fn to_ron(&self) -> GString {
        preset_ron::preset_to_ron(&self.preset).as_str().into()
    }

    /// Parses versioned RON preset text. Returns null on error; the message (line:column, field,
    /// allowed values) is in `WorldPreset.last_load_error()`.
    #[func]
    pub fn from_ron(text: GString) -> Option<Gd<WorldPreset>> {
        match preset_ron::preset_from_ron(&text.to_string(), "RON text") {
            Ok(p) => {
                set_load_error(String::new());
                Some(WorldPreset::from_core(p))
            }
            Err(e) => {
                set_load_error(format!("WorldPreset.from_ron: {e}"));
                None
            }
        }
    }

    /// The error of the last failed `from_ron` or `load_from_file`, or "" after a success.
    #[func]
    pub fn last_load_error() -> GString {
        LAST_LOAD_ERROR.with(|e| GString::from(e.borrow().as_str()))
    }

    /// Writes this preset to `path` atomically (`res://`, `user://` or absolute): `.tres` as a
    /// Godot text resource, any other extension as versioned RON. An invalid preset or a failed
    /// write leaves any existing file as it was; the message is in `last_error()`.
    #[func]
    pub fn save_to_file(&mut self, path: GString) -> Error {
        let os = globalize(&path);
        match preset_file::save_preset_file(&os, &self.preset) {
            Ok(()) => Error::OK,
            Err(e) => {
                let code = preset_error_code(&e);
                self.record_error(format!("WorldPreset.save_to_file: {e}"));
                code
            }
        }
    }

    /// Reads a preset file (`.ron` or `.tres`; `res://`, `user://` or absolute). Returns null on
    /// error, with the message in `WorldPreset.last_load_error()`.
    #[func]
    pub fn load_from_file(path: GString) -> Option<Gd<WorldPreset>> {
        let os = globalize(&path);
        match preset_file::load_preset_file(&os) {
            Ok(p) => {
                set_load_error(String::new());
                Some(WorldPreset::from_core(p))
            }
            Err(e) => {
                set_load_error(format!("WorldPreset.load_from_file({path}): {e}"));
                None
            }
        }
    }

    /// A 16-hex-digit hash of everything that shapes the world (seed and settings, not the
    /// name): same fingerprint, same world.
    #[func]
    pub fn fingerprint(&self) -> GString {
        preset_fp::fingerprint(&self.preset).as_str().into()
    }

    /// A new preset with every setting of this one and the given seed.
    #[func]
    pub fn with_new_seed(&self, seed: i64) -> Gd<WorldPreset> {
        WorldPreset::from_core(preset_fp::with_new_seed(&self.preset, seed as u64))
    }
}
