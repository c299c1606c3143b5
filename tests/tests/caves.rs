//! Caves, ores, water and scatter on the real generator: the ground stays whole without breach,
//! each cave mode makes caves, water never hangs, ores respect their depth and counts, and
//! decorations stand where they should.

use strata_core::base::block::{self, BlockId};
use strata_core::gen3d::pipeline::Generator;
use strata_core::gen3d::scatter::ScatterKind;
use strata_core::preset::model::{CaveMode, WorldPreset, default_biomes};
use strata_core::{CHUNK_SIZE, ChunkCoord, IVec3, VoxelBuffer};

/// A box of `size` whose top lies `above` voxels over the surface at its first column.
fn box_near_surface(g: &Generator, x: i32, z: i32, size: IVec3, above: i32) -> VoxelBuffer {
    let s = g.surface_height(x, z);
    g.generate_box(IVec3::new(x, s + above - size.y, z), size)
}

/// Calls `f(world position, block, column surface)` for every voxel of `b`.
fn each_voxel(g: &Generator, b: &VoxelBuffer, mut f: impl FnMut(IVec3, BlockId, i32)) {
    let m = b.min();
    for z in 0..b.size().z {
        for x in 0..b.size().x {
            let s = g.surface_height(m.x + x, m.z + z);
            for y in 0..b.size().y {
                f(m + IVec3::new(x, y, z), b.get_local(IVec3::new(x, y, z)), s);
            }
        }
    }
}

fn cave_air_count(g: &Generator, b: &VoxelBuffer) -> usize {
    let mut n = 0;
    each_voxel(g, b, |p, id, s| n += (p.y < s && id == block::AIR) as usize);
    n
}

#[test]
fn ground_stays_whole_without_surface_breach() {
    let mut cases = Vec::new();
    cases.push(WorldPreset::default());
    let mut p = WorldPreset::default();
    p.caves.mode = CaveMode::GameOfLife;
    cases.push(p);
    let mut p = WorldPreset::default();
    p.caves.min_depth = 0;
    p.caves.tunnel_strength = 1.0;
    p.caves.tunnel_width = 0.15;
    cases.push(p);
    let mut p = WorldPreset::default();
    p.caves.min_depth = 3;
    p.caves.cell_size = 1;
    p.water.sea_level = -200;
    cases.push(p);
    for preset in cases {
        let depth = preset.caves.min_depth.max(1) as i32;
        let g = Generator::new(&preset).unwrap();
        for (x, z) in [(0, 0), (700, -300)] {
            let b = box_near_surface(&g, x, z, IVec3::new(64, 112, 64), 16);
            let mut broken = Vec::new();
            each_voxel(&g, &b, |p, id, s| {
                if p.y >= s - depth && p.y < s && id == block::AIR {
                    broken.push(p);
                }
            });
            assert!(
                broken.is_empty(),
                "{:?} depth {depth}: cave air within min_depth of the surface at {:?}",
                preset.caves.mode,
                &broken[..broken.len().min(5)]
            );
            assert!(cave_air_count(&g, &b) > 50, "{:?}: no caves at all below ({x}, {z})", preset.caves.mode);
        }
    }
}

#[test]
fn each_cave_mode_makes_caves_and_none_makes_none() {
    let deep = |preset: &WorldPreset| {
        let g = Generator::new(preset).unwrap();
        let b = g.generate_box(IVec3::new(-40, -400, 17), IVec3::splat(80));
        b.data().iter().filter(|&&v| v == block::AIR).count() as f64 / b.data().len() as f64
    };
    let mut p = WorldPreset::default();
    p.caves.tunnel_strength = 0.0;
    let ca = deep(&p);
    assert!((0.02..0.25).contains(&ca), "cellular automata air fraction {ca}");
    // Exact Life runs only its rule: with the 4-5 mode's fill it thins out, so it is tried with
    // the settings of the shipped `life_caverns` preset (rule, fill, ticks).
    p.caves.mode = CaveMode::GameOfLife;
    p.caves.life_rule = "B14-19/S13-26".into();
    p.caves.fill_probability = 0.47;
    p.caves.life_ticks = 6;
    let life = deep(&p);
    assert!((0.02..0.25).contains(&life), "game of life air fraction {life}");
    p.caves.mode = CaveMode::None;
    assert_eq!(deep(&p), 0.0);
    p.caves.tunnel_strength = 1.0;
    let tunnels = deep(&p);
    assert!((0.002..0.2).contains(&tunnels), "tunnel air fraction {tunnels}");
    // Pocket removal: with a large minimum, fewer and larger components remain.
    let mut small = WorldPreset::default();
    small.caves.tunnel_strength = 0.0;
    small.caves.cell_size = 1;
    small.caves.min_pocket_volume = 0;
    let mut big = small.clone();
    big.caves.min_pocket_volume = 500;
    assert!(deep(&big) < deep(&small), "filling pockets removes air");
}

