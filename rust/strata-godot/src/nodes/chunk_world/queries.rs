//! `StrataChunkWorld`'s queries and single-voxel edits as `#[func]`s (a secondary `#[godot_api]`
//! block): heights, biomes, voxels, light, the exact raycast, `set_voxel`, structures in an area,
//! trees in an area, block names and ids, the editor's viewer, the debug mesh and hash of a chunk, the monitors and
//! stats. Queries are the core's [`strata_core::stream::query`]: pure functions of the preset and
//! the edits, loaded or not.
//!
//! May use: its parent (`chunk_world.rs`), `strata_core`'s queries, `world_edits`, `world_host`.

use super::{ApplyPhase, ChunkWorld};
use crate::host::meshes::{array_mesh_from_bytes, build_array_mesh};
use crate::host::world_edits;
use crate::host::world_host;
use godot::classes::ArrayMesh;
use godot::prelude::*;
use strata_core::base::coords::{WORLD_LIMIT_VOXELS, voxel_in_world};
use strata_core::base::edits::apply_edits;
use strata_core::mesh::bytes::MeshBytes;
use strata_core::stream::query::{WorldVoxels, generated_chunk_mesh, top_solid_y};
use strata_core::{CHUNK_SIZE, ChunkCoord, IVec3};

use strata_core::base::edit_history::VoxelChange;

#[godot_api(secondary)]
impl ChunkWorld {
    /// Debug: the mesh of chunk `coord` as generated (edits not applied, `ambient_occlusion` as
    /// set), built here and now: from the bytes the workers pack (what streaming shows), or with
    /// `via_arrays` through Godot's own `add_surface_from_arrays`. For tools and tests (the two
    /// must give the same surfaces); it blocks the calling thread for one chunk's generation,
    /// so a game never needs it. Null when the chunk has no faces or there is no preset.
    #[func]
    pub fn debug_build_chunk_mesh(&mut self, coord: Vector3i, via_arrays: bool) -> Option<Gd<ArrayMesh>> {
        let g = self.generator()?;
        let mesh = generated_chunk_mesh(&g, ChunkCoord::new(coord.x, coord.y, coord.z), self.ambient_occlusion);
        if mesh.is_empty() {
            return None;
        }
        let materials = self.materials();
        Some(if via_arrays {
            build_array_mesh(&mesh, &materials)
        } else {
            array_mesh_from_bytes(&MeshBytes::from_mesh(&mesh), &materials)
        })
    }

    /// World y of the top face of the topmost solid voxel at column (x, z). Works anywhere,
    /// loaded or not, and agrees with the streamed voxels (edits included).
    #[func]
    pub fn get_height(&mut self, x: f64, z: f64) -> f64 {
        let Some(g) = self.generator() else { return 0.0 };
        top_solid_y(&g, self.edits(), x.floor() as i32, z.floor() as i32) as f64
    }

    /// The navigation regions (`NavigationServer3D` RIDs, one per chunk) of the chunks that the
    /// box spanned by `from` and `to` (positions in this node's space), grown by `margin` voxels
    /// on every side, touches; empty without `navigation_enabled`. For path queries bounded to
    /// the ground near their ends (`NavigationPathQueryParameters3D.included_regions`): a query
    /// over the whole map scans every streamed polygon, one over these only theirs.
    #[func]
    pub fn get_navigation_regions(&self, from: Vector3, to: Vector3, margin: f64) -> Array<Rid> {
        let margin = margin.max(0.0) as f32;
        let origin = self.origin;
        let chunk =
            |p: Vector3| ChunkCoord::containing(origin.voxel_at([f64::from(p.x), f64::from(p.y), f64::from(p.z)]));
        let (lo, hi) = (from.coord_min(to) - Vector3::ONE * margin, from.coord_max(to) + Vector3::ONE * margin);
        self.navigation.regions_in(chunk(lo), chunk(hi)).into_iter().collect()
    }

