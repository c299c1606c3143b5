//! World queries in 3D: answers about any voxel, column or chunk of a world that need no loaded
//! chunk (spawn heights, what lies under a cursor, tools). Each is a pure function of the
//! generator (seed and preset) and the player's edits, so it agrees with what the streamer shows
//! wherever it is asked.
//!
//! The 2D counterparts are [`crate::stream::stream2d::tile_with_edits`] and
//! [`crate::stream::stream2d::top_solid_row`].
//!
//! May use: `base`, `gen3d`, `light`, `mesh`, and `stream`'s lighting inputs and voxel cache.

use crate::base::block::{self, BlockId};
use crate::base::chunk::VoxelBuffer;
use crate::base::coords::{ChunkCoord, IVec3, clamp_to_world};
use crate::base::edits::{EditMap, local_index};
use crate::gen3d::pipeline::Generator;
use crate::light::{LIGHT_MAX, LIGHT_REACH, Light, LightBuffer, LightProps, LightScratch, SkyExposure};
use crate::mesh::{ChunkMesh, Mesher};
use crate::stream::lighting::{LightInputScratch, edits_for_light, light_inputs};
use crate::stream::voxel_cache::{ChunkVoxels, VoxelCache};
use std::collections::BTreeMap;
use std::sync::Arc;

/// How far below the highest candidate [`top_solid_y`] looks for ground (a dug-out shaft or a
/// cave under the surface), in voxels.
pub const TOP_SOLID_SEARCH_DEPTH: i32 = 512;

/// The block at `p` with `edits` applied over the generated world.
pub fn voxel_with_edits(generator: &Generator, edits: Option<&EditMap>, p: IVec3) -> BlockId {
    edits.and_then(|e| e.get(p)).unwrap_or_else(|| generator.voxel_at(p))
}

/// The voxels of a world for a walk of nearby lookups on the calling thread (a raycast): edits
/// first, then the generated chunks the workers' [`VoxelCache`] holds, then the generator voxel
/// by voxel. Every source gives the same block (the cache holds the generator's own voxels), so
/// the answer never depends on what is cached, only its speed does.
pub struct WorldVoxels<'a> {
    generator: &'a Generator,
    edits: Option<&'a EditMap>,
    cache: Option<&'a VoxelCache>,
    /// The chunk of the last lookup, its edits and its cached voxels (looked up once a chunk).
    current: Option<CurrentChunk<'a>>,
}

struct CurrentChunk<'a> {
    coord: ChunkCoord,
    edits: Option<&'a BTreeMap<u16, BlockId>>,
    voxels: Option<Arc<ChunkVoxels>>,
}

impl<'a> WorldVoxels<'a> {
    pub fn new(generator: &'a Generator, edits: Option<&'a EditMap>, cache: Option<&'a VoxelCache>) -> Self {
        Self { generator, edits, cache, current: None }
    }

    /// The block at `p`, edits included.
    pub fn get(&mut self, p: IVec3) -> BlockId {
        let coord = ChunkCoord::containing(p);
        let current = match &mut self.current {
            Some(c) if c.coord == coord => c,
            slot => slot.insert(CurrentChunk {
                coord,
                edits: self.edits.and_then(|e| e.chunk_edits(coord)),
                voxels: self.cache.and_then(|cache| cache.cached(coord)),
            }),
        };
        let local = p - coord.min_voxel();
        if let Some(&b) = current.edits.and_then(|e| e.get(&local_index(local))) {
            return b;
        }
        match &current.voxels {
            Some(voxels) => voxels.get_local(local),
            None => self.generator.voxel_at(p),
        }
    }
}

