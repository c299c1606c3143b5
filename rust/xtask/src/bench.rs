//! `cargo xtask bench`: runs strata-core's benchmarks (release, divan) one target at a time,
//! parses their medians and writes `target/bench/summary.json`, then prints a table.
//!
//! Keys (null where a bench did not run or printed no such row):
//! `chunk_pipeline_us` / `chunk_pipeline_baseline_us` (whole 32³ chunk as a streaming worker
//! makes it for Godot: generation, scatter, mesh and the mesh's Godot byte streams; mean of the
//! chunks' medians), `chunk_gen_mesh_us` (generation and mesh only), `mesh_us` / `mesh_baseline_us` (meshing one padded chunk; the baseline is block-mesh
//! `greedy_quads`), `mesh_flat_us` (the same mesher with AO off: faces merged by block alone, as
//! block-mesh merges them), `noise2d_ns` / `noise2d_baseline_ns` (one 5-octave 2D fBm sample: the
//! generator's source, `PerlinFbm2` in rows, against `noise`'s `Fbm<Perlin>`, which it equals bit
//! for bit), `noise2d_grid_ns` (the same as a whole grid per call, `fill_grid`, as the terrain
//! lattice samples it), `noise2d_scalar_ns` (the same, one scalar call per sample), `noise2d_terrain_ns` (one
//! column of the whole height field), `noise2d_simdnoise_ns` / `noise2d_fastnoise_lite_ns` (the
//! peer crates on the same grid), `noise3d_*_ns` (one 5-octave 3D fBm point of a 32³ chunk:
//! `grid` / `f32_grid` Strata's `PerlinFbm3` on the chunk as a grid, `batch` its per-point AVX2
//! batch (`get_many`) on the chunk's points, `point` one call per point,
//! `baseline` `noise`'s `Fbm<Perlin>`, `simdnoise` / `fastnoise_lite` the peers; `*lattice*` the
//! fBm on a 4-voxel lattice then trilinear, per voxel), `mesh_bgm_us` / `mesh_bgm_prebuilt_us`
//! (`binary-greedy-meshing` on the same chunks, its quads written out as the same vertex arrays,
//! its masks built in the call or prebuilt), `mesh_lit_us` (the mesher with AO, textures and
//! light, `strata_lit`), `mesh_worker_us` (the same mesher writing Godot's streams as it merges: the
//! worker's meshing step, `strata_worker`), `mesh_worker_shader_ao_us` (that step as `StrataChunkWorld`
//! runs it with its block shaders: AO per fragment, occluder bits beside the streams,
//! `strata_worker_shader_ao`), `ca3d_ns_per_cell` / `ca3d_baseline_ns_per_cell`
//! (one CA pass, bit-parallel against naive), `mesh_quads` / `mesh_flat_quads` /
//! `mesh_baseline_quads` / `mesh_bgm_quads` (mean quads per chunk).
//!
//! Then a headless Godot run of `res://demo/flythrough.tscn` (unless benches are named): at view
//! distance 8 (view-ready time, a flight with per-frame apply times, a 20,000-step random walk
//! with resident memory before, after 10,000 and after 20,000 steps) and at 16 (view-ready
//! time); the extension is the release build. Keys: `view_ready_s_vd8`,
//! `view_ready_s_vd16`, `apply_ms_p50`, `apply_ms_p99`, `apply_ms_max`, `chunks_per_s`,
//! `rss_mb_start`, `rss_mb_ready`, `rss_mb_after_walk` (10,000 steps), `rss_mb_after_walk_20k`,
//! `godot_static_mb_ready`, `godot_static_mb_after_walk` (Godot's own tracked allocations: with
//! RSS they tell a leak from allocator retention), `rss_bytes_per_chunk` (resident growth
//! from start to a ready view, per loaded near chunk: Godot's meshes, collision and the far view
//! included), `rss_bytes_per_chunk_after_walk` / `_20k` (the same after 10,000 / 20,000 steps,
//! the whole view settled: the figure), `far_ready_s_vd8`, `far_columns_vd8` (far view: 3 levels, complete),
//! `apply_chunk_us_median`, `apply_far_us_median` (main-thread time to make one meshed chunk's or
//! far column's nodes), `apply_chunk_{bookkeeping,scatter,mesh,node,occluders,collision}_us_median`
//! (the meshed chunk's by part), `collision_us_median`, `collision_us_max` (one collision build step on the main thread: a
//! part of a chunk's body, the chunk split into octants past 600 triangles);
//! with the demo's spawn rules (a third flight, `--entities=1`): `entities_live`,
//! `entity_spawn_us_median` (main-thread time to instance one), `apply_ms_p99_entities`; and
//! the crowd (`res://demo/crowd_bench.tscn`: 200 of the demo's deer walking on navigation paths
//! around a still viewer, navigation on, beside the same world without them): `crowd_entities`,
//! `crowd_frame_ms_p50`, `crowd_frame_ms_p99`, `crowd_frame_ms_max`,
//! `crowd_baseline_frame_ms_p99` (the main loop's time per frame, headless); and the relight
//! (`res://demo/relight_bench.tscn`: a torch placed and taken away in a sealed cave, a shaft to
//! the sky opened and closed, the main loop at 60 fps): `relight_{torch,shaft}_mesh_frames_p50`
//! / `_max` (frames until the edited chunk's new mesh is in the scene),
//! `relight_{torch,shaft}_frames_p50` and `_ms_p50` (until the world is ready again).
//!
//! The `memory` bench (a counting allocator around the core streamer: view distance 8, far view,
//! then a 10,000-step walk) gives `bytes_per_chunk` and `bytes_per_chunk_after_walk` (heap bytes
//! live per loaded near chunk, the CPU-side measure), `core_live_bytes[_after_walk]`.
//!
//! Each bench's numbers are taken in the same run as its baseline: compare ratios, not times
//! across runs, on a busy machine. No timing is asserted anywhere.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};

