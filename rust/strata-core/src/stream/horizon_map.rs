//! The horizon map: a coarse height field of the land around the viewer, for sun shadows beyond
//! the reach of the sun's shadow maps.
//!
//! Shadow maps lose the shadows of distant mountains: their last cascade's texels are metres
//! wide, and a ridge a few voxels above the line to the sun falls between them. The block shaders
//! therefore also march each distant fragment's line to the sun over this map (one height every
//! [`TEXEL_VOXELS`] voxels, the generator's continuous ground height at the texel's centre) and
//! darken it where the land rises above the line: mountains shade valleys at every distance, at
//! any time of day, whichever way the sun stands, for a few texture reads a step.
//!
//! The map is a square window of [`HorizonTile`]s ([`TILE_VOXELS`] on a side) around the viewer,
//! kept in a ring: tile `(x, z)` lives in layer `x mod slots + slots · (z mod slots)` of a texture
//! array, so moving the viewer replaces only the tiles that leave the window. Each layer carries
//! a header texel naming its tile ([`tile_id`]); a shader reading a layer whose header names
//! another tile (not built yet, or left behind) treats that ground as unknown, never as another
//! place's heights. One worker thread of idle priority builds tiles nearest-first; the caller's
//! thread only takes finished ones (law: Main thread never waits). A tile is a pure function of
//! the generator and its coordinates (law: Deterministic), and a texel means the same ground
//! whichever tile or window holds it (law: Seamless).
//!
//! The ring of tiles and its worker serve other maps of the land around the viewer too: a
//! [`HorizonMapper`] made [`HorizonMapper::with_builder`] builds its tiles with another
//! [`TileBuilder`] (the climate map of `climate_map.rs`).
//!
//! May use: `base`, `gen3d`, and [`crate::stream::scheduler`] (the workers' priority).

use crate::gen3d::pipeline::Generator;
use crate::gen3d::terrain::TerrainSample;
use crossbeam_channel::{Receiver, Sender};
use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Voxels between two heights of the map.
pub const TEXEL_VOXELS: i32 = 8;
/// Heights on a tile's side.
pub const TILE_TEXELS: usize = 64;
/// Voxels on a tile's side.
pub const TILE_VOXELS: i32 = TEXEL_VOXELS * TILE_TEXELS as i32;
/// Rows of a tile's layer: its heights, then one row whose first texel is [`tile_id`].
pub const LAYER_ROWS: usize = TILE_TEXELS + 1;
/// Floats in a tile's layer (`TILE_TEXELS` wide, [`LAYER_ROWS`] high, row-major).
pub const LAYER_TEXELS: usize = TILE_TEXELS * LAYER_ROWS;
/// The most tiles on the window's side (225 layers: within the 256 that every GPU supports).
pub const MAX_SLOTS: usize = 15;
/// The fewest tiles on the window's side.
pub const MIN_SLOTS: usize = 3;
/// How far beyond the drawn land the map reaches, in voxels: mountains just outside the view
/// still cast their shadows into it.
pub const CAST_MARGIN: f64 = 1024.0;

/// One tile of the map: `TILE_VOXELS` square, its corner at `(x, z) · TILE_VOXELS`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HorizonTile {
    pub x: i32,
    pub z: i32,
}

impl HorizonTile {
    /// The tile holding the column at `(x, z)` (voxels; non-finite values count as 0).
    pub fn containing(x: f64, z: f64) -> Self {
        let tile = |v: f64| {
            let v = if v.is_finite() { v } else { 0.0 };
            (v / TILE_VOXELS as f64).floor().clamp(i32::MIN as f64, i32::MAX as f64) as i32
        };
        HorizonTile { x: tile(x), z: tile(z) }
    }

    /// The layer holding this tile in a window of `slots` tiles a side.
    pub fn layer(self, slots: usize) -> usize {
        let s = slots.max(1) as i64;
        (self.x as i64).rem_euclid(s) as usize + slots * (self.z as i64).rem_euclid(s) as usize
    }
}

