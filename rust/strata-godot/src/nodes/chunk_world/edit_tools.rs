//! `StrataChunkWorld`'s edit tools: the shape edits under the names, edit groups, undo and
//! redo over the core's [`EditHistory`], the changes of a step as data (what the editor plugin
//! hands to Godot's `EditorUndoRedoManager`), the edits saved with the scene
//! (`edits_data`), and the one place every edit is written, recorded and announced with
//! `voxels_changed`.
//!
//! Water: each recorded edit's flow ticket is tied to its undo step, and the flow, when it comes
//! back, joins that step ([`EditHistory::amend`]): undo removes the edit and the water it made
//! flow; redo replays both exactly (no new flow), or runs the flow again when part of it came
//! back only after the step was undone (that part is written back at once, so the world stays
//! as undone).
//!
//! A shared world's chunk snapshot (`StrataWorldSync` on a client) is written here too: the chunk
//! set to the server's voxels as one batch replayed without a flow (their water is part of
//! them), not recorded in the history.
//!
//! A child module of `chunk_world`, so it reaches the node's streamer, kept edits and history
//! directly; its `#[func]`s are a secondary `#[godot_api]` block (the signal itself lives in
//! the primary block: secondary blocks take no signals).
//!
//! May use: `strata_core` (edit history, shapes, saves), the parent module.

use super::ChunkWorld;
use crate::host::scene_edits;
use crate::host::world_edits::edit_bounds;
use godot::prelude::*;
use strata_core::IVec3;
use strata_core::base::block::BlockId;
use strata_core::base::coords::voxel_in_world;
use strata_core::base::edit_history::{Amended, EditStep, GroupEnd, Recorded, VoxelChange, voxel_bounds};
use strata_core::base::edits::EditMap;
use strata_core::base::shapes;
use strata_core::stream::streamer::AppliedFlow;

/// Values per change in the arrays of `get_undo_changes` and `apply_edit_changes`.
const CHANGE_STRIDE: usize = 5;

/// An undo or redo step to write: its entries, the box of its voxels, its id and whether its
/// water flow must run again (a redo of [`EditStep::needs_reflow`]).
type StepToWrite = (Vec<(IVec3, Option<BlockId>)>, Option<(IVec3, IVec3)>, u64, bool);

/// Where `edits_data` errors say they come from.
const EDITS_DATA: &str = "StrataChunkWorld.edits_data";

#[godot_api(secondary)]
impl ChunkWorld {
    /// Sets every voxel whose centre lies within `radius` of the centre of voxel `center` to
    /// block `id` as one edit (one batch: each touched chunk is remeshed once, one undo step
    /// unless a group is open, one `voxels_changed`); returns how many voxels changed, or -1
    /// with the reason in `last_error()` (a block id outside the library, a bad radius, more
    /// than 1,000,000 voxels, beyond the world's bounds) and nothing changed.
    #[func]
    pub fn set_voxels_sphere(&mut self, center: Vector3i, radius: f64, id: i64) -> i64 {
        let voxels = shapes::sphere_voxels(IVec3::new(center.x, center.y, center.z), radius);
        self.fill_shape("set_voxels_sphere", voxels, id)
    }

    /// Sets every voxel of the box with corners `from` and `to` (both included, in any order)
    /// to block `id` as one edit, like `set_voxels_sphere`.
    #[func]
    pub fn set_voxels_box(&mut self, from: Vector3i, to: Vector3i, id: i64) -> i64 {
        let voxels = shapes::box_voxels(IVec3::new(from.x, from.y, from.z), IVec3::new(to.x, to.y, to.z));
        self.fill_shape("set_voxels_box", voxels, id)
    }

    /// Opens an edit group: the edits until the matching `end_edit_group()` (`set_voxel`, the
    /// shape edits, `apply_edit_changes`) become one undo step. Groups nest; only the outermost
    /// makes a step. While a group is open, `undo()` and `redo()` refuse.
    #[func]
    pub fn begin_edit_group(&mut self) {
        self.edit_history.begin_group();
    }

