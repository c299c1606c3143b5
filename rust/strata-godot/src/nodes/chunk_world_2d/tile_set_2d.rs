//! `StrataChunkWorld2D`'s generated TileSet: the autotile atlas of the library in use, drawn
//! from each block's side texture (loaded and scaled here, on the main thread, when the library
//! or the layer changes; never while streaming), with collision on solid blocks.
//!
//! May use: its parent (`chunk_world_2d.rs`), `block_library`, `strata_core`'s autotile atlas and
//! block library.

use super::ChunkWorld2D;
use crate::resources::block_library::BlockLibrary;
use godot::classes::image::{Format, Interpolation};
use godot::classes::{Image, ImageTexture, ResourceLoader, Texture2D, TileMapLayer, TileSet, TileSetAtlasSource};
use godot::prelude::*;
use std::collections::HashMap;
use strata_core::base::block_library::{BlockLibrary as CoreLibrary, Face};
use strata_core::gen2d::autotile::{self, TileRules};

impl ChunkWorld2D {
    /// Generates the TileSet of the library in use and gives it to `layer`.
    pub(super) fn give_tile_set(&mut self, layer: &mut Gd<TileMapLayer>) {
        let px = self.tile_size.x.clamp(4, 256);
        let rows = autotile::library_atlas_rows(&self.blocks, px as u32) as usize;
        if rows < self.blocks.len() {
            self.host.warn(format!(
                "StrataChunkWorld2D.block_library: {} blocks do not fit one atlas of {px}-pixel tiles; allowed: at most {rows} (16,384 pixels); blocks from id {rows} on are drawn as nothing",
                self.blocks.len()
            ));
        }
        let textures = self.side_textures(px);
        let (tile_set, source_id) = make_tile_set(px, &self.blocks, &self.tile_rules, &textures);
        layer.set_tile_set(&tile_set);
        self.tile_source_id = source_id as i64;
        self.generated_tile_set = Some(tile_set);
    }

    /// Each block's side texture (`+z`, the face a side view shows) as `px`×`px` RGBA8 bytes,
    /// scaled nearest-neighbour; None where a block has none. A texture that does not load is
    /// reported with the block's name and drawn from the block's colour.
    fn side_textures(&self, px: i32) -> Vec<Option<Vec<u8>>> {
        let library = self.block_library.clone().unwrap_or_else(BlockLibrary::create_default);
        let Ok(core) = library.bind().core() else { return Vec::new() };
        let mut loader = ResourceLoader::singleton();
        let mut loaded: HashMap<String, Option<Vec<u8>>> = HashMap::new();
        let mut out = Vec::with_capacity(core.len());
        for def in core.blocks() {
            let path = def.faces.texture_for_face(Face::PosZ);
            if path.is_empty() {
                out.push(None);
                continue;
            }
            let bytes = loaded
                .entry(path.to_string())
                .or_insert_with(|| {
                    let image =
                        loader.load(path).and_then(|r| r.try_cast::<Texture2D>().ok()).and_then(|t| t.get_image());
                    let Some(mut image) = image else {
                        godot_error!(
                            "StrataChunkWorld2D.block_library: block \"{}\": cannot load texture `{path}`; allowed: a Texture2D resource path; drawn in its colour",
                            def.name
                        );
                        return None;
                    };
                    if image.is_compressed() {
                        image.decompress();
                    }
                    image.convert(Format::RGBA8);
                    if image.get_width() != px || image.get_height() != px {
                        image.resize_ex(px, px).interpolation(Interpolation::NEAREST).done();
                    }
                    Some(image.get_data().to_vec())
                })
                .clone();
            out.push(bytes);
        }
        out
    }
}

/// A TileSet of the autotile atlas layout of `rules` for `library`, drawn by
/// [`autotile::library_atlas_rgba_with`] from `textures` (each block's side texture, `px`×`px`), with
/// a full-square collision polygon on physics layer 0 for solid blocks only. Returns it and its
/// atlas source id.
fn make_tile_set(
    px: i32,
    library: &CoreLibrary,
    rules: &TileRules,
    textures: &[Option<Vec<u8>>],
) -> (Gd<TileSet>, i32) {
    let px = px.clamp(4, 256);
    let (w, h, pixels) = autotile::library_atlas_rgba_with(library, px as u32, textures, rules.layout());
    let mut tile_set = TileSet::new_gd();
    tile_set.set_tile_size(Vector2i::new(px, px));
    tile_set.add_physics_layer();
    tile_set.set_physics_layer_collision_layer(0, 1);
    let Some(image) =
        Image::create_from_data(w as i32, h as i32, false, Format::RGBA8, &PackedByteArray::from(pixels.as_slice()))
    else {
        godot_error!("StrataChunkWorld2D: could not create the tile atlas image");
        return (tile_set, 0);
    };
    let mut source = TileSetAtlasSource::new_gd();
    if let Some(texture) = ImageTexture::create_from_image(&image) {
        source.set_texture(&texture);
    }
    source.set_texture_region_size(Vector2i::new(px, px));
    let id = tile_set.add_source(&source);
    let half = px as f32 / 2.0;
    let square = PackedVector2Array::from(
        [Vector2::new(-half, -half), Vector2::new(half, -half), Vector2::new(half, half), Vector2::new(-half, half)]
            .as_slice(),
    );
    let rows = h as i32 / px;
    for row in 1..rows {
        let solid = rules.is_solid(row as u16);
        for col in 0..rules.layout().columns() as i32 {
            let at = Vector2i::new(col, row);
            source.create_tile(at);
            if solid && let Some(mut data) = source.get_tile_data(at, 0) {
                data.add_collision_polygon(0);
                data.set_collision_polygon_points(0, 0, &square);
            }
        }
    }
    (tile_set, id)
}
