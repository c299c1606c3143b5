//! Godot meshes from the core's meshes, for `StrataChunkWorld`: an `ArrayMesh` from the bytes the
//! workers packed (or through Godot's own conversion), the chunk materials, collision faces, and
//! the built-in decoration meshes with their per-chunk `MultiMesh`.
//!
//! Main thread only (every function makes or reads Godot objects).
//!
//! May use: `strata_core::mesh` and `gen3d::scatter` (the data), Godot's mesh classes.

use godot::classes::mesh::{ArrayFormat, ArrayType, PrimitiveType};
use godot::classes::{
    ArrayMesh, CylinderMesh, Material, MeshInstance3D, MultiMesh, PrimitiveMesh, PrismMesh, SphereMesh,
    StandardMaterial3D, base_material_3d, multi_mesh,
};
use godot::prelude::*;
use strata_core::IVec3;
use strata_core::gen3d::scatter::{ScatterInstance, ScatterKind};
use strata_core::mesh::bytes::{MeshBytes, SurfaceBytes, all_white, format, vertex_custom0};
use strata_core::mesh::{ChunkMesh, MeshSurface, SURFACE_NAMES};

/// Decoration kinds, in the order of [`build_scatter_meshes`].
pub(crate) const SCATTER_KINDS: [ScatterKind; 4] =
    [ScatterKind::Tree, ScatterKind::Bush, ScatterKind::Flower, ScatterKind::Rock];

/// The material of each surface in [`SURFACE_NAMES`] order (opaque, cutout, transparent, liquid).
pub(crate) type SurfaceMaterials = [Gd<Material>; 4];

/// Untextured chunk materials coloured by the vertices: opaque ground, and a blended one (vertex
/// alpha) for cutout, transparent and liquid faces; the fallback when the block shaders do not
/// load.
pub(crate) fn vertex_color_materials() -> SurfaceMaterials {
    let mut m = StandardMaterial3D::new_gd();
    m.set_flag(base_material_3d::Flags::ALBEDO_FROM_VERTEX_COLOR, true);
    // Block colours are authored in sRGB, like every colour picker.
    m.set_flag(base_material_3d::Flags::SRGB_VERTEX_COLOR, true);
    m.set_roughness(0.95);
    let mut w = StandardMaterial3D::new_gd();
    w.set_flag(base_material_3d::Flags::ALBEDO_FROM_VERTEX_COLOR, true);
    w.set_flag(base_material_3d::Flags::SRGB_VERTEX_COLOR, true);
    w.set_transparency(base_material_3d::Transparency::ALPHA);
    w.set_cull_mode(base_material_3d::CullMode::DISABLED);
    w.set_roughness(0.1);
    let (m, w): (Gd<Material>, Gd<Material>) = (m.upcast(), w.upcast());
    [m, w.clone(), w.clone(), w]
}

/// One decoration kind's instances of a chunk as a `MultiMesh` of `mesh`, positioned relative
/// to `origin` (the chunk's first voxel); None when the chunk has none of `kind`.
pub(crate) fn scatter_multimesh(
    mesh: &Gd<ArrayMesh>,
    kind: ScatterKind,
    items: &[ScatterInstance],
    origin: IVec3,
) -> Option<Gd<MultiMesh>> {
    let of_kind: Vec<&ScatterInstance> = items.iter().filter(|i| i.kind == kind).collect();
    if of_kind.is_empty() {
        return None;
    }
    let mut mm = MultiMesh::new_gd();
    mm.set_transform_format(multi_mesh::TransformFormat::TRANSFORM_3D);
    mm.set_mesh(mesh);
    mm.set_instance_count(of_kind.len() as i32);
    // One buffer upload instead of a server call per instance: 12 floats each, the
    // transform's three rows as (basis row, origin component).
    let mut buffer = Vec::with_capacity(of_kind.len() * 12);
    for it in &of_kind {
        let basis = Basis::from_axis_angle(Vector3::UP, it.rotation_y).scaled(Vector3::splat(it.scale));
        let pos = [
            (it.position[0] - f64::from(origin.x)) as f32,
            (it.position[1] - f64::from(origin.y)) as f32,
            (it.position[2] - f64::from(origin.z)) as f32,
        ];
        for (row, o) in basis.rows.iter().zip(pos) {
            buffer.extend_from_slice(&[row.x, row.y, row.z, o]);
        }
    }
    mm.set_buffer(&PackedFloat32Array::from(buffer.as_slice()));
    Some(mm)
}

