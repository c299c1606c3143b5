//! The wire format of shared worlds: a packet is one [`Message`], a tag byte then its fields,
//! or a batch of them ([`pack_batches`], [`split_batch`]: what the server sends each peer in a
//! frame).
//!
//! Integers are LEB128 varints (signed ones zigzag), floats little-endian `f32`, strings a varint
//! length then UTF-8. A single-voxel edit request takes 7 to 24 bytes, the broadcast of an applied
//! edit 8 to 40 (typically 10 to 16: [`tests`] pins the bounds). The decoder trusts nothing:
//! every length is checked against its limit and the bytes left before anything is allocated,
//! a packet must be consumed exactly, and every error names what was read, where and what is
//! allowed (law: Clear errors). It never panics, whatever the bytes (fuzzed in the tests).
//!
//! May use: `base`, `persist::entities` (the entity record a chunk's entity deltas carry),
//! `net::shared_state` (the shared game state's values and bounds), `net::world_shape` (the kind
//! of world and its shape edits).

use crate::base::block::BlockId;
use crate::base::byte_codec::{ByteReader, ReadError, put_bytes, put_f32, put_str, put_varint, put_zigzag};
use crate::base::coords::{ChunkCoord, IVec3};
use crate::base::shapes::MAX_SHAPE_RADIUS;
use crate::net::shared_state::{MAX_SHARED_KEY_BYTES, MAX_SHARED_KEYS, MAX_SHARED_VALUE_BYTES, SharedValue};
use crate::net::world_shape::{EditShape, MAX_CHUNK_TILES, MIN_CHUNK_TILES, WorldShape};
use crate::persist::entities::{
    EntityRecord, MAX_SCENE_PATH_BYTES, RecordError, RecordPart, RecordPositions, put_record, read_record, scene_table,
};
use thiserror::Error;

/// The protocol spoken; a peer speaking another is refused with both numbers named.
pub const PROTOCOL_VERSION: u16 = 10;
/// The largest packet accepted (a welcome carries the preset).
pub const MAX_PACKET_BYTES: usize = 128 * 1024;
/// The longest player name, in bytes.
pub const MAX_NAME_BYTES: usize = 32;
/// The longest chat line, in bytes.
pub const MAX_CHAT_BYTES: usize = 256;
/// The longest preset text a welcome carries, in bytes.
pub const MAX_PRESET_BYTES: usize = 64 * 1024;
/// The longest free-text reason (refusals, disconnects), in bytes.
pub const MAX_REASON_BYTES: usize = 512;
/// The most edits one chunk snapshot carries: one per voxel of a chunk.
pub const MAX_CHUNK_EDITS: usize = 32 * 32 * 32;
/// The most removed spawn keys one chunk's entity deltas carry.
pub const MAX_CHUNK_REMOVED_SPAWNS: usize = 4096;
/// The most entity records one chunk's entity deltas carry.
pub const MAX_CHUNK_ENTITY_RECORDS: usize = 1024;
/// The most distinct scenes one chunk's entity deltas name.
pub const MAX_CHUNK_ENTITY_SCENES: usize = 64;
/// The largest view radius a welcome carries, in chunks.
pub const MAX_VIEW_RADIUS: u32 = 4096;
/// The most messages one batch carries.
pub const MAX_BATCH_MESSAGES: usize = 4096;

/// A player's number on one server, given on joining.
pub type PlayerId = u32;

/// Why the server refused an edit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RejectReason {
    /// Farther from the player than the server's reach.
    OutOfReach = 1,
    /// Outside the world's bounds.
    OutOfBounds = 2,
    /// A block id the world's library does not have.
    UnknownBlock = 3,
    /// More edits than the rate limit allows.
    RateLimited = 4,
    /// A shape edit this world does not take (too many tiles, or a side-view shape in a 3D world).
    BadShape = 5,
}

impl RejectReason {
    fn from_byte(b: u8) -> Option<Self> {
        Some(match b {
            1 => Self::OutOfReach,
            2 => Self::OutOfBounds,
            3 => Self::UnknownBlock,
            4 => Self::RateLimited,
            5 => Self::BadShape,
            _ => return None,
        })
    }

    /// A short English phrase for logs and the HUD.
    pub fn describe(self) -> &'static str {
        match self {
            Self::OutOfReach => "out of reach",
            Self::OutOfBounds => "outside the world's bounds",
            Self::UnknownBlock => "not a block of this world",
            Self::RateLimited => "too many edits; wait a moment",
            Self::BadShape => "not a shape this world takes (at most 4,096 tiles, side views only)",
        }
    }
}

/// The tallest body a pose may describe: the eye at most this many voxels above the feet.
pub const MAX_EYE_HEIGHT: f32 = 16.0;

/// A player's pose: position (world voxels, the eye; `f64`, exact anywhere in the world), look
/// angles in radians, and the body below
/// the eye: the feet are `eye_height` voxels under `position` (it changes with the stance:
/// standing, crouching, lying down). The server sweeps the whole body through the world's voxels
/// when it checks a move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    pub position: [f64; 3],
    pub yaw: f32,
    pub pitch: f32,
    /// Voxels from the feet up to the eye, `0..=MAX_EYE_HEIGHT`.
    pub eye_height: f32,
}

impl Pose {
    /// The demo player's eye above its feet when standing (`game/player.gd`).
    pub const STANDING_EYE_HEIGHT: f32 = 1.62;

    /// A standing player's pose with its eye at `position`.
    pub fn standing(position: [f64; 3], yaw: f32, pitch: f32) -> Self {
        Self { position, yaw, pitch, eye_height: Self::STANDING_EYE_HEIGHT }
    }

    /// Whether a pose may go on the wire: finite numbers, the position inside the world, the
    /// eye height within `0..=MAX_EYE_HEIGHT`.
    pub fn is_valid(&self) -> bool {
        let limit = f64::from(crate::base::coords::WORLD_LIMIT_VOXELS);
        self.position.iter().all(|v| (-limit..limit).contains(v))
            && self.yaw.is_finite()
            && self.pitch.is_finite()
            && (0.0..=MAX_EYE_HEIGHT).contains(&self.eye_height)
    }
}

/// One packet. "C→S" are sent by clients, "S→C" by the server; a peer that sends the other kind
/// breaks the protocol.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// C→S, first packet: the protocol spoken and the player's name.
    Hello { protocol: u16, name: String },
    /// S→C: joined. The world to generate (the preset as sparse RON, seed included), its
    /// fingerprint to check that it rebuilds the same here, the fingerprint of the world's own
    /// structures ("" for none: only the shipped ones), the next edit order number, and the
    /// server's bounds a client checks its requests against: block ids `0..block_count`, and
    /// the view (chunks around the player, horizontally and vertically) whose edits it is sent;
    /// and the kind of world (`shape`: a 3D world, or a side view and the chunks its
    /// subscriptions name, see `net::world_shape`).
    Welcome {
        protocol: u16,
        player: PlayerId,
        preset: String,
        fingerprint: String,
        structures: String,
        next_order: u64,
        block_count: u32,
        view: ViewRadius,
        shape: WorldShape,
    },
    /// S→C: cannot join (the connection is closed after it).
    Refused { reason: String },
    /// C→S: please set voxel `pos` to `block`; `request` is the client's own number for it.
    EditRequest { request: u32, pos: IVec3, block: BlockId },
    /// S→C, to everyone: edit number `order` was applied (orders count up from 0 without gaps).
    EditApplied { order: u64, player: PlayerId, request: u32, pos: IVec3, block: BlockId },
    /// S→C: the edit `request` was refused.
    EditRejected { request: u32, reason: RejectReason },
    /// C→S: this chunk streamed in; send its edits.
    SubscribeChunk { chunk: ChunkCoord },
    /// S→C: every voxel of `chunk` that differs from generation in the server's world (local
    /// voxel index, strictly increasing, and block): the edits and the water their flows placed,
    /// as of edit order `order` with the water of every edit below it settled (later edits
    /// follow as `EditApplied`). The client sets the chunk to exactly these, without a flow.
    /// On the wire each index after the first is the gap to the one before, less one.
    ChunkEdits { chunk: ChunkCoord, order: u64, edits: Vec<(u16, BlockId)> },
    /// C→S: where the sender is now (its `player` field is ignored: the server knows who sent
    /// it). S→C: where `player` is, at the sender's `tick`.
    PlayerState { player: PlayerId, tick: u32, pose: Pose },
    /// S→C: a player joined (also sent for everyone already there to a newcomer).
    PlayerJoined { player: PlayerId, name: String },
    /// S→C: a player left.
    PlayerLeft { player: PlayerId },
    /// C→S: a chat line (`player` ignored); S→C: a chat line from `player`.
    Chat { player: PlayerId, text: String },
    /// S→C: how the objects of `chunk` differ from what its spawn rules give, as the server holds
    /// them now: the spawn keys no longer at their spawn (increasing) and the objects standing in
    /// the chunk that are not at a spawn (moved, changed or added ones). Each replaces the last
    /// for that chunk: sent after `ChunkEdits` on subscribing, and whenever they change. A side
    /// view's chunk (`world_shape`) holds records of several 32-tile cells: each names its own
    /// (`persist::entities::RECORD_IN_OTHER_CELL`); the client checks each stands in the chunk.
    ChunkEntities { chunk: ChunkCoord, removed_spawns: Vec<u32>, records: Vec<EntityRecord> },
    /// S→C: the whole shared game state (keys strictly increasing), right after `Welcome`; it
    /// replaces whatever the client held.
    SharedState { entries: Vec<(String, SharedValue)> },
    /// S→C, to everyone: shared state `key` is now `value` (`None`: erased), in the server's
    /// order on the reliable channel.
    SharedStateSet { key: String, value: Option<SharedValue> },
    /// C→S: please set shared state `key` to `value` (`None`: erase it). The server applies it
    /// when clients may set that key, else its game decides; a change made arrives as
    /// `SharedStateSet` like any other.
    SharedStateRequest { key: String, value: Option<SharedValue> },
    /// S→C: the server refused this client's request to set shared state `key`, and why.
    SharedStateRefused { key: String, reason: String },
    /// S→C: the server did not accept this client's pose of `tick` (too fast, through solid
    /// voxels) or the game moved the player: it is at `pose`. The client moves its player
    /// there; its later poses go on from it.
    PoseCorrection { tick: u32, pose: Pose },
    /// S→C: the server no longer sends `chunk`'s edits and entity deltas to this client (it is
    /// outside the player's view, or was asked for from too far): the chunk is no longer synced
    /// here. Subscribe again once it is in view.
    ChunkReleased { chunk: ChunkCoord },
    /// C→S, side views only: please set every tile of `shape` to `block`, as one edit.
    ShapeEditRequest { request: u32, shape: EditShape, block: BlockId },
    /// S→C: a shape edit was applied: its tiles ([`EditShape::tiles`], row by row) are edits
    /// number `order`, `order + 1`, … (one per tile), and every peer writes them as one batch.
    ShapeEditApplied { order: u64, player: PlayerId, request: u32, shape: EditShape, block: BlockId },
}

