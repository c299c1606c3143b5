//! Crash-safe file replacement: write a temporary file beside the target, fsync it, rename it
//! over the target, fsync the directory.
//!
//! A crash (or an error) at any point leaves either the old file or the new one, never a torn
//! mix: readers of `path` see the previous content until the rename. Temporary files are named
//! `.<file name>.tmp-<pid>-<n>` in the same directory (a rename across file systems is not
//! atomic), and a failed write removes its temporary file.
//!
//! May use: the other `base` modules, `std` and the crates in `Cargo.toml`; nothing else in this crate.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Where [`write_atomic_with`] stops, to simulate a crash in tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopAt {
    /// Run to completion.
    Never,
    /// Stop after the temporary file is written and synced, before the rename: what a power cut
    /// at that moment leaves on disk. The temporary file is left in place.
    BeforeRename,
}

/// Replaces the content of `path` with `bytes`, atomically. Creates missing parent directories.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_with(path, bytes, StopAt::Never).map(|_| ())
}

/// [`write_atomic`] with a fault-injection point; returns the temporary file's path.
pub fn write_atomic_with(path: &Path, bytes: &[u8], stop: StopAt) -> io::Result<PathBuf> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let file_name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, format!("`{}` has no file name", path.display())))?;
    fs::create_dir_all(&dir)?;
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(".{}.tmp-{}-{n}", file_name.to_string_lossy(), std::process::id()));
    let result = (|| {
        let mut f = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        if stop == StopAt::BeforeRename {
            return Ok(());
        }
        fs::rename(&tmp, path)?;
        sync_dir(&dir);
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result.map(|()| tmp)
}

/// Flushes a directory entry change (the rename) to disk where the platform allows it.
fn sync_dir(dir: &Path) {
    // Opening a directory for sync works on Unix; elsewhere it is not needed or not possible.
    #[cfg(unix)]
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

/// Removes temporary files that a crashed [`write_atomic`] left in `dir` for target `file_name`.
pub fn remove_stale_temps(dir: &Path, file_name: &str) -> io::Result<usize> {
    let prefix = format!(".{file_name}.tmp-");
    let mut removed = 0;
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_name().to_string_lossy().starts_with(&prefix) {
            fs::remove_file(entry.path())?;
            removed += 1;
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("strata-atomic-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn replaces_content_and_leaves_no_temp() {
        let d = temp_dir("replace");
        let p = d.join("a.bin");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two");
        assert_eq!(fs::read_dir(&d).unwrap().count(), 1);
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn crash_before_rename_keeps_the_old_file() {
        let d = temp_dir("crash");
        let p = d.join("a.bin");
        write_atomic(&p, b"old").unwrap();
        let tmp = write_atomic_with(&p, b"new", StopAt::BeforeRename).unwrap();
        assert!(tmp.exists());
        assert_eq!(fs::read(&p).unwrap(), b"old");
        assert_eq!(remove_stale_temps(&d, "a.bin").unwrap(), 1);
        assert!(!tmp.exists());
        fs::remove_dir_all(&d).unwrap();
    }
}
