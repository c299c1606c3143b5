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
use crate::generator::Generator;
use crate::mesh::{ChunkMesh, mesh_padded_chunk};
use crate::worldgen::scatter::{ScatterInstance, scatter_chunk};
use crossbeam_channel::{Receiver, Sender, unbounded};
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
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
        if self.worker_threads > 0 {
            self.worker_threads
        } else {
            // The main thread mostly sleeps between frames, so on small machines two workers
            // still finish the view sooner than one.
            std::thread::available_parallelism().map(|n| n.get().saturating_sub(1)).unwrap_or(1).max(2)
        }
    }
}

/// A finished chunk, ready for the main thread to turn into a node.
#[derive(Debug)]
pub struct ChunkResult {
    pub coord: ChunkCoord,
    /// Empty when the chunk has no visible faces (sky, or buried solid).
    pub mesh: ChunkMesh,
    pub gen_us: u32,
    pub mesh_us: u32,
    /// Decorations (trees, bushes, flowers, rocks) standing in this chunk, on ground that is
    /// still there after caves and edits.
    pub scatter: Vec<ScatterInstance>,
    /// True when this replaces an already loaded chunk (an edit was made).
    pub is_update: bool,
    job_id: u64,
}

struct ChunkJob {
    id: u64,
    coord: ChunkCoord,
    cancel: Arc<AtomicBool>,
    edits: Vec<(IVec3, BlockId)>,
    is_update: bool,
}

struct InFlight {
    id: u64,
    cancel: Arc<AtomicBool>,
}

/// Timings of recent jobs, for medians.
#[derive(Default, Debug)]
struct Samples {
    values: VecDeque<u32>,
}

impl Samples {
    const CAP: usize = 512;
    fn push(&mut self, v: u32) {
        if self.values.len() == Self::CAP {
            self.values.pop_front();
        }
        self.values.push_back(v);
    }
    fn median(&self) -> f64 {
        if self.values.is_empty() {
            return 0.0;
        }
        let mut v: Vec<u32> = self.values.iter().copied().collect();
        v.sort_unstable();
        v[v.len() / 2] as f64
    }
}

/// Counters for the HUD and `get_stats()`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StreamStats {
    pub loaded_chunks: usize,
    /// Wanted chunks not yet loaded (queued here, in flight, or waiting to be applied).
    pub pending_chunks: usize,
    pub in_flight: usize,
    pub generated_total: u64,
    pub cancelled_total: u64,
    pub gen_us_median: f64,
    pub mesh_us_median: f64,
    pub workers: usize,
}

/// The main thread's side of streaming.
pub struct Streamer {
    generator: Arc<Generator>,
    config: StreamConfig,
    job_tx: Option<Sender<ChunkJob>>,
    result_rx: Receiver<ChunkResult>,
    workers: Vec<JoinHandle<()>>,
    viewer: Option<ChunkCoord>,
    /// Wanted, not loaded, not in flight; nearest last (so `pop` takes the nearest).
    queue: Vec<ChunkCoord>,
    wanted: HashSet<ChunkCoord>,
    in_flight: HashMap<ChunkCoord, InFlight>,
    loaded: HashSet<ChunkCoord>,
    /// Loaded chunks that need a new mesh after an edit.
    dirty: HashSet<ChunkCoord>,
    unloads: Vec<ChunkCoord>,
    edits: EditMap,
    next_job: u64,
    generated_total: u64,
    cancelled_total: u64,
    gen_samples: Samples,
    mesh_samples: Samples,
}

impl Streamer {
    /// Starts the worker threads.
    pub fn new(generator: Arc<Generator>, config: StreamConfig) -> Self {
        let workers_n = config.resolved_workers();
        let (job_tx, job_rx) = unbounded::<ChunkJob>();
        let (result_tx, result_rx) = unbounded::<ChunkResult>();
        let workers = (0..workers_n)
            .map(|i| {
                let job_rx = job_rx.clone();
                let result_tx = result_tx.clone();
                let generator = generator.clone();
                std::thread::Builder::new()
                    .name(format!("strata-worker-{i}"))
                    .spawn(move || worker_loop(&generator, &job_rx, &result_tx))
                    .expect("spawn strata worker thread")
            })
            .collect();
        Self {
            generator,
            config,
            job_tx: Some(job_tx),
            result_rx,
            workers,
            viewer: None,
            queue: Vec::new(),
            wanted: HashSet::new(),
            in_flight: HashMap::new(),
            loaded: HashSet::new(),
            dirty: HashSet::new(),
            unloads: Vec::new(),
            edits: EditMap::new(),
            next_job: 0,
            generated_total: 0,
            cancelled_total: 0,
            gen_samples: Samples::default(),
            mesh_samples: Samples::default(),
        }
    }

    pub fn generator(&self) -> &Arc<Generator> {
        &self.generator
    }

