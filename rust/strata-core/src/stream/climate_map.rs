//! The climate map: the climate at every chunk-column corner around the viewer, which the block
//! shaders interpolate to tint grass and foliage (`gen3d::climate_tint`).
//!
//! The map is a toroidal texture, one texel per corner ([`CORNER_SPACING`] voxels apart), as wide
//! as a window of tiles of [`TILE_VOXELS`] around the viewer: corner `(cx, cz)` lives in texel
//! `(cx mod n, cz mod n)` of an `n`-texel texture (`n` = slots · [`TILE_CORNERS`]), so with
//! repeat wrapping and linear filtering the hardware's bilinear filter between texel centres is
//! exactly the bilinear blend between corners, at any distance from the origin. Tiles are built
//! by the ring of [`crate::stream::horizon_map`] (one idle-priority worker, nearest first, the
//! caller only takes finished ones: law: Main thread never waits) with [`build_climate_tile`], a
//! pure function of the generator and the tile (law: Deterministic); a corner holds the same
//! value whichever tile, window or chunk asks (law: Seamless).
//!
//! A texel is RGBA8: temperature and moisture quantised to 255 steps, then 255 where the tile is
//! built (0 in a tile not built yet, whose climate is the reference: the shaders fade the tint out
//! there), then 255 ([`texel_of`], [`unbuilt_texel`]).
//!
//! May use: `base`, `gen3d`, and the other `stream` modules.

use crate::gen3d::climate_tint::{CORNER_SPACING, REFERENCE_CLIMATE, corner_climate};
use crate::gen3d::pipeline::Generator;
use crate::gen3d::terrain::TerrainSample;
use crate::stream::horizon_map::{HorizonMapper, HorizonTile, MAX_RING_SLOTS, MIN_SLOTS, TILE_VOXELS};
use std::sync::Arc;

/// Corners on a tile's side.
pub const TILE_CORNERS: usize = (TILE_VOXELS / CORNER_SPACING) as usize;
/// Floats in a tile's texels: (temperature, moisture) per corner, row-major, x fastest.
pub const TILE_FLOATS: usize = 2 * TILE_CORNERS * TILE_CORNERS;
/// The most tiles on the window's side: 31 tiles, 496 texels, 15,872 voxels across.
pub const MAX_CLIMATE_SLOTS: usize = 31;
/// Voxels past the drawn land that the map still covers, so the window's edge, where it is
/// being rebuilt as the viewer moves, lies beyond what is drawn.
pub const CLIMATE_MARGIN: f64 = TILE_VOXELS as f64;

/// Tiles on the window's side for land drawn to `reach` voxels from the viewer, within
/// [`MIN_SLOTS`]..=[`MAX_CLIMATE_SLOTS`] (beyond the largest window the shaders draw no tint).
pub fn climate_slots_for_reach(reach: f64) -> usize {
    let reach = if reach.is_finite() { reach.clamp(0.0, 1e7) } else { 0.0 };
    let per_side = ((reach + CLIMATE_MARGIN) / TILE_VOXELS as f64).ceil() as usize;
    (2 * per_side + 1).clamp(MIN_SLOTS, MAX_CLIMATE_SLOTS)
}

/// Writes tile `t`'s climates into `out` ([`TILE_FLOATS`] floats): corner
/// `(t.x · TILE_CORNERS + i, t.z · TILE_CORNERS + k)` at `2 · (k · TILE_CORNERS + i)`.
pub fn build_climate_tile(g: &Generator, t: HorizonTile, _samples: &mut Vec<TerrainSample>, out: &mut Vec<f32>) {
    let biomes = g.terrain().biomes();
    let first = |v: i32| v.saturating_mul(TILE_CORNERS as i32);
    out.clear();
    for k in 0..TILE_CORNERS as i32 {
        for i in 0..TILE_CORNERS as i32 {
            let (temperature, moisture) = corner_climate(biomes, first(t.x) + i, first(t.z) + k);
            out.extend([temperature, moisture]);
        }
    }
}

/// A mapper of the climate over `generator`'s land, `slots` tiles a side (clamped into
/// [`MIN_SLOTS`]..=[`MAX_CLIMATE_SLOTS`]), its worker started.
pub fn climate_mapper(generator: Arc<Generator>, slots: usize) -> std::io::Result<HorizonMapper> {
    let slots = slots.clamp(MIN_SLOTS, MAX_CLIMATE_SLOTS.min(MAX_RING_SLOTS));
    HorizonMapper::with_builder(generator, slots, build_climate_tile, "strata-climate")
}

