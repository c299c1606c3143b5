//! Meshing one 32³ terrain chunk (padded 34³): Strata's binary greedy mesher (quads with AO,
//! written out as vertex arrays; and with AO off, merged by block alone like block-mesh, as many
//! quads or fewer) against block-mesh's `greedy_quads` (quads only) and Strata's
//! culled reference mesher, on the same voxels from `Generator::generate_padded_chunk`; and
//! Strata's collision faces (solid faces merged by solidity alone, written out as triangle
//! corners); and the fastest blocky mesher crate, `binary-greedy-meshing` 0.5 (`bgm`), on the
//! same chunks, its quads written out as the same vertex arrays Strata's flat mesher writes.
//!
//! What the `bgm` side does per call (see [`bgm_mesh`]): `Mesher::clear` (its API asks for it
//! between calls), its masks (one `u64` per column: opaque blocks, and transparent ones, here
//! water) built from the same `u16` voxels with a per-id table (`peer_bgm`), or taken prebuilt
//! as its README suggests a game keeps them with each chunk (`peer_bgm_prebuilt_masks`),
//! `fast_mesh`, then every quad written out as four vertices into a [`ChunkMesh`] (positions,
//! face direction, RGBA8 colour shaded per face, UVs in voxels, texture layer, six indices; the
//! same arrays and bytes per vertex as Strata's, water quads in the liquid surface). Its voxel
//! layout needs no copy: `Mesher::<32>` takes a 34³ `u16` array, z fastest, then x, then y, and
//! our padded buffer is 34³ `u16` with x fastest, then z, then y: the same cube with x and z
//! named the other way round, so positions swap x and z on the way out. The crate is compiled
//! for the baseline target (as a user gets it); `peer_bgm_avx2` is the same call compiled for
//! the AVX2 and BMI features Strata's mesher uses. `main` checks that both sides cover the same
//! face area per direction and surface before timing.
//!
//! `strata_lit` and `strata_worker` are the mesher as the streaming worker runs it for Godot:
//! AO on, textures and layers from the default library, each face lit from the chunk's light
//! (`Mesher::mesh_lit` over the 34³ light `ChunkLighter` bakes with the default library's light
//! props, computed once outside the timing), and for `strata_worker` the mesh written straight
//! into Godot's byte streams (`Mesher::mesh_lit_bytes`), as `stream/streamer.rs` does per chunk;
//! `strata_worker_two_pass` is the same in two passes (vertex arrays, then `MeshBytes::pack`).
//! `strata_worker_shader_ao` is the step as `ChunkWorld` runs it with its block shaders: AO
//! computed per fragment from the occluder bits written beside the streams, so the quads merge
//! by block and light alone, and the face shade left to the shaders, so textured (white)
//! surfaces go without colours.
//!
//! Run: `cargo bench -p strata-core --bench mesh`. Prints the quad counts before the timings.

mod common;

use binary_greedy_meshing as bgm;
use std::hint::black_box;
use std::sync::{Arc, LazyLock};
use strata_core::VoxelBuffer;
use strata_core::base::block_library::{BlockLibrary, Face, RenderMode, default_library};
use strata_core::light::{LightBuffer, LightProps};
use strata_core::mesh::bytes::MeshBytes;
use strata_core::mesh::{ChunkMesh, MeshMaterials, MeshSurface, Mesher, mesh_padded_chunk_culled, rgba8};
use strata_core::stream::lighting::ChunkLighter;

/// Corners per collision quad (two triangles).
const CORNERS_PER_QUAD: usize = 6;

static CHUNKS: LazyLock<Vec<VoxelBuffer>> =
    LazyLock::new(|| common::padded_chunks(&common::generator()).into_iter().map(|(_, b)| b).collect());
static BM_CHUNKS: LazyLock<Vec<Vec<common::BmVoxel>>> =
    LazyLock::new(|| CHUNKS.iter().map(common::to_block_mesh).collect());

const ARGS: [usize; 4] = [0, 1, 2, 3];

