//! The distributed run: the engine's LBTS epochs with the barrier stretched over ranks.
//!
//! Within a rank this is `engine::parallel` (same contribution, same windows, the same
//! double-buffered slots between local partitions). The barrier's decision function is where
//! the ranks meet: it sums up this rank's workers into one row, sends every other rank that
//! row with the epoch's messages for it and receives theirs (one point-to-point message each
//! way), and then decides exactly as the threaded leader does, from data that is the same on
//! every rank.

use super::{wire, Cluster, DistError, DistSim};
use crate::engine::parallel::EPOCH_BUDGET;
use crate::engine::stop::ModelStop;
use crate::engine::syncpoint::SyncPoints;
use crate::engine::worker::Core;
use crate::engine::Tables;
use crate::engine::{
    place_injections, request_status, CompletionReason, ExitStatus, Part, SimError, Simulation,
};
use crate::epoch::EpochBarrier;
use crate::event::{Entry, EventKey};
use crate::handle::{Request, SimHandle};
use crate::sync::{lock, run_threads, Job, Mutex};
use crate::time::Tick;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

/// What a worker brings to its rank's barrier (as in `engine::parallel`, plus failures).
#[derive(Debug, Clone, Copy)]
struct Contrib {
    next: Tick,
    /// Global index of the worker's partition (`usize::MAX` for a rank with none).
    part: usize,
    error: bool,
    panicked: bool,
    /// Messages it received could not be decoded, or its sends encoded.
    broken: bool,
    held: u32,
    now: Tick,
    exit: Option<EventKey>,
    released: Option<EventKey>,
}

impl Contrib {
    fn idle() -> Contrib {
        Contrib {
            next: Tick::MAX,
            part: usize::MAX,
            error: false,
            panicked: false,
            broken: false,
            held: 0,
            now: Tick::ZERO,
            exit: None,
            released: None,
        }
    }

    fn of<M>(core: &Core<M>, part: usize, next: Tick, panicked: bool, broken: bool) -> Contrib {
        Contrib {
            next,
            part,
            error: core.error.is_some(),
            panicked,
            broken,
            held: core.held,
            now: core.now,
            exit: core.exit.as_ref().map(|x| x.key),
            released: core.released,
        }
    }
}

// A rank's row, at the head of its epoch message to every other rank.
const NEXT: usize = 0;
const FLAGS: usize = 1;
const HELD: usize = 2;
const NOW: usize = 3;
const EXIT: usize = 4; // and 5
const RELEASED: usize = 6; // and 7
const ERROR_PART: usize = 8;
const PANIC_PART: usize = 9;
const ROW: usize = 10;

const F_EXIT: u64 = 1;
const F_RELEASED: u64 = 2;
const F_REQUEST: u64 = 4;
const F_INJECTED: u64 = 8;
const F_BROKEN: u64 = 16;
const F_HOLDS: u64 = 32;
/// More than MPI's 32-bit count for one rank: nothing sent, every rank stops.
const F_TOO_BIG: u64 = 64;

/// The tag of the epoch messages (the only point-to-point traffic on the world
/// communicator; MPI keeps messages between two ranks with one tag in order, so epoch `e`'s
/// is the `e`-th).
const EPOCH_TAG: mpi::Tag = 0x51e7;

#[derive(Debug, Clone)]
enum Outcome {
    /// A partition's run error: the lowest such partition and its rank.
    Error {
        rank: usize,
        part: usize,
    },
    Completed(CompletionReason),
    MaxTick,
    /// A request from another thread, made on `rank`.
    Request {
        rank: usize,
    },
    /// A stop the model asked for; for an exit, the rank that holds its reason.
    Model(ModelStop, usize),
    Failed(DistError),
}