/// How far a player sees, in chunks around the chunk of its pose: `horizontal` on x and z,
/// `vertical` on y (Chebyshev distance). The server sends a player the edits and poses of
/// these chunks only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewRadius {
    pub horizontal: u32,
    pub vertical: u32,
}

impl ViewRadius {
    /// Whether `chunk` is within this radius, widened by `margin` chunks, of `center`.
    pub fn contains(self, center: ChunkCoord, chunk: ChunkCoord, margin: u32) -> bool {
        let d = |a: i32, b: i32| (a as i64 - b as i64).unsigned_abs();
        let (h, v) = (self.horizontal as u64 + margin as u64, self.vertical as u64 + margin as u64);
        d(center.x, chunk.x) <= h && d(center.z, chunk.z) <= h && d(center.y, chunk.y) <= v
    }
}

impl Default for ViewRadius {
    /// The demo's `ChunkWorld` streams 8 chunks around the player and 3 up and down; two more
    /// each way cover a sprinting player's pose lagging behind by a second, so a client never
    /// has a chunk loaded that the server does not serve it.
    fn default() -> Self {
        Self { horizontal: 10, vertical: 5 }
    }
}

/// The chunk that holds position `p` (world voxels); positions past the world's bounds give
/// the bound's chunk.
pub fn chunk_of(p: [f64; 3]) -> ChunkCoord {
    let v = |x: f64| x.floor().clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32;
    ChunkCoord::containing(IVec3::new(v(p[0]), v(p[1]), v(p[2])))
}

const TAG_HELLO: u8 = 1;
const TAG_WELCOME: u8 = 2;
const TAG_REFUSED: u8 = 3;
const TAG_EDIT_REQUEST: u8 = 4;
const TAG_EDIT_APPLIED: u8 = 5;
const TAG_EDIT_REJECTED: u8 = 6;
const TAG_SUBSCRIBE_CHUNK: u8 = 7;
const TAG_CHUNK_EDITS: u8 = 8;
const TAG_PLAYER_STATE: u8 = 9;
const TAG_PLAYER_JOINED: u8 = 10;
const TAG_PLAYER_LEFT: u8 = 11;
const TAG_CHAT: u8 = 12;
const TAG_CHUNK_ENTITIES: u8 = 13;
const TAG_SHARED_STATE: u8 = 14;
const TAG_SHARED_STATE_SET: u8 = 15;
const TAG_SHARED_STATE_REQUEST: u8 = 16;
const TAG_SHARED_STATE_REFUSED: u8 = 17;
const TAG_POSE_CORRECTION: u8 = 18;
const TAG_CHUNK_RELEASED: u8 = 19;
/// Not a message: the framing of several messages in one packet ([`pack_batches`]).
const TAG_BATCH: u8 = 20;
const TAG_SHAPE_EDIT_REQUEST: u8 = 21;
const TAG_SHAPE_EDIT_APPLIED: u8 = 22;
/// The highest message tag, for error text.
const LAST_TAG: u8 = TAG_SHAPE_EDIT_APPLIED;

/// A world shape's byte: a 3D world, or a side view (its chunk tiles follow).
const SHAPE_VOXELS: u8 = 0;
const SHAPE_TILES: u8 = 1;
/// A shape edit's byte.
const EDIT_SHAPE_RECT: u8 = 1;
const EDIT_SHAPE_CIRCLE: u8 = 2;

/// A shared value's type byte (0: erased, in `SharedStateSet` only).
const VALUE_ERASED: u8 = 0;
const VALUE_BOOL: u8 = 1;
const VALUE_INT: u8 = 2;
const VALUE_FLOAT: u8 = 3;
const VALUE_TEXT: u8 = 4;
const VALUE_VECTOR2: u8 = 5;
const VALUE_VECTOR3: u8 = 6;
const VALUE_BYTES: u8 = 7;

