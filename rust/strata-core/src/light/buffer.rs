//! The light of a box of voxels: one byte per voxel, sky light in the high nibble and block
//! light in the low one, laid out like [`crate::base::chunk::VoxelBuffer`] (x fastest, then z,
//! then y).
//!
//! A chunk's light ([`crate::light::light_chunk`]) covers the chunk and the one-voxel shell
//! around it (34³ for a 32³ chunk): the same box as the mesher's padded voxels, so a face of a
//! border voxel finds the light of the voxel it looks into, across the chunk border, in the
//! chunk's own buffer ([`LightBuffer::face_light`]).
//!
//! May use: `base`.

use crate::base::coords::IVec3;

/// The light of one voxel: sky 0–15 and block 0–15, packed as `sky << 4 | block`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Light(pub u8);

impl Light {
    /// Darkness: no sky, no block light.
    pub const DARK: Light = Light(0);

    pub const fn new(sky: u8, block: u8) -> Self {
        Light(((sky & 15) << 4) | (block & 15))
    }

    /// Sky light, 0–15.
    #[inline]
    pub const fn sky(self) -> u8 {
        self.0 >> 4
    }

    /// Block light (from emissive blocks), 0–15.
    #[inline]
    pub const fn block(self) -> u8 {
        self.0 & 15
    }

    /// The brighter of the two channels, 0–15.
    #[inline]
    pub const fn combined(self) -> u8 {
        let (s, b) = (self.sky(), self.block());
        if s > b { s } else { b }
    }
}

/// Light of the voxels of the box `[min, min + size)`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LightBuffer {
    min: IVec3,
    size: IVec3,
    data: Vec<u8>,
}

impl LightBuffer {
    /// A dark buffer over `[min, min + size)`.
    pub fn new(min: IVec3, size: IVec3) -> Self {
        let mut b = Self::default();
        b.reset(min, size);
        b
    }

    /// A buffer over `[min, min + size)` holding a copy of `data` (packed bytes in this layout;
    /// dark where `data` is short, cut where it is long).
    pub fn from_data(min: IVec3, size: IVec3, data: &[u8]) -> Self {
        let mut b = Self::new(min, size);
        let n = b.data.len().min(data.len());
        b.data[..n].copy_from_slice(&data[..n]);
        b
    }

    /// Reuses the allocation for a new box, all dark.
    pub fn reset(&mut self, min: IVec3, size: IVec3) {
        self.min = min;
        self.size = IVec3::new(size.x.max(0), size.y.max(0), size.z.max(0));
        self.data.clear();
        self.data.resize(self.size.volume(), 0);
    }

    /// Reuses the allocation for a new box whose every byte the caller then writes: the
    /// contents are left unspecified (what the buffer held, dark where it grew).
    pub(crate) fn reshape_for_overwrite(&mut self, min: IVec3, size: IVec3) {
        self.min = min;
        self.size = IVec3::new(size.x.max(0), size.y.max(0), size.z.max(0));
        self.data.resize(self.size.volume(), 0);
    }

    pub fn min(&self) -> IVec3 {
        self.min
    }

    pub fn size(&self) -> IVec3 {
        self.size
    }

    /// One past the largest world position covered.
    pub fn max(&self) -> IVec3 {
        self.min + self.size
    }

    /// The packed bytes (`sky << 4 | block`), x fastest, then z, then y.
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    pub(crate) fn data_mut(&mut self) -> &mut [u8] {
        &mut self.data
    }

    #[inline]
    fn contains_local(&self, l: IVec3) -> bool {
        l.x >= 0 && l.y >= 0 && l.z >= 0 && l.x < self.size.x && l.y < self.size.y && l.z < self.size.z
    }

    #[inline]
    fn index_local(&self, l: IVec3) -> usize {
        ((l.y * self.size.z + l.z) * self.size.x + l.x) as usize
    }

    /// Light at local position `l` (each component in `0..size`); panics outside, like slice
    /// indexing.
    #[inline]
    pub fn light_local(&self, l: IVec3) -> Light {
        assert!(self.contains_local(l), "{l:?} outside a light buffer of size {:?}", self.size);
        Light(self.data[self.index_local(l)])
    }

    /// Sky light at local position `l`.
    #[inline]
    pub fn sky(&self, l: IVec3) -> u8 {
        self.light_local(l).sky()
    }

    /// Block light at local position `l`.
    #[inline]
    pub fn block(&self, l: IVec3) -> u8 {
        self.light_local(l).block()
    }

    /// The brighter channel at local position `l`.
    #[inline]
    pub fn combined(&self, l: IVec3) -> u8 {
        self.light_local(l).combined()
    }

    /// Light at world position `p`, or `None` outside the buffer.
    #[inline]
    pub fn get(&self, p: IVec3) -> Option<Light> {
        let l = p - self.min;
        self.contains_local(l).then(|| Light(self.data[self.index_local(l)]))
    }

    /// The light a face sees: that of the voxel the face looks into, at world position
    /// `voxel + normal` (`normal` one of the six unit directions). For a chunk's buffer every
    /// face of every voxel of the chunk has it, border faces included (they look into the
    /// shell); `None` only for a position outside the buffer.
    #[inline]
    pub fn face_light(&self, voxel: IVec3, normal: IVec3) -> Option<Light> {
        self.get(voxel + normal)
    }

    /// Copies the light of `src` over the part of the box `[lo, hi)` that both buffers cover;
    /// returns true when any byte changed.
    pub(crate) fn copy_from(&mut self, src: &LightBuffer, lo: IVec3, hi: IVec3) -> bool {
        let a = max3(max3(self.min, src.min), lo);
        let b = min3(min3(self.max(), src.max()), hi);
        if a.x >= b.x || a.y >= b.y || a.z >= b.z {
            return false;
        }
        let n = (b.x - a.x) as usize;
        let mut changed = false;
        for y in a.y..b.y {
            for z in a.z..b.z {
                let p = IVec3::new(a.x, y, z);
                let d = self.index_local(p - self.min);
                let s = src.index_local(p - src.min);
                let (dst, from) = (&mut self.data[d..d + n], &src.data[s..s + n]);
                if dst != from {
                    dst.copy_from_slice(from);
                    changed = true;
                }
            }
        }
        changed
    }
}

pub(crate) fn max3(a: IVec3, b: IVec3) -> IVec3 {
    IVec3::new(a.x.max(b.x), a.y.max(b.y), a.z.max(b.z))
}

pub(crate) fn min3(a: IVec3, b: IVec3) -> IVec3 {
    IVec3::new(a.x.min(b.x), a.y.min(b.y), a.z.min(b.z))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_and_accessors() {
        let l = Light::new(12, 7);
        assert_eq!((l.sky(), l.block(), l.combined()), (12, 7, 12));
        assert_eq!(Light::new(3, 9).combined(), 9);
        let mut b = LightBuffer::new(IVec3::new(-1, -1, -1), IVec3::splat(4));
        let i = b.index_local(IVec3::new(0, 2, 1));
        b.data_mut()[i] = Light::new(5, 11).0;
        assert_eq!((b.sky(IVec3::new(0, 2, 1)), b.block(IVec3::new(0, 2, 1))), (5, 11));
        assert_eq!(b.get(IVec3::new(-1, 1, 0)), Some(Light::new(5, 11)));
        assert_eq!(b.face_light(IVec3::new(0, 1, 0), IVec3::new(-1, 0, 0)), Some(Light::new(5, 11)));
        assert_eq!(b.get(IVec3::new(3, 0, 0)), None);
    }
}
