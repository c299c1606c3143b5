//! Shared side views without a network: one `WorldServer` serving a side view
//! (`WorldShape::Tiles`) and `WorldClient`s exchanging the real packets in one process. Single
//! tiles and shape edits reach every client in one order as whole shapes; a late joiner's
//! snapshots index the side view's chunks; moves are checked in the side view's plane (rows grow
//! downwards): through a wall of tiles or too fast is refused; anything off the plane (z ≠ 0) is
//! refused with a clear error. A side-view chunk's objects (records of several 32-tile cells, far
//! out) reach its subscribers and late joiners exactly; one outside its chunk is refused.

use std::collections::BTreeSet;
use strata_core::WorldPreset;
use strata_core::base::coords::{ChunkCoord, IVec3};
use strata_core::base::edits::EditMap;
use strata_core::net::client::{ClientError, ClientEvent, RequestError, WorldClient};
use strata_core::net::movement::{MovementLimits, SolidVoxels};
use strata_core::net::protocol::{Message, Pose, RejectReason};
use strata_core::net::server::{Action, PeerId, ServerConfig, WorldServer};
use strata_core::net::world_shape::{EditShape, WorldShape};
use strata_core::persist::entities::{EntityDeltas, EntityRecord, kept_position};
use strata_tests::loopback::{Host, Loopback};

const CHUNK_TILES: u32 = 64;

fn preset() -> WorldPreset {
    WorldPreset { seed: 77, ..WorldPreset::default() }
}

/// A wall of solid tiles at x = 10 (every row), nothing else solid.
struct Wall;

impl SolidVoxels for Wall {
    fn is_solid(&self, p: IVec3) -> Option<bool> {
        Some(p.x == 10)
    }
}

/// The host's world: every edit applied, and how many tiles each applied edit held (a shape
/// edit is one batch).
#[derive(Default)]
struct HostTiles {
    edits: EditMap,
    batches: Vec<usize>,
}

impl Host for HostTiles {
    fn on_action(&mut self, _server: &mut WorldServer, action: Action) -> Vec<Action> {
        match action {
            Action::EditApplied { pos, block, .. } => {
                self.edits.set(pos, block);
                self.batches.push(1);
            }
            Action::ShapeApplied { tiles, block, .. } => {
                for t in &tiles {
                    self.edits.set(*t, block);
                }
                self.batches.push(tiles.len());
            }
            _ => {}
        }
        Vec::new()
    }
}

/// A side-view server whose host has [`Wall`], its clients and the packets in flight.
type Net = Loopback<HostTiles>;

fn new_net() -> Net {
    let config = ServerConfig { shape: WorldShape::tiles(CHUNK_TILES), reach: 12.0, ..ServerConfig::default() };
    let mut net = Loopback::new(WorldServer::new(&preset(), EditMap::new(), 0, config), HostTiles::default());
    net.world = Box::new(Wall);
    net
}

/// The side view's moves and joins.
trait SideView {
    /// Joins `peer`, which learns the world is a side view.
    fn join(&mut self, peer: PeerId, name: &str);
    /// Player `peer` stands with its head at tile `(x, y)` (rows grow downwards), 2.5 tiles tall.
    fn stand(&mut self, peer: PeerId, x: f64, y: f64, tick: u32);
}

impl SideView for Net {
    fn join(&mut self, peer: PeerId, name: &str) {
        self.connect(peer, name);
        assert_eq!(self.clients[&peer].world_shape(), WorldShape::Tiles { chunk_tiles: CHUNK_TILES });
    }

    fn stand(&mut self, peer: PeerId, x: f64, y: f64, tick: u32) {
        let pose = Pose { position: [x, y, 0.0], yaw: 0.0, pitch: 0.0, eye_height: 1.5 };
        self.send_pose_at_tick(peer, pose, tick);
        self.settle();
    }
}

fn sorted(m: &EditMap) -> Vec<(ChunkCoord, Vec<(u16, u16)>)> {
    m.chunks_sorted().into_iter().map(|(c, e)| (c, e.iter().map(|(i, b)| (*i, *b)).collect())).collect()
}

