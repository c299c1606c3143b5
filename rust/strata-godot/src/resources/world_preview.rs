//! `StrataWorldPreview` (RefCounted): live preview images of a `StrataWorldPreset`, made off the main thread.
//!
//! `request()` copies the preset's core settings and starts a worker thread that builds the
//! generator and renders the core's [`preview_maps`] (height, biomes, structures; from 64 pixels
//! on a quick half-size picture first), then its [`cave_slice`]; each part is sent back as plain
//! bytes as soon as it is done. `poll()` (every
//! frame, main thread) takes what arrived without waiting (law: Main thread never waits), turns
//! it into `Image`s and emits `updated`. A newer request cancels older ones: their workers stop
//! at the next row band, and anything they still send is dropped. Dropping the object cancels its
//! workers and joins them (a few milliseconds), so none outlives the extension at exit. The editor's preview dock and
//! the demo's "customize world" screen both use this class.
//!
//! May use: `strata_core::gen3d` (generator, preview images, structures), `world_preset`,
//! `structure`, `heightmaps`.

use crate::base::errors::LastError;
use crate::resources::heightmaps::{self, WorkerLoad};
use crate::resources::structure::{Structure, resolve_world_structures};
use crate::resources::world_preset::WorldPreset;
use crossbeam_channel::{Receiver, Sender, unbounded};
use godot::classes::image::Format;
use godot::classes::{IRefCounted, Image, RefCounted};
use godot::prelude::*;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;
use strata_core::base::block_library::default_library;
use strata_core::gen3d::pipeline::{Generator, GeneratorOptions};
use strata_core::gen3d::preview::{PreviewImage, PreviewMaps, cave_slice, preview_maps};
use strata_core::gen3d::structures::StructureLibrary;
use strata_core::noise::heightmap::HeightmapError;

/// Largest preview edge, in pixels (a bigger picture is slower than a live preview should be).
pub const MAX_PREVIEW_PX: i64 = 1024;
/// Largest cell, in voxels per pixel.
pub const MAX_CELL: f64 = 1024.0;
/// From this size on, a quick picture of half the size (a quarter of the pixels, the same
/// ground) comes first.
const COARSE_FROM_PX: i64 = 64;

/// What a worker sends back for one job.
enum Part {
    Maps(Box<PreviewMaps>),
    Caves(PreviewImage),
    Failed(String),
}

/// Live preview images of a `StrataWorldPreset`, rendered on a worker thread.
///
/// Call `request(preset, …)` after every change (a slider, a field) and `poll()` every frame;
/// when `poll()` returns true, images of the newest request are ready in `get_height_image()`,
/// `get_biome_image()`, `get_structure_image()` (from 64 pixels on, a half-size picture first,
/// then the full one) and `get_cave_image()` (last). A new request cancels the older ones.
#[derive(GodotClass)]
#[class(tool, base = RefCounted, rename = StrataWorldPreview)]
pub struct WorldPreview {
    base: Base<RefCounted>,
    /// The newest job; workers of older jobs stop when they see it changed.
    current: Arc<AtomicU64>,
    sender: Sender<(u64, Part)>,
    receiver: Receiver<(u64, Part)>,
    /// When the newest job was requested, for `get_latency_ms()`.
    requested_at: Option<Instant>,
    latency_ms: f64,
    /// Parts of the newest job still to come (0: done).
    parts_pending: u8,
    height: Option<Gd<Image>>,
    biomes: Option<Gd<Image>>,
    structures: Option<Gd<Image>>,
    caves: Option<Gd<Image>>,
    placements: Array<VarDictionary>,
    height_range: Vector2,
    /// The job whose map images are shown (0: none yet).
    shown_job: i64,
    last_error: LastError,
    /// The workers started and not yet seen finished, joined on drop.
    workers: Vec<std::thread::JoinHandle<()>>,
    /// The world's own structures that the previewed preset's rules may name besides the shipped
    /// ones (a `StrataChunkWorld`'s `structures`), their blocks looked up in the default library when
    /// a request starts; a structure that does not resolve fails the request, naming it.
    #[var]
    own_structures: Array<Option<Gd<Structure>>>,
}

#[godot_api]
impl IRefCounted for WorldPreview {
    fn init(base: Base<RefCounted>) -> Self {
        let (sender, receiver) = unbounded();
        Self {
            base,
            current: Arc::new(AtomicU64::new(0)),
            sender,
            receiver,
            requested_at: None,
            latency_ms: -1.0,
            parts_pending: 0,
            height: None,
            biomes: None,
            structures: None,
            caves: None,
            placements: Array::new(),
            height_range: Vector2::ZERO,
            shown_job: 0,
            last_error: LastError::default(),
            workers: Vec::new(),
            own_structures: Array::new(),
        }
    }
}

