//! Entity deltas: what a world save keeps of the objects in a world, beyond what seed and preset
//! already say.
//!
//! Spawned objects are a pure function of seed, preset and chunk ([`crate::gen3d::spawns`]), so a
//! save holds only how the world differs from them:
//! - `removed_spawns`: per chunk, the spawn keys (rule and member index) of spawned objects that
//!   are no longer at their spawn: removed, or moved or changed (then kept as a record);
//! - `records`: per chunk, the objects standing in it that are not at their spawn (moved, changed,
//!   or added by the game), each as a scene path, a transform and the node's own state bytes;
//! - `removed_scatter`: per chunk, the local voxel index of each decoration (tree, bush, flower,
//!   rock) that was harvested.
//!
//! Section layout (after the edits, save format 3; "varint" is LEB128, coordinates are zigzag
//! deltas from the previous chunk of the same list, starting at (0, 0, 0)): the scene table
//! (varint count, each a varint length and UTF-8 text), then the three lists, each a varint chunk
//! count and per chunk in increasing order its coordinate and:
//! - removed spawns: varint count, keys increasing as varint gaps (the first from 0);
//! - records: varint count, then per record its scene (varint index into the table), position
//!   (3 × f32: from save format 5 and protocol 8 on, from its chunk's least corner, exact anywhere
//!   in the world; before, in world coordinates, [`RecordPositions::World`]), a flags byte (1: rotation follows, 2: scale follows, 4: state follows), rotation
//!   as a quaternion (4 × f32, x y z w), scale (3 × f32), state (varint length, bytes);
//! - removed scatter: varint count, local indices increasing as varint gaps.
//!
//! The reader checks every count against its limit and the bytes left, orders, table indices and
//! flags, and names the part and offset of anything wrong.
//!
//! One record's bytes ([`put_record`], [`read_record`]: scene index, position, flags, rotation,
//! scale, state) are the same in a save and on the wire: the wire protocol's chunk entity
//! message (`net::protocol`) uses these two functions, each format naming a [`RecordError`] in
//! its own error type. Only the wire lists a record under another chunk than its 32-voxel cell
//! (a side view's chunk holds several cells): such a record names its cell after the flags
//! ([`RECORD_IN_OTHER_CELL`]), so its position stays exact anywhere.
//!
//! May use: `base`, `persist::codec`, `persist::error`.

use crate::base::byte_codec::{ByteReader, ReadError, put_bytes, put_f32, put_str, put_varint, put_zigzag};
use crate::base::coords::{CHUNK_VOLUME, ChunkCoord, IVec3, WORLD_LIMIT_CHUNKS};
use crate::persist::codec::Reader;
use crate::persist::error::SaveError;
use std::collections::{BTreeMap, BTreeSet};
use thiserror::Error;

/// Most entity records in one save.
pub const MAX_ENTITY_RECORDS: u64 = 1 << 20;
/// Longest state of one entity, bytes.
pub const MAX_ENTITY_STATE_BYTES: u64 = 1 << 16;
/// Most distinct scenes in one save.
pub const MAX_ENTITY_SCENES: u64 = 1 << 16;
/// Longest scene path, bytes.
pub const MAX_SCENE_PATH_BYTES: u64 = 4096;

/// One object kept in a save: what it is, where, and its own state.
#[derive(Clone, Debug, PartialEq)]
pub struct EntityRecord {
    /// The scene it is an instance of (`res://…`).
    pub scene: String,
    /// Position in world coordinates (`f64`: exact to 10⁻⁷ m at the world's bounds).
    pub position: [f64; 3],
    /// Rotation as a unit quaternion (x, y, z, w).
    pub rotation: [f32; 4],
    pub scale: [f32; 3],
    /// The node's own state (its `strata_get_state()` in Godot's `var_to_bytes` form); empty:
    /// none.
    pub state: Vec<u8>,
}

impl EntityRecord {
    /// The identity rotation.
    pub const NO_ROTATION: [f32; 4] = [0.0, 0.0, 0.0, 1.0];
    /// The unit scale.
    pub const NO_SCALE: [f32; 3] = [1.0, 1.0, 1.0];

