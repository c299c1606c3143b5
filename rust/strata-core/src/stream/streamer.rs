//! Streaming: which chunks the viewer needs, and worker threads that generate and mesh them.
//!
//! The main thread owns a [`Streamer`]. Each frame it calls [`Streamer::set_viewer`] (and
//! [`Streamer::set_view_direction`]), then [`Streamer::pump`] (queues the most urgent missing
//! chunks, at most `max_in_flight` at a time, so priorities stay fresh when the viewer moves), then
//! pulls finished [`StreamResult`]s with [`Streamer::try_recv`] for as long as its frame budget
//! allows — it never blocks (law: Main thread never waits). Jobs for chunks that left the view are cancelled; results
//! that come back stale are dropped. Dropping the streamer closes the job channel, cancels every
//! job and joins every worker.
//!
//! With a far view (`lod_levels > 0`) the wanted set follows a [`LodLayout`]: near chunks in the
//! layout's level-0 columns (±`vertical_view_distance` chunks around the viewer) and one far
//! column per coarser leaf. Near chunks come first, each kind ordered by distance weighted by the
//! view direction (what is ahead before what is behind). A chunk or column that leaves the layout
//! retires: it stays on screen until the leaves covering its ground are loaded, so swapping
//! levels never opens a hole. With `adaptive_far`, [`AdaptiveFar`] drops a far level while the
//! near field cannot keep up and restores it when the workers idle.
//!
//! Several viewers ([`Streamer::set_extra_viewer`]: split screen, a server's players, an area
//! preloaded before a teleport) share one wanted set: the union of their areas, one far-view
//! quadtree refined around each of them ([`LodLayout::compute_for`]), each chunk queued by its
//! distance to the nearest viewer, collision near each, and the memory budget shared between
//! them (each viewer's distance shrinks so that all of them fit).
//!
//! Chunks within a navigation distance of a viewer also get a navigation mesh, baked by the same job
//! ([`crate::stream::navigation`], [`StreamConfig::navigation`]).
//!
//! This file is the main thread's side; what a worker does with a job (generate, light, mesh,
//! pack, bake) is [`crate::stream::chunk_job`], whose job and result types are re-exported here.
//!
//! May use: `base`, `preset`, `noise`, `automata`, `gen3d`, `gen2d`, `light`, `mesh`, `nav` and the other `stream` modules.

use crate::base::block::BlockId;
use crate::base::coords::{CHUNK_SIZE, ChunkCoord, IVec3};
use crate::base::edit_history::VoxelChange;
use crate::base::edits::EditMap;
use crate::gen3d::pipeline::Generator;
use crate::light::{LightEdit, LightProps};
use crate::mesh::bytes::MeshBytes;
use crate::mesh::{ChunkMesh, MeshMaterials};
use crate::stream::buffer_pool::BufferPool;
pub use crate::stream::chunk_job::{ChunkResult, FarResult, JobData, StreamKey, StreamResult};
use crate::stream::chunk_job::{Edits, MeshBuffers, Scratch, build};
use crate::stream::far_policy::{LayoutViewer, LodColumn, LodLayout};
use crate::stream::lighting::{ChunkLighter, column_exposure, edits_for_light};
use crate::stream::navigation::NavConfig;
use crate::stream::scheduler::{MAX_WORKER_THREADS, Scheduler, auto_workers};
pub use crate::stream::scheduler::{SpawnError, StreamStats};
use crate::stream::voxel_cache::{DEFAULT_CACHE_BYTES, VoxelCache};
use crate::stream::water_runner::{Generated3D, PendingFlow, WaterRunner, WaterSlot};
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

/// The largest horizontal view distance, in chunks: 32 is about 3,200 chunk columns (radius
/// 1,024 voxels); farther ground belongs to the far view, which costs a fraction per area.
pub const MAX_VIEW_DISTANCE: i32 = 32;
/// The largest vertical view distance, in chunks above and below the viewer (512 voxels each way).
pub const MAX_VERTICAL_VIEW_DISTANCE: i32 = 16;
/// The largest unload margin, in chunks.
pub const MAX_UNLOAD_MARGIN: i32 = 8;
/// The most jobs out at once, whatever `max_in_flight` asks.
pub const MAX_IN_FLIGHT: usize = 4096;
/// Memory budgets accepted, in MiB.
pub const MEMORY_BUDGET_MB_RANGE: std::ops::RangeInclusive<u32> = 64..=65_536;
/// The estimated memory of one loaded near chunk or far column, in bytes: 128 KiB, a documented
/// constant, not a measurement of each chunk. It stands for what a loaded chunk holds in a Godot
/// host (its mesh arrays on the CPU and the GPU, its nodes, its collision shape when near, the
/// core's bookkeeping): the end-to-end run at view distance 8 (about 1,400 near chunks and a far
/// view of 3 levels) held about 340 MB resident, engine included. Sky and buried chunks hold far
/// less, dense surface chunks with collision more; edits, textures and the game's own scene are
/// not counted.
pub const ESTIMATED_BYTES_PER_CHUNK: u64 = 128 * 1024;

/// How far and how hard to stream. [`Streamer`] clamps every field into its documented range
/// ([`StreamConfig::clamped`]), so no config makes it allocate or spawn without bound.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamConfig {
    /// Horizontal radius of the near field (full-detail chunks), in chunks: 1..=[`MAX_VIEW_DISTANCE`].
    /// The streamer may use less to stay within `memory_budget_mb`
    /// ([`Streamer::effective_view_distance`]).
    pub view_distance: i32,
    /// Chunks loaded above and below the viewer's chunk: 0..=[`MAX_VERTICAL_VIEW_DISTANCE`].
    pub vertical_view_distance: i32,
    /// Loaded chunks are unloaded only beyond `view_distance + unload_margin` (hysteresis):
    /// 0..=[`MAX_UNLOAD_MARGIN`].
    pub unload_margin: i32,
    /// Worker threads; 0 = one less than the machine's cores, at least two; at most
    /// [`crate::stream::scheduler::max_workers`] (twice the cores, at most [`MAX_WORKER_THREADS`]).
    pub worker_threads: usize,
    /// Jobs out at once (sent, running, or finished and not yet taken); 0 = follow the frame
    /// rate: enough for 1.5 frames of the workers' time, at least
    /// [`crate::stream::scheduler::default_max_in_flight`] (twelve per worker, at least sixteen)
    /// ([`crate::stream::scheduler::adaptive_max_in_flight`]); at most [`MAX_IN_FLIGHT`].
    pub max_in_flight: usize,
    /// Memory the loaded near chunks and far columns may take, in MiB, as estimated with
    /// [`ESTIMATED_BYTES_PER_CHUNK`] each (within [`MEMORY_BUDGET_MB_RANGE`]). When the view
    /// asked for would exceed it, the streamer shrinks the horizontal view distance (the nearest
    /// chunks stay) until the estimate of the whole wanted set fits.
    pub memory_budget_mb: u32,
    /// Near chunks within this many chunks of the viewer (per axis) come with collision faces,
    /// built on the worker; a margin of one more chunk is built ahead. Negative: none.
    pub collision_distance: i32,
    /// Workers write each near chunk's mesh straight into Godot's stored form
    /// ([`crate::mesh::bytes`], [`ChunkResult::packed`]; its vertex arrays, `mesh`, stay empty)
    /// and pack each far column's, so the main thread only copies bytes. Off by default (the
    /// data is Godot-specific).
    pub pack_surfaces: bool,
    /// Far view levels beyond the near field (0 = none). Each level doubles the cell size and the
    /// distance: the far view reaches `view_distance · 32 · 2^lod_levels` voxels.
    pub lod_levels: u8,
    /// Lower the far levels while the near field cannot keep up, restore them when idle.
    pub adaptive_far: bool,
    /// Ambient occlusion on solid faces (see [`crate::mesh::Mesher::set_ambient_occlusion`]);
    /// off gives far fewer quads and flat lighting.
    pub ambient_occlusion: bool,
    /// With [`StreamConfig::pack_surfaces`] and [`StreamConfig::ambient_occlusion`]: near
    /// chunks' quads merge by block and light alone and their occluder bits come with the mesh
    /// ([`MeshBytes::occluders`](crate::mesh::bytes::MeshBytes::occluders)), for the shader to
    /// compute AO per fragment ([`crate::mesh::occluders`]): two to three times fewer quads.
    /// Far columns the same, their bits over their coarse cells
    /// ([`FarMesh::occluders`](crate::stream::far_mesh::FarMesh::occluders)). The shader adds
    /// the face shade too ([`crate::mesh::Mesher::set_shade_in_shader`]), so a textured
    /// surface's streams carry no colours. Off by default (the mesh then carries AO and shade in
    /// its vertex colours).
    pub shader_occlusion: bool,
    /// What each block id looks like to the mesher (surfaces, culling, colours, texture layers);
    /// by default [`MeshMaterials::shared_default`]. Change it while streaming with
    /// [`Streamer::set_mesh_materials`].
    pub mesh_materials: Arc<MeshMaterials>,
    /// Sky and block light baked into near chunks' meshes ([`crate::stream::lighting`]): what
    /// each block does to light. `None` (the default): every face under open sky. Far columns
    /// are always under open sky. Change it while streaming with [`Streamer::set_light`].
    pub light: Option<Arc<LightProps>>,
    /// What each block does to light, for spawn rules that filter by light
    /// ([`crate::gen3d::spawns`]): always the world's blocks, whether or not `light` bakes light
    /// into meshes, so that spawns do not depend on a render setting. `None`: such rules place
    /// nothing.
    pub spawn_light: Option<Arc<LightProps>>,
    /// Navigation meshes for the near chunks within [`NavConfig::distance`] of a viewer, baked by
    /// the chunk's job after meshing. `None` (the default): none. Change it while streaming
    /// with [`Streamer::set_navigation`].
    pub navigation: Option<Arc<NavConfig>>,
}

impl Default for StreamConfig {
    fn default() -> Self {
        Self {
            view_distance: 8,
            vertical_view_distance: 4,
            unload_margin: 2,
            worker_threads: 0,
            max_in_flight: 0,
            memory_budget_mb: 1024,
            collision_distance: 1,
            pack_surfaces: false,
            lod_levels: 0,
            adaptive_far: false,
            ambient_occlusion: true,
            shader_occlusion: false,
            mesh_materials: MeshMaterials::shared_default(),
            light: None,
            spawn_light: None,
            navigation: None,
        }
    }
}

impl StreamConfig {
    /// The worker count this config resolves to on this machine.
    pub fn resolved_workers(&self) -> usize {
        auto_workers(self.worker_threads)
    }

