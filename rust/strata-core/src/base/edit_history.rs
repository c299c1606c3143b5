//! Undo and redo of player edits: a bounded history of steps, each the list of voxels one edit
//! (or one group of edits) changed, with the voxel's edit entry before and after.
//!
//! An entry is what the [`crate::base::edits::EditMap`] holds at the voxel: `Some(block)` for an
//! edit, `None` for no edit (the generated block shows). Undoing a step puts every voxel's entry
//! back to `before`, so an edit over generated terrain undone leaves no edit behind and the map
//! is exactly as it was; redoing puts `after` back. The history never looks at generated
//! voxels, so it stays valid whatever the preset generates.
//!
//! Edits recorded while a group is open ([`EditHistory::begin_group`] …
//! [`EditHistory::end_group`], nestable) become one step; a voxel changed twice in a group keeps
//! its first `before` and its last `after`, and a voxel that ends as it began is dropped. Edits
//! recorded outside a group are each their own step. Recording anything drops the redo steps.
//!
//! Bounds ([`HistoryLimits`], by default [`MAX_HISTORY_STEPS`] steps and
//! [`MAX_HISTORY_VOXELS`] voxel changes over undo and redo together): past either, the oldest
//! steps are dropped. A single step (or an open group) larger than the voxel bound cannot be
//! undone: the whole history is cleared (undoing older steps under it would mix two states),
//! and [`GroupEnd::TooLarge`] / [`Recorded::TooLarge`] say so.
//!
//! May use: `base` (coordinates, block ids) and `std`.

use crate::base::block::BlockId;
use crate::base::coords::IVec3;
use rustc_hash::FxHashMap;
use std::collections::VecDeque;
use thiserror::Error;

/// Most steps the history keeps by default (undo and redo together).
pub const MAX_HISTORY_STEPS: usize = 100;
/// Most voxel changes the history keeps by default (undo and redo together, about 20 bytes
/// each: 40 MB at most).
pub const MAX_HISTORY_VOXELS: usize = 2_000_000;

/// One voxel's edit entry before and after a step (`None`: no edit, the generated block).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VoxelChange {
    pub pos: IVec3,
    pub before: Option<BlockId>,
    pub after: Option<BlockId>,
}

/// An edit batch whose water flow has not been applied yet (`stream::water_runner`): what a
/// save keeps so that loading runs the flow again from the same world (law: Nothing is lost).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PendingFlow {
    /// Whether a flow runs after the batch (false: a batch replayed exactly, such as an undo,
    /// whose water is part of it).
    pub flows: bool,
    /// One change per voxel of the batch: its edit entry just before the batch as the flow thread
    /// sees it (earlier flows included) and the entry the batch writes.
    pub changes: Vec<VoxelChange>,
}

/// The changes of one step, one per voxel, in the order they were first changed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EditStep {
    /// Names the step for [`EditHistory::amend`] (unique in one history).
    id: u64,
    changes: Vec<VoxelChange>,
    /// A water flow of the step came back after it was undone and was written back: redoing
    /// it runs its flow again rather than replaying it.
    reflow: bool,
}

impl EditStep {
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Whether redoing the step must run its water flow again ([`Amended::Undone`]); otherwise
    /// its changes already hold the water its edits made flow.
    pub fn needs_reflow(&self) -> bool {
        self.reflow
    }

    pub fn changes(&self) -> &[VoxelChange] {
        &self.changes
    }

