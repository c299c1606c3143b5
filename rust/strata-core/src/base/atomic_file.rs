//! Crash-safe file replacement: write a temporary file beside the target, fsync it, rename it
//! over the target, fsync the folder.
//!
//! A crash (or an error) at any point leaves either the old file or the new one, never a torn
//! mix: readers of `path` see the previous content until the rename (law: Nothing is lost).
//! Temporary files are named `.<file name>.tmp-<pid>-<n>` in the target's folder (a rename
//! across file systems is not atomic), and a failed write removes its temporary file.
//!
//! A path that is a symbolic link is written through: the link is followed to its final target,
//! the temporary file goes into the target's folder and replaces the target, and the link stays
//! a link. A path that is (or leads to) a folder, a device such as `/dev/null`, a FIFO or a
//! socket is refused with [`WriteTargetError`] before anything is created: only a regular file
//! or a new path can be replaced by a file.
//!
//! May use: the other `base` modules, `std` and the crates in `Cargo.toml`; nothing else in this crate.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use thiserror::Error;

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Most symbolic links followed from one path (Linux's own limit is 40).
pub const MAX_LINKS: usize = 40;

const ALLOWED_TARGET: &str = "a regular file (or a link to one) or a new path";

/// Why a path cannot be replaced by a file. [`write_atomic`] returns it inside an
/// [`io::Error`] of kind [`io::ErrorKind::InvalidInput`]; get it back with
/// [`WriteTargetError::of`].
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum WriteTargetError {
    /// The path, or the target its links lead to, exists and is not a regular file.
    #[error(
        "`{path}`{} is {kind}, not a regular file; allowed: {ALLOWED_TARGET}",
        target.as_ref().map(|t| format!(" (a link to `{t}`)")).unwrap_or_default()
    )]
    NotAFile {
        /// The path as given.
        path: String,
        /// Where its links lead, when it is a link.
        target: Option<String>,
        /// What is there, in words: `a folder`, `a character device`, `a FIFO (named pipe)`, …
        kind: &'static str,
    },
    /// More than [`MAX_LINKS`] links in a row: a loop, most likely.
    #[error("`{path}`: more than {MAX_LINKS} symbolic links in a row (a link loop?); allowed: {ALLOWED_TARGET}")]
    TooManyLinks { path: String },
    /// The path ends without a file name (`/`, `..`).
    #[error("`{path}` has no file name; allowed: {ALLOWED_TARGET}")]
    NoFileName { path: String },
}

impl WriteTargetError {
    /// The typed error inside an [`io::Error`] returned by [`write_atomic`], if that is its cause.
    pub fn of(e: &io::Error) -> Option<&WriteTargetError> {
        e.get_ref()?.downcast_ref::<WriteTargetError>()
    }

    fn into_io(self) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidInput, self)
    }
}

/// Where [`write_atomic_with`] stops, to simulate a crash in tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopAt {
    /// Run to completion.
    Never,
    /// Stop after the temporary file is written and synced, before the rename: what a power cut
    /// at that moment leaves on disk. The temporary file is left in place.
    BeforeRename,
}

/// Replaces the content of `path` (or of the file its links lead to) with `bytes`, atomically.
/// Creates missing parent folders. Folders, devices, FIFOs and sockets are refused with a
/// [`WriteTargetError`] and left untouched.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_with(path, bytes, StopAt::Never).map(|_| ())
}

/// The file a write to `path` replaces: `path` itself, or the final target of the symbolic
/// links it names (relative links resolve against the link's folder). A missing path, or a
/// link to a missing file, is a new file at the returned path.
pub fn resolve_write_target(path: &Path) -> io::Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..=MAX_LINKS {
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let link = fs::read_link(&p)?;
                p = match p.parent() {
                    Some(dir) if link.is_relative() => dir.join(link),
                    _ => link,
                };
            }
            Ok(_) => return Ok(p),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(p),
            Err(e) => return Err(e),
        }
    }
    Err(WriteTargetError::TooManyLinks { path: path.display().to_string() }.into_io())
}

