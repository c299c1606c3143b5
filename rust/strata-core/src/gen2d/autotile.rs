//! Autotiling: the edge variant of every tile, from a 4-bit mask of connecting neighbours.
//!
//! **Mask.** Bit [`NORTH`] (1) is the tile above (y − 1), [`EAST`] (2) the tile to the right,
//! [`SOUTH`] (4) the tile below, [`WEST`] (8) the tile to the left. A bit is set when that
//! neighbour *connects*: any solid tile connects to a solid tile (grass, dirt, stone and ores form
//! one ground, so only edges against air or water are drawn); a water tile connects to water and
//! to solid tiles (only its surface against air is drawn). Air has no tile.
//!
//! **Atlas layout** (what a TileSet atlas source must hold, see [`atlas_rgba`]): 16 columns ×
//! [`block::BLOCK_COUNT`] rows of square tiles; the tile for block `id` with mask `m` sits at
//! column `m`, row `id` (row 0, air, stays empty). So a variant is drawn with an edge on each side
//! whose bit is clear: column 15 is the fully surrounded tile, column 0 an isolated one.
//!
//! **With a block library** ([`TileRules`], [`library_atlas_rgba`]): the atlas has one row per
//! block of the library (row = id), the rules above read the library (solid blocks connect to
//! solid ones; a `Liquid` block connects to itself and to solid ones; a `Cutout` or `Transparent`
//! block that is not solid connects to nothing), and a block's 16 variants are its tile (its side
//! texture, or its colour drawn as below) with the edge drawn on each open side, except for
//! `Cutout` and `Transparent` blocks, whose 16 variants are all the plain tile (an edge would
//! cover their see-through art). The built-in rules ([`TileRules::builtin`], the default library's)
//! give the same masks as [`edge_mask`] for the built-in blocks.
//!
//! Tiles are chosen on worker threads from a chunk generated with a one-tile halo, so the main
//! thread only calls `set_cell(coords, source, atlas_coords)`.
//!
//! May use: `base`, `gen2d`'s tile grid.

use crate::base::block::{self, AIR, BlockId, WATER};
use crate::base::block_library::{BlockLibrary, RenderMode, default_library};
use crate::gen2d::TileGrid;
use std::sync::{Arc, OnceLock};

pub const NORTH: u8 = 1;
pub const EAST: u8 = 2;
pub const SOUTH: u8 = 4;
pub const WEST: u8 = 8;

/// Columns of the atlas: one per mask value.
pub const ATLAS_COLUMNS: u32 = 16;
/// Rows of the atlas: one per block id.
pub const ATLAS_ROWS: u32 = block::BLOCK_COUNT as u32;

/// Where a tile variant sits in the atlas.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AtlasCoords {
    /// The edge mask, 0..=15.
    pub column: u8,
    /// The block id.
    pub row: u16,
}

/// Whether `neighbour` connects to `tile` (see the module docs).
#[inline]
pub fn connects(tile: BlockId, neighbour: BlockId) -> bool {
    if tile == WATER {
        neighbour == WATER || block::is_solid(neighbour)
    } else {
        block::is_solid(tile) && block::is_solid(neighbour)
    }
}

/// The 4-bit mask of `tile` with neighbours north, east, south and west.
#[inline]
pub fn edge_mask(tile: BlockId, north: BlockId, east: BlockId, south: BlockId, west: BlockId) -> u8 {
    (connects(tile, north) as u8 * NORTH)
        | (connects(tile, east) as u8 * EAST)
        | (connects(tile, south) as u8 * SOUTH)
        | (connects(tile, west) as u8 * WEST)
}

/// The atlas tile of `tile` with mask `mask`; `None` for air and for ids outside the atlas.
#[inline]
pub fn atlas_coords(tile: BlockId, mask: u8) -> Option<AtlasCoords> {
    (tile != AIR && (tile as u32) < ATLAS_ROWS).then_some(AtlasCoords { column: mask & 15, row: tile })
}

/// How the blocks of a library take part in autotiling: per id, whether it is solid, a liquid,
/// and whether its variants draw edges (see the module docs). Ids past the library have no tile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileRules {
    solid: Vec<bool>,
    liquid: Vec<bool>,
    edged: Vec<bool>,
}

