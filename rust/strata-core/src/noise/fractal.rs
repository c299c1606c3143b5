//! Fractal gradient noise: Perlin fBm, OpenSimplex fBm and a ridged multifractal, from the
//! `noise` crate, configured from octaves, lacunarity, persistence and frequency. (Simplex noise
//! as defined is Strata's own, [`crate::noise::simplex`].)
//!
//! The `noise` crate's generators are pure f64 functions of the point and the seed (permutation
//! tables built from the seed), so they are deterministic (law: Deterministic). Each source gets its own seed
//! derived from the world seed and a salt, so weighting two sources never doubles one pattern.
//!
//! May use: `base`, `preset` and the other `noise` modules.

use noise::{Fbm, MultiFractal, NoiseFn, OpenSimplex, Perlin, RidgedMulti};

/// Settings shared by the fractal sources.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FractalParams {
    pub octaves: u32,
    /// Frequency of the first octave, in cycles per world unit.
    pub frequency: f64,
    pub persistence: f64,
    pub lacunarity: f64,
}

/// Noise seeds are `u32` in the `noise` crate; fold the 64-bit seed with a salt.
pub fn noise_seed(seed: u64, salt: u64) -> u32 {
    (crate::base::rng::mix64(seed ^ salt.wrapping_mul(0x9e37_79b9_7f4a_7c15)) >> 32) as u32
}

/// Perlin fBm in about `[-1, 1]`.
pub fn perlin_fbm(seed: u32, p: FractalParams) -> Fbm<Perlin> {
    Fbm::<Perlin>::new(seed)
        .set_octaves(p.octaves.clamp(1, 32) as usize)
        .set_frequency(p.frequency)
        .set_persistence(p.persistence)
        .set_lacunarity(p.lacunarity)
}

/// OpenSimplex fBm (the `noise` crate's; not simplex noise, see [`crate::noise::simplex`]) in
/// about `[-1, 1]`.
pub fn open_simplex_fbm(seed: u32, p: FractalParams) -> Fbm<OpenSimplex> {
    Fbm::<OpenSimplex>::new(seed)
        .set_octaves(p.octaves.clamp(1, 32) as usize)
        .set_frequency(p.frequency)
        .set_persistence(p.persistence)
        .set_lacunarity(p.lacunarity)
}

/// Ridged multifractal (sharp crests along the zero lines of Perlin noise) in about `[-1, 1]`.
pub fn ridged(seed: u32, p: FractalParams) -> RidgedMulti<Perlin> {
    RidgedMulti::<Perlin>::new(seed)
        .set_octaves(p.octaves.clamp(1, 32) as usize)
        .set_frequency(p.frequency)
        .set_persistence(p.persistence)
        .set_lacunarity(p.lacunarity)
}

/// Samples any 2D noise function at `(x, z)`.
#[inline]
pub fn sample2(noise: &impl NoiseFn<f64, 2>, x: f64, z: f64) -> f64 {
    noise.get([x, z])
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: FractalParams = FractalParams { octaves: 5, frequency: 1.0 / 64.0, persistence: 0.5, lacunarity: 2.0 };

    #[test]
    fn sources_are_pure_bounded_and_seed_dependent() {
        let (a, s, r) = (perlin_fbm(1, P), open_simplex_fbm(1, P), ridged(1, P));
        let (b, s2, r2) = (perlin_fbm(2, P), open_simplex_fbm(2, P), ridged(2, P));
        let (mut diff, mut ridge_hi) = (0, 0.0f64);
        for i in 0..2000 {
            let (x, z) = (i as f64 * 1.37 - 900.0, i as f64 * -0.71 + 40.0);
            for (n, m) in [
                (sample2(&a, x, z), sample2(&b, x, z)),
                (sample2(&s, x, z), sample2(&s2, x, z)),
                (sample2(&r, x, z), sample2(&r2, x, z)),
            ] {
                assert!((-1.5..=1.5).contains(&n), "{n}");
                if n != m {
                    diff += 1;
                }
            }
            assert_eq!(sample2(&a, x, z), sample2(&perlin_fbm(1, P), x, z));
            ridge_hi = ridge_hi.max(sample2(&r, x, z));
        }
        assert!(diff > 5000, "{diff}");
        assert!(ridge_hi > 0.3, "ridges reach high values: {ridge_hi}");
    }

    #[test]
    fn noise_seeds_differ_by_salt() {
        assert_ne!(noise_seed(1, 1), noise_seed(1, 2));
        assert_eq!(noise_seed(5, 9), noise_seed(5, 9));
    }
}
