//! Law 1 across machines: the world is the same, bit for bit, on every SIMD path.
//!
//! The core picks AVX-512, AVX2 or portable code at run time. A machine without AVX2 must get
//! the voxels, scatter, meshes, Godot byte streams, collision triangles, far view, 2D tiles and
//! 3D fBm grids that this one gets. Each test builds everything under every SIMD limit this CPU can run
//! (`strata_core::base::simd::with_limit`) and compares each result with the uncapped one. On a CPU
//! without AVX2 there is only one path, and the comparison is trivially true.

use strata_core::base::simd::{SimdLevel, with_limit};
use strata_core::gen2d::{ChunkCoord2D, Generator2D, TileGrid};
use strata_core::gen3d::columns::ColumnGrid;
use strata_core::gen3d::pipeline::{Generator, GeneratorOptions};
use strata_core::gen3d::scatter::ScatterInstance;
use strata_core::gen3d::scratch::GenScratch;
use strata_core::mesh::bytes::MeshBytes;
use strata_core::mesh::{ChunkMesh, Mesher};
use strata_core::noise::fast_fbm::Kernel;
use strata_core::preset::file::load_preset_file;
use strata_core::stream::far_mesh::{FarMesh, FarScratch, build_far_column};
use strata_core::stream::far_policy::LodColumn;
use strata_core::{CHUNK_SIZE, ChunkCoord, IVec3, VoxelBuffer, WorldPreset};
use strata_tests::{GOLDEN_CHUNKS, shipped_presets_dir};

/// The default preset and every shipped one, by name.
fn presets() -> Vec<(String, WorldPreset)> {
    let mut out = vec![("default".to_string(), WorldPreset::default())];
    let mut paths: Vec<_> = std::fs::read_dir(shipped_presets_dir())
        .expect("the shipped presets folder")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "ron"))
        .collect();
    paths.sort();
    for path in paths {
        let preset = load_preset_file(&path).unwrap_or_else(|e| panic!("{e}"));
        out.push((path.file_stem().unwrap_or_default().to_string_lossy().into_owned(), preset));
    }
    assert!(out.len() >= 4, "the shipped presets are found");
    out
}

/// Everything a streaming worker makes for one chunk.
#[derive(Debug, PartialEq)]
struct ChunkOutput {
    sky: bool,
    padded: VoxelBuffer,
    scatter: Vec<ScatterInstance>,
    mesh_ao: ChunkMesh,
    bytes_ao: MeshBytes,
    mesh_flat: ChunkMesh,
    collision: Vec<[f32; 3]>,
}

/// The golden chunks, the chunk holding the surface at each golden column, and the two below it
/// (caves, ores, aquifers).
fn chunks(g: &Generator) -> Vec<ChunkCoord> {
    let mut out: Vec<ChunkCoord> = GOLDEN_CHUNKS.iter().map(|&(x, y, z)| ChunkCoord::new(x, y, z)).collect();
    for &(x, _, z) in &GOLDEN_CHUNKS[..6] {
        let top =
            g.surface_height(x * CHUNK_SIZE + CHUNK_SIZE / 2, z * CHUNK_SIZE + CHUNK_SIZE / 2).div_euclid(CHUNK_SIZE);
        out.extend((top - 2..=top).map(|y| ChunkCoord::new(x, y, z)));
    }
    out
}

/// What the 3D world makes under the current thread's SIMD limit: a generator built here (its
/// noise kernel is chosen at construction), then every chunk as a worker makes it.
fn world_3d(preset: &WorldPreset) -> Vec<(ChunkCoord, ChunkOutput)> {
    let g = Generator::with_options(preset, GeneratorOptions::default().base_dir(Some(&shipped_presets_dir())))
        .expect("the preset is valid");
    let mut mesher = Mesher::new();
    let mut columns = ColumnGrid { min_x: 0, min_z: 0, size_x: 0, size_z: 0, columns: Vec::new() };
    let mut scratch = GenScratch::default();
    chunks(&g)
        .into_iter()
        .map(|c| {
            let mut padded = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
            let sky = g.generate_padded_chunk_unless_sky(c, &mut padded, &mut columns, &mut scratch);
            let scatter = if sky { Vec::new() } else { g.scatter_chunk_with_columns(c, &columns) };
            let (mut mesh_ao, mut mesh_flat, mut collision) = (ChunkMesh::default(), ChunkMesh::default(), Vec::new());
            mesher.set_ambient_occlusion(true);
            mesher.mesh(&padded, &mut mesh_ao);
            mesher.set_ambient_occlusion(false);
            mesher.mesh(&padded, &mut mesh_flat);
            mesher.collision_faces(&padded, &mut collision);
            let bytes_ao = MeshBytes::from_mesh(&mesh_ao);
            (c, ChunkOutput { sky, padded, scatter, mesh_ao, bytes_ao, mesh_flat, collision })
        })
        .collect()
}

