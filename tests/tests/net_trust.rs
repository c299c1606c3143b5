//! A server that trusts no client and holds a crowd, through the public API with the real
//! packets: poses checked against the accepted one (a teleport or a speed hack is corrected, and
//! an edit is measured from the accepted pose; honest movement never is), connections that never
//! finish joining time out without counting, one address cannot flood the server, each player is
//! sent only what its view holds (a chunk out of view arrives whole on subscription), and clients
//! refuse locally what the server would drop them for.

use std::collections::BTreeMap;
use strata_core::WorldPreset;
use strata_core::base::coords::{ChunkCoord, IVec3, WORLD_LIMIT_VOXELS};
use strata_core::net::client::{ClientEvent, RequestError, WorldClient};
use strata_core::net::connections::ConnectionLimits;
use strata_core::net::movement::SolidVoxels;
use strata_core::net::protocol::{MAX_CHAT_BYTES, Message, PROTOCOL_VERSION, PlayerId, Pose, RejectReason};
use strata_core::net::server::{Action, PeerId, ServerConfig, Target, WorldServer};
use strata_core::net::shared_state::SharedValue;
use strata_tests::loopback::Loopback;

/// Ground: solid below y = 64.
struct Flat;

impl SolidVoxels for Flat {
    fn is_solid(&self, p: IVec3) -> Option<bool> {
        Some(p.y < 64)
    }
}

/// The eye of a player standing on the ground.
const EYE_Y: f64 = 65.62;

fn pose(x: f64, z: f64) -> Pose {
    Pose::standing([x, EYE_Y, z], 0.0, 0.0)
}

/// A server, its clients and the packets in flight; the host's ground is [`Flat`].
type Net = Loopback;

fn new_net(config: ServerConfig) -> Net {
    let preset = WorldPreset { seed: 46, ..WorldPreset::default() };
    let mut net = Loopback::new(WorldServer::new(&preset, Default::default(), 0, config), ());
    net.world = Box::new(Flat);
    net
}

/// Joining with a first pose.
trait JoinAt {
    /// Joins `peer` and puts it at `at` (its first pose: the spawn).
    fn join(&mut self, peer: PeerId, name: &str, at: Pose) -> PlayerId;
}

impl JoinAt for Net {
    fn join(&mut self, peer: PeerId, name: &str, at: Pose) -> PlayerId {
        self.connect(peer, name);
        self.send_pose(peer, at);
        self.settle();
        self.clients[&peer].player().expect("joined")
    }
}

fn corrections(events: &[ClientEvent]) -> Vec<Pose> {
    events
        .iter()
        .filter_map(|e| match e {
            ClientEvent::PoseCorrected { pose, .. } => Some(*pose),
            _ => None,
        })
        .collect()
}

#[test]
fn a_teleporting_client_is_corrected_and_its_edit_there_refused() {
    let mut net = new_net(ServerConfig::default());
    net.join(2, "watcher", pose(10.0, 0.0));
    let cheat = net.join(1, "cheat", pose(0.0, 0.0));
    net.take_events(1);
    // 3,000 voxels away, and an edit there, in the same tick.
    net.now = 0.1;
    net.send_pose(1, pose(3000.0, 0.0));
    net.edit(1, IVec3::new(3000, 63, 0), 1);
    net.settle();
    let events = net.take_events(1);
    assert!(events.contains(&ClientEvent::Rejected { request: 0, reason: RejectReason::OutOfReach }), "{events:?}");
    assert_eq!(corrections(&events), vec![pose(0.0, 0.0)], "back to the accepted pose");
    assert_eq!(net.clients[&1].last_correction(), Some((2, pose(0.0, 0.0))));
    assert_eq!(net.server.accepted_pose(1), Some(pose(0.0, 0.0)));
    assert_eq!(net.server.stats().edits_applied, 0);
    assert_eq!((net.server.stats().poses_refused, net.server.stats().pose_corrections), (1, 1));
    // The watcher never saw it there.
    let seen = net.clients[&2].pose_of(cheat, net.now + 1.0).expect("seen at its spawn");
    assert_eq!(seen, pose(0.0, 0.0));
    // Going on from the correction, it edits near it again.
    net.now = 0.2;
    net.send_pose(1, pose(0.5, 0.0));
    net.edit(1, IVec3::new(1, 63, 0), 1);
    net.settle();
    assert_eq!(net.server.stats().edits_applied, 1);
    // The game may move a player: the host teleports it, and it is told.
    let actions = net.server.teleport(1, pose(3000.0, 0.0), net.now);
    net.route(actions);
    net.settle();
    assert_eq!(corrections(&net.take_events(1)), vec![pose(3000.0, 0.0)]);
    net.now = 0.3;
    net.edit(1, IVec3::new(3000, 63, 0), 1);
    net.settle();
    assert_eq!(net.server.stats().edits_applied, 2);
    assert_eq!(net.server.stats().pose_corrections, 1, "a teleport is no correction");
}

