//! `BlockType` and `BlockLibrary` (Resources): the blocks a world is made of, edited in the
//! inspector and turned into the core's validated `BlockLibrary` (names, faces, render mode,
//! solidity, light). A world saves the names of the blocks its edits use, so adding, removing
//! or reordering blocks never changes what an old save loads (law: Nothing is lost).
//!
//! A face's texture is named by its resource path; the world builds its texture array from the
//! paths in the order the core's `MeshMaterials` walks them. `BlockLibrary.create_default()` is
//! the core's default library with the addon's textures (`res://addons/strata/textures/blocks/`).
//!
//! May use: `strata_core::base` (block, block_library), Godot's `Resource`, `Texture2D`.

use godot::classes::{IResource, Resource, ResourceLoader, Texture2D};
use godot::prelude::*;
use strata_core::base::block_library::{
    BlockDef, BlockFaces, BlockLibrary as CoreLibrary, BlockLibraryError, Face, RenderMode, default_library,
};

/// Where the default library's textures are.
pub(crate) const DEFAULT_TEXTURE_DIR: &str = "res://addons/strata/textures/blocks";

/// One block type of a [`BlockLibrary`].
#[derive(GodotClass)]
#[class(tool, base = Resource)]
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
    #[export]
    texture_top: Option<Gd<Texture2D>>,
    #[export]
    texture_side: Option<Gd<Texture2D>>,
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
        }
    }
}

#[godot_api]
impl BlockType {
    #[func]
    fn set_light_emission(&mut self, value: i64) {
        self.light_emission = crate::world_host::int_in_range("BlockType", "light_emission", value, 0, 15);
    }

    #[func]
    fn set_light_opacity(&mut self, value: i64) {
        self.light_opacity = crate::world_host::int_in_range("BlockType", "light_opacity", value, 0, 15);
    }
}

/// The resource path naming a texture ("" for none).
fn texture_name(t: &Option<Gd<Texture2D>>) -> String {
    t.as_ref().map(|t| t.get_path().to_string()).unwrap_or_default()
}

impl BlockType {
    /// This block as the core sees it.
    fn core(&self) -> BlockDef {
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
        BlockDef {
            name: self.block_name.to_string(),
            faces,
            color: [self.color.r, self.color.g, self.color.b],
            render_mode,
            solid: self.solid,
            light_emission: self.light_emission.clamp(0, 255) as u8,
            light_opacity: self.light_opacity.clamp(0, 255) as u8,
        }
    }
}

/// The blocks of a world, in id order (block 0 is `air`); `ChunkWorld.block_library`.
#[derive(GodotClass)]
#[class(tool, base = Resource, init)]
pub struct BlockLibrary {
    base: Base<Resource>,
    /// The block types; a block's id is its index. Block 0 must be `air`.
    #[export]
    blocks: Array<Gd<BlockType>>,
}

#[godot_api]
impl BlockLibrary {
    /// The core's default blocks (the 18 built-in ones, then torch, glass, leaves, log and
    /// planks) with the addon's textures.
    #[func]
    pub fn create_default() -> Gd<BlockLibrary> {
        let mut lib = BlockLibrary::new_gd();
        let mut loader = ResourceLoader::singleton();
        let mut load = |name: &str| -> Option<Gd<Texture2D>> {
            if name.is_empty() {
                return None;
            }
            let path = format!("{DEFAULT_TEXTURE_DIR}/{name}.png");
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

    /// How many blocks the library holds.
    #[func]
    pub fn get_block_count(&self) -> i64 {
        self.blocks.len() as i64
    }

    /// "" when the library is valid, else what is wrong: the block's index and name, the field,
    /// the value and what is allowed.
    #[func]
    pub fn validate(&self) -> GString {
        match self.core() {
            Ok(_) => GString::new(),
            Err(e) => e.to_string().as_str().into(),
        }
    }
}

impl BlockLibrary {
    /// The blocks as the core's validated library.
    pub(crate) fn core(&self) -> Result<CoreLibrary, BlockLibraryError> {
        CoreLibrary::new(self.blocks.iter_shared().map(|b| b.bind().core()).collect())
    }
}
