//! Water flow off the main thread: one dedicated flow thread runs the flow of every edit
//! ([`crate::stream::water_flow::flow`]) one after another, in edit order; the main thread only
//! submits edits and applies finished flows, never waiting (law: Main thread never waits).
//!
//! Deterministic given the edit order (law: Deterministic): the flow thread keeps its own copy of
//! the edits. For edit k it applies the edit, computes the flow over the generated world and
//! that copy (so it sees every edit up to k and every flow before k), and applies the flow to
//! its copy. The main thread applies the flow of edit k when it arrives, except on voxels that a
//! later edit (k + 1, …, already applied on the main thread) changed: there the later edit wins,
//! as it does on the flow thread. Both copies therefore end equal, whatever the timing, and
//! every peer of a shared world that applies the same edits in the same order computes the same
//! water.
//!
//! Every batch the main thread writes goes to the flow thread in order: edits (their flow runs),
//! undo and redo replays (written, no flow: their water is part of them). Each batch gets a
//! ticket, handed back with its flow, so the world nodes can put a flow into the undo step of the
//! edit that caused it. The batches whose flow has not been taken are [`PendingFlow`]s, each
//! voxel with its entry before the batch as the flow thread sees it: a save keeps them and
//! [`WaterRunner::restore`] rebuilds the flow thread's world before the first of them and runs
//! them again, so the water settles as it would have without the save (law: Nothing is lost).
//!
//! Generated voxels come from a [`GeneratedWorld`]: the 3D generator or the side-view generator,
//! a chunk at a time, kept in a small cache owned by the flow thread.
//!
//! May use: `base`, `gen3d`, `gen2d` and `stream::water_flow`.

use crate::base::block::BlockId;
use crate::base::chunk::VoxelBuffer;
use crate::base::coords::{ChunkCoord, IVec3};
pub use crate::base::edit_history::PendingFlow;
use crate::base::edit_history::VoxelChange;
use crate::base::edits::EditMap;
use crate::gen2d::{ChunkCoord2D, Generator2D, TileGrid};
use crate::gen3d::pipeline::Generator;
use crate::stream::water_flow::{FlowGrid, FlowLimits, GRID_2D, GRID_3D, flow};
use crossbeam_channel::{Receiver, Sender, unbounded};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

/// The next batch's ticket, counted over every runner of the process, so that a ticket names one
/// batch even across a flow thread started again.
static NEXT_TICKET: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Generated chunks the flow thread keeps (about 64 KiB each in 3D); beyond it the cache starts
/// over.
const CACHED_CHUNKS: usize = 256;

/// The generated world a flow reads (edits are applied over it by the runner).
pub trait GeneratedWorld: Send + 'static {
    /// Which way is down and which ways are sideways.
    fn grid(&self) -> FlowGrid;
    /// The generated block at `p`.
    fn voxel(&mut self, p: IVec3) -> BlockId;
}

/// A 3D world's generated voxels, a chunk at a time.
pub struct Generated3D {
    generator: Arc<Generator>,
    chunks: HashMap<ChunkCoord, VoxelBuffer>,
}

impl Generated3D {
    pub fn new(generator: Arc<Generator>) -> Self {
        Self { generator, chunks: HashMap::new() }
    }
}

impl GeneratedWorld for Generated3D {
    fn grid(&self) -> FlowGrid {
        GRID_3D
    }

    fn voxel(&mut self, p: IVec3) -> BlockId {
        if !crate::base::coords::voxel_in_world(p) {
            return crate::base::block::AIR;
        }
        let c = ChunkCoord::containing(p);
        if !self.chunks.contains_key(&c) && self.chunks.len() >= CACHED_CHUNKS {
            self.chunks.clear();
        }
        let generator = &self.generator;
        let chunk = self.chunks.entry(c).or_insert_with(|| generator.generate_chunk(c));
        chunk.get(p).unwrap_or(crate::base::block::AIR)
    }
}

/// A side view's generated tiles (tile `(x, y)` at voxel `(x, y, 0)`), a chunk at a time.
pub struct Generated2D {
    generator: Arc<Generator2D>,
    chunks: HashMap<ChunkCoord2D, TileGrid>,
}

