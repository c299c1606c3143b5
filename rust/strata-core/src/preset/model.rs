//! `WorldPreset`: every setting that shapes a world, and the field table that describes them.
//!
//! The preset is plain data (serde). [`FIELDS`] lists each scalar setting once, with its group,
//! range and accessors; validation, the Godot inspector (sliders, groups) and error messages all
//! read that one table, so a field's allowed range is stated in exactly one place.
//! Seed + preset fully determine the world.
//!
//! May use: `base` and the other `preset` modules.

use crate::base::block_library::{BlockLibrary, default_library};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Complete description of a world, minus player edits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WorldPreset {
    /// Human-readable name shown in menus.
    pub name: String,
    pub seed: u64,
    pub height: HeightSettings,
    pub biomes: BiomeSettings,
    pub caves: CaveSettings,
    pub ores: OreSettings,
    pub water: WaterSettings,
    pub scatter: ScatterSettings,
    /// Side-view (2D) worlds of `ChunkWorld2D`; ignored by 3D worlds.
    pub side_view: SideViewSettings,
    /// Structures (houses, ruins, dungeons) and the rules that place them. Written only when
    /// there are rules, so presets without structures keep their files and fingerprints.
    #[serde(skip_serializing_if = "StructureSettings::is_empty")]
    pub structures: StructureSettings,
    /// Objects of the game's own library (animals, chests, crystals) and where they start.
    /// Written only when there are rules, so presets without them keep their files and
    /// fingerprints.
    #[serde(skip_serializing_if = "SpawnSettings::is_empty")]
    pub spawns: SpawnSettings,
}

/// Where a [`SpawnRule`] looks for a place to put its object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SpawnHabitat {
    /// On the ground under the open sky: the top of the column's terrain, dry.
    Surface,
    /// On the floor of a cave: a solid voxel with two open voxels above it, between `depth_min`
    /// and `depth_max` voxels below the column's surface.
    Cave,
    /// In water: a water voxel with water or air above it.
    Water,
}

/// The spawn rules of a world ([`crate::gen3d::spawns`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SpawnSettings {
    pub rules: Vec<SpawnRule>,
}

impl SpawnSettings {
    /// No rules: nothing spawns.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }
}

/// Most spawn rules in one preset.
pub const MAX_SPAWN_RULES: usize = 64;

/// One kind of object and where it starts. Per chunk, the number of clusters is `density`
/// rounded by a hashed draw (2.3 gives 2 or 3); each cluster has a hashed centre in the chunk
/// and up to `cluster_size` members within `cluster_spread` voxels of it, each at least
/// `min_spacing` from every member already placed in the chunk; a member stands only where its
/// column's biome, its habitat, depth and light allow. A pure function of seed, rule and chunk.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SpawnRule {
    /// What to instance: a Godot scene path (`res://…`, `.tscn` or `.scn`).
    pub scene: String,
    /// Names of the biomes it may start in; empty: every biome.
    pub biomes: Vec<String>,
    pub habitat: SpawnHabitat,
    /// Depth below the column's surface, voxels (`depth_min <= depth_max`, 0..=4096). Surface
    /// objects ignore it; cave and water objects start within it.
    pub depth_min: i32,
    pub depth_max: i32,
    /// Clusters per chunk on average, 0..=16.
    pub density: f32,
    /// Most members of one cluster, 1..=32.
    pub cluster_size: u32,
    /// Greatest distance of a member from its cluster's centre, voxels (0..=32).
    pub cluster_spread: f32,
    /// Least distance between two members placed in one chunk, voxels (0..=32).
    pub min_spacing: f32,
    /// Combined light (the greater of sky and block light) of the voxel it starts in, 0..=15;
    /// `light_min <= light_max`. 0..=15 accepts any light and costs nothing.
    pub light_min: u8,
    pub light_max: u8,
}

impl Default for SpawnRule {
    fn default() -> Self {
        Self {
            scene: String::new(),
            biomes: Vec::new(),
            habitat: SpawnHabitat::Surface,
            depth_min: 8,
            depth_max: 256,
            density: 0.5,
            cluster_size: 3,
            cluster_spread: 6.0,
            min_spacing: 2.0,
            light_min: 0,
            light_max: 15,
        }
    }
}

impl SpawnRule {
    /// Whether the rule asks for a light range narrower than every light.
    pub fn filters_light(&self) -> bool {
        self.light_min > 0 || self.light_max < 15
    }

    /// Checks the numbers and the scene path of rule `i` (biome names are checked by the preset).
    pub fn validate(&self, i: usize) -> Result<(), FieldError> {
        let err = |what: &str, problem: String, allowed: &str| FieldError {
            field: format!("spawns.rules[{i}].{what}"),
            problem,
            allowed: allowed.into(),
        };
        let scene = self.scene.trim();
        if scene.is_empty() || !(scene.ends_with(".tscn") || scene.ends_with(".scn")) {
            return Err(err("scene", format!("`{}`", self.scene), "a scene path such as res://mobs/deer.tscn"));
        }
        if !(0..=4096).contains(&self.depth_min) || !(0..=4096).contains(&self.depth_max) {
            return Err(err(
                "depth_min",
                format!("{}..{} voxels", self.depth_min, self.depth_max),
                "0..=4096 voxels each",
            ));
        }
        if self.depth_min > self.depth_max {
            return Err(err(
                "depth_min",
                format!("{} above depth_max {}", self.depth_min, self.depth_max),
                "depth_min <= depth_max",
            ));
        }
        if !(0.0..=16.0).contains(&self.density) {
            return Err(err("density", format!("{}", self.density), "0.0..=16.0 clusters per chunk"));
        }
        if !(1..=32).contains(&self.cluster_size) {
            return Err(err("cluster_size", format!("{}", self.cluster_size), "1..=32"));
        }
        if !(0.0..=32.0).contains(&self.cluster_spread) {
            return Err(err("cluster_spread", format!("{} voxels", self.cluster_spread), "0.0..=32.0 voxels"));
        }
        if !(0.0..=32.0).contains(&self.min_spacing) {
            return Err(err("min_spacing", format!("{} voxels", self.min_spacing), "0.0..=32.0 voxels"));
        }
        if self.light_min > 15 || self.light_max > 15 || self.light_min > self.light_max {
            return Err(err(
                "light_min",
                format!("{}..{}", self.light_min, self.light_max),
                "0 <= light_min <= light_max <= 15",
            ));
        }
        Ok(())
    }
}

/// Where a [`StructureRule`] puts its structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum StructurePlacement {
    /// On the ground: its bottom `sink` voxels below the surface at its centre, never under the
    /// sea.
    Surface,
    /// Buried: its top between `depth_min` and `depth_max` voxels below the surface at its centre.
    Underground,
}

/// The structures of a world: rules that place structures of the world's structure library
/// ([`crate::gen3d::structures`]). Later rules win where two structures overlap.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StructureSettings {
    pub rules: Vec<StructureRule>,
}

impl StructureSettings {
    /// No rules: no structures.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }
}

/// One kind of structure and where it stands. The world is cut into square cells of `spacing`
/// voxels; a cell holds one such structure with probability `chance`, at a hashed place and
/// quarter turn inside the cell, in one of `biomes` (a pure function of seed, rule and cell).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StructureRule {
    /// The structure's name in the world's structure library.
    pub structure: String,
    /// Names of the biomes it may stand in (at its centre); empty: every biome.
    pub biomes: Vec<String>,
    pub placement: StructurePlacement,
    /// Edge of a placement cell, in voxels: at most one structure of this rule per cell, so
    /// this is also their least distance apart. 16..=4096, and at least the structure's width.
    pub spacing: i32,
    /// Probability that a cell holds one, 0..=1.
    pub chance: f32,
    /// Surface: how deep its bottom sits below the ground at its centre, voxels (0..=32).
    pub sink: i32,
    /// Underground: the depth of its top below the surface at its centre, voxels (0..=1024,
    /// `depth_min <= depth_max`).
    pub depth_min: i32,
    pub depth_max: i32,
    /// An object of the game's own library (a scene path, `.tscn` or `.scn`) that starts on the
    /// floor at the centre of each structure of the rule (a chest in a crypt); empty: none. Its
    /// spawn rule index is [`FIRST_STRUCTURE_SPAWN_RULE`] + the rule's index.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub entity: String,
}

/// The spawn rule index of the objects of structure rule 0 ([`StructureRule::entity`]): the
/// spawn rules' indices end below it.
pub const FIRST_STRUCTURE_SPAWN_RULE: u16 = MAX_SPAWN_RULES as u16;

impl Default for StructureRule {
    fn default() -> Self {
        Self {
            structure: String::new(),
            biomes: Vec::new(),
            placement: StructurePlacement::Surface,
            spacing: 128,
            chance: 0.5,
            sink: 1,
            depth_min: 8,
            depth_max: 32,
            entity: String::new(),
        }
    }
}

impl StructureRule {
    /// Checks the numbers of rule `i` (names are checked where the libraries are known).
    pub fn validate(&self, i: usize) -> Result<(), FieldError> {
        let err = |what: &str, problem: String, allowed: &str| FieldError {
            field: format!("structures.rules[{i}].{what}"),
            problem,
            allowed: allowed.into(),
        };
        if self.structure.trim().is_empty() {
            return Err(err("structure", "empty".into(), "the name of a structure of the world's structure library"));
        }
        if !(16..=4096).contains(&self.spacing) {
            return Err(err("spacing", format!("{} voxels", self.spacing), "16..=4096 voxels"));
        }
        if !(0.0..=1.0).contains(&self.chance) {
            return Err(err("chance", format!("{}", self.chance), "0.0..=1.0"));
        }
        if !(0..=32).contains(&self.sink) {
            return Err(err("sink", format!("{} voxels", self.sink), "0..=32 voxels"));
        }
        if !(0..=1024).contains(&self.depth_min) || !(0..=1024).contains(&self.depth_max) {
            return Err(err(
                "depth_min",
                format!("{}..{} voxels", self.depth_min, self.depth_max),
                "0..=1024 voxels each",
            ));
        }
        if self.depth_min > self.depth_max {
            return Err(err(
                "depth_min",
                format!("{} above depth_max {}", self.depth_min, self.depth_max),
                "depth_min <= depth_max",
            ));
        }
        let entity = self.entity.trim();
        if !(entity.is_empty() || entity.ends_with(".tscn") || entity.ends_with(".scn")) {
            return Err(err(
                "entity",
                format!("`{}`", self.entity),
                "empty, or a scene path such as res://props/chest.tscn",
            ));
        }
        Ok(())
    }
}

/// Interpolation between lattice values of value noise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Interpolation {
    Linear,
    Cosine,
}

/// How a heightmap image is extended beyond its own extent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum HeightmapWrap {
    /// Repeat the image (mirrored, so tiles meet without steps).
    Tile,
    /// Show the image once; generated terrain surrounds it, blended at the border.
    Border,
}

