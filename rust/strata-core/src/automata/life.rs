//! Exactly the Game of Life (any Life-like "B…/S…" rule) on finite grids, and the flood fill
//! that keeps one main open region: on a finite grid for scripts, and on the infinite world
//! through a fixed world-aligned region grid, so that it is seamless.
//!
//! **Ticks.** [`life_ticks_2d`] applies [`CaRule::Life`] `ticks` times, double-buffered: tick
//! `k + 1` is a pure function of tick `k` (no cell sees a neighbour's new state). Cells outside the
//! grid are dead. The world's caves run the same bit-parallel step through
//! [`crate::automata::cellular::run_ca_3d`] / [`run_ca_2d`](crate::automata::cellular::run_ca_2d),
//! which evaluate the *infinite* automaton over a window (a halo of one cell per tick).
//!
//! **Open and alive.** In caves rock is alive (`true`) and open is dead (`false`); an *open
//! region* is a face-connected component of open cells (4 neighbours in 2D, 6 in 3D).
//!
//! **Flood fill of secondary regions** on a finite grid ([`fill_secondary_open`]): every open
//! region but the main one becomes rock. The main region is the largest; among equally large
//! ones, the one whose first cell in scan order (y, then z, then x; in 2D row by row) comes first.
//!
//! **On the infinite world** a largest component does not exist, so the world is cut into fixed
//! world-aligned regions ([`MainRegionGrid`]: `region` cells per axis) and each region `r` is
//! decided inside its *box* `B(r)`: `r` grown by `margin` cells on every side. An open cell of
//! `r` stays open iff it belongs to the main region of `B(r)` (the finite rule above, applied to
//! the automaton's cells in `B(r)`, components taken inside `B(r)` only). This is a pure
//! function of the infinite field and the cell's region, so any chunk computes it the same way,
//! whatever is loaded (law: Seamless): [`MainRegionGrid::window`] gives the cells a window must
//! hold to decide a box of cells, [`MainRegionGrid::fill_secondary`] decides them.
//!
//! Limits of the definition: each region keeps its own main cave, so the world holds one main
//! cave per region, not one in all; two caves of a region joined only by a path that leaves
//! `B(r)` count as two; a main cave's cells in `r` may be joined to each other only through the
//! margin, and cells of the neighbouring region there may be filled by that region's own choice,
//! so after the fill a few cells near a region border can be cut off. Inside one region every
//! open cell left belongs to the one main component of `B(r)`.
//!
//! May use: `base`, `preset` (the rule parser), `automata::cellular`, `automata::flood_fill`.

use crate::automata::cellular::{BitGrid2D, BitGrid3D, CaRule, CaScratch};
use crate::automata::flood_fill::label_components_3d;
use crate::base::coords::IVec3;
use crate::preset::life_rule::parse_life_rule;
use thiserror::Error;

/// Largest width or height of a grid of bytes given to [`life_cells_2d`] and
/// [`fill_secondary_cells_2d`].
pub const MAX_GRID_EDGE: i64 = 4096;
/// Most ticks one [`life_cells_2d`] call runs.
pub const MAX_TICKS: i64 = 4096;

/// Why a rule or a grid of bytes was refused; each message names the value and what is allowed.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum LifeGridError {
    #[error("rule \"{rule}\": {problem}; allowed: \"B…/S…\" with neighbour counts 0-8, e.g. B3/S23")]
    Rule { rule: String, problem: String },
    #[error("width {width} × height {height}: allowed 1..={MAX_GRID_EDGE} each")]
    Size { width: i64, height: i64 },
    #[error("cells has {len} bytes but width × height is {expected}")]
    Length { len: usize, expected: usize },
    #[error("ticks {0}: allowed 0..={MAX_TICKS}")]
    Ticks(i64),
}

