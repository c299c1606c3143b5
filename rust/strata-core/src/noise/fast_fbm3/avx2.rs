//! The AVX2 per-point kernel of [`PerlinFbm3`]: four points per `__m256d`, any points (no grid),
//! written with intrinsics; [`PerlinFbm3::get_many`] and the sparse octaves of
//! [`PerlinFbm3::fill_grid`] run it. And the lattice kernel (`PerlinFbm3::lattice_avx2`), which
//! `fill_grid` runs on grids whose rows cross a unit cube every few points (the cave lattice):
//! the same gradients and interpolations per point, its axes' terms and hashes shared along
//! the grid's lines and planes.
//!
//! Lane by lane it performs exactly the IEEE operations of the parent module's `perlin_3d` and
//! `PerlinFbm3::get`, in the same order and with nothing fused, so it gives their bits (the
//! parent's tests run it beside `get`). How the same operations are reached:
//!
//! - the corner: `trunc(v)` (`roundpd` toward zero), minus one where `v ≤ 0`, is the `f64` value
//!   of `noise`'s integer corner; its low 8 bits are read from the mantissa of `c + 1.5·2⁵²`.
//!   Both are exact only below 2⁵¹, so a group runs here only when every coordinate of every
//!   octave stays below [`super::FAST_LIMIT`] (checked once per group from the first octave, see
//!   [`super::fast_bound`]); other groups, NaN and infinities included, run `get`;
//! - the hashes: per lane, scalar byte loads from two per-octave tables of 64 KiB, the first two
//!   levels in one, the last with the gradient terms (`GRADIENT_TERMS` of the hash) of two
//!   corners at a time (8 loads per point), widened to one byte per 64-bit lane;
//! - the gradient `±u ± v`: `u` and `v` picked from the distances by `blendv` on the terms' bits,
//!   and negated by xoring the sign bit (`a − b` is `a + (−b)` bit for bit in IEEE arithmetic);
//! - the final clamp as `minpd`/`maxpd`, which equal `f64::clamp` on every number; the quintic's
//!   clamp is left out, as it never changes the distance (see [`axis`]).
//!
//! May use: the parent module (`noise::fast_fbm3`) and `std::arch`.

use super::{PERLIN_3D_SCALE, PerlinFbm3, SIGN_BIT};
use std::arch::x86_64::*;

/// 1.5 · 2⁵²: `c + MAGIC` holds the integer `c` (|c| < 2⁵¹) in its low mantissa bits.
const MAGIC: f64 = 6_755_399_441_055_744.0;

/// Constants shared by every octave.
#[derive(Clone, Copy)]
pub(super) struct Consts {
    zero: __m256d,
    one: __m256d,
    minus_one: __m256d,
    six: __m256d,
    fifteen: __m256d,
    ten: __m256d,
    magic: __m256d,
    sign: __m256d,
    scale: __m256d,
}

impl Consts {
    #[target_feature(enable = "avx2")]
    pub(super) fn new() -> Self {
        Self {
            zero: _mm256_setzero_pd(),
            one: _mm256_set1_pd(1.0),
            minus_one: _mm256_set1_pd(-1.0),
            six: _mm256_set1_pd(6.0),
            fifteen: _mm256_set1_pd(15.0),
            ten: _mm256_set1_pd(10.0),
            magic: _mm256_set1_pd(MAGIC),
            sign: _mm256_castsi256_pd(_mm256_set1_epi64x(SIGN_BIT as i64)),
            scale: _mm256_set1_pd(PERLIN_3D_SCALE),
        }
    }
}

/// One octave's tables: the hash's first two levels ([`PerlinFbm3::columns`]) and the terms of
/// corner pairs ([`PerlinFbm3::pairs`]).
#[derive(Clone, Copy)]
struct Tables<'a> {
    columns: &'a super::ByteTable,
    pairs: &'a super::ByteTable,
}