#[test]
fn tiles_and_shapes_reach_every_client_in_order_and_a_late_joiner_catches_up() {
    let mut net = new_net();
    net.join(1, "ada");
    net.join(2, "bo");
    net.stand(1, 0.5, -20.0, 1);
    net.stand(2, 4.5, -20.0, 1);
    // Single tiles and a rectangle, interleaved.
    let c1 = net.clients.get_mut(&1).unwrap();
    let (_, a) = c1.request_edit(IVec3::new(1, -18, 0), 3).unwrap();
    let (rect_request, r) = c1.request_shape_edit(EditShape::Rect { a: [-2, -17], b: [2, -15] }, 2).unwrap();
    let (_, b) = net
        .clients
        .get_mut(&2)
        .unwrap()
        .request_shape_edit(EditShape::Circle { center: [5, -16], radius: 1.5 }, 4)
        .unwrap();
    net.to_server.extend([(1, a), (2, b), (1, r)]);
    net.settle();
    // 1 tile, a circle of 9 and a rectangle of 15: numbered one per tile, each shape one batch.
    assert_eq!(net.server.next_order(), 25);
    assert_eq!(net.host.batches, vec![1, 9, 15]);
    assert_eq!(sorted(net.server.edits()), sorted(&net.host.edits));
    for peer in [1, 2] {
        assert_eq!(sorted(net.clients[&peer].edits()), sorted(&net.host.edits), "client {peer}");
        let shapes: Vec<(u64, usize)> = net.events[&peer]
            .iter()
            .filter_map(|e| match e {
                ClientEvent::ShapeApplied { order, tiles, .. } => Some((*order, *tiles)),
                _ => None,
            })
            .collect();
        assert_eq!(shapes, vec![(1, 9), (10, 15)]);
        // A shape's tiles come in one event: the game writes them as one batch.
        assert!(
            net.events[&peer]
                .iter()
                .any(|e| matches!(e, ClientEvent::VoxelsChanged { positions } if positions.len() == 15))
        );
    }
    assert!(
        net.events[&1]
            .iter()
            .any(|e| matches!(e, ClientEvent::ShapeApplied { request, player: 1, .. } if *request == rect_request))
    );

    // A late joiner subscribes to the side view's chunks: (0, -1) holds every edit.
    net.join(3, "cy");
    let chunk = ChunkCoord::new(0, -1, 0);
    let subscribe = net.clients[&3].subscribe(chunk);
    let left = net.clients[&3].subscribe(ChunkCoord::new(-1, -1, 0));
    net.to_server.extend([(3, subscribe), (3, left)]);
    net.settle();
    assert!(net.clients[&3].is_chunk_synced(chunk));
    assert_eq!(sorted(net.clients[&3].edits()), sorted(&net.host.edits));
    let snapshot = net.events[&3].iter().find_map(|e| match e {
        ClientEvent::ChunkSnapshot { chunk: c, voxels, .. } if *c == chunk => Some(voxels.clone()),
        _ => None,
    });
    let mut voxels = snapshot.expect("a snapshot of chunk (0, -1)");
    voxels.sort_by_key(|(p, _)| (p.y, p.x));
    assert!(voxels.iter().all(|(p, _)| p.z == 0 && (0..64).contains(&p.x) && (-64..0).contains(&p.y)));
    assert_eq!(voxels.first(), Some(&(IVec3::new(1, -18, 0), 3)), "the single tile, the highest edit");
    assert_eq!(voxels.len(), 1 + 9 + 9, "the tile, the circle and the rectangle's tiles of x >= 0");
}

