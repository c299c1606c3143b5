//! How a direction's faces lie in the greedy mesher's bit rows: the padded box's sizes, each
//! direction's row orientation (rows along x for the y and z faces, along z for the x faces) and
//! slices, and where a merged quad sits in voxels.
//!
//! May use: `base` and the other `mesh` modules.

use crate::base::coords::IVec3;
use crate::mesh::types::FACES;

/// Widest padded box (per axis) the bit-mask mesher handles: one `u64` per row.
pub(super) const MAX_PADDED: i32 = 64;

/// Which axis a face direction is normal to: the merge slices run along it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Axis {
    X,
    Y,
    Z,
}

pub(super) const fn axis_of(n: IVec3) -> Axis {
    if n.x != 0 {
        Axis::X
    } else if n.y != 0 {
        Axis::Y
    } else {
        Axis::Z
    }
}

/// Index (0 = x, 1 = y, 2 = z) of the axis a unit vector runs along.
pub(super) const fn axis_index(a: IVec3) -> usize {
    if a.x != 0 {
        0
    } else if a.y != 0 {
        1
    } else {
        2
    }
}

/// Sizes of the padded box and of its interior (`n* = p* - 2`).
#[derive(Clone, Copy)]
pub(super) struct Dims {
    pub(super) px: usize,
    pub(super) py: usize,
    pub(super) pz: usize,
    pub(super) nx: usize,
    pub(super) ny: usize,
    pub(super) nz: usize,
}

/// How the rows of direction `D`'s orientation lie: the y and z directions use rows along x
/// (index `y * pz + z`, bit x); the x directions use rows along z (index `y * px + x`, bit z), so
/// that every direction's faces sit in rows running inside its slices.
#[derive(Clone, Copy)]
pub(super) struct Orientation {
    /// Rows per y layer (`pz`, or `px` for the x directions).
    pub(super) stride: usize,
    /// Interior rows per y layer and interior bits per row.
    pub(super) rows: usize,
    pub(super) bits: usize,
    /// Row delta to the voxel across the face.
    pub(super) across: isize,
    /// Whether the face's `u` axis runs along the bits (else `v` does).
    pub(super) u_along_bits: bool,
    /// Row delta of one step along whichever of `u` and `v` does not run along the bits.
    pub(super) row_step: isize,
    /// Step in the voxel array of one bit, and of one row of this direction's slices.
    pub(super) data_bit_step: usize,
    pub(super) data_row_step: usize,
}

impl Orientation {
    #[inline(always)]
    pub(super) fn of<const D: usize>(dims: Dims) -> Self {
        let Dims { px, pz, nx, nz, .. } = dims;
        let normal = FACES[D].0;
        match axis_of(normal) {
            // Rows along z, indexed (y, x); slices x, rows y (= u), bits z (= v).
            Axis::X => Self {
                stride: px,
                rows: nx,
                bits: nz,
                across: normal.x as isize,
                u_along_bits: false,
                row_step: px as isize,
                data_bit_step: px,
                data_row_step: px * pz,
            },
            // Rows along x, indexed (y, z); slices y, rows z (= v), bits x (= u).
            Axis::Y => Self {
                stride: pz,
                rows: nz,
                bits: nx,
                across: normal.y as isize * pz as isize,
                u_along_bits: true,
                row_step: 1,
                data_bit_step: 1,
                data_row_step: px,
            },
            // Rows along x, indexed (y, z); slices z, rows y (= v), bits x (= u).
            Axis::Z => Self {
                stride: pz,
                rows: nz,
                bits: nx,
                across: normal.z as isize,
                u_along_bits: true,
                row_step: pz as isize,
                data_bit_step: 1,
                data_row_step: px * pz,
            },
        }
    }

    /// Interior bits of a padded row.
    pub(super) fn interior(self) -> u64 {
        ((1u64 << self.bits) - 1) << 1
    }

    /// The padded rows of the interior's y layers (halo rows of each layer included).
    pub(super) fn layer_rows(self, dims: Dims) -> std::ops::Range<usize> {
        self.stride..(dims.ny + 1) * self.stride
    }

    /// Index in the voxel array of bit 0 of padded row `w` of layer `y`.
    pub(super) fn data_base(self, y: usize, w: usize, dims: Dims) -> usize {
        if self.data_bit_step == 1 { (y * self.stride + w) * dims.px } else { y * dims.pz * dims.px + w }
    }
}

