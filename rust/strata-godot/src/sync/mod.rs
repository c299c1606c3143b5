//! Layer `sync`: `StrataWorldSync`, which shares a `StrataChunkWorld` over the network (the
//! core's `net` server and client driven over Godot's ENet transport).
//!
//! May use: every other layer and `strata_core`.

pub(crate) mod world_sync;
