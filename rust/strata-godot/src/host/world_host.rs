//! What `StrataChunkWorld` and `StrataChunkWorld2D` share, written once: the preset a world is built from
//! (its identity, so a changed field restarts the world, and the generator built from it and
//! the world's block library for queries; another library builds it again), the edits kept
//! while no streamer holds them, the game state saved with the world, the last error, world
//! saves, the streaming counters both report, and block names.
//!
//! Each class holds a [`WorldHost`] and its `#[func]`s delegate to it; the `preset` property
//! stays on the class (Godot exports fields of the class itself) and is passed in.
//!
//! A preset that uses a heightmap file is built once the file is loaded ([`crate::resources::heightmaps`]:
//! read on a worker, or a slice a frame on the main thread when only Godot reaches it); until
//! then the world has no generator, so it neither streams nor answers queries, and
//! [`WorldHost::is_loading_heightmap`] says so.
//!
//! May use: `strata_core` (base, preset, generators, stream stats, persist::save),
//! the crate's `base` and `resources` layers (`world_preset`, `heightmaps`).

use crate::base::errors::LastError;
use crate::base::files::{GodotFile, locate_file, read_packed, writable};
use crate::resources::heightmaps::{self, HeightmapLoad, Lookup};
use crate::resources::world_preset::WorldPreset;
use godot::classes::Marshalls;
use godot::global::Error;
use godot::global::{bytes_to_var, var_to_bytes};
use godot::prelude::*;
use std::collections::BTreeMap;
use std::fmt::Display;
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, TryRecvError};
use strata_core::base::block_library::BlockLibrary as CoreLibrary;
use strata_core::base::edit_history::PendingFlow;
use strata_core::base::edits::EditMap;
use strata_core::gen2d::{Generator2D, StructureLibrary2D};
use strata_core::gen3d::hook::HookRunner;
use strata_core::gen3d::pipeline::{Generator, GeneratorOptions};
use strata_core::gen3d::structures::StructureLibrary;
use strata_core::noise::heightmap::{Heightmap, HeightmapError};
use strata_core::persist::entities::EntityDeltas;
use strata_core::persist::save::{
    SaveError, SaveOptions, WorldSave, check_save_file_len, decode_world_save, read_world_save, write_world_save,
};
use strata_core::stream::scheduler::StreamStats;

/// Which preset a world was built from: the resource and its revision (bumped on every change).
type PresetIdentity = (Option<InstanceId>, u64);

fn identity(preset: Option<&Gd<WorldPreset>>) -> PresetIdentity {
    match preset {
        Some(p) => (Some(p.instance_id()), p.bind().revision()),
        None => (None, 0),
    }
}

/// What a generator was built from: the preset's identity, the fingerprint of the block
/// library its biome rows' block names were resolved through, that of the world's own
/// structure library (0: the shipped structures only) and the generation hook's revision
/// (0: none).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct BuildIdentity {
    preset: PresetIdentity,
    library: u64,
    structures: u64,
    hook: u64,
}

/// A world's own structure library (the shipped structures and its own: a 3D world's
/// [`StructureLibrary`], a side-view world's [`StructureLibrary2D`]) and its fingerprint.
pub(crate) type OwnStructures<'a, S = StructureLibrary> = Option<(&'a Arc<S>, u64)>;

/// The core preset of `preset`, or the default preset when there is none.
pub(crate) fn core_preset(preset: Option<&Gd<WorldPreset>>) -> strata_core::WorldPreset {
    preset.map(|p| p.bind().core().into_owned()).unwrap_or_default()
}

/// A world generator that a [`WorldHost`] builds from a preset.
pub(crate) trait HostedGenerator: Sized + Send + Sync + 'static {
    /// The structure library its structure rules name.
    type Structures: Send + Sync + 'static;

    /// The heightmap file a `preset` valid for the world's `library` reads, if any (loaded
    /// before [`HostedGenerator::build`]).
    fn heightmap_path(_preset: &strata_core::WorldPreset, _library: &CoreLibrary) -> Option<String> {
        None
    }

    /// Builds the generator for a world made of the blocks of `library` (the biome rows' block
    /// names are resolved through it) whose structure rules name structures of `structures`
    /// (None: the shipped ones); `heightmap` is the file [`HostedGenerator::heightmap_path`]
    /// named, loaded. The error is the message `last_error()` shows after "cannot build the
    /// world: ".
    fn build(
        preset: &strata_core::WorldPreset,
        library: &CoreLibrary,
        structures: Option<&Self::Structures>,
        heightmap: Option<Arc<Heightmap>>,
    ) -> Result<Self, String>;

    /// The generator with `hook` amending what it generates ([`strata_core::gen3d::hook`]);
    /// a generator without hooks ignores it.
    fn with_hook(self, _hook: Option<Arc<HookRunner>>) -> Self {
        self
    }
}

