//! `StrataChunkWorld`: the Node3D that streams a seeded world around a viewer.
//!
//! Each frame (main thread): read the viewer's position, tell the core [`Streamer`], free the
//! nodes of chunks that left the view, queue new jobs, then turn finished meshes into
//! `MeshInstance3D` children until `frame_budget_ms` is spent. Generation and meshing happen on
//! the streamer's worker threads; only plain Rust data crosses the channels, and the main thread
//! never blocks on them (law: Main thread never waits). With `far_view_levels > 0`, coarse far columns (one
//! `MeshInstance3D` each, no collision) extend the view to `view_distance · 32 · 2^levels` voxels;
//! a column or chunk that changes level stays until its replacement is in the tree.
//!
//! Queries (`get_voxel`, `get_height`, `debug_build_chunk_mesh`) are the core's
//! [`strata_core::stream::query`]: pure functions of the preset and the edits, so they work
//! anywhere, loaded or not. Preset identity, kept edits, game state, saves and the last error
//! are the [`WorldHost`] shared with `StrataChunkWorld2D`.
//!
//! This file holds the class, its signals, its settings' setters and the frame; its children add
//! `impl ChunkWorld` blocks: `queries.rs` (the query `#[func]`s, a secondary `#[godot_api]`
//! block), `streaming.rs` (the streamer and the viewers), `apply.rs` (finished work turned into
//! nodes), `edit_tools.rs`, `generation_hook.rs`, `own_structures.rs`, `debug_view.rs`,
//! `horizon_shadows.rs`, `climate_tint.rs`, `climate_tint_world.rs`, `occluder_pages.rs`,
//! `node_settings.rs`.
//!
//! May use: `strata_core` (streamer, queries, mesh data), `world_host`, `meshes`, `world_preset`.

use crate::base::ranges;
use crate::host::config_warnings;
use crate::host::meshes::SurfaceMaterials;
use crate::host::world_edits;
use crate::host::world_host::{self, WorldHost};
use crate::resources::block_library::BlockLibrary;
use crate::resources::structure::ResolvedStructures;
use crate::resources::world_preset::WorldPreset;
use godot::classes::geometry_instance_3d::{GiMode, ShadowCastingSetting};
use godot::classes::node::InternalMode;
use godot::classes::{
    ArrayMesh, Engine, INode3D, Material, MeshInstance3D, MultiMeshInstance3D, Node3D, PhysicsMaterial, ShaderMaterial,
    StaticBody3D,
};
use godot::global::Error;
use godot::prelude::*;
use navigation::WorldNavigation;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;
use strata_core::base::block_library::{BlockLibrary as CoreLibrary, default_library};
use strata_core::base::edits::EditMap;
use strata_core::base::shapes;
use strata_core::gen3d::pipeline::Generator;
use strata_core::light::LightProps;
use strata_core::mesh::bytes::{MeshBytes, VERTEX_STRIDE, attribute_stride};
use strata_core::mesh::{ChunkMesh, CollisionParts};
use strata_core::stream::far_policy::{LodColumn, MAX_LOD_LEVELS};

use strata_core::stream::scheduler::max_workers;
use strata_core::stream::streamer::{
    MAX_VERTICAL_VIEW_DISTANCE, MAX_VIEW_DISTANCE, MEMORY_BUDGET_MB_RANGE, StreamKey, StreamResult, Streamer,
};
use strata_core::{CHUNK_SIZE, ChunkCoord, IVec3};

mod apply;
mod climate_tint;
mod climate_tint_world;
mod debug_lines;
mod debug_view;
mod edit_tools;
mod entities;
mod entity_nodes;
mod generation_hook;
mod hook_service;
mod horizon_shadows;
mod navigation;
mod navigation_regions;
mod node_settings;
mod occluder_pages;
use occluder_pages::{OccluderPages, OccluderSlot};
mod floating_origin;
mod frame_trace;
mod own_structures;
mod queries;
mod streaming;
use crate::base::monitors::{Monitor, Monitors, Reading};
use strata_core::base::edit_history::{EditHistory, VoxelChange};

/// The nodes that show one loaded chunk.
struct ChunkNode {
    mesh: Option<Gd<MeshInstance3D>>,
    body: Option<Gd<StaticBody3D>>,
    /// The faces `body` was built from, when known: a rebuilt chunk whose faces are the same (an
    /// edit nearby changed only its light) keeps its body.
    faces: Option<CollisionParts>,
    /// One MultiMeshInstance3D per decoration kind present.
    scatter: Vec<Gd<MultiMeshInstance3D>>,
    /// Where its occluder bits are in the world's pages, when its AO is computed per fragment.
    occluders: Option<OccluderSlot>,
    /// The mesh's own copies of the block materials, naming its occluder bits.
    materials: Vec<Gd<ShaderMaterial>>,
}

/// A chunk's collision body while it is built: the body (not in the tree yet) and the parts of
/// the faces it will hold, as the workers split them. Each step gives the body one part's
/// `CollisionShape3D` with its shape; the last puts the body in the tree in place of the chunk's
/// old one, so the chunk is never without collision.
struct CollisionBuild {
    chunk: ChunkCoord,
    body: Gd<StaticBody3D>,
    parts: CollisionParts,
    /// The next part to build.
    next: usize,
}

/// What one collision build step on the main thread did (each kind timed apart in
/// `get_stats()`).
#[derive(Clone, Copy)]
enum CollisionStep {
    /// Made a body (its node alone), for the faces the worker made and split.
    Start = 0,
    /// Gave the body one part's `CollisionShape3D` and shape, with the part's faces.
    Part = 1,
    /// Put the finished body in the tree in place of the old one.
    Swap = 2,
    /// As `Start`, the faces read back from the chunk's render mesh and split (it was meshed
    /// before it came within collision reach, so the worker made none).
    StartFromMesh = 3,
}

/// The parts of applying a meshed near chunk on the main thread, each timed apart in
/// `get_stats()` (`apply_chunk_<name>_us_median`).
#[derive(Clone, Copy)]
enum ApplyPhase {
    /// Its entities, navigation and the old nodes it replaces.
    Bookkeeping = 0,
    /// Its scatter's `MultiMeshInstance3D`s.
    Scatter = 1,
    /// Its `ArrayMesh` from the worker's streams.
    Mesh = 2,
    /// Its `MeshInstance3D` made, set up and added to the tree.
    Node = 3,
    /// Its occluder bits uploaded and its own material copies made.
    Occluders = 4,
    /// Its collision faces compared with the old and queued.
    Collision = 5,
}

impl ApplyPhase {
    const COUNT: usize = 6;
    const NAMES: [&str; Self::COUNT] = ["bookkeeping", "scatter", "mesh", "node", "occluders", "collision"];
}

/// A far column's node.
struct FarNode {
    mesh: Gd<MeshInstance3D>,
    /// Where the column's occluder bits are in the world's pages, when its AO is computed per
    /// fragment.
    occluders: Option<OccluderSlot>,
    /// The mesh's own copies of the block materials, naming the column's occluder bits.
    materials: Vec<Gd<ShaderMaterial>>,
}

/// Nodes of unloaded chunks freed every frame even when the budget is spent.
const MIN_FREES_PER_FRAME: usize = 8;

/// Smoothed frame time above which the adaptive far view counts the machine as overloaded
/// (below 20 frames per second).
const SLOW_FRAME_S: f64 = 0.05;

