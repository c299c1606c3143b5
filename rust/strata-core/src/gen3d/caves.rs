//! Generation stage: caves — cellular-automaton caverns, small-pocket removal, noise tunnels.
//!
//! A voxel `p` in a column whose surface is `s` becomes cave air when
//! - it is a **cavern** voxel: its automaton cell (`cell_size` voxels on each axis, world-aligned)
//!   is open in the infinite automaton, after small pockets are filled, and `p.y < s - d_cavern`;
//! - or it is a **tunnel** voxel: `|n₁(p)| < w(p)` and `|n₂(p)| < w(p)` for two independent 3D
//!   Perlin fields `n₁, n₂` of wavelength `tunnel_scale` (the intersection of two thin noise bands
//!   is a long tube, "spaghetti"), and `p.y < s - d_tunnel`. The width `w(p)` is `tunnel_width`
//!   where a third, four times larger noise `g(p)` (mapped to about `[0, 1]`) is below
//!   `tunnel_strength`, fading to 0 over 0.1 above it: strength 1 puts tunnels almost everywhere,
//!   0.5 in about half the world, 0 nowhere. The noises are sampled on a world-aligned lattice
//!   every [`TUNNEL_LATTICE`] voxels and interpolated trilinearly.
//!
//! Depths: with `allow_surface_breach == false`, `d_cavern = d_tunnel = max(min_depth, 1)`, so no
//! cave voxel lies within `min_depth` of the surface (and never in the top voxel): the ground stays
//! whole. With `allow_surface_breach == true`, caverns keep `min_depth` but tunnels may reach the
//! surface (`d_tunnel = 0`), making cave entrances. Bedrock is never carved; water is never carved
//! (it lies above the surface). Cave air touching water is sealed by the water stage.
//!
//! The automaton (`CaveMode::CellularAutomata`): cell starts as rock with probability
//! `1 - fill_probability` (a hash of seed and world cell), then `passes` passes of
//! `AtLeast(threshold)` and `final_passes` of `AtLeast(final_threshold)` over the 3×3×3
//! neighbourhood, cell included (27 cells; see [`cellular`](crate::automata::cellular)). The defaults are
//! four passes of the majority rule (14 of 27) then one stricter pass (16 of 27) that opens and
//! rounds the caverns: about 8% of deep ground becomes cavern air (fill 0.45, cell size 2). The
//! 3D majority rule is sharp around fill 0.5: 0.42 gives under 1% air, 0.48 over 80%.
//! `CaveMode::GameOfLife` runs `passes` generations of `life_rule` (rock alive; counts over the 26
//! neighbours) and then the same refining passes. Pockets: air components of the automaton of
//! fewer than `ceil(min_pocket_volume / cell_size³)` cells (see
//! [`flood_fill`](crate::automata::flood_fill) for the exact, seamless definition) are filled.
//!
//! Every window is computed with the halos it needs (automaton passes + pocket span), so a region
//! equals the same box cut from the infinite world (law 2). Work is skipped above the deepest
//! allowed cave top of the region's columns.

use crate::automata::cellular::{BitGrid3D, CaRule, CaScratch, CaStage, run_ca_3d_with};
use crate::automata::flood_fill::{PocketRule, PocketScratch, fill_pockets_3d};
use crate::base::block::{self, AIR, BlockId};
use crate::base::chunk::VoxelBuffer;
use crate::base::coords::IVec3;
use crate::gen3d::pipeline::{ColumnGrid, Generator};
use crate::preset::model::{CaveMode, CaveSettings, parse_life_rule};
use crate::base::rng::{mix64, salt};
use std::cell::RefCell;

/// Spacing, in voxels, of the lattice on which tunnel noise is sampled.
pub const TUNNEL_LATTICE: i32 = 4;
/// Vertical frequency multiplier of tunnel noise: tunnels run more horizontally than vertically.
const TUNNEL_Y_SQUASH: f64 = 1.5;
/// Gate values over this band above `tunnel_strength` taper tunnels to nothing.
const TUNNEL_GATE_FADE: f32 = 0.1;

/// The automaton program of a cave preset: `None` when the mode has no caverns (or, for presets
/// that skipped validation, when the Life rule does not parse).
pub fn cave_stages(c: &CaveSettings) -> Option<Vec<CaStage>> {
    let main = match c.mode {
        CaveMode::None => return None,
        CaveMode::CellularAutomata => CaRule::AtLeast(c.threshold),
        CaveMode::GameOfLife => {
            let (birth, survival) = parse_life_rule(&c.life_rule).ok()?;
            CaRule::Life { birth, survival }
        }
    };
    Some(vec![
        CaStage { rule: main, passes: c.passes },
        CaStage { rule: CaRule::AtLeast(c.final_threshold), passes: c.final_passes },
    ])
}

/// How far below the surface caverns and tunnels start (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CaveDepths {
    pub cavern: i32,
    pub tunnel: i32,
}

impl CaveDepths {
    pub fn of(c: &CaveSettings) -> Self {
        let whole = c.min_depth.min(1 << 20) as i32;
        if c.allow_surface_breach { Self { cavern: whole, tunnel: 0 } } else { Self { cavern: whole.max(1), tunnel: whole.max(1) } }
    }
}

/// Whether a preset makes tunnels at all.
pub fn tunnels_active(c: &CaveSettings) -> bool {
    c.tunnel_strength > 0.0 && c.tunnel_width > 0.0
}

/// The cavern automaton over the cells covering a box of voxels, pockets filled.
#[derive(Debug)]
pub struct CavernField {
    cell_size: i32,
    /// World cell at grid index (0, 0, 0).
    origin: IVec3,
    grid: BitGrid3D,
}

thread_local! {
    static SCRATCH: RefCell<(CaScratch, PocketScratch)> = RefCell::new(Default::default());
}

impl CavernField {
    /// The caverns over voxels `[min, min + size)`; `None` when the preset has none.
    pub fn compute(seed: u64, c: &CaveSettings, min: IVec3, size: IVec3) -> Option<Self> {
        let stages = cave_stages(c)?;
        if size.volume() == 0 {
            return None;
        }
        let cs = c.cell_size.clamp(1, 64) as i32;
        let lo = IVec3::new(min.x.div_euclid(cs), min.y.div_euclid(cs), min.z.div_euclid(cs));
        let last = min + size - IVec3::ONE;
        let hi = IVec3::new(last.x.div_euclid(cs), last.y.div_euclid(cs), last.z.div_euclid(cs));
        let cells = hi - lo + IVec3::ONE;
        let cell_volume = (cs * cs * cs) as usize;
        let pockets = PocketRule::new((c.min_pocket_volume as usize).div_ceil(cell_volume));
        let halo = if pockets.is_active() { pockets.halo() as i32 } else { 0 };
        let origin = lo - IVec3::splat(halo);
        let rock = 1.0 - c.fill_probability;
        let grid = SCRATCH.with(|s| {
            let (ca, pocket_scratch) = &mut *s.borrow_mut();
            let mut grid = run_ca_3d_with(seed, salt::CAVE_FILL, rock, origin, cells + IVec3::splat(2 * halo), &stages, ca);
            if pockets.is_active() {
                let h = halo as usize;
                let roi_max = [h + cells.x as usize, h + cells.y as usize, h + cells.z as usize];
                fill_pockets_3d(&mut grid, false, pockets, [h; 3], roi_max, pocket_scratch);
            }
            grid
        });
        Some(Self { cell_size: cs, origin, grid })
    }

    /// Whether voxel `p` (inside the box given to [`CavernField::compute`]) is cavern air.
    #[inline]
    pub fn is_open(&self, p: IVec3) -> bool {
        self.is_open_cell(self.cell_index(0, p.x), self.cell_index(1, p.y), self.cell_index(2, p.z))
    }

    /// Grid index along `axis` (0 = x, 1 = y, 2 = z) of the cell holding world coordinate `v`.
    #[inline]
    fn cell_index(&self, axis: usize, v: i32) -> usize {
        let o = [self.origin.x, self.origin.y, self.origin.z][axis];
        (v.div_euclid(self.cell_size) - o) as usize
    }

    #[inline]
    fn is_open_cell(&self, ix: usize, iy: usize, iz: usize) -> bool {
        !self.grid.get(ix, iy, iz)
    }
}

