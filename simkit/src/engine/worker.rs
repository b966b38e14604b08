//! One partition's event loop state: its queues, outboxes and per-component engine state.

use super::{SimError, Tables};
use crate::component::{Activity, Component, ComponentId, Ctx, Input};
use crate::event::queue::EventQueue;
use crate::event::{Entry, EventClass, EventKey, TickEntry, Via};
use crate::port::{NetId, PortId};
use crate::stats::StatsTable;
use crate::time::{ClockDomain, Tick};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Engine-side state of one component (checkpointed).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct CompState {
    /// Events this component has created (the sequence part of the ordering key).
    pub(crate) seq: u64,
    /// Order-dependent hash of every event key it has handled.
    pub(crate) trace: u64,
    /// The earliest edge it may tick on (one past its last tick).
    pub(crate) next_edge_min: Tick,
    /// Whether a tick is queued (wakes collapse on this).
    pub(crate) tick_pending: bool,
    /// Whether it is a primary still holding the run.
    pub(crate) holding: bool,
}

/// An exit requested from inside the model, with the ordering key of the event (or `init`
/// call) whose handler asked: among several requests the smallest key wins.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ExitReq {
    pub(crate) reason: String,
    pub(crate) code: i32,
    pub(crate) key: EventKey,
}

/// A partition's event loop state. `Ctx` borrows it mutably while a handler runs.
#[derive(Debug)]
pub struct Core<M> {
    pub(crate) pid: u32,
    pub(crate) queue: EventQueue<Entry<M>>,
    pub(crate) ticks: EventQueue<TickEntry>,
    /// Messages for other partitions, by destination partition.
    pub(crate) out: Vec<Vec<Entry<M>>>,
    /// Earliest timestamp sent to another partition since the last exchange.
    pub(crate) sent_min: Tick,
    pub(crate) st: Vec<CompState>,
    pub(crate) stats: StatsTable,
    pub(crate) l2g: Vec<u32>,
    pub(crate) events: u64,
    pub(crate) cross: u64,
    pub(crate) barrier_wait: Duration,
    pub(crate) now: Tick,
    /// Exclusive time limit this partition may not handle events at or after, set by its own
    /// stop conditions: an error (its time), an exit request or, on one partition, the last
    /// primary's release (their time plus the exit horizon).
    pub(crate) stop_at: Tick,
    /// The earliest exit requested in this partition and not yet honored.
    pub(crate) exit: Option<ExitReq>,
    pub(crate) error: Option<SimError>,
    /// Primaries of this partition still holding.
    pub(crate) held: u32,
    /// Key of the event whose handler released this partition's last holding primary, until
    /// a run honors the release (all partitions released: the largest such key is when the
    /// whole run's last primary released).
    pub(crate) released: Option<EventKey>,
    /// Whether this partition alone decides when all primaries are released (one partition).
    pub(crate) owns_all_primaries: bool,
}

impl<M> Core<M> {
    #[inline]
    pub(crate) fn push(&mut self, tables: &Tables, dst: u32, key: EventKey, aux: u32, payload: M) {
        let pl = tables.place[dst as usize];
        let e = Entry {
            key,
            dst: pl.local,
            aux,
            payload,
        };
        if pl.part == self.pid {
            self.queue.push(e);
        } else {
            if key.time() < self.sent_min {
                self.sent_min = key.time();
            }
            self.cross += 1;
            self.out[pl.part as usize].push(e);
        }
    }

    #[inline]
    pub(crate) fn push_local(&mut self, local: u32, key: EventKey, aux: u32, payload: M) {
        self.queue.push(Entry {
            key,
            dst: local,
            aux,
            payload,
        });
    }

    /// Earliest pending timestamp in this partition (`Tick::MAX` if none).
    pub(crate) fn next_time(&self) -> Tick {
        Tick(self.queue.peek_time().min(self.ticks.peek_time()))
    }

    pub(crate) fn wake(&mut self, local: u32, me: u32, clock: ClockDomain, now: Tick) {
        let st = &mut self.st[local as usize];
        if st.tick_pending {
            return;
        }
        let t = clock.edge_at_or_after(now.max(st.next_edge_min));
        if t == Tick::MAX {
            return;
        }
        st.tick_pending = true;
        let seq = st.seq;
        st.seq += 1;
        self.ticks.push(TickEntry {
            key: EventKey::raw(t, EventClass::Tick, me, seq),
            local,
        });
    }

    /// Sets `stop_at` from the pending requests (at the start of a run).
    pub(crate) fn rearm(&mut self, horizon: Tick) {
        self.stop_at = Tick::MAX;
        if let Some(x) = &self.exit {
            self.stop_at = x.key.time().saturating_add(horizon);
        }
        if let (Some(k), true) = (self.released, self.owns_all_primaries && self.held == 0) {
            self.stop_at = self.stop_at.min(k.time().saturating_add(horizon));
        }
    }

    fn fail(&mut self, e: SimError, now: Tick) {
        if self.error.is_none() {
            self.error = Some(e);
        }
        self.stop_at = self.stop_at.min(now);
    }

    pub(crate) fn fail_send(&mut self, me: u32, port: PortId, now: Tick) {
        self.fail(
            SimError::NotAnOutputPort {
                component: ComponentId(me),
                port,
                tick: now,
            },
            now,
        );
    }

