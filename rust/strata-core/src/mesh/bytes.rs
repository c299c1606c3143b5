//! Mesh surfaces packed into the byte streams of Godot 4's mesh format, on the worker.
//!
//! `ArrayMesh.add_surface_from_arrays` converts its arrays on the calling thread, vertex by
//! vertex: it makes up a tangent for every normal, encodes both octahedrally, turns colours into
//! bytes and narrows the indices; for a whole chunk that is a sizeable share of the main
//! thread's frame (figures in `docs/perf.md`, "mesh"). [`MeshBytes::pack`] does the same work on
//! a worker and yields the streams that Godot keeps (the form a saved mesh resource loads from),
//! so the main thread only copies bytes. The output is bit for bit what Godot's own conversion
//! gives; the Godot suite compares the two through `RenderingServer.mesh_get_surface`.
//!
//! Layout (format version 2, uncompressed; `mesh_surface_make_offsets_from_format` and
//! `_surface_set_data` in Godot's `rendering_server.cpp`), for `n` vertices:
//! * vertex stream: `n` positions (3 × f32); no normals or tangents: a face's normal is one of
//!   six, which the shaders take from its direction;
//! * attribute stream: `n` × (colour, custom0), 8 bytes a vertex: the colour in RGBA8 (each
//!   channel `× 255`, truncated; the mesher makes them in this form, see [`crate::mesh::rgba8`]),
//!   left out (no `ARRAY_FORMAT_COLOR`, 4 bytes a vertex) when every colour of the surface is
//!   opaque white, which Godot's shaders read for a mesh without colours: a textured block's
//!   faces once the shaders add the face shade and AO
//!   ([`Mesher::set_shade_in_shader`](crate::mesh::Mesher::set_shade_in_shader)); then
//!   `ARRAY_CUSTOM0` in `ARRAY_CUSTOM_R_FLOAT`: one whole number below 2²⁴ (exact in f32)
//!   holding the texture-array layer ([`MeshSurface::layers`]), the face's light byte
//!   ([`MeshSurface::lights`], `sky << 4 | block`) and its direction
//!   ([`MeshSurface::directions`], an index into [`FACE_NORMALS`](crate::mesh::FACE_NORMALS));
//!   see [`vertex_custom0`]. (A float, not four bytes: Godot 4.6's Compatibility renderer binds
//!   an RGBA8 custom attribute as one channel.)
//! * index stream: u16 when `n ≤ 65536`, else u32; little-endian throughout.
//!
//! Texture coordinates are not stored: they are the position projected on the face's plane
//! ([`face_uv`](crate::mesh::face_uv)), which the shaders compute.
//!
//! May use: `base` and the other `mesh` modules.

use crate::mesh::occluders::OccluderBits;
use crate::mesh::types::{ChunkMesh, MeshSurface};
use std::mem::MaybeUninit;

/// Godot's `Mesh.ArrayFormat` bits this module writes.
pub mod format {
    pub const VERTEX: u64 = 1;
    pub const COLOR: u64 = 1 << 3;
    pub const CUSTOM0: u64 = 1 << 6;
    /// `ARRAY_FORMAT_CUSTOM0_SHIFT`: where custom0's 3-bit format goes.
    pub const CUSTOM0_SHIFT: u32 = 13;
    /// `ARRAY_CUSTOM_R_FLOAT`, custom0's format.
    pub const CUSTOM_R_FLOAT: u64 = 4;
    pub const INDEX: u64 = 1 << 12;
    /// `ARRAY_FLAG_FORMAT_VERSION_2` (= `ARRAY_FLAG_FORMAT_CURRENT_VERSION` in Godot 4.2–4.6).
    pub const VERSION_2: u64 = 1 << 35;
}

/// One surface in Godot's stored form (the keys of an `ArrayMesh` `_surfaces` entry).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SurfaceBytes {
    pub format: u64,
    pub vertex_data: Vec<u8>,
    pub attribute_data: Vec<u8>,
    pub index_data: Vec<u8>,
    pub vertex_count: u32,
    pub index_count: u32,
    /// Bounding box: minimum corner and size (at least 0.00001 on each axis, as Godot makes it).
    pub aabb_position: [f32; 3],
    pub aabb_size: [f32; 3],
}

