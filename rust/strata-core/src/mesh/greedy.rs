//! [`Mesher`], the binary greedy mesher: its reusable scratch, and steps 1 to 3 of the module's
//! outline (class masks, visible faces, merge masks), each direction compiled on its own so its
//! offsets are constants. Step 4 is [`crate::mesh::merge`]'s, step 5 [`crate::mesh::quads`]'s
//! (and [`crate::mesh::quad_bytes`]'s), the collision pass [`crate::mesh::collision`]'s.
//!
//! May use: `base` and the other `mesh` modules.

use crate::base::block::{self, BlockId};
use crate::base::block_library::RenderMode;
use crate::base::chunk::VoxelBuffer;
use crate::base::simd::PORTABLE;
#[cfg(target_arch = "x86_64")]
use crate::base::simd::{AVX2, AVX512};
use crate::light::LightBuffer;
use crate::mesh::ao::{AO_LEVELS, ao_uniformity, neighbours_in_front};
use crate::mesh::bytes::MeshBytes;
use crate::mesh::error::MeshError;
use crate::mesh::layout::{Axis, Dims, MAX_PADDED, Orientation, SliceLayout, axis_of, front_offset};
use crate::mesh::materials::MeshMaterials;
use crate::mesh::occluders::OccluderBits;
use crate::mesh::quad_bytes::StreamsTarget;
use crate::mesh::quads::{FaceRows, MeshTarget, QuadLooks};
use crate::mesh::transpose::transpose_layers;
use crate::mesh::types::{ChunkMesh, FACE_SHADE, FACES, LIQUID_ALPHA, TRANSPARENT_ALPHA, rgba8};
use crate::mesh::voxels::{
    CLASS_AIR, CLASS_CUTOUT, CLASS_CUTOUT_HIDES_SAME, CLASS_LIQUID, CLASS_OPAQUE, CLASS_PHYSICS, CLASS_SOLID,
    CLASS_TRANSPARENT, FAST_CUTOUT_OTHERS, bit_range, flat_masks, same_blocks,
};
#[cfg(target_arch = "x86_64")]
use crate::mesh::voxels::{class_rows_wide, class_rows_wide_512, cutout_rows_wide, equal_bytes_64, equal_bytes_64_512};
use std::sync::Arc;

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

/// Class masks of the padded box in one orientation (see [`Orientation`]): `solid` holds the
/// blocks that hide faces (solid and opaque; for collision, the solid ones); the others the
/// blocks whose faces go to each surface. `opaque` is only filled where it differs from `solid`
/// (see `Mesher::opaque_is_solid`), `air` only on the fast voxel pass; `cutout_hides_same`
/// holds the cutout blocks that hide the faces between two of their own (a subset of `cutout`).
#[derive(Default)]
struct ClassRows {
    solid: Vec<u64>,
    opaque: Vec<u64>,
    cutout: Vec<u64>,
    cutout_hides_same: Vec<u64>,
    transparent: Vec<u64>,
    liquid: Vec<u64>,
    air: Vec<u64>,
}

/// Which kinds of blocks the interior of a box holds (step 1's answer).
struct Present {
    /// Anything that could show a face.
    any: bool,
    liquid: bool,
    cutout: bool,
    transparent: bool,
}

/// Which surfaces a direction has faces on: opaque (for collision: solid), cutout, transparent,
/// liquid.
#[derive(Clone, Copy, Default)]
pub(super) struct FacesOn {
    pub(super) opaque: bool,
    cutout: bool,
    transparent: bool,
    liquid: bool,
}

/// One direction's visible faces and merge masks, in its orientation's padded rows (bit `b - 1`
/// for padded bit `b`; rows of the halo hold leftovers).
#[derive(Default)]
pub(super) struct DirectionFaces {
    /// Opaque faces (for collision: solid faces).
    pub(super) solid: Vec<u64>,
    cutout: Vec<u64>,
    transparent: Vec<u64>,
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
    /// Whether this box's liquid, cutout and transparent faces are meshed (rendering, and the
    /// interior holds such blocks): only then are those rows along z up to date.
    liquid_faces: bool,
    cutout_faces: bool,
    transparent_faces: bool,
    /// Whether the blocks drawing opaque faces are exactly those hiding faces (the fast voxel
    /// pass, and collision), so `solid` stands for `opaque`.
    opaque_is_solid: bool,
    /// Whether a liquid face may lie against another liquid block of a different type (or a
    /// transparent one against another transparent type): then faces between two such blocks
    /// compare their ids. False on the fast voxel pass (one liquid, no transparent blocks).
    compare_ids: bool,
    /// Whether the materials hold a cutout block that hides the faces between two of its own
    /// voxels (leaves), and whether they hold exactly one (then two such voxels side by side
    /// are the same block without comparing ids).
    cutout_hides_same: bool,
    single_cutout_hides_same: bool,
    /// The one cutout block that hides the faces between two of its own (leaves), when the fast
    /// voxel pass may take boxes holding it: with the ids below the library's end that are
    /// neither simple nor that block (at most [`FAST_CUTOUT_OTHERS`], repeated to fill), whose
    /// presence sends a box to the general pass.
    fast_cutout: Option<(BlockId, [BlockId; FAST_CUTOUT_OTHERS])>,
    /// Whether this box's `cutout_hides_same` rows are its `cutout` rows (the fast pass took
    /// a box with the `fast_cutout` block), so only `cutout` is packed and transposed.
    cutout_rows_hide_same: bool,
    /// Masks over the flat voxel array (64 voxels a word, a spare zero word at the end), before
    /// they are cut into rows: equal to air, and equal to the liquid.
    flat_air: Vec<u64>,
    flat_liquid: Vec<u64>,
    /// One direction's faces and merge masks.
    pub(super) faces: DirectionFaces,
    /// AO uniformity of the previous y layer's faces, per row, for the merge masks across y.
    layer_uniformity: Vec<u64>,
    /// What each block id looks like (see [`Mesher::set_materials`]).
    materials: Arc<MeshMaterials>,
    /// Class bits (`CLASS_*`) of each id the materials know, then of unknown ids.
    class: Vec<u8>,
    /// Colour of each id the materials know (then of unknown ids) per face direction and AO
    /// level, in RGBA8 ([`rgba8`]): shaded (unless `shade_in_shader`, liquids excepted),
    /// darkened by the level's brightness, with the surface's alpha. Liquid faces take the open
    /// level (brightness one).
    colors: Vec<[[[u8; 4]; 4]; 6]>,
    /// Whether the face shade is left to the shaders (see [`Mesher::set_shade_in_shader`]).
    shade_in_shader: bool,
    /// The colour streams the byte writer keeps apart from custom0 (see `quad_bytes`), kept
    /// between meshes.
    color_scratch: [Vec<u8>; 4],
    /// Texture layer of each id the materials know (then of unknown ids) per face direction.
    layers: Vec<[u16; 6]>,
    /// Set when every id below `simple_below` is air, this one liquid, or solid opaque: boxes of
    /// those ids only take the fast voxel pass.
    single_liquid: Option<BlockId>,
    simple_below: BlockId,
    /// Per id: air, `single_liquid` or a solid opaque block (the fast pass's classes), wherever
    /// it stands in the library.
    simple: Vec<bool>,
    /// Whether solid faces carry ambient occlusion (see [`Mesher::set_ambient_occlusion`]).
    ambient_occlusion: bool,
    /// Whether the byte-stream meshers also write the occluder bits (see
    /// [`Mesher::set_occluder_bits`]).
    occluder_bits: bool,
    /// Whether `along_x.solid` holds the occluders of the box being meshed (step 1 ran in
    /// render mode in this call).
    solid_rows_valid: bool,
}

impl Default for Mesher {
    fn default() -> Self {
        Self::new()
    }
}

impl Mesher {
    /// A mesher with the default materials ([`MeshMaterials::shared_default`]).
    pub fn new() -> Self {
        Self::with_materials(MeshMaterials::shared_default())
    }

    /// A mesher with `materials`.
    pub fn with_materials(materials: Arc<MeshMaterials>) -> Self {
        let mut m = Self {
            along_x: ClassRows::default(),
            along_z: ClassRows::default(),
            liquid_faces: false,
            cutout_faces: false,
            transparent_faces: false,
            opaque_is_solid: true,
            compare_ids: false,
            cutout_hides_same: false,
            single_cutout_hides_same: false,
            fast_cutout: None,
            cutout_rows_hide_same: false,
            flat_air: Vec::new(),
            flat_liquid: Vec::new(),
            faces: DirectionFaces::default(),
            layer_uniformity: Vec::new(),
            materials: materials.clone(),
            class: Vec::new(),
            colors: Vec::new(),
            shade_in_shader: false,
            color_scratch: Default::default(),
            layers: Vec::new(),
            single_liquid: None,
            simple_below: 0,
            simple: Vec::new(),
            ambient_occlusion: true,
            occluder_bits: false,
            solid_rows_valid: false,
        };
        m.set_materials(materials);
        m
    }

