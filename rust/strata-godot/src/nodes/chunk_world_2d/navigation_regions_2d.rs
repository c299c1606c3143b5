//! `StrataChunkWorld2D`'s navigation glue and API (a secondary `#[godot_api]` block): what the
//! `navigation_*` settings' setters do (the setters themselves are the primary block's, as gdext
//! wants), what the streamer bakes, which loaded chunks get navigation
//! as the viewers move, registering baked meshes within the frame budget, placing regions and
//! links in the engine's space (the node's transform and the floating origin, with the
//! `NavigationAgent2D`s' targets), and the queries (`get_navigation_map`,
//! `get_navigation_regions`, `get_navigation_polygons`, `get_navigation_links`).
//! The regions themselves are the `navigation_2d` part's.
//!
//! May use: its parent (`chunk_world_2d.rs`) and its `navigation_2d` part, `strata_core`'s side-view
//! navigation configuration.

use super::ChunkWorld2D;
use super::navigation_2d::Placement2D;
use crate::base::ranges;
use crate::host::navigation_server;
use godot::prelude::*;
use std::sync::Arc;
use std::time::Instant;
use strata_core::gen2d::ChunkCoord2D;
use strata_core::nav::{MAX_AGENT_HEIGHT_2D, MAX_DROP_2D, MAX_STEP_UP_2D, NavSettings2D};
use strata_core::stream::navigation2d::{MAX_NAVIGATION_DISTANCE_2D, NavConfig2D};
use strata_core::stream::stream2d::ChunkResult2D;

const CLASS: &str = "StrataChunkWorld2D";

#[godot_api(secondary)]
impl ChunkWorld2D {
    /// The `NavigationServer2D` map the world's regions and links are on: the one given with
    /// `set_navigation_map`, else the default map of the world's `World2D` (an invalid RID while
    /// the world is out of the tree). Query paths on it
    /// (`NavigationServer2D.map_get_path(world.get_navigation_map(), from, to, true)`), or give
    /// a `NavigationAgent2D` the same map (the default map is every agent's default).
    #[func]
    pub fn get_navigation_map(&self) -> Rid {
        self.navigation_map_rid().unwrap_or(Rid::Invalid)
    }

    /// Puts the world's regions and links on navigation map `map` (a map of
    /// `NavigationServer2D.map_create()`, made active with `map_set_active`), as
    /// `NavigationRegion2D.set_navigation_map`; an invalid RID goes back to the `World2D`'s default
    /// map.
    #[func]
    pub fn set_navigation_map(&mut self, map: Rid) {
        self.navigation_2d.map = map.is_valid().then_some(map);
        if let Some(map) = self.navigation_map_rid() {
            self.navigation_2d.set_map(map);
        }
    }

    /// The navigation regions (`NavigationServer2D` RIDs, one per chunk with ground) of the
    /// chunks that the rectangle spanned by `from` and `to` (positions in the node's space),
    /// grown by `margin` pixels on every side, touches; empty without `navigation_enabled`. For
    /// path queries bounded to the regions near their ends (`NavigationPathQueryParameters2D`'s
    /// `included_regions`), as `StrataChunkWorld.get_navigation_regions`.
    #[func]
    pub fn get_navigation_regions(&self, from: Vector2, to: Vector2, margin: f64) -> Array<Rid> {
        let m = if margin.is_finite() { margin.max(0.0) as f32 } else { 0.0 };
        let (lo, hi) = (from.coord_min(to) - Vector2::splat(m), from.coord_max(to) + Vector2::splat(m));
        let n = self.chunk_tiles();
        let chunk = |p: Vector2| {
            let t = self.local_to_tile(p);
            ChunkCoord2D::containing(t.x, t.y, n)
        };
        self.navigation_2d.regions_in(chunk(lo), chunk(hi)).into_iter().collect()
    }

    /// The walker navigation polygons registered for chunk `chunk` (see `chunk_of_tile`), each
    /// a convex polygon of positions in the node's space (pixels): the strips of ground a walker
    /// stands on (one tile tall, over the ground) and the risers up to ledges within
    /// `navigation_max_step_up`. Empty while the chunk has none on the server. For debug drawing
    /// and tools.
    #[func]
    pub fn get_navigation_polygons(&self, chunk: Vector2i) -> Array<PackedVector2Array> {
        let c = ChunkCoord2D::new(chunk.x, chunk.y);
        let place = self.navigation_placement();
        let Some(mesh) = self.navigation_2d.mesh(c) else { return Array::new() };
        mesh.polygons
            .polygon_points()
            .map(|p| p.iter().map(|&v| place.local_vertex(c, v)).collect::<PackedVector2Array>())
            .collect()
    }

