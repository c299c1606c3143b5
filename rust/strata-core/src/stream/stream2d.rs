//! Streaming of side-view chunks: which chunks the viewer needs, and worker threads that
//! generate and autotile them.
//!
//! The pattern is [`crate::stream::streamer::Streamer`]'s, for square 2D chunks: the main thread calls
//! [`Streamer2D::set_viewer`] (tile coordinates), [`Streamer2D::pump`] (queues the nearest
//! missing chunks, at most `max_in_flight` at a time) and pulls [`ChunkResult2D`]s with
//! [`Streamer2D::try_recv`] while its frame budget lasts; it never blocks (law: Main thread never waits). The wanted
//! area is the square of chunks within `view_distance` of the viewer's chunk (Chebyshev
//! distance: screens are rectangles), loaded nearest first; chunks beyond
//! `view_distance + unload_margin` are unloaded. Jobs for chunks that left the view are
//! cancelled; stale results are dropped. Dropping the streamer cancels every job and joins every
//! worker.
//!
//! Several viewers ([`Streamer2D::set_extra_viewer`]) share one wanted set: the union of their
//! squares, each chunk queued by its distance to the nearest viewer, the memory budget split
//! evenly between them.
//!
//! Edits are an [`EditMap`] over tile `(x, y)` stored as voxel `(x, y, 0)`, so a save stores a 2D
//! world's edits exactly as a 3D world's. An edit re-tiles every loaded chunk whose padded box
//! (one-tile halo) contains the tile.
//!
//! Tiles are chosen by the config's [`TileRules`] (a block library's solidity and render modes):
//! the built-in rules unless the caller gives a library's.
//!
//! Light ([`StreamConfig2D::light`], [`Streamer2D::set_light`]): with a block table the worker
//! generates the chunk padded by the light's margin, walks its columns' sky exposure and lights
//! it ([`crate::stream::lighting2d`]), so a result carries its tiles and its light together. An
//! edit relights every loaded chunk its light can reach ([`LightEdit2D::chunks`], the column's
//! exposure before and after from [`crate::stream::lighting2d::column_exposure_2d`], remembered per column); those whose
//! tiles did not change come back with `tiles_changed` false, so the caller writes only their
//! light.
//!
//! Navigation ([`StreamConfig2D::navigation`], [`Streamer2D::set_navigation`]): chunks within the
//! navigation distance of a viewer (or asked for with [`Streamer2D::request_navigation`]) come
//! with their walker navigation, baked by the same job from the tiles it generated
//! ([`crate::stream::navigation2d`]); an edit re-bakes every loaded chunk whose bake reads the tile.
//!
//! May use: `base`, `preset`, `noise`, `automata`, `gen3d`, `gen2d`, `mesh`, `nav` and the other `stream` modules.

use crate::base::block::{self, BlockId};
use crate::base::coords::{IVec3, clamp_to_world};
use crate::base::edit_history::VoxelChange;
use crate::base::edits::EditMap;
use crate::gen2d::autotile::{AtlasCoords, TileRules, autotile_padded_with};
use crate::gen2d::spawns::SpawnPoint2D;
use crate::gen2d::{ChunkCoord2D, Generator2D};
use crate::light::LIGHT_REACH;
use crate::light::LightProps;
use crate::light::light2d::{LIGHT2D_SHELL, LightEdit2D, TileLightScratch};
use crate::nav::NavMesh2D;
use crate::stream::lighting2d::{
    COLUMN_EXPOSURE_SEARCH_DEPTH_2D, ChunkLight2D, EXPOSURE_SLAB_2D, edits_for_light_2d, light_box, light_chunk_tiles,
};
use crate::stream::navigation2d::{NavConfig2D, NavInput2D, bake_streamed_chunk_2d};
use crate::stream::scheduler::{Job, JobResult, MAX_WORKER_THREADS, Scheduler, SpawnError, auto_workers};
use crate::stream::spawns2d::chunk_spawns_2d;
use crate::stream::streamer::AppliedFlow;

/// Counters for the HUD and `get_stats()` (the second stage is light and autotiling).
pub type StreamStats2D = crate::stream::scheduler::StreamStats;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

/// The largest view distance of a side-view world, in chunks: a square of 33 × 33 chunks
/// (2,112 tiles a side at 64 tiles a chunk).
pub const MAX_VIEW_DISTANCE_2D: i32 = 16;

/// How far and how hard to stream. [`Streamer2D`] clamps every field into its documented range
/// ([`StreamConfig2D::clamped`]).
#[derive(Clone, Debug, PartialEq)]
pub struct StreamConfig2D {
    /// Chunks loaded on each side of the viewer's chunk (a square of `2·d + 1` chunks a side):
    /// 0..=[`MAX_VIEW_DISTANCE_2D`].
    pub view_distance: i32,
    /// Loaded chunks are unloaded only beyond `view_distance + unload_margin` (hysteresis):
    /// 0..=[`crate::stream::streamer::MAX_UNLOAD_MARGIN`].
    pub unload_margin: i32,
    /// Worker threads; 0 = one less than the machine's cores, at least two; at most
    /// [`crate::stream::scheduler::max_workers`].
    pub worker_threads: usize,
    /// Jobs out at once; 0 = follow the frame rate
    /// ([`crate::stream::scheduler::adaptive_max_in_flight`]); at most
    /// [`crate::stream::streamer::MAX_IN_FLIGHT`].
    pub max_in_flight: usize,
    /// Memory the loaded chunks may take, in MiB, as estimated with
    /// [`ESTIMATED_BYTES_PER_TILE_2D`] a tile (within
    /// [`crate::stream::streamer::MEMORY_BUDGET_MB_RANGE`]). When the view asked for would exceed
    /// it, the streamer shrinks the view distance (the nearest chunks stay) until the estimate of
    /// the whole kept set fits ([`Streamer2D::effective_view_distance`]).
    pub memory_budget_mb: u32,
    /// How blocks connect and which have a tile: [`TileRules::builtin`] (the default library's)
    /// unless a world's library gives its own.
    pub tile_rules: Arc<TileRules>,
    /// What each block does to light (a library's opacity and emission), or `None` for no light:
    /// results then carry no light.
    pub light: Option<Arc<LightProps>>,
    /// Walker navigation for the chunks near the viewers, or `None` for none: results within
    /// its distance then carry a navigation mesh.
    pub navigation: Option<Arc<NavConfig2D>>,
}

/// The memory a loaded tile is estimated to take: its block id and atlas cell on the way, and
/// the cell a `TileMapLayer` keeps for it (the bulk), rounded up.
pub const ESTIMATED_BYTES_PER_TILE_2D: u64 = 64;

/// Estimated memory of what stays loaded for view distance `r`, unload margin `margin` and
/// chunks of `chunk_tiles` tiles a side: the square of `2·(r + margin) + 1` chunks.
pub fn estimated_view_bytes_2d(r: i32, margin: i32, chunk_tiles: i32) -> u64 {
    let side = 2 * (r.max(0) as u64 + margin.max(0) as u64) + 1;
    let tiles = chunk_tiles.max(1) as u64;
    side * side * tiles * tiles * ESTIMATED_BYTES_PER_TILE_2D
}

