//! World saves: the preset, the player's edits and a little game state in one small file.
//!
//! Layout (integers little-endian; "varint" = LEB128, "zigzag" = signed LEB128 by zigzag):
//!
//! | offset | size | content |
//! |---|---|---|
//! | 0 | 8 | magic `STRATASV` |
//! | 8 | 2 | format version ([`SAVE_VERSION`]; 1 to 4 are still read) |
//! | 10 | 2 | flags (0) |
//! | 12 | 4 | length of the decompressed payload (at most [`MAX_PAYLOAD_BYTES`]) |
//! | 16 | 4 | CRC-32 of the decompressed payload |
//! | 20 | … | payload, raw DEFLATE |
//!
//! Payload: the preset as compact RON text (varint length + UTF-8) in the sparse form of
//! [`crate::preset::fingerprint::preset_to_sparse_ron`] (name, seed and the settings that differ from the
//! frozen version-1 baseline: complete, yet a few bytes; the full text would take ~1.1 KB even
//! compressed), fingerprint (varint length + ASCII), game
//! state (varint count, then key and value strings), the block table (format 2 only, below),
//! total edit count (varint), edited chunk count (varint), then per chunk in sorted order: the
//! chunk coordinate as zigzag deltas from the previous chunk, its run count, and runs of
//! consecutive local indices with one block id: (varint gap from the end of the previous run,
//! varint length − 1, varint block id).
//! Format 3 ends with the entity section ([`crate::persist::entities`]: removed spawns, kept
//! objects with their transforms and state, harvested decorations); formats 1 and 2 end after the
//! edits and load with no entity deltas.
//!
//! Format 4 adds, after the entity section, the edits whose water flow had not been applied when
//! the world was saved ([`PendingFlow`], oldest first), so that loading runs those flows again
//! (`stream::water_runner`): varint batch count, then per batch a flag byte (1: a flow runs after
//! it, 0: replayed without one) and a varint change count, then per change the voxel as zigzag
//! deltas from the previous change's voxel (the first from the origin) and its entry before and
//! after as varints (0: no edit, else the block table's id + 1). A save without pending flows is
//! written as format 3, so that older builds still read it; formats 1 to 3 load with none.
//!
//! Format 5 is format 4 with each kept entity record's position written from its chunk's least
//! corner ([`RecordPositions::InChunk`]): in world coordinates an `f32` cannot place an object
//! within its chunk beyond 2²⁴ voxels. It is written only for a save that keeps records, so
//! saves without them stay readable by older builds.
//!
//! Block table (format 2): varint entry count (at most 65,536), then per entry the block id as
//! the writer's library numbered it (varint, strictly increasing) and its name (varint length +
//! `[a-z0-9_]`, at most [`MAX_BLOCK_NAME_BYTES`] bytes). The writer lists exactly the ids its
//! edits use. Every run's block id must be in the table; on load each id is remapped by name into
//! the loading [`BlockLibrary`], so adding, removing or reordering blocks in a library never
//! changes what a save loads, and a name the library lacks is refused
//! ([`SaveError::MissingBlock`]) rather than loaded as a wrong block. Format 1 has no table: its
//! ids are those of the built-in blocks ([`crate::base::block::block_info`], ids
//! `0..BLOCK_COUNT`), read as their names and remapped the same way.
//!
//! The reader trusts nothing: every count is checked against a hard limit and against the bytes
//! left before anything is allocated, decompression stops at the declared length, the CRC and
//! the fingerprint are checked, block ids must name a block of the loading library, and every
//! error names the file and a byte offset. Decoding is pure: on any error nothing is handed back,
//! so the caller's world stays as it is.
//!
//! Writer and reader share one set of limits, [`SaveLimits`] ([`SAVE_LIMITS`]): a save that
//! loading would refuse is never written (law: Nothing is lost). [`write_world_save`] checks every
//! limit with an error naming it, the value and what is allowed, that every edit's block is in the
//! library (so the block table is complete), then decodes the payload it is about to write, table
//! included, and compares it with the input; only a save that reads back exactly reaches the
//! disk, and a refused one leaves the previous file untouched.
//!
//! Four entry points, [`encode_world_save`], [`decode_world_save`], [`write_world_save`] and
//! [`read_world_save`], each take [`SaveOptions`]: the [`BlockLibrary`] whose ids a
//! [`WorldSave`]'s edits hold (default: the built-in library, [`default_library`]), the limits
//! (default: [`SAVE_LIMITS`]) and, for encoding only, whether to skip the checks.
//!
//! May use: `base`, `preset`, `persist::codec`, `persist::entities`, `persist::error`.

use crate::base::atomic_file::write_atomic;
use crate::base::block::{BLOCK_COUNT, BlockId, block_info};
use crate::base::block_library::{BlockLibrary, MAX_BLOCK_NAME_BYTES, default_library, is_valid_block_name};
use crate::base::byte_codec::{put_str, put_varint, put_zigzag};
use crate::base::coords::{CHUNK_SIZE, CHUNK_VOLUME, ChunkCoord, IVec3};
use crate::base::edit_history::{PendingFlow, VoxelChange};
use crate::base::edits::{EditMap, local_from_index};
use crate::persist::codec::Reader;
use crate::persist::entities::{
    EntityDeltas, MAX_ENTITY_RECORDS, MAX_ENTITY_STATE_BYTES, MAX_SCENE_PATH_BYTES, RecordPositions, decode_entities,
    encode_entities,
};
pub use crate::persist::error::SaveError;
use crate::preset::fingerprint::{fingerprint, preset_from_sparse_ron, preset_to_sparse_ron};
use crate::preset::model::WorldPreset;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::io::{Read, Write};
use std::path::Path;

