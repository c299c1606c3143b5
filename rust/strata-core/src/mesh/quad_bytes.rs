//! Step 5 of the greedy mesher straight into Godot's byte streams (the layout of
//! [`crate::mesh::bytes`]): each quad step 4 merges goes out at once as its four positions, its
//! four custom0 values, its four colours (in a stream of their own) and its six u16 indices, with
//! no vertex arrays in between. A surface whose colours are all white (textured blocks with the
//! shade in the shaders) is then finished: Godot's stream without colours is the custom0 one;
//! any other has its colours interleaved with custom0 in one pass at the end.
//! [`Mesher::mesh_lit_bytes`](crate::mesh::Mesher::mesh_lit_bytes)
//! gives exactly the bytes [`MeshBytes::pack`] gives for the arrays of
//! [`Mesher::mesh_lit`](crate::mesh::Mesher::mesh_lit) (tested): it is what a streaming worker
//! runs for each chunk.
//!
//! Indices are written as u16 as the quads come; a surface that ends with more than 65,536
//! vertices has them widened to u32 at the end (quad `q`'s vertices are `4q..4q + 4`, so each
//! index is its quad's first vertex plus its low bits' offset from it).
//!
//! May use: `base`, `light` and the other `mesh` modules.

use crate::base::chunk::VoxelBuffer;
use crate::light::LightBuffer;
use crate::mesh::bytes::{
    ATTRIBUTE_STRIDE, ATTRIBUTE_STRIDE_NO_COLOR, FORMAT, FORMAT_NO_COLOR, MeshBytes, SurfaceBytes, VERTEX_STRIDE,
    aabb_size, vertex_custom0,
};
use crate::mesh::culled::mesh_padded_chunk_culled_lit;
use crate::mesh::layout::{QuadSink, SliceQuad};
use crate::mesh::materials::MeshMaterials;
use crate::mesh::merge::merge_faces;
use crate::mesh::quads::{
    FaceRows, MeshTarget, QUAD_TRIANGLES_PADDED, QUADS_PER_GROWTH, QuadLook, QuadLooks, quad_look,
};
use crate::mesh::types::{ChunkMesh, counter_clockwise};

/// Bytes of the index stream per quad (six u16).
const INDEX_BYTES_PER_QUAD: usize = 12;

/// Godot takes u16 indices up to this many vertices, u32 past it.
const MAX_U16_VERTICES: usize = 1 << 16;

/// One surface's streams as the quads are written: the bytes so far (custom0 in
/// `attribute_data`, the colours apart in `color_data`, interleaved at the end unless all are
/// white), the bounds of the quads (the minimum of their first corners, the maximum of their
/// third: a merged quad's corners run from its lowest to its highest, see
/// `QuadPlacement::corners`), and whether every colour so far is white.
struct SurfaceStreams {
    vertex_data: Vec<u8>,
    attribute_data: Vec<u8>,
    color_data: Vec<u8>,
    index_data: Vec<u8>,
    lo: [f32; 3],
    hi: [f32; 3],
    /// Every colour so far, AND-ed four at a time: all ones while all are white.
    colors_and: u128,
}

impl SurfaceStreams {
    fn vertex_count(&self) -> usize {
        self.vertex_data.len() / VERTEX_STRIDE
    }
}

/// Where the mesher writes Godot's streams: one [`SurfaceStreams`] per surface, in
/// [`SURFACE_NAMES`](crate::mesh::SURFACE_NAMES) order (or, for a box too wide for the bit rows,
/// the reference mesher's arrays, packed at the end).
pub(super) struct StreamsTarget {
    surfaces: [SurfaceStreams; 4],
    culled: Option<ChunkMesh>,
}

impl StreamsTarget {
    /// Empty streams in the buffers of `out`'s surfaces (which are left empty), the colours in
    /// `colors` (what [`StreamsTarget::finish`] hands back).
    pub(super) fn reusing(out: &mut MeshBytes, colors: [Vec<u8>; 4]) -> Self {
        let mut colors = colors.into_iter();
        let surfaces = out.surfaces_mut().map(|slot| {
            let SurfaceBytes { mut vertex_data, mut attribute_data, mut index_data, .. } =
                slot.take().unwrap_or_default();
            let mut color_data = colors.next().unwrap_or_default();
            vertex_data.clear();
            attribute_data.clear();
            color_data.clear();
            index_data.clear();
            SurfaceStreams {
                vertex_data,
                attribute_data,
                color_data,
                index_data,
                lo: [f32::INFINITY; 3],
                hi: [f32::NEG_INFINITY; 3],
                colors_and: !0,
            }
        });
        Self { surfaces, culled: None }
    }

