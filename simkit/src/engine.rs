//! Setting a simulation up (`SimInit`) and running it (`Simulation`): the sequential fast path
//! for one partition and LBTS epochs with a lookahead window for several.
//!
//! With several partitions every worker thread repeats: agree at the epoch barrier on the
//! global lower bound of future timestamps (LBTS = the minimum over partitions of their next
//! event and of every message they sent during the last epoch), then handle every local event
//! with timestamp below `LBTS + lookahead`, where the lookahead is the smallest latency of any
//! link or net crossing partitions. No message from another partition can arrive inside that
//! window, so partitions never wait on each other within an epoch, and many timestamps are
//! handled per barrier. Cross-partition messages are buffered per (sender, receiver) pair and
//! merged into the receiver's queue right after the barrier.
//!
//! # How a run ends
//!
//! Stops the model itself asks for are deterministic, identical on one partition and on any
//! number of partitions and partitionings (same final status and tick, same handled events,
//! same component state):
//!
//! * An exit requested from inside the model ([`Ctx::request_exit`], or
//!   [`SimHandle::request_exit`] called from a handler) while handling an event at time `t`
//!   takes effect once every event with timestamp before `t + H` has been handled, and no
//!   event at or after it. `H` is the *exit horizon* ([`Simulation::exit_horizon`]): the
//!   largest latency of any link or net of the topology (at least one tick), a property of
//!   the model, not of its partitioning. It has to be at least the lookahead of every
//!   partitioning: by the time the other partitions learn of the request at the next epoch
//!   barrier, they may have handled events up to (not including) `LBTS + lookahead`, and
//!   `LBTS <= t`. Epoch windows are also never wider than `H` (this only matters for
//!   partitionings that cut no link, whose lookahead is unbounded).
//! * Of several requests the one made while handling the event with the smallest ordering key
//!   ([`EventKey`]) wins; requests made in `init` count as made at the start time, before
//!   every event, in component-id order.
//! * When the model has primaries, the release of the last one (the release with the largest
//!   key) is a stop request of its own at that key: the run completes with
//!   [`CompletionReason::PrimariesReleased`] by the same rule, unless an exit request with a
//!   smaller key wins. Once they have all released, later runs complete at once.
//! * A request whose stop lies beyond the tick limit of `run_until` stays pending: the run
//!   ends with [`ExitStatus::MaxTick`], and the next run honors it.
//!
//! # Sync points
//!
//! A model may register a hook ([`Simulation::set_sync_points`]) that the engine calls at
//! every multiple of a period with no handler running anywhere: after all events before the
//! point, before any at or after it (windows never cross a point). Components that share
//! state outside messages buffer their effects and publish them there, which keeps such
//! models deterministic across partitionings (see [`syncpoint`](self::syncpoint)).
//!
//! Requests from other threads ([`SimHandle::request_exit`], [`SimHandle::shutdown`]) and
//! the release of the last [`SimHandle::hold`] are timing-dependent by nature: they are
//! honored at the next synchronization point (an epoch barrier; every few thousand events on
//! one partition), wherever the simulation has got to.

pub(crate) mod parallel;
pub(crate) mod stop;
pub(crate) mod syncpoint;
pub(crate) mod worker;

use crate::component::{Component, ComponentId, Ctx};
use crate::event::queue::EventQueue;
use crate::event::{Entry, EventKey, Via};
use crate::handle::{Injection, Request, SimHandle};
use crate::partition::Partitioning;
use crate::port::{LinkRoute, NetId, NetRoute, PortId};
use crate::stats::{component_report, CompStats, EngineStats, Report, StatSpec, StatsTable};
use crate::time::{ClockDomain, Tick};
use crate::topology::{Topology, TopologyError};
use std::any::Any;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;
use worker::{CompState, Core};

