//! `StrataWorldPreset`: the Godot resource over [`strata_core::WorldPreset`], and its files.
//!
//! The inspector shows every field of the core field table ([`strata_core::preset::fields::FIELDS`])
//! as a slider, checkbox, enum or text box in its group (`Height`, `Biomes`, `Caves`, `Ores`,
//! `Water`, `Scatter`, `SideView`). The crate's build script (`build.rs`) turns that one table
//! into ordinary gdext properties at compile time: a `PhantomVar` `#[var]` field per table field
//! (range or enum hint, inspector group, the field's help text as its doc: class reference, F1,
//! tooltips), typed getters and setters, and a named constant per option of every enumerated
//! field (`StrataWorldPreset.CAVES_MODE_GAME_OF_LIFE`). So a field added in the core appears here,
//! in `.tres` files, in validation and in the class reference without further code. Every write
//! of a field, by name (`set`, the inspector, `.tres` loading), by its setter or by index
//! (`set_field_at`), goes through `set_field_at`: a value of the wrong type or out of range
//! changes nothing and leaves a message naming the field, the value and what is allowed.
//!
//! `structure_rules` (an array of `StrataStructureRule`) are the world's structure rules and
//! `spawn_rules` (an array of `StrataSpawnRule`) its spawn rules; in a `.tres` they travel as RON text
//! (`structure_rules_ron`, `spawn_rules_ron`, storage only), as the biome table does.
//!
//! `biome_table` (a `StrataBiomeTable`, null = the preset's own table) is the world's biome table: the
//! core preset this resource hands out ([`StrataWorldPreset::core`]), its fingerprint, files and
//! validation use its rows, read when asked, so edits to the table or its rows take effect
//! without further calls. In a `.tres` the table travels as RON text (`biomes_table_ron`, a
//! storage-only property), so the file stays readable without Godot; loading a preset whose table
//! is not the default gives it a `StrataBiomeTable` of those rows to edit.
//!
//! The preset format travels in a `.tres` as `preset_format` (storage only), with the mark
//! `preset_format_3` before it: both getters are null, so Godot's saver, which leaves out every
//! property equal to the class default, always writes them (`preset_format_3 = null`,
//! `preset_format = null`). Strata's reader takes a `.tres` with both for format 3, with only
//! `preset_format` for format 2 and with neither for format 1 (`strata_core::preset::migrate`).
//! Godot's own loader sets the mark, then `preset_format`, after the field properties: a format-2
//! file (`null` without the mark, or `2`) then gives the settings added in format 3 (the biome
//! warp and transition) format 2's values, which the file cannot hold. It cannot migrate a
//! format-1 file (no `preset_format`, and no step runs after it set the properties), so such a
//! file takes today's default for what it leaves out.
//!
//! Files from GDScript: RON sharing text, loading and saving (`res://`, `user://` or absolute
//! paths; a file inside an exported game's pack is read through Godot's file access, see
//! `files`), fingerprints and reseeding. Nothing here panics on bad input: every failure is a
//! `push_error` naming the file, the field and what is allowed, kept for `last_error()` on the
//! preset it concerns, plus a null or an `Error` code. The static loaders (`from_ron`,
//! `load_from_file`) have no preset to keep the message on until they succeed: they load into a
//! new one, whose message is pushed, and return null on failure; `parse_ron` and `load_file` load
//! into an existing preset and keep the message there.
//!
//! World codes (`to_world_code`, `parse_world_code`): the core's `preset::world_code`.
//!
//! May use: `strata_core::preset`, `strata_core::gen3d::pipeline` (checks), `files`, `biome_table`,
//! `block_library`, `heightmaps`, gdext's public registration API (`#[var]`, `#[constant]`).

use crate::base::errors::LastError;
use crate::base::files::{GodotFile, locate_file, preset_error_code, read_packed, res_is_packed, writable};
use crate::resources::biome_table::BiomeTable;
use crate::resources::block_library::{BlockLibrary, core_or_default};
use crate::resources::heightmaps;
use crate::resources::spawn_rule::SpawnRule;
use crate::resources::structure_rule::StructureRule;
use godot::classes::{FileAccess, IResource, Resource, ResourceLoader};
use godot::global::Error;
use godot::prelude::*;
use godot::register::info::{PropertyHint, PropertyHintInfo, PropertyInfo, PropertyUsageFlags};
use std::borrow::Cow;
use strata_core::gen3d::pipeline::{Generator, GeneratorOptions};
use strata_core::preset::error::PresetError;
use strata_core::preset::fields::{FIELD_ALIASES, FIELDS, FieldKind, FieldSpec, FieldValue, field};
use strata_core::preset::file::{check_preset_len, load_preset_file, preset_from_file_bytes, save_preset_file};
use strata_core::preset::fingerprint::{fingerprint, with_new_seed};
use strata_core::preset::ron::{preset_from_ron, preset_to_ron};
use strata_core::preset::tres::{
    BIOME_TABLE_KEY, PRESET_FORMAT_3_MARK, PRESET_FORMAT_KEY, SPAWN_RULES_KEY, STRUCTURE_RULES_KEY, TREE_SETTINGS_KEY,
    biome_table_from_ron, biome_table_to_ron, spawn_rules_from_ron, spawn_rules_to_ron, structure_rules_from_ron,
    structure_rules_to_ron, tree_settings_from_ron, tree_settings_to_ron,
};
use strata_core::preset::world_code::{encode_world_code, preset_from_world_code};

