//! Structures in the world: placed as a pure function of seed, rule and cell, identical whichever
//! chunk is generated first (a structure spanning several chunks equals the same region
//! generated whole), never cut by caves, ores or water, with no scatter inside, honoured by the
//! sky shortcut and the light; `.vox` files read back to the same cells; bad rules and files get
//! errors naming the rule, the file and what is allowed.

use strata_core::base::block::{AIR, BlockId};
use strata_core::base::block_library::default_library;
use strata_core::base::chunk::VoxelBuffer;
use strata_core::base::coords::{CHUNK_SIZE, ChunkCoord, IVec3};
use strata_core::gen3d::columns::ColumnGrid;
use strata_core::gen3d::pipeline::{Generator, GeneratorError, GeneratorOptions};
use strata_core::gen3d::scratch::GenScratch;
use strata_core::gen3d::structure_library::{SHIPPED_STRUCTURES, shipped_structures, shipped_structures_with};
use strata_core::gen3d::structures::{KEEP, Placement, StructureError, StructureLibrary, StructureTemplate};
use strata_core::preset::fingerprint::fingerprint;
use strata_core::preset::model::{StructurePlacement, StructureRule, WorldPreset};
use strata_core::preset::ron::{preset_from_ron, preset_to_ron};

fn rule(structure: &str, placement: StructurePlacement, spacing: i32, chance: f32) -> StructureRule {
    StructureRule {
        structure: structure.into(),
        placement,
        spacing,
        chance,
        sink: if structure == "cottage" { 3 } else { 1 },
        depth_min: 4,
        depth_max: 12,
        ..Default::default()
    }
}

/// The default world with cottages, ruins and crypts in every cell they fit.
fn dense_preset() -> WorldPreset {
    let mut p = WorldPreset::default();
    p.structures.rules = vec![
        rule("cottage", StructurePlacement::Surface, 40, 1.0),
        rule("ruin", StructurePlacement::Surface, 56, 0.7),
        rule("crypt", StructurePlacement::Underground, 48, 1.0),
    ];
    p
}

/// The world cell of a placement's local cell `(u, y, v)` holds what its template says.
fn template_cell(p: &Placement, t: &StructureTemplate, u: i32, y: i32, v: i32) -> BlockId {
    let s = t.size();
    let l = match p.turns & 3 {
        0 => IVec3::new(u, y, v),
        1 => IVec3::new(v, y, s.z - 1 - u),
        2 => IVec3::new(s.x - 1 - u, y, s.z - 1 - v),
        _ => IVec3::new(s.x - 1 - v, y, u),
    };
    t.get(l)
}

#[test]
fn the_default_world_has_no_structures_and_keeps_its_fingerprint() {
    let p = WorldPreset::default();
    assert!(p.structures.is_empty());
    assert!(!preset_to_ron(&p).contains("structures"), "a preset without rules writes none");
    let g = Generator::new(&p).unwrap();
    assert!(g.structures_in((-500, -500), (500, 500)).is_empty());
    assert_ne!(fingerprint(&p), fingerprint(&dense_preset()), "rules are part of the world");
}