/// The light of each bench chunk as a worker bakes it (the default library's light props, no
/// edits): the chunk and its one-voxel shell, the box of the padded voxels.
static LIGHTS: LazyLock<Vec<LightBuffer>> = LazyLock::new(|| {
    let g = common::generator();
    let props = LightProps::from_library(default_library());
    let mut lighter = ChunkLighter::default();
    common::padded_chunks(&g)
        .iter()
        .map(|(c, _)| lighter.light_chunk(&g, None, *c, &[], &props).expect("a bench chunk lights").clone())
        .collect()
});

/// `bgm`'s mesher for a 32³ chunk padded to 34³, our padded buffer's size.
type BgmMesher = bgm::Mesher<32>;
/// Voxels per row of the padded buffer (a `bgm` column).
const PADDED_SIDE: usize = 34;
static BGM_MASKS: LazyLock<Vec<BgmMasks>> = LazyLock::new(|| {
    let looks = BgmLooks::new();
    CHUNKS
        .iter()
        .map(|b| {
            let mut m = BgmMasks::default();
            m.build(b.data(), &looks);
            m
        })
        .collect()
});

fn main() {
    let g = common::generator();
    let mut mesher = Mesher::new();
    let mut bm = common::new_block_mesh_buffer();
    for (i, (c, b)) in common::padded_chunks(&g).iter().enumerate() {
        let (mut greedy, mut culled, mut flat) = (ChunkMesh::default(), ChunkMesh::default(), ChunkMesh::default());
        mesher.mesh(b, &mut greedy);
        mesher.set_ambient_occlusion(false);
        mesher.mesh(b, &mut flat);
        mesher.set_ambient_occlusion(true);
        mesh_padded_chunk_culled(b, &mut culled);
        let mut collision = Vec::new();
        mesher.collision_faces(b, &mut collision);
        let mut lit = ChunkMesh::default();
        mesher.mesh_lit(b, &LIGHTS[i], &mut lit).expect("the light covers the padded box");
        let mut shader_ao = ChunkMesh::default();
        mesher.set_ambient_occlusion(false);
        mesher.mesh_lit(b, &LIGHTS[i], &mut shader_ao).expect("the light covers the padded box");
        mesher.set_ambient_occlusion(true);
        let mut direct = MeshBytes::default();
        mesher.mesh_lit_bytes(b, &LIGHTS[i], &mut direct).expect("the light covers the padded box");
        assert_eq!(direct, MeshBytes::from_mesh(&lit), "chunk {i}: the worker's streams are the arrays packed");
        let baseline = common::block_mesh_quads(&common::to_block_mesh(b), &mut bm);
        let (looks, mut peer, mut masks, mut peer_mesh) =
            (BgmLooks::new(), BgmMesher::new(), BgmMasks::default(), ChunkMesh::default());
        masks.build(b.data(), &looks);
        for (r, row) in b.data().chunks_exact(PADDED_SIDE).enumerate() {
            let bits = |bit: u8| {
                row.iter().enumerate().fold(0u64, |m, (x, &id)| m | (((looks.kind(id) & bit) != 0) as u64) << x)
            };
            assert_eq!((masks.opaque[r], masks.transparent[r]), (bits(1), bits(2)), "chunk {i}: masks of row {r}");
        }
        bgm_mesh(b, &looks, &mut peer, &mut masks, None, &mut peer_mesh);
        // The same output: the same unit faces in the same surfaces, wound the same way.
        let (ours, theirs) = (face_cells(&flat), face_cells(&peer_mesh));
        if ours != theirs {
            let only = |a: &[UnitFace], b: &[UnitFace]| {
                a.iter().filter(|c| b.binary_search(c).is_err()).take(8).copied().collect::<Vec<_>>()
            };
            panic!(
                "chunk {i}: bgm's faces differ from Strata's: {} against {} unit faces, windings {:?} against {:?}; only Strata's: {:?}; only bgm's: {:?}",
                ours.0.len(),
                theirs.0.len(),
                ours.1,
                theirs.1,
                only(&ours.0, &theirs.0),
                only(&theirs.0, &ours.0)
            );
        }
        println!(
            "quads chunk={i} coord=({},{},{}) strata_greedy={} strata_lit={} strata_lit_shader_ao={} strata_flat={} culled={} block_mesh={} bgm={} collision={}",
            c.x,
            c.y,
            c.z,
            greedy.quad_count(),
            lit.quad_count(),
            shader_ao.quad_count(),
            flat.quad_count(),
            culled.quad_count(),
            baseline,
            peer_mesh.quad_count(),
            collision.len() / CORNERS_PER_QUAD
        );
    }
    divan::main();
}