impl Message {
    /// The message's name, for errors and logs.
    pub fn kind(&self) -> &'static str {
        match self {
            Message::Hello { .. } => "Hello",
            Message::Welcome { .. } => "Welcome",
            Message::Refused { .. } => "Refused",
            Message::EditRequest { .. } => "EditRequest",
            Message::EditApplied { .. } => "EditApplied",
            Message::EditRejected { .. } => "EditRejected",
            Message::SubscribeChunk { .. } => "SubscribeChunk",
            Message::ChunkEdits { .. } => "ChunkEdits",
            Message::PlayerState { .. } => "PlayerState",
            Message::PlayerJoined { .. } => "PlayerJoined",
            Message::PlayerLeft { .. } => "PlayerLeft",
            Message::Chat { .. } => "Chat",
            Message::ChunkEntities { .. } => "ChunkEntities",
            Message::SharedState { .. } => "SharedState",
            Message::SharedStateSet { .. } => "SharedStateSet",
            Message::SharedStateRequest { .. } => "SharedStateRequest",
            Message::SharedStateRefused { .. } => "SharedStateRefused",
            Message::PoseCorrection { .. } => "PoseCorrection",
            Message::ChunkReleased { .. } => "ChunkReleased",
            Message::ShapeEditRequest { .. } => "ShapeEditRequest",
            Message::ShapeEditApplied { .. } => "ShapeEditApplied",
        }
    }

    /// Whether a client may send this message (else only the server may).
    pub fn is_from_client(&self) -> bool {
        matches!(
            self,
            Message::Hello { .. }
                | Message::EditRequest { .. }
                | Message::ShapeEditRequest { .. }
                | Message::SubscribeChunk { .. }
                | Message::PlayerState { .. }
                | Message::Chat { .. }
                | Message::SharedStateRequest { .. }
        )
    }

    /// Whether `bytes` is a chunk snapshot (`ChunkEdits`), without decoding it: a client holds
    /// it, and what follows it, until its own water is settled.
    pub fn is_chunk_snapshot(bytes: &[u8]) -> bool {
        bytes.first() == Some(&TAG_CHUNK_EDITS)
    }

    /// The packet bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Vec::with_capacity(32);
        match self {
            Message::Hello { protocol, name } => {
                w.push(TAG_HELLO);
                put_varint(&mut w, *protocol as u64);
                put_str(&mut w, name);
            }
            Message::Welcome {
                protocol,
                player,
                preset,
                fingerprint,
                structures,
                next_order,
                block_count,
                view,
                shape,
            } => {
                w.push(TAG_WELCOME);
                put_varint(&mut w, *protocol as u64);
                put_varint(&mut w, *player as u64);
                put_str(&mut w, preset);
                put_str(&mut w, fingerprint);
                put_str(&mut w, structures);
                put_varint(&mut w, *next_order);
                put_varint(&mut w, *block_count as u64);
                put_varint(&mut w, view.horizontal as u64);
                put_varint(&mut w, view.vertical as u64);
                match shape {
                    WorldShape::Voxels => w.push(SHAPE_VOXELS),
                    WorldShape::Tiles { chunk_tiles } => {
                        w.push(SHAPE_TILES);
                        put_varint(&mut w, *chunk_tiles as u64);
                    }
                }
            }
            Message::Refused { reason } => {
                w.push(TAG_REFUSED);
                put_str(&mut w, reason);
            }
            Message::EditRequest { request, pos, block } => {
                w.push(TAG_EDIT_REQUEST);
                put_varint(&mut w, *request as u64);
                put_ivec(&mut w, *pos);
                put_varint(&mut w, *block as u64);
            }
            Message::EditApplied { order, player, request, pos, block } => {
                w.push(TAG_EDIT_APPLIED);
                put_varint(&mut w, *order);
                put_varint(&mut w, *player as u64);
                put_varint(&mut w, *request as u64);
                put_ivec(&mut w, *pos);
                put_varint(&mut w, *block as u64);
            }
            Message::EditRejected { request, reason } => {
                w.push(TAG_EDIT_REJECTED);
                put_varint(&mut w, *request as u64);
                w.push(*reason as u8);
            }
            Message::SubscribeChunk { chunk } => {
                w.push(TAG_SUBSCRIBE_CHUNK);
                put_ivec(&mut w, IVec3::new(chunk.x, chunk.y, chunk.z));
            }
            Message::ChunkEdits { chunk, order, edits } => {
                w.push(TAG_CHUNK_EDITS);
                put_ivec(&mut w, IVec3::new(chunk.x, chunk.y, chunk.z));
                put_varint(&mut w, *order);
                // Strictly increasing indices, each but the first as its gap less one.
                let mut sorted = edits.clone();
                if !sorted.windows(2).all(|p| p[0].0 < p[1].0) {
                    sorted.sort_by_key(|e| e.0);
                    sorted.dedup_by(|later, earlier| {
                        let same = later.0 == earlier.0;
                        if same {
                            earlier.1 = later.1;
                        }
                        same
                    });
                }
                put_varint(&mut w, sorted.len() as u64);
                let mut next = 0u64;
                for (i, b) in &sorted {
                    put_varint(&mut w, *i as u64 - next);
                    put_varint(&mut w, *b as u64);
                    next = *i as u64 + 1;
                }
            }
            Message::PlayerState { player, tick, pose } => {
                w.push(TAG_PLAYER_STATE);
                put_varint(&mut w, *player as u64);
                put_varint(&mut w, *tick as u64);
                put_pose(&mut w, pose);
            }
            Message::PoseCorrection { tick, pose } => {
                w.push(TAG_POSE_CORRECTION);
                put_varint(&mut w, *tick as u64);
                put_pose(&mut w, pose);
            }
            Message::ChunkReleased { chunk } => {
                w.push(TAG_CHUNK_RELEASED);
                put_ivec(&mut w, chunk.as_ivec3());
            }
            Message::ShapeEditRequest { request, shape, block } => {
                w.push(TAG_SHAPE_EDIT_REQUEST);
                put_varint(&mut w, *request as u64);
                put_edit_shape(&mut w, shape);
                put_varint(&mut w, *block as u64);
            }
            Message::ShapeEditApplied { order, player, request, shape, block } => {
                w.push(TAG_SHAPE_EDIT_APPLIED);
                put_varint(&mut w, *order);
                put_varint(&mut w, *player as u64);
                put_varint(&mut w, *request as u64);
                put_edit_shape(&mut w, shape);
                put_varint(&mut w, *block as u64);
            }
            Message::PlayerJoined { player, name } => {
                w.push(TAG_PLAYER_JOINED);
                put_varint(&mut w, *player as u64);
                put_str(&mut w, name);
            }
            Message::PlayerLeft { player } => {
                w.push(TAG_PLAYER_LEFT);
                put_varint(&mut w, *player as u64);
            }
            Message::Chat { player, text } => {
                w.push(TAG_CHAT);
                put_varint(&mut w, *player as u64);
                put_str(&mut w, text);
            }
            Message::ChunkEntities { chunk, removed_spawns, records } => {
                w.push(TAG_CHUNK_ENTITIES);
                put_ivec(&mut w, IVec3::new(chunk.x, chunk.y, chunk.z));
                put_chunk_entities(&mut w, *chunk, removed_spawns, records);
            }
            Message::SharedState { entries } => {
                w.push(TAG_SHARED_STATE);
                put_varint(&mut w, entries.len() as u64);
                for (k, v) in entries {
                    put_str(&mut w, k);
                    put_shared_value(&mut w, Some(v));
                }
            }
            Message::SharedStateSet { key, value } => {
                w.push(TAG_SHARED_STATE_SET);
                put_str(&mut w, key);
                put_shared_value(&mut w, value.as_ref());
            }
            Message::SharedStateRequest { key, value } => {
                w.push(TAG_SHARED_STATE_REQUEST);
                put_str(&mut w, key);
                put_shared_value(&mut w, value.as_ref());
            }
            Message::SharedStateRefused { key, reason } => {
                w.push(TAG_SHARED_STATE_REFUSED);
                put_str(&mut w, key);
                put_str(&mut w, reason);
            }
        }
        w
    }

    /// Reads one packet; any packet that is not exactly one well-formed message is refused.
    pub fn decode(bytes: &[u8]) -> Result<Message, DecodeError> {
        if bytes.len() > MAX_PACKET_BYTES {
            return Err(DecodeError::TooLarge { len: bytes.len(), max: MAX_PACKET_BYTES });
        }
        let mut r = Reader { raw: ByteReader::new(bytes) };
        let tag = r.byte("message tag")?;
        let m = match tag {
            TAG_BATCH => {
                return Err(DecodeError::OutOfRange {
                    what: "message tag",
                    value: TAG_BATCH as i64,
                    offset: 0,
                    allowed: "one message (a batch is split into its messages first)",
                });
            }
            TAG_HELLO => Message::Hello {
                protocol: r.uint("protocol", u16::MAX as u64)? as u16,
                name: r.string("player name", MAX_NAME_BYTES)?,
            },
            TAG_WELCOME => Message::Welcome {
                protocol: r.uint("protocol", u16::MAX as u64)? as u16,
                player: r.uint("player id", u32::MAX as u64)? as u32,
                preset: r.string("preset", MAX_PRESET_BYTES)?,
                fingerprint: r.string("fingerprint", MAX_NAME_BYTES * 4)?,
                structures: r.string("structures fingerprint", MAX_NAME_BYTES * 4)?,
                next_order: r.uint("edit order", u64::MAX)?,
                block_count: r.uint("block count", BlockId::MAX as u64 + 1)? as u32,
                view: ViewRadius {
                    horizontal: r.uint("view radius", MAX_VIEW_RADIUS as u64)? as u32,
                    vertical: r.uint("view radius", MAX_VIEW_RADIUS as u64)? as u32,
                },
                shape: r.world_shape()?,
            },
            TAG_REFUSED => Message::Refused { reason: r.string("reason", MAX_REASON_BYTES)? },
            TAG_EDIT_REQUEST => Message::EditRequest {
                request: r.uint("request number", u32::MAX as u64)? as u32,
                pos: r.ivec("voxel position")?,
                block: r.uint("block id", BlockId::MAX as u64)? as BlockId,
            },
            TAG_EDIT_APPLIED => Message::EditApplied {
                order: r.uint("edit order", u64::MAX)?,
                player: r.uint("player id", u32::MAX as u64)? as u32,
                request: r.uint("request number", u32::MAX as u64)? as u32,
                pos: r.ivec("voxel position")?,
                block: r.uint("block id", BlockId::MAX as u64)? as BlockId,
            },
            TAG_EDIT_REJECTED => {
                let request = r.uint("request number", u32::MAX as u64)? as u32;
                let at = r.at();
                let b = r.byte("reject reason")?;
                let reason = RejectReason::from_byte(b).ok_or(DecodeError::OutOfRange {
                    what: "reject reason",
                    value: b as i64,
                    offset: at,
                    allowed: "1 to 5",
                })?;
                Message::EditRejected { request, reason }
            }
            TAG_SUBSCRIBE_CHUNK => Message::SubscribeChunk { chunk: r.chunk("chunk")? },
            TAG_CHUNK_EDITS => {
                let chunk = r.chunk("chunk")?;
                let order = r.uint("edit order", u64::MAX)?;
                let at = r.at();
                let n = r.uint("edit count", MAX_CHUNK_EDITS as u64)? as usize;
                // Each edit takes two bytes at least: refuse a count the packet cannot hold.
                if n * 2 > r.left() {
                    return Err(DecodeError::Truncated { what: "chunk edits", offset: at });
                }
                let mut edits = Vec::with_capacity(n);
                let mut next = 0u64;
                for _ in 0..n {
                    let at = r.at();
                    let i = next + r.uint("local voxel index gap", (MAX_CHUNK_EDITS - 1) as u64)?;
                    if i >= MAX_CHUNK_EDITS as u64 {
                        return Err(DecodeError::OutOfRange {
                            what: "local voxel index",
                            value: i as i64,
                            offset: at,
                            allowed: "0 to 32767, strictly increasing",
                        });
                    }
                    let b = r.uint("block id", BlockId::MAX as u64)? as BlockId;
                    edits.push((i as u16, b));
                    next = i + 1;
                }
                Message::ChunkEdits { chunk, order, edits }
            }
            TAG_PLAYER_STATE => Message::PlayerState {
                player: r.uint("player id", u32::MAX as u64)? as u32,
                tick: r.uint("tick", u32::MAX as u64)? as u32,
                pose: r.pose()?,
            },
            TAG_POSE_CORRECTION => {
                Message::PoseCorrection { tick: r.uint("tick", u32::MAX as u64)? as u32, pose: r.pose()? }
            }
            TAG_CHUNK_RELEASED => Message::ChunkReleased { chunk: r.chunk("chunk")? },
            TAG_SHAPE_EDIT_REQUEST => Message::ShapeEditRequest {
                request: r.uint("request number", u32::MAX as u64)? as u32,
                shape: r.edit_shape()?,
                block: r.uint("block id", BlockId::MAX as u64)? as BlockId,
            },
            TAG_SHAPE_EDIT_APPLIED => Message::ShapeEditApplied {
                order: r.uint("edit order", u64::MAX)?,
                player: r.uint("player id", u32::MAX as u64)? as u32,
                request: r.uint("request number", u32::MAX as u64)? as u32,
                shape: r.edit_shape()?,
                block: r.uint("block id", BlockId::MAX as u64)? as BlockId,
            },
            TAG_PLAYER_JOINED => Message::PlayerJoined {
                player: r.uint("player id", u32::MAX as u64)? as u32,
                name: r.string("player name", MAX_NAME_BYTES)?,
            },
            TAG_PLAYER_LEFT => Message::PlayerLeft { player: r.uint("player id", u32::MAX as u64)? as u32 },
            TAG_CHAT => Message::Chat {
                player: r.uint("player id", u32::MAX as u64)? as u32,
                text: r.string("chat line", MAX_CHAT_BYTES)?,
            },
            TAG_CHUNK_ENTITIES => {
                let chunk = r.chunk("chunk")?;
                let (removed_spawns, records) = r.chunk_entities(chunk)?;
                Message::ChunkEntities { chunk, removed_spawns, records }
            }
            TAG_SHARED_STATE => {
                // Each entry takes three bytes at least: key length, one key byte, type.
                let n = r.count("shared state count", MAX_SHARED_KEYS, 3)?;
                let mut entries: Vec<(String, SharedValue)> = Vec::with_capacity(n);
                for _ in 0..n {
                    let at = r.at();
                    let key = r.shared_key()?;
                    if entries.last().is_some_and(|(last, _)| *last >= key) {
                        return Err(DecodeError::OutOfRange {
                            what: "shared state key",
                            value: 0,
                            offset: at,
                            allowed: "keys in strictly increasing order",
                        });
                    }
                    let at = r.at();
                    let Some(value) = r.shared_value()? else {
                        return Err(DecodeError::OutOfRange {
                            what: "shared value type",
                            value: VALUE_ERASED as i64,
                            offset: at,
                            allowed: "1 to 7 in a whole shared state",
                        });
                    };
                    entries.push((key, value));
                }
                Message::SharedState { entries }
            }
            TAG_SHARED_STATE_SET => Message::SharedStateSet { key: r.shared_key()?, value: r.shared_value()? },
            TAG_SHARED_STATE_REQUEST => Message::SharedStateRequest { key: r.shared_key()?, value: r.shared_value()? },
            TAG_SHARED_STATE_REFUSED => {
                Message::SharedStateRefused { key: r.shared_key()?, reason: r.string("reason", MAX_REASON_BYTES)? }
            }
            other => return Err(DecodeError::UnknownTag { tag: other }),
        };
        if r.at() != bytes.len() {
            return Err(DecodeError::Trailing { offset: r.at(), len: bytes.len() });
        }
        Ok(m)
    }
}

/// Packs encoded messages, in order, into as few packets of at most `max_bytes` as it can: a
/// packet of one message is that message; several make a batch (its tag, their count, then each
/// one length-prefixed). A message longer than `max_bytes` travels alone. The server sends each
/// peer one packet per frame this way instead of one per message: the per-packet cost of the
/// transport, not the bytes, is what grows with a crowd.
pub fn pack_batches<M: AsRef<[u8]>>(messages: impl IntoIterator<Item = M>, max_bytes: usize) -> Vec<Vec<u8>> {
    let mut packets = Vec::new();
    let mut group: Vec<M> = Vec::new();
    let mut group_bytes = 0usize;
    let framed = |m: &[u8]| m.len() + varint_len(m.len() as u64);
    let flush = |group: &mut Vec<M>, packets: &mut Vec<Vec<u8>>| match group.len() {
        0 => {}
        1 => packets.extend(group.drain(..).map(|m| m.as_ref().to_vec())),
        n => {
            let mut w = Vec::with_capacity(max_bytes.min(MAX_PACKET_BYTES));
            w.push(TAG_BATCH);
            put_varint(&mut w, n as u64);
            for m in group.drain(..) {
                put_bytes(&mut w, m.as_ref());
            }
            packets.push(w);
        }
    };
    // Batch header: tag and a count of up to 2 varint bytes.
    const HEADER: usize = 3;
    for m in messages {
        let size = framed(m.as_ref());
        if !group.is_empty()
            && (HEADER + group_bytes + size > max_bytes.min(MAX_PACKET_BYTES) || group.len() == MAX_BATCH_MESSAGES)
        {
            flush(&mut group, &mut packets);
            group_bytes = 0;
        }
        group_bytes += size;
        group.push(m);
    }
    flush(&mut group, &mut packets);
    packets
}

