//! The side-view classic: the cave and surface algorithms of the 2D cave blog that the side-view
//! mode comes from, as selectable modes (`side_view_cave_mode = Classic`,
//! `side_view_surface_source = ClassicHash`), each a pure function of seed and position.
//!
//! **Surface** ([`classic_hash_noise`]). The blog's integer hash noise (Hugo Elias's): for octave
//! `i` with the prime triple `(a, b, c) = `[`CLASSIC_TRIPLES`]`[i mod 4]`,
//! `n = (n << 13) ^ n; noise(n) = 1 − ((n·(n²·a + b) + c) & 0x7fffffff) / 1073741824` in wrapping
//! 32-bit arithmetic; smoothed `noise(n)/2 + noise(n − 1)/4 + noise(n + 1)/4`; linear
//! interpolation between neighbouring integers; the sum over octaves `i = 0..octaves` of
//! `persistence^i · smoothed(u · frequency_i)` with `u = x / scale` (octave 0 is the coarsest);
//! the height of the line is `base_height + ceil(amplitude · sum)` (the classic preset: octaves
//! 0–4, persistence 0.5, amplitude 10). Tile column `x` samples at `x` itself. Octave 0's triple
//! is the well-known `15731, 789221, 1376312589` (the last is `3²·109·127·11047`, not a prime, but
//! it is the original's); octaves 1–3 use the primes `15737, 789251, 1376312627`,
//! `15887, 789443, 1376312813` and `16057, 789653, 1376313053` (our choice, near the first: the
//! blog asks for a different prime triple per octave); a fifth octave reuses octave 0's triple. The seed shifts
//! the lattice by [`classic_seed_offset`] (the original has no seed). The lattice cell is
//! `floor(u · frequency)`; the original's `int()` truncates, which is the same for `x ≥ 0`, where
//! the original map lives.
//!
//! **Caves** ([`ClassicCaves`]). A filled map: every cell is wall, and from `cave_depth` tiles under
//! the surface line down (the original pokes from a tenth of its map's depth; the classic preset
//! sets 10, a tenth of a 100-row map) a hole is poked where `rand(100) <= 55`, a probability of
//! 56 % ([`hole_roll`] is `rand(100)`, a hash of seed and cell in `0..100`). Then `cave_passes`
//! iterations of the 4-5 rule: with `w` the walls of the cell's 3×3 block (the cell included), the
//! cell becomes wall at `w ≥ cave_threshold` (5), air at `w ≤ 2`, and is otherwise unchanged; then
//! `cave_final_passes` (2) wall-only iterations: wall at `w ≥ cave_final_threshold` (6), else
//! unchanged. Open cells carve solid ground into air; pockets under `min_pocket_tiles` are filled
//! as in the other modes.
//!
//! **Where we differ on purpose.**
//! 1. Passes are double-buffered (every cell of pass `k + 1` reads pass `k`), where the original
//!    updates its map in place, row by row (a cell then reads neighbours already updated in the
//!    same pass). In place, the result depends on where the map starts, so chunks could not be
//!    generated apart and meet seamlessly; double-buffered, a cell after `k` passes depends only
//!    on the cells within `k` of it, and every window computes the same infinite field (law:
//!    Seamless).
//! 2. Octave `i` has frequency `2^i`. The original writes `2 ^ i`, which C-like languages read as
//!    XOR (frequencies 2, 3, 0, 1, 6 for octaves 0–4); `side_view_classic_xor_frequency = true`
//!    gives exactly that ([`classic_frequency`]).
//!
//! May use: `base`, `preset`, `automata` (the bit grid and pocket fill), `gen2d`'s surface line
//! and tile grid.

use crate::automata::cellular::BitGrid2D;
use crate::automata::flood_fill::{PocketRule, PocketScratch, fill_pockets_2d};
use crate::base::block::{self, AIR};
use crate::base::rng::{hash2, mix64, salt};
use crate::gen2d::TileGrid;
use crate::preset::model::SideViewSettings;

