//! A whole 32³ chunk, voxels to mesh: Strata (`Generator::generate_padded_chunk` + the greedy
//! mesher) against a naive pipeline (a `noise` 5-octave Perlin fBm height evaluated for every
//! voxel of the padded 34³ box, layers by depth, then block-mesh `greedy_quads`).
//!
//! The naive pipeline makes simpler terrain (no biomes, caves, ores, AO or vertex arrays): it is
//! the cost floor of the obvious approach, not the same output.
//!
//! `strata_worker` is what a streaming worker does for a chunk shown in Godot: the same, plus the
//! chunk's scatter and the mesh packed into Godot's surface streams (`mesh::bytes`).
//!
//! `worker_area` runs the streaming worker over the 4 × 3 × 4 chunks around the origin's surface
//! for the default world and for the same world with cottages, ruins and crypts in most cells
//! (`structures`): the cost of structures per chunk, side by side; `generate_area` and
//! `mesh_area` split it into generation (placing and stamping) and meshing (the faces the
//! structures add). `forest` is the default world with trees of blocks on
//! (`trees.enabled`), over the 4 × 3 × 4 chunks around the surface of the forest biome nearest
//! the origin, and `plain_at_forest` the default world over the same chunks: what the trees cost.
//!
//! Run: `cargo bench -p strata-core --bench chunk_pipeline`.

mod common;

use noise::{Fbm, MultiFractal, NoiseFn, Perlin};
use std::hint::black_box;
use std::sync::LazyLock;
use strata_core::base::block::{self, BlockId};
use strata_core::gen3d::columns::ColumnGrid;
use strata_core::gen3d::pipeline::Generator;
use strata_core::gen3d::scratch::GenScratch;
use strata_core::mesh::bytes::MeshBytes;
use strata_core::mesh::{ChunkMesh, Mesher};
use strata_core::{ChunkCoord, IVec3, VoxelBuffer};

static GEN: LazyLock<Generator> = LazyLock::new(common::generator);
static COORDS: LazyLock<Vec<ChunkCoord>> =
    LazyLock::new(|| common::CHUNK_COLUMNS.iter().map(|&c| common::surface_chunk(&GEN, c)).collect());

const ARGS: [usize; 4] = [0, 1, 2, 3];

fn main() {
    divan::main();
}

/// Strata: generate the padded chunk, mesh it.
#[divan::bench(args = ARGS, sample_count = 30)]
fn strata(bencher: divan::Bencher, chunk: usize) {
    let c = COORDS[chunk];
    let mut padded = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
    let mut mesher = Mesher::new();
    let mut mesh = ChunkMesh::default();
    let mut scratch = GenScratch::default();
    bencher.bench_local(|| {
        GEN.generate_padded_chunk_with(black_box(c), &mut padded, &mut scratch);
        mesher.mesh(&padded, &mut mesh);
        black_box(mesh.quad_count())
    });
}

/// Strata, as a streaming worker for Godot: one column pass (which also tells sky apart),
/// stages, scatter from the same columns, mesh, and the mesh packed into Godot's streams (into
/// reused buffers, as the streamer's workers do with the buffers `ChunkWorld` hands back).
#[divan::bench(args = ARGS, sample_count = 30)]
fn strata_worker(bencher: divan::Bencher, chunk: usize) {
    let c = COORDS[chunk];
    let mut padded = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
    let mut columns = ColumnGrid { min_x: 0, min_z: 0, size_x: 0, size_z: 0, columns: Vec::new() };
    let mut mesher = Mesher::new();
    let mut mesh = ChunkMesh::default();
    // Reused like the streamer's recycled buffers.
    let mut packed = MeshBytes::default();
    let mut scratch = GenScratch::default();
    bencher.bench_local(|| {
        // A chunk from nothing: no column pass kept from the last sample.
        scratch.forget_column_passes();
        let sky = GEN.generate_padded_chunk_unless_sky(black_box(c), &mut padded, &mut columns, &mut scratch);
        let scatter = if sky { Vec::new() } else { GEN.scatter_chunk_with_columns(c, &columns) };
        mesher.mesh(&padded, &mut mesh);
        packed.pack(&mesh);
        black_box((scatter.len(), packed.opaque.as_ref().map(|s| s.vertex_count)))
    });
}

