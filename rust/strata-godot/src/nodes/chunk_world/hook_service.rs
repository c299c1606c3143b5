//! The service that runs `StrataChunkWorld.generation_hook` (a user `Callable` that amends every
//! box the world generates, [`strata_core::gen3d::hook`]) for the worker threads.
//!
//! The extension talks to Godot from the main thread only (gdext's single-threaded binding: an
//! engine call from a worker thread is refused), so the `Callable` runs there. A worker that
//! generates a box sends it to the main thread ([`HookLink`]) and waits; the world's frame
//! answers the waiting boxes within `frame_budget_ms` ([`HookService::serve`]), so the main
//! thread never waits for a worker (law: Main thread never waits). A box generated on the main
//! thread itself (queries such as `get_voxel`) calls the hook at once. Wherever the main thread
//! must wait for the workers to end (stopping the world, water flow off), it keeps answering
//! them meanwhile ([`HookService::drop_serving`]); when the world is freed, waiting workers give
//! up and their results are dropped with the world.
//!
//! May use: `strata_core` (the hook); nothing of the node.

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender, TryRecvError, bounded, unbounded};
use godot::prelude::*;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::ThreadId;
use std::time::{Duration, Instant};
use strata_core::IVec3;
use strata_core::base::block::BlockId;
use strata_core::gen3d::hook::{GenerationHook, HookRunner};

/// The least time between two reports of the hook's failures.
pub(super) const REPORT_INTERVAL: Duration = Duration::from_secs(1);

/// How often a waiting worker looks whether the world was freed.
const WAIT_POLL: Duration = Duration::from_millis(5);

/// What a waiting worker is told when the world was freed before its box was answered.
const STOPPED: &str = "the world was freed before the hook ran on this box";

static NEXT_HOOK_ID: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// The hooks of the worlds, by id, on the main thread (the only thread that may call them).
    static MAIN_THREAD_HOOKS: RefCell<HashMap<u64, CallableHook>> = RefCell::new(HashMap::new());
}

/// The user's `Callable` and how many blocks the world's library has (main thread only).
#[derive(Clone)]
struct CallableHook {
    callable: Callable,
    blocks: usize,
}

impl CallableHook {
    /// Hands the box to the `Callable` and takes its answer, checked, into `voxels`.
    fn call(&self, min: IVec3, size: IVec3, voxels: &mut [BlockId]) -> Result<(), String> {
        if !self.callable.is_valid() {
            return Err(format!("{} cannot be called (its object was freed)", self.callable));
        }
        let given: PackedInt32Array = voxels.iter().map(|&b| b as i32).collect();
        let origin = Vector3i::new(min.x, min.y, min.z);
        let extent = Vector3i::new(size.x, size.y, size.z);
        let answer = self.callable.call(&[origin.to_variant(), extent.to_variant(), given.to_variant()]);
        let returned_array = answer.get_type() == VariantType::PACKED_INT32_ARRAY;
        let amended = returned_array.then(|| answer.to::<PackedInt32Array>()).ok_or_else(|| {
            format!(
                "it returned {} ({:?}), not a PackedInt32Array (return the voxels given, amended; \
                 a script error also returns null)",
                answer,
                answer.get_type()
            )
        })?;
        if amended.len() != voxels.len() {
            return Err(format!("it returned {} voxels, not the {} it was given", amended.len(), voxels.len()));
        }
        let ids = amended.as_slice();
        if let Some((i, &id)) = ids.iter().enumerate().find(|&(_, &id)| id < 0 || id as usize >= self.blocks) {
            return Err(format!(
                "voxel {i} is block id {id}, not a block of the library (0 to {})",
                self.blocks.saturating_sub(1)
            ));
        }
        for (v, &id) in voxels.iter_mut().zip(ids) {
            *v = id as BlockId;
        }
        Ok(())
    }
}

/// Runs hook `id` on the main thread, adding its time to `nanos`.
fn call_on_main_thread(
    id: u64,
    nanos: &AtomicU64,
    min: IVec3,
    size: IVec3,
    voxels: &mut [BlockId],
) -> Result<(), String> {
    // Cloned out, so that a hook that sets another hook does not find the table borrowed.
    let hook = MAIN_THREAD_HOOKS.with(|m| m.borrow().get(&id).cloned());
    let Some(hook) = hook else { return Err(STOPPED.into()) };
    let start = Instant::now();
    let result = hook.call(min, size, voxels);
    nanos.fetch_add(u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX), Ordering::Relaxed);
    result
}