/// One axis of four points: the distances to the lower and the upper corner, the quintic curve
/// and one minus it; the corner's integer in the low mantissa bits of `cell`.
struct Axis {
    near: __m256d,
    far: __m256d,
    curve: __m256d,
    rest: __m256d,
    cell: __m256i,
}

/// `floor_to_isize`, the distances and `quintic` of `perlin_3d` on four coordinates below
/// [`super::FAST_LIMIT`].
#[inline]
#[target_feature(enable = "avx2")]
fn axis(c: &Consts, v: __m256d) -> Axis {
    let truncated = _mm256_round_pd::<{ _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC }>(v);
    // `v as isize − 1` at and below zero: −1.0 added there, +0.0 elsewhere (`t + 0 = t` for the
    // truncation of a positive `v`, never −0).
    let below = _mm256_and_pd(_mm256_cmp_pd::<_CMP_LE_OQ>(v, c.zero), c.minus_one);
    let corner = _mm256_add_pd(truncated, below);
    let near = _mm256_sub_pd(v, corner);
    let far = _mm256_sub_pd(near, c.one);
    // `quintic` clamps the distance to [0, 1], which leaves it as it is: `v − c` is the exact
    // `frac(v)` (or `frac(v) + 1` at and below zero), in [0, 1], rounded once, so in [0, 1],
    // and never −0 (an exact zero difference is +0).
    let x = near;
    let cube = _mm256_mul_pd(_mm256_mul_pd(x, x), x);
    let inner = _mm256_add_pd(_mm256_mul_pd(x, _mm256_sub_pd(_mm256_mul_pd(x, c.six), c.fifteen)), c.ten);
    let curve = _mm256_mul_pd(cube, inner);
    let rest = _mm256_sub_pd(c.one, curve);
    Axis { near, far, curve, rest, cell: _mm256_castpd_si256(_mm256_add_pd(corner, c.magic)) }
}

/// The gradient terms of the corners of eight lanes' unit cubes (two groups of four): per group
/// and pair `b = 2·dx + dy`, per lane a byte with corner `(dx, dy, 0)`'s terms in bits 0..4 and
/// `(dx, dy, 1)`'s in bits 4..8. `noise`'s hash `P[P[P[x] ^ y] ^ z]`: the first two levels as
/// one lookup in [`PerlinFbm3::columns`], the last through [`PerlinFbm3::pairs`].
#[inline]
#[target_feature(enable = "avx2")]
fn corner_terms(t: Tables<'_>, cells: [[__m256i; 3]; 2]) -> [[[u8; 4]; 4]; 2] {
    let mut lanes = [[[0u64; 4]; 3]; 2];
    for (group, cells) in lanes.iter_mut().zip(cells) {
        for (lane, cell) in group.iter_mut().zip(cells) {
            // SAFETY: `lane` holds four u64.
            unsafe { _mm256_storeu_si256(lane.as_mut_ptr().cast(), cell) };
        }
    }
    let mut out = [[[0u8; 4]; 4]; 2];
    for (group, cells) in out.iter_mut().zip(&lanes) {
        for l in 0..4 {
            let (x, y, z) = (cells[0][l] as u8, cells[1][l] as u8, cells[2][l] as u8);
            let (y0, y1) = (usize::from(y), usize::from(y.wrapping_add(1)));
            let (c0, c1) = (&t.columns[usize::from(x)], &t.columns[usize::from(x.wrapping_add(1))]);
            let row = &t.pairs[usize::from(z)];
            group[0][l] = row[usize::from(c0[y0])];
            group[1][l] = row[usize::from(c0[y1])];
            group[2][l] = row[usize::from(c1[y0])];
            group[3][l] = row[usize::from(c1[y1])];
        }
    }
    out
}

/// Four bytes as the low bytes of four 64-bit lanes.
#[inline]
#[target_feature(enable = "avx2")]
fn widen(bytes: [u8; 4]) -> __m256i {
    _mm256_cvtepu8_epi64(_mm_cvtsi32_si128(i32::from_le_bytes(bytes)))
}

