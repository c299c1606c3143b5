//! The main-thread half of chunk streaming, shared by the 3D and 2D streamers.
//!
//! A [`Scheduler`] owns the worker threads and the bookkeeping of which chunks are wanted,
//! queued (nearest last), in flight, loaded, dirty (loaded but needing a new result after an
//! edit) or to be unloaded. It never blocks: jobs go out over crossbeam channels (at most
//! `max_in_flight` at once, so priorities stay fresh as the viewer moves; updates of loaded
//! chunks on their own channel, which workers take first), finished results come
//! back over another and are filtered for staleness (cancelled or superseded jobs). Dropping it
//! cancels every job and joins every worker. The streamers ([`crate::stream::streamer::Streamer`],
//! [`crate::stream::stream2d::Streamer2D`]) add the geometry of the wanted set, the jobs' payloads
//! (edits) and the worker function.
//!
//! Each worker owns a state made on its own thread when it starts (its scratch buffers) and
//! hands it to the worker function with every job: explicit scratch, no thread-locals.
//!
//! May use: `base`, `preset`, `noise`, `automata`, `gen3d`, `gen2d`, `mesh` and the other `stream` modules.

use crossbeam_channel::{Receiver, Sender, unbounded};
use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::Hash;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use thiserror::Error;

/// Why a scheduler could not start: the OS refused to start its first worker thread.
#[derive(Debug, Error)]
#[error("cannot start worker thread `{name}`: {source}")]
pub struct SpawnError {
    /// The thread's name.
    pub name: String,
    pub source: std::io::Error,
}

/// A unit of work for a worker: plain data only.
pub struct Job<C, P> {
    pub id: u64,
    pub coord: C,
    /// Set when the chunk left the view or the job was superseded; workers check it between stages.
    pub cancel: Arc<AtomicBool>,
    /// True when the result replaces a loaded chunk (an edit was made).
    pub is_update: bool,
    pub payload: P,
}

impl<C, P> Job<C, P> {
    pub fn is_cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
}

/// What a worker sends back: enough for the scheduler to match it to its job.
pub trait JobResult<C> {
    fn coord(&self) -> C;
    fn job_id(&self) -> u64;
    /// Two stage timings in microseconds (e.g. generation and meshing), for medians.
    fn timings_us(&self) -> (u32, u32);
    /// Which set of medians the timings go to: 0 for the main kind of job, 1 for a second kind
    /// (the far view's columns), so one kind's cost does not hide the other's.
    fn timing_class(&self) -> usize {
        0
    }
}

/// Recent timings, for medians.
#[derive(Default, Debug)]
pub struct Samples {
    values: VecDeque<u32>,
}

impl Samples {
    const CAP: usize = 512;

    pub fn push(&mut self, v: u32) {
        if self.values.len() == Self::CAP {
            self.values.pop_front();
        }
        self.values.push_back(v);
    }

    /// Median of the recent samples (0 when none).
    pub fn median(&self) -> f64 {
        let mut v: Vec<u32> = self.values.iter().copied().collect();
        v.sort_unstable();
        v.get(v.len() / 2).map(|&m| m as f64).unwrap_or(0.0)
    }

    /// The largest kept sample (0 when there is none).
    pub fn max(&self) -> f64 {
        self.values.iter().copied().max().unwrap_or(0) as f64
    }
}

/// Counters for the HUD and `get_stats()`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StreamStats {
    pub loaded_chunks: usize,
    /// Wanted chunks not yet loaded (queued, in flight, or waiting to be applied).
    pub pending_chunks: usize,
    pub in_flight: usize,
    /// The cap on jobs out at once (following the frame rate unless the caller set it).
    pub max_in_flight: usize,
    pub generated_total: u64,
    pub cancelled_total: u64,
    /// Median time of the first stage on a worker (generation), in microseconds.
    pub gen_us_median: f64,
    /// Median time of the second stage (meshing in 3D, autotiling in 2D), in microseconds.
    pub build_us_median: f64,
    pub workers: usize,
    /// Jobs waiting to be sent to a worker (bounded by the wanted set; at most `max_in_flight` are
    /// out at once).
    pub queued: usize,
    /// Loaded chunks that left the view and stay on screen until what replaces them is loaded.
    pub retiring: usize,
    /// Far view (3D only): loaded and wanted-but-missing far columns, and the levels in use.
    pub far_loaded: usize,
    pub far_pending: usize,
    pub lod_levels: u8,
    /// Medians of the far columns' generation and meshing, in microseconds.
    pub far_gen_us_median: f64,
    pub far_mesh_us_median: f64,
}

