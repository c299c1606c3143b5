//! Real heightmaps as a height source: 16-bit grayscale PNG, SRTM `.hgt` tiles, ESRI ASCII grids
//! (`.asc`, [`crate::noise::esri_ascii`]) and PCA reconstructions (`.spca`,
//! [`crate::noise::pca::PcaModel`]: a grid kept as k principal components, streamed at that
//! level of detail).
//!
//! Samples are normalised to `[-1, 1]` (lowest sample → −1, highest → +1) so a heightmap blends
//! with the noise sources like any other; the preset's `amplitude` sets the relief. SRTM voids
//! (−32768) take the lowest valid sample. The image is centred on the world origin, one pixel per
//! `heightmap_cell_size` voxels, read with bilinear interpolation; beyond its extent it is either
//! tiled with mirroring (period `2·(W − 1)` pixels, so tiles meet without steps) or bordered by
//! generated terrain, faded over a band inside the image edge ([`Heightmap::border_mask`]).
//!
//! Loading is bounded (law: Clear errors): only regular files are opened (a FIFO, device or
//! folder is refused before it is opened, so nothing hangs), the header's dimensions are checked
//! against [`MAX_HEIGHTMAP_SIDE`] and the file's byte count against what the header promises
//! before any sample is decoded, and no read goes past that promise. Loading errors are typed
//! and name the file, the value found and what is allowed.
//!
//! May use: `base`, `preset` and the other `noise` modules (`esri_ascii`, `pca`).

use crate::noise::esri_ascii::{AsciiGrid, MAX_ASC_BYTES};
pub use crate::noise::heightmap_error::{HeightmapError, MAX_HEIGHTMAP_SIDE};
use crate::noise::pca::PcaModel;
use std::fs::File;
use std::io::{BufWriter, Cursor, Read};
use std::path::Path;

/// The void marker of SRTM tiles.
pub const HGT_VOID: i16 = -32768;

/// The sides of the SRTM tiles read: 3-arc-second (1201²) and 1-arc-second (3601²).
pub const HGT_SIDES: [usize; 2] = [1201, 3601];

/// The largest PNG file read: the raw 16-bit samples of a [`MAX_HEIGHTMAP_SIDE`]² image plus a
/// margin for PNG framing (a PNG that does not compress is a little larger than its samples).
pub const MAX_PNG_BYTES: u64 = 2 * (MAX_HEIGHTMAP_SIDE as u64) * (MAX_HEIGHTMAP_SIDE as u64) * 101 / 100 + (1 << 20);

/// Opens `path` for reading if it is a regular file (following links) of at most `max_len`
/// bytes, checked before opening so a FIFO, device or folder is refused without blocking.
/// Returns the file and its length.
fn open_regular(path: &Path) -> Result<(File, u64), HeightmapError> {
    let io = |source| HeightmapError::Io { path: path.into(), source };
    let meta = std::fs::metadata(path).map_err(io)?;
    let not_a_file = |ty: std::fs::FileType| -> Option<&'static str> {
        if ty.is_file() {
            return None;
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            if ty.is_fifo() {
                return Some("a FIFO (named pipe)");
            }
            if ty.is_char_device() || ty.is_block_device() {
                return Some("a device");
            }
            if ty.is_socket() {
                return Some("a socket");
            }
        }
        Some(if ty.is_dir() { "a folder" } else { "not a regular file" })
    };
    if let Some(found) = not_a_file(meta.file_type()) {
        return Err(HeightmapError::NotAFile { path: path.into(), found });
    }
    let file = File::open(path).map_err(io)?;
    // The path may have been replaced between the check and the open: check the opened file.
    let meta = file.metadata().map_err(io)?;
    if let Some(found) = not_a_file(meta.file_type()) {
        return Err(HeightmapError::NotAFile { path: path.into(), found });
    }
    Ok((file, meta.len()))
}

/// Reads at most `len` bytes of `file` (its length when checked), so a file that grows while it
/// is read cannot make the read endless.
fn read_bounded(file: File, len: u64, path: &Path) -> Result<Vec<u8>, HeightmapError> {
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(len).read_to_end(&mut bytes).map_err(|source| HeightmapError::Io { path: path.into(), source })?;
    Ok(bytes)
}