impl Drop for CavernField {
    /// Gives the grid's allocation back to the thread's automaton scratch for the next field.
    fn drop(&mut self) {
        let grid = std::mem::replace(&mut self.grid, BitGrid3D::new(0, 0, 0));
        let _ = SCRATCH.try_with(|s| {
            if let Ok(mut s) = s.try_borrow_mut() {
                s.0.give_back(grid);
            }
        });
    }
}

/// Tunnel noise sampled on the lattice points around a box of voxels.
#[derive(Debug)]
pub struct TunnelField {
    /// Lattice index of the first point (world = index · TUNNEL_LATTICE).
    origin: IVec3,
    dims: [usize; 3],
    /// Per point: `n₁`, `n₂`, width `w`.
    values: Vec<[f32; 3]>,
    /// Per lattice cell: whether any voxel inside can be tunnel (exact bound: trilinear values
    /// stay within their corners' range).
    may_open: Vec<bool>,
}

/// The buffers of a [`TunnelField`] and of its computation, kept per thread between fields so
/// that a chunk allocates none: a field takes them, and gives its own back when dropped.
#[derive(Default)]
struct TunnelBuffers {
    values: Vec<[f32; 3]>,
    may_open: Vec<bool>,
    flags: Vec<u8>,
    needed: Vec<bool>,
    highest: Vec<i32>,
    w_max: Vec<f32>,
    band1: Vec<bool>,
    point_rows: Vec<u64>,
    first_points: Vec<usize>,
    has_width: Vec<bool>,
}

thread_local! {
    static TUNNEL_BUFFERS: RefCell<TunnelBuffers> = RefCell::new(Default::default());
}

impl TunnelBuffers {
    /// Stores these buffers for the thread's next field (dropped when the thread is exiting).
    fn give_back(self) {
        let _ = TUNNEL_BUFFERS.try_with(|b| *b.borrow_mut() = self);
    }
}

impl Drop for TunnelField {
    fn drop(&mut self) {
        let (values, may_open) = (std::mem::take(&mut self.values), std::mem::take(&mut self.may_open));
        let _ = TUNNEL_BUFFERS.try_with(|b| {
            if let Ok(mut b) = b.try_borrow_mut() {
                (b.values, b.may_open) = (values, may_open);
            }
        });
    }
}

fn noise_seed(seed: u64, k: u64) -> u32 {
    (mix64(seed ^ salt::CAVE_TUNNEL.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ k.wrapping_mul(0xd6e8_feb8_6659_fd93)) >> 32) as u32
}

/// The three Perlin fields of tunnels (`n₁`, `n₂` and the gate `g`) of one seed. Building them
/// shuffles permutation tables, so a generator builds them once ([`Generator::tunnel_noise`]).
#[derive(Clone, Debug)]
pub struct TunnelNoise {
    n1: GridPerlin,
    n2: GridPerlin,
    gate: GridPerlin,
}

impl TunnelNoise {
    pub fn new(seed: u64) -> Self {
        let field = |k| GridPerlin::new(noise_seed(seed, k));
        Self { n1: field(1), n2: field(2), gate: field(3) }
    }
}

/// `noise::Perlin`'s 3D noise at the points of a grid whose coordinates are separable (x from
/// the x index alone, and so on), as the tunnel lattice's are.
///
/// `noise::core::perlin::perlin_3d` written out with its operations on the same values in the
/// same order, so the same bits (tested against `noise`); what depends on one coordinate (the
/// unit cube's corner, the distances, the quintic curve) is computed once per grid line, and the
/// eight corner gradients once per unit cube, which the lattice's points share by the dozen.
#[derive(Clone, Debug)]
pub struct GridPerlin {
    /// `noise`'s permutation table for the seed.
    table: [u8; 256],
}

/// One axis of a [`GridPerlin`] grid: per grid index, what `perlin_3d` derives from that
/// coordinate.
#[derive(Default)]
struct PerlinAxis {
    /// The unit cube's lower corner (`noise`'s floor_to_isize: truncation, minus one at and
    /// below zero).
    corner: Vec<isize>,
    /// Distances to the lower and the upper corner, the quintic curve of the first and one
    /// minus that.
    terms: Vec<[f64; 4]>,
}

impl PerlinAxis {
    fn new(coordinates: impl ExactSizeIterator<Item = f64>) -> Self {
        let n = coordinates.len();
        let mut axis = Self { corner: Vec::with_capacity(n), terms: Vec::with_capacity(n) };
        for v in coordinates {
            let corner = if v <= 0.0 { v as isize - 1 } else { v as isize };
            let near = v - corner as f64;
            let x = near.clamp(0.0, 1.0);
            let curve = x * x * x * (x * (x * 6.0 - 15.0) + 10.0);
            axis.corner.push(corner);
            axis.terms.push([near, near - 1.0, curve, 1.0 - curve]);
        }
        axis
    }
}

/// The gradient numbers (hash & 15) of the eight corners of the last unit cube evaluated, index
/// `4·dx + 2·dy + dz`.
struct PerlinCube {
    corner: (isize, isize, isize),
    gradients: [u8; 8],
}

impl GridPerlin {
    /// The field of `noise::Perlin::new(seed)`.
    pub fn new(seed: u32) -> Self {
        use noise::permutationtable::{NoiseHasher, PermutationTable};
        // Hashing one coordinate is one table lookup: this reads the table back.
        let perm = PermutationTable::new(seed);
        Self { table: std::array::from_fn(|i| perm.hash(&[i as isize]) as u8) }
    }

    fn cube(&self, (cx, cy, cz): (isize, isize, isize)) -> PerlinCube {
        let t = &self.table;
        let byte = |v: isize| (v & 0xff) as usize;
        let mut gradients = [0u8; 8];
        for (n, g) in gradients.iter_mut().enumerate() {
            let (dx, dy, dz) = ((n >> 2) as isize, ((n >> 1) & 1) as isize, (n & 1) as isize);
            let a = t[byte(cx + dx)] as usize ^ byte(cy + dy);
            let b = t[a] as usize ^ byte(cz + dz);
            *g = t[b] & 0b1111;
        }
        PerlinCube { corner: (cx, cy, cz), gradients }
    }

    /// `noise::Perlin::get` at the grid point (`i`, `j`, `k`) of the axes; `cube` caches the
    /// last unit cube's gradients.
    #[inline]
    fn get(&self, [ax, ay, az]: [&PerlinAxis; 3], (i, j, k): (usize, usize, usize), cube: &mut Option<PerlinCube>) -> f64 {
        const SCALE_FACTOR: f64 = 1.154_700_538_379_251_5;
        let corner = (ax.corner[i], ay.corner[j], az.corner[k]);
        let cube = match cube {
            Some(c) if c.corner == corner => c,
            _ => cube.insert(self.cube(corner)),
        };
        // `noise`'s gradients, the same expressions: the cube's eight cases repeat from point
        // to point, so their branches are predicted.
        let ([x0, x1, cx, rx], [y0, y1, cy, ry], [z0, z1, cz, rz]) = (ax.terms[i], ay.terms[j], az.terms[k]);
        let g = &cube.gradients;
        let g000 = gradient(g[0], x0, y0, z0);
        let g100 = gradient(g[4], x1, y0, z0);
        let g010 = gradient(g[2], x0, y1, z0);
        let g110 = gradient(g[6], x1, y1, z0);
        let g001 = gradient(g[1], x0, y0, z1);
        let g101 = gradient(g[5], x1, y0, z1);
        let g011 = gradient(g[3], x0, y1, z1);
        let g111 = gradient(g[7], x1, y1, z1);
        // noise's `linear(a, b, alpha)`: `b * alpha + a * (1.0 - alpha)`.
        let lz = |a: f64, b: f64| b * cz + a * rz;
        let ly = |a: f64, b: f64| b * cy + a * ry;
        let result = (ly(lz(g100, g101), lz(g110, g111)) * cx + ly(lz(g000, g001), lz(g010, g011)) * rx) * SCALE_FACTOR;
        result.clamp(-1.0, 1.0)
    }

