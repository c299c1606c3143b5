//! `StrataChunkWorld`'s streamer: made from the node's settings (`ensure_streamer`), restarted when
//! the preset changes, stopped; where the viewers are (the viewer, the editor's, the extra
//! viewers) and the horizon map around them.
//!
//! May use: its parent (`chunk_world.rs`), `strata_core::stream`.

use super::horizon_shadows;
use super::{ChunkWorld, PRELOAD_VIEWER_ID, free_chunk_node};
use crate::base::ranges;
use crate::resources::world_preset::WorldPreset;
use godot::classes::Node3D;
use godot::prelude::*;
use std::sync::Arc;
use std::time::Instant;
use strata_core::CHUNK_SIZE;
use strata_core::base::edits::EditMap;
use strata_core::light::LightProps;
use strata_core::stream::scheduler::max_workers;
use strata_core::stream::streamer::{StreamConfig, Streamer};

use strata_core::base::edit_history::PendingFlow;

impl ChunkWorld {
    /// Starts streaming (in the tree only: out of it, edits are kept for the next start).
    pub(super) fn ensure_streamer(&mut self) {
        if self.streamer.is_some() || !self.base().is_inside_tree() {
            return;
        }
        let Some(generator) = self.generator() else { return };
        let config = StreamConfig {
            view_distance: self.distances().0,
            vertical_view_distance: self.distances().1,
            worker_threads: self.worker_threads.clamp(0, max_workers() as i64) as usize,
            lod_levels: self.far_view_levels.clamp(0, 6) as u8,
            collision_distance: self.distances().2,
            memory_budget_mb: self.memory_budget_mb.clamp(0, u32::MAX as i64) as u32,
            adaptive_far: self.adaptive_far_view,
            ambient_occlusion: self.ambient_occlusion,
            // AO per fragment needs the block shaders; a material of the user's gets it baked.
            shader_occlusion: self.material_override.is_none(),
            pack_surfaces: true,
            mesh_materials: self.mesh_materials(),
            light: self.light_props(),
            spawn_light: self.library().ok().map(|l| Arc::new(LightProps::from_library(&l))),
            navigation: self.navigation_config(),
            ..StreamConfig::default()
        };
        let mut s = match Streamer::new(generator, config) {
            Ok(s) => s,
            Err(e) => {
                // The node stays inert (no streamer) until a later call starts one.
                self.host.start_failed(e);
                return;
            }
        };
        if let Some(e) = self.host.take_kept_edits() {
            s.replace_edits(e);
        }
        s.restore_water_flows(self.host.take_kept_flows());
        crate::host::water_flow::update(&mut s, self.water_flow_enabled, &mut self.host, "StrataChunkWorld");
        self.streamer = Some(s);
        self.area_ready_emitted = false;
        self.last_viewer_chunks.clear();
    }

    /// Live tuning: a changed preset (another resource, or a field of it) rebuilds the world;
    /// the edits stay.
    pub(super) fn restart_if_preset_changed(&mut self) {
        if self.streamer.is_some() && self.host.preset_changed(self.preset.as_ref()) {
            self.stop_streaming();
            self.edit_history.clear();
        }
        self.ensure_streamer();
    }

    /// Draws the world again with the current library and materials (edits kept).
    pub(super) fn redraw(&mut self) {
        self.surface_materials = None;
        if self.streamer.is_some() {
            self.stop_streaming();
            self.ensure_streamer();
        }
    }

    /// Streams `preset` with `edits` (a loaded save) in place of the current world; the flows of
    /// `flows` (the save's pending ones) run again.
    pub(super) fn restart_with(&mut self, preset: strata_core::WorldPreset, edits: EditMap, flows: Vec<PendingFlow>) {
        self.stop_streaming();
        self.host.forget_generator();
        self.host.keep_edits(edits);
        self.host.keep_flows(flows);
        self.preset = Some(WorldPreset::from_core(preset));
        self.ensure_streamer();
    }

    /// Stops the workers (joined by `Drop`) and frees every node; the edits are kept.
    pub(super) fn stop_streaming(&mut self) {
        if let Some(s) = self.streamer.take() {
            self.host.keep_edits(s.edits().clone());
            self.host.keep_flows(s.pending_water_flows());
            self.drop_streamer(s);
        }
        self.park_entities();
        self.horizon.stop();
        self.climate.stop();
        self.collision_queue.clear();
        self.abort_collision_build();
        self.pending_faces.clear();
        self.navigation.clear();
        for (_, n) in self.nodes.drain() {
            free_chunk_node(n);
        }
        for (_, n) in self.far_nodes.drain() {
            n.mesh.free();
        }
        self.occluder_pages.clear();
        self.mesh_bytes.clear();
        self.mesh_bytes_total = [0; 2];
        for (_, n) in self.nodes_to_free.drain(..) {
            n.free();
        }
        self.retired_keys.clear();
        self.area_ready_emitted = false;
    }

