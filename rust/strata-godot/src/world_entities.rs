//! The objects of a `StrataChunkWorld`: entities that spawn from the preset's spawn rules, that the
//! game adds, moves and removes, and harvested decorations; what a save keeps of them.
//!
//! Bookkeeping (engine-light, in [`Entities`]): the spawn points of each loaded chunk (from the
//! worker), the chunks whose objects stand in the world (within `entity_distance` of a viewer), a
//! queue of objects to instance within the frame budget, the live entities with how they started,
//! and the deltas of everything not standing ([`EntityDeltas`]: removed spawns, kept records,
//! harvested decorations). An entity belongs to the chunk its position is in; when that chunk is
//! not active it leaves the tree and, if it moved or changed (transform, or the Dictionary of its
//! `strata_get_state()`), is kept as a record of that chunk, to come back as it was. An unchanged
//! spawned entity is simply freed: the spawn rule brings it back. An entity freed by the game is
//! a removed one.
//!
//! A replica world (a shared world's client, [`replica`]) holds the server's deltas instead of
//! its own: its entities never become records, and the server's changes move, change, add and
//! remove them.
//!
//! May use: `strata_core::persist::entities`, `strata_core::gen3d` (spawn points, scatter),
//! `chunk_world` (the node whose children the entities are).

use crate::chunk_world::ChunkWorld;
use godot::classes::node::InternalMode;
use godot::classes::{Node3D, PackedScene, ResourceLoader};
use godot::global::{bytes_to_var, var_to_bytes};
use godot::prelude::*;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::time::Instant;
use strata_core::gen3d::scatter::{ScatterInstance, ScatterKind};
use strata_core::gen3d::spawns::SpawnPoint;
use strata_core::persist::entities::{EntityDeltas, EntityRecord};
use strata_core::stream::scheduler::Samples;
use strata_core::{ChunkCoord, IVec3};

pub(crate) mod replica;

/// Where a queued object comes from.
enum Source {
    Spawn(SpawnPoint),
    Record(EntityRecord),
}

/// An object waiting for its turn (and its scene) to be instanced.
struct Pending {
    chunk: ChunkCoord,
    source: Source,
}

/// A scene the rules or records name, loaded on Godot's loader threads.
enum SceneSlot {
    Loading,
    Ready(Gd<PackedScene>),
    Failed,
}

/// An entity standing in the world.
struct LiveEntity {
    node: Gd<Node3D>,
    scene: String,
    /// The spawn it came from (chunk and key), for a spawned entity.
    origin: Option<(ChunkCoord, u32)>,
    /// Its transform and state bytes when it was instanced: unchanged ones are not kept.
    start: Transform3D,
    start_state: PackedByteArray,
}

/// The entity bookkeeping of one world.
#[derive(Default)]
pub(crate) struct Entities {
    /// What is not standing in the world: removed spawns, kept records, harvested decorations.
    deltas: EntityDeltas,
    /// Spawn points of every loaded chunk (an entry per loaded chunk, maybe empty).
    spawns: HashMap<ChunkCoord, Vec<SpawnPoint>>,
    /// Decorations of every loaded chunk as the worker placed them.
    scatter: HashMap<ChunkCoord, Vec<ScatterInstance>>,
    /// Chunks whose objects stand (or are queued to stand) in the world.
    active: HashSet<ChunkCoord>,
    queue: VecDeque<Pending>,
    /// Live entities by instance id, in instancing order of ids.
    live: BTreeMap<i64, LiveEntity>,
    scenes: HashMap<String, SceneSlot>,
    /// Main-thread time to instance one entity (µs).
    pub(crate) spawn_us: Samples,
    /// True on a shared world's client: the deltas are the server's, the entities its replicas.
    replica: bool,
    /// Replicas moving toward the server's newest transform, by instance id.
    motions: HashMap<i64, replica::Motion>,
}

/// The node name of an entity: its scene file's stem and its instance id (unique in the world).
fn node_name(scene: &str, id: i64) -> String {
    let stem = scene.rsplit('/').next().unwrap_or(scene).split('.').next().unwrap_or("entity");
    format!("entity_{stem}_{id}")
}