/// The opaque surface's triangles (surface 0) of a chunk's mesh, as collision faces.
pub(crate) fn opaque_faces(mi: &Gd<MeshInstance3D>) -> Option<PackedVector3Array> {
    let mesh = mi.get_mesh()?.try_cast::<ArrayMesh>().ok()?;
    if mesh.get_surface_count() == 0 || mesh.surface_get_name(0) != "opaque" {
        return None;
    }
    let arrays = mesh.surface_get_arrays(0);
    let verts: PackedVector3Array = arrays.get(ArrayType::VERTEX.ord() as usize)?.try_to().ok()?;
    let idx: PackedInt32Array = arrays.get(ArrayType::INDEX.ord() as usize)?.try_to().ok()?;
    let v = verts.as_slice();
    Some(idx.as_slice().iter().filter_map(|&i| v.get(i as usize).copied()).collect())
}

fn surface_arrays(s: &MeshSurface) -> VarArray {
    let mut arrays = VarArray::new();
    arrays.resize(ArrayType::MAX.ord() as usize, &Variant::nil());
    arrays.set(ArrayType::VERTEX.ord() as usize, &PackedVector3Array::from(as_vector3s(&s.positions)).to_variant());
    // No colours where the workers pack none (every vertex white). Otherwise each RGBA8 channel
    // as the middle of its step, so Godot's conversion (× 255, truncated) gives back the same byte.
    if !all_white(&s.colors) {
        let colors: Vec<Color> = s
            .colors
            .iter()
            .map(|c| {
                let [r, g, b, a] = c.map(|v| (v as f32 + 0.5) / 255.0);
                Color::from_rgba(r, g, b, a)
            })
            .collect();
        arrays.set(ArrayType::COLOR.ord() as usize, &PackedColorArray::from(colors.as_slice()).to_variant());
    }
    // Custom0 as one float a vertex (R_FLOAT, in the format flags the callers pass).
    let custom0: Vec<f32> = s
        .layers
        .iter()
        .zip(&s.lights)
        .zip(&s.directions)
        .map(|((&layer, &light), &d)| vertex_custom0(layer, light, d))
        .collect();
    arrays.set(ArrayType::CUSTOM0.ord() as usize, &PackedFloat32Array::from(custom0.as_slice()).to_variant());
    arrays.set(ArrayType::INDEX.ord() as usize, &PackedInt32Array::from(s.indices.as_slice()).to_variant());
    arrays
}

// The core's positions have Godot's memory layout, so they cross into a Packed array with one
// copy instead of a conversion per vertex.
const _: () = assert!(size_of::<Vector3>() == size_of::<[f32; 3]>() && align_of::<Vector3>() == align_of::<[f32; 3]>());

/// `[x, y, z]` triples viewed as Godot vectors.
pub(crate) fn as_vector3s(v: &[[f32; 3]]) -> &[Vector3] {
    // SAFETY: `Vector3` is `#[repr(C)] { x, y, z: f32 }` (single-precision builds; the asserts above
    // fail to compile otherwise): same size, alignment and field order as `[f32; 3]`, and every bit
    // pattern is a valid value.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<Vector3>(), v.len()) }
}

/// A mesh from surfaces the workers already packed into Godot's stored form
/// ([`strata_core::mesh::bytes`]): through `ArrayMesh`'s `_surfaces` property, the path a saved
/// mesh resource loads by, so Godot copies the streams instead of converting every vertex.
///
/// Surfaces come in [`SURFACE_NAMES`] order (opaque, cutout, transparent, liquid), empty ones
/// left out, each named after its kind: find one with `ArrayMesh.surface_find_by_name`.
pub(crate) fn array_mesh_from_bytes(m: &MeshBytes, materials: &SurfaceMaterials) -> Gd<ArrayMesh> {
    let mut surfaces = VarArray::new();
    let named = m.surfaces().into_iter().zip(materials).zip(SURFACE_NAMES);
    for ((surface, material), name) in named {
        let Some(s): &Option<SurfaceBytes> = surface else { continue };
        let mut d = VarDictionary::new();
        d.set("format", s.format as i64);
        d.set("primitive", PrimitiveType::TRIANGLES.ord() as i64);
        d.set("vertex_data", &PackedByteArray::from(s.vertex_data.as_slice()));
        d.set("attribute_data", &PackedByteArray::from(s.attribute_data.as_slice()));
        d.set("vertex_count", s.vertex_count as i64);
        d.set("index_data", &PackedByteArray::from(s.index_data.as_slice()));
        d.set("index_count", s.index_count as i64);
        let [px, py, pz] = s.aabb_position;
        let [sx, sy, sz] = s.aabb_size;
        d.set("aabb", Aabb::new(Vector3::new(px, py, pz), Vector3::new(sx, sy, sz)));
        d.set("material", material);
        d.set("name", name);
        surfaces.push(&d.to_variant());
    }
    let mut mesh = ArrayMesh::new_gd();
    mesh.set("_surfaces", &surfaces.to_variant());
    mesh
}

