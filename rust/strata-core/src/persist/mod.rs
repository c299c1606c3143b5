//! What is written to disk and read back: saved worlds (seed + preset + edits + game state)
//! and user profiles (settings, keybindings, presets), and the edit journal of a shared world.
//!
//! May use: `base`, `preset`.

pub(crate) mod codec;
pub mod entities;
pub mod error;
pub mod journal;
pub mod profile;
pub mod save;