/// The property of the biome table resource.
const BIOME_TABLE_PROPERTY: &str = "biome_table";

/// The property of the structure rules.
const STRUCTURE_RULES_PROPERTY: &str = "structure_rules";
const SPAWN_RULES_PROPERTY: &str = "spawn_rules";

// The field properties, their accessors and the enum constants, generated from the core's field
// table by build.rs (see the module docs).
include!(concat!(env!("OUT_DIR"), "/preset_fields.rs"));

world_preset_struct! {
    /// Everything that shapes a world except player edits: seed, heights, biomes, caves, ores,
    /// water and scatter. Same preset (seed included), same world, bit for bit.
    #[derive(GodotClass)]
    #[class(tool, base = Resource, init, rename = StrataWorldPreset)]
    pub struct WorldPreset {
        base: Base<Resource>,
        pub(crate) preset: strata_core::WorldPreset,
        /// The last error from a failed field change, load or save, for `last_error()`.
        last_error: LastError,
        /// Bumped on every successful change, so a `StrataChunkWorld` can notice edits (live tuning).
        revision: u64,
        /// The world's biome table; `None`: `preset`'s own table.
        biome_table: Option<Gd<BiomeTable>>,
        /// The world's structure rules (the core preset's are moved here when a preset is loaded).
        structure_rules: Array<Gd<StructureRule>>,
        /// The world's spawn rules (the core preset's are moved here when a preset is loaded).
        spawn_rules: Array<Gd<SpawnRule>>,
        /// `preset_format_3` was just set (Godot's loader sets it right before `preset_format`).
        format_3_marked: bool,
    } after {
        /// Grow trees of the world's blocks (log and leaves): the species of
        /// `tree_settings_ron`, placed as structures in the biomes each species names, denser
        /// in forests and groves, clearing into meadows as the climate dries. Off by default;
        /// the same as `enabled` in `tree_settings_ron`.
        #[export_group(name = "Trees", prefix = "")]
        #[var(get = get_trees_enabled, set = set_trees_enabled, usage_flags = [EDITOR])]
        trees_enabled: PhantomVar<bool>,
        /// The world's tree settings as RON (the core preset's `trees` section): `enabled`,
        /// `spacing` (voxels between the cells that hold at most one tree each, 3–64),
        /// `density` (a factor on each biome's `tree_density`, 0–4), `dry_moisture` /
        /// `wet_moisture` (the climate moisture below which no tree grows and above which the
        /// full density does) and `species`: a list of `(name, log_block, leaves_block, crown:
        /// Round | Tall | Conical | Flat | Bare, trunk_height_min, trunk_height_max,
        /// crown_radius_min, crown_radius_max, branches_min, branches_max, lean_max, biomes:
        /// [("forest", 3.0), ...])`. Settings left out keep their defaults (oak, birch, spruce
        /// and acacia); empty text is the default section. A text that does not parse changes
        /// nothing and leaves the error in `last_error()`; the settings are checked with the
        /// rest of the preset (`validate`).
        #[var(get = get_tree_settings_ron, set = set_tree_settings_ron, hint = MULTILINE_TEXT, usage_flags = [DEFAULT])]
        tree_settings_ron: PhantomVar<GString>,
    }
}

// The primary `#[godot_api]` block: the generated field accessors and enum constants (gdext looks
// up a `#[var]`'s getter and setter only in the primary block). Class enums (an enum name over
// the constants, as `Node.ProcessMode`) cannot be registered through gdext yet
// (godot-rust/gdext#890); the constants are plain integer constants of the class.
world_preset_fields_api! {
    #[godot_api]
    impl WorldPreset {
        /// The getter of `trees_enabled`.
        #[func]
        fn get_trees_enabled(&self) -> bool {
            self.preset.trees.enabled
        }

        /// The setter of `trees_enabled`.
        #[func]
        fn set_trees_enabled(&mut self, value: bool) {
            if self.preset.trees.enabled != value {
                self.preset.trees.enabled = value;
                self.changed();
            }
        }

        /// The getter of `tree_settings_ron` (empty for the default section).
        #[func]
        fn get_tree_settings_ron(&self) -> GString {
            tree_settings_to_ron(&self.preset).as_str().into()
        }

        /// The setter of `tree_settings_ron`.
        #[func]
        fn set_tree_settings_ron(&mut self, value: GString) {
            match tree_settings_from_ron(&value.to_string()) {
                Ok(trees) => {
                    self.preset.trees = trees;
                    self.changed();
                }
                Err(e) => self.last_error.record(format!(
                    "StrataWorldPreset.{TREE_SETTINGS_KEY}: {e}; allowed: the RON of a tree section, e.g. (enabled: true, spacing: 5, species: [(name: \"oak\")])"
                )),
            }
        }
    }
}

