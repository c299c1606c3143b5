//! The side view's edits with undo: which tiles a shape edit changes, and a log that writes edit
//! batches into a [`Streamer2D`] (or into the edits kept while none streams), records them as
//! undo steps of an [`EditHistory`], and ties each batch's water flow to its step.
//!
//! Water, as the 3D world does it: each recorded batch's flow ticket is tied to its undo step,
//! and the flow, when it comes back ([`Streamer2D::apply_water_flow_changes`]), joins that step
//! ([`EditHistory::amend`]): undo removes the edit and the water it made flow; redo replays both
//! exactly (no new flow), or runs the flow again when part of it came back only after the step
//! was undone (that part is written back at once, so the world stays as undone).
//!
//! May use: `base` (edits, history, coordinates), `gen2d` (the generated tiles) and
//! [`crate::stream::stream2d`].

use crate::base::block::BlockId;
use crate::base::coords::IVec3;
use crate::base::edit_history::{Amended, EditHistory, GroupEnd, HistoryError, Recorded, VoxelChange, voxel_bounds};
use crate::base::edits::EditMap;
use crate::gen2d::Generator2D;
use crate::stream::stream2d::Streamer2D;
use crate::stream::streamer::AppliedFlow;
use rustc_hash::FxHashSet;
use std::collections::{HashMap, HashSet};

/// Where edit batches go: the streamer (re-tiled, relit, water flows), or the edits a world
/// keeps while it does not stream (no water flows there).
pub enum TileTarget<'a> {
    Streamer(&'a mut Streamer2D),
    Kept(&'a mut EditMap),
}

impl TileTarget<'_> {
    /// Writes `batch`: with a flow after it (`flow`), or replayed exactly. Returns the flow
    /// thread's ticket of the batch (`None` without a flow thread).
    fn write(&mut self, batch: &[(IVec3, Option<BlockId>)], flow: bool) -> Option<u64> {
        match self {
            TileTarget::Streamer(s) => {
                if flow {
                    s.edit_tiles(batch);
                } else {
                    s.replay_tiles(batch);
                }
                s.last_water_ticket()
            }
            TileTarget::Kept(m) => {
                for &(p, e) in batch {
                    match e {
                        Some(b) => m.set(p, b),
                        None => m.clear_at(p),
                    }
                }
                None
            }
        }
    }
}

/// What [`TileEditLog::undo`] or [`TileEditLog::redo`] wrote: the rectangle of its tiles
/// (inclusive, as voxels `(x, y, 0)`) and how many tiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StepWritten {
    pub bounds: (IVec3, IVec3),
    pub tiles: usize,
}

/// A side-view world's edit log: the undo history and which water flow belongs to which step.
#[derive(Default)]
pub struct TileEditLog {
    history: EditHistory,
    /// Flow ticket → the undo step its batch was recorded in.
    flow_steps: HashMap<u64, u64>,
    /// Steps undone while their flow was pending: redoing them runs the flow again.
    reflow_steps: HashSet<u64>,
}

impl TileEditLog {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn history(&self) -> &EditHistory {
        &self.history
    }

    pub fn history_mut(&mut self) -> &mut EditHistory {
        &mut self.history
    }

    /// Writes `changes` (each tile's `after` entry) as one batch with its water flow, records
    /// them (into the open group, else as one step) and ties the flow to their step. Nothing
    /// happens for an empty list.
    pub fn write(&mut self, mut target: TileTarget<'_>, changes: &[VoxelChange]) -> Recorded {
        if changes.is_empty() {
            return Recorded::Nothing;
        }
        let batch: Vec<(IVec3, Option<BlockId>)> = changes.iter().map(|c| (c.pos, c.after)).collect();
        let ticket = target.write(&batch, true);
        let recorded = self.history.record(changes.iter().copied());
        if matches!(recorded, Recorded::Step | Recorded::InGroup)
            && let (Some(ticket), Some(step)) = (ticket, self.history.recording_step())
        {
            self.flow_steps.insert(ticket, step);
        }
        recorded
    }

