//! Flood fill: connected components of bit grids, and seamless removal of small pockets.
//!
//! Connectivity is by faces: 6 neighbours in 3D, 4 in 2D (a [`BitGrid2D`] is a one-cell-thick 3D
//! grid whose `y` never changes).
//!
//! **Pocket** (the exact definition [`fill_pockets_3d`] applies): a connected component `K` of
//! cells in the chosen state, taken in the *infinite* field, is a pocket iff
//! `|K| < rule.min_cells` and the bounding box of `K` is at most `rule.max_span` cells on every
//! axis. This is decided from any one cell `q` of `K` by a flood fill that is not allowed to leave
//! the box of Chebyshev radius `max_span - 1` around `q` and stops after `min_cells` cells:
//! - it wants to step outside that box → `K` holds a cell at distance ≥ `max_span` from `q`, so its
//!   bounding box exceeds `max_span` → not a pocket;
//! - it reaches `min_cells` cells → not a pocket;
//! - it finishes → `K` is known exactly and the definition is checked directly.
//!
//! So the decision depends only on the infinite field, never on which window computes it: a
//! window needs a halo of [`PocketRule::halo`] cells around the cells it decides (law: Seamless).
//!
//! May use: `base`, `automata::cellular` (the bit grids).

use crate::automata::cellular::{BitGrid2D, BitGrid3D};

/// Largest bounding-box edge (cells) of a pocket, whatever its volume: bounds the halo and work.
pub const MAX_POCKET_SPAN: usize = 8;

/// Which components count as pockets; see the module docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PocketRule {
    /// Components with fewer cells than this may be pockets (0 or 1: nothing is a pocket).
    pub min_cells: usize,
    /// Largest bounding-box edge of a pocket, in cells.
    pub max_span: usize,
}

impl PocketRule {
    /// Pockets are components of fewer than `min_cells` cells spanning at most
    /// `min(min_cells - 1, MAX_POCKET_SPAN)` cells per axis (the span bound is vacuous until
    /// `min_cells` exceeds `MAX_POCKET_SPAN + 1`).
    pub fn new(min_cells: usize) -> Self {
        Self { min_cells, max_span: min_cells.saturating_sub(1).min(MAX_POCKET_SPAN) }
    }

    /// Whether any component can be a pocket.
    pub fn is_active(&self) -> bool {
        self.min_cells >= 2 && self.max_span >= 1
    }

    /// Cells of context a window needs around the cells it decides.
    pub fn halo(&self) -> usize {
        self.max_span.saturating_sub(1)
    }
}

/// Connected components of the cells in one state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Components {
    /// Per cell (index `(y·nz + z)·nx + x`): 0 when not in the state, else the component's label.
    pub labels: Vec<u32>,
    /// `sizes[label - 1]` is the cell count of component `label`.
    pub sizes: Vec<usize>,
    size: [usize; 3],
}

impl Components {
    /// The label of cell `(x, y, z)`.
    pub fn label(&self, x: usize, y: usize, z: usize) -> u32 {
        self.labels[(y * self.size[2] + z) * self.size[0] + x]
    }

    /// The label of 2D cell `(x, y)`.
    pub fn label_2d(&self, x: usize, y: usize) -> u32 {
        self.label(x, 0, y)
    }

    pub fn count(&self) -> usize {
        self.sizes.len()
    }
}

#[inline]
fn neighbours(x: usize, y: usize, z: usize, size: [usize; 3], mut f: impl FnMut(Option<(usize, usize, usize)>)) {
    // `None` reports a neighbour outside the grid.
    let [nx, ny, nz] = size;
    f(x.checked_sub(1).map(|x| (x, y, z)));
    f((x + 1 < nx).then_some((x + 1, y, z)));
    f(z.checked_sub(1).map(|z| (x, y, z)));
    f((z + 1 < nz).then_some((x, y, z + 1)));
    if ny > 1 {
        f(y.checked_sub(1).map(|y| (x, y, z)));
        f((y + 1 < ny).then_some((x, y + 1, z)));
    }
}

