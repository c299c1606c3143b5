//! `StrataChunkWorld`'s floating origin (a secondary `#[godot_api]` block): the origin's settings
//! and conversions as `#[func]`s, and the shift itself.
//!
//! The world's node space starts at `origin`, a chunk corner in world voxels (the core's
//! [`FloatingOrigin`]): every node the world makes stands at world − origin, so the engine's
//! `f32` positions stay small wherever the player is. A shift moves, in one `_process` before the
//! frame is drawn: every `Node3D` child of the world (chunks, far columns, decorations, collision
//! bodies, entities, the debug view, and the game's own children of the world), the body being
//! built, the navigation regions, what the entities keep in node space, the preloaded area, and
//! every node of `origin_shift_group` that is not already under a moved node (its global position,
//! its physics interpolation reset, its navigation agents' targets); then `origin_shifted`.
//! Shifts are whole chunks, so each node's position changes by an integer and stays exact.
//!
//! May use: its parent (`chunk_world.rs`), the parent's parts (`entities`, `navigation`),
//! `strata_core::base::origin`, `host::navigation_server`.

use super::ChunkWorld;
use crate::host::navigation_server;
use godot::classes::Node3D;
use godot::prelude::*;
use strata_core::IVec3;
use strata_core::base::origin::FloatingOrigin;

#[godot_api(secondary)]
impl ChunkWorld {
    /// Where the node's space starts in the world: a chunk corner, in world voxels. A point at
    /// `p` in the node's space is at world `get_origin() + p` (add them as floats in GDScript,
    /// whose `float` is 64-bit: exact anywhere in the world).
    #[func]
    pub fn get_origin(&self) -> Vector3i {
        let o = self.origin.voxel();
        Vector3i::new(o.x, o.y, o.z)
    }

    /// Moves the origin now to the chunk corner nearest `voxel` (world voxels), as a crossing
    /// does: the world's nodes and `origin_shift_group` move back by the shift and
    /// `origin_shifted` is emitted. For a teleport far away: `set_origin(target)`, then put the
    /// player at `voxel_to_local(target)`. Works whether `floating_origin` is on or off.
    #[func]
    pub fn set_origin(&mut self, voxel: Vector3i) {
        let next = FloatingOrigin::aligned(IVec3::new(voxel.x, voxel.y, voxel.z));
        self.shift_origin(next);
    }

    /// Where world voxel `voxel`'s least corner is in the node's space (exact within 2²⁴ voxels
    /// of the origin: everything near the viewer).
    #[func]
    pub fn voxel_to_local(&self, voxel: Vector3i) -> Vector3 {
        self.local_of_voxel(IVec3::new(voxel.x, voxel.y, voxel.z))
    }

    /// The world voxel that the point `local` of the node's space lies in (exact anywhere).
    #[func]
    pub fn local_to_voxel(&self, local: Vector3) -> Vector3i {
        let v = self.origin.voxel_at(to_f64(local));
        Vector3i::new(v.x, v.y, v.z)
    }
}

/// `p` as `f64` components.
pub(super) fn to_f64(p: Vector3) -> [f64; 3] {
    [f64::from(p.x), f64::from(p.y), f64::from(p.z)]
}

impl ChunkWorld {
    /// Where the node's space starts (for the shared world's poses).
    pub(crate) fn origin_value(&self) -> FloatingOrigin {
        self.origin
    }

    /// World voxel `v`'s least corner in the node's space.
    pub(super) fn local_of_voxel(&self, v: IVec3) -> Vector3 {
        let l = self.origin.voxel_to_local(v);
        Vector3::new(l.x as f32, l.y as f32, l.z as f32)
    }

    /// A point of the node's space in world coordinates (exact).
    pub(super) fn world_of_local(&self, p: Vector3) -> [f64; 3] {
        self.origin.to_world(to_f64(p))
    }

    /// A world point in the node's space.
    pub(super) fn local_of_world(&self, w: [f64; 3]) -> Vector3 {
        let l = self.origin.to_local(w);
        Vector3::new(l[0] as f32, l[1] as f32, l[2] as f32)
    }