    /// Opens an edit group ([`EditHistory::begin_group`]).
    pub fn begin_group(&mut self) {
        self.history.begin_group();
    }

    /// Closes the innermost group ([`EditHistory::end_group`]).
    pub fn end_group(&mut self) -> Result<GroupEnd, HistoryError> {
        self.history.end_group()
    }

    /// Undoes the newest step: every tile gets back its entry from before the step (the water
    /// its edits made flow goes with it), replayed without a flow. `Ok(None)`: nothing to undo.
    pub fn undo(&mut self, mut target: TileTarget<'_>) -> Result<Option<StepWritten>, HistoryError> {
        let Some(step) = self.history.undo()? else { return Ok(None) };
        let (batch, id) = (step.undo_batch(), step.id());
        if self.flow_steps.values().any(|&s| s == id) {
            // Part of its flow is still on the way: when it comes back it is written back at
            // once, and redo runs the flow again.
            self.reflow_steps.insert(id);
        }
        target.write(&batch, false);
        Ok(written(&batch))
    }

    /// Redoes the newest undone step: its tiles get their entries from after it, replayed
    /// exactly (its water included), or with its flow run again when the step needs it.
    /// `Ok(None)`: nothing to redo.
    pub fn redo(&mut self, mut target: TileTarget<'_>) -> Result<Option<StepWritten>, HistoryError> {
        let Some(step) = self.history.redo()? else { return Ok(None) };
        let (batch, id, reflow) = (step.redo_batch(), step.id(), step.needs_reflow());
        let reflow = self.reflow_steps.remove(&id) | reflow;
        let ticket = target.write(&batch, reflow);
        if reflow && let Some(ticket) = ticket {
            self.flow_steps.insert(ticket, id);
        }
        Ok(written(&batch))
    }

    /// Puts each applied flow into the undo step of the batch that caused it; a flow whose
    /// step was undone before it came back is written back at once (the world stays as
    /// undone), and redoing that step runs the flow again.
    pub fn flows_applied(&mut self, streamer: &mut Streamer2D, flows: Vec<AppliedFlow>) {
        for f in flows {
            let Some(step) = self.flow_steps.remove(&f.ticket) else { continue };
            if self.history.amend(step, &f.changes) == Amended::Undone {
                let back: Vec<(IVec3, Option<BlockId>)> = f.changes.iter().rev().map(|c| (c.pos, c.before)).collect();
                streamer.replay_tiles(&back);
            }
        }
    }

    /// Forgets which flow joins which step (the streamer stopped: the next flow thread numbers
    /// its batches anew); the steps stay.
    pub fn forget_flows(&mut self) {
        self.flow_steps.clear();
    }

    /// Forgets every step and flow tie (the edits were replaced: a load, a clear, another world).
    pub fn clear(&mut self) {
        self.history.clear();
        self.flow_steps.clear();
        self.reflow_steps.clear();
    }
}

fn written(batch: &[(IVec3, Option<BlockId>)]) -> Option<StepWritten> {
    let bounds = voxel_bounds(batch.iter().map(|e| e.0))?;
    Some(StepWritten { bounds, tiles: batch.len() })
}

