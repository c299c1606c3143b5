//! Tunnels: noise "spaghetti" through the ground ([`TunnelField`]).
//!
//! A voxel `p` is tunnel air when `|n₁(p)| < w(p)` and `|n₂(p)| < w(p)` for two independent 3D
//! Perlin fields `n₁, n₂` of wavelength `tunnel_scale` (the intersection of two thin noise bands
//! is a long tube). The width `w(p)` is `tunnel_width` where a third, four times larger noise
//! `g(p)` (mapped to about `[0, 1]`) is below `tunnel_strength`, fading to 0 over 0.1 above it:
//! strength 1 puts tunnels almost everywhere, 0.5 in about half the world, 0 nowhere. The noises
//! ([`TunnelNoise`], [`GridPerlin`] fields of the tunnel salt) are sampled on a world-aligned
//! lattice every [`TUNNEL_LATTICE`] voxels and interpolated trilinearly, so every region sees
//! the same values (law: Seamless).
//!
//! May use: `base`, `preset`, `noise`.

use crate::base::coords::IVec3;
use crate::base::rng::salt;
use crate::noise::fractal::noise_seed;
use crate::noise::grid_perlin::{GridPerlin, PerlinAxis};
use crate::preset::model::CaveSettings;

/// Spacing, in voxels, of the lattice on which tunnel noise is sampled.
pub const TUNNEL_LATTICE: i32 = 4;
/// Vertical frequency multiplier of tunnel noise: tunnels run more horizontally than vertically.
const TUNNEL_Y_SQUASH: f64 = 1.5;
/// Gate values over this band above `tunnel_strength` taper tunnels to nothing.
const TUNNEL_GATE_FADE: f32 = 0.1;

/// Tunnel noise sampled on the lattice points around a box of voxels.
#[derive(Debug)]
pub struct TunnelField {
    /// Lattice index of the first point (world = index · TUNNEL_LATTICE).
    origin: IVec3,
    dims: [usize; 3],
    /// Per point: `n₁`, `n₂`, width `w`.
    values: Vec<[f32; 3]>,
    /// Per lattice cell: whether any voxel inside can be tunnel (exact bound: trilinear values
    /// stay within their corners' range).
    may_open: Vec<bool>,
}

/// The buffers of a [`TunnelField`] and of its computation, reused from field to field so that
/// a chunk allocates none: a field takes its values from here, and [`TunnelField::recycle`]
/// gives them back.
#[derive(Debug, Default)]
pub struct TunnelBuffers {
    values: Vec<[f32; 3]>,
    may_open: Vec<bool>,
    flags: Vec<u8>,
    needed: Vec<bool>,
    highest: Vec<i32>,
    w_max: Vec<f32>,
    band1: Vec<bool>,
    point_rows: Vec<u64>,
    first_points: Vec<usize>,
    has_width: Vec<bool>,
}

/// The three Perlin fields of tunnels (`n₁`, `n₂` and the gate `g`) of one seed. Building them
/// shuffles permutation tables, so a generator builds them once.
#[derive(Clone, Debug)]
pub struct TunnelNoise {
    n1: GridPerlin,
    n2: GridPerlin,
    gate: GridPerlin,
}

impl TunnelNoise {
    pub fn new(seed: u64) -> Self {
        // Field `k` of the tunnel salt: the seed mixed with `k` first, then the salt's seed.
        let field =
            |k: u64| GridPerlin::new(noise_seed(seed ^ k.wrapping_mul(0xd6e8_feb8_6659_fd93), salt::CAVE_TUNNEL));
        Self { n1: field(1), n2: field(2), gate: field(3) }
    }
}

/// Samples a field (`get` at grid coordinates) at every point of a lattice of `dims` flagged
/// `flag`, and stores each value with `store`.
#[inline(always)]
fn sample_flagged(
    dims: [usize; 3],
    flags: &[u8],
    values: &mut [[f32; 3]],
    flag: u8,
    mut get: impl FnMut((usize, usize, usize)) -> f64,
    store: &dyn Fn(f64, &mut [f32; 3]),
) {
    // Points in the lattice's order: x fastest, then z, then y.
    let mut at = 0;
    for j in 0..dims[1] {
        for k in 0..dims[2] {
            for i in 0..dims[0] {
                if flags[at] & flag != 0 {
                    store(get((i, j, k)), &mut values[at]);
                }
                at += 1;
            }
        }
    }
}