    /// The chunk the record stands in (by its position).
    pub fn chunk(&self) -> ChunkCoord {
        let f = |v: f64| v.floor().clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32;
        ChunkCoord::containing(IVec3::new(f(self.position[0]), f(self.position[1]), f(self.position[2])))
    }
}

/// `p` as a save and a packet keep it: an `f32` offset from its chunk's least corner (below
/// the chunk's side, so it stays in its chunk), added back in `f64`. A kept record holds this, so
/// what a save writes reads back equal.
pub fn kept_position(p: [f64; 3]) -> [f64; 3] {
    let f = |v: f64| v.floor().clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32;
    let corner = ChunkCoord::containing(IVec3::new(f(p[0]), f(p[1]), f(p[2]))).min_voxel();
    let side = crate::base::coords::CHUNK_SIZE as f32;
    let keep = |v: f64, c: i32| {
        let offset = ((v - f64::from(c)) as f32).clamp(0.0, side.next_down());
        f64::from(c) + f64::from(offset)
    };
    [keep(p[0], corner.x), keep(p[1], corner.y), keep(p[2], corner.z)]
}

/// The flag of a record that stands in another 32-voxel cell than its list's chunk: the cell
/// follows the flags (zigzag offsets from the chunk) and the position is from the cell's least
/// corner. Only the wire writes it, where a side view's chunk (up to 128 tiles square) holds the
/// records of several cells; a save's records are listed by their own cell.
pub const RECORD_IN_OTHER_CELL: u8 = 8;

/// How a record's position is written: from its chunk's least corner (save format 5 on,
/// protocol 8 on), or in world coordinates (older saves, read only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordPositions {
    /// `f32` offsets from the chunk's least corner: exact anywhere in the world.
    InChunk,
    /// As `InChunk`, or from the least corner of the cell a record names
    /// ([`RECORD_IN_OTHER_CELL`]; the wire, protocol 10 on).
    InCell,
    /// `f32` world coordinates: exact only within 2²⁴ voxels of the world's start.
    World,
}

/// How a world's objects differ from what its spawn rules and scatter give.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EntityDeltas {
    /// Per chunk: spawn keys of spawned objects no longer at their spawn.
    pub removed_spawns: BTreeMap<ChunkCoord, BTreeSet<u32>>,
    /// Per chunk: the objects standing in it that are not at their spawn.
    pub records: BTreeMap<ChunkCoord, Vec<EntityRecord>>,
    /// Per chunk: local voxel indices (`base::edits` order) of harvested decorations.
    pub removed_scatter: BTreeMap<ChunkCoord, BTreeSet<u16>>,
}

impl EntityDeltas {
    /// Nothing differs from the generated world.
    pub fn is_empty(&self) -> bool {
        self.removed_spawns.values().all(BTreeSet::is_empty)
            && self.records.values().all(Vec::is_empty)
            && self.removed_scatter.values().all(BTreeSet::is_empty)
    }

    /// Records in all chunks.
    pub fn record_count(&self) -> usize {
        self.records.values().map(Vec::len).sum()
    }

    /// Drops empty per-chunk entries, so that equal deltas compare equal.
    pub fn compact(&mut self) {
        self.removed_spawns.retain(|_, v| !v.is_empty());
        self.records.retain(|_, v| !v.is_empty());
        self.removed_scatter.retain(|_, v| !v.is_empty());
    }

    /// Adds `record` to the chunk it stands in.
    pub fn push_record(&mut self, mut record: EntityRecord) {
        record.position = kept_position(record.position);
        self.records.entry(record.chunk()).or_default().push(record);
    }

    /// Takes the records of chunk `c` out (they are about to stand in the world again).
    pub fn take_records(&mut self, c: ChunkCoord) -> Vec<EntityRecord> {
        self.records.remove(&c).unwrap_or_default()
    }

    /// Whether spawn `key` of chunk `c` is no longer at its spawn.
    pub fn is_spawn_removed(&self, c: ChunkCoord, key: u32) -> bool {
        self.removed_spawns.get(&c).is_some_and(|s| s.contains(&key))
    }

    /// Marks spawn `key` of chunk `c` as no longer at its spawn.
    pub fn remove_spawn(&mut self, c: ChunkCoord, key: u32) {
        self.removed_spawns.entry(c).or_default().insert(key);
    }

