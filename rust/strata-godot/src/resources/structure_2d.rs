//! `StrataStructure2D` (Resource): a designer-made tile picture (a hut, a ruin, a buried room)
//! that a side-view world's `StrataStructureRule`s place; the Godot face of
//! `strata_core::gen2d::structures::StructureTemplate2D`, as `StrataStructure` is of the 3D one.
//! `StrataChunkWorld2D.structures` brings a world's own; the world resolves them through its
//! block library when it builds.
//!
//! Its cells come from one of three sources, the first that is set:
//! - `image`: a `Texture2D` (a PNG drawn in any paint program) and `image_colors`, a map from
//!   colour (a `Color` or an HTML string such as "#7f5f3f") to tile name; transparent pixels keep
//!   the world; a colour the map lacks is an error naming the pixel;
//! - `tile_map_scene`: a scene holding a `TileMapLayer` painted with the world's tiles: each
//!   painted cell names the block of its tile's custom data layer `block` (a String) when the
//!   TileSet has one, else the block whose id is its atlas row (the layout of the TileSet a
//!   `StrataChunkWorld2D` generates); unpainted cells keep the world;
//! - the stored cells (`size`, `blocks`, `cells`), written by `load_image`, `load_tile_map`,
//!   `create` and `set_block_name`: names by table, one byte per cell, 0 keeps the world.
//!
//! Names, not ids, so a file keeps its meaning when a block library is reordered. Every failure
//! names the call or property, the file, the value and what is allowed, in `last_error()`.
//!
//! May use: `strata_core` (block library, 2D structure templates, fingerprints), `block_library`.

use crate::base::errors::LastError;
use crate::resources::block_library::{BlockLibrary, core_or_default};
use godot::classes::image::Format;
use godot::classes::{IResource, Image, Node, PackedScene, Resource, Texture2D, TileMapLayer};
use godot::global::Error;
use godot::prelude::*;
use strata_core::base::block_library::BlockLibrary as CoreLibrary;
use strata_core::gen2d::structures::{MAX_STRUCTURE_EDGE_2D, StructureTemplate2D, rgba_tile_names};
use strata_core::preset::fingerprint::fnv1a64;

/// The most block names a structure's table holds (one byte per cell, 0 for keep).
pub const MAX_STRUCTURE_2D_BLOCKS: usize = 255;

/// The custom data layer of a TileSet that names a tile's block for `load_tile_map`.
pub const BLOCK_DATA_LAYER: &str = "block";

/// A tile picture that `StrataStructureRule`s place in a side-view world (through
/// `StrataChunkWorld2D.structures`), drawn in an image or a `TileMapLayer` scene, or by a script.
/// Its cells name blocks, so it fits any block library that has them.
#[derive(GodotClass)]
#[class(tool, base = Resource, rename = StrataStructure2D)]
pub struct Structure2D {
    base: Base<Resource>,
    /// The name a `StrataStructureRule`'s `structure` gives; a world's structure of a shipped
    /// structure's name (`cottage`, `ruin`, `crypt`) replaces it.
    #[export]
    structure_name: GString,
    /// An image of the structure, one pixel a tile (row 0 at the top): each opaque pixel's colour
    /// is looked up in `image_colors`; transparent pixels keep the world. Wins over
    /// `tile_map_scene` and the stored cells.
    #[export]
    image: Option<Gd<Texture2D>>,
    /// Colour → tile name for `image`: keys are `Color`s or HTML strings ("#7f5f3f"), values a
    /// block name of the world's library, "air" (carves) or "keep".
    #[export]
    image_colors: VarDictionary,
    /// A scene holding a `TileMapLayer` (its root or a descendant) painted with the world's
    /// tiles; its painted cells make the structure, their top-left the structure's. Used when
    /// `image` is null.
    #[export]
    tile_map_scene: Option<Gd<PackedScene>>,
    /// Its size in tiles (width, height), each 1 to 512 (storage).
    #[export(storage)]
    size: Vector2i,
    /// The names of the blocks its cells use, at most 255 (storage): cell value `k` is
    /// `blocks[k - 1]`.
    #[export(storage)]
    blocks: PackedStringArray,
    /// One byte per cell, row by row from the top (storage): 0 keeps the world, `k` sets block
    /// `blocks[k - 1]`.
    #[export(storage)]
    cells: PackedByteArray,
    last_error: LastError,
}

#[godot_api]
impl IResource for Structure2D {
    fn init(base: Base<Resource>) -> Self {
        Self {
            base,
            structure_name: GString::new(),
            image: None,
            image_colors: VarDictionary::new(),
            tile_map_scene: None,
            size: Vector2i::ZERO,
            blocks: PackedStringArray::new(),
            cells: PackedByteArray::new(),
            last_error: LastError::default(),
        }
    }
}