/// The messages of one packet, in order: a batch's messages, or the packet itself. Checks the
/// framing only (each message is decoded on its own): the count and every length against the
/// bytes left, no empty message, no batch inside a batch, nothing left over.
pub fn split_batch(bytes: &[u8]) -> Result<Vec<&[u8]>, DecodeError> {
    if bytes.len() > MAX_PACKET_BYTES {
        return Err(DecodeError::TooLarge { len: bytes.len(), max: MAX_PACKET_BYTES });
    }
    if bytes.first() != Some(&TAG_BATCH) {
        return Ok(vec![bytes]);
    }
    let mut r = Reader { raw: ByteReader::new(bytes) };
    r.byte("message tag")?;
    let n = r.count("batch message count", MAX_BATCH_MESSAGES, 2)?;
    let mut parts = Vec::with_capacity(n);
    for _ in 0..n {
        let at = r.at();
        let part = r.raw.bytes(MAX_PACKET_BYTES as u64).map_err(|e| wire_error("batched message", e))?;
        match part.first() {
            None => {
                return Err(DecodeError::OutOfRange {
                    what: "batched message length",
                    value: 0,
                    offset: at,
                    allowed: "at least 1 byte",
                });
            }
            Some(&TAG_BATCH) => {
                return Err(DecodeError::OutOfRange {
                    what: "batched message tag",
                    value: TAG_BATCH as i64,
                    offset: at + 1,
                    allowed: "a message, not a batch",
                });
            }
            Some(_) => parts.push(part),
        }
    }
    if r.left() > 0 {
        return Err(DecodeError::Trailing { offset: r.at(), len: bytes.len() });
    }
    Ok(parts)
}

/// The bytes the LEB128 varint of `v` takes.
fn varint_len(v: u64) -> usize {
    (64 - v.max(1).leading_zeros() as usize).div_ceil(7)
}