impl TileRules {
    /// The rules of `library`'s blocks.
    pub fn from_library(library: &BlockLibrary) -> Self {
        let blocks = library.blocks();
        Self {
            solid: blocks.iter().map(|b| b.solid).collect(),
            liquid: blocks.iter().map(|b| b.render_mode == RenderMode::Liquid).collect(),
            edged: blocks.iter().map(|b| matches!(b.render_mode, RenderMode::Opaque | RenderMode::Liquid)).collect(),
        }
    }

    /// The rules of the default library, built once.
    pub fn builtin() -> &'static Arc<TileRules> {
        static RULES: OnceLock<Arc<TileRules>> = OnceLock::new();
        RULES.get_or_init(|| Arc::new(TileRules::from_library(default_library())))
    }

    /// Number of blocks (atlas rows).
    pub fn len(&self) -> usize {
        self.solid.len()
    }

    /// Always false: a library holds at least air.
    pub fn is_empty(&self) -> bool {
        self.solid.is_empty()
    }

    /// Whether block `id` is solid (false past the library).
    #[inline]
    pub fn is_solid(&self, id: BlockId) -> bool {
        self.solid.get(id as usize).copied().unwrap_or(false)
    }

    /// Whether block `id` draws an edge on its open sides.
    #[inline]
    pub fn is_edged(&self, id: BlockId) -> bool {
        self.edged.get(id as usize).copied().unwrap_or(false)
    }

    /// Whether `neighbour` connects to `tile`.
    #[inline]
    pub fn connects(&self, tile: BlockId, neighbour: BlockId) -> bool {
        if self.liquid.get(tile as usize).copied().unwrap_or(false) {
            neighbour == tile || self.is_solid(neighbour)
        } else {
            self.is_solid(tile) && self.is_solid(neighbour)
        }
    }

    /// The atlas tile of `tile` with neighbours north, east, south and west; `None` for air and
    /// for ids past the library.
    #[inline]
    pub fn atlas_coords(&self, tile: BlockId, n: BlockId, e: BlockId, s: BlockId, w: BlockId) -> Option<AtlasCoords> {
        if tile == AIR || tile as usize >= self.len() {
            return None;
        }
        let mask = (self.connects(tile, n) as u8 * NORTH)
            | (self.connects(tile, e) as u8 * EAST)
            | (self.connects(tile, s) as u8 * SOUTH)
            | (self.connects(tile, w) as u8 * WEST);
        Some(AtlasCoords { column: mask, row: tile })
    }
}

/// Atlas tiles of the interior of `padded` (everything but its one-tile border), row by row,
/// by the built-in rules ([`TileRules::builtin`]).
pub fn autotile_padded(padded: &TileGrid) -> Vec<Option<AtlasCoords>> {
    autotile_padded_with(padded, TileRules::builtin())
}

/// Atlas tiles of the interior of `padded` (everything but its one-tile border), row by row,
/// by `rules`.
pub fn autotile_padded_with(padded: &TileGrid, rules: &TileRules) -> Vec<Option<AtlasCoords>> {
    let (w, h) = (padded.width - 2, padded.height - 2);
    if w <= 0 || h <= 0 {
        return Vec::new();
    }
    let at = |x: i32, y: i32| padded.tiles[(y * padded.width + x) as usize];
    let mut out = Vec::with_capacity((w * h) as usize);
    for y in 1..=h {
        for x in 1..=w {
            let t = at(x, y);
            out.push(rules.atlas_coords(t, at(x, y - 1), at(x + 1, y), at(x, y + 1), at(x - 1, y)));
        }
    }
    out
}

/// Pixels (RGBA8, row-major) of an atlas in the layout above with `tile_px`-pixel tiles: each
/// tile is its block's colour, shaded from top to bottom, with a darker rim (grass: a green cap;
/// water: a bright line) on each side whose mask bit is clear, dark ore specks, and transparent
/// water below its surface line only in alpha. Returns `(width, height, pixels)`. The built-in
/// rows of [`library_atlas_rgba`] of the default library without textures.
pub fn atlas_rgba(tile_px: u32) -> (u32, u32, Vec<u8>) {
    let (w, _, mut px) = library_atlas_rgba(default_library(), tile_px, &[]);
    let h = ATLAS_ROWS * tile_px.clamp(4, 256);
    px.truncate((w * h * 4) as usize);
    (w, h, px)
}