/// Samples per iteration in `noise2d` (a 32×32 grid), points per iteration in `noise3d` (a 32³
/// chunk's voxels) and cells per step in `ca3d` (32³).
const NOISE_SAMPLES: f64 = 1024.0;
const NOISE3D_POINTS: f64 = 32768.0;
const CA_CELLS: f64 = 32768.0;

/// One summary entry: key, bench target, group, divisor (per-item), unit label.
struct Entry {
    key: &'static str,
    bench: &'static str,
    group: &'static str,
    to_unit: f64,
    unit: &'static str,
}

const ENTRIES: [Entry; 34] = [
    // 32 rays of 64 voxels an iteration: µs per ray.
    Entry { key: "raycast_64_us", bench: "raycast", group: "cached", to_unit: 32e3, unit: "µs" },
    Entry { key: "raycast_64_generated_us", bench: "raycast", group: "generated", to_unit: 32e3, unit: "µs" },
    Entry { key: "raycast_64_flat_us", bench: "raycast", group: "flat_array", to_unit: 32e3, unit: "µs" },
    Entry { key: "chunk_pipeline_us", bench: "chunk_pipeline", group: "strata_worker", to_unit: 1e3, unit: "µs" },
    Entry { key: "chunk_gen_mesh_us", bench: "chunk_pipeline", group: "strata", to_unit: 1e3, unit: "µs" },
    Entry {
        key: "chunk_pipeline_baseline_us",
        bench: "chunk_pipeline",
        group: "naive_baseline",
        to_unit: 1e3,
        unit: "µs",
    },
    Entry { key: "mesh_us", bench: "mesh", group: "strata_greedy", to_unit: 1e3, unit: "µs" },
    Entry { key: "mesh_lit_us", bench: "mesh", group: "strata_lit", to_unit: 1e3, unit: "µs" },
    Entry { key: "mesh_worker_us", bench: "mesh", group: "strata_worker", to_unit: 1e3, unit: "µs" },
    Entry {
        key: "mesh_worker_shader_ao_us",
        bench: "mesh",
        group: "strata_worker_shader_ao",
        to_unit: 1e3,
        unit: "µs",
    },
    Entry { key: "mesh_flat_us", bench: "mesh", group: "strata_greedy_flat", to_unit: 1e3, unit: "µs" },
    Entry { key: "mesh_baseline_us", bench: "mesh", group: "block_mesh_greedy", to_unit: 1e3, unit: "µs" },
    Entry { key: "noise2d_ns", bench: "noise2d", group: "strata_fast_fbm_batch", to_unit: NOISE_SAMPLES, unit: "ns" },
    Entry {
        key: "noise2d_grid_ns",
        bench: "noise2d",
        group: "strata_fast_fbm_grid",
        to_unit: NOISE_SAMPLES,
        unit: "ns",
    },
    Entry { key: "noise2d_scalar_ns", bench: "noise2d", group: "strata_fast_fbm", to_unit: NOISE_SAMPLES, unit: "ns" },
    Entry {
        key: "noise2d_baseline_ns",
        bench: "noise2d",
        group: "noise_crate_fbm_perlin",
        to_unit: NOISE_SAMPLES,
        unit: "ns",
    },
    Entry {
        key: "noise2d_terrain_ns",
        bench: "noise2d",
        group: "strata_terrain_sample_grid",
        to_unit: NOISE_SAMPLES,
        unit: "ns",
    },
    Entry { key: "mesh_bgm_us", bench: "mesh", group: "peer_bgm", to_unit: 1e3, unit: "µs" },
    Entry { key: "mesh_bgm_prebuilt_us", bench: "mesh", group: "peer_bgm_prebuilt_masks", to_unit: 1e3, unit: "µs" },
    Entry {
        key: "noise2d_simdnoise_ns",
        bench: "noise2d",
        group: "peer_simdnoise_fbm",
        to_unit: NOISE_SAMPLES,
        unit: "ns",
    },
    Entry {
        key: "noise2d_fastnoise_lite_ns",
        bench: "noise2d",
        group: "peer_fastnoise_lite_fbm",
        to_unit: NOISE_SAMPLES,
        unit: "ns",
    },
    Entry { key: "noise3d_grid_ns", bench: "noise3d", group: "strata_fbm3_grid", to_unit: NOISE3D_POINTS, unit: "ns" },
    Entry {
        key: "noise3d_f32_grid_ns",
        bench: "noise3d",
        group: "strata_fbm3_f32_grid",
        to_unit: NOISE3D_POINTS,
        unit: "ns",
    },
    Entry {
        key: "noise3d_batch_ns",
        bench: "noise3d",
        group: "strata_fbm3_batch",
        to_unit: NOISE3D_POINTS,
        unit: "ns",
    },
    Entry {
        key: "noise3d_point_ns",
        bench: "noise3d",
        group: "strata_fbm3_point",
        to_unit: NOISE3D_POINTS,
        unit: "ns",
    },
    Entry {
        key: "noise3d_baseline_ns",
        bench: "noise3d",
        group: "noise_crate_fbm_perlin_point",
        to_unit: NOISE3D_POINTS,
        unit: "ns",
    },
    Entry {
        key: "noise3d_simdnoise_ns",
        bench: "noise3d",
        group: "peer_simdnoise_grid",
        to_unit: NOISE3D_POINTS,
        unit: "ns",
    },
    Entry {
        key: "noise3d_fastnoise_lite_ns",
        bench: "noise3d",
        group: "peer_fastnoise_lite_perlin_point",
        to_unit: NOISE3D_POINTS,
        unit: "ns",
    },
    Entry {
        key: "noise3d_lattice_ns",
        bench: "noise3d",
        group: "strata_fbm3_lattice",
        to_unit: NOISE3D_POINTS,
        unit: "ns",
    },
    Entry {
        key: "noise3d_f32_lattice_ns",
        bench: "noise3d",
        group: "strata_fbm3_f32_lattice",
        to_unit: NOISE3D_POINTS,
        unit: "ns",
    },
    Entry {
        key: "noise3d_simdnoise_lattice_ns",
        bench: "noise3d",
        group: "peer_simdnoise_lattice",
        to_unit: NOISE3D_POINTS,
        unit: "ns",
    },
    Entry {
        key: "noise3d_fastnoise_lite_lattice_ns",
        bench: "noise3d",
        group: "peer_fastnoise_lite_perlin_lattice",
        to_unit: NOISE3D_POINTS,
        unit: "ns",
    },
    Entry { key: "ca3d_ns_per_cell", bench: "ca3d", group: "bit_parallel", to_unit: CA_CELLS, unit: "ns" },
    Entry { key: "ca3d_baseline_ns_per_cell", bench: "ca3d", group: "naive", to_unit: CA_CELLS, unit: "ns" },
];

