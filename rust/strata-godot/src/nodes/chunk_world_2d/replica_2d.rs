//! `StrataChunkWorld2D`'s objects in a shared world (`StrataWorldSync`), as `StrataChunkWorld`'s
//! (`chunk_world/entities/replica.rs`; the glides and the matching are `host::replicas`, shared
//! by both): the host's world is the authority and publishes its entity deltas; a client's
//! world is a replica, whose entities are instances of the server's records.
//!
//! The wire keys a side view's entity deltas by its chunks `(x, y, 0)`, as its subscriptions
//! ([`wire_deltas`]: each chunk's removed spawn keys and the records standing in its square of
//! tiles), where the world keeps them as a save does (removed spawns by `delta_key`, records by
//! 32-tile cell). Records hold world tiles, so peers with different floating origins agree.
//!
//! On a client the spawn rules start the spawned objects, as on every peer; an update of some
//! chunks ([`ChunkWorld2D::apply_replica_deltas`]) takes out the live entities those chunks no
//! longer account for, gives each record of a standing chunk the nearest of them with the same
//! scene, which glides to the record's pose and takes its state, instances the records left
//! over and frees the entities left over. The game's `add_entity` and `remove_entity` are
//! refused there. Leaving the session ([`ChunkWorld2D::set_entity_replica`] `false`) ends every
//! glide where it was heading and keeps the server's deltas and the replicas as the world's own
//! objects: nothing the player saw is lost.
//!
//! May use: the parent module (`ChunkWorld2D`), `entities_2d`, `host::replicas`,
//! `strata_core::persist::entities`.

use super::ChunkWorld2D;
use super::entities_2d::{Pending2D, Pose2D, Source2D, chunk_of, chunk_of_delta_key, delta_key};
use crate::host::entity_scenes::{restore_state, state_of};
use crate::host::replicas::{Orphan, take_nearest};
use godot::prelude::*;
use std::collections::BTreeSet;
use strata_core::base::coords::ChunkCoord;
use strata_core::gen2d::ChunkCoord2D;
use strata_core::persist::entities::{EntityDeltas, EntityRecord};

/// The wire's chunk of side-view chunk `c`: `(x, y, 0)`.
fn wire_chunk(c: ChunkCoord2D) -> ChunkCoord {
    ChunkCoord::new(c.x, c.y, 0)
}

/// `d` (a side view's deltas as a save keys them) keyed by the side-view chunks of `n` tiles as
/// the wire keys them: removed spawns by their chunk, records by the chunk they stand in.
pub(crate) fn wire_deltas(d: EntityDeltas, n: i32) -> EntityDeltas {
    let mut out = EntityDeltas::default();
    for (key, spawns) in d.removed_spawns {
        if let Some(c) = chunk_of_delta_key(key) {
            out.removed_spawns.insert(wire_chunk(c), spawns);
        }
    }
    for r in d.records.into_values().flatten() {
        let c = chunk_of([r.position[0], r.position[1]], n);
        out.records.entry(wire_chunk(c)).or_default().push(r);
    }
    out
}

#[godot_api(secondary)]
impl ChunkWorld2D {
    /// Whether this world's entities act on their own (think, move, change): true in a
    /// single-player world and on a shared world's host; false on a `StrataWorldSync` client,
    /// whose entities are replicas that the server moves, changes, adds and removes (its
    /// `add_entity` and `remove_entity` are refused). An entity's script checks it before
    /// acting; changes made on a client are not sent.
    #[func]
    pub fn is_entity_authority(&self) -> bool {
        self.entity_authority()
    }
}

impl ChunkWorld2D {
    pub(crate) fn entity_authority(&self) -> bool {
        !self.entities.replica
    }

    /// The world's entity deltas keyed as the wire keys a side view's ([`wire_deltas`]).
    pub(crate) fn wire_entity_deltas(&self) -> EntityDeltas {
        wire_deltas(self.entity_deltas(), self.chunk_tiles())
    }

