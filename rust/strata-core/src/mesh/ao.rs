//! Ambient occlusion: the level of each corner of a solid face from the solid voxels around it
//! in the layer in front (0 = fully occluded, 3 = open), as the reference mesher computes it one
//! corner at a time, and as tables and bitwise row operations for the greedy mesher: a face's
//! packed levels from its 3×3 window, whether a row of faces is uniform along `u` and `v` (so
//! they may merge), and the corner colours of a packed level.
//!
//! May use: `base` and the other `mesh` modules.

#[cfg(target_arch = "x86_64")]
use crate::base::simd::AVX2;
use crate::mesh::layout::{Axis, Orientation, axis_of};
use crate::mesh::types::FACES;

/// Brightness of an AO level (0 = fully occluded, 3 = open).
pub(super) const AO_LEVELS: [f32; 4] = [0.55, 0.7, 0.85, 1.0];

/// The AO level of an unoccluded corner.
pub(super) const AO_OPEN: usize = 3;

/// AO level of a corner from the three neighbours around it.
const fn corner_level(side1: bool, side2: bool, corner: bool) -> u8 {
    if side1 && side2 { 0 } else { 3 - (side1 as u8 + side2 as u8 + corner as u8) }
}

/// Per-vertex ambient occlusion from the three neighbours around a corner (0.55 = fully occluded).
pub(super) fn corner_ao(side1: bool, side2: bool, corner: bool) -> f32 {
    AO_LEVELS[corner_level(side1, side2, corner) as usize]
}