/// [`sample_flagged`] of `field` through [`GridPerlin::get_avx2`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn sample_flagged_avx2(
    dims: [usize; 3],
    flags: &[u8],
    values: &mut [[f32; 3]],
    flag: u8,
    field: &GridPerlin,
    axes: [&PerlinAxis; 3],
    store: &dyn Fn(f64, &mut [f32; 3]),
) {
    let mut cube = None;
    sample_flagged(dims, flags, values, flag, |p| field.get_avx2(axes, p, &mut cube), store);
}

/// Flags of a lattice point: which of its values are needed.
const NEED_GATE: u8 = 1;
const NEED_N1: u8 = 2;
const NEED_N2: u8 = 4;

impl TunnelField {
    /// Tunnel noise around voxels `[min, min + size)`; `None` when the preset has no tunnels or
    /// none can open in this box.
    pub fn compute(seed: u64, c: &CaveSettings, min: IVec3, size: IVec3) -> Option<Self> {
        Self::compute_below(&TunnelNoise::new(seed), c, min, size, None, &mut TunnelBuffers::default())
    }

    /// [`TunnelField::compute`] with prebuilt noise, answering only for voxels below given
    /// tops: with `tops` (one world y per voxel column of the box, x fastest), [`TunnelField::is_open`]
    /// is exact for voxels with `y < top` of their column, and other voxels must not be asked
    /// about. Lattice cells wholly at or above the tops of their columns are then skipped, and
    /// each noise is sampled only at the corners of the cells that still need it: the gate
    /// where a cell is needed (and nowhere when its bounds over the lattice close tunnels
    /// everywhere or open them fully everywhere), `n₁` where a corner has width, `n₂` where `n₁`'s band also
    /// crosses the cell. Every value that is sampled is the value [`TunnelField::compute`] has.
    pub fn compute_below(
        noise: &TunnelNoise,
        c: &CaveSettings,
        min: IVec3,
        size: IVec3,
        tops: Option<&[i32]>,
        bufs: &mut TunnelBuffers,
    ) -> Option<Self> {
        if !c.tunnels_active() || size.volume() == 0 {
            return None;
        }
        let l = TUNNEL_LATTICE;
        let lo = IVec3::new(min.x.div_euclid(l), min.y.div_euclid(l), min.z.div_euclid(l));
        let last = min + size - IVec3::ONE;
        let hi = IVec3::new(last.x.div_euclid(l), last.y.div_euclid(l), last.z.div_euclid(l)) + IVec3::ONE;
        let dims = [(hi.x - lo.x + 1) as usize, (hi.y - lo.y + 1) as usize, (hi.z - lo.z + 1) as usize];
        let cell_dims = [dims[0] - 1, dims[1] - 1, dims[2] - 1];
        let point = |i: usize, j: usize, k: usize| (j * dims[2] + k) * dims[0] + i;
        let cell = |i: usize, j: usize, k: usize| (j * cell_dims[2] + k) * cell_dims[0] + i;
        let f = 1.0 / c.tunnel_scale.max(1.0) as f64;
        let world = |i: usize, base: i32| ((base + i as i32) * l) as f64;
        // The noises' coordinates along each axis, as `noise` is given them.
        let axis =
            |n: usize, base: i32, scale: &dyn Fn(f64) -> f64| PerlinAxis::new((0..n).map(|i| scale(world(i, base))));
        let gate_axes = [
            axis(dims[0], lo.x, &|x| x * f * 0.25),
            axis(dims[1], lo.y, &|y| y * f * 0.25 * TUNNEL_Y_SQUASH),
            axis(dims[2], lo.z, &|z| z * f * 0.25),
        ];
        let gate_axes = [&gate_axes[0], &gate_axes[1], &gate_axes[2]];
        // How open tunnels are at gate value `gate`, and their width: both only decrease as
        // `gate` grows (every step rounds monotonically), so the gate's bounds over the
        // lattice bound them. Where the bounds close tunnels everywhere, there is no field (and
        // nothing else is computed); where they open them fully everywhere, every width is the
        // same and no gate is sampled.
        let openness = |gate: f64| {
            let g01 = 0.5 + 0.5 * gate as f32;
            ((c.tunnel_strength - g01) / TUNNEL_GATE_FADE).clamp(0.0, 1.0)
        };
        let width = |open: f32| c.tunnel_width * open * open * (3.0 - 2.0 * open);
        let (gate_lo, gate_hi) = noise.gate.bounds(gate_axes);
        if openness(gate_lo) <= 0.0 {
            return None;
        }
        // Which cells are needed: those starting below the highest top of their voxel columns.
        let n_cells = cell_dims[0] * cell_dims[1] * cell_dims[2];
        let needed = &mut bufs.needed;
        needed.clear();
        needed.resize(n_cells, true);
        if let Some(tops) = tops {
            let (sx, sz) = (size.x as usize, size.z as usize);
            debug_assert_eq!(tops.len(), sx * sz);
            let highest = &mut bufs.highest;
            highest.clear();
            highest.resize(cell_dims[0] * cell_dims[2], i32::MIN);
            for lz in 0..sz {
                let k = ((min.z + lz as i32).div_euclid(l) - lo.z) as usize;
                for lx in 0..sx {
                    let i = ((min.x + lx as i32).div_euclid(l) - lo.x) as usize;
                    let h = &mut highest[k * cell_dims[0] + i];
                    *h = (*h).max(tops[lz * sx + lx]);
                }
            }
            for j in 0..cell_dims[1] {
                let bottom = (lo.y + j as i32) * l;
                for k in 0..cell_dims[2] {
                    for i in 0..cell_dims[0] {
                        needed[cell(i, j, k)] = bottom < highest[k * cell_dims[0] + i];
                    }
                }
            }
        }
        let needed = &bufs.needed;
        let mut values = std::mem::take(&mut bufs.values);
        values.clear();
        values.resize(dims[0] * dims[1] * dims[2], [0.0f32; 3]);
        let flags = &mut bufs.flags;
        flags.clear();
        flags.resize(values.len(), 0);
        // Marks the corners of every cell that `wants` (one flag per cell) with `flag`.
        let corner_offsets = CORNERS.map(|(di, dj, dk)| point(di, dj, dk));
        let point_rows = &mut bufs.point_rows;
        let mut mark = |flags: &mut [u8], flag: u8, wants: &[bool]| {
            if dims[0] <= 64 {
                // Per row of points (j, k), as bits over i: the corners of the wanted cells of
                // the rows of cells (j or j − 1, k or k − 1), which are those cells' bits and
                // the bits one above.
                point_rows.clear();
                point_rows.resize(dims[1] * dims[2], 0);
                for j in 0..cell_dims[1] {
                    for k in 0..cell_dims[2] {
                        let first_cell = cell(0, j, k);
                        let cells = wants[first_cell..first_cell + cell_dims[0]]
                            .iter()
                            .enumerate()
                            .fold(0u64, |m, (i, &w)| m | (w as u64) << i);
                        let corners = cells | cells << 1;
                        for (dj, dk) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                            point_rows[(j + dj) * dims[2] + k + dk] |= corners;
                        }
                    }
                }
                for (row, &bits) in point_rows.iter().enumerate() {
                    let mut bits = bits;
                    while bits != 0 {
                        flags[row * dims[0] + bits.trailing_zeros() as usize] |= flag;
                        bits &= bits - 1;
                    }
                }
                return;
            }
            for j in 0..cell_dims[1] {
                for k in 0..cell_dims[2] {
                    let (first_cell, first_point) = (cell(0, j, k), point(0, j, k));
                    for i in 0..cell_dims[0] {
                        if wants[first_cell + i] {
                            for offset in corner_offsets {
                                flags[first_point + i + offset] |= flag;
                            }
                        }
                    }
                }
            }
        };
        // Samples `field` at every point flagged `flag` (grid coordinates from `axes`) and
        // stores each value with `store`.
        #[cfg(target_arch = "x86_64")]
        let avx2 = crate::base::simd::avx2();
        let sample_points = |flags: &[u8],
                             values: &mut [[f32; 3]],
                             flag: u8,
                             field: &GridPerlin,
                             axes: [&PerlinAxis; 3],
                             store: &dyn Fn(f64, &mut [f32; 3])| {
            #[cfg(target_arch = "x86_64")]
            if avx2 {
                // SAFETY: the CPU has AVX2.
                return unsafe { sample_flagged_avx2(dims, flags, values, flag, field, axes, store) };
            }
            let mut cube = None;
            sample_flagged(dims, flags, values, flag, |p| field.get(axes, p, &mut cube), store);
        };
        mark(flags, NEED_GATE, needed);
        let mut any_width = false;
        if openness(gate_hi) >= 1.0 {
            let full = width(openness(gate_hi));
            for (v, &fl) in values.iter_mut().zip(flags.iter()) {
                if fl & NEED_GATE != 0 {
                    v[2] = full;
                }
            }
        } else {
            sample_points(flags, &mut values, NEED_GATE, &noise.gate, gate_axes, &|gate, v| {
                v[2] = width(openness(gate))
            });
        }
        for (v, &fl) in values.iter().zip(flags.iter()) {
            any_width |= fl & NEED_GATE != 0 && v[2] > 0.0;
        }
        if !any_width {
            bufs.values = values;
            return None;
        }
        // Per cell, over its corners: the largest width, and whether each band can cross it.
        // `first_points` holds, per cell, the point at its (0, 0, 0) corner.
        let first_points = &mut bufs.first_points;
        first_points.clear();
        for j in 0..cell_dims[1] {
            for k in 0..cell_dims[2] {
                let first = point(0, j, k);
                first_points.extend(first..first + cell_dims[0]);
            }
        }
        let first_points = &*first_points;
        let w_max = &mut bufs.w_max;
        w_max.clear();
        w_max.extend(needed.iter().zip(first_points).map(|(&needed, &at)| {
            if !needed {
                return 0.0;
            }
            corner_offsets.iter().fold(0.0f32, |m, &offset| m.max(values[at + offset][2]))
        }));
        let w_max = &*w_max;
        // Whether the band `|v| < w` of value `a` can cross the cell whose first point is `at`:
        // some corner below `w` and some above `−w` (the values are never NaN: samples are
        // clamped to [−1, 1], and points not sampled hold 0).
        let band = |values: &[[f32; 3]], a: usize, w: f32, at: usize| {
            let (mut below, mut above) = (false, false);
            for &offset in &corner_offsets {
                let v = values[at + offset][a];
                below |= v < w;
                above |= v > -w;
            }
            below && above
        };
        let has_width = &mut bufs.has_width;
        has_width.clear();
        has_width.extend(needed.iter().zip(w_max).map(|(&needed, &w)| needed && w > 0.0));
        let has_width = &*has_width;
        mark(flags, NEED_N1, has_width);
        let n1_axes = [
            axis(dims[0], lo.x, &|x| x * f),
            axis(dims[1], lo.y, &|y| y * f * TUNNEL_Y_SQUASH),
            axis(dims[2], lo.z, &|z| z * f),
        ];
        sample_points(flags, &mut values, NEED_N1, &noise.n1, [&n1_axes[0], &n1_axes[1], &n1_axes[2]], &|n, v| {
            v[0] = n as f32
        });
        let band1 = &mut bufs.band1;
        band1.clear();
        band1.extend(
            has_width
                .iter()
                .zip(w_max)
                .zip(first_points)
                .map(|((&has_width, &w), &at)| has_width && band(&values, 0, w, at)),
        );
        let band1 = &*band1;
        mark(flags, NEED_N2, band1);
        let n2_axes = [
            axis(dims[0], lo.x, &|x| x * f + 101.7),
            axis(dims[1], lo.y, &|y| y * f * TUNNEL_Y_SQUASH - 43.1),
            axis(dims[2], lo.z, &|z| z * f + 17.3),
        ];
        sample_points(flags, &mut values, NEED_N2, &noise.n2, [&n2_axes[0], &n2_axes[1], &n2_axes[2]], &|n, v| {
            v[1] = n as f32
        });
        let mut may_open = std::mem::take(&mut bufs.may_open);
        may_open.clear();
        may_open.extend(
            band1.iter().zip(w_max).zip(first_points).map(|((&band1, &w), &at)| band1 && band(&values, 1, w, at)),
        );
        Some(Self { origin: lo, dims, values, may_open })
    }

    /// Gives the field's buffers back to `bufs` for the next field.
    pub fn recycle(self, bufs: &mut TunnelBuffers) {
        (bufs.values, bufs.may_open) = (self.values, self.may_open);
    }

    /// Lattice cells along x, y and z: the size of the grid of [`TunnelField::may_open_cell`].
    #[inline]
    pub fn cell_dims(&self) -> [usize; 3] {
        [self.dims[0] - 1, self.dims[1] - 1, self.dims[2] - 1]
    }

    /// Whether any voxel of lattice cell (`i`, `j`, `k`) (along x, y, z) can be tunnel air.
    #[inline]
    pub fn may_open_cell(&self, i: usize, j: usize, k: usize) -> bool {
        let [cx, _, cz] = self.cell_dims();
        self.may_open[(j * cz + k) * cx + i]
    }

    /// Whether voxel `p` (inside the box given to [`TunnelField::compute`]) is tunnel air.
    #[inline]
    pub fn is_open(&self, p: IVec3) -> bool {
        self.is_open_at(self.axis(0, p.x), self.axis(1, p.y), self.axis(2, p.z))
    }

    /// Lattice cell index along `axis` of world coordinate `v`, and the fraction inside it.
    #[inline]
    pub fn axis(&self, axis: usize, v: i32) -> (usize, f32) {
        let l = TUNNEL_LATTICE;
        let o = [self.origin.x, self.origin.y, self.origin.z][axis];
        ((v.div_euclid(l) - o) as usize, v.rem_euclid(l) as f32 * (1.0 / l as f32))
    }

    /// [`TunnelField::is_open`] at the voxel of lattice coordinates ([`TunnelField::axis`]) on
    /// each axis.
    #[inline]
    pub fn is_open_at(&self, (i, fx): (usize, f32), (j, fy): (usize, f32), (k, fz): (usize, f32)) -> bool {
        let [dx, _, dz] = self.dims;
        if !self.may_open[(j * (dz - 1) + k) * (dx - 1) + i] {
            return false;
        }
        let mut v = [0.0f32; 3];
        for (di, dj, dk) in CORNERS {
            let w = (if di == 1 { fx } else { 1.0 - fx })
                * (if dj == 1 { fy } else { 1.0 - fy })
                * (if dk == 1 { fz } else { 1.0 - fz });
            let c = self.values[((j + dj) * dz + k + dk) * dx + i + di];
            for a in 0..3 {
                v[a] += w * c[a];
            }
        }
        v[0].abs() < v[2] && v[1].abs() < v[2]
    }
}