impl HostedGenerator for Generator {
    type Structures = StructureLibrary;

    fn heightmap_path(preset: &strata_core::WorldPreset, library: &CoreLibrary) -> Option<String> {
        // An invalid preset is reported by `build` at once, without reading its heightmap.
        let uses = preset.height.heightmap_weight > 0.0 && preset.validate_with_library(library).is_ok();
        uses.then(|| preset.height.heightmap_path.clone())
    }

    fn build(
        preset: &strata_core::WorldPreset,
        library: &CoreLibrary,
        structures: Option<&StructureLibrary>,
        heightmap: Option<Arc<Heightmap>>,
    ) -> Result<Self, String> {
        let loaded = |path: &str| {
            heightmap.ok_or_else(|| HeightmapError::Io {
                path: path.into(),
                source: std::io::Error::other("the heightmap was not loaded"),
            })
        };
        match structures {
            Some(s) => Generator::with_options(
                preset,
                GeneratorOptions::default().library(library).structures(s).heightmap_loader(loaded),
            ),
            None => {
                Generator::with_options(preset, GeneratorOptions::default().library(library).heightmap_loader(loaded))
            }
        }
        .map_err(|e| e.to_string())
    }

    fn with_hook(self, hook: Option<Arc<HookRunner>>) -> Self {
        Generator::with_hook(self, hook)
    }
}

/// The side view uses no biome rows: its generator takes the default library's names, and the
/// 2D world passes that library; its structures come resolved through the world's own block
/// library (`structures`; None: the shipped ones of the default library).
impl HostedGenerator for Generator2D {
    type Structures = StructureLibrary2D;

    fn build(
        preset: &strata_core::WorldPreset,
        _library: &CoreLibrary,
        structures: Option<&StructureLibrary2D>,
        _heightmap: Option<Arc<Heightmap>>,
    ) -> Result<Self, String> {
        match structures {
            Some(s) => Generator2D::with_structures(preset, s),
            None => Generator2D::new(preset),
        }
        .map_err(|e| e.to_string())
    }
}

/// The build a [`PendingBuild`] runs once its heightmap is loaded.
type BuildFn<G> = Box<dyn FnOnce(Option<Arc<Heightmap>>) -> Result<G, String> + Send>;

/// A generator waiting for its heightmap file.
struct PendingBuild<G> {
    /// The preset and library being built.
    id: BuildIdentity,
    /// The build of that preset, library and structures, taken when the worker starts.
    build: Option<BuildFn<G>>,
    /// Main-thread reading still to do (a packed file), then None.
    load: Option<HeightmapLoad>,
    /// The worker's answer, once it was started.
    answer: Option<Receiver<Result<G, String>>>,
}

/// The state a streaming world keeps besides its streamer, for a generator `G` (3D or 2D).
pub(crate) struct WorldHost<G> {
    /// The class name, for messages ("StrataChunkWorld").
    class: &'static str,
    /// The preset and library `generator` was built from, or None when it is to be built.
    built_for: Option<BuildIdentity>,
    /// The generator of `built_for`, or None when that preset does not build.
    generator: Option<Arc<G>>,
    /// A build waiting for its heightmap file.
    pending: Option<PendingBuild<G>>,
    /// The generation hook every generator is built with, and its revision (bumped by each
    /// [`WorldHost::set_hook`], so a new hook builds again).
    hook: Option<Arc<HookRunner>>,
    hook_revision: u64,
    /// Edits kept while no streamer holds them: set before streaming starts, carried across a
    /// restart (preset change, regenerate, leaving and re-entering the tree), loaded from a save.
    kept_edits: Option<EditMap>,
    /// The edits of `kept_edits` whose water flow had not run (a loaded save's, or a stopped
    /// streamer's), for the streamer that takes them to run again.
    kept_flows: Vec<PendingFlow>,
    /// Game state saved with the world (time of day, player position…), as text.
    state: BTreeMap<String, String>,
    /// How the world's objects differ from what it spawns (3D worlds): what the world node
    /// hands over before a save ([`WorldHost::set_entities`]), and what a loaded save held.
    entities: EntityDeltas,
    /// Message of the last failure, for `last_error()`.
    last_error: LastError,
}

