//! `StrataChunkWorld2D`'s edit tools, under the 3D world's names where they apply: the shape
//! edits (`set_tiles_rect`, `set_tiles_circle`), edit groups, `undo` / `redo` (with the water
//! that followed), a step's changes as data for another undo system (`get_undo_changes`,
//! `apply_edit_changes`), and the one place every edit is written, recorded and announced with
//! `voxels_changed`.
//!
//! The logic is the core's: the shapes' tiles (`base::shapes`), which of them change and the log
//! of undo steps with their water (`stream::tile_edits`); this file checks the arguments, names
//! the method in every error and emits the signal.
//!
//! A child module of `chunk_world_2d`, so it reaches the node's streamer, kept edits and log
//! directly; its `#[func]`s are a secondary `#[godot_api]` block (the signal lives in the primary
//! block).
//!
//! May use: `strata_core` (shapes, tile edit log, history), the parent module.

use super::ChunkWorld2D;
use godot::prelude::*;
use strata_core::base::block::BlockId;
use strata_core::base::coords::{IVec3, voxel_in_world};
use strata_core::base::edit_history::{EditStep, GroupEnd, HistoryError, Recorded, VoxelChange, voxel_bounds};
use strata_core::base::shapes::{self, ShapeError};
use strata_core::stream::stream2d::batch_changes;
use strata_core::stream::tile_edits::{StepWritten, TileTarget, fill_changes};

/// Values per change in the arrays of `get_undo_changes` and `apply_edit_changes`.
const CHANGE_STRIDE: usize = 4;

#[godot_api(secondary)]
impl ChunkWorld2D {
    /// Sets every tile of the rectangle with corners `from` and `to` (both included, in any
    /// order) to block `id` of the library in use, as one edit: one batch (each chunk it touches
    /// re-tiled once, its rows written into the `TileMapLayer` over the next frames within
    /// `frame_budget_ms`), one undo step unless a group is open, one `voxels_changed`; water then
    /// flows as after `set_tile`. Returns how many tiles changed, or -1 with the reason in
    /// `last_error()` (a block id outside the library, more than 1,000,000 tiles, beyond the
    /// world's bounds) and nothing changed.
    #[func]
    pub fn set_tiles_rect(&mut self, from: Vector2i, to: Vector2i, id: i64) -> i64 {
        let tiles = shapes::rect_tiles([from.x, from.y], [to.x, to.y]);
        self.fill_shape("set_tiles_rect", tiles, id)
    }

    /// Sets every tile whose centre lies within `radius` tiles of the centre of tile `center`
    /// to block `id` as one edit, like `set_tiles_rect` (radius 0 is the one tile; a radius
    /// that is negative, not finite or over 1,024 is refused).
    #[func]
    pub fn set_tiles_circle(&mut self, center: Vector2i, radius: f64, id: i64) -> i64 {
        let tiles = shapes::circle_tiles([center.x, center.y], radius);
        self.fill_shape("set_tiles_circle", tiles, id)
    }

    /// Opens an edit group: the edits until the matching `end_edit_group()` (`set_tile`, the
    /// shape edits, `apply_edit_changes`) become one undo step. Groups nest; only the outermost
    /// makes a step. While a group is open, `undo()` and `redo()` refuse.
    #[func]
    pub fn begin_edit_group(&mut self) {
        self.edit_log.begin_group();
    }

    /// Closes the innermost edit group; returns true when it closed the outermost one and its
    /// edits became one undo step. False when nothing changed, an outer group is still open, no
    /// group was open (an error in `last_error()`), or the group changed more tiles than the
    /// history holds (2,000,000: its edits stay but cannot be undone, and the history is
    /// cleared; a warning says so).
    #[func]
    pub fn end_edit_group(&mut self) -> bool {
        match self.edit_log.end_group() {
            Ok(GroupEnd::Recorded(_)) => true,
            Ok(GroupEnd::Nested | GroupEnd::Empty) => false,
            Ok(GroupEnd::TooLarge) => {
                self.history_too_large("end_edit_group");
                false
            }
            Err(e) => {
                self.host.error(format!("StrataChunkWorld2D.end_edit_group: {e}"));
                false
            }
        }
    }