    /// Whether the decoration at local index `i` of chunk `c` was harvested.
    pub fn is_scatter_removed(&self, c: ChunkCoord, i: u16) -> bool {
        self.removed_scatter.get(&c).is_some_and(|s| s.contains(&i))
    }

    /// Marks the decoration at local index `i` of chunk `c` as harvested.
    pub fn remove_scatter(&mut self, c: ChunkCoord, i: u16) -> bool {
        self.removed_scatter.entry(c).or_default().insert(i)
    }
}

fn put_chunk(out: &mut Vec<u8>, prev: &mut ChunkCoord, c: ChunkCoord) {
    put_zigzag(out, c.x as i64 - prev.x as i64);
    put_zigzag(out, c.y as i64 - prev.y as i64);
    put_zigzag(out, c.z as i64 - prev.z as i64);
    *prev = c;
}

fn put_increasing(out: &mut Vec<u8>, values: impl ExactSizeIterator<Item = u64>) {
    put_varint(out, values.len() as u64);
    let mut prev = 0u64;
    for (i, v) in values.enumerate() {
        put_varint(out, if i == 0 { v } else { v - prev - 1 });
        prev = v;
    }
}

/// The scene table of `records`: each scene once, in increasing order; [`put_record`] writes a
/// record's scene as its index in it.
pub fn scene_table<'r>(records: impl IntoIterator<Item = &'r EntityRecord>) -> Vec<&'r str> {
    let mut scenes: Vec<&str> = records.into_iter().map(|r| r.scene.as_str()).collect();
    scenes.sort_unstable();
    scenes.dedup();
    scenes
}

/// Appends one record of `chunk`'s list: its scene's index in `scenes` (varint), position (3 ×
/// f32, from its cell's least corner: [`RecordPositions::InChunk`]), a flags byte
/// (1: rotation follows, 2: scale follows, 4: state follows, 8: its cell is not `chunk` and
/// follows as 3 zigzag offsets from `chunk`, [`RECORD_IN_OTHER_CELL`]), rotation as a quaternion
/// (4 × f32, x y z w), scale (3 × f32), state (varint length, bytes). The same bytes in a save
/// and on the wire.
pub fn put_record(out: &mut Vec<u8>, scenes: &[&str], chunk: ChunkCoord, r: &EntityRecord) {
    put_varint(out, scenes.binary_search(&r.scene.as_str()).unwrap_or(0) as u64);
    let cell = r.chunk();
    let corner = cell.min_voxel();
    let corner = [corner.x, corner.y, corner.z];
    r.position.iter().zip(corner).for_each(|(&v, c)| put_f32(out, (v - f64::from(c)) as f32));
    let rotated = r.rotation != EntityRecord::NO_ROTATION;
    let scaled = r.scale != EntityRecord::NO_SCALE;
    let stateful = !r.state.is_empty();
    let elsewhere = cell != chunk;
    out.push(
        u8::from(rotated)
            | (u8::from(scaled) << 1)
            | (u8::from(stateful) << 2)
            | if elsewhere { RECORD_IN_OTHER_CELL } else { 0 },
    );
    if elsewhere {
        put_zigzag(out, i64::from(cell.x) - i64::from(chunk.x));
        put_zigzag(out, i64::from(cell.y) - i64::from(chunk.y));
        put_zigzag(out, i64::from(cell.z) - i64::from(chunk.z));
    }
    if rotated {
        r.rotation.iter().for_each(|&v| put_f32(out, v));
    }
    if scaled {
        r.scale.iter().for_each(|&v| put_f32(out, v));
    }
    if stateful {
        put_bytes(out, &r.state);
    }
}

/// The part of an entity record being read when its bytes were refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordPart {
    /// The scene's index in the scene table (a varint).
    Scene,
    Position,
    Flags,
    /// The cell of a record in another cell than its list's chunk.
    Cell,
    Rotation,
    Scale,
    /// The state's length and bytes.
    State,
}

