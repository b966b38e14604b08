//! The SoC over MPI ranks (feature `mpi`): its own simulation spread with
//! [`DistSim::over`], device memory replicated on every rank and kept identical at each
//! memory sync point ([`crate::memory::replica`]).
//!
//! Every rank builds the same SoC and makes the same host-side calls (allocations, copies,
//! loads, submissions), so the host's writes are the same in every replica. During the run
//! the sync hook ([`Publisher`]) exchanges what the compute units of each rank buffered and
//! applies every rank's shipment in one fixed order, instead of publishing only this rank's.
//!
//! The packet processor (the driver component, on partition 0) lives on one rank. A
//! command processor on another rank decodes the dispatches it is told about from its own
//! replica of the ring (the host wrote the packets on every rank); what the packet
//! processor writes straight into memory (slot releases, read indices, completion signals)
//! is copied from its rank to the others when the run ends, which is when a scenario's host
//! looks. A host that watches memory during a run (a program through the KFD emulation)
//! stays in one process.

use crate::memory::coherence::Coherence;
#[cfg(feature = "mpi")]
use crate::memory::replica::{sync_replicas, ReplicaError};
use crate::memory::DeviceMemory;
#[cfg(feature = "mpi")]
use simkit::mpi::{Cluster, Collected, DistError, DistSim, Placement, SyncExchange};
#[cfg(feature = "mpi")]
use std::sync::{Arc, Mutex, RwLock};
#[cfg(feature = "mpi")]
use {
    super::{Soc, SocError},
    simkit::engine::ExitStatus,
};

/// How the sync hook publishes the compute units' buffered writes and atomics: into this
/// process's memory, or (during [`Soc::run_distributed`]) exchanged with every rank.
#[derive(Clone, Default)]
pub(crate) struct Publisher {
    #[cfg(feature = "mpi")]
    exchange: Arc<Mutex<Option<SyncExchange>>>,
    /// The first exchange failure of the run (the hook stops the run when one happens).
    #[cfg(feature = "mpi")]
    failure: Arc<Mutex<Option<ReplicaError>>>,
}

impl Publisher {
    /// Publishes at a sync point. `false`: the replicas could not be kept identical and
    /// the run has to stop (the error is kept for [`Soc::run_distributed`]).
    pub(crate) fn publish(&self, coh: &Coherence, mem: &DeviceMemory) -> bool {
        #[cfg(feature = "mpi")]
        {
            let ex = *self.exchange.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(ex) = ex {
                return match sync_replicas(coh, mem, &ex) {
                    Ok(()) => true,
                    Err(e) => {
                        let mut f = self.failure.lock().unwrap_or_else(|p| p.into_inner());
                        f.get_or_insert(e);
                        false
                    }
                };
            }
        }
        coh.sync(mem);
        true
    }
}

/// What a distributed run of the SoC gives a rank.
#[cfg(feature = "mpi")]
#[derive(Debug)]
pub struct DistributedRun {
    /// How the run ended (the same on every rank).
    pub status: ExitStatus,
    /// The engine report and trace hash over every rank, on rank 0 (which writes reports;
    /// `None` on the others).
    pub collected: Option<Collected>,
    /// Where this rank's wall-clock time went, in this run (not part of the results: it
    /// differs from rank to rank and run to run).
    pub times: RankTimes,
}

/// Where a rank's wall-clock time went in [`Soc::run_distributed`]. `run` includes
/// `exchange` and `sync_points`; the rest of `run` is simulating (and waiting at the rank's
/// own epoch barrier).
#[cfg(feature = "mpi")]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RankTimes {
    /// Spreading the simulation: the digests that check every rank has the same model.
    pub start: std::time::Duration,
    /// The run.
    pub run: std::time::Duration,
    /// Of `run`: the epoch exchanges with the other ranks (waiting for them included).
    pub exchange: std::time::Duration,
    /// Of `run`: the memory sync points (replicas' shipments exchanged and applied).
    pub sync_points: std::time::Duration,
    /// Bringing every rank's component state and statistics to rank 0 (and the packet
    /// processor's to every rank) after the run.
    pub collect: std::time::Duration,
    /// Copying the packet processor's writes from its rank to the others.
    pub driver_writes: std::time::Duration,
}

#[cfg(feature = "mpi")]
impl std::ops::AddAssign for RankTimes {
    fn add_assign(&mut self, o: RankTimes) {
        self.start += o.start;
        self.run += o.run;
        self.exchange += o.exchange;
        self.sync_points += o.sync_points;
        self.collect += o.collect;
        self.driver_writes += o.driver_writes;
    }
}

