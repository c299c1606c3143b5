//! A client of a shared world, as a state machine: packets in, events and packets out.
//!
//! It says `Hello`, checks the `Welcome` (protocol, and that the preset it carries rebuilds here
//! with the server's fingerprint: a mismatch is a clear error, never a wrong world), then keeps
//! a copy of the server's edits: every `EditApplied` in order (an order number out of sequence
//! is a broken connection, reported), and a `ChunkEdits` snapshot per chunk it subscribes to as
//! that chunk streams in, which brings a late joiner everything edited before it came: the
//! chunk's voxels that differ from generation in the server's world, its water included
//! ([`ClientEvent::ChunkSnapshot`]: the game sets the chunk to exactly these without flowing
//! them, and flows the edits that follow, as the server does). Other
//! players' poses are kept with their arrival times and interpolated ([`WorldClient::pose_of`]).
//! The server's entity deltas of each synced chunk (`ChunkEntities`, every record inside the
//! chunk: a side view's chunk is its square of tiles) replace that chunk's in
//! [`WorldClient::entity_deltas`]: the game makes its objects there match them (the client's
//! own spawn rules start the rest). Deltas of a chunk not synced yet are left out: its
//! subscription brings the newer ones.
//!
//! The shared game state comes whole after the welcome (`SharedState`, replacing what was held)
//! and then one change at a time (`SharedStateSet`), each reported as
//! [`ClientEvent::SharedStateChanged`]. A client may ask the server for a change
//! ([`WorldClient::request_shared_state`], checked here with the same bounds first); a refusal
//! comes back as [`ClientEvent::SharedStateRefused`], an applied change as any other.
//!
//! Every request is checked here against the bounds the server keeps before it is encoded (a
//! name, a chat line cut to [`MAX_CHAT_BYTES`], an edit inside the world with a block of the
//! server's library, a finite pose inside the world, a shared state key and value): a request
//! out of bounds is a [`RequestError`] naming the value and what is allowed, never a packet
//! the server would drop the player for. The server sends edits only of the chunks in the
//! player's view or subscribed to (so edit numbers skip the others'); a chunk it releases
//! ([`ClientEvent::ChunkReleased`]) is no longer synced and is subscribed again once in view
//! ([`WorldClient::resubscriptions`]). A pose the server refused comes back as the server's
//! ([`ClientEvent::PoseCorrected`]): the game moves its player there.
//!
//! The welcome names the kind of world ([`WorldClient::world_shape`]): in a side view tiles,
//! chunks and poses lie at z = 0 (requests elsewhere are errors here), chunk snapshots index the
//! side view's square chunks, and shape edits ([`WorldClient::request_shape_edit`]) travel as
//! shapes: an applied one brings all its tiles in one [`ClientEvent::VoxelsChanged`] (write them
//! as one batch, as the server's host does) and a [`ClientEvent::ShapeApplied`].
//!
//! May use: `base`, `preset`, `persist::entities`, `net::protocol`, `net::shared_state`,
//! `net::world_shape`.

use crate::base::block::BlockId;
use crate::base::coords::{ChunkCoord, IVec3, WORLD_LIMIT_VOXELS};
use crate::base::edits::EditMap;
use crate::net::protocol::{
    MAX_CHAT_BYTES, MAX_EYE_HEIGHT, MAX_NAME_BYTES, Message, PROTOCOL_VERSION, PlayerId, Pose, RejectReason,
    ViewRadius, split_batch,
};
use crate::net::shared_state::{SharedState, SharedValue};
use crate::net::world_shape::{EditShape, ShapeEditError, WorldShape};
use crate::persist::entities::EntityDeltas;
use crate::preset::error::PresetError;
use crate::preset::fingerprint::{fingerprint, preset_from_sparse_ron};
use crate::preset::model::WorldPreset;
use std::collections::{BTreeMap, HashSet, VecDeque};
use thiserror::Error;