/// Bytes per vertex in the attribute stream: colour (4), custom0 (4).
pub const ATTRIBUTE_STRIDE: usize = 8;

/// Bytes per vertex in the attribute stream of a surface without colours: custom0 (4).
pub const ATTRIBUTE_STRIDE_NO_COLOR: usize = 4;

/// A vertex colour that is not stored: opaque white, what Godot's shaders read without one.
pub const WHITE: [u8; 4] = [255; 4];

/// Whether every one of `colors` is [`WHITE`], so their surface is packed without them.
pub fn all_white(colors: &[[u8; 4]]) -> bool {
    colors.iter().all(|&c| c == WHITE)
}

/// Bytes of the attribute stream per vertex for vertices of colours `colors`: without the
/// colour when every one is [`WHITE`].
pub fn attribute_stride(colors: &[[u8; 4]]) -> usize {
    if all_white(colors) { ATTRIBUTE_STRIDE_NO_COLOR } else { ATTRIBUTE_STRIDE }
}

/// Bytes per vertex in the vertex stream: the position (3 × f32).
pub const VERTEX_STRIDE: usize = 12;

/// The layers custom0 can name: a layer from this one on (the materials'
/// [`NO_TEXTURE`](crate::mesh::NO_TEXTURE) included) is stored as this one, past any texture
/// array a GPU takes (Godot's `Texture2DArray` allows 2,048 layers), so the shaders draw the
/// vertex colour.
pub const CUSTOM0_NO_LAYER: u16 = 4095;

/// The custom0 value of a vertex (`ARRAY_CUSTOM_R_FLOAT`): `layer + 4096 · (light + 256 ·
/// direction)`, with the face's texture layer (at most [`CUSTOM0_NO_LAYER`]), its light byte
/// (`sky << 4 | block`) and its direction (0–5): a whole number below 2²⁴, exact in f32. A
/// shader takes `high = floor(v / 4096)`, `layer = v − 4096 · high`, `direction =
/// floor(high / 256)`, `light = high − 256 · direction` (divisions by powers of two: exact).
#[inline(always)]
pub fn vertex_custom0(layer: u16, light: u8, direction: u8) -> f32 {
    let layer = layer.min(CUSTOM0_NO_LAYER) as i32;
    // Below 2^23: the signed conversion (one instruction, where an unsigned one is several).
    (layer | (light as i32) << 12 | (direction.min(7) as i32) << 20) as f32
}

impl SurfaceBytes {
    /// Whether the attribute stream holds colours (else every vertex is [`WHITE`]).
    pub fn has_colors(&self) -> bool {
        self.format & format::COLOR != 0
    }

    /// The triangles as a flat list of corners (3 per triangle), read back from the streams, as
    /// [`MeshSurface::triangle_corners`] gives them from the arrays.
    pub fn triangle_corners(&self) -> Vec<[f32; 3]> {
        let position = |i: usize| {
            let at = |k: usize| {
                let b = &self.vertex_data[i * VERTEX_STRIDE + 4 * k..i * VERTEX_STRIDE + 4 * k + 4];
                f32::from_le_bytes([b[0], b[1], b[2], b[3]])
            };
            [at(0), at(1), at(2)]
        };
        if self.vertex_count as usize > 1 << 16 {
            self.index_data
                .chunks_exact(4)
                .map(|b| position(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize))
                .collect()
        } else {
            self.index_data.chunks_exact(2).map(|b| position(u16::from_le_bytes([b[0], b[1]]) as usize)).collect()
        }
    }
}

/// A chunk mesh's surfaces in Godot's stored form; `None` where the surface is empty. The same
/// four as [`ChunkMesh`], in [`SURFACE_NAMES`](crate::mesh::SURFACE_NAMES) order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshBytes {
    pub opaque: Option<SurfaceBytes>,
    pub cutout: Option<SurfaceBytes>,
    pub transparent: Option<SurfaceBytes>,
    pub liquid: Option<SurfaceBytes>,
    /// The padded box's occluder bits, for AO computed per fragment; empty unless the mesher was
    /// asked for them ([`Mesher::set_occluder_bits`](crate::mesh::Mesher::set_occluder_bits)).
    pub occluders: OccluderBits,
}