    /// The one-way drops registered for chunk `chunk` (`NavigationServer2D` links, deeper than
    /// `navigation_max_step_up` and at most `navigation_max_drop`), as pairs of positions in the
    /// node's space: `[from, to, from, to, …]`, from a ledge cell's centre to the centre of the
    /// cell it drops to.
    #[func]
    pub fn get_navigation_links(&self, chunk: Vector2i) -> PackedVector2Array {
        let c = ChunkCoord2D::new(chunk.x, chunk.y);
        let place = self.navigation_placement();
        let Some(mesh) = self.navigation_2d.mesh(c) else { return PackedVector2Array::new() };
        mesh.links.iter().flat_map(|l| [place.local_point(c, l.from), place.local_point(c, l.to)]).collect()
    }
}

impl ChunkWorld2D {
    /// `navigation_enabled`'s setter (the primary `#[godot_api]` block's `set_navigation_enabled`).
    pub(super) fn change_navigation_enabled(&mut self, value: bool) {
        self.navigation_enabled = value;
        self.navigation_changed(false);
    }

    pub(super) fn change_navigation_distance(&mut self, value: i64) {
        let max = MAX_NAVIGATION_DISTANCE_2D as i64;
        self.navigation_distance = ranges::int_in_range(CLASS, "navigation_distance", value, 1, max);
        self.navigation_changed(false);
    }

    pub(super) fn change_navigation_layers(&mut self, value: u32) {
        self.navigation_layers = value;
        self.navigation_2d.set_layers(value);
    }

    pub(super) fn change_navigation_agent_height(&mut self, value: i64) {
        let max = MAX_AGENT_HEIGHT_2D as i64;
        self.navigation_agent_height = ranges::int_in_range(CLASS, "navigation_agent_height", value, 1, max);
        self.navigation_changed(true);
    }

    pub(super) fn change_navigation_max_step_up(&mut self, value: i64) {
        let max = MAX_STEP_UP_2D as i64;
        self.navigation_max_step_up = ranges::int_in_range(CLASS, "navigation_max_step_up", value, 0, max);
        self.navigation_changed(true);
    }

    pub(super) fn change_navigation_max_drop(&mut self, value: i64) {
        let max = MAX_DROP_2D as i64;
        self.navigation_max_drop = ranges::int_in_range(CLASS, "navigation_max_drop", value, 0, max);
        self.navigation_changed(true);
    }

    /// The streamer's navigation config from the settings, or `None` with navigation off.
    pub(super) fn navigation_config_2d(&self) -> Option<Arc<NavConfig2D>> {
        let distance = self.navigation_distance.clamp(1, MAX_NAVIGATION_DISTANCE_2D as i64) as i32;
        let settings = NavSettings2D {
            agent_height: self.navigation_agent_height.clamp(1, MAX_AGENT_HEIGHT_2D as i64) as u8,
            max_step_up: self.navigation_max_step_up.clamp(0, MAX_STEP_UP_2D as i64) as u8,
            max_drop: self.navigation_max_drop.clamp(0, MAX_DROP_2D as i64) as u8,
        };
        // The editor preview bakes none: its regions would join the editor's own map.
        let in_game = !godot::classes::Engine::singleton().is_editor_hint();
        (self.navigation_enabled && in_game)
            .then(|| Arc::new(NavConfig2D::from_library(distance, settings, &self.blocks)))
    }

    /// A navigation setting changed: the streamer bakes with the new config from now on; off,
    /// every region and link goes; with `rebake` (the walker changed) every chunk with navigation
    /// is baked again, its old navigation kept until the new one comes.
    fn navigation_changed(&mut self, rebake: bool) {
        let config = self.navigation_config_2d();
        if config.is_none() {
            self.navigation_2d.clear();
        }
        let Some(s) = &mut self.streamer else { return };
        if s.config().navigation == config {
            return;
        }
        s.set_navigation(config);
        if rebake {
            for c in self.navigation_2d.chunks() {
                s.request_navigation(c);
            }
        }
        // The ring is made anew at the next frame.
        self.navigation_2d.viewers.clear();
    }

    /// A chunk left the view: its navigation goes.
    pub(super) fn navigation_unloaded_2d(&mut self, c: ChunkCoord2D) {
        self.navigation_2d.remove(c);
    }