#[godot_api]
impl Structure2D {
    /// A new structure named `name` of `size` tiles (each edge 1 to 512) whose every cell keeps
    /// the world, for `set_block_name` to draw in; null on a bad size (the message is pushed to
    /// the console).
    #[func]
    fn create(name: GString, size: Vector2i) -> Option<Gd<Structure2D>> {
        if let Err(e) = check_size_2d(&name.to_string(), size) {
            godot_error!("StrataStructure2D.create: {e}");
            return None;
        }
        let mut gd = Structure2D::new_gd();
        {
            let mut s = gd.bind_mut();
            s.structure_name = name;
            s.size = size;
            s.cells = PackedByteArray::from(vec![0u8; (size.x * size.y) as usize]);
        }
        Some(gd)
    }

    /// A new structure named `name` from the pixels of `image` (see `load_image`); null on error
    /// (the message is pushed to the console).
    #[func]
    fn from_image(image: Option<Gd<Image>>, colors: VarDictionary, name: GString) -> Option<Gd<Structure2D>> {
        let mut gd = Structure2D::new_gd();
        gd.bind_mut().structure_name = name;
        let code = gd.bind_mut().load_image(image, colors);
        if code != Error::OK {
            godot_error!("{}", gd.bind().last_error.get());
            return None;
        }
        Some(gd)
    }

    /// Replaces the stored cells with the pixels of `image`, one a tile: an opaque pixel takes
    /// the tile name `colors` gives its colour (keys `Color` or HTML strings), a transparent one
    /// keeps the world. A colour `colors` lacks is an error naming the pixel and the colours
    /// allowed; on error nothing changes and the message is in `last_error()`.
    #[func]
    fn load_image(&mut self, image: Option<Gd<Image>>, colors: VarDictionary) -> Error {
        let what = "StrataStructure2D.load_image";
        let Some(image) = image else {
            return self
                .last_error
                .fail(format!("{what}: the image is null; allowed: an Image"), Error::ERR_INVALID_PARAMETER);
        };
        let name = self.display_name();
        let map = match color_map(&colors) {
            Ok(m) => m,
            Err(e) => return self.last_error.fail(format!("{what}: {e}"), Error::ERR_INVALID_PARAMETER),
        };
        let (w, h, rgba) = rgba_of(&image);
        // Resolved by name only: any library will do, the names are kept.
        match names_of_rgba(&name, w, h, &rgba, &map) {
            Ok(names) => self.store(w, h, &names, what),
            Err(e) => self.last_error.fail(format!("{what}: {e}"), Error::ERR_INVALID_DATA),
        }
    }

    /// Replaces the stored cells with the painted cells of `layer`: each names the block of its
    /// tile's custom data layer `block` when the TileSet has one, else the block of `library`
    /// (null: the default library) whose id is the tile's atlas row (row 0 is air). The painted
    /// cells' bounding box becomes the structure; unpainted cells in it keep the world.
    #[func]
    fn load_tile_map(&mut self, layer: Option<Gd<TileMapLayer>>, library: Option<Gd<BlockLibrary>>) -> Error {
        let what = "StrataStructure2D.load_tile_map";
        let Some(layer) = layer else {
            return self
                .last_error
                .fail(format!("{what}: the layer is null; allowed: a TileMapLayer"), Error::ERR_INVALID_PARAMETER);
        };
        let library = match core_or_default(library.as_ref()) {
            Ok(l) => l,
            Err(e) => {
                return self
                    .last_error
                    .fail(format!("{what}: the block library is invalid: {e}"), Error::ERR_INVALID_PARAMETER);
            }
        };
        match names_of_layer(&layer, &library) {
            Ok((w, h, names)) => self.store(w, h, &names, what),
            Err(e) => self.last_error.fail(format!("{what}: {e}"), Error::ERR_INVALID_DATA),
        }
    }

    /// The tile name of cell (x, y) of the stored cells: a block name, "air", or "" where the
    /// cell keeps the world. "" also outside the box, with the message in `last_error()`.
    #[func]
    fn get_block_name(&mut self, x: i64, y: i64) -> GString {
        let Some(i) = self.index_of(x, y, "StrataStructure2D.get_block_name") else { return GString::new() };
        let k = self.cells.as_slice().get(i).copied().unwrap_or(0) as usize;
        if k == 0 {
            return GString::new();
        }
        self.blocks.as_slice().get(k - 1).cloned().unwrap_or_default()
    }

