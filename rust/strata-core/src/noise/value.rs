//! Value noise: random values on a seeded integer lattice, interpolated, summed over octaves.
//!
//! The lattice value at integer `n` is a hash of `(seed, n)` mapped to `[-1, 1]`
//! ([`lattice_1d`], [`lattice_2d`]). Between lattice points the value is interpolated, either
//! linearly or with the cosine curve `mu2 = (1 - cos(mu·π)) / 2` ([`interpolate`]); in 2D the
//! interpolation is bilinear (one 1D interpolation along x on both rows, then one along z).
//!
//! **Octave convention.** With `octaves = k + 1` octaves numbered `i = 0..=k`, octave `i` samples
//! every `2^i`-th lattice point (its period is `base_period · 2^i` world units, so octave 0 is the
//! finest and octave `k` the coarsest) and has weight `P^(k − i)` for persistence `P`: the coarsest
//! octave weighs 1 and each finer one `P` times the one above it. The sum is divided by the sum of
//! the weights ([`octave_weights`]), so the result stays in `[-1, 1]` whatever `k` and `P` are.
//!
//! The cosine is evaluated with a fixed polynomial ([`cos_pi`]) made of additions and
//! multiplications only, so results are bit-identical on every machine (law: Deterministic).
//!
//! May use: `base`, `preset` and the other `noise` modules.

use crate::base::rng::{hash1, hash2, salt, unit_f64};
use crate::preset::model::Interpolation;

/// Taylor coefficients `(-1)^n / (2n + first)!` for `n = 0..10`.
const fn taylor(first: u32) -> [f64; 10] {
    let mut out = [0.0; 10];
    let mut n = 0;
    while n < 10 {
        let k = 2 * n + first;
        let mut fact = 1.0;
        let mut f = 2;
        while f <= k {
            fact *= f as f64;
            f += 1;
        }
        out[n as usize] = if n % 2 == 0 { 1.0 / fact } else { -1.0 / fact };
        n += 1;
    }
    out
}

const COS_COEFFS: [f64; 10] = taylor(0);
const SIN_COEFFS: [f64; 10] = taylor(1);

/// `cos(mu·π)` for `mu` in `[0, 1]`, from Taylor polynomials (error < 1e-15) that use only
/// IEEE-exact operations; `cos_pi(0) == 1`, `cos_pi(1/2) == 0` and `cos_pi(1) == -1` exactly.
pub fn cos_pi(mu: f64) -> f64 {
    let mu = mu.clamp(0.0, 1.0);
    // cos(π·mu) = -cos(π·(1 − mu)): reduce to [0, 1/2]; there, cos(π·m) = sin(π·(1/2 − m)) on
    // [1/4, 1/2], so both series run on arguments of at most π/4.
    let (m, sign) = if mu > 0.5 { (1.0 - mu, -1.0) } else { (mu, 1.0) };
    let (use_sin, t) =
        if m > 0.25 { (true, (0.5 - m) * std::f64::consts::PI) } else { (false, m * std::f64::consts::PI) };
    let t2 = t * t;
    // Horner forms of Σ (-1)^n t^(2n) / (2n)! and Σ (-1)^n t^(2n+1) / (2n+1)!, n = 0..=9.
    let coeffs = if use_sin { &SIN_COEFFS } else { &COS_COEFFS };
    let mut acc = 0.0;
    for c in coeffs.iter().rev() {
        acc = acc * t2 + c;
    }
    sign * if use_sin { acc * t } else { acc }
}

/// The interpolation weight for position `mu` in `[0, 1]` between two lattice points:
/// `mu` itself (linear) or `(1 − cos(mu·π)) / 2` (cosine, zero slope at both ends).
#[inline]
pub fn interp_weight(mu: f64, interp: Interpolation) -> f64 {
    match interp {
        Interpolation::Linear => mu,
        Interpolation::Cosine => (1.0 - cos_pi(mu)) * 0.5,
    }
}

/// Interpolates from `a` (at `mu = 0`) to `b` (at `mu = 1`).
#[inline]
pub fn interpolate(a: f64, b: f64, mu: f64, interp: Interpolation) -> f64 {
    let w = interp_weight(mu, interp);
    a * (1.0 - w) + b * w
}