struct InFlight {
    id: u64,
    cancel: Arc<AtomicBool>,
}

/// The most worker threads a scheduler ever starts, on any machine.
pub const MAX_WORKER_THREADS: usize = 32;

/// The machine's cores (1 when the OS does not say).
fn cores() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// The most worker threads a scheduler starts on this machine: twice its cores, at least two,
/// at most [`MAX_WORKER_THREADS`]. More threads than that only compete for the same cores and
/// each holds its own scratch buffers.
pub fn max_workers() -> usize {
    (2 * cores()).clamp(2, MAX_WORKER_THREADS)
}

/// Worker count for a request: "automatic" (0) is one less than the machine's cores, at least two
/// (the main thread mostly sleeps between frames, so two workers finish a view sooner even on two
/// cores); any request is capped at [`max_workers`].
pub fn auto_workers(requested: usize) -> usize {
    if requested > 0 { requested.min(max_workers()) } else { cores().saturating_sub(1).max(2).min(max_workers()) }
}

/// Nice value of the worker threads where the idle policy is refused (Linux).
pub const WORKER_NICE: i32 = 10;

/// Puts the calling worker thread below the main thread: Linux's `SCHED_IDLE` policy, else
/// nice [`WORKER_NICE`]. Elsewhere this does nothing.
///
/// With as many workers as cores, the main thread shares a core with a busy worker. At equal
/// priority, or even at nice 10, the kernel now and then runs the worker for a whole time slice
/// while the main thread waits, and one engine call of the frame takes many times its usual
/// time. An idle-policy worker runs only when the core has nothing else to do and gives way at
/// once: shorter and steadier frames, loading just as fast (figures in `docs/perf.md`, "stream").
pub(crate) fn lower_this_threads_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: plain syscalls on the calling thread with valid arguments; lowering one's own
    // priority is always permitted. A refusal leaves the priority as it was.
    unsafe {
        let param = libc::sched_param { sched_priority: 0 };
        if libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) != 0 {
            let tid = libc::gettid();
            libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, WORKER_NICE);
        }
    }
}

/// Jobs out at once when the caller leaves it to us: twelve per worker, at least sixteen.
///
/// Jobs are sent from the main thread once per frame and count as out until their result is
/// taken, so the cap bounds how much a worker can do between two frames. A cheap job (sky, buried
/// rock) takes a fraction of a millisecond, so with a cap of a few jobs per worker the workers
/// would sit idle most of each frame and the view would load at the frame rate times the cap
/// instead of the workers' speed (figures in `docs/perf.md`, "stream"). A larger cap costs
/// little: a job sent for a chunk that is no longer wanted is cancelled before it runs, and
/// finished results waiting for the main thread are bounded by the same cap.
pub fn default_max_in_flight(workers: usize) -> usize {
    (12 * workers.max(1)).max(16)
}

/// A worker's next job: an update of a loaded chunk if one waits, else the next of either kind;
/// `None` once the scheduler has closed the channels.
fn next_job<J>(updates: &Receiver<J>, first_loads: &Receiver<J>) -> Option<J> {
    if let Ok(job) = updates.try_recv() {
        return Some(job);
    }
    crossbeam_channel::select! {
        recv(updates) -> job => job.ok(),
        recv(first_loads) -> job => job.ok(),
    }
}

