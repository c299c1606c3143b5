//! Generation stage: water — water stays where it is supported; caves never drain it.
//!
//! The layer fill puts water in every column from its surface up to sea level
//! (`surface ≤ y < sea_level`): never above sea level, and always resting on ground or on more
//! water. Caves carve only below the surface (`y < surface`), so the one way water could hang is
//! against cave air. This stage **seals** it: a cave-air voxel (air below its column's surface)
//! with a face neighbour that the fill made water becomes [`SEAL_BLOCK`]. The test uses the fill
//! rule (`surface(q) ≤ q.y < sea_level` for neighbour `q`), a pure function of the neighbour's
//! column, so every region decides a voxel alike; regions at the edge of their column grid
//! compute the columns one step outside it, only when a cave-air voxel there needs them.
//!
//! Afterwards no water voxel has air directly below it, none lies above sea level, and no water
//! voxel touches cave air sideways: lakes and seas keep their shape above any cave.

use crate::block::{self, AIR, BlockId};
use crate::chunk::VoxelBuffer;
use crate::coords::IVec3;
use crate::generator::{Column, ColumnGrid, Generator};
use crate::preset::CaveMode;

/// What cave air touching water turns into.
pub const SEAL_BLOCK: BlockId = block::STONE;

/// Surfaces of the columns just outside a region, computed a side at a time when first needed.
struct Ring<'a> {
    generator: &'a Generator,
    min: IVec3,
    size: IVec3,
    /// -x, +x, -z, +z sides: a strip of surfaces each.
    sides: [Option<Vec<i32>>; 4],
}

impl Ring<'_> {
    fn surface(&mut self, columns: &ColumnGrid, x: i32, z: i32) -> i32 {
        let in_grid = x >= columns.min_x && x < columns.min_x + columns.size_x && z >= columns.min_z && z < columns.min_z + columns.size_z;
        if in_grid {
            return columns.get(x, z).surface;
        }
        let (min, size) = (self.min, self.size);
        let (side, index) = if x < min.x {
            (0, z - min.z)
        } else if x >= min.x + size.x {
            (1, z - min.z)
        } else if z < min.z {
            (2, x - min.x)
        } else {
            (3, x - min.x)
        };
        let generator = self.generator;
        let strip = self.sides[side].get_or_insert_with(|| {
            let mut cols: Vec<Column> = Vec::new();
            match side {
                0 => generator.columns_into(min.x - 1, min.z, 1, size.z as usize, &mut cols),
                1 => generator.columns_into(min.x + size.x, min.z, 1, size.z as usize, &mut cols),
                2 => generator.columns_into(min.x, min.z - 1, size.x as usize, 1, &mut cols),
                _ => generator.columns_into(min.x, min.z + size.z, size.x as usize, 1, &mut cols),
            }
            cols.iter().map(|c| c.surface).collect()
        });
        strip[index as usize]
    }
}

/// Applies this stage to `out`, using only world coordinates and the preset.
pub fn settle(generator: &Generator, columns: &ColumnGrid, out: &mut VoxelBuffer) {
    let preset = generator.preset();
    let caves = &preset.caves;
    let no_caves = caves.mode == CaveMode::None && !super::caves::tunnels_active(caves);
    if !preset.water.enabled || no_caves {
        return;
    }
    let sea = preset.water.sea_level;
    let (min, size) = (out.min(), out.size());
    if min.y >= sea {
        return;
    }
    let mut ring = Ring { generator, min, size, sides: [None, None, None, None] };
    let is_water = |surface: i32, y: i32| surface <= y && y < sea;
    for lz in 0..size.z {
        for lx in 0..size.x {
            let (x, z) = (min.x + lx, min.z + lz);
            let s = columns.get(x, z).surface;
            let top = (min.y + size.y).min(s).min(sea);
            let mut lateral: Option<[i32; 4]> = None;
            for y in min.y..top {
                let l = IVec3::new(lx, y - min.y, lz);
                if out.get_local(l) != AIR {
                    continue;
                }
                let mut touches = is_water(s, y + 1);
                if !touches {
                    let n = *lateral.get_or_insert_with(|| {
                        [(x - 1, z), (x + 1, z), (x, z - 1), (x, z + 1)].map(|(qx, qz)| ring.surface(columns, qx, qz))
                    });
                    touches = n.iter().any(|&sq| is_water(sq, y));
                }
                if touches {
                    out.set_local(l, SEAL_BLOCK);
                }
            }
        }
    }
}
