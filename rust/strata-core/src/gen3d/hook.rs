//! The generation hook: user code that amends the generated voxels of every box the generator
//! fills, after the last stage (structures), on whichever thread generates it.
//!
//! The hook is the one part of generation the project does not write, so the laws hold only as
//! far as the hook keeps them: it must decide each voxel from that voxel's world position and
//! the generated voxels it is handed (law: Deterministic), never from the box's size, corner or
//! the order of calls, so a chunk made alone equals the same box cut from a larger region (law:
//! Seamless). A hook that fails leaves the box as generated and is counted and named
//! ([`HookStats`]), never a panic (law: Clear errors).
//!
//! [`HookRunner`] wraps a hook with the counters `get_stats()` reports (calls, time, failures).
//!
//! May use: `base`.

use crate::base::block::BlockId;
use crate::base::chunk::VoxelBuffer;
use crate::base::coords::IVec3;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;
use thiserror::Error;

/// Why a hook left a box as generated.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error(
    "the generation hook failed on the box at ({}, {}, {}) of size {}×{}×{}: {reason}",
    min.x, min.y, min.z, size.x, size.y, size.z
)]
pub struct HookError {
    /// The box's minimum corner.
    pub min: IVec3,
    /// The box's size.
    pub size: IVec3,
    /// What the hook did wrong (returned the wrong type or length, an unknown block id…).
    pub reason: String,
}

/// User code that amends generated voxels (`Send + Sync`: workers call it at the same time).
pub trait GenerationHook: Send + Sync {
    /// Amends `voxels`, the box `[min, min + size)` as generated, indexed
    /// `(y * size.z + z) * size.x + x` from `min` (x fastest, then z, then y). On `Err` the
    /// voxels must be as they were given. Each voxel must depend only on its world position and
    /// the voxels given (see the module doc).
    fn amend(&self, min: IVec3, size: IVec3, voxels: &mut [BlockId]) -> Result<(), String>;
}

/// What a hook has cost so far, over every thread.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HookStats {
    /// Boxes handed to the hook.
    pub calls: u64,
    /// Time spent in the hook, in milliseconds, summed over threads.
    pub total_ms: f64,
    /// Calls that failed (the box stayed as generated).
    pub failures: u64,
    /// The latest failure, if any.
    pub last_failure: Option<HookError>,
}

impl HookStats {
    /// Mean time of one call, in microseconds (0 before the first).
    pub fn mean_us(&self) -> f64 {
        if self.calls == 0 { 0.0 } else { self.total_ms * 1000.0 / self.calls as f64 }
    }
}

/// A hook with its counters; the generator holds one.
pub struct HookRunner {
    hook: Box<dyn GenerationHook>,
    calls: AtomicU64,
    nanos: AtomicU64,
    failures: AtomicU64,
    last_failure: Mutex<Option<HookError>>,
}

impl std::fmt::Debug for HookRunner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HookRunner").field("stats", &self.stats()).finish()
    }
}

impl HookRunner {
    /// Wraps `hook` with zeroed counters.
    pub fn new(hook: impl GenerationHook + 'static) -> Self {
        Self {
            hook: Box::new(hook),
            calls: AtomicU64::new(0),
            nanos: AtomicU64::new(0),
            failures: AtomicU64::new(0),
            last_failure: Mutex::new(None),
        }
    }

    /// Hands `buffer`'s box to the hook. A failure leaves it as it was and is counted.
    pub fn amend(&self, buffer: &mut VoxelBuffer) {
        let (min, size) = (buffer.min(), buffer.size());
        if buffer.data().is_empty() {
            return;
        }
        let start = Instant::now();
        let result = self.hook.amend(min, size, buffer.data_mut());
        let nanos = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.nanos.fetch_add(nanos, Ordering::Relaxed);
        self.calls.fetch_add(1, Ordering::Relaxed);
        if let Err(reason) = result {
            self.failures.fetch_add(1, Ordering::Relaxed);
            let error = HookError { min, size, reason };
            *self.last_failure.lock().unwrap_or_else(|p| p.into_inner()) = Some(error);
        }
    }

    /// The counters so far.
    pub fn stats(&self) -> HookStats {
        HookStats {
            calls: self.calls.load(Ordering::Relaxed),
            total_ms: self.nanos.load(Ordering::Relaxed) as f64 / 1e6,
            failures: self.failures.load(Ordering::Relaxed),
            last_failure: self.last_failure.lock().unwrap_or_else(|p| p.into_inner()).clone(),
        }
    }
}

/// A closure is a hook (Rust callers and tests).
impl<F> GenerationHook for F
where
    F: Fn(IVec3, IVec3, &mut [BlockId]) -> Result<(), String> + Send + Sync,
{
    fn amend(&self, min: IVec3, size: IVec3, voxels: &mut [BlockId]) -> Result<(), String> {
        self(min, size, voxels)
    }
}
