//! Layer `nodes`: the scene-tree classes a game adds: `StrataChunkWorld` (3D, `chunk_world`),
//! `StrataChunkWorld2D` (side view, `chunk_world_2d`) and `StrataUserProfiles`.
//!
//! May use: `base`, `resources`, `host`, `strata_core`; never `sync`.

pub(crate) mod chunk_world;
pub(crate) mod chunk_world_2d;
pub(crate) mod user_profiles;