    /// Makes the entities replicas of a server's (`true`, a client that joined: every entity
    /// goes and the deltas start empty, the server's come in their place) or the world's own
    /// again (`false`, it left: it keeps what it shows, see the module docs).
    pub(crate) fn set_entity_replica(&mut self, replica: bool) {
        if !replica {
            if self.entities.replica {
                self.own_replicas();
            }
            return;
        }
        let e = &mut self.entities;
        e.replica = true;
        e.queue.clear();
        e.active.clear();
        e.glides.clear();
        e.deltas = EntityDeltas::default();
        let live = std::mem::take(&mut e.live);
        for l in live.into_values() {
            if l.node.is_instance_valid() {
                self.signals().entity_despawned().emit(&l.node);
                l.node.free();
            }
        }
    }

    /// A replica world becomes an authority keeping its objects: glides end at their targets,
    /// and the records of the standing chunks leave the deltas (their entities stand, or are
    /// queued, and are kept from now on as an authority keeps its own).
    fn own_replicas(&mut self) {
        let mut arrived = Vec::new();
        self.entities.glides.finish(|id, pose| {
            arrived.push((id, pose));
            true
        });
        for (id, pose) in arrived {
            let Some(node) = self.entities.live.get(&id).map(|l| l.node.clone()) else { continue };
            self.place_replica(node, pose);
        }
        let n = self.chunk_tiles();
        let e = &mut self.entities;
        let standing: Vec<ChunkCoord2D> = e.active.iter().copied().collect();
        for c in standing {
            let _ = e.take_records(c, n);
        }
        e.replica = false;
    }

    /// Stands replica `node` at `pose` (world tiles).
    fn place_replica(&self, mut node: Gd<Node2D>, pose: Pose2D) {
        if node.is_instance_valid() {
            node.set_position(self.entity_local(pose.position));
            node.set_rotation(pose.rotation);
            node.set_scale(pose.scale);
        }
    }

    /// One frame of a replica world: gliding replicas move on.
    pub(super) fn step_replicas(&mut self) {
        if !self.entities.replica {
            return;
        }
        let mut now = Vec::new();
        let live = &self.entities.live;
        self.entities.glides.step(|id, pose| {
            let Some(l) = live.get(&id).filter(|l| l.node.is_instance_valid()) else { return false };
            now.push((l.node.clone(), pose));
            true
        });
        for (node, pose) in now {
            self.place_replica(node, pose);
        }
    }

