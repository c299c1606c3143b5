//! What is written to disk and read back: saved worlds (seed + preset + edits + game state)
//! and user profiles (settings, keybindings, presets).
//!
//! May use: `base`, `preset`.

pub mod profile;
pub mod save;
