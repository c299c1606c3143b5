//! `cargo xtask textures [--check]`: the default block textures, pixel art drawn from seeded
//! noise in two sets, written as RGBA PNGs: 16×16 into
//! `godot_project/addons/strata/textures/blocks/` and 32×32 into `…/textures/blocks_32/` (same
//! file names), plus a contact sheet of each (`docs/images/block_textures.png` at 8×,
//! `docs/images/block_textures_32.png` at 4×: the same size, a gap between tiles). The PNGs are
//! committed; this file is their source, and `--check` (run by the unit tests too) fails when a
//! committed file differs from what the source draws.
//!
//! Each texture is a pure function of its name and its set: a base colour per pixel varied by
//! value noise (a hash of the name and the pixel, [`strata_core::base::rng`]), then the pattern
//! that makes the block read as itself (grass blades, sandstone layers, ore clusters, log rings,
//! planks, glass frame, leaf holes, torch). The 32 set is drawn at 32 px with its own detail
//! (a finer octave of noise, thinner grass blades, more and shaped ore specks, finer log rings
//! and plank grain, leaf holes at the finer scale), not scaled up from the 16 set; it keeps the
//! 16 set's palette and the share of each pattern, so each texture's mean colour stays within a
//! small ΔE of its 16 twin (at most 2, a unit test checks it) and a world switching sets keeps its
//! colours, near and far (the far view shows the textures' mipmapped mean colours).
//!
//! May use: `paths`, `error`, `strata_core::base::rng`, the `png` crate.

use crate::error::{Error, Result};
use crate::paths;
use std::path::{Path, PathBuf};
use strata_core::base::rng::{hash2, hash3, unit_f32};

/// One texture: `side²` RGBA pixels, row by row from the top.
pub type Pixels = Vec<[u8; 4]>;

/// A set of the default block textures: every texture of [`TEXTURES`] at one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextureSet {
    /// 16×16, `textures/blocks/` (what `StrataBlockLibrary.create_default()` loads).
    Px16,
    /// 32×32, `textures/blocks_32/` (`StrataBlockLibrary.create_default(32)`).
    Px32,
}

impl TextureSet {
    /// Both sets, the 16 one first.
    pub const ALL: [TextureSet; 2] = [TextureSet::Px16, TextureSet::Px32];

    /// Pixels on a texture side.
    pub fn side(self) -> usize {
        match self {
            TextureSet::Px16 => 16,
            TextureSet::Px32 => 32,
        }
    }

    /// Folder of the set's textures in the repository.
    pub fn dir(self) -> PathBuf {
        let folder = match self {
            TextureSet::Px16 => "blocks",
            TextureSet::Px32 => "blocks_32",
        };
        paths::repo_root().join("godot_project/addons/strata/textures").join(folder)
    }

    /// The set's contact sheet in the docs.
    pub fn sheet(self) -> PathBuf {
        let file = match self {
            TextureSet::Px16 => "block_textures.png",
            TextureSet::Px32 => "block_textures_32.png",
        };
        paths::repo_root().join("docs/images").join(file)
    }
}

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

