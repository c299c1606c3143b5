//! A preset's heightmap file, read the way a Godot game reads files and loaded once.
//!
//! `heightmap_path` may be `res://…`, `user://…`, absolute, or relative (to `res://`). A file
//! that lies on disk (an absolute path, `user://`, `res://` of an unexported project) is read by
//! the core's bounded loader ([`Heightmap::load`]: regular files only, header and byte count
//! checked before decoding) on a worker thread. A `res://` file that only Godot's file access
//! reaches (inside an exported game's pack) is read through `FileAccess` on the main thread a
//! slice a frame ([`PACKED_SLICE_BYTES`]), its length checked first, and decoded on a worker
//! (law: Main thread never waits).
//!
//! Loaded heightmaps are kept in a small process-wide cache keyed by the file's place, length
//! and modified time, so validating a preset, building its world, regenerating it and a second
//! world from it load the file once; a changed file is loaded again.
//!
//! May use: `strata_core` (noise::heightmap), `files` (where a path is read from), Godot's
//! `FileAccess`.

use crate::base::files::{GodotFile as HeightmapFile, locate_file};
use godot::classes::FileAccess;
use godot::classes::file_access::ModeFlags;
use godot::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use strata_core::noise::heightmap::{Heightmap, HeightmapError};

/// Bytes of a packed heightmap read on the main thread per frame.
pub(crate) const PACKED_SLICE_BYTES: u64 = 1 << 20;

/// Loaded heightmaps kept for reuse: the most recent few (each may be up to 256 MiB).
const CACHE_ENTRIES: usize = 2;

/// A file's identity for the cache: its place, length and modified time.
type Stamp = (HeightmapFile, u64, u64);

static CACHE: Mutex<Vec<(Stamp, Arc<Heightmap>)>> = Mutex::new(Vec::new());
static LOADS: AtomicU64 = AtomicU64::new(0);

/// Heightmap files decoded by this process so far (cache hits not counted).
pub(crate) fn loads_total() -> u64 {
    LOADS.load(Ordering::Relaxed)
}

/// Where `path` (as a preset holds it) is read from: a relative path lies under `res://`.
/// Main thread only.
pub(crate) fn locate(path: &str) -> HeightmapFile {
    let path = path.trim();
    if Path::new(path).is_absolute() || path.starts_with("res://") || path.starts_with("user://") {
        locate_file(path)
    } else {
        locate_file(&format!("res://{path}"))
    }
}

/// The cache key of `file` now, or None when its length or time cannot be read (then it is
/// loaded, and the load reports why).
fn stamp(file: &HeightmapFile) -> Option<Stamp> {
    match file {
        HeightmapFile::Disk(p) => {
            let meta = std::fs::metadata(p).ok()?;
            let modified = meta.modified().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?.as_nanos() as u64;
            Some((file.clone(), meta.len(), modified))
        }
        HeightmapFile::Packed(p) => {
            let f = FileAccess::open(p, ModeFlags::READ)?;
            Some((file.clone(), f.get_length(), FileAccess::get_modified_time(p)))
        }
    }
}

/// The cached heightmap of `stamp`, if loaded before.
fn cached(stamp: &Stamp) -> Option<Arc<Heightmap>> {
    let cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    cache.iter().find(|(s, _)| s == stamp).map(|(_, m)| m.clone())
}

/// Keeps `map` as the heightmap of `stamp`, dropping the oldest entries beyond the limit.
fn remember(stamp: Option<Stamp>, map: &Arc<Heightmap>) {
    let Some(stamp) = stamp else { return };
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    cache.retain(|(s, _)| *s != stamp);
    cache.push((stamp, map.clone()));
    let excess = cache.len().saturating_sub(CACHE_ENTRIES);
    cache.drain(..excess);
}

/// Decodes `bytes` read from `file` and caches the result.
fn decode(file: &HeightmapFile, stamp: Option<Stamp>, bytes: &[u8]) -> Result<Arc<Heightmap>, HeightmapError> {
    let map = Arc::new(Heightmap::from_bytes(bytes, &PathBuf::from(file.shown()))?);
    LOADS.fetch_add(1, Ordering::Relaxed);
    remember(stamp, &map);
    Ok(map)
}

/// Loads a file on disk (any thread) and caches the result.
fn load_disk(path: &Path, stamp: Option<Stamp>) -> Result<Arc<Heightmap>, HeightmapError> {
    let map = Arc::new(Heightmap::load(path)?);
    LOADS.fetch_add(1, Ordering::Relaxed);
    remember(stamp, &map);
    Ok(map)
}

/// The heightmap at `path` now, from the cache or loaded at once on this (the main) thread:
/// for `StrataWorldPreset.validate()`, which answers at once. The result is cached for the world.
pub(crate) fn load_now(path: &str) -> Result<Arc<Heightmap>, HeightmapError> {
    let file = locate(path);
    let stamp = stamp(&file);
    if let Some(map) = stamp.as_ref().and_then(cached) {
        return Ok(map);
    }
    match &file {
        HeightmapFile::Disk(p) => load_disk(p, stamp),
        HeightmapFile::Packed(_) => {
            let mut read = PackedRead::open(&file)?;
            loop {
                if let Some(bytes) = read.step(u64::MAX)? {
                    return decode(&file, stamp, &bytes);
                }
            }
        }
    }
}