#[test]
fn water_never_hangs_over_caves_or_above_sea_level() {
    let mut p = WorldPreset::default();
    p.water.sea_level = 24;
    p.caves.min_depth = 0;
    p.caves.allow_surface_breach = true;
    p.caves.tunnel_strength = 1.0;
    p.caves.tunnel_width = 0.15;
    let g = Generator::new(&p).unwrap();
    let sea = p.water.sea_level;
    let mut water = 0;
    let mut cave_air_below_sea = 0;
    for (x, z) in [(0, 0), (-300, 900), (1200, 40)] {
        let b = g.generate_box(IVec3::new(x, sea - 72, z), IVec3::new(64, 96, 64));
        let surface = |q: IVec3| g.surface_height(q.x, q.z);
        each_voxel(&g, &b, |p, id, s| {
            if id == block::AIR && p.y < s && p.y < sea {
                cave_air_below_sea += 1;
            }
            if id != block::WATER {
                return;
            }
            water += 1;
            assert!(p.y < sea, "water above sea level at {p:?}");
            if let Some(below) = b.get(p - IVec3::new(0, 1, 0)) {
                assert_ne!(below, block::AIR, "water hangs over air at {p:?}");
            }
            for d in [IVec3::new(1, 0, 0), IVec3::new(-1, 0, 0), IVec3::new(0, 0, 1), IVec3::new(0, 0, -1)] {
                let q = p + d;
                if let Some(id) = b.get(q) {
                    assert!(!(id == block::AIR && q.y < surface(q)), "water at {p:?} runs into cave air at {q:?}");
                }
            }
        });
    }
    assert!(water > 1000, "the test area should hold water ({water})");
    assert!(cave_air_below_sea > 1000, "the test area should hold caves below sea level ({cave_air_below_sea})");
}

#[test]
fn ores_lie_below_their_depth() {
    let p = WorldPreset::default();
    let g = Generator::new(&p).unwrap();
    let kinds: Vec<(BlockId, i32)> =
        p.ores.kinds.iter().map(|k| (block::block_by_name(&k.block).unwrap(), k.min_depth as i32)).collect();
    let mut seen = vec![0usize; kinds.len()];
    for (x, z) in [(0, 0), (-500, 260)] {
        let b = box_near_surface(&g, x, z, IVec3::new(64, 128, 64), 8);
        each_voxel(&g, &b, |p, id, s| {
            if let Some(k) = kinds.iter().position(|&(ore, _)| ore == id) {
                seen[k] += 1;
                assert!(
                    p.y < s - kinds[k].1,
                    "{} at {p:?} is only {} below the surface",
                    block::block_info(id).name,
                    s - p.y
                );
            }
        });
    }
    assert!(seen[0] > 100 && seen[1] > 20, "ores should appear: {seen:?}");
}