/// Strata's binary greedy mesher, vertex arrays included.
#[divan::bench(args = ARGS)]
fn strata_greedy(bencher: divan::Bencher, chunk: usize) {
    let b = &CHUNKS[chunk];
    let mut mesher = Mesher::new();
    let mut out = ChunkMesh::default();
    bencher.bench_local(|| {
        mesher.mesh(black_box(b), &mut out);
        black_box(out.opaque.indices.len())
    });
}

/// The mesher as the streaming worker runs it: AO on, every face lit from the chunk's light
/// (`Mesher::mesh_lit`), vertex arrays included.
#[divan::bench(args = ARGS)]
fn strata_lit(bencher: divan::Bencher, chunk: usize) {
    let (b, light) = (&CHUNKS[chunk], &LIGHTS[chunk]);
    let mut mesher = Mesher::new();
    let mut out = ChunkMesh::default();
    bencher.bench_local(|| {
        mesher.mesh_lit(black_box(b), light, &mut out).expect("the light covers the padded box");
        black_box(out.opaque.indices.len())
    });
}

/// The streaming worker's whole meshing step for Godot: the mesher as [`strata_lit`] runs it,
/// writing Godot's byte streams as it merges (`Mesher::mesh_lit_bytes`, reusing its buffers as a
/// worker does), as `stream/streamer.rs` does per chunk.
#[divan::bench(args = ARGS)]
fn strata_worker(bencher: divan::Bencher, chunk: usize) {
    let (b, light) = (&CHUNKS[chunk], &LIGHTS[chunk]);
    let mut mesher = Mesher::new();
    let mut bytes = MeshBytes::default();
    bencher.bench_local(|| {
        mesher.mesh_lit_bytes(black_box(b), light, &mut bytes).expect("the light covers the padded box");
        black_box(bytes.opaque.as_ref().map_or(0, |s| s.vertex_count))
    });
}

/// The materials `ChunkWorld` meshes with: the default library's, a textured block white (its
/// texture gives the colour).
fn textured_white_materials() -> Arc<MeshMaterials> {
    let blocks = default_library()
        .blocks()
        .iter()
        .map(|b| {
            let mut b = b.clone();
            if Face::ALL.iter().any(|&f| !b.faces.texture_for_face(f).is_empty()) {
                b.color = [1.0; 3];
            }
            b
        })
        .collect();
    Arc::new(MeshMaterials::with_texture_order(&BlockLibrary::new(blocks).expect("the default blocks")))
}

/// The worker's meshing step as `ChunkWorld` runs it with its block shaders: AO and face shade
/// per fragment, so the quads merge by block and light alone (AO off in the mesher), the padded
/// box's occluder bits go out with the streams (`Mesher::set_occluder_bits`) and the textured
/// (white) surfaces carry no colours (`Mesher::set_shade_in_shader`).
#[divan::bench(args = ARGS)]
fn strata_worker_shader_ao(bencher: divan::Bencher, chunk: usize) {
    let (b, light) = (&CHUNKS[chunk], &LIGHTS[chunk]);
    let mut mesher = Mesher::with_materials(textured_white_materials());
    mesher.set_ambient_occlusion(false);
    mesher.set_occluder_bits(true);
    mesher.set_shade_in_shader(true);
    let mut bytes = MeshBytes::default();
    bencher.bench_local(|| {
        mesher.mesh_lit_bytes(black_box(b), light, &mut bytes).expect("the light covers the padded box");
        black_box((bytes.opaque.as_ref().map_or(0, |s| s.vertex_count), bytes.occluders.bytes.len()))
    });
}

/// The same step in two passes, the baseline of [`strata_worker`]: [`strata_lit`]'s vertex
/// arrays, then packed into the same streams (`MeshBytes::pack`).
#[divan::bench(args = ARGS)]
fn strata_worker_two_pass(bencher: divan::Bencher, chunk: usize) {
    let (b, light) = (&CHUNKS[chunk], &LIGHTS[chunk]);
    let mut mesher = Mesher::new();
    let (mut out, mut bytes) = (ChunkMesh::default(), MeshBytes::default());
    bencher.bench_local(|| {
        mesher.mesh_lit(black_box(b), light, &mut out).expect("the light covers the padded box");
        bytes.pack(&out);
        black_box(bytes.opaque.as_ref().map_or(0, |s| s.vertex_count))
    });
}