    /// Sets stored cell (x, y) to the block named `block` ("air" carves; "" keeps the world).
    /// Outside the box, or a 256th distinct name, changes nothing and returns an error code with
    /// the message in `last_error()`.
    #[func]
    fn set_block_name(&mut self, x: i64, y: i64, block: GString) -> Error {
        let what = "StrataStructure2D.set_block_name";
        let Some(i) = self.index_of(x, y, what) else { return Error::ERR_PARAMETER_RANGE_ERROR };
        let value = if block.is_empty() || block == "keep" {
            0
        } else if let Some(k) = self.blocks.as_slice().iter().position(|b| *b == block) {
            k + 1
        } else if self.blocks.len() < MAX_STRUCTURE_2D_BLOCKS {
            self.blocks.push(&block);
            self.blocks.len()
        } else {
            return self.last_error.fail(
                format!(
                    "{what}: block `{block}` would be the 256th block name; allowed: at most {MAX_STRUCTURE_2D_BLOCKS}"
                ),
                Error::ERR_OUT_OF_MEMORY,
            );
        };
        let n = (self.size.x * self.size.y) as usize;
        if self.cells.len() != n {
            self.cells.resize(n);
        }
        self.cells[i] = value as u8;
        self.last_error.succeed()
    }

    /// The structure's cells as the world will read them (from `image`, `tile_map_scene` or the
    /// stored cells), checked against `library` (null: the default library): OK, or an error
    /// code with the message (naming the structure, its file, the cell and the name) in
    /// `last_error()`.
    #[func]
    fn validate(&mut self, library: Option<Gd<BlockLibrary>>) -> Error {
        let library = match core_or_default(library.as_ref()) {
            Ok(l) => l,
            Err(e) => {
                return self.last_error.fail(
                    format!("StrataStructure2D.validate: the block library is invalid: {e}"),
                    Error::ERR_INVALID_PARAMETER,
                );
            }
        };
        match self.template(&library) {
            Ok(_) => self.last_error.succeed(),
            Err(e) => self.last_error.fail(e, Error::ERR_INVALID_DATA),
        }
    }

    /// The message of the last failure, or "" after a later success.
    #[func]
    fn last_error(&self) -> GString {
        self.last_error.get()
    }
}

impl Structure2D {
    /// The name for messages: `structure_name`, else the resource's file name.
    fn display_name(&self) -> String {
        let name = self.structure_name.to_string().trim().to_string();
        if !name.is_empty() {
            return name;
        }
        let path = self.base().get_path().to_string();
        path.rsplit(['/', '\\']).next().unwrap_or("").split('.').next().unwrap_or("").to_string()
    }

    /// The messages' name of the structure with its file.
    fn shown(&self) -> String {
        let path = self.base().get_path().to_string();
        let name = self.display_name();
        if path.is_empty() { format!("`{name}`") } else { format!("`{name}` ({path})") }
    }

    /// Stores `names` (row by row, "" keeps) as the cells of a `w × h` structure.
    fn store(&mut self, w: i32, h: i32, names: &[String], what: &str) -> Error {
        if let Err(e) = check_size_2d(&self.display_name(), Vector2i::new(w, h)) {
            return self.last_error.fail(format!("{what}: {e}"), Error::ERR_INVALID_DATA);
        }
        let mut table: Vec<String> = Vec::new();
        let mut cells = Vec::with_capacity(names.len());
        for n in names {
            if n.is_empty() || n == "keep" {
                cells.push(0u8);
                continue;
            }
            let k = match table.iter().position(|t| t == n) {
                Some(k) => k + 1,
                None if table.len() < MAX_STRUCTURE_2D_BLOCKS => {
                    table.push(n.clone());
                    table.len()
                }
                None => {
                    return self.last_error.fail(
                        format!("{what}: more than {MAX_STRUCTURE_2D_BLOCKS} tile names; allowed: at most {MAX_STRUCTURE_2D_BLOCKS}"),
                        Error::ERR_INVALID_DATA,
                    );
                }
            };
            cells.push(k as u8);
        }
        self.size = Vector2i::new(w, h);
        self.blocks = table.iter().map(|t| GString::from(t.as_str())).collect();
        self.cells = PackedByteArray::from(cells);
        self.last_error.succeed()
    }

    /// The index of stored cell (x, y), or None (the error kept) outside the box.
    fn index_of(&mut self, x: i64, y: i64, what: &str) -> Option<usize> {
        let s = self.size;
        if !((0..s.x as i64).contains(&x) && (0..s.y as i64).contains(&y)) {
            self.last_error
                .record(format!("{what}: cell ({x}, {y}) is outside the structure; allowed: 0..{} × 0..{}", s.x, s.y));
            return None;
        }
        Some((y * s.x as i64 + x) as usize)
    }