/// Why a packet was refused. Offsets are byte offsets into the packet.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum DecodeError {
    #[error("packet of {len} bytes; allowed: at most {max}")]
    TooLarge { len: usize, max: usize },
    #[error("unknown message tag {tag}; allowed: 1 to {LAST_TAG}")]
    UnknownTag { tag: u8 },
    #[error("packet ends inside the {what} at byte {offset}")]
    Truncated { what: &'static str, offset: usize },
    #[error("the {what} at byte {offset} is {value}; allowed: {allowed}")]
    OutOfRange { what: &'static str, value: i64, offset: usize, allowed: &'static str },
    #[error("the {what} at byte {offset} is {len} bytes long; allowed: at most {max}")]
    TooLong { what: &'static str, len: u64, offset: usize, max: usize },
    #[error("the {what} at byte {offset} is not UTF-8")]
    NotUtf8 { what: &'static str, offset: usize },
    #[error("the {what} at byte {offset} is a varint longer than 10 bytes")]
    BadVarint { what: &'static str, offset: usize },
    #[error("{} bytes left over after the message, from byte {offset} of {len}", len - offset)]
    Trailing { offset: usize, len: usize },
}

/// A pose: position (three little-endian `f64`), yaw, pitch and eye height (three `f32`).
fn put_pose(w: &mut Vec<u8>, pose: &Pose) {
    for v in pose.position {
        w.extend_from_slice(&v.to_le_bytes());
    }
    for v in [pose.yaw, pose.pitch, pose.eye_height] {
        w.extend_from_slice(&v.to_le_bytes());
    }
}

/// A shape edit: its byte, then a rectangle's corners (four zigzag varints) or a circle's
/// centre (two) and radius (a little-endian `f64`).
fn put_edit_shape(w: &mut Vec<u8>, shape: &EditShape) {
    match shape {
        EditShape::Rect { a, b } => {
            w.push(EDIT_SHAPE_RECT);
            for v in [a[0], a[1], b[0], b[1]] {
                put_zigzag(w, v as i64);
            }
        }
        EditShape::Circle { center, radius } => {
            w.push(EDIT_SHAPE_CIRCLE);
            put_zigzag(w, center[0] as i64);
            put_zigzag(w, center[1] as i64);
            w.extend_from_slice(&radius.to_le_bytes());
        }
    }
}

fn put_ivec(w: &mut Vec<u8>, p: IVec3) {
    put_zigzag(w, p.x as i64);
    put_zigzag(w, p.y as i64);
    put_zigzag(w, p.z as i64);
}

/// A chunk's entity deltas: removed spawn keys (a count, then increasing keys as gaps, the first
/// from 0), a scene table (a count, then paths), then the records (a count, then each as a save
/// writes it: [`put_record`]).
fn put_chunk_entities(w: &mut Vec<u8>, chunk: ChunkCoord, removed_spawns: &[u32], records: &[EntityRecord]) {
    put_varint(w, removed_spawns.len() as u64);
    let mut prev = 0u32;
    for (i, &k) in removed_spawns.iter().enumerate() {
        put_varint(w, if i == 0 { k as u64 } else { k.wrapping_sub(prev).wrapping_sub(1) as u64 });
        prev = k;
    }
    let scenes = scene_table(records);
    put_varint(w, scenes.len() as u64);
    for s in &scenes {
        put_str(w, s);
    }
    put_varint(w, records.len() as u64);
    for r in records {
        put_record(w, &scenes, chunk, r);
    }
}

/// A shared value: its type byte, then bool one byte, int a zigzag varint, float 8 bytes, text
/// and bytes a length then the bytes, vectors 2 or 3 × f32. `None` is the type byte 0 alone.
fn put_shared_value(w: &mut Vec<u8>, value: Option<&SharedValue>) {
    let Some(value) = value else {
        w.push(VALUE_ERASED);
        return;
    };
    match value {
        SharedValue::Bool(b) => {
            w.push(VALUE_BOOL);
            w.push(u8::from(*b));
        }
        SharedValue::Int(i) => {
            w.push(VALUE_INT);
            put_zigzag(w, *i);
        }
        SharedValue::Float(f) => {
            w.push(VALUE_FLOAT);
            w.extend_from_slice(&f.to_le_bytes());
        }
        SharedValue::Text(s) => {
            w.push(VALUE_TEXT);
            put_str(w, s);
        }
        SharedValue::Vector2(v) => {
            w.push(VALUE_VECTOR2);
            v.iter().for_each(|&c| put_f32(w, c));
        }
        SharedValue::Vector3(v) => {
            w.push(VALUE_VECTOR3);
            v.iter().for_each(|&c| put_f32(w, c));
        }
        SharedValue::Bytes(b) => {
            w.push(VALUE_BYTES);
            put_bytes(w, b);
        }
    }
}

/// The packet error for `e`, met while reading `what`: a truncation at the item's start.
fn wire_error(what: &'static str, e: ReadError) -> DecodeError {
    match e {
        ReadError::Truncated { start, .. } => DecodeError::Truncated { what, offset: start },
        ReadError::Overlong { start } => DecodeError::BadVarint { what, offset: start },
        ReadError::Length { start, len, max, .. } if len > max => {
            DecodeError::TooLong { what, len, offset: start, max: max as usize }
        }
        ReadError::Length { start, .. } => DecodeError::Truncated { what, offset: start },
        ReadError::NotUtf8 { start, .. } => DecodeError::NotUtf8 { what, offset: start },
    }
}

/// The packet error for a varint's `e`: a truncation where the bytes end.
fn varint_error(what: &'static str, e: ReadError) -> DecodeError {
    match e {
        ReadError::Truncated { end, .. } => DecodeError::Truncated { what, offset: end },
        e => wire_error(what, e),
    }
}

/// The packet error for an entity record refused at `e` ([`read_record`]).
fn record_error(e: RecordError) -> DecodeError {
    let what = |part| match part {
        RecordPart::Scene => "entity scene index",
        RecordPart::Position => "entity position",
        RecordPart::Flags => "entity flags",
        RecordPart::Cell => "entity cell",
        RecordPart::Rotation => "entity rotation",
        RecordPart::Scale => "entity scale",
        RecordPart::State => "entity state",
    };
    match e {
        RecordError::Read { part: part @ (RecordPart::Scene | RecordPart::State), error } => {
            varint_error(what(part), error)
        }
        RecordError::Read { part, error } => wire_error(what(part), error),
        RecordError::SceneIndex { start, index } if index > MAX_CHUNK_ENTITY_SCENES as u64 => DecodeError::OutOfRange {
            what: "entity scene index",
            value: index.min(i64::MAX as u64) as i64,
            offset: start,
            allowed: "a smaller number",
        },
        RecordError::SceneIndex { start, index } => DecodeError::OutOfRange {
            what: "entity scene index",
            value: index as i64,
            offset: start,
            allowed: "an index into the message's scene table",
        },
        RecordError::NotFinite { part, start, .. } => {
            DecodeError::OutOfRange { what: what(part), value: 0, offset: start, allowed: "a finite number" }
        }
        RecordError::Flags { start, flags, allowed } => {
            DecodeError::OutOfRange { what: "entity flags", value: flags as i64, offset: start, allowed }
        }
        RecordError::Cell { start, value } => {
            DecodeError::OutOfRange { what: "entity cell", value, offset: start, allowed: "a cell of the world" }
        }
        RecordError::OutsideChunk { start, .. } => DecodeError::OutOfRange {
            what: "entity position",
            value: 0,
            offset: start,
            allowed: "a position inside the message's chunk",
        },
    }
}

/// The packet face of the shared [`ByteReader`]: every error a [`DecodeError`].
struct Reader<'a> {
    raw: ByteReader<'a>,
}

impl Reader<'_> {
    fn at(&self) -> usize {
        self.raw.pos()
    }

    fn left(&self) -> usize {
        self.raw.left()
    }

    fn byte(&mut self, what: &'static str) -> Result<u8, DecodeError> {
        self.raw.byte().map_err(|e| wire_error(what, e))
    }

    fn varint(&mut self, what: &'static str) -> Result<u64, DecodeError> {
        self.raw.varint().map_err(|e| varint_error(what, e))
    }

    fn uint(&mut self, what: &'static str, max: u64) -> Result<u64, DecodeError> {
        let at = self.at();
        let v = self.varint(what)?;
        if v > max {
            return Err(DecodeError::OutOfRange {
                what,
                value: v.min(i64::MAX as u64) as i64,
                offset: at,
                allowed: "a smaller number",
            });
        }
        Ok(v)
    }

    fn int(&mut self, what: &'static str) -> Result<i32, DecodeError> {
        let at = self.at();
        let z = self.varint(what)?;
        if z > u32::MAX as u64 {
            return Err(DecodeError::OutOfRange {
                what,
                value: z.min(i64::MAX as u64) as i64,
                offset: at,
                allowed: "a 32-bit integer",
            });
        }
        let z = z as u32;
        Ok(((z >> 1) as i32) ^ -((z & 1) as i32))
    }

    fn ivec(&mut self, what: &'static str) -> Result<IVec3, DecodeError> {
        Ok(IVec3::new(self.int(what)?, self.int(what)?, self.int(what)?))
    }

    /// A pose (see [`put_pose`]): five finite numbers and an eye height in
    /// `0..=MAX_EYE_HEIGHT`.
    fn pose(&mut self) -> Result<Pose, DecodeError> {
        let mut position = [0f64; 3];
        for (i, x) in position.iter_mut().enumerate() {
            let at = self.at();
            *x = self.raw.f64().map_err(|e| wire_error("pose", e))?;
            if !x.is_finite() {
                return Err(DecodeError::OutOfRange {
                    what: ["x", "y", "z"][i],
                    value: 0,
                    offset: at,
                    allowed: "a finite number",
                });
            }
        }
        let mut v = [0f32; 6];
        for (i, x) in v.iter_mut().enumerate().skip(3) {
            let at = self.at();
            *x = self.f32("pose")?;
            let eye_height = i == 5;
            let fits = if eye_height { (0.0..=MAX_EYE_HEIGHT).contains(x) } else { x.is_finite() };
            if !fits {
                return Err(DecodeError::OutOfRange {
                    what: ["x", "y", "z", "yaw", "pitch", "eye height"][i],
                    value: if x.is_finite() { *x as i64 } else { 0 },
                    offset: at,
                    allowed: if eye_height { "0 to 16 voxels" } else { "a finite number" },
                });
            }
        }
        Ok(Pose { position, yaw: v[3], pitch: v[4], eye_height: v[5] })
    }

    /// A world shape (see the Welcome's encoding): a side view's chunk tiles within the preset's
    /// range.
    fn world_shape(&mut self) -> Result<WorldShape, DecodeError> {
        let at = self.at();
        match self.byte("world shape")? {
            SHAPE_VOXELS => Ok(WorldShape::Voxels),
            SHAPE_TILES => {
                let at = self.at();
                let n = self.uint("chunk tiles", u32::MAX as u64)?;
                if !(MIN_CHUNK_TILES as u64..=MAX_CHUNK_TILES as u64).contains(&n) {
                    return Err(DecodeError::OutOfRange {
                        what: "chunk tiles",
                        value: n as i64,
                        offset: at,
                        allowed: "16 to 128",
                    });
                }
                Ok(WorldShape::Tiles { chunk_tiles: n as u32 })
            }
            b => Err(DecodeError::OutOfRange {
                what: "world shape",
                value: b as i64,
                offset: at,
                allowed: "0 (a 3D world) or 1 (a side view)",
            }),
        }
    }

    /// A shape edit (see [`put_edit_shape`]): a circle's radius finite, 0 to 1,024.
    fn edit_shape(&mut self) -> Result<EditShape, DecodeError> {
        let at = self.at();
        match self.byte("edit shape")? {
            EDIT_SHAPE_RECT => Ok(EditShape::Rect {
                a: [self.int("rectangle corner")?, self.int("rectangle corner")?],
                b: [self.int("rectangle corner")?, self.int("rectangle corner")?],
            }),
            EDIT_SHAPE_CIRCLE => {
                let center = [self.int("circle centre")?, self.int("circle centre")?];
                let at = self.at();
                let radius = self.raw.f64().map_err(|e| wire_error("circle radius", e))?;
                if !(radius.is_finite() && (0.0..=MAX_SHAPE_RADIUS).contains(&radius)) {
                    return Err(DecodeError::OutOfRange {
                        what: "circle radius",
                        value: if radius.is_finite() { radius as i64 } else { 0 },
                        offset: at,
                        allowed: "a finite number from 0 to 1024",
                    });
                }
                Ok(EditShape::Circle { center, radius })
            }
            b => Err(DecodeError::OutOfRange {
                what: "edit shape",
                value: b as i64,
                offset: at,
                allowed: "1 (rectangle) or 2 (circle)",
            }),
        }
    }

    fn chunk(&mut self, what: &'static str) -> Result<ChunkCoord, DecodeError> {
        let p = self.ivec(what)?;
        Ok(ChunkCoord::new(p.x, p.y, p.z))
    }

    fn f32(&mut self, what: &'static str) -> Result<f32, DecodeError> {
        self.raw.f32().map_err(|e| wire_error(what, e))
    }

    /// A finite `f32`.
    fn finite(&mut self, what: &'static str) -> Result<f32, DecodeError> {
        let at = self.at();
        let v = self.f32(what)?;
        if !v.is_finite() {
            return Err(DecodeError::OutOfRange { what, value: 0, offset: at, allowed: "a finite number" });
        }
        Ok(v)
    }

    /// A count of items that take at least `min_bytes` each, at most `max`, and no more than
    /// the bytes left could hold.
    fn count(&mut self, what: &'static str, max: usize, min_bytes: usize) -> Result<usize, DecodeError> {
        let at = self.at();
        let n = self.uint(what, max as u64)? as usize;
        if n * min_bytes > self.left() {
            return Err(DecodeError::Truncated { what, offset: at });
        }
        Ok(n)
    }

    /// The removed spawn keys and records of `chunk` (see [`put_chunk_entities`]).
    fn chunk_entities(&mut self, chunk: ChunkCoord) -> Result<(Vec<u32>, Vec<EntityRecord>), DecodeError> {
        let n = self.count("removed spawn count", MAX_CHUNK_REMOVED_SPAWNS, 1)?;
        let mut removed = Vec::with_capacity(n);
        for i in 0..n {
            let at = self.at();
            let gap = self.uint("removed spawn key", u32::MAX as u64)?;
            let key = if i == 0 { gap } else { removed.last().map_or(0, |&p: &u32| p as u64) + gap + 1 };
            if key > u32::MAX as u64 {
                return Err(DecodeError::OutOfRange {
                    what: "removed spawn key",
                    value: key as i64,
                    offset: at,
                    allowed: "at most 4294967295",
                });
            }
            removed.push(key as u32);
        }
        let n = self.count("entity scene count", MAX_CHUNK_ENTITY_SCENES, 1)?;
        let mut scenes = Vec::with_capacity(n);
        for _ in 0..n {
            scenes.push(self.string("entity scene path", MAX_SCENE_PATH_BYTES as usize)?);
        }
        // Each record takes 14 bytes at least: scene index, position, flags.
        let n = self.count("entity record count", MAX_CHUNK_ENTITY_RECORDS, 14)?;
        let mut records = Vec::with_capacity(n);
        for _ in 0..n {
            records.push(read_record(&mut self.raw, &scenes, chunk, RecordPositions::InCell).map_err(record_error)?);
        }
        Ok((removed, records))
    }

    /// A shared state key: 1 to [`MAX_SHARED_KEY_BYTES`] bytes of UTF-8, no control characters.
    fn shared_key(&mut self) -> Result<String, DecodeError> {
        let at = self.at();
        let key = self.string("shared state key", MAX_SHARED_KEY_BYTES)?;
        if key.is_empty() || key.chars().any(char::is_control) {
            return Err(DecodeError::OutOfRange {
                what: "shared state key",
                value: key.len() as i64,
                offset: at,
                allowed: "1 or more bytes without control characters",
            });
        }
        Ok(key)
    }

    /// A shared value (see [`put_shared_value`]); `None` for erased. Numbers must be finite,
    /// text and bytes at most [`MAX_SHARED_VALUE_BYTES`].
    fn shared_value(&mut self) -> Result<Option<SharedValue>, DecodeError> {
        let at = self.at();
        let kind = self.byte("shared value type")?;
        Ok(Some(match kind {
            VALUE_ERASED => return Ok(None),
            VALUE_BOOL => {
                let at = self.at();
                match self.byte("shared bool")? {
                    0 => SharedValue::Bool(false),
                    1 => SharedValue::Bool(true),
                    b => {
                        return Err(DecodeError::OutOfRange {
                            what: "shared bool",
                            value: b as i64,
                            offset: at,
                            allowed: "0 or 1",
                        });
                    }
                }
            }
            VALUE_INT => SharedValue::Int(self.raw.zigzag().map_err(|e| varint_error("shared int", e))?),
            VALUE_FLOAT => {
                let at = self.at();
                let f = self.raw.f64().map_err(|e| wire_error("shared float", e))?;
                if !f.is_finite() {
                    return Err(DecodeError::OutOfRange {
                        what: "shared float",
                        value: 0,
                        offset: at,
                        allowed: "a finite number",
                    });
                }
                SharedValue::Float(f)
            }
            VALUE_TEXT => SharedValue::Text(self.string("shared text", MAX_SHARED_VALUE_BYTES)?),
            VALUE_VECTOR2 => SharedValue::Vector2([self.finite("shared vector")?, self.finite("shared vector")?]),
            VALUE_VECTOR3 => SharedValue::Vector3([
                self.finite("shared vector")?,
                self.finite("shared vector")?,
                self.finite("shared vector")?,
            ]),
            VALUE_BYTES => SharedValue::Bytes(
                self.raw.bytes(MAX_SHARED_VALUE_BYTES as u64).map_err(|e| varint_error("shared bytes", e))?.to_vec(),
            ),
            other => {
                return Err(DecodeError::OutOfRange {
                    what: "shared value type",
                    value: other as i64,
                    offset: at,
                    allowed: "0 to 7",
                });
            }
        }))
    }

    fn string(&mut self, what: &'static str, max: usize) -> Result<String, DecodeError> {
        self.raw.string(max as u64).map_err(|e| varint_error(what, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_xoshiro::Xoshiro256PlusPlus;
    use rand_xoshiro::rand_core::{Rng, SeedableRng};

    fn samples() -> Vec<Message> {
        let big = IVec3::new(i32::MIN, i32::MAX, -1);
        vec![
            Message::Hello { protocol: PROTOCOL_VERSION, name: "ada".into() },
            Message::Welcome {
                protocol: 1,
                player: 7,
                preset: "(seed: 42)".into(),
                fingerprint: "abc".into(),
                structures: "00ff00ff00ff00ff".into(),
                next_order: u64::MAX,
                block_count: 65536,
                view: ViewRadius { horizontal: 10, vertical: MAX_VIEW_RADIUS },
                shape: WorldShape::Voxels,
            },
            Message::Welcome {
                protocol: PROTOCOL_VERSION,
                player: 1,
                preset: String::new(),
                fingerprint: String::new(),
                structures: String::new(),
                next_order: 0,
                block_count: 1,
                view: ViewRadius::default(),
                shape: WorldShape::Tiles { chunk_tiles: 128 },
            },
            Message::ShapeEditRequest {
                request: 4,
                shape: EditShape::Rect { a: [-3, 70], b: [i32::MIN, i32::MAX] },
                block: 3,
            },
            Message::ShapeEditRequest {
                request: u32::MAX,
                shape: EditShape::Circle { center: [3_000_000, -12], radius: 2.5 },
                block: BlockId::MAX,
            },
            Message::ShapeEditApplied {
                order: 1 << 40,
                player: 2,
                request: 9,
                shape: EditShape::Circle { center: [0, 0], radius: 0.0 },
                block: 0,
            },
            Message::EditRejected { request: 1, reason: RejectReason::BadShape },
            Message::PoseCorrection {
                tick: u32::MAX,
                pose: Pose { position: [-1.0, 2.5, 1e9], yaw: 3.0, pitch: -1.5, eye_height: 0.42 },
            },
            Message::ChunkReleased { chunk: ChunkCoord::new(i32::MIN, -1, i32::MAX) },
            Message::Refused { reason: "full".into() },
            Message::EditRequest { request: 3, pos: IVec3::new(10, 64, -5), block: 2 },
            Message::EditRequest { request: u32::MAX, pos: big, block: BlockId::MAX },
            Message::EditApplied { order: 12, player: 1, request: 3, pos: IVec3::new(10, 64, -5), block: 2 },
            Message::EditRejected { request: 9, reason: RejectReason::RateLimited },
            Message::SubscribeChunk { chunk: ChunkCoord::new(-3, 1, 99) },
            Message::ChunkEdits { chunk: ChunkCoord::new(0, 2, 0), order: 5, edits: vec![(0, 1), (32767, 600)] },
            Message::PlayerState { player: 2, tick: 77, pose: Pose::standing([1.5, 70.0, -3.25], 0.5, -0.1) },
            Message::PlayerJoined { player: 4, name: "bo".into() },
            Message::PlayerLeft { player: 4 },
            Message::Chat { player: 1, text: "hello ✓".into() },
            Message::ChunkEntities { chunk: ChunkCoord::new(0, 0, 0), removed_spawns: vec![], records: vec![] },
            Message::ChunkEntities {
                chunk: ChunkCoord::new(-1, 2, 0),
                removed_spawns: vec![0, 7, 65536 + 3, u32::MAX],
                records: vec![deer(-20.5, b""), chest(-1.0), deer(-31.0, &[1, 2, 3])],
            },
            Message::SharedState { entries: vec![] },
            Message::SharedState {
                entries: vec![
                    ("day".into(), SharedValue::Int(-3)),
                    ("time_of_day".into(), SharedValue::Float(0.3)),
                    ("weather".into(), SharedValue::Text("rain ✓".into())),
                    ("wind".into(), SharedValue::Vector2([1.0, -0.5])),
                ],
            },
            Message::SharedStateSet { key: "time_of_day".into(), value: Some(SharedValue::Float(0.75)) },
            Message::SharedStateSet { key: "open".into(), value: Some(SharedValue::Bool(true)) },
            Message::SharedStateSet { key: "n".into(), value: Some(SharedValue::Int(i64::MIN)) },
            Message::SharedStateSet { key: "spawn".into(), value: Some(SharedValue::Vector3([1.0, 70.5, -2.0])) },
            Message::SharedStateSet { key: "blob".into(), value: Some(SharedValue::Bytes(vec![0, 1, 255])) },
            Message::SharedStateSet { key: "gone".into(), value: None },
            Message::SharedStateRequest { key: "door_open".into(), value: Some(SharedValue::Bool(true)) },
            Message::SharedStateRequest { key: "gone".into(), value: None },
            Message::SharedStateRefused { key: "time_of_day".into(), reason: "not a key clients may set".into() },
            Message::ChunkEdits { chunk: ChunkCoord::new(-1, 0, 3), order: 0, edits: vec![] },
            Message::ChunkEdits { chunk: ChunkCoord::new(1, -1, 0), order: 9, edits: vec![(5, 2), (6, 2), (4000, 9)] },
        ]
    }

    fn deer(x: f64, state: &[u8]) -> EntityRecord {
        EntityRecord {
            scene: "res://game/life/deer.tscn".into(),
            position: [x, 70.25, 3.5],
            rotation: [0.0, 0.6, 0.0, 0.8],
            scale: EntityRecord::NO_SCALE,
            state: state.to_vec(),
        }
    }

    fn chest(x: f64) -> EntityRecord {
        EntityRecord {
            scene: "res://game/life/chest.tscn".into(),
            position: [x, 64.0, 0.0],
            rotation: EntityRecord::NO_ROTATION,
            scale: [2.0, 2.0, 2.0],
            state: vec![9; 40],
        }
    }

    /// The three records of [`golden_records`] as a save (format 5) and a packet (protocol 8)
    /// write them: the same bytes in both (scene index, position from the chunk's least corner
    /// (−32, 64, 0), flags, rotation, scale, state).
    const GOLDEN_RECORD_BYTES: [u8; 131] = [
        1, 0, 0, 56, 65, 0, 0, 200, 64, 0, 0, 96, 64, 1, 0, 0, 0, 0, 154, 153, 25, 63, 0, 0, 0, 0, 205, 204, 76, 63, 0,
        0, 0, 248, 65, 0, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0, 64, 0, 0, 0, 64, 0, 0, 0, 64, 40, 9, 9, 9, 9, 9, 9, 9, 9, 9,
        9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 1, 0, 0, 128, 63,
        0, 0, 200, 64, 0, 0, 96, 64, 5, 0, 0, 0, 0, 154, 153, 25, 63, 0, 0, 0, 0, 205, 204, 76, 63, 3, 1, 2, 3,
    ];

    /// The same records as version 0.2 wrote them into saves of formats 3 and 4 (positions in
    /// world coordinates), which this version still reads.
    const GOLDEN_RECORD_BYTES_0_2: [u8; 131] = [
        1, 0, 0, 164, 193, 0, 128, 140, 66, 0, 0, 96, 64, 1, 0, 0, 0, 0, 154, 153, 25, 63, 0, 0, 0, 0, 205, 204, 76,
        63, 0, 0, 0, 128, 191, 0, 0, 128, 66, 0, 0, 0, 0, 6, 0, 0, 0, 64, 0, 0, 0, 64, 0, 0, 0, 64, 40, 9, 9, 9, 9, 9,
        9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 1, 0,
        0, 248, 193, 0, 128, 140, 66, 0, 0, 96, 64, 5, 0, 0, 0, 0, 154, 153, 25, 63, 0, 0, 0, 0, 205, 204, 76, 63, 3,
        1, 2, 3,
    ];

    fn golden_records() -> Vec<EntityRecord> {
        vec![deer(-20.5, b""), chest(-1.0), deer(-31.0, &[1, 2, 3])]
    }

    #[test]
    fn entity_records_are_the_same_bytes_on_the_wire_and_in_a_save() {
        use crate::persist::entities::{EntityDeltas, encode_entities};
        let chunk = ChunkCoord::new(-1, 2, 0);
        // The scene table: two paths, in increasing order.
        let mut table = vec![2, 26];
        table.extend_from_slice(b"res://game/life/chest.tscn");
        table.push(25);
        table.extend_from_slice(b"res://game/life/deer.tscn");
        // The packet: tag, chunk (zigzag), removed spawns 0 and 7 (as 0 and the gap 6), the
        // table, the record count, the records.
        let m = Message::ChunkEntities { chunk, removed_spawns: vec![0, 7], records: golden_records() };
        let mut packet = vec![TAG_CHUNK_ENTITIES, 1, 4, 0, 2, 0, 6];
        packet.extend_from_slice(&table);
        packet.push(3);
        packet.extend_from_slice(&GOLDEN_RECORD_BYTES);
        assert_eq!(m.encode(), packet);
        assert_eq!(Message::decode(&packet), Ok(m));
        // The save's entity section: the table, one chunk of removed spawns, one chunk of
        // records, one chunk of harvested decorations (0 and 32767).
        let mut deltas = EntityDeltas::default();
        deltas.remove_spawn(chunk, 0);
        deltas.remove_spawn(chunk, 7);
        golden_records().into_iter().for_each(|r| deltas.push_record(r));
        deltas.remove_scatter(ChunkCoord::new(0, 0, 0), 0);
        deltas.remove_scatter(ChunkCoord::new(0, 0, 0), 32767);
        let mut section = table.clone();
        section.extend_from_slice(&[1, 1, 4, 0, 2, 0, 6, 1, 1, 4, 0, 3]);
        section.extend_from_slice(&GOLDEN_RECORD_BYTES);
        section.extend_from_slice(&[1, 0, 0, 0, 2, 0, 254, 255, 1]);
        let mut out = Vec::new();
        encode_entities(&mut out, &deltas);
        assert_eq!(out, section);
        use crate::persist::entities::{RecordPositions, decode_entities};
        let mut r = crate::persist::codec::Reader::new("golden", &section);
        assert_eq!(decode_entities(&mut r, RecordPositions::InChunk).expect("reads back"), deltas);
        assert_eq!(r.left(), 0);
        // Version 0.2's section (world positions) reads back to the same records.
        let mut old = section[..section.len() - GOLDEN_RECORD_BYTES.len() - 9].to_vec();
        old.extend_from_slice(&GOLDEN_RECORD_BYTES_0_2);
        old.extend_from_slice(&[1, 0, 0, 0, 2, 0, 254, 255, 1]);
        let mut r = crate::persist::codec::Reader::new("golden 0.2", &old);
        assert_eq!(decode_entities(&mut r, RecordPositions::World).expect("reads back"), deltas);
        assert_eq!(r.left(), 0);
    }

    #[test]
    fn every_message_round_trips_and_every_prefix_is_refused() {
        for m in samples() {
            let bytes = m.encode();
            assert_eq!(Message::decode(&bytes), Ok(m.clone()));
            for cut in 0..bytes.len() {
                assert!(Message::decode(&bytes[..cut]).is_err(), "{m:?} cut at {cut} was accepted");
            }
            let mut longer = bytes.clone();
            longer.push(0);
            assert!(matches!(Message::decode(&longer), Err(DecodeError::Trailing { .. })));
        }
    }

    #[test]
    fn batches_keep_order_fit_their_limit_and_bad_framing_is_refused() {
        let messages: Vec<Vec<u8>> = (0..300u32)
            .map(|i| {
                Message::EditApplied {
                    order: i as u64,
                    player: 1,
                    request: i,
                    pos: IVec3::new(i as i32, 2, 3),
                    block: 1,
                }
                .encode()
            })
            .collect();
        let packets = pack_batches(messages.clone(), 1200);
        assert!(packets.len() > 1, "300 edits do not fit one 1200-byte packet");
        let mut back = Vec::new();
        for p in &packets {
            assert!(p.len() <= 1200, "a packet of {} bytes", p.len());
            back.extend(split_batch(p).expect("a batch splits").into_iter().map(<[u8]>::to_vec));
        }
        assert_eq!(back, messages, "every message, in order");
        // One message travels as itself; an oversized one alone.
        assert_eq!(pack_batches(vec![messages[0].clone()], 1200), vec![messages[0].clone()]);
        let big = Message::Chat { player: 1, text: "x".repeat(200) }.encode();
        let packed = pack_batches(vec![messages[0].clone(), big.clone(), messages[1].clone()], 100);
        assert_eq!(packed, vec![messages[0].clone(), big, messages[1].clone()]);
        assert_eq!(split_batch(&messages[0]).unwrap(), vec![&messages[0][..]]);
        // A batch is not a message.
        let batch = &packets[0];
        assert!(matches!(Message::decode(batch), Err(DecodeError::OutOfRange { what: "message tag", .. })));
        // Bad framing: every prefix, an empty message, a nested batch, trailing bytes, a count
        // past what the bytes hold.
        for end in 1..batch.len() {
            assert!(split_batch(&batch[..end]).is_err(), "prefix of {end} bytes");
        }
        for (bad, what) in [
            (vec![TAG_BATCH, 2, 0, 1, 5, 1, 5], "batched message length"),
            (vec![TAG_BATCH, 2, 1, TAG_BATCH, 1, 5], "batched message tag"),
            (vec![TAG_BATCH, 200, 1], "batch message count"),
        ] {
            let e = split_batch(&bad).expect_err("bad framing");
            assert!(e.to_string().contains(what), "{e} names {what}");
        }
        let mut trailing = batch.clone();
        trailing.push(0);
        assert!(matches!(split_batch(&trailing), Err(DecodeError::Trailing { .. })));
        assert_eq!(varint_len(0), 1);
        assert_eq!(varint_len(127), 1);
        assert_eq!(varint_len(128), 2);
        assert_eq!(varint_len(u64::MAX), 10);
    }

    #[test]
    fn a_single_voxel_edit_is_small_on_the_wire() {
        // Typical: near the origin, a small block id, an early request.
        let req = Message::EditRequest { request: 100, pos: IVec3::new(-120, 64, 300), block: 5 };
        assert!(req.encode().len() <= 10, "{} bytes", req.encode().len());
        let applied =
            Message::EditApplied { order: 100_000, player: 3, request: 100, pos: IVec3::new(-120, 64, 300), block: 5 };
        assert!(applied.encode().len() <= 16, "{} bytes", applied.encode().len());
        // The worst case still fits in 32 bytes for a request.
        let worst =
            Message::EditRequest { request: u32::MAX, pos: IVec3::new(i32::MIN, i32::MIN, i32::MIN), block: u16::MAX };
        assert!(worst.encode().len() <= 24, "{} bytes", worst.encode().len());
    }

    #[test]
    fn random_and_mutated_bytes_never_panic_and_errors_name_the_place() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        let valid: Vec<Vec<u8>> = samples().iter().map(Message::encode).collect();
        for i in 0..200_000 {
            let bytes: Vec<u8> = if i % 2 == 0 {
                let n = (rng.next_u32() % 48) as usize;
                (0..n).map(|_| rng.next_u32() as u8).collect()
            } else {
                let mut b = valid[i % valid.len()].clone();
                let at = rng.next_u32() as usize % b.len();
                b[at] = rng.next_u32() as u8;
                b
            };
            if let Err(e) = Message::decode(&bytes) {
                assert!(!e.to_string().is_empty());
            }
        }
        let huge = vec![TAG_CHAT; MAX_PACKET_BYTES + 1];
        assert_eq!(
            Message::decode(&huge),
            Err(DecodeError::TooLarge { len: MAX_PACKET_BYTES + 1, max: MAX_PACKET_BYTES })
        );
        // A count larger than the packet could hold is refused before allocating.
        let mut lying = vec![TAG_CHUNK_EDITS, 0, 0, 0, 0];
        put_varint(&mut lying, MAX_CHUNK_EDITS as u64);
        assert!(matches!(Message::decode(&lying), Err(DecodeError::Truncated { what: "chunk edits", .. })));
        let mut lying = vec![TAG_CHUNK_ENTITIES, 0, 0, 0, 0, 0];
        put_varint(&mut lying, 2);
        assert!(matches!(Message::decode(&lying), Err(DecodeError::Truncated { what: "entity record count", .. })));
        let e = Message::decode(&[TAG_HELLO, 1, 200, 1]).unwrap_err();
        assert_eq!(e.to_string(), "the player name at byte 2 is 200 bytes long; allowed: at most 32");
        assert_eq!(Message::decode(&[99]).unwrap_err().to_string(), "unknown message tag 99; allowed: 1 to 22");
    }

    #[test]
    fn a_chunk_snapshot_is_sorted_gap_coded_and_a_full_chunk_of_water_fits_one_packet() {
        // Unsorted with a repeat: sent sorted, the last block of a voxel winning.
        let m = Message::ChunkEdits { chunk: ChunkCoord::new(0, 0, 0), order: 3, edits: vec![(9, 1), (2, 4), (9, 7)] };
        let back = Message::decode(&m.encode()).expect("decodes");
        assert_eq!(
            back,
            Message::ChunkEdits { chunk: ChunkCoord::new(0, 0, 0), order: 3, edits: vec![(2, 4), (9, 7)] }
        );
        // Every voxel of a chunk (a chunk full of water): two bytes each, one packet.
        let full: Vec<(u16, BlockId)> = (0..MAX_CHUNK_EDITS as u16).map(|i| (i, 5)).collect();
        let m = Message::ChunkEdits { chunk: ChunkCoord::new(-4, 2, 7), order: u64::MAX, edits: full };
        let bytes = m.encode();
        assert!(bytes.len() <= MAX_CHUNK_EDITS * 2 + 32 && bytes.len() <= MAX_PACKET_BYTES, "{} bytes", bytes.len());
        assert_eq!(Message::decode(&bytes), Ok(m));
        assert!(Message::is_chunk_snapshot(&bytes));
        assert!(!Message::is_chunk_snapshot(&Message::PlayerLeft { player: 1 }.encode()));
        assert!(!Message::is_chunk_snapshot(&[]));
        // A gap past the chunk's last voxel is refused with the place.
        let mut bad = vec![TAG_CHUNK_EDITS, 0, 0, 0, 0, 2];
        put_varint(&mut bad, 32_000);
        bad.push(1);
        put_varint(&mut bad, 767);
        bad.push(1);
        let e = Message::decode(&bad).unwrap_err();
        assert!(matches!(e, DecodeError::OutOfRange { what: "local voxel index", value: 32_768, .. }), "{e}");
    }

    #[test]
    fn a_side_view_chunk_carries_records_of_several_cells_exactly() {
        use crate::persist::entities::{RECORD_IN_OTHER_CELL, kept_position};
        // Side-view chunk (x, y) of 64 tiles is (x, y, 0) on the wire; at x = 3,000,000 tiles its
        // records stand in cells 93,750 and 93,751, far from the chunk's own numbers.
        let chunk = ChunkCoord::new(46_875, -2, 0);
        let at = |x: f64, y: f64, state: &[u8]| EntityRecord {
            scene: "res://a.tscn".into(),
            position: kept_position([x, y, 0.0]),
            rotation: [0.0, 0.0, 0.247_404, 0.968_912],
            scale: [-1.0, 1.0, 1.0],
            state: state.to_vec(),
        };
        let records = vec![at(3_000_000.25, -120.5, b""), at(3_000_063.75, -70.125, &[9])];
        let m = Message::ChunkEntities { chunk, removed_spawns: vec![4, 9], records: records.clone() };
        let bytes = m.encode();
        assert_eq!(Message::decode(&bytes), Ok(m), "every number back exactly");
        // A record of the message's own cell names none: a 3D world's bytes are as before.
        let own = Message::ChunkEntities {
            chunk: records[0].chunk(),
            removed_spawns: vec![],
            records: vec![records[0].clone()],
        };
        let own_bytes = own.encode();
        let flags_at = own_bytes.len() - 1 - 16 - 12;
        assert_eq!(own_bytes[flags_at] & RECORD_IN_OTHER_CELL, 0, "no cell named");
        assert_eq!(Message::decode(&own_bytes), Ok(own));
        // A named cell outside the world is refused with its place and value.
        let plain = |x: f64| EntityRecord {
            scene: "res://a.tscn".into(),
            position: [x, 1.0, 0.0],
            rotation: EntityRecord::NO_ROTATION,
            scale: EntityRecord::NO_SCALE,
            state: Vec::new(),
        };
        let far = Message::ChunkEntities {
            chunk: ChunkCoord::new(0, 0, 0),
            removed_spawns: vec![],
            records: vec![plain(160.5)],
        };
        let mut bad = far.encode();
        let n = bad.len();
        assert_eq!(bad[n - 4], RECORD_IN_OTHER_CELL, "the flags, then the cell (5, 0, 0)");
        assert_eq!(&bad[n - 3..], &[10, 0, 0]);
        let mut huge = Vec::new();
        put_zigzag(&mut huge, 1 << 27);
        bad.splice(n - 3..n - 2, huge);
        let e = Message::decode(&bad).unwrap_err();
        assert!(
            matches!(e, DecodeError::OutOfRange { what: "entity cell", value: 134_217_728, offset, .. } if offset == n - 3),
            "{e}"
        );
    }

    #[test]
    fn bad_chunk_entities_are_named_errors() {
        let chunk = ChunkCoord::new(-1, 2, 0);
        let ok = Message::ChunkEntities { chunk, removed_spawns: vec![3], records: vec![deer(-20.5, b"")] };
        let bytes = ok.encode();
        // Flags with an unknown bit: tag, chunk (3), one key, one scene (1 + 1 + 25), one record,
        // scene index, position (12), then the flags.
        let flags_at = 1 + 3 + 2 + 1 + 1 + 25 + 1 + 1 + 12;
        // A record outside the message's chunk: 37 voxels from its corner.
        let mut outside = bytes.clone();
        outside[flags_at - 12..flags_at - 8].copy_from_slice(&37.0f32.to_le_bytes());
        let e = Message::decode(&outside).unwrap_err();
        assert!(matches!(e, DecodeError::OutOfRange { what: "entity position", .. }), "{e}");
        assert_eq!(bytes[flags_at], 1, "the rotation flag");
        let mut bad = bytes.clone();
        bad[flags_at] = 0x81;
        let e = Message::decode(&bad).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("the entity flags at byte {flags_at} is 129; allowed: bits 1, 2, 4 and 8 only")
        );
        // A scene index past the table.
        let mut bad = bytes.clone();
        bad[flags_at - 13] = 1;
        let e = Message::decode(&bad).unwrap_err();
        assert!(matches!(e, DecodeError::OutOfRange { what: "entity scene index", .. }), "{e}");
        // A position that is not a number.
        let mut bad = bytes.clone();
        bad[flags_at - 12..flags_at - 8].copy_from_slice(&f32::NAN.to_le_bytes());
        let e = Message::decode(&bad).unwrap_err();
        assert!(matches!(e, DecodeError::OutOfRange { what: "entity position", allowed: "a finite number", .. }));
        // A key past u32 by its gap.
        let over = [TAG_CHUNK_ENTITIES, 1, 4, 0, 2, 0xff, 0xff, 0xff, 0xff, 0x0f, 0, 0, 0];
        let e = Message::decode(&over).unwrap_err();
        assert!(matches!(e, DecodeError::OutOfRange { what: "removed spawn key", .. }), "{e}");
    }

    #[test]
    fn the_largest_shared_state_fits_one_packet_and_past_its_bounds_is_refused() {
        use crate::net::shared_state::SharedState;
        let entries: Vec<(String, SharedValue)> = (0..MAX_SHARED_KEYS)
            .map(|i| (format!("{i:0>64}"), SharedValue::Bytes(vec![7; MAX_SHARED_VALUE_BYTES])))
            .collect();
        // What the server would hold at its limits.
        assert!(SharedState::from_entries(entries.clone()).is_ok());
        let whole = Message::SharedState { entries: entries.clone() };
        let bytes = whole.encode();
        assert!(bytes.len() <= MAX_PACKET_BYTES, "{} bytes", bytes.len());
        assert_eq!(Message::decode(&bytes), Ok(whole));
        // One key too many.
        let mut more = entries.clone();
        more.push(("z".repeat(MAX_SHARED_KEY_BYTES), SharedValue::Bool(true)));
        let e = Message::decode(&Message::SharedState { entries: more }.encode()).unwrap_err();
        assert!(matches!(e, DecodeError::OutOfRange { what: "shared state count", .. }), "{e}");
        // A key too long, empty, with a control character; a value too long.
        let set =
            |key: &str, value: SharedValue| Message::SharedStateSet { key: key.into(), value: Some(value) }.encode();
        let e = Message::decode(&set(&"k".repeat(MAX_SHARED_KEY_BYTES + 1), SharedValue::Int(1))).unwrap_err();
        assert_eq!(e.to_string(), "the shared state key at byte 1 is 65 bytes long; allowed: at most 64");
        for key in ["", "a\tb"] {
            let e = Message::decode(&set(key, SharedValue::Int(1))).unwrap_err();
            assert!(matches!(e, DecodeError::OutOfRange { what: "shared state key", .. }), "{e}");
        }
        let e = Message::decode(&set("t", SharedValue::Text("x".repeat(MAX_SHARED_VALUE_BYTES + 1)))).unwrap_err();
        assert!(matches!(e, DecodeError::TooLong { what: "shared text", .. }), "{e}");
        let e = Message::decode(&set("b", SharedValue::Bytes(vec![0; MAX_SHARED_VALUE_BYTES + 1]))).unwrap_err();
        assert!(matches!(e, DecodeError::TooLong { what: "shared bytes", .. }), "{e}");
        // Numbers that are not finite, an unknown type, a bool that is not 0 or 1.
        let e = Message::decode(&set("f", SharedValue::Float(f64::NAN))).unwrap_err();
        assert!(matches!(e, DecodeError::OutOfRange { what: "shared float", .. }), "{e}");
        let e = Message::decode(&set("v", SharedValue::Vector2([0.0, f32::INFINITY]))).unwrap_err();
        assert!(matches!(e, DecodeError::OutOfRange { what: "shared vector", .. }), "{e}");
        let e = Message::decode(&[TAG_SHARED_STATE_SET, 1, b'k', 9]).unwrap_err();
        assert_eq!(e.to_string(), "the shared value type at byte 3 is 9; allowed: 0 to 7");
        let e = Message::decode(&[TAG_SHARED_STATE_SET, 1, b'k', VALUE_BOOL, 2]).unwrap_err();
        assert!(matches!(e, DecodeError::OutOfRange { what: "shared bool", .. }), "{e}");
        // A whole state with keys out of order, twice the same key, or an erased entry.
        let two = |a: &str, b: &str| {
            Message::SharedState { entries: vec![(a.into(), SharedValue::Int(1)), (b.into(), SharedValue::Int(2))] }
                .encode()
        };
        for bytes in [two("b", "a"), two("a", "a")] {
            let e = Message::decode(&bytes).unwrap_err();
            assert!(matches!(e, DecodeError::OutOfRange { allowed: "keys in strictly increasing order", .. }), "{e}");
        }
        let e = Message::decode(&[TAG_SHARED_STATE, 1, 1, b'k', VALUE_ERASED]).unwrap_err();
        assert!(matches!(e, DecodeError::OutOfRange { what: "shared value type", .. }), "{e}");
        // A count the packet cannot hold is refused before allocating.
        let mut lying = vec![TAG_SHARED_STATE];
        put_varint(&mut lying, MAX_SHARED_KEYS as u64);
        assert!(matches!(Message::decode(&lying), Err(DecodeError::Truncated { what: "shared state count", .. })));
    }

    #[test]
    fn a_pose_correction_is_small_server_only_and_refuses_a_pose_that_is_not_a_number() {
        let pose = Pose::standing([100.5, 70.0, -3.0], 0.5, 0.0);
        let m = Message::PoseCorrection { tick: 300, pose };
        // Tag, tick (2), position (3 × f64), yaw, pitch, eye height (3 × f32).
        assert_eq!(m.encode().len(), 1 + 2 + 24 + 12);
        assert!(!m.is_from_client());
        assert!(!Message::ChunkReleased { chunk: ChunkCoord::new(0, 0, 0) }.is_from_client());
        let mut bad = m.encode();
        bad[3 + 8..3 + 16].copy_from_slice(&f64::NAN.to_le_bytes());
        let e = Message::decode(&bad).unwrap_err();
        assert_eq!(e.to_string(), "the y at byte 11 is 0; allowed: a finite number");
        for (eye_height, shown) in [(-0.5f32, "0"), (16.5, "16"), (f32::INFINITY, "0")] {
            let mut bad = m.encode();
            bad[3 + 32..3 + 36].copy_from_slice(&eye_height.to_le_bytes());
            let e = Message::decode(&bad).unwrap_err();
            assert_eq!(e.to_string(), format!("the eye height at byte 35 is {shown}; allowed: 0 to 16 voxels"));
        }
        // A pose far out keeps its fraction: 10⁹ + 0.25 is exact on the wire.
        let far = Message::PoseCorrection { tick: 1, pose: Pose::standing([1e9 + 0.25, 70.0, -1e9 - 0.5], 0.0, 0.0) };
        assert_eq!(Message::decode(&far.encode()), Ok(far));
        assert!(Pose::standing([0.0; 3], 0.0, 0.0).is_valid());
        assert!(!Pose { eye_height: 17.0, ..pose }.is_valid() && !Pose { yaw: f32::NAN, ..pose }.is_valid());
        assert!(!Pose::standing([0.0, 3e9, 0.0], 0.0, 0.0).is_valid());
        assert_eq!(chunk_of([-0.5, 31.9, 32.0]), ChunkCoord::new(-1, 0, 1));
        assert_eq!(chunk_of([f64::MAX, f64::MIN, 0.0]), ChunkCoord::new(i32::MAX / 32, i32::MIN / 32, 0));
        let view = ViewRadius { horizontal: 2, vertical: 1 };
        let c = ChunkCoord::new(0, 0, 0);
        assert!(view.contains(c, ChunkCoord::new(2, -1, -2), 0));
        assert!(!view.contains(c, ChunkCoord::new(3, 0, 0), 0) && view.contains(c, ChunkCoord::new(3, 0, 0), 1));
        assert!(!view.contains(c, ChunkCoord::new(0, 2, 0), 0));
        assert!(!view.contains(ChunkCoord::new(i32::MIN, 0, 0), ChunkCoord::new(i32::MAX, 0, 0), 1000));
    }

    #[test]
    fn a_shared_time_of_day_is_small_on_the_wire() {
        let m = Message::SharedStateSet { key: "time_of_day".into(), value: Some(SharedValue::Float(0.3)) };
        assert_eq!(m.encode().len(), 1 + 1 + 11 + 1 + 8);
        assert!(!m.is_from_client());
        assert!(!Message::SharedState { entries: vec![] }.is_from_client());
    }

    #[test]
    fn a_moving_deer_is_small_on_the_wire() {
        // Four moving deer of one chunk, each with a small state: what a chunk update costs.
        let records = (0..4).map(|i| deer(-20.0 - f64::from(i), &[0; 24])).collect();
        let m = Message::ChunkEntities { chunk: ChunkCoord::new(-1, 2, 0), removed_spawns: vec![0, 1, 2, 3], records };
        let n = m.encode().len();
        assert!(n <= 4 + 5 + 27 + 1 + 4 * 59, "{n} bytes");
    }
}
