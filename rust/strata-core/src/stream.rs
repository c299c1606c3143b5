//! Streaming: which chunks the viewer needs, and worker threads that generate and mesh them.
//!
//! The main thread owns a [`Streamer`]. Each frame it calls [`Streamer::set_viewer`], then
//! [`Streamer::pump`] (queues the nearest missing chunks, at most `max_in_flight` at a time, so
//! priorities stay fresh when the viewer moves), then pulls finished [`ChunkResult`]s with
//! [`Streamer::try_recv`] for as long as its frame budget allows — it never blocks (law 3). Jobs for
//! chunks that left the view are cancelled; results that come back stale are dropped. Dropping the
//! streamer closes the job channel, cancels every job and joins every worker.

use crate::block::BlockId;
use crate::chunk::VoxelBuffer;
use crate::coords::{CHUNK_SIZE, ChunkCoord, IVec3};
use crate::edits::{EditMap, apply_edits};
use crate::generator::{ColumnGrid, Generator};
use crate::mesh::{ChunkMesh, mesh_padded_chunk};
pub use crate::scheduler::StreamStats;
use crate::scheduler::{Job, JobResult, Scheduler, auto_workers};
use crate::worldgen::scatter::{ScatterInstance, scatter_chunk_with_columns};
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Instant;

/// How far and how hard to stream.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamConfig {
    /// Horizontal radius of the loaded area, in chunks.
    pub view_distance: i32,
    /// Chunks loaded above and below the viewer's chunk.
    pub vertical_view_distance: i32,
    /// Loaded chunks are unloaded only beyond `view_distance + unload_margin` (hysteresis).
    pub unload_margin: i32,
    /// Worker threads; 0 = one less than the machine's cores, at least two.
    pub worker_threads: usize,
    /// Jobs queued or running at once; 0 = `2 × workers + 2`.
    pub max_in_flight: usize,
}

impl Default for StreamConfig {
    fn default() -> Self {
        Self { view_distance: 8, vertical_view_distance: 4, unload_margin: 2, worker_threads: 0, max_in_flight: 0 }
    }
}

impl StreamConfig {
    /// The worker count this config resolves to on this machine.
    pub fn resolved_workers(&self) -> usize {
        auto_workers(self.worker_threads)
    }
}

/// A finished chunk, ready for the main thread to turn into a node.
#[derive(Debug)]
pub struct ChunkResult {
    pub coord: ChunkCoord,
    /// Empty when the chunk has no visible faces (sky, or buried solid).
    pub mesh: ChunkMesh,
    /// Decorations (trees, bushes, flowers, rocks) standing in this chunk, on ground that is
    /// still there after caves and edits.
    pub scatter: Vec<ScatterInstance>,
    pub gen_us: u32,
    pub mesh_us: u32,
    /// True when this replaces an already loaded chunk (an edit was made).
    pub is_update: bool,
    job_id: u64,
}

impl JobResult<ChunkCoord> for ChunkResult {
    fn coord(&self) -> ChunkCoord {
        self.coord
    }
    fn job_id(&self) -> u64 {
        self.job_id
    }
    fn timings_us(&self) -> (u32, u32) {
        (self.gen_us, self.mesh_us)
    }
}

/// What a worker needs besides the generator: the edits inside the chunk's padded box.
type Edits = Vec<(IVec3, BlockId)>;

/// The main thread's side of streaming.
pub struct Streamer {
    generator: Arc<Generator>,
    config: StreamConfig,
    scheduler: Scheduler<ChunkCoord, Edits, ChunkResult>,
    edits: EditMap,
}

impl Streamer {
    /// Starts the worker threads.
    pub fn new(generator: Arc<Generator>, config: StreamConfig) -> Self {
        let worker_generator = generator.clone();
        let scheduler = Scheduler::new(config.resolved_workers(), config.max_in_flight, "strata-worker", move |job| {
            SCRATCH.with_borrow_mut(|(padded, columns)| build_chunk(&worker_generator, job, padded, columns))
        })
        .expect("spawn strata worker thread");
        Self { generator, config, scheduler, edits: EditMap::new() }
    }

