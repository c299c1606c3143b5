//! Cellular automata on bit grids (the 4-5 rule, Life-like rules, bit-parallel 2D and 3D
//! passes), the cave automaton's program built from a preset, and flood fill of enclosed
//! pockets and of secondary regions (`life`): one implementation that 3D and 2D generation both use.
//!
//! May use: `base`, `preset`.

pub mod cave_rules;
pub mod cellular;
pub mod flood_fill;
pub mod life;
