//! Real heightmaps as a height source: 16-bit grayscale PNG or SRTM `.hgt` tiles.
//!
//! Samples are normalised to `[-1, 1]` (lowest sample → −1, highest → +1) so a heightmap blends
//! with the noise sources like any other; the preset's `amplitude` sets the relief. SRTM voids
//! (−32768) take the lowest valid sample. The image is centred on the world origin, one pixel per
//! `heightmap_cell_size` voxels, read with bilinear interpolation; beyond its extent it is either
//! tiled with mirroring (period `2·(W − 1)` pixels, so tiles meet without steps) or bordered by
//! generated terrain, faded over a band inside the image edge ([`Heightmap::border_mask`]).
//!
//! Loading errors are typed and name the file and what is allowed.
//!
//! May use: `base`, `preset` and the other `noise` modules.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why a heightmap could not be read or written.
#[derive(Debug, Error)]
pub enum HeightmapError {
    #[error("heightmap `{path}`: cannot read the file: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("heightmap `{path}`: not a readable PNG ({message})")]
    Png { path: PathBuf, message: String },
    #[error("heightmap `{path}`: {found} PNG is not supported; allowed: 8- or 16-bit grayscale PNG")]
    PngFormat { path: PathBuf, found: String },
    #[error("heightmap `{path}`: {len} bytes is not an SRTM tile; allowed: 1201×1201 or 3601×3601 big-endian 16-bit samples ({} or {} bytes)", 2 * 1201 * 1201, 2 * 3601 * 3601)]
    HgtSize { path: PathBuf, len: u64 },
    #[error("heightmap `{path}`: unknown file type; allowed: a .png or .hgt file")]
    Extension { path: PathBuf },
    #[error("heightmap `{path}`: every sample is void")]
    AllVoid { path: PathBuf },
    #[error("heightmap `{path}`: cannot write: {message}")]
    Write { path: PathBuf, message: String },
}

/// The void marker of SRTM tiles.
pub const HGT_VOID: i16 = -32768;

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
    /// Loads a `.png` (8- or 16-bit grayscale) or `.hgt` (SRTM) file, by extension.
    pub fn load(path: &Path) -> Result<Self, HeightmapError> {
        let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("png") => Self::load_png(path),
            Some("hgt") => Self::load_hgt(path),
            _ => Err(HeightmapError::Extension { path: path.into() }),
        }
    }

    fn load_png(path: &Path) -> Result<Self, HeightmapError> {
        let io = |source| HeightmapError::Io { path: path.into(), source };
        let bad = |e: png::DecodingError| HeightmapError::Png { path: path.into(), message: e.to_string() };
        let mut decoder = png::Decoder::new(BufReader::new(File::open(path).map_err(io)?));
        decoder.set_transformations(png::Transformations::EXPAND);
        let mut reader = decoder.read_info().map_err(bad)?;
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
                    found: format!("{color:?} {}-bit", depth as u8),
                });
            }
        };
        Self::from_raw(w, h, &raw, None).ok_or_else(|| HeightmapError::AllVoid { path: path.into() })
    }

    fn load_hgt(path: &Path) -> Result<Self, HeightmapError> {
        let io = |source| HeightmapError::Io { path: path.into(), source };
        let mut bytes = Vec::new();
        File::open(path).and_then(|mut f| f.read_to_end(&mut bytes)).map_err(io)?;
        let side = match bytes.len() {
            n if n == 2 * 1201 * 1201 => 1201,
            n if n == 2 * 3601 * 3601 => 3601,
            n => return Err(HeightmapError::HgtSize { path: path.into(), len: n as u64 }),
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
}
