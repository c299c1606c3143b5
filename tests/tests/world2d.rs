//! Side-view worlds across modules: seams, determinism across threads and order, a whole surface
//! above the cave depth, supported water, ores below their depth, and the demo's tile atlas.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use strata_core::base::block::{self, AIR, BlockId, STONE, WATER};
use strata_core::gen2d::autotile::{self, ATLAS_ROWS, TileLayout, TileRules, autotile_padded_with};
use strata_core::gen2d::{ChunkCoord2D, Generator2D, TileGrid};
use strata_core::preset::file::load_preset_file;
use strata_core::preset::model::{CaveMode, SurfaceSource, WorldPreset};
use strata_core::stream::stream2d::{StreamConfig2D, Streamer2D};
use strata_tests::shipped_presets_dir;

fn generator(seed: u64) -> Generator2D {
    let p = WorldPreset { seed, ..Default::default() };
    Generator2D::new(&p).expect("default preset is valid")
}

const SOURCES: [SurfaceSource; 5] = [
    SurfaceSource::ValueNoiseLinear,
    SurfaceSource::ValueNoiseCosine,
    SurfaceSource::PerlinFbm,
    SurfaceSource::MidpointDisplacement,
    SurfaceSource::SmoothedHashNoise,
];

/// A chunk around the surface and one deep underground, for seam checks.
fn interesting_chunks(g: &Generator2D) -> Vec<ChunkCoord2D> {
    let n = g.chunk_tiles();
    let surface = ChunkCoord2D::containing(5, g.surface_row(5) + 20, n);
    vec![surface, ChunkCoord2D::new(surface.x - 3, surface.y + 1), ChunkCoord2D::new(7, 3)]
}

#[test]
fn a_chunk_alone_equals_its_place_in_a_three_by_three_block() {
    for (i, source) in SOURCES.iter().enumerate() {
        let mut p = WorldPreset { seed: 100 + i as u64, ..Default::default() };
        p.side_view.surface_source = *source;
        if i == 4 {
            p.side_view.cave_mode = CaveMode::GameOfLife;
        }
        let g = Generator2D::new(&p).unwrap();
        let n = g.chunk_tiles();
        for c in interesting_chunks(&g) {
            let (x, y) = c.min_tile(n);
            let block = g.generate_region(x - n, y - n, 3 * n, 3 * n);
            assert_eq!(g.generate_chunk(c), block.crop(x, y, n, n), "{source:?} chunk {c:?}");
            // The padded chunk the workers autotile agrees too, halo included.
            assert_eq!(g.generate_padded_chunk(c), block.crop(x - 1, y - 1, n + 2, n + 2), "{source:?} padded {c:?}");
        }
    }
}

#[test]
fn chunk_size_does_not_change_the_world() {
    let a = generator(9);
    let mut p = WorldPreset { seed: 9, ..Default::default() };
    p.side_view.chunk_tiles = 16;
    let b = Generator2D::new(&p).unwrap();
    let y = a.surface_row(40) - 8;
    assert_eq!(a.generate_region(0, y, 64, 64), b.generate_region(0, y, 64, 64));
    let small: Vec<TileGrid> = (0..4).map(|k| b.generate_chunk(ChunkCoord2D::containing(k * 16, y, 16))).collect();
    let big = a.generate_region(0, small[0].min_y, 64, 16);
    for (k, s) in small.iter().enumerate() {
        assert_eq!(*s, big.crop(k as i32 * 16, s.min_y, 16, 16));
    }
}