    /// Name of the biome at world column (x, z) (from the preset's biome table).
    #[func]
    pub fn get_biome(&mut self, x: f64, z: f64) -> GString {
        match self.generator() {
            Some(g) => g.biome_at(x.floor() as i32, z.floor() as i32).name.as_str().into(),
            None => GString::new(),
        }
    }

    /// Debug: a 64-bit hash of every voxel of chunk `coord` (32³ voxels from `coord * 32`),
    /// edits included: two worlds agree on a chunk exactly when their hashes do (what
    /// multiplayer tests and tools compare). It generates the chunk on the calling thread (about
    /// a millisecond), loaded or not; -1 while the world has no generator or outside the world.
    #[func]
    pub fn debug_chunk_hash(&mut self, coord: Vector3i) -> i64 {
        let c = ChunkCoord::new(coord.x, coord.y, coord.z);
        let min = c.min_voxel();
        let max = IVec3::new(min.x + CHUNK_SIZE - 1, min.y + CHUNK_SIZE - 1, min.z + CHUNK_SIZE - 1);
        if !voxel_in_world(min) || !voxel_in_world(max) {
            return -1;
        }
        let Some(g) = self.generator() else { return -1 };
        let mut voxels = g.generate_chunk(c);
        if let Some(edits) = self.edits() {
            apply_edits(&mut voxels, &edits.edits_in_box(min, IVec3::splat(CHUNK_SIZE)));
        }
        voxels.content_hash() as i64
    }

    /// The block id at voxel `p` (0 = air). Works anywhere, loaded or not; edits included.
    #[func]
    pub fn get_voxel(&mut self, p: Vector3i) -> i64 {
        let q = IVec3::new(p.x, p.y, p.z);
        // An edit answers even while the preset does not build (law: Nothing is lost).
        if let Some(id) = self.edits().and_then(|e| e.get(q)) {
            return id as i64;
        }
        let Some(g) = self.generator() else { return 0 };
        // The workers' cached chunks answer without generating (the same block either way).
        let cache = self.streamer.as_ref().map(|s| s.voxel_cache());
        WorldVoxels::new(&g, None, cache).get(q) as i64
    }

    /// The light at voxel `p`, 0 to 15: the brighter of its sky light and block light, as the
    /// whole world lit by its library's blocks has it (edits included). A query, exact wherever
    /// it is asked: it generates the voxels within 14 of `p` and walks their columns up to the
    /// sky, about a millisecond; -1 while the world has no generator (an invalid preset, a
    /// heightmap still loading).
    #[func]
    pub fn get_light(&mut self, p: Vector3i) -> i64 {
        self.light(p).map(|l| l.combined() as i64).unwrap_or(-1)
    }

    /// The sky light at voxel `p`, 0 to 15 (15 under open sky), or -1 (see `get_light`).
    #[func]
    pub fn get_sky_light(&mut self, p: Vector3i) -> i64 {
        self.light(p).map(|l| l.sky() as i64).unwrap_or(-1)
    }

    /// The block light at voxel `p` (from glowing blocks such as torches), 0 to 15, or -1 (see
    /// `get_light`).
    #[func]
    pub fn get_block_light(&mut self, p: Vector3i) -> i64 {
        self.light(p).map(|l| l.block() as i64).unwrap_or(-1)
    }

    /// True when the water flow of every edit so far has been applied (always true with
    /// `water_flow_enabled` off or before streaming starts). Flows run on a thread and are applied
    /// in later frames; wait for this before reading water an edit moved, or before saving.
    #[func]
    pub fn is_water_settled(&self) -> bool {
        self.streamer.as_ref().is_none_or(|s| s.is_water_settled())
    }

