//! Shared worlds: the wire protocol and the engine-free state machines of an authoritative
//! server and its clients.
//!
//! Every chunk is a pure function of seed, preset and coordinate, so a client generates the
//! world itself: only the preset (once, on joining), edits, players and chat travel. The server
//! holds the truth (preset, edits in one order, players); clients send requests, the server
//! validates them (reach, world bounds, block ids, a rate limit), applies them in order and
//! broadcasts them, so every client ends with the server's voxels. Nothing here does I/O: bytes
//! in, bytes out, to whatever carries them (Godot's `MultiplayerAPI` in `strata-godot`).
//!
//! May use: `base`, `preset`, `persist` and the other `net` modules.

pub mod client;
pub mod connections;
pub mod interest;
pub mod movement;
pub mod protocol;
pub mod server;
pub mod shared_state;
pub mod state_file;
pub mod world_shape;