/// The ground surface: a weighted blend of height sources.
///
/// `height(x, z) = base_height + amplitude · Σ wᵢ·sᵢ(x, z) / Σ wᵢ` with each source `sᵢ` in
/// about `[-1, 1]`. A preset "picks one" source by giving only that one a weight.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HeightSettings {
    /// World y of the mean surface.
    pub base_height: f32,
    /// Largest height deviation from `base_height`, in voxels.
    pub amplitude: f32,
    /// Horizontal size of the largest features (wavelength of the first octave), in voxels.
    pub scale: f32,
    pub octaves: u32,
    /// Amplitude ratio between successive octaves.
    pub persistence: f32,
    /// Frequency ratio between successive octaves.
    pub lacunarity: f32,
    pub perlin_weight: f32,
    /// OpenSimplex (the `noise` crate's, a different lattice from simplex noise). Files written
    /// before simplex noise was exact call it `simplex_weight`, which still reads here.
    #[serde(alias = "simplex_weight")]
    pub open_simplex_weight: f32,
    /// Ridged multifractal (sharp mountain crests).
    pub ridged_weight: f32,
    /// Value noise from a seeded lattice with octave superposition.
    pub value_weight: f32,
    pub value_interpolation: Interpolation,
    /// Seamless diamond-square over world-aligned cells.
    pub diamond_square_weight: f32,
    /// Diamond-square cell edge is `2^diamond_square_cell_log2` voxels.
    pub diamond_square_cell_log2: u32,
    /// Roughness h in (0, 1): displacement shrinks by `2^-h` per subdivision.
    pub diamond_square_roughness: f32,
    /// Depth in voxels of ravines/rivers carved along midpoint-displacement paths (0 = none).
    pub ravine_depth: f32,
    /// Half-width of carved ravines, in voxels.
    pub ravine_width: f32,
    /// Mean spacing between ravines, in voxels.
    pub ravine_spacing: f32,
    /// Midpoint-displacement roughness of ravine paths (displacement ratio per level).
    pub ravine_roughness: f32,
    /// Weight of a real heightmap (16-bit PNG, SRTM `.hgt`, ESRI ASCII `.asc` or PCA `.spca`), 0 = unused.
    pub heightmap_weight: f32,
    /// Path to the heightmap file: absolute, or relative to the folder the host names (the
    /// preset file's folder for the core's loaders; in Godot `res://`, and `res://…` and
    /// `user://…` paths are read through Godot's file access).
    pub heightmap_path: String,
    /// World voxels per heightmap pixel.
    pub heightmap_cell_size: f32,
    pub heightmap_wrap: HeightmapWrap,
    /// Simplex noise as defined (`noise::simplex`), 0 = unused.
    pub exact_simplex_weight: f32,
    /// Squared radius `r²` of the simplex kernel: exactly 0.5 or 0.6.
    pub simplex_radius_squared: f32,
}

/// One row of the biome table: everything the generator knows about a biome is here, by name
/// (blocks, scatter kinds), so a designer adds or changes biomes without code.
///
/// Fields added after the first preset version (climate ranges, cliff and shore blocks, the
/// scatter set) take defaults that keep the old behaviour when absent, and are written only when
/// they differ from those defaults, so old files load and keep their fingerprints.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Biome {
    pub name: String,
    /// Block name of the top voxel.
    pub surface_block: String,
    /// Block name of the few voxels below the top.
    pub subsurface_block: String,
    /// Block name of the top and subsurface on slopes steeper than `rock_slope`.
    #[serde(skip_serializing_if = "is_stone")]
    pub cliff_block: String,
    /// Block name of the top and subsurface on shores (surface at most one above sea level).
    #[serde(skip_serializing_if = "is_sand")]
    pub shore_block: String,
    /// Added to the terrain height, in voxels.
    pub height_offset: f32,
    /// Multiplies the terrain amplitude.
    pub height_scale: f32,
    /// Trees per scatter candidate, 0..1 (scaled by the preset's scatter density); used when
    /// `scatter` is absent (the classic set, [`Biome::scatter_rules`]).
    pub tree_density: f32,
    /// Flowers per scatter candidate, 0..1; used when `scatter` is absent.
    pub flower_density: f32,
    /// Display colour (biome map, HUD).
    pub color: [f32; 3],
    /// Climate this biome prefers (the centre of its range), each in [0, 1].
    pub temperature: f32,
    pub moisture: f32,
    /// Climate range where the biome may appear: among the biomes whose ranges hold a feature
    /// point's climate, the one with the nearest (`temperature`, `moisture`) wins; when no range
    /// holds it, the nearest of all. Defaults: the whole range `0..=1`.
    #[serde(skip_serializing_if = "is_zero")]
    pub temperature_min: f32,
    #[serde(skip_serializing_if = "is_one")]
    pub temperature_max: f32,
    #[serde(skip_serializing_if = "is_zero")]
    pub moisture_min: f32,
    #[serde(skip_serializing_if = "is_one")]
    pub moisture_max: f32,
    /// The biome's scatter set, in the order a candidate tries them. Absent: the classic set made
    /// from `tree_density` and `flower_density` ([`Biome::scatter_rules`]). Written as a plain
    /// list (`scatter: [(kind: "tree", density: 0.3, placement: Groves)]`).
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "scatter_out", deserialize_with = "scatter_in")]
    pub scatter: Option<Vec<ScatterRule>>,
}

fn is_zero(v: &f32) -> bool {
    *v == 0.0
}

fn is_one(v: &f32) -> bool {
    *v == 1.0
}

fn is_stone(v: &str) -> bool {
    v == "stone"
}

fn is_sand(v: &str) -> bool {
    v == "sand"
}

fn scatter_out<S: serde::Serializer>(v: &Option<Vec<ScatterRule>>, s: S) -> Result<S::Ok, S::Error> {
    v.as_deref().unwrap_or_default().serialize(s)
}

fn scatter_in<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Vec<ScatterRule>>, D::Error> {
    Vec::<ScatterRule>::deserialize(d).map(Some)
}

impl Default for Biome {
    fn default() -> Self {
        Self {
            name: "plains".into(),
            surface_block: "grass".into(),
            subsurface_block: "dirt".into(),
            cliff_block: "stone".into(),
            shore_block: "sand".into(),
            height_offset: 0.0,
            height_scale: 1.0,
            tree_density: 0.2,
            flower_density: 0.3,
            color: [0.4, 0.7, 0.3],
            temperature: 0.5,
            moisture: 0.5,
            temperature_min: 0.0,
            temperature_max: 1.0,
            moisture_min: 0.0,
            moisture_max: 1.0,
            scatter: None,
        }
    }
}

impl Biome {
    /// The scatter set the generator uses: `scatter` when given, else the classic set of
    /// `tree_density` and `flower_density` (trees in groves, bushes anywhere, flowers in
    /// clearings, rocks anywhere and more often on bare rock).
    pub fn scatter_rules(&self) -> Vec<ScatterRule> {
        if let Some(rules) = &self.scatter {
            return rules.clone();
        }
        let (t, f) = (self.tree_density, self.flower_density);
        let rule = |kind: ScatterKind, density: f32, placement: ScatterPlacement, bare_rock_density: f32| ScatterRule {
            kind: kind.name().into(),
            density,
            placement,
            bare_rock_density,
        };
        vec![
            rule(ScatterKind::Tree, t, ScatterPlacement::Groves, 0.0),
            rule(ScatterKind::Bush, 0.25 * (t + 0.5 * f), ScatterPlacement::Anywhere, 0.0),
            rule(ScatterKind::Flower, f, ScatterPlacement::Clearings, 0.0),
            rule(ScatterKind::Rock, 0.02, ScatterPlacement::Anywhere, 0.08),
        ]
    }
}

/// What stands at a scatter point: the kinds a scatter rule names, and what a host draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScatterKind {
    Tree,
    Bush,
    Flower,
    Rock,
}

impl ScatterKind {
    /// Every kind, in the order of their names in [`ScatterKind::NAMES`].
    pub const ALL: [ScatterKind; 4] = [ScatterKind::Tree, ScatterKind::Bush, ScatterKind::Flower, ScatterKind::Rock];
    /// The names a scatter rule may use.
    pub const NAMES: [&'static str; 4] = ["tree", "bush", "flower", "rock"];

    /// The kind named `name` (as in [`ScatterKind::NAMES`]).
    pub fn from_name(name: &str) -> Option<ScatterKind> {
        Self::NAMES.iter().position(|n| *n == name).map(|i| Self::ALL[i])
    }

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

/// Where in the grove noise a scatter rule's kind stands (the noise `g` is in [0, 1]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ScatterPlacement {
    /// Evenly: probability `density`.
    Anywhere,
    /// Gathered in groves: probability `density · 2g`.
    Groves,
    /// In clearings between groves: probability `density · 2(1 − g)`.
    Clearings,
}

/// One entry of a biome's scatter set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ScatterRule {
    /// A kind of [`ScatterKind::NAMES`]: `tree`, `bush`, `flower` or `rock`.
    pub kind: String,
    /// Probability that a scatter candidate on ordinary ground becomes this kind, 0..1, before
    /// the placement factor and the preset's scatter density.
    pub density: f32,
    pub placement: ScatterPlacement,
    /// The same probability on bare rock: columns whose top is the biome's `cliff_block`
    /// (steep slopes, or a biome whose surface is its cliff block). 0 for plants.
    pub bare_rock_density: f32,
}

impl Default for ScatterRule {
    fn default() -> Self {
        Self { kind: "tree".into(), density: 0.0, placement: ScatterPlacement::Anywhere, bare_rock_density: 0.0 }
    }
}

/// Most entries in one biome's scatter set.
pub const MAX_SCATTER_RULES: usize = 16;

/// Biomes from Worley cells over temperature and moisture noise.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BiomeSettings {
    pub enabled: bool,
    /// Edge of a Worley grid cell (one feature point per cell), in voxels.
    pub cell_size: f32,
    /// Width of the height blend across biome borders, in voxels.
    pub blend_distance: f32,
    /// Wavelength of the temperature and moisture noise, in voxels.
    pub climate_scale: f32,
    /// Slopes steeper than this (rise over run) show rock.
    pub rock_slope: f32,
    pub table: Vec<Biome>,
}

/// Cave generators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CaveMode {
    None,
    /// The 3D 4-5 rule: a cell is rock if at least `threshold` of its 3×3×3 neighbourhood (27
    /// cells, itself included) is rock; then `final_passes` with `final_threshold`.
    CellularAutomata,
    /// Exactly the Life-like rule `life_rule` (rock alive; neighbours: 26 in 3D, 8 in 2D) for
    /// `life_ticks` ticks from the random fill, then, with `life_flood_fill`, every open region
    /// but the main one of its world-aligned region filled ([`crate::automata::life`]).
    GameOfLife,
    /// Side view only: the side-view classic (`gen2d::classic`): a filled map with holes poked at
    /// 56 %, the 4-5 rule that also opens cells with ≤ 2 walls for `cave_passes`, then
    /// `cave_final_passes` wall-only passes at `cave_final_threshold`. Refused for 3D caves.
    Classic,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CaveSettings {
    pub mode: CaveMode,
    /// Probability that a cell starts open (air).
    pub fill_probability: f32,
    /// Smoothing passes with `threshold`.
    pub passes: u32,
    /// Rock cells among the 27 of a cell's 3×3×3 neighbourhood (itself included) that make it
    /// rock. Default 14: the majority rule, the 3D analogue of the 2D 4-5 rule (5 of 9).
    pub threshold: u32,
    /// Extra refining passes with `final_threshold`.
    pub final_passes: u32,
    /// Threshold of the refining passes. Default 16 (of 27): stricter than `threshold`, so rock
    /// needs a clearer majority; it opens and rounds the caverns (about 8% of the deep ground is
    /// cavern air with the defaults, against 5% with 13).
    pub final_threshold: u32,
    /// Birth/survival rule for `GameOfLife` mode, as "B…/S…" over the 26 neighbours (rock is
    /// alive); lists may use commas and ranges, e.g. "B3/S23" (Conway's). Default "B3/S23", the
    /// design's rule (files of preset format 1 that leave it out read "B14-19/S13-26", their
    /// default: `migrate`); from a random fill B3/S23 thins to sparse rock in 3D, so the
    /// `life_caverns` preset uses B14-19/S13-26.
    pub life_rule: String,
    /// Ticks of the Life rule in `GameOfLife` mode (0..=64; also the automaton's halo in cells).
    pub life_ticks: u32,
    /// `GameOfLife` mode: fill every open region but the main one of its world-aligned region.
    pub life_flood_fill: bool,
    /// Edge of one automaton cell in voxels (1 = per voxel; 2 or 4 for larger caverns).
    pub cell_size: u32,
    /// Caves start this many voxels below the surface.
    pub min_depth: u32,
    /// Air pockets smaller than this (voxels) are filled.
    pub min_pocket_volume: u32,
    /// Strength of noise ("spaghetti") tunnels connecting caverns, 0 = none.
    pub tunnel_strength: f32,
    /// Wavelength of the tunnel noise, in voxels.
    pub tunnel_scale: f32,
    /// Tunnel radius as a fraction of the noise band, 0..1.
    pub tunnel_width: f32,
    /// When false, caves never open to the surface.
    pub allow_surface_breach: bool,
}

