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
//! **47-tile blob sets** ([`TileLayout::Blob47`]). An 8-bit mask of the eight neighbours, clockwise
//! from the top: [`BLOB_N`] 1, [`BLOB_NE`] 2, [`BLOB_E`] 4, [`BLOB_SE`] 8, [`BLOB_S`] 16,
//! [`BLOB_SW`] 32, [`BLOB_W`] 64, [`BLOB_NW`] 128, each set when that neighbour connects (the same
//! rules as above). A corner bit counts only when both edge neighbours beside it are set
//! ([`blob_reduce`]): a corner is only seen from inside an L of connecting edges, where it decides
//! between a full tile and an inner corner. That leaves 47 distinct masks of the 256
//! ([`BLOB_MASKS`], ascending); the atlas column is the mask's place in that list
//! ([`blob_column`]): column 0 is the isolated tile (mask 0), column 46 the surrounded one (255).
//! A blob atlas is 47 columns × one row per block; each variant draws the edges of its open sides
//! and, at a corner whose two edges connect but whose corner does not, an inner-corner notch.
//!
//! Tiles are chosen on worker threads from a chunk generated with a one-tile halo (its corners
//! included), so the main thread only calls `set_cell(coords, source, atlas_coords)`; a tile on a
//! chunk's border reads the neighbouring chunk's cells from the halo, a pure function of the world.
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

pub const BLOB_N: u8 = 1;
pub const BLOB_NE: u8 = 2;
pub const BLOB_E: u8 = 4;
pub const BLOB_SE: u8 = 8;
pub const BLOB_S: u8 = 16;
pub const BLOB_SW: u8 = 32;
pub const BLOB_W: u8 = 64;
pub const BLOB_NW: u8 = 128;

/// Columns of a blob atlas: one per distinct reduced mask.
pub const BLOB_COLUMNS: u32 = 47;

/// `mask` with every corner bit cleared whose two edge bits are not both set.
pub const fn blob_reduce(mask: u8) -> u8 {
    let mut m = mask & (BLOB_N | BLOB_E | BLOB_S | BLOB_W);
    let corners =
        [(BLOB_NE, BLOB_N, BLOB_E), (BLOB_SE, BLOB_S, BLOB_E), (BLOB_SW, BLOB_S, BLOB_W), (BLOB_NW, BLOB_N, BLOB_W)];
    let mut i = 0;
    while i < 4 {
        let (c, a, b) = corners[i];
        if mask & c != 0 && mask & a != 0 && mask & b != 0 {
            m |= c;
        }
        i += 1;
    }
    m
}

/// The distinct reduced masks, ascending: the atlas column of a blob tile is the place of its
/// reduced mask here.
pub const BLOB_MASKS: [u8; 47] = {
    let mut out = [0u8; 47];
    let (mut n, mut m) = (0, 0usize);
    while m < 256 {
        if blob_reduce(m as u8) == m as u8 {
            out[n] = m as u8;
            n += 1;
        }
        m += 1;
    }
    out
};

/// The atlas column of every 8-bit mask.
const BLOB_COLUMN_OF: [u8; 256] = {
    let mut out = [0u8; 256];
    let mut m = 0usize;
    while m < 256 {
        let r = blob_reduce(m as u8);
        let mut i = 0;
        while BLOB_MASKS[i] != r {
            i += 1;
        }
        out[m] = i as u8;
        m += 1;
    }
    out
};

/// The blob atlas column (0..47) of the 8-bit neighbour mask `mask`.
#[inline]
pub fn blob_column(mask: u8) -> u8 {
    BLOB_COLUMN_OF[mask as usize]
}

/// Which variants an atlas holds: 16 edge variants (4-bit mask) or 47 blob variants (8-bit mask
/// with corners); see the module docs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TileLayout {
    #[default]
    Edges16,
    Blob47,
}

impl TileLayout {
    /// Both layouts, in the order of their numbers (0, 1).
    pub const ALL: [TileLayout; 2] = [TileLayout::Edges16, TileLayout::Blob47];

    /// Columns of the atlas: 16 or 47.
    pub const fn columns(self) -> u32 {
        match self {
            TileLayout::Edges16 => ATLAS_COLUMNS,
            TileLayout::Blob47 => BLOB_COLUMNS,
        }
    }