impl<G> WorldHost<G> {
    pub(crate) fn new(class: &'static str) -> Self {
        Self {
            class,
            built_for: None,
            generator: None,
            pending: None,
            hook: None,
            hook_revision: 0,
            kept_edits: None,
            kept_flows: Vec::new(),
            state: BTreeMap::new(),
            entities: EntityDeltas::default(),
            last_error: LastError::default(),
        }
    }

    /// True when `preset` is another resource, or a field of it changed, since the world's
    /// generator was built. (A change of the world's block library is not looked for every
    /// frame: the world's library setter restarts streaming, and [`WorldHost::generator_with`] then
    /// builds again for the new library.)
    pub(crate) fn preset_changed(&self, preset: Option<&Gd<WorldPreset>>) -> bool {
        self.built_for.map(|b| b.preset) != Some(identity(preset))
    }

    /// The generator of `preset` for a world made of the blocks of `library` that brings its own
    /// structures (`structures`: the structure library of the generator's kind and its
    /// fingerprint; None: the shipped ones), built when the preset changed, or the library
    /// (by [`CoreLibrary::fingerprint`]) or the structures' fingerprint is another, since the
    /// last build. A preset that does not build is reported once (console and `last_error()`)
    /// and tried again only when it or the library changes or after
    /// [`WorldHost::forget_generator`]. While its heightmap file loads there is none yet: each
    /// call does one frame's share of the loading.
    pub(crate) fn generator_with(
        &mut self,
        preset: Option<&Gd<WorldPreset>>,
        library: &CoreLibrary,
        structures: OwnStructures<G::Structures>,
    ) -> Option<Arc<G>>
    where
        G: HostedGenerator,
    {
        let id = BuildIdentity {
            preset: identity(preset),
            library: library.fingerprint(),
            structures: structures.map_or(0, |(_, key)| key),
            hook: if self.hook.is_some() { self.hook_revision } else { 0 },
        };
        let structures = structures.map(|(s, _)| s.clone());
        if self.built_for == Some(id) {
            return self.generator.clone();
        }
        if self.pending.as_ref().is_some_and(|p| p.id != id) {
            self.pending = None;
        }
        if self.pending.is_none() {
            let core = core_preset(preset);
            let heightmap = match G::heightmap_path(&core, library).map(|path| heightmaps::lookup(&path)) {
                None => None,
                Some(Lookup::Cached(map)) => Some(map),
                Some(Lookup::Load(load)) => {
                    self.generator = None;
                    let library = Arc::new(library.clone());
                    let build: BuildFn<G> = Box::new(move |map| G::build(&core, &library, structures.as_deref(), map));
                    self.pending = Some(PendingBuild { id, build: Some(build), load: Some(load), answer: None });
                    return self.poll_pending();
                }
            };
            let built = G::build(&core, library, structures.as_deref(), heightmap);
            return self.finish_build(id, built);
        }
        self.poll_pending()
    }

    /// True while the preset's heightmap file loads (the world has no generator yet).
    pub(crate) fn is_loading_heightmap(&self) -> bool {
        self.pending.is_some()
    }

    /// Advances the pending build: reads a slice of a packed file, starts the worker once the
    /// bytes are in, or takes the worker's answer.
    fn poll_pending(&mut self) -> Option<Arc<G>>
    where
        G: HostedGenerator,
    {
        let p = self.pending.as_mut()?;
        if let Some(load) = &mut p.load {
            let ready = load.step()?;
            p.load = None;
            let (tx, rx) = mpsc::channel();
            let build = p.build.take();
            let spawned = std::thread::Builder::new().name("strata-heightmap".into()).spawn(move || {
                let built = ready.finish().map_err(|e| e.to_string()).and_then(|map| match build {
                    Some(build) => build(Some(map)),
                    None => Err("the build was already taken".into()),
                });
                let _ = tx.send(built);
            });
            if let Err(e) = spawned {
                let id = p.id;
                self.pending = None;
                return self.finish_build(id, Err(format!("cannot start the heightmap thread: {e}")));
            }
            p.answer = Some(rx);
        }
        let built = match p.answer.as_ref()?.try_recv() {
            Ok(built) => built,
            Err(TryRecvError::Empty) => return None,
            Err(TryRecvError::Disconnected) => Err("the heightmap thread stopped without an answer".into()),
        };
        let id = p.id;
        self.pending = None;
        self.finish_build(id, built)
    }