/// Labels the face-connected components of cells equal to `state` (a grid one cell tall in y is
/// treated as 2D: 4-connected in x/z).
pub fn label_components_3d(grid: &BitGrid3D, state: bool) -> Components {
    let size = grid.size();
    let [nx, ny, nz] = size;
    let idx = |x: usize, y: usize, z: usize| (y * nz + z) * nx + x;
    let mut labels = vec![0u32; nx * ny * nz];
    let mut sizes = Vec::new();
    let mut stack = Vec::new();
    for y in 0..ny {
        for z in 0..nz {
            for x in 0..nx {
                if grid.get(x, y, z) != state || labels[idx(x, y, z)] != 0 {
                    continue;
                }
                let label = sizes.len() as u32 + 1;
                labels[idx(x, y, z)] = label;
                stack.push((x, y, z));
                let mut count = 0;
                while let Some((cx, cy, cz)) = stack.pop() {
                    count += 1;
                    neighbours(cx, cy, cz, size, |n| {
                        if let Some((a, b, c)) = n
                            && grid.get(a, b, c) == state
                            && labels[idx(a, b, c)] == 0
                        {
                            labels[idx(a, b, c)] = label;
                            stack.push((a, b, c));
                        }
                    });
                }
                sizes.push(count);
            }
        }
    }
    Components { labels, sizes, size }
}

/// Labels the 4-connected components of cells equal to `state` in a 2D grid.
pub fn label_components_2d(grid: &BitGrid2D, state: bool) -> Components {
    label_components_3d(grid.as_3d(), state)
}

/// Reusable buffers for [`fill_pockets_3d`].
#[derive(Default, Debug)]
pub struct PocketScratch {
    decided: Vec<u8>,
    queue: Vec<(u16, u16, u16)>,
}

const UNDECIDED: u8 = 0;
const VISITING: u8 = 1;
const KEPT: u8 = 2;

/// Flips every pocket of `state` cells (see the module docs) that has a cell inside the box
/// `[roi_min, roi_max)` to `!state`; returns the number of cells flipped. Decisions are exact when
/// the grid holds at least [`PocketRule::halo`] cells around that box. Grids larger than 65535
/// cells along an axis are left unchanged.
pub fn fill_pockets_3d(
    grid: &mut BitGrid3D,
    state: bool,
    rule: PocketRule,
    roi_min: [usize; 3],
    roi_max: [usize; 3],
    scratch: &mut PocketScratch,
) -> usize {
    let size = grid.size();
    let [nx, ny, nz] = size;
    if !rule.is_active() || size.iter().any(|&n| n > u16::MAX as usize) {
        return 0;
    }
    if rule.max_span == 1 {
        return fill_lone_cells(grid, state, roi_min, roi_max);
    }
    let idx = |x: usize, y: usize, z: usize| (y * nz + z) * nx + x;
    scratch.decided.clear();
    scratch.decided.resize(nx * ny * nz, UNDECIDED);
    let reach = rule.max_span - 1;
    let mut flipped = 0;
    let x_range = roi_min[0]..roi_max[0].min(nx);
    for y in roi_min[1]..roi_max[1].min(ny) {
        for z in roi_min[2]..roi_max[2].min(nz) {
            // Cells of the row in `state` inside the x range, one word at a time.
            for w in 0..nx.div_ceil(64) {
                let mut in_state = grid.row(y, z)[w];
                if !state {
                    in_state = !in_state;
                }
                in_state &= bit_range_mask(w, x_range.clone());
                while in_state != 0 {
                    let x = 64 * w + in_state.trailing_zeros() as usize;
                    in_state &= in_state - 1;
                    if scratch.decided[idx(x, y, z)] != UNDECIDED {
                        continue;
                    }
                    // Bounded flood fill from q = (x, y, z).
                    let lo = [x.saturating_sub(reach), y.saturating_sub(reach), z.saturating_sub(reach)];
                    let hi = [x + reach, y + reach, z + reach];
                    let (mut bmin, mut bmax) = ([x, y, z], [x, y, z]);
                    scratch.queue.clear();
                    scratch.queue.push((x as u16, y as u16, z as u16));
                    scratch.decided[idx(x, y, z)] = VISITING;
                    let mut head = 0;
                    let mut small = true;
                    'fill: while head < scratch.queue.len() {
                        let (cx, cy, cz) = scratch.queue[head];
                        head += 1;
                        let (cx, cy, cz) = (cx as usize, cy as usize, cz as usize);
                        let mut escaped = false;
                        let mut found = [(0usize, 0usize, 0usize); 6];
                        let mut n_found = 0;
                        neighbours(cx, cy, cz, size, |n| match n {
                            // Outside the grid is unknown (and outside q's box when the window has
                            // its halo): the component may go on there, so it is not a pocket.
                            None => escaped = true,
                            Some((a, b, c)) => {
                                if grid.get(a, b, c) == state && scratch.decided[idx(a, b, c)] != VISITING {
                                    found[n_found] = (a, b, c);
                                    n_found += 1;
                                }
                            }
                        });
                        if escaped {
                            small = false;
                            break 'fill;
                        }
                        for &(a, b, c) in &found[..n_found] {
                            if scratch.decided[idx(a, b, c)] == KEPT
                                || a < lo[0]
                                || b < lo[1]
                                || c < lo[2]
                                || a > hi[0]
                                || b > hi[1]
                                || c > hi[2]
                                || scratch.queue.len() + 1 >= rule.min_cells
                            {
                                small = false;
                                break 'fill;
                            }
                            scratch.decided[idx(a, b, c)] = VISITING;
                            scratch.queue.push((a as u16, b as u16, c as u16));
                            bmin = [bmin[0].min(a), bmin[1].min(b), bmin[2].min(c)];
                            bmax = [bmax[0].max(a), bmax[1].max(b), bmax[2].max(c)];
                        }
                    }
                    let span_ok = (0..3).all(|k| bmax[k] - bmin[k] < rule.max_span);
                    let pocket = small && span_ok && scratch.queue.len() < rule.min_cells;
                    for &(a, b, c) in &scratch.queue {
                        let (a, b, c) = (a as usize, b as usize, c as usize);
                        scratch.decided[idx(a, b, c)] = KEPT;
                        if pocket {
                            grid.set(a, b, c, !state);
                        }
                    }
                    if pocket {
                        flipped += scratch.queue.len();
                    }
                }
            }
        }
    }
    flipped
}