    /// Meshes with `materials` from now on (cheap when they are the ones already set).
    pub fn set_materials(&mut self, materials: Arc<MeshMaterials>) {
        if Arc::ptr_eq(&materials, &self.materials) && !self.class.is_empty() {
            return;
        }
        let count = materials.len();
        // The ids the materials know, then one entry for every unknown id.
        let id_of = |k: usize| if k < count { k as BlockId } else { BlockId::MAX };
        let look = |k: usize| if k < count { *materials.look(k as BlockId) } else { *materials.look(BlockId::MAX) };
        self.class = (0..=count)
            .map(|k| {
                let l = look(k);
                if k < count && id_of(k) == block::AIR {
                    return CLASS_AIR;
                }
                let mut c = match l.render_mode {
                    RenderMode::Opaque => CLASS_OPAQUE,
                    RenderMode::Cutout => CLASS_CUTOUT,
                    RenderMode::Transparent => CLASS_TRANSPARENT,
                    RenderMode::Liquid => CLASS_LIQUID,
                };
                if l.occludes() {
                    c |= CLASS_SOLID;
                }
                if l.solid {
                    c |= CLASS_PHYSICS;
                }
                if l.render_mode == RenderMode::Cutout && l.hides_same {
                    c |= CLASS_CUTOUT_HIDES_SAME;
                }
                c
            })
            .collect();
        let hiding = self.class[..count].iter().filter(|&&c| c & CLASS_CUTOUT_HIDES_SAME != 0).count();
        self.cutout_hides_same = hiding > 0;
        self.single_cutout_hides_same = hiding == 1;
        // The fast pass's ids: a prefix of air, solid opaque blocks and one liquid.
        let simple = CLASS_SOLID | CLASS_OPAQUE | CLASS_PHYSICS;
        let mut single_liquid = None;
        let mut simple_below = count.min(BlockId::MAX as usize);
        for (id, &c) in self.class[..count].iter().enumerate() {
            if c == CLASS_AIR || c == simple {
                continue;
            }
            if c == CLASS_LIQUID && single_liquid.is_none() {
                single_liquid = Some(id as BlockId);
                continue;
            }
            simple_below = id;
            break;
        }
        self.single_liquid = single_liquid;
        self.simple_below = simple_below as BlockId;
        // A forest's leaves keep a box on the fast pass when the other ids past the prefix
        // are few enough to look for (logs, planks and other solid opaque blocks need no look).
        self.fast_cutout = None;
        if self.single_cutout_hides_same && count <= BlockId::MAX as usize {
            let is_fast_cutout = |c: u8| c & CLASS_CUTOUT_HIDES_SAME != 0;
            let cutout_id = self.class[..count].iter().position(|&c| is_fast_cutout(c));
            let others: Vec<BlockId> = (simple_below..count)
                .filter(|&id| {
                    let c = self.class[id];
                    !(c == simple || is_fast_cutout(c) || single_liquid == Some(id as BlockId))
                })
                .map(|id| id as BlockId)
                .collect();
            if let Some(cutout_id) = cutout_id
                && others.len() <= FAST_CUTOUT_OTHERS
            {
                // Unused places look for an id past the library's end, which such a box lacks.
                let fill = others.first().copied().unwrap_or(BlockId::MAX);
                let mut padded = [fill; FAST_CUTOUT_OTHERS];
                padded[..others.len()].copy_from_slice(&others);
                self.fast_cutout = Some((cutout_id as BlockId, padded));
            }
        }
        self.simple = self
            .class
            .iter()
            .enumerate()
            .map(|(id, &c)| c == CLASS_AIR || c == simple || (single_liquid == Some(id as BlockId)))
            .collect();
        self.layers = (0..=count).map(|k| look(k).layers).collect();
        self.materials = materials;
        self.build_colors();
    }

    /// The colour table (`colors`) of the materials set, shaded or not as `shade_in_shader` says.
    fn build_colors(&mut self) {
        let materials = &self.materials;
        let count = materials.len();
        let look = |k: usize| if k < count { *materials.look(k as BlockId) } else { *materials.look(BlockId::MAX) };
        let shade_in_shader = self.shade_in_shader;
        self.colors = (0..=count)
            .map(|k| {
                let l = look(k);
                let [r, g, b] = l.color;
                let alpha = match l.render_mode {
                    RenderMode::Liquid => LIQUID_ALPHA,
                    RenderMode::Transparent => TRANSPARENT_ALPHA,
                    RenderMode::Opaque | RenderMode::Cutout => 1.0,
                };
                let shaded_here = !shade_in_shader || l.render_mode == RenderMode::Liquid;
                std::array::from_fn(|d| {
                    let shade = if shaded_here { FACE_SHADE[d] } else { 1.0 };
                    let color = [r * shade, g * shade, b * shade, alpha];
                    // `color * [s, s, s, 1]`, as the reference mesher scales it.
                    AO_LEVELS.map(|s| rgba8([color[0] * s, color[1] * s, color[2] * s, color[3]]))
                })
            })
            .collect();
    }

    /// Leaves the face shade (each direction's brightness, `FACE_SHADE`) to the shaders: the
    /// vertex colours of every surface but the liquid one are the blocks' own colours, so a
    /// textured block's faces are white and their surfaces are packed without a colour stream
    /// ([`crate::mesh::bytes`]). Off by default; the block shaders shade when
    /// `strata_occlusion` is on, so pair it with [`Mesher::set_occluder_bits`].
    pub fn set_shade_in_shader(&mut self, on: bool) {
        if self.shade_in_shader != on {
            self.shade_in_shader = on;
            self.build_colors();
        }
    }

    pub fn shade_in_shader(&self) -> bool {
        self.shade_in_shader
    }

