//! The lines of `StrataChunkWorld.debug_view` ([`super::debug_view`] draws them): chunk bounds
//! coloured by state, far columns by level and collision faces as a wireframe, gathered into
//! one `ArrayMesh` of `PRIMITIVE_LINES` with an unshaded material drawn through the terrain.
//!
//! May use: Godot classes, `strata_core` coordinates; nothing of the node.

use godot::classes::base_material_3d::{Flags, ShadingMode, Transparency};
use godot::classes::mesh::{ArrayType, PrimitiveType};
use godot::classes::{ArrayMesh, MeshInstance3D, StandardMaterial3D};
use godot::prelude::*;

/// Frames between two rebuilds of the lines.
pub(super) const REFRESH_FRAMES: u32 = 15;

/// Most collision triangles drawn as wireframe (the chunks nearest the first viewer first).
pub(super) const MAX_WIREFRAME_TRIANGLES: usize = 60_000;

/// A chunk with a mesh and collision.
pub(super) const COLOR_COLLISION: Color = Color::from_rgb(0.2, 0.85, 1.0);
/// A chunk with a mesh near a viewer whose collision is still queued.
pub(super) const COLOR_COLLISION_QUEUED: Color = Color::from_rgb(1.0, 0.55, 0.1);
/// A chunk with a mesh and no collision (beyond `collision_distance`).
pub(super) const COLOR_MESHED: Color = Color::from_rgb(0.3, 0.95, 0.3);
/// A loaded chunk with nothing to show (all air or all hidden).
pub(super) const COLOR_EMPTY: Color = Color::from_rgba(0.6, 0.6, 0.6, 0.35);
/// The collision faces around the first viewer.
pub(super) const COLOR_WIREFRAME: Color = Color::from_rgba(1.0, 1.0, 1.0, 0.6);

/// The colour of far columns of `level` (1 = nearest, the finest).
pub(super) fn far_level_color(level: u8) -> Color {
    const LEVELS: [Color; 6] = [
        Color::from_rgb(1.0, 0.95, 0.2),
        Color::from_rgb(1.0, 0.6, 0.1),
        Color::from_rgb(1.0, 0.25, 0.2),
        Color::from_rgb(0.95, 0.2, 0.8),
        Color::from_rgb(0.6, 0.3, 1.0),
        Color::from_rgb(0.3, 0.4, 1.0),
    ];
    LEVELS[usize::from(level.clamp(1, 6)) - 1]
}

/// The debug view's node and when it was last rebuilt.
#[derive(Default)]
pub(super) struct DebugView {
    pub(super) node: Option<Gd<MeshInstance3D>>,
    pub(super) frames_to_refresh: u32,
}

impl DebugView {
    /// Rebuilds the lines at the next `update`.
    pub fn refresh_soon(&mut self) {
        self.frames_to_refresh = 0;
    }
}

/// Line segments with one colour per vertex.
#[derive(Default)]
pub(super) struct Lines {
    pub(super) points: Vec<Vector3>,
    pub(super) colors: Vec<Color>,
}

impl Lines {
    pub(super) fn segment(&mut self, a: Vector3, b: Vector3, color: Color) {
        self.points.extend([a, b]);
        self.colors.extend([color, color]);
    }

    /// The 12 edges of the box from `min` to `max`.
    pub(super) fn aabb(&mut self, min: Vector3, max: Vector3, color: Color) {
        let corner = |i: u8| {
            Vector3::new(
                if i & 1 == 0 { min.x } else { max.x },
                if i & 2 == 0 { min.y } else { max.y },
                if i & 4 == 0 { min.z } else { max.z },
            )
        };
        for i in 0..8u8 {
            for bit in [1u8, 2, 4] {
                if i & bit == 0 {
                    self.segment(corner(i), corner(i | bit), color);
                }
            }
        }
    }

    /// The three edges of each triangle of `faces` (corners in threes), moved by `offset`.
    pub(super) fn wireframe(&mut self, faces: &[Vector3], offset: Vector3, color: Color) {
        for t in faces.chunks_exact(3) {
            let (a, b, c) = (t[0] + offset, t[1] + offset, t[2] + offset);
            self.segment(a, b, color);
            self.segment(b, c, color);
            self.segment(c, a, color);
        }
    }
}

pub(super) fn lines_mesh(lines: &Lines) -> Gd<ArrayMesh> {
    let mut mesh = ArrayMesh::new_gd();
    if lines.points.is_empty() {
        return mesh;
    }
    let mut arrays = VarArray::new();
    arrays.resize(ArrayType::MAX.ord() as usize, &Variant::nil());
    arrays.set(ArrayType::VERTEX.ord() as usize, &PackedVector3Array::from(lines.points.as_slice()).to_variant());
    arrays.set(ArrayType::COLOR.ord() as usize, &PackedColorArray::from(lines.colors.as_slice()).to_variant());
    mesh.add_surface_from_arrays(PrimitiveType::LINES, &arrays);
    mesh
}

/// Unshaded vertex colours, drawn over the terrain (no depth test), alpha where a colour has it.
pub(super) fn debug_material() -> Gd<StandardMaterial3D> {
    let mut m = StandardMaterial3D::new_gd();
    m.set_shading_mode(ShadingMode::UNSHADED);
    m.set_flag(Flags::ALBEDO_FROM_VERTEX_COLOR, true);
    m.set_flag(Flags::DISABLE_DEPTH_TEST, true);
    m.set_transparency(Transparency::ALPHA);
    m
}
