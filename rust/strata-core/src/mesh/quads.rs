//! Step 5 of the greedy mesher: each merged quad is written to its surface's vertex arrays as
//! soon as step 4 has found it, with its block's colour and texture layer per face direction,
//! its light, and (all surfaces but the liquid one) its AO in the
//! corner colours and the diagonal split the AO asks for. Writes go past the
//! arrays' lengths into reserved capacity, whole quads at a time. Also what every form of
//! output shares: [`MeshTarget`] (where steps 4 and 5 write: these arrays, or Godot's streams in
//! [`crate::mesh::quad_bytes`]) and [`quad_look`] (what a quad looks like).
//!
//! May use: `base` and the other `mesh` modules.

use crate::base::block::BlockId;
use crate::base::chunk::VoxelBuffer;
use crate::light::LightBuffer;
use crate::mesh::ao::{AO_FLIP, AO_OPEN, ao_of_face, corner_shades};
use crate::mesh::culled::mesh_padded_chunk_culled_lit;
use crate::mesh::layout::{Dims, QuadPlacement, QuadSink, SliceLayout, SliceQuad, front_offset};
use crate::mesh::materials::MeshMaterials;
use crate::mesh::merge::merge_faces;
use crate::mesh::types::{ChunkMesh, FULL_LIGHT, MeshSurface, QUAD_TRIANGLES, counter_clockwise};
use std::mem::MaybeUninit;

/// Where steps 4 and 5 put a mesh: [`ChunkMesh`]'s vertex arrays, or Godot's byte streams
/// ([`crate::mesh::quad_bytes`]). The mesher is compiled once for each, so the quad writer is
/// inlined into it.
pub(super) trait MeshTarget {
    /// Empties every surface, keeping its buffers.
    fn clear(&mut self);

    /// Steps 4 and 5 for the faces of direction `D` on surface `surface` (an index into
    /// [`SURFACE_NAMES`](crate::mesh::SURFACE_NAMES)): merges `rows.faces` and appends the quads.
    /// `SOLID` (every surface but the liquid one) carries AO when `AO` is on.
    fn merge_and_write<const D: usize, const SOLID: bool, const SIMD: u8, const AO: bool>(
        &mut self,
        surface: usize,
        looks: QuadLooks,
        rows: FaceRows,
    );

    /// The whole box with the reference mesher (a box too wide for rows of 64 bits).
    fn mesh_culled(
        &mut self,
        padded: &VoxelBuffer,
        materials: &MeshMaterials,
        light: Option<&LightBuffer>,
        ao: bool,
        shade_in_shader: bool,
    );
}

/// One direction's faces of one surface and the masks step 4 merges them by (see
/// [`merge_faces`]).
pub(super) struct FaceRows<'a> {
    pub(super) faces: &'a mut [u64],
    pub(super) along: &'a [u64],
    pub(super) across: &'a [u64],
    pub(super) layout: SliceLayout,
    pub(super) slice_rows: &'a [u64],
}

impl MeshTarget for ChunkMesh {
    fn clear(&mut self) {
        ChunkMesh::clear(self);
    }

    // Inlined, so it is compiled with the caller's target features (out of line, the AVX2
    // build's quad writer would run as baseline x86-64 code and call its shuffles out of line).
    #[inline(always)]
    fn merge_and_write<const D: usize, const SOLID: bool, const SIMD: u8, const AO: bool>(
        &mut self,
        surface: usize,
        looks: QuadLooks,
        rows: FaceRows,
    ) {
        let mut writer = QuadWriter::<D, SOLID, SIMD, AO>::new(self.surfaces_mut()[surface], looks);
        merge_faces::<false>(rows.faces, rows.along, rows.across, rows.layout, rows.slice_rows, &mut writer);
        writer.finish();
    }

    fn mesh_culled(
        &mut self,
        padded: &VoxelBuffer,
        materials: &MeshMaterials,
        light: Option<&LightBuffer>,
        ao: bool,
        shade_in_shader: bool,
    ) {
        mesh_padded_chunk_culled_lit(padded, materials, light, self, ao, shade_in_shader);
    }
}

