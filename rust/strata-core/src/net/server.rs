//! The authoritative server of a shared world, as a state machine: packets in, packets out.
//!
//! It holds the preset, the edits (applied in one order, numbered from 0 without gaps) and the
//! players. A connection must open with `Hello` in [`PROTOCOL_VERSION`] within the join timeout
//! of its first contact, and one address may hold only so many connections
//! (`net::connections`; the transport reports connections with [`WorldServer::peer_connected`]
//! and calls [`WorldServer::tick`] every frame). Its edit requests are checked in this order:
//! rate limit (a token bucket per player), world bounds, block id (the world's library), reach
//! (distance from the player's accepted eye position to the voxel's centre). A valid edit is
//! applied ([`Action::EditApplied`]: the host writes it to its world) and sent to every player
//! that sees its chunk (`net::interest`), the sender included, so every client applies the
//! edits of its chunks in the server's order. Whatever a client claims in a `PlayerState` or
//! `Chat`, the server stamps it with the sender's own id: nobody can move or speak for another
//! player. A malformed packet, a server-only message or anything before `Hello` closes the
//! connection with the reason ([`Action::Disconnect`]); the server goes on.
//!
//! Poses: the server trusts no client's. Each reported pose (newest by tick) is checked against
//! the last accepted one and the server time between them (`net::movement`: speed budgets and a
//! sweep through the host's solid voxels, [`SolidVoxels`], handed to
//! [`WorldServer::handle_packet_in`]). An accepted pose goes to the players that see its chunk
//! (others at a low rate); a refused one goes nowhere, and the player is sent its accepted pose
//! (`PoseCorrection`, at most every [`CORRECTION_INTERVAL_S`]). The first pose is the spawn; the
//! game moves a player with [`WorldServer::teleport`], which starts its budgets empty. After a
//! correction or a teleport the poses the client sent before it heard of it are still on their
//! way: for [`SETTLE_S`] a pose that fails the checks is ignored (`stale_poses`), neither refused
//! nor corrected again, and the first that passes ends the wait. The host's own player
//! ([`WorldServer::set_host_peer`]) is trusted and sees everything.
//!
//! Entities: the host's world is their authority. It hands the server its entity deltas (how
//! the objects differ from what the spawn rules give: [`EntityDeltas`]) at most every
//! [`ENTITY_PUBLISH_INTERVAL_S`]; the server sends each chunk whose deltas changed to the players
//! subscribed to it (`ChunkEntities`, reliable: each replaces the last, so a chunk's last word
//! always arrives), and answers a chunk subscription with the chunk's deltas after its edits, so a late joiner
//! sees every moved, changed, added and removed object. Clients send no entity changes.
//!
//! Shared game state: the server holds a small key/value map ([`SharedState`]) that only the
//! host sets ([`WorldServer::set_shared_state`]). A joining player gets it whole right after its
//! `Welcome`; each change goes to everyone on the reliable channel, so every client sees the
//! changes in the server's order. A client may ask for a change (`SharedStateRequest`): the
//! request is checked for rate (a token bucket per player, as edits have) and against the
//! state's bounds, and a refused one is answered with `SharedStateRefused` and the reason; a
//! valid one goes to the host as [`Action::SharedStateRequested`], saying whether the key is one
//! clients may set ([`WorldServer::set_client_writable_keys`]): the host applies it with
//! `set_shared_state` then, or lets its game decide. The server never applies a request itself,
//! so every change goes through the host's own path (its state file first).
//!
//! Chunk snapshots and water: a snapshot (`ChunkEdits`) holds every voxel of the chunk that
//! differs from generation. With [`WorldServer::new`] alone they are the server's edits, answered
//! at once. A host whose world flows water calls [`WorldServer::set_world_flows_water`]: then a
//! subscription waits, and the host answers the waiting ones with its world's voxels
//! ([`WorldServer::answer_subscriptions`]) at a moment its water is settled, so that a snapshot
//! at order N holds every edit below N and all of their water (see ARCHITECTURE.md, `net/`).
//!
//! The world's kind ([`ServerConfig::shape`], told to every player in its `Welcome`): a 3D world,
//! or a side view, whose tiles, chunks and poses lie at z = 0 (`net::world_shape`; anything
//! else is refused: an edit as out of bounds, a subscription released, a pose drops its sender)
//! and whose moves are checked in its plane. A side view also takes shape edits
//! (`ShapeEditRequest`: a rectangle or circle of at most `world_shape::MAX_SHAPE_EDIT_TILES` tiles, every
//! one within reach; it spends one edit of the rate per 128 tiles), applied as one edit numbered
//! per tile ([`Action::ShapeApplied`]) and sent as the shape, which every peer turns into the
//! same tiles and writes as one batch. A side view's entity deltas are keyed by its chunks
//! `(x, y, 0)` as its subscriptions are: each chunk's removed spawn keys and the records standing
//! in its square of tiles (each record naming its 32-tile cell on the wire).
//!
//! May use: `base`, `preset`, `persist::entities`, `net::protocol`, `net::shared_state`,
//! `net::movement`, `net::interest`, `net::connections`, `net::world_shape`.

use crate::base::block::BlockId;
use crate::base::coords::{ChunkCoord, IVec3};
use crate::base::edits::EditMap;
pub use crate::net::connections::PeerId;
use crate::net::connections::{ConnectionLimits, ConnectionRefusal, Connections};
use crate::net::interest::Interest;
use crate::net::movement::{Movement, MovementLimits, NoVoxels, SolidVoxels};
use crate::net::protocol::{
    MAX_CHAT_BYTES, MAX_CHUNK_ENTITY_RECORDS, MAX_CHUNK_REMOVED_SPAWNS, MAX_NAME_BYTES, MAX_PACKET_BYTES,
    MAX_REASON_BYTES, Message, PROTOCOL_VERSION, PlayerId, Pose, RejectReason, ViewRadius,
};
use crate::net::shared_state::{SharedState, SharedStateError, SharedValue};
use crate::net::world_shape::{EditShape, ShapeEditError, WorldShape};
use crate::persist::entities::{EntityDeltas, EntityRecord};
use crate::preset::fingerprint::{fingerprint, preset_to_sparse_ron};
use crate::preset::model::WorldPreset;
use std::collections::BTreeMap;