/// Why [`read_record`] refused a record's bytes. Offsets are from the start of the reader's
/// bytes; a save ([`SaveError::Corrupt`]) and a packet (`net::protocol::DecodeError`) each
/// name it in their own words.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum RecordError {
    #[error("entity {part:?}: {error}")]
    Read { part: RecordPart, error: ReadError },
    #[error("the entity scene index {index} at byte {start} is not in the scene table")]
    SceneIndex { start: usize, index: u64 },
    #[error("the entity {part:?} at byte {start} is {value}; allowed: a finite number")]
    NotFinite { part: RecordPart, start: usize, value: f32 },
    #[error("the entity flags at byte {start} are {flags:#04x}; allowed: {allowed}")]
    Flags { start: usize, flags: u8, allowed: &'static str },
    #[error("the entity cell at byte {start} is {value} on an axis; allowed: a cell of the world")]
    Cell { start: usize, value: i64 },
    #[error("the entity at byte {start} stands at {position:?}, outside its chunk")]
    OutsideChunk { start: usize, position: [f64; 3] },
}

fn read_finite(r: &mut ByteReader, part: RecordPart) -> Result<f32, RecordError> {
    let start = r.pos();
    let value = r.f32().map_err(|error| RecordError::Read { part, error })?;
    if !value.is_finite() {
        return Err(RecordError::NotFinite { part, start, value });
    }
    Ok(value)
}

/// Reads one record that [`put_record`] wrote (or, with [`RecordPositions::World`], an older
/// writer), its scene looked up in `scenes`; it must stand in `chunk` (or, with
/// [`RecordPositions::InCell`], in the cell it names). Numbers must be finite, the flags known,
/// a named cell inside the world and the state at most [`MAX_ENTITY_STATE_BYTES`] and no longer
/// than the bytes left.
pub fn read_record(
    r: &mut ByteReader,
    scenes: &[String],
    chunk: ChunkCoord,
    positions: RecordPositions,
) -> Result<EntityRecord, RecordError> {
    let start = r.pos();
    let index = r.varint().map_err(|error| RecordError::Read { part: RecordPart::Scene, error })?;
    let Some(scene) = scenes.get(index as usize).cloned() else {
        return Err(RecordError::SceneIndex { start, index });
    };
    let mut offsets = [0f32; 3];
    for v in &mut offsets {
        *v = read_finite(r, RecordPart::Position)?;
    }
    let flags_at = r.pos();
    let flags = r.byte().map_err(|error| RecordError::Read { part: RecordPart::Flags, error })?;
    if flags & !(7 | RECORD_IN_OTHER_CELL) != 0 {
        let allowed = match positions {
            RecordPositions::InCell => "bits 1, 2, 4 and 8 only",
            _ => "bits 1, 2 and 4 only",
        };
        return Err(RecordError::Flags { start: flags_at, flags, allowed });
    }
    let cell = if flags & RECORD_IN_OTHER_CELL != 0 { read_cell(r, chunk)? } else { chunk };
    let corner = match positions {
        RecordPositions::InChunk | RecordPositions::InCell => cell.min_voxel(),
        RecordPositions::World => IVec3::ZERO,
    };
    let mut position = [0.0; 3];
    for ((v, o), c) in position.iter_mut().zip(offsets).zip([corner.x, corner.y, corner.z]) {
        *v = f64::from(o) + f64::from(c);
    }
    let mut rotation = EntityRecord::NO_ROTATION;
    if flags & 1 != 0 {
        for v in &mut rotation {
            *v = read_finite(r, RecordPart::Rotation)?;
        }
    }
    let mut scale = EntityRecord::NO_SCALE;
    if flags & 2 != 0 {
        for v in &mut scale {
            *v = read_finite(r, RecordPart::Scale)?;
        }
    }
    let mut state = Vec::new();
    if flags & 4 != 0 {
        let bytes =
            r.bytes(MAX_ENTITY_STATE_BYTES).map_err(|error| RecordError::Read { part: RecordPart::State, error })?;
        state.extend_from_slice(bytes);
    }
    let record = EntityRecord { scene, position, rotation, scale, state };
    // Only the wire lists a record under another chunk than its cell.
    let home = if positions == RecordPositions::InCell { cell } else { chunk };
    if record.chunk() != home {
        return Err(RecordError::OutsideChunk { start, position });
    }
    Ok(record)
}