/// What step 5 reads to colour a quad.
#[derive(Clone, Copy)]
pub(super) struct QuadLooks<'a> {
    /// The voxels (for the block of a quad's first face).
    pub(super) data: &'a [BlockId],
    /// The packed light of every voxel, laid out as `data`, or empty: every face in open sky
    /// ([`FULL_LIGHT`]). A quad takes the light in front of its first face (its faces share it).
    pub(super) light: &'a [u8],
    /// The colour table of [`Mesher`](crate::mesh::Mesher) (its field `colors`).
    pub(super) colors: &'a [[[[u8; 4]; 4]; 6]],
    /// The texture layer table of [`Mesher`](crate::mesh::Mesher) (its field `layers`), as long
    /// as `colors`.
    pub(super) layers: &'a [[u16; 6]],
    /// Solid rows of the direction's orientation, `stride` rows per y layer (for AO).
    pub(super) solid: &'a [u64],
    pub(super) dims: Dims,
    pub(super) stride: usize,
}

impl QuadLooks<'_> {
    /// Checks once what [`quad_look`] reads without checking: every quad's first face is an
    /// interior voxel (step 4 takes slices, rows and bits of the interior only), so its voxel,
    /// the voxel in front of it and the rows of the window in front of it lie inside the padded
    /// box.
    #[inline(always)]
    pub(super) fn check(&self) {
        let QuadLooks { data, light, solid, colors, layers, dims: Dims { px, py, pz, .. }, stride } = *self;
        assert!(
            data.len() >= px * py * pz && solid.len() >= py * stride,
            "voxels or solid rows short of the padded box"
        );
        assert!(!colors.is_empty() && layers.len() == colors.len(), "colour and layer tables differ");
        assert!(light.is_empty() || light.len() == data.len(), "light and voxels cover different boxes");
    }
}

/// Step 5: appends the quads of direction `D` to a surface as step 4 merges them: with `SOLID`
/// (every surface but the liquid one) with their AO in the corner colours and the split it asks
/// for, else with flat colours. The arrays grow a few hundred quads at a time and are written past their lengths,
/// which [`QuadWriter::finish`] (or the next growth) sets.
pub(super) struct QuadWriter<'a, const D: usize, const SOLID: bool, const SIMD: u8, const AO: bool> {
    surface: &'a mut MeshSurface,
    looks: QuadLooks<'a>,
    /// Where the next quad's first vertex and first index go (the vertex arrays' lengths and
    /// the index array's, plus the quads written past them).
    vertex: usize,
    index: usize,
    /// Every array has capacity for the quads before this vertex.
    vertex_limit: usize,
}

/// How many quads [`QuadWriter`] (and the byte streams' writer) makes room for at a time (at
/// least).
pub(super) const QUADS_PER_GROWTH: usize = 256;

impl<'a, const D: usize, const SOLID: bool, const SIMD: u8, const AO: bool> QuadWriter<'a, D, SOLID, SIMD, AO> {
    #[inline(always)]
    pub(super) fn new(surface: &'a mut MeshSurface, looks: QuadLooks<'a>) -> Self {
        looks.check();
        let MeshSurface { positions, directions, colors, layers, lights, indices } = &*surface;
        // The vertex arrays grow in step (a quad's vertices go to the same slots in each).
        let n = positions.len();
        assert!(
            directions.len() == n && colors.len() == n && layers.len() == n && lights.len() == n,
            "vertex arrays of different lengths"
        );
        let (vertex, index) = (positions.len(), indices.len());
        Self { surface, looks, vertex, index, vertex_limit: vertex }
    }