/// The eight neighbours in the layer in front of a face, as `(du, dv)` along the face's `u`, `v`
/// axes; bit `k` of a neighbour pattern is neighbour `k`.
const NEIGHBOURS: [(i32, i32); 8] = [(-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (1, -1), (1, 1), (-1, 1)];

/// For each corner `(-1,-1), (1,-1), (1,1), (-1,1)`: its two side neighbours and its diagonal one,
/// as indices into [`NEIGHBOURS`].
const CORNER_NEIGHBOURS: [(usize, usize, usize); 4] = [(0, 2, 4), (1, 2, 5), (1, 3, 6), (0, 3, 7)];

const fn bit(p: usize, k: usize) -> bool {
    (p >> k) & 1 == 1
}

/// Packed AO of a face's four corners (2 bits each, corner `k` at bits `2k`) from its window: the
/// 3×3 solid bits of the layer in front of it, bit `(dv + 1) * 3 + (du + 1)` for the voxel at
/// `(du, dv)` (the centre is ignored).
static AO_WINDOW: [u8; 512] = {
    let mut t = [0u8; 512];
    let mut w = 0;
    while w < 512 {
        let mut around = [false; 8];
        let mut k = 0;
        while k < 8 {
            let (du, dv) = NEIGHBOURS[k];
            around[k] = bit(w, ((dv + 1) * 3 + du + 1) as usize);
            k += 1;
        }
        let mut packed = 0u8;
        let mut c = 0;
        while c < 4 {
            let (s1, s2, d) = CORNER_NEIGHBOURS[c];
            packed |= corner_level(around[s1], around[s2], around[d]) << (2 * c);
            c += 1;
        }
        t[w] = packed;
        w += 1;
    }
    t
};

/// Brightness of the four corners of a face with packed AO `p`.
static AO_CORNER_LEVELS: [[f32; 4]; 256] = {
    let mut t = [[0.0; 4]; 256];
    let mut p = 0;
    while p < 256 {
        t[p] = [AO_LEVELS[p & 3], AO_LEVELS[(p >> 2) & 3], AO_LEVELS[(p >> 4) & 3], AO_LEVELS[(p >> 6) & 3]];
        p += 1;
    }
    t
};

/// [`AO_WINDOW`] for windows with `u` and `v` swapped: bit `(du + 1) * 3 + (dv + 1)` is the voxel
/// at `(du, dv)`.
static AO_WINDOW_UV_SWAPPED: [u8; 512] = {
    let mut t = [0u8; 512];
    let mut w = 0;
    while w < 512 {
        let mut swapped = 0;
        let mut a = 0;
        while a < 3 {
            let mut b = 0;
            while b < 3 {
                if bit(w, a * 3 + b) {
                    swapped |= 1 << (b * 3 + a);
                }
                b += 1;
            }
            a += 1;
        }
        t[w] = AO_WINDOW[swapped];
        w += 1;
    }
    t
};

/// Whether a face with packed AO `p` is split along the diagonal 1–3 (see
/// [`QUAD_TRIANGLES`](crate::mesh::types::QUAD_TRIANGLES)): exactly the float comparison
/// [`MeshSurface::push_quad`](crate::mesh::MeshSurface::push_quad) makes.
pub(super) static AO_FLIP: [bool; 256] = {
    let mut t = [false; 256];
    let mut p = 0;
    while p < 256 {
        let l = AO_CORNER_LEVELS[p];
        t[p] = l[0] + l[2] < l[1] + l[3];
        p += 1;
    }
    t
};

/// The four corner colours of a solid face with packed AO `ao`: corner `k` takes the shade of its
/// level (bits `2k`, `2k + 1`). The AVX2 builds (`SIMD`) pick all four bytes at once.
#[inline(always)]
pub(super) fn corner_shades<const SIMD: u8>(shades: &[[u8; 4]; 4], ao: usize) -> [[u8; 4]; 4] {
    #[cfg(target_arch = "x86_64")]
    if SIMD >= AVX2 {
        // SAFETY: `SIMD` code at `AVX2` or above runs only on CPUs with AVX2 (checked at run time), so with SSSE3.
        return unsafe { corner_shades_ssse3(shades, ao) };
    }
    [0, 2, 4, 6].map(|k| shades[(ao >> k) & 3])
}

/// [`corner_shades`] as one byte shuffle of the 16 shade bytes by [`AO_SHADE_SHUFFLE`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
#[inline]
fn corner_shades_ssse3(shades: &[[u8; 4]; 4], ao: usize) -> [[u8; 4]; 4] {
    use std::arch::x86_64::{__m128i, _mm_shuffle_epi8};
    // SAFETY: both are 16 plain bytes, the size of `__m128i`, and any bits are valid in each.
    let (table, pick) = unsafe {
        (
            std::mem::transmute::<[[u8; 4]; 4], __m128i>(*shades),
            std::mem::transmute::<[u8; 16], __m128i>(AO_SHADE_SHUFFLE[ao & 255]),
        )
    };
    // SAFETY: as above.
    unsafe { std::mem::transmute::<__m128i, [[u8; 4]; 4]>(_mm_shuffle_epi8(table, pick)) }
}

/// For packed AO `p`, the byte shuffle that gives each corner `k` (bytes `4k..4k + 4`) the four
/// bytes of the shade of its level (bytes `4 level..4 level + 4` of the shades).
#[cfg(target_arch = "x86_64")]
static AO_SHADE_SHUFFLE: [[u8; 16]; 256] = {
    let mut t = [[0u8; 16]; 256];
    let mut p = 0;
    while p < 256 {
        let mut k = 0;
        while k < 4 {
            let level = (p >> (2 * k)) & 3;
            let mut j = 0;
            while j < 4 {
                t[p][4 * k + j] = (4 * level + j) as u8;
                j += 1;
            }
            k += 1;
        }
        p += 1;
    }
    t
};

/// Row `w` shifted so bit `b` holds the voxel at `b + db` (`db` in -1..=1).
#[inline(always)]
fn shift_bits(w: u64, db: i32) -> u64 {
    match db {
        1 => w >> 1,
        -1 => w << 1,
        _ => w,
    }
}

/// The solid rows of the eight neighbours in [`NEIGHBOURS`] order in the layer in front of the
/// faces of direction `D` of padded row `i`, aligned so bit `b` is the neighbour of face `b`.
#[inline(always)]
pub(super) fn neighbours_in_front<const D: usize>(solid: &[u64], i: usize, o: Orientation) -> [u64; 8] {
    let (front, step) = ((i as isize + o.across) as usize, o.row_step as usize);
    // Three rows (one step each way along the axis that is not the bits), each shifted along the
    // bits; one range check for the three.
    let window = &solid[front - step..=front + step];
    let rows = [window[0], window[step], window[2 * step]];
    let mut around = [0u64; 8];
    for (n, &(du, dv)) in around.iter_mut().zip(&NEIGHBOURS) {
        let (along_rows, along_bits) = if o.u_along_bits { (dv, du) } else { (du, dv) };
        *n = shift_bits(rows[(along_rows + 1) as usize], along_bits);
    }
    around
}

/// Packed AO (see [`AO_WINDOW`]) of the face of direction `D` at padded voxel `voxel`, from the
/// solid rows of its orientation (`stride` rows per y layer).
///
/// # Safety
/// `voxel` must be an interior voxel of the padded box, and `solid` must hold all its rows
/// (`py * stride`), so the three rows of the window in front are inside `solid`.
#[inline(always)]
pub(super) unsafe fn ao_of_face<const D: usize>(solid: &[u64], [x, y, z]: [usize; 3], stride: usize) -> u8 {
    let normal = FACES[D].0;
    let (front_y, front_x, front_z) =
        ((y as i32 + normal.y) as usize, (x as i32 + normal.x) as usize, (z as i32 + normal.z) as usize);
    // Three rows of the 3×3 window in front (the first, and the step to the next), three bits
    // from each.
    let (first, step, bit) = match axis_of(normal) {
        // Rows (y, x) along z: y steps (u), bits z (v).
        Axis::X => ((front_y - 1) * stride + front_x, stride, front_z),
        // Rows (y, z) along x: z steps (v), bits x (u).
        Axis::Y => (front_y * stride + front_z - 1, 1, front_x),
        // Rows (y, z) along x: y steps (v), bits x (u).
        Axis::Z => ((front_y - 1) * stride + front_z, stride, front_x),
    };
    debug_assert!(first + 2 * step < solid.len());
    // SAFETY: the window's rows are those of the padded box around an interior voxel, inside
    // `solid` (the caller's promise).
    let row = |k: usize| unsafe { *solid.get_unchecked(first + k * step) };
    let window = [row(0), row(1), row(2)]
        .iter()
        .enumerate()
        .fold(0, |w, (k, &r)| w | (((r >> (bit - 1)) & 7) as usize) << (3 * k));
    // The x directions' windows come with u and v swapped.
    if axis_of(normal) == Axis::X { AO_WINDOW_UV_SWAPPED[window] } else { AO_WINDOW[window] }
}

/// AO uniformity of a row of faces, from the eight neighbour rows in front (aligned, in
/// [`NEIGHBOURS`] order): bit `b` of the first mask is set where face `b` has the same AO level at
/// both ends of its edges along `u` (corners 0 = 1 and 3 = 2), of the second where it has along
/// `v` (corners 0 = 3 and 1 = 2); both are set where there is no solid face (`solid_faces`).
///
/// This is all the merge needs: for solid faces, a corner's level depends only on the four
/// voxels around that vertex in the layer in front (the face's own front voxel is never solid),
/// so two faces side by side in a slice always agree on their two shared corners, and their four
/// levels are equal exactly when both are uniform along the direction that joins them.
#[inline(always)]
pub(super) fn ao_uniformity(around: [u64; 8], solid_faces: u64) -> (u64, u64) {
    let mut lo = [0u64; 4];
    let mut hi = [0u64; 4];
    for (k, &(a, b, c)) in CORNER_NEIGHBOURS.iter().enumerate() {
        let (s1, s2, d) = (around[a], around[b], around[c]);
        let both = s1 & s2;
        // `3 - level` in two bits: 3 when both sides are solid, else the number of occluders.
        lo[k] = (s1 ^ s2 ^ d) | both;
        hi[k] = both | (d & (s1 | s2));
    }
    let differ = |p: usize, q: usize| (lo[p] ^ lo[q]) | (hi[p] ^ hi[q]);
    let no_ao = !solid_faces;
    (!(differ(0, 1) | differ(3, 2)) | no_ao, !(differ(0, 3) | differ(1, 2)) | no_ao)
}
