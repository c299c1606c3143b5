//! Tests of side-view structures: seams across chunk corners, chunk order, anchors, the sky over
//! a roof, and the errors of bad templates and rules.
//!
//! May use: everything `gen2d` may.

use crate::base::block::{self, AIR};
use crate::base::block_library::default_library;
use crate::gen2d::generator::{Generator2D, Generator2DError};
use crate::gen2d::structure_library::{SHIPPED_STRUCTURES_2D, shipped_structures_2d};
use crate::gen2d::structures::{KEEP, Placement2D, StructureError2D, StructureLibrary2D, StructureTemplate2D};
use crate::gen2d::{ChunkCoord2D, TileGrid};
use crate::preset::model::{StructurePlacement, StructureRule, WorldPreset};

fn rule(name: &str, placement: StructurePlacement, spacing: i32, sink: i32, depth: (i32, i32)) -> StructureRule {
    StructureRule {
        structure: name.into(),
        placement,
        spacing,
        chance: 1.0,
        sink,
        depth_min: depth.0,
        depth_max: depth.1,
        ..StructureRule::default()
    }
}

/// A preset with a cottage on the surface, a crypt buried and a ruin in caves, one per cell.
fn preset(seed: u64) -> WorldPreset {
    let mut p = WorldPreset { seed, ..WorldPreset::default() };
    p.structures.rules = vec![
        rule("cottage", StructurePlacement::Surface, 24, 1, (0, 0)),
        rule("crypt", StructurePlacement::Underground, 40, 0, (12, 40)),
        // Spacings that do not divide the 64-tile chunks: a structure stays inside its cell, so
        // cells aligned with chunks would never put one over a chunk border.
        rule("ruin", StructurePlacement::Cave, 36, 1, (20, 120)),
    ];
    p
}

/// Chunk `c` of `g` cut from `whole`.
fn assert_chunk_matches(g: &Generator2D, whole: &TileGrid, c: ChunkCoord2D, what: &str) {
    let n = g.chunk_tiles();
    let alone = g.generate_chunk(c);
    let (x0, y0) = c.min_tile(n);
    for y in y0..y0 + n {
        for x in x0..x0 + n {
            assert_eq!(alone.get(x, y), whole.get(x, y), "{what}: chunk {c:?} tile ({x}, {y})");
        }
    }
}

/// The first placement of rule `rule` (searching cells to the right of 0) whose box crosses a
/// chunk corner: it spans a column border and a row border of chunks.
fn corner_placement(g: &Generator2D, rule: u16) -> Placement2D {
    let n = g.chunk_tiles();
    let crosses = |p: &Placement2D| {
        p.min_x.div_euclid(n) != (p.max_x() - 1).div_euclid(n) && p.min_y.div_euclid(n) != (p.max_y() - 1).div_euclid(n)
    };
    // About one placement in a hundred crosses a chunk corner: search wide.
    g.structures_in(0, 300_000)
        .into_iter()
        .find(|p| p.rule == rule && crosses(p))
        .unwrap_or_else(|| panic!("no placement of rule {rule} crosses a chunk corner"))
}

#[test]
fn a_structure_across_a_chunk_corner_equals_the_region_generated_whole() {
    let g = Generator2D::new(&preset(7)).unwrap();
    let n = g.chunk_tiles();
    for rule in 0..3u16 {
        let p = corner_placement(&g, rule);
        let (cx0, cy0) = (p.min_x.div_euclid(n), p.min_y.div_euclid(n));
        let (cx1, cy1) = ((p.max_x() - 1).div_euclid(n), (p.max_y() - 1).div_euclid(n));
        let whole = g.generate_region(cx0 * n, cy0 * n, (cx1 - cx0 + 1) * n, (cy1 - cy0 + 1) * n);
        // Every cell the structure sets is in the whole region...
        let mut set = 0;
        for y in p.min_y..p.max_y() {
            for x in p.min_x..p.max_x() {
                if let Some(id) = g.structures().cell_at(&p, x, y) {
                    assert_eq!(whole.get(x, y), Some(id), "rule {rule}: structure cell ({x}, {y}) of {p:?}");
                    set += 1;
                }
            }
        }
        assert!(set > 0, "rule {rule}: {p:?} sets no tile");
        // ...and each chunk it touches, generated alone, is the whole region's.
        for cy in cy0..=cy1 {
            for cx in cx0..=cx1 {
                assert_chunk_matches(&g, &whole, ChunkCoord2D::new(cx, cy), &format!("rule {rule}"));
            }
        }
    }
}