    /// Closes the innermost edit group; returns true when it closed the outermost one and its
    /// edits became one undo step. False when nothing changed, an outer group is still open, no
    /// group was open (an error in `last_error()`), or the group changed more voxels than the
    /// history holds (2,000,000: its edits stay but cannot be undone, and the history is
    /// cleared; a warning says so).
    #[func]
    pub fn end_edit_group(&mut self) -> bool {
        match self.edit_history.end_group() {
            Ok(GroupEnd::Recorded(_)) => true,
            Ok(GroupEnd::Nested | GroupEnd::Empty) => false,
            Ok(GroupEnd::TooLarge) => {
                self.history_too_large("end_edit_group");
                false
            }
            Err(e) => {
                self.host.error(format!("StrataChunkWorld.end_edit_group: {e}"));
                false
            }
        }
    }

    /// Undoes the newest edit step: every voxel it changed gets back the edit it had before (or
    /// no edit: the generated block), as one batch (each touched chunk remeshed once) with one
    /// `voxels_changed`. Returns whether something was undone: false when there is nothing to
    /// undo, or inside an edit group (an error in `last_error()`). The history holds at most
    /// 100 steps and 2,000,000 voxel changes (the oldest go first); `clear_edits()`,
    /// `load_world()` and a preset change clear it, and edits a `StrataWorldSync` applies are in it
    /// like any other.
    #[func]
    pub fn undo(&mut self) -> bool {
        let step = self.edit_history.undo().map(|s| s.map(|s| (s.undo_batch(), s.bounds(), s.id(), false)));
        if let Ok(Some((_, _, id, _))) = &step
            && self.flow_steps.values().any(|s| s == id)
        {
            self.reflow_steps.insert(*id);
        }
        self.apply_history_step("undo", step)
    }

    /// Redoes the newest undone step (its voxels get the edits they had after it), like
    /// `undo()`; false when there is nothing to redo. Any new edit drops the steps that could
    /// be redone.
    #[func]
    pub fn redo(&mut self) -> bool {
        let step = self.edit_history.redo().map(|s| s.map(|s| (s.redo_batch(), s.bounds(), s.id(), s.needs_reflow())));
        let step =
            step.map(|s| s.map(|(b, bounds, id, reflow)| (b, bounds, id, reflow | self.reflow_steps.remove(&id))));
        self.apply_history_step("redo", step)
    }

    /// True when `undo()` would undo something (false inside an edit group).
    #[func]
    pub fn can_undo(&self) -> bool {
        self.edit_history.can_undo()
    }

    /// True when `redo()` would redo something (false inside an edit group).
    #[func]
    pub fn can_redo(&self) -> bool {
        self.edit_history.can_redo()
    }

    /// The changes of the step `undo()` would undo next, as `[x, y, z, before, after, …]`
    /// (five ints per voxel; `before` and `after` are block ids, or -1 for no edit: the
    /// generated block); empty when there is none. With `apply_edit_changes` it lets another
    /// undo system (the editor's) undo and redo the step.
    #[func]
    pub fn get_undo_changes(&self) -> PackedInt32Array {
        changes_to_array(self.edit_history.last_step())
    }

    /// Writes changes in the form `get_undo_changes()` returns as one edit (one batch, one
    /// undo step unless a group is open, one `voxels_changed`): each voxel gets its `after`, or
    /// its `before` when `reverse` is true (undoing them). Returns false, with the reason in
    /// `last_error()` and nothing changed, when the array is not a list of five-int changes, a
    /// block id is outside the library or a voxel is beyond the world's bounds.
    #[func]
    pub fn apply_edit_changes(&mut self, changes: PackedInt32Array, reverse: bool) -> bool {
        let count = self.library().map(|l| l.len()).unwrap_or(strata_core::base::block::BLOCK_COUNT as usize);
        let batch = match changes_from_array(changes.as_slice(), reverse, count) {
            Ok(b) => b,
            Err(e) => {
                self.host.error(format!("StrataChunkWorld.apply_edit_changes: {e}; nothing changed"));
                return false;
            }
        };
        self.ensure_streamer();
        let changes: Vec<VoxelChange> = {
            let edits = self.edits();
            batch
                .iter()
                .map(|&(pos, after)| VoxelChange { pos, before: edits.and_then(|e| e.get(pos)), after })
                .collect()
        };
        self.write_changes("apply_edit_changes", &changes);
        true
    }
}

