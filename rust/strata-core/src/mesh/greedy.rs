//! [`Mesher`], the binary greedy mesher: its reusable scratch, and steps 1 to 4 of the module's
//! outline (class masks, visible faces, merge masks, greedy merge), each direction compiled on
//! its own so its offsets are constants. Step 5 is [`crate::mesh::quads`]'s, the collision pass
//! [`crate::mesh::collision`]'s.
//!
//! May use: `base` and the other `mesh` modules.

use crate::base::block::{self, BlockId};
use crate::base::chunk::VoxelBuffer;
use crate::mesh::ao::{AO_LEVELS, ao_uniformity, neighbours_in_front};
use crate::mesh::culled::mesh_padded_chunk_culled_with;
use crate::mesh::layout::{Axis, Dims, MAX_PADDED, Orientation, SliceLayout, SliceQuad, axis_of};
use crate::mesh::quads::{QuadLooks, QuadWriter};
use crate::mesh::transpose::transpose_layers;
use crate::mesh::types::{ChunkMesh, FACE_SHADE, FACES, LIQUID_ALPHA, rgba8};
#[cfg(target_arch = "x86_64")]
use crate::mesh::voxels::class_rows_wide;
use crate::mesh::voxels::{CLASS_AIR, CLASS_LIQUID, CLASS_SOLID, bit_range, flat_masks, same_blocks};

/// Whether this thread may run the AVX2 and BMI build of the mesher (see [`crate::base::simd`]; the
/// CPU's features are checked once, then cached).
#[cfg(target_arch = "x86_64")]
pub(super) fn wide_simd_available() -> bool {
    crate::base::simd::avx2()
        && std::is_x86_feature_detected!("bmi1")
        && std::is_x86_feature_detected!("bmi2")
        && std::is_x86_feature_detected!("lzcnt")
        && std::is_x86_feature_detected!("popcnt")
}

/// Solid, liquid and air masks of the padded box in one orientation (see [`Orientation`]).
#[derive(Default)]
struct ClassRows {
    solid: Vec<u64>,
    liquid: Vec<u64>,
    air: Vec<u64>,
}

/// One direction's visible faces and merge masks, in its orientation's padded rows (bit `b - 1`
/// for padded bit `b`; rows of the halo hold leftovers).
#[derive(Default)]
pub(super) struct DirectionFaces {
    pub(super) solid: Vec<u64>,
    liquid: Vec<u64>,
    /// The face may merge with the next one along the row (`along`) or with the one in the next
    /// row of its slice (`across`); only meaningful where both faces exist.
    along: Vec<u64>,
    across: Vec<u64>,
    /// Which rows hold faces: per y layer (bit = interior row), and per slice (bit = row of the
    /// slice). A superset once merging has taken faces from later rows.
    layer_rows: Vec<u64>,
    pub(super) slice_rows: Vec<u64>,
}

/// Reusable scratch for the binary greedy mesher. Keep one per worker thread and call
/// [`Mesher::mesh`] (or [`Mesher::collision_faces`]) for each chunk: after the first chunk it
/// allocates nothing.
pub struct Mesher {
    /// Class masks in rows along x (for the y and z directions) and along z (for x).
    along_x: ClassRows,
    along_z: ClassRows,
    /// Whether this box's liquid faces are meshed (rendering, and the interior holds liquid):
    /// only then are the liquid and air rows along z up to date.
    liquid_faces: bool,
    /// Masks over the flat voxel array (64 voxels a word, a spare zero word at the end), before
    /// they are cut into rows: equal to air, and equal to the liquid.
    flat_air: Vec<u64>,
    flat_liquid: Vec<u64>,
    /// One direction's faces and merge masks.
    pub(super) faces: DirectionFaces,
    /// AO uniformity of the previous y layer's faces, per row, for the merge masks across y.
    layer_uniformity: Vec<u64>,
    /// Class of each block id below `BLOCK_COUNT`, then the class of unknown ids.
    class: Vec<u8>,
    /// Colour of each block id below `BLOCK_COUNT` (then of unknown ids) per face direction and
    /// AO level, in RGBA8 ([`rgba8`]): shaded, darkened by the level's brightness, with the
    /// surface's alpha. Liquid faces take the open level (brightness one).
    colors: Vec<[[[u8; 4]; 4]; 6]>,
    /// Set when the only non-solid ids are air and this one liquid (fast voxel pass).
    single_liquid: Option<BlockId>,
    /// Whether solid faces carry ambient occlusion (see [`Mesher::set_ambient_occlusion`]).
    ambient_occlusion: bool,
}

impl Default for Mesher {
    fn default() -> Self {
        Self::new()
    }
}

