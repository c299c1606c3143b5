//! What the pipeline hands every generation stage: [`StageContext`], the world's settings and
//! the columns of the region being generated.
//!
//! A stage reads what it needs from the context (seed, preset, biome table, the region's
//! columns, the surfaces around them) and writes only its output buffer; it never calls back
//! into the pipeline and never imports a sibling stage. Columns outside the region come from the
//! column pass the context carries ([`StageContext::column`]), so they are the same columns any
//! other region computes. Each stage's reusable buffers are not in the context: the pipeline
//! passes a stage its own scratch beside it, so the context stays a shared, read-only value.
//!
//! May use: `base`, `preset`, `gen3d::columns`, `gen3d::biomes` (the resolved biome rows).

use crate::gen3d::biomes::BiomeParams;
use crate::gen3d::columns::{Column, ColumnGrid, ColumnPass, RingSurfaces};
use crate::preset::model::{Biome, WorldPreset};

/// The read-only inputs of every stage for one region (see the module docs).
#[derive(Clone, Copy, Debug)]
pub struct StageContext<'a> {
    pub seed: u64,
    pub preset: &'a WorldPreset,
    /// The biome table that [`Column::biome`] indexes.
    pub biomes: &'a [Biome],
    /// The rows of `biomes` resolved: block ids and scatter sets, in the same order.
    pub biome_params: &'a [BiomeParams],
    /// The region's columns (for stages that fill a box: exactly the box's (x, z) rectangle).
    pub columns: &'a ColumnGrid,
    /// The surfaces of the columns just outside `columns`, when the column pass computed them.
    pub ring: Option<&'a RingSurfaces>,
    pass: ColumnPass<'a>,
}

impl<'a> StageContext<'a> {
    pub fn new(
        preset: &'a WorldPreset,
        biomes: &'a [Biome],
        biome_params: &'a [BiomeParams],
        pass: ColumnPass<'a>,
        columns: &'a ColumnGrid,
        ring: Option<&'a RingSurfaces>,
    ) -> Self {
        Self { seed: preset.seed, preset, biomes, biome_params, columns, ring, pass }
    }

    /// The column pass, for columns outside the region.
    pub fn column_pass(&self) -> ColumnPass<'a> {
        self.pass
    }

    /// The column at world (x, z): the region's where the grid holds it, else computed.
    pub fn column(&self, x: i32, z: i32) -> Column {
        let grid = self.columns;
        if grid.contains(x, z) && grid.columns.len() == (grid.size_x * grid.size_z) as usize {
            *grid.get(x, z)
        } else {
            self.pass.column(x, z)
        }
    }
}
