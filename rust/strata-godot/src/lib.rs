//! Strata's Godot classes: a thin gdext layer over `strata-core`, in dependency layers that
//! `cargo xtask lint layers` checks (a file may use its own layer and the ones before it):
//!
//! * `base`: leaf helpers (the last error, property clamping, files, monitors).
//! * `resources`: the designer's data (`StrataWorldPreset`, block library, biome table,
//!   structures, rules, `StrataNoise`, `StrataCellularAutomaton2D`, `StrataWorldPreview`).
//! * `host`: what both worlds share below the nodes (`world_host`, meshes, materials, edits).
//! * `nodes`: `StrataChunkWorld`, `StrataChunkWorld2D`, `StrataUserProfiles`.
//! * `sync`: `StrataWorldSync`.
//!
//! The class reference the editor shows (F1, tooltips) is gdext's, from the `///` docs
//! (`StrataWorldPreset`'s fields get theirs from the core's field table through `build.rs`).
//! World logic (generation, streaming, queries, saves) lives in the core, where it is tested
//! without Godot.
//!
//! Workers never touch Godot objects; only plain Rust data crosses the channels, and every
//! `Gd<T>` stays on the main thread.

use godot::prelude::*;

mod base;
mod host;
mod nodes;
mod resources;
mod sync;

struct StrataExtension;

#[gdextension]
unsafe impl ExtensionLibrary for StrataExtension {}