impl MeshBytes {
    pub fn from_mesh(m: &ChunkMesh) -> Self {
        let mut out = Self::default();
        out.pack(m);
        out
    }

    /// Packs `m` into these streams, reusing their buffers (a recycled `MeshBytes` allocates
    /// nothing once its buffers have grown). The arrays hold no occluder bits: those are emptied.
    pub fn pack(&mut self, m: &ChunkMesh) {
        self.occluders.clear();
        for (s, slot) in m.surfaces().into_iter().zip(self.surfaces_mut()) {
            pack_into(s, slot);
        }
    }

    /// The four surfaces in [`SURFACE_NAMES`](crate::mesh::SURFACE_NAMES) order.
    pub fn surfaces(&self) -> [&Option<SurfaceBytes>; 4] {
        [&self.opaque, &self.cutout, &self.transparent, &self.liquid]
    }

    /// True when no surface has a triangle.
    pub fn is_empty(&self) -> bool {
        self.surfaces().iter().all(|s| s.is_none())
    }

    pub(super) fn surfaces_mut(&mut self) -> [&mut Option<SurfaceBytes>; 4] {
        [&mut self.opaque, &mut self.cutout, &mut self.transparent, &mut self.liquid]
    }
}

/// Packs `s` into `slot`, reusing the buffers of what was there; `None` for an empty surface.
fn pack_into(s: &MeshSurface, slot: &mut Option<SurfaceBytes>) {
    let mut out = slot.take().unwrap_or_default();
    *slot = pack_surface_into(s, &mut out).then_some(out);
}

/// Packs `s` into Godot's streams; `None` for an empty surface.
pub fn pack_surface(s: &MeshSurface) -> Option<SurfaceBytes> {
    let mut out = SurfaceBytes::default();
    pack_surface_into(s, &mut out).then_some(out)
}

/// Packs `s` into `out`, reusing its buffers; false (and `out` unspecified) for an empty surface.
pub fn pack_surface_into(s: &MeshSurface, out: &mut SurfaceBytes) -> bool {
    #[cfg(target_arch = "x86_64")]
    if crate::base::simd::avx2() {
        // SAFETY: the CPU has AVX2 (checked just above).
        return unsafe { pack_surface_avx2(s, out) };
    }
    pack_surface_with::<false>(s, out)
}

/// [`pack_surface_into`] compiled for AVX2 (same code, same bytes, wider loads and stores).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn pack_surface_avx2(s: &MeshSurface, out: &mut SurfaceBytes) -> bool {
    pack_surface_with::<true>(s, out)
}

/// [`pack_surface_into`]'s body, inlined into each build; `AVX2`: the CPU has it (the attribute
/// stream then goes through [`attributes_avx2`]).
#[inline(always)]
fn pack_surface_with<const AVX2: bool>(s: &MeshSurface, out: &mut SurfaceBytes) -> bool {
    let n = s.positions.len();
    if s.indices.is_empty()
        || n == 0
        || s.directions.len() != n
        || s.colors.len() != n
        || s.layers.len() != n
        || s.lights.len() != n
    {
        return false;
    }
    let flat = s.positions.as_flattened();
    // Every loop below is written out here rather than in closures: a closure is compiled without
    // the AVX2 of `pack_surface_avx2`, which inlines this function.
    let (mut vertex_data, mut index_data) = (std::mem::take(&mut out.vertex_data), std::mem::take(&mut out.index_data));
    copy_f32_le(flat, spare_bytes(&mut vertex_data, n * VERTEX_STRIDE));
    // SAFETY: `copy_f32_le` wrote all `3n` floats' bytes.
    unsafe { vertex_data.set_len(n * VERTEX_STRIDE) };
    let index_len = s.indices.len() * if n > 1 << 16 { 4 } else { 2 };
    let bytes = spare_bytes(&mut index_data, index_len);
    if n > 1 << 16 {
        for (o, &i) in bytes.as_chunks_mut::<4>().0.iter_mut().zip(&s.indices) {
            *o = (i as u32).to_le_bytes().map(MaybeUninit::new);
        }
    } else {
        narrow_indices_u16(&s.indices, bytes);
    }
    // SAFETY: one whole chunk per index (`index_len` bytes in all), each written.
    unsafe { index_data.set_len(index_len) };
    let mut attribute_data = std::mem::take(&mut out.attribute_data);
    let colorless = all_white(&s.colors);
    if colorless {
        // Per vertex: custom0 alone.
        let bytes = spare_bytes(&mut attribute_data, n * ATTRIBUTE_STRIDE_NO_COLOR);
        let vertices = s.layers.iter().zip(&s.lights).zip(&s.directions);
        for (o, ((&layer, &light), &d)) in bytes.as_chunks_mut::<4>().0.iter_mut().zip(vertices) {
            *o = vertex_custom0(layer, light, d).to_le_bytes().map(MaybeUninit::new);
        }
        // SAFETY: one whole chunk of 4 bytes per vertex (the arrays are n long), each written.
        unsafe { attribute_data.set_len(n * ATTRIBUTE_STRIDE_NO_COLOR) };
    } else {
        pack_attributes::<AVX2>(s, &mut attribute_data);
    }
    let (lo, hi) = bounds(&s.positions);
    let size = aabb_size(lo, hi);
    *out = SurfaceBytes {
        format: if colorless { FORMAT_NO_COLOR } else { FORMAT },
        vertex_data,
        attribute_data,
        index_data,
        vertex_count: n as u32,
        index_count: s.indices.len() as u32,
        aabb_position: lo,
        aabb_size: size,
    };
    true
}

