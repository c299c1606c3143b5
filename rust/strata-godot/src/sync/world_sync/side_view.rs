//! `StrataWorldSync`'s methods for a shared side view (`world` a `StrataChunkWorld2D`): poses in
//! the node's pixels, tile and shape edit requests, and the body's jump (a secondary
//! `#[godot_api]` block; the signals live in the primary block).
//!
//! Positions cross the wire in world tiles (rows down, z = 0): each peer converts through its
//! own world's floating origin (`StrataChunkWorld2D.get_origin()`), so two peers with different
//! origins agree on every tile.
//!
//! May use: its parent (`world_sync.rs`), `strata_core::net`, the crate's `StrataChunkWorld2D`.

use super::synced_world::SyncedWorld;
use super::{INTERPOLATION_DELAY_S, Role, WorldSync};
use godot::prelude::*;
use strata_core::net::protocol::{MAX_EYE_HEIGHT, Message, PlayerId, Pose};
use strata_core::net::world_shape::EditShape;

#[godot_api(secondary)]
impl WorldSync {
    /// Side view: where this player is, `position` the top of its body (pixels in the world
    /// node's space, as a child of the world sees it) and `height` the body's height in pixels
    /// (its feet are that far below). Sent as `set_local_pose` sends, in world tiles; the server
    /// checks each move against its solid tiles and the speeds (in tiles a second: set
    /// `max_horizontal_speed`, `max_up_speed`, `jump_height` and `max_fall_speed` for the game's
    /// body, and `min_eye_height`/`max_eye_height` for its height in tiles). A refused move comes
    /// back as `pose_corrected_2d`. A position that is not finite, outside the world or a height
    /// outside 0 to 16 tiles is refused (the reason in `last_error()`); so is a 3D `world`.
    #[func]
    fn set_local_pose_2d(&mut self, position: Vector2, height: f64) {
        let Some(SyncedWorld::Tiles(w)) = self.world_node() else {
            self.last_error.record(
                "StrataWorldSync.set_local_pose_2d: `world` is not a side view (StrataChunkWorld2D); use set_local_pose",
            );
            return;
        };
        let (wire, tiles_high) = {
            let w = w.bind();
            (w.wire_of_local(position), height * w.tiles_per_pixel_y())
        };
        let pose = Pose { position: wire, yaw: 0.0, pitch: 0.0, eye_height: tiles_high as f32 };
        if !pose.is_valid() || !position.x.is_finite() || !position.y.is_finite() {
            self.last_error.record(format!(
                "StrataWorldSync.set_local_pose_2d: pose ({position}, height {height} pixels) is not allowed; allowed: finite numbers, a position inside the world's bounds, a height of 0 to {MAX_EYE_HEIGHT} tiles"
            ));
            return;
        }
        self.local_pose = Some(pose);
        if matches!(self.role, Role::Server(_)) {
            self.send_pose(pose, false);
        }
    }

    /// Side view: where another player is drawn now (the top of its body, pixels in the world
    /// node's space, interpolated a tenth of a second in the past); `Vector2.ZERO` when unknown.
    #[func]
    fn get_player_position_2d(&self, player_id: i64) -> Vector2 {
        let (Some(c), Ok(id)) = (self.players_view(), PlayerId::try_from(player_id)) else { return Vector2::ZERO };
        let Some(SyncedWorld::Tiles(w)) = self.world_node() else { return Vector2::ZERO };
        c.pose_of(id, self.now() - INTERPOLATION_DELAY_S)
            .map(|p| w.bind().local_of_wire(p.position))
            .unwrap_or(Vector2::ZERO)
    }

