//! Components: the user types a model is made of, and the context their handlers get.

use crate::checkpoint::CheckpointError;
use crate::engine::worker::Core;
use crate::engine::Tables;
use crate::event::{Entry, EventClass, EventKey, Via};
use crate::port::{NetId, PortId};
use crate::stats::{CounterId, HistogramId};
use crate::time::{ClockDomain, Tick};
use serde::{Deserialize, Serialize};
use std::any::Any;

/// A component's id: dense, assigned in the order components were added to the topology.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ComponentId(pub(crate) u32);

impl ComponentId {
    /// Dense index of the component.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The id of the component with dense index `i` (ids are handed out 0, 1, 2, ...).
    pub fn from_index(i: usize) -> ComponentId {
        ComponentId(i as u32)
    }
}

/// What a component's handler is given.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Input<M> {
    /// A message that arrived over a link at the component's input `port`.
    Message {
        /// The receiving port.
        port: PortId,
        /// The payload.
        msg: M,
    },
    /// A message that arrived over a net from component `from`.
    Net {
        /// The net it came over.
        net: NetId,
        /// The sender.
        from: ComponentId,
        /// The payload.
        msg: M,
    },
    /// A timer the component scheduled for itself.
    Timer(M),
    /// An event injected from outside through a [`SimHandle`](crate::handle::SimHandle).
    External(M),
}

/// Whether a clocked component wants to be ticked again on its next edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Activity {
    /// Tick again on the next edge.
    Active,
    /// Sleep until woken with [`Ctx::wake`].
    Sleep,
}

/// A simulated component. The engine owns it after the topology is built and calls it on one
/// partition's worker thread at a time.
pub trait Component<M>: Any + Send {
    /// Called once when the simulation is initialized, at time zero, in component-id order:
    /// schedule first events and wake clocks here.
    fn init(&mut self, _ctx: &mut Ctx<'_, M>) {}

    /// Handles one event.
    fn handle(&mut self, input: Input<M>, ctx: &mut Ctx<'_, M>);

    /// Called on each clock edge while the component is awake (clocked components only).
    fn tick(&mut self, _ctx: &mut Ctx<'_, M>) -> Activity {
        Activity::Sleep
    }

    /// Serializes the component's state for a checkpoint (see [`crate::checkpoint::encode`]).
    /// Components that keep no state may return an empty vector.
    fn save(&self) -> Result<Vec<u8>, CheckpointError> {
        Err(CheckpointError::Unsupported)
    }

    /// Restores state written by [`Component::save`].
    fn restore(&mut self, _state: &[u8]) -> Result<(), CheckpointError> {
        Err(CheckpointError::Unsupported)
    }
}

/// What a component's handler can do: read the time, send, schedule, wake, count.
///
/// Misuse (sending on a port the component does not own, scheduling in the past, a net
/// destination that is not a member) does not panic: it is recorded and the run stops with the
/// matching [`SimError`](crate::engine::SimError) after the current event.
#[derive(Debug)]
pub struct Ctx<'a, M> {
    pub(crate) core: &'a mut Core<M>,
    pub(crate) tables: &'a Tables,
    pub(crate) me: u32,
    pub(crate) local: u32,
    /// Ordering key of the event being handled (or of the `init` call).
    pub(crate) key: EventKey,
}

impl<M> Ctx<'_, M> {
    /// Engine side, after the handler (or `init`) this context was made for returned: picks
    /// up an exit it asked for through a [`SimHandle`](crate::handle::SimHandle). One
    /// thread-local load; the key is only read when there is a request.
    #[inline]
    pub(crate) fn after_handler(&mut self) {
        if crate::handle::exit_asked_inside() {
            self.core.exit_asked_inside(self.key, self.tables.horizon);
        }
    }

    /// The current simulated time.
    #[inline]
    pub fn now(&self) -> Tick {
        self.key.time()
    }

    /// This component's id.
    pub fn id(&self) -> ComponentId {
        ComponentId(self.me)
    }

    /// This component's hierarchical name.
    pub fn name(&self) -> &str {
        &self.tables.names[self.me as usize]
    }

