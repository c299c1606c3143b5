//! The world generator: a pure function from (preset, world position) to block ids.
//!
//! [`Generator::generate_region`] fills any box of voxels. Every stage reads only the preset and
//! world coordinates (never neighbouring chunks' state or the order of calls), so a chunk made
//! alone equals the same box cut from a larger region (law 2: seamless), on any thread (law 1).
//!
//! Stages, in order: column pass (surface height and biome per (x, z)), fill (layers, water),
//! then the 3D stages that refine it.

use crate::base::block::{self, AIR, BlockId};
use crate::base::chunk::VoxelBuffer;
use crate::base::coords::{CHUNK_SIZE, ChunkCoord, IVec3};
use crate::preset::model::{Biome, WorldPreset};
use crate::gen3d::caves::TunnelNoise;
use crate::noise::heightmap::HeightmapError;
use crate::gen3d::terrain::{Terrain, TerrainSample};
use crate::gen3d::water::RingSurfaces;
use std::path::Path;
use std::sync::Arc;
use thiserror::Error;

/// Why a generator could not be built from a preset.
#[derive(Debug, Error)]
pub enum GeneratorError {
    #[error("invalid preset: {0}")]
    Preset(#[from] crate::preset::model::FieldError),
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
#[derive(Clone, Debug, Default)]
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

    /// Whether world column (x, z) lies inside the grid.
    #[inline]
    pub fn contains(&self, x: i32, z: i32) -> bool {
        x >= self.min_x && x < self.min_x + self.size_x && z >= self.min_z && z < self.min_z + self.size_z
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
    tunnel_noise: TunnelNoise,
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
        Ok(Self::from_parts(preset, terrain))
    }

    /// A generator whose height field uses lattice step `step` instead of the preset's (step 1
    /// is the field before the lattice, at column centres). For benchmarks and comparisons only:
    /// its world is not the preset's.
    #[doc(hidden)]
    pub fn with_lattice_step(preset: &WorldPreset, step: i32) -> Result<Self, GeneratorError> {
        preset.validate()?;
        let terrain = Terrain::new(preset, None)?.with_lattice_step(step);
        Ok(Self::from_parts(preset, terrain))
    }

    fn from_parts(preset: &WorldPreset, terrain: Terrain) -> Self {
        Self { preset: Arc::new(preset.clone()), terrain, tunnel_noise: TunnelNoise::new(preset.seed) }
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

    /// The noise fields of cave tunnels, built once for the preset's seed.
    pub fn tunnel_noise(&self) -> &TunnelNoise {
        &self.tunnel_noise
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
        self.columns_with(min_x, min_z, size_x, size_z, false, out);
    }

    /// [`Generator::columns_into`] over the exact height field ([`Terrain::sample_grid_exact`]):
    /// the column pass as it was before the lattice, kept as the benchmark baseline.
    #[doc(hidden)]
    pub fn columns_into_exact(&self, min_x: i32, min_z: i32, size_x: usize, size_z: usize, out: &mut Vec<Column>) {
        self.columns_with(min_x, min_z, size_x, size_z, true, out);
    }

    fn columns_with(&self, min_x: i32, min_z: i32, size_x: usize, size_z: usize, exact: bool, out: &mut Vec<Column>) {
        if size_x == 0 || size_z == 0 {
            return;
        }
        let mut samples = Vec::new();
        self.column_samples(min_x, min_z, size_x, size_z, exact, &mut samples);
        self.columns_from_samples(&samples, size_x, size_z, out);
    }

    /// Heights and biomes of the columns of a rectangle and a one-column ring around it (for
    /// the slope), row-major with x fastest.
    fn column_samples(&self, min_x: i32, min_z: i32, size_x: usize, size_z: usize, exact: bool, samples: &mut Vec<TerrainSample>) {
        let (gx, gz) = (size_x + 2, size_z + 2);
        let (x0, z0) = (min_x as f64 - 0.5, min_z as f64 - 0.5);
        if exact {
            self.terrain.sample_grid_exact(x0, z0, 1.0, gx, gz, samples);
        } else {
            self.terrain.sample_grid(x0, z0, 1.0, gx, gz, samples);
        }
    }

    /// The columns of a rectangle from [`Generator::column_samples`].
    fn columns_from_samples(&self, samples: &[TerrainSample], size_x: usize, size_z: usize, out: &mut Vec<Column>) {
        #[cfg(target_arch = "x86_64")]
        if crate::base::simd::avx2() {
            // SAFETY: the CPU has AVX2.
            return unsafe { self.columns_from_samples_avx2(samples, size_x, size_z, out) };
        }
        self.columns_from_samples_body(samples, size_x, size_z, out)
    }

    /// [`Generator::columns_from_samples`] built for AVX2 (the same code, so the same columns;
    /// the floors are single instructions there).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn columns_from_samples_avx2(&self, samples: &[TerrainSample], size_x: usize, size_z: usize, out: &mut Vec<Column>) {
        self.columns_from_samples_body(samples, size_x, size_z, out)
    }

    #[inline(always)]
    fn columns_from_samples_body(&self, samples: &[TerrainSample], size_x: usize, size_z: usize, out: &mut Vec<Column>) {
        let gx = size_x + 2;
        out.reserve(size_x * size_z);
        for k in 1..=size_z {
            let (above, row, below) = (&samples[(k - 1) * gx..k * gx], &samples[k * gx..(k + 1) * gx], &samples[(k + 1) * gx..(k + 2) * gx]);
            for i in 1..=size_x {
                let sample = row[i];
                let surface = floor_to_i32(sample.height);
                let slope = ((row[i + 1].height - row[i - 1].height).abs()).max((below[i].height - above[i].height).abs()) * 0.5;
                let (surface_block, subsurface_block) = self.column_blocks(sample.biome, surface, slope);
                out.push(Column { surface, surface_block, subsurface_block, biome: sample.biome });
            }
        }
    }

    /// Surface and subsurface blocks of a column of biome `biome` whose top face is at `surface`
    /// and whose slope (largest central difference of heights per voxel) is `slope`: stone on
    /// slopes steeper than `rock_slope`, sand on shores (at most one above sea level), else the
    /// biome's. Shared by the column pass and the far view's columns.
    #[inline]
    pub(crate) fn column_blocks(&self, biome: u8, surface: i32, slope: f64) -> (BlockId, BlockId) {
        let water = &self.preset.water;
        if slope > self.preset.biomes.rock_slope as f64 {
            (block::STONE, block::STONE)
        } else if water.enabled && surface <= water.sea_level + 1 {
            (block::SAND, block::SAND)
        } else {
            let params = self.terrain.biomes().params(biome);
            (params.surface_block, params.subsurface_block)
        }
    }

    /// World y of the top face of the ground at (x, z).
    pub fn surface_height(&self, x: i32, z: i32) -> i32 {
        self.terrain.sample(x as f64 + 0.5, z as f64 + 0.5).height.floor() as i32
    }

    /// Fills `out` (its own box) with the world's voxels: the stages in order.
    pub fn generate_region(&self, out: &mut VoxelBuffer) {
        let (min, size) = (out.min(), out.size());
        let (nx, nz) = (size.x.max(0) as usize, size.z.max(0) as usize);
        let mut columns = ColumnGrid { min_x: min.x, min_z: min.z, size_x: size.x, size_z: size.z, columns: Vec::with_capacity(nx * nz) };
        let mut samples = Vec::new();
        let mut ring = RingSurfaces::default();
        if nx > 0 && nz > 0 {
            self.column_samples(min.x, min.z, nx, nz, false, &mut samples);
            self.columns_from_samples(&samples, nx, nz, &mut columns.columns);
            ring_from_samples(&samples, min.x, min.z, nx, nz, &mut ring);
        }
        self.generate_from_columns(&columns, &ring, out);
    }

    /// The stages after the column pass; `columns` covers `out`'s (x, z) rectangle exactly, and
    /// `ring` holds the surfaces of the columns around it. Every voxel of `out` is written, so
    /// what it held before does not matter.
    fn generate_from_columns(&self, columns: &ColumnGrid, ring: &RingSurfaces, out: &mut VoxelBuffer) {
        self.fill_layers(columns, out);
        crate::gen3d::caves::carve_layers(self, columns, out);
        crate::gen3d::ores::place(self, columns, out);
        crate::gen3d::water::settle_with_ring(self, columns, Some(ring), out);
    }

    /// Stage 1: ground layers from the columns, water up to sea level. Writes every voxel of
    /// `out`, one horizontal layer at a time (the buffer's order): layers wholly below the
    /// lowest stone or above the highest surface and the sea are filled at once.
    fn fill_layers(&self, columns: &ColumnGrid, out: &mut VoxelBuffer) {
        #[cfg(target_arch = "x86_64")]
        if crate::base::simd::avx2() {
            // SAFETY: the CPU has AVX2.
            return unsafe { self.fill_layers_avx2(columns, out) };
        }
        self.fill_layers_body(columns, out)
    }

    /// [`Generator::fill_layers`] built for AVX2 (the same code, so the same voxels; a mixed
    /// layer's loop goes through twice as many voxels at once).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn fill_layers_avx2(&self, columns: &ColumnGrid, out: &mut VoxelBuffer) {
        self.fill_layers_body(columns, out)
    }