    /// Takes the server's entity deltas of `updates` (wire chunk `(x, y, 0)`, removed spawn
    /// keys, records) and makes the live entities of those chunks match them (see the module
    /// docs).
    pub(crate) fn apply_replica_deltas(&mut self, updates: Vec<(ChunkCoord, BTreeSet<u32>, Vec<EntityRecord>)>) {
        if !self.entities.replica || updates.is_empty() {
            return;
        }
        let n = self.chunk_tiles();
        let updates: Vec<(ChunkCoord2D, BTreeSet<u32>, Vec<EntityRecord>)> =
            updates.into_iter().map(|(c, removed, records)| (ChunkCoord2D::new(c.x, c.y), removed, records)).collect();
        let chunks: BTreeSet<ChunkCoord2D> = updates.iter().map(|u| u.0).collect();
        {
            let e = &mut self.entities;
            for (c, removed, records) in &updates {
                if removed.is_empty() {
                    e.deltas.removed_spawns.remove(&delta_key(*c));
                } else {
                    e.deltas.removed_spawns.insert(delta_key(*c), removed.clone());
                }
                let _ = e.take_records(*c, n);
                for r in records {
                    e.deltas.push_record(r.clone());
                }
            }
            // Queued records of these chunks are superseded, queued spawns now removed are gone.
            let deltas = &e.deltas;
            e.queue.retain(|p| match &p.source {
                Source2D::Record(_) => !chunks.contains(&p.chunk),
                Source2D::Spawn(s) => !deltas.is_spawn_removed(delta_key(p.chunk), s.key()),
            });
        }
        // The live entities these chunks no longer account for, where they stand or head.
        let mut orphans = Vec::new();
        for (&id, l) in &self.entities.live {
            let heading = match self.entities.glides.target(id) {
                Some(to) => Some(to.position),
                None => l.node.is_instance_valid().then(|| self.entity_world(l.node.get_position())),
            };
            let spawn_gone = l.spawn.is_some_and(|(c, key)| {
                chunks.contains(&c) && self.entities.deltas.is_spawn_removed(delta_key(c), key)
            });
            let record_here = l.spawn.is_none() && heading.is_some_and(|p| chunks.contains(&chunk_of(p, n)));
            if spawn_gone || record_here {
                // A freed node stands nowhere: it matches no record and goes.
                let at = heading.map_or([f64::INFINITY; 3], |p| [p[0], p[1], 0.0]);
                orphans.push(Orphan { id, scene: l.scene.clone(), at });
            }
        }
        let mut instance = Vec::new();
        let mut matched = Vec::new();
        for (c, _, records) in &updates {
            if !self.entities.active.contains(c) {
                continue;
            }
            for r in records {
                let to = Pose2D::of_record(r);
                match take_nearest(&mut orphans, &r.scene, [to.position[0], to.position[1], 0.0]) {
                    Some(id) => matched.push((id, to, r.state.clone())),
                    None => instance.push(Pending2D { chunk: *c, source: Source2D::Record(r.clone()) }),
                }
            }
        }
        let mut restate = Vec::new();
        for (id, to, state) in matched {
            let Some(node) = self.entities.live.get(&id).map(|l| l.node.clone()) else { continue };
            let from = self.entity_pose(&node);
            if let Some(l) = self.entities.live.get_mut(&id) {
                l.spawn = None;
            }
            self.entities.glides.start(id, from, to);
            restate.push((node, state));
        }
        self.entities.queue.extend(instance);
        for (node, state) in restate {
            if state_of(&node).as_slice() != state.as_slice() {
                restore_state(&node, &state);
            }
        }
        for o in orphans {
            self.entities.glides.stop(o.id);
            let Some(l) = self.entities.live.remove(&o.id) else { continue };
            if l.node.is_instance_valid() {
                self.signals().entity_despawned().emit(&l.node);
                l.node.free();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(x: f64, y: f64) -> EntityRecord {
        Pose2D { position: [x, y], rotation: 0.0, scale: Vector2::ONE }.record("res://a.tscn".into(), Vec::new())
    }

    #[test]
    fn the_wire_keys_deltas_by_the_chunk_they_stand_in() {
        let mut d = EntityDeltas::default();
        let far = 3_000_000.0;
        // Chunks of 48 tiles: a chunk holds records of several 32-tile cells, and a cell's
        // records may stand in two chunks.
        for (x, y) in [(1.5, 2.0), (40.0, 47.9), (50.0, 3.0), (far + 0.25, -7.5)] {
            d.push_record(record(x, y));
        }
        d.remove_spawn(delta_key(ChunkCoord2D::new(-1, 3)), 7);
        d.remove_spawn(delta_key(ChunkCoord2D::new(0, 0)), 2);
        let w = wire_deltas(d, 48);
        let keys = |c: ChunkCoord| w.removed_spawns.get(&c).cloned().unwrap_or_default();
        assert_eq!(keys(ChunkCoord::new(-1, 3, 0)), BTreeSet::from([7]));
        assert_eq!(keys(ChunkCoord::new(0, 0, 0)), BTreeSet::from([2]));
        assert_eq!(w.removed_spawns.len(), 2);
        let xs = |c: ChunkCoord| w.records.get(&c).map(|l| l.iter().map(|r| r.position[0]).collect::<Vec<_>>());
        assert_eq!(xs(ChunkCoord::new(0, 0, 0)).map(|l| l.len()), Some(2));
        assert_eq!(xs(ChunkCoord::new(1, 0, 0)), Some(vec![50.0]));
        assert_eq!(xs(ChunkCoord::new(62_500, -1, 0)), Some(vec![far + 0.25]), "exact, far out");
        assert_eq!(w.record_count(), 4);
    }
}
