//! Ports, links and nets: how components address each other.
//!
//! A link is one-directional: it carries messages from one component's output port to
//! another's input port after a fixed latency. A net is an any-to-any interconnect among its
//! members with a minimum latency (a crossbar, a NoC, or PHOLD's "any LP"); each send on it
//! picks its destination and adds its own extra delay. Both kinds bound how soon a send can
//! arrive, which is the lookahead that lets partitions run ahead of each other.

use serde::{Deserialize, Serialize};

/// A port of a component (or a composite's exported port, resolved to a component's port).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct PortId(pub(crate) u32);

impl PortId {
    /// Dense index of the port in its topology.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A one-directional link between two ports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct LinkId(pub(crate) u32);

impl LinkId {
    /// Dense index of the link in its topology.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// An any-to-any net among a set of member components.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct NetId(pub(crate) u32);

impl NetId {
    /// Dense index of the net in its topology.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Where a link sends its messages, as the engine needs it per send.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LinkRoute {
    /// The component that owns the source port (only it may send on it).
    pub(crate) owner: u32,
    pub(crate) dst: u32,
    pub(crate) dst_port: u32,
    pub(crate) latency: crate::time::Tick,
}

/// A net as the engine needs it per send.
#[derive(Clone, Debug)]
pub(crate) struct NetRoute {
    pub(crate) latency: crate::time::Tick,
    /// Membership bitset over global component ids.
    pub(crate) members: Vec<u64>,
}

impl NetRoute {
    #[inline]
    pub(crate) fn has(&self, c: u32) -> bool {
        self.members
            .get((c / 64) as usize)
            .is_some_and(|w| w >> (c % 64) & 1 == 1)
    }
}
