//! `StrataChunkWorld2D`'s side of a shared world (`StrataWorldSync`): what the sync reads from
//! and writes into a side view, under the names the 3D world gives the same things.
//!
//! The world's kind on the wire (`WorldShape::Tiles` with the preset's chunk tiles), the preset
//! and edits a server starts from, the shared edits written as one batch each on every peer
//! (`apply_shared_tiles`: the tiles that change, one undo step, one water flow, as
//! `set_tiles_rect` writes them, so every peer flows the same water), a chunk snapshot written
//! without a flow, the water settled before one is taken, the tiles the server's movement checks
//! read (`with_solid_tiles`: solid tiles of loaded chunks, a chunk's generated tiles cached
//! across poses), positions between the node's pixels and the wire's world tiles (y down, z = 0,
//! through the floating origin) and `debug_chunk_hash`, which multiplayer tests compare.
//!
//! A child module of `chunk_world_2d`, so it reaches the node's streamer, kept edits and log.
//!
//! May use: `strata_core` (net, side-view streamer and generator), the parent module.

use super::ChunkWorld2D;
use godot::prelude::*;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;
use strata_core::base::block::BlockId;
use strata_core::base::coords::{IVec3, voxel_in_world};
use strata_core::base::edit_history::voxel_bounds;
use strata_core::base::edits::EditMap;
use strata_core::gen2d::{ChunkCoord2D, Generator2D, TileGrid};
use strata_core::net::movement::{NoVoxels, SolidVoxels};
use strata_core::net::world_shape::WorldShape;
use strata_core::stream::tile_edits::fill_changes;

/// Generated chunks a sync keeps for its movement checks before it starts again.
const MAX_CACHED_CHUNKS: usize = 256;

/// A side view's generated chunks (no edits), as the server's movement checks read them: a
/// pose's sweep reads a few chunks, the same ones pose after pose. Generated tiles never go
/// stale; a new generator (another preset) starts the cache again.
#[derive(Default)]
pub(crate) struct GeneratedTiles {
    generator: Option<Arc<Generator2D>>,
    chunks: HashMap<ChunkCoord2D, TileGrid>,
}

impl GeneratedTiles {
    fn tile(&mut self, generator: &Arc<Generator2D>, c: ChunkCoord2D, x: i32, y: i32) -> BlockId {
        if !self.generator.as_ref().is_some_and(|g| Arc::ptr_eq(g, generator)) {
            self.generator = Some(generator.clone());
            self.chunks.clear();
        }
        if self.chunks.len() >= MAX_CACHED_CHUNKS && !self.chunks.contains_key(&c) {
            self.chunks.clear();
        }
        let grid = self.chunks.entry(c).or_insert_with(|| generator.generate_chunk(c));
        grid.get(x, y).unwrap_or(strata_core::base::block::AIR)
    }
}

/// A side view's tiles as the movement checks read them: solid by the library's rules, a tile
/// of a chunk not loaded unknown (passable); z is not read (every z is the layer).
struct LoadedTiles<'a> {
    world: &'a ChunkWorld2D,
    generator: Arc<Generator2D>,
    cache: &'a RefCell<GeneratedTiles>,
}

impl SolidVoxels for LoadedTiles<'_> {
    fn is_solid(&self, p: IVec3) -> Option<bool> {
        let s = self.world.streamer.as_ref()?;
        if !voxel_in_world(IVec3::new(p.x, p.y, 0)) {
            return Some(false);
        }
        let c = ChunkCoord2D::containing(p.x, p.y, s.chunk_tiles());
        if !s.is_loaded(c) {
            return None;
        }
        let id = match s.edits().get(IVec3::new(p.x, p.y, 0)) {
            Some(id) => id,
            None => self.cache.borrow_mut().tile(&self.generator, c, p.x, p.y),
        };
        Some(self.world.tile_rules.is_solid(id))
    }
}