    /// The id of this component's port called `name` (components usually look their ports up
    /// in [`Component::init`]).
    pub fn port(&self, name: &str) -> Option<PortId> {
        self.tables.ports_of[self.me as usize]
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, p)| *p)
    }

    /// This component's clock, if it is clocked.
    pub fn clock(&self) -> Option<ClockDomain> {
        self.tables.clocks[self.me as usize]
    }

    #[inline]
    fn next_seq(&mut self) -> u64 {
        let st = &mut self.core.st[self.local as usize];
        let s = st.seq;
        st.seq += 1;
        s
    }

    /// Sends `msg` on output `port`; it arrives after the link's latency.
    #[inline]
    pub fn send(&mut self, port: PortId, msg: M) {
        self.send_after(port, Tick::ZERO, msg)
    }

    /// Sends `msg` on output `port`; it arrives after the link's latency plus `extra`.
    #[inline]
    pub fn send_after(&mut self, port: PortId, extra: Tick, msg: M) {
        let Some(r) = self.tables.links.get(port.index()).copied().flatten() else {
            return self.core.fail_send(self.me, port, self.now());
        };
        if r.owner != self.me {
            return self.core.fail_send(self.me, port, self.now());
        }
        let seq = self.next_seq();
        let t = self.now() + r.latency + extra;
        let key = EventKey::raw(t, EventClass::Message, self.me, seq);
        self.core.push(
            self.tables,
            r.dst,
            key,
            Entry::<M>::aux(Via::Port, r.dst_port),
            msg,
        );
    }

    /// Sends `msg` over `net` to member `to`; it arrives after the net's latency plus `extra`.
    #[inline]
    pub fn send_net(&mut self, net: NetId, to: crate::component::ComponentId, extra: Tick, msg: M) {
        let Some(n) = self.tables.nets.get(net.index()) else {
            return self.core.fail_net(self.me, net, to, self.now());
        };
        if !n.has(self.me) || !n.has(to.0) {
            return self.core.fail_net(self.me, net, to, self.now());
        }
        let seq = self.next_seq();
        let t = self.now() + n.latency + extra;
        let key = EventKey::raw(t, EventClass::Message, self.me, seq);
        self.core.push(
            self.tables,
            to.0,
            key,
            Entry::<M>::aux(Via::Net, net.0),
            msg,
        );
    }

    /// Schedules a timer `delay` from now (zero means later in this same tick).
    #[inline]
    pub fn schedule(&mut self, delay: Tick, msg: M) {
        let at = self.now() + delay;
        self.schedule_at(at, msg)
    }

    /// Schedules a timer at absolute time `at`, which must not be in the past.
    #[inline]
    pub fn schedule_at(&mut self, at: Tick, msg: M) {
        if at < self.now() {
            return self.core.fail_past(self.me, at, self.now());
        }
        let seq = self.next_seq();
        let key = EventKey::raw(at, EventClass::Timer, self.me, seq);
        self.core
            .push_local(self.local, key, Entry::<M>::aux(Via::Timer, 0), msg);
    }

    /// Wakes this clocked component: it ticks on its next edge at or after now that it has not
    /// ticked on yet. Wakes collapse: if a tick is already pending this does nothing.
    pub fn wake(&mut self) {
        let Some(clock) = self.clock() else {
            return self.core.fail_unclocked(self.me, self.now());
        };
        self.core.wake(self.local, self.me, clock, self.now());
    }

    /// Asks the run to stop with [`ExitStatus::ExitRequested`](crate::engine::ExitStatus).
    ///
    /// The request is deterministic: made at time `t = now()`, it takes effect once every
    /// event with timestamp before `t + ` [`exit_horizon`](crate::engine::Simulation::exit_horizon)
    /// has been handled and no other, on any number of threads and any partitioning. Of
    /// several requests the one made while handling the event with the smallest ordering key
    /// wins (see the exit rule in [`crate::engine`]).
    pub fn request_exit(&mut self, reason: impl Into<String>, code: i32) {
        self.core
            .request_exit(reason.into(), code, self.key, self.tables.horizon);
    }

    /// Releases this component's hold on the run (it must be a primary; see
    /// [`TopologyBuilder::primary`](crate::topology::TopologyBuilder::primary)). Releasing
    /// twice is a no-op. When every primary has released, the run completes by the same rule
    /// as [`Ctx::request_exit`], counted from the time of the last release.
    pub fn release_primary(&mut self) {
        self.core
            .release_primary(self.local, self.key, self.tables.horizon);
    }

    /// Adds `n` to one of this component's counters.
    #[inline]
    pub fn count(&mut self, counter: CounterId, n: u64) {
        self.core.stats.count(self.local, counter, n);
    }

    /// Records `value` into one of this component's histograms.
    #[inline]
    pub fn record(&mut self, hist: HistogramId, value: u64) {
        self.core.stats.record(self.local, hist, value);
    }
}