impl WorldPreset {
    /// The core preset this resource stands for: its settings with the rows of `biome_table`
    /// when one is set.
    pub fn core(&self) -> Cow<'_, strata_core::WorldPreset> {
        if self.biome_table.is_none() && self.structure_rules.is_empty() && self.spawn_rules.is_empty() {
            return Cow::Borrowed(&self.preset);
        }
        let mut p = self.preset.clone();
        if let Some(t) = &self.biome_table {
            p.biomes.table = t.bind().rows();
        }
        p.structures.rules = self.structure_rules.iter_shared().map(|r| r.bind().core()).collect();
        p.spawns.rules = self.spawn_rules.iter_shared().map(|r| r.bind().core()).collect();
        Cow::Owned(p)
    }

    /// Moves the structure rules of `self.preset` into `structure_rules`.
    fn take_structure_rules(&mut self) {
        let rules = std::mem::take(&mut self.preset.structures.rules);
        self.structure_rules = rules.iter().map(StructureRule::from_core).collect();
        let spawns = std::mem::take(&mut self.preset.spawns.rules);
        self.spawn_rules = spawns.iter().map(SpawnRule::from_core).collect();
    }

    /// Changes when any setting changes, the rows of `biome_table` included, so a `StrataChunkWorld`
    /// notices edits (live tuning).
    pub(crate) fn revision(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        if self.biome_table.is_none() && self.structure_rules.is_empty() && self.spawn_rules.is_empty() {
            return self.revision;
        }
        let mut h = std::collections::hash_map::DefaultHasher::new();
        if let Some(t) = &self.biome_table {
            format!("{:?}", t.bind().rows()).hash(&mut h);
        }
        for r in self.structure_rules.iter_shared() {
            format!("{:?}", r.bind().core()).hash(&mut h);
        }
        for r in self.spawn_rules.iter_shared() {
            format!("{:?}", r.bind().core()).hash(&mut h);
        }
        self.revision.wrapping_add(h.finish())
    }

    /// A table resource for the rows of `preset` when they are not the default table, so a
    /// loaded table can be edited; `None` for the default.
    fn table_resource_of(preset: &strata_core::WorldPreset) -> Option<Gd<BiomeTable>> {
        (preset.biomes.table != strata_core::preset::model::default_biomes())
            .then(|| BiomeTable::from_rows(&preset.biomes.table))
    }

    /// A new resource holding `preset`.
    pub fn from_core(preset: strata_core::WorldPreset) -> Gd<WorldPreset> {
        let mut gd = WorldPreset::new_gd();
        {
            let mut p = gd.bind_mut();
            p.preset = preset;
            p.take_structure_rules();
        }
        gd
    }

    /// Marks a successful change: a new revision and `changed`.
    fn changed(&mut self) {
        self.revision += 1;
        self.base_mut().emit_changed();
    }

    /// `value` as an `Array[T]` of resources, or `None` with the error kept (`property` names it).
    fn typed_array<T: GodotClass>(&mut self, property: &str, value: &Variant) -> Option<Array<Gd<T>>> {
        let class = T::class_id();
        value
            .try_to::<Array<Gd<T>>>()
            .map_err(|_| {
                self.last_error.record(format!(
                    "StrataWorldPreset.{property}: {value} is not an Array[{class}]; allowed: an Array[{class}]"
                ))
            })
            .ok()
    }

    /// A list of rules read from the RON text of storage property `key`, or `None` with the error
    /// kept (`what` names the kind of rule).
    fn rules_text<R>(&mut self, key: &str, what: &str, read: Result<Vec<R>, String>) -> Option<Vec<R>> {
        read.map_err(|e| {
            self.last_error.record(format!("StrataWorldPreset.{key}: {e}; allowed: a RON list of {what} rules"))
        })
        .ok()
    }

    /// The value of the field at `index` of [`FIELDS`] (the generated getters read with these;
    /// the index is always in range, as build.rs took it from the same table).
    fn field_value(&self, index: usize) -> Option<FieldValue> {
        FIELDS.get(index).map(|spec| (spec.get)(&self.preset))
    }

    fn field_int(&self, index: usize) -> i64 {
        match self.field_value(index) {
            Some(FieldValue::Int(i)) => i,
            _ => 0,
        }
    }

    fn field_float(&self, index: usize) -> f64 {
        match self.field_value(index) {
            Some(FieldValue::Float(f)) => f,
            _ => 0.0,
        }
    }

    fn field_bool(&self, index: usize) -> bool {
        matches!(self.field_value(index), Some(FieldValue::Bool(true)))
    }

    fn field_text(&self, index: usize) -> GString {
        match self.field_value(index) {
            Some(FieldValue::Text(t)) => t.as_str().into(),
            _ => GString::new(),
        }
    }

    /// Takes the settings of a loaded preset (a `StrataChunkWorld` using this resource restarts), or
    /// keeps the error and changes nothing. `what` names the call in the message.
    fn take_loaded(&mut self, loaded: Result<strata_core::WorldPreset, PresetError>, what: String) -> Error {
        match loaded {
            Ok(p) => {
                self.biome_table = Self::table_resource_of(&p);
                self.preset = p;
                self.take_structure_rules();
                self.last_error.clear();
                self.revision += 1;
                self.base_mut().emit_changed();
                Error::OK
            }
            Err(e) => {
                let code = preset_error_code(&e);
                self.last_error.record(format!("{what}: {e}"));
                code
            }
        }
    }

    fn read_ron(&mut self, text: &GString, what: &str) -> Error {
        self.take_loaded(preset_from_ron(&text.to_string(), "RON text"), what.to_string())
    }

    fn read_file(&mut self, path: &GString, what: &str) -> Error {
        self.take_loaded(read_preset(path), format!("{what}({path})"))
    }
}