/// State only the rank's leader touches.
struct Leader {
    frontier: Tick,
    epochs: u64,
    /// Time spent in the MPI exchanges (waiting for the other ranks included).
    mpi_time: Duration,
    /// Time spent in the sync-point hook (its own exchanges included).
    sync_time: Duration,
    outcome: Option<Outcome>,
    sync: Option<SyncPoints>,
    synced: Tick,
    /// The latest time any partition anywhere has reached.
    reached: Tick,
    /// A request taken from this rank's handle.
    request: Option<Request>,
    /// Messages this rank received could not be handed over (reported at the next barrier).
    broken: bool,
    row: Vec<u64>,
    /// Every rank's row, in rank order.
    all: Vec<u64>,
    /// By rank: the epoch message for it (this rank's row, then its records).
    send: Vec<Vec<u8>>,
    /// By rank: its epoch message to this rank.
    recv: Vec<Vec<u8>>,
}

/// The cluster, for the barrier leader's decision function only.
struct LeaderComm<'a>(&'a Cluster);

// SAFETY: MPI communicators are raw handles that rsmpi leaves `!Sync`, because MPI calls
// from several threads at once need MPI_THREAD_MULTIPLE. `Cluster::init` asks for and checks
// MPI_THREAD_SERIALIZED, which allows calls from any thread as long as no two overlap. Only
// `Shared::decide` (and what it calls) uses this, and `EpochBarrier::arrive` runs the
// decision function under the barrier's mutex, one thread at a time; the thread that owns
// the `Cluster` makes no MPI call until `run_threads` has joined every worker.
unsafe impl Sync for LeaderComm<'_> {}

struct Shared<'a, M> {
    tables: &'a Tables,
    handle: &'a SimHandle<M>,
    /// Only for the leader (see [`LeaderComm`]).
    comm: LeaderComm<'a>,
    /// This rank and the number of ranks.
    rank: usize,
    size: usize,
    rank_of: &'a [usize],
    local: &'a [usize],
    /// By partition: its worker index on this rank (`usize::MAX` for other ranks').
    widx: Vec<usize>,
    end: Tick,
    barrier: EpochBarrier<Leader, Contrib, Option<Tick>>,
    /// Between local workers, `[parity][src][dst]`, as in `engine::parallel`.
    slots: Vec<Mutex<Vec<Entry<M>>>>,
    /// By worker, by destination rank: records sent during the epoch.
    wire_out: Vec<Mutex<Vec<Vec<u8>>>>,
    /// By worker: records received for its partition.
    wire_in: Vec<Mutex<Vec<u8>>>,
}

