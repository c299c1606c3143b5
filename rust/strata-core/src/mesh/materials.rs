//! What meshing needs to know of each block id ([`MeshMaterials`]): how it is drawn (its render
//! mode, so which surface its faces go to), whether it hides its neighbours' faces, its fallback
//! colour and the texture-array layer of each of its six faces. Built once from a
//! [`BlockLibrary`] and the engine's texture layers, then shared by every mesher.
//!
//! A layer is a texture *and the tint of the faces that show it* ([`texture_layers`]): the block
//! shaders look a layer's tint up by its number, so the vertex format carries no tint. A texture
//! shown both tinted and untinted gets two layers of the same image.
//!
//! May use: `base` and the other `mesh` modules.

use crate::base::block::{AIR, BlockId};
use crate::base::block_library::{BlockLibrary, Face, RenderMode, Tint, default_library};
use std::sync::{Arc, OnceLock};

/// How one block id is meshed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockLook {
    /// Which surface the block's faces go to.
    pub render_mode: RenderMode,
    /// Solid blocks stop the player (collision faces). A block hides its neighbours' faces only
    /// when it is solid and [`RenderMode::Opaque`] ([`BlockLook::occludes`]).
    pub solid: bool,
    /// Fallback colour (linear RGB): the vertex colour, shaded per face and by AO.
    pub color: [f32; 3],
    /// Texture-array layer of each face, in [`Face::ALL`] order (`+x, -x, +y, -y, +z, -z`).
    pub layers: [u16; 6],
    /// Whether the faces between two voxels of this block are hidden
    /// ([`BlockDef::hide_faces_between_same`](crate::base::block_library::BlockDef)): true for
    /// every transparent and liquid block, and for the cutout blocks that ask for it.
    pub hides_same: bool,
}

impl BlockLook {
    /// Whether this block hides the faces of its neighbours (and darkens their AO): solid and
    /// opaque.
    pub fn occludes(&self) -> bool {
        self.solid && self.render_mode == RenderMode::Opaque
    }
}

/// How ids the materials do not know are meshed: solid, opaque magenta, layer 0 (as the
/// built-in block table reports them).
pub const UNKNOWN_LOOK: BlockLook = BlockLook {
    render_mode: RenderMode::Opaque,
    solid: true,
    color: [1.0, 0.0, 1.0],
    layers: [0; 6],
    hides_same: false,
};

/// What meshing needs per block id: dense tables indexed by id. Id 0 is always air (never drawn,
/// hides nothing) whatever the library says of it; ids beyond the library mesh as
/// [`UNKNOWN_LOOK`].
/// The layer of a face without a texture: past every layer of a texture array, so a shader
/// sees it is not one (the block shaders then draw the vertex colour).
pub const NO_TEXTURE: u16 = u16::MAX;

#[derive(Clone, Debug, PartialEq)]
pub struct MeshMaterials {
    looks: Vec<BlockLook>,
}

impl MeshMaterials {
    /// The materials of `library`, with each face's texture layer from `layer_of(texture name,
    /// the face's tint)`. A face whose texture name is empty or unknown to `layer_of` gets
    /// [`NO_TEXTURE`].
    pub fn from_library(library: &BlockLibrary, mut layer_of: impl FnMut(&str, Tint) -> Option<u16>) -> Self {
        let looks = library
            .blocks()
            .iter()
            .enumerate()
            .map(|(id, b)| {
                let layers = Face::ALL.map(|f| {
                    let name = b.faces.texture_for_face(f);
                    if name.is_empty() { NO_TEXTURE } else { layer_of(name, b.tint.for_face(f)).unwrap_or(NO_TEXTURE) }
                });
                let (solid, render_mode) =
                    if id == AIR as usize { (false, RenderMode::Transparent) } else { (b.solid, b.render_mode) };
                let hides_same = match render_mode {
                    RenderMode::Transparent | RenderMode::Liquid => true,
                    RenderMode::Cutout => b.hide_faces_between_same,
                    RenderMode::Opaque => false,
                };
                BlockLook { render_mode, solid, color: b.color, layers, hides_same }
            })
            .collect();
        Self { looks }
    }

    /// The materials of `library` with layers numbered in [`texture_layers`]' order.
    pub fn with_texture_order(library: &BlockLibrary) -> Self {
        let layers = texture_layers(library);
        Self::from_library(library, |name, tint| {
            layers.iter().position(|(n, t)| n == name && *t == tint).and_then(|i| u16::try_from(i).ok())
        })
    }

    /// The default materials, shared: the default block library with layers in
    /// [`texture_order`] of it (see [`MeshMaterials::default`]).
    pub fn shared_default() -> Arc<MeshMaterials> {
        static DEFAULT: OnceLock<Arc<MeshMaterials>> = OnceLock::new();
        DEFAULT.get_or_init(|| Arc::new(Self::with_texture_order(default_library()))).clone()
    }

    /// How `id` is meshed ([`UNKNOWN_LOOK`] beyond the table).
    #[inline]
    pub fn look(&self, id: BlockId) -> &BlockLook {
        self.looks.get(id as usize).unwrap_or(&UNKNOWN_LOOK)
    }

    /// Number of ids with their own entry (ids `0..len()`); the rest are unknown.
    pub fn len(&self) -> usize {
        self.looks.len()
    }

    /// Whether no id has its own entry (never for a library's materials: they hold air).
    pub fn is_empty(&self) -> bool {
        self.looks.is_empty()
    }

    /// Whether `id` hides its neighbours' faces (see [`BlockLook::occludes`]).
    #[inline]
    pub fn occludes(&self, id: BlockId) -> bool {
        id != AIR && self.look(id).occludes()
    }
}