/// A 2D Life-like rule from "B…/S…" (the preset's parser), refusing counts above 8, which a
/// 2D cell never has.
pub fn parse_rule_2d(rule: &str) -> Result<CaRule, LifeGridError> {
    let err = |problem: String| LifeGridError::Rule { rule: rule.into(), problem };
    let (birth, survival) = parse_life_rule(rule).map_err(|e| err(e.to_string()))?;
    if (birth | survival) >> 9 != 0 {
        let n = 31 - ((birth | survival) >> 9 << 9).leading_zeros();
        return Err(err(format!("neighbour count {n} exceeds 8")));
    }
    Ok(CaRule::Life { birth, survival })
}

/// A grid of `width × height` bytes (row by row, nonzero = alive), checked.
fn grid_of_cells(cells: &[u8], width: i64, height: i64) -> Result<BitGrid2D, LifeGridError> {
    if !(1..=MAX_GRID_EDGE).contains(&width) || !(1..=MAX_GRID_EDGE).contains(&height) {
        return Err(LifeGridError::Size { width, height });
    }
    let (w, h) = (width as usize, height as usize);
    if cells.len() != w * h {
        return Err(LifeGridError::Length { len: cells.len(), expected: w * h });
    }
    let mut g = BitGrid2D::new(w, h);
    for (i, &c) in cells.iter().enumerate() {
        if c != 0 {
            g.set(i % w, i / w, true);
        }
    }
    Ok(g)
}

/// The bytes of a grid, 1 alive and 0 dead.
fn cells_of_grid(g: &BitGrid2D) -> Vec<u8> {
    let mut out = Vec::with_capacity(g.width() * g.height());
    for y in 0..g.height() {
        out.extend((0..g.width()).map(|x| g.get(x, y) as u8));
    }
    out
}

/// [`life_ticks_2d`] of a grid of bytes (row by row, nonzero = alive; cells outside are dead):
/// the grid after `ticks` ticks, 1 alive and 0 dead.
pub fn life_cells_2d(
    cells: &[u8],
    width: i64,
    height: i64,
    rule: CaRule,
    ticks: i64,
) -> Result<Vec<u8>, LifeGridError> {
    let g = grid_of_cells(cells, width, height)?;
    if !(0..=MAX_TICKS).contains(&ticks) {
        return Err(LifeGridError::Ticks(ticks));
    }
    Ok(cells_of_grid(&life_ticks_2d(&g, rule, ticks as u32)))
}

/// [`fill_secondary_open_2d`] of a grid of bytes (0 open, nonzero rock): every open region but
/// the largest becomes rock; 1 rock and 0 open.
pub fn fill_secondary_cells_2d(cells: &[u8], width: i64, height: i64) -> Result<Vec<u8>, LifeGridError> {
    let mut g = grid_of_cells(cells, width, height)?;
    fill_secondary_open_2d(&mut g);
    Ok(cells_of_grid(&g))
}

/// The automaton's regions for the main-region fill of 3D caverns, in cells.
pub const REGION_3D: MainRegionGrid = MainRegionGrid { region: [32, 32, 32], margin: [8, 8, 8] };
/// The regions of 2D side-view caves, in tiles (2D `y` is the grid's `z`; `y` is one cell).
pub const REGION_2D: MainRegionGrid = MainRegionGrid { region: [64, 1, 64], margin: [16, 0, 16] };

/// `ticks` ticks of `rule` on `grid` (cells outside are dead), double-buffered.
pub fn life_ticks_2d(grid: &BitGrid2D, rule: CaRule, ticks: u32) -> BitGrid2D {
    let mut scratch = CaScratch::default();
    let (mut a, mut b) = (grid.clone(), BitGrid2D::new(0, 0));
    for _ in 0..ticks {
        a.step(rule, &mut b, &mut scratch);
        std::mem::swap(&mut a, &mut b);
    }
    a
}

