//! Layer `resources`: the designer's data as Godot classes (Resources and RefCounted tools):
//! `StrataWorldPreset`, `StrataBlockType`/`StrataBlockLibrary`, `StrataBiome`/`StrataBiomeTable`,
//! `StrataStructure`, `StrataStructure2D`, `StrataStructureRule`, `StrataSpawnRule`, `StrataNoise`,
//! `StrataCellularAutomaton2D`, `StrataWorldPreview`, and the heightmap loading presets use.
//!
//! May use: `base`, `strata_core`. Architecture invariant: a resource never imports a node
//! (`host`, `nodes`, `sync`); a check that needs a world lives on the world's node.

pub(crate) mod biome_table;
pub(crate) mod block_library;
pub(crate) mod cellular_automaton_2d;
pub(crate) mod heightmaps;
pub(crate) mod spawn_rule;
pub(crate) mod strata_noise;
pub(crate) mod structure;
pub(crate) mod structure_2d;
pub(crate) mod structure_rule;
pub(crate) mod world_preset;
pub(crate) mod world_preview;
