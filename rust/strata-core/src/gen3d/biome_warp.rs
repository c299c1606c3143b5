//! The warp of biome lookups: where a position looks up its biome, so borders meander.
//!
//! A position `(x, z)` looks up its biome at `(x + s·wx, z + s·wz)`, `s` the preset's
//! `biomes.warp_strength`. `wx` and `wz` are two independent Perlin fBm fields (6 octaves, the
//! first of wavelength `biomes.warp_scale`, persistence 0.8: each octave halves the wavelength
//! and keeps 80 % of the amplitude, so bends of every size from the largest down to a few voxels
//! ride on each other, as coastlines do), scaled by [`WARP_GAIN`] and clamped to `[-1, 1]`,
//! computed at the points of a world-aligned lattice of [`WARP_CELL`] voxels and interpolated
//! bilinearly between them. So the warp is a continuous pure function of the position (laws:
//! Deterministic, Seamless): a lattice point's value does not depend on which region asked for
//! it, and every path interpolates with the same operations ([`WarpGrid::warped`]). A position
//! moves at most `s` voxels on each axis, which bounds the feature points a region needs.
//!
//! May use: `base`, `noise`.

use crate::base::rng::salt;
use crate::noise::fast_fbm::PerlinFbm2;
use crate::noise::fractal::{FractalParams, noise_seed};

/// Spacing of the warp lattice, in voxels (a power of two: lattice cells are exact).
pub const WARP_CELL: f64 = 4.0;
/// Octaves of each warp field.
pub const WARP_OCTAVES: u32 = 6;
/// Amplitude kept from one octave to the next: high, so bends of 50 to 100 voxels stay strong
/// beside the largest (straight stretches of border need weak middle octaves).
pub const WARP_PERSISTENCE: f64 = 0.8;
/// Factor from the fBm (about ±0.3 typical, within ±1) to the warp's `[-1, 1]`.
pub const WARP_GAIN: f64 = 1.0;

/// The two warp fields of a world and how far they move a position.
#[derive(Clone, Debug)]
pub struct BiomeWarp {
    strength: f64,
    x: PerlinFbm2,
    z: PerlinFbm2,
}

impl BiomeWarp {
    /// The warp of a world with `seed`, moving positions up to `strength` voxels per axis, its
    /// largest bends `scale` voxels long. `None` when `strength` is 0 (no warp).
    pub fn new(seed: u64, strength: f64, scale: f64) -> Option<Self> {
        Self::with_shape(seed, strength, scale, WARP_OCTAVES, WARP_PERSISTENCE)
    }

    /// [`BiomeWarp::new`] with another octave count and persistence: for tuning them.
    #[doc(hidden)]
    pub fn with_shape(seed: u64, strength: f64, scale: f64, octaves: u32, persistence: f64) -> Option<Self> {
        if strength.is_nan() || strength <= 0.0 {
            return None;
        }
        let params = FractalParams { octaves, frequency: 1.0 / scale.max(1.0), persistence, lacunarity: 2.0 };
        Some(Self {
            strength,
            x: PerlinFbm2::new(noise_seed(seed, salt::BIOME_WARP_X), params),
            z: PerlinFbm2::new(noise_seed(seed, salt::BIOME_WARP_Z), params),
        })
    }

    /// The warp lattice over every position of `[x0, x1] × [z0, z1]` (the lattice points around
    /// it, each field filled as one grid: the same bits as one point at a time).
    pub fn grid(&self, x0: f64, z0: f64, x1: f64, z1: f64) -> WarpGrid {
        let (i0, k0) = (lattice_index(x0), lattice_index(z0));
        let (i1, k1) = (lattice_index(x1) + 1, lattice_index(z1) + 1);
        let (ni, nk) = ((i1 - i0 + 1) as usize, (k1 - k0 + 1) as usize);
        let xs: Vec<f64> = (0..ni as i64).map(|i| (i0 + i) as f64 * WARP_CELL).collect();
        let zs: Vec<f64> = (0..nk as i64).map(|k| (k0 + k) as f64 * WARP_CELL).collect();
        let (mut wx, mut wz) = (vec![0.0; ni * nk], vec![0.0; ni * nk]);
        self.x.fill_grid(&xs, &zs, &mut wx);
        self.z.fill_grid(&xs, &zs, &mut wz);
        let scaled = |w: f64| (w * WARP_GAIN).clamp(-1.0, 1.0) * self.strength;
        let points = wx.iter().zip(&wz).map(|(&x, &z)| (scaled(x), scaled(z))).collect();
        WarpGrid { i0, k0, ni, points }
    }
}

