//! Spawn rules: where objects start is a pure function of seed, rule and chunk (the same from a
//! chunk generated alone or inside a larger block, in any order), in the habitat the rule names,
//! in its biomes and light range, never closer than its spacing; rules travel in RON and `.tres`
//! and bad rules get errors naming the rule, the field, the value and what is allowed.

use strata_core::base::block::{is_liquid, is_solid};
use strata_core::base::chunk::VoxelBuffer;
use strata_core::base::coords::{CHUNK_SIZE, ChunkCoord, IVec3};
use strata_core::gen3d::columns::ColumnGrid;
use strata_core::gen3d::pipeline::Generator;
use strata_core::gen3d::scratch::GenScratch;
use strata_core::gen3d::spawns::SpawnPoint;
use strata_core::light::LightProps;
use strata_core::preset::model::{SpawnHabitat, SpawnRule, WorldPreset};
use strata_core::preset::ron::{preset_from_ron, preset_to_ron};
use strata_core::preset::tres::{preset_from_tres_text, preset_to_tres_text};
use strata_core::stream::lighting::ChunkLighter;

fn rule(habitat: SpawnHabitat, density: f32) -> SpawnRule {
    SpawnRule {
        scene: "res://mobs/deer.tscn".into(),
        habitat,
        density,
        cluster_size: 4,
        cluster_spread: 8.0,
        min_spacing: 2.0,
        depth_min: 4,
        depth_max: 200,
        ..Default::default()
    }
}

fn preset(rules: Vec<SpawnRule>) -> WorldPreset {
    let mut p = WorldPreset { seed: 20261126, ..WorldPreset::default() };
    p.spawns.rules = rules;
    p
}

/// Spawn points of chunk `c` as the streamer's worker finds them: its padded chunk and columns.
fn points_alone(g: &Generator, c: ChunkCoord, light: Option<&LightProps>) -> (Vec<SpawnPoint>, VoxelBuffer) {
    let mut padded = VoxelBuffer::new(c.min_voxel() - IVec3::ONE, IVec3::splat(CHUNK_SIZE + 2));
    let mut columns = ColumnGrid::default();
    g.generate_padded_chunk_unless_sky(c, &mut padded, &mut columns, &mut GenScratch::default());
    let mut lighter = ChunkLighter::default();
    let lit = light.map(|props| lighter.light_chunk(g, None, c, &[], props).expect("light").clone());
    let lookup = lit.as_ref().map(|l| move |p: IVec3| l.get(p).map_or(0, |v| v.combined()));
    let points = g.spawn_chunk_with_columns(c, &columns, &padded, lookup.as_ref().map(|f| f as &dyn Fn(IVec3) -> u8));
    (points, padded)
}

/// Chunks around the surface near the origin.
fn surface_chunks() -> Vec<ChunkCoord> {
    let mut out = Vec::new();
    for x in -3..3 {
        for z in -3..3 {
            for y in 0..4 {
                out.push(ChunkCoord::new(x, y, z));
            }
        }
    }
    out
}

#[test]
fn surface_spawns_stand_on_dry_ground_and_are_the_same_from_a_larger_block() {
    let g = Generator::new(&preset(vec![rule(SpawnHabitat::Surface, 2.5)])).unwrap();
    let mut total = 0;
    for c in surface_chunks() {
        let (points, padded) = points_alone(&g, c, None);
        for p in &points {
            let v = p.voxel();
            assert_eq!(ChunkCoord::containing(v), c, "{p:?} belongs to its chunk");
            let here = padded.get(v).unwrap();
            assert!(!is_solid(here) && !is_liquid(here), "{p:?} stands in open air");
            assert!(is_solid(padded.get(v - IVec3::new(0, 1, 0)).unwrap()), "{p:?} stands on ground");
            assert_eq!(p.position[1], f64::from(v.y), "on the floor of its voxel");
            assert_eq!(g.column(v.x, v.z).surface, v.y, "at the column's surface");
        }
        // Inside a larger block: the same voxels, so the same points.
        let m = c.min_voxel() - IVec3::splat(CHUNK_SIZE);
        let mut block = VoxelBuffer::new(m, IVec3::splat(3 * CHUNK_SIZE));
        g.generate_region(&mut block);
        let again = g.spawn_chunk_with_columns(c, &ColumnGrid::default(), &block, None);
        assert_eq!(again, points, "chunk {c:?} alone and inside a larger block");
        total += points.len();
    }
    // 144 chunks, a few of them holding the surface: some points, and each chunk's spawns are
    // stable from run to run.
    assert!(total > 20, "{total} surface spawns");
    let first: Vec<Vec<SpawnPoint>> = surface_chunks().into_iter().map(|c| points_alone(&g, c, None).0).collect();
    let g2 = Generator::new(&preset(vec![rule(SpawnHabitat::Surface, 2.5)])).unwrap();
    let second: Vec<Vec<SpawnPoint>> =
        surface_chunks().into_iter().rev().map(|c| points_alone(&g2, c, None).0).collect();
    assert_eq!(first, second.into_iter().rev().collect::<Vec<_>>(), "same points in any order");
}

