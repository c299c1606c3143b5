//! How each block type takes part in light: a plain table the caller fills, indexed by
//! [`BlockId`]. The light functions read nothing else about blocks, so a block library can fill
//! this table without the light code knowing its blocks.
//!
//! Per block: an **opacity** 0–15 and an **emission** 0–15.
//! * opacity 0: clear (air, glass). Light entering it loses 1; sky light of level 15 goes
//!   straight down through it without loss.
//! * opacity 1–14: translucent (water, ice, leaves). Light entering it loses `1 + opacity`; sky
//!   light does not go straight down through it.
//! * opacity 15 ([`OPAQUE`]): stops light. Its own light is 0, or its emission if it glows.
//! * emission: the block light the voxel has by itself, whatever reaches it.
//!
//! May use: `base`, `light::error`.

use crate::base::block::BlockId;
use crate::light::error::LightError;

/// The opacity of a block that stops light.
pub const OPAQUE: u8 = 15;

/// Number of entries of the table: one per possible [`BlockId`].
const TABLE_LEN: usize = BlockId::MAX as usize + 1;

/// Light properties of every block id: opacity in the high nibble, emission in the low one, so
/// the propagation reads one byte per voxel it looks at.
#[derive(Clone, PartialEq, Eq)]
pub struct LightProps {
    table: Box<[u8]>,
    /// The smallest and largest emissive id (`lo > hi` when none glows): the propagation scans
    /// voxels for emitters only when some id glows, comparing ids against this range first.
    emissive_lo: BlockId,
    emissive_hi: BlockId,
}

impl std::fmt::Debug for LightProps {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let emitters = self.table.iter().filter(|&&b| b & 15 != 0).count();
        f.debug_struct("LightProps").field("emissive_ids", &emitters).finish_non_exhaustive()
    }
}

impl LightProps {
    /// Every id opaque and dark; fill it with [`LightProps::set`].
    pub fn all_opaque() -> Self {
        Self { table: vec![OPAQUE << 4; TABLE_LEN].into_boxed_slice(), emissive_lo: BlockId::MAX, emissive_hi: 0 }
    }

    /// The light properties of the default block library
    /// ([`crate::base::block_library::default_library`]): one source for what each built-in
    /// block does to light (air, glass and torch clear; water 2; leaves 1; solid blocks opaque;
    /// the torch glows 14).
    pub fn default_blocks() -> Self {
        Self::from_library(crate::base::block_library::default_library())
    }

    /// The light properties of every block of `library` (its opacity and emission tables);
    /// ids beyond it stay opaque and dark. A validated library holds no value above 15.
    pub fn from_library(library: &crate::base::block_library::BlockLibrary) -> Self {
        let mut p = Self::all_opaque();
        for (id, (&opacity, &emission)) in library.opacity_table().iter().zip(library.emission_table()).enumerate() {
            p.table[id] = (opacity.min(OPAQUE) << 4) | emission.min(15);
        }
        p.update_emissive_range();
        p
    }

    /// Sets the light properties of `id`; refuses values above 15 and changes nothing then.
    pub fn set(&mut self, id: BlockId, opacity: u8, emission: u8) -> Result<(), LightError> {
        for (field, value) in [("opacity", opacity), ("emission", emission)] {
            if value > 15 {
                return Err(LightError::PropertyOutOfRange { id, field, value });
            }
        }
        self.table[id as usize] = (opacity << 4) | emission;
        self.update_emissive_range();
        Ok(())
    }

    fn update_emissive_range(&mut self) {
        let first = self.table.iter().position(|&b| b & 15 != 0);
        let last = self.table.iter().rposition(|&b| b & 15 != 0);
        (self.emissive_lo, self.emissive_hi) = match (first, last) {
            (Some(lo), Some(hi)) => (lo as BlockId, hi as BlockId),
            _ => (BlockId::MAX, 0),
        };
    }

    /// Opacity of `id`, 0 (clear) to 15 ([`OPAQUE`]).
    #[inline]
    pub fn opacity(&self, id: BlockId) -> u8 {
        self.table[id as usize] >> 4
    }

    /// Block light `id` gives off by itself, 0–15.
    #[inline]
    pub fn emission(&self, id: BlockId) -> u8 {
        self.table[id as usize] & 15
    }

    /// True when sky light of level 15 passes `id` straight down without loss (opacity 0).
    #[inline]
    pub fn is_clear(&self, id: BlockId) -> bool {
        self.table[id as usize] < 16
    }

    /// True when some id glows.
    pub fn has_emitters(&self) -> bool {
        self.emissive_lo <= self.emissive_hi
    }

    /// The smallest and largest emissive id, when some id glows.
    pub fn emissive_range(&self) -> Option<(BlockId, BlockId)> {
        self.has_emitters().then_some((self.emissive_lo, self.emissive_hi))
    }

    /// The packed byte of `id`: opacity << 4 | emission.
    #[inline]
    pub(crate) fn packed(&self, id: BlockId) -> u8 {
        self.table[id as usize]
    }
}

impl Default for LightProps {
    fn default() -> Self {
        Self::default_blocks()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::block;

    #[test]
    fn default_blocks_follow_the_default_library() {
        let p = LightProps::default_blocks();
        let lib = crate::base::block_library::default_library();
        let id = |name: &str| lib.id_of(name).expect("a default block");
        assert!(p.is_clear(block::AIR) && p.opacity(block::AIR) == 0);
        // Water dims light one extra step a voxel; ice is a solid opaque block.
        assert_eq!(p.opacity(block::WATER), 1);
        assert_eq!(p.opacity(block::ICE), OPAQUE);
        assert_eq!(p.opacity(id("leaves")), 1);
        assert!(p.is_clear(id("glass")) && p.is_clear(id("torch")));
        for id in [block::STONE, block::GRASS, block::SAND, block::BEDROCK, block::RED_SAND, 999, BlockId::MAX] {
            assert_eq!(p.opacity(id), OPAQUE, "{id}");
        }
        // The torch is the one block that glows.
        assert_eq!(p.emissive_range(), Some((id("torch"), id("torch"))));
        assert_eq!(p.emission(id("torch")), 14);
    }

    #[test]
    fn set_refuses_values_above_fifteen_and_tracks_emitters() {
        let mut p = LightProps::all_opaque();
        assert_eq!(p.set(7, 16, 0), Err(LightError::PropertyOutOfRange { id: 7, field: "opacity", value: 16 }));
        let e = p.set(7, 0, 200).unwrap_err();
        assert!(e.to_string().contains("emission") && e.to_string().contains("0..=15"), "{e}");
        assert_eq!(p.opacity(7), OPAQUE);
        p.set(300, OPAQUE, 15).unwrap();
        p.set(40, 0, 7).unwrap();
        assert_eq!(p.emissive_range(), Some((40, 300)));
        assert_eq!((p.opacity(300), p.emission(300)), (OPAQUE, 15));
        p.set(300, OPAQUE, 0).unwrap();
        p.set(40, 0, 0).unwrap();
        assert!(!p.has_emitters());
    }
}