    pub fn len(&self) -> usize {
        self.changes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// The smallest box holding every changed voxel: inclusive minimum and maximum voxel.
    pub fn bounds(&self) -> Option<(IVec3, IVec3)> {
        voxel_bounds(self.changes.iter().map(|c| c.pos))
    }

    /// The entries undoing the step writes (each voxel's `before`).
    pub fn undo_batch(&self) -> Vec<(IVec3, Option<BlockId>)> {
        self.changes.iter().map(|c| (c.pos, c.before)).collect()
    }

    /// The entries redoing the step writes (each voxel's `after`).
    pub fn redo_batch(&self) -> Vec<(IVec3, Option<BlockId>)> {
        self.changes.iter().map(|c| (c.pos, c.after)).collect()
    }
}

/// The smallest box holding every voxel of `voxels`: inclusive minimum and maximum.
pub fn voxel_bounds(voxels: impl IntoIterator<Item = IVec3>) -> Option<(IVec3, IVec3)> {
    let mut it = voxels.into_iter();
    let first = it.next()?;
    Some(it.fold((first, first), |(lo, hi), p| {
        (
            IVec3::new(lo.x.min(p.x), lo.y.min(p.y), lo.z.min(p.z)),
            IVec3::new(hi.x.max(p.x), hi.y.max(p.y), hi.z.max(p.z)),
        )
    }))
}

/// How much history is kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HistoryLimits {
    pub max_steps: usize,
    pub max_voxels: usize,
}

impl Default for HistoryLimits {
    fn default() -> Self {
        Self { max_steps: MAX_HISTORY_STEPS, max_voxels: MAX_HISTORY_VOXELS }
    }
}

/// A history call that cannot be made now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum HistoryError {
    #[error("no edit group is open; allowed: end_edit_group() after begin_edit_group()")]
    NoOpenGroup,
    #[error("an edit group is open; allowed: undo and redo after end_edit_group()")]
    GroupOpen,
}

/// What [`EditHistory::end_group`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupEnd {
    /// An inner group of nested groups closed; the outer one is still open.
    Nested,
    /// The group became one step of this many voxel changes.
    Recorded(usize),
    /// The group changed nothing; no step.
    Empty,
    /// The group changed more voxels than the history holds: it cannot be undone, and the
    /// history was cleared.
    TooLarge,
}

/// What [`EditHistory::amend`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Amended {
    /// Added to a step that can be undone (or to the open group).
    Recorded,
    /// Added to a step that was already undone: the caller writes the changes' `before`s back
    /// (so the world stays as undone) and the step's redo runs its flow again.
    Undone,
    /// No step has that id any more (dropped past the limits, or the history was cleared).
    Unknown,
}

/// What [`EditHistory::record`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recorded {
    /// Nothing changed (every change had `before == after`).
    Nothing,
    /// Added to the open group.
    InGroup,
    /// Became its own step.
    Step,
    /// Larger than the history holds: it cannot be undone, and the history was cleared.
    TooLarge,
}

struct OpenGroup {
    id: u64,
    depth: u32,
    changes: Vec<VoxelChange>,
    index: FxHashMap<IVec3, usize>,
    /// The group outgrew the voxel bound; its changes were let go.
    overflowed: bool,
}

/// Undo and redo steps of one world's edits.
#[derive(Default)]
pub struct EditHistory {
    limits: HistoryLimits,
    undo: VecDeque<EditStep>,
    redo: Vec<EditStep>,
    group: Option<OpenGroup>,
    /// Voxel changes held by `undo` and `redo`.
    voxels: usize,
    /// The id the next step or group gets.
    next_id: u64,
}

impl EditHistory {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with_limits(limits: HistoryLimits) -> Self {
        Self { limits, ..Self::default() }
    }

    pub fn limits(&self) -> HistoryLimits {
        self.limits
    }

    /// Records the changes of one edit: into the open group, else as its own step. Changes with
    /// `before == after` are left out; if none is left, nothing happens (the redo steps stay).
    pub fn record(&mut self, changes: impl IntoIterator<Item = VoxelChange>) -> Recorded {
        let mut changes: Vec<VoxelChange> = changes.into_iter().filter(|c| c.before != c.after).collect();
        if self.group.is_none() {
            dedup_keep_first_before(&mut changes);
        }
        if changes.is_empty() {
            return Recorded::Nothing;
        }
        self.drop_redo();
        let max_voxels = self.limits.max_voxels;
        if let Some(g) = self.group.as_mut() {
            if !g.overflowed {
                for c in changes {
                    match g.index.get(&c.pos) {
                        Some(&i) => g.changes[i].after = c.after,
                        None => {
                            g.index.insert(c.pos, g.changes.len());
                            g.changes.push(c);
                        }
                    }
                }
                if g.changes.len() > max_voxels {
                    g.overflowed = true;
                    g.changes = Vec::new();
                    g.index = FxHashMap::default();
                }
            }
            return Recorded::InGroup;
        }
        let id = self.take_id();
        if self.push_step(EditStep { id, changes, reflow: false }) { Recorded::Step } else { Recorded::TooLarge }
    }

