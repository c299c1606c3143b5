//! `StrataWorldSync`: one `StrataChunkWorld` (or side view, `StrataChunkWorld2D`) shared by several
//! players over Godot's high-level multiplayer.
//!
//! A thin host for the core's state machines (`strata_core::net`): the server's
//! [`WorldServer`] or a client's [`WorldClient`]. It owns a `SceneMultiplayer` of its own, so the
//! game's own multiplayer is untouched, carries the core's packets with `send_bytes` over any
//! `MultiplayerPeer` (ENet by `host`/`join`; WebSocket or another peer by `host_with_peer` /
//! `join_with_peer`), and applies what the core decides to the `StrataChunkWorld`: clients generate
//! the world themselves from the preset the server sends, and subscribe to each chunk's edits as
//! it streams in.
//!
//! Entities: the host's world (3D or side view) is their authority. Ten times a second at most,
//! the server takes its entity deltas (`Entities::snapshot`: removed spawns, moved, changed and
//! added objects) and sends each chunk whose deltas changed to the clients subscribed to it; a
//! chunk subscription brings the chunk's deltas too. A client's world is a replica
//! (`is_entity_authority()` false): its spawn rules start the same objects, the server's deltas
//! remove, add, move (interpolated) and change them, and its `add_entity`/`remove_entity` are
//! refused. Nothing a client does to its entities is sent.
//!
//! The server writes every applied edit to a journal beside its save and syncs it before the edit
//! is broadcast, and saves (then starts a fresh journal) every `autosave_interval_s` and when it
//! stops; hosting again from the same `save_path` replays the journal over the save, so a server
//! killed at any instant comes back with every edit it acknowledged (law: Nothing is lost).
//!
//! Shared game state: `set_shared_state` on the server (only there: a client's call fails with
//! `ERR_UNAUTHORIZED`) sets a key of the core's bounded [`SharedState`]; it reaches every client
//! in order (`shared_state_changed`), and a joining client gets it whole. With a `save_path` each
//! change is written to `<save_path>.shared` before it is sent, the save holds it in its game
//! state, and hosting again resumes it.
//!
//! A client asks for a change with `request_shared_state`: the server checks it (rate, bounds)
//! and emits `shared_state_requested`; a key listed in `client_writable_keys` is applied at
//! once (through `set_shared_state`, so it is on disk first), any other is the game's to decide
//! (its handler calls `set_shared_state`), or refused when no handler is connected. A refusal
//! reaches the client as `shared_state_refused` with the reason.
//!
//! Water: chunk snapshots carry the host world's voxels of the chunk, the water its flows placed
//! included. The server answers a subscription at the start of a frame when the host world's
//! water is settled (every flow of the edits so far applied), so a snapshot at order N holds
//! the edits below N and all their water; a client holds a snapshot, and every packet after it,
//! until its own water is settled, then sets the chunk to the snapshot without a flow
//! (`StrataChunkWorld` replays it as an undo step is replayed) and flows the edits that follow.
//!
//! Joining gives up after `join_timeout_s` without the server's welcome, naming the address.
//!
//! Side views: `world` may name a `StrataChunkWorld2D`. The server, client and protocol are the
//! same; the welcome names the kind of world (`WorldShape::Tiles`: tile `(x, y)` is voxel
//! `(x, y, 0)`, chunks are the side view's square chunks `(x, y, 0)`), poses are world tiles (rows
//! down, z = 0; `set_local_pose_2d` takes the node's pixels and each peer's own floating origin),
//! moves are checked against the host's solid tiles, and shape edits (`request_tiles_rect`,
//! `request_tiles_circle`) travel as shapes and are written as one batch on every peer
//! (`synced_world.rs` holds what differs between the two kinds of world). A side view's objects
//! are shared as the 3D world's: its entity deltas travel by side-view chunk `(x, y, 0)`, records
//! in world tiles, and a client's `StrataChunkWorld2D` is a replica.
//!
//! This file holds the class, its signals and methods; its children hold the rest, each an
//! `impl WorldSync` of private helpers: `server.rs` (the server's actions, the host's events,
//! subscriptions, entity deltas), `client.rs` (the server's packets on a client), `journal.rs`
//! (save and journal), `shared_state.rs` (shared values as `Variant`s, a leaf), `synced_world.rs`
//! (the world shared, 3D or side view) and `side_view.rs` (the side view's methods).
//!
//! May use: `strata_core::net`, `strata_core::persist::journal`, the crate's `StrataChunkWorld`
//! and `StrataChunkWorld2D`.

mod client;
mod journal;
mod server;
mod settings;
mod shared_state;
mod side_view;
mod synced_world;

use crate::base::errors::LastError;
use crate::base::files;
use crate::base::monitors::{Monitor, Monitors, Reading};
use crate::base::ranges::{float_in_range, int_in_range};
use crate::nodes::chunk_world_2d::sync_2d::GeneratedTiles;
use godot::classes::multiplayer_peer::TransferMode;
use godot::classes::{ENetMultiplayerPeer, ENetPacketPeer, MultiplayerPeer, SceneMultiplayer};
use godot::global::Error;
use godot::prelude::*;
use shared_state::{shared_value_of, variant_of};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use strata_core::base::coords::{ChunkCoord, IVec3};
use strata_core::net::client::WorldClient;
use strata_core::net::protocol::{MAX_EYE_HEIGHT, MAX_VIEW_RADIUS, Message, PlayerId, Pose, pack_batches, split_batch};
use strata_core::net::server::{Action, ServerConfig, WorldServer};
use strata_core::net::shared_state::SharedState;
use strata_core::net::state_file::write_state_file;
use strata_core::persist::journal::EditJournal;
use strata_core::preset::fingerprint::{fingerprint, fnv1a64};
use synced_world::SyncedWorld;

/// The game-state key a save keeps the next edit number under.
const NEXT_ORDER_KEY: &str = "strata.net.next_order";
/// The server's own connection id in Godot's multiplayer (the host plays as it).
const SERVER_PEER: i64 = 1;
/// Poses sent per second while the player moves.
const POSE_RATE_HZ: f64 = 15.0;
/// Seconds between poses of a player standing still.
const POSE_KEEPALIVE_S: f64 = 1.0;
/// How far in the past other players are drawn, so there are two poses to blend.
const INTERPOLATION_DELAY_S: f64 = 0.1;
/// Frames whose handling time `get_stats` summarises.
const TICK_WINDOW: usize = 1024;

enum Role {
    Idle,
    Server(Box<WorldServer>),
    Client(Box<WorldClient>),
}

