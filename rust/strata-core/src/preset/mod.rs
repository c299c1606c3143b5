//! The world preset: the settings a designer tunes (model, field table, validation) and the
//! files they travel in, with the fingerprint that names a world.
//!
//! One file per job: [`model`] (the settings), [`fields`] (their field table: group, range,
//! help and accessors of each scalar setting), [`validation`] (the checks of a whole preset),
//! [`life_rule`] (the parser of Life-like cave rules), [`error`] (why a preset
//! could not be read or written), [`ron`] (the versioned sharing format), [`tres`] (Godot text
//! resources), [`file`](mod@file) (files on disk, the format chosen by extension) and [`fingerprint`] (the
//! world's name as a hash, and the sparse form saves store), [`world_code`] (seed and
//! settings as a short text to share), [`migrate`] (the preset format and the defaults an older
//! file was made with).
//!
//! May use: `base`.

pub mod error;
pub mod fields;
pub mod file;
pub mod fingerprint;
pub mod life_rule;
pub mod migrate;
pub mod model;
pub mod ron;
pub mod tres;
pub mod validation;
pub mod world_code;

pub use model::WorldPreset;
