//! Light as the streamer bakes it into near chunks' meshes: every face carries the world's light
//! of the voxel it looks into (the same as [`light_at`] answers, whichever chunks were loaded),
//! and edits relight the chunks around them: a roof shades the ground and lifting it restores
//! the sky; a torch lights a sealed room and taking it away darkens it again.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use strata_core::base::block::{AIR, STONE};
use strata_core::base::block_library::default_library;
use strata_core::base::coords::{ChunkCoord, IVec3};
use strata_core::gen3d::pipeline::Generator;
use strata_core::light::{Light, LightProps};
use strata_core::mesh::{ChunkMesh, FACE_NORMALS};
use strata_core::preset::model::WorldPreset;
use strata_core::stream::query::light_at;
use strata_core::stream::streamer::{StreamConfig, StreamResult, Streamer};

fn props() -> Arc<LightProps> {
    Arc::new(LightProps::default_blocks())
}

fn lit_streamer(seed: u64, vertical: i32) -> Streamer {
    // The places the tests use (open ground at (6, 6) for seed 77, ...) were chosen on the terrain
    // of preset format 1's default.
    let g = Arc::new(Generator::new(&WorldPreset { seed, ..WorldPreset::format1_default() }).expect("valid preset"));
    let config = StreamConfig {
        view_distance: 1,
        vertical_view_distance: vertical,
        worker_threads: 2,
        light: Some(props()),
        ..Default::default()
    };
    Streamer::new(g, config).expect("workers start")
}

/// Pumps until every wanted chunk is loaded and no edit waits, keeping each chunk's newest mesh.
fn settle(s: &mut Streamer, meshes: &mut HashMap<ChunkCoord, ChunkMesh>) {
    let start = Instant::now();
    while !s.is_area_ready() {
        assert!(start.elapsed() < Duration::from_secs(120), "the stream never settled");
        s.pump();
        match s.try_recv() {
            Some(StreamResult::Near(r)) => {
                meshes.insert(r.coord, r.mesh);
            }
            Some(StreamResult::Far(_)) => {}
            None => std::thread::sleep(Duration::from_millis(1)),
        }
    }
}

/// Each quad of `mesh` (chunk `c`) as (the world voxel its first face looks into, direction,
/// packed light).
fn faces(c: ChunkCoord, mesh: &ChunkMesh) -> Vec<(IVec3, usize, u8)> {
    let mut out = Vec::new();
    for s in mesh.surfaces() {
        for q in 0..s.positions.len() / 4 {
            let corners = &s.positions[4 * q..4 * q + 4];
            let d = s.directions[4 * q] as usize;
            let n = FACE_NORMALS[d];
            let low = |a: usize| corners.iter().map(|p| p[a]).fold(f32::INFINITY, f32::min) as i32;
            let mut front = IVec3::new(low(0), low(1), low(2));
            // A face on the negative side of its voxel sits at the voxel's own coordinate: the
            // voxel it looks into is one further.
            for (a, &component) in n.iter().enumerate() {
                if component < 0.0 {
                    match a {
                        0 => front.x -= 1,
                        1 => front.y -= 1,
                        _ => front.z -= 1,
                    }
                }
            }
            out.push((c.min_voxel() + front, d, s.lights[4 * q]));
        }
    }
    out
}

/// The light baked for the face of direction `d` looking into `front`, if a loaded mesh has it.
fn baked(meshes: &HashMap<ChunkCoord, ChunkMesh>, front: IVec3, d: usize) -> Option<Light> {
    let n = FACE_NORMALS[d];
    let voxel = front - IVec3::new(n[0] as i32, n[1] as i32, n[2] as i32);
    let c = ChunkCoord::containing(voxel);
    let mesh = meshes.get(&c)?;
    faces(c, mesh).into_iter().find(|&(f, fd, _)| f == front && fd == d).map(|(_, _, l)| Light(l))
}

