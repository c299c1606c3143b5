//! Light for the streamed world: what the light layer needs to light a box of the world (its
//! voxels with edits, and the sky exposure of its columns), the light of one streamed chunk, and
//! the exposure of one column for an edit on the main thread.
//!
//! The light layer ([`crate::light`]) is a pure function of a box of voxels and the exposure of
//! its columns. Here both come from the generator and the edits only, never from other loaded
//! chunks, so a chunk's light is the same whichever chunks were loaded first or at all (laws:
//! Deterministic, Seamless).
//!
//! * [`light_inputs`] generates the box, applies the edits, and finds each column's exposure by
//!   walking down from above the highest ground, water or edited block, a slab at a time, until
//!   something stops the sky (usually one slab, or none when the box reaches above the ground).
//! * [`ChunkLighter`] lights a chunk for the mesher: the chunk padded by
//!   [`LIGHT_MARGIN`] (62³) in, the chunk and its shell (34³, the mesher's padded box) out.
//! * [`column_exposure`] answers one column by walking voxels down, cheap enough for the main
//!   thread to tell which chunks an edit relights ([`crate::light::LightEdit`]).
//!
//! May use: `base`, `gen3d`, `light`, `stream::voxel_cache`.

use crate::base::block::BlockId;
use crate::base::chunk::VoxelBuffer;
use crate::base::coords::{ChunkCoord, IVec3, clamp_to_world};
use crate::base::edits::{EditMap, apply_edits};
use crate::gen3d::pipeline::Generator;
use crate::gen3d::scratch::GenScratch;
use crate::light::{
    LIGHT_MARGIN, LIGHT_PADDED_SIZE, LightBuffer, LightError, LightProps, LightScratch, SkyExposure, light_chunk,
};
use crate::stream::voxel_cache::VoxelCache;

/// Height of the slabs [`light_inputs`] generates above a box to find where each column's sky
/// ends, in voxels.
pub const EXPOSURE_SLAB: i32 = 32;

/// How far down [`column_exposure`] walks before it stops and answers where it got to.
pub const COLUMN_EXPOSURE_SEARCH_DEPTH: i32 = 1024;

/// Reusable buffers of [`light_inputs`].
#[derive(Debug)]
pub struct LightInputScratch {
    slab: VoxelBuffer,
    /// One chunk's voxels, generated for the cache.
    chunk: VoxelBuffer,
    clear_from: Vec<i32>,
    open: Vec<bool>,
    generation: GenScratch,
}

impl Default for LightInputScratch {
    fn default() -> Self {
        Self {
            slab: VoxelBuffer::new(IVec3::ZERO, IVec3::ONE),
            chunk: VoxelBuffer::new(IVec3::ZERO, IVec3::ONE),
            clear_from: Vec::new(),
            open: Vec::new(),
            generation: GenScratch::default(),
        }
    }
}

/// Fills `voxels` with the world's voxels of the box `[min, min + size)` (`(min, size)`) (edits applied) and
/// `sky` with the exposure of its columns: the inputs of [`crate::light::light_region`] and
/// [`crate::light::light_chunk`].
///
/// `edits` must hold every edit in the box's columns at or above `min.y` (more are ignored): the
/// box's own, and those above it that may stop the sky. With `cache`, generated voxels come
/// from it chunk by chunk (the same voxels, [`VoxelCache::fill_box`]).
#[allow(clippy::too_many_arguments)]
pub fn light_inputs(
    generator: &Generator,
    cache: Option<&VoxelCache>,
    edits: &[(IVec3, BlockId)],
    props: &LightProps,
    (min, size): (IVec3, IVec3),
    voxels: &mut VoxelBuffer,
    sky: &mut SkyExposure,
    scratch: &mut LightInputScratch,
) -> Result<(), LightError> {
    let LightInputScratch { slab, chunk, clear_from, open, generation } = scratch;
    let mut fill = |out: &mut VoxelBuffer| match cache {
        Some(c) => c.fill_box(generator, out, chunk, generation),
        None => generator.generate_region_with(out, generation),
    };
    let (nx, nz) = (size.x.max(0) as usize, size.z.max(0) as usize);
    let in_columns = |p: IVec3| p.x >= min.x && p.z >= min.z && p.x < min.x + size.x && p.z < min.z + size.z;
    // Above every column's ground, water and edited blocks the world is clear to the sky.
    let grid = generator.column_grid(min.x, min.z, size.x, size.z);
    let water = &generator.preset().water;
    let sea = if water.enabled { water.sea_level } else { i32::MIN };
    let ground = grid.columns.iter().map(|c| c.surface.max(sea)).max().unwrap_or(i32::MIN);
    let structures = generator.structure_top((min.x, min.z), (min.x + size.x, min.z + size.z));
    let ground = ground.max(structures.map_or(i32::MIN, |t| t - 1));
    let edited = edits.iter().filter(|(q, id)| in_columns(*q) && !props.is_clear(*id)).map(|(q, _)| q.y).max();
    let box_top = min.y.saturating_add(size.y);
    let mut top = ground.max(edited.unwrap_or(i32::MIN)).saturating_add(1).max(box_top);
    clear_from.clear();
    clear_from.resize(nx * nz, box_top);
    open.clear();
    open.resize(nx * nz, true);
    // Walk down from `top` to the box, slab by slab, until every column is closed.
    while top > box_top && open.iter().any(|&o| o) {
        let bottom = (top - EXPOSURE_SLAB).max(box_top);
        slab.reset(IVec3::new(min.x, bottom, min.z), IVec3::new(size.x, top - bottom, size.z));
        fill(slab);
        apply_edits(slab, edits);
        for (i, still_open) in open.iter_mut().enumerate().filter(|(_, o)| **o) {
            let (x, z) = (min.x + (i % nx) as i32, min.z + (i / nx) as i32);
            if let Some(y) = (bottom..top).rev().find(|&y| !props.is_clear(slab.get(IVec3::new(x, y, z)).unwrap_or(0)))
            {
                clear_from[i] = y + 1;
                *still_open = false;
            }
        }
        top = bottom;
    }
    voxels.reset(min, size);
    fill(voxels);
    apply_edits(voxels, edits);
    crate::light::sky_exposure(voxels, props, clear_from, sky)
}

