//! `StrataChunkWorld2D`: the Node2D that streams an infinite side-view tile world into a `TileMapLayer`.
//!
//! Each frame (main thread): read the viewer's position, tell the core [`Streamer2D`], queue the
//! erasure of chunks that left the view, move finished chunks into a queue of tile writes, then
//! apply queued writes and erasures row by row until `frame_budget_ms` is spent. Generation and
//! autotiling (the atlas tile of every cell) happen on the streamer's worker threads; the main
//! thread only calls `set_cell(coords, source_id, atlas_coords)` and `erase_cell` (law: Main thread never waits).
//!
//! Coordinates: tiles (`Vector2i`) are world tiles, y down, exact to the world's bounds. Pixel
//! positions (`Vector2`) are the node's space: tile `t` is drawn at `(t − origin) × tile size`,
//! where `origin` (world tiles, zero until it moves) is the floating origin (`origin_2d`). Tile
//! `t` is the `TileMapLayer` cell `t − cell_origin`; the layer node sits at
//! `(cell_origin − origin) × tile size` from where it was (a created child sits at the world's
//! origin, and a layer of yours should too); both origins are zero until the origin first moves.
//!
//! Queries (`get_tile`, `get_surface_height`) are the core's `tile_with_edits` and
//! `top_solid_row_with`. Preset identity, kept edits, game state, saves and the last error are the
//! [`WorldHost`] shared with `StrataChunkWorld`; a save stores a 2D world's edits as a 3D world's, with
//! the names of the blocks they use.
//!
//! Blocks: `block_library` (null = the default library) gives the ids, names and solidity, the
//! workers' autotile rules (`TileRules`) and, unless the layer brought its own TileSet, the
//! generated TileSet (`tile_set_2d`): the core's `library_atlas_rgba` over each block's side
//! texture (loaded and scaled on the main thread when the library or the layer changes; never
//! while streaming).
//! The library in use is the last valid one: an invalid one is reported and changes nothing.
//! `tile_layout` picks the variants the workers choose and the generated atlas holds: 16 edge
//! variants or the 47 blob variants with inner corners (`autotile::TileLayout`).
//!
//! May use: `strata_core` (2D streamer, queries, autotile atlas, block library), `block_library`,
//! `world_host`, `world_preset`.

use crate::base::monitors::{Monitor, Monitors, Reading};
use crate::base::ranges;
use crate::host::config_warnings;
use crate::host::world_edits;
use crate::host::world_host::{self, WorldHost};
use crate::resources::block_library::BlockLibrary;
use crate::resources::world_preset::WorldPreset;
use godot::classes::{Engine, INode2D, ImageTexture, Node2D, TileMapLayer, TileSet};
use godot::global::Error;
use godot::prelude::*;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::time::Instant;
use strata_core::base::block_library::{BlockLibrary as CoreLibrary, default_library};
use strata_core::base::coords::IVec3;
use strata_core::base::coords::{WORLD_LIMIT_VOXELS, voxel_in_world};
use strata_core::base::edit_history::{PendingFlow, VoxelChange};
use strata_core::base::edits::{EditMap, local_from_index};
use strata_core::base::origin::DEFAULT_SHIFT_DISTANCE;
use strata_core::base::origin_2d::FloatingOrigin2D;
use strata_core::gen2d::autotile::{AtlasCoords, TileLayout, TileRules};
use strata_core::gen2d::{ChunkCoord2D, Generator2D};
use strata_core::stream::scheduler::{Samples, max_workers};
use strata_core::stream::stream2d::{
    ChunkResult2D, MAX_VIEW_DISTANCE_2D, StreamConfig2D, Streamer2D, tile_with_edits, top_solid_row_with,
};
use strata_core::stream::streamer::MEMORY_BUDGET_MB_RANGE;
use strata_core::stream::tile_edits::TileEditLog;

mod editor_2d;
mod edits_2d;
mod entities_2d;
mod entity_nodes_2d;
mod layer_2d;
mod layer_cost_2d;
mod light_2d;
mod navigation_2d;
mod navigation_regions_2d;
mod origin_2d;
mod replica_2d;
mod structures_2d;
pub(crate) mod sync_2d;
mod tile_set_2d;
mod tools_2d;

/// One pending change to the `TileMapLayer`, applied a block of cells (one quadrant of the
/// layer) at a time (`layer_2d`).
pub(super) enum TileOp {
    /// Write a finished chunk: the cells that differ from what the layer shows of it.
    Write { result: ChunkResult2D, next_block: i32 },
    /// Erase every cell of a chunk that left the view.
    Erase { coord: ChunkCoord2D, next_block: i32 },
}

impl TileOp {
    pub(super) fn coord(&self) -> ChunkCoord2D {
        match self {
            TileOp::Write { result, .. } => result.coord,
            TileOp::Erase { coord, .. } => *coord,
        }
    }
}

