//! The world a `StrataWorldSync` shares: a 3D `StrataChunkWorld` or a side view's
//! `StrataChunkWorld2D`, behind one set of calls, so the sync's server and client paths are one
//! for both kinds (the core tells them apart by `WorldShape`).
//!
//! Each call is the world's own method of the same job (`nodes/chunk_world*` and
//! `nodes/chunk_world_2d/sync_2d.rs`, `replica_2d.rs`). Entities are shared by both: the host's
//! deltas are keyed by the wire's chunks (a side view's `(x, y, 0)`), a client's world is a
//! replica.
//!
//! May use: the crate's `StrataChunkWorld` and `StrataChunkWorld2D`, `strata_core::net` (not its
//! parent: the sync node comes as a `Node`).

use crate::nodes::chunk_world::ChunkWorld;
use crate::nodes::chunk_world_2d::ChunkWorld2D;
use crate::nodes::chunk_world_2d::sync_2d::GeneratedTiles;
use godot::global::Error;
use godot::prelude::*;
use std::cell::RefCell;
use std::collections::BTreeSet;
use strata_core::base::block::BlockId;
use strata_core::base::coords::{ChunkCoord, IVec3};
use strata_core::base::edits::EditMap;
use strata_core::gen2d::ChunkCoord2D;
use strata_core::net::movement::SolidVoxels;
use strata_core::net::shared_state::{SharedState, SharedStateError};
use strata_core::net::world_shape::WorldShape;
use strata_core::persist::entities::{EntityDeltas, EntityRecord};

/// The world node a sync shares.
#[derive(Clone)]
pub(crate) enum SyncedWorld {
    Voxels(Gd<ChunkWorld>),
    Tiles(Gd<ChunkWorld2D>),
}

impl SyncedWorld {
    /// `node` as a shared world, when it is one of the two kinds.
    pub(super) fn of(node: Gd<Node>) -> Option<Self> {
        match node.try_cast::<ChunkWorld>() {
            Ok(w) => Some(Self::Voxels(w)),
            Err(node) => node.try_cast::<ChunkWorld2D>().ok().map(Self::Tiles),
        }
    }

    /// The kind of world on the wire.
    pub(super) fn shape(&self) -> WorldShape {
        match self {
            Self::Voxels(_) => WorldShape::Voxels,
            Self::Tiles(w) => w.bind().sync_shape(),
        }
    }

    /// The preset in use, a copy of the edits and how many blocks the library has.
    pub(super) fn shared_world_state(&self) -> (strata_core::WorldPreset, EditMap, usize) {
        match self {
            Self::Voxels(w) => w.bind().shared_world_state(),
            Self::Tiles(w) => w.bind().shared_world_state(),
        }
    }

    pub(super) fn structures_fingerprint(&mut self) -> String {
        match self {
            Self::Voxels(w) => w.bind_mut().get_structures_fingerprint().to_string(),
            Self::Tiles(w) => w.bind_mut().get_structures_fingerprint().to_string(),
        }
    }

    pub(super) fn raw_state(&self, key: &str) -> Option<String> {
        match self {
            Self::Voxels(w) => w.bind().raw_state(key),
            Self::Tiles(w) => w.bind().raw_state(key),
        }
    }

    pub(super) fn set_raw_state(&mut self, key: &str, value: Option<String>) {
        match self {
            Self::Voxels(w) => w.bind_mut().set_raw_state(key, value),
            Self::Tiles(w) => w.bind_mut().set_raw_state(key, value),
        }
    }

    pub(super) fn shared_game_state(&self) -> Result<SharedState, SharedStateError> {
        match self {
            Self::Voxels(w) => w.bind().shared_game_state(),
            Self::Tiles(w) => w.bind().shared_game_state(),
        }
    }

    pub(super) fn keep_shared_game_state(&mut self, shared: &SharedState) {
        match self {
            Self::Voxels(w) => w.bind_mut().keep_shared_game_state(shared),
            Self::Tiles(w) => w.bind_mut().keep_shared_game_state(shared),
        }
    }

    /// Loads a save into the world; the world's error message when it cannot.
    pub(super) fn load_world(&mut self, path: GString) -> Result<(), String> {
        let (err, message) = match self {
            Self::Voxels(w) => {
                let err = w.bind_mut().load_world(path);
                (err, w.bind().last_error())
            }
            Self::Tiles(w) => {
                let err = w.bind_mut().load_world(path);
                (err, w.bind().last_error())
            }
        };
        if err == Error::OK { Ok(()) } else { Err(message.to_string()) }
    }

    /// Saves the world; the world's error message when it cannot.
    pub(super) fn save_world(&mut self, path: GString) -> Result<(), String> {
        let (err, message) = match self {
            Self::Voxels(w) => {
                let err = w.bind_mut().save_world(path);
                (err, w.bind().last_error())
            }
            Self::Tiles(w) => {
                let err = w.bind_mut().save_world(path);
                (err, w.bind().last_error())
            }
        };
        if err == Error::OK { Ok(()) } else { Err(message.to_string()) }
    }

