//! Grass and foliage tinted by climate (`StrataChunkWorld.climate_tint`): keeps the core's
//! climate map (`strata_core::stream::climate_map`) centred on the viewer and its finished tiles
//! in one toroidal RGBA8 texture, one texel per chunk-column corner, which the block shaders
//! sample by world position to tint the faces whose layer has a tint (`blocks.gdshaderinc`). A
//! worker computes the corners' climate; each frame the main thread only copies finished tiles
//! into the texture's bytes and uploads it once, within the frame's budget (law: Main thread
//! never waits). A ring slot whose tile left the window is reset to the unbuilt texel (the
//! reference climate, marked unbuilt) before its new tile comes, so the shaders fade the tint out
//! there instead of drawing another place's climate.
//!
//! The uniforms it sets: `strata_climate` (the texture), `strata_climate_slots` (tiles on the
//! window's side; 0 turns the tint off), `strata_climate_start` (the window's first tile, world
//! tiles of 512 voxels), `strata_grass_map` and `strata_foliage_map` (the colour maps' corners).
//! The fragment's world place comes from the horizon uniforms (`horizon_from_world`,
//! `horizon_origin_tile`), which `horizon_shadows.rs` keeps current with the map on or off.
//!
//! The world's side (its frame's call, its queries) is `climate_tint_world.rs`.
//!
//! May use: `strata_core::stream::{climate_map, horizon_map}`, `strata_core::gen3d::climate_tint`,
//! `meshes` (the surface materials), Godot's `Image`, `ImageTexture`, `ShaderMaterial`.

use crate::host::meshes::SurfaceMaterials;
use godot::classes::image::Format;
use godot::classes::{Image, ImageTexture, ShaderMaterial};
use godot::prelude::*;
use std::sync::Arc;
use std::time::Instant;
use strata_core::gen3d::climate_tint::ColorMap;
use strata_core::gen3d::pipeline::Generator;
use strata_core::stream::climate_map::{
    TILE_CORNERS, climate_mapper, climate_slots_for_reach, texel_of, unbuilt_texel,
};
use strata_core::stream::horizon_map::{HorizonMapper, HorizonTile, window_start};

/// The uniforms [`ClimateTint::update`] sets (the chunks' own material copies follow them).
pub(super) const UNIFORMS: [&str; 5] =
    ["strata_climate", "strata_climate_slots", "strata_climate_start", "strata_grass_map", "strata_foliage_map"];

/// What the materials were last told: on which materials (the first one's id), the slots, the
/// window's first tile, the colour maps.
type Told = (InstanceId, i32, Vector2i, [ColorMapKey; 2]);
/// A colour map's corners' bits (a map compares exactly).
type ColorMapKey = [u32; 12];

fn key(map: &ColorMap) -> ColorMapKey {
    let mut k = [0; 12];
    for (i, c) in [map.cold_dry, map.hot_dry, map.cold_wet, map.hot_wet].iter().flatten().enumerate() {
        k[i] = c.to_bits();
    }
    k
}

/// The climate map of one `StrataChunkWorld`: its mapper, texture and what the materials were
/// last told.
#[derive(Default)]
pub(super) struct ClimateTint {
    mapper: Option<HorizonMapper>,
    /// The texture's texels (RGBA8, `slots · 16` a side), what was last uploaded or is to be.
    bytes: Vec<u8>,
    texture: Option<Gd<ImageTexture>>,
    /// The tile whose texels each ring slot holds (None: unbuilt texels).
    held: Vec<Option<HorizonTile>>,
    told: Option<Told>,
    /// The [`UNIFORMS`] told since the chunks' own material copies last followed (bit `i` for
    /// `UNIFORMS[i]`): when the window moves only its start changes, and copying that one
    /// uniform into a thousand copies is a fifth of copying all five.
    untold_copies: u8,
    /// Tiles copied into the texture since it was made.
    uploaded: u64,
}

impl ClimateTint {
    /// Forgets the map (the world stopped, or the tint was turned off).
    pub(super) fn stop(&mut self) {
        *self = Self { untold_copies: self.untold_copies, ..Self::default() };
    }