    pub fn generator(&self) -> &Arc<Generator> {
        &self.generator
    }

    pub fn config(&self) -> &StreamConfig {
        &self.config
    }

    /// Changes view distances; takes effect at once.
    pub fn set_view_distance(&mut self, horizontal: i32, vertical: i32) {
        self.config.view_distance = horizontal.max(0);
        self.config.vertical_view_distance = vertical.max(0);
        if let Some(v) = self.scheduler.take_viewer() {
            self.retarget(v);
        }
    }

    /// Moves the viewer (world position in voxels); recomputes the wanted set when its chunk changes.
    pub fn set_viewer(&mut self, pos: [f64; 3]) {
        let clamp = |v: f64| if v.is_finite() { v.floor().clamp(i32::MIN as f64 / 2.0, i32::MAX as f64 / 2.0) as i32 } else { 0 };
        let c = ChunkCoord::containing(IVec3::new(clamp(pos[0]), clamp(pos[1]), clamp(pos[2])));
        if self.scheduler.viewer() != Some(c) {
            self.retarget(c);
        }
    }

    pub fn viewer_chunk(&self) -> Option<ChunkCoord> {
        self.scheduler.viewer()
    }

    fn retarget(&mut self, v: ChunkCoord) {
        let (r, vr, margin) = (self.config.view_distance, self.config.vertical_view_distance, self.config.unload_margin);
        let in_view = move |c: ChunkCoord, m: i32| {
            let (dx, dz) = ((c.x - v.x) as i64, (c.z - v.z) as i64);
            let rr = (r + m) as i64;
            dx * dx + dz * dz <= rr * rr && (c.y - v.y).abs() <= vr + m
        };
        let mut wanted = HashSet::new();
        for dy in -vr..=vr {
            for dz in -r..=r {
                for dx in -r..=r {
                    let c = ChunkCoord::new(v.x + dx, v.y + dy, v.z + dz);
                    if in_view(c, 0) {
                        wanted.insert(c);
                    }
                }
            }
        }
        // Nearest first; vertical distance counts double so the ground around the viewer comes first.
        self.scheduler.retarget(v, wanted, |c| in_view(c, margin), |c| {
            let (dx, dy, dz) = ((c.x - v.x) as i64, (c.y - v.y) as i64, (c.z - v.z) as i64);
            dx * dx + dz * dz + 4 * dy * dy
        });
    }

    /// The edits a job for chunk `c` must apply (those in its padded box).
    fn edits_for(edits: &EditMap, c: ChunkCoord) -> Edits {
        edits.edits_in_box(c.min_voxel() - IVec3::ONE, IVec3::splat(CHUNK_SIZE + 2))
    }

    /// Sends jobs to the workers until `max_in_flight` are outstanding. Edited chunks go first.
    pub fn pump(&mut self) {
        let edits = &self.edits;
        self.scheduler.pump(|c| Self::edits_for(edits, c));
    }

    /// The next finished chunk, if one is ready; never blocks. Stale results are skipped.
    pub fn try_recv(&mut self) -> Option<ChunkResult> {
        self.scheduler.try_recv()
    }

    /// Chunks to remove from the scene since the last call.
    pub fn take_unloads(&mut self) -> Vec<ChunkCoord> {
        self.scheduler.take_unloads()
    }

    /// True when every wanted chunk is loaded and no edit is waiting for a new mesh.
    pub fn is_area_ready(&self) -> bool {
        self.scheduler.is_area_ready()
    }

    /// Loaded chunks / wanted chunks, in `[0, 1]`.
    pub fn progress(&self) -> f64 {
        self.scheduler.progress()
    }

