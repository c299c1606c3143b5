//! Light on real generated worlds (law: Seamless, law: Deterministic): a chunk's light from
//! its own padded voxels equals the light of the same voxels inside a 3×3×3-chunk block lit as
//! one; chunks lit in any order, on any thread count and on every SIMD path give the same bytes;
//! relighting after edits (a shaft dug into a cave, a lamp placed and removed near chunk borders)
//! equals lighting from scratch; a closed cave is dark, and a lamp inside lights it with exact
//! falloff.

use std::collections::{BTreeMap, VecDeque};
use strata_core::base::block::{self, BlockId};
use strata_core::base::simd::{self, SimdLevel};
use strata_core::gen3d::pipeline::Generator;
use strata_core::light::{
    LIGHT_MARGIN, LIGHT_PADDED_SIZE, LIGHT_SHELL, Light, LightBuffer, LightEdit, LightProps, LightScratch, OPAQUE,
    SkyExposure, light_chunk, light_region, relight_after_edit, sky_exposure,
};
use strata_core::preset::model::CaveMode;
use strata_core::{CHUNK_SIZE, ChunkCoord, IVec3, VoxelBuffer, WorldPreset};
use strata_tests::block_chunks;

/// A block id the tests make glow through the light table (no block of the core glows).
const LAMP: BlockId = 900;

fn props() -> LightProps {
    let mut p = LightProps::default_blocks();
    p.set(LAMP, OPAQUE, 15).expect("in range");
    p
}

/// Player edits over the generated world.
type Edits = BTreeMap<IVec3, BlockId>;

/// The world's voxels over `[min, min + size)` with `edits` applied, and the world's sky exposure
/// of their columns. Every generated voxel at or above `max(surface, sea level)` is air, so the
/// box is generated from its bottom up to the highest such bound (or non-clear edit) of its
/// columns and every column walked down from there with [`sky_exposure`]; the top layer is
/// checked clear.
fn sky_exposure_from_generator(
    g: &Generator,
    edits: &Edits,
    props: &LightProps,
    min: IVec3,
    size: IVec3,
) -> (VoxelBuffer, SkyExposure) {
    let grid = g.column_grid(min.x, min.z, size.x, size.z);
    let water = &g.preset().water;
    let sea = if water.enabled { water.sea_level } else { i32::MIN };
    let mut top = grid.columns.iter().map(|c| c.surface.max(sea)).max().unwrap_or(0).max(min.y + size.y) + 1;
    for (&p, &id) in edits {
        if !props.is_clear(id) && p.x >= min.x && p.z >= min.z && p.x < min.x + size.x && p.z < min.z + size.z {
            top = top.max(p.y + 2);
        }
    }
    let mut tall = g.generate_box(min, IVec3::new(size.x, top - min.y, size.z));
    for (&p, &id) in edits {
        tall.set(p, id);
    }
    for z in 0..size.z {
        for x in 0..size.x {
            let id = tall.get(IVec3::new(min.x + x, top - 1, min.z + z)).expect("inside");
            assert!(props.is_clear(id), "generated block {id} at the top of the exposure box");
        }
    }
    let mut sky = SkyExposure::default();
    sky_exposure(&tall, props, &vec![top; (size.x * size.z) as usize], &mut sky).expect("columns match");
    (tall.sub_buffer(min, size), sky)
}

/// The light of chunk `c` from its own padded voxels (62³) and exposure.
fn chunk_light(
    g: &Generator,
    edits: &Edits,
    props: &LightProps,
    c: ChunkCoord,
    scratch: &mut LightScratch,
) -> LightBuffer {
    let min = c.min_voxel() - IVec3::splat(LIGHT_MARGIN);
    let (voxels, sky) = sky_exposure_from_generator(g, edits, props, min, IVec3::splat(LIGHT_PADDED_SIZE));
    let mut out = LightBuffer::default();
    light_chunk(c, &voxels, &sky, props, &mut out, scratch).expect("padded chunk");
    out
}

