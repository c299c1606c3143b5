//! Tests of side-view spawns: equal whatever region the tiles came from and whatever the chunk
//! order, each habitat where it says, one owner per spawn, structure entities on their floor, and
//! the refusal of biomes.
//!
//! May use: everything `gen2d` may.

use super::*;
use crate::base::block::{self, is_liquid, is_solid};
use crate::gen2d::generator::{Generator2D, Generator2DError};
use crate::preset::model::{SpawnSettings, StructurePlacement, StructureRule};
use std::collections::HashSet;

fn rule(scene: &str, habitat: SpawnHabitat, density: f32, depth: (i32, i32)) -> SpawnRule {
    SpawnRule {
        scene: scene.into(),
        habitat,
        density,
        cluster_size: 4,
        cluster_spread: 10.0,
        min_spacing: 1.5,
        depth_min: depth.0,
        depth_max: depth.1,
        ..SpawnRule::default()
    }
}

/// Rules of every habitat, dense enough that every chunk near the surface has some.
fn preset(seed: u64) -> WorldPreset {
    let mut p = WorldPreset { seed, ..WorldPreset::default() };
    p.spawns = SpawnSettings {
        rules: vec![
            rule("res://critter.tscn", SpawnHabitat::Surface, 4.0, (0, 0)),
            rule("res://bat.tscn", SpawnHabitat::Cave, 6.0, (12, 400)),
            rule("res://fossil.tscn", SpawnHabitat::Underground, 2.0, (4, 60)),
            rule("res://fish.tscn", SpawnHabitat::Water, 16.0, (0, 0)),
        ],
    };
    p
}

/// The chunks of the test block: columns -3..3, rows from the sky through the surface to caves.
fn chunks() -> Vec<ChunkCoord2D> {
    (-3..3).flat_map(|x| (-1..3).map(move |y| ChunkCoord2D::new(x, y))).collect()
}

fn spawns_alone(g: &Generator2D, c: ChunkCoord2D) -> Vec<SpawnPoint2D> {
    g.spawn_chunk(c, &g.generate_padded_chunk(c), None)
}

#[test]
fn spawns_are_equal_whatever_the_region_and_the_chunk_order() {
    let g = Generator2D::new(&preset(41)).unwrap();
    let n = g.chunk_tiles();
    let all = chunks();
    // One region over the whole block, with a tile of margin.
    let (lo, hi) = (all[0].min_tile(n), all[all.len() - 1].min_tile(n));
    let whole = g.generate_region(lo.0 - 1, lo.1 - 1, hi.0 - lo.0 + n + 2, hi.1 - lo.1 + n + 2);
    let forward: Vec<Vec<SpawnPoint2D>> = all.iter().map(|&c| spawns_alone(&g, c)).collect();
    // Another generator (an empty structure cache) walking the chunks backwards.
    let g2 = Generator2D::new(&preset(41)).unwrap();
    let mut backward: Vec<Vec<SpawnPoint2D>> = all.iter().rev().map(|&c| spawns_alone(&g2, c)).collect();
    backward.reverse();
    assert_eq!(forward, backward, "the same spawns in any chunk order (law: Deterministic)");
    for (c, alone) in all.iter().zip(&forward) {
        assert_eq!(&g.spawn_chunk(*c, &whole, None), alone, "chunk {c:?} alone equals it inside the block");
    }
    let total: usize = forward.iter().map(Vec::len).sum();
    assert!(total > 50, "a block of chunks starts objects: {total}");
    let other = Generator2D::new(&preset(42)).unwrap();
    let other: Vec<Vec<SpawnPoint2D>> = all.iter().map(|&c| spawns_alone(&other, c)).collect();
    assert_ne!(forward, other, "another seed starts other objects");
}