/// Why a client gave up on its connection.
#[derive(Debug, Error)]
pub enum ClientError {
    #[error("malformed packet from the server: {0}")]
    Malformed(#[from] crate::net::protocol::DecodeError),
    #[error("the server refused to let us join: {0}")]
    Refused(String),
    #[error("the server speaks Strata protocol {server}; this client speaks {PROTOCOL_VERSION}")]
    Protocol { server: u16 },
    #[error("the server's preset does not load here: {0}")]
    Preset(#[from] PresetError),
    #[error(
        "the server's world has fingerprint {server} but rebuilds here as {local}: the two builds of Strata generate different worlds"
    )]
    Fingerprint { server: String, local: String },
    #[error(
        "the server's world places its own structures with fingerprint {server:?} but this world's are {local:?} (\"\" is none): give both worlds the same `ChunkWorld.structures`"
    )]
    Structures { server: String, local: String },
    #[error("edit number {got} arrived after {}: the connection reordered or repeated an edit", expected.saturating_sub(1))]
    OutOfOrder { expected: u64, got: u64 },
    #[error("the server's shared state: {0}")]
    SharedState(crate::net::shared_state::SharedStateError),
    #[error("the server sent {0} before Welcome")]
    BeforeWelcome(&'static str),
    #[error(
        "the server's snapshot of chunk {chunk:?} names local index {index}; allowed: below {volume} in this world"
    )]
    SnapshotIndex { chunk: ChunkCoord, index: u16, volume: usize },
    #[error("the server applied a shape edit that is not one here: {0}")]
    BadShape(ShapeEditError),
    #[error("the server's entities of chunk {chunk:?} hold one at {position:?}; allowed: positions inside that chunk")]
    EntityOutsideChunk { chunk: ChunkCoord, position: [f64; 3] },
}

/// Why a request was not sent: it is outside the bounds the server keeps (it would be refused,
/// or the player dropped for it).
#[derive(Clone, Debug, Error, PartialEq)]
pub enum RequestError {
    #[error("player name {name:?} is not allowed; allowed: 1 to {MAX_NAME_BYTES} bytes, no control characters")]
    BadName { name: String },
    #[error("chat line {text:?} has nothing to show; allowed: at least one visible character")]
    EmptyChat { text: String },
    #[error("voxel {pos:?} is outside the world; allowed: coordinates from -{WORLD_LIMIT_VOXELS} to {}, and z = 0 in a side view", WORLD_LIMIT_VOXELS - 1)]
    OutsideWorld { pos: IVec3 },
    #[error("a shape edit is not allowed here: {0} (side views only)")]
    BadShape(ShapeEditError),
    #[error("shape edits are made in side views only; this world is 3D")]
    NotSideView,
    #[error("block {block} is not a block of the server's world; allowed: 0 to {}", block_count.saturating_sub(1))]
    UnknownBlock { block: BlockId, block_count: u32 },
    #[error(
        "pose {pose:?} is not allowed; allowed: finite numbers, a position inside the world's bounds, an eye height of 0 to {MAX_EYE_HEIGHT} voxels"
    )]
    BadPose { pose: Pose },
    #[error("pose {pose:?} is not in the side view's plane; allowed: z = 0")]
    OffPlane { pose: Pose },
    #[error(transparent)]
    SharedState(#[from] crate::net::shared_state::SharedStateError),
}

/// Seconds before a released chunk is asked for again (it may be released again while the
/// server has an older pose of ours).
pub const RESUBSCRIBE_DELAY_S: f64 = 1.0;

