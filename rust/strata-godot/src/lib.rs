//! Strata's Godot classes: a thin gdext layer over `strata-core`, one file per class.
//!
//! Classes: `StrataWorldPreset` (Resource: the settings and their files, `world_preset.rs`),
//! `StrataBiome` and `StrataBiomeTable` (Resources: the biome table as designer data, `biome_table.rs`),
//! `StrataBlockType` and `StrataBlockLibrary` (Resources: the blocks of a world, `block_library.rs`),
//! `StrataStructure` (Resource: a voxel model from a `.vox` file or a region, `structure.rs`),
//! `StrataStructureRule` (Resource: where a structure stands, `structure_rule.rs`), `StrataSpawnRule`
//! (Resource: where the game's objects start, `spawn_rule.rs`),
//! `StrataNoise` (Resource: the generator's noises for scripts, `strata_noise.rs`),
//! `StrataChunkWorld` (Node3D, `chunk_world.rs`), `StrataChunkWorld2D` (Node2D, `chunk_world_2d.rs`) and
//! `StrataUserProfiles` (Node, `user_profiles.rs`) and `StrataWorldPreview` (RefCounted: live preview
//! images of a preset made on a worker, `world_preview.rs`). What the two worlds share is written once in
//! `world_host.rs`; `world_edits.rs` holds `StrataChunkWorld`'s raycast and shape edits;
//! `world_navigation.rs` its navigation regions; `monitors.rs` the nodes' graphs in the debugger's Monitors tab; `world_entities.rs` its entities; `water_flow.rs` switches the worlds' water flow
//! thread; `allocator.rs` hands memory freed by streaming back to the system; `meshes.rs` turns
//! the core's meshes into Godot meshes and `files.rs` maps
//! paths and file errors. The class reference the editor shows (F1, tooltips) is gdext's, from
//! the `///` docs (`StrataWorldPreset`'s fields get theirs from the core's field table through
//! `build.rs`). World logic (generation, streaming, queries, saves) lives in the core, where
//! it is tested without Godot.
//! `StrataCellularAutomaton2D` (RefCounted, `cellular_automaton_2d.rs`): the caves' Life-like automaton
//! and flood fill on a script's own grid.
//!
//! Workers never touch Godot objects; only plain Rust data crosses the channels, and every
//! `Gd<T>` stays on the main thread.

use godot::prelude::*;

mod allocator;
mod biome_table;
mod block_library;
mod cellular_automaton_2d;
mod chunk_world;
mod chunk_world_2d;
mod config_warnings;
mod files;
mod heightmaps;
mod materials;
mod meshes;
mod monitors;
mod spawn_rule;
mod strata_noise;
mod structure;
mod structure_rule;
mod user_profiles;
mod water_flow;
mod world_edits;
mod world_entities;
mod world_host;
mod world_navigation;
mod world_preset;
mod world_preview;
mod world_sync;

struct StrataExtension;

#[gdextension]
unsafe impl ExtensionLibrary for StrataExtension {}