/// Bits of word `w` of a row (cells `64·w ..`) that lie in `range`.
fn bit_range_mask(w: usize, range: std::ops::Range<usize>) -> u64 {
    let (lo, hi) = (range.start.max(64 * w), range.end.min(64 * w + 64));
    if lo >= hi {
        return 0;
    }
    let width = hi - lo;
    let ones = if width == 64 { !0 } else { (1u64 << width) - 1 };
    ones << (lo - 64 * w)
}

/// [`fill_pockets_3d`] when pockets span one cell (`max_span == 1`, so `min_cells == 2`): a
/// pocket is a cell in `state` whose face neighbours all lie inside the grid and are all in
/// `!state`. Such cells never touch each other, so all of them are found at once, a word at a
/// time, and flipped together (the cell-by-cell fill flips exactly these).
fn fill_lone_cells(grid: &mut BitGrid3D, state: bool, roi_min: [usize; 3], roi_max: [usize; 3]) -> usize {
    let [nx, ny, nz] = grid.size();
    let words = nx.div_ceil(64);
    // Cells with all neighbours inside the grid: x in 1..nx-1, z in 1..nz-1 (and y when 3D).
    let (y_lo, y_hi) = if ny > 1 { (1, ny - 1) } else { (0, ny) };
    let ys = roi_min[1].max(y_lo)..roi_max[1].min(y_hi);
    let zs = roi_min[2].max(1)..roi_max[2].min(nz.saturating_sub(1));
    let xs = roi_min[0].max(1)..roi_max[0].min(nx.saturating_sub(1));
    if xs.is_empty() || ys.is_empty() || zs.is_empty() {
        return 0;
    }
    let last_mask = if nx % 64 == 0 { !0 } else { (1u64 << (nx % 64)) - 1 };
    // Word `w` of row (y, z) in `state` (bits past nx clear).
    let in_state = |grid: &BitGrid3D, y: usize, z: usize, w: usize| {
        let v = grid.row(y, z)[w];
        let v = if state { v } else { !v };
        if w + 1 == words { v & last_mask } else { v }
    };
    let mut lone = Vec::new();
    for y in ys {
        for z in zs.clone() {
            for w in 0..words {
                let centre = in_state(grid, y, z, w);
                let roi = bit_range_mask(w, xs.clone());
                if centre & roi == 0 {
                    continue;
                }
                let prev = if w > 0 { in_state(grid, y, z, w - 1) } else { 0 };
                let next = if w + 1 < words { in_state(grid, y, z, w + 1) } else { 0 };
                let left = (centre << 1) | (prev >> 63);
                let right = (centre >> 1) | (next << 63);
                let mut around = left | right | in_state(grid, y, z - 1, w) | in_state(grid, y, z + 1, w);
                if ny > 1 {
                    around |= in_state(grid, y - 1, z, w) | in_state(grid, y + 1, z, w);
                }
                let cells = centre & roi & !around;
                if cells != 0 {
                    lone.push((y, z, w, cells));
                }
            }
        }
    }
    let mut flipped = 0;
    for (y, z, w, cells) in lone {
        let mut bits = cells;
        while bits != 0 {
            let x = 64 * w + bits.trailing_zeros() as usize;
            bits &= bits - 1;
            grid.set(x, y, z, !state);
            flipped += 1;
        }
    }
    flipped
}

