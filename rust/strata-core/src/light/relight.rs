//! Light after one voxel edit: which voxels it can change ([`LightEdit::bounds`]), which chunks'
//! buffers hold them ([`LightEdit::chunks`]), and [`relight_after_edit`], which recomputes that
//! box with the same pure function as a chunk ([`light_region`]) and copies it into the chunks'
//! buffers, reporting the ones that changed. The result is bit for bit the from-scratch light
//! of each chunk after the edit, because both are the world's light of the same voxels.
//!
//! May use: `base`, `light::buffer`, `light::error`, `light::props`, `light::propagate`,
//! `light::sky`.

use crate::base::chunk::VoxelBuffer;
use crate::base::coords::{ChunkCoord, IVec3};
use crate::light::buffer::{LightBuffer, max3, min3};
use crate::light::error::LightError;
use crate::light::propagate::{LIGHT_REACH, LIGHT_SHELL, LightScratch, light_region};
use crate::light::props::LightProps;
use crate::light::sky::SkyExposure;

/// One voxel edit as light sees it: where, and the exposure of its column before and after
/// (see [`crate::light::sky`]; the exact world values, which differ only when the edit opened
/// or closed the column to the sky).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LightEdit {
    pub pos: IVec3,
    pub exposure_before: i32,
    pub exposure_after: i32,
}

impl LightEdit {
    /// The box `[lo, hi)` of voxels whose light the edit can change: those within
    /// [`LIGHT_REACH`] steps of a voxel that changed as a light source or a light path (the
    /// edited voxel, and the part of its column that entered or left the open sky).
    pub fn bounds(&self) -> (IVec3, IVec3) {
        let p = self.pos;
        let (mut y0, mut y1) = (p.y, p.y.saturating_add(1));
        if self.exposure_before != self.exposure_after {
            y0 = y0.min(self.exposure_before.min(self.exposure_after));
            y1 = y1.max(self.exposure_before.max(self.exposure_after));
        }
        let r = LIGHT_REACH;
        (IVec3::new(p.x - r, y0.saturating_sub(r), p.z - r), IVec3::new(p.x + r + 1, y1.saturating_add(r), p.z + r + 1))
    }

    /// The voxel box (min, size) [`relight_after_edit`] needs: the bounds with [`LIGHT_REACH`]
    /// more on every side.
    pub fn region(&self) -> (IVec3, IVec3) {
        let (lo, hi) = self.bounds();
        let r = IVec3::splat(LIGHT_REACH);
        (lo - r, hi - lo + r + r)
    }

    /// The chunks whose light buffers (chunk plus shell) overlap the bounds, x fastest, then z,
    /// then y: every chunk whose light the edit can change.
    pub fn chunks(&self) -> Vec<ChunkCoord> {
        let (lo, hi) = self.bounds();
        let s = IVec3::splat(LIGHT_SHELL);
        let (a, b) = (ChunkCoord::containing(lo - s), ChunkCoord::containing(hi - IVec3::ONE + s));
        let mut v = Vec::new();
        for y in a.y..=b.y {
            for z in a.z..=b.z {
                for x in a.x..=b.x {
                    v.push(ChunkCoord::new(x, y, z));
                }
            }
        }
        v
    }
}

/// Updates `lights` (chunk light buffers from [`crate::light::light_chunk`], or any light
/// buffers) after `edit`; returns the indices of the buffers whose light changed, ascending.
///
/// `voxels` are the world's voxels after the edit over a box containing [`LightEdit::region`],
/// `sky` the exposure after the edit of exactly its columns. Buffers outside the bounds are left
/// as they are: the edit cannot change them. An edit that opens or closes its column over more
/// than about 970 voxels needs a box wider than [`crate::light::MAX_REGION_SIDE`] and is refused
/// ([`LightError::RegionSize`]); relight those chunks from scratch.
pub fn relight_after_edit(
    edit: &LightEdit,
    voxels: &VoxelBuffer,
    sky: &SkyExposure,
    props: &LightProps,
    lights: &mut [LightBuffer],
    scratch: &mut LightScratch,
) -> Result<Vec<usize>, LightError> {
    let (want_min, want_size) = edit.region();
    let covers =
        max3(voxels.min(), want_min) == want_min && min3(voxels.max(), want_min + want_size) == want_min + want_size;
    if !covers {
        return Err(LightError::EditRegion { min: voxels.min(), size: voxels.size(), want_min, want_size });
    }
    let mut region = std::mem::take(&mut scratch.region);
    let result = light_region(voxels, sky, props, &mut region, scratch);
    let (lo, hi) = edit.bounds();
    let changed = result.map(|()| {
        lights.iter_mut().enumerate().filter_map(|(i, l)| l.copy_from(&region, lo, hi).then_some(i)).collect()
    });
    scratch.region = region;
    changed
}