#[test]
fn structures_stand_where_the_rules_say_and_nothing_cuts_them() {
    let p = dense_preset();
    let g = Generator::new(&p).unwrap();
    let lib = shipped_structures(default_library()).unwrap();
    let placements = g.structures_in((-200, -200), (200, 200));
    let count =
        |name: &str| placements.iter().filter(|q| p.structures.rules[q.rule as usize].structure == name).count();
    assert!(count("cottage") >= 8, "cottages: {}", count("cottage"));
    assert!(count("ruin") >= 2 && count("crypt") >= 8, "ruins {} crypts {}", count("ruin"), count("crypt"));
    let mut checked = 0;
    for q in placements.iter().take(24) {
        let rule = &p.structures.rules[q.rule as usize];
        let t = lib.get(&rule.structure).unwrap();
        let world = g.generate_box(q.min, q.size);
        // Every cell the template sets is in the world (a later placement may overlap it).
        let later: Vec<&Placement> = placements.iter().skip_while(|o| *o != q).skip(1).collect();
        for y in 0..q.size.y {
            for v in 0..q.size.z {
                for u in 0..q.size.x {
                    let w = q.min + IVec3::new(u, y, v);
                    let overlapped = later.iter().any(|o| {
                        w.x >= o.min.x
                            && w.x < o.max().x
                            && w.y >= o.min.y
                            && w.y < o.max().y
                            && w.z >= o.min.z
                            && w.z < o.max().z
                    });
                    let cell = template_cell(q, t, u, y, v);
                    if cell != KEEP && !overlapped {
                        assert_eq!(world.get(w), Some(cell), "{} at {w:?} of {q:?}", rule.structure);
                        checked += 1;
                    }
                }
            }
        }
        match rule.placement {
            StructurePlacement::Surface => {
                let c = g.column(q.min.x + q.size.x / 2, q.min.z + q.size.z / 2);
                assert_eq!(q.min.y, c.surface - rule.sink, "{q:?}");
            }
            StructurePlacement::Underground => {
                let c = g.column(q.min.x + q.size.x / 2, q.min.z + q.size.z / 2);
                let depth = c.surface - q.max().y;
                assert!((rule.depth_min..=rule.depth_max).contains(&depth), "{q:?} depth {depth}");
            }
            StructurePlacement::Cave => panic!("a 3D world refuses cave rules, yet placed {q:?}"),
        }
    }
    assert!(checked > 10_000, "{checked} cells checked");
}

#[test]
fn a_structure_across_chunk_borders_is_the_same_whichever_chunk_comes_first() {
    let g = Generator::new(&dense_preset()).unwrap();
    // A placement crossing a chunk border on x and z.
    let q = g
        .structures_in((-300, -300), (300, 300))
        .into_iter()
        .find(|q| {
            let crosses = |lo: i32, hi: i32| lo.div_euclid(CHUNK_SIZE) != (hi - 1).div_euclid(CHUNK_SIZE);
            crosses(q.min.x, q.max().x) && crosses(q.min.z, q.max().z)
        })
        .expect("a structure across chunk corners");
    let (lo, hi) = (ChunkCoord::containing(q.min), ChunkCoord::containing(q.max() - IVec3::ONE));
    let min = lo.min_voxel();
    let size = hi.min_voxel() + IVec3::splat(CHUNK_SIZE) - min;
    let whole = g.generate_box(min, size);
    // Chunks generated one by one, in reverse order, each alone.
    let mut chunks = Vec::new();
    for y in lo.y..=hi.y {
        for z in lo.z..=hi.z {
            for x in lo.x..=hi.x {
                chunks.push(ChunkCoord::new(x, y, z));
            }
        }
    }
    assert!(chunks.len() >= 4, "{q:?} spans {} chunks", chunks.len());
    for c in chunks.iter().rev() {
        let alone = g.generate_chunk(*c);
        assert_eq!(alone, whole.sub_buffer(c.min_voxel(), IVec3::splat(CHUNK_SIZE)), "chunk {c:?} of {q:?}");
    }
    // Two generators of the same preset agree, whatever they generated before.
    let g2 = Generator::new(&dense_preset()).unwrap();
    let _ = g2.generate_box(IVec3::new(700, 0, 700), IVec3::splat(40));
    assert_eq!(g2.generate_box(min, size), whole);
}