#[test]
fn chunks_are_the_same_in_any_order() {
    let p = preset(11);
    let chunks: Vec<ChunkCoord2D> = (-3..4).flat_map(|x| (-1..4).map(move |y| ChunkCoord2D::new(x, y))).collect();
    let forward = Generator2D::new(&p).unwrap();
    let a: Vec<TileGrid> = chunks.iter().map(|&c| forward.generate_chunk(c)).collect();
    // A fresh generator, its placement cache warmed far away, asked in reverse.
    let backward = Generator2D::new(&p).unwrap();
    let _ = backward.structures_in(-90_000, -80_000);
    let mut b: Vec<TileGrid> = chunks.iter().rev().map(|&c| backward.generate_chunk(c)).collect();
    b.reverse();
    assert_eq!(a, b);
    // On workers at once: the same again.
    let shared = std::sync::Arc::new(Generator2D::new(&p).unwrap());
    let handles: Vec<_> = chunks
        .iter()
        .map(|&c| {
            let g = shared.clone();
            std::thread::spawn(move || g.generate_chunk(c))
        })
        .collect();
    let c: Vec<TileGrid> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(a, c);
    let planks = default_library().id_of("planks").unwrap();
    let structure_tiles = a.iter().map(|g| g.tiles.iter().filter(|&&t| t == planks).count()).sum::<usize>();
    assert!(structure_tiles > 0, "the chunks hold no cottage");
}

#[test]
fn placement_is_a_pure_function_of_seed_rule_and_cell() {
    let a = Generator2D::new(&preset(3)).unwrap().structures_in(-5_000, 5_000);
    let b = Generator2D::new(&preset(3)).unwrap().structures_in(-5_000, 5_000);
    let c = Generator2D::new(&preset(4)).unwrap().structures_in(-5_000, 5_000);
    assert_eq!(a, b);
    assert_ne!(a, c, "another seed places elsewhere");
    // One per cell at most, wholly inside its cell.
    for p in &a {
        let s = preset(3).structures.rules[p.rule as usize].spacing;
        assert_eq!(p.min_x.div_euclid(s), (p.max_x() - 1).div_euclid(s), "{p:?} leaves its cell");
    }
    // Mirrored ones exist and mirror the template.
    assert!(a.iter().any(|p| p.flipped) && a.iter().any(|p| !p.flipped));
    // No rules: the region is the terrain's.
    let plain = Generator2D::new(&WorldPreset::default()).unwrap();
    assert_eq!(plain.generate_region(-40, 0, 100, 90), plain.generate_terrain(-40, 0, 100, 90));
}

#[test]
fn anchors_put_structures_on_the_ground_in_the_rock_and_on_cave_floors() {
    let p = preset(5);
    let g = Generator2D::new(&p).unwrap();
    let all = g.structures_in(-4_000, 4_000);
    let (mut surface, mut buried, mut cave) = (0, 0, 0);
    for q in &all {
        let centre = q.min_x + q.width / 2;
        let ground = g.surface_row(centre);
        let r = &p.structures.rules[q.rule as usize];
        match r.placement {
            StructurePlacement::Surface => {
                // sink 1: the bottom row is the ground row.
                assert_eq!(q.max_y() - 1, ground + r.sink - 1, "{q:?}");
                assert!(!g.profile(centre, 1).is_wet(centre), "{q:?} stands on a pool");
                surface += 1;
            }
            StructurePlacement::Underground => {
                let depth = q.min_y - ground;
                assert!((r.depth_min..=r.depth_max).contains(&depth), "{q:?} at depth {depth}");
                buried += 1;
            }
            StructurePlacement::Cave => {
                // The row under its bottom row less `sink` is open, the floor under it solid.
                let floor = q.max_y() - r.sink;
                let column = g.generate_terrain(centre, floor - 1, 1, 2).tiles;
                assert!(!block::is_solid(column[0]) && block::is_solid(column[1]), "{q:?}: {column:?}");
                assert!((r.depth_min..=r.depth_max + 1).contains(&(floor - ground)), "{q:?}");
                cave += 1;
            }
        }
    }
    assert!(surface > 100 && buried > 100 && cave > 10, "{surface} {buried} {cave}");
}

#[test]
fn a_roof_closes_the_sky_and_counts_as_the_top() {
    let g = Generator2D::new(&preset(7)).unwrap();
    let q = g.structures_in(0, 2_000).into_iter().find(|q| q.rule == 0).unwrap();
    let x = q.min_x + q.width / 2;
    let roof = q.min_y;
    assert!(roof < g.surface_row(x));
    assert_eq!(g.profile(x, 1).top_at(x), roof, "the column's top is the roof");
    // The streamer's `top_solid_row` answers the same (`stream2d::a_structure_roof_is_the_top_of_its_columns`).
    // Inside the cottage: air (carved), under the roof.
    let inside = g.generate_region(x, roof + 4, 1, 1).tiles[0];
    assert_eq!(inside, AIR);
}

#[test]
fn shipped_structures_resolve_and_name_a_missing_block() {
    let lib = shipped_structures_2d(default_library()).unwrap();
    assert_eq!(lib.names(), SHIPPED_STRUCTURES_2D.to_vec());
    let crypt = lib.get("crypt").unwrap();
    assert_eq!((crypt.width(), crypt.height()), (13, 7));
    assert_eq!(crypt.get(6, 5), default_library().id_of("gold_ore").unwrap());
    assert_eq!(crypt.get(1, 1), AIR);
    let ruin = lib.get("ruin").unwrap();
    assert!(ruin.cells().contains(&KEEP));
    let small = crate::base::block_library::BlockLibrary::new(default_library().blocks()[..18].to_vec()).unwrap();
    let e = shipped_structures_2d(&small).unwrap_err().to_string();
    assert!(e.contains("cottage") && e.contains("planks") && e.contains("allowed"), "{e}");
}