fn chunk_of(p: Vector3) -> ChunkCoord {
    ChunkCoord::containing(IVec3::new(p.x.floor() as i32, p.y.floor() as i32, p.z.floor() as i32))
}

/// The node's own state as bytes (`var_to_bytes` of its `strata_get_state()` Dictionary), empty
/// when it has none.
fn state_of(node: &Gd<Node3D>) -> PackedByteArray {
    if !node.has_method("strata_get_state") {
        return PackedByteArray::new();
    }
    let v = node.clone().call("strata_get_state", &[]);
    if v.get_type() != VariantType::DICTIONARY {
        return PackedByteArray::new();
    }
    var_to_bytes(&v)
}

fn transform_changed(a: &Transform3D, b: &Transform3D) -> bool {
    const EPS: f32 = 1e-3;
    let d = a.origin - b.origin;
    d.length() > EPS
        || (0..3).any(|i| {
            let (ra, rb) = (a.basis.rows[i], b.basis.rows[i]);
            (ra - rb).length() > EPS
        })
}

impl Entities {
    /// A loaded chunk's spawn points and decorations (first load: `spawns` from the worker; an
    /// update after an edit keeps the first load's spawns).
    pub(crate) fn chunk_loaded(
        &mut self,
        c: ChunkCoord,
        spawns: Vec<SpawnPoint>,
        scatter: &[ScatterInstance],
        update: bool,
    ) {
        if !update || !self.spawns.contains_key(&c) {
            self.spawns.insert(c, spawns);
        }
        self.scatter.insert(c, scatter.to_vec());
    }

    /// A chunk left the streamer: its objects go (their entities are parked by the next update).
    pub(crate) fn chunk_unloaded(&mut self, c: ChunkCoord) {
        self.spawns.remove(&c);
        self.scatter.remove(&c);
    }

    /// Whether the decoration standing at `base` (its base voxel) was harvested.
    pub(crate) fn is_harvested(&self, base: IVec3) -> bool {
        let c = ChunkCoord::containing(base);
        self.deltas.is_scatter_removed(c, local_index(c, base))
    }

    /// The deltas as a save must hold them now: the parked ones plus every live entity that
    /// moved or changed.
    pub(crate) fn snapshot(&self) -> EntityDeltas {
        let mut d = self.deltas.clone();
        for e in self.live.values() {
            if let Some(record) = Self::record_if_changed(e) {
                if let Some((c, key)) = e.origin {
                    d.remove_spawn(c, key);
                }
                d.push_record(record);
            } else if !e.node.is_instance_valid()
                && let Some((c, key)) = e.origin
            {
                d.remove_spawn(c, key);
            }
        }
        for p in &self.queue {
            if let Source::Record(r) = &p.source {
                d.push_record(r.clone());
            }
        }
        d.compact();
        d
    }

    /// The entity as a record when it is no longer as it started (always for one the game
    /// added); `None` for an unchanged spawned one or a freed node.
    fn record_if_changed(e: &LiveEntity) -> Option<EntityRecord> {
        if !e.node.is_instance_valid() {
            return None;
        }
        let t = e.node.get_transform();
        let state = state_of(&e.node);
        let changed = e.origin.is_none() || transform_changed(&t, &e.start) || state != e.start_state;
        if !changed {
            return None;
        }
        let q = t.basis.get_quaternion();
        let s = t.basis.get_scale();
        Some(EntityRecord {
            scene: e.scene.clone(),
            position: [t.origin.x, t.origin.y, t.origin.z],
            rotation: [q.x, q.y, q.z, q.w],
            scale: [s.x, s.y, s.z],
            state: state.to_vec(),
        })
    }

