//! Preset files: reading and atomically writing a [`WorldPreset`] on disk, and parsing the bytes
//! of a file read elsewhere; the format chosen by the extension (`.tres` as Godot text, anything
//! else as versioned RON).
//!
//! May use: `base` (atomic writes), `preset::model`, `preset::error`, `preset::ron`,
//! `preset::tres`.

use crate::base::atomic_file::write_atomic;
use crate::preset::error::PresetError;
use crate::preset::model::WorldPreset;
use crate::preset::ron::{line_col, preset_from_ron, preset_to_ron, validated};
use crate::preset::tres::{preset_from_tres_text, preset_to_tres_text};
use std::path::Path;

/// Preset files larger than this are refused unread (a preset is a few KB).
pub const MAX_PRESET_BYTES: u64 = 4 << 20;

/// Reads and parses a preset file: `.tres` as Godot text, anything else as RON.
pub fn load_preset_file(path: &Path) -> Result<WorldPreset, PresetError> {
    let name = path.display().to_string();
    let io = |action, error| PresetError::Io { source_name: name.clone(), action, error };
    let meta = std::fs::metadata(path).map_err(|e| io("read", e))?;
    check_preset_len(meta.len(), &name)?;
    let bytes = std::fs::read(path).map_err(|e| io("read", e))?;
    preset_from_file_bytes(&bytes, &name)
}

/// Refuses a preset file of `len` bytes larger than [`MAX_PRESET_BYTES`], before it is read.
/// `source_name` names it in the error.
pub fn check_preset_len(len: u64, source_name: &str) -> Result<(), PresetError> {
    if len > MAX_PRESET_BYTES {
        return Err(PresetError::Parse {
            source_name: source_name.into(),
            line: 0,
            column: 0,
            field: String::new(),
            problem: format!("the file is {len} bytes"),
            allowed: format!("at most {MAX_PRESET_BYTES} bytes"),
        });
    }
    Ok(())
}

/// Parses the bytes of a preset file read elsewhere (for example through Godot's file access,
/// from an exported game's pack): `.tres` as Godot text when `source_name` (the file's path, as
/// errors name it) ends so, anything else as RON. The same checks as [`load_preset_file`].
pub fn preset_from_file_bytes(bytes: &[u8], source_name: &str) -> Result<WorldPreset, PresetError> {
    check_preset_len(bytes.len() as u64, source_name)?;
    let text = text_from_bytes(bytes, source_name)?;
    if Path::new(source_name).extension().is_some_and(|e| e.eq_ignore_ascii_case("tres")) {
        preset_from_tres_text(text, source_name)
    } else {
        preset_from_ron(text, source_name)
    }
}

/// `bytes` as UTF-8 text, or an error with the byte offset of the first bad byte.
pub fn text_from_bytes<'a>(bytes: &'a [u8], source_name: &str) -> Result<&'a str, PresetError> {
    std::str::from_utf8(bytes).map_err(|e| {
        let (line, column) = line_col(std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or(""), e.valid_up_to());
        PresetError::Parse {
            source_name: source_name.into(),
            line,
            column,
            field: String::new(),
            problem: format!("invalid UTF-8 at byte offset {} (binary file?)", e.valid_up_to()),
            allowed: "UTF-8 text".into(),
        }
    })
}

/// Writes `preset` atomically: `.tres` as Godot text, anything else as versioned RON. Invalid
/// presets are refused and the existing file is left alone.
pub fn save_preset_file(path: &Path, preset: &WorldPreset) -> Result<(), PresetError> {
    let name = path.display().to_string();
    validated(preset.clone(), "", &name)?;
    let text = if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("tres")) {
        preset_to_tres_text(preset)
    } else {
        preset_to_ron(preset)
    };
    write_atomic(path, text.as_bytes()).map_err(|error| PresetError::Io { source_name: name, action: "write", error })
}