pub const SAVE_MAGIC: &[u8; 8] = b"STRATASV";
/// The newest save format this build reads and the one it writes for a save with kept entity
/// records (5: records placed from their chunk's corner, exact anywhere in the world; 4: with
/// pending flows; 3: with entity deltas; 2: with a block table; 1 to 4 are still read).
pub const SAVE_VERSION: u16 = 5;
/// The format written for a save with pending water flows and no kept entity records.
pub const SAVE_VERSION_WITH_FLOWS: u16 = 4;
/// The format written for a save without pending water flows (readable by builds that predate
/// format 4).
pub const SAVE_VERSION_WITHOUT_FLOWS: u16 = 3;
/// Most entries of a block table: one per possible block id.
pub const MAX_BLOCK_TABLE_ENTRIES: u64 = 1 << 16;
pub const HEADER_BYTES: usize = 20;
/// Largest decompressed payload a save may declare.
pub const MAX_PAYLOAD_BYTES: u32 = 64 << 20;
/// Largest save file read at all.
pub const MAX_FILE_BYTES: u64 = 64 << 20;
/// Most edited voxels in one save.
pub const MAX_EDITS: u64 = 16 << 20;
/// Most game-state entries.
pub const MAX_STATE_ENTRIES: u64 = 4096;
/// Longest game-state key or value, and longest preset text (the preset's name included).
pub const MAX_STRING_BYTES: u64 = 1 << 20;

/// The limits of a save, the same for writing and reading: the reader refuses a file beyond any
/// of them and the writer refuses to write one (law: Nothing is lost).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SaveLimits {
    /// Largest save file.
    pub max_file_bytes: u64,
    /// Largest decompressed payload.
    pub max_payload_bytes: u32,
    /// Most edited voxels.
    pub max_edits: u64,
    /// Most game-state entries.
    pub max_state_entries: u64,
    /// Longest game-state key or value, and longest preset text.
    pub max_string_bytes: u64,
}

/// The limits every save file keeps. Tests pass smaller [`SaveLimits`] to reach each limit
/// cheaply.
pub const SAVE_LIMITS: SaveLimits = SaveLimits {
    max_file_bytes: MAX_FILE_BYTES,
    max_payload_bytes: MAX_PAYLOAD_BYTES,
    max_edits: MAX_EDITS,
    max_state_entries: MAX_STATE_ENTRIES,
    max_string_bytes: MAX_STRING_BYTES,
};

/// A saved world. Its edits' block ids are those of the library it is written or read with.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WorldSave {
    pub preset: WorldPreset,
    pub edits: EditMap,
    /// Small game state (time of day, player position…) as text.
    pub state: BTreeMap<String, String>,
    /// How the world's objects differ from its spawn rules and scatter (format 3).
    pub entities: EntityDeltas,
    /// Edits whose water flow had not been applied, oldest first (format 4); loading runs them
    /// again (`Streamer::restore_water_flows`).
    pub pending_flows: Vec<PendingFlow>,
}

/// How a save is encoded, decoded, written or read. `SaveOptions::default()` is the built-in
/// block library, [`SAVE_LIMITS`] and a checked encoding; the builder methods change one field:
/// `SaveOptions::default().library(&lib).limits(small)`.
#[derive(Clone, Copy, Debug)]
pub struct SaveOptions<'a> {
    /// The library whose ids the save's edits hold: writing names each id's block from it, and
    /// reading remaps each block by name into it (a name it lacks is refused).
    pub library: &'a BlockLibrary,
    /// The limits the save must keep, the same for writing and reading.
    pub limits: SaveLimits,
    /// Encoding only ([`encode_world_save`]): give the bytes without the checks and the
    /// read-back, so a save beyond the limits or with an id the library lacks gives a file that
    /// loading refuses (for tools and tests that make such files). Writing is always checked.
    pub unchecked: bool,
}

impl Default for SaveOptions<'_> {
    fn default() -> Self {
        SaveOptions { library: default_library(), limits: SAVE_LIMITS, unchecked: false }
    }
}

impl<'a> SaveOptions<'a> {
    /// These options with the edits' ids those of `library`.
    pub fn library(self, library: &'a BlockLibrary) -> Self {
        SaveOptions { library, ..self }
    }

    /// These options with the limits `limits`.
    pub fn limits(self, limits: SaveLimits) -> Self {
        SaveOptions { limits, ..self }
    }

    /// These options encoding without the checks ([`SaveOptions::unchecked`]).
    pub fn unchecked(self) -> Self {
        SaveOptions { unchecked: true, ..self }
    }
}

impl WorldSave {
    /// The format this save is written in: the oldest that holds all of it.
    pub fn format_version(&self) -> u16 {
        if self.entities.records.values().any(|r| !r.is_empty()) {
            SAVE_VERSION
        } else if self.pending_flows.is_empty() {
            SAVE_VERSION_WITHOUT_FLOWS
        } else {
            SAVE_VERSION_WITH_FLOWS
        }
    }
}

