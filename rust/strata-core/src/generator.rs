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
use crate::preset::WorldPreset;
use crate::rng::salt;
use noise::{Fbm, MultiFractal, NoiseFn, Perlin};
use std::sync::Arc;
use thiserror::Error;

/// Why a generator could not be built from a preset.
#[derive(Debug, Error)]
pub enum GeneratorError {
    #[error("invalid preset: {0}")]
    Preset(#[from] crate::preset::FieldError),
}

/// What the column pass knows about one (x, z) column.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Column {
    /// World y of the top face of the ground: voxels with `y < surface` are ground.
    pub surface: i32,
    pub surface_block: BlockId,
    pub subsurface_block: BlockId,
    /// Index into the preset's biome table.
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
        let mut columns = Vec::with_capacity((size_x * size_z) as usize);
        for z in 0..size_z {
            for x in 0..size_x {
                columns.push(generator.column(min_x + x, min_z + z));
            }
        }
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
    fbm: Fbm<Perlin>,
}

impl std::fmt::Debug for Generator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Generator").field("seed", &self.preset.seed).finish()
    }
}

/// Noise seeds are `u32` in the `noise` crate; fold the 64-bit seed with a salt.
fn noise_seed(seed: u64, salt: u64) -> u32 {
    (crate::rng::mix64(seed ^ salt.wrapping_mul(0x9e37_79b9_7f4a_7c15)) >> 32) as u32
}

impl Generator {
    /// Builds a generator; the preset is validated first.
    pub fn new(preset: &WorldPreset) -> Result<Self, GeneratorError> {
        preset.validate()?;
        let h = &preset.height;
        let fbm = Fbm::<Perlin>::new(noise_seed(preset.seed, salt::HEIGHT))
            .set_octaves(h.octaves as usize)
            .set_frequency(1.0 / h.scale as f64)
            .set_persistence(h.persistence as f64)
            .set_lacunarity(h.lacunarity as f64);
        Ok(Self { preset: Arc::new(preset.clone()), fbm })
    }

    pub fn preset(&self) -> &WorldPreset {
        &self.preset
    }

    pub fn seed(&self) -> u64 {
        self.preset.seed
    }

    /// Continuous terrain height at world (x, z), before rounding to voxels.
    pub fn height_f(&self, x: f64, z: f64) -> f64 {
        let h = &self.preset.height;
        h.base_height as f64 + h.amplitude as f64 * self.fbm.get([x, z])
    }

    /// The column at integer world (x, z).
    pub fn column(&self, x: i32, z: i32) -> Column {
        let surface = self.height_f(x as f64 + 0.5, z as f64 + 0.5).floor() as i32;
        let sea = self.preset.water.sea_level;
        let (surface_block, subsurface_block) = if self.preset.water.enabled && surface <= sea + 1 {
            (block::SAND, block::SAND)
        } else {
            (block::GRASS, block::DIRT)
        };
        Column { surface, surface_block, subsurface_block, biome: 0 }
    }

    /// World y of the top face of the ground at (x, z).
    pub fn surface_height(&self, x: i32, z: i32) -> i32 {
        self.column(x, z).surface
    }

    /// Fills `out` (its own box) with the world's voxels: the stages in order.
    pub fn generate_region(&self, out: &mut VoxelBuffer) {
        let (min, size) = (out.min(), out.size());
        let columns = ColumnGrid::new(self, min.x, min.z, size.x, size.z);
        self.fill_layers(&columns, out);
        crate::worldgen::caves::carve(self, &columns, out);
        crate::worldgen::ores::place(self, &columns, out);
        crate::worldgen::water::settle(self, &columns, out);
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

    /// The block at one world position (generates a 1×1×1 box).
    pub fn voxel_at(&self, p: IVec3) -> BlockId {
        self.generate_box(p, IVec3::ONE).data()[0]
    }

    /// Lowest and highest surface over the columns of chunk `c` (plus a one-voxel halo), so the
    /// streamer can skip chunks that are all air without generating them.
    pub fn surface_range(&self, c: ChunkCoord) -> (i32, i32) {
        let m = c.min_voxel();
        let (mut lo, mut hi) = (i32::MAX, i32::MIN);
        for z in -1..=CHUNK_SIZE {
            for x in -1..=CHUNK_SIZE {
                let s = self.surface_height(m.x + x, m.z + z);
                lo = lo.min(s);
                hi = hi.max(s);
            }
        }
        (lo, hi)
    }

    /// True when chunk `c` (with its halo) is certainly all air, so it needs no mesh.
    pub fn chunk_is_sky(&self, c: ChunkCoord) -> bool {
        let bottom = c.min_voxel().y - 1;
        let (_, hi) = self.surface_range(c);
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
