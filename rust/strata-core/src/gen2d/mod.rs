//! Side-view (2D) worlds: an infinite, seeded tile world for 2D games, engine-free.
//!
//! **Convention:** tile `x` grows to the right and tile `y` grows **down**, exactly as Godot's
//! 2D tile coordinates, so the Godot layer passes coordinates through unchanged. Heights of the
//! surface line are measured *up* (a larger height is a higher hill, a smaller row number).
//!
//! Data flows one way: [`crate::preset::model::SideViewSettings`] → [`surface::SurfaceLine`] (a 1D
//! height source) → [`generator::Generator2D`] (layers, caves, pockets, ores, pools, then
//! [`structures`] stamped by the preset's rules; a pure function of world tile coordinates) →
//! [`autotile`] (edge variants from a 1-tile halo). [`structure_library`] holds the shipped
//! side-view structures; [`spawns`] says where the game's objects start, from generated tiles.
//! [`classic`] holds the side-view classic's surface noise and caves, selectable modes of both. The
//! streamer that runs this on workers is [`crate::stream::stream2d`], one layer up.
//!
//! May use: `base`, `preset`, `noise`, `automata`. Never `gen3d`, `mesh`, `stream` or `persist`.

pub mod autotile;
pub mod classic;
pub mod generator;
pub mod spawns;
pub mod structure_library;
pub mod structures;
pub mod surface;

use crate::base::block::{AIR, BlockId};

pub use generator::{Generator2D, Generator2DError};
pub use structures::{Placement2D, StructureError2D, StructureLibrary2D, StructureTemplate2D};

/// A square chunk of `n × n` tiles (`n` = `SideViewSettings::chunk_tiles`): chunk `(x, y)`
/// covers tiles `[x·n, x·n + n) × [y·n, y·n + n)`; negative tiles use floor division.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ChunkCoord2D {
    pub x: i32,
    pub y: i32,
}

impl ChunkCoord2D {
    pub const fn new(x: i32, y: i32) -> Self {
        Self { x, y }
    }

    /// The chunk holding tile `(x, y)` for chunks of `chunk_tiles` tiles.
    pub fn containing(x: i32, y: i32, chunk_tiles: i32) -> Self {
        Self { x: x.div_euclid(chunk_tiles), y: y.div_euclid(chunk_tiles) }
    }

    /// The tile at the chunk's top-left corner.
    pub fn min_tile(self, chunk_tiles: i32) -> (i32, i32) {
        (self.x * chunk_tiles, self.y * chunk_tiles)
    }
}

/// A rectangle of tiles in world tile coordinates, stored row by row from the top.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileGrid {
    pub min_x: i32,
    pub min_y: i32,
    pub width: i32,
    pub height: i32,
    /// `tiles[(y − min_y)·width + (x − min_x)]`.
    pub tiles: Vec<BlockId>,
}

impl TileGrid {
    /// An all-air grid over `[min_x, min_x + width) × [min_y, min_y + height)`.
    pub fn new(min_x: i32, min_y: i32, width: i32, height: i32) -> Self {
        let (width, height) = (width.max(0), height.max(0));
        Self { min_x, min_y, width, height, tiles: vec![AIR; (width * height) as usize] }
    }

    /// Whether world tile `(x, y)` lies inside.
    #[inline]
    pub fn contains(&self, x: i32, y: i32) -> bool {
        x >= self.min_x && y >= self.min_y && x < self.min_x + self.width && y < self.min_y + self.height
    }

    /// The tile at world `(x, y)`, or `None` outside.
    #[inline]
    pub fn get(&self, x: i32, y: i32) -> Option<BlockId> {
        self.contains(x, y).then(|| self.tiles[((y - self.min_y) * self.width + (x - self.min_x)) as usize])
    }

    /// Sets world tile `(x, y)`; positions outside are ignored.
    #[inline]
    pub fn set(&mut self, x: i32, y: i32, id: BlockId) {
        if self.contains(x, y) {
            self.tiles[((y - self.min_y) * self.width + (x - self.min_x)) as usize] = id;
        }
    }

    /// The sub-rectangle `[min_x, min_x + width) × [min_y, min_y + height)`, which must lie inside.
    pub fn crop(&self, min_x: i32, min_y: i32, width: i32, height: i32) -> TileGrid {
        let mut out = TileGrid::new(min_x, min_y, width, height);
        for y in 0..out.height {
            for x in 0..out.width {
                out.tiles[(y * out.width + x) as usize] = self.get(min_x + x, min_y + y).unwrap_or(AIR);
            }
        }
        out
    }

    /// Rows as text, one char per tile (for tests and debugging): ` ` air, `~` water, `#` stone,
    /// `d` dirt, `g` grass, `s` sand, `o` any ore, `?` anything else.
    pub fn to_ascii(&self) -> Vec<String> {
        use crate::base::block::*;
        (0..self.height)
            .map(|y| {
                (0..self.width)
                    .map(|x| match self.tiles[(y * self.width + x) as usize] {
                        AIR => ' ',
                        WATER => '~',
                        STONE => '#',
                        DIRT => 'd',
                        GRASS => 'g',
                        SAND => 's',
                        COAL_ORE | IRON_ORE | GOLD_ORE | DIAMOND_ORE => 'o',
                        _ => '?',
                    })
                    .collect()
            })
            .collect()
    }
}

#[cfg(test)]
mod structure_tests;