impl<M> Shared<'_, M> {
    fn slot(&self, parity: usize, src: usize, dst: usize) -> &Mutex<Vec<Entry<M>>> {
        let n = self.local.len();
        &self.slots[(parity * n + src) * n + dst]
    }

    fn decide(&self, st: &mut Leader, cs: &[Contrib]) -> Option<Tick> {
        let d = self.decide_inner(st, cs);
        match d {
            Ok(w) => Some(w),
            Err(o) => {
                st.outcome = Some(o);
                None
            }
        }
    }

    /// This rank's row from its workers' contributions and its handle, and what it sends to
    /// each other rank: the row, then every worker's records for that rank, in worker order.
    fn fill_row(&self, st: &mut Leader, cs: &[Contrib]) {
        let mut flags = 0;
        let (mut next, mut now, mut held) = (Tick::MAX, Tick::ZERO, 0u64);
        let (mut exit, mut released) = (None::<EventKey>, None::<EventKey>);
        let (mut error_part, mut panic_part) = (u64::MAX, u64::MAX);
        for c in cs {
            next = next.min(c.next);
            now = now.max(c.now);
            held += c.held as u64;
            if let Some(k) = c.exit {
                exit = Some(exit.map_or(k, |e| e.min(k)));
            }
            if let Some(k) = c.released {
                released = Some(released.map_or(k, |r| r.max(k)));
            }
            if c.error {
                error_part = error_part.min(c.part as u64);
            }
            if c.panicked {
                panic_part = panic_part.min(c.part as u64);
            }
            if c.broken {
                flags |= F_BROKEN;
            }
        }
        if let Some(taken) = self.handle.take(true) {
            if !taken.injections.is_empty() {
                flags |= F_INJECTED;
            }
            if let Some(r) = taken.request {
                st.request = Some(r);
                flags |= F_REQUEST;
            }
        }
        if self.handle.holds() > 0 {
            flags |= F_HOLDS;
        }
        if st.broken {
            flags |= F_BROKEN;
        }
        // MPI counts are 32-bit: a rank with more for one rank sends none of it and says so,
        // and every rank stops at the decision.
        let mut outs: Vec<_> = self.wire_out.iter().map(lock).collect();
        let limit = i32::MAX as usize - ROW * 8;
        if (0..self.size).any(|r| outs.iter().map(|o| o[r].len()).sum::<usize>() > limit) {
            flags |= F_TOO_BIG;
        }
        let (exit_w, released_w) = (
            exit.map_or((0, 0), EventKey::to_words),
            released.map_or((0, 0), EventKey::to_words),
        );
        flags |= if exit.is_some() { F_EXIT } else { 0 };
        flags |= if released.is_some() { F_RELEASED } else { 0 };
        st.row.clear();
        st.row.extend_from_slice(&[
            next.0,
            flags,
            held,
            now.0,
            exit_w.0,
            exit_w.1,
            released_w.0,
            released_w.1,
            error_part,
            panic_part,
        ]);
        debug_assert_eq!(st.row.len(), ROW);
        for (r, send) in st.send.iter_mut().enumerate() {
            send.clear();
            if r == self.rank {
                continue;
            }
            for w in &st.row {
                send.extend_from_slice(&w.to_le_bytes());
            }
            for o in outs.iter_mut() {
                if flags & F_TOO_BIG == 0 {
                    send.extend_from_slice(&o[r]);
                }
                o[r].clear();
            }
        }
    }

    /// The epoch's one round with the other ranks: every rank sends every other rank its
    /// row and the messages for it (one point-to-point message each way, so the LBTS
    /// reduction travels with the messages), takes the rows into `st.all` and hands the
    /// messages to the workers.
    fn exchange(&self, st: &mut Leader) {
        let (size, me) = (self.size, self.rank);
        let Leader {
            row,
            all,
            send,
            recv,
            ..
        } = st;
        all.clear();
        all.resize(size * ROW, 0);
        all[me * ROW..(me + 1) * ROW].copy_from_slice(row);
        let world = &self.comm.0.world;
        let mut malformed = None;
        let sends: Vec<&[u8]> = send.iter().map(Vec::as_slice).collect();
        super::swap_with_all(world, me, EPOCH_TAG, &sends, recv);
        for r in (0..size).filter(|&r| r != me) {
            let buf = &recv[r];
            if buf.len() < ROW * 8 {
                malformed = Some(r);
                continue;
            }
            for (i, w) in buf[..ROW * 8].chunks_exact(8).enumerate() {
                let mut b = [0u8; 8];
                b.copy_from_slice(w);
                all[r * ROW + i] = u64::from_le_bytes(b);
            }
        }
        if let Some(r) = malformed {
            // The rows are what every rank decides from: without one, no common decision.
            self.comm
                .0
                .abort(&format!("the epoch message from rank {r} has no row"));
        }
        let mut bad = None;
        let mut err = None;
        for r in (0..size).filter(|&r| r != me) {
            let split = wire::split(&recv[r][ROW * 8..], |part, record| {
                match self.widx.get(part as usize).copied() {
                    Some(w) if w != usize::MAX => lock(&self.wire_in[w]).extend_from_slice(record),
                    _ => bad = Some(part),
                }
            });
            if let Err(e) = split {
                err = Some(e);
            }
        }
        let err =
            err.or(bad.map(|p| format!("received messages for partition {p}, not on this rank")));
        if let Some(e) = err {
            // Only this rank knows: it says why, and every rank stops at the next barrier.
            eprintln!("simkit-mpi: rank {me}: {e}");
            st.broken = true;
        }
    }

    fn decide_inner(&self, st: &mut Leader, cs: &[Contrib]) -> Result<Tick, Outcome> {
        let size = self.size;
        let width = ROW;
        self.fill_row(st, cs);
        let t0 = Instant::now();
        self.exchange(st);
        st.mpi_time += t0.elapsed();
        for r in 0..size {
            if st.all[r * width + FLAGS] & F_TOO_BIG != 0 {
                return Err(Outcome::Failed(DistError::Unsupported {
                    rank: r,
                    what: "exchanging more than 2 GiB in one epoch",
                }));
            }
        }
        let all = &st.all;
        let at = |r: usize, i: usize| all[r * width + i];
        // Failures first, lowest rank first: every rank picks the same.
        for r in 0..size {
            if at(r, PANIC_PART) != u64::MAX {
                return Err(Outcome::Failed(DistError::RankPanicked {
                    rank: r,
                    partition: at(r, PANIC_PART) as usize,
                }));
            }
        }
        for r in 0..size {
            let f = at(r, FLAGS);
            if f & F_BROKEN != 0 {
                return Err(Outcome::Failed(DistError::Wire {
                    rank: r,
                    msg: "messages could not be encoded or decoded (that rank's stderr says why)"
                        .to_owned(),
                }));
            }
            if f & F_INJECTED != 0 {
                return Err(Outcome::Failed(DistError::Unsupported {
                    rank: r,
                    what: "injecting events through a SimHandle",
                }));
            }
        }
        if let Some(r) = (0..size).find(|&r| at(r, FLAGS) & F_REQUEST != 0) {
            return Err(Outcome::Request { rank: r });
        }
        if let Some(part) = (0..size)
            .map(|r| at(r, ERROR_PART))
            .min()
            .filter(|&p| p != u64::MAX)
        {
            let part = part as usize;
            return Err(Outcome::Error {
                rank: self.rank_of[part],
                part,
            });
        }
        let lbts = Tick((0..size).map(|r| at(r, NEXT)).min().unwrap_or(u64::MAX));
        let reached = Tick((0..size).map(|r| at(r, NOW)).max().unwrap_or(0));
        let mut exit: Option<(EventKey, usize)> = None;
        let mut released: Option<EventKey> = None;
        for r in 0..size {
            let f = at(r, FLAGS);
            if f & F_EXIT != 0 {
                let k = EventKey::from_words(at(r, EXIT), at(r, EXIT + 1));
                if exit.is_none_or(|(e, _)| k < e) {
                    exit = Some((k, r));
                }
            }
            if f & F_RELEASED != 0 {
                let k = EventKey::from_words(at(r, RELEASED), at(r, RELEASED + 1));
                released = Some(released.map_or(k, |x| x.max(k)));
            }
        }
        let all_released = self.tables.primaries > 0 && (0..size).all(|r| at(r, HELD) == 0);
        let model = ModelStop::pick(exit.map(|e| e.0), all_released, released);
        let exit_rank = exit.map_or(0, |e| e.1);
        st.frontier = st.frontier.max(reached);
        st.reached = reached;
        if let Some(s) = model {
            if lbts >= s.cap(self.tables.horizon) {
                return Err(Outcome::Model(s, exit_rank));
            }
        }
        if lbts == Tick::MAX {
            if let Some(r) = (0..size).find(|&r| at(r, FLAGS) & F_HOLDS != 0) {
                return Err(Outcome::Failed(DistError::Unsupported {
                    rank: r,
                    what: "holding a run open with SimHandle::hold",
                }));
            }
            return Err(Outcome::Completed(CompletionReason::Quiescent));
        }
        if lbts >= self.end {
            return Err(Outcome::MaxTick);
        }
        // From here on as `engine::parallel`: the window, capped by the exit horizon, a
        // pending model stop and the next sync point.
        let width = self.tables.lookahead.min(self.tables.horizon);
        let mut window_end = lbts.saturating_add(width).min(self.end);
        if let Some(s) = model {
            window_end = window_end.min(s.cap(self.tables.horizon));
        }
        if let Some(sp) = st.sync.as_mut() {
            let synced = &mut st.synced;
            let t0 = Instant::now();
            let hooked = catch_unwind(AssertUnwindSafe(|| {
                super::at_sync_point(|| sp.before(lbts, synced))
            }));
            st.sync_time += t0.elapsed();
            match hooked {
                Ok(t) => window_end = window_end.min(t),
                // The other ranks have moved on: nothing to agree on any more.
                Err(p) => self.comm.0.abort(&format!(
                    "the sync-point hook panicked: {}",
                    super::panic_text(&*p)
                )),
            }
        }
        st.epochs += 1;
        self.handle.publish_now(lbts);
        Ok(window_end)
    }
}