/// How one direction's faces lie in its row arrays: `layers` slices of `rows` rows, row `r` of
/// slice `l` at `origin + l * layer_step + r * row_step`.
#[derive(Clone, Copy)]
pub(super) struct SliceLayout {
    pub(super) origin: usize,
    pub(super) layers: usize,
    pub(super) rows: usize,
    pub(super) layer_step: usize,
    pub(super) row_step: usize,
}

impl SliceLayout {
    /// Direction `D`'s slices: slice, row and bit are interior coordinates.
    pub(super) fn of<const D: usize>(dims: Dims) -> Self {
        let Dims { px, pz, nx, ny, nz, .. } = dims;
        match axis_of(FACES[D].0) {
            // Rows (y, x): slice x, rows y, bits z.
            Axis::X => Self { origin: px + 1, layers: nx, rows: ny, layer_step: 1, row_step: px },
            // Rows (y, z): slice y, rows z, bits x.
            Axis::Y => Self { origin: pz + 1, layers: ny, rows: nz, layer_step: pz, row_step: 1 },
            // Rows (y, z): slice z, rows y, bits x.
            Axis::Z => Self { origin: pz + 1, layers: nz, rows: ny, layer_step: 1, row_step: pz },
        }
    }
}

/// A merged quad in slice terms (see [`SliceLayout`]): slice, row, first bit, width (bits) and
/// height (rows).
#[derive(Clone, Copy)]
pub(super) struct SliceQuad {
    pub(super) layer: usize,
    pub(super) row: usize,
    pub(super) bit: usize,
    pub(super) width: usize,
    pub(super) height: usize,
}

/// A merged quad in voxel terms: its first face's voxel (padded coordinates) and its extents along
/// the face's `u` and `v` axes.
pub(super) struct QuadPlacement {
    pub(super) voxel: [usize; 3],
    pub(super) extent_u: usize,
    pub(super) extent_v: usize,
}

impl QuadPlacement {
    /// From slice coordinates (see [`SliceLayout`]) for direction `D`.
    #[inline(always)]
    pub(super) fn new<const D: usize>(quad: SliceQuad) -> Self {
        let SliceQuad { layer, row, bit, width, height } = quad;
        let (voxel, extent_u, extent_v) = match axis_of(FACES[D].0) {
            Axis::X => ([layer + 1, row + 1, bit + 1], height, width),
            Axis::Y => ([bit + 1, layer + 1, row + 1], width, height),
            Axis::Z => ([bit + 1, row + 1, layer + 1], width, height),
        };
        Self { voxel, extent_u, extent_v }
    }

    /// Corners `(0,0), (1,0), (1,1), (0,1)` in `u`, `v` units, relative to the chunk's minimum
    /// corner.
    #[inline(always)]
    pub(super) fn corners<const D: usize>(&self) -> [[f32; 3]; 4] {
        let (normal, u, v) = FACES[D];
        let (ui, vi) = (axis_index(u), axis_index(v));
        let lift = [normal.x.max(0), normal.y.max(0), normal.z.max(0)];
        // Padded voxel − 1 + lift: the face plane's corner.
        let corner = |k: usize| (self.voxel[k] as i32 - 1 + lift[k]) as f32;
        let p0 = [corner(0), corner(1), corner(2)];
        let (eu, ev) = (self.extent_u as f32, self.extent_v as f32);
        let mut p1 = p0;
        p1[ui] += eu;
        let mut p2 = p1;
        p2[vi] += ev;
        let mut p3 = p0;
        p3[vi] += ev;
        [p0, p1, p2, p3]
    }
}

/// The offset in a padded box's data (x fastest, then z, then y) from a voxel to its neighbour
/// across its face of direction `D`.
#[inline(always)]
pub(super) const fn front_offset<const D: usize>(dims: Dims) -> isize {
    let n = crate::mesh::types::FACES[D].0;
    n.x as isize + n.z as isize * dims.px as isize + n.y as isize * (dims.px * dims.pz) as isize
}

/// Where step 4's quads go. A method rather than a closure so that the quad writer is inlined
/// into the build that calls it (a closure is compiled with the target features of the function
/// it is written in, and is not always inlined).
pub(super) trait QuadSink {
    fn emit(&mut self, quad: SliceQuad);
}

impl<F: FnMut(SliceQuad)> QuadSink for F {
    #[inline(always)]
    fn emit(&mut self, quad: SliceQuad) {
        self(quad)
    }
}
