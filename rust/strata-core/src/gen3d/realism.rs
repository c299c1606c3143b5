//! How real a preset's land looks, measured on its height field: the radial power-spectrum
//! slope β and the slope angles ([`crate::noise::spectrum`]), for `cargo xtask preview` and the
//! tests that keep the default preset within the ranges of real elevation models.
//!
//! The field is the terrain's continuous surface height at one voxel per cell, on a square of
//! [`REALISM_SIDE`] voxels centred on the point asked for.
//!
//! May use: `noise::spectrum`, `gen3d::terrain`.

use crate::gen3d::terrain::Terrain;
use crate::noise::spectrum::{slope_angles, spectral_slope};

/// Side of the measured square, in voxels (a power of two).
pub const REALISM_SIDE: usize = 512;

/// The figures of one measurement.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Realism {
    /// β of `P(k) ∝ k^−β`, fitted over wavenumbers 2 to n/4; `None` for flat land.
    pub spectrum_slope: Option<f64>,
    /// Mean slope angle, degrees.
    pub slope_mean_deg: f64,
    /// 90th percentile of the slope angles, degrees.
    pub slope_p90_deg: f64,
}

/// Measures the height field of `terrain` on an `n × n` voxel square centred on `center` (`n` a
/// power of two of at least 16; [`REALISM_SIDE`] for the figures the docs quote).
pub fn measure(terrain: &Terrain, center: (i32, i32), n: usize) -> Realism {
    let half = (n / 2) as f64;
    let mut samples = Vec::with_capacity(n * n);
    terrain.sample_grid(center.0 as f64 - half, center.1 as f64 - half, 1.0, n, n, &mut samples);
    let heights: Vec<f64> = samples.iter().map(|s| s.height).collect();
    let (slope_mean_deg, slope_p90_deg) = slope_angles(&heights, n, n, 1.0);
    Realism { spectrum_slope: spectral_slope(&heights, n), slope_mean_deg, slope_p90_deg }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preset::model::WorldPreset;

    fn realism_of(preset: &WorldPreset) -> Realism {
        let terrain = Terrain::new(preset, None).unwrap();
        measure(&terrain, (0, 0), REALISM_SIDE)
    }

    /// Flat land has no spectrum slope and no slopes.
    #[test]
    fn flat_land_measures_flat() {
        let mut preset = WorldPreset::default();
        preset.height.amplitude = 0.0;
        preset.biomes.enabled = false;
        let r = realism_of(&preset);
        assert_eq!(r.spectrum_slope, None);
        assert_eq!((r.slope_mean_deg, r.slope_p90_deg), (0.0, 0.0));
    }

    /// Prints β and slopes for height settings given as `octaves,persistence,amplitude,scale;…`
    /// in `STRATA_REALISM_SWEEP` (a tuning aid):
    /// `STRATA_REALISM_SWEEP='8,0.55,40,320' cargo test -p strata-core --lib realism_sweep -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn realism_sweep() {
        let sweep = std::env::var("STRATA_REALISM_SWEEP").unwrap_or_default();
        for item in sweep.split(';').filter(|s| !s.trim().is_empty()) {
            let v: Vec<f32> = item.split(',').map(|x| x.trim().parse().unwrap()).collect();
            let mut preset = WorldPreset::default();
            preset.height.octaves = v[0] as u32;
            preset.height.persistence = v[1];
            preset.height.amplitude = v[2];
            preset.height.scale = v[3];
            for center in [(0, 0), (5000, -3000)] {
                let terrain = Terrain::new(&preset, None).unwrap();
                let r = measure(&terrain, center, REALISM_SIDE);
                println!("{item} at {center:?}: {r:?}");
            }
        }
    }
}
