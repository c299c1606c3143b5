//! Navigation for streamed chunks: which chunks a job bakes a navigation mesh for, the voxels the
//! bake reads (the padded chunk the mesher got, plus the layers above it that the agent's
//! clearance needs, generated on the worker), and which chunks an edit re-bakes.
//!
//! May use: `base`, `gen3d`, `mesh`, `nav`.

use crate::base::block::BlockId;
use crate::base::block_library::RenderMode;
use crate::base::chunk::VoxelBuffer;
use crate::base::coords::{ChunkCoord, IVec3};
use crate::base::edits::{EditMap, apply_edits};
use crate::gen3d::pipeline::Generator;
use crate::gen3d::scratch::GenScratch;
use crate::mesh::MeshMaterials;
use crate::nav::{NavBlock, NavBlocks, NavError, NavMesh, NavScratch, NavSettings, bake_chunk};
use std::time::Instant;

/// The largest navigation distance, in chunks.
pub const MAX_NAVIGATION_DISTANCE: i32 = 8;

/// Navigation baking for a streamer: how far from a viewer, for which agent, what each block is.
#[derive(Clone, Debug, PartialEq)]
pub struct NavConfig {
    /// Chunks within this many chunks of a viewer (per axis) get a navigation mesh:
    /// 0..=[`MAX_NAVIGATION_DISTANCE`].
    pub distance: i32,
    pub settings: NavSettings,
    pub blocks: NavBlocks,
}

impl NavConfig {
    /// A config whose block table follows the mesher's materials: solid blocks are floor,
    /// liquid ones liquid, the rest open.
    pub fn from_materials(distance: i32, settings: NavSettings, materials: &MeshMaterials) -> Self {
        let blocks = NavBlocks::from_fn(materials.len(), |id| {
            let look = materials.look(id);
            if look.render_mode == RenderMode::Liquid {
                NavBlock::Liquid
            } else if look.solid {
                NavBlock::Floor
            } else {
                NavBlock::Open
            }
        });
        Self { distance: distance.clamp(0, MAX_NAVIGATION_DISTANCE), settings, blocks }
    }

    /// Whether chunk `c` lies within the navigation distance of one of the viewers' chunks.
    pub fn wants(&self, mut viewers: impl Iterator<Item = ChunkCoord>, c: ChunkCoord) -> bool {
        viewers.any(|v| (c.x - v.x).abs().max((c.y - v.y).abs()).max((c.z - v.z).abs()) <= self.distance)
    }

    /// The box a job's edits must cover for the bake ([`NavSettings::input_box`]).
    pub fn edit_box(&self, c: ChunkCoord) -> (IVec3, IVec3) {
        self.settings.input_box(c)
    }

