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
//!   walking down from above the highest ground, water, edited block or structure or tree (the
//!   bound taken per tile of columns, from the placements meeting it), a slab at a time, until
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
use crate::gen3d::structures::Placement;
use crate::light::{
    LIGHT_MARGIN, LIGHT_PADDED_SIZE, LightBuffer, LightError, LightProps, LightScratch, SkyExposure, light_chunk,
};
use crate::stream::voxel_cache::{ColumnSky, GROUND_TILE, VoxelCache};

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
    /// Per column of the box: what the cache knows of its sky, and whether an edit lies in it.
    known: Vec<ColumnSky>,
    edited: Vec<bool>,
    generation: GenScratch,
}

impl Default for LightInputScratch {
    fn default() -> Self {
        Self {
            slab: VoxelBuffer::new(IVec3::ZERO, IVec3::ONE),
            chunk: VoxelBuffer::new(IVec3::ZERO, IVec3::ONE),
            clear_from: Vec::new(),
            open: Vec::new(),
            known: Vec::new(),
            edited: Vec::new(),
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
/// from it chunk by chunk (the same voxels, [`VoxelCache::fill_box`]) and the ground's bound
/// from its tiles ([`VoxelCache::ground_top`]), so that only the columns whose ground rises
/// above the box are walked, and of those only the ones whose sky no earlier box found
/// ([`VoxelCache::sky_known`]; what this box finds of its unedited columns is kept): the same
/// inputs either way.
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
    let LightInputScratch { slab, chunk, clear_from, open, known, edited, generation } = scratch;
    let mut fill = |out: &mut VoxelBuffer| match cache {
        Some(c) => c.fill_box(generator, out, chunk, generation),
        None => generator.generate_region_with(out, generation),
    };
    let (nx, nz) = (size.x.max(0) as usize, size.z.max(0) as usize);
    let water = &generator.preset().water;
    let sea = if water.enabled { water.sea_level } else { i32::MIN };
    let placements = generator.placements_in((min.x, min.z), (min.x + size.x, min.z + size.z));
    let box_top = min.y.saturating_add(size.y);
    // Above every column's ground, water, structures and edited blocks the world is clear to the
    // sky: one bound per region of columns, the whole box from a column pass, or each 8 × 8 tile
    // from the cache's ground tiles (structures and trees: those whose boxes meet the region).
    // Only the columns of regions whose bound lies above the box are walked; the others are
    // open at its top, which is what the walk would find for them. A walk that starts higher
    // finds the same first voxel that stops the sky.
    let clear_above = |ground: i32, (x0, z0): (i32, i32), (x1, z1): (i32, i32)| {
        let inside = |q: IVec3| q.x >= x0 && q.z >= z0 && q.x < x1 && q.z < z1;
        let edited = edits.iter().filter(|(q, id)| inside(*q) && !props.is_clear(*id)).map(|(q, _)| q.y).max();
        let meets = |p: &&Placement| p.min.x < x1 && p.max().x > x0 && p.min.z < z1 && p.max().z > z0;
        let structures = placements.iter().filter(meets).map(|p| p.max().y - 1).max().unwrap_or(i32::MIN);
        ground.max(sea).max(structures).max(edited.unwrap_or(i32::MIN)).saturating_add(1)
    };
    clear_from.clear();
    clear_from.resize(nx * nz, box_top);
    open.clear();
    open.resize(nx * nz, false);
    let mut top = box_top;
    // The rectangle of the columns walked: (min x, min z), (max x, max z) exclusive.
    let (mut lo, mut hi) = ((i32::MAX, i32::MAX), (i32::MIN, i32::MIN));
    let mut region = |(x0, z0): (i32, i32), (x1, z1): (i32, i32), from: i32| {
        if from <= box_top {
            return;
        }
        top = top.max(from);
        (lo, hi) = ((lo.0.min(x0), lo.1.min(z0)), (hi.0.max(x1), hi.1.max(z1)));
        for z in z0..z1 {
            let row = (z - min.z) as usize * nx;
            open[row + (x0 - min.x) as usize..row + (x1 - min.x) as usize].fill(true);
        }
    };
    let end = (min.x + size.x, min.z + size.z);
    match cache {
        _ if nx == 0 || nz == 0 => {}
        Some(c) => {
            let tile = |v: i32| v.div_euclid(GROUND_TILE);
            for tz in tile(min.z)..=tile(end.1 - 1) {
                for tx in tile(min.x)..=tile(end.0 - 1) {
                    let r0 = ((tx * GROUND_TILE).max(min.x), (tz * GROUND_TILE).max(min.z));
                    let r1 = ((tx * GROUND_TILE + GROUND_TILE).min(end.0), (tz * GROUND_TILE + GROUND_TILE).min(end.1));
                    let ground = c.ground_top(generator, r0.0, r0.1, r1.0 - r0.0, r1.1 - r0.1);
                    region(r0, r1, clear_above(ground, r0, r1));
                }
            }
        }
        None => {
            let grid = generator.column_grid(min.x, min.z, size.x, size.z);
            let ground = grid.columns.iter().map(|c| c.surface).max().unwrap_or(i32::MIN);
            region((min.x, min.z), end, clear_above(ground, (min.x, min.z), end));
        }
    }
    // Columns whose sky an earlier box found need no walk, unless an edit lies in them (the
    // cache knows the generated world only).
    if let Some(c) = cache.filter(|_| nx > 0 && nz > 0) {
        edited.clear();
        edited.resize(nx * nz, false);
        for (q, _) in edits {
            let (x, z) = (q.x - min.x, q.z - min.z);
            if (0..size.x).contains(&x) && (0..size.z).contains(&z) {
                edited[z as usize * nx + x as usize] = true;
            }
        }
        if open.iter().any(|&o| o) {
            c.sky_known(min.x, min.z, size.x, size.z, known);
            for (i, still_open) in open.iter_mut().enumerate().filter(|(i, o)| **o && !edited[*i]) {
                match known[i] {
                    ColumnSky::Exposure(h) => {
                        clear_from[i] = h.max(box_top);
                        *still_open = false;
                    }
                    ColumnSky::ClearFrom(h) if h <= box_top => *still_open = false,
                    _ => {}
                }
            }
            // The walk covers the columns still open.
            (lo, hi) = ((i32::MAX, i32::MAX), (i32::MIN, i32::MIN));
            for i in open.iter().enumerate().filter(|(_, o)| **o).map(|(i, _)| i) {
                let (x, z) = (min.x + (i % nx) as i32, min.z + (i / nx) as i32);
                (lo, hi) = ((lo.0.min(x), lo.1.min(z)), (hi.0.max(x + 1), hi.1.max(z + 1)));
            }
        }
    }
    // Walk down from `top` to the box, slab by slab, until every column is closed.
    while top > box_top && open.iter().any(|&o| o) {
        let bottom = (top - EXPOSURE_SLAB).max(box_top);
        slab.reset(IVec3::new(lo.0, bottom, lo.1), IVec3::new(hi.0 - lo.0, top - bottom, hi.1 - lo.1));
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
    crate::light::sky_exposure(voxels, props, clear_from, sky)?;
    // What this box found of its unedited columns: the exposure where the walk or the box's
    // voxels met a voxel that stops the sky, else that the column is clear down to the box's
    // bottom.
    if let Some(c) = cache.filter(|_| nx > 0 && nz > 0) {
        known.clear();
        known.extend(sky.heights().iter().zip(edited.iter()).map(|(&h, &e)| match h {
            _ if e => ColumnSky::Unknown,
            h if h > min.y => ColumnSky::Exposure(h),
            h => ColumnSky::ClearFrom(h),
        }));
        c.note_sky(min.x, min.z, size.x, size.z, known);
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::block::{AIR, STONE};
    use crate::base::block_library::{TORCH, default_library};
    use crate::gen3d::columns::ColumnGrid;
    use crate::preset::file::load_preset_file;
    use crate::preset::model::WorldPreset;

    /// The chunks whose light is compared: for each column the surface chunk, the chunk above
    /// it, and three below (caves), plus the chunk at sea level over the lowest ground found.
    fn chunks_of(g: &Generator, columns: &[(i32, i32)]) -> Vec<ChunkCoord> {
        let mut out = Vec::new();
        for &(x, z) in columns {
            let s = ChunkCoord::containing(IVec3::new(x, g.surface_height(x, z), z));
            out.extend([1, 0, -1, -2, -3].map(|d| ChunkCoord::new(s.x, s.y + d, s.z)));
        }
        let water = &g.preset().water;
        let low = (-16..16).map(|i| (i * 97, i * -61)).min_by_key(|&(x, z)| g.surface_height(x, z));
        if let (true, Some((x, z))) = (water.enabled, low) {
            out.push(ChunkCoord::containing(IVec3::new(x, water.sea_level - 1, z)));
        }
        out
    }

    /// A torch in the air above the ground, a shaft dug down from the surface, a stone roof high
    /// above the box (it closes columns from above), and a torch in the first air of a cave
    /// chunk.
    fn edits_near(g: &Generator, c: ChunkCoord, cave: ChunkCoord) -> EditMap {
        let mut e = EditMap::new();
        let m = c.min_voxel();
        let h = |x: i32, z: i32| g.surface_height(x, z);
        e.set(IVec3::new(m.x + 3, h(m.x + 3, m.z + 3) + 1, m.z + 3), TORCH);
        let (sx, sz) = (m.x + 30, m.z + 1);
        for y in h(sx, sz) - 20..h(sx, sz) {
            e.set(IVec3::new(sx, y, sz), AIR);
        }
        for dz in 0..6 {
            for dx in 0..6 {
                e.set(IVec3::new(m.x - 3 + dx, h(m.x, m.z) + 40, m.z + 20 + dz), STONE);
            }
        }
        let cave_voxels = g.generate_chunk(cave);
        let first_air = (0..cave_voxels.data().len()).find(|&i| cave_voxels.data()[i] == AIR);
        if let Some(i) = first_air {
            let n = crate::base::coords::CHUNK_SIZE as usize;
            let l = IVec3::new((i % n) as i32, (i / (n * n)) as i32, (i / n % n) as i32);
            e.set(cave.min_voxel() + l, TORCH);
        }
        e
    }

    /// What a streamed chunk's job hands the cache before any light box asks: its padded
    /// generated voxels and columns.
    fn as_a_job(g: &Generator, cache: &VoxelCache, c: ChunkCoord) {
        let (mut padded, mut columns) = (VoxelBuffer::new(IVec3::ZERO, IVec3::ONE), ColumnGrid::default());
        let sky = g.generate_padded_chunk_unless_sky(c, &mut padded, &mut columns, &mut GenScratch::default());
        cache.insert_padded(c, &padded, sky);
        if !sky {
            cache.note_columns(&columns);
        }
    }

    /// The fast path (voxels from the workers' cache, cold, warmed by jobs in any order, or so
    /// small that it evicts all along; the ground's bound from its tiles) gives every chunk the
    /// same light as the full path (the box generated whole, a column pass over it), on real
    /// chunks of several worlds: surface, caves, sea, torches, a dug shaft and a roof above
    /// (laws: Deterministic, Seamless).
    #[test]
    fn light_from_the_cache_equals_light_generated_whole() {
        let props = LightProps::from_library(default_library());
        let hills = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../godot_project/addons/strata/presets/default_hills.ron");
        let mut presets = vec![load_preset_file(&hills).expect("the shipped default_hills preset")];
        presets.extend([3, 4242].map(|seed| WorldPreset { seed, ..WorldPreset::default() }));
        for preset in presets {
            let g = Generator::new(&preset).expect("valid preset");
            let chunks = chunks_of(&g, &[(0, 0), (-333, 777)]);
            let edits = edits_near(&g, chunks[1], chunks[3]);
            let caches = [VoxelCache::new(crate::stream::voxel_cache::DEFAULT_CACHE_BYTES), VoxelCache::new(1)];
            // The second cache is warmed by the jobs of the chunks' neighbours, farthest first.
            let mut neighbours: Vec<ChunkCoord> = chunks
                .iter()
                .flat_map(|c| {
                    (0..27).map(move |i| ChunkCoord::new(c.x + i % 3 - 1, c.y + i / 9 - 1, c.z + i / 3 % 3 - 1))
                })
                .collect();
            neighbours.reverse();
            for &c in neighbours.iter().step_by(2) {
                as_a_job(&g, &caches[1], c);
            }
            let (mut full, mut fast) = (ChunkLighter::default(), ChunkLighter::default());
            for edits in [EditMap::new(), edits.clone()] {
                for &c in &chunks {
                    let (min, size) = ChunkLighter::input_box(c);
                    let e = edits_for_light(&edits, min, size);
                    let want = full.light_chunk(&g, None, c, &e, &props).expect("lit").clone();
                    for (k, cache) in caches.iter().enumerate() {
                        let got = fast.light_chunk(&g, Some(cache), c, &e, &props).expect("lit");
                        assert!(
                            *got == want,
                            "seed {}, chunk {c:?}, {} edits, cache {k}: the light differs",
                            preset.seed,
                            e.len()
                        );
                    }
                }
            }
            // Deep boxes first: the skies they find serve the boxes above them, and the other
            // way round above; edits after their columns' skies are known.
            let cache = VoxelCache::new(crate::stream::voxel_cache::DEFAULT_CACHE_BYTES);
            for edits in [EditMap::new(), edits.clone()] {
                for &c in chunks.iter().rev() {
                    let (min, size) = ChunkLighter::input_box(c);
                    let e = edits_for_light(&edits, min, size);
                    let want = full.light_chunk(&g, None, c, &e, &props).expect("lit").clone();
                    let got = fast.light_chunk(&g, Some(&cache), c, &e, &props).expect("lit");
                    assert!(
                        *got == want,
                        "seed {}, chunk {c:?}, {} edits, deep first: the light differs",
                        preset.seed,
                        e.len()
                    );
                }
            }
        }
    }

    /// A light box's walk above it is skipped for the columns whose sky the boxes above found:
    /// a deep box lit after the column's surface box reads fewer chunks from the cache.
    #[test]
    fn a_deep_box_after_the_surface_reads_no_voxels_above_it() {
        let props = LightProps::from_library(default_library());
        let g = Generator::new(&WorldPreset::default()).expect("valid preset");
        let s = ChunkCoord::containing(IVec3::new(0, g.surface_height(0, 0), 0));
        let deep = ChunkCoord::new(s.x, s.y - 4, s.z);
        let lookups = |cache: &VoxelCache| {
            let (hits, misses) = cache.lookups();
            hits + misses
        };
        let mut lighter = ChunkLighter::default();
        let cold = VoxelCache::new(crate::stream::voxel_cache::DEFAULT_CACHE_BYTES);
        let want = lighter.light_chunk(&g, Some(&cold), deep, &[], &props).expect("lit").clone();
        let alone = lookups(&cold);
        let warm = VoxelCache::new(crate::stream::voxel_cache::DEFAULT_CACHE_BYTES);
        for y in (deep.y + 1..=s.y + 1).rev() {
            lighter.light_chunk(&g, Some(&warm), ChunkCoord::new(s.x, y, s.z), &[], &props).expect("lit");
        }
        let before = lookups(&warm);
        let got = lighter.light_chunk(&g, Some(&warm), deep, &[], &props).expect("lit").clone();
        assert!(got == want, "the same light");
        let after = lookups(&warm) - before;
        // The box's own 27 chunks at most; alone it also walks the slabs above it.
        assert!(after <= 27 && alone > after, "lookups: {after} after the boxes above, {alone} alone");
    }
}
