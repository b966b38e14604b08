//! The multi-partition run: one worker thread per partition, synchronized in LBTS epochs.

use super::stop::ModelStop;
use super::syncpoint::SyncPoints;
use super::worker::Core;
use super::{
    place_injections, request_status, CompletionReason, ExitStatus, Part, SimError, Simulation,
    Tables,
};
use crate::epoch::EpochBarrier;
use crate::event::{Entry, EventKey};
use crate::handle::{Request, SimHandle};
use crate::sync::{lock, run_threads, Job, Mutex};
use crate::time::Tick;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

/// Most events a worker handles between two barriers.
pub(crate) const EPOCH_BUDGET: u64 = 1 << 16;

/// What a worker brings to the epoch barrier.
#[derive(Debug, Clone, Copy)]
struct Contrib {
    /// Lower bound on anything this partition can still cause: its next event and the
    /// earliest message it sent during the epoch just finished.
    next: Tick,
    /// A component misused its context: the run stops with that error.
    error: bool,
    /// Primaries of this partition still holding.
    held: u32,
    /// Time of the last event this partition handled.
    now: Tick,
    /// Key of this partition's earliest pending exit request.
    exit: Option<EventKey>,
    /// Key of the release of this partition's last primary, while pending.
    released: Option<EventKey>,
}

impl Contrib {
    fn of<M>(core: &Core<M>, next: Tick) -> Contrib {
        Contrib {
            next,
            error: core.error.is_some(),
            held: core.held,
            now: core.now,
            exit: core.exit.as_ref().map(|x| x.key),
            released: core.released,
        }
    }
}

#[derive(Debug, Clone)]
enum Outcome {
    /// A partition hit an error.
    Error,
    Completed(CompletionReason),
    MaxTick,
    Request(Request),
    /// A stop the model asked for (exit request or primaries released), due now.
    Model(ModelStop),
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
    /// The model's sync points (lent by the simulation for the run) and the last one synced.
    sync: Option<SyncPoints>,
    synced: Tick,
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
        let model = ModelStop::pick(
            cs.iter().filter_map(|c| c.exit).min(),
            self.tables.primaries > 0 && cs.iter().all(|c| c.held == 0),
            cs.iter().filter_map(|c| c.released).max(),
        );
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
            if cs.iter().any(|c| c.error) {
                return Decision::Stop(Outcome::Error);
            }
            // Every event before the winning stop's cap has been handled once nothing
            // earlier is pending or in flight anywhere.
            if let Some(s) = model {
                if lbts >= s.cap(self.tables.horizon) {
                    return Decision::Stop(Outcome::Model(s));
                }
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
        // Never wider than the exit horizon: a stop requested inside this window must find
        // every partition short of its cap (see the exit rule in `crate::engine`).
        let width = self.tables.lookahead.min(self.tables.horizon);
        let mut window_end = lbts.saturating_add(width).min(self.end);
        if let Some(s) = model {
            window_end = window_end.min(s.cap(self.tables.horizon));
        }
        // Every event before `lbts` has been handled everywhere and none after: the sync
        // point, if one was crossed, and a window that stops at the next one.
        if let Some(sp) = st.sync.as_mut() {
            window_end = window_end.min(sp.before(lbts, &mut st.synced));
        }
        st.epochs += 1;
        self.handle.publish_now(lbts);
        Decision::Run { window_end }
    }
}

fn worker<M: Send + 'static>(sh: &Shared<'_, M>, pid: usize, part: &mut Part<M>) {
    let Part { comps, core } = part;
    let _inside = sh.handle.enter();
    let mut contrib = Contrib::of(core, core.next_time());
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
        contrib = Contrib::of(core, core.next_time().min(core.sent_min));
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
    let (sync, synced) = (sim.sync.take(), sim.synced);
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
                error: false,
                held: 0,
                now: Tick::ZERO,
                exit: None,
                released: None,
            },
            Leader {
                frontier: *frontier,
                epochs: 0,
                late: 0,
                outcome: None,
                sync,
                synced,
            },
        ),
        slots: (0..2 * n * n).map(|_| Mutex::new(Vec::new())).collect(),
        inject: (0..n).map(|_| Mutex::new(Vec::new())).collect(),
    };
    let jobs: Vec<Job<'_>> = parts
        .iter_mut()
        .enumerate()
        .map(|(pid, part)| {
            let sh = &sh;
            Box::new(move || {
                let r = catch_unwind(AssertUnwindSafe(|| worker(sh, pid, part)));
                if r.is_err() {
                    sh.barrier.abort();
                }
                r.is_ok()
            }) as Job<'_>
        })
        .collect();
    let panicked = run_threads(jobs).iter().position(|ok| !ok);
    let (outcome, epochs, late, leader_frontier, sync, synced) = sh.barrier.with_state(|st| {
        (
            st.outcome.take(),
            st.epochs,
            st.late,
            st.frontier,
            st.sync.take(),
            st.synced,
        )
    });
    drop(sh);
    (sim.sync, sim.synced) = (sync, synced);
    sim.epochs += epochs;
    sim.late += late;
    if let Some(partition) = panicked {
        return Err(SimError::WorkerPanicked { partition });
    }
    // Anything still buffered (a run that stopped early) goes back into the queues.
    sim.merge_outboxes();
    // Errors first, in partition order.
    for p in &mut sim.parts {
        if let Some(e) = p.core.error.take() {
            return Err(e);
        }
    }
    let now = sim.now();
    sim.frontier = leader_frontier;
    let status = match outcome {
        Some(Outcome::Request(r)) => request_status(r, now),
        Some(Outcome::MaxTick) => {
            sim.frontier = end;
            for p in &mut sim.parts {
                p.core.now = limit;
            }
            ExitStatus::MaxTick { tick: limit }
        }
        Some(Outcome::Completed(reason)) => ExitStatus::Completed { reason, tick: now },
        Some(Outcome::Model(s)) => sim.honor(s),
        // An error was reported above; `None` only follows an abort, which is a panic.
        Some(Outcome::Error) | None => ExitStatus::Interrupted { tick: now },
    };
    Ok(status)
}