/// A stable 64-bit seed for `name` (FNV-1a).
fn name_seed(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

/// A drawing surface with the noise of one texture of one set.
struct Canvas {
    seed: u64,
    /// Pixels on a side.
    side: usize,
    /// Pixels of this set per pixel of the 16 set (1 or 2): patterns keep their size on the
    /// block by scaling with it, and detail is added at the finer scale.
    k: usize,
    px: Pixels,
}

impl Canvas {
    fn new(name: &str, set: TextureSet) -> Self {
        let side = set.side();
        Self { seed: name_seed(name), side, k: side / 16, px: vec![[0, 0, 0, 0]; side * side] }
    }

    /// Whether this is a finer set than 16 (where the extra detail is drawn).
    fn fine(&self) -> bool {
        self.k > 1
    }

    /// White noise in `[0, 1)` at pixel `(x, y)` for `salt`.
    fn white(&self, salt: u64, x: usize, y: usize) -> f32 {
        unit_f32(hash2(self.seed, salt, x as i32, y as i32))
    }

    /// Value noise in `[0, 1)` with cells of `cell` pixels, wrapping at the texture edge so
    /// tiles repeat without a seam.
    fn value(&self, salt: u64, x: usize, y: usize, cell: usize) -> f32 {
        let n = self.side / cell;
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
        let side = self.side;
        self.px[y * side + x] = [c(rgb[0]), c(rgb[1]), c(rgb[2]), alpha.clamp(0.0, 1.0).mul_add(255.0, 0.5) as u8];
    }

    /// Sets the alpha of pixel `(x, y)` (0..255).
    fn set_alpha(&mut self, x: usize, y: usize, alpha: u8) {
        let side = self.side;
        self.px[y * side + x][3] = alpha;
    }

    /// Fills every pixel with `rgb`, shaded by value noise (±`amount`: two octaves with cells of
    /// 4 and 2 pixels of the 16 set; the 32 set adds a third, one 16-pixel wide) and a little
    /// white noise per pixel (more in the 32 set).
    fn fill(&mut self, rgb: [f32; 3], amount: f32) {
        let k = self.k;
        for y in 0..self.side {
            for x in 0..self.side {
                let n = if self.fine() {
                    0.55 * self.value(1, x, y, 4 * k)
                        + 0.28 * self.value(2, x, y, 2 * k)
                        + 0.17 * self.value(12, x, y, 2)
                } else {
                    0.65 * self.value(1, x, y, 4) + 0.35 * self.value(2, x, y, 2)
                };
                // Per-pixel grain: the 32 set's pixels are finer, so it shows more of it.
                let grain = (self.white(3, x, y) - 0.5) * if self.fine() { 0.45 } else { 0.25 };
                self.put(x, y, rgb, 1.0 + amount * (2.0 * n - 1.0) + amount * grain, 1.0);
            }
        }
    }

    /// Scatters `count` clusters of `rgb`, placed by the texture's hash: 2–4 pixels each in the
    /// 16 set; in the 32 set twice as many (the same share of the face), each a blob of 3 to 6
    /// pixels of a 3 × 3 cell, lit on its upper left and shaded on its lower right.
    fn clusters(&mut self, rgb: [f32; 3], count: usize, salt: u64) {
        let side = self.side;
        if !self.fine() {
            for i in 0..count {
                let h = hash2(self.seed, salt, i as i32, 0);
                let (cx, cy) = ((h % side as u64) as usize, ((h >> 8) % side as u64) as usize);
                for (k, (dx, dy)) in [(0, 0), (1, 0), (0, 1), (1, 1)].iter().enumerate() {
                    if k >= 2 && (h >> (16 + k)) & 1 == 0 {
                        continue;
                    }
                    let (x, y) = ((cx + dx) % side, (cy + dy) % side);
                    let shade = 0.85 + 0.3 * self.white(salt + 1, x, y);
                    self.put(x, y, rgb, shade, 1.0);
                }
            }
            return;
        }
        // The blob's pixels: the middle and its upper-left cross always, the rest by hash bits.
        const CELL: [(usize, usize); 9] = [(1, 1), (1, 0), (0, 1), (2, 1), (1, 2), (0, 0), (2, 0), (0, 2), (2, 2)];
        for i in 0..count * 2 {
            let h = hash2(self.seed, salt, i as i32, 1);
            let (cx, cy) = ((h % side as u64) as usize, ((h >> 8) % side as u64) as usize);
            for (k, &(dx, dy)) in CELL.iter().enumerate() {
                if k >= 3 && (h >> (16 + k)) & 1 == 0 {
                    continue;
                }
                let (x, y) = ((cx + dx) % side, (cy + dy) % side);
                let light = match dx + dy {
                    0 | 1 => 1.08,
                    2 => 1.0,
                    _ => 0.86,
                };
                let shade = light * (0.88 + 0.24 * self.white(salt + 1, x, y));
                self.put(x, y, rgb, shade, 1.0);
            }
        }
    }
}

const STONE: [f32; 3] = [0.50, 0.50, 0.52];
const DIRT: [f32; 3] = [0.47, 0.32, 0.20];
const GRASS: [f32; 3] = [0.33, 0.62, 0.24];

/// `a` and `b` mixed: `t` of `b`.
fn mix(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
    [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t]
}

/// The texture called `name` in `set`, or None for a name not in [`TEXTURES`].
pub fn draw(name: &str, set: TextureSet) -> Option<Pixels> {
    let mut c = Canvas::new(name, set);
    let (side, k) = (c.side, c.k);
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
            if c.fine() {
                // Blades seen from above: two-pixel strokes, as many a shade darker as lighter
                // (so the mean stays).
                for y in 0..side {
                    for x in 0..side {
                        let w = c.white(54, x, y);
                        let shade = if w < 0.07 {
                            0.8
                        } else if w > 0.93 {
                            1.17
                        } else {
                            continue;
                        };
                        let blade = mix(GRASS, [0.30, 0.66, 0.22], c.white(55, x, y));
                        c.put(x, y, blade, shade, 1.0);
                        c.put(x, (y + 1) % side, blade, shade * 0.96, 1.0);
                    }
                }
            }
            c.clusters([0.42, 0.72, 0.30], 5, 40);
        }
        "grass_side" => {
            c.fill(DIRT, 0.14);
            for x in 0..side {
                // A jagged band of grass over the dirt: 3 to 5 pixels deep in the 16 set; in the
                // 32 set as deep on the block but one blade a pixel (half as thin), 6 to 10
                // pixels, each blade's tip a shade lighter and some roots a shade darker.
                let depth = if c.fine() {
                    6 + (c.white(52, x, 0) * 5.0) as usize
                } else {
                    3 + (c.white(50, x, 0) * 3.0) as usize
                };
                for y in 0..depth {
                    let mut shade = 0.9 + 0.2 * c.white(51, x, y);
                    if c.fine() && y + 1 == depth {
                        shade *= 1.1;
                    }
                    c.put(x, y, GRASS, shade, 1.0);
                }
                if c.fine() && c.white(53, x, 0) < 0.3 {
                    c.put(x, depth, mix(GRASS, DIRT, 0.6), 0.85, 1.0);
                }
            }
        }
        "sand" => c.fill([0.86, 0.80, 0.56], 0.06),
        "red_sand" => c.fill([0.78, 0.44, 0.22], 0.07),
        "water" => {
            c.fill([0.20, 0.40, 0.80], 0.05);
            // Short wave crests, offset row by row: every fifth row of the 16 set; the 32 set's
            // are as thin in pixels, so twice as many on the block.
            for y in (2..side).step_by(5) {
                for x in 0..side {
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
            const LAYER: [f32; 3] = [0.70, 0.58, 0.38];
            c.fill([0.82, 0.70, 0.47], 0.05);
            // Three layer lines; the 32 set draws each as a one-pixel line over a broken,
            // half-dark one, and adds thin half-dark strata between them.
            for y in [4, 9, 13] {
                for x in 0..side {
                    c.put(x, y * k, LAYER, 1.0, 1.0);
                    if c.fine() && c.white(90, x, y) < 0.6 {
                        c.put(x, y * k + 1, mix([0.82, 0.70, 0.47], LAYER, 0.6), 1.0, 1.0);
                    }
                }
            }
            if c.fine() {
                for y in [3, 15, 22] {
                    for x in 0..side {
                        if c.value(91, x, y, 8) > 0.35 {
                            c.put(x, y, mix([0.82, 0.70, 0.47], LAYER, 0.5), 1.0, 1.0);
                        }
                    }
                }
            }
        }
        "ice" => {
            c.fill([0.66, 0.80, 0.95], 0.05);
            for i in 0..side {
                // Two diagonal streaks of light; the 32 set's are a bright line and a fainter
                // one beside it (as wide on the block).
                c.put(i, (i + 3 * k) % side, [0.90, 0.95, 1.0], 1.0, 1.0);
                c.put(i, (i + 10 * k) % side, [0.85, 0.92, 1.0], 1.0, 1.0);
                if c.fine() {
                    c.put(i, (i + 3 * k + 1) % side, [0.84, 0.91, 0.99], 1.0, 1.0);
                    c.put(i, (i + 10 * k + 1) % side, [0.80, 0.89, 0.99], 1.0, 1.0);
                }
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
        "torch" => draw_torch(&mut c),
        "glass" => {
            // A light frame and two glints; the pane itself almost clear (transparent). The 32
            // set's frame is as wide on the block (two pixels: a light outer and a darker inner
            // line) and its glints are pairs of thin lines.
            for y in 0..side {
                for x in 0..side {
                    let ring = x.min(y).min(side - 1 - x).min(side - 1 - y);
                    let d = x + y;
                    let glint = if c.fine() {
                        matches!(d, 10 | 11 | 14 | 15) && x > 2 && y > 2
                    } else {
                        (d == 5 || d == 7) && x > 1 && y > 1
                    };
                    let (rgb, a) = if ring < k {
                        if ring == 0 { ([0.85, 0.92, 0.95], 0.95) } else { ([0.78, 0.86, 0.90], 0.95) }
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
            for y in 0..side {
                for x in 0..side {
                    // About one pixel in five is a hole (cutout), at the set's pixel scale.
                    if c.white(80, x, y) < 0.2 {
                        c.set_alpha(x, y, 0);
                    }
                }
            }
        }
        "log_top" => {
            let mid = (side as f32 - 1.0) / 2.0;
            for y in 0..side {
                for x in 0..side {
                    // Rings a pixel wide every third pixel: in the 32 set, twice as many.
                    let (dx, dy) = (x as f32 - mid, y as f32 - mid);
                    let r = (dx * dx + dy * dy).sqrt() + 0.8 * k as f32 * c.value(5, x, y, 4 * k);
                    let ring = x.min(y).min(side - 1 - x).min(side - 1 - y);
                    let (rgb, shade) = if ring < k {
                        // Bark, as wide on the block in both sets; the 32 set's inner line lighter.
                        let bark = if ring == 0 { [0.36, 0.26, 0.15] } else { [0.42, 0.31, 0.18] };
                        (bark, 0.9 + 0.2 * c.white(6, x, y))
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
            for y in 0..side {
                for x in 0..side {
                    // Dark stripes of bark every fourth pixel, wavering; the 32 set's are half
                    // as wide on the block and twice as many.
                    let stripe = (x + (c.value(7, x, y, 8 * k) * 3.0 * k as f32) as usize).is_multiple_of(4);
                    let rgb = if stripe { [0.28, 0.20, 0.12] } else { [0.40, 0.29, 0.17] };
                    c.put(x, y, rgb, 0.92 + 0.16 * c.white(8, x, y), 1.0);
                }
            }
        }
        "planks" => draw_planks(&mut c),
        _ => return None,
    }
    Some(c.px)
}

/// The torch: a stick in the middle, a flame on top; the rest clear (cutout). The 32 set's stick
/// has a lit and a shaded edge and its flame a hot core in a rounded shape.
fn draw_torch(c: &mut Canvas) {
    if !c.fine() {
        for y in 6..16 {
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
        return;
    }
    for y in 12..32 {
        for x in 14..18 {
            let edge = match x {
                14 => 1.1,
                17 => 0.8,
                _ => 1.0,
            };
            c.put(x, y, [0.45, 0.30, 0.15], edge * (0.9 + 0.2 * c.white(4, x, y)), 1.0);
        }
    }
    // The flame, row by row from its tip (y 4): its columns and its colour from the hot core
    // (white-yellow) out to the orange rim and the red-orange foot above the stick.
    const ROWS: [(usize, usize); 8] = [(15, 16), (15, 16), (14, 17), (14, 17), (14, 17), (14, 17), (14, 17), (14, 17)];
    for (i, &(x0, x1)) in ROWS.iter().enumerate() {
        let y = 4 + i;
        for x in x0..=x1 {
            let core = (15..=16).contains(&x) && (2..=5).contains(&i);
            let rgb = if i >= 6 {
                [1.0, 0.62, 0.12]
            } else if core {
                [1.0, 0.94, 0.58]
            } else if i < 2 {
                [1.0, 0.72, 0.2]
            } else {
                [1.0, 0.82, 0.3]
            };
            c.put(x, y, rgb, 1.0, 1.0);
        }
    }
}

/// Planks: four boards, their seams staggered, grain along them. The 16 set's boards are four
/// pixels high with a one-pixel seam; the 32 set's are eight, with a one-pixel seam, a
/// shadowed row under it and thin dark grain lines.
fn draw_planks(c: &mut Canvas) {
    const WOOD: [f32; 3] = [0.72, 0.56, 0.34];
    const SEAM: [f32; 3] = [0.45, 0.33, 0.18];
    let (side, k) = (c.side, c.k);
    let high = 4 * k;
    for y in 0..side {
        let board = y / high;
        let row = y % high;
        for x in 0..side {
            let seam_x = ((board * 7 + 3) % 16) * k;
            let seam = row == high - 1 || x == seam_x;
            let grain = 0.94 + 0.12 * c.value(9 + board as u64, x, row, 4 * k);
            let rgb = if seam {
                SEAM
            } else if c.fine() && (row == 0 || x == seam_x + 1) {
                mix(WOOD, SEAM, 0.45)
            } else if c.fine() && c.value(30 + board as u64, x, row, 8) * 6.0 % 1.0 < 0.16 {
                mix(WOOD, SEAM, 0.7)
            } else {
                WOOD
            };
            c.put(x, y, rgb, grain, 1.0);
        }
    }
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

/// The contact sheet of `set`: every texture 128 pixels wide (8× for the 16 set, 4× for the 32
/// set), six a row, on a dark background.
fn contact_sheet(set: TextureSet) -> Result<(usize, usize, Pixels)> {
    let side = set.side();
    let (tile, gap, per_row) = (128, 8, 6);
    let scale = tile / side;
    let rows = TEXTURES.len().div_ceil(per_row);
    let (w, h) = (per_row * (tile + gap) + gap, rows * (tile + gap) + gap);
    let mut sheet = vec![[40, 42, 48, 255]; w * h];
    for (i, name) in TEXTURES.iter().enumerate() {
        let px = draw(name, set).ok_or_else(|| Error::msg(format!("no texture `{name}`")))?;
        let (ox, oy) = (gap + (i % per_row) * (tile + gap), gap + (i / per_row) * (tile + gap));
        for y in 0..tile {
            for x in 0..tile {
                let p = px[(y / scale) * side + x / scale];
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

/// The contact sheet of `set` as PNG bytes (what `cargo xtask screenshots` writes to the docs).
pub fn contact_sheet_png(set: TextureSet) -> Result<Vec<u8>> {
    let (w, h, sheet) = contact_sheet(set)?;
    encode_png(w, h, &sheet)
}

/// Every file this command writes, with its bytes: both sets and their sheets.
fn outputs() -> Result<Vec<(PathBuf, Vec<u8>)>> {
    let mut files = Vec::new();
    for set in TextureSet::ALL {
        let dir = set.dir();
        for name in TEXTURES {
            let px = draw(name, set).ok_or_else(|| Error::msg(format!("no texture `{name}`")))?;
            files.push((dir.join(format!("{name}.png")), encode_png(set.side(), set.side(), &px)?));
        }
        files.push((set.sheet(), contact_sheet_png(set)?));
    }
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
    let dirs: Vec<String> = TextureSet::ALL.iter().map(|s| relative(&s.dir())).collect();
    if check {
        let stale = stale_files()?;
        if stale.is_empty() {
            crate::step(format!(
                "{} block textures in {} and their contact sheets are up to date",
                TEXTURES.len(),
                dirs.join(" and ")
            ));
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
    crate::step(format!("wrote {} block textures to {} and their contact sheets", TEXTURES.len(), dirs.join(" and ")));
    Ok(std::process::ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The largest CIE76 colour difference (ΔE, CIELAB D65 of the linear-light mean, alpha-weighted)
    /// between a 32 texture and its 16 twin: below about 2.3 most viewers see no difference side by
    /// side, and the rendered far-colour check allows 3 between near and far ground.
    const MAX_SET_MEAN_DELTA_E: f64 = 2.0;

    /// CIELAB (D65) of the alpha-weighted mean colour of `px` in linear light (the colour its
    /// mipmaps average to, as far as its pixels show), and its mean alpha (0..1).
    fn mean_lab(px: &[[u8; 4]]) -> ([f64; 3], f64) {
        let linear = |c: u8| {
            let v = c as f64 / 255.0;
            if v <= 0.04045 { v / 12.92 } else { ((v + 0.055) / 1.055).powf(2.4) }
        };
        let (mut sum, mut weight) = ([0.0f64; 3], 0.0f64);
        for p in px {
            let a = p[3] as f64 / 255.0;
            for (s, &c) in sum.iter_mut().zip(&p[..3]) {
                *s += a * linear(c);
            }
            weight += a;
        }
        let [r, g, b] = sum.map(|s| s / weight.max(1e-9));
        let f = |t: f64| if t > 0.008856 { t.cbrt() } else { 7.787 * t + 16.0 / 116.0 };
        let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
        let y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
        let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
        let (fx, fy, fz) = (f(x), f(y), f(z));
        ([116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)], weight / px.len().max(1) as f64)
    }

    #[test]
    fn every_texture_is_drawn_deterministically_and_differs_from_the_others() {
        for set in TextureSet::ALL {
            let all: Vec<Pixels> = TEXTURES.iter().map(|n| draw(n, set).unwrap()).collect();
            for (i, px) in all.iter().enumerate() {
                assert_eq!(px.len(), set.side() * set.side(), "{set:?} {} is {} px a side", TEXTURES[i], set.side());
                assert_eq!(px, &draw(TEXTURES[i], set).unwrap(), "{} is a pure function of its name", TEXTURES[i]);
                for (j, other) in all.iter().enumerate().skip(i + 1) {
                    assert_ne!(px, other, "{set:?}: {} and {} differ", TEXTURES[i], TEXTURES[j]);
                }
            }
            assert!(draw("no such block", set).is_none());
        }
    }

    #[test]
    fn cutout_and_transparent_textures_have_alpha_and_opaque_ones_none() {
        for set in TextureSet::ALL {
            // Counts of the 16 set, scaled to the set's pixel count.
            let area = set.side() * set.side();
            let per_256 = |n: usize| n * area / 256;
            let alpha = |n: &str| draw(n, set).unwrap().iter().filter(|p| p[3] < 255).count();
            for n in ["stone", "dirt", "grass_top", "grass_side", "planks", "log_top", "log_side"] {
                assert_eq!(alpha(n), 0, "{set:?} {n} is opaque");
            }
            assert!(alpha("leaves") > per_256(20) && alpha("leaves") < per_256(100), "{set:?} leaves have holes");
            assert!(alpha("torch") > per_256(200), "{set:?} a torch is mostly clear");
            assert!(alpha("glass") > per_256(150) && alpha("water") == area, "{set:?} glass and water");
        }
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
    fn the_committed_textures_of_both_sets_are_what_the_source_draws() {
        let stale = stale_files().unwrap();
        assert!(stale.is_empty(), "run `cargo xtask textures`: stale {stale:?}");
    }

    #[test]
    fn the_committed_32_textures_are_32_by_32_rgba() {
        for name in TEXTURES {
            let path = TextureSet::Px32.dir().join(format!("{name}.png"));
            let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let reader = png::Decoder::new(std::io::BufReader::new(file)).read_info().unwrap();
            let info = reader.info();
            assert_eq!((info.width, info.height), (32, 32), "{name}");
            assert_eq!((info.color_type, info.bit_depth), (png::ColorType::Rgba, png::BitDepth::Eight), "{name}");
        }
    }

    #[test]
    fn each_32_texture_keeps_the_mean_colour_of_its_16_twin() {
        let mut worst = (0.0f64, "");
        for name in TEXTURES {
            let (lab16, alpha16) = mean_lab(&draw(name, TextureSet::Px16).unwrap());
            let (lab32, alpha32) = mean_lab(&draw(name, TextureSet::Px32).unwrap());
            let de = lab16.iter().zip(&lab32).map(|(a, b)| (a - b) * (a - b)).sum::<f64>().sqrt();
            assert!(
                de <= MAX_SET_MEAN_DELTA_E,
                "{name}: the 32 texture's mean colour is ΔE {de:.2} from the 16 one's ({lab32:?} vs {lab16:?}); at most {MAX_SET_MEAN_DELTA_E}"
            );
            assert!((alpha16 - alpha32).abs() <= 0.03, "{name}: mean alpha {alpha32:.3} (32) vs {alpha16:.3} (16)");
            if de > worst.0 {
                worst = (de, name);
            }
        }
        println!("largest ΔE between the sets: {:.2} ({})", worst.0, worst.1);
    }

    #[test]
    fn no_32_texture_is_its_16_twin_scaled_up() {
        for name in TEXTURES {
            let small = draw(name, TextureSet::Px16).unwrap();
            let large = draw(name, TextureSet::Px32).unwrap();
            let differing = (0..32 * 32).filter(|&i| large[i] != small[(i / 32 / 2) * 16 + (i % 32) / 2]).count();
            assert!(differing > 0, "{name}: the 32 texture is the 16 one scaled up");
            // Textures drawn over noise differ almost everywhere (a quarter at least); the
            // torch and glass are mostly flat clear or pale pixels, the same in both sets.
            if !matches!(*name, "torch" | "glass") {
                assert!(
                    differing >= 32 * 32 / 4,
                    "{name}: only {differing} pixels differ from the 16 texture scaled up"
                );
            }
        }
    }
}