    /// With `floating_origin` on, moves the origin to the viewer's chunk when the viewer (at
    /// `viewer` in the node's space) is past `origin_shift_distance`; true when it moved. It
    /// stays while the viewer would not move with it (neither under the world nor in
    /// `origin_shift_group`), with one warning naming what to do.
    pub(super) fn follow_viewer_with_origin(&mut self, viewer: Vector3) -> bool {
        if !self.floating_origin {
            return false;
        }
        let Some(next) = self.origin.shift_for(to_f64(viewer), self.origin_shift_distance) else { return false };
        if !self.viewer_moves_with_origin() {
            if !self.origin_warned {
                self.origin_warned = true;
                godot_warn!(
                    "StrataChunkWorld.floating_origin: the viewer is {} m from the origin, but it would not move with a \
                     shift, so the origin stays; allowed: a viewer under the world or in the group `{}` \
                     (origin_shift_group), or on an ancestor in it",
                    viewer.length(),
                    self.origin_shift_group
                );
            }
            return false;
        }
        self.shift_origin(next);
        true
    }

    /// Whether the node the world streams around moves when the origin does: it is under the
    /// world, or it or an ancestor is in `origin_shift_group`. No viewer node: nothing to move.
    fn viewer_moves_with_origin(&self) -> bool {
        let Some(node) = self.viewer_node().map(|n| n.upcast::<Node>()) else { return true };
        let me = self.to_gd().upcast::<Node>();
        if me.is_ancestor_of(&node) {
            return true;
        }
        in_group_or_below(&node, &self.origin_shift_group)
    }

    /// Moves the origin to `next` now: every position in the node's space loses the shift.
    pub(super) fn shift_origin(&mut self, next: FloatingOrigin) {
        let shift = self.origin.shift_to(next);
        if shift == IVec3::ZERO {
            return;
        }
        let started = std::time::Instant::now();
        let d = Vector3::new(shift.x as f32, shift.y as f32, shift.z as f32);
        self.origin = next;
        self.entities.shift(next, d);
        let me = self.to_gd().upcast::<Node>();
        for child in me.get_children_ex().include_internal(true).done().iter_shared() {
            if let Ok(mut n) = child.try_cast::<Node3D>() {
                let p = n.get_position();
                n.set_position(p - d);
                n.reset_physics_interpolation();
            }
        }
        if let Some(build) = self.collision_build.as_mut() {
            let p = build.body.get_position();
            build.body.set_position(p - d);
        }
        if let Some(p) = self.preload.as_mut() {
            p.center -= d;
        }
        // Entities carry the game's own agents: their targets are global positions.
        let entities: Vec<Gd<Node3D>> =
            self.entities.live.values().filter(|l| l.node.is_instance_valid()).map(|l| l.node.clone()).collect();
        for node in entities {
            shift_agent_targets(&node.upcast(), d);
        }
        self.place_navigation_regions();
        self.shift_group(&me, d);
        self.origin_shift_us.push(started.elapsed().as_micros() as u32);
        self.origin_shifts += 1;
        self.signals().origin_shifted().emit(Vector3i::new(shift.x, shift.y, shift.z));
    }

    /// Moves `origin_shift_group`'s nodes back by `d`: those not under the world and with no
    /// ancestor in the group (it moves them).
    fn shift_group(&mut self, me: &Gd<Node>, d: Vector3) {
        if !self.base().is_inside_tree() {
            return;
        }
        let tree = self.base().get_tree();
        let group = self.origin_shift_group.clone();
        for node in tree.get_nodes_in_group(&group).iter_shared() {
            if *me == node
                || me.is_ancestor_of(&node)
                || node.get_parent().is_some_and(|p| in_group_or_below(&p, &group))
            {
                continue;
            }
            if let Ok(mut n) = node.clone().try_cast::<Node3D>() {
                let p = n.get_global_position();
                n.set_global_position(p - d);
                n.reset_physics_interpolation();
            }
            shift_agent_targets(&node, d);
        }
    }
}

/// Whether `node` or one of its ancestors is in `group`.
fn in_group_or_below(node: &Gd<Node>, group: &StringName) -> bool {
    let mut at = Some(node.clone());
    while let Some(n) = at {
        if n.is_in_group(group) {
            return true;
        }
        at = n.get_parent();
    }
    false
}

/// The navigation agents at or under `node` aim at global positions: they move with the shift.
fn shift_agent_targets(node: &Gd<Node>, d: Vector3) {
    navigation_server::shift_agent_targets(node, "NavigationAgent3D", d);
}