    /// The id of the step the last recorded changes went to: the open group's, else the newest
    /// step's. The world nodes tie an edit's water flow to it, for [`EditHistory::amend`].
    pub fn recording_step(&self) -> Option<u64> {
        match &self.group {
            Some(g) => Some(g.id),
            None => self.undo.back().map(|s| s.id),
        }
    }

    /// Adds `changes` (the water flow an edit of step `id` caused, applied after the edit) to
    /// that step, wherever it is: the open group, a step that can be undone, or one already
    /// undone. A voxel the step already changed keeps its first `before` and takes the new
    /// `after`; so undoing the step removes the water with the edit, and redoing it puts both
    /// back. Recording nothing else, the redo steps stay.
    pub fn amend(&mut self, id: u64, changes: &[VoxelChange]) -> Amended {
        if changes.is_empty() {
            return Amended::Recorded;
        }
        if let Some(g) = self.group.as_mut().filter(|g| g.id == id) {
            if !g.overflowed {
                for &c in changes {
                    match g.index.get(&c.pos) {
                        Some(&i) => g.changes[i].after = c.after,
                        None => {
                            g.index.insert(c.pos, g.changes.len());
                            g.changes.push(c);
                        }
                    }
                }
            }
            return Amended::Recorded;
        }
        let (step, undone) = if let Some(s) = self.undo.iter_mut().find(|s| s.id == id) {
            (s, false)
        } else if let Some(s) = self.redo.iter_mut().find(|s| s.id == id) {
            (s, true)
        } else {
            return Amended::Unknown;
        };
        let before = step.changes.len();
        step.changes.extend_from_slice(changes);
        dedup_keep_first_before(&mut step.changes);
        step.reflow |= undone;
        let after = step.changes.len();
        self.voxels = (self.voxels + after).saturating_sub(before);
        if undone { Amended::Undone } else { Amended::Recorded }
    }

    fn take_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// Opens a group (or a nested one inside the open group): what is recorded until the
    /// matching [`EditHistory::end_group`] becomes one step.
    pub fn begin_group(&mut self) {
        match self.group.as_mut() {
            Some(g) => g.depth += 1,
            None => {
                let id = self.take_id();
                self.group = Some(OpenGroup {
                    id,
                    depth: 1,
                    changes: Vec::new(),
                    index: FxHashMap::default(),
                    overflowed: false,
                })
            }
        }
    }

    /// Closes the innermost open group; the outermost one becomes one step.
    pub fn end_group(&mut self) -> Result<GroupEnd, HistoryError> {
        let g = self.group.as_mut().ok_or(HistoryError::NoOpenGroup)?;
        if g.depth > 1 {
            g.depth -= 1;
            return Ok(GroupEnd::Nested);
        }
        let Some(g) = self.group.take() else { return Err(HistoryError::NoOpenGroup) };
        if g.overflowed {
            self.clear();
            return Ok(GroupEnd::TooLarge);
        }
        let changes: Vec<VoxelChange> = g.changes.into_iter().filter(|c| c.before != c.after).collect();
        if changes.is_empty() {
            return Ok(GroupEnd::Empty);
        }
        let n = changes.len();
        let step = EditStep { id: g.id, changes, reflow: false };
        Ok(if self.push_step(step) { GroupEnd::Recorded(n) } else { GroupEnd::TooLarge })
    }

    pub fn is_group_open(&self) -> bool {
        self.group.is_some()
    }

    /// Takes the newest step to the redo list and returns it (the caller writes its
    /// [`EditStep::undo_batch`]); `Ok(None)` when there is nothing to undo.
    pub fn undo(&mut self) -> Result<Option<&EditStep>, HistoryError> {
        if self.group.is_some() {
            return Err(HistoryError::GroupOpen);
        }
        let Some(step) = self.undo.pop_back() else { return Ok(None) };
        self.redo.push(step);
        Ok(self.redo.last())
    }

