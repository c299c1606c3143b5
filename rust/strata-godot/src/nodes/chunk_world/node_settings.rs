//! The physics and render settings `StrataChunkWorld` gives every node it creates, as Godot's own
//! geometry and body nodes have them: collision layer, mask, priority and physics material on
//! the chunks' bodies; render layers, shadow casting, GI mode and (for far columns) visibility
//! ranges on the chunk meshes, scatter and far columns. A node made later and a node already in
//! the tree when a property changes get the same settings from here.
//!
//!
//! A child module of `chunk_world`: the properties' setters (in the primary `#[godot_api]`
//! block, which `#[var(set)]` needs) call [`ChunkWorld::reapply_body_settings`] and
//! [`ChunkWorld::reapply_render_settings`] here.
//!
//! May use: Godot classes, the parent module.

use super::ChunkWorld;
use godot::classes::geometry_instance_3d::{GiMode, ShadowCastingSetting, VisibilityRangeFadeMode};
use godot::classes::{GeometryInstance3D, PhysicsMaterial, StaticBody3D};
use godot::prelude::*;

impl ChunkWorld {
    /// The settings every chunk body gets now.
    pub(super) fn body_settings(&self) -> BodySettings {
        BodySettings {
            layer: self.collision_layer,
            mask: self.collision_mask,
            priority: self.collision_priority,
            material: self.physics_material_override.clone(),
        }
    }

    /// The settings every chunk mesh, scatter instance and far column gets now.
    pub(super) fn render_settings(&self) -> RenderSettings {
        RenderSettings {
            layers: self.layers,
            cast_shadow: self.cast_shadow,
            gi_mode: self.gi_mode,
            far_range_end: self.far_visibility_range_end,
            far_range_end_margin: self.far_visibility_range_end_margin,
        }
    }

    pub(super) fn reapply_body_settings(&mut self) {
        let settings = self.body_settings();
        for body in self.nodes.values_mut().filter_map(|n| n.body.as_mut()) {
            settings.apply(body);
        }
    }

    pub(super) fn reapply_render_settings(&mut self) {
        let settings = self.render_settings();
        for node in self.nodes.values_mut() {
            if let Some(mesh) = node.mesh.as_mut() {
                settings.apply_near(mesh);
            }
            for scatter in &mut node.scatter {
                settings.apply_near(scatter);
            }
        }
        for far in self.far_nodes.values_mut() {
            settings.apply_far(&mut far.mesh);
        }
    }
}

/// What every chunk body gets (`CollisionObject3D` and `StaticBody3D` properties).
#[derive(Clone)]
pub struct BodySettings {
    pub layer: u32,
    pub mask: u32,
    pub priority: f32,
    pub material: Option<Gd<PhysicsMaterial>>,
}

impl Default for BodySettings {
    /// Godot's defaults for a new `StaticBody3D`: layer 1, mask 1, priority 1, no material.
    fn default() -> Self {
        Self { layer: 1, mask: 1, priority: 1.0, material: None }
    }
}

impl BodySettings {
    pub fn apply(&self, body: &mut Gd<StaticBody3D>) {
        body.set_collision_layer(self.layer);
        body.set_collision_mask(self.mask);
        body.set_collision_priority(self.priority);
        body.set_physics_material_override(self.material.as_ref());
    }
}

/// What every chunk mesh, scatter instance and far column gets (`VisualInstance3D` and
/// `GeometryInstance3D` properties).
#[derive(Clone, Copy)]
pub struct RenderSettings {
    pub layers: u32,
    pub cast_shadow: ShadowCastingSetting,
    pub gi_mode: GiMode,
    /// Far columns are hidden beyond this distance from the camera (metres; 0 = never).
    pub far_range_end: f32,
    /// Over this many metres before `far_range_end` far columns fade out (0 = a hard cut).
    pub far_range_end_margin: f32,
}

impl Default for RenderSettings {
    /// Godot's defaults for a new `GeometryInstance3D`: render layer 1, shadows on, static GI;
    /// far columns never hidden.
    fn default() -> Self {
        Self {
            layers: 1,
            cast_shadow: ShadowCastingSetting::ON,
            gi_mode: GiMode::STATIC,
            far_range_end: 0.0,
            far_range_end_margin: 0.0,
        }
    }
}

impl RenderSettings {
    /// Settings of a near chunk's mesh or scatter.
    pub fn apply_near<T: Inherits<GeometryInstance3D>>(&self, node: &mut Gd<T>) {
        let mut g = node.clone().upcast::<GeometryInstance3D>();
        g.set_layer_mask(self.layers);
        g.set_cast_shadows_setting(self.cast_shadow);
        g.set_gi_mode(self.gi_mode);
    }

    /// Settings of a far column's mesh: the near ones and the far view's visibility range.
    pub fn apply_far<T: Inherits<GeometryInstance3D>>(&self, node: &mut Gd<T>) {
        self.apply_near(node);
        let mut g = node.clone().upcast::<GeometryInstance3D>();
        g.set_visibility_range_end(self.far_range_end.max(0.0));
        g.set_visibility_range_end_margin(self.far_range_end_margin.max(0.0));
        g.set_visibility_range_fade_mode(if self.far_range_end_margin > 0.0 {
            VisibilityRangeFadeMode::SELF
        } else {
            VisibilityRangeFadeMode::DISABLED
        });
    }
}
