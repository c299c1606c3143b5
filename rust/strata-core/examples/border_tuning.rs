//! Sweeps the biome warp's shape and prints the border measures of the default preset's
//! 512-pixel biome map (4 voxels a pixel) at three places: `cargo run --release -p strata-core
//! --example border_tuning`; with `STRENGTH SCALE OCTAVES PERSISTENCE` it measures that shape at
//! the origin, says where its longest straight run is, and writes the map with its borders to
//! /tmp/borders.png. With `WAVELENGTH OCTAVES PERSISTENCE` it measures, for comparison, the
//! coastlines of thresholded fBm terrain (land where the fBm is above 0) at the same places.

use strata_core::gen3d::biome_warp::BiomeWarp;
use strata_core::gen3d::biomes::BiomeMap;
use strata_core::gen3d::border_shape::{
    biome_map, border_pixels, box_counting_dimension, longest_straight_run, longest_straight_run_at,
};
use strata_core::preset::model::WorldPreset;

fn main() {
    let mut p = WorldPreset::default();
    p.biomes.transition_width = 0.0;
    let args: Vec<f64> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    if args.len() == 4 {
        // strength scale octaves persistence: write the map's borders to /tmp/borders.png.
        let map = BiomeMap::new(&p).with_warp(BiomeWarp::with_shape(p.seed, args[0], args[1], args[2] as u32, args[3]));
        let pixels = biome_map(&map, (0.0, 0.0), 512, 4.0);
        let border = border_pixels(&pixels, 512);
        let grey: Vec<u8> = pixels.iter().zip(&border).map(|(&b, &e)| if e { 0 } else { 60 + b * 25 }).collect();
        let file = std::io::BufWriter::new(std::fs::File::create("/tmp/borders.png").unwrap());
        let mut encoder = png::Encoder::new(file, 512, 512);
        encoder.set_color(png::ColorType::Grayscale);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.write_header().unwrap().write_image_data(&grey).unwrap();
        let (run, at, degrees) = longest_straight_run_at(&border, 512);
        println!("D {:?} run {run} through pixel {at:?} at {degrees}°", box_counting_dimension(&border, 512));
        return;
    }
    if args.len() == 3 {
        // wavelength octaves persistence: thresholded fBm terrain, for comparison.
        let noise = strata_core::noise::fast_fbm::PerlinFbm2::new(
            5,
            strata_core::noise::fractal::FractalParams {
                octaves: args[1] as u32,
                frequency: 1.0 / args[0],
                persistence: args[2],
                lacunarity: 2.0,
            },
        );
        let mut line = String::new();
        for center in [(0.0, 0.0), (5000.0, -3000.0), (-7000.0, 9000.0)] {
            let n = 512;
            let pixels: Vec<u8> = (0..n * n)
                .map(|at| {
                    let (x, z) = (center.0 + (at % n) as f64 * 4.0, center.1 + (at / n) as f64 * 4.0);
                    u8::from(noise.get(x, z) > 0.0)
                })
                .collect();
            let border = border_pixels(&pixels, n);
            let d = box_counting_dimension(&border, n).unwrap_or(0.0);
            let (run, at, degrees) = longest_straight_run_at(&border, n);
            line += &format!("  D {d:.3} run {run:5.1} at {at:?} {degrees}°");
        }
        println!("{line}");
        return;
    }
    let strengths = if args.is_empty() { vec![96.0, 192.0] } else { args };
    for strength in strengths {
        for (octaves, persistence) in [(6, 0.6), (6, 0.8), (7, 0.85)] {
            for scale in [256.0, 384.0] {
                let map =
                    BiomeMap::new(&p).with_warp(BiomeWarp::with_shape(p.seed, strength, scale, octaves, persistence));
                let mut line =
                    format!("strength {strength:5} octaves {octaves} persistence {persistence:.2} scale {scale:4}:");
                for center in [(0.0, 0.0), (5000.0, -3000.0), (-7000.0, 9000.0)] {
                    let pixels = biome_map(&map, center, 512, 4.0);
                    let border = border_pixels(&pixels, 512);
                    let d = box_counting_dimension(&border, 512).unwrap_or(0.0);
                    let run = longest_straight_run(&border, 512);
                    line += &format!("  D {d:.3} run {run:5.1}");
                }
                println!("{line}");
                if strength == 0.0 {
                    break;
                }
            }
            if strength == 0.0 {
                break;
            }
        }
    }
}