#[godot_api]
impl WorldPreview {
    /// Emitted by `poll()` when images of job `job` arrived (`maps`: height, biome and
    /// structure images; otherwise the cave slice).
    #[signal]
    fn updated(job: i64, maps: bool);

    /// Starts rendering `preset` (a copy of it now: later edits need a new request) on a worker:
    /// `size_px × size_px` map pixels (8–1024) of `cell_size` voxels each (0.25–1024) around
    /// `center` (world x, z), and a cave slice of `size_px × size_px` voxels at world height
    /// `cave_y`. Cancels every older request. Returns the job's number (counting from 1), or -1
    /// when an argument is out of range or `preset` is null (the message is in `last_error()`).
    #[func]
    pub fn request(
        &mut self,
        preset: Option<Gd<WorldPreset>>,
        center: Vector2i,
        size_px: i64,
        cell_size: f64,
        cave_y: i64,
    ) -> i64 {
        if let Err(problem) = check_arguments(preset.as_ref(), center, size_px, cell_size, cave_y) {
            let message = format!("StrataWorldPreview.request: {problem}");
            self.last_error.record(&message);
            return -1;
        }
        let own = match self.resolved_structures("StrataWorldPreview.request") {
            Ok(own) => own,
            Err(()) => return -1,
        };
        let preset = preset.expect("checked above");
        let core = preset.bind().core().into_owned();
        let load: Option<WorkerLoad> =
            (core.height.heightmap_weight > 0.0).then(|| heightmaps::worker_load(&core.height.heightmap_path));
        let job = self.current.fetch_add(1, Ordering::SeqCst) + 1;
        self.requested_at = Some(Instant::now());
        let coarse = size_px >= COARSE_FROM_PX && cell_size * 2.0 <= MAX_CELL;
        self.parts_pending = if coarse { 3 } else { 2 };
        let current = self.current.clone();
        let sender = self.sender.clone();
        let center = (center.x, center.y);
        let (size, cell, cave_y) = (size_px as u32, cell_size as f32, cave_y as i32);
        let spawned = std::thread::Builder::new().name("strata-preview".into()).spawn(move || {
            let cancelled = || current.load(Ordering::Relaxed) != job;
            render((&core, own.as_deref()), load, center, (size, cell, cave_y), coarse, &cancelled, |part| {
                let _ = sender.send((job, part));
            });
        });
        match spawned {
            Ok(handle) => {
                self.workers.retain(|w| !w.is_finished());
                self.workers.push(handle);
            }
            Err(e) => {
                let message = format!("StrataWorldPreview.request: cannot start a worker thread: {e}");
                self.last_error.record(&message);
                self.parts_pending = 0;
                return -1;
            }
        }
        job as i64
    }

    /// The images `request()` would make for the same arguments, made now on the calling thread
    /// (it blocks: for tests and tools, never in a frame of a running game): a dictionary with
    /// "height", "biomes", "structures" and "caves" (`Image`s of `size_px × size_px`), or an
    /// empty one when an argument is out of range or the preset cannot be previewed (the message
    /// is in `last_error()`).
    #[func]
    pub fn render_now(
        &mut self,
        preset: Option<Gd<WorldPreset>>,
        center: Vector2i,
        size_px: i64,
        cell_size: f64,
        cave_y: i64,
    ) -> VarDictionary {
        let mut out = VarDictionary::new();
        let core = match check_arguments(preset.as_ref(), center, size_px, cell_size, cave_y) {
            Ok(()) => preset.expect("checked above").bind().core().into_owned(),
            Err(problem) => {
                let message = format!("StrataWorldPreview.render_now: {problem}");
                self.last_error.record(&message);
                return out;
            }
        };
        let load: Option<WorkerLoad> =
            (core.height.heightmap_weight > 0.0).then(|| heightmaps::worker_load(&core.height.heightmap_path));
        let Ok(own) = self.resolved_structures("StrataWorldPreview.render_now") else { return out };
        let mut failed = None;
        let dims = (size_px as u32, cell_size as f32, cave_y as i32);
        render((&core, own.as_deref()), load, (center.x, center.y), dims, false, &|| false, |part| match part {
            Part::Maps(m) => {
                out.set("height", &image(&m.height).to_variant());
                out.set("biomes", &image(&m.biomes).to_variant());
                out.set("structures", &image(&m.structures).to_variant());
            }
            Part::Caves(img) => out.set("caves", &image(&img).to_variant()),
            Part::Failed(message) => failed = Some(message),
        });
        if let Some(message) = failed {
            let message = format!("StrataWorldPreview.render_now: {message}");
            self.last_error.record(&message);
            return VarDictionary::new();
        }
        out
    }