    /// Bounds `(lo, hi)` on [`GridPerlin::get`] at every point of the grid of `axes` (whose
    /// coordinates must increase along each axis, as the lattice's do), by interval arithmetic:
    /// per unit cube the grid touches, each corner gradient `±u ± v` is linear in the distances,
    /// so it lies within the sum of its terms' ranges, and each `linear(a, b, alpha)` with
    /// `alpha` in `[0, 1]` lies between its ends' bounds at the ends of `alpha`'s range. A small
    /// margin covers rounding, which is many orders of magnitude smaller.
    fn bounds(&self, axes: [&PerlinAxis; 3]) -> (f64, f64) {
        const SCALE_FACTOR: f64 = 1.154_700_538_379_251_5;
        const MARGIN: f64 = 1e-9;
        type Range = (f64, f64);
        /// Per run of grid indices in one unit cube: its corner, the ranges of the distances to
        /// the lower and the upper corner and of the curve.
        fn segments(axis: &PerlinAxis) -> impl Iterator<Item = (isize, [Range; 3])> + '_ {
            let n = axis.corner.len();
            let mut first = 0;
            std::iter::from_fn(move || {
                if first == n {
                    return None;
                }
                let corner = axis.corner[first];
                let mut last = first;
                while last + 1 < n && axis.corner[last + 1] == corner {
                    last += 1;
                }
                let (a, b) = (axis.terms[first], axis.terms[last]);
                let range = |t: usize| (a[t].min(b[t]), a[t].max(b[t]));
                first = last + 1;
                Some((corner, [range(0), range(1), range(2)]))
            })
        }
        // linear(a, b, alpha) = b·alpha + a·(1 − alpha): a convex combination, linear in alpha.
        let linear = |a: Range, b: Range, (alo, ahi): Range| {
            let at = |alpha: f64| (b.0 * alpha + a.0 * (1.0 - alpha), b.1 * alpha + a.1 * (1.0 - alpha));
            let (p, q) = (at(alo), at(ahi));
            (p.0.min(q.0), p.1.max(q.1))
        };
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for (cx, [x0, x1, curve_x]) in segments(axes[0]) {
            for (cy, [y0, y1, curve_y]) in segments(axes[1]) {
                for (cz, [z0, z1, curve_z]) in segments(axes[2]) {
                    let g = self.cube((cx, cy, cz)).gradients;
                    // The gradient of corner `n` (4·dx + 2·dy + dz) over the distance ranges.
                    let corner = |n: usize| {
                        let (px, py, pz) = (if n & 4 != 0 { x1 } else { x0 }, if n & 2 != 0 { y1 } else { y0 }, if n & 1 != 0 { z1 } else { z0 });
                        let (mut r0, mut r1) = (0.0, 0.0);
                        for (unit, (plo, phi)) in [((1.0, 0.0, 0.0), px), ((0.0, 1.0, 0.0), py), ((0.0, 0.0, 1.0), pz)] {
                            let coefficient = gradient(g[n], unit.0, unit.1, unit.2);
                            if coefficient > 0.0 {
                                (r0, r1) = (r0 + plo, r1 + phi);
                            } else if coefficient < 0.0 {
                                (r0, r1) = (r0 - phi, r1 - plo);
                            }
                        }
                        (r0, r1)
                    };
                    let lz = |a: usize| linear(corner(a), corner(a + 1), curve_z);
                    let ly = |a: usize| linear(lz(a), lz(a + 2), curve_y);
                    let (rlo, rhi) = linear(ly(0), ly(4), curve_x);
                    lo = lo.min(rlo * SCALE_FACTOR);
                    hi = hi.max(rhi * SCALE_FACTOR);
                }
            }
        }
        ((lo - MARGIN).clamp(-1.0, 1.0), (hi + MARGIN).clamp(-1.0, 1.0))
    }
}

/// `noise`'s gradient `h` (0..16) at distances (`px`, `py`, `pz`): `±u ± v`.
#[inline(always)]
fn gradient(h: u8, px: f64, py: f64, pz: f64) -> f64 {
    match h {
        0 | 12 => px + py,
        1 | 13 => -px + py,
        2 => px - py,
        3 => -px - py,
        4 => px + pz,
        5 => -px + pz,
        6 => px - pz,
        7 => -px - pz,
        8 => py + pz,
        9 | 14 => -py + pz,
        10 => py - pz,
        _ => -py - pz,
    }
}

/// The gradients of a [`PerlinCube`] as AVX2 masks, for [`GridPerlin::get_avx2`]. Every gradient
/// of `noise` is `±u ± v` with `u` the x or the y distance and `v` the y or the z distance; per
/// four corners (lanes `(dx, dy)` = (1, 0), (1, 1), (0, 0), (0, 1)) at `dz` = 0 and at `dz` = 1:
/// all ones where `u` is y, the sign bit where `u` is negated, and the same for `v` (z, negated).
#[cfg(target_arch = "x86_64")]
struct PerlinCubeAvx2 {
    corner: (isize, isize, isize),
    /// `[u is y, −u, v is z, −v]` for `dz` = 0, then for `dz` = 1.
    masks: [[std::arch::x86_64::__m256d; 4]; 2],
}

/// Which gradient terms `noise`'s gradient `h` (0..16) takes, as bits: 1 when `u` is y (else x),
/// 2 when `u` is negated, 4 when `v` is z (else y), 8 when `v` is negated; for `±u ± v` (see
/// `GridPerlin::get`'s `gradient`).
#[cfg(target_arch = "x86_64")]
const GRADIENT_TERMS: [i64; 16] = [0, 2, 8, 10, 4, 6, 12, 14, 5, 7, 13, 15, 0, 2, 7, 15];

#[cfg(target_arch = "x86_64")]
impl GridPerlin {
    /// [`GridPerlin::get`] with AVX2, the same bits: the eight gradients as `±u ± v` selected by
    /// masks (a negation is a sign flip, and `a − b` is `a + (−b)` exactly), then the same
    /// products and sums in the same order, four and two lanes at a time.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn get_avx2(&self, [ax, ay, az]: [&PerlinAxis; 3], (i, j, k): (usize, usize, usize), cube: &mut Option<PerlinCubeAvx2>) -> f64 {
        use std::arch::x86_64::*;
        const SCALE_FACTOR: f64 = 1.154_700_538_379_251_5;
        let corner = (ax.corner[i], ay.corner[j], az.corner[k]);
        let cube = match cube {
            Some(c) if c.corner == corner => c,
            _ => {
                let g = self.cube(corner).gradients;
                let side = |dz: usize| {
                    // Lanes (dx, dy) = (1, 0), (1, 1), (0, 0), (0, 1): corners 4·dx + 2·dy + dz.
                    let t = |n: usize| GRADIENT_TERMS[(g[n + dz] & 15) as usize];
                    let terms = _mm256_setr_epi64x(t(4), t(6), t(0), t(2));
                    let all_ones = |bit: i64| _mm256_castsi256_pd(_mm256_cmpeq_epi64(_mm256_and_si256(terms, _mm256_set1_epi64x(bit)), _mm256_set1_epi64x(bit)));
                    let sign = |bit: i32| _mm256_castsi256_pd(_mm256_sll_epi64(_mm256_and_si256(terms, _mm256_set1_epi64x(1 << bit)), _mm_cvtsi32_si128(63 - bit)));
                    [all_ones(1), sign(1), all_ones(4), sign(3)]
                };
                cube.insert(PerlinCubeAvx2 { corner, masks: [side(0), side(1)] })
            }
        };
        let ([x0, x1, cx, rx], [y0, y1, cy, ry], [z0, z1, cz, rz]) = (ax.terms[i], ay.terms[j], az.terms[k]);
        let (px, py) = (_mm256_setr_pd(x1, x1, x0, x0), _mm256_setr_pd(y0, y1, y0, y1));
        let gradients = |[u_is_y, u_neg, v_is_z, v_neg]: [__m256d; 4], pz: f64| {
            let u = _mm256_xor_pd(_mm256_blendv_pd(px, py, u_is_y), u_neg);
            let v = _mm256_xor_pd(_mm256_blendv_pd(py, _mm256_set1_pd(pz), v_is_z), v_neg);
            _mm256_add_pd(u, v)
        };
        // [g100, g110, g000, g010] and [g101, g111, g001, g011].
        let (a, b) = (gradients(cube.masks[0], z0), gradients(cube.masks[1], z1));
        // lz(a, b) = b·cz + a·rz: [l10, l11, l00, l01].
        let l = _mm256_add_pd(_mm256_mul_pd(b, _mm256_set1_pd(cz)), _mm256_mul_pd(a, _mm256_set1_pd(rz)));
        // ly(l·0, l·1) = l·1·cy + l·0·ry, in lanes 0 (x1) and 2 (x0).
        let m = _mm256_add_pd(_mm256_mul_pd(_mm256_unpackhi_pd(l, l), _mm256_set1_pd(cy)), _mm256_mul_pd(_mm256_unpacklo_pd(l, l), _mm256_set1_pd(ry)));
        let (m1, m0) = (_mm256_cvtsd_f64(m), _mm256_cvtsd_f64(_mm256_permute4x64_pd::<0b10>(m)));
        let result = (m1 * cx + m0 * rx) * SCALE_FACTOR;
        result.clamp(-1.0, 1.0)
    }
}