    /// The structure as a core template of the blocks of `library`, read from its source: an
    /// error naming the structure (and its file), the source, the value and what is allowed.
    pub(crate) fn template(&self, library: &CoreLibrary) -> Result<StructureTemplate2D, String> {
        let name = self.display_name();
        let shown = self.shown();
        if name.is_empty() {
            return Err(
                "StrataStructure2D.structure_name is empty; allowed: a name, what a StrataStructureRule's `structure` gives"
                    .into(),
            );
        }
        if let Some(texture) = &self.image {
            let image = texture.get_image().ok_or_else(|| {
                format!("StrataStructure2D {shown}.image: the texture has no image data; allowed: an imported image (Texture2D)")
            })?;
            let map =
                color_map(&self.image_colors).map_err(|e| format!("StrataStructure2D {shown}.image_colors: {e}"))?;
            let (w, h, rgba) = rgba_of(&image);
            let names =
                names_of_rgba(&name, w, h, &rgba, &map).map_err(|e| format!("StrataStructure2D {shown}.image: {e}"))?;
            return from_names(&name, w, h, &names, library)
                .map_err(|e| format!("StrataStructure2D {shown}.image: {e}"));
        }
        if let Some(scene) = &self.tile_map_scene {
            let (w, h, names) =
                names_of_scene(scene, library).map_err(|e| format!("StrataStructure2D {shown}.tile_map_scene: {e}"))?;
            return from_names(&name, w, h, &names, library)
                .map_err(|e| format!("StrataStructure2D {shown}.tile_map_scene: {e}"));
        }
        check_size_2d(&name, self.size).map_err(|e| format!("StrataStructure2D {shown}.size: {e}"))?;
        let n = (self.size.x * self.size.y) as usize;
        if self.cells.len() != n {
            return Err(format!(
                "StrataStructure2D {shown}.cells: {} cells for size {}×{}; allowed: exactly {n} (one per tile)",
                self.cells.len(),
                self.size.x,
                self.size.y
            ));
        }
        let mut names = Vec::with_capacity(n);
        for (i, &k) in self.cells.as_slice().iter().enumerate() {
            let tile = match k {
                0 => String::new(),
                k => self.blocks.as_slice().get(k as usize - 1).map(|b| b.to_string()).ok_or_else(|| {
                    format!(
                        "StrataStructure2D {shown}.cells[{i}]: {k} names no block; allowed: 0 (keep) or 1..={}",
                        self.blocks.len()
                    )
                })?,
            };
            names.push(tile);
        }
        from_names(&name, self.size.x, self.size.y, &names, library)
            .map_err(|e| format!("StrataStructure2D {shown}: {e}"))
    }

    /// A hash of the name and the cells by name (from the structure's source): two structures
    /// place the same tiles in any library exactly when their fingerprints agree; 0 when it
    /// does not read.
    pub(crate) fn content_fingerprint(&self, library: &CoreLibrary) -> u64 {
        let Ok(t) = self.template(library) else { return 0 };
        let mut bytes = t.name().as_bytes().to_vec();
        bytes.push(0);
        bytes.extend_from_slice(&t.width().to_le_bytes());
        for &c in t.cells() {
            let n = match c {
                strata_core::gen2d::structures::KEEP => "",
                c => library.name_of(c).unwrap_or("air"),
            };
            bytes.extend_from_slice(n.as_bytes());
            bytes.push(0);
        }
        fnv1a64(&bytes)
    }
}

/// A core template from tile names.
fn from_names(
    name: &str,
    w: i32,
    h: i32,
    names: &[String],
    library: &CoreLibrary,
) -> Result<StructureTemplate2D, strata_core::gen2d::StructureError2D> {
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    StructureTemplate2D::from_names(name, w, h, &refs, library)
}

/// Checks a structure's size: each edge 1..=512.
pub(crate) fn check_size_2d(name: &str, size: Vector2i) -> Result<(), String> {
    let r = 1..=MAX_STRUCTURE_EDGE_2D;
    if !r.contains(&size.x) || !r.contains(&size.y) {
        return Err(format!(
            "structure `{name}`: size {}×{}; allowed: each edge 1..={MAX_STRUCTURE_EDGE_2D} tiles",
            size.x, size.y
        ));
    }
    Ok(())
}