    /// Hands the finished streams to `out`: each surface with triangles as Godot's stored form,
    /// `None` for the others. Returns the colour buffers, for the next target.
    pub(super) fn finish(self, out: &mut MeshBytes) -> [Vec<u8>; 4] {
        if let Some(m) = &self.culled {
            out.pack(m);
            return self.surfaces.map(|s| s.color_data);
        }
        let mut colors: [Vec<u8>; 4] = Default::default();
        for ((mut streams, slot), spare) in self.surfaces.into_iter().zip(out.surfaces_mut()).zip(&mut colors) {
            *spare = std::mem::take(&mut streams.color_data);
            *slot = surface_bytes(streams, spare);
        }
        colors
    }
}

/// A surface's finished streams in Godot's stored form (its colours in `color_data`); `None`
/// without a quad.
fn surface_bytes(streams: SurfaceStreams, color_data: &[u8]) -> Option<SurfaceBytes> {
    let n = streams.vertex_count();
    if n == 0 {
        return None;
    }
    let SurfaceStreams { vertex_data, mut attribute_data, mut index_data, lo, hi, colors_and, .. } = streams;
    let white = colors_and == !0;
    let index_count = n / 4 * 6;
    if n > MAX_U16_VERTICES {
        index_data = widen_indices(&index_data);
    }
    if !white {
        interleave_colors(&mut attribute_data, color_data);
    }
    Some(SurfaceBytes {
        format: if white { FORMAT_NO_COLOR } else { FORMAT },
        vertex_data,
        attribute_data,
        index_data,
        vertex_count: n as u32,
        index_count: index_count as u32,
        aabb_position: lo,
        aabb_size: aabb_size(lo, hi),
    })
}

/// Turns a stream of custom0 values (4 bytes a vertex) into the interleaved attribute stream
/// (colour, custom0 per vertex), the colours from `colors` (4 bytes a vertex), in place.
fn interleave_colors(attributes: &mut Vec<u8>, colors: &[u8]) {
    let n = attributes.len() / ATTRIBUTE_STRIDE_NO_COLOR;
    assert_eq!(colors.len(), 4 * n, "a colour a vertex");
    attributes.resize(n * ATTRIBUTE_STRIDE, 0);
    // From the last vertex down: vertex v's pair goes to 8v, past every custom0 still to move.
    for v in (0..n).rev() {
        attributes.copy_within(4 * v..4 * v + 4, 8 * v + 4);
        attributes[8 * v..8 * v + 4].copy_from_slice(&colors[4 * v..4 * v + 4]);
    }
}

/// The u16 indices of whole quads (six each, quad `q`'s vertices `4q..4q + 4`) as u32, all
/// little-endian.
fn widen_indices(narrow: &[u8]) -> Vec<u8> {
    let mut wide = Vec::with_capacity(2 * narrow.len());
    for (q, quad) in narrow.chunks_exact(INDEX_BYTES_PER_QUAD).enumerate() {
        let first = (4 * q) as u32;
        for index in quad.chunks_exact(2) {
            let low = u16::from_le_bytes([index[0], index[1]]);
            // The offset from the quad's first vertex (0 to 3), from the low 16 bits alone.
            let offset = low.wrapping_sub(first as u16) as u32;
            wide.extend_from_slice(&(first + offset).to_le_bytes());
        }
    }
    wide
}

impl MeshTarget for StreamsTarget {
    fn clear(&mut self) {
        for s in &mut self.surfaces {
            s.vertex_data.clear();
            s.attribute_data.clear();
            s.color_data.clear();
            s.index_data.clear();
            (s.lo, s.hi) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
            s.colors_and = !0;
        }
        self.culled = None;
    }

    // Inlined, so the writer is compiled with the caller's target features.
    #[inline(always)]
    fn merge_and_write<const D: usize, const SOLID: bool, const SIMD: u8, const AO: bool>(
        &mut self,
        surface: usize,
        looks: QuadLooks,
        rows: FaceRows,
    ) {
        let mut writer = StreamWriter::<D, SOLID, SIMD, AO>::new(&mut self.surfaces[surface], looks);
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
        let mut m = ChunkMesh::default();
        mesh_padded_chunk_culled_lit(padded, materials, light, &mut m, ao, shade_in_shader);
        self.culled = Some(m);
    }
}

