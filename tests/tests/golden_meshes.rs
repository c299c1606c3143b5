//! Golden fingerprints of the bytes Godot receives: the packed surfaces (`MeshBytes`) of the
//! greedy mesher, the culled reference mesher and the far view, for fixed chunks and columns of
//! the shipped `default_hills` world. The mesh's in-memory layout may change; what reaches the
//! GPU must not, unless on purpose. Update a constant only for an intended change to how the
//! world looks, and say why in the commit.

use strata_core::gen3d::pipeline::Generator;
use strata_core::mesh::bytes::{MeshBytes, SurfaceBytes};
use strata_core::mesh::{ChunkMesh, Mesher, mesh_padded_chunk_culled};
use strata_core::preset::file::load_preset_file;
use strata_core::stream::far_mesh::{FarMesh, FarScratch, build_far_column};
use strata_core::stream::far_policy::LodColumn;
use strata_core::{ChunkCoord, IVec3, VoxelBuffer};
use strata_tests::{GOLDEN_CHUNKS, shipped_presets_dir};

// Preset format 3 (issue 48): default_hills' biome borders meander and mix, so its chunks' blocks
// changed (before: 0x28bfa7aa00899d62, 0x31e12e75ecff027c, 0x0b5cdee068f6deba, 0xf27d821fdf4f379b).
const GOLDEN_GREEDY: u64 = 0x7b7122e5e7605009;
const GOLDEN_CULLED: u64 = 0xef2745fff9a50d8a;
const GOLDEN_FAR: u64 = 0xaf678f6fb91547c1;

/// Fingerprint of the vertex arrays alone (positions, face directions, colours, indices of the
/// opaque and liquid surfaces) of the greedy, culled and far meshes: the built-in blocks (ids
/// 0..18) must keep exactly these whatever else a mesh carries (layers, light, how it is packed).
const GOLDEN_ARRAYS_BUILTIN: u64 = 0xe46a1ce8085ba0d6;

const FAR_COLUMNS: [(u8, i32, i32); 4] = [(1, 0, 0), (1, -3, 2), (2, 5, -1), (3, -1, -1)];