/// A loaded heightmap, samples normalised to `[-1, 1]`, row-major (x fastest).
#[derive(Clone, Debug, PartialEq)]
pub struct Heightmap {
    width: usize,
    height: usize,
    samples: Vec<f32>,
    /// Raw value of the lowest and highest valid sample.
    raw_range: (f64, f64),
}

impl Heightmap {
    /// Loads a `.png` (8- or 16-bit grayscale), `.hgt` (SRTM), `.asc` (ESRI ASCII grid) or
    /// `.spca` (PCA components) file, by extension.
    pub fn load(path: &Path) -> Result<Self, HeightmapError> {
        match Self::extension(path)?.as_str() {
            "png" => Self::load_png(path),
            "hgt" => Self::load_hgt(path),
            _ => {
                let (file, len) = open_regular(path)?;
                Self::check_len(path, len)?;
                Self::from_bytes(&read_bounded(file, len, path)?, path)
            }
        }
    }

    /// Decodes a `.png` or `.hgt` file held in memory, by the extension of `path` (which names
    /// it in errors): for files read by other means than [`Heightmap::load`] (an engine's file
    /// access). Use [`Heightmap::check_len`] before reading the bytes.
    pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<Self, HeightmapError> {
        match Self::extension(path)?.as_str() {
            "png" => Self::from_png_bytes(bytes, path),
            "asc" => Self::from_asc_bytes(bytes, path),
            "spca" => Self::from_spca_bytes(bytes, path),
            _ => Self::from_hgt_bytes(bytes, path),
        }
    }

    /// Decodes an ESRI ASCII grid held in memory (no-data filled, see
    /// [`crate::noise::esri_ascii`]); `path` names it in errors.
    pub fn from_asc_bytes(bytes: &[u8], path: &Path) -> Result<Self, HeightmapError> {
        let grid = AsciiGrid::parse(bytes, path)?;
        Self::from_raw(grid.ncols, grid.nrows, &grid.values, None)
            .ok_or_else(|| HeightmapError::AllVoid { path: path.into() })
    }

    /// Decodes a `.spca` file held in memory into its k-component reconstruction; `path` names
    /// it in errors.
    pub fn from_spca_bytes(bytes: &[u8], path: &Path) -> Result<Self, HeightmapError> {
        let model = PcaModel::from_bytes(bytes, path)?;
        Self::from_raw(model.cols, model.rows, &model.heights(), None)
            .ok_or_else(|| HeightmapError::AllVoid { path: path.into() })
    }

    /// Checks a file's byte count against what its kind allows (at most [`MAX_PNG_BYTES`] for a
    /// PNG, exactly an SRTM tile's size for `.hgt`, at most [`MAX_ASC_BYTES`] for `.asc`, at most
    /// [`PcaModel::max_file_len`] for `.spca`), before any byte is read.
    pub fn check_len(path: &Path, len: u64) -> Result<(), HeightmapError> {
        match Self::extension(path)?.as_str() {
            "png" if len > MAX_PNG_BYTES => {
                Err(HeightmapError::PngBytes { path: path.into(), len, max: MAX_PNG_BYTES })
            }
            "hgt" if !HGT_SIDES.iter().any(|&side| len == 2 * (side * side) as u64) => {
                Err(HeightmapError::HgtSize { path: path.into(), len })
            }
            "asc" if len > MAX_ASC_BYTES => {
                Err(HeightmapError::AscBytes { path: path.into(), len, max: MAX_ASC_BYTES })
            }
            "spca" if len > PcaModel::max_file_len() => Err(HeightmapError::Spca {
                path: path.into(),
                field: "length",
                value: format!("{len} bytes"),
                allowed: format!("at most {} bytes", PcaModel::max_file_len()),
            }),
            _ => Ok(()),
        }
    }

    /// The lower-case extension of `path` if it is one read here (`png`, `hgt`, `asc`, `spca`).
    fn extension(path: &Path) -> Result<String, HeightmapError> {
        let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
        ext.filter(|e| ["png", "hgt", "asc", "spca"].contains(&e.as_str()))
            .ok_or_else(|| HeightmapError::Extension { path: path.into() })
    }

    fn load_png(path: &Path) -> Result<Self, HeightmapError> {
        let (file, len) = open_regular(path)?;
        if len > MAX_PNG_BYTES {
            return Err(HeightmapError::PngBytes { path: path.into(), len, max: MAX_PNG_BYTES });
        }
        Self::from_png_bytes(&read_bounded(file, len, path)?, path)
    }

