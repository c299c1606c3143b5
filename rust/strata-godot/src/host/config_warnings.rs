//! Node configuration warnings (the editor's yellow triangle) of `StrataChunkWorld` and `StrataChunkWorld2D`:
//! what a world lacks or has wrong, in the words the scene dock shows. The worlds call these from
//! `get_configuration_warnings` and call `update_configuration_warnings()` when a setting they
//! read changes. The runtime behaviour is unchanged: a world without a preset still streams the
//! default one, and one without a viewer still follows the current camera.
//!
//! May use: `world_preset`, `block_library`, Godot nodes.

use crate::resources::block_library::{BlockLibrary, core_or_default};
use crate::resources::world_preset::WorldPreset;
use godot::prelude::*;

/// The warning of a world without a preset.
pub fn no_preset(class: &str) -> String {
    format!(
        "{class} has no preset: it streams the default StrataWorldPreset. Assign a StrataWorldPreset to `preset` to choose the world."
    )
}

/// The warning of a world without a viewer, which follows the current camera (`camera`).
pub fn no_viewer(class: &str, camera: &str) -> String {
    format!(
        "{class} has no viewer: it streams around the current {camera}, or around the origin when there is none. Set `viewer` to the player or camera node."
    )
}

/// The warning of a viewer path that leads to no node of class `node_class`.
pub fn viewer_not_found(path: &NodePath, node_class: &str) -> String {
    format!("`viewer` ({path}) is not a {node_class} in the scene: the world streams around the origin.")
}

/// The warnings about `preset`: none set, or (3D) invalid with `library`.
pub fn preset_warnings(
    class: &str,
    preset: Option<&Gd<WorldPreset>>,
    library: Option<&Gd<BlockLibrary>>,
    validate: bool,
) -> Vec<String> {
    match preset {
        None => vec![no_preset(class)],
        Some(p) if validate => {
            let error = p.bind().validate_with_library(library.cloned()).to_string();
            if error.is_empty() { vec![] } else { vec![format!("The preset is invalid: {error}")] }
        }
        Some(_) => vec![],
    }
}

/// The warning about an invalid `library` (which the world refuses).
pub fn library_warning(library: Option<&Gd<BlockLibrary>>) -> Option<String> {
    core_or_default(library).err().map(|e| format!("The block library is invalid and is not used: {e}"))
}

/// The warning about `viewer` of `node`: none set, or a path to no `T` (checked only in the
/// scene tree, where paths resolve).
pub fn viewer_warning<T: Inherits<Node>>(
    node: &Gd<Node>,
    viewer: &NodePath,
    class: &str,
    camera: &str,
) -> Option<String> {
    if viewer.is_empty() {
        return Some(no_viewer(class, camera));
    }
    if !node.is_inside_tree() {
        return None;
    }
    let found = node.get_node_or_null(viewer).is_some_and(|n| n.try_cast::<T>().is_ok());
    (!found).then(|| viewer_not_found(viewer, &T::class_id().to_string()))
}