    /// Takes the newest undone step back to the undo list and returns it (the caller writes its
    /// [`EditStep::redo_batch`]); `Ok(None)` when there is nothing to redo.
    pub fn redo(&mut self) -> Result<Option<&EditStep>, HistoryError> {
        if self.group.is_some() {
            return Err(HistoryError::GroupOpen);
        }
        let Some(step) = self.redo.pop() else { return Ok(None) };
        self.undo.push_back(step);
        Ok(self.undo.back())
    }

    /// The step [`EditHistory::undo`] would undo next.
    pub fn last_step(&self) -> Option<&EditStep> {
        self.undo.back()
    }

    pub fn can_undo(&self) -> bool {
        self.group.is_none() && !self.undo.is_empty()
    }

    pub fn can_redo(&self) -> bool {
        self.group.is_none() && !self.redo.is_empty()
    }

    /// Steps that can be undone and redone.
    pub fn step_counts(&self) -> (usize, usize) {
        (self.undo.len(), self.redo.len())
    }

    /// Voxel changes held (undo and redo together).
    pub fn voxels(&self) -> usize {
        self.voxels
    }

    /// Forgets every step and any open group.
    pub fn clear(&mut self) {
        self.undo.clear();
        self.redo.clear();
        self.group = None;
        self.voxels = 0;
    }

    fn drop_redo(&mut self) {
        for s in self.redo.drain(..) {
            self.voxels -= s.len();
        }
    }

    /// Adds a step, dropping the oldest past the limits; false (and the history cleared) when
    /// the step alone is larger than the voxel limit.
    fn push_step(&mut self, step: EditStep) -> bool {
        if step.len() > self.limits.max_voxels {
            self.clear();
            return false;
        }
        self.voxels += step.len();
        self.undo.push_back(step);
        while self.undo.len() + self.redo.len() > self.limits.max_steps.max(1) || self.voxels > self.limits.max_voxels {
            let Some(old) = self.undo.pop_front() else { break };
            self.voxels -= old.len();
        }
        true
    }
}

