//! Cellular automata on bit grids, in 2D and 3D, and their seamless evaluation on infinite fields.
//!
//! A grid stores one bit per cell (`true` = alive; the cave stage reads alive as rock). Rows run
//! along x and are packed into `u64` words, so one step updates 64 cells at once: each row is
//! summed with its left/right shifts by a bitwise full adder, then the row sums of the
//! neighbouring rows are added bit-sliced (4 or 5 bit planes), and the rule is applied to the bit
//! planes. [`naive_step_3d`] counts neighbours one cell at a time; tests check that both agree.
//!
//! Rules ([`CaRule`]):
//! - [`CaRule::AtLeast`]`(t)`: a cell is alive next iff at least `t` cells of its neighbourhood,
//!   **the cell itself included**, are alive: 3×3 = 9 cells in 2D, 3×3×3 = 27 in 3D. The classic
//!   4-5 cave rule (alive with ≥ 4 alive neighbours, born with ≥ 5) is exactly `AtLeast(5)` in 2D.
//! - [`CaRule::Life`]: Life-like birth/survival bitmasks over the neighbour count **excluding**
//!   the cell (8 neighbours in 2D, 26 in 3D): bit `n` of `birth` makes a dead cell with `n` alive
//!   neighbours alive, bit `n` of `survival` keeps an alive one alive. B3/S23 is Conway's Life.
//!
//! Cells outside a grid count as dead, so a step is exact everywhere except within one cell of the
//! grid's border. [`run_ca_2d`] and [`run_ca_3d`] compute the *infinite* automaton over a window:
//! the initial state of a cell is a pure hash of (seed, salt, world cell), the window is grown by a
//! halo of one cell per pass, and the halo is cropped at the end. The result therefore equals the
//! same window cut from any larger run (seamless), whatever window asked for it.
//!
//! May use: `base`.

use crate::base::coords::IVec3;
use crate::base::rng::mix64;

/// A cellular automaton rule; see the module docs for the exact definitions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaRule {
    /// Alive next iff at least this many cells of the neighbourhood (cell included) are alive.
    AtLeast(u32),
    /// Life-like birth/survival bitmasks over the neighbour count (cell excluded).
    Life { birth: u32, survival: u32 },
}

impl CaRule {
    /// The 4-5 rule of cave generators, in 2D: ≥ 5 alive in the 3×3 block.
    pub const FOUR_FIVE: CaRule = CaRule::AtLeast(5);
    /// Conway's Game of Life, B3/S23.
    pub const CONWAY: CaRule = CaRule::Life { birth: 1 << 3, survival: (1 << 2) | (1 << 3) };

    /// Bitmasks over the inclusive count (cell included, 0..=27): `(if_dead, if_alive)`; bit `n`
    /// set means "alive next" for a cell of that state whose inclusive count is `n`.
    fn inclusive_masks(self) -> (u32, u32) {
        match self {
            CaRule::AtLeast(t) => {
                let m = if t >= 32 { 0 } else { !0u32 << t };
                (m, m)
            }
            // A dead cell's inclusive count equals its neighbour count; an alive one's is one more.
            CaRule::Life { birth, survival } => (birth, survival << 1),
        }
    }
}

/// Some passes of one rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CaStage {
    pub rule: CaRule,
    pub passes: u32,
}

/// Total passes of a list of stages: also the halo (in cells) a window needs.
pub fn total_passes(stages: &[CaStage]) -> u32 {
    stages.iter().map(|s| s.passes).sum()
}

/// A dense 3D grid of bits, `nx × ny × nz`; row `(y, z)` holds x in `u64` words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BitGrid3D {
    nx: usize,
    ny: usize,
    nz: usize,
    words_per_row: usize,
    words: Vec<u64>,
}

impl BitGrid3D {
    /// An all-dead grid.
    pub fn new(nx: usize, ny: usize, nz: usize) -> Self {
        let words_per_row = nx.div_ceil(64);
        Self { nx, ny, nz, words_per_row, words: vec![0; words_per_row * ny * nz] }
    }

    /// `[nx, ny, nz]`.
    pub fn size(&self) -> [usize; 3] {
        [self.nx, self.ny, self.nz]
    }

    #[inline]
    fn row_start(&self, y: usize, z: usize) -> usize {
        (y * self.nz + z) * self.words_per_row
    }

    /// The words of row `(y, z)`; bits past `nx` are zero.
    pub fn row(&self, y: usize, z: usize) -> &[u64] {
        let s = self.row_start(y, z);
        &self.words[s..s + self.words_per_row]
    }

    #[inline]
    pub fn get(&self, x: usize, y: usize, z: usize) -> bool {
        debug_assert!(x < self.nx && y < self.ny && z < self.nz);
        (self.words[self.row_start(y, z) + x / 64] >> (x % 64)) & 1 == 1
    }

    #[inline]
    pub fn set(&mut self, x: usize, y: usize, z: usize, alive: bool) {
        debug_assert!(x < self.nx && y < self.ny && z < self.nz);
        let i = self.row_start(y, z) + x / 64;
        let bit = 1u64 << (x % 64);
        if alive {
            self.words[i] |= bit;
        } else {
            self.words[i] &= !bit;
        }
    }