/// Shares a `StrataChunkWorld` between players: `host(port)` on one machine, `join(address, port, name)`
/// on the others. The server holds the truth (seed, preset, edits, players); clients generate
/// the world themselves and send edit requests (`request_edit`), which the server checks (reach,
/// world bounds, block ids, a rate limit), applies in one order and sends to everyone. With a
/// `save_path` the server journals every edit before acknowledging it and resumes from its save
/// and journal after a crash.
#[derive(GodotClass)]
#[class(base = Node, rename = StrataWorldSync)]
pub struct WorldSync {
    base: Base<Node>,
    /// The `StrataChunkWorld` or `StrataChunkWorld2D` (a side view) shared.
    #[export]
    world: NodePath,
    /// Server: farthest an edit may be from its player's eye, in voxels (1 to 64).
    #[export(range = (1.0, 64.0))]
    reach: f64,
    /// Server: edits a player may make per second (1 to 1,000); twice as many at once.
    #[export(range = (1.0, 1000.0))]
    edits_per_second: f64,
    /// Server: players at once (1 to 4,095).
    #[export(range = (1.0, 4095.0))]
    max_players: i64,
    /// Server: the save the world resumes from and is saved to, with its journal beside it
    /// (`<save_path>.journal`); empty: nothing is written.
    #[export(file = "*.strata")]
    save_path: GString,
    /// Server: seconds between saves (5 to 3,600); the world is also saved when the server stops.
    #[export(range = (5.0, 3600.0))]
    autosave_interval_s: f64,
    /// Client: seconds `join` waits for the server's welcome before it fails with
    /// `join_failed` naming the address and port (0.5 to 300; 0: wait as long as the
    /// connection itself does, about 30 s with ENet).
    #[export(range = (0.0, 300.0))]
    join_timeout_s: f64,
    /// The name this player goes by (1 to 32 bytes): `join` sets it; the host plays under it
    /// ("host" when empty).
    #[var]
    player_name: GString,
    /// Server: the shared state keys any client may set with `request_shared_state` (each 1 to
    /// 64 bytes, no control characters; values checked as `set_shared_state` checks them).
    /// Requests for other keys go to the game's `shared_state_requested` handler, or are
    /// refused when it has none. Empty by default: clients set nothing themselves.
    #[var(set)]
    client_writable_keys: PackedStringArray,
    /// Server: check every client's poses against its body's limits (speeds, solid voxels of
    /// the host's world); a refused pose is not passed on and the client is moved back
    /// (`pose_corrected` there). Off for a game with flying, vehicles or checks of its own. The
    /// host's own player is trusted. Read when hosting, as are the settings below.
    #[export_group(name = "Server checks")]
    #[export]
    movement_checks: bool,
    /// Server: horizontal speed a player may move at, voxels a second (0.5 to 1,000; default
    /// 9, the demo's sprint and a fifth more).
    #[var(set)]
    #[export(range = (0.5, 1000.0))]
    max_horizontal_speed: f64,
    /// Server: sustained upward speed, voxels a second (0.5 to 1,000; default 4); a jump's
    /// burst comes on top.
    #[var(set)]
    #[export(range = (0.5, 1000.0))]
    max_up_speed: f64,
    /// Server: falling speed, voxels a second (1 to 10,000; default 120, a free fall from 300
    /// voxels).
    #[var(set)]
    #[export(range = (1.0, 10000.0))]
    max_fall_speed: f64,
    /// Server: seconds of movement a player may save up, so a lag spike's poses arriving at
    /// once pass (0.1 to 10; default 1).
    #[var(set)]
    #[export(range = (0.1, 10.0))]
    movement_slack_s: f64,
    /// Server: the smallest eye height (voxels above the feet) a player's pose may claim, its
    /// body's lowest stance (0.05 to 16; default 0.4: the demo's player lying down, 0.42). The
    /// server sweeps the body from the feet to the eye through the world's voxels.
    #[var(set)]
    #[export(range = (0.05, 16.0))]
    min_eye_height: f64,
    /// Server: the largest eye height a pose may claim (0.05 to 16; default 2: the demo's player
    /// standing, 1.62).
    #[var(set)]
    #[export(range = (0.05, 16.0))]
    max_eye_height: f64,
    /// Server: how far a jump may lift a player's feet at once, beyond `max_up_speed` (0 to 64
    /// voxels; default 2.5: the demo's jump is 1.18). A side view's jumps are usually higher:
    /// the 2D demo's is 4.6 tiles.
    #[var(set)]
    #[export(range = (0.0, 64.0))]
    jump_height: f64,
    /// Server: connections one address may hold, joined or joining (0 to 4,095; 0: no limit;
    /// default 8). Every client of a test on one machine shares 127.0.0.1: raise it there.
    #[var(set)]
    #[export(range = (0.0, 4095.0))]
    max_connections_per_address: i64,
    /// Server: seconds a connection may take to join; one that has not by then is dropped
    /// (0.5 to 300; default 5).
    #[var(set)]
    #[export(range = (0.5, 300.0))]
    server_join_timeout_s: f64,
    /// Server: chunks each player sees around it horizontally (1 to 4,096; default 10): the
    /// edits, entities and poses of these are sent to it, farther ones not (its chunks there
    /// are released: `is_chunk_synced` false). The host's own player sees everything.
    #[var(set)]
    #[export(range = (1.0, 4096.0))]
    view_radius_chunks: i64,
    /// Server: chunks each player sees above and below it (1 to 4,096; default 5).
    #[var(set)]
    #[export(range = (1.0, 4096.0))]
    view_radius_vertical_chunks: i64,
    /// Server: seconds between two poses of a player out of another's view sent to it (0 to
    /// 3,600; 0: never; default 5).
    #[var(set)]
    #[export(range = (0.0, 3600.0))]
    far_pose_interval_s: f64,
    /// Client: packets from the server not handled yet (a chunk snapshot waits, with what
    /// follows it, until the world's water is settled).
    inbox: VecDeque<Vec<u8>>,
    /// Server: messages for each peer this frame, in order, reliable and not; sent as one batch
    /// a peer at the end of the frame ([`WorldSync::flush_outbox`]).
    outbox: BTreeMap<i64, PeerOutbox>,
    /// Connections opened so far (the polls of a frame go on while they come).
    connections_seen: u64,
    /// Server: connections closed in this frame; what the frame's actions still address to
    /// them is not sent.
    closed_this_frame: HashSet<i64>,
    api: Option<Gd<SceneMultiplayer>>,
    role: Role,
    journal: Option<EditJournal>,
    last_save: Instant,
    started: Instant,
    local_pose: Option<Pose>,
    /// The pose last sent: a player standing still is sent once a second.
    sent_pose: Option<Pose>,
    /// The pose last sent on the reliable channel, ahead of an edit request.
    reliable_pose: Option<Pose>,
    /// On the host: a viewer of the world at each other player (see `follow_remote_players`):
    /// a `Node3D`, or a `Node2D` in a side view.
    remote_viewers: HashMap<PlayerId, Gd<Node>>,
    /// On a side view's host: the generated tiles its movement checks read.
    generated_tiles: RefCell<GeneratedTiles>,
    last_pose_sent: f64,
    pose_tick: u32,
    /// Chunks that streamed in on a client, to subscribe to at the next frame.
    to_subscribe: Vec<ChunkCoord>,
    /// Chunks whose entity deltas the server changed, to apply to the client's world after the
    /// poll (together, so an object crossing a chunk border stays one replica).
    entity_updates: Vec<ChunkCoord>,
    /// The host player's next edit request number.
    next_host_request: u32,
    /// The hash that ties the server's journal to its world, fixed when it starts hosting.
    journal_hash: u64,
    traffic: Traffic,
    /// Milliseconds each of the last frames spent in this node (packets handled, journal, sends).
    tick_ms: VecDeque<f32>,
    /// The main thread's CPU time of the same frames (work, without waiting for a core).
    tick_cpu_ms: VecDeque<f32>,
    /// The server's actions while the api polls (see `process`).
    deferred: Option<Vec<Action>>,
    /// Set by SIGTERM, SIGINT or SIGHUP once `stop_on_signals` was called.
    stop_requested: Option<Arc<AtomicBool>>,
    /// Server: the host player's view of the others (names, interpolated poses), fed with what
    /// the server tells every player, as a client's would be.
    host_view: Option<WorldClient>,
    /// Client: when `join` started and whom it asked ("the server at ADDRESS:PORT"), until the
    /// welcome comes.
    joining: Option<(Instant, String)>,
    last_error: LastError,
    /// Traffic and edit graphs in the debugger's Monitors tab, while in the tree.
    monitors: Monitors,
}

/// The node's custom monitors (`Strata sync/…` in the debugger's Monitors tab): rates of the
/// counters of `get_stats()`.
const MONITORS: &[Monitor] = &[
    Monitor { name: "edits_per_s", reading: Reading::Rate("edits_applied") },
    Monitor { name: "bytes_sent_per_s", reading: Reading::Rate("bytes_sent") },
    Monitor { name: "bytes_received_per_s", reading: Reading::Rate("bytes_received") },
    Monitor { name: "players", reading: Reading::Value("players") },
    Monitor { name: "poses_refused_per_s", reading: Reading::Rate("poses_refused") },
];

/// Payload bytes and packets through this node's connection (the MultiplayerPeer adds its own
/// headers on the wire).
#[derive(Default, Clone, Copy)]
struct Traffic {
    bytes_sent: u64,
    bytes_received: u64,
    packets_sent: u64,
    packets_received: u64,
    /// Poses a client sent reliably because its player came to rest there.
    resting_poses_sent: u64,
}

#[godot_api]
impl INode for WorldSync {
    fn init(base: Base<Node>) -> Self {
        Self {
            base,
            world: NodePath::default(),
            reach: 8.0,
            edits_per_second: 30.0,
            max_players: 32,
            save_path: GString::new(),
            autosave_interval_s: 60.0,
            api: None,
            role: Role::Idle,
            player_name: GString::new(),
            client_writable_keys: PackedStringArray::new(),
            inbox: VecDeque::new(),
            outbox: BTreeMap::new(),
            connections_seen: 0,
            closed_this_frame: HashSet::new(),
            journal: None,
            last_save: Instant::now(),
            started: Instant::now(),
            local_pose: None,
            sent_pose: None,
            reliable_pose: None,
            remote_viewers: HashMap::new(),
            generated_tiles: RefCell::new(GeneratedTiles::default()),
            last_pose_sent: f64::NEG_INFINITY,
            pose_tick: 0,
            to_subscribe: Vec::new(),
            entity_updates: Vec::new(),
            next_host_request: 0,
            journal_hash: 0,
            traffic: Traffic::default(),
            tick_ms: VecDeque::with_capacity(TICK_WINDOW),
            tick_cpu_ms: VecDeque::with_capacity(TICK_WINDOW),
            deferred: None,
            stop_requested: None,
            host_view: None,
            join_timeout_s: 5.0,
            movement_checks: true,
            max_horizontal_speed: 9.0,
            max_up_speed: 4.0,
            max_fall_speed: 120.0,
            movement_slack_s: 1.0,
            min_eye_height: 0.4,
            max_eye_height: 2.0,
            jump_height: 2.5,
            max_connections_per_address: 8,
            server_join_timeout_s: 5.0,
            view_radius_chunks: 10,
            view_radius_vertical_chunks: 5,
            far_pose_interval_s: 5.0,
            joining: None,
            last_error: LastError::default(),
            monitors: Monitors::default(),
        }
    }

    fn enter_tree(&mut self) {
        let node = self.to_gd().upcast::<Node>();
        self.monitors.add(&node, "Strata sync", MONITORS);
    }

