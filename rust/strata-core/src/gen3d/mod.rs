//! 3D world generation: the pipeline ([`pipeline::Generator`]) and its stages, one file each.
//!
//! Data flows one way inside this folder too:
//! - the height field: [`terrain`] (built from [`biomes`], whose lookups [`biome_warp`] moves,
//!   and [`ravines`]);
//! - the column pass and the column shapes stages share: [`columns`];
//! - what every stage is handed: [`context`] (a [`context::StageContext`] of the region);
//! - the stages, which read the context and never import the pipeline or each other: [`layers`],
//!   [`caves`] (carving the fields of [`caverns`] and [`tunnels`]), [`ores`], [`water`] and
//!   [`scatter`]; then [`structures`], stamped last so nothing cuts them (the shipped ones:
//!   [`structure_library`]; trees of the world's blocks, grown by [`trees`]); and where the game's objects start, from the finished voxels:
//!   [`spawns`];
//! - the user's code that amends every generated box last: [`hook`];
//! - the buffers a thread reuses: [`scratch`];
//! - the pipeline that runs them in order: [`pipeline`]; and the designer's top-down [`preview`],
//!   which only calls the pipeline, and [`border_shape`], which measures its biome borders.
//!
//! Every stage reads only the preset and world coordinates, so a chunk is a pure function of
//! seed, preset and coordinate.
//!
//! May use: `base`, `preset`, `noise`, `automata`.

pub mod biome_warp;
pub mod biomes;
pub mod border_shape;
pub mod caverns;
pub mod caves;
pub mod climate_tint;
pub mod columns;
pub mod context;
pub mod hook;
pub mod layers;
pub mod ores;
pub mod pipeline;
pub mod preview;
pub mod ravines;
pub mod realism;
pub mod scatter;
pub mod scratch;
pub mod spawns;
pub mod structure_library;
pub mod structures;
pub mod terrain;
#[cfg(test)]
mod tree_tests;
pub mod trees;
pub mod tunnels;
pub mod water;