    /// Side view, host: moves player `player_id` to `position` (the top of its body, pixels in
    /// the world node's space), as `teleport_player` does; that player's game hears
    /// `pose_corrected_2d`. False, with the reason in `last_error()`, on a client, for an
    /// unknown player, a position outside the world or a 3D `world`.
    #[func]
    fn teleport_player_2d(&mut self, player_id: i64, position: Vector2) -> bool {
        let Some(SyncedWorld::Tiles(w)) = self.world_node() else {
            self.fail("StrataWorldSync.teleport_player_2d: `world` is not a side view (StrataChunkWorld2D)".into());
            return false;
        };
        if !matches!(self.role, Role::Server(_)) {
            self.fail(
                "StrataWorldSync.teleport_player_2d: only the host moves players; this peer is not hosting".into(),
            );
            return false;
        }
        let wire = w.bind().wire_of_local(position);
        if !Pose::standing(wire, 0.0, 0.0).is_valid() {
            self.fail(format!(
                "StrataWorldSync.teleport_player_2d: position {position} is not allowed; allowed: finite numbers inside the world's bounds"
            ));
            return false;
        }
        let moved = PlayerId::try_from(player_id).is_ok_and(|id| {
            self.server_teleport(id, |eye_height| Pose { position: wire, yaw: 0.0, pitch: 0.0, eye_height })
        });
        if !moved {
            self.fail(format!("StrataWorldSync.teleport_player_2d: no player {player_id} has joined"));
            return false;
        }
        self.last_error.clear();
        true
    }

    /// Side view: asks to set tile `tile` to block `block` (`request_edit` of voxel
    /// `(x, y, 0)`); the request's number, or -1 with the reason in `last_error()`.
    #[func]
    fn request_tile(&mut self, tile: Vector2i, block: i64) -> i64 {
        self.request_edit(Vector3i::new(tile.x, tile.y, 0), block)
    }

    /// Side view: asks to set every tile of the rectangle with corners `from` and `to` (both
    /// included) to block `block`, as one edit: the server checks it (at most 4,096 tiles, each
    /// within `reach` of the player; it spends one edit of `edits_per_second` per 128 tiles) and
    /// every peer writes it as one batch, as `StrataChunkWorld2D.set_tiles_rect` writes one (one
    /// water flow, one undo step), then `shape_applied`. The request's number (matched by
    /// `edit_rejected`), or -1 with the reason in `last_error()` (not connected, a 3D world,
    /// too many tiles, a block the server's world lacks).
    #[func]
    fn request_tiles_rect(&mut self, from: Vector2i, to: Vector2i, block: i64) -> i64 {
        self.request_shape("request_tiles_rect", EditShape::Rect { a: [from.x, from.y], b: [to.x, to.y] }, block)
    }

    /// Side view: asks to set every tile whose centre lies within `radius` tiles of tile
    /// `center`'s to block `block`, as one edit (see `request_tiles_rect`).
    #[func]
    fn request_tiles_circle(&mut self, center: Vector2i, radius: f64, block: i64) -> i64 {
        self.request_shape("request_tiles_circle", EditShape::Circle { center: [center.x, center.y], radius }, block)
    }

    /// `is_chunk_synced` of side-view chunk `coord` (`StrataChunkWorld2D.chunk_of_tile`), so
    /// `StrataChunkWorld2D.debug_chunk_hash(coord)` is then the server's.
    #[func]
    fn is_chunk_synced_2d(&self, coord: Vector2i) -> bool {
        self.is_chunk_synced(Vector3i::new(coord.x, coord.y, 0))
    }
}

impl WorldSync {
    /// Sends a shape edit request (see `request_tiles_rect`).
    fn request_shape(&mut self, method: &str, shape: EditShape, block: i64) -> i64 {
        let Ok(block) = u16::try_from(block) else {
            self.last_error
                .record(format!("StrataWorldSync.{method}: block {block} is not a block id; allowed: 0 to 65535"));
            return -1;
        };
        if !matches!(self.world_node(), Some(SyncedWorld::Tiles(_))) {
            self.last_error
                .record(format!("StrataWorldSync.{method}: `world` is not a side view (StrataChunkWorld2D)"));
            return -1;
        }
        self.request(
            method,
            |c| c.request_shape_edit(shape, block),
            |request| Message::ShapeEditRequest { request, shape, block },
        )
    }

    /// The server has this side view's player at `pose`: `pose_corrected_2d` with its position
    /// in the world node's pixels.
    pub(super) fn emit_pose_corrected_2d(&mut self, pose: Pose) {
        let Some(SyncedWorld::Tiles(w)) = self.world_node() else { return };
        let position = w.bind().local_of_wire(pose.position);
        self.signals().pose_corrected_2d().emit(position);
    }

    pub(super) fn emit_shape_applied(&mut self, order: u64, player: PlayerId, request: u32, tiles: usize) {
        self.signals().shape_applied().emit(order as i64, player as i64, request as i64, tiles as i64);
    }
}