/// The tallest atlas [`library_atlas_rgba`] draws, in pixels (Godot's largest texture side).
pub const MAX_ATLAS_HEIGHT_PX: u32 = 16_384;

/// The number of rows (blocks) an atlas of `tile_px`-pixel tiles (clamped to 4..=256) holds for
/// `library`: one per block, at most [`MAX_ATLAS_HEIGHT_PX`] pixels tall.
pub fn library_atlas_rows(library: &BlockLibrary, tile_px: u32) -> u32 {
    (library.len() as u32).min(MAX_ATLAS_HEIGHT_PX / tile_px.clamp(4, 256))
}

/// Pixels (RGBA8, row-major) of the atlas of `library` ([`library_atlas_rows`] rows of 16 edge
/// variants, `tile_px` pixels a tile, clamped to 4..=256). `textures[id]`, when present and
/// `tile_px² · 4` bytes long, is block `id`'s tile (sRGB RGBA, alpha kept: cutout, transparent and
/// liquid art shows through); a block without one is drawn from its colour, as [`atlas_rgba`]
/// draws (ores, names ending in `_ore`, as specks on the library's `stone`; `grass` with a green
/// cap; a `Liquid` block at 75 % alpha, a `Transparent` one at 50 %). Edges (see the module docs)
/// are a darker rim on open sides (a bright line for liquids), a sixteenth of the tile wide on a
/// texture, an eighth on a colour tile. Row 0 (air) stays transparent. Returns
/// `(width, height, pixels)`.
pub fn library_atlas_rgba(library: &BlockLibrary, tile_px: u32, textures: &[Option<Vec<u8>>]) -> (u32, u32, Vec<u8>) {
    let tile_px = tile_px.clamp(4, 256);
    let rows = library_atlas_rows(library, tile_px);
    let (w, h) = (ATLAS_COLUMNS * tile_px, rows * tile_px);
    let mut px = vec![0u8; (w * h * 4) as usize];
    let srgb = |c: f32| (c.clamp(0.0, 1.0).powf(1.0 / 2.2) * 255.0).round() as u8;
    let stone = library
        .id_of("stone")
        .and_then(|id| library.get(id))
        .map(|b| b.color)
        .unwrap_or(block::block_info(block::STONE).color);
    let texture_len = (tile_px * tile_px * 4) as usize;
    for row in 1..rows {
        let Some(def) = library.get(row as BlockId) else { continue };
        let liquid = def.render_mode == RenderMode::Liquid;
        let edged = matches!(def.render_mode, RenderMode::Opaque | RenderMode::Liquid);
        let texture = textures.get(row as usize).and_then(Option::as_ref).filter(|t| t.len() == texture_len);
        let rim = if texture.is_some() { (tile_px / 16).max(1) } else { (tile_px / 8).max(1) };
        let base = def.color;
        let is_ore = def.name.ends_with("_ore");
        let is_grass = def.name == "grass";
        let base_alpha = match def.render_mode {
            RenderMode::Liquid => 0.75,
            RenderMode::Transparent => 0.5,
            _ => 1.0,
        };
        for mask in 0..ATLAS_COLUMNS as u8 {
            let open = |bit: u8| edged && mask & bit == 0;
            for ty in 0..tile_px {
                for tx in 0..tile_px {
                    let on_edge = (open(NORTH) && ty < rim)
                        || (open(SOUTH) && ty >= tile_px - rim)
                        || (open(WEST) && tx < rim)
                        || (open(EAST) && tx >= tile_px - rim);
                    let out = match texture {
                        Some(t) => {
                            let i = ((ty * tile_px + tx) * 4) as usize;
                            let [r, g, b, a] = [t[i], t[i + 1], t[i + 2], t[i + 3]];
                            let dark = |v: u8| (v as f32 * 0.7).round() as u8;
                            match () {
                                _ if on_edge && liquid => [srgb(0.75), srgb(0.88), srgb(1.0), a.max(230)],
                                _ if on_edge => [dark(r), dark(g), dark(b), a],
                                _ => [r, g, b, a],
                            }
                        }
                        None => {
                            let shade = 1.0 - 0.12 * ty as f32 / tile_px as f32;
                            let mut c = [base[0] * shade, base[1] * shade, base[2] * shade];
                            let mut alpha = base_alpha;
                            // Ores: stone with specks of the ore colour.
                            if is_ore {
                                let speck = ((tx * 7 + ty * 13) % 11) < 3 && tx > 0 && ty > 0;
                                c = if speck { base } else { [stone[0] * shade, stone[1] * shade, stone[2] * shade] };
                            }
                            // Faint texture so large areas read as tiles.
                            if tx == 0 || ty == 0 {
                                c = [c[0] * 0.92, c[1] * 0.92, c[2] * 0.92];
                            }
                            let cap = is_grass && open(NORTH) && ty < rim * 3;
                            if cap {
                                c = [0.25, 0.80, 0.20];
                            } else if on_edge && liquid {
                                c = [0.75, 0.88, 1.0];
                                alpha = 0.9;
                            } else if on_edge {
                                c = [c[0] * 0.55, c[1] * 0.55, c[2] * 0.55];
                            }
                            [srgb(c[0]), srgb(c[1]), srgb(c[2]), (alpha * 255.0f32).round() as u8]
                        }
                    };
                    let x = (mask as u32) * tile_px + tx;
                    let y = row * tile_px + ty;
                    let i = ((y * w + x) * 4) as usize;
                    px[i..i + 4].copy_from_slice(&out);
                }
            }
        }
    }
    (w, h, px)
}

