//! The thread-safe handle other threads use to talk to a simulation: inject events, ask it
//! to exit, interrupt it, and hold it open.

use crate::component::ComponentId;
use crate::sync::{lock, wait, Arc, AtomicBool, AtomicU64, Condvar, Mutex, Ordering};
use crate::time::Tick;
use std::cell::{Cell, RefCell};
use std::fmt;

thread_local! {
    /// The address of the [`Control`] of the simulation whose handlers this thread is running
    /// (0 when none): a handle used from inside a handler is recognised by it.
    static INSIDE: Cell<usize> = const { Cell::new(0) };
    /// Whether a handler on this thread asked to exit through a handle (the fast check the
    /// engine makes after each handler).
    static ASKED: Cell<bool> = const { Cell::new(false) };
    /// That request's reason and code (the first one a handler made).
    static ASKED_EXIT: RefCell<Option<(String, i32)>> = const { RefCell::new(None) };
}

/// Whether a handler that just ran asked to exit through a [`SimHandle`]. One thread-local
/// load: the engine calls it after every handler.
#[inline]
pub(crate) fn exit_asked_inside() -> bool {
    ASKED.with(Cell::get)
}

/// Takes the exit a handler asked for through a [`SimHandle`].
pub(crate) fn take_exit_asked_inside() -> Option<(String, i32)> {
    ASKED.with(|a| a.set(false));
    ASKED_EXIT.with(|x| x.borrow_mut().take())
}

/// Marks the current thread as running the handlers of one simulation until dropped.
pub(crate) struct Inside {
    prev: usize,
}

impl Drop for Inside {
    fn drop(&mut self) {
        INSIDE.with(|i| i.set(self.prev));
        // A request a panicking handler left behind must not leak into a later run.
        let _ = take_exit_asked_inside();
    }
}

/// Why a [`SimHandle`] call was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ScheduleError {
    /// The target is not a component of this simulation.
    #[error("no component with id {0}")]
    UnknownComponent(usize),
    /// The requested tick is before the simulation's current time.
    #[error("cannot schedule at {at}: the simulation is already at {now}")]
    InPast {
        /// The requested tick.
        at: Tick,
        /// The simulation's time when the request was made.
        now: Tick,
    },
}

/// An exit request as the engine receives it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Request {
    /// [`SimHandle::request_exit`] won.
    Exit {
        /// The reason given.
        reason: String,
        /// The exit code given.
        code: i32,
    },
    /// [`SimHandle::shutdown`] won.
    Interrupt,
}

/// One injected event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Injection<M> {
    /// Target component.
    pub to: ComponentId,
    /// Explicit tick, or `None` for "as soon as possible".
    pub at: Option<Tick>,
    /// Acceptance order (the sequence number in the ordering key).
    pub seq: u64,
    /// Payload.
    pub msg: M,
}

/// What the engine takes from the handle at a poll.
#[derive(Debug)]
pub struct Taken<M> {
    /// A pending exit or interrupt request (consumed).
    pub request: Option<Request>,
    /// Injected events, in acceptance order.
    pub injections: Vec<Injection<M>>,
}

struct State<M> {
    /// The latched request. It stays latched after a run honors it (so later requests are
    /// refused, making shutdown idempotent and a racing exit request a no-op) until the next
    /// run starts.
    request: Option<Request>,
    honored: bool,
    injections: Vec<Injection<M>>,
    next_seq: u64,
    holds: usize,
}

pub(crate) struct Control<M> {
    state: Mutex<State<M>>,
    cv: Condvar,
    /// Set under the lock whenever there is something for the engine; lets the engine poll
    /// with one load instead of a lock.
    attention: AtomicBool,
    now: AtomicU64,
    components: usize,
}

/// A cloneable, thread-safe handle to a simulation.
pub struct SimHandle<M> {
    ctl: Arc<Control<M>>,
}

impl<M> Clone for SimHandle<M> {
    fn clone(&self) -> Self {
        SimHandle {
            ctl: self.ctl.clone(),
        }
    }
}

impl<M> fmt::Debug for SimHandle<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SimHandle")
            .field("now", &self.now())
            .finish_non_exhaustive()
    }
}

impl<M> SimHandle<M> {
    /// A handle not attached to an engine, for `components` components. Simulations make
    /// their own; this exists for concurrency models of the handle (see `loom-tests`).
    #[doc(hidden)]
    pub fn detached(components: usize) -> SimHandle<M> {
        SimHandle::with_first_seq(components, 0)
    }

