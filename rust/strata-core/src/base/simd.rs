//! Which SIMD builds of the hot loops the running thread may take.
//!
//! Every SIMD path in the core computes the same bits as its portable twin (law: Deterministic; the same world
//! on every machine). The CPU decides which paths exist; [`with_limit`] caps them for the current
//! thread, so that a test can run the same work on every path this CPU has and compare the results
//! bit for bit (`tests/tests/simd_paths.rs`). Outside such a test nothing is capped: each call site
//! asks [`avx2`] or [`avx512`] and takes the widest path the CPU runs.
//!
//! May use: the other `base` modules, `std` and the crates in `Cargo.toml`; nothing else in this crate.

use std::cell::Cell;

/// A SIMD level, lowest first: what a path needs, or the most a thread may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SimdLevel {
    /// Plain Rust (whatever the compiler makes of it for the build's baseline target).
    Portable,
    /// AVX2 (with the features each path names beside it: BMI for the mesher).
    Avx2,
    /// AVX-512 F/DQ/VL/BW.
    Avx512,
}

impl SimdLevel {
    /// Every level the running CPU has, lowest first (always starts with `Portable`), whatever
    /// the current thread's limit.
    pub fn available() -> Vec<SimdLevel> {
        let mut levels = vec![SimdLevel::Portable];
        if cpu_has_avx2() {
            levels.push(SimdLevel::Avx2);
            if cpu_has_avx512() {
                levels.push(SimdLevel::Avx512);
            }
        }
        levels
    }
}

/// The levels as numbers, for code compiled once per level with the level as a const parameter
/// (`SimdLevel` itself cannot be one on stable Rust): the mesher's builds, for example, are the
/// portable one, the one for AVX2 (and BMI), and that one with AVX-512 F and BW as well. A build
/// runs only where the thread may take its level, and gives the same results as the others.
pub const PORTABLE: u8 = SimdLevel::Portable as u8;
pub const AVX2: u8 = SimdLevel::Avx2 as u8;
pub const AVX512: u8 = SimdLevel::Avx512 as u8;

thread_local! {
    static LIMIT: Cell<SimdLevel> = const { Cell::new(SimdLevel::Avx512) };
}

/// The highest level the current thread may use (`Avx512`, i.e. no cap, unless inside
/// [`with_limit`]).
pub fn limit() -> SimdLevel {
    LIMIT.with(Cell::get)
}

/// Runs `f` with this thread's SIMD paths capped at `limit`, then restores the previous cap (also
/// when `f` panics). Only the current thread is affected: work that `f` sends to other threads
/// runs uncapped.
pub fn with_limit<R>(limit: SimdLevel, f: impl FnOnce() -> R) -> R {
    struct Restore(SimdLevel);
    impl Drop for Restore {
        fn drop(&mut self) {
            LIMIT.with(|l| l.set(self.0));
        }
    }
    let _restore = Restore(LIMIT.with(|l| l.replace(limit)));
    f()
}

/// Whether the current thread may take AVX2 paths: the CPU has AVX2 and the thread's limit
/// allows it.
#[inline]
pub fn avx2() -> bool {
    limit() >= SimdLevel::Avx2 && cpu_has_avx2()
}

/// Whether the current thread may take AVX-512 paths (F, DQ, VL and BW, with AVX2).
#[inline]
pub fn avx512() -> bool {
    limit() >= SimdLevel::Avx512 && cpu_has_avx2() && cpu_has_avx512()
}

#[inline]
fn cpu_has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[inline]
fn cpu_has_avx512() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        has!("avx512f") && has!("avx512dq") && has!("avx512vl") && has!("avx512bw")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_limit_caps_this_thread_only_and_is_restored() {
        assert_eq!(limit(), SimdLevel::Avx512);
        let uncapped = (avx2(), avx512());
        with_limit(SimdLevel::Portable, || {
            assert!(!avx2() && !avx512());
            assert_eq!(
                std::thread::spawn(|| (avx2(), avx512())).join().ok(),
                Some(uncapped),
                "other threads keep their own limit"
            );
            with_limit(SimdLevel::Avx2, || assert_eq!(avx2(), uncapped.0));
            assert!(!avx2(), "the inner limit is undone on return");
        });
        assert_eq!((avx2(), avx512()), uncapped);
        let caught = std::panic::catch_unwind(|| with_limit(SimdLevel::Portable, || panic!("inside")));
        assert!(caught.is_err());
        assert_eq!(limit(), SimdLevel::Avx512, "restored after a panic too");
    }

    #[test]
    fn available_levels_match_the_uncapped_answers() {
        let levels = SimdLevel::available();
        assert_eq!(levels[0], SimdLevel::Portable);
        assert_eq!(levels.contains(&SimdLevel::Avx2), avx2());
        assert_eq!(levels.contains(&SimdLevel::Avx512), avx512());
    }
}