#[test]
fn templates_from_images_map_colours_and_keep_transparent_pixels() {
    let lib = default_library();
    let colors = vec![([255, 0, 0], "stone".to_string()), ([0, 0, 0], "air".to_string())];
    #[rustfmt::skip]
    let rgba = [
        255, 0, 0, 255,   0, 0, 0, 255,
        9, 9, 9, 0,       255, 0, 0, 200,
    ];
    let t = StructureTemplate2D::from_rgba("wall", 2, 2, &rgba, &colors, lib).unwrap();
    assert_eq!(t.cells(), &[block::STONE, AIR, KEEP, block::STONE]);
    // A colour the map lacks: the pixel, the colour and the map's colours.
    let mut bad = rgba;
    bad[4..8].copy_from_slice(&[1, 2, 3, 255]);
    let e = StructureTemplate2D::from_rgba("wall", 2, 2, &bad, &colors, lib).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("`wall`") && text.contains("(1, 0)") && text.contains("#010203"), "{text}");
    assert!(text.contains("#ff0000 (stone)"), "{text}");
    // A tile name the library lacks.
    let colors = vec![([255, 0, 0], "marble".to_string()), ([0, 0, 0], "air".to_string())];
    let e = StructureTemplate2D::from_rgba("wall", 2, 2, &rgba, &colors, lib).unwrap_err().to_string();
    assert!(e.contains("`marble`") && e.contains("(0, 0)") && e.contains("stone"), "{e}");
    // Pixels that do not fill the size.
    let e = StructureTemplate2D::from_rgba("wall", 3, 2, &rgba, &colors, lib).unwrap_err().to_string();
    assert!(e.contains("16 bytes") && e.contains("3×2") && e.contains("24"), "{e}");
}

#[test]
fn bad_templates_give_clear_errors() {
    let lib = default_library();
    let legend = [('#', "stone"), ('.', "keep")];
    let e = StructureTemplate2D::from_rows("hut", &["##", "#"], &legend, lib).unwrap_err().to_string();
    assert!(e.contains("`hut`") && e.contains("row 1") && e.contains("equal length"), "{e}");
    let e = StructureTemplate2D::from_rows("hut", &["#x"], &legend, lib).unwrap_err().to_string();
    assert!(e.contains("`x`") && e.contains("column 1") && e.contains("`#` (stone)"), "{e}");
    let e = StructureTemplate2D::new("hut", 0, 3, Vec::new()).unwrap_err().to_string();
    assert!(e.contains("0×3") && e.contains("1..=512"), "{e}");
    let e = StructureTemplate2D::new("hut", 2, 2, vec![AIR; 3]).unwrap_err().to_string();
    assert!(e.contains("3 cells") && e.contains("exactly 4"), "{e}");
    let e = StructureTemplate2D::new(" ", 1, 1, vec![AIR]).unwrap_err().to_string();
    assert!(e.contains("name is empty"), "{e}");
    let e = StructureTemplate2D::from_names("hut", 2, 1, &["stone", "chest"], lib).unwrap_err().to_string();
    assert!(e.contains("(1, 0)") && e.contains("`chest`") && e.contains("planks"), "{e}");
}

#[test]
fn bad_rules_give_clear_errors() {
    let mut p = preset(1);
    p.structures.rules[0].structure = "castle".into();
    let e = Generator2D::new(&p).unwrap_err().to_string();
    assert!(e.contains("structures.rules[0]") && e.contains("`castle`") && e.contains("cottage, ruin, crypt"), "{e}");
    let mut p = preset(1);
    p.structures.rules[1].spacing = 12;
    let e = Generator2D::new(&p).unwrap_err().to_string();
    assert!(e.contains("structures.rules[1].spacing") || e.contains("16..=4096"), "{e}");
    let narrow = StructureTemplate2D::new("wide", 40, 1, vec![AIR; 40]).unwrap();
    let mut p = preset(1);
    p.structures.rules = vec![rule("wide", StructurePlacement::Surface, 32, 0, (0, 0))];
    let e = Generator2D::with_structures(&p, &StructureLibrary2D::new(vec![narrow])).unwrap_err();
    assert!(matches!(e, Generator2DError::Structures(StructureError2D::SpacingTooSmall { .. })));
    assert!(e.to_string().contains("32 tiles") && e.to_string().contains("at least 40"), "{e}");
    let mut p = preset(1);
    p.structures.rules[0].biomes = vec!["plains".into()];
    p.biomes.enabled = false;
    let e = Generator2D::new(&p).unwrap_err().to_string();
    assert!(e.contains("rules[0].biomes") && e.contains("no biomes"), "{e}");
}

/// Prints a stretch of the world with its structures (run with `--ignored --nocapture`).
#[test]
#[ignore]
fn print_structures() {
    let g = Generator2D::new(&preset(7)).unwrap();
    let region = g.generate_region(0, -20, 160, 110);
    for row in region.to_ascii() {
        println!("{row}");
    }
}