    /// Takes the images that arrived since the last call (never waits): true when the newest
    /// request's map images or cave slice arrived (then `updated` was emitted), false
    /// otherwise. Results of cancelled requests are dropped. Call it every frame.
    #[func]
    pub fn poll(&mut self) -> bool {
        let newest = self.current.load(Ordering::SeqCst);
        let mut arrived = false;
        while let Ok((job, part)) = self.receiver.try_recv() {
            if job != newest {
                continue;
            }
            self.parts_pending = self.parts_pending.saturating_sub(1);
            let maps = matches!(part, Part::Maps(_));
            match part {
                Part::Maps(m) => {
                    self.height = image(&m.height);
                    self.biomes = image(&m.biomes);
                    self.structures = image(&m.structures);
                    self.height_range = Vector2::new(m.height_range.0 as f32, m.height_range.1 as f32);
                    self.placements = m.placements.iter().map(placement_dictionary).collect();
                    self.shown_job = job as i64;
                    if let Some(t) = self.requested_at.take() {
                        self.latency_ms = t.elapsed().as_secs_f64() * 1000.0;
                    }
                }
                Part::Caves(img) => self.caves = image(&img),
                Part::Failed(message) => {
                    self.parts_pending = 0;
                    let message = format!("StrataWorldPreview: {message}");
                    self.last_error.record(&message);
                    continue;
                }
            }
            arrived = true;
            self.base_mut().emit_signal("updated", &[(job as i64).to_variant(), maps.to_variant()]);
        }
        arrived
    }

    /// True while the newest request's images are still being made.
    #[func]
    pub fn is_busy(&self) -> bool {
        self.parts_pending > 0
    }

    /// The job whose map images `get_height_image()` and the others return (0: none yet).
    #[func]
    pub fn get_shown_job(&self) -> i64 {
        self.shown_job
    }

    /// Milliseconds from the newest shown job's `request()` to the `poll()` that took its first
    /// map images; -1 before the first.
    #[func]
    pub fn get_latency_ms(&self) -> f64 {
        self.latency_ms
    }

    /// Surface height in grey (lowest black, highest white), water below sea level in blue;
    /// null before the first images.
    #[func]
    pub fn get_height_image(&self) -> Option<Gd<Image>> {
        self.height.clone()
    }

    /// The biome map in the biome table's colours, shaded by the relief; null before the first
    /// images.
    #[func]
    pub fn get_biome_image(&self) -> Option<Gd<Image>> {
        self.biomes.clone()
    }

    /// Shaded relief with every structure's footprint in red; null before the first images.
    #[func]
    pub fn get_structure_image(&self) -> Option<Gd<Image>> {
        self.structures.clone()
    }

    /// The horizontal slice at `cave_y`, one voxel per pixel, in block colours (cave air near
    /// black, open air sky blue); null before the first slice.
    #[func]
    pub fn get_cave_image(&self) -> Option<Gd<Image>> {
        self.caves.clone()
    }

    /// The structures in the shown map: dictionaries with "rule" (index in the preset's
    /// `structure_rules`), "position" (Vector3i, minimum corner), "size" (Vector3i) and "turns".
    #[func]
    pub fn get_structures(&self) -> Array<VarDictionary> {
        self.placements.clone()
    }

    /// Lowest (x) and highest (y) surface height in the shown map.
    #[func]
    pub fn get_height_range(&self) -> Vector2 {
        self.height_range
    }

    /// Cancels every request: running workers stop at their next row band, and nothing more
    /// arrives until the next `request()`.
    #[func]
    pub fn cancel(&mut self) {
        self.current.fetch_add(1, Ordering::SeqCst);
        self.parts_pending = 0;
    }

    /// The message of the last refused request or failed preview; "" when none.
    #[func]
    pub fn last_error(&self) -> GString {
        self.last_error.get()
    }
}

impl Drop for WorldPreview {
    /// Cancels the workers and waits for them to stop (each at its next row band, a few
    /// milliseconds), so that no worker outlives the extension when the game quits.
    fn drop(&mut self) {
        self.current.fetch_add(1, Ordering::SeqCst);
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }
}

fn image(img: &PreviewImage) -> Option<Gd<Image>> {
    let data = PackedByteArray::from(img.rgb.as_slice());
    Image::create_from_data(img.width as i32, img.height as i32, false, Format::RGB8, &data)
}