/// The gradient `±u ± v` of one corner whose terms' bits (`u` is y, `u` negated, `v` is z, `v`
/// negated) are at bits `63 − UY`, ... of `w`: shifted left by `UY` (...) they reach the sign
/// bit, which `blendv` reads and which masks the negation.
#[inline]
#[target_feature(enable = "avx2")]
fn gradient<const UY: i32, const UN: i32, const VZ: i32, const VN: i32>(
    c: &Consts,
    w: __m256i,
    x: __m256d,
    y: __m256d,
    z: __m256d,
) -> __m256d {
    let u = _mm256_blendv_pd(x, y, _mm256_castsi256_pd(_mm256_slli_epi64::<UY>(w)));
    let v = _mm256_blendv_pd(y, z, _mm256_castsi256_pd(_mm256_slli_epi64::<VZ>(w)));
    let u_sign = _mm256_and_pd(_mm256_castsi256_pd(_mm256_slli_epi64::<UN>(w)), c.sign);
    let v_sign = _mm256_and_pd(_mm256_castsi256_pd(_mm256_slli_epi64::<VN>(w)), c.sign);
    _mm256_add_pd(_mm256_xor_pd(u, u_sign), _mm256_xor_pd(v, v_sign))
}

/// `linear(a, b, α) = b·α + a·(1 − α)`, with `1 − α` given.
#[inline]
#[target_feature(enable = "avx2")]
fn lerp(a: __m256d, b: __m256d, alpha: __m256d, rest: __m256d) -> __m256d {
    _mm256_add_pd(_mm256_mul_pd(b, alpha), _mm256_mul_pd(a, rest))
}

/// The rest of `perlin_3d` for one group of four lanes, from its axes and its corner terms:
/// the eight gradients, the seven interpolations, the scale and the clamp. A macro, so that both
/// groups are written out in [`perlin8`] (a function called twice was not inlined).
macro_rules! finish {
    ($c:expr, $a:expr, $terms:expr) => {{
        let (c, [ax, ay, az], terms) = ($c, $a, $terms);
        let (x0, x1, y0, y1, z0, z1) = (ax.near, ax.far, ay.near, ay.far, az.near, az.far);
        let (w00, w01, w10, w11) = (widen(terms[0]), widen(terms[1]), widen(terms[2]), widen(terms[3]));
        let g000 = gradient::<63, 62, 61, 60>(c, w00, x0, y0, z0);
        let g001 = gradient::<59, 58, 57, 56>(c, w00, x0, y0, z1);
        let g010 = gradient::<63, 62, 61, 60>(c, w01, x0, y1, z0);
        let g011 = gradient::<59, 58, 57, 56>(c, w01, x0, y1, z1);
        let g100 = gradient::<63, 62, 61, 60>(c, w10, x1, y0, z0);
        let g101 = gradient::<59, 58, 57, 56>(c, w10, x1, y0, z1);
        let g110 = gradient::<63, 62, 61, 60>(c, w11, x1, y1, z0);
        let g111 = gradient::<59, 58, 57, 56>(c, w11, x1, y1, z1);
        let (qz, rz, qy, ry) = (az.curve, az.rest, ay.curve, ay.rest);
        let low = lerp(lerp(g000, g001, qz, rz), lerp(g010, g011, qz, rz), qy, ry);
        let high = lerp(lerp(g100, g101, qz, rz), lerp(g110, g111, qz, rz), qy, ry);
        let v = _mm256_mul_pd(lerp(low, high, ax.curve, ax.rest), c.scale);
        _mm256_max_pd(_mm256_min_pd(v, c.one), c.minus_one)
    }};
}

