//! How real a height field looks, in two numbers that elevation models are measured by: the
//! radial power-spectrum slope β and the distribution of slope angles.
//!
//! [`spectral_slope`]: the field (a square of side `n`, a power of two, one sample per cell) less
//! its mean is multiplied by a 2D Hann window, transformed by a 2D FFT ([`fft`], radix 2), its
//! power `|F|²` averaged over rings of integer wavenumber `k = round(√(kx² + ky²))` (cycles per
//! window), and `log P(k)` fitted against `log k` by least squares over `2 ≤ k ≤ n/4`; β is the
//! negative of the fitted slope (`P(k) ∝ k^−β`). Real land lies around 2.4–4.0; a larger β is
//! smoother than land, a smaller one rougher.
//!
//! [`slope_angles`]: the angle of the surface at each interior cell from central differences,
//! `atan(|∇h|)`, in degrees; its mean and 90th percentile.
//!
//! The FFT is a plain iterative radix-2 transform, tested against the discrete Fourier sum: the
//! sizes measured here (at most a few hundred samples a side) need nothing faster.
//!
//! May use: nothing outside this file (pure functions of the samples).

/// One complex number as `(re, im)`.
type Complex = (f64, f64);

/// In-place FFT of `data` (length a power of two): `X[k] = Σ x[j]·e^(∓2πi·jk/n)`, the sign `−`
/// for the forward transform; the inverse is not divided by `n`.
pub fn fft(data: &mut [Complex], inverse: bool) {
    let n = data.len();
    assert!(n.is_power_of_two(), "fft of {n} samples; allowed: a power of two");
    let mut j = 0;
    for i in 1..n {
        let mut bit = n >> 1;
        while j & bit != 0 {
            j ^= bit;
            bit >>= 1;
        }
        j |= bit;
        if i < j {
            data.swap(i, j);
        }
    }
    let sign = if inverse { 1.0 } else { -1.0 };
    let mut len = 2;
    while len <= n {
        let angle = sign * 2.0 * std::f64::consts::PI / len as f64;
        for start in (0..n).step_by(len) {
            for k in 0..len / 2 {
                let (s, c) = (angle * k as f64).sin_cos();
                let (ar, ai) = data[start + k];
                let (br, bi) = data[start + k + len / 2];
                let (tr, ti) = (br * c - bi * s, br * s + bi * c);
                data[start + k] = (ar + tr, ai + ti);
                data[start + k + len / 2] = (ar - tr, ai - ti);
            }
        }
        len <<= 1;
    }
}

/// 2D FFT of an `n × n` row-major grid (rows, then columns).
pub fn fft2(data: &mut [Complex], n: usize, inverse: bool) {
    for row in data.chunks_exact_mut(n) {
        fft(row, inverse);
    }
    let mut column = vec![(0.0, 0.0); n];
    for c in 0..n {
        (0..n).for_each(|r| column[r] = data[r * n + c]);
        fft(&mut column, inverse);
        (0..n).for_each(|r| data[r * n + c] = column[r]);
    }
}

/// The radially averaged power spectrum of an `n × n` field (see the module docs): entry `k` is
/// the mean of `|F|²` over the ring of wavenumber `k`, for `k` in `0..=n/2`.
pub fn radial_power(heights: &[f64], n: usize) -> Vec<f64> {
    assert_eq!(heights.len(), n * n, "radial_power: {} samples for side {n}", heights.len());
    let mean = heights.iter().sum::<f64>() / (n * n) as f64;
    let hann = |i: usize| 0.5 * (1.0 - (2.0 * std::f64::consts::PI * i as f64 / n as f64).cos());
    let mut data: Vec<Complex> =
        heights.iter().enumerate().map(|(i, h)| ((h - mean) * hann(i % n) * hann(i / n), 0.0)).collect();
    fft2(&mut data, n, false);
    let half = n / 2;
    let (mut sum, mut count) = (vec![0.0; half + 1], vec![0u32; half + 1]);
    let fold = |i: usize| if i <= half { i as f64 } else { i as f64 - n as f64 };
    for (i, (re, im)) in data.iter().enumerate() {
        let k = (fold(i % n).hypot(fold(i / n))).round() as usize;
        if k <= half {
            sum[k] += re * re + im * im;
            count[k] += 1;
        }
    }
    sum.iter().zip(&count).map(|(s, &c)| if c > 0 { s / c as f64 } else { 0.0 }).collect()
}

/// The power-spectrum slope β of an `n × n` field (`n` a power of two, at least 16): the fit of
/// `log P(k)` against `log k` over `2 ≤ k ≤ n/4`. `None` for a flat field.
pub fn spectral_slope(heights: &[f64], n: usize) -> Option<f64> {
    if !n.is_power_of_two() || n < 16 {
        return None;
    }
    let power = radial_power(heights, n);
    let points: Vec<(f64, f64)> =
        (2..=n / 4).filter(|&k| power[k] > 0.0).map(|k| ((k as f64).ln(), power[k].ln())).collect();
    if points.len() < 2 {
        return None;
    }
    let m = points.len() as f64;
    let (sx, sy) = points.iter().fold((0.0, 0.0), |(a, b), (x, y)| (a + x, b + y));
    let (mx, my) = (sx / m, sy / m);
    let (sxy, sxx) = points.iter().fold((0.0, 0.0), |(a, b), (x, y)| (a + (x - mx) * (y - my), b + (x - mx).powi(2)));
    Some(-sxy / sxx)
}

