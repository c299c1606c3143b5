//! `StrataChunkWorld.debug_view`: lines drawn over the world, in game and in the editor viewport,
//! that show what the streamer holds. Each loaded chunk's bounds are coloured by its state (with
//! a mesh, with collision, waiting for collision, empty), each far column's by its level, and the
//! collision faces of the chunks around the first viewer are drawn as a wireframe. The lines are
//! one `ArrayMesh` of `PRIMITIVE_LINES` on an internal `MeshInstance3D`, unshaded and drawn
//! through the terrain, rebuilt every [`REFRESH_FRAMES`] frames while the view is on.
//!
//! A child module of `chunk_world`: it reads the world's chunk and far nodes directly and draws
//! them with [`super::debug_lines`].
//!
//! May use: Godot classes, the parent module, `debug_lines`, `strata_core` coordinates.

use super::debug_lines::{
    COLOR_COLLISION, COLOR_COLLISION_QUEUED, COLOR_EMPTY, COLOR_MESHED, COLOR_WIREFRAME, Lines,
    MAX_WIREFRAME_TRIANGLES, REFRESH_FRAMES, debug_material, far_level_color, lines_mesh,
};
use super::{ChunkWorld, InternalMode};
use crate::host::meshes::as_vector3s;
use godot::classes::MeshInstance3D;
use godot::classes::geometry_instance_3d::ShadowCastingSetting;
use godot::prelude::*;
use strata_core::mesh::CollisionParts;
use strata_core::{CHUNK_SIZE, ChunkCoord};

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
            let min = self.local_of_voxel(c.min_voxel());
            lines.aabb(min, min + size, color);
        }
        for (column, far) in &self.far_nodes {
            let Some(mesh) = far.mesh.get_mesh() else { continue };
            let bounds = mesh.get_aabb();
            let at = far.mesh.get_position();
            lines.aabb(at + bounds.position, at + bounds.position + bounds.size, far_level_color(column.level));
        }
        if let Some(&viewer) = self.last_viewer_chunks.first() {
            let mut near: Vec<(ChunkCoord, &CollisionParts)> = self
                .nodes
                .iter()
                .filter(|(c, _)| {
                    (c.x - viewer.x).abs() <= 1 && (c.y - viewer.y).abs() <= 1 && (c.z - viewer.z).abs() <= 1
                })
                .filter_map(|(&c, n)| n.body.as_ref().and(n.faces.as_ref()).map(|f| (c, f)))
                .collect();
            let d = |a: i32, b: i32| (i64::from(a) - i64::from(b)).pow(2);
            near.sort_by_key(|(c, _)| d(c.x, viewer.x) + d(c.y, viewer.y) + d(c.z, viewer.z));
            let mut triangles = 0;
            for (c, faces) in near {
                let faces = as_vector3s(faces.corners());
                triangles += faces.len() / 3;
                if triangles > MAX_WIREFRAME_TRIANGLES {
                    break;
                }
                lines.wireframe(faces, self.local_of_voxel(c.min_voxel()), COLOR_WIREFRAME);
            }
        }
        lines
    }
}
