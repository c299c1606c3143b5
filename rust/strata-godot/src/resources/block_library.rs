//! `StrataBlockType` and `StrataBlockLibrary` (Resources): the blocks a world is made of, edited in the
//! inspector and turned into the core's validated `StrataBlockLibrary` (names, faces, render mode,
//! solidity, light). A world saves the names of the blocks its edits use, so adding, removing
//! or reordering blocks never changes what an old save loads (law: Nothing is lost).
//!
//! A face's texture is named by its resource path; the world builds its texture array from the
//! paths in the order the core's `MeshMaterials` walks them, every layer `texture_size` pixels a
//! side (16 or 32). `StrataBlockLibrary.create_default(texture_size)` is the core's default library
//! with the addon's textures of that size (`res://addons/strata/textures/blocks/` for 16,
//! `…/blocks_32/` for 32: the same names, palette and mean colours).
//!
//! May use: `strata_core::base` (block, block_library), `base::ranges`, Godot's `Resource`,
//! `Texture2D`.

use godot::classes::image::{Format, Interpolation};
use godot::classes::{IResource, Image, Resource, ResourceLoader, Texture2D, Texture2DArray};
use godot::prelude::*;
use godot::register::info::{PropertyHint, PropertyHintInfo, PropertyInfo};
use strata_core::base::block_library::{
    BlockDef, BlockFaces, BlockLibrary as CoreLibrary, BlockLibraryError, Face, FaceTints, RenderMode, Tint,
    default_library,
};

/// The sides a library's texture array may be built at, in pixels (`texture_size`).
pub(crate) const TEXTURE_SIZES: [i64; 2] = [16, 32];

/// The side of every layer of a library's texture array unless its `texture_size` says
/// otherwise: what every library had before 32 was allowed.
pub(crate) const DEFAULT_TEXTURE_SIZE: i64 = 16;

/// Where the default library's textures of side `size` (one of [`TEXTURE_SIZES`]) are.
pub(crate) fn default_texture_dir(size: i64) -> &'static str {
    if size == 32 { "res://addons/strata/textures/blocks_32" } else { "res://addons/strata/textures/blocks" }
}

/// `value` as a texture size: itself when allowed, else the nearer of [`TEXTURE_SIZES`] (24
/// and below: 16), with a warning naming `what`, the value and what is allowed.
fn texture_size_or_nearest(what: &str, value: i64) -> i64 {
    if TEXTURE_SIZES.contains(&value) {
        return value;
    }
    let nearest = if value <= 24 { 16 } else { 32 };
    godot_warn!("{what}: {value} is not a texture size; allowed: 16 or 32; using {nearest}");
    nearest
}