/// The cell a record names ([`RECORD_IN_OTHER_CELL`]): zigzag offsets from `chunk`, inside the
/// world.
fn read_cell(r: &mut ByteReader, chunk: ChunkCoord) -> Result<ChunkCoord, RecordError> {
    let mut cell = [0i32; 3];
    for (v, c) in cell.iter_mut().zip([chunk.x, chunk.y, chunk.z]) {
        let start = r.pos();
        let d = r.zigzag().map_err(|error| RecordError::Read { part: RecordPart::Cell, error })?;
        let value = i64::from(c).saturating_add(d);
        *v = i32::try_from(value)
            .ok()
            .filter(|v| (-WORLD_LIMIT_CHUNKS..=WORLD_LIMIT_CHUNKS).contains(v))
            .ok_or(RecordError::Cell { start, value })?;
    }
    Ok(ChunkCoord::new(cell[0], cell[1], cell[2]))
}

/// Appends the entity section of `deltas` (empty per-chunk entries are left out).
pub fn encode_entities(out: &mut Vec<u8>, deltas: &EntityDeltas) {
    let scenes = scene_table(deltas.records.values().flatten());
    put_varint(out, scenes.len() as u64);
    for s in &scenes {
        put_str(out, s);
    }
    let spawns: Vec<_> = deltas.removed_spawns.iter().filter(|(_, v)| !v.is_empty()).collect();
    put_varint(out, spawns.len() as u64);
    let mut prev = ChunkCoord::new(0, 0, 0);
    for (&c, keys) in spawns {
        put_chunk(out, &mut prev, c);
        put_increasing(out, keys.iter().map(|&k| u64::from(k)));
    }
    let records: Vec<_> = deltas.records.iter().filter(|(_, v)| !v.is_empty()).collect();
    put_varint(out, records.len() as u64);
    let mut prev = ChunkCoord::new(0, 0, 0);
    for (&c, list) in records {
        put_chunk(out, &mut prev, c);
        put_varint(out, list.len() as u64);
        for r in list {
            put_record(out, &scenes, c, r);
        }
    }
    let scatter: Vec<_> = deltas.removed_scatter.iter().filter(|(_, v)| !v.is_empty()).collect();
    put_varint(out, scatter.len() as u64);
    let mut prev = ChunkCoord::new(0, 0, 0);
    for (&c, set) in scatter {
        put_chunk(out, &mut prev, c);
        put_increasing(out, set.iter().map(|&i| u64::from(i)));
    }
}

fn read_chunk(
    r: &mut Reader,
    c: &mut [i64; 3],
    prev: &mut Option<[i64; 3]>,
    what: &str,
) -> Result<ChunkCoord, SaveError> {
    let at = r.pos();
    for axis in c.iter_mut() {
        *axis = axis.saturating_add(r.zigzag(what)?);
    }
    let limit = (i32::MIN as i64 / crate::base::coords::CHUNK_SIZE as i64)
        ..=(i32::MAX as i64 / crate::base::coords::CHUNK_SIZE as i64);
    if !c.iter().all(|v| limit.contains(v)) {
        return Err(r.corrupt(
            at,
            what,
            format!("({}, {}, {})", c[0], c[1], c[2]),
            format!("each in {}..={}", limit.start(), limit.end()),
        ));
    }
    if prev.is_some_and(|p| p >= *c) {
        return Err(r.corrupt(at, what, "chunks out of order or repeated".into(), "chunks in increasing order".into()));
    }
    *prev = Some(*c);
    Ok(ChunkCoord::new(c[0] as i32, c[1] as i32, c[2] as i32))
}

fn read_increasing(r: &mut Reader, what: &str, max: u64) -> Result<Vec<u64>, SaveError> {
    let n = r.bounded(what, (r.left() as u64).min(max + 1))?;
    let mut out = Vec::with_capacity(n as usize);
    let mut prev = 0u64;
    for i in 0..n {
        let at = r.pos();
        let gap = r.varint(what)?;
        let v = if i == 0 { gap } else { prev.saturating_add(gap).saturating_add(1) };
        if v > max {
            return Err(r.corrupt(at, what, format!("value {v}"), format!("at most {max}")));
        }
        out.push(v);
        prev = v;
    }
    Ok(out)
}