/// One kind of ore.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OreKind {
    pub block: String,
    /// Ore appears only this many voxels below the surface or deeper.
    pub min_depth: u32,
    /// Clusters per chunk volume (32³), as a range.
    pub clusters_per_chunk_min: u32,
    pub clusters_per_chunk_max: u32,
    /// Voxels in one cluster, about.
    pub cluster_size: u32,
}

impl Default for OreKind {
    fn default() -> Self {
        Self {
            block: "coal_ore".into(),
            min_depth: 8,
            clusters_per_chunk_min: 2,
            clusters_per_chunk_max: 6,
            cluster_size: 8,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OreSettings {
    pub enabled: bool,
    pub kinds: Vec<OreKind>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WaterSettings {
    pub enabled: bool,
    /// Water fills supported hollows up to this world y (exclusive of the voxel at sea_level).
    pub sea_level: i32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ScatterSettings {
    pub enabled: bool,
    /// Overall multiplier on biome densities.
    pub density: f32,
    /// Wavelength of the density noise that makes groves and clearings, in voxels.
    pub density_scale: f32,
    pub trees: bool,
    pub bushes: bool,
    pub flowers: bool,
    pub rocks: bool,
}

/// The 1D height source of a side-view surface line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SurfaceSource {
    /// Octave value noise, linear interpolation between lattice values.
    ValueNoiseLinear,
    /// Octave value noise, cosine interpolation between lattice values.
    ValueNoiseCosine,
    /// Perlin fBm (the `noise` crate) sampled along the line y = 0.
    PerlinFbm,
    /// Seamless midpoint displacement (initial range and roughness).
    MidpointDisplacement,
    /// Hashed integer noise smoothed with its two neighbours (½, ¼, ¼), cosine-interpolated, in octaves.
    SmoothedHashNoise,
    /// The side-view classic's integer hash noise (`gen2d::classic`): four octave-specific prime
    /// triples, smoothed ½ · ¼ · ¼, linear interpolation, amplitudes `persistence^i`, the height
    /// `amplitude · sum` rounded up.
    ClassicHash,
}

/// Side-view (2D) worlds: a surface line from a 1D height source, layers, cellular caves below a
/// depth, ore clusters and water pools in surface hollows. Tile rows grow downwards (Godot 2D).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SideViewSettings {
    pub surface_source: SurfaceSource,
    /// Height of the mean surface above tile row 0, in tiles.
    pub base_height: f32,
    /// Largest deviation of the surface from `base_height`, in tiles.
    pub amplitude: f32,
    /// Wavelength of the largest surface features, in tiles.
    pub scale: f32,
    pub octaves: u32,
    /// Amplitude ratio between successive octaves.
    pub persistence: f32,
    /// Midpoint displacement: displacement range ratio per subdivision level.
    pub roughness: f32,
    /// Midpoint displacement: first displacement range, relative to the anchors' range.
    pub initial_range: f32,
    /// Dirt tiles between the grass and the stone.
    pub dirt_depth: u32,
    pub cave_mode: CaveMode,
    /// Caves open only this many tiles below the surface or deeper, so the surface stays whole.
    pub cave_depth: u32,
    /// Probability that an automaton cell starts as rock.
    pub cave_rock_probability: f32,
    /// Passes of the 4-5 rule (rock iff at least `cave_threshold` of the 3×3 block is rock).
    pub cave_passes: u32,
    pub cave_threshold: u32,
    /// Final passes with the (usually stricter) `cave_final_threshold`.
    pub cave_final_passes: u32,
    pub cave_final_threshold: u32,
    /// Birth/survival rule of `GameOfLife` caves (rock is alive), e.g. "B3/S23" (Conway's) or
    /// "B3678/S34678". Default "B3/S23", the design's rule (files of preset format 1 that leave it
    /// out read "B678/S345678", their default: `migrate`).
    pub cave_life_rule: String,
    /// Ticks of the Life rule in `GameOfLife` mode (0..=64; also the automaton's halo in tiles).
    pub cave_life_ticks: u32,
    /// `GameOfLife` mode: fill every open region but the main one of its world-aligned region.
    pub cave_life_flood_fill: bool,
    /// Cave pockets of fewer tiles than this are filled with rock (0 = keep all).
    pub min_pocket_tiles: u32,
    /// Ores appear only this many tiles below the surface or deeper (each kind's own depth also applies).
    pub ore_depth: u32,
    /// Fill surface hollows with water.
    pub water_enabled: bool,
    /// Widest hollow that holds a pool, in tiles (water needs a rim this close on both sides).
    pub max_pool_width: u32,
    /// Edge of a square chunk, in tiles.
    pub chunk_tiles: u32,
    /// `ClassicHash` only: octave `i` at frequency `2 XOR i` (what the original's `2 ^ i` computes
    /// in C-like languages) instead of `2^i`.
    pub classic_xor_frequency: bool,
}

impl Default for SideViewSettings {
    fn default() -> Self {
        Self {
            surface_source: SurfaceSource::ValueNoiseCosine,
            base_height: 0.0,
            amplitude: 24.0,
            scale: 256.0,
            octaves: 5,
            persistence: 0.5,
            roughness: 0.55,
            initial_range: 0.5,
            dirt_depth: 4,
            cave_mode: CaveMode::CellularAutomata,
            cave_depth: 10,
            cave_rock_probability: 0.56,
            cave_passes: 4,
            cave_threshold: 5,
            cave_final_passes: 1,
            cave_final_threshold: 5,
            cave_life_rule: "B3/S23".into(),
            cave_life_ticks: 8,
            cave_life_flood_fill: true,
            min_pocket_tiles: 12,
            ore_depth: 6,
            water_enabled: true,
            max_pool_width: 32,
            chunk_tiles: 64,
            classic_xor_frequency: false,
        }
    }
}

impl Default for HeightSettings {
    /// The terrain of the shipped `default_hills`: eight octaves at persistence 0.58 give the
    /// power-spectrum slope and slope angles of real land (β ≈ 3.8, mean slope ≈ 15°; issue 22).
    /// Preset format 1 defaulted to 40, 320, 5 and 0.5 (`migrate`), smoother (β ≈ 5.6).
    fn default() -> Self {
        Self {
            base_height: 8.0,
            amplitude: 38.0,
            scale: 460.0,
            octaves: 8,
            persistence: 0.58,
            lacunarity: 2.0,
            perlin_weight: 1.0,
            open_simplex_weight: 0.0,
            ridged_weight: 0.0,
            value_weight: 0.0,
            value_interpolation: Interpolation::Cosine,
            diamond_square_weight: 0.0,
            diamond_square_cell_log2: 7,
            diamond_square_roughness: 0.6,
            ravine_depth: 0.0,
            ravine_width: 4.0,
            ravine_spacing: 512.0,
            ravine_roughness: 0.55,
            heightmap_weight: 0.0,
            heightmap_path: String::new(),
            heightmap_cell_size: 4.0,
            heightmap_wrap: HeightmapWrap::Tile,
            exact_simplex_weight: 0.0,
            simplex_radius_squared: 0.5,
        }
    }
}

impl Default for BiomeSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            cell_size: 384.0,
            blend_distance: 32.0,
            climate_scale: 1024.0,
            rock_slope: 1.6,
            table: default_biomes(),
        }
    }
}

/// The shipped biome table.
pub fn default_biomes() -> Vec<Biome> {
    let b = |name: &str,
             surface: &str,
             sub: &str,
             off: f32,
             scale: f32,
             trees: f32,
             flowers: f32,
             color: [f32; 3],
             t: f32,
             m: f32| Biome {
        name: name.into(),
        surface_block: surface.into(),
        subsurface_block: sub.into(),
        height_offset: off,
        height_scale: scale,
        tree_density: trees,
        flower_density: flowers,
        color,
        temperature: t,
        moisture: m,
        ..Biome::default()
    };
    vec![
        b("plains", "grass", "dirt", 0.0, 0.6, 0.05, 0.5, [0.45, 0.75, 0.30], 0.55, 0.45),
        b("forest", "grass", "dirt", 4.0, 1.0, 0.6, 0.2, [0.15, 0.50, 0.15], 0.5, 0.75),
        b("desert", "sand", "sandstone", -2.0, 0.5, 0.0, 0.02, [0.90, 0.80, 0.50], 0.9, 0.1),
        b("mountains", "stone", "stone", 24.0, 1.8, 0.05, 0.05, [0.55, 0.55, 0.55], 0.3, 0.4),
        b("tundra", "snow", "dirt", 6.0, 1.1, 0.1, 0.0, [0.90, 0.92, 0.96], 0.05, 0.5),
        b("taiga", "podzol", "dirt", 3.0, 0.9, 0.45, 0.05, [0.25, 0.45, 0.35], 0.2, 0.7),
        b("badlands", "red_sand", "sandstone", 6.0, 1.2, 0.0, 0.0, [0.80, 0.45, 0.22], 0.85, 0.3),
    ]
}

impl Default for CaveSettings {
    fn default() -> Self {
        Self {
            mode: CaveMode::CellularAutomata,
            fill_probability: 0.45,
            passes: 4,
            threshold: 14,
            final_passes: 1,
            final_threshold: 16,
            life_rule: "B3/S23".into(),
            life_ticks: 8,
            life_flood_fill: true,
            cell_size: 2,
            min_depth: 6,
            min_pocket_volume: 16,
            tunnel_strength: 0.5,
            tunnel_scale: 96.0,
            tunnel_width: 0.08,
            allow_surface_breach: false,
        }
    }
}

impl CaveSettings {
    /// Whether these settings make noise tunnels: some strength and some width.
    pub fn tunnels_active(&self) -> bool {
        self.tunnel_strength > 0.0 && self.tunnel_width > 0.0
    }

    /// Whether these settings carve anything: caverns (a mode other than `None`) or tunnels.
    pub fn carves(&self) -> bool {
        self.mode != CaveMode::None || self.tunnels_active()
    }
}

