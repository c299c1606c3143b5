//! `StrataChunkWorld2D`'s objects (a secondary `#[godot_api]` block): entities that spawn from the
//! preset's spawn rules, that the game adds, moves, changes and removes, and what a save keeps of
//! them, as `StrataChunkWorld`'s entities in tiles.
//!
//! The workers hand each chunk's spawn points over with its first load (`gen2d::spawns`, from
//! the generated tiles). A chunk's objects stand once it is loaded and its tiles are in the
//! layer (so a walker lands on its ground): its spawns that were not removed and the records of
//! objects standing in it are queued and instanced within the frame budget, at least one a
//! frame. An entity belongs to the chunk its position is in; when that chunk is not standing
//! (it unloaded, or the entity walked out of the loaded chunks) the entity leaves the tree and,
//! if it moved or changed (position, rotation, scale, or the Dictionary of its
//! `strata_get_state()`), is kept as a record of that chunk, to come back as it was. An
//! unchanged spawned entity is simply freed: its spawn rule brings it back. An entity the game
//! freed is a removed one. Restarts (preset change, `regenerate`, a new library, the world
//! leaving the tree) keep every changed entity the same way (law: Nothing is lost).
//!
//! Positions: nodes stand in the node's space (pixels, world − origin), which the origin's
//! shifts move them with (they are the world's internal `Node2D` children); what is kept is in
//! world tiles (`entities_2d`). [`ChunkWorld2D::entity_deltas`] is what a shared world's host
//! publishes (`replica_2d`); on its clients the entities are replicas, which the game may not
//! add or remove.
//!
//! May use: the parent module (`ChunkWorld2D`), `entities_2d` (the bookkeeping it drives),
//! `host::entity_scenes`, `strata_core::persist::entities`.

use super::entities_2d::{Live2D, Pending2D, Pose2D, Source2D, chunk_of, delta_key, record_if_changed};
use super::{ChunkWorld2D, TileOp};
use crate::host::entity_scenes::{EntityQueue, instance_queued, instantiate_root, node_name, restore_state, state_of};
use crate::host::replicas::replica_refusal;
use godot::classes::node::InternalMode;
use godot::classes::{Node2D, PackedScene};
use godot::prelude::*;
use std::time::{Duration, Instant};
use strata_core::gen2d::ChunkCoord2D;
use strata_core::persist::entities::{EntityDeltas, EntityRecord};
use strata_core::preset::model::FIRST_STRUCTURE_SPAWN_RULE;

#[godot_api(secondary)]
impl ChunkWorld2D {
    /// Instances `scene` (a saved `.tscn`/`.scn` whose root is a `Node2D`, e.g. a
    /// `CharacterBody2D`) at `position` (pixels in the node's space) as an entity of the world: an
    /// internal child of the world that moves with the floating origin, kept in saves with its
    /// position (world tiles, exact), rotation, scale and its `strata_get_state()` Dictionary
    /// (given back through `strata_set_state`), and taken out of the tree (kept) when its chunk
    /// unloads. Null, with the reason in `last_error()`, for a null scene, a scene without a file,
    /// a root that is not a `Node2D`, a position that is not finite, or a `StrataWorldSync`
    /// client's world (its entities are the server's: `is_entity_authority()`).
    #[func]
    pub fn add_entity(&mut self, scene: Option<Gd<PackedScene>>, position: Vector2) -> Option<Gd<Node2D>> {
        if self.entities.replica {
            self.host.error(replica_refusal("StrataChunkWorld2D", "add_entity"));
            return None;
        }
        let Some(scene) = scene else {
            self.host.error(
                "StrataChunkWorld2D.add_entity: scene is null; allowed: a PackedScene saved as a .tscn or .scn file whose root is a Node2D".into(),
            );
            return None;
        };
        let path = scene.get_path().to_string();
        if path.is_empty() {
            self.host.error(
                "StrataChunkWorld2D.add_entity: the scene has no resource path, so a save could not bring it back; allowed: a scene saved as a .tscn or .scn file".into(),
            );
            return None;
        }
        if !position.is_finite() {
            self.host.error(format!(
                "StrataChunkWorld2D.add_entity: position {position} is not finite; allowed: finite pixel coordinates"
            ));
            return None;
        }
        self.entities.scenes.insert_ready(&path, &scene);
        let w = self.entity_world(position);
        let record = EntityRecord {
            scene: path.clone(),
            position: [w[0], w[1], 0.0],
            rotation: EntityRecord::NO_ROTATION,
            scale: EntityRecord::NO_SCALE,
            state: Vec::new(),
        };
        let chunk = chunk_of([record.position[0], record.position[1]], self.chunk_tiles());
        self.instance_pending(Pending2D { chunk, source: Source2D::Record(record) }, &path, &scene)
    }