/// Streams the square around `(0, surface)` with `workers` threads and returns every tile.
fn stream_all(workers: usize, view: i32, detour: bool) -> HashMap<ChunkCoord2D, Vec<BlockId>> {
    let g = Arc::new(generator(77));
    let row = g.surface_row(0) as f64;
    let mut s = Streamer2D::new(
        g,
        StreamConfig2D { view_distance: view, worker_threads: workers, max_in_flight: 3, ..Default::default() },
    )
    .unwrap();
    if detour {
        // Start elsewhere so jobs are cancelled and chunks come in another order.
        s.set_viewer(64.0 * 5.0, row + 200.0);
        s.pump();
        std::thread::sleep(Duration::from_millis(5));
        while s.try_recv().is_some() {}
    }
    s.set_viewer(0.0, row);
    let mut out = HashMap::new();
    let start = Instant::now();
    while !s.is_area_ready() {
        assert!(start.elapsed() < Duration::from_secs(120), "stream never became ready");
        s.pump();
        match s.try_recv() {
            Some(r) => {
                out.insert(r.coord, r.tiles);
            }
            None => std::thread::sleep(Duration::from_millis(1)),
        }
    }
    out.retain(|c, _| s.is_loaded(*c));
    out
}

#[test]
fn streamed_tiles_do_not_depend_on_thread_count_or_order() {
    let one = stream_all(1, 1, false);
    let three = stream_all(3, 1, true);
    assert_eq!(one.len(), 9);
    assert_eq!(one, three);
    let g = generator(77);
    for (c, tiles) in &one {
        assert_eq!(*tiles, g.generate_chunk(*c).tiles, "streamed chunk {c:?} differs from the generator");
    }
}

#[test]
fn the_surface_stays_whole_above_the_cave_depth() {
    for seed in [1, 2, 3] {
        let g = generator(seed);
        let depth = g.preset().side_view.cave_depth as i32;
        for x0 in [-3000, 0, 4096] {
            let top = (x0..x0 + 256).map(|x| g.surface_row(x)).min().unwrap();
            let grid = g.generate_region(x0, top - 2, 256, 200);
            let mut cave_tiles = 0;
            for x in x0..x0 + 256 {
                let s = g.surface_row(x);
                for y in s..s + depth {
                    let t = grid.get(x, y).unwrap();
                    assert!(block::is_solid(t), "seed {seed}: hole at ({x}, {y}), {} below the surface", y - s);
                }
                cave_tiles += (s + depth..top + 198).filter(|&y| grid.get(x, y) == Some(AIR)).count();
            }
            assert!(
                cave_tiles > 200,
                "seed {seed} x0 {x0}: expected caves below the depth, found {cave_tiles} open tiles"
            );
        }
    }
}

#[test]
fn water_never_floats() {
    let mut wet = 0;
    for seed in [4, 5, 6, 7] {
        let g = generator(seed);
        let top = (-2000..2000).map(|x| g.surface_row(x)).min().unwrap();
        let bottom = (-2000..2000).map(|x| g.surface_row(x)).max().unwrap();
        let grid = g.generate_region(-2000, top - 1, 4000, bottom - top + 3);
        for y in grid.min_y..grid.min_y + grid.height - 1 {
            for x in grid.min_x..grid.min_x + grid.width {
                if grid.get(x, y) == Some(WATER) {
                    wet += 1;
                    let below = grid.get(x, y + 1).unwrap();
                    assert!(below == WATER || block::is_solid(below), "seed {seed}: water at ({x}, {y}) over {below}");
                    // Held on both sides at its own level.
                    for side in [x - 1, x + 1] {
                        if let Some(t) = grid.get(side, y) {
                            assert!(
                                t == WATER || block::is_solid(t),
                                "seed {seed}: water at ({x}, {y}) spills to {side}"
                            );
                        }
                    }
                }
            }
        }
    }
    assert!(wet > 50, "expected some pools, found {wet} water tiles");
}

