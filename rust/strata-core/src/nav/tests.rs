//! The navigation bake against its definition: cells, clearance, steps, water, exact shared
//! edges within a chunk and across chunk borders, determinism.

use super::*;
use crate::base::block::{AIR, STONE, WATER};
use crate::base::chunk::VoxelBuffer;
use crate::base::coords::{CHUNK_SIZE, ChunkCoord, IVec3};
use std::collections::{HashMap, HashSet};

const S: i32 = CHUNK_SIZE;

/// A buffer covering chunk `c`'s input box, filled by `block(world position)`.
fn input_for(c: ChunkCoord, settings: &NavSettings, block: impl Fn(IVec3) -> u16) -> VoxelBuffer {
    let (min, size) = settings.input_box(c);
    let mut b = VoxelBuffer::new(min, size);
    for y in 0..size.y {
        for z in 0..size.z {
            for x in 0..size.x {
                let p = min + IVec3::new(x, y, z);
                b.set(p, block(p));
            }
        }
    }
    b
}

fn bake(b: &VoxelBuffer, c: ChunkCoord, settings: &NavSettings) -> NavMesh {
    let mut out = NavMesh::default();
    bake_chunk(b, c, settings, &NavBlocks::builtin(), &mut NavScratch::default(), &mut out).expect("bake");
    out
}

/// Each polygon's vertices in voxels, without the riser sides' off-grid middle vertices.
fn voxel_polys(m: &NavMesh) -> Vec<Vec<[i32; 3]>> {
    let u = UNITS_PER_VOXEL;
    m.polygon_points()
        .map(|p| p.into_iter().filter(|v| v.iter().all(|c| c % u == 0)).map(|v| v.map(|c| c / u)).collect())
        .collect()
}

/// Polygons whose vertices all lie at one height (the walkable rectangles).
fn flat(m: &NavMesh) -> Vec<Vec<[i32; 3]>> {
    voxel_polys(m).into_iter().filter(|p| p.iter().all(|v| v[1] == p[0][1])).collect()
}

fn risers(m: &NavMesh) -> Vec<Vec<[i32; 3]>> {
    voxel_polys(m).into_iter().filter(|p| p.iter().any(|v| v[1] != p[0][1])).collect()
}

/// The (x0, x1, z0, z1) a flat polygon covers.
fn extent(p: &[[i32; 3]]) -> (i32, i32, i32, i32) {
    let xs = p.iter().map(|v| v[0]);
    let zs = p.iter().map(|v| v[2]);
    (xs.clone().min().unwrap(), xs.max().unwrap(), zs.clone().min().unwrap(), zs.max().unwrap())
}

fn cross_y(p: &[[i32; 3]]) -> i64 {
    let (a, b, c) = (p[0], p[1], p[2]);
    let (u, v) = ([b[0] - a[0], b[2] - a[2]], [c[0] - a[0], c[2] - a[2]]);
    // y of (b − a) × (c − a) with y = 0 components: u.z·v.x − u.x·v.z.
    (u[1] as i64) * (v[0] as i64) - (u[0] as i64) * (v[1] as i64)
}

#[test]
fn flat_ground_is_one_rectangle_with_every_border_voxel_a_vertex_and_normal_up() {
    let settings = NavSettings::default();
    let c = ChunkCoord::new(0, 0, 0);
    let b = input_for(c, &settings, |p| if p.y < 10 { STONE } else { AIR });
    let m = bake(&b, c, &settings);
    assert_eq!(m.polygon_count(), 1);
    let p = voxel_polys(&m).remove(0);
    assert_eq!(p.len(), 4 * S as usize, "all four edges lie on the chunk's border planes");
    assert!(p.iter().all(|v| v[1] == 10), "the surface is the top of the floor");
    assert_eq!(extent(&p), (0, S, 0, S));
    assert!(cross_y(&p) > 0, "normal up, from the first three (non-collinear) vertices");
    assert_eq!(m.vertices.len(), 4 * S as usize, "vertices are shared, not repeated");
    assert_eq!(m.vertex_voxels(0)[1], 10.0);
}

#[test]
fn clearance_needs_agent_height_open_voxels() {
    let c = ChunkCoord::new(0, 0, 0);
    // Floor top at 10, ceiling at 12: two open voxels (10, 11).
    let block = |p: IVec3| if p.y < 10 || p.y == 12 { STONE } else { AIR };
    for (height, walkable) in [(1, true), (2, true), (3, false)] {
        let settings = NavSettings { agent_height: height };
        let m = bake(&input_for(c, &settings, block), c, &settings);
        // With height 1 the roof (12) is walkable as well.
        let heights: HashSet<i32> = flat(&m).iter().map(|p| p[0][1]).collect();
        assert_eq!(heights.contains(&10), walkable, "agent_height {height}");
    }
}