#[test]
fn shapes_are_checked_for_size_reach_rate_and_the_world_kind() {
    let mut net = new_net();
    net.join(1, "ada");
    net.stand(1, 0.5, 0.5, 1);
    let c = net.clients.get_mut(&1).unwrap();
    // Too large for one shared edit: refused here, before it is sent.
    assert!(matches!(
        c.request_shape_edit(EditShape::Rect { a: [0, 0], b: [64, 64] }, 1),
        Err(RequestError::BadShape(_))
    ));
    assert!(matches!(c.request_edit(IVec3::new(0, 0, 1), 1), Err(RequestError::OutsideWorld { .. })));
    // Sent anyway (a modified client), the server refuses it; out of reach too.
    let big = Message::ShapeEditRequest { request: 50, shape: EditShape::Rect { a: [0, 0], b: [64, 64] }, block: 1 };
    let far = Message::ShapeEditRequest { request: 51, shape: EditShape::Rect { a: [0, 0], b: [13, 0] }, block: 1 };
    let off = Message::EditRequest { request: 52, pos: IVec3::new(1, 1, 1), block: 1 };
    for m in [big, far, off] {
        net.to_server.push_back((1, m.encode()));
    }
    net.settle();
    let rejected: Vec<(u32, RejectReason)> = net.events[&1]
        .iter()
        .filter_map(|e| match e {
            ClientEvent::Rejected { request, reason } => Some((*request, *reason)),
            _ => None,
        })
        .collect();
    assert_eq!(
        rejected,
        vec![(50, RejectReason::BadShape), (51, RejectReason::OutOfReach), (52, RejectReason::OutOfBounds)]
    );
    assert_eq!(net.server.next_order(), 0);
    // A 3D world takes no shape edits.
    let mut voxels = WorldServer::new(&preset(), EditMap::new(), 0, ServerConfig::default());
    voxels.handle_packet(
        9,
        &Message::Hello { protocol: strata_core::net::protocol::PROTOCOL_VERSION, name: "x".into() }.encode(),
        0.0,
    );
    let out = voxels.handle_packet(
        9,
        &Message::ShapeEditRequest { request: 1, shape: EditShape::Rect { a: [0, 0], b: [1, 1] }, block: 1 }.encode(),
        0.0,
    );
    assert!(out.iter().any(|a| matches!(
        a,
        Action::Send { message: Message::EditRejected { reason: RejectReason::BadShape, .. }, .. }
    )));
}

#[test]
fn moves_are_checked_in_the_side_views_plane() {
    let mut net = new_net();
    net.join(1, "ada");
    // Spawn left of the wall at x = 10, head at row -5 (feet at row -3.5).
    net.stand(1, 8.5, -5.0, 1);
    net.now += 0.5;
    // Through the wall in one step: refused, corrected back.
    net.stand(1, 11.5, -5.0, 2);
    assert_eq!(net.corrections(1), 1);
    assert_eq!(net.server.accepted_pose(1).map(|p| p.position), Some([8.5, -5.0, 0.0]));
    // Walking left at a walking speed passes; falling (rows grow downwards) passes too.
    net.now += 2.0;
    net.stand(1, 5.5, -5.0, 3);
    net.now += 0.5;
    net.stand(1, 5.5, 10.0, 4);
    assert_eq!(net.server.accepted_pose(1).map(|p| p.position), Some([5.5, 10.0, 0.0]));
    // Rising 40 rows in half a second: too fast upwards (upwards is towards smaller rows).
    net.now += 2.0;
    net.stand(1, 5.5, -30.0, 5);
    // Running 60 tiles left in a second: too fast.
    net.now += 2.0;
    net.stand(1, -54.5, 10.0, 6);
    assert_eq!(net.server.accepted_pose(1).map(|p| p.position), Some([5.5, 10.0, 0.0]));
    assert_eq!(net.server.stats().poses_refused, 3);
    // A pose off the plane is refused here, and drops a client that sends it anyway.
    let off = Pose { position: [5.5, 10.0, 2.0], yaw: 0.0, pitch: 0.0, eye_height: 1.5 };
    assert!(matches!(net.clients[&1].pose_packet(7, off), Err(RequestError::OffPlane { .. })));
    let bytes = Message::PlayerState { player: 0, tick: 7, pose: off }.encode();
    net.to_server.push_back((1, bytes));
    net.settle();
    assert!(net.dropped.iter().any(|(p, reason)| *p == 1 && reason.contains("z = 0")), "{:?}", net.dropped);
}

