//! `StrataBiome` and `StrataBiomeTable` (Resources): the biome table of a world as designer data, edited in
//! the inspector and turned into the core's biome rows (`strata_core::preset::model::Biome`).
//!
//! A `StrataBiome` holds one core row and serves its fields as properties from one list
//! ([`BIOME_PROPERTIES`]): block names as text, numbers as sliders with their ranges, the colour,
//! the climate range and the scatter set (an array of dictionaries, used when `scatter_custom` is
//! on; otherwise the classic set from `tree_density` and `flower_density`). Numbers out of range
//! are clamped with a warning; names are checked by `validate()`, which names the row, the field,
//! the value and what is allowed. `StrataWorldPreset.biome_table` puts the table into a world.
//!
//! May use: `strata_core::preset` (the rows and their validation), `world_host` (clamping),
//! `block_library` (the blocks names are checked against).

use crate::base::ranges::float_in_range;
use crate::resources::block_library::{BlockLibrary, core_or_default};
use godot::classes::{IResource, Resource};
use godot::prelude::*;
use godot::register::info::{PropertyHint, PropertyHintInfo, PropertyInfo, PropertyUsageFlags};
use strata_core::preset::model::{
    Biome as CoreBiome, ScatterKind, ScatterPlacement, ScatterRule, WorldPreset as CorePreset, default_biomes,
};

/// What a `StrataBiome` property holds.
#[derive(Clone, Copy)]
enum Prop {
    Text,
    Float {
        min: f64,
        max: f64,
        step: f64,
    },
    Color,
    Bool,
    /// The scatter set: `Array` of `Dictionary`.
    Scatter,
}

/// The properties of a `StrataBiome`, in inspector order, with the ranges of the core's validation.
const BIOME_PROPERTIES: &[(&str, Prop)] = &[
    ("biome_name", Prop::Text),
    ("surface_block", Prop::Text),
    ("subsurface_block", Prop::Text),
    ("cliff_block", Prop::Text),
    ("shore_block", Prop::Text),
    ("height_offset", Prop::Float { min: -256.0, max: 256.0, step: 0.5 }),
    ("height_scale", Prop::Float { min: 0.0, max: 8.0, step: 0.05 }),
    ("color", Prop::Color),
    ("temperature", Prop::Float { min: 0.0, max: 1.0, step: 0.01 }),
    ("moisture", Prop::Float { min: 0.0, max: 1.0, step: 0.01 }),
    ("temperature_min", Prop::Float { min: 0.0, max: 1.0, step: 0.01 }),
    ("temperature_max", Prop::Float { min: 0.0, max: 1.0, step: 0.01 }),
    ("moisture_min", Prop::Float { min: 0.0, max: 1.0, step: 0.01 }),
    ("moisture_max", Prop::Float { min: 0.0, max: 1.0, step: 0.01 }),
    ("tree_density", Prop::Float { min: 0.0, max: 1.0, step: 0.01 }),
    ("flower_density", Prop::Float { min: 0.0, max: 1.0, step: 0.01 }),
    ("scatter_custom", Prop::Bool),
    ("scatter", Prop::Scatter),
];

/// One row of a [`StrataBiomeTable`]: a biome's blocks (by name), height, colour, climate and scatter.
#[derive(GodotClass)]
#[class(tool, base = Resource, rename = StrataBiome)]
pub struct Biome {
    base: Base<Resource>,
    row: CoreBiome,
    /// The scatter set as edited; the row uses it while `scatter_custom` is on.
    scatter: Vec<ScatterRule>,
    scatter_custom: bool,
}

#[godot_api]
impl IResource for Biome {
    fn init(base: Base<Resource>) -> Self {
        Self { base, row: CoreBiome::default(), scatter: Vec::new(), scatter_custom: false }
    }

    fn on_get_property_list(&mut self) -> Vec<PropertyInfo> {
        BIOME_PROPERTIES.iter().map(|(name, kind)| property_info(name, *kind)).collect()
    }

    fn on_get(&self, property: StringName) -> Option<Variant> {
        let name = property.to_string();
        let r = &self.row;
        Some(match name.as_str() {
            "biome_name" => GString::from(r.name.as_str()).to_variant(),
            "surface_block" => GString::from(r.surface_block.as_str()).to_variant(),
            "subsurface_block" => GString::from(r.subsurface_block.as_str()).to_variant(),
            "cliff_block" => GString::from(r.cliff_block.as_str()).to_variant(),
            "shore_block" => GString::from(r.shore_block.as_str()).to_variant(),
            "color" => Color::from_rgb(r.color[0], r.color[1], r.color[2]).to_variant(),
            "scatter_custom" => self.scatter_custom.to_variant(),
            "scatter" => scatter_to_array(&self.scatter).to_variant(),
            other => (*float_slot_ref(r, other)? as f64).to_variant(),
        })
    }