/// Errors that stop a run. All are fatal for the run that hit them: they are model bugs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub enum SimError {
    /// A component sent on a port that is not one of its link sources.
    #[error("component {component:?} sent on port {port:?}, which is not one of its output ports (at {tick})")]
    NotAnOutputPort {
        /// The sender.
        component: ComponentId,
        /// The port.
        port: PortId,
        /// When.
        tick: Tick,
    },
    /// A component sent over a net it is not on, or to a non-member.
    #[error("component {component:?} sent over net {net:?} to {to:?}, but one of them is not a member (at {tick})")]
    NotANetMember {
        /// The sender.
        component: ComponentId,
        /// The net.
        net: NetId,
        /// The destination.
        to: ComponentId,
        /// When.
        tick: Tick,
    },
    /// A component scheduled a timer before the current time.
    #[error("component {component:?} scheduled an event at {at}, in the past of {now}")]
    ScheduleInPast {
        /// The component.
        component: ComponentId,
        /// The requested time.
        at: Tick,
        /// The current time.
        now: Tick,
    },
    /// A component without a clock called `wake`.
    #[error("component {component:?} is not clocked but asked to be woken (at {tick})")]
    NotClocked {
        /// The component.
        component: ComponentId,
        /// When.
        tick: Tick,
    },
    /// A component's handler panicked while partition `partition` was running (on its worker
    /// thread, or on the caller's thread for one partition and for `step`). The panic is
    /// caught, not propagated; the simulation's state is then unspecified.
    #[error("a component panicked on the worker thread of partition {partition}")]
    WorkerPanicked {
        /// The partition.
        partition: usize,
    },
}

/// Why a run completed on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CompletionReason {
    /// No event was left and nothing held the simulation open.
    Quiescent,
    /// Every primary component released the run (the status's tick is the time of the last
    /// release; see the exit rule in [`crate::engine`]).
    PrimariesReleased,
}

/// How a run ended, with the simulated time it ended at.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ExitStatus {
    /// The simulation completed.
    Completed {
        /// Why.
        reason: CompletionReason,
        /// Quiescent: time of the last event handled. Primaries released: time of the last
        /// release (of the run's start if that happened in an earlier run).
        tick: Tick,
    },
    /// A component or a [`SimHandle`] asked to exit.
    ExitRequested {
        /// The reason given.
        reason: String,
        /// The code given.
        code: i32,
        /// From inside the model: the time the winning request was made (the run handled
        /// every event before this plus the exit horizon). From another thread: the time the
        /// simulation had reached when it honored the request.
        tick: Tick,
    },
    /// [`SimHandle::shutdown`] interrupted the run.
    Interrupted {
        /// Time reached.
        tick: Tick,
    },
    /// The tick limit (of `run_until`, or [`SimInit::max_tick`]) was reached with events left.
    MaxTick {
        /// The limit.
        tick: Tick,
    },
}

impl ExitStatus {
    /// The simulated time the run ended at.
    pub fn tick(&self) -> Tick {
        match self {
            ExitStatus::Completed { tick, .. }
            | ExitStatus::ExitRequested { tick, .. }
            | ExitStatus::Interrupted { tick }
            | ExitStatus::MaxTick { tick } => *tick,
        }
    }
}

/// Where a component lives: its partition and its index there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Place {
    pub(crate) part: u32,
    pub(crate) local: u32,
}

/// The immutable routing tables every worker reads.
#[derive(Debug)]
pub struct Tables {
    pub(crate) names: Vec<String>,
    pub(crate) clocks: Vec<Option<ClockDomain>>,
    /// By port: where a send on it goes (`None` for ports that are not link sources).
    pub(crate) links: Vec<Option<LinkRoute>>,
    pub(crate) nets: Vec<NetRoute>,
    pub(crate) place: Vec<Place>,
    /// Smallest latency of a link or net crossing partitions (`Tick::MAX` if none does).
    pub(crate) lookahead: Tick,
    /// Largest latency of any link or net, at least one tick: how long after an exit request
    /// events are still handled (see the exit rule in [`crate::engine`]).
    pub(crate) horizon: Tick,
    pub(crate) stat_specs: Vec<StatSpec>,
    /// By component: its own ports' names and ids.
    pub(crate) ports_of: Vec<Vec<(String, PortId)>>,
    pub(crate) primaries: u32,
    /// Hash of names, ports, links and nets: a checkpoint only restores into the same model.
    pub(crate) fingerprint: u64,
}

/// A partition: its components and its event loop state.
pub(crate) struct Part<M> {
    pub(crate) comps: Vec<Box<dyn Component<M>>>,
    pub(crate) core: Core<M>,
}

impl<M> fmt::Debug for Part<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Part")
            .field("components", &self.comps.len())
            .finish_non_exhaustive()
    }
}