/// One block type of a [`StrataBlockLibrary`].
#[derive(GodotClass)]
#[class(tool, base = Resource, rename = StrataBlockType)]
pub struct BlockType {
    base: Base<Resource>,
    /// Stable name, what saves store: lower-case letters, digits and `_`, at most 64 bytes,
    /// unique in its library. Block 0 is `air`. (`name` would clash with `Resource.resource_name`'s
    /// accessors `get_name`/`set_name`.)
    #[export]
    block_name: GString,
    /// Texture of every face; `texture_top`, `texture_side` and `texture_bottom` override it.
    /// Empty everywhere: the faces use `color`.
    #[export]
    texture: Option<Gd<Texture2D>>,
    /// Texture of the top face (+y); null: `texture`.
    #[export]
    texture_top: Option<Gd<Texture2D>>,
    /// Texture of the four side faces; null: `texture`.
    #[export]
    texture_side: Option<Gd<Texture2D>>,
    /// Texture of the bottom face (-y); null: `texture`.
    #[export]
    texture_bottom: Option<Gd<Texture2D>>,
    /// Colour where a face has no texture (and the tint of the far view).
    #[export]
    color: Color,
    /// How the faces are drawn: Opaque; Cutout (alpha-tested, e.g. leaves, torch); Transparent
    /// (blended, e.g. glass, ice); Liquid (the water surface).
    #[export(enum = (Opaque, Cutout, Transparent, Liquid))]
    render_mode: i64,
    /// Stops the player and hides the faces of its neighbours.
    #[export]
    solid: bool,
    /// Block light it gives off: 0 to 15.
    #[var(set)]
    #[export(range = (0.0, 15.0))]
    light_emission: i64,
    /// Light levels it removes from light passing through, beyond the level each step costs:
    /// 0 (air, glass) to 15 (stops light, as opaque blocks do).
    #[var(set)]
    #[export(range = (0.0, 15.0))]
    light_opacity: i64,
    /// Hides the faces between two voxels of this block, so a crown of Cutout leaves is drawn as
    /// its outer shell rather than as every leaf cube ("fast leaves"). Matters for Cutout blocks
    /// only: Transparent and Liquid blocks always hide the faces between two of their own.
    #[export]
    hide_faces_between_same: bool,
    /// Which climate colour map tints the top face (+y): None (as drawn), Grass or Foliage
    /// (`StrataChunkWorld.climate_tint`). The tint is 1 at the average climate, so the face keeps
    /// its texture's look there and turns yellower where hot and dry, bluer where cold, lusher
    /// where hot and wet. The default library tints the grass top (Grass) and leaves (Foliage).
    /// Another value is refused by the library's `validate()`.
    #[export(enum = (None, Grass, Foliage))]
    tint_top: i64,
    /// Which climate colour map tints the four side faces (see `tint_top`).
    #[export(enum = (None, Grass, Foliage))]
    tint_side: i64,
    /// Which climate colour map tints the bottom face (-y) (see `tint_top`).
    #[export(enum = (None, Grass, Foliage))]
    tint_bottom: i64,
}

#[godot_api]
impl IResource for BlockType {
    fn init(base: Base<Resource>) -> Self {
        Self {
            base,
            block_name: GString::new(),
            texture: None,
            texture_top: None,
            texture_side: None,
            texture_bottom: None,
            color: Color::from_rgb(1.0, 1.0, 1.0),
            render_mode: 0,
            solid: true,
            light_emission: 0,
            light_opacity: 15,
            hide_faces_between_same: false,
            tint_top: 0,
            tint_side: 0,
            tint_bottom: 0,
        }
    }
}

#[godot_api]
impl BlockType {
    /// `render_mode`: solid faces, drawn opaque.
    #[constant]
    pub const RENDER_MODE_OPAQUE: i64 = 0;
    /// `render_mode`: alpha-tested faces (leaves, torch).
    #[constant]
    pub const RENDER_MODE_CUTOUT: i64 = 1;
    /// `render_mode`: blended faces (glass, ice).
    #[constant]
    pub const RENDER_MODE_TRANSPARENT: i64 = 2;
    /// `render_mode`: the water surface.
    #[constant]
    pub const RENDER_MODE_LIQUID: i64 = 3;
    /// `tint_top`, `tint_side`, `tint_bottom`: drawn as authored.
    #[constant]
    pub const TINT_NONE: i64 = 0;
    /// `tint_top`, `tint_side`, `tint_bottom`: the grass colour map.
    #[constant]
    pub const TINT_GRASS: i64 = 1;
    /// `tint_top`, `tint_side`, `tint_bottom`: the foliage colour map.
    #[constant]
    pub const TINT_FOLIAGE: i64 = 2;

    #[func]
    fn set_light_emission(&mut self, value: i64) {
        self.light_emission = crate::base::ranges::int_in_range("StrataBlockType", "light_emission", value, 0, 15);
    }

    #[func]
    fn set_light_opacity(&mut self, value: i64) {
        self.light_opacity = crate::base::ranges::int_in_range("StrataBlockType", "light_opacity", value, 0, 15);
    }
}

/// The resource path naming a texture ("" for none).
fn texture_name(t: &Option<Gd<Texture2D>>) -> String {
    t.as_ref().map(|t| t.get_path().to_string()).unwrap_or_default()
}

