//! `cargo xtask pca FILE.asc`: principal component analysis of an elevation grid, how much
//! detail k components keep, pictures of what they keep and lose, and `.spca` files.
//!
//! The analysis is `strata_core::noise::pca` (rows are samples, columns features, centred by the
//! column means); this module parses arguments, prints the table (or JSON with `--json`:
//! `components`, `lost_percent`, `rmse`, `max_error`, plus the grid's realism figures) and
//! writes the PNGs: `original.png`, `reconstruction_kNN.png` (16-bit gray on the original's
//! height range) and `error_kNN.png` (data − reconstruction: red where the data is higher, blue
//! where it is lower — a river cut into the valley floor — white at 0, scaled to that k's largest
//! error). `--save-components K --out FILE.spca` writes the k-component heightmap instead.

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};
use strata_core::noise::esri_ascii::AsciiGrid;
use strata_core::noise::heightmap::{Heightmap, write_gray16_png};
use strata_core::noise::pca::{Pca, PcaModel, ReconstructionError};
use strata_core::noise::spectrum::{slope_angles, spectral_slope};

const USAGE: &str = "usage: cargo xtask pca FILE.asc [--components 1,2,4,8,16,32] [--out DIR] [--json]\n       \
                     cargo xtask pca FILE.asc --save-components K --out FILE.spca";

/// The figures of one analysis.
pub struct PcaReport {
    pub components: Vec<usize>,
    pub errors: Vec<ReconstructionError>,
    /// β, mean and 90th-percentile slope (degrees) of the grid itself.
    pub realism: Realism,
}

/// How real the grid looks: see `strata_core::noise::spectrum`.
pub struct Realism {
    pub spectrum_slope: Option<f64>,
    /// Side of the centred square the spectrum was measured on (the largest power of two).
    pub spectrum_side: usize,
    pub slope_mean_deg: f64,
    pub slope_p90_deg: f64,
}

/// Parses the arguments and runs the analysis.
pub fn run(args: &[String]) -> Result<()> {
    let mut file: Option<PathBuf> = None;
    let mut out: Option<PathBuf> = None;
    let mut components = vec![1, 2, 4, 8, 16, 32];
    let mut json = false;
    let mut save: Option<usize> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value =
            |name: &str| it.next().cloned().ok_or_else(|| Error::msg(format!("{name} needs a value\n{USAGE}")));
        match a.as_str() {
            "--out" => out = Some(PathBuf::from(value("--out")?)),
            "--json" => json = true,
            "--components" => {
                let v = value("--components")?;
                components = v
                    .split(',')
                    .map(|s| s.trim().parse::<usize>().ok().filter(|&k| k > 0))
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| {
                        Error::msg(format!(
                            "--components `{v}`: allowed: whole numbers above 0 separated by commas\n{USAGE}"
                        ))
                    })?;
            }
            "--save-components" => {
                let v = value("--save-components")?;
                save = Some(v.parse().ok().filter(|&k: &usize| k > 0).ok_or_else(|| {
                    Error::msg(format!("--save-components `{v}`: allowed: a whole number above 0\n{USAGE}"))
                })?);
            }
            other if !other.starts_with('-') && file.is_none() => file = Some(PathBuf::from(other)),
            other => bail!("unexpected argument `{other}`\n{USAGE}"),
        }
    }
    let file = file.ok_or_else(|| Error::msg(USAGE))?;
    let grid = read_grid(&file)?;
    let pca = Pca::fit(grid.nrows, grid.ncols, &grid.values)
        .map_err(|e| Error::from(e).context(format!("cannot analyse {}", file.display())))?;
    if let Some(k) = save {
        let out = out.ok_or_else(|| Error::msg(format!("--save-components needs --out FILE.spca\n{USAGE}")))?;
        let model = PcaModel::new(&pca, &grid.values, k, grid.cell_size)
            .map_err(|e| Error::from(e).context(format!("--save-components {k}")))?;
        model.save(&out)?;
        // The file must read back as the heightmap it promises.
        Heightmap::load(&out)?;
        let err = pca.error(&grid.values, &model.heights());
        crate::step(format!(
            "{} → {} ({k} of {} components, {} bytes; detail lost {:.3} %, RMSE {:.3}, max error {:.3})",
            file.display(),
            out.display(),
            grid.ncols,
            PcaModel::file_len(model.rows, model.cols, k),
            err.lost_percent,
            err.rmse,
            err.max_error
        ));
        return Ok(());
    }
    if let Some(&k) = components.iter().find(|&&k| k > grid.ncols) {
        bail!("--components {k}: {} has {} columns; allowed: 1 to {}", file.display(), grid.ncols, grid.ncols);
    }
    let report = analyse(&grid, &pca, &components, out.as_deref())?;
    if json {
        println!("{}", report_json(&file, &grid, &report));
    } else {
        println!("{}: {}×{} cells of {} (rows × columns)", file.display(), grid.nrows, grid.ncols, grid.cell_size);
        println!("{:>10} {:>14} {:>12} {:>12}", "components", "detail lost %", "RMSE", "max error");
        for (k, e) in report.components.iter().zip(&report.errors) {
            println!("{k:>10} {:>14.4} {:>12.4} {:>12.4}", e.lost_percent, e.rmse, e.max_error);
        }
        let r = &report.realism;
        println!(
            "spectrum slope β = {} (centred {}² square), slope angles: mean {:.2}°, 90th percentile {:.2}°",
            r.spectrum_slope.map_or("n/a".to_string(), |b| format!("{b:.3}")),
            r.spectrum_side,
            r.slope_mean_deg,
            r.slope_p90_deg
        );
    }
    Ok(())
}