const CORNERS: [(usize, usize, usize); 8] =
    [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0), (0, 0, 1), (1, 0, 1), (0, 1, 1), (1, 1, 1)];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tunnels_below_tops_equal_the_full_field_there() {
        let c = CaveSettings { tunnel_strength: 1.0, tunnel_width: 0.2, tunnel_scale: 40.0, ..CaveSettings::default() };
        let noise = TunnelNoise::new(9);
        let (min, size) = (IVec3::new(-21, -40, 13), IVec3::new(37, 45, 30));
        let full = TunnelField::compute(9, &c, min, size).unwrap();
        let tops: Vec<i32> = (0..size.x * size.z).map(|i| -40 + (i * 7919 % 53) - 4).collect();
        let below =
            TunnelField::compute_below(&noise, &c, min, size, Some(&tops), &mut TunnelBuffers::default()).unwrap();
        let mut open = 0;
        for lz in 0..size.z {
            for lx in 0..size.x {
                let top = tops[(lz * size.x + lx) as usize];
                for y in min.y..top.min(min.y + size.y) {
                    let p = IVec3::new(min.x + lx, y, min.z + lz);
                    assert_eq!(below.is_open(p), full.is_open(p), "{p:?}");
                    open += full.is_open(p) as usize;
                }
            }
        }
        assert!(open > 0, "no tunnel below the tops");
    }
}