// ------------------------------------------------------------------------------------------------
// Encoding

/// The decompressed payload of `save` in the current format, its preset stored as
/// `preset_text` and its block ids named by `library`. An id the library lacks is written
/// without a table entry, so loading refuses it.
fn encode_payload(save: &WorldSave, preset_text: &str, library: &BlockLibrary) -> Vec<u8> {
    let mut out = Vec::new();
    put_str(&mut out, preset_text);
    put_str(&mut out, &fingerprint(&save.preset));
    put_varint(&mut out, save.state.len() as u64);
    for (k, v) in &save.state {
        put_str(&mut out, k);
        put_str(&mut out, v);
    }
    let chunks = save.edits.chunks_sorted();
    let flow_ids = save.pending_flows.iter().flat_map(|f| &f.changes).flat_map(|c| [c.before, c.after]).flatten();
    let used: BTreeSet<BlockId> = chunks.iter().flat_map(|(_, m)| m.values().copied()).chain(flow_ids).collect();
    let named: Vec<(BlockId, &str)> = used.into_iter().filter_map(|id| Some((id, library.name_of(id)?))).collect();
    put_varint(&mut out, named.len() as u64);
    for (id, name) in named {
        put_varint(&mut out, id as u64);
        put_str(&mut out, name);
    }
    put_varint(&mut out, save.edits.len() as u64);
    put_varint(&mut out, chunks.len() as u64);
    let mut prev = ChunkCoord::new(0, 0, 0);
    for (c, edits) in chunks {
        put_zigzag(&mut out, c.x as i64 - prev.x as i64);
        put_zigzag(&mut out, c.y as i64 - prev.y as i64);
        put_zigzag(&mut out, c.z as i64 - prev.z as i64);
        prev = c;
        // Runs of consecutive indices with the same block.
        let mut runs: Vec<(u16, u16, BlockId)> = Vec::new();
        for (&i, &id) in edits {
            match runs.last_mut() {
                Some((start, len, rid)) if *rid == id && *start as u32 + *len as u32 == i as u32 => *len += 1,
                _ => runs.push((i, 1, id)),
            }
        }
        put_varint(&mut out, runs.len() as u64);
        let mut next = 0u32;
        for (start, len, id) in runs {
            put_varint(&mut out, (start as u32 - next) as u64);
            put_varint(&mut out, len as u64 - 1);
            put_varint(&mut out, id as u64);
            next = start as u32 + len as u32;
        }
    }
    encode_entities(&mut out, &save.entities);
    if save.format_version() >= 4 {
        encode_pending_flows(&mut out, &save.pending_flows);
    }
    out
}

/// The format-4 section of pending water flows (layout in the module docs).
fn encode_pending_flows(out: &mut Vec<u8>, flows: &[PendingFlow]) {
    let entry = |e: Option<BlockId>| e.map_or(0, |id| id as u64 + 1);
    put_varint(out, flows.len() as u64);
    let mut prev = IVec3::ZERO;
    for f in flows {
        out.push(u8::from(f.flows));
        put_varint(out, f.changes.len() as u64);
        for c in &f.changes {
            put_zigzag(out, c.pos.x as i64 - prev.x as i64);
            put_zigzag(out, c.pos.y as i64 - prev.y as i64);
            put_zigzag(out, c.pos.z as i64 - prev.z as i64);
            prev = c.pos;
            put_varint(out, entry(c.before));
            put_varint(out, entry(c.after));
        }
    }
}

/// Reads the format-4 section of pending water flows; every block id goes through `table` as
/// the edits' ids do, and the changes together count against the edit limit.
fn decode_pending_flows(
    r: &mut Reader,
    file: &str,
    limits: &SaveLimits,
    table: &[TableEntry],
    library: &BlockLibrary,
) -> Result<Vec<PendingFlow>, SaveError> {
    // A batch takes at least 2 bytes, a change at least 5.
    let n_flows = r.bounded("pending flow count", (r.left() as u64 / 2).min(limits.max_edits))?;
    let mut flows = Vec::with_capacity(n_flows as usize);
    let mut total = 0u64;
    let mut prev = [0i64; 3];
    for _ in 0..n_flows {
        let flag_at = r.pos();
        let flag = r.varint("pending flow flag")?;
        if flag > 1 {
            return Err(r.corrupt(flag_at, "pending flow flag", format!("{flag}"), "0 or 1".into()));
        }
        let n = r.bounded("pending flow change count", (r.left() as u64 / 5).min(limits.max_edits - total))?;
        total += n;
        let mut changes = Vec::with_capacity(n as usize);
        for _ in 0..n {
            let at = r.pos();
            for axis in &mut prev {
                *axis = axis.saturating_add(r.zigzag("pending flow voxel")?);
            }
            let limit = i32::MIN as i64..=i32::MAX as i64;
            if !prev.iter().all(|v| limit.contains(v)) {
                return Err(r.corrupt(
                    at,
                    "pending flow voxel",
                    format!("({}, {}, {})", prev[0], prev[1], prev[2]),
                    "32-bit voxel coordinates".into(),
                ));
            }
            let pos = IVec3::new(prev[0] as i32, prev[1] as i32, prev[2] as i32);
            let mut entry = |what: &str| -> Result<Option<BlockId>, SaveError> {
                let id_at = r.pos();
                let v = r.varint(what)?;
                if v == 0 {
                    return Ok(None);
                }
                let Ok(e) = table.binary_search_by_key(&(v - 1), |e| e.file_id).map(|i| &table[i]) else {
                    return Err(SaveError::UnknownBlock {
                        file: file.into(),
                        at: pos,
                        id: v - 1,
                        offset: Some(id_at as u64),
                        allowed: table_ids(table),
                        saving: false,
                    });
                };
                match e.id {
                    Some(id) => Ok(Some(id)),
                    None => Err(SaveError::MissingBlock {
                        file: file.into(),
                        name: e.name.clone(),
                        at: pos,
                        offset: Some(id_at as u64),
                        allowed: library_names(library),
                    }),
                }
            };
            let before = entry("pending flow entry before")?;
            let after = entry("pending flow entry after")?;
            changes.push(VoxelChange { pos, before, after });
        }
        flows.push(PendingFlow { flows: flag == 1, changes });
    }
    Ok(flows)
}