/// Streams an infinite, seeded side-view world (for 2D platformers and diggers) into a
/// `TileMapLayer` around a viewer.
///
/// Give it a `StrataWorldPreset` (its `side_view_*` fields shape the world) and a `viewer` (or let it
/// follow the current `Camera2D`); square chunks of tiles stream in and out within
/// `view_distance`. Tiles are chosen by a 4-bit edge mask (`tile_layout` Edges16: the atlas must
/// have 16 columns, column = mask, bit 1 = up, 2 = right, 4 = down, 8 = left neighbour connects)
/// or by the 8-neighbour blob mask (Blob47: 47 columns with inner corners) and one row per block
/// id of `block_library`. A layer with no TileSet (the child `TileMapLayer` made when `tile_map` is
/// empty, or one of yours without a tile set) gets one generated from the library: each block's
/// side texture (or its colour), edges drawn on open sides, collision on solid blocks only. A
/// TileSet the layer already has wins and is never replaced.
#[derive(GodotClass)]
#[class(tool, base = Node2D, rename = StrataChunkWorld2D)]
pub struct ChunkWorld2D {
    base: Base<Node2D>,
    /// The world's settings (the `side_view_*` fields); same preset, same world, bit for bit.
    /// Null: the default `StrataWorldPreset` (the editor warns).
    #[var(set)]
    #[export]
    preset: Option<Gd<WorldPreset>>,
    /// The node (a `Node2D`) the world streams around; empty = the current `Camera2D`, or the
    /// origin when there is none (the editor warns).
    #[var(set)]
    #[export]
    viewer: NodePath,
    /// The blocks of the world (ids are indices); null = the default library
    /// (`StrataBlockLibrary.create_default()`). Gives the tiles of a generated TileSet (each block's
    /// side texture, else its colour), which blocks collide (`solid`), the ids `set_tile` takes and
    /// the names saves store. Setting it re-tiles the world, edits kept; an invalid library is
    /// refused (an error in `last_error()` naming the block and field) and the world keeps the
    /// library it had. Set it again after changing its blocks.
    #[var(set)]
    #[export]
    block_library: Option<Gd<BlockLibrary>>,
    /// The world's own side-view structures (`StrataStructure2D`: drawn in an image or a
    /// `TileMapLayer` scene), which its preset's `structure_rules` may name besides the shipped
    /// `cottage`, `ruin` and `crypt`; one of a shipped one's name replaces it. Resolved through
    /// `block_library`: a structure naming a block the library lacks stops the world from
    /// building, the error (naming the structure, cell and block) in `last_error()`. Setting it
    /// builds the world again (edits kept).
    #[var(set)]
    #[export]
    structures: Array<Option<Gd<crate::resources::structure_2d::Structure2D>>>,
    /// Chunks loaded on each side of the viewer's chunk (a square of `2·d + 1` chunks a side):
    /// 0 (the viewer's chunk alone) to 16 (default 2).
    #[var(set)]
    #[export(range = (0.0, 16.0))]
    view_distance: i64,
    /// Worker threads for generation and autotiling: 0 = automatic (cores − 1, at least 2),
    /// else 1 to twice the machine's cores (at most 32). Read when streaming starts.
    #[var(set)]
    #[export(range = (0.0, 32.0))]
    worker_threads: i64,
    /// Memory the loaded chunks may take, in MiB: 64 to 65,536 (default 512). When the view
    /// asked for would take more, the world lowers the view distance (the nearest chunks stay)
    /// until it fits. The memory is an estimate, 64 bytes a loaded tile (a documented constant
    /// standing for the `TileMapLayer` cell and the tile on its way, not a measurement).
    #[var(set)]
    #[export(range = (64.0, 65536.0))]
    memory_budget_mb: i64,
    /// Main-thread time per frame for writing tiles into the `TileMapLayer`, in milliseconds:
    /// 0.05 to 100 (default 4). NaN keeps the previous value.
    #[var(set)]
    #[export(range = (0.05, 100.0))]
    frame_budget_ms: f64,
    /// The `TileMapLayer` to fill; empty = a child `TileMapLayer` is created. Setting it again
    /// (e.g. after the layer was freed and replaced) binds the world to the layer now there and
    /// writes every loaded chunk into it. While no `TileMapLayer` is at the path the world says so
    /// once (a warning and `last_error()`) and shows nothing.
    #[var(set)]
    #[export]
    tile_map: NodePath,
    /// Tile size in pixels, 4 to 256 on each axis (default 16 × 16), used when the layer has no
    /// TileSet (a generated one gets this size).
    #[var(set)]
    #[export]
    tile_size: Vector2i,
    /// Id of the atlas source in the layer's TileSet that follows the atlas layout: 0 or more.
    #[var(set)]
    #[export(range = (0.0, 2147483647.0))]
    tile_source_id: i64,
    /// Water flows after edits (default on): dig beside a pool and the water flows into the hole
    /// up to the pool's level; take the ground from under water and it falls. The flow of each
    /// edit is computed on a flow thread, in edit order, at most 4,096 tiles per edit, and applied
    /// as edits (listed by `get_edits()`, saved); `is_water_settled()` tells when every flow has
    /// been applied. Off, edits leave water where it is and pending flows are dropped.
    #[export]
    water_flow_enabled: bool,
    /// Which tile variants the atlas holds: 0 = Edges16 (16 columns, column = 4-bit edge mask,
    /// the default) or 1 = Blob47 (47 columns: the 8-neighbour "blob" set with inner corners,
    /// a corner counting only when both edges beside it connect; column = the place of the
    /// reduced mask among the 47 in ascending order). Setting it re-tiles the world (edits
    /// kept) and redraws a generated TileSet; any other value is refused with an error in
    /// `last_error()` and the layout stays.
    #[var(set)]
    #[export(enum = (Edges16 = 0, Blob47 = 1))]
    tile_layout: i64,
    /// Sky and block light, drawn over the tiles (default on): caves are dark, light spreads
    /// from the open sky and from glowing blocks (the library's `light_emission`, through tiles
    /// by their `light_opacity`), blended smoothly across tile corners, and edits relight the
    /// chunks around them. The workers light each chunk with its tiles; each chunk's light is a
    /// small texture on a sprite over it, drawn with a multiplying shader (an internal child
    /// `Light` with `z_index` 1, so it darkens what is drawn under it at z 0). Off: no light is
    /// computed or drawn.
    #[export_group(name = "Light")]
    #[var(set)]
    #[export]
    light_enabled: bool,
    /// How much of the sky's light is day: 1 at noon, 0 at midnight, as `StrataChunkWorld.daylight`
    /// (the light shader's uniform `daylight`). Sky light is scaled by it, so torches stand out at
    /// night; 0 to 1 (clamped with a warning).
    #[var(set)]
    #[export(range = (0.0, 1.0))]
    daylight: f64,
    /// Keeps the engine's coordinates small far from the world's start: Godot's positions are
    /// 32-bit floats, which at 10⁸ tiles of 16 pixels cannot tell one tile from the next. On,
    /// when the viewer goes farther than `origin_shift_distance` tiles from the world's `origin`
    /// on either axis, the world moves the origin to the viewer's chunk between frames: the tile
    /// layer, the light, its `Node2D` children and every node in `origin_shift_group` move back by
    /// the shift (the current `Camera2D` keeps showing the same picture, smoothing included), then
    /// `origin_shifted(shift)` is emitted, all before the frame is drawn. Put the player (or
    /// whatever carries the viewer) in that group, or under the world; the origin does not move
    /// while the viewer would stay behind. Off (the default), the origin stays where it is
    /// (`set_origin` still moves it). Positions (`Vector2`) in the world's methods and signals
    /// are in the node's space, world − origin (in pixels); tiles (`Vector2i`) are world tiles.
    /// The layer's cells are `tile_to_cell(tile)` (see `get_cell_origin`).
    #[export_group(name = "Floating origin")]
    #[var(set)]
    #[export]
    floating_origin: bool,
    /// How far (tiles) the viewer may go from `origin` on either axis before the origin moves:
    /// 64–16,384 (default 1,024: at 16-pixel tiles an `f32` position's step is then 1/512 pixel).
    #[var(set)]
    #[export(range = (64.0, 16384.0))]
    origin_shift_distance: f64,
    /// The group of the game's nodes that move with the origin (the player, its camera, its
    /// projectiles); a node whose ancestor is in the group or is the world moves with it.
    #[var]
    #[export]
    origin_shift_group: StringName,
    /// Walker navigation for the chunks near the viewers, on `NavigationServer2D` (the world's
    /// default 2D map, or `set_navigation_map`'s): a `NavigationAgent2D` (or
    /// `NavigationServer2D.map_get_path(get_navigation_map(), …)`) finds paths along the ground,
    /// up steps and ledges within `navigation_max_step_up` and down drops within
    /// `navigation_max_drop` (one-way links). Baked on the workers with each chunk and again after
    /// edits (see docs/side_view.md). Off by default; turning it off frees the regions.
    #[export_group(name = "Navigation")]
    #[var(set)]
    #[export]
    navigation_enabled: bool,
    /// Chunks within this many chunks of a viewer (per axis) get navigation: 1 to 8 (default 2;
    /// clamped with a warning).
    #[var(set)]
    #[export(range = (1.0, 8.0))]
    navigation_distance: i64,
    /// The navigation layers of the regions and links (`NavigationRegion2D.navigation_layers`;
    /// default layer 1): agents whose `navigation_layers` share a bit with them path over them.
    #[var(set)]
    #[export(flags_2d_navigation)]
    navigation_layers: u32,
    /// Open tiles a walker needs, its feet tile included: 1 to 16 (default 2). A cell is
    /// standable when it and the tiles above it are open and the tile below is solid.
    #[var(set)]
    #[export(range = (1.0, 16.0))]
    navigation_agent_height: i64,
    /// The most tiles a walker climbs to a ledge beside it (a step or a jump), and comes down
    /// again: 0 to 16 (default 1). Such steps are polygons joining the two strips of ground.
    #[var(set)]
    #[export(range = (0.0, 16.0))]
    navigation_max_step_up: i64,
    /// The most tiles a walker drops from a ledge: 0 to 32 (default 4). Drops deeper than
    /// `navigation_max_step_up` are one-way `NavigationServer2D` links.
    #[var(set)]
    #[export(range = (0.0, 32.0))]
    navigation_max_drop: i64,
    /// The regions and links on the navigation server (`navigation_2d`).
    navigation_2d: navigation_2d::WorldNavigation2D,
    /// In the editor, preview the world (default on; regenerates when the preset changes)
    /// around the centre of the editor's 2D view, which the Strata editor plugin passes
    /// (`set_editor_viewer`), or around the origin without the plugin. The preview draws into
    /// a `TileMapLayer` of its own (with the TileSet of the layer `tile_map` names, when it
    /// has one) that belongs to no scene, so no generated cell is ever saved into it.
    #[export_group(name = "Editor")]
    #[export]
    editor_preview: bool,
    /// The edits, stored with the scene (the tiles painted in the editor, or set by a script
    /// before the scene was saved): a world save holding only the edits, with the names of their
    /// blocks. Loaded when the scene loads; bytes that do not load are kept as they are, with
    /// the error in `last_error()`. Replacing it forgets the undo history.
    #[var(get, set)]
    #[export(storage)]
    edits_data: PackedByteArray,
    /// Where the editor preview streams around (global position), set by `set_editor_viewer`.
    editor_viewer: Option<Vector2>,
    /// `structures` resolved (`structures_2d`).
    structures_2d: crate::host::structures_2d::StructureCache2D,

