//! Generation stage: caves (placeholder until implemented; a no-op keeps the world seamless).

use crate::chunk::VoxelBuffer;
use crate::generator::{ColumnGrid, Generator};

/// Applies this stage to `out`, using only world coordinates and the preset.
pub fn carve(_generator: &Generator, _columns: &ColumnGrid, _out: &mut VoxelBuffer) {}