    /// A handle whose injections are numbered from `first_seq` (after the topology's initial
    /// events, which share their ordering-key sequence space).
    pub(crate) fn with_first_seq(components: usize, first_seq: u64) -> SimHandle<M> {
        SimHandle {
            ctl: Arc::new(Control {
                state: Mutex::new(State {
                    request: None,
                    honored: false,
                    injections: Vec::new(),
                    next_seq: first_seq,
                    holds: 0,
                }),
                cv: Condvar::new(),
                attention: AtomicBool::new(false),
                now: AtomicU64::new(0),
                components,
            }),
        }
    }

    fn control_addr(&self) -> usize {
        &*self.ctl as *const Control<M> as usize
    }

    /// Engine side: marks the calling thread as running this simulation's handlers, so that
    /// [`SimHandle::request_exit`] called from one of them becomes a deterministic in-model
    /// request. Undone when the guard drops.
    pub(crate) fn enter(&self) -> Inside {
        let _ = take_exit_asked_inside();
        Inside {
            prev: INSIDE.with(|i| i.replace(self.control_addr())),
        }
    }

    /// The simulation's time as of its last synchronization point.
    pub fn now(&self) -> Tick {
        Tick(self.ctl.now.load(Ordering::Acquire))
    }

    fn inject(&self, to: ComponentId, at: Option<Tick>, msg: M) -> Result<(), ScheduleError> {
        if to.index() >= self.ctl.components {
            return Err(ScheduleError::UnknownComponent(to.index()));
        }
        let mut g = lock(&self.ctl.state);
        if let Some(at) = at {
            // Read under the lock: the engine publishes time under it too, so this check and
            // the engine's draining agree on what "past" means.
            let now = self.now();
            if at < now {
                return Err(ScheduleError::InPast { at, now });
            }
        }
        let seq = g.next_seq;
        g.next_seq += 1;
        g.injections.push(Injection { to, at, seq, msg });
        self.ctl.attention.store(true, Ordering::Release);
        drop(g);
        self.ctl.cv.notify_all();
        Ok(())
    }

    /// Injects `msg` for component `to` at tick `at` (which must not be in the past).
    ///
    /// The engine picks injections up at its next synchronization point; one that arrives after
    /// the engine has already passed `at` is delivered at the earliest time still possible
    /// and counted in [`EngineStats::late_injections`](crate::stats::EngineStats).
    pub fn schedule_async(&self, to: ComponentId, at: Tick, msg: M) -> Result<(), ScheduleError> {
        self.inject(to, Some(at), msg)
    }

    /// Injects `msg` for component `to` as soon as the engine can deliver it.
    pub fn schedule_now(&self, to: ComponentId, msg: M) -> Result<(), ScheduleError> {
        self.inject(to, None, msg)
    }

    /// Asks the running (or next) run to stop with
    /// [`ExitStatus::ExitRequested`](crate::engine::ExitStatus).
    ///
    /// From another thread the request is timing-dependent: the engine honors it at its next
    /// synchronization point (an epoch boundary; every few thousand events on one partition),
    /// wherever the simulation has got to. Returns whether this request took effect: false if
    /// an exit or interrupt is already pending, or was honored by the run that is ending
    /// (requests are re-armed when the next run starts).
    ///
    /// From inside a component's handler (on the thread running it) the call is the same as
    /// [`Ctx::request_exit`](crate::component::Ctx::request_exit): a deterministic request made
    /// at the time and ordering key of the event being handled, honored by the exit rule
    /// described in [`crate::engine`]. It then returns true unless the same handler already
    /// asked.
    pub fn request_exit(&self, reason: impl Into<String>, code: i32) -> bool {
        if INSIDE.with(Cell::get) == self.control_addr() {
            return ASKED_EXIT.with(|x| {
                let mut x = x.borrow_mut();
                if x.is_some() {
                    return false;
                }
                *x = Some((reason.into(), code));
                ASKED.with(|a| a.set(true));
                true
            });
        }
        self.request(Request::Exit {
            reason: reason.into(),
            code,
        })
    }

