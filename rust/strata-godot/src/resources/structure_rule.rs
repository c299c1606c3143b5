//! `StrataStructureRule` (Resource): where one kind of structure stands, as designer data; the Godot
//! face of `strata_core::preset::model::StructureRule`. `StrataWorldPreset.structure_rules` puts the
//! rules into a world; the preset's `validate()` names a bad rule by index, field, value and
//! what is allowed.
//!
//! May use: `strata_core::preset` (the rule and its checks).

use godot::classes::{IResource, Resource};
use godot::prelude::*;
use strata_core::preset::model::{StructurePlacement, StructureRule as CoreRule};

/// One kind of structure and where it stands: the world is cut into square cells of `spacing`
/// voxels, and a cell holds one such structure with probability `chance`, at a hashed place and
/// quarter turn inside the cell (a pure function of seed, rule and cell: every machine places it
/// alike, and it crosses chunk borders whole).
#[derive(GodotClass)]
#[class(tool, base = Resource, rename = StrataStructureRule)]
pub struct StructureRule {
    base: Base<Resource>,
    /// The structure's name: one of the shipped structures (`cottage`, `ruin`, `crypt`) or of
    /// the world's own.
    #[export]
    structure: GString,
    /// Names of the biomes it may stand in (at its centre); empty: every biome.
    #[export]
    biomes: PackedStringArray,
    /// Surface: on the ground, never under the sea. Underground: buried in the rock. Cave
    /// (side-view worlds only): on the floor of the first cave between `depth_min` and
    /// `depth_max` below the surface; a 3D world refuses it.
    #[export(enum = (Surface = 0, Underground = 1, Cave = 2))]
    placement: i32,
    /// Edge of a placement cell, in voxels (16–4096, at least the structure's width): at most
    /// one of these structures per cell.
    #[export(range = (16.0, 4096.0, 1.0))]
    spacing: i32,
    /// Probability that a cell holds one (0–1).
    #[export(range = (0.0, 1.0, 0.01))]
    chance: f32,
    /// Surface: how deep its bottom sits below the ground at its centre, voxels (0–32).
    #[export(range = (0.0, 32.0, 1.0))]
    sink: i32,
    /// Underground: the least depth of its top below the surface, voxels (0–1024).
    #[export(range = (0.0, 1024.0, 1.0))]
    depth_min: i32,
    /// Underground: the greatest depth of its top below the surface, voxels (0–1024).
    #[export(range = (0.0, 1024.0, 1.0))]
    depth_max: i32,
    /// A scene (`.tscn`/`.scn`, root a `Node3D`) that starts on the floor at the centre of each
    /// such structure, as an entity of the world (a chest in a crypt); empty: none.
    #[export(file = "*.tscn,*.scn")]
    entity: GString,
}

#[godot_api]
impl IResource for StructureRule {
    fn init(base: Base<Resource>) -> Self {
        let mut rule = Self {
            base,
            structure: GString::new(),
            biomes: PackedStringArray::new(),
            placement: 0,
            spacing: 0,
            chance: 0.0,
            sink: 0,
            depth_min: 0,
            depth_max: 0,
            entity: GString::new(),
        };
        rule.set_core(&CoreRule::default());
        rule
    }
}

#[godot_api]
impl StructureRule {
    /// `placement`: on the ground, never under the sea.
    #[constant]
    pub const PLACEMENT_SURFACE: i64 = 0;
    /// `placement`: buried in the rock.
    #[constant]
    pub const PLACEMENT_UNDERGROUND: i64 = 1;
    /// `placement`: on a cave floor (side-view worlds only).
    #[constant]
    pub const PLACEMENT_CAVE: i64 = 2;

    /// A new rule placing `structure` on the surface, one per `spacing`² voxels with
    /// probability `chance`.
    #[func]
    fn create(structure: GString, spacing: i32, chance: f32) -> Gd<StructureRule> {
        let mut gd = StructureRule::new_gd();
        {
            let mut r = gd.bind_mut();
            r.structure = structure;
            r.spacing = spacing;
            r.chance = chance;
        }
        gd
    }
}

impl StructureRule {
    /// The core rule of these settings (checked by the preset's validation, not here).
    pub fn core(&self) -> CoreRule {
        CoreRule {
            structure: self.structure.to_string(),
            biomes: self.biomes.as_slice().iter().map(|s| s.to_string()).collect(),
            placement: match self.placement {
                1 => StructurePlacement::Underground,
                2 => StructurePlacement::Cave,
                _ => StructurePlacement::Surface,
            },
            spacing: self.spacing,
            chance: self.chance,
            sink: self.sink,
            depth_min: self.depth_min,
            depth_max: self.depth_max,
            entity: self.entity.to_string(),
        }
    }

    fn set_core(&mut self, r: &CoreRule) {
        self.structure = GString::from(r.structure.as_str());
        self.biomes = r.biomes.iter().map(|s| GString::from(s.as_str())).collect();
        self.placement = match r.placement {
            StructurePlacement::Surface => 0,
            StructurePlacement::Underground => 1,
            StructurePlacement::Cave => 2,
        };
        self.spacing = r.spacing;
        self.chance = r.chance;
        self.sink = r.sink;
        self.depth_min = r.depth_min;
        self.depth_max = r.depth_max;
        self.entity = GString::from(r.entity.as_str());
    }

    /// A resource holding `r`.
    pub fn from_core(r: &CoreRule) -> Gd<StructureRule> {
        let mut gd = StructureRule::new_gd();
        gd.bind_mut().set_core(r);
        gd
    }
}
