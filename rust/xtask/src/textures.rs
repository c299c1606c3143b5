//! `cargo xtask textures [--check]`: the default block textures, 16×16 pixel art drawn from
//! seeded noise, written as RGBA PNGs into `godot_project/addons/strata/textures/blocks/`, plus a
//! contact sheet (`docs/images/block_textures.png`, 8× with a gap between tiles). The PNGs are
//! committed; this file is their source, and `--check` (run by the unit tests too) fails when a
//! committed file differs from what the source draws.
//!
//! Each texture is a pure function of its name: a base colour per pixel varied by value noise
//! (a hash of the name and the pixel, [`strata_core::base::rng`]), then the pattern that makes
//! the block read as itself (grass blades, sandstone layers, ore clusters, log rings, planks,
//! glass frame, leaf holes, torch).
//!
//! May use: `paths`, `error`, `strata_core::base::rng`, the `png` crate.

use crate::error::{Error, Result};
use crate::paths;
use std::path::{Path, PathBuf};
use strata_core::base::rng::{hash2, hash3, unit_f32};

/// Pixels on a texture side.
pub const SIDE: usize = 16;

/// One texture: `SIDE²` RGBA pixels, row by row from the top.
pub type Pixels = Vec<[u8; 4]>;

/// Every texture the default block library names, in contact-sheet order.
pub const TEXTURES: &[&str] = &[
    "stone",
    "dirt",
    "grass_top",
    "grass_side",
    "sand",
    "water",
    "snow",
    "gravel",
    "sandstone",
    "ice",
    "coal_ore",
    "iron_ore",
    "gold_ore",
    "diamond_ore",
    "bedrock",
    "clay",
    "podzol",
    "red_sand",
    "torch",
    "glass",
    "leaves",
    "log_top",
    "log_side",
    "planks",
];

/// Folder of the block textures in the repository.
pub fn texture_dir() -> PathBuf {
    paths::repo_root().join("godot_project/addons/strata/textures/blocks")
}