#[cfg(feature = "mpi")]
impl Soc {
    /// Runs until nothing is left to do, with the SoC's partitions placed on the ranks of
    /// `cluster` by `placement`. Collective: every rank built the same SoC (its `threads`
    /// is the number of partitions over all ranks) and made the same host-side calls;
    /// `config` is the caller's hash of what configured it (a scenario file), compared
    /// between ranks at start ([`simkit::mpi::DistError::Mismatch`] on a difference).
    ///
    /// Afterwards every rank holds the device memory a single-process run leaves (the
    /// compute units' writes were exchanged at every sync point; what the packet processor
    /// wrote, ring slots, read indices and completion signals, is copied from its rank at
    /// the end) and the packet processor's state; rank 0 also holds every component's
    /// state and statistics (the others only those of the partitions they ran).
    pub fn run_distributed(
        &mut self,
        cluster: &Cluster,
        placement: &Placement,
        config: u64,
    ) -> Result<DistributedRun, SocError> {
        *self
            .publisher
            .exchange
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = Some(cluster.sync_exchange());
        let (mem, shared, live, driver) = (&self.mem, &self.shared, &self.live, self.driver);
        let run = (|| {
            let t = std::time::Instant::now();
            // The SoC is built from what `config` covers, with the same host calls on every
            // rank: its components' state need not be compared (and after the first run the
            // ranks hold different state for the partitions they do not run).
            let mut ds = DistSim::over_described(&mut self.sim, cluster, placement, config)?;
            let start = t.elapsed();
            let t = std::time::Instant::now();
            let status = ds.run()?;
            let run = t.elapsed();
            let t = std::time::Instant::now();
            // Everything to rank 0, which reports; the packet processor everywhere, since
            // every rank's host side reads its completions.
            let collected = ds.collect_sharing(&[driver])?;
            let collect = t.elapsed();
            let t = std::time::Instant::now();
            let home = ds
                .sim()
                .partition_of(driver)
                .map_or(0, |p| ds.placement()[p]);
            let mine = if cluster.rank() == home {
                driver_writes(mem, shared, live)
            } else {
                Vec::new()
            };
            let ex = cluster.sync_exchange();
            let theirs = ds.between_runs(|| ex.all_gather(&mine))?;
            let theirs = theirs.get(home).map(Vec::as_slice).unwrap_or_default();
            if theirs.is_empty() {
                // Every rank sees it: all stop alike.
                return Err(DistError::Wire {
                    rank: home,
                    msg: "the packet processor's writes could not be read".to_owned(),
                });
            }
            if cluster.rank() != home {
                apply_driver_writes(mem, theirs)
                    .map_err(|msg| DistError::Wire { rank: home, msg })?;
            }
            let times = RankTimes {
                start,
                run,
                exchange: ds.exchange_time(),
                sync_points: ds.sync_point_time(),
                collect,
                driver_writes: t.elapsed(),
            };
            Ok::<_, DistError>(DistributedRun {
                status,
                collected,
                times,
            })
        })();
        *self
            .publisher
            .exchange
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = None;
        let failed = self
            .publisher
            .failure
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some(e) = failed {
            return Err(SocError::Replica(e));
        }
        let run = run?;
        self.retire()?;
        Ok(run)
    }
}

/// What the packet processor wrote straight into its rank's memory (not through the
/// compute units' buffers): every queue's read index and ring, and the completion signals
/// of the dispatches not yet retired. Encoded as (address, bytes) pairs; empty when one
/// of them cannot be read (the others then refuse it).
#[cfg(feature = "mpi")]
fn driver_writes(
    mem: &RwLock<DeviceMemory>,
    shared: &super::queue::Shared,
    live: &super::Live,
) -> Vec<u8> {
    let mut regions: Vec<(u64, u64)> = Vec::new();
    for st in shared.read().queues.values() {
        regions.push((st.desc.read_index, 8));
        regions.push((st.desc.ring, st.desc.ring_bytes));
    }
    for d in live.lock().unwrap_or_else(|p| p.into_inner()).iter() {
        if d.allocations[1] != 0 {
            regions.push((d.allocations[1], super::queue::SIGNAL_BYTES));
        }
    }
    let mem = mem.read().unwrap_or_else(|p| p.into_inner());
    let mut out: Vec<(u64, Vec<u8>)> = Vec::with_capacity(regions.len());
    for (at, n) in regions {
        let mut b = vec![0u8; n as usize];
        if mem.read(at, &mut b).is_err() {
            return Vec::new();
        }
        out.push((at, b));
    }
    rmp_serde::to_vec(&out).unwrap_or_default()
}

/// Writes what [`driver_writes`] encoded into this rank's memory.
#[cfg(feature = "mpi")]
fn apply_driver_writes(mem: &RwLock<DeviceMemory>, bytes: &[u8]) -> Result<(), String> {
    let regions: Vec<(u64, Vec<u8>)> = rmp_serde::from_slice(bytes)
        .map_err(|e| format!("the packet processor's writes do not decode: {e}"))?;
    let mem = mem.read().unwrap_or_else(|p| p.into_inner());
    for (at, b) in regions {
        mem.write(at, &b)
            .map_err(|e| format!("the packet processor's write at {at:#x}: {e}"))?;
    }
    Ok(())
}