    /// Number of alive cells.
    pub fn count_alive(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Mask of the valid bits of a row's last word.
    fn last_word_mask(&self) -> u64 {
        match self.nx % 64 {
            0 => !0,
            r => (1u64 << r) - 1,
        }
    }

    /// One bit-parallel step of `rule` from `self` into `out` (resized to match).
    pub fn step(&self, rule: CaRule, out: &mut BitGrid3D, scratch: &mut CaScratch) {
        self.step_inner(rule, out, scratch, 0);
    }

    /// A step that computes only rows at least `margin` rows from the y and z borders (y only
    /// when the grid is more than one cell tall); other rows of `out` are left dead. Used when
    /// the rows near the border are a halo that is cropped anyway.
    ///
    /// One y plane at a time: the horizontal sums of its rows (2 bit planes), then their sums over
    /// z − 1, z, z + 1 (4 bit planes, kept for the last three y planes), then the sums of three
    /// such planes over y (5 bit planes) and the rule. Every bit plane is a contiguous run of
    /// words (structure of arrays), so each pass is a straight loop over words.
    fn step_inner(&self, rule: CaRule, out: &mut BitGrid3D, scratch: &mut CaScratch, margin: usize) {
        out.reshape_like(self);
        let (wpr, ny, nz) = (self.words_per_row, self.ny, self.nz);
        let my = if ny > 1 { margin } else { 0 };
        if wpr == 0 || ny <= 2 * my || nz <= 2 * margin {
            out.words.fill(0);
            return;
        }
        let (y_out, z_out) = (my..ny - my, margin..nz - margin);
        let y_in = y_out.start.saturating_sub(1)..(y_out.end + 1).min(ny);
        let z_in = z_out.start.saturating_sub(1)..(z_out.end + 1).min(nz);
        let plane = nz * wpr;
        let (z_lo, z_hi) = (z_out.start * wpr, z_out.end * wpr);
        // Rows that are not computed stay dead.
        out.words[..y_out.start * plane].fill(0);
        out.words[y_out.end * plane..].fill(0);
        if margin > 0 {
            for y in y_out.clone() {
                out.words[y * plane..y * plane + z_lo].fill(0);
                out.words[y * plane + z_hi..(y + 1) * plane].fill(0);
            }
        }
        // Horizontal sums of one y plane, one zero row before and after in z: [bit][z + 1][word].
        // Rows outside z_in are read only at the two padding rows, which stay zero.
        let padded = (nz + 2) * wpr;
        scratch.horizontal.resize(2 * padded, 0);
        for bit in 0..2 {
            scratch.horizontal[bit * padded..bit * padded + wpr].fill(0);
            scratch.horizontal[(bit + 1) * padded - wpr..(bit + 1) * padded].fill(0);
        }
        // Planar sums of the last three y planes, then a plane of zeros: [slot][bit][z][word].
        scratch.planar.resize(16 * plane, 0);
        scratch.planar[12 * plane..].fill(0);
        let (if_dead, if_alive) = rule.inclusive_masks();
        let kernel = RuleKernel::new(rule, if_dead, if_alive);
        let last_mask = self.last_word_mask();
        // With one word per row every word is a last word: the kernel masks them as it writes.
        let word_mask = if wpr == 1 { last_mask } else { !0 };
        for y in y_in.clone() {
            // 1. Horizontal sums (left + centre + right) of the rows z_in of plane y.
            let (h0, h1) = scratch.horizontal.split_at_mut(padded);
            let src = &self.words[(y * nz + z_in.start) * wpr..(y * nz + z_in.end) * wpr];
            let dst = (z_in.start + 1) * wpr..(z_in.end + 1) * wpr;
            horizontal_sums(src, wpr, &mut h0[dst.clone()], &mut h1[dst]);
            // 2. Sums over z − 1, z, z + 1 (0..=9) of the rows z_out, into slot y mod 3.
            let slot = &mut scratch.planar[(y % 3) * 4 * plane..(y % 3 + 1) * 4 * plane];
            let (p0, rest) = slot.split_at_mut(plane);
            let (p1, rest) = rest.split_at_mut(plane);
            let (p2, p3) = rest.split_at_mut(plane);
            let n = z_hi - z_lo;
            let (h0, h1) = (&*h0, &*h1);
            let at = |dz: usize| z_lo + dz * wpr..z_lo + dz * wpr + n;
            planar_sums(
                [&h0[at(0)], &h0[at(1)], &h0[at(2)]],
                [&h1[at(0)], &h1[at(1)], &h1[at(2)]],
                [&mut p0[z_lo..z_hi], &mut p1[z_lo..z_hi], &mut p2[z_lo..z_hi], &mut p3[z_lo..z_hi]],
            );
            // 3. Plane y − 1 has all three of its planar sums once plane y has them.
            if y >= 1 && y_out.contains(&(y - 1)) {
                self.emit_plane(y - 1, &y_in, &kernel, scratch, out, z_lo..z_hi, word_mask);
            }
        }
        // The top plane of y_out when its upper neighbour lies outside the grid.
        if y_out.end == y_in.end {
            self.emit_plane(y_out.end - 1, &y_in, &kernel, scratch, out, z_lo..z_hi, word_mask);
        }
        if wpr > 1 && last_mask != !0 {
            for y in y_out {
                for z in z_out.clone() {
                    out.words[(y * nz + z) * wpr + wpr - 1] &= last_mask;
                }
            }
        }
    }

    /// Step 3 of [`BitGrid3D::step_inner`] for plane `y`: the planar sums of `y − 1`, `y`, `y + 1`
    /// (slot `y mod 3`, or zeros outside `y_in`), added, then the rule, into words `range` of
    /// the plane (rows z_out).
    #[allow(clippy::too_many_arguments)]
    fn emit_plane(
        &self,
        y: usize,
        y_in: &std::ops::Range<usize>,
        kernel: &RuleKernel,
        scratch: &CaScratch,
        out: &mut BitGrid3D,
        range: std::ops::Range<usize>,
        word_mask: u64,
    ) {
        let plane = self.nz * self.words_per_row;
        let slot_of = |yy: usize| if y_in.contains(&yy) { yy % 3 } else { 3 };
        let slots = [y.checked_sub(1).map_or(3, slot_of), slot_of(y), slot_of(y + 1)];
        let n = range.len();
        let planar = &scratch.planar[..];
        let sums = |slot: usize| {
            let at = slot * 4 * plane + range.start;
            [
                &planar[at..at + n],
                &planar[at + plane..at + plane + n],
                &planar[at + 2 * plane..at + 2 * plane + n],
                &planar[at + 3 * plane..at + 3 * plane + n],
            ]
        };
        let planes = [sums(slots[0]), sums(slots[1]), sums(slots[2])];
        let base = y * plane;
        let me = &self.words[base + range.start..base + range.end];
        let dst = &mut out.words[base + range.start..base + range.end];
        kernel.apply(planes[0], planes[1], planes[2], me, dst, word_mask);
    }

    /// Takes `other`'s dimensions; the words keep whatever they held (callers overwrite them).
    fn reshape_like(&mut self, other: &BitGrid3D) {
        self.nx = other.nx;
        self.ny = other.ny;
        self.nz = other.nz;
        self.words_per_row = other.words_per_row;
        self.words.resize(other.words.len(), 0);
    }

    /// The sub-grid starting at `(x0, y0, z0)` of size `[nx, ny, nz]`, which must lie inside.
    pub fn crop(&self, x0: usize, y0: usize, z0: usize, size: [usize; 3]) -> BitGrid3D {
        let mut out = BitGrid3D::new(0, 0, 0);
        self.crop_into(x0, y0, z0, size, &mut out);
        out
    }

    /// [`BitGrid3D::crop`] into `out`, reusing its allocation (every word of `out` is written).
    pub fn crop_into(&self, x0: usize, y0: usize, z0: usize, size: [usize; 3], out: &mut BitGrid3D) {
        assert!(x0 + size[0] <= self.nx && y0 + size[1] <= self.ny && z0 + size[2] <= self.nz, "crop outside the grid");
        let words_per_row = size[0].div_ceil(64);
        (out.nx, out.ny, out.nz, out.words_per_row) = (size[0], size[1], size[2], words_per_row);
        out.words.resize(words_per_row * size[1] * size[2], 0);
        let last_mask = out.last_word_mask();
        for y in 0..size[1] {
            for z in 0..size[2] {
                let src = self.row(y0 + y, z0 + z);
                let dst = out.row_start(y, z);
                for i in 0..out.words_per_row {
                    let bit = x0 + 64 * i;
                    let (w, b) = (bit / 64, bit % 64);
                    let lo = src.get(w).copied().unwrap_or(0) >> b;
                    let hi = if b == 0 { 0 } else { src.get(w + 1).copied().unwrap_or(0) << (64 - b) };
                    let v = lo | hi;
                    out.words[dst + i] = if i + 1 == out.words_per_row { v & last_mask } else { v };
                }
            }
        }
    }
}

/// A dense 2D grid of bits, `width × height` (stored as a 3D grid one cell thick).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BitGrid2D {
    inner: BitGrid3D,
}

impl BitGrid2D {
    pub fn new(width: usize, height: usize) -> Self {
        Self { inner: BitGrid3D::new(width, 1, height) }
    }

    /// A grid from rows of text, top row first (`y = 0`): `#` is alive, anything else dead.
    pub fn from_rows(rows: &[&str]) -> Self {
        let width = rows.iter().map(|r| r.chars().count()).max().unwrap_or(0);
        let mut g = Self::new(width, rows.len());
        for (y, r) in rows.iter().enumerate() {
            for (x, ch) in r.chars().enumerate() {
                g.set(x, y, ch == '#');
            }
        }
        g
    }

    /// Rows of text, `#` alive and `.` dead (the inverse of [`BitGrid2D::from_rows`]).
    pub fn to_rows(&self) -> Vec<String> {
        (0..self.height())
            .map(|y| (0..self.width()).map(|x| if self.get(x, y) { '#' } else { '.' }).collect())
            .collect()
    }