/// The interleaved attribute stream (colour, custom0) of `s` into `attribute_data`.
#[inline(always)]
fn pack_attributes<const AVX2: bool>(s: &MeshSurface, attribute_data: &mut Vec<u8>) {
    let n = s.positions.len();
    // Per vertex: the colour (Godot's bytes already), then custom0.
    let bytes = spare_bytes(attribute_data, n * ATTRIBUTE_STRIDE);
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))] // set only by the x86_64 SIMD paths
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    if AVX2 {
        // SAFETY: `AVX2` is set only in `pack_surface_avx2`, called once the CPU has it.
        done = unsafe { attributes_avx2(s, bytes) };
    }
    let vertices = s.colors.iter().zip(&s.layers).zip(&s.lights).zip(&s.directions).skip(done);
    let rows = bytes[done * ATTRIBUTE_STRIDE..].as_chunks_mut::<ATTRIBUTE_STRIDE>().0.iter_mut();
    for (o, (((&c, &layer), &light), &d)) in rows.zip(vertices) {
        let [a, b] = vertex_words(c, layer, light, d);
        // SAFETY: `o` is 8 bytes, the size of the two words; an unaligned write of plain values.
        unsafe { o.as_mut_ptr().cast::<[u32; 2]>().write_unaligned([a.to_le(), b.to_le()]) };
    }
    // SAFETY: the vertex arrays are n long (checked above): one whole chunk of 8 bytes per
    // vertex, each written (the first `done` by `attributes_avx2`).
    unsafe { attribute_data.set_len(n * ATTRIBUTE_STRIDE) };
}

/// The size of the bounding box from `lo` to `hi`, at least 0.00001 on each axis, as Godot makes
/// it.
#[inline(always)]
pub(super) fn aabb_size(lo: [f32; 3], hi: [f32; 3]) -> [f32; 3] {
    let small = 0.00001_f64 as f32;
    [0, 1, 2].map(|a| {
        let d = hi[a] - lo[a];
        if d < small { small } else { d }
    })
}

/// The format of every packed surface (custom0 in `ARRAY_CUSTOM_R_FLOAT`).
pub const FORMAT: u64 = format::VERTEX
    | format::COLOR
    | format::CUSTOM0
    | format::CUSTOM_R_FLOAT << format::CUSTOM0_SHIFT
    | format::INDEX
    | format::VERSION_2;

/// The format of a packed surface whose vertices are all [`WHITE`]: [`FORMAT`] without colours.
pub const FORMAT_NO_COLOR: u64 = FORMAT & !format::COLOR;