/// Streams an infinite, seeded voxel world around a viewer.
///
/// Add it to a scene, give it a `StrataWorldPreset` and a `viewer` (or let it follow the current
/// camera), and chunks of terrain stream in and out within `view_distance`. Chunk meshes are
/// `MeshInstance3D` children; chunks near the viewer also get collision.
#[derive(GodotClass)]
#[class(tool, base = Node3D, rename = StrataChunkWorld)]
pub struct ChunkWorld {
    base: Base<Node3D>,
    /// The world's settings; same preset (seed included), same world. Null: the default
    /// `StrataWorldPreset` (the editor warns).
    #[var(set)]
    #[export]
    preset: Option<Gd<WorldPreset>>,
    /// The node (a `Node3D`) the world streams around; empty = the current `Camera3D`, or the
    /// origin when there is none (the editor warns).
    #[var(set)]
    #[export]
    viewer: NodePath,
    /// The blocks the world is made of (ids are indices); empty = the default library
    /// (`StrataBlockLibrary.create_default()`). Saves store the names of the blocks edits use, so a
    /// save loads into a library whose blocks were added to or reordered; a block it lacks is
    /// refused by `load_world` with its name.
    #[var(set)]
    #[export]
    block_library: Option<Gd<BlockLibrary>>,
    /// The world's own structures, which its preset's `structure_rules` may name besides the
    /// shipped ones (`cottage`, `ruin`, `crypt`; one of the same name replaces a shipped one).
    /// Their block names are looked up in `block_library` when the world builds: a name it lacks
    /// stops the world from building, the error (naming the structure and block) in
    /// `last_error()`. Setting it rebuilds the world (edits kept); after changing a
    /// `StrataStructure` in place, set the array again. Saves keep a fingerprint of them
    /// (`get_structures_fingerprint()`): `load_world` warns when a save was made with others.
    #[var(set)]
    #[export]
    structures: Array<Option<Gd<crate::resources::structure::Structure>>>,
    /// Water flows after edits (default on): dig beside a lake and the water flows into the hole
    /// up to the lake's level; take the ground from under water and it falls. The flow of each
    /// edit is computed on a flow thread, in edit order, at most 4,096 voxels per edit, and
    /// applied as edits (saved with the others); `is_water_settled()` tells when every flow has
    /// been applied. Off, edits leave water where it is and pending flows are dropped.
    #[export]
    water_flow_enabled: bool,
    /// The player edits saved with the scene (storage only, not shown in the inspector): the
    /// edits in the format of `save_world` (the preset left out), written when the scene is
    /// saved and loaded when it is opened or instanced, so voxels painted in the editor show in
    /// the game. Decoded with the `block_library` set before it; bytes that do not load are
    /// kept unchanged (the error in `last_error()`). Setting it replaces the edits and clears
    /// the undo history.
    #[var(get, set)]
    #[export(storage)]
    edits_data: PackedByteArray,
    /// Radius of the loaded area, in chunks (32 voxels each): 1 to 32 (default 8). The memory
    /// budget may hold the streamer to less (`get_stats()["view_distance_effective"]`).
    #[export_group(name = "Streaming")]
    #[var(set)]
    #[export(range = (1.0, 32.0))]
    view_distance: i64,
    /// Chunks loaded above and below the viewer's chunk: 1 to 16 (default 3).
    #[var(set)]
    #[export(range = (1.0, 16.0))]
    vertical_view_distance: i64,
    /// Worker threads for generation and meshing: 0 = automatic (cores − 1, at least 2), else 1
    /// to twice the machine's cores (at most 32). Read when streaming starts.
    #[var(set)]
    #[export(range = (0.0, 32.0))]
    worker_threads: i64,
    /// Main-thread time per frame for turning finished chunks into nodes, in milliseconds: 0.05
    /// to 100 (default 3, which leaves a millisecond of a 4 ms target for the odd stall of the
    /// machine). NaN keeps the previous value.
    #[var(set)]
    #[export(range = (0.05, 100.0))]
    frame_budget_ms: f64,
    /// Memory the loaded chunks and far columns may take, in MiB: 64 to 65,536 (default 1,024).
    /// When the view asked for would take more, the streamer lowers the view distance (the
    /// nearest chunks stay) until it fits. The memory is an estimate, 128 KiB per loaded chunk
    /// or far column (a documented constant standing for its meshes, nodes and collision, not
    /// a measurement of each chunk; edits, textures and the rest of the scene are not counted).
    #[var(set)]
    #[export(range = (64.0, 65536.0))]
    memory_budget_mb: i64,
    /// Far view: levels of coarser columns beyond `view_distance`, 0 (none) to 6 (default 3).
    /// Each level doubles the cell size and the distance, so 3 levels at view distance 8 reach
    /// 2,048 voxels.
    #[export_group(name = "Far view")]
    #[var(set)]
    #[export(range = (0.0, 6.0))]
    far_view_levels: i64,
    /// Lower the far levels while the near chunks cannot keep up with the viewer (slow machine,
    /// sprinting), and restore them when the workers are idle.
    #[export]
    adaptive_far_view: bool,
    /// Far columns farther than this from the camera are not drawn (metres;
    /// `GeometryInstance3D.visibility_range_end`): 0 (the default) draws the whole far view.
    #[var(set)]
    #[export(range = (0.0, 100000.0, or_greater, suffix = "m"))]
    far_visibility_range_end: f32,
    /// Far columns fade out over this many metres before `far_visibility_range_end` (0: a hard
    /// cut; `GeometryInstance3D.visibility_range_end_margin` with fade mode "self").
    #[var(set)]
    #[export(range = (0.0, 10000.0, or_greater, suffix = "m"))]
    far_visibility_range_end_margin: f32,
    /// Chunks within this radius (in chunks, per axis) of the viewer get collision shapes: 0 to
    /// 8 (default 1).
    #[export_group(name = "Collision")]
    #[var(set)]
    #[export(range = (0.0, 8.0))]
    collision_distance: i64,
    /// The physics layers the chunks' bodies are in (`CollisionObject3D.collision_layer`): a ray
    /// or body whose mask shares a bit with it hits the terrain. Default layer 1.
    #[var(set)]
    #[export(flags_3d_physics)]
    collision_layer: u32,
    /// The physics layers the chunks' bodies scan (`CollisionObject3D.collision_mask`; static
    /// bodies rarely need more than the default, layer 1).
    #[var(set)]
    #[export(flags_3d_physics)]
    collision_mask: u32,
    /// The chunks' bodies' `collision_priority`: how strongly a body is pushed out of the terrain
    /// when it penetrates it (default 1).
    #[var(set)]
    #[export(range = (0.0, 1000.0, or_greater))]
    collision_priority: f32,
    /// Friction, bounce and absorbency of the terrain: the chunks' bodies'
    /// `physics_material_override` (null: Godot's defaults).
    #[var(set)]
    #[export]
    physics_material_override: Option<Gd<PhysicsMaterial>>,
    /// A material for every chunk surface in place of the addon's block shaders (which sample
    /// the library's texture array): a user's own shader reads `VERTEX`, `COLOR` (face shade
    /// and ambient occlusion; a block without textures also its colour) and `CUSTOM0.r` (one
    /// whole number, layer + 4096 × (light + 256 × direction): the face's layer in
    /// `StrataBlockLibrary.build_texture_array()`, 4095 for none; its light, sky light × 16 + block
    /// light, each 0–15, the same at all four corners; its direction 0–5, +x −x +y −y +z −z).
    /// Meshes carry no normals or texture coordinates: include
    /// `res://addons/strata/shaders/blocks.gdshaderinc`, whose `vertex()` sets `NORMAL` and `UV`
    /// (in voxels) from them. Setting it redraws the world; edits are kept.
    #[export_group(name = "Rendering")]
    #[var(set)]
    #[export]
    material_override: Option<Gd<Material>>,
    /// Sky and block light baked into the chunk meshes: caves are dark, light spreads from the
    /// open sky and from emissive blocks (the library's `light_emission`), and edits relight
    /// the chunks around them. Off: every face is lit as under open sky. Changing it remeshes
    /// the loaded world in the background.
    #[var(set)]
    #[export]
    light_enabled: bool,
    /// How much of the sky's light is day: 1 at noon, 0 at midnight (the block shaders' uniform
    /// `daylight`). Sky light is scaled by it in the shader, so torches stand out at night;
    /// 0 to 1 (clamped with a warning).
    #[var(set)]
    #[export(range = (0.0, 1.0))]
    daylight: f64,
    /// Ambient occlusion on block faces (darkened corners and step bases), computed per fragment
    /// by the block shaders from each chunk's occluder bits (baked into the vertex colours with
    /// `material_override`). Off: flat lighting. Changing it remeshes the loaded world in the
    /// background; the old meshes stay until then.
    #[export]
    ambient_occlusion: bool,
    /// Sun shadows to the horizon (default on): once the view is ready, a worker samples the
    /// land's height every 8 voxels in a window around the viewer (the view and 1,024 voxels
    /// beyond, at most 7,680 voxels across), and beyond the shader uniform `horizon_start`
    /// (96 m) the block shaders march each fragment's line to every directional light over it:
    /// where the land rises above the line, the light is shaded, so mountains shade valleys at
    /// every distance and time of day, past the reach of the light's shadow maps. The ground as
    /// generated (not edits, structures or trees) casts these shadows. Off: the shadow maps
    /// alone.
    #[export]
    horizon_shadows: bool,
    /// Grass and foliage tinted by climate (default on): faces whose block tints them
    /// (`StrataBlockType.tint_top`, `tint_side`, `tint_bottom`; in the default library the grass
    /// top and leaves) are multiplied by a colour map (`grass_colors`, `foliage_colors`) at the
    /// temperature and moisture of their column, blended smoothly between the corners of chunk
    /// columns (every 32 voxels), so hot dry land turns olive and yellow-green, cold land
    /// blue-green and hot wet land lush, with no step at chunk borders and the same tint on near
    /// chunks and far columns. At the average climate the faces look as authored. A worker
    /// computes the climate in a window around the viewer (the view and 512 voxels beyond, at
    /// most 15,872 voxels across; past it the tint fades out). The side view is not tinted.
    /// Off: every face as authored.
    #[export]
    climate_tint: bool,
    /// The grass colour map: four colours at the corners of the climate square, in the order
    /// cold and dry, hot and dry, cold and wet, hot and wet (blended between them); a grass face
    /// is multiplied by the map's colour at its climate over the map's colour at the average
    /// climate. Empty (the default): the built-in map (`strata_core::gen3d::climate_tint::GRASS_MAP`:
    /// grey-blue green, olive, blue-green, lush green). Another count than 0 or 4, or a channel
    /// outside 0 to 1, is refused with an error.
    #[var(set)]
    #[export]
    grass_colors: PackedColorArray,
    /// The foliage colour map, as `grass_colors` (built-in: `FOLIAGE_MAP`, a little darker and
    /// bluer than grass).
    #[var(set)]
    #[export]
    foliage_colors: PackedColorArray,
    /// Whether chunks become meshes to show (default on). A dedicated server turns it off: its
    /// voxels, edits, collision, navigation, water and entities work as before, and no chunk
    /// mesh, occluder page or decoration (`MultiMeshInstance3D`) is made on its main thread.
    /// Takes effect for the chunks applied from then on.
    #[export]
    render_meshes: bool,
    /// The render layers of the chunk meshes, scatter and far columns (`VisualInstance3D.layers`):
    /// a camera's `cull_mask` or a light's `light_cull_mask` picks the terrain by them. Default 1.
    #[var(set)]
    #[export(flags_3d_render)]
    layers: u32,
    /// Whether the chunk meshes, scatter and far columns cast shadows
    /// (`GeometryInstance3D.cast_shadow`; default on: far terrain shades valleys too).
    #[var(set)]
    #[export]
    cast_shadow: ShadowCastingSetting,
    /// Global illumination mode of the chunk meshes, scatter and far columns
    /// (`GeometryInstance3D.gi_mode`; default static, as for any mesh).
    #[var(set)]
    #[export]
    gi_mode: GiMode,
    /// Navigation meshes for the chunks near the viewers, registered with `NavigationServer3D`
    /// on the world's default navigation map: a `NavigationAgent3D` (or
    /// `NavigationServer3D.map_get_path`) finds paths over the streamed terrain. Baked on the
    /// workers with each chunk (ground with two open voxels above it, steps of one voxel, no
    /// water) and again after edits. Off by default; turning it off frees the regions.
    #[export_group(name = "Navigation")]
    #[var(set)]
    #[export]
    navigation_enabled: bool,
    /// Chunks within this many chunks of a viewer (per axis) get navigation: 1 to 8 (default 2;
    /// clamped with a warning).
    #[var(set)]
    #[export(range = (1.0, 8.0))]
    navigation_distance: i64,
    /// Entities (from the preset's spawn rules, or `add_entity`) stand in the world in chunks
    /// within this many chunks of a viewer (0–32, at most the view distance; vertically the
    /// vertical view distance); beyond it they leave the tree, kept as they are if they changed.
    #[export_group(name = "Entities")]
    #[var(set)]
    #[export(range = (0.0, 32.0))]
    entity_distance: i64,
    /// Keeps the engine's coordinates small far from the world's start: Godot's positions are
    /// 32-bit floats, whose step is 1/128 m at 100 km and 0.5 m at 4,000 km. On, when the viewer
    /// goes farther than `origin_shift_distance` from the world's `origin` on any axis, the world
    /// moves the origin to the viewer's chunk between frames: its own nodes (chunks, far columns,
    /// decorations, collision, navigation regions, entities, and any node under it), and every
    /// node in `origin_shift_group` with its navigation agents' targets, move back by the shift,
    /// then `origin_shifted(shift)` is emitted, all before the frame is drawn. Put the player (or
    /// whatever carries the viewer) in that group, or under the world; the origin does not move
    /// while the viewer would stay behind. Off (the default), the origin stays where it is
    /// (`set_origin` still moves it). Positions (`Vector3`, `Aabb`) in the world's methods and
    /// signals are in the node's space, world − origin; voxels (`Vector3i`) are world voxels.
    #[export_group(name = "Floating origin")]
    #[var(set)]
    #[export]
    floating_origin: bool,
    /// How far (voxels: metres) the viewer may go from `origin` on any axis before the origin
    /// moves: 64–16,384. At the default 1,024 an `f32` position's step is 1/16,384 m.
    #[var(set)]
    #[export(range = (64.0, 16384.0, suffix = "m"))]
    origin_shift_distance: f64,
    /// The group of the game's nodes that move with the origin (the player, its camera rig,
    /// projectiles, effects); a node whose ancestor is in the group or is the world moves with it.
    #[var]
    #[export]
    origin_shift_group: StringName,
    /// Where the node's space starts in the world (a chunk corner, world voxels).
    origin: strata_core::base::origin::FloatingOrigin,
    /// The viewer that did not follow a shift was reported (once per viewer).
    origin_warned: bool,
    /// Main-thread time of each origin shift (µs): moving the nodes, the regions and the group.
    origin_shift_us: strata_core::stream::scheduler::Samples,
    /// Origin shifts so far.
    origin_shifts: u64,
    /// In the editor, preview the world (regenerates when the preset changes) around the
    /// editor's 3D camera, which the Strata editor plugin passes (`set_editor_viewer`), or
    /// around the origin without the plugin. The preview's nodes belong to no scene: they are
    /// never saved into it.
    #[export_group(name = "Editor")]
    #[export]
    editor_preview: bool,
    /// Debug: draws lines over the world, in game and in the editor viewport: each loaded
    /// chunk's bounds coloured by state (green: a mesh; cyan: a mesh and collision; orange:
    /// collision queued; grey: empty), each far column's by its level (yellow for the finest
    /// to blue for the coarsest), and the collision faces around the first viewer as a
    /// wireframe. Drawn through the terrain, rebuilt a few times a second; off by default.
    #[export_group(name = "Debug")]
    #[var(set)]
    #[export]
    debug_view: bool,
    /// `structures` resolved through the library, or None when to be resolved again.
    resolved_structures: Option<ResolvedStructures>,
    /// Code-driven generation: a `Callable` that amends every box of voxels the world generates,
    /// after the last stage (structures). Called as
    /// `hook(origin: Vector3i, size: Vector3i, voxels: PackedInt32Array) -> PackedInt32Array`:
    /// `voxels` holds block ids at index `(y * size.z + z) * size.x + x` from `origin`; return
    /// it amended (same length, ids of `block_library`). Boxes are chunks, padded chunks and
    /// other boxes the world needs, so decide each voxel from its world position and the block
    /// given there only: then the world stays seamless and the same on every run and machine.
    /// It runs on the main thread (the workers hand it their boxes and wait; each frame answers
    /// them within `frame_budget_ms`), so keep it fast and keep its object alive; it must not
    /// call this world. Sky chunks are handed to it as air. A call that fails (an error,
    /// another type or length, an unknown id) leaves its box as generated and is reported at
    /// most once a second in the console and `last_error()`; `get_stats()` shows its calls,
    /// time and failures. The far view shows the terrain without it. Saves and shared worlds
    /// do not carry it: set the same hook before loading or joining. An empty `Callable` (the
    /// default) turns it off. Setting it rebuilds the world; edits are kept.
    #[var(set)]
    generation_hook: Callable,
    /// The service that runs `generation_hook` for the workers, while it is set. Declared
    /// before `streamer`, so that when the world is freed it lets waiting workers go first.
    hook_service: Option<hook_service::HookService>,
    /// Failures of the hook reported so far, and when the last report was made.
    hook_failures_reported: u64,
    hook_reported_at: Option<Instant>,
    /// The horizon map's worker, texture and uniforms.
    horizon: horizon_shadows::HorizonShadows,
    /// The climate map's worker, texture and uniforms.
    climate: climate_tint::ClimateTint,
    /// Undo and redo steps of the edits (`undo()`, `redo()`).
    edit_history: EditHistory,
    /// The undo step (by id) of each edit batch whose water flow has not come back (by the
    /// batch's flow ticket): the flow joins that step when it is applied.
    flow_steps: HashMap<u64, u64>,
    /// Undone steps (by id) whose flow had not come back when they were undone: part of that
    /// flow is lost to the undo, so their redo runs the flow again.
    reflow_steps: std::collections::HashSet<u64>,
    /// Where the editor preview streams around (global position), set by `set_editor_viewer`.
    editor_viewer: Option<Vector3>,
    /// The world's objects: spawn points, live entities, what a save keeps of them.
    pub(crate) entities: entities::Entities,
    /// The navigation regions of the chunks and the baked meshes waiting for them.
    navigation: WorldNavigation,