/// The 1D lattice value at integer `n`, in `[-1, 1)`.
#[inline]
pub fn lattice_1d(seed: u64, n: i32) -> f64 {
    unit_f64(hash1(seed, salt::VALUE_NOISE, n)) * 2.0 - 1.0
}

/// The 2D lattice value at integer `(nx, nz)`, in `[-1, 1)`.
#[inline]
pub fn lattice_2d(seed: u64, nx: i32, nz: i32) -> f64 {
    unit_f64(hash2(seed, salt::VALUE_NOISE, nx, nz)) * 2.0 - 1.0
}

/// Weights of octaves `0..octaves` (finest first): octave `i` weighs `persistence^(k − i)` with
/// `k = octaves − 1`. See the module doc.
pub fn octave_weights(octaves: u32, persistence: f64) -> impl Iterator<Item = f64> {
    let k = octaves.saturating_sub(1) as i32;
    (0..octaves as i32).map(move |i| persistence.powi(k - i))
}

/// Splits lattice coordinate `u` (in lattice units of octave `i`, i.e. already divided by the
/// octave's period in lattice points) into the lower lattice index (scaled back to base lattice
/// points) and the fraction.
#[inline]
fn split(u: f64, step: i64) -> (i32, i32, f64) {
    let f = u.floor();
    let lo = (f as i64).wrapping_mul(step);
    (lo as i32, lo.wrapping_add(step) as i32, u - f)
}

/// 1D value noise at world position `x`: octave `i` reads lattice points `m·2^i` at world
/// positions `m·2^i·base_period`; see the module doc for the weights. `octaves` is at least 1.
pub fn value_noise_1d(
    seed: u64,
    x: f64,
    octaves: u32,
    persistence: f64,
    interp: Interpolation,
    base_period: f64,
) -> f64 {
    let octaves = octaves.clamp(1, 24);
    let u = x / base_period;
    let (mut sum, mut total) = (0.0, 0.0);
    for (i, w) in octave_weights(octaves, persistence).enumerate() {
        let step = 1i64 << i;
        let (lo, hi, mu) = split(u / step as f64, step);
        sum += w * interpolate(lattice_1d(seed, lo), lattice_1d(seed, hi), mu, interp);
        total += w;
    }
    if total > 0.0 { sum / total } else { 0.0 }
}