/// What happened, for the game.
#[derive(Clone, Debug, PartialEq)]
pub enum ClientEvent {
    /// Joined as `player`: generate `preset` (seed included).
    Joined {
        player: PlayerId,
        preset: Box<WorldPreset>,
    },
    /// These voxels changed (an applied edit: flow its water).
    VoxelsChanged {
        positions: Vec<IVec3>,
    },
    /// The server's snapshot of `chunk`: `voxels` are every voxel of the chunk that differs from
    /// generation in the server's world (edits and the water their flows placed), with the
    /// water of every edit numbered below `order` settled. Set the chunk to exactly these (every
    /// other voxel of it back to generation) without flowing them, once this peer's own water
    /// is settled; later edits are flowed as they come.
    ChunkSnapshot {
        chunk: ChunkCoord,
        order: u64,
        voxels: Vec<(IVec3, BlockId)>,
    },
    /// A shape edit numbered `order` on (one number per tile) was applied: `player`'s request
    /// `request` set the `tiles` tiles of `shape` to `block` (it follows their `VoxelsChanged`).
    ShapeApplied {
        order: u64,
        player: PlayerId,
        request: u32,
        shape: EditShape,
        block: BlockId,
        tiles: usize,
    },
    /// Edit number `order` was applied: `player`'s request `request` set `pos` to `block` (it
    /// follows the `VoxelsChanged` of the same edit). A late joiner hears of the edits applied
    /// after its welcome; earlier ones come inside chunk snapshots.
    Applied {
        order: u64,
        player: PlayerId,
        request: u32,
        pos: IVec3,
        block: BlockId,
    },
    Rejected {
        request: u32,
        reason: RejectReason,
    },
    PlayerJoined {
        player: PlayerId,
        name: String,
    },
    PlayerLeft {
        player: PlayerId,
    },
    Chat {
        player: PlayerId,
        text: String,
    },
    /// The server's entity deltas of `chunk` changed (see [`WorldClient::entity_deltas`]).
    EntitiesChanged {
        chunk: ChunkCoord,
    },
    /// Shared state `key` is now `value` (`None`: erased).
    SharedStateChanged {
        key: String,
        value: Option<SharedValue>,
    },
    /// The server refused our request to set shared state `key`, for `reason`.
    SharedStateRefused {
        key: String,
        reason: String,
    },
    /// The server did not accept our pose of `tick` (or the game moved us): we are at `pose`.
    /// Move the player there; the next poses go on from it.
    PoseCorrected {
        tick: u32,
        pose: Pose,
    },
    /// The server no longer sends `chunk`'s edits: it is not synced any more
    /// ([`WorldClient::resubscriptions`] asks for it again once in view).
    ChunkReleased {
        chunk: ChunkCoord,
    },
}

/// Poses kept per remote player for interpolation.
const POSE_HISTORY: usize = 8;

#[derive(Clone, Debug, Default)]
struct RemotePlayer {
    name: String,
    /// (arrival time in seconds, pose), oldest first.
    poses: VecDeque<(f64, Pose)>,
}

/// See the module docs.
pub struct WorldClient {
    name: String,
    player: Option<PlayerId>,
    edits: EditMap,
    next_order: u64,
    next_request: u32,
    players: BTreeMap<PlayerId, RemotePlayer>,
    /// Chunks whose snapshot arrived: every edit of theirs is known here.
    synced: HashSet<ChunkCoord>,
    /// The server's entity deltas of the synced chunks.
    entities: EntityDeltas,
    /// The fingerprint of this world's own structures, checked against the server's.
    structures: String,
    /// The server's shared game state as far as it reached us.
    shared: SharedState,
    /// The server's block ids: `0..block_count` (from the welcome).
    block_count: u32,
    /// How far the server sends us edits (from the welcome).
    view: ViewRadius,
    /// Chunks the server released, with when they were last asked for (or released).
    released: BTreeMap<ChunkCoord, f64>,
    /// The last pose correction: (our tick it answered, the server's pose).
    correction: Option<(u32, Pose)>,
    /// The kind of world (from the welcome).
    shape: WorldShape,
}

impl WorldClient {
    pub fn new(name: &str) -> Self {
        Self {
            name: name.to_string(),
            player: None,
            edits: EditMap::new(),
            next_order: 0,
            next_request: 0,
            players: BTreeMap::new(),
            synced: HashSet::new(),
            entities: EntityDeltas::default(),
            structures: String::new(),
            shared: SharedState::default(),
            block_count: BlockId::MAX as u32 + 1,
            view: ViewRadius::default(),
            released: BTreeMap::new(),
            correction: None,
            shape: WorldShape::Voxels,
        }
    }