/// A stable 64-bit seed for `name` (FNV-1a).
fn name_seed(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

/// A drawing surface with the noise of one texture.
struct Canvas {
    seed: u64,
    px: Pixels,
}

impl Canvas {
    fn new(name: &str) -> Self {
        Self { seed: name_seed(name), px: vec![[0, 0, 0, 0]; SIDE * SIDE] }
    }

    /// White noise in `[0, 1)` at pixel `(x, y)` for `salt`.
    fn white(&self, salt: u64, x: usize, y: usize) -> f32 {
        unit_f32(hash2(self.seed, salt, x as i32, y as i32))
    }

    /// Value noise in `[0, 1)` with cells of `cell` pixels, wrapping at the texture edge so
    /// tiles repeat without a seam.
    fn value(&self, salt: u64, x: usize, y: usize, cell: usize) -> f32 {
        let n = SIDE / cell;
        let corner = |cx: usize, cy: usize| unit_f32(hash3(self.seed, salt, (cx % n) as i32, (cy % n) as i32, 7));
        let (fx, fy) = ((x % cell) as f32 / cell as f32, (y % cell) as f32 / cell as f32);
        let (cx, cy) = (x / cell, y / cell);
        let smooth = |t: f32| t * t * (3.0 - 2.0 * t);
        let (sx, sy) = (smooth(fx), smooth(fy));
        let top = corner(cx, cy) * (1.0 - sx) + corner(cx + 1, cy) * sx;
        let bottom = corner(cx, cy + 1) * (1.0 - sx) + corner(cx + 1, cy + 1) * sx;
        top * (1.0 - sy) + bottom * sy
    }

    /// Sets pixel `(x, y)` to `rgb` (0..1) scaled by `shade`, with `alpha` (0..1).
    fn put(&mut self, x: usize, y: usize, rgb: [f32; 3], shade: f32, alpha: f32) {
        let c = |v: f32| (v * shade).clamp(0.0, 1.0).mul_add(255.0, 0.5) as u8;
        self.px[y * SIDE + x] = [c(rgb[0]), c(rgb[1]), c(rgb[2]), alpha.clamp(0.0, 1.0).mul_add(255.0, 0.5) as u8];
    }

    /// Fills every pixel with `rgb`, shaded by two octaves of value noise (±`amount`) and a
    /// little white noise.
    fn fill(&mut self, rgb: [f32; 3], amount: f32) {
        for y in 0..SIDE {
            for x in 0..SIDE {
                let n = 0.65 * self.value(1, x, y, 4) + 0.35 * self.value(2, x, y, 2);
                let grain = self.white(3, x, y) - 0.5;
                self.put(x, y, rgb, 1.0 + amount * (2.0 * n - 1.0) + 0.25 * amount * grain, 1.0);
            }
        }
    }

    /// Scatters `count` clusters of `rgb` (2–4 pixels each), placed by the texture's hash.
    fn clusters(&mut self, rgb: [f32; 3], count: usize, salt: u64) {
        for i in 0..count {
            let h = hash2(self.seed, salt, i as i32, 0);
            let (cx, cy) = ((h % SIDE as u64) as usize, ((h >> 8) % SIDE as u64) as usize);
            for (k, (dx, dy)) in [(0, 0), (1, 0), (0, 1), (1, 1)].iter().enumerate() {
                if k >= 2 && (h >> (16 + k)) & 1 == 0 {
                    continue;
                }
                let (x, y) = ((cx + dx) % SIDE, (cy + dy) % SIDE);
                let shade = 0.85 + 0.3 * self.white(salt + 1, x, y);
                self.put(x, y, rgb, shade, 1.0);
            }
        }
    }
}

const STONE: [f32; 3] = [0.50, 0.50, 0.52];
const DIRT: [f32; 3] = [0.47, 0.32, 0.20];
const GRASS: [f32; 3] = [0.33, 0.62, 0.24];

/// The texture called `name`, or None for a name not in [`TEXTURES`].
pub fn draw(name: &str) -> Option<Pixels> {
    let mut c = Canvas::new(name);
    match name {
        "stone" => {
            c.fill(STONE, 0.18);
            c.clusters([0.36, 0.36, 0.38], 5, 40);
        }
        "dirt" => {
            c.fill(DIRT, 0.14);
            c.clusters([0.36, 0.24, 0.15], 4, 40);
        }
        "grass_top" => {
            c.fill(GRASS, 0.16);
            c.clusters([0.42, 0.72, 0.30], 5, 40);
        }
        "grass_side" => {
            c.fill(DIRT, 0.14);
            for x in 0..SIDE {
                // A jagged band of grass 3 to 5 pixels deep over the dirt.
                let depth = 3 + (c.white(50, x, 0) * 3.0) as usize;
                for y in 0..depth {
                    let shade = 0.9 + 0.2 * c.white(51, x, y);
                    c.put(x, y, GRASS, shade, 1.0);
                }
            }
        }
        "sand" => c.fill([0.86, 0.80, 0.56], 0.06),
        "red_sand" => c.fill([0.78, 0.44, 0.22], 0.07),
        "water" => {
            c.fill([0.20, 0.40, 0.80], 0.05);
            for y in (2..SIDE).step_by(5) {
                for x in 0..SIDE {
                    // Short wave crests, offset row by row.
                    if (x + y * 3) % 8 < 3 {
                        c.put(x, y, [0.45, 0.62, 0.92], 1.0, 1.0);
                    }
                }
            }
            c.px.iter_mut().for_each(|p| p[3] = 190);
        }
        "snow" => {
            c.fill([0.95, 0.96, 0.99], 0.03);
            c.clusters([0.84, 0.88, 0.96], 3, 40);
        }
        "gravel" => {
            c.fill([0.52, 0.50, 0.48], 0.10);
            c.clusters([0.38, 0.37, 0.36], 6, 40);
            c.clusters([0.66, 0.64, 0.62], 5, 60);
        }
        "sandstone" => {
            c.fill([0.82, 0.70, 0.47], 0.05);
            for y in [4, 9, 13] {
                for x in 0..SIDE {
                    c.put(x, y, [0.70, 0.58, 0.38], 1.0, 1.0);
                }
            }
        }
        "ice" => {
            c.fill([0.66, 0.80, 0.95], 0.05);
            for i in 0..SIDE {
                // Two diagonal streaks of light.
                c.put(i, (i + 3) % SIDE, [0.90, 0.95, 1.0], 1.0, 1.0);
                c.put(i, (i + 10) % SIDE, [0.85, 0.92, 1.0], 1.0, 1.0);
            }
            c.px.iter_mut().for_each(|p| p[3] = 215);
        }
        "coal_ore" | "iron_ore" | "gold_ore" | "diamond_ore" => {
            c.fill(STONE, 0.12);
            let ore = match name {
                "coal_ore" => [0.12, 0.12, 0.13],
                "iron_ore" => [0.80, 0.62, 0.48],
                "gold_ore" => [0.98, 0.82, 0.22],
                _ => [0.42, 0.92, 0.92],
            };
            c.clusters(ore, 5, 70);
        }
        "bedrock" => {
            c.fill([0.18, 0.18, 0.19], 0.35);
            c.clusters([0.40, 0.40, 0.42], 4, 40);
        }
        "clay" => c.fill([0.62, 0.64, 0.72], 0.05),
        "podzol" => {
            c.fill([0.42, 0.29, 0.15], 0.12);
            c.clusters([0.60, 0.40, 0.16], 5, 40);
        }
        "torch" => {
            // A stick in the middle, a flame on top; the rest clear (cutout).
            for y in 6..SIDE {
                for x in 7..9 {
                    c.put(x, y, [0.45, 0.30, 0.15], 0.9 + 0.2 * c.white(4, x, y), 1.0);
                }
            }
            for (x, y, rgb) in [
                (7, 3, [1.0, 0.85, 0.3]),
                (8, 3, [1.0, 0.75, 0.2]),
                (7, 4, [1.0, 0.95, 0.6]),
                (8, 4, [1.0, 0.9, 0.5]),
                (7, 5, [1.0, 0.6, 0.1]),
                (8, 5, [1.0, 0.65, 0.15]),
                (7, 2, [1.0, 0.7, 0.2]),
            ] {
                c.put(x, y, rgb, 1.0, 1.0);
            }
        }
        "glass" => {
            // A light frame and two glints; the pane itself almost clear (transparent).
            for y in 0..SIDE {
                for x in 0..SIDE {
                    let edge = x == 0 || y == 0 || x == SIDE - 1 || y == SIDE - 1;
                    let glint = (x + y == 5 || x + y == 7) && x > 1 && y > 1;
                    let (rgb, a) = if edge {
                        ([0.85, 0.92, 0.95], 0.95)
                    } else if glint {
                        ([1.0, 1.0, 1.0], 0.6)
                    } else {
                        ([0.75, 0.88, 0.95], 0.12)
                    };
                    c.put(x, y, rgb, 1.0, a);
                }
            }
        }
        "leaves" => {
            c.fill([0.20, 0.48, 0.16], 0.22);
            for y in 0..SIDE {
                for x in 0..SIDE {
                    // About one pixel in five is a hole (cutout).
                    if c.white(80, x, y) < 0.2 {
                        c.px[y * SIDE + x][3] = 0;
                    }
                }
            }
        }
        "log_top" => {
            for y in 0..SIDE {
                for x in 0..SIDE {
                    let (dx, dy) = (x as f32 - 7.5, y as f32 - 7.5);
                    let r = (dx * dx + dy * dy).sqrt() + 0.8 * c.value(5, x, y, 4);
                    let (rgb, shade) = if x == 0 || y == 0 || x == SIDE - 1 || y == SIDE - 1 {
                        ([0.36, 0.26, 0.15], 0.9 + 0.2 * c.white(6, x, y))
                    } else if (r as usize).is_multiple_of(3) {
                        ([0.62, 0.48, 0.28], 1.0)
                    } else {
                        ([0.74, 0.60, 0.38], 1.0)
                    };
                    c.put(x, y, rgb, shade, 1.0);
                }
            }
        }
        "log_side" => {
            for y in 0..SIDE {
                for x in 0..SIDE {
                    let stripe = (x + (c.value(7, x, y, 8) * 3.0) as usize).is_multiple_of(4);
                    let rgb = if stripe { [0.28, 0.20, 0.12] } else { [0.40, 0.29, 0.17] };
                    c.put(x, y, rgb, 0.92 + 0.16 * c.white(8, x, y), 1.0);
                }
            }
        }
        "planks" => {
            for y in 0..SIDE {
                // Boards four pixels high, their seams staggered.
                let board = y / 4;
                for x in 0..SIDE {
                    let seam_x = (board * 7 + 3) % SIDE;
                    let seam = y % 4 == 3 || x == seam_x;
                    let rgb = if seam { [0.45, 0.33, 0.18] } else { [0.72, 0.56, 0.34] };
                    let grain = 0.94 + 0.12 * c.value(9 + board as u64, x, y % 4, 4);
                    c.put(x, y, rgb, grain, 1.0);
                }
            }
        }
        _ => return None,
    }
    Some(c.px)
}

/// Encodes `pixels` (`width × height` RGBA) as PNG bytes.
fn encode_png(width: usize, height: usize, pixels: &[[u8; 4]]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, width as u32, height as u32);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header().map_err(|e| Error::msg(format!("png header: {e}")))?;
        w.write_image_data(pixels.as_flattened()).map_err(|e| Error::msg(format!("png data: {e}")))?;
    }
    Ok(out)
}