    /// Sets the arrays' lengths to take in the pending quads, and makes room for more.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        self.finish();
        let MeshSurface { positions, directions, colors, layers, lights, indices } = &mut *self.surface;
        positions.reserve(4 * QUADS_PER_GROWTH);
        lights.reserve(4 * QUADS_PER_GROWTH);
        directions.reserve(4 * QUADS_PER_GROWTH);
        colors.reserve(4 * QUADS_PER_GROWTH);
        layers.reserve(4 * QUADS_PER_GROWTH);
        indices.reserve(6 * QUADS_PER_GROWTH);
        let spare = |v: usize, per_quad: usize| v / per_quad;
        let room = spare(positions.capacity() - self.vertex, 4)
            .min(spare(directions.capacity() - self.vertex, 4))
            .min(spare(colors.capacity() - self.vertex, 4))
            .min(spare(layers.capacity() - self.vertex, 4))
            .min(spare(lights.capacity() - self.vertex, 4))
            .min(spare(indices.capacity() - self.index, 6));
        self.vertex_limit = self.vertex + 4 * room;
    }

    /// Sets the arrays' lengths to take in the quads written so far.
    #[inline(always)]
    pub(super) fn finish(&mut self) {
        let MeshSurface { positions, directions, colors, layers, lights, indices } = &mut *self.surface;
        // SAFETY: `write` wrote every slot from each array's length up to `vertex` (`index` for
        // the indices), inside its capacity (below `vertex_limit`).
        unsafe {
            positions.set_len(self.vertex);
            directions.set_len(self.vertex);
            colors.set_len(self.vertex);
            layers.set_len(self.vertex);
            lights.set_len(self.vertex);
            indices.set_len(self.index);
        }
    }

    /// Writes one quad past the pending ones.
    #[inline(always)]
    pub(super) fn write(&mut self, quad: SliceQuad) {
        if self.vertex == self.vertex_limit {
            self.grow();
        }
        // SAFETY: `new` checked the looks, and step 4 hands over quads of the interior.
        let QuadLook { corners, colors: corner_colors, flip, layer, light: face_light } =
            unsafe { quad_look::<D, SOLID, SIMD, AO>(&self.looks, quad) };
        let split = &QUAD_TRIANGLES_PADDED[counter_clockwise::<D>() as usize][flip as usize];
        let MeshSurface {
            positions,
            directions,
            colors: surface_colors,
            layers: surface_layers,
            lights: surface_lights,
            indices,
        } = &mut *self.surface;
        let (at, at_index) = (self.vertex, self.index);
        let first = at as i32;
        // SAFETY: `vertex` is below `vertex_limit`, so each array has capacity for this quad's
        // slots at `vertex` (`index`); all are plain values, written whole, and `finish` counts
        // them in.
        unsafe {
            positions.as_mut_ptr().add(at).cast::<[[f32; 3]; 4]>().write(corners);
            directions.as_mut_ptr().add(at).cast::<[u8; 4]>().write([D as u8; 4]);
            surface_colors.as_mut_ptr().add(at).cast::<[[u8; 4]; 4]>().write(corner_colors);
            surface_layers.as_mut_ptr().add(at).cast::<[u16; 4]>().write([layer; 4]);
            surface_lights.as_mut_ptr().add(at).cast::<[u8; 4]>().write([face_light; 4]);
            quad_indices(&mut *indices.as_mut_ptr().add(at_index).cast::<[MaybeUninit<i32>; 6]>(), split, first);
        }
        self.vertex += 4;
        self.index += 6;
    }
}

/// What step 5 writes of one quad, whatever form the vertices take: its corners (see
/// [`QuadPlacement::corners`]), their colours (with AO on every surface but the liquid one),
/// whether the AO asks for the split along the diagonal 1–3 (see [`QUAD_TRIANGLES`]), its texture
/// layer and its light.
pub(super) struct QuadLook {
    pub(super) corners: [[f32; 3]; 4],
    pub(super) colors: [[u8; 4]; 4],
    pub(super) flip: bool,
    pub(super) layer: u16,
    pub(super) light: u8,
}