    /// Removes one of the world's entities for good: a spawned one does not come back, in this
    /// run or after a save and load. (Freeing the node has the same effect.) False when `node`
    /// is null or not an entity of this world, or with the reason in `last_error()` on a
    /// `StrataWorldSync` client's world.
    #[func]
    pub fn remove_entity(&mut self, node: Option<Gd<Node2D>>) -> bool {
        if self.entities.replica {
            self.host.error(replica_refusal("StrataChunkWorld2D", "remove_entity"));
            return false;
        }
        let Some(node) = node else { return false };
        let id = node.instance_id().to_i64();
        let Some(l) = self.entities.live.remove(&id) else {
            return false;
        };
        if let Some((c, key)) = l.spawn {
            self.entities.deltas.remove_spawn(delta_key(c), key);
        }
        self.entities.glides.stop(id);
        self.signals().entity_despawned().emit(&l.node);
        l.node.free();
        true
    }

    /// The live entities whose position lies in `area` (pixels in the node's space), in the
    /// order they came into the world.
    #[func]
    pub fn get_entities_in(&self, area: Rect2) -> Array<Gd<Node2D>> {
        let mut out = Array::new();
        for l in self.entities.live.values() {
            if l.node.is_instance_valid() && area.contains_point(l.node.get_position()) {
                out.push(&l.node);
            }
        }
        out
    }
}

impl ChunkWorld2D {
    /// A point of the node's space (pixels) in world tiles (exact: the origin is added in `f64`).
    pub(super) fn entity_world(&self, local: Vector2) -> [f64; 2] {
        let px = self.tile_pixels();
        self.origin.to_world([f64::from(local.x) / f64::from(px.x), f64::from(local.y) / f64::from(px.y)])
    }

    /// A world point (tiles) in the node's space (pixels).
    pub(super) fn entity_local(&self, world: [f64; 2]) -> Vector2 {
        let px = self.tile_pixels();
        let l = self.origin.to_local(world);
        Vector2::new((l[0] * f64::from(px.x)) as f32, (l[1] * f64::from(px.y)) as f32)
    }

    /// How `node` stands now, in world tiles.
    pub(super) fn entity_pose(&self, node: &Gd<Node2D>) -> Pose2D {
        Pose2D {
            position: self.entity_world(node.get_position()),
            rotation: node.get_rotation(),
            scale: node.get_scale(),
        }
    }

    /// The world's entity deltas now: what a save keeps of its objects, and what a shared world
    /// replicates (removed spawns by side-view chunk, [`delta_key`]; records by the 32-tile cell
    /// of their tile position `(x, y, 0)`).
    pub(crate) fn entity_deltas(&self) -> EntityDeltas {
        self.entities.snapshot(|n| self.entity_pose(n))
    }

    /// The scene path of spawn rule `rule` (or a structure rule's entity) of the world streamed.
    fn spawn_scene_path(&self, rule: u16) -> Option<String> {
        let preset = self.streamer.as_ref()?.generator().preset();
        match rule.checked_sub(FIRST_STRUCTURE_SPAWN_RULE) {
            Some(i) => preset.structures.rules.get(i as usize).map(|r| r.entity.clone()),
            None => preset.spawns.rules.get(rule as usize).map(|r| r.scene.clone()),
        }
    }