    streamer: Option<Streamer>,
    /// Preset identity and generator, kept edits, game state and the last error.
    host: WorldHost<Generator>,
    nodes: HashMap<ChunkCoord, ChunkNode>,
    far_nodes: HashMap<LodColumn, FarNode>,
    /// Bytes of the mesh streams handed to Godot for each loaded chunk and far column (Godot's
    /// uncompressed stored form), and their sums: near chunks, far columns.
    mesh_bytes: HashMap<StreamKey, usize>,
    mesh_bytes_total: [usize; 2],
    /// Hands the memory that unloading freed back to the system now and then.
    trimmer: crate::base::allocator::Trimmer,
    /// Nodes of unloaded chunks and far columns: hidden at once, freed a few per frame within
    /// the budget (a view-distance plane of chunks freed in one frame cost ~4.5 ms).
    nodes_to_free: std::collections::VecDeque<(StreamKey, Gd<Node3D>)>,
    /// How many of `nodes_to_free` each chunk or column has, so one that loads again frees its
    /// old nodes first (their names are the new nodes' names; renaming each retired node instead
    /// cost ~10 µs).
    retired_keys: HashMap<StreamKey, u32>,
    /// The materials of the chunk surfaces (built on first use from `material_override` or the
    /// block shaders and the library's textures).
    surface_materials: Option<SurfaceMaterials>,
    /// The occluder bits of the chunks and far columns whose AO the shaders compute.
    occluder_pages: OccluderPages,
    /// Built-in meshes for trees, bushes, flowers and rocks (in `SCATTER_KINDS` order).
    scatter_meshes: Option<[Gd<ArrayMesh>; 4]>,
    apply_ms_last_frame: f64,
    /// Main-thread time to turn one finished near chunk with a mesh into nodes (µs), and one far
    /// column, for medians.
    apply_us: strata_core::stream::scheduler::Samples,
    apply_far_us: strata_core::stream::scheduler::Samples,
    /// Main-thread time of one collision build step (µs): a part's shape from its faces, the
    /// last step also putting the finished body in the tree.
    collision_us: strata_core::stream::scheduler::Samples,
    /// The same steps by kind ([`CollisionStep`]): making a body's nodes, a part's shape, putting
    /// the finished body in the tree, making a body from its render mesh.
    collision_steps_us: [strata_core::stream::scheduler::Samples; 4],
    /// A meshed chunk's apply by part ([`ApplyPhase`]), for medians.
    apply_phases_us: [strata_core::stream::scheduler::Samples; ApplyPhase::COUNT],
    /// The chunk whose collision body is being built, a part a step; swapped in whole.
    collision_build: Option<CollisionBuild>,
    /// Smoothed frame time in seconds, for the adaptive far view.
    frame_time_s: f64,
    area_ready_emitted: bool,
    /// The chunks of every viewer at the last frame (the first viewer first).
    last_viewer_chunks: Vec<ChunkCoord>,
    /// Warns once when the viewer leaves the world's bounds.
    viewer_bounds: ranges::ViewerBounds,
    /// Loaded chunks that came near the viewer and still need a collision shape, nearest last.
    collision_queue: Vec<ChunkCoord>,
    /// Collision faces of queued chunks, taken from the worker's mesh when they arrived (reading
    /// them back from an `ArrayMesh` costs far more).
    pending_faces: HashMap<ChunkCoord, CollisionParts>,
    /// Viewers besides `viewer` ([`StrataChunkWorld::add_viewer`]), sent to every new streamer too.
    extra_viewers: Vec<ExtraViewer>,
    /// The area [`StrataChunkWorld::preload_area`] keeps loaded, if any.
    preload: Option<PreloadArea>,
    /// Viewer ids to take out of the streamer at the next frame.
    removed_viewer_ids: Vec<u64>,
    /// The world's graphs in the debugger's Monitors tab, while it is in the tree in game.
    monitors: Monitors,
    /// The lines `debug_view` draws.
    debug: debug_lines::DebugView,
}