    /// Sets the generation hook of the generators built from now on (None: no hook); the next
    /// [`WorldHost::generator_with`] builds again.
    pub(crate) fn set_hook(&mut self, hook: Option<Arc<HookRunner>>) {
        self.hook = hook;
        self.hook_revision += 1;
    }

    /// Keeps the outcome of building the preset and library `id`.
    fn finish_build(&mut self, id: BuildIdentity, built: Result<G, String>) -> Option<Arc<G>>
    where
        G: HostedGenerator,
    {
        self.generator = match built {
            Ok(g) => {
                // A preset that builds again ends the failure it caused (law: Clear errors).
                self.last_error.clear();
                Some(Arc::new(g.with_hook(self.hook.clone())))
            }
            Err(e) => {
                self.last_error.record(format!("{}: cannot build the world: {e}", self.class));
                None
            }
        };
        self.built_for = Some(id);
        self.generator.clone()
    }

    /// Drops the generator, so the next query or start builds it again from the preset.
    pub(crate) fn forget_generator(&mut self) {
        self.built_for = None;
        self.generator = None;
        self.pending = None;
    }

    /// Reports that the worker threads did not start.
    pub(crate) fn start_failed(&mut self, e: impl Display) {
        self.last_error.record(format!("{}: cannot start worker threads: {e}", self.class));
    }

    /// Keeps `edits` until a streamer takes them (with no pending flows: `keep_flows` after).
    pub(crate) fn keep_edits(&mut self, edits: EditMap) {
        self.kept_edits = Some(edits);
        self.kept_flows.clear();
    }

    /// Keeps the pending water flows of the kept edits until a streamer takes them.
    pub(crate) fn keep_flows(&mut self, flows: Vec<PendingFlow>) {
        self.kept_flows = flows;
    }

    /// The kept pending flows, for a streamer that starts (after it took the kept edits).
    pub(crate) fn take_kept_flows(&mut self) -> Vec<PendingFlow> {
        std::mem::take(&mut self.kept_flows)
    }

    /// The kept edits, for a streamer that starts.
    pub(crate) fn take_kept_edits(&mut self) -> Option<EditMap> {
        self.kept_edits.take()
    }

    pub(crate) fn kept_edits(&self) -> Option<&EditMap> {
        self.kept_edits.as_ref()
    }

    /// Forgets the kept edits (`clear_edits()` while no streamer holds them).
    pub(crate) fn clear_kept_edits(&mut self) {
        self.kept_edits = Some(EditMap::new());
        self.kept_flows.clear();
    }

    /// Prints `message` as a warning and keeps it for `last_error()` (a problem the world works
    /// around, such as a missing `TileMapLayer`).
    pub(crate) fn warn(&mut self, message: String) {
        self.last_error.warn(message);
    }

    /// Prints `message` as an error and keeps it for `last_error()` (a property value the world
    /// refuses, such as an invalid block library).
    pub(crate) fn error(&mut self, message: String) {
        self.last_error.record(message);
    }

    /// Clears `last_error()` if it is `message` (the problem it names is over).
    pub(crate) fn resolve(&mut self, message: &str) {
        self.last_error.clear_if(message);
    }

    /// The kept edits, created empty if there are none, for an edit made while not streaming.
    pub(crate) fn kept_edits_mut(&mut self) -> &mut EditMap {
        self.kept_edits.get_or_insert_with(EditMap::new)
    }

