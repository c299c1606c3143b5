//! Why a light computation refused its input: one error type for the light layer, naming the
//! value it was given and what is allowed (law: Clear errors).
//!
//! May use: `base`.

use crate::base::block::BlockId;
use crate::base::coords::IVec3;
use thiserror::Error;

/// Why a light function refused its arguments. Nothing is written to the output on error.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LightError {
    /// A light property (`opacity` or `emission`) above the 0–15 range of a light level.
    #[error("light property `{field}` of block {id}: {value}; allowed: 0..=15")]
    PropertyOutOfRange { id: BlockId, field: &'static str, value: u8 },
    /// The voxel box is too thin to leave any output after the reach margin on each side, or
    /// wider than the packed coordinates allow.
    #[error("voxel box of size {size:?}: allowed: every side {min}..={max} voxels")]
    RegionSize { size: IVec3, min: i32, max: i32 },
    /// A chunk's padded voxels do not cover the chunk with [`crate::light::LIGHT_MARGIN`] on
    /// every side.
    #[error(
        "padded voxels of chunk ({cx}, {cy}, {cz}) cover min {min:?} size {size:?}; allowed: min {want_min:?} size {want_size:?}"
    )]
    NotChunkPadded { cx: i32, cy: i32, cz: i32, min: IVec3, size: IVec3, want_min: IVec3, want_size: IVec3 },
    /// The sky exposure does not cover exactly the voxel box's columns.
    #[error(
        "sky exposure covers columns x {got_x}+{got_sx}, z {got_z}+{got_sz}; allowed: the voxels' columns x {want_x}+{want_sx}, z {want_z}+{want_sz}"
    )]
    ExposureColumns {
        got_x: i32,
        got_z: i32,
        got_sx: i32,
        got_sz: i32,
        want_x: i32,
        want_z: i32,
        want_sx: i32,
        want_sz: i32,
    },
    /// A side view's rectangle of tiles too thin to leave any output after the reach margin on
    /// each side, or wider than [`crate::light::light2d::MAX_TILE_REGION_SIDE`].
    #[error("tile rectangle of {width} × {height} tiles; allowed: every side {min}..={max} tiles")]
    TileRegionSize { width: i32, height: i32, min: i32, max: i32 },
    /// A per-column slice whose length is not the number of columns of the voxel box.
    #[error("`{what}` holds {got} values; allowed: one per column of the voxel box, {want}")]
    ColumnCount { what: &'static str, got: usize, want: usize },
    /// The voxels given to [`crate::light::relight_after_edit`] do not cover the box the edit
    /// needs ([`crate::light::LightEdit::region`]).
    #[error(
        "relight voxels cover min {min:?} size {size:?}; allowed: a box containing min {want_min:?} size {want_size:?}"
    )]
    EditRegion { min: IVec3, size: IVec3, want_min: IVec3, want_size: IVec3 },
}