/// Reads an ESRI ASCII grid (the only kind with heights in metres and a cell size).
fn read_grid(file: &Path) -> Result<AsciiGrid> {
    let is_asc = file.extension().and_then(|e| e.to_str()).is_some_and(|e| e.eq_ignore_ascii_case("asc"));
    if !is_asc {
        bail!("{}: allowed: an ESRI ASCII grid (.asc)\n{USAGE}", file.display());
    }
    let len =
        std::fs::metadata(file).map_err(|e| Error::from(e).context(format!("cannot read {}", file.display())))?.len();
    Heightmap::check_len(file, len)?;
    let bytes = std::fs::read(file).map_err(|e| Error::from(e).context(format!("cannot read {}", file.display())))?;
    Ok(AsciiGrid::parse(&bytes, file)?)
}

/// The table for `components`, and the PNGs in `out` when given.
pub fn analyse(grid: &AsciiGrid, pca: &Pca, components: &[usize], out: Option<&Path>) -> Result<PcaReport> {
    let lo = grid.values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = grid.values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if let Some(dir) = out {
        std::fs::create_dir_all(dir)?;
        write_heights(&dir.join("original.png"), grid, &grid.values, lo, hi)?;
    }
    let mut errors = Vec::with_capacity(components.len());
    for &k in components {
        let recon = pca.reconstruct(&grid.values, k)?;
        errors.push(pca.error(&grid.values, &recon));
        if let Some(dir) = out {
            write_heights(&dir.join(format!("reconstruction_k{k:02}.png")), grid, &recon, lo, hi)?;
            write_error(&dir.join(format!("error_k{k:02}.png")), grid, &recon)?;
        }
    }
    Ok(PcaReport { components: components.to_vec(), errors, realism: realism(grid) })
}

/// β on the largest centred power-of-two square, slopes over the whole grid.
pub fn realism(grid: &AsciiGrid) -> Realism {
    let side = grid.ncols.min(grid.nrows);
    let n = if side >= 16 { 1usize << side.ilog2() } else { 0 };
    let spectrum_slope = (n > 0).then(|| {
        let (c0, r0) = ((grid.ncols - n) / 2, (grid.nrows - n) / 2);
        let square: Vec<f64> = (0..n * n).map(|i| grid.at(c0 + i % n, r0 + i / n)).collect();
        spectral_slope(&square, n)
    });
    let (slope_mean_deg, slope_p90_deg) = slope_angles(&grid.values, grid.ncols, grid.nrows, grid.cell_size);
    Realism { spectrum_slope: spectrum_slope.flatten(), spectrum_side: n, slope_mean_deg, slope_p90_deg }
}

fn write_heights(path: &Path, grid: &AsciiGrid, heights: &[f64], lo: f64, hi: f64) -> Result<()> {
    let span = if hi > lo { hi - lo } else { 1.0 };
    let gray: Vec<u16> = heights.iter().map(|h| (((h - lo) / span).clamp(0.0, 1.0) * 65535.0).round() as u16).collect();
    write_gray16_png(path, grid.ncols as u32, grid.nrows as u32, &gray)?;
    Ok(())
}