#[test]
fn water_is_neither_floor_nor_open() {
    let settings = NavSettings::default();
    let c = ChunkCoord::new(0, 0, 0);
    // A pool over x < 8 (water at 10); the shore beyond is walkable.
    let b = input_for(c, &settings, |p| match p.y {
        y if y < 10 => STONE,
        10 if p.x < 8 => WATER,
        _ => AIR,
    });
    let m = bake(&b, c, &settings);
    let cells: Vec<_> = flat(&m).iter().map(|p| (p[0][1], extent(p))).collect();
    assert_eq!(cells, vec![(10, (8, S, 0, S))], "no cell in or on the water");
}

#[test]
fn a_one_voxel_step_is_a_riser_sharing_exact_edges_and_two_voxels_are_a_wall() {
    let settings = NavSettings::default();
    let c = ChunkCoord::new(0, 0, 0);
    for (rise, expect_riser) in [(1, true), (2, false)] {
        let b = input_for(c, &settings, |p| if p.y < 10 + if p.x >= 16 { rise } else { 0 } { STONE } else { AIR });
        let m = bake(&b, c, &settings);
        let r = risers(&m);
        assert_eq!(r.len(), expect_riser as usize, "rise {rise}");
        if expect_riser {
            let q = &r[0];
            assert!(q.iter().all(|v| v[0] == 16), "the riser stands on the line between the columns");
            let ys: HashSet<i32> = q.iter().map(|v| v[1]).collect();
            assert_eq!(ys, HashSet::from([10, 11]));
            // Its bottom edge is the lower rectangle's edge, its top edge the upper one's.
            let edges = edge_owners(std::slice::from_ref(&m));
            for y in [10, 11] {
                let e = norm_edge([16, y, 0], [16, y, S]);
                assert_eq!(edges.get(&e).map(Vec::len), Some(2), "edge at height {y}");
            }
        }
    }
}

#[test]
fn no_step_without_head_room_over_the_lower_cell() {
    let settings = NavSettings::default();
    let c = ChunkCoord::new(0, 0, 0);
    // Upper floor at x >= 16 (top 11); over the lower cells at x = 15, a roof at 12.
    let b = input_for(c, &settings, |p| {
        let floor = if p.x >= 16 { 11 } else { 10 };
        if p.y < floor || (p.x == 15 && p.y == 12) { STONE } else { AIR }
    });
    let m = bake(&b, c, &settings);
    assert!(risers(&m).is_empty());
    let heights: HashSet<i32> = flat(&m).iter().map(|p| p[0][1]).collect();
    assert_eq!(heights, HashSet::from([10, 11, 13]), "both floors (and the roof) stay walkable");
}

#[test]
fn bad_inputs_are_refused_with_what_was_needed() {
    let c = ChunkCoord::new(1, 0, 0);
    let small = VoxelBuffer::new(c.min_voxel() - IVec3::ONE, IVec3::splat(S + 2));
    let mut out = NavMesh::default();
    let blocks = NavBlocks::builtin();
    let err = bake_chunk(&small, c, &NavSettings::default(), &blocks, &mut NavScratch::default(), &mut out)
        .expect_err("one layer short");
    assert!(matches!(err, NavError::InputBox { needed_size, .. } if needed_size == IVec3::new(34, 35, 34)));
    assert!(err.to_string().contains("input_box"), "{err}");
    let err = bake_chunk(&small, c, &NavSettings { agent_height: 0 }, &blocks, &mut NavScratch::default(), &mut out)
        .expect_err("zero height");
    assert_eq!(err, NavError::AgentHeight { value: 0, max: bake::MAX_AGENT_HEIGHT });
}

/// An edge by its two ends.
type Edge = ([i32; 3], [i32; 3]);
/// A polygon by its mesh and its index there.
type PolygonRef = (usize, usize);

/// An edge with its ends in a fixed order.
fn norm_edge(a: [i32; 3], b: [i32; 3]) -> Edge {
    if a <= b { (a, b) } else { (b, a) }
}

/// Every polygon edge (world positions when the meshes are) → the polygons using it, as
/// (mesh, polygon) pairs.
fn edge_owners(meshes: &[NavMesh]) -> HashMap<Edge, Vec<PolygonRef>> {
    let mut edges: HashMap<_, Vec<PolygonRef>> = HashMap::new();
    for (mi, m) in meshes.iter().enumerate() {
        for (pi, p) in voxel_polys(m).into_iter().enumerate() {
            for i in 0..p.len() {
                if p[i][0] == p[(i + 1) % p.len()][0] && p[i][2] == p[(i + 1) % p.len()][2] {
                    // A riser's side (its middle vertex left out).
                    continue;
                }
                edges.entry(norm_edge(p[i], p[(i + 1) % p.len()])).or_default().push((mi, pi));
            }
        }
    }
    edges
}

