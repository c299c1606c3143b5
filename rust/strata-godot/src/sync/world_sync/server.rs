//! `StrataWorldSync`'s server side: the core server's actions carried out (edits journaled and
//! applied before anyone is told, then sent), the host player's own events, chunk subscriptions
//! answered once the water is settled, shared state requests, the host's entity deltas and the
//! viewers that follow the other players.
//!
//! May use: its parent (`world_sync.rs`), `strata_core::net`, the world shared (`synced_world.rs`).

use super::shared_state::variant_of;
use super::synced_world::SyncedWorld;
use super::{Role, SERVER_PEER, WorldSync};
use godot::classes::ENetMultiplayerPeer;
use godot::classes::node::InternalMode;
use godot::global::Error;
use godot::prelude::*;
use std::rc::Rc;
use strata_core::base::coords::IVec3;
use strata_core::net::protocol::{Message, PlayerId, Pose};
use strata_core::net::server::{Action, Target};
use strata_core::net::shared_state::SharedValue;

impl WorldSync {
    /// Who knows the other players here: the client, or the host's view.
    /// On the host: keeps a viewer of the world where each other player stands, streaming
    /// `entity_distance` chunks around it, so the objects near every player live and act on the
    /// host (the only place they act; clients show replicas). A player who left loses theirs.
    pub(super) fn follow_remote_players(&mut self) {
        if !matches!(self.role, Role::Server(_)) {
            return;
        }
        let Some(mut world) = self.world_node() else { return };
        let now = self.now();
        let wire: Vec<(PlayerId, [f64; 3])> = match self.players_view() {
            Some(view) => view.players().filter_map(|(id, _)| Some((id, view.pose_of(id, now)?.position))).collect(),
            None => Vec::new(),
        };
        let gone: Vec<PlayerId> =
            self.remote_viewers.keys().copied().filter(|id| !wire.iter().any(|(p, _)| p == id)).collect();
        for id in gone {
            if let Some(node) = self.remote_viewers.remove(&id) {
                remove_viewer(&mut world, node);
            }
        }
        match &mut world {
            SyncedWorld::Voxels(w) => {
                let distance = w.get("entity_distance").try_to::<i64>().unwrap_or(1).max(1);
                for (id, p) in wire {
                    let global = w.to_global(self.local_position(p));
                    if let Some(node) = self.remote_viewers.get(&id).and_then(|n| n.clone().try_cast::<Node3D>().ok()) {
                        node.clone().set_global_position(global);
                        continue;
                    }
                    let mut node = Node3D::new_alloc();
                    node.set_name(&format!("PlayerViewer{id}"));
                    self.base_mut().add_child_ex(&node).internal(InternalMode::BACK).done();
                    node.set_global_position(global);
                    w.bind_mut().add_viewer(Some(node.clone()), distance);
                    self.remote_viewers.insert(id, node.upcast());
                }
            }
            // A side view streams one chunk around each player: its tiles are what the
            // movement checks read.
            SyncedWorld::Tiles(w) => {
                for (id, p) in wire {
                    let global = w.to_global(w.bind().local_of_wire(p));
                    if let Some(node) = self.remote_viewers.get(&id).and_then(|n| n.clone().try_cast::<Node2D>().ok()) {
                        node.clone().set_global_position(global);
                        continue;
                    }
                    let mut node = Node2D::new_alloc();
                    node.set_name(&format!("PlayerViewer{id}"));
                    self.base_mut().add_child_ex(&node).internal(InternalMode::BACK).done();
                    node.set_global_position(global);
                    w.call("add_viewer", &[node.to_variant(), 1.to_variant()]);
                    self.remote_viewers.insert(id, node.upcast());
                }
            }
        }
    }

    /// Stops following the other players (leaving or no longer serving).
    pub(super) fn drop_remote_viewers(&mut self) {
        let world = self.world_node();
        for (_, node) in self.remote_viewers.drain() {
            match world.clone() {
                Some(mut w) => remove_viewer(&mut w, node),
                None if node.is_instance_valid() => node.clone().queue_free(),
                None => {}
            }
        }
    }

    /// Server: one packet from `peer`, its poses checked against the host world's solid voxels.
    pub(super) fn server_packet(&mut self, peer: i64, bytes: &[u8]) {
        let now = self.now();
        let world = self.world_node();
        let Role::Server(s) = &mut self.role else { return };
        let tiles = &self.generated_tiles;
        let actions = match &world {
            Some(w) => w.with_solid_voxels(tiles, |voxels| s.handle_packet_in(peer, bytes, now, voxels)),
            None => s.handle_packet(peer, bytes, now),
        };
        self.act(actions);
    }

