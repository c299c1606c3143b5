//! Trees of the world's blocks in generated worlds: identical whichever chunk is generated first
//! (a tree across a chunk corner equals the same region generated whole), standing on the
//! surface whatever the caves do, every shipped species in a forest, the scatter's mesh trees
//! gone where block trees grow, forests thinning with the climate, and the sky shortcut aware
//! of crowns (laws: Deterministic, Seamless).

use crate::base::block::{AIR, is_solid};
use crate::base::block_library::default_library;
use crate::base::chunk::VoxelBuffer;
use crate::base::coords::{CHUNK_SIZE, ChunkCoord, IVec3};
use crate::gen3d::columns::ColumnGrid;
use crate::gen3d::pipeline::Generator;
use crate::gen3d::scatter::ScatterKind;
use crate::gen3d::scratch::GenScratch;
use crate::gen3d::structures::Placement;
use crate::preset::model::WorldPreset;
use std::collections::{BTreeMap, HashSet};

/// The default world with block trees on.
fn forest_preset() -> WorldPreset {
    let mut p = WorldPreset::default();
    p.trees.enabled = true;
    p
}

fn id(name: &str) -> u16 {
    default_library().id_of(name).unwrap()
}

fn trunk(p: &Placement) -> IVec3 {
    IVec3::new(p.min.x + p.size.x / 2, p.min.y, p.min.z + p.size.z / 2)
}

/// The chunks a placement's box meets.
fn chunks_of(p: &Placement) -> Vec<ChunkCoord> {
    let (lo, hi) = (ChunkCoord::containing(p.min), ChunkCoord::containing(p.max() - IVec3::ONE));
    let mut out = Vec::new();
    for y in lo.y..=hi.y {
        for z in lo.z..=hi.z {
            for x in lo.x..=hi.x {
                out.push(ChunkCoord::new(x, y, z));
            }
        }
    }
    out
}

#[test]
fn a_tree_across_a_chunk_corner_is_the_same_whichever_chunk_comes_first() {
    let p = forest_preset();
    let g = Generator::new(&p).unwrap();
    let crosses = |lo: i32, hi: i32| lo.div_euclid(CHUNK_SIZE) != (hi - 1).div_euclid(CHUNK_SIZE);
    let trees = g.trees_in((-600, -600), (600, 600));
    assert!(trees.len() > 500, "{} trees", trees.len());
    // Trunks right at a corner, so the crown lies in four chunk columns.
    let at_corner: Vec<&Placement> = trees
        .iter()
        .filter(|q| {
            let t = trunk(q);
            crosses(t.x - 1, t.x + 2) && crosses(t.z - 1, t.z + 2) && crosses(q.min.x, q.max().x)
        })
        .take(3)
        .collect();
    assert!(!at_corner.is_empty(), "no tree at a chunk corner");
    let (log, leaves) = (id("log"), id("leaves"));
    for q in at_corner {
        let chunks = chunks_of(q);
        assert!(chunks.len() >= 4, "{q:?} spans {} chunks", chunks.len());
        let (lo, hi) = (chunks[0], chunks[chunks.len() - 1]);
        let min = lo.min_voxel();
        let size = hi.min_voxel() + IVec3::splat(CHUNK_SIZE) - min;
        let whole = g.generate_box(min, size);
        // The tree is there: its trunk's base is log on the ground, and it has leaves.
        let t = trunk(q);
        assert_eq!(whole.get(t), Some(log), "{q:?}");
        assert!(whole.get(t - IVec3::new(0, 1, 0)).is_some_and(is_solid), "{q:?} stands on the ground");
        let tree_box = whole.sub_buffer(q.min, q.size);
        let leaf_count = tree_box.data().iter().filter(|&&b| b == leaves).count();
        let species = g.tree_species_name(q).unwrap();
        assert!(leaf_count > 0, "{species} without leaves");
        // Each chunk alone, in reverse order, by a fresh generator whose caches are empty.
        let fresh = Generator::new(&p).unwrap();
        for c in chunks.iter().rev() {
            let alone = fresh.generate_chunk(*c);
            assert_eq!(alone, whole.sub_buffer(c.min_voxel(), IVec3::splat(CHUNK_SIZE)), "chunk {c:?} of {q:?}");
        }
        // And padded chunks through the sky shortcut, forward.
        let (mut padded, mut columns, mut scratch) =
            (VoxelBuffer::new(IVec3::ZERO, IVec3::ONE), ColumnGrid::default(), GenScratch::default());
        for c in &chunks {
            fresh.generate_padded_chunk_unless_sky(*c, &mut padded, &mut columns, &mut scratch);
            assert_eq!(padded, g.generate_box(c.min_voxel() - IVec3::ONE, IVec3::splat(CHUNK_SIZE + 2)), "{c:?}");
        }
    }
}

