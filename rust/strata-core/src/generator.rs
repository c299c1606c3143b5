//! The world generator: a pure function from (preset, world position) to block ids.
//!
//! [`Generator::generate_region`] fills any box of voxels. Every stage reads only the preset and
//! world coordinates (never neighbouring chunks' state or the order of calls), so a chunk made
//! alone equals the same box cut from a larger region (law 2: seamless), on any thread (law 1).
//!
//! Stages, in order: column pass (surface height and biome per (x, z)), fill (layers, water),
//! then the 3D stages that refine it.

use crate::block::{self, AIR, BlockId};
use crate::chunk::VoxelBuffer;
use crate::coords::{CHUNK_SIZE, ChunkCoord, IVec3};
use crate::preset::{Biome, WorldPreset};
use crate::worldgen::heightmap::HeightmapError;
use crate::worldgen::terrain::{Terrain, TerrainSample};
use std::path::Path;
use std::sync::Arc;
use thiserror::Error;

/// Why a generator could not be built from a preset.
#[derive(Debug, Error)]
pub enum GeneratorError {
    #[error("invalid preset: {0}")]
    Preset(#[from] crate::preset::FieldError),
    #[error("{0}")]
    Heightmap(#[from] HeightmapError),
}

/// What the column pass knows about one (x, z) column.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Column {
    /// World y of the top face of the ground: voxels with `y < surface` are ground.
    pub surface: i32,
    pub surface_block: BlockId,
    pub subsurface_block: BlockId,
    /// Index into the generator's biome table ([`Generator::biomes`]: the preset's table, or one
    /// plains biome when biomes are disabled).
    pub biome: u8,
}

/// Columns over a rectangle of (x, z), computed once per region and shared by all stages.
#[derive(Clone, Debug)]
pub struct ColumnGrid {
    pub min_x: i32,
    pub min_z: i32,
    pub size_x: i32,
    pub size_z: i32,
    pub columns: Vec<Column>,
}

impl ColumnGrid {
    pub fn new(generator: &Generator, min_x: i32, min_z: i32, size_x: i32, size_z: i32) -> Self {
        let mut columns = Vec::with_capacity((size_x.max(0) * size_z.max(0)) as usize);
        generator.columns_into(min_x, min_z, size_x.max(0) as usize, size_z.max(0) as usize, &mut columns);
        Self { min_x, min_z, size_x, size_z, columns }
    }

    /// The column at world (x, z), which must lie inside the grid.
    #[inline]
    pub fn get(&self, x: i32, z: i32) -> &Column {
        &self.columns[((z - self.min_z) * self.size_x + (x - self.min_x)) as usize]
    }
}

/// A generator built once per preset and shared by all workers (`Send + Sync`).
pub struct Generator {
    preset: Arc<WorldPreset>,
    terrain: Terrain,
}

impl std::fmt::Debug for Generator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Generator").field("seed", &self.preset.seed).finish()
    }
}

impl Generator {
    /// Builds a generator; the preset is validated first. A relative heightmap path is resolved
    /// against the working directory (see [`Generator::with_base_dir`]).
    pub fn new(preset: &WorldPreset) -> Result<Self, GeneratorError> {
        Self::with_base_dir(preset, None)
    }

    /// Builds a generator, resolving a relative heightmap path against `base_dir` (the folder
    /// of the preset file) when given.
    pub fn with_base_dir(preset: &WorldPreset, base_dir: Option<&Path>) -> Result<Self, GeneratorError> {
        preset.validate()?;
        let terrain = Terrain::new(preset, base_dir)?;
        Ok(Self { preset: Arc::new(preset.clone()), terrain })
    }

    pub fn preset(&self) -> &WorldPreset {
        &self.preset
    }

    pub fn seed(&self) -> u64 {
        self.preset.seed
    }

    /// The height field (sources, biomes, ravines).
    pub fn terrain(&self) -> &Terrain {
        &self.terrain
    }

    /// The biome table columns index into.
    pub fn biomes(&self) -> &[Biome] {
        self.terrain.biomes().table()
    }

    /// Continuous terrain height at world (x, z), before rounding to voxels.
    pub fn height_f(&self, x: f64, z: f64) -> f64 {
        self.terrain.sample(x, z).height
    }

    /// Index into [`Generator::biomes`] of the biome of column (x, z).
    pub fn biome_index_at(&self, x: i32, z: i32) -> u8 {
        self.terrain.biomes().biome_index_at(x as f64 + 0.5, z as f64 + 0.5)
    }