impl Generated2D {
    pub fn new(generator: Arc<Generator2D>) -> Self {
        Self { generator, chunks: HashMap::new() }
    }
}

impl GeneratedWorld for Generated2D {
    fn grid(&self) -> FlowGrid {
        GRID_2D
    }

    fn voxel(&mut self, p: IVec3) -> BlockId {
        if !crate::base::coords::voxel_in_world(p) {
            return crate::base::block::AIR;
        }
        let n = self.generator.chunk_tiles();
        let c = ChunkCoord2D::containing(p.x, p.y, n);
        if !self.chunks.contains_key(&c) && self.chunks.len() >= CACHED_CHUNKS {
            self.chunks.clear();
        }
        let generator = &self.generator;
        let chunk = self.chunks.entry(c).or_insert_with(|| generator.generate_chunk(c));
        chunk.get(p.x, p.y).unwrap_or(crate::base::block::AIR)
    }
}

/// Runs one edit's flow over `generated` and `edits` (the world after the edit) and applies it
/// to `edits`: what the flow thread does per edit, callable directly (tests, tools).
pub fn flow_after_edit(
    generated: &mut dyn GeneratedWorld,
    limits: FlowLimits,
    edits: &mut EditMap,
    changed: &[IVec3],
) -> crate::stream::water_flow::FlowOutcome {
    let grid = generated.grid();
    let outcome = {
        let edits_ref = &*edits;
        let mut lookup = |p: IVec3| edits_ref.get(p).unwrap_or_else(|| generated.voxel(p));
        flow(grid, limits, &mut lookup, changed)
    };
    for &(p, id) in &outcome.changes {
        edits.set(p, id);
    }
    outcome
}

enum Command {
    /// An applied batch: a voxel's new block, or `None` where its edit was removed (an undo);
    /// with `flows`, the flow of the batch runs after it.
    Edit {
        epoch: u64,
        batch: Vec<(IVec3, Option<BlockId>)>,
        flows: bool,
    },
    Reset {
        epoch: u64,
        edits: EditMap,
    },
}

struct Finished {
    epoch: u64,
    flows: bool,
    changes: Vec<(IVec3, BlockId)>,
    stopped_at_cap: bool,
    micros: u64,
}

/// Totals over the flows finished so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlowStats {
    /// Flows finished (one per edit or batch).
    pub flows: u64,
    /// Voxels the flows changed (before later edits took some back).
    pub voxels: u64,
    /// Flows that stopped at the cap.
    pub capped: u64,
    /// Flow-thread time, µs, in total and of the slowest flow.
    pub total_us: u64,
    pub max_us: u64,
}

/// A flow taken from the flow thread: the ticket of the batch that caused it and its changes
/// to apply (less the voxels a later batch changed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FinishedFlow {
    pub ticket: u64,
    pub changes: Vec<(IVec3, BlockId)>,
}

/// A submitted batch on the main thread's side.
struct Submitted {
    ticket: u64,
    flow: PendingFlow,
    /// Index of each voxel in `flow.changes`.
    index: HashMap<IVec3, usize>,
}

impl Submitted {
    /// One change per voxel (the first `before`, the last `after`), in first-seen order.
    fn new(ticket: u64, flows: bool, changes: &[VoxelChange]) -> Self {
        let mut index: HashMap<IVec3, usize> = HashMap::with_capacity(changes.len());
        let mut out: Vec<VoxelChange> = Vec::with_capacity(changes.len());
        for c in changes {
            match index.get(&c.pos) {
                Some(&i) => out[i].after = c.after,
                None => {
                    index.insert(c.pos, out.len());
                    out.push(*c);
                }
            }
        }
        Self { ticket, flow: PendingFlow { flows, changes: out }, index }
    }
}

/// The main thread's side of the flow thread.
pub struct WaterRunner {
    commands: Option<Sender<Command>>,
    finished: Receiver<Finished>,
    /// Each submitted batch whose flow has not come back, oldest first.
    pending: VecDeque<Submitted>,
    epoch: u64,
    stats: FlowStats,
    thread: Option<JoinHandle<()>>,
}