/// The header value naming `tile`: its coordinates modulo 4096, `x + 4096 · z`. Below 2²⁴, so a
/// 32-bit float holds it exactly; two tiles of one window never share it.
pub fn tile_id(tile: HorizonTile) -> f32 {
    (tile.x.rem_euclid(4096) + 4096 * tile.z.rem_euclid(4096)) as f32
}

/// Tiles on the window's side for land drawn to `reach` voxels from the viewer: the land and
/// [`CAST_MARGIN`] beyond it on both sides, within [`MIN_SLOTS`]..=[`MAX_SLOTS`] (beyond the
/// largest window the map ends; shadows there come from the shadow maps alone).
pub fn slots_for_reach(reach: f64) -> usize {
    let reach = if reach.is_finite() { reach.clamp(0.0, 1e7) } else { 0.0 };
    // The viewer's tile and as many on each side as the land and the margin need.
    let per_side = ((reach + CAST_MARGIN) / TILE_VOXELS as f64).ceil() as usize;
    (2 * per_side + 1).clamp(MIN_SLOTS, MAX_SLOTS)
}

/// The window of `slots` tiles a side centred on the tile `centre` (its first tile, inclusive).
pub fn window_start(centre: HorizonTile, slots: usize) -> HorizonTile {
    let half = (slots / 2) as i32;
    HorizonTile { x: centre.x.saturating_sub(half), z: centre.z.saturating_sub(half) }
}

fn in_window(t: HorizonTile, centre: HorizonTile, slots: usize) -> bool {
    let start = window_start(centre, slots);
    let inside = |v: i32, s: i32| (v as i64 - s as i64) >= 0 && ((v as i64 - s as i64) as usize) < slots;
    inside(t.x, start.x) && inside(t.z, start.z)
}

/// Writes tile `t`'s layer into `out` ([`LAYER_TEXELS`] floats): the ground height at the centre
/// of each texel, then the header row ([`tile_id`] first, zeros after). A pure function of the
/// generator and `t`.
pub fn build_tile(g: &Generator, t: HorizonTile, samples: &mut Vec<TerrainSample>, out: &mut Vec<f32>) {
    let half = TEXEL_VOXELS as f64 * 0.5;
    let corner = |v: i32| v as f64 * TILE_VOXELS as f64 + half;
    g.terrain().sample_grid(corner(t.x), corner(t.z), TEXEL_VOXELS as f64, TILE_TEXELS, TILE_TEXELS, samples);
    out.clear();
    out.extend(samples.iter().map(|s| s.height as f32));
    out.push(tile_id(t));
    out.resize(LAYER_TEXELS, 0.0);
}

/// What builds one tile's texels: a pure function of the generator and the tile, with a
/// reusable buffer of terrain samples (see [`build_tile`]).
pub type TileBuilder = fn(&Generator, HorizonTile, &mut Vec<TerrainSample>, &mut Vec<f32>);

/// The most tiles on the side of a window of [`HorizonMapper::with_builder`] (its maps are not
/// texture arrays, so not bound by their layers).
pub const MAX_RING_SLOTS: usize = 63;

/// A finished tile: the layer it goes to and its texels ([`build_tile`]).
#[derive(Clone, Debug, PartialEq)]
pub struct FinishedTile {
    pub tile: HorizonTile,
    pub layer: usize,
    pub texels: Vec<f32>,
}

/// Keeps the window of tiles around the viewer built: requests missing tiles from its worker,
/// nearest first, and hands finished ones to the caller without waiting.
pub struct HorizonMapper {
    generator: Arc<Generator>,
    slots: usize,
    centre: Option<HorizonTile>,
    /// The window's centre as the worker sees it (to skip tiles that left it), packed by [`pack`].
    shared_centre: Arc<AtomicU64>,
    /// The tile each layer holds (taken by the caller).
    resident: Vec<Option<HorizonTile>>,
    requested: HashSet<HorizonTile>,
    jobs: Option<Sender<HorizonTile>>,
    results: Receiver<FinishedTile>,
    worker: Option<std::thread::JoinHandle<()>>,
}