    pub fn width(&self) -> usize {
        self.inner.nx
    }

    pub fn height(&self) -> usize {
        self.inner.nz
    }

    #[inline]
    pub fn get(&self, x: usize, y: usize) -> bool {
        self.inner.get(x, 0, y)
    }

    #[inline]
    pub fn set(&mut self, x: usize, y: usize, alive: bool) {
        self.inner.set(x, 0, y, alive)
    }

    pub fn count_alive(&self) -> usize {
        self.inner.count_alive()
    }

    /// The words of row `y`.
    pub fn row(&self, y: usize) -> &[u64] {
        self.inner.row(0, y)
    }

    /// One bit-parallel step (3×3 neighbourhood) into `out`.
    pub fn step(&self, rule: CaRule, out: &mut BitGrid2D, scratch: &mut CaScratch) {
        self.inner.step(rule, &mut out.inner, scratch)
    }

    /// The sub-grid at `(x0, y0)` of `width × height`, which must lie inside.
    pub fn crop(&self, x0: usize, y0: usize, width: usize, height: usize) -> BitGrid2D {
        BitGrid2D { inner: self.inner.crop(x0, 0, y0, [width, 1, height]) }
    }

    /// The underlying one-cell-thick 3D grid (2D `y` is its `z`).
    pub fn as_3d(&self) -> &BitGrid3D {
        &self.inner
    }

    pub fn as_3d_mut(&mut self) -> &mut BitGrid3D {
        &mut self.inner
    }
}

/// Reusable buffers for [`BitGrid3D::step`], so repeated steps allocate nothing.
#[derive(Default, Debug)]
pub struct CaScratch {
    horizontal: Vec<u64>,
    planar: Vec<u64>,
    spare: Option<BitGrid3D>,
    /// The grid of the last seeded window (cropped, then given back), and the seeding's rows.
    seeded: Option<BitGrid3D>,
    /// A grid whose allocation the next cropped result reuses (see [`CaScratch::give_back`]).
    cropped: Option<BitGrid3D>,
    first_halves: Vec<u64>,
    alive: Vec<u64>,
}

impl CaScratch {
    /// Keeps a grid that [`run_ca_3d_with`] returned and its caller no longer needs, so that the
    /// next run's result reuses its allocation.
    pub fn give_back(&mut self, grid: BitGrid3D) {
        self.cropped = Some(grid);
    }
}

/// Horizontal sums (left + centre + right, 0..=3) of rows of `wpr` words, as two bit planes.
#[inline(never)]
fn horizontal_sums(src: &[u64], wpr: usize, h0: &mut [u64], h1: &mut [u64]) {
    #[cfg(target_arch = "x86_64")]
    if crate::base::simd::avx2() {
        // SAFETY: the CPU has AVX2.
        return unsafe { horizontal_sums_avx2(src, wpr, h0, h1) };
    }
    horizontal_sums_body(src, wpr, h0, h1)
}

/// [`horizontal_sums`] built for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn horizontal_sums_avx2(src: &[u64], wpr: usize, h0: &mut [u64], h1: &mut [u64]) {
    horizontal_sums_body(src, wpr, h0, h1)
}

#[inline(always)]
fn horizontal_sums_body(src: &[u64], wpr: usize, h0: &mut [u64], h1: &mut [u64]) {
    if wpr == 1 {
        for ((&c, d0), d1) in src.iter().zip(h0.iter_mut()).zip(h1.iter_mut()) {
            let (l, r) = (c << 1, c >> 1);
            *d0 = l ^ c ^ r;
            *d1 = majority(l, c, r);
        }
        return;
    }
    for ((row, d0), d1) in src.chunks_exact(wpr).zip(h0.chunks_exact_mut(wpr)).zip(h1.chunks_exact_mut(wpr)) {
        for i in 0..wpr {
            let c = row[i];
            let prev = if i > 0 { row[i - 1] } else { 0 };
            let next = if i + 1 < wpr { row[i + 1] } else { 0 };
            let l = (c << 1) | (prev >> 63);
            let r = (c >> 1) | (next << 63);
            d0[i] = l ^ c ^ r;
            d1[i] = majority(l, c, r);
        }
    }
}

/// Sums of three 2-bit numbers (bit planes `low`, `high`; 0..=9) into four bit planes.
#[inline]
fn planar_sums(low: [&[u64]; 3], high: [&[u64]; 3], out: [&mut [u64]; 4]) {
    let [o0, o1, o2, o3] = out;
    planar_words(low[0], low[1], low[2], high[0], high[1], high[2], o0, o1, o2, o3);
}

/// The loop of [`planar_sums`], every plane its own argument (see [`at_least_words`]).
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn planar_words(
    a0: &[u64],
    b0: &[u64],
    c0: &[u64],
    a1: &[u64],
    b1: &[u64],
    c1: &[u64],
    o0: &mut [u64],
    o1: &mut [u64],
    o2: &mut [u64],
    o3: &mut [u64],
) {
    #[cfg(target_arch = "x86_64")]
    if crate::base::simd::avx2() {
        // SAFETY: the CPU has AVX2.
        return unsafe { planar_words_avx2(a0, b0, c0, a1, b1, c1, o0, o1, o2, o3) };
    }
    planar_words_body(a0, b0, c0, a1, b1, c1, o0, o1, o2, o3)
}

/// [`planar_words`] built for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[allow(clippy::too_many_arguments)]
fn planar_words_avx2(
    a0: &[u64],
    b0: &[u64],
    c0: &[u64],
    a1: &[u64],
    b1: &[u64],
    c1: &[u64],
    o0: &mut [u64],
    o1: &mut [u64],
    o2: &mut [u64],
    o3: &mut [u64],
) {
    planar_words_body(a0, b0, c0, a1, b1, c1, o0, o1, o2, o3)
}

#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn planar_words_body(
    a0: &[u64],
    b0: &[u64],
    c0: &[u64],
    a1: &[u64],
    b1: &[u64],
    c1: &[u64],
    o0: &mut [u64],
    o1: &mut [u64],
    o2: &mut [u64],
    o3: &mut [u64],
) {
    let n = o0.len();
    let (a0, b0, c0, a1, b1, c1) = (&a0[..n], &b0[..n], &c0[..n], &a1[..n], &b1[..n], &c1[..n]);
    let (o1, o2, o3) = (&mut o1[..n], &mut o2[..n], &mut o3[..n]);
    for i in 0..n {
        // Weight 1: a full adder; weight 2: four bits (three highs and the carry).
        let (s0, k1) = full_add(a0[i], b0[i], c0[i]);
        let (x, k2) = full_add(a1[i], b1[i], c1[i]);
        let (s1, k2b) = (x ^ k1, x & k1);
        o0[i] = s0;
        o1[i] = s1;
        o2[i] = k2 ^ k2b;
        o3[i] = k2 & k2b;
    }
}

#[inline(always)]
fn majority(a: u64, b: u64, c: u64) -> u64 {
    (a & b) | (c & (a | b))
}

/// Bit-sliced full adder: (sum, carry).
#[inline(always)]
fn full_add(a: u64, b: u64, c: u64) -> (u64, u64) {
    let t = a ^ b;
    (t ^ c, (a & b) | (c & t))
}