    #[inline(always)]
    fn fill_layers_body(&self, columns: &ColumnGrid, out: &mut VoxelBuffer) {
        let (min, size) = (out.min(), out.size());
        debug_assert!(columns.min_x == min.x && columns.min_z == min.z && columns.size_x == size.x && columns.size_z == size.z);
        let sea = self.preset.water.sea_level;
        let water = self.preset.water.enabled;
        let cols = &columns.columns;
        let (lo, hi) = cols.iter().fold((i32::MAX, i32::MIN), |(lo, hi), c| (lo.min(c.surface), hi.max(c.surface)));
        let top = if water { hi.max(sea) } else { hi };
        let plane = (size.x * size.z) as usize;
        if plane == 0 {
            return;
        }
        // The columns as separate arrays, so a mixed layer is one branch-free loop; with 16-bit
        // surfaces (when every height of the box fits, which makes no comparison differ) twice
        // as many voxels go through a vector register at once.
        let surface_blocks: Vec<BlockId> = cols.iter().map(|c| c.surface_block).collect();
        let subsurface_blocks: Vec<BlockId> = cols.iter().map(|c| c.subsurface_block).collect();
        let short = lo.saturating_sub(4) >= i16::MIN as i32 && hi <= i16::MAX as i32 && min.y >= i16::MIN as i32 && min.y + size.y <= i16::MAX as i32;
        let surfaces: Vec<i32> = if short { Vec::new() } else { cols.iter().map(|c| c.surface).collect() };
        let short_surfaces: Vec<i16> = if short { cols.iter().map(|c| c.surface as i16).collect() } else { Vec::new() };
        for (ly, layer) in out.data_mut().chunks_exact_mut(plane).enumerate() {
            let y = min.y + ly as i32;
            if y < lo.saturating_sub(4) {
                layer.fill(block::STONE);
            } else if y >= top {
                layer.fill(AIR);
            } else {
                let above = if water && y < sea { block::WATER } else { AIR };
                let (surface_blocks, subsurface_blocks) = (&surface_blocks[..plane], &subsurface_blocks[..plane]);
                if short {
                    let (surfaces, y) = (&short_surfaces[..plane], y as i16);
                    for (i, v) in layer.iter_mut().enumerate() {
                        *v = layer_block_of(surfaces[i], surface_blocks[i], subsurface_blocks[i], y, above);
                    }
                } else {
                    let surfaces = &surfaces[..plane];
                    for (i, v) in layer.iter_mut().enumerate() {
                        *v = layer_block_of(surfaces[i], surface_blocks[i], subsurface_blocks[i], y, above);
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

    /// [`Generator::generate_padded_chunk`] that stops after the column pass's heights when the
    /// chunk is sky ([`Generator::chunk_is_sky`], from the same heights): then it returns `true`
    /// and `out` is the padded box all air, which is exactly what generating it would give. A sky
    /// chunk so costs one height pass and nothing else, and a chunk that is not sky costs no
    /// extra pass for the test. `columns` receives the padded chunk's columns (34 × 34 from
    /// `min_voxel − 1`) when it is not sky, for later stages that need them (scatter), and keeps
    /// its allocation across calls.
    pub fn generate_padded_chunk_unless_sky(&self, c: ChunkCoord, out: &mut VoxelBuffer, columns: &mut ColumnGrid) -> bool {
        let (min, n) = (c.min_voxel() - IVec3::ONE, CHUNK_SIZE + 2);
        let (nu, gx) = (n as usize, n as usize + 2);
        let mut samples = Vec::with_capacity(gx * gx);
        self.column_samples(min.x, min.z, nu, nu, false, &mut samples);
        // The highest surface, from the highest height: flooring is monotonic, so only a NaN
        // height (surface 0) is not covered by the maximum (which skips it).
        let (highest, nan) = (1..=nu).flat_map(|k| &samples[k * gx + 1..k * gx + 1 + nu]).fold((f64::NEG_INFINITY, false), |(m, nan), s| (m.max(s.height), nan | s.height.is_nan()));
        let hi = if nu == 0 { i32::MIN } else { floor_to_i32(highest).max(if nan { 0 } else { i32::MIN }) };
        columns.columns.clear();
        (columns.min_x, columns.min_z, columns.size_x, columns.size_z) = (min.x, min.z, n, n);
        if self.sky_above(c, hi) {
            out.reset(min, IVec3::splat(n));
            return true;
        }
        self.columns_from_samples(&samples, nu, nu, &mut columns.columns);
        let mut ring = RingSurfaces::default();
        ring_from_samples(&samples, min.x, min.z, nu, nu, &mut ring);
        // The fill stage writes every voxel, so the buffer is not cleared first.
        out.reshape_for_overwrite(min, IVec3::splat(n));
        self.generate_from_columns(columns, &ring, out);
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

    /// Whether the padded chunk `c` lies above ground whose highest surface is `hi`, and above
    /// the sea.
    fn sky_above(&self, c: ChunkCoord, hi: i32) -> bool {
        let bottom = c.min_voxel().y - 1;
        let water_top = if self.preset.water.enabled { self.preset.water.sea_level } else { i32::MIN };
        bottom >= hi && bottom >= water_top
    }
}

/// The surfaces of the slope ring of [`Generator::column_samples`] (the columns just outside the
/// rectangle `[min_x, min_x + size_x) × [min_z, min_z + size_z)`), for the water stage: the same
/// samples, so the same surfaces, as the columns there computed on their own.
fn ring_from_samples(samples: &[TerrainSample], min_x: i32, min_z: i32, size_x: usize, size_z: usize, ring: &mut RingSurfaces) {
    let gx = size_x + 2;
    let surface = |i: usize, k: usize| floor_to_i32(samples[k * gx + i].height);
    (ring.min_x, ring.min_z, ring.size_x, ring.size_z) = (min_x, min_z, size_x as i32, size_z as i32);
    let [west, east, north, south] = &mut ring.sides;
    west.clear();
    west.extend((1..=size_z).map(|k| surface(0, k)));
    east.clear();
    east.extend((1..=size_z).map(|k| surface(size_x + 1, k)));
    north.clear();
    north.extend((1..=size_x).map(|i| surface(i, 0)));
    south.clear();
    south.extend((1..=size_x).map(|i| surface(i, size_z + 1)));
}

/// `h.floor() as i32` (saturating, NaN to 0) without the library call that `floor` is on
/// x86-64 without SSE4.1: truncation, one less for negative non-integers.
#[inline]
fn floor_to_i32(h: f64) -> i32 {
    if h.abs() < 2_147_483_648.0 {
        let t = h as i32;
        t - ((t as f64) > h) as i32
    } else {
        h.floor() as i32
    }
}

/// Block at height `y` in a column with surface `s`, from the layers alone; `above` is what
/// lies above the ground at that height (water below sea level, else air).
///
/// Written as masks rather than branches so that a layer's loop is vectorised:
/// `if y < s − 4 { stone } else if y < s − 1 { subsurface } else if y < s { surface } else { above }`.
#[inline(always)]
fn layer_block_of<T: Copy + PartialOrd + std::ops::Sub<Output = T> + From<i8>>(s: T, surface_block: BlockId, subsurface_block: BlockId, y: T, above: BlockId) -> BlockId {
    let all_if = |c: bool| (c as BlockId).wrapping_neg();
    let (stone, subsurface, surface) = (all_if(y < s - T::from(4)), all_if(y < s - T::from(1)), all_if(y < s));
    let upper = (surface_block & surface) | (above & !surface);
    let middle = (subsurface_block & subsurface) | (upper & !subsurface);
    (block::STONE & stone) | (middle & !stone)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sky_shortcut_gives_the_padded_chunk_and_the_sky_test() {
        let g = Generator::new(&WorldPreset::default()).unwrap();
        let (mut a, mut b, mut columns) = (VoxelBuffer::new(IVec3::ZERO, IVec3::ONE), VoxelBuffer::new(IVec3::ZERO, IVec3::ONE), ColumnGrid::default());
        let mut skies = 0;
        for (cx, cz) in [(0, 0), (3, -2), (-7, 5), (40, 41)] {
            for cy in -3..5 {
                let c = ChunkCoord::new(cx, cy, cz);
                let sky = g.generate_padded_chunk_unless_sky(c, &mut a, &mut columns);
                g.generate_padded_chunk(c, &mut b);
                assert_eq!(sky, g.chunk_is_sky(c), "{c:?}");
                assert_eq!(a, b, "{c:?}");
                if sky {
                    skies += 1;
                    assert!(columns.columns.is_empty());
                } else {
                    let m = c.min_voxel() - IVec3::ONE;
                    assert_eq!(columns.columns, ColumnGrid::new(&g, m.x, m.z, CHUNK_SIZE + 2, CHUNK_SIZE + 2).columns);
                }
            }
        }
        assert!(skies > 4 && skies < 28, "{skies}");
    }

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

    #[test]
    fn water_seals_alike_with_and_without_the_ring() {
        let mut preset = WorldPreset::default();
        preset.water.sea_level = 12;
        preset.caves.fill_probability = 0.5;
        preset.caves.min_depth = 1;
        (preset.caves.allow_surface_breach, preset.caves.tunnel_strength, preset.caves.tunnel_width) = (true, 1.0, 0.2);
        let g = Generator::new(&preset).unwrap();
        let mut sealed = 0;
        for (min, size) in [(IVec3::new(-64, -20, -64), IVec3::new(128, 34, 128)), (IVec3::new(61, -30, 95), IVec3::new(40, 45, 23)), (IVec3::new(-300, 0, 7), IVec3::new(1, 13, 5))] {
            let (nx, nz) = (size.x as usize, size.z as usize);
            let mut samples = Vec::new();
            g.column_samples(min.x, min.z, nx, nz, false, &mut samples);
            let mut columns = ColumnGrid { min_x: min.x, min_z: min.z, size_x: size.x, size_z: size.z, columns: Vec::new() };
            g.columns_from_samples(&samples, nx, nz, &mut columns.columns);
            let mut ring = RingSurfaces::default();
            ring_from_samples(&samples, min.x, min.z, nx, nz, &mut ring);
            let mut before = VoxelBuffer::new(min, size);
            g.fill_layers(&columns, &mut before);
            crate::gen3d::caves::carve(&g, &columns, &mut before);
            let (mut with_ring, mut without) = (before.clone(), before.clone());
            crate::gen3d::water::settle_with_ring(&g, &columns, Some(&ring), &mut with_ring);
            crate::gen3d::water::settle(&g, &columns, &mut without);
            assert_eq!(with_ring, without, "{min:?}");
            sealed += with_ring.data().iter().zip(before.data()).filter(|(a, b)| a != b).count();
        }
        assert!(sealed > 0, "no water sealed in the test boxes");
    }

    #[test]
    fn fast_floor_equals_floor() {
        let edges = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1e-300, -1e-300, 2147483647.0, 2147483647.5, -2147483648.0, -2147483648.5, -2147483649.0, 2147483648.0, 1e12, -1e12, f64::MAX, f64::MIN, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 3.999999999999999, -3.000000000000001];
        let mut h = 7u64;
        let random = (0..100_000).map(|_| {
            h = crate::base::rng::mix64(h);
            (h as i64 as f64) / (1u64 << (h % 60)) as f64
        });
        for v in edges.into_iter().chain(random) {
            assert_eq!(floor_to_i32(v), v.floor() as i32, "{v}");
        }
    }

    #[test]
    fn the_slope_ring_gives_the_surfaces_of_the_columns_around() {
        let g = Generator::new(&WorldPreset::default()).unwrap();
        for (x, z, sx, sz) in [(-1, -1, 34, 34), (95, -161, 34, 34), (1000, 3, 5, 1), (-77, 40, 1, 9)] {
            let mut samples = Vec::new();
            g.column_samples(x, z, sx, sz, false, &mut samples);
            let mut ring = RingSurfaces::default();
            ring_from_samples(&samples, x, z, sx, sz, &mut ring);
            let strip = |x: i32, z: i32, nx: usize, nz: usize| {
                let mut cols = Vec::new();
                g.columns_into(x, z, nx, nz, &mut cols);
                cols.iter().map(|c| c.surface).collect::<Vec<_>>()
            };
            assert_eq!(ring.sides[0], strip(x - 1, z, 1, sz));
            assert_eq!(ring.sides[1], strip(x + sx as i32, z, 1, sz));
            assert_eq!(ring.sides[2], strip(x, z - 1, sx, 1));
            assert_eq!(ring.sides[3], strip(x, z + sz as i32, sx, 1));
        }
    }
}