/// A box waiting for the main thread, and where its answer goes.
struct Request {
    min: IVec3,
    size: IVec3,
    voxels: Vec<BlockId>,
    reply: Sender<Result<Vec<BlockId>, String>>,
}

/// What the generator holds (`Send + Sync`, no Godot type): the way to the hook on the main
/// thread.
struct HookLink {
    id: u64,
    main_thread: ThreadId,
    requests: Sender<Request>,
    freed: Arc<AtomicBool>,
    main_thread_nanos: Arc<AtomicU64>,
}

impl GenerationHook for HookLink {
    fn amend(&self, min: IVec3, size: IVec3, voxels: &mut [BlockId]) -> Result<(), String> {
        if std::thread::current().id() == self.main_thread {
            return call_on_main_thread(self.id, &self.main_thread_nanos, min, size, voxels);
        }
        let (reply, answer) = bounded(1);
        let request = Request { min, size, voxels: voxels.to_vec(), reply };
        self.requests.send(request).map_err(|_| STOPPED.to_string())?;
        loop {
            match answer.recv_timeout(WAIT_POLL) {
                Ok(result) => {
                    voxels.copy_from_slice(&result?);
                    return Ok(());
                }
                Err(RecvTimeoutError::Timeout) if !self.freed.load(Ordering::Acquire) => {}
                Err(_) => return Err(STOPPED.into()),
            }
        }
    }
}

/// The main thread's end of a world's hook: answers the boxes the workers send.
pub(super) struct HookService {
    id: u64,
    requests: Receiver<Request>,
    freed: Arc<AtomicBool>,
    main_thread_nanos: Arc<AtomicU64>,
    runner: Arc<HookRunner>,
}

impl HookService {
    /// Registers `callable` (for a library of `blocks` blocks) on this, the main, thread.
    pub(super) fn new(callable: Callable, blocks: usize) -> Self {
        let id = NEXT_HOOK_ID.fetch_add(1, Ordering::Relaxed);
        MAIN_THREAD_HOOKS.with(|m| m.borrow_mut().insert(id, CallableHook { callable, blocks }));
        let (sender, requests) = unbounded();
        let freed = Arc::new(AtomicBool::new(false));
        let main_thread_nanos = Arc::new(AtomicU64::new(0));
        let link = HookLink {
            id,
            main_thread: std::thread::current().id(),
            requests: sender,
            freed: freed.clone(),
            main_thread_nanos: main_thread_nanos.clone(),
        };
        Self { id, requests, freed, main_thread_nanos, runner: Arc::new(HookRunner::new(link)) }
    }

    /// Answers the waiting boxes until none is left or `budget` is spent (at least one).
    pub(super) fn serve(&self, budget: Duration) {
        let start = Instant::now();
        loop {
            let mut r = match self.requests.try_recv() {
                Ok(r) => r,
                Err(TryRecvError::Empty | TryRecvError::Disconnected) => return,
            };
            let result = call_on_main_thread(self.id, &self.main_thread_nanos, r.min, r.size, &mut r.voxels);
            // A worker that gave up (world stopped) no longer listens: nothing to do.
            let _ = r.reply.send(result.map(|()| r.voxels));
            if start.elapsed() >= budget {
                return;
            }
        }
    }

    /// Drops `value` (a streamer or a flow runner, whose drop waits for its threads) on a
    /// helper thread while this thread answers the boxes those threads wait on.
    pub(super) fn drop_serving<T: Send + 'static>(&self, value: T) {
        let dropping = std::thread::Builder::new().name("strata-stop".into()).spawn(move || drop(value));
        let Ok(dropping) = dropping else {
            // No thread: the waiting workers give up (their results go with what is dropped).
            self.freed.store(true, Ordering::Release);
            return;
        };
        while !dropping.is_finished() {
            self.serve(Duration::from_millis(20));
            std::thread::sleep(Duration::from_micros(200));
        }
        let _ = dropping.join();
    }

    /// The counters the generator keeps of this hook.
    pub(super) fn runner(&self) -> Arc<HookRunner> {
        self.runner.clone()
    }

    /// Time the main thread spent running the hook, in milliseconds.
    pub(super) fn main_thread_ms(&self) -> f64 {
        self.main_thread_nanos.load(Ordering::Relaxed) as f64 / 1e6
    }
}

impl Drop for HookService {
    fn drop(&mut self) {
        self.freed.store(true, Ordering::Release);
        MAIN_THREAD_HOOKS.with(|m| m.borrow_mut().remove(&self.id));
    }
}