/// Minimum and maximum corner of `positions` (not empty). Eight vertices at a time, so the
/// comparisons run in vector lanes; the same result as one at a time.
#[inline(always)]
fn bounds(positions: &[[f32; 3]]) -> ([f32; 3], [f32; 3]) {
    let min = |a: f32, b: f32| if b < a { b } else { a };
    let max = |a: f32, b: f32| if b > a { b } else { a };
    let (blocks, rest) = positions.as_flattened().as_chunks::<24>();
    let first = positions[0];
    let (mut lo8, mut hi8) = ([0.0f32; 24], [0.0f32; 24]);
    for k in 0..24 {
        lo8[k] = first[k % 3];
        hi8[k] = first[k % 3];
    }
    for b in blocks {
        for k in 0..24 {
            lo8[k] = min(lo8[k], b[k]);
            hi8[k] = max(hi8[k], b[k]);
        }
    }
    let (mut lo, mut hi) = (first, first);
    for v in lo8.as_chunks::<3>().0.iter().chain(rest.as_chunks::<3>().0) {
        lo = [0, 1, 2].map(|a| min(lo[a], v[a]));
    }
    for v in hi8.as_chunks::<3>().0.iter().chain(rest.as_chunks::<3>().0) {
        hi = [0, 1, 2].map(|a| max(hi[a], v[a]));
    }
    (lo, hi)
}

/// Writes `floats` into `out` (exactly `4 * floats.len()` bytes) little-endian.
#[inline(always)]
fn copy_f32_le(floats: &[f32], out: &mut [MaybeUninit<u8>]) {
    assert_eq!(out.len(), 4 * floats.len());
    #[cfg(target_endian = "little")]
    // SAFETY: a little-endian `f32`'s memory is its `to_le_bytes`; both ranges are `4 * len`
    // bytes (checked above) and cannot overlap (`out` is borrowed mutably).
    unsafe {
        std::ptr::copy_nonoverlapping(floats.as_ptr().cast::<u8>(), out.as_mut_ptr().cast::<u8>(), out.len());
    }
    #[cfg(not(target_endian = "little"))]
    for (o, f) in out.as_chunks_mut::<4>().0.iter_mut().zip(floats) {
        *o = f.to_le_bytes().map(MaybeUninit::new);
    }
}

/// Writes each index as a little-endian u16 into `out` (exactly `2 * indices.len()` bytes),
/// sixteen at a time so the narrowing runs in vector lanes.
#[inline(always)]
fn narrow_indices_u16(indices: &[i32], out: &mut [MaybeUninit<u8>]) {
    assert_eq!(out.len(), 2 * indices.len());
    let (blocks, rest) = indices.as_chunks::<16>();
    let (out_blocks, out_rest) = out.split_at_mut(32 * blocks.len());
    for (o, b) in out_blocks.as_chunks_mut::<32>().0.iter_mut().zip(blocks) {
        let mut bytes = [0u8; 32];
        for k in 0..16 {
            bytes[2 * k] = b[k] as u8;
            bytes[2 * k + 1] = (b[k] >> 8) as u8;
        }
        *o = bytes.map(MaybeUninit::new);
    }
    for (o, &i) in out_rest.as_chunks_mut::<2>().0.iter_mut().zip(rest) {
        *o = (i as u16).to_le_bytes().map(MaybeUninit::new);
    }
}

/// The first `len` bytes of `v`'s capacity, uninitialised, after emptying it (keeping its
/// allocation, and without zeroing them); the caller writes them all, then sets the length.
#[inline(always)]
fn spare_bytes(v: &mut Vec<u8>, len: usize) -> &mut [MaybeUninit<u8>] {
    v.clear();
    v.reserve(len);
    &mut v.spare_capacity_mut()[..len]
}

