//! The column pass: what every stage knows about an (x, z) column ([`Column`]: surface height,
//! surface blocks, biome), computed from the height field ([`ColumnPass`]), and the shapes that
//! carry columns between stages ([`ColumnGrid`], [`RingSurfaces`]).
//!
//! A column's surface is the floor of the terrain height at the column's centre; its blocks
//! come from its biome's row: the surface and subsurface blocks, except that slopes steeper than
//! `rock_slope` (largest central difference of neighbouring heights) show the biome's cliff
//! block (stone by default), and shores (surface at most one above sea level) its shore block
//! (sand by default). Heights are sampled once per (x, z) on a grid one column wider on each side, for the
//! slope; the surfaces of that outer ring are kept for the water stage ([`RingSurfaces`]).
//!
//! May use: `base`, `preset`, `gen3d::terrain` and `gen3d::biomes` (the height field it reads).

use crate::base::block::BlockId;
use crate::gen3d::biomes::BiomeMap;
use crate::gen3d::terrain::{Terrain, TerrainSample};
use crate::preset::model::WorldPreset;

/// Depth of a column's topsoil: below its surface the ground is one voxel of surface block,
/// then subsurface block, and stone from `STONE_DEPTH` below the surface down (`y < surface −
/// STONE_DEPTH`), which is what the layer stage writes and the cave stage relies on.
pub const STONE_DEPTH: i32 = 4;

/// What the column pass knows about one (x, z) column.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Column {
    /// World y of the top face of the ground: voxels with `y < surface` are ground.
    pub surface: i32,
    pub surface_block: BlockId,
    pub subsurface_block: BlockId,
    /// Index into the biome table ([`Generator::biomes`](crate::gen3d::pipeline::Generator::biomes):
    /// the preset's table, or one plains biome when biomes are disabled).
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

/// Surfaces of the columns just outside a rectangle of columns: the -x, +x, -z and +z sides
/// (strips along z, z, x and x).
#[derive(Clone, Debug, Default)]
pub struct RingSurfaces {
    pub min_x: i32,
    pub min_z: i32,
    pub size_x: i32,
    pub size_z: i32,
    pub sides: [Vec<i32>; 4],
}

impl RingSurfaces {
    /// Whether this is the ring of the columns of the rectangle at (`min_x`, `min_z`) of
    /// `size_x × size_z` columns.
    pub fn fits(&self, min_x: i32, min_z: i32, size_x: i32, size_z: i32) -> bool {
        (self.min_x, self.min_z, self.size_x, self.size_z) == (min_x, min_z, size_x, size_z)
            && self.sides[0].len() == size_z as usize
            && self.sides[1].len() == size_z as usize
            && self.sides[2].len() == size_x as usize
            && self.sides[3].len() == size_x as usize
    }

    /// The ring of no rectangle (it fits only an empty one).
    pub fn clear(&mut self) {
        (self.min_x, self.min_z, self.size_x, self.size_z) = (0, 0, 0, 0);
        self.sides.iter_mut().for_each(Vec::clear);
    }

    /// The surfaces of the slope ring of [`ColumnPass::samples`] (the columns just outside the
    /// rectangle `[min_x, min_x + size_x) × [min_z, min_z + size_z)`): the same samples, so the
    /// same surfaces, as the columns there computed on their own.
    pub fn fill_from_samples(
        &mut self,
        samples: &[TerrainSample],
        min_x: i32,
        min_z: i32,
        size_x: usize,
        size_z: usize,
    ) {
        let gx = size_x + 2;
        let surface = |i: usize, k: usize| floor_to_i32(samples[k * gx + i].height);
        (self.min_x, self.min_z, self.size_x, self.size_z) = (min_x, min_z, size_x as i32, size_z as i32);
        let [west, east, north, south] = &mut self.sides;
        west.clear();
        west.extend((1..=size_z).map(|k| surface(0, k)));
        east.clear();
        east.extend((1..=size_z).map(|k| surface(size_x + 1, k)));
        north.clear();
        north.extend((1..=size_x).map(|i| surface(i, 0)));
        south.clear();
        south.extend((1..=size_x).map(|i| surface(i, size_z + 1)));
    }
}

