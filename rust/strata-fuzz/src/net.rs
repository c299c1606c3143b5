//! Harnesses of the network side: one packet ([`message`]), packet sequences handled by a server
//! and by a client ([`server`], [`client`]), shared-state files ([`state_file`]) and shared
//! values in a save's text form ([`shared_value`]).
//!
//! May use: strata-core's `net`, `base` and `persist::entities`, and crc32fast (to give fuzzed
//! payloads a valid checksum).

use crate::ops;
use std::path::Path;
use strata_core::base::edits::EditMap;
use strata_core::net::client::WorldClient;
use strata_core::net::protocol::Message;
use strata_core::net::server::{Action, ServerConfig, WorldServer};
use strata_core::net::shared_state::{SAVE_KEY_PREFIX, SharedState, SharedValue};
use strata_core::net::state_file::{decode_state_file, encode_state_file};
use strata_core::persist::entities::EntityDeltas;
use strata_core::{ChunkCoord, WorldPreset};

/// The world fingerprint the state-file harness reads its files for.
pub const STATE_WORLD: u64 = 0x5752_4c44_0000_0001;

/// One packet: a decoded message encodes to bytes that decode to the same message and encode to
/// the same bytes again (bytes are compared, so a NaN float round-trips too).
pub fn message(data: &[u8]) {
    let _ = Message::is_chunk_snapshot(data);
    let Ok(m) = Message::decode(data) else { return };
    let _ = m.is_from_client();
    let bytes = m.encode();
    match Message::decode(&bytes) {
        Ok(back) => assert_eq!(back.encode(), bytes, "{m:?} re-encodes differently"),
        Err(e) => panic!("{m:?} encodes to bytes that do not decode: {e}"),
    }
}

/// Every message the server sends must decode on the other side.
fn check_actions(actions: &[Action]) {
    for a in actions {
        if let Action::Send { message, .. } = a {
            let bytes = message.encode();
            if let Err(e) = Message::decode(&bytes) {
                panic!("the server sends {message:?}, which does not decode: {e}");
            }
        }
    }
}

/// A server fed [`ops`]: op & 7 is 0..=3: a packet from peer `op >> 3 & 3`, 4: that peer
/// disconnects, 5: the host answers waiting subscriptions, 6: the host publishes entity
/// deltas, 7: water flow on or off. Time advances 50 ms per op. It must never panic, and all it
/// sends must decode.
pub fn server(data: &[u8]) {
    let preset = WorldPreset::default();
    let mut server = WorldServer::new(&preset, EditMap::new(), 0, ServerConfig::default());
    let world = EditMap::new();
    let mut now = 0.0;
    for (op, bytes) in ops(data) {
        now += 0.05;
        let peer = i64::from(op >> 3 & 3);
        let actions = match op & 7 {
            0..=3 => server.handle_packet(peer, bytes, now),
            4 => server.peer_disconnected(peer),
            5 => server.answer_subscriptions(&world),
            6 => {
                let mut deltas = EntityDeltas::default();
                for &b in bytes.iter().take(8) {
                    deltas.remove_spawn(ChunkCoord { x: i32::from(b & 3), y: 0, z: 0 }, u32::from(b));
                }
                server.publish_entities(&deltas, now)
            }
            _ => {
                server.set_world_flows_water(bytes.first().is_some_and(|b| b & 1 == 1));
                Vec::new()
            }
        };
        check_actions(&actions);
    }
    let _ = (server.player_count(), server.next_order(), server.waiting_subscriptions());
}

/// A client fed packets (each [`ops`] item one packet; op bit 0 set: query a pose after it).
/// It must never panic; the first error ends the connection as in the game.
pub fn client(data: &[u8]) {
    let mut client = WorldClient::new("fuzz");
    let mut now = 0.0;
    for (op, bytes) in ops(data) {
        now += 0.05;
        if client.handle_packet(bytes, now).is_err() {
            return;
        }
        if op & 1 == 1 {
            let _ = client.pose_of(u32::from(op >> 1), now - 0.1);
        }
    }
    let _ = (client.player(), client.next_order(), client.edits().len(), client.players().count());
}

/// The header and checksum of a shared-state file around `payload` (for seeds and the harness).
pub fn frame_state_file(payload: &[u8], world: u64) -> Vec<u8> {
    let mut bytes = b"STRATASS".to_vec();
    bytes.extend_from_slice(&1u16.to_le_bytes());
    bytes.extend_from_slice(&world.to_le_bytes());
    bytes.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    bytes.extend_from_slice(payload);
    bytes.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
    bytes
}

/// A shared-state file, read as it is and with the input as its payload behind a valid
/// header and checksum; a state read back writes the same file again.
pub fn state_file(data: &[u8]) {
    let path = Path::new("fuzz.strata.shared");
    for bytes in [data.to_vec(), frame_state_file(data, STATE_WORLD)] {
        let Ok(state) = decode_state_file(&bytes, path, STATE_WORLD) else { continue };
        let again = encode_state_file(&state, STATE_WORLD);
        match decode_state_file(&again, path, STATE_WORLD) {
            Ok(back) => assert_eq!(encode_state_file(&back, STATE_WORLD), again, "a state file changes on rewrite"),
            Err(e) => panic!("a state file read back does not read again: {e}"),
        }
    }
}

/// Lines `key=text` as a save's game state keeps shared values: each value read alone, then
/// the whole state; what reads prints to a text that reads back the same.
pub fn shared_value(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut entries = Vec::new();
    for line in text.lines() {
        let (key, value) = line.split_once('=').unwrap_or(("k", line));
        entries.push((format!("{SAVE_KEY_PREFIX}{key}"), value.to_string()));
        let Ok(v) = SharedValue::from_text(key, value) else { continue };
        let printed = v.to_text();
        match SharedValue::from_text(key, &printed) {
            Ok(back) => assert_eq!(back.to_text(), printed, "{v:?} prints differently after reading back"),
            Err(e) => panic!("{v:?} prints as {printed:?}, which does not read back: {e}"),
        }
    }
    let Ok(state) = SharedState::from_save_entries(entries.iter().map(|(k, v)| (k.as_str(), v.as_str()))) else {
        return;
    };
    let saved = state.to_save_entries();
    match SharedState::from_save_entries(saved.iter().map(|(k, v)| (k.as_str(), v.as_str()))) {
        Ok(back) => assert_eq!(back.to_save_entries(), saved, "a shared state changes on save and load"),
        Err(e) => panic!("a shared state read back does not read again: {e}"),
    }
}