/// The look of a quad of direction `D` merged by step 4, read at its first face: `SOLID` (every
/// surface but the liquid one) takes AO when `AO` is on.
///
/// # Safety
/// `looks` must have passed [`QuadLooks::check`], and `quad` must be one step 4 merged from the
/// interior of that box (so its first face's voxel, the voxel in front of it and the window in
/// front of it lie inside the padded box).
#[inline(always)]
pub(super) unsafe fn quad_look<const D: usize, const SOLID: bool, const SIMD: u8, const AO: bool>(
    looks: &QuadLooks,
    quad: SliceQuad,
) -> QuadLook {
    let QuadLooks { data, light, colors, layers, solid, dims, stride } = *looks;
    let Dims { px, pz, .. } = dims;
    let last_id = colors.len() - 1;
    let placement = QuadPlacement::new::<D>(quad);
    let [x, y, z] = placement.voxel;
    // SAFETY: the voxel is inside the padded box (the caller's promise), and the id is clamped
    // to the last entry of `colors` (`layers` is as long, checked by `QuadLooks::check`).
    let voxel_index = (y * pz + z) * px + x;
    let (shades, layer) = unsafe {
        let id = (*data.get_unchecked(voxel_index) as usize).min(last_id);
        (&colors.get_unchecked(id)[D], layers.get_unchecked(id)[D])
    };
    // The voxel in front of an interior voxel lies in the padded box (`light` is as long as
    // `data`, checked in `QuadLooks::check`).
    let face_light =
        if light.is_empty() { FULL_LIGHT } else { light[(voxel_index as isize + front_offset::<D>(dims)) as usize] };
    let corners = placement.corners::<D>();
    let (corner_colors, flip) = if SOLID && AO {
        // SAFETY: an interior voxel, and `solid` covers the padded box (the caller's promise).
        let ao = unsafe { ao_of_face::<D>(solid, placement.voxel, stride) } as usize;
        (corner_shades::<SIMD>(shades, ao), AO_FLIP[ao])
    } else {
        ([shades[AO_OPEN]; 4], false)
    };
    QuadLook { corners, colors: corner_colors, flip, layer, light: face_light }
}

impl<const D: usize, const SOLID: bool, const SIMD: u8, const AO: bool> QuadSink
    for QuadWriter<'_, D, SOLID, SIMD, AO>
{
    #[inline(always)]
    fn emit(&mut self, quad: SliceQuad) {
        self.write(quad);
    }
}

/// [`QUAD_TRIANGLES`], each padded to two groups of four (the last two unused).
pub(super) static QUAD_TRIANGLES_PADDED: [[[i32; 8]; 2]; 2] = {
    let mut t = [[[0; 8]; 2]; 2];
    let mut c = 0;
    while c < 2 {
        let mut f = 0;
        while f < 2 {
            let mut k = 0;
            while k < 6 {
                t[c][f][k] = QUAD_TRIANGLES[c][f][k];
                k += 1;
            }
            f += 1;
        }
        c += 1;
    }
    t
};

/// Writes a quad's six indices: its first vertex `first` plus each of `split`'s first six.
#[inline(always)]
fn quad_indices(out: &mut [MaybeUninit<i32>; 6], split: &[i32; 8], first: i32) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_add_epi32, _mm_loadu_si128, _mm_set1_epi32, _mm_storel_epi64, _mm_storeu_si128,
        };
        // SSE2, which every x86-64 CPU has: two adds of four lanes, stores of four and two.
        // SAFETY: the loads read `split`'s 8 values; the stores write `out`'s slots 0..4 and 4..6.
        unsafe {
            let base = _mm_set1_epi32(first);
            let lo = _mm_add_epi32(_mm_loadu_si128(split.as_ptr().cast::<__m128i>()), base);
            let hi = _mm_add_epi32(_mm_loadu_si128(split.as_ptr().add(4).cast::<__m128i>()), base);
            _mm_storeu_si128(out.as_mut_ptr().cast::<__m128i>(), lo);
            _mm_storel_epi64(out.as_mut_ptr().add(4).cast::<__m128i>(), hi);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        *out = std::array::from_fn(|k| MaybeUninit::new(split[k] + first));
    }
}