    fn process(&mut self, _delta: f64) {
        let started = Instant::now();
        let started_cpu = crate::base::thread_clock::thread_cpu_time().map_or(0.0, |t| t.as_secs_f64());
        if self.stop_requested.as_ref().is_some_and(|f| f.load(Ordering::Relaxed)) {
            self.stop_requested = None;
            godot_print!("StrataWorldSync: stop signal received; saving and quitting");
            self.leave();
            self.base().get_tree().quit();
            return;
        }
        // Snapshots wait for the frame's first moment the host world's water is settled.
        self.answer_subscriptions();
        // Polling emits the api's signals into this node's handlers: let them borrow it.
        if let Some(mut api) = self.api.clone() {
            // The server's actions of this poll are carried out together after it: one journal
            // sync for all the frame's edits (group commit), and no broadcast reaches a peer
            // whose disconnection is still queued in this poll.
            self.deferred = Some(Vec::new());
            // Godot's ENet peer stops a poll at each new connection: poll again while they
            // come, so a burst of connections (a flood) is taken in one frame, not one a frame.
            for _ in 0..MAX_POLLS_PER_FRAME {
                let connections = self.connections_seen;
                {
                    let _reentrant = self.base_mut();
                    api.poll();
                }
                if self.connections_seen == connections {
                    break;
                }
            }
            if let Some(actions) = self.deferred.take() {
                self.route(actions);
            }
        }
        self.drain_inbox();
        self.check_join_timeout();
        self.server_tick();
        let now = self.now();
        self.resubscribe(now);
        self.sync_entities(now);
        if let Role::Client(c) = &self.role
            && c.player().is_some()
            && !self.to_subscribe.is_empty()
        {
            let packets: Vec<Vec<u8>> = self.to_subscribe.drain(..).map(|chunk| c.subscribe(chunk)).collect();
            for p in packets {
                self.send(SERVER_PEER, &p, true);
            }
        }
        if let Some(pose) = self.local_pose
            && now - self.last_pose_sent >= 1.0 / POSE_RATE_HZ
        {
            // Moving poses go unreliably (a lost one is soon replaced). The pose a player comes
            // to rest at is sent once more on the reliable channel, so the server learns where
            // the player stopped however many unreliable packets a congested link drops.
            let moved = self.sent_pose != Some(pose);
            let resting = !moved && self.reliable_pose != Some(pose);
            if moved || resting || now - self.last_pose_sent >= POSE_KEEPALIVE_S {
                self.last_pose_sent = now;
                self.sent_pose = Some(pose);
                self.pose_tick = self.pose_tick.wrapping_add(1);
                if resting {
                    self.reliable_pose = Some(pose);
                    self.traffic.resting_poses_sent += 1;
                }
                self.send_pose(pose, resting);
            }
        }
        self.follow_remote_players();
        self.flush_outbox();
        self.closed_this_frame.clear();
        if matches!(self.role, Role::Server(_))
            && !self.save_path.is_empty()
            && self.last_save.elapsed().as_secs_f64() >= self.autosave_interval_s.clamp(5.0, 3600.0)
        {
            self.snapshot();
        }
        if self.tick_ms.len() == TICK_WINDOW {
            self.tick_ms.pop_front();
            self.tick_cpu_ms.pop_front();
        }
        self.tick_ms.push_back(started.elapsed().as_secs_f32() * 1000.0);
        self.tick_cpu_ms.push_back(
            ((crate::base::thread_clock::thread_cpu_time().map_or(0.0, |t| t.as_secs_f64()) - started_cpu).max(0.0)
                * 1000.0) as f32,
        );
    }

    fn exit_tree(&mut self) {
        self.monitors.remove();
        self.leave();
    }
}

#[godot_api]
impl WorldSync {
    /// The ENet connection slots a server opens (ENet's most): players are capped by
    /// `max_players` when they join, connections that never join by
    /// `max_connections_per_address` and `server_join_timeout_s`, so a flood of half-open
    /// connections cannot fill the slots an honest player needs. A game that makes its own
    /// `ENetMultiplayerPeer` for `host_with_peer` passes this as `max_clients`.
    #[constant]
    const CONNECTION_SLOTS: i64 = 4095;

    /// Emitted on a client when it joined: the world now streams from the server's preset.
    #[signal]
    fn joined(player_id: i64);
    /// Emitted on a client when it could not join or lost the server, with the reason.
    #[signal]
    fn join_failed(message: GString);
    /// Emitted when another player joined (on a newcomer, once for everyone already there).
    #[signal]
    fn player_joined(player_id: i64, player_name: GString);
    /// Emitted when another player left.
    #[signal]
    fn player_left(player_id: i64);
    /// Emitted for every chat line, with the id of the player who wrote it (stamped by the
    /// server).
    #[signal]
    fn chat_received(player_id: i64, text: GString);
    /// Emitted when the server refused one of this player's edits (`request` is what
    /// `request_edit` returned).
    #[signal]
    fn edit_rejected(request: i64, reason: GString);

    /// Emitted on every peer for each edit applied after it joined, in the server's order:
    /// edit number `order`, made by `player_id` as its request `request` (match it against
    /// `request_edit`'s result when `player_id` is `get_local_player_id()`), set `position` to
    /// `block`. The voxel already holds it.
    #[signal]
    fn edit_applied(order: i64, player_id: i64, request: i64, position: Vector3i, block: i64);
    /// Emitted on every peer when shared state `key` changed to `value` (null: erased), in the
    /// server's order; on a joining client once for each key of the state it receives.
    #[signal]
    fn shared_state_changed(key: GString, value: Variant);
    /// Emitted on the server when a client (`player_id`) asks to set shared state `key` to
    /// `value` (null: erase) with `request_shared_state`, within the rate and the state's
    /// bounds. A key in `client_writable_keys` is applied right after; for any other the
    /// handler decides: call `set_shared_state` to apply it (or something else), or nothing.
    #[signal]
    fn shared_state_requested(player_id: i64, key: GString, value: Variant);
    /// Emitted on a client when the server refused its `request_shared_state` for `key`, with
    /// the reason (too many requests, out of bounds, not a key clients may set).
    #[signal]
    fn shared_state_refused(key: GString, reason: GString);
    /// Emitted on the server when it dropped a connection (malformed packet, a message out of
    /// turn), with the reason.
    #[signal]
    fn peer_dropped(peer_id: i64, reason: GString);
    /// Emitted when the server moved this player: it refused a move (too fast, through solid
    /// voxels) or the host's game teleported it (`teleport_player`). Snap the player's body to
    /// `position` (the eye, as `set_local_pose` takes it), `yaw` and `pitch`; the next poses go
    /// on from there. This node does not move the player itself.
    #[signal]
    fn pose_corrected(position: Vector3, yaw: f64, pitch: f64);
    /// A side view's `pose_corrected`: snap the player's body to `position` (the top of its
    /// body, pixels in the world node's space, as `set_local_pose_2d` takes it).
    #[signal]
    fn pose_corrected_2d(position: Vector2);
    /// Emitted on every peer for each shape edit of a side view applied after it joined
    /// (`request_tiles_rect`, `request_tiles_circle`): its tiles are edits number `first_order`
    /// to `first_order + tile_count - 1`, made by `player_id` as its request `request`. The tiles
    /// already hold the block.
    #[signal]
    fn shape_applied(first_order: i64, player_id: i64, request: i64, tile_count: i64);

    /// Serves the world on UDP `port` (1 to 65,535) with ENet; the host plays too (its player
    /// is `get_local_player_id()`). With `save_path`, resumes from the save and its journal.
    #[func]
    fn host(&mut self, port: i64) -> Error {
        let Some(port) = u16::try_from(port).ok().filter(|p| *p > 0) else {
            return self.fail(format!("StrataWorldSync.host: port {port} is not allowed; allowed: 1 to 65535"));
        };
        let mut peer = ENetMultiplayerPeer::new_gd();
        let err = peer.create_server_ex(port as i32).max_clients(Self::CONNECTION_SLOTS as i32).done();
        if err != Error::OK {
            return self.fail(format!("StrataWorldSync.host: cannot listen on UDP port {port}: {err:?}"));
        }
        self.host_with_peer(Some(peer.upcast()))
    }