/// The prime triples `(a, b, c)` of octaves 0–3 (see the module docs); octave `i` uses
/// `CLASSIC_TRIPLES[i % 4]`.
pub const CLASSIC_TRIPLES: [(i32, i32, i32); 4] = [
    (15731, 789221, 1376312589),
    (15737, 789251, 1376312627),
    (15887, 789443, 1376312813),
    (16057, 789653, 1376313053),
];

/// `rand(100) <= HOLE_MAX_ROLL` pokes a hole: 56 of the 100 rolls.
pub const HOLE_MAX_ROLL: u32 = 55;

/// In the 4-5 iterations, a cell with this many walls in its 3×3 block or fewer becomes air.
pub const OPEN_AT_MOST: u32 = 2;

/// Salt of the classic's hole rolls, so they never repeat the other cave modes' fill.
const CLASSIC_SALT: u64 = 0xc1a5_51c0;

/// The blog's integer noise at lattice point `n` with the prime triple `(a, b, c)`, in `(-1, 1]`.
#[inline]
pub fn classic_int_noise(n: i32, (a, b, c): (i32, i32, i32)) -> f64 {
    let n = (n << 13) ^ n;
    let v = n.wrapping_mul(n.wrapping_mul(n).wrapping_mul(a).wrapping_add(b)).wrapping_add(c) & 0x7fff_ffff;
    1.0 - v as f64 / 1_073_741_824.0
}

/// The lattice shift of world seed `seed` (the original's lattice is seed 0's plus this).
pub fn classic_seed_offset(seed: u64) -> i32 {
    (mix64(seed ^ CLASSIC_SALT) >> 32) as u32 as i32
}

/// Frequency of octave `i`: `2^i`, or `2 XOR i` when `xor` (the original's `2 ^ i`).
#[inline]
pub fn classic_frequency(i: u32, xor: bool) -> f64 {
    if xor { (2 ^ i) as f64 } else { (1u64 << i.min(62)) as f64 }
}

/// The classic surface noise at world `x` (see the module docs): the unnormalised octave sum,
/// within `±Σ persistence^i`.
pub fn classic_hash_noise(seed: u64, x: f64, octaves: u32, persistence: f64, scale: f64, xor: bool) -> f64 {
    let offset = classic_seed_offset(seed);
    let u = x / scale.max(1e-9);
    let mut total = 0.0;
    let mut amplitude = 1.0;
    for i in 0..octaves.min(24) {
        let triple = CLASSIC_TRIPLES[(i % 4) as usize];
        let smoothed = |n: i32| {
            let at = |m: i32| classic_int_noise(m.wrapping_add(offset), triple);
            at(n) / 2.0 + at(n.wrapping_sub(1)) / 4.0 + at(n.wrapping_add(1)) / 4.0
        };
        let v = u * classic_frequency(i, xor);
        let f = v.floor();
        let n = f.clamp(i32::MIN as f64, i32::MAX as f64) as i32;
        let t = v - f;
        total += amplitude * (smoothed(n) * (1.0 - t) + smoothed(n.wrapping_add(1)) * t);
        amplitude *= persistence;
    }
    total
}

/// The classic's `rand(100)` for world cell `(x, y)`: a pure hash of (seed, cell) in `0..100`.
#[inline]
pub fn hole_roll(seed: u64, x: i32, y: i32) -> u32 {
    (hash2(seed, salt::CAVE_FILL ^ CLASSIC_SALT, x, y) % 100) as u32
}

/// The classic cave program of a side view (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClassicCaves {
    /// Holes are poked this many tiles under the surface line and deeper.
    pub depth: i32,
    pub passes: u32,
    pub threshold: u32,
    pub final_passes: u32,
    pub final_threshold: u32,
}

/// One iteration of the classic: `Some(wall)` sets the cell, `None` leaves it.
#[inline]
fn classic_rule(walls: u32, wall_at: u32, open: bool) -> Option<bool> {
    if walls >= wall_at {
        Some(true)
    } else if open && walls <= OPEN_AT_MOST {
        Some(false)
    } else {
        None
    }
}

