//! Edits stored with a scene: the bytes of a world's `edits_data` property, for `StrataChunkWorld`
//! and `StrataChunkWorld2D` alike (a side-view world's tiles are voxels `(x, y, 0)`).
//!
//! The bytes are a world save (the format of `save_world`) holding only the edits, with the
//! names of the blocks they use, so a scene painted in the editor loads the same after its block
//! library was reordered or extended; a block the library lacks is refused by name.
//!
//! May use: `strata_core::persist::save`, `strata_core::base`, `godot` (the property's bytes).

use godot::prelude::*;
use strata_core::base::block_library::BlockLibrary;
use strata_core::base::edits::EditMap;
use strata_core::persist::save::{SaveOptions, WorldSave, decode_world_save, encode_world_save};

/// `edits` as the bytes of the property `property` (e.g. "StrataChunkWorld.edits_data"), their
/// blocks named from `library`.
pub(crate) fn edits_to_scene_bytes(edits: &EditMap, library: &BlockLibrary, property: &str) -> Result<Vec<u8>, String> {
    let save = WorldSave { edits: edits.clone(), ..WorldSave::default() };
    encode_world_save(&save, property, SaveOptions::default().library(library))
        .map_err(|e| format!("{property}: the edits cannot be stored with the scene: {e}"))
}

/// The edits of `bytes` (written by [`edits_to_scene_bytes`]), their blocks found by name in
/// `library` (or the library's own error); the error names `property`.
pub(crate) fn edits_from_scene_bytes(
    bytes: &[u8],
    library: Result<&BlockLibrary, String>,
    property: &str,
) -> Result<EditMap, String> {
    let library = library.map_err(|e| format!("{property}: the block library is invalid: {e}"))?;
    decode_world_save(bytes, property, SaveOptions::default().library(library))
        .map(|save| save.edits)
        .map_err(|e| e.to_string())
}

/// The edits the property `property` is set to (`bytes`), and the bytes it keeps: none when they
/// load (the edits are the world's now) or are empty (no edits), else `bytes` as they are, so
/// saving the scene again keeps them; the error then says so.
pub(crate) fn loaded_edits(
    bytes: PackedByteArray,
    library: Result<&BlockLibrary, String>,
    property: &str,
) -> (PackedByteArray, Result<EditMap, String>) {
    if bytes.is_empty() {
        return (bytes, Ok(EditMap::new()));
    }
    match edits_from_scene_bytes(bytes.as_slice(), library, property) {
        Ok(edits) => (PackedByteArray::new(), Ok(edits)),
        Err(e) => (bytes, Err(format!("{e}; the edits were not loaded and are kept as they are"))),
    }
}

/// What the property `property` holds: `edits` as bytes when there are any and they encode
/// (an error is reported and `kept` stays), else `kept` (bytes that could not be loaded while no
/// edit replaced them, or nothing).
pub(crate) fn stored_bytes(
    edits: Option<&EditMap>,
    library: Result<&BlockLibrary, String>,
    kept: &PackedByteArray,
    property: &str,
) -> PackedByteArray {
    let (Some(edits), Ok(library)) = (edits.filter(|e| !e.is_empty()), library) else { return kept.clone() };
    match edits_to_scene_bytes(edits, library, property) {
        Ok(bytes) => PackedByteArray::from(bytes.as_slice()),
        Err(e) => {
            godot_error!("{e}");
            kept.clone()
        }
    }
}