    /// Serves the world over `peer`, a `MultiplayerPeer` already created as a server (ENet,
    /// WebSocket, WebRTC …).
    #[func]
    fn host_with_peer(&mut self, peer: Option<Gd<MultiplayerPeer>>) -> Error {
        let Some(peer) = peer else { return self.fail("StrataWorldSync.host_with_peer: peer is null".into()) };
        let Some(mut world) = self.world_node() else {
            return self.fail(format!(
                "StrataWorldSync.host: `world` ({}) is not a StrataChunkWorld or StrataChunkWorld2D",
                self.world
            ));
        };
        self.leave();
        let (next_order, shared) = match self.resume(&mut world) {
            Ok(r) => r,
            Err(e) => return self.fail(e),
        };
        world.keep_shared_game_state(&shared);
        let (preset, edits, block_count) = world.shared_world_state();
        self.journal_hash = journal_world_hash(&preset);
        let config = ServerConfig {
            reach: self.reach.clamp(1.0, 64.0),
            edits_per_second: self.edits_per_second.clamp(1.0, 1000.0),
            edit_burst: 2.0 * self.edits_per_second.clamp(1.0, 1000.0),
            max_players: self.max_players.clamp(1, 4095) as usize + 1,
            block_count,
            shape: world.shape(),
            ..self.server_checks()
        };
        let structures = world.structures_fingerprint();
        let mut server = WorldServer::new(&preset, edits, next_order, config);
        server.set_structures_fingerprint(&structures);
        // The host's own player: trusted, and sent everything (its world is the server's).
        server.set_host_peer(SERVER_PEER);
        // Snapshots come from the world's voxels, its water included, when its water is settled.
        server.set_world_flows_water(true);
        let keys: Vec<String> = self.client_writable_keys.as_slice().iter().map(|k| k.to_string()).collect();
        if let Err(e) = server.set_client_writable_keys(keys.iter().map(String::as_str)) {
            return self.fail(format!("StrataWorldSync.host: client_writable_keys: {e}"));
        }
        server.restore_shared_state(shared);
        // The host plays as the server's own connection.
        let name = if self.player_name.is_empty() { "host".to_string() } else { self.player_name.to_string() };
        let hello = Message::Hello { protocol: strata_core::net::protocol::PROTOCOL_VERSION, name: name.clone() };
        let mut view = WorldClient::new(&name);
        view.set_structures_fingerprint(&structures);
        let mut refusal = String::from("refused");
        for action in server.handle_packet(SERVER_PEER, &hello.encode(), 0.0) {
            match action {
                Action::Disconnect { reason, .. } => refusal = reason,
                Action::Send { message: welcome @ Message::Welcome { .. }, .. } => {
                    if let Err(e) = view.handle_packet(&welcome.encode(), 0.0) {
                        godot_warn!("StrataWorldSync.host: the host player cannot follow the others: {e}");
                    }
                }
                _ => {}
            }
        }
        if server.player_of(SERVER_PEER).is_none() {
            return self.fail(format!("StrataWorldSync.host: player_name {name:?} cannot play: {refusal}"));
        }
        self.host_view = Some(view);
        self.role = Role::Server(Box::new(server));
        self.snapshot();
        self.start_api(peer);
        self.last_error.clear();
        Error::OK
    }

    /// Joins the server at `address`:`port` as `player_name` with ENet. `joined` or
    /// `join_failed` follows.
    #[func]
    fn join(&mut self, address: GString, port: i64, player_name: GString) -> Error {
        let Some(port) = u16::try_from(port).ok().filter(|p| *p > 0) else {
            return self.fail(format!("StrataWorldSync.join: port {port} is not allowed; allowed: 1 to 65535"));
        };
        let mut peer = ENetMultiplayerPeer::new_gd();
        let err = peer.create_client(&address, port as i32);
        if err != Error::OK {
            return self.fail(format!("StrataWorldSync.join: cannot connect to {address}:{port}: {err:?}"));
        }
        let err = self.join_with_peer(Some(peer.upcast()), player_name);
        if err == Error::OK {
            self.joining = Some((Instant::now(), format!("the server at {address}:{port}")));
        }
        err
    }

    /// Joins over `peer`, a `MultiplayerPeer` already created as a client.
    #[func]
    fn join_with_peer(&mut self, peer: Option<Gd<MultiplayerPeer>>, player_name: GString) -> Error {
        let Some(peer) = peer else { return self.fail("StrataWorldSync.join_with_peer: peer is null".into()) };
        let Some(mut world) = self.world_node() else {
            return self.fail(format!(
                "StrataWorldSync.join: `world` ({}) is not a StrataChunkWorld or StrataChunkWorld2D",
                self.world
            ));
        };
        let structures = world.structures_fingerprint();
        self.leave();
        self.player_name = player_name;
        let mut client = WorldClient::new(&self.player_name.to_string());
        client.set_structures_fingerprint(&structures);
        self.role = Role::Client(Box::new(client));
        self.start_api(peer);
        self.joining = Some((Instant::now(), "the server".into()));
        self.last_error.clear();
        Error::OK
    }

    /// Stops serving or leaves the server (a server saves first; a client's world takes its
    /// own entities back from the server's replicas).
    #[func]
    fn leave(&mut self) {
        if matches!(self.role, Role::Server(_)) {
            self.snapshot();
        }
        self.end_replicas();
        self.flush_outbox();
        self.close_peer();
        self.role = Role::Idle;
        self.journal = None;
        self.host_view = None;
        self.to_subscribe.clear();
        self.inbox.clear();
        self.entity_updates.clear();
        self.sent_pose = None;
        self.reliable_pose = None;
        self.joining = None;
        self.drop_remote_viewers();
    }

    /// Server: sets shared game state `key` (1 to 64 bytes, no control characters) to `value`
    /// and sends the change to every player, in order with the edits; `null` erases the key.
    /// Values: bool, int, float (finite), String or PackedByteArray (at most 512 bytes each),
    /// Vector2, Vector3; at most 128 keys. With a `save_path` the change is on disk
    /// (`<save_path>.shared`, a few milliseconds) before anyone hears of it, so set values that
    /// change continuously a few times a second at most (clients can run a clock between
    /// updates, as the demo does with the time of day). An unchanged value sends nothing.
    /// Only the server sets it: on a client this fails with `ERR_UNAUTHORIZED` (a client asks
    /// with `request_shared_state`), before hosting with `ERR_UNCONFIGURED`; a refused key
    /// or value returns `ERR_INVALID_PARAMETER`; the reason is in `last_error()`.
    #[func]
    fn set_shared_state(&mut self, key: GString, value: Variant) -> Error {
        let key = key.to_string();
        match &self.role {
            Role::Server(_) => {}
            Role::Client(_) => {
                self.fail(format!(
                    "StrataWorldSync.set_shared_state({key:?}): only the server sets the shared state, and this peer is a client; ask the server with `request_shared_state`"
                ));
                return Error::ERR_UNAUTHORIZED;
            }
            Role::Idle => {
                self.fail(format!(
                    "StrataWorldSync.set_shared_state({key:?}): not hosting; call `host` first (the shared state belongs to a served world)"
                ));
                return Error::ERR_UNCONFIGURED;
            }
        }
        let value = match shared_value_of(&value) {
            Ok(v) => v,
            Err(type_name) => {
                self.fail(format!(
                    "StrataWorldSync.set_shared_state({key:?}): a value of type {type_name} cannot be shared; allowed: null (erases), bool, int, float, String, StringName, Vector2, Vector3, PackedByteArray"
                ));
                return Error::ERR_INVALID_PARAMETER;
            }
        };
        // The state after the change, checked, and on disk before anyone hears of it.
        let Role::Server(server) = &self.role else { return Error::FAILED };
        let mut next = server.shared_state().clone();
        match next.set(&key, value.clone()) {
            Ok(true) => {}
            Ok(false) => return Error::OK,
            Err(e) => {
                self.fail(format!("StrataWorldSync.set_shared_state: {e}"));
                return Error::ERR_INVALID_PARAMETER;
            }
        }
        if !self.save_path.is_empty()
            && let Err(e) = write_state_file(&files::globalize(&self.state_file_path()), &next, self.journal_hash)
        {
            self.fail(format!("StrataWorldSync.set_shared_state({key:?}): {e}; the change was not made"));
            return Error::ERR_FILE_CANT_WRITE;
        }
        let Role::Server(s) = &mut self.role else { return Error::FAILED };
        let actions = match s.set_shared_state(&key, value) {
            Ok(a) => a,
            Err(e) => return self.fail(format!("StrataWorldSync.set_shared_state: {e}")),
        };
        if let Some(mut world) = self.world_node() {
            world.keep_shared_game_state(&next);
        }
        self.act(actions);
        self.last_error.clear();
        Error::OK
    }

    /// Asks the server to set shared state `key` to `value` (`null` erases it): checked here
    /// with `set_shared_state`'s bounds first (`ERR_INVALID_PARAMETER`, the reason in
    /// `last_error()`), then sent. The server applies it when `key` is one of its
    /// `client_writable_keys` (the change then arrives as `shared_state_changed`), or its game
    /// decides; a refusal arrives as `shared_state_refused`. On the server this is
    /// `set_shared_state`; not connected: `ERR_UNCONFIGURED`.
    #[func]
    fn request_shared_state(&mut self, key: GString, value: Variant) -> Error {
        let key_text = key.to_string();
        match &self.role {
            Role::Server(_) => return self.set_shared_state(key, value),
            Role::Client(c) if c.player().is_some() => {}
            _ => {
                self.fail(format!("StrataWorldSync.request_shared_state({key_text:?}): not joined to a server"));
                return Error::ERR_UNCONFIGURED;
            }
        }
        let value = match shared_value_of(&value) {
            Ok(v) => v,
            Err(type_name) => {
                self.fail(format!(
                    "StrataWorldSync.request_shared_state({key_text:?}): a value of type {type_name} cannot be shared; allowed: null (erases), bool, int, float, String, StringName, Vector2, Vector3, PackedByteArray"
                ));
                return Error::ERR_INVALID_PARAMETER;
            }
        };
        let Role::Client(c) = &self.role else { return Error::FAILED };
        match c.request_shared_state(&key_text, value) {
            Ok(bytes) => {
                self.send(SERVER_PEER, &bytes, true);
                self.last_error.clear();
                Error::OK
            }
            Err(e) => {
                self.fail(format!("StrataWorldSync.request_shared_state: {e}"));
                Error::ERR_INVALID_PARAMETER
            }
        }
    }