/// Reads the preset file `path`: from disk by the core's reader, or through Godot's file access
/// when it lies in a pack (an exported game), the bytes parsed by the core alike. A `.tres` that
/// the export converted to a binary resource (Godot's default) is loaded as the resource it is.
fn read_preset(path: &GString) -> Result<strata_core::WorldPreset, PresetError> {
    let path_text = path.to_string();
    if let Some(preset) = exported_resource(&path_text) {
        return preset;
    }
    match locate_file(&path_text) {
        GodotFile::Disk(p) => load_preset_file(&p),
        GodotFile::Packed(p) => {
            let io = |error| PresetError::Io { source_name: p.clone(), action: "read", error };
            let bytes = read_packed(&p, |len| check_preset_len(len, &p), io)?;
            preset_from_file_bytes(&bytes, &p)
        }
    }
}

/// The preset of a `res://….tres` that exists only as Godot's exported resource (the export
/// converts text resources to binary and remaps their paths), or None for any other path.
fn exported_resource(path: &str) -> Option<Result<strata_core::WorldPreset, PresetError>> {
    let path = path.trim();
    let is_tres = std::path::Path::new(path).extension().is_some_and(|e| e.eq_ignore_ascii_case("tres"));
    let exported = is_tres && path.starts_with("res://") && res_is_packed() && !FileAccess::file_exists(path);
    if !(exported && ResourceLoader::singleton().exists(path)) {
        return None;
    }
    let resource = ResourceLoader::singleton().load(path);
    Some(match resource.map(|r| r.try_cast::<WorldPreset>()) {
        Some(Ok(preset)) => Ok(preset.bind().core().into_owned()),
        Some(Err(other)) => Err(PresetError::Io {
            source_name: path.into(),
            action: "read",
            error: std::io::Error::other(format!(
                "it holds a {}; allowed: a StrataWorldPreset resource",
                other.get_class()
            )),
        }),
        None => Err(PresetError::Io {
            source_name: path.into(),
            action: "read",
            error: std::io::Error::other("Godot cannot load the exported resource"),
        }),
    })
}

fn value_to_variant(v: FieldValue) -> Variant {
    match v {
        FieldValue::Int(i) => i.to_variant(),
        FieldValue::Float(f) => f.to_variant(),
        FieldValue::Bool(b) => b.to_variant(),
        FieldValue::Text(s) => GString::from(s.as_str()).to_variant(),
    }
}

fn variant_to_value(spec: &FieldSpec, v: &Variant) -> Option<FieldValue> {
    Some(match spec.kind {
        FieldKind::Int { .. } | FieldKind::Enum { .. } => match v.get_type() {
            VariantType::INT => FieldValue::Int(v.to::<i64>()),
            VariantType::FLOAT => FieldValue::Float(v.to::<f64>()),
            VariantType::STRING => FieldValue::Text(v.to::<GString>().to_string()),
            _ => return None,
        },
        FieldKind::Float { .. } => match v.get_type() {
            VariantType::FLOAT => FieldValue::Float(v.to::<f64>()),
            VariantType::INT => FieldValue::Int(v.to::<i64>()),
            _ => return None,
        },
        FieldKind::Bool => match v.get_type() {
            VariantType::BOOL => FieldValue::Bool(v.to::<bool>()),
            _ => return None,
        },
        FieldKind::Text => match v.get_type() {
            VariantType::STRING => FieldValue::Text(v.to::<GString>().to_string()),
            VariantType::STRING_NAME => FieldValue::Text(v.to::<StringName>().to_string()),
            _ => return None,
        },
    })
}