#[test]
fn ore_volume_follows_cluster_counts() {
    let mut p = WorldPreset::default();
    p.caves.mode = CaveMode::None;
    p.caves.tunnel_strength = 0.0;
    let g = Generator::new(&p).unwrap();
    let (cells_x, cells_y, cells_z) = (4, 2, 4);
    let b = g.generate_box(
        IVec3::new(-64, -480, 32),
        IVec3::new(cells_x * CHUNK_SIZE, cells_y * CHUNK_SIZE, cells_z * CHUNK_SIZE),
    );
    let cells = (cells_x * cells_y * cells_z) as f64;
    for k in &p.ores.kinds {
        let id = block::block_by_name(&k.block).unwrap();
        let per_cell = b.data().iter().filter(|&&v| v == id).count() as f64 / cells;
        let (lo, hi) = (k.clusters_per_chunk_min as f64, k.clusters_per_chunk_max as f64);
        let size = k.cluster_size as f64;
        // Clusters overlap each other and earlier kinds, so allow a margin below the minimum.
        assert!(
            per_cell <= hi * size + 1.0 && per_cell >= 0.6 * lo * size,
            "{}: {per_cell} voxels per cell, clusters {lo}..{hi} of {size}",
            k.block
        );
        let mean = (lo + hi) / 2.0 * size;
        assert!(
            (per_cell - mean).abs() <= 0.35 * mean + 2.0,
            "{}: {per_cell} voxels per cell, expected about {mean}",
            k.block
        );
    }
}

#[test]
fn scatter_is_deterministic_and_each_instance_belongs_to_its_chunk() {
    let g = Generator::new(&WorldPreset::default()).unwrap();
    let mut total = 0;
    for cx in -2..2 {
        for cz in -2..2 {
            let s = g.surface_height(cx * CHUNK_SIZE + 16, cz * CHUNK_SIZE + 16);
            for cy in s.div_euclid(CHUNK_SIZE) - 1..=s.div_euclid(CHUNK_SIZE) + 1 {
                let c = ChunkCoord::new(cx, cy, cz);
                let a = g.scatter_chunk(c);
                assert_eq!(a, g.scatter_chunk(c));
                for i in &a {
                    assert_eq!(ChunkCoord::containing(i.base_voxel()), c);
                    assert!((0.0..std::f32::consts::TAU).contains(&i.rotation_y) && (0.75..1.25).contains(&i.scale));
                }
                total += a.len();
            }
        }
    }
    // The per-chunk lists partition the per-column list.
    let all = g.scatter_columns(-2 * CHUNK_SIZE, -2 * CHUNK_SIZE, 4 * CHUNK_SIZE, 4 * CHUNK_SIZE);
    assert!(total <= all.len() && total > 0, "{total} of {}", all.len());
}

#[test]
fn scatter_avoids_water_and_bare_rock() {
    let mut p = WorldPreset::default();
    p.water.sea_level = 12;
    let g = Generator::new(&p).unwrap();
    let all = g.scatter_columns(-128, -128, 256, 256);
    assert!(all.len() > 100);
    for i in &all {
        let base = i.base_voxel();
        let col = g.column(base.x, base.z);
        assert!(col.surface >= p.water.sea_level, "{i:?} stands under water");
        if i.kind != ScatterKind::Rock {
            assert_ne!(col.surface_block, block::STONE, "{i:?} grows on bare rock");
        }
    }
    for i in all.iter().step_by(7).take(40) {
        let base = i.base_voxel();
        assert_eq!(g.voxel_at(base), block::AIR, "{i:?} stands in something");
        assert!(block::is_solid(g.voxel_at(base - IVec3::new(0, 1, 0))), "{i:?} floats");
    }
}

#[test]
fn forests_have_more_trees_than_deserts() {
    let one_biome = |name: &str| {
        let mut p = WorldPreset::default();
        p.biomes.table = default_biomes().into_iter().filter(|b| b.name == name).collect();
        p.water.sea_level = -1000;
        let g = Generator::new(&p).unwrap();
        let all = g.scatter_columns(0, 0, 256, 256);
        let of = |k: ScatterKind| all.iter().filter(|i| i.kind == k).count();
        (of(ScatterKind::Tree), of(ScatterKind::Flower))
    };
    let (forest_trees, forest_flowers) = one_biome("forest");
    let (desert_trees, desert_flowers) = one_biome("desert");
    let (plains_trees, plains_flowers) = one_biome("plains");
    assert!(forest_trees > 400, "forest trees {forest_trees}");
    assert_eq!(desert_trees, 0);
    assert!(plains_trees < forest_trees / 4, "plains {plains_trees} vs forest {forest_trees}");
    assert!(
        plains_flowers > forest_flowers && forest_flowers > desert_flowers,
        "flowers: plains {plains_flowers}, forest {forest_flowers}, desert {desert_flowers}"
    );
}