/// The far view's columns at every level, near the origin and far from it.
fn far_view(preset: &WorldPreset) -> Vec<(LodColumn, FarMesh)> {
    let g = Generator::with_options(preset, GeneratorOptions::default().base_dir(Some(&shipped_presets_dir())))
        .expect("the preset is valid");
    let mut scratch = FarScratch::default();
    [(1u8, 0, 0), (1, -3, 2), (2, 5, -1), (3, -1, -1), (2, 300, -700)]
        .into_iter()
        .map(|(level, x, z)| {
            let column = LodColumn::new(level, x, z);
            let mut out = FarMesh::default();
            build_far_column(&g, column, &mut scratch, &mut out);
            (column, out)
        })
        .collect()
}

/// Side-view chunks along the surface and below it.
fn world_2d(preset: &WorldPreset) -> Vec<(ChunkCoord2D, TileGrid)> {
    let g = Generator2D::new(preset).expect("the preset is valid in 2D");
    let n = g.chunk_tiles();
    let mut out = Vec::new();
    for x in [-5, 0, 1, 40] {
        let top = g.surface_row(x * n + n / 2).div_euclid(n);
        for y in top - 2..=top + 1 {
            let c = ChunkCoord2D { x, y };
            out.push((c, g.generate_padded_chunk(c)));
        }
    }
    out
}

/// Runs `make` under every SIMD limit this CPU has and checks each result equals the uncapped
/// one, naming the first key where they differ.
fn same_on_every_path<K: std::fmt::Debug, V: PartialEq>(what: &str, make: impl Fn() -> Vec<(K, V)>) {
    let levels = SimdLevel::available();
    eprintln!("{what}: SIMD levels on this CPU: {levels:?}");
    let widest = make();
    for &level in &levels[..levels.len() - 1] {
        let capped = with_limit(level, &make);
        assert_eq!(capped.len(), widest.len(), "{what}: as many results with SIMD capped at {level:?}");
        for ((key, want), (_, got)) in widest.iter().zip(&capped) {
            assert!(got == want, "{what}: {key:?} differs with SIMD capped at {level:?} from the uncapped result");
        }
    }
}

#[test]
fn chunks_are_the_same_on_every_simd_path() {
    for (name, preset) in presets() {
        same_on_every_path(&format!("3D chunks of {name}"), || world_3d(&preset));
    }
}

#[test]
fn the_far_view_is_the_same_on_every_simd_path() {
    for (name, preset) in presets() {
        same_on_every_path(&format!("far view of {name}"), || far_view(&preset));
    }
}

#[test]
fn side_view_chunks_are_the_same_on_every_simd_path() {
    for (name, preset) in presets() {
        same_on_every_path(&format!("2D chunks of {name}"), || world_2d(&preset));
    }
}

#[test]
fn fbm_3d_grids_are_the_same_on_every_simd_path() {
    use strata_core::noise::fast_fbm3::PerlinFbm3;
    use strata_core::noise::fractal::FractalParams;
    let params = FractalParams { octaves: 5, frequency: 1.0 / 64.0, persistence: 0.5, lacunarity: 2.0 };
    let axis = |origin: f64, step: f64, n: usize| (0..n).map(|i| origin + i as f64 * step).collect::<Vec<f64>>();
    let (xs, ys, zs) = (axis(1000.5, 1.0, 33), axis(-40.5, 4.0, 9), axis(-3000.5, 0.75, 17));
    same_on_every_path("3D fBm grids", || {
        // Built under the limit: the kernel is chosen at construction.
        let noise = PerlinFbm3::new(7, params);
        let mut exact = vec![0.0f64; xs.len() * ys.len() * zs.len()];
        let mut single = vec![0.0f32; exact.len()];
        noise.fill_grid(&xs, &ys, &zs, &mut exact);
        noise.fill_grid_f32(&xs, &ys, &zs, &mut single);
        vec![
            ("f64 grid", exact.iter().map(|v| v.to_bits()).collect::<Vec<u64>>()),
            ("f32 grid", single.iter().map(|v| u64::from(v.to_bits())).collect()),
        ]
    });
}

#[test]
fn a_limit_really_selects_the_narrower_paths() {
    // Without this, every comparison above could be comparing a path with itself.
    assert!(with_limit(SimdLevel::Portable, || !strata_core::base::simd::avx2() && !strata_core::base::simd::avx512()));
    let kernel = |level| with_limit(level, Kernel::detect);
    assert_eq!(kernel(SimdLevel::Portable), Kernel::Portable);
    if SimdLevel::available().contains(&SimdLevel::Avx512) {
        assert_eq!(kernel(SimdLevel::Avx2), Kernel::Avx2);
        assert_eq!(kernel(SimdLevel::Avx512), Kernel::Avx512);
    }
}