fn fnv(h: &mut u64, bytes: &[u8]) {
    for &b in bytes {
        *h ^= b as u64;
        *h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
}

fn eat_surface(h: &mut u64, s: &Option<SurfaceBytes>) {
    let Some(s) = s else {
        fnv(h, b"none");
        return;
    };
    fnv(h, &s.format.to_le_bytes());
    fnv(h, &s.vertex_count.to_le_bytes());
    fnv(h, &s.index_count.to_le_bytes());
    fnv(h, &s.vertex_data);
    fnv(h, &s.attribute_data);
    fnv(h, &s.index_data);
    for f in s.aabb_position.iter().chain(&s.aabb_size) {
        fnv(h, &f.to_le_bytes());
    }
}

/// Adds `m`'s packed surfaces to `h`; whether it has water.
fn eat_mesh(h: &mut u64, m: &ChunkMesh) -> bool {
    let b = MeshBytes::from_mesh(m);
    for s in b.surfaces() {
        eat_surface(h, s);
    }
    b.liquid.is_some()
}

fn generator() -> Generator {
    let preset = load_preset_file(&shipped_presets_dir().join("default_hills.ron")).unwrap_or_else(|e| panic!("{e}"));
    Generator::new(&preset).expect("shipped preset is valid")
}

/// (greedy, culled) fingerprints over [`GOLDEN_CHUNKS`]; how many greedy meshes have water.
fn chunk_fingerprints(g: &Generator) -> (u64, u64, usize) {
    let mut padded = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
    let mut mesher = Mesher::new();
    let (mut greedy, mut culled) = (ChunkMesh::default(), ChunkMesh::default());
    let mut direct = MeshBytes::default();
    let (mut hg, mut hc) = (0xcbf2_9ce4_8422_2325u64, 0xcbf2_9ce4_8422_2325u64);
    let mut wet = 0;
    for &(x, y, z) in &GOLDEN_CHUNKS {
        g.generate_padded_chunk(ChunkCoord::new(x, y, z), &mut padded);
        mesher.mesh(&padded, &mut greedy);
        // The streams a worker writes while meshing are the same bytes, so the same fingerprint.
        mesher.mesh_bytes(&padded, &mut direct);
        assert_eq!(direct, MeshBytes::from_mesh(&greedy), "chunk ({x}, {y}, {z}): streams written while meshing");
        mesh_padded_chunk_culled(&padded, &mut culled);
        wet += eat_mesh(&mut hg, &greedy) as usize;
        eat_mesh(&mut hc, &culled);
    }
    (hg, hc, wet)
}

/// The far columns' fingerprint; how many have water.
fn far_fingerprint(g: &Generator) -> (u64, usize) {
    let mut scratch = FarScratch::default();
    let mut out = FarMesh::default();
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut wet = 0;
    for (level, x, z) in FAR_COLUMNS {
        build_far_column(g, LodColumn::new(level, x, z), &mut scratch, &mut out);
        fnv(&mut h, &out.origin.y.to_le_bytes());
        wet += eat_mesh(&mut h, &out.mesh) as usize;
    }
    (h, wet)
}

#[test]
fn packed_surfaces_match_their_golden_fingerprints() {
    let g = generator();
    let (greedy, culled, wet_chunks) = chunk_fingerprints(&g);
    let (far, wet_columns) = far_fingerprint(&g);
    assert!(wet_chunks + wet_columns > 0, "water surfaces are covered too");
    let got = [
        ("GOLDEN_GREEDY", greedy, GOLDEN_GREEDY),
        ("GOLDEN_CULLED", culled, GOLDEN_CULLED),
        ("GOLDEN_FAR", far, GOLDEN_FAR),
    ];
    let changed: Vec<String> = got
        .iter()
        .filter(|(_, g, want)| g != want)
        .map(|(name, g, _)| format!("const {name}: u64 = {g:#018x};"))
        .collect();
    assert!(changed.is_empty(), "the bytes sent to Godot changed; if intended, use:\n{}", changed.join("\n"));
}

/// Adds the opaque and liquid surfaces' positions, directions, colours and indices to `h`.
fn eat_arrays(h: &mut u64, m: &ChunkMesh) {
    for s in [&m.opaque, &m.liquid] {
        fnv(h, &(s.positions.len() as u64).to_le_bytes());
        for p in s.positions.iter().flatten() {
            fnv(h, &p.to_le_bytes());
        }
        fnv(h, &s.directions);
        fnv(h, s.colors.as_flattened());
        for i in &s.indices {
            fnv(h, &i.to_le_bytes());
        }
    }
}

#[test]
fn vertex_arrays_of_the_built_in_blocks_match_their_golden_fingerprint() {
    let g = generator();
    let mut padded = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
    let mut mesher = Mesher::new();
    let mut m = ChunkMesh::default();
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for &(x, y, z) in &GOLDEN_CHUNKS {
        g.generate_padded_chunk(ChunkCoord::new(x, y, z), &mut padded);
        mesher.mesh(&padded, &mut m);
        eat_arrays(&mut h, &m);
        assert!(m.cutout.is_empty() && m.transparent.is_empty(), "the built-in blocks are opaque or liquid");
        mesh_padded_chunk_culled(&padded, &mut m);
        eat_arrays(&mut h, &m);
    }
    let mut scratch = FarScratch::default();
    let mut far = FarMesh::default();
    for (level, x, z) in FAR_COLUMNS {
        build_far_column(&g, LodColumn::new(level, x, z), &mut scratch, &mut far);
        eat_arrays(&mut h, &far.mesh);
    }
    assert_eq!(h, GOLDEN_ARRAYS_BUILTIN, "vertex arrays changed: {h:#018x}");
}