/// The world's custom monitors (`Strata/…` in the debugger's Monitors tab), read from
/// `get_stats()`.
const MONITORS: &[Monitor] = &[
    Monitor { name: "loaded_chunks", reading: Reading::Value("loaded_chunks") },
    Monitor { name: "queued_jobs", reading: Reading::Sum("pending_chunks", "in_flight") },
    Monitor { name: "apply_ms", reading: Reading::Value("apply_ms_last_frame") },
    Monitor { name: "memory_mb", reading: Reading::Value("memory_estimate_mb") },
    Monitor { name: "far_columns", reading: Reading::Value("far_nodes") },
    Monitor { name: "entities", reading: Reading::Value("entities") },
];

/// A viewer added with [`StrataChunkWorld::add_viewer`]: the node and its own view distance.
struct ExtraViewer {
    node: Gd<Node3D>,
    id: u64,
    view_distance: i32,
}

/// The area kept loaded by [`StrataChunkWorld::preload_area`].
struct PreloadArea {
    center: Vector3,
    radius: i32,
    /// `area_preloaded` was emitted for it.
    announced: bool,
}

/// The streamer's id of the preloaded area (node instance ids are never this).
const PRELOAD_VIEWER_ID: u64 = u64::MAX;

#[godot_api]
impl INode3D for ChunkWorld {
    fn init(base: Base<Node3D>) -> Self {
        Self {
            base,
            preset: None,
            viewer: NodePath::default(),
            block_library: None,
            structures: Array::new(),
            resolved_structures: None,
            generation_hook: Callable::invalid(),
            hook_service: None,
            hook_failures_reported: 0,
            hook_reported_at: None,
            material_override: None,
            light_enabled: true,
            daylight: 1.0,
            horizon_shadows: true,
            horizon: Default::default(),
            climate_tint: true,
            grass_colors: PackedColorArray::new(),
            foliage_colors: PackedColorArray::new(),
            climate: Default::default(),
            view_distance: 8,
            vertical_view_distance: 3,
            worker_threads: 0,
            frame_budget_ms: 3.0,
            collision_distance: 1,
            far_view_levels: 3,
            memory_budget_mb: 1024,
            adaptive_far_view: true,
            ambient_occlusion: true,
            render_meshes: true,
            collision_layer: 1,
            collision_mask: 1,
            collision_priority: 1.0,
            physics_material_override: None,
            layers: 1,
            cast_shadow: ShadowCastingSetting::ON,
            gi_mode: GiMode::STATIC,
            far_visibility_range_end: 0.0,
            far_visibility_range_end_margin: 0.0,
            editor_preview: true,
            floating_origin: false,
            origin_shift_distance: strata_core::base::origin::DEFAULT_SHIFT_DISTANCE,
            origin_shift_group: StringName::from("strata_origin_shift"),
            origin: Default::default(),
            origin_warned: false,
            origin_shift_us: Default::default(),
            origin_shifts: 0,
            edits_data: PackedByteArray::new(),
            edit_history: EditHistory::new(),
            flow_steps: HashMap::new(),
            reflow_steps: std::collections::HashSet::new(),
            water_flow_enabled: true,
            editor_viewer: None,
            entity_distance: 3,
            entities: Default::default(),
            navigation_enabled: false,
            navigation_distance: 2,
            navigation: WorldNavigation::default(),
            streamer: None,
            host: WorldHost::new("StrataChunkWorld"),
            nodes: HashMap::new(),
            far_nodes: HashMap::new(),
            mesh_bytes: HashMap::new(),
            mesh_bytes_total: [0; 2],
            trimmer: Default::default(),
            nodes_to_free: std::collections::VecDeque::new(),
            retired_keys: HashMap::new(),
            surface_materials: None,
            occluder_pages: OccluderPages::default(),
            scatter_meshes: None,
            apply_ms_last_frame: 0.0,
            frame_time_s: 0.0,
            apply_us: Default::default(),
            apply_far_us: Default::default(),
            collision_us: Default::default(),
            collision_steps_us: Default::default(),
            apply_phases_us: Default::default(),
            collision_build: None,
            area_ready_emitted: false,
            last_viewer_chunks: Vec::new(),
            viewer_bounds: Default::default(),
            collision_queue: Vec::new(),
            pending_faces: HashMap::new(),
            extra_viewers: Vec::new(),
            preload: None,
            removed_viewer_ids: Vec::new(),
            monitors: Monitors::default(),
            debug_view: false,
            debug: Default::default(),
        }
    }

    fn get_configuration_warnings(&self) -> PackedStringArray {
        self.configuration_warnings()
    }