/// Sum of three 4-bit planar sums (each ≤ 9) as a 5-bit number (≤ 27), least significant first.
#[inline(always)]
fn add3x4(a: [u64; 4], b: [u64; 4], c: [u64; 4]) -> [u64; 5] {
    let (t0, k1) = full_add(a[0], b[0], c[0]);
    let (x, k2) = full_add(a[1], b[1], c[1]);
    let (t1, k2b) = (x ^ k1, x & k1);
    let (u, k4) = full_add(a[2], b[2], c[2]);
    let (t2, k4b) = full_add(u, k2, k2b);
    let (w, k8) = full_add(a[3], b[3], c[3]);
    let (t3, k8b) = full_add(w, k4, k4b);
    // Two carries into bit 4 would make the sum at least 32 > 27: they never meet.
    [t0, t1, t2, t3, k8 | k8b]
}

/// A rule made ready for the inner loop of a step.
/// Multiplexer leaves of a Life-like rule: for dead and for alive cells, all ones at the counts
/// that make the cell alive next.
struct LifeLeaves {
    if_dead: [u64; 32],
    if_alive: [u64; 32],
}

enum RuleKernel {
    /// `AtLeast(t)`: alive next iff the inclusive count (≤ 27) is at least `t`.
    AtLeast(u32),
    /// Life-like: the multiplexer leaves for dead and alive cells.
    Masks(Box<LifeLeaves>),
}

impl RuleKernel {
    fn new(rule: CaRule, if_dead: u32, if_alive: u32) -> Self {
        let leaves = |mask: u32| std::array::from_fn(|k| if (mask >> k) & 1 == 1 { !0 } else { 0 });
        match rule {
            CaRule::AtLeast(t) => RuleKernel::AtLeast(t),
            CaRule::Life { .. } => {
                RuleKernel::Masks(Box::new(LifeLeaves { if_dead: leaves(if_dead), if_alive: leaves(if_alive) }))
            }
        }
    }

    /// The next state of words `me` from the planar sums of the planes below, at and above, each
    /// word and-ed with `word_mask`.
    fn apply(
        &self,
        below: [&[u64]; 4],
        centre: [&[u64]; 4],
        above: [&[u64]; 4],
        me: &[u64],
        dst: &mut [u64],
        word_mask: u64,
    ) {
        let n = dst.len();
        let [a0, a1, a2, a3] = below.map(|s| &s[..n]);
        let [b0, b1, b2, b3] = centre.map(|s| &s[..n]);
        let [c0, c1, c2, c3] = above.map(|s| &s[..n]);
        let me = &me[..n];
        match self {
            RuleKernel::AtLeast(t) => {
                /// One loop per threshold, so the comparison folds to one `and`/`or` per bit.
                macro_rules! dispatch {
                    ($($t:literal)*) => {
                        match *t {
                            $($t => at_least_loop::<$t>([a0, a1, a2, a3], [b0, b1, b2, b3], [c0, c1, c2, c3], dst, word_mask),)*
                            _ => dst.fill(0),
                        }
                    };
                }
                dispatch!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27);
            }
            RuleKernel::Masks(leaves) => {
                let LifeLeaves { if_dead, if_alive } = &**leaves;
                for i in 0..n {
                    let c = add3x4(
                        [a0[i], a1[i], a2[i], a3[i]],
                        [b0[i], b1[i], b2[i], b3[i]],
                        [c0[i], c1[i], c2[i], c3[i]],
                    );
                    dst[i] = ((me[i] & eval_mask(if_alive, &c)) | (!me[i] & eval_mask(if_dead, &c))) & word_mask;
                }
            }
        }
    }
}

/// [`RuleKernel::apply`] for `AtLeast(T)`: counts (≤ 27) of at least `T` (≤ 27) live.
#[inline(always)]
fn at_least_loop<const T: u32>(
    below: [&[u64]; 4],
    centre: [&[u64]; 4],
    above: [&[u64]; 4],
    dst: &mut [u64],
    word_mask: u64,
) {
    let [a0, a1, a2, a3] = below;
    let [b0, b1, b2, b3] = centre;
    let [c0, c1, c2, c3] = above;
    at_least_words::<T>(a0, a1, a2, a3, b0, b1, b2, b3, c0, c1, c2, c3, dst, word_mask);
}

/// The loop of [`at_least_loop`], every plane its own argument so the compiler knows they do not
/// overlap `dst` and vectorises it (built for AVX2 too, taken where [`crate::base::simd::avx2`] allows).
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn at_least_words<const T: u32>(
    a0: &[u64],
    a1: &[u64],
    a2: &[u64],
    a3: &[u64],
    b0: &[u64],
    b1: &[u64],
    b2: &[u64],
    b3: &[u64],
    c0: &[u64],
    c1: &[u64],
    c2: &[u64],
    c3: &[u64],
    dst: &mut [u64],
    word_mask: u64,
) {
    #[cfg(target_arch = "x86_64")]
    if crate::base::simd::avx2() {
        // SAFETY: the CPU has AVX2.
        return unsafe { at_least_words_avx2::<T>(a0, a1, a2, a3, b0, b1, b2, b3, c0, c1, c2, c3, dst, word_mask) };
    }
    at_least_words_body::<T>(a0, a1, a2, a3, b0, b1, b2, b3, c0, c1, c2, c3, dst, word_mask)
}

/// [`at_least_words`] built for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[allow(clippy::too_many_arguments)]
fn at_least_words_avx2<const T: u32>(
    a0: &[u64],
    a1: &[u64],
    a2: &[u64],
    a3: &[u64],
    b0: &[u64],
    b1: &[u64],
    b2: &[u64],
    b3: &[u64],
    c0: &[u64],
    c1: &[u64],
    c2: &[u64],
    c3: &[u64],
    dst: &mut [u64],
    word_mask: u64,
) {
    at_least_words_body::<T>(a0, a1, a2, a3, b0, b1, b2, b3, c0, c1, c2, c3, dst, word_mask)
}

#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn at_least_words_body<const T: u32>(
    a0: &[u64],
    a1: &[u64],
    a2: &[u64],
    a3: &[u64],
    b0: &[u64],
    b1: &[u64],
    b2: &[u64],
    b3: &[u64],
    c0: &[u64],
    c1: &[u64],
    c2: &[u64],
    c3: &[u64],
    dst: &mut [u64],
    word_mask: u64,
) {
    let n = dst.len();
    let (a0, a1, a2, a3) = (&a0[..n], &a1[..n], &a2[..n], &a3[..n]);
    let (b0, b1, b2, b3) = (&b0[..n], &b1[..n], &b2[..n], &b3[..n]);
    let (c0, c1, c2, c3) = (&c0[..n], &c1[..n], &c2[..n], &c3[..n]);
    for i in 0..n {
        let c = add3x4([a0[i], a1[i], a2[i], a3[i]], [b0[i], b1[i], b2[i], b3[i]], [c0[i], c1[i], c2[i], c3[i]]);
        // Least significant bit first: x ≥ t ⇔ x_k > t_k, or x_k = t_k and the lower bits are ≥.
        let mut ge = !0u64;
        for (k, &bit) in c.iter().enumerate() {
            ge = if (T >> k) & 1 == 1 { bit & ge } else { bit | ge };
        }
        dst[i] = ge & word_mask;
    }
}

/// Lanes whose bit-sliced count `n` selects an all-ones leaf (a 32-leaf multiplexer tree).
#[inline(always)]
fn eval_mask(leaves: &[u64; 32], c: &[u64; 5]) -> u64 {
    let mut level = *leaves;
    let mut n = 32;
    for &sel in c.iter() {
        for j in 0..n / 2 {
            level[j] = (level[2 * j] & !sel) | (level[2 * j + 1] & sel);
        }
        n /= 2;
    }
    level[0]
}