/// Index of the lattice point at or below world coordinate `v`.
#[inline]
fn lattice_index(v: f64) -> i64 {
    (v / WARP_CELL).floor() as i64
}

/// The warp's displacements at the lattice points over a region (see [`BiomeWarp::grid`]).
#[derive(Clone, Debug, Default)]
pub struct WarpGrid {
    i0: i64,
    k0: i64,
    ni: usize,
    /// `(dx, dz)` in voxels, row-major (x fastest).
    points: Vec<(f64, f64)>,
}

impl WarpGrid {
    /// The least and greatest displacement on each axis over the grid's points,
    /// `(dx_min, dx_max, dz_min, dz_max)`: every position of its region moves within them (an
    /// interpolation never leaves its four points' range). All 0 for an empty grid.
    pub fn bounds(&self) -> (f64, f64, f64, f64) {
        if self.points.is_empty() {
            return (0.0, 0.0, 0.0, 0.0);
        }
        self.points.iter().fold(
            (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY),
            |(x0, x1, z0, z1), &(dx, dz)| (x0.min(dx), x1.max(dx), z0.min(dz), z1.max(dz)),
        )
    }

    /// Where `(x, z)`, a position inside the grid's region, looks up its biome: the position plus
    /// the bilinear interpolation of the displacements at the four lattice points around it
    /// (along z first, then along x).
    #[inline]
    pub fn warped(&self, x: f64, z: f64) -> (f64, f64) {
        let (k, tz) = cell(z / WARP_CELL);
        let (i, tx) = cell(x / WARP_CELL);
        self.warped_in_row(x, z, (k - self.k0) as usize, tz, (i - self.i0) as usize, tx)
    }

    /// [`WarpGrid::warped`] with the lattice cell found: row `k` (from the grid's first) at
    /// fraction `tz`, column `i` at fraction `tx`.
    #[inline(always)]
    fn warped_in_row(&self, x: f64, z: f64, k: usize, tz: f64, i: usize, tx: f64) -> (f64, f64) {
        let (left, right) = (self.along_z(k, tz, i), self.along_z(k, tz, i + 1));
        (x + lerp(left.0, right.0, tx), z + lerp(left.1, right.1, tx))
    }

    /// The displacement interpolated along z between rows `k` and `k + 1` at fraction `tz`, in
    /// lattice column `i`: the first step of [`WarpGrid::warped`].
    #[inline(always)]
    fn along_z(&self, k: usize, tz: f64, i: usize) -> (f64, f64) {
        let (a, c) = (self.points[k * self.ni + i], self.points[(k + 1) * self.ni + i]);
        (lerp(a.0, c.0, tz), lerp(a.1, c.1, tz))
    }