    /// Whether chunk `c` is loaded and all its tiles are in the layer.
    fn chunk_written(&self, c: ChunkCoord2D) -> bool {
        self.drawn.contains_key(&c)
            && !self.ops.iter().any(|op| matches!(op, TileOp::Write { result, .. } if result.coord == c))
    }

    /// One frame of entity work: let go of chunks that unloaded, bring in those loaded and
    /// written (nearest the viewer first), park entities outside the standing chunks, and
    /// instance queued objects until `budget` is spent (at least one a frame).
    pub(super) fn update_entities(&mut self, frame_start: Instant, budget: Duration) {
        self.step_replicas();
        let n = self.chunk_tiles();
        let viewer = self.streamer.as_ref().and_then(|s| s.viewer_chunk()).unwrap_or_default();
        let leaving: Vec<ChunkCoord2D> =
            self.entities.active.iter().copied().filter(|c| !self.entities.spawns.contains_key(c)).collect();
        let mut coming: Vec<ChunkCoord2D> = self
            .entities
            .spawns
            .keys()
            .copied()
            .filter(|&c| !self.entities.active.contains(&c) && self.chunk_written(c))
            .collect();
        // In i64: chunks of a world's far ends are billions of tiles apart.
        coming.sort_by_key(|c| {
            (i64::from(c.x) - i64::from(viewer.x)).pow(2) + (i64::from(c.y) - i64::from(viewer.y)).pow(2)
        });
        let e = &mut self.entities;
        if !leaving.is_empty() {
            for c in &leaving {
                e.active.remove(c);
            }
            for p in std::mem::take(&mut e.queue) {
                if e.active.contains(&p.chunk) {
                    e.queue.push_back(p);
                } else if let Source2D::Record(r) = p.source
                    && !e.replica
                {
                    e.deltas.push_record(r);
                }
            }
        }
        for c in coming {
            e.active.insert(c);
            for p in e.spawns.get(&c).into_iter().flatten() {
                if !e.deltas.is_spawn_removed(delta_key(c), p.key()) {
                    e.queue.push_back(Pending2D { chunk: c, source: Source2D::Spawn(*p) });
                }
            }
            // A replica's records stay the server's; its entities are instances of them.
            let records = if e.replica { e.records_in(c, n) } else { e.take_records(c, n) };
            for r in records {
                e.queue.push_back(Pending2D { chunk: c, source: Source2D::Record(r) });
            }
        }
        self.park_outside(n);
        instance_queued(self, frame_start, budget);
    }

    /// Entities outside the standing chunks leave the tree (kept if changed); freed ones are
    /// removed ones.
    fn park_outside(&mut self, n: i32) {
        let mut leaving = Vec::new();
        for (&id, l) in &self.entities.live {
            let gone = !l.node.is_instance_valid();
            if gone || !self.entities.active.contains(&chunk_of(self.entity_world(l.node.get_position()), n)) {
                leaving.push(id);
            }
        }
        for id in leaving {
            let Some(l) = self.entities.live.remove(&id) else { continue };
            self.entities.glides.stop(id);
            if !self.entities.replica {
                let pose = |node: &Gd<Node2D>| self.entity_pose(node);
                let record = l.node.is_instance_valid().then(|| record_if_changed(&l, pose)).flatten();
                self.keep_leaving(&l, record);
            }
            if l.node.is_instance_valid() {
                self.signals().entity_despawned().emit(&l.node);
                l.node.free();
            }
        }
    }

    /// Keeps entity `l` (its `record`, if it changed) in the deltas as it leaves the world.
    fn keep_leaving(&mut self, l: &Live2D, record: Option<EntityRecord>) {
        let e = &mut self.entities;
        if (record.is_some() || !l.node.is_instance_valid())
            && let Some((c, key)) = l.spawn
        {
            e.deltas.remove_spawn(delta_key(c), key);
        }
        if let Some(r) = record {
            e.deltas.push_record(r);
        }
    }

