//! Cellular automata on bit grids (the 4-5 rule, Life-like rules, bit-parallel 2D and 3D
//! passes) and flood fill of enclosed pockets: one implementation that 3D and 2D generation
//! both use.
//!
//! May use: `base`, `preset`.

pub mod cellular;
pub mod flood_fill;
