//! Height sources, biomes and the column pass, end to end: every source alone (and the blend) is
//! seamless (a chunk made alone equals the same box cut from a 3×3×3 block) and deterministic
//! (same seed → same voxels, another seed → other voxels); grids equal point samples; biome
//! borders have no walls and every default biome appears.

use std::path::PathBuf;
use strata_core::base::coords::{CHUNK_SIZE, ChunkCoord, IVec3};
use strata_core::gen3d::pipeline::{Generator, GeneratorOptions};
use strata_core::noise::heightmap::write_gray16_png;
use strata_core::preset::model::{HeightmapWrap, Interpolation, WorldPreset};

/// A preset that selects only the sources `set` turns on.
fn only(set: impl Fn(&mut WorldPreset)) -> WorldPreset {
    let mut p = WorldPreset::default();
    p.height.perlin_weight = 0.0;
    set(&mut p);
    p
}

/// A small synthetic 16-bit heightmap (a ridge and a bowl), written to a temp folder.
fn test_heightmap() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("strata-heights-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("island.png");
    let (w, h) = (48u32, 40u32);
    let samples: Vec<u16> = (0..w * h)
        .map(|i| {
            let (x, z) = ((i % w) as f64 / w as f64, (i / w) as f64 / h as f64);
            let ridge = (-(x - 0.3).powi(2) * 40.0).exp();
            let bowl = ((x - 0.7).powi(2) + (z - 0.5).powi(2)).sqrt();
            ((ridge * 0.6 + bowl * 0.4).min(1.0) * 65535.0) as u16
        })
        .collect();
    write_gray16_png(&path, w, h, &samples).unwrap();
    path
}

fn presets() -> Vec<(&'static str, WorldPreset)> {
    let map = test_heightmap().to_string_lossy().into_owned();
    let map2 = map.clone();
    vec![
        ("perlin", only(|p| p.height.perlin_weight = 1.0)),
        ("open simplex", only(|p| p.height.open_simplex_weight = 1.0)),
        ("simplex", only(|p| p.height.exact_simplex_weight = 1.0)),
        (
            "simplex r² 0.6",
            only(|p| {
                p.height.exact_simplex_weight = 1.0;
                p.height.simplex_radius_squared = 0.6;
            }),
        ),
        ("ridged", only(|p| p.height.ridged_weight = 1.0)),
        (
            "value linear",
            only(|p| {
                p.height.value_weight = 1.0;
                p.height.value_interpolation = Interpolation::Linear;
            }),
        ),
        (
            "value cosine",
            only(|p| {
                p.height.value_weight = 1.0;
                p.height.value_interpolation = Interpolation::Cosine;
            }),
        ),
        (
            "diamond-square",
            only(|p| {
                p.height.diamond_square_weight = 1.0;
                p.height.diamond_square_cell_log2 = 5;
            }),
        ),
        (
            "midpoint ravines",
            only(|p| {
                p.height.perlin_weight = 1.0;
                p.height.ravine_depth = 20.0;
                p.height.ravine_width = 12.0;
                p.height.ravine_spacing = 64.0;
            }),
        ),
        (
            "heightmap tiled",
            only(move |p| {
                p.height.heightmap_weight = 1.0;
                p.height.heightmap_path = map.clone();
                p.height.heightmap_cell_size = 1.5;
                p.height.heightmap_wrap = HeightmapWrap::Tile;
            }),
        ),
        (
            "heightmap bordered",
            only(move |p| {
                p.height.heightmap_weight = 1.0;
                p.height.heightmap_path = map2.clone();
                p.height.heightmap_cell_size = 1.0;
                p.height.heightmap_wrap = HeightmapWrap::Border;
            }),
        ),
        (
            "blend",
            only(|p| {
                p.height.perlin_weight = 0.5;
                p.height.open_simplex_weight = 0.2;
                p.height.exact_simplex_weight = 0.1;
                p.height.ridged_weight = 0.3;
                p.height.value_weight = 0.2;
                p.height.diamond_square_weight = 0.4;
                p.height.diamond_square_cell_log2 = 6;
                p.height.ravine_depth = 10.0;
                p.height.ravine_spacing = 96.0;
                p.height.ravine_width = 8.0;
                p.biomes.cell_size = 48.0;
                p.biomes.blend_distance = 16.0;
            }),
        ),
    ]
}

/// A chunk column position near the origin whose chunk contains the surface.
fn surface_chunk(g: &Generator, cx: i32, cz: i32) -> ChunkCoord {
    let s = g.surface_height(cx * CHUNK_SIZE + 16, cz * CHUNK_SIZE + 16);
    ChunkCoord::new(cx, s.div_euclid(CHUNK_SIZE), cz)
}