    /// Server: connection `peer` opened (the api's `peer_connected`): the join timeout starts,
    /// and its address's connections are counted.
    pub(super) fn server_peer_connected(&mut self, peer: i64) {
        // A client hears of the server's connection too: only the server counts them.
        if !matches!(self.role, Role::Server(_)) {
            return;
        }
        let address = self
            .api
            .as_ref()
            .and_then(|api| api.get_multiplayer_peer())
            .and_then(|p| p.try_cast::<ENetMultiplayerPeer>().ok())
            .and_then(|enet| enet.get_peer(peer as i32))
            .map(|packet_peer| packet_peer.get_remote_address().to_string())
            .unwrap_or_default();
        let now = self.now();
        let Role::Server(s) = &mut self.role else { return };
        let actions = s.peer_connected(peer, &address, now);
        self.act(actions);
    }

    /// Server: time passes (every frame): connections that did not join in time are dropped.
    pub(super) fn server_tick(&mut self) {
        let now = self.now();
        let Role::Server(s) = &mut self.role else { return };
        let actions = s.tick(now);
        self.route(actions);
    }

    /// Server: moves player `player` (a client's, or the host's own) to `pose`: the server
    /// accepts it, tells that player (`pose_corrected` there) and the others see it there.
    pub(super) fn server_teleport(&mut self, player: PlayerId, pose: impl FnOnce(f32) -> Pose) -> bool {
        let now = self.now();
        let Role::Server(s) = &mut self.role else { return false };
        let Some(peer) = s.joined_peers().find(|&p| s.player_of(p) == Some(player)) else { return false };
        let eye_height = s.accepted_pose(peer).map_or(Pose::STANDING_EYE_HEIGHT, |p| p.eye_height);
        let actions = s.teleport(peer, pose(eye_height), now);
        self.act(actions);
        true
    }

    /// Carries out `actions` now, or after the poll in progress.
    pub(super) fn act(&mut self, actions: Vec<Action>) {
        if self.deferred.is_none() {
            return self.route(actions);
        }
        // A broadcast goes to the players joined now: one who joins later in the frame must not
        // hear of it before its own Welcome (routed in order after the frame's polls).
        let joined: Vec<i64> = match &self.role {
            Role::Server(s) => s.joined_peers().collect(),
            _ => Vec::new(),
        };
        let mut expanded = Vec::with_capacity(actions.len());
        for a in actions {
            match a {
                Action::Send { target: target @ (Target::All | Target::AllExcept(_)), message, reliable } => {
                    let except = match target {
                        Target::AllExcept(p) => Some(p),
                        _ => None,
                    };
                    for &p in joined.iter().filter(|&&p| p != SERVER_PEER && Some(p) != except) {
                        expanded.push(Action::Send { target: Target::Peer(p), message: message.clone(), reliable });
                    }
                    if except != Some(SERVER_PEER) {
                        expanded.push(Action::Send { target: Target::Peer(SERVER_PEER), message, reliable });
                    }
                }
                other => expanded.push(other),
            }
        }
        if let Some(d) = self.deferred.as_mut() {
            d.extend(expanded);
        }
    }