impl ChunkWorld {
    /// Writes `changes` (each voxel's `after` entry) as one batch, records them in the history
    /// and emits `voxels_changed` with their box (nothing when `changes` is empty).
    pub(super) fn write_changes(&mut self, method: &str, changes: &[VoxelChange]) {
        if changes.is_empty() {
            return;
        }
        let batch: Vec<(IVec3, Option<BlockId>)> = changes.iter().map(|c| (c.pos, c.after)).collect();
        self.write_entries(&batch);
        let recorded = self.edit_history.record(changes.iter().copied());
        if recorded == Recorded::TooLarge {
            self.history_too_large(method);
        }
        self.tie_flow_to_step(recorded);
        self.emit_voxels_changed(voxel_bounds(changes.iter().map(|c| c.pos)));
    }

    /// Applies the water flows finished so far (each frame does, and a shared world before a
    /// chunk snapshot), joining each to its edit's undo step.
    pub(super) fn apply_finished_flows(&mut self) {
        let Some(s) = self.streamer.as_mut() else { return };
        let flows = s.apply_water_flow_changes();
        if flows.iter().any(|f| !f.changes.is_empty()) {
            self.area_ready_emitted = false;
        }
        self.flows_applied(flows);
    }

    /// Applies the water flows finished so far, as the next frame would; true when every flow
    /// of the edits so far is in (a shared world's server takes chunk snapshots only then).
    pub(crate) fn take_finished_water(&mut self) -> bool {
        if self.streamer.is_none() {
            return true;
        }
        self.apply_finished_flows();
        self.is_water_settled()
    }

    /// The world's edits (the water flows placed included); `None` before any.
    pub(crate) fn edit_map(&self) -> Option<&EditMap> {
        self.edits()
    }

    /// The edits of `chunk` (voxels that differ from generation, the water flows placed
    /// included), in no particular order.
    pub(crate) fn chunk_edits(&self, chunk: strata_core::base::coords::ChunkCoord) -> Vec<(IVec3, BlockId)> {
        use strata_core::base::coords::CHUNK_SIZE;
        self.edits().map(|e| e.edits_in_box(chunk.min_voxel(), IVec3::splat(CHUNK_SIZE))).unwrap_or_default()
    }

    /// A shared world's chunk snapshot: the voxels of `chunk` that differ from generation become
    /// exactly `voxels` (the chunk's other edits are removed), written as one batch replayed
    /// without a water flow and kept out of the undo history; `voxels_changed` announces them.
    /// Write it only when the water is settled (`take_finished_water`), so no flow of an
    /// earlier edit lands over it.
    pub(crate) fn replace_chunk_edits(
        &mut self,
        chunk: strata_core::base::coords::ChunkCoord,
        voxels: &[(IVec3, BlockId)],
    ) {
        self.ensure_streamer();
        let want: std::collections::HashMap<IVec3, BlockId> = voxels.iter().copied().collect();
        let mut batch: Vec<(IVec3, Option<BlockId>)> = self
            .chunk_edits(chunk)
            .into_iter()
            .filter(|(p, _)| !want.contains_key(p))
            .map(|(p, _)| (p, None))
            .collect();
        let edits = self.edits();
        batch.extend(
            voxels.iter().filter(|(p, b)| edits.and_then(|e| e.get(*p)) != Some(*b)).map(|&(p, b)| (p, Some(b))),
        );
        if batch.is_empty() {
            return;
        }
        match self.streamer.as_mut() {
            Some(s) => {
                s.replay_voxels(&batch);
                self.area_ready_emitted = false;
            }
            None => self.write_entries(&batch),
        }
        self.emit_voxels_changed(voxel_bounds(batch.iter().map(|e| e.0)));
    }