    streamer: Option<Streamer2D>,
    layer: Option<Gd<TileMapLayer>>,
    /// The layer the loaded chunks were written to: binding another one writes them again.
    bound_layer: Option<InstanceId>,
    /// The message given when `tile_map` names no `TileMapLayer` (reported once, until a layer
    /// is bound again).
    layer_missing: Option<String>,
    /// Warns once when the viewer leaves the world's bounds.
    viewer_bounds: ranges::ViewerBounds,
    /// Whether cells of a previous stream may still be in the layer.
    layer_dirty: bool,
    /// Set when a layer other than `bound_layer` was bound: the next frame streams again.
    layer_changed: bool,
    ops: VecDeque<TileOp>,
    apply_ms_last_frame: f64,
    /// Of the last frame's apply: taking the workers' results and showing their light (ms).
    receive_ms_last_frame: f64,
    /// Of the last frame's apply: Godot's update of the cells it set (ms).
    layer_update_ms_last_frame: f64,
    /// The library in use: the last valid `block_library`, the default one until then.
    blocks: Arc<CoreLibrary>,
    /// The autotile rules of `blocks`, for the workers.
    tile_rules: Arc<TileRules>,
    /// The message while `block_library` is invalid (cleared from `last_error()` once it is valid).
    library_invalid: Option<String>,
    /// The TileSet this world generated for its layer: replaced when the library changes. A
    /// TileSet the layer had before is never replaced.
    generated_tile_set: Option<Gd<TileSet>>,
    /// Preset identity and generator, kept edits, game state and the last error.
    host: WorldHost<Generator2D>,
    /// Viewers besides `viewer` ([`StrataChunkWorld2D::add_viewer`]): node, id, view distance.
    extra_viewers: Vec<(Gd<Node2D>, u64, i32)>,
    /// The area [`StrataChunkWorld2D::preload_area`] keeps loaded: centre (local pixels), radius in
    /// chunks, and whether `area_preloaded` was emitted for it.
    preload: Option<(Vector2, i32, bool)>,
    /// Viewer ids to take out of the streamer at the next frame.
    removed_viewer_ids: Vec<u64>,
    /// `area_ready` was emitted since the area last was not ready.
    area_ready_emitted: bool,
    /// The world's graphs in the debugger's Monitors tab, while it is in the tree in game.
    monitors: Monitors,
    /// The node the chunks' light sprites live under, and its shader material.
    light_root: Option<Gd<Node2D>>,
    light_material: Option<Gd<godot::classes::ShaderMaterial>>,
    /// Each loaded chunk's drawn light.
    light_sprites: HashMap<ChunkCoord2D, ChunkLightSprite>,
    /// Undo steps of the edits and which water flow joins which step (`edits_2d`).
    edit_log: TileEditLog,
    /// Where the node's space starts in the world (a chunk corner, world tiles).
    origin: FloatingOrigin2D,
    /// The world tile of the layer's cell (0, 0) (`origin_2d`).
    cell_origin: [i32; 2],
    /// What `origin_2d` adds to the layer node's position: `(cell_origin − origin) × tile size`.
    layer_offset: Vector2,
    /// The layer node's position when it was bound (where it stands with no offset).
    layer_base: Vector2,
    /// Chunks with cells in the layer (written at least in part, not erased yet), each with the
    /// atlas tile this world wrote in every one of its cells (`None`: none written), so that a
    /// chunk's new result sets only the cells that change.
    drawn: HashMap<ChunkCoord2D, Vec<Option<AtlasCoords>>>,
    /// Chunks `chunk_loaded` announced and `chunk_unloaded` has not: each chunk is announced
    /// once when its first write finishes (whether that write is its first result or a newer one
    /// that replaced it), and an unload is announced only for an announced chunk.
    announced: HashSet<ChunkCoord2D>,
    /// Announced chunks whose cells a restart cleared: `chunk_unloaded` at the next frame (not
    /// at once: the restart may run inside a listener's own call, as a client's `adopt`).
    unannounced_by_restart: Vec<ChunkCoord2D>,
    /// What Godot's update of the layer costs (learnt per call, quadrant and cell): the cells a
    /// frame sets are updated (`TileMapLayer.update_internals`) inside the frame budget, so
    /// their writing stops where their update would pass it (`layer_2d`).
    layer_cost: layer_cost_2d::LayerUpdateCost,
    /// The origin moved since the streamer last heard where the viewers are: not ready yet.
    area_stale: bool,
    /// The viewer that did not follow a shift was reported.
    origin_warned: bool,
    /// Main-thread time of each origin shift (µs).
    origin_shift_us: Samples,
    /// Origin shifts so far.
    origin_shifts: u64,
    /// Times the layer was drawn again at the origin (a chunk past the cells' exact range).
    layer_redraws: u64,
    /// Spawn points, live entities and what a save keeps of them (`entities_2d`).
    entities: entities_2d::Entities2D,
}

/// One chunk's drawn light (`light_2d`): its sprite and the bytes its texture holds.
struct ChunkLightSprite {
    sprite: Gd<godot::classes::Sprite2D>,
    texture: Gd<ImageTexture>,
    drawn: Vec<u8>,
}

/// The streamer's id of the preloaded area (node instance ids are never this).
const PRELOAD_VIEWER_ID: u64 = u64::MAX;

/// The world's custom monitors (`Strata 2D/…` in the debugger's Monitors tab), read from
/// `get_stats()`.
const MONITORS: &[Monitor] = &[
    Monitor { name: "loaded_chunks", reading: Reading::Value("loaded_chunks") },
    Monitor { name: "queued_jobs", reading: Reading::Sum("pending_chunks", "in_flight") },
    Monitor { name: "apply_ms", reading: Reading::Value("apply_ms_last_frame") },
    Monitor { name: "memory_mb", reading: Reading::Value("memory_estimate_mb") },
    Monitor { name: "queued_writes", reading: Reading::Value("queued_writes") },
];

#[godot_api]
impl INode2D for ChunkWorld2D {
    fn init(base: Base<Node2D>) -> Self {
        Self {
            base,
            preset: None,
            viewer: NodePath::default(),
            block_library: None,
            view_distance: 2,
            worker_threads: 0,
            memory_budget_mb: 512,
            frame_budget_ms: 4.0,
            tile_map: NodePath::default(),
            tile_size: Vector2i::new(16, 16),
            tile_source_id: 0,
            water_flow_enabled: true,
            tile_layout: 0,
            light_enabled: true,
            daylight: 1.0,
            floating_origin: false,
            origin_shift_distance: DEFAULT_SHIFT_DISTANCE,
            origin_shift_group: StringName::from("strata_origin_shift"),
            navigation_enabled: false,
            navigation_distance: 2,
            navigation_layers: 1,
            navigation_agent_height: 2,
            navigation_max_step_up: 1,
            navigation_max_drop: 4,
            navigation_2d: Default::default(),
            editor_preview: true,
            edits_data: PackedByteArray::new(),
            editor_viewer: None,
            structures: Array::new(),
            structures_2d: Default::default(),
            streamer: None,
            layer: None,
            bound_layer: None,
            layer_missing: None,
            viewer_bounds: Default::default(),
            layer_dirty: false,
            layer_changed: false,
            ops: VecDeque::new(),
            apply_ms_last_frame: 0.0,
            receive_ms_last_frame: 0.0,
            layer_update_ms_last_frame: 0.0,
            blocks: Arc::new(default_library().clone()),
            tile_rules: TileRules::builtin().clone(),
            library_invalid: None,
            generated_tile_set: None,
            host: WorldHost::new("StrataChunkWorld2D"),
            extra_viewers: Vec::new(),
            preload: None,
            removed_viewer_ids: Vec::new(),
            area_ready_emitted: false,
            monitors: Monitors::default(),
            light_root: None,
            light_material: None,
            light_sprites: HashMap::new(),
            edit_log: TileEditLog::new(),
            origin: FloatingOrigin2D::ZERO,
            cell_origin: [0, 0],
            layer_offset: Vector2::ZERO,
            layer_base: Vector2::ZERO,
            drawn: HashMap::new(),
            announced: HashSet::new(),
            unannounced_by_restart: Vec::new(),
            layer_cost: Default::default(),
            area_stale: false,
            origin_warned: false,
            origin_shift_us: Samples::default(),
            origin_shifts: 0,
            layer_redraws: 0,
            entities: Default::default(),
        }
    }

    fn ready(&mut self) {
        // In the editor the preview binds its layer when it first streams.
        if Engine::singleton().is_editor_hint() {
            return;
        }
        self.ensure_layer();
    }

    fn get_configuration_warnings(&self) -> PackedStringArray {
        self.configuration_warnings()
    }