/// `perlin_3d` of one octave at two groups of four points whose coordinates are below
/// [`super::FAST_LIMIT`]. Corner terms: bits 0 (`u` is y), 1 (`u` negated), 2 (`v` is z) and
/// 3 (`v` negated) of each nibble, as [`super::GRADIENT_TERMS`] holds them.
#[inline]
#[target_feature(enable = "avx2")]
fn perlin8(c: &Consts, t: Tables<'_>, p: [__m256d; 3], q: [__m256d; 3]) -> (__m256d, __m256d) {
    let a = [axis(c, p[0]), axis(c, p[1]), axis(c, p[2])];
    let b = [axis(c, q[0]), axis(c, q[1]), axis(c, q[2])];
    let [ta, tb] = corner_terms(t, [[a[0].cell, a[1].cell, a[2].cell], [b[0].cell, b[1].cell, b[2].cell]]);
    (finish!(c, &a, &ta), finish!(c, &b, &tb))
}

/// Four points of `points` from `first` as the lanes of each axis; lanes past the end repeat
/// the first point (lanes are independent: padding changes nothing).
#[inline]
#[target_feature(enable = "avx2")]
fn lanes(points: &[[f64; 3]], first: usize) -> [__m256d; 3] {
    let at = |l: usize| points.get(first + l).unwrap_or(&points[first]);
    let (a, b, c, d) = (at(0), at(1), at(2), at(3));
    std::array::from_fn(|i| _mm256_setr_pd(a[i], b[i], c[i], d[i]))
}

/// Whether every coordinate of the lanes is below `bound` in magnitude (false for NaN).
#[inline]
#[target_feature(enable = "avx2")]
fn small(c: &Consts, p: &[__m256d; 3], bound: __m256d) -> bool {
    let mut all = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
    for v in p {
        let magnitude = _mm256_andnot_pd(c.sign, *v);
        all = _mm256_and_pd(all, _mm256_cmp_pd::<_CMP_LT_OQ>(magnitude, bound));
    }
    _mm256_movemask_pd(all) == 0b1111
}