    pub fn config(&self) -> &StreamConfig {
        &self.config
    }

    /// Changes view distances; takes effect at the next `set_viewer`.
    pub fn set_view_distance(&mut self, horizontal: i32, vertical: i32) {
        self.config.view_distance = horizontal.max(0);
        self.config.vertical_view_distance = vertical.max(0);
        if let Some(v) = self.viewer.take() {
            self.retarget(v);
        }
    }

    /// Moves the viewer (world position in voxels); recomputes the wanted set when its chunk changes.
    pub fn set_viewer(&mut self, pos: [f64; 3]) {
        let c = ChunkCoord::containing(IVec3::new(pos[0].floor() as i32, pos[1].floor() as i32, pos[2].floor() as i32));
        if self.viewer != Some(c) {
            self.retarget(c);
        }
    }

    pub fn viewer_chunk(&self) -> Option<ChunkCoord> {
        self.viewer
    }

    fn in_view(&self, v: ChunkCoord, c: ChunkCoord, margin: i32) -> bool {
        let r = self.config.view_distance + margin;
        let dx = (c.x - v.x) as i64;
        let dz = (c.z - v.z) as i64;
        dx * dx + dz * dz <= (r as i64) * (r as i64) && (c.y - v.y).abs() <= self.config.vertical_view_distance + margin
    }

    fn retarget(&mut self, v: ChunkCoord) {
        self.viewer = Some(v);
        let r = self.config.view_distance;
        let vr = self.config.vertical_view_distance;
        self.wanted.clear();
        for dy in -vr..=vr {
            for dz in -r..=r {
                for dx in -r..=r {
                    let c = ChunkCoord::new(v.x + dx, v.y + dy, v.z + dz);
                    if self.in_view(v, c, 0) {
                        self.wanted.insert(c);
                    }
                }
            }
        }
        // Cancel jobs whose chunk is no longer wanted.
        let stale: Vec<ChunkCoord> = self.in_flight.keys().filter(|c| !self.wanted.contains(c)).copied().collect();
        for c in stale {
            if let Some(j) = self.in_flight.remove(&c) {
                j.cancel.store(true, Ordering::Relaxed);
                self.cancelled_total += 1;
            }
        }
        // Unload loaded chunks beyond the margin.
        let far: Vec<ChunkCoord> = self.loaded.iter().filter(|&&c| !self.in_view(v, c, self.config.unload_margin)).copied().collect();
        for c in far {
            self.loaded.remove(&c);
            self.dirty.remove(&c);
            self.unloads.push(c);
        }
        let mut queue: Vec<ChunkCoord> =
            self.wanted.iter().filter(|c| !self.loaded.contains(c) && !self.in_flight.contains_key(c)).copied().collect();
        // Nearest last; vertical distance counts double so the ground around the viewer comes first.
        queue.sort_by_key(|c| {
            let (dx, dy, dz) = ((c.x - v.x) as i64, (c.y - v.y) as i64, (c.z - v.z) as i64);
            std::cmp::Reverse((dx * dx + dz * dz + 4 * dy * dy, *c))
        });
        self.queue = queue;
    }

    /// Sends jobs to the workers until `max_in_flight` are outstanding. Edited chunks go first.
    pub fn pump(&mut self) {
        let cap = if self.config.max_in_flight > 0 { self.config.max_in_flight } else { 2 * self.workers.len() + 2 };
        let dirty: Vec<ChunkCoord> = self.dirty.drain().collect();
        for c in dirty {
            if self.loaded.contains(&c) {
                self.submit(c, true);
            }
        }
        while self.in_flight.len() < cap {
            let Some(c) = self.queue.pop() else { break };
            if self.loaded.contains(&c) || self.in_flight.contains_key(&c) || !self.wanted.contains(&c) {
                continue;
            }
            self.submit(c, false);
        }
    }

    fn submit(&mut self, c: ChunkCoord, is_update: bool) {
        let Some(tx) = &self.job_tx else { return };
        if let Some(old) = self.in_flight.remove(&c) {
            old.cancel.store(true, Ordering::Relaxed);
        }
        self.next_job += 1;
        let cancel = Arc::new(AtomicBool::new(false));
        let edits = self.edits.edits_in_box(c.min_voxel() - IVec3::ONE, IVec3::splat(CHUNK_SIZE + 2));
        let job = ChunkJob { id: self.next_job, coord: c, cancel: cancel.clone(), edits, is_update };
        if tx.send(job).is_ok() {
            self.in_flight.insert(c, InFlight { id: self.next_job, cancel });
        }
    }