fn pack(t: HorizonTile) -> u64 {
    ((t.x as u32 as u64) << 32) | t.z as u32 as u64
}

fn unpack(v: u64) -> HorizonTile {
    HorizonTile { x: (v >> 32) as u32 as i32, z: v as u32 as i32 }
}

impl HorizonMapper {
    /// A mapper of `slots` tiles a side (clamped into [`MIN_SLOTS`]..=[`MAX_SLOTS`]) over
    /// `generator`'s land, with its worker thread started.
    pub fn new(generator: Arc<Generator>, slots: usize) -> std::io::Result<Self> {
        Self::with_builder(generator, slots.clamp(MIN_SLOTS, MAX_SLOTS), build_tile, "strata-horizon")
    }

    /// A mapper of `slots` tiles a side (clamped into [`MIN_SLOTS`]..=[`MAX_RING_SLOTS`]) whose
    /// tiles `build` makes, with its worker thread (named `thread`) started.
    pub fn with_builder(
        generator: Arc<Generator>,
        slots: usize,
        build: TileBuilder,
        thread: &str,
    ) -> std::io::Result<Self> {
        let slots = slots.clamp(MIN_SLOTS, MAX_RING_SLOTS);
        let (job_tx, job_rx) = crossbeam_channel::unbounded::<HorizonTile>();
        let (done_tx, done_rx) = crossbeam_channel::unbounded();
        let shared_centre = Arc::new(AtomicU64::new(pack(HorizonTile { x: 0, z: 0 })));
        let worker = {
            let (g, centre) = (generator.clone(), shared_centre.clone());
            std::thread::Builder::new()
                .name(thread.into())
                .spawn(move || run_worker(&g, build, slots, &centre, &job_rx, &done_tx))?
        };
        Ok(HorizonMapper {
            generator,
            slots,
            centre: None,
            shared_centre,
            resident: vec![None; slots * slots],
            requested: HashSet::new(),
            jobs: Some(job_tx),
            results: done_rx,
            worker: Some(worker),
        })
    }

    /// Tiles on the window's side.
    pub fn slots(&self) -> usize {
        self.slots
    }

    /// The generator whose land this maps.
    pub fn generator(&self) -> &Arc<Generator> {
        &self.generator
    }

    /// Centres the window on the column at `(x, z)` (voxels) and requests, nearest first, every
    /// tile of it that is neither built nor on its way.
    pub fn set_centre(&mut self, x: f64, z: f64) {
        let centre = HorizonTile::containing(x, z);
        if self.centre == Some(centre) {
            return;
        }
        self.centre = Some(centre);
        self.shared_centre.store(pack(centre), Ordering::Relaxed);
        let slots = self.slots;
        self.requested.retain(|&t| in_window(t, centre, slots));
        let start = window_start(centre, slots);
        let mut missing: Vec<HorizonTile> = (0..slots as i32)
            .flat_map(|k| (0..slots as i32).map(move |i| HorizonTile { x: start.x + i, z: start.z + k }))
            .filter(|t| self.resident[t.layer(slots)] != Some(*t) && !self.requested.contains(t))
            .collect();
        let distance = |t: &HorizonTile| {
            let (dx, dz) = (t.x as i64 - centre.x as i64, t.z as i64 - centre.z as i64);
            (dx * dx + dz * dz, *t)
        };
        missing.sort_by_key(distance);
        for t in missing {
            if let Some(jobs) = &self.jobs
                && jobs.send(t).is_ok()
            {
                self.requested.insert(t);
            }
        }
    }

    /// A finished tile of the current window, if one is waiting; never blocks. Tiles that left
    /// the window on their way are dropped.
    pub fn try_recv(&mut self) -> Option<FinishedTile> {
        while let Ok(done) = self.results.try_recv() {
            self.requested.remove(&done.tile);
            match self.centre {
                Some(c) if in_window(done.tile, c, self.slots) => {
                    self.resident[done.layer] = Some(done.tile);
                    return Some(done);
                }
                _ => continue,
            }
        }
        None
    }