impl PerlinFbm3 {
    /// `get_many` on AVX2: eight points at a time, as two groups of four through [`perlin8`]
    /// (both written out: each octave's chain of dependent operations is long, and two
    /// independent chains keep the vector units busy); a group of eight with a point out of the kernel's
    /// range runs `get` point by point, and the last, partial group is padded.
    #[target_feature(enable = "avx2")]
    pub(super) fn many_avx2(&self, points: &[[f64; 3]], out: &mut [f64]) {
        let c = Consts::new();
        let tables: Vec<(Tables<'_>, __m256d)> = self
            .columns
            .iter()
            .zip(&self.pairs)
            .zip(&self.attenuations)
            .map(|((columns, pairs), a)| (Tables { columns, pairs }, _mm256_set1_pd(*a)))
            .collect();
        let (frequency, lacunarity) = (_mm256_set1_pd(self.frequency), _mm256_set1_pd(self.lacunarity));
        let scale_factor = _mm256_set1_pd(self.scale_factor);
        let bound = _mm256_set1_pd(self.fast_bound);
        for first in (0..points.len()).step_by(8) {
            let second = if first + 4 < points.len() { first + 4 } else { first };
            let (mut p, mut q) = (lanes(points, first), lanes(points, second));
            for v in p.iter_mut().chain(q.iter_mut()) {
                *v = _mm256_mul_pd(*v, frequency);
            }
            let len = (points.len() - first).min(8);
            let values = &mut out[first..first + len];
            if !(small(&c, &p, bound) && small(&c, &q, bound)) {
                for (value, point) in values.iter_mut().zip(&points[first..]) {
                    *value = self.get(point[0], point[1], point[2]);
                }
                continue;
            }
            let (mut a, mut b) = (c.zero, c.zero);
            for (t, attenuation) in &tables {
                let (sa, sb) = perlin8(&c, *t, p, q);
                a = _mm256_add_pd(a, _mm256_mul_pd(sa, *attenuation));
                b = _mm256_add_pd(b, _mm256_mul_pd(sb, *attenuation));
                for v in p.iter_mut().chain(q.iter_mut()) {
                    *v = _mm256_mul_pd(*v, lacunarity);
                }
            }
            let mut result = [0.0; 8];
            // SAFETY: `result` holds eight f64.
            unsafe {
                _mm256_storeu_pd(result.as_mut_ptr(), _mm256_mul_pd(a, scale_factor));
                _mm256_storeu_pd(result.as_mut_ptr().add(4), _mm256_mul_pd(b, scale_factor));
            }
            values.copy_from_slice(&result[..len]);
        }
    }
}

impl PerlinFbm3 {
    /// Octave `o`'s terms at `points` ([`octave_terms_avx2`] with the octave's tables and
    /// attenuation): the sparse octaves of `PerlinFbm3::grid_avx2`.
    #[target_feature(enable = "avx2")]
    pub(super) fn octave_terms_avx2(&self, o: usize, points: &[[f64; 3]], out: &mut [f64]) {
        let tables = Tables { columns: &self.columns[o], pairs: &self.pairs[o] };
        octave_terms_avx2(tables, points, self.attenuations[o], out);
    }
}

/// One octave's terms `perlin_3d(p) · attenuation` at `points` (already scaled to the octave,
/// every coordinate below [`super::FAST_LIMIT`]), eight at a time: the sparse octaves of a grid.
#[target_feature(enable = "avx2")]
fn octave_terms_avx2(t: Tables<'_>, points: &[[f64; 3]], attenuation: f64, out: &mut [f64]) {
    let c = Consts::new();
    let attenuation = _mm256_set1_pd(attenuation);
    for first in (0..points.len()).step_by(8) {
        let second = if first + 4 < points.len() { first + 4 } else { first };
        let (p, q) = (lanes(points, first), lanes(points, second));
        let (sa, sb) = perlin8(&c, t, p, q);
        let mut result = [0.0; 8];
        // SAFETY: `result` holds eight f64.
        unsafe {
            _mm256_storeu_pd(result.as_mut_ptr(), _mm256_mul_pd(sa, attenuation));
            _mm256_storeu_pd(result.as_mut_ptr().add(4), _mm256_mul_pd(sb, attenuation));
        }
        let len = (points.len() - first).min(8);
        out[first..first + len].copy_from_slice(&result[..len]);
    }
}

/// One axis of a grid at one octave, for `PerlinFbm3::lattice_avx2`: per index, the distances
/// to the lower and the upper corner, the quintic curve and one minus it (the scalar
/// `floor_to_isize`, `v − c` and `quintic` of `perlin_3d`: the same bits as [`axis`]), and the
/// index's run of equal corners; per run, the corner's low 8 bits.
#[derive(Default)]
struct LatticeAxis {
    near: Vec<f64>,
    far: Vec<f64>,
    curve: Vec<f64>,
    rest: Vec<f64>,
    run_of: Vec<u32>,
    run_cell: Vec<u8>,
}

impl LatticeAxis {
    fn with_capacity(n: usize) -> Self {
        Self {
            near: Vec::with_capacity(n),
            far: Vec::with_capacity(n),
            curve: Vec::with_capacity(n),
            rest: Vec::with_capacity(n),
            run_of: Vec::with_capacity(n),
            run_cell: Vec::with_capacity(n),
        }
    }

