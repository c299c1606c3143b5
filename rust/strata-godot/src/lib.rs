//! Godot classes over strata-core.
use godot::prelude::*;
struct StrataExtension;
#[gdextension]
unsafe impl ExtensionLibrary for StrataExtension {}
