//! The fingerprint that names a world, and the sparse RON that world saves store a preset in.
//!
//! [`fingerprint`] hashes what shapes the world (every setting and the seed, not the display
//! name): same fingerprint, same world. Settings equal to a frozen baseline (the defaults of
//! preset version 1, [`FINGERPRINT_BASELINE`]) are left out of the hash, so a later Strata that
//! adds a setting (whose default keeps the old behaviour) or changes a default keeps every
//! existing fingerprint of an unchanged world. Never edit the baseline's values; a setting added
//! later takes its current default there (serde default) when that default keeps the old world,
//! and is written into the baseline with the value that does when it does not (format 3's biome
//! warp and transition: 0). The same baseline makes
//! [`preset_to_sparse_ron`] complete: a preset stored as its differences from it reads back
//! whole.
//!
//! May use: `preset::model`, `preset::error`, `preset::ron` (error locations, validation).

use crate::preset::error::PresetError;
use crate::preset::model::WorldPreset;
use crate::preset::ron::{ron_error, validated};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// 64-bit FNV-1a.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(FNV_OFFSET, |h, &b| (h ^ b as u64).wrapping_mul(FNV_PRIME))
}

/// The settings against which [`fingerprint`] prunes: the version-1 defaults, frozen. Fields
/// added later are absent here and take their defaults when it is read, but for those whose
/// default changes the world: they are here with the value that keeps it.
pub const FINGERPRINT_BASELINE: &str = r#"(
    height: (
        base_height: 8.0,
        amplitude: 40.0,
        scale: 320.0,
        octaves: 5,
        persistence: 0.5,
        lacunarity: 2.0,
        perlin_weight: 1.0,
        simplex_weight: 0.0,
        ridged_weight: 0.0,
        value_weight: 0.0,
        value_interpolation: Cosine,
        diamond_square_weight: 0.0,
        diamond_square_cell_log2: 7,
        diamond_square_roughness: 0.6,
        ravine_depth: 0.0,
        ravine_width: 4.0,
        ravine_spacing: 512.0,
        ravine_roughness: 0.55,
        heightmap_weight: 0.0,
        heightmap_path: "",
        heightmap_cell_size: 4.0,
        heightmap_wrap: Tile,
    ),
    biomes: (
        enabled: true,
        cell_size: 384.0,
        blend_distance: 32.0,
        climate_scale: 1024.0,
        rock_slope: 1.6,
        warp_strength: 0.0,
        warp_scale: 256.0,
        transition_width: 0.0,
        table: [
            (
                name: "plains",
                surface_block: "grass",
                subsurface_block: "dirt",
                height_offset: 0.0,
                height_scale: 0.6,
                tree_density: 0.05,
                flower_density: 0.5,
                color: (0.45, 0.75, 0.3),
                temperature: 0.55,
                moisture: 0.45,
            ),
            (
                name: "forest",
                surface_block: "grass",
                subsurface_block: "dirt",
                height_offset: 4.0,
                height_scale: 1.0,
                tree_density: 0.6,
                flower_density: 0.2,
                color: (0.15, 0.5, 0.15),
                temperature: 0.5,
                moisture: 0.75,
            ),
            (
                name: "desert",
                surface_block: "sand",
                subsurface_block: "sandstone",
                height_offset: -2.0,
                height_scale: 0.5,
                tree_density: 0.0,
                flower_density: 0.02,
                color: (0.9, 0.8, 0.5),
                temperature: 0.9,
                moisture: 0.1,
            ),
            (
                name: "mountains",
                surface_block: "stone",
                subsurface_block: "stone",
                height_offset: 24.0,
                height_scale: 1.8,
                tree_density: 0.05,
                flower_density: 0.05,
                color: (0.55, 0.55, 0.55),
                temperature: 0.3,
                moisture: 0.4,
            ),
            (
                name: "tundra",
                surface_block: "snow",
                subsurface_block: "dirt",
                height_offset: 6.0,
                height_scale: 1.1,
                tree_density: 0.1,
                flower_density: 0.0,
                color: (0.9, 0.92, 0.96),
                temperature: 0.05,
                moisture: 0.5,
            ),
            (
                name: "taiga",
                surface_block: "podzol",
                subsurface_block: "dirt",
                height_offset: 3.0,
                height_scale: 0.9,
                tree_density: 0.45,
                flower_density: 0.05,
                color: (0.25, 0.45, 0.35),
                temperature: 0.2,
                moisture: 0.7,
            ),
            (
                name: "badlands",
                surface_block: "red_sand",
                subsurface_block: "sandstone",
                height_offset: 6.0,
                height_scale: 1.2,
                tree_density: 0.0,
                flower_density: 0.0,
                color: (0.8, 0.45, 0.22),
                temperature: 0.85,
                moisture: 0.3,
            ),
        ],
    ),
    caves: (
        mode: CellularAutomata,
        fill_probability: 0.45,
        passes: 4,
        threshold: 14,
        final_passes: 1,
        final_threshold: 16,
        life_rule: "B14-19/S13-26",
        cell_size: 2,
        min_depth: 6,
        min_pocket_volume: 16,
        tunnel_strength: 0.5,
        tunnel_scale: 96.0,
        tunnel_width: 0.08,
        allow_surface_breach: false,
    ),
    ores: (
        enabled: true,
        kinds: [
            (
                block: "coal_ore",
                min_depth: 6,
                clusters_per_chunk_min: 3,
                clusters_per_chunk_max: 8,
                cluster_size: 10,
            ),
            (
                block: "iron_ore",
                min_depth: 16,
                clusters_per_chunk_min: 2,
                clusters_per_chunk_max: 5,
                cluster_size: 7,
            ),
            (
                block: "gold_ore",
                min_depth: 40,
                clusters_per_chunk_min: 0,
                clusters_per_chunk_max: 2,
                cluster_size: 5,
            ),
            (
                block: "diamond_ore",
                min_depth: 64,
                clusters_per_chunk_min: 0,
                clusters_per_chunk_max: 1,
                cluster_size: 4,
            ),
        ],
    ),
    water: (
        enabled: true,
        sea_level: 0,
    ),
    scatter: (
        enabled: true,
        density: 1.0,
        density_scale: 96.0,
        trees: true,
        bushes: true,
        flowers: true,
        rocks: true,
    ),
    side_view: (
        surface_source: ValueNoiseCosine,
        base_height: 0.0,
        amplitude: 24.0,
        scale: 256.0,
        octaves: 5,
        persistence: 0.5,
        roughness: 0.55,
        initial_range: 0.5,
        dirt_depth: 4,
        cave_mode: CellularAutomata,
        cave_depth: 10,
        cave_rock_probability: 0.5,
        cave_passes: 4,
        cave_threshold: 5,
        cave_final_passes: 1,
        cave_final_threshold: 5,
        cave_life_rule: "B678/S345678",
        min_pocket_tiles: 12,
        ore_depth: 6,
        water_enabled: true,
        max_pool_width: 32,
        chunk_tiles: 64,
    ),
)"#;