    /// The materials this mesher meshes with.
    pub fn materials(&self) -> &Arc<MeshMaterials> {
        &self.materials
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

    /// Has [`Mesher::mesh_bytes`] and [`Mesher::mesh_lit_bytes`] also write the padded box's
    /// occluder bits into [`MeshBytes::occluders`] (off by default), for AO computed per fragment
    /// ([`crate::mesh::occluders`]). Pair it with [`Mesher::set_ambient_occlusion`] off: the
    /// quads then merge by block and light alone and the shader adds the occlusion.
    pub fn set_occluder_bits(&mut self, on: bool) {
        self.occluder_bits = on;
    }

    pub fn occluder_bits(&self) -> bool {
        self.occluder_bits
    }

    /// The occluder bits of `padded`'s padded rows `from..=to` into `out`: step 1's solid rows
    /// when this call packed them, else one voxel at a time.
    fn write_occluders(&self, padded: &VoxelBuffer, (from, to): (usize, usize), out: &mut OccluderBits) {
        let s = padded.size();
        let size = [s.x.max(0) as usize, s.y.max(0) as usize, s.z.max(0) as usize];
        if self.solid_rows_valid && size[0] <= 64 {
            out.fill_from_rows(size, &self.along_x.solid, from, to);
            return;
        }
        // A box the row mesher does not take (wider than a word, or too thin): bit by bit.
        let last = self.class.len() - 1;
        out.reset(size);
        for (r, row) in padded.data().chunks_exact(size[0].max(1)).enumerate() {
            for (x, &id) in row.iter().enumerate() {
                if self.class[(id as usize).min(last)] & CLASS_SOLID != 0 {
                    out.set(x, r / size[2], r % size[2]);
                }
            }
        }
        out.keep_rows(from, to);
    }

    /// Meshes the interior of `padded` (all but its one-voxel halo) into `out`, reusing its
    /// buffers, every face under open sky ([`FULL_LIGHT`](crate::mesh::FULL_LIGHT)). The result shows exactly the faces of
    /// [`mesh_padded_chunk_culled`](crate::mesh::mesh_padded_chunk_culled), merged.
    pub fn mesh(&mut self, padded: &VoxelBuffer, out: &mut ChunkMesh) {
        self.mesh_any(padded, &[], out);
    }

    /// [`Mesher::mesh`] with light: each face carries the light of the voxel it looks into
    /// ([`MeshSurface::lights`](crate::mesh::MeshSurface::lights)), and faces merge only where
    /// they see the same light, so every unit face keeps its own. `light` must cover exactly the
    /// box of `padded` (a chunk's light covers the chunk and its one-voxel shell, the padded
    /// box: [`crate::light::light_chunk`]); otherwise nothing is meshed and the error says why.
    pub fn mesh_lit(
        &mut self,
        padded: &VoxelBuffer,
        light: &LightBuffer,
        out: &mut ChunkMesh,
    ) -> Result<(), MeshError> {
        if light.min() != padded.min() || light.size() != padded.size() {
            out.clear();
            return Err(MeshError::LightBox {
                voxels_min: padded.min(),
                voxels_size: padded.size(),
                light_min: light.min(),
                light_size: light.size(),
            });
        }
        self.mesh_any(padded, light.data(), out);
        Ok(())
    }

    /// [`Mesher::mesh`] straight into Godot's byte streams: exactly the bytes
    /// [`MeshBytes::pack`] gives for the arrays `mesh` makes, written in one pass as the quads
    /// are merged (see [`crate::mesh::quad_bytes`]). Reuses `out`'s buffers.
    pub fn mesh_bytes(&mut self, padded: &VoxelBuffer, out: &mut MeshBytes) {
        let mut target = StreamsTarget::reusing(out, std::mem::take(&mut self.color_scratch));
        self.mesh_any(padded, &[], &mut target);
        self.color_scratch = target.finish(out);
        self.finish_occluders(padded, out);
    }

    /// The occluder bits of a mesh just written, when asked for and it has triangles: the rows
    /// its faces reach alone. Faces whose corners lie between chunk heights `lo` and `hi` look
    /// into padded rows `lo..=hi + 1` (padded row `r` is chunk row `r − 1`: a top face at `hi`
    /// looks into row `hi + 1`, a bottom face at `lo` into row `lo`, a side face's cells and
    /// their neighbours above and below lie between), so the others are left out.
    fn finish_occluders(&self, padded: &VoxelBuffer, out: &mut MeshBytes) {
        out.occluders.clear();
        if self.occluder_bits && !out.is_empty() {
            let surfaces = out.surfaces().into_iter().flatten();
            let (lo, hi) = surfaces.fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), s| {
                (lo.min(s.aabb_position[1]), hi.max(s.aabb_position[1] + s.aabb_size[1]))
            });
            let rows = (lo.round().max(0.0) as usize, hi.round().max(0.0) as usize + 1);
            self.write_occluders(padded, rows, &mut out.occluders);
        }
    }

    /// [`Mesher::mesh_lit`] straight into Godot's byte streams, as [`Mesher::mesh_bytes`]: what a
    /// streaming worker runs for each chunk. On an error (the light's box is not the voxels')
    /// `out` is left empty.
    pub fn mesh_lit_bytes(
        &mut self,
        padded: &VoxelBuffer,
        light: &LightBuffer,
        out: &mut MeshBytes,
    ) -> Result<(), MeshError> {
        let mut target = StreamsTarget::reusing(out, std::mem::take(&mut self.color_scratch));
        if light.min() != padded.min() || light.size() != padded.size() {
            self.color_scratch = target.finish(out);
            out.occluders.clear();
            return Err(MeshError::LightBox {
                voxels_min: padded.min(),
                voxels_size: padded.size(),
                light_min: light.min(),
                light_size: light.size(),
            });
        }
        self.mesh_any(padded, light.data(), &mut target);
        self.color_scratch = target.finish(out);
        self.finish_occluders(padded, out);
        Ok(())
    }

    /// The mesher with `light` the packed light of every voxel of `padded` (same layout), or
    /// empty for open sky everywhere.
    fn mesh_any<T: MeshTarget>(&mut self, padded: &VoxelBuffer, light: &[u8], out: &mut T) {
        #[cfg(target_arch = "x86_64")]
        if wide_simd_available() {
            if crate::base::simd::avx512() {
                // SAFETY: the CPU has every feature `mesh_avx512` is compiled for (checked just
                // above).
                unsafe { self.mesh_avx512(padded, light, out) };
            } else {
                // SAFETY: the CPU has every feature `mesh_wide` is compiled for (checked just
                // above).
                unsafe { self.mesh_wide(padded, light, out) };
            }
            return;
        }
        self.mesh_in::<PORTABLE, T>(padded, light, out);
    }

    /// [`Mesher::mesh_any`] compiled for AVX2 and BMI (same code, same results, fewer instructions).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
    fn mesh_wide<T: MeshTarget>(&mut self, padded: &VoxelBuffer, light: &[u8], out: &mut T) {
        self.mesh_in::<AVX2, T>(padded, light, out);
    }

    /// [`Mesher::mesh_wide`] with AVX-512 F and BW as well (its bulk compares into mask
    /// registers).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt,avx512f,avx512bw,avx512vl,avx512dq")]
    fn mesh_avx512<T: MeshTarget>(&mut self, padded: &VoxelBuffer, light: &[u8], out: &mut T) {
        self.mesh_in::<AVX512, T>(padded, light, out);
    }

    /// The mesher in the build `SIMD`, with or without AO as set.
    #[inline(always)]
    fn mesh_in<const SIMD: u8, T: MeshTarget>(&mut self, padded: &VoxelBuffer, light: &[u8], out: &mut T) {
        if self.ambient_occlusion {
            self.mesh_with::<SIMD, true, T>(padded, light, out);
        } else {
            self.mesh_with::<SIMD, false, T>(padded, light, out);
        }
    }

    /// The mesher in the build `SIMD` (see [`crate::base::simd::AVX2`]); `AO`
    /// is [`Mesher::ambient_occlusion`].
    #[inline(always)]
    fn mesh_with<const SIMD: u8, const AO: bool, T: MeshTarget>(
        &mut self,
        padded: &VoxelBuffer,
        light: &[u8],
        out: &mut T,
    ) {
        out.clear();
        self.solid_rows_valid = false;
        let p = padded.size();
        if p.x > MAX_PADDED || p.y > MAX_PADDED || p.z > MAX_PADDED {
            let light = (!light.is_empty()).then(|| LightBuffer::from_data(padded.min(), p, light));
            out.mesh_culled(padded, &self.materials, light.as_ref(), AO, self.shade_in_shader);
            return;
        }
        let Some(dims) = self.prepare::<SIMD>(padded, true) else {
            return;
        };
        let data = padded.data();
        self.render_direction::<0, SIMD, AO, T>(data, light, dims, out);
        self.render_direction::<1, SIMD, AO, T>(data, light, dims, out);
        self.render_direction::<2, SIMD, AO, T>(data, light, dims, out);
        self.render_direction::<3, SIMD, AO, T>(data, light, dims, out);
        self.render_direction::<4, SIMD, AO, T>(data, light, dims, out);
        self.render_direction::<5, SIMD, AO, T>(data, light, dims, out);
    }

    /// Step 1 and the scratch: class masks in both orientations (for rendering, `with_liquid`:
    /// also the cutout, transparent and liquid blocks where there are any; else the solid blocks
    /// of collision). `None` when there is nothing to mesh: a box too thin for an interior, or an
    /// interior without anything that could show a face.
    #[inline(always)]
    pub(super) fn prepare<const SIMD: u8>(&mut self, padded: &VoxelBuffer, with_liquid: bool) -> Option<Dims> {
        let p = padded.size();
        if p.min_elem() < 3 {
            return None;
        }
        let (px, py, pz) = (p.x as usize, p.y as usize, p.z as usize);
        let dims = Dims { px, py, pz, nx: px - 2, ny: py - 2, nz: pz - 2 };
        let present = self.pack_rows::<SIMD>(padded, dims, !with_liquid);
        if !present.any {
            return None;
        }
        self.liquid_faces = with_liquid && present.liquid;
        self.cutout_faces = with_liquid && present.cutout;
        self.transparent_faces = with_liquid && present.transparent;
        let rows = py * px.max(pz);
        let f = &mut self.faces;
        for v in [&mut f.solid, &mut f.cutout, &mut f.transparent, &mut f.liquid, &mut f.along, &mut f.across] {
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
        transpose_layers::<SIMD>(&a.solid, &mut b.solid, dims);
        if !self.opaque_is_solid {
            transpose_layers::<SIMD>(&a.opaque, &mut b.opaque, dims);
        }
        if self.liquid_faces {
            transpose_layers::<SIMD>(&a.liquid, &mut b.liquid, dims);
        }
        if self.cutout_faces {
            transpose_layers::<SIMD>(&a.cutout, &mut b.cutout, dims);
            if self.cutout_hides_same && !self.cutout_rows_hide_same {
                transpose_layers::<SIMD>(&a.cutout_hides_same, &mut b.cutout_hides_same, dims);
            }
        }
        if self.transparent_faces {
            transpose_layers::<SIMD>(&a.transparent, &mut b.transparent, dims);
        }
        Some(dims)
    }

    /// Packs the padded box into rows along x (`collision`: `solid` holds the solid blocks, else
    /// those that hide faces), and says which kinds of blocks the interior holds.
    #[inline(always)]
    fn pack_rows<const SIMD: u8>(&mut self, padded: &VoxelBuffer, dims: Dims, collision: bool) -> Present {
        let Dims { px, py, pz, .. } = dims;
        let rows = py * pz;
        let data = padded.data();
        let ClassRows { solid, opaque, cutout, cutout_hides_same, transparent, liquid, air } = &mut self.along_x;
        // With one liquid in the library the AVX2 build packs every row's air, liquid and other
        // (solid opaque, when the row holds nothing else) classes at once, and finds the
        // highest id on the way; `simple_rows` says it did.
        #[allow(unused_mut)]
        let mut simple_rows = false;
        #[allow(unused_mut)]
        let mut highest = None;
        #[cfg(target_arch = "x86_64")]
        if SIMD >= AVX2
            && px >= 32
            && let Some(liquid_id) = self.single_liquid
        {
            for v in [&mut *solid, &mut *liquid, &mut *air] {
                if v.len() < rows {
                    v.resize(rows, 0);
                }
            }
            let (solid, liquid, air) = (&mut solid[..rows], &mut liquid[..rows], &mut air[..rows]);
            // SAFETY: `SIMD` is `AVX2` or above only in the builds compiled for AVX2 and BMI2
            // (`AVX512`: and AVX-512), which run only on CPUs that have them.
            highest = Some(unsafe {
                if SIMD >= AVX512 {
                    class_rows_wide_512(data, px, liquid_id, solid, liquid, air)
                } else {
                    class_rows_wide(data, px, liquid_id, solid, liquid, air)
                }
            });
            simple_rows = true;
        }
        // Past the prefix, a render box may still hold only the fast pass's classes and the
        // `fast_cutout` block (a forest's leaves and logs): its rows are packed into `cutout`,
        // and taken out of `solid`.
        #[allow(unused_mut)]
        let mut cutout_rows = false;
        #[cfg(target_arch = "x86_64")]
        if let (Some(highest), Some((cutout_id, others)), false) = (highest, self.fast_cutout, collision)
            && highest >= self.simple_below
            && usize::from(highest) < self.class.len() - 1
        {
            if cutout.len() < rows {
                cutout.resize(rows, 0);
            }
            // SAFETY: `highest` is `Some` only in the AVX2 builds (see above).
            if unsafe { cutout_rows_wide(data, px, cutout_id, others, &mut cutout[..rows]) } {
                for (s, c) in solid[..rows].iter_mut().zip(&cutout[..rows]) {
                    *s &= !c;
                }
                cutout_rows = true;
            }
        }
        self.cutout_rows_hide_same = cutout_rows;
        // The fast pass holds only air, one liquid and solid opaque blocks (which hide faces, are
        // solid and draw opaque faces: one mask for all three), and perhaps the `fast_cutout`
        // block.
        let fast = self.single_liquid.filter(|_| {
            cutout_rows || highest.unwrap_or_else(|| data.iter().fold(0, |m, &id| m.max(id))) < self.simple_below
        });
        self.opaque_is_solid = fast.is_some() || collision;
        self.compare_ids = fast.is_none();
        // Render mode packs the occluders (the blocks that hide faces) as `solid`.
        self.solid_rows_valid = !collision;
        let full = if px == 64 { !0u64 } else { (1u64 << px) - 1 };
        let interior = full & !1 & !(1u64 << (px - 1));
        // Each interior layer's interior rows as one slice, folded (vectorised).
        let interior_or = |rows_of: &[u64]| {
            let m = rows_of[pz..(py - 1) * pz]
                .chunks_exact(pz)
                .fold(0u64, |m, layer| layer[1..pz - 1].iter().fold(m, |m, &r| m | r));
            m & interior != 0
        };
        match fast {
            Some(liquid_id) => {
                for v in [&mut *solid, &mut *liquid, &mut *air] {
                    if v.len() < rows {
                        v.resize(rows, 0);
                    }
                }
                if simple_rows {
                    let (s, l) = (interior_or(solid), interior_or(liquid));
                    let c = cutout_rows && interior_or(cutout);
                    return Present { any: s || l || c, liquid: l, cutout: c, transparent: false };
                }
                flat_masks(data, liquid_id, &mut self.flat_air, &mut self.flat_liquid);
                let mut start = 0;
                for ((s, l), a) in solid[..rows].iter_mut().zip(&mut liquid[..rows]).zip(&mut air[..rows]) {
                    *a = bit_range(&self.flat_air, start, full);
                    *l = bit_range(&self.flat_liquid, start, full);
                    *s = !(*a | *l) & full;
                    start += px;
                }
                let (s, l) = (interior_or(solid), interior_or(liquid));
                Present { any: s || l, liquid: l, cutout: false, transparent: false }
            }
            None => {
                for v in
                    [&mut *solid, &mut *opaque, &mut *cutout, &mut *cutout_hides_same, &mut *transparent, &mut *liquid]
                {
                    if v.len() < rows {
                        v.resize(rows, 0);
                    }
                }
                let last = self.class.len() - 1;
                let solid_bit = if collision { CLASS_PHYSICS } else { CLASS_SOLID }.trailing_zeros();
                let bit = |c: u8, class: u8| ((c >> class.trailing_zeros()) & 1) as u64;
                // Rows of only air, the one liquid and solid opaque blocks (most rows of a box
                // with a few glass panes, torches or ores) keep the classes packed above: solid
                // and opaque are then the same mask, and there is no cutout or transparent face.
                for (k, row) in data.chunks_exact(px).take(rows).enumerate() {
                    let simple_ids = &self.simple;
                    if simple_rows
                        && (row.iter().fold(0, |m, &id| m.max(id)) < self.simple_below
                            || row.iter().all(|&id| simple_ids.get(id as usize).copied().unwrap_or(false)))
                    {
                        opaque[k] = solid[k];
                        cutout[k] = 0;
                        cutout_hides_same[k] = 0;
                        transparent[k] = 0;
                        continue;
                    }
                    let (mut sm, mut om, mut cm, mut hm, mut tm, mut lm) = (0u64, 0u64, 0u64, 0u64, 0u64, 0u64);
                    for (x, &id) in row.iter().enumerate() {
                        let c = self.class[(id as usize).min(last)];
                        sm |= (((c >> solid_bit) & 1) as u64) << x;
                        om |= bit(c, CLASS_OPAQUE) << x;
                        cm |= bit(c, CLASS_CUTOUT) << x;
                        hm |= bit(c, CLASS_CUTOUT_HIDES_SAME) << x;
                        tm |= bit(c, CLASS_TRANSPARENT) << x;
                        lm |= bit(c, CLASS_LIQUID) << x;
                    }
                    solid[k] = sm;
                    opaque[k] = om;
                    cutout[k] = cm;
                    cutout_hides_same[k] = hm;
                    transparent[k] = tm;
                    liquid[k] = lm;
                }
                let (s, o, c, t, l) = (
                    interior_or(solid),
                    interior_or(opaque),
                    interior_or(cutout),
                    interior_or(transparent),
                    interior_or(liquid),
                );
                if collision {
                    Present { any: s, liquid: false, cutout: false, transparent: false }
                } else {
                    Present { any: o || c || t || l, liquid: l, cutout: c, transparent: t }
                }
            }
        }
    }

    /// Step 2 for direction `D`: visible faces of the interior's y layers into the face arrays
    /// (only the opaque ones, or for collision the solid ones, when `SOLID_ONLY`), and which rows
    /// hold any. A face shows unless the block across it hides faces (solid opaque), or, for
    /// transparent and liquid blocks and the cutout blocks that ask for it (leaves), is the same
    /// block. Returns which surfaces have faces.
    #[inline(always)]
    pub(super) fn collect_faces<const D: usize, const SIMD: u8, const SOLID_ONLY: bool>(
        &mut self,
        data: &[BlockId],
        dims: Dims,
    ) -> FacesOn {
        let o = Orientation::of::<D>(dims);
        let class = if axis_of(FACES[D].0) == Axis::X { &self.along_z } else { &self.along_x };
        let interior = o.interior();
        let range = o.layer_rows(dims);
        let beyond = (range.start as isize + o.across) as usize..(range.end as isize + o.across) as usize;
        let mut on = FacesOn::default();
        let f = &mut self.faces;
        let owners = if self.opaque_is_solid { &class.solid } else { &class.opaque };
        let hiders = &class.solid[beyond.clone()];
        // The opaque faces, layer by layer, noting which interior rows of each layer hold any
        // (bit `r` for padded row `r + 1`; the other surfaces add theirs below).
        let Dims { ny, .. } = dims;
        let layer_bits = if o.rows >= 64 { !0 } else { (1u64 << o.rows) - 1 };
        let mut any = 0u64;
        for (((out, owners), hiders), rows) in f.solid[range.clone()]
            .chunks_exact_mut(o.stride)
            .zip(owners[range.clone()].chunks_exact(o.stride))
            .zip(hiders.chunks_exact(o.stride))
            .zip(&mut f.layer_rows[..ny])
        {
            let held = layer_faces::<SIMD>(owners, hiders, interior, out);
            *rows = (held >> 1) & layer_bits;
            any |= *rows;
        }
        on.opaque = any != 0;
        if !SOLID_ONLY {
            let normal = FACES[D].0;
            let across_data = normal.x as isize
                + normal.y as isize * (dims.px * dims.pz) as isize
                + normal.z as isize * dims.px as isize;
            if self.cutout_faces {
                // Cutout faces: not against a block that hides them, nor, for the cutout blocks
                // that hide the faces between two of their own, against the same block (compared
                // unless only one block does).
                let mut any = 0u64;
                let hides_same = self.cutout_hides_same;
                let compare = !self.single_cutout_hides_same;
                let own = if self.cutout_rows_hide_same { &class.cutout } else { &class.cutout_hides_same };
                for (k, ((out, &c), &n)) in
                    f.cutout[range.clone()].iter_mut().zip(&class.cutout[range.clone()]).zip(hiders).enumerate()
                {
                    let mut faces = c & !n & interior;
                    if hides_same {
                        let i = range.start + k;
                        let twins = faces & own[i] & own[beyond.start + k];
                        if twins != 0 {
                            let same = if compare {
                                let base = o.data_base(i / o.stride, i % o.stride, dims);
                                let other = (base as isize + across_data) as usize;
                                same_blocks::<SIMD>(data, base, other, o.data_bit_step, twins)
                            } else {
                                twins
                            };
                            faces &= !same;
                        }
                    }
                    *out = faces >> 1;
                    any |= faces;
                }
                on.cutout = any != 0;
            }
            // Transparent and liquid faces: not against a block that hides them, nor against the
            // same block. Where ids may differ within the class, the two blocks are compared.
            let compare = self.compare_ids;
            let see_through = |out: &mut [u64], own: &[u64]| -> bool {
                let mut any = 0u64;
                for (k, ((out, &t), &n)) in
                    out[range.clone()].iter_mut().zip(&own[range.clone()]).zip(&own[beyond.clone()]).enumerate()
                {
                    let mut faces = t & !hiders[k] & interior;
                    let twins = faces & n;
                    if twins != 0 {
                        let same = if compare {
                            let i = range.start + k;
                            let base = o.data_base(i / o.stride, i % o.stride, dims);
                            let other = (base as isize + across_data) as usize;
                            same_blocks::<SIMD>(data, base, other, o.data_bit_step, twins)
                        } else {
                            twins
                        };
                        faces &= !same;
                    }
                    *out = faces >> 1;
                    any |= faces;
                }
                any != 0
            };
            if self.transparent_faces {
                on.transparent = see_through(&mut f.transparent, &class.transparent);
            }
            if self.liquid_faces {
                on.liquid = see_through(&mut f.liquid, &class.liquid);
            }
        }
        // Which rows of each y layer hold faces of the other surfaces.
        let arrays: [(&[u64], bool); 3] =
            [(&f.cutout, on.cutout), (&f.transparent, on.transparent), (&f.liquid, on.liquid)];
        for (faces, present) in arrays {
            if present {
                for (y0, rows) in f.layer_rows[..ny].iter_mut().enumerate() {
                    let first = (y0 + 1) * o.stride + 1;
                    *rows |= faces[first..first + o.rows]
                        .iter()
                        .enumerate()
                        .fold(0, |m, (r, &s)| m | ((s != 0) as u64) << r);
                }
            }
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
        on
    }

    /// Render mesh of direction `D` of [`FACES`] (compiled once per direction so its offsets are
    /// constants): steps 2–5, into `out`.
    #[inline(always)]
    fn render_direction<const D: usize, const SIMD: u8, const AO: bool, T: MeshTarget>(
        &mut self,
        data: &[BlockId],
        light: &[u8],
        dims: Dims,
        out: &mut T,
    ) {
        let on = self.collect_faces::<D, SIMD, false>(data, dims);
        if !(on.opaque || on.cutout || on.transparent || on.liquid) {
            return;
        }
        self.collect_merge_masks::<D, SIMD, AO>(data, light, dims, on);
        let layout = SliceLayout::of::<D>(dims);
        let o = Orientation::of::<D>(dims);
        let solid = if axis_of(FACES[D].0) == Axis::X { &self.along_z.solid } else { &self.along_x.solid };
        let f = &mut self.faces;
        let looks =
            QuadLooks { data, light, colors: &self.colors, layers: &self.layers, solid, dims, stride: o.stride };
        // Each quad is written out as soon as it is merged; every surface but the liquid one
        // carries AO.
        let (along, across, slice_rows) = (&f.along, &f.across, &f.slice_rows);
        let rows = |faces| FaceRows { faces, along, across, layout, slice_rows };
        if on.opaque {
            out.merge_and_write::<D, true, SIMD, AO>(0, looks, rows(&mut f.solid));
        }
        if on.cutout {
            out.merge_and_write::<D, true, SIMD, AO>(1, looks, rows(&mut f.cutout));
        }
        if on.transparent {
            out.merge_and_write::<D, true, SIMD, AO>(2, looks, rows(&mut f.transparent));
        }
        if on.liquid {
            out.merge_and_write::<D, false, SIMD, AO>(3, looks, rows(&mut f.liquid));
        }
    }

    /// Step 3 for direction `D`: the merge masks of every row with faces, from the solid faces'
    /// AO uniformity (see [`ao_uniformity`]) and, where that allows, the blocks of the two faces
    /// and (with `light`) the light in front of them.
    #[inline(always)]
    fn collect_merge_masks<const D: usize, const SIMD: u8, const AO: bool>(
        &mut self,
        data: &[BlockId],
        light: &[u8],
        dims: Dims,
        on: FacesOn,
    ) {
        // The voxel a face of direction `D` looks into, as an offset in `data` (and `light`).
        let front = front_offset::<D>(dims);
        let o = Orientation::of::<D>(dims);
        let layers_adjacent = axis_of(FACES[D].0) != Axis::Y;
        let class = if axis_of(FACES[D].0) == Axis::X { &self.along_z } else { &self.along_x };
        let (layer_uniformity, faces) = (&mut self.layer_uniformity, &mut self.faces);
        // Only the face rows of surfaces with faces in this direction are up to date; the others
        // hold another box's or direction's faces.
        let (wet, leafy, glassy) = (on.liquid, on.cutout, on.transparent);
        // Every row visited (an interior row `i` of layers 1 to ny, and the row before it in its
        // slice) lies below `end`, checked once here for the unchecked accesses below.
        let end = (dims.ny + 1) * o.stride;
        assert!(
            faces.solid.len() >= end
                && faces.along.len() >= end
                && faces.across.len() >= end
                && (!wet || faces.liquid.len() >= end)
                && (!leafy || faces.cutout.len() >= end)
                && (!glassy || faces.transparent.len() >= end),
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
                // Faces with AO (all but liquid), and all faces, back in padded bits (the face
                // arrays hold bit b - 1).
                // SAFETY: `r` is `i` (at most `ny * stride + rows`) or the row before it in its
                // slice, below `end` (checked above, each surface's rows when it has faces).
                let faces_at = |r: usize| unsafe {
                    let lit = *faces.solid.get_unchecked(r)
                        | if leafy { *faces.cutout.get_unchecked(r) } else { 0 }
                        | if glassy { *faces.transparent.get_unchecked(r) } else { 0 };
                    (lit << 1, (lit | if wet { *faces.liquid.get_unchecked(r) } else { 0 }) << 1)
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
                let mut along_mask = same_blocks::<SIMD>(data, voxel, voxel + o.data_bit_step, o.data_bit_step, along);
                if !light.is_empty() {
                    along_mask &= same_light::<SIMD>(
                        light,
                        voxel as isize + front,
                        (voxel + o.data_bit_step) as isize + front,
                        o.data_bit_step,
                        along,
                    );
                }
                let along_mask = along_mask >> 1;
                let (previous, uniform_before) =
                    if layers_adjacent { (i - o.stride, layer_uniformity[w - 1]) } else { (i - 1, previous_row) };
                let across = faces_at(previous).1 & here & uniform_before & along_rows;
                let mut across_mask =
                    same_blocks::<SIMD>(data, voxel - o.data_row_step, voxel, o.data_bit_step, across);
                if !light.is_empty() {
                    across_mask &= same_light::<SIMD>(
                        light,
                        (voxel - o.data_row_step) as isize + front,
                        voxel as isize + front,
                        o.data_bit_step,
                        across,
                    );
                }
                let across_mask = across_mask >> 1;
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

/// The faces of one y layer's padded rows, `owners & !hiders & interior` row by row, into `out`
/// in the face arrays' form (shifted down a bit); returns which rows hold any (bit `r` for row
/// `r`). The AVX2 build takes four rows a step, the AVX-512 one eight.
#[inline(always)]
fn layer_faces<const SIMD: u8>(owners: &[u64], hiders: &[u64], interior: u64, out: &mut [u64]) -> u64 {
    let n = out.len();
    assert!(owners.len() == n && hiders.len() == n && n <= 64, "a layer of at most 64 rows");
    let mut held = 0u64;
    #[allow(unused_mut)]
    let mut r = 0;
    #[cfg(target_arch = "x86_64")]
    if SIMD >= AVX2 {
        // SAFETY: `SIMD` code at `AVX2` or above runs only on CPUs with AVX2, at `AVX512` only on
        // CPUs with AVX-512 F and BW (checked at run time).
        (held, r) = unsafe {
            if SIMD >= AVX512 {
                layer_faces_avx512(owners, hiders, interior, out)
            } else {
                layer_faces_avx2(owners, hiders, interior, out)
            }
        };
    }
    for r in r..n {
        let faces = owners[r] & !hiders[r] & interior;
        out[r] = faces >> 1;
        held |= ((faces != 0) as u64) << r;
    }
    held
}

/// [`layer_faces`] four rows a step (a layer of four rows or more; the last four overlapping the
/// ones before when the rows are not a multiple of four); returns the rows holding faces and how
/// many rows it did.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn layer_faces_avx2(owners: &[u64], hiders: &[u64], interior: u64, out: &mut [u64]) -> (u64, usize) {
    use std::arch::x86_64::{
        __m256i, _mm256_and_si256, _mm256_andnot_si256, _mm256_castsi256_pd, _mm256_cmpeq_epi64, _mm256_loadu_si256,
        _mm256_movemask_pd, _mm256_set1_epi64x, _mm256_setzero_si256, _mm256_srli_epi64, _mm256_storeu_si256,
    };
    let n = out.len().min(owners.len()).min(hiders.len());
    let inside = _mm256_set1_epi64x(interior as i64);
    // Rows `r..r + 4`, as bits `r..r + 4` of the rows holding faces.
    let four = |r: usize, out: &mut [u64]| {
        assert!(r + 4 <= n);
        // SAFETY: the loads and the store touch rows `r..r + 4`, below `n`, the length of all
        // three (checked just above).
        unsafe {
            let s = _mm256_loadu_si256(owners.as_ptr().add(r).cast::<__m256i>());
            let h = _mm256_loadu_si256(hiders.as_ptr().add(r).cast::<__m256i>());
            let faces = _mm256_andnot_si256(h, _mm256_and_si256(s, inside));
            _mm256_storeu_si256(out.as_mut_ptr().add(r).cast::<__m256i>(), _mm256_srli_epi64::<1>(faces));
            let empty = _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(faces, _mm256_setzero_si256())));
            (!empty as u64 & 0xF) << r
        }
    };
    in_steps_of::<4>(n, |r| four(r, out))
}

/// Runs `step` at rows `0, W, 2W, …` while `W` rows remain, then once at `n - W` for the rows
/// left (overlapping the step before: `step` must give the same for rows it sees twice), when
/// `n` is `W` or more. Returns the OR of what the steps gave and how many rows they covered.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn in_steps_of<const W: usize>(n: usize, mut step: impl FnMut(usize) -> u64) -> (u64, usize) {
    let mut held = 0u64;
    let mut r = 0;
    while r + W <= n {
        held |= step(r);
        r += W;
    }
    if r < n && n >= W {
        held |= step(n - W);
        r = n;
    }
    (held, r)
}

/// [`layer_faces_avx2`] eight rows a step, with AVX-512 (a layer of eight rows or more).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn layer_faces_avx512(owners: &[u64], hiders: &[u64], interior: u64, out: &mut [u64]) -> (u64, usize) {
    use std::arch::x86_64::{
        _mm512_and_si512, _mm512_andnot_si512, _mm512_loadu_si512, _mm512_set1_epi64, _mm512_srli_epi64,
        _mm512_storeu_si512, _mm512_test_epi64_mask,
    };
    let n = out.len().min(owners.len()).min(hiders.len());
    let inside = _mm512_set1_epi64(interior as i64);
    // Rows `r..r + 8`, as bits `r..r + 8` of the rows holding faces.
    let eight = |r: usize, out: &mut [u64]| {
        assert!(r + 8 <= n);
        // SAFETY: the loads and the store touch rows `r..r + 8`, below `n`, the length of all
        // three (checked just above).
        unsafe {
            let s = _mm512_loadu_si512(owners.as_ptr().add(r).cast());
            let h = _mm512_loadu_si512(hiders.as_ptr().add(r).cast());
            let faces = _mm512_andnot_si512(h, _mm512_and_si512(s, inside));
            _mm512_storeu_si512(out.as_mut_ptr().add(r).cast(), _mm512_srli_epi64::<1>(faces));
            (_mm512_test_epi64_mask(faces, faces) as u64) << r
        }
    };
    in_steps_of::<8>(n, |r| eight(r, out))
}