impl BlockType {
    /// This block as the core sees it, as block `index` of its library; a tint that names no
    /// colour map is refused naming the block, the property, the value and what is allowed.
    fn core(&self, index: usize) -> Result<BlockDef, BlockLibraryError> {
        let tint = |field: &'static str, value: i64| {
            Tint::from_number(value).ok_or_else(|| BlockLibraryError::Field {
                index,
                name: format!("{:?}", self.block_name.to_string()),
                field,
                value: value.to_string(),
                allowed: "0 (None), 1 (Grass), 2 (Foliage)".into(),
            })
        };
        let tint = FaceTints {
            top: tint("tint_top", self.tint_top)?,
            side: tint("tint_side", self.tint_side)?,
            bottom: tint("tint_bottom", self.tint_bottom)?,
        };
        let all = texture_name(&self.texture);
        let or_all = |t: &Option<Gd<Texture2D>>| {
            let n = texture_name(t);
            if n.is_empty() { all.clone() } else { n }
        };
        let (top, side, bottom) = (or_all(&self.texture_top), or_all(&self.texture_side), or_all(&self.texture_bottom));
        let faces = if top == side && side == bottom {
            BlockFaces::All(all.clone())
        } else {
            BlockFaces::TopSideBottom { top, side, bottom }
        };
        let render_mode = match self.render_mode {
            1 => RenderMode::Cutout,
            2 => RenderMode::Transparent,
            3 => RenderMode::Liquid,
            _ => RenderMode::Opaque,
        };
        Ok(BlockDef {
            name: self.block_name.to_string(),
            faces,
            color: [self.color.r, self.color.g, self.color.b],
            render_mode,
            solid: self.solid,
            light_emission: self.light_emission.clamp(0, 255) as u8,
            light_opacity: self.light_opacity.clamp(0, 255) as u8,
            hide_faces_between_same: self.hide_faces_between_same,
            tint,
        })
    }
}

/// The blocks of a world, in id order (block 0 is `air`); `StrataChunkWorld.block_library`.
#[derive(GodotClass)]
#[class(tool, base = Resource, init, rename = StrataBlockLibrary)]
pub struct BlockLibrary {
    base: Base<Resource>,
    /// The block types; a block's id is its index. Block 0 must be `air`.
    #[export]
    blocks: Array<Gd<BlockType>>,
    /// The side in pixels of every layer of the library's texture array (`build_texture_images`,
    /// `build_texture_array`: what chunks and far columns sample): 16 (the default) or 32.
    /// Textures of another size are scaled to it, nearest neighbour, so pixel art stays crisp;
    /// `create_default(32)` loads the addon's 32×32 textures, drawn with finer detail and the
    /// same mean colours, so the far view looks the same. Another value is clamped to the nearer
    /// of 16 and 32 with a warning. A world builds its texture array when its `block_library` is
    /// set: change this before, or set the world's `block_library` again after.
    #[var(set)]
    #[export]
    #[init(val = DEFAULT_TEXTURE_SIZE)]
    texture_size: i64,
}

#[godot_api]
impl IResource for BlockLibrary {
    /// Shows `texture_size` in the inspector as a choice of 16 or 32.
    fn on_validate_property(&self, property: &mut PropertyInfo) {
        if property.property_name == "texture_size" {
            property.hint_info =
                PropertyHintInfo { hint: PropertyHint::ENUM, hint_string: GString::from("16:16,32:32") };
        }
    }
}