    /// Writes `preset`, the edits and the game state to `path` (`res://`, `user://` or
    /// absolute) atomically: `streamer_edits` and the edits whose water flow is still pending
    /// (`streamer_flows`) while a streamer holds them, else the kept ones;
    /// the names of the blocks the edits use come from `library`. Returns OK, or an error code
    /// with the message in `last_error()`.
    pub(crate) fn save_world(
        &mut self,
        path: &GString,
        preset: Option<&Gd<WorldPreset>>,
        streamer_edits: Option<&EditMap>,
        streamer_flows: Option<Vec<PendingFlow>>,
        library: Result<&CoreLibrary, String>,
    ) -> Error {
        let library = match library {
            Ok(l) => l,
            Err(e) => return self.last_error.fail(format!("{}.save_world: {e}", self.class), Error::ERR_INVALID_DATA),
        };
        let (edits, pending_flows) = match streamer_edits {
            Some(e) => (e.clone(), streamer_flows.unwrap_or_default()),
            None => (self.kept_edits.clone().unwrap_or_default(), self.kept_flows.clone()),
        };
        let save = WorldSave {
            preset: core_preset(preset),
            edits,
            state: self.state.clone(),
            entities: self.entities.clone(),
            pending_flows,
        };
        let target = match writable(path) {
            Ok(p) => p,
            Err(e) => {
                return self.last_error.fail(format!("{}.save_world: {e}", self.class), Error::ERR_FILE_CANT_WRITE);
            }
        };
        match write_world_save(&target, &save, SaveOptions::default().library(library)) {
            Ok(()) => self.last_error.succeed(),
            Err(e) => self.last_error.fail(format!("{}.save_world: {e}", self.class), Error::ERR_FILE_CANT_WRITE),
        }
    }

    /// Reads a world written by [`WorldHost::save_world`] (from disk, or through Godot's file
    /// access inside a game's pack), its blocks mapped by name into
    /// `library`: on success takes its game state and returns its preset, edits and pending
    /// water flows for the caller to stream; on error changes nothing and returns the code, with the message in
    /// `last_error()`.
    pub(crate) fn read_world(
        &mut self,
        path: &GString,
        library: Result<&CoreLibrary, String>,
    ) -> Result<(strata_core::WorldPreset, EditMap, Vec<PendingFlow>), Error> {
        let library = match library {
            Ok(l) => l,
            Err(e) => {
                return Err(self.last_error.fail(format!("{}.load_world: {e}", self.class), Error::ERR_INVALID_DATA));
            }
        };
        let read = match locate_file(&path.to_string()) {
            GodotFile::Disk(p) => read_world_save(&p, SaveOptions::default().library(library)),
            GodotFile::Packed(p) => {
                let io = |error| SaveError::Io { file: p.clone(), action: "read", error };
                read_packed(&p, |len| check_save_file_len(len, &p), io)
                    .and_then(|bytes| decode_world_save(&bytes, &p, SaveOptions::default().library(library)))
            }
        };
        match read {
            Ok(save) => {
                self.state = save.state;
                self.entities = save.entities;
                self.last_error.succeed();
                Ok((save.preset, save.edits, save.pending_flows))
            }
            Err(e) => {
                let code = match &e {
                    SaveError::Io { .. } => Error::ERR_FILE_CANT_OPEN,
                    _ => Error::ERR_FILE_CORRUPT,
                };
                Err(self.last_error.fail(format!("{}.load_world: {e}", self.class), code))
            }
        }
    }

    pub(crate) fn last_error(&self) -> GString {
        self.last_error.get()
    }

    /// The entity deltas the next save writes.
    pub(crate) fn set_entities(&mut self, entities: EntityDeltas) {
        self.entities = entities;
    }

    /// Takes the entity deltas a loaded save held (empty afterwards).
    pub(crate) fn take_entities(&mut self) -> EntityDeltas {
        std::mem::take(&mut self.entities)
    }

    /// Sets the game-state entry `key` to `value` (any Variant but an Object, RID, Callable or
    /// Signal, kept as Godot's `var_to_bytes` of it; null removes the entry), for the game's
    /// `set_state`. Keys starting with [`RESERVED_STATE_PREFIX`] are the addon's own and are
    /// refused, as are values that hold no data; the error names the key, the value's type and
    /// what is allowed, and is kept for `last_error()`.
    pub(crate) fn set_game_state(&mut self, key: &GString, value: &Variant) -> Error {
        use godot::builtin::VariantType as T;
        let what = format!("{}.set_state", self.class);
        let key = key.to_string();
        if key.starts_with(RESERVED_STATE_PREFIX) {
            let message = format!(
                "{what}: the key `{key}` starts with `{RESERVED_STATE_PREFIX}`, which the addon keeps for its own \
                 entries; allowed: any other key"
            );
            return self.last_error.fail(message, Error::ERR_INVALID_PARAMETER);
        }
        let typed_key = format!("{VARIANT_STATE_PREFIX}{key}");
        if value.is_nil() {
            self.state.remove(&key);
            self.state.remove(&typed_key);
            return self.last_error.succeed();
        }
        if matches!(value.get_type(), T::OBJECT | T::RID | T::CALLABLE | T::SIGNAL) {
            let message = format!(
                "{what}: `{key}` is a {:?}, which a save cannot keep; allowed: any value but an Object, RID, \
                 Callable or Signal (null removes the entry)",
                value.get_type()
            );
            return self.last_error.fail(message, Error::ERR_INVALID_PARAMETER);
        }
        let bytes = var_to_bytes(value);
        let text = Marshalls::singleton().raw_to_base64(&bytes).to_string();
        self.state.remove(&key);
        self.state.insert(typed_key, text);
        self.last_error.succeed()
    }