    /// The [`UNIFORMS`] the materials were told anew since the last call, which the chunks' own
    /// copies of them must follow (none: nothing to copy).
    pub(super) fn take_told(&mut self) -> impl Iterator<Item = &'static str> + use<> {
        let changed = std::mem::take(&mut self.untold_copies);
        UNIFORMS.into_iter().enumerate().filter(move |(i, _)| changed & (1 << i) != 0).map(|(_, name)| name)
    }

    /// `(tiles ready, tiles pending, tiles copied into the texture)`.
    pub(super) fn stats(&self) -> (usize, usize, u64) {
        match &self.mapper {
            Some(m) => (m.tiles_ready(), m.tiles_pending(), self.uploaded),
            None => (0, 0, self.uploaded),
        }
    }

    /// The texture the shaders sample, while the tint is on.
    pub(super) fn texture(&self) -> Option<Gd<ImageTexture>> {
        self.texture.clone()
    }

    /// The texels last uploaded to [`ClimateTint::texture`], while the tint is on.
    pub(super) fn uploaded_image(&self) -> Option<Gd<Image>> {
        self.texture.as_ref().and_then(|_| self.image())
    }

    /// One frame: with `on`, the climate of `generator`'s land covering `reach` voxels around
    /// `centre` (the world's voxels) is requested and finished tiles are copied in until
    /// `deadline` (one at least), then uploaded once; the materials' uniforms follow. Off, the
    /// map is dropped and the materials told so.
    pub(super) fn update(
        &mut self,
        on: bool,
        generator: &Arc<Generator>,
        (reach, centre): (f64, [f64; 3]),
        materials: &SurfaceMaterials,
        maps: [ColorMap; 2],
        deadline: Instant,
    ) {
        if !on {
            if self.mapper.is_some() {
                self.stop();
            }
            self.tell(materials, 0, Vector2i::ZERO, maps);
            return;
        }
        let slots = climate_slots_for_reach(reach);
        let stale = self.mapper.as_ref().is_none_or(|m| m.slots() != slots || !Arc::ptr_eq(m.generator(), generator));
        if stale {
            self.stop();
            match climate_mapper(generator.clone(), slots) {
                Ok(m) => self.mapper = Some(m),
                Err(e) => {
                    godot_error!(
                        "StrataChunkWorld: cannot start the climate map's worker thread ({e}); no climate tint"
                    );
                    return;
                }
            }
            let n = slots * TILE_CORNERS;
            self.bytes = unbuilt_texel().repeat(n * n);
            self.held = vec![None; slots * slots];
            self.texture = self.image().and_then(|i| ImageTexture::create_from_image(&i));
            if self.texture.is_none() {
                godot_error!("StrataChunkWorld: cannot make the climate map's texture; no climate tint");
                self.mapper = None;
                return;
            }
        }
        let Some(mapper) = self.mapper.as_mut() else { return };
        mapper.set_centre(centre[0], centre[2]);
        let start = window_start(HorizonTile::containing(centre[0], centre[2]), slots);
        let inside = |t: HorizonTile| {
            let d = |v: i32, s: i32| i64::from(v) - i64::from(s);
            (0..slots as i64).contains(&d(t.x, start.x)) && (0..slots as i64).contains(&d(t.z, start.z))
        };
        let mut changed = false;
        // Ring slots whose tile left the window hold the reference climate until their new tile.
        for slot in 0..self.held.len() {
            if self.held[slot].is_some_and(|t| !inside(t)) {
                self.held[slot] = None;
                fill_slot(&mut self.bytes, slots, slot, |_, _| unbuilt_texel());
                changed = true;
            }
        }
        let mut copied = 0;
        while copied == 0 || Instant::now() < deadline {
            let Some(tile) = mapper.try_recv() else { break };
            let texels = &tile.texels;
            fill_slot(&mut self.bytes, slots, tile.layer, |i, k| {
                let at = 2 * (k * TILE_CORNERS + i);
                texel_of(texels[at], texels[at + 1])
            });
            self.held[tile.layer] = Some(tile.tile);
            copied += 1;
            self.uploaded += 1;
            changed = true;
        }
        if changed && let (Some(image), Some(texture)) = (self.image(), self.texture.as_mut()) {
            texture.update(&image);
        }
        self.tell(materials, slots as i32, Vector2i::new(start.x, start.z), maps);
    }

    /// The texels as an image (`slots · 16` a side, RGBA8).
    fn image(&self) -> Option<Gd<Image>> {
        let n = ((self.bytes.len() / 4) as f64).sqrt() as i32;
        Image::create_from_data(n, n, false, Format::RGBA8, &PackedByteArray::from(self.bytes.as_slice()))
    }

    /// Sets the uniforms on every shader material of `materials` when they changed.
    fn tell(&mut self, materials: &SurfaceMaterials, slots: i32, start: Vector2i, maps: [ColorMap; 2]) {
        let told = (materials[0].instance_id(), slots, start, maps.map(|m| key(&m)));
        if self.told == Some(told) {
            return;
        }
        // Bits of `UNIFORMS`: all on other materials or a new texture (the map started again:
        // `told` was forgotten), else those whose value changed.
        self.untold_copies |= match self.told {
            Some((id, old_slots, old_start, old_maps)) if id == told.0 => {
                u8::from(old_slots != slots) << 1
                    | u8::from(old_start != start) << 2
                    | u8::from(old_maps[0] != told.3[0]) << 3
                    | u8::from(old_maps[1] != told.3[1]) << 4
            }
            _ => 0b1_1111,
        };
        for m in materials {
            if let Ok(mut shader) = m.clone().try_cast::<ShaderMaterial>() {
                shader.set_shader_parameter("strata_climate_slots", &slots.to_variant());
                shader.set_shader_parameter("strata_climate_start", &start.to_variant());
                shader.set_shader_parameter("strata_grass_map", &map_uniform(&maps[0]).to_variant());
                shader.set_shader_parameter("strata_foliage_map", &map_uniform(&maps[1]).to_variant());
                if let Some(t) = &self.texture {
                    shader.set_shader_parameter("strata_climate", &t.to_variant());
                }
            }
        }
        self.told = Some(told);
    }
}