/// Reference step: counts each cell's neighbourhood one cell at a time (outside = dead).
pub fn naive_step_3d(grid: &BitGrid3D, rule: CaRule) -> BitGrid3D {
    let [nx, ny, nz] = grid.size();
    let mut out = BitGrid3D::new(nx, ny, nz);
    for y in 0..ny {
        for z in 0..nz {
            for x in 0..nx {
                let mut neighbours = 0u32;
                for dy in -1i64..=1 {
                    for dz in -1i64..=1 {
                        for dx in -1i64..=1 {
                            let (xx, yy, zz) = (x as i64 + dx, y as i64 + dy, z as i64 + dz);
                            if (dx, dy, dz) != (0, 0, 0)
                                && (0..nx as i64).contains(&xx)
                                && (0..ny as i64).contains(&yy)
                                && (0..nz as i64).contains(&zz)
                                && grid.get(xx as usize, yy as usize, zz as usize)
                            {
                                neighbours += 1;
                            }
                        }
                    }
                }
                let me = grid.get(x, y, z);
                let next = match rule {
                    CaRule::AtLeast(t) => neighbours + me as u32 >= t,
                    CaRule::Life { birth, survival } => {
                        let mask = if me { survival } else { birth };
                        (mask >> neighbours) & 1 == 1
                    }
                };
                out.set(x, y, z, next);
            }
        }
    }
    out
}

/// Reference 2D step (3×3 neighbourhood), for tests.
pub fn naive_step_2d(grid: &BitGrid2D, rule: CaRule) -> BitGrid2D {
    BitGrid2D { inner: naive_step_3d(&grid.inner, rule) }
}

/// Runs every stage's passes on `grid` in place (double-buffered through the scratch).
pub fn run_stages_3d(grid: &mut BitGrid3D, stages: &[CaStage], scratch: &mut CaScratch) {
    let mut other = scratch.spare.take().unwrap_or_else(|| BitGrid3D::new(0, 0, 0));
    for stage in stages {
        for _ in 0..stage.passes {
            grid.step(stage.rule, &mut other, scratch);
            std::mem::swap(grid, &mut other);
        }
    }
    scratch.spare = Some(other);
}

/// Runs the stages on a window whose border rows (y and z) are a halo of one row per pass: pass
/// `k` computes only rows at least `k` from the border, the only ones still exact after it.
fn run_stages_shrinking(grid: &mut BitGrid3D, stages: &[CaStage], scratch: &mut CaScratch) {
    let mut other = scratch.spare.take().unwrap_or_else(|| BitGrid3D::new(0, 0, 0));
    let mut k = 0;
    for stage in stages {
        for _ in 0..stage.passes {
            k += 1;
            grid.step_inner(stage.rule, &mut other, scratch, k);
            std::mem::swap(grid, &mut other);
        }
    }
    scratch.spare = Some(other);
}

// ------------------------------------------------------------------------------------------------
// Seeded infinite fields

/// Key of the initial-state hash for one (seed, salt).
fn field_key(seed: u64, salt: u64) -> u64 {
    mix64(seed ^ salt.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x0ca0_0000_0000_0000)
}

/// 64 hashed bits for the group of four cells `4·gx .. 4·gx + 3` in row `(y, z)`.
#[inline]
fn group_hash(key: u64, gx: i32, y: i32, z: i32) -> u64 {
    let a = mix64(key ^ ((gx as u32 as u64) | ((y as u32 as u64) << 32)));
    mix64(a ^ (z as u32 as u64).wrapping_mul(0xd6e8_feb8_6659_fd93))
}

/// Probability as a 16-bit threshold: a cell is alive iff its 16 hashed bits are below it.
fn probability_threshold(p: f32) -> u32 {
    if p.is_nan() { 0 } else { (p.clamp(0.0, 1.0) * 65536.0).round() as u32 }
}

/// Whether world cell `(x, y, z)` starts alive: a pure function of (seed, salt, cell).
pub fn initial_alive(seed: u64, salt: u64, alive_probability: f32, x: i32, y: i32, z: i32) -> bool {
    let h = group_hash(field_key(seed, salt), x >> 2, y, z);
    ((h >> (16 * (x & 3))) & 0xffff) < probability_threshold(alive_probability) as u64
}

/// The alive cells of up to sixteen groups whose hash first halves are `firsts` (a multiple of
/// four of them; see [`seeded_window_3d`]): bit `4·i + k` is set when lane `k` of group `i`'s
/// hash `mix64(firsts[i] ^ zk)` is below `threshold16` (at most 65536).
#[inline]
fn alive_lanes(firsts: &[u64], zk: u64, threshold16: u32) -> u64 {
    if threshold16 >= 65536 {
        return !0;
    }
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            _mm_cmplt_epi16, _mm_movemask_epi8, _mm_packs_epi16, _mm_set_epi64x, _mm_set1_epi16, _mm_xor_si128,
        };
        // Eight lanes per SSE2 register: flip the sign bits so that a signed comparison orders
        // them as unsigned, compare, pack the two results of sixteen lanes into bytes and take
        // their sign bits.
        // SAFETY: SSE2 is part of every x86_64 target, and these intrinsics only compute on
        // values (no memory access).
        unsafe {
            let flip = _mm_set1_epi16(i16::MIN);
            let threshold = _mm_set1_epi16((threshold16 ^ 0x8000) as u16 as i16);
            let below = |lo: u64, hi: u64| {
                _mm_cmplt_epi16(_mm_xor_si128(_mm_set_epi64x(hi as i64, lo as i64), flip), threshold)
            };
            let mut bits = 0u64;
            for (n, four) in firsts.chunks_exact(4).enumerate() {
                let h = [four[0], four[1], four[2], four[3]].map(|a| mix64(a ^ zk));
                let packed = _mm_packs_epi16(below(h[0], h[1]), below(h[2], h[3]));
                bits |= (_mm_movemask_epi8(packed) as u16 as u64) << (16 * n);
            }
            bits
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut bits = 0u64;
        for (i, &a) in firsts.iter().enumerate() {
            let h = mix64(a ^ zk);
            for k in 0..4 {
                bits |= (((h >> (16 * k)) & 0xffff < threshold16 as u64) as u64) << (4 * i + k);
            }
        }
        bits
    }
}

/// Rows `z0, z0 + 1, …` of one y plane of a seeded window (`plane`, `wpr` words to a row) from
/// the plane's hash first halves `firsts` (a multiple of four): per row, `lanes` gives the words
/// of [`alive_lanes`] into the 4-aligned buffer `alive`, which is shifted by `shift` into place.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn seed_rows(
    firsts: &[u64],
    z0: i32,
    plane: &mut [u64],
    wpr: usize,
    shift: u32,
    last_mask: u64,
    alive: &mut [u64],
    mut lanes: impl FnMut(&[u64], u64) -> u64,
) {
    if wpr == 1 && firsts.len() <= 16 {
        // One word of lanes (the spare word after it is zero) to one word of a row.
        for (z, dst) in plane.iter_mut().enumerate() {
            let zk = ((z0 + z as i32) as u32 as u64).wrapping_mul(0xd6e8_feb8_6659_fd93);
            *dst = (lanes(firsts, zk) >> shift) & last_mask;
        }
        return;
    }
    for (z, row) in plane.chunks_exact_mut(wpr).enumerate() {
        let zk = ((z0 + z as i32) as u32 as u64).wrapping_mul(0xd6e8_feb8_6659_fd93);
        for (word, firsts) in alive.iter_mut().zip(firsts.chunks(16)) {
            *word = lanes(firsts, zk);
        }
        for (w, dst) in row.iter_mut().enumerate() {
            let lo = alive[w] >> shift;
            let hi = if shift == 0 { 0 } else { alive[w + 1] << (64 - shift) };
            *dst = lo | hi;
        }
        if let Some(last) = row.last_mut() {
            *last &= last_mask;
        }
    }
}

