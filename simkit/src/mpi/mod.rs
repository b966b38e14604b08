//! Partitions on MPI ranks: one model spread over several processes (feature `mpi`).
//!
//! Every rank builds the same model and the same [`Partitioning`](crate::partition::Partitioning)
//! (SPMD), so component ids, partitions and the routing tables agree everywhere. A
//! [`Placement`] then puts each partition on a rank; a rank runs only its own partitions, one
//! worker thread each, and keeps the others dormant. The run is the engine's LBTS epoch loop
//! with the barrier stretched over ranks:
//!
//! * within a rank, workers meet at the usual epoch barrier; its last arrival (the leader)
//!   speaks for the rank;
//! * the leaders of all ranks exchange their rank's contribution (lower bound on future
//!   timestamps, exits, primaries, errors) and the messages sent across ranks during the
//!   epoch in one round: each sends every other rank one point-to-point message, its
//!   contribution followed by the records for that rank (buffered per destination rank,
//!   buffers reused from epoch to epoch). The LBTS reduction thus travels with the messages;
//!   an earlier `MPI_Allgather` + `MPI_Alltoallv` pair took 1.6 times as long per epoch;
//! * every rank then makes the same decision from the same gathered data (the decision is a
//!   pure function of it), so they all run the same windows, call sync-point hooks at the
//!   same points and stop at the same place, with no further round.
//!
//! Received messages go into the destination partition's queue, which orders them by the
//! same [`EventKey`](crate::event::EventKey) as on one process, so the trace, the final state
//! and the statistics are those of a single-process run ([`DistSim::collect`] brings them to
//! rank 0).
//!
//! At start ([`DistSim::new`]) the ranks compare digests of the topology, the partitioning,
//! the placement, the components' initial state and a caller-supplied configuration hash;
//! a difference is a [`DistError::Mismatch`] naming the rank and what differs, on every rank.
//! A component that panics ends the run on every rank with [`DistError::RankPanicked`]
//! naming the rank; a panic anywhere else (outside the handlers the engine guards) is
//! reported and ends the job with `MPI_Abort` ([`Cluster::abort_on_panic`]), never a hang.
//!
//! Injections through a [`SimHandle`](crate::handle::SimHandle) and holding a run open with
//! one are not supported across ranks ([`DistError::Unsupported`]); exit and interrupt
//! requests from another thread are (the lowest rank that has one wins).

mod run;
mod state;
mod wire;

use crate::engine::{SimError, Simulation};
use crate::event::mix;
use crate::time::Tick;
use mpi::collective::CommunicatorCollectives;
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::Threading;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};

pub use state::Collected;

/// Errors of a distributed run. Every rank returns the same error for the same failure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DistError {
    /// MPI was already initialized, or cannot give the thread support the engine needs.
    #[error("MPI: {0}")]
    Init(String),
    /// A bad placement of partitions on ranks.
    #[error("bad placement: {0}")]
    BadPlacement(String),
    /// The ranks disagree about the model at start.
    #[error(
        "rank {rank} differs from rank 0 in {what} ({found:#x} there, {expected:#x} on rank 0)"
    )]
    Mismatch {
        /// The first rank that differs.
        rank: usize,
        /// What differs: "topology", "partitioning", "placement", "configuration",
        /// "component state", "simulation state" or "rank count".
        what: &'static str,
        /// Its digest there.
        found: u64,
        /// Rank 0's.
        expected: u64,
    },
    /// A component's handler panicked on a rank.
    #[error("rank {rank}: a component panicked in partition {partition}")]
    RankPanicked {
        /// The rank.
        rank: usize,
        /// The partition (global index).
        partition: usize,
    },
    /// A run error (a model bug) in a partition of a rank.
    #[error("rank {rank}: {source}")]
    Sim {
        /// The rank whose partition hit it.
        rank: usize,
        /// The error.
        source: SimError,
    },
    /// Something the single-process engine offers that a distributed run does not.
    #[error("rank {rank}: {what} is not supported across MPI ranks")]
    Unsupported {
        /// The rank it was asked on.
        rank: usize,
        /// What.
        what: &'static str,
    },
    /// Messages or state could not be encoded or decoded for the wire.
    #[error("rank {rank}: wire format: {msg}")]
    Wire {
        /// The rank that hit it.
        rank: usize,
        /// What went wrong.
        msg: String,
    },
    /// A checkpoint was written by a different number of ranks; restoring onto another rank
    /// count is not supported (restore with as many ranks as wrote it).
    #[error("checkpoint {dir} was written by {found} ranks, this run has {expected}")]
    CheckpointRanks {
        /// The checkpoint directory.
        dir: String,
        /// Ranks that wrote it.
        found: usize,
        /// Ranks of this run.
        expected: usize,
    },
    /// A rank could not save or restore its part of a checkpoint.
    #[error("rank {rank}: checkpoint: {msg}")]
    Checkpoint {
        /// The rank.
        rank: usize,
        /// What went wrong.
        msg: String,
    },
}