impl WaterRunner {
    /// Starts the flow thread over `generated` with `edits` as the world's edits so far. Fails
    /// only if the OS refuses a thread.
    pub fn new(generated: impl GeneratedWorld, limits: FlowLimits, edits: EditMap) -> std::io::Result<Self> {
        let (command_tx, command_rx) = unbounded::<Command>();
        let (finished_tx, finished_rx) = unbounded::<Finished>();
        let thread = std::thread::Builder::new()
            .name("strata-water".into())
            .spawn(move || run(generated, limits, edits, command_rx, finished_tx))?;
        Ok(Self {
            commands: Some(command_tx),
            finished: finished_rx,
            pending: VecDeque::new(),
            epoch: 0,
            stats: FlowStats::default(),
            thread: Some(thread),
        })
    }

    /// Queues an applied batch: each change's `before` is the voxel's entry just before the
    /// batch on the main thread, `after` the entry written (`None`: the edit removed, the
    /// generated block shows again). With `flows`, the batch's flow runs after it; without, the
    /// flow thread only writes it (an undo or redo that replays water already computed).
    /// Returns the batch's ticket, which [`WaterRunner::take_finished`] hands back with its
    /// flow; `None` for an empty batch.
    pub fn submit(&mut self, changes: &[VoxelChange], flows: bool) -> Option<u64> {
        if changes.is_empty() {
            return None;
        }
        let ticket = NEXT_TICKET.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let submitted = Submitted::new(ticket, flows, changes);
        let batch = submitted.flow.changes.iter().map(|c| (c.pos, c.after)).collect();
        self.pending.push_back(submitted);
        if let Some(tx) = &self.commands {
            let _ = tx.send(Command::Edit { epoch: self.epoch, batch, flows });
        }
        Some(ticket)
    }

    /// Starts over from `edits` (a loaded save): flows not yet applied are dropped.
    pub fn reset(&mut self, edits: &EditMap) {
        self.epoch += 1;
        self.pending.clear();
        if let Some(tx) = &self.commands {
            let _ = tx.send(Command::Reset { epoch: self.epoch, edits: edits.clone() });
        }
    }

    /// Starts over from `edits` (a loaded save, which already holds every batch of `pending`)
    /// and runs the flows of `pending` again, in order, from the world as it was before the
    /// first of them: the flow thread starts from `edits` with each pending batch's voxels put
    /// back to their `before` entries (newest batch first), then writes the batches and runs
    /// their flows as it did before the save. The water then settles exactly as it would have
    /// without the save.
    pub fn restore(&mut self, edits: &EditMap, pending: Vec<PendingFlow>) {
        let mut base = edits.clone();
        for flow in pending.iter().rev() {
            for c in &flow.changes {
                match c.before {
                    Some(b) => base.set(c.pos, b),
                    None => base.clear_at(c.pos),
                }
            }
        }
        self.reset(&base);
        for flow in pending {
            self.submit(&flow.changes, flow.flows);
        }
    }

    /// The finished flows' changes to apply now, in edit order, less the voxels that later
    /// batches changed. Never waits.
    pub fn take_finished(&mut self) -> Vec<FinishedFlow> {
        let mut out = Vec::new();
        while let Ok(f) = self.finished.try_recv() {
            if f.epoch != self.epoch {
                continue;
            }
            let Some(done) = self.pending.pop_front() else { continue };
            if f.flows {
                self.stats.flows += 1;
                self.stats.voxels += f.changes.len() as u64;
                self.stats.capped += f.stopped_at_cap as u64;
                self.stats.total_us += f.micros;
                self.stats.max_us = self.stats.max_us.max(f.micros);
            }
            let mut changes = Vec::with_capacity(f.changes.len());
            for (p, id) in f.changes {
                // A later batch changed the voxel: it wins, and on the flow thread it was
                // written over this flow's block, which is therefore that batch's `before`.
                match self.pending.iter_mut().find_map(|s| s.index.get(&p).copied().map(|i| (s, i))) {
                    Some((later, i)) => later.flow.changes[i].before = Some(id),
                    None => changes.push((p, id)),
                }
            }
            out.push(FinishedFlow { ticket: done.ticket, changes });
        }
        out
    }

    /// The batches whose flows have not been taken yet, oldest first (what a save keeps).
    pub fn pending_flows(&self) -> Vec<PendingFlow> {
        self.pending.iter().map(|s| s.flow.clone()).collect()
    }

