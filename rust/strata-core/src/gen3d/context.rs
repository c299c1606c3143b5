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
//! The grove noise ([`GroveNoise`]) is here too: the scatter's groves and clearings and the
//! density of block trees both follow it, so trees stand where the scatter's groves are and
//! clear into the meadows where its flowers grow.
//!
//! May use: `base`, `preset`, `gen3d::columns`, `gen3d::biomes` (the resolved biome rows).

use crate::base::rng::{hash3, salt};
use crate::gen3d::biomes::BiomeParams;
use crate::gen3d::columns::{Column, ColumnGrid, ColumnPass, RingSurfaces};
use crate::preset::model::{Biome, WorldPreset};
use noise::{NoiseFn, Perlin};

/// The grove noise `g ∈ [0, 1]`: 2D Perlin of wavelength `scatter.density_scale`, high in groves,
/// low in clearings.
#[derive(Clone, Debug)]
pub struct GroveNoise {
    perlin: Perlin,
    frequency: f64,
}

impl GroveNoise {
    pub fn new(preset: &WorldPreset) -> Self {
        Self {
            perlin: Perlin::new((hash3(preset.seed, salt::SCATTER, 0, 0, 0) >> 32) as u32),
            frequency: 1.0 / preset.scatter.density_scale.max(1.0) as f64,
        }
    }

    /// `g` at world (x, z).
    pub fn at(&self, x: f64, z: f64) -> f32 {
        (0.5 + 0.8 * self.perlin.get([x * self.frequency, z * self.frequency]) as f32).clamp(0.0, 1.0)
    }
}

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