    /// The terms of the coordinates `scaled`, replacing the last octave's.
    fn derive(&mut self, scaled: &[f64]) {
        for v in [&mut self.near, &mut self.far, &mut self.curve, &mut self.rest] {
            v.clear();
        }
        self.run_of.clear();
        self.run_cell.clear();
        let mut last = None;
        for &v in scaled {
            let corner = super::floor_to_isize(v);
            let near = v - corner as f64;
            let curve = super::quintic(near);
            if last != Some(corner) {
                self.run_cell.push((corner & 0xff) as u8);
                last = Some(corner);
            }
            self.near.push(near);
            self.far.push(near - 1.0);
            self.curve.push(curve);
            self.rest.push(1.0 - curve);
            self.run_of.push(self.run_cell.len() as u32 - 1);
        }
    }
}

/// The gradient terms of a plane's points at one octave, per run of the plane's y cell: for
/// each y run (cell `cy`) and plane position `i + nx·k` (padded to `padded` with copies of the
/// first), the hash's terms of the eight corners of the point's unit cube as a `u32`, corner
/// `(dx, dy, dz)` at bits `4·(4·dx + 2·dy + dz)`. The hash's first two levels once per x run
/// and y run (in `columns_of`), the last per point.
fn plane_terms(
    (columns, pairs): (&super::ByteTable, &super::ByteTable),
    [ax, ay, az]: [&LatticeAxis; 3],
    padded: usize,
    columns_of: &mut Vec<[u8; 4]>,
    terms: &mut Vec<u32>,
) {
    let (nx, plane) = (ax.near.len(), ax.near.len() * az.near.len());
    terms.clear();
    terms.resize(ay.run_cell.len() * padded, 0);
    for (&cy, dst) in ay.run_cell.iter().zip(terms.chunks_exact_mut(padded)) {
        let (y0, y1) = (usize::from(cy), usize::from(cy.wrapping_add(1)));
        columns_of.clear();
        for &cx in &ax.run_cell {
            let (c0, c1) = (&columns[usize::from(cx)], &columns[usize::from(cx.wrapping_add(1))]);
            columns_of.push([c0[y0], c0[y1], c1[y0], c1[y1]]);
        }
        for (&z_run, dst) in az.run_of.iter().zip(dst.chunks_exact_mut(nx)) {
            let row = &pairs[usize::from(az.run_cell[z_run as usize])];
            for (&x_run, t) in ax.run_of.iter().zip(dst) {
                let b = columns_of[x_run as usize];
                *t = u32::from(row[usize::from(b[0])])
                    | u32::from(row[usize::from(b[1])]) << 8
                    | u32::from(row[usize::from(b[2])]) << 16
                    | u32::from(row[usize::from(b[3])]) << 24;
            }
        }
        let first = dst[0];
        dst[plane..].fill(first);
    }
}

/// The gradient of one corner whose terms' bits are at bits `S..S + 4` of `w`: [`gradient`].
macro_rules! corner {
    ($c:expr, $w:expr, $s:literal, $x:expr, $y:expr, $z:expr) => {
        gradient::<{ 63 - $s }, { 62 - $s }, { 61 - $s }, { 60 - $s }>($c, $w, $x, $y, $z)
    };
}

impl PerlinFbm3 {
    /// `fill_grid` on AVX2 for grids whose rows cross a unit cube every few points (the cave
    /// lattice), octave by octave: the axes' terms once per grid line; the x and z terms laid
    /// out along a plane of constant y (`i + nx·k`, padded to whole registers); the corners'
    /// gradient terms per plane position and y run ([`plane_terms`]); then per plane (its y
    /// terms broadcast), four points per register, the eight gradients, the interpolations,
    /// the scale and the clamp of [`perlin8`]'s `finish!`, added to the points' sums in octave
    /// order. The same operations per point as `get`. False, nothing written, where a
    /// coordinate of some octave is not below [`super::FAST_LIMIT`] (NaN included).
    #[target_feature(enable = "avx2")]
    pub(super) fn lattice_avx2(&self, xs: &[f64], ys: &[f64], zs: &[f64], out: &mut [f64]) -> bool {
        let (nx, plane) = (xs.len(), xs.len() * zs.len());
        let padded = plane.div_ceil(4) * 4;
        let c = Consts::new();
        let mut scaled = [xs, ys, zs].map(|a| a.iter().map(|v| v * self.frequency).collect::<Vec<f64>>());
        let [mut ax, mut ay, mut az] = [xs, ys, zs].map(|a| LatticeAxis::with_capacity(a.len()));
        // `xz[t · padded + n]`: x's near, far, curve, rest, then z's, at plane position `n`.
        let mut xz = vec![0.0f64; 8 * padded];
        let mut terms: Vec<u32> = Vec::new();
        let mut columns_of: Vec<[u8; 4]> = Vec::with_capacity(xs.len());
        let mut sums = vec![0.0f64; padded * ys.len()];
        for ((columns, pairs), &attenuation) in self.columns.iter().zip(&self.pairs).zip(&self.attenuations) {
            if !scaled.iter().flatten().all(|v| v.abs() < super::FAST_LIMIT) {
                return false;
            }
            ax.derive(&scaled[0]);
            ay.derive(&scaled[1]);
            az.derive(&scaled[2]);
            let (x_terms, z_terms) = xz.split_at_mut(4 * padded);
            for (k, n) in (0..zs.len()).zip((0..plane).step_by(nx)) {
                let z = [az.near[k], az.far[k], az.curve[k], az.rest[k]];
                for (t, v) in z.iter().enumerate() {
                    z_terms[t * padded + n..][..nx].fill(*v);
                }
                for (t, v) in [&ax.near, &ax.far, &ax.curve, &ax.rest].iter().enumerate() {
                    x_terms[t * padded + n..][..nx].copy_from_slice(v);
                }
            }
            // Padding: copies of the first position.
            for t in 0..8 {
                let first = xz[t * padded];
                xz[t * padded + plane..(t + 1) * padded].fill(first);
            }
            plane_terms((columns, pairs), [&ax, &ay, &az], padded, &mut columns_of, &mut terms);
            let attenuation = _mm256_set1_pd(attenuation);
            let term = |t: usize, n: usize| &xz[t * padded + n..][..4];
            for (j, sums) in sums.chunks_exact_mut(padded).enumerate() {
                let (y0, y1) = (_mm256_set1_pd(ay.near[j]), _mm256_set1_pd(ay.far[j]));
                let (qy, ry) = (_mm256_set1_pd(ay.curve[j]), _mm256_set1_pd(ay.rest[j]));
                let plane_terms = &terms[ay.run_of[j] as usize * padded..][..padded];
                for (n, sum) in (0..padded).step_by(4).zip(sums.chunks_exact_mut(4)) {
                    // SAFETY: every pointer read or written is that of a slice of four values.
                    unsafe {
                        let load = |t: usize| _mm256_loadu_pd(term(t, n).as_ptr());
                        let (x0, x1, qx, rx) = (load(0), load(1), load(2), load(3));
                        let (z0, z1, qz, rz) = (load(4), load(5), load(6), load(7));
                        let w = _mm256_cvtepu32_epi64(_mm_loadu_si128(plane_terms[n..n + 4].as_ptr().cast()));
                        let g000 = corner!(&c, w, 0, x0, y0, z0);
                        let g001 = corner!(&c, w, 4, x0, y0, z1);
                        let g010 = corner!(&c, w, 8, x0, y1, z0);
                        let g011 = corner!(&c, w, 12, x0, y1, z1);
                        let g100 = corner!(&c, w, 16, x1, y0, z0);
                        let g101 = corner!(&c, w, 20, x1, y0, z1);
                        let g110 = corner!(&c, w, 24, x1, y1, z0);
                        let g111 = corner!(&c, w, 28, x1, y1, z1);
                        let low = lerp(lerp(g000, g001, qz, rz), lerp(g010, g011, qz, rz), qy, ry);
                        let high = lerp(lerp(g100, g101, qz, rz), lerp(g110, g111, qz, rz), qy, ry);
                        let v = _mm256_mul_pd(lerp(low, high, qx, rx), c.scale);
                        let v = _mm256_max_pd(_mm256_min_pd(v, c.one), c.minus_one);
                        let sum_v = _mm256_add_pd(_mm256_loadu_pd(sum.as_ptr()), _mm256_mul_pd(v, attenuation));
                        _mm256_storeu_pd(sum.as_mut_ptr(), sum_v);
                    }
                }
            }
            for s in scaled.iter_mut() {
                s.iter_mut().for_each(|v| *v *= self.lacunarity);
            }
        }
        for (values, sums) in out.chunks_exact_mut(plane).zip(sums.chunks_exact(padded)) {
            for (o, s) in values.iter_mut().zip(sums) {
                *o = s * self.scale_factor;
            }
        }
        true
    }
}