/// The save error for a record refused at `e` (`scenes` in the table, standing in `chunk`).
fn save_error(r: &Reader, e: RecordError, scenes: usize, chunk: ChunkCoord) -> SaveError {
    let name = |part| match part {
        RecordPart::Scene => "entity scene",
        RecordPart::Position => "entity position",
        RecordPart::Flags => "entity flags",
        RecordPart::Cell => "entity cell",
        RecordPart::Rotation => "entity rotation",
        RecordPart::Scale => "entity scale",
        RecordPart::State => "entity state length",
    };
    match e {
        RecordError::Read {
            part: part @ (RecordPart::Position | RecordPart::Rotation | RecordPart::Scale),
            error: ReadError::Truncated { start, .. },
        } => r.corrupt(start, name(part), "the payload ends inside a number".into(), "4 bytes".into()),
        RecordError::Read { part: RecordPart::Flags, error: ReadError::Truncated { start, .. } } => {
            r.corrupt(start, "entity flags", "missing".into(), "one byte".into())
        }
        RecordError::Read { part: RecordPart::State, error: ReadError::Length { start, len, max, left } } => {
            if len > max {
                r.corrupt(start, "entity state length", format!("claims {len}"), format!("at most {max}"))
            } else {
                r.corrupt(
                    start,
                    "entity state length",
                    format!("{len} bytes"),
                    format!("at most the {left} bytes left"),
                )
            }
        }
        RecordError::Read { part, error } => r.error(name(part), error),
        RecordError::SceneIndex { start, index } => {
            r.corrupt(start, "entity scene", format!("index {index}"), format!("below {scenes}"))
        }
        RecordError::NotFinite { part, start, value } => {
            r.corrupt(start, name(part), format!("{value}"), "a finite number".into())
        }
        RecordError::Flags { start, flags, allowed } => {
            r.corrupt(start, "entity flags", format!("{flags:#04x}"), allowed.into())
        }
        RecordError::Cell { start, value } => {
            r.corrupt(start, "entity cell", format!("{value}"), "a cell of the world".into())
        }
        RecordError::OutsideChunk { start, position } => r.corrupt(
            start,
            "entity position",
            format!("({}, {}, {}) outside its chunk", position[0], position[1], position[2]),
            format!("a position in chunk ({}, {}, {})", chunk.x, chunk.y, chunk.z),
        ),
    }
}

