//! Sun shadows to the horizon (`StrataChunkWorld.horizon_shadows`): keeps the core's
//! [`HorizonMapper`] centred on the viewer and its finished tiles in a `Texture2DArray`, one
//! layer a tile, which the block shaders march toward each directional light beyond
//! `horizon_start` metres (`blocks.gdshaderinc`). The workers build the tiles; each frame the
//! main thread only copies finished ones into their layers, within the frame's budget.
//!
//! The shaders' uniforms it sets: `horizon_heights` (the array), `horizon_slots` (tiles on the
//! window's side; 0 turns the march off), `horizon_from_world` (engine space to the world's voxels
//! less `horizon_origin_tile` whole tiles: the inverse of the node's global transform, then the
//! floating origin's part within its tile) and `horizon_origin_tile` (the origin's tile, which
//! the shader adds as an integer, so the march is exact however far the origin is).
//!
//! May use: `strata_core::stream::horizon_map`, `meshes` (the surface materials), Godot's
//! `Image`, `Texture2DArray`, `ShaderMaterial`.

use crate::host::meshes::SurfaceMaterials;
use godot::classes::image::Format;
use godot::classes::{Image, ShaderMaterial, Texture2DArray};
use godot::prelude::*;
use std::sync::Arc;
use std::time::Instant;
use strata_core::gen3d::pipeline::Generator;
use strata_core::stream::horizon_map::{HorizonMapper, LAYER_ROWS, LAYER_TEXELS, TILE_TEXELS};

/// The horizon map of one `StrataChunkWorld`: its mapper, its texture, and what the materials were
/// last told.
#[derive(Default)]
pub(super) struct HorizonShadows {
    mapper: Option<HorizonMapper>,
    texture: Option<Gd<Texture2DArray>>,
    /// The uniforms last set: on which materials (the first one's id), the slots, the transform,
    /// the origin's tile.
    told: Option<(InstanceId, i32, Transform3D, Vector2i)>,
    /// How many times the materials were told.
    told_count: u64,
    /// `told_count` when the uniforms were last copied to the chunks' own materials.
    copied_count: u64,
    /// Tiles copied into the texture since it was made.
    uploaded: u64,
}

/// A layer's bytes as an `Image` (`TILE_TEXELS` wide, `LAYER_ROWS` high, 32-bit float).
fn layer_image(texels: &[f32]) -> Option<Gd<Image>> {
    let bytes: Vec<u8> = texels.iter().flat_map(|v| v.to_le_bytes()).collect();
    Image::create_from_data(TILE_TEXELS as i32, LAYER_ROWS as i32, false, Format::RF, &PackedByteArray::from(bytes))
}

/// A layer that names no tile (its header is NaN, which equals no tile's id).
fn blank_layer() -> Vec<f32> {
    let mut texels = vec![0.0; LAYER_TEXELS];
    texels[TILE_TEXELS * TILE_TEXELS] = f32::NAN;
    texels
}

impl HorizonShadows {
    /// Forgets the map (the world stopped, or horizon shadows were turned off).
    pub(super) fn stop(&mut self) {
        self.mapper = None;
        self.texture = None;
        self.told = None;
    }

    /// Whether the materials were told new uniforms since the last call (the chunks' own
    /// copies of them must follow).
    pub(super) fn take_told(&mut self) -> bool {
        let fresh = self.copied_count != self.told_count;
        self.copied_count = self.told_count;
        fresh
    }

    /// Whether a map is being kept.
    pub(super) fn is_started(&self) -> bool {
        self.mapper.is_some()
    }

    /// `(tiles ready, tiles pending, tiles copied into the texture)`.
    pub(super) fn stats(&self) -> (usize, usize, u64) {
        match &self.mapper {
            Some(m) => (m.tiles_ready(), m.tiles_pending(), self.uploaded),
            None => (0, 0, self.uploaded),
        }
    }

    /// One frame: with `on`, the map of `generator`'s land covering `reach` voxels around
    /// `centre` (the world's voxels) is requested and finished tiles are copied in until
    /// `deadline` (one at least); the materials' uniforms follow. Off, the map is dropped and
    /// the materials told so.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn update(
        &mut self,
        on: bool,
        generator: &Arc<Generator>,
        reach: f64,
        centre: [f64; 3],
        materials: &SurfaceMaterials,
        (from_world, origin_tile): (Transform3D, Vector2i),
        deadline: Instant,
    ) {
        if !on {
            if self.mapper.is_some() {
                self.stop();
            }
            // The transform is told even without the map: the climate tint reads it too.
            let told = Some((materials[0].instance_id(), 0, from_world, origin_tile));
            if self.told != told {
                tell(materials, 0, None, (from_world, origin_tile));
                self.told = told;
                self.told_count += 1;
            }
            return;
        }
        let slots = strata_core::stream::horizon_map::slots_for_reach(reach);
        let stale = self.mapper.as_ref().is_none_or(|m| m.slots() != slots || !Arc::ptr_eq(m.generator(), generator));
        if stale {
            self.stop();
            match HorizonMapper::new(generator.clone(), slots) {
                Ok(m) => self.mapper = Some(m),
                Err(e) => {
                    godot_error!(
                        "StrataChunkWorld: cannot start the horizon map's worker thread ({e}); no horizon shadows"
                    );
                    return;
                }
            }
            self.texture = blank_texture(slots);
        }
        let (Some(mapper), Some(texture)) = (self.mapper.as_mut(), self.texture.as_mut()) else { return };
        mapper.set_centre(centre[0], centre[2]);
        let mut copied = 0;
        while copied == 0 || Instant::now() < deadline {
            let Some(tile) = mapper.try_recv() else { break };
            if let Some(image) = layer_image(&tile.texels) {
                texture.update_layer(&image, tile.layer as i32);
            }
            copied += 1;
            self.uploaded += 1;
        }
        let told = Some((materials[0].instance_id(), slots as i32, from_world, origin_tile));
        if self.told != told {
            tell(materials, slots as i32, Some(texture), (from_world, origin_tile));
            self.told = told;
            self.told_count += 1;
        }
    }
}

/// A texture of `slots`² blank layers, or None (with an error) when Godot refuses it.
fn blank_texture(slots: usize) -> Option<Gd<Texture2DArray>> {
    let layer = layer_image(&blank_layer())?;
    crate::host::materials::texture_array_of(&layer, slots * slots, "the horizon map's texture", "no horizon shadows")
}

/// The uniforms [`HorizonShadows::update`] sets.
pub(super) const UNIFORMS: [&str; 4] =
    ["horizon_slots", "horizon_from_world", "horizon_origin_tile", "horizon_heights"];

/// Sets the horizon uniforms on every shader material of `materials` (a user's material without
/// them ignores them).
fn tell(
    materials: &SurfaceMaterials,
    slots: i32,
    texture: Option<&Gd<Texture2DArray>>,
    (from_world, origin_tile): (Transform3D, Vector2i),
) {
    for m in materials {
        if let Ok(mut shader) = m.clone().try_cast::<ShaderMaterial>() {
            shader.set_shader_parameter("horizon_slots", &slots.to_variant());
            shader.set_shader_parameter("horizon_from_world", &from_world.to_variant());
            shader.set_shader_parameter("horizon_origin_tile", &origin_tile.to_variant());
            if let Some(t) = texture {
                shader.set_shader_parameter("horizon_heights", &t.to_variant());
            }
        }
    }
}