/// A mesh through Godot's own conversion of vertex arrays (`add_surface_from_arrays`): the same
/// streams as [`array_mesh_from_bytes`] (the Godot suite compares them), surfaces in the same
/// order and with the same names.
pub(crate) fn build_array_mesh(m: &ChunkMesh, materials: &SurfaceMaterials) -> Gd<ArrayMesh> {
    let mut mesh = ArrayMesh::new_gd();
    // Custom0's format: `ARRAY_CUSTOM_R_FLOAT` at `ARRAY_FORMAT_CUSTOM0_SHIFT`, as the workers pack it.
    let flags = ArrayFormat::from_ord(format::CUSTOM_R_FLOAT << format::CUSTOM0_SHIFT);
    let named = m.surfaces().into_iter().zip(materials).zip(SURFACE_NAMES);
    for ((surface, material), name) in named {
        if surface.is_empty() {
            continue;
        }
        mesh.add_surface_from_arrays_ex(PrimitiveType::TRIANGLES, &surface_arrays(surface)).flags(flags).done();
        let i = mesh.get_surface_count() - 1;
        mesh.surface_set_material(i, material);
        mesh.surface_set_name(i, name);
    }
    mesh
}

/// A flat-shaded material of one colour.
fn solid_material(rgb: [f32; 3]) -> Gd<StandardMaterial3D> {
    let mut m = StandardMaterial3D::new_gd();
    m.set_albedo(Color::from_rgb(rgb[0], rgb[1], rgb[2]));
    m.set_roughness(0.9);
    m
}

/// Appends `prim`'s surface to `out`, moved up by `lift`, with `material`.
fn add_part(out: &mut Gd<ArrayMesh>, prim: Gd<PrimitiveMesh>, lift: f32, material: &Gd<StandardMaterial3D>) {
    let mut arrays = prim.get_mesh_arrays();
    let slot = ArrayType::VERTEX.ord() as usize;
    if let Some(Ok(verts)) = arrays.get(slot).map(|v| v.try_to::<PackedVector3Array>()) {
        let moved: PackedVector3Array = verts.as_slice().iter().map(|v| *v + Vector3::new(0.0, lift, 0.0)).collect();
        arrays.set(slot, &moved.to_variant());
    }
    out.add_surface_from_arrays(PrimitiveType::TRIANGLES, &arrays);
    let i = out.get_surface_count() - 1;
    out.surface_set_material(i, material);
}

/// Simple built-in meshes for the decorations, base at the origin, in `SCATTER_KINDS` order.
pub(crate) fn build_scatter_meshes() -> [Gd<ArrayMesh>; 4] {
    let bark = solid_material([0.36, 0.24, 0.14]);
    let leaves = solid_material([0.16, 0.42, 0.16]);
    let mut tree = ArrayMesh::new_gd();
    let mut trunk = CylinderMesh::new_gd();
    trunk.set_top_radius(0.18);
    trunk.set_bottom_radius(0.25);
    trunk.set_height(2.4);
    trunk.set_radial_segments(6);
    add_part(&mut tree, trunk.upcast(), 1.2, &bark);
    let mut crown = SphereMesh::new_gd();
    crown.set_radius(1.4);
    crown.set_height(3.2);
    crown.set_radial_segments(8);
    crown.set_rings(4);
    add_part(&mut tree, crown.upcast(), 3.4, &leaves);
    let mut bush = ArrayMesh::new_gd();
    let mut ball = SphereMesh::new_gd();
    ball.set_radius(0.6);
    ball.set_height(0.9);
    ball.set_radial_segments(6);
    ball.set_rings(3);
    add_part(&mut bush, ball.upcast(), 0.4, &solid_material([0.22, 0.5, 0.2]));
    let mut flower = ArrayMesh::new_gd();
    let mut petal = PrismMesh::new_gd();
    petal.set_size(Vector3::new(0.35, 0.45, 0.35));
    add_part(&mut flower, petal.upcast(), 0.22, &solid_material([0.92, 0.4, 0.6]));
    let mut rock = ArrayMesh::new_gd();
    let mut stone = SphereMesh::new_gd();
    stone.set_radius(0.6);
    stone.set_height(0.7);
    stone.set_radial_segments(5);
    stone.set_rings(3);
    add_part(&mut rock, stone.upcast(), 0.15, &solid_material([0.5, 0.5, 0.52]));
    [tree, bush, flower, rock]
}
