//! Well-known locations: the repository root, the cargo target directory, the Godot
//! projects (the demo and the tests) and the git-ignored `.tools/` folder; plus small filesystem helpers
//! (PATH lookup, atomic copy, file locks).

use crate::error::{Context, Error, Result};
use std::ffi::OsStr;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The repository root (two levels above this crate's manifest).
pub fn repo_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.ancestors().nth(2).expect("xtask lives at <root>/rust/xtask").to_path_buf()
}

/// `<root>/godot_project`.
pub fn godot_project() -> PathBuf {
    repo_root().join("godot_project")
}

/// `<root>/tests/godot`: the Godot test project (see [`crate::test_project`]).
pub fn godot_tests() -> PathBuf {
    repo_root().join("tests/godot")
}

/// `<root>/.tools` (git-ignored): downloaded tools live here.
pub fn tools_dir() -> PathBuf {
    repo_root().join(".tools")
}

/// The `cargo` to use for nested invocations (the one that ran us, if known).
pub fn cargo() -> Command {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(repo_root());
    cmd
}

/// The cargo target directory, from `cargo metadata` (respects `CARGO_TARGET_DIR`
/// and `build.target-dir`). Cached for the life of the process.
pub fn target_dir() -> Result<PathBuf> {
    static CACHE: OnceLock<PathBuf> = OnceLock::new();
    if let Some(dir) = CACHE.get() {
        return Ok(dir.clone());
    }
    let out = cargo()
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .stderr(std::process::Stdio::inherit())
        .output()
        .context("could not run `cargo metadata`")?;
    if !out.status.success() {
        bail!("`cargo metadata --format-version 1 --no-deps` failed ({})", out.status);
    }
    let json = String::from_utf8_lossy(&out.stdout);
    let dir =
        json_string_field(&json, "target_directory").context("`cargo metadata` output has no \"target_directory\"")?;
    let dir = PathBuf::from(dir);
    let _ = CACHE.set(dir.clone());
    Ok(dir)
}

/// Extracts the first string value of `"key":"..."` from a JSON text (enough for
/// `cargo metadata`, avoiding a serde dependency).
fn json_string_field(json: &str, key: &str) -> Option<String> {
    let needle = format!("\"{key}\":");
    let start = json.find(&needle)? + needle.len();
    let rest = json[start..].trim_start().strip_prefix('"')?;
    let mut out = String::new();
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(out),
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'u' => {
                    let hex: String = chars.by_ref().take(4).collect();
                    out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
                }
                other => out.push(other),
            },
            c => out.push(c),
        }
    }
    None
}

/// Finds an executable named `name` on `PATH`.
pub fn which(name: impl AsRef<OsStr>) -> Option<PathBuf> {
    let name = name.as_ref();
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(name)).find(|p| is_executable(p))
}

/// Whether `path` is a regular file with an execute bit.
pub fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Whether two files have identical contents (false if either is unreadable).
pub fn same_contents(a: &Path, b: &Path) -> bool {
    let (Ok(ma), Ok(mb)) = (fs::metadata(a), fs::metadata(b)) else {
        return false;
    };
    if ma.len() != mb.len() {
        return false;
    }
    let (Ok(mut fa), Ok(mut fb)) = (fs::File::open(a), fs::File::open(b)) else {
        return false;
    };
    let mut ba = vec![0u8; 1 << 16];
    let mut bb = vec![0u8; 1 << 16];
    loop {
        let Ok(na) = fa.read(&mut ba) else {
            return false;
        };
        if na == 0 {
            return true;
        }
        if fb.read_exact(&mut bb[..na]).is_err() || ba[..na] != bb[..na] {
            return false;
        }
    }
}

/// Copies `src` to `dst` by writing a temporary file next to `dst` and renaming it
/// over `dst`, so a process that has the old file mapped keeps a valid mapping.
pub fn copy_atomic(src: &Path, dst: &Path) -> Result<()> {
    let dir = dst.parent().context("destination has no parent directory")?;
    fs::create_dir_all(dir).with_context(|| format!("could not create {}", dir.display()))?;
    let name = dst.file_name().context("destination has no file name")?;
    let tmp = dir.join(format!(".{}.{}.tmp", name.to_string_lossy(), std::process::id()));
    fs::copy(src, &tmp).with_context(|| format!("could not copy {} to {}", src.display(), tmp.display()))?;
    fs::rename(&tmp, dst).map_err(|e| {
        let _ = fs::remove_file(&tmp);
        Error::from(e).context(format!("could not move {} into place", dst.display()))
    })
}

/// An exclusive advisory lock on a file, held until dropped. Serialises concurrent
/// xtask runs that would otherwise install or import at the same time.
pub struct FileLock {
    _file: fs::File,
}

/// Takes an exclusive lock on `path` (created if needed), waiting for other holders.
pub fn lock_file(path: &Path) -> Result<FileLock> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).with_context(|| format!("could not create {}", dir.display()))?;
    }
    let file = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .with_context(|| format!("could not open lock file {}", path.display()))?;
    if file.try_lock().is_err() {
        crate::note(format!("waiting for lock {} (another xtask is running)", path.display()));
        file.lock().with_context(|| format!("could not lock {}", path.display()))?;
    }
    Ok(FileLock { _file: file })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_target_directory() {
        let json = r#"{"packages":[],"target_directory":"/a/b \"c\"\\d","version":1}"#;
        assert_eq!(json_string_field(json, "target_directory").unwrap(), "/a/b \"c\"\\d");
    }
}
