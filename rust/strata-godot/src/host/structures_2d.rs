//! A side-view world's structures resolved: the `StrataStructure2D` resources of a
//! `StrataChunkWorld2D` (besides the shipped `cottage`, `ruin` and `crypt`) resolved through the
//! world's block library into the structure library its generator places, kept until the
//! resources or the block library change.
//!
//! May use: `strata_core` (2D structures, fingerprints), `resources::structure_2d`.

use crate::resources::structure_2d::Structure2D;
use godot::prelude::*;
use std::sync::Arc;
use strata_core::base::block_library::BlockLibrary as CoreLibrary;
use strata_core::gen2d::StructureLibrary2D;
use strata_core::gen2d::structure_library::shipped_structures_2d_with;
use strata_core::preset::fingerprint::fnv1a64;

/// The world's structure library as last resolved, and for which inputs.
#[derive(Default)]
pub(crate) struct StructureCache2D {
    /// The fingerprint of the block library it was resolved through, and whether `structures`
    /// changed since (cleared by the setter).
    key: Option<u64>,
    resolved: Option<Result<Arc<Resolved2D>, String>>,
    /// The error already reported, so a frame does not report it again.
    reported: Option<String>,
}

/// A world's side-view structures resolved through its block library.
pub(crate) struct Resolved2D {
    /// The shipped structures and the world's own (replacing shipped ones of their name).
    pub(crate) library: Arc<StructureLibrary2D>,
    /// The fingerprint of `library` (by block id): a generator is built again when it changes.
    pub(crate) build_key: u64,
    /// A hash of the world's own structures by tile name, in order (0: none).
    pub(crate) fingerprint: u64,
}

impl StructureCache2D {
    /// Forgets the resolved library (the world's `structures` changed).
    pub(crate) fn forget(&mut self) {
        self.key = None;
        self.resolved = None;
    }

    /// The library resolved from `structures` through `library`, resolved again when the block
    /// library (by `key`, its fingerprint) or the structures changed.
    pub(crate) fn resolved(
        &mut self,
        structures: &Array<Option<Gd<Structure2D>>>,
        library: &CoreLibrary,
        key: u64,
    ) -> Result<Arc<Resolved2D>, String> {
        if self.key != Some(key) || self.resolved.is_none() {
            self.key = Some(key);
            self.resolved = Some(resolve(structures, library).map(Arc::new));
        }
        match &self.resolved {
            Some(r) => r.clone(),
            None => Err("the structures were not resolved".into()),
        }
    }

    /// The error reported last, taken (the structures resolve again).
    pub(crate) fn take_reported(&mut self) -> Option<String> {
        self.reported.take()
    }

    /// Notes `message` as reported; false when it was the one reported already.
    pub(crate) fn report(&mut self, message: &str) -> bool {
        if self.reported.as_deref() == Some(message) {
            return false;
        }
        self.reported = Some(message.to_string());
        true
    }
}

/// Resolves `structures` through `library`: the shipped structures made of its blocks, then the
/// world's own; an error naming `StrataChunkWorld2D.structures[i]` when one does not resolve.
fn resolve(structures: &Array<Option<Gd<Structure2D>>>, library: &CoreLibrary) -> Result<Resolved2D, String> {
    let mut own = Vec::new();
    let mut hashes = Vec::new();
    for (i, s) in structures.iter_shared().enumerate() {
        let Some(s) = s else { continue };
        let s = s.bind();
        own.push(s.template(library).map_err(|e| format!("StrataChunkWorld2D.structures[{i}]: {e}"))?);
        hashes.extend_from_slice(&s.content_fingerprint(library).to_le_bytes());
    }
    let fingerprint = if own.is_empty() { 0 } else { fnv1a64(&hashes) };
    let all = shipped_structures_2d_with(library, own);
    Ok(Resolved2D { build_key: all.fingerprint(), library: Arc::new(all), fingerprint })
}