    fn process(&mut self, _delta: f64) {
        let editor = Engine::singleton().is_editor_hint();
        if editor && !self.editor_preview {
            if self.streamer.is_some() {
                self.stop_streaming();
            }
            return;
        }
        let layer = self.ensure_layer();
        if self.layer_changed {
            // Another layer than the one the loaded chunks were written to (the old one was freed
            // and replaced, or `tile_map` names another): stream again into it; edits stay.
            self.layer_changed = false;
            self.stop_streaming();
            self.layer_dirty = false;
        }
        self.restart_if_preset_changed();
        if self.streamer.is_none() || layer.is_none() {
            return;
        }
        let frame_start = Instant::now();
        // The setter keeps the budget within 0.05..=100 ms; clamped again so no value can panic.
        let ms = if self.frame_budget_ms.is_finite() { self.frame_budget_ms } else { 4.0 };
        let budget = std::time::Duration::from_secs_f64(ms.clamp(0.05, 100.0) / 1000.0);
        // The origin moves before anything of this frame is placed (with the nodes already
        // placed), so the frame draws everything in the new node space.
        let mut viewer = if editor { self.editor_viewer_local_tiles() } else { self.viewer_local_tiles() };
        if !editor && self.follow_viewer_with_origin(viewer) {
            viewer = self.viewer_local_tiles();
        }
        let viewer = self.viewer_bounds.clamp("StrataChunkWorld2D", self.origin.to_world(viewer), "tiles");
        let vd = self.view_distance.clamp(0, MAX_VIEW_DISTANCE_2D as i64) as i32;
        let memory_budget = self.memory_budget();
        let extra = if editor { Vec::new() } else { self.extra_viewer_tiles() };
        let removed = std::mem::take(&mut self.removed_viewer_ids);
        let (unloads, results) = {
            let Some(s) = self.streamer.as_mut() else { return };
            if s.config().view_distance != vd {
                s.set_view_distance(vd);
            }
            if s.config().memory_budget_mb != memory_budget {
                s.set_memory_budget(memory_budget);
            }
            s.set_viewer(viewer[0], viewer[1]);
            for id in removed {
                s.remove_extra_viewer(id);
            }
            for (id, [x, y], distance) in extra {
                s.set_extra_viewer(id, x, y, distance);
            }
            s.pump();
            self.area_stale = false;
            crate::host::water_flow::update_2d(s, self.water_flow_enabled, &mut self.host, "StrataChunkWorld2D");
            // Each flow joins the undo step of the edit that caused it.
            let flows = s.apply_water_flow_changes();
            self.edit_log.flows_applied(s, flows);
            let unloads = s.take_unloads();
            let mut results = Vec::new();
            while let Some(r) = s.try_recv() {
                results.push(r);
            }
            (unloads, results)
        };
        for c in unloads {
            self.entities.chunk_unloaded(c);
            self.apply_light(c, None);
            self.navigation_unloaded_2d(c);
            self.ops.retain(|op| !matches!(op, TileOp::Write { result, .. } if result.coord == c));
            self.ops.push_back(TileOp::Erase { coord: c, next_block: 0 });
        }
        for mut r in results {
            // The light is shown at once (a texture's bytes); the tiles are written a row at a
            // time, and only when the result changed them.
            self.apply_light(r.coord, r.light.take());
            // The editor preview starts no objects (their scripts would not run there).
            if !editor {
                self.entities.chunk_loaded(r.coord, std::mem::take(&mut r.spawns), r.is_update);
            }
            self.accept_navigation_2d(&mut r);
            if !r.tiles_changed {
                continue;
            }
            let c = r.coord;
            // A newer result replaces a pending write of the same chunk (rows may be half
            // written: the layer's cells are compared with it, whatever they are).
            self.ops.retain(|op| !matches!(op, TileOp::Write { result, .. } if result.coord == c));
            self.ops.push_back(TileOp::Write { result: r, next_block: 0 });
        }
        self.receive_ms_last_frame = frame_start.elapsed().as_secs_f64() * 1000.0;
        self.apply_ops(frame_start, budget);
        if !editor {
            self.update_entities(frame_start, budget);
        }
        self.navigation_frame_2d(frame_start + budget);
        self.apply_ms_last_frame = frame_start.elapsed().as_secs_f64() * 1000.0;
        // `area_ready` follows every change from not ready to ready (a move, an edit, a larger
        // view), as `StrataChunkWorld`'s does.
        if !self.is_area_ready() {
            self.area_ready_emitted = false;
        } else if !self.area_ready_emitted {
            self.area_ready_emitted = true;
            self.signals().area_ready().emit();
        }
        let preload_done = self.get_preload_progress() >= 1.0;
        if let Some((center, _, announced)) = self.preload.as_mut()
            && preload_done
            && !*announced
        {
            *announced = true;
            let center = *center;
            self.signals().area_preloaded().emit(center);
        }
    }

    fn enter_tree(&mut self) {
        if !Engine::singleton().is_editor_hint() {
            let node = self.to_gd().upcast::<Node>();
            self.monitors.add(&node, "Strata 2D", MONITORS);
        }
    }

    fn exit_tree(&mut self) {
        self.monitors.remove();
        // Join the workers before the node goes away; keep the edits for a re-entry.
        self.stop_streaming();
    }
}

#[godot_api]
impl ChunkWorld2D {
    /// `tile_layout`: 16 columns, column = 4-bit edge mask (the default).
    #[constant]
    pub const TILE_LAYOUT_EDGES16: i64 = 0;
    /// `tile_layout`: 47 columns, the 8-neighbour "blob" set with inner corners.
    #[constant]
    pub const TILE_LAYOUT_BLOB47: i64 = 1;

    /// The editor's configuration warnings (the yellow triangle), also for a game to check a
    /// world: empty when it is configured, else what it lacks or has wrong (no preset, no viewer
    /// or one that is not a `Node2D`, `tile_map` naming no `TileMapLayer`, an invalid block
    /// library, or no library for a layer with a TileSet of its own, whose rows must then follow
    /// the default library).
    #[func]
    pub fn configuration_warnings(&self) -> PackedStringArray {
        let node = self.to_gd().upcast::<Node>();
        let mut out = config_warnings::preset_warnings("StrataChunkWorld2D", self.preset.as_ref(), None, false);
        out.extend(config_warnings::viewer_warning::<Node2D>(&node, &self.viewer, "StrataChunkWorld2D", "Camera2D"));
        if !self.tile_map.is_empty() && node.is_inside_tree() {
            match node.get_node_or_null(&self.tile_map).and_then(|n| n.try_cast::<TileMapLayer>().ok()) {
                None => out.push(format!(
                    "`tile_map` ({}) is not a TileMapLayer in the scene: the world shows nothing until one is there.",
                    self.tile_map
                )),
                Some(layer) if self.block_library.is_none() && self.has_own_tile_set(&layer) => out.push(
                    "No block library: the TileSet of `tile_map` must have one atlas row per block of the default library (StrataBlockLibrary.create_default()). Set `block_library` to the blocks your TileSet draws.".to_string(),
                ),
                Some(_) => {}
            }
        }
        out.extend(config_warnings::library_warning(self.block_library.as_ref()));
        out.iter().map(|w| GString::from(w.as_str())).collect()
    }

    /// Emitted when all tiles of a chunk are in the `TileMapLayer` (also for all-air chunks):
    /// once per chunk that streams in, however many results it had before its tiles were in.
    #[signal]
    fn chunk_loaded(coord: Vector2i);
    /// Emitted when a loaded chunk left the view and its cells were erased, or when the world
    /// streams anew (a new preset or library, a joined server's world, a redraw at the origin):
    /// then every loaded chunk is unloaded at the next frame and loaded again as it streams in.
    #[signal]
    fn chunk_unloaded(coord: Vector2i);
    /// Emitted when every chunk within `view_distance` of the viewers is in the layer (again
    /// after anything made it not ready: a move, an edit, a larger view); as
    /// `StrataChunkWorld.area_ready`, `if not world.is_area_ready(): await world.area_ready` never
    /// hangs.
    #[signal]
    fn area_ready();
    /// Emitted once when every chunk of the area asked for with `preload_area` is in the layer.
    #[signal]
    fn area_preloaded(center: Vector2);

