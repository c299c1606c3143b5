//! The built-in block types: ids, names, colours and how they take part in meshing.
//!
//! A voxel stores a [`BlockId`] (`u16`); `0` is air. The static table here is the first
//! [`BLOCK_COUNT`] blocks of the default [`crate::base::block_library::BlockLibrary`], what the
//! generator and the mesher use, and also the blocks that save format 1 stored by id: it is never
//! reordered or shortened. Game-defined blocks live in the block library.
//!
//! May use: the other `base` modules, `std` and the crates in `Cargo.toml`; nothing else in this crate.

/// The id of a block type stored in a voxel.
pub type BlockId = u16;

pub const AIR: BlockId = 0;
pub const STONE: BlockId = 1;
pub const DIRT: BlockId = 2;
pub const GRASS: BlockId = 3;
pub const SAND: BlockId = 4;
pub const WATER: BlockId = 5;
pub const SNOW: BlockId = 6;
pub const GRAVEL: BlockId = 7;
pub const SANDSTONE: BlockId = 8;
pub const ICE: BlockId = 9;
pub const COAL_ORE: BlockId = 10;
pub const IRON_ORE: BlockId = 11;
pub const GOLD_ORE: BlockId = 12;
pub const DIAMOND_ORE: BlockId = 13;
pub const BEDROCK: BlockId = 14;
pub const CLAY: BlockId = 15;
pub const PODZOL: BlockId = 16;
pub const RED_SAND: BlockId = 17;

/// Number of built-in block ids; ids at or above it are unknown here (the default block library
/// defines more after them).
pub const BLOCK_COUNT: BlockId = 18;

/// Static description of a block type.
#[derive(Clone, Copy, Debug)]
pub struct BlockInfo {
    pub name: &'static str,
    /// Linear RGB colour used for vertex colours.
    pub color: [f32; 3],
    /// Solid blocks stop the player and hide the faces of neighbours.
    pub solid: bool,
    /// Liquid blocks are meshed into a separate, translucent surface.
    pub liquid: bool,
}

const fn info(name: &'static str, color: [f32; 3], solid: bool, liquid: bool) -> BlockInfo {
    BlockInfo { name, color, solid, liquid }
}

static BLOCKS: [BlockInfo; BLOCK_COUNT as usize] = [
    info("air", [0.0, 0.0, 0.0], false, false),
    info("stone", [0.45, 0.45, 0.47], true, false),
    info("dirt", [0.45, 0.30, 0.18], true, false),
    info("grass", [0.30, 0.62, 0.22], true, false),
    info("sand", [0.86, 0.80, 0.55], true, false),
    info("water", [0.18, 0.38, 0.78], false, true),
    info("snow", [0.94, 0.95, 0.98], true, false),
    info("gravel", [0.52, 0.50, 0.48], true, false),
    info("sandstone", [0.80, 0.68, 0.45], true, false),
    info("ice", [0.68, 0.82, 0.95], true, false),
    info("coal_ore", [0.20, 0.20, 0.22], true, false),
    info("iron_ore", [0.70, 0.55, 0.45], true, false),
    info("gold_ore", [0.95, 0.80, 0.25], true, false),
    info("diamond_ore", [0.40, 0.90, 0.90], true, false),
    info("bedrock", [0.15, 0.15, 0.15], true, false),
    info("clay", [0.62, 0.64, 0.70], true, false),
    info("podzol", [0.40, 0.28, 0.15], true, false),
    info("red_sand", [0.80, 0.45, 0.22], true, false),
];

/// Information about `id`; unknown ids are reported as solid "unknown" magenta blocks.
pub fn block_info(id: BlockId) -> BlockInfo {
    BLOCKS.get(id as usize).copied().unwrap_or(info("unknown", [1.0, 0.0, 1.0], true, false))
}

pub fn is_solid(id: BlockId) -> bool {
    block_info(id).solid
}

pub fn is_liquid(id: BlockId) -> bool {
    block_info(id).liquid
}

/// The id of the block named `name`, if any.
pub fn block_by_name(name: &str) -> Option<BlockId> {
    BLOCKS.iter().position(|b| b.name == name).map(|i| i as BlockId)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for id in 0..BLOCK_COUNT {
            assert_eq!(block_by_name(block_info(id).name), Some(id));
        }
        assert!(!is_solid(AIR) && !is_solid(WATER) && is_liquid(WATER) && is_solid(STONE));
    }
}