/// Seconds between two pose corrections of one player: the poses it sent before the first
/// reached it are refused too, and need no correction of their own.
pub const CORRECTION_INTERVAL_S: f64 = 0.25;
/// Seconds after a correction or a teleport in which poses that fail the checks are taken for
/// ones sent before the client heard of it (ignored, not refused): a round trip and its jitter.
pub const SETTLE_S: f64 = 1.0;

/// Seconds between two publications of the entities: each chunk's deltas travel at most ten
/// times a second, and only when they changed.
pub const ENTITY_PUBLISH_INTERVAL_S: f64 = 0.1;

/// What the server accepts.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerConfig {
    /// Farthest an edit may be from the player's eye, in voxels (to the voxel's centre).
    pub reach: f64,
    /// Edits a player may make per second, sustained.
    pub edits_per_second: f64,
    /// Edits a player may make at once before the rate applies.
    pub edit_burst: f64,
    /// Players at once; more are refused.
    pub max_players: usize,
    /// Block ids accepted: `0..block_count` (the world's library).
    pub block_count: usize,
    /// Shared state requests a player may make per second, sustained.
    pub state_requests_per_second: f64,
    /// Shared state requests a player may make at once before the rate applies.
    pub state_request_burst: f64,
    /// What a player's body may do ([`MovementLimits`]; the defaults fit the demo's player).
    pub movement: MovementLimits,
    /// How far each player sees, unless set per player ([`WorldServer::set_view_radius`]):
    /// the edits and poses of these chunks are sent to it.
    pub view: ViewRadius,
    /// Seconds between two poses of a player out of another's view sent to it (0: never). 5 s:
    /// enough for a map or a compass, a fraction of the bytes of 15 poses a second.
    pub far_pose_interval_s: f64,
    /// The join timeout and the connections one address may hold.
    pub connections: ConnectionLimits,
    /// The kind of world served: a 3D world, or a side view and its chunks.
    pub shape: WorldShape,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            reach: 8.0,
            edits_per_second: 30.0,
            edit_burst: 60.0,
            max_players: 32,
            block_count: 256,
            state_requests_per_second: 10.0,
            state_request_burst: 20.0,
            movement: MovementLimits::default(),
            view: ViewRadius::default(),
            far_pose_interval_s: 5.0,
            connections: ConnectionLimits::default(),
            shape: WorldShape::Voxels,
        }
    }
}

/// The most chunk subscriptions of one player that wait for the host's water at once; more
/// are ignored (a client asks again only after reconnecting, so a well-behaved one never has
/// more than its view holds).
pub const MAX_WAITING_SUBSCRIPTIONS: usize = 16_384;

/// Who a packet goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Peer(PeerId),
    All,
    AllExcept(PeerId),
}

/// What the server asks its transport to do.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Edit number `order` was applied: write it to the host's world (and its journal) before
    /// carrying out the sends that follow. Once per edit, whoever it is sent to.
    EditApplied { order: u64, pos: IVec3, block: u16 },
    /// A side view's shape edit was applied: `tiles` (row by row) are edits number `order`,
    /// `order + 1`, …, all set to `block`. Write them to the host's world (and its journal) as one
    /// batch before the sends that follow.
    ShapeApplied { order: u64, tiles: Vec<IVec3>, block: u16 },
    /// Send `message` (encode it with [`Message::encode`]); `reliable` false for poses.
    Send { target: Target, message: Message, reliable: bool },
    /// Close the connection, logging `reason`.
    Disconnect { peer: PeerId, reason: String },
    /// Player `player` (connection `peer`) asks to set shared state `key` to `value` (`None`:
    /// erase); the request is within the rate and the state's bounds. `writable`: the key is
    /// one clients may set, so the host applies it (`set_shared_state`); otherwise its game
    /// decides (and may refuse with [`WorldServer::refuse_shared_state`]).
    SharedStateRequested { peer: PeerId, player: PlayerId, key: String, value: Option<SharedValue>, writable: bool },
}

/// One joined player.
#[derive(Clone, Debug)]
struct Player {
    id: PlayerId,
    name: String,
    /// The newest pose tick seen: poses come unreliably on one channel and, ahead of an
    /// edit, reliably on another, so an older one can arrive after a newer one (and is ignored).
    tick: Option<u32>,
    /// The accepted pose and the speed budgets.
    movement: Movement,
    /// When the last pose correction was sent.
    corrected_s: f64,
    /// When the last correction or teleport was sent, until a pose passes the checks again.
    settling_since: Option<f64>,
    /// The host's own player: trusted, sees everything.
    host: bool,
    tokens: f64,
    last_refill_s: f64,
    /// The token bucket of its shared state requests.
    state_tokens: f64,
    state_refill_s: f64,
    /// Its view and subscriptions: what it is sent.
    interest: Interest,
}