/// The save file around `payload`: header (format `version`), CRC and the compressed payload.
fn compress(payload: &[u8], version: u16) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_BYTES + payload.len() / 4);
    out.extend_from_slice(SAVE_MAGIC);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
    let mut enc = flate2::write::DeflateEncoder::new(out, flate2::Compression::best());
    // Writing into a Vec cannot fail.
    let _ = enc.write_all(payload);
    enc.finish().unwrap_or_default()
}

/// At most 40 characters of `s`, quoted, for messages.
fn shown(s: &str) -> String {
    let mut t: String = s.chars().take(40).collect();
    if t.len() < s.len() {
        t.push('…');
    }
    format!("\"{t}\"")
}

/// The whole save file as bytes, its block ids those of `options.library`, as
/// [`write_world_save`] writes them, after the same checks: every limit of `options.limits`
/// (each refusal names the limit, the value and what is allowed), every edit's block in the
/// library (so the block table names them all), a valid preset, and a read-back of the payload
/// with the library that must give `save` exactly. `file` names the save in errors.
///
/// With `options.unchecked` the bytes come without the checks and the read-back (never an
/// error): an id the library lacks, or a save beyond the limits, gives a file that loading
/// refuses.
pub fn encode_world_save(save: &WorldSave, file: &str, options: SaveOptions<'_>) -> Result<Vec<u8>, SaveError> {
    let SaveOptions { library, ref limits, unchecked } = options;
    if unchecked {
        return Ok(compress(
            &encode_payload(save, &preset_to_sparse_ron(&save.preset), library),
            save.format_version(),
        ));
    }
    let too_large =
        |what: String, value: String, allowed: String| SaveError::TooLarge { file: file.into(), what, value, allowed };
    save.preset.validate().map_err(|e| SaveError::Preset {
        file: file.into(),
        error: Box::new(crate::preset::error::PresetError::Invalid {
            source_name: "preset".into(),
            line: 0,
            column: 0,
            field: e.field,
            problem: e.problem,
            allowed: e.allowed,
        }),
    })?;
    let n_edits = save.edits.len() as u64;
    if n_edits > limits.max_edits {
        return Err(too_large(
            "the edit count".into(),
            format!("{n_edits} edited voxels"),
            format!("at most {} edited voxels", limits.max_edits),
        ));
    }
    for (c, edits) in save.edits.chunks_sorted() {
        if let Some((&i, &id)) = edits.iter().find(|&(_, &id)| library.get(id).is_none()) {
            return Err(SaveError::UnknownBlock {
                file: file.into(),
                at: voxel_of(c, i),
                id: id as u64,
                offset: None,
                allowed: format!("block ids 0..={} (the block library's {} blocks)", library.len() - 1, library.len()),
                saving: true,
            });
        }
    }
    let n_flow_changes: u64 = save.pending_flows.iter().map(|f| f.changes.len() as u64).sum();
    if n_flow_changes > limits.max_edits {
        return Err(too_large(
            "the pending water flows".into(),
            format!("{n_flow_changes} edited voxels"),
            format!("at most {} edited voxels", limits.max_edits),
        ));
    }
    let flow_entries =
        save.pending_flows.iter().flat_map(|f| &f.changes).flat_map(|c| [(c.pos, c.before), (c.pos, c.after)]);
    if let Some((at, id)) = flow_entries.filter_map(|(p, e)| Some((p, e?))).find(|&(_, id)| library.get(id).is_none()) {
        return Err(SaveError::UnknownBlock {
            file: file.into(),
            at,
            id: id as u64,
            offset: None,
            allowed: format!("block ids 0..={} (the block library's {} blocks)", library.len() - 1, library.len()),
            saving: true,
        });
    }
    let n_records = save.entities.record_count() as u64;
    if n_records > MAX_ENTITY_RECORDS {
        return Err(too_large(
            "the entity count".into(),
            format!("{n_records} entities"),
            format!("at most {MAX_ENTITY_RECORDS} entities"),
        ));
    }
    for (c, r) in save.entities.records.iter().flat_map(|(c, list)| list.iter().map(move |r| (c, r))) {
        if r.state.len() as u64 > MAX_ENTITY_STATE_BYTES || r.scene.len() as u64 > MAX_SCENE_PATH_BYTES {
            return Err(too_large(
                format!("the entity of {} at {:?}", shown(&r.scene), r.position),
                format!("a state of {} bytes and a scene path of {} bytes", r.state.len(), r.scene.len()),
                format!("at most {MAX_ENTITY_STATE_BYTES} bytes of state and {MAX_SCENE_PATH_BYTES} of path"),
            ));
        }
        if !(r.position.iter().all(|v| v.is_finite()) && r.rotation.iter().chain(&r.scale).all(|v| v.is_finite()))
            || r.chunk() != *c
        {
            return Err(SaveError::WouldNotLoad {
                file: file.into(),
                problem: format!(
                    "the entity of {} has the transform {:?} {:?} {:?} and is listed in chunk ({}, {}, {}); allowed: finite numbers, listed in the chunk of its position",
                    shown(&r.scene),
                    r.position,
                    r.rotation,
                    r.scale,
                    c.x,
                    c.y,
                    c.z
                ),
            });
        }
    }
    // The reader takes chunk coordinates of the entity lists within i32 / CHUNK_SIZE.
    let chunk_limit = (i32::MIN / CHUNK_SIZE)..=(i32::MAX / CHUNK_SIZE);
    let listed = save.entities.removed_spawns.keys().chain(save.entities.removed_scatter.keys());
    if let Some(c) = listed.into_iter().find(|c| ![c.x, c.y, c.z].iter().all(|v| chunk_limit.contains(v))) {
        return Err(SaveError::WouldNotLoad {
            file: file.into(),
            problem: format!(
                "the entity deltas list chunk ({}, {}, {}); allowed: chunk coordinates within {}..={}",
                c.x,
                c.y,
                c.z,
                chunk_limit.start(),
                chunk_limit.end()
            ),
        });
    }
    let n_state = save.state.len() as u64;
    if n_state > limits.max_state_entries {
        return Err(too_large(
            "the game state".into(),
            format!("{n_state} entries"),
            format!("at most {} entries", limits.max_state_entries),
        ));
    }
    let max_string = limits.max_string_bytes;
    for (k, v) in &save.state {
        for (what, len) in [("key", k.len()), ("value of the key", v.len())] {
            if len as u64 > max_string {
                return Err(too_large(
                    format!("the game state {what} {}", shown(k)),
                    format!("{len} bytes"),
                    format!("at most {max_string} bytes"),
                ));
            }
        }
    }
    let preset_text = preset_to_sparse_ron(&save.preset);
    if preset_text.len() as u64 > max_string {
        return Err(too_large(
            "the preset".into(),
            format!("{} bytes as text (its name alone is {} bytes)", preset_text.len(), save.preset.name.len()),
            format!("at most {max_string} bytes (a shorter name)"),
        ));
    }
    let payload = encode_payload(save, &preset_text, library);
    if payload.len() as u64 > limits.max_payload_bytes as u64 {
        return Err(too_large(
            "the save's data (before compression)".into(),
            format!("{} bytes", payload.len()),
            format!("at most {} bytes (fewer edits or a smaller game state)", limits.max_payload_bytes),
        ));
    }
    // Read back what is about to be written: only a save that loads as it is goes to disk.
    let mut entities = save.entities.clone();
    entities.compact();
    match decode_payload(&payload, file, limits, save.format_version(), library) {
        Ok(back)
            if back.preset == save.preset
                && back.edits == save.edits
                && back.state == save.state
                && back.entities == entities
                && back.pending_flows == save.pending_flows => {}
        Ok(back) => {
            let parts: Vec<&str> = [
                ("the preset", back.preset != save.preset),
                ("the edits", back.edits != save.edits),
                ("the game state", back.state != save.state),
                ("the entities", back.entities != entities),
                ("the pending water flows", back.pending_flows != save.pending_flows),
            ]
            .into_iter()
            .filter_map(|(what, differs)| differs.then_some(what))
            .collect();
            return Err(SaveError::WouldNotLoad {
                file: file.into(),
                problem: format!("{} would read back different", parts.join(" and ")),
            });
        }
        Err(e) => return Err(SaveError::WouldNotLoad { file: file.into(), problem: e.to_string() }),
    }
    let bytes = compress(&payload, save.format_version());
    if bytes.len() as u64 > limits.max_file_bytes {
        return Err(too_large(
            "the save file".into(),
            format!("{} bytes", bytes.len()),
            format!("at most {} bytes (fewer edits or a smaller game state)", limits.max_file_bytes),
        ));
    }
    Ok(bytes)
}