impl Default for OreSettings {
    fn default() -> Self {
        let ore = |block: &str, depth: u32, lo: u32, hi: u32, size: u32| OreKind {
            block: block.into(),
            min_depth: depth,
            clusters_per_chunk_min: lo,
            clusters_per_chunk_max: hi,
            cluster_size: size,
        };
        Self {
            enabled: true,
            kinds: vec![
                ore("coal_ore", 6, 3, 8, 10),
                ore("iron_ore", 16, 2, 5, 7),
                ore("gold_ore", 40, 0, 2, 5),
                ore("diamond_ore", 64, 0, 1, 4),
            ],
        }
    }
}

impl Default for WaterSettings {
    fn default() -> Self {
        Self { enabled: true, sea_level: 0 }
    }
}

impl Default for ScatterSettings {
    fn default() -> Self {
        Self { enabled: true, density: 1.0, density_scale: 96.0, trees: true, bushes: true, flowers: true, rocks: true }
    }
}

impl Default for WorldPreset {
    fn default() -> Self {
        Self {
            name: "Default hills".into(),
            seed: 1337,
            height: HeightSettings::default(),
            biomes: BiomeSettings::default(),
            caves: CaveSettings::default(),
            ores: OreSettings::default(),
            water: WaterSettings::default(),
            scatter: ScatterSettings::default(),
            side_view: SideViewSettings::default(),
            structures: StructureSettings::default(),
            spawns: SpawnSettings::default(),
        }
    }
}

// ------------------------------------------------------------------------------------------------
// Field table

/// What values a field takes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FieldKind {
    Int {
        min: i64,
        max: i64,
    },
    Float {
        min: f64,
        max: f64,
        step: f64,
    },
    Bool,
    /// One of `options`, stored as its index.
    Enum {
        options: &'static [&'static str],
    },
    Text,
}

/// A field's value, in the widest type of its kind.
#[derive(Clone, Debug, PartialEq)]
pub enum FieldValue {
    Int(i64),
    Float(f64),
    Bool(bool),
    Text(String),
}

impl FieldValue {
    /// What kind of value this is, in a designer's words ("a number", "text").
    pub fn kind_word(&self) -> &'static str {
        match self {
            FieldValue::Int(_) => "an integer",
            FieldValue::Float(_) => "a number",
            FieldValue::Bool(_) => "a true/false value",
            FieldValue::Text(_) => "text",
        }
    }
}

/// The value as a designer writes it: `2`, `2.5`, `true`, `"text"` (law: Clear errors).
impl std::fmt::Display for FieldValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FieldValue::Int(i) => write!(f, "{i}"),
            FieldValue::Float(x) => f.write_str(&number_text(*x)),
            FieldValue::Bool(b) => write!(f, "{b}"),
            FieldValue::Text(t) => write!(f, "\"{}\"", t.escape_default()),
        }
    }
}

/// A number as a designer reads it: the shortest text of the `f32` it came from (`0.3`, not
/// `0.30000001192092896`), `NaN`, `inf` or `-inf`.
pub fn number_text(x: f64) -> String {
    if x.is_nan() {
        "NaN".into()
    } else if (x as f32) as f64 == x {
        (x as f32).to_string()
    } else {
        x.to_string()
    }
}

/// The problem with number `v` for a field that allows `lo..=hi`, or `None` when it fits.
fn number_problem(v: f64, lo: f64, hi: f64) -> Option<String> {
    if !v.is_finite() {
        Some(format!("{} is not a finite number", number_text(v)))
    } else if !(lo..=hi).contains(&v) {
        Some(format!("{} is out of range", number_text(v)))
    } else {
        None
    }
}

/// One scalar setting of a [`WorldPreset`].
pub struct FieldSpec {
    /// Flat name, `group_field` (e.g. `height_octaves`): the Godot property name.
    pub name: &'static str,
    /// Inspector group (`Height`, `Biomes`, `Caves`, `Ores`, `Water`, `Scatter`, `SideView`, or `World`).
    pub group: &'static str,
    /// What the field does for a designer, with its unit (voxels, tiles, count, ratio, …): the
    /// inspector tooltip and the class reference (F1) show it with [`FieldSpec::help`].
    pub doc: &'static str,
    pub kind: FieldKind,
    pub get: fn(&WorldPreset) -> FieldValue,
    /// Stores a value already checked by [`FieldSpec::check`].
    pub set: fn(&mut WorldPreset, FieldValue),
}

impl std::fmt::Debug for FieldSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FieldSpec").field("name", &self.name).field("kind", &self.kind).finish()
    }
}

/// A field value outside what the field allows.
#[derive(Clone, Debug, Error, PartialEq)]
#[error("field `{field}`: {problem}; allowed: {allowed}")]
pub struct FieldError {
    pub field: String,
    pub problem: String,
    pub allowed: String,
}

impl FieldSpec {
    /// Human-readable statement of the allowed values.
    pub fn allowed(&self) -> String {
        match self.kind {
            FieldKind::Int { min: i64::MIN, max: i64::MAX } => "any 64-bit integer".into(),
            FieldKind::Int { min, max } => format!("an integer in {min}..={max}"),
            FieldKind::Float { .. } if self.name == SIMPLEX_RADIUS_SQUARED_FIELD => {
                "a finite number in 0.5..=0.6, exactly 0.5 or 0.6".into()
            }
            FieldKind::Float { min, max, .. } => {
                format!("a finite number in {}..={}", number_text(min), number_text(max))
            }
            FieldKind::Bool => "true or false".into(),
            FieldKind::Enum { options } => format!("one of {}", options.join(", ")),
            FieldKind::Text => "text".into(),
        }
    }

    /// The default preset's value of this field, as the inspector writes it (an enum's option
    /// name, a number without trailing zeros).
    pub fn default_text(&self) -> String {
        match ((self.get)(&WorldPreset::default()), self.kind) {
            (FieldValue::Int(i), FieldKind::Enum { options }) => {
                options.get(i as usize).map_or_else(|| i.to_string(), |o| o.to_string())
            }
            (FieldValue::Int(i), _) => i.to_string(),
            (FieldValue::Float(f), _) => number_text(f),
            (FieldValue::Bool(b), _) => b.to_string(),
            (FieldValue::Text(t), _) => format!("{t:?}"),
        }
    }

    /// The full help text of the field for the inspector tooltip and the class reference: what
    /// it does (with its unit), the allowed values and the default.
    pub fn help(&self) -> String {
        format!("{} Allowed: {}. Default: {}.", self.doc, self.allowed(), self.default_text())
    }

    /// Checks `v` against this field's kind and range; returns the value to store.
    pub fn check(&self, v: &FieldValue) -> Result<FieldValue, FieldError> {
        let err = |problem: String| FieldError { field: self.name.into(), problem, allowed: self.allowed() };
        match (self.kind, v) {
            (FieldKind::Int { min, max }, FieldValue::Int(i)) if (min..=max).contains(i) => Ok(v.clone()),
            (FieldKind::Int { .. }, FieldValue::Int(i)) => Err(err(format!("{i} is out of range"))),
            (FieldKind::Int { .. }, FieldValue::Float(f)) if !f.is_finite() || f.fract() != 0.0 => {
                Err(err(format!("{} is not an integer", number_text(*f))))
            }
            (FieldKind::Int { min, max }, FieldValue::Float(f))
                if f.fract() == 0.0 && (min as f64..=max as f64).contains(f) =>
            {
                Ok(FieldValue::Int(*f as i64))
            }
            (FieldKind::Int { .. }, FieldValue::Float(f)) => Err(err(format!("{} is out of range", number_text(*f)))),
            // Two values, not a range: the f32 of 0.6 (0.6000000238…) is 0.6.
            (FieldKind::Float { .. }, FieldValue::Float(f)) if self.name == SIMPLEX_RADIUS_SQUARED_FIELD => {
                match number_problem(*f, f64::MIN, f64::MAX) {
                    Some(problem) => Err(err(problem)),
                    None if !is_simplex_radius_squared(*f) => {
                        Err(err(format!("{} is neither 0.5 nor 0.6", number_text(*f))))
                    }
                    None => Ok(v.clone()),
                }
            }
            (FieldKind::Float { min, max, .. }, FieldValue::Float(f)) => match number_problem(*f, min, max) {
                Some(problem) => Err(err(problem)),
                None if self.name == SIMPLEX_RADIUS_SQUARED_FIELD && !is_simplex_radius_squared(*f) => {
                    Err(err(format!("{} is neither 0.5 nor 0.6", number_text(*f))))
                }
                None => Ok(v.clone()),
            },
            (FieldKind::Float { min, max, .. }, FieldValue::Int(i))
                if (min..=max).contains(&(*i as f64)) && self.name != SIMPLEX_RADIUS_SQUARED_FIELD =>
            {
                Ok(FieldValue::Float(*i as f64))
            }
            (FieldKind::Float { .. }, FieldValue::Int(i)) => Err(err(format!("{i} is out of range"))),
            (FieldKind::Enum { options }, FieldValue::Int(i)) if *i < 0 || *i as usize >= options.len() => {
                Err(err(format!("{i} is not an option number (0..={})", options.len().saturating_sub(1))))
            }
            (FieldKind::Bool, FieldValue::Bool(_)) => Ok(v.clone()),
            (FieldKind::Enum { options }, FieldValue::Int(i)) if *i >= 0 && (*i as usize) < options.len() => {
                Ok(v.clone())
            }
            (FieldKind::Enum { options }, FieldValue::Text(s)) => options
                .iter()
                .position(|o| o.eq_ignore_ascii_case(s))
                .map(|i| FieldValue::Int(i as i64))
                .ok_or_else(|| err(format!("{v} is not an option"))),
            (FieldKind::Text, FieldValue::Text(_)) => Ok(v.clone()),
            (_, other) => Err(err(format!("{other} is {}, the wrong kind of value", other.kind_word()))),
        }
    }
}

impl WorldPreset {
    /// Reads field `name` from the table.
    pub fn get_field(&self, name: &str) -> Option<FieldValue> {
        field(name).map(|f| (f.get)(self))
    }

    /// Checks and writes field `name`. Unknown names and bad values are errors; nothing changes.
    pub fn set_field(&mut self, name: &str, value: FieldValue) -> Result<(), FieldError> {
        let spec = field(name).ok_or_else(|| FieldError {
            field: name.into(),
            problem: "no such field".into(),
            allowed: "a field listed in strata_core::preset::model::FIELDS".into(),
        })?;
        let v = spec.check(&value)?;
        (spec.set)(self, v);
        Ok(())
    }

    /// Checks every field of the table and the structural rules between fields; block names
    /// are looked up in the default block library.
    pub fn validate(&self) -> Result<(), FieldError> {
        self.validate_with_library(default_library())
    }