/// Writes `texel(i, k)` into the 16 × 16 texels of ring slot `slot` (tile `(x, z)` of the window
/// lives in slot `x mod slots + slots · (z mod slots)`, its corners at texels
/// `(16 · (x mod slots) + i, 16 · (z mod slots) + k)`).
fn fill_slot(bytes: &mut [u8], slots: usize, slot: usize, texel: impl Fn(usize, usize) -> [u8; 4]) {
    let n = slots * TILE_CORNERS;
    let (sx, sz) = (slot % slots, slot / slots);
    for k in 0..TILE_CORNERS {
        for i in 0..TILE_CORNERS {
            let at = 4 * ((sz * TILE_CORNERS + k) * n + sx * TILE_CORNERS + i);
            if let Some(dst) = bytes.get_mut(at..at + 4) {
                dst.copy_from_slice(&texel(i, k));
            }
        }
    }
}

/// A colour map as the shaders' `mat4`: its corners (cold-dry, hot-dry, cold-wet, hot-wet) in
/// columns 0-3.
fn map_uniform(map: &ColorMap) -> Projection {
    let col = |c: [f32; 3]| Vector4::new(c[0], c[1], c[2], 0.0);
    Projection::from_cols(col(map.cold_dry), col(map.hot_dry), col(map.cold_wet), col(map.hot_wet))
}

/// The colour map of `colors` (cold-dry, hot-dry, cold-wet, hot-wet), or `fallback` when it is
/// empty; None when it is not four colours within `[0, 1]`.
pub(super) fn color_map_of(colors: &PackedColorArray, fallback: ColorMap) -> Option<ColorMap> {
    if colors.is_empty() {
        return Some(fallback);
    }
    let c: Vec<[f32; 3]> = colors.as_slice().iter().map(|c| [c.r, c.g, c.b]).collect();
    let map = match c.as_slice() {
        [cold_dry, hot_dry, cold_wet, hot_wet] => {
            ColorMap { cold_dry: *cold_dry, hot_dry: *hot_dry, cold_wet: *cold_wet, hot_wet: *hot_wet }
        }
        _ => return None,
    };
    map.is_valid().then_some(map)
}

/// `value` for `StrataChunkWorld.property` (a colour map: none, or four colours within 0 to
/// 1), or `previous` with an error naming the property, the value and what is allowed.
pub(super) fn checked_map(property: &str, value: PackedColorArray, previous: &PackedColorArray) -> PackedColorArray {
    if color_map_of(&value, strata_core::gen3d::climate_tint::GRASS_MAP).is_some() {
        return value;
    }
    godot_error!(
        "StrataChunkWorld.{property}: {} colours {:?}; allowed: none (the built-in map) or 4 (cold-dry, hot-dry, cold-wet, hot-wet) with channels 0 to 1; keeping the map",
        value.len(),
        value.as_slice()
    );
    previous.clone()
}