fn placement_dictionary(p: &strata_core::gen3d::structures::Placement) -> VarDictionary {
    let mut d = VarDictionary::new();
    d.set("rule", p.rule as i64);
    d.set("position", Vector3i::new(p.min.x, p.min.y, p.min.z));
    d.set("size", Vector3i::new(p.size.x, p.size.y, p.size.z));
    d.set("turns", p.turns as i64);
    d
}

/// Why these `request()` arguments cannot be previewed, naming the argument and what is allowed.
/// The world's bounds on x and z, voxels.
const WORLD_BOUND: i32 = crate::base::ranges::WORLD_BOUND as i32;

fn check_arguments(
    preset: Option<&Gd<WorldPreset>>,
    center: Vector2i,
    size_px: i64,
    cell_size: f64,
    cave_y: i64,
) -> Result<(), String> {
    let problem = if preset.is_none() {
        Some("preset is null; allowed: a StrataWorldPreset".to_string())
    } else if !(8..=MAX_PREVIEW_PX).contains(&size_px) {
        Some(format!("size_px = {size_px}; allowed: 8..={MAX_PREVIEW_PX} pixels"))
    } else if !(cell_size.is_finite() && (0.25..=MAX_CELL).contains(&cell_size)) {
        Some(format!("cell_size = {cell_size}; allowed: 0.25..={MAX_CELL} voxels per pixel"))
    } else if !(-(1 << 20)..=(1 << 20)).contains(&cave_y) {
        Some(format!("cave_y = {cave_y}; allowed: -1048576..=1048576"))
    } else if ![center.x, center.y].iter().all(|v| (-WORLD_BOUND..=WORLD_BOUND).contains(v)) {
        // The world's own bounds: the largest preview (1,024 pixels of 1,024 voxels) around them
        // still stays within i32.
        Some(format!("center = {center}; allowed: x and z within ±{WORLD_BOUND} (the world's bounds)"))
    } else {
        None
    };
    problem.map_or(Ok(()), Err)
}

impl WorldPreview {
    /// `own_structures` resolved through the default library (None: none), or Err after
    /// recording the error of the call `what`.
    fn resolved_structures(&mut self, what: &str) -> Result<Option<Arc<StructureLibrary>>, ()> {
        match resolve_world_structures("StrataWorldPreview", &self.own_structures, default_library()) {
            Ok(own) => Ok(own.map(|w| w.library)),
            Err(e) => {
                let message = format!("{what}: {e}");
                self.last_error.record(&message);
                Err(())
            }
        }
    }
}

/// Makes the preview of `world` (a core preset and the world's own structure library, None for
/// the shipped structures) and hands each part to `send` as soon as it is done: the map images
/// (a half-size picture first when `coarse`), then the cave slice; `dims` is (pixels across,
/// voxels per pixel, cave slice height). Stops early, sending nothing more, once `cancelled`
/// returns true.
fn render(
    (core, structures): (&strata_core::WorldPreset, Option<&StructureLibrary>),
    load: Option<WorkerLoad>,
    center: (i32, i32),
    dims: (u32, f32, i32),
    coarse: bool,
    cancelled: &dyn Fn() -> bool,
    mut send: impl FnMut(Part),
) {
    let (size, cell, cave_y) = dims;
    let loader = |_: &str| match load {
        Some(load) => load(),
        None => {
            Err(HeightmapError::Io { path: "".into(), source: std::io::Error::other("the heightmap was not loaded") })
        }
    };
    let built = match structures {
        Some(s) => Generator::with_options(core, GeneratorOptions::default().structures(s).heightmap_loader(loader)),
        None => Generator::with_options(core, GeneratorOptions::default().heightmap_loader(loader)),
    };
    let generator = match built {
        Ok(g) => g,
        Err(e) => {
            send(Part::Failed(format!("the preset cannot be previewed: {e}")));
            return;
        }
    };
    // A quarter of the pixels first, so a change shows at once; then the full picture.
    let passes: &[(u32, f32)] = if coarse { &[(size / 2, cell * 2.0), (size, cell)] } else { &[(size, cell)] };
    for &(pass_size, pass_cell) in passes {
        match preview_maps(&generator, center, pass_size, pass_cell, cancelled) {
            Ok(Some(maps)) => send(Part::Maps(Box::new(maps))),
            Ok(None) => return,
            Err(e) => {
                send(Part::Failed(e.to_string()));
                return;
            }
        }
    }
    match cave_slice(&generator, center, size, cave_y, cancelled) {
        Ok(Some(img)) => send(Part::Caves(img)),
        Ok(None) => {}
        Err(e) => send(Part::Failed(e.to_string())),
    }
}