    /// [`WorldPreset::validate`] with the block names of the biome table looked up in `library`,
    /// the blocks of the world the preset is used in.
    pub fn validate_with_library(&self, library: &BlockLibrary) -> Result<(), FieldError> {
        for f in FIELDS {
            f.check(&(f.get)(self))?;
        }
        let rule = |field: &str, problem: String, allowed: &str| FieldError {
            field: field.into(),
            problem,
            allowed: allowed.into(),
        };
        let h = &self.height;
        let total = h.perlin_weight
            + h.open_simplex_weight
            + h.exact_simplex_weight
            + h.ridged_weight
            + h.value_weight
            + h.diamond_square_weight
            + h.heightmap_weight;
        if total.is_nan() || total <= 0.0 {
            return Err(rule(
                "height_*_weight",
                "all height source weights are 0".into(),
                "at least one weight above 0",
            ));
        }
        if h.heightmap_weight > 0.0 && h.heightmap_path.trim().is_empty() {
            return Err(rule(
                "height_heightmap_path",
                "empty while heightmap_weight > 0".into(),
                "a path to a 16-bit PNG, .hgt, .asc or .spca file",
            ));
        }
        if self.biomes.enabled && self.biomes.table.is_empty() {
            return Err(rule("biomes.table", "empty while biomes are enabled".into(), "at least one biome"));
        }
        if self.biomes.table.len() > 64 {
            return Err(rule("biomes.table", format!("{} biomes", self.biomes.table.len()), "at most 64 biomes"));
        }
        for (i, b) in self.biomes.table.iter().enumerate() {
            validate_biome(b, i, library)?;
        }
        if self.caves.mode == CaveMode::GameOfLife {
            parse_life_rule(&self.caves.life_rule).map_err(|e| {
                rule(
                    "caves_life_rule",
                    e.to_string(),
                    "a rule like B3/S23 or B14-19/S13-26 (counts 0-26; single digits, or comma lists and ranges)",
                )
            })?;
        }
        if self.caves.mode == CaveMode::Classic {
            return Err(rule(
                "caves_mode",
                "Classic (the side-view classic)".into(),
                "None, CellularAutomata or GameOfLife (Classic is for side_view_cave_mode)",
            ));
        }
        if self.side_view.cave_mode == CaveMode::GameOfLife {
            parse_life_rule(&self.side_view.cave_life_rule).map_err(|e| {
                rule(
                    "side_view_cave_life_rule",
                    e.to_string(),
                    "a rule like B3/S23 or B678/S345678 (neighbour counts 0-8)",
                )
            })?;
        }
        if self.ores.kinds.len() > 32 {
            return Err(rule("ores.kinds", format!("{} kinds", self.ores.kinds.len()), "at most 32 ore kinds"));
        }
        for (i, o) in self.ores.kinds.iter().enumerate() {
            if crate::base::block::block_by_name(&o.block).is_none() {
                return Err(rule(
                    &format!("ores.kinds[{i}].block"),
                    format!("unknown block `{}`", o.block),
                    "a block name such as coal_ore, iron_ore",
                ));
            }
            if o.clusters_per_chunk_min > o.clusters_per_chunk_max || o.clusters_per_chunk_max > 64 {
                return Err(rule(
                    &format!("ores.kinds[{i}].clusters_per_chunk_max"),
                    format!("{}..{}", o.clusters_per_chunk_min, o.clusters_per_chunk_max),
                    "min <= max <= 64",
                ));
            }
            if o.cluster_size == 0 || o.cluster_size > 64 {
                return Err(rule(
                    &format!("ores.kinds[{i}].cluster_size"),
                    format!("{} is out of range", o.cluster_size),
                    "an integer in 1..=64",
                ));
            }
        }
        if self.structures.rules.len() > 64 {
            return Err(rule(
                "structures.rules",
                format!("{} rules", self.structures.rules.len()),
                "at most 64 structure rules",
            ));
        }
        for (i, r) in self.structures.rules.iter().enumerate() {
            r.validate(i)?;
            if let Some(name) =
                r.biomes.iter().find(|n| self.biomes.enabled && !self.biomes.table.iter().any(|b| &b.name == *n))
            {
                let names: Vec<&str> = self.biomes.table.iter().map(|b| b.name.as_str()).collect();
                return Err(rule(
                    &format!("structures.rules[{i}].biomes"),
                    format!("unknown biome `{name}`"),
                    &format!("names of the preset's biome table ({})", names.join(", ")),
                ));
            }
        }
        if self.spawns.rules.len() > MAX_SPAWN_RULES {
            return Err(rule(
                "spawns.rules",
                format!("{} rules", self.spawns.rules.len()),
                &format!("at most {MAX_SPAWN_RULES} spawn rules"),
            ));
        }
        for (i, r) in self.spawns.rules.iter().enumerate() {
            r.validate(i)?;
            if let Some(name) =
                r.biomes.iter().find(|n| self.biomes.enabled && !self.biomes.table.iter().any(|b| &b.name == *n))
            {
                let names: Vec<&str> = self.biomes.table.iter().map(|b| b.name.as_str()).collect();
                return Err(rule(
                    &format!("spawns.rules[{i}].biomes"),
                    format!("unknown biome `{name}`"),
                    &format!("names of the preset's biome table ({})", names.join(", ")),
                ));
            }
        }
        Ok(())
    }
}

/// The block names of `library`, for an error's "allowed" part.
fn block_names(library: &BlockLibrary) -> String {
    let names: Vec<&str> = library.blocks().iter().map(|b| b.name.as_str()).take(40).collect();
    let more = if library.len() > names.len() { ", …" } else { "" };
    format!("a block name of the world's block library ({}{more})", names.join(", "))
}

/// Checks row `i` of the biome table: its block names against `library`, every number against
/// its range, the climate ranges and the scatter set (law: Clear errors).
fn validate_biome(b: &Biome, i: usize, library: &BlockLibrary) -> Result<(), FieldError> {
    let rule = |what: &str, problem: String, allowed: String| FieldError {
        field: format!("biomes.table[{i}].{what}"),
        problem,
        allowed,
    };
    for (what, name) in [
        ("surface_block", &b.surface_block),
        ("subsurface_block", &b.subsurface_block),
        ("cliff_block", &b.cliff_block),
        ("shore_block", &b.shore_block),
    ] {
        if library.id_of(name).is_none() {
            return Err(rule(what, format!("unknown block `{name}` in biome `{}`", b.name), block_names(library)));
        }
    }
    let mut numbers = vec![
        ("height_offset".to_string(), b.height_offset, -256.0, 256.0),
        ("height_scale".to_string(), b.height_scale, 0.0, 8.0),
        ("tree_density".to_string(), b.tree_density, 0.0, 1.0),
        ("flower_density".to_string(), b.flower_density, 0.0, 1.0),
        ("color[0]".to_string(), b.color[0], 0.0, 1.0),
        ("color[1]".to_string(), b.color[1], 0.0, 1.0),
        ("color[2]".to_string(), b.color[2], 0.0, 1.0),
        ("temperature".to_string(), b.temperature, 0.0, 1.0),
        ("moisture".to_string(), b.moisture, 0.0, 1.0),
        ("temperature_min".to_string(), b.temperature_min, 0.0, 1.0),
        ("temperature_max".to_string(), b.temperature_max, 0.0, 1.0),
        ("moisture_min".to_string(), b.moisture_min, 0.0, 1.0),
        ("moisture_max".to_string(), b.moisture_max, 0.0, 1.0),
    ];
    let rules = b.scatter.as_deref().unwrap_or_default();
    for (j, r) in rules.iter().enumerate() {
        numbers.push((format!("scatter[{j}].density"), r.density, 0.0, 1.0));
        numbers.push((format!("scatter[{j}].bare_rock_density"), r.bare_rock_density, 0.0, 1.0));
    }
    for (what, v, lo, hi) in numbers {
        if let Some(problem) = number_problem(v as f64, lo, hi) {
            return Err(rule(&what, problem, format!("a finite number in {}..={}", number_text(lo), number_text(hi))));
        }
    }
    for (what, lo, hi) in
        [("temperature", b.temperature_min, b.temperature_max), ("moisture", b.moisture_min, b.moisture_max)]
    {
        if lo > hi {
            return Err(rule(
                &format!("{what}_min"),
                format!("{} is above {what}_max {}", number_text(lo as f64), number_text(hi as f64)),
                format!("{what}_min <= {what}_max"),
            ));
        }
    }
    if rules.len() > MAX_SCATTER_RULES {
        return Err(rule("scatter", format!("{} entries", rules.len()), format!("at most {MAX_SCATTER_RULES}")));
    }
    for (j, r) in rules.iter().enumerate() {
        if ScatterKind::from_name(&r.kind).is_none() {
            return Err(rule(
                &format!("scatter[{j}].kind"),
                format!("unknown scatter kind `{}` in biome `{}`", r.kind, b.name),
                format!("one of {}", ScatterKind::NAMES.join(", ")),
            ));
        }
    }
    Ok(())
}

/// Why a Life-like rule string ("B…/S…") does not parse.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum LifeRuleError {
    #[error("`{0}` has no `/`")]
    NoSlash(String),
    #[error("`{part}` does not start with {letter}")]
    MissingLetter { part: String, letter: char },
    #[error("`{0}` is not a neighbour count")]
    NotACount(String),
    #[error("neighbour count {0} exceeds 26")]
    CountTooLarge(u32),
    #[error("range `{0}` runs backwards")]
    Backwards(String),
}

/// Parses "B3/S23" (or "B5678/S45678", or with comma lists and ranges "B13,14/S12-14") into
/// birth and survival bitmasks over neighbour counts 0..=26. Without `,` or `-` each digit is
/// one count. The one parser of Life rules: validation and both cave automata (3D caverns, 2D
/// side-view caves, through [`crate::automata::cave_rules`]) call it.
pub fn parse_life_rule(rule: &str) -> Result<(u32, u32), LifeRuleError> {
    let rule = rule.trim();
    let (b, s) = rule.split_once('/').ok_or_else(|| LifeRuleError::NoSlash(rule.into()))?;
    let part = |p: &str, letter: char| -> Result<u32, LifeRuleError> {
        let p = p.trim();
        let digits = p
            .strip_prefix(letter)
            .or_else(|| p.strip_prefix(letter.to_ascii_lowercase()))
            .ok_or_else(|| LifeRuleError::MissingLetter { part: p.into(), letter })?;
        let mut mask = 0u32;
        let listed = digits.contains(',') || digits.contains('-');
        let items: Vec<&str> =
            if listed { digits.split(',').collect() } else { digits.split("").filter(|d| !d.is_empty()).collect() };
        let count = |d: &str| -> Result<u32, LifeRuleError> {
            let n: u32 = d.trim().parse().map_err(|_| LifeRuleError::NotACount(d.into()))?;
            if n > 26 { Err(LifeRuleError::CountTooLarge(n)) } else { Ok(n) }
        };
        for d in items {
            let (lo, hi) = match d.split_once('-') {
                Some((a, b)) => (count(a)?, count(b)?),
                None => (count(d)?, count(d)?),
            };
            if lo > hi {
                return Err(LifeRuleError::Backwards(d.into()));
            }
            for n in lo..=hi {
                mask |= 1 << n;
            }
        }
        Ok(mask)
    };
    Ok((part(b, 'B')?, part(s, 'S')?))
}

/// The one float field that takes exactly two values (0.5 or 0.6), not a range.
pub const SIMPLEX_RADIUS_SQUARED_FIELD: &str = "height_simplex_radius_squared";

/// `r2` is 0.5 or 0.6 (within 1e-6, so that an `f32` qualifies).
pub fn is_simplex_radius_squared(r2: f64) -> bool {
    (r2 - 0.5).abs() <= 1e-6 || (r2 - 0.6).abs() <= 1e-6
}