/// Setup: a validated topology plus how to run it. [`SimInit::init`] makes the
/// [`Simulation`].
#[derive(Debug)]
pub struct SimInit<M> {
    topo: Topology<M>,
    partitioning: Partitioning,
    start: Tick,
    max_tick: Tick,
}

impl<M: Send + 'static> SimInit<M> {
    /// Setup for `topo` on one partition, starting at time zero.
    pub fn new(topo: Topology<M>) -> SimInit<M> {
        SimInit {
            topo,
            partitioning: Partitioning::Single,
            start: Tick::ZERO,
            max_tick: Tick::MAX,
        }
    }

    /// How to spread components over partitions (= worker threads).
    pub fn partitioning(mut self, p: Partitioning) -> Self {
        self.partitioning = p;
        self
    }

    /// The simulation's start time (default zero).
    pub fn start_at(mut self, t: Tick) -> Self {
        self.start = t;
        self
    }

    /// The tick [`Simulation::run`] stops at (default: none).
    pub fn max_tick(mut self, t: Tick) -> Self {
        self.max_tick = t;
        self
    }

    /// Partitions and validates the topology, then calls every component's `init` in id order.
    pub fn init(self) -> Result<Simulation<M>, TopologyError> {
        let SimInit {
            topo,
            partitioning,
            start,
            max_tick,
        } = self;
        let assign = partitioning.assign(&topo)?;
        let parts = partitioning.parts();
        if let Some((c, &p)) = assign.iter().enumerate().find(|(_, &p)| p >= parts) {
            return Err(TopologyError::BadPartitioning(format!(
                "component {} assigned to partition {p} of {parts}",
                topo.comps[c].name
            )));
        }
        let mut lookahead = Tick::MAX;
        let horizon = topo
            .links
            .iter()
            .map(|l| l.latency)
            .chain(topo.nets.iter().map(|n| n.latency))
            .fold(Tick(1), Tick::max);
        for l in &topo.links {
            let (a, b) = (assign[l.src as usize], assign[l.dst as usize]);
            if a != b {
                if l.latency == Tick::ZERO {
                    return Err(TopologyError::ZeroLatencyCrossPartition {
                        from: topo.port_names[l.src_port as usize].clone(),
                        to: topo.port_names[l.dst_port as usize].clone(),
                        from_partition: a,
                        to_partition: b,
                    });
                }
                lookahead = lookahead.min(l.latency);
            }
        }
        for n in &topo.nets {
            let spans = n
                .members
                .windows(2)
                .any(|w| assign[w[0] as usize] != assign[w[1] as usize]);
            if spans {
                if n.latency == Tick::ZERO {
                    return Err(TopologyError::ZeroLatencyNetCrossPartition {
                        net: n.name.clone(),
                    });
                }
                lookahead = lookahead.min(n.latency);
            }
        }
        for (c, at, _) in &topo.initial {
            if *at < start {
                return Err(TopologyError::ScheduleInPast {
                    component: topo.comps[*c as usize].name.clone(),
                    at: *at,
                    start,
                });
            }
        }
        // Places, in component-id order within each partition.
        let mut place = Vec::with_capacity(topo.comps.len());
        let mut counts = vec![0u32; parts];
        for &p in &assign {
            place.push(Place {
                part: p as u32,
                local: counts[p],
            });
            counts[p] += 1;
        }
        let mut links = vec![None; topo.ports.len()];
        for l in &topo.links {
            links[l.src_port as usize] = Some(LinkRoute {
                owner: l.src,
                dst: l.dst,
                dst_port: l.dst_port,
                latency: l.latency,
            });
        }
        for (i, p) in topo.ports.iter().enumerate() {
            if let Some(a) = p.alias {
                links[i] = links[a as usize];
            }
        }
        let words = topo.comps.len().div_ceil(64);
        let nets = topo
            .nets
            .iter()
            .map(|n| {
                let mut members = vec![0u64; words];
                for &m in &n.members {
                    members[(m / 64) as usize] |= 1 << (m % 64);
                }
                NetRoute {
                    latency: n.latency,
                    members,
                }
            })
            .collect();
        let mut fp = 0u64;
        for c in &topo.comps {
            fp = fingerprint_str(fp, &c.name);
        }
        for p in &topo.port_names {
            fp = fingerprint_str(fp, p);
        }
        for l in &topo.links {
            fp = crate::event::mix(fp, (l.src_port as u64) << 32 | l.dst_port as u64);
            fp = crate::event::mix(fp, l.latency.0);
        }
        for n in &topo.nets {
            fp = fingerprint_str(fp, &n.name);
            fp = crate::event::mix(fp, n.latency.0);
        }
        let primaries = topo.comps.iter().filter(|c| c.primary).count() as u32;
        let mut ports_of = vec![Vec::new(); topo.comps.len()];
        for (i, p) in topo.ports.iter().enumerate() {
            if p.alias.is_none() {
                ports_of[p.owner as usize].push((p.name.clone(), PortId(i as u32)));
            }
        }
        let tables = Tables {
            names: topo.comps.iter().map(|c| c.name.clone()).collect(),
            clocks: topo.comps.iter().map(|c| c.clock).collect(),
            links,
            nets,
            place: place.clone(),
            lookahead,
            horizon,
            stat_specs: topo.comps.iter().map(|c| c.stats.clone()).collect(),
            ports_of,
            primaries,
            fingerprint: fp,
        };
        let mut parts_v: Vec<Part<M>> = (0..parts)
            .map(|p| Part {
                comps: Vec::with_capacity(counts[p] as usize),
                core: Core {
                    pid: p as u32,
                    queue: EventQueue::new(),
                    ticks: EventQueue::new(),
                    out: (0..parts).map(|_| Vec::new()).collect(),
                    sent_min: Tick::MAX,
                    st: Vec::with_capacity(counts[p] as usize),
                    stats: StatsTable { comps: Vec::new() },
                    l2g: Vec::new(),
                    events: 0,
                    cross: 0,
                    barrier_wait: Duration::ZERO,
                    now: start,
                    stop_at: Tick::MAX,
                    exit: None,
                    error: None,
                    held: 0,
                    released: None,
                    owns_all_primaries: parts == 1,
                },
            })
            .collect();
        for (g, spec) in topo.comps.into_iter().enumerate() {
            let p = &mut parts_v[assign[g]];
            p.core.l2g.push(g as u32);
            p.core.st.push(CompState {
                holding: spec.primary,
                ..CompState::default()
            });
            p.core.held += spec.primary as u32;
            p.core.stats.comps.push(CompStats::new(&spec.stats));
            p.comps.push(spec.model);
        }
        let n_initial = topo.initial.len() as u64;
        let mut sim = Simulation {
            handle: SimHandle::with_first_seq(place.len(), n_initial),
            tables,
            parts: parts_v,
            frontier: start,
            max_tick,
            epochs: 0,
            late: 0,
            sync: None,
            synced: Tick::ZERO,
        };
        for (seq, (c, at, msg)) in topo.initial.into_iter().enumerate() {
            let pl = sim.tables.place[c as usize];
            sim.parts[pl.part as usize].core.queue.push(Entry {
                key: EventKey::external(at, seq as u64),
                dst: pl.local,
                aux: Entry::<M>::aux(Via::External, 0),
                payload: msg,
            });
        }
        let inside = sim.handle.enter();
        for g in 0..sim.tables.place.len() {
            let pl = sim.tables.place[g];
            let part = &mut sim.parts[pl.part as usize];
            let mut ctx = Ctx {
                core: &mut part.core,
                tables: &sim.tables,
                me: g as u32,
                local: pl.local,
                key: EventKey::init(start, g as u32),
            };
            // A panic in user code is an error for the caller, as it is in a run.
            if catch_unwind(AssertUnwindSafe(|| {
                part.comps[pl.local as usize].init(&mut ctx);
                ctx.after_handler();
            }))
            .is_err()
            {
                return Err(TopologyError::InitPanicked {
                    component: sim.tables.names[g].clone(),
                });
            }
        }
        drop(inside);
        sim.merge_outboxes();
        sim.handle.publish_now(start);
        Ok(sim)
    }
}