    fn process(&mut self, delta: f64) {
        let editor = Engine::singleton().is_editor_hint();
        self.update_debug_view();
        if editor && !self.editor_preview {
            if self.streamer.is_some() {
                self.stop_streaming();
            }
            return;
        }
        self.restart_if_preset_changed();
        if self.streamer.is_none() {
            return;
        }
        self.serve_generation_hook();
        if !self.water_flow_enabled && self.streamer.as_ref().is_some_and(|s| s.is_water_flow_on()) {
            self.stop_water_flow_serving();
        }
        let mut viewer_local = if editor { self.editor_viewer_position() } else { self.viewer_position() };
        // The origin moves before anything of this frame is placed (with the nodes already
        // placed), so the frame draws everything in the new node space.
        if !editor && self.follow_viewer_with_origin(viewer_local) {
            viewer_local = self.viewer_position();
        }
        let viewer_pos = self.viewer_bounds.clamp("StrataChunkWorld", self.world_of_local(viewer_local), "voxels");
        let frame_start = Instant::now();
        // The setter keeps the budget within 0.05..=100 ms; clamped again so no value can panic.
        let budget =
            std::time::Duration::from_secs_f64(finite_or(self.frame_budget_ms, 3.0).clamp(0.05, 100.0) / 1000.0);
        let (vd, vvd, collision_r) = self.distances();
        let vd = if editor { vd.min(4) } else { vd };
        let (levels, adaptive) =
            (if editor { 0 } else { self.far_view_levels.clamp(0, 6) as u8 }, self.adaptive_far_view);
        let ambient_occlusion = self.ambient_occlusion;
        let memory_budget = self.memory_budget_mb.clamp(0, u32::MAX as i64) as u32;
        let direction = if editor { None } else { self.view_direction() };
        self.frame_time_s = if self.frame_time_s == 0.0 { delta } else { 0.9 * self.frame_time_s + 0.1 * delta };
        let slow_frames = self.frame_time_s > SLOW_FRAME_S;
        let extra = if editor { Vec::new() } else { self.extra_viewer_positions() };
        let removed = std::mem::take(&mut self.removed_viewer_ids);
        let (unloads, viewer_chunks) = {
            let s = self.streamer.as_mut().expect("checked above");
            if s.config().view_distance != vd || s.config().vertical_view_distance != vvd {
                s.set_view_distance(vd, vvd);
            }
            if s.config().lod_levels != levels || s.config().adaptive_far != adaptive {
                s.set_far_view(levels, adaptive);
            }
            if s.config().memory_budget_mb != memory_budget {
                s.set_memory_budget(memory_budget);
            }
            s.set_ambient_occlusion(ambient_occlusion);
            s.set_frame_pressure(slow_frames);
            if let Some(d) = direction {
                s.set_view_direction([d.x as f64, d.y as f64, d.z as f64]);
            }
            s.set_viewer(viewer_pos);
            for id in removed {
                s.remove_extra_viewer(id);
            }
            for (id, pos, distance) in extra {
                s.set_extra_viewer(id, pos, distance);
            }
            s.pump();
            crate::host::water_flow::update(s, self.water_flow_enabled, &mut self.host, "StrataChunkWorld");
            let chunks: Vec<ChunkCoord> = s.viewer_spots().iter().map(|v| v.chunk).collect();
            (s.take_unloads(), chunks)
        };
        self.apply_finished_flows();
        let mut trace = frame_trace::FrameTrace::new(frame_start);
        trace.end("viewer+pump");
        let n_unloads = unloads.len();
        for k in unloads {
            self.set_mesh_bytes(k, 0);
            match k {
                StreamKey::Near(c) => {
                    self.pending_faces.remove(&c);
                    self.entities.chunk_unloaded(c);
                    self.navigation.remove(c);
                    if let Some(mut n) = self.nodes.remove(&c) {
                        self.release_occluders(&mut n.occluders, &mut n.materials);
                        self.retire_chunk_node(c, n);
                    }
                    self.signals().chunk_unloaded().emit(to_vector3i(c));
                    self.area_ready_emitted = false;
                }
                StreamKey::Far(f) => {
                    if let Some(mut n) = self.far_nodes.remove(&f) {
                        self.release_occluders(&mut n.occluders, &mut n.materials);
                        self.retire_node(k, n.mesh.upcast());
                    }
                }
            }
        }
        // Free what earlier unloads left, within a quarter of the budget (a few at least, so the
        // queue always drains).
        let mut freed = 0;
        while freed < MIN_FREES_PER_FRAME || frame_start.elapsed() < budget / 4 {
            let Some((key, n)) = self.nodes_to_free.pop_front() else { break };
            n.free();
            freed += 1;
            if let Some(left) = self.retired_keys.get_mut(&key) {
                *left -= 1;
                if *left == 0 {
                    self.retired_keys.remove(&key);
                }
            }
        }
        self.trimmer.freed(freed);
        if viewer_chunks != self.last_viewer_chunks {
            self.last_viewer_chunks = viewer_chunks.clone();
            self.area_ready_emitted = false;
            if !viewer_chunks.is_empty() {
                self.update_collision_ring(&viewer_chunks, collision_r);
                self.update_navigation_ring(&viewer_chunks);
            }
        }
        trace.end("unload");
        // Collision first (the player stands on it), within half the budget; then new meshes for
        // the rest. At least one collision shape is built and one finished chunk is applied every
        // frame, so streaming always progresses even when the work before it used the budget
        // (the smallest budget, slow frames under software rendering).
        let mut built = 0;
        while built == 0 || frame_start.elapsed() < budget / 2 {
            let t = Instant::now();
            let kind = if self.collision_build.is_none() {
                let Some(c) = self.collision_queue.pop() else { break };
                let kind = self.start_collision_build(c, &viewer_chunks, collision_r);
                if self.collision_build.is_none() {
                    continue;
                }
                Some(kind)
            } else {
                self.step_collision_build(&viewer_chunks, collision_r)
            };
            built += 1;
            let step = t.elapsed();
            if let Some(kind) = kind {
                self.collision_us.push(step.as_micros() as u32);
                self.collision_steps_us[kind as usize].push(step.as_micros() as u32);
            }
            trace.step(step, "collision");
        }
        // Stop before a result that would likely overrun the budget (the typical cost of one,
        // from the medians so far), so frames stay within it rather than one result past it. The
        // medians are only worked out on frames that apply more than one result.
        let mut typical = None;
        let mut applied = 0;
        loop {
            if applied > 0 {
                let t = *typical.get_or_insert_with(|| {
                    std::time::Duration::from_micros(self.apply_us.median().max(self.apply_far_us.median()) as u64)
                });
                if frame_start.elapsed() + t >= budget {
                    break;
                }
            }
            let Some(result) = self.streamer.as_mut().and_then(|s| s.try_recv()) else { break };
            let t = Instant::now();
            let what = match result {
                StreamResult::Near(r) => {
                    let empty = !r.has_faces();
                    self.apply_result(r, &viewer_chunks, collision_r);
                    if empty {
                        "apply (empty)"
                    } else {
                        self.apply_us.push(t.elapsed().as_micros() as u32);
                        "apply"
                    }
                }
                StreamResult::Far(r) => {
                    self.apply_far(r.far, r.packed);
                    self.apply_far_us.push(t.elapsed().as_micros() as u32);
                    "apply far"
                }
            };
            trace.step(t.elapsed(), what);
            applied += 1;
        }
        trace.end("collision and results");
        // The maps the block shaders read: the horizon map, then the climate map.
        self.update_horizon(viewer_pos, frame_start + budget);
        trace.end("horizon");
        self.update_climate_tint(viewer_pos, frame_start + budget);
        trace.end("climate");
        if !editor {
            self.update_entities(&viewer_chunks, frame_start, budget);
        }
        trace.end("entities");
        self.register_navigation(frame_start + budget);
        self.apply_ms_last_frame = frame_start.elapsed().as_secs_f64() * 1000.0;
        trace.report(self.apply_ms_last_frame, n_unloads, applied);
        // `area_ready` follows every change from not ready to ready (a larger view, an edit, a
        // chunk's collision on its way), so a script that saw `is_area_ready()` false and awaits
        // the signal always gets it.
        if !self.is_area_ready() {
            self.area_ready_emitted = false;
        } else if !self.area_ready_emitted {
            self.area_ready_emitted = true;
            self.signals().area_ready().emit();
        }
        let preload_done = self.get_preload_progress() >= 1.0;
        if let Some(p) = self.preload.as_mut()
            && preload_done
            && !p.announced
        {
            p.announced = true;
            let center = p.center;
            self.signals().area_preloaded().emit(center);
        }
    }

    fn enter_tree(&mut self) {
        if !Engine::singleton().is_editor_hint() {
            let node = self.to_gd().upcast::<Node>();
            self.monitors.add(&node, "Strata", MONITORS);
        }
    }

    fn exit_tree(&mut self) {
        self.monitors.remove();
        // Join the workers before the node goes away (hot reload with live threads crashes Godot).
        self.stop_streaming();
    }
}

#[godot_api]
impl ChunkWorld {
    /// The editor's configuration warnings (the yellow triangle), also for a game to check a
    /// world: empty when it is configured, else what it lacks or has wrong (no preset, no viewer
    /// or one that is not a `Node3D`, an invalid block library, a preset invalid with the library).
    #[func]
    pub fn configuration_warnings(&self) -> PackedStringArray {
        let node = self.to_gd().upcast::<Node>();
        let mut out = match self.structures_warning() {
            Some(w) => w,
            None => config_warnings::preset_warnings(
                "StrataChunkWorld",
                self.preset.as_ref(),
                self.block_library.as_ref(),
                true,
            ),
        };
        out.extend(config_warnings::viewer_warning::<Node3D>(&node, &self.viewer, "StrataChunkWorld", "Camera3D"));
        if self.preset.is_none() {
            out.extend(config_warnings::library_warning(self.block_library.as_ref()));
        }
        out.iter().map(|w| GString::from(w.as_str())).collect()
    }

    /// Emitted when a chunk's mesh is in the tree (also for chunks with nothing to show).
    #[signal]
    fn chunk_loaded(coord: Vector3i);
    /// Emitted when a chunk left the view: its nodes are hidden at once and freed within the
    /// next frames' budgets.
    #[signal]
    fn chunk_unloaded(coord: Vector3i);
    /// Emitted when every chunk within `view_distance` of the viewer is meshed and in the tree
    /// (again after anything made it not ready: a move, an edit, a larger view). Not emitted for
    /// an area that is ready already: wait with
    /// `if not world.is_area_ready(): await world.area_ready`, which never hangs.
    #[signal]
    fn area_ready();
    /// Emitted by a `load_world` that succeeded (it returns OK) with what it could not restore
    /// exactly as saved: a save made with other `structures` than the world holds now (the
    /// message names the save, both fingerprints and the structures).
    #[signal]
    fn load_warning(message: GString);
    /// Emitted once when every chunk of the area asked for with `preload_area` is loaded (with
    /// collision near its centre): the place is ready for a teleport or a respawn.
    #[signal]
    fn area_preloaded(center: Vector3);

    /// An entity entered the world: spawned by a rule, brought back from a save or a parked
    /// state, or added with `add_entity`. It is a child of the world.
    #[signal]
    pub(crate) fn entity_spawned(node: Gd<Node3D>);

    /// An entity is about to leave the world: its chunk left `entity_distance` (it is kept if it
    /// moved or changed), `remove_entity`, a restart or a loaded save. It is freed right after.
    #[signal]
    pub(crate) fn entity_despawned(node: Gd<Node3D>);

    /// Emitted once per edit call (`set_voxel`, a shape edit, `apply_edit_changes`), `undo()`,
    /// `redo()`, `clear_edits()`, `load_world()` and `edits_data` with the box of the voxels
    /// that changed, in the node's space (the voxels' full extent: a single voxel `p` gives
    /// `AABB(voxel_to_local(p), Vector3.ONE)`: `AABB(p, Vector3.ONE)` while the origin is zero). For the calls that replace every edit it is the box of the edits
    /// before and after (a load that changes the preset changes more than that).
    #[signal]
    fn voxels_changed(aabb: Aabb);

    /// Emitted after the world's origin moved (`floating_origin`, `set_origin`) by `shift`
    /// (world voxels, a multiple of 32 on each axis): every position in the node's space lost
    /// `shift`. The world's own nodes and `origin_shift_group` have moved already; move anything
    /// else that holds positions in that space (stored targets, paths, world-space particles).
    /// Emitted during the world's `_process`, before the frame is drawn.
    #[signal]
    pub(crate) fn origin_shifted(shift: Vector3i);