/// The same mesher with ambient occlusion off: faces merged by block alone, lit open (what
/// block-mesh's `greedy_quads` merges by), vertex arrays included.
#[divan::bench(args = ARGS)]
fn strata_greedy_flat(bencher: divan::Bencher, chunk: usize) {
    let b = &CHUNKS[chunk];
    let mut mesher = Mesher::new();
    mesher.set_ambient_occlusion(false);
    let mut out = ChunkMesh::default();
    bencher.bench_local(|| {
        mesher.mesh(black_box(b), &mut out);
        black_box(out.opaque.indices.len())
    });
}

/// Strata's collision faces: solid faces only, merged by solidity, triangle corners included.
#[divan::bench(args = ARGS)]
fn strata_collision_faces(bencher: divan::Bencher, chunk: usize) {
    let b = &CHUNKS[chunk];
    let mut mesher = Mesher::new();
    let mut out = Vec::new();
    bencher.bench_local(|| {
        mesher.collision_faces(black_box(b), &mut out);
        black_box(out.len())
    });
}

/// Baseline: block-mesh `greedy_quads` (quads only).
#[divan::bench(args = ARGS)]
fn block_mesh_greedy(bencher: divan::Bencher, chunk: usize) {
    let v = &BM_CHUNKS[chunk];
    let mut buffer = common::new_block_mesh_buffer();
    bencher.bench_local(|| black_box(common::block_mesh_quads(black_box(v), &mut buffer)));
}

/// Strata's one-quad-per-face reference mesher (what the greedy mesher replaced).
#[divan::bench(args = ARGS, sample_count = 20)]
fn strata_culled_reference(bencher: divan::Bencher, chunk: usize) {
    let b = &CHUNKS[chunk];
    let mut out = ChunkMesh::default();
    bencher.bench_local(|| {
        mesh_padded_chunk_culled(black_box(b), &mut out);
        black_box(out.opaque.indices.len())
    });
}

/// Peer: `binary-greedy-meshing` 0.5 `fast_mesh` from the same `u16` voxels, its masks built in
/// the call, quads written out as Strata's vertex arrays (see the module doc).
#[divan::bench(args = ARGS)]
fn peer_bgm(bencher: divan::Bencher, chunk: usize) {
    let (b, looks) = (&CHUNKS[chunk], BgmLooks::new());
    let (mut mesher, mut masks, mut out) = (BgmMesher::new(), BgmMasks::default(), ChunkMesh::default());
    bencher.bench_local(|| {
        bgm_mesh(black_box(b), &looks, &mut mesher, &mut masks, None, &mut out);
        black_box(out.opaque.indices.len())
    });
}

/// [`peer_bgm`] with the masks prebuilt (kept with the chunk, as its README suggests): the
/// `fast_mesh` call and the vertex arrays only.
#[divan::bench(args = ARGS)]
fn peer_bgm_prebuilt_masks(bencher: divan::Bencher, chunk: usize) {
    let (b, looks, prebuilt) = (&CHUNKS[chunk], BgmLooks::new(), &BGM_MASKS[chunk]);
    let (mut mesher, mut masks, mut out) = (BgmMesher::new(), BgmMasks::default(), ChunkMesh::default());
    bencher.bench_local(|| {
        bgm_mesh(black_box(b), &looks, &mut mesher, &mut masks, Some(prebuilt), &mut out);
        black_box(out.opaque.indices.len())
    });
}