#[godot_api]
impl IResource for WorldPreset {
    /// The biome table and rules properties; the fields are generated `#[var]`s (module docs).
    fn on_get_property_list(&mut self) -> Vec<PropertyInfo> {
        vec![
            // The mark first: Godot's loader sets properties in this order.
            PropertyInfo {
                variant_type: VariantType::NIL,
                class_name: StringName::default(),
                property_name: PRESET_FORMAT_3_MARK.into(),
                hint_info: PropertyHintInfo::none(),
                usage: PropertyUsageFlags::STORAGE | PropertyUsageFlags::NIL_IS_VARIANT,
            },
            PropertyInfo {
                variant_type: VariantType::NIL,
                class_name: StringName::default(),
                property_name: PRESET_FORMAT_KEY.into(),
                hint_info: PropertyHintInfo::none(),
                usage: PropertyUsageFlags::STORAGE | PropertyUsageFlags::NIL_IS_VARIANT,
            },
            PropertyInfo {
                variant_type: VariantType::OBJECT,
                class_name: StringName::default(),
                property_name: BIOME_TABLE_PROPERTY.into(),
                hint_info: PropertyHintInfo {
                    hint: PropertyHint::RESOURCE_TYPE,
                    hint_string: "StrataBiomeTable".into(),
                },
                usage: PropertyUsageFlags::EDITOR,
            },
            PropertyInfo {
                variant_type: VariantType::STRING,
                class_name: StringName::default(),
                property_name: BIOME_TABLE_KEY.into(),
                hint_info: PropertyHintInfo::none(),
                usage: PropertyUsageFlags::STORAGE,
            },
            PropertyInfo::new_group("Structures", "structure_"),
            PropertyInfo {
                variant_type: VariantType::ARRAY,
                class_name: StringName::default(),
                property_name: STRUCTURE_RULES_PROPERTY.into(),
                // A typed array of StrataStructureRule resources: "<OBJECT>/<RESOURCE_TYPE>:StrataStructureRule".
                hint_info: PropertyHintInfo {
                    hint: PropertyHint::TYPE_STRING,
                    hint_string: format!(
                        "{}/{}:StrataStructureRule",
                        VariantType::OBJECT.ord(),
                        PropertyHint::RESOURCE_TYPE.ord()
                    )
                    .as_str()
                    .into(),
                },
                usage: PropertyUsageFlags::EDITOR,
            },
            PropertyInfo {
                variant_type: VariantType::STRING,
                class_name: StringName::default(),
                property_name: STRUCTURE_RULES_KEY.into(),
                hint_info: PropertyHintInfo::none(),
                usage: PropertyUsageFlags::STORAGE,
            },
            PropertyInfo::new_group("Spawns", "spawn_"),
            PropertyInfo {
                variant_type: VariantType::ARRAY,
                class_name: StringName::default(),
                property_name: SPAWN_RULES_PROPERTY.into(),
                hint_info: PropertyHintInfo {
                    hint: PropertyHint::TYPE_STRING,
                    hint_string: format!(
                        "{}/{}:StrataSpawnRule",
                        VariantType::OBJECT.ord(),
                        PropertyHint::RESOURCE_TYPE.ord()
                    )
                    .as_str()
                    .into(),
                },
                usage: PropertyUsageFlags::EDITOR,
            },
            PropertyInfo {
                variant_type: VariantType::STRING,
                class_name: StringName::default(),
                property_name: SPAWN_RULES_KEY.into(),
                hint_info: PropertyHintInfo::none(),
                usage: PropertyUsageFlags::STORAGE,
            },
        ]
    }

    fn on_get(&self, property: StringName) -> Option<Variant> {
        let name = property.to_string();
        match name.as_str() {
            // Null, so that Godot's saver always writes them (see the module doc).
            PRESET_FORMAT_KEY | PRESET_FORMAT_3_MARK => Some(Variant::nil()),
            BIOME_TABLE_PROPERTY => Some(self.biome_table.to_variant()),
            BIOME_TABLE_KEY => Some(GString::from(biome_table_to_ron(&self.core()).as_str()).to_variant()),
            STRUCTURE_RULES_PROPERTY => Some(self.structure_rules.to_variant()),
            STRUCTURE_RULES_KEY => Some(GString::from(structure_rules_to_ron(&self.core()).as_str()).to_variant()),
            SPAWN_RULES_PROPERTY => Some(self.spawn_rules.to_variant()),
            SPAWN_RULES_KEY => Some(GString::from(spawn_rules_to_ron(&self.core()).as_str()).to_variant()),
            _ => None,
        }
    }