    /// Streams around `node` too (split screen, another player, a camera drone), with its own
    /// horizontal `view_distance` in chunks (1 to 32, clamped with a warning). The loaded set is
    /// the union of every viewer's area, queued nearest-first across viewers, with collision
    /// near each, the far view refined around each, and `memory_budget_mb` shared between them
    /// (each viewer's distance shrinks so that all fit). `viewer` stays the first viewer. Adding
    /// a node again changes its distance. A viewer that is freed stops being one; one outside
    /// the tree keeps its last position until it is back.
    #[func]
    pub(crate) fn add_viewer(&mut self, node: Option<Gd<Node3D>>, view_distance: i64) {
        let Some(node) = node else {
            godot_error!("StrataChunkWorld.add_viewer: node is null; allowed: a Node3D");
            return;
        };
        let distance = view_distance.clamp(1, MAX_VIEW_DISTANCE as i64) as i32;
        if distance as i64 != view_distance {
            godot_warn!(
                "StrataChunkWorld.add_viewer: view_distance {view_distance} is out of range; allowed: 1 to {MAX_VIEW_DISTANCE}; using {distance}"
            );
        }
        let id = node.instance_id().to_i64() as u64;
        match self.extra_viewers.iter_mut().find(|v| v.id == id) {
            Some(v) => v.view_distance = distance,
            None => self.extra_viewers.push(ExtraViewer { node, id, view_distance: distance }),
        }
    }

    /// Stops streaming around `node` (added with `add_viewer`); what only it needed unloads.
    /// False when it was not a viewer.
    #[func]
    pub(crate) fn remove_viewer(&mut self, node: Option<Gd<Node3D>>) -> bool {
        let Some(node) = node else { return false };
        let id = node.instance_id().to_i64() as u64;
        let before = self.extra_viewers.len();
        self.extra_viewers.retain(|v| v.id != id);
        let removed = self.extra_viewers.len() != before;
        if removed {
            self.removed_viewer_ids.push(id);
        }
        removed
    }

    /// How many viewers the world streams around: `viewer` (or the camera) and those added with
    /// `add_viewer`.
    #[func]
    fn get_viewer_count(&self) -> i64 {
        1 + self.extra_viewers.len() as i64
    }

    /// Loads the area around `center` (in this node's space: world − `get_origin()`; to preload
    /// a destination far away, `set_origin` near it first) within `radius`
    /// chunks (1 to 32, clamped with a warning) and keeps it loaded until `cancel_preload` or
    /// the next `preload_area`: a teleport's or a respawn's destination. Follow it with
    /// `get_preload_progress()`; `area_preloaded` is emitted once it is complete.
    #[func]
    fn preload_area(&mut self, center: Vector3, radius: i64) {
        let r = radius.clamp(1, MAX_VIEW_DISTANCE as i64) as i32;
        if r as i64 != radius {
            godot_warn!(
                "StrataChunkWorld.preload_area: radius {radius} is out of range; allowed: 1 to {MAX_VIEW_DISTANCE}; using {r}"
            );
        }
        let finite = center.x.is_finite() && center.y.is_finite() && center.z.is_finite();
        let center = if finite {
            center
        } else {
            godot_warn!("StrataChunkWorld.preload_area: center {center} is not a finite position; using the origin");
            Vector3::ZERO
        };
        self.preload = Some(PreloadArea { center, radius: r, announced: false });
    }

    /// Loaded fraction of the preloaded area's chunks, 0 to 1; 0 when there is none.
    #[func]
    fn get_preload_progress(&self) -> f64 {
        if self.preload.is_none() {
            return 0.0;
        }
        self.streamer.as_ref().and_then(|s| s.extra_viewer_progress(PRELOAD_VIEWER_ID)).unwrap_or(0.0)
    }

    /// Lets the preloaded area go (what no viewer needs unloads).
    #[func]
    fn cancel_preload(&mut self) {
        if self.preload.take().is_some() {
            self.removed_viewer_ids.push(PRELOAD_VIEWER_ID);
        }
    }

    /// True when every chunk within `view_distance` of the viewer is meshed and in the tree, and
    /// the chunks near the viewer have their collision (so a player can be spawned). A viewer
    /// moved to another chunk since the world's last frame (a teleport) is not ready until the
    /// world has streamed around its new place, nor one whose preset changed (another resource,
    /// or a field of it) until the world has streamed the new one.
    #[func]
    pub fn is_area_ready(&self) -> bool {
        let editor = Engine::singleton().is_editor_hint();
        let viewer = if editor { self.editor_viewer_position() } else { self.viewer_position() };
        let here = ranges::ViewerBounds::clamped(self.world_of_local(viewer));
        // A preset changed since the world was built streams again from its next frame on.
        self.collision_queue.is_empty()
            && self.collision_build.is_none()
            && !self.host.preset_changed(self.preset.as_ref())
            && self.streamer.as_ref().is_some_and(|s| s.is_area_ready() && s.is_streaming_around(here))
    }

    /// Fraction of the chunks needed around the viewer that are loaded, 0..1 (loading screens).
    #[func]
    pub fn get_progress(&self) -> f64 {
        self.streamer.as_ref().map(|s| s.progress()).unwrap_or(0.0)
    }

    /// Forgets every player edit: the world shows its generated blocks again (loaded chunks are
    /// remeshed). Besides `load_world`, the only call that removes edits; the game state stays.
    #[func]
    pub fn clear_edits(&mut self) {
        let before = self.edits().and_then(world_edits::edit_bounds);
        match self.streamer.as_mut() {
            Some(s) => {
                s.replace_edits(EditMap::new());
                self.area_ready_emitted = false;
            }
            None => self.host.clear_kept_edits(),
        }
        self.edits_replaced(before);
    }

    #[func]
    fn set_collision_layer(&mut self, value: u32) {
        self.collision_layer = value;
        self.reapply_body_settings();
    }

    #[func]
    fn set_collision_mask(&mut self, value: u32) {
        self.collision_mask = value;
        self.reapply_body_settings();
    }

    #[func]
    fn set_collision_priority(&mut self, value: f32) {
        self.collision_priority = value;
        self.reapply_body_settings();
    }

    #[func]
    fn set_physics_material_override(&mut self, value: Option<Gd<PhysicsMaterial>>) {
        self.physics_material_override = value;
        self.reapply_body_settings();
    }

    #[func]
    fn set_layers(&mut self, value: u32) {
        self.layers = value;
        self.reapply_render_settings();
    }

    #[func]
    fn set_cast_shadow(&mut self, value: ShadowCastingSetting) {
        self.cast_shadow = value;
        self.reapply_render_settings();
    }

    #[func]
    fn set_gi_mode(&mut self, value: GiMode) {
        self.gi_mode = value;
        self.reapply_render_settings();
    }

    #[func]
    fn set_far_visibility_range_end(&mut self, value: f32) {
        self.far_visibility_range_end = value;
        self.reapply_render_settings();
    }

    #[func]
    fn set_far_visibility_range_end_margin(&mut self, value: f32) {
        self.far_visibility_range_end_margin = value;
        self.reapply_render_settings();
    }

    #[func]
    fn set_debug_view(&mut self, value: bool) {
        self.debug_view = value;
        self.debug.refresh_soon();
    }

    #[func]
    fn set_view_distance(&mut self, value: i64) {
        self.view_distance =
            ranges::int_in_range("StrataChunkWorld", "view_distance", value, 1, MAX_VIEW_DISTANCE as i64);
    }

    #[func]
    fn set_vertical_view_distance(&mut self, value: i64) {
        self.vertical_view_distance = ranges::int_in_range(
            "StrataChunkWorld",
            "vertical_view_distance",
            value,
            1,
            MAX_VERTICAL_VIEW_DISTANCE as i64,
        );
    }

    #[func]
    fn set_worker_threads(&mut self, value: i64) {
        self.worker_threads =
            ranges::int_in_range("StrataChunkWorld", "worker_threads", value, 0, max_workers() as i64);
    }

    #[func]
    fn set_floating_origin(&mut self, value: bool) {
        self.floating_origin = value;
        self.origin_warned = false;
    }

    #[func]
    fn set_origin_shift_distance(&mut self, value: f64) {
        self.origin_shift_distance = ranges::float_in_range(
            "StrataChunkWorld",
            "origin_shift_distance",
            value,
            strata_core::base::origin::MIN_SHIFT_DISTANCE,
            strata_core::base::origin::MAX_SHIFT_DISTANCE,
            self.origin_shift_distance,
        );
    }

    #[func]
    fn set_frame_budget_ms(&mut self, value: f64) {
        self.frame_budget_ms =
            ranges::float_in_range("StrataChunkWorld", "frame_budget_ms", value, 0.05, 100.0, self.frame_budget_ms);
    }

    #[func]
    fn set_collision_distance(&mut self, value: i64) {
        self.collision_distance = ranges::int_in_range("StrataChunkWorld", "collision_distance", value, 0, 8);
    }

    #[func]
    fn set_grass_colors(&mut self, value: PackedColorArray) {
        self.grass_colors = climate_tint::checked_map("grass_colors", value, &self.grass_colors);
    }

    #[func]
    fn set_foliage_colors(&mut self, value: PackedColorArray) {
        self.foliage_colors = climate_tint::checked_map("foliage_colors", value, &self.foliage_colors);
    }

    #[func]
    fn set_far_view_levels(&mut self, value: i64) {
        self.far_view_levels =
            ranges::int_in_range("StrataChunkWorld", "far_view_levels", value, 0, MAX_LOD_LEVELS as i64);
    }

    #[func]
    fn set_block_library(&mut self, value: Option<Gd<BlockLibrary>>) {
        self.block_library = value;
        self.resolved_structures = None;
        self.refresh_generation_hook();
        self.redraw();
        self.base_mut().update_configuration_warnings();
    }

    #[func]
    fn set_structures(&mut self, value: Array<Option<Gd<crate::resources::structure::Structure>>>) {
        self.structures = value;
        self.resolved_structures = None;
        if self.streamer.is_some() {
            self.stop_streaming();
            self.ensure_streamer();
        }
        self.base_mut().update_configuration_warnings();
    }

