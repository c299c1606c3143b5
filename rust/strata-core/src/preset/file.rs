//! Preset files on disk: reading and atomically writing a [`WorldPreset`], the format chosen by
//! the extension (`.tres` as Godot text, anything else as versioned RON).
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
    if meta.len() > MAX_PRESET_BYTES {
        return Err(PresetError::Parse {
            source_name: name.clone(),
            line: 0,
            column: 0,
            field: String::new(),
            problem: format!("the file is {} bytes", meta.len()),
            allowed: format!("at most {MAX_PRESET_BYTES} bytes"),
        });
    }
    let bytes = std::fs::read(path).map_err(|e| io("read", e))?;
    let text = text_from_bytes(&bytes, &name)?;
    if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("tres")) {
        preset_from_tres_text(text, &name)
    } else {
        preset_from_ron(text, &name)
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
