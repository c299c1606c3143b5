//! Gives back to the system the memory the C allocator keeps after streaming has freed it.
//!
//! glibc's `malloc` keeps freed memory in its arenas (one per allocating thread, up to eight per
//! core) and returns only the free top of each heap. A walk that loads and frees thousands of
//! meshes, collision shapes and voxel buffers leaves hundreds of MB resident that nothing uses
//! (figures in `docs/perf.md`, "Resident memory per loaded chunk"). `malloc_trim(0)` hands every
//! free page of every arena back. [`Trimmer`] runs it on a short-lived thread of its own, at
//! most once every [`INTERVAL`] and only after [`MIN_FREED`] nodes of unloaded chunks were
//! freed, so the main thread never waits for it (an allocation may meet one arena's lock while that
//! arena is trimmed).
//!
//! Linux with glibc only; elsewhere a no-op.
//!
//! May use: `std`, glibc's `malloc_trim`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The least time between two trims.
pub(crate) const INTERVAL: Duration = Duration::from_secs(4);
/// Nodes of unloaded chunks and far columns freed since the last trim before the next is worth it.
pub(crate) const MIN_FREED: usize = 64;

/// A trim is running (one at a time in the process, whichever world asked).
static RUNNING: AtomicBool = AtomicBool::new(false);

/// Decides when to trim: counts what a world unloaded, starts a trim when enough was.
#[derive(Debug, Default)]
pub(crate) struct Trimmer {
    last: Option<Instant>,
    freed_since: usize,
}

impl Trimmer {
    /// Counts `n` freed nodes of unloaded chunks or far columns, and starts a trim when
    /// [`MIN_FREED`] were since the last and [`INTERVAL`] has passed.
    pub(crate) fn freed(&mut self, n: usize) {
        self.freed_since += n;
        if self.freed_since < MIN_FREED || self.last.is_some_and(|t| t.elapsed() < INTERVAL) {
            return;
        }
        if RUNNING.swap(true, Ordering::AcqRel) {
            return;
        }
        self.last = Some(Instant::now());
        self.freed_since = 0;
        let started = std::thread::Builder::new().name("strata-trim".into()).spawn(|| {
            trim();
            RUNNING.store(false, Ordering::Release);
        });
        if started.is_err() {
            RUNNING.store(false, Ordering::Release);
        }
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn trim() {
    unsafe extern "C" {
        /// glibc: releases free memory from the heap and every arena; `pad` bytes kept at the top.
        fn malloc_trim(pad: usize) -> i32;
    }
    // SAFETY: `malloc_trim` takes no pointers and is thread-safe (it locks each arena in turn).
    unsafe {
        malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn trim() {}

/// The C heap as glibc counts it over all its arenas: `(in use, held free)` in bytes (the
/// blocks handed out, mapped ones included, and the free memory the arenas keep). `None` where
/// the allocator is not glibc's.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub(crate) fn heap_usage() -> Option<(usize, usize)> {
    /// glibc's `struct mallinfo2` (2.33 and later), every field a `size_t`.
    #[repr(C)]
    struct MallInfo2 {
        arena: usize,
        ordblks: usize,
        smblks: usize,
        hblks: usize,
        hblkhd: usize,
        usmblks: usize,
        fsmblks: usize,
        uordblks: usize,
        fordblks: usize,
        keepcost: usize,
    }
    unsafe extern "C" {
        fn mallinfo2() -> MallInfo2;
    }
    // SAFETY: `mallinfo2` takes no arguments and returns a plain struct by value.
    let m = unsafe { mallinfo2() };
    Some((m.uordblks + m.hblkhd, m.fordblks))
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub(crate) fn heap_usage() -> Option<(usize, usize)> {
    None
}