/// A climate value in `[0, 1]` as a byte (NaN as the middle).
fn quantise(v: f32) -> u8 {
    let v = if v.is_nan() { 0.5 } else { v.clamp(0.0, 1.0) };
    (v * 255.0).round() as u8
}

/// The RGBA8 texel of a built corner of climate `(temperature, moisture)`.
pub fn texel_of(temperature: f32, moisture: f32) -> [u8; 4] {
    [quantise(temperature), quantise(moisture), 255, 255]
}

/// The RGBA8 texel of a corner whose tile is not built: the reference climate, marked unbuilt.
pub fn unbuilt_texel() -> [u8; 4] {
    [quantise(REFERENCE_CLIMATE.0), quantise(REFERENCE_CLIMATE.1), 0, 255]
}

/// The texel `(x, y)` of a texture of `slots · TILE_CORNERS` texels a side that holds corner
/// `(cx, cz)`.
pub fn texel_of_corner(slots: usize, cx: i32, cz: i32) -> (usize, usize) {
    let n = (slots.max(1) * TILE_CORNERS) as i64;
    ((cx as i64).rem_euclid(n) as usize, (cz as i64).rem_euclid(n) as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preset::model::WorldPreset;

    #[test]
    fn a_tile_holds_its_corners_climates_and_neighbours_continue_it() {
        let g = Generator::new(&WorldPreset::default()).unwrap();
        let biomes = g.terrain().biomes();
        for t in [HorizonTile { x: 0, z: 0 }, HorizonTile { x: -3, z: 2 }] {
            let mut out = Vec::new();
            build_climate_tile(&g, t, &mut Vec::new(), &mut out);
            assert_eq!(out.len(), TILE_FLOATS);
            for (i, k) in [(0, 0), (15, 0), (3, 11), (15, 15)] {
                let c = corner_climate(biomes, t.x * 16 + i as i32, t.z * 16 + k as i32);
                assert_eq!((out[2 * (k * 16 + i)], out[2 * (k * 16 + i) + 1]), c, "{t:?} ({i}, {k})");
            }
        }
        // The window's texels: each corner in exactly one texel, the same whichever tile holds it.
        let slots = 5;
        let n = slots * TILE_CORNERS;
        let mut seen = std::collections::HashSet::new();
        for cz in -40..(n as i32 - 40) {
            for cx in 7..(n as i32 + 7) {
                assert!(seen.insert(texel_of_corner(slots, cx, cz)));
            }
        }
        assert_eq!(texel_of_corner(slots, -1, n as i32), (n - 1, 0));
        assert_eq!(texel_of_corner(slots, 16 * 7 + 3, 2), (16 * 2 + 3, 2), "tile 7 in ring slot 2");
    }

    #[test]
    fn texels_quantise_the_climate_and_mark_what_is_built() {
        assert_eq!(texel_of(0.0, 1.0), [0, 255, 255, 255]);
        assert_eq!(texel_of(0.5, f32::NAN), [128, 128, 255, 255]);
        assert_eq!(texel_of(-2.0, 0.25), [0, 64, 255, 255]);
        assert_eq!(unbuilt_texel(), [128, 128, 0, 255]);
    }

    #[test]
    fn the_window_covers_the_drawn_land_and_a_margin() {
        assert_eq!(climate_slots_for_reach(0.0), 3);
        let s = climate_slots_for_reach(2048.0);
        assert!((s / 2) as f64 * TILE_VOXELS as f64 >= 2048.0 + CLIMATE_MARGIN, "{s}");
        assert_eq!(climate_slots_for_reach(1e9), MAX_CLIMATE_SLOTS);
        assert_eq!(climate_slots_for_reach(f64::NAN), 3);
    }

    #[test]
    fn the_mapper_builds_climate_tiles() {
        let g = Arc::new(Generator::new(&WorldPreset::default()).unwrap());
        let mut m = climate_mapper(g.clone(), 3).unwrap();
        m.set_centre(-100.0, 700.0);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let mut got = Vec::new();
        while got.len() < 9 {
            match m.try_recv() {
                Some(t) => got.push(t),
                None => {
                    assert!(std::time::Instant::now() < deadline);
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
            }
        }
        assert_eq!(got[0].tile, HorizonTile { x: -1, z: 1 }, "the viewer's tile first");
        for f in &got {
            let mut want = Vec::new();
            build_climate_tile(&g, f.tile, &mut Vec::new(), &mut want);
            assert_eq!(f.texels, want);
        }
    }
}
