//! The epoch exchange: a reusable barrier that also reduces every worker's contribution
//! (its lower bound on future timestamps, LBTS) into one decision all workers share.
//!
//! The last worker to arrive runs the decision function on everyone's contributions while
//! the others wait, then releases them all with the same result. Workers spin briefly before
//! sleeping because partners usually arrive within microseconds.

use crate::sync::{lock, spin_hint, wait, AtomicBool, AtomicU64, Condvar, Mutex, Ordering};
use std::fmt;

struct Inner<S, C, D> {
    arrived: usize,
    generation: u64,
    contribs: Vec<C>,
    state: S,
    result: Option<D>,
}

/// A barrier for `parties` workers that reduces their contributions of type `C` with shared
/// leader state `S` into a decision `D`.
pub struct EpochBarrier<S, C, D> {
    parties: usize,
    generation: AtomicU64,
    aborted: AtomicBool,
    inner: Mutex<Inner<S, C, D>>,
    cv: Condvar,
}

impl<S, C, D> fmt::Debug for EpochBarrier<S, C, D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EpochBarrier")
            .field("parties", &self.parties)
            .finish_non_exhaustive()
    }
}

impl<S, C: Copy, D: Clone> EpochBarrier<S, C, D> {
    /// A barrier for `parties` workers (at least 1); `init` fills the contribution slots.
    pub fn new(parties: usize, init: C, state: S) -> Self {
        let parties = parties.max(1);
        EpochBarrier {
            parties,
            generation: AtomicU64::new(0),
            aborted: AtomicBool::new(false),
            inner: Mutex::new(Inner {
                arrived: 0,
                generation: 0,
                contribs: vec![init; parties],
                state,
                result: None,
            }),
            cv: Condvar::new(),
        }
    }

    /// Arrives as worker `who` with contribution `c`. The last to arrive calls
    /// `decide(state, contributions)` (contributions indexed by worker); everyone returns its
    /// result. Returns `None` once the barrier has been aborted.
    pub fn arrive(&self, who: usize, c: C, decide: impl FnOnce(&mut S, &[C]) -> D) -> Option<D> {
        let mut g = lock(&self.inner);
        if self.aborted.load(Ordering::Acquire) {
            return None;
        }
        let my_gen = g.generation;
        g.contribs[who.min(self.parties - 1)] = c;
        g.arrived += 1;
        if g.arrived == self.parties {
            let inner = &mut *g;
            let d = decide(&mut inner.state, &inner.contribs);
            inner.result = Some(d.clone());
            inner.arrived = 0;
            inner.generation += 1;
            self.generation.store(inner.generation, Ordering::Release);
            drop(g);
            self.cv.notify_all();
            return Some(d);
        }
        drop(g);
        let mut round = 0;
        while self.generation.load(Ordering::Acquire) == my_gen
            && !self.aborted.load(Ordering::Acquire)
            && spin_hint(round)
        {
            round += 1;
        }
        let mut g = lock(&self.inner);
        while g.generation == my_gen {
            if self.aborted.load(Ordering::Acquire) {
                return None;
            }
            g = wait(&self.cv, g);
        }
        // The result stays until the next generation completes, which needs us to arrive.
        g.result.clone()
    }

    /// Releases every waiter with `None`, now and for all later arrivals (a worker failed).
    pub fn abort(&self) {
        let g = lock(&self.inner);
        self.aborted.store(true, Ordering::Release);
        drop(g);
        self.cv.notify_all();
    }

    /// Runs `f` on the leader state (between epochs, when no worker is inside).
    pub fn with_state<R>(&self, f: impl FnOnce(&mut S) -> R) -> R {
        f(&mut lock(&self.inner).state)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn reduces_min_over_many_epochs() {
        let b = EpochBarrier::new(3, u64::MAX, 0u64);
        std::thread::scope(|s| {
            for w in 0..3u64 {
                let b = &b;
                s.spawn(move || {
                    for epoch in 0..200u64 {
                        let got = b
                            .arrive(w as usize, epoch * 10 + w, |st, cs| {
                                *st += 1;
                                cs.iter().copied().min().unwrap()
                            })
                            .unwrap();
                        assert_eq!(got, epoch * 10);
                    }
                });
            }
        });
        assert_eq!(b.with_state(|s| *s), 200);
    }

    #[test]
    fn abort_releases_waiters() {
        let b = EpochBarrier::new(2, 0u8, ());
        std::thread::scope(|s| {
            let h = s.spawn(|| b.arrive(0, 1, |_, _| 0u8));
            b.abort();
            assert_eq!(h.join().unwrap(), None);
        });
        assert_eq!(b.arrive(1, 1, |_, _| 0u8), None);
    }
}