    /// [`WarpGrid::warped`] at every `(xs[i], z)` of one row, into `wx[i]`, `wz[i]` (each as long
    /// as `xs`): the row's lattice row found once, and each lattice column's step along z done
    /// once for a run of positions in the same cell (the same operations, so the same bits).
    pub fn warped_row(&self, xs: &[f64], z: f64, wx: &mut [f64], wz: &mut [f64]) {
        assert!(xs.len() == wx.len() && xs.len() == wz.len(), "one lookup per position");
        let (k, tz) = cell(z / WARP_CELL);
        let k = (k - self.k0) as usize;
        #[cfg(target_arch = "x86_64")]
        if crate::base::simd::avx2() && xs.len() >= 4 {
            // SAFETY: the CPU has AVX2.
            if unsafe { self.warped_row_avx2(xs, z, k, tz, wx, wz) } {
                return;
            }
        }
        let mut column = None;
        let (mut left, mut right) = ((0.0, 0.0), (0.0, 0.0));
        for ((&x, ox), oz) in xs.iter().zip(wx.iter_mut()).zip(wz.iter_mut()) {
            let (i, tx) = cell(x / WARP_CELL);
            let i = (i - self.i0) as usize;
            if column != Some(i) {
                (left, right) = if column == Some(i.wrapping_sub(1)) {
                    (right, self.along_z(k, tz, i + 1))
                } else {
                    (self.along_z(k, tz, i), self.along_z(k, tz, i + 1))
                };
                column = Some(i);
            }
            (*ox, *oz) = (x + lerp(left.0, right.0, tx), z + lerp(left.1, right.1, tx));
        }
    }

    /// [`WarpGrid::warped_row`] four positions at a time, with lattice row `k` at fraction `tz`:
    /// the lattice columns the positions span stepped along z once (into stack arrays), then per
    /// lane the same cell (`floor` of `x / 4`, exact), fraction and interpolation as
    /// [`WarpGrid::warped_in_row`], so the same bits. Returns `false`, having written nothing,
    /// when a position is not finite, outside the grid, or the span is wider than the arrays.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn warped_row_avx2(&self, xs: &[f64], z: f64, k: usize, tz: f64, wx: &mut [f64], wz: &mut [f64]) -> bool {
        use std::arch::x86_64::*;
        const SPAN: usize = 32;
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for &x in xs {
            if x.is_nan() || x.abs() >= 1e15 {
                return false;
            }
            (lo, hi) = (lo.min(x), hi.max(x));
        }
        let (first, last) = (cell(lo / WARP_CELL).0 - self.i0, cell(hi / WARP_CELL).0 - self.i0);
        let rows = self.points.len() / self.ni.max(1);
        if first < 0 || last + 1 >= self.ni as i64 || k + 1 >= rows || (last - first + 2) as usize > SPAN {
            return false;
        }
        let (mut cx, mut cz) = ([0.0f64; SPAN], [0.0f64; SPAN]);
        for (j, i) in (first as usize..=last as usize + 1).enumerate() {
            (cx[j], cz[j]) = self.along_z(k, tz, i);
        }
        let (quarter, origin) = (_mm256_set1_pd(1.0 / WARP_CELL), _mm_set1_epi32((first + self.i0) as i32));
        let (vz, one) = (_mm256_set1_pd(z), _mm_set1_epi32(1));
        let n = xs.len() / 4 * 4;
        for ((x4, ox), oz) in xs[..n].chunks_exact(4).zip(wx[..n].chunks_exact_mut(4)).zip(wz[..n].chunks_exact_mut(4))
        {
            // SAFETY: four f64 read and written unaligned; every lane's column index lies in
            // `0..=last - first` (its x within `[lo, hi]`, floor monotonic), so it and the next
            // are inside the filled part of `cx` and `cz`.
            unsafe {
                let x = _mm256_loadu_pd(x4.as_ptr());
                // x / 4 is exact (a power of two), so the product is the quotient's bits.
                let u = _mm256_mul_pd(x, quarter);
                let f = _mm256_round_pd::<{ _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC }>(u);
                let tx = _mm256_sub_pd(u, f);
                let i = _mm_sub_epi32(_mm256_cvttpd_epi32(f), origin);
                let (lx, rx) = (
                    _mm256_i32gather_pd::<8>(cx.as_ptr(), i),
                    _mm256_i32gather_pd::<8>(cx.as_ptr(), _mm_add_epi32(i, one)),
                );
                let (lz, rz) = (
                    _mm256_i32gather_pd::<8>(cz.as_ptr(), i),
                    _mm256_i32gather_pd::<8>(cz.as_ptr(), _mm_add_epi32(i, one)),
                );
                let dx = _mm256_add_pd(lx, _mm256_mul_pd(_mm256_sub_pd(rx, lx), tx));
                let dz = _mm256_add_pd(lz, _mm256_mul_pd(_mm256_sub_pd(rz, lz), tx));
                _mm256_storeu_pd(ox.as_mut_ptr(), _mm256_add_pd(x, dx));
                _mm256_storeu_pd(oz.as_mut_ptr(), _mm256_add_pd(vz, dz));
            }
        }
        for ((&x, ox), oz) in xs[n..].iter().zip(&mut wx[n..]).zip(&mut wz[n..]) {
            let (i, tx) = cell(x / WARP_CELL);
            (*ox, *oz) = self.warped_in_row(x, z, k, tz, (i - self.i0) as usize, tx);
        }
        true
    }
}

