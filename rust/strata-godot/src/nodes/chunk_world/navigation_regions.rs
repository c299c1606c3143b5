//! `StrataChunkWorld`'s navigation glue (an impl file): what the streamer bakes, which loaded
//! chunks get regions as the viewers move, registering baked meshes within the frame budget and
//! placing the regions in the engine's space (the node's transform and the floating origin).
//! The regions themselves are the `navigation` part's.
//!
//! May use: its parent (`chunk_world.rs`) and its `navigation` part, `strata_core`'s navigation
//! configuration.

use super::{ChunkWorld, near_any};
use godot::prelude::*;
use std::sync::Arc;
use std::time::Instant;
use strata_core::ChunkCoord;
use strata_core::nav::NavSettings;
use strata_core::stream::navigation::{MAX_NAVIGATION_DISTANCE, NavConfig};

impl ChunkWorld {
    pub(super) fn navigation_config(&self) -> Option<Arc<NavConfig>> {
        let distance = self.navigation_distance.clamp(1, MAX_NAVIGATION_DISTANCE as i64) as i32;
        self.navigation_enabled
            .then(|| Arc::new(NavConfig::from_materials(distance, NavSettings::default(), &self.mesh_materials())))
    }

    /// `navigation_enabled` or `navigation_distance` changed: the streamer bakes with the new
    /// config from now on; loaded chunks within the distance are rebaked, regions beyond it go.
    pub(super) fn navigation_changed(&mut self) {
        let config = self.navigation_config();
        if config.is_none() {
            self.navigation.clear();
        }
        if let Some(s) = &mut self.streamer {
            s.set_navigation(config);
        }
        let viewers = self.last_viewer_chunks.clone();
        if !viewers.is_empty() {
            self.update_navigation_ring(&viewers);
        }
    }

    pub(super) fn accept_navigation(&mut self, c: ChunkCoord, mesh: strata_core::nav::NavMesh, bake_us: u32) {
        if self.navigation_enabled {
            self.navigation.accept(c, mesh, bake_us);
        }
    }

    /// The viewers moved: regions beyond the navigation distance (and one chunk of slack) are
    /// freed, loaded chunks within it that have no mesh are rebuilt with one.
    pub(super) fn update_navigation_ring(&mut self, viewers: &[ChunkCoord]) {
        let Some(config) = self.streamer.as_ref().and_then(|s| s.config().navigation.clone()) else { return };
        for c in self.navigation.chunks() {
            if !near_any(c, viewers, config.distance + 1) {
                self.navigation.remove(c);
            }
        }
        let wanted: Vec<ChunkCoord> = self
            .nodes
            .keys()
            .filter(|&&c| config.wants(viewers.iter().copied(), c) && !self.navigation.has(c))
            .copied()
            .collect();
        if let Some(s) = &mut self.streamer {
            for c in wanted {
                s.request_navigation(c);
            }
        }
    }

    /// Registers baked meshes with the navigation server until `deadline` (at least one).
    pub(super) fn register_navigation(&mut self, deadline: Instant) {
        if self.navigation.queued() == 0 || !self.base().is_inside_tree() {
            return;
        }
        let Some(world) = self.base().get_world_3d() else { return };
        let map = world.get_navigation_map();
        let chunk_transform = self.chunk_transforms();
        self.navigation.register_queued(map, chunk_transform, deadline);
    }

    /// A chunk's transform in the engine's space: its corner in the node's space (world −
    /// origin), through the node's global transform.
    pub(super) fn chunk_transforms(&self) -> impl Fn(ChunkCoord) -> Transform3D + use<> {
        let global = self.base().get_global_transform();
        let origin = self.origin;
        move |c: ChunkCoord| {
            let o = origin.voxel_to_local(c.min_voxel());
            global * Transform3D::new(Basis::IDENTITY, Vector3::new(o.x as f32, o.y as f32, o.z as f32))
        }
    }

    /// Places every navigation region again (the origin moved).
    pub(super) fn place_navigation_regions(&mut self) {
        let chunk_transform = self.chunk_transforms();
        self.navigation.place_all(chunk_transform);
    }

    pub(super) fn navigation_stats(&self, d: &mut VarDictionary) {
        d.set("nav_regions", self.navigation.region_count() as i64);
        d.set("nav_queue", self.navigation.queued() as i64);
        d.set("nav_bake_us_median", self.navigation.bake_us.median());
        d.set("nav_bake_us_max", self.navigation.bake_us.max());
        d.set("nav_register_us_median", self.navigation.register_us.median());
    }
}
