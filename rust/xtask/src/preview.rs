//! `cargo xtask preview PRESET --out DIR`: renders a preset to PNG pictures without Godot.
//!
//! Writes `height.png` (16-bit grayscale) + `height.json` (cell size and height range, and how
//! real the land looks: power-spectrum slope β and slope angles), `relief.png` (shaded relief in
//! biome colours), `biomes.png` and `caves.png` (a vertical slice) via
//! `strata_core::gen3d::preview`. PRESET is a `.tres` (Godot) or `.ron` file; a relative or
//! `res://` heightmap path is read from the preset's folder or project.
//!
//! `cargo xtask preview --shipped --out DIR` previews every shipped preset into `DIR/<name>/` and
//! writes `DIR/realism.json`: β, mean and 90th-percentile slope of each (printed as a table too).

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};
use strata_core::gen3d::pipeline::{Generator, GeneratorOptions};
use strata_core::gen3d::preview::render_preview_in;
use strata_core::gen3d::realism::{REALISM_SIDE, measure};

const USAGE: &str = "usage: cargo xtask preview (PRESET.(tres|ron) | --shipped) --out DIR [--size PIXELS] \
                     [--cell UNITS_PER_PIXEL] [--center X,Z]";

/// Parses the arguments and renders the preview.
pub fn run(args: &[String]) -> Result<()> {
    let mut preset_path: Option<PathBuf> = None;
    let mut out: Option<PathBuf> = None;
    let mut size: u32 = 512;
    let mut cell: f32 = 4.0;
    let mut center = (0i32, 0i32);
    let mut shipped = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value =
            |name: &str| it.next().cloned().ok_or_else(|| Error::msg(format!("{name} needs a value\n{USAGE}")));
        match a.as_str() {
            "--out" => out = Some(PathBuf::from(value("--out")?)),
            "--shipped" => shipped = true,
            "--size" => {
                size = value("--size")?
                    .parse()
                    .map_err(|_| Error::msg(format!("--size takes a whole number of pixels\n{USAGE}")))?
            }
            "--cell" => {
                cell = value("--cell")?.parse().map_err(|_| Error::msg(format!("--cell takes a number\n{USAGE}")))?
            }
            "--center" => {
                let v = value("--center")?;
                let (x, z) = v.split_once(',').ok_or_else(|| Error::msg(format!("--center takes X,Z\n{USAGE}")))?;
                center = (
                    x.trim().parse().map_err(|_| Error::msg(format!("--center: `{x}` is not an integer")))?,
                    z.trim().parse().map_err(|_| Error::msg(format!("--center: `{z}` is not an integer")))?,
                );
            }
            other if !other.starts_with('-') && preset_path.is_none() => preset_path = Some(PathBuf::from(other)),
            other => {
                return Err(Error::msg(format!("unexpected argument `{other}`\n{USAGE}")));
            }
        }
    }
    let out = out.ok_or_else(|| Error::msg(format!("--out DIR is required\n{USAGE}")))?;
    if shipped {
        if preset_path.is_some() {
            return Err(Error::msg(format!("--shipped previews the shipped presets; give no PRESET\n{USAGE}")));
        }
        return preview_shipped(&out, center, size, cell);
    }
    let preset_path = preset_path.ok_or_else(|| Error::msg(USAGE))?;
    let preset = strata_core::preset::file::load_preset_file(&preset_path)
        .map_err(|e| Error::from(e).context(format!("cannot read preset {}", preset_path.display())))?;
    crate::step(format!(
        "preview of {} ({size}×{size} px, {cell} voxels/px) → {}",
        preset_path.display(),
        out.display()
    ));
    let files = render_preview_in(&preset, preset_path.parent(), center, size, cell, &out)
        .map_err(|e| Error::from(e).context("cannot render the preview"))?;
    for p in [&files.height_png, &files.height_json, &files.relief_png, &files.biomes_png, &files.caves_png] {
        crate::note(p.display());
    }
    Ok(())
}

/// Previews every shipped preset (`addons/strata/presets/*.ron`, by name) into `out/<name>/`
/// and writes `out/realism.json` with each one's β and slope angles.
fn preview_shipped(out: &Path, center: (i32, i32), size: u32, cell: f32) -> Result<()> {
    let dir = crate::paths::godot_project().join("addons/strata/presets");
    let mut presets: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| Error::from(e).context(format!("cannot list {}", dir.display())))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "ron"))
        .collect();
    presets.sort();
    let mut rows = Vec::new();
    println!("{:<24} {:>8} {:>16} {:>15}", "preset", "β", "mean slope (°)", "p90 slope (°)");
    for path in &presets {
        let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let preset = strata_core::preset::file::load_preset_file(path)
            .map_err(|e| Error::from(e).context(format!("cannot read preset {}", path.display())))?;
        render_preview_in(&preset, Some(&dir), center, size, cell, &out.join(&stem))
            .map_err(|e| Error::from(e).context(format!("cannot render {}", path.display())))?;
        let generator = Generator::with_options(&preset, GeneratorOptions::default().base_dir(Some(&dir)))?;
        let r = measure(generator.terrain(), center, REALISM_SIDE);
        let beta = r.spectrum_slope.map_or("null".to_string(), |b| format!("{b:.4}"));
        println!("{stem:<24} {beta:>8} {:>16.2} {:>15.2}", r.slope_mean_deg, r.slope_p90_deg);
        rows.push(format!(
            "    {{\"preset\": \"{stem}\", \"spectrum_slope\": {beta}, \"slope_mean_deg\": {:.4}, \"slope_p90_deg\": {:.4}}}",
            r.slope_mean_deg, r.slope_p90_deg
        ));
    }
    let json = format!(
        "{{\n  \"center\": [{}, {}],\n  \"side_voxels\": {REALISM_SIDE},\n  \"presets\": [\n{}\n  ]\n}}\n",
        center.0,
        center.1,
        rows.join(",\n")
    );
    let path = out.join("realism.json");
    std::fs::write(&path, &json).map_err(|e| Error::from(e).context(format!("cannot write {}", path.display())))?;
    crate::note(path.display());
    Ok(())
}