    /// Instances one queued object as an internal child of the world; the node, or `None` with
    /// the error in `last_error()`.
    fn instance_pending(&mut self, p: Pending2D, path: &str, scene: &Gd<PackedScene>) -> Option<Gd<Node2D>> {
        let mut node = match instantiate_root::<Node2D>(scene, path, "StrataChunkWorld2D", "Node2D") {
            Ok(n) => n,
            Err(message) => {
                self.host.error(message);
                return None;
            }
        };
        let (spawn, state) = match &p.source {
            Source2D::Spawn(s) => {
                node.set_position(self.entity_local(s.position));
                (Some((p.chunk, s.key())), Vec::new())
            }
            Source2D::Record(r) => {
                let pose = Pose2D::of_record(r);
                node.set_position(self.entity_local(pose.position));
                node.set_rotation(pose.rotation);
                node.set_scale(pose.scale);
                (None, r.state.clone())
            }
        };
        let id = node.instance_id().to_i64();
        node.set_name(&node_name(path, id));
        self.base_mut().add_child_ex(&node).internal(InternalMode::BACK).done();
        restore_state(&node, &state);
        let start = self.entity_pose(&node);
        let start_state = state_of(&node);
        self.entities
            .live
            .insert(id, Live2D { node: node.clone(), scene: path.to_string(), spawn, start, start_state });
        self.signals().entity_spawned().emit(&node);
        Some(node)
    }

    /// Takes every entity out of the tree, keeping the changed ones (a restart: preset change,
    /// regeneration, a new library, leaving the tree).
    pub(super) fn park_entities(&mut self) {
        let deltas = self.entity_deltas();
        let e = &mut self.entities;
        e.deltas = deltas;
        e.queue.clear();
        e.active.clear();
        e.spawns.clear();
        e.glides.clear();
        let live = std::mem::take(&mut e.live);
        for l in live.into_values() {
            if l.node.is_instance_valid() {
                self.signals().entity_despawned().emit(&l.node);
                l.node.free();
            }
        }
    }

    /// Frees every entity and takes `deltas` in their place (a loaded save).
    pub(super) fn replace_entities(&mut self, deltas: EntityDeltas) {
        self.park_entities();
        self.entities.deltas = deltas;
    }

    /// The entity counters of `get_stats()`.
    pub(super) fn entity_stats(&self, d: &mut VarDictionary) {
        let e = &self.entities;
        d.set("entities", e.live.len() as i64);
        d.set("entities_queued", e.queue.len() as i64);
        d.set("entities_kept", e.deltas.record_count() as i64);
        d.set("entity_spawn_us_median", e.spawn_us.median());
    }
}

impl EntityQueue for ChunkWorld2D {
    type Pending = Pending2D;

    fn next_pending(&mut self) -> Option<Pending2D> {
        self.entities.queue.pop_front()
    }

    fn requeue_front(&mut self, p: Pending2D) {
        self.entities.queue.push_front(p);
    }

    fn scene_path(&self, p: &Pending2D) -> Option<String> {
        match &p.source {
            Source2D::Spawn(s) => self.spawn_scene_path(s.rule).filter(|path| !path.is_empty()),
            Source2D::Record(r) => Some(r.scene.clone()),
        }
    }

    fn scene(&mut self, path: &str) -> Option<Result<Gd<PackedScene>, ()>> {
        self.entities.scenes.get(path)
    }

    fn scene_failed(&mut self, p: Pending2D, path: &str) {
        self.host.error(format!(
            "StrataChunkWorld2D: the entity scene `{path}` did not load; allowed: a .tscn or .scn file whose root is a Node2D"
        ));
        // A record of a scene that is gone stays kept: a later run may have it.
        if let Source2D::Record(r) = p.source {
            self.entities.deltas.push_record(r);
        }
    }

    fn instance(&mut self, p: Pending2D, path: &str, scene: &Gd<PackedScene>) {
        let _ = self.instance_pending(p, path, scene);
    }

    fn instanced_in(&mut self, us: u32) {
        self.entities.spawn_us.push(us);
    }
}