#[test]
fn every_source_is_seamless_and_deterministic() {
    for (name, preset) in presets() {
        let g = Generator::new(&preset).unwrap_or_else(|e| panic!("{name}: {e}"));
        let c = surface_chunk(&g, 1, -1);
        let alone = g.generate_chunk(c);
        let block = g.generate_box(c.min_voxel() - IVec3::splat(CHUNK_SIZE), IVec3::splat(3 * CHUNK_SIZE));
        assert_eq!(
            alone,
            block.sub_buffer(c.min_voxel(), IVec3::splat(CHUNK_SIZE)),
            "{name}: chunk differs from the block"
        );
        assert!(!alone.is_empty() && alone.data().contains(&0), "{name}: chunk {c:?} should hold the surface");
        // Neighbouring chunks in the block agree with themselves made alone too.
        for d in [IVec3::new(1, 0, 0), IVec3::new(0, 0, -1), IVec3::new(-1, 1, 1)] {
            let n = ChunkCoord::new(c.x + d.x, c.y + d.y, c.z + d.z);
            assert_eq!(
                g.generate_chunk(n),
                block.sub_buffer(n.min_voxel(), IVec3::splat(CHUNK_SIZE)),
                "{name}: neighbour {d:?}"
            );
        }
        // Same seed, same voxels; another seed, other voxels.
        let again = Generator::new(&preset).unwrap();
        assert_eq!(again.generate_chunk(c).content_hash(), alone.content_hash(), "{name}");
        let mut other = preset.clone();
        other.seed ^= 0x5eed;
        if !name.starts_with("heightmap") {
            let g2 = Generator::new(&other).unwrap();
            let a = g.generate_box(IVec3::new(-64, -64, -64), IVec3::new(128, 160, 128));
            let b = g2.generate_box(IVec3::new(-64, -64, -64), IVec3::new(128, 160, 128));
            assert_ne!(a.content_hash(), b.content_hash(), "{name}: the seed changes the world");
        }
        // The column pass agrees with single columns and with the surface height.
        let mut cols = Vec::new();
        g.columns_into(-40, 17, 50, 9, &mut cols);
        for (i, col) in cols.iter().enumerate() {
            let (x, z) = (-40 + (i % 50) as i32, 17 + (i / 50) as i32);
            assert_eq!(*col, g.column(x, z), "{name}: column ({x}, {z})");
            assert_eq!(col.surface, g.surface_height(x, z), "{name}");
        }
    }
}

#[test]
fn heightmap_sources_follow_the_image() {
    let path = test_heightmap();
    let mut p = only(|p| p.height.heightmap_weight = 1.0);
    p.height.heightmap_path = path.to_string_lossy().into_owned();
    p.height.heightmap_cell_size = 1.0;
    p.biomes.enabled = false;
    let g = Generator::new(&p).unwrap();
    let t = g.terrain();
    // Mirrored tiling: the world repeats with period 2·(W − 1) = 94 voxels in x, mirrored.
    for z in -20..20 {
        let z = z as f64 + 0.25;
        assert_eq!(t.sample(3.5, z).height, t.sample(3.5 + 94.0, z).height);
        assert_eq!(t.sample(-23.5 + 5.0, z).height, t.sample(-23.5 - 5.0, z).height, "mirror about the image edge");
    }
    // Relief spans the amplitude around the base height.
    let heights: Vec<f64> = (0..48).map(|x| t.sample(x as f64 - 23.5, 0.0).height).collect();
    let lo = heights.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = heights.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    assert!(hi - lo > 0.5 * p.height.amplitude as f64, "{lo}..{hi}");
    // Bordered: far outside the image the generated terrain (Perlin) rules.
    p.height.heightmap_wrap = HeightmapWrap::Border;
    let g = Generator::new(&p).unwrap();
    let mut perlin = p.clone();
    perlin.height.heightmap_weight = 0.0;
    perlin.height.perlin_weight = 1.0;
    let gp = Generator::new(&perlin).unwrap();
    assert_eq!(g.height_f(500.5, -300.5), gp.height_f(500.5, -300.5));
    assert_ne!(g.height_f(0.5, 0.5), gp.height_f(0.5, 0.5));
    // A missing file is a typed error that names it.
    p.height.heightmap_path = "/no/such/heights.png".into();
    let e = Generator::new(&p).unwrap_err();
    assert!(e.to_string().contains("/no/such/heights.png"), "{e}");
}

