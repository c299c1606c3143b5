//! `StrataChunkWorld2D`'s structures: `structures` (the `StrataStructure2D` resources its preset's
//! `structure_rules` may name besides the shipped `cottage`, `ruin` and `crypt`) resolved through
//! the world's block library into the side-view structure library its generator places, and
//! `get_structures_in` / `get_structures_fingerprint`, as `StrataChunkWorld` offers them in 3D.
//!
//! The resolved library (`host::structures_2d`) is kept until `structures` is set or the block
//! library in use changes (by its fingerprint); a structure that does not resolve stops the world from building, the
//! error (naming `structures[i]`, the structure, its file, the cell and the name) reported once
//! in `last_error()`. Placement itself is the core's: a pure function of seed, rule and cell,
//! stamped into every chunk it meets by the workers (`strata_core::gen2d::structures`).
//!
//! May use: `strata_core` (2D generator), `host::structures_2d`, the parent module.

use super::ChunkWorld2D;
use crate::host::structures_2d::Resolved2D;
use godot::prelude::*;
use std::sync::Arc;
use strata_core::base::block_library::default_library;
use strata_core::gen2d::Generator2D;

impl ChunkWorld2D {
    /// The world's structure library, resolved when `structures` or the block library in use
    /// changed.
    fn resolved_structures_2d(&mut self) -> Result<Arc<Resolved2D>, String> {
        let key = self.blocks.fingerprint();
        self.structures_2d.resolved(&self.structures, &self.blocks, key)
    }

    /// The generator of the preset, built with the world's structure library (see
    /// `ChunkWorld2D::generator`); None while a structure does not resolve (reported once).
    pub(super) fn structures_generator(&mut self) -> Option<Arc<Generator2D>> {
        match self.resolved_structures_2d() {
            Ok(r) => {
                if let Some(old) = self.structures_2d.take_reported() {
                    self.host.resolve(&old);
                }
                let own = Some((&r.library, r.build_key));
                self.host.generator_with(self.preset.as_ref(), default_library(), own)
            }
            Err(e) => {
                let message = format!("StrataChunkWorld2D: cannot build the world: {e}");
                if self.structures_2d.report(&message) {
                    self.host.error(message);
                }
                None
            }
        }
    }

    /// Takes new `structures` into use: the world builds again with them at the next frame
    /// (edits kept).
    pub(super) fn structures_changed(&mut self) {
        self.structures_2d.forget();
        if self.streamer.is_some() {
            self.stop_streaming();
            self.edit_log.clear();
        }
    }
}

#[godot_api(secondary)]
impl ChunkWorld2D {
    /// The structures (from the preset's `structure_rules`) whose boxes meet the tiles of `area`
    /// (a rectangle of tiles, as `get_tile` takes them): an array of dictionaries with
    /// "structure" (its name), "rule" (index in `structure_rules`), "position" (Vector2i, its
    /// top-left tile), "size" (Vector2i, tiles) and "flipped" (mirrored left to right). The same
    /// answer on every machine and before any chunk loads: placement is a pure function of seed,
    /// rule and cell. At most 65,536 columns are asked; a wider area is an error in
    /// `last_error()`.
    #[func]
    pub fn get_structures_in(&mut self, area: Rect2i) -> Array<VarDictionary> {
        let mut out = Array::new();
        let (x0, y0) = (area.position.x as i64, area.position.y as i64);
        let (x1, y1) = (x0 + area.size.x.max(0) as i64, y0 + area.size.y.max(0) as i64);
        if x1 - x0 > 65_536 || x1 > i32::MAX as i64 {
            self.host.error(format!(
                "StrataChunkWorld2D.get_structures_in: area {area} spans {} columns; allowed: at most 65536 inside the world",
                x1 - x0
            ));
            return out;
        }
        let Some(g) = self.generator() else { return out };
        let rules = &g.preset().structures.rules;
        for p in g.structures_in(x0 as i32, x1.max(x0 + 1) as i32) {
            if (p.max_y() as i64) <= y0 || (p.min_y as i64) >= y1.max(y0 + 1) {
                continue;
            }
            let mut d = VarDictionary::new();
            let name = rules.get(p.rule as usize).map(|r| r.structure.trim()).unwrap_or("");
            d.set("structure", &GString::from(name).to_variant());
            d.set("rule", p.rule as i64);
            d.set("position", Vector2i::new(p.min_x, p.min_y));
            d.set("size", Vector2i::new(p.width, p.height));
            d.set("flipped", p.flipped);
            out.push(&d);
        }
        out
    }

    /// The block id structure `structure` (a dictionary of `get_structures_in`) sets at tile `p`,
    /// or -1 where it keeps the world or `p` lies outside it: what the world shows there
    /// unless edited.
    #[func]
    pub fn get_structure_tile(&mut self, structure: VarDictionary, p: Vector2i) -> i64 {
        let Some(g) = self.generator() else { return -1 };
        let get = |k: &str| structure.get(k);
        let (Some(rule), Some(pos), Some(flipped)) = (
            get("rule").and_then(|v| v.try_to::<i64>().ok()),
            get("position").and_then(|v| v.try_to::<Vector2i>().ok()),
            get("flipped").and_then(|v| v.try_to::<bool>().ok()),
        ) else {
            return -1;
        };
        let found = g
            .structures_in(pos.x, pos.x + 1)
            .into_iter()
            .find(|q| q.rule as i64 == rule && q.min_x == pos.x && q.min_y == pos.y && q.flipped == flipped);
        found.and_then(|q| g.structures().cell_at(&q, p.x, p.y)).map_or(-1, |id| id as i64)
    }

    /// A hash of the world's own `structures` (names and cells, by tile name), as hex (16
    /// digits); "" when it has none, or while one does not resolve (see `last_error()`). Two
    /// machines placing the same structures give the same text.
    #[func]
    pub fn get_structures_fingerprint(&mut self) -> GString {
        match self.resolved_structures_2d() {
            Ok(r) if r.fingerprint != 0 => GString::from(format!("{:016x}", r.fingerprint).as_str()),
            _ => GString::new(),
        }
    }
}