/// Writes `save`, its block ids those of `options.library`, to `path` atomically after the
/// checks of [`encode_world_save`] under `options.limits` (always: `options.unchecked` is not
/// read): a save that loading (with that library) would refuse is not written, and a crash or a
/// refusal leaves the previous save intact (law: Nothing is lost). The file names the blocks its
/// edits use, so any library that has those names can load it ([`read_world_save`]). A `path`
/// that is a link is written through; a folder, device, FIFO or socket is refused.
pub fn write_world_save(path: &Path, save: &WorldSave, options: SaveOptions<'_>) -> Result<(), SaveError> {
    let file = path.display().to_string();
    let bytes = encode_world_save(save, &file, SaveOptions { unchecked: false, ..options })?;
    write_atomic(path, &bytes).map_err(|error| SaveError::Io { file, action: "write", error })
}

// ------------------------------------------------------------------------------------------------
// Decoding

/// Decodes a save file's bytes under `options.limits`, every edit's block remapped by name into
/// the ids of `options.library` (format 1 ids read as the built-in blocks' names). A block the
/// library does not have is refused ([`SaveError::MissingBlock`], naming it, its first edit and
/// the library's names); nothing is returned on any error. `file` names the save in errors.
pub fn decode_world_save(bytes: &[u8], file: &str, options: SaveOptions<'_>) -> Result<WorldSave, SaveError> {
    let SaveOptions { library, ref limits, .. } = options;
    let head_err = |offset: u64, what: &str, problem: String, allowed: String| SaveError::Corrupt {
        file: file.into(),
        offset,
        in_payload: false,
        what: what.into(),
        problem,
        allowed,
    };
    if bytes.len() as u64 > limits.max_file_bytes {
        return Err(head_err(
            0,
            "file size",
            format!("{} bytes", bytes.len()),
            format!("at most {} bytes", limits.max_file_bytes),
        ));
    }
    if bytes.len() < SAVE_MAGIC.len() || &bytes[..8] != SAVE_MAGIC {
        if bytes.is_empty() {
            return Err(head_err(
                0,
                "header",
                "the file is empty".into(),
                format!("a {HEADER_BYTES}-byte header starting with \"STRATASV\""),
            ));
        }
        return Err(SaveError::NotASave { file: file.into(), found: bytes[..bytes.len().min(8)].to_vec() });
    }
    if bytes.len() < HEADER_BYTES {
        return Err(head_err(
            bytes.len() as u64,
            "header",
            format!("the file ends after {} bytes (truncated)", bytes.len()),
            format!("a {HEADER_BYTES}-byte header"),
        ));
    }
    let u16_at = |i: usize| u16::from_le_bytes([bytes[i], bytes[i + 1]]);
    let u32_at = |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    let version = u16_at(8);
    if version > SAVE_VERSION {
        return Err(SaveError::NewerVersion { file: file.into(), found: version, supported: SAVE_VERSION });
    }
    if version == 0 {
        return Err(head_err(8, "format version", "0".into(), format!("1..={SAVE_VERSION}")));
    }
    let flags = u16_at(10);
    if flags != 0 {
        return Err(head_err(10, "flags", format!("{flags:#06x}"), "0 (no flags are defined)".into()));
    }
    let declared = u32_at(12);
    if declared > limits.max_payload_bytes {
        return Err(head_err(
            12,
            "payload length",
            format!("claims {declared} bytes"),
            format!("at most {} bytes", limits.max_payload_bytes),
        ));
    }
    let stored_crc = u32_at(16);
    // Decompress at most declared + 1 bytes; the buffer grows with real data only.
    let mut payload = Vec::new();
    let mut dec = flate2::read::DeflateDecoder::new(&bytes[HEADER_BYTES..]).take(declared as u64 + 1);
    if let Err(e) = dec.read_to_end(&mut payload) {
        return Err(head_err(
            HEADER_BYTES as u64,
            "compressed payload",
            format!("cannot decompress: {e}"),
            "a raw DEFLATE stream".into(),
        ));
    }
    if payload.len() != declared as usize {
        return Err(head_err(
            HEADER_BYTES as u64,
            "compressed payload",
            format!(
                "decompresses to {}{} bytes, the header says {declared}",
                payload.len(),
                if payload.len() > declared as usize { "+" } else { "" }
            ),
            "exactly the declared length (truncated or damaged file?)".into(),
        ));
    }
    let computed = crc32fast::hash(&payload);
    if computed != stored_crc {
        return Err(SaveError::Checksum { file: file.into(), stored: stored_crc, computed });
    }
    decode_payload(&payload, file, limits, version, library)
}