/// Counters for tests, logs and the load test.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ServerStats {
    pub edits_applied: u64,
    pub edits_rejected: u64,
    pub peers_dropped: u64,
    /// Chunks whose entity deltas changed at a publication (each sent to its subscribers).
    pub entity_updates: u64,
    /// Entity records left out of a chunk's deltas because the packet would have been too large
    /// (or past [`MAX_CHUNK_ENTITY_RECORDS`]): clients keep the spawned objects there.
    pub entity_records_unsent: u64,
    /// Chunk snapshots sent.
    pub snapshots_sent: u64,
    /// Shared state requests passed to the host, and those refused (rate, bounds, the game).
    pub state_requests: u64,
    pub state_requests_refused: u64,
    /// Poses refused by the movement checks (not passed on), and the corrections sent for them
    /// (at most one per [`CORRECTION_INTERVAL_S`]; teleports not counted).
    pub poses_refused: u64,
    pub pose_corrections: u64,
    /// Poses that failed the checks within [`SETTLE_S`] of a correction or teleport: sent before
    /// the client heard of it, ignored.
    pub stale_poses: u64,
    /// Connections dropped for not joining in time, and closed for their address's limit.
    pub join_timeouts: u64,
    pub connections_refused: u64,
    /// Chunk subscriptions released (left behind, or asked for from too far).
    pub chunks_released: u64,
    /// Bytes addressed to each open connection (encoded messages), for the load test and logs.
    pub bytes_sent: BTreeMap<PeerId, u64>,
}

/// One chunk's entity deltas as published: removed spawn keys (increasing) and records (in a
/// fixed order, so that the same objects compare equal).
#[derive(Clone, Debug, Default, PartialEq)]
struct ChunkEntityDeltas {
    removed_spawns: Vec<u32>,
    records: Vec<EntityRecord>,
}

/// The authoritative world: see the module docs.
pub struct WorldServer {
    preset_ron: String,
    fingerprint: String,
    /// The fingerprint of the world's own structures ("" for none), told to joining players.
    structures: String,
    config: ServerConfig,
    edits: EditMap,
    next_order: u64,
    /// Joined players by connection.
    players: BTreeMap<PeerId, Player>,
    next_player: PlayerId,
    stats: ServerStats,
    /// The entity deltas last published, per chunk (chunks without deltas absent).
    entities: BTreeMap<ChunkCoord, ChunkEntityDeltas>,
    /// When the entities were last published (`now_s` of `publish_entities`).
    entities_published_s: f64,
    /// The shared game state.
    shared: SharedState,
    /// Keys any client may set (the host applies such requests).
    client_writable: std::collections::BTreeSet<String>,
    /// The host's world flows water: subscriptions wait for [`WorldServer::answer_subscriptions`].
    world_flows_water: bool,
    /// Subscriptions waiting for the host's settled water, in arrival order.
    waiting: Vec<(PeerId, ChunkCoord)>,
    /// Every open connection, joined or not.
    connections: Connections,
    /// The host's own connection (trusted, sees everything).
    host_peer: Option<PeerId>,
}

impl WorldServer {
    /// A server for `preset` with the edits it had (a loaded save), numbering new edits from
    /// `next_order`.
    /// Tells joining players the fingerprint of the world's own structures ("" for none): a
    /// client whose world places other structures refuses to join rather than show another world.
    pub fn set_structures_fingerprint(&mut self, structures: &str) {
        self.structures = structures.to_string();
    }

    pub fn new(preset: &WorldPreset, edits: EditMap, next_order: u64, config: ServerConfig) -> Self {
        Self {
            preset_ron: preset_to_sparse_ron(preset),
            fingerprint: fingerprint(preset),
            structures: String::new(),
            config,
            edits,
            next_order,
            players: BTreeMap::new(),
            next_player: 1,
            stats: ServerStats::default(),
            entities: BTreeMap::new(),
            entities_published_s: f64::NEG_INFINITY,
            shared: SharedState::default(),
            client_writable: std::collections::BTreeSet::new(),
            world_flows_water: false,
            waiting: Vec::new(),
            connections: Connections::default(),
            host_peer: None,
        }
    }