/// The edits [`light_inputs`] needs for the box `[min, min + size)`: those in its columns at or
/// above `min.y`.
pub fn edits_for_light(edits: &EditMap, min: IVec3, size: IVec3) -> Vec<(IVec3, BlockId)> {
    edits.edits_in_columns_from(min.x, min.z, size.x, size.z, min.y)
}

/// Lights chunks for the mesher, reusing its buffers: a worker keeps one.
#[derive(Debug)]
pub struct ChunkLighter {
    voxels: VoxelBuffer,
    sky: SkyExposure,
    inputs: LightInputScratch,
    propagation: LightScratch,
    light: LightBuffer,
}

impl Default for ChunkLighter {
    fn default() -> Self {
        Self {
            voxels: VoxelBuffer::new(IVec3::ZERO, IVec3::ONE),
            sky: SkyExposure::default(),
            inputs: LightInputScratch::default(),
            propagation: LightScratch::default(),
            light: LightBuffer::default(),
        }
    }
}

impl ChunkLighter {
    /// The box whose voxels and edits a chunk's light reads: the chunk padded by
    /// [`LIGHT_MARGIN`] (min, size).
    pub fn input_box(c: ChunkCoord) -> (IVec3, IVec3) {
        (c.min_voxel() - IVec3::splat(LIGHT_MARGIN), IVec3::splat(LIGHT_PADDED_SIZE))
    }

    /// The light of chunk `c` and its one-voxel shell (the box of the mesher's padded voxels),
    /// from the generator (through `cache` when given) and `edits` (see [`edits_for_light`]
    /// with [`ChunkLighter::input_box`]).
    pub fn light_chunk(
        &mut self,
        generator: &Generator,
        cache: Option<&VoxelCache>,
        c: ChunkCoord,
        edits: &[(IVec3, BlockId)],
        props: &LightProps,
    ) -> Result<&LightBuffer, LightError> {
        let (min, size) = Self::input_box(c);
        light_inputs(generator, cache, edits, props, (min, size), &mut self.voxels, &mut self.sky, &mut self.inputs)?;
        light_chunk(c, &self.voxels, &self.sky, props, &mut self.light, &mut self.propagation)?;
        Ok(&self.light)
    }
}

/// The exposure of column (x, z) with `edits` (the lowest y from which everything up is clear to
/// the sky, [`crate::light::sky`]), by walking down from above its ground, water and edited
/// blocks to the first voxel that is not clear; at most [`COLUMN_EXPOSURE_SEARCH_DEPTH`] voxels,
/// answering the last one reached when the walk goes deeper (a shaft into a vast cave).
pub fn column_exposure(generator: &Generator, edits: Option<&EditMap>, props: &LightProps, x: i32, z: i32) -> i32 {
    let (x, z) = (clamp_to_world(x), clamp_to_world(z));
    let water = &generator.preset().water;
    let mut top = generator.column(x, z).surface;
    if let Some(t) = generator.structure_top((x, z), (x + 1, z + 1)) {
        top = top.max(t - 1);
    }
    if water.enabled {
        top = top.max(water.sea_level);
    }
    if let Some(e) = edits {
        for (p, id) in e.edits_in_column(x, z) {
            if !props.is_clear(id) {
                top = top.max(p.y);
            }
        }
    }
    let floor = top - COLUMN_EXPOSURE_SEARCH_DEPTH;
    let mut y = top;
    let voxel = |p: IVec3| edits.and_then(|e| e.get(p)).unwrap_or_else(|| generator.voxel_at(p));
    while y > floor && props.is_clear(voxel(IVec3::new(x, y, z))) {
        y -= 1;
    }
    y + 1
}