    /// The kind of world the server's welcome named (a 3D world before it).
    pub fn world_shape(&self) -> WorldShape {
        self.shape
    }

    /// How far the server sends us edits, as its welcome said.
    pub fn view_radius(&self) -> ViewRadius {
        self.view
    }

    /// The last pose correction: the tick of ours it answered and where the server has us.
    pub fn last_correction(&self) -> Option<(u32, Pose)> {
        self.correction
    }

    /// Subscriptions to ask for again at `now_s` for our eye at `eye`: the chunks the server
    /// released that are in view again, each at most every [`RESUBSCRIBE_DELAY_S`].
    pub fn resubscriptions(&mut self, eye: [f64; 3], now_s: f64) -> Vec<Vec<u8>> {
        let center = self.shape.chunk_of_point(eye);
        let view = self.view;
        let mut out = Vec::new();
        for (chunk, asked) in self.released.iter_mut() {
            if view.contains(center, *chunk, 0) && now_s - *asked >= RESUBSCRIBE_DELAY_S {
                *asked = now_s;
                out.push(Message::SubscribeChunk { chunk: *chunk }.encode());
            }
        }
        out
    }

    /// `chunk` streamed out here: it is no longer synced, nor asked for again.
    pub fn forget_chunk(&mut self, chunk: ChunkCoord) {
        self.synced.remove(&chunk);
        self.released.remove(&chunk);
    }

    /// The server's shared game state as far as it reached us.
    pub fn shared_state(&self) -> &SharedState {
        &self.shared
    }

    /// The fingerprint of the world's own structures here ("" for none, the default): joining
    /// fails with [`ClientError::Structures`] when the server's differs.
    pub fn set_structures_fingerprint(&mut self, structures: &str) {
        self.structures = structures.to_string();
    }

    /// The server's entity deltas as far as they reached us (synced chunks only): per chunk,
    /// the spawn keys no longer at their spawn and the objects standing there that are not.
    pub fn entity_deltas(&self) -> &EntityDeltas {
        &self.entities
    }

    /// The first packet to send; a name the server would refuse is an error here.
    pub fn hello(&self) -> Result<Vec<u8>, RequestError> {
        let n = &self.name;
        if n.trim().is_empty() || n.len() > MAX_NAME_BYTES || n.chars().any(char::is_control) {
            return Err(RequestError::BadName { name: n.clone() });
        }
        Ok(Message::Hello { protocol: PROTOCOL_VERSION, name: n.clone() }.encode())
    }

    /// Our player id once joined.
    pub fn player(&self) -> Option<PlayerId> {
        self.player
    }

    /// The number the next applied edit will carry: every edit numbered below it is known here.
    pub fn next_order(&self) -> u64 {
        self.next_order
    }

    /// True once the server's snapshot of `chunk` arrived (after [`WorldClient::subscribe`]):
    /// from then on every edit of that chunk is known here.
    pub fn is_chunk_synced(&self, chunk: ChunkCoord) -> bool {
        self.synced.contains(&chunk)
    }

    /// The server's edits as far as they reached us.
    pub fn edits(&self) -> &EditMap {
        &self.edits
    }

    /// Names of the other players.
    pub fn players(&self) -> impl Iterator<Item = (PlayerId, &str)> {
        self.players.iter().map(|(id, p)| (*id, p.name.as_str()))
    }

    /// A request to set `pos` to `block`, and the request's number (echoed by the answer):
    /// `pos` inside the world, `block` one of the server's (reach and rate are the server's).
    pub fn request_edit(&mut self, pos: IVec3, block: BlockId) -> Result<(u32, Vec<u8>), RequestError> {
        if !self.shape.holds_voxel(pos) {
            return Err(RequestError::OutsideWorld { pos });
        }
        if block as u32 >= self.block_count {
            return Err(RequestError::UnknownBlock { block, block_count: self.block_count });
        }
        let request = self.next_request;
        self.next_request = self.next_request.wrapping_add(1);
        Ok((request, Message::EditRequest { request, pos, block }.encode()))
    }