    #[func]
    fn set_generation_hook(&mut self, value: Callable) {
        self.apply_generation_hook(value);
    }

    #[func]
    fn set_preset(&mut self, value: Option<Gd<WorldPreset>>) {
        self.preset = value;
        self.base_mut().update_configuration_warnings();
    }

    #[func]
    fn set_viewer(&mut self, value: NodePath) {
        self.viewer = value;
        self.base_mut().update_configuration_warnings();
    }

    #[func]
    fn set_material_override(&mut self, value: Option<Gd<Material>>) {
        self.material_override = value;
        self.redraw();
    }

    #[func]
    fn set_light_enabled(&mut self, value: bool) {
        self.light_enabled = value;
        let props = self.light_props();
        if let Some(s) = &mut self.streamer {
            s.set_light(props);
        }
    }

    #[func]
    fn set_daylight(&mut self, value: f64) {
        let before = shader_daylight(self.daylight);
        self.daylight = ranges::float_in_range("StrataChunkWorld", "daylight", value, 0.0, 1.0, self.daylight);
        // The shaders get it in steps of 1/1024 (too small to see), so a day cycle setting it
        // every frame updates the chunks' material copies a few times a second, not every frame.
        if shader_daylight(self.daylight) == before {
            return;
        }
        if let Some(m) = &self.surface_materials {
            set_daylight_on(m, self.daylight);
            let copies: Vec<Gd<Material>> = self.occluder_materials().map(|m| m.clone().upcast()).collect();
            set_daylight_on(&copies, self.daylight);
        }
    }

    #[func]
    fn get_edits_data(&self) -> PackedByteArray {
        self.edits_data_bytes()
    }

    #[func]
    fn set_edits_data(&mut self, value: PackedByteArray) {
        self.load_edits_data(value);
    }

    #[func]
    fn set_navigation_enabled(&mut self, value: bool) {
        self.navigation_enabled = value;
        self.navigation_changed();
    }

    #[func]
    fn set_navigation_distance(&mut self, value: i64) {
        self.navigation_distance = ranges::int_in_range(
            "StrataChunkWorld",
            "navigation_distance",
            value,
            1,
            strata_core::stream::navigation::MAX_NAVIGATION_DISTANCE as i64,
        );
        self.navigation_changed();
    }

    #[func]
    fn set_memory_budget_mb(&mut self, value: i64) {
        let (lo, hi) = (*MEMORY_BUDGET_MB_RANGE.start() as i64, *MEMORY_BUDGET_MB_RANGE.end() as i64);
        self.memory_budget_mb = ranges::int_in_range("StrataChunkWorld", "memory_budget_mb", value, lo, hi);
    }

    /// Drops every chunk, builds the world again from the current preset and streams it; edits
    /// stay.
    #[func]
    pub fn regenerate(&mut self) {
        self.stop_streaming();
        self.host.forget_generator();
        self.ensure_streamer();
    }

    /// The chunk coordinate containing world position `p` (a static function: it knows no
    /// origin; for a point in a world's node space use `chunk_at`).
    #[func]
    pub fn chunk_of(p: Vector3) -> Vector3i {
        let c = ChunkCoord::containing(IVec3::new(p.x.floor() as i32, p.y.floor() as i32, p.z.floor() as i32));
        to_vector3i(c)
    }

    /// The chunk coordinate containing point `local` of this node's space (world − origin).
    #[func]
    pub fn chunk_at(&self, local: Vector3) -> Vector3i {
        let v = self.origin.voxel_at([f64::from(local.x), f64::from(local.y), f64::from(local.z)]);
        to_vector3i(ChunkCoord::containing(v))
    }

    /// Writes the world (preset + edits + game state) to `path` (res://, user:// or absolute).
    /// The write is atomic: a crash mid-save keeps the previous file. Returns OK or an error
    /// code; the message is in `last_error()`.
    #[func]
    pub fn save_world(&mut self, path: GString) -> Error {
        self.host.set_entities(self.entities.snapshot());
        self.note_structures_for_save();
        let library = self.library();
        let edits = self.streamer.as_ref().map(|s| s.edits());
        let flows = self.streamer.as_ref().map(|s| s.pending_water_flows());
        self.host.save_world(&path, self.preset.as_ref(), edits, flows, library.as_deref().map_err(String::clone))
    }

    /// Loads a world written by `save_world`: replaces the preset, the edits and the game state,
    /// and streams the saved world. On error nothing changes; the message is in `last_error()`.
    /// A load that succeeds returns OK with `last_error()` empty; what it could not restore as
    /// saved (a save made with other `structures`) comes as `load_warning`.
    #[func]
    pub fn load_world(&mut self, path: GString) -> Error {
        let library = self.library();
        match self.host.read_world(&path, library.as_deref().map_err(String::clone)) {
            Ok((preset, edits, flows)) => {
                let entities = self.host.take_entities();
                let before = self.edits().and_then(world_edits::edit_bounds);
                self.restart_with(preset, edits, flows);
                self.replace_entities(entities);
                self.edits_replaced(before);
                self.check_loaded_structures(&path);
                Error::OK
            }
            Err(code) => code,
        }
    }

    /// The message of the last failure (save, load, a preset that does not build, worker
    /// threads that did not start), or "" after a later success (a save, a load, or the preset
    /// building again).
    #[func]
    pub fn last_error(&self) -> GString {
        self.host.last_error()
    }

    /// Stores a game-state value saved with the world (e.g. "time_of_day" → 0.75, "inventory" →
    /// a Dictionary): any Variant but an Object, RID, Callable or Signal; null removes the entry.
    /// Keys starting with "strata." are the addon's own and are refused (`last_error()`).
    #[func]
    pub fn set_state(&mut self, key: GString, value: Variant) -> godot::global::Error {
        self.host.set_game_state(&key, &value)
    }

    /// A game-state value from `set_state` or a loaded save, of the type it was stored with (a
    /// 0.2 save's values are Strings); `default` when absent.
    #[func]
    pub fn get_state(&self, key: GString, default: Variant) -> Variant {
        self.host.game_state(&key, default)
    }

    /// Number of player edits in the world.
    #[func]
    pub fn get_edit_count(&self) -> i64 {
        self.edits().map(|e| e.len() as i64).unwrap_or(0)
    }

    /// Instances `scene` (a saved `.tscn`/`.scn` whose root is a `Node3D`) at `position` (the
    /// world's space) as an entity of the world: a child of the world, kept in saves with its
    /// transform and its `strata_get_state()` Dictionary, and taken out of the tree (kept) when
    /// its chunk leaves `entity_distance`. Null, with the reason in `last_error()`, for a scene
    /// without a file, a root that is not a `Node3D`, or a `StrataWorldSync` client's world (its
    /// entities are the server's: `is_entity_authority()`).
    #[func]
    pub fn add_entity(&mut self, scene: Gd<PackedScene>, position: Vector3) -> Option<Gd<Node3D>> {
        self.add_entity_node(scene, position)
    }

    /// Removes one of the world's entities for good: a spawned one does not come back, in this
    /// run or after a save and load. (Freeing the node has the same effect.) False when `node` is
    /// not an entity of this world, or with the reason in `last_error()` on a `StrataWorldSync`
    /// client's world.
    #[func]
    pub fn remove_entity(&mut self, node: Gd<Node3D>) -> bool {
        self.remove_entity_node(node)
    }

    /// The live entities whose position lies in `area` (the world's space).
    #[func]
    pub fn get_entities_in(&self, area: Aabb) -> Array<Gd<Node3D>> {
        self.entities_in(area)
    }

    /// Whether this world's entities act on their own (think, move, change): true in a
    /// single-player world and on a shared world's host; false on a `StrataWorldSync` client, whose
    /// entities are replicas that the server moves, changes, adds and removes. An entity's
    /// script checks it before acting; changes made on a client are not sent.
    #[func]
    pub fn is_entity_authority(&self) -> bool {
        self.entity_authority()
    }

    /// Harvests the decorations (trees, bushes, flowers, rocks) whose base lies within `radius`
    /// voxels of `position` in loaded chunks: they disappear, and stay gone in this run and in
    /// saves. Returns one Dictionary per decoration taken: "kind" ("tree", "bush", "flower",
    /// "rock") and "position" (Vector3, its base). Positions are in the node's space.
    #[func]
    pub fn harvest_scatter(&mut self, position: Vector3, radius: f64) -> Array<VarDictionary> {
        let radius = if radius.is_finite() { radius.clamp(0.0, 64.0) as f32 } else { 0.0 };
        let (taken, chunks) = self.entities.harvest(position, radius);
        for c in chunks {
            if let Some(old) = self.nodes.get_mut(&c).map(|n| std::mem::take(&mut n.scatter)) {
                for mmi in old {
                    mmi.free();
                }
                let standing = self.entities.standing_scatter(c);
                let fresh = if standing.is_empty() { Vec::new() } else { self.make_scatter(c, &standing) };
                if let Some(n) = self.nodes.get_mut(&c) {
                    n.scatter = fresh;
                }
            }
        }
        let mut out = Array::new();
        for s in taken {
            let mut d = VarDictionary::new();
            d.set("kind", entities::scatter_kind_name(s.kind));
            d.set("position", self.local_of_world(s.position));
            out.push(&d);
        }
        out
    }

    #[func]
    fn set_entity_distance(&mut self, value: i64) {
        self.entity_distance = ranges::int_in_range("StrataChunkWorld", "entity_distance", value, 0, 32);
    }