/// The largest view distance up to `r` whose kept set fits `budget_mb` MiB by
/// [`estimated_view_bytes_2d`]; at least 0 (the viewer's own chunk is always wanted).
pub fn budgeted_view_distance_2d(r: i32, margin: i32, chunk_tiles: i32, budget_mb: u32) -> i32 {
    let budget = budget_mb as u64 * 1024 * 1024;
    (0..=r.max(0)).rev().find(|&d| estimated_view_bytes_2d(d, margin, chunk_tiles) <= budget).unwrap_or(0)
}

impl Default for StreamConfig2D {
    fn default() -> Self {
        Self {
            view_distance: 2,
            unload_margin: 1,
            worker_threads: 0,
            max_in_flight: 0,
            memory_budget_mb: 512,
            tile_rules: TileRules::builtin().clone(),
            light: None,
            navigation: None,
        }
    }
}

impl StreamConfig2D {
    /// The worker count this config resolves to on this machine.
    pub fn resolved_workers(&self) -> usize {
        auto_workers(self.worker_threads)
    }

    /// This config with every field in its documented range (out-of-range values clamped to
    /// the nearest bound).
    pub fn clamped(&self) -> Self {
        use crate::stream::streamer::{MAX_IN_FLIGHT, MAX_UNLOAD_MARGIN, MEMORY_BUDGET_MB_RANGE};
        Self {
            view_distance: self.view_distance.clamp(0, MAX_VIEW_DISTANCE_2D),
            unload_margin: self.unload_margin.clamp(0, MAX_UNLOAD_MARGIN),
            worker_threads: self.worker_threads.min(MAX_WORKER_THREADS),
            max_in_flight: self.max_in_flight.min(MAX_IN_FLIGHT),
            memory_budget_mb: self
                .memory_budget_mb
                .clamp(*MEMORY_BUDGET_MB_RANGE.start(), *MEMORY_BUDGET_MB_RANGE.end()),
            tile_rules: self.tile_rules.clone(),
            light: self.light.clone(),
            navigation: self.navigation.clone(),
        }
    }
}

/// A finished chunk: its tiles and the atlas tile of each, ready for `set_cell`.
#[derive(Debug)]
pub struct ChunkResult2D {
    pub coord: ChunkCoord2D,
    /// Block ids, `chunk_tiles²`, row by row from the top-left tile.
    pub tiles: Vec<BlockId>,
    /// Atlas tile per tile (same order); `None` for air.
    pub atlas: Vec<Option<AtlasCoords>>,
    pub gen_us: u32,
    pub tile_us: u32,
    /// True when this replaces an already loaded chunk (an edit was made): air tiles must be erased.
    pub is_update: bool,
    /// False for an update after an edit that changed none of its tiles or their edges (it was
    /// only relit): only its light is new.
    pub tiles_changed: bool,
    /// The chunk's light with the light on ([`StreamConfig2D::light`]).
    pub light: Option<ChunkLight2D>,
    /// Where the preset's spawn rules start objects in this chunk (from its generated tiles);
    /// empty for an update after an edit, whose spawns the first load gave.
    pub spawns: Vec<SpawnPoint2D>,
    /// The chunk's walker navigation, when the job baked it ([`StreamConfig2D::navigation`]);
    /// boxed, so a result waiting in a queue stays small.
    pub navigation: Option<Box<NavMesh2D>>,
    /// Microseconds the navigation bake took on the worker.
    pub nav_us: u32,
    job_id: u64,
}

impl ChunkResult2D {
    /// Whether no tile of the chunk shows anything.
    pub fn is_empty(&self) -> bool {
        self.atlas.iter().all(Option::is_none)
    }
}

impl JobResult<ChunkCoord2D> for ChunkResult2D {
    fn coord(&self) -> ChunkCoord2D {
        self.coord
    }
    fn job_id(&self) -> u64 {
        self.job_id
    }
    fn timings_us(&self) -> (u32, u32) {
        (self.gen_us, self.tile_us)
    }
}

/// Edits as a job carries them.
type Edits = Vec<(IVec3, BlockId)>;

/// What a worker needs besides the generator: the edits inside the chunk's padded box (with the
/// light on, inside its light box and above it), and the light table.
pub struct Payload2D {
    edits: Edits,
    light: Option<Arc<LightProps>>,
    /// The navigation to bake and the edits of its input box.
    navigation: Option<(Arc<NavConfig2D>, Edits)>,
}

/// Columns whose exposure [`Streamer2D`] remembers, at most: past this it forgets them all.
const EXPOSURE_MEMORY: usize = 1 << 16;

/// The main thread's side of 2D streaming.
pub struct Streamer2D {
    generator: Arc<Generator2D>,
    config: StreamConfig2D,
    chunk_tiles: i32,
    scheduler: Scheduler<ChunkCoord2D, Payload2D, ChunkResult2D>,
    /// Loaded chunks whose tiles an edit changed since their last job went out: their next
    /// result has `tiles_changed`.
    retile: HashSet<ChunkCoord2D>,
    /// Each column's exposure as the edits so far leave it, for the chunks an edit relights
    /// (found once by [`crate::stream::lighting2d::column_exposure_2d`], then kept up to date by every edit).
    exposure: FxHashMap<i32, i32>,
    edits: EditMap,
    /// The view distance in use: `config.view_distance`, or less within the memory budget.
    effective_view_distance: i32,
    /// The first viewer's chunk ([`Streamer2D::set_viewer`]).
    primary: Option<ChunkCoord2D>,
    /// Viewers besides the first, by the caller's id: chunk and view distance asked for.
    extra_viewers: BTreeMap<u64, (ChunkCoord2D, i32)>,
    /// The water flow thread, while flow is on ([`Streamer2D::set_water_flow`]), and a loaded
    /// save's flows held while it is off.
    water: crate::stream::water_runner::WaterSlot,
    /// Loaded chunks whose next job must bake navigation ([`Streamer2D::request_navigation`]).
    navigation_requested: HashSet<ChunkCoord2D>,
}

impl Streamer2D {
    /// Starts the worker threads. Fails only if the OS refuses to start a thread (with fewer
    /// threads than asked it runs with those it has).
    pub fn new(generator: Arc<Generator2D>, config: StreamConfig2D) -> Result<Self, SpawnError> {
        let config = config.clamped();
        let worker_generator = generator.clone();
        let worker_rules = config.tile_rules.clone();
        // Each worker keeps its light and navigation scratch between jobs.
        let scheduler = Scheduler::new(
            config.resolved_workers(),
            config.max_in_flight,
            "strata-2d-worker",
            <(TileLightScratch, NavInput2D)>::default,
            move |(scratch, nav): &mut (TileLightScratch, NavInput2D), job| {
                build_chunk(&worker_generator, &worker_rules, scratch, nav, job)
            },
        )?;
        let chunk_tiles = generator.chunk_tiles();
        let effective_view_distance = Self::budgeted(&config, chunk_tiles);
        Ok(Self {
            chunk_tiles,
            generator,
            config,
            scheduler,
            retile: HashSet::new(),
            exposure: FxHashMap::default(),
            edits: EditMap::new(),
            effective_view_distance,
            primary: None,
            extra_viewers: BTreeMap::new(),
            water: Default::default(),
            navigation_requested: HashSet::new(),
        })
    }

    pub fn generator(&self) -> &Arc<Generator2D> {
        &self.generator
    }

    pub fn config(&self) -> &StreamConfig2D {
        &self.config
    }

