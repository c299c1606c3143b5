//! 3D world generation: the pipeline ([`pipeline::Generator`]) and its stages, one file each:
//! terrain (height field and the column pass), biomes, caves, ores, water and scatter; plus
//! the designer's top-down preview.
//!
//! Every stage reads only the preset and world coordinates, so a chunk is a pure function of
//! seed, preset and coordinate.
//!
//! May use: `base`, `preset`, `noise`, `automata`.

pub mod biomes;
pub mod caves;
pub mod ores;
pub mod pipeline;
pub mod preview;
pub mod scatter;
pub mod terrain;
pub mod water;
