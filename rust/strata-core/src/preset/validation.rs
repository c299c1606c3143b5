//! The checks of a whole [`WorldPreset`]: every field of the table ([`FIELDS`]) against its range,
//! then the rules between fields and the rows of its tables (biomes, ores, structure and spawn
//! rules), each error naming the field, the value and what is allowed (law: Clear errors).
//!
//! May use: `base` and `preset::model`, `preset::fields`, `preset::life_rule`.

use crate::base::block_library::{BlockLibrary, default_library};
use crate::preset::fields::{FIELDS, FieldError, number_problem, number_text};
use crate::preset::life_rule::parse_life_rule;
use crate::preset::model::{
    Biome, CaveMode, MAX_SCATTER_RULES, MAX_SPAWN_RULES, MAX_TREE_SPECIES, ScatterKind, SpawnRule, StructureRule,
    TreeSettings, WorldPreset,
};

impl WorldPreset {
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
        validate_trees(&self.trees, self, library)
    }
}

/// Checks the tree settings: the numbers, every species' ranges, block names against `library`
/// and biome names against the preset's table (law: Clear errors). Names are checked only while
/// trees are on: the default species name the shipped biomes and blocks, which a preset with
/// its own table or library that leaves trees off need not have.
fn validate_trees(t: &TreeSettings, preset: &WorldPreset, library: &BlockLibrary) -> Result<(), FieldError> {
    let err = |field: String, problem: String, allowed: String| FieldError { field, problem, allowed };
    if !(3..=64).contains(&t.spacing) {
        return Err(err("trees.spacing".into(), format!("{} voxels", t.spacing), "3..=64 voxels".into()));
    }
    for (what, v, hi) in
        [("density", t.density, 4.0), ("dry_moisture", t.dry_moisture, 1.0), ("wet_moisture", t.wet_moisture, 1.0)]
    {
        if let Some(problem) = number_problem(v as f64, 0.0, hi) {
            return Err(err(format!("trees.{what}"), problem, format!("a finite number in 0..={}", number_text(hi))));
        }
    }
    if t.dry_moisture > t.wet_moisture {
        return Err(err(
            "trees.dry_moisture".into(),
            format!(
                "{} is above wet_moisture {}",
                number_text(t.dry_moisture as f64),
                number_text(t.wet_moisture as f64)
            ),
            "dry_moisture <= wet_moisture".into(),
        ));
    }
    if t.species.len() > MAX_TREE_SPECIES {
        return Err(err(
            "trees.species".into(),
            format!("{} species", t.species.len()),
            format!("at most {MAX_TREE_SPECIES}"),
        ));
    }
    for (i, s) in t.species.iter().enumerate() {
        let field = |what: &str| format!("trees.species[{i}].{what}");
        if s.name.trim().is_empty() {
            return Err(err(field("name"), "empty".into(), "a name such as oak".into()));
        }
        if let Some(j) = t.species[..i].iter().position(|o| o.name == s.name) {
            return Err(err(
                field("name"),
                format!("`{}` again (species {j})", s.name),
                "a name no other species has".into(),
            ));
        }
        let with_leaves = s.crown != crate::preset::model::CrownShape::Bare;
        for (what, name, needed) in [("log_block", &s.log_block, true), ("leaves_block", &s.leaves_block, with_leaves)]
        {
            if t.enabled && needed && library.id_of(name).is_none() {
                return Err(err(
                    field(what),
                    format!("unknown block `{name}` in species `{}`", s.name),
                    block_names(library),
                ));
            }
        }
        for (what, lo, hi, min, max) in [
            ("trunk_height", s.trunk_height_min, s.trunk_height_max, 1, 32),
            ("crown_radius", s.crown_radius_min, s.crown_radius_max, 0, 8),
            ("branches", s.branches_min, s.branches_max, 0, 8),
        ] {
            if !(min..=max).contains(&lo) || !(min..=max).contains(&hi) || lo > hi {
                return Err(err(
                    field(&format!("{what}_min")),
                    format!("{lo}..{hi} in species `{}`", s.name),
                    format!("{min} <= {what}_min <= {what}_max <= {max}"),
                ));
            }
        }
        if !(0..=8).contains(&s.lean_max) {
            return Err(err(
                field("lean_max"),
                format!("{} voxels in species `{}`", s.lean_max, s.name),
                "0..=8 voxels".into(),
            ));
        }
        for (j, w) in s.biomes.iter().enumerate() {
            if let Some(problem) = number_problem(w.weight as f64, 0.0, 100.0) {
                return Err(err(field(&format!("biomes[{j}].weight")), problem, "a finite number in 0..=100".into()));
            }
            let known = !t.enabled || !preset.biomes.enabled || preset.biomes.table.iter().any(|b| b.name == w.biome);
            if !known {
                let names: Vec<&str> = preset.biomes.table.iter().map(|b| b.name.as_str()).collect();
                return Err(err(
                    field(&format!("biomes[{j}].biome")),
                    format!("unknown biome `{}` in species `{}`", w.biome, s.name),
                    format!("names of the preset's biome table ({})", names.join(", ")),
                ));
            }
        }
    }
    Ok(())
}