#[test]
fn every_baked_face_has_the_worlds_light_in_front_of_it() {
    let mut s = lit_streamer(1234, 1);
    let mut meshes = HashMap::new();
    s.set_viewer([8.0, s.generator().surface_height(8, 8) as f64, 8.0]);
    settle(&mut s, &mut meshes);
    let g = s.generator().clone();
    let mut checked = 0;
    let mut shaded = 0;
    for (&c, mesh) in &meshes {
        // Every 7th quad of every chunk: enough to cover borders, caves and water.
        for (k, (front, _, light)) in faces(c, mesh).into_iter().enumerate() {
            if k % 7 != 0 {
                continue;
            }
            let want = light_at(&g, None, &props(), front).expect("light");
            assert_eq!(Light(light), want, "chunk {c:?}, face looking into {front:?}");
            checked += 1;
            shaded += (want.sky() < 15) as usize;
        }
    }
    assert!(checked > 200, "the view holds terrain: {checked} faces checked");
    assert!(shaded > 0, "some faces are out of the open sky (overhangs, caves, water)");
}

#[test]
fn a_roof_shades_the_ground_and_lifting_it_brings_the_sky_back() {
    let mut s = lit_streamer(77, 1);
    let mut meshes = HashMap::new();
    let (x, z) = (6, 6);
    let g = s.generator().clone();
    let top = strata_core::stream::query::top_solid_y(&g, None, x, z);
    s.set_viewer([x as f64, top as f64, z as f64]);
    settle(&mut s, &mut meshes);
    let ground_face = IVec3::new(x, top, z);
    assert_eq!(baked(&meshes, ground_face, 2).map(|l| l.sky()), Some(15), "open ground before the roof");
    // A 9×9 stone roof four voxels above the ground.
    let roof: Vec<IVec3> =
        (-4..=4).flat_map(|dx| (-4..=4).map(move |dz| IVec3::new(x + dx, top + 4, z + dz))).collect();
    for &p in &roof {
        s.set_voxel(p, STONE);
    }
    settle(&mut s, &mut meshes);
    let under = baked(&meshes, ground_face, 2).expect("the ground face is still meshed");
    assert!(under.sky() < 15, "shaded under the roof: {under:?}");
    assert_eq!(under, light_at(&g, Some(s.edits()), &props(), ground_face).unwrap());
    for &p in &roof {
        s.set_voxel(p, AIR);
    }
    settle(&mut s, &mut meshes);
    assert_eq!(baked(&meshes, ground_face, 2).map(|l| l.sky()), Some(15), "the sky is back");
}

#[test]
fn a_torch_lights_a_sealed_room_and_the_room_goes_dark_without_it() {
    let mut s = lit_streamer(5, 1);
    let mut meshes = HashMap::new();
    let g = s.generator().clone();
    let (x, z) = (10, 10);
    let floor = g.surface_height(x, z) - 40;
    // A 5×3×5 room, walled in stone on every side so no cave reaches it.
    for dy in -1..=3 {
        for dz in -3..=3 {
            for dx in -3..=3 {
                let p = IVec3::new(x + dx, floor + dy, z + dz);
                let inside = (0..=2).contains(&dy) && dx.abs() <= 2 && dz.abs() <= 2;
                s.set_voxel(p, if inside { AIR } else { STONE });
            }
        }
    }
    s.set_viewer([x as f64, floor as f64, z as f64]);
    settle(&mut s, &mut meshes);
    // The floor's top face at the room's corner, two voxels from the torch's column.
    let floor_face = IVec3::new(x + 2, floor, z + 2);
    assert_eq!(baked(&meshes, floor_face, 2), Some(Light::new(0, 0)), "dark without a torch");
    let torch = default_library().id_of("torch").expect("the default library has a torch");
    s.set_voxel(IVec3::new(x, floor + 1, z), torch);
    settle(&mut s, &mut meshes);
    let lit = baked(&meshes, floor_face, 2).expect("floor face");
    // Torch 14 at (x, floor+1, z); the face's voxel is 2 + 2 + 1 = 5 steps away.
    assert_eq!(lit, Light::new(0, 14 - 5), "lit by the torch");
    assert_eq!(lit, light_at(&g, Some(s.edits()), &props(), floor_face).unwrap());
    s.set_voxel(IVec3::new(x, floor + 1, z), AIR);
    settle(&mut s, &mut meshes);
    assert_eq!(baked(&meshes, floor_face, 2), Some(Light::new(0, 0)), "dark again");
}