/// [`seed_rows`] with [`alive_lanes`], or with AVX2 when `avx2` (which only a CPU with AVX2 sets).
#[allow(clippy::too_many_arguments)]
fn seed_plane(
    firsts: &[u64],
    z0: i32,
    plane: &mut [u64],
    wpr: usize,
    shift: u32,
    last_mask: u64,
    threshold16: u32,
    alive: &mut [u64],
    avx2: bool,
) {
    #[cfg(target_arch = "x86_64")]
    if avx2 && threshold16 < 65536 {
        // SAFETY: `avx2` is set only where the CPU has AVX2.
        unsafe { seed_plane_avx2(firsts, z0, plane, wpr, shift, last_mask, threshold16, alive) };
        return;
    }
    let _ = avx2;
    seed_rows(firsts, z0, plane, wpr, shift, last_mask, alive, |firsts, zk| alive_lanes(firsts, zk, threshold16));
}

/// [`seed_plane`] with AVX2: four group hashes to a register, their 64-bit multiplications made
/// of three 32-bit ones (the same products modulo 2⁶⁴, so the same bits as [`mix64`]), and their
/// sixteen 16-bit lanes compared at once.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[allow(clippy::too_many_arguments)]
fn seed_plane_avx2(
    firsts: &[u64],
    z0: i32,
    plane: &mut [u64],
    wpr: usize,
    shift: u32,
    last_mask: u64,
    threshold16: u32,
    alive: &mut [u64],
) {
    use std::arch::x86_64::*;
    let mul = |a: __m256i, lo: __m256i, hi: __m256i| {
        let cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64::<32>(a), lo), _mm256_mul_epu32(a, hi));
        _mm256_add_epi64(_mm256_mul_epu32(a, lo), _mm256_slli_epi64::<32>(cross))
    };
    let constant = |c: u64| (_mm256_set1_epi64x((c & 0xffff_ffff) as i64), _mm256_set1_epi64x((c >> 32) as i64));
    let ((l1, h1), (l2, h2)) = (constant(0xbf58_476d_1ce4_e5b9), constant(0x94d0_49bb_1331_11eb));
    let flip = _mm256_set1_epi16(i16::MIN);
    let threshold = _mm256_set1_epi16((threshold16 ^ 0x8000) as u16 as i16);
    // Lane 4·i + k of four groups below the threshold (unsigned: sign bits flipped for the
    // signed comparison), as a 16-bit mask per lane.
    let below = |four: &[u64], zk: __m256i| {
        // SAFETY: `four` is four u64, 32 bytes; the load is unaligned.
        let mut z = _mm256_xor_si256(unsafe { _mm256_loadu_si256(four.as_ptr().cast()) }, zk);
        z = mul(_mm256_xor_si256(z, _mm256_srli_epi64::<30>(z)), l1, h1);
        z = mul(_mm256_xor_si256(z, _mm256_srli_epi64::<27>(z)), l2, h2);
        z = _mm256_xor_si256(z, _mm256_srli_epi64::<31>(z));
        _mm256_cmpgt_epi16(threshold, _mm256_xor_si256(z, flip))
    };
    seed_rows(firsts, z0, plane, wpr, shift, last_mask, alive, |firsts, zk| {
        let zk = _mm256_set1_epi64x(zk as i64);
        let mut bits = 0u64;
        let eights = firsts.chunks_exact(8);
        let rest = eights.remainder();
        let mut n = 0;
        for eight in eights {
            // Two masks packed to bytes hold, by 64-bit quarter, lanes 0..8 of the first, 0..8
            // of the second, 8..16 of the first, 8..16 of the second: quarters 0, 2, 1, 3 are
            // the 32 lanes in order.
            let packed = _mm256_packs_epi16(below(&eight[..4], zk), below(&eight[4..], zk));
            let m = _mm256_movemask_epi8(_mm256_permute4x64_epi64::<0b11_01_10_00>(packed)) as u32;
            bits |= (m as u64) << (16 * n);
            n += 2;
        }
        if !rest.is_empty() {
            // The mask packed with itself has lanes 0..8 in bytes 0..8 and lanes 8..16 in bytes
            // 16..24.
            let b = below(rest, zk);
            let m = _mm256_movemask_epi8(_mm256_packs_epi16(b, b)) as u32;
            bits |= (((m & 0xff) | ((m >> 8) & 0xff00)) as u64) << (16 * n);
        }
        bits
    });
}

/// The initial state over world cells `[min, min + size)` (size components ≥ 0).
///
/// Row by row: the first half of each group hash depends only on (group, y), so it is computed
/// once per y plane; each (group, y, z) then costs one [`mix64`] and yields four cells at once,
/// sixteen groups to a word of a 4-aligned buffer ([`alive_lanes`], four hashes at a time with
/// AVX2) that is shifted into place.
/// The grid and the buffers come from `scratch` (every word of the grid is written).
fn seeded_window_3d(key: u64, threshold16: u32, min: IVec3, size: [usize; 3], scratch: &mut CaScratch) -> BitGrid3D {
    let mut g = scratch.seeded.take().unwrap_or_else(|| BitGrid3D::new(0, 0, 0));
    (g.nx, g.ny, g.nz, g.words_per_row) = (size[0], size[1], size[2], size[0].div_ceil(64));
    g.words.resize(g.words_per_row * size[1] * size[2], 0);
    let (nx, wpr) = (size[0], g.words_per_row);
    if nx == 0 || size[1] == 0 || size[2] == 0 {
        g.words.fill(0);
        return g;
    }
    // Groups 4·gx .. 4·gx + 3 for gx in g0..g0 + groups; cell x of the window is bit x + shift of
    // the buffer. Lanes past the last group land past the row and are masked off.
    let g0 = min.x >> 2;
    let shift = (min.x - 4 * g0) as u32;
    let groups = (((min.x + nx as i32 - 1) >> 2) - g0 + 1) as usize;
    let buffer_words = groups.div_ceil(16);
    let last_mask = g.last_word_mask();
    // Padded to whole fours of groups; the padding's lanes land past the row.
    let first_halves = &mut scratch.first_halves;
    first_halves.clear();
    first_halves.resize(groups.next_multiple_of(4), 0);
    // One spare zero word at the end for the shift.
    let alive = &mut scratch.alive;
    alive.clear();
    alive.resize(buffer_words + 1, 0);
    let avx2 = crate::base::simd::avx2();
    for y in 0..size[1] {
        let wy = min.y + y as i32;
        for (i, a) in first_halves[..groups].iter_mut().enumerate() {
            let gx = g0 + i as i32;
            *a = mix64(key ^ ((gx as u32 as u64) | ((wy as u32 as u64) << 32)));
        }
        let plane = &mut g.words[y * size[2] * wpr..(y + 1) * size[2] * wpr];
        seed_plane(first_halves, min.z, plane, wpr, shift, last_mask, threshold16, alive, avx2);
    }
    g
}

fn window_size(size: IVec3) -> Option<[usize; 3]> {
    (size.x >= 0 && size.y >= 0 && size.z >= 0).then_some([size.x as usize, size.y as usize, size.z as usize])
}