/// The contact sheet: every texture at 8×, six a row, on a dark background.
fn contact_sheet() -> Result<(usize, usize, Pixels)> {
    let (scale, gap, per_row) = (8, 8, 6);
    let rows = TEXTURES.len().div_ceil(per_row);
    let (w, h) = (per_row * (SIDE * scale + gap) + gap, rows * (SIDE * scale + gap) + gap);
    let mut sheet = vec![[40, 42, 48, 255]; w * h];
    for (i, name) in TEXTURES.iter().enumerate() {
        let px = draw(name).ok_or_else(|| Error::msg(format!("no texture `{name}`")))?;
        let (ox, oy) = (gap + (i % per_row) * (SIDE * scale + gap), gap + (i / per_row) * (SIDE * scale + gap));
        for y in 0..SIDE * scale {
            for x in 0..SIDE * scale {
                let p = px[(y / scale) * SIDE + x / scale];
                // Blend over a checker so transparency shows.
                let checker = if ((x / 8) + (y / 8)).is_multiple_of(2) { 90u32 } else { 60 };
                let a = p[3] as u32;
                let mix = |c: u8| ((c as u32 * a + checker * (255 - a)) / 255) as u8;
                sheet[(oy + y) * w + ox + x] = [mix(p[0]), mix(p[1]), mix(p[2]), 255];
            }
        }
    }
    Ok((w, h, sheet))
}