/// One change per voxel: the first `before` and the last `after` of the voxel's changes.
fn dedup_keep_first_before(changes: &mut Vec<VoxelChange>) {
    let mut index: FxHashMap<IVec3, usize> = FxHashMap::with_capacity_and_hasher(changes.len(), Default::default());
    let mut out: Vec<VoxelChange> = Vec::with_capacity(changes.len());
    for c in changes.drain(..) {
        match index.get(&c.pos) {
            Some(&i) => out[i].after = c.after,
            None => {
                index.insert(c.pos, out.len());
                out.push(c);
            }
        }
    }
    out.retain(|c| c.before != c.after);
    *changes = out;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::edits::EditMap;

    /// Writes `edits` into `map` the way a world does and returns what to record.
    fn edit(map: &mut EditMap, edits: &[(IVec3, Option<BlockId>)]) -> Vec<VoxelChange> {
        edits
            .iter()
            .map(|&(pos, after)| {
                let before = map.get(pos);
                write(map, &[(pos, after)]);
                VoxelChange { pos, before, after }
            })
            .collect()
    }

    fn write(map: &mut EditMap, batch: &[(IVec3, Option<BlockId>)]) {
        for &(p, e) in batch {
            match e {
                Some(b) => map.set(p, b),
                None => map.clear_at(p),
            }
        }
    }

    fn p(x: i32) -> IVec3 {
        IVec3::new(x, -x, 2 * x)
    }

    #[test]
    fn undo_restores_the_edit_map_exactly_and_redo_reapplies() {
        let mut map = EditMap::new();
        map.set(p(1), 4);
        let start = map.clone();
        let mut h = EditHistory::new();
        // Over generated terrain (no entry) and over an earlier edit.
        assert_eq!(h.record(edit(&mut map, &[(p(0), Some(7)), (p(1), Some(7))])), Recorded::Step);
        let after_first = map.clone();
        assert_eq!(h.record(edit(&mut map, &[(p(1), None), (p(2), Some(3))])), Recorded::Step);
        let after_second = map.clone();
        let step = h.undo().unwrap().unwrap().undo_batch();
        write(&mut map, &step);
        assert_eq!(map, after_first);
        let step = h.undo().unwrap().unwrap().undo_batch();
        write(&mut map, &step);
        assert_eq!(map, start, "no edit entry is left where there was none");
        assert!(map.get(p(0)).is_none());
        assert_eq!(h.undo().unwrap(), None);
        assert!(!h.can_undo() && h.can_redo());
        let step = h.redo().unwrap().unwrap().redo_batch();
        write(&mut map, &step);
        assert_eq!(map, after_first);
        let step = h.redo().unwrap().unwrap().redo_batch();
        write(&mut map, &step);
        assert_eq!(map, after_second);
        assert_eq!(h.redo().unwrap(), None);
    }

    #[test]
    fn a_group_is_one_step_with_each_voxels_first_before_and_last_after() {
        let mut map = EditMap::new();
        let mut h = EditHistory::new();
        h.begin_group();
        h.begin_group();
        assert_eq!(h.record(edit(&mut map, &[(p(0), Some(1)), (p(1), Some(1))])), Recorded::InGroup);
        assert_eq!(h.end_group(), Ok(GroupEnd::Nested));
        assert!(!h.can_undo(), "nothing to undo while the group is open");
        assert_eq!(h.undo().unwrap_err(), HistoryError::GroupOpen);
        h.record(edit(&mut map, &[(p(0), Some(2)), (p(2), Some(5))]));
        // p(1) back to no edit: it ends as it began and leaves the step.
        h.record(edit(&mut map, &[(p(1), None)]));
        assert_eq!(h.end_group(), Ok(GroupEnd::Recorded(2)));
        assert_eq!(h.end_group(), Err(HistoryError::NoOpenGroup));
        assert_eq!(h.step_counts(), (1, 0));
        let step = h.last_step().unwrap();
        let mut changes = step.changes().to_vec();
        changes.sort_by_key(|c| c.pos.x);
        assert_eq!(
            changes,
            vec![
                VoxelChange { pos: p(0), before: None, after: Some(2) },
                VoxelChange { pos: p(2), before: None, after: Some(5) }
            ]
        );
        assert_eq!(step.bounds(), Some((IVec3::new(0, -2, 0), IVec3::new(2, 0, 4))));
        let batch = h.undo().unwrap().unwrap().undo_batch();
        write(&mut map, &batch);
        assert!(map.is_empty());
        // An empty group records nothing.
        h.begin_group();
        assert_eq!(h.end_group(), Ok(GroupEnd::Empty));
        assert_eq!(h.step_counts(), (0, 1), "an empty group keeps the redo steps");
    }

    #[test]
    fn a_new_edit_after_undo_drops_the_redo_branch() {
        let mut map = EditMap::new();
        let mut h = EditHistory::new();
        h.record(edit(&mut map, &[(p(0), Some(1))]));
        h.record(edit(&mut map, &[(p(1), Some(1))]));
        let b = h.undo().unwrap().unwrap().undo_batch();
        write(&mut map, &b);
        assert!(h.can_redo());
        // A change to the same entry it has is no change: the redo steps stay.
        assert_eq!(h.record([VoxelChange { pos: p(5), before: Some(2), after: Some(2) }]), Recorded::Nothing);
        assert!(h.can_redo());
        h.record(edit(&mut map, &[(p(3), Some(9))]));
        assert!(!h.can_redo());
        assert_eq!(h.redo().unwrap(), None);
        assert_eq!(h.step_counts(), (2, 0));
        assert_eq!(h.voxels(), 2);
    }

    #[test]
    fn the_history_keeps_at_most_its_steps_and_voxels_dropping_the_oldest() {
        let mut map = EditMap::new();
        let mut h = EditHistory::with_limits(HistoryLimits { max_steps: 3, max_voxels: 10 });
        for i in 0..5 {
            h.record(edit(&mut map, &[(p(i), Some(1))]));
        }
        assert_eq!(h.step_counts(), (3, 0));
        // Oldest first out: undoing everything left undoes 4, 3, 2.
        let mut undone = Vec::new();
        while let Some(s) = h.undo().unwrap() {
            undone.push(s.changes()[0].pos);
        }
        assert_eq!(undone, vec![p(4), p(3), p(2)]);
        h.clear();
        // Voxels: a step of 6 then one of 5 leaves only the second.
        let six: Vec<_> = (10..16).map(|i| (p(i), Some(2))).collect();
        let five: Vec<_> = (20..25).map(|i| (p(i), Some(2))).collect();
        h.record(edit(&mut map, &six));
        h.record(edit(&mut map, &five));
        assert_eq!((h.step_counts(), h.voxels()), ((1, 0), 5));
        // A step larger than the whole history cannot be undone and clears it.
        let eleven: Vec<_> = (30..41).map(|i| (p(i), Some(2))).collect();
        assert_eq!(h.record(edit(&mut map, &eleven)), Recorded::TooLarge);
        assert_eq!((h.step_counts(), h.voxels()), ((0, 0), 0));
        // So does a group that outgrows it, even though each edit in it is small.
        h.record(edit(&mut map, &[(p(50), Some(3))]));
        h.begin_group();
        for i in 60..72 {
            h.record(edit(&mut map, &[(p(i), Some(3))]));
        }
        assert_eq!(h.end_group(), Ok(GroupEnd::TooLarge));
        assert_eq!((h.step_counts(), h.voxels()), ((0, 0), 0));
    }

    #[test]
    fn a_flow_amended_into_its_step_is_undone_and_redone_with_the_edit() {
        let mut map = EditMap::new();
        let mut h = EditHistory::new();
        // An edit digs p(0); its flow later fills p(0) and p(1) with water (block 9).
        h.record(edit(&mut map, &[(p(0), Some(0))]));
        let step = h.recording_step().expect("a step");
        let flow = edit(&mut map, &[(p(0), Some(9)), (p(1), Some(9))]);
        assert_eq!(h.amend(step, &flow), Amended::Recorded);
        let after = map.clone();
        assert_eq!(h.step_counts(), (1, 0));
        assert_eq!(h.voxels(), 2);
        let b = h.undo().unwrap().unwrap().undo_batch();
        write(&mut map, &b);
        assert!(map.is_empty(), "the edit and its water are gone");
        let redo = h.redo().unwrap().unwrap();
        assert!(!redo.needs_reflow());
        let b = redo.redo_batch();
        write(&mut map, &b);
        assert_eq!(map, after, "redo replays the edit and its water");
        // A flow arriving after its step was undone: the step takes it and asks for a reflow.
        h.record(edit(&mut map, &[(p(5), Some(0))]));
        let late = h.recording_step().unwrap();
        let b = h.undo().unwrap().unwrap().undo_batch();
        write(&mut map, &b);
        let flow = edit(&mut map, &[(p(6), Some(9))]);
        assert_eq!(h.amend(late, &flow), Amended::Undone);
        assert!(h.redo().unwrap().unwrap().needs_reflow());
        // A group's flows join the group; unknown steps are reported.
        h.begin_group();
        h.record(edit(&mut map, &[(p(7), Some(0))]));
        let g = h.recording_step().unwrap();
        assert_eq!(h.amend(g, &edit(&mut map, &[(p(8), Some(9))])), Amended::Recorded);
        assert_eq!(h.end_group(), Ok(GroupEnd::Recorded(2)));
        h.clear();
        assert_eq!(h.amend(g, &[VoxelChange { pos: p(9), before: None, after: Some(1) }]), Amended::Unknown);
    }

    #[test]
    fn one_edit_naming_a_voxel_twice_is_one_change() {
        let mut h = EditHistory::new();
        let c = |before, after| VoxelChange { pos: p(1), before, after };
        h.record([c(None, Some(1)), c(Some(1), Some(2))]);
        assert_eq!(h.last_step().unwrap().changes(), &[c(None, Some(2))]);
        h.record([c(Some(2), Some(3)), c(Some(3), Some(2))]);
        assert_eq!(h.step_counts(), (1, 0), "back where it began: no step");
    }
}
