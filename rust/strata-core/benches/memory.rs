//! Memory held by streaming, per loaded chunk, measured with a counting allocator: the core's
//! side of the memory target (voxels and bookkeeping on the CPU; Godot's meshes are
//! measured by the headless end-to-end run's RSS instead).
//!
//! Streams the default preset at view distance 8 (vertical 3, far view 3 levels) to a complete
//! view, dropping each result as the Godot layer does once it has made a node, then takes a
//! 10,000-step random walk and measures again. Prints `STRATA_` lines that `cargo xtask bench`
//! reads: heap bytes live per loaded near chunk after the first fill and after the walk.
//!
//! Run: `cargo bench -p strata-core --bench memory`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Arc;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::{Duration, Instant};
use strata_core::WorldPreset;
use strata_core::gen3d::pipeline::Generator;
use strata_core::stream::streamer::{StreamConfig, Streamer};

/// Counts live heap bytes (all threads).
struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: forwards the caller's layout to the system allocator unchanged.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: `ptr` was allocated by `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size as isize - layout.size() as isize, Ordering::Relaxed);
        // SAFETY: same contract as `GlobalAlloc::realloc`, forwarded.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn live() -> isize {
    LIVE.load(Ordering::Relaxed)
}

/// Pumps and drops results until the whole view (near and far) is loaded.
fn settle(s: &mut Streamer) {
    let start = Instant::now();
    while !s.is_view_complete() || s.stats().retiring > 0 {
        assert!(start.elapsed() < Duration::from_secs(300), "view never complete");
        s.pump();
        let _ = s.take_unloads();
        match s.try_recv() {
            Some(r) => drop(r),
            None => std::thread::sleep(Duration::from_micros(200)),
        }
    }
}

fn main() {
    let generator = Arc::new(Generator::new(&WorldPreset::default()).expect("default preset"));
    let config = StreamConfig {
        view_distance: 8,
        vertical_view_distance: 3,
        worker_threads: 2,
        lod_levels: 3,
        ..Default::default()
    };
    let before = live();
    let mut s = Streamer::new(generator, config).expect("start the workers");
    s.set_viewer([0.0, 20.0, 0.0]);
    settle(&mut s);
    let filled = live() - before;
    let chunks = s.stats().loaded_chunks.max(1);
    let far = s.stats().far_loaded;
    println!(
        "filled: {chunks} near chunks, {far} far columns, {filled} bytes live ({} per near chunk)",
        filled / chunks as isize
    );
    // A 10,000-step random walk (up to 8 voxels a step), settling every 100 steps.
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng >> 11) as f64 / (1u64 << 53) as f64 * 16.0 - 8.0
    };
    let (mut x, mut z) = (0.0, 0.0);
    for step in 0..10_000 {
        x += next();
        z += next();
        s.set_viewer([x, 20.0, z]);
        s.pump();
        let _ = s.take_unloads();
        while let Some(r) = s.try_recv() {
            drop(r);
        }
        if step % 100 == 99 {
            settle(&mut s);
        }
    }
    settle(&mut s);
    let walked = live() - before;
    let chunks_after = s.stats().loaded_chunks.max(1);
    println!(
        "after walk to ({x:.0}, {z:.0}): {chunks_after} near chunks, {walked} bytes live ({} per near chunk)",
        walked / chunks_after as isize
    );
    println!("STRATA_CORE_BYTES_PER_CHUNK={}", filled / chunks as isize);
    println!("STRATA_CORE_BYTES_PER_CHUNK_AFTER_WALK={}", walked / chunks_after as isize);
    println!("STRATA_CORE_LIVE_BYTES={filled}");
    println!("STRATA_CORE_LIVE_BYTES_AFTER_WALK={walked}");
}