const BENCHES: [&str; 7] = ["mesh", "chunk_pipeline", "noise2d", "noise3d", "ca3d", "memory", "raycast"];

/// Runs the benches; `args` may name a subset of them.
pub fn run(args: &[String]) -> Result<ExitCode, String> {
    // `e2e` names the headless end-to-end runs, which run with every bench or alone.
    let with_e2e = args.is_empty() || args.iter().any(|a| a == "e2e");
    let wanted: Vec<&str> = if args.is_empty() {
        BENCHES.to_vec()
    } else {
        args.iter().map(String::as_str).filter(|a| *a != "e2e").collect()
    };
    if let Some(bad) = wanted.iter().find(|b| !BENCHES.contains(b)) {
        return Err(format!("unknown bench `{bad}` (known: {})", BENCHES.join(", ")));
    }
    let root = workspace_root();
    let mut outputs: Vec<(&str, String)> = Vec::new();
    for bench in &wanted {
        eprintln!("[xtask] ==> cargo bench -p strata-core --bench {bench}");
        let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(["bench", "-p", "strata-core", "--bench", bench])
            .current_dir(&root)
            .stderr(Stdio::inherit())
            .output()
            .map_err(|e| format!("could not run cargo bench: {e}"))?;
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        print!("{text}");
        if !out.status.success() {
            eprintln!("[xtask] warning: bench `{bench}` failed ({}); its keys stay null", out.status);
            continue;
        }
        outputs.push((bench, text));
    }

    let mut values: Vec<(&str, Option<f64>, &str)> = Vec::new();
    for e in &ENTRIES {
        let v = outputs
            .iter()
            .find(|(b, _)| *b == e.bench)
            .and_then(|(_, text)| mean(&group_medians_ns(text, e.group)))
            .map(|ns| ns / e.to_unit);
        values.push((e.key, v, e.unit));
    }
    let quads = outputs.iter().find(|(b, _)| *b == "mesh").map(|(_, t)| quad_counts(t));
    let mean_quads =
        |k: &str| quads.as_ref().and_then(|q| mean(&q.iter().filter_map(|m| m.get(k).copied()).collect::<Vec<_>>()));
    values.push(("mesh_quads", mean_quads("strata_greedy"), "quads"));
    values.push(("mesh_flat_quads", mean_quads("strata_flat"), "quads"));
    values.push(("mesh_baseline_quads", mean_quads("block_mesh"), "quads"));
    values.push(("mesh_bgm_quads", mean_quads("bgm"), "quads"));
    let memory = outputs.iter().find(|(b, _)| *b == "memory").map(|(_, t)| t.as_str());
    let mem = |name: &str| memory.and_then(|t| strata_value(t, name));
    values.push(("bytes_per_chunk", mem("CORE_BYTES_PER_CHUNK"), "B"));
    values.push(("bytes_per_chunk_after_walk", mem("CORE_BYTES_PER_CHUNK_AFTER_WALK"), "B"));
    values.push(("core_live_bytes", mem("CORE_LIVE_BYTES"), "B"));
    values.push(("core_live_bytes_after_walk", mem("CORE_LIVE_BYTES_AFTER_WALK"), "B"));

    let e2e_ok = if with_e2e { end_to_end(&mut values) } else { true };

    let dir = root.join("target").join("bench");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let path = dir.join("summary.json");
    std::fs::write(&path, to_json(&values)).map_err(|e| format!("{}: {e}", path.display()))?;

    println!("\n{:<30} {:>14} {:>14} {:>9}", "measure", "strata", "baseline", "speed-up");
    let get = |k: &str| values.iter().find(|v| v.0 == k).and_then(|v| v.1);
    for (name, new, base, unit) in [
        ("chunk pipeline (µs/chunk)", "chunk_pipeline_us", "chunk_pipeline_baseline_us", "µs"),
        ("  of which gen + mesh (µs)", "chunk_gen_mesh_us", "chunk_pipeline_baseline_us", "µs"),
        ("mesh (µs/chunk)", "mesh_us", "mesh_baseline_us", "µs"),
        ("  lit, textured (µs/chunk)", "mesh_lit_us", "mesh_baseline_us", "µs"),
        ("  + Godot bytes: worker (µs)", "mesh_worker_us", "mesh_baseline_us", "µs"),
        ("mesh, AO off (µs/chunk)", "mesh_flat_us", "mesh_baseline_us", "µs"),
        ("  vs binary-greedy-meshing", "mesh_flat_us", "mesh_bgm_us", "µs"),
        ("  vs bgm, its masks prebuilt", "mesh_flat_us", "mesh_bgm_prebuilt_us", "µs"),
        ("2D fBm 5 oct. (ns/sample)", "noise2d_ns", "noise2d_baseline_ns", "ns"),
        ("2D fBm 5 oct., scalar (ns)", "noise2d_scalar_ns", "noise2d_baseline_ns", "ns"),
        ("  vs simdnoise", "noise2d_ns", "noise2d_simdnoise_ns", "ns"),
        ("2D fBm 5 oct., grid (ns/sample)", "noise2d_grid_ns", "noise2d_baseline_ns", "ns"),
        ("  grid vs simdnoise", "noise2d_grid_ns", "noise2d_simdnoise_ns", "ns"),
        ("  vs fastnoise-lite", "noise2d_ns", "noise2d_fastnoise_lite_ns", "ns"),
        ("height field (ns/column)", "noise2d_terrain_ns", "noise2d_baseline_ns", "ns"),
        ("3D fBm 5 oct., grid (ns/point)", "noise3d_grid_ns", "noise3d_baseline_ns", "ns"),
        ("  vs simdnoise (grid)", "noise3d_grid_ns", "noise3d_simdnoise_ns", "ns"),
        ("  f32 grid vs simdnoise", "noise3d_f32_grid_ns", "noise3d_simdnoise_ns", "ns"),
        ("3D fBm, per point (ns)", "noise3d_point_ns", "noise3d_baseline_ns", "ns"),
        ("  vs fastnoise-lite", "noise3d_point_ns", "noise3d_fastnoise_lite_ns", "ns"),
        ("3D fBm, 4-voxel lattice (ns/voxel)", "noise3d_lattice_ns", "noise3d_simdnoise_lattice_ns", "ns"),
        ("  f32 lattice vs simdnoise's", "noise3d_f32_lattice_ns", "noise3d_simdnoise_lattice_ns", "ns"),
        ("3D CA pass (ns/cell)", "ca3d_ns_per_cell", "ca3d_baseline_ns_per_cell", "ns"),
        ("quads per chunk", "mesh_quads", "mesh_baseline_quads", ""),
        ("quads per chunk, AO off", "mesh_flat_quads", "mesh_baseline_quads", ""),
    ] {
        let show = |v: Option<f64>| v.map_or("—".to_string(), |v| format!("{v:.3} {unit}"));
        let ratio = match (get(new), get(base)) {
            (Some(n), Some(b)) if n > 0.0 && !unit.is_empty() => format!("{:.1}×", b / n),
            _ => "—".into(),
        };
        println!("{name:<30} {:>14} {:>14} {ratio:>9}", show(get(new)), show(get(base)));
    }
    for (label, key) in [
        ("view ready, view distance 8 (s)", "view_ready_s_vd8"),
        ("view ready, view distance 16 (s)", "view_ready_s_vd16"),
        ("apply per frame p50 (ms)", "apply_ms_p50"),
        ("apply per frame p99 (ms)", "apply_ms_p99"),
        ("apply per frame max (ms)", "apply_ms_max"),
        ("chunks per second (to ready)", "chunks_per_s"),
        ("RSS at start (MB)", "rss_mb_start"),
        ("RSS with view ready (MB)", "rss_mb_ready"),
        ("RSS after 10k-step walk (MB)", "rss_mb_after_walk"),
        ("RSS after 20k-step walk (MB)", "rss_mb_after_walk_20k"),
        ("Godot static memory, ready (MB)", "godot_static_mb_ready"),
        ("Godot static memory, walked (MB)", "godot_static_mb_after_walk"),
        ("far view complete, vd 8 (s)", "far_ready_s_vd8"),
        ("far columns, vd 8", "far_columns_vd8"),
        ("apply one meshed chunk, median (µs)", "apply_chunk_us_median"),
        ("apply one far column, median (µs)", "apply_far_us_median"),
        ("collision build step (a chunk or one of its parts), median (µs)", "collision_us_median"),
        ("collision build step (a chunk or one of its parts), max (µs)", "collision_us_max"),
        ("core bytes per loaded chunk", "bytes_per_chunk"),
        ("core bytes per chunk after walk", "bytes_per_chunk_after_walk"),
        ("RSS growth per near chunk (B)", "rss_bytes_per_chunk"),
        ("  the same after 10k walk steps (B)", "rss_bytes_per_chunk_after_walk"),
        ("  the same after 20k walk steps (B)", "rss_bytes_per_chunk_after_walk_20k"),
        ("live entities (demo rules, flight)", "entities_live"),
        ("instance one entity, median (µs)", "entity_spawn_us_median"),
        ("apply per frame p99, entities (ms)", "apply_ms_p99_entities"),
        ("crowd: live deer, navigation on", "crowd_entities"),
        ("crowd: frame p50 (ms)", "crowd_frame_ms_p50"),
        ("crowd: frame p99 (ms)", "crowd_frame_ms_p99"),
        ("no crowd: frame p99 (ms)", "crowd_baseline_frame_ms_p99"),
        ("relight, torch: frames to the mesh", "relight_torch_mesh_frames_p50"),
        ("relight, torch: ms to ready", "relight_torch_ms_p50"),
        ("relight, shaft: frames to the mesh", "relight_shaft_mesh_frames_p50"),
        ("relight, shaft: ms to ready", "relight_shaft_ms_p50"),
    ] {
        if let Some(v) = get(key) {
            println!("{label:<36} {v:>12.2}");
        }
    }
    println!("\nwrote {}", path.display());
    Ok(if outputs.len() == wanted.len() && e2e_ok { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// Reads `STRATA_NAME=value` lines printed by the flythrough scene.
fn strata_value(text: &str, name: &str) -> Option<f64> {
    let prefix = format!("STRATA_{name}=");
    text.lines().rev().find_map(|l| l.trim().strip_prefix(&prefix)?.trim().parse().ok())
}

/// Runs the headless flythrough at view distances 8 and 16 and records its figures.
fn end_to_end(values: &mut Vec<(&'static str, Option<f64>, &'static str)>) -> bool {
    let godot = match crate::setup::prepare(crate::extension::BuildProfile::Release) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("[xtask] warning: no Godot for the end-to-end bench ({e}); its keys stay null");
            return false;
        }
    };
    let run = |args: &[&str]| -> Option<String> {
        eprintln!("[xtask] ==> headless flythrough {}", args.join(" "));
        let mut cmd = godot.command();
        cmd.args(["--headless", "--path", "godot_project", "res://demo/flythrough.tscn", "--"]).args(args);
        let out =
            crate::godot_run::run_captured(cmd, std::time::Duration::from_secs(300), crate::godot_run::Echo::Quiet)
                .ok()?;
        out.success().then(|| out.text())
    };
    let vd8 = run(&["--view-distance=8", "--seconds=6", "--walk=20000"]);
    let vd16 = run(&["--view-distance=16", "--seconds=1"]);
    let with_entities = run(&["--view-distance=8", "--seconds=6", "--entities=1"]);
    let v8 = |name: &str| vd8.as_deref().and_then(|t| strata_value(t, name));
    values.push(("view_ready_s_vd8", v8("DEMO_VIEW_READY_S"), "s"));
    values.push(("view_ready_s_vd16", vd16.as_deref().and_then(|t| strata_value(t, "DEMO_VIEW_READY_S")), "s"));
    values.push(("apply_ms_p50", v8("APPLY_MS_P50"), "ms"));
    values.push(("apply_ms_p99", v8("APPLY_MS_P99"), "ms"));
    values.push(("apply_ms_max", v8("APPLY_MS_MAX"), "ms"));
    values.push(("chunks_per_s", v8("CHUNKS_PER_S"), "chunks/s"));
    values.push(("rss_mb_start", v8("RSS_MB_START"), "MB"));
    values.push(("rss_mb_ready", v8("RSS_MB_READY"), "MB"));
    // After 10,000 steps (the target), and after 20,000: equal when memory does not grow with
    // the distance walked.
    values.push(("rss_mb_after_walk", v8("RSS_MB_AFTER_WALK_10000"), "MB"));
    values.push(("rss_mb_after_walk_20k", v8("RSS_MB_AFTER_WALK_20000"), "MB"));
    values.push(("godot_static_mb_ready", v8("GODOT_STATIC_MB_READY"), "MB"));
    values.push(("godot_static_mb_after_walk", v8("GODOT_STATIC_MB_AFTER_WALK"), "MB"));
    let per_chunk = match (v8("RSS_MB_START"), v8("RSS_MB_READY"), v8("LOADED_CHUNKS")) {
        (Some(a), Some(b), Some(n)) if n > 0.0 => Some((b - a) * 1024.0 * 1024.0 / n),
        _ => None,
    };
    values.push(("rss_bytes_per_chunk", per_chunk, "B"));
    // The figure: resident growth since start per loaded near chunk, the whole view
    // settled at each walk mark.
    values.push(("rss_bytes_per_chunk_after_walk", v8("RSS_BYTES_PER_CHUNK_AFTER_WALK_10000"), "B"));
    values.push(("rss_bytes_per_chunk_after_walk_20k", v8("RSS_BYTES_PER_CHUNK_AFTER_WALK_20000"), "B"));
    values.push(("far_ready_s_vd8", v8("FAR_READY_S"), "s"));
    values.push(("far_columns_vd8", v8("FAR_COLUMNS"), "columns"));
    values.push(("apply_chunk_us_median", v8("APPLY_CHUNK_US_MEDIAN"), "µs"));
    values.push(("apply_far_us_median", v8("APPLY_FAR_US_MEDIAN"), "µs"));
    values.push(("collision_us_median", v8("COLLISION_US_MEDIAN"), "µs"));
    values.push(("collision_us_max", v8("COLLISION_US_MAX"), "µs"));
    for key in [
        "collision_start_us_median",
        "collision_start_us_max",
        "collision_part_us_median",
        "collision_part_us_max",
        "collision_swap_us_median",
        "collision_swap_us_max",
        "collision_start_from_mesh_us_median",
        "collision_start_from_mesh_us_max",
        "apply_chunk_bookkeeping_us_median",
        "apply_chunk_scatter_us_median",
        "apply_chunk_mesh_us_median",
        "apply_chunk_node_us_median",
        "apply_chunk_occluders_us_median",
        "apply_chunk_collision_us_median",
    ] {
        values.push((key, v8(&key.to_uppercase()), "µs"));
    }
    let ve = |name: &str| with_entities.as_deref().and_then(|t| strata_value(t, name));
    values.push(("entities_live", ve("ENTITIES"), "entities"));
    values.push(("entity_spawn_us_median", ve("ENTITY_SPAWN_US_MEDIAN"), "µs"));
    values.push(("apply_ms_p99_entities", ve("APPLY_MS_P99"), "ms"));
    // 200 of the demo's deer walking on navigation paths around a still viewer, beside the same
    // world, navigation on, without them.
    let crowd_run = |count: &str| -> Option<String> {
        eprintln!("[xtask] ==> headless crowd --entities={count}");
        let mut cmd = godot.command();
        cmd.args(["--headless", "--path", "godot_project", "res://demo/crowd_bench.tscn", "--"])
            .arg(format!("--entities={count}"));
        let out =
            crate::godot_run::run_captured(cmd, std::time::Duration::from_secs(300), crate::godot_run::Echo::Quiet)
                .ok()?;
        out.success().then(|| out.text())
    };
    let crowd = crowd_run("200");
    let no_crowd = crowd_run("0");
    let vc = |name: &str| crowd.as_deref().and_then(|t| strata_value(t, name));
    values.push(("crowd_entities", vc("CROWD_ENTITIES"), "entities"));
    values.push(("crowd_frame_ms_p50", vc("CROWD_FRAME_MS_P50"), "ms"));
    values.push(("crowd_frame_ms_p99", vc("CROWD_FRAME_MS_P99"), "ms"));
    values.push(("crowd_frame_ms_max", vc("CROWD_FRAME_MS_MAX"), "ms"));
    values.push((
        "crowd_baseline_frame_ms_p99",
        no_crowd.as_deref().and_then(|t| strata_value(t, "CROWD_FRAME_MS_P99")),
        "ms",
    ));
    // Frames from an edit that changes light to the relit meshes in the scene, at 60 fps.
    eprintln!("[xtask] ==> headless relight");
    let mut cmd = godot.command();
    cmd.args(["--headless", "--path", "godot_project", "res://demo/relight_bench.tscn", "--", "--rounds=10"]);
    let relight =
        crate::godot_run::run_captured(cmd, std::time::Duration::from_secs(300), crate::godot_run::Echo::Quiet)
            .ok()
            .and_then(|out| out.success().then(|| out.text()));
    let vr = |name: &str| relight.as_deref().and_then(|t| strata_value(t, name));
    for (key, name, unit) in [
        ("relight_torch_mesh_frames_p50", "RELIGHT_TORCH_MESH_FRAMES_P50", "frames"),
        ("relight_torch_mesh_frames_max", "RELIGHT_TORCH_MESH_FRAMES_MAX", "frames"),
        ("relight_torch_frames_p50", "RELIGHT_TORCH_FRAMES_P50", "frames"),
        ("relight_torch_ms_p50", "RELIGHT_TORCH_MS_P50", "ms"),
        ("relight_shaft_mesh_frames_p50", "RELIGHT_SHAFT_MESH_FRAMES_P50", "frames"),
        ("relight_shaft_mesh_frames_max", "RELIGHT_SHAFT_MESH_FRAMES_MAX", "frames"),
        ("relight_shaft_frames_p50", "RELIGHT_SHAFT_FRAMES_P50", "frames"),
        ("relight_shaft_ms_p50", "RELIGHT_SHAFT_MS_P50", "ms"),
    ] {
        values.push((key, vr(name), unit));
    }
    vd8.is_some()
        && vd16.is_some()
        && with_entities.is_some()
        && crowd.is_some()
        && no_crowd.is_some()
        && relight.is_some()
}

fn workspace_root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.ancestors().nth(2).map(PathBuf::from).unwrap_or(manifest)
}

fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// Medians (ns) of the rows of `group` in a divan table: the group's own row when it has values,
/// else each of its argument rows (one per chunk).
fn group_medians_ns(text: &str, group: &str) -> Vec<f64> {
    let mut out = Vec::new();
    let mut in_group = false;
    for line in text.lines() {
        if !line.contains('│') {
            continue;
        }
        let trimmed = line.trim_start_matches(['│', '├', '╰', '─', ' ']);
        let depth = (line.chars().count() - trimmed.chars().count()) / 3;
        let name = trimmed.split_whitespace().next().unwrap_or("");
        if depth == 1 {
            in_group = name == group;
        } else if depth < 1 {
            in_group = false;
        }
        if in_group {
            // Columns after the name: fastest │ slowest │ median │ mean │ samples │ iters.
            let cols: Vec<&str> = trimmed.split('│').map(str::trim).collect();
            if let Some(ns) = cols.get(2).and_then(|c| parse_duration_ns(c)) {
                out.push(ns);
            }
        }
    }
    out
}

/// `"518 µs"`, `"1.464 ms"`, `"110.9 ns"`, `"1.2 s"` → nanoseconds.
fn parse_duration_ns(s: &str) -> Option<f64> {
    let mut it = s.split_whitespace();
    let v: f64 = it.next()?.parse().ok()?;
    let scale = match it.next()? {
        "ps" => 1e-3,
        "ns" => 1.0,
        "µs" | "us" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        _ => return None,
    };
    Some(v * scale)
}

