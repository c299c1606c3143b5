//! The phases of one `StrataChunkWorld` streaming frame, printed when the environment variable
//! `STRATA_TRACE=MS` is set and the frame took longer than `MS` milliseconds (10 when `MS` is not
//! a number): for finding where a frame's time goes past its budget.
//!
//! May use: `std`, `godot` (printing).

use godot::global::godot_print;
use std::time::{Duration, Instant};

/// The threshold of `STRATA_TRACE`, read once.
fn threshold_ms() -> Option<f64> {
    static THRESHOLD: std::sync::OnceLock<Option<f64>> = std::sync::OnceLock::new();
    *THRESHOLD.get_or_init(|| std::env::var("STRATA_TRACE").ok().map(|v| v.parse().unwrap_or(10.0)))
}

/// One frame's phases: when each ended (since the frame's start) and its slowest single step.
pub(super) struct FrameTrace {
    start: Instant,
    ends: Vec<(&'static str, Duration)>,
    slowest: (Duration, &'static str),
}

impl FrameTrace {
    pub(super) fn new(start: Instant) -> Self {
        Self { start, ends: Vec::with_capacity(8), slowest: (Duration::ZERO, "") }
    }

    /// Phase `name` ended now.
    pub(super) fn end(&mut self, name: &'static str) {
        self.ends.push((name, self.start.elapsed()));
    }

    /// A single step (one collision part, one result applied) took `took`.
    pub(super) fn step(&mut self, took: Duration, what: &'static str) {
        self.slowest = self.slowest.max((took, what));
    }

    /// Prints the frame when it took longer than the threshold: `total_ms` in all, `unloads`
    /// chunks unloaded and `applied` results applied.
    pub(super) fn report(&self, total_ms: f64, unloads: usize, applied: usize) {
        if threshold_ms().is_none_or(|ms| total_ms <= ms) {
            return;
        }
        let phases: Vec<String> = self.ends.iter().map(|(name, at)| format!("{name} by {at:?}")).collect();
        godot_print!(
            "TRACE frame {total_ms:.1} ms: {}; {unloads} unloaded, {applied} applied, slowest step {:?} ({})",
            phases.join(", "),
            self.slowest.0,
            self.slowest.1
        );
    }
}