/// [`atlas_rgba`] encoded as a PNG file's bytes (the demo's `tiles.png`); deterministic.
pub fn atlas_png(tile_px: u32) -> Result<Vec<u8>, png::EncodingError> {
    let (w, h, pixels) = atlas_rgba(tile_px);
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, w, h);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.write_header()?.write_image_data(&pixels)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::block::{DIRT, GRASS, STONE};
    use crate::base::block_library::{BlockDef, BlockFaces, GLASS, LOG, PLANKS, TORCH};

    /// A padded grid from text rows: ` ` air, `~` water, `#` stone, `d` dirt, `g` grass.
    fn grid(rows: &[&str]) -> TileGrid {
        let mut g = TileGrid::new(0, 0, rows[0].len() as i32, rows.len() as i32);
        for (y, r) in rows.iter().enumerate() {
            for (x, ch) in r.chars().enumerate() {
                let id = match ch {
                    '~' => WATER,
                    '#' => STONE,
                    'd' => DIRT,
                    'g' => GRASS,
                    _ => AIR,
                };
                g.set(x as i32, y as i32, id);
            }
        }
        g
    }

    #[test]
    fn masks_of_hand_made_patterns() {
        let g = grid(&[
            "       ", //
            " #  gg ", //
            "   ~dd ", //
            " ##~## ", //
            " ##### ", //
            "       ",
        ]);
        let tiles = autotile_padded(&g);
        let w = 5;
        let at = |x: usize, y: usize| tiles[(y - 1) * w + (x - 1)];
        // An isolated stone: no neighbour connects.
        assert_eq!(at(1, 1), Some(AtlasCoords { column: 0, row: STONE }));
        // Grass at (4,1): east grass, south dirt connect.
        assert_eq!(at(4, 1), Some(AtlasCoords { column: EAST | SOUTH, row: GRASS }));
        // Grass at (5,1): south dirt, west grass.
        assert_eq!(at(5, 1).map(|a| a.column), Some(SOUTH | WEST));
        // Water at (3,2): north air (open), east dirt, south water, west air (open).
        assert_eq!(at(3, 2), Some(AtlasCoords { column: EAST | SOUTH, row: WATER }));
        // Water at (3,3): water above, stone on both sides and below.
        assert_eq!(at(3, 3).map(|a| a.column), Some(NORTH | EAST | SOUTH | WEST));
        // Stone at (2,3) next to water: the water side (east) does not connect.
        assert_eq!(at(2, 3).map(|a| a.column), Some(SOUTH | WEST));
        // Dirt at (4,2): grass above, dirt east, stone below; water west does not connect.
        assert_eq!(at(4, 2).map(|a| a.column), Some(NORTH | EAST | SOUTH));
        // Buried stone.
        assert_eq!(at(2, 4).map(|a| a.column), Some(NORTH | EAST | WEST));
        assert_eq!(at(1, 2), None, "air has no tile");
    }

    #[test]
    fn atlas_has_the_documented_size_and_edges() {
        let (w, h, px) = atlas_rgba(8);
        assert_eq!((w, h), (16 * 8, ATLAS_ROWS * 8));
        assert_eq!(px.len(), (w * h * 4) as usize);
        let pixel = |x: u32, y: u32| &px[((y * w + x) * 4) as usize..((y * w + x) * 4 + 4) as usize];
        assert_eq!(pixel(3, 3)[3], 0, "row 0 (air) is transparent");
        // Stone, column 15 (surrounded) vs column 0 (isolated): the top-left pixel is darker on the edge.
        let row = STONE as u32 * 8;
        assert!(pixel(15 * 8 + 4, row)[0] > pixel(4, row)[0]);
    }

    #[test]
    fn builtin_rules_give_the_built_in_masks() {
        let rules = TileRules::builtin();
        let ids = [AIR, STONE, DIRT, GRASS, WATER, block::ICE, block::COAL_ORE, block::BEDROCK];
        for &t in &ids[1..] {
            for &n in &ids {
                for &e in &ids {
                    let want = atlas_coords(t, edge_mask(t, n, e, AIR, WATER));
                    assert_eq!(rules.atlas_coords(t, n, e, AIR, WATER), want, "{t} {n} {e}");
                }
            }
        }
        let g = grid(&["     ", " #~# ", " ### ", "     "]);
        let tiles = autotile_padded(&g);
        assert_eq!(tiles, autotile_padded_with(&g, &TileRules::from_library(default_library())));
        assert_eq!(tiles[1], Some(AtlasCoords { column: EAST | SOUTH | WEST, row: WATER }));
    }

    /// A library with the built-in blocks reordered (stone and dirt swapped) and a block of its own.
    fn reordered() -> BlockLibrary {
        let mut blocks = default_library().clone().into_blocks();
        blocks.swap(STONE as usize, DIRT as usize);
        blocks.push(BlockDef {
            name: "marble".into(),
            faces: BlockFaces::All(String::new()),
            color: [0.9, 0.9, 0.85],
            render_mode: RenderMode::Opaque,
            solid: true,
            light_emission: 0,
            light_opacity: 15,
        });
        BlockLibrary::new(blocks).unwrap()
    }

    #[test]
    fn library_rules_follow_the_library() {
        let lib = reordered();
        let rules = TileRules::from_library(&lib);
        let marble = lib.id_of("marble").unwrap();
        assert_eq!(rules.len(), lib.len());
        // The library's own block gets its own row, and connects to solid blocks.
        assert_eq!(rules.atlas_coords(marble, STONE, AIR, DIRT, marble), Some(AtlasCoords { column: 13, row: marble }));
        assert_eq!(rules.atlas_coords(marble + 1, STONE, STONE, STONE, STONE), None, "past the library");
        assert_eq!(TileRules::builtin().atlas_coords(marble, STONE, STONE, STONE, STONE), None);
        // A torch is not solid: nothing connects to it and it connects to nothing.
        assert_eq!(rules.atlas_coords(TORCH, STONE, STONE, STONE, STONE).map(|a| a.column), Some(0));
        assert_eq!(rules.atlas_coords(STONE, TORCH, STONE, STONE, STONE).map(|a| a.column), Some(14));
        // Glass is solid (and transparent): it connects; its variants are drawn plain.
        assert_eq!(rules.atlas_coords(GLASS, STONE, AIR, AIR, AIR).map(|a| a.column), Some(NORTH));
        assert!(rules.is_solid(GLASS) && !rules.is_edged(GLASS) && rules.is_edged(LOG) && !rules.is_solid(TORCH));
    }

    #[test]
    fn library_atlas_draws_textures_colours_and_edges() {
        // Without textures, the default library's built-in rows are the built-in atlas.
        let (w, h, all) = library_atlas_rgba(default_library(), 8, &[]);
        let (bw, bh, builtin) = atlas_rgba(8);
        assert_eq!((w, h, bw, bh), (16 * 8, default_library().len() as u32 * 8, 16 * 8, ATLAS_ROWS * 8));
        assert_eq!(&all[..builtin.len()], &builtin[..]);
        // A texture is copied into every variant; an opaque block's open sides get a darker rim.
        let lib = reordered();
        let px = 16u32;
        let mut textures = vec![None; lib.len()];
        let art: Vec<u8> = (0..px * px).flat_map(|i| [(i % 200) as u8 + 40, 90, 160, 255]).collect();
        textures[PLANKS as usize] = Some(art.clone());
        let glass_art: Vec<u8> = (0..px * px).flat_map(|_| [200, 220, 230, 96]).collect();
        textures[GLASS as usize] = Some(glass_art);
        let (w, h, atlas) = library_atlas_rgba(&lib, px, &textures);
        assert_eq!(h, lib.len() as u32 * px);
        let pixel = |col: u32, row: u32, x: u32, y: u32| {
            let i = (((row * px + y) * w + col * px + x) * 4) as usize;
            [atlas[i], atlas[i + 1], atlas[i + 2], atlas[i + 3]]
        };
        let art_at = |x: u32, y: u32| {
            let i = ((y * px + x) * 4) as usize;
            [art[i], art[i + 1], art[i + 2], art[i + 3]]
        };
        let planks = PLANKS as u32;
        for (x, y) in [(0, 0), (7, 5), (15, 15)] {
            assert_eq!(pixel(15, planks, x, y), art_at(x, y), "surrounded: the texture as it is");
        }
        assert_eq!(pixel(0, planks, 7, 7), art_at(7, 7), "the middle of an isolated tile too");
        let a = art_at(7, 0);
        assert_eq!(pixel(0, planks, 7, 0)[3], 255);
        assert!(pixel(0, planks, 7, 0)[0] < a[0], "the open top edge is darker");
        // Glass keeps its alpha and draws no edge (every variant the same).
        let glass = GLASS as u32;
        assert_eq!(pixel(0, glass, 0, 0), [200, 220, 230, 96]);
        assert_eq!(pixel(15, glass, 0, 0), [200, 220, 230, 96]);
        // Marble has no texture: its colour; dirt now sits at stone's row, drawn as dirt.
        let marble = lib.id_of("marble").unwrap() as u32;
        let srgb = |c: f32| (c.powf(1.0 / 2.2) * 255.0).round() as u8;
        assert_eq!(pixel(15, marble, 5, 0), [srgb(0.9 * 0.92), srgb(0.9 * 0.92), srgb(0.85 * 0.92), 255]);
        let (_, _, default_atlas) = library_atlas_rgba(default_library(), px, &[]);
        let default_pixel = |row: u32| {
            let i = (((row * px + 5) * w + 15 * px + 5) * 4) as usize;
            &default_atlas[i..i + 4]
        };
        assert_eq!(&pixel(15, STONE as u32, 5, 5)[..], default_pixel(DIRT as u32));
        // A texture of the wrong size is not used: the colour tile is drawn instead.
        let mut wrong = vec![None; lib.len()];
        wrong[PLANKS as usize] = Some(vec![0u8; 12]);
        let (_, _, colour) = library_atlas_rgba(&lib, px, &wrong);
        assert_eq!(colour, library_atlas_rgba(&lib, px, &[]).2);
        // Rows past Godot's largest texture are left out.
        assert_eq!(library_atlas_rows(&lib, 256), 24);
        let mut many = lib.clone().into_blocks();
        let stone = many[STONE as usize].clone();
        many.extend((0..100).map(|i| BlockDef { name: format!("extra_{i}"), ..stone.clone() }));
        let many = BlockLibrary::new(many).unwrap();
        assert_eq!(library_atlas_rows(&many, 256), 64, "16,384 / 256");
        assert_eq!(library_atlas_rgba(&many, 256, &[]).1, 16_384);
        assert_eq!(library_atlas_rows(&lib, 1), lib.len() as u32, "tile_px clamped to 4");
    }
}