    /// Carries out the server's actions: journal and apply the edits first (on disk before
    /// anyone is told), then send.
    pub(super) fn route(&mut self, mut actions: Vec<Action>) {
        // Each edit: its voxels (one, or a side view's shape) and block.
        let applied: Vec<(Vec<IVec3>, u16)> = actions
            .iter()
            .filter_map(|a| match a {
                Action::EditApplied { pos, block, .. } => Some((vec![*pos], *block)),
                Action::ShapeApplied { tiles, block, .. } => Some((tiles.clone(), *block)),
                _ => None,
            })
            .collect();
        if !applied.is_empty() {
            let records: Vec<(IVec3, u16)> =
                applied.iter().flat_map(|(voxels, b)| voxels.iter().map(move |p| (*p, *b))).collect();
            if let Some(j) = self.journal.as_mut()
                && let Err(e) = j.append(&records)
            {
                // Not acknowledged if not on disk: the edits are dropped with a clear error; the
                // rest (chat, poses, disconnections) still happens.
                self.fail(format!("StrataWorldSync: {e}; the edits were not applied"));
                actions.retain(|a| {
                    !matches!(
                        a,
                        Action::EditApplied { .. }
                            | Action::ShapeApplied { .. }
                            | Action::Send {
                                message: Message::EditApplied { .. } | Message::ShapeEditApplied { .. },
                                ..
                            }
                    )
                });
            } else if let Some(mut world) = self.world_node() {
                for (voxels, b) in &applied {
                    world.apply_edit(voxels, *b);
                }
            }
        }
        // A broadcast comes expanded into one send per player, one after another: its bytes are
        // encoded once and shared by their queues.
        let mut last: Option<(Message, Rc<[u8]>)> = None;
        for a in actions {
            match a {
                // Journaled and applied above, once per edit.
                Action::EditApplied { .. } | Action::ShapeApplied { .. } => {}
                Action::Send { target, message, reliable } => {
                    let bytes = match &last {
                        Some((m, b)) if *m == message => b.clone(),
                        _ => {
                            let b: Rc<[u8]> = Rc::from(message.encode());
                            last = Some((message.clone(), b.clone()));
                            b
                        }
                    };
                    match target {
                        Target::Peer(p) if p == SERVER_PEER => self.host_event(message),
                        Target::Peer(p) => self.queue_for(p, bytes, reliable),
                        // To the joined connections one by one: a client connected but not yet
                        // welcomed must get its `Welcome` first (it refuses anything else), so
                        // no broadcast to every ENet peer.
                        Target::All | Target::AllExcept(_) => {
                            let except = match target {
                                Target::AllExcept(p) => Some(p),
                                _ => None,
                            };
                            let peers: Vec<i64> = match &self.role {
                                Role::Server(s) => {
                                    s.joined_peers().filter(|&p| p != SERVER_PEER && Some(p) != except).collect()
                                }
                                _ => Vec::new(),
                            };
                            for p in peers {
                                self.queue_for(p, bytes.clone(), reliable);
                            }
                            if except != Some(SERVER_PEER) {
                                self.host_event(message);
                            }
                        }
                    }
                }
                Action::SharedStateRequested { peer, player, key, value, writable } => {
                    self.state_requested(peer, player, key, value, writable)
                }
                Action::Disconnect { peer, reason } => {
                    godot_warn!("StrataWorldSync: dropped peer {peer}: {reason}");
                    // What it was told (the reason it is refused) goes before the connection.
                    self.flush_peer(peer);
                    // Disconnecting emits `peer_disconnected` into this node at once.
                    if let Some(mut api) = self.api.clone() {
                        let _reentrant = self.base_mut();
                        api.disconnect_peer(peer as i32);
                    }
                    self.signals().peer_dropped().emit(peer, &GString::from(reason.as_str()));
                }
            }
        }
    }

    /// What the host's own player hears from its server.
    pub(super) fn host_event(&mut self, message: Message) {
        if matches!(message, Message::PlayerJoined { .. } | Message::PlayerLeft { .. } | Message::PlayerState { .. }) {
            let now = self.now();
            if let Some(view) = self.host_view.as_mut()
                && let Err(e) = view.handle_packet(&message.encode(), now)
            {
                godot_warn!("StrataWorldSync: the host player cannot follow the others: {e}");
            }
        }
        match message {
            Message::PlayerJoined { player, name } => {
                self.signals().player_joined().emit(player as i64, &GString::from(name.as_str()))
            }
            Message::PlayerLeft { player } => self.signals().player_left().emit(player as i64),
            Message::Chat { player, text } => {
                self.signals().chat_received().emit(player as i64, &GString::from(text.as_str()))
            }
            Message::EditRejected { request, reason } => {
                self.signals().edit_rejected().emit(request as i64, &GString::from(reason.describe()))
            }
            Message::EditApplied { order, player, request, pos, block } => {
                self.emit_edit_applied(order, player, request, pos, block)
            }
            Message::ShapeEditApplied { order, player, request, shape, .. } => {
                let tiles = shape.tiles().map_or(0, |t| t.len());
                self.emit_shape_applied(order, player, request, tiles)
            }
            Message::SharedStateSet { key, value } => self.emit_shared_state_changed(&key, value.as_ref()),
            Message::PoseCorrection { pose, .. } => self.emit_pose_corrected(pose),
            _ => {}
        }
    }

    pub(super) fn emit_shared_state_changed(&mut self, key: &str, value: Option<&SharedValue>) {
        let value = value.map(variant_of).unwrap_or_default();
        self.signals().shared_state_changed().emit(&GString::from(key), &value);
    }

