//! `StrataChunkWorld`'s own structures: `structures` (the `StrataStructure` resources its rules may name
//! besides the shipped ones) resolved through the world's block library into the structure
//! library its generator is built with, the fingerprint a save keeps of them (checked when the
//! save loads), and `capture_structure`, which makes a `StrataStructure` of a region of the world.
//!
//! A save keeps the fingerprint in its game state under [`STRUCTURES_STATE_KEY`] (absent when
//! the world has no structures of its own); `load_world` warns, naming both fingerprints and the
//! world's structures, when the save was made with others.
//!
//! A child module of `chunk_world`, so it reaches the node's fields directly; its `#[func]`s are
//! a secondary `#[godot_api]` block.
//!
//! May use: `strata_core` (generator, edits, structure templates), `structure`, the parent
//! module.

use super::ChunkWorld;
use crate::resources::structure::{ResolvedStructures, Structure, check_size, resolve_world_structures};
use godot::prelude::*;
use std::sync::Arc;
use strata_core::IVec3;
use strata_core::base::block::AIR;
use strata_core::base::block_library::default_library;
use strata_core::base::edits::apply_edits;
use strata_core::gen3d::pipeline::Generator;
use strata_core::gen3d::structures::{KEEP, StructureTemplate};

/// The game-state key under which a save keeps the fingerprint of the world's own structures.
pub const STRUCTURES_STATE_KEY: &str = "strata.structures";

#[godot_api(secondary)]
impl ChunkWorld {
    /// `preset.validate()` for this world: block names are looked up in its `block_library`
    /// and structure rules may name its own `structures` as well as the shipped ones. "" when
    /// a world built from `preset` here would build, else the error it would report.
    #[func]
    pub fn validate_preset(&self, preset: Gd<crate::resources::world_preset::WorldPreset>) -> GString {
        self.preset_error(&preset.bind()).as_str().into()
    }

    /// A `StrataStructure` named `name` holding the voxels of the box with corners `from` and `to`
    /// (both included, in any order) as the world has them: generated, with the edits. Works
    /// anywhere, loaded or not (it generates the box on the calling thread, about a millisecond
    /// per 32³ voxels). With `air_as_keep`, air becomes cells that keep the world where the
    /// structure is placed, so it fits into terrain instead of carving it. Null on error (a box
    /// wider than 256 voxels on an edge or of more than 2,097,152 voxels, no generator), the
    /// message in `last_error()`.
    #[func]
    pub fn capture_structure(
        &mut self,
        from: Vector3i,
        to: Vector3i,
        name: GString,
        #[opt(default = false)] air_as_keep: bool,
    ) -> Option<Gd<Structure>> {
        let what = "StrataChunkWorld.capture_structure";
        let min = IVec3::new(from.x.min(to.x), from.y.min(to.y), from.z.min(to.z));
        let max = IVec3::new(from.x.max(to.x), from.y.max(to.y), from.z.max(to.z));
        let edge = |a: i32, b: i32| (b as i64 - a as i64 + 1).min(i32::MAX as i64) as i32;
        let size = Vector3i::new(edge(min.x, max.x), edge(min.y, max.y), edge(min.z, max.z));
        if let Err(e) = check_size(&name.to_string(), size) {
            self.host.error(format!("{what}: the box {from} to {to}: {e}"));
            return None;
        }
        let Some(g) = self.generator() else {
            self.host.error(format!("{what}: the world has no generator ({})", self.host.last_error()));
            return None;
        };
        let size = IVec3::new(size.x, size.y, size.z);
        let mut voxels = g.generate_box(min, size);
        if let Some(edits) = self.edits() {
            apply_edits(&mut voxels, &edits.edits_in_box(min, size));
        }
        let cells = voxels.data().iter().map(|&b| if air_as_keep && b == AIR { KEEP } else { b }).collect();
        let library = self.library().unwrap_or(std::borrow::Cow::Borrowed(default_library()));
        let made = StructureTemplate::new(&name.to_string(), size, cells)
            .map_err(|e| e.to_string())
            .and_then(|t| Structure::from_template(&t, &library));
        match made {
            Ok(s) => Some(s),
            Err(e) => {
                self.host.error(format!("{what}: {e}"));
                None
            }
        }
    }

    /// A hash of the world's own `structures` (names, sizes and cells, by block name), as hex
    /// text: what `save_world` keeps and `load_world` compares. "" when the world has none (or
    /// one does not resolve; see `last_error()`). Two machines placing the same structures give
    /// the same text; a multiplayer game whose worlds bring their own structures compares it.
    #[func]
    pub fn get_structures_fingerprint(&mut self) -> GString {
        match self.own_structures() {
            Ok(Some(w)) => format!("{:016x}", w.fingerprint).as_str().into(),
            _ => GString::new(),
        }
    }
}

