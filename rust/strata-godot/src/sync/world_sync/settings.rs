//! `StrataWorldSync`'s server checks: the core's [`ServerConfig`] the "Server checks" properties
//! make (their setters, clamping with a warning, are the parent's `#[func]`s).
//!
//! May use: its parent (`world_sync.rs`), `strata_core::net`.

use super::WorldSync;
use strata_core::net::connections::ConnectionLimits;
use strata_core::net::movement::MovementLimits;
use strata_core::net::protocol::{MAX_VIEW_RADIUS, ViewRadius};
use strata_core::net::server::ServerConfig;

impl WorldSync {
    /// The server's checks as the properties set them (the rest of the config at its defaults).
    pub(super) fn server_checks(&self) -> ServerConfig {
        let max_view = MAX_VIEW_RADIUS as i64;
        ServerConfig {
            movement: MovementLimits {
                enabled: self.movement_checks,
                max_horizontal_speed: self.max_horizontal_speed.clamp(0.5, 1000.0),
                max_up_speed: self.max_up_speed.clamp(0.5, 1000.0),
                max_fall_speed: self.max_fall_speed.clamp(1.0, 10000.0),
                slack_seconds: self.movement_slack_s.clamp(0.1, 10.0),
                min_eye_height: self.min_eye_height.min(self.max_eye_height).clamp(0.05, 16.0),
                max_eye_height: self.max_eye_height.max(self.min_eye_height).clamp(0.05, 16.0),
                up_burst_voxels: self.jump_height.clamp(0.0, 64.0),
                ..MovementLimits::default()
            },
            view: ViewRadius {
                horizontal: self.view_radius_chunks.clamp(1, max_view) as u32,
                vertical: self.view_radius_vertical_chunks.clamp(1, max_view) as u32,
            },
            far_pose_interval_s: self.far_pose_interval_s.clamp(0.0, 3600.0),
            connections: ConnectionLimits {
                join_timeout_s: self.server_join_timeout_s.clamp(0.5, 300.0),
                max_per_address: self.max_connections_per_address.clamp(0, 4095) as usize,
            },
            ..ServerConfig::default()
        }
    }
}