/// The `quads chunk=… strata_greedy=N culled=N block_mesh=N` lines the mesh bench prints.
fn quad_counts(text: &str) -> Vec<std::collections::BTreeMap<String, f64>> {
    text.lines()
        .filter(|l| l.starts_with("quads "))
        .map(|l| {
            l.split_whitespace()
                .filter_map(|kv| kv.split_once('='))
                .filter_map(|(k, v)| v.parse::<f64>().ok().map(|v| (k.to_string(), v)))
                .collect()
        })
        .collect()
}

fn to_json(values: &[(&str, Option<f64>, &str)]) -> String {
    let mut s = String::from("{\n");
    for (i, (k, v, _)) in values.iter().enumerate() {
        let v = v.filter(|v| v.is_finite()).map_or("null".to_string(), |v| format!("{v:.4}"));
        let comma = if i + 1 < values.len() { "," } else { "" };
        let _ = writeln!(s, "  \"{k}\": {v}{comma}");
    }
    s.push_str("}\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
quads chunk=0 coord=(0,0,0) strata_greedy=680 culled=1650 block_mesh=290
quads chunk=1 coord=(1,-1,1) strata_greedy=2390 culled=4660 block_mesh=599
Timer precision: 29 ns
mesh                        fastest       │ slowest       │ median        │ mean          │ samples │ iters
├─ block_mesh_greedy                      │               │               │               │         │
│  ├─ 0                     501.3 µs      │ 4.596 ms      │ 518 µs        │ 825 µs        │ 100     │ 100
│  ╰─ 1                     707 µs        │ 4.833 ms      │ 1.5 ms        │ 1.093 ms      │ 100     │ 100
╰─ strata_greedy                          │               │               │               │         │
   ├─ 0                     67.66 µs      │ 4.057 ms      │ 68.56 µs      │ 123 µs        │ 100     │ 100
   ╰─ 1                     142.9 µs      │ 1.005 ms      │ 150.1 µs      │ 175.5 µs      │ 100     │ 100
ca3d             fastest       │ slowest       │ median        │ mean          │ samples │ iters
├─ bit_parallel  21.88 µs      │ 56.08 µs      │ 22.02 µs      │ 23.18 µs      │ 100     │ 100
╰─ naive         1.423 ms      │ 9.557 ms      │ 1.464 ms      │ 2.399 ms      │ 20      │ 20
";

    #[test]
    fn parses_divan_medians_per_group_and_argument() {
        assert_eq!(group_medians_ns(SAMPLE, "block_mesh_greedy"), vec![518_000.0, 1_500_000.0]);
        let g = group_medians_ns(SAMPLE, "strata_greedy");
        assert!((g[0] - 68_560.0).abs() < 1e-6 && (g[1] - 150_100.0).abs() < 1e-6, "{g:?}");
        assert_eq!(group_medians_ns(SAMPLE, "naive"), vec![1_464_000.0]);
        assert!(group_medians_ns(SAMPLE, "missing").is_empty());
        assert_eq!(parse_duration_ns("110.9 ns"), Some(110.9));
        assert_eq!(parse_duration_ns("n/a"), None);
    }

    #[test]
    fn quad_lines_and_json_with_nulls() {
        let q = quad_counts(SAMPLE);
        assert_eq!(q.len(), 2);
        assert_eq!(q[1]["block_mesh"], 599.0);
        let json = to_json(&[("a_us", Some(1.5), "µs"), ("b_ns", None, "ns")]);
        assert_eq!(json, "{\n  \"a_us\": 1.5000,\n  \"b_ns\": null\n}\n");
    }
}