/// The default world with structures in most cells (a structure-heavy preset).
fn structure_heavy() -> Generator {
    use strata_core::preset::model::{StructurePlacement, StructureRule, WorldPreset};
    let rule = |structure: &str, placement, spacing, sink| StructureRule {
        structure: structure.into(),
        placement,
        spacing,
        chance: 0.9,
        sink,
        ..Default::default()
    };
    let mut p = WorldPreset::default();
    p.structures.rules = vec![
        rule("cottage", StructurePlacement::Surface, 40, 3),
        rule("ruin", StructurePlacement::Surface, 56, 1),
        rule("crypt", StructurePlacement::Underground, 48, 0),
    ];
    Generator::new(&p).expect("structure preset")
}

static STRUCTURES: LazyLock<Generator> = LazyLock::new(structure_heavy);

/// The default world with trees of blocks.
static FOREST: LazyLock<Generator> = LazyLock::new(|| {
    let mut p = strata_core::preset::model::WorldPreset::default();
    p.trees.enabled = true;
    Generator::new(&p).expect("forest preset")
});

/// The chunk column of the forest biome nearest the origin (on a grid of chunks).
static FOREST_CHUNK: LazyLock<(i32, i32)> = LazyLock::new(|| {
    let forest = GEN.biomes().iter().position(|b| b.name == "forest").expect("a forest biome") as u8;
    (0..64)
        .flat_map(|r| (-r..=r).flat_map(move |i| [(i, -r), (i, r), (-r, i), (r, i)]))
        .find(|&(cx, cz)| GEN.biome_index_at(cx * 32 + 16, cz * 32 + 16) == forest)
        .expect("a forest chunk")
});

/// The 4 × 3 × 4 chunks around the default world's surface at chunk column `(x0, z0)`.
fn area_coords_at((x0, z0): (i32, i32)) -> Vec<ChunkCoord> {
    let base = common::surface_chunk(&GEN, (x0, z0));
    (0..4)
        .flat_map(|x| (-1..2).flat_map(move |y| (0..4).map(move |z| ChunkCoord::new(x0 + x, base.y + y, z0 + z))))
        .collect()
}

/// The 4 × 3 × 4 chunks around the default world's surface at the origin.
fn area_coords() -> Vec<ChunkCoord> {
    area_coords_at((0, 0))
}

/// The generator and the chunks of a world of the area benches.
fn area_world(world: &str) -> (&'static Generator, Vec<ChunkCoord>) {
    match world {
        "plain" => (&GEN, area_coords()),
        "structures" => (&STRUCTURES, area_coords()),
        "plain_at_forest" => (&GEN, area_coords_at(*FOREST_CHUNK)),
        _ => (&FOREST, area_coords_at(*FOREST_CHUNK)),
    }
}

const AREA_WORLDS: [&str; 4] = ["plain", "structures", "plain_at_forest", "forest"];

/// The streaming worker over 4 × 3 × 4 chunks around the surface at the origin, with and
/// without structures.
#[divan::bench(args = AREA_WORLDS, sample_count = 10)]
fn worker_area(bencher: divan::Bencher, world: &str) {
    let (g, coords) = area_world(world);
    let mut padded = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
    let mut columns = ColumnGrid::default();
    let mut mesher = Mesher::new();
    let mut mesh = ChunkMesh::default();
    let mut scratch = GenScratch::default();
    bencher.bench_local(|| {
        // The area from nothing: its chunks share column passes, none kept from the last sample.
        scratch.forget_column_passes();
        let mut quads = 0;
        for &c in &coords {
            let sky = g.generate_padded_chunk_unless_sky(c, &mut padded, &mut columns, &mut scratch);
            let scatter = if sky { Vec::new() } else { g.scatter_chunk_with_columns(c, &columns) };
            mesher.mesh(&padded, &mut mesh);
            quads += mesh.quad_count() + scatter.len();
        }
        black_box(quads)
    });
}