/// The contact sheet as PNG bytes (what `cargo xtask screenshots` writes to the docs).
pub fn contact_sheet_png() -> Result<Vec<u8>> {
    let (w, h, sheet) = contact_sheet()?;
    encode_png(w, h, &sheet)
}

/// Every file this command writes, with its bytes.
fn outputs() -> Result<Vec<(PathBuf, Vec<u8>)>> {
    let dir = texture_dir();
    let mut files = Vec::new();
    for name in TEXTURES {
        let px = draw(name).ok_or_else(|| Error::msg(format!("no texture `{name}`")))?;
        files.push((dir.join(format!("{name}.png")), encode_png(SIDE, SIDE, &px)?));
    }
    files.push((paths::repo_root().join("docs/images/block_textures.png"), contact_sheet_png()?));
    Ok(files)
}

/// The committed files that differ from what the source draws (missing ones included).
pub fn stale_files() -> Result<Vec<PathBuf>> {
    let mut stale = Vec::new();
    for (path, bytes) in outputs()? {
        if std::fs::read(&path).ok().as_deref() != Some(&bytes[..]) {
            stale.push(path);
        }
    }
    Ok(stale)
}

fn relative(p: &Path) -> String {
    p.strip_prefix(paths::repo_root()).unwrap_or(p).display().to_string()
}

