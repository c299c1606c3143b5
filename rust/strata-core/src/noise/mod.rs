//! Noise and height sources: value noise, Perlin/simplex/ridged fBm (scalar and SIMD rows),
//! 3D Perlin fBm (per point and on separable grids), Perlin noise on separable 3D grids, Worley
//! cells, midpoint displacement, diamond-square and real elevation data.
//!
//! Each is a pure function of its seed and coordinates, tested against its definition.
//!
//! May use: `base`, `preset` (for the enums that select an algorithm).

pub mod diamond_square;
pub mod esri_ascii;
pub mod fast_fbm;
pub mod fast_fbm3;
pub mod fractal;
pub mod grid_perlin;
pub mod heightmap;
pub mod heightmap_error;
pub mod midpoint;
pub mod pca;
pub mod sampler;
pub mod simplex;
pub mod spectrum;
pub mod value;
pub mod worley;