    fn on_set(&mut self, property: StringName, value: Variant) -> bool {
        let name = property.to_string();
        match name.as_str() {
            PRESET_FORMAT_3_MARK => {
                self.format_3_marked = true;
                true
            }
            PRESET_FORMAT_KEY => {
                let newest = strata_core::preset::migrate::PRESET_FORMAT_VERSION as i64;
                let format = match value.try_to::<i64>() {
                    Ok(format) => format,
                    // Godot's saver: format 3 or later with the mark set just before, else 2.
                    Err(_) if value.is_nil() => {
                        if self.format_3_marked {
                            newest
                        } else {
                            2
                        }
                    }
                    Err(_) => newest,
                };
                self.format_3_marked = false;
                if format > newest {
                    self.last_error.record(format!(
                        "StrataWorldPreset.{PRESET_FORMAT_KEY}: {format} was made by a newer Strata; allowed: 1..={newest} or null"
                    ));
                } else if (1..newest).contains(&format) {
                    // Godot's loader sets the field properties before this one; a file of an
                    // older format holds none of the settings added after it, so they take
                    // that format's values (a format-1 file has no `preset_format`: see the
                    // module doc).
                    strata_core::preset::migrate::apply_added_after(&mut self.preset, format as u32);
                    self.changed();
                }
                true
            }
            BIOME_TABLE_PROPERTY => {
                match value.try_to::<Option<Gd<BiomeTable>>>() {
                    Ok(table) => self.set_biome_table(table),
                    Err(_) => self.last_error.record(format!(
                        "StrataWorldPreset.{BIOME_TABLE_PROPERTY}: {value} is not a StrataBiomeTable; allowed: a StrataBiomeTable or null"
                    )),
                }
                true
            }
            BIOME_TABLE_KEY => {
                match biome_table_from_ron(&value.to_string()) {
                    Ok(rows) => {
                        self.preset.biomes.table = rows;
                        self.biome_table = Self::table_resource_of(&self.preset);
                        self.changed();
                    }
                    Err(e) => self
                        .last_error
                        .record(format!("StrataWorldPreset.{BIOME_TABLE_KEY}: {e}; allowed: a RON list of biome rows")),
                }
                true
            }
            STRUCTURE_RULES_PROPERTY => {
                if let Some(rules) = self.typed_array::<StructureRule>(STRUCTURE_RULES_PROPERTY, &value) {
                    self.set_structure_rules(rules);
                }
                true
            }
            STRUCTURE_RULES_KEY => {
                let text = value.to_string();
                if let Some(rules) = self.rules_text(STRUCTURE_RULES_KEY, "structure", structure_rules_from_ron(&text))
                {
                    self.structure_rules = rules.iter().map(StructureRule::from_core).collect();
                    self.changed();
                }
                true
            }
            SPAWN_RULES_PROPERTY => {
                if let Some(rules) = self.typed_array::<SpawnRule>(SPAWN_RULES_PROPERTY, &value) {
                    self.set_spawn_rules(rules);
                }
                true
            }
            SPAWN_RULES_KEY => {
                let text = value.to_string();
                if let Some(rules) = self.rules_text(SPAWN_RULES_KEY, "spawn", spawn_rules_from_ron(&text)) {
                    self.spawn_rules = rules.iter().map(SpawnRule::from_core).collect();
                    self.changed();
                }
                true
            }
            // A field, or an old field name (a file saved before it was renamed): Godot asks the
            // extension before the typed setter, so every write by name takes the same path as
            // `set_field_at` (text for an enum, an int for a float, the same clear errors).
            _ => {
                let now = FIELD_ALIASES.iter().find(|(old, _)| *old == name).map_or(name.as_str(), |(_, now)| now);
                match FIELDS.iter().position(|f| f.name == now) {
                    Some(index) => {
                        self.set_field_at(index as i64, value);
                        true
                    }
                    None => false,
                }
            }
        }
    }

    fn on_property_get_revert(&self, property: StringName) -> Option<Variant> {
        let name = property.to_string();
        match name.as_str() {
            BIOME_TABLE_PROPERTY => return Some(Variant::nil()),
            BIOME_TABLE_KEY | STRUCTURE_RULES_KEY | SPAWN_RULES_KEY => return Some(GString::new().to_variant()),
            SPAWN_RULES_PROPERTY => return Some(Array::<Gd<SpawnRule>>::new().to_variant()),
            STRUCTURE_RULES_PROPERTY => return Some(Array::<Gd<StructureRule>>::new().to_variant()),
            _ => {}
        }
        let defaults = strata_core::WorldPreset::default();
        field(&name).map(|spec| value_to_variant((spec.get)(&defaults)))
    }
}

#[godot_api(secondary)]
impl WorldPreset {
    /// The message of the last failed field change, load or save; "" when none failed since
    /// `clear_error()`, or after a successful `parse_ron` or `load_file`.
    #[func]
    pub fn last_error(&self) -> GString {
        self.last_error.get()
    }

    /// Clears `last_error()`.
    #[func]
    pub fn clear_error(&mut self) {
        self.last_error.clear();
    }

    /// The world's biome table, or null when the preset's own table (the default, or one read
    /// from a file as text) is used.
    #[func]
    pub fn get_biome_table(&self) -> Option<Gd<BiomeTable>> {
        self.biome_table.clone()
    }

    /// The world's structure rules (shared: editing a rule changes the world).
    #[func]
    pub fn get_structure_rules(&self) -> Array<Gd<StructureRule>> {
        self.structure_rules.clone()
    }

    /// Sets the world's structure rules; `validate()` reports a bad rule by index and field.
    #[func]
    pub fn set_structure_rules(&mut self, rules: Array<Gd<StructureRule>>) {
        self.structure_rules = rules;
        self.changed();
    }

    /// The world's spawn rules (shared: editing a rule changes what spawns).
    #[func]
    pub fn get_spawn_rules(&self) -> Array<Gd<SpawnRule>> {
        self.spawn_rules.clone()
    }

    /// Sets the world's spawn rules; `validate()` reports a bad rule by index and field.
    #[func]
    pub fn set_spawn_rules(&mut self, rules: Array<Gd<SpawnRule>>) {
        self.spawn_rules = rules;
        self.changed();
    }

    /// Sets the world's biome table (null: the preset's own table). Its rows shape the world
    /// from now on, also when edited later; `validate()` reports bad rows by index and field.
    #[func]
    pub fn set_biome_table(&mut self, table: Option<Gd<BiomeTable>>) {
        self.biome_table = table;
        self.changed();
    }

    /// Names of every preset field, in inspector order.
    #[func]
    pub fn field_names() -> PackedStringArray {
        FIELDS.iter().map(|f| GString::from(f.name)).collect()
    }