impl Mesher {
    pub fn new() -> Self {
        let count = block::BLOCK_COUNT as usize;
        let class: Vec<u8> = (0..=count)
            .map(|id| {
                let info = block::block_info(id as BlockId);
                if id == block::AIR as usize {
                    CLASS_AIR
                } else if info.solid {
                    CLASS_SOLID
                } else if info.liquid {
                    CLASS_LIQUID
                } else {
                    0
                }
            })
            .collect();
        let non_solid: Vec<usize> = (1..=count).filter(|&id| class[id] != CLASS_SOLID).collect();
        let single_liquid = match non_solid.as_slice() {
            [l] if class[*l] == CLASS_LIQUID => Some(*l as BlockId),
            _ => None,
        };
        let colors = (0..=count)
            .map(|id| {
                let info = block::block_info(id as BlockId);
                let [r, g, b] = info.color;
                let alpha = if info.liquid { LIQUID_ALPHA } else { 1.0 };
                std::array::from_fn(|d| {
                    let shade = FACE_SHADE[d];
                    let color = [r * shade, g * shade, b * shade, alpha];
                    // `color * [s, s, s, 1]`, as the reference mesher scales it.
                    AO_LEVELS.map(|s| rgba8([color[0] * s, color[1] * s, color[2] * s, color[3]]))
                })
            })
            .collect();
        Self {
            along_x: ClassRows::default(),
            along_z: ClassRows::default(),
            liquid_faces: false,
            flat_air: Vec::new(),
            flat_liquid: Vec::new(),
            faces: DirectionFaces::default(),
            layer_uniformity: Vec::new(),
            class,
            colors,
            single_liquid,
            ambient_occlusion: true,
        }
    }

    /// Turns the ambient occlusion of solid faces on (the default) or off. Off, every face is lit
    /// as if open (the brightest AO level) and neighbouring faces merge whenever they hold the same
    /// block, as in a plain greedy mesher: far fewer quads, for slower machines or a flat look.
    pub fn set_ambient_occlusion(&mut self, on: bool) {
        self.ambient_occlusion = on;
    }

    pub fn ambient_occlusion(&self) -> bool {
        self.ambient_occlusion
    }

    /// Meshes the interior of `padded` (all but its one-voxel halo) into `out`, reusing its
    /// buffers. The result shows exactly the faces of
    /// [`mesh_padded_chunk_culled`](crate::mesh::mesh_padded_chunk_culled), merged.
    pub fn mesh(&mut self, padded: &VoxelBuffer, out: &mut ChunkMesh) {
        #[cfg(target_arch = "x86_64")]
        if wide_simd_available() {
            // SAFETY: the CPU has every feature `mesh_wide` is compiled for (checked just above).
            unsafe { self.mesh_wide(padded, out) };
            return;
        }
        if self.ambient_occlusion {
            self.mesh_with::<false, true>(padded, out);
        } else {
            self.mesh_with::<false, false>(padded, out);
        }
    }

    /// [`Mesher::mesh`] compiled for AVX2 and BMI (same code, same results, fewer instructions).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
    fn mesh_wide(&mut self, padded: &VoxelBuffer, out: &mut ChunkMesh) {
        if self.ambient_occlusion {
            self.mesh_with::<true, true>(padded, out);
        } else {
            self.mesh_with::<true, false>(padded, out);
        }
    }

    /// The mesher; `WIDE` (only in the builds for AVX2 and BMI2) also uses those explicitly; `AO`
    /// is [`Mesher::ambient_occlusion`].
    #[inline(always)]
    fn mesh_with<const WIDE: bool, const AO: bool>(&mut self, padded: &VoxelBuffer, out: &mut ChunkMesh) {
        out.clear();
        let p = padded.size();
        if p.x > MAX_PADDED || p.y > MAX_PADDED || p.z > MAX_PADDED {
            mesh_padded_chunk_culled_with(padded, out, AO);
            return;
        }
        let Some(dims) = self.prepare::<WIDE>(padded, true) else {
            return;
        };
        let data = padded.data();
        self.render_direction::<0, WIDE, AO>(data, dims, out);
        self.render_direction::<1, WIDE, AO>(data, dims, out);
        self.render_direction::<2, WIDE, AO>(data, dims, out);
        self.render_direction::<3, WIDE, AO>(data, dims, out);
        self.render_direction::<4, WIDE, AO>(data, dims, out);
        self.render_direction::<5, WIDE, AO>(data, dims, out);
    }