    /// A side view's request to set every tile of `shape` to `block` as one edit, and the
    /// request's number: the shape inside the world with at most 4,096 tiles, `block` one of the
    /// server's (reach and rate are the server's).
    pub fn request_shape_edit(&mut self, shape: EditShape, block: BlockId) -> Result<(u32, Vec<u8>), RequestError> {
        if !self.shape.is_side_view() {
            return Err(RequestError::NotSideView);
        }
        shape.tiles().map_err(RequestError::BadShape)?;
        if block as u32 >= self.block_count {
            return Err(RequestError::UnknownBlock { block, block_count: self.block_count });
        }
        let request = self.next_request;
        self.next_request = self.next_request.wrapping_add(1);
        Ok((request, Message::ShapeEditRequest { request, shape, block }.encode()))
    }

    /// Asks for the edits of a chunk that streamed in.
    pub fn subscribe(&self, chunk: ChunkCoord) -> Vec<u8> {
        Message::SubscribeChunk { chunk }.encode()
    }

    /// Our pose for the others (send unreliably, a few times a second): finite numbers, a
    /// position inside the world.
    pub fn pose_packet(&self, tick: u32, pose: Pose) -> Result<Vec<u8>, RequestError> {
        if !pose.is_valid() {
            return Err(RequestError::BadPose { pose });
        }
        if !self.shape.holds_position(pose.position) {
            return Err(RequestError::OffPlane { pose });
        }
        Ok(Message::PlayerState { player: self.player.unwrap_or(0), tick, pose }.encode())
    }

    /// A request that the server set shared state `key` to `value` (`None`: erase it), checked
    /// first with the bounds the server keeps (key 1 to 64 bytes, finite numbers, text and bytes
    /// at most 512).
    pub fn request_shared_state(
        &self,
        key: &str,
        value: Option<SharedValue>,
    ) -> Result<Vec<u8>, crate::net::shared_state::SharedStateError> {
        crate::net::shared_state::check_key(key)?;
        if let Some(v) = &value {
            v.check(key)?;
        }
        Ok(Message::SharedStateRequest { key: key.to_string(), value }.encode())
    }

    /// A chat line: cut to [`MAX_CHAT_BYTES`] at a character boundary; one with nothing to
    /// show (the server drops control characters) is an error.
    pub fn chat_packet(&self, text: &str) -> Result<Vec<u8>, RequestError> {
        if text.chars().all(|c| c.is_whitespace() || c.is_control()) {
            return Err(RequestError::EmptyChat { text: text.to_string() });
        }
        let mut cut = text.len().min(MAX_CHAT_BYTES);
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        Ok(Message::Chat { player: self.player.unwrap_or(0), text: text[..cut].to_string() }.encode())
    }

    /// Handles one packet from the server that arrived at `now_s`. An error means the connection
    /// cannot go on (close it and tell the player the message).
    pub fn handle_packet(&mut self, bytes: &[u8], now_s: f64) -> Result<Vec<ClientEvent>, ClientError> {
        let mut events = Vec::new();
        for message in split_batch(bytes)? {
            events.extend(self.handle_message(message, now_s)?);
        }
        Ok(events)
    }