macro_rules! float_field {
    ($name:literal, $group:literal, $($path:ident).+, $min:expr, $max:expr, $step:expr, $doc:literal) => {
        FieldSpec {
            name: $name,
            group: $group,
            doc: $doc,
            kind: FieldKind::Float { min: $min, max: $max, step: $step },
            get: |p| FieldValue::Float(p.$($path).+ as f64),
            set: |p, v| if let FieldValue::Float(f) = v { p.$($path).+ = f as _ },
        }
    };
}

macro_rules! int_field {
    ($name:literal, $group:literal, $($path:ident).+, $min:expr, $max:expr, $doc:literal) => {
        FieldSpec {
            name: $name,
            group: $group,
            doc: $doc,
            kind: FieldKind::Int { min: $min, max: $max },
            get: |p| FieldValue::Int(p.$($path).+ as i64),
            set: |p, v| if let FieldValue::Int(i) = v { p.$($path).+ = i as _ },
        }
    };
}

macro_rules! bool_field {
    ($name:literal, $group:literal, $($path:ident).+, $doc:literal) => {
        FieldSpec {
            name: $name,
            group: $group,
            doc: $doc,
            kind: FieldKind::Bool,
            get: |p| FieldValue::Bool(p.$($path).+),
            set: |p, v| if let FieldValue::Bool(b) = v { p.$($path).+ = b },
        }
    };
}

macro_rules! text_field {
    ($name:literal, $group:literal, $($path:ident).+, $doc:literal) => {
        FieldSpec {
            name: $name,
            group: $group,
            doc: $doc,
            kind: FieldKind::Text,
            get: |p| FieldValue::Text(p.$($path).+.clone()),
            set: |p, v| if let FieldValue::Text(s) = v { p.$($path).+ = s },
        }
    };
}

macro_rules! enum_field {
    ($name:literal, $group:literal, $($path:ident).+, [$($variant:expr => $label:literal),+ $(,)?], $doc:literal) => {
        FieldSpec {
            name: $name,
            group: $group,
            doc: $doc,
            kind: FieldKind::Enum { options: &[$($label),+] },
            get: |p| {
                let all = [$($variant),+];
                FieldValue::Int(all.iter().position(|v| *v == p.$($path).+).unwrap_or(0) as i64)
            },
            set: |p, v| if let FieldValue::Int(i) = v {
                let all = [$($variant),+];
                if let Some(x) = all.get(i as usize) { p.$($path).+ = *x; }
            },
        }
    };
}