/// [`fill_pockets_3d`] for a 2D grid (4-connected).
pub fn fill_pockets_2d(
    grid: &mut BitGrid2D,
    state: bool,
    rule: PocketRule,
    roi_min: [usize; 2],
    roi_max: [usize; 2],
    scratch: &mut PocketScratch,
) -> usize {
    fill_pockets_3d(grid.as_3d_mut(), state, rule, [roi_min[0], 0, roi_min[1]], [roi_max[0], 1, roi_max[1]], scratch)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::automata::cellular::{CaRule, CaStage, run_ca_3d};
    use crate::base::coords::IVec3;

    #[test]
    fn two_rooms_and_a_corridor_are_one_component() {
        // `.` open (state false), `#` rock.
        let rows = [
            "##########",
            "#...##...#",
            "#...##...#",
            "#........#",
            "#...##...#",
            "##########",
            "#.#..#####",
            "##########",
        ];
        let g = BitGrid2D::from_rows(&rows);
        let c = label_components_2d(&g, false);
        assert_eq!(c.count(), 3);
        assert_eq!(c.sizes, vec![26, 1, 2]);
        assert_eq!(c.label_2d(1, 1), c.label_2d(8, 4));
        assert_eq!(c.label_2d(0, 0), 0);
        // Diagonal cells are not connected in 2D.
        let d = BitGrid2D::from_rows(&["#.", ".#"]);
        assert_eq!(label_components_2d(&d, false).count(), 2);
    }

    #[test]
    fn three_d_components_connect_through_faces_only() {
        let mut g = BitGrid3D::new(4, 4, 4);
        g.set(0, 0, 0, true);
        g.set(1, 1, 1, true); // diagonal: separate
        g.set(1, 2, 1, true); // above (1,1,1): joined
        g.set(3, 3, 3, true);
        let c = label_components_3d(&g, true);
        assert_eq!(c.sizes, vec![1, 2, 1]);
        assert_eq!(c.label(1, 1, 1), c.label(1, 2, 1));
        let air = label_components_3d(&g, false);
        assert_eq!(air.count(), 1);
        assert_eq!(air.sizes[0], 60);
    }

    #[test]
    fn isolated_bubbles_are_filled_and_rooms_kept() {
        let rows = ["############", "#.##..###..#", "####..###..#", "#########..#", "#.#.########", "############"];
        let mut g = BitGrid2D::from_rows(&rows);
        let mut s = PocketScratch::default();
        // Components: 1-cell bubbles at (1,1), (1,4), (3,4) and a 2×2 room (4 cells) are below 5
        // cells and get filled; the 2×3 room (6 cells) stays.
        let n = fill_pockets_2d(&mut g, false, PocketRule::new(5), [0, 0], [12, 6], &mut s);
        assert_eq!(n, 7);
        assert_eq!(
            g.to_rows(),
            vec!["############", "#########..#", "#########..#", "#########..#", "############", "############"]
        );
    }

    #[test]
    fn pockets_touching_the_window_border_are_kept() {
        let mut g = BitGrid2D::from_rows(&[".##", "###"]);
        let n = fill_pockets_2d(&mut g, false, PocketRule::new(4), [0, 0], [3, 2], &mut PocketScratch::default());
        assert_eq!(n, 0);
    }

    #[test]
    fn pocket_removal_is_seamless() {
        // Fill pockets in a big window and in small windows (each with the halo); the small
        // windows must agree with the big one cell for cell.
        let stages = [CaStage { rule: CaRule::AtLeast(14), passes: 2 }];
        let rule = PocketRule::new(12);
        let h = rule.halo() as i32;
        let big_min = IVec3::new(-30, -30, -30);
        let big_size = IVec3::splat(60);
        let mut big = run_ca_3d(3, 9, 0.6, big_min, big_size, &stages);
        let mut s = PocketScratch::default();
        let filled = fill_pockets_3d(&mut big, false, rule, [h as usize; 3], [(60 - h) as usize; 3], &mut s);
        assert!(filled > 0, "the test field should contain pockets");
        for (wmin, wsize) in
            [(IVec3::new(-20, -20, -20), IVec3::splat(13)), (IVec3::new(-3, -8, 1), IVec3::new(17, 9, 11))]
        {
            let mut small = run_ca_3d(3, 9, 0.6, wmin - IVec3::splat(h), wsize + IVec3::splat(2 * h), &stages);
            let inner = [(wsize.x + h) as usize, (wsize.y + h) as usize, (wsize.z + h) as usize];
            fill_pockets_3d(&mut small, false, rule, [h as usize; 3], inner, &mut s);
            for y in 0..wsize.y {
                for z in 0..wsize.z {
                    for x in 0..wsize.x {
                        let p = wmin + IVec3::new(x, y, z) - big_min;
                        assert_eq!(
                            small.get((x + h) as usize, (y + h) as usize, (z + h) as usize),
                            big.get(p.x as usize, p.y as usize, p.z as usize),
                            "cell {:?}",
                            wmin + IVec3::new(x, y, z)
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn one_cell_pockets_are_the_cells_walled_in_on_every_face() {
        // PocketRule::new(2) takes the word-parallel path: compare it with the definition.
        let mut s = PocketScratch::default();
        for (nx, ny, nz, roi_min, roi_max) in [
            (40, 9, 10, [0, 0, 0], [40, 9, 10]),
            (70, 6, 7, [3, 1, 2], [68, 5, 6]),
            (33, 1, 20, [0, 0, 0], [33, 1, 20]),
        ] {
            for state in [false, true] {
                let before = run_ca_3d(5, 1, 0.8, IVec3::ZERO, IVec3::new(nx, ny, nz), &[]);
                let [nx, ny, nz] = before.size();
                let mut after = before.clone();
                let flipped = fill_pockets_3d(&mut after, state, PocketRule::new(2), roi_min, roi_max, &mut s);
                let mut expect = 0;
                for y in 0..ny {
                    for z in 0..nz {
                        for x in 0..nx {
                            let in_roi = (0..3).all(|a| [x, y, z][a] >= roi_min[a] && [x, y, z][a] < roi_max[a]);
                            let mut walled = before.get(x, y, z) == state;
                            neighbours(x, y, z, [nx, ny, nz], |n| match n {
                                None => walled = false,
                                Some((a, b, c)) => walled &= before.get(a, b, c) != state,
                            });
                            let pocket = in_roi && walled;
                            expect += pocket as usize;
                            assert_eq!(
                                after.get(x, y, z),
                                if pocket { !state } else { before.get(x, y, z) },
                                "{x} {y} {z}"
                            );
                        }
                    }
                }
                assert_eq!(flipped, expect);
                assert!(ny == 1 || state || expect > 0, "the test grid should hold one-cell pockets");
            }
        }
    }
}