#[test]
fn the_sky_shortcut_and_scatter_know_about_structures() {
    let g = Generator::new(&dense_preset()).unwrap();
    let cottages: Vec<Placement> =
        g.structures_in((-400, -400), (400, 400)).into_iter().filter(|q| q.rule == 0).collect();
    let mut sky_shortcut_would_lie = 0;
    let (mut padded, mut shortcut) =
        (VoxelBuffer::new(IVec3::ZERO, IVec3::ONE), VoxelBuffer::new(IVec3::ZERO, IVec3::ONE));
    let (mut columns, mut scratch) = (ColumnGrid::default(), GenScratch::default());
    for q in &cottages {
        let roof = ChunkCoord::containing(q.max() - IVec3::ONE);
        let (_, ground_top) = g.surface_range(roof);
        if roof.min_voxel().y > ground_top {
            sky_shortcut_would_lie += 1;
        }
        assert!(!g.chunk_is_sky(roof), "the chunk of a roof is not sky: {q:?}");
        g.generate_padded_chunk(roof, &mut padded);
        let sky = g.generate_padded_chunk_unless_sky(roof, &mut shortcut, &mut columns, &mut scratch);
        assert!(!sky);
        assert_eq!(padded, shortcut, "{roof:?}");
    }
    assert!(sky_shortcut_would_lie > 0, "some roof stands in a chunk above all ground");
    let scatter = g.scatter_columns(-400, -400, 800, 800);
    let all = g.structures_in((-400, -400), (400, 400));
    for s in &scatter {
        let b = s.base_voxel();
        let inside = all.iter().any(|q| {
            b.x >= q.min.x && b.x < q.max().x && b.z >= q.min.z && b.z < q.max().z && b.y >= q.min.y && b.y <= q.max().y
        });
        assert!(!inside, "{s:?} stands inside a structure");
    }
    // Without structures the same ground carries scatter there.
    let plain = Generator::new(&WorldPreset::default()).unwrap();
    assert!(plain.scatter_columns(-400, -400, 800, 800).len() > scatter.len());
}

#[test]
fn the_shipped_structures_read_back_from_vox_files() {
    let lib = shipped_structures(default_library()).unwrap();
    assert_eq!(lib.names(), SHIPPED_STRUCTURES);
    for t in lib.templates() {
        let (bytes, palette) = t.to_vox_bytes(default_library());
        let back = StructureTemplate::from_vox_bytes(t.name(), &bytes, default_library(), &palette).unwrap();
        assert_eq!(&back, t.as_ref(), "{}", t.name());
        // Without the names, colours pick the blocks: air from magenta, the rest by nearest colour.
        let by_colour = StructureTemplate::from_vox_bytes(t.name(), &bytes, default_library(), &[]).unwrap();
        assert_eq!(by_colour.size(), t.size());
        let s = t.size();
        for (y, z, x) in (0..s.y).flat_map(|y| (0..s.z).flat_map(move |z| (0..s.x).map(move |x| (y, z, x)))) {
            let l = IVec3::new(x, y, z);
            assert_eq!(t.get(l) == KEEP, by_colour.get(l) == KEEP, "{} {l:?}", t.name());
            assert_eq!(t.get(l) == AIR, by_colour.get(l) == AIR, "{} {l:?}", t.name());
        }
    }
    assert_ne!(lib.fingerprint(), StructureLibrary::default().fingerprint());
}

#[test]
fn bad_vox_files_and_rules_get_errors_naming_what_is_wrong() {
    let lib = default_library();
    for bytes in [&b""[..], b"VOX ", b"not a vox file at all", &[0xff; 64][..]] {
        let e = StructureTemplate::from_vox_bytes("junk", bytes, lib, &[]).unwrap_err();
        assert!(matches!(e, StructureError::Vox { .. }), "{e}");
        assert!(e.to_string().contains("structure `junk`"), "{e}");
    }
    let cottage = shipped_structures(lib).unwrap().get("cottage").unwrap().clone();
    let (bytes, _) = cottage.to_vox_bytes(lib);
    let e = StructureTemplate::from_vox_bytes("cottage", &bytes, lib, &[(1, "marble".into())]).unwrap_err();
    assert!(e.to_string().contains("`marble`") && e.to_string().contains("stone"), "{e}");
    // Every truncation of a real file is refused or read, never a panic.
    for n in 0..bytes.len() {
        let _ = StructureTemplate::from_vox_bytes("cut", &bytes[..n], lib, &[]);
    }

    let mut p = WorldPreset::default();
    p.structures.rules = vec![rule("castle", StructurePlacement::Surface, 64, 0.5)];
    let e = Generator::new(&p).unwrap_err();
    assert!(matches!(e, GeneratorError::Structure(StructureError::UnknownStructure { .. })), "{e}");
    assert!(e.to_string().contains("structures.rules[0]") && e.to_string().contains("cottage"), "{e}");
    // A world's own structure wider than its rule's spacing.
    let tower = StructureTemplate::new("tower", IVec3::new(20, 3, 18), vec![1; 20 * 3 * 18]).unwrap();
    let own = StructureLibrary::new(vec![tower]);
    p.structures.rules = vec![rule("tower", StructurePlacement::Surface, 16, 0.5)];
    let e = Generator::with_options(
        &p,
        GeneratorOptions::default().library(lib).structures(&own).heightmap_loader(|_| unreachable!()),
    )
    .unwrap_err();
    assert!(e.to_string().contains("spacing") && e.to_string().contains("at least 20"), "{e}");
    p.structures.rules[0].spacing = 20;
    let g = Generator::with_options(
        &p,
        GeneratorOptions::default().library(lib).structures(&own).heightmap_loader(|_| unreachable!()),
    )
    .unwrap();
    let q = g.structures_in((0, 0), (200, 200));
    assert!(!q.is_empty() && q.iter().all(|q| q.size.y == 3 && q.size.x + q.size.z == 38), "{q:?}");
    let e = StructureTemplate::new("flat", IVec3::new(0, 3, 3), Vec::new()).unwrap_err();
    assert!(e.to_string().contains("0×3×3") && e.to_string().contains("1..=256"), "{e}");
    for (bad, field) in [
        (StructureRule { chance: 1.5, ..rule("ruin", StructurePlacement::Surface, 64, 0.5) }, "chance"),
        (StructureRule { spacing: 8, ..rule("ruin", StructurePlacement::Surface, 64, 0.5) }, "spacing"),
        (
            StructureRule { depth_min: 40, depth_max: 10, ..rule("crypt", StructurePlacement::Underground, 64, 0.5) },
            "depth_min",
        ),
        (StructureRule { biomes: vec!["moon".into()], ..rule("ruin", StructurePlacement::Surface, 64, 0.5) }, "biomes"),
    ] {
        p.structures.rules = vec![bad];
        let e = p.validate().unwrap_err();
        assert_eq!(e.field, format!("structures.rules[0].{field}"), "{e}");
    }
}