impl ClassicCaves {
    /// The program of `settings`.
    pub fn of_side_view(settings: &SideViewSettings) -> Self {
        Self {
            depth: settings.cave_depth.min(1 << 20) as i32,
            passes: settings.cave_passes.min(64),
            threshold: settings.cave_threshold,
            final_passes: settings.cave_final_passes.min(64),
            final_threshold: settings.cave_final_threshold,
        }
    }

    /// Every iteration, in order: `(wall_at, opens)` (the 4-5 ones open cells, the final ones not).
    fn iterations(&self) -> impl Iterator<Item = (u32, bool)> {
        let main = std::iter::repeat_n((self.threshold, true), self.passes as usize);
        main.chain(std::iter::repeat_n((self.final_threshold, false), self.final_passes as usize))
    }

    /// Total iterations (the halo a window needs).
    pub fn total_passes(&self) -> u32 {
        self.passes + self.final_passes
    }

    /// Whether world cell `(x, y)` starts as wall, with `surface_row` the surface row of column `x`.
    #[inline]
    pub fn starts_wall(&self, seed: u64, surface_row: i32, x: i32, y: i32) -> bool {
        y < surface_row.saturating_add(self.depth) || hole_roll(seed, x, y) > HOLE_MAX_ROLL
    }

    /// Walls (`true`) of the infinite classic field over the cells `[min, min + size)`;
    /// `surface_row(x)` gives each column's surface row. Computed over a window grown by one cell
    /// per iteration, double-buffered, then cropped, so it equals the same cells of any larger
    /// window.
    pub fn walls(
        &self,
        seed: u64,
        surface_row: impl Fn(i32) -> i32,
        min: (i32, i32),
        size: (usize, usize),
    ) -> BitGrid2D {
        let halo = self.total_passes() as usize;
        let (w, h) = (size.0 + 2 * halo, size.1 + 2 * halo);
        let (x0, y0) = (min.0 - halo as i32, min.1 - halo as i32);
        let surface: Vec<i32> = (0..w as i32).map(|i| surface_row(x0 + i)).collect();
        let mut cells: Vec<bool> = Vec::with_capacity(w * h);
        for j in 0..h {
            for (i, &row) in surface.iter().enumerate() {
                cells.push(self.starts_wall(seed, row, x0 + i as i32, y0 + j as i32));
            }
        }
        let mut next = cells.clone();
        for (wall_at, opens) in self.iterations() {
            step_classic(&cells, &mut next, w, h, wall_at, opens);
            std::mem::swap(&mut cells, &mut next);
        }
        let mut out = BitGrid2D::new(size.0, size.1);
        for j in 0..size.1 {
            for i in 0..size.0 {
                out.set(i, j, cells[(j + halo) * w + i + halo]);
            }
        }
        out
    }

    /// Carves the classic caves into `out` (open cells turn solid tiles into air), filling
    /// pockets of `pockets`, as [`crate::gen2d::Generator2D`]'s cave stage does for the other modes.
    /// `surface_row(x)` is the surface line's row at column `x` (the generator's `SurfaceLine`).
    pub fn carve(&self, seed: u64, surface_row: impl Fn(i32) -> i32, pockets: PocketRule, out: &mut TileGrid) {
        let halo = if pockets.is_active() { pockets.halo() as i32 } else { 0 };
        let (wx, wy, ww, wh) = (out.min_x - halo, out.min_y - halo, out.width + 2 * halo, out.height + 2 * halo);
        let reach = self.total_passes() as i32;
        let shallowest = (wx - reach..wx + ww + reach).map(&surface_row).min().unwrap_or(i32::MAX);
        if wy + wh + reach <= shallowest.saturating_add(self.depth) {
            return; // no hole can reach the window: all wall
        }
        let mut rock = self.walls(seed, &surface_row, (wx, wy), (ww as usize, wh as usize));
        if pockets.is_active() {
            let h = halo as usize;
            let roi_max = [h + out.width as usize, h + out.height as usize];
            fill_pockets_2d(&mut rock, false, pockets, [h, h], roi_max, &mut PocketScratch::default());
        }
        for y in 0..out.height {
            for x in 0..out.width {
                if !rock.get((x + halo) as usize, (y + halo) as usize) {
                    let i = (y * out.width + x) as usize;
                    if block::is_solid(out.tiles[i]) {
                        out.tiles[i] = AIR;
                    }
                }
            }
        }
    }
}