#[test]
fn ores_lie_only_below_their_depth() {
    let g = generator(11);
    let p = g.preset();
    let kinds: Vec<(BlockId, i32)> = p
        .ores
        .kinds
        .iter()
        .map(|k| (block::block_by_name(&k.block).unwrap(), k.min_depth.max(p.side_view.ore_depth) as i32))
        .collect();
    let top = (0..512).map(|x| g.surface_row(x)).min().unwrap();
    let grid = g.generate_region(0, top, 512, 256);
    let mut counts: HashMap<BlockId, usize> = HashMap::new();
    for x in 0..512 {
        let s = g.surface_row(x);
        for y in top..top + 256 {
            let t = grid.get(x, y).unwrap();
            if let Some(&(_, depth)) = kinds.iter().find(|(id, _)| *id == t) {
                assert!(y - s >= depth, "{} at depth {} < {depth}", block::block_info(t).name, y - s);
                *counts.entry(t).or_default() += 1;
            }
        }
    }
    assert!(counts.get(&block::COAL_ORE).copied().unwrap_or(0) > 100, "{counts:?}");
    assert!(counts.get(&block::IRON_ORE).copied().unwrap_or(0) > 20, "{counts:?}");
    let mut deeper = p.clone();
    deeper.side_view.ore_depth = 60;
    let g2 = Generator2D::new(&deeper).unwrap();
    let grid2 = g2.generate_region(0, top, 512, 256);
    for x in 0..512 {
        let s = g2.surface_row(x);
        for y in top..s + 60 {
            let t = grid2.get(x, y).unwrap();
            assert!(!kinds.iter().any(|(id, _)| *id == t), "ore above ore_depth at ({x}, {y})");
        }
    }
}