    pub fn is_loaded(&self, c: ChunkCoord) -> bool {
        self.scheduler.is_loaded(c)
    }

    pub fn loaded_chunks(&self) -> impl Iterator<Item = &ChunkCoord> {
        self.scheduler.loaded()
    }

    pub fn stats(&self) -> StreamStats {
        self.scheduler.stats()
    }

    pub fn edits(&self) -> &EditMap {
        &self.edits
    }

    /// Replaces all edits (loading a save); loaded chunks are remeshed.
    pub fn replace_edits(&mut self, edits: EditMap) {
        self.edits = edits;
        self.scheduler.invalidate_all_loaded();
    }

    /// Records an edit; every loaded chunk that shows voxel `p` gets a new mesh.
    pub fn set_voxel(&mut self, p: IVec3, id: BlockId) {
        self.edits.set(p, id);
        for c in EditMap::chunks_touching(p) {
            let edits = &self.edits;
            self.scheduler.invalidate(c, || Self::edits_for(edits, c));
        }
    }

    /// The block at `p`: the edit if there is one, else the generated block.
    pub fn voxel(&self, p: IVec3) -> BlockId {
        self.edits.get(p).unwrap_or_else(|| self.generator.voxel_at(p))
    }
}

thread_local! {
    /// Each worker's reusable padded-chunk buffer and column grid (no allocation per job).
    static SCRATCH: std::cell::RefCell<(VoxelBuffer, ColumnGrid)> = std::cell::RefCell::new((
        VoxelBuffer::new(IVec3::ZERO, IVec3::ONE),
        ColumnGrid { min_x: 0, min_z: 0, size_x: 0, size_z: 0, columns: Vec::new() },
    ));
}

/// The worker's job: generate the padded chunk (one column pass, which also tells a sky chunk
/// apart), apply edits, place scatter from the same columns, mesh.
fn build_chunk(generator: &Generator, job: Job<ChunkCoord, Edits>, padded: &mut VoxelBuffer, columns: &mut ColumnGrid) -> Option<ChunkResult> {
    let mut mesh = ChunkMesh::default();
    let t0 = Instant::now();
    let sky = generator.generate_padded_chunk_unless_sky(job.coord, padded, columns);
    if sky && job.payload.is_empty() {
        let gen_us = t0.elapsed().as_micros() as u32;
        return Some(ChunkResult { coord: job.coord, mesh, scatter: Vec::new(), gen_us, mesh_us: 0, is_update: job.is_update, job_id: job.id });
    }
    // A sky chunk's buffer is all air, exactly the generated box: edits (a tower) apply on top.
    apply_edits(padded, &job.payload);
    let mut scatter = if sky { Vec::new() } else { scatter_chunk_with_columns(generator, job.coord, columns) };
    scatter.retain(|s| standing_on_ground(padded, s));
    let gen_us = t0.elapsed().as_micros() as u32;
    if job.is_cancelled() {
        return None;
    }
    let t1 = Instant::now();
    mesh_padded_chunk(padded, &mut mesh);
    let mesh_us = t1.elapsed().as_micros() as u32;
    Some(ChunkResult { coord: job.coord, mesh, scatter, gen_us, mesh_us, is_update: job.is_update, job_id: job.id })
}