impl SpawnRule {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preset::fields::{FieldKind, FieldValue};
    use crate::preset::model::ScatterRule;

    #[test]
    fn default_preset_is_valid() {
        WorldPreset::default().validate().unwrap();
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
    fn tree_species_are_checked_by_field_value_and_allowed() {
        use crate::preset::model::{CrownShape, SpeciesWeight, TreeSpecies};
        let mut on = WorldPreset::default();
        on.trees.enabled = true;
        on.validate().unwrap();
        type Edit = Box<dyn Fn(&mut WorldPreset)>;
        let cases: Vec<(Edit, &str, &str, &str)> = vec![
            (Box::new(|p| p.trees.spacing = 2), "trees.spacing", "2 voxels", "3..=64"),
            (Box::new(|p| p.trees.density = f32::NAN), "trees.density", "NaN", "0..=4"),
            (
                Box::new(|p| (p.trees.dry_moisture, p.trees.wet_moisture) = (0.8, 0.4)),
                "trees.dry_moisture",
                "0.8",
                "dry_moisture <= wet_moisture",
            ),
            (Box::new(|p| p.trees.species[0].name = " ".into()), "trees.species[0].name", "empty", "oak"),
            (
                Box::new(|p| p.trees.species[1].name = "oak".into()),
                "trees.species[1].name",
                "`oak` again",
                "no other species",
            ),
            (
                Box::new(|p| p.trees.species[2].log_block = "granite".into()),
                "trees.species[2].log_block",
                "unknown block `granite`",
                "leaves, log",
            ),
            (
                Box::new(|p| p.trees.species[3].leaves_block = "moss".into()),
                "trees.species[3].leaves_block",
                "unknown block `moss` in species `acacia`",
                "a block name",
            ),
            (
                Box::new(|p| p.trees.species[0].trunk_height_min = 9),
                "trees.species[0].trunk_height_min",
                "9..6 in species `oak`",
                "1 <= trunk_height_min <= trunk_height_max <= 32",
            ),
            (
                Box::new(|p| p.trees.species[0].crown_radius_max = 9),
                "trees.species[0].crown_radius_min",
                "2..9",
                "<= 8",
            ),
            (
                Box::new(|p| p.trees.species[1].branches_min = -1),
                "trees.species[1].branches_min",
                "-1..0",
                "0 <= branches_min",
            ),
            (Box::new(|p| p.trees.species[3].lean_max = 20), "trees.species[3].lean_max", "20 voxels", "0..=8"),
            (
                Box::new(|p| p.trees.species[0].biomes[0].weight = -1.0),
                "trees.species[0].biomes[0].weight",
                "-1",
                "0..=100",
            ),
            (
                Box::new(|p| p.trees.species[0].biomes[1].biome = "jungle".into()),
                "trees.species[0].biomes[1].biome",
                "unknown biome `jungle`",
                "forest",
            ),
            (
                Box::new(|p| p.trees.species = vec![TreeSpecies::default(); 33]),
                "trees.species",
                "33 species",
                "at most 32",
            ),
        ];
        for (edit, field, value, allowed) in cases {
            let mut p = on.clone();
            edit(&mut p);
            let e = p.validate().unwrap_err();
            assert_eq!(e.field, field, "{e}");
            let text = e.to_string();
            assert!(text.contains(value) && text.contains(allowed), "{field}: `{value}`, `{allowed}` in {text}");
        }
        // Names are checked only while trees are on: the default species name the shipped biomes.
        let mut off = WorldPreset::default();
        off.biomes.table.retain(|b| b.name == "desert");
        off.validate().unwrap();
        off.trees.enabled = true;
        assert_eq!(off.validate().unwrap_err().field, "trees.species[0].biomes[0].biome");
        // A bare species needs no leaves block.
        let mut bare = on.clone();
        bare.trees.species.push(TreeSpecies {
            name: "cactus".into(),
            crown: CrownShape::Bare,
            leaves_block: String::new(),
            biomes: vec![SpeciesWeight { biome: "desert".into(), weight: 1.0 }],
            ..TreeSpecies::default()
        });
        bare.validate().unwrap();
    }
}