fn worker<M>(sh: &Shared<'_, M>, w: usize, part: Option<&mut Part<M>>)
where
    M: Serialize + DeserializeOwned + Send + 'static,
{
    let _inside = sh.handle.enter();
    let Some(Part { comps, core }) = part else {
        // A rank with no partition still takes part in every exchange.
        while let Some(Some(_)) = sh
            .barrier
            .arrive(0, Contrib::idle(), |st, cs| sh.decide(st, cs))
        {}
        return;
    };
    let pid = sh.local[w];
    let n = sh.local.len();
    let mut contrib = Contrib::of(core, pid, core.next_time(), false, false);
    let mut parity = 0usize;
    loop {
        let t0 = Instant::now();
        let d = sh.barrier.arrive(w, contrib, |st, cs| sh.decide(st, cs));
        core.barrier_wait += t0.elapsed();
        let prev = parity ^ 1;
        for src in 0..n {
            if src != w {
                let mut g = lock(sh.slot(prev, src, w));
                core.queue.extend(g.drain(..));
            }
        }
        let mut broken = false;
        {
            let mut g = lock(&sh.wire_in[w]);
            if !g.is_empty() {
                let queue = &mut core.queue;
                if let Err(e) = wire::decode(&g, |e| queue.push(e)) {
                    eprintln!("simkit-mpi: rank {}: partition {pid}: {e}", sh.rank);
                    broken = true;
                }
                g.clear();
            }
        }
        let Some(Some(window_end)) = d else {
            break;
        };
        let ok = !broken
            && catch_unwind(AssertUnwindSafe(|| {
                core.process(comps, sh.tables, window_end, EPOCH_BUDGET)
            }))
            .is_ok();
        if ok {
            let mut outs = lock(&sh.wire_out[w]);
            for dst in 0..core.out.len() {
                if core.out[dst].is_empty() {
                    continue;
                }
                let dw = sh.widx[dst];
                if dw == usize::MAX {
                    let r = sh.rank_of[dst];
                    if let Err(e) = wire::encode(dst as u32, &mut core.out[dst], &mut outs[r]) {
                        eprintln!("simkit-mpi: rank {}: partition {pid}: {e}", sh.rank);
                        broken = true;
                    }
                    continue;
                }
                let out = &mut core.out[dst];
                let mut g = lock(sh.slot(parity, w, dw));
                if g.is_empty() {
                    std::mem::swap(&mut *g, out);
                } else {
                    g.append(out);
                }
            }
        }
        contrib = Contrib::of(
            core,
            pid,
            core.next_time().min(core.sent_min),
            !ok && !broken,
            broken,
        );
        core.sent_min = Tick::MAX;
        parity ^= 1;
    }
}

fn encode_request(r: &Request) -> Vec<u8> {
    let v: (u8, &str, i32) = match r {
        Request::Exit { reason, code } => (0, reason, *code),
        Request::Interrupt => (1, "", 0),
    };
    rmp_serde::to_vec(&v).unwrap_or_default()
}

fn decode_request(b: &[u8], rank: usize) -> Result<Request, DistError> {
    let (kind, reason, code): (u8, String, i32) =
        rmp_serde::from_slice(b).map_err(|e| DistError::Wire {
            rank,
            msg: format!("exit request: {e}"),
        })?;
    Ok(match kind {
        0 => Request::Exit { reason, code },
        _ => Request::Interrupt,
    })
}

pub(super) fn run<M>(ds: &mut DistSim<'_, M>, limit: Tick) -> Result<ExitStatus, DistError>
where
    M: Serialize + DeserializeOwned + Send + 'static,
{
    let end = if limit == Tick::MAX {
        Tick::MAX
    } else {
        limit.saturating_add(Tick(1)).max(limit)
    };
    let cluster = ds.cluster;
    let me = cluster.rank;
    let sim: &mut Simulation<M> = &mut ds.sim;
    sim.handle.rearm();
    // Events injected between runs: every rank made the same injections (each runs the
    // same driver program), so each places them as one process would, at the same time
    // and with the same keys, and keeps those for its own partitions. Injections during a
    // run are refused at the barrier (`F_INJECTED`).
    if let Some(taken) = sim.handle.take(false) {
        let frontier = sim.frontier.max(sim.now());
        let (parts, rank_of) = (&mut sim.parts, &ds.rank_of);
        place_injections(&sim.tables, taken.injections, frontier, |p, e| {
            if rank_of[p as usize] == me {
                parts[p as usize].core.queue.push(e);
            }
        });
    }
    let floor = sim.frontier;
    for &p in &ds.local {
        let core = &mut sim.parts[p].core;
        core.rearm(sim.tables.horizon);
        core.now = core.now.max(floor);
    }
    let (sync, synced) = (sim.sync.take(), sim.synced);
    let nl = ds.local.len();
    let mut widx = vec![usize::MAX; sim.parts.len()];
    for (w, &p) in ds.local.iter().enumerate() {
        widx[p] = w;
    }
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
        comm: LeaderComm(cluster),
        rank: me,
        size: cluster.size,
        rank_of: &ds.rank_of,
        local: &ds.local,
        widx,
        end,
        barrier: EpochBarrier::new(
            nl.max(1),
            Contrib::idle(),
            Leader {
                frontier: *frontier,
                epochs: 0,
                mpi_time: Duration::ZERO,
                sync_time: Duration::ZERO,
                outcome: None,
                sync,
                synced,
                reached: Tick::ZERO,
                request: None,
                broken: false,
                row: Vec::new(),
                all: Vec::new(),
                send: vec![Vec::new(); cluster.size],
                recv: vec![Vec::new(); cluster.size],
            },
        ),
        slots: (0..2 * nl * nl).map(|_| Mutex::new(Vec::new())).collect(),
        wire_out: (0..nl)
            .map(|_| Mutex::new(vec![Vec::new(); cluster.size]))
            .collect(),
        wire_in: (0..nl).map(|_| Mutex::new(Vec::new())).collect(),
    };
    let sh_ref = &sh;
    let mut jobs: Vec<Job<'_>> = Vec::with_capacity(nl.max(1));
    if nl == 0 {
        jobs.push(Box::new(move || {
            catch_unwind(AssertUnwindSafe(|| worker(sh_ref, 0, None))).is_ok()
        }));
    }
    for (w, part) in parts
        .iter_mut()
        .enumerate()
        .filter(|(p, _)| sh_ref.widx[*p] != usize::MAX)
        .map(|(p, part)| (sh_ref.widx[p], part))
    {
        jobs.push(Box::new(move || {
            catch_unwind(AssertUnwindSafe(|| worker(sh_ref, w, Some(part)))).is_ok()
        }));
    }
    if run_threads(jobs).iter().any(|ok| !ok) {
        // Engine code (not a component) failed: the other ranks cannot be told in order.
        cluster.abort("a worker thread panicked outside a component handler");
    }
    let st = sh.barrier.with_state(|st| {
        (
            st.outcome.take(),
            st.epochs,
            (st.mpi_time, st.sync_time),
            st.frontier,
            st.sync.take(),
            st.synced,
            st.reached,
            st.request.take(),
        )
    });
    drop(sh);
    let (outcome, epochs, mpi_time, leader_frontier, sync, synced, reached, request) = st;
    ds.mpi_time += mpi_time.0;
    ds.sync_time += mpi_time.1;
    (sim.sync, sim.synced) = (sync, synced);
    sim.epochs += epochs;
    sim.merge_outboxes();
    // The other ranks' partitions have got as far as the furthest of all.
    for (p, part) in sim.parts.iter_mut().enumerate() {
        if ds.rank_of[p] != me {
            part.core.now = part.core.now.max(reached);
        }
    }
    sim.frontier = leader_frontier;
    let now = sim.now();
    let local = &ds.local;
    let status = match outcome {
        Some(Outcome::Failed(e)) => return Err(e),
        Some(Outcome::Error { rank, part }) => {
            let mut mine = Vec::new();
            for &p in local {
                if let Some(e) = sim.parts[p].core.error.take() {
                    if p == part {
                        mine = rmp_serde::to_vec(&e).unwrap_or_default();
                    }
                }
            }
            let bytes = cluster.broadcast_bytes(rank, mine);
            let source: SimError = rmp_serde::from_slice(&bytes).map_err(|e| DistError::Wire {
                rank,
                msg: format!("run error: {e}"),
            })?;
            return Err(DistError::Sim { rank, source });
        }
        Some(Outcome::Request { rank }) => {
            let mine = request.as_ref().map(encode_request).unwrap_or_default();
            let r = decode_request(&cluster.broadcast_bytes(rank, mine), rank)?;
            request_status(r, now)
        }
        Some(Outcome::MaxTick) => {
            sim.frontier = end;
            for p in &mut sim.parts {
                p.core.now = limit;
            }
            ExitStatus::MaxTick { tick: limit }
        }
        Some(Outcome::Completed(reason)) => ExitStatus::Completed { reason, tick: now },
        Some(Outcome::Model(s, owner)) => {
            let status = match s {
                ModelStop::Exit(k) => {
                    let mine = local
                        .iter()
                        .filter_map(|&p| sim.parts[p].core.exit.as_ref())
                        .find(|x| x.key == k)
                        .map(|x| {
                            rmp_serde::to_vec(&(x.reason.as_str(), x.code)).unwrap_or_default()
                        })
                        .unwrap_or_default();
                    let bytes = cluster.broadcast_bytes(owner, mine);
                    let (reason, code): (String, i32) =
                        rmp_serde::from_slice(&bytes).map_err(|e| DistError::Wire {
                            rank: owner,
                            msg: format!("exit request: {e}"),
                        })?;
                    ExitStatus::ExitRequested {
                        reason,
                        code,
                        tick: k.time(),
                    }
                }
                ModelStop::Released(k) => ExitStatus::Completed {
                    reason: CompletionReason::PrimariesReleased,
                    tick: k.map_or(now, |k| k.time()),
                },
            };
            for p in &mut sim.parts {
                p.core.exit = None;
                p.core.released = None;
                p.core.stop_at = Tick::MAX;
            }
            status
        }
        // Every worker stops only on a decision, which always records an outcome.
        None => ExitStatus::Interrupted { tick: now },
    };
    sim.handle.publish_now(sim.now());
    Ok(status)
}