    /// Step 1 and the scratch: class masks in both orientations (liquid and air only `with_liquid`
    /// and where there is liquid). `None` when there is nothing to mesh: a box too thin for an
    /// interior, or an interior without anything that could show a face.
    #[inline(always)]
    pub(super) fn prepare<const WIDE: bool>(&mut self, padded: &VoxelBuffer, with_liquid: bool) -> Option<Dims> {
        let p = padded.size();
        if p.min_elem() < 3 {
            return None;
        }
        let (px, py, pz) = (p.x as usize, p.y as usize, p.z as usize);
        let dims = Dims { px, py, pz, nx: px - 2, ny: py - 2, nz: pz - 2 };
        let (has_faces, has_liquid) = self.pack_rows::<WIDE>(padded, dims);
        if !has_faces {
            return None;
        }
        self.liquid_faces = with_liquid && has_liquid;
        let rows = py * px.max(pz);
        let f = &mut self.faces;
        for v in [&mut f.solid, &mut f.liquid, &mut f.along, &mut f.across] {
            if v.len() < rows {
                v.resize(rows, 0);
            }
        }
        let layers = px.max(py).max(pz);
        for v in [&mut f.layer_rows, &mut f.slice_rows, &mut self.layer_uniformity] {
            if v.len() < layers {
                v.resize(layers, 0);
            }
        }
        let (a, b) = (&self.along_x, &mut self.along_z);
        transpose_layers::<WIDE>(&a.solid, &mut b.solid, dims);
        if self.liquid_faces {
            transpose_layers::<WIDE>(&a.liquid, &mut b.liquid, dims);
            transpose_layers::<WIDE>(&a.air, &mut b.air, dims);
        }
        Some(dims)
    }

    /// Packs the padded box into rows along x. Returns whether the interior holds anything that
    /// could show a face (not all air, nor only invisible blocks), and whether it holds liquid.
    #[inline(always)]
    fn pack_rows<const WIDE: bool>(&mut self, padded: &VoxelBuffer, dims: Dims) -> (bool, bool) {
        let Dims { px, py, pz, .. } = dims;
        let rows = py * pz;
        let ClassRows { solid, liquid, air } = &mut self.along_x;
        for v in [&mut *solid, &mut *liquid, &mut *air] {
            if v.len() < rows {
                v.resize(rows, 0);
            }
        }
        let data = padded.data();
        let full = if px == 64 { !0u64 } else { (1u64 << px) - 1 };
        match self.single_liquid {
            #[cfg(target_arch = "x86_64")]
            Some(liquid_id) if WIDE && px >= 16 => {
                // SAFETY: `WIDE` is only set in the builds compiled for AVX2 and BMI2, which run
                // only on CPUs that have them.
                unsafe {
                    class_rows_wide(data, px, liquid_id, &mut solid[..rows], &mut liquid[..rows], &mut air[..rows])
                };
            }
            Some(liquid_id) => {
                flat_masks(data, liquid_id, &mut self.flat_air, &mut self.flat_liquid);
                let mut start = 0;
                for ((s, l), a) in solid[..rows].iter_mut().zip(&mut liquid[..rows]).zip(&mut air[..rows]) {
                    *a = bit_range(&self.flat_air, start, full);
                    *l = bit_range(&self.flat_liquid, start, full);
                    *s = !(*a | *l) & full;
                    start += px;
                }
            }
            None => {
                let last = self.class.len() - 1;
                for (((row, s), l), a) in
                    data.chunks_exact(px).zip(&mut solid[..rows]).zip(&mut liquid[..rows]).zip(&mut air[..rows])
                {
                    let (mut sm, mut lm, mut am) = (0u64, 0u64, 0u64);
                    for (x, &id) in row.iter().enumerate() {
                        let c = self.class[(id as usize).min(last)];
                        sm |= ((c & CLASS_SOLID) as u64) << x;
                        lm |= (((c & CLASS_LIQUID) >> 1) as u64) << x;
                        am |= (((c & CLASS_AIR) >> 2) as u64) << x;
                    }
                    *s = sm;
                    *l = lm;
                    *a = am;
                }
            }
        }
        let interior = full & !1 & !(1u64 << (px - 1));
        let (mut visible, mut wet) = (0u64, 0u64);
        for y in 1..py - 1 {
            for z in 1..pz - 1 {
                visible |= solid[y * pz + z] | liquid[y * pz + z];
                wet |= liquid[y * pz + z];
            }
        }
        (visible & interior != 0, wet & interior != 0)
    }