    /// The value of the field at `index` in `field_names()` (what the field property reads);
    /// null for an index out of range.
    #[func]
    pub fn get_field_at(&self, index: i64) -> Variant {
        match usize::try_from(index).ok().and_then(|i| FIELDS.get(i)) {
            Some(spec) => value_to_variant((spec.get)(&self.preset)),
            None => Variant::nil(),
        }
    }

    /// Sets the field at `index` in `field_names()` (every write of a field property goes
    /// through here). A value of the wrong type or out of range changes nothing; the message,
    /// naming the field, the value and what is allowed, is in `last_error()`.
    #[func]
    pub fn set_field_at(&mut self, index: i64, value: Variant) {
        let Some(spec) = usize::try_from(index).ok().and_then(|i| FIELDS.get(i)) else {
            self.last_error.record(format!(
                "StrataWorldPreset.set_field_at: index {index} is out of range; allowed: 0..{}",
                FIELDS.len()
            ));
            return;
        };
        let Some(v) = variant_to_value(spec, &value) else {
            self.last_error.record(format!(
                "StrataWorldPreset.{}: {value} has the wrong type; allowed: {}",
                spec.name,
                spec.allowed()
            ));
            return;
        };
        match self.preset.set_field(spec.name, v) {
            Ok(()) => self.changed(),
            Err(e) => self.last_error.record(format!("StrataWorldPreset: {e}")),
        }
    }

    /// Checks every field and the rules between fields, and that the heightmap file (when
    /// used) loads; "" when valid, else the error a world built from it would report. The
    /// heightmap is read at once if it was not loaded before, and kept: the world built from
    /// this preset then does not read it again. Block names are looked up in the default
    /// library (see `validate_with_library`).
    #[func]
    pub fn validate(&self) -> GString {
        self.validate_with_library(None)
    }

    /// `validate()` for a world whose `block_library` is `library` (null: the default one):
    /// the biome rows' block names are looked up in it; an invalid library is reported.
    #[func]
    pub fn validate_with_library(&self, library: Option<Gd<BlockLibrary>>) -> GString {
        let library = match core_or_default(library.as_ref()) {
            Ok(l) => l,
            Err(e) => {
                return format!("StrataWorldPreset.validate_with_library: the block library is invalid: {e}")
                    .as_str()
                    .into();
            }
        };
        self.check_with_library(&library).as_str().into()
    }

    /// `validate_with_library` for `library` (core), as a message ("" when valid).
    pub(crate) fn check_with_library(&self, library: &strata_core::base::block_library::BlockLibrary) -> String {
        let options = GeneratorOptions::default().library(library).heightmap_loader(heightmaps::load_now);
        match Generator::check_preset(&self.core(), options) {
            Ok(()) => String::new(),
            Err(e) => e.to_string(),
        }
    }

    /// `validate_with_library` for a world whose structure rules name structures of
    /// `structures` (the shipped ones and the world's own): "" when valid, else the error.
    pub(crate) fn validate_with_structures(
        &self,
        library: &strata_core::base::block_library::BlockLibrary,
        structures: &strata_core::gen3d::structures::StructureLibrary,
    ) -> String {
        let core = self.core();
        let options =
            GeneratorOptions::default().library(library).structures(structures).heightmap_loader(heightmaps::load_now);
        match Generator::check_preset(&core, options) {
            Ok(()) => String::new(),
            Err(e) => e.to_string(),
        }
    }

    /// This preset as versioned RON text (`format: "strata-preset", version: 1`), for sharing.
    #[func]
    pub fn to_ron(&self) -> GString {
        preset_to_ron(&self.core()).as_str().into()
    }

    /// A new preset from versioned RON text, or null on error (the message, with line:column,
    /// field and allowed values, is pushed to the console; `parse_ron` keeps it).
    #[func]
    pub fn from_ron(text: GString) -> Option<Gd<WorldPreset>> {
        let mut p = WorldPreset::new_gd();
        let code = p.bind_mut().read_ron(&text, "StrataWorldPreset.from_ron");
        (code == Error::OK).then_some(p)
    }

    /// Replaces every setting of this preset with those of versioned RON text. On error nothing
    /// changes; the message (line:column, field, allowed values) is in `last_error()`.
    #[func]
    pub fn parse_ron(&mut self, text: GString) -> Error {
        self.read_ron(&text, "StrataWorldPreset.parse_ron")
    }

    /// Writes this preset to `path` atomically (`res://`, `user://` or absolute): `.tres` as a
    /// Godot text resource, any other extension as versioned RON. An invalid preset or a failed
    /// write leaves any existing file as it was; the message is in `last_error()`.
    #[func]
    pub fn save_to_file(&mut self, path: GString) -> Error {
        let target = match writable(&path) {
            Ok(p) => p,
            Err(message) => {
                self.last_error.record(format!("StrataWorldPreset.save_to_file: {message}"));
                return Error::ERR_FILE_CANT_WRITE;
            }
        };
        match save_preset_file(&target, &self.core()) {
            Ok(()) => Error::OK,
            Err(e) => {
                let code = preset_error_code(&e);
                self.last_error.record(format!("StrataWorldPreset.save_to_file: {e}"));
                code
            }
        }
    }