/// The default world around the surface of chunk column (1, 1): 3 × 2 × 3 chunks.
fn terrain_block() -> (crate::gen3d::pipeline::Generator, Vec<ChunkCoord>) {
    let g =
        crate::gen3d::pipeline::Generator::new(&crate::preset::model::WorldPreset::default()).expect("default preset");
    let s = g.surface_height(S + S / 2, S + S / 2);
    let cy = s.div_euclid(S);
    let mut chunks = Vec::new();
    for y in cy - 1..=cy {
        for z in 0..3 {
            for x in 0..3 {
                chunks.push(ChunkCoord::new(x, y, z));
            }
        }
    }
    (g, chunks)
}

/// The meshes of `chunks`, vertices moved to world positions.
fn world_meshes(g: &crate::gen3d::pipeline::Generator, chunks: &[ChunkCoord], settings: &NavSettings) -> Vec<NavMesh> {
    chunks
        .iter()
        .map(|&c| {
            let (min, size) = settings.input_box(c);
            let mut m = bake(&g.generate_box(min, size), c, settings);
            let o = c.min_voxel() * UNITS_PER_VOXEL;
            for v in &mut m.vertices {
                *v = [v[0] + o.x, v[1] + o.y, v[2] + o.z];
            }
            m
        })
        .collect()
}