#[test]
fn a_side_view_welcome_and_its_chunks_travel_exactly() {
    let mut net = new_net();
    net.join(1, "ada");
    // A subscription off the plane is not one of the world's chunks: nothing answers it.
    let off = Message::SubscribeChunk { chunk: ChunkCoord::new(0, 0, 1) }.encode();
    net.to_server.push_back((1, off));
    net.settle();
    assert!(!net.events[&1].iter().any(|e| matches!(e, ClientEvent::ChunkSnapshot { .. })));
    // A snapshot naming an index past the side view's chunk is a clear error.
    let mut c = WorldClient::new("x");
    let welcome = net.server.handle_packet(
        5,
        &Message::Hello { protocol: strata_core::net::protocol::PROTOCOL_VERSION, name: "x".into() }.encode(),
        0.0,
    );
    let Some(Action::Send { message: w @ Message::Welcome { .. }, .. }) = welcome.first() else {
        panic!("{welcome:?}")
    };
    c.handle_packet(&w.encode(), 0.0).expect("a side-view welcome");
    let bad = Message::ChunkEdits { chunk: ChunkCoord::new(0, 0, 0), order: 0, edits: vec![(4096, 1)] };
    let err = c.handle_packet(&bad.encode(), 0.0).unwrap_err();
    assert!(err.to_string().contains("4096") && err.to_string().contains("below 4096"), "{err}");
    // Movement limits are the body's: the defaults are the 3D player's.
    assert_eq!(ServerConfig::default().movement, MovementLimits::default());
}

fn marker(x: f64, y: f64, state: &[u8]) -> EntityRecord {
    EntityRecord {
        scene: "res://demo2d/life/chest_2d.tscn".into(),
        position: kept_position([x, y, 0.0]),
        rotation: [0.0, 0.0, 0.247_404, 0.968_912],
        scale: [-1.0, 1.0, 1.0],
        state: state.to_vec(),
    }
}

#[test]
fn a_side_view_chunks_objects_reach_subscribers_and_late_joiners_exactly() {
    let mut net = new_net();
    let x0 = 3_000_000.0;
    // Side-view chunk (46,875, -1): tiles 3,000,000 to 3,000,063 by -64 to -1; its records stand
    // in 32-tile cells (93,750, -2) and (93,751, -1), not in the chunk's own numbers; the third
    // stands on the floor below the chunk's bottom row (y = 0, the edge), so it is the chunk's.
    let chunk = ChunkCoord::new(46_875, -1, 0);
    // (In the order the wire keeps: by cell.)
    let records = vec![marker(x0 + 0.25, -40.5, b""), marker(x0 + 10.5, 0.0, &[1]), marker(x0 + 63.75, -3.125, &[7])];
    let mut host = EntityDeltas::default();
    host.removed_spawns.insert(chunk, BTreeSet::from([2, 9]));
    host.records.insert(chunk, records.clone());
    net.join(1, "ada");
    net.stand(1, x0 + 0.5, -20.0, 1);
    let actions = net.server.publish_entities(&host, 1.0);
    net.route(actions);
    net.settle();
    assert!(net.clients[&1].entity_deltas().is_empty(), "not subscribed yet");
    for (peer, name) in [(1, "ada"), (2, "late")] {
        if peer == 2 {
            net.join(peer, name);
            net.stand(peer, x0 + 2.5, -20.0, 1);
        }
        let subscribe = net.clients[&peer].subscribe(chunk);
        net.to_server.push_back((peer, subscribe));
        net.settle();
        let d = net.clients[&peer].entity_deltas();
        assert_eq!(d.records.get(&chunk), Some(&records), "{name}: every number exact at x = 3e6");
        assert_eq!(d.removed_spawns.get(&chunk), Some(&BTreeSet::from([2, 9])), "{name}");
        assert!(net.events[&peer].contains(&ClientEvent::EntitiesChanged { chunk }), "{name}");
    }
    // A record outside the chunk it is sent with is refused, naming the chunk and the place.
    let outside = Message::ChunkEntities { chunk, removed_spawns: vec![], records: vec![marker(x0 + 64.5, -3.0, b"")] };
    let e = net.clients.get_mut(&1).unwrap().handle_packet(&outside.encode(), 2.0).unwrap_err();
    assert!(matches!(e, ClientError::EntityOutsideChunk { chunk: c, .. } if c == chunk), "{e}");
    assert!(e.to_string().contains("3000064.5"), "{e}");
    assert_eq!(net.clients[&1].entity_deltas().records.get(&chunk), Some(&records), "nothing taken from it");
}