/// The infinite 3D automaton over world cells `[min, min + size)` after `stages`, with cell
/// `(x, y, z)` starting alive with probability `alive_probability` (from a hash of (seed, salt,
/// cell)). Equal to the same window of any larger run. Negative sizes give an empty grid.
pub fn run_ca_3d(
    seed: u64,
    salt: u64,
    alive_probability: f32,
    min: IVec3,
    size: IVec3,
    stages: &[CaStage],
) -> BitGrid3D {
    run_ca_3d_with(seed, salt, alive_probability, min, size, stages, &mut CaScratch::default())
}

/// [`run_ca_3d`] reusing `scratch`, and for the result the allocation of a grid given back with
/// [`CaScratch::give_back`].
pub fn run_ca_3d_with(
    seed: u64,
    salt: u64,
    alive_probability: f32,
    min: IVec3,
    size: IVec3,
    stages: &[CaStage],
    scratch: &mut CaScratch,
) -> BitGrid3D {
    let Some(size_u) = window_size(size) else { return BitGrid3D::new(0, 0, 0) };
    let halo = total_passes(stages).min(1 << 16) as i32;
    let grown = [size_u[0] + 2 * halo as usize, size_u[1] + 2 * halo as usize, size_u[2] + 2 * halo as usize];
    let mut g = seeded_window_3d(
        field_key(seed, salt),
        probability_threshold(alive_probability),
        min - IVec3::splat(halo),
        grown,
        scratch,
    );
    run_stages_shrinking(&mut g, stages, scratch);
    if halo == 0 {
        return g;
    }
    let mut inner = scratch.cropped.take().unwrap_or_else(|| BitGrid3D::new(0, 0, 0));
    g.crop_into(halo as usize, halo as usize, halo as usize, size_u, &mut inner);
    scratch.seeded = Some(g);
    inner
}

