//! Unit tests of the light layer: the propagation against its definition (a naive fixpoint over
//! the whole box) and the cases the rules name: falloff, opaque walls, water, emitters, open
//! shafts, caves with and without an opening, the fast paths, edits and bad input.

use super::*;
use crate::base::block::{AIR, BlockId, STONE, WATER};
use crate::base::chunk::VoxelBuffer;
use crate::base::coords::{CHUNK_SIZE, ChunkCoord, IVec3};
use crate::base::rng::hash3;

/// A block id the tests make glow through the table (no block of `base` glows).
const LAMP: BlockId = 900;
/// A clear glowing id, dimmer.
const GLOW_GLASS: BlockId = 901;

fn props() -> LightProps {
    let mut p = LightProps::default_blocks();
    p.set(LAMP, OPAQUE, 15).unwrap();
    p.set(GLOW_GLASS, 0, 9).unwrap();
    p
}

fn filled(min: IVec3, size: IVec3, f: impl Fn(IVec3) -> BlockId) -> VoxelBuffer {
    let mut v = VoxelBuffer::new(min, size);
    for y in 0..size.y {
        for z in 0..size.z {
            for x in 0..size.x {
                let p = min + IVec3::new(x, y, z);
                v.set(p, f(p));
            }
        }
    }
    v
}

/// The exposure of a box whose top is open sky.
fn open_top(voxels: &VoxelBuffer, props: &LightProps) -> SkyExposure {
    let top = voxels.max().y;
    let n = (voxels.size().x * voxels.size().z) as usize;
    let mut s = SkyExposure::default();
    sky_exposure(voxels, props, &vec![top; n], &mut s).unwrap();
    s
}