/// Frames of the workers' time the jobs out cover when the cap follows the frame rate.
const FRAMES_OF_WORK: f64 = 1.5;
/// The most jobs out at once when the cap follows the frame rate.
pub const AUTO_MAX_IN_FLIGHT: usize = 1024;
/// Weight of the newest sample in the running means of frame and job time.
const MEAN_WEIGHT: f64 = 0.05;
/// Pump intervals longer than this (a pause, a stalled frame) count as this long.
const LONGEST_FRAME_S: f64 = 0.25;

/// The cap on jobs out when the caller leaves it to us: enough jobs for `workers` to stay busy
/// for [`FRAMES_OF_WORK`] frames of `frame_s` seconds at `job_s` seconds a job, since jobs are
/// sent once a frame. At 60 frames a second and a typical job of 0.4 ms that is about 60 per
/// worker, where [`default_max_in_flight`]'s twelve would leave the workers idle most of each
/// frame. Never fewer than the default, never more than [`AUTO_MAX_IN_FLIGHT`]. Jobs out for
/// chunks that stop being wanted are cancelled before they run, so a deeper queue delays a
/// changed priority by at most those frames of work.
pub fn adaptive_max_in_flight(workers: usize, frame_s: f64, job_s: f64) -> usize {
    let floor = default_max_in_flight(workers);
    if !(frame_s > 0.0 && job_s > 0.0) {
        return floor;
    }
    let per_worker = (FRAMES_OF_WORK * frame_s.min(LONGEST_FRAME_S) / job_s).ceil();
    let cap = workers.max(1) as f64 * per_worker;
    if cap.is_finite() { (cap as usize).clamp(floor, AUTO_MAX_IN_FLIGHT.max(floor)) } else { floor }
}

/// Running means of the time between pumps (a frame) and of a job's worker time, from which
/// an automatic cap follows ([`adaptive_max_in_flight`]).
#[derive(Debug, Default)]
struct FramePace {
    last_pump: Option<std::time::Instant>,
    frame_s: Option<f64>,
    job_s: Option<f64>,
}

impl FramePace {
    fn mean(mean: &mut Option<f64>, sample: f64) {
        *mean = Some(match *mean {
            Some(m) => m + MEAN_WEIGHT * (sample - m),
            None => sample,
        });
    }

    fn pumped(&mut self) {
        let now = std::time::Instant::now();
        if let Some(last) = self.last_pump.replace(now) {
            Self::mean(&mut self.frame_s, now.duration_since(last).as_secs_f64().min(LONGEST_FRAME_S));
        }
    }

    fn job_done(&mut self, worker_us: u64) {
        Self::mean(&mut self.job_s, worker_us as f64 * 1e-6);
    }
}

/// The scheduler's two job channels: first loads, and updates of loaded chunks.
struct JobSenders<C, P> {
    first_loads: Sender<Job<C, P>>,
    updates: Sender<Job<C, P>>,
}

/// Streaming bookkeeping and workers for chunks keyed by `C`, jobs carrying `P`, results `R`.
pub struct Scheduler<C, P, R> {
    /// Jobs for chunks not loaded yet, and updates of loaded chunks (edits), which workers take
    /// first: an edit's new mesh never waits behind a frame and a half of queued first loads.
    job_tx: Option<JobSenders<C, P>>,
    result_rx: Receiver<R>,
    workers: Vec<JoinHandle<()>>,
    max_in_flight: usize,
    /// Whether `max_in_flight` follows the frame rate (the caller left it to us).
    auto_cap: bool,
    pace: FramePace,
    viewer: Option<C>,
    /// Wanted, not loaded, not in flight; nearest last (so `pop` takes the nearest).
    queue: Vec<C>,
    wanted: HashSet<C>,
    in_flight: HashMap<C, InFlight>,
    loaded: HashSet<C>,
    dirty: HashSet<C>,
    /// Loaded chunks that are no longer wanted but stay until `release_retired` lets them go.
    retiring: HashSet<C>,
    unloads: Vec<C>,
    next_job: u64,
    pub generated_total: u64,
    pub cancelled_total: u64,
    /// Stage medians per timing class ([`JobResult::timing_class`]): `[first, second]`.
    pub timings: [[Samples; 2]; 2],
}