    /// One message of the server's (a packet, or one message of a batch).
    pub fn handle_message(&mut self, bytes: &[u8], now_s: f64) -> Result<Vec<ClientEvent>, ClientError> {
        let message = Message::decode(bytes)?;
        if self.player.is_none() {
            return match message {
                Message::Welcome {
                    protocol,
                    player,
                    preset,
                    fingerprint: server,
                    structures,
                    next_order,
                    block_count,
                    view,
                    shape,
                } => {
                    if protocol != PROTOCOL_VERSION {
                        return Err(ClientError::Protocol { server: protocol });
                    }
                    let preset = preset_from_sparse_ron(&preset, "the server's preset")?;
                    let local = fingerprint(&preset);
                    if local != server {
                        return Err(ClientError::Fingerprint { server, local });
                    }
                    if structures != self.structures {
                        return Err(ClientError::Structures { server: structures, local: self.structures.clone() });
                    }
                    self.player = Some(player);
                    self.next_order = next_order;
                    self.block_count = block_count;
                    self.view = view;
                    self.shape = shape;
                    Ok(vec![ClientEvent::Joined { player, preset: Box::new(preset) }])
                }
                Message::Refused { reason } => Err(ClientError::Refused(reason)),
                // Poses travel unreliably on a channel of their own, which ENet does not order
                // against the reliable one: the others' first poses may overtake the Welcome.
                // They are transient, so one before the Welcome is dropped.
                Message::PlayerState { .. } => Ok(Vec::new()),
                other => Err(ClientError::BeforeWelcome(other.kind())),
            };
        }
        Ok(match message {
            Message::EditApplied { order, player, request, pos, block } => {
                // The edits of chunks out of our view are not sent: numbers skip, never go back.
                if order < self.next_order {
                    return Err(ClientError::OutOfOrder { expected: self.next_order, got: order });
                }
                self.next_order = order + 1;
                self.edits.set(pos, block);
                vec![
                    ClientEvent::VoxelsChanged { positions: vec![pos] },
                    ClientEvent::Applied { order, player, request, pos, block },
                ]
            }
            Message::ShapeEditApplied { order, player, request, shape, block } => {
                if order < self.next_order {
                    return Err(ClientError::OutOfOrder { expected: self.next_order, got: order });
                }
                let tiles = shape.tiles().map_err(ClientError::BadShape)?;
                self.next_order = order + tiles.len() as u64;
                for t in &tiles {
                    self.edits.set(*t, block);
                }
                let count = tiles.len();
                vec![
                    ClientEvent::VoxelsChanged { positions: tiles },
                    ClientEvent::ShapeApplied { order, player, request, shape, block, tiles: count },
                ]
            }
            Message::ChunkEdits { chunk, order, edits } => {
                let volume = self.shape.chunk_volume();
                if let Some(&(index, _)) = edits.iter().find(|(i, _)| *i as usize >= volume) {
                    return Err(ClientError::SnapshotIndex { chunk, index, volume });
                }
                let (min, size) = self.shape.chunk_box(chunk);
                let old: Vec<IVec3> = self.edits.edits_in_box(min, size).into_iter().map(|e| e.0).collect();
                for p in &old {
                    self.edits.clear_at(*p);
                }
                let mut voxels = Vec::with_capacity(edits.len());
                for (i, b) in edits {
                    let p = self.shape.voxel_at(chunk, i);
                    self.edits.set(p, b);
                    voxels.push((p, b));
                }
                self.synced.insert(chunk);
                self.released.remove(&chunk);
                self.next_order = self.next_order.max(order);
                vec![ClientEvent::ChunkSnapshot { chunk, order, voxels }]
            }
            Message::EditRejected { request, reason } => vec![ClientEvent::Rejected { request, reason }],
            Message::PlayerState { player, pose, .. } => {
                let p = self.players.entry(player).or_default();
                p.poses.push_back((now_s, pose));
                while p.poses.len() > POSE_HISTORY {
                    p.poses.pop_front();
                }
                Vec::new()
            }
            Message::PlayerJoined { player, name } => {
                self.players.entry(player).or_default().name = name.clone();
                vec![ClientEvent::PlayerJoined { player, name }]
            }
            Message::PlayerLeft { player } => {
                self.players.remove(&player);
                vec![ClientEvent::PlayerLeft { player }]
            }
            Message::Chat { player, text } => vec![ClientEvent::Chat { player, text }],
            Message::ChunkEntities { chunk, removed_spawns, records } => {
                if !self.synced.contains(&chunk) {
                    return Ok(Vec::new());
                }
                if let Some(r) = records.iter().find(|r| self.shape.chunk_of_object(r.position) != chunk) {
                    return Err(ClientError::EntityOutsideChunk { chunk, position: r.position });
                }
                if removed_spawns.is_empty() {
                    self.entities.removed_spawns.remove(&chunk);
                } else {
                    self.entities.removed_spawns.insert(chunk, removed_spawns.into_iter().collect());
                }
                if records.is_empty() {
                    self.entities.records.remove(&chunk);
                } else {
                    self.entities.records.insert(chunk, records);
                }
                vec![ClientEvent::EntitiesChanged { chunk }]
            }
            Message::SharedState { entries } => {
                let mut events: Vec<ClientEvent> = self
                    .shared
                    .iter()
                    .filter(|(k, _)| !entries.iter().any(|(e, _)| e == k))
                    .map(|(k, _)| ClientEvent::SharedStateChanged { key: k.to_string(), value: None })
                    .collect();
                for (key, value) in &entries {
                    if self.shared.get(key) != Some(value) {
                        events.push(ClientEvent::SharedStateChanged { key: key.clone(), value: Some(value.clone()) });
                    }
                }
                // The decoder checked each key and value; the count fits too.
                self.shared = SharedState::from_entries(entries).map_err(ClientError::SharedState)?;
                events
            }
            Message::SharedStateSet { key, value } => {
                if !self.shared.set(&key, value.clone()).map_err(ClientError::SharedState)? {
                    return Ok(Vec::new());
                }
                vec![ClientEvent::SharedStateChanged { key, value }]
            }
            Message::SharedStateRefused { key, reason } => vec![ClientEvent::SharedStateRefused { key, reason }],
            Message::PoseCorrection { tick, pose } => {
                self.correction = Some((tick, pose));
                vec![ClientEvent::PoseCorrected { tick, pose }]
            }
            Message::ChunkReleased { chunk } => {
                self.synced.remove(&chunk);
                self.released.insert(chunk, now_s);
                vec![ClientEvent::ChunkReleased { chunk }]
            }
            Message::Refused { reason } => return Err(ClientError::Refused(reason)),
            // Client-to-server messages or a second welcome from a server: ignored.
            _ => Vec::new(),
        })
    }