/// [`peer_bgm`] compiled for AVX2 and BMI, the features Strata's mesher is compiled for (the
/// crate's generic code is instantiated here, so it is built with them when inlined).
#[cfg(target_arch = "x86_64")]
#[divan::bench(args = ARGS)]
fn peer_bgm_avx2(bencher: divan::Bencher, chunk: usize) {
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
    fn call(b: &VoxelBuffer, looks: &BgmLooks, mesher: &mut BgmMesher, masks: &mut BgmMasks, out: &mut ChunkMesh) {
        bgm_mesh(b, looks, mesher, masks, None, out);
    }
    if !std::arch::is_x86_feature_detected!("avx2") || !std::arch::is_x86_feature_detected!("bmi2") {
        return;
    }
    let (b, looks) = (&CHUNKS[chunk], BgmLooks::new());
    let (mut mesher, mut masks, mut out) = (BgmMesher::new(), BgmMasks::default(), ChunkMesh::default());
    bencher.bench_local(|| {
        // SAFETY: the CPU has AVX2 and BMI2 (checked above; BMI1, LZCNT and POPCNT come with them
        // on every x86_64 CPU that has both).
        unsafe { call(black_box(b), &looks, &mut mesher, &mut masks, &mut out) };
        black_box(out.opaque.indices.len())
    });
}

/// Per block id, what the `bgm` side needs: whether it is opaque or transparent (its masks),
/// its surface, and per face direction (Strata's order) its shaded RGBA8 colour and texture
/// layer, from the same [`MeshMaterials`] Strata's mesher reads.
struct BgmLooks {
    /// Per id (every `u16`, so indexing needs no check): bit 0 opaque, bit 1 transparent (drawn,
    /// hides nothing), 0 air; ids the materials do not know are opaque, as Strata meshes them.
    kind: Box<[u8; 1 << 16]>,
    surface: Vec<u8>,
    colors: Vec<[[u8; 4]; 6]>,
    layers: Vec<[u16; 6]>,
}

/// Strata's shade of each face direction (`+x, -x, +y, -y, +z, -z`), as its mesher applies it.
const FACE_SHADE: [f32; 6] = [0.86, 0.86, 1.0, 0.6, 0.93, 0.93];

impl BgmLooks {
    fn new() -> Self {
        let materials = MeshMaterials::shared_default();
        let ids = 0..materials.len().max(1) as u16;
        let looks: Vec<_> = ids.map(|id| *materials.look(id)).collect();
        let mut kind = Box::new([1u8; 1 << 16]);
        for (id, l) in looks.iter().enumerate() {
            kind[id] = match (id, l.occludes()) {
                (0, _) => 0,
                (_, true) => 1,
                _ => 2,
            };
        }
        Self {
            kind,
            surface: looks
                .iter()
                .map(|l| match l.render_mode {
                    RenderMode::Opaque => 0,
                    RenderMode::Cutout => 1,
                    RenderMode::Transparent => 2,
                    RenderMode::Liquid => 3,
                })
                .collect(),
            colors: looks
                .iter()
                .map(|l| FACE_SHADE.map(|s| rgba8([l.color[0] * s, l.color[1] * s, l.color[2] * s, 1.0])))
                .collect(),
            layers: looks.iter().map(|l| l.layers).collect(),
        }
    }

    #[inline(always)]
    fn kind(&self, id: u16) -> u8 {
        self.kind[id as usize]
    }
}

/// `bgm`'s two masks: per column (a row of our buffer, x along the bits), which voxels are
/// opaque and which transparent.
struct BgmMasks {
    opaque: Vec<u64>,
    transparent: Vec<u64>,
}

impl Default for BgmMasks {
    fn default() -> Self {
        Self { opaque: vec![0; BgmMesher::CS_P2], transparent: vec![0; BgmMesher::CS_P2] }
    }
}

impl BgmMasks {
    #[inline]
    fn build(&mut self, voxels: &[u16], looks: &BgmLooks) {
        for ((row, o), t) in voxels.chunks_exact(PADDED_SIDE).zip(&mut self.opaque).zip(&mut self.transparent) {
            // The row's kinds, a byte each (zeros past the row), eight at a time into bits: the
            // multiply moves bit 8·i of a word to bit 56 + i without carries.
            let mut kinds = [0u8; 40];
            kinds[..PADDED_SIDE].iter_mut().zip(row).for_each(|(k, &id)| *k = looks.kind(id));
            let (mut opaque, mut transparent) = (0u64, 0u64);
            for (n, word) in kinds.chunks_exact(8).enumerate() {
                let w = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
                let pack = |w: u64| ((w & 0x0101_0101_0101_0101).wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * n);
                opaque |= pack(w);
                transparent |= pack(w >> 1);
            }
            (*o, *t) = (opaque, transparent);
        }
    }
}

