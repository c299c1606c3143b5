//! `StrataChunkWorld2D`'s floating origin (a secondary `#[godot_api]` block): the origin's
//! conversions as `#[func]`s, the shift, and where the `TileMapLayer`'s cells are drawn.
//!
//! The node's space starts at `origin`, a chunk corner in world tiles (the core's
//! [`FloatingOrigin2D`]): tile `t` is drawn at `(t − origin) × tile size` pixels, so the engine's
//! `f32` positions stay small wherever the player is. A shift (in `_process`, before the frame is
//! drawn, or `set_origin`) moves: the layer node (see below), every chunk's light sprite (placed
//! again from its chunk), the navigation regions and links (placed again, with the targets of the
//! `NavigationAgent2D`s that move), every `Node2D` child of the world (the game's own), the preloaded area,
//! and every node of `origin_shift_group` not already under a moved node (its global position,
//! its physics interpolation reset), and the current `Camera2D` keeps its smoothing; then
//! `origin_shifted(shift)`. Shifts are whole chunks of whole tiles: every position changes by an
//! integer number of pixels and stays exact.
//!
//! The layer's cells: a `TileMapLayer` addresses cells by integers, and rewriting every loaded
//! cell at a shift would stall the main thread (about 100,000 `set_cell` calls at the default
//! view) or show half-moved tiles and collision for frames. So the cells are written relative to
//! a *cell origin* (world tile `cell_origin` is cell `(0, 0)`) and the layer node sits at
//! `(cell_origin − origin) × tile size`: a shift moves the layer node once (its collision bodies
//! follow its transform) and the picture is the same. Every pixel position involved stays an
//! integer below 2²³ (the core's [`cells_exact`]), so the layer is as exact as if its cells were
//! at world − origin. The cell origin catches up with the origin for free whenever the layer has
//! no cells (after a teleport's old chunks are erased, before the first new one is written);
//! a chunk that would be written past the exact range while other cells are still drawn (a walk
//! of 2²³ pixels without a teleport: 524,288 tiles of 16 pixels) makes the world draw its layer
//! again at the origin, as a teleport does.
//!
//! May use: its parent (`chunk_world_2d.rs`), `strata_core::base::origin_2d`.

use super::ChunkWorld2D;
use godot::classes::{Camera2D, CanvasItem, Node2D};
use godot::prelude::*;
use strata_core::base::origin_2d::{FloatingOrigin2D, cells_exact};
use strata_core::gen2d::ChunkCoord2D;

#[godot_api(secondary)]
impl ChunkWorld2D {
    /// Where the node's space starts in the world: a chunk corner, in world tiles. A point at
    /// `p` pixels in the node's space is at world tile `get_origin() + p / tile size` (add them
    /// as floats in GDScript, whose `float` is 64-bit: exact anywhere in the world).
    #[func]
    pub fn get_origin(&self) -> Vector2i {
        let o = self.origin.tile();
        Vector2i::new(o[0], o[1])
    }

    /// Moves the origin now to the chunk corner nearest `tile` (world tiles), as a crossing
    /// does: the layer, the light, the world's `Node2D` children and `origin_shift_group` move
    /// back by the shift and `origin_shifted` is emitted. For a teleport far away:
    /// `set_origin(target)`, then put the player at `tile_to_local(target)`. Works whether
    /// `floating_origin` is on or off.
    #[func]
    pub fn set_origin(&mut self, tile: Vector2i) {
        let next = FloatingOrigin2D::aligned([tile.x, tile.y], self.chunk_tiles());
        self.shift_origin(next);
    }

    /// The world tile of the layer's cell `(0, 0)`: world tile `t` is the `TileMapLayer`'s cell
    /// `t − get_cell_origin()`. The same as `get_origin()` until the origin first moves; then it
    /// stays where the cells were written (the layer node is moved instead of its cells) until
    /// the layer is drawn again (see `floating_origin`).
    #[func]
    pub fn get_cell_origin(&self) -> Vector2i {
        Vector2i::new(self.cell_origin[0], self.cell_origin[1])
    }

    /// The `TileMapLayer` cell that shows world tile `tile` now: `tile − get_cell_origin()`.
    #[func]
    pub fn tile_to_cell(&self, tile: Vector2i) -> Vector2i {
        let c = FloatingOrigin2D::aligned(self.cell_origin, 1).tile_to_local([tile.x, tile.y]);
        Vector2i::new(c[0], c[1])
    }
}

impl ChunkWorld2D {
    /// The node the world streams around: `viewer`'s node when set (a `Node2D`), else the
    /// viewport's current camera.
    pub(super) fn viewer_node(&self) -> Option<Gd<Node2D>> {
        if !self.viewer.is_empty() {
            self.base().get_node_or_null(&self.viewer).and_then(|n| n.try_cast::<Node2D>().ok())
        } else {
            self.base().get_viewport().and_then(|v| v.get_camera_2d()).map(|c: Gd<Camera2D>| c.upcast::<Node2D>())
        }
    }