    /// Step 2 for direction `D`: visible faces of the interior's y layers into the face arrays
    /// (liquid faces too unless `SOLID_ONLY`), and which rows hold any. Returns whether there are
    /// any solid and any liquid faces.
    #[inline(always)]
    pub(super) fn collect_faces<const D: usize, const SOLID_ONLY: bool>(&mut self, dims: Dims) -> (bool, bool) {
        let o = Orientation::of::<D>(dims);
        let class = if axis_of(FACES[D].0) == Axis::X { &self.along_z } else { &self.along_x };
        let interior = o.interior();
        let range = o.layer_rows(dims);
        let beyond = (range.start as isize + o.across) as usize..(range.end as isize + o.across) as usize;
        let (mut any_solid, mut any_liquid) = (0u64, 0u64);
        let f = &mut self.faces;
        for ((out, &s), &n) in
            f.solid[range.clone()].iter_mut().zip(&class.solid[range.clone()]).zip(&class.solid[beyond.clone()])
        {
            let faces = s & !n & interior;
            *out = faces >> 1;
            any_solid |= faces;
        }
        if !SOLID_ONLY && self.liquid_faces {
            for ((out, &l), &a) in
                f.liquid[range.clone()].iter_mut().zip(&class.liquid[range.clone()]).zip(&class.air[beyond])
            {
                let faces = l & a & interior;
                *out = faces >> 1;
                any_liquid |= faces;
            }
        }
        let with_liquid = !SOLID_ONLY && any_liquid != 0;
        // Which rows of each y layer hold faces.
        let Dims { ny, .. } = dims;
        for (y0, rows) in f.layer_rows[..ny].iter_mut().enumerate() {
            let first = (y0 + 1) * o.stride + 1;
            let solid = &f.solid[first..first + o.rows];
            *rows = if with_liquid {
                let liquid = &f.liquid[first..first + o.rows];
                solid.iter().zip(liquid).enumerate().fold(0, |m, (r, (&s, &l))| m | (((s | l) != 0) as u64) << r)
            } else {
                solid.iter().enumerate().fold(0, |m, (r, &s)| m | ((s != 0) as u64) << r)
            };
        }
        // And of each slice, for the merge.
        if axis_of(FACES[D].0) == Axis::Y {
            f.slice_rows[..ny].copy_from_slice(&f.layer_rows[..ny]);
        } else {
            // Slices across the layers (x or z): transpose the occupancy.
            f.slice_rows[..o.rows].fill(0);
            for (y0, &rows) in f.layer_rows[..ny].iter().enumerate() {
                let mut left = rows;
                while left != 0 {
                    f.slice_rows[left.trailing_zeros() as usize] |= 1 << y0;
                    left &= left - 1;
                }
            }
        }
        (any_solid != 0, with_liquid)
    }

    /// Render mesh of direction `D` of [`FACES`] (compiled once per direction so its offsets are
    /// constants): steps 2–5.
    #[inline(always)]
    fn render_direction<const D: usize, const WIDE: bool, const AO: bool>(
        &mut self,
        data: &[BlockId],
        dims: Dims,
        out: &mut ChunkMesh,
    ) {
        let (any_solid, any_liquid) = self.collect_faces::<D, false>(dims);
        if !(any_solid || any_liquid) {
            return;
        }
        self.collect_merge_masks::<D, WIDE, AO>(data, dims);
        let layout = SliceLayout::of::<D>(dims);
        let o = Orientation::of::<D>(dims);
        let solid = if axis_of(FACES[D].0) == Axis::X { &self.along_z.solid } else { &self.along_x.solid };
        let f = &mut self.faces;
        let colors = &self.colors;
        // Each quad is written out as soon as it is merged.
        if any_solid {
            let mut writer = QuadWriter::<D, true, WIDE, AO>::new(
                &mut out.opaque,
                QuadLooks { data, colors, solid, dims, stride: o.stride },
            );
            merge_faces::<false>(&mut f.solid, &f.along, &f.across, layout, &f.slice_rows, |q| writer.write(q));
            writer.finish();
        }
        if any_liquid {
            let mut writer = QuadWriter::<D, false, WIDE, AO>::new(
                &mut out.liquid,
                QuadLooks { data, colors, solid, dims, stride: o.stride },
            );
            merge_faces::<false>(&mut f.liquid, &f.along, &f.across, layout, &f.slice_rows, |q| writer.write(q));
            writer.finish();
        }
    }