/// Samples a field (`get` at grid coordinates) at every point of a lattice of `dims` flagged
/// `flag`, and stores each value with `store`.
#[inline(always)]
fn sample_flagged(dims: [usize; 3], flags: &[u8], values: &mut [[f32; 3]], flag: u8, mut get: impl FnMut((usize, usize, usize)) -> f64, store: &dyn Fn(f64, &mut [f32; 3])) {
    // Points in the lattice's order: x fastest, then z, then y.
    let mut at = 0;
    for j in 0..dims[1] {
        for k in 0..dims[2] {
            for i in 0..dims[0] {
                if flags[at] & flag != 0 {
                    store(get((i, j, k)), &mut values[at]);
                }
                at += 1;
            }
        }
    }
}

/// [`sample_flagged`] of `field` through [`GridPerlin::get_avx2`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn sample_flagged_avx2(dims: [usize; 3], flags: &[u8], values: &mut [[f32; 3]], flag: u8, field: &GridPerlin, axes: [&PerlinAxis; 3], store: &dyn Fn(f64, &mut [f32; 3])) {
    let mut cube = None;
    sample_flagged(dims, flags, values, flag, |p| field.get_avx2(axes, p, &mut cube), store);
}

/// Flags of a lattice point: which of its values are needed.
const NEED_GATE: u8 = 1;
const NEED_N1: u8 = 2;
const NEED_N2: u8 = 4;

impl TunnelField {
    /// Tunnel noise around voxels `[min, min + size)`; `None` when the preset has no tunnels or
    /// none can open in this box.
    pub fn compute(seed: u64, c: &CaveSettings, min: IVec3, size: IVec3) -> Option<Self> {
        Self::compute_below(&TunnelNoise::new(seed), c, min, size, None)
    }