/// Every scalar field of [`WorldPreset`], in inspector order. Table-valued settings (the biome
/// table, ore kinds) are edited in RON and checked by [`WorldPreset::validate`].
pub static FIELDS: &[FieldSpec] = &[
    text_field!(
        "name",
        "World",
        name,
        "Name of the world shown in menus and save lists; it does not change the terrain."
    ),
    // The seed is handled specially (u64 in Rust, int in Godot); it is listed for completeness.
    FieldSpec {
        name: "seed",
        group: "World",
        doc: "World seed: the same seed with the same settings gives the same world, bit for bit; change it for a new world of the same kind. Any 64-bit integer.",
        kind: FieldKind::Int { min: i64::MIN, max: i64::MAX },
        get: |p| FieldValue::Int(p.seed as i64),
        set: |p, v| {
            if let FieldValue::Int(i) = v {
                p.seed = i as u64
            }
        },
    },
    float_field!(
        "height_base_height",
        "Height",
        height.base_height,
        -256.0,
        256.0,
        0.5,
        "World y (in voxels) of the average ground level; hills rise above it and valleys sink below it."
    ),
    float_field!(
        "height_amplitude",
        "Height",
        height.amplitude,
        0.0,
        512.0,
        0.5,
        "How far hills and valleys reach above and below the base height, in voxels (0 = flat)."
    ),
    float_field!(
        "height_scale",
        "Height",
        height.scale,
        8.0,
        8192.0,
        1.0,
        "Horizontal size of the largest hills and valleys (wavelength of the first noise octave), in voxels: larger is broader, gentler land."
    ),
    int_field!(
        "height_octaves",
        "Height",
        height.octaves,
        1,
        12,
        "Layers of noise added together (count): more octaves add finer bumps on top of the large shapes, at some generation cost."
    ),
    float_field!(
        "height_persistence",
        "Height",
        height.persistence,
        0.0,
        1.0,
        0.01,
        "Height of each finer octave relative to the one before (ratio): low is smooth, high is rough and craggy."
    ),
    float_field!(
        "height_lacunarity",
        "Height",
        height.lacunarity,
        1.0,
        4.0,
        0.01,
        "Frequency step between octaves (ratio): 2 makes each octave's features half the size of the one before."
    ),
    float_field!(
        "height_perlin_weight",
        "Height",
        height.perlin_weight,
        0.0,
        1.0,
        0.01,
        "Share of Perlin noise in the terrain mix (weight, relative to the other weights): rolling, natural hills."
    ),
    float_field!(
        "height_open_simplex_weight",
        "Height",
        height.open_simplex_weight,
        0.0,
        1.0,
        0.01,
        "Share of OpenSimplex noise in the terrain mix (weight, relative to the other weights): like Perlin with fewer grid-aligned artefacts. Files that say height_simplex_weight mean this one."
    ),
    float_field!(
        "height_exact_simplex_weight",
        "Height",
        height.exact_simplex_weight,
        0.0,
        1.0,
        0.01,
        "Share of simplex noise as defined (skewed simplex lattice, kernels (r² − d²)⁴) in the terrain mix (weight, relative to the other weights)."
    ),
    float_field!(
        "height_simplex_radius_squared",
        "Height",
        height.simplex_radius_squared,
        0.5,
        0.6,
        0.1,
        "Squared radius r² of the simplex noise kernel, in lattice units squared (a factor): exactly 0.5 (continuous) or 0.6 (Perlin's original, rounder, small jumps on simplex faces)."
    ),
    float_field!(
        "height_ridged_weight",
        "Height",
        height.ridged_weight,
        0.0,
        1.0,
        0.01,
        "Share of ridged multifractal noise in the terrain mix (weight, relative to the other weights): sharp mountain crests and ranges."
    ),
    float_field!(
        "height_value_weight",
        "Height",
        height.value_weight,
        0.0,
        1.0,
        0.01,
        "Share of octave value noise in the terrain mix (weight, relative to the other weights): blocky, plateau-like hills."
    ),
    enum_field!("height_value_interpolation", "Height", height.value_interpolation,
        [Interpolation::Linear => "Linear", Interpolation::Cosine => "Cosine"], "How value noise blends between its lattice points: Linear gives straight slopes and creases, Cosine smooth rounded ones."),
    float_field!(
        "height_diamond_square_weight",
        "Height",
        height.diamond_square_weight,
        0.0,
        1.0,
        0.01,
        "Share of diamond-square fractal terrain in the mix (weight, relative to the other weights): rugged, realistic relief."
    ),
    int_field!(
        "height_diamond_square_cell_log2",
        "Height",
        height.diamond_square_cell_log2,
        2,
        12,
        "Size of one diamond-square tile as a power of two: the tile edge is 2^n voxels (7 = 128 voxels); larger tiles give larger landforms."
    ),
    float_field!(
        "height_diamond_square_roughness",
        "Height",
        height.diamond_square_roughness,
        0.01,
        0.99,
        0.01,
        "Smoothness exponent h of diamond-square terrain (fraction): each finer level is displaced 2^-h as much as the one before, so high is smooth and low is jagged."
    ),
    float_field!(
        "height_ravine_depth",
        "Height",
        height.ravine_depth,
        0.0,
        128.0,
        0.5,
        "Depth of ravines and river beds cut into the terrain, in voxels (0 = no ravines)."
    ),
    float_field!(
        "height_ravine_width",
        "Height",
        height.ravine_width,
        1.0,
        64.0,
        0.5,
        "Half-width of a ravine, in voxels (a ravine is about twice this wide)."
    ),
    float_field!(
        "height_ravine_spacing",
        "Height",
        height.ravine_spacing,
        64.0,
        8192.0,
        1.0,
        "Average distance between neighbouring ravines, in voxels."
    ),
    float_field!(
        "height_ravine_roughness",
        "Height",
        height.ravine_roughness,
        0.0,
        1.0,
        0.01,
        "How much ravines wander (ratio per subdivision): 0 is straight, 1 is very winding."
    ),
    float_field!(
        "height_heightmap_weight",
        "Height",
        height.heightmap_weight,
        0.0,
        1.0,
        0.01,
        "Share of the heightmap image in the terrain mix (weight, relative to the other weights; 0 = heightmap unused)."
    ),
    text_field!(
        "height_heightmap_path",
        "Height",
        height.heightmap_path,
        "Heightmap file: a 16-bit grayscale PNG, an SRTM .hgt tile, an ESRI ASCII grid (.asc) or PCA components (.spca, from cargo xtask pca), as a res://, user:// or absolute path (a bare path is relative to res://). Used when the heightmap weight is above 0."
    ),
    float_field!(
        "height_heightmap_cell_size",
        "Height",
        height.heightmap_cell_size,
        0.25,
        256.0,
        0.25,
        "Voxels per heightmap pixel, horizontally: 1 maps each pixel to one column, 4 stretches each pixel over 4×4 columns."
    ),
    enum_field!("height_heightmap_wrap", "Height", height.heightmap_wrap,
        [HeightmapWrap::Tile => "Tile", HeightmapWrap::Border => "Border"], "Beyond the heightmap's edges: Tile repeats the image, Border continues with generated terrain."),
    bool_field!(
        "biomes_enabled",
        "Biomes",
        biomes.enabled,
        "Use the biome table (deserts, forests, snow, …); off, the whole world is one plains biome."
    ),
    float_field!(
        "biomes_cell_size",
        "Biomes",
        biomes.cell_size,
        16.0,
        8192.0,
        1.0,
        "Typical size of one biome region (Worley cell edge), in voxels."
    ),
    float_field!(
        "biomes_blend_distance",
        "Biomes",
        biomes.blend_distance,
        0.0,
        256.0,
        0.5,
        "Width of the strip over which terrain heights blend between neighbouring biomes, in voxels (0 = hard steps at borders)."
    ),
    float_field!(
        "biomes_climate_scale",
        "Biomes",
        biomes.climate_scale,
        32.0,
        16384.0,
        1.0,
        "Size of the temperature and moisture patterns (noise wavelength), in voxels: larger keeps similar biomes together over longer distances."
    ),
    float_field!(
        "biomes_rock_slope",
        "Biomes",
        biomes.rock_slope,
        0.1,
        16.0,
        0.05,
        "Steepness (rise over run, in voxels per voxel) above which slopes show bare rock instead of the biome's surface block."
    ),
    enum_field!("caves_mode", "Caves", caves.mode,
        [CaveMode::None => "None", CaveMode::CellularAutomata => "CellularAutomata", CaveMode::GameOfLife => "GameOfLife"], "Cave generator: None (solid ground), CellularAutomata (round caverns from the 4-5 smoothing rule) or GameOfLife (caverns from the birth/survival rule below)."),
    float_field!(
        "caves_fill_probability",
        "Caves",
        caves.fill_probability,
        0.0,
        1.0,
        0.01,
        "Chance that an automaton cell starts as air (probability): higher gives larger, more connected caves."
    ),
    int_field!(
        "caves_passes",
        "Caves",
        caves.passes,
        0,
        16,
        "Smoothing passes with the threshold below (count): more passes give rounder, smoother caverns."
    ),
    int_field!(
        "caves_threshold",
        "Caves",
        caves.threshold,
        0,
        27,
        "Rock cells among a cell's 27 neighbours (3×3×3, itself included) needed to make it rock (count): 14 is the majority rule; higher opens more caves."
    ),
    int_field!(
        "caves_final_passes",
        "Caves",
        caves.final_passes,
        0,
        8,
        "Refining passes with the final threshold after the smoothing passes (count; 0 = none)."
    ),
    int_field!(
        "caves_final_threshold",
        "Caves",
        caves.final_threshold,
        0,
        27,
        "Rock neighbours out of 27 needed to stay rock in the refining passes (count): higher opens and rounds the caverns."
    ),
    text_field!(
        "caves_life_rule",
        "Caves",
        caves.life_rule,
        "Birth/survival rule of GameOfLife caves over the 26 neighbours, rock being alive: \"B…/S…\" with counts, commas and ranges, e.g. B3/S23 (Conway) or B14-19/S13-26."
    ),
    int_field!(
        "caves_life_ticks",
        "Caves",
        caves.life_ticks,
        0,
        64,
        "GameOfLife caves: ticks of the birth/survival rule from the random fill (count); each is computed from the previous one only."
    ),
    bool_field!(
        "caves_life_flood_fill",
        "Caves",
        caves.life_flood_fill,
        "GameOfLife caves: fill every open region except the main (largest) one of its world-aligned region of 32 cells (plus an 8-cell margin)."
    ),
    int_field!(
        "caves_cell_size",
        "Caves",
        caves.cell_size,
        1,
        8,
        "Edge of one automaton cell, in voxels: 1 carves per voxel, 2 or 4 give larger, blockier caverns."
    ),
    int_field!(
        "caves_min_depth",
        "Caves",
        caves.min_depth,
        0,
        256,
        "Caves start this many voxels below the surface, so the ground above stays intact."
    ),
    int_field!(
        "caves_min_pocket_volume",
        "Caves",
        caves.min_pocket_volume,
        0,
        4096,
        "Air pockets smaller than this many voxels are filled with rock (0 = keep all)."
    ),
    float_field!(
        "caves_tunnel_strength",
        "Caves",
        caves.tunnel_strength,
        0.0,
        1.0,
        0.01,
        "Strength of the long noise tunnels that connect caverns (fraction; 0 = no tunnels)."
    ),
    float_field!(
        "caves_tunnel_scale",
        "Caves",
        caves.tunnel_scale,
        8.0,
        2048.0,
        1.0,
        "Length of tunnel bends (noise wavelength), in voxels: larger gives longer, straighter tunnels."
    ),
    float_field!(
        "caves_tunnel_width",
        "Caves",
        caves.tunnel_width,
        0.0,
        0.5,
        0.005,
        "Width of the tunnels (fraction of the noise band): larger gives wider tunnels."
    ),
    bool_field!(
        "caves_allow_surface_breach",
        "Caves",
        caves.allow_surface_breach,
        "Let caves and tunnels open to the surface as cave mouths; off, they stay sealed below ground."
    ),
    bool_field!(
        "ores_enabled",
        "Ores",
        ores.enabled,
        "Place ore clusters (kinds, depths and clusters per 32³ chunk come from the preset's ore list)."
    ),
    bool_field!(
        "water_enabled",
        "Water",
        water.enabled,
        "Fill hollows below sea level with water where the ground holds it."
    ),
    int_field!(
        "water_sea_level",
        "Water",
        water.sea_level,
        -1024,
        1024,
        "World y of the water surface, in voxels: hollows below it fill with water."
    ),
    bool_field!(
        "scatter_enabled",
        "Scatter",
        scatter.enabled,
        "Scatter trees, bushes, flowers and rocks on the surface, as each biome's scatter rules say."
    ),
    float_field!(
        "scatter_density",
        "Scatter",
        scatter.density,
        0.0,
        4.0,
        0.01,
        "Multiplier on every biome's scatter densities (factor): 0 places nothing, 2 twice as much."
    ),
    float_field!(
        "scatter_density_scale",
        "Scatter",
        scatter.density_scale,
        8.0,
        4096.0,
        1.0,
        "Size of the groves and clearings (density noise wavelength), in voxels."
    ),
    bool_field!("scatter_trees", "Scatter", scatter.trees, "Place trees."),
    bool_field!("scatter_bushes", "Scatter", scatter.bushes, "Place bushes."),
    bool_field!("scatter_flowers", "Scatter", scatter.flowers, "Place flowers."),
    bool_field!("scatter_rocks", "Scatter", scatter.rocks, "Place rocks."),
    enum_field!("side_view_surface_source", "SideView", side_view.surface_source,
        [SurfaceSource::ValueNoiseLinear => "ValueNoiseLinear", SurfaceSource::ValueNoiseCosine => "ValueNoiseCosine",
         SurfaceSource::PerlinFbm => "PerlinFbm", SurfaceSource::MidpointDisplacement => "MidpointDisplacement",
         SurfaceSource::SmoothedHashNoise => "SmoothedHashNoise", SurfaceSource::ClassicHash => "ClassicHash"], "2D worlds only: the noise that draws the surface line (value noise, Perlin, midpoint displacement, smoothed hash noise or the side-view classic's hash noise)."),
    float_field!(
        "side_view_base_height",
        "SideView",
        side_view.base_height,
        -4096.0,
        4096.0,
        0.5,
        "2D worlds only: average height of the surface above tile row 0, in tiles."
    ),
    float_field!(
        "side_view_amplitude",
        "SideView",
        side_view.amplitude,
        0.0,
        512.0,
        0.5,
        "2D worlds only: how far hills and valleys reach above and below the base height, in tiles."
    ),
    float_field!(
        "side_view_scale",
        "SideView",
        side_view.scale,
        4.0,
        8192.0,
        1.0,
        "2D worlds only: width of the largest hills (noise wavelength), in tiles."
    ),
    int_field!(
        "side_view_octaves",
        "SideView",
        side_view.octaves,
        1,
        12,
        "2D worlds only: layers of surface noise added together (count): more adds finer bumps."
    ),
    float_field!(
        "side_view_persistence",
        "SideView",
        side_view.persistence,
        0.0,
        1.0,
        0.01,
        "2D worlds only: height of each finer octave relative to the one before (ratio): low is smooth, high is rough."
    ),
    float_field!(
        "side_view_roughness",
        "SideView",
        side_view.roughness,
        0.0,
        1.0,
        0.01,
        "2D worlds only, MidpointDisplacement: displacement kept per subdivision (ratio): low is smooth, high is jagged."
    ),
    float_field!(
        "side_view_initial_range",
        "SideView",
        side_view.initial_range,
        0.0,
        4.0,
        0.01,
        "2D worlds only, MidpointDisplacement: size of the first displacement, relative to the height range between the anchor points (ratio)."
    ),
    int_field!(
        "side_view_dirt_depth",
        "SideView",
        side_view.dirt_depth,
        0,
        64,
        "2D worlds only: dirt tiles between the grass on top and the stone below, in tiles."
    ),
    enum_field!("side_view_cave_mode", "SideView", side_view.cave_mode,
        [CaveMode::None => "None", CaveMode::CellularAutomata => "CellularAutomata", CaveMode::GameOfLife => "GameOfLife", CaveMode::Classic => "Classic"], "2D worlds only: cave generator: None, CellularAutomata (4-5 rule), GameOfLife (the birth/survival rule below) or Classic (the side-view classic: holes poked at 56 %, 4-5 rule opening at 2 or fewer walls, wall-only final passes)."),
    int_field!(
        "side_view_cave_depth",
        "SideView",
        side_view.cave_depth,
        1,
        1024,
        "2D worlds only: caves open only this many tiles below the surface or deeper, so the surface stays whole."
    ),
    float_field!(
        "side_view_cave_rock_probability",
        "SideView",
        side_view.cave_rock_probability,
        0.0,
        1.0,
        0.01,
        "2D worlds only: chance that a cave cell starts as rock (probability): lower gives larger caves."
    ),
    int_field!(
        "side_view_cave_passes",
        "SideView",
        side_view.cave_passes,
        0,
        16,
        "2D worlds only: smoothing passes of the 4-5 rule (count): more gives smoother caves."
    ),
    int_field!(
        "side_view_cave_threshold",
        "SideView",
        side_view.cave_threshold,
        0,
        9,
        "2D worlds only: rock cells among a cell's 3×3 block (itself included) needed to make it rock (count): 5 is the 4-5 rule."
    ),
    int_field!(
        "side_view_cave_final_passes",
        "SideView",
        side_view.cave_final_passes,
        0,
        8,
        "2D worlds only: refining passes with the final threshold (count; 0 = none)."
    ),
    int_field!(
        "side_view_cave_final_threshold",
        "SideView",
        side_view.cave_final_threshold,
        0,
        9,
        "2D worlds only: rock cells of the 3×3 block needed to stay rock in the refining passes (count)."
    ),
    text_field!(
        "side_view_cave_life_rule",
        "SideView",
        side_view.cave_life_rule,
        "2D worlds only: birth/survival rule of GameOfLife caves over the 8 neighbours, rock being alive, e.g. B3/S23 (Conway) or B3678/S34678."
    ),
    int_field!(
        "side_view_cave_life_ticks",
        "SideView",
        side_view.cave_life_ticks,
        0,
        64,
        "2D worlds only: ticks of the GameOfLife rule from the random fill (count); each is computed from the previous one only."
    ),
    bool_field!(
        "side_view_cave_life_flood_fill",
        "SideView",
        side_view.cave_life_flood_fill,
        "2D worlds only: GameOfLife caves fill every open region except the main (largest) one of its world-aligned region of 64 tiles (plus a 16-tile margin)."
    ),
    int_field!(
        "side_view_min_pocket_tiles",
        "SideView",
        side_view.min_pocket_tiles,
        0,
        64,
        "2D worlds only: cave pockets of fewer tiles than this are filled with rock (count; 0 = keep all)."
    ),
    int_field!(
        "side_view_ore_depth",
        "SideView",
        side_view.ore_depth,
        0,
        1024,
        "2D worlds only: ores appear only this many tiles below the surface or deeper."
    ),
    bool_field!(
        "side_view_water_enabled",
        "SideView",
        side_view.water_enabled,
        "2D worlds only: fill surface hollows with water pools."
    ),
    int_field!(
        "side_view_max_pool_width",
        "SideView",
        side_view.max_pool_width,
        1,
        128,
        "2D worlds only: widest hollow that holds a pool, in tiles."
    ),
    int_field!(
        "side_view_chunk_tiles",
        "SideView",
        side_view.chunk_tiles,
        16,
        128,
        "2D worlds only: edge of a square chunk, in tiles: larger chunks mean fewer, bigger generation jobs."
    ),
    bool_field!(
        "side_view_classic_xor_frequency",
        "SideView",
        side_view.classic_xor_frequency,
        "2D worlds only, ClassicHash: octave i at frequency 2 XOR i, as the original's `2 ^ i` computes in C-like languages, instead of 2 to the power i."
    ),
];

/// The table entry for field `name`.
pub fn field(name: &str) -> Option<&'static FieldSpec> {
    let name = FIELD_ALIASES.iter().find(|(old, _)| *old == name).map_or(name, |(_, now)| now);
    FIELDS.iter().find(|f| f.name == name)
}