/// The infinite 2D automaton over world cells `[min, min + size)` after `stages` (3×3
/// neighbourhoods), seeded like [`run_ca_3d`]; for side-view worlds and previews. Negative sizes
/// give an empty grid.
pub fn run_ca_2d(
    seed: u64,
    salt: u64,
    alive_probability: f32,
    min: (i32, i32),
    size: (i32, i32),
    stages: &[CaStage],
) -> BitGrid2D {
    let Some(size_u) = window_size(IVec3::new(size.0, 1, size.1)) else { return BitGrid2D::new(0, 0) };
    let halo = total_passes(stages).min(1 << 16) as usize;
    let (w, h) = (size_u[0] + 2 * halo, size_u[2] + 2 * halo);
    // A 2D field is the z = 2D-y plane of a 3D field at a fixed y far from any 3D use.
    let key = field_key(seed, salt ^ 0x2d2d_2d2d);
    let origin = IVec3::new(min.0 - halo as i32, 0, min.1 - halo as i32);
    let mut scratch = CaScratch::default();
    let mut g = seeded_window_3d(key, probability_threshold(alive_probability), origin, [w, 1, h], &mut scratch);
    run_stages_shrinking(&mut g, stages, &mut scratch);
    let inner = if halo == 0 { g } else { g.crop(halo, 0, halo, size_u) };
    BitGrid2D { inner }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::rng::hash1;

    fn random_grid(nx: usize, ny: usize, nz: usize, seed: u64, p: u64) -> BitGrid3D {
        let mut g = BitGrid3D::new(nx, ny, nz);
        let mut k = 0;
        for y in 0..ny {
            for z in 0..nz {
                for x in 0..nx {
                    k += 1;
                    g.set(x, y, z, hash1(seed, 99, k) % 100 < p);
                }
            }
        }
        g
    }

    #[test]
    fn seeded_planes_are_the_same_with_and_without_avx2() {
        #[cfg(target_arch = "x86_64")]
        let avx2 = std::arch::is_x86_feature_detected!("avx2");
        #[cfg(not(target_arch = "x86_64"))]
        let avx2 = false;
        let mut h = 3u64;
        for threshold16 in [0, 1, 0x7fff, 0x8000, 0x8001, 29491, 65535, 65536] {
            for (groups, wpr, shift) in
                [(4usize, 1, 0), (8, 1, 3), (12, 1, 1), (16, 1, 2), (20, 2, 0), (36, 2, 3), (64, 4, 1)]
            {
                let firsts: Vec<u64> = (0..groups)
                    .map(|_| {
                        h = mix64(h.wrapping_add(1));
                        h
                    })
                    .collect();
                let (mut alive, mut planes) =
                    (vec![0u64; groups.div_ceil(16) + 1], [vec![0u64; 5 * wpr], vec![0u64; 5 * wpr]]);
                for (plane, simd) in planes.iter_mut().zip([false, avx2]) {
                    seed_plane(&firsts, -2, plane, wpr, shift, !0 >> 5, threshold16, &mut alive, simd);
                }
                assert_eq!(planes[0], planes[1], "threshold {threshold16}, {groups} groups");
            }
        }
    }

    #[test]
    fn bit_parallel_matches_naive_on_random_grids() {
        let rules = [
            CaRule::AtLeast(0),
            CaRule::AtLeast(5),
            CaRule::AtLeast(14),
            CaRule::AtLeast(16),
            CaRule::AtLeast(27),
            CaRule::AtLeast(28),
            CaRule::CONWAY,
            CaRule::Life { birth: 0b1_1110_0000, survival: 0b1_1111_0000 },
            CaRule::Life { birth: 1, survival: 1 << 26 },
            CaRule::Life { birth: 0x7ff_c000, survival: 0x7ff_e000 },
        ];
        let mut scratch = CaScratch::default();
        let mut out = BitGrid3D::new(0, 0, 0);
        for (i, &(nx, ny, nz)) in
            [(7, 5, 6), (64, 3, 4), (65, 4, 3), (130, 3, 3), (40, 9, 11), (1, 1, 1)].iter().enumerate()
        {
            for (j, &rule) in rules.iter().enumerate() {
                let g = random_grid(nx, ny, nz, (i * 31 + j) as u64, 30 + 5 * (j as u64 % 8));
                g.step(rule, &mut out, &mut scratch);
                assert_eq!(out, naive_step_3d(&g, rule), "size {nx}x{ny}x{nz}, rule {rule:?}");
            }
        }
        // 2D grids too.
        let g = BitGrid2D { inner: random_grid(100, 1, 37, 5, 45) };
        let mut o2 = BitGrid2D::new(0, 0);
        for rule in [CaRule::FOUR_FIVE, CaRule::CONWAY] {
            g.step(rule, &mut o2, &mut scratch);
            assert_eq!(o2, naive_step_2d(&g, rule));
        }
    }

    #[test]
    fn four_five_rule_on_hand_made_grids() {
        let mut scratch = CaScratch::default();
        let mut out = BitGrid2D::new(0, 0);
        // A lone wall cell dies (1 of 9); a lone open cell in solid rock fills (8 of 9).
        let g = BitGrid2D::from_rows(&["#####", "#####", "##.##", "#####", "#####"]);
        g.step(CaRule::FOUR_FIVE, &mut out, &mut scratch);
        assert!(out.get(2, 2));
        let g = BitGrid2D::from_rows(&[".....", ".....", "..#..", ".....", "....."]);
        g.step(CaRule::FOUR_FIVE, &mut out, &mut scratch);
        assert_eq!(out.count_alive(), 0);
        // A vertical wall 2 wide, 5 tall: interior cells see 6 of 9 and stay; the cells beside it see 3 and stay open.
        let g = BitGrid2D::from_rows(&["..##..", "..##..", "..##..", "..##..", "..##.."]);
        g.step(CaRule::FOUR_FIVE, &mut out, &mut scratch);
        assert_eq!(out.to_rows(), vec!["......", "..##..", "..##..", "..##..", "......"]);
        // A 3×3 square of rock: corners see 4 of 9 (die), edges 6 (stay), centre 9.
        let g = BitGrid2D::from_rows(&[".....", ".###.", ".###.", ".###.", "....."]);
        g.step(CaRule::FOUR_FIVE, &mut out, &mut scratch);
        assert_eq!(out.to_rows(), vec![".....", "..#..", ".###.", "..#..", "....."]);
        // Cells outside the grid count as open: the 3D analogue with threshold 14 of 27 keeps a
        // solid 3×3×3 block's centre (27) and face centres (18), drops edges (12) and corners (8).
        let mut g3 = BitGrid3D::new(3, 3, 3);
        for y in 0..3 {
            for z in 0..3 {
                for x in 0..3 {
                    g3.set(x, y, z, true);
                }
            }
        }
        let mut o3 = BitGrid3D::new(0, 0, 0);
        g3.step(CaRule::AtLeast(14), &mut o3, &mut scratch);
        assert_eq!(o3.count_alive(), 7);
        assert!(o3.get(1, 1, 1) && o3.get(0, 1, 1) && o3.get(1, 2, 1) && !o3.get(0, 0, 1) && !o3.get(0, 0, 0));
    }

    #[test]
    fn life_blinker_block_and_glider() {
        let mut scratch = CaScratch::default();
        let mut a = BitGrid2D::new(0, 0);
        let mut b = BitGrid2D::new(0, 0);
        // Blinker: period 2.
        let blinker = BitGrid2D::from_rows(&[".....", "..#..", "..#..", "..#..", "....."]);
        blinker.step(CaRule::CONWAY, &mut a, &mut scratch);
        assert_eq!(a.to_rows(), vec![".....", ".....", ".###.", ".....", "....."]);
        a.step(CaRule::CONWAY, &mut b, &mut scratch);
        assert_eq!(b, blinker);
        // Block: still life.
        let block = BitGrid2D::from_rows(&["....", ".##.", ".##.", "...."]);
        block.step(CaRule::CONWAY, &mut a, &mut scratch);
        assert_eq!(a, block);
        // Glider: moves (+1, +1) every 4 generations.
        let rows = [".#......", "..#.....", "###.....", "........", "........", "........", "........", "........"];
        let mut g = BitGrid2D::from_rows(&rows);
        let alive = |g: &BitGrid2D| -> Vec<(usize, usize)> {
            (0..g.height()).flat_map(|y| (0..g.width()).map(move |x| (x, y))).filter(|&(x, y)| g.get(x, y)).collect()
        };
        let start = alive(&g);
        for generation in 1..=8 {
            g.step(CaRule::CONWAY, &mut a, &mut scratch);
            std::mem::swap(&mut g, &mut a);
            assert_eq!(g.count_alive(), 5, "generation {generation}");
            if generation % 4 == 0 {
                let shift = generation / 4;
                let expect: Vec<_> = start.iter().map(|&(x, y)| (x + shift, y + shift)).collect();
                let mut got = alive(&g);
                got.sort_by_key(|&(x, y)| (y, x));
                let mut expect = expect;
                expect.sort_by_key(|&(x, y)| (y, x));
                assert_eq!(got, expect, "generation {generation}");
            }
        }
    }

    #[test]
    fn infinite_windows_are_seamless() {
        let stages =
            [CaStage { rule: CaRule::AtLeast(14), passes: 3 }, CaStage { rule: CaRule::AtLeast(16), passes: 1 }];
        let big = run_ca_3d(7, 3, 0.55, IVec3::new(-20, -10, -15), IVec3::new(70, 30, 40), &stages);
        let small = run_ca_3d(7, 3, 0.55, IVec3::new(-3, 2, 9), IVec3::new(21, 9, 12), &stages);
        assert_eq!(small, big.crop(17, 12, 24, [21, 9, 12]));
        let stages2 = [CaStage { rule: CaRule::FOUR_FIVE, passes: 4 }];
        let big2 = run_ca_2d(7, 3, 0.55, (-70, -40), (150, 90), &stages2);
        let small2 = run_ca_2d(7, 3, 0.55, (5, -13), (33, 20), &stages2);
        assert_eq!(small2, big2.crop(75, 27, 33, 20));
        assert_eq!(run_ca_2d(7, 3, 0.5, (0, 0), (-1, 4), &stages2).count_alive(), 0);
    }

    #[test]
    fn initial_fill_follows_its_probability() {
        let g = run_ca_3d(1, 2, 0.3, IVec3::new(-50, 0, 0), IVec3::new(100, 10, 100), &[]);
        let frac = g.count_alive() as f64 / 100_000.0;
        assert!((frac - 0.3).abs() < 0.01, "{frac}");
        assert!(initial_alive(1, 2, 0.3, -50, 0, 0) == g.get(0, 0, 0));
        assert!(initial_alive(1, 2, 0.3, 17, 5, 3) == g.get(67, 5, 3));
        assert_eq!(run_ca_3d(1, 2, 1.0, IVec3::ZERO, IVec3::splat(8), &[]).count_alive(), 512);
        assert_eq!(run_ca_3d(1, 2, 0.0, IVec3::ZERO, IVec3::splat(8), &[]).count_alive(), 0);
    }

    #[test]
    fn seeded_windows_match_the_cell_hash() {
        // Windows starting at every alignment to the 4-cell hash groups, narrower and wider
        // than a word, at every probability edge.
        for (i, x0) in [-9, -4, -1, 0, 3, 62, 127].into_iter().enumerate() {
            for (nx, p) in [(1, 0.5), (5, 0.3), (63, 0.5), (64, 1.0), (65, 0.0), (130, 0.7)] {
                let min = IVec3::new(x0, -3 + i as i32, 7);
                let g = run_ca_3d(11, 4, p, min, IVec3::new(nx, 2, 3), &[]);
                for y in 0..2 {
                    for z in 0..3 {
                        for x in 0..nx as usize {
                            let (wx, wy, wz) = (min.x + x as i32, min.y + y as i32, min.z + z as i32);
                            assert_eq!(
                                g.get(x, y, z),
                                initial_alive(11, 4, p, wx, wy, wz),
                                "{wx} {wy} {wz} width {nx}"
                            );
                        }
                        if nx % 64 != 0 {
                            assert_eq!(g.row(y, z)[nx as usize / 64] >> (nx % 64), 0, "bits past the row");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn margin_steps_equal_full_steps_inside_the_margin() {
        let mut scratch = CaScratch::default();
        let (mut full, mut inner) = (BitGrid3D::new(0, 0, 0), BitGrid3D::new(0, 0, 0));
        for (nx, ny, nz) in [(30, 12, 11), (70, 9, 10), (20, 1, 14)] {
            let g = random_grid(nx, ny, nz, 7, 50);
            for rule in [CaRule::AtLeast(14), CaRule::CONWAY] {
                for margin in 0..4 {
                    g.step(rule, &mut full, &mut scratch);
                    g.step_inner(rule, &mut inner, &mut scratch, margin);
                    let my = if ny > 1 { margin } else { 0 };
                    for y in 0..ny {
                        for z in 0..nz {
                            let kept = y >= my && y + my < ny && z >= margin && z + margin < nz;
                            let expect: Vec<u64> =
                                if kept { full.row(y, z).to_vec() } else { vec![0; full.row(y, z).len()] };
                            assert_eq!(inner.row(y, z), &expect[..], "{nx}x{ny}x{nz} margin {margin} row {y} {z}");
                        }
                    }
                }
            }
        }
    }
}