    /// Edge of a chunk, in tiles.
    pub fn chunk_tiles(&self) -> i32 {
        self.chunk_tiles
    }

    /// Changes the view distance (clamped to 0..=[`MAX_VIEW_DISTANCE_2D`]); takes effect at once,
    /// within the memory budget.
    pub fn set_view_distance(&mut self, chunks: i32) {
        self.config.view_distance = chunks.clamp(0, MAX_VIEW_DISTANCE_2D);
        self.apply_budget();
    }

    /// Changes the memory budget (MiB, clamped to
    /// [`crate::stream::streamer::MEMORY_BUDGET_MB_RANGE`]); a smaller one shrinks the view at once
    /// (the farthest chunks unload), a larger one lets it grow back to `view_distance`.
    pub fn set_memory_budget(&mut self, mb: u32) {
        self.config = StreamConfig2D { memory_budget_mb: mb, ..self.config.clone() }.clamped();
        self.apply_budget();
    }

    /// The view distance in use: `view_distance`, or less while the memory budget holds it back.
    pub fn effective_view_distance(&self) -> i32 {
        self.budgeted_share(self.effective_view_distance)
    }

    /// Estimated memory of the loaded chunks (those in the unload margin included), in bytes.
    pub fn memory_estimate_bytes(&self) -> u64 {
        let tiles = self.chunk_tiles.max(1) as u64;
        self.scheduler.loaded_count() as u64 * tiles * tiles * ESTIMATED_BYTES_PER_TILE_2D
    }

    fn budgeted(config: &StreamConfig2D, chunk_tiles: i32) -> i32 {
        budgeted_view_distance_2d(config.view_distance, config.unload_margin, chunk_tiles, config.memory_budget_mb)
    }

    /// The largest distance up to `r` that fits one viewer's even share of the memory budget.
    fn budgeted_share(&self, r: i32) -> i32 {
        let viewers = (self.primary.is_some() as u32 + self.extra_viewers.len() as u32).max(1);
        let c = &self.config;
        budgeted_view_distance_2d(r, c.unload_margin, self.chunk_tiles, c.memory_budget_mb / viewers)
    }

    /// Recomputes the view distance in use and the wanted set around the viewers.
    fn apply_budget(&mut self) {
        self.effective_view_distance = Self::budgeted(&self.config, self.chunk_tiles);
        self.retarget();
    }

    /// Moves the viewer to tile position `(x, y)` (fractional tiles allowed); recomputes the
    /// wanted set when its chunk changes.
    pub fn set_viewer(&mut self, x: f64, y: f64) {
        let clamp = |v: f64| {
            if v.is_finite() { v.floor().clamp(i32::MIN as f64 / 2.0, i32::MAX as f64 / 2.0) as i32 } else { 0 }
        };
        let c = ChunkCoord2D::containing(clamp(x), clamp(y), self.chunk_tiles);
        if self.primary != Some(c) {
            self.primary = Some(c);
            self.retarget();
        }
    }