/// One entry of a save's block table: the id the file uses, the block's name and its id in the
/// loading library, if it has one.
struct TableEntry {
    file_id: u64,
    name: String,
    id: Option<BlockId>,
}

/// The names of `library`'s blocks for messages: the first 32, then how many more.
fn library_names(library: &BlockLibrary) -> String {
    const SHOWN: usize = 32;
    let s: Vec<&str> = library.blocks().iter().take(SHOWN).map(|b| b.name.as_str()).collect();
    let more = library.len().saturating_sub(SHOWN);
    let more = if more > 0 { format!(" and {more} more") } else { String::new() };
    format!("{}{more}", s.join(", "))
}

/// The block table of a format-2 payload, each name looked up in `library`.
fn read_block_table(r: &mut Reader, library: &BlockLibrary) -> Result<Vec<TableEntry>, SaveError> {
    // Each entry takes at least 3 bytes: an id, a name length and one character.
    let n = r.bounded("block table count", MAX_BLOCK_TABLE_ENTRIES.min(r.left() as u64 / 3))?;
    let mut table: Vec<TableEntry> = Vec::with_capacity(n as usize);
    let mut names = HashSet::with_capacity(n as usize);
    for _ in 0..n {
        let id_at = r.pos();
        let file_id = r.bounded("block table id", MAX_BLOCK_TABLE_ENTRIES - 1)?;
        if table.last().is_some_and(|e| e.file_id >= file_id) {
            return Err(r.corrupt(
                id_at,
                "block table id",
                format!("{file_id} is out of order or repeated"),
                "ids in increasing order".into(),
            ));
        }
        let name_at = r.pos();
        let name = r.string("block table name", MAX_BLOCK_NAME_BYTES as u64)?;
        if !is_valid_block_name(&name) {
            return Err(r.corrupt(
                name_at,
                "block table name",
                shown(&name),
                format!("1..={MAX_BLOCK_NAME_BYTES} characters of a-z, 0-9 and _"),
            ));
        }
        if !names.insert(name.clone()) {
            return Err(r.corrupt(
                name_at,
                "block table name",
                format!("{} is named twice", shown(&name)),
                "each name once".into(),
            ));
        }
        table.push(TableEntry { file_id, id: library.id_of(&name), name });
    }
    Ok(table)
}