pub fn run(args: &[String]) -> Result<std::process::ExitCode> {
    let check = match args {
        [] => false,
        [a] if a == "--check" => true,
        _ => return Err(Error::msg("usage: cargo xtask textures [--check]")),
    };
    if check {
        let stale = stale_files()?;
        if stale.is_empty() {
            crate::step(format!("{} block textures and the contact sheet are up to date", TEXTURES.len()));
            return Ok(std::process::ExitCode::SUCCESS);
        }
        for p in &stale {
            eprintln!("stale: {} (run `cargo xtask textures`)", relative(p));
        }
        return Ok(std::process::ExitCode::FAILURE);
    }
    for (path, bytes) in outputs()? {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| Error::msg(format!("{}: {e}", dir.display())))?;
        }
        std::fs::write(&path, &bytes).map_err(|e| Error::msg(format!("{}: {e}", path.display())))?;
    }
    crate::step(format!(
        "wrote {} block textures to {} and the contact sheet",
        TEXTURES.len(),
        relative(&texture_dir())
    ));
    Ok(std::process::ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_texture_is_drawn_deterministically_and_differs_from_the_others() {
        let all: Vec<Pixels> = TEXTURES.iter().map(|n| draw(n).unwrap()).collect();
        for (i, px) in all.iter().enumerate() {
            assert_eq!(px.len(), SIDE * SIDE);
            assert_eq!(px, &draw(TEXTURES[i]).unwrap(), "{} is a pure function of its name", TEXTURES[i]);
            for (j, other) in all.iter().enumerate().skip(i + 1) {
                assert_ne!(px, other, "{} and {} differ", TEXTURES[i], TEXTURES[j]);
            }
        }
        assert!(draw("no such block").is_none());
    }

    #[test]
    fn cutout_and_transparent_textures_have_alpha_and_opaque_ones_none() {
        let alpha = |n: &str| draw(n).unwrap().iter().filter(|p| p[3] < 255).count();
        for n in ["stone", "dirt", "grass_top", "planks", "log_top"] {
            assert_eq!(alpha(n), 0, "{n} is opaque");
        }
        assert!(alpha("leaves") > 20 && alpha("leaves") < 100, "leaves have holes");
        assert!(alpha("torch") > 200, "a torch is mostly clear");
        assert!(alpha("glass") > 150 && alpha("water") == SIDE * SIDE);
    }

    #[test]
    fn every_texture_the_default_library_names_is_drawn_and_every_drawn_one_is_used() {
        use strata_core::base::block_library::{Face, default_library};
        let mut named = std::collections::BTreeSet::new();
        for block in default_library().blocks() {
            for face in Face::ALL {
                let t = block.faces.texture_for_face(face);
                if !t.is_empty() {
                    named.insert(t.to_string());
                }
            }
        }
        for t in &named {
            assert!(TEXTURES.contains(&t.as_str()), "the library names `{t}`, which is not drawn");
        }
        for t in TEXTURES {
            assert!(named.contains(*t), "`{t}` is drawn but no block of the default library uses it");
        }
    }

    #[test]
    fn the_committed_textures_are_what_the_source_draws() {
        let stale = stale_files().unwrap();
        assert!(stale.is_empty(), "run `cargo xtask textures`: stale {stale:?}");
    }
}