#[test]
fn poses_sent_before_the_client_heard_of_a_teleport_are_ignored_not_corrected() {
    let mut net = new_net(ServerConfig::default());
    net.join(1, "walker", pose(0.0, 0.0));
    net.take_events(1);
    // The host lifts the player 20 voxels while a pose from the ground is on its way.
    net.now = 0.1;
    let lifted = Pose::standing([0.0, 84.0, 0.0], 0.0, 0.0);
    let tick = {
        let t = net.ticks.entry(1).or_default();
        *t += 1;
        *t
    };
    let in_flight = net.clients[&1].pose_packet(tick, pose(0.5, 0.0)).expect("a pose");
    let actions = net.server.teleport(1, lifted, net.now);
    net.route(actions);
    net.now = 0.12;
    net.to_server.push_back((1, in_flight));
    net.settle();
    assert_eq!(net.server.accepted_pose(1), Some(lifted), "the move stands");
    let stats = net.server.stats().clone();
    assert_eq!((stats.poses_refused, stats.pose_corrections, stats.stale_poses), (0, 0, 1));
    assert_eq!(corrections(&net.take_events(1)), vec![lifted], "told once, by the teleport");
    // Its next pose, from up there and falling, is a move from the new place.
    net.now = 0.2;
    let falling = Pose::standing([0.5, 83.0, 0.0], 0.0, 0.0);
    net.send_pose(1, falling);
    net.settle();
    assert_eq!(net.server.accepted_pose(1), Some(falling));
    // Past the wait a pose that fails is refused and corrected again.
    net.now = 2.0;
    net.send_pose(1, pose(500.0, 0.0));
    net.settle();
    assert_eq!(net.server.stats().poses_refused, 1);
    assert_eq!(corrections(&net.take_events(1)), vec![falling]);
}

#[test]
fn a_speed_hack_is_corrected_and_honest_sprinting_with_a_lag_spike_is_not() {
    let mut net = new_net(ServerConfig::default());
    let fast = net.join(1, "fast", pose(0.0, 0.0));
    net.join(2, "honest", pose(0.0, 50.0));
    net.join(3, "watcher", pose(0.0, 100.0));
    // 15 poses a second for 6 s: one at 20 voxels a second, one sprinting (7.5) whose packets
    // from 2 s to 2.5 s are held back and arrive at once.
    let mut held = Vec::new();
    for i in 1..=90 {
        let t = i as f64 / 15.0;
        net.now = t;
        let x = t * 20.0;
        net.send_pose(1, pose(x, 0.0));
        let honest = pose(t * 7.5, 50.0);
        if (2.0..2.5).contains(&t) {
            let tick = net.ticks.entry(2).or_default();
            *tick += 1;
            held.push(net.clients[&2].pose_packet(*tick, honest).expect("a pose"));
        } else {
            for bytes in held.drain(..) {
                net.to_server.push_back((2, bytes));
            }
            net.send_pose(2, honest);
        }
        net.settle();
        // Whatever it reports, the others never see it farther than it could have gone.
        let seen = net.clients[&3].pose_of(fast, net.now + 1.0).expect("seen");
        assert!(seen.position[0] <= 9.0 * t + 9.5, "seen at {:?} after {t} s", seen.position);
    }
    assert!(!corrections(&net.take_events(1)).is_empty());
    assert!(corrections(&net.take_events(2)).is_empty(), "the honest one is never corrected");
    assert_eq!(net.server.accepted_pose(2), Some(pose(45.0, 50.0)));
    // Corrections are sent at most four times a second, whatever the refusals.
    let stats = net.server.stats();
    assert!(stats.pose_corrections <= 6 * 4 + 1 && stats.poses_refused >= stats.pose_corrections, "{stats:?}");
}

