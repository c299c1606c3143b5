//! Replica entities: the objects of a shared world's client, made to match the server's entity
//! deltas.
//!
//! The client's own spawn rules start the spawned objects, as on every peer; the server's deltas
//! of a chunk (removed spawn keys and the records of the objects not at a spawn) then say which
//! of them are gone and which other objects stand there. An update of some chunks first takes
//! out the live entities those chunks no longer account for (spawned ones now removed, and every
//! replica of a record of those chunks), then gives each record of an active chunk the nearest
//! of them with the same scene within [`MATCH_RADIUS`], which glides there (its transform is
//! interpolated over [`GLIDE_S`], the server's publication interval) and takes the record's
//! state; records left over are instanced, entities left over are freed. So a deer walking on
//! the server walks on the client, even across chunk borders and from its spawn on.
//!
//! May use: the parent module's bookkeeping, `strata_core::persist::entities`.

use super::{Entities, Pending, Source, chunk_of};
use crate::chunk_world::ChunkWorld;
use godot::global::bytes_to_var;
use godot::prelude::*;
use std::collections::BTreeSet;
use std::time::Instant;
use strata_core::ChunkCoord;
use strata_core::net::server::ENTITY_PUBLISH_INTERVAL_S;
use strata_core::persist::entities::EntityRecord;

/// How far (m) a replica may be from a record of the update to be taken as that object.
const MATCH_RADIUS: f32 = 4.0;
/// Seconds a replica takes to reach the server's newest transform.
const GLIDE_S: f64 = ENTITY_PUBLISH_INTERVAL_S;

/// A replica on its way to the server's newest transform.
pub(crate) struct Motion {
    from: Transform3D,
    to: Transform3D,
    since: Instant,
}

/// The transform a record says.
fn record_transform(r: &EntityRecord) -> Transform3D {
    let q = Quaternion::new(r.rotation[0], r.rotation[1], r.rotation[2], r.rotation[3]).normalized();
    let basis = Basis::from_quaternion(q).scaled(Vector3::new(r.scale[0], r.scale[1], r.scale[2]));
    Transform3D::new(basis, Vector3::new(r.position[0], r.position[1], r.position[2]))
}

/// `a` to `b` by `f` (0 to 1): position and scale linear, rotation along the shorter arc.
fn blend(a: &Transform3D, b: &Transform3D, f: f32) -> Transform3D {
    let (qa, qb) = (a.basis.get_quaternion(), b.basis.get_quaternion());
    let scale = a.basis.get_scale().lerp(b.basis.get_scale(), f);
    let basis = Basis::from_quaternion(qa.slerp(qb, f)).scaled(scale);
    Transform3D::new(basis, a.origin.lerp(b.origin, f))
}

impl Entities {
    /// Makes this a replica world (or an authority again): either way the deltas start empty,
    /// as the server's come in their place; returns the nodes to free.
    pub(crate) fn set_replica(&mut self, replica: bool) -> Vec<Gd<Node3D>> {
        self.replica = replica;
        self.replace_deltas(Default::default())
    }

    pub(crate) fn is_replica(&self) -> bool {
        self.replica
    }

    /// Moves every gliding replica to where it is now.
    fn glide(&mut self) {
        let live = &self.live;
        self.motions.retain(|id, m| {
            let Some(l) = live.get(id).filter(|l| l.node.is_instance_valid()) else { return false };
            let f = (m.since.elapsed().as_secs_f64() / GLIDE_S).clamp(0.0, 1.0);
            let mut node = l.node.clone();
            node.set_transform(if f >= 1.0 { m.to } else { blend(&m.from, &m.to, f as f32) });
            f < 1.0
        });
    }

    /// The chunk whose records a live replica of a record belongs to: where it is heading.
    fn replica_chunk(&self, id: i64) -> Option<ChunkCoord> {
        let l = self.live.get(&id)?;
        if l.origin.is_some() || !l.node.is_instance_valid() {
            return None;
        }
        Some(chunk_of(self.motions.get(&id).map_or_else(|| l.node.get_position(), |m| m.to.origin)))
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

    /// Makes the entities replicas of a server's (`true`, a client that joined) or this world's
    /// own again (`false`, it left); every entity goes, the deltas start empty.
    pub(crate) fn set_entity_replica(&mut self, replica: bool) {
        for node in self.entities.set_replica(replica) {
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
        let mut orphans: Vec<i64> = Vec::new();
        for (&id, l) in &e.live {
            let spawn_gone = l.origin.is_some_and(|(c, key)| chunks.contains(&c) && e.deltas.is_spawn_removed(c, key));
            let record_here = e.replica_chunk(id).is_some_and(|c| chunks.contains(&c));
            if spawn_gone || record_here {
                orphans.push(id);
            }
        }
        let mut instance = Vec::new();
        let mut restate = Vec::new();
        for (c, _, records) in &updates {
            if !e.active.contains(c) {
                continue;
            }
            for r in records {
                let target = record_transform(r);
                let nearest = orphans
                    .iter()
                    .enumerate()
                    .filter_map(|(i, id)| {
                        let l = e.live.get(id)?;
                        let at = e.motions.get(id).map_or_else(|| l.node.get_position(), |m| m.to.origin);
                        let d = at.distance_to(target.origin);
                        (l.scene == r.scene && d <= MATCH_RADIUS).then_some((i, d))
                    })
                    .min_by(|a, b| a.1.total_cmp(&b.1));
                let Some((i, _)) = nearest else {
                    instance.push(Pending { chunk: *c, source: Source::Record(r.clone()) });
                    continue;
                };
                let id = orphans.swap_remove(i);
                let Some(l) = e.live.get_mut(&id) else { continue };
                l.origin = None;
                let from = l.node.get_transform();
                e.motions.insert(id, Motion { from, to: target, since: Instant::now() });
                restate.push((l.node.clone(), r.state.clone()));
            }
        }
        e.queue.extend(instance);
        let mut freed = Vec::new();
        for id in orphans {
            e.motions.remove(&id);
            if let Some(l) = e.live.remove(&id) {
                freed.push(l.node);
            }
        }
        for (mut node, state) in restate {
            let v = bytes_to_var(&PackedByteArray::from(state.as_slice()));
            if !state.is_empty()
                && v.get_type() == VariantType::DICTIONARY
                && node.has_method("strata_set_state")
                && super::state_of(&node).as_slice() != state.as_slice()
            {
                node.call("strata_set_state", &[v]);
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