#[godot_api]
impl BlockLibrary {
    /// The core's default blocks (the 18 built-in ones, then torch, glass, leaves, log and
    /// planks) with the addon's textures of side `texture_size`: 16 (`addons/strata/textures/blocks/`)
    /// or 32 (`…/blocks_32/`, finer detail, the same colours); the library's `texture_size` is set
    /// to it. Another size is clamped to the nearer of 16 and 32 with a warning.
    #[func(rename = create_default)]
    pub fn create_default_sized(#[opt(default = 16)] texture_size: i64) -> Gd<BlockLibrary> {
        let size = texture_size_or_nearest("StrataBlockLibrary.create_default: texture_size", texture_size);
        let dir = default_texture_dir(size);
        let mut lib = BlockLibrary::new_gd();
        lib.bind_mut().texture_size = size;
        let mut loader = ResourceLoader::singleton();
        let mut load = |name: &str| -> Option<Gd<Texture2D>> {
            if name.is_empty() {
                return None;
            }
            let path = format!("{dir}/{name}.png");
            loader.load(&path).and_then(|r| r.try_cast::<Texture2D>().ok())
        };
        let mut blocks: Array<Gd<BlockType>> = Array::new();
        for def in default_library().blocks() {
            let mut t = BlockType::new_gd();
            {
                let mut b = t.bind_mut();
                b.block_name = def.name.as_str().into();
                match &def.faces {
                    BlockFaces::All(n) => b.texture = load(n),
                    BlockFaces::TopSideBottom { top, side, bottom } => {
                        b.texture = load(side);
                        b.texture_top = load(top);
                        b.texture_bottom = load(bottom);
                    }
                    BlockFaces::Each(names) => {
                        b.texture = load(&names[Face::PosX.direction()]);
                        b.texture_top = load(&names[Face::PosY.direction()]);
                        b.texture_bottom = load(&names[Face::NegY.direction()]);
                    }
                }
                b.color = Color::from_rgb(def.color[0], def.color[1], def.color[2]);
                b.render_mode = def.render_mode as i64;
                b.solid = def.solid;
                b.light_emission = def.light_emission as i64;
                b.light_opacity = def.light_opacity as i64;
                b.hide_faces_between_same = def.hide_faces_between_same;
                b.tint_top = i64::from(def.tint.top.number());
                b.tint_side = i64::from(def.tint.side.number());
                b.tint_bottom = i64::from(def.tint.bottom.number());
            }
            blocks.push(&t);
        }
        lib.bind_mut().blocks = blocks;
        lib
    }

    /// The id of the block named `name`, or -1.
    #[func]
    pub fn get_block_id(&self, name: GString) -> i64 {
        self.core().ok().and_then(|l| l.id_of(&name.to_string())).map(|id| id as i64).unwrap_or(-1)
    }

    /// The name of block `id`, or "" when no block has it.
    #[func]
    pub fn get_block_name(&self, id: i64) -> GString {
        let Ok(id) = u16::try_from(id) else { return GString::new() };
        self.core().ok().and_then(|l| l.name_of(id).map(GString::from)).unwrap_or_default()
    }

    /// The texture paths of the library in layer order (see `build_texture_array`): the distinct
    /// (texture, tint) pairs met walking the blocks in id order and each block's faces in
    /// `+x, -x, +y, -y, +z, -z` order, the order of the layers the mesher writes
    /// (`strata_core::mesh::texture_order`). A texture shown both tinted and not is listed twice.
    #[func]
    pub fn get_texture_layers(&self) -> PackedStringArray {
        self.core()
            .map(|l| strata_core::mesh::texture_order(&l).iter().map(|n| GString::from(n.as_str())).collect())
            .unwrap_or_default()
    }

    /// The library's textures as one `Texture2DArray` of [`StrataBlockLibrary::build_texture_images`]
    /// (what the block shaders sample with the layer each vertex carries); null when the library
    /// is invalid or has no texture.
    #[func]
    pub fn build_texture_array(&self) -> Option<Gd<Texture2DArray>> {
        let images = self.build_texture_images();
        if images.is_empty() {
            return None;
        }
        let mut array = Texture2DArray::new_gd();
        (array.create_from_images(&images) == godot::global::Error::OK).then_some(array)
    }