    /// World tile `t`'s least corner in the node's space (pixels).
    pub(super) fn local_of_tile_corner(&self, t: [i32; 2]) -> Vector2 {
        let px = self.tile_pixels();
        let l = self.origin.tile_to_local(t);
        Vector2::new((f64::from(l[0]) * f64::from(px.x)) as f32, (f64::from(l[1]) * f64::from(px.y)) as f32)
    }

    /// With `floating_origin` on, moves the origin to the viewer's chunk when the viewer (at
    /// `viewer` tiles of the node's space) is past `origin_shift_distance`; true when it moved.
    /// It stays while the viewer would not move with it, with one warning naming what to do.
    pub(super) fn follow_viewer_with_origin(&mut self, viewer: [f64; 2]) -> bool {
        if !self.floating_origin {
            return false;
        }
        let chunk = self.chunk_tiles();
        let Some(next) = self.origin.shift_for(viewer, self.origin_shift_distance, chunk) else { return false };
        if !self.viewer_moves_with_origin() {
            if !self.origin_warned {
                self.origin_warned = true;
                godot_warn!(
                    "StrataChunkWorld2D.floating_origin: the viewer is ({:.0}, {:.0}) tiles from the origin, but it would \
                     not move with a shift, so the origin stays; allowed: a viewer under the world or in the group `{}` \
                     (origin_shift_group), or on an ancestor in it",
                    viewer[0],
                    viewer[1],
                    self.origin_shift_group
                );
            }
            return false;
        }
        self.shift_origin(next);
        true
    }

    /// Whether the node the world streams around moves when the origin does: it is under the
    /// world, or it or an ancestor is in `origin_shift_group`. No viewer node: nothing to move.
    fn viewer_moves_with_origin(&self) -> bool {
        let Some(node) = self.viewer_node().map(|n| n.upcast::<Node>()) else { return true };
        let me = self.to_gd().upcast::<Node>();
        me.is_ancestor_of(&node) || in_group_or_below(&node, &self.origin_shift_group)
    }

    /// Moves the origin to `next` now: every position in the node's space loses the shift.
    pub(super) fn shift_origin(&mut self, next: FloatingOrigin2D) {
        let shift = self.origin.shift_to(next);
        if shift == [0, 0] {
            return;
        }
        let started = std::time::Instant::now();
        let px = self.tile_pixels();
        // Whole pixels: exact in f32 up to 2^24 (f64 first: a teleport's shift may be past i32 pixels).
        let d = Vector2::new(
            (f64::from(shift[0]) * f64::from(px.x)) as f32,
            (f64::from(shift[1]) * f64::from(px.y)) as f32,
        );
        // The current camera keeps what it shows: its smoothing state moves with it.
        let camera = self.moving_camera();
        self.origin = next;
        self.area_stale = true;
        self.place_layer();
        self.place_light_sprites();
        let me = self.to_gd().upcast::<Node>();
        let layer = self.layer.clone().map(|l| l.upcast::<Node>());
        let light = self.light_root.clone().map(|l| l.upcast::<Node>());
        for child in me.get_children_ex().include_internal(true).done().iter_shared() {
            if Some(&child) == layer.as_ref() || Some(&child) == light.as_ref() {
                continue;
            }
            if let Ok(mut n) = child.try_cast::<Node2D>() {
                let p = n.get_position();
                n.set_position(p - d);
                n.reset_physics_interpolation();
            }
        }
        if let Some((center, _, _)) = self.preload.as_mut() {
            *center -= d;
        }
        self.shift_group(&me, d);
        self.navigation_origin_shifted_2d(&me, d);
        if let Some((mut camera, screen)) = camera {
            keep_camera_view(&mut camera, screen - d);
        }
        self.origin_shift_us.push(started.elapsed().as_micros() as u32);
        self.origin_shifts += 1;
        self.signals().origin_shifted().emit(Vector2i::new(shift[0], shift[1]));
    }

    /// The viewport's current `Camera2D` with the centre it shows, when it will move with a
    /// shift (under the world or in `origin_shift_group`).
    fn moving_camera(&self) -> Option<(Gd<Camera2D>, Vector2)> {
        if !self.base().is_inside_tree() {
            return None;
        }
        let camera = self.base().get_viewport().and_then(|v| v.get_camera_2d())?;
        let node = camera.clone().upcast::<Node>();
        let me = self.to_gd().upcast::<Node>();
        let moves = me.is_ancestor_of(&node) || in_group_or_below(&node, &self.origin_shift_group);
        moves.then(|| {
            let screen = camera.get_screen_center_position();
            (camera, screen)
        })
    }