#[test]
fn edits_are_stored_as_an_edit_map_and_retiled() {
    let g = Arc::new(generator(3));
    let mut s =
        Streamer2D::new(g.clone(), StreamConfig2D { view_distance: 0, worker_threads: 1, ..Default::default() })
            .unwrap();
    let row = g.surface_row(10);
    s.set_viewer(10.0, row as f64);
    let start = Instant::now();
    while !s.is_area_ready() {
        assert!(start.elapsed() < Duration::from_secs(30));
        s.pump();
        if s.try_recv().is_none() {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    s.set_tile(10, row, AIR);
    s.set_tile(10, row - 1, STONE);
    assert_eq!(s.edits().len(), 2);
    assert_eq!(s.tile(10, row), AIR);
    assert_eq!(s.tile(10, row - 1), STONE);
    assert_eq!(strata_core::stream::stream2d::top_solid_row(&g, Some(s.edits()), 10), row - 1);
    s.set_tile(10, row - 1, AIR);
    assert_eq!(strata_core::stream::stream2d::top_solid_row(&g, Some(s.edits()), 10), row + 1);
    let mut update = None;
    while !s.is_area_ready() || update.is_none() {
        assert!(start.elapsed() < Duration::from_secs(30));
        s.pump();
        match s.try_recv() {
            Some(r) if r.is_update => update = Some(r),
            Some(_) => {}
            None => std::thread::sleep(Duration::from_millis(1)),
        }
    }
    let r = update.unwrap();
    let n = g.chunk_tiles();
    let (x0, y0) = r.coord.min_tile(n);
    let i = ((row - y0) * n + (10 - x0)) as usize;
    assert_eq!(r.tiles[i], AIR);
    assert_eq!(r.atlas[i], None, "the dug tile is erased");
    let below = i + n as usize;
    assert_eq!(
        r.atlas[below].map(|a| a.column & autotile::NORTH),
        Some(0),
        "the tile under the hole shows its top edge"
    );
}

/// The demo's atlas PNG must match [`autotile::atlas_rgba_with`] in the 47-tile blob layout;
/// `STRATA_WRITE_DEMO2D=1` rewrites it (and the TileSet `.tres` next to it).
#[test]
fn demo2d_tile_atlas_matches_the_generator() {
    const TILE_PX: u32 = 16;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../godot_project/demo2d");
    let png_path = dir.join("tiles.png");
    let png = autotile::atlas_png_with(TILE_PX, TileLayout::Blob47).expect("encode the atlas");
    if std::env::var_os("STRATA_WRITE_DEMO2D").is_some() {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(&png_path, &png).unwrap();
        std::fs::write(dir.join("tiles.tres"), tileset_tres(TILE_PX)).unwrap();
    }
    let committed = std::fs::read(&png_path).expect("demo2d/tiles.png exists (STRATA_WRITE_DEMO2D=1 writes it)");
    assert!(committed == png, "tiles.png is stale: rerun with STRATA_WRITE_DEMO2D=1");
    let tres = std::fs::read_to_string(dir.join("tiles.tres")).unwrap();
    assert_eq!(tres, tileset_tres(TILE_PX), "tiles.tres is stale: rerun with STRATA_WRITE_DEMO2D=1");
}

/// A TileSet with one atlas source (id 0) over `tiles.png`: every tile of the blob atlas layout
/// (47 columns), solid blocks with a full-square collision polygon on physics layer 0.
fn tileset_tres(tile_px: u32) -> String {
    let half = tile_px as f32 / 2.0;
    let mut s = String::new();
    s.push_str("[gd_resource type=\"TileSet\" load_steps=3 format=3]\n\n");
    s.push_str("[ext_resource type=\"Texture2D\" path=\"res://demo2d/tiles.png\" id=\"1_tiles\"]\n\n");
    s.push_str("[sub_resource type=\"TileSetAtlasSource\" id=\"TileSetAtlasSource_strata\"]\n");
    s.push_str("texture = ExtResource(\"1_tiles\")\n");
    s.push_str(&format!("texture_region_size = Vector2i({tile_px}, {tile_px})\n"));
    for row in 1..ATLAS_ROWS {
        for col in 0..TileLayout::Blob47.columns() {
            s.push_str(&format!("{col}:{row}/0 = 0\n"));
            if block::is_solid(row as BlockId) {
                s.push_str(&format!(
                    "{col}:{row}/0/physics_layer_0/polygon_0/points = PackedVector2Array(-{half}, -{half}, {half}, -{half}, {half}, {half}, -{half}, {half})\n"
                ));
            }
        }
    }
    s.push_str("\n[resource]\n");
    s.push_str(&format!("tile_size = Vector2i({tile_px}, {tile_px})\n"));
    s.push_str("physics_layer_0/collision_layer = 1\n");
    s.push_str("sources/0 = SubResource(\"TileSetAtlasSource_strata\")\n");
    s
}

fn shipped_2d(stem: &str) -> WorldPreset {
    load_preset_file(&shipped_presets_dir().join(format!("{stem}.ron"))).unwrap_or_else(|e| panic!("{e}"))
}

/// FNV-1a of the tiles of a region around the surface at x = 0.
fn region_fingerprint(g: &Generator2D) -> u64 {
    let top = g.surface_row(0) - 40;
    let grid = g.generate_region(-128, top, 256, 160);
    grid.tiles.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &t| (h ^ t as u64).wrapping_mul(0x100_0000_01b3))
}

/// The shipped side-view presets make the worlds pinned here; update a constant only for an
/// intended change of that world, and say why in the commit.
#[test]
fn side_view_presets_match_their_golden_regions() {
    const GOLDEN_2D: [(&str, u64); 2] =
        [("side_view_classic", 0xf1c5f42db1eac67b), ("side_view_value_noise", 0x221cf6958247742f)];
    let mut report = Vec::new();
    for (stem, want) in GOLDEN_2D {
        let g = Generator2D::new(&shipped_2d(stem)).unwrap();
        let got = region_fingerprint(&g);
        assert_eq!(got, region_fingerprint(&Generator2D::new(&shipped_2d(stem)).unwrap()), "{stem}: deterministic");
        if got != want {
            report.push(format!("(\"{stem}\", {got:#018x}),"));
        }
    }
    assert!(report.is_empty(), "side-view worlds changed; if intended, use:\n{}", report.join("\n"));
}

#[test]
fn the_side_view_classic_is_seamless_with_open_caves_under_a_whole_surface() {
    for xor in [false, true] {
        let mut p = shipped_2d("side_view_classic");
        p.side_view.classic_xor_frequency = xor;
        let g = Generator2D::new(&p).unwrap();
        let n = g.chunk_tiles();
        for c in interesting_chunks(&g) {
            let (x, y) = c.min_tile(n);
            let block = g.generate_region(x - n, y - n, 3 * n, 3 * n);
            assert_eq!(g.generate_chunk(c), block.crop(x, y, n, n), "xor {xor} chunk {c:?}");
            assert_eq!(g.generate_padded_chunk(c), block.crop(x - 1, y - 1, n + 2, n + 2), "xor {xor} padded {c:?}");
        }
        // Caves open below the poke depth, about as much rock as air; the top rows stay whole.
        let top = (0..256).map(|x| g.surface_row(x)).min().unwrap();
        let grid = g.generate_region(0, top, 256, 200);
        let mut open_deep = 0;
        for x in 0..256 {
            let s = g.surface_row(x);
            assert_ne!(grid.get(x, s), Some(AIR), "x {x}: the surface tile is ground");
            for y in s + 40..top + 200 {
                open_deep += (grid.get(x, y) == Some(AIR)) as u32;
            }
        }
        assert!(open_deep > 2000, "xor {xor}: caves open: {open_deep}");
    }
    // The XOR flag changes the surface line.
    let plain = Generator2D::new(&shipped_2d("side_view_classic")).unwrap();
    let mut p = shipped_2d("side_view_classic");
    p.side_view.classic_xor_frequency = true;
    let xor = Generator2D::new(&p).unwrap();
    assert!((0..200).filter(|&x| plain.surface_row(x) != xor.surface_row(x)).count() > 50);
}

#[test]
fn blob_tiles_at_chunk_borders_read_the_neighbouring_chunks() {
    let g = Generator2D::new(&shipped_2d("side_view_classic")).unwrap();
    let rules = TileRules::builtin().as_ref().clone().with_layout(TileLayout::Blob47);
    let n = g.chunk_tiles();
    let w = 3 * n;
    let mut border_differs = 0;
    for c in interesting_chunks(&g) {
        let (x, y) = c.min_tile(n);
        let alone = autotile_padded_with(&g.generate_padded_chunk(c), &rules);
        let block = autotile_padded_with(&g.generate_region(x - n - 1, y - n - 1, w + 2, w + 2), &rules);
        // The chunk without its halo (air around it) tiles its border differently.
        let chunk = g.generate_chunk(c);
        let mut bare = TileGrid::new(x - 1, y - 1, n + 2, n + 2);
        for j in 0..n {
            for i in 0..n {
                bare.set(x + i, y + j, chunk.get(x + i, y + j).unwrap());
            }
        }
        let without_halo = autotile_padded_with(&bare, &rules);
        for j in 0..n {
            for i in 0..n {
                let k = (j * n + i) as usize;
                assert_eq!(alone[k], block[((j + n) * w + i + n) as usize], "chunk {c:?} tile {i},{j}");
                border_differs += (alone[k] != without_halo[k]) as u32;
            }
        }
        assert!(alone.iter().flatten().all(|a| (a.column as u32) < 47));
    }
    assert!(border_differs > 0, "border tiles use the neighbours' cells");
}

/// Prints a side view (run with `--ignored --nocapture` to look at the world in a terminal).
#[test]
#[ignore]
fn print_a_side_view() {
    // `PRESET=side_view_classic` prints a shipped preset's world instead of the default's.
    let g = match std::env::var("PRESET") {
        Ok(stem) => Generator2D::new(&shipped_2d(&stem)).unwrap(),
        Err(_) => generator(std::env::var("SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(1337)),
    };
    let top = (0..160).map(|x| g.surface_row(x)).min().unwrap();
    for row in g.generate_region(0, top - 3, 160, 70).to_ascii() {
        println!("{row}");
    }
}