    fn on_set(&mut self, property: StringName, value: Variant) -> bool {
        let name = property.to_string();
        let Some(&(_, kind)) = BIOME_PROPERTIES.iter().find(|(n, _)| *n == name) else { return false };
        if let Err(problem) = self.set_property(&name, kind, &value) {
            godot_error!("StrataBiome.{name}: {problem}");
            return true;
        }
        self.base_mut().emit_changed();
        true
    }

    fn on_property_get_revert(&self, property: StringName) -> Option<Variant> {
        let name = property.to_string();
        let defaults = CoreBiome::default();
        match name.as_str() {
            "scatter_custom" => Some(false.to_variant()),
            "scatter" => Some(VarArray::new().to_variant()),
            "biome_name" => Some(GString::from(defaults.name.as_str()).to_variant()),
            other => float_slot_ref(&defaults, other).map(|v| (*v as f64).to_variant()),
        }
    }
}

/// The inspector entry of a `StrataBiome` property.
fn property_info(name: &str, kind: Prop) -> PropertyInfo {
    let (variant_type, hint, hint_string) = match kind {
        Prop::Text => (VariantType::STRING, PropertyHint::NONE, String::new()),
        Prop::Float { min, max, step } => (VariantType::FLOAT, PropertyHint::RANGE, format!("{min},{max},{step}")),
        Prop::Color => (VariantType::COLOR, PropertyHint::COLOR_NO_ALPHA, String::new()),
        Prop::Bool => (VariantType::BOOL, PropertyHint::NONE, String::new()),
        Prop::Scatter => (VariantType::ARRAY, PropertyHint::TYPE_STRING, format!("{}:", VariantType::DICTIONARY.ord())),
    };
    PropertyInfo {
        variant_type,
        class_name: StringName::default(),
        property_name: name.into(),
        hint_info: PropertyHintInfo { hint, hint_string: hint_string.as_str().into() },
        usage: PropertyUsageFlags::DEFAULT,
    }
}

fn float_slot_ref<'a>(r: &'a CoreBiome, name: &str) -> Option<&'a f32> {
    Some(match name {
        "height_offset" => &r.height_offset,
        "height_scale" => &r.height_scale,
        "temperature" => &r.temperature,
        "moisture" => &r.moisture,
        "temperature_min" => &r.temperature_min,
        "temperature_max" => &r.temperature_max,
        "moisture_min" => &r.moisture_min,
        "moisture_max" => &r.moisture_max,
        "tree_density" => &r.tree_density,
        "flower_density" => &r.flower_density,
        _ => return None,
    })
}

fn float_slot<'a>(r: &'a mut CoreBiome, name: &str) -> Option<&'a mut f32> {
    Some(match name {
        "height_offset" => &mut r.height_offset,
        "height_scale" => &mut r.height_scale,
        "temperature" => &mut r.temperature,
        "moisture" => &mut r.moisture,
        "temperature_min" => &mut r.temperature_min,
        "temperature_max" => &mut r.temperature_max,
        "moisture_min" => &mut r.moisture_min,
        "moisture_max" => &mut r.moisture_max,
        "tree_density" => &mut r.tree_density,
        "flower_density" => &mut r.flower_density,
        _ => return None,
    })
}

/// A number from an int or float variant.
fn number(v: &Variant) -> Option<f64> {
    match v.get_type() {
        VariantType::FLOAT => Some(v.to::<f64>()),
        VariantType::INT => Some(v.to::<i64>() as f64),
        _ => None,
    }
}

/// The placement named `name` (case-insensitive).
fn placement_of(name: &str) -> Option<ScatterPlacement> {
    [ScatterPlacement::Anywhere, ScatterPlacement::Groves, ScatterPlacement::Clearings]
        .into_iter()
        .find(|p| format!("{p:?}").eq_ignore_ascii_case(name))
}

const SCATTER_ALLOWED: &str = "an Array of Dictionaries {kind: \"tree\"|\"bush\"|\"flower\"|\"rock\", density: 0..1, \
     placement: \"Anywhere\"|\"Groves\"|\"Clearings\", bare_rock_density: 0..1}";

