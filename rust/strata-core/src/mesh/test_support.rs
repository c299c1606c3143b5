//! Helpers of the mesh tests: small hand-made and random boxes, and the unit faces a mesh shows
//! (every quad rasterised back to its faces, with interpolated corner colours), to compare the
//! greedy mesher with the reference.
//!
//! May use: `base` and the other `mesh` modules.

use crate::base::block::BlockId;
use crate::base::chunk::VoxelBuffer;
use crate::base::coords::IVec3;
use crate::base::rng::hash3;
use crate::light::LightBuffer;
use crate::mesh::culled::{face_visible, mesh_padded_chunk_culled_lit};
use crate::mesh::greedy::Mesher;
use crate::mesh::types::{ChunkMesh, FACE_NORMALS, FACES, cross, dot, sub};

/// The default library's materials with every block white, so a vertex colour is its face's
/// shade times its AO level.
pub(crate) fn white_materials() -> std::sync::Arc<crate::mesh::materials::MeshMaterials> {
    use crate::base::block_library::{BlockLibrary, default_library};
    let blocks = default_library()
        .blocks()
        .iter()
        .map(|b| {
            let mut b = b.clone();
            b.color = [1.0; 3];
            b
        })
        .collect();
    std::sync::Arc::new(crate::mesh::materials::MeshMaterials::with_texture_order(
        &BlockLibrary::new(blocks).expect("the default blocks"),
    ))
}

pub(super) fn to_f(p: IVec3) -> [f32; 3] {
    [p.x as f32, p.y as f32, p.z as f32]
}

pub(super) fn padded_with(points: &[(i32, i32, i32, BlockId)]) -> VoxelBuffer {
    let mut b = VoxelBuffer::new(IVec3::splat(-1), IVec3::splat(6));
    for &(x, y, z, id) in points {
        b.set(IVec3::new(x, y, z), id);
    }
    b
}

/// One visible unit face: voxel (local to the chunk interior), direction, surface (index in
/// [`SURFACE_NAMES`](crate::mesh::SURFACE_NAMES)), its four corner colours (quantised) in the
/// corner order of [`FACES`], its texture layer and its light.
pub(super) type UnitFace = ([i32; 3], usize, usize, [[i32; 4]; 4], u16, u8);

/// Rasterises every quad of `m` back into unit faces, interpolating the corner colours.
pub(super) fn unit_faces(m: &ChunkMesh) -> Vec<UnitFace> {
    let mut out = Vec::new();
    for (surface, s) in m.surfaces().into_iter().enumerate() {
        assert_eq!(s.positions.len() % 4, 0);
        assert_eq!(s.positions.len(), s.directions.len());
        assert_eq!(s.positions.len(), s.colors.len());
        assert_eq!(s.positions.len(), s.layers.len());
        assert_eq!(s.positions.len(), s.lights.len());
        assert_eq!(s.indices.len(), s.positions.len() / 4 * 6);
        for q in 0..s.positions.len() / 4 {
            let base = q * 4;
            let d = s.directions[base] as usize;
            assert!(s.directions[base..base + 4].iter().all(|&n| n as usize == d));
            assert_eq!(to_f(FACES[d].0), FACE_NORMALS[d], "FACE_NORMALS follows FACES");
            let (n, u, v) = FACES[d];
            let p0 = s.positions[base];
            let rel = |p: [f32; 3]| -> (f32, f32) {
                let dp = sub(p, p0);
                (dot(dp, to_f(u)), dot(dp, to_f(v)))
            };
            let (eu, ev) = rel(s.positions[base + 2]);
            assert_eq!(rel(s.positions[base + 1]), (eu, 0.0));
            assert_eq!(rel(s.positions[base + 3]), (0.0, ev));
            assert!(eu >= 1.0 && ev >= 1.0 && eu.fract() == 0.0 && ev.fract() == 0.0);
            let uv = |k: usize| s.uv(base + k);
            let span = [0, 1].map(|a| (uv(2)[a] - uv(0)[a]).abs());
            let (su, sv) = if d < 2 { (ev, eu) } else { (eu, ev) };
            assert_eq!(span, [su, sv], "texture coordinates span the quad, a voxel a unit");
            let layer = s.layers[base];
            assert!(s.layers[base..base + 4].iter().all(|&l| l == layer));
            let light = s.lights[base];
            assert!(s.lights[base..base + 4].iter().all(|&l| l == light), "a quad's corners share its light");
            let c = &s.colors[base..base + 4];
            // In f64, so interpolating between equal corners gives back the corner value.
            let lerp = |sv: f64, tv: f64| -> [i32; 4] {
                std::array::from_fn(|k| {
                    let c = |i: usize| c[i][k] as f64;
                    let x = c(0) * (1.0 - sv) * (1.0 - tv)
                        + c(1) * sv * (1.0 - tv)
                        + c(2) * sv * tv
                        + c(3) * (1.0 - sv) * tv;
                    (x * 10_000.0).round() as i32
                })
            };
            let lift = IVec3::new(n.x.max(0), n.y.max(0), n.z.max(0));
            let plane = IVec3::new(p0[0] as i32, p0[1] as i32, p0[2] as i32);
            for i in 0..eu as i32 {
                for j in 0..ev as i32 {
                    let voxel = plane - lift + u * i + v * j;
                    let corners = [(0, 0), (1, 0), (1, 1), (0, 1)]
                        .map(|(a, b)| lerp((i + a) as f64 / eu as f64, (j + b) as f64 / ev as f64));
                    out.push(([voxel.x, voxel.y, voxel.z], d, surface, corners, layer, light));
                }
            }
        }
    }
    out.sort();
    out
}

