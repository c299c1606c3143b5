//! Base types every layer shares: coordinates, block ids and the block library, chunk buffers,
//! seeded hashing, SIMD dispatch, sparse voxel edits and atomic file writes.
//!
//! May use: `std` and the crates in `Cargo.toml`. Nothing else in this crate: every other layer
//! builds on this one.

pub mod atomic_file;
pub mod block;
pub mod block_library;
pub mod byte_codec;
pub mod chunk;
pub mod clusters;
pub mod coords;
pub mod edit_history;
pub mod edits;
pub mod origin;
pub mod origin_2d;
pub mod raycast;
pub mod raycast_2d;
pub mod rng;
pub mod shapes;
pub mod simd;