#[test]
fn rules_travel_in_preset_files_and_restrict_biomes() {
    let mut p = dense_preset();
    let desert = p.biomes.table.iter().find(|b| b.name.contains("esert")).map(|b| b.name.clone());
    if let Some(name) = &desert {
        p.structures.rules[1].biomes = vec![name.clone()];
    }
    let text = preset_to_ron(&p);
    let back = preset_from_ron(&text, "test").unwrap();
    assert_eq!(back, p);
    assert_eq!(fingerprint(&back), fingerprint(&p));
    // The sparse form that world saves store.
    let sparse = strata_core::preset::fingerprint::preset_to_sparse_ron(&p);
    assert!(sparse.contains("cottage"), "{sparse}");
    assert_eq!(strata_core::preset::fingerprint::preset_from_sparse_ron(&sparse, "save").unwrap(), p);
    if desert.is_some() {
        let g = Generator::new(&p).unwrap();
        for q in g.structures_in((-2000, -2000), (2000, 2000)).iter().filter(|q| q.rule == 1) {
            let c = g.column(q.min.x + q.size.x / 2, q.min.z + q.size.z / 2);
            assert_eq!(g.biomes()[c.biome as usize].name, desert.clone().unwrap());
        }
    }
}

#[test]
fn a_cottage_shades_its_room_and_its_torch_lights_it() {
    use strata_core::light::LightProps;
    use strata_core::stream::query::light_at;
    let mut p = WorldPreset::default();
    p.structures.rules = vec![rule("cottage", StructurePlacement::Surface, 64, 1.0)];
    let g = Generator::new(&p).unwrap();
    let props = LightProps::default_blocks();
    let q = g.structures_in((0, 0), (256, 256))[0];
    // The room's middle, one above the floor (floor at y = min + 3), under the roof.
    let room = IVec3::new(q.min.x + q.size.x / 2, q.min.y + 4, q.min.z + q.size.z / 2);
    assert_eq!(g.voxel_at(room), AIR, "{q:?}");
    let inside = light_at(&g, None, &props, room).unwrap();
    let above = light_at(&g, None, &props, IVec3::new(room.x, q.max().y + 1, room.z)).unwrap();
    assert_eq!(above.sky(), 15, "open sky above the roof");
    assert!(inside.sky() < 15, "the roof shades the room: sky {}", inside.sky());
    assert!(inside.block() > 0, "the torch lights the room: block {}", inside.block());
}