/// The attribute stream of `s`'s vertices eight at a time (as many as fill whole groups of
/// eight), into `out` (`8 · n` bytes, `n` the vertex count, which every array of `s` has): the
/// same bytes as [`vertex_words`] one at a time. Returns how many vertices it wrote.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn attributes_avx2(s: &MeshSurface, out: &mut [MaybeUninit<u8>]) -> usize {
    use std::arch::x86_64::{
        __m128i, __m256i, _mm_loadl_epi64, _mm_loadu_si128, _mm256_castps_si256, _mm256_cvtepi32_ps,
        _mm256_cvtepu8_epi32, _mm256_cvtepu16_epi32, _mm256_loadu_si256, _mm256_min_epu32, _mm256_or_si256,
        _mm256_permute2x128_si256, _mm256_set1_epi32, _mm256_slli_epi32, _mm256_storeu_si256, _mm256_unpackhi_epi32,
        _mm256_unpacklo_epi32,
    };
    let groups = s.colors.len() / 8;
    assert!(
        s.layers.len() >= 8 * groups
            && s.lights.len() >= 8 * groups
            && s.directions.len() >= 8 * groups
            && out.len() >= 64 * groups,
        "arrays shorter than the colours"
    );
    let (max_layer, max_direction) = (_mm256_set1_epi32(CUSTOM0_NO_LAYER as i32), _mm256_set1_epi32(7));
    for g in 0..groups {
        let v = 8 * g;
        // SAFETY: vertices v..v + 8 lie in every array and bytes 64g..64g + 64 in `out` (checked
        // above); every load and store is unaligned and of plain values.
        unsafe {
            let layers = _mm256_cvtepu16_epi32(_mm_loadu_si128(s.layers.as_ptr().add(v).cast::<__m128i>()));
            let lights = _mm256_cvtepu8_epi32(_mm_loadl_epi64(s.lights.as_ptr().add(v).cast::<__m128i>()));
            let directions = _mm256_cvtepu8_epi32(_mm_loadl_epi64(s.directions.as_ptr().add(v).cast::<__m128i>()));
            let packed = _mm256_or_si256(
                _mm256_or_si256(_mm256_min_epu32(layers, max_layer), _mm256_slli_epi32::<12>(lights)),
                _mm256_slli_epi32::<20>(_mm256_min_epu32(directions, max_direction)),
            );
            let custom0 = _mm256_castps_si256(_mm256_cvtepi32_ps(packed));
            let colors = _mm256_loadu_si256(s.colors.as_ptr().add(v).cast::<__m256i>());
            // Lanes (c0 v0 c1 v1 | c4 v4 c5 v5) and (c2 v2 c3 v3 | c6 v6 c7 v7), then in order.
            let (lo, hi) = (_mm256_unpacklo_epi32(colors, custom0), _mm256_unpackhi_epi32(colors, custom0));
            let o = out.as_mut_ptr().add(64 * g).cast::<__m256i>();
            _mm256_storeu_si256(o, _mm256_permute2x128_si256::<0x20>(lo, hi));
            _mm256_storeu_si256(o.add(1), _mm256_permute2x128_si256::<0x31>(lo, hi));
        }
    }
    8 * groups
}