    /// Sets `client_writable_keys`; while serving, the server takes them at once (a bad key is
    /// refused with an error and the previous keys stay).
    #[func]
    fn set_client_writable_keys(&mut self, keys: PackedStringArray) {
        if let Role::Server(s) = &mut self.role {
            let list: Vec<String> = keys.as_slice().iter().map(|k| k.to_string()).collect();
            if let Err(e) = s.set_client_writable_keys(list.iter().map(String::as_str)) {
                self.fail(format!("StrataWorldSync.client_writable_keys: {e}; the previous keys stay"));
                return;
            }
        }
        self.client_writable_keys = keys;
    }

    /// Sets the property of that name, clamped to its range with a warning.
    #[func]
    fn set_max_horizontal_speed(&mut self, value: f64) {
        self.max_horizontal_speed =
            float_in_range("StrataWorldSync", "max_horizontal_speed", value, 0.5, 1000.0, self.max_horizontal_speed);
    }

    /// Sets the property of that name, clamped to its range with a warning.
    #[func]
    fn set_max_up_speed(&mut self, value: f64) {
        self.max_up_speed = float_in_range("StrataWorldSync", "max_up_speed", value, 0.5, 1000.0, self.max_up_speed);
    }

    /// Sets the property of that name, clamped to its range with a warning.
    #[func]
    fn set_max_fall_speed(&mut self, value: f64) {
        self.max_fall_speed =
            float_in_range("StrataWorldSync", "max_fall_speed", value, 1.0, 10000.0, self.max_fall_speed);
    }

    /// Sets the property of that name, clamped to its range with a warning.
    #[func]
    fn set_movement_slack_s(&mut self, value: f64) {
        self.movement_slack_s =
            float_in_range("StrataWorldSync", "movement_slack_s", value, 0.1, 10.0, self.movement_slack_s);
    }

    /// Sets the property of that name, clamped to its range with a warning.
    #[func]
    fn set_min_eye_height(&mut self, value: f64) {
        self.min_eye_height =
            float_in_range("StrataWorldSync", "min_eye_height", value, 0.05, 16.0, self.min_eye_height);
    }

    /// Sets the property of that name, clamped to its range with a warning.
    #[func]
    fn set_jump_height(&mut self, value: f64) {
        self.jump_height = float_in_range("StrataWorldSync", "jump_height", value, 0.0, 64.0, self.jump_height);
    }

    /// Sets the property of that name, clamped to its range with a warning.
    #[func]
    fn set_max_eye_height(&mut self, value: f64) {
        self.max_eye_height =
            float_in_range("StrataWorldSync", "max_eye_height", value, 0.05, 16.0, self.max_eye_height);
    }

    /// Sets the property of that name, clamped to its range with a warning.
    #[func]
    fn set_max_connections_per_address(&mut self, value: i64) {
        self.max_connections_per_address =
            int_in_range("StrataWorldSync", "max_connections_per_address", value, 0, 4095);
    }

    /// Sets the property of that name, clamped to its range with a warning.
    #[func]
    fn set_server_join_timeout_s(&mut self, value: f64) {
        self.server_join_timeout_s =
            float_in_range("StrataWorldSync", "server_join_timeout_s", value, 0.5, 300.0, self.server_join_timeout_s);
    }

    /// Sets the property of that name, clamped to its range with a warning.
    #[func]
    fn set_view_radius_chunks(&mut self, value: i64) {
        self.view_radius_chunks =
            int_in_range("StrataWorldSync", "view_radius_chunks", value, 1, MAX_VIEW_RADIUS as i64);
    }

    /// Sets the property of that name, clamped to its range with a warning.
    #[func]
    fn set_view_radius_vertical_chunks(&mut self, value: i64) {
        self.view_radius_vertical_chunks =
            int_in_range("StrataWorldSync", "view_radius_vertical_chunks", value, 1, MAX_VIEW_RADIUS as i64);
    }

    /// Sets the property of that name, clamped to its range with a warning.
    #[func]
    fn set_far_pose_interval_s(&mut self, value: f64) {
        self.far_pose_interval_s =
            float_in_range("StrataWorldSync", "far_pose_interval_s", value, 0.0, 3600.0, self.far_pose_interval_s);
    }

    /// Shared game state `key` as the server last told this peer (the server's own on the
    /// host); `default` when it has no such key or this peer is not connected.
    #[func]
    fn get_shared_state(&self, key: GString, default: Variant) -> Variant {
        self.shared_state().and_then(|s| s.get(&key.to_string()).map(variant_of)).unwrap_or(default)
    }

    /// The keys of the shared game state, in increasing order.
    #[func]
    fn get_shared_state_keys(&self) -> PackedStringArray {
        let mut keys = PackedStringArray::new();
        if let Some(s) = self.shared_state() {
            for (k, _) in s.iter() {
                keys.push(k);
            }
        }
        keys
    }

    /// Asks to set voxel `position` to block `block`; returns the request's number (matched by
    /// `edit_rejected`), or -1 when not connected or the request would surely be refused (a
    /// voxel outside the world, a block the server's world does not have), with the reason in
    /// `last_error()`. The edit shows once the server applied it.
    #[func]
    fn request_edit(&mut self, position: Vector3i, block: i64) -> i64 {
        let Ok(block) = u16::try_from(block) else {
            self.last_error
                .record(format!("StrataWorldSync.request_edit: block {block} is not a block id; allowed: 0 to 65535"));
            return -1;
        };
        let pos = IVec3::new(position.x, position.y, position.z);
        self.request(
            "request_edit",
            |c| c.request_edit(pos, block),
            |request| Message::EditRequest { request, pos, block },
        )
    }

    /// Where this player is and looks (world voxels at the eye, radians), and how far its eye
    /// is above its feet (`eye_height`, voxels: it changes with the stance; the default is the
    /// demo's player standing). Sent 15 times a second while it changes, once a second while it
    /// does not. The server measures edit reach from the eye and checks each move
    /// (`movement_checks`: speeds, and the body from the feet to the eye swept through the
    /// world's solid voxels): a refused one comes back as `pose_corrected`. Move the player only
    /// as its body moves: a teleport goes through the host (`teleport_player`), or happens
    /// before the first pose is set. A pose that is not finite, outside the world or with an
    /// eye height outside 0 to 16 is refused (the reason in `last_error()`).
    #[func]
    fn set_local_pose(&mut self, position: Vector3, yaw: f64, pitch: f64, #[opt(default = 1.62)] eye_height: f64) {
        if matches!(self.world_node(), Some(SyncedWorld::Tiles(_))) {
            self.last_error.record(
                "StrataWorldSync.set_local_pose: `world` is a side view (StrataChunkWorld2D); use set_local_pose_2d",
            );
            return;
        }
        let pose = Pose {
            position: self.wire_position(position),
            yaw: yaw as f32,
            pitch: pitch as f32,
            eye_height: eye_height as f32,
        };
        if !pose.is_valid() {
            self.last_error.record(format!(
                "StrataWorldSync.set_local_pose: pose ({position}, yaw {yaw}, pitch {pitch}, eye height {eye_height}) is not allowed; allowed: finite numbers, a position inside the world's bounds, an eye height of 0 to {MAX_EYE_HEIGHT}"
            ));
            return;
        }
        {
            self.local_pose = Some(pose);
            // The server's own player counts at once (reach checks of the next edit).
            if let Some(pose) = self.local_pose
                && matches!(self.role, Role::Server(_))
            {
                self.send_pose(pose, false);
            }
        }
    }

    /// Sends a chat line, cut to 256 bytes (at a character boundary; the server drops control
    /// characters). A line with nothing to show is not sent (the reason in `last_error()`).
    #[func]
    fn send_chat(&mut self, text: GString) {
        let text = text.to_string();
        let packet = match &self.role {
            Role::Client(c) => c.chat_packet(&text),
            Role::Server(_) => match self.host_view.as_ref() {
                Some(view) => view.chat_packet(&text),
                None => return,
            },
            Role::Idle => return,
        };
        let bytes = match packet {
            Ok(b) => b,
            Err(e) => {
                self.last_error.record(format!("StrataWorldSync.send_chat: {e}"));
                return;
            }
        };
        match &self.role {
            Role::Client(_) => self.send(SERVER_PEER, &bytes, true),
            Role::Server(_) => self.server_packet(SERVER_PEER, &bytes),
            Role::Idle => {}
        }
    }

    /// Host: moves player `player_id` (another's or the host's own) to `position` (its eye),
    /// `yaw` and `pitch`, a respawn or a portal: the server takes it as the player's pose, that
    /// player's game hears `pose_corrected` (snap the body there) and the others see it there.
    /// False, with the reason in `last_error()`, on a client, for an unknown player or a pose
    /// that is not finite or outside the world. The player keeps the eye height of its last
    /// accepted pose.
    #[func]
    fn teleport_player(&mut self, player_id: i64, position: Vector3, yaw: f64, pitch: f64) -> bool {
        if !matches!(self.role, Role::Server(_)) {
            self.fail("StrataWorldSync.teleport_player: only the host moves players; this peer is not hosting".into());
            return false;
        }
        if matches!(self.world_node(), Some(SyncedWorld::Tiles(_))) {
            self.fail(
                "StrataWorldSync.teleport_player: `world` is a side view (StrataChunkWorld2D); use teleport_player_2d"
                    .into(),
            );
            return false;
        }
        let eye = self.wire_position(position);
        if !Pose::standing(eye, yaw as f32, pitch as f32).is_valid() {
            self.fail(format!(
                "StrataWorldSync.teleport_player: pose ({position}, yaw {yaw}, pitch {pitch}) is not allowed; allowed: finite numbers, a position inside the world's bounds"
            ));
            return false;
        }
        let moved = PlayerId::try_from(player_id).is_ok_and(|id| {
            self.server_teleport(id, |eye_height| Pose {
                position: eye,
                yaw: yaw as f32,
                pitch: pitch as f32,
                eye_height,
            })
        });
        if !moved {
            self.fail(format!("StrataWorldSync.teleport_player: no player {player_id} has joined"));
            return false;
        }
        self.last_error.clear();
        true
    }

