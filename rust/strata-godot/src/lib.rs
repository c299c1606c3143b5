//! Strata's Godot classes: a thin gdext layer over `strata-core`.
//!
//! Classes: [`world_preset::WorldPreset`] (Resource), [`chunk_world::ChunkWorld`] (Node3D).
//! Workers never touch Godot objects; only plain Rust data crosses the channels, and every
//! `Gd<T>` stays on the main thread.

use godot::prelude::*;

mod chunk_world;
mod chunk_world_2d;
mod preset_io_api;
mod user_profiles;
mod world_preset;

struct StrataExtension;

#[gdextension]
unsafe impl ExtensionLibrary for StrataExtension {}
