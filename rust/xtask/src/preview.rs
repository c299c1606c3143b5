//! `cargo xtask preview PRESET --out DIR`: renders a preset to PNG pictures without Godot.
//!
//! Writes `height.png` (16-bit grayscale) + `height.json` (cell size and height range),
//! `relief.png` (shaded relief in biome colours), `biomes.png` and `caves.png` (a vertical
//! slice) via `strata_core::gen3d::preview`. PRESET is a `.tres` (Godot) or `.ron` file.

use crate::error::{Error, Result};
use std::path::PathBuf;

const USAGE: &str =
    "usage: cargo xtask preview PRESET.(tres|ron) --out DIR [--size PIXELS] [--cell UNITS_PER_PIXEL] [--center X,Z]";

/// Parses the arguments and renders the preview.
pub fn run(args: &[String]) -> Result<()> {
    let mut preset_path: Option<PathBuf> = None;
    let mut out: Option<PathBuf> = None;
    let mut size: u32 = 512;
    let mut cell: f32 = 4.0;
    let mut center = (0i32, 0i32);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value =
            |name: &str| it.next().cloned().ok_or_else(|| Error::msg(format!("{name} needs a value\n{USAGE}")));
        match a.as_str() {
            "--out" => out = Some(PathBuf::from(value("--out")?)),
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
    let preset_path = preset_path.ok_or_else(|| Error::msg(USAGE))?;
    let out = out.ok_or_else(|| Error::msg(format!("--out DIR is required\n{USAGE}")))?;
    let preset = strata_core::preset::file::load_preset_file(&preset_path)
        .map_err(|e| Error::from(e).context(format!("cannot read preset {}", preset_path.display())))?;
    crate::step(format!(
        "preview of {} ({size}×{size} px, {cell} voxels/px) → {}",
        preset_path.display(),
        out.display()
    ));
    let files = strata_core::gen3d::preview::render_preview(&preset, center, size, cell, &out)
        .map_err(|e| Error::from(e).context("cannot render the preview"))?;
    for p in [&files.height_png, &files.height_json, &files.relief_png, &files.biomes_png, &files.caves_png] {
        crate::note(p.display());
    }
    Ok(())
}