impl<C, P, R> Scheduler<C, P, R>
where
    C: Copy + Eq + Hash + Ord + Send + 'static,
    P: Send + 'static,
    R: JobResult<C> + Send + 'static,
{
    /// Starts `workers` threads (at most [`max_workers`]) named `name-i`. Each makes its own state with `make_state` when it
    /// starts (on its own thread), then runs `work` with that state for every job it receives
    /// (`work` returns `None` for a job it dropped, e.g. cancelled). Fails only if the OS refuses
    /// to start the first thread; with fewer threads than asked it runs with those it has.
    pub fn new<S, M, W>(
        workers: usize,
        max_in_flight: usize,
        name: &str,
        make_state: M,
        work: W,
    ) -> Result<Self, SpawnError>
    where
        M: Fn() -> S + Clone + Send + 'static,
        W: Fn(&mut S, Job<C, P>) -> Option<R> + Clone + Send + 'static,
    {
        let (job_tx, job_rx) = unbounded::<Job<C, P>>();
        let (update_tx, update_rx) = unbounded::<Job<C, P>>();
        let (result_tx, result_rx) = unbounded::<R>();
        let mut handles = Vec::new();
        // Capped here too, so no caller starts an unbounded number of threads.
        for i in 0..workers.clamp(1, max_workers()) {
            let (job_rx, update_rx, result_tx, make_state, work) =
                (job_rx.clone(), update_rx.clone(), result_tx.clone(), make_state.clone(), work.clone());
            let thread_name = format!("{name}-{i}");
            let spawned = std::thread::Builder::new().name(thread_name.clone()).spawn(move || {
                lower_this_threads_priority();
                let mut state = make_state();
                while let Some(job) = next_job(&update_rx, &job_rx) {
                    if job.is_cancelled() {
                        continue;
                    }
                    if let Some(r) = work(&mut state, job)
                        && result_tx.send(r).is_err()
                    {
                        break;
                    }
                }
            });
            match spawned {
                Ok(h) => handles.push(h),
                Err(source) if handles.is_empty() => return Err(SpawnError { name: thread_name, source }),
                Err(_) => break,
            }
        }
        let cap = if max_in_flight > 0 { max_in_flight } else { default_max_in_flight(handles.len()) };
        Ok(Self {
            job_tx: Some(JobSenders { first_loads: job_tx, updates: update_tx }),
            result_rx,
            workers: handles,
            max_in_flight: cap,
            auto_cap: max_in_flight == 0,
            pace: FramePace::default(),
            viewer: None,
            queue: Vec::new(),
            wanted: HashSet::new(),
            in_flight: HashMap::new(),
            loaded: HashSet::new(),
            dirty: HashSet::new(),
            retiring: HashSet::new(),
            unloads: Vec::new(),
            next_job: 0,
            generated_total: 0,
            cancelled_total: 0,
            timings: Default::default(),
        })
    }

    pub fn worker_count(&self) -> usize {
        self.workers.len()
    }

    pub fn viewer(&self) -> Option<C> {
        self.viewer
    }

    /// Forgets the viewer, so the next `retarget` recomputes everything.
    pub fn take_viewer(&mut self) -> Option<C> {
        self.viewer.take()
    }

    /// New viewer chunk `v` wanting `wanted`: cancels jobs for chunks neither wanted nor loaded,
    /// unloads loaded chunks for which `keep` is false (the view plus a margin), and queues the
    /// missing chunks, smallest `priority` first.
    pub fn retarget<K: Ord>(&mut self, v: C, wanted: HashSet<C>, keep: impl Fn(C) -> bool, priority: impl Fn(C) -> K) {
        self.retarget_with(v, wanted, keep, priority, false);
    }

    /// [`Scheduler::retarget`], but loaded chunks that are neither wanted nor kept *retire*
    /// instead of unloading: they stay on screen until [`Scheduler::release_retired`] finds what
    /// replaces them loaded (a far view swapping levels without a hole). A retiring chunk that is
    /// wanted again is loaded again at once.
    pub fn retarget_deferred<K: Ord>(
        &mut self,
        v: C,
        wanted: HashSet<C>,
        keep: impl Fn(C) -> bool,
        priority: impl Fn(C) -> K,
    ) {
        self.retarget_with(v, wanted, keep, priority, true);
    }

    fn retarget_with<K: Ord>(
        &mut self,
        v: C,
        wanted: HashSet<C>,
        keep: impl Fn(C) -> bool,
        priority: impl Fn(C) -> K,
        defer: bool,
    ) {
        self.viewer = Some(v);
        self.wanted = wanted;
        let back: Vec<C> = self.retiring.iter().filter(|c| self.wanted.contains(c)).copied().collect();
        for c in back {
            self.retiring.remove(&c);
            self.loaded.insert(c);
        }
        let stale: Vec<C> =
            self.in_flight.keys().filter(|c| !self.wanted.contains(c) && !self.loaded.contains(c)).copied().collect();
        for c in stale {
            self.cancel(c);
        }
        let far: Vec<C> = self.loaded.iter().filter(|&&c| !self.wanted.contains(&c) && !keep(c)).copied().collect();
        for c in far {
            self.loaded.remove(&c);
            self.dirty.remove(&c);
            self.cancel(c);
            if defer {
                self.retiring.insert(c);
            } else {
                self.unloads.push(c);
            }
        }
        let mut queue: Vec<C> = self
            .wanted
            .iter()
            .filter(|c| !self.loaded.contains(c) && !self.in_flight.contains_key(c))
            .copied()
            .collect();
        queue.sort_by_key(|&c| std::cmp::Reverse((priority(c), c)));
        self.queue = queue;
    }

    /// Unloads the retiring chunks for which `covered` is true (their ground is drawn by loaded
    /// chunks now). `covered` reads the scheduler's state through the `&Self` it is given.
    pub fn release_retired(&mut self, covered: impl Fn(&Self, C) -> bool) {
        if self.retiring.is_empty() {
            return;
        }
        let done: Vec<C> = self.retiring.iter().filter(|&&c| covered(self, c)).copied().collect();
        for c in done {
            self.retiring.remove(&c);
            self.unloads.push(c);
        }
    }

    pub fn retiring_count(&self) -> usize {
        self.retiring.len()
    }

    fn cancel(&mut self, c: C) {
        if let Some(j) = self.in_flight.remove(&c) {
            j.cancel.store(true, Ordering::Relaxed);
            self.cancelled_total += 1;
        }
    }

    /// Sends jobs until `max_in_flight` are outstanding: dirty (edited) chunks first, then the
    /// nearest queued ones. `payload` makes each job's data (e.g. the edits it must apply).
    pub fn pump(&mut self, mut payload: impl FnMut(C) -> P) {
        if self.auto_cap {
            self.pace.pumped();
            if let (Some(frame_s), Some(job_s)) = (self.pace.frame_s, self.pace.job_s) {
                self.max_in_flight = adaptive_max_in_flight(self.workers.len(), frame_s, job_s);
            }
        }
        let mut dirty: Vec<C> = self.dirty.drain().collect();
        dirty.sort();
        for c in dirty {
            if self.loaded.contains(&c) {
                let p = payload(c);
                self.submit(c, true, p);
            }
        }
        while self.in_flight.len() < self.max_in_flight {
            let Some(c) = self.queue.pop() else { break };
            if self.loaded.contains(&c) || self.in_flight.contains_key(&c) || !self.wanted.contains(&c) {
                continue;
            }
            let p = payload(c);
            self.submit(c, false, p);
        }
    }

    /// Sends a job for `c`, superseding any job already out for it.
    pub fn submit(&mut self, c: C, is_update: bool, payload: P) {
        let Some(senders) = &self.job_tx else { return };
        let tx = if is_update { &senders.updates } else { &senders.first_loads };
        if let Some(old) = self.in_flight.remove(&c) {
            old.cancel.store(true, Ordering::Relaxed);
        }
        self.next_job += 1;
        let cancel = Arc::new(AtomicBool::new(false));
        let job = Job { id: self.next_job, coord: c, cancel: cancel.clone(), is_update, payload };
        if tx.send(job).is_ok() {
            self.in_flight.insert(c, InFlight { id: self.next_job, cancel });
        }
    }

    /// After an edit touching chunk `c`: a loaded chunk is marked dirty (its new result comes
    /// with the next `pump`); a chunk whose job predates the edit is resubmitted with `payload`.
    pub fn invalidate(&mut self, c: C, payload: impl FnOnce() -> P) {
        if self.loaded.contains(&c) {
            self.dirty.insert(c);
        } else if self.in_flight.contains_key(&c) {
            self.submit(c, false, payload());
        }
    }

    /// Whether `c` waits for a rebuild that has not been sent yet (changed since its last job).
    pub fn is_dirty(&self, c: &C) -> bool {
        self.dirty.contains(c)
    }

    /// Marks every loaded chunk dirty (e.g. after replacing all edits).
    pub fn invalidate_all_loaded(&mut self) {
        self.dirty.extend(self.loaded.iter().copied());
    }

    /// Marks the loaded chunks that `include` selects dirty.
    pub fn invalidate_all_loaded_where(&mut self, include: impl Fn(&C) -> bool) {
        self.dirty.extend(self.loaded.iter().filter(|c| include(c)).copied());
    }

    /// Everything `include` selects is rebuilt: loaded chunks are marked dirty (as
    /// [`Scheduler::invalidate_all_loaded_where`]), and chunks whose first job is still out are
    /// resubmitted with `payload` (their results would predate the change).
    pub fn invalidate_all_where(&mut self, include: impl Fn(&C) -> bool, mut payload: impl FnMut(C) -> P) {
        self.invalidate_all_loaded_where(&include);
        let pending: Vec<C> =
            self.in_flight.keys().filter(|c| include(c) && !self.loaded.contains(c)).copied().collect();
        for c in pending {
            self.submit(c, false, payload(c));
        }
    }

    /// The next finished, still-wanted result; never blocks. Stale results are dropped.
    pub fn try_recv(&mut self) -> Option<R> {
        while let Ok(r) = self.result_rx.try_recv() {
            let c = r.coord();
            match self.in_flight.get(&c) {
                Some(j) if j.id == r.job_id() => {
                    self.in_flight.remove(&c);
                }
                _ => continue,
            }
            self.generated_total += 1;
            let (a, b) = r.timings_us();
            self.pace.job_done(u64::from(a) + u64::from(b));
            let class = &mut self.timings[r.timing_class().min(1)];
            class[0].push(a);
            class[1].push(b);
            if !self.wanted.contains(&c) && !self.loaded.contains(&c) {
                continue;
            }
            self.loaded.insert(c);
            return Some(r);
        }
        None
    }

    /// Chunks to remove from the scene since the last call.
    pub fn take_unloads(&mut self) -> Vec<C> {
        std::mem::take(&mut self.unloads)
    }

    /// True when every wanted chunk is loaded and no edit waits for a new result.
    pub fn is_area_ready(&self) -> bool {
        self.viewer.is_some()
            && self.dirty.is_empty()
            && self.in_flight.is_empty()
            && self.wanted.iter().all(|c| self.loaded.contains(c))
    }

    /// Like [`Scheduler::is_area_ready`] for the chunks `include` selects only.
    pub fn is_ready_where(&self, include: impl Fn(&C) -> bool) -> bool {
        self.viewer.is_some()
            && self.dirty.is_empty()
            && !self.in_flight.keys().any(&include)
            && self.wanted.iter().filter(|c| include(c)).all(|c| self.loaded.contains(c))
    }

    /// (loaded, wanted) counts of the wanted chunks `include` selects.
    pub fn counts_where(&self, include: impl Fn(&C) -> bool) -> (usize, usize) {
        self.wanted
            .iter()
            .filter(|c| include(c))
            .fold((0, 0), |(l, w), c| (l + self.loaded.contains(c) as usize, w + 1))
    }

    /// Loaded chunks / wanted chunks, in `[0, 1]`.
    pub fn progress(&self) -> f64 {
        if self.wanted.is_empty() {
            return if self.viewer.is_some() { 1.0 } else { 0.0 };
        }
        self.wanted.iter().filter(|c| self.loaded.contains(c)).count() as f64 / self.wanted.len() as f64
    }

    pub fn is_loaded(&self, c: C) -> bool {
        self.loaded.contains(&c)
    }

    pub fn is_wanted(&self, c: C) -> bool {
        self.wanted.contains(&c)
    }

    pub fn wanted_count(&self) -> usize {
        self.wanted.len()
    }

    pub fn loaded(&self) -> impl Iterator<Item = &C> {
        self.loaded.iter()
    }

    pub fn loaded_count(&self) -> usize {
        self.loaded.len()
    }

    /// Wanted chunks not yet loaded.
    pub fn pending_count(&self) -> usize {
        self.wanted.iter().filter(|c| !self.loaded.contains(c)).count()
    }

    pub fn in_flight_count(&self) -> usize {
        self.in_flight.len()
    }

    pub fn stats(&self) -> StreamStats {
        StreamStats {
            loaded_chunks: self.loaded.len(),
            pending_chunks: self.pending_count(),
            in_flight: self.in_flight.len(),
            max_in_flight: self.max_in_flight,
            generated_total: self.generated_total,
            cancelled_total: self.cancelled_total,
            gen_us_median: self.timings[0][0].median(),
            build_us_median: self.timings[0][1].median(),
            workers: self.workers.len(),
            queued: self.queue.len(),
            retiring: self.retiring.len(),
            far_gen_us_median: self.timings[1][0].median(),
            far_mesh_us_median: self.timings[1][1].median(),
            ..Default::default()
        }
    }
}

