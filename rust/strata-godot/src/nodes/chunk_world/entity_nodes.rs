//! `StrataChunkWorld`'s entity nodes: the node side of [`super::entities`]. Each frame it
//! instances queued objects within the frame budget, parks the entities of chunks that left
//! `entity_distance`, and keeps a shared world's replicas on the server's deltas; the game's
//! own entity calls (`add_entity`, `remove_entity`, `get_entities_in`) land here.
//!
//! May use: the parent module (`ChunkWorld`), `entities` (the bookkeeping it drives),
//! `strata_core::persist::entities`.

use super::ChunkWorld;
use super::entities::replica::record_transform;
use super::entities::{LiveEntity, Pending, Source, to_f64};
use crate::host::entity_scenes::{EntityQueue, instance_queued, instantiate_root, node_name, restore_state, state_of};
use crate::host::replicas::{Orphan, replica_refusal, take_nearest};
use godot::classes::node::InternalMode;
use godot::classes::{Node3D, PackedScene};
use godot::prelude::*;
use std::collections::BTreeSet;
use std::time::Instant;
use strata_core::ChunkCoord;
use strata_core::persist::entities::{EntityDeltas, EntityRecord};

impl ChunkWorld {
    /// One frame of entity work: activate chunks that came within `entity_distance`, let go of
    /// those that left, park entities that walked out of the active chunks, and instance queued
    /// objects until `budget` is spent (at least one per frame).
    pub(crate) fn update_entities(
        &mut self,
        viewers: &[ChunkCoord],
        frame_start: Instant,
        budget: std::time::Duration,
    ) {
        self.step_replicas();
        let (r, vr) = self.entity_distances();
        let within = |c: ChunkCoord, margin: i32| {
            viewers.iter().any(|v| {
                (c.x - v.x).abs() <= r + margin && (c.z - v.z).abs() <= r + margin && (c.y - v.y).abs() <= vr + margin
            })
        };
        let mut freed = Vec::new();
        {
            let e = &mut self.entities;
            // Chunks that left: their queued records go back to the deltas.
            let leaving: Vec<ChunkCoord> =
                e.active.iter().copied().filter(|&c| !e.spawns.contains_key(&c) || !within(c, 1)).collect();
            for c in &leaving {
                e.active.remove(c);
            }
            if !leaving.is_empty() {
                let queue = std::mem::take(&mut e.queue);
                for p in queue {
                    if e.active.contains(&p.chunk) {
                        e.queue.push_back(p);
                    } else if let Source::Record(rec) = p.source
                        && !e.replica
                    {
                        e.deltas.push_record(rec);
                    }
                }
            }
            // Chunks that came: their spawns and records join the queue, nearest chunks first.
            let mut coming: Vec<ChunkCoord> =
                e.spawns.keys().copied().filter(|&c| !e.active.contains(&c) && within(c, 0)).collect();
            coming.sort_by_key(|c| {
                // In i64: viewers of a shared world may be millions of chunks apart.
                let d = |a: i32, b: i32| (i64::from(a) - i64::from(b)).pow(2);
                viewers.iter().map(|v| d(c.x, v.x) + d(c.y, v.y) + d(c.z, v.z)).min()
            });
            for c in coming {
                e.active.insert(c);
                for p in e.spawns.get(&c).into_iter().flatten() {
                    if !e.deltas.is_spawn_removed(c, p.key()) {
                        e.queue.push_back(Pending { chunk: c, source: Source::Spawn(*p) });
                    }
                }
                // A replica's records stay the server's; its entities are instances of them.
                let records = if e.replica {
                    e.deltas.records.get(&c).cloned().unwrap_or_default()
                } else {
                    e.deltas.take_records(c)
                };
                for rec in records {
                    e.queue.push_back(Pending { chunk: c, source: Source::Record(rec) });
                }
            }
            // Entities outside the active chunks leave the tree (kept if changed); freed ones
            // are removed ones.
            let ids: Vec<i64> = e.live.keys().copied().collect();
            for id in ids {
                let Some(l) = e.live.get(&id) else { continue };
                if !l.node.is_instance_valid() {
                    if let Some((c, key)) = l.origin {
                        e.deltas.remove_spawn(c, key);
                    }
                    e.live.remove(&id);
                    continue;
                }
                let c = e.chunk_at(l.node.get_position());
                if e.active.contains(&c) {
                    continue;
                }
                let l = e.live.remove(&id).expect("present above");
                e.glides.stop(id);
                if e.replica {
                    freed.push(l.node);
                    continue;
                }
                if let Some(record) = e.record_if_changed(&l) {
                    if let Some((oc, key)) = l.origin {
                        e.deltas.remove_spawn(oc, key);
                    }
                    e.deltas.push_record(record);
                }
                freed.push(l.node);
            }
        }
        for node in freed {
            self.signals().entity_despawned().emit(&node);
            node.free();
        }
        // Instance within the budget, at least one object a frame.
        instance_queued(self, frame_start, budget);
    }

