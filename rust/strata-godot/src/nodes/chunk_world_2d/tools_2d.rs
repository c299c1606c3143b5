//! `StrataChunkWorld2D`'s raycast (the core's exact 2D grid walk over edits and generated tiles, in
//! the node's local pixels) and its `voxels_changed` announcements.
//!
//! A child module of `chunk_world_2d`, so it reaches the node's generator, edits and tile rules
//! directly; its `#[func]` is a secondary `#[godot_api]` block (the signal lives in the primary
//! block).
//!
//! May use: `strata_core` (2D raycast, edits), the parent module, `world_edits` (the ray cap).

use super::ChunkWorld2D;
use crate::host::world_edits::GODOT_MAX_RAY_DISTANCE;
use godot::prelude::*;
use strata_core::base::coords::IVec3;
use strata_core::base::raycast_2d::raycast_2d;
use strata_core::stream::stream2d::tile_with_edits;

#[godot_api(secondary)]
impl ChunkWorld2D {
    /// The first solid tile (solid in the world's `block_library`) on the ray from `from` along
    /// `direction`, both in the node's pixels (world − origin, as `local_to_tile` takes them), within
    /// `max_distance` pixels (the walk stops after 512 tiles): a dictionary with "hit" (true),
    /// "position" (Vector2i, the world tile), "normal" (Vector2i, the tile edge the ray entered; zero
    /// when `from` is inside it), "point" (Vector2, local pixels, where it entered), "distance"
    /// (float, pixels) and "block" (int); `{}` when nothing is hit. Exact: every tile the ray
    /// passes through is checked, in order; edits included; works anywhere, loaded or not. A
    /// zero or non-finite direction is an error in `last_error()` and returns `{}`.
    #[func]
    pub fn raycast(&mut self, from: Vector2, direction: Vector2, max_distance: f64) -> VarDictionary {
        let mut out = VarDictionary::new();
        let Some(g) = self.generator() else { return out };
        let px = self.tile_pixels();
        let (sx, sy) = (px.x.max(1) as f64, px.y.max(1) as f64);
        // The walk runs in tiles: a pixel ray (unit direction) is a tile ray whose direction has
        // length `scale` tiles per pixel.
        let (dx, dy) = (direction.x as f64, direction.y as f64);
        let len = (dx * dx + dy * dy).sqrt();
        let (ux, uy) = if len > 0.0 && len.is_finite() { (dx / len, dy / len) } else { (dx, dy) };
        let (tx, ty) = (ux / sx, uy / sy);
        let scale = (tx * tx + ty * ty).sqrt();
        let max_tiles =
            if max_distance.is_nan() { max_distance } else { (max_distance * scale).min(GODOT_MAX_RAY_DISTANCE) };
        let rules = self.tile_rules.clone();
        let edits = self.edits();
        let hit = raycast_2d(
            |c| tile_with_edits(&g, edits, c[0], c[1]),
            |b| rules.is_solid(b),
            self.origin.to_world([from.x as f64 / sx, from.y as f64 / sy]),
            [tx, ty],
            max_tiles,
        );
        match hit {
            Ok(Some(h)) => {
                out.set("hit", true);
                out.set("position", Vector2i::new(h.cell[0], h.cell[1]));
                out.set("normal", Vector2i::new(h.normal[0], h.normal[1]));
                let p = self.origin.to_local(h.point);
                out.set("point", Vector2::new((p[0] * sx) as f32, (p[1] * sy) as f32));
                out.set("distance", if scale > 0.0 { h.distance / scale } else { 0.0 });
                out.set("block", h.block as i64);
            }
            Ok(None) => {}
            Err(e) => self.host.error(format!("StrataChunkWorld2D.raycast: {e} (in tiles of {sx}×{sy} pixels)")),
        }
        out
    }
}

impl ChunkWorld2D {
    /// Emits `voxels_changed` with the rectangle of tiles `min..=max` (x, y of the bounds).
    pub(super) fn emit_tiles_changed(&mut self, bounds: Option<(IVec3, IVec3)>) {
        let Some((lo, hi)) = bounds else { return };
        let rect = Rect2i::new(Vector2i::new(lo.x, lo.y), Vector2i::new(hi.x - lo.x + 1, hi.y - lo.y + 1));
        self.signals().voxels_changed().emit(rect);
    }
}