    /// Sets voxel `p` to block `id` (0 = air) as a player edit: remeshed at once, kept in saves.
    /// With `water_flow_enabled`, water then flows (see `is_water_settled()`).
    #[func]
    pub fn set_voxel(&mut self, p: Vector3i, id: i64) {
        let count = self.library().map(|l| l.len()).unwrap_or(strata_core::base::block::BLOCK_COUNT as usize);
        let Some(id) = u16::try_from(id).ok().filter(|&b| (b as usize) < count) else {
            godot_error!(
                "StrataChunkWorld.set_voxel: block id {id} is not a block of the world's library; allowed: 0..={}",
                count - 1
            );
            return;
        };
        let q = IVec3::new(p.x, p.y, p.z);
        if !voxel_in_world(q) {
            godot_error!(
                "StrataChunkWorld.set_voxel: voxel {p} is beyond the world's bounds; allowed: x, y and z in {}..{}",
                -WORLD_LIMIT_VOXELS,
                WORLD_LIMIT_VOXELS
            );
            return;
        }
        self.ensure_streamer();
        let before = self.edits().and_then(|e| e.get(q));
        match self.streamer.as_mut() {
            Some(s) => {
                s.set_voxel(q, id);
                self.area_ready_emitted = false;
            }
            None => self.host.kept_edits_mut().set(q, id),
        }
        self.edit_written(VoxelChange { pos: q, before, after: Some(id) });
    }

    /// The first solid voxel (solid in the world's `block_library`) on the ray from `from` (in
    /// this node's space) along `direction`, within `max_distance` voxels (at most 512): a
    /// dictionary with "hit" (true), "position" (Vector3i, the voxel, in world voxels), "normal"
    /// (Vector3i, the face the ray entered; zero when `from` is inside it), "point" (Vector3,
    /// where the ray entered, in this node's space), "distance" (float) and "block"
    /// (int); `{}` when nothing is hit. Exact: every voxel the ray passes through is checked, in
    /// order. Edits included; works anywhere, loaded or not: voxels of chunks the workers
    /// generated are read from their cache, others are generated one by one on the main thread
    /// (so keep rays into unloaded space short). A zero or non-finite direction is an error in
    /// `last_error()` and returns `{}`.
    #[func]
    pub fn raycast(&mut self, from: Vector3, direction: Vector3, max_distance: f64) -> VarDictionary {
        let Some(g) = self.generator() else { return VarDictionary::new() };
        let library = match self.library() {
            Ok(l) => l,
            Err(e) => {
                self.host.error(format!("StrataChunkWorld.raycast: the block library is invalid: {e}"));
                return VarDictionary::new();
            }
        };
        let cache = self.streamer.as_ref().map(|s| s.voxel_cache());
        match world_edits::raycast_dictionary(
            &g,
            self.edits(),
            cache,
            library.solid_table(),
            (self.origin, from),
            direction,
            max_distance,
        ) {
            Ok(d) => d,
            Err(e) => {
                self.host.error(format!("StrataChunkWorld.raycast: {e}"));
                VarDictionary::new()
            }
        }
    }

    /// In the editor, makes the preview (`editor_preview`) stream around `global_position` (the
    /// editor camera's, passed every frame by the Strata editor plugin) instead of the origin.
    /// Ignored by a running game, which follows `viewer`. A position that is not finite changes
    /// nothing; the message is in `last_error()`.
    #[func]
    pub fn set_editor_viewer(&mut self, global_position: Vector3) {
        if !global_position.is_finite() {
            self.host.error(format!(
                "StrataChunkWorld.set_editor_viewer: {global_position} is not finite; allowed: a finite position"
            ));
            return;
        }
        self.editor_viewer = Some(global_position);
    }

    /// The position the editor preview streams around (see `set_editor_viewer`); the origin
    /// until one was set.
    #[func]
    pub fn get_editor_viewer(&self) -> Vector3 {
        self.editor_viewer.unwrap_or(Vector3::ZERO)
    }