    /// The other players: `{player_id: name}` (on a client and on the host).
    #[func]
    fn get_players(&self) -> VarDictionary {
        let mut d = VarDictionary::new();
        if let Some(view) = self.players_view() {
            for (id, name) in view.players() {
                d.set(id as i64, &GString::from(name));
            }
        }
        d
    }

    /// Where another player is drawn now (interpolated a tenth of a second in the past);
    /// `Vector3.ZERO` when unknown. A side view's players: `get_player_position_2d`.
    #[func]
    fn get_player_position(&self, player_id: i64) -> Vector3 {
        let (Some(c), Ok(id)) = (self.players_view(), PlayerId::try_from(player_id)) else { return Vector3::ZERO };
        c.pose_of(id, self.now() - INTERPOLATION_DELAY_S)
            .map(|p| self.local_position(p.position))
            .unwrap_or(Vector3::ZERO)
    }

    /// Sends an edit request: a client's (`client` makes it, after our pose when the server may
    /// not have it), or the host's own (`host` makes it, handled at once); its number, or -1
    /// with the reason in `last_error()`.
    pub(super) fn request(
        &mut self,
        method: &str,
        client: impl FnOnce(&mut WorldClient) -> Result<(u32, Vec<u8>), strata_core::net::client::RequestError>,
        host: impl FnOnce(u32) -> Message,
    ) -> i64 {
        let now = self.now();
        match &mut self.role {
            Role::Client(c) if c.player().is_some() => {
                // Reach is measured from our pose: unless the server surely has the current one,
                // it goes first on the edits' reliable, ordered channel.
                let pose_first = match self.local_pose {
                    Some(pose) if self.reliable_pose != Some(pose) => {
                        self.pose_tick = self.pose_tick.wrapping_add(1);
                        self.reliable_pose = Some(pose);
                        self.sent_pose = Some(pose);
                        self.last_pose_sent = now;
                        c.pose_packet(self.pose_tick, pose).ok()
                    }
                    _ => None,
                };
                let (request, bytes) = match client(c) {
                    Ok(r) => r,
                    Err(e) => {
                        self.last_error.record(format!("StrataWorldSync.{method}: {e}"));
                        return -1;
                    }
                };
                if let Some(pose) = pose_first {
                    self.send(SERVER_PEER, &pose, true);
                }
                self.send(SERVER_PEER, &bytes, true);
                request as i64
            }
            Role::Server(s) => {
                let request = self.next_host_request;
                self.next_host_request = request.wrapping_add(1);
                let bytes = host(request).encode();
                let actions = s.handle_packet(SERVER_PEER, &bytes, now);
                self.route(actions);
                request as i64
            }
            _ => {
                self.last_error.record(format!("StrataWorldSync.{method}: not joined to a server, nor hosting"));
                -1
            }
        }
    }

    /// A point of a 3D world node's space (world − its origin) as the wire's world position.
    pub(super) fn wire_position(&self, local: Vector3) -> [f64; 3] {
        let origin = match self.world_node() {
            Some(SyncedWorld::Voxels(w)) => w.bind().origin_value(),
            _ => Default::default(),
        };
        origin.to_world([f64::from(local.x), f64::from(local.y), f64::from(local.z)])
    }

    /// A world position from the wire in a 3D world node's space.
    pub(super) fn local_position(&self, wire: [f64; 3]) -> Vector3 {
        let origin = match self.world_node() {
            Some(SyncedWorld::Voxels(w)) => w.bind().origin_value(),
            _ => Default::default(),
        };
        let l = origin.to_local(wire);
        Vector3::new(l[0] as f32, l[1] as f32, l[2] as f32)
    }

    /// Which way another player faces now (radians about the vertical axis, interpolated the
    /// short way round, at the same moment as `get_player_position`); 0 when unknown.
    #[func]
    fn get_player_yaw(&self, player_id: i64) -> f64 {
        let (Some(c), Ok(id)) = (self.players_view(), PlayerId::try_from(player_id)) else { return 0.0 };
        c.pose_of(id, self.now() - INTERPOLATION_DELAY_S).map(|p| f64::from(p.yaw)).unwrap_or(0.0)
    }

    /// How far another player's eye is above its feet now (voxels, at the same moment as
    /// `get_player_position`: lower when it crouches or lies down); 0 when unknown.
    #[func]
    fn get_player_eye_height(&self, player_id: i64) -> f64 {
        let (Some(c), Ok(id)) = (self.players_view(), PlayerId::try_from(player_id)) else { return 0.0 };
        c.pose_of(id, self.now() - INTERPOLATION_DELAY_S).map(|p| f64::from(p.eye_height)).unwrap_or(0.0)
    }

    /// This player's id once joined (the host's on a server); 0 before.
    #[func]
    fn get_local_player_id(&self) -> i64 {
        match &self.role {
            Role::Client(c) => c.player().unwrap_or(0) as i64,
            Role::Server(s) => s.player_of(SERVER_PEER).unwrap_or(0) as i64,
            Role::Idle => 0,
        }
    }

    /// True when every edit of chunk `coord` is known here: always on a server; on a client
    /// once the server's snapshot of that chunk arrived (it is asked for as the chunk streams
    /// in), so `StrataChunkWorld.debug_chunk_hash(coord)` is then the server's.
    #[func]
    fn is_chunk_synced(&self, coord: Vector3i) -> bool {
        match &self.role {
            Role::Server(_) => true,
            Role::Client(c) => c.is_chunk_synced(ChunkCoord::new(coord.x, coord.y, coord.z)),
            Role::Idle => false,
        }
    }

    /// True while serving.
    #[func]
    fn is_server(&self) -> bool {
        matches!(self.role, Role::Server(_))
    }

    /// True on a client that joined, and on a server.
    #[func]
    fn is_joined(&self) -> bool {
        match &self.role {
            Role::Client(c) => c.player().is_some(),
            Role::Server(_) => true,
            Role::Idle => false,
        }
    }

    /// The ids of this node's custom monitors in the debugger's Monitors tab
    /// (`Performance.get_custom_monitor(id)`): `Strata sync/edits_per_s` (edits applied),
    /// `bytes_sent_per_s`, `bytes_received_per_s` and `players`; a second node's are under
    /// `Strata sync #2/`. Empty while out of the tree.
    #[func]
    fn get_monitors(&self) -> PackedStringArray {
        self.monitors.ids()
    }