/// The ids of a block table for messages: the first 32, then how many more.
fn table_ids(table: &[TableEntry]) -> String {
    if table.is_empty() {
        return "none (the save's block table is empty)".into();
    }
    let ids: Vec<String> = table.iter().take(32).map(|e| e.file_id.to_string()).collect();
    let more = if table.len() > 32 { format!(" and {} more", table.len() - 32) } else { String::new() };
    format!("the ids of the save's block table: {}{more}", ids.join(", "))
}

fn decode_payload(
    payload: &[u8],
    file: &str,
    limits: &SaveLimits,
    version: u16,
    library: &BlockLibrary,
) -> Result<WorldSave, SaveError> {
    let mut r = Reader::new(file, payload);
    let preset_text = r.string("preset text", limits.max_string_bytes)?;
    let preset = preset_from_sparse_ron(&preset_text, "preset")
        .map_err(|error| SaveError::Preset { file: file.into(), error: Box::new(error) })?;
    let recorded = r.string("fingerprint", 64)?;
    let computed = fingerprint(&preset);
    if recorded != computed {
        return Err(SaveError::Fingerprint { file: file.into(), recorded, computed });
    }
    let n_state = r.bounded("game state count", limits.max_state_entries.min(r.left() as u64 / 2))?;
    let mut state = BTreeMap::new();
    for _ in 0..n_state {
        let k = r.string("game state key", limits.max_string_bytes)?;
        let v = r.string("game state value", limits.max_string_bytes)?;
        state.insert(k, v);
    }
    let table = if version >= 2 {
        read_block_table(&mut r, library)?
    } else {
        // Format 1 stored the built-in blocks' ids.
        (0..BLOCK_COUNT)
            .map(|id| {
                let name = block_info(id).name;
                TableEntry { file_id: id as u64, name: name.into(), id: library.id_of(name) }
            })
            .collect()
    };
    let total_at = r.pos();
    let total = r.bounded("edit count", limits.max_edits)?;
    // Each chunk takes at least 4 bytes (3 coordinates and a run count).
    let n_chunks = r.bounded("chunk count", (r.left() as u64 / 4).min(limits.max_edits))?;
    let mut edits = EditMap::new();
    let mut seen = 0u64;
    let mut c = [0i64; 3];
    let mut prev_chunk: Option<[i64; 3]> = None;
    for _ in 0..n_chunks {
        let chunk_at = r.pos();
        for axis in &mut c {
            *axis = axis.saturating_add(r.zigzag("chunk coordinate")?);
        }
        let limit = (i32::MIN as i64 / crate::base::coords::CHUNK_SIZE as i64)
            ..=(i32::MAX as i64 / crate::base::coords::CHUNK_SIZE as i64);
        if !c.iter().all(|v| limit.contains(v)) {
            return Err(r.corrupt(
                chunk_at,
                "chunk coordinate",
                format!("({}, {}, {})", c[0], c[1], c[2]),
                format!("each in {}..={}", limit.start(), limit.end()),
            ));
        }
        if prev_chunk.is_some_and(|p| p >= c) {
            return Err(r.corrupt(
                chunk_at,
                "chunk coordinate",
                "chunks out of order or repeated".into(),
                "chunks in increasing order".into(),
            ));
        }
        prev_chunk = Some(c);
        let chunk = ChunkCoord::new(c[0] as i32, c[1] as i32, c[2] as i32);
        let n_runs = r.bounded("run count", (CHUNK_VOLUME as u64).min(r.left() as u64 / 3))?;
        let mut next = 0u64;
        for _ in 0..n_runs {
            let run_at = r.pos();
            let gap = r.varint("run gap")?;
            let len = r.varint("run length")?.saturating_add(1);
            let id_at = r.pos();
            let id = r.varint("block id")?;
            let start = next.saturating_add(gap);
            let end = start.saturating_add(len);
            if end > CHUNK_VOLUME as u64 {
                return Err(r.corrupt(
                    run_at,
                    "edit run",
                    format!("covers local indices {start}..{end}"),
                    format!("indices below {CHUNK_VOLUME}"),
                ));
            }
            // On a refusal nothing of this world is handed back: the caller's world stays as it is.
            let Ok(entry) = table.binary_search_by_key(&id, |e| e.file_id).map(|i| &table[i]) else {
                return Err(SaveError::UnknownBlock {
                    file: file.into(),
                    at: voxel_of(chunk, start as u16),
                    id,
                    offset: Some(id_at as u64),
                    allowed: if version >= 2 {
                        table_ids(&table)
                    } else {
                        format!("block ids 0..={} (the built-in blocks of save format 1)", BLOCK_COUNT - 1)
                    },
                    saving: false,
                });
            };
            let Some(id) = entry.id else {
                return Err(SaveError::MissingBlock {
                    file: file.into(),
                    name: entry.name.clone(),
                    at: voxel_of(chunk, start as u16),
                    offset: Some(id_at as u64),
                    allowed: library_names(library),
                });
            };
            seen += len;
            if seen > total {
                return Err(r.corrupt(
                    run_at,
                    "edit run",
                    format!("more edits than the declared {total}"),
                    format!("{total} edits in all"),
                ));
            }
            for i in start..end {
                edits.set(chunk.min_voxel() + local_from_index(i as u16), id);
            }
            next = end;
        }
    }
    if seen != total {
        return Err(r.corrupt(
            total_at,
            "edit count",
            format!("declares {total} edits, the chunks hold {seen}"),
            format!("{seen}"),
        ));
    }
    let positions = if version >= 5 { RecordPositions::InChunk } else { RecordPositions::World };
    let entities = if version >= 3 { decode_entities(&mut r, positions)? } else { EntityDeltas::default() };
    let pending_flows =
        if version >= 4 { decode_pending_flows(&mut r, file, limits, &table, library)? } else { Vec::new() };
    if r.left() != 0 {
        return Err(r.corrupt(
            r.pos(),
            "end of payload",
            format!("{} unexpected trailing bytes", r.left()),
            "nothing after the last section".into(),
        ));
    }
    Ok(WorldSave { preset, edits, state, entities, pending_flows })
}