impl<C, P, R> Drop for Scheduler<C, P, R> {
    fn drop(&mut self) {
        for j in self.in_flight.values() {
            j.cancel.store(true, Ordering::Relaxed);
        }
        self.job_tx = None; // closes the channels: workers finish their job and exit
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::time::{Duration, Instant};

    /// A result saying which worker state ran the job and how many jobs that state had run.
    struct Done {
        coord: i32,
        job_id: u64,
        state: usize,
        runs: usize,
        worker_us: u32,
    }

    impl JobResult<i32> for Done {
        fn coord(&self) -> i32 {
            self.coord
        }
        fn job_id(&self) -> u64 {
            self.job_id
        }
        fn timings_us(&self) -> (u32, u32) {
            (self.worker_us, 0)
        }
    }

    #[test]
    fn each_worker_makes_its_state_once_and_keeps_it_across_jobs() {
        let made = Arc::new(AtomicUsize::new(0));
        let counter = made.clone();
        let make_state = move || (counter.fetch_add(1, Ordering::SeqCst), 0usize);
        let work = |state: &mut (usize, usize), job: Job<i32, ()>| {
            state.1 += 1;
            Some(Done { coord: job.coord, job_id: job.id, state: state.0, runs: state.1, worker_us: 0 })
        };
        let mut s = Scheduler::<i32, (), Done>::new(3, 0, "test-worker", make_state, work).unwrap();
        let wanted: HashSet<i32> = (0..40).collect();
        s.retarget(0, wanted, |_| true, |c| c);
        let start = Instant::now();
        let mut runs: HashMap<usize, Vec<usize>> = HashMap::new();
        while !s.is_area_ready() {
            assert!(start.elapsed() < Duration::from_secs(30), "jobs never finished");
            s.pump(|_| ());
            match s.try_recv() {
                Some(d) => runs.entry(d.state).or_default().push(d.runs),
                None => std::thread::sleep(Duration::from_millis(1)),
            }
        }
        // Every state counted its own jobs one by one: 1, 2, 3, ... in the order it ran them.
        let mut total = 0;
        for counts in runs.values_mut() {
            counts.sort_unstable();
            assert!(counts.iter().enumerate().all(|(k, &n)| n == k + 1), "{counts:?}");
            total += counts.len();
        }
        assert_eq!(total, 40);
        let workers = s.worker_count();
        drop(s);
        assert_eq!(made.load(Ordering::SeqCst), workers, "one state per worker");
    }

    #[test]
    fn an_automatic_cap_covers_one_and_a_half_frames_of_the_workers_time() {
        let floor = default_max_in_flight(2);
        assert_eq!(floor, 24);
        // 60 frames a second, 0.4 ms a job: 63 jobs a worker.
        assert_eq!(adaptive_max_in_flight(2, 1.0 / 60.0, 0.0004), 126);
        // Frames far shorter than a job (a headless loop): the default.
        assert_eq!(adaptive_max_in_flight(2, 0.0002, 0.0004), floor);
        // A stalled frame counts as a quarter of a second; the cap has a ceiling.
        assert_eq!(adaptive_max_in_flight(2, 10.0, 0.0025), 2 * 150);
        assert_eq!(adaptive_max_in_flight(2, 0.1, 0.000_001), AUTO_MAX_IN_FLIGHT);
        // Nothing measured yet, or nonsense: the default.
        for (frame, job) in [(0.0, 0.0004), (0.016, 0.0), (f64::NAN, 0.0004), (0.016, f64::INFINITY)] {
            assert_eq!(adaptive_max_in_flight(2, frame, job), floor, "{frame} {job}");
        }
    }

    #[test]
    fn jobs_out_follow_the_frame_rate_unless_the_caller_sets_the_cap() {
        let work = |_: &mut (), job: Job<i32, ()>| {
            Some(Done { coord: job.coord, job_id: job.id, state: 0, runs: 0, worker_us: 100 })
        };
        for (asked, auto) in [(0, true), (8, false)] {
            let mut s = Scheduler::<i32, (), Done>::new(2, asked, "test-worker", || (), work).unwrap();
            s.retarget(0, (0..4000).collect(), |_| true, |c| c);
            // Frames of about 20 ms; every result taken at each.
            for _ in 0..6 {
                s.pump(|_| ());
                std::thread::sleep(Duration::from_millis(20));
                while s.try_recv().is_some() {}
            }
            s.pump(|_| ());
            let st = s.stats();
            if auto {
                // 100 µs jobs, frames of 20 ms or more: 300 jobs a worker at least.
                assert!(st.max_in_flight >= 600, "{}", st.max_in_flight);
                assert_eq!(st.in_flight, st.max_in_flight.min(st.pending_chunks), "filled to the cap");
            } else {
                assert_eq!((st.max_in_flight, st.in_flight), (8, 8));
            }
        }
    }

    #[test]
    fn an_update_of_a_loaded_chunk_goes_before_queued_first_loads() {
        let ran = Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = ran.clone();
        let work = move |_: &mut (), job: Job<i32, ()>| {
            log.lock().unwrap().push(job.coord);
            std::thread::sleep(Duration::from_millis(5));
            Some(Done { coord: job.coord, job_id: job.id, state: 0, runs: 0, worker_us: 5000 })
        };
        let mut s = Scheduler::<i32, (), Done>::new(1, 64, "test-worker", || (), work).unwrap();
        for c in 0..20 {
            s.submit(c, false, ());
        }
        s.submit(100, true, ());
        let start = Instant::now();
        while ran.lock().unwrap().len() < 21 {
            assert!(start.elapsed() < Duration::from_secs(30), "jobs never finished");
            std::thread::sleep(Duration::from_millis(2));
        }
        let order = ran.lock().unwrap().clone();
        let at = order.iter().position(|&c| c == 100).unwrap();
        // Without priority it would run last, after the 20 first loads; the worker may have
        // taken a few of those before the update was sent (more on a busy machine).
        assert!(at < 10, "the update ran {at}th: {order:?}");
    }
}