    /// Records a change already written (`set_voxel`) and announces it.
    pub(super) fn edit_written(&mut self, change: VoxelChange) {
        let recorded = self.edit_history.record([change]);
        self.tie_flow_to_step(recorded);
        self.emit_voxels_changed(Some((change.pos, change.pos)));
    }

    /// Ties the flow of the batch just written to the undo step it was recorded in.
    fn tie_flow_to_step(&mut self, recorded: Recorded) {
        if !matches!(recorded, Recorded::Step | Recorded::InGroup) {
            return;
        }
        let ticket = self.streamer.as_ref().and_then(|s| s.last_water_ticket());
        if let (Some(ticket), Some(step)) = (ticket, self.edit_history.recording_step()) {
            self.flow_steps.insert(ticket, step);
        }
    }

    /// Puts each applied flow into the undo step of the edit that caused it; a flow whose step
    /// was undone before it came back is written back at once (the world stays as undone) and
    /// the step's redo runs the flow again.
    pub(super) fn flows_applied(&mut self, flows: Vec<AppliedFlow>) {
        for f in flows {
            let Some(step) = self.flow_steps.remove(&f.ticket) else { continue };
            if self.edit_history.amend(step, &f.changes) == Amended::Undone
                && let Some(s) = self.streamer.as_mut()
            {
                let back: Vec<(IVec3, Option<BlockId>)> = f.changes.iter().rev().map(|c| (c.pos, c.before)).collect();
                s.replay_voxels(&back);
            }
        }
    }

    /// Sets (`Some`) or removes (`None`) the edit entries of `batch`: in the streamer as one
    /// batch, or in the kept edits while none streams.
    fn write_entries(&mut self, batch: &[(IVec3, Option<BlockId>)]) {
        match self.streamer.as_mut() {
            Some(s) => {
                s.edit_voxels(batch);
                self.area_ready_emitted = false;
            }
            None => {
                let kept = self.host.kept_edits_mut();
                for &(p, e) in batch {
                    match e {
                        Some(b) => kept.set(p, b),
                        None => kept.clear_at(p),
                    }
                }
            }
        }
    }

    /// Writes an undo or redo step taken from the history (without recording it again): replayed
    /// exactly, with no water flow (its water is part of it), unless `reflow` asks for the flow
    /// to run again, whose result then joins the step.
    fn apply_history_step(&mut self, method: &str, step: Result<Option<StepToWrite>, impl std::fmt::Display>) -> bool {
        match step {
            Ok(Some((batch, bounds, id, reflow))) => {
                self.ensure_streamer();
                match self.streamer.as_mut() {
                    Some(s) => {
                        if reflow {
                            s.edit_voxels(&batch);
                            if let Some(ticket) = s.last_water_ticket() {
                                self.flow_steps.insert(ticket, id);
                            }
                        } else {
                            s.replay_voxels(&batch);
                        }
                        self.area_ready_emitted = false;
                    }
                    None => self.write_entries(&batch),
                }
                self.emit_voxels_changed(bounds);
                true
            }
            Ok(None) => false,
            Err(e) => {
                self.host.error(format!("StrataChunkWorld.{method}: {e}"));
                false
            }
        }
    }

    fn history_too_large(&mut self, method: &str) {
        self.host.warn(format!(
            "StrataChunkWorld.{method}: the edit changed more voxels than the undo history holds ({}); it stays but cannot be undone, and the history was cleared",
            self.edit_history.limits().max_voxels
        ));
    }

    /// Emits `voxels_changed` with the box of voxels `min..=max` (the voxels' full extent, in
    /// the node's space).
    pub(super) fn emit_voxels_changed(&mut self, bounds: Option<(IVec3, IVec3)>) {
        let Some((lo, hi)) = bounds else { return };
        let position = self.local_of_voxel(lo);
        let size = Vector3::new((hi.x - lo.x + 1) as f32, (hi.y - lo.y + 1) as f32, (hi.z - lo.z + 1) as f32);
        self.signals().voxels_changed().emit(Aabb::new(position, size));
    }