/// World y of the top face of the topmost solid voxel in column (x, z), edits included: a solid
/// block placed above the generated surface raises it, and a dug-out or cave-breached surface is
/// followed down to the first solid voxel (at most [`TOP_SOLID_SEARCH_DEPTH`] voxels).
pub fn top_solid_y(generator: &Generator, edits: Option<&EditMap>, x: i32, z: i32) -> i32 {
    // A column beyond the world's bounds answers as the nearest column inside.
    let (x, z) = (clamp_to_world(x), clamp_to_world(z));
    let mut top = generator.surface_height(x, z);
    if let Some(t) = generator.structure_top((x, z), (x + 1, z + 1)) {
        top = top.max(t);
    }
    if let Some(e) = edits {
        for (p, id) in e.edits_in_column(x, z) {
            if block::is_solid(id) && p.y + 1 > top {
                top = p.y + 1;
            }
        }
    }
    let mut y = top - 1;
    let floor = top - TOP_SOLID_SEARCH_DEPTH;
    while y > floor && !block::is_solid(voxel_with_edits(generator, edits, IVec3::new(x, y, z))) {
        y -= 1;
    }
    y + 1
}

/// The mesh of chunk `c` as generated (edits not applied), built on the calling thread: what a
/// worker makes of the chunk, for tools and tests. Blocks for one chunk's generation.
pub fn generated_chunk_mesh(generator: &Generator, c: ChunkCoord, ambient_occlusion: bool) -> ChunkMesh {
    let mut padded = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
    generator.generate_padded_chunk(c, &mut padded);
    let mut mesh = ChunkMesh::default();
    let mut mesher = Mesher::new();
    mesher.set_ambient_occlusion(ambient_occlusion);
    mesher.mesh(&padded, &mut mesh);
    mesh
}