/// [`worker_area`]'s generation alone (no scatter, no mesh): what placing and stamping cost.
#[divan::bench(args = AREA_WORLDS, sample_count = 10)]
fn generate_area(bencher: divan::Bencher, world: &str) {
    let (g, coords) = area_world(world);
    let mut padded = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
    let mut columns = ColumnGrid::default();
    let mut scratch = GenScratch::default();
    bencher.bench_local(|| {
        // The area from nothing: its chunks share column passes, none kept from the last sample.
        scratch.forget_column_passes();
        let mut sky = 0;
        for &c in &coords {
            sky += g.generate_padded_chunk_unless_sky(c, &mut padded, &mut columns, &mut scratch) as usize;
        }
        black_box(sky)
    });
}

/// Baseline: per-voxel scalar fBm height, then block-mesh greedy quads.
#[divan::bench(args = ARGS, sample_count = 30)]
fn naive_baseline(bencher: divan::Bencher, chunk: usize) {
    let c = COORDS[chunk];
    let height = Fbm::<Perlin>::new(7).set_octaves(5).set_frequency(1.0 / 128.0);
    let base = GEN.surface_height(c.min_voxel().x + 16, c.min_voxel().z + 16) as f64;
    let mut voxels = vec![common::BmVoxel(block::AIR); (common::PADDED as usize).pow(3)];
    let mut buffer = common::new_block_mesh_buffer();
    let n = common::PADDED as i32;
    bencher.bench_local(|| {
        let min = black_box(c).min_voxel() - IVec3::ONE;
        for y in 0..n {
            for z in 0..n {
                for x in 0..n {
                    let (wx, wy, wz) = (min.x + x, min.y + y, min.z + z);
                    let h = base + 24.0 * height.get([wx as f64, wz as f64]);
                    let depth = h - wy as f64;
                    let id: BlockId = if depth > 4.0 {
                        block::STONE
                    } else if depth > 1.0 {
                        block::DIRT
                    } else if depth > 0.0 {
                        block::GRASS
                    } else {
                        block::AIR
                    };
                    voxels[((y * n + z) * n + x) as usize] = common::BmVoxel(id);
                }
            }
        }
        black_box(common::block_mesh_quads(&voxels, &mut buffer))
    });
}

/// [`worker_area`]'s meshing alone, over the chunks generated beforehand: structures add faces
/// (walls, windows, roofs), and meshing costs by the faces; the quads of both worlds are
/// printed first.
#[divan::bench(args = AREA_WORLDS, sample_count = 10)]
fn mesh_area(bencher: divan::Bencher, world: &str) {
    let (g, coords) = area_world(world);
    let mut padded = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
    let mut columns = ColumnGrid::default();
    let mut scratch = GenScratch::default();
    let chunks: Vec<VoxelBuffer> = coords
        .into_iter()
        .map(|c| {
            g.generate_padded_chunk_unless_sky(c, &mut padded, &mut columns, &mut scratch);
            padded.clone()
        })
        .collect();
    let mut mesher = Mesher::new();
    let mut mesh = ChunkMesh::default();
    let quads: usize = chunks
        .iter()
        .map(|p| {
            mesher.mesh(p, &mut mesh);
            mesh.quad_count()
        })
        .sum();
    eprintln!("mesh_area {world}: {quads} quads in {} chunks", chunks.len());
    bencher.bench_local(|| {
        let mut quads = 0;
        for p in &chunks {
            mesher.mesh(p, &mut mesh);
            quads += mesh.quad_count();
        }
        black_box(quads)
    });
}