#[test]
fn members_keep_their_index_and_spacing_and_keys_are_unique() {
    let mut r = rule(SpawnHabitat::Surface, 6.0);
    r.min_spacing = 5.0;
    let g = Generator::new(&preset(vec![r.clone()])).unwrap();
    for c in surface_chunks() {
        let (points, _) = points_alone(&g, c, None);
        let mut keys: Vec<u32> = points.iter().map(|p| p.key()).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), points.len(), "unique keys in {c:?}");
        for (i, a) in points.iter().enumerate() {
            for b in &points[i + 1..] {
                let d = ((a.position[0] - b.position[0]).powi(2)
                    + (a.position[1] - b.position[1]).powi(2)
                    + (a.position[2] - b.position[2]).powi(2))
                .sqrt();
                assert!(d >= 5.0, "{a:?} and {b:?} are {d} apart");
            }
            assert!(a.index % 32 < 4, "member index below the cluster size");
        }
    }
}

#[test]
fn cave_spawns_stand_on_cave_floors_within_their_depth() {
    let mut r = rule(SpawnHabitat::Cave, 4.0);
    r.depth_min = 10;
    r.depth_max = 80;
    let g = Generator::new(&preset(vec![r])).unwrap();
    let mut total = 0;
    for x in -2..2 {
        for z in -2..2 {
            for y in -3..1 {
                let c = ChunkCoord::new(x, y, z);
                let (points, padded) = points_alone(&g, c, None);
                for p in &points {
                    let v = p.voxel();
                    let open = |q: IVec3| padded.get(q).is_some_and(|b| !is_solid(b) && !is_liquid(b));
                    assert!(open(v) && open(v + IVec3::new(0, 1, 0)), "{p:?}: two open voxels");
                    assert!(is_solid(padded.get(v - IVec3::new(0, 1, 0)).unwrap()), "{p:?}: a floor");
                    let depth = g.column(v.x, v.z).surface - v.y;
                    assert!((10..=80).contains(&depth), "{p:?} at depth {depth}");
                }
                total += points.len();
            }
        }
    }
    assert!(total > 0, "some cave spawns in 64 underground chunks");
}

#[test]
fn water_spawns_are_in_water_and_biomes_and_light_filter() {
    let p = preset(vec![rule(SpawnHabitat::Water, 4.0)]);
    let g = Generator::new(&p).unwrap();
    let mut total = 0;
    for x in -6..6 {
        for z in -6..6 {
            for y in -1..2 {
                let c = ChunkCoord::new(x, y, z);
                let (points, padded) = points_alone(&g, c, None);
                for p in &points {
                    assert!(is_liquid(padded.get(p.voxel()).unwrap()), "{p:?} in water");
                    assert_eq!(p.position[1] - p.position[1].floor(), 0.5, "at the voxel's centre");
                }
                total += points.len();
            }
        }
    }
    assert!(total > 0, "some water spawns near the origin's lakes and sea");

    // Biomes: a rule for one biome places only there.
    let biome = g.biomes()[0].name.clone();
    let mut only = rule(SpawnHabitat::Surface, 4.0);
    only.biomes = vec![biome.clone()];
    let g = Generator::new(&preset(vec![only])).unwrap();
    for c in surface_chunks() {
        for p in points_alone(&g, c, None).0 {
            let v = p.voxel();
            assert_eq!(g.biomes()[g.column(v.x, v.z).biome as usize].name, biome);
        }
    }

    // Light: surface spawns are in full daylight, so a dark-only rule places none there and a
    // bright-only rule keeps them; without light properties a light rule places nothing.
    let props = LightProps::default_blocks();
    let mut dark = rule(SpawnHabitat::Surface, 4.0);
    dark.light_max = 7;
    let mut bright = rule(SpawnHabitat::Surface, 4.0);
    bright.light_min = 15;
    let g = Generator::new(&preset(vec![dark, bright])).unwrap();
    let (mut dark_n, mut bright_n) = (0, 0);
    for c in surface_chunks() {
        let (points, _) = points_alone(&g, c, Some(&props));
        dark_n += points.iter().filter(|p| p.rule == 0).count();
        bright_n += points.iter().filter(|p| p.rule == 1).count();
        assert!(points_alone(&g, c, None).0.is_empty(), "light rules need light");
    }
    assert_eq!(dark_n, 0, "nothing dark under the open sky");
    assert!(bright_n > 0, "daylight spawns");
}