fn fingerprint_str(h: u64, s: &str) -> u64 {
    s.bytes()
        .fold(crate::event::mix(h, s.len() as u64), |h, b| {
            crate::event::mix(h, b as u64)
        })
}

/// A running simulation: step it, run it, inspect it, checkpoint it.
pub struct Simulation<M> {
    pub(crate) tables: Tables,
    pub(crate) parts: Vec<Part<M>>,
    pub(crate) handle: SimHandle<M>,
    /// Earliest time an injection can still be delivered at.
    pub(crate) frontier: Tick,
    pub(crate) max_tick: Tick,
    pub(crate) epochs: u64,
    pub(crate) late: u64,
    /// The model's sync-point hook, if it set one ([`Simulation::set_sync_points`]).
    pub(crate) sync: Option<syncpoint::SyncPoints>,
    /// The last sync point the hook ran for (kept in checkpoints).
    pub(crate) synced: Tick,
}

impl<M> fmt::Debug for Simulation<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Simulation")
            .field("partitions", &self.parts.len())
            .field("components", &self.tables.names.len())
            .field("frontier", &self.frontier)
            .finish_non_exhaustive()
    }
}

/// Turns injections into queued events: "now" ones at `frontier`, late ones clamped to it.
/// Returns the earliest time injected and the number of late ones.
pub(crate) fn place_injections<M>(
    tables: &Tables,
    injections: Vec<Injection<M>>,
    frontier: Tick,
    mut sink: impl FnMut(u32, Entry<M>),
) -> (Tick, u64) {
    let mut min = Tick::MAX;
    let mut late = 0;
    for inj in injections {
        let t = match inj.at {
            Some(at) if at >= frontier => at,
            Some(_) => {
                late += 1;
                frontier
            }
            None => frontier,
        };
        min = min.min(t);
        let pl = tables.place[inj.to.index()];
        sink(
            pl.part,
            Entry {
                key: EventKey::external(t, inj.seq),
                dst: pl.local,
                aux: Entry::<M>::aux(Via::External, 0),
                payload: inj.msg,
            },
        );
    }
    (min, late)
}