    /// The server has this player at `pose` (a refused move, or the game moved it there): the
    /// next poses go on from it, and the game snaps its player (`pose_corrected`).
    pub(super) fn emit_pose_corrected(&mut self, pose: Pose) {
        self.local_pose = Some(pose);
        self.sent_pose = Some(pose);
        self.reliable_pose = None;
        if matches!(self.world_node(), Some(SyncedWorld::Tiles(_))) {
            return self.emit_pose_corrected_2d(pose);
        }
        let position = self.local_position(pose.position);
        self.signals().pose_corrected().emit(position, f64::from(pose.yaw), f64::from(pose.pitch));
    }

    pub(super) fn emit_edit_applied(&mut self, order: u64, player: PlayerId, request: u32, pos: IVec3, block: u16) {
        let position = Vector3i::new(pos.x, pos.y, pos.z);
        self.signals().edit_applied().emit(order as i64, player as i64, request as i64, position, block as i64);
    }

    /// Server: answers the waiting chunk subscriptions with the world's voxels once its water is
    /// settled (the flows finished so far applied first).
    pub(super) fn answer_subscriptions(&mut self) {
        let Role::Server(s) = &self.role else { return };
        if s.waiting_subscriptions() == 0 {
            return;
        }
        let Some(mut world) = self.world_node() else { return };
        if !world.take_finished_water() {
            return;
        }
        let Role::Server(s) = &mut self.role else { return };
        let actions = world.with_edit_map(|edits| s.answer_subscriptions(edits));
        self.route(actions);
    }

    /// Server: a client's valid shared state request. The game hears of it first; a writable key
    /// is then applied through `set_shared_state` (on disk first), any other is left to the
    /// game's handler, or refused when it has none.
    pub(super) fn state_requested(
        &mut self,
        peer: i64,
        player: PlayerId,
        key: String,
        value: Option<SharedValue>,
        writable: bool,
    ) {
        let variant = value.as_ref().map(variant_of).unwrap_or_default();
        let handled = self.base().has_connections("shared_state_requested");
        {
            // The handler may call back into this node (`set_shared_state`).
            let mut base = self.base_mut();
            base.emit_signal(
                "shared_state_requested",
                &[(player as i64).to_variant(), GString::from(key.as_str()).to_variant(), variant.clone()],
            );
        }
        let refusal = if writable {
            match self.set_shared_state(GString::from(key.as_str()), variant) {
                Error::OK => None,
                _ => Some(format!("the server could not apply it: {}", self.last_error.text())),
            }
        } else if !handled {
            Some(format!("{key:?} is not a key clients may set (the server's client_writable_keys)"))
        } else {
            None
        };
        if let Some(reason) = refusal
            && let Role::Server(s) = &mut self.role
        {
            let actions = s.refuse_shared_state(peer, &key, &reason);
            self.route(actions);
        }
    }

    /// Server: publishes the host world's entity deltas when due. Client: applies the entity
    /// deltas that came in this frame to the world's replicas.
    pub(super) fn sync_entities(&mut self, now: f64) {
        match &self.role {
            Role::Server(s) if s.entities_due(now) => {
                let Some(deltas) = self.world_node().map(|w| w.entity_snapshot()) else { return };
                let Role::Server(s) = &mut self.role else { return };
                let actions = s.publish_entities(&deltas, now);
                self.route(actions);
            }
            Role::Client(c) if !self.entity_updates.is_empty() => {
                let mut chunks = std::mem::take(&mut self.entity_updates);
                chunks.sort_by_key(|c| (c.x, c.y, c.z));
                chunks.dedup();
                let d = c.entity_deltas();
                let updates = chunks
                    .into_iter()
                    .map(|chunk| {
                        let removed = d.removed_spawns.get(&chunk).cloned().unwrap_or_default();
                        (chunk, removed, d.records.get(&chunk).cloned().unwrap_or_default())
                    })
                    .collect();
                if let Some(mut world) = self.world_node() {
                    world.apply_replica_deltas(updates);
                }
            }
            _ => {}
        }
    }
}

/// Stops streaming around a viewer that followed another player, and frees it.
fn remove_viewer(world: &mut SyncedWorld, node: Gd<Node>) {
    if !node.is_instance_valid() {
        return;
    }
    match world {
        SyncedWorld::Voxels(w) => {
            if let Ok(n) = node.clone().try_cast::<Node3D>() {
                w.bind_mut().remove_viewer(Some(n));
            }
        }
        SyncedWorld::Tiles(w) => {
            w.call("remove_viewer", &[node.to_variant()]);
        }
    }
    node.clone().queue_free();
}