    /// The layers of the texture array: a `texture_size`² RGBA image (with mipmaps) per texture,
    /// in `get_texture_layers()` order; a texture of another size is scaled to it, nearest
    /// neighbour. A texture that does not load becomes a magenta layer, with an error naming it;
    /// empty when the library is invalid.
    #[func]
    pub fn build_texture_images(&self) -> Array<Gd<Image>> {
        let side = self.texture_size as i32;
        let mut images: Array<Gd<Image>> = Array::new();
        let Ok(core) = self.core() else { return images };
        let mut loader = ResourceLoader::singleton();
        for name in strata_core::mesh::texture_order(&core) {
            let image =
                loader.load(name.as_str()).and_then(|r| r.try_cast::<Texture2D>().ok()).and_then(|t| t.get_image());
            let mut image = match image {
                // A copy: the texture may hand out its own image (the headless renderer does),
                // which converting and scaling here must not change.
                Some(i) => {
                    let mut copy = Image::new_gd();
                    copy.copy_from(&i);
                    copy
                }
                None => {
                    godot_error!(
                        "StrataBlockLibrary.build_texture_images: cannot load texture `{name}`; allowed: a Texture2D resource path"
                    );
                    let Some(mut i) = Image::create_empty(side, side, false, Format::RGBA8) else {
                        continue;
                    };
                    i.fill(Color::from_rgb(1.0, 0.0, 1.0));
                    i
                }
            };
            if image.is_compressed() {
                image.decompress();
            }
            image.convert(Format::RGBA8);
            if image.get_width() != side || image.get_height() != side {
                image.resize_ex(side, side).interpolation(Interpolation::NEAREST).done();
            }
            image.generate_mipmaps();
            images.push(&image);
        }
        images
    }

    /// The tint of each layer of `get_texture_layers()` (0 none, 1 grass, 2 foliage: the
    /// `TINT_*` constants of `StrataBlockType`), in layer order; empty when the library is invalid.
    #[func]
    pub fn get_layer_tints(&self) -> PackedByteArray {
        self.core().map(|l| PackedByteArray::from(strata_core::mesh::layer_tints(&l))).unwrap_or_default()
    }

    /// How many blocks the library holds.
    #[func]
    pub fn get_block_count(&self) -> i64 {
        self.blocks.len() as i64
    }

    #[func]
    fn set_texture_size(&mut self, value: i64) {
        self.texture_size = texture_size_or_nearest("StrataBlockLibrary.texture_size", value);
    }

    /// "" when the library is valid, else what is wrong: the library's file (when it has one),
    /// the block's index and name, the field, the value and what is allowed.
    #[func]
    pub fn validate(&self) -> GString {
        match self.core() {
            Ok(_) => GString::new(),
            Err(e) => self.error_text(&e).as_str().into(),
        }
    }
}

impl BlockLibrary {
    /// The default library at the default texture size (16), what a world without a library of
    /// its own draws with.
    pub fn create_default() -> Gd<BlockLibrary> {
        Self::create_default_sized(DEFAULT_TEXTURE_SIZE)
    }

    /// The blocks as the core's validated library.
    pub(crate) fn core(&self) -> Result<CoreLibrary, BlockLibraryError> {
        let blocks: Result<Vec<BlockDef>, BlockLibraryError> =
            self.blocks.iter_shared().enumerate().map(|(i, b)| b.bind().core(i)).collect();
        CoreLibrary::new(blocks?)
    }

    /// The blocks as the core's validated library, or what is wrong as text (after the
    /// library's file when it has one).
    pub(crate) fn core_or_error_text(&self) -> Result<CoreLibrary, String> {
        self.core().map_err(|e| self.error_text(&e))
    }

    /// `e` as text, after the library's file when it has one.
    pub(crate) fn error_text(&self, e: &BlockLibraryError) -> String {
        let path = self.base().get_path();
        if path.is_empty() { e.to_string() } else { format!("{path}: {e}") }
    }
}

/// The core library of `library`, or the default library for null.
pub(crate) fn core_or_default(
    library: Option<&Gd<BlockLibrary>>,
) -> Result<std::borrow::Cow<'static, CoreLibrary>, BlockLibraryError> {
    match library {
        None => Ok(std::borrow::Cow::Borrowed(default_library())),
        Some(l) => l.bind().core().map(std::borrow::Cow::Owned),
    }
}
