//! Engine-free core of Strata: everything that makes a world, with no Godot dependency.
//!
//! Data flows one way: [`preset::WorldPreset`] → [`generator::Generator`] → [`chunk::VoxelBuffer`]
//! → [`mesh::ChunkMesh`] → (the Godot layer makes a node). [`stream::Streamer`] runs generation
//! and meshing on worker threads and hands finished meshes back over channels.

pub mod atomic_file;
pub mod block;
pub mod chunk;
pub mod coords;
pub mod edits;
pub mod worldgen;
pub mod generator;
pub mod lod;
pub mod mesh;
pub mod preset;
pub mod preset_io;
pub mod preview;
pub mod profile;
pub mod rng;
pub mod save;
pub mod scheduler;
pub mod simd;
pub mod stream;
pub mod surface_bytes;
pub mod world2d;

pub use block::BlockId;
pub use chunk::VoxelBuffer;
pub use coords::{CHUNK_SIZE, ChunkCoord, IVec3};
pub use preset::WorldPreset;
