//! Generation stage: layers — ground from the columns, water up to sea level.
//!
//! A voxel at height `y` in a column with surface `s` is stone for `y < s − 4` (`4` is
//! [`STONE_DEPTH`]), the column's subsurface block for `s − 4 ≤ y < s − 1`, its surface block for `y = s − 1`, and above the
//! ground water below sea level (when water is on), else air. This stage writes every voxel of
//! its box, so what the buffer held before does not matter; the later stages refine it.
//!
//! May use: `base`, `gen3d::columns`, `gen3d::context`.

use crate::base::block::{self, AIR, BlockId};
use crate::base::chunk::VoxelBuffer;
use crate::gen3d::columns::STONE_DEPTH;
use crate::gen3d::context::StageContext;

/// Applies this stage to `out`, whose (x, z) rectangle is exactly `ctx.columns`: one horizontal
/// layer at a time (the buffer's order), layers wholly below the lowest stone or above the
/// highest surface and the sea filled at once.
pub fn fill(ctx: &StageContext, out: &mut VoxelBuffer) {
    #[cfg(target_arch = "x86_64")]
    if crate::base::simd::avx2() {
        // SAFETY: the CPU has AVX2.
        return unsafe { fill_avx2(ctx, out) };
    }
    fill_body(ctx, out)
}

/// [`fill`] built for AVX2 (the same code, so the same voxels; a mixed layer's loop goes
/// through twice as many voxels at once).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn fill_avx2(ctx: &StageContext, out: &mut VoxelBuffer) {
    fill_body(ctx, out)
}

#[inline(always)]
fn fill_body(ctx: &StageContext, out: &mut VoxelBuffer) {
    let (min, size) = (out.min(), out.size());
    let columns = ctx.columns;
    debug_assert!(
        columns.min_x == min.x && columns.min_z == min.z && columns.size_x == size.x && columns.size_z == size.z
    );
    let sea = ctx.preset.water.sea_level;
    let water = ctx.preset.water.enabled;
    let cols = &columns.columns;
    let (lo, hi) = cols.iter().fold((i32::MAX, i32::MIN), |(lo, hi), c| (lo.min(c.surface), hi.max(c.surface)));
    let top = if water { hi.max(sea) } else { hi };
    let plane = (size.x * size.z) as usize;
    if plane == 0 {
        return;
    }
    // The columns as separate arrays, so a mixed layer is one branch-free loop; with 16-bit
    // surfaces (when every height of the box fits, which makes no comparison differ) twice
    // as many voxels go through a vector register at once.
    let surface_blocks: Vec<BlockId> = cols.iter().map(|c| c.surface_block).collect();
    let subsurface_blocks: Vec<BlockId> = cols.iter().map(|c| c.subsurface_block).collect();
    let short = lo.saturating_sub(STONE_DEPTH) >= i16::MIN as i32
        && hi <= i16::MAX as i32
        && min.y >= i16::MIN as i32
        && min.y + size.y <= i16::MAX as i32;
    let surfaces: Vec<i32> = if short { Vec::new() } else { cols.iter().map(|c| c.surface).collect() };
    let short_surfaces: Vec<i16> = if short { cols.iter().map(|c| c.surface as i16).collect() } else { Vec::new() };
    for (ly, layer) in out.data_mut().chunks_exact_mut(plane).enumerate() {
        let y = min.y + ly as i32;
        if y < lo.saturating_sub(STONE_DEPTH) {
            layer.fill(block::STONE);
        } else if y >= top {
            layer.fill(AIR);
        } else {
            let above = if water && y < sea { block::WATER } else { AIR };
            let (surface_blocks, subsurface_blocks) = (&surface_blocks[..plane], &subsurface_blocks[..plane]);
            if short {
                let (surfaces, y) = (&short_surfaces[..plane], y as i16);
                for (i, v) in layer.iter_mut().enumerate() {
                    *v = layer_block_of(surfaces[i], surface_blocks[i], subsurface_blocks[i], y, above);
                }
            } else {
                let surfaces = &surfaces[..plane];
                for (i, v) in layer.iter_mut().enumerate() {
                    *v = layer_block_of(surfaces[i], surface_blocks[i], subsurface_blocks[i], y, above);
                }
            }
        }
    }
}

/// Block at height `y` in a column with surface `s`, from the layers alone; `above` is what
/// lies above the ground at that height (water below sea level, else air).
///
/// Written as masks rather than branches so that a layer's loop is vectorised:
/// `if y < s − 4 { stone } else if y < s − 1 { subsurface } else if y < s { surface } else { above }`.
#[inline(always)]
fn layer_block_of<T: Copy + PartialOrd + std::ops::Sub<Output = T> + From<i8>>(
    s: T,
    surface_block: BlockId,
    subsurface_block: BlockId,
    y: T,
    above: BlockId,
) -> BlockId {
    let all_if = |c: bool| (c as BlockId).wrapping_neg();
    let (stone, subsurface, surface) =
        (all_if(y < s - T::from(STONE_DEPTH as i8)), all_if(y < s - T::from(1)), all_if(y < s));
    let upper = (surface_block & surface) | (above & !surface);
    let middle = (subsurface_block & subsurface) | (upper & !subsurface);
    (block::STONE & stone) | (middle & !stone)
}