    /// Instances one queued object as a child of the world; the node, or `None` with the
    /// error kept.
    fn instance_pending(&mut self, p: Pending, path: &str, scene: &Gd<PackedScene>) -> Option<Gd<Node3D>> {
        let mut node = match instantiate_root::<Node3D>(scene, path, "StrataChunkWorld", "Node3D") {
            Ok(n) => n,
            Err(message) => {
                self.report_entity_error(message);
                return None;
            }
        };
        let (origin, state) = match &p.source {
            Source::Spawn(s) => {
                let t = Transform3D::new(Basis::from_axis_angle(Vector3::UP, s.yaw), self.entities.local(s.position));
                node.set_transform(t);
                (Some((p.chunk, s.key())), None)
            }
            Source::Record(r) => {
                let q = Quaternion::new(r.rotation[0], r.rotation[1], r.rotation[2], r.rotation[3]).normalized();
                let basis = Basis::from_quaternion(q).scaled(Vector3::new(r.scale[0], r.scale[1], r.scale[2]));
                node.set_transform(Transform3D::new(basis, self.entities.local(r.position)));
                (None, (!r.state.is_empty()).then(|| PackedByteArray::from(r.state.as_slice())))
            }
        };
        let id = node.instance_id().to_i64();
        node.set_name(&node_name(path, id));
        self.base_mut().add_child_ex(&node).internal(InternalMode::BACK).done();
        if let Some(bytes) = state {
            restore_state(&node, bytes.as_slice());
        }
        // A record keeps its own origin: it is already not at its spawn.
        let start = node.get_transform();
        let start_state = state_of(&node);
        self.entities
            .live
            .insert(id, LiveEntity { node: node.clone(), scene: path.to_string(), origin, start, start_state });
        self.signals().entity_spawned().emit(&node);
        Some(node)
    }

    /// Adds an instance of `scene` at `position` as an entity of the world (kept in saves).
    pub(crate) fn add_entity_node(&mut self, scene: Gd<PackedScene>, position: Vector3) -> Option<Gd<Node3D>> {
        if self.entities.is_replica() {
            self.report_entity_error(replica_refusal("StrataChunkWorld", "add_entity"));
            return None;
        }
        let path = scene.get_path().to_string();
        if path.is_empty() {
            self.report_entity_error(
                "StrataChunkWorld.add_entity: the scene has no resource path, so a save could not bring it back; allowed: a scene saved as a .tscn or .scn file".into(),
            );
            return None;
        }
        if !position.is_finite() {
            self.report_entity_error(format!(
                "StrataChunkWorld.add_entity: position {position} is not finite; allowed: finite numbers"
            ));
            return None;
        }
        self.entities.scenes.insert_ready(&path, &scene);
        let record = EntityRecord {
            scene: path.clone(),
            position: self.entities.world(position),
            rotation: EntityRecord::NO_ROTATION,
            scale: EntityRecord::NO_SCALE,
            state: Vec::new(),
        };
        let chunk = record.chunk();
        self.instance_pending(Pending { chunk, source: Source::Record(record) }, &path, &scene)
    }

    /// Removes a live entity for good (a spawned one does not come back). False when `node` is
    /// not one of this world's entities.
    pub(crate) fn remove_entity_node(&mut self, node: Gd<Node3D>) -> bool {
        if self.entities.is_replica() {
            self.report_entity_error(replica_refusal("StrataChunkWorld", "remove_entity"));
            return false;
        }
        let id = node.instance_id().to_i64();
        let Some(l) = self.entities.live.remove(&id) else {
            return false;
        };
        self.entities.glides.stop(id);
        if let Some((c, key)) = l.origin {
            self.entities.deltas.remove_spawn(c, key);
        }
        self.signals().entity_despawned().emit(&l.node);
        l.node.free();
        true
    }

    /// Live entities whose position lies in `area` (the world node's space).
    pub(crate) fn entities_in(&self, area: Aabb) -> Array<Gd<Node3D>> {
        let mut out = Array::new();
        for l in self.entities.live.values() {
            if l.node.is_instance_valid() && area.contains_point(l.node.get_position()) {
                out.push(&l.node);
            }
        }
        out
    }

    /// Takes every entity out of the tree, keeping changed ones (restarts, leaving the tree).
    pub(crate) fn park_entities(&mut self) {
        for node in self.entities.park_all() {
            if node.is_instance_valid() {
                self.signals().entity_despawned().emit(&node);
                node.free();
            }
        }
    }

    /// Frees every entity and takes `deltas` in their place (a loaded save).
    pub(crate) fn replace_entities(&mut self, deltas: EntityDeltas) {
        for node in self.entities.replace_deltas(deltas) {
            if node.is_instance_valid() {
                self.signals().entity_despawned().emit(&node);
                node.free();
            }
        }
    }

    /// Keeps `message` for `last_error()` (and prints it as an error, once).
    fn report_entity_error(&mut self, message: String) {
        self.record_error(message);
    }
}

impl ChunkWorld {
    /// Whether this world's entities act on their own (think, move): true in a single-player
    /// world and on a shared world's host; false on its clients, whose entities are replicas of
    /// the server's.
    #[must_use]
    pub(crate) fn entity_authority(&self) -> bool {
        !self.entities.is_replica()
    }

