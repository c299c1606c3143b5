//! Minecraft-style light: sky light and block light, 0–15 each, per voxel, as pure functions of
//! the voxels over buffers the caller owns.
//!
//! * **Sky light** is 15 at and above a column's exposure ([`sky`]: the lowest y from which
//!   everything up to the top of the world is clear), so full sky light goes straight down
//!   through clear blocks without loss. From there it spreads sideways and down into caves and
//!   water, losing 1 per voxel entered, plus the block's opacity.
//! * **Block light** starts at each emissive block's emission and spreads the same way.
//! * Opaque blocks (opacity 15) take no light from neighbours; an emissive one keeps its own.
//! * What each block does comes from a caller-filled table, [`LightProps`], never from block ids
//!   written into this code.
//!
//! Formally, with `cost(v) = 1 + opacity(v)`, each channel is the least function with
//! `L(v) = source(v)` for opaque `v` and `L(v) = max(source(v), max over face neighbours n of
//! L(n) − cost(v))` otherwise, where the sky's source is 15 at and above the exposure and the
//! block channel's source is the emission. Equivalently, `L(v)` is the best over sources `s`
//! of `source(s)` minus the cost of a path from `s` to `v` through non-opaque voxels.
//!
//! ## The contract, and why a chunk alone agrees with any larger block (law: Seamless)
//!
//! A source is at most 15 and every step costs at least 1, so a path that gives `v` any light
//! has at most [`LIGHT_REACH`] = 14 steps, and every voxel on it lies within 14 steps of `v`.
//! Hence the light of a voxel is decided by the voxels within 14 of it and by the sources there,
//! and the sky's sources are decided per column by the exposure, which the caller gives (it is a
//! property of the world's column, the same whichever box asks). [`light_region`] takes a box of
//! voxels and the exposure of its columns and returns the light of the box shrunk by 14 on every
//! side: exactly the world's light there, because every path that matters lies inside the box.
//! A chunk's light ([`light_chunk`]) covers the chunk and its one-voxel shell (34³, what the
//! mesher's faces look into) and reads the chunk padded by [`LIGHT_MARGIN`] = 15 (62³). The same
//! voxels inside a 3×3×3 block padded the same way get the same bytes: both are the world's
//! light. Nothing else is read: no other chunk's light, no order of calls, no global (law:
//! Deterministic).
//!
//! The caller (the streamer) supplies the padded voxels with edits applied and
//! [`SkyExposure`] for the padded columns; [`sky_exposure`] computes it inside the box from an
//! upper bound per column (its module doc says how the streamer derives the bound from the
//! generator's column info and the edits).
//!
//! ## After an edit
//!
//! One changed voxel changes light only within 14 steps of itself and of the part of its
//! column whose exposure moved ([`LightEdit::bounds`]); [`relight_after_edit`] recomputes that
//! box with the same function and copies it into the affected chunks' buffers, reporting which
//! changed (an edit near a border reaches up to 14 voxels into the neighbours, plus their shell).
//!
//! The side view's light is the same definition in two dimensions, per tile (`light2d`: the light
//! of a rectangle of tiles, of a chunk, what each tile is drawn with, and the chunks an edit
//! relights).
//!
//! Files: `props` (the block table), `buffer` (the packed output and its accessors), `sky`
//! (exposure), `propagate` (the light of a box or chunk, and its scratch), `relight` (edits),
//! `light2d` (the side view), `error`.
//!
//! May use: `base` only.

mod buffer;
mod error;
pub mod light2d;
mod propagate;
mod props;
mod relight;
pub mod sky;
#[cfg(test)]
mod tests;

pub use buffer::{Light, LightBuffer};
pub use error::LightError;
pub use propagate::{
    LIGHT_CHUNK_SIZE, LIGHT_MARGIN, LIGHT_MAX, LIGHT_PADDED_SIZE, LIGHT_REACH, LIGHT_SHELL, LightScratch,
    MAX_REGION_SIDE, light_chunk, light_region,
};
pub use props::{LightProps, OPAQUE};
pub use relight::{LightEdit, relight_after_edit};
pub use sky::{SKY_CLOSED, SkyExposure, sky_exposure};
