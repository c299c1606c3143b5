//! Where the open sky reaches down to, per column: [`SkyExposure`], and [`sky_exposure`] that
//! finds it inside a box of voxels from what the caller knows above the box.
//!
//! The **exposure** of a column (x, z) is the lowest world y such that every voxel at or above
//! it, up to the top of the world, lets sky light through undimmed (opacity 0 in
//! [`LightProps`]). Those voxels have sky light 15; below it light only spreads, with falloff.
//! It is a property of the world column, not of any box, which is what lets two boxes that share
//! a column agree on its light (law: Seamless).
//!
//! The light of a box reads the exposure only between the box's bottom and one above its top:
//! a value at or below the bottom means "open through the whole box", any value above the
//! box's top means "something above the box stops the sky".
//!
//! How the streamer derives it for a padded region: the generator's column info bounds it from
//! above (every generated voxel at or above `max(surface height, sea level)` is air), raised by
//! any edit that put a non-clear block higher in the column (and by the height of any scatter
//! that becomes voxels, should decorations ever be written into voxels: today they are
//! instances and cast no light shadow). Where that bound lies inside the region,
//! [`sky_exposure`] walks down from it through the region's voxels. Where it lies above the
//! region, the voxels between the region's top and the bound decide: the first non-clear one
//! met walking down (usually the surface block itself, one voxel) closes the column; the
//! chunk above, loaded or generated, has them.
//!
//! May use: `base`, `light::error`, `light::props`.

use crate::base::chunk::VoxelBuffer;
use crate::light::error::LightError;
use crate::light::props::LightProps;

/// A column closed from above: some voxel above any box stops the sky.
pub const SKY_CLOSED: i32 = i32::MAX;

/// The exposure (see the module doc) of each column of the rectangle
/// `[min_x, min_x + size_x) × [min_z, min_z + size_z)`, x fastest.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SkyExposure {
    min_x: i32,
    min_z: i32,
    size_x: i32,
    size_z: i32,
    heights: Vec<i32>,
}

impl SkyExposure {
    /// Every column of the rectangle at `height`.
    pub fn new(min_x: i32, min_z: i32, size_x: i32, size_z: i32, height: i32) -> Self {
        let mut s = Self::default();
        s.reset(min_x, min_z, size_x, size_z, height);
        s
    }

    /// Reuses the allocation for another rectangle, every column at `height`.
    pub fn reset(&mut self, min_x: i32, min_z: i32, size_x: i32, size_z: i32, height: i32) {
        let (size_x, size_z) = (size_x.max(0), size_z.max(0));
        *self = Self { min_x, min_z, size_x, size_z, heights: std::mem::take(&mut self.heights) };
        self.heights.clear();
        self.heights.resize((size_x * size_z) as usize, height);
    }

    /// The columns of a voxel box, every one at `height`.
    pub fn for_box(voxels: &VoxelBuffer, height: i32) -> Self {
        let (m, s) = (voxels.min(), voxels.size());
        Self::new(m.x, m.z, s.x, s.z, height)
    }

    pub fn min_x(&self) -> i32 {
        self.min_x
    }

    pub fn min_z(&self) -> i32 {
        self.min_z
    }

    pub fn size_x(&self) -> i32 {
        self.size_x
    }

    pub fn size_z(&self) -> i32 {
        self.size_z
    }

    /// The heights, x fastest, then z.
    pub fn heights(&self) -> &[i32] {
        &self.heights
    }

    pub fn heights_mut(&mut self) -> &mut [i32] {
        &mut self.heights
    }

    #[inline]
    fn index(&self, x: i32, z: i32) -> Option<usize> {
        let (lx, lz) = (x - self.min_x, z - self.min_z);
        (lx >= 0 && lz >= 0 && lx < self.size_x && lz < self.size_z).then(|| (lz * self.size_x + lx) as usize)
    }

    /// Exposure of world column (x, z), or `None` outside the rectangle.
    pub fn get(&self, x: i32, z: i32) -> Option<i32> {
        self.index(x, z).map(|i| self.heights[i])
    }

    /// Sets the exposure of world column (x, z); returns false outside the rectangle.
    pub fn set(&mut self, x: i32, z: i32, height: i32) -> bool {
        match self.index(x, z) {
            Some(i) => {
                self.heights[i] = height;
                true
            }
            None => false,
        }
    }