#[test]
fn biome_borders_have_no_walls_and_every_biome_appears() {
    // Sampled along 16 transects of 8192 columns (about 600 biome borders crossed): neighbouring
    // columns differ by at most 8 voxels. Why 8: biome parameters change across a border over at
    // least `blend_distance / 2 = 16` voxels on each side (module doc of `gen3d::biomes`),
    // with smoothstep weights, whose slope is at most 1.5 × 2 / 32 ≈ 0.094 per voxel; the widest
    // parameter gaps of the default table (offset 26, scale 1.3 × amplitude 40 × |noise| ≲ 0.6)
    // then add at most ≈ 2.4 + 2.9 per column, plus the noise's own slope (≈ 1–2) and the
    // rounding of surfaces (1). Without blending the same sample has walls far above that.
    let step = |blend: f32| {
        let mut p = WorldPreset::default();
        p.biomes.blend_distance = blend;
        let g = Generator::new(&p).unwrap();
        let (mut max_step, mut borders) = (0, 0);
        let mut cols = Vec::new();
        for row in 0..16 {
            cols.clear();
            g.columns_into(-4096, row * 640 - 5000, 8192, 2, &mut cols);
            for i in 0..8191 {
                let (a, b, c) = (cols[i], cols[i + 1], cols[i + 8192]);
                borders += (a.biome != b.biome) as u32;
                max_step = max_step.max((a.surface - b.surface).abs()).max((a.surface - c.surface).abs());
            }
        }
        (max_step, borders)
    };
    let (blended, borders) = step(32.0);
    assert!(borders > 100, "the sample crosses many borders: {borders}");
    assert!(blended <= 8, "largest step between neighbouring columns: {blended}");
    let (walls, _) = step(0.0);
    assert!(walls > 2 * blended && walls > 12, "without blending borders are walls: {walls}");

    let g = Generator::new(&WorldPreset::default()).unwrap();
    let mut seen = vec![0u32; g.biomes().len()];
    for k in 0..128 {
        for i in 0..128 {
            seen[g.biome_index_at(i * 256 - 16384, k * 256 - 16384) as usize] += 1;
        }
    }
    for (b, n) in g.biomes().iter().zip(&seen) {
        assert!(*n > 100, "biome {} appears {n} times in 16384 samples", b.name);
    }
    assert_eq!(g.biome_at(10, 10).name, g.biomes()[g.column(10, 10).biome as usize].name);
}

#[test]
fn slopes_show_rock_and_biomes_pick_blocks() {
    let mut p = WorldPreset::default();
    p.height.ridged_weight = 1.0;
    p.height.amplitude = 200.0;
    p.height.scale = 128.0;
    p.biomes.rock_slope = 1.0;
    p.water.enabled = false;
    let g = Generator::new(&p).unwrap();
    let mut cols = Vec::new();
    g.columns_into(-256, -256, 512, 512, &mut cols);
    let stone = strata_core::base::block::STONE;
    let rock = cols.iter().filter(|c| c.surface_block == stone).count();
    assert!(rock > 0 && rock < cols.len(), "{rock} rock columns of {}", cols.len());
    // Columns that are not rock wear their biome's blocks.
    for c in cols.iter().filter(|c| c.surface_block != stone).take(2000) {
        let b = &g.biomes()[c.biome as usize];
        assert_eq!(strata_core::base::block::block_info(c.surface_block).name, b.surface_block);
    }
}

/// A preset whose heightmap cannot be loaded is refused with the loader's own error, by the
/// check a designer runs (`Generator::check_preset`, what `StrataWorldPreset.validate()` calls) and by
/// building the world, alike.
#[test]
fn an_unloadable_heightmap_is_the_error_of_check_and_build() {
    let dir = std::env::temp_dir().join(format!("strata-heights-bad-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("folder.png")).unwrap();
    std::fs::write(dir.join("junk.png"), b"not a png").unwrap();
    std::fs::write(dir.join("short.hgt"), [0u8; 10]).unwrap();
    let good = test_heightmap();
    for (file, expected) in [
        ("missing.png", "cannot read the file"),
        ("folder.png", "is a folder; allowed: a regular .png, .hgt, .asc or .spca file"),
        ("junk.png", "not a readable PNG"),
        ("short.hgt", "10 bytes is not an SRTM tile"),
    ] {
        let p = only(|p| {
            p.height.heightmap_weight = 1.0;
            p.height.heightmap_path = file.into();
        });
        assert!(p.validate().is_ok(), "the fields alone are valid");
        let check =
            Generator::check_preset(&p, GeneratorOptions::default().base_dir(Some(&dir))).unwrap_err().to_string();
        let build =
            Generator::with_options(&p, GeneratorOptions::default().base_dir(Some(&dir))).unwrap_err().to_string();
        assert_eq!(check, build);
        assert!(check.contains(file) && check.contains(expected), "{check}");
    }
    let p = only(|p| {
        p.height.heightmap_weight = 1.0;
        p.height.heightmap_path = good.to_string_lossy().into_owned();
    });
    Generator::check_preset(&p, GeneratorOptions::default()).unwrap();
    std::fs::remove_dir_all(dir).ok();
}