#[test]
fn connections_that_never_join_time_out_and_do_not_count() {
    let config = ServerConfig { max_players: 2, ..Default::default() };
    let mut net = new_net(config);
    for peer in 10..20 {
        let actions = net.server.peer_connected(peer, &format!("10.0.0.{peer}"), 0.0);
        assert!(actions.is_empty(), "{actions:?}");
    }
    assert_eq!(net.server.pending_connections(), 10);
    // Ten half-open connections and still room for two players.
    net.now = 1.0;
    net.server.peer_connected(1, "10.0.1.1", 1.0);
    net.join(1, "ada", pose(0.0, 0.0));
    net.join(2, "bo", pose(5.0, 0.0));
    assert_eq!((net.server.player_count(), net.server.pending_connections()), (2, 10));
    assert!(net.server.tick(4.9).is_empty());
    let dropped = net.server.tick(5.0);
    let peers: Vec<PeerId> = dropped
        .iter()
        .map(|a| match a {
            Action::Disconnect { peer, reason } => {
                assert_eq!(reason, "did not finish joining within 5 s of connecting");
                *peer
            }
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(peers, (10..20).collect::<Vec<_>>());
    assert_eq!(net.server.stats().join_timeouts, 10);
    assert_eq!(net.server.pending_connections(), 0);
    // The players, joined before the timeout, stay.
    assert!(net.server.tick(100.0).is_empty());
    assert_eq!(net.server.player_count(), 2);
}

#[test]
fn one_address_cannot_flood_the_server() {
    let config = ServerConfig {
        connections: ConnectionLimits { max_per_address: 3, ..Default::default() },
        ..Default::default()
    };
    let mut net = new_net(config);
    let mut refused = 0;
    for peer in 100..110 {
        for a in net.server.peer_connected(peer, "203.0.113.9", 0.0) {
            if let Action::Send { target: Target::Peer(p), message: Message::Refused { reason }, .. } = a {
                assert_eq!(p, peer);
                assert_eq!(reason, "address 203.0.113.9 already holds 3 connections; allowed: 3 per address");
                refused += 1;
            }
        }
    }
    assert_eq!((refused, net.server.stats().connections_refused), (7, 7));
    // Others still join; the flood's slots free at the join timeout.
    net.server.peer_connected(1, "198.51.100.1", 0.0);
    net.join(1, "ada", pose(0.0, 0.0));
    assert_eq!(net.server.tick(5.0).len(), 3);
    assert!(net.server.peer_connected(200, "203.0.113.9", 5.0).is_empty());
}

#[test]
fn a_far_player_gets_no_edits_out_of_view_and_all_of_them_on_subscription() {
    let mut net = new_net(ServerConfig::default());
    net.join(1, "builder", pose(0.0, 0.0));
    let far = net.join(2, "far", pose(3000.0, 0.0));
    let here = ChunkCoord::new(0, 1, 0);
    // The far one subscribes to the builder's chunk: too far, released at once.
    net.subscribe(2, here);
    net.settle();
    assert!(net.take_events(2).contains(&ClientEvent::ChunkReleased { chunk: here }));
    for i in 0..5 {
        net.edit(1, IVec3::new(i, 63, 0), 2);
    }
    net.settle();
    assert!(net.clients[&2].edits().is_empty(), "no edit out of view");
    assert!(!net.take_events(2).iter().any(|e| matches!(e, ClientEvent::Applied { .. })));
    // Moved next to the builder (by the game), it subscribes as the chunk streams in: the
    // snapshot brings every edit.
    let actions = net.server.teleport(2, pose(3.0, 3.0), net.now);
    net.route(actions);
    assert!(net.clients.get_mut(&2).unwrap().resubscriptions(pose(3.0, 3.0).position, net.now).is_empty());
    net.now = 1.5;
    let again = net.clients.get_mut(&2).unwrap().resubscriptions(pose(3.0, 3.0).position, net.now);
    assert_eq!(again, vec![Message::SubscribeChunk { chunk: here }.encode()], "a released chunk in view");
    net.subscribe(2, here);
    net.settle();
    assert_eq!(net.clients[&2].edits().edits_in_box(here.min_voxel(), IVec3::splat(32)).len(), 5);
    assert!(net.clients[&2].is_chunk_synced(here));
    // In view, the next edit follows.
    net.edit(1, IVec3::new(7, 63, 0), 3);
    net.settle();
    assert_eq!(net.clients[&2].edits().get(IVec3::new(7, 63, 0)), Some(3));
    // Moved away again: the chunk is released, its next edits are not sent, and it is no
    // longer synced there.
    let actions = net.server.teleport(2, pose(3000.0, 0.0), net.now);
    net.route(actions);
    net.settle();
    assert!(net.take_events(2).contains(&ClientEvent::ChunkReleased { chunk: here }));
    assert!(!net.clients[&2].is_chunk_synced(here));
    net.edit(1, IVec3::new(8, 63, 0), 3);
    net.settle();
    assert_eq!(net.clients[&2].edits().get(IVec3::new(8, 63, 0)), None);
    // The builder's poses reach it at the low rate only; the player list still has everyone.
    let builder = net.clients[&1].player().unwrap();
    let before = net.server.stats().bytes_sent[&2];
    for i in 1..=30 {
        net.now = 2.0 + i as f64 / 15.0;
        net.send_pose(1, pose(f64::from(i) * 0.2, 0.0));
        net.settle();
    }
    let poses = net.server.stats().bytes_sent[&2] - before;
    assert!(poses <= 2 * 28, "{poses} bytes of far poses in 2 s");
    assert!(net.clients[&2].players().any(|(p, _)| p == builder));
    assert!(net.clients[&1].players().any(|(p, _)| p == far));
}

/// Bytes each of `n` players gets while each edits and moves near itself, `spacing` voxels apart.
fn bytes_per_player(n: i64, spacing: f64) -> u64 {
    let mut net = new_net(ServerConfig::default());
    for peer in 1..=n {
        net.join(peer, &format!("p{peer}"), pose(peer as f64 * spacing, 0.0));
    }
    let start: BTreeMap<PeerId, u64> = net.server.stats().bytes_sent.clone();
    for step in 1..=30 {
        net.now = step as f64 / 15.0;
        for peer in 1..=n {
            let x = peer as f64 * spacing + f64::from(step) * 0.1;
            net.send_pose(peer, pose(x, 0.0));
            net.edit(peer, IVec3::new(x as i32, 63, 2), 1);
        }
        net.settle();
    }
    (1..=n).map(|p| net.server.stats().bytes_sent[&p] - start[&p]).max().unwrap_or(0)
}

#[test]
fn bytes_per_player_stay_flat_as_players_spread_out() {
    let alone = bytes_per_player(1, 2000.0);
    let spread = bytes_per_player(8, 2000.0);
    let together = bytes_per_player(8, 4.0);
    // Only the others' poses at the far rate come on top (at most two of 23 bytes each in 2 s).
    assert!(spread as f64 <= alone as f64 * 1.2 + 7.0 * 2.0 * 23.0, "spread out: {spread} bytes, alone: {alone}");
    assert!(together > spread * 4, "together: {together} bytes, spread out: {spread}");
}

#[test]
fn clients_refuse_locally_what_the_server_would_drop_them_for() {
    let mut net = new_net(ServerConfig { block_count: 24, ..Default::default() });
    net.join(1, "ada", pose(0.0, 0.0));
    net.join(2, "bo", pose(2.0, 0.0));
    let c = net.clients.get_mut(&1).unwrap();
    // A chat line past the limit is cut at a character boundary; an empty one refused.
    let long = "é".repeat(200);
    let bytes = c.chat_packet(&long).expect("cut, not refused");
    let Ok(Message::Chat { text, .. }) = Message::decode(&bytes) else { panic!("a chat packet") };
    assert_eq!(text, "é".repeat(MAX_CHAT_BYTES / 2));
    assert!(matches!(c.chat_packet(" \n\t"), Err(RequestError::EmptyChat { .. })));
    // Shared state bounds, block ids, the world's bounds, a pose that is not a number.
    let e = c.request_shared_state(&"k".repeat(65), Some(SharedValue::Int(1))).unwrap_err();
    assert!(e.to_string().contains("1 to 64 bytes"), "{e}");
    let e = c.request_shared_state("t", Some(SharedValue::Text("x".repeat(513)))).unwrap_err();
    assert!(e.to_string().contains("512"), "{e}");
    let e = c.request_edit(IVec3::new(0, 63, 0), 24).unwrap_err();
    assert_eq!(e.to_string(), "block 24 is not a block of the server's world; allowed: 0 to 23");
    let e = c.request_edit(IVec3::new(0, WORLD_LIMIT_VOXELS, 0), 1).unwrap_err();
    assert!(matches!(e, RequestError::OutsideWorld { .. }), "{e}");
    let nan = Pose::standing([0.0, f64::NAN, 0.0], 0.0, 0.0);
    assert!(matches!(c.pose_packet(9, nan), Err(RequestError::BadPose { .. })));
    let far = Pose::standing([0.0, 0.0, f64::from(WORLD_LIMIT_VOXELS) * 2.0], 0.0, 0.0);
    assert!(c.pose_packet(9, far).is_err());
    let giant = Pose { eye_height: 20.0, ..Pose::standing([0.0, 70.0, 0.0], 0.0, 0.0) };
    let e = c.pose_packet(9, giant).unwrap_err();
    assert!(e.to_string().contains("an eye height of 0 to 16 voxels"), "{e}");
    assert!(matches!(WorldClient::new(&"n".repeat(33)).hello(), Err(RequestError::BadName { .. })));
    // What it does send is never a reason to drop it: the cut line reaches the others.
    net.to_server.push_back((1, bytes));
    net.settle();
    assert!(net.dropped.is_empty());
    let ada = net.clients[&1].player().unwrap();
    assert!(net.take_events(2).contains(&ClientEvent::Chat { player: ada, text: "é".repeat(128) }));
    // The server still drops a peer that sends malformed bytes.
    let mut long_chat = vec![12, 0];
    long_chat.push(0x81);
    long_chat.push(0x02);
    long_chat.extend(std::iter::repeat_n(b'a', 257));
    net.to_server.push_back((1, long_chat));
    net.settle();
    assert_eq!(net.dropped.len(), 1);
    assert!(net.dropped[0].1.contains("malformed packet"), "{}", net.dropped[0].1);
    assert_eq!(PROTOCOL_VERSION, 10);
}