    /// This config with every field in its documented range (out-of-range values clamped to
    /// the nearest bound). The streamer applies it to every config it is given.
    pub fn clamped(&self) -> Self {
        let budget = self.memory_budget_mb.clamp(*MEMORY_BUDGET_MB_RANGE.start(), *MEMORY_BUDGET_MB_RANGE.end());
        Self {
            view_distance: self.view_distance.clamp(1, MAX_VIEW_DISTANCE),
            vertical_view_distance: self.vertical_view_distance.clamp(0, MAX_VERTICAL_VIEW_DISTANCE),
            unload_margin: self.unload_margin.clamp(0, MAX_UNLOAD_MARGIN),
            worker_threads: self.worker_threads.min(MAX_WORKER_THREADS),
            max_in_flight: self.max_in_flight.min(MAX_IN_FLIGHT),
            memory_budget_mb: budget,
            collision_distance: self.collision_distance.clamp(-1, MAX_VIEW_DISTANCE),
            lod_levels: self.lod_levels.min(crate::stream::far_policy::MAX_LOD_LEVELS),
            ..self.clone()
        }
    }
}

/// Estimated memory of what stays loaded for a horizontal view distance `r`, vertical `vr`,
/// unload margin `margin` and `levels` far levels: the near columns (with the margin around
/// them when there is no far view) × `2·(vr + margin) + 1` chunks, plus the far columns, each
/// [`ESTIMATED_BYTES_PER_CHUNK`].
pub fn estimated_view_bytes(r: i32, vr: i32, margin: i32, levels: u8) -> u64 {
    let kept_r = if levels == 0 { r + margin } else { r };
    let layout = LodLayout::compute(16.0, 16.0, kept_r, levels, None);
    let near = layout.near_columns.len() as u64 * (2 * (vr + margin).max(0) as u64 + 1);
    (near + layout.far_columns.len() as u64) * ESTIMATED_BYTES_PER_CHUNK
}

/// The largest horizontal view distance up to `r` whose loaded set fits `budget_mb` MiB by
/// [`estimated_view_bytes`]; at least 1 (the viewer's own chunks are always wanted).
pub fn budgeted_view_distance(r: i32, vr: i32, margin: i32, levels: u8, budget_mb: u32) -> i32 {
    let budget = budget_mb as u64 * 1024 * 1024;
    let fits = |d: i32| estimated_view_bytes(d, vr, margin, levels) <= budget;
    let (mut lo, mut hi) = (1, r.max(1));
    if fits(hi) {
        return hi;
    }
    // The estimate grows with the distance: binary search for the last distance that fits.
    while lo < hi {
        let mid = (lo + hi + 1) / 2;
        if fits(mid) { lo = mid } else { hi = mid - 1 }
    }
    lo
}

/// Drops a far level while the machine is under pressure and restores it when the workers idle.
///
/// "Pressure", for [`AdaptiveFar::LAG_S`] seconds on end: after the first complete near field,
/// some wanted near chunk is missing (the viewer outruns the workers), or the host reports slow
/// frames ([`Streamer::set_frame_pressure`]). The first load does not count: the near field is
/// incomplete then by definition. "Idle": everything wanted, near and far, has been loaded for
/// [`AdaptiveFar::IDLE_S`] seconds on end. One level changes at a time; never below one level.
#[derive(Clone, Debug, PartialEq)]
pub struct AdaptiveFar {
    configured: u8,
    current: u8,
    lagging_since: Option<f64>,
    idle_since: Option<f64>,
}

impl AdaptiveFar {
    pub const LAG_S: f64 = 1.5;
    pub const IDLE_S: f64 = 5.0;

    pub fn new(levels: u8) -> Self {
        Self { configured: levels, current: levels, lagging_since: None, idle_since: None }
    }

    pub fn levels(&self) -> u8 {
        self.current
    }

    /// Feeds the state at time `now_s` (seconds, any origin); returns the new level count when
    /// it changes.
    pub fn update(&mut self, now_s: f64, pressure: bool, all_loaded: bool) -> Option<u8> {
        self.lagging_since = if pressure { Some(self.lagging_since.unwrap_or(now_s)) } else { None };
        self.idle_since = if all_loaded { Some(self.idle_since.unwrap_or(now_s)) } else { None };
        if self.lagging_since.is_some_and(|t| now_s - t >= Self::LAG_S) && self.current > 1 {
            self.current -= 1;
            self.lagging_since = Some(now_s);
            return Some(self.current);
        }
        if self.idle_since.is_some_and(|t| now_s - t >= Self::IDLE_S) && self.current < self.configured {
            self.current += 1;
            self.idle_since = None;
            return Some(self.current);
        }
        None
    }
}

/// The chunk holding world position `pos` (voxels); non-finite or huge coordinates are clamped.
fn chunk_of(pos: [f64; 3]) -> ChunkCoord {
    let clamp =
        |v: f64| if v.is_finite() { v.floor().clamp(i32::MIN as f64 / 2.0, i32::MAX as f64 / 2.0) as i32 } else { 0 };
    ChunkCoord::containing(IVec3::new(clamp(pos[0]), clamp(pos[1]), clamp(pos[2])))
}

/// A viewer as the wanted set was made from it: its chunk and the horizontal view distance in
/// use for it (its own, or less to fit the memory budget).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewerSpot {
    pub chunk: ChunkCoord,
    pub view_distance: i32,
}

impl ViewerSpot {
    fn centre(&self) -> (f64, f64) {
        let centre = |c: i32| (c * CHUNK_SIZE + CHUNK_SIZE / 2) as f64;
        (centre(self.chunk.x), centre(self.chunk.z))
    }

    /// Horizontal squared distance in chunks to column `(cx, cz)`.
    fn column_distance_sq(&self, cx: i32, cz: i32) -> i64 {
        let (dx, dz) = ((cx - self.chunk.x) as i64, (cz - self.chunk.z) as i64);
        dx * dx + dz * dz
    }
}

/// The heights (chunk y) of the viewers whose near field holds column `(cx, cz)`: those within
/// their view distance plus the far view's split slack, else the nearest one. Near chunks of the
/// column are wanted ±`vertical_view_distance` around each.
fn column_viewer_ys(spots: &[ViewerSpot], cx: i32, cz: i32) -> Vec<i32> {
    let mut ys: Vec<i32> = spots
        .iter()
        .filter(|s| s.column_distance_sq(cx, cz) <= ((s.view_distance + 3) as i64).pow(2))
        .map(|s| s.chunk.y)
        .collect();
    if ys.is_empty()
        && let Some(s) = spots.iter().min_by_key(|s| s.column_distance_sq(cx, cz))
    {
        ys.push(s.chunk.y);
    }
    ys.sort_unstable();
    ys.dedup();
    ys
}

/// The main thread's side of streaming.
pub struct Streamer {
    generator: Arc<Generator>,
    config: StreamConfig,
    /// The horizontal view distance in use: `config.view_distance`, or less to fit the memory
    /// budget.
    effective_view_distance: i32,
    scheduler: Scheduler<StreamKey, JobData, StreamResult>,
    edits: EditMap,
    layout: LodLayout,
    /// Horizontal view direction, as one of [`DIRECTION_SECTORS`] sectors (None: no preference).
    direction: Option<(i32, [f64; 2])>,
    adaptive: Option<AdaptiveFar>,
    started: Instant,
    /// Set once the near field has been complete (the first load is over).
    near_was_ready: bool,
    frame_pressure: bool,
    /// Loaded chunks whose next job must build collision ([`Streamer::request_collision`]).
    collision_requested: HashSet<ChunkCoord>,
    /// Loaded chunks whose next job must bake navigation ([`Streamer::request_navigation`]).
    navigation_requested: HashSet<ChunkCoord>,
    /// Mesh buffers handed back by the caller ([`Streamer::recycle`]) for the workers to reuse.
    recycled: Arc<BufferPool<MeshBuffers>>,
    /// Generated chunks the workers' light boxes read ([`VoxelCache`]).
    voxel_cache: Arc<VoxelCache>,
    /// The first viewer's chunk ([`Streamer::set_viewer`]).
    primary: Option<ChunkCoord>,
    /// Viewers besides the first, by the caller's id: chunk and view distance asked for.
    extra_viewers: BTreeMap<u64, ViewerSpot>,
    /// The viewers the wanted set was last made from, the first viewer first.
    spots: Vec<ViewerSpot>,
    /// The water flow thread, while flow is on ([`Streamer::set_water_flow`]), and a loaded
    /// save's flows held while it is off.
    water: WaterSlot,
}

/// What the flow thread hears of a written batch.
#[derive(Clone, Copy, PartialEq, Eq)]
enum WaterWrite {
    /// An edit: written, then its flow runs.
    Flow,
    /// An undo or redo: written in order, no flow.
    Replay,
    /// A flow's own result, which the flow thread already holds.
    Skip,
}

/// A finished flow applied on the main thread: the ticket of the batch that caused it and each
/// voxel's edit entry before and after.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppliedFlow {
    pub ticket: u64,
    pub changes: Vec<VoxelChange>,
}

/// Sectors a view direction is rounded to; priorities are recomputed when the sector changes.
const DIRECTION_SECTORS: i32 = 16;

impl Streamer {
    /// Starts the worker threads, each with its own scratch buffers. Fails only if the OS
    /// refuses to start a thread (with fewer threads than asked it runs with those it has).
    pub fn new(generator: Arc<Generator>, config: StreamConfig) -> Result<Self, SpawnError> {
        let config = config.clamped();
        let worker_generator = generator.clone();
        // Up to an eighth of the memory budget, at most the default (12 MiB, about 768 packed
        // chunks): most of the chunks around the view at view distance 8.
        let cache_bytes = (config.memory_budget_mb as usize * (1 << 20) / 8).min(DEFAULT_CACHE_BYTES);
        let voxel_cache = Arc::new(VoxelCache::new(cache_bytes));
        let worker_cache = voxel_cache.clone();
        let pack = config.pack_surfaces;
        // A few sets per worker: enough that a worker usually finds one, bounded memory.
        let recycled = Arc::new(BufferPool::new(2 * config.resolved_workers() + 2));
        let worker_recycled = recycled.clone();
        let scheduler = Scheduler::new(
            config.resolved_workers(),
            config.max_in_flight,
            "strata-worker",
            Scratch::new,
            move |scratch, job| build(&worker_generator, &worker_cache, job, scratch, pack, &worker_recycled),
        )?;
        let adaptive = (config.adaptive_far && config.lod_levels > 0).then(|| AdaptiveFar::new(config.lod_levels));
        let effective_view_distance = budgeted_view_distance(
            config.view_distance,
            config.vertical_view_distance,
            config.unload_margin,
            config.lod_levels,
            config.memory_budget_mb,
        );
        Ok(Self {
            generator,
            config,
            effective_view_distance,
            scheduler,
            edits: EditMap::new(),
            layout: LodLayout::default(),
            direction: None,
            adaptive,
            started: Instant::now(),
            near_was_ready: false,
            frame_pressure: false,
            collision_requested: HashSet::new(),
            navigation_requested: HashSet::new(),
            recycled,
            voxel_cache,
            primary: None,
            extra_viewers: BTreeMap::new(),
            spots: Vec::new(),
            water: WaterSlot::default(),
        })
    }