    /// Emitted once per `set_tile`, shape edit (`set_tiles_rect`, `set_tiles_circle`),
    /// `apply_edit_changes`, `undo`, `redo`, `set_edits`, `clear_edits` and `load_world` with the
    /// rectangle of tiles that changed (for the calls that replace every edit, the rectangle of
    /// the edits before and after).
    #[signal]
    fn voxels_changed(rect: Rect2i);

    /// An entity came into the world: spawned by a rule, brought back from a record, or added
    /// with `add_entity`.
    #[signal]
    pub(crate) fn entity_spawned(node: Gd<Node2D>);

    /// An entity is about to leave the world: its chunk unloaded (it is kept if it moved or
    /// changed), the world restarts or loads a save, or `remove_entity` removed it.
    #[signal]
    pub(crate) fn entity_despawned(node: Gd<Node2D>);

    /// Emitted after the world's origin moved (`floating_origin`, `set_origin`) by `shift`
    /// (world tiles; every position in the node's space lost `shift × tile size` pixels). The
    /// layer, the light, the world's `Node2D` children and `origin_shift_group` have moved
    /// already; move anything else that keeps node-space positions.
    #[signal]
    fn origin_shifted(shift: Vector2i);

    /// Streams around `node` too (split screen, another player), with its own `view_distance`
    /// in chunks (0 to 16, clamped with a warning). The loaded set is the union of every
    /// viewer's square, queued nearest-first across viewers, with `memory_budget_mb` shared
    /// between them. `viewer` stays the first viewer; adding a node again changes its distance;
    /// a freed viewer stops being one.
    #[func]
    fn add_viewer(&mut self, node: Option<Gd<Node2D>>, view_distance: i64) {
        let Some(node) = node else {
            godot_error!("StrataChunkWorld2D.add_viewer: node is null; allowed: a Node2D");
            return;
        };
        let max = MAX_VIEW_DISTANCE_2D as i64;
        let distance = view_distance.clamp(0, max) as i32;
        if distance as i64 != view_distance {
            godot_warn!(
                "StrataChunkWorld2D.add_viewer: view_distance {view_distance} is out of range; allowed: 0 to {max}; using {distance}"
            );
        }
        let id = node.instance_id().to_i64() as u64;
        match self.extra_viewers.iter_mut().find(|v| v.1 == id) {
            Some(v) => v.2 = distance,
            None => self.extra_viewers.push((node, id, distance)),
        }
    }

    /// Stops streaming around `node`; what only it needed unloads. False when it was not a viewer.
    #[func]
    fn remove_viewer(&mut self, node: Option<Gd<Node2D>>) -> bool {
        let Some(node) = node else { return false };
        let id = node.instance_id().to_i64() as u64;
        let before = self.extra_viewers.len();
        self.extra_viewers.retain(|v| v.1 != id);
        let removed = self.extra_viewers.len() != before;
        if removed {
            self.removed_viewer_ids.push(id);
        }
        removed
    }

    /// How many viewers the world streams around: `viewer` (or the camera) and those added.
    #[func]
    fn get_viewer_count(&self) -> i64 {
        1 + self.extra_viewers.len() as i64
    }

    /// Loads the square of chunks within `radius` (0 to 16, clamped with a warning) around
    /// `center` (pixels in the node's space: world − origin; to preload a destination far away,
    /// `set_origin` near it first) and keeps it until `cancel_preload` or the next `preload_area`;
    /// `area_preloaded` is emitted once it is in the layer.
    #[func]
    fn preload_area(&mut self, center: Vector2, radius: i64) {
        let max = MAX_VIEW_DISTANCE_2D as i64;
        let r = radius.clamp(0, max) as i32;
        if r as i64 != radius {
            godot_warn!(
                "StrataChunkWorld2D.preload_area: radius {radius} is out of range; allowed: 0 to {max}; using {r}"
            );
        }
        let center = if center.x.is_finite() && center.y.is_finite() {
            center
        } else {
            godot_warn!("StrataChunkWorld2D.preload_area: center {center} is not a finite position; using the origin");
            Vector2::ZERO
        };
        self.preload = Some((center, r, false));
    }

    /// Loaded fraction of the preloaded area's chunks, 0 to 1; 0 when there is none.
    #[func]
    fn get_preload_progress(&self) -> f64 {
        if self.preload.is_none() {
            return 0.0;
        }
        let streamed = self.streamer.as_ref().and_then(|s| s.extra_viewer_progress(PRELOAD_VIEWER_ID)).unwrap_or(0.0);
        // Loaded in the streamer is not yet written into the layer: wait for the writes too.
        if streamed >= 1.0 && !self.ops.is_empty() { 0.99 } else { streamed }
    }

    /// Lets the preloaded area go (what no viewer needs unloads).
    #[func]
    fn cancel_preload(&mut self) {
        if self.preload.take().is_some() {
            self.removed_viewer_ids.push(PRELOAD_VIEWER_ID);
        }
    }

    /// Local pixel y (the node's space) of the top of the topmost solid tile in the column
    /// holding local pixel x (smaller y is higher). Works anywhere, loaded or not; edits included.
    #[func]
    pub fn get_surface_height(&mut self, x: f64) -> f64 {
        let px = self.tile_pixels();
        let Some(g) = self.generator() else { return 0.0 };
        let tx = self.origin.tile_at([x / px.x as f64, 0.0])[0];
        let rules = self.tile_rules.clone();
        let row = top_solid_row_with(&g, self.edits(), tx, &|id| rules.is_solid(id));
        (f64::from(row) - f64::from(self.origin.tile()[1])) * px.y as f64
    }

    /// The block id of tile `p` (0 = air; see `get_block_name`). Works anywhere; edits included.
    #[func]
    pub fn get_tile(&mut self, p: Vector2i) -> i64 {
        // An edit answers even while the preset does not build (law: Nothing is lost).
        if let Some(id) = self.edits().and_then(|e| e.get(IVec3::new(p.x, p.y, 0))) {
            return id as i64;
        }
        let Some(g) = self.generator() else { return 0 };
        tile_with_edits(&g, self.edits(), p.x, p.y) as i64
    }

    /// True when the water flow of every edit so far has been applied (always true with
    /// `water_flow_enabled` off or before streaming starts). Flows run on a thread and are applied
    /// in later frames; wait for this before reading water an edit moved, or before saving.
    #[func]
    pub fn is_water_settled(&self) -> bool {
        self.streamer.as_ref().is_none_or(|s| s.is_water_settled())
    }

    /// Sets tile `p` to block `id` of the library in use (0 = air; see `get_block_id`) as a
    /// player edit: re-tiled with its neighbours at once, kept across preset and library changes,
    /// listed by `get_edits()` for saves. With `water_flow_enabled`, water then flows (see
    /// `is_water_settled()`).
    #[func]
    pub fn set_tile(&mut self, p: Vector2i, id: i64) {
        let Some(id) = self.library_id(id) else {
            godot_error!(
                "StrataChunkWorld2D.set_tile: block id {id} is not a block of the world's library; allowed: 0..={}",
                self.blocks.len() - 1
            );
            return;
        };
        if !voxel_in_world(IVec3::new(p.x, p.y, 0)) {
            godot_error!(
                "StrataChunkWorld2D.set_tile: tile {p} is beyond the world's bounds; allowed: x and y in {}..{}",
                -WORLD_LIMIT_VOXELS,
                WORLD_LIMIT_VOXELS
            );
            return;
        }
        let pos = IVec3::new(p.x, p.y, 0);
        let before = self.edits().and_then(|e| e.get(pos));
        self.write_changes("set_tile", &[VoxelChange { pos, before, after: Some(id) }]);
    }

    /// Every edit as a flat array `[x, y, id, x, y, id, …]` in a stable order (for saves).
    #[func]
    pub fn get_edits(&self) -> PackedInt32Array {
        let mut out = Vec::new();
        if let Some(e) = self.edits() {
            for (c, m) in e.chunks_sorted() {
                for (&i, &id) in m {
                    let p = c.min_voxel() + local_from_index(i);
                    out.extend_from_slice(&[p.x, p.y, id as i32]);
                }
            }
        }
        PackedInt32Array::from(out.as_slice())
    }