#[godot_api(secondary)]
impl ChunkWorld2D {
    /// Debug: a 64-bit hash of every tile of chunk `coord` (`chunk_tiles()` squared tiles from
    /// `coord * chunk_tiles()`), edits included: two worlds agree on a chunk exactly when their
    /// hashes do (what multiplayer tests and tools compare, as `StrataChunkWorld.debug_chunk_hash`).
    /// It generates the chunk on the calling thread, loaded or not; -1 while the world has no
    /// generator or outside the world.
    #[func]
    pub fn debug_chunk_hash(&mut self, coord: Vector2i) -> i64 {
        let n = self.chunk_tiles();
        let c = ChunkCoord2D::new(coord.x, coord.y);
        let (x0, y0) = (i64::from(c.x) * i64::from(n), i64::from(c.y) * i64::from(n));
        let corner = |v: i64| i32::try_from(v).ok();
        let (Some(x0), Some(y0), Some(x1), Some(y1)) =
            (corner(x0), corner(y0), corner(x0 + i64::from(n) - 1), corner(y0 + i64::from(n) - 1))
        else {
            return -1;
        };
        if !voxel_in_world(IVec3::new(x0, y0, 0)) || !voxel_in_world(IVec3::new(x1, y1, 0)) {
            return -1;
        }
        let Some(g) = self.generator() else { return -1 };
        let mut grid = g.generate_chunk(c);
        if let Some(edits) = self.edits() {
            for (p, id) in edits.edits_in_box(IVec3::new(x0, y0, 0), IVec3::new(n, n, 1)) {
                let i = ((p.y - y0) * n + (p.x - x0)) as usize;
                grid.tiles[i] = id;
            }
        }
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |b: u8| {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        };
        for v in [x0, y0, n] {
            v.to_le_bytes().into_iter().for_each(&mut eat);
        }
        for id in &grid.tiles {
            id.to_le_bytes().into_iter().for_each(&mut eat);
        }
        h as i64
    }
}

impl ChunkWorld2D {
    /// The kind of world a shared side view is on the wire.
    pub(crate) fn sync_shape(&self) -> WorldShape {
        WorldShape::tiles(self.chunk_tiles().max(0) as u32)
    }

    /// What a shared world's server starts from: the preset in use, a copy of the edits and how
    /// many blocks the world's library has.
    pub(crate) fn shared_world_state(&self) -> (strata_core::WorldPreset, EditMap, usize) {
        (self.core_preset(), self.edits().cloned().unwrap_or_default(), self.blocks.len())
    }

    /// Streams a shared world's `preset` with `edits` (what a server sent) in place of this one.
    pub(crate) fn adopt_shared_world(&mut self, preset: strata_core::WorldPreset, edits: EditMap) {
        self.restart_with(preset, edits, Vec::new());
        self.edit_log.clear();
    }

    /// Applies the water flows finished so far, as the next frame would; true when every flow
    /// of the edits so far is in (a shared world's server takes chunk snapshots only then).
    pub(crate) fn take_finished_water(&mut self) -> bool {
        let Some(s) = self.streamer.as_mut() else { return true };
        let flows = s.apply_water_flow_changes();
        self.edit_log.flows_applied(s, flows);
        s.is_water_settled()
    }

    /// The world's edits (the water flows placed included); `None` before any.
    pub(crate) fn edit_map(&self) -> Option<&EditMap> {
        self.edits()
    }

    /// A shared edit (the server's order): `tiles` set to `block` as one batch, the tiles that
    /// change only, one undo step and one water flow, as `set_tiles_rect` writes them; every
    /// peer writes every shared edit this way, so their water agrees. A block outside the
    /// library or tiles outside the world are refused with an error (the server checked both).
    pub(crate) fn apply_shared_tiles(&mut self, tiles: &[IVec3], block: BlockId) {
        if self.library_id(i64::from(block)).is_none() || tiles.iter().any(|t| t.z != 0 || !voxel_in_world(*t)) {
            godot_error!(
                "StrataChunkWorld2D: a shared edit of {} tiles to block {block} is not one of this world's; skipped",
                tiles.len()
            );
            return;
        }
        let Some(g) = self.generator() else {
            // No generator (an invalid preset): kept as edits, as `set_tile` keeps them.
            for t in tiles {
                self.set_tile(Vector2i::new(t.x, t.y), i64::from(block));
            }
            return;
        };
        let changes = fill_changes(&g, self.edits(), tiles, block);
        self.write_changes("apply_shared_tiles", &changes);
    }

