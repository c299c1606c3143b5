//! What both world nodes' entities share: the scenes their spawn rules and records name, loaded
//! on Godot's loader threads ([`SceneCache`]), an entity's own state as bytes (its
//! `strata_get_state()` Dictionary) and giving it back (`strata_set_state`), and an entity's
//! node name.
//!
//! May use: Godot's classes only.

use godot::classes::{PackedScene, ResourceLoader};
use godot::global::{bytes_to_var, var_to_bytes};
use godot::prelude::*;
use std::collections::HashMap;

/// A scene the rules or records name.
enum SceneSlot {
    Loading,
    Ready(Gd<PackedScene>),
    Failed,
}

/// The scenes of a world's entities by path: asked of Godot's loader threads once, then ready or
/// failed.
#[derive(Default)]
pub(crate) struct SceneCache {
    slots: HashMap<String, SceneSlot>,
}

impl SceneCache {
    /// The scene at `path`: ready, loading (`None`), or failed. The threaded loader is reached
    /// through `Object.call`, as gdext leaves its methods out of the typed API without its
    /// experimental thread support.
    pub(crate) fn get(&mut self, path: &str) -> Option<Result<Gd<PackedScene>, ()>> {
        const IN_PROGRESS: i64 = 1;
        const LOADED: i64 = 3;
        let mut loader = ResourceLoader::singleton();
        let arg = [GString::from(path).to_variant()];
        let slot = self.slots.entry(path.to_string()).or_insert_with(|| {
            if loader.call("load_threaded_request", &arg).try_to::<i64>().ok() == Some(0) {
                SceneSlot::Loading
            } else {
                SceneSlot::Failed
            }
        });
        if let SceneSlot::Loading = slot {
            match loader.call("load_threaded_get_status", &arg).try_to::<i64>() {
                Ok(IN_PROGRESS) => {}
                Ok(LOADED) => {
                    let res = loader.call("load_threaded_get", &arg);
                    *slot = match res.try_to::<Gd<PackedScene>>() {
                        Ok(s) => SceneSlot::Ready(s),
                        Err(_) => SceneSlot::Failed,
                    };
                }
                _ => *slot = SceneSlot::Failed,
            }
        }
        match slot {
            SceneSlot::Loading => None,
            SceneSlot::Ready(s) => Some(Ok(s.clone())),
            SceneSlot::Failed => Some(Err(())),
        }
    }

    /// Keeps `scene` (one the game handed over) as the scene at `path`, unless one is there.
    pub(crate) fn insert_ready(&mut self, path: &str, scene: &Gd<PackedScene>) {
        self.slots.entry(path.to_string()).or_insert_with(|| SceneSlot::Ready(scene.clone()));
    }
}

/// The node's own state as bytes (`var_to_bytes` of its `strata_get_state()` Dictionary), empty
/// when it has none.
pub(crate) fn state_of(node: &Gd<impl Inherits<Node>>) -> PackedByteArray {
    let mut node = node.clone().upcast::<Node>();
    if !node.has_method("strata_get_state") {
        return PackedByteArray::new();
    }
    let v = node.call("strata_get_state", &[]);
    if v.get_type() != VariantType::DICTIONARY {
        return PackedByteArray::new();
    }
    var_to_bytes(&v)
}

/// Gives `state` (bytes of [`state_of`]) back to the node's `strata_set_state`, when it has one
/// and the bytes hold a Dictionary.
pub(crate) fn restore_state(node: &Gd<impl Inherits<Node>>, state: &[u8]) {
    if state.is_empty() {
        return;
    }
    let v = bytes_to_var(&PackedByteArray::from(state));
    let mut node = node.clone().upcast::<Node>();
    if v.get_type() == VariantType::DICTIONARY && node.has_method("strata_set_state") {
        node.call("strata_set_state", &[v]);
    }
}

/// The node name of an entity: its scene file's stem and its instance id (unique in the world).
pub(crate) fn node_name(scene: &str, id: i64) -> String {
    let stem = scene.rsplit('/').next().unwrap_or(scene).split('.').next().unwrap_or("entity");
    format!("entity_{stem}_{id}")
}