    /// The biome of column (x, z).
    pub fn biome_at(&self, x: i32, z: i32) -> &Biome {
        &self.biomes()[self.biome_index_at(x, z) as usize]
    }

    /// The column at integer world (x, z).
    pub fn column(&self, x: i32, z: i32) -> Column {
        let mut out = Vec::with_capacity(1);
        self.columns_into(x, z, 1, 1, &mut out);
        out[0]
    }

    /// The column pass: columns of `[min_x, min_x + size_x) × [min_z, min_z + size_z)` appended to
    /// `out` (x fastest). Heights are sampled at column centres once per (x, z), on a grid one
    /// column wider on each side for the slope. A column's surface is the floor of its height;
    /// its blocks come from its biome, except that slopes steeper than `rock_slope` (largest
    /// central difference of neighbouring heights) show stone, and shores (surface at most one
    /// above sea level) show sand.
    pub fn columns_into(&self, min_x: i32, min_z: i32, size_x: usize, size_z: usize, out: &mut Vec<Column>) {
        if size_x == 0 || size_z == 0 {
            return;
        }
        let (gx, gz) = (size_x + 2, size_z + 2);
        let mut samples: Vec<TerrainSample> = Vec::with_capacity(gx * gz);
        self.terrain.sample_grid(min_x as f64 - 0.5, min_z as f64 - 0.5, 1.0, gx, gz, &mut samples);
        let sea = self.preset.water.sea_level;
        let water = self.preset.water.enabled;
        let rock_slope = self.preset.biomes.rock_slope as f64;
        let h = |i: usize, k: usize| samples[k * gx + i].height;
        out.reserve(size_x * size_z);
        for k in 1..=size_z {
            for i in 1..=size_x {
                let sample = samples[k * gx + i];
                let surface = sample.height.floor() as i32;
                let slope = ((h(i + 1, k) - h(i - 1, k)).abs()).max((h(i, k + 1) - h(i, k - 1)).abs()) * 0.5;
                let params = self.terrain.biomes().params(sample.biome);
                let (surface_block, subsurface_block) = if slope > rock_slope {
                    (block::STONE, block::STONE)
                } else if water && surface <= sea + 1 {
                    (block::SAND, block::SAND)
                } else {
                    (params.surface_block, params.subsurface_block)
                };
                out.push(Column { surface, surface_block, subsurface_block, biome: sample.biome });
            }
        }
    }

    /// World y of the top face of the ground at (x, z).
    pub fn surface_height(&self, x: i32, z: i32) -> i32 {
        self.terrain.sample(x as f64 + 0.5, z as f64 + 0.5).height.floor() as i32
    }

    /// Fills `out` (its own box) with the world's voxels: the stages in order.
    pub fn generate_region(&self, out: &mut VoxelBuffer) {
        let (min, size) = (out.min(), out.size());
        let columns = ColumnGrid::new(self, min.x, min.z, size.x, size.z);
        self.generate_from_columns(&columns, out);
    }

    /// The stages after the column pass; `columns` covers `out`'s (x, z) rectangle exactly.
    fn generate_from_columns(&self, columns: &ColumnGrid, out: &mut VoxelBuffer) {
        self.fill_layers(columns, out);
        crate::worldgen::caves::carve(self, columns, out);
        crate::worldgen::ores::place(self, columns, out);
        crate::worldgen::water::settle(self, columns, out);
    }

    /// Stage 1: ground layers from the columns, water up to sea level.
    fn fill_layers(&self, columns: &ColumnGrid, out: &mut VoxelBuffer) {
        let (min, size) = (out.min(), out.size());
        let sea = self.preset.water.sea_level;
        let water = self.preset.water.enabled;
        for lz in 0..size.z {
            for lx in 0..size.x {
                let col = columns.get(min.x + lx, min.z + lz);
                for ly in 0..size.y {
                    let id = layer_block(col, min.y + ly, sea, water);
                    if id != AIR {
                        out.set_local(IVec3::new(lx, ly, lz), id);
                    }
                }
            }
        }
    }

    /// Generates a new buffer covering `[min, min + size)`.
    pub fn generate_box(&self, min: IVec3, size: IVec3) -> VoxelBuffer {
        let mut b = VoxelBuffer::new(min, size);
        self.generate_region(&mut b);
        b
    }

