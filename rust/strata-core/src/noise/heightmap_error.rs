//! The errors of heightmap files and the size limit every reader shares: apart from the readers
//! (`heightmap`, `esri_ascii`, `pca`) so that each of them can name them without importing the
//! others.
//!
//! May use: nothing else in the crate.

use std::path::PathBuf;
use thiserror::Error;

/// The widest and tallest heightmap read, in pixels (a 8192×8192 16-bit image is 128 MiB of
/// samples); larger headers are refused before decoding.
pub const MAX_HEIGHTMAP_SIDE: u32 = 8192;

/// Why a heightmap could not be read or written.
#[derive(Debug, Error)]
pub enum HeightmapError {
    #[error("heightmap `{path}`: cannot read the file: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("heightmap `{path}`: is {found}; allowed: a regular .png, .hgt, .asc or .spca file")]
    NotAFile { path: PathBuf, found: &'static str },
    #[error(
        "heightmap `{path}`: {width}×{height} pixels is too large; allowed: at most {max}×{max}",
        max = MAX_HEIGHTMAP_SIDE
    )]
    TooLarge { path: PathBuf, width: u64, height: u64 },
    #[error("heightmap `{path}`: the file is {len} bytes; allowed: at most {max} bytes for a PNG")]
    PngBytes { path: PathBuf, len: u64, max: u64 },
    #[error("heightmap `{path}`: not a readable PNG ({message})")]
    Png { path: PathBuf, message: String },
    #[error("heightmap `{path}`: {found} PNG is not supported; allowed: 8- or 16-bit grayscale PNG")]
    PngFormat { path: PathBuf, found: String },
    #[error("heightmap `{path}`: {len} bytes is not an SRTM tile; allowed: 1201×1201 or 3601×3601 big-endian 16-bit samples ({} or {} bytes)", 2 * 1201 * 1201, 2 * 3601 * 3601)]
    HgtSize { path: PathBuf, len: u64 },
    #[error("heightmap `{path}`: unknown file type; allowed: a .png, .hgt, .asc or .spca file")]
    Extension { path: PathBuf },
    #[error("heightmap `{path}`: every sample is void")]
    AllVoid { path: PathBuf },
    #[error("heightmap `{path}`: the file is {len} bytes; allowed: at most {max} bytes for an ESRI ASCII grid")]
    AscBytes { path: PathBuf, len: u64, max: u64 },
    #[error("heightmap `{path}`: line {line}: `{key}` = `{value}`; allowed: {allowed}")]
    Asc { path: PathBuf, line: usize, key: String, value: String, allowed: &'static str },
    #[error(
        "heightmap `{path}`: the header has no `{key}`; allowed: a header with ncols, nrows, xllcorner or xllcenter, yllcorner or yllcenter, cellsize (nodata_value optional)"
    )]
    AscMissing { path: PathBuf, key: &'static str },
    #[error(
        "heightmap `{path}`: the samples end at line {line} after {found} of them; allowed: exactly ncols × nrows = {expected}"
    )]
    AscCount { path: PathBuf, line: usize, found: usize, expected: usize },
    #[error("heightmap `{path}`: {field} is {value}; allowed: {allowed}")]
    Spca { path: PathBuf, field: &'static str, value: String, allowed: String },
    #[error("heightmap `{path}`: cannot write: {message}")]
    Write { path: PathBuf, message: String },
}