pub(crate) fn strip_identity(p: &WorldPreset) -> WorldPreset {
    WorldPreset { name: String::new(), seed: 0, ..p.clone() }
}

/// Settings renamed since they were first hashed: `(table, name now, name hashed and in old
/// saves)`. A renamed setting is hashed under its first name, so the same world keeps its
/// fingerprint.
const RENAMED: &[(&str, &str, &str)] = &[("height", "open_simplex_weight", "simplex_weight")];

/// `tree` with each renamed setting under its name in the hash (`to_hashed`) or its name now.
fn renamed(mut tree: toml::Value, to_hashed: bool) -> toml::Value {
    for (table, now, hashed) in RENAMED {
        let (from, to) = if to_hashed { (now, hashed) } else { (hashed, now) };
        if let Some(t) = tree.get_mut(*table).and_then(|t| t.as_table_mut())
            && let Some(v) = t.remove(*from)
        {
            t.insert((*to).to_string(), v);
        }
    }
    tree
}

/// The frozen baseline as a value tree (the current defaults if this build cannot read it).
fn baseline() -> &'static Option<toml::Value> {
    static BASELINE: std::sync::OnceLock<Option<toml::Value>> = std::sync::OnceLock::new();
    BASELINE.get_or_init(|| {
        let p = ron::from_str::<WorldPreset>(FINGERPRINT_BASELINE).unwrap_or_default();
        toml::Value::try_from(strip_identity(&p)).ok()
    })
}