    /// The chunks whose bake reads voxel `p` (its input box holds `p`): those whose padded box
    /// does ([`EditMap::chunks_touching`]) and those below whose clearance reaches up to it.
    pub fn chunks_touching(&self, p: IVec3) -> Vec<ChunkCoord> {
        let mut out = Vec::new();
        for dy in 0..self.settings.agent_height.max(1) as i32 {
            out.extend(EditMap::chunks_touching(p - IVec3::new(0, dy, 0)));
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// The chunk a streamed job bakes: its coordinate, its padded voxels with the job's edits
/// applied, whether it is sky (all air), and the job's edits (those of the bake's input box).
pub struct StreamedChunk<'a> {
    pub coord: ChunkCoord,
    pub padded: &'a VoxelBuffer,
    pub sky: bool,
    pub edits: &'a [(IVec3, BlockId)],
}

/// A worker's buffers for the bake.
#[derive(Debug, Default)]
pub struct NavInput {
    above: Option<VoxelBuffer>,
    input: Option<VoxelBuffer>,
    scratch: NavScratch,
}

/// Bakes a streamed chunk's navigation mesh from its padded voxels: the layers above the padded
/// box that the clearance needs are generated here and the edits applied to them. A sky chunk
/// without edits has no ground. Returns the mesh and the microseconds it took.
pub fn bake_streamed_chunk(
    generator: &Generator,
    chunk: StreamedChunk<'_>,
    config: &NavConfig,
    generation: &mut GenScratch,
    work: &mut NavInput,
) -> (Result<NavMesh, NavError>, u32) {
    let StreamedChunk { coord: c, padded, sky, edits } = chunk;
    let t = Instant::now();
    let mut mesh = NavMesh::default();
    if sky && edits.is_empty() {
        return (Ok(mesh), t.elapsed().as_micros() as u32);
    }
    let (min, size) = config.settings.input_box(c);
    let padded_top = padded.min().y + padded.size().y;
    let extra = min.y + size.y - padded_top;
    let result = if extra <= 0 || padded.min() != min {
        bake_chunk(padded, c, &config.settings, &config.blocks, &mut work.scratch, &mut mesh)
    } else {
        let above_min = IVec3::new(min.x, padded_top, min.z);
        let above_size = IVec3::new(size.x, extra, size.z);
        let above = work.above.get_or_insert_with(|| VoxelBuffer::new(above_min, above_size));
        above.reset(above_min, above_size);
        if !sky {
            generator.generate_region_with(above, generation);
        }
        apply_edits(above, edits);
        let input = work.input.get_or_insert_with(|| VoxelBuffer::new(min, size));
        input.reset(min, size);
        input.paste(padded);
        input.paste(above);
        bake_chunk(input, c, &config.settings, &config.blocks, &mut work.scratch, &mut mesh)
    };
    (result.map(|()| mesh), t.elapsed().as_micros() as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::coords::CHUNK_SIZE;
    use crate::preset::model::WorldPreset;

    /// The streamed bake (padded chunk + generated layers above, edits applied) equals the bake
    /// of the same box generated whole.
    #[test]
    fn streamed_bake_equals_the_bake_of_the_whole_box_with_edits() {
        let g = Generator::new(&WorldPreset::default()).expect("default preset");
        let s = g.surface_height(16, 16);
        let c = ChunkCoord::new(0, s.div_euclid(CHUNK_SIZE), 0);
        let config = NavConfig::from_materials(2, NavSettings::default(), &MeshMaterials::shared_default());
        // A pillar whose top lies above the padded box: only the generated layer holds it.
        let top = c.min_voxel().y + CHUNK_SIZE + 1;
        let edits: Vec<(IVec3, BlockId)> =
            vec![(IVec3::new(5, top, 5), crate::base::block::STONE), (IVec3::new(6, s - 1, 6), 0)];
        let mut padded = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
        g.generate_padded_chunk(c, &mut padded);
        apply_edits(&mut padded, &edits);
        let chunk = StreamedChunk { coord: c, padded: &padded, sky: false, edits: &edits };
        let (streamed, _) =
            bake_streamed_chunk(&g, chunk, &config, &mut GenScratch::default(), &mut NavInput::default());
        let (min, size) = config.settings.input_box(c);
        let mut whole = g.generate_box(min, size);
        apply_edits(&mut whole, &edits);
        let mut expected = NavMesh::default();
        bake_chunk(&whole, c, &config.settings, &config.blocks, &mut NavScratch::default(), &mut expected).unwrap();
        assert!(!expected.is_empty());
        assert_eq!(streamed.expect("bake"), expected);
    }

    #[test]
    fn an_edit_rebakes_the_chunk_below_whose_clearance_reaches_it() {
        let config = NavConfig::from_materials(2, NavSettings::default(), &MeshMaterials::shared_default());
        // One voxel above chunk (0, 0, 0)'s padded box: its top cells' head room.
        let p = IVec3::new(10, CHUNK_SIZE + 1, 10);
        assert!(!EditMap::chunks_touching(p).contains(&ChunkCoord::new(0, 0, 0)));
        assert!(config.chunks_touching(p).contains(&ChunkCoord::new(0, 0, 0)));
        let origin = || std::iter::once(ChunkCoord::new(0, 0, 0));
        assert!(config.wants(origin(), ChunkCoord::new(2, -2, 1)));
        assert!(!config.wants(origin(), ChunkCoord::new(3, 0, 0)));
    }

    /// Streamed chunks near the viewer come with navigation equal to the bake of their box; an
    /// edit brings a re-baked mesh; a chunk beyond the distance comes without, until requested.
    #[test]
    fn a_streamer_bakes_near_chunks_rebakes_after_edits_and_on_request() {
        use crate::stream::streamer::tests::drain_until_ready as drain;
        use crate::stream::streamer::{StreamConfig, Streamer};
        use std::sync::Arc;
        let g = Arc::new(Generator::new(&WorldPreset::default()).expect("default preset"));
        let config = Arc::new(NavConfig::from_materials(0, NavSettings::default(), &MeshMaterials::shared_default()));
        let mut s = Streamer::new(
            g.clone(),
            StreamConfig {
                view_distance: 2,
                vertical_view_distance: 1,
                worker_threads: 2,
                navigation: Some(config.clone()),
                ..Default::default()
            },
        )
        .unwrap();
        let h = g.surface_height(16, 16);
        // The viewer stands on the ground: its chunk owns the cell at (16, h, 16).
        s.set_viewer([16.5, h as f64 + 0.5, 16.5]);
        let viewer = ChunkCoord::containing(IVec3::new(16, h, 16));
        let expected = |c: ChunkCoord, edits: &[(IVec3, BlockId)]| {
            let (min, size) = config.settings.input_box(c);
            let mut b = g.generate_box(min, size);
            apply_edits(&mut b, edits);
            let mut m = NavMesh::default();
            bake_chunk(&b, c, &config.settings, &config.blocks, &mut NavScratch::default(), &mut m).unwrap();
            m
        };
        let first = drain(&mut s);
        let mut baked = 0;
        for r in &first {
            assert_eq!(
                r.navigation.is_some(),
                r.coord == viewer,
                "only the viewer's chunk at distance 0: {:?}",
                r.coord
            );
            if let Some(m) = &r.navigation {
                assert_eq!(m, &expected(r.coord, &[]), "streamed bake of {:?}", r.coord);
                baked += !m.is_empty() as usize;
            }
        }
        assert_eq!(baked, 1, "the viewer's chunk has ground");
        // Dig the ground under the viewer: its chunk comes back re-baked.
        let dig = IVec3::new(16, h - 1, 16);
        s.set_voxel(dig, 0);
        let again = drain(&mut s);
        let r = again.iter().rev().find(|r| r.coord == viewer).expect("the viewer's chunk is rebuilt");
        let m = r.navigation.as_ref().expect("re-baked");
        assert_eq!(m, &expected(viewer, &[(dig, 0)]));
        assert_ne!(m, &expected(viewer, &[]), "the hole changed the mesh");
        // A loaded chunk beyond the distance, on request.
        let far = first.iter().map(|r| r.coord).find(|&k| k != viewer && k.y == viewer.y).expect("a neighbour");
        s.request_navigation(far);
        let asked = drain(&mut s);
        let r = asked.iter().rev().find(|r| r.coord == far).expect("rebuilt on request");
        assert_eq!(r.navigation.as_ref(), Some(&expected(far, &[])));
    }
}