    /// The layout numbered `n` (0 = Edges16, 1 = Blob47), `None` for any other number.
    pub fn from_index(n: i64) -> Option<Self> {
        usize::try_from(n).ok().and_then(|i| Self::ALL.get(i).copied())
    }

    /// The layout's name, as the inspector shows it.
    pub const fn name(self) -> &'static str {
        match self {
            TileLayout::Edges16 => "Edges16",
            TileLayout::Blob47 => "Blob47",
        }
    }

    /// The open sides `[n, e, s, w]` and the inner-corner notches `[ne, se, sw, nw]` of `column`.
    pub fn column_shape(self, column: u8) -> ([bool; 4], [bool; 4]) {
        match self {
            TileLayout::Edges16 => {
                let open = |bit: u8| column & bit == 0;
                ([open(NORTH), open(EAST), open(SOUTH), open(WEST)], [false; 4])
            }
            TileLayout::Blob47 => {
                let m = BLOB_MASKS.get(column as usize).copied().unwrap_or(0);
                let has = |bit: u8| m & bit != 0;
                let notch = |c: u8, a: u8, b: u8| has(a) && has(b) && !has(c);
                (
                    [!has(BLOB_N), !has(BLOB_E), !has(BLOB_S), !has(BLOB_W)],
                    [
                        notch(BLOB_NE, BLOB_N, BLOB_E),
                        notch(BLOB_SE, BLOB_S, BLOB_E),
                        notch(BLOB_SW, BLOB_S, BLOB_W),
                        notch(BLOB_NW, BLOB_N, BLOB_W),
                    ],
                )
            }
        }
    }
}
/// Rows of the atlas: one per block id.
pub const ATLAS_ROWS: u32 = block::BLOCK_COUNT as u32;

/// Where a tile variant sits in the atlas.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AtlasCoords {
    /// The edge mask, 0..=15 ([`TileLayout::Edges16`]), or the blob column, 0..47
    /// ([`TileLayout::Blob47`]).
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
    layout: TileLayout,
}

impl TileRules {
    /// The rules of `library`'s blocks.
    pub fn from_library(library: &BlockLibrary) -> Self {
        let blocks = library.blocks();
        Self {
            solid: blocks.iter().map(|b| b.solid).collect(),
            liquid: blocks.iter().map(|b| b.render_mode == RenderMode::Liquid).collect(),
            edged: blocks.iter().map(|b| matches!(b.render_mode, RenderMode::Opaque | RenderMode::Liquid)).collect(),
            layout: TileLayout::Edges16,
        }
    }

    /// These rules choosing the variants of `layout`.
    pub fn with_layout(mut self, layout: TileLayout) -> Self {
        self.layout = layout;
        self
    }

