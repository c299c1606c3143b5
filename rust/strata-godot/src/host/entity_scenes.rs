//! What both world nodes' entities share: the scenes their spawn rules and records name, loaded
//! on Godot's loader threads ([`SceneCache`]), the frame's instancing of queued objects within
//! the budget ([`instance_queued`] over a world's [`EntityQueue`]), a scene instanced with the
//! root class the world takes ([`instantiate_root`]), an entity's own state as bytes (its
//! `strata_get_state()` Dictionary) and giving it back (`strata_set_state`), and an entity's
//! node name.
//!
//! May use: Godot's classes only.

use godot::classes::{PackedScene, ResourceLoader};
use godot::global::{bytes_to_var, var_to_bytes};
use godot::prelude::*;
use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

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

/// What [`instance_queued`] needs of a world's entities: its queue of objects to instance and how
/// to instance one.
pub(crate) trait EntityQueue {
    /// An object waiting to be instanced.
    type Pending;
    /// The next queued object, taken out of the queue.
    fn next_pending(&mut self) -> Option<Self::Pending>;
    /// Puts `p` back at the front of the queue (its scene is still loading).
    fn requeue_front(&mut self, p: Self::Pending);
    /// The scene `p` is an instance of; `None` to drop it (its rule is gone).
    fn scene_path(&self, p: &Self::Pending) -> Option<String>;
    /// The scene at `path`: ready, loading (`None`) or failed.
    fn scene(&mut self, path: &str) -> Option<Result<Gd<PackedScene>, ()>>;
    /// The scene of `p` did not load: say so, and keep what a record holds (a later run may
    /// have the scene).
    fn scene_failed(&mut self, p: Self::Pending, path: &str);
    /// Instances `p` as an entity of the world.
    fn instance(&mut self, p: Self::Pending, path: &str, scene: &Gd<PackedScene>);
    /// Main-thread time one instancing took (µs), for the world's stats.
    fn instanced_in(&mut self, us: u32);
}

/// Instances queued objects until `budget` (since `frame_start`) is spent, at least one a frame
/// so the queue drains at the smallest budget; objects whose scene is still loading keep their
/// place in the queue.
pub(crate) fn instance_queued<Q: EntityQueue>(q: &mut Q, frame_start: Instant, budget: Duration) {
    let mut made = 0;
    let mut waiting = VecDeque::new();
    while made == 0 || frame_start.elapsed() < budget {
        let Some(p) = q.next_pending() else { break };
        let Some(path) = q.scene_path(&p) else { continue };
        match q.scene(&path) {
            None => waiting.push_back(p),
            Some(Err(())) => q.scene_failed(p, &path),
            Some(Ok(scene)) => {
                let t = Instant::now();
                q.instance(p, &path, &scene);
                q.instanced_in(t.elapsed().as_micros() as u32);
                made += 1;
            }
        }
    }
    while let Some(p) = waiting.pop_back() {
        q.requeue_front(p);
    }
}

/// An instance of `scene` (from `path`) whose root is a `T` (named `root` in messages), or the
/// message of `class` (the world's class) saying why not; a root of another class is freed.
pub(crate) fn instantiate_root<T: GodotClass + Inherits<Node>>(
    scene: &Gd<PackedScene>,
    path: &str,
    class: &str,
    root: &str,
) -> Result<Gd<T>, String> {
    let Some(node) = scene.instantiate() else {
        return Err(format!("{class}: the scene `{path}` did not instance"));
    };
    node.try_cast::<T>().map_err(|other| {
        other.free();
        format!("{class}: the scene `{path}` has a root that is not a {root}; allowed: a scene whose root is a {root}")
    })
}
