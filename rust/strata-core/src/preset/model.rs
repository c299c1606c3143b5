//! `WorldPreset`: every setting that shapes a world, as plain data (serde), with the defaults.
//!
//! Seed + preset fully determine the world. The scalar settings are described once, in the
//! field table ([`crate::preset::fields`]); the checks of a whole preset are in
//! [`crate::preset::validation`]. This file re-exports the names of the field table and of the
//! Life-rule parser ([`crate::preset::life_rule`]) as `preset::model::…`, the paths other crates
//! use; inside the crate, code imports them from the file that defines them.
//!
//! May use: `base`. Defines only data: it uses no other file of `preset` (the re-exports are
//! not uses).

use serde::{Deserialize, Serialize};

pub use crate::preset::fields::{
    FIELD_ALIASES, FIELDS, FieldError, FieldKind, FieldSpec, FieldValue, SIMPLEX_RADIUS_SQUARED_FIELD, field,
    is_simplex_radius_squared, number_text,
};
pub use crate::preset::life_rule::{LifeRuleError, parse_life_rule};

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
    /// Trees grown of the world's own blocks ([`crate::gen3d::trees`]). Off by default, and
    /// written only when it differs from the default, so presets without it keep their files,
    /// worlds and fingerprints.
    #[serde(skip_serializing_if = "TreeSettings::is_default")]
    pub trees: TreeSettings,
}

/// Trees of the world's blocks: species as data, placed like structures (one tree at most per
/// square cell of `spacing` voxels, a pure function of seed and cell). Where a species grows,
/// the scatter places no mesh trees.
///
/// A cell holds a tree with probability `tree_density · density · 2g · fade`, clamped to 1:
/// `tree_density` is the biome's row at the tree's column, `g` the scatter's grove noise (so
/// forests gather in groves and clear into the meadows where the scatter's flowers stand), and
/// `fade` the climate's moisture there, 0 below `dry_moisture`, 1 from `wet_moisture` up,
/// smooth between (forests thin out towards dry land). The species is drawn
/// among those with a weight in that biome, in proportion to their weights.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TreeSettings {
    pub enabled: bool,
    /// Edge of a tree cell, voxels (3..=64): at most one tree per cell.
    pub spacing: i32,
    /// Multiplies every biome's `tree_density` (0..=4).
    pub density: f32,
    /// Climate moisture below which no tree grows (0..=1, at most `wet_moisture`).
    pub dry_moisture: f32,
    /// Climate moisture from which trees grow at the full density (0..=1).
    pub wet_moisture: f32,
    /// The species, at most [`MAX_TREE_SPECIES`].
    pub species: Vec<TreeSpecies>,
}

/// Most species in one preset.
pub const MAX_TREE_SPECIES: usize = 32;

impl Default for TreeSettings {
    fn default() -> Self {
        Self {
            enabled: false,
            spacing: 5,
            density: 1.0,
            dry_moisture: 0.25,
            wet_moisture: 0.55,
            species: default_tree_species(),
        }
    }
}

impl TreeSettings {
    /// Equal to the default: left out of files.
    pub fn is_default(&self) -> bool {
        *self == Self::default()
    }

    /// Whether block trees grow in biome `name`: trees on, and some species weighs it.
    pub fn grow_in(&self, biome: &str) -> bool {
        self.enabled && self.species.iter().any(|s| s.weight_in(biome) > 0.0)
    }
}

/// The shape of a species' crown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CrownShape {
    /// A round ball of leaves around the top of the trunk, branches ending in small balls (oak).
    Round,
    /// A narrow crown taller than it is wide on a tall trunk (birch, poplar).
    Tall,
    /// Layers of leaves narrowing to a point, every other layer drawn in (spruce, pine).
    Conical,
    /// A flat, wide disc on a trunk that bends to one side, branches with discs of their own
    /// (acacia).
    Flat,
    /// No leaves: the trunk and its branches (cactus, dead bush).
    Bare,
}

impl CrownShape {
    pub const NAMES: [&'static str; 5] = ["Round", "Tall", "Conical", "Flat", "Bare"];
}

/// One species' weight in one biome.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SpeciesWeight {
    /// A name of the preset's biome table.
    pub biome: String,
    /// Share of the biome's trees, relative to the other species' weights there (0..=100).
    pub weight: f32,
}

impl Default for SpeciesWeight {
    fn default() -> Self {
        Self { biome: String::new(), weight: 1.0 }
    }
}

/// A kind of tree: its blocks, the ranges its trees are drawn from and where it grows. Each tree
/// draws its trunk height, crown radius, branch count and lean from these ranges (inclusive) by a
/// hash of seed, species and position.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TreeSpecies {
    pub name: String,
    /// Block name of the trunk and branches.
    pub log_block: String,
    /// Block name of the leaves (unused by `Bare` crowns). Leaves fill only air.
    pub leaves_block: String,
    pub crown: CrownShape,
    /// Trunk height, voxels (1..=32, min <= max).
    pub trunk_height_min: i32,
    pub trunk_height_max: i32,
    /// Crown radius, voxels (0..=8, min <= max).
    pub crown_radius_min: i32,
    pub crown_radius_max: i32,
    /// Branches off the trunk (0..=8, min <= max).
    pub branches_min: i32,
    pub branches_max: i32,
    /// Most voxels the trunk's top leans to one side (0..=8).
    pub lean_max: i32,
    /// Where it grows: biome names and weights.
    pub biomes: Vec<SpeciesWeight>,
}

