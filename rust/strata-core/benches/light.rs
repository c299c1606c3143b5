//! Light of one 32³ chunk (with its one-voxel shell, from the chunk padded by 15 voxels) from
//! real generated voxels of the default preset: a surface chunk, an underground chunk with
//! tunnels, a chunk of open sky; the sky exposure of a surface chunk's padded columns from the
//! generator's bound; and relighting after one edit (digging a surface voxel near a chunk corner,
//! placing a glowing block in a cave).
//!
//! Run: `cargo bench -p strata-core --bench light`. Prints how many voxels each chunk's light
//! touches before the timings.

mod common;

use std::hint::black_box;
use std::sync::LazyLock;
use strata_core::base::block::{AIR, BlockId};
use strata_core::base::edits::EditMap;
use strata_core::gen3d::pipeline::Generator;
use strata_core::light::{
    LIGHT_MARGIN, LIGHT_PADDED_SIZE, LightBuffer, LightEdit, LightProps, LightScratch, OPAQUE, SkyExposure,
    light_chunk, relight_after_edit, sky_exposure,
};
use strata_core::stream::lighting::{ChunkLighter, edits_for_light};
use strata_core::stream::voxel_cache::{DEFAULT_CACHE_BYTES, VoxelCache};
use strata_core::{CHUNK_SIZE, ChunkCoord, IVec3, VoxelBuffer};

/// A block id the benches make glow through the light table.
const LAMP: BlockId = 900;

static PROPS: LazyLock<LightProps> = LazyLock::new(|| {
    let mut p = LightProps::default_blocks();
    p.set(LAMP, OPAQUE, 15).expect("in range");
    p
});

/// The highest y at which the generator may put a non-air voxel in each column of the box, plus
/// one: at or above `max(surface, sea level)` every generated voxel is air.
fn bounds(g: &Generator, min: IVec3, size: IVec3) -> Vec<i32> {
    let grid = g.column_grid(min.x, min.z, size.x, size.z);
    let water = &g.preset().water;
    let sea = if water.enabled { water.sea_level } else { i32::MIN };
    grid.columns.iter().map(|c| c.surface.max(sea)).collect()
}

/// The world's voxels over `[min, min + size)` with `edits` applied, and the world's sky
/// exposure of their columns: generated from the box's bottom up to the highest bound, then
/// walked down from there.
fn region_with_sky(g: &Generator, min: IVec3, size: IVec3, edits: &[(IVec3, BlockId)]) -> (VoxelBuffer, SkyExposure) {
    let mut top = bounds(g, min, size).into_iter().max().unwrap_or(0).max(min.y + size.y);
    for &(p, id) in edits {
        if !PROPS.is_clear(id) {
            top = top.max(p.y + 1);
        }
    }
    let mut tall = g.generate_box(min, IVec3::new(size.x, top - min.y, size.z));
    for &(p, id) in edits {
        tall.set(p, id);
    }
    let mut sky = SkyExposure::default();
    sky_exposure(&tall, &PROPS, &vec![top; (size.x * size.z) as usize], &mut sky).expect("columns match");
    (tall.sub_buffer(min, size), sky)
}

fn padded(c: ChunkCoord) -> (IVec3, IVec3) {
    (c.min_voxel() - IVec3::splat(LIGHT_MARGIN), IVec3::splat(LIGHT_PADDED_SIZE))
}

struct Case {
    chunk: ChunkCoord,
    voxels: VoxelBuffer,
    sky: SkyExposure,
}

fn case(g: &Generator, chunk: ChunkCoord) -> Case {
    let (m, s) = padded(chunk);
    let (voxels, sky) = region_with_sky(g, m, s, &[]);
    Case { chunk, voxels, sky }
}

/// The surface chunk, the tunnel chunk (of a few under the surface chunks, the one with the
/// most air), the sky chunk (two above the surface chunk).
static CASES: LazyLock<Vec<Case>> = LazyLock::new(|| {
    let g = common::generator();
    let surface = common::surface_chunk(&g, common::CHUNK_COLUMNS[0]);
    let cave = common::CHUNK_COLUMNS
        .iter()
        .flat_map(|&col| {
            let s = common::surface_chunk(&g, col);
            [2, 3].map(|d| ChunkCoord::new(s.x, s.y - d, s.z))
        })
        .max_by_key(|&c| g.generate_chunk(c).data().iter().filter(|&&b| b == AIR).count())
        .expect("candidates");
    let sky = ChunkCoord::new(surface.x, surface.y + 2, surface.z);
    [surface, cave, sky].into_iter().map(|c| case(&g, c)).collect()
});