/// The baseline with renamed settings under their hashed names.
fn hashed_baseline() -> &'static Option<toml::Value> {
    static BASELINE: std::sync::OnceLock<Option<toml::Value>> = std::sync::OnceLock::new();
    BASELINE.get_or_init(|| baseline().clone().map(|b| renamed(b, true)))
}

/// The canonical text hashed by [`fingerprint`]: `seed=…` then every setting that differs from
/// [`FINGERPRINT_BASELINE`] as sorted `path=value` lines (name excluded).
pub fn canonical_text(preset: &WorldPreset) -> String {
    let mut out = format!("strata-preset-fingerprint v1\nseed={}\n", preset.seed);
    let (Ok(now), Some(base)) = (toml::Value::try_from(strip_identity(preset)), hashed_baseline()) else {
        // Unreachable for plain data; fall back to the full RON text.
        out.push_str(&ron::to_string(&strip_identity(preset)).unwrap_or_default());
        return out;
    };
    diff_lines(&renamed(now, true), Some(base), "", &mut out);
    out
}

/// The part of `now` that differs from `base` (tables recursively, other values whole).
pub(crate) fn diff_tree(now: &toml::Value, base: Option<&toml::Value>) -> Option<toml::Value> {
    match (now, base) {
        (toml::Value::Table(t), Some(toml::Value::Table(b))) => {
            let mut out = toml::Table::new();
            for (k, v) in t {
                if let Some(d) = diff_tree(v, b.get(k.as_str())) {
                    out.insert(k.clone(), d);
                }
            }
            (!out.is_empty()).then_some(toml::Value::Table(out))
        }
        (v, Some(b)) if v == b => None,
        (v, _) => Some(v.clone()),
    }
}