/// The column pass over a preset's height field (see the module docs). Cheap to make: it
/// borrows the field and the preset.
#[derive(Clone, Copy, Debug)]
pub struct ColumnPass<'a> {
    terrain: &'a Terrain,
    preset: &'a WorldPreset,
}

impl<'a> ColumnPass<'a> {
    pub fn new(terrain: &'a Terrain, preset: &'a WorldPreset) -> Self {
        Self { terrain, preset }
    }

    /// Temperature and moisture at world (x, z), each in `[0, 1]` (the biome layer's climate).
    pub fn climate_at(&self, x: f64, z: f64) -> (f64, f64) {
        self.terrain.biomes().climate_at(x, z)
    }

    /// The column at integer world (x, z).
    pub fn column(&self, x: i32, z: i32) -> Column {
        let mut out = Vec::with_capacity(1);
        self.columns_into(x, z, 1, 1, &mut out);
        out[0]
    }

    /// The columns of `[min_x, min_x + size_x) × [min_z, min_z + size_z)` appended to `out`
    /// (x fastest).
    pub fn columns_into(&self, min_x: i32, min_z: i32, size_x: usize, size_z: usize, out: &mut Vec<Column>) {
        self.columns_with(min_x, min_z, size_x, size_z, false, out);
    }

    /// [`ColumnPass::columns_into`] over the exact height field ([`Terrain::sample_grid_exact`],
    /// no lattice): the benchmark baseline.
    pub fn columns_into_exact(&self, min_x: i32, min_z: i32, size_x: usize, size_z: usize, out: &mut Vec<Column>) {
        self.columns_with(min_x, min_z, size_x, size_z, true, out);
    }

    fn columns_with(&self, min_x: i32, min_z: i32, size_x: usize, size_z: usize, exact: bool, out: &mut Vec<Column>) {
        if size_x == 0 || size_z == 0 {
            return;
        }
        let mut samples = Vec::new();
        self.samples(min_x, min_z, size_x, size_z, exact, &mut samples);
        self.columns_from_samples(&samples, size_x, size_z, out);
    }

    /// Heights and biomes of the columns of a rectangle and a one-column ring around it (for
    /// the slope), row-major with x fastest.
    pub fn samples(
        &self,
        min_x: i32,
        min_z: i32,
        size_x: usize,
        size_z: usize,
        exact: bool,
        samples: &mut Vec<TerrainSample>,
    ) {
        let (gx, gz) = (size_x + 2, size_z + 2);
        let (x0, z0) = (min_x as f64 - 0.5, min_z as f64 - 0.5);
        if exact {
            self.terrain.sample_grid_exact(x0, z0, 1.0, gx, gz, samples);
        } else {
            self.terrain.sample_grid(x0, z0, 1.0, gx, gz, samples);
        }
    }

    /// The columns of a rectangle of `size_x × size_z` from its [`ColumnPass::samples`],
    /// appended to `out`.
    pub fn columns_from_samples(&self, samples: &[TerrainSample], size_x: usize, size_z: usize, out: &mut Vec<Column>) {
        let (biomes, preset) = (self.terrain.biomes(), self.preset);
        #[cfg(target_arch = "x86_64")]
        if crate::base::simd::avx2() {
            // SAFETY: the CPU has AVX2.
            return unsafe { columns_from_samples_avx2(biomes, preset, samples, size_x, size_z, out) };
        }
        columns_from_samples_body(biomes, preset, samples, size_x, size_z, out)
    }

    /// Surface and subsurface blocks of a column of biome `biome` whose top face is at `surface`
    /// and whose slope (largest central difference of heights per voxel) is `slope`: the biome's
    /// cliff block on slopes steeper than `rock_slope`, its shore block on shores (at most one
    /// above sea level), else its surface and subsurface blocks. Shared by the column pass and
    /// the far view's columns.
    #[inline]
    pub fn column_blocks(&self, biome: u8, surface: i32, slope: f64) -> (BlockId, BlockId) {
        column_blocks(self.terrain.biomes(), self.preset, biome, surface, slope)
    }
}