/// 2D value noise at world `(x, z)`: bilinear interpolation of [`lattice_2d`] per octave, octaves
/// as in [`value_noise_1d`].
pub fn value_noise_2d(
    seed: u64,
    x: f64,
    z: f64,
    octaves: u32,
    persistence: f64,
    interp: Interpolation,
    base_period: f64,
) -> f64 {
    let octaves = octaves.clamp(1, 24);
    let (u, v) = (x / base_period, z / base_period);
    let (mut sum, mut total) = (0.0, 0.0);
    for (i, w) in octave_weights(octaves, persistence).enumerate() {
        let step = 1i64 << i;
        let inv = 1.0 / step as f64;
        let (x0, x1, mx) = split(u * inv, step);
        let (z0, z1, mz) = split(v * inv, step);
        let wx = interp_weight(mx, interp);
        let wz = interp_weight(mz, interp);
        let top = lattice_2d(seed, x0, z0) * (1.0 - wx) + lattice_2d(seed, x1, z0) * wx;
        let bottom = lattice_2d(seed, x0, z1) * (1.0 - wx) + lattice_2d(seed, x1, z1) * wx;
        sum += w * (top * (1.0 - wz) + bottom * wz);
        total += w;
    }
    if total > 0.0 { sum / total } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cosine_matches_std_and_hits_end_points_exactly() {
        for i in 0..=1000 {
            let mu = i as f64 / 1000.0;
            assert!((cos_pi(mu) - (mu * std::f64::consts::PI).cos()).abs() < 1e-12, "mu {mu}");
        }
        assert_eq!(interp_weight(0.0, Interpolation::Cosine), 0.0);
        assert_eq!(interp_weight(1.0, Interpolation::Cosine), 1.0);
        assert_eq!(interp_weight(0.5, Interpolation::Cosine), 0.5);
    }

    #[test]
    fn cosine_interpolation_has_zero_slope_at_the_end_points() {
        let e = 1e-4;
        let slope0 = (interp_weight(e, Interpolation::Cosine) - interp_weight(0.0, Interpolation::Cosine)) / e;
        let slope1 = (interp_weight(1.0, Interpolation::Cosine) - interp_weight(1.0 - e, Interpolation::Cosine)) / e;
        assert!(slope0.abs() < 1e-3 && slope1.abs() < 1e-3, "{slope0} {slope1}");
        // The linear weight has slope 1 everywhere; the cosine one peaks at π/2 in the middle.
        let mid =
            (interp_weight(0.5 + e, Interpolation::Cosine) - interp_weight(0.5 - e, Interpolation::Cosine)) / (2.0 * e);
        assert!((mid - std::f64::consts::FRAC_PI_2).abs() < 1e-6, "{mid}");
        assert_eq!(interpolate(3.0, 7.0, 0.25, Interpolation::Linear), 4.0);
    }

    #[test]
    fn one_octave_equals_the_interpolated_lattice() {
        let seed = 42;
        for interp in [Interpolation::Linear, Interpolation::Cosine] {
            for n in -20..20 {
                // At lattice points the noise is the lattice value.
                assert_eq!(value_noise_1d(seed, n as f64 * 8.0, 1, 0.5, interp, 8.0), lattice_1d(seed, n));
                assert_eq!(
                    value_noise_2d(seed, n as f64 * 8.0, -3.0 * 8.0, 1, 0.5, interp, 8.0),
                    lattice_2d(seed, n, -3)
                );
                // Between them it is the interpolation of the two neighbours.
                let x = n as f64 * 8.0 + 3.0;
                let want = interpolate(lattice_1d(seed, n), lattice_1d(seed, n + 1), 3.0 / 8.0, interp);
                assert!((value_noise_1d(seed, x, 1, 0.5, interp, 8.0) - want).abs() < 1e-15);
                let z = 5.0 * 8.0 + 6.0;
                let top = interpolate(lattice_2d(seed, n, 5), lattice_2d(seed, n + 1, 5), 3.0 / 8.0, interp);
                let bottom = interpolate(lattice_2d(seed, n, 6), lattice_2d(seed, n + 1, 6), 3.0 / 8.0, interp);
                let want2 = interpolate(top, bottom, 6.0 / 8.0, interp);
                assert!((value_noise_2d(seed, x, z, 1, 0.5, interp, 8.0) - want2).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn octave_weights_follow_the_stated_convention() {
        let w: Vec<f64> = octave_weights(4, 0.5).collect();
        assert_eq!(w, vec![0.125, 0.25, 0.5, 1.0]);
        let sum: f64 = w.iter().sum();
        assert_eq!(sum, (1.0 - 0.5f64.powi(4)) / (1.0 - 0.5)); // geometric series
        // Two octaves at a point on octave 1's lattice (x = 2 base periods, lattice point 2):
        // both octaves read lattice point 2, so the weighted mean is that value.
        let v = value_noise_1d(9, 16.0, 2, 0.5, Interpolation::Linear, 8.0);
        assert!((v - lattice_1d(9, 2)).abs() < 1e-15);
        // At x = 1 base period: octave 0 reads point 1, octave 1 is halfway from point 0 to 2.
        let o0 = lattice_1d(9, 1);
        let o1 = 0.5 * (lattice_1d(9, 0) + lattice_1d(9, 2));
        let want = (0.5 * o0 + 1.0 * o1) / 1.5;
        assert!((value_noise_1d(9, 8.0, 2, 0.5, Interpolation::Linear, 8.0) - want).abs() < 1e-15);
    }

    #[test]
    fn value_noise_stays_in_range_and_is_pure() {
        for i in -500..500 {
            let x = i as f64 * 3.7;
            let v = value_noise_2d(7, x, -x * 0.3, 6, 0.6, Interpolation::Cosine, 4.0);
            assert!((-1.0..=1.0).contains(&v));
            assert_eq!(v, value_noise_2d(7, x, -x * 0.3, 6, 0.6, Interpolation::Cosine, 4.0));
        }
        assert_ne!(
            value_noise_1d(1, 3.3, 3, 0.5, Interpolation::Linear, 2.0),
            value_noise_1d(2, 3.3, 3, 0.5, Interpolation::Linear, 2.0)
        );
    }
}
