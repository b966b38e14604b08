//! The multi-partition run: one worker thread per partition, synchronized in LBTS epochs.

use super::{
    local_stop, place_injections, request_status, CompletionReason, ExitStatus, Part, SimError,
    Simulation, Tables,
};
use crate::epoch::EpochBarrier;
use crate::event::Entry;
use crate::handle::{Request, SimHandle};
use crate::sync::{lock, Mutex};
use crate::time::Tick;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

/// Most events a worker handles between two barriers.
const EPOCH_BUDGET: u64 = 1 << 16;

/// What a worker brings to the epoch barrier.
#[derive(Debug, Clone, Copy)]
struct Contrib {
    /// Lower bound on anything this partition can still cause: its next event and the
    /// earliest message it sent during the epoch just finished.
    next: Tick,
    /// A local stop condition (error or exit) was hit.
    stop: bool,
    /// Primaries of this partition still holding.
    held: u32,
    /// Time of the last event this partition handled.
    now: Tick,
}

#[derive(Debug, Clone)]
enum Outcome {
    Local,
    Completed(CompletionReason),
    MaxTick,
    Request(Request),
}

#[derive(Debug, Clone)]
enum Decision {
    Run { window_end: Tick },
    Stop(Outcome),
}

/// State only the barrier leader touches.
#[derive(Debug)]
struct Leader {
    /// Everything before this has been (or may have been) handled somewhere.
    frontier: Tick,
    epochs: u64,
    late: u64,
    outcome: Option<Outcome>,
}

struct Shared<'a, M> {
    tables: &'a Tables,
    handle: &'a SimHandle<M>,
    parts: usize,
    end: Tick,
    barrier: EpochBarrier<Leader, Contrib, Decision>,
    /// Cross-partition buffers, `[parity][src][dst]`: a worker writes the buffers of one
    /// parity while the receivers drain the other, so an epoch's sends never mix with the
    /// previous epoch's.
    slots: Vec<Mutex<Vec<Entry<M>>>>,
    /// Injections the leader placed for each partition.
    inject: Vec<Mutex<Vec<Entry<M>>>>,
}

impl<M> Shared<'_, M> {
    fn slot(&self, parity: usize, src: usize, dst: usize) -> &Mutex<Vec<Entry<M>>> {
        &self.slots[(parity * self.parts + src) * self.parts + dst]
    }

    fn decide(&self, st: &mut Leader, cs: &[Contrib]) -> Decision {
        let d = self.decide_inner(st, cs);
        if let Decision::Stop(o) = &d {
            st.outcome = Some(o.clone());
        }
        d
    }

    fn decide_inner(&self, st: &mut Leader, cs: &[Contrib]) -> Decision {
        let mut lbts = cs.iter().map(|c| c.next).min().unwrap_or(Tick::MAX);
        // Injections go at the latest time any partition has reached: in nobody's past.
        let reached = cs.iter().map(|c| c.now).max().unwrap_or(Tick::ZERO);
        st.frontier = st.frontier.max(reached);
        loop {
            if let Some(taken) = self.handle.take(true) {
                let inject = &self.inject;
                let (min, late) =
                    place_injections(self.tables, taken.injections, st.frontier, |p, e| {
                        lock(&inject[p as usize]).push(e)
                    });
                st.late += late;
                lbts = lbts.min(min);
                if let Some(r) = taken.request {
                    return Decision::Stop(Outcome::Request(r));
                }
            }
            if cs.iter().any(|c| c.stop) {
                return Decision::Stop(Outcome::Local);
            }
            if self.tables.primaries > 0 && cs.iter().map(|c| c.held).sum::<u32>() == 0 {
                return Decision::Stop(Outcome::Completed(CompletionReason::PrimariesReleased));
            }
            if lbts != Tick::MAX {
                break;
            }
            if self.handle.holds() == 0 {
                return Decision::Stop(Outcome::Completed(CompletionReason::Quiescent));
            }
            self.handle.wait_idle();
        }
        if lbts >= self.end {
            return Decision::Stop(Outcome::MaxTick);
        }
        let window_end = lbts.saturating_add(self.tables.lookahead).min(self.end);
        st.epochs += 1;
        self.handle.publish_now(lbts);
        Decision::Run { window_end }
    }
}

