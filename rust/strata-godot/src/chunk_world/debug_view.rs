//! `StrataChunkWorld.debug_view`: lines drawn over the world, in game and in the editor viewport,
//! that show what the streamer holds. Each loaded chunk's bounds are coloured by its state (with
//! a mesh, with collision, waiting for collision, empty), each far column's by its level, and the
//! collision faces of the chunks around the first viewer are drawn as a wireframe. The lines are
//! one `ArrayMesh` of `PRIMITIVE_LINES` on an internal `MeshInstance3D`, unshaded and drawn
//! through the terrain, rebuilt every [`REFRESH_FRAMES`] frames while the view is on.
//!
//! A child module of `chunk_world`: it reads the world's chunk and far nodes directly.
//!
//! May use: Godot classes, the parent module, `strata_core` coordinates.

use super::{ChunkWorld, InternalMode};
use godot::classes::base_material_3d::{Flags, ShadingMode, Transparency};
use godot::classes::geometry_instance_3d::ShadowCastingSetting;
use godot::classes::mesh::{ArrayType, PrimitiveType};
use godot::classes::{ArrayMesh, MeshInstance3D, StandardMaterial3D};
use godot::prelude::*;
use strata_core::{CHUNK_SIZE, ChunkCoord};

/// Frames between two rebuilds of the lines.
pub const REFRESH_FRAMES: u32 = 15;

/// Most collision triangles drawn as wireframe (the chunks nearest the first viewer first).
const MAX_WIREFRAME_TRIANGLES: usize = 60_000;

/// A chunk with a mesh and collision.
pub const COLOR_COLLISION: Color = Color::from_rgb(0.2, 0.85, 1.0);
/// A chunk with a mesh near a viewer whose collision is still queued.
pub const COLOR_COLLISION_QUEUED: Color = Color::from_rgb(1.0, 0.55, 0.1);
/// A chunk with a mesh and no collision (beyond `collision_distance`).
pub const COLOR_MESHED: Color = Color::from_rgb(0.3, 0.95, 0.3);
/// A loaded chunk with nothing to show (all air or all hidden).
pub const COLOR_EMPTY: Color = Color::from_rgba(0.6, 0.6, 0.6, 0.35);
/// The collision faces around the first viewer.
pub const COLOR_WIREFRAME: Color = Color::from_rgba(1.0, 1.0, 1.0, 0.6);

/// The colour of far columns of `level` (1 = nearest, the finest).
pub fn far_level_color(level: u8) -> Color {
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
pub struct DebugView {
    node: Option<Gd<MeshInstance3D>>,
    frames_to_refresh: u32,
}

impl DebugView {
    /// Rebuilds the lines at the next `update`.
    pub fn refresh_soon(&mut self) {
        self.frames_to_refresh = 0;
    }
}

/// Line segments with one colour per vertex.
#[derive(Default)]
struct Lines {
    points: Vec<Vector3>,
    colors: Vec<Color>,
}

impl Lines {
    fn segment(&mut self, a: Vector3, b: Vector3, color: Color) {
        self.points.extend([a, b]);
        self.colors.extend([color, color]);
    }

    /// The 12 edges of the box from `min` to `max`.
    fn aabb(&mut self, min: Vector3, max: Vector3, color: Color) {
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
    fn wireframe(&mut self, faces: &[Vector3], offset: Vector3, color: Color) {
        for t in faces.chunks_exact(3) {
            let (a, b, c) = (t[0] + offset, t[1] + offset, t[2] + offset);
            self.segment(a, b, color);
            self.segment(b, c, color);
            self.segment(c, a, color);
        }
    }
}

fn chunk_min(c: ChunkCoord) -> Vector3 {
    let m = c.min_voxel();
    Vector3::new(m.x as f32, m.y as f32, m.z as f32)
}

impl ChunkWorld {
    /// Shows, hides and rebuilds the debug view; called every frame.
    pub(super) fn update_debug_view(&mut self) {
        if !self.debug_view {
            if let Some(node) = self.debug.node.take() {
                node.free();
            }
            return;
        }
        if self.debug.frames_to_refresh > 0 {
            self.debug.frames_to_refresh -= 1;
            return;
        }
        self.debug.frames_to_refresh = REFRESH_FRAMES;
        let lines = self.debug_lines();
        let mesh = lines_mesh(&lines);
        let mut node = match self.debug.node.clone() {
            Some(n) => n,
            None => {
                let mut n = MeshInstance3D::new_alloc();
                n.set_name("debug_view");
                n.set_cast_shadows_setting(ShadowCastingSetting::OFF);
                n.set_material_override(&debug_material());
                self.base_mut().add_child_ex(&n).internal(InternalMode::BACK).done();
                self.debug.node = Some(n.clone());
                n
            }
        };
        node.set_mesh(&mesh);
    }

    /// The lines of the view as it stands: chunk bounds by state, far columns by level and the
    /// collision wireframe around the first viewer.
    fn debug_lines(&self) -> Lines {
        let mut lines = Lines::default();
        let size = Vector3::splat(CHUNK_SIZE as f32);
        for (&c, node) in &self.nodes {
            let color = match (&node.mesh, &node.body) {
                (_, Some(_)) => COLOR_COLLISION,
                (Some(_), None) if self.collision_queue.contains(&c) => COLOR_COLLISION_QUEUED,
                (Some(_), None) => COLOR_MESHED,
                (None, None) => COLOR_EMPTY,
            };
            let min = chunk_min(c);
            lines.aabb(min, min + size, color);
        }
        for (column, far) in &self.far_nodes {
            let Some(mesh) = far.mesh.get_mesh() else { continue };
            let bounds = mesh.get_aabb();
            let at = far.mesh.get_position();
            lines.aabb(at + bounds.position, at + bounds.position + bounds.size, far_level_color(column.level));
        }
        if let Some(&viewer) = self.last_viewer_chunks.first() {
            let mut near: Vec<(ChunkCoord, &PackedVector3Array)> = self
                .nodes
                .iter()
                .filter(|(c, _)| {
                    (c.x - viewer.x).abs() <= 1 && (c.y - viewer.y).abs() <= 1 && (c.z - viewer.z).abs() <= 1
                })
                .filter_map(|(&c, n)| n.body.as_ref().and(n.faces.as_ref()).map(|f| (c, f)))
                .collect();
            near.sort_by_key(|(c, _)| (c.x - viewer.x).pow(2) + (c.y - viewer.y).pow(2) + (c.z - viewer.z).pow(2));
            let mut triangles = 0;
            for (c, faces) in near {
                let faces = faces.as_slice();
                triangles += faces.len() / 3;
                if triangles > MAX_WIREFRAME_TRIANGLES {
                    break;
                }
                lines.wireframe(faces, chunk_min(c), COLOR_WIREFRAME);
            }
        }
        lines
    }
}

fn lines_mesh(lines: &Lines) -> Gd<ArrayMesh> {
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
fn debug_material() -> Gd<StandardMaterial3D> {
    let mut m = StandardMaterial3D::new_gd();
    m.set_shading_mode(ShadingMode::UNSHADED);
    m.set_flag(Flags::ALBEDO_FROM_VERTEX_COLOR, true);
    m.set_flag(Flags::DISABLE_DEPTH_TEST, true);
    m.set_transparency(Transparency::ALPHA);
    m
}