    /// Layers holding a tile of the current window.
    pub fn tiles_ready(&self) -> usize {
        match self.centre {
            Some(c) => self.resident.iter().flatten().filter(|t| in_window(**t, c, self.slots)).count(),
            None => 0,
        }
    }

    /// Tiles requested and not yet taken.
    pub fn tiles_pending(&self) -> usize {
        self.requested.len()
    }
}

impl Drop for HorizonMapper {
    fn drop(&mut self) {
        // Closing the job channel ends the worker after the tile it is building.
        self.shared_centre.store(pack(HorizonTile { x: i32::MIN, z: i32::MIN }), Ordering::Relaxed);
        self.jobs = None;
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
    }
}

fn run_worker(
    g: &Generator,
    build: TileBuilder,
    slots: usize,
    centre: &AtomicU64,
    jobs: &Receiver<HorizonTile>,
    done: &Sender<FinishedTile>,
) {
    crate::stream::scheduler::lower_this_threads_priority();
    let mut samples = Vec::new();
    for tile in jobs.iter() {
        if !in_window(tile, unpack(centre.load(Ordering::Relaxed)), slots) {
            continue;
        }
        let mut texels = Vec::with_capacity(LAYER_TEXELS);
        build(g, tile, &mut samples, &mut texels);
        if done.send(FinishedTile { tile, layer: tile.layer(slots), texels }).is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preset::model::WorldPreset;

    fn generator() -> Arc<Generator> {
        Arc::new(Generator::new(&WorldPreset::default()).unwrap())
    }

    fn tile(g: &Generator, t: HorizonTile) -> Vec<f32> {
        let mut out = Vec::new();
        build_tile(g, t, &mut Vec::new(), &mut out);
        out
    }

    #[test]
    fn a_tile_holds_the_ground_height_at_each_texels_centre_and_names_itself() {
        let g = generator();
        for t in [HorizonTile { x: 0, z: 0 }, HorizonTile { x: -3, z: 2 }, HorizonTile { x: 5, z: -7 }] {
            let texels = tile(&g, t);
            assert_eq!(texels.len(), LAYER_TEXELS);
            for (i, k) in [(0, 0), (63, 0), (0, 63), (17, 40), (63, 63)] {
                let (x, z) = (
                    (t.x * TILE_VOXELS + i as i32 * TEXEL_VOXELS) as f64 + 4.0,
                    (t.z * TILE_VOXELS + k as i32 * TEXEL_VOXELS) as f64 + 4.0,
                );
                let want = g.terrain().sample(x, z).height as f32;
                assert_eq!(texels[k * TILE_TEXELS + i], want, "{t:?} texel ({i}, {k})");
            }
            assert_eq!(texels[TILE_TEXELS * TILE_TEXELS], tile_id(t));
            assert!(texels[TILE_TEXELS * TILE_TEXELS + 1..].iter().all(|&v| v == 0.0));
        }
    }

    #[test]
    fn tiles_are_pure_and_their_edges_continue_the_neighbours_ground() {
        let g = generator();
        let t = HorizonTile { x: 1, z: -2 };
        assert_eq!(tile(&g, t), tile(&generator(), t), "the same tile from another generator of the preset");
        // The texel east of tile t's last column is the first column of its east neighbour: the
        // same ground as a one-texel-wider sampling of t gives there.
        let east = tile(&g, HorizonTile { x: 2, z: -2 });
        let mut wide = Vec::new();
        let corner = |v: i32| v as f64 * TILE_VOXELS as f64 + 4.0;
        g.terrain().sample_grid(corner(t.x), corner(t.z), 8.0, TILE_TEXELS + 1, TILE_TEXELS, &mut wide);
        for k in 0..TILE_TEXELS {
            assert_eq!(east[k * TILE_TEXELS], wide[k * (TILE_TEXELS + 1) + TILE_TEXELS].height as f32, "row {k}");
        }
    }

    #[test]
    fn the_ids_and_layers_of_a_windows_tiles_are_all_different() {
        for slots in [MIN_SLOTS, 7, MAX_SLOTS] {
            let start = window_start(HorizonTile { x: -2050, z: 4093 }, slots);
            let mut layers = HashSet::new();
            let mut ids = HashSet::new();
            for k in 0..slots as i32 {
                for i in 0..slots as i32 {
                    let t = HorizonTile { x: start.x + i, z: start.z + k };
                    assert!(layers.insert(t.layer(slots)), "{t:?}");
                    assert!(ids.insert(tile_id(t).to_bits()), "{t:?}");
                    assert!(tile_id(t) < 16_777_216.0);
                }
            }
            assert_eq!(layers.len(), slots * slots);
            assert!(layers.iter().all(|&l| l < slots * slots));
        }
    }

    #[test]
    fn the_window_covers_the_drawn_land_and_the_margin_within_its_bounds() {
        assert_eq!(slots_for_reach(0.0), 5);
        // View distance 4, far view 4 levels: 2,048 voxels, and 1,024 beyond on both sides.
        let s = slots_for_reach(2048.0);
        assert!((s - 1) as f64 * TILE_VOXELS as f64 >= 2.0 * (2048.0 + CAST_MARGIN), "{s}");
        assert_eq!(slots_for_reach(1e9), MAX_SLOTS);
        assert_eq!(slots_for_reach(f64::NAN), 5);
        assert_eq!(HorizonTile::containing(-1.0, 511.9), HorizonTile { x: -1, z: 0 });
        assert_eq!(HorizonTile::containing(f64::INFINITY, 1e300), HorizonTile { x: 0, z: i32::MAX });
    }

    fn wait_for_window(m: &mut HorizonMapper, got: &mut Vec<FinishedTile>) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        while m.tiles_ready() < m.slots() * m.slots() {
            match m.try_recv() {
                Some(t) => got.push(t),
                None => {
                    assert!(std::time::Instant::now() < deadline, "{} tiles ready", m.tiles_ready());
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
            }
        }
    }

    #[test]
    fn the_mapper_builds_the_window_nearest_first_and_replaces_only_what_leaves_it() {
        let g = generator();
        let mut m = HorizonMapper::new(g.clone(), 4).unwrap();
        m.set_centre(100.0, -100.0);
        let mut got = Vec::new();
        wait_for_window(&mut m, &mut got);
        assert_eq!(got.len(), 16);
        assert_eq!(got[0].tile, HorizonTile { x: 0, z: -1 }, "the viewer's own tile first");
        for f in &got {
            assert_eq!(f.texels, tile(&g, f.tile), "{:?}", f.tile);
            assert_eq!(f.layer, f.tile.layer(4));
        }
        assert_eq!(m.tiles_pending(), 0);
        // One tile east: the window gains a column of four tiles and loses one.
        m.set_centre(100.0 + TILE_VOXELS as f64, -100.0);
        assert_eq!(m.tiles_pending(), 4, "only the new column is requested");
        let mut more = Vec::new();
        wait_for_window(&mut m, &mut more);
        let xs: HashSet<i32> = more.iter().map(|f| f.tile.x).collect();
        assert_eq!(xs, HashSet::from([2]), "the new column, x = 2: {more:?}");
        assert_eq!(more.len(), 4);
    }

    #[test]
    fn tiles_that_left_the_window_on_their_way_are_never_handed_out() {
        let mut m = HorizonMapper::new(generator(), 4).unwrap();
        m.set_centre(0.0, 0.0);
        // Far away at once: every tile of the first window is stale now.
        m.set_centre(1_000_000.0, 0.0);
        let mut got = Vec::new();
        wait_for_window(&mut m, &mut got);
        assert!(got.iter().all(|f| f.tile.x >= 1950), "{:?}", got.iter().map(|f| f.tile).collect::<Vec<_>>());
        assert_eq!(got.len(), 16);
    }
}