/// A decoration stays only where its base voxel is open and the voxel below is solid ground
/// (a cave or a player may have removed it).
fn standing_on_ground(padded: &VoxelBuffer, s: &ScatterInstance) -> bool {
    let base = s.base_voxel();
    let open = padded.get(base).is_some_and(|b| !crate::block::is_solid(b) && !crate::block::is_liquid(b));
    let ground = padded.get(base - IVec3::new(0, 1, 0)).is_some_and(crate::block::is_solid);
    open && ground
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preset::WorldPreset;
    use std::time::Duration;

    fn drain_until_ready(s: &mut Streamer) -> Vec<ChunkResult> {
        let start = Instant::now();
        let mut got = Vec::new();
        while !s.is_area_ready() {
            assert!(start.elapsed() < Duration::from_secs(60), "stream never became ready");
            s.pump();
            match s.try_recv() {
                Some(r) => got.push(r),
                None => std::thread::sleep(Duration::from_millis(1)),
            }
        }
        got
    }

    fn streamer(vd: i32) -> Streamer {
        let g = Arc::new(Generator::new(&WorldPreset::default()).unwrap());
        Streamer::new(g, StreamConfig { view_distance: vd, vertical_view_distance: 1, worker_threads: 2, ..Default::default() })
    }

    #[test]
    fn fills_view_nearest_first_then_unloads_behind() {
        let mut s = streamer(3);
        s.set_viewer([0.0, 0.0, 0.0]);
        let first = drain_until_ready(&mut s);
        assert_eq!(s.stats().loaded_chunks, s.scheduler.wanted_count());
        assert_eq!(first.len(), s.scheduler.wanted_count());
        // The first chunk done is among the nearest (max_in_flight jobs are started together).
        let d0 = first[0].coord.distance_sq(ChunkCoord::new(0, 0, 0));
        assert!(d0 <= 2, "first result at distance² {d0}");
        // Move 10 chunks east: new chunks load ahead, old ones unload behind.
        s.set_viewer([10.0 * 32.0, 0.0, 0.0]);
        let unloads = s.take_unloads();
        assert!(unloads.iter().all(|c| (c.x - 10).pow(2) + c.z.pow(2) > 25), "unloaded a chunk inside view + margin");
        assert!(!unloads.is_empty());
        drain_until_ready(&mut s);
        assert!(s.is_loaded(ChunkCoord::new(13, 0, 0)));
        assert!(!s.is_loaded(ChunkCoord::new(0, 0, 0)));
    }

    #[test]
    fn edits_remesh_loaded_chunks() {
        let mut s = streamer(1);
        s.set_viewer([0.0, 0.0, 0.0]);
        drain_until_ready(&mut s);
        let h = s.generator().surface_height(5, 5);
        s.set_voxel(IVec3::new(5, h + 3, 5), crate::block::STONE);
        assert!(!s.is_area_ready());
        let updates = drain_until_ready(&mut s);
        assert!(updates.iter().any(|r| r.is_update && r.coord == ChunkCoord::containing(IVec3::new(5, h + 3, 5))));
        assert_eq!(s.voxel(IVec3::new(5, h + 3, 5)), crate::block::STONE);
    }

    #[test]
    fn scatter_stands_on_ground_and_goes_when_the_ground_is_dug() {
        let mut s = streamer(2);
        s.set_viewer([0.0, 0.0, 0.0]);
        let results = drain_until_ready(&mut s);
        let all: Vec<ScatterInstance> = results.iter().flat_map(|r| r.scatter.iter().copied()).collect();
        assert!(!all.is_empty(), "the default preset scatters something near the origin");
        for i in &all {
            let b = i.base_voxel();
            assert!(crate::block::is_solid(s.voxel(b - IVec3::new(0, 1, 0))), "{i:?} floats");
            assert!(!crate::block::is_solid(s.voxel(b)), "{i:?} is buried");
        }
        // Dig the ground under one decoration: the remeshed chunk no longer has it.
        let victim = all[0];
        let ground = victim.base_voxel() - IVec3::new(0, 1, 0);
        s.set_voxel(ground, crate::block::AIR);
        let updates = drain_until_ready(&mut s);
        let c = ChunkCoord::containing(victim.base_voxel());
        let r = updates.iter().find(|r| r.coord == c).expect("the chunk was remeshed");
        assert!(!r.scatter.contains(&victim));
    }

    #[test]
    fn drop_joins_workers_mid_generation() {
        let mut s = streamer(6);
        s.set_viewer([0.0, 0.0, 0.0]);
        s.pump();
        drop(s); // must return: workers stop and are joined
    }
}