    /// The part over `[min_x, min_x + size_x) × [min_z, min_z + size_z)`, which must lie inside;
    /// `None` otherwise.
    pub fn sub(&self, min_x: i32, min_z: i32, size_x: i32, size_z: i32) -> Option<SkyExposure> {
        let inside = min_x >= self.min_x
            && min_z >= self.min_z
            && size_x >= 0
            && size_z >= 0
            && min_x + size_x <= self.min_x + self.size_x
            && min_z + size_z <= self.min_z + self.size_z;
        if !inside {
            return None;
        }
        let mut out = SkyExposure::new(min_x, min_z, size_x, size_z, 0);
        for z in 0..size_z {
            for x in 0..size_x {
                out.heights[(z * size_x + x) as usize] = self.heights[self.index(min_x + x, min_z + z)?];
            }
        }
        Some(out)
    }

    /// Checks that this covers exactly the columns of `voxels`.
    pub(crate) fn check_covers(&self, voxels: &VoxelBuffer) -> Result<(), LightError> {
        let (m, s) = (voxels.min(), voxels.size());
        if (self.min_x, self.min_z, self.size_x, self.size_z) == (m.x, m.z, s.x, s.z) {
            Ok(())
        } else {
            Err(LightError::ExposureColumns {
                got_x: self.min_x,
                got_z: self.min_z,
                got_sx: self.size_x,
                got_sz: self.size_z,
                want_x: m.x,
                want_z: m.z,
                want_sx: s.x,
                want_sz: s.z,
            })
        }
    }
}

/// The exposure of every column of `voxels`, into `out` (reshaped to the box's columns).
///
/// `clear_from` holds one value per column (x fastest, then z): a y such that every voxel at
/// or above it, up to the top of the world, is clear. At or below the box's top, this walks down
/// from there through the box's voxels to the first non-clear one; the result is that voxel's
/// y + 1, or the box's bottom when the column is clear all the way through the box. Above the
/// box's top ([`SKY_CLOSED`], or the exact exposure when the caller knows it) it is passed on
/// unchanged: the column is closed above the box. A column known open at the box's top but
/// nothing more takes the box's top (`voxels.max().y`).
pub fn sky_exposure(
    voxels: &VoxelBuffer,
    props: &LightProps,
    clear_from: &[i32],
    out: &mut SkyExposure,
) -> Result<(), LightError> {
    let (min, size) = (voxels.min(), voxels.size());
    let columns = (size.x * size.z) as usize;
    if clear_from.len() != columns {
        return Err(LightError::ColumnCount { what: "clear_from", got: clear_from.len(), want: columns });
    }
    out.reset(min.x, min.z, size.x, size.z, SKY_CLOSED);
    let data = voxels.data();
    let plane = columns;
    let top = min.y + size.y;
    for (c, (&from, h)) in clear_from.iter().zip(out.heights.iter_mut()).enumerate() {
        if from > top {
            *h = from;
            continue;
        }
        // Local y of the lowest voxel known clear so far; walk down while the one below is.
        let mut ly = (from.max(min.y) - min.y) as usize;
        while ly > 0 && props.is_clear(data[(ly - 1) * plane + c]) {
            ly -= 1;
        }
        *h = min.y + ly as i32;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::block::{AIR, STONE, WATER};
    use crate::base::coords::IVec3;

    #[test]
    fn exposure_walks_down_to_the_first_non_clear_voxel() {
        let props = LightProps::default_blocks();
        let mut v = VoxelBuffer::new(IVec3::new(10, -5, 20), IVec3::new(3, 10, 1));
        // Column x=10: stone at y=0. Column x=11: water at y=2 over air. Column x=12: all air.
        v.set(IVec3::new(10, 0, 20), STONE);
        v.set(IVec3::new(11, 2, 20), WATER);
        let mut out = SkyExposure::default();
        sky_exposure(&v, &props, &[5, 5, 5], &mut out).unwrap();
        assert_eq!(out.heights(), &[1, 3, -5]);
        // Known clear from lower down: the walk starts there.
        sky_exposure(&v, &props, &[2, 5, -1], &mut out).unwrap();
        assert_eq!(out.heights(), &[1, 3, -5]);
        // Closed above the box: passed on.
        sky_exposure(&v, &props, &[SKY_CLOSED, 40, 5], &mut out).unwrap();
        assert_eq!(out.heights(), &[SKY_CLOSED, 40, -5]);
        assert_eq!(out.get(12, 20), Some(-5));
        assert_eq!(out.get(13, 20), None);
        let e = sky_exposure(&v, &props, &[5, 5], &mut out).unwrap_err();
        assert!(e.to_string().contains("clear_from holds 2") || e.to_string().contains("holds 2"), "{e}");
        assert_eq!(v.get(IVec3::new(12, 0, 20)), Some(AIR));
    }
}