/// `p` to `q` at fraction `t` (no fused multiply-add: the same bits on every path).
#[inline(always)]
fn lerp(p: f64, q: f64, t: f64) -> f64 {
    p + (q - p) * t
}

/// The lattice index at or below `u` (in lattice units) and the fraction past it: `floor` done
/// with an integer conversion (no library call without SSE4.1), exact for `|u| < 2⁶²`.
#[inline(always)]
fn cell(u: f64) -> (i64, f64) {
    let mut i = u as i64;
    if (i as f64) > u {
        i -= 1;
    }
    (i, u - i as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_warp_is_continuous_bounded_and_the_same_from_any_region() {
        let warp = BiomeWarp::new(7, 96.0, 256.0).unwrap();
        let whole = warp.grid(-300.0, -300.0, 300.0, 300.0);
        let mut moved = 0.0f64;
        for i in 0..2000 {
            let (x, z) = ((i * 37 % 600) as f64 - 299.5, (i * 91 % 600) as f64 - 299.25);
            let small = warp.grid(x - 1.0, z, x + 3.0, z + 0.5);
            let (a, b) = (whole.warped(x, z), small.warped(x, z));
            assert_eq!((a.0.to_bits(), a.1.to_bits()), (b.0.to_bits(), b.1.to_bits()), "at ({x}, {z})");
            assert!((a.0 - x).abs() <= 96.0 && (a.1 - z).abs() <= 96.0);
            moved = moved.max((a.0 - x).abs());
            // One voxel over, the lookup moves by little more than a voxel.
            let n = whole.warped(x + 1.0, z);
            assert!((n.0 - a.0).abs() < 6.0 && (n.1 - a.1).abs() < 6.0, "{a:?} → {n:?}");
        }
        assert!(moved > 20.0, "the warp moves positions: at most {moved}");
        // A row at a time: the same bits.
        let xs: Vec<f64> = (0..300).map(|i| i as f64 * 1.75 - 260.3).collect();
        let (mut wx, mut wz) = (vec![0.0; xs.len()], vec![0.0; xs.len()]);
        whole.warped_row(&xs, -17.5, &mut wx, &mut wz);
        for ((&x, a), b) in xs.iter().zip(&wx).zip(&wz) {
            let (c, d) = whole.warped(x, -17.5);
            assert_eq!((a.to_bits(), b.to_bits()), (c.to_bits(), d.to_bits()), "at {x}");
        }
        // Rows the width of a chunk's column pass and of a preview block, at every alignment
        // (the SIMD path; a row wider than its span falls back to the scalar one above).
        for (n, step, x0, z) in
            [(34, 1.0, -17.0, 3.0), (37, 1.0, 101.5, -250.25), (64, 4.0, -290.0, 77.0), (5, 0.5, 0.25, 0.0)]
        {
            let xs: Vec<f64> = (0..n).map(|i| x0 + i as f64 * step).collect();
            let (mut wx, mut wz) = (vec![0.0; n], vec![0.0; n]);
            whole.warped_row(&xs, z, &mut wx, &mut wz);
            for ((&x, a), b) in xs.iter().zip(&wx).zip(&wz) {
                let (c, d) = whole.warped(x, z);
                assert_eq!((a.to_bits(), b.to_bits()), (c.to_bits(), d.to_bits()), "at ({x}, {z})");
            }
        }
        assert!(BiomeWarp::new(7, 0.0, 256.0).is_none());
    }
}