    /// The structures (from the preset's `structure_rules`) whose boxes meet the columns of
    /// `area` (its x and z, in this node's space; any height): an array of dictionaries with "structure" (its name),
    /// "rule" (index in `structure_rules`), "position" (Vector3i, the box's minimum corner),
    /// "size" (Vector3i) and "turns" (quarter turns about +y, 0–3). The same answer on every
    /// machine and before any chunk loads: placement is a pure function of seed, rule and cell.
    /// At most 4,096 × 4,096 columns are asked; a larger area is an error in `last_error()`.
    #[func]
    pub fn get_structures_in(&mut self, area: Aabb) -> Array<VarDictionary> {
        let mut out = Array::new();
        let Some(g) = self.generator() else { return out };
        let Some((min, max)) = self.area_columns("get_structures_in", area) else { return out };
        let rules = &g.preset().structures.rules;
        for p in g.structures_in(min, max) {
            let mut d = VarDictionary::new();
            let name = rules.get(p.rule as usize).map(|r| r.structure.as_str()).unwrap_or("");
            d.set("structure", &GString::from(name).to_variant());
            d.set("rule", p.rule as i64);
            d.set("position", Vector3i::new(p.min.x, p.min.y, p.min.z));
            d.set("size", Vector3i::new(p.size.x, p.size.y, p.size.z));
            d.set("turns", p.turns as i64);
            out.push(&d);
        }
        out
    }

    /// The trees of blocks (the preset's tree settings, `tree_settings_ron`) whose boxes meet
    /// the columns of `area` (its x and z, in this node's space; any height): an array of
    /// dictionaries with "species" (its name), "position" (Vector3i, the trunk's base: the first
    /// log above the ground, in world voxels as `get_structures_in` gives them), "trunk_height"
    /// (logs of the trunk), "crown_radius" (0 for a bare tree) and "height" (one past its top,
    /// above its base), in the order they are stamped. Empty while trees are off. The same answer
    /// on every machine and before any chunk loads. At most 4,096 × 4,096 columns are asked; a
    /// larger area is an error in `last_error()`.
    #[func]
    pub fn get_trees_in(&mut self, area: Aabb) -> Array<VarDictionary> {
        let mut out = Array::new();
        let Some(g) = self.generator() else { return out };
        let Some((min, max)) = self.area_columns("get_trees_in", area) else { return out };
        for p in g.trees_in(min, max) {
            let (Some(species), Some(size)) = (g.tree_species_name(&p), g.tree_size(&p)) else { continue };
            let base = p.trunk();
            let mut d = VarDictionary::new();
            d.set("species", &GString::from(species).to_variant());
            d.set("position", Vector3i::new(base.x, base.y, base.z));
            d.set("trunk_height", size.trunk_height as i64);
            d.set("crown_radius", size.crown_radius as i64);
            d.set("height", size.height as i64);
            out.push(&d);
        }
        out
    }

    /// Name of the block with id `id` in the world's `block_library` ("" for unknown ids).
    #[func]
    pub fn get_block_name(&self, id: i64) -> GString {
        let Ok(id) = u16::try_from(id) else { return GString::new() };
        self.library().ok().and_then(|l| l.name_of(id).map(GString::from)).unwrap_or_default()
    }

    /// Id of the block named `name` in the world's `block_library`, or -1.
    #[func]
    pub fn get_block_id(&self, name: GString) -> i64 {
        self.library().ok().and_then(|l| l.id_of(&name.to_string())).map(|id| id as i64).unwrap_or(-1)
    }

    /// The ids of this world's custom monitors in the debugger's Monitors tab
    /// (`Performance.get_custom_monitor(id)`): `Strata/loaded_chunks`, `Strata/queued_jobs`
    /// (chunks waiting for or on a worker), `Strata/apply_ms` (main-thread time last frame),
    /// `Strata/memory_mb` (the streamer's estimate), `Strata/far_columns` and `Strata/entities`;
    /// a second world's are under `Strata #2/`. Empty while the world is out of the tree or in the
    /// editor.
    #[func]
    pub fn get_monitors(&self) -> PackedStringArray {
        self.monitors.ids()
    }