#[test]
fn terrain_polygons_cover_exactly_the_walkable_cells_and_meet_edge_to_edge_across_chunks() {
    let settings = NavSettings::default();
    let (g, chunks) = terrain_block();
    let meshes = world_meshes(&g, &chunks, &settings);
    let (lo, hi) = (chunks[0].min_voxel(), chunks[chunks.len() - 1].min_voxel() + IVec3::splat(S));
    let big = g.generate_box(lo - IVec3::ONE, hi - lo + IVec3::new(2, 1 + settings.agent_height as i32, 2));
    let blocks = NavBlocks::builtin();
    let kind = |p: IVec3| blocks.kind(big.get(p).expect("inside the block"));
    let walkable = |p: IVec3| {
        kind(p - IVec3::new(0, 1, 0)) == NavBlock::Floor
            && (0..settings.agent_height as i32).all(|k| kind(p + IVec3::new(0, k, 0)) == NavBlock::Open)
    };
    let inside = |p: IVec3| p.x >= lo.x && p.y >= lo.y && p.z >= lo.z && p.x < hi.x && p.y < hi.y && p.z < hi.z;
    // Which flat polygon covers each cell.
    let mut cover: HashMap<IVec3, (usize, usize)> = HashMap::new();
    for (mi, m) in meshes.iter().enumerate() {
        for (pi, p) in voxel_polys(m).into_iter().enumerate() {
            if p.iter().any(|v| v[1] != p[0][1]) {
                continue;
            }
            let (x0, x1, z0, z1) = extent(&p);
            for z in z0..z1 {
                for x in x0..x1 {
                    let cell = IVec3::new(x, p[0][1], z);
                    assert!(walkable(cell), "polygon over a cell that is not walkable: {cell:?}");
                    assert!(cover.insert(cell, (mi, pi)).is_none(), "two polygons over {cell:?}");
                }
            }
        }
    }
    // Godot's limit, on the polygons as baked: no edge (bent riser sides included) is held by
    // more than two polygons.
    let mut raw: HashMap<Edge, usize> = HashMap::new();
    for m in &meshes {
        for p in m.polygon_points() {
            for i in 0..p.len() {
                *raw.entry(norm_edge(p[i], p[(i + 1) % p.len()])).or_default() += 1;
            }
        }
    }
    let crowded: Vec<_> = raw.iter().filter(|(_, n)| **n > 2).take(3).collect();
    assert!(crowded.is_empty(), "edges held by more than two polygons: {crowded:?}");
    let edges = edge_owners(&meshes);
    let crowded: Vec<_> = edges.iter().filter(|(_, o)| o.len() > 2).take(3).collect();
    assert!(crowded.is_empty(), "an edge is shared by at most two polygons (Godot's limit): {crowded:?}");
    // Unit segment → the (polygon, whole edge) that contain it.
    let mut units: HashMap<Edge, Vec<(PolygonRef, Edge)>> = HashMap::new();
    for (e, owners) in &edges {
        let (a, b) = *e;
        let axis = (0..3).find(|&i| a[i] != b[i]).expect("no zero-length edge");
        for t in a[axis]..b[axis] {
            let (mut u, mut v) = (a, a);
            u[axis] = t;
            v[axis] = t + 1;
            for &o in owners {
                units.entry((u, v)).or_default().push((o, *e));
            }
        }
    }
    // Two polygons meet at a unit segment through one identical edge.
    let shared = |u: [i32; 3], v: [i32; 3], p: (usize, usize), q: (usize, usize)| {
        let list = units.get(&norm_edge(u, v)).cloned().unwrap_or_default();
        let ep = list.iter().find(|(o, _)| *o == p).map(|(_, e)| *e);
        let eq = list.iter().find(|(o, _)| *o == q).map(|(_, e)| *e);
        ep.is_some() && ep == eq
    };
    let (mut same_height, mut steps, mut crossings) = (0, 0, 0);
    for z in lo.z..hi.z {
        for x in lo.x..hi.x {
            for y in lo.y..hi.y {
                let a = IVec3::new(x, y, z);
                if !walkable(a) {
                    continue;
                }
                let pa = *cover.get(&a).unwrap_or_else(|| panic!("walkable cell {a:?} has no polygon"));
                for (dx, dz) in [(1, 0), (0, 1)] {
                    let b = a + IVec3::new(dx, 0, dz);
                    if !inside(b) {
                        continue;
                    }
                    // The side between the two columns at height y.
                    let (u, v) = if dx == 1 { ([b.x, y, z], [b.x, y, z + 1]) } else { ([x, y, b.z], [x + 1, y, b.z]) };
                    if walkable(b) {
                        let pb = cover[&b];
                        if pa != pb {
                            assert!(shared(u, v, pa, pb), "cells {a:?} and {b:?} do not share an edge");
                            same_height += 1;
                            crossings += (pa.0 != pb.0) as usize;
                        }
                    }
                }
                for (dx, dz) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                    let b = a + IVec3::new(dx, 1, dz);
                    let head = a + IVec3::new(0, settings.agent_height as i32, 0);
                    if !inside(b) || !walkable(b) || kind(head) != NavBlock::Open {
                        continue;
                    }
                    let pb = cover[&b];
                    // The line between the columns, at the lower and the upper surface.
                    let line = |yy: i32| match (dx, dz) {
                        (1, _) => ([a.x + 1, yy, z], [a.x + 1, yy, z + 1]),
                        (-1, _) => ([a.x, yy, z], [a.x, yy, z + 1]),
                        (_, 1) => ([x, yy, a.z + 1], [x + 1, yy, a.z + 1]),
                        _ => ([x, yy, a.z], [x + 1, yy, a.z]),
                    };
                    let (l0, l1) = line(y);
                    let (u0, u1) = line(y + 1);
                    let riser = units
                        .get(&norm_edge(l0, l1))
                        .into_iter()
                        .flatten()
                        .map(|(o, _)| *o)
                        .find(|&o| o != pa && shared(l0, l1, pa, o) && shared(u0, u1, o, pb));
                    assert!(riser.is_some(), "step from {a:?} up to {b:?} has no riser joining both");
                    steps += 1;
                }
            }
        }
    }
    assert!(
        same_height > 100 && steps > 20 && crossings > 20,
        "{same_height} joins, {steps} steps, {crossings} across chunks"
    );
}

#[test]
fn a_chunk_bakes_the_same_alone_inside_a_larger_block_and_every_time() {
    let settings = NavSettings::default();
    let (g, chunks) = terrain_block();
    let (lo, hi) = (chunks[0].min_voxel(), chunks[chunks.len() - 1].min_voxel() + IVec3::splat(S));
    let big = g.generate_box(lo - IVec3::ONE, hi - lo + IVec3::new(2, 1 + settings.agent_height as i32, 2));
    let blocks = NavBlocks::builtin();
    let mut scratch = NavScratch::default();
    let mut nonempty = 0;
    for &c in &chunks {
        let (min, size) = settings.input_box(c);
        let alone = g.generate_box(min, size);
        let (mut a, mut b, mut again) = (NavMesh::default(), NavMesh::default(), NavMesh::default());
        bake_chunk(&alone, c, &settings, &blocks, &mut scratch, &mut a).unwrap();
        bake_chunk(&big, c, &settings, &blocks, &mut scratch, &mut b).unwrap();
        bake_chunk(&alone, c, &settings, &blocks, &mut NavScratch::default(), &mut again).unwrap();
        assert_eq!(a, b, "chunk {c:?} alone and inside the block");
        assert_eq!(a, again, "chunk {c:?} with a fresh scratch");
        nonempty += !a.is_empty() as usize;
    }
    assert!(nonempty >= 9, "the surface chunks have ground");
}
