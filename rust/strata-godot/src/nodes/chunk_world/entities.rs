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
//! nothing of the node: `entity_nodes` drives it.

use crate::host::entity_scenes::{SceneCache, state_of};
use crate::host::replicas::Glides;
use godot::classes::{Node3D, PackedScene};
use godot::prelude::*;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use strata_core::base::origin::FloatingOrigin;
use strata_core::gen3d::scatter::{ScatterInstance, ScatterKind};
use strata_core::gen3d::spawns::SpawnPoint;
use strata_core::persist::entities::{EntityDeltas, EntityRecord};
use strata_core::stream::scheduler::Samples;
use strata_core::{ChunkCoord, IVec3};

pub(crate) mod replica;

/// Where a queued object comes from.
pub(super) enum Source {
    Spawn(SpawnPoint),
    Record(EntityRecord),
}

/// An object waiting for its turn (and its scene) to be instanced.
pub(crate) struct Pending {
    pub(super) chunk: ChunkCoord,
    pub(super) source: Source,
}

/// An entity standing in the world.
pub(super) struct LiveEntity {
    pub(super) node: Gd<Node3D>,
    pub(super) scene: String,
    /// The spawn it came from (chunk and key), for a spawned entity.
    pub(super) origin: Option<(ChunkCoord, u32)>,
    /// Its transform and state bytes when it was instanced: unchanged ones are not kept.
    pub(super) start: Transform3D,
    pub(super) start_state: PackedByteArray,
}

/// The entity bookkeeping of one world.
#[derive(Default)]
pub(crate) struct Entities {
    /// What is not standing in the world: removed spawns, kept records, harvested decorations.
    pub(super) deltas: EntityDeltas,
    /// Spawn points of every loaded chunk (an entry per loaded chunk, maybe empty).
    pub(super) spawns: HashMap<ChunkCoord, Vec<SpawnPoint>>,
    /// Decorations of every loaded chunk as the worker placed them.
    pub(super) scatter: HashMap<ChunkCoord, Vec<ScatterInstance>>,
    /// Chunks whose objects stand (or are queued to stand) in the world.
    pub(super) active: HashSet<ChunkCoord>,
    pub(super) queue: VecDeque<Pending>,
    /// Live entities by instance id, in instancing order of ids.
    pub(super) live: BTreeMap<i64, LiveEntity>,
    pub(super) scenes: SceneCache,
    /// Main-thread time to instance one entity (µs).
    pub(crate) spawn_us: Samples,
    /// True on a shared world's client: the deltas are the server's, the entities its replicas.
    pub(super) replica: bool,
    /// Replicas moving toward the server's newest transform.
    pub(super) glides: Glides<Transform3D>,
    /// The world's origin: entities' nodes stand at world − origin, records hold world points.
    pub(super) origin: FloatingOrigin,
}

/// `p` as `f64` components.
pub(super) fn to_f64(p: Vector3) -> [f64; 3] {
    [f64::from(p.x), f64::from(p.y), f64::from(p.z)]
}

impl Entities {
    /// The chunk a point of the node's space lies in.
    pub(super) fn chunk_at(&self, local: Vector3) -> ChunkCoord {
        ChunkCoord::containing(self.origin.voxel_at(to_f64(local)))
    }

    /// A world point in the node's space.
    pub(super) fn local(&self, world: [f64; 3]) -> Vector3 {
        let l = self.origin.to_local(world);
        Vector3::new(l[0] as f32, l[1] as f32, l[2] as f32)
    }

    /// A point of the node's space in the world (exact).
    pub(super) fn world(&self, local: Vector3) -> [f64; 3] {
        self.origin.to_world(to_f64(local))
    }

    /// The origin moved to `next`, by `d` in the node's space: what is kept in that space
    /// (how each entity started, where replicas glide) moves with the nodes.
    pub(super) fn shift(&mut self, next: FloatingOrigin, d: Vector3) {
        self.origin = next;
        for l in self.live.values_mut() {
            l.start.origin -= d;
        }
        self.glides.move_all(|t| t.origin -= d);
    }
}

pub(super) fn transform_changed(a: &Transform3D, b: &Transform3D) -> bool {
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
            if let Some(record) = self.record_if_changed(e) {
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
    pub(super) fn record_if_changed(&self, e: &LiveEntity) -> Option<EntityRecord> {
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
            position: self.world(t.origin),
            rotation: [q.x, q.y, q.z, q.w],
            scale: [s.x, s.y, s.z],
            state: state.to_vec(),
        })
    }

    /// The scene at `path`: ready, loading (`None`), or failed.
    pub(super) fn scene(&mut self, path: &str) -> Option<Result<Gd<PackedScene>, ()>> {
        self.scenes.get(path)
    }

    /// Forgets every loaded chunk and every live entity without keeping them (a loaded save
    /// replaces the world's objects), and takes `deltas`.
    pub(crate) fn replace_deltas(&mut self, deltas: EntityDeltas) -> Vec<Gd<Node3D>> {
        let freed: Vec<Gd<Node3D>> = std::mem::take(&mut self.live).into_values().map(|e| e.node).collect();
        self.queue.clear();
        self.active.clear();
        self.glides.clear();
        self.deltas = deltas;
        freed
    }

    /// Takes every live entity out of the world, keeping the changed ones (a restart: preset
    /// change, regeneration, leaving the tree). Returns the nodes to free.
    pub(crate) fn park_all(&mut self) -> Vec<Gd<Node3D>> {
        if !self.replica {
            self.deltas = self.snapshot();
        }
        self.glides.clear();
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
        let r2 = f64::from(radius) * f64::from(radius);
        let lo = self.chunk_at(centre - Vector3::ONE * radius);
        let hi = self.chunk_at(centre + Vector3::ONE * radius);
        let centre = self.world(centre);
        let dist_sq = |p: [f64; 3]| (0..3).map(|i| (p[i] - centre[i]).powi(2)).sum::<f64>();
        let near = |c: &ChunkCoord| {
            (lo.x..=hi.x).contains(&c.x) && (lo.y..=hi.y).contains(&c.y) && (lo.z..=hi.z).contains(&c.z)
        };
        for (&c, list) in self.scatter.iter().filter(|(c, _)| near(c)) {
            let mut any = false;
            for s in list {
                let base = s.base_voxel();
                if dist_sq(s.position) <= r2 && self.deltas.remove_scatter(c, local_index(c, base)) {
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
pub(super) fn local_index(c: ChunkCoord, p: IVec3) -> u16 {
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