    /// Streaming counters: `loaded_chunks`, `pending_chunks`, `in_flight`, `queued`, `retiring`,
    /// `generated_total`, `cancelled_total`, `gen_ms_median`, `mesh_ms_median`,
    /// `far_loaded`, `far_pending`, `far_view_levels` (in use now), `far_ms_median`,
    /// `collision_queue`, `apply_chunk_us_median` / `apply_far_us_median` (main-thread time to
    /// make one meshed chunk's / far column's nodes), the meshed chunk's by part:
    /// `apply_chunk_bookkeeping_us_median` (its entities, navigation and old nodes),
    /// `apply_chunk_scatter_us_median`, `apply_chunk_mesh_us_median` (its `ArrayMesh` from the
    /// worker's streams), `apply_chunk_node_us_median` (its `MeshInstance3D` into the tree),
    /// `apply_chunk_occluders_us_median` (its occluder bits and material copies),
    /// `apply_chunk_collision_us_median` (its faces compared and queued), `collision_us_median` / `collision_us_max`
    /// (one collision build step on the main thread, of the last 512: a part's shape of at most
    /// 600 triangles, or a chunk's whole when it has no more; the last step also puts the body
    /// in the tree), the same by kind of step: `collision_start_us_*` (making a body's nodes),
    /// `collision_part_us_*` (a part's shape), `collision_swap_us_*` (the finished body into the
    /// tree in place of the old one), `collision_start_from_mesh_us_*` (making a body whose faces
    /// are read back from its render mesh: it was meshed before it came within collision reach),
    /// `collision_building` (a body being built, part by part),
    /// `apply_ms_last_frame`, `workers`, `nodes`,
    /// `far_nodes`, `nodes_to_free` (hidden nodes of unloaded chunks and far columns not freed
    /// yet), `edits`, `memory_budget_mb`, `memory_estimate_mb` (loaded chunks and far columns at
    /// 128 KiB each, see `memory_budget_mb`), `chunk_mesh_mb` / `far_mesh_mb` (the mesh streams
    /// handed to Godot for the loaded chunks / far columns, in its uncompressed stored form),
    /// `occluder_chunks` / `occluder_far_columns` / `occluder_materials` (chunks and far columns
    /// whose AO the block shaders compute from their occluder bits, and their own material
    /// copies naming them), `occluder_spare_materials` (copies of meshes taken out of the world,
    /// kept for the next meshes to reuse), `occluder_pages` / `occluder_layers` (the shared texture arrays
    /// holding those bits and their layers in use), `voxel_cache_mb` / `voxel_cache_entries`
    /// (the workers' cache of generated voxels, for light and raycasts), `voxel_cache_hits` / `voxel_cache_misses` (its
    /// lookups so far; a miss generates a chunk),
    /// `heap_in_use_mb` / `heap_free_mb` (the C heap of the whole process over all arenas, in
    /// use and kept free; Linux with glibc only), `view_distance_effective` (the view distance in
    /// use: `view_distance`, or less while the memory budget holds it back), `heightmap_loading`
    /// (the preset's heightmap file is loading: no world until it is in),
    /// `heightmap_loads_total` (heightmap files this process decoded; each is loaded once), and
    /// with `navigation_enabled`: `nav_regions` (chunks with a navigation region),
    /// `nav_queue` (baked meshes waiting to be registered), `nav_bake_us_median` /
    /// `nav_bake_us_max` (one chunk's navigation bake on a worker, of the last 512) and
    /// `nav_register_us_median` (main-thread time to register one chunk's mesh); with a
    /// `generation_hook`: `generation_hook_calls` (boxes handed to it), `generation_hook_ms`
    /// (main-thread time running it), `generation_hook_us_mean` (one call),
    /// `generation_hook_wait_ms` (the workers' time waiting for it, summed) and
    /// `generation_hook_failures`; with `horizon_shadows`: `horizon_tiles_ready` (tiles of the
    /// horizon map around the viewer in the texture), `horizon_tiles_pending` (on their way)
    /// and `horizon_tiles_uploaded` (copied in since the map was made); with `climate_tint`:
    /// `climate_tiles_ready`, `climate_tiles_pending`, `climate_tiles_uploaded`, the same of the
    /// climate map (tiles of 16 × 16 chunk-column corners).
    #[func]
    pub fn get_stats(&self) -> VarDictionary {
        let st = self.streamer.as_ref().map(|s| s.stats()).unwrap_or_default();
        let edits = self.edits().map(|e| e.len()).unwrap_or(0);
        let mut d = world_host::stream_stats(&st, "mesh_ms_median", self.apply_ms_last_frame, edits);
        d.set("queued", st.queued as i64);
        d.set("retiring", st.retiring as i64);
        d.set("far_loaded", st.far_loaded as i64);
        d.set("far_pending", st.far_pending as i64);
        d.set("far_view_levels", st.lod_levels as i64);
        d.set("far_ms_median", st.far_gen_us_median / 1000.0);
        d.set("collision_queue", self.collision_queue.len() as i64);
        d.set("collision_building", self.collision_build.is_some());
        d.set("apply_chunk_us_median", self.apply_us.median());
        d.set("apply_far_us_median", self.apply_far_us.median());
        for (name, samples) in ApplyPhase::NAMES.iter().zip(&self.apply_phases_us) {
            d.set(&GString::from(&format!("apply_chunk_{name}_us_median")), samples.median());
        }
        d.set("collision_us_median", self.collision_us.median());
        d.set("collision_us_max", self.collision_us.max());
        for (kind, samples) in ["start", "part", "swap", "start_from_mesh"].iter().zip(&self.collision_steps_us) {
            d.set(&GString::from(&format!("collision_{kind}_us_median")), samples.median());
            d.set(&GString::from(&format!("collision_{kind}_us_max")), samples.max());
        }
        d.set("origin_shifts", self.origin_shifts as i64);
        d.set("origin_shift_us_median", self.origin_shift_us.median());
        d.set("origin_shift_us_max", self.origin_shift_us.max());
        d.set("far_nodes", self.far_nodes.len() as i64);
        d.set("nodes", self.nodes.values().filter(|n| n.mesh.is_some()).count() as i64);
        d.set("nodes_to_free", self.nodes_to_free.len() as i64);
        d.set("memory_budget_mb", self.memory_budget_mb);
        let estimate = self.streamer.as_ref().map(|s| s.memory_estimate_bytes()).unwrap_or(0);
        d.set("memory_estimate_mb", estimate as f64 / (1024.0 * 1024.0));
        let mb = |b: usize| b as f64 / (1024.0 * 1024.0);
        d.set("chunk_mesh_mb", mb(self.mesh_bytes_total[0]));
        d.set("occluder_chunks", self.nodes.values().filter(|n| n.occluders.is_some()).count() as i64);
        d.set("occluder_far_columns", self.far_nodes.values().filter(|n| n.occluders.is_some()).count() as i64);
        d.set("occluder_materials", self.shown_occluder_materials().count() as i64);
        d.set("occluder_spare_materials", self.occluder_pages.spare_materials().count() as i64);
        let (pages, layers) = self.occluder_pages.usage();
        d.set("occluder_pages", pages as i64);
        d.set("occluder_layers", layers as i64);
        d.set("far_mesh_mb", mb(self.mesh_bytes_total[1]));
        let (cache_entries, cache_bytes) = self.streamer.as_ref().map(|s| s.voxel_cache_usage()).unwrap_or((0, 0));
        d.set("voxel_cache_entries", cache_entries as i64);
        d.set("voxel_cache_mb", mb(cache_bytes));
        let (hits, misses) = self.streamer.as_ref().map(|s| s.voxel_cache_lookups()).unwrap_or((0, 0));
        d.set("voxel_cache_hits", hits as i64);
        d.set("voxel_cache_misses", misses as i64);
        if let Some((in_use, free)) = crate::base::allocator::heap_usage() {
            d.set("heap_in_use_mb", mb(in_use));
            d.set("heap_free_mb", mb(free));
        }
        let effective = self.streamer.as_ref().map(|s| s.effective_view_distance()).unwrap_or(self.distances().0);
        d.set("view_distance_effective", effective as i64);
        d.set("heightmap_loading", self.host.is_loading_heightmap());
        d.set("heightmap_loads_total", crate::resources::heightmaps::loads_total() as i64);
        d.set("entities", self.entities.live_count() as i64);
        d.set("entities_queued", self.entities.queued_count() as i64);
        d.set("entities_kept", self.entities.kept_count() as i64);
        d.set("entity_spawn_us_median", self.entities.spawn_us.median());
        let (ready, pending, uploaded) = self.horizon.stats();
        d.set("horizon_tiles_ready", ready as i64);
        d.set("horizon_tiles_pending", pending as i64);
        d.set("horizon_tiles_uploaded", uploaded as i64);
        let (ready, pending, uploaded) = self.climate.stats();
        d.set("climate_tiles_ready", ready as i64);
        d.set("climate_tiles_pending", pending as i64);
        d.set("climate_tiles_uploaded", uploaded as i64);
        self.generation_hook_stats(&mut d);
        self.navigation_stats(&mut d);
        d
    }
}

