//! Streaming: the worker pool and job scheduler, the 3D streamer (near chunks and the far
//! view; [`streamer`] on the main thread, [`chunk_job`] on the workers), the far-view policy (`far_policy`) and far meshing (`far_mesh`), the horizon map for
//! distant sun shadows (`horizon_map`), and the 2D streamer with its edit log (`tile_edits`: shape fills, undo and redo with water).
//! Workers generate and mesh; the caller's thread only drains finished results and hands spent
//! mesh buffers back through a pool it never waits for ([`buffer_pool`]). World queries
//! ([`query`]) answer for any voxel or column, loaded or not.
//!
//! Light for streamed chunks comes from [`lighting`] ([`lighting2d`] for the side view), navigation meshes from [`navigation`] ([`navigation2d`] for the side view's walkers); water
//! flow after edits from [`water_flow`] (the rules) and [`water_runner`] (the flow thread).
//!
//! May use: `base`, `preset`, `noise`, `automata`, `gen3d`, `gen2d`, `light`, `mesh`, `nav`.

pub(crate) mod buffer_pool;
pub mod chunk_job;
pub mod climate_map;
pub mod far_mesh;
pub mod far_policy;
pub mod horizon_map;
pub mod lighting;
pub mod lighting2d;
pub mod navigation;
pub mod navigation2d;
pub mod query;
pub mod scheduler;
pub(crate) mod spawns2d;
pub mod stream2d;
pub mod streamer;
pub mod tile_edits;
pub mod voxel_cache;
pub mod water_flow;
pub mod water_runner;
