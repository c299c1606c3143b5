//! `StrataChunkWorld.generation_hook`: its setter, the report of its failures and its counters
//! in `get_stats()`; [`super::hook_service`] runs it for the workers.
//!
//! A child module of `chunk_world`, so it reaches the node's fields directly.
//!
//! May use: the parent module, `hook_service`, `strata_core` (the hook).

use super::ChunkWorld;
use super::hook_service::{HookService, REPORT_INTERVAL};
use godot::prelude::*;
use std::time::{Duration, Instant};
use strata_core::base::block_library::default_library;

impl ChunkWorld {
    /// Sets `generation_hook` (an empty `Callable` turns it off). A `Callable` that cannot be
    /// called (a freed object, a missing method) is refused with an error in `last_error()` and
    /// the hook stays as it was.
    pub(super) fn apply_generation_hook(&mut self, value: Callable) {
        if !value.is_null() && !value.is_valid() {
            self.host.error(format!(
                "StrataChunkWorld.generation_hook: {value} cannot be called (its object was freed or it has \
                 no such method); give a valid Callable, or an empty one to turn the hook off"
            ));
            return;
        }
        self.generation_hook = value;
        self.refresh_generation_hook();
    }

    /// Makes the hook's service anew from `generation_hook` and the library's size, and rebuilds
    /// the world with it (edits kept).
    pub(super) fn refresh_generation_hook(&mut self) {
        if self.generation_hook.is_null() && self.hook_service.is_none() {
            return;
        }
        let streaming = self.streamer.is_some();
        // The old hook answers its workers until they stop.
        self.stop_streaming();
        self.hook_service = (!self.generation_hook.is_null()).then(|| {
            let blocks = self.library().map(|l| l.len()).unwrap_or(default_library().len());
            HookService::new(self.generation_hook.clone(), blocks)
        });
        self.hook_failures_reported = 0;
        self.hook_reported_at = None;
        self.host.set_hook(self.hook_service.as_ref().map(|h| h.runner()));
        if streaming {
            self.ensure_streamer();
        }
    }

    /// Answers the workers' boxes within the frame budget, and reports new failures of the hook
    /// (at most once a second): the latest one, with the count so far, in the console and
    /// `last_error()`.
    pub(super) fn serve_generation_hook(&mut self) {
        let Some(service) = &self.hook_service else { return };
        let budget = Duration::from_secs_f64(self.frame_budget_ms.clamp(0.05, 100.0) / 1000.0);
        service.serve(budget);
        if self.hook_reported_at.is_some_and(|t| t.elapsed() < REPORT_INTERVAL) {
            return;
        }
        let stats = service.runner().stats();
        if stats.failures == self.hook_failures_reported {
            return;
        }
        let Some(failure) = stats.last_failure else { return };
        self.hook_failures_reported = stats.failures;
        self.hook_reported_at = Some(Instant::now());
        self.host.error(format!(
            "StrataChunkWorld.generation_hook: {failure} ({} failed call(s) so far; those boxes stay as generated)",
            stats.failures
        ));
    }

    /// Drops `streamer`, answering its workers' boxes meanwhile when a hook is set.
    pub(super) fn drop_streamer(&self, streamer: strata_core::stream::streamer::Streamer) {
        match &self.hook_service {
            Some(service) => service.drop_serving(streamer),
            None => drop(streamer),
        }
    }

    /// Turns the streamer's water flow off, answering the flow thread's boxes meanwhile when a
    /// hook is set; returns false when there is no hook (the caller turns it off as usual).
    pub(super) fn stop_water_flow_serving(&mut self) -> bool {
        let Some(service) = &self.hook_service else { return false };
        if let Some(runner) = self.streamer.as_mut().and_then(|s| s.take_water_flow()) {
            service.drop_serving(runner);
        }
        true
    }

    /// The hook's counters, for `get_stats()`.
    pub(super) fn generation_hook_stats(&self, d: &mut VarDictionary) {
        let Some(service) = &self.hook_service else { return };
        let stats = service.runner().stats();
        d.set("generation_hook_calls", stats.calls as i64);
        d.set("generation_hook_ms", service.main_thread_ms());
        let mean = if stats.calls == 0 { 0.0 } else { service.main_thread_ms() * 1000.0 / stats.calls as f64 };
        d.set("generation_hook_us_mean", mean);
        d.set("generation_hook_wait_ms", stats.total_ms);
        d.set("generation_hook_failures", stats.failures as i64);
    }
}