    /// The keys any client may set with a request (each checked as `set_shared_state` checks
    /// its key); the host applies such requests. Returns the first bad key's error.
    pub fn set_client_writable_keys<'a>(
        &mut self,
        keys: impl IntoIterator<Item = &'a str>,
    ) -> Result<(), SharedStateError> {
        let mut set = std::collections::BTreeSet::new();
        for k in keys {
            crate::net::shared_state::check_key(k)?;
            set.insert(k.to_string());
        }
        self.client_writable = set;
        Ok(())
    }

    /// Whether clients may set `key`.
    pub fn is_client_writable(&self, key: &str) -> bool {
        self.client_writable.contains(key)
    }

    /// Tells player connection `peer` that its request to set `key` was refused, and why
    /// (cut to what a packet carries).
    pub fn refuse_shared_state(&mut self, peer: PeerId, key: &str, reason: &str) -> Vec<Action> {
        let out = self.refusal(peer, key, reason);
        self.account(out)
    }

    fn refusal(&mut self, peer: PeerId, key: &str, reason: &str) -> Vec<Action> {
        self.stats.state_requests_refused += 1;
        let mut reason = reason.to_string();
        if reason.len() > MAX_REASON_BYTES {
            let mut cut = MAX_REASON_BYTES;
            while !reason.is_char_boundary(cut) {
                cut -= 1;
            }
            reason.truncate(cut);
        }
        vec![Action::Send {
            target: Target::Peer(peer),
            message: Message::SharedStateRefused { key: key.to_string(), reason },
            reliable: true,
        }]
    }

    /// Whether the host's world flows water: then chunk subscriptions wait until the host
    /// answers them with [`WorldServer::answer_subscriptions`] (off: answered at once from the
    /// server's edits). Turning it off answers nothing by itself: call `answer_subscriptions`.
    pub fn set_world_flows_water(&mut self, on: bool) {
        self.world_flows_water = on;
    }

    /// Subscriptions waiting for the host's settled water.
    pub fn waiting_subscriptions(&self) -> usize {
        self.waiting.len()
    }

    /// Answers every waiting subscription with `world`'s voxels that differ from generation
    /// (the host's world edits, the water its flows placed included), at the next edit order.
    /// Call it only when the host's water is settled: every flow of the edits applied so far
    /// has been written into `world`.
    pub fn answer_subscriptions(&mut self, world: &EditMap) -> Vec<Action> {
        let waiting = std::mem::take(&mut self.waiting);
        let mut out = Vec::new();
        for (peer, chunk) in waiting {
            // The player may have moved on meanwhile.
            match self.players.get(&peer) {
                Some(p) if p.interest.may_subscribe(chunk) => out.extend(self.snapshot(peer, chunk, world)),
                Some(_) => out.extend(self.released(peer, vec![chunk])),
                None => {}
            }
        }
        self.account(out)
    }

    /// The shared game state now.
    pub fn shared_state(&self) -> &SharedState {
        &self.shared
    }

    /// Replaces the shared game state without telling anyone (a resumed save, before players
    /// join).
    pub fn restore_shared_state(&mut self, state: SharedState) {
        self.shared = state;
    }

    /// Sets shared state `key` to `value` (`None` erases it): checked against the bounds
    /// (`net::shared_state`), then sent to every player, the host's own included. An unchanged
    /// value sends nothing.
    pub fn set_shared_state(&mut self, key: &str, value: Option<SharedValue>) -> Result<Vec<Action>, SharedStateError> {
        if !self.shared.set(key, value.clone())? {
            return Ok(Vec::new());
        }
        Ok(self.account(vec![Action::Send {
            target: Target::All,
            message: Message::SharedStateSet { key: key.to_string(), value },
            reliable: true,
        }]))
    }

    /// Whether `publish_entities` is due at `now_s` ([`ENTITY_PUBLISH_INTERVAL_S`] after the
    /// last): the host builds its entity deltas only then.
    pub fn entities_due(&self, now_s: f64) -> bool {
        now_s - self.entities_published_s >= ENTITY_PUBLISH_INTERVAL_S
    }

    /// The host world's entity deltas now (its `snapshot`): every chunk whose deltas differ
    /// from the last published ones is sent to the players subscribed to it.
    pub fn publish_entities(&mut self, deltas: &EntityDeltas, now_s: f64) -> Vec<Action> {
        self.entities_published_s = now_s;
        let mut fresh: BTreeMap<ChunkCoord, ChunkEntityDeltas> = BTreeMap::new();
        for (c, keys) in &deltas.removed_spawns {
            fresh.entry(*c).or_default().removed_spawns = keys.iter().copied().collect();
        }
        for (c, records) in &deltas.records {
            fresh.entry(*c).or_default().records = records.clone();
        }
        fresh.retain(|_, d| !d.removed_spawns.is_empty() || !d.records.is_empty());
        let mut out = Vec::new();
        let chunks: std::collections::BTreeSet<ChunkCoord> =
            self.entities.keys().chain(fresh.keys()).copied().collect();
        for c in chunks {
            let now = fresh.get_mut(&c).map(|d| {
                d.records.sort_by(record_order);
                std::mem::take(d)
            });
            let now = match now {
                Some(d) => self.fit(c, d),
                None => ChunkEntityDeltas::default(),
            };
            if self.entities.get(&c).unwrap_or(&ChunkEntityDeltas::default()) == &now {
                continue;
            }
            self.stats.entity_updates += 1;
            let message = chunk_entities(c, &now);
            for (&peer, p) in &self.players {
                if p.interest.is_subscribed(c) {
                    out.push(Action::Send { target: Target::Peer(peer), message: message.clone(), reliable: true });
                }
            }
            if now == ChunkEntityDeltas::default() {
                self.entities.remove(&c);
            } else {
                self.entities.insert(c, now);
            }
        }
        self.account(out)
    }

    /// `d` cut to what one packet carries (the cut records are counted).
    fn fit(&mut self, c: ChunkCoord, mut d: ChunkEntityDeltas) -> ChunkEntityDeltas {
        d.removed_spawns.truncate(MAX_CHUNK_REMOVED_SPAWNS);
        let before = d.records.len();
        d.records.truncate(MAX_CHUNK_ENTITY_RECORDS);
        while !d.records.is_empty() && chunk_entities(c, &d).encode().len() > MAX_PACKET_BYTES {
            let keep = d.records.len() * 3 / 4;
            d.records.truncate(keep);
        }
        self.stats.entity_records_unsent += (before - d.records.len()) as u64;
        d
    }

    pub fn edits(&self) -> &EditMap {
        &self.edits
    }

    /// The number the next applied edit gets (= edits applied so far, saves included).
    pub fn next_order(&self) -> u64 {
        self.next_order
    }

    pub fn stats(&self) -> &ServerStats {
        &self.stats
    }

    pub fn player_count(&self) -> usize {
        self.players.len()
    }

    /// The connections that have joined (been welcomed), in order: what [`Target::All`] and
    /// [`Target::AllExcept`] mean. A connection that has not sent its `Hello` yet, or was
    /// refused, is not one of them: it is sent nothing before its `Welcome`.
    pub fn joined_peers(&self) -> impl Iterator<Item = PeerId> + '_ {
        self.players.keys().copied()
    }

    /// The player id of a joined connection.
    pub fn player_of(&self, peer: PeerId) -> Option<PlayerId> {
        self.players.get(&peer).map(|p| p.id)
    }

    /// Connection `peer` opened from `address` (as the transport spells it; "" unknown) at
    /// `now_s`: it has the join timeout to say `Hello`. Closed at once (told why) when its
    /// address already holds [`ConnectionLimits::max_per_address`] connections.
    pub fn peer_connected(&mut self, peer: PeerId, address: &str, now_s: f64) -> Vec<Action> {
        let limits = self.config.connections.clone();
        let out = match self.connections.connected(peer, address, now_s, &limits) {
            Ok(()) => Vec::new(),
            Err(e) => {
                self.stats.connections_refused += 1;
                self.refuse(peer, e.to_string())
            }
        };
        self.account(out)
    }

    /// Time passes (call it every frame): connections that have not joined within the join
    /// timeout are closed.
    pub fn tick(&mut self, now_s: f64) -> Vec<Action> {
        let limits = self.config.connections.clone();
        let late = self.connections.expire(now_s, &limits);
        self.stats.join_timeouts += late.len() as u64;
        let reason = ConnectionRefusal::JoinTimeout { timeout_s: limits.join_timeout_s }.to_string();
        late.into_iter().map(|peer| Action::Disconnect { peer, reason: reason.clone() }).collect()
    }

    /// Connections open but not joined (they do not count against `max_players`).
    pub fn pending_connections(&self) -> usize {
        self.connections.pending()
    }

    /// Connection `peer` is the host's own player: its poses are trusted and it is sent every
    /// edit and pose (its world is the server's). Set it before its `Hello`, or after.
    pub fn set_host_peer(&mut self, peer: PeerId) {
        if let Some(old) = self.host_peer.and_then(|p| self.players.get_mut(&p)) {
            old.host = false;
            old.interest.set_everything(false);
        }
        self.host_peer = Some(peer);
        if let Some(p) = self.players.get_mut(&peer) {
            p.host = true;
            p.interest.set_everything(true);
        }
    }

    /// How far player connection `peer` sees from now on (the default is the config's `view`);
    /// the subscriptions it no longer sees are released.
    pub fn set_view_radius(&mut self, peer: PeerId, view: ViewRadius) -> Vec<Action> {
        let Some(p) = self.players.get_mut(&peer) else { return Vec::new() };
        let released = p.interest.set_view(view);
        let out = self.released(peer, released);
        self.account(out)
    }

    /// The pose the server accepted last for player connection `peer`: where edits are
    /// measured from and what the others see.
    pub fn accepted_pose(&self, peer: PeerId) -> Option<Pose> {
        self.players.get(&peer).and_then(|p| p.movement.accepted())
    }

    /// The game moves player connection `peer` to `pose` (a respawn, a portal): it becomes the
    /// accepted pose, the player is told (`PoseCorrection`) and the others see it there.
    pub fn teleport(&mut self, peer: PeerId, pose: Pose, now_s: f64) -> Vec<Action> {
        let Some(p) = self.players.get_mut(&peer) else { return Vec::new() };
        p.movement.teleport(pose, now_s);
        p.settling_since = Some(now_s);
        let tick = p.tick.unwrap_or(0);
        let mut out = vec![Action::Send {
            target: Target::Peer(peer),
            message: Message::PoseCorrection { tick, pose },
            reliable: true,
        }];
        out.extend(self.accepted(peer, tick, pose, now_s));
        self.account(out)
    }

    /// A connection closed: the others are told if it had joined.
    pub fn peer_disconnected(&mut self, peer: PeerId) -> Vec<Action> {
        let out = self.disconnected(peer);
        self.stats.bytes_sent.remove(&peer);
        self.account(out)
    }

    fn disconnected(&mut self, peer: PeerId) -> Vec<Action> {
        self.waiting.retain(|(p, _)| *p != peer);
        self.connections.closed(peer);
        match self.players.remove(&peer) {
            Some(p) => {
                for other in self.players.values_mut() {
                    other.interest.forget(p.id);
                }
                vec![Action::Send {
                    target: Target::AllExcept(peer),
                    message: Message::PlayerLeft { player: p.id },
                    reliable: true,
                }]
            }
            None => Vec::new(),
        }
    }

    /// Handles one packet from `peer` at time `now_s` (seconds, any monotonic clock), with no
    /// voxels to check poses against (speeds only): see [`WorldServer::handle_packet_in`].
    pub fn handle_packet(&mut self, peer: PeerId, bytes: &[u8], now_s: f64) -> Vec<Action> {
        self.handle_packet_in(peer, bytes, now_s, &NoVoxels)
    }

    /// Handles one packet from `peer` at time `now_s` (seconds, any monotonic clock); a pose is
    /// checked against `world`'s solid voxels (the host's world).
    pub fn handle_packet_in(&mut self, peer: PeerId, bytes: &[u8], now_s: f64, world: &dyn SolidVoxels) -> Vec<Action> {
        self.connections.contact(peer, now_s);
        let out = self.packet(peer, bytes, now_s, world);
        self.account(out)
    }

    fn packet(&mut self, peer: PeerId, bytes: &[u8], now_s: f64, world: &dyn SolidVoxels) -> Vec<Action> {
        let message = match Message::decode(bytes) {
            Ok(m) => m,
            Err(e) => return self.drop_peer(peer, format!("malformed packet: {e}")),
        };
        if !message.is_from_client() {
            return self.drop_peer(peer, format!("a client may not send {}", message.kind()));
        }
        if !self.players.contains_key(&peer) {
            return match message {
                Message::Hello { protocol, name } => self.hello(peer, protocol, name),
                other => self.drop_peer(peer, format!("{} before Hello", other.kind())),
            };
        }
        match message {
            Message::Hello { .. } => self.drop_peer(peer, "a second Hello".into()),
            Message::EditRequest { request, pos, block } => self.edit(peer, request, pos, block, now_s),
            Message::ShapeEditRequest { request, shape, block } => self.shape_edit(peer, request, shape, block, now_s),
            Message::SubscribeChunk { chunk } => self.chunk_edits(peer, chunk),
            Message::SharedStateRequest { key, value } => self.state_request(peer, key, value, now_s),
            Message::PlayerState { tick, pose, .. } => self.pose(peer, tick, pose, now_s, world),
            Message::Chat { text, .. } => {
                let Some(p) = self.players.get(&peer) else { return Vec::new() };
                let text: String = text.chars().filter(|c| !c.is_control()).collect();
                if text.trim().is_empty() || text.len() > MAX_CHAT_BYTES {
                    return Vec::new();
                }
                vec![Action::Send {
                    target: Target::All,
                    message: Message::Chat { player: p.id, text },
                    reliable: true,
                }]
            }
            other => self.drop_peer(peer, format!("a client may not send {}", other.kind())),
        }
    }

    fn drop_peer(&mut self, peer: PeerId, reason: String) -> Vec<Action> {
        self.stats.peers_dropped += 1;
        let mut out = self.disconnected(peer);
        out.push(Action::Disconnect { peer, reason });
        out
    }

    fn refuse(&mut self, peer: PeerId, reason: String) -> Vec<Action> {
        self.connections.closed(peer);
        vec![
            Action::Send {
                target: Target::Peer(peer),
                message: Message::Refused { reason: reason.clone() },
                reliable: true,
            },
            Action::Disconnect { peer, reason },
        ]
    }

    fn hello(&mut self, peer: PeerId, protocol: u16, name: String) -> Vec<Action> {
        if protocol != PROTOCOL_VERSION {
            return self.refuse(
                peer,
                format!("this server speaks Strata protocol {PROTOCOL_VERSION}; the client speaks {protocol}: update the older one"),
            );
        }
        let valid_name = !name.trim().is_empty() && name.len() <= MAX_NAME_BYTES && !name.chars().any(char::is_control);
        if !valid_name {
            return self.refuse(
                peer,
                format!(
                    "player name {name:?} is not allowed; allowed: 1 to {MAX_NAME_BYTES} bytes, no control characters"
                ),
            );
        }
        if self.players.len() >= self.config.max_players {
            return self.refuse(peer, format!("the server is full ({} players)", self.config.max_players));
        }
        let id = self.next_player;
        self.next_player = self.next_player.wrapping_add(1).max(1);
        let mut out = vec![Action::Send {
            target: Target::Peer(peer),
            message: Message::Welcome {
                protocol: PROTOCOL_VERSION,
                player: id,
                preset: self.preset_ron.clone(),
                fingerprint: self.fingerprint.clone(),
                structures: self.structures.clone(),
                next_order: self.next_order,
                block_count: self.config.block_count.min(BlockId::MAX as usize + 1) as u32,
                view: self.config.view,
                shape: self.config.shape,
            },
            reliable: true,
        }];
        out.push(Action::Send {
            target: Target::Peer(peer),
            message: Message::SharedState {
                entries: self.shared.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
            },
            reliable: true,
        });
        for p in self.players.values() {
            out.push(Action::Send {
                target: Target::Peer(peer),
                message: Message::PlayerJoined { player: p.id, name: p.name.clone() },
                reliable: true,
            });
        }
        out.push(Action::Send {
            target: Target::AllExcept(peer),
            message: Message::PlayerJoined { player: id, name: name.clone() },
            reliable: true,
        });
        let tokens = self.config.edit_burst;
        let host = self.host_peer == Some(peer);
        let mut interest = Interest::in_shape(self.config.view, self.config.shape);
        interest.set_everything(host);
        self.players.insert(
            peer,
            Player {
                id,
                name,
                tick: None,
                movement: Movement::default(),
                corrected_s: f64::NEG_INFINITY,
                settling_since: None,
                host,
                tokens,
                last_refill_s: f64::NAN,
                state_tokens: self.config.state_request_burst,
                state_refill_s: f64::NAN,
                interest,
            },
        );
        self.connections.joined(peer);
        out
    }

    fn edit(&mut self, peer: PeerId, request: u32, pos: IVec3, block: u16, now_s: f64) -> Vec<Action> {
        let config = self.config.clone();
        let Some(p) = self.players.get_mut(&peer) else { return Vec::new() };
        let reject = |reason| {
            vec![Action::Send {
                target: Target::Peer(peer),
                message: Message::EditRejected { request, reason },
                reliable: true,
            }]
        };
        if !take_token(&mut p.tokens, &mut p.last_refill_s, now_s, config.edits_per_second, config.edit_burst) {
            self.stats.edits_rejected += 1;
            return reject(RejectReason::RateLimited);
        }
        let reach_from = p.movement.accepted().map(|pose| config.shape.reach_origin(pose.position));
        let reason = if !config.shape.holds_voxel(pos) {
            Some(RejectReason::OutOfBounds)
        } else if block as usize >= config.block_count {
            Some(RejectReason::UnknownBlock)
        } else if !reach_from.is_some_and(|eye| within_reach(eye, pos, config.reach)) {
            Some(RejectReason::OutOfReach)
        } else {
            None
        };
        if let Some(reason) = reason {
            self.stats.edits_rejected += 1;
            return reject(reason);
        }
        let player = p.id;
        self.edits.set(pos, block);
        let order = self.next_order;
        self.next_order += 1;
        self.stats.edits_applied += 1;
        let chunk = config.shape.chunk_of_voxel(pos);
        let message = Message::EditApplied { order, player, request, pos, block };
        let mut out = vec![Action::EditApplied { order, pos, block }];
        for (&to, p) in &self.players {
            if p.interest.wants_edit(chunk) {
                out.push(Action::Send { target: Target::Peer(to), message: message.clone(), reliable: true });
            }
        }
        out
    }

    /// A side view's shape edit: rate (one edit per 128 tiles), the shape (a side view's, at
    /// most `MAX_SHAPE_EDIT_TILES` tiles inside the world), block id, then every tile within
    /// reach; applied as one edit per tile, sent as the shape to every player that sees one of
    /// its chunks.
    fn shape_edit(&mut self, peer: PeerId, request: u32, shape: EditShape, block: u16, now_s: f64) -> Vec<Action> {
        let config = self.config.clone();
        let Some(p) = self.players.get_mut(&peer) else { return Vec::new() };
        let reject = |stats: &mut ServerStats, reason| {
            stats.edits_rejected += 1;
            vec![Action::Send {
                target: Target::Peer(peer),
                message: Message::EditRejected { request, reason },
                reliable: true,
            }]
        };
        let tiles = match shape.tiles() {
            Ok(t) if config.shape.is_side_view() => t,
            Ok(_) | Err(ShapeEditError::TooLarge { .. }) => return reject(&mut self.stats, RejectReason::BadShape),
            Err(ShapeEditError::Shape(_)) => return reject(&mut self.stats, RejectReason::OutOfBounds),
        };
        let cost = EditShape::cost(tiles.len());
        if !take_tokens(&mut p.tokens, &mut p.last_refill_s, now_s, config.edits_per_second, config.edit_burst, cost) {
            return reject(&mut self.stats, RejectReason::RateLimited);
        }
        let reach_from = p.movement.accepted().map(|pose| config.shape.reach_origin(pose.position));
        if block as usize >= config.block_count {
            return reject(&mut self.stats, RejectReason::UnknownBlock);
        }
        if !reach_from.is_some_and(|eye| tiles.iter().all(|t| within_reach(eye, *t, config.reach))) {
            return reject(&mut self.stats, RejectReason::OutOfReach);
        }
        let player = p.id;
        for t in &tiles {
            self.edits.set(*t, block);
        }
        let order = self.next_order;
        self.next_order += tiles.len() as u64;
        self.stats.edits_applied += tiles.len() as u64;
        let mut chunks: Vec<ChunkCoord> = tiles.iter().map(|t| config.shape.chunk_of_voxel(*t)).collect();
        chunks.dedup();
        chunks.sort_unstable_by_key(|c| (c.x, c.y, c.z));
        chunks.dedup();
        let message = Message::ShapeEditApplied { order, player, request, shape, block };
        let mut out = vec![Action::ShapeApplied { order, tiles, block }];
        for (&to, p) in &self.players {
            if chunks.iter().any(|c| p.interest.wants_edit(*c)) {
                out.push(Action::Send { target: Target::Peer(to), message: message.clone(), reliable: true });
            }
        }
        out
    }

    /// A client asks to set shared state `key`: rate, then bounds; a valid request goes to the
    /// host.
    fn state_request(&mut self, peer: PeerId, key: String, value: Option<SharedValue>, now_s: f64) -> Vec<Action> {
        let (rate, burst) = (self.config.state_requests_per_second, self.config.state_request_burst);
        let Some(p) = self.players.get_mut(&peer) else { return Vec::new() };
        let player = p.id;
        if !take_token(&mut p.state_tokens, &mut p.state_refill_s, now_s, rate, burst) {
            return self.refusal(
                peer,
                &key,
                &format!("too many shared state requests; allowed: {rate} a second ({burst} at once)"),
            );
        }
        // The state after it must keep the bounds (the key count; the decoder checked the rest).
        if let Err(e) = self.shared.clone().set(&key, value.clone()) {
            return self.refusal(peer, &key, &e.to_string());
        }
        self.stats.state_requests += 1;
        let writable = self.client_writable.contains(&key);
        vec![Action::SharedStateRequested { peer, player, key, value, writable }]
    }

    /// A pose from `peer`: the newest by tick is checked, then passed on or corrected.
    fn pose(&mut self, peer: PeerId, tick: u32, pose: Pose, now_s: f64, world: &dyn SolidVoxels) -> Vec<Action> {
        let (limits, shape) = (self.config.movement.clone(), self.config.shape);
        if !shape.holds_position(pose.position) {
            return self
                .drop_peer(peer, format!("a side view's poses lie at z = 0; this one's z is {}", pose.position[2]));
        }
        let Some(p) = self.players.get_mut(&peer) else { return Vec::new() };
        if p.tick.is_some_and(|last| is_older_tick(tick, last)) {
            return Vec::new();
        }
        p.tick = Some(tick);
        if p.host {
            p.movement.place(pose, &limits, now_s);
        } else if p.movement.check_in(shape, pose, now_s, &limits, world).is_err() {
            if p.settling_since.is_some_and(|since| now_s - since < SETTLE_S) {
                self.stats.stale_poses += 1;
                return Vec::new();
            }
            self.stats.poses_refused += 1;
            let Some(accepted) = p.movement.accepted() else { return Vec::new() };
            if now_s - p.corrected_s < CORRECTION_INTERVAL_S {
                return Vec::new();
            }
            p.corrected_s = now_s;
            p.settling_since = Some(now_s);
            self.stats.pose_corrections += 1;
            return vec![Action::Send {
                target: Target::Peer(peer),
                message: Message::PoseCorrection { tick, pose: accepted },
                reliable: true,
            }];
        }
        p.settling_since = None;
        self.accepted(peer, tick, pose, now_s)
    }

    /// `peer`'s pose `pose` of `tick` is accepted: its view follows, the others that see it
    /// are sent it.
    fn accepted(&mut self, peer: PeerId, tick: u32, pose: Pose, now_s: f64) -> Vec<Action> {
        let far = self.config.far_pose_interval_s;
        let Some(p) = self.players.get_mut(&peer) else { return Vec::new() };
        let player = p.id;
        let released = p.interest.moved_to(pose.position);
        let mut out = self.released(peer, released);
        let message = Message::PlayerState { player, tick, pose };
        for (&to, q) in self.players.iter_mut() {
            if to != peer && q.interest.wants_pose(player, pose.position, now_s, far) {
                out.push(Action::Send { target: Target::Peer(to), message: message.clone(), reliable: false });
            }
        }
        out
    }

    /// Tells `peer` its subscriptions to `chunks` are released (none waits any more).
    fn released(&mut self, peer: PeerId, chunks: Vec<ChunkCoord>) -> Vec<Action> {
        self.stats.chunks_released += chunks.len() as u64;
        self.waiting.retain(|(p, c)| *p != peer || !chunks.contains(c));
        chunks
            .into_iter()
            .map(|chunk| Action::Send {
                target: Target::Peer(peer),
                message: Message::ChunkReleased { chunk },
                reliable: true,
            })
            .collect()
    }

    /// Counts the bytes each connection is sent by `out`.
    fn account(&mut self, out: Vec<Action>) -> Vec<Action> {
        // An edit or a pose goes out as one send per player that wants it, one after another:
        // measured once.
        let mut last: Option<(&Message, u64)> = None;
        for a in &out {
            let Action::Send { target, message, .. } = a else { continue };
            let len = match last {
                Some((m, len)) if m == message => len,
                _ => {
                    let len = message.encode().len() as u64;
                    last = Some((message, len));
                    len
                }
            };
            let mut add = |peer: PeerId| *self.stats.bytes_sent.entry(peer).or_default() += len;
            match *target {
                Target::Peer(p) => add(p),
                Target::All => self.players.keys().for_each(|&p| add(p)),
                Target::AllExcept(x) => self.players.keys().filter(|&&p| p != x).for_each(|&p| add(p)),
            }
        }
        out
    }

    fn chunk_edits(&mut self, peer: PeerId, chunk: ChunkCoord) -> Vec<Action> {
        if !self.config.shape.holds_chunk(chunk) {
            return Vec::new();
        }
        if self.players.get(&peer).is_some_and(|p| !p.interest.may_subscribe(chunk)) {
            return self.released(peer, vec![chunk]);
        }
        if self.world_flows_water {
            let mine = self.waiting.iter().filter(|(p, _)| *p == peer).count();
            if mine < MAX_WAITING_SUBSCRIPTIONS && !self.waiting.contains(&(peer, chunk)) {
                self.waiting.push((peer, chunk));
            }
            return Vec::new();
        }
        let edits = std::mem::take(&mut self.edits);
        let out = self.snapshot(peer, chunk, &edits);
        self.edits = edits;
        out
    }

    /// Chunk `chunk`'s snapshot from `world` (and its entity deltas) for `peer`, which is
    /// subscribed to the chunk from now on.
    fn snapshot(&mut self, peer: PeerId, chunk: ChunkCoord, world: &EditMap) -> Vec<Action> {
        let shape = self.config.shape;
        let (min, size) = shape.chunk_box(chunk);
        if let Some(p) = self.players.get_mut(&peer) {
            p.interest.subscribe(chunk);
        }
        let mut edits: Vec<(u16, u16)> =
            world.edits_in_box(min, size).into_iter().map(|(p, b)| (shape.local_index(min, p), b)).collect();
        edits.sort_unstable_by_key(|e| e.0);
        self.stats.snapshots_sent += 1;
        let mut out = vec![Action::Send {
            target: Target::Peer(peer),
            message: Message::ChunkEdits { chunk, order: self.next_order, edits },
            reliable: true,
        }];
        if let Some(d) = self.entities.get(&chunk) {
            out.push(Action::Send { target: Target::Peer(peer), message: chunk_entities(chunk, d), reliable: true });
        }
        out
    }
}