    /// Adds or moves viewer `id` (any number the caller picks; the first viewer is
    /// [`Streamer2D::set_viewer`]'s) at tile position `(x, y)` with its own view distance
    /// (clamped to 0..=[`MAX_VIEW_DISTANCE_2D`]).
    pub fn set_extra_viewer(&mut self, id: u64, x: f64, y: f64, view_distance: i32) {
        let clamp = |v: f64| {
            if v.is_finite() { v.floor().clamp(i32::MIN as f64 / 2.0, i32::MAX as f64 / 2.0) as i32 } else { 0 }
        };
        let spot = (
            ChunkCoord2D::containing(clamp(x), clamp(y), self.chunk_tiles),
            view_distance.clamp(0, MAX_VIEW_DISTANCE_2D),
        );
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

    /// Loaded / wanted chunks of viewer `id`'s own square, in `[0, 1]` (a preloaded area's
    /// progress); None when there is no such viewer.
    pub fn extra_viewer_progress(&self, id: u64) -> Option<f64> {
        let (v, r) = *self.extra_viewers.get(&id)?;
        let r = self.budgeted_share(r);
        let (mut loaded, mut wanted) = (0usize, 0usize);
        for dy in -r..=r {
            for dx in -r..=r {
                let c = ChunkCoord2D::new(v.x + dx, v.y + dy);
                if self.scheduler.is_wanted(c) {
                    wanted += 1;
                    loaded += self.scheduler.is_loaded(c) as usize;
                }
            }
        }
        Some(if wanted == 0 { 0.0 } else { loaded as f64 / wanted as f64 })
    }

    /// The first viewer's chunk.
    pub fn viewer_chunk(&self) -> Option<ChunkCoord2D> {
        self.primary
    }

    /// Every viewer as `(chunk, view distance in use)`, the first viewer first.
    pub fn viewer_spots(&self) -> Vec<(ChunkCoord2D, i32)> {
        let mut spots: Vec<(ChunkCoord2D, i32)> =
            self.primary.map(|c| (c, self.budgeted_share(self.effective_view_distance))).into_iter().collect();
        spots.extend(self.extra_viewers.values().map(|&(c, r)| (c, self.budgeted_share(r))));
        spots
    }

    /// Makes the wanted set anew from every viewer: the union of their squares.
    fn retarget(&mut self) {
        let spots = self.viewer_spots();
        let Some(&(first, _)) = spots.first() else {
            if self.scheduler.viewer().is_some() {
                // The last viewer left: everything unloads.
                self.scheduler.retarget(ChunkCoord2D::new(0, 0), HashSet::new(), |_| false, |_| 0i64);
            }
            return;
        };
        let margin = self.config.unload_margin;
        let mut wanted = HashSet::new();
        for &(v, r) in &spots {
            wanted.extend((-r..=r).flat_map(|dy| (-r..=r).map(move |dx| ChunkCoord2D::new(v.x + dx, v.y + dy))));
        }
        let keep_spots = spots.clone();
        let keep = move |c: ChunkCoord2D| {
            keep_spots.iter().any(|&(v, r)| (c.x - v.x).abs() <= r + margin && (c.y - v.y).abs() <= r + margin)
        };
        self.scheduler.retarget(first, wanted, keep, move |c| {
            spots
                .iter()
                .map(|&(v, _)| {
                    let (dx, dy) = ((c.x - v.x) as i64, (c.y - v.y) as i64);
                    dx * dx + dy * dy
                })
                .min()
                .unwrap_or(0)
        });
    }

    /// What a job for chunk `c` needs: the edits in its padded box, or with the light on those
    /// of its light box and the columns above it, the light table, and the navigation to bake
    /// with the edits its bake reads.
    fn payload_for(
        edits: &EditMap,
        light: &Option<Arc<LightProps>>,
        navigation: Option<&Arc<NavConfig2D>>,
        c: ChunkCoord2D,
        n: i32,
    ) -> Payload2D {
        let job_edits = match light {
            Some(_) => {
                let (x, y, side) = light_box(c, n);
                edits_for_light_2d(edits, x, side, y + side)
            }
            None => {
                let (x, y) = c.min_tile(n);
                edits.edits_in_box(IVec3::new(x - 1, y - 1, 0), IVec3::new(n + 2, n + 2, 1))
            }
        };
        let navigation = navigation.map(|nav| (nav.clone(), nav.edits_for(edits, c, n)));
        Payload2D { edits: job_edits, light: light.clone(), navigation }
    }

    /// The navigation a job for chunk `c` bakes: the config's, when `c` is within its distance of
    /// a viewer in `spots` or `requested`.
    fn navigation_for<'a>(
        config: &'a StreamConfig2D,
        spots: &[(ChunkCoord2D, i32)],
        requested: bool,
        c: ChunkCoord2D,
    ) -> Option<&'a Arc<NavConfig2D>> {
        config.navigation.as_ref().filter(|nav| requested || nav.wants(spots.iter().map(|s| s.0), c))
    }

    /// Navigation baking from now on (`None`: none). Loaded chunks keep what they have; the
    /// caller asks for those it wants baked with [`Streamer2D::request_navigation`].
    pub fn set_navigation(&mut self, navigation: Option<Arc<NavConfig2D>>) {
        self.config.navigation = navigation;
        self.navigation_requested.clear();
    }

    /// Asks for a loaded chunk's navigation (it came within the navigation distance after it
    /// was built without, or navigation was turned on): the chunk is rebuilt on a worker and
    /// comes back as an update with it, its tiles unchanged. Nothing happens without
    /// [`StreamConfig2D::navigation`].
    pub fn request_navigation(&mut self, c: ChunkCoord2D) {
        if !self.is_loaded(c) || self.config.navigation.is_none() {
            return;
        }
        self.navigation_requested.insert(c);
        let spots = self.viewer_spots();
        let (edits, config, n) = (&self.edits, &self.config, self.chunk_tiles);
        self.scheduler.invalidate(c, || {
            Self::payload_for(edits, &config.light, Self::navigation_for(config, &spots, true, c), c, n)
        });
    }

    /// Sends jobs to the workers until `max_in_flight` are outstanding; edited chunks go first.
    pub fn pump(&mut self) {
        let spots = self.viewer_spots();
        let (edits, config, n) = (&self.edits, &self.config, self.chunk_tiles);
        let requested = &mut self.navigation_requested;
        self.scheduler.pump(|c| {
            let navigation = Self::navigation_for(config, &spots, requested.remove(&c), c);
            Self::payload_for(edits, &config.light, navigation, c, n)
        });
    }

    /// The next finished chunk, if one is ready; never blocks. Stale results are skipped.
    pub fn try_recv(&mut self) -> Option<ChunkResult2D> {
        let mut r = self.scheduler.try_recv()?;
        // A first load always writes its tiles; an update does when an edit changed them. A chunk
        // edited again since this job left keeps its mark for the rebuild that follows.
        let retile = match self.scheduler.is_dirty(&r.coord) {
            true => self.retile.contains(&r.coord),
            false => self.retile.remove(&r.coord),
        };
        r.tiles_changed = retile || !r.is_update;
        Some(r)
    }

    /// Chunks to remove from the scene since the last call.
    pub fn take_unloads(&mut self) -> Vec<ChunkCoord2D> {
        let unloads = self.scheduler.take_unloads();
        for c in &unloads {
            self.retile.remove(c);
        }
        unloads
    }

    /// Turns light on (a block table: a library's opacity and emission) or off; every loaded
    /// chunk is lit again (or comes back without light), its tiles unchanged.
    pub fn set_light(&mut self, light: Option<Arc<LightProps>>) {
        if self.config.light == light {
            return;
        }
        self.config.light = light;
        self.exposure.clear();
        let spots = self.viewer_spots();
        let (edits, config, n) = (&self.edits, &self.config, self.chunk_tiles);
        self.scheduler.invalidate_all_where(
            |_| true,
            |c| Self::payload_for(edits, &config.light, Self::navigation_for(config, &spots, false, c), c, n),
        );
    }

    /// The light table in use, when the light is on.
    pub fn light(&self) -> Option<&Arc<LightProps>> {
        self.config.light.as_ref()
    }

    /// True when every wanted chunk is loaded and no edit waits for re-tiling.
    pub fn is_area_ready(&self) -> bool {
        self.scheduler.is_area_ready()
    }

    /// Loaded chunks / wanted chunks, in `[0, 1]`.
    pub fn progress(&self) -> f64 {
        self.scheduler.progress()
    }

    pub fn is_loaded(&self, c: ChunkCoord2D) -> bool {
        self.scheduler.is_loaded(c)
    }

    pub fn loaded_chunks(&self) -> impl Iterator<Item = &ChunkCoord2D> {
        self.scheduler.loaded()
    }

    pub fn stats(&self) -> StreamStats2D {
        self.scheduler.stats()
    }

    /// The edits (tile `(x, y)` stored at voxel `(x, y, 0)`), for saves.
    pub fn edits(&self) -> &EditMap {
        &self.edits
    }

    /// Replaces all edits (loading a save); loaded chunks are re-tiled and pending flows are
    /// dropped.
    pub fn replace_edits(&mut self, edits: EditMap) {
        self.edits = edits;
        self.exposure.clear();
        self.water.reset(&self.edits);
        self.retile.extend(self.scheduler.loaded().copied());
        self.scheduler.invalidate_all_loaded();
    }

    /// Runs the flows a save kept again, as [`crate::stream::streamer::Streamer::restore_water_flows`].
    pub fn restore_water_flows(&mut self, pending: Vec<crate::stream::water_runner::PendingFlow>) {
        self.water.restore(&self.edits, pending);
    }

    /// The edits whose flow has not been applied yet, oldest first (what a save keeps).
    pub fn pending_water_flows(&self) -> Vec<crate::stream::water_runner::PendingFlow> {
        self.water.pending_flows()
    }

    /// Turns water flow after edits on or off, as [`crate::stream::streamer::Streamer::set_water_flow`]
    /// (rules in [`crate::stream::water_flow`], down is +y). Fails only if the OS refuses a thread.
    pub fn set_water_flow(&mut self, enabled: bool) -> std::io::Result<()> {
        use crate::stream::water_runner::{Generated2D, WaterRunner};
        let (generator, edits) = (&self.generator, &self.edits);
        self.water.set_enabled(enabled, edits, || {
            WaterRunner::new(Generated2D::new(generator.clone()), Default::default(), edits.clone())
        })
    }

    /// Applies the flows finished so far as edits, never waiting; returns how many tiles changed.
    pub fn apply_water_flow(&mut self) -> usize {
        self.apply_water_flow_changes().iter().map(|f| f.changes.len()).sum()
    }

    /// [`Streamer2D::apply_water_flow`], returning each flow with the ticket of the batch that
    /// caused it and every tile's edit entry before and after (what an undo step takes in), as
    /// [`crate::stream::streamer::Streamer::apply_water_flow_changes`]. All flows of a call are
    /// written as one batch: each chunk they touch is re-tiled once.
    pub fn apply_water_flow_changes(&mut self) -> Vec<AppliedFlow> {
        let finished = self.water.take_finished();
        let mut out = Vec::with_capacity(finished.len());
        let mut all: Vec<(IVec3, Option<BlockId>)> = Vec::new();
        // Tiles written by earlier flows of this call: a later flow's `before`.
        let mut written: HashMap<IVec3, BlockId> = HashMap::new();
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
        // Flow results start no flow of their own: the flow thread already holds them.
        self.write_tiles(&all);
        out
    }

    /// The ticket of the last edit batch submitted to the flow thread (`None` with flow off):
    /// [`Streamer2D::apply_water_flow_changes`] names each flow by it.
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

    /// Chunks whose padded box (one-tile halo) contains tile `(x, y)`: those to re-tile after an edit.
    pub fn chunks_touching(&self, x: i32, y: i32) -> Vec<ChunkCoord2D> {
        let n = self.chunk_tiles;
        let mut out = Vec::with_capacity(4);
        for cy in (y - 1).div_euclid(n)..=(y + 1).div_euclid(n) {
            for cx in (x - 1).div_euclid(n)..=(x + 1).div_euclid(n) {
                out.push(ChunkCoord2D::new(cx, cy));
            }
        }
        out
    }

    /// Records an edit; every loaded chunk that shows tile `(x, y)` or its edge is re-tiled.
    pub fn set_tile(&mut self, x: i32, y: i32, id: BlockId) {
        self.edit_tiles(&[(IVec3::new(x, y, 0), Some(id))]);
    }

    /// Records many edits (tile `(x, y)` at voxel `(x, y, 0)`) as one batch, `None` removing the
    /// edit at a tile (the generated tile shows again: what undo and redo write, so that the edit
    /// map ends exactly as it was). Each loaded chunk the batch can change is re-tiled or relit
    /// once, not once per tile, and each edited column's exposure is walked at most once; the
    /// flow thread then runs the batch's water flow.
    pub fn edit_tiles(&mut self, batch: &[(IVec3, Option<BlockId>)]) {
        let changes = batch_changes(&self.edits, batch);
        self.write_tiles(batch);
        self.water.submit(&changes, true);
    }

    /// [`Streamer2D::edit_tiles`] for a batch whose water is already part of it (an undo or a
    /// redo that puts back what an edit and its flow did): the flow thread writes it in order
    /// but runs no flow after it.
    pub fn replay_tiles(&mut self, batch: &[(IVec3, Option<BlockId>)]) {
        let changes = batch_changes(&self.edits, batch);
        self.write_tiles(batch);
        self.water.submit(&changes, false);
    }

    /// Writes the batch into the edits, re-tiles the loaded chunks that show its tiles and
    /// relights those its light reaches, without telling the flow thread. With light, each
    /// edited column's exposure is taken before (remembered or walked) and, when an edit at or
    /// above it could move it, walked again after.
    fn write_tiles(&mut self, batch: &[(IVec3, Option<BlockId>)]) {
        if batch.is_empty() {
            return;
        }
        // Per edited column: the lowest and highest edited row.
        let mut columns: FxHashMap<i32, (i32, i32)> = FxHashMap::default();
        for &(p, _) in batch {
            let e = columns.entry(p.x).or_insert((p.y, p.y));
            *e = (e.0.min(p.y), e.1.max(p.y));
        }
        let light = self.config.light.clone();
        let xs: Vec<i32> = columns.keys().copied().collect();
        let before: FxHashMap<i32, i32> = match &light {
            Some(props) => self.column_exposures(props, &xs),
            None => FxHashMap::default(),
        };
        let n = self.chunk_tiles;
        let mut touched: FxHashSet<ChunkCoord2D> = FxHashSet::default();
        // The chunk of the tile before, with its neighbours' chunks added only for a tile on a
        // chunk's edge (a tile inside a chunk touches that chunk alone): a batch's tiles come in
        // runs of one chunk.
        let mut last_chunk = None;
        for &(p, id) in batch {
            match id {
                Some(id) => self.edits.set(p, id),
                None => self.edits.clear_at(p),
            }
            let (lx, ly) = (p.x.rem_euclid(n), p.y.rem_euclid(n));
            if lx == 0 || ly == 0 || lx == n - 1 || ly == n - 1 {
                touched.extend(self.chunks_touching(p.x, p.y));
            } else {
                let c = ChunkCoord2D::new(p.x.div_euclid(n), p.y.div_euclid(n));
                if last_chunk != Some(c) {
                    touched.insert(c);
                    last_chunk = Some(c);
                }
            }
        }
        self.retile.extend(touched.iter().copied());
        if let Some(nav) = &self.config.navigation {
            for &(p, _) in batch {
                touched.extend(nav.chunks_touching(p.x, p.y, n));
            }
        }
        if let Some(props) = &light {
            // Only an edit at or above a column's exposure tile can move it: those are walked
            // again, together.
            let moved: Vec<i32> = columns.iter().filter(|(x, (y0, _))| *y0 <= before[*x]).map(|(x, _)| *x).collect();
            for x in &moved {
                self.exposure.remove(x);
            }
            let after = self.column_exposures(props, &moved);
            for (&x, &(y0, y1)) in &columns {
                let exposure_before = before[&x];
                let exposure_after = after.get(&x).copied().unwrap_or(exposure_before);
                touched.extend(light_chunks_of_column(x, (y0, y1), (exposure_before, exposure_after), n));
            }
        }
        let mut touched: Vec<ChunkCoord2D> = touched.into_iter().collect();
        touched.sort_unstable();
        let spots = self.viewer_spots();
        let (edits, config) = (&self.edits, &self.config);
        for c in touched {
            self.scheduler.invalidate(c, || {
                Self::payload_for(edits, &config.light, Self::navigation_for(config, &spots, false, c), c, n)
            });
        }
    }

    /// The exposure of each column of `xs` as the edits so far leave it: remembered, or walked
    /// once, the columns not remembered together ([`column_exposures_2d`]).
    fn column_exposures(&mut self, props: &LightProps, xs: &[i32]) -> FxHashMap<i32, i32> {
        let mut out: FxHashMap<i32, i32> = FxHashMap::with_capacity_and_hasher(xs.len(), Default::default());
        let mut walk = Vec::new();
        for &x in xs {
            match self.exposure.get(&x) {
                Some(&e) => {
                    out.insert(x, e);
                }
                None => walk.push(x),
            }
        }
        if walk.is_empty() {
            return out;
        }
        if self.exposure.len() + walk.len() > EXPOSURE_MEMORY {
            self.exposure.clear();
        }
        for (x, e) in column_exposures_2d(&self.generator, Some(&self.edits), props, &walk) {
            self.exposure.insert(x, e);
            out.insert(x, e);
        }
        out
    }

    /// The tile at `(x, y)`: the edit if there is one, else the generated tile.
    pub fn tile(&self, x: i32, y: i32) -> BlockId {
        tile_with_edits(&self.generator, Some(&self.edits), x, y)
    }
}