/// Of `tiles` (voxels `(x, y, 0)`), those whose tile (edits over the generated world) is not
/// `block`, as changes to `Some(block)`: what filling the shape with `block` changes. The
/// generated tiles come from one region generated over the shape's bounds, not tile by tile.
pub fn fill_changes(
    generator: &Generator2D,
    edits: Option<&EditMap>,
    tiles: &[IVec3],
    block: BlockId,
) -> Vec<VoxelChange> {
    let Some((lo, hi)) = voxel_bounds(tiles.iter().copied()) else { return Vec::new() };
    let generated = generator.generate_region(lo.x, lo.y, hi.x - lo.x + 1, hi.y - lo.y + 1);
    let mut seen = FxHashSet::with_capacity_and_hasher(tiles.len(), Default::default());
    tiles
        .iter()
        .filter(|p| seen.insert(**p))
        .filter_map(|&pos| {
            let before = edits.and_then(|e| e.get(pos));
            let current = before.or_else(|| generated.get(pos.x, pos.y)).unwrap_or(0);
            (current != block).then_some(VoxelChange { pos, before, after: Some(block) })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::block::{AIR, STONE, WATER};
    use crate::base::shapes::{circle_tiles, rect_tiles};
    use crate::preset::model::WorldPreset;
    use crate::stream::stream2d::{StreamConfig2D, batch_changes, tile_with_edits};
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    fn generator() -> Arc<Generator2D> {
        Arc::new(Generator2D::new(&WorldPreset::default()).unwrap())
    }

    fn streamer(water: bool) -> Streamer2D {
        let mut s = Streamer2D::new(generator(), StreamConfig2D { worker_threads: 1, ..Default::default() }).unwrap();
        s.set_water_flow(water).unwrap();
        s
    }

    /// Applies finished flows into `log` until the water settles (at most 10 s).
    fn settle(s: &mut Streamer2D, log: &mut TileEditLog) {
        let t = Instant::now();
        loop {
            let flows = s.apply_water_flow_changes();
            log.flows_applied(s, flows);
            if s.is_water_settled() {
                return;
            }
            assert!(t.elapsed() < Duration::from_secs(10), "the water never settled");
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// Every tile of a box, edits over the generated world.
    fn tiles(s: &Streamer2D, (x0, y0): (i32, i32), (x1, y1): (i32, i32)) -> Vec<BlockId> {
        let g = s.generator().clone();
        (y0..=y1)
            .flat_map(|y| (x0..=x1).map(move |x| (x, y)))
            .map(|(x, y)| tile_with_edits(&g, Some(s.edits()), x, y))
            .collect()
    }

    #[test]
    fn a_fill_changes_exactly_the_shape_tiles_that_differ() {
        let g = generator();
        let rect = rect_tiles([-10, -40], [10, 40]).unwrap();
        let mut edits = EditMap::new();
        edits.set(IVec3::new(0, 0, 0), AIR);
        let changes = fill_changes(&g, Some(&edits), &rect, AIR);
        let expected: Vec<IVec3> =
            rect.iter().copied().filter(|p| tile_with_edits(&g, Some(&edits), p.x, p.y) != AIR).collect();
        assert_eq!(changes.iter().map(|c| c.pos).collect::<Vec<_>>(), expected);
        assert!(!expected.is_empty() && expected.len() < rect.len(), "the rectangle crosses the surface");
        assert!(changes.iter().all(|c| c.after == Some(AIR) && c.before.is_none()));
        let circle = circle_tiles([3, 5], 4.5).unwrap();
        let changes = fill_changes(&g, None, &circle, STONE);
        assert!(changes.iter().all(|c| circle.contains(&c.pos) && g.tile_at(c.pos.x, c.pos.y) != STONE));
        assert_eq!(changes.len(), circle.iter().filter(|p| g.tile_at(p.x, p.y) != STONE).count());
    }

    #[test]
    fn undo_and_redo_restore_the_tiles_and_the_edit_map_exactly_with_the_water() {
        let mut s = streamer(true);
        let mut log = TileEditLog::new();
        // A pool held by stone walls in the sky, then the wall knocked out: the water flows out.
        let area = ((-20, -220), (20, -190));
        let mut build = Vec::new();
        for y in -205..=-200 {
            for x in -6i32..=6 {
                let wall = x.abs() == 6 || y == -200;
                build.push((IVec3::new(x, y, 0), Some(if wall { STONE } else { WATER })));
            }
        }
        for x in -20..=20 {
            build.push((IVec3::new(x, -195, 0), Some(STONE)));
        }
        let changes = batch_changes(s.edits(), &build);
        assert_eq!(log.write(TileTarget::Streamer(&mut s), &changes), Recorded::Step);
        settle(&mut s, &mut log);
        let before_tiles = tiles(&s, area.0, area.1);
        let before_edits = s.edits().clone();
        // The bomb: a hole through the pool's right wall and floor.
        let g = s.generator().clone();
        let hole = fill_changes(&g, Some(s.edits()), &circle_tiles([6, -200], 2.0).unwrap(), AIR);
        log.write(TileTarget::Streamer(&mut s), &hole);
        settle(&mut s, &mut log);
        let after_tiles = tiles(&s, area.0, area.1);
        let after_edits = s.edits().clone();
        assert_ne!(after_edits.len(), before_edits.len() + hole.len(), "the water flowed: more tiles than the hole");
        assert!(log.undo(TileTarget::Streamer(&mut s)).unwrap().is_some());
        settle(&mut s, &mut log);
        assert_eq!(tiles(&s, area.0, area.1), before_tiles, "undo takes the hole and its water back");
        assert_eq!(s.edits(), &before_edits);
        assert!(log.redo(TileTarget::Streamer(&mut s)).unwrap().is_some());
        settle(&mut s, &mut log);
        assert_eq!(tiles(&s, area.0, area.1), after_tiles, "redo puts the hole and its water back");
        assert_eq!(s.edits(), &after_edits);
        // Both steps undone: no edit left.
        log.undo(TileTarget::Streamer(&mut s)).unwrap();
        log.undo(TileTarget::Streamer(&mut s)).unwrap();
        settle(&mut s, &mut log);
        assert!(s.edits().is_empty());
        assert!(log.undo(TileTarget::Streamer(&mut s)).unwrap().is_none());
    }

    #[test]
    fn a_flow_that_comes_back_after_its_step_was_undone_is_written_back_and_redo_runs_it_again() {
        let mut s = streamer(true);
        let mut log = TileEditLog::new();
        let pool: Vec<(IVec3, Option<BlockId>)> = (-3..=3)
            .flat_map(|x| (-303..=-300).map(move |y| (x, y)))
            .map(|(x, y)| (IVec3::new(x, y, 0), Some(if y == -300 || x.abs() == 3 { STONE } else { WATER })))
            .collect();
        let c = batch_changes(s.edits(), &pool);
        log.write(TileTarget::Streamer(&mut s), &c);
        settle(&mut s, &mut log);
        let before = s.edits().clone();
        let c = batch_changes(s.edits(), &[(IVec3::new(0, -300, 0), Some(AIR))]);
        log.write(TileTarget::Streamer(&mut s), &c);
        // Undone before its flow is applied.
        log.undo(TileTarget::Streamer(&mut s)).unwrap();
        settle(&mut s, &mut log);
        assert_eq!(s.edits(), &before, "the late flow was written back");
        log.redo(TileTarget::Streamer(&mut s)).unwrap();
        settle(&mut s, &mut log);
        let redone = s.edits().clone();
        assert!(redone.len() > before.len(), "redo ran the flow again");
        log.undo(TileTarget::Streamer(&mut s)).unwrap();
        settle(&mut s, &mut log);
        assert_eq!(s.edits(), &before);
    }

    #[test]
    fn groups_make_one_step_and_kept_edits_undo_without_a_streamer() {
        let mut kept = EditMap::new();
        let mut log = TileEditLog::new();
        log.begin_group();
        for x in 0..3 {
            let c = batch_changes(&kept, &[(IVec3::new(x, 0, 0), Some(STONE))]);
            assert_eq!(log.write(TileTarget::Kept(&mut kept), &c), Recorded::InGroup);
        }
        assert!(log.undo(TileTarget::Kept(&mut kept)).is_err(), "no undo inside a group");
        // One step holding the group's three changes (the undo below takes all three back).
        assert_eq!(log.end_group().unwrap(), GroupEnd::Recorded(3));
        assert_eq!(kept.len(), 3);
        let w = log.undo(TileTarget::Kept(&mut kept)).unwrap().unwrap();
        assert_eq!((w.bounds, w.tiles), ((IVec3::new(0, 0, 0), IVec3::new(2, 0, 0)), 3));
        assert!(kept.is_empty());
        log.redo(TileTarget::Kept(&mut kept)).unwrap();
        assert_eq!(kept.len(), 3);
        assert!(log.redo(TileTarget::Kept(&mut kept)).unwrap().is_none());
    }
}