    /// True when every submitted edit's flow has come back and been taken.
    pub fn is_settled(&self) -> bool {
        self.pending.is_empty()
    }

    /// Flows whose results have not been taken yet.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    pub fn stats(&self) -> FlowStats {
        self.stats
    }
}

impl Drop for WaterRunner {
    fn drop(&mut self) {
        // Closing the channel ends the thread after the flow it is running.
        self.commands = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// What a streamer keeps of water flow: the flow thread while flow is on, and the flows of a
/// loaded save held while it is off (so that saving again keeps them); the ticket of the last
/// submitted batch, which the world nodes use to put a flow into the undo step of its edit.
#[derive(Default)]
pub struct WaterSlot {
    runner: Option<WaterRunner>,
    held: Vec<PendingFlow>,
    last_ticket: Option<u64>,
}

impl WaterSlot {
    /// Turns flow on with the runner `start` makes (given the edits so far), running any held
    /// flows first, or off (dropping the runner and every pending flow). Fails only if the OS
    /// refuses a thread.
    pub fn set_enabled(
        &mut self,
        enabled: bool,
        edits: &EditMap,
        start: impl FnOnce() -> std::io::Result<WaterRunner>,
    ) -> std::io::Result<()> {
        if enabled && self.runner.is_none() {
            let mut runner = start()?;
            if !self.held.is_empty() {
                runner.restore(edits, std::mem::take(&mut self.held));
            }
            self.runner = Some(runner);
        } else if !enabled {
            self.runner = None;
            self.held.clear();
        }
        Ok(())
    }

    pub fn is_on(&self) -> bool {
        self.runner.is_some()
    }

    /// Turns flow off as [`WaterSlot::set_enabled`] does, handing the runner to the caller to
    /// drop (its drop waits for the flow running now).
    pub fn take_runner(&mut self) -> Option<WaterRunner> {
        self.held.clear();
        self.runner.take()
    }

    /// New edits (a loaded save): pending and held flows are dropped.
    pub fn reset(&mut self, edits: &EditMap) {
        self.held.clear();
        if let Some(r) = &mut self.runner {
            r.reset(edits);
        }
    }

    /// Runs `pending` (a save's flows, their batches already in `edits`) again, or holds them
    /// while flow is off.
    pub fn restore(&mut self, edits: &EditMap, pending: Vec<PendingFlow>) {
        match &mut self.runner {
            Some(r) => r.restore(edits, pending),
            None => self.held = pending,
        }
    }

    /// Submits an applied batch ([`WaterRunner::submit`]); the ticket is also kept as
    /// [`WaterSlot::last_ticket`]. Nothing while flow is off.
    pub fn submit(&mut self, changes: &[VoxelChange], flows: bool) -> Option<u64> {
        self.last_ticket = self.runner.as_mut().and_then(|r| r.submit(changes, flows));
        self.last_ticket
    }

    /// The ticket of the last batch submitted (`None` when it was not, flow being off).
    pub fn last_ticket(&self) -> Option<u64> {
        self.last_ticket
    }

    pub fn take_finished(&mut self) -> Vec<FinishedFlow> {
        self.runner.as_mut().map(|r| r.take_finished()).unwrap_or_default()
    }

    /// The flows a save keeps: the runner's pending ones, or those held.
    pub fn pending_flows(&self) -> Vec<PendingFlow> {
        match &self.runner {
            Some(r) => r.pending_flows(),
            None => self.held.clone(),
        }
    }

    /// True when no flow is pending (or flow is off).
    pub fn is_settled(&self) -> bool {
        self.runner.as_ref().is_none_or(|r| r.is_settled())
    }

    pub fn stats(&self) -> FlowStats {
        self.runner.as_ref().map(|r| r.stats()).unwrap_or_default()
    }
}

fn run(
    mut generated: impl GeneratedWorld,
    limits: FlowLimits,
    mut edits: EditMap,
    commands: Receiver<Command>,
    finished: Sender<Finished>,
) {
    let mut epoch = 0;
    while let Ok(command) = commands.recv() {
        match command {
            Command::Reset { epoch: e, edits: fresh } => {
                epoch = e;
                edits = fresh;
            }
            Command::Edit { epoch: e, batch, flows } => {
                if e != epoch {
                    continue;
                }
                let t0 = Instant::now();
                for &(p, id) in &batch {
                    match id {
                        Some(id) => edits.set(p, id),
                        None => edits.clear_at(p),
                    }
                }
                let (changes, stopped_at_cap) = if flows {
                    let changed: Vec<IVec3> = batch.iter().map(|&(p, _)| p).collect();
                    let outcome = flow_after_edit(&mut generated, limits, &mut edits, &changed);
                    (outcome.changes, outcome.stopped_at_cap)
                } else {
                    (Vec::new(), false)
                };
                let micros = t0.elapsed().as_micros() as u64;
                let done = Finished { epoch, flows, changes, stopped_at_cap, micros };
                if finished.send(done).is_err() {
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::block::{AIR, STONE, WATER};
    use crate::preset::model::WorldPreset;
    use crate::stream::water_flow::FLOW_SPREAD;

    /// A generated world given by a function.
    struct FnWorld(fn(IVec3) -> BlockId, FlowGrid);

    impl GeneratedWorld for FnWorld {
        fn grid(&self) -> FlowGrid {
            self.1
        }
        fn voxel(&mut self, p: IVec3) -> BlockId {
            (self.0)(p)
        }
    }

    /// Stone below y = 6 with a lake of water at y = 1..=4 (x, z in 0..10) and air above it.
    fn lake(p: IVec3) -> BlockId {
        let in_lake = (0..10).contains(&p.x) && (0..10).contains(&p.z);
        match p.y {
            1..=4 if in_lake => WATER,
            5 if in_lake => AIR,
            ..6 => STONE,
            _ => AIR,
        }
    }

    /// A sequence of edits around the lake: holes beside it, a trench, a dam, a floor removed,
    /// water placed in the air. Each is one batch.
    fn edit_sequence() -> Vec<Vec<(IVec3, BlockId)>> {
        let boxed = |min: IVec3, max: IVec3, id: BlockId| {
            let mut v = Vec::new();
            for y in min.y..=max.y {
                for z in min.z..=max.z {
                    for x in min.x..=max.x {
                        v.push((IVec3::new(x, y, z), id));
                    }
                }
            }
            v
        };
        vec![
            boxed(IVec3::new(10, 2, 3), IVec3::new(12, 5, 5), AIR),
            boxed(IVec3::new(13, 3, 4), IVec3::new(20, 5, 4), AIR),
            boxed(IVec3::new(13, 4, 4), IVec3::new(13, 5, 4), STONE),
            boxed(IVec3::new(4, 0, 4), IVec3::new(5, 0, 5), AIR),
            boxed(IVec3::new(4, -6, 4), IVec3::new(5, -1, 5), AIR),
            vec![(IVec3::new(-5, 12, -5), WATER)],
            boxed(IVec3::new(-3, 3, -3), IVec3::new(-1, 5, 8), AIR),
            vec![(IVec3::new(16, 4, 4), STONE)],
            boxed(IVec3::new(21, 4, 4), IVec3::new(22, 5, 4), AIR),
        ]
    }

    /// What the flow thread computes: each edit, then its flow, in order.
    fn reference(edits: &[Vec<(IVec3, BlockId)>]) -> EditMap {
        let mut world = FnWorld(lake, crate::stream::water_flow::GRID_3D);
        let mut map = EditMap::new();
        for batch in edits {
            for &(p, id) in batch {
                map.set(p, id);
            }
            let changed: Vec<IVec3> = batch.iter().map(|&(p, _)| p).collect();
            flow_after_edit(&mut world, FlowLimits::default(), &mut map, &changed);
        }
        map
    }

    fn apply(map: &mut EditMap, changes: &[(IVec3, BlockId)]) {
        for &(p, id) in changes {
            map.set(p, id);
        }
    }

    fn apply_finished(map: &mut EditMap, finished: Vec<FinishedFlow>) {
        for f in finished {
            apply(map, &f.changes);
        }
    }

    /// Writes `batch` into `map` as the main thread does and submits it with its `before`s.
    fn edit(runner: &mut WaterRunner, map: &mut EditMap, batch: &[(IVec3, BlockId)]) {
        let changes: Vec<VoxelChange> = batch
            .iter()
            .map(|&(pos, id)| {
                let before = map.get(pos);
                map.set(pos, id);
                VoxelChange { pos, before, after: Some(id) }
            })
            .collect();
        runner.submit(&changes, true);
    }

    fn wait_settled(runner: &mut WaterRunner, map: &mut EditMap) {
        let t0 = Instant::now();
        while !runner.is_settled() {
            apply_finished(map, runner.take_finished());
            assert!(t0.elapsed().as_secs() < 60, "flows never finished");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    #[test]
    fn the_same_edits_give_the_same_water_whatever_the_timing() {
        let edits = edit_sequence();
        let want = reference(&edits);
        assert!(want.len() > 100, "the sequence makes water flow");
        // Waits after each edit; sends every edit at once; polls at uneven moments.
        for timing in 0..3 {
            let world = FnWorld(lake, crate::stream::water_flow::GRID_3D);
            let mut runner = WaterRunner::new(world, FlowLimits::default(), EditMap::new()).expect("flow thread");
            let mut map = EditMap::new();
            for (k, batch) in edits.iter().enumerate() {
                edit(&mut runner, &mut map, batch);
                match timing {
                    0 => wait_settled(&mut runner, &mut map),
                    1 => {}
                    _ => {
                        std::thread::sleep(std::time::Duration::from_micros(200 * (k as u64 % 3)));
                        apply_finished(&mut map, runner.take_finished());
                    }
                }
            }
            wait_settled(&mut runner, &mut map);
            assert_eq!(map, want, "timing {timing}");
            assert_eq!(runner.stats().flows, edits.len() as u64);
        }
    }

    #[test]
    fn a_reset_drops_pending_flows_and_starts_from_the_new_edits() {
        let world = FnWorld(lake, crate::stream::water_flow::GRID_3D);
        let mut runner = WaterRunner::new(world, FlowLimits::default(), EditMap::new()).expect("flow thread");
        let batch = vec![(IVec3::new(10, 4, 4), AIR)];
        edit(&mut runner, &mut EditMap::new(), &batch);
        let loaded = EditMap::new();
        runner.reset(&loaded);
        assert!(runner.is_settled());
        let mut map = loaded.clone();
        edit(&mut runner, &mut map, &batch);
        wait_settled(&mut runner, &mut map);
        assert_eq!(map.get(IVec3::new(10, 4, 4)), Some(WATER));
    }

    /// A save taken at any moment (flows pending, some taken, none taken) and restored into a
    /// fresh flow thread settles to the voxels of the run that was never saved (law: Nothing is
    /// lost), whatever the timing before the save.
    #[test]
    fn flows_pending_at_a_save_run_again_after_loading_and_settle_the_same() {
        let edits = edit_sequence();
        let want = reference(&edits);
        let mut pending_seen = 0;
        for cut in 0..=edits.len() {
            for timing in 0..3 {
                let world = FnWorld(lake, crate::stream::water_flow::GRID_3D);
                let mut runner = WaterRunner::new(world, FlowLimits::default(), EditMap::new()).expect("flow thread");
                let mut map = EditMap::new();
                for (k, batch) in edits[..cut].iter().enumerate() {
                    edit(&mut runner, &mut map, batch);
                    if timing == 2 {
                        std::thread::sleep(std::time::Duration::from_micros(300 * (k as u64 % 2)));
                        apply_finished(&mut map, runner.take_finished());
                    }
                }
                if timing == 0 {
                    wait_settled(&mut runner, &mut map);
                }
                // The save: the main thread's edits and the flows not yet taken.
                let (saved, pending) = (map.clone(), runner.pending_flows());
                pending_seen += pending.len();
                drop(runner);
                let world = FnWorld(lake, crate::stream::water_flow::GRID_3D);
                let mut runner = WaterRunner::new(world, FlowLimits::default(), EditMap::new()).expect("flow thread");
                let mut map = saved;
                runner.restore(&map, pending);
                for batch in &edits[cut..] {
                    edit(&mut runner, &mut map, batch);
                }
                wait_settled(&mut runner, &mut map);
                assert_eq!(map, want, "saved after {cut} edits, timing {timing}");
            }
        }
        assert!(pending_seen > 0, "some saves were taken with flows pending");
    }

    /// A batch written without a flow (an undo replaying water already computed) starts no flow
    /// and still keeps its place in the order of batches.
    #[test]
    fn a_batch_without_flow_is_written_but_runs_no_flow() {
        let world = FnWorld(lake, crate::stream::water_flow::GRID_3D);
        let mut runner = WaterRunner::new(world, FlowLimits::default(), EditMap::new()).expect("flow thread");
        let mut map = EditMap::new();
        let hole = IVec3::new(10, 4, 4);
        let change = VoxelChange { pos: hole, before: None, after: Some(AIR) };
        map.set(hole, AIR);
        let ticket = runner.submit(&[change], false).expect("a ticket");
        let t0 = Instant::now();
        let mut finished = Vec::new();
        while !runner.is_settled() {
            finished.extend(runner.take_finished());
            assert!(t0.elapsed().as_secs() < 60);
        }
        assert_eq!(finished, vec![FinishedFlow { ticket, changes: Vec::new() }]);
        assert_eq!(runner.stats().flows, 0);
        assert_eq!(map.get(hole), Some(AIR), "no water flowed into the hole");
        // The same batch with its flow fills the hole from the lake.
        edit(&mut runner, &mut map, &[(hole, AIR)]);
        wait_settled(&mut runner, &mut map);
        assert_eq!(map.get(hole), Some(WATER));
    }

    fn generator() -> Arc<Generator> {
        let mut preset = WorldPreset { seed: 1234, ..WorldPreset::default() };
        preset.water.sea_level = 24;
        Arc::new(Generator::new(&preset).expect("the preset builds"))
    }

    /// A column with water at sea level − 1 whose +x neighbour is ground at sea level − 1 and − 2
    /// (with `near_border`, that neighbour within four voxels of the next chunk border in x).
    fn shore(g: &Generator, near_border: bool) -> Option<(i32, i32)> {
        let sea = g.preset().water.sea_level;
        for z in (-256..256).step_by(4) {
            for x in -256..256 {
                let (here, there) = (g.surface_height(x, z), g.surface_height(x + 1, z));
                if (!near_border || (x + 1).rem_euclid(32) >= 28)
                    && here < sea
                    && there >= sea
                    && g.voxel_at(IVec3::new(x, sea - 1, z)) == WATER
                    && crate::base::block::is_solid(g.voxel_at(IVec3::new(x + 1, sea - 1, z)))
                    && crate::base::block::is_solid(g.voxel_at(IVec3::new(x + 1, sea - 2, z)))
                {
                    return Some((x, z));
                }
            }
        }
        None
    }

    #[test]
    fn generated_world_digging_beside_the_sea_fills_the_hole_to_sea_level() {
        let g = generator();
        let (x, z) = shore(&g, false).expect("a shore near the origin");
        let sea = g.preset().water.sea_level;
        // Dig three voxels beside the water, from two below the sea up to one above it.
        let mut edits = EditMap::new();
        let hole: Vec<IVec3> = (sea - 2..=sea).map(|y| IVec3::new(x + 1, y, z)).collect();
        for &p in &hole {
            edits.set(p, AIR);
        }
        let mut world = Generated3D::new(g.clone());
        let out = flow_after_edit(&mut world, FlowLimits::default(), &mut edits, &hole);
        assert!(!out.stopped_at_cap);
        let at = |p: IVec3| edits.get(p).unwrap_or_else(|| g.voxel_at(p));
        assert_eq!(at(IVec3::new(x + 1, sea - 1, z)), WATER);
        assert_eq!(at(IVec3::new(x + 1, sea - 2, z)), WATER);
        assert_eq!(at(IVec3::new(x + 1, sea, z)), AIR, "never above the sea");
        for &(p, id) in &out.changes {
            if id == WATER {
                assert_ne!(at(p + IVec3::new(0, -1, 0)), AIR, "{p:?} hangs");
                assert!(p.y < sea, "{p:?} above the sea");
            }
        }
    }

    #[test]
    fn a_flow_across_a_chunk_border_is_the_same_whichever_chunk_is_generated_first() {
        let g = generator();
        let (x, z) = shore(&g, true).expect("a shore near a chunk border");
        let sea = g.preset().water.sea_level;
        // A trench along +x from the shore, across the next chunk border in x.
        let border = (x + 1).div_euclid(32) * 32 + 32;
        assert!(border - (x + 1) <= 4);
        let trench: Vec<(IVec3, BlockId)> = (x + 1..=border + 3)
            .flat_map(|tx| [(IVec3::new(tx, sea - 1, z), AIR), (IVec3::new(tx, sea, z), AIR)])
            .collect();
        let changed: Vec<IVec3> = trench.iter().map(|&(p, _)| p).collect();
        let run = |warm: Option<IVec3>| {
            let mut world = Generated3D::new(g.clone());
            if let Some(p) = warm {
                world.voxel(p);
            }
            let mut edits = EditMap::new();
            for &(p, id) in &trench {
                edits.set(p, id);
            }
            flow_after_edit(&mut world, FlowLimits::default(), &mut edits, &changed)
        };
        let plain = run(None);
        assert_eq!(plain, run(Some(IVec3::new(border, sea, z))), "the far chunk first");
        assert_eq!(plain, run(Some(IVec3::new(border - 1, sea, z))), "the near chunk first");
        // Voxel by voxel from the generator (no chunk cache at all) gives the same flow.
        struct PerVoxel(Arc<Generator>);
        impl GeneratedWorld for PerVoxel {
            fn grid(&self) -> FlowGrid {
                crate::stream::water_flow::GRID_3D
            }
            fn voxel(&mut self, p: IVec3) -> BlockId {
                self.0.voxel_at(p)
            }
        }
        let mut edits = EditMap::new();
        for &(p, id) in &trench {
            edits.set(p, id);
        }
        assert_eq!(plain, flow_after_edit(&mut PerVoxel(g.clone()), FlowLimits::default(), &mut edits, &changed));
        // The trench holds water up to the spread from the shore, across the border if it reaches.
        assert!(plain.changes.iter().any(|&(p, id)| id == WATER && p.y == sea - 1 && p.x < border));
        assert!(
            plain.changes.iter().any(|&(p, id)| id == WATER && p.y == sea - 1 && p.x >= border),
            "crosses the border"
        );
        assert!(plain.changes.iter().all(|&(p, _)| p.x <= x + 1 + FLOW_SPREAD + 1 || p.y < sea - 1));
    }

    #[test]
    fn side_view_flows_run_over_the_generated_pools() {
        use crate::gen2d::Generator2D;
        let mut preset = WorldPreset { seed: 7, ..WorldPreset::default() };
        preset.side_view.water_enabled = true;
        let g = Arc::new(Generator2D::new(&preset).expect("side view builds"));
        // A pool tile whose right neighbour is ground at the pool's surface row.
        let mut found = None;
        'search: for x in -2000..2000 {
            let top = crate::stream::stream2d::top_solid_row(&g, None, x);
            for y in top - 12..top {
                if g.tile_at(x, y) == WATER
                    && g.tile_at(x, y - 1) == AIR
                    && g.tile_at(x + 1, y) != WATER
                    && crate::base::block::is_solid(g.tile_at(x + 1, y))
                {
                    found = Some((x, y));
                    break 'search;
                }
            }
        }
        let (x, y) = found.expect("a pool edge in the side view");
        // Dig the tile beside the pool's surface and the one under it.
        let hole = [IVec3::new(x + 1, y, 0), IVec3::new(x + 1, y + 1, 0)];
        let mut edits = EditMap::new();
        for p in hole {
            edits.set(p, AIR);
        }
        let mut world = Generated2D::new(g.clone());
        flow_after_edit(&mut world, FlowLimits::default(), &mut edits, &hole);
        let at = |p: IVec3| edits.get(p).unwrap_or_else(|| g.tile_at(p.x, p.y));
        assert_eq!(at(hole[0]), WATER);
        assert_eq!(at(hole[1]), WATER, "below the pool's surface row");
        assert_ne!(at(IVec3::new(x + 1, y - 1, 0)), WATER, "never above the pool's surface");
    }
}