/// The definition, computed the slow way: start from the sources, relax every voxel against
/// its neighbours until nothing changes. Light of the whole box (sky << 4 | block).
fn reference(voxels: &VoxelBuffer, sky: &SkyExposure, props: &LightProps) -> Vec<u8> {
    let (min, size) = (voxels.min(), voxels.size());
    let n = size.volume();
    let at = |x: i32, y: i32, z: i32| ((y * size.z + z) * size.x + x) as usize;
    let mut s = vec![0u8; n];
    let mut b = vec![0u8; n];
    for y in 0..size.y {
        for z in 0..size.z {
            for x in 0..size.x {
                let id = voxels.data()[at(x, y, z)];
                let e = sky.get(min.x + x, min.z + z).unwrap();
                if min.y + y >= e && props.opacity(id) < OPAQUE {
                    s[at(x, y, z)] = 15;
                }
                b[at(x, y, z)] = props.emission(id);
            }
        }
    }
    loop {
        let mut changed = false;
        for y in 0..size.y {
            for z in 0..size.z {
                for x in 0..size.x {
                    let i = at(x, y, z);
                    let op = props.opacity(voxels.data()[i]);
                    if op >= OPAQUE {
                        continue;
                    }
                    for (dx, dy, dz) in [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)] {
                        let (nx, ny, nz) = (x + dx, y + dy, z + dz);
                        if nx < 0 || ny < 0 || nz < 0 || nx >= size.x || ny >= size.y || nz >= size.z {
                            continue;
                        }
                        let j = at(nx, ny, nz);
                        for ch in [&mut s, &mut b] {
                            let v = ch[j].saturating_sub(1 + op);
                            if v > ch[i] {
                                ch[i] = v;
                                changed = true;
                            }
                        }
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    s.iter().zip(&b).map(|(s, b)| s << 4 | b).collect()
}

/// The reference's light over `out`'s box.
fn reference_over(voxels: &VoxelBuffer, sky: &SkyExposure, props: &LightProps, out: &LightBuffer) -> Vec<u8> {
    let full = reference(voxels, sky, props);
    let (vm, vs) = (voxels.min(), voxels.size());
    let mut v = Vec::new();
    for y in 0..out.size().y {
        for z in 0..out.size().z {
            for x in 0..out.size().x {
                let p = out.min() + IVec3::new(x, y, z) - vm;
                v.push(full[((p.y * vs.z + p.z) * vs.x + p.x) as usize]);
            }
        }
    }
    v
}

fn light(voxels: &VoxelBuffer, sky: &SkyExposure, props: &LightProps) -> LightBuffer {
    let mut out = LightBuffer::default();
    light_region(voxels, sky, props, &mut out, &mut LightScratch::new()).unwrap();
    out
}

fn at(out: &LightBuffer, x: i32, y: i32, z: i32) -> Light {
    out.get(IVec3::new(x, y, z)).unwrap()
}

/// A box of stone, `[-28, 28)³`, with the sky closed above.
fn stone_box() -> VoxelBuffer {
    filled(IVec3::splat(-28), IVec3::splat(56), |_| STONE)
}

fn closed(voxels: &VoxelBuffer) -> SkyExposure {
    SkyExposure::for_box(voxels, SKY_CLOSED)
}

#[test]
fn an_emitter_falls_off_one_per_voxel() {
    let p = props();
    let mut v = filled(IVec3::splat(-28), IVec3::splat(56), |_| AIR);
    v.set(IVec3::ZERO, LAMP);
    let out = light(&v, &closed(&v), &p);
    assert_eq!(at(&out, 0, 0, 0), Light::new(0, 15), "the lamp keeps its own light although opaque");
    assert_eq!(at(&out, 1, 0, 0).block(), 14);
    assert_eq!(at(&out, 2, 0, 0).block(), 13);
    assert_eq!(at(&out, 0, -3, 0).block(), 12);
    assert_eq!(at(&out, 1, 1, 1).block(), 12);
    assert_eq!(at(&out, 5, -4, 3).block(), 3);
    assert_eq!(at(&out, 5, -4, 5).block(), 1);
    assert_eq!(at(&out, 5, -5, 5).block(), 0, "15 steps away is dark");
    for (x, y, z) in [(3i32, 2i32, -1i32), (-5, 0, 5), (0, 0, -5)] {
        assert_eq!(at(&out, x, y, z).block() as i32, 15 - x.abs() - y.abs() - z.abs(), "{x} {y} {z}");
        assert_eq!(at(&out, x, y, z).sky(), 0);
    }
}

#[test]
fn opaque_blocks_stop_light_and_it_goes_around() {
    let p = props();
    // A stone wall at x = 1 from the box's side to z = 2, full height: light reaches behind it around its end.
    let mut v = filled(IVec3::splat(-28), IVec3::splat(56), |q| if q.x == 1 && q.z <= 2 { STONE } else { AIR });
    v.set(IVec3::ZERO, LAMP);
    let out = light(&v, &closed(&v), &p);
    assert_eq!(at(&out, 1, 0, 0).block(), 0, "the wall itself is dark");
    // Behind the wall at (2, 0, 0): around the end at z = 3: 0→(0,0,3) 3 steps, →(2,0,3) 2, →(2,0,0) 3.
    assert_eq!(at(&out, 2, 0, 0).block(), 15 - 8);
    assert_eq!(at(&out, 2, 0, 3).block(), 15 - 5);
    assert_eq!(at(&out, 0, 0, 1).block(), 14);
}

#[test]
fn water_takes_an_extra_step_per_voxel() {
    let p = props();
    let mut v = filled(IVec3::splat(-28), IVec3::splat(56), |_| WATER);
    v.set(IVec3::ZERO, LAMP);
    let out = light(&v, &closed(&v), &p);
    for (d, want) in [(1, 13), (2, 11), (3, 9), (7, 1), (8, 0)] {
        assert_eq!(at(&out, d, 0, 0).block(), want, "{d} voxels into water");
    }
    // Sky over a lake: exposure at the water's surface, 13 in the top water voxel, then 2 less per voxel.
    let lake = filled(IVec3::splat(-28), IVec3::splat(56), |q| if q.y < 0 { WATER } else { AIR });
    let sky = open_top(&lake, &p);
    assert!(sky.heights().iter().all(|&h| h == 0));
    let out = light(&lake, &sky, &p);
    for (y, want) in [(3, 15), (0, 15), (-1, 13), (-2, 11), (-7, 1), (-8, 0)] {
        assert_eq!(at(&out, 0, y, 0).sky(), want, "y = {y}");
    }
}

#[test]
fn a_clear_emitter_keeps_the_brighter_light() {
    let p = props();
    let mut v = filled(IVec3::splat(-28), IVec3::splat(56), |_| AIR);
    v.set(IVec3::ZERO, LAMP);
    v.set(IVec3::new(3, 0, 0), GLOW_GLASS);
    v.set(IVec3::new(-9, 0, 0), GLOW_GLASS);
    let out = light(&v, &closed(&v), &p);
    assert_eq!(at(&out, 3, 0, 0).block(), 12, "the lamp outshines the glass's own 9");
    assert_eq!(at(&out, -9, 0, 0).block(), 9, "the glass's own light beats the lamp's 6");
    assert_eq!(at(&out, -11, 0, 0).block(), 7);
}

#[test]
fn sky_light_goes_straight_down_an_open_shaft() {
    let p = props();
    // Stone with a 1×1 shaft at x = z = 0 from the top down to y = -18, and a side tunnel at y = -10 along +x.
    let v = filled(IVec3::splat(-28), IVec3::splat(56), |q| {
        let shaft = q.x == 0 && q.z == 0 && q.y >= -18;
        let tunnel = q.y == -10 && q.z == 0 && q.x >= 0;
        if shaft || tunnel { AIR } else { STONE }
    });
    let sky = open_top(&v, &p);
    assert_eq!(sky.get(0, 0), Some(-18));
    assert_eq!(sky.get(1, 0), Some(28));
    let out = light(&v, &sky, &p);
    for y in -6..=5 {
        assert_eq!(at(&out, 0, y, 0), Light::new(15, 0), "shaft at y = {y}");
    }
    for x in 1..=5 {
        assert_eq!(at(&out, x, -6, 0).sky(), 0, "stone beside the shaft");
    }
    // The tunnel's end lies outside that output ([-14, 14)): check it on a lower box too.
    let low = filled(IVec3::new(-28, -40, -28), IVec3::splat(56), |q| {
        let shaft = q.x == 0 && q.z == 0 && q.y >= -18;
        let tunnel = q.y == -10 && q.z == 0 && q.x >= 0;
        if shaft || tunnel { AIR } else { STONE }
    });
    let mut low_sky = SkyExposure::default();
    let n = (low.size().x * low.size().z) as usize;
    // Above this box the shaft column is open; every other column is stone.
    let from: Vec<i32> = (0..n).map(|c| if c as i32 == 28 * 56 + 28 { low.max().y } else { SKY_CLOSED }).collect();
    sky_exposure(&low, &p, &from, &mut low_sky).unwrap();
    let out = light(&low, &low_sky, &p);
    assert_eq!(at(&out, 0, -18, 0).sky(), 15);
    for x in 1..=5 {
        assert_eq!(at(&out, x, -10, 0).sky() as i32, 15 - x, "tunnel {x} voxels from the shaft");
    }
}

#[test]
fn a_cave_with_an_opening_is_lit_with_falloff_and_a_closed_one_is_dark() {
    let p = props();
    // Ground top at y = 0; a room y in [-12, -4], x, z in [-8, 8]; with an opening: a shaft at x = z = 8 up to the surface.
    let world = |open: bool| {
        filled(IVec3::new(-28, -36, -28), IVec3::splat(56), move |q| {
            let room = (-12..=-4).contains(&q.y) && (-8..=8).contains(&q.x) && (-8..=8).contains(&q.z);
            let shaft = open && q.x == 8 && q.z == 8 && q.y >= -4;
            if q.y >= 0 || room || shaft { AIR } else { STONE }
        })
    };
    let v = world(true);
    let out = light(&v, &open_top(&v, &p), &p);
    // The shaft brings 15 to the room's ceiling corner (8, -4, 8); the room falls off from there.
    assert_eq!(at(&out, 8, -4, 8).sky(), 15);
    assert_eq!(at(&out, 8, -12, 8).sky(), 15, "straight down the shaft to the room's floor");
    assert_eq!(at(&out, 5, -12, 8).sky(), 12);
    assert_eq!(at(&out, 5, -10, 5).sky(), 9);
    assert_eq!(at(&out, -4, -10, 8).sky(), 3);
    assert_eq!(at(&out, -5, -10, 5).sky(), 0, "16 steps from the shaft");
    assert_eq!(at(&out, -5, -10, -5).sky(), 0);
    assert_eq!(out.data(), reference_over(&v, &open_top(&v, &p), &p, &out).as_slice());

    let v = world(false);
    let out = light(&v, &open_top(&v, &p), &p);
    for y in -12..=-4 {
        for z in -6..6 {
            for x in -6..6 {
                assert_eq!(at(&out, x, y, z), Light::DARK, "closed cave at {x} {y} {z}");
            }
        }
    }
    // A lamp in the closed cave lights it with exact falloff, and nothing outside it.
    let mut v = v;
    v.set(IVec3::new(0, -8, 0), LAMP);
    let out = light(&v, &open_top(&v, &p), &p);
    for (x, y, z) in [(0i32, -8i32, 0i32), (1, -8, 0), (2, -9, 1), (-5, -5, 5), (4, -12, -4)] {
        let d = x.abs() + (y + 8).abs() + z.abs();
        assert_eq!(at(&out, x, y, z), Light::new(0, (15 - d).max(0) as u8), "{x} {y} {z}");
    }
    assert_eq!(at(&out, 0, -3, 0), Light::DARK, "the rock above the cave");
}

#[test]
fn the_fast_paths_give_what_the_definition_gives() {
    let p = props();
    // All sky: every output voxel 15/0.
    let air = filled(IVec3::splat(-28), IVec3::splat(56), |_| AIR);
    let out = light(&air, &open_top(&air, &p), &p);
    assert!(out.data().iter().all(|&b| b == 0xF0));
    // All stone, sky closed: all dark.
    let stone = stone_box();
    let out = light(&stone, &open_top(&stone, &p), &p);
    assert!(out.data().iter().all(|&b| b == 0));
    // Sky open over the output but a lamp in the margin: block light still comes in.
    let mut air = air;
    air.set(IVec3::new(-10, 0, 0), LAMP);
    let out = light(&air, &open_top(&air, &p), &p);
    assert_eq!(at(&out, -6, 0, 0), Light::new(15, 11));
}

/// A random box: stone with random air pockets, a few water and glowing voxels, open at the top.
fn random_box(seed: u64, min: IVec3, size: IVec3) -> VoxelBuffer {
    filled(min, size, |q| {
        let h = hash3(seed, 1, q.x, q.y, q.z);
        let ground = (hash3(seed, 2, q.x / 6, 0, q.z / 6) % 10) as i32 - 4;
        match h % 1000 {
            0..=2 => LAMP,
            3..=6 => GLOW_GLASS,
            7..=80 => WATER,
            _ if q.y > ground => AIR,
            81..=520 => AIR,
            _ => STONE,
        }
    })
}

#[test]
fn random_boxes_match_the_definition() {
    let p = props();
    for seed in 0..6u64 {
        let min = IVec3::new(seed as i32 * 7 - 20, -24, -19);
        let v = random_box(seed, min, IVec3::new(40, 38, 36));
        let sky = open_top(&v, &p);
        let out = light(&v, &sky, &p);
        assert_eq!(out.min(), min + IVec3::splat(LIGHT_REACH));
        assert_eq!(out.size(), IVec3::new(12, 10, 8));
        assert_eq!(out.data(), reference_over(&v, &sky, &p, &out).as_slice(), "seed {seed}");
    }
}

#[test]
fn a_box_inside_a_larger_one_gets_the_same_light() {
    let p = props();
    let big = random_box(42, IVec3::new(-30, -30, -30), IVec3::splat(64));
    let big_sky = open_top(&big, &p);
    let big_out = light(&big, &big_sky, &p);
    // Sub-boxes, their exposure cut from the big one's (the world's).
    for (m, s) in [(IVec3::new(-30, -30, -30), IVec3::splat(30)), (IVec3::new(-12, -20, 0), IVec3::new(34, 40, 32))] {
        let sub = big.sub_buffer(m, s);
        let sky = big_sky.sub(m.x, m.z, s.x, s.z).unwrap();
        let out = light(&sub, &sky, &p);
        for (i, b) in out.data().iter().enumerate() {
            let i = i as i32;
            let l = IVec3::new(i % out.size().x, i / (out.size().x * out.size().z), (i / out.size().x) % out.size().z);
            assert_eq!(Some(Light(*b)), big_out.get(out.min() + l), "{:?}", out.min() + l);
        }
    }
}

#[test]
fn a_chunk_reads_its_padded_box_and_lights_its_shell() {
    let p = props();
    let c = ChunkCoord::new(1, -1, 0);
    let m = c.min_voxel() - IVec3::splat(LIGHT_MARGIN);
    let v = random_box(7, m, IVec3::splat(LIGHT_PADDED_SIZE));
    let sky = open_top(&v, &p);
    let (mut out, mut scratch) = (LightBuffer::default(), LightScratch::new());
    light_chunk(c, &v, &sky, &p, &mut out, &mut scratch).unwrap();
    assert_eq!(out.min(), c.min_voxel() - IVec3::ONE);
    assert_eq!(out.size(), IVec3::splat(LIGHT_CHUNK_SIZE));
    let mut again = LightBuffer::default();
    light_region(&v, &sky, &p, &mut again, &mut scratch).unwrap();
    assert_eq!(out, again, "the scratch is clean after a call");
    // A border face of the chunk sees the shell voxel beyond it.
    let edge = c.min_voxel() + IVec3::new(0, 5, 5);
    assert_eq!(out.face_light(edge, IVec3::new(-1, 0, 0)), out.get(edge - IVec3::new(1, 0, 0)));
    assert_eq!(CHUNK_SIZE + 2, LIGHT_CHUNK_SIZE);
}

#[test]
fn bad_input_is_refused_with_what_is_allowed() {
    let p = props();
    let (mut out, mut scratch) = (LightBuffer::default(), LightScratch::new());
    let small = VoxelBuffer::new(IVec3::ZERO, IVec3::new(40, 20, 40));
    let e = light_region(&small, &SkyExposure::for_box(&small, 0), &p, &mut out, &mut scratch).unwrap_err();
    assert!(matches!(e, LightError::RegionSize { min: 29, max: 1023, .. }), "{e}");
    let v = stone_box();
    let wrong = SkyExposure::new(0, 0, 40, 39, 0);
    let e = light_region(&v, &wrong, &p, &mut out, &mut scratch).unwrap_err();
    assert!(e.to_string().contains("allowed: the voxels' columns"), "{e}");
    let e = light_chunk(ChunkCoord::new(0, 0, 0), &v, &closed(&v), &p, &mut out, &mut scratch).unwrap_err();
    assert!(matches!(e, LightError::NotChunkPadded { .. }), "{e}");
    let edit = LightEdit { pos: IVec3::ZERO, exposure_before: 0, exposure_after: 0 };
    let e = relight_after_edit(&edit, &v, &closed(&v), &p, &mut [], &mut scratch).unwrap_err();
    assert!(matches!(e, LightError::EditRegion { .. }), "{e}");
}

/// World column exposure in a box whose top is open sky.
fn column_exposure(v: &VoxelBuffer, p: &LightProps, x: i32, z: i32) -> i32 {
    open_top(v, p).get(x, z).unwrap()
}

#[test]
fn relight_after_random_edits_equals_recomputation() {
    let p = props();
    // A 2×2×2-chunk world (plus margin) of random ground; every chunk's light buffer kept.
    let corner = ChunkCoord::new(-1, -1, -1);
    let world_min = corner.min_voxel() - IVec3::splat(2 * LIGHT_MARGIN);
    // Taller than the chunks need: an edit that closes a column relights up to its old exposure.
    let world_size = IVec3::splat(2 * CHUNK_SIZE + 4 * LIGHT_MARGIN) + IVec3::new(0, 2 * LIGHT_MARGIN, 0);
    let mut world = random_box(9, world_min, world_size);
    let chunks: Vec<ChunkCoord> =
        (0..8).map(|i| ChunkCoord::new(corner.x + (i & 1), corner.y + (i >> 1 & 1), corner.z + (i >> 2))).collect();
    let mut scratch = LightScratch::new();
    let light_of = |world: &VoxelBuffer, c: ChunkCoord, scratch: &mut LightScratch| {
        let m = c.min_voxel() - IVec3::splat(LIGHT_MARGIN);
        let s = IVec3::splat(LIGHT_PADDED_SIZE);
        let sky = open_top(world, &p).sub(m.x, m.z, s.x, s.z).unwrap();
        let mut out = LightBuffer::default();
        light_chunk(c, &world.sub_buffer(m, s), &sky, &p, &mut out, scratch).unwrap();
        out
    };
    let mut lights: Vec<LightBuffer> = chunks.iter().map(|&c| light_of(&world, c, &mut scratch)).collect();
    let mut crossed = 0;
    for k in 0..24u64 {
        let h = hash3(k, 5, 0, 0, 0);
        let pos = IVec3::new((h % 40) as i32 - 20, ((h >> 8) % 40) as i32 - 20, ((h >> 16) % 40) as i32 - 20);
        let id = [AIR, STONE, LAMP, WATER, GLOW_GLASS][(h >> 24) as usize % 5];
        let before = column_exposure(&world, &p, pos.x, pos.z);
        world.set(pos, id);
        let edit =
            LightEdit { pos, exposure_before: before, exposure_after: column_exposure(&world, &p, pos.x, pos.z) };
        let (m, s) = edit.region();
        let sky = open_top(&world, &p).sub(m.x, m.z, s.x, s.z);
        let sky = sky.unwrap_or_else(|| panic!("edit {k}: {edit:?} region {m:?} {s:?}"));
        let old = lights.clone();
        let changed = relight_after_edit(&edit, &world.sub_buffer(m, s), &sky, &p, &mut lights, &mut scratch).unwrap();
        for (i, &c) in chunks.iter().enumerate() {
            assert_eq!(lights[i], light_of(&world, c, &mut scratch), "edit {k} at {pos:?} to {id}: chunk {c:?}");
            assert_eq!(changed.contains(&i), lights[i] != old[i], "edit {k}: chunk {c:?} reported");
            if lights[i] != old[i] {
                assert!(edit.chunks().contains(&c), "edit {k}: chunk {c:?} changed but is not listed");
            }
        }
        crossed += changed.iter().filter(|&&i| ChunkCoord::containing(pos) != chunks[i]).count();
    }
    assert!(crossed > 0, "some edit changed light across a chunk border");
}