fn presets() -> Vec<(&'static str, WorldPreset)> {
    // The places below were chosen on the terrain of preset format 1's default (five octaves),
    // where light spreads a lot around them; today's default terrain is rougher and differs there.
    let base = WorldPreset::format1_default();
    let mut v = vec![("format-1 default", base.clone())];
    let mut p = base.clone();
    p.seed = 77;
    p.caves.mode = CaveMode::None;
    p.caves.tunnel_strength = 1.0;
    p.caves.tunnel_width = 0.12;
    p.caves.allow_surface_breach = true;
    p.caves.min_depth = 0;
    v.push(("tunnels open to the sky", p));
    let mut p = base.clone();
    p.seed = 5;
    p.water.sea_level = 40;
    p.caves.min_depth = 0;
    p.caves.allow_surface_breach = true;
    p.caves.tunnel_strength = 1.0;
    p.caves.tunnel_width = 0.12;
    v.push(("high water over caves", p));
    let mut p = base;
    p.seed = 9;
    p.height.amplitude = 90.0;
    p.height.scale = 140.0;
    p.height.ridged_weight = 1.0;
    v.push(("cliffs", p));
    v
}

/// The corner of a 3×3×3 block whose centre chunk holds the surface at column (x, z), moved
/// `dy` chunks up or down.
fn corner_at(g: &Generator, x: i32, z: i32, dy: i32) -> ChunkCoord {
    let c = ChunkCoord::containing(IVec3::new(x, g.surface_height(x, z), z));
    ChunkCoord::new(c.x - 1, c.y - 1 + dy, c.z - 1)
}

/// How many voxels of `l` are neither full sky nor dark: where spreading, not the column pass,
/// decided the light.
fn partly_lit(l: &LightBuffer) -> usize {
    l.data().iter().filter(|&&b| b != 0 && b != 0xF0).count()
}

#[test]
fn a_chunk_alone_equals_the_block_it_sits_in() {
    let props = props();
    let mut scratch = LightScratch::new();
    for (name, preset) in presets() {
        let g = Generator::new(&preset).expect("valid preset");
        let mut spread = 0;
        for (x, z, dy) in [(16, 48, 0), (-300, 210, -1)] {
            let corner = corner_at(&g, x, z, dy);
            // The block lit as one, from its own padding: light of the block and its shell.
            let min = corner.min_voxel() - IVec3::splat(LIGHT_MARGIN);
            let (voxels, sky) = sky_exposure_from_generator(
                &g,
                &Edits::new(),
                &props,
                min,
                IVec3::splat(3 * CHUNK_SIZE + 2 * LIGHT_MARGIN),
            );
            let mut big = LightBuffer::default();
            light_region(&voxels, &sky, &props, &mut big, &mut scratch).expect("box");
            assert_eq!(big.min(), corner.min_voxel() - IVec3::splat(LIGHT_SHELL));
            for c in block_chunks(corner) {
                let alone = chunk_light(&g, &Edits::new(), &props, c, &mut scratch);
                spread += partly_lit(&alone);
                let m = alone.min();
                for (i, &b) in alone.data().iter().enumerate() {
                    let (s, i) = (alone.size(), i as i32);
                    let p = m + IVec3::new(i % s.x, i / (s.x * s.z), (i / s.x) % s.z);
                    assert_eq!(Some(Light(b)), big.get(p), "{name}: chunk {c:?} at {p:?}");
                }
            }
        }
        assert!(spread > 1000, "{name}: only {spread} voxels lit by spreading");
    }
}

fn shuffled(mut v: Vec<ChunkCoord>, seed: u64) -> Vec<ChunkCoord> {
    for i in (1..v.len()).rev() {
        let j = (strata_core::base::rng::hash1(seed, 11, i as i32) % (i as u64 + 1)) as usize;
        v.swap(i, j);
    }
    v
}

