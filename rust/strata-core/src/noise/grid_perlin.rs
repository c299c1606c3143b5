//! `noise::Perlin`'s 3D gradient noise on separable grids ([`GridPerlin`]), bit for bit, with
//! bounds over a whole grid; for fields sampled on a world-aligned lattice (cave tunnels).
//!
//! May use: `base`, and the `noise` crate whose Perlin noise it reproduces.

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
#[derive(Clone, Debug, Default)]
pub struct PerlinAxis {
    /// The unit cube's lower corner (`noise`'s floor_to_isize: truncation, minus one at and
    /// below zero).
    corner: Vec<isize>,
    /// Distances to the lower and the upper corner, the quintic curve of the first and one
    /// minus that.
    terms: Vec<[f64; 4]>,
}

impl PerlinAxis {
    /// The axis of grid coordinates `coordinates`, in grid index order.
    pub fn new(coordinates: impl ExactSizeIterator<Item = f64>) -> Self {
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
#[derive(Clone, Debug)]
pub struct PerlinCube {
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

    #[inline]
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
    pub fn get(
        &self,
        [ax, ay, az]: [&PerlinAxis; 3],
        (i, j, k): (usize, usize, usize),
        cube: &mut Option<PerlinCube>,
    ) -> f64 {
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
    pub fn bounds(&self, axes: [&PerlinAxis; 3]) -> (f64, f64) {
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
                        let (px, py, pz) = (
                            if n & 4 != 0 { x1 } else { x0 },
                            if n & 2 != 0 { y1 } else { y0 },
                            if n & 1 != 0 { z1 } else { z0 },
                        );
                        let (mut r0, mut r1) = (0.0, 0.0);
                        for (unit, (plo, phi)) in [((1.0, 0.0, 0.0), px), ((0.0, 1.0, 0.0), py), ((0.0, 0.0, 1.0), pz)]
                        {
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
pub struct PerlinCubeAvx2 {
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
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2 (outside code built for AVX2, calling it is unsafe).
    #[target_feature(enable = "avx2")]
    #[inline]
    pub fn get_avx2(
        &self,
        [ax, ay, az]: [&PerlinAxis; 3],
        (i, j, k): (usize, usize, usize),
        cube: &mut Option<PerlinCubeAvx2>,
    ) -> f64 {
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
                    let all_ones = |bit: i64| {
                        _mm256_castsi256_pd(_mm256_cmpeq_epi64(
                            _mm256_and_si256(terms, _mm256_set1_epi64x(bit)),
                            _mm256_set1_epi64x(bit),
                        ))
                    };
                    let sign = |bit: i32| {
                        _mm256_castsi256_pd(_mm256_sll_epi64(
                            _mm256_and_si256(terms, _mm256_set1_epi64x(1 << bit)),
                            _mm_cvtsi32_si128(63 - bit),
                        ))
                    };
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
        let m = _mm256_add_pd(
            _mm256_mul_pd(_mm256_unpackhi_pd(l, l), _mm256_set1_pd(cy)),
            _mm256_mul_pd(_mm256_unpacklo_pd(l, l), _mm256_set1_pd(ry)),
        );
        let (m1, m0) = (_mm256_cvtsd_f64(m), _mm256_cvtsd_f64(_mm256_permute4x64_pd::<0b10>(m)));
        let result = (m1 * cx + m0 * rx) * SCALE_FACTOR;
        result.clamp(-1.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::rng::mix64;

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
            let mut axes: Vec<Vec<f64>> = (0..5)
                .map(|n| {
                    (0..40)
                        .map(|_| (next() as i64 as f64 / i64::MAX as f64) * [1e-3, 0.7, 13.0, 900.0, 3e5][n])
                        .collect()
                })
                .collect();
            axes.push((-60..60).map(|i| (i * 4) as f64 * (1.0 / 96.0) * 0.25 * 1.5).collect());
            axes.push((-60..60).map(|i| (i * 4) as f64 * (1.0 / 72.0) + 101.7).collect());
            axes.push(vec![
                -2.0,
                -1.0,
                -0.5,
                -0.0,
                0.0,
                1e-310,
                0.5,
                1.0 - 1e-16,
                1.0,
                2.0,
                255.0,
                256.0,
                257.5,
                -256.0,
            ]);
            let mut cube = None;
            for (a, b, c) in [(0, 1, 2), (3, 4, 0), (5, 5, 6), (7, 7, 7), (6, 7, 5), (2, 7, 3)] {
                let [xs, ys, zs] = [&axes[a], &axes[b], &axes[c]];
                let grid = [
                    PerlinAxis::new(xs.iter().copied()),
                    PerlinAxis::new(ys.iter().copied()),
                    PerlinAxis::new(zs.iter().copied()),
                ];
                for (j, &y) in ys.iter().enumerate() {
                    for (k, &z) in zs.iter().enumerate() {
                        for (i, &x) in xs.iter().enumerate() {
                            let got = ours.get([&grid[0], &grid[1], &grid[2]], (i, j, k), &mut cube);
                            assert_eq!(
                                got.to_bits(),
                                theirs.get([x, y, z]).to_bits(),
                                "seed {seed} at {:?}",
                                [x, y, z]
                            );
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
                    let coordinates =
                        |offset: f64| PerlinAxis::new((0..count).map(move |i| (start + i) as f64 * step + offset));
                    let grid = [coordinates(0.0), coordinates(0.31), coordinates(-17.9)];
                    let at = [&grid[0], &grid[1], &grid[2]];
                    let (lo, hi) = field.bounds(at);
                    let mut cube = None;
                    for j in 0..count as usize {
                        for k in 0..count as usize {
                            for i in 0..count as usize {
                                let v = field.get(at, (i, j, k), &mut cube);
                                assert!(
                                    lo <= v && v <= hi,
                                    "seed {seed}, step {step}, start {start}: {v} outside [{lo}, {hi}]"
                                );
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
            let mut axes: Vec<Vec<f64>> = (0..4)
                .map(|n| {
                    (0..24).map(|_| (next() as i64 as f64 / i64::MAX as f64) * [1e-3, 0.7, 13.0, 3e5][n]).collect()
                })
                .collect();
            axes.push((-30..30).map(|i| (i * 4) as f64 * (1.0 / 96.0) * 0.25 * 1.5).collect());
            axes.push(vec![
                -2.0,
                -1.0,
                -0.5,
                -0.0,
                0.0,
                1e-310,
                0.5,
                1.0 - 1e-16,
                1.0,
                2.0,
                255.0,
                256.0,
                257.5,
                -256.0,
            ]);
            for (a, b, c) in [(0, 1, 2), (3, 4, 0), (4, 4, 4), (5, 5, 5), (1, 5, 3)] {
                let grid = [
                    PerlinAxis::new(axes[a].iter().copied()),
                    PerlinAxis::new(axes[b].iter().copied()),
                    PerlinAxis::new(axes[c].iter().copied()),
                ];
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
}