/// Step 5 into one surface's streams for the quads of direction `D` (`SOLID`: with AO when `AO`
/// is on). The streams grow a few hundred quads at a time and are written past their lengths,
/// which [`StreamWriter::finish`] (or the next growth) sets.
struct StreamWriter<'a, const D: usize, const SOLID: bool, const SIMD: u8, const AO: bool> {
    streams: &'a mut SurfaceStreams,
    looks: QuadLooks<'a>,
    /// Vertices written, the pending ones included.
    vertex: usize,
    /// Every stream has room for the quads before this vertex.
    vertex_limit: usize,
}

impl<'a, const D: usize, const SOLID: bool, const SIMD: u8, const AO: bool> StreamWriter<'a, D, SOLID, SIMD, AO> {
    #[inline(always)]
    fn new(streams: &'a mut SurfaceStreams, looks: QuadLooks<'a>) -> Self {
        looks.check();
        let vertex = streams.vertex_count();
        assert!(
            streams.attribute_data.len() == vertex * ATTRIBUTE_STRIDE_NO_COLOR
                && streams.color_data.len() == vertex * 4
                && streams.index_data.len() == vertex / 4 * INDEX_BYTES_PER_QUAD,
            "streams of different lengths"
        );
        Self { streams, looks, vertex, vertex_limit: vertex }
    }

    /// Sets the streams' lengths to take in the pending quads, and makes room for more.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        self.finish();
        let SurfaceStreams { vertex_data, attribute_data, color_data, index_data, .. } = &mut *self.streams;
        vertex_data.reserve(4 * VERTEX_STRIDE * QUADS_PER_GROWTH);
        attribute_data.reserve(4 * ATTRIBUTE_STRIDE_NO_COLOR * QUADS_PER_GROWTH);
        color_data.reserve(4 * 4 * QUADS_PER_GROWTH);
        index_data.reserve(INDEX_BYTES_PER_QUAD * QUADS_PER_GROWTH);
        let room = ((vertex_data.capacity() - vertex_data.len()) / (4 * VERTEX_STRIDE))
            .min((attribute_data.capacity() - attribute_data.len()) / (4 * ATTRIBUTE_STRIDE_NO_COLOR))
            .min((color_data.capacity() - color_data.len()) / (4 * 4))
            .min((index_data.capacity() - index_data.len()) / INDEX_BYTES_PER_QUAD);
        self.vertex_limit = self.vertex + 4 * room;
    }

    /// Sets the streams' lengths to take in the quads written so far.
    #[inline(always)]
    fn finish(&mut self) {
        let SurfaceStreams { vertex_data, attribute_data, color_data, index_data, .. } = &mut *self.streams;
        // SAFETY: `write` wrote every byte from each stream's length up to `vertex`'s quads, inside
        // its capacity (below `vertex_limit`).
        unsafe {
            vertex_data.set_len(self.vertex * VERTEX_STRIDE);
            attribute_data.set_len(self.vertex * ATTRIBUTE_STRIDE_NO_COLOR);
            color_data.set_len(self.vertex * 4);
            index_data.set_len(self.vertex / 4 * INDEX_BYTES_PER_QUAD);
        }
    }

    /// Writes one quad past the pending ones.
    #[inline(always)]
    fn write(&mut self, quad: SliceQuad) {
        if self.vertex == self.vertex_limit {
            self.grow();
        }
        // SAFETY: `new` checked the looks, and step 4 hands over quads of the interior.
        let QuadLook { corners, colors, flip, layer, light } =
            unsafe { quad_look::<D, SOLID, SIMD, AO>(&self.looks, quad) };
        let custom0 = vertex_custom0(layer, light, D as u8).to_bits();
        let split = &QUAD_TRIANGLES_U16[counter_clockwise::<D>() as usize][flip as usize];
        let s = &mut *self.streams;
        s.colors_and &= u128::from_ne_bytes(color_bytes(&colors));
        // A merged quad's first corner is its lowest, its third its highest.
        s.lo = std::array::from_fn(|a| if corners[0][a] < s.lo[a] { corners[0][a] } else { s.lo[a] });
        s.hi = std::array::from_fn(|a| if corners[2][a] > s.hi[a] { corners[2][a] } else { s.hi[a] });
        let v = self.vertex;
        // SAFETY: `vertex` is below `vertex_limit`, so each stream has capacity for this quad's
        // bytes at `vertex` (its indices at `vertex / 4` quads); `finish` counts them in.
        unsafe {
            write_quad(
                s.vertex_data.as_mut_ptr().add(v * VERTEX_STRIDE),
                s.attribute_data.as_mut_ptr().add(v * ATTRIBUTE_STRIDE_NO_COLOR),
                s.color_data.as_mut_ptr().add(v * 4),
                s.index_data.as_mut_ptr().add(v / 4 * INDEX_BYTES_PER_QUAD),
                &corners,
                &colors,
                custom0,
                split,
                v as u16,
            );
        }
        self.vertex += 4;
    }
}