/// Fills every open (`false`) region of `grid` but the main one (see the module docs); a grid
/// one cell tall in y is 2D. Returns the number of cells filled.
pub fn fill_secondary_open(grid: &mut BitGrid3D) -> usize {
    let comps = label_components_3d(grid, false);
    let Some(main) = main_label(&comps.sizes) else { return 0 };
    let [nx, ny, nz] = grid.size();
    let mut filled = 0;
    for y in 0..ny {
        for z in 0..nz {
            for x in 0..nx {
                let l = comps.labels[(y * nz + z) * nx + x];
                if l != 0 && l != main {
                    grid.set(x, y, z, true);
                    filled += 1;
                }
            }
        }
    }
    filled
}

/// [`fill_secondary_open`] of a 2D grid.
pub fn fill_secondary_open_2d(grid: &mut BitGrid2D) -> usize {
    fill_secondary_open(grid.as_3d_mut())
}

/// The label of the largest component, the first one among equals (labels follow scan order).
fn main_label(sizes: &[usize]) -> Option<u32> {
    let mut best: Option<(usize, u32)> = None;
    for (i, &s) in sizes.iter().enumerate() {
        if best.is_none_or(|(b, _)| s > b) {
            best = Some((s, i as u32 + 1));
        }
    }
    best.map(|(_, l)| l)
}

/// A world-aligned grid of regions with the margin of their boxes, in cells (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MainRegionGrid {
    /// Edge of a region per axis (x, y, z).
    pub region: [i32; 3],
    /// Cells added on each side of a region to make its box.
    pub margin: [i32; 3],
}

impl MainRegionGrid {
    /// The regions (inclusive index ranges per axis) that cells `[min, min + size)` touch.
    fn regions(&self, min: IVec3, size: IVec3) -> [(i32, i32); 3] {
        let (lo, s) = ([min.x, min.y, min.z], [size.x, size.y, size.z]);
        std::array::from_fn(|a| (lo[a].div_euclid(self.region[a]), (lo[a] + s[a] - 1).div_euclid(self.region[a])))
    }