fn lights_on_threads(g: &Generator, chunks: &[ChunkCoord], threads: usize) -> BTreeMap<ChunkCoord, LightBuffer> {
    let props = props();
    let mut out = BTreeMap::new();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let props = &props;
                s.spawn(move || {
                    let mut scratch = LightScratch::new();
                    chunks
                        .iter()
                        .skip(t)
                        .step_by(threads)
                        .map(|&c| (c, chunk_light(g, &Edits::new(), props, c, &mut scratch)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for h in handles {
            out.extend(h.join().expect("worker panicked"));
        }
    });
    out
}

#[test]
fn any_order_thread_count_and_simd_path_give_the_same_light() {
    let (name, preset) = presets().swap_remove(1);
    let g = Generator::new(&preset).expect("valid preset");
    let corner = corner_at(&g, 16, 48, 0);
    let chunks: Vec<ChunkCoord> = block_chunks(corner).into_iter().step_by(2).collect();
    let one = lights_on_threads(&g, &chunks, 1);
    assert!(one.values().map(partly_lit).sum::<usize>() > 100, "{name}: too little spread light");
    assert_eq!(one, lights_on_threads(&g, &shuffled(chunks.clone(), 1), 3), "{name}");
    assert_eq!(one, lights_on_threads(&g, &shuffled(chunks.clone(), 2), 2), "{name}");
    for level in SimdLevel::available() {
        let mut scratch = LightScratch::new();
        for &c in &chunks {
            let l = simd::with_limit(level, || chunk_light(&g, &Edits::new(), &props(), c, &mut scratch));
            assert_eq!(l, one[&c], "{name}: {level:?} path, chunk {c:?}");
        }
    }
}

/// The lowest voxel of the first non-clear run at the top of column (x, z): its exposure.
fn exposure_at(g: &Generator, edits: &Edits, props: &LightProps, x: i32, z: i32) -> i32 {
    let (_, sky) = sky_exposure_from_generator(g, edits, props, IVec3::new(x, -600, z), IVec3::ONE);
    sky.get(x, z).expect("column")
}

/// Applies one edit, relights the chunks it can reach, and checks every chunk of `lights`
/// against its light from scratch; returns how many chunks other than the edited one changed.
fn edit_and_check(
    g: &Generator,
    edits: &mut Edits,
    props: &LightProps,
    lights: &mut BTreeMap<ChunkCoord, LightBuffer>,
    pos: IVec3,
    id: BlockId,
    scratch: &mut LightScratch,
) -> usize {
    let before = exposure_at(g, edits, props, pos.x, pos.z);
    edits.insert(pos, id);
    let after = exposure_at(g, edits, props, pos.x, pos.z);
    let edit = LightEdit { pos, exposure_before: before, exposure_after: after };
    let (m, s) = edit.region();
    let (voxels, sky) = sky_exposure_from_generator(g, edits, props, m, s);
    let affected: Vec<ChunkCoord> = edit.chunks().into_iter().filter(|c| lights.contains_key(c)).collect();
    let mut buffers: Vec<LightBuffer> = affected.iter().map(|c| lights[c].clone()).collect();
    let old = buffers.clone();
    let changed = relight_after_edit(&edit, &voxels, &sky, props, &mut buffers, scratch).expect("region");
    for (i, (c, b)) in affected.iter().zip(buffers).enumerate() {
        assert_eq!(changed.contains(&i), b != old[i], "{c:?}: reported change");
        lights.insert(*c, b);
    }
    let home = ChunkCoord::containing(pos);
    let mut others = 0;
    for (&c, l) in lights.iter() {
        let fresh = chunk_light(g, edits, props, c, scratch);
        assert!(*l == fresh, "after {id} at {pos:?}: chunk {c:?} differs from its light from scratch");
    }
    for &i in &changed {
        if affected[i] != home {
            others += 1;
        }
    }
    others
}

#[test]
fn relight_after_edits_equals_light_from_scratch() {
    let props = props();
    let (_, preset) = presets().swap_remove(0);
    let g = Generator::new(&preset).expect("valid preset");
    let mut scratch = LightScratch::new();
    // A column near a chunk corner, and the 2×3×2 chunks around it from the surface down.
    let (x, z) = (CHUNK_SIZE - 2, 2 * CHUNK_SIZE + 1);
    let surface = g.surface_height(x, z);
    let home = ChunkCoord::containing(IVec3::new(x, surface - 1, z));
    let mut lights = BTreeMap::new();
    for cy in home.y - 2..=home.y {
        for cz in home.z - 1..=home.z {
            for cx in home.x..=home.x + 1 {
                let c = ChunkCoord::new(cx, cy, cz);
                lights.insert(c, chunk_light(&g, &Edits::new(), &props, c, &mut scratch));
            }
        }
    }
    let mut edits = Edits::new();
    let mut crossed = 0;
    // Dig a shaft 40 deep: the sky comes down it, into whatever it opens.
    for d in 1..=40 {
        let pos = IVec3::new(x, surface - d, z);
        crossed += edit_and_check(&g, &mut edits, &props, &mut lights, pos, block::AIR, &mut scratch);
    }
    let bottom = IVec3::new(x, surface - 40, z);
    assert_eq!(lights[&ChunkCoord::containing(bottom)].get(bottom).map(Light::sky), Some(15), "shaft bottom");
    // Close the top again: the shaft goes dark below, with falloff from its sides.
    crossed +=
        edit_and_check(&g, &mut edits, &props, &mut lights, IVec3::new(x, surface - 1, z), block::STONE, &mut scratch);
    assert_eq!(lights[&ChunkCoord::containing(bottom)].get(bottom).map(Light::sky), Some(0), "closed shaft");
    // A lamp in the shaft next to the chunk border, then removed.
    let lamp = IVec3::new(x, surface - 20, z);
    crossed += edit_and_check(&g, &mut edits, &props, &mut lights, lamp, LAMP, &mut scratch);
    let across = lamp + IVec3::new(0, -1, 0);
    assert_eq!(lights[&ChunkCoord::containing(across)].get(across).map(Light::block), Some(14));
    crossed += edit_and_check(&g, &mut edits, &props, &mut lights, lamp, block::AIR, &mut scratch);
    assert_eq!(lights[&ChunkCoord::containing(across)].get(across).map(Light::block), Some(0));
    assert!(crossed > 0, "no edit changed light in a neighbouring chunk");
}

/// Steps from `from` to every voxel of `voxels` through non-opaque voxels (breadth first).
fn steps_through_air(voxels: &VoxelBuffer, props: &LightProps, from: IVec3) -> BTreeMap<IVec3, i32> {
    let mut d = BTreeMap::from([(from, 0)]);
    let mut queue = VecDeque::from([from]);
    while let Some(p) = queue.pop_front() {
        let k = d[&p];
        if k >= 15 {
            continue;
        }
        for n in [
            IVec3::new(1, 0, 0),
            IVec3::new(-1, 0, 0),
            IVec3::new(0, 1, 0),
            IVec3::new(0, -1, 0),
            IVec3::new(0, 0, 1),
            IVec3::new(0, 0, -1),
        ] {
            let q = p + n;
            if let Some(id) = voxels.get(q)
                && props.opacity(id) == 0
                && !d.contains_key(&q)
            {
                d.insert(q, k + 1);
                queue.push_back(q);
            }
        }
    }
    d
}

#[test]
fn a_closed_cave_is_dark_and_a_lamp_lights_it_with_exact_falloff() {
    let props = props();
    let mut p = WorldPreset::default();
    p.caves.mode = CaveMode::CellularAutomata;
    p.caves.tunnel_strength = 0.0;
    p.water.enabled = false;
    let g = Generator::new(&p).expect("valid preset");
    let mut scratch = LightScratch::new();
    // Chunks four below the surface: caves, no way up within reach.
    let found = (0..12).find_map(|i| {
        let (x, z) = (i * 97 + 16, -i * 61 + 16);
        let s = ChunkCoord::containing(IVec3::new(x, g.surface_height(x, z), z));
        let c = ChunkCoord::new(s.x, s.y - 4, s.z);
        let voxels = g.generate_chunk(c);
        let air = voxels.data().iter().filter(|&&b| b == block::AIR).count();
        (air > 500).then_some((c, voxels))
    });
    let (c, voxels) = found.expect("a chunk with caves four chunks down");
    let light = chunk_light(&g, &Edits::new(), &props, c, &mut scratch);
    assert!(light.data().iter().all(|&b| b == 0), "closed cave chunk {c:?} has light");
    // A lamp in the cave air nearest the chunk's centre.
    let centre = c.min_voxel() + IVec3::splat(CHUNK_SIZE / 2);
    let lamp = (0..voxels.data().len() as i32)
        .map(|i| {
            c.min_voxel() + IVec3::new(i % CHUNK_SIZE, i / (CHUNK_SIZE * CHUNK_SIZE), (i / CHUNK_SIZE) % CHUNK_SIZE)
        })
        .filter(|&q| voxels.get(q) == Some(block::AIR))
        .min_by_key(|&q| {
            let d = q - centre;
            (d.x.abs() + d.y.abs() + d.z.abs(), q.y, q.z, q.x)
        })
        .expect("cave air");
    let edits = Edits::from([(lamp, LAMP)]);
    let lit = chunk_light(&g, &edits, &props, c, &mut scratch);
    let (padded, _) = sky_exposure_from_generator(&g, &edits, &props, lit.min(), lit.size());
    let steps = steps_through_air(&padded, &props, lamp);
    let mut reached = 0;
    for (i, &b) in lit.data().iter().enumerate() {
        let (s, i) = (lit.size(), i as i32);
        let q = lit.min() + IVec3::new(i % s.x, i / (s.x * s.z), (i / s.x) % s.z);
        let want = steps.get(&q).map_or(0, |&k| (15 - k).max(0) as u8);
        assert_eq!(Light(b), Light::new(0, want), "voxel {q:?}, {:?} steps from the lamp", steps.get(&q));
        reached += (want > 0) as usize;
    }
    assert!(reached > 50, "the lamp lit only {reached} voxels");
}

/// `stream::query::light_at` (the query `StrataChunkWorld.get_light` answers with) gives, voxel by
/// voxel, the light of the chunk it lies in, lit from the chunk's padded box, with and without
/// edits (a shaft dug near a surface point, a lamp in the ground).
#[test]
fn the_light_query_equals_the_light_of_the_chunk() {
    use strata_core::base::edits::EditMap;
    use strata_core::stream::query::light_at;
    let props = props();
    let mut scratch = LightScratch::default();
    for (name, preset) in presets() {
        let g = Generator::new(&preset).unwrap();
        for (x, z) in [(5, 9), (-70, 33)] {
            let s = g.surface_height(x, z);
            let mut edits = Edits::new();
            for y in s - 12..=s {
                edits.insert(IVec3::new(x, y, z), block::AIR);
            }
            edits.insert(IVec3::new(x + 3, s - 4, z), LAMP);
            let mut map = EditMap::new();
            for (&p, &id) in &edits {
                map.set(p, id);
            }
            for (with_edits, e) in [(false, Edits::new()), (true, edits)] {
                let points = [
                    IVec3::new(x, s + 1, z),
                    IVec3::new(x, s - 6, z),
                    IVec3::new(x + 1, s - 12, z),
                    IVec3::new(x + 3, s - 3, z),
                    IVec3::new(x + 5, s - 5, z + 2),
                    IVec3::new(x - 4, s - 20, z - 3),
                ];
                for p in points {
                    let c = ChunkCoord::containing(p);
                    let chunk = chunk_light(&g, &e, &props, c, &mut scratch);
                    let want = chunk.get(p).expect("inside the chunk");
                    let got = light_at(&g, with_edits.then_some(&map), &props, p).expect("lit");
                    assert_eq!(got, want, "{name}: light at {p:?} (edits: {with_edits})");
                }
            }
        }
    }
}