#[test]
fn each_habitat_stands_where_it_says_and_in_its_own_chunk() {
    let g = Generator2D::new(&preset(7)).unwrap();
    let n = g.chunk_tiles();
    let mut seen = [0usize; 4];
    for c in chunks() {
        let tiles = g.generate_padded_chunk(c);
        let points = g.spawn_chunk(c, &tiles, None);
        let keys: HashSet<u32> = points.iter().map(SpawnPoint2D::key).collect();
        assert_eq!(keys.len(), points.len(), "keys name one object each in chunk {c:?}");
        for p in &points {
            let [x, y] = p.tile();
            assert_eq!(ChunkCoord2D::containing(x, y, n), c, "{p:?} stands in the chunk that owns it");
            let at = |y: i32| tiles.get(x, y).unwrap();
            let open = |y: i32| !is_solid(at(y)) && !is_liquid(at(y));
            let depth = y - g.surface_row(x);
            let what = format!("{p:?} in chunk {c:?}");
            match p.rule {
                0 => {
                    assert!(open(y) && is_solid(at(y + 1)) && depth == -1, "surface: {what}");
                    assert_eq!(p.position[1], f64::from(y) + 1.0, "stands on the ground: {what}");
                }
                1 => {
                    assert!(open(y) && open(y - 1) && is_solid(at(y + 1)), "cave floor: {what}");
                    assert!((12..=400).contains(&depth), "cave depth {depth}: {what}");
                }
                2 => assert!(is_solid(at(y)) && (4..=60).contains(&depth), "buried at {depth}: {what}"),
                3 => {
                    assert!(at(y) == block::WATER, "in water: {what}");
                    assert_eq!(p.position[1], f64::from(y) + 0.5, "at the tile's centre: {what}");
                }
                r => panic!("no rule {r}"),
            }
            assert!(p.position[0].floor() as i32 == x, "x in its column: {what}");
            seen[p.rule as usize] += 1;
        }
        // Spacing within a rule of one chunk.
        for (i, a) in points.iter().enumerate() {
            for b in &points[i + 1..] {
                let d = ((a.position[0] - b.position[0]).powi(2) + (a.position[1] - b.position[1]).powi(2)).sqrt();
                assert!(a.rule != b.rule || d >= 1.5, "{a:?} and {b:?} are {d} apart");
            }
        }
    }
    assert!(seen[..3].iter().all(|&s| s > 0), "surface, cave and underground objects: {seen:?}");
}

#[test]
fn water_objects_start_in_pools() {
    let g = Generator2D::new(&preset(7)).unwrap();
    let found = (-60..60)
        .flat_map(|x| (-1..1).map(move |y| ChunkCoord2D::new(x, y)))
        .flat_map(|c| spawns_alone(&g, c))
        .filter(|p| p.rule == 3)
        .count();
    assert!(found > 0, "some pool in 120 chunks holds fish");
}

#[test]
fn rules_that_filter_light_ask_for_it() {
    let mut p = preset(7);
    p.spawns.rules.truncate(1);
    p.spawns.rules[0].light_min = 10;
    let g = Generator2D::new(&p).unwrap();
    let bright: &dyn Fn(i32, i32) -> u8 = &|_, _| 15;
    let dark: &dyn Fn(i32, i32) -> u8 = &|_, _| 3;
    let mut lit = 0;
    for c in chunks() {
        let tiles = g.generate_padded_chunk(c);
        assert!(g.spawn_chunk(c, &tiles, None).is_empty(), "no light: nothing that needs it");
        lit += g.spawn_chunk(c, &tiles, Some(bright)).len();
        assert!(g.spawn_chunk(c, &tiles, Some(dark)).is_empty(), "in the dark they do not");
    }
    assert!(lit > 0, "in full light they start");
}

#[test]
fn a_structure_entity_stands_on_the_floor_of_its_structure() {
    let mut p = WorldPreset { seed: 9, ..WorldPreset::default() };
    p.structures.rules = vec![StructureRule {
        structure: "crypt".into(),
        placement: StructurePlacement::Underground,
        spacing: 40,
        chance: 1.0,
        depth_min: 12,
        depth_max: 40,
        entity: "res://chest.tscn".into(),
        ..StructureRule::default()
    }];
    let g = Generator2D::new(&p).unwrap();
    let n = g.chunk_tiles();
    let placements = g.structures_in(0, 4 * n);
    assert!(!placements.is_empty(), "crypts in four chunks of columns");
    let mut found = 0;
    for pl in placements {
        let x = pl.min_x + pl.width / 2;
        let Some(y) = (pl.min_y..pl.max_y() - 1).find(|&y| {
            let t = g.tile_at(x, y);
            !is_solid(t) && !is_liquid(t) && is_solid(g.tile_at(x, y + 1))
        }) else {
            continue;
        };
        let c = ChunkCoord2D::containing(x, y, n);
        let points = spawns_alone(&g, c);
        let chest = points.iter().find(|s| s.rule == FIRST_STRUCTURE_SPAWN_RULE && s.tile() == [x, y]);
        assert!(chest.is_some(), "a chest on the floor of the crypt at ({x}, {y}): {points:?}");
        found += 1;
    }
    assert!(found > 0, "a crypt with a floor");
}

#[test]
fn a_rule_with_biomes_is_refused_by_name() {
    let mut p = preset(7);
    p.spawns.rules[1].biomes = vec!["desert".into()];
    let e = Generator2D::new(&p).unwrap_err();
    assert!(matches!(e, Generator2DError::Spawns(SpawnError2D::Biomes { rule: 1, .. })), "{e}");
    let text = e.to_string();
    assert!(text.contains("spawns.rules[1].biomes") && text.contains("no biomes"), "{text}");
}