    /// Where `player` is at render time `t_s`: linear between the two poses around `t_s`
    /// (render a little in the past, e.g. 100 ms, to always have two), the newest past the end.
    pub fn pose_of(&self, player: PlayerId, t_s: f64) -> Option<Pose> {
        let poses = &self.players.get(&player)?.poses;
        let (&(t_last, last), _) = (poses.back()?, ());
        if t_s >= t_last || poses.len() == 1 {
            return Some(last);
        }
        let after = poses.iter().position(|(t, _)| *t >= t_s).unwrap_or(poses.len() - 1);
        if after == 0 {
            return Some(poses[0].1);
        }
        let ((t0, a), (t1, b)) = (poses[after - 1], poses[after]);
        let f = if t1 > t0 { ((t_s - t0) / (t1 - t0)).clamp(0.0, 1.0) as f32 } else { 1.0 };
        let lerp = |x: f32, y: f32| x + (y - x) * f;
        let lerp64 = |x: f64, y: f64| x + (y - x) * f64::from(f);
        // Yaw turns the short way round.
        let turn = (b.yaw - a.yaw + std::f32::consts::PI).rem_euclid(std::f32::consts::TAU) - std::f32::consts::PI;
        Some(Pose {
            position: [
                lerp64(a.position[0], b.position[0]),
                lerp64(a.position[1], b.position[1]),
                lerp64(a.position[2], b.position[2]),
            ],
            yaw: a.yaw + turn * f,
            pitch: lerp(a.pitch, b.pitch),
            eye_height: lerp(a.eye_height, b.eye_height),
        })
    }
}
