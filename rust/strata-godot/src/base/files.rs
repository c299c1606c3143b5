//! Files from Godot: where a `res://`, `user://` or OS path is read from (a file on disk, read by
//! the core's readers, or a file only Godot's file access reaches: inside an exported game's
//! `.pck`), reading such a packed file whole, where a path may be written, and the Godot `Error`
//! code closest to a core file error.
//!
//! The rule for reading ([`locate_file`], [`locate_dir`]): `res://` of a game run from its pack
//! (an exported game) is read through `FileAccess`; otherwise whatever lies on disk at the path's
//! OS form is read from disk (so the core's checks for regular files, sizes and links apply), a
//! `res://` or `user://` path that is not on disk but that Godot's file access sees (a loaded
//! resource pack) is read through `FileAccess`, and anything else is read from disk, where the
//! core's reader reports that it is missing. The bytes read through `FileAccess` are parsed by
//! the core with the same checks, and errors name the `res://` path.
//!
//! May use: `strata_core::preset`, Godot's `ProjectSettings`, `FileAccess` and `DirAccess`.

use godot::classes::file_access::ModeFlags;
use godot::classes::{DirAccess, FileAccess, ProjectSettings};
use godot::global::Error;
use godot::prelude::*;
use std::path::PathBuf;
use strata_core::preset::error::PresetError;

/// Where a file named by a Godot path is read from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum GodotFile {
    /// A file on disk, read by the core's readers.
    Disk(PathBuf),
    /// A `res://` or `user://` path that only Godot's file access reaches (in a game's pack).
    Packed(String),
}

impl GodotFile {
    /// The path as errors name it: the OS path on disk, the Godot path in a pack.
    pub(crate) fn shown(&self) -> String {
        match self {
            GodotFile::Disk(p) => p.display().to_string(),
            GodotFile::Packed(p) => p.clone(),
        }
    }
}

/// Whether `path` is a Godot path (`res://` or `user://`).
fn is_godot_path(path: &str) -> bool {
    path.starts_with("res://") || path.starts_with("user://")
}

/// `res://`, `user://` or an OS path, as an OS path.
pub(crate) fn globalize(path: &GString) -> PathBuf {
    let s = path.to_string();
    if is_godot_path(&s) {
        PathBuf::from(ProjectSettings::singleton().globalize_path(path).to_string())
    } else {
        PathBuf::from(s)
    }
}

/// Where the file `path` (`res://`, `user://` or an OS path) is read from. Main thread only.
pub(crate) fn locate_file(path: &str) -> GodotFile {
    locate(path, |p| FileAccess::file_exists(p))
}

/// Where the folder `path` (`res://`, `user://` or an OS path) is read from. Main thread only.
pub(crate) fn locate_dir(path: &str) -> GodotFile {
    locate(path, |p| DirAccess::dir_exists_absolute(p))
}

fn locate(path: &str, godot_sees: impl Fn(&str) -> bool) -> GodotFile {
    let path = path.trim();
    if !is_godot_path(path) {
        return GodotFile::Disk(PathBuf::from(path));
    }
    if path.starts_with("res://") && res_is_packed() {
        // No folder behind res:// (an exported game): its files are in the pack or nowhere.
        return GodotFile::Packed(path.to_string());
    }
    let global = globalize(&GString::from(path));
    // Whatever is on disk (even a FIFO, which the core's readers then refuse) is read from disk.
    if std::fs::symlink_metadata(&global).is_ok() || !godot_sees(path) {
        GodotFile::Disk(global)
    } else {
        GodotFile::Packed(path.to_string())
    }
}

/// Reads the packed file `path` whole through `FileAccess`. `check_len` sees its length before
/// a byte is read (the core's size limit for that kind of file); `io` turns a reading error
/// (kind `NotFound` when Godot finds no such file) into the caller's error, which names the file.
pub(crate) fn read_packed<E>(
    path: &str,
    check_len: impl FnOnce(u64) -> Result<(), E>,
    io: impl Fn(std::io::Error) -> E,
) -> Result<Vec<u8>, E> {
    let Some(mut file) = FileAccess::open(path, ModeFlags::READ) else {
        let code = FileAccess::get_open_error();
        let kind =
            if code == Error::ERR_FILE_NOT_FOUND { std::io::ErrorKind::NotFound } else { std::io::ErrorKind::Other };
        return Err(io(std::io::Error::new(kind, format!("Godot cannot open it ({code:?})"))));
    };
    let len = file.get_length();
    check_len(len)?;
    let bytes = file.get_buffer(i64::try_from(len).unwrap_or(i64::MAX));
    if (bytes.len() as u64) < len {
        let message = format!("the file ended after {} of its {len} bytes", bytes.len());
        return Err(io(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, message)));
    }
    Ok(bytes.to_vec())
}

/// The OS path a file at `path` is written to, or why it cannot be: a `res://` path in a game
/// run from its pack (an exported game) has no folder behind it, and one that lies in a loaded
/// resource pack is not on disk; packs are read-only.
pub(crate) fn writable(path: &GString) -> Result<PathBuf, String> {
    writable_as(path, locate_file(&path.to_string()))
}

/// [`writable`] for a folder.
pub(crate) fn writable_dir(path: &GString) -> Result<PathBuf, String> {
    writable_as(path, locate_dir(&path.to_string()))
}

fn writable_as(path: &GString, located: GodotFile) -> Result<PathBuf, String> {
    let s = path.to_string();
    let packed = matches!(located, GodotFile::Packed(_)) || (s.trim().starts_with("res://") && res_is_packed());
    if packed {
        return Err(format!(
            "`{s}` lies in a resource pack (the game's .pck), which is read-only; allowed: a user:// or absolute path"
        ));
    }
    Ok(globalize(path))
}

/// Whether `res://` is a pack rather than a project folder (the game was exported, or started
/// with `--main-pack`): then Godot gives it no OS path.
pub(crate) fn res_is_packed() -> bool {
    ProjectSettings::singleton().globalize_path("res://").is_empty()
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
