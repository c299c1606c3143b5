//! The server's connections, joined or not: when each first made contact, from which address,
//! and the limits that keep connections that never finish joining, or a flood from one address,
//! from holding the transport's slots.
//!
//! A connection is pending from its first contact (the transport's `peer_connected`, or its
//! first packet) until it is welcomed; a pending one is dropped after
//! [`ConnectionLimits::join_timeout_s`] and never counts against the server's `max_players`. An
//! address may hold at most [`ConnectionLimits::max_per_address`] connections, pending and
//! joined together; further ones are closed at once. Addresses are compared as the transport
//! spells them; an unknown address ("") is not limited.
//!
//! May use: `std` and `thiserror`; nothing else in this crate.

use std::collections::BTreeMap;
use thiserror::Error;

/// A connection, as the transport numbers it (Godot's peer id).
pub type PeerId = i64;

/// How long a connection may take to join, and how many one address may hold.
#[derive(Clone, Debug, PartialEq)]
pub struct ConnectionLimits {
    /// Seconds from a connection's first contact to its `Welcome`; a connection that has not
    /// joined by then is dropped. 5 s: a join is one round trip (`Hello`, `Welcome`), well
    /// under a second even across the world; the client gives up after 5 s too
    /// (`StrataWorldSync.join_timeout_s`).
    pub join_timeout_s: f64,
    /// Connections, pending and joined, one address may hold (0: no limit). 8: a household or
    /// a LAN party behind one NAT joins, while one address flooding holds at most 8 of the
    /// transport's slots (ENet's default is 32). Every peer of a loopback test shares
    /// 127.0.0.1: such a test with more clients raises it.
    pub max_per_address: usize,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self { join_timeout_s: 5.0, max_per_address: 8 }
    }
}

/// Why a connection was closed by these limits.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum ConnectionRefusal {
    #[error("address {address} already holds {count} connections; allowed: {max} per address")]
    TooManyFromAddress { address: String, count: usize, max: usize },
    #[error("did not finish joining within {timeout_s} s of connecting")]
    JoinTimeout { timeout_s: f64 },
}

#[derive(Clone, Debug)]
struct Connection {
    address: String,
    since_s: f64,
    joined: bool,
}

/// Every open connection: see the module docs.
#[derive(Clone, Debug, Default)]
pub struct Connections {
    peers: BTreeMap<PeerId, Connection>,
}

impl Connections {
    /// `peer` connected from `address` at `now_s`: refused when its address is full. A peer
    /// already known keeps its first contact time.
    pub fn connected(
        &mut self,
        peer: PeerId,
        address: &str,
        now_s: f64,
        limits: &ConnectionLimits,
    ) -> Result<(), ConnectionRefusal> {
        if let Some(c) = self.peers.get_mut(&peer) {
            c.address = address.to_string();
            return Ok(());
        }
        let count = self.peers.values().filter(|c| !address.is_empty() && c.address == address).count();
        if limits.max_per_address > 0 && count >= limits.max_per_address {
            return Err(ConnectionRefusal::TooManyFromAddress {
                address: address.to_string(),
                count,
                max: limits.max_per_address,
            });
        }
        self.peers.insert(peer, Connection { address: address.to_string(), since_s: now_s, joined: false });
        Ok(())
    }

    /// A packet came from `peer` at `now_s`: the first contact of a peer the transport did not
    /// announce (its address unknown).
    pub fn contact(&mut self, peer: PeerId, now_s: f64) {
        self.peers.entry(peer).or_insert(Connection { address: String::new(), since_s: now_s, joined: false });
    }

    /// `peer` was welcomed.
    pub fn joined(&mut self, peer: PeerId) {
        if let Some(c) = self.peers.get_mut(&peer) {
            c.joined = true;
        }
    }

    /// `peer`'s connection closed.
    pub fn closed(&mut self, peer: PeerId) {
        self.peers.remove(&peer);
    }

    /// Connections that have not joined.
    pub fn pending(&self) -> usize {
        self.peers.values().filter(|c| !c.joined).count()
    }

    /// The address `peer` connected from ("" unknown).
    pub fn address(&self, peer: PeerId) -> Option<&str> {
        self.peers.get(&peer).map(|c| c.address.as_str())
    }

    /// The pending connections older than the join timeout at `now_s`, forgotten here (close
    /// them).
    pub fn expire(&mut self, now_s: f64, limits: &ConnectionLimits) -> Vec<PeerId> {
        let late: Vec<PeerId> = self
            .peers
            .iter()
            .filter(|(_, c)| !c.joined && now_s - c.since_s >= limits.join_timeout_s)
            .map(|(p, _)| *p)
            .collect();
        for p in &late {
            self.peers.remove(p);
        }
        late
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pending_connections_expire_and_an_address_is_limited() {
        let limits = ConnectionLimits { join_timeout_s: 5.0, max_per_address: 2 };
        let mut c = Connections::default();
        c.connected(1, "10.0.0.1", 0.0, &limits).expect("first");
        c.connected(2, "10.0.0.1", 1.0, &limits).expect("second");
        let e = c.connected(3, "10.0.0.1", 1.0, &limits).unwrap_err();
        assert_eq!(e.to_string(), "address 10.0.0.1 already holds 2 connections; allowed: 2 per address");
        c.connected(4, "10.0.0.2", 1.0, &limits).expect("another address");
        c.contact(5, 2.0);
        c.contact(6, 2.0);
        c.contact(7, 2.0);
        assert_eq!(c.address(5), Some(""));
        c.joined(2);
        assert_eq!(c.pending(), 5);
        assert_eq!(c.expire(4.9, &limits), vec![]);
        assert_eq!(c.expire(6.0, &limits), vec![1, 4]);
        // The joined one still counts for its address; a closed one no longer does.
        assert!(c.connected(8, "10.0.0.1", 6.0, &limits).is_ok());
        assert!(c.connected(9, "10.0.0.1", 6.0, &limits).is_err());
        c.closed(2);
        assert!(c.connected(9, "10.0.0.1", 6.0, &limits).is_ok());
        let unlimited = ConnectionLimits { max_per_address: 0, ..limits };
        assert!(c.connected(10, "10.0.0.1", 6.0, &unlimited).is_ok());
    }
}