    /// Undoes the newest edit step: every tile it changed gets back the edit it had before (or
    /// no edit: the generated tile), the water that flowed after it included, as one batch with
    /// one `voxels_changed`. Returns whether something was undone: false when there is nothing
    /// to undo, or inside an edit group (an error in `last_error()`). The history holds at most
    /// 100 steps and 2,000,000 tile changes (the oldest go first); `clear_edits()`,
    /// `set_edits()`, `load_world()` and a preset change clear it.
    #[func]
    pub fn undo(&mut self) -> bool {
        let written = match self.streamer.as_mut() {
            Some(s) => self.edit_log.undo(TileTarget::Streamer(s)),
            None => self.edit_log.undo(TileTarget::Kept(self.host.kept_edits_mut())),
        };
        self.history_step_written("undo", written)
    }

    /// Redoes the newest undone step (its tiles get the edits they had after it, its water
    /// included), like `undo()`; false when there is nothing to redo. Any new edit drops the
    /// steps that could be redone.
    #[func]
    pub fn redo(&mut self) -> bool {
        let written = match self.streamer.as_mut() {
            Some(s) => self.edit_log.redo(TileTarget::Streamer(s)),
            None => self.edit_log.redo(TileTarget::Kept(self.host.kept_edits_mut())),
        };
        self.history_step_written("redo", written)
    }

    /// True when `undo()` would undo something (false inside an edit group).
    #[func]
    pub fn can_undo(&self) -> bool {
        self.edit_log.history().can_undo()
    }

    /// True when `redo()` would redo something (false inside an edit group).
    #[func]
    pub fn can_redo(&self) -> bool {
        self.edit_log.history().can_redo()
    }

    /// The changes of the step `undo()` would undo next, as `[x, y, before, after, …]` (four
    /// ints per tile; `before` and `after` are block ids, or -1 for no edit: the generated
    /// tile); empty when there is none. With `apply_edit_changes` it lets another undo system
    /// (the editor's) undo and redo the step.
    #[func]
    pub fn get_undo_changes(&self) -> PackedInt32Array {
        changes_to_array(self.edit_log.history().last_step())
    }

    /// Writes changes in the form `get_undo_changes()` returns as one edit (one batch, one undo
    /// step unless a group is open, one `voxels_changed`): each tile gets its `after`, or its
    /// `before` when `reverse` is true (undoing them). Returns false, with the reason in
    /// `last_error()` and nothing changed, when the array is not a list of four-int changes, a
    /// block id is outside the library or a tile is beyond the world's bounds.
    #[func]
    pub fn apply_edit_changes(&mut self, changes: PackedInt32Array, reverse: bool) -> bool {
        let batch = match changes_from_array(changes.as_slice(), reverse, self.blocks.len()) {
            Ok(b) => b,
            Err(e) => {
                self.host.error(format!("StrataChunkWorld2D.apply_edit_changes: {e}; nothing changed"));
                return false;
            }
        };
        let changes = match self.edits() {
            Some(e) => batch_changes(e, &batch),
            None => batch.iter().map(|&(pos, after)| VoxelChange { pos, before: None, after }).collect(),
        };
        self.write_changes("apply_edit_changes", &changes);
        true
    }
}

impl ChunkWorld2D {
    /// Writes `changes` (each tile's `after` entry) as one batch, records them in the undo
    /// history and emits `voxels_changed` with their rectangle (nothing when `changes` is empty).
    pub(super) fn write_changes(&mut self, method: &str, changes: &[VoxelChange]) {
        if changes.is_empty() {
            return;
        }
        let recorded = match self.streamer.as_mut() {
            Some(s) => self.edit_log.write(TileTarget::Streamer(s), changes),
            None => self.edit_log.write(TileTarget::Kept(self.host.kept_edits_mut()), changes),
        };
        if recorded == Recorded::TooLarge {
            self.history_too_large(method);
        }
        self.emit_tiles_changed(voxel_bounds(changes.iter().map(|c| c.pos)));
    }