    /// Decodes an 8- or 16-bit grayscale PNG held in memory; `path` names it in errors. The
    /// header's dimensions are checked against [`MAX_HEIGHTMAP_SIDE`] before any pixel is decoded.
    pub fn from_png_bytes(bytes: &[u8], path: &Path) -> Result<Self, HeightmapError> {
        let bad = |e: png::DecodingError| HeightmapError::Png { path: path.into(), message: e.to_string() };
        // The dimensions from the header chunk (signature, length, `IHDR`, width, height), read
        // here so an oversized image is named as such before the decoder sees it.
        if bytes.len() >= 24 && &bytes[12..16] == b"IHDR" {
            let w = u32::from_be_bytes([bytes[16], bytes[17], bytes[18], bytes[19]]);
            let h = u32::from_be_bytes([bytes[20], bytes[21], bytes[22], bytes[23]]);
            if w > MAX_HEIGHTMAP_SIDE || h > MAX_HEIGHTMAP_SIDE {
                return Err(HeightmapError::TooLarge { path: path.into(), width: w as u64, height: h as u64 });
            }
        }
        // Room for the largest allowed image's samples; larger chunks are refused by the decoder.
        let limits = png::Limits { bytes: 2 * (MAX_HEIGHTMAP_SIDE as usize).pow(2) + (16 << 20) };
        let mut decoder = png::Decoder::new_with_limits(Cursor::new(bytes), limits);
        decoder.set_transformations(png::Transformations::EXPAND);
        let mut reader = decoder.read_info().map_err(bad)?;
        let (w, h) = (reader.info().width, reader.info().height);
        if w > MAX_HEIGHTMAP_SIDE || h > MAX_HEIGHTMAP_SIDE {
            return Err(HeightmapError::TooLarge { path: path.into(), width: w as u64, height: h as u64 });
        }
        let (color, depth) = (reader.info().color_type, reader.info().bit_depth);
        if color != png::ColorType::Grayscale {
            return Err(HeightmapError::PngFormat {
                path: path.into(),
                found: format!("{} {}-bit", color_name(color), depth as u8),
            });
        }
        let size = reader
            .output_buffer_size()
            .ok_or_else(|| HeightmapError::Png { path: path.into(), message: "image too large".into() })?;
        let mut buf = vec![0u8; size];
        let info = reader.next_frame(&mut buf).map_err(bad)?;
        let (w, h) = (info.width as usize, info.height as usize);
        let raw: Vec<f64> = match (info.color_type, info.bit_depth) {
            (png::ColorType::Grayscale, png::BitDepth::Sixteen) => (0..h)
                .flat_map(|y| {
                    let row = &buf[y * info.line_size..];
                    (0..w).map(move |x| u16::from_be_bytes([row[2 * x], row[2 * x + 1]]) as f64)
                })
                .collect(),
            (png::ColorType::Grayscale, png::BitDepth::Eight) => {
                (0..h).flat_map(|y| buf[y * info.line_size..][..w].iter().map(|&v| v as f64)).collect()
            }
            (color, depth) => {
                return Err(HeightmapError::PngFormat {
                    path: path.into(),
                    found: format!("{} {}-bit", color_name(color), depth as u8),
                });
            }
        };
        Self::from_raw(w, h, &raw, None).ok_or_else(|| HeightmapError::AllVoid { path: path.into() })
    }

    fn load_hgt(path: &Path) -> Result<Self, HeightmapError> {
        let (file, len) = open_regular(path)?;
        // The size is the header of an SRTM tile: checked before reading a byte.
        if !HGT_SIDES.iter().any(|&side| len == 2 * (side * side) as u64) {
            return Err(HeightmapError::HgtSize { path: path.into(), len });
        }
        Self::from_hgt_bytes(&read_bounded(file, len, path)?, path)
    }

    /// Decodes an SRTM tile held in memory (big-endian `i16`, 1201² or 3601² samples); `path`
    /// names it in errors.
    pub fn from_hgt_bytes(bytes: &[u8], path: &Path) -> Result<Self, HeightmapError> {
        let Some(&side) = HGT_SIDES.iter().find(|&&side| bytes.len() == 2 * side * side) else {
            return Err(HeightmapError::HgtSize { path: path.into(), len: bytes.len() as u64 });
        };
        let raw: Vec<f64> = bytes.chunks_exact(2).map(|b| i16::from_be_bytes([b[0], b[1]]) as f64).collect();
        Self::from_raw(side, side, &raw, Some(HGT_VOID as f64))
            .ok_or_else(|| HeightmapError::AllVoid { path: path.into() })
    }