pub(crate) fn request_status(r: Request, tick: Tick) -> ExitStatus {
    match r {
        Request::Exit { reason, code } => ExitStatus::ExitRequested { reason, code, tick },
        Request::Interrupt => ExitStatus::Interrupted { tick },
    }
}

impl<M: Send + 'static> Simulation<M> {
    /// A thread-safe handle for injecting events and requesting exits from other threads.
    pub fn handle(&self) -> SimHandle<M> {
        self.handle.clone()
    }

    /// The time of the last event handled (or the start time, or the last tick limit reached).
    pub fn now(&self) -> Tick {
        self.parts
            .iter()
            .map(|p| p.core.now)
            .max()
            .unwrap_or(Tick::ZERO)
    }

    /// Number of partitions (= worker threads a run uses).
    pub fn partitions(&self) -> usize {
        self.parts.len()
    }

    /// Makes the engine call `hook(g)` at sync points `g`, the multiples of `period`: after
    /// every event before `g` has been handled and before any at or after it, on one thread
    /// while no handler runs, at the same points on any partitioning (see
    /// [`syncpoint`](self::syncpoint) for the rule). Lazy: a point is synced only once an
    /// event at or after it is about to be handled, and points with no event between them
    /// give one call, for the latest. A zero period is taken as one tick.
    pub fn set_sync_points(&mut self, period: Tick, hook: impl FnMut(Tick) + Send + 'static) {
        let period = period.max(Tick(1));
        let sp = syncpoint::SyncPoints {
            period,
            hook: Box::new(hook),
        };
        // Points before the current time count as synced: nothing has been buffered for them.
        self.synced = self.synced.max(sp.floor(self.now()));
        self.sync = Some(sp);
    }

    /// The last sync point the hook ran for.
    pub fn last_sync_point(&self) -> Tick {
        self.synced
    }

    /// Runs the sync hook if events from `next` on cross a sync point; returns the next
    /// point (`Tick::MAX` without a hook).
    fn sync_before(&mut self, next: Tick) -> Result<Tick, SimError> {
        let Some(sp) = self.sync.as_mut() else {
            return Ok(Tick::MAX);
        };
        let synced = &mut self.synced;
        catch_unwind(AssertUnwindSafe(|| sp.before(next, synced)))
            .map_err(|_| SimError::WorkerPanicked { partition: 0 })
    }

    /// Smallest latency of any link or net crossing partitions (`Tick::MAX` if none).
    pub fn lookahead(&self) -> Tick {
        self.tables.lookahead
    }

    /// How long after an exit request made inside the model at time `t` events are still
    /// handled: every event before `t + exit_horizon()` is, none after. The largest latency of
    /// any link or net (at least one tick); the same for every partitioning.
    pub fn exit_horizon(&self) -> Tick {
        self.tables.horizon
    }

    /// The partition component `c` runs in.
    pub fn partition_of(&self, c: ComponentId) -> Option<usize> {
        self.tables.place.get(c.index()).map(|p| p.part as usize)
    }

    /// Time of the earliest pending event (`Tick::MAX` if none).
    pub fn next_event_time(&self) -> Tick {
        self.parts
            .iter()
            .map(|p| p.core.next_time())
            .min()
            .unwrap_or(Tick::MAX)
    }

    /// Number of pending events.
    pub fn pending_events(&self) -> usize {
        self.parts
            .iter()
            .map(|p| p.core.queue.len() + p.core.ticks.len())
            .sum()
    }

    /// The component with id `c`, if it is a `T`.
    pub fn component<T: Component<M>>(&self, c: ComponentId) -> Option<&T> {
        let pl = self.tables.place.get(c.index())?;
        let b: &dyn Component<M> = &*self.parts[pl.part as usize].comps[pl.local as usize];
        (b as &dyn Any).downcast_ref::<T>()
    }

    /// The component with id `c`, mutably, if it is a `T` (between runs).
    pub fn component_mut<T: Component<M>>(&mut self, c: ComponentId) -> Option<&mut T> {
        let pl = self.tables.place.get(c.index())?;
        let b: &mut dyn Component<M> = &mut *self.parts[pl.part as usize].comps[pl.local as usize];
        (b as &mut dyn Any).downcast_mut::<T>()
    }

    /// Calls `f` on every component that is a `T`, in id order (between runs).
    pub fn for_each_component_mut<T: Component<M>>(&mut self, mut f: impl FnMut(&mut T)) {
        for g in 0..self.tables.place.len() {
            if let Some(t) = self.component_mut::<T>(ComponentId(g as u32)) {
                f(t);
            }
        }
    }

    /// The id of the component called `name`.
    pub fn find(&self, name: &str) -> Option<ComponentId> {
        self.tables
            .names
            .iter()
            .position(|n| n == name)
            .map(|i| ComponentId(i as u32))
    }

    /// The order-dependent hash of the events component `c` has handled.
    pub fn component_trace(&self, c: ComponentId) -> Option<u64> {
        let pl = self.tables.place.get(c.index())?;
        Some(self.parts[pl.part as usize].core.st[pl.local as usize].trace)
    }

    /// One hash of the whole event trace: every component's order-dependent hash of the
    /// event keys it handled, combined in component-id order. Equal across thread counts and
    /// partitionings when the trace is.
    pub fn trace_hash(&self) -> u64 {
        (0..self.tables.place.len()).fold(0x5eed_u64, |h, c| {
            let t = self.component_trace(ComponentId(c as u32)).unwrap_or(0);
            crate::event::mix(h, t)
        })
    }

    /// Engine counters and every component's statistics.
    pub fn report(&self) -> Report {
        let mut engine = EngineStats {
            partitions: self.parts.len(),
            epochs: self.epochs,
            late_injections: self.late,
            ..EngineStats::default()
        };
        for p in &self.parts {
            engine.events += p.core.events;
            engine.cross_partition_messages += p.core.cross;
            engine.barrier_wait += p.core.barrier_wait;
        }
        let mut components = Vec::new();
        for (g, spec) in self.tables.stat_specs.iter().enumerate() {
            if spec.counters.is_empty() && spec.histograms.is_empty() {
                continue;
            }
            let pl = self.tables.place[g];
            let s = &self.parts[pl.part as usize].core.stats.comps[pl.local as usize];
            components.push(component_report(&self.tables.names[g], spec, s));
        }
        Report { engine, components }
    }

    /// Moves every outbox into its destination partition's queue (between runs and steps).
    pub(crate) fn merge_outboxes(&mut self) {
        for src in 0..self.parts.len() {
            for dst in 0..self.parts.len() {
                if src == dst || self.parts[src].core.out[dst].is_empty() {
                    continue;
                }
                let mut v = std::mem::take(&mut self.parts[src].core.out[dst]);
                self.parts[dst].core.queue.extend(v.drain(..));
                self.parts[src].core.out[dst] = v;
            }
            self.parts[src].core.sent_min = Tick::MAX;
        }
    }

    fn poll_handle(&mut self, honor: bool) -> Option<Request> {
        let taken = self.handle.take(honor)?;
        let frontier = self.frontier.max(self.now());
        let parts = &mut self.parts;
        let (_, late) = place_injections(&self.tables, taken.injections, frontier, |p, e| {
            parts[p as usize].core.queue.push(e)
        });
        self.late += late;
        taken.request
    }

    /// Handles every event at the next pending timestamp, in all partitions, on the calling
    /// thread. Returns that timestamp, or `None` if nothing is pending. Stop requests (from
    /// the model or another thread) do not stop a step; they stay pending for the next run.
    pub fn step(&mut self) -> Result<Option<Tick>, SimError> {
        self.poll_handle(false);
        let t = self.next_event_time();
        if t == Tick::MAX {
            return Ok(None);
        }
        self.sync_before(t)?;
        let end = t.saturating_add(Tick(1));
        let _inside = self.handle.enter();
        for (pid, p) in self.parts.iter_mut().enumerate() {
            // Only an error made during this step may cut it short.
            p.core.stop_at = Tick::MAX;
            let (core, comps, tables) = (&mut p.core, &mut p.comps, &self.tables);
            if catch_unwind(AssertUnwindSafe(|| {
                core.process(comps, tables, end, u64::MAX)
            }))
            .is_err()
            {
                return Err(SimError::WorkerPanicked { partition: pid });
            }
        }
        self.merge_outboxes();
        self.frontier = self.frontier.max(t);
        self.handle.publish_now(t);
        for p in &mut self.parts {
            if let Some(e) = p.core.error.take() {
                return Err(e);
            }
        }
        Ok(Some(t))
    }

    /// Runs until the simulation completes, an exit is requested, or the configured
    /// [`SimInit::max_tick`] is passed.
    pub fn run(&mut self) -> Result<ExitStatus, SimError> {
        self.run_until(self.max_tick)
    }

    /// Runs, handling every event with timestamp at or before `limit`.
    pub fn run_until(&mut self, limit: Tick) -> Result<ExitStatus, SimError> {
        let end = limit.saturating_add(Tick(1)).max(limit);
        let end = if limit == Tick::MAX { Tick::MAX } else { end };
        self.handle.rearm();
        let floor = self.frontier;
        for p in &mut self.parts {
            p.core.rearm(self.tables.horizon);
            p.core.now = p.core.now.max(floor);
        }
        let r = if self.parts.len() == 1 {
            self.run_single(end, limit)
        } else {
            parallel::run(self, end, limit)
        };
        let now = self.now();
        self.handle.publish_now(now);
        r
    }

    fn run_single(&mut self, end: Tick, limit: Tick) -> Result<ExitStatus, SimError> {
        let _inside = self.handle.enter();
        loop {
            if let Some(r) = self.poll_handle(true) {
                let tick = self.now();
                return Ok(request_status(r, tick));
            }
            if let Some(e) = self.parts[0].core.error.take() {
                return Err(e);
            }
            let next = self.parts[0].core.next_time();
            if let Some(s) = self.model_stop() {
                if next >= s.cap(self.tables.horizon) {
                    return Ok(self.honor(s));
                }
            }
            let part = &mut self.parts[0];
            if next == Tick::MAX {
                if self.handle.holds() > 0 {
                    self.handle.wait_idle();
                    continue;
                }
                return Ok(ExitStatus::Completed {
                    reason: CompletionReason::Quiescent,
                    tick: part.core.now,
                });
            }
            if next >= end {
                self.frontier = end;
                part.core.now = limit;
                return Ok(ExitStatus::MaxTick { tick: limit });
            }
            let until = end.min(self.sync_before(next)?);
            let part = &mut self.parts[0];
            // Poll the handle every few thousand events: an atomic load per event is cheap
            // but not free, and requests need no finer response time.
            let (core, comps, tables) = (&mut part.core, &mut part.comps, &self.tables);
            if catch_unwind(AssertUnwindSafe(|| {
                core.process(comps, tables, until, 4096)
            }))
            .is_err()
            {
                return Err(SimError::WorkerPanicked { partition: 0 });
            }
        }
    }
}
