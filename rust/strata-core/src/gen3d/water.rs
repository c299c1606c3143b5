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
//!
//! May use: `base`, `preset`, `gen3d::columns`, `gen3d::context`.

use crate::base::block::{self, AIR, BlockId};
use crate::base::chunk::VoxelBuffer;
use crate::base::coords::IVec3;
use crate::gen3d::columns::{Column, ColumnGrid, ColumnPass};
use crate::gen3d::context::StageContext;

/// What cave air touching water turns into.
pub const SEAL_BLOCK: BlockId = block::STONE;

/// Surfaces of the columns just outside a region, computed a side at a time when first needed.
struct Ring<'a> {
    pass: ColumnPass<'a>,
    min: IVec3,
    size: IVec3,
    /// -x, +x, -z, +z sides: a strip of surfaces each.
    sides: [Option<Vec<i32>>; 4],
}

impl Ring<'_> {
    fn surface(&mut self, columns: &ColumnGrid, x: i32, z: i32) -> i32 {
        let in_grid = x >= columns.min_x
            && x < columns.min_x + columns.size_x
            && z >= columns.min_z
            && z < columns.min_z + columns.size_z;
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
        let pass = self.pass;
        let strip = self.sides[side].get_or_insert_with(|| {
            let mut cols: Vec<Column> = Vec::new();
            match side {
                0 => pass.columns_into(min.x - 1, min.z, 1, size.z as usize, &mut cols),
                1 => pass.columns_into(min.x + size.x, min.z, 1, size.z as usize, &mut cols),
                2 => pass.columns_into(min.x, min.z - 1, size.x as usize, 1, &mut cols),
                _ => pass.columns_into(min.x, min.z + size.z, size.x as usize, 1, &mut cols),
            }
            cols.iter().map(|c| c.surface).collect()
        });
        strip[index as usize]
    }
}

/// Applies this stage to `out`, using only world coordinates and the settings of `ctx`, whose
/// columns must cover `out`'s (x, z) rectangle. When `ctx.ring` holds the surfaces of the
/// columns just outside the region (from the column pass's own slope ring), no column outside
/// the grid is computed again; else they are computed a side at a time when first needed.
///
/// Per column with surface `s`, a cave-air voxel at `y` (`y < s` and `y < sea_level`) touches water
/// exactly when `y = s − 1` and `s < sea_level` (water right above), or some face neighbour's
/// surface is at most `y` (water beside): so only the voxels from the lowest of those heights up
/// are looked at.
pub fn settle(ctx: &StageContext, out: &mut VoxelBuffer) {
    #[cfg(target_arch = "x86_64")]
    if crate::base::simd::avx2() {
        // SAFETY: the CPU has AVX2.
        return unsafe { settle_avx2(ctx, ctx.columns, out) };
    }
    settle_body(ctx, ctx.columns, out)
}

/// [`settle`] built for AVX2 (the same code, so the same voxels).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn settle_avx2(ctx: &StageContext, columns: &ColumnGrid, out: &mut VoxelBuffer) {
    settle_body(ctx, columns, out)
}

/// The stage; `columns` is `ctx.columns`, passed as an argument so that the compiler knows the
/// writes to `out` and the buffers leave the grid unchanged and keeps its fields in registers.
#[inline(always)]
fn settle_body(ctx: &StageContext, columns: &ColumnGrid, out: &mut VoxelBuffer) {
    let preset = ctx.preset;
    if !preset.water.enabled || !preset.caves.carves() {
        return;
    }
    let sea = preset.water.sea_level;
    let (min, size) = (out.min(), out.size());
    if min.y >= sea {
        return;
    }
    let sides = match ctx.ring {
        Some(r) if r.fits(min.x, min.z, size.x, size.z) => r.sides.clone().map(Some),
        _ => [None, None, None, None],
    };
    let mut ring = Ring { pass: ctx.column_pass(), min, size, sides };
    let ring_known = ring.sides.iter().all(Option::is_some);
    let is_water = |surface: i32, y: i32| surface <= y && y < sea;
    // Surfaces of the grid's columns and, when known, of the ring around them: (sx + 2) × (sz + 2).
    let (sx, sz) = (size.x as usize, size.z as usize);
    let gx = sx + 2;
    let mut surfaces = vec![i32::MAX; gx * (sz + 2)];
    for lz in 0..sz {
        for lx in 0..sx {
            surfaces[(lz + 1) * gx + lx + 1] = columns.get(min.x + lx as i32, min.z + lz as i32).surface;
        }
    }
    if let [Some(west), Some(east), Some(north), Some(south)] = &ring.sides {
        for lz in 0..sz {
            surfaces[(lz + 1) * gx] = west[lz];
            surfaces[(lz + 1) * gx + sx + 1] = east[lz];
        }
        surfaces[1..=sx].copy_from_slice(north);
        surfaces[(sz + 1) * gx + 1..(sz + 1) * gx + 1 + sx].copy_from_slice(south);
    }
    let y_end = min.y + size.y;
    // The lowest height at which a voxel of the column at `at` (with surface `s`) can touch water.
    let lowest_touch = |at: usize, s: i32| {
        let lowest = surfaces[at - 1].min(surfaces[at + 1]).min(surfaces[at - gx]).min(surfaces[at + gx]);
        lowest.min(if s < sea { s - 1 } else { i32::MAX })
    };
    let plane = sx * sz;
    let data_seal = |out: &mut VoxelBuffer, lx: usize, y: i32, lz: usize, s: i32, n: [i32; 4]| {
        let i = (y - min.y) as usize * plane + lz * sx + lx;
        if out.data()[i] == AIR && (is_water(s, y + 1) || n.iter().any(|&sq| is_water(sq, y))) {
            out.data_mut()[i] = SEAL_BLOCK;
        }
    };
    if ring_known {
        // Every neighbour is known: only the voxels from the lowest touching height up.
        for lz in 0..sz {
            let (north, row, south) =
                (&surfaces[lz * gx..][..gx], &surfaces[(lz + 1) * gx..][..gx], &surfaces[(lz + 2) * gx..][..gx]);
            for lx in 0..sx {
                let s = row[lx + 1];
                let n = [row[lx], row[lx + 2], north[lx + 1], south[lx + 1]];
                let lowest = n[0].min(n[1]).min(n[2]).min(n[3]).min(if s < sea { s - 1 } else { i32::MAX });
                let (from, top) = (min.y.max(lowest), y_end.min(s).min(sea));
                for y in from..top {
                    data_seal(out, lx, y, lz, s, n);
                }
            }
        }
        return;
    }
    for lz in 0..size.z {
        for lx in 0..size.x {
            let (x, z) = (min.x + lx, min.z + lz);
            let at = (lz as usize + 1) * gx + lx as usize + 1;
            let s = surfaces[at];
            let top = (min.y + size.y).min(s).min(sea);
            if top <= min.y {
                continue;
            }
            let inside = lx > 0 && lz > 0 && lx + 1 < size.x && lz + 1 < size.z;
            let mut lateral: Option<[i32; 4]> = None;
            let mut from = min.y;
            if inside {
                from = from.max(lowest_touch(at, s));
                lateral = Some([surfaces[at - 1], surfaces[at + 1], surfaces[at - gx], surfaces[at + gx]]);
            }
            for y in from..top {
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
