//! Shared setup for the core benchmarks: real terrain chunks and the block-mesh baseline.
//!
//! `mod common;` in each bench (a folder, so cargo does not take it for a bench of its own);
//! not every item is used by every bench.
#![allow(dead_code)]

use block_mesh::ndshape::{ConstShape, ConstShape3u32};
use block_mesh::{GreedyQuadsBuffer, MergeVoxel, RIGHT_HANDED_Y_UP_CONFIG, Voxel, VoxelVisibility, greedy_quads};
use strata_core::base::block::{self, BlockId};
use strata_core::gen3d::pipeline::Generator;
use strata_core::{CHUNK_SIZE, ChunkCoord, IVec3, VoxelBuffer, WorldPreset};

/// Columns of the terrain chunks the benches mesh: each is taken at the height of its surface.
pub const CHUNK_COLUMNS: [(i32, i32); 4] = [(0, 0), (1, 1), (-2, 3), (5, -4)];

pub fn generator() -> Generator {
    Generator::new(&WorldPreset::default()).expect("default preset")
}

/// The chunk of column `(cx, cz)` holding the surface at its centre.
pub fn surface_chunk(g: &Generator, (cx, cz): (i32, i32)) -> ChunkCoord {
    let mid = CHUNK_SIZE / 2;
    let s = g.surface_height(cx * CHUNK_SIZE + mid, cz * CHUNK_SIZE + mid);
    ChunkCoord::new(cx, s.div_euclid(CHUNK_SIZE), cz)
}

/// Padded (34³) voxels of the benchmark chunks.
pub fn padded_chunks(g: &Generator) -> Vec<(ChunkCoord, VoxelBuffer)> {
    CHUNK_COLUMNS
        .iter()
        .map(|&col| {
            let c = surface_chunk(g, col);
            let mut b = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
            g.generate_padded_chunk(c, &mut b);
            (c, b)
        })
        .collect()
}

/// A block id as block-mesh sees it: solid blocks opaque, liquids translucent, air empty;
/// quads merge by block id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BmVoxel(pub BlockId);

impl Voxel for BmVoxel {
    fn get_visibility(&self) -> VoxelVisibility {
        if block::is_solid(self.0) {
            VoxelVisibility::Opaque
        } else if block::is_liquid(self.0) {
            VoxelVisibility::Translucent
        } else {
            VoxelVisibility::Empty
        }
    }
}

impl MergeVoxel for BmVoxel {
    type MergeValue = BlockId;
    fn merge_value(&self) -> BlockId {
        self.0
    }
}

/// 34³; block-mesh linearises x fastest, then y, then z. Our buffers are x, then z, then y: the
/// same cube with two axes named the other way round, which changes no quad count or cost.
pub type PaddedShape = ConstShape3u32<34, 34, 34>;
pub const PADDED: u32 = CHUNK_SIZE as u32 + 2;

pub fn to_block_mesh(b: &VoxelBuffer) -> Vec<BmVoxel> {
    assert_eq!(b.data().len(), PaddedShape::SIZE as usize);
    b.data().iter().map(|&id| BmVoxel(id)).collect()
}

/// The baseline: block-mesh's greedy quads over the interior (quads only: no vertices, no AO).
pub fn block_mesh_quads(voxels: &[BmVoxel], buffer: &mut GreedyQuadsBuffer) -> usize {
    greedy_quads(voxels, &PaddedShape {}, [0; 3], [PADDED - 1; 3], &RIGHT_HANDED_Y_UP_CONFIG.faces, buffer);
    buffer.quads.num_quads()
}

pub fn new_block_mesh_buffer() -> GreedyQuadsBuffer {
    GreedyQuadsBuffer::new(PaddedShape::SIZE as usize)
}