    /// Interrupts the running (or next) run: it stops at its next synchronization point with
    /// [`ExitStatus::Interrupted`](crate::engine::ExitStatus). Idempotent, and safe to race
    /// with [`SimHandle::request_exit`]: whichever comes first wins, the other does nothing.
    /// Returns whether this call took effect.
    pub fn shutdown(&self) -> bool {
        self.request(Request::Interrupt)
    }

    fn request(&self, r: Request) -> bool {
        let mut g = lock(&self.ctl.state);
        if g.request.is_some() {
            return false;
        }
        g.request = Some(r);
        self.ctl.attention.store(true, Ordering::Release);
        drop(g);
        self.ctl.cv.notify_all();
        true
    }

    /// Holds the simulation open: while a guard lives, running out of events does not end a
    /// run; the engine waits for injections instead. Dropping the guard releases it; like
    /// every call from another thread, that is seen at the engine's next synchronization
    /// point, so when exactly the run then ends depends on thread timing.
    pub fn hold(&self) -> PrimaryGuard<M> {
        let mut g = lock(&self.ctl.state);
        g.holds += 1;
        drop(g);
        PrimaryGuard { h: self.clone() }
    }

    /// Number of live [`PrimaryGuard`]s.
    pub fn holds(&self) -> usize {
        lock(&self.ctl.state).holds
    }

    /// Engine side: takes pending injections and, if `honor`, the latched request not yet
    /// honored (marking it honored). Cheap when nothing is pending.
    #[doc(hidden)]
    pub fn take(&self, honor: bool) -> Option<Taken<M>> {
        if !self.ctl.attention.load(Ordering::Acquire) {
            return None;
        }
        let mut g = lock(&self.ctl.state);
        let request = if honor && !g.honored {
            g.honored = g.request.is_some();
            g.request.clone()
        } else {
            None
        };
        // A request left for a later `take(true)` keeps the engine's attention.
        let keep = !honor && g.request.is_some() && !g.honored;
        self.ctl.attention.store(keep, Ordering::Relaxed);
        Some(Taken {
            request,
            injections: std::mem::take(&mut g.injections),
        })
    }

    /// Engine side, when a run starts: forgets a request an earlier run already honored, so
    /// new requests can be made.
    #[doc(hidden)]
    pub fn rearm(&self) {
        let mut g = lock(&self.ctl.state);
        if g.honored {
            g.request = None;
            g.honored = false;
        }
    }

    /// Engine side: blocks while the simulation is held open and nothing has arrived.
    /// Returns immediately if nothing holds it.
    #[doc(hidden)]
    pub fn wait_idle(&self) {
        let mut g = lock(&self.ctl.state);
        while g.holds > 0 && (g.request.is_none() || g.honored) && g.injections.is_empty() {
            g = wait(&self.ctl.cv, g);
        }
    }

    /// The sequence number the next injection will get (checkpointed).
    pub(crate) fn next_seq(&self) -> u64 {
        lock(&self.ctl.state).next_seq
    }

    /// Injections the engine has not taken yet (they belong in a checkpoint: the next run
    /// would have delivered them).
    pub(crate) fn pending_injections(&self) -> Vec<Injection<M>>
    where
        M: Clone,
    {
        lock(&self.ctl.state).injections.clone()
    }

    /// On restore: numbers injections from `seq` on and drops those not taken yet (they were
    /// made for the state being replaced).
    pub(crate) fn reset_injections(&self, seq: u64) {
        let mut g = lock(&self.ctl.state);
        g.next_seq = seq;
        g.injections.clear();
    }

    /// Engine side: publishes the simulation's time.
    #[doc(hidden)]
    pub fn publish_now(&self, now: Tick) {
        let g = lock(&self.ctl.state);
        self.ctl.now.store(now.0, Ordering::Release);
        drop(g);
    }
}

/// Keeps a simulation open until dropped (see [`SimHandle::hold`]).
pub struct PrimaryGuard<M> {
    h: SimHandle<M>,
}

impl<M> fmt::Debug for PrimaryGuard<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PrimaryGuard")
    }
}

impl<M> PrimaryGuard<M> {
    /// Releases the hold (same as dropping the guard).
    pub fn release(self) {}
}

impl<M> Drop for PrimaryGuard<M> {
    fn drop(&mut self) {
        let mut g = lock(&self.h.ctl.state);
        g.holds = g.holds.saturating_sub(1);
        self.h.ctl.attention.store(true, Ordering::Release);
        drop(g);
        self.h.ctl.cv.notify_all();
    }
}