/// Of the `candidates` bits `k`, those where `light[a + k·step]` equals `light[b + k·step]`:
/// the faces whose merge partner sees the same light. (`a` and `b` are data indices with the
/// front offset added; a bit whose index falls outside `light` is not kept.)
#[inline(always)]
fn same_light<const SIMD: u8>(light: &[u8], a: isize, b: isize, step: usize, mut candidates: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if SIMD >= AVX2
        && step == 1
        && candidates != 0
        && let (Ok(a), Ok(b)) = (usize::try_from(a), usize::try_from(b))
        && a.max(b) + 64 <= light.len()
    {
        let (x, y) = (&light[a..a + 64], &light[b..b + 64]);
        // SAFETY: `SIMD` code at `AVX2` or above runs only on CPUs with AVX2, at `AVX512` only on
        // CPUs with AVX-512 F and BW (checked at run time).
        return candidates & unsafe { if SIMD >= AVX512 { equal_bytes_64_512(x, y) } else { equal_bytes_64(x, y) } };
    }
    let mut same = 0;
    while candidates != 0 {
        let k = candidates.trailing_zeros() as usize;
        candidates &= candidates - 1;
        let at = |base: isize| usize::try_from(base + (k * step) as isize).ok().and_then(|i| light.get(i));
        if let (Some(x), Some(y)) = (at(a), at(b))
            && x == y
        {
            same |= 1 << k;
        }
    }
    same
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::coords::{ChunkCoord, IVec3};
    use crate::base::rng::hash3;
    use crate::gen3d::pipeline::Generator;
    use crate::mesh::ao::AO_OPEN;
    use crate::mesh::test_support::{
        assert_clockwise, check_against_reference, check_against_reference_lit, padded_with, random_box, random_light,
        unit_faces,
    };
    use crate::preset::model::WorldPreset;

    use crate::base::block_library::{
        BlockDef, BlockFaces, BlockLibrary, GLASS, LEAVES, LOG, PLANKS, TORCH, default_library,
    };
    use crate::mesh::materials::{MeshMaterials, texture_order};
    use crate::mesh::types::{SURFACE_NAMES, face_uv};

    /// Unit faces of `m` on surface `s` (index in `SURFACE_NAMES`).
    fn faces_on(m: &ChunkMesh, s: usize) -> usize {
        unit_faces(m).iter().filter(|f| f.2 == s).count()
    }

    fn mesh_of(points: &[(i32, i32, i32, BlockId)]) -> ChunkMesh {
        let b = padded_with(points);
        let mut mesher = Mesher::new();
        check_against_reference(&b, &mut mesher);
        let mut m = ChunkMesh::default();
        mesher.mesh(&b, &mut m);
        m
    }

    #[test]
    fn texture_coordinates_span_each_quad_and_stand_upright_on_sides() {
        // A 4×3×2 box: every side is one quad.
        let mut pts = Vec::new();
        for x in 0..4 {
            for y in 0..3 {
                for z in 0..2 {
                    pts.push((x, y, z, block::STONE));
                }
            }
        }
        let m = mesh_of(&pts);
        assert_eq!(m.opaque.quad_count(), 6);
        for q in 0..6 {
            let d = m.opaque.directions[4 * q] as usize;
            let uv: Vec<[f32; 2]> = (0..4).map(|k| m.opaque.uv(4 * q + k)).collect();
            let (lo, hi) = uv.iter().fold(([f32::MAX; 2], [f32::MIN; 2]), |(lo, hi), t| {
                ([lo[0].min(t[0]), lo[1].min(t[1])], [hi[0].max(t[0]), hi[1].max(t[1])])
            });
            let size = match d {
                0 | 1 => [2.0, 3.0],
                2 | 3 => [4.0, 2.0],
                _ => [4.0, 3.0],
            };
            assert_eq!([hi[0] - lo[0], hi[1] - lo[1]], size, "direction {d}: a quad of w × h voxels spans w × h");
            for (k, t) in uv.iter().enumerate() {
                let p = m.opaque.positions[4 * q + k];
                match d {
                    // Sides: v grows downwards.
                    0 | 1 | 4 | 5 => assert_eq!(t[1], -p[1], "direction {d}"),
                    // Top and bottom: u along x, v along z.
                    _ => assert_eq!(*t, [p[0], p[2]], "direction {d}"),
                }
                // Seen from the front, u grows to the right: -z on +x, +z on -x, +x on +z, -x on -z.
                match d {
                    0 => assert_eq!(t[0], -p[2]),
                    1 => assert_eq!(t[0], p[2]),
                    4 => assert_eq!(t[0], p[0]),
                    5 => assert_eq!(t[0], -p[0]),
                    _ => {}
                }
            }
        }
        assert_eq!(face_uv(0, [1.0, 2.0, 3.0]), [-3.0, -2.0]);
    }

    #[test]
    fn texture_layers_follow_the_faces() {
        let names = texture_order(default_library());
        let layer = |n: &str| names.iter().position(|x| x == n).unwrap() as u16;
        for (id, want) in [
            (block::GRASS, ["grass_side", "grass_side", "grass_top", "dirt", "grass_side", "grass_side"]),
            (LOG, ["log_side", "log_side", "log_top", "log_top", "log_side", "log_side"]),
            (PLANKS, ["planks"; 6]),
            (block::STONE, ["stone"; 6]),
        ] {
            let m = mesh_of(&[(1, 1, 1, id)]);
            assert_eq!(m.opaque.quad_count(), 6);
            for v in 0..m.opaque.layers.len() {
                assert_eq!(m.opaque.layers[v], layer(want[m.opaque.directions[v] as usize]), "block {id} vertex {v}");
            }
        }
    }

    #[test]
    fn glass_hides_only_faces_against_glass() {
        // Two panes side by side: the face between them is not drawn, either side; they merge.
        let m = mesh_of(&[(1, 1, 1, GLASS), (2, 1, 1, GLASS)]);
        assert_eq!(faces_on(&m, 2), 10);
        assert_eq!(m.transparent.quad_count(), 6);
        assert!(m.opaque.is_empty() && m.cutout.is_empty() && m.liquid.is_empty());
        // Glass beside stone: the stone shows the face behind the glass (6 faces); the glass's
        // face against the stone is hidden by it (5 faces).
        let m = mesh_of(&[(1, 1, 1, GLASS), (2, 1, 1, block::STONE)]);
        assert_eq!(faces_on(&m, 0), 6);
        assert_eq!(faces_on(&m, 2), 5);
        assert!(m.transparent.colors.iter().all(|c| c[3] < 255), "glass is blended");
    }

    #[test]
    fn leaves_beside_leaves_hide_the_faces_between_them() {
        // Leaves hide the faces between two leaves (`hide_faces_between_same`): 5 + 5 faces.
        let m = mesh_of(&[(1, 1, 1, LEAVES), (2, 1, 1, LEAVES)]);
        assert_eq!(faces_on(&m, 1), 10);
        // A crown of 3 × 3 × 3 leaves is its shell: 9 faces a side.
        let crown: Vec<_> =
            (1..4).flat_map(|x| (1..4).flat_map(move |y| (1..4).map(move |z| (x, y, z, LEAVES)))).collect();
        assert_eq!(faces_on(&mesh_of(&crown), 1), 54);
        // A cutout block that does not ask for it (the torch) draws both faces.
        let m = mesh_of(&[(1, 1, 1, TORCH), (2, 1, 1, TORCH)]);
        assert_eq!(faces_on(&m, 1), 12);
        // Leaves do not hide the stone behind them; the stone hides the leaves' face.
        let m = mesh_of(&[(1, 1, 1, LEAVES), (2, 1, 1, block::STONE)]);
        assert_eq!((faces_on(&m, 0), faces_on(&m, 1)), (6, 5));
        // Nor are leaves merged with other blocks.
        let m = mesh_of(&[(1, 1, 1, LEAVES), (2, 1, 1, block::GRASS)]);
        assert!(unit_faces(&m).iter().all(|f| (f.2 == 1) == (f.0[0] == 1)));
    }

    #[test]
    fn a_torch_hides_nothing() {
        let m = mesh_of(&[(1, 1, 1, TORCH), (2, 1, 1, block::STONE), (1, 2, 1, block::WATER)]);
        // The stone shows all six faces; the water all six but the one on... nothing: the torch is
        // not solid, so the water's bottom shows too.
        assert_eq!(faces_on(&m, 0), 6);
        assert_eq!(faces_on(&m, 3), 6);
        // The torch: all but the face against the stone.
        assert_eq!(faces_on(&m, 1), 5);
    }

    /// The default library plus a second liquid, a second transparent block, a second cutout
    /// block that hides the faces between two of its own (`PLANKS + 3`) and a solid cutout block
    /// that does not (`PLANKS + 4`).
    fn two_of_a_kind() -> Arc<MeshMaterials> {
        let mut blocks = default_library().clone().into_blocks();
        let extra = |name: &str, mode| BlockDef {
            name: name.into(),
            faces: BlockFaces::All(name.into()),
            color: [0.9, 0.3, 0.1],
            render_mode: mode,
            solid: false,
            light_emission: 0,
            light_opacity: 0,
            hide_faces_between_same: false,
            tint: Default::default(),
        };
        blocks.push(extra("lava", RenderMode::Liquid));
        blocks.push(BlockDef { solid: true, ..extra("tinted_glass", RenderMode::Transparent) });
        blocks.push(BlockDef {
            solid: true,
            hide_faces_between_same: true,
            ..extra("pine_leaves", RenderMode::Cutout)
        });
        blocks.push(BlockDef { solid: true, ..extra("lattice", RenderMode::Cutout) });
        let lib = BlockLibrary::new(blocks).unwrap();
        Arc::new(MeshMaterials::with_texture_order(&lib))
    }

    #[test]
    fn every_render_mode_and_unknown_ids_show_the_reference_surface() {
        let custom = two_of_a_kind();
        let (lava, tinted, pine, lattice) = (PLANKS + 1, PLANKS + 2, PLANKS + 3, PLANKS + 4);
        let palettes: [&[BlockId]; 7] = [
            &[block::STONE, GLASS, LEAVES, TORCH],
            &[block::WATER, GLASS, block::AIR, TORCH, LOG],
            &[LEAVES, GLASS, block::GRASS, block::WATER, 300, u16::MAX],
            &[block::WATER, lava, tinted, GLASS, block::STONE],
            &[lava, tinted, LEAVES, block::AIR],
            &[LEAVES, pine, lattice, block::AIR, block::STONE],
            &[LEAVES, block::AIR, LOG],
        ];
        for materials in [MeshMaterials::shared_default(), custom] {
            let mut mesher = Mesher::with_materials(materials);
            for ao in [true, false] {
                mesher.set_ambient_occlusion(ao);
                for (i, ids) in palettes.iter().enumerate() {
                    for (j, fill) in [0.2f32, 0.6, 0.95].into_iter().enumerate() {
                        for size in [3, 9, 34] {
                            check_against_reference(&random_box((i * 10 + j) as u64, size, ids, fill), &mut mesher);
                        }
                    }
                }
            }
            let mut corners = Vec::new();
            mesher.collision_faces(&random_box(5, 20, palettes[2], 0.5), &mut corners);
        }
        // Empty materials: every id but air is unknown (solid magenta).
        let mut bare = Mesher::with_materials(Arc::new(MeshMaterials::from_library(
            &BlockLibrary::new(vec![default_library().get(block::AIR).unwrap().clone()]).unwrap(),
            |_, _| None,
        )));
        check_against_reference(&random_box(1, 12, &[block::STONE, block::WATER, GLASS], 0.5), &mut bare);
    }

    #[test]
    fn faces_between_different_liquids_glass_and_leaves_are_drawn() {
        let b = padded_with(&[(1, 1, 1, block::WATER), (2, 1, 1, PLANKS + 1), (1, 2, 1, GLASS), (1, 3, 1, PLANKS + 2)]);
        let mut mesher = Mesher::with_materials(two_of_a_kind());
        check_against_reference(&b, &mut mesher);
        let mut m = ChunkMesh::default();
        mesher.mesh(&b, &mut m);
        // Water and lava: 6 faces each. Glass and tinted glass: 6 each.
        assert_eq!(faces_on(&m, 3), 12);
        assert_eq!(faces_on(&m, 2), 12);
        // Leaves and pine leaves (both hide the faces between two of their own): 6 faces each;
        // two pine leaves: 5 each; two lattice blocks (cutout, not hiding): 6 each.
        let (pine, lattice) = (PLANKS + 3, PLANKS + 4);
        for (pair, faces) in [((LEAVES, pine), 12), ((pine, pine), 10), ((lattice, lattice), 12), ((pine, lattice), 12)]
        {
            let b = padded_with(&[(1, 1, 1, pair.0), (1, 1, 2, pair.1)]);
            check_against_reference(&b, &mut mesher);
            mesher.mesh(&b, &mut m);
            assert_eq!(faces_on(&m, 1), faces, "{pair:?}");
        }
    }

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
        let liquid = unit_faces(&m).iter().filter(|f| f.2 == 3).count();
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
    fn lit_boxes_show_the_reference_surface_each_face_with_the_light_in_front() {
        let mut mesher = Mesher::new();
        let palettes: [&[BlockId]; 3] = [
            &[block::STONE],
            &[block::STONE, block::DIRT, block::WATER],
            &[block::WATER, block::SAND, 200, block::AIR],
        ];
        for ao in [true, false] {
            mesher.set_ambient_occlusion(ao);
            for (i, ids) in palettes.iter().enumerate() {
                for (j, levels) in [&[0xF0u8][..], &[0xF0, 0x3A], &[0x00, 0x10, 0x2F, 0xFF]].into_iter().enumerate() {
                    for size in [3, 9, 34] {
                        let b = random_box((i * 7 + j) as u64, size, ids, 0.5);
                        let light = random_light((i + j) as u64, &b, levels);
                        check_against_reference_lit(&b, Some(&light), &mut mesher);
                    }
                }
            }
        }
        // One level everywhere merges exactly as without light, and full sky gives the unlit mesh.
        mesher.set_ambient_occlusion(true);
        let b = random_box(3, 34, &[block::STONE, block::DIRT], 0.6);
        let (mut unlit, mut lit) = (ChunkMesh::default(), ChunkMesh::default());
        mesher.mesh(&b, &mut unlit);
        mesher.mesh_lit(&b, &random_light(0, &b, &[crate::mesh::FULL_LIGHT]), &mut lit).unwrap();
        assert_eq!(lit, unlit);
    }

    #[test]
    fn light_of_another_box_is_refused_with_both_boxes_named() {
        let b = random_box(1, 8, &[block::STONE], 0.5);
        let wrong = LightBuffer::new(b.min() + IVec3::ONE, b.size());
        let mut out = ChunkMesh::default();
        let e = Mesher::new().mesh_lit(&b, &wrong, &mut out).unwrap_err();
        assert!(matches!(e, MeshError::LightBox { .. }));
        assert!(e.to_string().contains("light covers"), "{e}");
        assert!(out.is_empty());
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
            mesher.mesh_with::<PORTABLE, true, _>(b, &[], &mut portable);
            assert_eq!(chosen, portable);
            // And straight into Godot's streams.
            let (mut chosen_bytes, mut portable_bytes) = (MeshBytes::default(), MeshBytes::default());
            mesher.mesh_bytes(b, &mut chosen_bytes);
            let mut target = StreamsTarget::reusing(&mut portable_bytes, Default::default());
            mesher.mesh_with::<PORTABLE, true, _>(b, &[], &mut target);
            target.finish(&mut portable_bytes);
            assert_eq!(chosen_bytes, portable_bytes);
            assert_eq!(chosen_bytes, MeshBytes::from_mesh(&chosen));
            mesher.set_ambient_occlusion(false);
            mesher.mesh(b, &mut chosen);
            mesher.mesh_with::<PORTABLE, false, _>(b, &[], &mut portable);
            assert_eq!(chosen, portable);
            mesher.set_ambient_occlusion(true);
            let (mut chosen, mut portable) = (Vec::new(), Vec::new());
            mesher.collision_faces(b, &mut chosen);
            mesher.collision_faces_with::<PORTABLE>(b, &mut portable);
            assert_eq!(chosen, portable);
        }
    }

    #[test]
    fn forests_of_leaves_and_logs_stay_on_the_fast_pass_and_show_the_reference_surface() {
        use crate::base::block_library::{LEAVES, LOG, PLANKS, TORCH};
        let mut mesher = Mesher::new();
        let (cutout_id, others) = mesher.fast_cutout.expect("the default library's leaves take the fast pass");
        assert_eq!(cutout_id, LEAVES);
        assert!(others.contains(&TORCH) && !others.contains(&LOG), "looked for: {others:?}");
        #[cfg(target_arch = "x86_64")]
        let wide = super::wide_simd_available();
        #[cfg(not(target_arch = "x86_64"))]
        let wide = false;
        let forest: [&[BlockId]; 3] =
            [&[block::STONE, LEAVES, LOG], &[block::WATER, LEAVES, LOG, PLANKS, block::DIRT], &[LEAVES]];
        for (seed, ids) in forest.iter().enumerate() {
            for fill in [0.2f32, 0.6, 0.95] {
                let b = random_box(40 + seed as u64, 34, ids, fill);
                check_against_reference(&b, &mut mesher);
                assert_eq!(mesher.cutout_rows_hide_same, wide, "{ids:?} at {fill}: the fast pass (AVX2: {wide})");
                let (mut chosen, mut portable) = (ChunkMesh::default(), ChunkMesh::default());
                mesher.mesh(&b, &mut chosen);
                mesher.mesh_with::<PORTABLE, true, _>(&b, &[], &mut portable);
                assert_eq!(chosen, portable);
            }
        }
        // A torch among the leaves, or an id past the library, sends the box to the general pass.
        for ids in [&[block::STONE, LEAVES, LOG, TORCH][..], &[LEAVES, LOG, 300]] {
            let b = random_box(50, 34, ids, 0.5);
            check_against_reference(&b, &mut mesher);
            assert!(!mesher.cutout_rows_hide_same, "{ids:?}");
        }
        // Collision boxes keep the general pass (leaves are solid there).
        let b = random_box(51, 34, &[block::STONE, LEAVES, LOG], 0.5);
        let (mut chosen, mut portable) = (Vec::new(), Vec::new());
        mesher.collision_faces(&b, &mut chosen);
        mesher.collision_faces_with::<PORTABLE>(&b, &mut portable);
        assert_eq!(chosen, portable);
        assert!(!chosen.is_empty());
    }

    /// `mesh_bytes` / `mesh_lit_bytes` write exactly the arrays of `mesh` / `mesh_lit` packed.
    fn assert_streams_equal_packed_arrays(
        mesher: &mut Mesher,
        b: &VoxelBuffer,
        light: Option<&LightBuffer>,
        what: &str,
    ) {
        let (mut arrays, mut streams) = (ChunkMesh::default(), MeshBytes::default());
        match light {
            Some(l) => {
                mesher.mesh_lit(b, l, &mut arrays).unwrap();
                mesher.mesh_lit_bytes(b, l, &mut streams).unwrap();
            }
            None => {
                mesher.mesh(b, &mut arrays);
                mesher.mesh_bytes(b, &mut streams);
            }
        }
        assert_eq!(streams, MeshBytes::from_mesh(&arrays), "{what}");
        assert_eq!(streams.is_empty(), arrays.is_empty(), "{what}");
    }

    #[test]
    fn streams_written_while_meshing_equal_the_packed_arrays() {
        let g = Generator::new(&WorldPreset::default()).unwrap();
        let mut mesher = Mesher::new();
        // Vertex AO, none, and the shaders' AO and shade with white (textured) blocks, whose
        // surfaces then go without colours.
        for (ao, shade_in_shader) in [(true, false), (false, false), (false, true)] {
            mesher.set_ambient_occlusion(ao);
            mesher.set_shade_in_shader(shade_in_shader);
            if shade_in_shader {
                mesher.set_materials(crate::mesh::test_support::white_materials());
            }
            for c in [(0, 0, 0), (1, -1, 1), (-2, 0, 3), (5, 0, -4), (0, 40, 0), (3, -6, 2)] {
                let mut padded = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
                g.generate_padded_chunk(ChunkCoord::new(c.0, c.1, c.2), &mut padded);
                assert_streams_equal_packed_arrays(&mut mesher, &padded, None, &format!("chunk {c:?}, AO {ao}"));
                let light = random_light(c.0 as u64, &padded, &[0xF0, 0x3A, 0x0F, 0x00]);
                assert_streams_equal_packed_arrays(&mut mesher, &padded, Some(&light), &format!("lit chunk {c:?}"));
            }
            // Every kind of surface, lit and unlit, small to the widest box the rows hold; and one
            // too wide for them (the reference mesher, packed).
            let palettes: [&[BlockId]; 3] = [
                &[block::STONE, block::DIRT, block::WATER],
                &[GLASS, LEAVES, TORCH, block::WATER, block::ICE, block::STONE, 300],
                &[block::WATER, block::SAND, LOG, PLANKS, block::AIR],
            ];
            for (i, ids) in palettes.iter().enumerate() {
                for size in [3, 9, 34, 66] {
                    let b = random_box(i as u64 + 20, size, ids, 0.5);
                    assert_streams_equal_packed_arrays(&mut mesher, &b, None, &format!("box {i} of {size}"));
                    let light = random_light(i as u64, &b, &[0xF0, 0x3A, 0x00, 0xFF]);
                    assert_streams_equal_packed_arrays(
                        &mut mesher,
                        &b,
                        Some(&light),
                        &format!("lit box {i} of {size}"),
                    );
                }
            }
        }
    }

    #[test]
    fn with_the_shade_in_the_shaders_white_surfaces_carry_no_colours() {
        let g = Generator::new(&WorldPreset::default()).unwrap();
        let (mut shaded, mut plain) = (Mesher::new(), Mesher::new());
        for m in [&mut shaded, &mut plain] {
            m.set_ambient_occlusion(false);
            m.set_materials(crate::mesh::test_support::white_materials());
        }
        plain.set_shade_in_shader(true);
        let mut colorless = 0;
        for c in [(0, 0, 0), (1, -1, 1), (-2, 0, 3), (5, 0, -4)] {
            let mut padded = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
            g.generate_padded_chunk(ChunkCoord::new(c.0, c.1, c.2), &mut padded);
            let (mut a, mut b) = (ChunkMesh::default(), ChunkMesh::default());
            shaded.mesh(&padded, &mut a);
            plain.mesh(&padded, &mut b);
            let liquid = SURFACE_NAMES.iter().position(|&n| n == "liquid").unwrap();
            for (k, (sa, sb)) in a.surfaces().into_iter().zip(b.surfaces()).enumerate() {
                // The same quads; only the colours differ: the face shade left out, but on water.
                assert_eq!((&sa.positions, &sa.layers, &sa.lights), (&sb.positions, &sb.layers, &sb.lights));
                for ((ca, cb), &d) in sa.colors.iter().zip(&sb.colors).zip(&sa.directions) {
                    let want = if k == liquid { *ca } else { rgba8([1.0, 1.0, 1.0, cb[3] as f32 / 255.0]) };
                    assert_eq!(*cb, want, "surface {k}, face {d}: {ca:?} shaded");
                    if k != liquid && ca[3] == 255 {
                        assert_eq!(ca[0], rgba8([FACE_SHADE[d as usize]; 4])[0], "the shade the shaders add");
                    }
                }
            }
            let (mut streams, mut shaded_streams) = (MeshBytes::default(), MeshBytes::default());
            plain.mesh_bytes(&padded, &mut streams);
            shaded.mesh_bytes(&padded, &mut shaded_streams);
            for (s, t) in streams.surfaces().into_iter().zip(shaded_streams.surfaces()) {
                let (Some(s), Some(t)) = (s, t) else { continue };
                assert!(t.has_colors(), "shaded faces have colours");
                if s.has_colors() {
                    continue;
                }
                colorless += 1;
                assert_eq!(s.format, crate::mesh::bytes::FORMAT_NO_COLOR);
                assert_eq!(s.attribute_data.len(), 4 * s.vertex_count as usize, "custom0 alone");
                let custom0: Vec<&[u8]> = t.attribute_data.chunks_exact(8).map(|v| &v[4..]).collect();
                assert_eq!(s.attribute_data.chunks_exact(4).collect::<Vec<_>>(), custom0, "the same custom0");
                assert_eq!((&s.vertex_data, &s.index_data), (&t.vertex_data, &t.index_data));
            }
        }
        assert!(colorless >= 4, "ground surfaces without colours: {colorless}");
    }

    #[test]
    fn streams_past_65536_vertices_take_wide_indices() {
        // A checkerboard: every voxel shows all six faces, none merge (6 × 16,384 quads, 393,216
        // vertices in the opaque surface).
        let mut b = VoxelBuffer::new(IVec3::splat(-1), IVec3::splat(34));
        for (k, id) in b.data_mut().iter_mut().enumerate() {
            let (x, z, y) = (k % 34, k / 34 % 34, k / (34 * 34));
            *id = if (x + y + z) % 2 == 0 { block::STONE } else { block::AIR };
        }
        let mut mesher = Mesher::new();
        let mut streams = MeshBytes::default();
        mesher.mesh_bytes(&b, &mut streams);
        let opaque = streams.opaque.as_ref().expect("faces");
        assert!(opaque.vertex_count > 1 << 16, "{} vertices", opaque.vertex_count);
        assert_eq!(opaque.index_data.len(), 4 * opaque.index_count as usize, "u32 indices");
        assert_streams_equal_packed_arrays(&mut mesher, &b, None, "checkerboard");
    }

    #[test]
    fn streams_in_recycled_buffers_hold_nothing_of_the_mesh_before() {
        let mut mesher = Mesher::new();
        let big = random_box(5, 34, &[GLASS, LEAVES, block::WATER, block::STONE], 0.5);
        let small = padded_with(&[(1, 1, 1, block::STONE)]);
        let mut streams = MeshBytes::default();
        mesher.mesh_bytes(&big, &mut streams);
        assert!(streams.surfaces().iter().all(|s| s.is_some()), "every surface was used");
        mesher.mesh_bytes(&small, &mut streams);
        let mut fresh = MeshBytes::default();
        Mesher::new().mesh_bytes(&small, &mut fresh);
        assert_eq!(streams, fresh);
        assert!(streams.cutout.is_none() && streams.transparent.is_none() && streams.liquid.is_none());
        // Light of another box: an error, and nothing left in the streams.
        let wrong = LightBuffer::new(big.min() + IVec3::ONE, big.size());
        assert!(mesher.mesh_lit_bytes(&big, &wrong, &mut streams).is_err());
        assert!(streams.is_empty());
    }
}
