//! The materials of textured chunk surfaces: the addon's block shaders (one per render mode,
//! and the water shader) with the world's texture array built from its block library.
//!
//! The vertex attributes they read (and a user's own shader in `StrataChunkWorld.material_override`
//! may read): `VERTEX`, `COLOR` the face shade and ambient occlusion (times the block's colour
//! for a block without textures), `CUSTOM0.r`, one whole number layer + 4096 × (light + 256 ×
//! direction): the face's layer in the texture array (past its last layer, 4095 for none: no
//! texture, use `COLOR`), its light (sky light × 16 + block light, 0–15 each; 240 = open sky, no
//! block light, when `StrataChunkWorld.light_enabled` is off) and its direction (0–5, +x −x +y −y +z
//! −z). No normals or
//! texture coordinates are stored: `blocks.gdshaderinc`'s `vertex()` makes `NORMAL` and `UV`
//! (in voxels, a merged quad repeating its texture once a voxel) from the direction and the
//! position. The shaders' `daylight` uniform (`StrataChunkWorld.daylight`) scales sky light.
//! `strata_layer_tints` (one R8 texel a layer: its tint, 0 none, 1 grass, 2 foliage) tells the
//! shaders which layers the climate tints (`StrataChunkWorld.climate_tint`).
//!
//! May use: `block_library`, Godot's `ShaderMaterial`, `Shader`, `Texture2DArray`, `Image`,
//! `ImageTexture`.

use crate::resources::block_library::BlockLibrary;
use godot::classes::image::Format;
use godot::classes::{Image, ImageTexture, ResourceLoader, Shader, ShaderMaterial, Texture2DArray};
use godot::global::Error;
use godot::prelude::*;

/// Where the block shaders are.
pub(crate) const SHADER_DIR: &str = "res://addons/strata/shaders";

/// One material per surface kind, sharing the library's texture array.
#[derive(Clone)]
pub(crate) struct BlockMaterials {
    pub(crate) opaque: Gd<ShaderMaterial>,
    pub(crate) cutout: Gd<ShaderMaterial>,
    pub(crate) transparent: Gd<ShaderMaterial>,
    pub(crate) liquid: Gd<ShaderMaterial>,
}

/// The block materials for `library` (its texture array built once), or None when a shader
/// does not load (then the caller keeps its vertex-colour materials) with an error naming it.
pub(crate) fn block_materials(library: &Gd<BlockLibrary>) -> Option<BlockMaterials> {
    let textures: Option<Gd<Texture2DArray>> = library.bind().build_texture_array();
    let tints = layer_tints_texture(&library.bind().get_layer_tints());
    let mut loader = ResourceLoader::singleton();
    let mut material = |file: &str| -> Option<Gd<ShaderMaterial>> {
        let path = format!("{SHADER_DIR}/{file}.gdshader");
        let Some(shader) = loader.load(&path).and_then(|r| r.try_cast::<Shader>().ok()) else {
            godot_error!("StrataChunkWorld: cannot load the block shader `{path}`; blocks are drawn in their colours");
            return None;
        };
        let mut m = ShaderMaterial::new_gd();
        m.set_shader(&shader);
        if let Some(t) = &textures {
            m.set_shader_parameter("block_textures", &t.to_variant());
        }
        if let Some(t) = &tints {
            m.set_shader_parameter("strata_layer_tints", &t.to_variant());
        }
        Some(m)
    };
    Some(BlockMaterials {
        opaque: material("blocks_opaque")?,
        cutout: material("blocks_cutout")?,
        transparent: material("blocks_transparent")?,
        liquid: material("water")?,
    })
}

/// The tint of each texture layer as a one-row R8 texture (`strata_layer_tints`), or None for
/// a library without layers.
fn layer_tints_texture(tints: &PackedByteArray) -> Option<Gd<ImageTexture>> {
    if tints.is_empty() {
        return None;
    }
    let image = Image::create_from_data(tints.len() as i32, 1, false, Format::R8, tints)?;
    ImageTexture::create_from_image(&image)
}

/// A texture array of `layers` layers, each `layer`; `None` (with an error naming `what` and
/// `without`, what the world does without it) when Godot refuses it.
pub(crate) fn texture_array_of(
    layer: &Gd<Image>,
    layers: usize,
    what: &str,
    without: &str,
) -> Option<Gd<Texture2DArray>> {
    let mut images: Array<Gd<Image>> = Array::new();
    for _ in 0..layers {
        images.push(layer);
    }
    let mut texture = Texture2DArray::new_gd();
    let err = texture.create_from_images(&images);
    if err != Error::OK {
        godot_error!("StrataChunkWorld: cannot make {what} ({err:?}); {without}");
        return None;
    }
    Some(texture)
}
