//! Harnesses of the files a preset points at: elevation grids (`.asc`), PNG heightmaps, PCA
//! heightmaps (`.spca`) and MagicaVoxel structures (`.vox`).
//!
//! May use: strata-core's `noise` (heightmaps), `gen3d::structures` and `base::block_library`.

use std::path::Path;
use strata_core::base::block_library::default_library;
use strata_core::gen3d::structures::StructureTemplate;
use strata_core::noise::esri_ascii::AsciiGrid;
use strata_core::noise::heightmap::Heightmap;
use strata_core::noise::pca::PcaModel;

/// A decoded heightmap's samples fill its size and are finite.
fn check_heightmap(h: &Heightmap) {
    assert!(h.width() > 0 && h.height() > 0, "an empty heightmap decoded");
    for (px, pz) in [(0, 0), (h.width() - 1, h.height() - 1), (h.width() / 2, h.height() / 2)] {
        assert!(h.pixel(px, pz).is_finite(), "a sample is not finite");
    }
    let (lo, hi) = h.raw_range();
    assert!(lo <= hi, "raw range {lo} > {hi}");
}

/// An ESRI ASCII grid: refused with an error naming the file, or a grid of `ncols × nrows`
/// values, and a heightmap of that size.
pub fn asc(data: &[u8]) {
    let path = Path::new("fuzz.asc");
    let Ok(grid) = AsciiGrid::parse(data, path) else { return };
    assert_eq!(grid.values.len(), grid.ncols * grid.nrows, "grid values do not fill the grid");
    if let Ok(h) = Heightmap::from_asc_bytes(data, path) {
        assert_eq!((h.width(), h.height()), (grid.ncols, grid.nrows));
        check_heightmap(&h);
    }
}

/// A PNG heightmap: refused with an error naming the file, or a heightmap.
pub fn png(data: &[u8]) {
    let path = Path::new("fuzz.png");
    match Heightmap::from_png_bytes(data, path) {
        Err(e) => assert!(e.to_string().contains("fuzz.png"), "the error does not name the file: {e}"),
        Ok(h) => check_heightmap(&h),
    }
}

/// A `.spca` file: refused, or a model whose bytes are the file again, and a heightmap.
pub fn spca(data: &[u8]) {
    let path = Path::new("fuzz.spca");
    let Ok(model) = PcaModel::from_bytes(data, path) else { return };
    assert!(model.to_bytes() == data, "a .spca model writes other bytes than it was read from");
    if let Ok(h) = Heightmap::from_spca_bytes(data, path) {
        check_heightmap(&h);
    }
}

/// A `.vox` structure: refused, or a template that writes a `.vox` file reading back to the
/// same cells.
pub fn vox(data: &[u8]) {
    let library = default_library();
    let Ok(t) = StructureTemplate::from_vox_bytes("fuzz", data, library, &[]) else { return };
    let (bytes, palette) = t.to_vox_bytes(library);
    match StructureTemplate::from_vox_bytes("fuzz", &bytes, library, &palette) {
        Ok(back) => assert!(back == t, "a structure changes on write and read"),
        Err(e) => panic!("a written structure does not read: {e}"),
    }
}