    /// Step 3 for direction `D`: the merge masks of every row with faces, from the solid faces'
    /// AO uniformity (see [`ao_uniformity`]) and, where that allows, the blocks of the two faces.
    #[inline(always)]
    fn collect_merge_masks<const D: usize, const WIDE: bool, const AO: bool>(&mut self, data: &[BlockId], dims: Dims) {
        let o = Orientation::of::<D>(dims);
        let layers_adjacent = axis_of(FACES[D].0) != Axis::Y;
        let class = if axis_of(FACES[D].0) == Axis::X { &self.along_z } else { &self.along_x };
        let (layer_uniformity, faces) = (&mut self.layer_uniformity, &mut self.faces);
        // The liquid rows are only written when this box's liquid faces are meshed; otherwise they
        // hold another box's faces.
        let wet = self.liquid_faces;
        // Every row visited (an interior row `i` of layers 1 to ny, and the row before it in its
        // slice) lies below `end`, checked once here for the unchecked accesses below.
        let end = (dims.ny + 1) * o.stride;
        assert!(
            faces.solid.len() >= end
                && faces.along.len() >= end
                && faces.across.len() >= end
                && (!wet || faces.liquid.len() >= end),
            "merge mask rows out of range"
        );
        let row_mask = if o.rows >= 64 { !0 } else { (1u64 << o.rows) - 1 };
        for y in 1..=dims.ny {
            let base = y * o.stride;
            // Uniformity along the row axis of the previous row of this layer (y directions).
            let mut previous_row = 0u64;
            let mut rows_left = faces.layer_rows[y - 1] & row_mask;
            while rows_left != 0 {
                let w = rows_left.trailing_zeros() as usize + 1;
                rows_left &= rows_left - 1;
                let i = base + w;
                // Solid faces, and all faces, back in padded bits (the face arrays hold bit b - 1).
                // SAFETY: `r` is `i` (at most `ny * stride + rows`) or the row before it in its
                // slice, below `end` (checked above, the liquid rows when `wet`).
                let faces_at = |r: usize| unsafe {
                    (
                        *faces.solid.get_unchecked(r) << 1,
                        (*faces.solid.get_unchecked(r) | if wet { *faces.liquid.get_unchecked(r) } else { 0 }) << 1,
                    )
                };
                let (solid_here, here) = faces_at(i);
                // Without AO every face is uniform: only the blocks decide.
                let (uniform_u, uniform_v) =
                    if AO { ao_uniformity(neighbours_in_front::<D>(&class.solid, i, o), solid_here) } else { (!0, !0) };
                let (along_bits, along_rows) =
                    if o.u_along_bits { (uniform_u, uniform_v) } else { (uniform_v, uniform_u) };
                // Two neighbouring faces merge when both are uniform towards each other and they
                // hold the same block. Along the row: this row against itself shifted. Across:
                // against the previous row of the slice, in this layer (y directions) or the
                // previous one. (A row without faces leaves no candidates.)
                let voxel = o.data_base(y, w, dims);
                let along = here & (here >> 1) & along_bits & (along_bits >> 1);
                let along_mask = same_blocks::<WIDE>(data, voxel, voxel + o.data_bit_step, o.data_bit_step, along) >> 1;
                let (previous, uniform_before) =
                    if layers_adjacent { (i - o.stride, layer_uniformity[w - 1]) } else { (i - 1, previous_row) };
                let across = faces_at(previous).1 & here & uniform_before & along_rows;
                let across_mask =
                    same_blocks::<WIDE>(data, voxel - o.data_row_step, voxel, o.data_bit_step, across) >> 1;
                // SAFETY: `i` and `previous` are below `end`, as above.
                unsafe {
                    *faces.along.get_unchecked_mut(i) = along_mask;
                    *faces.across.get_unchecked_mut(previous) = across_mask;
                }
                if layers_adjacent {
                    layer_uniformity[w - 1] = along_rows;
                } else {
                    previous_row = along_rows;
                }
            }
        }
    }
}