#[test]
fn the_same_seed_grows_the_same_trees_and_another_seed_others() {
    let p = forest_preset();
    let (a, b) = (Generator::new(&p).unwrap(), Generator::new(&p).unwrap());
    // b warms its caches elsewhere and asks in pieces.
    let _ = b.trees_in((5000, 5000), (5400, 5400));
    let mut pieces = b.trees_in((0, 0), (100, 200));
    pieces.extend(b.trees_in((100, 0), (200, 200)));
    let whole = a.trees_in((0, 0), (200, 200));
    let set = |v: &[Placement]| v.iter().copied().collect::<HashSet<_>>();
    assert_eq!(set(&pieces), set(&whole));
    let min = IVec3::new(0, -8, 0);
    assert_eq!(a.generate_box(min, IVec3::new(64, 64, 64)), b.generate_box(min, IVec3::new(64, 64, 64)));
    let mut other = p.clone();
    other.seed += 1;
    assert_ne!(set(&Generator::new(&other).unwrap().trees_in((0, 0), (200, 200))), set(&whole));
}

#[test]
fn a_forest_grows_every_shipped_species_and_trees_thin_with_the_climate() {
    let p = forest_preset();
    let g = Generator::new(&p).unwrap();
    let forest = g.biomes().iter().position(|b| b.name == "forest").unwrap() as u8;
    // The forest column nearest the origin on a coarse grid: the centre of a 512 × 512 area.
    let centre = (0..200)
        .flat_map(|r| (-r..=r).flat_map(move |i| [(i, -r), (i, r), (-r, i), (r, i)]))
        .map(|(i, k)| (i * 32, k * 32))
        .find(|&(x, z)| g.biome_index_at(x, z) == forest)
        .expect("a forest");
    let (min, max) = ((centre.0 - 256, centre.1 - 256), (centre.0 + 256, centre.1 + 256));
    let mut species = BTreeMap::new();
    for q in g.trees_in(min, max) {
        let t = trunk(&q);
        if (min.0..max.0).contains(&t.x) && (min.1..max.1).contains(&t.z) && g.biome_index_at(t.x, t.z) == forest {
            *species.entry(g.tree_species_name(&q).unwrap().to_string()).or_insert(0) += 1;
        }
    }
    assert!(species.len() >= 4, "species in the forest around {centre:?}: {species:?}");
    // Per column, forests carry many more trees than plains, and none grow in the desert.
    let per_biome = |name: &str| {
        let b = g.biomes().iter().position(|b| b.name == name).unwrap() as u8;
        let (mut columns, mut trees) = (0usize, 0usize);
        for q in g.trees_in((-2048, -2048), (2048, 2048)) {
            let t = trunk(&q);
            trees += usize::from(g.biome_index_at(t.x, t.z) == b);
        }
        for z in (-2048..2048).step_by(16) {
            for x in (-2048..2048).step_by(16) {
                columns += usize::from(g.biome_index_at(x, z) == b);
            }
        }
        trees as f64 / (columns.max(1) * 256) as f64
    };
    let (forest_rate, plains_rate) = (per_biome("forest"), per_biome("plains"));
    assert!(forest_rate > 4.0 * plains_rate && plains_rate > 0.0, "forest {forest_rate}, plains {plains_rate}");
    assert_eq!(per_biome("desert"), 0.0);
    // No trees at density 0; a drier climate bound leaves fewer.
    let mut none = p.clone();
    none.trees.density = 0.0;
    assert!(Generator::new(&none).unwrap().trees_in((-500, -500), (500, 500)).is_empty());
    let mut dry = p.clone();
    (dry.trees.dry_moisture, dry.trees.wet_moisture) = (0.7, 0.9);
    let (wet_count, dry_count) = (
        g.trees_in((-1000, -1000), (1000, 1000)).len(),
        Generator::new(&dry).unwrap().trees_in((-1000, -1000), (1000, 1000)).len(),
    );
    assert!(dry_count * 10 < wet_count * 9, "{dry_count} trees with a drier bound, {wet_count} without");
}

