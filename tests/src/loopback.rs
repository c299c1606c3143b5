//! A shared world without a network, for the `net*` integration tests: one `WorldServer` and
//! several `WorldClient`s exchanging the real packets in one process, reliable and in order (as
//! ENet's reliable channel). What leaves the server is routed as `StrataWorldSync` routes it: a
//! message to everyone goes to the players that joined, a dropped connection is reported back to
//! the server, and what the host's world must do (apply an edit, answer a shared state request) is
//! handed to the test's [`Host`] as it happens.
//!
//! May use: `strata_core::net`, `strata_core::base`.

use std::collections::{BTreeMap, VecDeque};
use strata_core::base::coords::{ChunkCoord, IVec3};
use strata_core::net::client::{ClientEvent, WorldClient};
use strata_core::net::movement::{NoVoxels, SolidVoxels};
use strata_core::net::protocol::{Pose, RejectReason};
use strata_core::net::server::{Action, PeerId, Target, WorldServer};

/// What a test's host world does with the server's actions meant for it (`EditApplied`,
/// `ShapeApplied`, `SharedStateRequested`); what it returns (the server's answer to a host call
/// it made) is routed on at once.
pub trait Host {
    fn on_action(&mut self, server: &mut WorldServer, action: Action) -> Vec<Action>;
}

/// A host that only watches.
impl Host for () {
    fn on_action(&mut self, _server: &mut WorldServer, _action: Action) -> Vec<Action> {
        Vec::new()
    }
}

/// A server, its clients, the packets in flight and what each client was told.
pub struct Loopback<H: Host = ()> {
    pub server: WorldServer,
    pub host: H,
    /// The host's solid voxels, against which the server checks poses.
    pub world: Box<dyn SolidVoxels>,
    pub clients: BTreeMap<PeerId, WorldClient>,
    pub to_server: VecDeque<(PeerId, Vec<u8>)>,
    pub to_client: BTreeMap<PeerId, VecDeque<Vec<u8>>>,
    pub events: BTreeMap<PeerId, Vec<ClientEvent>>,
    /// Connections the server dropped, with its reason.
    pub dropped: Vec<(PeerId, String)>,
    /// The last pose tick each client sent ([`Loopback::send_pose`]).
    pub ticks: BTreeMap<PeerId, u32>,
    /// The server's clock, seconds.
    pub now: f64,
}

impl<H: Host> Loopback<H> {
    /// `server` with no clients yet, `host` its world, no solid voxels.
    pub fn new(server: WorldServer, host: H) -> Self {
        Self {
            server,
            host,
            world: Box::new(NoVoxels),
            clients: BTreeMap::new(),
            to_server: VecDeque::new(),
            to_client: BTreeMap::new(),
            events: BTreeMap::new(),
            dropped: Vec::new(),
            ticks: BTreeMap::new(),
            now: 0.0,
        }
    }

    /// Connects `peer` as a client named `name` and settles (it joins unless refused).
    pub fn connect(&mut self, peer: PeerId, name: &str) {
        let c = WorldClient::new(name);
        self.to_server.push_back((peer, c.hello().expect("a good name")));
        self.clients.insert(peer, c);
        self.to_client.insert(peer, VecDeque::new());
        self.settle();
    }

    /// `peer`'s connection closes (the client left or was lost).
    pub fn leave(&mut self, peer: PeerId) {
        self.clients.remove(&peer);
        self.to_client.remove(&peer);
        let actions = self.server.peer_disconnected(peer);
        self.route(actions);
        self.settle();
    }

    /// Routes the server's actions: messages into the clients' queues, the host's to [`Host`].
    pub fn route(&mut self, actions: Vec<Action>) {
        for a in actions {
            match a {
                Action::Send { target, message, .. } => {
                    let bytes = message.encode();
                    for (peer, q) in self.to_client.iter_mut() {
                        let joined = || self.server.player_of(*peer).is_some();
                        let to = match target {
                            Target::Peer(p) => p == *peer,
                            Target::All => joined(),
                            Target::AllExcept(p) => p != *peer && joined(),
                        };
                        if to {
                            q.push_back(bytes.clone());
                        }
                    }
                }
                Action::Disconnect { peer, reason } => {
                    self.dropped.push((peer, reason));
                    self.to_client.remove(&peer);
                    self.clients.remove(&peer);
                    let actions = self.server.peer_disconnected(peer);
                    self.route(actions);
                }
                host_action => {
                    let actions = self.host.on_action(&mut self.server, host_action);
                    self.route(actions);
                }
            }
        }
    }

    /// Delivers packets until none is in flight.
    pub fn settle(&mut self) {
        loop {
            let mut any = false;
            while let Some((peer, bytes)) = self.to_server.pop_front() {
                any = true;
                let actions = self.server.handle_packet_in(peer, &bytes, self.now, self.world.as_ref());
                self.route(actions);
            }
            for (peer, q) in self.to_client.iter_mut() {
                while let Some(bytes) = q.pop_front() {
                    any = true;
                    let c = self.clients.get_mut(peer).expect("a connected client");
                    let events = c.handle_packet(&bytes, self.now).expect("the client accepts the server's packets");
                    self.events.entry(*peer).or_default().extend(events);
                }
            }
            if !any {
                return;
            }
        }
    }

    /// `peer` sends `pose` with its next tick (not yet settled).
    pub fn send_pose(&mut self, peer: PeerId, pose: Pose) {
        let tick = self.ticks.entry(peer).or_default();
        *tick += 1;
        let tick = *tick;
        self.send_pose_at_tick(peer, pose, tick);
    }

    /// `peer` sends `pose` stamped `tick` (not yet settled).
    pub fn send_pose_at_tick(&mut self, peer: PeerId, pose: Pose, tick: u32) {
        let bytes = self.clients[&peer].pose_packet(tick, pose).expect("a pose the client may send");
        self.to_server.push_back((peer, bytes));
    }

    /// `peer` asks to set voxel `pos` to `block` (not yet settled); the request's number.
    pub fn edit(&mut self, peer: PeerId, pos: IVec3, block: u16) -> u32 {
        let (request, bytes) =
            self.clients.get_mut(&peer).expect("a connected client").request_edit(pos, block).expect("an edit");
        self.to_server.push_back((peer, bytes));
        request
    }

    /// `peer` subscribes to `chunk` (not yet settled).
    pub fn subscribe(&mut self, peer: PeerId, chunk: ChunkCoord) {
        let bytes = self.clients[&peer].subscribe(chunk);
        self.to_server.push_back((peer, bytes));
    }

    /// What `peer` was told since the last call.
    pub fn take_events(&mut self, peer: PeerId) -> Vec<ClientEvent> {
        self.events.remove(&peer).unwrap_or_default()
    }

    /// The reasons `peer`'s requests were refused, in order.
    pub fn rejections(&self, peer: PeerId) -> Vec<RejectReason> {
        self.events
            .get(&peer)
            .into_iter()
            .flatten()
            .filter_map(|e| match e {
                ClientEvent::Rejected { reason, .. } => Some(*reason),
                _ => None,
            })
            .collect()
    }

    /// How many times the server moved `peer` back.
    pub fn corrections(&self, peer: PeerId) -> usize {
        self.events.get(&peer).into_iter().flatten().filter(|e| matches!(e, ClientEvent::PoseCorrected { .. })).count()
    }
}