/// The light at `p` (sky and block, `0..=15` each) with `edits` over the generated world: what
/// lighting the whole world gives there, from the voxels within [`LIGHT_REACH`] of `p` and the
/// sky exposure of their columns (law: Seamless: the light of a chunk and of any box around it
/// agree, [`crate::light`]). Beyond the world's bounds the world is air under open sky.
///
/// Generates the 29³ box around `p`, plus a slab or two above it where the ground rises higher
/// ([`crate::stream::lighting::light_inputs`]).
pub fn light_at(
    generator: &Generator,
    edits: Option<&EditMap>,
    props: &LightProps,
    p: IVec3,
) -> Result<Light, crate::light::LightError> {
    if !crate::base::coords::voxel_in_world(p) {
        return Ok(Light::new(LIGHT_MAX, 0));
    }
    let (min, size) = (p - IVec3::splat(LIGHT_REACH), IVec3::splat(2 * LIGHT_REACH + 1));
    let box_edits = edits.map(|e| edits_for_light(e, min, size)).unwrap_or_default();
    let mut voxels = VoxelBuffer::new(min, size);
    let mut sky = SkyExposure::default();
    light_inputs(
        generator,
        None,
        &box_edits,
        props,
        (min, size),
        &mut voxels,
        &mut sky,
        &mut LightInputScratch::default(),
    )?;
    let mut out = LightBuffer::default();
    crate::light::light_region(&voxels, &sky, props, &mut out, &mut LightScratch::default())?;
    Ok(out.get(p).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen3d::scratch::GenScratch;
    use crate::preset::model::WorldPreset;

    fn generator() -> Generator {
        Generator::new(&WorldPreset { seed: 1234, ..WorldPreset::default() }).expect("default preset builds")
    }

    /// The top by brute force: the first solid voxel scanning down from far above the surface.
    fn scan_top(g: &Generator, edits: Option<&EditMap>, x: i32, z: i32) -> i32 {
        let mut y = g.surface_height(x, z) + 64;
        while !block::is_solid(voxel_with_edits(g, edits, IVec3::new(x, y, z))) {
            y -= 1;
        }
        y + 1
    }

    #[test]
    fn world_voxels_answer_the_same_from_edits_cache_and_generator() {
        let g = generator();
        let ground = g.surface_height(5, 5);
        let mut edits = EditMap::new();
        for i in 0..40 {
            edits.set(IVec3::new(i - 20, ground - 2 + i % 5, 5), (i % 7) as BlockId);
        }
        let cache = VoxelCache::new(usize::MAX / 2);
        let (mut buffer, mut scratch) = (VoxelBuffer::new(IVec3::ZERO, IVec3::ONE), GenScratch::default());
        let c = ChunkCoord::containing(IVec3::new(5, ground, 5));
        // Half the box's chunks cached, half not: every voxel must read the same either way.
        for c in [c, ChunkCoord::new(c.x - 1, c.y, c.z), ChunkCoord::new(c.x, c.y - 1, c.z)] {
            cache.chunk(&g, c, &mut buffer, &mut scratch);
        }
        let mut cached = WorldVoxels::new(&g, Some(&edits), Some(&cache));
        let mut plain = WorldVoxels::new(&g, Some(&edits), None);
        for y in ground - 40..ground + 8 {
            for z in -3..12 {
                for x in -40..40 {
                    let p = IVec3::new(x, y, z);
                    let expected = voxel_with_edits(&g, Some(&edits), p);
                    assert_eq!(cached.get(p), expected, "{p:?} through the cache");
                    assert_eq!(plain.get(p), expected, "{p:?} generated");
                }
            }
        }
    }

    #[test]
    fn top_solid_y_is_the_highest_solid_voxel() {
        let g = generator();
        for (x, z) in [(0, 0), (17, -5), (-300, 41), (1000, 1000), (-77, -913)] {
            let top = top_solid_y(&g, None, x, z);
            assert_eq!(top, scan_top(&g, None, x, z), "column ({x}, {z})");
            assert!(block::is_solid(g.voxel_at(IVec3::new(x, top - 1, z))));
            assert!(!block::is_solid(g.voxel_at(IVec3::new(x, top, z))));
        }
    }

    #[test]
    fn edits_raise_and_dig_the_top() {
        let g = generator();
        let (x, z) = (5, 9);
        let ground = top_solid_y(&g, None, x, z);
        let mut edits = EditMap::new();
        // A block floating above the ground counts, even with air between.
        edits.set(IVec3::new(x, ground + 10, z), block::STONE);
        assert_eq!(top_solid_y(&g, Some(&edits), x, z), ground + 11);
        // Air placed there again: back to the ground.
        edits.set(IVec3::new(x, ground + 10, z), block::AIR);
        assert_eq!(top_solid_y(&g, Some(&edits), x, z), ground);
        // A shaft dug three voxels deep is followed down.
        for y in ground - 3..ground {
            edits.set(IVec3::new(x, y, z), block::AIR);
        }
        assert_eq!(top_solid_y(&g, Some(&edits), x, z), scan_top(&g, Some(&edits), x, z));
        assert!(top_solid_y(&g, Some(&edits), x, z) <= ground - 3);
        // Edits of a neighbouring column change nothing here.
        let mut beside = EditMap::new();
        beside.set(IVec3::new(x + 1, ground + 20, z), block::STONE);
        assert_eq!(top_solid_y(&g, Some(&beside), x, z), ground);
    }

    #[test]
    fn voxel_with_edits_prefers_the_edit() {
        let g = generator();
        let p = IVec3::new(3, g.surface_height(3, 4) - 1, 4);
        assert_eq!(voxel_with_edits(&g, None, p), g.voxel_at(p));
        let mut edits = EditMap::new();
        edits.set(p, block::AIR);
        assert_eq!(voxel_with_edits(&g, Some(&edits), p), block::AIR);
        assert_eq!(voxel_with_edits(&g, Some(&edits), p + IVec3::new(0, -1, 0)), g.voxel_at(p + IVec3::new(0, -1, 0)));
    }

    #[test]
    fn generated_chunk_mesh_has_faces_at_the_surface_and_none_in_the_sky() {
        let g = generator();
        let c = ChunkCoord::containing(IVec3::new(0, top_solid_y(&g, None, 0, 0) - 1, 0));
        let mesh = generated_chunk_mesh(&g, c, true);
        assert!(!mesh.is_empty());
        assert_eq!(mesh, generated_chunk_mesh(&g, c, true), "same chunk, same mesh");
        let sky = ChunkCoord::new(c.x, c.y + 40, c.z);
        assert!(generated_chunk_mesh(&g, sky, true).is_empty());
    }
}