impl Default for TreeSpecies {
    fn default() -> Self {
        Self {
            name: "oak".into(),
            log_block: "log".into(),
            leaves_block: "leaves".into(),
            crown: CrownShape::Round,
            trunk_height_min: 4,
            trunk_height_max: 6,
            crown_radius_min: 2,
            crown_radius_max: 3,
            branches_min: 0,
            branches_max: 2,
            lean_max: 0,
            biomes: Vec::new(),
        }
    }
}

impl TreeSpecies {
    /// The species' weight in biome `name` (0 where it does not grow).
    pub fn weight_in(&self, name: &str) -> f32 {
        self.biomes.iter().filter(|w| w.biome == name).map(|w| w.weight).sum()
    }
}

/// The shipped species: oak, birch, spruce and acacia, of the default library's `log` and
/// `leaves`, weighted over the shipped biome table.
pub fn default_tree_species() -> Vec<TreeSpecies> {
    let w = |pairs: &[(&str, f32)]| -> Vec<SpeciesWeight> {
        pairs.iter().map(|(b, weight)| SpeciesWeight { biome: (*b).into(), weight: *weight }).collect()
    };
    vec![
        TreeSpecies { name: "oak".into(), biomes: w(&[("forest", 1.0), ("plains", 1.0)]), ..TreeSpecies::default() },
        TreeSpecies {
            name: "birch".into(),
            crown: CrownShape::Tall,
            trunk_height_min: 6,
            trunk_height_max: 9,
            crown_radius_min: 1,
            crown_radius_max: 2,
            branches_min: 0,
            branches_max: 0,
            biomes: w(&[("forest", 0.6), ("plains", 0.3)]),
            ..TreeSpecies::default()
        },
        TreeSpecies {
            name: "spruce".into(),
            crown: CrownShape::Conical,
            trunk_height_min: 7,
            trunk_height_max: 11,
            crown_radius_min: 2,
            crown_radius_max: 3,
            branches_min: 0,
            branches_max: 0,
            biomes: w(&[("taiga", 1.0), ("tundra", 1.0), ("mountains", 1.0), ("forest", 0.3)]),
            ..TreeSpecies::default()
        },
        TreeSpecies {
            name: "acacia".into(),
            crown: CrownShape::Flat,
            trunk_height_min: 4,
            trunk_height_max: 6,
            crown_radius_min: 2,
            crown_radius_max: 3,
            branches_min: 0,
            branches_max: 1,
            lean_max: 2,
            biomes: w(&[("plains", 0.5), ("badlands", 1.0), ("forest", 0.15)]),
            ..TreeSpecies::default()
        },
    ]
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
    /// Buried: inside solid ground (a chest to dig up), between `depth_min` and `depth_max` voxels
    /// (side view: tiles) below the column's surface.
    Underground,
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
    /// and water objects ignore it; cave and underground objects start within it.
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
}

/// Where a [`StructureRule`] puts its structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum StructurePlacement {
    /// On the ground: its bottom `sink` voxels below the surface at its centre, never under the
    /// sea.
    Surface,
    /// Buried: its top between `depth_min` and `depth_max` voxels below the surface at its centre.
    Underground,
    /// Side-view worlds only: on the floor of the first cave between `depth_min` and
    /// `depth_max` tiles below the surface at its centre, `sink` tiles into the floor
    /// ([`crate::gen2d::structures`]). A 3D world refuses it.
    Cave,
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
    /// Farthest a position is moved before its biome is looked up, per axis, in voxels
    /// ([`crate::gen3d::biomes`]: domain warping); 0 keeps the cells' straight edges.
    pub warp_strength: f32,
    /// Wavelength of the warp's largest octave, in voxels; each further octave halves it.
    pub warp_scale: f32,
    /// Width of the zone where the surface blocks of two neighbouring biomes mix, in voxels
    /// (dithered by a hash of the column); 0 switches at the border.
    pub transition_width: f32,
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
            warp_strength: 192.0,
            warp_scale: 256.0,
            transition_width: 12.0,
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
            trees: TreeSettings::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn tree_settings_are_written_only_when_changed_and_round_trip() {
        use crate::preset::fingerprint::{fingerprint, preset_from_sparse_ron, preset_to_sparse_ron};
        use crate::preset::ron::{preset_from_ron, preset_to_ron};
        let p = WorldPreset::default();
        assert!(!preset_to_ron(&p).contains("trees: ("), "default trees are left out of files");
        let mut q = p.clone();
        q.trees.enabled = true;
        q.trees.species[0].biomes.push(SpeciesWeight { biome: "taiga".into(), weight: 0.2 });
        let text = preset_to_ron(&q);
        assert!(text.contains("trees: (") && text.contains("crown: Conical"), "{text}");
        assert_eq!(preset_from_ron(&text, "t.ron").unwrap(), q);
        assert_eq!(preset_from_sparse_ron(&preset_to_sparse_ron(&q), "s").unwrap(), q);
        // A world that grows trees is another world; the default one keeps its name.
        assert_ne!(fingerprint(&q), fingerprint(&p));
        let mut r = q.clone();
        r.trees.species[2].crown = CrownShape::Round;
        assert_ne!(fingerprint(&r), fingerprint(&q));
        // A world code carries them too.
        let code = crate::preset::world_code::encode_world_code(&q, "", &p).unwrap();
        let lookup = |name: &str| name.is_empty().then(WorldPreset::default);
        assert_eq!(crate::preset::world_code::preset_from_world_code(&code, lookup, &[""]).unwrap(), q);
        // A file written before trees existed reads with them off.
        let old = "(format: \"strata-preset\", version: 2, preset: (name: \"old\", seed: 3))";
        assert!(!preset_from_ron(old, "old.ron").unwrap().trees.enabled);
    }
}