/// Reads and checks a save file as [`decode_world_save`] does with `options`, every edit's
/// block remapped by name into `options.library`. Files larger than the limits'
/// `max_file_bytes` are refused unread; the file itself is never changed.
pub fn read_world_save(path: &Path, options: SaveOptions<'_>) -> Result<WorldSave, SaveError> {
    let file = path.display().to_string();
    let io = |error| SaveError::Io { file: file.clone(), action: "read", error };
    let meta = std::fs::metadata(path).map_err(io)?;
    check_file_len(meta.len(), &file, options.limits.max_file_bytes)?;
    let bytes = std::fs::read(path).map_err(io)?;
    decode_world_save(&bytes, &file, options)
}

/// Refuses a save file of `len` bytes larger than [`MAX_FILE_BYTES`], before it is read (for
/// readers other than [`read_world_save`], such as Godot's file access; the bytes then go to
/// [`decode_world_save`]). `file` names it in the error.
pub fn check_save_file_len(len: u64, file: &str) -> Result<(), SaveError> {
    check_file_len(len, file, MAX_FILE_BYTES)
}

fn check_file_len(len: u64, file: &str, max: u64) -> Result<(), SaveError> {
    if len > max {
        return Err(SaveError::Corrupt {
            file: file.into(),
            offset: 0,
            in_payload: false,
            what: "file size".into(),
            problem: format!("{len} bytes"),
            allowed: format!("at most {max} bytes"),
        });
    }
    Ok(())
}

/// Position helper for tests and tools: the world voxel of local index `i` in chunk `c`.
pub fn voxel_of(c: ChunkCoord, i: u16) -> IVec3 {
    c.min_voxel() + local_from_index(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_with_edits_and_state() {
        let mut s = WorldSave::default();
        for i in 0..40 {
            s.edits.set(IVec3::new(i, 3, -i * 7), (i % 5) as BlockId);
        }
        s.edits.set(IVec3::new(-100_000, -64, 100_000), 17);
        s.state.insert("time_of_day".into(), "0.25".into());
        let bytes = encode_world_save(&s, "x.strata", SaveOptions::default().unchecked()).unwrap();
        assert_eq!(decode_world_save(&bytes, "x.strata", SaveOptions::default()).unwrap(), s);
        assert_eq!(encode_world_save(&s, "x.strata", SaveOptions::default()).unwrap(), bytes);
    }

    #[test]
    fn entity_deltas_of_chunks_the_reader_refuses_are_not_written() {
        let mut s = WorldSave::default();
        s.entities.remove_spawn(ChunkCoord::new(i32::MAX / CHUNK_SIZE, 0, 3), 1);
        let bytes = encode_world_save(&s, "x.strata", SaveOptions::default()).unwrap();
        assert_eq!(decode_world_save(&bytes, "x.strata", SaveOptions::default()).unwrap(), s, "the last chunk");
        s.entities.remove_spawn(ChunkCoord::new(i32::MAX / CHUNK_SIZE + 1, 0, 0), 1);
        let e = encode_world_save(&s, "x.strata", SaveOptions::default()).unwrap_err().to_string();
        assert!(e.contains("entity deltas list chunk (67108864, 0, 0)"), "{e}");
    }

    #[test]
    fn varints_round_trip() {
        for v in [0u64, 1, 127, 128, 300, u32::MAX as u64, u64::MAX] {
            let mut out = Vec::new();
            put_varint(&mut out, v);
            let mut r = Reader::new("", &out);
            assert_eq!(r.varint("v").unwrap(), v);
        }
        for v in [0i64, -1, 1, i32::MIN as i64, i64::MAX, i64::MIN] {
            let mut out = Vec::new();
            put_zigzag(&mut out, v);
            let mut r = Reader::new("", &out);
            assert_eq!(r.zigzag("v").unwrap(), v);
        }
    }
}