    pub(crate) fn fail_net(&mut self, me: u32, net: NetId, to: ComponentId, now: Tick) {
        self.fail(
            SimError::NotANetMember {
                component: ComponentId(me),
                net,
                to,
                tick: now,
            },
            now,
        );
    }

    pub(crate) fn fail_past(&mut self, me: u32, at: Tick, now: Tick) {
        self.fail(
            SimError::ScheduleInPast {
                component: ComponentId(me),
                at,
                now,
            },
            now,
        );
    }

    pub(crate) fn fail_unclocked(&mut self, me: u32, now: Tick) {
        self.fail(
            SimError::NotClocked {
                component: ComponentId(me),
                tick: now,
            },
            now,
        );
    }

    /// Records an exit request made while handling the event with key `key`: this partition
    /// stops before `key.time() + horizon` (see the exit rule in [`crate::engine`]).
    pub(crate) fn request_exit(&mut self, reason: String, code: i32, key: EventKey, horizon: Tick) {
        // Strictly smaller: of two requests in one handler the first stands.
        if self.exit.as_ref().is_none_or(|x| key < x.key) {
            self.exit = Some(ExitReq { reason, code, key });
        }
        self.stop_at = self.stop_at.min(key.time().saturating_add(horizon));
    }

    pub(crate) fn release_primary(&mut self, local: u32, key: EventKey, horizon: Tick) {
        let st = &mut self.st[local as usize];
        if !st.holding {
            return;
        }
        st.holding = false;
        self.held -= 1;
        if self.held == 0 {
            self.released = Some(self.released.map_or(key, |k| k.max(key)));
            if self.owns_all_primaries {
                self.stop_at = self.stop_at.min(key.time().saturating_add(horizon));
            }
        }
    }

    /// Picks up an exit the handler that just ran for the event with key `key` asked for
    /// through a [`SimHandle`](crate::handle::SimHandle) (see [`Ctx::after_handler`]).
    #[cold]
    pub(crate) fn exit_asked_inside(&mut self, key: EventKey, horizon: Tick) {
        if let Some((reason, code)) = crate::handle::take_exit_asked_inside() {
            self.request_exit(reason, code, key, horizon);
        }
    }
}

impl<M: 'static> Core<M> {
    /// Handles events in key order while their time is below `end` (and below any stop
    /// limit), at most `budget` of them. Returns how many it handled.
    pub(crate) fn process(
        &mut self,
        comps: &mut [Box<dyn Component<M>>],
        tables: &Tables,
        end: Tick,
        budget: u64,
    ) -> u64 {
        let mut n = 0u64;
        while n < budget {
            let limit = end.min(self.stop_at).0;
            if self.ticks.is_empty() {
                let Some(e) = self.queue.pop_before(limit) else {
                    break;
                };
                self.dispatch(comps, tables, e);
            } else {
                // Advance both queues only to the earliest time, so whatever that event
                // schedules can never land before either queue's radix base.
                let t = self.queue.peek_time().min(self.ticks.peek_time());
                if t >= limit {
                    break;
                }
                let ek = self.queue.front(t + 1).map(|e| e.key);
                let tk = self.ticks.front(t + 1).map(|e| e.key);
                let tick_first = match (ek, tk) {
                    (Some(e), Some(t)) => t < e,
                    (None, Some(_)) => true,
                    _ => false,
                };
                if tick_first {
                    let Some(t) = self.ticks.pop_front() else {
                        break;
                    };
                    self.dispatch_tick(comps, tables, t);
                } else {
                    let Some(e) = self.queue.pop_front() else {
                        break;
                    };
                    self.dispatch(comps, tables, e);
                }
            }
            n += 1;
        }
        self.events += n;
        n
    }

    #[inline]
    fn dispatch(&mut self, comps: &mut [Box<dyn Component<M>>], tables: &Tables, e: Entry<M>) {
        let local = e.dst;
        let now = e.key.time();
        self.now = now;
        let st = &mut self.st[local as usize];
        st.trace = e.key.mix_into(st.trace);
        let id = e.aux & 0x3fff_ffff;
        let input = match e.via() {
            Via::Port => Input::Message {
                port: PortId(id),
                msg: e.payload,
            },
            Via::Net => Input::Net {
                net: NetId(id),
                from: ComponentId(e.key.src_raw()),
                msg: e.payload,
            },
            Via::Timer => Input::Timer(e.payload),
            Via::External => Input::External(e.payload),
        };
        let me = self.l2g[local as usize];
        let mut ctx = Ctx {
            core: self,
            tables,
            me,
            local,
            key: e.key,
        };
        comps[local as usize].handle(input, &mut ctx);
        ctx.after_handler();
    }

    fn dispatch_tick(
        &mut self,
        comps: &mut [Box<dyn Component<M>>],
        tables: &Tables,
        t: TickEntry,
    ) {
        let local = t.local;
        let now = t.key.time();
        self.now = now;
        let st = &mut self.st[local as usize];
        st.trace = t.key.mix_into(st.trace);
        st.tick_pending = false;
        st.next_edge_min = now.saturating_add(Tick(1));
        let me = self.l2g[local as usize];
        let mut ctx = Ctx {
            core: self,
            tables,
            me,
            local,
            key: t.key,
        };
        let activity = comps[local as usize].tick(&mut ctx);
        ctx.after_handler();
        if activity == Activity::Active {
            if let Some(clock) = tables.clocks[me as usize] {
                self.wake(local, me, clock, now);
            }
        }
    }
}