    /// A shared world's chunk snapshot: the tiles of side-view chunk `chunk` that differ from
    /// generation become exactly `tiles` (the chunk's other edits are removed), written as one
    /// batch replayed without a water flow and kept out of the undo history; `voxels_changed`
    /// announces them. Write it only when the water is settled (`take_finished_water`).
    pub(crate) fn replace_chunk_edits(&mut self, chunk: ChunkCoord2D, tiles: &[(IVec3, BlockId)]) {
        self.ensure_streamer();
        let n = self.chunk_tiles();
        let (x0, y0) = chunk.min_tile(n);
        let want: HashMap<IVec3, BlockId> = tiles.iter().copied().collect();
        let edits = self.edits();
        let mut batch: Vec<(IVec3, Option<BlockId>)> = edits
            .map(|e| e.edits_in_box(IVec3::new(x0, y0, 0), IVec3::new(n, n, 1)))
            .unwrap_or_default()
            .into_iter()
            .filter(|(p, _)| !want.contains_key(p))
            .map(|(p, _)| (p, None))
            .collect();
        batch.extend(
            tiles.iter().filter(|(p, b)| edits.and_then(|e| e.get(*p)) != Some(*b)).map(|&(p, b)| (p, Some(b))),
        );
        if batch.is_empty() {
            return;
        }
        match self.streamer.as_mut() {
            Some(s) => s.replay_tiles(&batch),
            None => {
                let kept = self.host.kept_edits_mut();
                for (p, b) in &batch {
                    match b {
                        Some(b) => kept.set(*p, *b),
                        None => kept.clear_at(*p),
                    }
                }
            }
        }
        self.emit_tiles_changed(voxel_bounds(batch.iter().map(|e| e.0)));
    }

    /// Runs `f` with this world's tiles as the server's movement checks see them (see
    /// [`LoadedTiles`]); no tiles at all while nothing streams.
    pub(crate) fn with_solid_tiles<R>(
        &self,
        cache: &RefCell<GeneratedTiles>,
        f: impl FnOnce(&dyn SolidVoxels) -> R,
    ) -> R {
        let Some(s) = self.streamer.as_ref() else { return f(&NoVoxels) };
        let tiles = LoadedTiles { world: self, generator: s.generator().clone(), cache };
        f(&tiles)
    }

    /// A point of the node's space (pixels, world − origin) as the wire's world position: tiles,
    /// rows down, z = 0 (exact anywhere: the origin is added in `f64`).
    pub(crate) fn wire_of_local(&self, p: Vector2) -> [f64; 3] {
        let px = self.tile_pixels();
        let w = self.origin.to_world([f64::from(p.x) / f64::from(px.x), f64::from(p.y) / f64::from(px.y)]);
        [w[0], w[1], 0.0]
    }

    /// A world position from the wire (tiles) in the node's space (pixels).
    pub(crate) fn local_of_wire(&self, w: [f64; 3]) -> Vector2 {
        let px = self.tile_pixels();
        let l = self.origin.to_local([w[0], w[1]]);
        Vector2::new((l[0] * f64::from(px.x)) as f32, (l[1] * f64::from(px.y)) as f32)
    }

    /// Tiles per pixel of the node's space, vertically (body heights come in pixels).
    pub(crate) fn tiles_per_pixel_y(&self) -> f64 {
        1.0 / f64::from(self.tile_pixels().y.max(1))
    }

    /// The addon's own game-state entry `key` (under "strata."), as text.
    pub(crate) fn raw_state(&self, key: &str) -> Option<String> {
        self.host.raw_state(key).map(str::to_string)
    }

    /// Sets (or, with `None`, removes) the addon's own game-state entry `key`.
    pub(crate) fn set_raw_state(&mut self, key: &str, value: Option<String>) {
        self.host.set_raw_state(key, value);
    }

    /// The shared game state this world's game state holds (from a save or `keep_shared_game_state`).
    pub(crate) fn shared_game_state(
        &self,
    ) -> Result<strata_core::net::shared_state::SharedState, strata_core::net::shared_state::SharedStateError> {
        self.host.shared_game_state()
    }

    /// Keeps a shared world's game state in this world's game state, for its saves.
    pub(crate) fn keep_shared_game_state(&mut self, shared: &strata_core::net::shared_state::SharedState) {
        self.host.keep_shared_game_state(shared);
    }
}