/// What is at `meta`'s path, in words, when it is not a regular file.
fn not_a_file(meta: &fs::Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() {
        return None;
    }
    if t.is_dir() {
        return Some("a folder");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_char_device() {
            return Some("a character device");
        }
        if t.is_block_device() {
            return Some("a block device");
        }
        if t.is_fifo() {
            return Some("a FIFO (named pipe)");
        }
        if t.is_socket() {
            return Some("a socket");
        }
    }
    Some("not a regular file")
}

/// [`write_atomic`] with a fault-injection point; returns the temporary file's path.
pub fn write_atomic_with(path: &Path, bytes: &[u8], stop: StopAt) -> io::Result<PathBuf> {
    let target = resolve_write_target(path)?;
    // Only metadata is read: a FIFO or device at the path is never opened (no hang, no write).
    let existing = match fs::metadata(&target) {
        Ok(m) => Some(m),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    if let Some(kind) = existing.as_ref().and_then(not_a_file) {
        let shown = (target != path).then(|| target.display().to_string());
        return Err(WriteTargetError::NotAFile { path: path.display().to_string(), target: shown, kind }.into_io());
    }
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let file_name = target
        .file_name()
        .ok_or_else(|| WriteTargetError::NoFileName { path: path.display().to_string() }.into_io())?;
    fs::create_dir_all(&dir)?;
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(".{}.tmp-{}-{n}", file_name.to_string_lossy(), std::process::id()));
    let result = (|| {
        let mut f = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        // The replaced file keeps its permissions (a private save stays private).
        #[cfg(unix)]
        if let Some(m) = &existing {
            f.set_permissions(m.permissions())?;
        }
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        if stop == StopAt::BeforeRename {
            return Ok(());
        }
        fs::rename(&tmp, &target)?;
        sync_dir(&dir);
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result.map(|()| tmp)
}

/// Flushes a folder entry change (the rename) to disk where the platform allows it.
fn sync_dir(dir: &Path) {
    // Opening a folder for sync works on Unix; elsewhere it is not needed or not possible.
    #[cfg(unix)]
    if let Ok(d) = fs::File::open(dir) {
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

    #[test]
    fn a_folder_is_refused_and_kept() {
        let d = temp_dir("folder");
        let p = d.join("sub");
        fs::create_dir(&p).unwrap();
        fs::write(p.join("inside"), b"x").unwrap();
        let e = write_atomic(&p, b"data").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        let typed = WriteTargetError::of(&e).expect("typed error");
        assert!(matches!(typed, WriteTargetError::NotAFile { kind: "a folder", .. }), "{typed:?}");
        let m = e.to_string();
        assert!(m.contains(&p.display().to_string()) && m.contains("a folder") && m.contains("a regular file"), "{m}");
        assert!(p.is_dir() && fs::read(p.join("inside")).unwrap() == b"x");
        assert_eq!(fs::read_dir(&d).unwrap().count(), 1, "no temporary file left");
        fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_is_written_through_and_kept() {
        let d = temp_dir("symlink");
        let real_dir = d.join("real");
        fs::create_dir(&real_dir).unwrap();
        let target = real_dir.join("save.bin");
        fs::write(&target, b"old").unwrap();
        let link = d.join("link.bin");
        std::os::unix::fs::symlink("real/save.bin", &link).unwrap();
        // A link to a link, too.
        let link2 = d.join("link2.bin");
        std::os::unix::fs::symlink(&link, &link2).unwrap();
        write_atomic(&link2, b"new").unwrap();
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert!(fs::symlink_metadata(&link2).unwrap().file_type().is_symlink());
        assert_eq!(fs::read(&target).unwrap(), b"new");
        assert_eq!(fs::read(&link2).unwrap(), b"new");
        // The temporary file went into the target's folder and is gone.
        assert_eq!(fs::read_dir(&real_dir).unwrap().count(), 1);
        assert_eq!(fs::read_dir(&d).unwrap().count(), 3);
        // A dangling link creates its target.
        let dangling = d.join("dangling.bin");
        std::os::unix::fs::symlink("real/new.bin", &dangling).unwrap();
        write_atomic(&dangling, b"fresh").unwrap();
        assert!(fs::symlink_metadata(&dangling).unwrap().file_type().is_symlink());
        assert_eq!(fs::read(real_dir.join("new.bin")).unwrap(), b"fresh");
        fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_link_loop_is_refused() {
        let d = temp_dir("loop");
        let (a, b) = (d.join("a"), d.join("b"));
        std::os::unix::fs::symlink(&b, &a).unwrap();
        std::os::unix::fs::symlink(&a, &b).unwrap();
        let e = write_atomic(&a, b"x").unwrap_err();
        assert!(matches!(WriteTargetError::of(&e), Some(WriteTargetError::TooManyLinks { .. })), "{e}");
        fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn dev_null_is_refused_and_untouched() {
        let dev_null = Path::new("/dev/null");
        let before = fs::metadata(dev_null).unwrap();
        let e = write_atomic(dev_null, b"data").unwrap_err();
        let m = e.to_string();
        assert!(m.contains("/dev/null") && m.contains("a character device") && m.contains("allowed"), "{m}");
        let after = fs::metadata(dev_null).unwrap();
        use std::os::unix::fs::{FileTypeExt, MetadataExt};
        assert!(after.file_type().is_char_device());
        assert_eq!((before.ino(), before.mode(), before.rdev()), (after.ino(), after.mode(), after.rdev()));
        // Through a link, the message names both.
        let d = temp_dir("devnull");
        let link = d.join("null-link");
        std::os::unix::fs::symlink(dev_null, &link).unwrap();
        let m = write_atomic(&link, b"data").unwrap_err().to_string();
        assert!(m.contains("null-link") && m.contains("a link to `/dev/null`"), "{m}");
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_fifo_is_refused_without_hanging() {
        use std::os::unix::ffi::OsStrExt;
        let d = temp_dir("fifo");
        let p = d.join("pipe");
        let c = std::ffi::CString::new(p.as_os_str().as_bytes()).unwrap();
        // SAFETY: `c` is a valid NUL-terminated path that lives across the call.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        // Run in a thread with a deadline: opening a FIFO for writing would block forever.
        let (tx, rx) = std::sync::mpsc::channel();
        let p2 = p.clone();
        std::thread::spawn(move || {
            let _ = tx.send(write_atomic(&p2, b"data").map_err(|e| e.to_string()));
        });
        let r = rx.recv_timeout(std::time::Duration::from_secs(10)).expect("write_atomic hung on a FIFO");
        let m = r.unwrap_err();
        assert!(m.contains("pipe") && m.contains("a FIFO"), "{m}");
        use std::os::unix::fs::FileTypeExt;
        assert!(fs::symlink_metadata(&p).unwrap().file_type().is_fifo(), "the FIFO is still there");
        assert_eq!(fs::read_dir(&d).unwrap().count(), 1);
        fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_socket_is_refused() {
        let d = temp_dir("socket");
        let p = d.join("sock");
        let _listener = std::os::unix::net::UnixListener::bind(&p).unwrap();
        let m = write_atomic(&p, b"data").unwrap_err().to_string();
        assert!(m.contains("a socket"), "{m}");
        fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn permissions_are_kept() {
        use std::os::unix::fs::PermissionsExt;
        let d = temp_dir("perms");
        let p = d.join("private.bin");
        fs::write(&p, b"old").unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o600)).unwrap();
        write_atomic(&p, b"new").unwrap();
        assert_eq!(fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o600);
        fs::remove_dir_all(&d).unwrap();
    }
}
