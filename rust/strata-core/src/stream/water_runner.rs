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
//! Generated voxels come from a [`GeneratedWorld`]: the 3D generator or the side-view generator,
//! a chunk at a time, kept in a small cache owned by the flow thread.
//!
//! May use: `base`, `gen3d`, `gen2d` and `stream::water_flow`.

use crate::base::block::BlockId;
use crate::base::chunk::VoxelBuffer;
use crate::base::coords::{ChunkCoord, IVec3};
use crate::base::edits::EditMap;
use crate::gen2d::{ChunkCoord2D, Generator2D, TileGrid};
use crate::gen3d::pipeline::Generator;
use crate::stream::water_flow::{FlowGrid, FlowLimits, GRID_2D, GRID_3D, flow};
use crossbeam_channel::{Receiver, Sender, unbounded};
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

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
    /// An applied edit: a voxel's new block, or `None` where its edit was removed (an undo).
    Edit {
        epoch: u64,
        batch: Vec<(IVec3, Option<BlockId>)>,
    },
    Reset {
        epoch: u64,
        edits: EditMap,
    },
}

struct Finished {
    epoch: u64,
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

/// The main thread's side of the flow thread.
pub struct WaterRunner {
    commands: Option<Sender<Command>>,
    finished: Receiver<Finished>,
    /// Voxels of each submitted edit whose flow has not come back, oldest first.
    pending: VecDeque<HashSet<IVec3>>,
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

    /// Queues the flow of an edit already applied on the main thread.
    pub fn submit(&mut self, batch: &[(IVec3, BlockId)]) {
        let changes: Vec<(IVec3, Option<BlockId>)> = batch.iter().map(|&(p, id)| (p, Some(id))).collect();
        self.submit_changes(&changes);
    }

    /// Queues the flow of an applied batch whose entries set a voxel's edit (`Some`) or remove
    /// it (`None`: the generated block shows again, as an undo does).
    pub fn submit_changes(&mut self, batch: &[(IVec3, Option<BlockId>)]) {
        if batch.is_empty() {
            return;
        }
        self.pending.push_back(batch.iter().map(|&(p, _)| p).collect());
        if let Some(tx) = &self.commands {
            let _ = tx.send(Command::Edit { epoch: self.epoch, batch: batch.to_vec() });
        }
    }

    /// Starts over from `edits` (a loaded save): flows not yet applied are dropped.
    pub fn reset(&mut self, edits: &EditMap) {
        self.epoch += 1;
        self.pending.clear();
        if let Some(tx) = &self.commands {
            let _ = tx.send(Command::Reset { epoch: self.epoch, edits: edits.clone() });
        }
    }

    /// The finished flows' changes to apply now, in edit order, less the voxels that later edits
    /// changed. Never waits.
    pub fn take_finished(&mut self) -> Vec<(IVec3, BlockId)> {
        let mut out = Vec::new();
        while let Ok(f) = self.finished.try_recv() {
            if f.epoch != self.epoch {
                continue;
            }
            self.pending.pop_front();
            self.stats.flows += 1;
            self.stats.voxels += f.changes.len() as u64;
            self.stats.capped += f.stopped_at_cap as u64;
            self.stats.total_us += f.micros;
            self.stats.max_us = self.stats.max_us.max(f.micros);
            let later = &self.pending;
            out.extend(f.changes.into_iter().filter(|(p, _)| !later.iter().any(|s| s.contains(p))));
        }
        out
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
            Command::Edit { epoch: e, batch } => {
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
                let changed: Vec<IVec3> = batch.iter().map(|&(p, _)| p).collect();
                let outcome = flow_after_edit(&mut generated, limits, &mut edits, &changed);
                let micros = t0.elapsed().as_micros() as u64;
                let done = Finished { epoch, changes: outcome.changes, stopped_at_cap: outcome.stopped_at_cap, micros };
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

    fn wait_settled(runner: &mut WaterRunner, map: &mut EditMap) {
        let t0 = Instant::now();
        while !runner.is_settled() {
            apply(map, &runner.take_finished());
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
                apply(&mut map, batch);
                runner.submit(batch);
                match timing {
                    0 => wait_settled(&mut runner, &mut map),
                    1 => {}
                    _ => {
                        std::thread::sleep(std::time::Duration::from_micros(200 * (k as u64 % 3)));
                        apply(&mut map, &runner.take_finished());
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
        runner.submit(&batch);
        let loaded = EditMap::new();
        runner.reset(&loaded);
        assert!(runner.is_settled());
        let mut map = loaded.clone();
        apply(&mut map, &batch);
        runner.submit(&batch);
        wait_settled(&mut runner, &mut map);
        assert_eq!(map.get(IVec3::new(10, 4, 4)), Some(WATER));
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
