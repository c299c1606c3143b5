//! `StrataChunkWorld`'s side of the climate tint (`climate_tint.rs` keeps the map and its
//! texture): the frame's call that keeps the map on the viewer and the chunks' own material
//! copies current, the colour maps in use, and the queries (a secondary `#[godot_api]` block):
//! `get_corner_climate`, `get_tint_at`, `get_climate_texture`, `get_climate_image`.
//!
//! May use: the parent module, `climate_tint`, `strata_core::gen3d::climate_tint`, Godot's
//! `Image`, `ImageTexture`, `ShaderMaterial`.

use super::ChunkWorld;
use super::climate_tint::color_map_of;
use godot::classes::{Image, ImageTexture};
use godot::prelude::*;
use std::time::Instant;
use strata_core::gen3d::climate_tint::{ColorMap, FOLIAGE_MAP, GRASS_MAP, corner_climate, tint_between_corners};

impl ChunkWorld {
    /// The grass and foliage colour maps in use (`grass_colors`, `foliage_colors`, or the
    /// built-in ones).
    pub(super) fn climate_maps(&self) -> [ColorMap; 2] {
        [
            color_map_of(&self.grass_colors, GRASS_MAP).unwrap_or(GRASS_MAP),
            color_map_of(&self.foliage_colors, FOLIAGE_MAP).unwrap_or(FOLIAGE_MAP),
        ]
    }

    /// Keeps the climate map around the viewer (at `viewer`, the world's voxels) and the
    /// materials' climate uniforms current, copying finished tiles until `deadline`; the chunks'
    /// own material copies follow.
    pub(super) fn update_climate_tint(&mut self, viewer: [f64; 3], deadline: Instant) {
        let Some(generator) = self.streamer.as_ref().map(|s| s.generator().clone()) else { return };
        let (vd, ..) = self.distances();
        // The land drawn: the near view and the far view beyond it, as the horizon map reckons.
        let reach = f64::from(vd) * 32.0 * f64::from(1u32 << self.far_view_levels.clamp(0, 6));
        let materials = self.materials();
        let maps = self.climate_maps();
        self.climate.update(self.climate_tint, &generator, (reach, viewer), &materials, maps, deadline);
        let told: Vec<&str> = self.climate.take_told().collect();
        if !told.is_empty() {
            self.copies_follow(&materials[0], &told);
        }
    }
}

#[godot_api(secondary)]
impl ChunkWorld {
    /// The climate (temperature, moisture, each 0 to 1) at chunk-column corner `corner`: world
    /// column `corner · 32`, the value the climate map holds for it (`climate_tint`). Computed
    /// here and now from the preset, loaded or not (for tools and tests; the shaders read the
    /// map the workers fill). Zero without a preset.
    #[func]
    pub fn get_corner_climate(&mut self, corner: Vector2i) -> Vector2 {
        let Some(g) = self.generator() else { return Vector2::ZERO };
        let (t, m) = corner_climate(g.terrain().biomes(), corner.x, corner.y);
        Vector2::new(t, m)
    }

    /// What a face of tint `tint` (`StrataBlockType.TINT_GRASS` or `TINT_FOLIAGE`; white for
    /// another) at world column `(x, z)` is multiplied by (linear RGB, 1 at the average climate):
    /// the climate blended between the column's four corners, then the colour map
    /// (`grass_colors`, `foliage_colors`). The block shaders draw the same, from the climate map.
    #[func]
    pub fn get_tint_at(&mut self, x: f64, z: f64, tint: i64) -> Color {
        let [grass, foliage] = self.climate_maps();
        let map = match tint {
            1 => grass,
            2 => foliage,
            _ => return Color::WHITE,
        };
        let Some(g) = self.generator() else { return Color::WHITE };
        let [r, gr, b] = tint_between_corners(g.terrain().biomes(), &map, x, z);
        Color::from_rgb(r, gr, b)
    }

    /// The climate map the block shaders sample (RGBA8, one texel per chunk-column corner:
    /// corner `(cx, cz)` at texel `(cx, cz)` modulo its width; r temperature and g moisture as
    /// bytes, b 255 where its tile is built); null while the tint is off or nothing streams.
    #[func]
    pub fn get_climate_texture(&self) -> Option<Gd<ImageTexture>> {
        self.climate.texture()
    }

    /// The texels last uploaded to `get_climate_texture()`, as a new `Image` (the same layout),
    /// kept by the world: what the texture holds also where the renderer keeps no copy to read
    /// back (headless). Null while the tint is off or nothing streams.
    #[func]
    pub fn get_climate_image(&self) -> Option<Gd<Image>> {
        self.climate.uploaded_image()
    }
}