/// [`crate::stream::lighting2d::column_exposure_2d`] of every column of `xs`, equal to it column by column: neighbouring
/// columns are walked together, a slab of [`EXPOSURE_SLAB_2D`] rows generated once for a run of
/// them rather than once for each (what a wide edit's columns cost on the main thread).
pub fn column_exposures_2d(
    generator: &Generator2D,
    edits: Option<&EditMap>,
    props: &LightProps,
    xs: &[i32],
) -> Vec<(i32, i32)> {
    let mut sorted: Vec<i32> = xs.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    if !props.is_clear(block::AIR) {
        return sorted.into_iter().map(|x| (x, i32::MIN)).collect();
    }
    // The walk of a column beyond the world's bounds is the nearest column's inside.
    let mut clamped: Vec<i32> = sorted.iter().map(|&x| clamp_to_world(x)).collect();
    clamped.dedup();
    let mut found: HashMap<i32, i32> = HashMap::with_capacity(clamped.len());
    let mut i = 0;
    while i < clamped.len() {
        let mut j = i + 1;
        while j < clamped.len() && clamped[j] == clamped[j - 1] + 1 {
            j += 1;
        }
        exposures_of_run(generator, edits, props, clamped[i], (j - i) as i32, &mut found);
        i = j;
    }
    sorted.into_iter().map(|x| (x, found[&clamp_to_world(x)])).collect()
}