const NAMES: [&str; 3] = ["surface", "cave", "sky"];

/// An edit, the voxels and sky its relight needs, and the light buffers of the chunks it can change.
struct EditCase {
    edit: LightEdit,
    voxels: VoxelBuffer,
    sky: SkyExposure,
    lights: Vec<LightBuffer>,
}

fn edit_case(g: &Generator, pos: IVec3, id: BlockId) -> EditCase {
    let one = IVec3::ONE;
    let (_, before) = region_with_sky(g, pos, one, &[]);
    let (_, after) = region_with_sky(g, pos, one, &[(pos, id)]);
    let edit = LightEdit {
        pos,
        exposure_before: before.get(pos.x, pos.z).expect("column"),
        exposure_after: after.get(pos.x, pos.z).expect("column"),
    };
    let (m, s) = edit.region();
    let (voxels, sky) = region_with_sky(g, m, s, &[(pos, id)]);
    let mut scratch = LightScratch::new();
    let lights = edit
        .chunks()
        .into_iter()
        .map(|c| {
            let (cm, cs) = padded(c);
            let (v, sky) = region_with_sky(g, cm, cs, &[]);
            let mut out = LightBuffer::default();
            light_chunk(c, &v, &sky, &PROPS, &mut out, &mut scratch).expect("padded");
            out
        })
        .collect();
    EditCase { edit, voxels, sky, lights }
}

/// Digging the top voxel of the surface chunk's column at local (2, 2), near the chunk's corner;
/// placing a lamp in the air of the cave chunk nearest its centre.
static EDITS: LazyLock<Vec<EditCase>> = LazyLock::new(|| {
    let g = common::generator();
    let surface = CASES[0].chunk.min_voxel();
    let (x, z) = (surface.x + 2, surface.z + 2);
    let dig = IVec3::new(x, g.surface_height(x, z) - 1, z);
    let cave = &CASES[1];
    let centre = cave.chunk.min_voxel() + IVec3::splat(CHUNK_SIZE / 2);
    let mut air = Vec::new();
    for y in 0..CHUNK_SIZE {
        for z in 0..CHUNK_SIZE {
            for x in 0..CHUNK_SIZE {
                let p = cave.chunk.min_voxel() + IVec3::new(x, y, z);
                if cave.voxels.get(p) == Some(AIR) {
                    let d = p - centre;
                    air.push((d.x.abs() + d.y.abs() + d.z.abs(), p));
                }
            }
        }
    }
    let lamp = air.iter().min_by_key(|(d, p)| (*d, p.y, p.z, p.x)).map_or(centre, |&(_, p)| p);
    vec![edit_case(&g, dig, AIR), edit_case(&g, lamp, LAMP)]
});

const EDIT_NAMES: [&str; 2] = ["dig_surface_corner", "lamp_in_cave"];

fn main() {
    for (name, c) in NAMES.iter().zip(CASES.iter()) {
        let mut out = LightBuffer::default();
        light_chunk(c.chunk, &c.voxels, &c.sky, &PROPS, &mut out, &mut LightScratch::new()).expect("padded");
        let lit_below_sky = out.data().iter().filter(|&&b| b != 0 && b != 0xF0).count();
        let air = c.voxels.data().iter().filter(|&&b| b == AIR).count();
        println!(
            "light {name} chunk=({},{},{}) padded_air={air} sky15={} partly_lit={lit_below_sky} dark={}",
            c.chunk.x,
            c.chunk.y,
            c.chunk.z,
            out.data().iter().filter(|&&b| b == 0xF0).count(),
            out.data().iter().filter(|&&b| b == 0).count(),
        );
    }
    for (name, e) in EDIT_NAMES.iter().zip(EDITS.iter()) {
        let mut lights = e.lights.clone();
        let changed = relight_after_edit(&e.edit, &e.voxels, &e.sky, &PROPS, &mut lights, &mut LightScratch::new())
            .expect("region");
        println!(
            "relight {name} at {:?} exposure {} -> {} region {:?} chunks {} changed {}",
            e.edit.pos,
            e.edit.exposure_before,
            e.edit.exposure_after,
            e.voxels.size(),
            e.lights.len(),
            changed.len()
        );
    }
    divan::main();
}

/// `light_chunk`: the 34³ light of a chunk (0 surface, 1 cave, 2 sky) from its 62³ padded
/// voxels and sky exposure, with a table that has an emitter (so the voxels are searched for
/// emitters, as they will be once a block library adds glowing blocks).
#[divan::bench(args = [0, 1, 2])]
fn light_chunk_of(bencher: divan::Bencher, i: usize) {
    bench_chunk(bencher, i, &PROPS);
}

