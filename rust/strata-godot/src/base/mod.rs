//! Layer `base`: the leaf helpers every other layer may use: the last error a class keeps
//! (`errors`), property clamping and the world's bounds (`ranges`), Godot paths and file
//! errors (`files`), the debugger's custom monitors (`monitors`), the allocator trim after
//! streaming (`allocator`) and the thread's CPU clock (`thread_clock`).
//!
//! May use: godot and `strata_core` only; no other layer of this crate.

pub(crate) mod allocator;
pub(crate) mod errors;
pub(crate) mod files;
pub(crate) mod monitors;
pub(crate) mod ranges;
pub(crate) mod thread_clock;