#[test]
fn where_block_trees_grow_the_scatter_places_no_mesh_trees() {
    let g_off = Generator::new(&WorldPreset::default()).unwrap();
    let g_on = Generator::new(&forest_preset()).unwrap();
    let (off, on) = (g_off.scatter_columns(-512, -512, 1024, 1024), g_on.scatter_columns(-512, -512, 1024, 1024));
    let count = |v: &[crate::gen3d::scatter::ScatterInstance], k: ScatterKind| v.iter().filter(|i| i.kind == k).count();
    assert!(count(&off, ScatterKind::Tree) > 0);
    for i in on.iter().filter(|i| i.kind == ScatterKind::Tree) {
        let b = i.base_voxel();
        let name = &g_on.biome_at(b.x, b.z).name;
        assert!(!g_on.preset().trees.grow_in(name), "a mesh tree in {name}, where block trees grow");
    }
    // Small plants stay, and none stands in a trunk.
    assert!(count(&on, ScatterKind::Flower) > 0 && count(&on, ScatterKind::Bush) > 0);
    let trunks: HashSet<(i32, i32)> =
        g_on.trees_in((-512, -512), (512, 512)).iter().map(|q| (trunk(q).x, trunk(q).z)).collect();
    assert!(on.iter().all(|i| !trunks.contains(&(i.base_voxel().x, i.base_voxel().z))));
}

#[test]
fn caves_never_cut_a_tree_and_the_sky_shortcut_sees_crowns() {
    let mut p = forest_preset();
    (p.caves.allow_surface_breach, p.caves.tunnel_strength, p.caves.tunnel_width, p.caves.min_depth) =
        (true, 1.0, 0.25, 1);
    let g = Generator::new(&p).unwrap();
    let log = id("log");
    let trees = g.trees_in((-300, -300), (300, 300));
    let mut crowns_above_ground = 0;
    let (mut padded, mut shortcut, mut columns, mut scratch) = (
        VoxelBuffer::new(IVec3::ZERO, IVec3::ONE),
        VoxelBuffer::new(IVec3::ZERO, IVec3::ONE),
        ColumnGrid::default(),
        GenScratch::default(),
    );
    for q in trees.iter().take(300) {
        let t = trunk(q);
        let column = g.generate_box(IVec3::new(t.x, t.y, t.z), IVec3::new(1, 3, 1));
        assert_eq!(column.data()[0], log, "{q:?}: the trunk's base");
        let top = q.max() - IVec3::ONE;
        let c = ChunkCoord::containing(IVec3::new(t.x, top.y, t.z));
        if c.min_voxel().y > g.surface_range(c).1 {
            crowns_above_ground += 1;
            assert!(!g.chunk_is_sky(c), "a crown's chunk is not sky: {q:?}");
            g.generate_padded_chunk(c, &mut padded);
            assert!(!g.generate_padded_chunk_unless_sky(c, &mut shortcut, &mut columns, &mut scratch));
            assert_eq!(padded, shortcut, "{c:?}");
        }
    }
    assert!(crowns_above_ground > 0, "some crown reaches a chunk above all ground");
    // The far view and the queries see a tree's top.
    let q = trees[0];
    let t = trunk(&q);
    let (top, block) = g.structure_column_top(&q, t.x, t.z).unwrap();
    assert!(top > t.y && (block == log || block == id("leaves")), "{top} {block}");
    let voxels = g.generate_box(IVec3::new(t.x, t.y, t.z), IVec3::new(1, q.size.y + 1, 1));
    assert_eq!(voxels.get(IVec3::new(t.x, top - 1, t.z)), Some(block));
    assert!((top..q.max().y + 1).all(|y| voxels.get(IVec3::new(t.x, y, t.z)) == Some(AIR)));
}

#[test]
fn column_tops_of_a_whole_box_equal_each_columns_top() {
    let g = Generator::new(&forest_preset()).unwrap();
    let placements = g.placements_in((-200, -200), (200, 200));
    assert!(placements.len() > 50, "{} placements", placements.len());
    let mut tops = Vec::new();
    let mut with_top = 0;
    for p in &placements {
        g.structure_column_tops(p, &mut tops);
        assert_eq!(tops.len(), (p.size.x * p.size.z) as usize);
        for v in 0..p.size.z {
            for u in 0..p.size.x {
                let (x, z) = (p.min.x + u, p.min.z + v);
                let top = tops[(v * p.size.x + u) as usize];
                assert_eq!(top, g.structure_column_top(p, x, z), "{p:?} column ({x}, {z})");
                with_top += usize::from(top.is_some());
            }
        }
    }
    assert!(with_top > 1000, "{with_top} columns under a tree or structure");
}