impl ChunkWorld {
    /// Runs `f` with this world's voxels as the server's movement checks see them: solid blocks
    /// of the loaded chunks (edits included), `None` elsewhere; no voxels at all while nothing
    /// streams or the library is invalid.
    pub(crate) fn with_solid_voxels<R>(&self, f: impl FnOnce(&dyn strata_core::net::movement::SolidVoxels) -> R) -> R {
        let (Some(streamer), Ok(library)) = (self.streamer.as_ref(), self.library()) else {
            return f(&strata_core::net::movement::NoVoxels);
        };
        let generator = streamer.generator().clone();
        let voxels = world_edits::LoadedSolids::new(
            &generator,
            Some(streamer.edits()),
            Some(streamer.voxel_cache()),
            library.solid_table(),
            |c| streamer.is_loaded(c),
        );
        f(&voxels)
    }
}

impl ChunkWorld {
    /// The world columns `[min, max)` (x, z) under `area` (in this node's space), at least one
    /// column each way; `None`, with an error naming `query`, when it spans more than
    /// 4,096 × 4,096 columns or leaves the world.
    fn area_columns(&mut self, query: &str, area: Aabb) -> Option<((i32, i32), (i32, i32))> {
        let (min, end) = (self.world_of_local(area.position), self.world_of_local(area.position + area.size));
        let (x0, z0) = (min[0].min(end[0]).floor() as i64, min[2].min(end[2]).floor() as i64);
        let (x1, z1) = (min[0].max(end[0]).ceil() as i64, min[2].max(end[2]).ceil() as i64);
        let limit = i32::MAX as i64;
        if !(x1 - x0 <= 4096 && z1 - z0 <= 4096 && [x0, z0, x1, z1].iter().all(|v| v.abs() < limit)) {
            self.host.error(format!(
                "StrataChunkWorld.{query}: area {area} spans {}×{} columns; allowed: at most 4096×4096 inside the world",
                x1 - x0,
                z1 - z0
            ));
            return None;
        }
        Some(((x0 as i32, z0 as i32), (x1.max(x0 + 1) as i32, z1.max(z0 + 1) as i32)))
    }
}
