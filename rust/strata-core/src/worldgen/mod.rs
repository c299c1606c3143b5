//! Generation algorithms and stages.
//!
//! Algorithms (pure functions, each tested against its definition) sit beside the stages that use
//! them; every stage reads only the preset and world coordinates.

pub mod caves;
pub mod cellular;
pub mod flood_fill;
pub mod ores;
pub mod scatter;
pub mod water;

// Height sources, biomes and the column pass.
pub mod biomes;
pub mod diamond_square;
pub mod fast_fbm;
pub mod fractal;
pub mod heightmap;
pub mod midpoint;
pub mod terrain;
pub mod value_noise;
pub mod worley;