    /// [`TunnelField::compute`] with prebuilt noise, answering only for voxels below given
    /// tops: with `tops` (one world y per voxel column of the box, x fastest), [`TunnelField::is_open`]
    /// is exact for voxels with `y < top` of their column, and other voxels must not be asked
    /// about. Lattice cells wholly at or above the tops of their columns are then skipped, and
    /// each noise is sampled only at the corners of the cells that still need it: the gate
    /// where a cell is needed (and nowhere when its bounds over the lattice close tunnels
    /// everywhere or open them fully everywhere), `n₁` where a corner has width, `n₂` where `n₁`'s band also
    /// crosses the cell. Every value that is sampled is the value [`TunnelField::compute`] has.
    pub fn compute_below(noise: &TunnelNoise, c: &CaveSettings, min: IVec3, size: IVec3, tops: Option<&[i32]>) -> Option<Self> {
        if !tunnels_active(c) || size.volume() == 0 {
            return None;
        }
        let l = TUNNEL_LATTICE;
        let lo = IVec3::new(min.x.div_euclid(l), min.y.div_euclid(l), min.z.div_euclid(l));
        let last = min + size - IVec3::ONE;
        let hi = IVec3::new(last.x.div_euclid(l), last.y.div_euclid(l), last.z.div_euclid(l)) + IVec3::ONE;
        let dims = [(hi.x - lo.x + 1) as usize, (hi.y - lo.y + 1) as usize, (hi.z - lo.z + 1) as usize];
        let cell_dims = [dims[0] - 1, dims[1] - 1, dims[2] - 1];
        let point = |i: usize, j: usize, k: usize| (j * dims[2] + k) * dims[0] + i;
        let cell = |i: usize, j: usize, k: usize| (j * cell_dims[2] + k) * cell_dims[0] + i;
        let f = 1.0 / c.tunnel_scale.max(1.0) as f64;
        let world = |i: usize, base: i32| ((base + i as i32) * l) as f64;
        // The noises' coordinates along each axis, as `noise` is given them.
        let axis = |n: usize, base: i32, scale: &dyn Fn(f64) -> f64| PerlinAxis::new((0..n).map(|i| scale(world(i, base))));
        let gate_axes = [
            axis(dims[0], lo.x, &|x| x * f * 0.25),
            axis(dims[1], lo.y, &|y| y * f * 0.25 * TUNNEL_Y_SQUASH),
            axis(dims[2], lo.z, &|z| z * f * 0.25),
        ];
        let gate_axes = [&gate_axes[0], &gate_axes[1], &gate_axes[2]];
        // How open tunnels are at gate value `gate`, and their width: both only decrease as
        // `gate` grows (every step rounds monotonically), so the gate's bounds over the
        // lattice bound them. Where the bounds close tunnels everywhere, there is no field (and
        // nothing else is computed); where they open them fully everywhere, every width is the
        // same and no gate is sampled.
        let openness = |gate: f64| {
            let g01 = 0.5 + 0.5 * gate as f32;
            ((c.tunnel_strength - g01) / TUNNEL_GATE_FADE).clamp(0.0, 1.0)
        };
        let width = |open: f32| c.tunnel_width * open * open * (3.0 - 2.0 * open);
        let (gate_lo, gate_hi) = noise.gate.bounds(gate_axes);
        if openness(gate_lo) <= 0.0 {
            return None;
        }
        // Which cells are needed: those starting below the highest top of their voxel columns.
        // The buffers of earlier fields of this thread (see `TunnelBuffers`).
        let mut bufs = TUNNEL_BUFFERS.try_with(|b| std::mem::take(&mut *b.borrow_mut())).unwrap_or_default();
        let n_cells = cell_dims[0] * cell_dims[1] * cell_dims[2];
        let needed = &mut bufs.needed;
        needed.clear();
        needed.resize(n_cells, true);
        if let Some(tops) = tops {
            let (sx, sz) = (size.x as usize, size.z as usize);
            debug_assert_eq!(tops.len(), sx * sz);
            let highest = &mut bufs.highest;
            highest.clear();
            highest.resize(cell_dims[0] * cell_dims[2], i32::MIN);
            for lz in 0..sz {
                let k = ((min.z + lz as i32).div_euclid(l) - lo.z) as usize;
                for lx in 0..sx {
                    let i = ((min.x + lx as i32).div_euclid(l) - lo.x) as usize;
                    let h = &mut highest[k * cell_dims[0] + i];
                    *h = (*h).max(tops[lz * sx + lx]);
                }
            }
            for j in 0..cell_dims[1] {
                let bottom = (lo.y + j as i32) * l;
                for k in 0..cell_dims[2] {
                    for i in 0..cell_dims[0] {
                        needed[cell(i, j, k)] = bottom < highest[k * cell_dims[0] + i];
                    }
                }
            }
        }
        let needed = &bufs.needed;
        let mut values = std::mem::take(&mut bufs.values);
        values.clear();
        values.resize(dims[0] * dims[1] * dims[2], [0.0f32; 3]);
        let flags = &mut bufs.flags;
        flags.clear();
        flags.resize(values.len(), 0);
        // Marks the corners of every cell that `wants` (one flag per cell) with `flag`.
        let corner_offsets = CORNERS.map(|(di, dj, dk)| point(di, dj, dk));
        let point_rows = &mut bufs.point_rows;
        let mut mark = |flags: &mut [u8], flag: u8, wants: &[bool]| {
            if dims[0] <= 64 {
                // Per row of points (j, k), as bits over i: the corners of the wanted cells of
                // the rows of cells (j or j − 1, k or k − 1), which are those cells' bits and
                // the bits one above.
                point_rows.clear();
                point_rows.resize(dims[1] * dims[2], 0);
                for j in 0..cell_dims[1] {
                    for k in 0..cell_dims[2] {
                        let first_cell = cell(0, j, k);
                        let cells = wants[first_cell..first_cell + cell_dims[0]].iter().enumerate().fold(0u64, |m, (i, &w)| m | (w as u64) << i);
                        let corners = cells | cells << 1;
                        for (dj, dk) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                            point_rows[(j + dj) * dims[2] + k + dk] |= corners;
                        }
                    }
                }
                for (row, &bits) in point_rows.iter().enumerate() {
                    let mut bits = bits;
                    while bits != 0 {
                        flags[row * dims[0] + bits.trailing_zeros() as usize] |= flag;
                        bits &= bits - 1;
                    }
                }
                return;
            }
            for j in 0..cell_dims[1] {
                for k in 0..cell_dims[2] {
                    let (first_cell, first_point) = (cell(0, j, k), point(0, j, k));
                    for i in 0..cell_dims[0] {
                        if wants[first_cell + i] {
                            for offset in corner_offsets {
                                flags[first_point + i + offset] |= flag;
                            }
                        }
                    }
                }
            }
        };
        // Samples `field` at every point flagged `flag` (grid coordinates from `axes`) and
        // stores each value with `store`.
        #[cfg(target_arch = "x86_64")]
        let avx2 = crate::base::simd::avx2();
        let sample_points = |flags: &[u8], values: &mut [[f32; 3]], flag: u8, field: &GridPerlin, axes: [&PerlinAxis; 3], store: &dyn Fn(f64, &mut [f32; 3])| {
            #[cfg(target_arch = "x86_64")]
            if avx2 {
                // SAFETY: the CPU has AVX2.
                return unsafe { sample_flagged_avx2(dims, flags, values, flag, field, axes, store) };
            }
            let mut cube = None;
            sample_flagged(dims, flags, values, flag, |p| field.get(axes, p, &mut cube), store);
        };
        mark(flags, NEED_GATE, needed);
        let mut any_width = false;
        if openness(gate_hi) >= 1.0 {
            let full = width(openness(gate_hi));
            for (v, &fl) in values.iter_mut().zip(flags.iter()) {
                if fl & NEED_GATE != 0 {
                    v[2] = full;
                }
            }
        } else {
            sample_points(flags, &mut values, NEED_GATE, &noise.gate, gate_axes, &|gate, v| v[2] = width(openness(gate)));
        }
        for (v, &fl) in values.iter().zip(flags.iter()) {
            any_width |= fl & NEED_GATE != 0 && v[2] > 0.0;
        }
        if !any_width {
            bufs.values = values;
            bufs.give_back();
            return None;
        }
        // Per cell, over its corners: the largest width, and whether each band can cross it.
        // `first_points` holds, per cell, the point at its (0, 0, 0) corner.
        let first_points = &mut bufs.first_points;
        first_points.clear();
        for j in 0..cell_dims[1] {
            for k in 0..cell_dims[2] {
                let first = point(0, j, k);
                first_points.extend(first..first + cell_dims[0]);
            }
        }
        let first_points = &*first_points;
        let w_max = &mut bufs.w_max;
        w_max.clear();
        w_max.extend(needed.iter().zip(first_points).map(|(&needed, &at)| {
            if !needed {
                return 0.0;
            }
            corner_offsets.iter().fold(0.0f32, |m, &offset| m.max(values[at + offset][2]))
        }));
        let w_max = &*w_max;
        // Whether the band `|v| < w` of value `a` can cross the cell whose first point is `at`:
        // some corner below `w` and some above `−w` (the values are never NaN: samples are
        // clamped to [−1, 1], and points not sampled hold 0).
        let band = |values: &[[f32; 3]], a: usize, w: f32, at: usize| {
            let (mut below, mut above) = (false, false);
            for &offset in &corner_offsets {
                let v = values[at + offset][a];
                below |= v < w;
                above |= v > -w;
            }
            below && above
        };
        let has_width = &mut bufs.has_width;
        has_width.clear();
        has_width.extend(needed.iter().zip(w_max).map(|(&needed, &w)| needed && w > 0.0));
        let has_width = &*has_width;
        mark(flags, NEED_N1, has_width);
        let n1_axes = [axis(dims[0], lo.x, &|x| x * f), axis(dims[1], lo.y, &|y| y * f * TUNNEL_Y_SQUASH), axis(dims[2], lo.z, &|z| z * f)];
        sample_points(flags, &mut values, NEED_N1, &noise.n1, [&n1_axes[0], &n1_axes[1], &n1_axes[2]], &|n, v| v[0] = n as f32);
        let band1 = &mut bufs.band1;
        band1.clear();
        band1.extend(has_width.iter().zip(w_max).zip(first_points).map(|((&has_width, &w), &at)| has_width && band(&values, 0, w, at)));
        let band1 = &*band1;
        mark(flags, NEED_N2, band1);
        let n2_axes = [
            axis(dims[0], lo.x, &|x| x * f + 101.7),
            axis(dims[1], lo.y, &|y| y * f * TUNNEL_Y_SQUASH - 43.1),
            axis(dims[2], lo.z, &|z| z * f + 17.3),
        ];
        sample_points(flags, &mut values, NEED_N2, &noise.n2, [&n2_axes[0], &n2_axes[1], &n2_axes[2]], &|n, v| v[1] = n as f32);
        let mut may_open = std::mem::take(&mut bufs.may_open);
        may_open.clear();
        may_open.extend(band1.iter().zip(w_max).zip(first_points).map(|((&band1, &w), &at)| band1 && band(&values, 1, w, at)));
        bufs.give_back();
        Some(Self { origin: lo, dims, values, may_open })
    }

    /// Whether voxel `p` (inside the box given to [`TunnelField::compute`]) is tunnel air.
    #[inline]
    pub fn is_open(&self, p: IVec3) -> bool {
        self.is_open_at(self.axis(0, p.x), self.axis(1, p.y), self.axis(2, p.z))
    }

    /// Lattice cell index along `axis` of world coordinate `v`, and the fraction inside it.
    #[inline]
    fn axis(&self, axis: usize, v: i32) -> (usize, f32) {
        let l = TUNNEL_LATTICE;
        let o = [self.origin.x, self.origin.y, self.origin.z][axis];
        ((v.div_euclid(l) - o) as usize, v.rem_euclid(l) as f32 * (1.0 / l as f32))
    }

    #[inline]
    fn is_open_at(&self, (i, fx): (usize, f32), (j, fy): (usize, f32), (k, fz): (usize, f32)) -> bool {
        let [dx, _, dz] = self.dims;
        if !self.may_open[(j * (dz - 1) + k) * (dx - 1) + i] {
            return false;
        }
        let mut v = [0.0f32; 3];
        for (di, dj, dk) in CORNERS {
            let w = (if di == 1 { fx } else { 1.0 - fx }) * (if dj == 1 { fy } else { 1.0 - fy }) * (if dk == 1 { fz } else { 1.0 - fz });
            let c = self.values[((j + dj) * dz + k + dk) * dx + i + di];
            for a in 0..3 {
                v[a] += w * c[a];
            }
        }
        v[0].abs() < v[2] && v[1].abs() < v[2]
    }
}

const CORNERS: [(usize, usize, usize); 8] = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0), (0, 0, 1), (1, 0, 1), (0, 1, 1), (1, 1, 1)];

/// Bit `i` of `cells` copied to bits `cell_size·i .. cell_size·(i + 1)` (cell size 1, 2 or 4; the
/// cells that fit in 64 bits).
#[inline]
fn spread_cells(cells: u64, cell_size: i32) -> u64 {
    match cell_size {
        1 => cells,
        2 => {
            let mut x = cells & 0xffff_ffff;
            x = (x | (x << 16)) & 0x0000_ffff_0000_ffff;
            x = (x | (x << 8)) & 0x00ff_00ff_00ff_00ff;
            x = (x | (x << 4)) & 0x0f0f_0f0f_0f0f_0f0f;
            x = (x | (x << 2)) & 0x3333_3333_3333_3333;
            x = (x | (x << 1)) & 0x5555_5555_5555_5555;
            x * 0b11
        }
        4 => {
            let mut x = cells & 0xffff;
            x = (x | (x << 24)) & 0x0000_00ff_0000_00ff;
            x = (x | (x << 12)) & 0x000f_000f_000f_000f;
            x = (x | (x << 6)) & 0x0303_0303_0303_0303;
            x = (x | (x << 3)) & 0x1111_1111_1111_1111;
            x * 0b1111
        }
        _ => unreachable!("cell size {cell_size} is not spread"),
    }
}