fn scatter_to_array(rules: &[ScatterRule]) -> VarArray {
    rules
        .iter()
        .map(|r| {
            let mut d = VarDictionary::new();
            d.set("kind", &GString::from(r.kind.as_str()).to_variant());
            d.set("density", r.density as f64);
            d.set("placement", &GString::from(format!("{:?}", r.placement).as_str()).to_variant());
            d.set("bare_rock_density", r.bare_rock_density as f64);
            d.to_variant()
        })
        .collect()
}

/// The scatter set of an `Array` of `Dictionary` (see [`SCATTER_ALLOWED`]); numbers are clamped
/// to 0..1 with a warning, anything else wrong is an error naming the entry.
fn scatter_from_array(v: &Variant) -> Result<Vec<ScatterRule>, String> {
    let Ok(array) = v.try_to::<VarArray>() else {
        return Err(format!("{v} is not an Array; allowed: {SCATTER_ALLOWED}"));
    };
    let mut out = Vec::with_capacity(array.len());
    for (i, entry) in array.iter_shared().enumerate() {
        let Ok(d) = entry.try_to::<VarDictionary>() else {
            return Err(format!("scatter[{i}] = {entry} is not a Dictionary; allowed: {SCATTER_ALLOWED}"));
        };
        let mut rule = ScatterRule::default();
        for (key, value) in d.iter_shared() {
            let key = key.to_string();
            let property = format!("scatter[{i}].{key}");
            match key.as_str() {
                "kind" => rule.kind = value.to_string(),
                "placement" => {
                    rule.placement = placement_of(&value.to_string()).ok_or_else(|| {
                        format!("{property} = {value} is not a placement; allowed: Anywhere, Groves, Clearings")
                    })?
                }
                "density" | "bare_rock_density" => {
                    let n = number(&value)
                        .ok_or_else(|| format!("{property} = {value} is not a number; allowed: a number in 0..1"))?;
                    let n = float_in_range("StrataBiome", &property, n, 0.0, 1.0, 0.0) as f32;
                    if key == "density" {
                        rule.density = n;
                    } else {
                        rule.bare_rock_density = n;
                    }
                }
                _ => {
                    return Err(format!(
                        "{property}: unknown key `{key}`; allowed: kind, density, placement, bare_rock_density"
                    ));
                }
            }
        }
        out.push(rule);
    }
    Ok(out)
}

impl Biome {
    /// Stores `value` in property `name` of kind `kind`, or says what is wrong with it.
    fn set_property(&mut self, name: &str, kind: Prop, value: &Variant) -> Result<(), String> {
        let wrong = |allowed: &str| format!("{value} has the wrong type; allowed: {allowed}");
        match kind {
            Prop::Text => {
                let text = match value.get_type() {
                    VariantType::STRING | VariantType::STRING_NAME => value.to_string(),
                    _ => return Err(wrong("text")),
                };
                let r = &mut self.row;
                *match name {
                    "biome_name" => &mut r.name,
                    "surface_block" => &mut r.surface_block,
                    "subsurface_block" => &mut r.subsurface_block,
                    "cliff_block" => &mut r.cliff_block,
                    _ => &mut r.shore_block,
                } = text;
            }
            Prop::Float { min, max, .. } => {
                let n = number(value).ok_or_else(|| wrong(&format!("a number in {min}..{max}")))?;
                let Some(slot) = float_slot(&mut self.row, name) else { return Ok(()) };
                *slot = float_in_range("StrataBiome", name, n, min, max, *slot as f64) as f32;
            }
            Prop::Color => {
                let c = value.try_to::<Color>().map_err(|_| wrong("a Color"))?;
                self.row.color =
                    [c.r, c.g, c.b].map(|ch| float_in_range("StrataBiome", "color", ch as f64, 0.0, 1.0, 0.0) as f32);
            }
            Prop::Bool => {
                self.scatter_custom = value.try_to::<bool>().map_err(|_| wrong("true or false"))?;
            }
            Prop::Scatter => self.scatter = scatter_from_array(value)?,
        }
        Ok(())
    }

    /// This row as the core sees it.
    pub(crate) fn core(&self) -> CoreBiome {
        CoreBiome { scatter: self.scatter_custom.then(|| self.scatter.clone()), ..self.row.clone() }
    }