    /// Server counters: `edits_applied`, `edits_rejected`, `peers_dropped`, `players`,
    /// `next_order`, `entity_updates` (chunks' entity deltas sent to everyone),
    /// `entity_records_unsent` (records left out of a too large packet), `snapshots_sent`,
    /// `snapshots_waiting` (subscriptions waiting for the world's water to settle),
    /// `state_requests` and `state_requests_refused` (clients' shared state requests),
    /// `poses_refused` (moves the movement checks refused), `pose_corrections` (sent for
    /// them), `stale_poses` (failed within a second of a correction or teleport: sent before the
    /// client heard of it, ignored), `join_timeouts`, `connections_refused` (over `max_connections_per_address`),
    /// `pending_connections` (open, not joined), `chunks_released` (subscriptions out of a
    /// player's view), `bytes_sent_per_player` (`{player_id: bytes}` addressed to each open
    /// connection) and `bytes_sent_max` (the most of one connection); a client's: `edits`
    /// (voxels edited as far as it knows), `next_order` (every edit numbered below it has reached
    /// it) and `entity_records` (the server's records of its synced chunks). Both: `bytes_sent`, `bytes_received`,
    /// `packets_sent`, `packets_received` (payloads, without the peer's own headers) and the
    /// time this node took per frame over the last 1,024 frames, `tick_ms_p50`, `tick_ms_p99`,
    /// `tick_ms_max` (packets handled, the journal written and synced, replies sent), and the
    /// main thread's CPU time in those frames, `tick_cpu_ms_p50`, `tick_cpu_ms_p99`,
    /// `tick_cpu_ms_max` (the work without the time spent waiting for a core; 0 where the
    /// platform has no thread clock).
    #[func]
    fn get_stats(&self) -> VarDictionary {
        let mut d = VarDictionary::new();
        d.set("bytes_sent", self.traffic.bytes_sent as i64);
        d.set("bytes_received", self.traffic.bytes_received as i64);
        d.set("packets_sent", self.traffic.packets_sent as i64);
        d.set("packets_received", self.traffic.packets_received as i64);
        let mut ticks: Vec<f32> = self.tick_ms.iter().copied().collect();
        ticks.sort_by(f32::total_cmp);
        d.set("tick_ms_p50", quantile(&ticks, 0.5));
        d.set("tick_ms_p99", quantile(&ticks, 0.99));
        d.set("tick_ms_max", quantile(&ticks, 1.0));
        let mut cpu: Vec<f32> = self.tick_cpu_ms.iter().copied().collect();
        cpu.sort_by(f32::total_cmp);
        d.set("tick_cpu_ms_p50", quantile(&cpu, 0.5));
        d.set("tick_cpu_ms_p99", quantile(&cpu, 0.99));
        d.set("tick_cpu_ms_max", quantile(&cpu, 1.0));
        match &self.role {
            Role::Server(s) => {
                d.set("edits_applied", s.stats().edits_applied as i64);
                d.set("edits_rejected", s.stats().edits_rejected as i64);
                d.set("peers_dropped", s.stats().peers_dropped as i64);
                d.set("players", s.player_count() as i64);
                d.set("next_order", s.next_order() as i64);
                d.set("entity_updates", s.stats().entity_updates as i64);
                d.set("entity_records_unsent", s.stats().entity_records_unsent as i64);
                d.set("snapshots_sent", s.stats().snapshots_sent as i64);
                d.set("snapshots_waiting", s.waiting_subscriptions() as i64);
                d.set("state_requests", s.stats().state_requests as i64);
                d.set("state_requests_refused", s.stats().state_requests_refused as i64);
                d.set("poses_refused", s.stats().poses_refused as i64);
                d.set("pose_corrections", s.stats().pose_corrections as i64);
                d.set("stale_poses", s.stats().stale_poses as i64);
                d.set("join_timeouts", s.stats().join_timeouts as i64);
                d.set("connections_refused", s.stats().connections_refused as i64);
                d.set("chunks_released", s.stats().chunks_released as i64);
                d.set("pending_connections", s.pending_connections() as i64);
                let mut per_player = VarDictionary::new();
                for (&peer, &bytes) in &s.stats().bytes_sent {
                    if let Some(player) = s.player_of(peer) {
                        per_player.set(player as i64, bytes as i64);
                    }
                }
                let max = s.stats().bytes_sent.values().copied().max().unwrap_or(0);
                d.set("bytes_sent_max", max as i64);
                d.set("bytes_sent_per_player", &per_player);
            }
            Role::Client(c) => {
                d.set("resting_poses_sent", self.traffic.resting_poses_sent as i64);
                d.set("edits", c.edits().len() as i64);
                d.set("next_order", c.next_order() as i64);
                d.set("entity_records", c.entity_deltas().record_count() as i64);
            }
            Role::Idle => {}
        }
        d
    }

    /// For a dedicated server: from now on SIGTERM, SIGINT (Ctrl+C) or SIGHUP makes this node
    /// stop serving at its next frame (saving the world, as `leave` does) and quit the scene
    /// tree. False, with the reason in `last_error()`, where the signals cannot be watched
    /// (not on Linux or macOS).
    #[func]
    fn stop_on_signals(&mut self) -> bool {
        #[cfg(unix)]
        match stop_signal_flag() {
            Ok(flag) => {
                self.stop_requested = Some(flag);
                true
            }
            Err(e) => {
                self.fail(e);
                false
            }
        }
        #[cfg(not(unix))]
        {
            self.fail("StrataWorldSync.stop_on_signals: stop signals are watched on Linux and macOS only".into());
            false
        }
    }

    /// The last error ("" after a later success).
    #[func]
    fn last_error(&self) -> GString {
        self.last_error.get()
    }

    /// Internal: a packet from the network (connected to the api's `peer_packet`).
    #[func]
    fn on_peer_packet(&mut self, peer: i64, packet: PackedByteArray) {
        let bytes = packet.to_vec();
        self.traffic.bytes_received += bytes.len() as u64;
        self.traffic.packets_received += 1;
        match &self.role {
            Role::Server(_) => self.server_packet(peer, &bytes),
            Role::Client(_) if peer == SERVER_PEER => {
                // A batch's messages queue one by one: a chunk snapshot inside one still waits
                // for the water, with what follows it.
                match split_batch(&bytes) {
                    Ok(parts) if parts.len() == 1 => self.inbox.push_back(bytes),
                    Ok(parts) => self.inbox.extend(parts.into_iter().map(<[u8]>::to_vec)),
                    Err(e) => {
                        self.client_failed(format!("the server sent a malformed packet: {e}"));
                        return;
                    }
                }
                self.drain_inbox();
            }
            _ => {}
        }
    }

    /// Internal: a connection closed (the api's `peer_disconnected`).
    #[func]
    fn on_peer_disconnected(&mut self, peer: i64) {
        self.outbox.remove(&peer);
        self.closed_this_frame.insert(peer);
        if let Role::Server(s) = &mut self.role {
            let actions = s.peer_disconnected(peer);
            self.act(actions);
        }
    }

    /// Internal: the client reached the server (the api's `connected_to_server`): says hello.
    #[func]
    fn on_connected_to_server(&mut self) {
        let Role::Client(c) = &self.role else { return };
        match c.hello() {
            Ok(hello) => self.send(SERVER_PEER, &hello, true),
            Err(e) => self.client_failed(e.to_string()),
        }
    }

    /// Internal: the client could not reach the server.
    #[func]
    fn on_connection_failed(&mut self) {
        let whom = self.joining.as_ref().map_or_else(|| "the server".to_string(), |(_, w)| w.clone());
        self.client_failed(format!("could not reach {whom}"));
    }

    /// Internal: the server went away.
    #[func]
    fn on_server_disconnected(&mut self) {
        self.client_failed("the server closed the connection".into());
    }

    /// Internal: a connection opened (the api's `peer_connected`).
    #[func]
    fn on_peer_connected(&mut self, peer: i64) {
        self.connections_seen += 1;
        self.server_peer_connected(peer);
    }

    /// Internal: a chunk of the client's world streamed out (the world's `chunk_unloaded`): it
    /// is no longer synced, nor asked for again.
    #[func]
    fn on_chunk_unloaded(&mut self, coord: Vector3i) {
        let chunk = ChunkCoord::new(coord.x, coord.y, coord.z);
        self.to_subscribe.retain(|c| *c != chunk);
        if let Role::Client(c) = &mut self.role {
            c.forget_chunk(chunk);
        }
    }

    /// Internal: a chunk of the client's world streamed in (the world's `chunk_loaded`): its edits are asked for.
    #[func]
    fn on_chunk_loaded(&mut self, coord: Vector3i) {
        if matches!(self.role, Role::Client(_)) {
            self.to_subscribe.push(ChunkCoord::new(coord.x, coord.y, coord.z));
        }
    }

    /// Internal: a chunk of a side view's client streamed out (chunk `(x, y)` is `(x, y, 0)`).
    #[func]
    fn on_chunk_unloaded_2d(&mut self, coord: Vector2i) {
        self.on_chunk_unloaded(Vector3i::new(coord.x, coord.y, 0));
    }

    /// Internal: a chunk of a side view's client streamed in.
    #[func]
    fn on_chunk_loaded_2d(&mut self, coord: Vector2i) {
        self.on_chunk_loaded(Vector3i::new(coord.x, coord.y, 0));
    }
}

impl WorldSync {
    /// The shared game state as this peer knows it.
    pub(super) fn shared_state(&self) -> Option<&SharedState> {
        match &self.role {
            Role::Client(c) => Some(c.shared_state()),
            Role::Server(s) => Some(s.shared_state()),
            Role::Idle => None,
        }
    }

    pub(super) fn players_view(&self) -> Option<&WorldClient> {
        match &self.role {
            Role::Client(c) => Some(c),
            Role::Server(_) => self.host_view.as_ref(),
            Role::Idle => None,
        }
    }