    /// The next finished chunk, if one is ready; never blocks. Stale results are skipped.
    pub fn try_recv(&mut self) -> Option<ChunkResult> {
        while let Ok(r) = self.result_rx.try_recv() {
            match self.in_flight.get(&r.coord) {
                Some(j) if j.id == r.job_id => {
                    self.in_flight.remove(&r.coord);
                }
                _ => continue,
            }
            self.generated_total += 1;
            self.gen_samples.push(r.gen_us);
            self.mesh_samples.push(r.mesh_us);
            if !self.wanted.contains(&r.coord) && !self.loaded.contains(&r.coord) {
                continue;
            }
            self.loaded.insert(r.coord);
            return Some(r);
        }
        None
    }

    /// Chunks to remove from the scene since the last call.
    pub fn take_unloads(&mut self) -> Vec<ChunkCoord> {
        std::mem::take(&mut self.unloads)
    }

    /// True when every wanted chunk is loaded and no edit is waiting for a new mesh.
    pub fn is_area_ready(&self) -> bool {
        self.viewer.is_some() && self.dirty.is_empty() && self.in_flight.is_empty() && self.wanted.iter().all(|c| self.loaded.contains(c))
    }

    /// Loaded chunks / wanted chunks, in `[0, 1]`.
    pub fn progress(&self) -> f64 {
        if self.wanted.is_empty() {
            return if self.viewer.is_some() { 1.0 } else { 0.0 };
        }
        self.wanted.iter().filter(|c| self.loaded.contains(c)).count() as f64 / self.wanted.len() as f64
    }

    pub fn is_loaded(&self, c: ChunkCoord) -> bool {
        self.loaded.contains(&c)
    }

    pub fn loaded_chunks(&self) -> impl Iterator<Item = &ChunkCoord> {
        self.loaded.iter()
    }

    pub fn stats(&self) -> StreamStats {
        StreamStats {
            loaded_chunks: self.loaded.len(),
            pending_chunks: self.wanted.iter().filter(|c| !self.loaded.contains(c)).count(),
            in_flight: self.in_flight.len(),
            generated_total: self.generated_total,
            cancelled_total: self.cancelled_total,
            gen_us_median: self.gen_samples.median(),
            mesh_us_median: self.mesh_samples.median(),
            workers: self.workers.len(),
        }
    }

    pub fn edits(&self) -> &EditMap {
        &self.edits
    }

    /// Replaces all edits (loading a save); loaded chunks are remeshed.
    pub fn replace_edits(&mut self, edits: EditMap) {
        self.edits = edits;
        self.dirty.extend(self.loaded.iter().copied());
    }

    /// Records an edit; every loaded chunk that shows voxel `p` gets a new mesh.
    pub fn set_voxel(&mut self, p: IVec3, id: BlockId) {
        self.edits.set(p, id);
        for c in EditMap::chunks_touching(p) {
            if self.loaded.contains(&c) {
                self.dirty.insert(c);
            } else if self.in_flight.contains_key(&c) {
                // Its job predates the edit: resubmit.
                self.submit(c, false);
            }
        }
    }

    /// The block at `p`: the edit if there is one, else the generated block.
    pub fn voxel(&self, p: IVec3) -> BlockId {
        self.edits.get(p).unwrap_or_else(|| self.generator.voxel_at(p))
    }
}

impl Drop for Streamer {
    fn drop(&mut self) {
        for j in self.in_flight.values() {
            j.cancel.store(true, Ordering::Relaxed);
        }
        self.job_tx = None; // closes the channel: workers finish their job and exit
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

fn worker_loop(generator: &Generator, jobs: &Receiver<ChunkJob>, results: &Sender<ChunkResult>) {
    let mut padded = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
    while let Ok(job) = jobs.recv() {
        if job.cancel.load(Ordering::Relaxed) {
            continue;
        }
        let mut mesh = ChunkMesh::default();
        let mut scatter = Vec::new();
        let t0 = Instant::now();
        let sky = job.edits.is_empty() && generator.chunk_is_sky(job.coord);
        let (gen_us, mesh_us);
        if sky {
            gen_us = t0.elapsed().as_micros() as u32;
            mesh_us = 0;
        } else {
            generator.generate_padded_chunk(job.coord, &mut padded);
            apply_edits(&mut padded, &job.edits);
            scatter = scatter_chunk(generator, job.coord);
            scatter.retain(|s| standing_on_ground(&padded, s));
            gen_us = t0.elapsed().as_micros() as u32;
            if job.cancel.load(Ordering::Relaxed) {
                continue;
            }
            let t1 = Instant::now();
            mesh_padded_chunk(&padded, &mut mesh);
            mesh_us = t1.elapsed().as_micros() as u32;
        }
        let r = ChunkResult { coord: job.coord, mesh, scatter, gen_us, mesh_us, is_update: job.is_update, job_id: job.id };
        if results.send(r).is_err() {
            break;
        }
    }
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
        assert_eq!(s.stats().loaded_chunks, s.wanted.len());
        assert_eq!(first.len(), s.wanted.len());
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