    /// A client: streams the server's world, its chunks' streaming reported to `sync`.
    pub(super) fn adopt(&mut self, sync: &Gd<Node>, preset: strata_core::WorldPreset, edits: EditMap) {
        let (mut node, suffix) = match self {
            Self::Voxels(w) => (w.clone().upcast::<Node>(), ""),
            Self::Tiles(w) => (w.clone().upcast::<Node>(), "_2d"),
        };
        for signal in ["chunk_loaded", "chunk_unloaded"] {
            let callable = Callable::from_object_method(sync, &format!("on_{signal}{suffix}"));
            if !node.is_connected(signal, &callable) {
                node.connect(signal, &callable);
            }
        }
        match self {
            Self::Voxels(w) => {
                let mut w = w.bind_mut();
                w.adopt_shared_world(preset, edits);
                w.set_entity_replica(true);
            }
            Self::Tiles(w) => {
                let mut w = w.bind_mut();
                w.adopt_shared_world(preset, edits);
                w.set_entity_replica(true);
            }
        }
    }

    /// Whether the world's entities act on their own (not a client's replicas).
    pub(super) fn entity_authority(&self) -> bool {
        match self {
            Self::Voxels(w) => w.bind().entity_authority(),
            Self::Tiles(w) => w.bind().entity_authority(),
        }
    }

    /// A client's world takes its own entities back.
    pub(super) fn end_replica(&mut self) {
        match self {
            Self::Voxels(w) => w.bind_mut().set_entity_replica(false),
            Self::Tiles(w) => w.bind_mut().set_entity_replica(false),
        }
    }

    /// The host world's entity deltas, keyed by the wire's chunks.
    pub(super) fn entity_snapshot(&self) -> EntityDeltas {
        match self {
            Self::Voxels(w) => w.bind().entities.snapshot(),
            Self::Tiles(w) => w.bind().wire_entity_deltas(),
        }
    }

    /// The server's entity deltas of some chunks (the wire's), applied to a client's replicas.
    pub(super) fn apply_replica_deltas(&mut self, updates: Vec<(ChunkCoord, BTreeSet<u32>, Vec<EntityRecord>)>) {
        match self {
            Self::Voxels(w) => w.bind_mut().apply_replica_deltas(updates),
            Self::Tiles(w) => w.bind_mut().apply_replica_deltas(updates),
        }
    }

    /// Applies the water flows finished so far; true when every flow of the edits so far is in.
    pub(super) fn take_finished_water(&mut self) -> bool {
        match self {
            Self::Voxels(w) => w.bind_mut().take_finished_water(),
            Self::Tiles(w) => w.bind_mut().take_finished_water(),
        }
    }

    /// Runs `f` with the world's edits (empty before any).
    pub(super) fn with_edit_map<R>(&self, f: impl FnOnce(&EditMap) -> R) -> R {
        let empty = EditMap::new();
        match self {
            Self::Voxels(w) => f(w.bind().edit_map().unwrap_or(&empty)),
            Self::Tiles(w) => f(w.bind().edit_map().unwrap_or(&empty)),
        }
    }

    /// A chunk snapshot (see `replace_chunk_edits` of each world); a side view's chunk is
    /// `(x, y, 0)`.
    pub(super) fn replace_chunk_edits(&mut self, chunk: ChunkCoord, voxels: &[(IVec3, BlockId)]) {
        match self {
            Self::Voxels(w) => w.bind_mut().replace_chunk_edits(chunk, voxels),
            Self::Tiles(w) => w.bind_mut().replace_chunk_edits(ChunkCoord2D::new(chunk.x, chunk.y), voxels),
        }
    }

    /// One edit of the server's order: `voxels` set to `block`, as one batch (a 3D edit is one
    /// voxel; a side view's shape edit many tiles).
    pub(super) fn apply_edit(&mut self, voxels: &[IVec3], block: BlockId) {
        match self {
            Self::Voxels(w) => {
                let mut w = w.bind_mut();
                for p in voxels {
                    w.set_voxel(Vector3i::new(p.x, p.y, p.z), i64::from(block));
                }
            }
            Self::Tiles(w) => w.bind_mut().apply_shared_tiles(voxels, block),
        }
    }

    /// Runs `f` with the world's solid voxels (tiles) as the movement checks read them.
    pub(super) fn with_solid_voxels<R>(
        &self,
        tiles: &RefCell<GeneratedTiles>,
        f: impl FnOnce(&dyn SolidVoxels) -> R,
    ) -> R {
        match self {
            Self::Voxels(w) => w.bind().with_solid_voxels(f),
            Self::Tiles(w) => w.bind().with_solid_tiles(tiles, f),
        }
    }
}
