//! The calling thread's CPU time, for costs measured on the main thread without the time it
//! waited for a core (a busy machine would otherwise inflate them).
//!
//! May use: `std` and `libc` only.

use std::time::Duration;

/// The calling thread's CPU time so far (`None` where the platform has no thread clock).
pub(crate) fn thread_cpu_time() -> Option<Duration> {
    #[cfg(unix)]
    {
        let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `t` is a valid, writable timespec; the call only writes it.
        if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } == 0 {
            return Some(Duration::new(t.tv_sec.max(0) as u64, t.tv_nsec.clamp(0, 999_999_999) as u32));
        }
    }
    None
}