    pub(super) fn now(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    pub(super) fn fail(&mut self, message: String) -> Error {
        self.last_error.fail(message, Error::FAILED)
    }

    pub(super) fn world_node(&self) -> Option<SyncedWorld> {
        if self.world.is_empty() {
            return None;
        }
        self.base().get_node_or_null(&self.world).and_then(SyncedWorld::of)
    }

    /// A fresh `SceneMultiplayer` over `peer`, its signals connected to this node.
    pub(super) fn start_api(&mut self, peer: Gd<MultiplayerPeer>) {
        let mut api = SceneMultiplayer::new_gd();
        // Its own branch of the tree: the game's multiplayer and RPCs elsewhere are untouched.
        api.set_root_path(&self.base().get_path());
        api.set_multiplayer_peer(&peer);
        // No relay of Godot's own: this node routes every message, and the relay would tell
        // every peer of every other's connection (work growing with the square of a crowd).
        api.set_server_relay_enabled(false);
        let me = self.to_gd();
        for (signal, method) in [
            ("peer_packet", "on_peer_packet"),
            ("peer_connected", "on_peer_connected"),
            ("peer_disconnected", "on_peer_disconnected"),
            ("connected_to_server", "on_connected_to_server"),
            ("connection_failed", "on_connection_failed"),
            ("server_disconnected", "on_server_disconnected"),
        ] {
            api.connect(signal, &Callable::from_object_method(&me, method));
        }
        self.api = Some(api);
    }

    /// Closes the connection (its signals may come back into this node at once).
    pub(super) fn close_peer(&mut self) {
        if let Some(api) = self.api.take()
            && let Some(mut peer) = api.get_multiplayer_peer()
        {
            let _reentrant = self.base_mut();
            peer.close();
        }
    }

    /// Sends `bytes` to `peer`: a server queues it for the frame's batch to that peer; a client
    /// sends at once.
    pub(super) fn send(&mut self, peer: i64, bytes: &[u8], reliable: bool) {
        if self.api.is_none() {
            return;
        }
        if matches!(self.role, Role::Server(_)) && peer != SERVER_PEER {
            self.queue_for(peer, Rc::from(bytes), reliable);
            return;
        }
        self.send_now(peer, bytes, reliable, None);
    }

    /// Server: queues one encoded message for `peer`'s batch of this frame; a broadcast's
    /// players share its bytes.
    pub(super) fn queue_for(&mut self, peer: i64, bytes: Rc<[u8]>, reliable: bool) {
        if self.closed_this_frame.contains(&peer) {
            return;
        }
        let queue = self.outbox.entry(peer).or_default();
        if reliable { &mut queue.reliable } else { &mut queue.unreliable }.push(bytes);
    }

    /// Server: sends each peer its queued messages, in order, in as few packets as fit (one a
    /// frame, usually): the transport's cost is per packet, and a crowd makes many small ones.
    pub(super) fn flush_outbox(&mut self) {
        let outbox = std::mem::take(&mut self.outbox);
        let mut direct = self.direct_enet();
        for (peer, queue) in outbox {
            self.send_queue(peer, queue, direct.as_mut());
        }
        if let Some(d) = direct {
            d.finish();
        }
    }

    /// Server: sends what is queued for `peer` now (before it is disconnected).
    pub(super) fn flush_peer(&mut self, peer: i64) {
        if let Some(mut queue) = self.outbox.remove(&peer) {
            // Its reason matters; poses to a connection about to close do not.
            queue.unreliable.clear();
            let mut direct = self.direct_enet();
            self.send_queue(peer, queue, direct.as_mut());
            if let Some(d) = direct {
                d.finish();
            }
        }
    }

    /// Sends `queue` to `peer` in batches, the reliable messages first: straight to its ENet
    /// peer when `direct` is given, else through the multiplayer API.
    fn send_queue(&mut self, peer: i64, queue: PeerOutbox, mut direct: Option<&mut DirectEnet>) {
        let reliable = pack_batches(queue.reliable, RELIABLE_BATCH_BYTES).into_iter().map(|b| (b, true));
        let unreliable = pack_batches(queue.unreliable, UNRELIABLE_BATCH_BYTES).into_iter().map(|b| (b, false));
        for (bytes, is_reliable) in reliable.chain(unreliable) {
            self.send_now(peer, &bytes, is_reliable, direct.as_deref_mut());
        }
    }

    /// The server's ENet transport, when it is one: see [`DirectEnet`].
    fn direct_enet(&self) -> Option<DirectEnet> {
        if !matches!(self.role, Role::Server(_)) {
            return None;
        }
        let enet = self.api.as_ref()?.get_multiplayer_peer()?.try_cast::<ENetMultiplayerPeer>().ok()?;
        Some(DirectEnet { enet, sent: false })
    }

    /// Sends one packet now: straight to `peer`'s ENet peer with `direct` (flushed by its
    /// `finish`), else through the multiplayer API.
    fn send_now(&mut self, peer: i64, bytes: &[u8], reliable: bool, direct: Option<&mut DirectEnet>) {
        let Some(api) = self.api.as_mut() else { return };
        self.traffic.bytes_sent += bytes.len() as u64;
        self.traffic.packets_sent += 1;
        if let Some(d) = direct {
            return d.send(peer, bytes, reliable);
        }
        let mode = if reliable { TransferMode::RELIABLE } else { TransferMode::UNRELIABLE_ORDERED };
        let packet = PackedByteArray::from(bytes);
        api.send_bytes_ex(&packet).id(peer as i32).mode(mode).channel(if reliable { 0 } else { 1 }).done();
    }

    /// Sends the local player's `pose` (unreliably unless `reliable`); the host's own goes
    /// straight to its server.
    pub(super) fn send_pose(&mut self, pose: Pose, reliable: bool) {
        let tick = self.pose_tick;
        match &self.role {
            Role::Client(c) if c.player().is_some() => match c.pose_packet(tick, pose) {
                Ok(bytes) => self.send(SERVER_PEER, &bytes, reliable),
                Err(e) => self.last_error.record(format!("StrataWorldSync.set_local_pose: {e}")),
            },
            Role::Server(_) => {
                let bytes = Message::PlayerState { player: 0, tick, pose }.encode();
                self.server_packet(SERVER_PEER, &bytes);
            }
            _ => {}
        }
    }
}

/// A server's messages for one peer in this frame.
#[derive(Default)]
struct PeerOutbox {
    reliable: Vec<Rc<[u8]>>,
    unreliable: Vec<Rc<[u8]>>,
}

/// A server's batches sent straight to its ENet peers, then one flush for the frame.
///
/// `SceneMultiplayer.send_bytes` ends in `ENetMultiplayerPeer.put_packet`, which flushes the
/// whole ENet host (every connection's queue and timeouts) after each packet: with 128 players
/// that is 256 flushes of 128 connections a frame, the biggest cost of a crowded server's
/// frame. This writes what `send_bytes` would put on the wire and flushes once: the packet is
/// `SceneMultiplayer`'s raw-bytes command byte followed by the bytes (received as `peer_packet`
/// with the bytes, as before), on the channel `ENetMultiplayerPeer` uses for the same transfer
/// mode and channel (reliable: its reliable system channel 0; unreliable ordered on channel 1:
/// ENet channel 2, the first after its two system channels). The Godot loopback suites and
/// the load test run every server packet through it to clients that read it with
/// `SceneMultiplayer`.
struct DirectEnet {
    enet: Gd<ENetMultiplayerPeer>,
    sent: bool,
}

impl DirectEnet {
    /// `SceneMultiplayer`'s `NETWORK_COMMAND_RAW` (Godot 4's `SceneMultiplayer::NetworkCommands`).
    const RAW_COMMAND: u8 = 3;
    /// `ENetMultiplayerPeer`'s channel for reliable packets on transfer channel 0.
    const RELIABLE_CHANNEL: i32 = 0;
    /// `ENetMultiplayerPeer`'s channel for transfer channel 1 (`SYSCH_MAX + 1 - 1`).
    const UNRELIABLE_CHANNEL: i32 = 2;

    fn send(&mut self, peer: i64, bytes: &[u8], reliable: bool) {
        let Ok(id) = i32::try_from(peer) else { return };
        let Some(mut packet_peer) = self.enet.get_peer(id) else { return };
        let mut packet = Vec::with_capacity(bytes.len() + 1);
        packet.push(Self::RAW_COMMAND);
        packet.extend_from_slice(bytes);
        let (channel, flags) = if reliable {
            (Self::RELIABLE_CHANNEL, ENetPacketPeer::FLAG_RELIABLE)
        } else {
            (Self::UNRELIABLE_CHANNEL, ENetPacketPeer::FLAG_UNRELIABLE_FRAGMENT)
        };
        if packet_peer.send(channel, &PackedByteArray::from(packet), flags) == Error::OK {
            self.sent = true;
        }
    }

    /// Puts the frame's packets on the wire: one flush of the host.
    fn finish(self) {
        if self.sent
            && let Some(mut host) = self.enet.get_host()
        {
            host.flush();
        }
    }
}

/// The most network polls in one frame (each new connection ends one).
const MAX_POLLS_PER_FRAME: usize = 256;

/// The largest reliable batch (ENet fragments it; all of it arrives or the connection ends).
const RELIABLE_BATCH_BYTES: usize = 32 * 1024;
/// The largest unreliable batch: one datagram under a common MTU, so one lost datagram loses
/// one batch of poses, not a frame's.
const UNRELIABLE_BATCH_BYTES: usize = 1200;

/// The journal's check that it belongs to this world.
fn journal_world_hash(preset: &strata_core::WorldPreset) -> u64 {
    fnv1a64(fingerprint(preset).as_bytes())
}

/// The `q`-quantile (0 to 1) of `sorted` (ascending) by nearest rank; 0 when empty.
fn quantile(sorted: &[f32], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    f64::from(sorted[rank - 1])
}

/// The process-wide flag the stop signals set, registered once.
#[cfg(unix)]
fn stop_signal_flag() -> Result<Arc<AtomicBool>, String> {
    use std::sync::OnceLock;
    static FLAG: OnceLock<Result<Arc<AtomicBool>, String>> = OnceLock::new();
    FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        for signal in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT, signal_hook::consts::SIGHUP] {
            // A second signal, while the first is still unanswered, ends the process at once.
            signal_hook::flag::register_conditional_shutdown(signal, 1, flag.clone())
                .and_then(|_| signal_hook::flag::register(signal, flag.clone()))
                .map_err(|e| format!("StrataWorldSync.stop_on_signals: cannot watch signal {signal}: {e}"))?;
        }
        Ok(flag)
    })
    .clone()
}