#[test]
fn the_far_view_shows_a_cottage_s_silhouette() {
    use strata_core::stream::far_mesh::{FarMesh, FarScratch, build_far_column};
    use strata_core::stream::far_policy::LodColumn;
    let mut p = WorldPreset::default();
    p.structures.rules = vec![rule("cottage", StructurePlacement::Surface, 64, 1.0)];
    let with = Generator::new(&p).unwrap();
    let plain = Generator::new(&WorldPreset::default()).unwrap();
    let q = with.structures_in((0, 0), (512, 512))[0];
    let top = q.max().y;
    assert!(top > with.surface_height(q.min.x + q.size.x / 2, q.min.z + q.size.z / 2), "stands above the ground");
    let highest = |g: &Generator, c: LodColumn| {
        let mut out = FarMesh::default();
        build_far_column(g, c, &mut FarScratch::default(), &mut out);
        let (x0, z0, x1, z1) = (q.min.x as f32, q.min.z as f32, q.max().x as f32, q.max().z as f32);
        out.mesh
            .surfaces()
            .iter()
            .flat_map(|s| s.positions.iter())
            .map(|v| [v[0] + out.origin.x as f32, v[1] + out.origin.y as f32, v[2] + out.origin.z as f32])
            .filter(|v| v[0] >= x0 && v[0] <= x1 && v[2] >= z0 && v[2] <= z1)
            .map(|v| v[1])
            .fold(f32::MIN, f32::max)
    };
    for level in 1..=2u8 {
        let c = LodColumn::containing(level, q.min.x + q.size.x / 2, q.min.z + q.size.z / 2);
        let (h_with, h_plain) = (highest(&with, c), highest(&plain, c));
        let stride = c.stride() as f32;
        assert!(h_with >= top as f32 - stride, "level {level}: far top {h_with} under the roof at {top}");
        assert!(h_with > h_plain + 2.0, "level {level}: {h_with} is the ground's {h_plain}");
    }
}

#[test]
fn a_worlds_own_structures_join_the_shipped_ones_and_replace_one_of_the_same_name() {
    let lib = default_library();
    let tower = StructureTemplate::new("tower", IVec3::new(3, 5, 3), vec![1; 45]).unwrap();
    let cottage = StructureTemplate::new("cottage", IVec3::new(2, 2, 2), vec![KEEP; 8]).unwrap();
    let all = shipped_structures_with(lib, vec![tower.clone(), cottage.clone()]);
    assert_eq!(all.names(), ["cottage", "ruin", "crypt", "tower"]);
    assert_eq!(all.get("cottage").unwrap().as_ref(), &cottage, "the world's own cottage replaces the shipped one");
    assert_eq!(all.get("tower").unwrap().cells(), tower.cells());
    assert_ne!(all.fingerprint(), shipped_structures(lib).unwrap().fingerprint());

    // The preset check knows the world's own structures; the shipped-only check does not.
    let mut p = WorldPreset::default();
    p.structures.rules = vec![rule("tower", StructurePlacement::Surface, 16, 1.0)];
    Generator::check_preset(
        &p,
        GeneratorOptions::default().library(lib).structures(&all).heightmap_loader(|_| unreachable!()),
    )
    .unwrap();
    let e = Generator::check_preset(&p, GeneratorOptions::default().library(lib).heightmap_loader(|_| unreachable!()))
        .unwrap_err();
    assert!(e.to_string().contains("`tower`"), "{e}");
    p.structures.rules[0].structure = "castle".into();
    let e = Generator::check_preset(
        &p,
        GeneratorOptions::default().library(lib).structures(&all).heightmap_loader(|_| unreachable!()),
    )
    .unwrap_err();
    assert!(e.to_string().contains("castle") && e.to_string().contains("tower"), "{e}");
    // Placed the same as by the generator built with the library.
    p.structures.rules[0].structure = "tower".into();
    let g = Generator::with_options(
        &p,
        GeneratorOptions::default().library(lib).structures(&all).heightmap_loader(|_| unreachable!()),
    )
    .unwrap();
    let q = g.structures_in((0, 0), (512, 512));
    assert!(!q.is_empty() && q.iter().all(|q| q.size == IVec3::new(3, 5, 3)), "{q:?}");
}