/// A vertex's two attribute words: its colour's bytes and its custom0 value's bits.
#[inline(always)]
fn vertex_words(c: [u8; 4], layer: u16, light: u8, direction: u8) -> [u32; 2] {
    [u32::from_le_bytes(c), vertex_custom0(layer, light, direction).to_bits()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::rgba8;

    fn quad_up() -> MeshSurface {
        MeshSurface {
            positions: vec![[0.0, 1.0, 0.0], [1.0, 1.0, 0.0], [1.0, 1.0, 1.0], [0.0, 1.0, 1.0]],
            directions: vec![2; 4],
            colors: vec![rgba8([1.0, 0.5, 0.0, 1.0]); 4],
            layers: vec![0x107; 4],
            lights: vec![0x9C; 4],
            indices: vec![0, 2, 1, 0, 3, 2],
        }
    }

    #[test]
    fn streams_have_godots_sizes_and_order() {
        let b = pack_surface(&quad_up()).expect("non-empty");
        assert_eq!(b.vertex_count, 4);
        assert_eq!(b.index_count, 6);
        assert_eq!(b.vertex_data.len(), 4 * 12, "positions only");
        assert_eq!(b.attribute_data.len(), 4 * 8, "colour and custom0 per vertex");
        assert_eq!(b.index_data.len(), 6 * 2, "u16 indices below 65,537 vertices");
        assert_eq!(&b.vertex_data[12..24], &[1.0f32, 1.0, 0.0].map(f32::to_le_bytes).concat()[..]);
        assert_eq!(&b.index_data[2..4], &2u16.to_le_bytes());
        // 0.5 × 255 = 127.5, truncated like Godot.
        assert_eq!(&b.attribute_data[0..4], &[255, 127, 0, 255]);
        // Vertex 2: its colour, then custom0: layer 0x107, light 0x9C (sky 9, block 12),
        // direction 2 (+y) as 0x107 + 4096 · (0x9C + 256 · 2).
        assert_eq!(&b.attribute_data[16..20], &[255, 127, 0, 255]);
        let custom0 = f32::from_le_bytes(b.attribute_data[20..24].try_into().unwrap());
        assert_eq!(custom0, (0x107 + 4096 * (0x9C + 256 * 2)) as f32);
        assert_eq!(b.aabb_position, [0.0, 1.0, 0.0]);
        assert_eq!(b.aabb_size, [1.0, 0.00001_f64 as f32, 1.0], "a flat box keeps Godot's minimum size");
        // Godot's bits: vertex 1, colour 8, custom0 64, index 4096; no normal, tangent or UVs;
        // custom0's format (bits 13–15) R_FLOAT (4).
        assert_eq!(b.format & 0x1FFF, 0x1049);
        assert_eq!(b.format >> format::CUSTOM0_SHIFT & 0b111, 4);
        assert_eq!(b.format & format::VERSION_2, format::VERSION_2);
    }

    /// The shaders' decoding of custom0, in f32 as a GPU runs it.
    fn decode_custom0(v: f32) -> (f32, f32, f32) {
        let high = (v / 4096.0).floor();
        let layer = v - 4096.0 * high;
        let direction = (high / 256.0).floor();
        (layer, high - 256.0 * direction, direction)
    }

    #[test]
    fn custom0_holds_layer_light_and_direction_exactly() {
        for layer in [0u16, 1, 7, 255, 256, 2047, 4094, 4095, 4096, crate::mesh::NO_TEXTURE] {
            for light in [0u8, 0x0F, 0x9C, 0xF0, 0xFF] {
                for d in 0..6u8 {
                    let v = vertex_custom0(layer, light, d);
                    assert!(v < (1u32 << 24) as f32 && v.fract() == 0.0, "a whole number exact in f32");
                    let want = (layer.min(CUSTOM0_NO_LAYER) as f32, light as f32, d as f32);
                    assert_eq!(decode_custom0(v), want, "layer {layer}, light {light:#x}, direction {d}");
                }
            }
        }
    }

    #[test]
    fn attributes_interleave_each_vertex_colour_and_custom0() {
        for n in 1..40usize {
            let s = MeshSurface {
                positions: (0..n).map(|i| [i as f32, 0.0, 0.0]).collect(),
                directions: (0..n).map(|i| (i % 6) as u8).collect(),
                colors: (0..n).map(|i| [i as u8, (i * 7) as u8, (i * 13) as u8, 255 - i as u8]).collect(),
                layers: (0..n).map(|i| (i * 211 % 5000) as u16).collect(),
                lights: (0..n).map(|i| (i * 37) as u8).collect(),
                indices: vec![0; 3],
            };
            let b = pack_surface(&s).expect("non-empty");
            let want: Vec<u8> = (0..n)
                .flat_map(|i| {
                    let custom0 = vertex_custom0(s.layers[i], s.lights[i], s.directions[i]).to_le_bytes();
                    s.colors[i].into_iter().chain(custom0)
                })
                .collect();
            assert_eq!(b.attribute_data, want, "{n} vertices");
            let mut portable = SurfaceBytes::default();
            assert!(pack_surface_with::<false>(&s, &mut portable));
            assert_eq!(portable, b, "{n} vertices: the portable build packs the same bytes");
        }
    }

    #[test]
    fn packing_into_recycled_buffers_gives_the_same_bytes() {
        let big = MeshSurface {
            positions: (0..40).map(|i| [i as f32, 2.0, 0.0]).collect(),
            directions: vec![0; 40],
            colors: vec![rgba8([0.2, 0.4, 0.6, 1.0]); 40],
            layers: vec![2; 40],
            lights: vec![0xF0; 40],
            indices: (0..60).collect(),
        };
        let mut reused = MeshBytes::from_mesh(&ChunkMesh {
            opaque: big.clone(),
            cutout: big.clone(),
            transparent: big.clone(),
            liquid: big,
        });
        let small = ChunkMesh { opaque: quad_up(), ..ChunkMesh::default() };
        reused.pack(&small);
        assert_eq!(reused, MeshBytes::from_mesh(&small), "no bytes of the bigger mesh before it remain");
        assert!(reused.liquid.is_none() && reused.cutout.is_none() && reused.transparent.is_none());
    }

    #[test]
    fn triangle_corners_read_back_from_the_streams_equal_the_arrays() {
        let s = quad_up();
        assert_eq!(pack_surface(&s).expect("non-empty").triangle_corners(), s.triangle_corners());
        let n = (1 << 16) + 2;
        let wide = MeshSurface {
            positions: (0..n).map(|i| [i as f32, 1.0, -2.0]).collect(),
            directions: vec![2; n],
            colors: vec![[255; 4]; n],
            layers: vec![0; n],
            lights: vec![0; n],
            indices: vec![0, 1, (n - 1) as i32, 5, 65_537, 65_536],
        };
        assert_eq!(pack_surface(&wide).expect("non-empty").triangle_corners(), wide.triangle_corners());
    }

    #[test]
    fn many_vertices_use_wide_indices_and_empty_is_none() {
        let n = (1 << 16) + 1;
        let s = MeshSurface {
            positions: (0..n).map(|i| [i as f32, 0.0, 0.0]).collect(),
            directions: vec![2; n],
            colors: vec![[255; 4]; n],
            layers: vec![0; n],
            lights: vec![0; n],
            indices: vec![0, 1, (n - 1) as i32],
        };
        let b = pack_surface(&s).expect("non-empty");
        assert_eq!(b.index_data.len(), 3 * 4);
        assert_eq!(&b.index_data[8..12], &((n - 1) as u32).to_le_bytes());
        assert!(pack_surface(&MeshSurface::default()).is_none());
    }

    #[test]
    fn block_wise_bounds_and_indices_equal_one_at_a_time_for_every_tail_length() {
        for n in 1..40usize {
            let positions: Vec<[f32; 3]> = (0..n)
                .map(|i| [((i * 7) % 11) as f32 - 5.0, ((i * 13) % 17) as f32 * 0.5, -(((i * 3) % 5) as f32)])
                .collect();
            let (lo, hi) = bounds(&positions);
            let naive = positions.iter().fold((positions[0], positions[0]), |(l, h), p| {
                ([0, 1, 2].map(|a| l[a].min(p[a])), [0, 1, 2].map(|a| h[a].max(p[a])))
            });
            assert_eq!((lo, hi), naive, "{n} vertices");
            let indices: Vec<i32> = (0..n as i32).map(|i| i * 1999 % 65536).collect();
            let mut bytes = vec![MaybeUninit::new(0u8); 2 * n];
            narrow_indices_u16(&indices, &mut bytes);
            // SAFETY: every byte was initialised above.
            let bytes: Vec<u8> = bytes.iter().map(|b| unsafe { b.assume_init() }).collect();
            let expected: Vec<u8> = indices.iter().flat_map(|&i| (i as u16).to_le_bytes()).collect();
            assert_eq!(bytes, expected, "{n} indices");
        }
    }

    #[test]
    fn a_surface_of_white_vertices_packs_without_colours() {
        let white = MeshSurface { colors: vec![WHITE; 4], ..quad_up() };
        let b = pack_surface(&white).expect("non-empty");
        assert_eq!(b.format, FORMAT_NO_COLOR);
        assert!(!b.has_colors());
        assert_eq!(b.format & format::COLOR, 0);
        let with = pack_surface(&quad_up()).expect("non-empty");
        assert_eq!(b.attribute_data.len(), 4 * ATTRIBUTE_STRIDE_NO_COLOR, "custom0 alone");
        let custom0: Vec<u8> = with.attribute_data.chunks_exact(8).flat_map(|v| v[4..].to_vec()).collect();
        assert_eq!(b.attribute_data, custom0);
        assert_eq!((&b.vertex_data, &b.index_data), (&with.vertex_data, &with.index_data));
        // One vertex of another colour (or alpha) keeps them all.
        for odd in [[254, 255, 255, 255], [255, 255, 255, 128]] {
            let mut s = white.clone();
            s.colors[2] = odd;
            let b = pack_surface(&s).expect("non-empty");
            assert!(b.has_colors() && b.attribute_data.len() == 4 * ATTRIBUTE_STRIDE);
        }
        assert_eq!(attribute_stride(&white.colors), ATTRIBUTE_STRIDE_NO_COLOR);
        assert_eq!(attribute_stride(&quad_up().colors), ATTRIBUTE_STRIDE);
    }
}