    /// The cells (min, size) a window must hold to decide cells `[min, min + size)`: the union of
    /// the boxes of the regions they touch. `size` components must be positive.
    pub fn window(&self, min: IVec3, size: IVec3) -> (IVec3, IVec3) {
        let r = self.regions(min, size);
        let lo: [i32; 3] = std::array::from_fn(|a| r[a].0 * self.region[a] - self.margin[a]);
        let hi: [i32; 3] = std::array::from_fn(|a| (r[a].1 + 1) * self.region[a] + self.margin[a]);
        (IVec3::new(lo[0], lo[1], lo[2]), IVec3::new(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]))
    }

    /// Fills the open cells of `[min, min + size)` (world cells) that are not in the main region
    /// of their region's box. `grid` holds world cells from `origin` and must cover
    /// [`MainRegionGrid::window`] of that box; cells outside the box are left as they are.
    /// Returns the number of cells filled.
    pub fn fill_secondary(&self, grid: &mut BitGrid3D, origin: IVec3, min: IVec3, size: IVec3) -> usize {
        if size.x <= 0 || size.y <= 0 || size.z <= 0 {
            return 0;
        }
        let r = self.regions(min, size);
        let box_size = [0, 1, 2].map(|a| (self.region[a] + 2 * self.margin[a]) as usize);
        let o = [origin.x, origin.y, origin.z];
        let (lo, hi) = ([min.x, min.y, min.z], [min.x + size.x, min.y + size.y, min.z + size.z]);
        // Decide every region from the field as it was, then write the decisions.
        let mut fills: Vec<(usize, usize, usize)> = Vec::new();
        for ry in r[1].0..=r[1].1 {
            for rz in r[2].0..=r[2].1 {
                for rx in r[0].0..=r[0].1 {
                    let reg = [rx, ry, rz];
                    let box_min: [i32; 3] = std::array::from_fn(|a| reg[a] * self.region[a] - self.margin[a]);
                    let at: [usize; 3] = std::array::from_fn(|a| (box_min[a] - o[a]) as usize);
                    let mut sub = grid.crop(at[0], at[1], at[2], box_size);
                    let before = sub.clone();
                    if fill_secondary_open(&mut sub) == 0 {
                        continue;
                    }
                    // The cells of this region inside the decided box.
                    let c: [(i32, i32); 3] = std::array::from_fn(|a| {
                        let start = (reg[a] * self.region[a]).max(lo[a]);
                        let end = ((reg[a] + 1) * self.region[a]).min(hi[a]);
                        (start - box_min[a], end - box_min[a])
                    });
                    for y in c[1].0..c[1].1 {
                        for z in c[2].0..c[2].1 {
                            for x in c[0].0..c[0].1 {
                                let (x, y, z) = (x as usize, y as usize, z as usize);
                                if sub.get(x, y, z) && !before.get(x, y, z) {
                                    fills.push((x + at[0], y + at[1], z + at[2]));
                                }
                            }
                        }
                    }
                }
            }
        }
        for &(x, y, z) in &fills {
            grid.set(x, y, z, true);
        }
        fills.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::automata::cellular::{CaStage, initial_alive, run_ca_2d, run_ca_3d};
    use crate::automata::flood_fill::label_components_2d;
    use std::collections::HashSet;

    /// The Life-like rule from its definition, on the infinite plane: the set of live cells of
    /// the next tick. A cell is alive next iff it is alive and its count of live neighbours
    /// (the 8 around it) is in `survive`, or dead and that count is in `born`.
    fn reference_tick(live: &HashSet<(i64, i64)>, born: &[u32], survive: &[u32]) -> HashSet<(i64, i64)> {
        let mut candidates = HashSet::new();
        for &(x, y) in live {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    candidates.insert((x + dx, y + dy));
                }
            }
        }
        let mut next = HashSet::new();
        for (x, y) in candidates {
            let mut n = 0;
            for dy in -1..=1 {
                for dx in -1..=1 {
                    if (dx, dy) != (0, 0) && live.contains(&(x + dx, y + dy)) {
                        n += 1;
                    }
                }
            }
            let alive = live.contains(&(x, y));
            if (alive && survive.contains(&n)) || (!alive && born.contains(&n)) {
                next.insert((x, y));
            }
        }
        next
    }

    fn live_cells(g: &BitGrid2D) -> HashSet<(i64, i64)> {
        let mut s = HashSet::new();
        for y in 0..g.height() {
            for x in 0..g.width() {
                if g.get(x, y) {
                    s.insert((x as i64, y as i64));
                }
            }
        }
        s
    }

    fn conway() -> CaRule {
        let (birth, survival) = parse_life_rule("B3/S23").unwrap();
        CaRule::Life { birth, survival }
    }

    #[test]
    fn known_patterns_follow_conway() {
        let rule = conway();
        // Blinker: period 2.
        let blinker = BitGrid2D::from_rows(&[".....", "..#..", "..#..", "..#..", "....."]);
        let one = life_ticks_2d(&blinker, rule, 1);
        assert_eq!(one.to_rows(), vec![".....", ".....", ".###.", ".....", "....."]);
        assert_eq!(life_ticks_2d(&blinker, rule, 2), blinker);
        assert_eq!(life_ticks_2d(&blinker, rule, 7), one);
        // Block: still.
        let block = BitGrid2D::from_rows(&["....", ".##.", ".##.", "...."]);
        assert_eq!(life_ticks_2d(&block, rule, 5), block);
        // Glider: one cell down and right every 4 ticks.
        let glider = BitGrid2D::from_rows(&[
            ".#........",
            "..#.......",
            "###.......",
            "..........",
            "..........",
            "..........",
            "..........",
            "..........",
        ]);
        let start = live_cells(&glider);
        for k in 1..=4u32 {
            let moved: HashSet<_> = start.iter().map(|&(x, y)| (x + k as i64, y + k as i64)).collect();
            assert_eq!(live_cells(&life_ticks_2d(&glider, rule, 4 * k)), moved, "after {} ticks", 4 * k);
        }
    }

    #[test]
    fn ticks_equal_the_reference_on_random_soups() {
        // Soups in the middle of a grid wider than the ticks run on each side: nothing reaches
        // the border, so the finite grid must equal the infinite-plane reference exactly.
        for (i, rule_text) in ["B3/S23", "B36/S23", "B3678/S34678", "B3/S12345", "B1/S"].iter().enumerate() {
            let (birth, survival) = parse_life_rule(rule_text).unwrap();
            let bits = |m: u32| (0..=8).filter(|n| (m >> n) & 1 == 1).collect::<Vec<u32>>();
            let (born, survive) = (bits(birth), bits(survival));
            let ticks = 6;
            let (n, pad) = (20usize, 8usize);
            let mut g = BitGrid2D::new(n + 2 * pad, n + 2 * pad);
            for y in 0..n {
                for x in 0..n {
                    g.set(x + pad, y + pad, initial_alive(i as u64, 5, 0.4, x as i32, y as i32, 0));
                }
            }
            let mut live = live_cells(&g);
            for _ in 0..ticks {
                live = reference_tick(&live, &born, &survive);
            }
            // Life spreads at most one cell a tick: the reference never leaves the grid.
            let side = (n + 2 * pad) as i64;
            assert!(live.iter().all(|&(x, y)| (0..side).contains(&x) && (0..side).contains(&y)));
            assert_eq!(live_cells(&life_ticks_2d(&g, CaRule::Life { birth, survival }, ticks)), live, "{rule_text}");
        }
    }

    #[test]
    fn the_infinite_3d_automaton_equals_a_naive_reference() {
        // The world's window of Life ticks against ticks counted cell by cell over a window grown
        // by one cell per tick (cells beyond it are dead: they can only spoil the outer ring).
        for rule_text in ["B3/S23", "B14-19/S13-26", "B5-7/S4-9"] {
            let (birth, survival) = parse_life_rule(rule_text).unwrap();
            let rule = CaRule::Life { birth, survival };
            let ticks = 3;
            let (min, size) = (IVec3::new(-7, 3, -2), IVec3::new(11, 9, 10));
            let got = run_ca_3d(9, 4, 0.3, min, size, &[CaStage { rule, passes: ticks }]);
            let t = ticks as i32;
            let grown = size + IVec3::splat(2 * t);
            let idx = |x: i32, y: i32, z: i32| ((y * grown.z + z) * grown.x + x) as usize;
            let mut cells: Vec<bool> = vec![false; (grown.x * grown.y * grown.z) as usize];
            for y in 0..grown.y {
                for z in 0..grown.z {
                    for x in 0..grown.x {
                        let w = min - IVec3::splat(t) + IVec3::new(x, y, z);
                        cells[idx(x, y, z)] = initial_alive(9, 4, 0.3, w.x, w.y, w.z);
                    }
                }
            }
            for _ in 0..ticks {
                let mut next = cells.clone();
                for y in 0..grown.y {
                    for z in 0..grown.z {
                        for x in 0..grown.x {
                            let mut n = 0;
                            for dy in -1..=1 {
                                for dz in -1..=1 {
                                    for dx in -1..=1 {
                                        let (a, b, c) = (x + dx, y + dy, z + dz);
                                        let inside = (0..grown.x).contains(&a)
                                            && (0..grown.y).contains(&b)
                                            && (0..grown.z).contains(&c);
                                        if (dx, dy, dz) != (0, 0, 0) && inside && cells[idx(a, b, c)] {
                                            n += 1;
                                        }
                                    }
                                }
                            }
                            let mask = if cells[idx(x, y, z)] { survival } else { birth };
                            next[idx(x, y, z)] = (mask >> n) & 1 == 1;
                        }
                    }
                }
                cells = next;
            }
            for y in 0..size.y {
                for z in 0..size.z {
                    for x in 0..size.x {
                        assert_eq!(
                            got.get(x as usize, y as usize, z as usize),
                            cells[idx(x + t, y + t, z + t)],
                            "{rule_text} at {x} {y} {z}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn flood_fill_leaves_the_largest_open_region_only() {
        let mut g = BitGrid2D::from_rows(&["#######", "#..#..#", "#..#.##", "####.##", "#.##.##", "#######"]);
        // Regions: 4 cells at the left, 5 at the right, 1 at the bottom left.
        assert_eq!(fill_secondary_open_2d(&mut g), 5);
        assert_eq!(g.to_rows(), vec!["#######", "####..#", "####.##", "####.##", "####.##", "#######"]);
        // Ties: the first region in scan order stays.
        let mut t = BitGrid2D::from_rows(&["#.#.#"]);
        fill_secondary_open_2d(&mut t);
        assert_eq!(t.to_rows(), vec!["#.###"]);
        // On soups: exactly one open region left, the largest, every other cell unchanged.
        for seed in 0..6 {
            let before = run_ca_2d(seed, 1, 0.45, (0, 0), (70, 50), &[CaStage { rule: conway(), passes: 3 }]);
            let comps = label_components_2d(&before, false);
            let largest = comps.sizes.iter().copied().max().unwrap_or(0);
            let mut after = before.clone();
            fill_secondary_open_2d(&mut after);
            let left = label_components_2d(&after, false);
            assert_eq!(left.count(), 1, "seed {seed}");
            assert_eq!(left.sizes[0], largest);
            for y in 0..50 {
                for x in 0..70 {
                    assert!(after.get(x, y) || !before.get(x, y), "rock stays rock");
                }
            }
        }
        let mut solid = BitGrid2D::from_rows(&["###"]);
        assert_eq!(fill_secondary_open_2d(&mut solid), 0);
    }

    /// The main-region fill of cells `[min, min + size)` of the seeded Life field.
    fn filled_window(grid: MainRegionGrid, seed: u64, min: IVec3, size: IVec3, stages: &[CaStage]) -> BitGrid3D {
        let (wmin, wsize) = grid.window(min, size);
        let mut g = run_ca_3d(seed, 2, 0.5, wmin, wsize, stages);
        grid.fill_secondary(&mut g, wmin, min, size);
        let at = min - wmin;
        g.crop(at.x as usize, at.y as usize, at.z as usize, [size.x as usize, size.y as usize, size.z as usize])
    }

    #[test]
    fn the_world_fill_is_seamless_and_keeps_one_region_per_region() {
        let grid = MainRegionGrid { region: [12, 10, 14], margin: [3, 2, 4] };
        let (birth, survival) = parse_life_rule("B14-19/S13-26").unwrap();
        let stages = [CaStage { rule: CaRule::Life { birth, survival }, passes: 2 }];
        let (big_min, big_size) = (IVec3::new(-20, -15, -18), IVec3::new(48, 40, 50));
        let big = filled_window(grid, 3, big_min, big_size, &stages);
        let mut filled_any = false;
        for (min, size) in
            [(IVec3::new(-5, -3, 2), IVec3::new(13, 11, 9)), (IVec3::new(4, 0, -11), IVec3::new(1, 1, 1))]
        {
            let small = filled_window(grid, 3, min, size, &stages);
            for y in 0..size.y {
                for z in 0..size.z {
                    for x in 0..size.x {
                        let p = min + IVec3::new(x, y, z) - big_min;
                        assert_eq!(
                            small.get(x as usize, y as usize, z as usize),
                            big.get(p.x as usize, p.y as usize, p.z as usize),
                            "cell {:?}",
                            min + IVec3::new(x, y, z)
                        );
                    }
                }
            }
        }
        // Region (0, 0, 0): every open cell left lies in one component of its box before the fill.
        let box_min = IVec3::new(-3, -2, -4);
        let box_size = IVec3::new(18, 14, 22);
        let raw = run_ca_3d(3, 2, 0.5, box_min, box_size, &stages);
        let comps = label_components_3d(&raw, false);
        let mut labels = HashSet::new();
        for y in 0..10 {
            for z in 0..14 {
                for x in 0..12 {
                    let p = IVec3::new(x, y, z) - big_min;
                    let (bx, by, bz) = ((x + 3) as usize, (y + 2) as usize, (z + 4) as usize);
                    if !big.get(p.x as usize, p.y as usize, p.z as usize) {
                        labels.insert(comps.label(bx, by, bz));
                    } else if !raw.get(bx, by, bz) {
                        filled_any = true;
                    }
                }
            }
        }
        assert_eq!(labels.len(), 1, "{labels:?}");
        assert!(filled_any, "the test region should hold secondary regions");
    }

    #[test]
    fn windows_cover_the_boxes_of_the_regions_touched() {
        let grid = REGION_2D;
        let (min, size) = grid.window(IVec3::new(-1, 0, 63), IVec3::new(66, 1, 2));
        assert_eq!((min, size), (IVec3::new(-80, 0, -16), IVec3::new(224, 1, 160)));
        let (min, size) = REGION_3D.window(IVec3::new(0, 0, 0), IVec3::new(16, 16, 16));
        assert_eq!((min, size), (IVec3::splat(-8), IVec3::splat(48)));
    }

    #[test]
    fn byte_grids_run_the_same_automaton_and_refuse_bad_input() {
        let rule = parse_rule_2d("B3/S23").unwrap();
        assert_eq!(rule, CaRule::CONWAY);
        // A blinker in a 5×5 grid of bytes; any nonzero byte is alive.
        let mut cells = vec![0u8; 25];
        for y in 1..4 {
            cells[y * 5 + 2] = 7;
        }
        let one = life_cells_2d(&cells, 5, 5, rule, 1).unwrap();
        let mut expect = vec![0u8; 25];
        expect[2 * 5 + 1..2 * 5 + 4].fill(1);
        assert_eq!(one, expect);
        assert_eq!(life_cells_2d(&one, 5, 5, rule, 2).unwrap(), expect);
        let filled = fill_secondary_cells_2d(&[1, 0, 1, 0, 0, 1], 6, 1).unwrap();
        assert_eq!(filled, vec![1, 1, 1, 0, 0, 1]);
        // Errors name the value and what is allowed.
        let e = parse_rule_2d("B3S23").unwrap_err().to_string();
        assert!(e.contains("\"B3S23\"") && e.contains("B…/S…"), "{e}");
        let e = parse_rule_2d("B3/S2,9").unwrap_err().to_string();
        assert!(e.contains("count 9 exceeds 8"), "{e}");
        assert!(parse_rule_2d("B3/S2,27").unwrap_err().to_string().contains("exceeds 26"));
        assert_eq!(life_cells_2d(&cells, 5, 4, rule, 1), Err(LifeGridError::Length { len: 25, expected: 20 }));
        assert_eq!(life_cells_2d(&[], 0, 5, rule, 1), Err(LifeGridError::Size { width: 0, height: 5 }));
        assert_eq!(life_cells_2d(&cells, 5, 5, rule, -1), Err(LifeGridError::Ticks(-1)));
        assert_eq!(life_cells_2d(&cells, 5, 5, rule, MAX_TICKS + 1), Err(LifeGridError::Ticks(MAX_TICKS + 1)));
        let e = fill_secondary_cells_2d(&cells, 5000, 1).unwrap_err().to_string();
        assert_eq!(e, "width 5000 × height 1: allowed 1..=4096 each");
    }
}
