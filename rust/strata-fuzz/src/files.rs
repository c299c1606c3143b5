//! Harnesses of the files a preset points at: elevation grids (`.asc`), SRTM tiles (`.hgt`), PNG
//! heightmaps, PCA heightmaps (`.spca`) and MagicaVoxel structures (`.vox`).
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

/// An SRTM tile. Only two sizes are tiles (1201² and 3601² big-endian samples, 2.9 and 26 MB),
/// past the fuzzer's input limit: the input is tried as it is (any other size is refused, naming
/// the file), then repeated to fill a 1201² tile, so its bytes choose the samples (voids of
/// -32768 included: all void is refused, else voids take the lowest valid height).
pub fn hgt(data: &[u8]) {
    let path = Path::new("fuzz.hgt");
    match Heightmap::from_hgt_bytes(data, path) {
        Err(e) => assert!(e.to_string().contains("fuzz.hgt"), "the error does not name the file: {e}"),
        Ok(h) => check_heightmap(&h),
    }
    if data.is_empty() {
        return;
    }
    let side = strata_core::noise::heightmap::HGT_SIDES[0];
    let tile: Vec<u8> = data.iter().copied().cycle().take(2 * side * side).collect();
    match Heightmap::from_hgt_bytes(&tile, path) {
        Ok(h) => {
            assert_eq!((h.width(), h.height()), (side, side));
            check_heightmap(&h);
        }
        Err(e) => {
            let all_void = tile.chunks_exact(2).all(|b| i16::from_be_bytes([b[0], b[1]]) == i16::MIN);
            assert!(all_void, "a tile of the right size refused: {e}");
            assert!(e.to_string().contains("fuzz.hgt"), "the error does not name the file: {e}");
        }
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