    /// Forgets the undo history and announces that the voxels of `before` and of the current
    /// edits changed (`clear_edits`, `load_world`, `edits_data`).
    pub(super) fn edits_replaced(&mut self, before: Option<(IVec3, IVec3)>) {
        self.edit_history.clear();
        self.flow_steps.clear();
        self.reflow_steps.clear();
        let now = self.edits().and_then(edit_bounds);
        let both = voxel_bounds(before.into_iter().chain(now).flat_map(|(a, b)| [a, b]));
        self.emit_voxels_changed(both);
    }

    /// `edits_data`: the edits as a world save (format of `save_world`, default preset, no
    /// state), or the bytes that could not be loaded while no edit replaced them.
    pub(super) fn edits_data_bytes(&self) -> PackedByteArray {
        let library = self.library();
        scene_edits::stored_bytes(self.edits(), library.as_deref().map_err(String::clone), &self.edits_data, EDITS_DATA)
    }

    /// Loads `edits_data` (decoded with the `block_library` set at the time, which a scene sets
    /// first): replaces the edits; bytes that do not load are kept as they are (so saving the
    /// scene again keeps them) with the error in `last_error()`.
    pub(super) fn load_edits_data(&mut self, bytes: PackedByteArray) {
        let before = self.edits().and_then(edit_bounds);
        let (kept, loaded) =
            scene_edits::loaded_edits(bytes, self.library().as_deref().map_err(String::clone), EDITS_DATA);
        self.edits_data = kept;
        let edits = match loaded {
            Ok(edits) => edits,
            Err(e) => {
                self.host.error(e);
                return;
            }
        };
        match self.streamer.as_mut() {
            Some(s) => {
                s.replace_edits(edits);
                self.area_ready_emitted = false;
            }
            None => self.host.keep_edits(edits),
        }
        self.edits_replaced(before);
    }
}

fn entry_to_int(e: Option<BlockId>) -> i32 {
    e.map(i32::from).unwrap_or(-1)
}

fn changes_to_array(step: Option<&EditStep>) -> PackedInt32Array {
    let Some(step) = step else { return PackedInt32Array::new() };
    let mut out = Vec::with_capacity(step.len() * CHANGE_STRIDE);
    for c in step.changes() {
        out.extend_from_slice(&[c.pos.x, c.pos.y, c.pos.z, entry_to_int(c.before), entry_to_int(c.after)]);
    }
    PackedInt32Array::from(out.as_slice())
}

/// The entries to write from a `[x, y, z, before, after, …]` array: `after`s, or `before`s
/// when `reverse`; both block ids of every change must be -1 or below `block_count`.
fn changes_from_array(v: &[i32], reverse: bool, block_count: usize) -> Result<Vec<(IVec3, Option<BlockId>)>, String> {
    if !v.len().is_multiple_of(CHANGE_STRIDE) {
        return Err(format!("{} ints is not a list of [x, y, z, before, after] changes", v.len()));
    }
    let entry = |id: i32, p: IVec3| -> Result<Option<BlockId>, String> {
        match id {
            -1 => Ok(None),
            id if id >= 0 && (id as usize) < block_count => Ok(Some(id as BlockId)),
            id => Err(format!(
                "block id {id} at ({}, {}, {}) is not a block of the world's library; allowed: -1 (no edit) or 0..={}",
                p.x,
                p.y,
                p.z,
                block_count - 1
            )),
        }
    };
    v.chunks_exact(CHANGE_STRIDE)
        .map(|c| {
            let p = IVec3::new(c[0], c[1], c[2]);
            if !voxel_in_world(p) {
                return Err(format!("voxel ({}, {}, {}) is beyond the world's bounds", p.x, p.y, p.z));
            }
            let (before, after) = (entry(c[3], p)?, entry(c[4], p)?);
            Ok((p, if reverse { before } else { after }))
        })
        .collect()
}
