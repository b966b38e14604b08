//! Sync points: a model hook the engine calls at fixed points of simulated time, on one
//! thread, between the events before the point and those at or after it.
//!
//! A model whose components share state outside messages (a GPU's device memory, written by
//! compute units in different partitions) can keep that state deterministic by buffering
//! each component's effects and publishing them only at sync points: within a window
//! between two points nobody sees another component's effects, so the order in which
//! partitions handle their events does not matter. The points are the multiples of a
//! period, the same for every partitioning, and the hook runs with no handler running
//! anywhere (the epoch barrier's leader on several partitions, the run loop on one).
//!
//! The hook is lazy: it runs for point `g` only when an event at or after `g` is about to
//! be handled, with `g` the latest point at or before that event. Several points that pass
//! with no event between them give one call. What it sees is the same on every
//! partitioning: the effects of exactly the events before `g`.

use crate::time::Tick;
use std::fmt;

/// The model's hook and its period.
pub(crate) struct SyncPoints {
    pub(crate) period: Tick,
    pub(crate) hook: Box<dyn FnMut(Tick) + Send>,
}

impl fmt::Debug for SyncPoints {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SyncPoints")
            .field("period", &self.period)
            .finish_non_exhaustive()
    }
}

impl SyncPoints {
    /// The latest point at or before `t`.
    pub(crate) fn floor(&self, t: Tick) -> Tick {
        Tick(t.0 - t.0 % self.period.0)
    }

    /// Called before handling events from `next` on, with `synced` the last point the hook
    /// ran for: runs the hook if `next` is at or past the following point. Returns the
    /// point after the (new) last one: no event at or after it may be handled before the
    /// next call.
    pub(crate) fn before(&mut self, next: Tick, synced: &mut Tick) -> Tick {
        if next != Tick::MAX && next >= synced.saturating_add(self.period) {
            let g = self.floor(next);
            (self.hook)(g);
            *synced = g;
        }
        synced.saturating_add(self.period)
    }
}