/// The exposures of columns `x0..x0 + width` into `found`: each column's walk starts as
/// [`crate::stream::lighting2d::column_exposure_2d`]'s does and stops at the same row; the slabs are generated for the whole
/// run, from the highest start of a column still open.
fn exposures_of_run(
    generator: &Generator2D,
    edits: Option<&EditMap>,
    props: &LightProps,
    x0: i32,
    width: i32,
    found: &mut HashMap<i32, i32>,
) {
    let profile = generator.profile(x0, width);
    // Per column: the row its walk starts at and the row it stops at when nothing stops the sky.
    let mut open: Vec<(i32, i32, i32)> = (x0..x0 + width)
        .map(|x| {
            let mut y = profile.top_at(x);
            if let Some(e) = edits {
                for (p, id) in e.edits_in_column(x, 0) {
                    if !props.is_clear(id) && p.y < y {
                        y = p.y;
                    }
                }
            }
            (x, y, y.saturating_add(COLUMN_EXPOSURE_SEARCH_DEPTH_2D))
        })
        .collect();
    while let Some(top) = open.iter().map(|c| c.1).min() {
        let slab = generator.generate_region(x0, top, width, EXPOSURE_SLAB_2D);
        let end = top.saturating_add(EXPOSURE_SLAB_2D);
        open.retain_mut(|(x, y, floor)| {
            while *y < end.min(*floor) {
                let id =
                    edits.and_then(|e| e.get(IVec3::new(*x, *y, 0))).or_else(|| slab.get(*x, *y)).unwrap_or(block::AIR);
                if !props.is_clear(id) {
                    found.insert(*x, *y);
                    return false;
                }
                *y += 1;
            }
            if *y >= *floor {
                found.insert(*x, *floor);
                return false;
            }
            true
        });
    }
}

/// The chunks whose light an edit of rows `y0..=y1` of column `x` can change, its exposure going
/// from `before` to `after`: [`LightEdit2D::chunks`] of the lowest and the highest edit, and every
/// chunk within light's reach of the rows between them (which neither end's reach may cover).
fn light_chunks_of_column(x: i32, (y0, y1): (i32, i32), (before, after): (i32, i32), n: i32) -> Vec<ChunkCoord2D> {
    let edit = |y| LightEdit2D { x, y, exposure_before: before, exposure_after: after };
    let mut out: Vec<ChunkCoord2D> =
        [edit(y0), edit(y1)].iter().flat_map(|e| e.chunks(n)).map(|(cx, cy)| ChunkCoord2D::new(cx, cy)).collect();
    let n = n.max(1);
    let reach = LIGHT_REACH + LIGHT2D_SHELL;
    let (cx0, cx1) = ((x - reach).div_euclid(n), (x + reach).div_euclid(n));
    for cy in y0.div_euclid(n)..=y1.div_euclid(n) {
        out.extend((cx0..=cx1).map(|cx| ChunkCoord2D::new(cx, cy)));
    }
    out
}

/// The changes writing `batch` over `edits` makes: each tile's edit entry before and after, in
/// order; a tile named twice takes the first write's result as the second's `before`.
pub fn batch_changes(edits: &EditMap, batch: &[(IVec3, Option<BlockId>)]) -> Vec<VoxelChange> {
    let mut seen: FxHashMap<IVec3, Option<BlockId>> =
        FxHashMap::with_capacity_and_hasher(batch.len(), Default::default());
    batch
        .iter()
        .map(|&(pos, after)| {
            let before = seen.get(&pos).copied().unwrap_or_else(|| edits.get(pos));
            seen.insert(pos, after);
            VoxelChange { pos, before, after }
        })
        .collect()
}

/// The tile at `(x, y)` with `edits` applied over the generated world.
pub fn tile_with_edits(generator: &Generator2D, edits: Option<&EditMap>, x: i32, y: i32) -> BlockId {
    edits.and_then(|e| e.get(IVec3::new(x, y, 0))).unwrap_or_else(|| generator.tile_at(x, y))
}

/// Row of the topmost solid tile of column `x`, edits included: edits above the generated surface
/// count, and a dug-out surface is followed down (at most 512 tiles). Solid as the built-in
/// blocks are.
pub fn top_solid_row(generator: &Generator2D, edits: Option<&EditMap>, x: i32) -> i32 {
    top_solid_row_with(generator, edits, x, &|id| block::is_solid(id))
}

/// [`top_solid_row`] with solidity from `is_solid` (a block library's).
pub fn top_solid_row_with(
    generator: &Generator2D,
    edits: Option<&EditMap>,
    x: i32,
    is_solid: &dyn Fn(BlockId) -> bool,
) -> i32 {
    // A column beyond the world's bounds answers as the nearest column inside.
    let x = crate::base::coords::clamp_to_world(x);
    // A structure standing on the ground (a hut's roof) is above the surface line.
    let mut top = generator.surface_row(x).min(generator.profile(x, 1).top_at(x));
    if let Some(e) = edits {
        for (p, id) in e.edits_in_column(x, 0) {
            // `edits_in_column` scans (x, z) = (x, 0): every edited tile of this column.
            if is_solid(id) && p.y < top {
                top = p.y;
            }
        }
    }
    let column = generator.generate_region(x, top, 1, 512);
    let tile =
        |y: i32| edits.and_then(|e| e.get(IVec3::new(x, y, 0))).or_else(|| column.get(x, y)).unwrap_or(block::STONE);
    let mut y = top;
    while y < top + 512 && !is_solid(tile(y)) {
        y += 1;
    }
    y
}