/// Mean and 90th percentile of the slope angles (degrees) of a `cols × rows` field whose cells
/// are `cell` units apart horizontally, in the heights' units; interior cells only.
pub fn slope_angles(heights: &[f64], cols: usize, rows: usize, cell: f64) -> (f64, f64) {
    let mut angles = Vec::with_capacity(cols.saturating_sub(2) * rows.saturating_sub(2));
    for r in 1..rows.saturating_sub(1) {
        for c in 1..cols.saturating_sub(1) {
            let at = |c: usize, r: usize| heights[r * cols + c];
            let dx = (at(c + 1, r) - at(c - 1, r)) / (2.0 * cell);
            let dz = (at(c, r + 1) - at(c, r - 1)) / (2.0 * cell);
            angles.push(dx.hypot(dz).atan().to_degrees());
        }
    }
    if angles.is_empty() {
        return (0.0, 0.0);
    }
    let mean = angles.iter().sum::<f64>() / angles.len() as f64;
    angles.sort_by(f64::total_cmp);
    // Nearest rank.
    let p90 = angles[((0.9 * angles.len() as f64).ceil() as usize).clamp(1, angles.len()) - 1];
    (mean, p90)
}

/// A fractional-Brownian surface of side `n` (a power of two) with power spectrum `∝ k^−β`:
/// random phases from `seed`, amplitudes `k^−β/2`, inverse 2D FFT. For testing [`spectral_slope`].
pub fn fbm_surface(n: usize, beta: f64, seed: u64) -> Vec<f64> {
    let mut state = seed ^ 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        // splitmix64
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    };
    let half = n / 2;
    let fold = |i: usize| if i <= half { i as f64 } else { i as f64 - n as f64 };
    let mut data = vec![(0.0, 0.0); n * n];
    for (i, d) in data.iter_mut().enumerate() {
        let k = fold(i % n).hypot(fold(i / n));
        let phase = 2.0 * std::f64::consts::PI * next();
        // Gaussian amplitude (Box–Muller) so the ring powers scatter like a real field's.
        let g = (-2.0 * (1.0 - next()).ln()).sqrt();
        if k > 0.0 {
            let a = g * k.powf(-beta / 2.0);
            *d = (a * phase.cos(), a * phase.sin());
        }
    }
    fft2(&mut data, n, true);
    data.iter().map(|(re, _)| *re).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fft_matches_the_fourier_sum_and_inverts() {
        let x: Vec<Complex> = (0..16).map(|i| (((i * 7) % 5) as f64 - 2.0, (i as f64 * 0.3).sin())).collect();
        let mut y = x.clone();
        fft(&mut y, false);
        for (k, yk) in y.iter().enumerate() {
            let (mut re, mut im) = (0.0, 0.0);
            for (j, (a, b)) in x.iter().enumerate() {
                let (s, c) = (-2.0 * std::f64::consts::PI * (j * k) as f64 / 16.0).sin_cos();
                re += a * c - b * s;
                im += a * s + b * c;
            }
            assert!((yk.0 - re).abs() < 1e-9 && (yk.1 - im).abs() < 1e-9, "bin {k}");
        }
        fft(&mut y, true);
        for (a, b) in x.iter().zip(&y) {
            assert!((a.0 - b.0 / 16.0).abs() < 1e-12 && (a.1 - b.1 / 16.0).abs() < 1e-12);
        }
    }

    #[test]
    fn fbm_surfaces_of_known_beta_are_measured_within_0_2() {
        for (beta, seed) in [(2.0, 1), (2.6, 2), (3.2, 3), (3.8, 4), (4.4, 5)] {
            let n = 256;
            let surface = fbm_surface(n, beta, seed);
            let measured = spectral_slope(&surface, n).unwrap();
            assert!((measured - beta).abs() <= 0.2, "β {beta}: measured {measured}");
        }
        assert_eq!(spectral_slope(&vec![3.0; 64 * 64], 64), None, "a flat field has no slope");
        assert_eq!(spectral_slope(&[1.0; 8 * 8], 8), None, "too small to fit 2..n/4");
    }

    #[test]
    fn slope_angles_of_planes() {
        // A plane rising 1 per cell of 1: 45° everywhere.
        let (cols, rows) = (10, 8);
        let plane: Vec<f64> = (0..cols * rows).map(|i| (i % cols) as f64).collect();
        let (mean, p90) = slope_angles(&plane, cols, rows, 1.0);
        assert!((mean - 45.0).abs() < 1e-9 && (p90 - 45.0).abs() < 1e-9);
        // The same plane with cells 4 apart: atan(1/4).
        let (mean, _) = slope_angles(&plane, cols, rows, 4.0);
        assert!((mean - 0.25f64.atan().to_degrees()).abs() < 1e-9);
        // Half flat, half at 45°: the 90th percentile is the steep half, the mean halfway.
        let half: Vec<f64> = (0..40 * 40).map(|i| if i / 40 < 20 { 0.0 } else { (i % 40) as f64 }).collect();
        let (mean, p90) = slope_angles(&half, 40, 40, 1.0);
        assert!((p90 - 45.0).abs() < 1e-9, "{p90}");
        assert!(mean > 20.0 && mean < 30.0, "{mean}");
    }
}