    pub fn generator(&self) -> &Arc<Generator> {
        &self.generator
    }

    pub fn config(&self) -> &StreamConfig {
        &self.config
    }

    /// Far levels in use now (lower than configured while the adaptive mode holds them back).
    pub fn lod_levels(&self) -> u8 {
        self.adaptive.as_ref().map_or(self.config.lod_levels, AdaptiveFar::levels)
    }

    /// The current layout of near and far leaves.
    pub fn layout(&self) -> &LodLayout {
        &self.layout
    }

    /// Changes view distances (clamped to their ranges, see [`StreamConfig`]); takes effect at
    /// once.
    pub fn set_view_distance(&mut self, horizontal: i32, vertical: i32) {
        self.config =
            StreamConfig { view_distance: horizontal, vertical_view_distance: vertical, ..self.config.clone() }
                .clamped();
        self.apply_budget();
        self.refresh();
    }

    /// Changes the far levels (and the adaptive mode); takes effect at once.
    pub fn set_far_view(&mut self, levels: u8, adaptive: bool) {
        self.config.lod_levels = levels.min(crate::stream::far_policy::MAX_LOD_LEVELS);
        self.config.adaptive_far = adaptive;
        self.adaptive = (adaptive && self.config.lod_levels > 0).then(|| AdaptiveFar::new(self.config.lod_levels));
        self.apply_budget();
        self.refresh();
    }

    /// Changes the memory budget (MiB, clamped to [`MEMORY_BUDGET_MB_RANGE`]); a smaller one
    /// shrinks the view at once (the farthest chunks unload), a larger one lets it grow back to
    /// `view_distance`.
    pub fn set_memory_budget(&mut self, mb: u32) {
        self.config = StreamConfig { memory_budget_mb: mb, ..self.config.clone() }.clamped();
        if self.apply_budget() {
            self.refresh();
        }
    }

    /// Recomputes the effective view distance from the config; true when it changed.
    fn apply_budget(&mut self) -> bool {
        let d = self.budgeted(self.config.view_distance);
        let changed = d != self.effective_view_distance;
        self.effective_view_distance = d;
        changed
    }

    /// The largest distance up to `r` whose view fits this viewer's share of the memory budget
    /// (the budget split evenly between the viewers).
    fn budgeted(&self, r: i32) -> i32 {
        let c = &self.config;
        let viewers = (self.primary.is_some() as u32 + self.extra_viewers.len() as u32).max(1);
        budgeted_view_distance(r, c.vertical_view_distance, c.unload_margin, c.lod_levels, c.memory_budget_mb / viewers)
    }

    /// The horizontal view distance in use for the first viewer: `view_distance`, or less while
    /// the memory budget holds it back.
    pub fn effective_view_distance(&self) -> i32 {
        self.effective_view_distance
    }

    /// Estimated memory of the loaded near chunks and far columns (those retiring and those in
    /// the unload margin included), in bytes ([`ESTIMATED_BYTES_PER_CHUNK`] each).
    pub fn memory_estimate_bytes(&self) -> u64 {
        self.scheduler.loaded_count() as u64 * ESTIMATED_BYTES_PER_CHUNK
    }

    /// Turns ambient occlusion on or off; every loaded or pending chunk and far column is meshed
    /// again (the old meshes stay until the new ones arrive).
    pub fn set_ambient_occlusion(&mut self, on: bool) {
        if self.config.ambient_occlusion == on {
            return;
        }
        self.config.ambient_occlusion = on;
        self.remesh_all(|_| true);
    }

    /// Meshes with `materials` from now on (e.g. a game's block library and its texture layers)
    /// and remeshes everything loaded or pending, as [`Streamer::set_ambient_occlusion`] does.
    /// Nothing happens when they are the materials already in use.
    pub fn set_mesh_materials(&mut self, materials: Arc<MeshMaterials>) {
        if Arc::ptr_eq(&self.config.mesh_materials, &materials) || *self.config.mesh_materials == *materials {
            return;
        }
        self.config.mesh_materials = materials;
        self.remesh_all(|_| true);
    }

    /// The materials meshes are made with.
    pub fn mesh_materials(&self) -> &Arc<MeshMaterials> {
        &self.config.mesh_materials
    }