/// Whether the cave stage may turn block `id` into air.
#[inline]
fn carvable(id: BlockId) -> bool {
    id != AIR && id != block::BEDROCK && !block::is_liquid(id)
}

/// [`carvable`] for ids below 64 as bits of one word, so the carve loop tests a bit.
fn carvable_ids() -> u64 {
    (0..64).filter(|&id| carvable(id)).fold(0, |bits, id| bits | (1 << id))
}

/// [`carvable`] through the word of [`carvable_ids`].
#[inline(always)]
fn carvable_in(ids: u64, id: BlockId) -> bool {
    if id < 64 { (ids >> id) & 1 == 1 } else { carvable(id) }
}

/// The columns of the box still below their tops, layer by layer upwards: one mask per row of
/// columns (fixed z), from which each layer drops the columns whose top it reaches.
struct BelowMasks<'a> {
    words: usize,
    layers: usize,
    /// Per row, per layer `0..=layers` (the last collects tops above the work box), per word: the
    /// columns whose top is that layer.
    drops: &'a [u64],
    /// Per row, per word: the columns still below their top.
    masks: &'a mut [u64],
    /// Layers from 0 below which some column is still below its top.
    highest: usize,
}

impl BelowMasks<'_> {
    /// Masks for columns with `tops` (world y; `sx` per row, x fastest), for layers `0..layers`
    /// from world y `y0`; no columns at all when `tops` is `None`. The masks live in `buffers`
    /// (`drops`, `masks`), whose allocations are reused.
    fn new<'a>(tops: Option<&[i32]>, sx: usize, y0: i32, layers: usize, buffers: &'a mut (Vec<u64>, Vec<u64>)) -> BelowMasks<'a> {
        let words = sx.div_ceil(64);
        let (drops, masks) = (&mut buffers.0, &mut buffers.1);
        drops.clear();
        masks.clear();
        let Some(tops) = tops else { return BelowMasks { words, layers, drops, masks, highest: 0 } };
        let rows = tops.len().checked_div(sx).unwrap_or(0);
        let stride = (layers + 1) * words;
        drops.resize(rows * stride, 0);
        masks.resize(rows * words, 0);
        let mut highest = 0;
        let last_layer = layers.min(i32::MAX as usize) as i32;
        for ((row, row_drops), row_mask) in tops.chunks_exact(sx.max(1)).zip(drops.chunks_exact_mut(stride.max(1))).zip(masks.chunks_exact_mut(words.max(1))) {
            if words == 1 {
                // One word per layer (the common case): no word index to compute.
                for (x, &t) in row.iter().enumerate() {
                    let below = t.saturating_sub(y0).clamp(0, last_layer) as usize;
                    highest = highest.max(below);
                    row_drops[below] |= 1 << x;
                }
            } else {
                for (x, &t) in row.iter().enumerate() {
                    let below = t.saturating_sub(y0).clamp(0, last_layer) as usize;
                    highest = highest.max(below);
                    row_drops[below * words + x / 64] |= 1 << (x % 64);
                }
            }
            row_mask.fill(!0);
            if !sx.is_multiple_of(64) {
                row_mask[words - 1] = (1 << (sx % 64)) - 1;
            }
        }
        BelowMasks { words, layers, drops, masks, highest }
    }

    /// Moves every row to layer `ly` (called with 0, 1, 2, …): drops the columns whose top it
    /// reaches.
    fn advance(&mut self, ly: usize) {
        let (words, stride) = (self.words, (self.layers + 1) * self.words);
        for (z, mask) in self.masks.chunks_exact_mut(words.max(1)).enumerate() {
            let drops = &self.drops[z * stride + ly * words..z * stride + (ly + 1) * words];
            for (m, &d) in mask.iter_mut().zip(drops) {
                *m &= !d;
            }
        }
    }

    /// Word `w` of row `z`'s mask (no columns when built without tops).
    #[inline]
    fn word(&self, z: usize, w: usize) -> u64 {
        self.masks.get(z * self.words + w).copied().unwrap_or(0)
    }
}

/// Applies this stage to `out`, using only world coordinates and the preset.
///
/// Per row of voxels (fixed y and z): a mask of the columns still below their cavern top, the
/// cavern's open cells of that row spread over voxels, and the tunnel lattice cells that may
/// open; only the voxels those masks leave are looked at, by their set bits.
pub fn carve(generator: &Generator, columns: &ColumnGrid, out: &mut VoxelBuffer) {
    carve_with(generator, columns, out, false);
}

/// [`carve`] of a buffer that holds exactly the ground layers of `columns` (what
/// `Generator::fill_layers` writes): every voxel more than four below its column's surface is
/// then stone, so where a depth is at least four the carvable test is known to pass and skipped.
pub(crate) fn carve_layers(generator: &Generator, columns: &ColumnGrid, out: &mut VoxelBuffer) {
    carve_with(generator, columns, out, true);
}

/// Layers `y < surface − 4` are stone (see `generator::layer_block_of`): a cave `depth` below the
/// surface (voxels `y < surface − depth`) lies wholly in stone from this depth on.
const STONE_DEPTH: i32 = 4;

/// The buffers of [`carve`], kept per thread between chunks so that a chunk allocates none.
#[derive(Default)]
struct CarveBuffers {
    surfaces: Vec<i32>,
    tunnel_top: Vec<i32>,
    cavern_top: Vec<i32>,
    cavern_masks: Vec<u64>,
    cell_x: Vec<usize>,
    row_y: Vec<usize>,
    row_z: Vec<usize>,
    tunnel_masks: Vec<u64>,
    ax: Vec<(usize, f32)>,
    ay: Vec<(usize, f32)>,
    az: Vec<(usize, f32)>,
    /// `drops` and `masks` of the caverns' and the tunnels' [`BelowMasks`].
    below: [(Vec<u64>, Vec<u64>); 2],
}

thread_local! {
    static CARVE_BUFFERS: RefCell<CarveBuffers> = RefCell::new(Default::default());
}

/// `v` cleared and refilled from `items`.
fn refill<T>(v: &mut Vec<T>, items: impl Iterator<Item = T>) -> &[T] {
    v.clear();
    v.extend(items);
    v
}

fn carve_with(generator: &Generator, columns: &ColumnGrid, out: &mut VoxelBuffer, layers: bool) {
    let mut b = CARVE_BUFFERS.try_with(|b| std::mem::take(&mut *b.borrow_mut())).unwrap_or_default();
    carve_in(generator, columns, out, layers, &mut b);
    let _ = CARVE_BUFFERS.try_with(|slot| *slot.borrow_mut() = b);
}

