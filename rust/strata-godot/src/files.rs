//! Files from Godot: `res://` and `user://` paths as OS paths for the core's readers and
//! writers, and the Godot `Error` code closest to a core file error.
//!
//! May use: `strata_core::preset`, Godot's `ProjectSettings`.

use godot::classes::ProjectSettings;
use godot::global::Error;
use godot::prelude::*;
use std::path::PathBuf;
use strata_core::preset::error::PresetError;

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
pub(crate) fn preset_error_code(e: &PresetError) -> Error {
    match e {
        PresetError::Io { error, .. } if error.kind() == std::io::ErrorKind::NotFound => Error::ERR_FILE_NOT_FOUND,
        PresetError::Io { action: "write", .. } => Error::ERR_FILE_CANT_WRITE,
        PresetError::Io { .. } => Error::ERR_FILE_CANT_READ,
        PresetError::Parse { .. } | PresetError::NewerVersion { .. } => Error::ERR_PARSE_ERROR,
        PresetError::Invalid { .. } => Error::ERR_INVALID_DATA,
    }
}