/// Reads the entity section that [`encode_entities`] wrote.
pub(crate) fn decode_entities(r: &mut Reader, positions: RecordPositions) -> Result<EntityDeltas, SaveError> {
    let mut deltas = EntityDeltas::default();
    let n_scenes = r.bounded("entity scene count", MAX_ENTITY_SCENES.min(r.left() as u64))?;
    let mut scenes = Vec::with_capacity(n_scenes as usize);
    for _ in 0..n_scenes {
        scenes.push(r.string("entity scene path", MAX_SCENE_PATH_BYTES)?);
    }
    let n = r.bounded("removed spawn chunk count", r.left() as u64 / 4)?;
    let (mut c, mut prev) = ([0i64; 3], None);
    for _ in 0..n {
        let chunk = read_chunk(r, &mut c, &mut prev, "removed spawn chunk")?;
        let keys = read_increasing(r, "removed spawn key", u64::from(u32::MAX))?;
        deltas.removed_spawns.insert(chunk, keys.into_iter().map(|k| k as u32).collect());
    }
    let n = r.bounded("entity chunk count", r.left() as u64 / 4)?;
    let (mut c, mut prev) = ([0i64; 3], None);
    let mut total = 0u64;
    for _ in 0..n {
        let chunk = read_chunk(r, &mut c, &mut prev, "entity chunk")?;
        // Each record takes at least 14 bytes (scene, position, flags).
        let count = r.bounded("entity count", (r.left() as u64 / 14).min(MAX_ENTITY_RECORDS))?;
        total += count;
        if total > MAX_ENTITY_RECORDS {
            return Err(r.corrupt(
                r.pos(),
                "entity count",
                format!("{total} in all"),
                format!("at most {MAX_ENTITY_RECORDS}"),
            ));
        }
        let mut list = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let record = read_record(&mut r.raw, &scenes, chunk, positions)
                .map_err(|e| save_error(r, e, scenes.len(), chunk))?;
            list.push(record);
        }
        deltas.records.insert(chunk, list);
    }
    let n = r.bounded("harvested chunk count", r.left() as u64 / 4)?;
    let (mut c, mut prev) = ([0i64; 3], None);
    for _ in 0..n {
        let chunk = read_chunk(r, &mut c, &mut prev, "harvested chunk")?;
        let set = read_increasing(r, "harvested decoration", CHUNK_VOLUME as u64 - 1)?;
        deltas.removed_scatter.insert(chunk, set.into_iter().map(|i| i as u16).collect());
    }
    deltas.compact();
    Ok(deltas)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(x: f64, state: &[u8]) -> EntityRecord {
        EntityRecord {
            scene: if x < 0.0 { "res://a.tscn".into() } else { "res://b.tscn".into() },
            position: [x, 10.5, 3.25],
            rotation: if state.is_empty() { EntityRecord::NO_ROTATION } else { [0.0, 0.6, 0.0, 0.8] },
            scale: EntityRecord::NO_SCALE,
            state: state.to_vec(),
        }
    }

    fn sample() -> EntityDeltas {
        let mut d = EntityDeltas::default();
        d.remove_spawn(ChunkCoord::new(-1, 0, 2), 7);
        d.remove_spawn(ChunkCoord::new(-1, 0, 2), 65536 + 33);
        d.remove_spawn(ChunkCoord::new(4, -2, 0), 0);
        d.push_record(record(-40.0, b"state"));
        d.push_record(record(5.0, b""));
        d.push_record(record(6.0, &[1, 2, 3]));
        d.remove_scatter(ChunkCoord::new(0, 0, 0), 0);
        d.remove_scatter(ChunkCoord::new(0, 0, 0), 32767);
        d
    }

    fn decode(bytes: &[u8]) -> Result<EntityDeltas, SaveError> {
        let mut r = Reader::new("t", bytes);
        let d = decode_entities(&mut r, RecordPositions::InChunk)?;
        assert_eq!(r.left(), 0);
        Ok(d)
    }

    #[test]
    fn deltas_round_trip() {
        let d = sample();
        let mut out = Vec::new();
        encode_entities(&mut out, &d);
        assert_eq!(decode(&out).unwrap(), d);
        let mut empty = Vec::new();
        encode_entities(&mut empty, &EntityDeltas::default());
        assert_eq!(empty, [0, 0, 0, 0]);
    }

    #[test]
    fn every_truncation_and_a_bad_flag_are_named_errors() {
        let mut out = Vec::new();
        encode_entities(&mut out, &sample());
        for len in 0..out.len() {
            let mut r = Reader::new("t", &out[..len]);
            assert!(decode_entities(&mut r, RecordPositions::InChunk).is_err(), "truncated at {len} read");
        }
        let flags_at = out.iter().position(|&b| b == 5).unwrap();
        let mut bad = out.clone();
        bad[flags_at] = 0x85;
        let e = decode(&bad).unwrap_err().to_string();
        assert!(e.contains("entity flags") || e.contains("entity"), "{e}");
    }

    #[test]
    fn kept_records_read_back_equal_anywhere() {
        // Points whose offset in their chunk needs more bits than an f32 has, near chunk
        // corners (just below one: the offset rounds up to the side) and far out.
        let mut d = EntityDeltas::default();
        for x in [-1.0e-9, -15.3, 31.999_999_999, 1e9 + 0.1, -1_000_000_000.000_000_1, 4_000_007.77] {
            d.push_record(record(x, b""));
        }
        let mut out = Vec::new();
        encode_entities(&mut out, &d);
        assert_eq!(decode(&out).unwrap(), d);
        for r in d.records.values().flatten() {
            assert_eq!(kept_position(r.position), r.position, "kept twice is kept once");
        }
    }

    #[test]
    fn a_record_outside_its_chunk_is_refused() {
        let mut d = EntityDeltas::default();
        d.records.insert(ChunkCoord::new(9, 9, 9), vec![record(1.0, b"")]);
        let mut out = Vec::new();
        encode_entities(&mut out, &d);
        let e = decode(&out).unwrap_err().to_string();
        assert!(e.contains("outside its chunk"), "{e}");
    }
}