fn carve_in(generator: &Generator, columns: &ColumnGrid, out: &mut VoxelBuffer, layers: bool, b: &mut CarveBuffers) {
    let c = &generator.preset().caves;
    let caverns_on = c.mode != CaveMode::None;
    let tunnels_on = tunnels_active(c);
    if !caverns_on && !tunnels_on {
        return;
    }
    let depths = CaveDepths::of(c);
    let shallowest = match (caverns_on, tunnels_on) {
        (true, true) => depths.cavern.min(depths.tunnel),
        (true, false) => depths.cavern,
        _ => depths.tunnel,
    };
    let (min, size) = (out.min(), out.size());
    let (sx, sz) = (size.x as usize, size.z as usize);
    let mut highest_surface = i32::MIN;
    let surfaces = &mut b.surfaces;
    surfaces.clear();
    if (columns.min_x, columns.min_z, columns.size_x, columns.size_z) == (min.x, min.z, size.x, size.z) {
        // The grid is the box's: its columns in the same order.
        surfaces.extend(columns.columns.iter().map(|c| c.surface));
        highest_surface = surfaces.iter().copied().fold(highest_surface, i32::max);
    } else {
        for z in min.z..min.z + size.z {
            for x in min.x..min.x + size.x {
                let s = columns.get(x, z).surface;
                highest_surface = highest_surface.max(s);
                surfaces.push(s);
            }
        }
    }
    // Caves only at y < surface - depth: nothing to do above the highest such y.
    let y_end = (min.y + size.y).min(highest_surface.saturating_sub(shallowest));
    if y_end <= min.y {
        return;
    }
    let work = IVec3::new(size.x, y_end - min.y, size.z);
    let caverns = if caverns_on { CavernField::compute(generator.seed(), c, min, work) } else { None };
    let tunnel_top = refill(&mut b.tunnel_top, surfaces.iter().map(|s| s.saturating_sub(depths.tunnel)));
    let tunnels =
        if tunnels_on { TunnelField::compute_below(generator.tunnel_noise(), c, min, work, Some(tunnel_top)) } else { None };
    if caverns.is_none() && tunnels.is_none() {
        return;
    }
    let cavern_top = refill(&mut b.cavern_top, surfaces.iter().map(|s| s.saturating_sub(depths.cavern)));
    let words = sx.div_ceil(64);
    let work_y = work.y as usize;
    // Caverns: per cell row (y, z) of the field, the voxels of the box's x range that are open.
    let cavern_rows = caverns.as_ref().map(|f| {
        let cell_x = refill(&mut b.cell_x, (min.x..min.x + size.x).map(|x| f.cell_index(0, x)));
        let (iy0, iy1) = (f.cell_index(1, min.y), f.cell_index(1, y_end - 1));
        let (iz0, iz1) = (f.cell_index(2, min.z), f.cell_index(2, min.z + size.z - 1));
        let (ny, nz) = (iy1 - iy0 + 1, iz1 - iz0 + 1);
        let masks = &mut b.cavern_masks;
        masks.clear();
        masks.resize(ny * nz * words, 0);
        // Voxel x of the box starts `phase` voxels into cell cell_x[0].
        let phase = min.x.rem_euclid(f.cell_size) as u32;
        let spread = words == 1 && f.grid.size()[0] <= 64 && sx as u32 + phase <= 64 && matches!(f.cell_size, 1 | 2 | 4);
        let box_mask = if sx >= 64 { !0 } else { (1u64 << sx) - 1 };
        for jy in 0..ny {
            for jz in 0..nz {
                let row = f.grid.row(iy0 + jy, iz0 + jz);
                let dst = &mut masks[(jy * nz + jz) * words..][..words];
                if spread {
                    let open = !row[0] >> cell_x[0];
                    dst[0] = (spread_cells(open, f.cell_size) >> phase) & box_mask;
                    continue;
                }
                for (lx, &ix) in cell_x.iter().enumerate() {
                    let open = (row[ix / 64] >> (ix % 64)) & 1 == 0;
                    dst[lx / 64] |= (open as u64) << (lx % 64);
                }
            }
        }
        let row_y = refill(&mut b.row_y, (min.y..y_end).map(|y| f.cell_index(1, y) - iy0));
        let row_z = refill(&mut b.row_z, (min.z..min.z + size.z).map(|z| f.cell_index(2, z) - iz0));
        (&*masks, nz, row_y, row_z)
    });
    // Tunnels: per lattice row (y, z), the voxels of the box's x range whose lattice cell may
    // open; and each voxel's lattice coordinates.
    let tunnel_rows = tunnels.as_ref().map(|f| {
        let ax = refill(&mut b.ax, (min.x..min.x + size.x).map(|x| f.axis(0, x)));
        let ay = refill(&mut b.ay, (min.y..y_end).map(|y| f.axis(1, y)));
        let az = refill(&mut b.az, (min.z..min.z + size.z).map(|z| f.axis(2, z)));
        let [dx, dy, dz] = f.dims;
        let (cx, cy, cz) = (dx - 1, dy - 1, dz - 1);
        let masks = &mut b.tunnel_masks;
        masks.clear();
        masks.resize(cy * cz * words, 0);
        for j in 0..cy {
            for k in 0..cz {
                let dst = &mut masks[(j * cz + k) * words..][..words];
                for (lx, &(i, _)) in ax.iter().enumerate() {
                    dst[lx / 64] |= (f.may_open[(j * cz + k) * cx + i] as u64) << (lx % 64);
                }
            }
        }
        (&*masks, cz, ax, ay, az)
    });
    let data = out.data_mut();
    let carvable_bits = carvable_ids();
    // Whether every voxel a kind of cave may open is stone, hence carvable.
    let (cavern_in_stone, tunnel_in_stone) = (layers && depths.cavern >= STONE_DEPTH, layers && depths.tunnel >= STONE_DEPTH);
    // Layer by layer upwards (the buffer's order), up to the highest top.
    // With equal depths (the default) both kinds of cave share one set of masks.
    let shared = caverns.is_some() && tunnels.is_some() && depths.cavern == depths.tunnel;
    let [cavern_buffers, tunnel_buffers] = &mut b.below;
    let mut cavern_below = BelowMasks::new(caverns.is_some().then_some(cavern_top), sx, min.y, work_y, cavern_buffers);
    let mut tunnel_below = BelowMasks::new((tunnels.is_some() && !shared).then_some(tunnel_top), sx, min.y, work_y, tunnel_buffers);
    for ly in 0..work_y.min(cavern_below.highest.max(tunnel_below.highest)) {
        cavern_below.advance(ly);
        tunnel_below.advance(ly);
        let tunnel_below = if shared { &cavern_below } else { &tunnel_below };
        for lz in 0..sz {
            let row_start = (ly * sz + lz) * sx;
            for w in 0..words {
                let cavern_open = match &cavern_rows {
                    Some((masks, nz, row_y, row_z)) => masks[(row_y[ly] * nz + row_z[lz]) * words + w] & cavern_below.word(lz, w),
                    None => 0,
                };
                let mut bits = cavern_open;
                if cavern_in_stone {
                    // Every voxel left is stone: each run of set bits becomes a run of air.
                    while bits != 0 {
                        let start = bits.trailing_zeros();
                        let len = (!(bits >> start)).trailing_zeros() as usize;
                        let at = row_start + 64 * w + start as usize;
                        data[at..at + len].fill(AIR);
                        // Adding the lowest set bit clears the lowest run.
                        bits &= bits.wrapping_add(bits & bits.wrapping_neg());
                    }
                }
                while bits != 0 {
                    let i = row_start + 64 * w + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    if carvable_in(carvable_bits, data[i]) {
                        data[i] = AIR;
                    }
                }
                let (Some(f), Some((masks, cz, ax, ay, az))) = (&tunnels, &tunnel_rows) else { continue };
                let (j, _) = ay[ly];
                let (k, _) = az[lz];
                let mut bits = masks[(j * cz + k) * words + w] & tunnel_below.word(lz, w) & !cavern_open;
                while bits != 0 {
                    let lx = 64 * w + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let i = row_start + lx;
                    if (tunnel_in_stone || carvable_in(carvable_bits, data[i])) && f.is_open_at(ax[lx], ay[ly], az[lz]) {
                        data[i] = AIR;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preset::model::WorldPreset;

    #[test]
    fn cavern_and_tunnel_fields_are_seamless() {
        let c = CaveSettings { min_pocket_volume: 40, cell_size: 1, tunnel_strength: 1.0, ..CaveSettings::default() };
        let big_min = IVec3::new(-40, -70, -20);
        let big_size = IVec3::new(80, 50, 60);
        let big = CavernField::compute(5, &c, big_min, big_size).unwrap();
        let big_t = TunnelField::compute(5, &c, big_min, big_size).unwrap();
        let small_min = IVec3::new(-7, -50, 3);
        let small_size = IVec3::new(19, 13, 21);
        let small = CavernField::compute(5, &c, small_min, small_size).unwrap();
        let small_t = TunnelField::compute(5, &c, small_min, small_size).unwrap();
        let (mut open, mut tunnel) = (0, 0);
        for y in 0..small_size.y {
            for z in 0..small_size.z {
                for x in 0..small_size.x {
                    let p = small_min + IVec3::new(x, y, z);
                    assert_eq!(small.is_open(p), big.is_open(p), "{p:?}");
                    assert_eq!(small_t.is_open(p), big_t.is_open(p), "{p:?}");
                    open += small.is_open(p) as usize;
                    tunnel += small_t.is_open(p) as usize;
                }
            }
        }
        assert!(open > 0, "no cavern in the compared box");
        let big_tunnels = (0..big_size.y)
            .flat_map(|y| (0..big_size.z).flat_map(move |z| (0..big_size.x).map(move |x| big_min + IVec3::new(x, y, z))))
            .filter(|&p| big_t.is_open(p))
            .count();
        assert!(big_tunnels > 0 && tunnel <= big_tunnels);
    }

    #[test]
    fn life_mode_uses_the_life_rule() {
        let c = CaveSettings { mode: CaveMode::GameOfLife, life_rule: "B3/S23".into(), ..CaveSettings::default() };
        let stages = cave_stages(&c).unwrap();
        assert_eq!(stages[0], CaStage { rule: CaRule::CONWAY, passes: c.passes });
        assert!(cave_stages(&CaveSettings { mode: CaveMode::None, ..c.clone() }).is_none());
        assert!(cave_stages(&CaveSettings { life_rule: "nonsense".into(), ..c }).is_none());
    }

    #[test]
    fn breach_setting_sets_depths() {
        let mut c = WorldPreset::default().caves;
        c.min_depth = 0;
        assert_eq!(CaveDepths::of(&c), CaveDepths { cavern: 1, tunnel: 1 });
        c.allow_surface_breach = true;
        c.min_depth = 5;
        assert_eq!(CaveDepths::of(&c), CaveDepths { cavern: 5, tunnel: 0 });
    }

    #[test]
    fn grid_perlin_equals_noise_perlin_bit_for_bit() {
        use noise::{NoiseFn, Perlin};
        let mut h = 0x1234_5678u64;
        let mut next = || {
            h = mix64(h.wrapping_add(0x9e37_79b9_7f4a_7c15));
            h
        };
        for seed in [0u32, 1, 7, 0xdead_beef, u32::MAX] {
            let (ours, theirs) = (GridPerlin::new(seed), Perlin::new(seed));
            // Random axes at several scales, axes like the tunnel lattice's, and coordinates on
            // and around integers, where the corner and the distances are at their edges.
            let mut axes: Vec<Vec<f64>> = (0..5).map(|n| (0..40).map(|_| (next() as i64 as f64 / i64::MAX as f64) * [1e-3, 0.7, 13.0, 900.0, 3e5][n]).collect()).collect();
            axes.push((-60..60).map(|i| (i * 4) as f64 * (1.0 / 96.0) * 0.25 * 1.5).collect());
            axes.push((-60..60).map(|i| (i * 4) as f64 * (1.0 / 72.0) + 101.7).collect());
            axes.push(vec![-2.0, -1.0, -0.5, -0.0, 0.0, 1e-310, 0.5, 1.0 - 1e-16, 1.0, 2.0, 255.0, 256.0, 257.5, -256.0]);
            let mut cube = None;
            for (a, b, c) in [(0, 1, 2), (3, 4, 0), (5, 5, 6), (7, 7, 7), (6, 7, 5), (2, 7, 3)] {
                let [xs, ys, zs] = [&axes[a], &axes[b], &axes[c]];
                let grid = [PerlinAxis::new(xs.iter().copied()), PerlinAxis::new(ys.iter().copied()), PerlinAxis::new(zs.iter().copied())];
                for (j, &y) in ys.iter().enumerate() {
                    for (k, &z) in zs.iter().enumerate() {
                        for (i, &x) in xs.iter().enumerate() {
                            let got = ours.get([&grid[0], &grid[1], &grid[2]], (i, j, k), &mut cube);
                            assert_eq!(got.to_bits(), theirs.get([x, y, z]).to_bits(), "seed {seed} at {:?}", [x, y, z]);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn grid_perlin_bounds_hold_every_grid_value() {
        for seed in [0u32, 5, 0xdead_beef] {
            let field = GridPerlin::new(seed);
            // Lattice-like windows at the gate's and the tunnels' scales, across cube edges.
            for (step, count) in [(4.0 / 384.0, 10), (4.0 / 96.0, 10), (4.0 / 40.0, 12), (0.37, 9)] {
                for start in [-40i32, -7, -1, 0, 3, 95, 1000] {
                    let coordinates = |offset: f64| PerlinAxis::new((0..count).map(move |i| (start + i) as f64 * step + offset));
                    let grid = [coordinates(0.0), coordinates(0.31), coordinates(-17.9)];
                    let at = [&grid[0], &grid[1], &grid[2]];
                    let (lo, hi) = field.bounds(at);
                    let mut cube = None;
                    for j in 0..count as usize {
                        for k in 0..count as usize {
                            for i in 0..count as usize {
                                let v = field.get(at, (i, j, k), &mut cube);
                                assert!(lo <= v && v <= hi, "seed {seed}, step {step}, start {start}: {v} outside [{lo}, {hi}]");
                            }
                        }
                    }
                    if step < 0.02 {
                        assert!(hi - lo < 0.6, "loose bounds [{lo}, {hi}] at step {step}");
                    }
                }
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn grid_perlin_with_avx2_equals_grid_perlin_bit_for_bit() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        let mut h = 0x9876_5432u64;
        let mut next = || {
            h = mix64(h.wrapping_add(0x9e37_79b9_7f4a_7c15));
            h
        };
        for seed in [0u32, 3, 0xdead_beef] {
            let field = GridPerlin::new(seed);
            let mut axes: Vec<Vec<f64>> = (0..4).map(|n| (0..24).map(|_| (next() as i64 as f64 / i64::MAX as f64) * [1e-3, 0.7, 13.0, 3e5][n]).collect()).collect();
            axes.push((-30..30).map(|i| (i * 4) as f64 * (1.0 / 96.0) * 0.25 * 1.5).collect());
            axes.push(vec![-2.0, -1.0, -0.5, -0.0, 0.0, 1e-310, 0.5, 1.0 - 1e-16, 1.0, 2.0, 255.0, 256.0, 257.5, -256.0]);
            for (a, b, c) in [(0, 1, 2), (3, 4, 0), (4, 4, 4), (5, 5, 5), (1, 5, 3)] {
                let grid = [PerlinAxis::new(axes[a].iter().copied()), PerlinAxis::new(axes[b].iter().copied()), PerlinAxis::new(axes[c].iter().copied())];
                let (mut cube, mut cube_avx2) = (None, None);
                for j in 0..axes[b].len() {
                    for k in 0..axes[c].len() {
                        for i in 0..axes[a].len() {
                            let at = [&grid[0], &grid[1], &grid[2]];
                            let want = field.get(at, (i, j, k), &mut cube);
                            // SAFETY: the CPU has AVX2.
                            let got = unsafe { field.get_avx2(at, (i, j, k), &mut cube_avx2) };
                            assert_eq!(got.to_bits(), want.to_bits(), "seed {seed} at {:?}", (i, j, k));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn spread_cells_repeats_each_bit_cell_size_times() {
        for (n, cells) in [0u64, !0, 0x8000_0001_0000_0001, 0x1234_5678_9abc_def0, 0xdead_beef].into_iter().enumerate() {
            for cs in [1, 2, 4] {
                let mut expect = 0u64;
                for bit in 0..64 / cs {
                    for k in 0..cs {
                        expect |= ((cells >> bit) & 1) << (cs * bit + k);
                    }
                }
                assert_eq!(spread_cells(cells, cs), expect, "case {n}, cell size {cs}");
            }
        }
    }

    #[test]
    fn tunnels_below_tops_equal_the_full_field_there() {
        let c = CaveSettings { tunnel_strength: 1.0, tunnel_width: 0.2, tunnel_scale: 40.0, ..CaveSettings::default() };
        let noise = TunnelNoise::new(9);
        let (min, size) = (IVec3::new(-21, -40, 13), IVec3::new(37, 45, 30));
        let full = TunnelField::compute(9, &c, min, size).unwrap();
        let tops: Vec<i32> = (0..size.x * size.z).map(|i| -40 + (i * 7919 % 53) - 4).collect();
        let below = TunnelField::compute_below(&noise, &c, min, size, Some(&tops)).unwrap();
        let mut open = 0;
        for lz in 0..size.z {
            for lx in 0..size.x {
                let top = tops[(lz * size.x + lx) as usize];
                for y in min.y..top.min(min.y + size.y) {
                    let p = IVec3::new(min.x + lx, y, min.z + lz);
                    assert_eq!(below.is_open(p), full.is_open(p), "{p:?}");
                    open += full.is_open(p) as usize;
                }
            }
        }
        assert!(open > 0, "no tunnel below the tops");
    }
}