    /// The scene at `path`: ready, loading (asked of Godot's loader threads), or failed. The
    /// threaded loader is reached through `Object.call`, as gdext leaves its methods out of the
    /// typed API without its experimental thread support.
    fn scene(&mut self, path: &str) -> Option<Result<Gd<PackedScene>, ()>> {
        const IN_PROGRESS: i64 = 1;
        const LOADED: i64 = 3;
        let mut loader = ResourceLoader::singleton();
        let arg = [GString::from(path).to_variant()];
        let slot = self.scenes.entry(path.to_string()).or_insert_with(|| {
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

    /// Forgets every loaded chunk and every live entity without keeping them (a loaded save
    /// replaces the world's objects), and takes `deltas`.
    pub(crate) fn replace_deltas(&mut self, deltas: EntityDeltas) -> Vec<Gd<Node3D>> {
        let freed: Vec<Gd<Node3D>> = std::mem::take(&mut self.live).into_values().map(|e| e.node).collect();
        self.queue.clear();
        self.active.clear();
        self.motions.clear();
        self.deltas = deltas;
        freed
    }

    /// Takes every live entity out of the world, keeping the changed ones (a restart: preset
    /// change, regeneration, leaving the tree). Returns the nodes to free.
    pub(crate) fn park_all(&mut self) -> Vec<Gd<Node3D>> {
        if !self.replica {
            self.deltas = self.snapshot();
        }
        self.motions.clear();
        self.queue.clear();
        self.active.clear();
        self.spawns.clear();
        self.scatter.clear();
        std::mem::take(&mut self.live).into_values().map(|e| e.node).collect()
    }

    /// Marks the decorations within `radius` of `centre` as harvested; returns them.
    pub(crate) fn harvest(&mut self, centre: Vector3, radius: f32) -> (Vec<ScatterInstance>, Vec<ChunkCoord>) {
        let mut taken = Vec::new();
        let mut chunks = Vec::new();
        let r2 = radius * radius;
        let lo = chunk_of(centre - Vector3::ONE * radius);
        let hi = chunk_of(centre + Vector3::ONE * radius);
        let near = |c: &ChunkCoord| {
            (lo.x..=hi.x).contains(&c.x) && (lo.y..=hi.y).contains(&c.y) && (lo.z..=hi.z).contains(&c.z)
        };
        for (&c, list) in self.scatter.iter().filter(|(c, _)| near(c)) {
            let mut any = false;
            for s in list {
                let p = Vector3::new(s.position[0], s.position[1], s.position[2]);
                let base = s.base_voxel();
                if p.distance_squared_to(centre) <= r2 && self.deltas.remove_scatter(c, local_index(c, base)) {
                    taken.push(*s);
                    any = true;
                }
            }
            if any {
                chunks.push(c);
            }
        }
        (taken, chunks)
    }

    /// The decorations of chunk `c` still standing.
    pub(crate) fn standing_scatter(&self, c: ChunkCoord) -> Vec<ScatterInstance> {
        self.scatter
            .get(&c)
            .map(|l| {
                l.iter()
                    .filter(|s| !self.deltas.is_scatter_removed(c, local_index(c, s.base_voxel())))
                    .copied()
                    .collect()
            })
            .unwrap_or_default()
    }

    pub(crate) fn live_count(&self) -> usize {
        self.live.len()
    }

    pub(crate) fn queued_count(&self) -> usize {
        self.queue.len()
    }

    pub(crate) fn kept_count(&self) -> usize {
        self.deltas.record_count()
    }
}

/// The local voxel index of world voxel `p` in chunk `c` (the order of `base::edits`).
fn local_index(c: ChunkCoord, p: IVec3) -> u16 {
    let l = p - c.min_voxel();
    strata_core::base::edits::local_index(l)
}

/// The name Godot scripts get for a decoration kind.
pub(crate) fn scatter_kind_name(k: ScatterKind) -> &'static str {
    match k {
        ScatterKind::Tree => "tree",
        ScatterKind::Bush => "bush",
        ScatterKind::Flower => "flower",
        ScatterKind::Rock => "rock",
    }
}

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
                viewers.iter().map(|v| (c.x - v.x).pow(2) + (c.y - v.y).pow(2) + (c.z - v.z).pow(2)).min()
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
                let c = chunk_of(l.node.get_position());
                if e.active.contains(&c) {
                    continue;
                }
                let l = e.live.remove(&id).expect("present above");
                e.motions.remove(&id);
                if e.replica {
                    freed.push(l.node);
                    continue;
                }
                if let Some(record) = Entities::record_if_changed(&l) {
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
        let mut made = 0;
        let mut waiting = VecDeque::new();
        while made == 0 || frame_start.elapsed() < budget {
            let Some(p) = self.entities.queue.pop_front() else { break };
            let path = match &p.source {
                Source::Spawn(s) => self.spawn_scene_path(s.rule),
                Source::Record(r) => Some(r.scene.clone()),
            };
            let Some(path) = path else { continue };
            match self.entities.scene(&path) {
                None => waiting.push_back(p),
                Some(Err(())) => {
                    self.report_entity_error(format!(
                        "StrataChunkWorld: the scene `{path}` of an entity could not be loaded; allowed: a PackedScene whose root is a Node3D"
                    ));
                    if let Source::Record(r) = p.source {
                        // Kept, not lost: it comes back once the scene loads (a later run).
                        self.entities.deltas.push_record(r);
                    }
                }
                Some(Ok(scene)) => {
                    let t = Instant::now();
                    let _ = self.instance_pending(p, &path, &scene);
                    self.entities.spawn_us.push(t.elapsed().as_micros() as u32);
                    made += 1;
                }
            }
        }
        // Objects whose scene is still loading keep their place in the queue.
        while let Some(p) = waiting.pop_back() {
            self.entities.queue.push_front(p);
        }
    }

    /// Instances one queued object as a child of the world; the node, or `None` with the
    /// error kept.
    fn instance_pending(&mut self, p: Pending, path: &str, scene: &Gd<PackedScene>) -> Option<Gd<Node3D>> {
        let Some(node) = scene.instantiate() else {
            self.report_entity_error(format!("StrataChunkWorld: the scene `{path}` did not instance"));
            return None;
        };
        let mut node = match node.try_cast::<Node3D>() {
            Ok(n) => n,
            Err(other) => {
                other.free();
                self.report_entity_error(format!(
                    "StrataChunkWorld: the scene `{path}` has a root that is not a Node3D; allowed: a scene whose root is a Node3D"
                ));
                return None;
            }
        };
        let (origin, state) = match &p.source {
            Source::Spawn(s) => {
                let t = Transform3D::new(
                    Basis::from_axis_angle(Vector3::UP, s.yaw),
                    Vector3::new(s.position[0], s.position[1], s.position[2]),
                );
                node.set_transform(t);
                (Some((p.chunk, s.key())), None)
            }
            Source::Record(r) => {
                let q = Quaternion::new(r.rotation[0], r.rotation[1], r.rotation[2], r.rotation[3]).normalized();
                let basis = Basis::from_quaternion(q).scaled(Vector3::new(r.scale[0], r.scale[1], r.scale[2]));
                node.set_transform(Transform3D::new(basis, Vector3::new(r.position[0], r.position[1], r.position[2])));
                (None, (!r.state.is_empty()).then(|| PackedByteArray::from(r.state.as_slice())))
            }
        };
        let id = node.instance_id().to_i64();
        node.set_name(&node_name(path, id));
        self.base_mut().add_child_ex(&node).internal(InternalMode::BACK).done();
        if let Some(bytes) = state {
            let v = bytes_to_var(&bytes);
            if v.get_type() == VariantType::DICTIONARY && node.has_method("strata_set_state") {
                node.call("strata_set_state", &[v]);
            }
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
        self.entities.scenes.entry(path.clone()).or_insert_with(|| SceneSlot::Ready(scene.clone()));
        let record = EntityRecord {
            scene: path.clone(),
            position: [position.x, position.y, position.z],
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
        let id = node.instance_id().to_i64();
        let Some(l) = self.entities.live.remove(&id) else {
            return false;
        };
        self.entities.motions.remove(&id);
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