    /// The atlas layout the rules choose variants of.
    pub fn layout(&self) -> TileLayout {
        self.layout
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

    /// The blob atlas tile of `tile` with its eight neighbours clockwise from the top
    /// (`[n, ne, e, se, s, sw, w, nw]`); `None` for air and for ids past the library.
    #[inline]
    pub fn blob_coords(&self, tile: BlockId, around: [BlockId; 8]) -> Option<AtlasCoords> {
        if tile == AIR || tile as usize >= self.len() {
            return None;
        }
        let mut mask = 0u8;
        for (i, &n) in around.iter().enumerate() {
            mask |= (self.connects(tile, n) as u8) << i;
        }
        Some(AtlasCoords { column: blob_column(mask), row: tile })
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
            out.push(match rules.layout {
                TileLayout::Edges16 => rules.atlas_coords(t, at(x, y - 1), at(x + 1, y), at(x, y + 1), at(x - 1, y)),
                TileLayout::Blob47 => rules.blob_coords(
                    t,
                    [
                        at(x, y - 1),
                        at(x + 1, y - 1),
                        at(x + 1, y),
                        at(x + 1, y + 1),
                        at(x, y + 1),
                        at(x - 1, y + 1),
                        at(x - 1, y),
                        at(x - 1, y - 1),
                    ],
                ),
            });
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
    atlas_rgba_with(tile_px, TileLayout::Edges16)
}

/// [`atlas_rgba`] in `layout` (16 or 47 columns).
pub fn atlas_rgba_with(tile_px: u32, layout: TileLayout) -> (u32, u32, Vec<u8>) {
    let (w, _, mut px) = library_atlas_rgba_with(default_library(), tile_px, &[], layout);
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
    library_atlas_rgba_with(library, tile_px, textures, TileLayout::Edges16)
}

/// [`library_atlas_rgba`] in `layout`: 16 edge variants, or 47 blob variants whose inner-corner
/// notches (a corner of the rim's size) are drawn as the edges are.
pub fn library_atlas_rgba_with(
    library: &BlockLibrary,
    tile_px: u32,
    textures: &[Option<Vec<u8>>],
    layout: TileLayout,
) -> (u32, u32, Vec<u8>) {
    let tile_px = tile_px.clamp(4, 256);
    let rows = library_atlas_rows(library, tile_px);
    let (w, h) = (layout.columns() * tile_px, rows * tile_px);
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
        for mask in 0..layout.columns() as u8 {
            let (sides, notches) = layout.column_shape(mask);
            let [open_n, open_e, open_s, open_w] = sides.map(|o| edged && o);
            let [notch_ne, notch_se, notch_sw, notch_nw] = notches.map(|n| edged && n);
            for ty in 0..tile_px {
                for tx in 0..tile_px {
                    let (top, bottom) = (ty < rim, ty >= tile_px - rim);
                    let (left, right) = (tx < rim, tx >= tile_px - rim);
                    let on_edge = (open_n && top)
                        || (open_s && bottom)
                        || (open_w && left)
                        || (open_e && right)
                        || (notch_ne && top && right)
                        || (notch_se && bottom && right)
                        || (notch_sw && bottom && left)
                        || (notch_nw && top && left);
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
                            let cap = is_grass && open_n && ty < rim * 3;
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
    atlas_png_with(tile_px, TileLayout::Edges16)
}

/// [`atlas_rgba_with`] encoded as a PNG file's bytes; deterministic.
pub fn atlas_png_with(tile_px: u32, layout: TileLayout) -> Result<Vec<u8>, png::EncodingError> {
    let (w, h, pixels) = atlas_rgba_with(tile_px, layout);
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
            hide_faces_between_same: false,
            tint: Default::default(),
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

    #[test]
    fn blob_masks_reduce_256_to_47() {
        let columns: std::collections::BTreeSet<u8> = (0..=255u8).map(blob_column).collect();
        assert_eq!(columns.len(), 47);
        assert_eq!(columns.iter().copied().max(), Some(46));
        let reduced: std::collections::BTreeSet<u8> = (0..=255u8).map(blob_reduce).collect();
        assert_eq!(reduced.into_iter().collect::<Vec<_>>(), BLOB_MASKS.to_vec());
        assert!(BLOB_MASKS.windows(2).all(|w| w[0] < w[1]), "ascending");
        let corners = [
            (BLOB_NE, BLOB_N, BLOB_E),
            (BLOB_SE, BLOB_S, BLOB_E),
            (BLOB_SW, BLOB_S, BLOB_W),
            (BLOB_NW, BLOB_N, BLOB_W),
        ];
        for m in 0..=255u8 {
            let r = blob_reduce(m);
            // Edges are kept as they are; a corner only when it and both edges beside it are set.
            assert_eq!(r & 0b0101_0101, m & 0b0101_0101, "{m:#010b}");
            for (c, a, b) in corners {
                assert_eq!(r & c != 0, m & c != 0 && m & a != 0 && m & b != 0, "{m:#010b} corner {c}");
            }
            assert_eq!(blob_reduce(r), r);
            assert_eq!(BLOB_MASKS[blob_column(m) as usize], r);
        }
        // 16 edge combinations; each L of two edges doubles with its corner: 1·16 + corners.
        let with_corners: u32 = (0..16u8)
            .map(|e| {
                let edge = |i: u8| e & (1 << i) != 0;
                let ls = (0..4).filter(|&i| edge(i) && edge((i + 1) % 4)).count() as u32;
                1 << ls
            })
            .sum();
        assert_eq!(with_corners, 47);
    }

    #[test]
    fn blob_known_cases() {
        assert_eq!(blob_column(0), 0, "isolated");
        assert_eq!(blob_column(255), 46, "surrounded");
        // A corner without both of its edges does not count.
        assert_eq!(blob_column(BLOB_N | BLOB_NE), blob_column(BLOB_N));
        assert_eq!(blob_column(BLOB_NE | BLOB_SE | BLOB_SW | BLOB_NW), 0);
        assert_eq!(blob_column(BLOB_N | BLOB_E | BLOB_NE | BLOB_SW), blob_column(BLOB_N | BLOB_E | BLOB_NE));
        assert_ne!(blob_column(BLOB_N | BLOB_E | BLOB_NE), blob_column(BLOB_N | BLOB_E));
        // All four edges and no corner: four inner corners, nothing open.
        let cross = blob_column(BLOB_N | BLOB_E | BLOB_S | BLOB_W);
        assert_eq!(TileLayout::Blob47.column_shape(cross), ([false; 4], [true; 4]));
        assert_eq!(TileLayout::Blob47.column_shape(46), ([false; 4], [false; 4]));
        assert_eq!(TileLayout::Blob47.column_shape(0), ([true; 4], [false; 4]));
        // Edges of the 16 layout are its mask's clear bits.
        assert_eq!(TileLayout::Edges16.column_shape(NORTH | WEST), ([false, true, true, false], [false; 4]));
        assert_eq!(TileLayout::from_index(1), Some(TileLayout::Blob47));
        assert_eq!(TileLayout::from_index(2), None);
        assert_eq!(TileLayout::from_index(-1), None);
        assert_eq!((TileLayout::Edges16.columns(), TileLayout::Blob47.columns()), (16, 47));
    }

    #[test]
    fn blob_tiles_of_a_hand_made_pattern() {
        let g = grid(&[
            "       ", //
            " ##### ", //
            " # ### ", //
            " ##### ", //
            "       ",
        ]);
        let rules = TileRules::builtin().as_ref().clone().with_layout(TileLayout::Blob47);
        let tiles = autotile_padded_with(&g, &rules);
        let w = 5;
        let at = |x: usize, y: usize| tiles[(y - 1) * w + (x - 1)].unwrap().column;
        // Top-left corner: east and south connect, its south-east is the hole: an inner corner.
        assert_eq!(at(1, 1), blob_column(BLOB_E | BLOB_S));
        assert_eq!(
            TileLayout::Blob47.column_shape(at(1, 1)),
            ([true, false, false, true], [false, true, false, false])
        );
        // (2,1), above the hole: its solid south-east and south-west corners do not count.
        assert_eq!(at(2, 1), blob_column(BLOB_E | BLOB_W | BLOB_SE | BLOB_SW));
        assert_eq!(at(2, 1), blob_column(BLOB_E | BLOB_W));
        // (3,1): its south-west is the hole: an inner corner there.
        let c = at(3, 1);
        assert_eq!(c, blob_column(BLOB_E | BLOB_SE | BLOB_S | BLOB_W));
        assert_eq!(TileLayout::Blob47.column_shape(c), ([true, false, false, false], [false, false, true, false]));
        // (4,2): surrounded on all eight sides.
        assert_eq!(at(4, 2), 46);
        assert_eq!(tiles[w + 1], None, "air at (2,2) has no tile");
        // The 16 layout of the same rules is unchanged.
        let edges = autotile_padded_with(&g, TileRules::builtin());
        assert_eq!(edges[0].unwrap().column, EAST | SOUTH);
    }

    #[test]
    fn blob_atlas_draws_edges_and_inner_corners() {
        let (w, h, px) = atlas_rgba_with(8, TileLayout::Blob47);
        assert_eq!((w, h), (47 * 8, ATLAS_ROWS * 8));
        let red = |col: u32, x: u32, y: u32| px[(((STONE as u32 * 8 + y) * w + col * 8 + x) * 4) as usize];
        let cross = blob_column(BLOB_N | BLOB_E | BLOB_S | BLOB_W) as u32;
        // The inner corner is dark, the middle of a side is not; the surrounded tile has neither.
        assert!(red(cross, 7, 0) < red(cross, 4, 4) && red(cross, 7, 0) < red(46, 7, 0));
        assert_eq!(red(cross, 4, 0), red(46, 4, 0));
        // The isolated tile's edges match the 16 layout's isolated tile.
        let (w16, _, px16) = atlas_rgba(8);
        let i16 = (((STONE as u32 * 8 + 1) * w16 + 3) * 4) as usize;
        let i47 = (((STONE as u32 * 8 + 1) * w + 3) * 4) as usize;
        assert_eq!(px16[i16..i16 + 4], px[i47..i47 + 4]);
        assert_eq!(
            library_atlas_rgba_with(default_library(), 8, &[], TileLayout::Edges16),
            library_atlas_rgba(default_library(), 8, &[])
        );
    }
}
