//! Where a cold view's time goes on the workers: the core streamer alone (no Godot), set up as
//! `StrataChunkWorld` sets it up in the headless flythrough (the shipped `default_hills` preset,
//! Godot's packed streams with AO in the shader, light, collision near the viewer, a far view of
//! 3 levels, the default worker count), the viewer at the flythrough's spot. Prints the time
//! until the near view is ready and until the far view is complete, and the workers' time by
//! kind of chunk (sky, buried, with faces; far columns) and by stage, so the view's readiness
//! can be told apart from the main thread's share in the Godot figure (`view_ready_s_vd8`).
//!
//! The main thread polls as a frame loop would: it takes what has come back, checks readiness
//! (one pass over the wanted chunks each), and sleeps [`FRAME_SLEEP`] when nothing came, so on
//! a machine of two cores it leaves them to the workers instead of spinning over the streamer's
//! statistics.
//!
//! Run: `cargo run --release -p strata-core --example view_ready [VIEW_DISTANCE] [unlit]` (default
//! 8, lit).

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};
use strata_core::base::block_library::default_library;
use strata_core::gen3d::pipeline::Generator;
use strata_core::light::LightProps;
use strata_core::preset::file::load_preset_file;
use strata_core::stream::chunk_job::StreamResult;
use strata_core::stream::streamer::{StreamConfig, Streamer};

/// How long the main thread sleeps when no result came back.
const FRAME_SLEEP: Duration = Duration::from_millis(2);

/// Worker time of one kind of result, in microseconds.
#[derive(Default)]
struct Kind {
    count: u64,
    gen_us: u64,
    light_us: u64,
    mesh_us: u64,
}

impl Kind {
    fn add(&mut self, gen_us: u32, light_us: u32, mesh_us: u32) {
        self.count += 1;
        self.gen_us += u64::from(gen_us);
        self.light_us += u64::from(light_us);
        self.mesh_us += u64::from(mesh_us);
    }

    fn print(&self, name: &str) {
        let per = |v: u64| if self.count == 0 { 0.0 } else { v as f64 / self.count as f64 };
        println!(
            "  {name:<22} {:>6}  gen {:>8.1} ms ({:>6.1} µs each, of which light {:>6.1})  mesh {:>7.1} ms ({:>6.1} µs each)",
            self.count,
            self.gen_us as f64 / 1000.0,
            per(self.gen_us),
            per(self.light_us),
            self.mesh_us as f64 / 1000.0,
            per(self.mesh_us),
        );
    }
}

fn main() {
    let vd: i32 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(8);
    let lit = std::env::args().nth(2).as_deref() != Some("unlit");
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../godot_project/addons/strata/presets/default_hills.ron");
    let preset = load_preset_file(&path).expect("the shipped default_hills preset");
    let generator = Arc::new(Generator::new(&preset).expect("a valid preset"));
    let light = Arc::new(LightProps::from_library(default_library()));
    let config = StreamConfig {
        view_distance: vd,
        pack_surfaces: true,
        shader_occlusion: true,
        lod_levels: 3,
        light: lit.then(|| light.clone()),
        spawn_light: Some(light),
        ..StreamConfig::default()
    };
    let ground = generator.surface_height(0, 0).max(0) as f64;
    let mut s = Streamer::new(generator, config).expect("workers");
    println!("view distance {vd}, {} workers, viewer at (0, {}, 0)", s.stats().workers, ground + 28.0);
    s.set_viewer([0.0, ground + 28.0, 0.0]);
    let start = Instant::now();
    let (mut sky, mut buried, mut faces, mut far) =
        (Kind::default(), Kind::default(), Kind::default(), Kind::default());
    let (mut near_ready, mut far_ready) = (None, None);
    while start.elapsed() < Duration::from_secs(120) {
        s.pump();
        let mut got = false;
        while let Some(r) = s.try_recv() {
            got = true;
            match r {
                StreamResult::Near(r) => {
                    let kind = if r.has_faces() {
                        &mut faces
                    } else if r.mesh_us == 0 && r.light_us == 0 {
                        &mut sky
                    } else {
                        &mut buried
                    };
                    kind.add(r.gen_us, r.light_us, r.mesh_us);
                    s.recycle(r.mesh, r.packed);
                }
                StreamResult::Far(r) => {
                    far.add(r.gen_us, 0, r.mesh_us);
                    s.recycle(Default::default(), r.packed);
                }
            }
        }
        if near_ready.is_none() && s.is_area_ready() {
            near_ready = Some(start.elapsed());
        }
        if near_ready.is_some() {
            let st = s.stats();
            if st.far_pending == 0 && st.far_loaded > 0 && st.retiring == 0 {
                far_ready = Some(start.elapsed());
                break;
            }
        }
        if !got {
            std::thread::sleep(FRAME_SLEEP);
        }
    }
    let secs = |d: Option<Duration>| d.map_or(f64::NAN, |d| d.as_secs_f64());
    println!("near view ready {:.3} s, far view complete {:.3} s", secs(near_ready), secs(far_ready));
    println!("  kind                    count  worker time by stage");
    sky.print("near: sky");
    buried.print("near: no faces");
    faces.print("near: with faces");
    far.print("far columns");
    let total = [&sky, &buried, &faces, &far].iter().map(|k| k.gen_us + k.mesh_us).sum::<u64>();
    println!("  all workers' time {:.1} ms", total as f64 / 1000.0);
    let (hits, misses) = s.voxel_cache_lookups();
    let sky = s.voxel_cache().sky_misses();
    println!("  voxel cache: {hits} hits, {misses} misses (of which sky {sky}: chunks generated for light boxes)");
}