/// The same with today's blocks (`LightProps::default_blocks`: nothing glows, no emitter search).
#[divan::bench(args = [0, 1, 2])]
fn light_chunk_no_emitters(bencher: divan::Bencher, i: usize) {
    bench_chunk(bencher, i, &LightProps::default_blocks());
}

fn bench_chunk(bencher: divan::Bencher, i: usize, props: &LightProps) {
    let c = &CASES[i];
    let (mut out, mut scratch) = (LightBuffer::default(), LightScratch::new());
    bencher.bench_local(|| {
        light_chunk(c.chunk, black_box(&c.voxels), &c.sky, props, &mut out, &mut scratch).expect("padded");
        black_box(out.data()[0])
    });
}

/// `sky_exposure` of the surface chunk's 62² padded columns, walking down from the generator's
/// bound (`max(surface, sea level)`) where it lies inside the box.
#[divan::bench]
fn sky_exposure_surface(bencher: divan::Bencher) {
    let c = &CASES[0];
    let g = common::generator();
    let (m, s) = padded(c.chunk);
    let top = m.y + s.y;
    let from: Vec<i32> = bounds(&g, m, s).into_iter().map(|b| if b <= top { b } else { b.max(top + 1) }).collect();
    let mut sky = SkyExposure::default();
    bencher.bench_local(|| {
        sky_exposure(black_box(&c.voxels), &PROPS, &from, &mut sky).expect("columns match");
        black_box(sky.heights()[0])
    });
}

/// `relight_after_edit`: the light of the box one edit can change, copied into the chunks'
/// buffers it overlaps (4 for the dig near a corner).
#[divan::bench(args = [0, 1])]
fn relight_one_edit(bencher: divan::Bencher, i: usize) {
    let e = &EDITS[i];
    let mut scratch = LightScratch::new();
    bencher.with_inputs(|| e.lights.clone()).bench_local_refs(|lights| {
        black_box(
            relight_after_edit(&e.edit, black_box(&e.voxels), &e.sky, &PROPS, lights, &mut scratch).expect("region"),
        )
    });
}

/// What a worker spends to light a chunk for its mesh ([`ChunkLighter::light_chunk`]): the
/// chunk's 62³ box generated, the slabs above it where the ground rises higher, the exposure,
/// and propagation (0 surface, 1 cave; the sky chunk is never lit, it shows no faces).
#[divan::bench(args = [0, 1])]
fn streamed_chunk_light(bencher: divan::Bencher, i: usize) {
    let g = common::generator();
    let chunk = CASES[i].chunk;
    let (min, size) = ChunkLighter::input_box(chunk);
    let edits = edits_for_light(&EditMap::new(), min, size);
    let props = LightProps::default_blocks();
    let mut lighter = ChunkLighter::default();
    bencher.bench_local(|| {
        black_box(lighter.light_chunk(&g, None, black_box(chunk), &edits, &props).expect("lit").data()[0]);
    });
}

/// The same with the workers' voxel cache warm (the chunk's neighbours generated already, as
/// when the view fills or an edit relights a loaded chunk): the box is copied from it.
#[divan::bench(args = [0, 1])]
fn streamed_chunk_light_cached(bencher: divan::Bencher, i: usize) {
    let g = common::generator();
    let chunk = CASES[i].chunk;
    let (min, size) = ChunkLighter::input_box(chunk);
    let edits = edits_for_light(&EditMap::new(), min, size);
    let props = LightProps::default_blocks();
    let cache = VoxelCache::new(DEFAULT_CACHE_BYTES);
    let mut lighter = ChunkLighter::default();
    bencher.bench_local(|| {
        black_box(lighter.light_chunk(&g, Some(&cache), black_box(chunk), &edits, &props).expect("lit").data()[0]);
    });
}

/// The baseline beside it: generating the chunk's own padded 34³ box, as a worker does for the
/// mesh without light.
#[divan::bench(args = [0, 1])]
fn padded_chunk_generation(bencher: divan::Bencher, i: usize) {
    let g = common::generator();
    let chunk = CASES[i].chunk;
    let mut out = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
    let mut scratch = strata_core::gen3d::scratch::GenScratch::default();
    bencher.bench_local(|| {
        g.generate_padded_chunk_with(black_box(chunk), &mut out, &mut scratch);
        black_box(out.data()[0]);
    });
}
