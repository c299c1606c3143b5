//! Preview images of a preset, for tuning without starting Godot.
//!
//! [`render_preview`] writes, into one folder:
//! * `height.png` — 16-bit grayscale surface height, lowest sample black, highest white;
//! * `height.json` — what the grayscale means: world units per pixel, height range, centre;
//!   and how real the land looks ([`crate::gen3d::realism`]: `spectrum_slope` β,
//!   `slope_mean_deg`, `slope_p90_deg`, on a 512² voxel square at the centre);
//! * `relief.png` — shaded relief (light from the north-west) in biome colours, water in blue;
//! * `biomes.png` — the biome map in the table's colours;
//! * `caves.png` — a vertical x–y slice through the world at the centre's z, one pixel per
//!   voxel, in block colours (stone, ores, water; air as sky), from [`Generator::generate_box`].
//!
//! For live previews (the editor dock, the game's "customize world" screen) the same pictures
//! are made in memory, off the main thread, with a cancel check between rows:
//! [`preview_maps`] (height, biomes, structures) and [`cave_slice`] (a horizontal slice).
//!
//! Map images have x to the right and z downwards; pixel `(i, k)` shows world
//! `(cx + (i + 0.5 − n/2)·cell, cz + (k + 0.5 − n/2)·cell)`.
//!
//! May use: `base`, `preset`, `noise` (PNG output), `gen3d::pipeline` (it only calls the
//! generator; nothing in `gen3d` calls it).

use crate::base::block::{AIR, block_info};
use crate::base::coords::IVec3;
use crate::gen3d::pipeline::{Generator, GeneratorError, GeneratorOptions};
use crate::gen3d::realism::{REALISM_SIDE, measure};
use crate::noise::heightmap::{HeightmapError, write_png};
use crate::preset::model::WorldPreset;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The files one preview wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreviewFiles {
    pub height_png: PathBuf,
    pub height_json: PathBuf,
    pub relief_png: PathBuf,
    pub biomes_png: PathBuf,
    pub caves_png: PathBuf,
}