    /// Replaces every edit with `[x, y, id, …]` (as `get_edits()` returns); loaded chunks are
    /// re-tiled. Triples with an id that is not a block of the library in use are refused with
    /// an error, and nothing changes.
    #[func]
    pub fn set_edits(&mut self, edits: PackedInt32Array) {
        let v = edits.as_slice();
        if !v.len().is_multiple_of(3) {
            godot_error!("StrataChunkWorld2D.set_edits: {} values is not a list of [x, y, id] triples", v.len());
            return;
        }
        let mut map = EditMap::new();
        for t in v.chunks_exact(3) {
            let Some(id) = self.library_id(t[2] as i64) else {
                godot_error!(
                    "StrataChunkWorld2D.set_edits: block id {} at ({}, {}) is not a block of the world's library; allowed: 0..={}",
                    t[2],
                    t[0],
                    t[1],
                    self.blocks.len() - 1
                );
                return;
            };
            map.set(IVec3::new(t[0], t[1], 0), id);
        }
        self.replace_all_edits(map);
    }

    /// Replaces every edit with `map`, forgets the undo history and announces the tiles of the
    /// edits before and after (`set_edits`, `edits_data`).
    fn replace_all_edits(&mut self, map: EditMap) {
        let before = world_edits::tile_edit_bounds(self.edits());
        let after = world_edits::tile_edit_bounds(Some(&map));
        match self.streamer.as_mut() {
            Some(s) => s.replace_edits(map),
            None => self.host.keep_edits(map),
        }
        self.edit_log.clear();
        self.emit_tiles_changed(world_edits::union(before, after));
    }

    /// True when every chunk within `view_distance` is generated and all its tiles are in the
    /// `TileMapLayer` (and unloaded chunks are erased). False from the moment the preset changes
    /// (another resource, or a field of it) until the world has streamed the new one.
    #[func]
    pub fn is_area_ready(&self) -> bool {
        // After a shift or teleport the streamer has not yet heard where the viewers are now.
        // A preset changed since the world was built streams again from its next frame on.
        !self.area_stale
            && !self.host.preset_changed(self.preset.as_ref())
            && self.ops.is_empty()
            && self.streamer.as_ref().is_some_and(|s| s.is_area_ready())
    }

    /// Fraction of the chunks needed around the viewers that are generated, 0..1 (loading
    /// screens), as `StrataChunkWorld.get_progress()`.
    #[func]
    pub fn get_progress(&self) -> f64 {
        self.streamer.as_ref().map(|s| s.progress()).unwrap_or(0.0)
    }

    /// The ids of this world's custom monitors in the debugger's Monitors tab
    /// (`Performance.get_custom_monitor(id)`): `Strata 2D/loaded_chunks`, `queued_jobs`,
    /// `apply_ms`, `memory_mb` and `queued_writes` (chunks whose tiles are still being
    /// written); a second world's are under `Strata 2D #2/`. Empty while out of the tree.
    #[func]
    pub fn get_monitors(&self) -> PackedStringArray {
        self.monitors.ids()
    }

    /// Streaming counters: `loaded_chunks`, `pending_chunks`, `in_flight`, `generated_total`,
    /// `cancelled_total`, `gen_ms_median`, `tile_ms_median`, `apply_ms_last_frame` (of it:
    /// `receive_ms_last_frame`, taking the workers' results and showing their light, and
    /// `layer_update_ms_last_frame`, Godot's update of the cells set), `workers`,
    /// `queued_writes`, `edits`, `memory_budget_mb`, `memory_estimate_mb` (loaded chunks at 64
    /// bytes a tile, see `memory_budget_mb`), `view_distance_effective` (the view distance in use:
    /// `view_distance`, or less while the memory budget holds it back), and the floating
    /// origin's `origin_shifts`, `origin_shift_us_median` and `origin_shift_us_max` (main-thread
    /// time of a shift, µs), `layer_redraws` (times the layer was drawn again at the origin), and
    /// the entities' `entities` (standing), `entities_queued`, `entities_kept` (records of
    /// entities not standing) and `entity_spawn_us_median` (main-thread time to instance one).
    #[func]
    pub fn get_stats(&self) -> VarDictionary {
        let st = self.streamer.as_ref().map(|s| s.stats()).unwrap_or_default();
        let edits = self.edits().map(|e| e.len()).unwrap_or(0);
        let mut d = world_host::stream_stats(&st, "tile_ms_median", self.apply_ms_last_frame, edits);
        d.set("queued_writes", self.ops.len() as i64);
        d.set("memory_budget_mb", self.memory_budget_mb);
        let estimate = self.streamer.as_ref().map(|s| s.memory_estimate_bytes()).unwrap_or(0);
        d.set("memory_estimate_mb", estimate as f64 / (1024.0 * 1024.0));
        let effective = self
            .streamer
            .as_ref()
            .map(|s| s.effective_view_distance())
            .unwrap_or(self.view_distance.clamp(0, MAX_VIEW_DISTANCE_2D as i64) as i32);
        d.set("view_distance_effective", effective as i64);
        d.set("origin_shifts", self.origin_shifts as i64);
        d.set("receive_ms_last_frame", self.receive_ms_last_frame);
        d.set("layer_update_ms_last_frame", self.layer_update_ms_last_frame);
        d.set("origin_shift_us_median", self.origin_shift_us.median());
        d.set("origin_shift_us_max", self.origin_shift_us.max());
        d.set("layer_redraws", self.layer_redraws as i64);
        self.entity_stats(&mut d);
        self.navigation_stats_2d(&mut d);
        d
    }

    /// Rows (y down) of the topmost *generated* ground tile of `count` columns from tile `x0`,
    /// edits ignored; cheap (the surface line only), for backgrounds and minimaps.
    #[func]
    pub fn get_generated_surface_rows(&mut self, x0: i32, count: i32) -> PackedInt32Array {
        let Some(g) = self.generator() else { return PackedInt32Array::new() };
        let rows: Vec<i32> = (0..count.clamp(0, 1 << 16)).map(|i| g.surface_row(x0.saturating_add(i))).collect();
        PackedInt32Array::from(rows.as_slice())
    }

    /// The `TileMapLayer` being filled (the created child when `tile_map` is empty), or null.
    #[func]
    pub fn get_tile_map_layer(&mut self) -> Option<Gd<TileMapLayer>> {
        self.ensure_layer()
    }

    /// The world tile holding pixel position `p` of the node's space (exact anywhere: the
    /// origin is added as an integer).
    #[func]
    pub fn local_to_tile(&self, p: Vector2) -> Vector2i {
        let px = self.tile_pixels();
        let local = [finite_floor(p.x as f64 / px.x as f64), finite_floor(p.y as f64 / px.y as f64)];
        let t = self.origin.tile_at([f64::from(local[0]), f64::from(local[1])]);
        Vector2i::new(t[0], t[1])
    }

    /// The pixel position in the node's space of the centre of world tile `t` (exact within
    /// 2²³ pixels of the origin: everything near the viewer).
    #[func]
    pub fn tile_to_local(&self, t: Vector2i) -> Vector2 {
        let px = self.tile_pixels();
        let l = self.origin.tile_to_local([t.x, t.y]);
        Vector2::new(
            ((f64::from(l[0]) + 0.5) * f64::from(px.x)) as f32,
            ((f64::from(l[1]) + 0.5) * f64::from(px.y)) as f32,
        )
    }

    /// The chunk holding tile `t`.
    #[func]
    pub fn chunk_of_tile(&self, t: Vector2i) -> Vector2i {
        let c = ChunkCoord2D::containing(t.x, t.y, self.chunk_tiles());
        Vector2i::new(c.x, c.y)
    }

    /// Edge of a chunk in tiles (`side_view_chunk_tiles` of the preset).
    #[func]
    pub fn chunk_tiles(&self) -> i32 {
        self.core_preset().side_view.chunk_tiles.clamp(1, 4096) as i32
    }

    /// Name of the block with id `id` in the library in use ("" for ids it does not have).
    #[func]
    pub fn get_block_name(&self, id: i64) -> GString {
        let Ok(id) = u16::try_from(id) else { return GString::new() };
        self.blocks.name_of(id).map(GString::from).unwrap_or_default()
    }

    /// Id of the block named `name` in the library in use, or -1.
    #[func]
    pub fn get_block_id(&self, name: GString) -> i64 {
        self.blocks.id_of(&name.to_string()).map(|id| id as i64).unwrap_or(-1)
    }

    /// Drops every chunk (erasing the layer), builds the world again from the current preset
    /// and streams it; edits stay.
    #[func]
    pub fn regenerate(&mut self) {
        self.stop_streaming();
        self.host.forget_generator();
        self.ensure_streamer();
    }