/// Old field names that still read (in `.tres` files, `set_field` and Godot's `set`), each with
/// the field it names now: `height_simplex_weight` was always OpenSimplex.
pub const FIELD_ALIASES: &[(&str, &str)] = &[("height_simplex_weight", "height_open_simplex_weight")];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_preset_is_valid() {
        WorldPreset::default().validate().unwrap();
    }

    /// Every field explains itself to a designer: a sentence, a unit for numbers, the range.
    #[test]
    fn every_field_has_a_doc_with_unit_and_range() {
        const UNITS: &[&str] =
            &["voxels", "tiles", "count", "ratio", "weight", "fraction", "probability", "factor", "integer"];
        for f in FIELDS {
            assert!(f.doc.len() >= 12 && f.doc.ends_with('.'), "{}: doc must be a sentence: {:?}", f.name, f.doc);
            if matches!(f.kind, FieldKind::Int { .. } | FieldKind::Float { .. }) {
                let doc = f.doc.to_lowercase();
                assert!(UNITS.iter().any(|u| doc.contains(u)), "{}: doc names no unit: {:?}", f.name, f.doc);
            }
            let help = f.help();
            assert!(help.starts_with(f.doc) && help.contains(&f.allowed()), "{}: {help}", f.name);
        }
        let f = field("height_octaves").unwrap();
        assert!(f.help().ends_with("Allowed: an integer in 1..=12. Default: 8."), "{}", f.help());
        let f = field("caves_mode").unwrap();
        assert!(f.help().ends_with("Allowed: one of None, CellularAutomata, GameOfLife. Default: CellularAutomata."));
        assert_eq!(field("seed").unwrap().allowed(), "any 64-bit integer");
    }

    /// Groups are contiguous and in the order a designer works: the world, its terrain, then
    /// what fills it, then the 2D settings.
    #[test]
    fn groups_come_in_designer_order() {
        let mut groups: Vec<&str> = Vec::new();
        for f in FIELDS {
            if groups.last() != Some(&f.group) {
                assert!(!groups.contains(&f.group), "group {} is split at {}", f.group, f.name);
                groups.push(f.group);
            }
        }
        assert_eq!(groups, ["World", "Height", "Biomes", "Caves", "Ores", "Water", "Scatter", "SideView"]);
    }

    #[test]
    fn every_field_round_trips_through_the_table() {
        let mut p = WorldPreset::default();
        for f in FIELDS {
            let v = (f.get)(&p);
            p.set_field(f.name, v.clone()).unwrap();
            assert_eq!((f.get)(&p), v, "{}", f.name);
        }
        assert_eq!(p, WorldPreset::default());
        let names: std::collections::HashSet<_> = FIELDS.iter().map(|f| f.name).collect();
        assert_eq!(names.len(), FIELDS.len(), "duplicate field names");
    }

    #[test]
    fn out_of_range_values_name_the_field_and_range() {
        let mut p = WorldPreset::default();
        let e = p.set_field("height_octaves", FieldValue::Int(0)).unwrap_err();
        assert_eq!(e.field, "height_octaves");
        assert!(e.to_string().contains("1..=12"), "{e}");
        let e = p.set_field("height_octaves", FieldValue::Int(1000)).unwrap_err();
        assert!(e.problem.contains("1000"));
        let e = p.set_field("height_amplitude", FieldValue::Float(f64::NAN)).unwrap_err();
        assert!(e.problem.contains("finite"));
        assert_eq!(p, WorldPreset::default(), "failed sets change nothing");
        p.set_field("caves_mode", FieldValue::Text("gameoflife".into())).unwrap();
        assert_eq!(p.caves.mode, CaveMode::GameOfLife);
        p.height.octaves = 0;
        assert_eq!(p.validate().unwrap_err().field, "height_octaves");
    }

    #[test]
    fn life_rules_parse() {
        assert_eq!(parse_life_rule("B3/S23").unwrap(), (1 << 3, (1 << 2) | (1 << 3)));
        assert_eq!(parse_life_rule("B13,14/S12,13").unwrap(), ((1 << 13) | (1 << 14), (1 << 12) | (1 << 13)));
        assert!(parse_life_rule("B3S23").is_err());
        assert!(parse_life_rule("B3/S2,99").is_err());
        assert!(parse_life_rule("B3/Sx").is_err());
        assert_eq!(parse_life_rule("B14-16/S3,13-14").unwrap(), (0b111 << 14, (1 << 3) | (0b11 << 13)));
        assert!(parse_life_rule("B16-14/S1").is_err());
        assert!(parse_life_rule("B14-27/S1").is_err());
    }

    #[test]
    fn every_number_refuses_non_finite_values_by_name() {
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            for f in FIELDS.iter().filter(|f| matches!(f.kind, FieldKind::Float { .. })) {
                let mut p = WorldPreset::default();
                (f.set)(&mut p, FieldValue::Float(bad));
                let e = p.validate().unwrap_err();
                assert_eq!(e.field, f.name);
                assert!(
                    e.problem.ends_with("is not a finite number") && e.allowed.starts_with("a finite number in"),
                    "{e}"
                );
            }
            for i in 0..9 {
                let mut p = WorldPreset::default();
                let b = &mut p.biomes.table[2];
                let slot = match i {
                    0..3 => &mut b.color[i],
                    3 => &mut b.height_offset,
                    4 => &mut b.height_scale,
                    5 => &mut b.tree_density,
                    6 => &mut b.flower_density,
                    7 => &mut b.temperature,
                    _ => &mut b.moisture,
                };
                *slot = bad as f32;
                let e = p.validate().unwrap_err();
                assert!(e.field.starts_with("biomes.table[2]."), "{e}");
                assert!(e.problem.ends_with("is not a finite number"), "{e}");
            }
        }
    }

    #[test]
    fn messages_show_values_as_a_designer_writes_them() {
        let mut p = WorldPreset::default();
        p.biomes.table[1].color[1] = f32::NAN;
        assert_eq!(
            p.validate().unwrap_err().to_string(),
            "field `biomes.table[1].color[1]`: NaN is not a finite number; allowed: a finite number in 0..=1"
        );
        p.biomes.table[1].color[1] = 1.5;
        assert_eq!(
            p.validate().unwrap_err().to_string(),
            "field `biomes.table[1].color[1]`: 1.5 is out of range; allowed: a finite number in 0..=1"
        );
        let e = p.set_field("height_persistence", FieldValue::Float(2.5)).unwrap_err();
        assert_eq!(e.to_string(), "field `height_persistence`: 2.5 is out of range; allowed: a finite number in 0..=1");
        let e = p.set_field("height_octaves", FieldValue::Text("x".into())).unwrap_err();
        assert_eq!(
            e.to_string(),
            "field `height_octaves`: \"x\" is text, the wrong kind of value; allowed: an integer in 1..=12"
        );
        let e = p.set_field("height_persistence", FieldValue::Bool(true)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "field `height_persistence`: true is a true/false value, the wrong kind of value; allowed: a finite number in 0..=1"
        );
        let e = p.set_field("caves_mode", FieldValue::Text("Lava".into())).unwrap_err();
        assert_eq!(
            e.to_string(),
            "field `caves_mode`: \"Lava\" is not an option; allowed: one of None, CellularAutomata, GameOfLife"
        );
        let e = p.set_field("height_amplitude", FieldValue::Float(f64::INFINITY)).unwrap_err();
        assert_eq!(e.problem, "inf is not a finite number");
        p.height.persistence = 0.3;
        assert_eq!(number_text(p.height.persistence as f64), "0.3");
        for (v, shown) in [
            (FieldValue::Int(-2), "-2"),
            (FieldValue::Float(2.5), "2.5"),
            (FieldValue::Bool(false), "false"),
            (FieldValue::Text("a\"b\n".into()), "\"a\\\"b\\n\""),
        ] {
            assert_eq!(v.to_string(), shown);
        }
    }

    #[test]
    fn biome_rows_are_checked_by_row_field_and_name() {
        let check = |edit: &dyn Fn(&mut Biome)| {
            let mut p = WorldPreset::default();
            edit(&mut p.biomes.table[3]);
            p.validate().unwrap_err()
        };
        let e = check(&|b| b.shore_block = "lava".into());
        assert_eq!(e.field, "biomes.table[3].shore_block");
        assert_eq!(e.problem, "unknown block `lava` in biome `mountains`");
        assert!(e.allowed.contains("grass") && e.allowed.contains("planks"), "{e}");
        let e = check(&|b| {
            b.temperature_min = 0.8;
            b.temperature_max = 0.5;
        });
        assert_eq!(
            e.to_string(),
            "field `biomes.table[3].temperature_min`: 0.8 is above temperature_max 0.5; allowed: temperature_min <= temperature_max"
        );
        let e = check(&|b| b.moisture_max = -0.5);
        assert_eq!(e.field, "biomes.table[3].moisture_max");
        let rule = ScatterRule { kind: "cactus".into(), density: 0.1, ..ScatterRule::default() };
        let e = check(&|b| b.scatter = Some(vec![ScatterRule::default(), rule.clone()]));
        assert_eq!(e.field, "biomes.table[3].scatter[1].kind");
        assert_eq!(e.problem, "unknown scatter kind `cactus` in biome `mountains`");
        assert_eq!(e.allowed, "one of tree, bush, flower, rock");
        let e = check(&|b| b.scatter = Some(vec![ScatterRule { density: 2.0, ..ScatterRule::default() }]));
        assert_eq!(e.field, "biomes.table[3].scatter[0].density");
        let e = check(&|b| b.scatter = Some(vec![ScatterRule::default(); MAX_SCATTER_RULES + 1]));
        assert_eq!(e.field, "biomes.table[3].scatter");
        // The library decides which names exist: planks is a block of the default library.
        let mut p = WorldPreset::default();
        p.biomes.table[0].surface_block = "planks".into();
        p.validate().unwrap();
    }

    #[test]
    fn rows_written_before_the_biome_fields_load_and_new_fields_are_written_only_when_set() {
        let text = crate::preset::ron::preset_to_ron(&WorldPreset::default());
        for new_field in ["cliff_block", "shore_block", "temperature_min", "moisture_max", "scatter: ["] {
            assert!(!text.contains(new_field), "{new_field} written at its default");
        }
        let old_row = "[(name: \"old\", surface_block: \"snow\", subsurface_block: \"dirt\", tree_density: 0.3)]";
        let rows: Vec<Biome> = ron::from_str(old_row).unwrap();
        assert_eq!((rows[0].cliff_block.as_str(), rows[0].scatter.as_ref()), ("stone", None));
        assert_eq!((rows[0].temperature_min, rows[0].temperature_max), (0.0, 1.0));
        let new_row =
            "[(name: \"new\", temperature_max: 0.4, scatter: [(kind: \"rock\", density: 0.5, placement: Groves)])]";
        let rows: Vec<Biome> = ron::from_str(new_row).unwrap();
        let scatter = rows[0].scatter.clone().unwrap();
        assert_eq!((scatter[0].kind.as_str(), scatter[0].placement), ("rock", ScatterPlacement::Groves));
        let mut p = WorldPreset::default();
        p.biomes.table = rows;
        let back = crate::preset::ron::preset_from_ron(&crate::preset::ron::preset_to_ron(&p), "x.ron").unwrap();
        assert_eq!(back, p);
        let text = crate::preset::ron::preset_to_ron(&p);
        assert!(text.contains("scatter: [") && !text.contains("Some("), "a plain list, no Some(...): {text}");
    }
}