/// Four colours' sixteen bytes.
#[inline(always)]
fn color_bytes(colors: &[[u8; 4]; 4]) -> [u8; 16] {
    let [a, b, c, d] = *colors;
    [a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3], c[0], c[1], c[2], c[3], d[0], d[1], d[2], d[3]]
}

/// [`QUAD_TRIANGLES_PADDED`] as u16.
static QUAD_TRIANGLES_U16: [[[u16; 8]; 2]; 2] = {
    let mut t = [[[0; 8]; 2]; 2];
    let mut k = 0;
    while k < 32 {
        let (c, f, i) = (k / 16, k / 8 % 2, k % 8);
        t[c][f][i] = QUAD_TRIANGLES_PADDED[c][f][i] as u16;
        k += 1;
    }
    t
};

/// Writes one quad's bytes, little-endian: its four positions (48 bytes at `vertices`), its
/// custom0 four times (16 bytes at `attributes`), its four colours (16 bytes at `color_out`) and
/// its six indices, `first` (the low 16 bits of its first vertex) plus each of `split`'s first
/// six, wrapping (12 bytes at `indices`).
///
/// # Safety
/// Each pointer must be valid for writing its bytes (no alignment needed).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn write_quad(
    vertices: *mut u8,
    attributes: *mut u8,
    color_out: *mut u8,
    indices: *mut u8,
    corners: &[[f32; 3]; 4],
    colors: &[[u8; 4]; 4],
    custom0: u32,
    split: &[u16; 8],
    first: u16,
) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_add_epi16, _mm_cvtsi128_si32, _mm_loadu_si128, _mm_set1_epi16, _mm_set1_epi32, _mm_srli_si128,
            _mm_storel_epi64, _mm_storeu_si128,
        };
        // SSE2, which every x86-64 CPU has (little-endian): the positions and colours as they lie
        // in memory, custom0 in four lanes, the indices added in 16-bit lanes.
        // SAFETY: the caller's promise for the stores; the loads read `colors` (16 bytes) and
        // `split` (16 bytes).
        unsafe {
            vertices.cast::<[[f32; 3]; 4]>().write_unaligned(*corners);
            _mm_storeu_si128(color_out.cast::<__m128i>(), _mm_loadu_si128(colors.as_ptr().cast::<__m128i>()));
            _mm_storeu_si128(attributes.cast::<__m128i>(), _mm_set1_epi32(custom0 as i32));
            let i = _mm_add_epi16(_mm_loadu_si128(split.as_ptr().cast::<__m128i>()), _mm_set1_epi16(first as i16));
            _mm_storel_epi64(indices.cast::<__m128i>(), i);
            indices.add(8).cast::<i32>().write_unaligned(_mm_cvtsi128_si32(_mm_srli_si128::<8>(i)));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let positions = corners.as_flattened();
        let position_bytes: [[u8; 4]; 12] = std::array::from_fn(|k| positions[k].to_le_bytes());
        let index_bytes: [[u8; 2]; 6] = std::array::from_fn(|k| split[k].wrapping_add(first).to_le_bytes());
        // SAFETY: the caller's promise; plain bytes, written unaligned.
        unsafe {
            vertices.cast::<[[u8; 4]; 12]>().write_unaligned(position_bytes);
            attributes.cast::<[[u8; 4]; 4]>().write_unaligned([custom0.to_le_bytes(); 4]);
            color_out.cast::<[[u8; 4]; 4]>().write_unaligned(*colors);
            indices.cast::<[[u8; 2]; 6]>().write_unaligned(index_bytes);
        }
    }
}

impl<const D: usize, const SOLID: bool, const SIMD: u8, const AO: bool> QuadSink
    for StreamWriter<'_, D, SOLID, SIMD, AO>
{
    #[inline(always)]
    fn emit(&mut self, quad: SliceQuad) {
        self.write(quad);
    }
}