/// The colour map of `image_colors`: keys `Color` or HTML strings, values tile names.
fn color_map(colors: &VarDictionary) -> Result<Vec<([u8; 3], String)>, String> {
    let mut out = Vec::new();
    for (k, v) in colors.iter_shared() {
        let color = match k.try_to::<Color>() {
            Ok(c) => c,
            Err(_) => {
                let text = k.try_to::<GString>().map(|s| s.to_string()).unwrap_or_else(|_| k.to_string());
                Color::from_html(text.as_str()).ok_or_else(|| {
                    format!("key `{text}` is not a colour; allowed: a Color or an HTML colour such as \"#7f5f3f\"")
                })?
            }
        };
        let name = v
            .try_to::<GString>()
            .map(|s| s.to_string())
            .map_err(|_| format!("the value of colour {} is `{v}`; allowed: a tile name (String)", color.to_html()))?;
        out.push(([color.r8(), color.g8(), color.b8()], name));
    }
    Ok(out)
}

/// The size and RGBA8 bytes of `image` (a converted copy; the image is left as it is).
fn rgba_of(image: &Gd<Image>) -> (i32, i32, Vec<u8>) {
    let mut copy = Image::new_gd();
    copy.copy_from(image);
    if copy.is_compressed() {
        copy.decompress();
    }
    if copy.get_format() != Format::RGBA8 {
        copy.convert(Format::RGBA8);
    }
    (copy.get_width(), copy.get_height(), copy.get_data().to_vec())
}

/// The tile names of an image's pixels ([`rgba_tile_names`]), owned.
fn names_of_rgba(name: &str, w: i32, h: i32, rgba: &[u8], map: &[([u8; 3], String)]) -> Result<Vec<String>, String> {
    rgba_tile_names(name, w, h, rgba, map).map(|v| v.into_iter().map(String::from).collect()).map_err(|e| e.to_string())
}

/// The painted cells of `layer` as tile names over their bounding box.
fn names_of_layer(layer: &Gd<TileMapLayer>, library: &CoreLibrary) -> Result<(i32, i32, Vec<String>), String> {
    let used = layer.get_used_cells();
    if used.is_empty() {
        return Err("the layer has no painted cell; allowed: a TileMapLayer with tiles".into());
    }
    let rect = layer.get_used_rect();
    let (w, h) = (rect.size.x, rect.size.y);
    check_size_2d("", Vector2i::new(w, h)).map_err(|e| format!("its painted cells span {w}×{h} ({e})"))?;
    let data_layer =
        layer.get_tile_set().map(|t| t.get_custom_data_layer_by_name(BLOCK_DATA_LAYER)).filter(|&i| i >= 0);
    let mut names = vec![String::new(); (w * h) as usize];
    for cell in used.iter_shared() {
        let named = data_layer.and_then(|_| {
            let data = layer.get_cell_tile_data(cell)?;
            let v = data.get_custom_data(BLOCK_DATA_LAYER);
            v.try_to::<GString>().ok().map(|s| s.to_string()).filter(|s| !s.is_empty())
        });
        let tile = match named {
            Some(n) => n,
            None => {
                let row = layer.get_cell_atlas_coords(cell).y;
                let id = u16::try_from(row).ok().filter(|&r| (r as usize) < library.len());
                match id {
                    Some(0) => "air".to_string(),
                    Some(id) => library.name_of(id).unwrap_or("air").to_string(),
                    None => {
                        return Err(format!(
                            "cell ({}, {}) is atlas row {row}, which is no block of the library; allowed: rows 0..{} (row = block id), or a custom data layer `{BLOCK_DATA_LAYER}` naming the block",
                            cell.x,
                            cell.y,
                            library.len()
                        ));
                    }
                }
            }
        };
        let (x, y) = (cell.x - rect.position.x, cell.y - rect.position.y);
        names[(y * w + x) as usize] = tile;
    }
    Ok((w, h, names))
}

/// The painted cells of the first `TileMapLayer` of `scene` (its root or a descendant).
fn names_of_scene(scene: &Gd<PackedScene>, library: &CoreLibrary) -> Result<(i32, i32, Vec<String>), String> {
    let root = scene
        .instantiate()
        .ok_or_else(|| "the scene does not instantiate; allowed: a scene holding a TileMapLayer".to_string())?;
    let layer = match root.clone().try_cast::<TileMapLayer>() {
        Ok(l) => Some(l),
        Err(root) => root
            .find_children_ex("*")
            .type_("TileMapLayer")
            .owned(false)
            .done()
            .iter_shared()
            .next()
            .and_then(|n: Gd<Node>| n.try_cast::<TileMapLayer>().ok()),
    };
    let result = match layer {
        Some(l) => names_of_layer(&l, library),
        None => Err("it holds no TileMapLayer; allowed: a scene holding a TileMapLayer".into()),
    };
    root.free();
    result
}