    /// Writes the world (preset + edits + game state + entities) to `path` (res://, user:// or absolute),
    /// in the format of `StrataChunkWorld.save_world`, with the names of the blocks the edits use (so
    /// a library reordered or extended later loads it unchanged). The write is atomic: a crash
    /// mid-save keeps the previous file. An invalid `block_library` refuses to save. Returns OK
    /// or an error code; the message is in `last_error()`.
    #[func]
    pub fn save_world(&mut self, path: GString) -> Error {
        self.host.set_entities(self.entity_deltas());
        let library = self.library();
        let edits = self.streamer.as_ref().map(|s| s.edits());
        let flows = self.streamer.as_ref().map(|s| s.pending_water_flows());
        self.host.save_world(&path, self.preset.as_ref(), edits, flows, library.as_deref().map_err(String::clone))
    }

    /// Loads a world written by `save_world`: replaces the preset, the edits, the game state and
    /// the entities, and streams the saved world. Its blocks are found by name in `block_library`: a block the
    /// library lacks is refused with its name. On error nothing changes; the message is in
    /// `last_error()`.
    #[func]
    pub fn load_world(&mut self, path: GString) -> Error {
        let library = self.library();
        match self.host.read_world(&path, library.as_deref().map_err(String::clone)) {
            Ok((preset, edits, flows)) => {
                let entities = self.host.take_entities();
                let before = world_edits::tile_edit_bounds(self.edits());
                let after = world_edits::tile_edit_bounds(Some(&edits));
                self.restart_with(preset, edits, flows);
                self.replace_entities(entities);
                self.edit_log.clear();
                self.emit_tiles_changed(world_edits::union(before, after));
                Error::OK
            }
            Err(code) => code,
        }
    }

    /// The message of the last failure (save, load, a preset that does not build, worker
    /// threads that did not start, a `tile_map` that names no `TileMapLayer`, an invalid
    /// `block_library`), or "" after a later success (a save, a load, the preset building again,
    /// a layer bound again, a valid library).
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