    /// A finished chunk: its navigation is queued for the server. One rebuilt without (beyond
    /// the distance) loses its old navigation; one that should have it (the job left before
    /// navigation was turned on or the viewers came near) is asked for again.
    pub(super) fn accept_navigation_2d(&mut self, r: &mut ChunkResult2D) {
        let c = r.coord;
        match r.navigation.take() {
            Some(mesh) if self.navigation_enabled => self.navigation_2d.accept(c, *mesh, r.nav_us),
            Some(_) => {}
            None => {
                let Some(s) = &mut self.streamer else { return };
                let wanted = s
                    .config()
                    .navigation
                    .as_ref()
                    .is_some_and(|n| n.wants(s.viewer_spots().into_iter().map(|v| v.0), c));
                if wanted {
                    s.request_navigation(c);
                } else {
                    self.navigation_2d.remove(c);
                }
            }
        }
    }

    /// Once a frame: when the viewers' chunks changed, navigation beyond the distance (and one
    /// chunk of slack) is freed and loaded chunks within it that have none are rebuilt with it;
    /// then baked meshes are registered until `deadline` (at least one).
    pub(super) fn navigation_frame_2d(&mut self, deadline: Instant) {
        let Some(s) = &mut self.streamer else { return };
        let Some(config) = s.config().navigation.clone() else { return };
        let viewers: Vec<ChunkCoord2D> = s.viewer_spots().into_iter().map(|v| v.0).collect();
        if viewers != self.navigation_2d.viewers {
            let near = |c: ChunkCoord2D, d: i32| viewers.iter().any(|v| (c.x - v.x).abs().max((c.y - v.y).abs()) <= d);
            for c in self.navigation_2d.chunks() {
                if !near(c, config.distance + 1) {
                    self.navigation_2d.remove(c);
                }
            }
            let wanted: Vec<ChunkCoord2D> = s
                .loaded_chunks()
                .filter(|&&c| near(c, config.distance) && !self.navigation_2d.has(c))
                .copied()
                .collect();
            for c in wanted {
                s.request_navigation(c);
            }
            self.navigation_2d.viewers = viewers;
        }
        if self.navigation_2d.queued() == 0 || !self.base().is_inside_tree() {
            return;
        }
        let Some(map) = self.navigation_map_rid() else { return };
        let place = self.navigation_placement();
        self.navigation_2d.register_queued(map, self.navigation_layers, &place, deadline);
    }

    /// The map in use: the one set, else the `World2D`'s (None out of the tree).
    fn navigation_map_rid(&self) -> Option<Rid> {
        if let Some(map) = self.navigation_2d.map {
            return Some(map);
        }
        if !self.base().is_inside_tree() {
            return None;
        }
        self.base().get_world_2d().map(|w| w.get_navigation_map())
    }

    /// Where the chunks are in the engine's space now.
    fn navigation_placement(&self) -> Placement2D {
        let global =
            if self.base().is_inside_tree() { self.base().get_global_transform() } else { Transform2D::IDENTITY };
        Placement2D { global, origin: self.origin, tile_px: self.tile_pixels(), chunk_tiles: self.chunk_tiles() }
    }

    /// The origin moved by `d` pixels: regions and links are placed again, and the
    /// `NavigationAgent2D`s under the world or in `origin_shift_group` (their targets are global
    /// positions) aim at the same places.
    pub(super) fn navigation_origin_shifted_2d(&mut self, me: &Gd<Node>, d: Vector2) {
        let place = self.navigation_placement();
        self.navigation_2d.place_all(&place);
        let mut roots = vec![me.clone()];
        if self.base().is_inside_tree() {
            let group = self.origin_shift_group.clone();
            let tree = self.base().get_tree();
            // Each group node once, at its topmost node in the group (as the shift moves them).
            let under_group = |n: &Gd<Node>| {
                let mut at = n.get_parent();
                while let Some(p) = at {
                    if p.is_in_group(&group) {
                        return true;
                    }
                    at = p.get_parent();
                }
                false
            };
            roots.extend(
                tree.get_nodes_in_group(&group)
                    .iter_shared()
                    .filter(|n| n != me && !me.is_ancestor_of(n) && !under_group(n)),
            );
        }
        for root in roots {
            navigation_server::shift_agent_targets(&root, "NavigationAgent2D", d);
        }
    }

    pub(super) fn navigation_stats_2d(&self, d: &mut VarDictionary) {
        let n = &self.navigation_2d;
        d.set("nav_regions", n.region_count() as i64);
        d.set("nav_links", n.link_count() as i64);
        d.set("nav_queue", n.queued() as i64);
        d.set("nav_bake_us_median", n.bake_us.median());
        d.set("nav_bake_us_max", n.bake_us.max());
        d.set("nav_register_us_median", n.register_us.median());
    }
}