impl ChunkWorld {
    /// The world's own structures resolved through its block library (cached until
    /// `structures` or `block_library` is set); a structure that does not resolve is reported
    /// once, as an error in `last_error()`.
    pub(super) fn own_structures(&mut self) -> ResolvedStructures {
        if let Some(r) = &self.resolved_structures {
            return r.clone();
        }
        let library = self.library().unwrap_or(std::borrow::Cow::Borrowed(default_library()));
        let resolved =
            resolve_world_structures("StrataChunkWorld", &self.structures, &library).map(|w| w.map(Arc::new));
        if let Err(e) = &resolved {
            self.host.error(format!("StrataChunkWorld: cannot build the world: {e}"));
        }
        self.resolved_structures = Some(resolved.clone());
        resolved
    }

    /// The generator of the world's preset, library and own structures (see
    /// [`StrataChunkWorld::generator`]); None while a structure does not resolve.
    pub(super) fn build_generator(
        &mut self,
        library: &strata_core::base::block_library::BlockLibrary,
    ) -> Option<Arc<Generator>> {
        let own = self.own_structures().ok()?;
        let own = own.as_ref().map(|w| (&w.library, w.build_key));
        self.host.generator_with(self.preset.as_ref(), library, own)
    }

    /// The configuration warnings about the preset and the world's own structures, or None
    /// when the world has none (the preset is then checked against the shipped ones).
    pub(super) fn structures_warning(&self) -> Option<Vec<String>> {
        if self.structures.iter_shared().all(|s| s.is_none()) {
            return None;
        }
        let library = self.library().unwrap_or(std::borrow::Cow::Borrowed(default_library()));
        let own = match resolve_world_structures("StrataChunkWorld", &self.structures, &library) {
            Ok(Some(w)) => w,
            Ok(None) => return None,
            Err(e) => return Some(vec![format!("A structure is invalid: {e}")]),
        };
        let preset = self.preset.as_ref()?;
        let error = preset.bind().validate_with_structures(&library, &own.library);
        Some(if error.is_empty() { vec![] } else { vec![format!("The preset is invalid: {error}")] })
    }

    /// What a world built from `preset` with this world's block library and own structures
    /// would report: "" when it builds, else the error (for `validate_preset`).
    pub(crate) fn preset_error(&self, preset: &crate::resources::world_preset::WorldPreset) -> String {
        let library = match self.library() {
            Ok(l) => l,
            Err(e) => return format!("the world's block library is invalid: {e}"),
        };
        match resolve_world_structures("StrataChunkWorld", &self.structures, &library) {
            Ok(Some(own)) => preset.validate_with_structures(&library, &own.library),
            Ok(None) => preset.check_with_library(&library),
            Err(e) => format!("a structure of the world is invalid: {e}"),
        }
    }

    /// Before a save: keeps the fingerprint of the world's own structures in the game state
    /// (and none when it has none).
    pub(super) fn note_structures_for_save(&mut self) {
        let value = self.get_structures_fingerprint();
        if value.is_empty() {
            self.host.set_raw_state(STRUCTURES_STATE_KEY, None);
        } else {
            self.host.set_raw_state(STRUCTURES_STATE_KEY, Some(value.to_string()));
        }
    }

    /// After a load from `path`: warns (console and `last_error()`) when the save was made with
    /// other structures of the world's own than `structures` holds now: the world generates
    /// with its own, so structures may stand otherwise than when it was saved.
    pub(super) fn check_loaded_structures(&mut self, path: &GString) {
        let saved = GString::from(self.host.raw_state(STRUCTURES_STATE_KEY).unwrap_or(""));
        let now = self.get_structures_fingerprint();
        if saved == now {
            return;
        }
        let names = match self.own_structures() {
            Ok(Some(w)) => w.names.join(", "),
            _ => String::new(),
        };
        let shown = |f: &GString| if f.is_empty() { "none".to_string() } else { f.to_string() };
        let message = format!(
            "StrataChunkWorld.load_world: `{path}` was saved with other structures of the world's own (fingerprint {}) than `structures` holds ({}: [{names}]); the world places the structures it holds now, so they may stand otherwise than when it was saved. Set `structures` to the save's before loading it",
            shown(&saved),
            shown(&now),
        );
        // The load succeeded (OK, `last_error()` empty): what it could not keep as saved is a
        // warning, in the console and through `load_warning`.
        godot_warn!("{message}");
        self.signals().load_warning().emit(&GString::from(message.as_str()));
    }
}
