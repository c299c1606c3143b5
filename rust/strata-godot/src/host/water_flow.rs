//! What the two world nodes share about water flow: turning the streamer's flow thread on or off
//! with `water_flow_enabled`. The flow itself (rules, thread, determinism) is the core's
//! (`strata_core::stream::water_flow`, `water_runner`); the nodes only apply finished flows.

use crate::host::world_host::WorldHost;
use strata_core::stream::stream2d::Streamer2D;
use strata_core::stream::streamer::Streamer;

/// Starts or stops the 3D streamer's flow thread to match `enabled`.
pub(crate) fn update<G>(s: &mut Streamer, enabled: bool, host: &mut WorldHost<G>, class: &str) {
    if enabled == s.is_water_flow_on() {
        return;
    }
    if let Err(e) = s.set_water_flow(enabled) {
        host.error(format!("{class}: cannot start the water flow thread: {e}; water stays where it is"));
    }
}

/// Starts or stops the side-view streamer's flow thread to match `enabled`.
pub(crate) fn update_2d<G>(s: &mut Streamer2D, enabled: bool, host: &mut WorldHost<G>, class: &str) {
    if enabled == s.is_water_flow_on() {
        return;
    }
    if let Err(e) = s.set_water_flow(enabled) {
        host.error(format!("{class}: cannot start the water flow thread: {e}; water stays where it is"));
    }
}