    /// Builds a heightmap from raw samples (row-major); samples equal to `void` are filled with
    /// the lowest valid one. `None` when every sample is void or the sizes disagree.
    pub fn from_raw(width: usize, height: usize, raw: &[f64], void: Option<f64>) -> Option<Self> {
        if width == 0 || height == 0 || raw.len() != width * height {
            return None;
        }
        let valid = |v: &&f64| Some(**v) != void && v.is_finite();
        let lo = raw.iter().filter(valid).copied().fold(f64::INFINITY, f64::min);
        let hi = raw.iter().filter(valid).copied().fold(f64::NEG_INFINITY, f64::max);
        if !lo.is_finite() {
            return None;
        }
        let span = hi - lo;
        let samples = raw
            .iter()
            .map(|&v| {
                let v = if Some(v) == void || !v.is_finite() { lo } else { v };
                if span > 0.0 { ((v - lo) / span * 2.0 - 1.0) as f32 } else { 0.0 }
            })
            .collect();
        Some(Self { width, height, samples, raw_range: (lo, hi) })
    }

    pub fn width(&self) -> usize {
        self.width
    }

    pub fn height(&self) -> usize {
        self.height
    }

    /// Raw value of the lowest and highest valid sample in the file.
    pub fn raw_range(&self) -> (f64, f64) {
        self.raw_range
    }

    /// Normalised sample of pixel `(px, pz)`, which must lie in the image.
    #[inline]
    pub fn pixel(&self, px: usize, pz: usize) -> f64 {
        self.samples[pz * self.width + px] as f64
    }

    /// Pixel coordinates of world `(x, z)` (the image is centred on the origin).
    #[inline]
    pub fn to_pixel(&self, x: f64, z: f64, cell_size: f64) -> (f64, f64) {
        (x / cell_size + (self.width - 1) as f64 * 0.5, z / cell_size + (self.height - 1) as f64 * 0.5)
    }

    /// Bilinear sample at pixel coordinates `(u, v)`, the plane tiled by mirrored copies.
    pub fn sample_mirrored(&self, u: f64, v: f64) -> f64 {
        self.bilinear(u, v, mirror)
    }

    /// Bilinear sample at pixel coordinates `(u, v)`, clamped to the image's edge pixels.
    pub fn sample_clamped(&self, u: f64, v: f64) -> f64 {
        self.bilinear(u, v, |i, n| i.clamp(0, n as i64 - 1) as usize)
    }

    fn bilinear(&self, u: f64, v: f64, fold: impl Fn(i64, usize) -> usize) -> f64 {
        let (fu, fv) = (u.floor(), v.floor());
        let (iu, iv) = (fu as i64, fv as i64);
        let (x0, x1) = (fold(iu, self.width), fold(iu + 1, self.width));
        let (z0, z1) = (fold(iv, self.height), fold(iv + 1, self.height));
        crate::noise::diamond_square::bilinear(
            self.pixel(x0, z0),
            self.pixel(x1, z0),
            self.pixel(x0, z1),
            self.pixel(x1, z1),
            u - fu,
            v - fv,
        )
    }

    /// Weight of the image at pixel coordinates `(u, v)` in border mode: 1 well inside, fading
    /// smoothly to 0 at the edge over a band of an eighth of the smaller side (at least 1 pixel),
    /// 0 outside.
    pub fn border_mask(&self, u: f64, v: f64) -> f64 {
        let band = ((self.width.min(self.height) as f64) / 8.0).max(1.0);
        let d = u.min((self.width - 1) as f64 - u).min(v).min((self.height - 1) as f64 - v);
        let t = (d / band).clamp(0.0, 1.0);
        t * t * (3.0 - 2.0 * t)
    }
}

/// A PNG colour type in a designer's words.
fn color_name(color: png::ColorType) -> &'static str {
    match color {
        png::ColorType::Grayscale => "grayscale",
        png::ColorType::Rgb => "RGB",
        png::ColorType::Indexed => "palette (indexed)",
        png::ColorType::GrayscaleAlpha => "grayscale+alpha",
        png::ColorType::Rgba => "RGBA",
    }
}