/// Step 4: greedy merge of one direction's faces, slice by slice: from the lowest face left, the
/// run along the row while `along` allows, then the next rows while they hold the whole run and
/// `across` allows. Only the rows marked in `slice_rows` (per slice) are visited. The quads go to
/// `emit` in slice, row, bit order. Clears the bits of `faces` that later rows'
/// quads take. With `ANY`, every face merges with every neighbouring face (`along` and `across`
/// are not read).
#[inline(always)]
pub(super) fn merge_faces<const ANY: bool>(
    faces: &mut [u64],
    along: &[u64],
    across: &[u64],
    layout: SliceLayout,
    slice_rows: &[u64],
    mut emit: impl FnMut(SliceQuad),
) {
    let SliceLayout { origin, layers, rows, layer_step, row_step } = layout;
    // Every row of every slice lies below `end`, checked once here for the unchecked reads
    // below.
    let end = origin + layers.saturating_sub(1) * layer_step + rows.saturating_sub(1) * row_step + 1;
    assert!(faces.len() >= end && (ANY || (along.len() >= end && across.len() >= end)), "merge rows out of range");
    // Only rows below `rows` (so below `end`) are visited.
    let row_mask = if rows >= 64 { !0 } else { (1u64 << rows) - 1 };
    for (layer, &occupied) in slice_rows[..layers].iter().enumerate() {
        let mut rows_left = occupied & row_mask;
        while rows_left != 0 {
            let r = rows_left.trailing_zeros() as usize;
            rows_left &= rows_left - 1;
            let ri = origin + layer * layer_step + r * row_step;
            // SAFETY: row `r` of slice `layer` is below `end` (checked above against all three
            // arrays).
            let (mut bits, joins) =
                unsafe { (*faces.get_unchecked(ri), if ANY { !0 } else { *along.get_unchecked(ri) }) };
            if bits == 0 {
                continue;
            }
            while bits != 0 {
                let b = bits.trailing_zeros() as usize;
                // Bit k of `cont`: faces k and k + 1 are both left and may merge.
                let cont = joins & bits & (bits >> 1);
                let w = (!(cont >> b)).trailing_zeros() as usize + 1;
                let run = ((1u64 << w) - 1) << b;
                bits &= !run;
                let mut h = 1;
                let mut rj = ri;
                while r + h < rows {
                    let next = rj + row_step;
                    // SAFETY: `rj` and `next` are rows `r + h - 1` and `r + h` of this slice, both
                    // below `rows`, so below `end` (checked above against all three arrays).
                    let (below, down) =
                        unsafe { (faces.get_unchecked_mut(next), if ANY { !0 } else { *across.get_unchecked(rj) }) };
                    if *below & run != run || down & run != run {
                        break;
                    }
                    *below &= !run;
                    rj = next;
                    h += 1;
                }
                emit(SliceQuad { layer, row: r, bit: b, width: w, height: h });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::coords::{ChunkCoord, IVec3};
    use crate::base::rng::hash3;
    use crate::gen3d::pipeline::Generator;
    use crate::mesh::ao::AO_OPEN;
    use crate::mesh::test_support::{assert_clockwise, check_against_reference, padded_with, random_box, unit_faces};
    use crate::preset::model::WorldPreset;

    #[test]
    fn lone_block_has_six_clockwise_faces() {
        let b = padded_with(&[(1, 1, 1, block::STONE)]);
        let mut m = ChunkMesh::default();
        Mesher::new().mesh(&b, &mut m);
        assert_eq!(m.opaque.quad_count(), 6);
        assert_clockwise(&m);
    }

    #[test]
    fn faces_between_solids_are_culled_even_against_the_halo() {
        // Two blocks side by side, and one block touching the halo at x = -1.
        let b = padded_with(&[
            (1, 1, 1, block::STONE),
            (2, 1, 1, block::DIRT),
            (0, 3, 3, block::STONE),
            (-1, 3, 3, block::STONE),
        ]);
        let mut m = ChunkMesh::default();
        Mesher::new().mesh(&b, &mut m);
        // Pair: 10 faces; the block at x=0 against the solid halo: 5 faces. Stone and dirt never
        // merge, so every face stays its own quad.
        assert_eq!(unit_faces(&m).len(), 15);
        assert_eq!(m.opaque.quad_count(), 15);
        check_against_reference(&b, &mut Mesher::new());
    }

    #[test]
    fn water_meshes_only_against_air() {
        let b = padded_with(&[(1, 1, 1, block::WATER), (1, 0, 1, block::STONE), (2, 1, 1, block::WATER)]);
        let mut m = ChunkMesh::default();
        Mesher::new().mesh(&b, &mut m);
        // (1,1,1): 4 faces (water beside it, stone below); (2,1,1): 5 faces (water beside it).
        let liquid = unit_faces(&m).iter().filter(|f| f.2).count();
        assert_eq!(liquid, 9);
        // Merged: top, north and south span both blocks; the two ends and one bottom stay.
        assert_eq!(m.liquid.quad_count(), 6);
        // The stone shows all six faces: water does not hide ground.
        assert_eq!(m.opaque.quad_count(), 6);
        check_against_reference(&b, &mut Mesher::new());
    }

    #[test]
    fn a_slab_merges_into_six_quads_with_ao_kept_apart() {
        // A 4×1×4 floor: one quad per side.
        let mut pts = Vec::new();
        for x in 0..4 {
            for z in 0..4 {
                pts.push((x, 0, z, block::STONE));
            }
        }
        let mut b = padded_with(&pts);
        let mut m = ChunkMesh::default();
        Mesher::new().mesh(&b, &mut m);
        assert_eq!(m.opaque.quad_count(), 6);
        // A block on top darkens the corners around it: those faces cannot merge with open ones.
        b.set(IVec3::new(1, 1, 1), block::STONE);
        let (greedy, reference) = check_against_reference(&b, &mut Mesher::new());
        assert!(greedy > 6 + 4 && greedy < reference, "{greedy} vs {reference}");
    }

    #[test]
    fn a_dry_box_after_a_wet_bigger_one_ignores_the_old_liquid_rows() {
        // The scratch's liquid rows still hold the big box's faces, some beyond the small box.
        let mut mesher = Mesher::new();
        let mut m = ChunkMesh::default();
        mesher.mesh(&random_box(1, 34, &[block::WATER, block::STONE], 0.6), &mut m);
        assert!(!m.liquid.is_empty());
        for ao in [true, false] {
            mesher.set_ambient_occlusion(ao);
            check_against_reference(&random_box(2, 7, &[block::STONE, block::DIRT], 0.5), &mut mesher);
        }
    }

    #[test]
    fn one_mesher_reused_across_boxes_of_any_size_and_content_shows_each_reference_surface() {
        // The scratch keeps rows of earlier boxes (bigger, wetter, another AO setting): every box
        // must come out exactly as a fresh reference mesh, in whatever order boxes arrive.
        let mut mesher = Mesher::new();
        let palettes: [&[BlockId]; 4] = [
            &[block::STONE],
            &[block::WATER, block::STONE],
            &[block::WATER],
            &[block::DIRT, block::WATER, block::AIR, 300],
        ];
        for k in 0..64u64 {
            let h = hash3(k, 11, k as i32, 0, 0);
            // Every other box is a big one; the small ones in between see its leftovers.
            let size = if k % 2 == 0 { [33, 34][(h % 2) as usize] } else { [3, 5, 7, 9, 16][(h % 5) as usize] };
            let ids = palettes[((h >> 8) % 4) as usize];
            let fill = [0.05f32, 0.4, 0.8, 1.0][((h >> 16) % 4) as usize];
            mesher.set_ambient_occlusion((h >> 24) & 1 == 0);
            check_against_reference(&random_box(k, size, ids, fill), &mut mesher);
        }
    }

    #[test]
    fn without_ao_faces_merge_by_block_alone_and_are_lit_open() {
        // The slab with a block on top: with AO the corners around it keep faces apart; without,
        // the slab's top is the fewest rectangles around the covered face.
        let mut pts: Vec<_> = (0..16).map(|k| (k % 4, 0, k / 4, block::STONE)).collect();
        pts.push((1, 1, 1, block::STONE));
        let b = padded_with(&pts);
        let mut mesher = Mesher::new();
        let (with_ao, _) = check_against_reference(&b, &mut mesher);
        mesher.set_ambient_occlusion(false);
        let (flat, reference) = check_against_reference(&b, &mut mesher);
        // Slab: 4 sides + bottom + its top around the covered face in 4 rectangles (rows merge
        // along x first: the row in front, the two pieces of the covered row, the last two rows
        // together); the block on top: 5 faces.
        assert_eq!(flat, 5 + 4 + 5, "{with_ao} with AO, {reference} unit faces");
        assert!(flat < with_ao);
        let mut m = ChunkMesh::default();
        mesher.mesh(&b, &mut m);
        let stone = &mesher.colors[block::STONE as usize];
        for (v, c) in m.opaque.colors.iter().enumerate() {
            assert_eq!(*c, stone[m.opaque.directions[v] as usize][AO_OPEN], "vertex {v} is lit open");
        }
        // A box too wide for the bit rows goes to the reference mesher, with the same setting.
        let mut wide = random_box(8, 1, &[block::STONE], 0.0);
        wide.reset(IVec3::splat(-1), IVec3::new(70, 4, 4));
        for (k, id) in wide.data_mut().iter_mut().enumerate() {
            *id = [block::AIR, block::STONE, block::DIRT][(hash3(6, 1, k as i32, 0, 0) % 3) as usize];
        }
        check_against_reference(&wide, &mut mesher);
        // The same voxels with AO again: the setting is the only difference.
        mesher.set_ambient_occlusion(true);
        let mut again = ChunkMesh::default();
        mesher.mesh(&b, &mut again);
        assert_eq!(again.quad_count(), with_ao);
    }

    #[test]
    fn random_boxes_show_the_reference_surface() {
        let mut mesher = Mesher::new();
        let palettes: [&[BlockId]; 4] = [
            &[block::STONE],
            &[block::STONE, block::DIRT],
            &[block::STONE, block::WATER, block::GRASS],
            &[block::WATER, block::SAND, 200, block::AIR],
        ];
        for ao in [true, false] {
            mesher.set_ambient_occlusion(ao);
            for (i, ids) in palettes.iter().enumerate() {
                for (j, fill) in [0.1f32, 0.5, 0.9].into_iter().enumerate() {
                    for size in [3, 7, 18, 34] {
                        let b = random_box((i * 10 + j) as u64, size, ids, fill);
                        check_against_reference(&b, &mut mesher);
                    }
                }
            }
        }
        mesher.set_ambient_occlusion(true);
        // A non-cubic box, and the widest one the bit rows hold.
        let mut b = random_box(99, 1, &[block::STONE], 0.0);
        b.reset(IVec3::splat(-1), IVec3::new(10, 40, 64));
        for (k, id) in b.data_mut().iter_mut().enumerate() {
            *id = [block::AIR, block::STONE, block::WATER, block::DIRT][(hash3(5, 1, k as i32, 0, 0) % 4) as usize];
        }
        check_against_reference(&b, &mut mesher);
    }

    #[test]
    fn the_generic_class_path_agrees_with_the_fast_one() {
        let mut fast = Mesher::new();
        assert_eq!(fast.single_liquid, Some(block::WATER), "the block table changed: revisit the fast path");
        let mut generic = Mesher::new();
        generic.single_liquid = None;
        for seed in 0..4 {
            let b = random_box(seed, 20, &[block::STONE, block::WATER, block::DIRT, 300], 0.5);
            let (mut a, mut c) = (ChunkMesh::default(), ChunkMesh::default());
            fast.mesh(&b, &mut a);
            generic.mesh(&b, &mut c);
            assert_eq!(a, c);
        }
    }

    #[test]
    fn generated_chunks_show_the_reference_surface_with_fewer_quads() {
        let g = Generator::new(&WorldPreset::default()).unwrap();
        let mut mesher = Mesher::new();
        let mut padded = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
        let (mut greedy, mut reference) = (0, 0);
        for c in [(0, 0, 0), (1, 0, 1), (-1, 0, 2), (0, -1, 0), (0, 1, 0), (3, 0, -2), (-2, -1, -3), (5, 0, 5)] {
            g.generate_padded_chunk(ChunkCoord::new(c.0, c.1, c.2), &mut padded);
            let (gq, rq) = check_against_reference(&padded, &mut mesher);
            greedy += gq;
            reference += rq;
        }
        assert!(reference > 1000, "the chunks hold terrain: {reference}");
        // AO keeps faces apart around every step of the terrain, so the saving is well under 2×.
        assert!(greedy * 4 < reference * 3, "greedy {greedy} vs culled {reference}");
        // Without AO only the blocks keep faces apart (block-mesh's count: `tests/block_mesh_parity.rs`).
        mesher.set_ambient_occlusion(false);
        let mut flat = 0;
        for c in [(0, 0, 0), (1, 0, 1), (-1, 0, 2), (0, -1, 0), (5, 0, 5)] {
            g.generate_padded_chunk(ChunkCoord::new(c.0, c.1, c.2), &mut padded);
            flat += check_against_reference(&padded, &mut mesher).0;
        }
        assert!(flat * 2 < greedy, "flat {flat} vs {greedy} with AO");
    }

    #[test]
    fn same_voxels_same_bytes_on_any_thread_and_scratch() {
        let g = Generator::new(&WorldPreset::default()).unwrap();
        let mut a = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
        let mut b = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
        g.generate_padded_chunk(ChunkCoord::new(1, 0, 1), &mut a);
        g.generate_padded_chunk(ChunkCoord::new(2, 0, -1), &mut b);
        let mut mesher = Mesher::new();
        let (mut m1, mut m2) = (ChunkMesh::default(), ChunkMesh::default());
        mesher.mesh(&a, &mut m1);
        // The scratch has meshed another chunk (and a small box) in between.
        mesher.mesh(&b, &mut m2);
        mesher.mesh(&padded_with(&[(1, 1, 1, block::STONE)]), &mut m2);
        mesher.mesh(&a, &mut m2);
        assert_eq!(m1, m2);
        let m3 = std::thread::spawn(move || {
            let mut m = ChunkMesh::default();
            Mesher::new().mesh(&a, &mut m);
            m
        })
        .join()
        .unwrap();
        assert_eq!(m1, m3);
    }

    #[test]
    fn portable_and_wide_builds_give_the_same_bytes() {
        // Without AVX2 both calls take the portable build and simply agree with themselves.
        let g = Generator::new(&WorldPreset::default()).unwrap();
        let mut mesher = Mesher::new();
        let mut boxes = Vec::new();
        for c in [(0, 0, 0), (1, -1, 1), (-2, 0, 3), (5, 0, -4)] {
            let mut padded = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
            g.generate_padded_chunk(ChunkCoord::new(c.0, c.1, c.2), &mut padded);
            boxes.push(padded);
        }
        boxes.push(random_box(3, 18, &[block::STONE, block::WATER, block::DIRT, 300], 0.5));
        boxes.push(random_box(4, 7, &[block::STONE, block::WATER], 0.5));
        for b in &boxes {
            let (mut chosen, mut portable) = (ChunkMesh::default(), ChunkMesh::default());
            mesher.mesh(b, &mut chosen);
            mesher.mesh_with::<false, true>(b, &mut portable);
            assert_eq!(chosen, portable);
            mesher.set_ambient_occlusion(false);
            mesher.mesh(b, &mut chosen);
            mesher.mesh_with::<false, false>(b, &mut portable);
            assert_eq!(chosen, portable);
            mesher.set_ambient_occlusion(true);
            let (mut chosen, mut portable) = (Vec::new(), Vec::new());
            mesher.collision_faces(b, &mut chosen);
            mesher.collision_faces_with::<false>(b, &mut portable);
            assert_eq!(chosen, portable);
        }
    }
}