    /// Chunk edge length in voxels (32).
    #[func]
    pub fn chunk_size() -> i64 {
        CHUNK_SIZE as i64
    }
}

impl ChunkWorld {
    /// The horizontal and vertical distance, in chunks, within which entities stand.
    pub(crate) fn entity_distances(&self) -> (i32, i32) {
        let (vd, vvd, _) = self.distances();
        (self.entity_distance.clamp(0, 32).min(vd as i64) as i32, vvd)
    }

    /// The scene path of spawn rule `rule` of the world being streamed.
    pub(crate) fn spawn_scene_path(&self, rule: u16) -> Option<String> {
        let preset = self.streamer.as_ref()?.generator().preset();
        let first = strata_core::preset::model::FIRST_STRUCTURE_SPAWN_RULE;
        match rule.checked_sub(first) {
            Some(i) => preset.structures.rules.get(i as usize).map(|r| r.entity.clone()),
            None => preset.spawns.rules.get(rule as usize).map(|r| r.scene.clone()),
        }
    }

    /// The addon's own game-state entry `key` (under "strata."), as text.
    pub(crate) fn raw_state(&self, key: &str) -> Option<String> {
        self.host.raw_state(key).map(str::to_string)
    }

    /// Sets (or, with `None`, removes) the addon's own game-state entry `key`.
    pub(crate) fn set_raw_state(&mut self, key: &str, value: Option<String>) {
        self.host.set_raw_state(key, value);
    }

    /// Keeps `message` for `last_error()`.
    pub(crate) fn record_error(&mut self, message: String) {
        self.host.error(message);
    }

    /// View distance, vertical view distance and collision distance as the streamer takes them
    /// (the setters keep them in range; clamped again so no value can overflow).
    fn distances(&self) -> (i32, i32, i32) {
        (
            self.view_distance.clamp(1, MAX_VIEW_DISTANCE as i64) as i32,
            self.vertical_view_distance.clamp(0, MAX_VERTICAL_VIEW_DISTANCE as i64) as i32,
            self.collision_distance.clamp(0, 8) as i32,
        )
    }

    /// What a shared world's server starts from: the preset in use, a copy of the edits and how
    /// many blocks the world's library has.
    pub(crate) fn shared_world_state(&self) -> (strata_core::WorldPreset, EditMap, usize) {
        let count = self.library().map(|l| l.len()).unwrap_or(strata_core::base::block::BLOCK_COUNT as usize);
        (world_host::core_preset(self.preset.as_ref()), self.edits().cloned().unwrap_or_default(), count)
    }

    /// The shared game state this world's game state holds (from a save or `keep_shared_game_state`).
    pub(crate) fn shared_game_state(
        &self,
    ) -> Result<strata_core::net::shared_state::SharedState, strata_core::net::shared_state::SharedStateError> {
        self.host.shared_game_state()
    }

    /// Keeps a shared world's game state in this world's game state, for its saves.
    pub(crate) fn keep_shared_game_state(&mut self, shared: &strata_core::net::shared_state::SharedState) {
        self.host.keep_shared_game_state(shared);
    }

    /// Streams a shared world's `preset` with `edits` (what a server sent) in place of this one.
    pub(crate) fn adopt_shared_world(&mut self, preset: strata_core::WorldPreset, edits: EditMap) {
        self.restart_with(preset, edits, Vec::new());
    }

    /// The edits: the streamer's, or those kept while it is stopped.
    fn edits(&self) -> Option<&EditMap> {
        match &self.streamer {
            Some(s) => Some(s.edits()),
            None => self.host.kept_edits(),
        }
    }

    /// A shape edit: checks the block id and the shape, then sets the voxels that change as one
    /// batch; the count, or -1 with the error in `last_error()` and nothing changed.
    fn fill_shape(&mut self, method: &str, voxels: Result<Vec<IVec3>, shapes::ShapeError>, block: i64) -> i64 {
        let count = match self.library() {
            Ok(l) => l.len(),
            Err(e) => {
                self.host
                    .error(format!("StrataChunkWorld.{method}: the block library is invalid: {e}; nothing changed"));
                return -1;
            }
        };
        let Some(id) = u16::try_from(block).ok().filter(|&b| (b as usize) < count) else {
            self.host.error(format!(
                "StrataChunkWorld.{method}: block id {block} is not a block of the world's library; allowed: 0..={}; nothing changed",
                count - 1
            ));
            return -1;
        };
        let voxels = match world_edits::shape_voxels(method, voxels) {
            Ok(v) => v,
            Err(message) => {
                self.host.error(message);
                return -1;
            }
        };
        self.ensure_streamer();
        let Some(g) = self.generator() else {
            self.host.error(format!(
                "StrataChunkWorld.{method}: the world has no generator (no valid preset); nothing changed"
            ));
            return -1;
        };
        let changed = world_edits::voxels_that_change(&g, self.edits(), &voxels, id);
        let edits = self.edits();
        let changes: Vec<VoxelChange> = changed
            .iter()
            .map(|&(pos, b)| VoxelChange { pos, before: edits.and_then(|e| e.get(pos)), after: Some(b) })
            .collect();
        self.write_changes(method, &changes);
        changed.len() as i64
    }

    /// The light at `p`, or None while there is no generator or the library is invalid (said
    /// once in `last_error()` by what reported it).
    fn light(&mut self, p: Vector3i) -> Option<strata_core::light::Light> {
        let g = self.generator()?;
        let props = LightProps::from_library(&*self.library().ok()?);
        let edits = self.edits();
        strata_core::stream::query::light_at(&g, edits, &props, IVec3::new(p.x, p.y, p.z)).ok()
    }

    /// The world's blocks: `block_library`, or the default library when it is empty; an error
    /// naming the block, field, value and what is allowed when the library is invalid.
    fn library(&self) -> Result<std::borrow::Cow<'static, CoreLibrary>, String> {
        match &self.block_library {
            None => Ok(std::borrow::Cow::Borrowed(default_library())),
            Some(l) => l.bind().core_or_error_text().map(std::borrow::Cow::Owned),
        }
    }

    /// The generator of the world: the streamer's, or one built from the current preset and
    /// library for queries before streaming starts (same preset, same answers). An invalid
    /// library builds with the default one, as it meshes and lights with it.
    fn generator(&mut self) -> Option<Arc<Generator>> {
        // A preset changed since streaming started: queries answer the new world at once, not
        // at the next frame (the streamer restarts now, as the frame would restart it).
        if self.streamer.is_some() && self.host.preset_changed(self.preset.as_ref()) {
            self.stop_streaming();
            self.edit_history.clear();
        }
        if let Some(s) = &self.streamer {
            return Some(s.generator().clone());
        }
        let library = self.library().unwrap_or(std::borrow::Cow::Borrowed(default_library()));
        self.build_generator(&library)
    }
}

/// `STRATA_TRACE=MS`: print the frames whose streaming work took longer than MS (10 when the
/// value is not a number). Read once per process.
/// Sets the block shaders' `daylight` uniform on those of `materials` that are shader materials
/// (a user's override gets it too, if its shader declares it).
fn set_daylight_on(materials: &[Gd<Material>], daylight: f64) {
    for m in materials {
        if let Ok(mut shader) = m.clone().try_cast::<ShaderMaterial>() {
            shader.set_shader_parameter("daylight", &shader_daylight(daylight).to_variant());
        }
    }
}

/// `daylight` as the block shaders get it: in steps of 1/1024.
fn shader_daylight(daylight: f64) -> f32 {
    ((daylight * 1024.0).round() / 1024.0) as f32
}

/// `v`, or `fallback` when it is not finite.
fn finite_or(v: f64, fallback: f64) -> f64 {
    if v.is_finite() { v } else { fallback }
}

fn within(c: ChunkCoord, v: ChunkCoord, r: i32) -> bool {
    (c.x - v.x).abs() <= r && (c.y - v.y).abs() <= r && (c.z - v.z).abs() <= r
}

/// Whether `c` is within `r` chunks (per axis) of any viewer.
fn near_any(c: ChunkCoord, viewers: &[ChunkCoord], r: i32) -> bool {
    viewers.iter().any(|&v| within(c, v, r))
}

/// Squared distance in chunks from `c` to the nearest viewer.
fn nearest_distance_sq(c: ChunkCoord, viewers: &[ChunkCoord]) -> i64 {
    viewers.iter().map(|&v| c.distance_sq(v)).min().unwrap_or(0)
}

/// Bytes of a mesh's streams in Godot's stored form: the packed streams' length, or what packing
/// would give (the vertex and attribute strides a vertex, 2 or 4 bytes an index).
fn stream_bytes(mesh: &ChunkMesh, packed: Option<&MeshBytes>) -> usize {
    match packed {
        Some(p) => p
            .surfaces()
            .into_iter()
            .flatten()
            .map(|s| s.vertex_data.len() + s.attribute_data.len() + s.index_data.len())
            .sum(),
        None => mesh
            .surfaces()
            .into_iter()
            .map(|s| {
                let n = s.positions.len();
                n * (VERTEX_STRIDE + attribute_stride(&s.colors)) + s.indices.len() * if n <= 65536 { 2 } else { 4 }
            })
            .sum(),
    }
}

fn free_chunk_node(n: ChunkNode) {
    for s in n.scatter {
        s.free();
    }
    if let Some(m) = n.mesh {
        m.free();
    }
    if let Some(b) = n.body {
        b.free();
    }
}

fn to_vector3i(c: ChunkCoord) -> Vector3i {
    Vector3i::new(c.x, c.y, c.z)
}
