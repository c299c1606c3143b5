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
//! Tiles are chosen on worker threads from a chunk generated with a one-tile halo, so the main
//! thread only calls `set_cell(coords, source, atlas_coords)`.
//!
//! May use: `base`, `gen2d`'s tile grid.

use crate::base::block::{self, AIR, BlockId, WATER};
use crate::gen2d::TileGrid;

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
    pub row: u8,
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
    (tile != AIR && (tile as u32) < ATLAS_ROWS).then_some(AtlasCoords { column: mask & 15, row: tile as u8 })
}

/// Atlas tiles of the interior of `padded` (everything but its one-tile border), row by row.
pub fn autotile_padded(padded: &TileGrid) -> Vec<Option<AtlasCoords>> {
    let (w, h) = (padded.width - 2, padded.height - 2);
    if w <= 0 || h <= 0 {
        return Vec::new();
    }
    let at = |x: i32, y: i32| padded.tiles[(y * padded.width + x) as usize];
    let mut out = Vec::with_capacity((w * h) as usize);
    for y in 1..=h {
        for x in 1..=w {
            let t = at(x, y);
            out.push(if t == AIR {
                None
            } else {
                atlas_coords(t, edge_mask(t, at(x, y - 1), at(x + 1, y), at(x, y + 1), at(x - 1, y)))
            });
        }
    }
    out
}

/// Pixels (RGBA8, row-major) of an atlas in the layout above with `tile_px`-pixel tiles: each
/// tile is its block's colour, shaded from top to bottom, with a lighter rim (grass: a green cap;
/// water: a bright line) on each side whose mask bit is clear, dark ore specks, and transparent
/// water below its surface line only in alpha. Returns `(width, height, pixels)`.
pub fn atlas_rgba(tile_px: u32) -> (u32, u32, Vec<u8>) {
    let tile_px = tile_px.clamp(4, 256);
    let (w, h) = (ATLAS_COLUMNS * tile_px, ATLAS_ROWS * tile_px);
    let mut px = vec![0u8; (w * h * 4) as usize];
    let rim = (tile_px / 8).max(1);
    for row in 1..ATLAS_ROWS {
        let id = row as BlockId;
        let info = block::block_info(id);
        let srgb = |c: f32| (c.clamp(0.0, 1.0).powf(1.0 / 2.2) * 255.0).round() as u8;
        let base = info.color;
        let is_ore = matches!(id, block::COAL_ORE | block::IRON_ORE | block::GOLD_ORE | block::DIAMOND_ORE);
        for mask in 0..ATLAS_COLUMNS as u8 {
            for ty in 0..tile_px {
                for tx in 0..tile_px {
                    let shade = 1.0 - 0.12 * ty as f32 / tile_px as f32;
                    let mut c = [base[0] * shade, base[1] * shade, base[2] * shade];
                    let mut alpha = if id == WATER { 0.75 } else { 1.0 };
                    // Ores: stone with specks of the ore colour.
                    if is_ore {
                        let stone = block::block_info(block::STONE).color;
                        let speck = ((tx * 7 + ty * 13) % 11) < 3 && tx > 0 && ty > 0;
                        c = if speck { base } else { [stone[0] * shade, stone[1] * shade, stone[2] * shade] };
                    }
                    // Faint texture so large areas read as tiles.
                    if tx == 0 || ty == 0 {
                        c = [c[0] * 0.92, c[1] * 0.92, c[2] * 0.92];
                    }
                    let open = |bit: u8| mask & bit == 0;
                    let on_edge = (open(NORTH) && ty < rim)
                        || (open(SOUTH) && ty >= tile_px - rim)
                        || (open(WEST) && tx < rim)
                        || (open(EAST) && tx >= tile_px - rim);
                    if on_edge {
                        if id == block::GRASS && open(NORTH) && ty < rim * 3 {
                            c = [0.25, 0.80, 0.20];
                        } else if id == WATER {
                            c = [0.75, 0.88, 1.0];
                            alpha = 0.9;
                        } else {
                            c = [c[0] * 0.55, c[1] * 0.55, c[2] * 0.55];
                        }
                    } else if id == block::GRASS && open(NORTH) && ty < rim * 3 {
                        c = [0.25, 0.80, 0.20];
                    }
                    let x = (mask as u32) * tile_px + tx;
                    let y = row * tile_px + ty;
                    let i = ((y * w + x) * 4) as usize;
                    px[i..i + 4].copy_from_slice(&[
                        srgb(c[0]),
                        srgb(c[1]),
                        srgb(c[2]),
                        (alpha * 255.0f32).round() as u8,
                    ]);
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
        assert_eq!(at(1, 1), Some(AtlasCoords { column: 0, row: STONE as u8 }));
        // Grass at (4,1): east grass, south dirt connect.
        assert_eq!(at(4, 1), Some(AtlasCoords { column: EAST | SOUTH, row: GRASS as u8 }));
        // Grass at (5,1): south dirt, west grass.
        assert_eq!(at(5, 1).map(|a| a.column), Some(SOUTH | WEST));
        // Water at (3,2): north air (open), east dirt, south water, west air (open).
        assert_eq!(at(3, 2), Some(AtlasCoords { column: EAST | SOUTH, row: WATER as u8 }));
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
}