fn write_error(path: &Path, grid: &AsciiGrid, recon: &[f64]) -> Result<()> {
    let max = grid.values.iter().zip(recon).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
    let scale = if max > 0.0 { 1.0 / max } else { 0.0 };
    let rgb: Vec<u8> = grid
        .values
        .iter()
        .zip(recon)
        .flat_map(|(x, y)| {
            let e = ((x - y) * scale).clamp(-1.0, 1.0);
            let fade = |t: f64| (255.0 * (1.0 - t.abs())).round() as u8;
            if e >= 0.0 { [255, fade(e), fade(e)] } else { [fade(e), fade(e), 255] }
        })
        .collect();
    let file =
        std::fs::File::create(path).map_err(|e| Error::from(e).context(format!("cannot write {}", path.display())))?;
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), grid.ncols as u32, grid.nrows as u32);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.write_header()?.write_image_data(&rgb)?;
    Ok(())
}

/// The report as JSON (numbers with full precision; `null` where there is none).
pub fn report_json(file: &Path, grid: &AsciiGrid, report: &PcaReport) -> String {
    let list = |f: &dyn Fn(&ReconstructionError) -> f64| {
        report.errors.iter().map(|e| format!("{}", f(e))).collect::<Vec<_>>().join(", ")
    };
    let ks: Vec<String> = report.components.iter().map(|k| k.to_string()).collect();
    let r = &report.realism;
    format!(
        "{{\n  \"file\": \"{}\",\n  \"rows\": {},\n  \"cols\": {},\n  \"cell_size\": {},\n  \"components\": [{}],\n  \
         \"lost_percent\": [{}],\n  \"rmse\": [{}],\n  \"max_error\": [{}],\n  \"spectrum_slope\": {},\n  \
         \"spectrum_side\": {},\n  \"slope_mean_deg\": {},\n  \"slope_p90_deg\": {}\n}}",
        file.display().to_string().replace('\\', "\\\\").replace('"', "\\\""),
        grid.nrows,
        grid.ncols,
        grid.cell_size,
        ks.join(", "),
        list(&|e| e.lost_percent),
        list(&|e| e.rmse),
        list(&|e| e.max_error),
        r.spectrum_slope.map_or("null".to_string(), |b| b.to_string()),
        r.spectrum_side,
        r.slope_mean_deg,
        r.slope_p90_deg
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_and_json_have_one_entry_per_k_and_lost_detail_falls() {
        let (rows, cols) = (20, 18);
        let text = format!(
            "ncols {cols}\nnrows {rows}\nxllcorner 0\nyllcorner 0\ncellsize 10\n{}",
            (0..rows)
                .map(|r| (0..cols)
                    .map(|c| format!("{}", ((r * 7 + c * 3) % 11) as f64 + r as f64))
                    .collect::<Vec<_>>()
                    .join(" "))
                .collect::<Vec<_>>()
                .join("\n")
        );
        let grid = AsciiGrid::parse(text.as_bytes(), Path::new("t.asc")).unwrap();
        let pca = Pca::fit(rows, cols, &grid.values).unwrap();
        let dir = std::env::temp_dir().join(format!("xtask-pca-{}", std::process::id()));
        let report = analyse(&grid, &pca, &[1, 2, 4, cols], Some(&dir)).unwrap();
        assert!(report.errors.windows(2).all(|w| w[1].lost_percent <= w[0].lost_percent + 1e-9));
        assert!(report.errors[3].max_error < 1e-9, "all components give the data back");
        for name in ["original.png", "reconstruction_k01.png", "error_k04.png"] {
            assert!(dir.join(name).is_file(), "{name}");
        }
        let json = report_json(Path::new("t.asc"), &grid, &report);
        assert!(json.contains("\"components\": [1, 2, 4, 18]"), "{json}");
        for key in ["lost_percent", "rmse", "max_error", "spectrum_slope", "slope_mean_deg"] {
            assert!(json.contains(&format!("\"{key}\": ")), "{key}: {json}");
        }
        std::fs::remove_dir_all(dir).ok();
    }
}