    /// Makes the entities replicas of a server's (`true`, a client that joined: every entity
    /// goes, the deltas start empty, the server's come in their place) or this world's own again
    /// (`false`, it left: it keeps every object it shows, as the side view does).
    pub(crate) fn set_entity_replica(&mut self, replica: bool) {
        if !replica {
            if self.entities.is_replica() {
                self.entities.own_replicas();
            }
            return;
        }
        for node in self.entities.set_replica(true) {
            if node.is_instance_valid() {
                self.signals().entity_despawned().emit(&node);
                node.free();
            }
        }
    }

    /// One frame of a replica world: gliding replicas move on.
    pub(crate) fn step_replicas(&mut self) {
        if self.entities.replica {
            self.entities.glide();
        }
    }

    /// Takes the server's entity deltas of `updates` (chunk, removed spawn keys, records) and
    /// makes the live entities of those chunks match them (see the module docs).
    pub(crate) fn apply_replica_deltas(&mut self, updates: Vec<(ChunkCoord, BTreeSet<u32>, Vec<EntityRecord>)>) {
        if !self.entities.replica || updates.is_empty() {
            return;
        }
        let chunks: BTreeSet<ChunkCoord> = updates.iter().map(|u| u.0).collect();
        let e = &mut self.entities;
        for (c, removed, records) in &updates {
            if removed.is_empty() {
                e.deltas.removed_spawns.remove(c);
            } else {
                e.deltas.removed_spawns.insert(*c, removed.clone());
            }
            if records.is_empty() {
                e.deltas.records.remove(c);
            } else {
                e.deltas.records.insert(*c, records.clone());
            }
        }
        // Queued records of these chunks are superseded, queued spawns now removed are gone.
        let deltas = &e.deltas;
        e.queue.retain(|p| match &p.source {
            Source::Record(_) => !chunks.contains(&p.chunk),
            Source::Spawn(s) => !deltas.is_spawn_removed(p.chunk, s.key()),
        });
        // The live entities these chunks no longer account for.
        let mut orphans: Vec<Orphan> = Vec::new();
        for (&id, l) in &e.live {
            let spawn_gone = l.origin.is_some_and(|(c, key)| chunks.contains(&c) && e.deltas.is_spawn_removed(c, key));
            let record_here = e.replica_chunk(id).is_some_and(|c| chunks.contains(&c));
            if spawn_gone || record_here {
                // A freed node stands nowhere: it matches no record and goes.
                let at = e.heading(id).map_or([f64::INFINITY; 3], to_f64);
                orphans.push(Orphan { id, scene: l.scene.clone(), at });
            }
        }
        let mut instance = Vec::new();
        let mut restate = Vec::new();
        for (c, _, records) in &updates {
            if !e.active.contains(c) {
                continue;
            }
            for r in records {
                let target = record_transform(r, e.origin);
                let Some(id) = take_nearest(&mut orphans, &r.scene, to_f64(target.origin)) else {
                    instance.push(Pending { chunk: *c, source: Source::Record(r.clone()) });
                    continue;
                };
                let Some(l) = e.live.get_mut(&id) else { continue };
                l.origin = None;
                let from = l.node.get_transform();
                restate.push((l.node.clone(), r.state.clone()));
                e.glides.start(id, from, target);
            }
        }
        e.queue.extend(instance);
        let mut freed = Vec::new();
        for o in orphans {
            e.glides.stop(o.id);
            if let Some(l) = e.live.remove(&o.id) {
                freed.push(l.node);
            }
        }
        for (node, state) in restate {
            if state_of(&node).as_slice() != state.as_slice() {
                restore_state(&node, &state);
            }
        }
        for node in freed {
            if node.is_instance_valid() {
                self.signals().entity_despawned().emit(&node);
                node.free();
            }
        }
    }
}

impl EntityQueue for ChunkWorld {
    type Pending = Pending;

    fn next_pending(&mut self) -> Option<Pending> {
        self.entities.queue.pop_front()
    }

    fn requeue_front(&mut self, p: Pending) {
        self.entities.queue.push_front(p);
    }

    fn scene_path(&self, p: &Pending) -> Option<String> {
        match &p.source {
            Source::Spawn(s) => self.spawn_scene_path(s.rule),
            Source::Record(r) => Some(r.scene.clone()),
        }
    }

    fn scene(&mut self, path: &str) -> Option<Result<Gd<PackedScene>, ()>> {
        self.entities.scene(path)
    }

    fn scene_failed(&mut self, p: Pending, path: &str) {
        self.report_entity_error(format!(
            "StrataChunkWorld: the scene `{path}` of an entity could not be loaded; allowed: a PackedScene whose root is a Node3D"
        ));
        if let Source::Record(r) = p.source {
            // Kept, not lost: it comes back once the scene loads (a later run).
            self.entities.deltas.push_record(r);
        }
    }

    fn instance(&mut self, p: Pending, path: &str, scene: &Gd<PackedScene>) {
        let _ = self.instance_pending(p, path, scene);
    }

    fn instanced_in(&mut self, us: u32) {
        self.entities.spawn_us.push(us);
    }
}
