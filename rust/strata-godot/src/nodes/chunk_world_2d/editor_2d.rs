//! `StrataChunkWorld2D` in the editor: where the preview streams (`set_editor_viewer`, the
//! centre of the editor's 2D view, passed by the Strata editor plugin every frame) and the edits
//! stored with the scene (`edits_data`, through `host::scene_edits`), which is how tiles painted
//! in the editor reach the game.
//!
//! A child module of `chunk_world_2d`, so it reaches the node's fields directly; its `#[func]`s
//! are a secondary `#[godot_api]` block.
//!
//! May use: the parent module, `host::scene_edits`.

use super::ChunkWorld2D;
use crate::host::scene_edits;
use godot::classes::{TileMapLayer, TileSet};
use godot::prelude::*;

/// Where `edits_data` errors say they come from.
const EDITS_DATA: &str = "StrataChunkWorld2D.edits_data";

#[godot_api(secondary)]
impl ChunkWorld2D {
    /// The editor preview streams around `global_position` (a global 2D position, such as the
    /// centre of the editor's view; the Strata editor plugin calls this every frame). A
    /// non-finite position is an error in `last_error()` and changes nothing. No effect in a
    /// running game, which streams around `viewer`.
    #[func]
    pub fn set_editor_viewer(&mut self, global_position: Vector2) {
        if !global_position.is_finite() {
            self.host.error(format!(
                "StrataChunkWorld2D.set_editor_viewer: {global_position} is not finite; allowed: a finite position"
            ));
            return;
        }
        self.editor_viewer = Some(global_position);
    }

    /// The global position the editor preview streams around (see `set_editor_viewer`); the
    /// origin until one was set.
    #[func]
    pub fn get_editor_viewer(&self) -> Vector2 {
        self.editor_viewer.unwrap_or(Vector2::ZERO)
    }
}

impl ChunkWorld2D {
    /// The editor viewer in the node's space, in tiles.
    pub(super) fn editor_viewer_local_tiles(&self) -> [f64; 2] {
        let local = match self.editor_viewer {
            Some(g) if self.base().is_inside_tree() => self.base().to_local(g),
            _ => Vector2::ZERO,
        };
        let px = self.tile_pixels();
        [f64::from(local.x) / f64::from(px.x), f64::from(local.y) / f64::from(px.y)]
    }

    /// The TileSet of the layer `tile_map` names, when there is one (the editor preview draws
    /// with it into a layer of its own).
    pub(super) fn named_layer_tile_set(&self) -> Option<Gd<TileSet>> {
        if self.tile_map.is_empty() || !self.base().is_inside_tree() {
            return None;
        }
        let layer = self.base().get_node_or_null(&self.tile_map)?.try_cast::<TileMapLayer>().ok()?;
        layer.get_tile_set()
    }

    /// `edits_data`: the edits as a world save of the edits alone, or the bytes that could not
    /// be loaded while no edit replaced them.
    pub(super) fn edits_data_bytes(&self) -> PackedByteArray {
        let library = self.library();
        scene_edits::stored_bytes(self.edits(), library.as_deref().map_err(String::clone), &self.edits_data, EDITS_DATA)
    }

    /// Loads `edits_data` (decoded with the `block_library` set at the time, which a scene sets
    /// first): replaces the edits; bytes that do not load are kept as they are (so saving the
    /// scene again keeps them) with the error in `last_error()`.
    pub(super) fn load_edits_data(&mut self, bytes: PackedByteArray) {
        let (kept, loaded) =
            scene_edits::loaded_edits(bytes, self.library().as_deref().map_err(String::clone), EDITS_DATA);
        self.edits_data = kept;
        match loaded {
            Ok(edits) => self.replace_all_edits(edits),
            Err(e) => self.host.error(e),
        }
    }
}