impl Default for MeshMaterials {
    /// The default block library's materials, texture layers numbered in [`texture_order`] of it:
    /// the distinct non-empty texture names as they first appear walking its blocks in id order
    /// and each block's faces in [`Face::ALL`] order (`+x, -x, +y, -y, +z, -z`). The engine
    /// builds its texture array in that same order.
    fn default() -> Self {
        Self::shared_default().as_ref().clone()
    }
}

/// The distinct (non-empty texture name, tint) pairs of `library`'s faces as they first appear
/// walking its blocks in id order and each block's faces in [`Face::ALL`] order: the layers of
/// [`MeshMaterials::with_texture_order`] and [`MeshMaterials::default`]. A library without tints,
/// or one that never shows a texture both tinted and not, has one layer per texture name.
pub fn texture_layers(library: &BlockLibrary) -> Vec<(String, Tint)> {
    let mut layers: Vec<(String, Tint)> = Vec::new();
    for b in library.blocks() {
        for f in Face::ALL {
            let name = b.faces.texture_for_face(f);
            let tint = b.tint.for_face(f);
            if !name.is_empty() && !layers.iter().any(|(n, t)| n == name && *t == tint) {
                layers.push((name.to_string(), tint));
            }
        }
    }
    layers
}

/// The texture name of each layer of [`texture_layers`], in layer order (a name twice where
/// its texture is shown both tinted and not): the images the engine's texture array stacks.
pub fn texture_order(library: &BlockLibrary) -> Vec<String> {
    texture_layers(library).into_iter().map(|(n, _)| n).collect()
}

/// The tint of each layer of [`texture_layers`], in layer order, as numbers ([`Tint::number`]):
/// what the block shaders look up by a face's layer.
pub fn layer_tints(library: &BlockLibrary) -> Vec<u8> {
    texture_layers(library).into_iter().map(|(_, t)| t.number()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::block::{BLOCK_COUNT, GRASS, STONE, WATER, block_info};
    use crate::base::block_library::{GLASS, LEAVES, LOG, TORCH};

    #[test]
    fn default_layers_follow_the_first_appearance_of_each_texture() {
        let names = texture_order(default_library());
        assert_eq!(&names[..4], ["stone", "dirt", "grass_side", "grass_top"]);
        assert_eq!(
            &names[names.len() - 6..],
            ["torch", "glass", "leaves", "log_side", "log_top", "planks"].map(String::from)
        );
        let m = MeshMaterials::default();
        let layer = |n: &str| names.iter().position(|x| x == n).unwrap() as u16;
        assert_eq!(m.look(STONE).layers, [layer("stone"); 6]);
        let g = layer("grass_side");
        assert_eq!(m.look(GRASS).layers, [g, g, layer("grass_top"), layer("dirt"), g, g]);
        let s = layer("log_side");
        assert_eq!(m.look(LOG).layers, [s, s, layer("log_top"), layer("log_top"), s, s]);
    }

    #[test]
    fn a_layer_is_a_texture_and_its_tint() {
        use crate::base::block_library::{BlockDef, FaceTints};
        // The default library shows each texture with one tint: one layer per name, as before.
        let names = texture_order(default_library());
        let tints = layer_tints(default_library());
        assert_eq!(names.len(), tints.len());
        let tint_of = |n: &str| tints[names.iter().position(|x| x == n).unwrap()];
        assert_eq!(tint_of("grass_top"), Tint::Grass.number());
        assert_eq!(tint_of("leaves"), Tint::Foliage.number());
        assert_eq!(tint_of("grass_side"), Tint::None.number());
        assert_eq!(tint_of("stone"), Tint::None.number());
        // A texture tinted on one block and not on another gets a second layer of the same image.
        let mut blocks = default_library().clone().into_blocks();
        blocks.push(BlockDef {
            name: "jungle_leaves".into(),
            tint: FaceTints::NONE,
            ..default_library().get(LEAVES).unwrap().clone()
        });
        let lib = BlockLibrary::new(blocks).unwrap();
        let names2 = texture_order(&lib);
        assert_eq!(names2.len(), names.len() + 1);
        assert_eq!(names2.last().map(String::as_str), Some("leaves"));
        let m = MeshMaterials::with_texture_order(&lib);
        let jungle = lib.id_of("jungle_leaves").unwrap();
        assert_eq!(m.look(jungle).layers, [names.len() as u16; 6]);
        assert_eq!(m.look(LEAVES).layers, MeshMaterials::default().look(LEAVES).layers);
        assert_eq!(*layer_tints(&lib).last().unwrap(), Tint::None.number());
    }

    #[test]
    fn built_in_blocks_keep_their_colours_and_solidity_and_unknown_ids_are_magenta() {
        let m = MeshMaterials::default();
        for id in 0..BLOCK_COUNT {
            let info = block_info(id);
            assert_eq!(m.look(id).color, info.color);
            assert_eq!(m.look(id).solid, info.solid);
            assert_eq!(m.occludes(id), info.solid, "{}", info.name);
        }
        assert_eq!(m.look(WATER).render_mode, RenderMode::Liquid);
        assert!(!m.occludes(TORCH) && !m.occludes(GLASS) && !m.occludes(LEAVES));
        for id in [m.len() as BlockId, 300, u16::MAX] {
            assert_eq!(*m.look(id), UNKNOWN_LOOK);
            assert!(m.occludes(id));
        }
    }

    #[test]
    fn unknown_and_empty_texture_names_get_no_texture() {
        let m = MeshMaterials::from_library(default_library(), |n, _| (n == "glass").then_some(7));
        assert_eq!(m.look(GLASS).layers, [7; 6]);
        assert_eq!(m.look(STONE).layers, [NO_TEXTURE; 6]);
        assert_eq!(m.look(AIR).layers, [NO_TEXTURE; 6], "air names no texture");
    }
}