    /// Moves `origin_shift_group`'s nodes back by `d`: those not under the world and with no
    /// ancestor in the group (it moves them).
    fn shift_group(&mut self, me: &Gd<Node>, d: Vector2) {
        if !self.base().is_inside_tree() {
            return;
        }
        let tree = self.base().get_tree();
        let group = self.origin_shift_group.clone();
        for node in tree.get_nodes_in_group(&group).iter_shared() {
            if *me == node
                || me.is_ancestor_of(&node)
                || node.get_parent().is_some_and(|p| in_group_or_below(&p, &group))
            {
                continue;
            }
            if let Ok(mut n) = node.clone().try_cast::<Node2D>() {
                let p = n.get_global_position();
                n.set_global_position(p - d);
                n.reset_physics_interpolation();
            } else if let Ok(mut n) = node.try_cast::<CanvasItem>() {
                n.reset_physics_interpolation();
            }
        }
    }

    /// Places the layer node at `(cell_origin − origin) × tile size` from where it was bound
    /// (`layer_base`).
    pub(super) fn place_layer(&mut self) {
        let px = self.tile_pixels();
        let c = FloatingOrigin2D::aligned(self.cell_origin, 1);
        let off = self.origin.shift_to(c);
        let offset =
            Vector2::new((f64::from(off[0]) * f64::from(px.x)) as f32, (f64::from(off[1]) * f64::from(px.y)) as f32);
        if let Some(mut layer) = self.layer.clone().filter(|l| l.is_instance_valid()) {
            if offset != self.layer_offset {
                // From the base, not by adding: an offset of a teleport (far past f32's exact
                // range) never leaves an error behind.
                layer.set_position(self.layer_base + offset);
                layer.reset_physics_interpolation();
            }
            self.layer_offset = offset;
        } else {
            self.layer_offset = Vector2::ZERO;
        }
    }

    /// Every chunk's light sprite at its chunk's corner in the node's space.
    pub(super) fn place_light_sprites(&mut self) {
        let n = self.streamer.as_ref().map(|s| s.chunk_tiles()).unwrap_or(64);
        let places: Vec<(ChunkCoord2D, Vector2)> = self
            .light_sprites
            .keys()
            .map(|c| {
                let (x0, y0) = c.min_tile(n);
                (*c, self.local_of_tile_corner([x0, y0]))
            })
            .collect();
        for (c, p) in places {
            if let Some(l) = self.light_sprites.get_mut(&c)
                && l.sprite.is_instance_valid()
            {
                l.sprite.set_position(p);
                l.sprite.reset_physics_interpolation();
            }
        }
    }

    /// Before chunk `c`'s first row is written: whether its cells may be written relative to
    /// the cell origin. The cell origin moves to the origin when the layer has no cells; false
    /// when `c` would be past the exact range while other cells are drawn (the layer must be
    /// drawn again).
    pub(super) fn cells_ready_for(&mut self, c: ChunkCoord2D, n: i32) -> bool {
        let origin = self.origin.tile();
        if self.cell_origin != origin && self.drawn.is_empty() {
            self.cell_origin = origin;
            self.place_layer();
        }
        let (x0, y0) = c.min_tile(n);
        let px = self.tile_pixels();
        let hi = [x0.saturating_add(n - 1), y0.saturating_add(n - 1)];
        cells_exact(self.cell_origin, origin, [px.x, px.y], [x0, y0], hi) || self.cell_origin == origin
    }

    /// Draws the layer again relative to the origin: streaming restarts (the layer is emptied,
    /// every chunk written again; edits kept), as after a teleport.
    pub(super) fn redraw_at_origin(&mut self) {
        self.stop_streaming();
        self.drawn.clear();
        self.cell_origin = self.origin.tile();
        self.layer_redraws += 1;
        self.ensure_streamer();
        self.place_layer();
    }
}

/// Whether `node` or one of its ancestors is in `group`.
fn in_group_or_below(node: &Gd<Node>, group: &StringName) -> bool {
    let mut at = Some(node.clone());
    while let Some(n) = at {
        if n.is_in_group(group) {
            return true;
        }
        at = n.get_parent();
    }
    false
}

/// After its node moved by a shift, `camera` shows `screen` (its centre before the shift, less
/// the shift) this frame and smooths on from there exactly as it would have. Godot's
/// `reset_smoothing` settles the smoothed centre on the node's position, so the node stands for
/// a moment where the centre must be (the smoothing lag away), the camera is reset and scrolled
/// there, and the node goes back; its next smoothing step starts from the shifted centre.
fn keep_camera_view(camera: &mut Gd<Camera2D>, screen: Vector2) {
    camera.reset_smoothing();
    camera.force_update_scroll();
    let lag = screen - camera.get_screen_center_position();
    if camera.is_position_smoothing_enabled() && lag != Vector2::ZERO {
        let local = camera.get_position();
        let at = camera.get_global_position();
        camera.set_global_position(at + lag);
        camera.reset_smoothing();
        camera.force_update_scroll();
        camera.set_position(local);
    }
    camera.reset_physics_interpolation();
}
