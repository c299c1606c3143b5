//! `StrataSpawnRule` (Resource): where one kind of the game's objects starts, as designer data; the
//! Godot face of `strata_core::preset::model::SpawnRule`. `StrataWorldPreset.spawn_rules` puts the
//! rules into a world; the preset's `validate()` names a bad rule by index, field, value and what
//! is allowed.
//!
//! May use: `strata_core::preset` (the rule and its checks).

use godot::classes::{IResource, Resource};
use godot::prelude::*;
use strata_core::preset::model::{SpawnHabitat, SpawnRule as CoreRule};

/// One kind of object from the game's own library (a scene) and where it starts. Per chunk,
/// `density` clusters on average, each of up to `cluster_size` members within `cluster_spread`
/// voxels of its centre and at least `min_spacing` apart, where the biome, habitat, depth and
/// light allow: a pure function of seed, rule and chunk, so every machine and every run starts the
/// same objects. `StrataChunkWorld` instances them when their chunk comes within `entity_distance`;
/// `StrataChunkWorld2D` reads the same rule in tiles (y down, no biomes) and instances them when
/// their chunk streams in.
#[derive(GodotClass)]
#[class(tool, base = Resource, rename = StrataSpawnRule)]
pub struct SpawnRule {
    base: Base<Resource>,
    /// The scene to instance (`res://…`, `.tscn` or `.scn`); its root must be a `Node3D` (a
    /// `Node2D` in a side-view world).
    #[export(file = "*.tscn,*.scn")]
    scene: GString,
    /// Names of the biomes it may start in; empty: every biome.
    #[export]
    biomes: PackedStringArray,
    /// Surface: on dry ground under the sky. Cave: on a cave floor between `depth_min` and
    /// `depth_max` below the surface. Water: in water. Underground: buried in solid ground
    /// between `depth_min` and `depth_max` below the surface (a chest to dig up).
    #[export(enum = (Surface = 0, Cave = 1, Water = 2, Underground = 3))]
    habitat: i32,
    /// Cave and Underground: the least depth below the column's surface, voxels (side view:
    /// tiles; 0–4096).
    #[export(range = (0.0, 4096.0, 1.0))]
    depth_min: i32,
    /// Cave and Underground: the greatest depth below the column's surface, voxels (side view:
    /// tiles; 0–4096).
    #[export(range = (0.0, 4096.0, 1.0))]
    depth_max: i32,
    /// Clusters per chunk on average (0–16).
    #[export(range = (0.0, 16.0, 0.05))]
    density: f32,
    /// Most members of one cluster (1–32).
    #[export(range = (1.0, 32.0, 1.0))]
    cluster_size: i32,
    /// Greatest distance of a member from its cluster's centre, voxels (0–32).
    #[export(range = (0.0, 32.0, 0.5))]
    cluster_spread: f32,
    /// Least distance between two members in one chunk, voxels (0–32).
    #[export(range = (0.0, 32.0, 0.5))]
    min_spacing: f32,
    /// The least combined light (sky or block, 0–15) of the voxel it starts in.
    #[export(range = (0.0, 15.0, 1.0))]
    light_min: i32,
    /// The greatest combined light (0–15) of the voxel it starts in.
    #[export(range = (0.0, 15.0, 1.0))]
    light_max: i32,
}

#[godot_api]
impl IResource for SpawnRule {
    fn init(base: Base<Resource>) -> Self {
        let mut rule = Self {
            base,
            scene: GString::new(),
            biomes: PackedStringArray::new(),
            habitat: 0,
            depth_min: 0,
            depth_max: 0,
            density: 0.0,
            cluster_size: 1,
            cluster_spread: 0.0,
            min_spacing: 0.0,
            light_min: 0,
            light_max: 15,
        };
        rule.set_core(&CoreRule::default());
        rule
    }
}

#[godot_api]
impl SpawnRule {
    /// `habitat`: on dry ground under the sky.
    #[constant]
    pub const HABITAT_SURFACE: i64 = 0;
    /// `habitat`: on a cave floor between `depth_min` and `depth_max` below the surface.
    #[constant]
    pub const HABITAT_CAVE: i64 = 1;
    /// `habitat`: in water.
    #[constant]
    pub const HABITAT_WATER: i64 = 2;
    /// `habitat`: buried in solid ground between `depth_min` and `depth_max` below the surface.
    #[constant]
    pub const HABITAT_UNDERGROUND: i64 = 3;

    /// A new rule starting `density` clusters of `scene` per chunk on the surface.
    #[func]
    fn create(scene: GString, density: f32) -> Gd<SpawnRule> {
        let mut gd = SpawnRule::new_gd();
        {
            let mut r = gd.bind_mut();
            r.scene = scene;
            r.density = density;
        }
        gd
    }
}

impl SpawnRule {
    /// The core rule of these settings (checked by the preset's validation, not here; values
    /// outside a number type's range become out-of-range values that validation names).
    pub fn core(&self) -> CoreRule {
        CoreRule {
            scene: self.scene.to_string(),
            biomes: self.biomes.as_slice().iter().map(|s| s.to_string()).collect(),
            habitat: match self.habitat {
                1 => SpawnHabitat::Cave,
                2 => SpawnHabitat::Water,
                3 => SpawnHabitat::Underground,
                _ => SpawnHabitat::Surface,
            },
            depth_min: self.depth_min,
            depth_max: self.depth_max,
            density: self.density,
            cluster_size: u32::try_from(self.cluster_size).unwrap_or(0),
            cluster_spread: self.cluster_spread,
            min_spacing: self.min_spacing,
            light_min: u8::try_from(self.light_min).unwrap_or(u8::MAX),
            light_max: u8::try_from(self.light_max).unwrap_or(u8::MAX),
        }
    }

    fn set_core(&mut self, r: &CoreRule) {
        self.scene = GString::from(r.scene.as_str());
        self.biomes = r.biomes.iter().map(|s| GString::from(s.as_str())).collect();
        self.habitat = match r.habitat {
            SpawnHabitat::Surface => 0,
            SpawnHabitat::Cave => 1,
            SpawnHabitat::Water => 2,
            SpawnHabitat::Underground => 3,
        };
        self.depth_min = r.depth_min;
        self.depth_max = r.depth_max;
        self.density = r.density;
        self.cluster_size = r.cluster_size as i32;
        self.cluster_spread = r.cluster_spread;
        self.min_spacing = r.min_spacing;
        self.light_min = i32::from(r.light_min);
        self.light_max = i32::from(r.light_max);
    }

    /// A resource holding `r`.
    pub fn from_core(r: &CoreRule) -> Gd<SpawnRule> {
        let mut gd = SpawnRule::new_gd();
        gd.bind_mut().set_core(r);
        gd
    }
}
