//! [`GenScratch`]: the buffers a generating thread reuses from chunk to chunk, so that a chunk
//! allocates almost nothing.
//!
//! The caller owns it (a stream worker keeps one per thread) and lends it to the generator's
//! chunk functions; they leave in it nothing that a later call reads as input, so any scratch,
//! fresh or used, gives the same world.
//!
//! May use: `gen3d::columns`, `gen3d::terrain`, and the stages whose buffers it holds
//! (`gen3d::caves`).

use crate::gen3d::caves::CaveScratch;
use crate::gen3d::columns::RingSurfaces;
use crate::gen3d::terrain::TerrainSample;

/// Reusable buffers of [`Generator`](crate::gen3d::pipeline::Generator)'s chunk functions.
#[derive(Debug, Default)]
pub struct GenScratch {
    /// The column pass's height samples.
    pub(crate) samples: Vec<TerrainSample>,
    /// The surfaces around the region, for the water stage.
    pub(crate) ring: RingSurfaces,
    /// The cave stage's fields and masks.
    pub(crate) caves: CaveScratch,
}

impl GenScratch {
    pub fn new() -> Self {
        Self::default()
    }
}
