//! Generation algorithms and stages.
//!
//! Algorithms (pure functions, each tested against its definition) sit beside the stages that use
//! them; every stage reads only the preset and world coordinates.

pub mod caves;
pub mod cellular;
pub mod flood_fill;
pub mod ores;
pub mod water;