#[test]
fn rules_travel_in_ron_and_tres_and_bad_ones_are_named() {
    let mut r = rule(SpawnHabitat::Cave, 1.25);
    r.biomes = vec!["forest".into()];
    r.light_max = 6;
    let p = preset(vec![r, rule(SpawnHabitat::Water, 0.5)]);
    let back = preset_from_ron(&preset_to_ron(&p), "test.ron").unwrap();
    assert_eq!(back.spawns, p.spawns);
    let back = preset_from_tres_text(&preset_to_tres_text(&p), "test.tres").unwrap();
    assert_eq!(back.spawns, p.spawns);
    assert!(!preset_to_tres_text(&WorldPreset::default()).contains("spawn_rules_ron"), "written only with rules");
    assert_ne!(
        strata_core::preset::fingerprint::fingerprint(&p),
        strata_core::preset::fingerprint::fingerprint(&WorldPreset { spawns: Default::default(), ..p.clone() }),
        "spawn rules are part of the world"
    );

    let bad = |f: &dyn Fn(&mut SpawnRule), field: &str| {
        let mut r = rule(SpawnHabitat::Surface, 1.0);
        f(&mut r);
        let e = preset(vec![rule(SpawnHabitat::Surface, 1.0), r]).validate().expect_err(field);
        assert_eq!(e.field, format!("spawns.rules[1].{field}"), "{e:?}");
        assert!(!e.allowed.is_empty());
    };
    bad(&|r| r.scene = "deer.png".into(), "scene");
    bad(&|r| r.density = 17.0, "density");
    bad(&|r| r.cluster_size = 0, "cluster_size");
    bad(&|r| r.cluster_spread = -1.0, "cluster_spread");
    bad(&|r| r.min_spacing = 99.0, "min_spacing");
    bad(&|r| (r.light_min, r.light_max) = (9, 3), "light_min");
    bad(&|r| r.light_max = 16, "light_min");
    bad(&|r| (r.depth_min, r.depth_max) = (50, 10), "depth_min");
    bad(&|r| r.biomes = vec!["moon".into()], "biomes");
}

#[test]
fn structures_with_an_entity_start_one_on_their_floor() {
    use strata_core::preset::model::{FIRST_STRUCTURE_SPAWN_RULE, StructurePlacement, StructureRule};
    let mut p = preset(Vec::new());
    p.structures.rules = vec![StructureRule {
        structure: "crypt".into(),
        placement: StructurePlacement::Underground,
        spacing: 48,
        chance: 1.0,
        depth_min: 4,
        depth_max: 12,
        entity: "res://props/chest.tscn".into(),
        ..Default::default()
    }];
    let g = Generator::new(&p).unwrap();
    let mut found = 0;
    for x in -3..3 {
        for z in -3..3 {
            for y in -2..3 {
                let c = ChunkCoord::new(x, y, z);
                let (points, padded) = points_alone(&g, c, None);
                for pt in &points {
                    assert_eq!(pt.rule, FIRST_STRUCTURE_SPAWN_RULE);
                    let v = pt.voxel();
                    assert!(is_solid(padded.get(v - IVec3::new(0, 1, 0)).unwrap()), "{pt:?} on a floor");
                    assert!(!is_solid(padded.get(v).unwrap()), "{pt:?} in open air");
                    let m = c.min_voxel();
                    let inside = g
                        .structures_in((v.x, v.z), (v.x + 1, v.z + 1))
                        .iter()
                        .any(|s| (s.min.y..s.min.y + s.size.y).contains(&v.y));
                    assert!(inside, "{pt:?} inside its crypt (chunk at {m:?})");
                    let m = c.min_voxel() - IVec3::splat(CHUNK_SIZE);
                    let mut block = VoxelBuffer::new(m, IVec3::splat(3 * CHUNK_SIZE));
                    g.generate_region(&mut block);
                    let again = g.spawn_chunk_with_columns(c, &ColumnGrid::default(), &block, None);
                    assert_eq!(again, points, "alone and inside a larger block");
                }
                found += points.len();
            }
        }
    }
    assert!(found > 3, "a chest in each crypt near the origin ({found})");
    let mut bad = p.clone();
    bad.structures.rules[0].entity = "chest.png".into();
    assert_eq!(bad.validate().unwrap_err().field, "structures.rules[0].entity");
}