/// [`ColumnPass::columns_from_samples`] built for AVX2 (the same code, so the same columns; the
/// floors are single instructions there).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn columns_from_samples_avx2(
    biomes: &BiomeMap,
    preset: &WorldPreset,
    samples: &[TerrainSample],
    size_x: usize,
    size_z: usize,
    out: &mut Vec<Column>,
) {
    columns_from_samples_body(biomes, preset, samples, size_x, size_z, out)
}

/// The column pass's loop. The biome map and the preset are arguments (not fields reached
/// through the pass) so that the compiler knows the pushes to `out` leave them unchanged and
/// keeps what the loop reads of them in registers.
#[inline(always)]
fn columns_from_samples_body(
    biomes: &BiomeMap,
    preset: &WorldPreset,
    samples: &[TerrainSample],
    size_x: usize,
    size_z: usize,
    out: &mut Vec<Column>,
) {
    let gx = size_x + 2;
    out.reserve(size_x * size_z);
    for k in 1..=size_z {
        let (above, row, below) =
            (&samples[(k - 1) * gx..k * gx], &samples[k * gx..(k + 1) * gx], &samples[(k + 1) * gx..(k + 2) * gx]);
        for i in 1..=size_x {
            let sample = row[i];
            let surface = floor_to_i32(sample.height);
            let slope =
                ((row[i + 1].height - row[i - 1].height).abs()).max((below[i].height - above[i].height).abs()) * 0.5;
            let (surface_block, subsurface_block) = column_blocks(biomes, preset, sample.biome, surface, slope);
            out.push(Column { surface, surface_block, subsurface_block, biome: sample.biome });
        }
    }
}

/// [`ColumnPass::column_blocks`] of a biome map and a preset.
#[inline(always)]
fn column_blocks(biomes: &BiomeMap, preset: &WorldPreset, biome: u8, surface: i32, slope: f64) -> (BlockId, BlockId) {
    let water = &preset.water;
    let params = biomes.params(biome);
    if slope > preset.biomes.rock_slope as f64 {
        (params.cliff_block, params.cliff_block)
    } else if water.enabled && surface <= water.sea_level + 1 {
        (params.shore_block, params.shore_block)
    } else {
        (params.surface_block, params.subsurface_block)
    }
}

/// `h.floor() as i32` (saturating, NaN to 0) without the library call that `floor` is on
/// x86-64 without SSE4.1: truncation, one less for negative non-integers.
#[inline]
pub fn floor_to_i32(h: f64) -> i32 {
    if h.abs() < 2_147_483_648.0 {
        let t = h as i32;
        t - ((t as f64) > h) as i32
    } else {
        h.floor() as i32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_floor_equals_floor() {
        let edges = [
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            1e-300,
            -1e-300,
            2147483647.0,
            2147483647.5,
            -2147483648.0,
            -2147483648.5,
            -2147483649.0,
            2147483648.0,
            1e12,
            -1e12,
            f64::MAX,
            f64::MIN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            3.999999999999999,
            -3.000000000000001,
        ];
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
        let preset = WorldPreset::default();
        let terrain = Terrain::new(&preset, None).unwrap();
        let pass = ColumnPass::new(&terrain, &preset);
        for (x, z, sx, sz) in [(-1, -1, 34, 34), (95, -161, 34, 34), (1000, 3, 5, 1), (-77, 40, 1, 9)] {
            let mut samples = Vec::new();
            pass.samples(x, z, sx, sz, false, &mut samples);
            let mut ring = RingSurfaces::default();
            ring.fill_from_samples(&samples, x, z, sx, sz);
            let strip = |x: i32, z: i32, nx: usize, nz: usize| {
                let mut cols = Vec::new();
                pass.columns_into(x, z, nx, nz, &mut cols);
                cols.iter().map(|c| c.surface).collect::<Vec<_>>()
            };
            assert_eq!(ring.sides[0], strip(x - 1, z, 1, sz));
            assert_eq!(ring.sides[1], strip(x + sx as i32, z, 1, sz));
            assert_eq!(ring.sides[2], strip(x, z - 1, sx, 1));
            assert_eq!(ring.sides[3], strip(x, z + sz as i32, sx, 1));
        }
    }
}