    /// The editor preview's centre in the world's space: the position `set_editor_viewer` gave,
    /// or the origin.
    pub(super) fn editor_viewer_position(&self) -> Vector3 {
        match self.editor_viewer {
            Some(g) if self.base().is_inside_tree() => self.base().to_local(g),
            _ => Vector3::ZERO,
        }
    }

    /// The node the world streams around: `viewer`'s node when set (a `Node3D`), else the
    /// viewport's current camera.
    pub(super) fn viewer_node(&self) -> Option<Gd<Node3D>> {
        if !self.viewer.is_empty() {
            self.base().get_node_or_null(&self.viewer).and_then(|n| n.try_cast::<Node3D>().ok())
        } else {
            self.base().get_viewport().and_then(|v| v.get_camera_3d()).map(|c| c.upcast::<Node3D>())
        }
    }

    pub(super) fn viewer_position(&self) -> Vector3 {
        let global = self.viewer_node().map(|n| n.get_global_position());
        match global {
            Some(g) if self.base().is_inside_tree() => self.base().to_local(g),
            _ => Vector3::ZERO,
        }
    }

    /// Where the added viewers and the preloaded area are (world voxels, within the world's
    /// bounds), as the streamer's `(id, position, view distance)`; freed viewers are dropped.
    pub(super) fn extra_viewer_positions(&mut self) -> Vec<(u64, [f64; 3], i32)> {
        let mut freed = Vec::new();
        self.extra_viewers.retain(|v| {
            let alive = v.node.is_instance_valid();
            if !alive {
                freed.push(v.id);
            }
            alive
        });
        self.removed_viewer_ids.extend(freed);
        let inside = self.base().is_inside_tree();
        let origin = self.origin;
        let bound = |p: Vector3| {
            let w = origin.to_world([f64::from(p.x), f64::from(p.y), f64::from(p.z)]);
            w.map(|v| v.clamp(-ranges::WORLD_BOUND, ranges::WORLD_BOUND))
        };
        let mut out = Vec::with_capacity(self.extra_viewers.len() + 1);
        for v in &self.extra_viewers {
            if !inside || !v.node.is_inside_tree() {
                continue;
            }
            let p = self.base().to_local(v.node.get_global_position());
            if p.x.is_finite() && p.y.is_finite() && p.z.is_finite() {
                out.push((v.id, bound(p), v.view_distance));
            }
        }
        if let Some(p) = &self.preload {
            out.push((PRELOAD_VIEWER_ID, bound(p.center), p.radius));
        }
        out
    }

    /// The direction the player looks: the current camera's forward, else the viewer's.
    pub(super) fn view_direction(&self) -> Option<Vector3> {
        let camera = self.base().get_viewport().and_then(|v| v.get_camera_3d()).map(|c| c.upcast::<Node3D>());
        let node =
            camera.or_else(|| self.base().get_node_or_null(&self.viewer).and_then(|n| n.try_cast::<Node3D>().ok()))?;
        if !node.is_inside_tree() {
            return None;
        }
        Some(-node.get_global_basis().col_c())
    }

    /// Keeps the horizon map around the viewer (at `viewer`, the world's voxels) and the
    /// materials' horizon uniforms current, copying finished tiles until `deadline`.
    /// The map starts once the view around the viewer is ready, so that its worker never
    /// competes with the chunks the player stands on.
    pub(super) fn update_horizon(&mut self, viewer: [f64; 3], deadline: Instant) {
        let Some(generator) = self.streamer.as_ref().map(|s| s.generator().clone()) else { return };
        if self.horizon_shadows && !self.horizon.is_started() && !self.is_area_ready() {
            return;
        }
        let (vd, ..) = self.distances();
        let reach = f64::from(vd) * f64::from(CHUNK_SIZE) * f64::from(1u32 << self.far_view_levels.clamp(0, 6));
        let materials = self.materials();
        // The shader reads the map at world voxels: the node's space plus the origin, whose
        // whole tiles it adds as integers and the rest as floats (small, so exact).
        let o = self.origin.voxel();
        let tile = strata_core::stream::horizon_map::TILE_VOXELS;
        let origin_tile = Vector2i::new(o.x.div_euclid(tile), o.z.div_euclid(tile));
        let within = Vector3::new((o.x - origin_tile.x * tile) as f32, o.y as f32, (o.z - origin_tile.y * tile) as f32);
        let from_world =
            Transform3D::new(Basis::IDENTITY, within) * self.base().get_global_transform().affine_inverse();
        let space = (from_world, origin_tile);
        self.horizon.update(self.horizon_shadows, &generator, reach, viewer, &materials, space, deadline);
        // The chunks' own material copies follow the shared ones.
        if self.horizon.take_told() {
            self.copies_follow(&materials[0], &horizon_shadows::UNIFORMS);
        }
    }
}