/// The message that carries chunk `c`'s entity deltas `d`.
fn chunk_entities(c: ChunkCoord, d: &ChunkEntityDeltas) -> Message {
    Message::ChunkEntities { chunk: c, removed_spawns: d.removed_spawns.clone(), records: d.records.clone() }
}

/// A fixed order of records: by scene, then position.
fn record_order(a: &EntityRecord, b: &EntityRecord) -> std::cmp::Ordering {
    a.scene.cmp(&b.scene).then_with(|| {
        a.position
            .iter()
            .zip(&b.position)
            .map(|(x, y)| x.total_cmp(y))
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
    })
}

/// Takes one token from a bucket refilled at `rate` a second up to `burst` (a clock going
/// backwards refills nothing); false when it is empty.
fn take_token(tokens: &mut f64, last_refill_s: &mut f64, now_s: f64, rate: f64, burst: f64) -> bool {
    take_tokens(tokens, last_refill_s, now_s, rate, burst, 1.0)
}

/// Takes `cost` tokens from the bucket (see [`take_token`]); false, taking none, when it holds
/// fewer.
fn take_tokens(tokens: &mut f64, last_refill_s: &mut f64, now_s: f64, rate: f64, burst: f64, cost: f64) -> bool {
    if last_refill_s.is_finite() && now_s > *last_refill_s {
        *tokens = (*tokens + (now_s - *last_refill_s) * rate).min(burst);
    }
    if now_s.is_finite() {
        *last_refill_s = now_s;
    }
    if *tokens < cost {
        return false;
    }
    *tokens -= cost;
    true
}

/// Whether pose tick `tick` comes before `last` (ticks wrap around).
fn is_older_tick(tick: u32, last: u32) -> bool {
    (tick.wrapping_sub(last) as i32) < 0
}

/// Whether voxel `p`'s centre is within `reach` of `eye`.
fn within_reach(eye: [f64; 3], p: IVec3, reach: f64) -> bool {
    let d = [f64::from(p.x) + 0.5 - eye[0], f64::from(p.y) + 0.5 - eye[1], f64::from(p.z) + 0.5 - eye[2]];
    d.iter().map(|v| v * v).sum::<f64>() <= reach * reach
}