/// The MPI environment: initialized once per process, finalized when dropped.
pub struct Cluster {
    // Dropped last: finalizes MPI.
    _universe: mpi::environment::Universe,
    world: SimpleCommunicator,
    rank: usize,
    size: usize,
}

impl fmt::Debug for Cluster {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cluster")
            .field("rank", &self.rank)
            .field("size", &self.size)
            .finish()
    }
}

impl Cluster {
    /// Initializes MPI for a distributed run. Each rank's epoch leader (whichever of its
    /// worker threads arrives last) makes the MPI calls, one thread at a time, so this asks
    /// for `MPI_THREAD_SERIALIZED`.
    pub fn init() -> Result<Cluster, DistError> {
        let (universe, level) = mpi::initialize_with_threading(Threading::Serialized)
            .ok_or_else(|| DistError::Init("MPI is already initialized".to_owned()))?;
        if level < Threading::Serialized {
            return Err(DistError::Init(format!(
                "the MPI library gives thread level {level:?}; simkit needs Serialized"
            )));
        }
        let world = universe.world();
        let (rank, size) = (world.rank() as usize, world.size() as usize);
        Ok(Cluster {
            _universe: universe,
            world,
            rank,
            size,
        })
    }

    /// This process's rank.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// Number of ranks.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Whether this is rank 0 (the one reports come to).
    pub fn is_root(&self) -> bool {
        self.rank == 0
    }

    /// Waits until every rank has arrived.
    pub fn barrier(&self) {
        self.world.barrier();
    }

    /// Runs `f`; if it panics, reports the panic with this rank's number on stderr and ends
    /// the whole job with `MPI_Abort`, so the other ranks never wait for this one forever.
    pub fn abort_on_panic<R>(&self, f: impl FnOnce() -> R) -> R {
        match catch_unwind(AssertUnwindSafe(f)) {
            Ok(r) => r,
            Err(p) => self.abort(&format!("panicked: {}", panic_text(&*p))),
        }
    }

    /// Reports `why` with this rank's number on stderr and ends the whole job.
    pub fn abort(&self, why: &str) -> ! {
        eprintln!(
            "simkit-mpi: rank {} of {}: {why}; aborting the job",
            self.rank, self.size
        );
        self.world.abort(70)
    }

    /// Every rank's `mine`, in rank order.
    pub(crate) fn all_gather(&self, mine: &[u64], out: &mut Vec<u64>) {
        out.clear();
        out.resize(mine.len() * self.size, 0);
        mpi::request::scope(|sc| {
            wait_gently(self.world.immediate_all_gather_into(sc, mine, &mut out[..]))
        });
    }

    /// Rank `root`'s bytes, on every rank (`mine` is only read on `root`).
    pub(crate) fn broadcast_bytes(&self, root: usize, mine: Vec<u8>) -> Vec<u8> {
        use mpi::collective::Root;
        let p = self.world.process_at_rank(root as mpi::Rank);
        let mut len = [mine.len() as u64];
        p.broadcast_into(&mut len[..]);
        let mut buf = if self.rank == root {
            mine
        } else {
            vec![0u8; len[0] as usize]
        };
        if !buf.is_empty() {
            p.broadcast_into(&mut buf[..]);
        }
        buf
    }
}

/// Waits for `req` without holding on to a core (see [`Gentle`]).
pub(crate) fn wait_gently<'a, D: ?Sized, S: mpi::request::Scope<'a>>(
    mut req: mpi::request::Request<'a, D, S>,
) {
    let mut gentle = Gentle::default();
    loop {
        match req.test() {
            Ok(_) => return,
            Err(r) => req = r,
        }
        gentle.pause();
    }
}