/// A loader of the heightmap at `path` for a worker thread (the live previews): its cached copy,
/// or a file on disk read when the worker calls it; a file that only Godot's file access
/// reaches (inside an exported game's pack) is read now, on this (the main) thread, as
/// `load_now` does. Main thread only.
pub(crate) type WorkerLoad = Box<dyn FnOnce() -> Result<Arc<Heightmap>, HeightmapError> + Send>;

/// See [`WorkerLoad`].
pub(crate) fn worker_load(path: &str) -> WorkerLoad {
    let file = locate(path);
    let stamp = stamp(&file);
    if let Some(map) = stamp.as_ref().and_then(cached) {
        return Box::new(move || Ok(map));
    }
    match file {
        HeightmapFile::Disk(p) => Box::new(move || load_disk(&p, stamp)),
        HeightmapFile::Packed(_) => {
            let loaded = load_now(path);
            Box::new(move || loaded)
        }
    }
}

/// A heightmap on its way: found in the cache, or to be loaded (see [`HeightmapLoad`]).
pub(crate) enum Lookup {
    Cached(Arc<Heightmap>),
    Load(HeightmapLoad),
}

/// Looks `path` up in the cache, or prepares its load. Main thread only.
pub(crate) fn lookup(path: &str) -> Lookup {
    let file = locate(path);
    let stamp = stamp(&file);
    match stamp.as_ref().and_then(cached) {
        Some(map) => Lookup::Cached(map),
        None => Lookup::Load(HeightmapLoad { file, stamp, read: None }),
    }
}

/// Loading one heightmap file: packed bytes are read a slice a frame by [`HeightmapLoad::step`]
/// on the main thread; then [`ReadyToDecode::finish`] runs on a worker.
pub(crate) struct HeightmapLoad {
    file: HeightmapFile,
    stamp: Option<Stamp>,
    read: Option<PackedRead>,
}

/// What the worker is given: a disk file to load, the bytes read, or the reading error.
pub(crate) enum ReadyToDecode {
    Disk(PathBuf, Option<Stamp>),
    Bytes(HeightmapFile, Option<Stamp>, Vec<u8>),
    Failed(HeightmapError),
}

impl HeightmapLoad {
    /// One frame's reading on the main thread: at most [`PACKED_SLICE_BYTES`] of a packed file
    /// (a disk file is read by the worker). Returns what the worker needs once reading is done.
    pub(crate) fn step(&mut self) -> Option<ReadyToDecode> {
        if let HeightmapFile::Disk(p) = &self.file {
            return Some(ReadyToDecode::Disk(p.clone(), self.stamp.take()));
        }
        if self.read.is_none() {
            match PackedRead::open(&self.file) {
                Ok(r) => self.read = Some(r),
                Err(e) => return Some(ReadyToDecode::Failed(e)),
            }
        }
        let read = self.read.as_mut()?;
        Some(match read.step(PACKED_SLICE_BYTES).transpose()? {
            Ok(bytes) => ReadyToDecode::Bytes(self.file.clone(), self.stamp.take(), bytes),
            Err(e) => ReadyToDecode::Failed(e),
        })
    }
}

impl ReadyToDecode {
    /// Loads or decodes the heightmap (any thread) and caches it.
    pub(crate) fn finish(self) -> Result<Arc<Heightmap>, HeightmapError> {
        match self {
            ReadyToDecode::Disk(p, stamp) => load_disk(&p, stamp),
            ReadyToDecode::Bytes(file, stamp, bytes) => decode(&file, stamp, &bytes),
            ReadyToDecode::Failed(e) => Err(e),
        }
    }
}

/// A packed file read through `FileAccess`, its length checked before the first byte.
struct PackedRead {
    path: PathBuf,
    file: Gd<FileAccess>,
    len: u64,
    bytes: Vec<u8>,
}

impl PackedRead {
    fn open(file: &HeightmapFile) -> Result<Self, HeightmapError> {
        let HeightmapFile::Packed(godot_path) = file else {
            return Err(HeightmapError::Extension { path: PathBuf::from(file.shown()) });
        };
        let path = PathBuf::from(file.shown());
        let io = |message: String| HeightmapError::Io { path: path.clone(), source: std::io::Error::other(message) };
        let Some(f) = FileAccess::open(godot_path.as_str(), ModeFlags::READ) else {
            return Err(io(format!("Godot cannot open it ({:?})", FileAccess::get_open_error())));
        };
        let len = f.get_length();
        Heightmap::check_len(&path, len)?;
        Ok(Self { path, file: f, len, bytes: Vec::new() })
    }

    /// Reads up to `max` more bytes; the whole file once it is read.
    fn step(&mut self, max: u64) -> Result<Option<Vec<u8>>, HeightmapError> {
        let left = self.len - self.bytes.len() as u64;
        let n = left.min(max).min(i64::MAX as u64);
        if n > 0 {
            let chunk = self.file.get_buffer(n as i64);
            if chunk.is_empty() {
                let source = std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "the file ended early");
                return Err(HeightmapError::Io { path: self.path.clone(), source });
            }
            self.bytes.extend_from_slice(chunk.as_slice());
        }
        Ok((self.bytes.len() as u64 >= self.len).then(|| std::mem::take(&mut self.bytes)))
    }
}