fn worker<M: Send + 'static>(sh: &Shared<'_, M>, pid: usize, part: &mut Part<M>) {
    let Part { comps, core } = part;
    let mut contrib = Contrib {
        next: core.next_time(),
        stop: core.wants_stop(),
        held: core.held,
        now: core.now,
    };
    let mut parity = 0usize;
    loop {
        let t0 = Instant::now();
        let d = sh.barrier.arrive(pid, contrib, |st, cs| sh.decide(st, cs));
        core.barrier_wait += t0.elapsed();
        // Merge what the others sent during the epoch that just ended, and injections.
        let prev = parity ^ 1;
        for src in 0..sh.parts {
            if src != pid {
                let mut g = lock(sh.slot(prev, src, pid));
                core.queue.extend(g.drain(..));
            }
        }
        core.queue.extend(lock(&sh.inject[pid]).drain(..));
        let Some(Decision::Run { window_end }) = d else {
            break;
        };
        // The budget bounds the time between barriers (so requests are seen) when the window
        // is wide or unbounded. Stopping early is safe: this partition's next event becomes
        // the LBTS, and anything it sends still lands at or after the window others used.
        core.process(comps, sh.tables, window_end, EPOCH_BUDGET);
        for dst in 0..sh.parts {
            let out = &mut core.out[dst];
            if out.is_empty() {
                continue;
            }
            let mut g = lock(sh.slot(parity, pid, dst));
            if g.is_empty() {
                // Hand the filled buffer over and keep the receiver's drained one, so both
                // keep their capacity.
                std::mem::swap(&mut *g, out);
            } else {
                g.append(out);
            }
        }
        contrib = Contrib {
            next: core.next_time().min(core.sent_min),
            stop: core.wants_stop(),
            held: core.held,
            now: core.now,
        };
        core.sent_min = Tick::MAX;
        parity ^= 1;
    }
}

pub(crate) fn run<M: Send + 'static>(
    sim: &mut Simulation<M>,
    end: Tick,
    limit: Tick,
) -> Result<ExitStatus, SimError> {
    let n = sim.parts.len();
    let Simulation {
        tables,
        parts,
        handle,
        frontier,
        ..
    } = sim;
    let sh = Shared {
        tables,
        handle,
        parts: n,
        end,
        barrier: EpochBarrier::new(
            n,
            Contrib {
                next: Tick::MAX,
                stop: false,
                held: 0,
                now: Tick::ZERO,
            },
            Leader {
                frontier: *frontier,
                epochs: 0,
                late: 0,
                outcome: None,
            },
        ),
        slots: (0..2 * n * n).map(|_| Mutex::new(Vec::new())).collect(),
        inject: (0..n).map(|_| Mutex::new(Vec::new())).collect(),
    };
    let mut panicked = None;
    std::thread::scope(|s| {
        let handles: Vec<_> = parts
            .iter_mut()
            .enumerate()
            .map(|(pid, part)| {
                let sh = &sh;
                s.spawn(move || {
                    let r = catch_unwind(AssertUnwindSafe(|| worker(sh, pid, part)));
                    if r.is_err() {
                        sh.barrier.abort();
                    }
                    r.is_ok()
                })
            })
            .collect();
        for (pid, h) in handles.into_iter().enumerate() {
            if !h.join().unwrap_or(false) && panicked.is_none() {
                panicked = Some(pid);
            }
        }
    });
    let (outcome, epochs, late, leader_frontier) = sh
        .barrier
        .with_state(|st| (st.outcome.take(), st.epochs, st.late, st.frontier));
    drop(sh);
    sim.epochs += epochs;
    sim.late += late;
    if let Some(partition) = panicked {
        return Err(SimError::WorkerPanicked { partition });
    }
    // Anything still buffered (a run that stopped early) goes back into the queues.
    sim.merge_outboxes();
    // Errors first, then the earliest component exit, in partition order for ties.
    let mut exit: Option<ExitStatus> = None;
    for p in &mut sim.parts {
        let primaries = sim.tables.primaries;
        if let Some(s) = local_stop(&mut p.core, primaries)? {
            if exit.as_ref().is_none_or(|e| s.tick() < e.tick()) {
                exit = Some(s);
            }
        }
        p.core.stop_at = Tick::MAX;
    }
    let now = sim.now();
    let status = match outcome {
        Some(Outcome::Request(r)) => {
            sim.frontier = leader_frontier;
            request_status(r, now)
        }
        Some(Outcome::MaxTick) => {
            sim.frontier = end;
            for p in &mut sim.parts {
                p.core.now = limit;
            }
            ExitStatus::MaxTick { tick: limit }
        }
        Some(Outcome::Completed(reason)) => {
            sim.frontier = leader_frontier;
            ExitStatus::Completed { reason, tick: now }
        }
        Some(Outcome::Local) | None => {
            sim.frontier = leader_frontier;
            exit.unwrap_or(ExitStatus::Interrupted { tick: now })
        }
    };
    Ok(status)
}