pub(super) fn assert_clockwise(m: &ChunkMesh) {
    for s in m.surfaces() {
        for t in s.indices.chunks(3) {
            let [a, b2, c] = [0, 1, 2].map(|k| s.positions[t[k] as usize]);
            let n = s.normal(t[0] as usize);
            assert!(dot(cross(sub(b2, a), sub(c, a)), n) < 0.0, "triangle not clockwise from the front");
        }
    }
}

/// Greedy and reference meshes of `b` show the same unit faces (with the mesher's AO setting);
/// returns (greedy, reference) quads.
pub(super) fn check_against_reference(b: &VoxelBuffer, mesher: &mut Mesher) -> (usize, usize) {
    check_against_reference_lit(b, None, mesher)
}

/// [`check_against_reference`] with light (the light of `b`'s box) in both meshes.
pub(super) fn check_against_reference_lit(
    b: &VoxelBuffer,
    light: Option<&LightBuffer>,
    mesher: &mut Mesher,
) -> (usize, usize) {
    let (mut g, mut r) = (ChunkMesh::default(), ChunkMesh::default());
    match light {
        Some(l) => mesher.mesh_lit(b, l, &mut g).expect("light covers the box"),
        None => mesher.mesh(b, &mut g),
    }
    mesh_padded_chunk_culled_lit(
        b,
        mesher.materials(),
        light,
        &mut r,
        mesher.ambient_occlusion(),
        mesher.shade_in_shader(),
    );
    let (gf, rf) = (unit_faces(&g), unit_faces(&r));
    assert_eq!(rf.len(), r.quad_count());
    assert!(gf.windows(2).all(|w| w[0] != w[1]), "overlapping quads");
    if gf != rf {
        let missing: Vec<_> = rf.iter().filter(|f| !gf.contains(f)).take(3).collect();
        let extra: Vec<_> = gf.iter().filter(|f| !rf.contains(f)).take(3).collect();
        panic!("surfaces differ: {} vs {} faces; missing {missing:?}; extra {extra:?}", gf.len(), rf.len());
    }
    assert_clockwise(&g);
    assert!(g.quad_count() <= r.quad_count());
    // Never a face against a block that hides it, halo included.
    for &(p, d, _, _, _, _) in &gf {
        let at = IVec3::new(p[0], p[1], p[2]) + IVec3::ONE;
        let (id, nb) = (b.get_local(at), b.get_local(at + FACES[d].0));
        assert!(face_visible(mesher.materials(), id, nb), "hidden face at {p:?} dir {d}: {id} against {nb}");
    }
    (g.quad_count(), r.quad_count())
}

pub(super) fn random_box(seed: u64, size: i32, ids: &[BlockId], fill: f32) -> VoxelBuffer {
    let mut b = VoxelBuffer::new(IVec3::splat(-1), IVec3::splat(size));
    for y in 0..size {
        for z in 0..size {
            for x in 0..size {
                let h = hash3(seed, 7, x, y, z);
                if ((h >> 40) as f32 / (1u64 << 24) as f32) < fill {
                    b.set_local(IVec3::new(x, y, z), ids[(h % ids.len() as u64) as usize]);
                }
            }
        }
    }
    b
}

/// A light buffer over `b`'s box with each voxel's byte drawn from `levels` by a hash of its
/// position (few levels: neighbouring faces often agree, so merging is exercised both ways).
pub(super) fn random_light(seed: u64, b: &VoxelBuffer, levels: &[u8]) -> LightBuffer {
    let (min, size) = (b.min(), b.size());
    let mut data = Vec::with_capacity(size.volume());
    for y in 0..size.y {
        for z in 0..size.z {
            for x in 0..size.x {
                let h = hash3(seed, 11, x, y, z);
                data.push(levels[(h % levels.len() as u64) as usize]);
            }
        }
    }
    LightBuffer::from_data(min, size, &data)
}