    /// A shape edit: checks the block id and the shape, then sets the tiles that change as one
    /// batch; the count, or -1 with the error in `last_error()` and nothing changed.
    fn fill_shape(&mut self, method: &str, tiles: Result<Vec<IVec3>, ShapeError>, id: i64) -> i64 {
        let Some(block) = self.library_id(id) else {
            self.host.error(format!(
                "StrataChunkWorld2D.{method}: block id {id} is not a block of the world's library; allowed: 0..={}; nothing changed",
                self.blocks.len() - 1
            ));
            return -1;
        };
        let tiles = match tiles {
            Ok(t) => t,
            Err(e) => {
                self.host.error(format!("StrataChunkWorld2D.{method}: {e}; nothing changed"));
                return -1;
            }
        };
        let Some(g) = self.generator() else {
            self.host.error(format!(
                "StrataChunkWorld2D.{method}: the world has no generator (no valid preset); nothing changed"
            ));
            return -1;
        };
        let changes = fill_changes(&g, self.edits(), &tiles, block);
        self.write_changes(method, &changes);
        changes.len() as i64
    }

    /// Announces an undo or redo that was written, or reports why none was.
    fn history_step_written(&mut self, method: &str, written: Result<Option<StepWritten>, HistoryError>) -> bool {
        match written {
            Ok(Some(w)) => {
                self.emit_tiles_changed(Some(w.bounds));
                true
            }
            Ok(None) => false,
            Err(e) => {
                self.host.error(format!("StrataChunkWorld2D.{method}: {e}"));
                false
            }
        }
    }

    fn history_too_large(&mut self, method: &str) {
        self.host.warn(format!(
            "StrataChunkWorld2D.{method}: the edit changed more tiles than the undo history holds ({}); it stays but cannot be undone, and the history was cleared",
            self.edit_log.history().limits().max_voxels
        ));
    }
}

fn entry_to_int(e: Option<BlockId>) -> i32 {
    e.map(i32::from).unwrap_or(-1)
}

fn changes_to_array(step: Option<&EditStep>) -> PackedInt32Array {
    let Some(step) = step else { return PackedInt32Array::new() };
    let mut out = Vec::with_capacity(step.len() * CHANGE_STRIDE);
    for c in step.changes() {
        out.extend_from_slice(&[c.pos.x, c.pos.y, entry_to_int(c.before), entry_to_int(c.after)]);
    }
    PackedInt32Array::from(out.as_slice())
}

/// The entries to write from a `[x, y, before, after, …]` array: `after`s, or `before`s when
/// `reverse`; both block ids of every change must be -1 or below `block_count`.
fn changes_from_array(v: &[i32], reverse: bool, block_count: usize) -> Result<Vec<(IVec3, Option<BlockId>)>, String> {
    if !v.len().is_multiple_of(CHANGE_STRIDE) {
        return Err(format!("{} ints is not a list of [x, y, before, after] changes", v.len()));
    }
    let entry = |id: i32, p: IVec3| -> Result<Option<BlockId>, String> {
        match id {
            -1 => Ok(None),
            id if id >= 0 && (id as usize) < block_count => Ok(Some(id as BlockId)),
            id => Err(format!(
                "block id {id} at tile ({}, {}) is not a block of the world's library; allowed: -1 (no edit) or 0..={}",
                p.x,
                p.y,
                block_count.saturating_sub(1)
            )),
        }
    };
    v.chunks_exact(CHANGE_STRIDE)
        .map(|c| {
            let p = IVec3::new(c[0], c[1], 0);
            if !voxel_in_world(p) {
                return Err(format!(
                    "tile ({}, {}) is beyond the world's bounds; allowed: x and y in {}..{}",
                    p.x,
                    p.y,
                    -strata_core::base::coords::WORLD_LIMIT_VOXELS,
                    strata_core::base::coords::WORLD_LIMIT_VOXELS
                ));
            }
            let (before, after) = (entry(c[2], p)?, entry(c[3], p)?);
            Ok((p, if reverse { before } else { after }))
        })
        .collect()
}