pub(crate) fn merge_tree(base: &mut toml::Table, changes: toml::Table) {
    for (k, v) in changes {
        match (base.get_mut(k.as_str()), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(c)) => merge_tree(b, c),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

#[derive(Serialize)]
struct SparseOut<'a> {
    name: &'a str,
    seed: u64,
    changes: toml::Table,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SparseIn {
    name: String,
    seed: u64,
    changes: toml::Table,
}

/// Compact RON of `preset` as its differences from [`FINGERPRINT_BASELINE`] (plus name and
/// seed): a complete description, since the baseline never changes, and a few bytes for a
/// preset close to the defaults. Used by world saves.
pub fn preset_to_sparse_ron(preset: &WorldPreset) -> String {
    let changes = match (toml::Value::try_from(strip_identity(preset)), baseline()) {
        (Ok(now), Some(base)) => match diff_tree(&now, Some(base)) {
            Some(toml::Value::Table(t)) => t,
            _ => toml::Table::new(),
        },
        (Ok(toml::Value::Table(t)), None) => t,
        _ => toml::Table::new(),
    };
    ron::to_string(&SparseOut { name: &preset.name, seed: preset.seed, changes }).unwrap_or_default()
}

/// Reads [`preset_to_sparse_ron`] text and validates the preset.
pub fn preset_from_sparse_ron(text: &str, source_name: &str) -> Result<WorldPreset, PresetError> {
    let sparse: SparseIn = ron::from_str(text).map_err(|e| ron_error(e, text, source_name))?;
    let mut tree = match baseline() {
        Some(toml::Value::Table(t)) => t.clone(),
        _ => toml::Table::new(),
    };
    // A save written before a rename names the setting by its old name.
    let changes = match renamed(toml::Value::Table(sparse.changes), false) {
        toml::Value::Table(t) => t,
        _ => toml::Table::new(),
    };
    merge_tree(&mut tree, changes);
    let mut preset: WorldPreset = toml::Value::Table(tree).try_into().map_err(|e: toml::de::Error| {
        let msg = e.message().to_string();
        let field = msg.split('`').nth(1).unwrap_or("").to_string();
        PresetError::Parse {
            source_name: source_name.into(),
            line: 0,
            column: 0,
            field,
            problem: msg.trim().to_string(),
            allowed: "settings of this Strata's WorldPreset".into(),
        }
    })?;
    preset.name = sparse.name;
    preset.seed = sparse.seed;
    validated(preset, "", source_name)
}

fn diff_lines(v: &toml::Value, default: Option<&toml::Value>, path: &str, out: &mut String) {
    if let toml::Value::Table(t) = v {
        let mut keys: Vec<&String> = t.keys().collect();
        keys.sort();
        for k in keys {
            let d = default.and_then(|d| d.as_table()).and_then(|d| d.get(k.as_str()));
            let p = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
            diff_lines(&t[k.as_str()], d, &p, out);
        }
    } else if default != Some(v) {
        let _ = writeln!(out, "{path}={}", canonical_value(v));
    }
}

fn canonical_value(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => format!("{s:?}"),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(f) => format!("{:?}", *f as f32),
        toml::Value::Boolean(b) => b.to_string(),
        toml::Value::Datetime(d) => d.to_string(),
        toml::Value::Array(a) => format!("[{}]", a.iter().map(canonical_value).collect::<Vec<_>>().join(",")),
        toml::Value::Table(t) => {
            let mut keys: Vec<&String> = t.keys().collect();
            keys.sort();
            format!(
                "{{{}}}",
                keys.iter().map(|k| format!("{k}={}", canonical_value(&t[k.as_str()]))).collect::<Vec<_>>().join(",")
            )
        }
    }
}

/// A stable 16-hex-digit hash of everything that shapes the world (seed and settings, not the
/// name): same fingerprint, same world.
pub fn fingerprint(preset: &WorldPreset) -> String {
    format!("{:016x}", fnv1a64(canonical_text(preset).as_bytes()))
}

/// A copy of `preset` with another seed: every other setting is kept.
pub fn with_new_seed(preset: &WorldPreset, seed: u64) -> WorldPreset {
    WorldPreset { seed, ..preset.clone() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprint_ignores_name_and_follows_seed_and_settings() {
        let p = WorldPreset::default();
        let f = fingerprint(&p);
        assert_eq!(f.len(), 16);
        assert_eq!(fingerprint(&WorldPreset { name: "x".into(), ..p.clone() }), f);
        assert_ne!(fingerprint(&with_new_seed(&p, 5)), f);
        let mut q = p.clone();
        q.height.amplitude += 1.0;
        assert_ne!(fingerprint(&q), f);
    }

    #[test]
    fn sparse_ron_round_trips_and_is_small() {
        let mut p = WorldPreset { name: "S".into(), seed: u64::MAX, ..WorldPreset::default() };
        p.height.octaves = 9;
        p.biomes.table.pop();
        let text = preset_to_sparse_ron(&p);
        assert_eq!(preset_from_sparse_ron(&text, "s").unwrap(), p);
        assert!(preset_to_sparse_ron(&WorldPreset::default()).len() < 400);
        let e =
            preset_from_sparse_ron("(name: \"x\", seed: 1, changes: {\"height\": {\"warp\": 1}})", "s").unwrap_err();
        assert_eq!(e.field(), "warp", "{e}");
    }

    #[test]
    fn the_fingerprint_baseline_reads() {
        ron::from_str::<WorldPreset>(FINGERPRINT_BASELINE).expect("FINGERPRINT_BASELINE must stay readable");
        assert!(baseline().is_some());
    }

    #[test]
    fn every_biome_row_field_changes_the_fingerprint() {
        use crate::preset::model::{Biome, ScatterPlacement, ScatterRule};
        let base = WorldPreset::default();
        let f = fingerprint(&base);
        let rule = ScatterRule { kind: "tree".into(), density: 0.5, ..ScatterRule::default() };
        type Edit = Box<dyn Fn(&mut Biome)>;
        let edits: Vec<(&str, Edit)> = vec![
            ("name", Box::new(|b| b.name = "renamed".into())),
            ("surface_block", Box::new(|b| b.surface_block = "snow".into())),
            ("subsurface_block", Box::new(|b| b.subsurface_block = "gravel".into())),
            ("cliff_block", Box::new(|b| b.cliff_block = "clay".into())),
            ("shore_block", Box::new(|b| b.shore_block = "gravel".into())),
            ("height_offset", Box::new(|b| b.height_offset += 1.0)),
            ("height_scale", Box::new(|b| b.height_scale += 0.5)),
            ("tree_density", Box::new(|b| b.tree_density += 0.1)),
            ("flower_density", Box::new(|b| b.flower_density += 0.1)),
            ("color", Box::new(|b| b.color[2] = 0.0)),
            ("temperature", Box::new(|b| b.temperature = 0.01)),
            ("moisture", Box::new(|b| b.moisture = 0.01)),
            ("temperature_min", Box::new(|b| b.temperature_min = 0.1)),
            ("temperature_max", Box::new(|b| b.temperature_max = 0.9)),
            ("moisture_min", Box::new(|b| b.moisture_min = 0.1)),
            ("moisture_max", Box::new(|b| b.moisture_max = 0.9)),
            ("scatter (empty set)", Box::new(|b| b.scatter = Some(Vec::new()))),
            ("scatter[0]", Box::new(move |b| b.scatter = Some(vec![rule.clone()]))),
        ];
        let mut seen = std::collections::HashSet::from([f.clone()]);
        for (what, edit) in &edits {
            let mut p = base.clone();
            edit(&mut p.biomes.table[1]);
            p.validate().unwrap_or_else(|e| panic!("{what}: {e}"));
            assert!(seen.insert(fingerprint(&p)), "{what} does not change the fingerprint");
        }
        // Each field of a scatter entry too.
        let entry = ScatterRule { kind: "tree".into(), density: 0.5, ..ScatterRule::default() };
        let variants = [
            ScatterRule { kind: "rock".into(), ..entry.clone() },
            ScatterRule { density: 0.25, ..entry.clone() },
            ScatterRule { placement: ScatterPlacement::Clearings, ..entry.clone() },
            ScatterRule { bare_rock_density: 0.25, ..entry.clone() },
        ];
        let mut p = base.clone();
        p.biomes.table[1].scatter = Some(vec![entry]);
        let with_entry = fingerprint(&p);
        for v in variants {
            p.biomes.table[1].scatter = Some(vec![v.clone()]);
            assert_ne!(fingerprint(&p), with_entry, "{v:?}");
        }
    }

    #[test]
    fn new_biome_fields_at_their_defaults_keep_old_fingerprints() {
        // A table the first preset version could write (no new fields): the same canonical text.
        let mut p = WorldPreset::default();
        p.biomes.table.truncate(2);
        let text = canonical_text(&p);
        for new_field in ["cliff_block", "shore_block", "temperature_min", "moisture_max", "scatter"] {
            assert!(!text.contains(new_field), "{new_field}: {text}");
        }
        assert!(!canonical_text(&WorldPreset::format_default(2)).contains("biomes"));
        // Format 3's default differs from the baseline in the settings it added, and only there.
        let biome_lines: Vec<String> = canonical_text(&WorldPreset::default())
            .lines()
            .filter(|l| l.contains("biomes"))
            .map(String::from)
            .collect();
        assert_eq!(biome_lines.len(), 2, "{biome_lines:?}");
        assert!(biome_lines.iter().any(|l| l.contains("warp_strength")), "{biome_lines:?}");
        assert!(biome_lines.iter().any(|l| l.contains("transition_width")), "{biome_lines:?}");
    }
}