/// Index `i` folded into `0..n` by mirrored repetition with period `2·(n − 1)`.
#[inline]
fn mirror(i: i64, n: usize) -> usize {
    if n <= 1 {
        return 0;
    }
    let period = 2 * (n as i64 - 1);
    let m = i.rem_euclid(period);
    (if m >= n as i64 { period - m } else { m }) as usize
}

/// Writes a PNG (any colour type and depth, rows packed); errors name the file.
pub(crate) fn write_png(
    path: &Path,
    width: u32,
    height: u32,
    color: png::ColorType,
    depth: png::BitDepth,
    data: &[u8],
) -> Result<(), HeightmapError> {
    let fail = |message: String| HeightmapError::Write { path: path.into(), message };
    let file = File::create(path).map_err(|e| fail(e.to_string()))?;
    let mut encoder = png::Encoder::new(BufWriter::new(file), width, height);
    encoder.set_color(color);
    encoder.set_depth(depth);
    let mut writer = encoder.write_header().map_err(|e| fail(e.to_string()))?;
    writer.write_image_data(data).map_err(|e| fail(e.to_string()))?;
    writer.finish().map_err(|e| fail(e.to_string()))
}

/// Writes `samples` (row-major, `width × height`) as a 16-bit grayscale PNG.
pub fn write_gray16_png(path: &Path, width: u32, height: u32, samples: &[u16]) -> Result<(), HeightmapError> {
    if samples.len() != width as usize * height as usize {
        return Err(HeightmapError::Write {
            path: path.into(),
            message: format!("{} samples for a {width}×{height} image", samples.len()),
        });
    }
    let bytes: Vec<u8> = samples.iter().flat_map(|s| s.to_be_bytes()).collect();
    write_png(path, width, height, png::ColorType::Grayscale, png::BitDepth::Sixteen, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("strata-heightmap-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn png_round_trips_and_normalises() {
        let dir = temp_dir("png");
        let path = dir.join("h.png");
        let samples: Vec<u16> = (0..12).map(|i| i * 1000).collect();
        write_gray16_png(&path, 4, 3, &samples).unwrap();
        let map = Heightmap::load(&path).unwrap();
        assert_eq!((map.width(), map.height()), (4, 3));
        assert_eq!(map.raw_range(), (0.0, 11_000.0));
        assert_eq!(map.pixel(0, 0), -1.0);
        assert_eq!(map.pixel(3, 2), 1.0);
        assert!((map.pixel(1, 1) - (5.0 / 11.0 * 2.0 - 1.0)).abs() < 1e-6);
        // Bilinear between pixels; centred on the origin.
        assert_eq!(map.to_pixel(0.0, 0.0, 2.0), (1.5, 1.0));
        let mid = map.sample_clamped(0.5, 0.0);
        assert!((mid - 0.5 * (map.pixel(0, 0) + map.pixel(1, 0))).abs() < 1e-12);
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn hgt_reads_big_endian_and_fills_voids() {
        let dir = temp_dir("hgt");
        let path = dir.join("N00E000.hgt");
        let mut bytes = Vec::with_capacity(2 * 1201 * 1201);
        for i in 0..1201 * 1201 {
            let v: i16 = if i == 5 { HGT_VOID } else { (i % 1000) as i16 + 100 };
            bytes.extend_from_slice(&v.to_be_bytes());
        }
        std::fs::write(&path, &bytes).unwrap();
        let map = Heightmap::load(&path).unwrap();
        assert_eq!((map.width(), map.height()), (1201, 1201));
        assert_eq!(map.raw_range(), (100.0, 1099.0));
        assert_eq!(map.pixel(5, 0), -1.0, "void takes the lowest sample");
        assert_eq!(map.pixel(999, 0), 1.0);
        std::fs::write(&path, [0u8; 10]).unwrap();
        let e = Heightmap::load(&path).unwrap_err();
        assert!(matches!(e, HeightmapError::HgtSize { len: 10, .. }));
        assert!(e.to_string().contains("N00E000.hgt") && e.to_string().contains("1201"), "{e}");
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn loading_errors_name_the_file() {
        let e = Heightmap::load(Path::new("/nonexistent/dir/map.png")).unwrap_err();
        assert!(matches!(e, HeightmapError::Io { .. }) && e.to_string().contains("map.png"), "{e}");
        let e = Heightmap::load(Path::new("terrain.tiff")).unwrap_err();
        assert!(e.to_string().contains("terrain.tiff") && e.to_string().contains(".png"), "{e}");
        let dir = temp_dir("bad");
        let path = dir.join("rgb.png");
        write_png(&path, 2, 2, png::ColorType::Rgb, png::BitDepth::Eight, &[0; 12]).unwrap();
        let e = Heightmap::load(&path).unwrap_err();
        assert!(matches!(e, HeightmapError::PngFormat { .. }) && e.to_string().contains("grayscale"), "{e}");
        std::fs::write(dir.join("junk.png"), b"not a png").unwrap();
        assert!(matches!(Heightmap::load(&dir.join("junk.png")).unwrap_err(), HeightmapError::Png { .. }));
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn mirrored_tiling_is_continuous_and_the_border_fades() {
        assert_eq!((0..10).map(|i| mirror(i, 4)).collect::<Vec<_>>(), vec![0, 1, 2, 3, 2, 1, 0, 1, 2, 3]);
        assert_eq!(mirror(-1, 4), 1);
        let raw: Vec<f64> = (0..16).map(|i| (i * 7 % 11) as f64).collect();
        let map = Heightmap::from_raw(4, 4, &raw, None).unwrap();
        for i in 0..200 {
            let u = -30.0 + i as f64 * 0.3;
            let step = (map.sample_mirrored(u + 0.01, 1.3) - map.sample_mirrored(u, 1.3)).abs();
            assert!(step < 0.02 * 2.0 + 1e-9, "jump at {u}");
        }
        assert_eq!(map.border_mask(-1.0, 1.0), 0.0);
        assert_eq!(map.border_mask(0.0, 1.5), 0.0);
        assert_eq!(map.border_mask(1.5, 1.5), 1.0);
    }

    #[test]
    fn asc_and_spca_files_load_as_heightmaps() {
        use crate::noise::pca::Pca;
        let dir = temp_dir("asc");
        let asc = dir.join("Tile.ASC");
        std::fs::write(
            &asc,
            "ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 2\nnodata_value -9999\n10 20 -9999\n40 50 60\n",
        )
        .unwrap();
        let map = Heightmap::load(&asc).unwrap();
        assert_eq!((map.width(), map.height(), map.raw_range()), (3, 2, (10.0, 60.0)));
        // The no-data cell took the mean of its neighbours (20 and 60).
        assert!((map.pixel(2, 0) - ((40.0 - 10.0) / 50.0 * 2.0 - 1.0)).abs() < 1e-6);
        let bytes = std::fs::read(&asc).unwrap();
        assert_eq!(Heightmap::from_bytes(&bytes, &asc).unwrap(), map);
        std::fs::write(&asc, "ncols 3\nnrows 2\ncellsize -2\n").unwrap();
        let e = Heightmap::load(&asc).unwrap_err().to_string();
        assert!(e.contains("Tile.ASC") && e.contains("line 3: `cellsize` = `-2`; allowed: a positive number"), "{e}");
        let e = Heightmap::check_len(&asc, MAX_ASC_BYTES + 1).unwrap_err();
        assert!(matches!(e, HeightmapError::AscBytes { .. }), "{e}");

        // A .spca file streams its k-component reconstruction, normalised like any heightmap.
        let (rows, cols) = (12, 9);
        let data: Vec<f64> = (0..rows * cols).map(|i| ((i * 37 % 23) as f64).sin() * 5.0 + (i / cols) as f64).collect();
        let pca = Pca::fit(rows, cols, &data).unwrap();
        let model = PcaModel::new(&pca, &data, 3, 1.0).unwrap();
        let path = dir.join("m.spca");
        model.save(&path).unwrap();
        let map = Heightmap::load(&path).unwrap();
        let expected = Heightmap::from_raw(cols, rows, &model.heights(), None).unwrap();
        assert_eq!(map, expected);
        assert_eq!((map.width(), map.height()), (cols, rows));
        std::fs::write(&path, b"STRATAPC").unwrap();
        let e = Heightmap::load(&path).unwrap_err().to_string();
        assert!(e.contains("m.spca") && e.contains("length is 8 bytes"), "{e}");
        std::fs::remove_dir_all(dir).ok();
    }

    /// CRC-32 of PNG chunks (type and data).
    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in bytes {
            crc ^= b as u32;
            for _ in 0..8 {
                crc = if crc & 1 != 0 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
            }
        }
        !crc
    }

    /// A PNG that is only a signature, a header and no pixel data, claiming `width × height` 16-bit gray pixels.
    fn png_header_only(width: u32, height: u32) -> Vec<u8> {
        let mut ihdr = b"IHDR".to_vec();
        ihdr.extend_from_slice(&width.to_be_bytes());
        ihdr.extend_from_slice(&height.to_be_bytes());
        ihdr.extend_from_slice(&[16, 0, 0, 0, 0]);
        let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
        png.extend_from_slice(&13u32.to_be_bytes());
        png.extend_from_slice(&ihdr);
        png.extend_from_slice(&crc32(&ihdr).to_be_bytes());
        // An empty first data chunk: the decoder has read the whole header once it meets it.
        png.extend_from_slice(&0u32.to_be_bytes());
        png.extend_from_slice(b"IDAT");
        png.extend_from_slice(&crc32(b"IDAT").to_be_bytes());
        png
    }

    #[test]
    fn oversized_headers_are_refused_before_decoding() {
        let dir = temp_dir("huge");
        let path = dir.join("huge.png");
        std::fs::write(&path, png_header_only(1 << 30, 1 << 30)).unwrap();
        let e = Heightmap::load(&path).unwrap_err();
        assert!(matches!(e, HeightmapError::TooLarge { .. }), "{e}");
        assert!(
            e.to_string().ends_with("1073741824×1073741824 pixels is too large; allowed: at most 8192×8192"),
            "{e}"
        );
        let e = Heightmap::from_png_bytes(&png_header_only(8193, 1), Path::new("wide.png")).unwrap_err();
        assert_eq!(e.to_string(), "heightmap `wide.png`: 8193×1 pixels is too large; allowed: at most 8192×8192");
        // A real image one pixel over the limit, and one at it (the header passes; the data decode).
        write_gray16_png(&path, 1, MAX_HEIGHTMAP_SIDE + 1, &vec![7; MAX_HEIGHTMAP_SIDE as usize + 1]).unwrap();
        assert!(matches!(Heightmap::load(&path).unwrap_err(), HeightmapError::TooLarge { width: 1, height: 8193, .. }));
        write_gray16_png(&path, MAX_HEIGHTMAP_SIDE, 2, &vec![7; 2 * MAX_HEIGHTMAP_SIDE as usize]).unwrap();
        assert_eq!(Heightmap::load(&path).unwrap().width(), MAX_HEIGHTMAP_SIDE as usize);
        // A header with no image data after it is an error, not a panic.
        assert!(matches!(
            Heightmap::from_png_bytes(&png_header_only(4, 4), &path).unwrap_err(),
            HeightmapError::Png { .. }
        ));
        // An .hgt whose size is no tile is refused from its size alone.
        let hgt = dir.join("big.hgt");
        std::fs::File::create(&hgt).unwrap().set_len(1 << 40).unwrap();
        let e = Heightmap::load(&hgt).unwrap_err();
        assert!(matches!(e, HeightmapError::HgtSize { len: 1_099_511_627_776, .. }), "{e}");
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn only_regular_files_are_read() {
        let dir = temp_dir("kinds");
        let folder = dir.join("folder.png");
        std::fs::create_dir_all(&folder).unwrap();
        let e = Heightmap::load(&folder).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("heightmap `{}`: is a folder; allowed: a regular .png, .hgt, .asc or .spca file", folder.display())
        );
        #[cfg(unix)]
        {
            for dev in ["/dev/zero", "/dev/null"] {
                let link = dir.join(format!("{}.hgt", &dev[5..]));
                std::os::unix::fs::symlink(dev, &link).unwrap();
                let e = Heightmap::load(&link).unwrap_err();
                assert!(matches!(e, HeightmapError::NotAFile { found: "a device", .. }), "{e}");
                let link = dir.join(format!("{}.png", &dev[5..]));
                std::os::unix::fs::symlink(dev, &link).unwrap();
                assert!(matches!(Heightmap::load(&link).unwrap_err(), HeightmapError::NotAFile { .. }));
            }
            let fifo = dir.join("pipe.png");
            let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
            // SAFETY: `c` is a valid NUL-terminated path.
            assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
            // No writer ever opens the FIFO: opening it for read would block forever.
            let e = Heightmap::load(&fifo).unwrap_err();
            assert!(e.to_string().contains("is a FIFO (named pipe)"), "{e}");
        }
        std::fs::remove_dir_all(dir).ok();
    }
}
