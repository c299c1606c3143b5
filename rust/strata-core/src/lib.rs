//! Engine-free core of Strata: everything that makes a world, with no Godot dependency.
//!
//! Folders are dependency layers; a layer uses only the layers before it, so data flows one
//! way: [`base`] → [`preset`] → [`noise`] → [`automata`] → [`gen3d`] / [`gen2d`] → [`light`] → [`mesh`] / [`nav`] →
//! [`stream`] → [`persist`] → [`net`]. `cargo xtask test` fails when an import breaks that order. See
//! `ARCHITECTURE.md` for the code map and the laws every layer keeps.

pub mod automata;
pub mod base;
pub mod gen2d;
pub mod gen3d;
pub mod light;
pub mod mesh;
pub mod nav;
pub mod net;
pub mod noise;
pub mod persist;
pub mod preset;
pub mod stream;

pub use base::block::BlockId;
pub use base::chunk::VoxelBuffer;
pub use base::coords::{CHUNK_SIZE, ChunkCoord, IVec3};
pub use preset::model::WorldPreset;