/// Why a preview could not be made.
#[derive(Debug, Error)]
pub enum PreviewError {
    #[error("preview: {field} = {value}; allowed: {allowed}")]
    Argument { field: &'static str, value: String, allowed: &'static str },
    #[error("preview: {0}")]
    Generator(#[from] GeneratorError),
    #[error("preview: cannot write `{path}`: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("preview: {0}")]
    Image(#[from] HeightmapError),
}

/// Largest preview edge in pixels.
pub const MAX_SIZE_PX: u32 = 4096;
/// Tallest cave slice in voxels.
const MAX_SLICE_HEIGHT: i32 = 1024;
const SKY: [f32; 3] = [0.72, 0.84, 0.96];

/// Renders the preview images of `preset` around world `center` (x, z): `size_px × size_px`
/// pixels of `cell` world units each, written into `out_dir` (created if missing).
pub fn render_preview(
    preset: &WorldPreset,
    center: (i32, i32),
    size_px: u32,
    cell: f32,
    out_dir: &Path,
) -> Result<PreviewFiles, PreviewError> {
    render_preview_in(preset, None, center, size_px, cell, out_dir)
}

/// [`render_preview`] resolving a relative heightmap path against `base_dir` (the preset file's
/// folder), as [`Generator::with_options`] does with a `base_dir`.
pub fn render_preview_in(
    preset: &WorldPreset,
    base_dir: Option<&Path>,
    center: (i32, i32),
    size_px: u32,
    cell: f32,
    out_dir: &Path,
) -> Result<PreviewFiles, PreviewError> {
    if !(1..=MAX_SIZE_PX).contains(&size_px) {
        return Err(PreviewError::Argument {
            field: "size_px",
            value: size_px.to_string(),
            allowed: "1..=4096 pixels",
        });
    }
    if !(cell.is_finite() && cell > 0.0 && cell <= 1024.0) {
        return Err(PreviewError::Argument {
            field: "cell",
            value: cell.to_string(),
            allowed: "a number of world units per pixel in (0, 1024]",
        });
    }
    let generator = Generator::with_options(preset, GeneratorOptions::default().base_dir(base_dir))?;
    std::fs::create_dir_all(out_dir).map_err(|source| PreviewError::Io { path: out_dir.into(), source })?;
    let files = PreviewFiles {
        height_png: out_dir.join("height.png"),
        height_json: out_dir.join("height.json"),
        relief_png: out_dir.join("relief.png"),
        biomes_png: out_dir.join("biomes.png"),
        caves_png: out_dir.join("caves.png"),
    };
    let n = size_px as usize;
    let cell = cell as f64;
    let origin = (center.0 as f64 + (0.5 - n as f64 / 2.0) * cell, center.1 as f64 + (0.5 - n as f64 / 2.0) * cell);
    let mut samples = Vec::with_capacity(n * n);
    generator.terrain().sample_grid(origin.0, origin.1, cell, n, n, &mut samples);
    let heights: Vec<f64> = samples.iter().map(|s| s.height).collect();
    let lo = heights.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = heights.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let span = if hi > lo { hi - lo } else { 1.0 };

    // height.png + height.json
    let gray: Vec<u8> =
        heights.iter().flat_map(|h| (((h - lo) / span * 65535.0).round() as u16).to_be_bytes()).collect();
    write_png(&files.height_png, size_px, size_px, png::ColorType::Grayscale, png::BitDepth::Sixteen, &gray)?;
    let biomes = generator.biomes();
    let names: Vec<String> =
        biomes.iter().map(|b| format!("\"{}\"", b.name.replace('\\', "\\\\").replace('"', "\\\""))).collect();
    let realism = measure(generator.terrain(), center, REALISM_SIDE);
    let json = format!(
        "{{\n  \"cell_size\": {cell},\n  \"size_px\": {size_px},\n  \"center\": [{}, {}],\n  \"origin\": [{}, {}],\n  \"min_height\": {lo},\n  \"max_height\": {hi},\n  \"sea_level\": {},\n  \"seed\": {},\n  \"biomes\": [{}],\n  \"spectrum_slope\": {},\n  \"slope_mean_deg\": {},\n  \"slope_p90_deg\": {}\n}}\n",
        center.0,
        center.1,
        origin.0,
        origin.1,
        preset.water.sea_level,
        preset.seed,
        names.join(", "),
        realism.spectrum_slope.map_or("null".to_string(), |b| b.to_string()),
        realism.slope_mean_deg,
        realism.slope_p90_deg
    );
    std::fs::write(&files.height_json, json)
        .map_err(|source| PreviewError::Io { path: files.height_json.clone(), source })?;

    // relief.png and biomes.png
    let sea = preset.water.sea_level as f64;
    let water = preset.water.enabled;
    let at =
        |i: isize, k: isize| heights[(k.clamp(0, n as isize - 1) as usize) * n + i.clamp(0, n as isize - 1) as usize];
    let light = {
        let l = [-1.0f64, 1.5, -1.0];
        let len = (l[0] * l[0] + l[1] * l[1] + l[2] * l[2]).sqrt();
        [l[0] / len, l[1] / len, l[2] / len]
    };
    let mut relief = Vec::with_capacity(n * n * 3);
    let mut biome_map = Vec::with_capacity(n * n * 3);
    for k in 0..n as isize {
        for i in 0..n as isize {
            let s = samples[k as usize * n + i as usize];
            let color = biomes[s.biome as usize].color.map(|c| c as f64);
            biome_map.extend(color.map(to_u8));
            let dx = (at(i + 1, k) - at(i - 1, k)) / (2.0 * cell);
            let dz = (at(i, k + 1) - at(i, k - 1)) / (2.0 * cell);
            let norm = (dx * dx + 1.0 + dz * dz).sqrt();
            let shade = ((-dx * light[0] + light[1] - dz * light[2]) / norm).clamp(0.0, 1.0) * 0.75 + 0.25;
            let rgb = if water && s.height < sea {
                let depth = ((sea - s.height) / 32.0).clamp(0.0, 1.0);
                [0.25 - 0.15 * depth, 0.45 - 0.2 * depth, 0.85 - 0.25 * depth]
            } else {
                color.map(|c| c * shade)
            };
            relief.extend(rgb.map(to_u8));
        }
    }
    write_png(&files.relief_png, size_px, size_px, png::ColorType::Rgb, png::BitDepth::Eight, &relief)?;
    write_png(&files.biomes_png, size_px, size_px, png::ColorType::Rgb, png::BitDepth::Eight, &biome_map)?;

    // caves.png: x–y slice at the centre's z, one voxel per pixel.
    let x0 = center.0 - (size_px / 2) as i32;
    let z = center.1;
    let mut columns = Vec::with_capacity(n);
    generator.columns_into(x0, z, n, 1, &mut columns);
    let top = columns.iter().map(|c| c.surface).max().unwrap_or(0).max(preset.water.sea_level) + 8;
    let bottom = (columns.iter().map(|c| c.surface).min().unwrap_or(0) - n as i32).max(top - MAX_SLICE_HEIGHT);
    let rows = (top - bottom).max(1);
    let slice = generator.generate_box(IVec3::new(x0, bottom, z), IVec3::new(size_px as i32, rows, 1));
    let mut caves = Vec::with_capacity(n * rows as usize * 3);
    for row in 0..rows {
        let y = top - 1 - row;
        for i in 0..size_px as i32 {
            let id = slice.get(IVec3::new(x0 + i, y, z)).unwrap_or(AIR);
            let c = if id == AIR { SKY } else { block_info(id).color };
            caves.extend(c.map(|v| to_u8(v as f64)));
        }
    }
    write_png(&files.caves_png, size_px, rows as u32, png::ColorType::Rgb, png::BitDepth::Eight, &caves)?;
    Ok(files)
}

/// One RGB image in memory: `rgb` holds `width × height` pixels of three bytes, row by row
/// from the top.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreviewImage {
    pub width: u32,
    pub height: u32,
    pub rgb: Vec<u8>,
}

/// The map images of a live preview, all `size_px × size_px` over the same ground.
#[derive(Clone, Debug, PartialEq)]
pub struct PreviewMaps {
    /// Surface height in grey (lowest black, highest white), water below sea level in blue.
    pub height: PreviewImage,
    /// The biome map in the table's colours, shaded by the relief.
    pub biomes: PreviewImage,
    /// Shaded relief with every structure's footprint in red and, while trees are on and the
    /// picture spans at most [`TREE_PREVIEW_SPAN`] voxels, a dark green dot at every tree's trunk.
    pub structures: PreviewImage,
    /// Lowest and highest surface height in the picture.
    pub height_range: (f64, f64),
    /// The structures whose footprints meet the picture.
    pub placements: Vec<crate::gen3d::structures::Placement>,
}

/// Rows sampled between two cancel checks.
const ROWS_PER_CHECK: usize = 8;
const STRUCTURE_RED: [f64; 3] = [0.9, 0.12, 0.1];
const TREE_GREEN: [f64; 3] = [0.05, 0.25, 0.05];
/// The widest picture (voxels a side) whose trees are drawn: beyond it a dot per tree would be
/// a green blur and placing them a long wait.
pub const TREE_PREVIEW_SPAN: f64 = 4096.0;
/// Rows of voxels whose trees are placed between two cancel checks.
const TREE_ROWS_PER_CHECK: i32 = 256;
const CAVE_AIR: [f32; 3] = [0.05, 0.05, 0.07];

/// The world rectangle a live preview shows: `size_px × size_px` pixels of `cell` voxels
/// around `center`; checked like [`render_preview`]'s arguments.
fn check_area(size_px: u32, cell: f32) -> Result<(), PreviewError> {
    if !(1..=MAX_SIZE_PX).contains(&size_px) {
        return Err(PreviewError::Argument {
            field: "size_px",
            value: size_px.to_string(),
            allowed: "1..=4096 pixels",
        });
    }
    if !(cell.is_finite() && cell > 0.0 && cell <= 1024.0) {
        return Err(PreviewError::Argument {
            field: "cell",
            value: cell.to_string(),
            allowed: "a number of world units per pixel in (0, 1024]",
        });
    }
    Ok(())
}

/// The map images of `generator`'s world around `center` (x, z): `size_px × size_px` pixels
/// of `cell` voxels, the same ground [`render_preview`] shows. `Ok(None)` when `cancelled`
/// returned true (it is asked every few rows, so a stale job stops early).
pub fn preview_maps(
    generator: &Generator,
    center: (i32, i32),
    size_px: u32,
    cell: f32,
    cancelled: &dyn Fn() -> bool,
) -> Result<Option<PreviewMaps>, PreviewError> {
    check_area(size_px, cell)?;
    let n = size_px as usize;
    let cell = cell as f64;
    let origin = (center.0 as f64 + (0.5 - n as f64 / 2.0) * cell, center.1 as f64 + (0.5 - n as f64 / 2.0) * cell);
    let mut samples = Vec::with_capacity(n * n);
    let mut band = Vec::new();
    for k0 in (0..n).step_by(ROWS_PER_CHECK) {
        if cancelled() {
            return Ok(None);
        }
        let rows = ROWS_PER_CHECK.min(n - k0);
        band.clear();
        generator.terrain().sample_grid(origin.0, origin.1 + k0 as f64 * cell, cell, n, rows, &mut band);
        samples.extend_from_slice(&band);
    }
    let heights: Vec<f64> = samples.iter().map(|s| s.height).collect();
    let lo = heights.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = heights.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let span = if hi > lo { hi - lo } else { 1.0 };
    let preset = generator.preset();
    let (water, sea) = (preset.water.enabled, preset.water.sea_level as f64);
    let biomes = generator.biomes();
    let at =
        |i: isize, k: isize| heights[(k.clamp(0, n as isize - 1) as usize) * n + i.clamp(0, n as isize - 1) as usize];
    let light = {
        let l = [-1.0f64, 1.5, -1.0];
        let len = (l[0] * l[0] + l[1] * l[1] + l[2] * l[2]).sqrt();
        [l[0] / len, l[1] / len, l[2] / len]
    };
    let water_rgb = |h: f64| {
        let depth = ((sea - h) / 32.0).clamp(0.0, 1.0);
        [0.25 - 0.15 * depth, 0.45 - 0.2 * depth, 0.85 - 0.25 * depth]
    };
    let mut height = Vec::with_capacity(n * n * 3);
    let mut biome_map = Vec::with_capacity(n * n * 3);
    let mut relief = Vec::with_capacity(n * n * 3);
    for k in 0..n as isize {
        for i in 0..n as isize {
            let s = samples[k as usize * n + i as usize];
            let under_water = water && s.height < sea;
            let grey = (s.height - lo) / span;
            height.extend((if under_water { water_rgb(s.height) } else { [grey; 3] }).map(to_u8));
            let dx = (at(i + 1, k) - at(i - 1, k)) / (2.0 * cell);
            let dz = (at(i, k + 1) - at(i, k - 1)) / (2.0 * cell);
            let norm = (dx * dx + 1.0 + dz * dz).sqrt();
            let shade = ((-dx * light[0] + light[1] - dz * light[2]) / norm).clamp(0.0, 1.0) * 0.75 + 0.25;
            let color = biomes.get(s.biome as usize).map(|b| b.color.map(|c| c as f64)).unwrap_or([0.5; 3]);
            biome_map.extend(color.map(|c| to_u8(c * (0.55 + 0.45 * shade))));
            relief.extend((if under_water { water_rgb(s.height) } else { color.map(|c| c * shade) }).map(to_u8));
        }
    }
    if cancelled() {
        return Ok(None);
    }
    // Structures: their footprints (x–z boxes) drawn over the relief.
    let (x0, z0) = (origin.0 - 0.5 * cell, origin.1 - 0.5 * cell);
    let (x1, z1) = (x0 + n as f64 * cell, z0 + n as f64 * cell);
    let clamp_i32 = |v: f64| v.clamp(-(1 << 30) as f64, (1 << 30) as f64) as i32;
    let placements = if preset.structures.is_empty() {
        Vec::new()
    } else {
        generator
            .structures_in((clamp_i32(x0.floor()), clamp_i32(z0.floor())), (clamp_i32(x1.ceil()), clamp_i32(z1.ceil())))
    };
    let mut structures = relief;
    // Trees: a dot at each trunk, under the structures (which win where both stand).
    if preset.trees.enabled && n as f64 * cell <= TREE_PREVIEW_SPAN {
        let (tx0, tx1) = (clamp_i32(x0.floor()), clamp_i32(x1.ceil()));
        let (tz0, tz1) = (clamp_i32(z0.floor()), clamp_i32(z1.ceil()));
        let mut z = tz0;
        while z < tz1 {
            if cancelled() {
                return Ok(None);
            }
            let z_end = (z + TREE_ROWS_PER_CHECK).min(tz1);
            for p in generator.trees_in((tx0, z), (tx1, z_end)) {
                let t = p.trunk();
                // Each tree once: in the band holding its trunk.
                if !(z..z_end).contains(&t.z) {
                    continue;
                }
                let (i, k) = (((t.x as f64 + 0.5 - x0) / cell).floor(), ((t.z as f64 + 0.5 - z0) / cell).floor());
                if (0.0..n as f64).contains(&i) && (0.0..n as f64).contains(&k) {
                    let at = (k as usize * n + i as usize) * 3;
                    structures[at..at + 3].copy_from_slice(&TREE_GREEN.map(to_u8));
                }
            }
            z = z_end;
        }
    }
    for p in &placements {
        let px = |x: f64, o: f64| ((x - o) / cell).floor();
        let (i0, i1) = (px(p.min.x as f64, x0).max(0.0), px(p.max().x as f64, x0).min(n as f64 - 1.0));
        let (k0, k1) = (px(p.min.z as f64, z0).max(0.0), px(p.max().z as f64, z0).min(n as f64 - 1.0));
        for k in k0 as usize..=k1.max(k0) as usize {
            for i in i0 as usize..=i1.max(i0) as usize {
                if i < n && k < n {
                    let at = (k * n + i) * 3;
                    structures[at..at + 3].copy_from_slice(&STRUCTURE_RED.map(to_u8));
                }
            }
        }
    }
    let image = |rgb| PreviewImage { width: size_px, height: size_px, rgb };
    Ok(Some(PreviewMaps {
        height: image(height),
        biomes: image(biome_map),
        structures: image(structures),
        height_range: (lo, hi),
        placements,
    }))
}

/// A horizontal slice through `generator`'s world at height `y`: `size_px × size_px` voxels
/// around `center` (x, z), one voxel per pixel, in block colours; cave air is near black, open
/// air above the ground sky blue. `Ok(None)` when `cancelled` returned true.
pub fn cave_slice(
    generator: &Generator,
    center: (i32, i32),
    size_px: u32,
    y: i32,
    cancelled: &dyn Fn() -> bool,
) -> Result<Option<PreviewImage>, PreviewError> {
    check_area(size_px, 1.0)?;
    let n = size_px as i32;
    let (x0, z0) = (center.0.saturating_sub(n / 2), center.1.saturating_sub(n / 2));
    let mut rgb = Vec::with_capacity((n * n * 3) as usize);
    let mut columns = Vec::new();
    for k0 in (0..n).step_by(ROWS_PER_CHECK) {
        if cancelled() {
            return Ok(None);
        }
        let rows = (ROWS_PER_CHECK as i32).min(n - k0);
        let slab = generator.generate_box(IVec3::new(x0, y, z0 + k0), IVec3::new(n, 1, rows));
        columns.clear();
        generator.columns_into(x0, z0 + k0, n as usize, rows as usize, &mut columns);
        for k in 0..rows {
            for i in 0..n {
                let id = slab.get(IVec3::new(x0 + i, y, z0 + k0 + k)).unwrap_or(AIR);
                let open_air = columns.get((k * n + i) as usize).is_some_and(|c| y >= c.surface);
                let c = match id {
                    AIR if open_air => SKY,
                    AIR => CAVE_AIR,
                    id => block_info(id).color,
                };
                rgb.extend(c.map(|v| to_u8(v as f64)));
            }
        }
    }
    Ok(Some(PreviewImage { width: size_px, height: size_px, rgb }))
}

fn to_u8(v: f64) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0).round() as u8
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn read_png(path: &Path) -> (u32, u32, png::ColorType, png::BitDepth) {
        let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
        let reader = decoder.read_info().unwrap();
        let info = reader.info();
        (info.width, info.height, info.color_type, info.bit_depth)
    }

    #[test]
    fn preview_writes_every_image_with_the_right_size() {
        let dir = std::env::temp_dir().join(format!("strata-preview-{}", std::process::id()));
        let files = render_preview(&WorldPreset::default(), (100, -50), 48, 8.0, &dir).unwrap();
        assert_eq!(read_png(&files.height_png), (48, 48, png::ColorType::Grayscale, png::BitDepth::Sixteen));
        assert_eq!(read_png(&files.relief_png), (48, 48, png::ColorType::Rgb, png::BitDepth::Eight));
        assert_eq!(read_png(&files.biomes_png), (48, 48, png::ColorType::Rgb, png::BitDepth::Eight));
        let (w, h, _, _) = read_png(&files.caves_png);
        assert_eq!(w, 48);
        assert!(h > 48, "the slice reaches from below the lowest surface to above the highest: {h}");

        // The JSON parses (RON reads JSON objects) and states the grid and height range.
        let text = std::fs::read_to_string(&files.height_json).unwrap();
        let json: HashMap<String, ron::Value> = ron::from_str(&text).unwrap();
        let num = |k: &str| match &json[k] {
            ron::Value::Number(n) => n.into_f64(),
            other => panic!("{k}: {other:?}"),
        };
        assert_eq!(num("cell_size"), 8.0);
        assert_eq!(num("size_px"), 48.0);
        let g = Generator::new(&WorldPreset::default()).unwrap();
        let corner = g.height_f(100.0 - 23.5 * 8.0, -50.0 - 23.5 * 8.0);
        assert!(num("min_height") <= corner && corner <= num("max_height"));
        assert!(num("min_height") < num("max_height"));
        // How real the land looks, measured at the centre.
        let beta = num("spectrum_slope");
        assert!(beta > 1.0 && beta < 6.0, "β {beta}");
        assert!(num("slope_mean_deg") > 0.0 && num("slope_p90_deg") >= num("slope_mean_deg"));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn live_preview_images_match_the_files_and_stop_when_cancelled() {
        let g = Generator::new(&WorldPreset::default()).unwrap();
        let maps = preview_maps(&g, (100, -50), 32, 8.0, &|| false).unwrap().unwrap();
        for img in [&maps.height, &maps.biomes, &maps.structures] {
            assert_eq!((img.width, img.height, img.rgb.len()), (32, 32, 32 * 32 * 3));
        }
        let corner = g.height_f(100.0 - 15.5 * 8.0, -50.0 - 15.5 * 8.0);
        assert!(maps.height_range.0 <= corner && corner <= maps.height_range.1);
        // Same inputs, same pixels (deterministic); another seed, another picture.
        assert_eq!(preview_maps(&g, (100, -50), 32, 8.0, &|| false).unwrap().unwrap(), maps);
        let other = Generator::new(&crate::preset::fingerprint::with_new_seed(&WorldPreset::default(), 9)).unwrap();
        assert_ne!(preview_maps(&other, (100, -50), 32, 8.0, &|| false).unwrap().unwrap().height, maps.height);
        assert!(preview_maps(&g, (0, 0), 32, 8.0, &|| true).unwrap().is_none());
        assert!(cave_slice(&g, (0, 0), 32, -20, &|| true).unwrap().is_none());

        // The slice shows the voxels of the world at that height.
        let y = -20;
        let slice = cave_slice(&g, (10, 20), 16, y, &|| false).unwrap().unwrap();
        assert_eq!((slice.width, slice.height, slice.rgb.len()), (16, 16, 16 * 16 * 3));
        let (x0, z0) = (10 - 8, 20 - 8);
        for (k, i) in [(0, 0), (5, 11), (15, 15)] {
            let id = g.voxel_at(IVec3::new(x0 + i, y, z0 + k));
            let px = &slice.rgb[((k * 16 + i) * 3) as usize..][..3];
            if id != AIR {
                assert_eq!(px, block_info(id).color.map(|v| to_u8(v as f64)), "voxel ({i}, {k})");
            }
        }
    }

    #[test]
    fn structures_are_drawn_where_they_stand() {
        let mut p = WorldPreset::default();
        p.structures
            .rules
            .push(crate::preset::model::StructureRule { structure: "cottage".into(), ..Default::default() });
        let g = Generator::new(&p).unwrap();
        let maps = preview_maps(&g, (0, 0), 128, 8.0, &|| false).unwrap().unwrap();
        assert!(!maps.placements.is_empty(), "a default rule places structures within 1,024 voxels");
        let red = STRUCTURE_RED.map(to_u8);
        let first = &maps.placements[0];
        let (x0, z0) = (-512.0, -512.0);
        let (i, k) = (((first.min.x as f64 - x0) / 8.0).floor(), ((first.min.z as f64 - z0) / 8.0).floor());
        if (0.0..128.0).contains(&i) && (0.0..128.0).contains(&k) {
            let at = ((k as usize) * 128 + i as usize) * 3;
            assert_eq!(&maps.structures.rgb[at..at + 3], &red);
        }
        assert_ne!(maps.structures, maps.biomes);
    }

    #[test]
    fn trees_are_dark_green_dots_at_their_trunks() {
        let mut p = WorldPreset::default();
        p.trees.enabled = true;
        let g = Generator::new(&p).unwrap();
        let off = Generator::new(&WorldPreset::default()).unwrap();
        // 256 × 256 voxels at 2 voxels a pixel around the origin (a forest in the default world).
        let maps = preview_maps(&g, (0, 0), 128, 2.0, &|| false).unwrap().unwrap();
        let plain = preview_maps(&off, (0, 0), 128, 2.0, &|| false).unwrap().unwrap();
        assert_eq!(maps.biomes, plain.biomes, "trees change only the structures picture");
        let trees = g.trees_in((-129, -129), (129, 129));
        let green = TREE_GREEN.map(to_u8);
        let (x0, z0) = (-128.0, -128.0);
        let mut drawn = 0;
        for t in trees.iter().map(|p| p.trunk()) {
            let (i, k) = (((t.x as f64 + 0.5 - x0) / 2.0).floor(), ((t.z as f64 + 0.5 - z0) / 2.0).floor());
            if (0.0..128.0).contains(&i) && (0.0..128.0).contains(&k) {
                let at = ((k as usize) * 128 + i as usize) * 3;
                assert_eq!(&maps.structures.rgb[at..at + 3], &green, "tree at {t:?}");
                drawn += 1;
            }
        }
        assert!(drawn > 20, "{drawn} trees drawn");
        let greens = maps.structures.rgb.chunks_exact(3).filter(|c| *c == green).count();
        assert_eq!(plain.structures.rgb.chunks_exact(3).filter(|c| *c == green).count(), 0);
        assert!(greens <= drawn, "{greens} dots for {drawn} trees");
        // Cancelled at the last check (the one before placing trees): no picture.
        use std::sync::atomic::{AtomicUsize, Ordering};
        let calls = AtomicUsize::new(0);
        let count = || calls.fetch_add(1, Ordering::Relaxed) == usize::MAX;
        assert!(preview_maps(&g, (0, 0), 128, 2.0, &count).unwrap().is_some());
        let last = calls.load(Ordering::Relaxed);
        let seen = AtomicUsize::new(0);
        let late = || seen.fetch_add(1, Ordering::Relaxed) + 1 == last;
        assert!(preview_maps(&g, (0, 0), 128, 2.0, &late).unwrap().is_none());
    }

    #[test]
    fn bad_arguments_are_clear_errors() {
        let dir = std::env::temp_dir();
        let e = render_preview(&WorldPreset::default(), (0, 0), 0, 1.0, &dir).unwrap_err();
        assert!(e.to_string().contains("size_px") && e.to_string().contains("4096"), "{e}");
        let e = render_preview(&WorldPreset::default(), (0, 0), 8, f32::NAN, &dir).unwrap_err();
        assert!(e.to_string().contains("cell"), "{e}");
        let mut p = WorldPreset::default();
        p.height.octaves = 0;
        assert!(matches!(render_preview(&p, (0, 0), 8, 1.0, &dir).unwrap_err(), PreviewError::Generator(_)));
    }
}
