//! `StrataWorldSync`'s client side: the server's packets handled in order (a chunk snapshot waits
//! until the world's water is settled), the join timeout, the replicas given back when it leaves.
//!
//! May use: its parent (`world_sync.rs`), `strata_core::net`, the world shared (`synced_world.rs`).

use super::{Role, SERVER_PEER, WorldSync};
use godot::prelude::*;
use strata_core::base::coords::IVec3;
use strata_core::net::client::ClientEvent;
use strata_core::net::protocol::Message;

impl WorldSync {
    /// Client: gives up joining once `join_timeout_s` passed without the server's welcome.
    pub(super) fn check_join_timeout(&mut self) {
        let Role::Client(c) = &self.role else { return };
        if c.player().is_some() {
            self.joining = None;
            return;
        }
        let timeout = if self.join_timeout_s > 0.0 { self.join_timeout_s.clamp(0.5, 300.0) } else { return };
        let Some((started, whom)) = &self.joining else { return };
        if started.elapsed().as_secs_f64() < timeout {
            return;
        }
        let message = format!(
            "could not reach {whom}: no answer within {timeout} s (is a Strata server running there, with its UDP port open?)"
        );
        self.client_failed(message);
    }

    pub(super) fn client_packet(&mut self, bytes: &[u8]) {
        let now = self.now();
        let Role::Client(c) = &mut self.role else { return };
        let events = match c.handle_packet(bytes, now) {
            Ok(e) => e,
            Err(e) => {
                self.client_failed(e.to_string());
                return;
            }
        };
        for e in events {
            match e {
                ClientEvent::Joined { player, preset } => {
                    let edits = match &self.role {
                        Role::Client(c) => c.edits().clone(),
                        _ => Default::default(),
                    };
                    if let Some(mut world) = self.world_node() {
                        world.adopt(&self.to_gd().upcast::<Node>(), *preset, edits);
                    }
                    self.joining = None;
                    self.signals().joined().emit(player as i64);
                }
                ClientEvent::ChunkSnapshot { chunk, voxels, .. } => {
                    if let Some(mut world) = self.world_node() {
                        world.replace_chunk_edits(chunk, &voxels);
                    }
                }
                ClientEvent::SharedStateRefused { key, reason } => self
                    .signals()
                    .shared_state_refused()
                    .emit(&GString::from(key.as_str()), &GString::from(reason.as_str())),
                ClientEvent::VoxelsChanged { positions } => {
                    let values: Vec<(IVec3, u16)> = match &self.role {
                        Role::Client(c) => {
                            positions.iter().filter_map(|p| c.edits().get(*p).map(|b| (*p, b))).collect()
                        }
                        _ => Vec::new(),
                    };
                    if let Some(mut world) = self.world_node() {
                        // One edit's voxels (a side view's shape: many tiles, one block) are
                        // written as one batch, as the host writes them.
                        match values.first() {
                            Some(&(_, block)) if values.iter().all(|(_, b)| *b == block) => {
                                let voxels: Vec<IVec3> = values.iter().map(|(p, _)| *p).collect();
                                world.apply_edit(&voxels, block);
                            }
                            _ => values.iter().for_each(|(p, b)| world.apply_edit(&[*p], *b)),
                        }
                    }
                }
                ClientEvent::Applied { order, player, request, pos, block } => {
                    self.emit_edit_applied(order, player, request, pos, block)
                }
                ClientEvent::ShapeApplied { order, player, request, tiles, .. } => {
                    self.emit_shape_applied(order, player, request, tiles)
                }
                ClientEvent::Rejected { request, reason } => {
                    self.signals().edit_rejected().emit(request as i64, &GString::from(reason.describe()))
                }
                ClientEvent::PlayerJoined { player, name } => {
                    self.signals().player_joined().emit(player as i64, &GString::from(name.as_str()))
                }
                ClientEvent::PlayerLeft { player } => self.signals().player_left().emit(player as i64),
                ClientEvent::Chat { player, text } => {
                    self.signals().chat_received().emit(player as i64, &GString::from(text.as_str()))
                }
                ClientEvent::EntitiesChanged { chunk } => self.entity_updates.push(chunk),
                ClientEvent::SharedStateChanged { key, value } => self.emit_shared_state_changed(&key, value.as_ref()),
                ClientEvent::PoseCorrected { pose, .. } => self.emit_pose_corrected(pose),
                // No longer synced (the core knows); asked for again once back in view.
                ClientEvent::ChunkReleased { .. } => {}
            }
        }
    }

    /// Client: handles the server's packets in order; a chunk snapshot waits, with everything
    /// after it, until the world's water is settled (no flow of an earlier edit may land over
    /// it).
    pub(super) fn drain_inbox(&mut self) {
        while let Some(front) = self.inbox.front() {
            if Message::is_chunk_snapshot(front) {
                let settled = self.world_node().is_none_or(|mut w| w.take_finished_water());
                if !settled {
                    return;
                }
            }
            let Some(bytes) = self.inbox.pop_front() else { return };
            self.client_packet(&bytes);
            if !matches!(self.role, Role::Client(_)) {
                self.inbox.clear();
                return;
            }
        }
    }

    /// Client: asks again for the chunks the server released that are back in view (at most
    /// once a second each), measured from the local eye.
    pub(super) fn resubscribe(&mut self, now: f64) {
        let Some(pose) = self.local_pose else { return };
        let Role::Client(c) = &mut self.role else { return };
        if c.player().is_none() {
            return;
        }
        let packets = c.resubscriptions(pose.position, now);
        for p in packets {
            self.send(SERVER_PEER, &p, true);
        }
    }

    /// A client's world takes its own entities back (it leaves or lost the server).
    pub(super) fn end_replicas(&mut self) {
        if matches!(self.role, Role::Client(_))
            && let Some(mut world) = self.world_node()
            && !world.entity_authority()
        {
            world.end_replica();
        }
    }

    pub(super) fn client_failed(&mut self, message: String) {
        let message = format!("StrataWorldSync: {message}");
        self.joining = None;
        self.last_error.warn(&message);
        self.close_peer();
        self.end_replicas();
        self.role = Role::Idle;
        self.signals().join_failed().emit(&GString::from(message.as_str()));
    }
}