/// The worker's job: generate the padded chunk (with the light on, its light box), apply edits,
/// light it, choose every tile's atlas tile, bake its navigation when asked.
fn build_chunk(
    generator: &Generator2D,
    rules: &TileRules,
    scratch: &mut TileLightScratch,
    nav_input: &mut NavInput2D,
    job: Job<ChunkCoord2D, Payload2D>,
) -> Option<ChunkResult2D> {
    let t0 = Instant::now();
    let n = generator.chunk_tiles();
    let (x, y) = job.coord.min_tile(n);
    let mut above = HashMap::new();
    let mut generated = match &job.payload.light {
        Some(_) => {
            let (bx, by, side) = light_box(job.coord, n);
            generator.generate_region(bx, by, side, side)
        }
        None => generator.generate_padded_chunk(job.coord),
    };
    // Spawns from the generated tiles, before the edits (a first load only: an update keeps them).
    let spawns = if job.is_update {
        Vec::new()
    } else {
        chunk_spawns_2d(generator, job.coord, &generated, job.payload.light.as_deref().map(|p| (p, &mut *scratch)))
    };
    for &(p, id) in &job.payload.edits {
        if p.y >= generated.min_y {
            generated.set(p.x, p.y, id);
        } else {
            above.insert((p.x, p.y), id);
        }
    }
    let gen_us = t0.elapsed().as_micros() as u32;
    if job.is_cancelled() {
        return None;
    }
    let t1 = Instant::now();
    // A light error would be a wrong box size, which `light_box` rules out: then no light.
    let light = job
        .payload
        .light
        .as_ref()
        .and_then(|props| light_chunk_tiles(generator, job.coord, &generated, &above, props, scratch).ok());
    // A bake error would be settings out of range, which the config's makers rule out: then no
    // navigation.
    let (navigation, nav_us) = match &job.payload.navigation {
        Some((config, edits)) => {
            let (mesh, us) = bake_streamed_chunk_2d(generator, job.coord, &generated, edits, config, nav_input);
            (mesh.ok().map(Box::new), us)
        }
        None => (None, 0),
    };
    let padded = if job.payload.light.is_some() { generated.crop(x - 1, y - 1, n + 2, n + 2) } else { generated };
    let atlas = autotile_padded_with(&padded, rules);
    let tiles = padded.crop(x, y, n, n).tiles;
    let tile_us = t1.elapsed().as_micros() as u32;
    Some(ChunkResult2D {
        coord: job.coord,
        tiles,
        atlas,
        gen_us,
        tile_us,
        is_update: job.is_update,
        tiles_changed: true,
        light,
        spawns,
        navigation,
        nav_us,
        job_id: job.id,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::preset::model::WorldPreset;
    use std::time::Duration;

    /// Pumps and takes results until the streamer's area is ready (at most a minute).
    pub(crate) fn drain_until_ready(s: &mut Streamer2D) -> Vec<ChunkResult2D> {
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

    /// A cottage's roof is the top of its columns for every walk from the sky: the surface
    /// query, the light's exposure (one column and a run of them) agree on it.
    #[test]
    fn a_structure_roof_is_the_top_of_its_columns() {
        use crate::preset::model::{StructurePlacement, StructureRule};
        let mut p = WorldPreset { seed: 7, ..WorldPreset::default() };
        p.structures.rules = vec![StructureRule {
            structure: "cottage".into(),
            placement: StructurePlacement::Surface,
            spacing: 24,
            chance: 1.0,
            sink: 1,
            ..StructureRule::default()
        }];
        let g = Generator2D::new(&p).unwrap();
        let q = g.structures_in(0, 1_000).into_iter().next().expect("a cottage");
        let x = q.min_x + q.width / 2;
        assert!(q.min_y < g.surface_row(x));
        assert_eq!(top_solid_row(&g, None, x), q.min_y);
        let props = LightProps::from_library(crate::base::block_library::default_library());
        assert_eq!(crate::stream::lighting2d::column_exposure_2d(&g, None, &props, x), q.min_y);
        let run = column_exposures_2d(&g, None, &props, &[x - 1, x, x + 1]);
        assert_eq!(run[1], (x, q.min_y));
    }

    fn streamer(vd: i32) -> Streamer2D {
        let g = Arc::new(Generator2D::new(&WorldPreset::default()).unwrap());
        Streamer2D::new(g, StreamConfig2D { view_distance: vd, worker_threads: 2, ..Default::default() }).unwrap()
    }

    #[test]
    fn several_viewers_load_the_union_of_their_squares() {
        let g = Arc::new(Generator2D::new(&WorldPreset::default()).unwrap());
        let mut s =
            Streamer2D::new(g, StreamConfig2D { view_distance: 1, worker_threads: 1, ..Default::default() }).unwrap();
        let n = s.chunk_tiles() as f64;
        s.set_viewer(0.5, 0.5);
        s.set_extra_viewer(3, 10.0 * n, -4.0 * n, 2);
        let start = Instant::now();
        while !s.is_area_ready() {
            assert!(start.elapsed().as_secs() < 60, "never ready");
            s.pump();
            if s.try_recv().is_none() {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        }
        let square = |x: i32, y: i32, r: i32| -> HashSet<ChunkCoord2D> {
            (-r..=r).flat_map(|dy| (-r..=r).map(move |dx| ChunkCoord2D::new(x + dx, y + dy))).collect()
        };
        let (a, b) = (square(0, 0, 1), square(10, -4, 2));
        let loaded: HashSet<ChunkCoord2D> = s.loaded_chunks().copied().collect();
        assert_eq!(loaded, a.union(&b).copied().collect::<HashSet<_>>());
        assert_eq!(s.extra_viewer_progress(3), Some(1.0));
        assert!(s.remove_extra_viewer(3));
        let unloaded: HashSet<ChunkCoord2D> = s.take_unloads().into_iter().collect();
        assert_eq!(unloaded, b.difference(&a).copied().collect::<HashSet<_>>());
    }

    #[test]
    fn fills_the_square_nearest_first_then_unloads_behind() {
        let mut s = streamer(1);
        s.set_viewer(10.0, 10.0);
        let first = drain_until_ready(&mut s);
        assert_eq!(first.len(), 9);
        assert_eq!(s.stats().loaded_chunks, 9);
        assert!(first.iter().all(|r| r.tiles.len() == 64 * 64 && r.atlas.len() == 64 * 64));
        s.set_viewer(64.0 * 10.0, 10.0);
        let unloads = s.take_unloads();
        assert_eq!(unloads.len(), 9, "all old chunks are beyond view + margin");
        drain_until_ready(&mut s);
        assert!(s.is_loaded(ChunkCoord2D::new(11, 1)) && !s.is_loaded(ChunkCoord2D::new(0, 0)));
    }

    #[test]
    fn edits_retile_every_chunk_whose_halo_holds_the_tile() {
        let mut s = streamer(1);
        s.set_viewer(0.0, 0.0);
        drain_until_ready(&mut s);
        assert_eq!(s.chunks_touching(0, 5).len(), 2);
        assert_eq!(s.chunks_touching(63, 63).len(), 4);
        let row = s.generator().surface_row(63);
        s.set_tile(63, row - 3, block::STONE);
        let updates = drain_until_ready(&mut s);
        let coords: HashSet<ChunkCoord2D> = updates.iter().filter(|r| r.is_update).map(|r| r.coord).collect();
        for c in s.chunks_touching(63, row - 3) {
            assert!(coords.contains(&c), "{c:?} was not re-tiled");
        }
        assert_eq!(s.tile(63, row - 3), block::STONE);
    }

    #[test]
    fn a_batch_retiles_exactly_the_chunks_whose_halo_holds_one_of_its_tiles() {
        let mut s = streamer(1);
        s.set_viewer(0.0, 0.0);
        drain_until_ready(&mut s);
        // Rows inside one chunk row, columns across the border at x = 0 and its edge columns,
        // and a row on the chunk row's lower edge: interior tiles and edge tiles in one batch.
        let row = s.generator().surface_row(0) - 3;
        let batch: Vec<(IVec3, Option<BlockId>)> = (-70..70)
            .flat_map(|x| [(x, row), (x, row - 1), (x, 63)])
            .map(|(x, y)| (IVec3::new(x, y, 0), Some(block::STONE)))
            .collect();
        let mut expected: HashSet<ChunkCoord2D> = HashSet::new();
        for (p, _) in &batch {
            expected.extend(s.chunks_touching(p.x, p.y).into_iter().filter(|c| s.is_loaded(*c)));
        }
        s.edit_tiles(&batch);
        let updates = drain_until_ready(&mut s);
        let retiled: HashSet<ChunkCoord2D> =
            updates.iter().filter(|r| r.is_update && r.tiles_changed).map(|r| r.coord).collect();
        assert_eq!(retiled, expected);
    }

    #[test]
    fn an_edit_made_while_a_rebuild_is_out_is_written_by_the_rebuild_after_it() {
        // The node pumps, then applies water flows (edits), then takes results: a result that
        // left before the second edit comes back while the chunk is dirty again, and the rebuild
        // after it must still be written to the layer, or the layer keeps the older tiles.
        let mut s = streamer(1);
        s.set_viewer(0.0, 0.0);
        drain_until_ready(&mut s);
        let n = s.chunk_tiles;
        let x = n / 2;
        // Below the surface, two tiles or more from the chunk's top and bottom rows.
        let y = s.generator().surface_row(x) + 3;
        let y = y - y.rem_euclid(n) + y.rem_euclid(n).clamp(2, n - 3);
        let c = ChunkCoord2D::containing(x, y, n);
        assert_eq!(s.chunks_touching(x, y), vec![c], "an inner tile of one chunk");
        s.set_tile(x, y, block::STONE);
        s.pump();
        s.set_tile(x + 1, y, block::STONE);
        let start = Instant::now();
        let first = loop {
            assert!(start.elapsed() < Duration::from_secs(60), "the first rebuild never came back");
            match s.try_recv() {
                Some(r) if r.coord == c => break r,
                Some(_) => {}
                None => std::thread::sleep(Duration::from_millis(1)),
            }
        };
        assert!(first.tiles_changed, "the first rebuild is written");
        let updates = drain_until_ready(&mut s);
        let last = updates.iter().rev().find(|r| r.coord == c).expect("the chunk is rebuilt again");
        assert!(last.tiles_changed, "the rebuild with the second edit is written to the layer too");
        let (x0, y0) = c.min_tile(n);
        let at = |x: i32, y: i32| last.tiles[((y - y0) * n + (x - x0)) as usize];
        assert_eq!((at(x, y), at(x + 1, y)), (block::STONE, block::STONE));
    }

    #[test]
    fn the_memory_budget_shrinks_the_view_keeping_the_nearest_chunks() {
        // 64-tile chunks: view 16 with margin 1 keeps 35² chunks ≈ 306 MiB by the estimate.
        assert_eq!(budgeted_view_distance_2d(16, 1, 64, 1024), 16);
        let d = budgeted_view_distance_2d(16, 1, 64, 64);
        assert!(estimated_view_bytes_2d(d, 1, 64) <= 64 << 20 && estimated_view_bytes_2d(d + 1, 1, 64) > 64 << 20);
        assert_eq!(d, 6, "15² chunks of 64² tiles at 64 bytes fit 64 MiB, 17² do not");
        assert_eq!(budgeted_view_distance_2d(16, 1, 4096, 64), 0, "at least the viewer's chunk");
        assert_eq!(StreamConfig2D { memory_budget_mb: 1, ..Default::default() }.clamped().memory_budget_mb, 64);

        let mut s = streamer(8);
        s.set_viewer(0.0, 0.0);
        drain_until_ready(&mut s);
        assert_eq!(s.effective_view_distance(), 8);
        assert_eq!(s.stats().loaded_chunks, 17 * 17);
        s.set_memory_budget(64);
        assert_eq!(s.effective_view_distance(), 6);
        let unloads = s.take_unloads();
        assert_eq!(unloads.len(), 17 * 17 - 15 * 15, "beyond view + margin unloads, the margin stays");
        assert!(unloads.iter().all(|c| c.x.abs().max(c.y.abs()) > 7));
        drain_until_ready(&mut s);
        assert!(s.memory_estimate_bytes() <= 64 << 20, "{}", s.memory_estimate_bytes());
        s.set_memory_budget(1024);
        assert_eq!(s.effective_view_distance(), 8);
        drain_until_ready(&mut s);
        assert_eq!(s.stats().loaded_chunks, 17 * 17);
    }

    #[test]
    fn tiles_follow_the_library_rules() {
        use crate::base::block_library::{BlockDef, BlockLibrary, default_library};
        let mut blocks = default_library().clone().into_blocks();
        blocks.push(BlockDef { name: "marble".into(), ..blocks[block::STONE as usize].clone() });
        let lib = BlockLibrary::new(blocks).unwrap();
        let marble = lib.id_of("marble").unwrap();
        let g = Arc::new(Generator2D::new(&WorldPreset::default()).unwrap());
        let row = g.surface_row(5);
        let config = |rules: Arc<TileRules>| StreamConfig2D {
            view_distance: 0,
            worker_threads: 1,
            tile_rules: rules,
            ..Default::default()
        };
        let tile_of = |rules: Arc<TileRules>| {
            let mut s = Streamer2D::new(g.clone(), config(rules)).unwrap();
            s.set_tile(5, row - 3, marble);
            s.set_viewer(5.0, (row - 3) as f64);
            let got = drain_until_ready(&mut s);
            let r = got.iter().find(|r| r.coord == ChunkCoord2D::containing(5, row - 3, 64)).unwrap();
            let (x0, y0) = r.coord.min_tile(64);
            let i = ((row - 3 - y0) * 64 + (5 - x0)) as usize;
            (r.tiles[i], r.atlas[i])
        };
        assert_eq!(
            tile_of(Arc::new(TileRules::from_library(&lib))),
            (marble, Some(AtlasCoords { column: 0, row: marble }))
        );
        assert_eq!(tile_of(TileRules::builtin().clone()), (marble, None), "no tile past the built-in library");
        let solid = TileRules::from_library(&lib);
        let mut edits = EditMap::new();
        edits.set(IVec3::new(5, row - 9, 0), marble);
        assert_eq!(top_solid_row_with(&g, Some(&edits), 5, &|id| solid.is_solid(id)), row - 9);
        assert_eq!(top_solid_row(&g, Some(&edits), 5), row - 9, "unknown ids count as solid built-in");
    }

    #[test]
    fn drop_joins_workers_mid_generation() {
        let mut s = streamer(4);
        s.set_viewer(0.0, 0.0);
        s.pump();
        drop(s);
    }

    #[test]
    fn columns_walked_together_find_each_columns_own_exposure() {
        use crate::light::LightProps;
        use crate::stream::lighting2d::column_exposure_2d;
        let props = LightProps::default_blocks();
        for seed in [1u64, 7, 2024] {
            let preset = WorldPreset { seed, ..WorldPreset::default() };
            let g = Generator2D::new(&preset).unwrap();
            let mut edits = EditMap::new();
            // A shaft dug from the surface, stone hung in the sky, a hole under a pool's edge.
            for y in -5..40 {
                edits.set(IVec3::new(3, g.surface_row(3) + y, 0), block::AIR);
            }
            edits.set(IVec3::new(-20, -400, 0), block::STONE);
            edits.set(IVec3::new(40, g.surface_row(40), 0), block::AIR);
            // Columns near the start, far out, and the last ones a side-view world streams
            // (±1,073,741,823 tiles, the nodes' bounds).
            let edge = 1_073_741_823;
            let xs: Vec<i32> = (-70..70).chain([500, 9000, edge, -edge]).collect();
            for e in [None, Some(&edits)] {
                let together = column_exposures_2d(&g, e, &props, &xs);
                assert_eq!(together.len(), xs.len());
                for (x, got) in together {
                    assert_eq!(got, column_exposure_2d(&g, e, &props, x), "seed {seed}, column {x}");
                }
            }
        }
    }
}