    /// Generates exactly chunk `c`.
    pub fn generate_chunk(&self, c: ChunkCoord) -> VoxelBuffer {
        self.generate_box(c.min_voxel(), IVec3::splat(CHUNK_SIZE))
    }

    /// Generates chunk `c` with a one-voxel halo on every side (what the mesher needs).
    pub fn generate_padded_chunk(&self, c: ChunkCoord, out: &mut VoxelBuffer) {
        out.reset(c.min_voxel() - IVec3::ONE, IVec3::splat(CHUNK_SIZE + 2));
        self.generate_region(out);
    }

    /// [`Generator::generate_padded_chunk`] that stops after the column pass when the chunk is
    /// sky ([`Generator::chunk_is_sky`], from the same columns): then it returns `true` and
    /// `out` is the padded box all air, which is exactly what generating it would give. A sky
    /// chunk so costs one column pass and nothing else, and a chunk that is not sky costs no
    /// extra column pass for the test.
    pub fn generate_padded_chunk_unless_sky(&self, c: ChunkCoord, out: &mut VoxelBuffer) -> bool {
        let (min, n) = (c.min_voxel() - IVec3::ONE, CHUNK_SIZE + 2);
        out.reset(min, IVec3::splat(n));
        let columns = ColumnGrid::new(self, min.x, min.z, n, n);
        if self.is_sky(c, &columns) {
            return true;
        }
        self.generate_from_columns(&columns, out);
        false
    }

    /// The block at one world position (generates a 1×1×1 box).
    pub fn voxel_at(&self, p: IVec3) -> BlockId {
        self.generate_box(p, IVec3::ONE).data()[0]
    }

    /// Lowest and highest surface over the columns of chunk `c` (plus a one-voxel halo), so the
    /// streamer can skip chunks that are all air without generating them.
    pub fn surface_range(&self, c: ChunkCoord) -> (i32, i32) {
        let m = c.min_voxel();
        let n = (CHUNK_SIZE + 2) as usize;
        let mut samples = Vec::with_capacity(n * n);
        self.terrain.sample_grid(m.x as f64 - 0.5, m.z as f64 - 0.5, 1.0, n, n, &mut samples);
        samples.iter().fold((i32::MAX, i32::MIN), |(lo, hi), s| {
            let y = s.height.floor() as i32;
            (lo.min(y), hi.max(y))
        })
    }

    /// True when chunk `c` (with its halo) is certainly all air, so it needs no mesh. When the
    /// chunk is generated anyway unless sky, [`Generator::generate_padded_chunk_unless_sky`]
    /// shares the column pass.
    pub fn chunk_is_sky(&self, c: ChunkCoord) -> bool {
        let (_, hi) = self.surface_range(c);
        self.sky_above(c, hi)
    }

    /// [`Generator::chunk_is_sky`] from the padded chunk's columns.
    fn is_sky(&self, c: ChunkCoord, columns: &ColumnGrid) -> bool {
        let hi = columns.columns.iter().fold(i32::MIN, |hi, col| hi.max(col.surface));
        self.sky_above(c, hi)
    }

    /// Whether the padded chunk `c` lies above ground whose highest surface is `hi`, and above
    /// the sea.
    fn sky_above(&self, c: ChunkCoord, hi: i32) -> bool {
        let bottom = c.min_voxel().y - 1;
        let water_top = if self.preset.water.enabled { self.preset.water.sea_level } else { i32::MIN };
        bottom >= hi && bottom >= water_top
    }
}

/// Block at height `y` in a column, from the layers alone.
fn layer_block(col: &Column, y: i32, sea: i32, water: bool) -> BlockId {
    let s = col.surface;
    if y < s - 4 {
        block::STONE
    } else if y < s - 1 {
        col.subsurface_block
    } else if y < s {
        col.surface_block
    } else if water && y < sea {
        block::WATER
    } else {
        AIR
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ground_below_surface_air_above() {
        let g = Generator::new(&WorldPreset::default()).unwrap();
        for (x, z) in [(0, 0), (100, -37), (-5000, 12345)] {
            let s = g.surface_height(x, z);
            assert!(block::is_solid(g.voxel_at(IVec3::new(x, s - 1, z))));
            let above = g.voxel_at(IVec3::new(x, s, z));
            assert!(above == AIR || above == block::WATER);
        }
    }
}