    /// Bakes light with `light` from now on (`None`: open sky everywhere) and remeshes every
    /// loaded or pending near chunk, as [`Streamer::set_mesh_materials`] does. Nothing happens
    /// when it is the setting in use.
    pub fn set_light(&mut self, light: Option<Arc<LightProps>>) {
        let same = match (&self.config.light, &light) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b) || **a == **b,
            _ => false,
        };
        if same {
            return;
        }
        self.config.light = light;
        self.remesh_all(|k| matches!(k, StreamKey::Near(_)));
    }

    /// The light properties meshes are lit with, if any.
    pub fn light(&self) -> Option<&Arc<LightProps>> {
        self.config.light.as_ref()
    }

    /// Tells the adaptive far view whether frames are too slow now (the host's measure, e.g. a
    /// smoothed frame time over its target).
    pub fn set_frame_pressure(&mut self, slow: bool) {
        self.frame_pressure = slow;
    }

    fn refresh(&mut self) {
        if self.primary.is_some() || !self.extra_viewers.is_empty() {
            self.retarget();
        }
    }

    /// Moves the viewer (world position in voxels); recomputes the wanted set when its chunk changes.
    pub fn set_viewer(&mut self, pos: [f64; 3]) {
        let c = chunk_of(pos);
        if self.primary != Some(c) {
            self.primary = Some(c);
            self.retarget();
        }
    }

    /// Whether the world streams around the chunk of `pos` (world voxels): false until
    /// [`Streamer::set_viewer`] has been told of a viewer that moved to another chunk.
    pub fn is_streaming_around(&self, pos: [f64; 3]) -> bool {
        self.primary == Some(chunk_of(pos))
    }

    /// Adds or moves viewer `id` (any number the caller picks; the first viewer is
    /// [`Streamer::set_viewer`]'s) at world position `pos` in voxels with its own horizontal view
    /// distance (clamped to 1..=[`MAX_VIEW_DISTANCE`]). The wanted set is recomputed when its
    /// chunk or distance changes.
    pub fn set_extra_viewer(&mut self, id: u64, pos: [f64; 3], view_distance: i32) {
        let spot = ViewerSpot { chunk: chunk_of(pos), view_distance: view_distance.clamp(1, MAX_VIEW_DISTANCE) };
        if self.extra_viewers.insert(id, spot) != Some(spot) {
            self.retarget();
        }
    }

    /// Removes viewer `id`; what only it needed unloads. False when there was none.
    pub fn remove_extra_viewer(&mut self, id: u64) -> bool {
        let removed = self.extra_viewers.remove(&id).is_some();
        if removed {
            self.retarget();
        }
        removed
    }

    /// Viewers besides the first.
    pub fn extra_viewer_count(&self) -> usize {
        self.extra_viewers.len()
    }

    /// Every viewer the wanted set is made from, the first viewer first, with the distances in use.
    pub fn viewer_spots(&self) -> &[ViewerSpot] {
        &self.spots
    }

    /// Loaded / wanted near chunks of viewer `id`'s own area (its disc of columns and
    /// ±`vertical_view_distance` around it), in `[0, 1]`: a preloaded destination's progress.
    /// None when there is no such viewer.
    pub fn extra_viewer_progress(&self, id: u64) -> Option<f64> {
        let v = *self.extra_viewers.get(&id)?;
        // The distance its spot in the wanted set has (see `retarget`).
        let r = self.budgeted(v.view_distance);
        let vr = self.config.vertical_view_distance;
        let (mut loaded, mut wanted) = (0usize, 0usize);
        for dz in -r..=r {
            for dx in -r..=r {
                if dx * dx + dz * dz > r * r {
                    continue;
                }
                for dy in -vr..=vr {
                    let c = ChunkCoord::new(v.chunk.x + dx, v.chunk.y + dy, v.chunk.z + dz);
                    if self.scheduler.is_wanted(StreamKey::Near(c)) {
                        wanted += 1;
                        loaded += self.scheduler.is_loaded(StreamKey::Near(c)) as usize;
                    }
                }
            }
        }
        Some(if wanted == 0 { 0.0 } else { loaded as f64 / wanted as f64 })
    }

    /// Sets the direction the viewer looks (any length; only x and z count). Chunks ahead are
    /// queued before chunks behind; a zero vector means no preference.
    pub fn set_view_direction(&mut self, dir: [f64; 3]) {
        let len = (dir[0] * dir[0] + dir[2] * dir[2]).sqrt();
        let direction = (len.is_finite() && len > 1e-6).then(|| {
            let step = std::f64::consts::TAU / DIRECTION_SECTORS as f64;
            let sector = (dir[2].atan2(dir[0]) / step).round() as i32;
            let a = sector as f64 * step;
            (sector.rem_euclid(DIRECTION_SECTORS), [a.cos(), a.sin()])
        });
        if direction.map(|d| d.0) != self.direction.map(|d| d.0) {
            self.direction = direction;
            self.refresh();
        }
    }

    /// The first viewer's chunk.
    pub fn viewer_chunk(&self) -> Option<ChunkCoord> {
        self.primary
    }

    /// Makes the wanted set anew from every viewer (after one moved, came, went or a setting
    /// changed).
    fn retarget(&mut self) {
        self.apply_budget();
        let (vr, margin) = (self.config.vertical_view_distance, self.config.unload_margin);
        let levels = self.lod_levels();
        let mut spots: Vec<ViewerSpot> = self
            .primary
            .map(|chunk| ViewerSpot { chunk, view_distance: self.effective_view_distance })
            .into_iter()
            .collect();
        spots.extend(
            self.extra_viewers
                .values()
                .map(|e| ViewerSpot { chunk: e.chunk, view_distance: self.budgeted(e.view_distance) }),
        );
        let layout_viewers: Vec<LayoutViewer> = spots
            .iter()
            .map(|s| {
                let (x, z) = s.centre();
                LayoutViewer { x, z, view_distance: s.view_distance }
            })
            .collect();
        self.layout = LodLayout::compute_for(&layout_viewers, levels, Some(&self.layout));
        let mut wanted = HashSet::new();
        for &(cx, cz) in &self.layout.near_columns {
            for y in column_viewer_ys(&spots, cx, cz) {
                for dy in -vr..=vr {
                    wanted.insert(StreamKey::Near(ChunkCoord::new(cx, y + dy, cz)));
                }
            }
        }
        wanted.extend(self.layout.far_columns.iter().map(|&f| StreamKey::Far(f)));
        self.spots = spots.clone();
        let layout = &self.layout;
        let keep_spots = spots.clone();
        // Near chunks stay loaded a margin beyond the view of some viewer (hysteresis); without a
        // far view that margin is horizontal too, with one the layout's own hysteresis does it.
        let keep = move |k: StreamKey| match k {
            StreamKey::Near(c) if levels == 0 => keep_spots.iter().any(|s| {
                let rr = (s.view_distance + margin) as i64;
                s.column_distance_sq(c.x, c.z) <= rr * rr && (c.y - s.chunk.y).abs() <= vr + margin
            }),
            StreamKey::Near(c) => {
                layout.near_columns.contains(&(c.x, c.z))
                    && keep_spots.iter().any(|s| (c.y - s.chunk.y).abs() <= vr + margin)
            }
            StreamKey::Far(_) => false,
        };
        // Near before far; within each, distance to the nearest viewer, the first viewer's weighted
        // by its view direction.
        let direction = self.direction.map(|d| d.1).filter(|_| self.primary.is_some());
        let centre = |c: i32| (c * CHUNK_SIZE + CHUNK_SIZE / 2) as f64;
        let priority = move |k: StreamKey| -> (u8, i64) {
            let class = matches!(k, StreamKey::Far(_)) as u8;
            let best = spots
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    let (vx, vz) = s.centre();
                    let (dx, dy, dz) = match k {
                        StreamKey::Near(c) => {
                            (centre(c.x) - vx, 2.0 * (centre(c.y) - centre(s.chunk.y)), centre(c.z) - vz)
                        }
                        StreamKey::Far(f) => {
                            let (mx, mz) = f.min_xz();
                            let half = f.size() as f64 / 2.0;
                            (mx as f64 + half - vx, 0.0, mz as f64 + half - vz)
                        }
                    };
                    let d2 = dx * dx + dy * dy + dz * dz;
                    let horizontal = (dx * dx + dz * dz).sqrt();
                    let factor = match direction {
                        Some([ux, uz]) if i == 0 && horizontal > 1.5 * CHUNK_SIZE as f64 => {
                            2.5 - 1.5 * (dx * ux + dz * uz) / horizontal
                        }
                        _ => 1.0,
                    };
                    (d2 * factor) as i64
                })
                .min()
                .unwrap_or(0);
            (class, best)
        };
        // The scheduler's own viewer key only marks that a wanted set was made.
        let key = StreamKey::Near(self.spots.first().map_or(ChunkCoord::new(0, 0, 0), |s| s.chunk));
        if levels == 0 {
            self.scheduler.retarget(key, wanted, keep, priority);
        } else {
            self.scheduler.retarget_deferred(key, wanted, keep, priority);
        }
    }

    /// Whether a job for chunk `c` builds collision: within `reach + 1` chunks of some viewer.
    fn wants_collision(viewers: &[ViewerSpot], reach: i32, c: ChunkCoord) -> bool {
        reach >= 0
            && viewers.iter().any(|s| {
                let v = s.chunk;
                (c.x - v.x).abs().max((c.y - v.y).abs()).max((c.z - v.z).abs()) <= reach + 1
            })
    }

    /// Asks for a loaded chunk's collision faces (it came near the viewer after it was built
    /// without them): the chunk is rebuilt on a worker and comes back as an update with them.
    pub fn request_collision(&mut self, c: ChunkCoord) {
        if !self.is_loaded(c) {
            return;
        }
        self.collision_requested.insert(c);
        let nav = self.navigation_requested.contains(&c);
        let (edits, config, viewer) = (&self.edits, &self.config, &self.spots[..]);
        self.scheduler
            .invalidate(StreamKey::Near(c), || Self::job_data(edits, config, viewer, StreamKey::Near(c), true, nav));
    }

    /// Navigation baking from now on (`None`: none). Loaded chunks keep what they have; a host
    /// asks for the chunks it wants baked with [`Streamer::request_navigation`].
    pub fn set_navigation(&mut self, navigation: Option<Arc<NavConfig>>) {
        self.config.navigation = navigation;
        self.navigation_requested.clear();
    }

    /// Asks for a loaded chunk's navigation mesh (it came within the navigation distance after
    /// it was built without one, or navigation was turned on): the chunk is rebuilt on a worker
    /// and comes back as an update with it. Nothing happens without [`StreamConfig::navigation`].
    pub fn request_navigation(&mut self, c: ChunkCoord) {
        if !self.is_loaded(c) || self.config.navigation.is_none() {
            return;
        }
        self.navigation_requested.insert(c);
        let collision = self.collision_requested.contains(&c);
        let (edits, config, viewer) = (&self.edits, &self.config, &self.spots[..]);
        self.scheduler.invalidate(StreamKey::Near(c), || {
            Self::job_data(edits, config, viewer, StreamKey::Near(c), collision, true)
        });
    }

    /// What a job for `key` takes along: a near chunk's edits, its collision (when within reach of
    /// the viewer, or `collision`), its navigation (within the navigation distance of a viewer, or
    /// `navigation`), and the mesh settings.
    fn job_data(
        edits: &EditMap,
        config: &StreamConfig,
        viewer: &[ViewerSpot],
        key: StreamKey,
        collision: bool,
        navigation: bool,
    ) -> JobData {
        let ambient_occlusion = config.ambient_occlusion;
        let materials = config.mesh_materials.clone();
        match key {
            StreamKey::Near(c) => JobData {
                navigation: config
                    .navigation
                    .clone()
                    .filter(|n| navigation || n.wants(viewer.iter().map(|s| s.chunk), c)),
                edits: if config.light.is_some() {
                    // The light box holds the navigation box (15 voxels around the chunk).
                    let (min, size) = ChunkLighter::input_box(c);
                    edits_for_light(edits, min, size)
                } else if let Some(n) = &config.navigation {
                    let (min, size) = n.edit_box(c);
                    edits.edits_in_box(min, size)
                } else {
                    Self::edits_for(edits, c)
                },
                collision: collision || Self::wants_collision(viewer, config.collision_distance, c),
                ambient_occlusion,
                shader_occlusion: config.shader_occlusion,
                materials,
                light: config.light.clone(),
                spawn_light: config.spawn_light.clone(),
            },
            StreamKey::Far(_) => JobData {
                ambient_occlusion,
                shader_occlusion: config.shader_occlusion,
                materials,
                ..JobData::default()
            },
        }
    }

    /// The edits a job for chunk `c` must apply (those in its padded box).
    fn edits_for(edits: &EditMap, c: ChunkCoord) -> Edits {
        edits.edits_in_box(c.min_voxel() - IVec3::ONE, IVec3::splat(CHUNK_SIZE + 2))
    }

    /// Sends jobs to the workers until `max_in_flight` are outstanding (edited chunks first),
    /// lets retired chunks go once their ground is covered, and runs the adaptive far view.
    pub fn pump(&mut self) {
        if let Some(adaptive) = &mut self.adaptive {
            let near_ready = self.scheduler.is_ready_where(|k| matches!(k, StreamKey::Near(_)));
            self.near_was_ready |= near_ready;
            let pressure = self.frame_pressure || (self.near_was_ready && !near_ready);
            let all_loaded = self.scheduler.is_area_ready();
            if adaptive.update(self.started.elapsed().as_secs_f64(), pressure, all_loaded).is_some() {
                self.refresh();
            }
        }
        let (edits, config, viewer) = (&self.edits, &self.config, &self.spots[..]);
        let (requested, nav_requested) = (&mut self.collision_requested, &mut self.navigation_requested);
        self.scheduler.pump(|k| {
            let requested = matches!(k, StreamKey::Near(c) if requested.remove(&c));
            let nav = matches!(k, StreamKey::Near(c) if nav_requested.remove(&c));
            Self::job_data(edits, config, viewer, k, requested, nav)
        });
        self.release_retired();
    }

    fn release_retired(&mut self) {
        let (layout, vr, spots) = (&self.layout, self.config.vertical_view_distance, &self.spots);
        self.scheduler.release_retired(|s, k| {
            let loaded = |c: LodColumn| {
                if c.level == 0 {
                    column_viewer_ys(spots, c.x, c.z)
                        .into_iter()
                        .all(|y| (-vr..=vr).all(|dy| s.is_loaded(StreamKey::Near(ChunkCoord::new(c.x, y + dy, c.z)))))
                } else {
                    s.is_loaded(StreamKey::Far(c))
                }
            };
            match k {
                // Still a near column: it only left the vertical range.
                StreamKey::Near(c) if layout.near_columns.contains(&(c.x, c.z)) => true,
                StreamKey::Near(c) => layout.is_covered(LodColumn::new(0, c.x, c.z), &loaded),
                StreamKey::Far(f) => layout.is_covered(f, &loaded),
            }
        });
    }

    /// Hands a result's mesh buffers back once they are used, so a worker refills them instead of
    /// allocating (dropped when enough are waiting already). Optional: results may also be dropped.
    pub fn recycle(&self, mesh: ChunkMesh, packed: Option<MeshBytes>) {
        // Never waits for a worker; a buffer the pool cannot take now is dropped.
        drop(self.recycled.give(MeshBuffers { mesh, packed: packed.unwrap_or_default() }));
    }

    /// The next finished chunk or column, if one is ready; never blocks. Stale results are skipped.
    pub fn try_recv(&mut self) -> Option<StreamResult> {
        self.scheduler.try_recv()
    }

    /// Chunks and columns to remove from the scene since the last call.
    pub fn take_unloads(&mut self) -> Vec<StreamKey> {
        self.scheduler.take_unloads()
    }

    /// True when every wanted near chunk is loaded and no edit is waiting for a new mesh (the
    /// far view may still be filling in).
    pub fn is_area_ready(&self) -> bool {
        self.scheduler.is_ready_where(|k| matches!(k, StreamKey::Near(_)))
    }

    /// True when the near field and the far view are both complete.
    pub fn is_view_complete(&self) -> bool {
        self.scheduler.is_area_ready()
    }

    /// Loaded near chunks / wanted near chunks, in `[0, 1]`.
    pub fn progress(&self) -> f64 {
        let (l, w) = self.scheduler.counts_where(|k| matches!(k, StreamKey::Near(_)));
        if w == 0 { if self.spots.is_empty() { 0.0 } else { 1.0 } } else { l as f64 / w as f64 }
    }

    pub fn is_loaded(&self, c: ChunkCoord) -> bool {
        self.scheduler.is_loaded(StreamKey::Near(c))
    }

    pub fn is_far_loaded(&self, c: LodColumn) -> bool {
        self.scheduler.is_loaded(StreamKey::Far(c))
    }

    /// Loaded near chunks.
    pub fn loaded_chunks(&self) -> impl Iterator<Item = ChunkCoord> + '_ {
        self.scheduler.loaded().filter_map(|k| match k {
            StreamKey::Near(c) => Some(*c),
            StreamKey::Far(_) => None,
        })
    }

    /// The generated chunks the workers keep ([`VoxelCache`]): queries on the main thread read
    /// them instead of generating (`query::WorldVoxels`).
    pub fn voxel_cache(&self) -> &VoxelCache {
        &self.voxel_cache
    }

    /// Chunks in the workers' voxel cache and the bytes they count for.
    pub fn voxel_cache_usage(&self) -> (usize, usize) {
        self.voxel_cache.usage()
    }

    /// The workers' voxel cache lookups so far: `(hits, misses)` ([`VoxelCache::lookups`]).
    pub fn voxel_cache_lookups(&self) -> (u64, u64) {
        self.voxel_cache.lookups()
    }

    pub fn stats(&self) -> StreamStats {
        let mut s = self.scheduler.stats();
        let is_far = |k: &StreamKey| matches!(k, StreamKey::Far(_));
        let (far_loaded, far_wanted) = self.scheduler.counts_where(is_far);
        let (near_loaded, near_wanted) = self.scheduler.counts_where(|k| !is_far(k));
        s.loaded_chunks = near_loaded;
        s.pending_chunks = near_wanted - near_loaded;
        s.far_loaded = far_loaded;
        s.far_pending = far_wanted - far_loaded;
        s.lod_levels = self.lod_levels();
        s
    }

    pub fn edits(&self) -> &EditMap {
        &self.edits
    }

    /// Replaces all edits (loading a save); loaded chunks are remeshed and pending flows are
    /// dropped.
    pub fn replace_edits(&mut self, edits: EditMap) {
        self.edits = edits;
        self.water.reset(&self.edits);
        self.remesh_all(|k| matches!(k, StreamKey::Near(_)));
    }

    /// Runs the flows a save kept ([`Streamer::pending_water_flows`]) again, after
    /// [`Streamer::replace_edits`] with the save's edits: the water settles as it would have
    /// had the world not been saved. With flow off they are held until it is turned on (and a
    /// save keeps them).
    pub fn restore_water_flows(&mut self, pending: Vec<PendingFlow>) {
        self.water.restore(&self.edits, pending);
    }

    /// The edits whose flow has not been applied yet, oldest first: what a save keeps so that
    /// loading runs them again (law: Nothing is lost).
    pub fn pending_water_flows(&self) -> Vec<PendingFlow> {
        self.water.pending_flows()
    }

    /// Turns water flow after edits on or off ([`crate::stream::water_flow`]): on, a flow thread
    /// computes each edit's flow in edit order and [`Streamer::apply_water_flow`] applies what
    /// finished. Off, pending flows are dropped. Fails only if the OS refuses a thread.
    pub fn set_water_flow(&mut self, enabled: bool) -> std::io::Result<()> {
        let (generator, edits) = (&self.generator, &self.edits);
        self.water.set_enabled(enabled, edits, || {
            WaterRunner::new(Generated3D::new(generator.clone()), Default::default(), edits.clone())
        })
    }

    /// Turns water flow off and hands back the flow thread's runner, for a caller that must
    /// drop it (which waits for the flow running now) while it keeps serving that flow, e.g. a
    /// generation hook answered on the caller's thread.
    pub fn take_water_flow(&mut self) -> Option<crate::stream::water_runner::WaterRunner> {
        self.water.take_runner()
    }

    /// Applies the flows finished so far as edits (each loaded chunk they change rebuilt once),
    /// never waiting; returns how many voxels changed.
    pub fn apply_water_flow(&mut self) -> usize {
        self.apply_water_flow_changes().iter().map(|f| f.changes.len()).sum()
    }

    /// [`Streamer::apply_water_flow`], returning each applied flow with the ticket of the batch
    /// that caused it ([`Streamer::last_water_ticket`]) and its changes as entries before and
    /// after (what an undo step records).
    pub fn apply_water_flow_changes(&mut self) -> Vec<AppliedFlow> {
        let finished = self.water.take_finished();
        let mut out = Vec::with_capacity(finished.len());
        let mut all: Vec<(IVec3, Option<BlockId>)> = Vec::new();
        // Blocks written by earlier flows of this call: a later flow's `before`.
        let mut written: std::collections::HashMap<IVec3, BlockId> = std::collections::HashMap::new();
        for f in finished {
            let mut changes = Vec::with_capacity(f.changes.len());
            for (pos, id) in f.changes {
                let before = written.get(&pos).copied().or_else(|| self.edits.get(pos));
                changes.push(VoxelChange { pos, before, after: Some(id) });
                written.insert(pos, id);
                all.push((pos, Some(id)));
            }
            out.push(AppliedFlow { ticket: f.ticket, changes });
        }
        // Flow results start no flow of their own.
        if !all.is_empty() {
            self.write_voxels(&all, WaterWrite::Skip);
        }
        out
    }

    /// The ticket of the last edit batch submitted to the flow thread (`None` with flow off):
    /// [`Streamer::apply_water_flow_changes`] names each flow by it.
    pub fn last_water_ticket(&self) -> Option<u64> {
        self.water.last_ticket()
    }

    /// Whether water flow is on.
    pub fn is_water_flow_on(&self) -> bool {
        self.water.is_on()
    }

    /// True when no flow is pending (or flow is off).
    pub fn is_water_settled(&self) -> bool {
        self.water.is_settled()
    }

    /// Totals of the flows so far (zero with flow off).
    pub fn water_stats(&self) -> crate::stream::water_runner::FlowStats {
        self.water.stats()
    }

    /// Rebuilds every loaded or pending key that `include` selects, with the current edits and
    /// settings.
    fn remesh_all(&mut self, include: impl Fn(&StreamKey) -> bool) {
        let (edits, config, viewer) = (&self.edits, &self.config, &self.spots[..]);
        self.scheduler.invalidate_all_where(include, |k| Self::job_data(edits, config, viewer, k, false, false));
    }

    /// Records an edit; every loaded chunk that shows voxel `p` gets a new mesh, and with light
    /// ([`StreamConfig::light`]) every loaded chunk whose light the edit can change: those
    /// within [`crate::light::LIGHT_REACH`] of `p` and of the part of its column that the sky
    /// newly reaches or no longer reaches ([`LightEdit`]; the column's exposure before and after
    /// is found by walking its voxels, [`column_exposure`]).
    pub fn set_voxel(&mut self, p: IVec3, id: BlockId) {
        let before = self
            .config
            .light
            .as_ref()
            .map(|props| column_exposure(&self.generator, Some(&self.edits), props, p.x, p.z));
        let entry_before = self.edits.get(p);
        self.edits.set(p, id);
        let mut chunks = EditMap::chunks_touching(p);
        if let Some(n) = &self.config.navigation {
            chunks.extend(n.chunks_touching(p));
            chunks.sort_unstable();
            chunks.dedup();
        }
        if let (Some(props), Some(exposure_before)) = (&self.config.light, before) {
            let exposure_after = column_exposure(&self.generator, Some(&self.edits), props, p.x, p.z);
            let edit = LightEdit { pos: p, exposure_before, exposure_after };
            chunks.extend(edit.chunks().into_iter().filter(|c| self.scheduler.is_loaded(StreamKey::Near(*c))));
            chunks.sort_unstable();
            chunks.dedup();
        }
        let (edits, config, viewer) = (&self.edits, &self.config, &self.spots[..]);
        for c in chunks {
            self.scheduler.invalidate(StreamKey::Near(c), || {
                Self::job_data(edits, config, viewer, StreamKey::Near(c), false, false)
            });
        }
        self.water.submit(&[VoxelChange { pos: p, before: entry_before, after: Some(id) }], true);
    }

    /// Records many edits as one batch: each loaded chunk they can change is rebuilt once, not
    /// once per voxel. The chunks are those [`Streamer::set_voxel`] would rebuild for each edit;
    /// with light, each edited column's exposure is walked once before and once after the batch
    /// (the cost of a batch is about one column walk per distinct column).
    pub fn set_voxels(&mut self, batch: &[(IVec3, BlockId)]) {
        let batch: Vec<(IVec3, Option<BlockId>)> = batch.iter().map(|&(p, id)| (p, Some(id))).collect();
        self.edit_voxels(&batch);
    }

    /// [`Streamer::set_voxels`] where `None` removes the edit at the voxel (the generated block
    /// shows again): what undo and redo write, so that the edit map ends exactly as it was.
    pub fn edit_voxels(&mut self, batch: &[(IVec3, Option<BlockId>)]) {
        self.write_voxels(batch, WaterWrite::Flow);
    }

    /// [`Streamer::edit_voxels`] for a batch whose water is already part of it (an undo or a
    /// redo that puts back what an edit and its flow did): the flow thread writes it in order
    /// but runs no flow after it.
    pub fn replay_voxels(&mut self, batch: &[(IVec3, Option<BlockId>)]) {
        self.write_voxels(batch, WaterWrite::Replay);
    }

    fn write_voxels(&mut self, batch: &[(IVec3, Option<BlockId>)], water: WaterWrite) {
        use std::collections::HashMap;
        // Per edited column: the lowest and highest edited y.
        let mut columns: HashMap<(i32, i32), (i32, i32)> = HashMap::new();
        for &(p, _) in batch {
            let e = columns.entry((p.x, p.z)).or_insert((p.y, p.y));
            *e = (e.0.min(p.y), e.1.max(p.y));
        }
        let before: Option<HashMap<(i32, i32), i32>> = self.config.light.as_ref().map(|props| {
            columns
                .keys()
                .map(|&(x, z)| ((x, z), column_exposure(&self.generator, Some(&self.edits), props, x, z)))
                .collect()
        });
        let mut chunks: HashSet<ChunkCoord> = HashSet::new();
        let mut changes: Vec<VoxelChange> = Vec::new();
        for &(p, id) in batch {
            if water != WaterWrite::Skip {
                changes.push(VoxelChange { pos: p, before: self.edits.get(p), after: id });
            }
            match id {
                Some(id) => self.edits.set(p, id),
                None => self.edits.clear_at(p),
            }
            chunks.extend(EditMap::chunks_touching(p));
            if let Some(n) = &self.config.navigation {
                chunks.extend(n.chunks_touching(p));
            }
        }
        if let (Some(props), Some(before)) = (&self.config.light, before) {
            for (&(x, z), &(y0, y1)) in &columns {
                let exposure_after = column_exposure(&self.generator, Some(&self.edits), props, x, z);
                let exposure_before = before[&(x, z)];
                // The lowest and highest edits of the column bound what light sees of it: the
                // chunks in between lie within both edits' reach or in the column's own span.
                for y in [y0, y1] {
                    let edit = LightEdit { pos: IVec3::new(x, y, z), exposure_before, exposure_after };
                    chunks.extend(edit.chunks().into_iter().filter(|c| self.scheduler.is_loaded(StreamKey::Near(*c))));
                }
                let (a, b) =
                    (ChunkCoord::containing(IVec3::new(x, y0, z)), ChunkCoord::containing(IVec3::new(x, y1, z)));
                for cy in a.y..=b.y {
                    for dz in -1..=1 {
                        for dx in -1..=1 {
                            let c = ChunkCoord::new(a.x + dx, cy, a.z + dz);
                            if self.scheduler.is_loaded(StreamKey::Near(c)) {
                                chunks.insert(c);
                            }
                        }
                    }
                }
            }
        }
        let mut chunks: Vec<ChunkCoord> = chunks.into_iter().collect();
        chunks.sort_unstable();
        let (edits, config, viewer) = (&self.edits, &self.config, &self.spots[..]);
        for c in chunks {
            self.scheduler.invalidate(StreamKey::Near(c), || {
                Self::job_data(edits, config, viewer, StreamKey::Near(c), false, false)
            });
        }
        match water {
            WaterWrite::Flow => self.water.submit(&changes, true),
            WaterWrite::Replay => self.water.submit(&changes, false),
            WaterWrite::Skip => None,
        };
    }

    /// The block at `p`: the edit if there is one, else the generated block.
    pub fn voxel(&self, p: IVec3) -> BlockId {
        self.edits.get(p).unwrap_or_else(|| self.generator.voxel_at(p))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::base::chunk::VoxelBuffer;
    use crate::gen3d::scatter::ScatterInstance;
    use crate::mesh::Mesher;
    use crate::preset::model::WorldPreset;
    use crate::stream::far_mesh::{FarMesh, FarScratch, build_far_column};
    use crate::stream::scheduler::JobResult;
    use std::collections::HashMap;
    use std::time::Duration;

    /// Pumps `s` until its area is ready; the near results it handed back.
    pub(crate) fn drain_until_ready(s: &mut Streamer) -> Vec<ChunkResult> {
        let start = Instant::now();
        let mut got = Vec::new();
        while !s.is_area_ready() {
            assert!(start.elapsed() < Duration::from_secs(60), "stream never became ready");
            s.pump();
            match s.try_recv() {
                Some(StreamResult::Near(r)) => got.push(r),
                Some(StreamResult::Far(_)) => {}
                None => std::thread::sleep(Duration::from_millis(1)),
            }
        }
        got
    }

    fn streamer(vd: i32) -> Streamer {
        let g = Arc::new(Generator::new(&WorldPreset::default()).unwrap());
        Streamer::new(
            g,
            StreamConfig { view_distance: vd, vertical_view_distance: 1, worker_threads: 2, ..Default::default() },
        )
        .unwrap()
    }

    #[test]
    fn out_of_range_configs_are_clamped_and_never_allocate_unboundedly() {
        let g = Arc::new(Generator::new(&WorldPreset::default()).unwrap());
        let wild = StreamConfig {
            view_distance: 100_000,
            vertical_view_distance: 1_000,
            unload_margin: -5,
            worker_threads: 256,
            max_in_flight: usize::MAX,
            memory_budget_mb: u32::MAX,
            collision_distance: i32::MIN,
            lod_levels: 200,
            ..Default::default()
        };
        let c = wild.clamped();
        assert_eq!(
            (c.view_distance, c.vertical_view_distance, c.unload_margin, c.collision_distance, c.lod_levels),
            (MAX_VIEW_DISTANCE, MAX_VERTICAL_VIEW_DISTANCE, 0, -1, crate::stream::far_policy::MAX_LOD_LEVELS)
        );
        assert_eq!(c.memory_budget_mb, *MEMORY_BUDGET_MB_RANGE.end());
        assert!(c.max_in_flight <= MAX_IN_FLIGHT);
        let low = StreamConfig { view_distance: -3, vertical_view_distance: -2, ..Default::default() }.clamped();
        assert_eq!((low.view_distance, low.vertical_view_distance), (1, 0));
        // The streamer applies the clamp: a wild config starts bounded threads and a bounded view.
        let mut s = Streamer::new(g, StreamConfig { lod_levels: 0, memory_budget_mb: 64, ..wild }).unwrap();
        assert!(s.stats().workers <= crate::stream::scheduler::max_workers());
        s.set_viewer([0.0, 0.0, 0.0]);
        let budget = 64 * 1024 * 1024;
        assert!(s.scheduler.wanted_count() as u64 * ESTIMATED_BYTES_PER_CHUNK <= budget);
        s.set_view_distance(i32::MAX, i32::MAX);
        assert_eq!(s.config().view_distance, MAX_VIEW_DISTANCE);
        assert!(s.scheduler.wanted_count() as u64 * ESTIMATED_BYTES_PER_CHUNK <= budget);
    }

    #[test]
    fn the_memory_budget_shrinks_the_view_keeping_the_nearest_chunks() {
        // Unbudgeted (the largest budget), view distance 12 at vertical 3 fits.
        let full = budgeted_view_distance(12, 3, 2, 0, *MEMORY_BUDGET_MB_RANGE.end());
        assert_eq!(full, 12);
        // 64 MiB holds 512 chunks: 7 layers of at most 73 columns, radius 4 (49 columns).
        let d = budgeted_view_distance(12, 3, 0, 0, 64);
        assert!(estimated_view_bytes(d, 3, 0, 0) <= 64 << 20);
        assert!(estimated_view_bytes(d + 1, 3, 0, 0) > 64 << 20);
        assert_eq!(d, 4);
        // The unload margin and the far view count too; the distance never drops below one chunk.
        assert!(budgeted_view_distance(12, 3, 2, 0, 64) < d);
        assert!(budgeted_view_distance(12, 3, 0, 3, 64) <= d);
        assert_eq!(budgeted_view_distance(0, 0, 0, 0, 64), 1);

        let mut s = streamer(14);
        s.set_viewer([0.0, 0.0, 0.0]);
        drain_until_ready(&mut s);
        let full_loaded = s.stats().loaded_chunks;
        assert_eq!(s.effective_view_distance(), 14);
        // Shrinking the budget unloads the farthest chunks; the nearest stay loaded.
        s.set_memory_budget(*MEMORY_BUDGET_MB_RANGE.start());
        let d = s.effective_view_distance();
        assert!((1..14).contains(&d), "64 MiB holds 512 chunks; got view distance {d}");
        drain_until_ready(&mut s);
        let unloaded: Vec<StreamKey> = s.take_unloads();
        assert!(!unloaded.is_empty());
        for k in &unloaded {
            if let StreamKey::Near(c) = k {
                assert!(c.x * c.x + c.z * c.z > d * d, "{c:?} within the effective distance {d} was unloaded");
            }
        }
        assert!(s.is_loaded(ChunkCoord::new(0, 0, 0)));
        assert!(s.stats().loaded_chunks < full_loaded);
        assert!(s.memory_estimate_bytes() <= 64 << 20);
        // A larger budget lets the view grow back.
        s.set_memory_budget(1024);
        assert_eq!(s.effective_view_distance(), 14);
    }

    #[test]
    fn fills_view_nearest_first_then_unloads_behind() {
        let mut s = streamer(3);
        s.set_viewer([0.0, 0.0, 0.0]);
        let first = drain_until_ready(&mut s);
        assert_eq!(s.stats().loaded_chunks, s.scheduler.wanted_count());
        assert_eq!(s.stats().far_loaded + s.stats().far_pending, 0);
        assert_eq!(first.len(), s.scheduler.wanted_count());
        // The first chunk done is among the nearest (max_in_flight jobs are started together).
        let d0 = first[0].coord.distance_sq(ChunkCoord::new(0, 0, 0));
        assert!(d0 <= 2, "first result at distance² {d0}");
        // Move 10 chunks east: new chunks load ahead, old ones unload behind.
        s.set_viewer([10.0 * 32.0, 0.0, 0.0]);
        let unloads: Vec<ChunkCoord> = s
            .take_unloads()
            .into_iter()
            .map(|k| match k {
                StreamKey::Near(c) => c,
                StreamKey::Far(f) => panic!("no far view asked, got {f:?}"),
            })
            .collect();
        assert!(unloads.iter().all(|c| (c.x - 10).pow(2) + c.z.pow(2) > 25), "unloaded a chunk inside view + margin");
        assert!(!unloads.is_empty());
        drain_until_ready(&mut s);
        assert!(s.is_loaded(ChunkCoord::new(13, 0, 0)));
        assert!(!s.is_loaded(ChunkCoord::new(0, 0, 0)));
    }

    #[test]
    fn several_viewers_load_the_union_nearest_first_with_collision_near_each() {
        let mut s = streamer(2);
        s.set_viewer([0.0, 0.0, 0.0]);
        // A second viewer 20 chunks east and 3 chunks up, with its own distance.
        s.set_extra_viewer(7, [20.0 * 32.0 + 5.0, 3.0 * 32.0, 0.0], 3);
        assert_eq!(s.extra_viewer_count(), 1);
        let results = drain_until_ready(&mut s);
        let expected = |v: ChunkCoord, r: i32| {
            let mut set = HashSet::new();
            for dz in -r..=r {
                for dx in -r..=r {
                    if dx * dx + dz * dz <= r * r {
                        for dy in -1..=1 {
                            set.insert(ChunkCoord::new(v.x + dx, v.y + dy, v.z + dz));
                        }
                    }
                }
            }
            set
        };
        let (a, b) = (expected(ChunkCoord::new(0, 0, 0), 2), expected(ChunkCoord::new(20, 3, 0), 3));
        let loaded: HashSet<ChunkCoord> = s.loaded_chunks().collect();
        assert_eq!(loaded, a.union(&b).copied().collect::<HashSet<_>>());
        assert_eq!(s.extra_viewer_progress(7), Some(1.0));
        assert_eq!(s.extra_viewer_progress(8), None);
        // Collision near each viewer (within collision_distance 1 + 1 chunks), not between them.
        for r in &results {
            let near_a = r.coord.x.abs().max(r.coord.y.abs()).max(r.coord.z.abs()) <= 2;
            let near_b = (r.coord.x - 20).abs().max((r.coord.y - 3).abs()).max(r.coord.z.abs()) <= 2;
            assert_eq!(r.collision.is_some(), near_a || near_b, "{:?}", r.coord);
        }
        // The first results are near one of the viewers (nearest-first across viewers).
        let d = |c: ChunkCoord| c.distance_sq(ChunkCoord::new(0, 0, 0)).min(c.distance_sq(ChunkCoord::new(20, 3, 0)));
        assert!(d(results[0].coord) <= 2, "first result {:?}", results[0].coord);
        // Removing the second viewer unloads exactly what only it needed.
        assert!(s.remove_extra_viewer(7));
        assert!(!s.remove_extra_viewer(7));
        let unloaded: HashSet<ChunkCoord> = s
            .take_unloads()
            .into_iter()
            .filter_map(|k| match k {
                StreamKey::Near(c) => Some(c),
                StreamKey::Far(_) => None,
            })
            .collect();
        assert_eq!(unloaded, b.difference(&a).copied().collect::<HashSet<_>>());
        assert_eq!(s.loaded_chunks().collect::<HashSet<_>>(), a);
    }

    #[test]
    fn viewers_share_the_memory_budget() {
        let g = Arc::new(Generator::new(&WorldPreset::default()).unwrap());
        let config = StreamConfig {
            view_distance: 12,
            vertical_view_distance: 3,
            unload_margin: 0,
            lod_levels: 0,
            memory_budget_mb: 128,
            worker_threads: 1,
            ..Default::default()
        };
        let mut s = Streamer::new(g, config).unwrap();
        s.set_viewer([0.0, 0.0, 0.0]);
        let alone = s.effective_view_distance();
        for i in 0..3 {
            s.set_extra_viewer(i, [(i as f64 + 1.0) * 5000.0, 0.0, 0.0], 12);
        }
        assert!(s.effective_view_distance() < alone, "four viewers keep the distance of one");
        assert!(s.scheduler.wanted_count() as u64 * ESTIMATED_BYTES_PER_CHUNK <= 128 << 20);
        assert_eq!(s.viewer_spots().len(), 4);
    }

    #[test]
    fn a_far_view_around_two_viewers_has_no_hole_and_no_overlap() {
        let mut s = far_streamer(2, 2);
        s.set_viewer([0.0, 0.0, 0.0]);
        s.set_extra_viewer(1, [3000.0, 0.0, 1000.0], 2);
        let mut shown = HashSet::new();
        let start = Instant::now();
        while !s.is_view_complete() {
            assert!(start.elapsed() < Duration::from_secs(120), "view never complete");
            if !apply_frame(&mut s, &mut shown) {
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        // Exactly the layout is shown: no far column under a near chunk of either viewer.
        let far_count = shown.iter().filter(|k| matches!(k, StreamKey::Far(_))).count();
        assert_eq!(far_count, s.layout().far_columns.len());
        for k in &shown {
            if let StreamKey::Far(f) = k {
                let (mx, mz) = f.min_xz();
                let n = f.size() / 32;
                let under = (0..n).flat_map(|dz| (0..n).map(move |dx| (mx / 32 + dx, mz / 32 + dz)));
                for col in under {
                    assert!(!s.layout().near_columns.contains(&col), "{f:?} overlaps near column {col:?}");
                }
            }
        }
        assert_no_hole(&shown, 16.0, 16.0, 200.0, "around the first viewer");
        assert_no_hole(&shown, 3000.0, 1000.0, 200.0, "around the second viewer");
        assert!(s.is_loaded(ChunkCoord::new(93, 0, 31)), "near chunks around the second viewer");
    }

    #[test]
    fn edits_remesh_loaded_chunks() {
        let mut s = streamer(1);
        s.set_viewer([0.0, 0.0, 0.0]);
        drain_until_ready(&mut s);
        let h = s.generator().surface_height(5, 5);
        s.set_voxel(IVec3::new(5, h + 3, 5), crate::base::block::STONE);
        assert!(!s.is_area_ready());
        let updates = drain_until_ready(&mut s);
        assert!(updates.iter().any(|r| r.is_update && r.coord == ChunkCoord::containing(IVec3::new(5, h + 3, 5))));
        assert_eq!(s.voxel(IVec3::new(5, h + 3, 5)), crate::base::block::STONE);
    }

    #[test]
    fn a_batch_of_edits_rebuilds_each_affected_chunk_once() {
        let mut s = streamer(1);
        s.set_viewer([0.0, 0.0, 0.0]);
        drain_until_ready(&mut s);
        let h = s.generator().surface_height(31, 5);
        // A box straddling the border between chunk x = 0 and x = 1.
        let batch: Vec<(IVec3, BlockId)> =
            crate::base::shapes::box_voxels(IVec3::new(30, h + 2, 4), IVec3::new(33, h + 4, 6))
                .unwrap()
                .into_iter()
                .map(|p| (p, crate::base::block::STONE))
                .collect();
        s.set_voxels(&batch);
        assert!(!s.is_area_ready());
        let updates = drain_until_ready(&mut s);
        let mut per_chunk: HashMap<ChunkCoord, usize> = HashMap::new();
        for r in updates.iter().filter(|r| r.is_update) {
            *per_chunk.entry(r.coord).or_default() += 1;
        }
        for &(p, _) in &batch {
            assert_eq!(s.voxel(p), crate::base::block::STONE);
            for c in EditMap::chunks_touching(p).into_iter().filter(|&c| s.is_loaded(c)) {
                assert_eq!(per_chunk.get(&c), Some(&1), "chunk {c:?} rebuilt once");
            }
        }
        assert!(per_chunk.values().all(|&n| n == 1), "{per_chunk:?}");
    }

    #[test]
    fn a_batch_that_removes_edits_restores_the_edit_map_and_rebuilds_the_chunks() {
        let mut s = streamer(1);
        s.set_viewer([0.0, 0.0, 0.0]);
        drain_until_ready(&mut s);
        let h = s.generator().surface_height(5, 5);
        let (air_above, ground) = (IVec3::new(5, h + 3, 5), IVec3::new(5, h - 1, 5));
        let generated = [s.voxel(air_above), s.voxel(ground)];
        s.set_voxels(&[(air_above, crate::base::block::STONE), (ground, 0)]);
        drain_until_ready(&mut s);
        assert_eq!(s.edits().len(), 2);
        // Undo: no edit where there was none.
        s.edit_voxels(&[(air_above, None), (ground, None)]);
        assert!(!s.is_area_ready());
        let updates = drain_until_ready(&mut s);
        assert!(updates.iter().any(|r| r.is_update && r.coord == ChunkCoord::containing(ground)));
        assert!(s.edits().is_empty());
        assert_eq!([s.voxel(air_above), s.voxel(ground)], generated);
    }

    #[test]
    fn turning_ambient_occlusion_off_remeshes_everything_loaded_or_pending() {
        let mut s = far_streamer(2, 2);
        s.set_viewer([0.0, 0.0, 0.0]);
        // Some results in, some jobs still out.
        let start = Instant::now();
        let mut latest: HashMap<StreamKey, StreamResult> = HashMap::new();
        while latest.len() < 4 {
            assert!(start.elapsed() < Duration::from_secs(60));
            s.pump();
            match s.try_recv() {
                Some(r) => drop(latest.insert(r.coord(), r)),
                None => std::thread::sleep(Duration::from_millis(1)),
            }
        }
        s.set_ambient_occlusion(false);
        assert!(!s.is_view_complete(), "the loaded chunks wait for their new meshes");
        while !s.is_view_complete() {
            assert!(start.elapsed() < Duration::from_secs(60), "stream never became ready");
            s.pump();
            match s.try_recv() {
                Some(r) => drop(latest.insert(r.coord(), r)),
                None => std::thread::sleep(Duration::from_millis(1)),
            }
        }
        let g = s.generator().clone();
        let (mut padded, mut flat, mut far_scratch) =
            (VoxelBuffer::new(IVec3::ZERO, IVec3::ONE), ChunkMesh::default(), FarScratch::default());
        far_scratch.set_ambient_occlusion(false);
        let mut mesher = Mesher::new();
        mesher.set_ambient_occlusion(false);
        let (mut near, mut far) = (0, 0);
        for key in s.scheduler.loaded().copied().collect::<Vec<_>>() {
            match (&latest[&key], key) {
                (StreamResult::Near(r), StreamKey::Near(c)) => {
                    g.generate_padded_chunk(c, &mut padded);
                    mesher.mesh(&padded, &mut flat);
                    assert_eq!(r.mesh, flat, "near chunk {c:?}");
                    near += !flat.is_empty() as usize;
                }
                (StreamResult::Far(r), StreamKey::Far(f)) => {
                    let mut expected = FarMesh::default();
                    build_far_column(&g, f, &mut far_scratch, &mut expected);
                    assert_eq!(r.far.mesh, expected.mesh, "far column {f:?}");
                    far += 1;
                }
                _ => unreachable!("results come back under their own key"),
            }
        }
        assert!(near > 4 && far > 10, "{near} near meshes, {far} far columns");
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
            assert!(crate::base::block::is_solid(s.voxel(b - IVec3::new(0, 1, 0))), "{i:?} floats");
            assert!(!crate::base::block::is_solid(s.voxel(b)), "{i:?} is buried");
        }
        // Dig the ground under one decoration: the remeshed chunk no longer has it.
        let victim = all[0];
        let ground = victim.base_voxel() - IVec3::new(0, 1, 0);
        s.set_voxel(ground, crate::base::block::AIR);
        let updates = drain_until_ready(&mut s);
        let c = ChunkCoord::containing(victim.base_voxel());
        let r = updates.iter().find(|r| r.coord == c).expect("the chunk was remeshed");
        assert!(!r.scatter.contains(&victim));
    }

    fn far_streamer(vd: i32, levels: u8) -> Streamer {
        let g = Arc::new(Generator::new(&WorldPreset::default()).unwrap());
        Streamer::new(
            g,
            StreamConfig {
                view_distance: vd,
                vertical_view_distance: 1,
                worker_threads: 2,
                lod_levels: levels,
                ..Default::default()
            },
        )
        .unwrap()
    }

    /// What a scene shows: keys added on results, removed on unloads.
    fn apply_frame(s: &mut Streamer, shown: &mut HashSet<StreamKey>) -> bool {
        s.pump();
        for k in s.take_unloads() {
            assert!(shown.remove(&k), "unloaded {k:?}, which was never shown");
        }
        let mut any = false;
        while let Some(r) = s.try_recv() {
            shown.insert(r.coord());
            any = true;
        }
        any
    }

    /// Every chunk column within `radius` voxels of `(x, z)` is drawn by a shown near chunk or
    /// far column.
    fn assert_no_hole(shown: &HashSet<StreamKey>, x: f64, z: f64, radius: f64, when: &str) {
        let near: HashSet<(i32, i32)> = shown
            .iter()
            .filter_map(|k| match k {
                StreamKey::Near(c) => Some((c.x, c.z)),
                _ => None,
            })
            .collect();
        let far: HashSet<LodColumn> = shown
            .iter()
            .filter_map(|k| match k {
                StreamKey::Far(f) => Some(*f),
                _ => None,
            })
            .collect();
        let span = (radius / 32.0).ceil() as i32;
        let v = LodColumn::containing(0, x as i32, z as i32);
        for dz in -span..=span {
            for dx in -span..=span {
                let c = LodColumn::new(0, v.x + dx, v.z + dz);
                if c.centre_distance_sq(x, z) > radius * radius {
                    continue;
                }
                let mut a = c;
                let drawn = near.contains(&(c.x, c.z))
                    || (0..6).any(|_| {
                        a = a.parent();
                        far.contains(&a)
                    });
                assert!(drawn, "{when}: hole at chunk column {c:?}");
            }
        }
    }

    #[test]
    fn far_view_fills_then_swaps_levels_without_holes() {
        let mut s = far_streamer(2, 2);
        let mut shown = HashSet::new();
        s.set_viewer([0.0, 0.0, 0.0]);
        let start = Instant::now();
        while !s.is_view_complete() {
            assert!(start.elapsed() < Duration::from_secs(60), "view never complete");
            if !apply_frame(&mut s, &mut shown) {
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        let far_count = shown.iter().filter(|k| matches!(k, StreamKey::Far(_))).count();
        assert_eq!(far_count, s.layout().far_columns.len());
        assert!(far_count > 10);
        // Radius 2·32·4 = 256 voxels: everything well inside is drawn.
        assert_no_hole(&shown, 16.0, 16.0, 200.0, "after the first fill");
        // Walk east in steps; in every frame the ground around stays drawn (old leaves stay on
        // screen until their replacements are loaded), and nothing is shown twice at the end.
        for step in 1..=6 {
            let x = step as f64 * 40.0;
            s.set_viewer([x, 0.0, 0.0]);
            let start = Instant::now();
            while !s.is_view_complete() || s.stats().retiring > 0 {
                assert!(start.elapsed() < Duration::from_secs(60), "step {step} never settled");
                let any = apply_frame(&mut s, &mut shown);
                assert_no_hole(&shown, 16.0 + x, 16.0, 120.0, &format!("step {step}"));
                if !any {
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
            let layout = s.layout();
            let expect = layout.far_columns.len() + layout.near_columns.len() * 3;
            assert_eq!(shown.len(), expect, "step {step}: shown = wanted once settled");
        }
    }

    #[test]
    fn adaptive_far_drops_a_level_while_lagging_and_restores_it_when_idle() {
        let mut a = AdaptiveFar::new(3);
        assert_eq!(a.update(0.0, true, false), None);
        assert_eq!(a.update(1.0, true, false), None);
        assert_eq!(a.update(1.6, true, false), Some(2));
        assert_eq!(a.update(2.0, true, false), None, "one level per lag period");
        assert_eq!(a.update(3.2, true, false), Some(1));
        assert_eq!(a.update(9.0, true, false), None, "never below one level");
        // Catching up resets the lag clock; idle for five seconds restores a level at a time.
        assert_eq!(a.update(10.0, false, true), None);
        assert_eq!(a.update(14.9, false, true), None);
        assert_eq!(a.update(15.0, false, true), Some(2));
        assert_eq!(a.update(16.0, false, false), None);
        assert_eq!(a.update(17.0, false, true), None);
        assert_eq!(a.update(22.0, false, true), Some(3));
        assert_eq!(a.update(40.0, false, true), None, "never above the configured levels");
        assert_eq!(a.levels(), 3);
    }

    #[test]
    fn chunks_ahead_are_queued_before_chunks_behind() {
        let mean_dx = |dir: f64| {
            let mut s = streamer(4);
            s.set_view_direction([dir, 0.0, 0.0]);
            s.set_viewer([16.0, 0.0, 16.0]);
            let first = drain_until_ready(&mut s);
            let n = first.len() / 3;
            first[..n].iter().map(|r| r.coord.x as f64).sum::<f64>() / n as f64
        };
        let (east, west) = (mean_dx(1.0), mean_dx(-1.0));
        assert!(east > 0.5 && west < -0.5, "first third: mean chunk x {east} looking east, {west} looking west");
    }

    #[test]
    fn chunks_near_the_viewer_come_with_collision_and_others_on_request() {
        let mut s = streamer(3);
        s.set_viewer([16.0, 16.0, 16.0]);
        let results = drain_until_ready(&mut s);
        for r in &results {
            let d = r.coord.x.abs().max(r.coord.y.abs()).max(r.coord.z.abs());
            assert_eq!(r.collision.is_some(), d <= 2, "{:?}", r.coord);
        }
        let solid = results
            .iter()
            .find(|r| r.collision.as_ref().is_some_and(|f| !f.is_empty()))
            .expect("ground near the viewer");
        let parts = solid.collision.as_ref().unwrap();
        assert!(
            parts.triangles() < solid.mesh.opaque.indices.len() / 3,
            "collision has fewer triangles than the render mesh"
        );
        assert!(parts.parts().all(|p| p.len() % 3 == 0 && p.len() / 3 <= crate::mesh::COLLISION_PART_TRIANGLES));
        let far = results
            .iter()
            .find(|r| r.collision.is_none() && !r.mesh.is_empty())
            .expect("a meshed chunk without collision")
            .coord;
        s.request_collision(far);
        let updates = drain_until_ready(&mut s);
        let u = updates.iter().find(|r| r.coord == far).expect("the requested chunk came back");
        assert!(u.is_update && u.collision.is_some());
    }

    /// With `pack_surfaces`, every result carries its mesh as Godot's streams alone; when the
    /// caller hands each result's buffers back, later results built in those buffers are still
    /// exactly the chunk's own streams (nothing of an earlier, bigger chunk remains). With
    /// `shader_occlusion` the streams are merged without vertex AO and carry the occluder bits,
    /// the far columns' too.
    #[test]
    fn recycled_buffers_give_the_same_meshes_and_streams() {
        for shader_occlusion in [false, true] {
            recycled_buffers_give_the_same_streams(shader_occlusion);
        }
    }

    fn recycled_buffers_give_the_same_streams(shader_occlusion: bool) {
        let g = Arc::new(Generator::new(&WorldPreset::default()).unwrap());
        let mut s = Streamer::new(
            g.clone(),
            StreamConfig {
                view_distance: 3,
                vertical_view_distance: 1,
                worker_threads: 2,
                pack_surfaces: true,
                shader_occlusion,
                lod_levels: 1,
                ..Default::default()
            },
        )
        .unwrap();
        s.set_viewer([0.0, 20.0, 0.0]);
        let start = Instant::now();
        let (mut checked, mut far_checked) = (0, 0);
        let mut far_scratch = FarScratch::default();
        far_scratch.set_ambient_occlusion(!shader_occlusion);
        far_scratch.set_occluder_bits(shader_occlusion);
        far_scratch.set_shade_in_shader(shader_occlusion);
        while !s.is_area_ready() || far_checked < 4 {
            assert!(start.elapsed() < Duration::from_secs(60), "stream never became ready");
            s.pump();
            match s.try_recv() {
                Some(StreamResult::Near(r)) => {
                    let mut padded = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
                    g.generate_padded_chunk(r.coord, &mut padded);
                    let (mut alone, mut alone_bytes, mut mesher) =
                        (ChunkMesh::default(), MeshBytes::default(), Mesher::new());
                    mesher.set_ambient_occlusion(!shader_occlusion);
                    mesher.set_occluder_bits(shader_occlusion);
                    mesher.set_shade_in_shader(shader_occlusion);
                    mesher.mesh(&padded, &mut alone);
                    mesher.mesh_bytes(&padded, &mut alone_bytes);
                    assert_eq!(alone_bytes.occluders.is_empty(), !shader_occlusion || alone.is_empty());
                    // Packing, the workers write the streams alone.
                    assert!(r.mesh.is_empty(), "no vertex arrays for {:?}", r.coord);
                    assert_eq!(r.has_faces(), !alone.is_empty(), "faces of {:?}", r.coord);
                    if alone.is_empty() {
                        assert!(r.packed.is_none(), "no streams for {:?}", r.coord);
                    } else {
                        assert_eq!(r.packed.as_ref(), Some(&alone_bytes), "streams of {:?}", r.coord);
                        assert_eq!(r.opaque_triangle_corners(), alone.opaque.triangle_corners(), "{:?}", r.coord);
                        checked += 1;
                    }
                    s.recycle(r.mesh, r.packed);
                }
                Some(StreamResult::Far(r)) => {
                    let mut alone = FarMesh::default();
                    build_far_column(&g, r.far.column, &mut far_scratch, &mut alone);
                    let mut want = MeshBytes::from_mesh(&alone.mesh);
                    want.occluders = alone.occluders;
                    assert_eq!(want.occluders.is_empty(), !shader_occlusion || alone.mesh.is_empty());
                    // (Compared whole, but not printed: the streams run to tens of kilobytes.)
                    let same = r.packed.as_ref() == Some(&want);
                    assert!(same, "streams and occluder bits of far column {:?}", r.far.column);
                    far_checked += 1;
                    s.recycle(r.far.mesh, r.packed);
                }
                None => std::thread::sleep(Duration::from_millis(1)),
            }
        }
        assert!(checked > 10, "meshed chunks were compared ({checked})");
    }

    #[test]
    fn drop_joins_workers_mid_generation() {
        let mut s = streamer(6);
        s.set_viewer([0.0, 0.0, 0.0]);
        s.pump();
        drop(s); // must return: workers stop and are joined
    }
}