/// One `bgm` meshing of `padded` into `out` (see the module doc); `prebuilt` masks skip building
/// them.
#[inline(always)]
fn bgm_mesh(
    padded: &VoxelBuffer,
    looks: &BgmLooks,
    mesher: &mut BgmMesher,
    masks: &mut BgmMasks,
    prebuilt: Option<&BgmMasks>,
    out: &mut ChunkMesh,
) {
    let voxels = padded.data();
    mesher.clear();
    let masks = match prebuilt {
        Some(m) => m,
        None => {
            masks.build(voxels, looks);
            masks
        }
    };
    mesher.fast_mesh(voxels, &masks.opaque, &masks.transparent);
    out.clear();
    // `bgm`'s faces (Up, Down, Right, Left, Front, Back along its own x, y, z) as Strata's
    // directions (+x, -x, +y, -y, +z, -z): its x is our z and its z our x.
    const DIRECTION: [usize; 6] = [2, 3, 4, 5, 0, 1];
    for (face, quads) in mesher.quads.iter().enumerate() {
        let (side, d) = (bgm::Face::from(face as u8), DIRECTION[face]);
        for &quad in quads {
            let id = quad.voxel_id() as usize;
            let surface: &mut MeshSurface = match looks.surface.get(id).copied().unwrap_or(0) {
                0 => &mut out.opaque,
                1 => &mut out.cutout,
                2 => &mut out.transparent,
                _ => &mut out.liquid,
            };
            let vertices = side.vertices_packed(quad);
            let base = surface.positions.len() as i32;
            surface.positions.extend(vertices.map(|v| [v.z() as f32, v.y() as f32, v.x() as f32]));
            surface.directions.extend_from_slice(&[d as u8; 4]);
            let (color, layer) =
                looks.colors.get(id).zip(looks.layers.get(id)).map_or(([255, 0, 255, 255], 0), |(c, l)| (c[d], l[d]));
            surface.colors.extend_from_slice(&[color; 4]);
            surface.layers.extend_from_slice(&[layer; 4]);
            // `bgm::indices`' triangles: with x and z swapped (a mirror) they are wound clockwise
            // from the front, as Strata's are (checked in `main`).
            surface.indices.extend_from_slice(&[2, 0, 1, 1, 3, 2].map(|t| base + t));
        }
    }
}

/// A unit face: surface, direction, voxel corner of the face.
type UnitFace = (usize, u8, [i32; 3]);

/// Every unit face of a mesh as (surface, direction, voxel corner of the face), sorted, and the
/// windings its triangles have seen from the front of their face (`true`: counter-clockwise).
fn face_cells(mesh: &ChunkMesh) -> (Vec<UnitFace>, Vec<bool>) {
    let (mut cells, mut windings) = (Vec::new(), Vec::new());
    for (n, s) in mesh.surfaces().iter().enumerate() {
        for quad in s.indices.chunks_exact(6) {
            let corners = quad.iter().map(|&i| s.positions[i as usize].map(|v| v as i32));
            let lo = corners.clone().fold([i32::MAX; 3], |m, c| [m[0].min(c[0]), m[1].min(c[1]), m[2].min(c[2])]);
            let hi = corners.fold([i32::MIN; 3], |m, c| [m[0].max(c[0]), m[1].max(c[1]), m[2].max(c[2])]);
            let d = s.directions[quad[0] as usize];
            let span = |a: usize| if lo[a] == hi[a] { lo[a]..lo[a] + 1 } else { lo[a]..hi[a] };
            for x in span(0) {
                for y in span(1) {
                    for z in span(2) {
                        cells.push((n, d, [x, y, z]));
                    }
                }
            }
            for tri in quad.chunks_exact(3) {
                let [a, b, c] = [0, 1, 2].map(|k| s.positions[tri[k] as usize]);
                let (e1, e2) = ([b[0] - a[0], b[1] - a[1], b[2] - a[2]], [c[0] - a[0], c[1] - a[1], c[2] - a[2]]);
                let cross =
                    [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]];
                let normal = s.normal(tri[0] as usize);
                windings.push(cross[0] * normal[0] + cross[1] * normal[1] + cross[2] * normal[2] > 0.0);
            }
        }
    }
    cells.sort_unstable();
    windings.sort_unstable();
    windings.dedup();
    (cells, windings)
}