    /// A resource holding core row `row`.
    pub(crate) fn from_core(row: &CoreBiome) -> Gd<Biome> {
        let mut gd = Biome::new_gd();
        {
            let mut b = gd.bind_mut();
            b.row = CoreBiome { scatter: None, ..row.clone() };
            b.scatter_custom = row.scatter.is_some();
            b.scatter = row.scatter.clone().unwrap_or_default();
        }
        gd
    }
}

#[godot_api]
impl Biome {
    /// The scatter kinds a scatter entry may name: tree, bush, flower, rock.
    #[func]
    fn scatter_kinds() -> PackedStringArray {
        ScatterKind::NAMES.iter().map(|n| GString::from(*n)).collect()
    }
}

/// The biome table of a world: its rows in order (a column's biome is an index into it);
/// `StrataWorldPreset.biome_table`.
#[derive(GodotClass)]
#[class(tool, base = Resource, init, rename = StrataBiomeTable)]
pub struct BiomeTable {
    base: Base<Resource>,
    /// The rows. A null entry is reported by `validate()`.
    #[export]
    biomes: Array<Option<Gd<Biome>>>,
}

/// The name of the placeholder row that stands for a null entry, so a world built from a table
/// with one fails with an error naming its index.
const NULL_ROW: &str = "<null row>";

#[godot_api]
impl BiomeTable {
    /// The core's default table (plains, forest, desert, mountains, tundra, taiga, badlands).
    #[func]
    pub fn create_default() -> Gd<BiomeTable> {
        Self::from_rows(&default_biomes())
    }

    /// How many rows the table holds (null entries included).
    #[func]
    pub fn get_biome_count(&self) -> i64 {
        self.biomes.len() as i64
    }

    /// The name of row `index`, or "" when there is no such row.
    #[func]
    pub fn get_biome_name(&self, index: i64) -> GString {
        let row = usize::try_from(index).ok().and_then(|i| self.biomes.get(i)).flatten();
        row.map(|b| GString::from(b.bind().row.name.as_str())).unwrap_or_default()
    }

    /// The index of the first row named `name`, or -1.
    #[func]
    pub fn find_biome(&self, name: GString) -> i64 {
        let name = name.to_string();
        self.biomes.iter_shared().position(|b| b.is_some_and(|b| b.bind().row.name == name)).map_or(-1, |i| i as i64)
    }

    /// "" when the table makes a valid world with the default block library, else what is
    /// wrong: the row, the field, the value and what is allowed.
    #[func]
    pub fn validate(&self) -> GString {
        self.validate_with_library(None)
    }

    /// `validate()` for a world whose `block_library` is `library` (null: the default one):
    /// the rows' block names are looked up in it; an invalid library is reported.
    #[func]
    pub fn validate_with_library(&self, library: Option<Gd<BlockLibrary>>) -> GString {
        if let Some(i) = self.biomes.iter_shared().position(|b| b.is_none()) {
            return format!("StrataBiomeTable.biomes[{i}] is null; allowed: a StrataBiome resource").as_str().into();
        }
        let library = match core_or_default(library.as_ref()) {
            Ok(l) => l,
            Err(e) => {
                return format!("StrataBiomeTable.validate_with_library: the block library is invalid: {e}")
                    .as_str()
                    .into();
            }
        };
        let mut preset = CorePreset::default();
        preset.biomes.table = self.rows();
        match preset.validate_with_library(&library) {
            Ok(()) => GString::new(),
            Err(e) => e.to_string().as_str().into(),
        }
    }
}

impl BiomeTable {
    /// A table of resources holding `rows`.
    pub(crate) fn from_rows(rows: &[CoreBiome]) -> Gd<BiomeTable> {
        let mut table = BiomeTable::new_gd();
        table.bind_mut().biomes = rows.iter().map(|r| Some(Biome::from_core(r))).collect();
        table
    }

    /// The rows as the core sees them; a null entry becomes a row whose block names are
    /// [`NULL_ROW`], which validation refuses by index.
    pub(crate) fn rows(&self) -> Vec<CoreBiome> {
        self.biomes
            .iter_shared()
            .map(|b| match b {
                Some(b) => b.bind().core(),
                None => CoreBiome {
                    name: NULL_ROW.into(),
                    surface_block: NULL_ROW.into(),
                    subsurface_block: NULL_ROW.into(),
                    ..CoreBiome::default()
                },
            })
            .collect()
    }
}
