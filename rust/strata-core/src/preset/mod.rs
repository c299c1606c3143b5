//! The world preset: the settings a designer tunes (model, field table, validation) and the
//! files they travel in (RON, Godot `.tres`), with the fingerprint that names a world.
//!
//! May use: `base`.

pub mod io;
pub mod model;

pub use model::WorldPreset;