    /// Forgets every player edit: the world shows its generated tiles again (loaded chunks are
    /// re-tiled). Besides `load_world` (and `set_edits`), the only call that removes edits; the
    /// game state stays.
    #[func]
    pub fn clear_edits(&mut self) {
        let before = world_edits::tile_edit_bounds(self.edits());
        match self.streamer.as_mut() {
            Some(s) => s.replace_edits(EditMap::new()),
            None => self.host.clear_kept_edits(),
        }
        self.edit_log.clear();
        self.emit_tiles_changed(before);
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
    fn set_floating_origin(&mut self, value: bool) {
        self.floating_origin = value;
        self.origin_warned = false;
    }

    #[func]
    fn set_origin_shift_distance(&mut self, value: f64) {
        self.origin_shift_distance = ranges::float_in_range(
            "StrataChunkWorld2D",
            "origin_shift_distance",
            value,
            strata_core::base::origin::MIN_SHIFT_DISTANCE,
            strata_core::base::origin::MAX_SHIFT_DISTANCE,
            self.origin_shift_distance,
        );
    }

    #[func]
    fn set_light_enabled(&mut self, value: bool) {
        self.change_light_enabled(value);
    }

    #[func]
    fn set_daylight(&mut self, value: f64) {
        self.change_daylight(value);
    }

    #[func]
    fn set_navigation_enabled(&mut self, value: bool) {
        self.change_navigation_enabled(value);
    }

    #[func]
    fn set_navigation_distance(&mut self, value: i64) {
        self.change_navigation_distance(value);
    }

    #[func]
    fn set_navigation_layers(&mut self, value: u32) {
        self.change_navigation_layers(value);
    }

    #[func]
    fn set_navigation_agent_height(&mut self, value: i64) {
        self.change_navigation_agent_height(value);
    }

    #[func]
    fn set_navigation_max_step_up(&mut self, value: i64) {
        self.change_navigation_max_step_up(value);
    }

    #[func]
    fn set_navigation_max_drop(&mut self, value: i64) {
        self.change_navigation_max_drop(value);
    }

    #[func]
    fn set_block_library(&mut self, value: Option<Gd<BlockLibrary>>) {
        self.block_library = value;
        self.apply_library();
        self.base_mut().update_configuration_warnings();
    }

    #[func]
    fn set_structures(&mut self, value: Array<Option<Gd<crate::resources::structure_2d::Structure2D>>>) {
        self.structures = value;
        self.structures_changed();
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
    fn set_view_distance(&mut self, value: i64) {
        self.view_distance =
            ranges::int_in_range("StrataChunkWorld2D", "view_distance", value, 0, MAX_VIEW_DISTANCE_2D as i64);
    }

    #[func]
    fn set_memory_budget_mb(&mut self, value: i64) {
        let (lo, hi) = (*MEMORY_BUDGET_MB_RANGE.start() as i64, *MEMORY_BUDGET_MB_RANGE.end() as i64);
        self.memory_budget_mb = ranges::int_in_range("StrataChunkWorld2D", "memory_budget_mb", value, lo, hi);
    }

    #[func]
    fn set_worker_threads(&mut self, value: i64) {
        self.worker_threads =
            ranges::int_in_range("StrataChunkWorld2D", "worker_threads", value, 0, max_workers() as i64);
    }

    #[func]
    fn set_frame_budget_ms(&mut self, value: f64) {
        self.frame_budget_ms =
            ranges::float_in_range("StrataChunkWorld2D", "frame_budget_ms", value, 0.05, 100.0, self.frame_budget_ms);
    }

    #[func]
    fn set_tile_size(&mut self, value: Vector2i) {
        let x = ranges::int_in_range("StrataChunkWorld2D", "tile_size.x", value.x as i64, 4, 256);
        let y = ranges::int_in_range("StrataChunkWorld2D", "tile_size.y", value.y as i64, 4, 256);
        self.tile_size = Vector2i::new(x as i32, y as i32);
    }

    #[func]
    fn set_tile_source_id(&mut self, value: i64) {
        self.tile_source_id = ranges::int_in_range("StrataChunkWorld2D", "tile_source_id", value, 0, i32::MAX as i64);
    }

    #[func]
    fn set_tile_layout(&mut self, value: i64) {
        if TileLayout::from_index(value).is_none() {
            let kept = TileLayout::from_index(self.tile_layout).unwrap_or_default();
            self.host.error(format!(
                "StrataChunkWorld2D.tile_layout: {value} is not a tile layout; allowed: 0 (Edges16, 16 edge variants) or 1 (Blob47, 47 blob variants with inner corners); keeping {} ({})",
                self.tile_layout,
                kept.name()
            ));
            return;
        }
        if value == self.tile_layout {
            return;
        }
        self.tile_layout = value;
        self.retile();
    }

    #[func]
    fn set_tile_map(&mut self, path: NodePath) {
        self.tile_map = path;
        // Bound again on the next frame; a layer other than the one written so far is filled anew.
        self.layer = None;
        if let Some(m) = self.layer_missing.take() {
            self.host.resolve(&m);
        }
        self.base_mut().update_configuration_warnings();
    }

    /// A game-state value from `set_state` or a loaded save, of the type it was stored with (a
    /// 0.2 save's values are Strings); `default` when absent.
    #[func]
    pub fn get_state(&self, key: GString, default: Variant) -> Variant {
        self.host.game_state(&key, default)
    }
}

impl ChunkWorld2D {
    /// Whether `layer` has a TileSet that this world did not generate.
    fn has_own_tile_set(&self, layer: &Gd<TileMapLayer>) -> bool {
        layer.get_tile_set().is_some_and(|t| self.generated_tile_set.as_ref() != Some(&t))
    }

    fn core_preset(&self) -> strata_core::WorldPreset {
        world_host::core_preset(self.preset.as_ref())
    }

    /// The edits: the streamer's, or those kept while it is stopped.
    fn edits(&self) -> Option<&EditMap> {
        match &self.streamer {
            Some(s) => Some(s.edits()),
            None => self.host.kept_edits(),
        }
    }

    /// The generator of the world: the streamer's, or one built from the current preset for
    /// queries before streaming starts (same preset, same answers). The side view's generator
    /// uses no biome rows, so it takes the default library's names.
    fn generator(&mut self) -> Option<Arc<Generator2D>> {
        // A preset changed since streaming started: queries answer the new world at once, not
        // at the next frame (the streamer restarts now, as the frame would restart it).
        if self.streamer.is_some() && self.host.preset_changed(self.preset.as_ref()) {
            self.stop_streaming();
            self.edit_log.clear();
        }
        if let Some(s) = &self.streamer {
            return Some(s.generator().clone());
        }
        self.structures_generator()
    }

    /// `memory_budget_mb` as the streamer takes it (the setter keeps it in range).
    fn memory_budget(&self) -> u32 {
        self.memory_budget_mb.clamp(0, u32::MAX as i64) as u32
    }

    fn ensure_streamer(&mut self) {
        if self.streamer.is_some() || !self.base().is_inside_tree() {
            return;
        }
        let Some(generator) = self.generator() else { return };
        let config = StreamConfig2D {
            view_distance: self.view_distance.clamp(0, MAX_VIEW_DISTANCE_2D as i64) as i32,
            worker_threads: self.worker_threads.clamp(0, max_workers() as i64) as usize,
            memory_budget_mb: self.memory_budget(),
            tile_rules: self.tile_rules.clone(),
            light: self.light_props(),
            navigation: self.navigation_config_2d(),
            ..StreamConfig2D::default()
        };
        match Streamer2D::new(generator, config) {
            Ok(mut s) => {
                if let Some(e) = self.host.take_kept_edits() {
                    s.replace_edits(e);
                }
                s.restore_water_flows(self.host.take_kept_flows());
                crate::host::water_flow::update_2d(
                    &mut s,
                    self.water_flow_enabled,
                    &mut self.host,
                    "StrataChunkWorld2D",
                );
                self.streamer = Some(s);
            }
            Err(e) => {
                self.host.start_failed(e);
                return;
            }
        }
        if self.layer_dirty {
            if let Some(mut layer) = self.ensure_layer() {
                layer.clear();
            }
            self.drawn.clear();
            self.layer_dirty = false;
        }
    }

    /// Live tuning: a changed preset (another resource, or a field of it) rebuilds the world;
    /// the edits stay.
    fn restart_if_preset_changed(&mut self) {
        if self.streamer.is_some() && self.host.preset_changed(self.preset.as_ref()) {
            self.stop_streaming();
            self.edit_log.clear();
        }
        self.ensure_streamer();
    }

    /// Streams `preset` with `edits` (a loaded save) in place of the current world; the flows of
    /// `flows` (the save's pending ones) run again.
    fn restart_with(&mut self, preset: strata_core::WorldPreset, edits: EditMap, flows: Vec<PendingFlow>) {
        self.stop_streaming();
        self.host.forget_generator();
        self.host.keep_edits(edits);
        self.host.keep_flows(flows);
        self.preset = Some(WorldPreset::from_core(preset));
        self.ensure_streamer();
    }

    /// Stops the workers (joined by `Drop`) and forgets queued writes; edits are kept.
    fn stop_streaming(&mut self) {
        if let Some(s) = self.streamer.take() {
            self.host.keep_edits(s.edits().clone());
            self.host.keep_flows(s.pending_water_flows());
            self.layer_dirty = true;
            // The next flow thread numbers its batches anew: no flow joins a step any more.
            self.edit_log.forget_flows();
        }
        self.ops.clear();
        // The next streamer loads every chunk anew, and announces each again.
        let announced = std::mem::take(&mut self.announced);
        self.unannounced_by_restart.extend(announced);
        self.clear_light_sprites();
        self.park_entities();
        self.navigation_2d.clear();
    }

    /// `id` as a block of the library in use, or None.
    fn library_id(&self, id: i64) -> Option<u16> {
        u16::try_from(id).ok().filter(|&b| (b as usize) < self.blocks.len())
    }

    /// The blocks of `block_library` (the default library when it is null), or an error naming
    /// the block, field, value and what is allowed when it is invalid.
    fn library(&self) -> Result<Cow<'static, CoreLibrary>, String> {
        match &self.block_library {
            None => Ok(Cow::Borrowed(default_library())),
            Some(l) => l.bind().core_or_error_text().map(Cow::Owned),
        }
    }

    /// Takes `block_library` into use: valid, its rules go to new workers, the generated TileSet
    /// is drawn again and the world re-tiled (edits kept); invalid, it is reported and the
    /// library in use stays.
    fn apply_library(&mut self) {
        if let Some(old) = self.library_invalid.take() {
            self.host.resolve(&old);
        }
        let library = match self.library() {
            Ok(l) => l.into_owned(),
            Err(e) => {
                let message = format!(
                    "StrataChunkWorld2D.block_library: {e}; the world keeps its previous {} blocks",
                    self.blocks.len()
                );
                self.host.error(message.clone());
                self.library_invalid = Some(message);
                return;
            }
        };
        self.blocks = Arc::new(library);
        self.retile();
    }

    /// The layout `tile_layout` names (the setter keeps it valid).
    fn layout(&self) -> TileLayout {
        TileLayout::from_index(self.tile_layout).unwrap_or_default()
    }

    /// Takes the library in use and the tile layout into the workers' rules, draws a generated
    /// TileSet again and re-tiles the world (edits kept).
    fn retile(&mut self) {
        self.tile_rules = Arc::new(TileRules::from_library(&self.blocks).with_layout(self.layout()));
        let streaming = self.streamer.is_some();
        self.stop_streaming();
        if let Some(mut layer) = self.layer.clone().filter(|l| l.is_instance_valid()) {
            let ours = match layer.get_tile_set() {
                None => true,
                Some(t) => self.generated_tile_set.as_ref().is_some_and(|g| *g == t),
            };
            if ours {
                // Emptied first: a TileSet swapped under loaded cells makes Godot rebuild each one.
                if self.layer_dirty {
                    layer.clear();
                    self.drawn.clear();
                    self.layer_dirty = false;
                }
                self.give_tile_set(&mut layer);
            }
        }
        if streaming {
            self.ensure_streamer();
        }
    }

    /// Tile size in pixels: the layer's TileSet's, else `tile_size`.
    fn tile_pixels(&self) -> Vector2i {
        let from_set = self
            .layer
            .as_ref()
            .filter(|l| l.is_instance_valid())
            .and_then(|l| l.get_tile_set())
            .map(|t| t.get_tile_size());
        let s = from_set.unwrap_or(self.tile_size);
        Vector2i::new(s.x.max(1), s.y.max(1))
    }

    /// The added viewers and the preloaded area in (fractional) tiles within the world's bounds,
    /// as the streamer's `(id, [x, y], view distance)`; freed viewers are dropped.
    fn extra_viewer_tiles(&mut self) -> Vec<(u64, [f64; 2], i32)> {
        let mut freed = Vec::new();
        self.extra_viewers.retain(|v| {
            let alive = v.0.is_instance_valid();
            if !alive {
                freed.push(v.1);
            }
            alive
        });
        self.removed_viewer_ids.extend(freed);
        let px = self.tile_pixels();
        let inside = self.base().is_inside_tree();
        let origin = self.origin;
        let tiles = |p: Vector2| {
            let b = ranges::WORLD_BOUND;
            let w = origin.to_world([f64::from(p.x) / f64::from(px.x), f64::from(p.y) / f64::from(px.y)]);
            w.map(|v| v.clamp(-b, b))
        };
        let mut out = Vec::new();
        for (node, id, distance) in &self.extra_viewers {
            if !inside || !node.is_inside_tree() {
                continue;
            }
            let p = self.base().to_local(node.get_global_position());
            if p.x.is_finite() && p.y.is_finite() {
                out.push((*id, tiles(p), *distance));
            }
        }
        if let Some((center, r, _)) = self.preload {
            out.push((PRELOAD_VIEWER_ID, tiles(center), r));
        }
        out
    }

    /// The viewer's position in (fractional) tiles of the node's space (world − origin).
    fn viewer_local_tiles(&self) -> [f64; 2] {
        let global = self.viewer_node().map(|n| n.get_global_position());
        let local = match global {
            Some(g) if self.base().is_inside_tree() => self.base().to_local(g),
            _ => Vector2::ZERO,
        };
        let px = self.tile_pixels();
        [f64::from(local.x) / f64::from(px.x), f64::from(local.y) / f64::from(px.y)]
    }
}

fn finite_floor(v: f64) -> i32 {
    if v.is_finite() { v.floor().clamp(i32::MIN as f64 / 2.0, i32::MAX as f64 / 2.0) as i32 } else { 0 }
}