    /// A new preset read from a file (`.ron` or `.tres`; `res://`, `user://` or absolute), or
    /// null on error (the message is pushed to the console; `load_file` keeps it).
    #[func]
    pub fn load_from_file(path: GString) -> Option<Gd<WorldPreset>> {
        let mut p = WorldPreset::new_gd();
        let code = p.bind_mut().read_file(&path, "StrataWorldPreset.load_from_file");
        (code == Error::OK).then_some(p)
    }

    /// Replaces every setting of this preset with those of a file (`.ron` or `.tres`;
    /// `res://`, `user://` or absolute). On error nothing changes; the message is in
    /// `last_error()`.
    #[func]
    pub fn load_file(&mut self, path: GString) -> Error {
        self.read_file(&path, "StrataWorldPreset.load_file")
    }

    /// A 16-hex-digit hash of everything that shapes the world (seed and settings, not the
    /// name): same fingerprint, same world.
    #[func]
    pub fn fingerprint(&self) -> GString {
        fingerprint(&self.core()).as_str().into()
    }

    /// A new preset with every setting of this one and the given seed.
    #[func]
    pub fn with_new_seed(&self, seed: i64) -> Gd<WorldPreset> {
        WorldPreset::from_core(with_new_seed(&self.core(), seed as u64))
    }

    /// A short text naming this world (seed and settings) for a friend to paste into
    /// `parse_world_code`: `strata2-` and base64url of the seed, the settings that differ from
    /// `base` (compressed) and checksums (format: docs/formats.md). `base_name` names `base` for
    /// the reader: a shipped preset's file name without extension ("archipelago"), or "" for the
    /// built-in default (null `base` is the default too). "" on error (a bad name; the message,
    /// naming what is allowed, is in `last_error()`).
    #[func]
    // `&mut self`: a refused name is kept for `last_error()`, as every other method does.
    #[allow(clippy::wrong_self_convention)]
    pub fn to_world_code(&mut self, base_name: GString, base: Option<Gd<WorldPreset>>) -> GString {
        let base = base.map(|b| b.bind().core().into_owned()).unwrap_or_default();
        match encode_world_code(&self.core(), &base_name.to_string(), &base) {
            Ok(code) => code.as_str().into(),
            Err(e) => {
                self.last_error.record(format!("StrataWorldPreset.to_world_code: {e}"));
                GString::new()
            }
        }
    }

    /// Replaces every setting of this preset with the world a code names: the base preset the
    /// code names, looked up in `bases` (a Dictionary from name to StrataWorldPreset; "" is the built-in
    /// default when `bases` lacks it), with the code's seed and settings. The result has the
    /// fingerprint of the world the code was made from, or the code is refused. On error (empty,
    /// mistyped or cut code, a newer version, an unknown or different base preset) nothing
    /// changes, the message naming the problem is in `last_error()`, and the result is
    /// `ERR_INVALID_DATA`.
    #[func]
    pub fn parse_world_code(&mut self, code: GString, bases: VarDictionary) -> Error {
        let mut known: Vec<String> = bases.keys_array().iter_shared().map(|k| k.to_string()).collect();
        if !known.iter().any(|k| k.is_empty()) {
            known.push(String::new());
        }
        known.sort();
        let lookup = |name: &str| -> Option<strata_core::WorldPreset> {
            match bases.get(name).map(|v| v.try_to::<Gd<WorldPreset>>()) {
                Some(Ok(p)) => Some(p.bind().core().into_owned()),
                Some(Err(_)) => None,
                None => name.is_empty().then(strata_core::WorldPreset::default),
            }
        };
        let names: Vec<&str> = known.iter().map(String::as_str).collect();
        match preset_from_world_code(&code.to_string(), lookup, &names) {
            Ok(p) => self.take_loaded(Ok(p), "StrataWorldPreset.parse_world_code".into()),
            Err(e) => {
                self.last_error.record(format!("StrataWorldPreset.parse_world_code: {e}"));
                Error::ERR_INVALID_DATA
            }
        }
    }

    /// A new preset with every setting of this one, but the clusters per chunk (least and most)
    /// of every ore kind multiplied by `factor` (0–8), rounded, at most 64: 2 doubles the ore,
    /// 0.5 halves it, 0 leaves none. This preset is unchanged. Another factor gives null; the
    /// message is in this preset's `last_error()`.
    #[func]
    pub fn with_ore_clusters_scaled(&mut self, factor: f64) -> Option<Gd<WorldPreset>> {
        if !(factor.is_finite() && (0.0..=8.0).contains(&factor)) {
            self.last_error
                .record(format!("StrataWorldPreset.with_ore_clusters_scaled: factor = {factor}; allowed: 0 to 8"));
            return None;
        }
        let scale = |n: u32| ((n as f64 * factor).round() as u32).min(64);
        let mut core = self.core().into_owned();
        for kind in &mut core.ores.kinds {
            kind.clusters_per_chunk_min = scale(kind.clusters_per_chunk_min);
            kind.clusters_per_chunk_max = scale(kind.clusters_per_chunk_max).max(kind.clusters_per_chunk_min);
        }
        Some(WorldPreset::from_core(core))
    }
}