/// The pause between two polls of something MPI is doing. MPI's blocking calls poll at full
/// speed while they wait, which on a machine with more ranks than free cores takes the CPU
/// from the very rank being waited for; polling (`MPI_Test`, `MPI_Improbe`, which also drive
/// progress) a little, then yielding, then napping between polls leaves it the core.
#[derive(Debug, Default)]
pub(crate) struct Gentle {
    round: u32,
}

impl Gentle {
    /// Pauses before the next poll, longer the longer the wait has been.
    pub(crate) fn pause(&mut self) {
        // Measured on the 2-core machine under load 12 (an exchange-bound PHOLD, 20 thousand
        // epochs): dropping the yields doubles the wait; more spinning or longer naps change
        // little.
        if self.round < 64 {
            std::hint::spin_loop();
        } else if self.round < 128 {
            std::thread::yield_now();
        } else {
            std::thread::sleep(std::time::Duration::from_micros(20));
        }
        self.round = self.round.saturating_add(1);
    }
}

pub(crate) fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "(no message)".to_owned()
    }
}

thread_local! {
    /// Set while this thread runs a distributed run's sync-point hook (see [`SyncExchange`]).
    static AT_SYNC_POINT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` (a distributed run's sync-point hook, called by the rank's epoch leader) with
/// [`SyncExchange`] allowed on this thread.
pub(crate) fn at_sync_point<R>(f: impl FnOnce() -> R) -> R {
    struct Reset(bool);
    impl Drop for Reset {
        fn drop(&mut self) {
            AT_SYNC_POINT.with(|c| c.set(self.0));
        }
    }
    let _reset = Reset(AT_SYNC_POINT.with(|c| c.replace(true)));
    f()
}

/// Lets the sync-point hook of a distributed run (set with
/// [`Simulation::set_sync_points`](crate::engine::Simulation::set_sync_points) before the
/// simulation is spread with [`DistSim::new`]) exchange bytes with the same hook on the
/// other ranks: a model whose components share state outside messages (a GPU's device
/// memory, replicated per rank) sends each rank's changes since the last point to every
/// other rank there.
///
/// Every rank calls the hook at the same points (the decision where the points fall is made
/// from the same gathered data everywhere), so the hooks can make the same collective calls
/// in the same order. It is only usable inside such a hook: there the rank's epoch leader is
/// the one thread of the process making MPI calls; anywhere else
/// [`SyncExchange::all_gather`] refuses with [`DistError::Unsupported`].
#[derive(Debug, Clone, Copy)]
pub struct SyncExchange {
    rank: usize,
    size: usize,
}

impl Cluster {
    /// The exchange for this cluster's sync-point hooks (see [`SyncExchange`]).
    pub fn sync_exchange(&self) -> SyncExchange {
        SyncExchange {
            rank: self.rank,
            size: self.size,
        }
    }
}

impl SyncExchange {
    /// This process's rank.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// Number of ranks.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Every rank's `mine`, in rank order (this rank's own included). Collective: every
    /// rank's hook calls it at the same point, the same number of times. Every rank gets
    /// the same error for the same failure, so they stop together.
    pub fn all_gather(&self, mine: &[u8]) -> Result<Vec<Vec<u8>>, DistError> {
        if !AT_SYNC_POINT.with(|c| c.get()) {
            return Err(DistError::Unsupported {
                rank: self.rank,
                what: "exchanging bytes outside a sync-point hook of a distributed run",
            });
        }
        // The world communicator: a predefined handle, nothing to free. MPI calls are
        // serialized here: only the rank's epoch leader runs the hook (see `run`).
        let world = mpi::topology::SimpleCommunicator::world();
        // One round, no collective: every rank sends every other rank its bytes behind a
        // flag byte (set when they are over MPI's 32-bit count, so that every rank learns
        // it and all refuse alike); an earlier lengths-then-bytes pair of collectives made
        // two rounds per sync point.
        let too_big = mine.len() >= i32::MAX as usize;
        let mut msg = Vec::with_capacity(1 + if too_big { 0 } else { mine.len() });
        msg.push(too_big as u8);
        if !too_big {
            msg.extend_from_slice(mine);
        }
        let sends: Vec<&[u8]> = (0..self.size).map(|_| &msg[..]).collect();
        let mut all = vec![Vec::new(); self.size];
        swap_with_all(&world, self.rank, SYNC_TAG, &sends, &mut all);
        let mut refused = None;
        for (r, got) in all.iter_mut().enumerate() {
            if r == self.rank {
                continue;
            }
            match got.first() {
                Some(0) => {
                    got.remove(0);
                }
                _ => {
                    refused.get_or_insert(r);
                }
            }
        }
        if too_big {
            refused = Some(refused.map_or(self.rank, |r| r.min(self.rank)));
        }
        if let Some(rank) = refused {
            return Err(DistError::Unsupported {
                rank,
                what: "exchanging more than 2 GiB at one sync point",
            });
        }
        all[self.rank] = mine.to_vec();
        Ok(all)
    }
}

/// The tag of [`SyncExchange`]'s messages (the epoch messages have their own, so the two
/// never match each other's probes; MPI keeps messages between two ranks with one tag in
/// order).
const SYNC_TAG: mpi::Tag = 0x5c4e;

/// One round with every other rank: sends `send[r]` to each rank `r` but this one (`me`)
/// and receives each one's message into `recv[r]` (resized to fit), all at once, without a
/// collective. Waits gently (see [`Gentle`]) until every send and receive is done.
pub(crate) fn swap_with_all(
    world: &SimpleCommunicator,
    me: usize,
    tag: mpi::Tag,
    send: &[&[u8]],
    recv: &mut [Vec<u8>],
) {
    use mpi::datatype::Equivalence;
    use mpi::point_to_point::{Destination, Source};
    let size = send.len();
    mpi::request::scope(|sc| {
        let mut sends: Vec<_> = (0..size)
            .filter(|&r| r != me)
            .map(|r| {
                Some(
                    world
                        .process_at_rank(r as mpi::Rank)
                        .immediate_send_with_tag(sc, send[r], tag),
                )
            })
            .collect();
        let mut waiting = size.saturating_sub(1);
        let mut done = vec![false; size];
        done[me] = true;
        let mut gentle = Gentle::default();
        while waiting > 0 || sends.iter().any(Option::is_some) {
            let mut moved = false;
            for r in 0..size {
                if done[r] {
                    continue;
                }
                let src = world.process_at_rank(r as mpi::Rank);
                if let Some((msg, status)) = src.immediate_matched_probe_with_tag(tag) {
                    let n = status.count(u8::equivalent_datatype()).max(0) as usize;
                    let buf = &mut recv[r];
                    buf.clear();
                    buf.resize(n, 0);
                    msg.matched_receive_into(&mut buf[..]);
                    done[r] = true;
                    waiting -= 1;
                    moved = true;
                }
            }
            for s in sends.iter_mut() {
                if let Some(req) = s.take() {
                    if let Err(req) = req.test() {
                        *s = Some(req);
                    } else {
                        moved = true;
                    }
                }
            }
            if moved {
                gentle = Gentle::default();
            } else {
                gentle.pause();
            }
        }
    });
}

/// How partitions are put on ranks.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Placement {
    /// Partition `p` on rank `p % ranks`.
    RoundRobin,
    /// Contiguous runs of partitions with about the same number of components on each rank
    /// (neighbouring partitions of [`Partitioning::Auto`](crate::partition::Partitioning)
    /// and `Block` share more links, so they stay together).
    Balanced,
    /// The rank of every partition, in partition order.
    Manual(Vec<usize>),
}

impl std::str::FromStr for Placement {
    type Err = String;
    fn from_str(s: &str) -> Result<Placement, String> {
        match s {
            "round-robin" => Ok(Placement::RoundRobin),
            "balanced" => Ok(Placement::Balanced),
            _ => match s.strip_prefix("manual:") {
                Some(list) => list
                    .split(',')
                    .map(|r| r.trim().parse::<usize>())
                    .collect::<Result<Vec<_>, _>>()
                    .map(Placement::Manual)
                    .map_err(|_| format!("bad rank list in {s:?}")),
                None => Err(format!(
                    "unknown placement {s:?} (round-robin, balanced, manual:<rank>,<rank>,...)"
                )),
            },
        }
    }
}

impl Placement {
    /// The rank of each of the partitions, whose sizes (component counts) are `sizes`.
    pub fn ranks(&self, sizes: &[u64], ranks: usize) -> Result<Vec<usize>, DistError> {
        let parts = sizes.len();
        if ranks == 0 {
            return Err(DistError::BadPlacement("zero ranks".to_owned()));
        }
        Ok(match self {
            Placement::RoundRobin => (0..parts).map(|p| p % ranks).collect(),
            Placement::Balanced => {
                let total: u64 = sizes.iter().map(|&s| s.max(1)).sum();
                let mut acc = 0u64;
                sizes
                    .iter()
                    .map(|&s| {
                        let s = s.max(1);
                        // By the midpoint of the partition's span, as the auto partitioner does.
                        let mid = acc as u128 * 2 + s as u128;
                        acc += s;
                        (((mid * ranks as u128) / (2 * total as u128)) as usize).min(ranks - 1)
                    })
                    .collect()
            }
            Placement::Manual(v) => {
                if v.len() != parts {
                    return Err(DistError::BadPlacement(format!(
                        "manual placement lists {} partitions, the simulation has {parts}",
                        v.len()
                    )));
                }
                if let Some((p, r)) = v.iter().enumerate().find(|(_, &r)| r >= ranks) {
                    return Err(DistError::BadPlacement(format!(
                        "partition {p} placed on rank {r}, but there are {ranks} ranks"
                    )));
                }
                v.clone()
            }
        })
    }
}

/// The simulation a [`DistSim`] runs: its own ([`DistSim::new`]) or one borrowed from a
/// model that built it and keeps using it afterwards ([`DistSim::over`]).
pub(crate) enum Held<'c, M> {
    Owned(Box<Simulation<M>>),
    Borrowed(&'c mut Simulation<M>),
}

impl<M> std::ops::Deref for Held<'_, M> {
    type Target = Simulation<M>;
    fn deref(&self) -> &Simulation<M> {
        match self {
            Held::Owned(s) => s,
            Held::Borrowed(s) => s,
        }
    }
}

impl<M> std::ops::DerefMut for Held<'_, M> {
    fn deref_mut(&mut self) -> &mut Simulation<M> {
        match self {
            Held::Owned(s) => s,
            Held::Borrowed(s) => s,
        }
    }
}

/// A simulation spread over the ranks of a [`Cluster`]: this rank's view of it.
pub struct DistSim<'c, M> {
    pub(crate) sim: Held<'c, M>,
    pub(crate) cluster: &'c Cluster,
    /// By partition: its rank.
    pub(crate) rank_of: Vec<usize>,
    /// This rank's partitions, ascending.
    pub(crate) local: Vec<usize>,
    /// The caller's configuration hash (kept in checkpoints).
    pub(crate) config: u64,
    /// Time this rank's leaders spent in MPI exchanges, over all runs.
    pub(crate) mpi_time: std::time::Duration,
    /// Time this rank's leaders spent in the sync-point hook, over all runs.
    pub(crate) sync_time: std::time::Duration,
}

impl<M> fmt::Debug for DistSim<'_, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DistSim")
            .field("rank", &self.cluster.rank)
            .field("local_partitions", &self.local)
            .finish_non_exhaustive()
    }
}

fn hash_words(words: impl IntoIterator<Item = u64>) -> u64 {
    words.into_iter().fold(0x0d15_7a11, mix)
}

/// A digest of `bytes`, eight at a time (a component's saved state can be megabytes: one
/// mixing round a byte made the start check of a GPU take seconds).
fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut words = bytes.chunks_exact(8);
    let mut h = mix(0x0d15_7a11, bytes.len() as u64);
    for w in words.by_ref() {
        let mut b = [0u8; 8];
        b.copy_from_slice(w);
        h = mix(h, u64::from_le_bytes(b));
    }
    let mut tail = [0u8; 8];
    tail[..words.remainder().len()].copy_from_slice(words.remainder());
    mix(h, u64::from_le_bytes(tail))
}

/// What [`DistSim`]'s start check compares between ranks besides the topology,
/// partitioning, placement, configuration hash and simulation state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StartCheck {
    /// Also every component's saved state.
    State,
    /// Nothing more: the caller's configuration hash covers everything the components'
    /// state comes from.
    Description,
}

impl<'c, M> DistSim<'c, M>
where
    M: serde::Serialize + serde::de::DeserializeOwned + Send + 'static,
{
    /// Spreads `sim` (built the same way on every rank, not run yet or restored the same way)
    /// over the cluster's ranks by `placement`, after checking that every rank has the same
    /// model: `config` is the caller's hash of whatever configured it (parameters, scenario
    /// file), compared along with digests of the topology, partitioning, placement and the
    /// components' state (those that can [`save`](crate::component::Component::save) it).
    /// Collective: every rank calls it.
    pub fn new(
        sim: Simulation<M>,
        cluster: &'c Cluster,
        placement: &Placement,
        config: u64,
    ) -> Result<DistSim<'c, M>, DistError> {
        DistSim::spread(
            Held::Owned(Box::new(sim)),
            cluster,
            placement,
            config,
            StartCheck::State,
        )
    }

    /// As [`DistSim::new`], over a simulation that a model built and owns (a GPU's SoC):
    /// the model gets it back, as this rank left it, when the `DistSim` is dropped. The
    /// other ranks' partitions are dormant in it from here on (their queues are emptied);
    /// on rank 0 [`DistSim::collect`] brings their state back.
    pub fn over(
        sim: &'c mut Simulation<M>,
        cluster: &'c Cluster,
        placement: &Placement,
        config: u64,
    ) -> Result<DistSim<'c, M>, DistError> {
        DistSim::spread(
            Held::Borrowed(sim),
            cluster,
            placement,
            config,
            StartCheck::State,
        )
    }

    /// As [`DistSim::over`], for a model whose components' state follows from `config`
    /// alone (a GPU's SoC, built from a scenario and its code objects, with the same host
    /// calls on every rank): the start check compares the topology, partitioning,
    /// placement, `config` and the engine's own state, not the components' state. That
    /// check is cheap, and it lets the ranks hold different state for the partitions they
    /// do not run (after [`DistSim::collect`], rank 0 holds every rank's; the others keep
    /// what they had), so the model can be spread again after a `collect`.
    pub fn over_described(
        sim: &'c mut Simulation<M>,
        cluster: &'c Cluster,
        placement: &Placement,
        config: u64,
    ) -> Result<DistSim<'c, M>, DistError> {
        DistSim::spread(
            Held::Borrowed(sim),
            cluster,
            placement,
            config,
            StartCheck::Description,
        )
    }

    fn spread(
        mut sim: Held<'c, M>,
        cluster: &'c Cluster,
        placement: &Placement,
        config: u64,
        check: StartCheck,
    ) -> Result<DistSim<'c, M>, DistError> {
        let parts = sim.parts.len();
        let sizes: Vec<u64> = sim.parts.iter().map(|p| p.comps.len() as u64).collect();
        // A bad placement still takes part in the exchange below (as a digest no placement
        // has), so that no rank waits for one that gave up.
        let placed = placement.ranks(&sizes, cluster.size);
        let placement_digest = match &placed {
            Ok(rank_of) => hash_words(rank_of.iter().map(|&r| r as u64)),
            Err(_) => u64::MAX,
        };
        let comp_state = match check {
            StartCheck::State => hash_words(sim.parts.iter().flat_map(|p| {
                p.comps.iter().map(|c| match c.save() {
                    Ok(b) => hash_bytes(&b),
                    Err(_) => 0,
                })
            })),
            StartCheck::Description => 0,
        };
        let digests = [
            ("rank count", cluster.size as u64),
            ("topology", sim.tables.fingerprint),
            (
                "partitioning",
                hash_words(sim.tables.place.iter().map(|p| p.part as u64)),
            ),
            ("placement", placement_digest),
            ("configuration", config),
            ("component state", comp_state),
            (
                "simulation state",
                hash_words([sim.frontier.0, sim.now().0, sim.epochs, sim.synced.0]),
            ),
        ];
        let mine: Vec<u64> = digests.iter().map(|d| d.1).collect();
        let mut all = Vec::new();
        cluster.all_gather(&mine, &mut all);
        let rank_of = placed?;
        for r in 1..cluster.size {
            for (i, (what, _)) in digests.iter().enumerate() {
                let (found, expected) = (all[r * mine.len() + i], all[i]);
                if found != expected {
                    return Err(DistError::Mismatch {
                        rank: r,
                        what,
                        found,
                        expected,
                    });
                }
            }
        }
        let local: Vec<usize> = (0..parts).filter(|&p| rank_of[p] == cluster.rank).collect();
        // Other ranks' partitions stay dormant here: nothing pending, nothing requested.
        for (p, part) in sim.parts.iter_mut().enumerate() {
            if rank_of[p] != cluster.rank {
                let c = &mut part.core;
                c.queue.clear();
                c.ticks.clear();
                c.out.iter_mut().for_each(Vec::clear);
                c.exit = None;
                c.released = None;
                c.error = None;
                c.held = 0;
            }
        }
        Ok(DistSim {
            sim,
            cluster,
            rank_of,
            local,
            config,
            mpi_time: std::time::Duration::ZERO,
            sync_time: std::time::Duration::ZERO,
        })
    }

    /// The simulation on this rank. Its own partitions are live; the others' components keep
    /// the state they had at start, except on rank 0 after [`DistSim::collect`].
    pub fn sim(&self) -> &Simulation<M> {
        &self.sim
    }

    /// Wall-clock time this rank has spent in the epoch exchanges with the other ranks (one
    /// point-to-point round per epoch, waiting for slower ranks included), over all runs.
    /// Its workers' time at the rank's own barrier is in the report's `barrier_wait`.
    pub fn exchange_time(&self) -> std::time::Duration {
        self.mpi_time
    }

    /// Wall-clock time this rank has spent in the sync-point hook (with the model's own
    /// exchanges there, [`SyncExchange`]), over all runs: the rank's workers wait for it.
    pub fn sync_point_time(&self) -> std::time::Duration {
        self.sync_time
    }

    /// Runs `f` between runs with [`SyncExchange`] allowed, as at a sync point: for a
    /// model's last exchange after a run (what its components did after the last sync
    /// point). Collective: every rank calls it, and `f` makes the same exchanges on each.
    /// No run is going on (this takes the simulation), and the thread that owns the
    /// cluster is the one making MPI calls.
    pub fn between_runs<R>(&mut self, f: impl FnOnce() -> R) -> R {
        at_sync_point(f)
    }

    /// This rank's partitions.
    pub fn local_partitions(&self) -> &[usize] {
        &self.local
    }

    /// The rank of every partition.
    pub fn placement(&self) -> &[usize] {
        &self.rank_of
    }

    /// Runs until the simulation completes, an exit is requested or the configured
    /// [`SimInit::max_tick`](crate::engine::SimInit::max_tick) is passed. Collective.
    pub fn run(&mut self) -> Result<crate::engine::ExitStatus, DistError> {
        self.run_until(self.sim.max_tick)
    }

    /// Runs, handling every event with timestamp at or before `limit`, on every rank.
    /// Collective: every rank calls it with the same limit, and every rank returns the same
    /// status (or error).
    pub fn run_until(&mut self, limit: Tick) -> Result<crate::engine::ExitStatus, DistError> {
        run::run(self, limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_digests_see_every_byte_and_the_length() {
        let base: Vec<u8> = (0..21u8).collect();
        let h = hash_bytes(&base);
        assert_eq!(hash_bytes(&base.clone()), h);
        // A change in a whole word or in the tail (21 = 2 words + 5 bytes).
        for at in [0, 7, 8, 15, 16, 20] {
            let mut b = base.clone();
            b[at] ^= 1;
            assert_ne!(hash_bytes(&b), h, "byte {at}");
        }
        // A zero byte more is another state, though its tail word reads the same.
        let mut longer = base.clone();
        longer.push(0);
        assert_ne!(hash_bytes(&longer), h);
        assert_ne!(hash_bytes(&[]), hash_bytes(&[0]));
    }

    #[test]
    fn placements_put_partitions_on_ranks() {
        let sizes = [10, 10, 10, 10, 1, 1, 1, 37];
        assert_eq!(
            Placement::RoundRobin.ranks(&sizes, 3).unwrap(),
            vec![0, 1, 2, 0, 1, 2, 0, 1]
        );
        // Contiguous, 40 components a rank (80 in all): the first four on rank 0.
        assert_eq!(
            Placement::Balanced.ranks(&sizes, 2).unwrap(),
            vec![0, 0, 0, 0, 1, 1, 1, 1]
        );
        assert_eq!(
            Placement::Balanced.ranks(&[1; 6], 4).unwrap(),
            vec![0, 1, 1, 2, 3, 3]
        );
        let m: Placement = "manual:1,0,1".parse().unwrap();
        assert_eq!(m.ranks(&[1, 1, 1], 2).unwrap(), vec![1, 0, 1]);
        for (p, ranks) in [("manual:1,0", 2), ("manual:0,2,1", 2)] {
            let p: Placement = p.parse().unwrap();
            assert!(matches!(
                p.ranks(&[1, 1, 1], ranks),
                Err(DistError::BadPlacement(_))
            ));
        }
        assert!("nearest".parse::<Placement>().is_err());
        assert!("manual:0,x".parse::<Placement>().is_err());
        assert!(Placement::Balanced.ranks(&[1], 0).is_err());
    }
}
