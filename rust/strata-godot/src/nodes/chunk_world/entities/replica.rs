//! Replica entities: the objects of a shared world's client, made to match the server's entity
//! deltas.
//!
//! The client's own spawn rules start the spawned objects, as on every peer; the server's deltas
//! of a chunk (removed spawn keys and the records of the objects not at a spawn) then say which
//! of them are gone and which other objects stand there. An update of some chunks first takes
//! out the live entities those chunks no longer account for (spawned ones now removed, and every
//! replica of a record of those chunks), then gives each record of an active chunk the nearest
//! of them with the same scene (`host::replicas`, shared with the side view), which glides there
//! and takes the record's state; records left over are instanced, entities left over are freed.
//! So a deer walking on the server walks on the client, even across chunk borders and from its
//! spawn on.
//!
//! May use: the parent module's bookkeeping, `host::replicas`, `strata_core::persist::entities`.

use super::Entities;
use godot::prelude::*;
use strata_core::ChunkCoord;
use strata_core::base::origin::FloatingOrigin;
use strata_core::persist::entities::EntityRecord;

/// The transform a record says, in the node's space (its position less the world's origin).
pub(in crate::nodes::chunk_world) fn record_transform(r: &EntityRecord, origin: FloatingOrigin) -> Transform3D {
    let q = Quaternion::new(r.rotation[0], r.rotation[1], r.rotation[2], r.rotation[3]).normalized();
    let basis = Basis::from_quaternion(q).scaled(Vector3::new(r.scale[0], r.scale[1], r.scale[2]));
    let p = origin.to_local(r.position);
    Transform3D::new(basis, Vector3::new(p[0] as f32, p[1] as f32, p[2] as f32))
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

    /// A replica world becomes an authority keeping its objects: glides end at their targets,
    /// and the records of the active chunks leave the deltas (their entities stand, or are
    /// queued, and are kept from now on as an authority keeps its own; the removed spawn keys
    /// stay, so those spawns do not come back).
    pub(crate) fn own_replicas(&mut self) {
        let live = &self.live;
        self.glides.finish(|id, t| {
            if let Some(l) = live.get(&id).filter(|l| l.node.is_instance_valid()) {
                l.node.clone().set_transform(t);
            }
            true
        });
        let active: Vec<ChunkCoord> = self.active.iter().copied().collect();
        for c in active {
            let _ = self.deltas.take_records(c);
        }
        self.deltas.compact();
        self.replica = false;
    }

    /// Moves every gliding replica to where it is now.
    pub(in crate::nodes::chunk_world) fn glide(&mut self) {
        let live = &self.live;
        self.glides.step(|id, t| {
            let Some(l) = live.get(&id).filter(|l| l.node.is_instance_valid()) else { return false };
            l.node.clone().set_transform(t);
            true
        });
    }

    /// Where a live entity stands, or is heading while it glides (the node's space).
    pub(in crate::nodes::chunk_world) fn heading(&self, id: i64) -> Option<Vector3> {
        let l = self.live.get(&id)?;
        if !l.node.is_instance_valid() {
            return None;
        }
        Some(self.glides.target(id).map_or_else(|| l.node.get_position(), |t| t.origin))
    }

    /// The chunk whose records a live replica of a record belongs to: where it is heading.
    pub(in crate::nodes::chunk_world) fn replica_chunk(&self, id: i64) -> Option<ChunkCoord> {
        if self.live.get(&id)?.origin.is_some() {
            return None;
        }
        Some(self.chunk_at(self.heading(id)?))
    }
}