    /// The game-state entry `key` as `set_state` stored it; a 0.2 save's plain text entry as a
    /// String; `default` when absent (or, with a warning, when the saved bytes do not decode).
    pub(crate) fn game_state(&self, key: &GString, default: Variant) -> Variant {
        let key = key.to_string();
        if let Some(text) = self.state.get(&format!("{VARIANT_STATE_PREFIX}{key}")) {
            let bytes = Marshalls::singleton().base64_to_raw(text.as_str());
            if bytes.is_empty() {
                godot_warn!("{}.get_state: the saved value of `{key}` does not decode; using the default", self.class);
                return default;
            }
            return bytes_to_var(&bytes);
        }
        match self.state.get(&key) {
            Some(text) => GString::from(text.as_str()).to_variant(),
            None => default,
        }
    }

    /// The addon's own game-state entry `key` (a key under [`RESERVED_STATE_PREFIX`]), as text.
    pub(crate) fn raw_state(&self, key: &str) -> Option<&str> {
        self.state.get(key).map(String::as_str)
    }

    /// Sets (or, with `None`, removes) the addon's own game-state entry `key`.
    pub(crate) fn set_raw_state(&mut self, key: &str, value: Option<String>) {
        match value {
            Some(v) => self.state.insert(key.to_string(), v),
            None => self.state.remove(key),
        };
    }

    /// The shared game state of a shared world as this world's game state keeps it (the
    /// entries under `strata_core::net::shared_state::SAVE_KEY_PREFIX`).
    pub(crate) fn shared_game_state(
        &self,
    ) -> Result<strata_core::net::shared_state::SharedState, strata_core::net::shared_state::SharedStateError> {
        strata_core::net::shared_state::SharedState::from_save_entries(
            self.state.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        )
    }

    /// Keeps `shared` as the world's shared game state (replacing the entries kept before), so
    /// the next save holds it.
    pub(crate) fn keep_shared_game_state(&mut self, shared: &strata_core::net::shared_state::SharedState) {
        self.state.retain(|k, _| !k.starts_with(strata_core::net::shared_state::SAVE_KEY_PREFIX));
        self.state.extend(shared.to_save_entries());
    }
}

/// The start of the game-state keys the addon keeps for itself (shared state, the world's own
/// structures, a shared world's next edit order, the typed values below).
pub(crate) const RESERVED_STATE_PREFIX: &str = "strata.";

/// Where `set_state` keeps a value: under this prefix and the game's key, as the base64 of
/// Godot's `var_to_bytes` (a 0.2 save's entries are plain text under the key itself).
const VARIANT_STATE_PREFIX: &str = "strata.variant.";

/// The counters both worlds report: `loaded_chunks`, `pending_chunks`, `in_flight`, `max_in_flight`,
/// `generated_total`, `cancelled_total`, `gen_ms_median`, `build_key` (the second worker stage's
/// median, ms), `apply_ms_last_frame`, `workers` and `edits`.
pub(crate) fn stream_stats(st: &StreamStats, build_key: &str, apply_ms_last_frame: f64, edits: usize) -> VarDictionary {
    let mut d = VarDictionary::new();
    d.set("loaded_chunks", st.loaded_chunks as i64);
    d.set("pending_chunks", st.pending_chunks as i64);
    d.set("in_flight", st.in_flight as i64);
    d.set("max_in_flight", st.max_in_flight as i64);
    d.set("generated_total", st.generated_total as i64);
    d.set("cancelled_total", st.cancelled_total as i64);
    d.set("gen_ms_median", st.gen_us_median / 1000.0);
    d.set(build_key, st.build_us_median / 1000.0);
    d.set("apply_ms_last_frame", apply_ms_last_frame);
    d.set("workers", st.workers as i64);
    d.set("edits", edits as i64);
    d
}