/// One double-buffered iteration over a `w × h` grid (cells outside count as wall; the caller
/// crops the cells they reach).
fn step_classic(cells: &[bool], next: &mut [bool], w: usize, h: usize, wall_at: u32, opens: bool) {
    for j in 0..h {
        for i in 0..w {
            let mut walls = 0;
            for dj in -1i64..=1 {
                for di in -1i64..=1 {
                    let (ni, nj) = (i as i64 + di, j as i64 + dj);
                    let inside = ni >= 0 && nj >= 0 && (ni as usize) < w && (nj as usize) < h;
                    walls += (!inside || cells[nj as usize * w + ni as usize]) as u32;
                }
            }
            let k = j * w + i;
            next[k] = classic_rule(walls, wall_at, opens).unwrap_or(cells[k]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The blog's noise, written again from its definition with 64-bit integers reduced mod 2³².
    fn reference_int_noise(n: i32, (a, b, c): (i32, i32, i32)) -> f64 {
        let m = 1i64 << 32;
        let wrap = |v: i64| -> i64 {
            let r = v.rem_euclid(m);
            if r >= 1 << 31 { r - m } else { r }
        };
        let x = wrap(((n as i64) << 13) ^ n as i64);
        let inner = wrap(wrap(x * x) * a as i64 + b as i64);
        let v = wrap(wrap(x * inner) + c as i64) & 0x7fff_ffff;
        1.0 - v as f64 / 1_073_741_824.0
    }

    /// `PerlinNoise_1D` of the blog, one octave at a time, without shortcuts.
    fn reference_noise(seed: u64, x: f64, octaves: u32, p: f64, scale: f64, xor: bool) -> f64 {
        let off = classic_seed_offset(seed) as i64;
        let mut total = 0.0;
        for i in 0..octaves {
            let triple = CLASSIC_TRIPLES[i as usize % 4];
            let noise = |n: i64| reference_int_noise((n + off) as i32, triple);
            let smooth = |n: i64| noise(n) / 2.0 + noise(n - 1) / 4.0 + noise(n + 1) / 4.0;
            let frequency = if xor { (2 ^ i) as f64 } else { 2f64.powi(i as i32) };
            let v = x / scale * frequency;
            let n = v.floor() as i64;
            let t = v - n as f64;
            total += p.powi(i as i32) * (smooth(n) * (1.0 - t) + smooth(n + 1) * t);
        }
        total
    }

    fn is_prime(n: i64) -> bool {
        n > 1 && (2..).take_while(|d| d * d <= n).all(|d| n % d != 0)
    }

    #[test]
    fn int_noise_matches_the_definition_and_the_known_values() {
        for triple in CLASSIC_TRIPLES {
            for n in (-3000..3000).chain([i32::MIN, i32::MAX, 1 << 20, -(1 << 19)]) {
                assert_eq!(classic_int_noise(n, triple), reference_int_noise(n, triple), "n {n}");
            }
        }
        // IntNoise(0) = 1 − (1376312589 & 0x7fffffff) / 2³⁰.
        assert_eq!(classic_int_noise(0, CLASSIC_TRIPLES[0]), 1.0 - 1376312589.0 / 1073741824.0);
        // Octaves 1–3: prime triples; octave 0 keeps the original's (its last number is 3²·109·127·11047).
        for (a, b, c) in &CLASSIC_TRIPLES[1..] {
            assert!(is_prime(*a as i64) && is_prime(*b as i64) && is_prime(*c as i64), "{a} {b} {c}");
        }
        assert!(is_prime(15731) && is_prime(789221) && !is_prime(1376312589));
        assert_eq!(3 * 3 * 109 * 127 * 11047, 1376312589);
    }

    #[test]
    fn surface_noise_matches_a_slow_reference() {
        for seed in [0u64, 7, u64::MAX] {
            for xor in [false, true] {
                for k in -400..400 {
                    let x = k as f64 * 1.37;
                    let got = classic_hash_noise(seed, x, 5, 0.5, 16.0, xor);
                    let want = reference_noise(seed, x, 5, 0.5, 16.0, xor);
                    assert!((got - want).abs() < 1e-12, "seed {seed} xor {xor} x {x}: {got} vs {want}");
                }
            }
        }
    }

    #[test]
    fn xor_frequencies_are_the_originals_and_differ() {
        let f: Vec<f64> = (0..5).map(|i| classic_frequency(i, true)).collect();
        assert_eq!(f, [2.0, 3.0, 0.0, 1.0, 6.0]);
        let p: Vec<f64> = (0..5).map(|i| classic_frequency(i, false)).collect();
        assert_eq!(p, [1.0, 2.0, 4.0, 8.0, 16.0]);
        // With XOR, octave 2 has frequency 0: the same value everywhere; a single-octave sum of
        // octave 0 differs between the flags (frequency 2 against 1).
        let diff = (0..200).filter(|&x| {
            classic_hash_noise(3, x as f64, 5, 0.5, 8.0, true) != classic_hash_noise(3, x as f64, 5, 0.5, 8.0, false)
        });
        assert!(diff.count() > 190);
    }

    #[test]
    fn surface_noise_is_deterministic_bounded_and_continuous() {
        let bound = 1.0 + 0.5 + 0.25 + 0.125 + 0.0625;
        let mut last = classic_hash_noise(9, -50.0, 5, 0.5, 32.0, false);
        for k in -5000..5000 {
            let x = k as f64 * 0.01;
            let v = classic_hash_noise(9, x, 5, 0.5, 32.0, false);
            assert!(v.abs() <= bound, "{v}");
            assert_eq!(v, classic_hash_noise(9, x, 5, 0.5, 32.0, false));
            assert!((v - last).abs() < 0.1, "jump at {x}");
            last = v;
        }
        assert_ne!(classic_hash_noise(9, 3.0, 5, 0.5, 1.0, false), classic_hash_noise(10, 3.0, 5, 0.5, 1.0, false));
    }

    #[test]
    fn holes_are_rand_100_at_most_55() {
        // Rolls cover 0..100 and a hole is a roll of 0..=55: 56 of the 100 values.
        assert_eq!((0..100).filter(|&r| r <= HOLE_MAX_ROLL).count(), 56);
        let c = ClassicCaves { depth: 0, passes: 0, threshold: 5, final_passes: 0, final_threshold: 6 };
        let (mut holes, mut seen) = (0u64, [false; 100]);
        let n = 400;
        for y in 0..n {
            for x in -n / 2..n / 2 {
                let r = hole_roll(5, x, y);
                assert!(r < 100);
                seen[r as usize] = true;
                assert_eq!(!c.starts_wall(5, 0, x, y), r <= 55);
                holes += (!c.starts_wall(5, 0, x, y)) as u64;
            }
        }
        assert!(seen.iter().all(|&s| s), "every roll 0..100 occurs");
        let share = holes as f64 / (n * n) as f64;
        assert!((share - 0.56).abs() < 0.005, "hole share {share}");
        // Above the depth under the surface, everything starts as wall.
        let deep = ClassicCaves { depth: 10, ..c };
        assert!((0..1000).all(|x| deep.starts_wall(5, -3, x, 6)));
    }

    /// The classic on a finite grid, one cell at a time, every iteration read from a copy of the
    /// previous map; cells outside the grid are wall.
    fn naive(start: &[Vec<bool>], c: &ClassicCaves) -> Vec<Vec<bool>> {
        let (h, w) = (start.len() as i64, start[0].len() as i64);
        let mut map = start.to_vec();
        let mut passes = vec![(c.threshold, true); c.passes as usize];
        passes.extend(vec![(c.final_threshold, false); c.final_passes as usize]);
        for (wall_at, opens) in passes {
            let old = map.clone();
            for y in 0..h {
                for x in 0..w {
                    let mut walls = 0;
                    for yy in y - 1..=y + 1 {
                        for xx in x - 1..=x + 1 {
                            if yy < 0 || xx < 0 || yy >= h || xx >= w || old[yy as usize][xx as usize] {
                                walls += 1;
                            }
                        }
                    }
                    if walls >= wall_at {
                        map[y as usize][x as usize] = true;
                    } else if opens && walls <= 2 {
                        map[y as usize][x as usize] = false;
                    }
                }
            }
        }
        map
    }

    #[test]
    fn passes_match_a_naive_reference_inside_the_halo() {
        let c = ClassicCaves { depth: 3, passes: 4, threshold: 5, final_passes: 2, final_threshold: 6 };
        let surface = |x: i32| (x / 7) % 3 - 1;
        let (x0, y0, w, h) = (-20, -5, 48, 40);
        let start: Vec<Vec<bool>> =
            (0..h).map(|j| (0..w).map(|i| c.starts_wall(11, surface(x0 + i), x0 + i, y0 + j)).collect()).collect();
        let want = naive(&start, &c);
        // Cells further than the passes from the grid's edge do not see the edge.
        let halo = c.total_passes() as i32;
        let inner = c.walls(11, surface, (x0 + halo, y0 + halo), ((w - 2 * halo) as usize, (h - 2 * halo) as usize));
        for j in 0..h - 2 * halo {
            for i in 0..w - 2 * halo {
                assert_eq!(
                    inner.get(i as usize, j as usize),
                    want[(j + halo) as usize][(i + halo) as usize],
                    "cell {i},{j}"
                );
            }
        }
        // The rule itself, on its edge cases.
        assert_eq!(classic_rule(5, 5, true), Some(true));
        assert_eq!(classic_rule(4, 5, true), None);
        assert_eq!(classic_rule(3, 5, true), None);
        assert_eq!(classic_rule(2, 5, true), Some(false));
        assert_eq!(classic_rule(0, 5, true), Some(false));
        assert_eq!(classic_rule(6, 6, false), Some(true));
        assert_eq!(classic_rule(5, 6, false), None);
        assert_eq!(classic_rule(0, 6, false), None, "the final passes never open a cell");
    }

    #[test]
    fn a_window_alone_equals_the_same_cells_of_a_larger_window() {
        let c = ClassicCaves { depth: 2, passes: 4, threshold: 5, final_passes: 2, final_threshold: 6 };
        let surface = |x: i32| -(x.rem_euclid(13));
        let big = c.walls(4, surface, (-64, -16), (192, 128));
        let mut open = 0;
        for (x0, y0, w, h) in [(0, 0, 64, 64), (-64, 0, 64, 64), (-7, 33, 19, 5), (100, -16, 28, 1)] {
            let part = c.walls(4, surface, (x0, y0), (w, h));
            for j in 0..h {
                for i in 0..w {
                    let (bi, bj) = ((x0 + 64) as usize + i, (y0 + 16) as usize + j);
                    assert_eq!(part.get(i, j), big.get(bi, bj), "({}, {})", x0 + i as i32, y0 + j as i32);
                    open += !part.get(i, j) as u32;
                }
            }
        }
        assert!(open > 500, "caves open: {open}");
        assert_eq!(c.walls(4, surface, (0, 0), (64, 64)), c.walls(4, surface, (0, 0), (64, 64)));
    }
}
