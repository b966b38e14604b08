//! The GPU as a graph of simkit components: SoC -> IODs and XCDs -> CP, L2, SEs -> CUs.
//!
//! ```text
//!  AQL rings in memory ─doorbell─► soc.driver (packet processor)
//!  soc.driver ──dispatch──► soc.xcd[x].cp ──workgroup──► soc.xcd[x].se[s].cu[k]
//!      ▲                        ▲   └──────────◄─ workgroup done ─┘      │ mem (L1 misses)
//!      └──── dispatch done ─────┘                                       ▼
//!                                  soc.iod[i] (MALL + HBM) ◄── mem ── soc.xcd[x].l2
//! ```
//!
//! Device memory is shared by all components. Each CU reads it through its own memory
//! domain ([`crate::memory::coherence`]): its stores are buffered and published, and its
//! atomics performed, at memory sync points every `config.sync_cycles` shader cycles, so what
//! a CU sees is a function of simulated time only and runs are identical on any number of
//! threads. A dispatch completes at the first sync point after its last wave. Memory
//! requests also travel down the hierarchy as timed messages, for cache state and
//! statistics now and for the clocked mode later. CUs run their resident waves in quanta of `config.quantum`
//! instructions each and reschedule at `now + instructions x shader clock period` (1 CPI).
//! With `exec_mode: Clocked` (and the preset's `timing` section) the CUs issue per SIMD on
//! clock edges instead (`soc/cu_clocked.rs`), memory instructions become timed line
//! requests answered by the L2 or the IODs over response links that exist only in that mode
//! (`memsys`, [`timing`]), and wait counters block until the responses are back.
//! Each XCD (CP, L2, CUs) is one partition unit: with `threads` partitions, XCD `x` runs
//! on thread `x mod threads`, the driver and the IODs on thread 0.
//!
//! Work arrives the way a runtime gives it to the hardware: AQL packets in ring buffers in
//! device memory, with their write/read indices, doorbells and completion signals in memory
//! ([`queue`] has the layouts and rules). [`Soc::submit`] is a small runtime on top of
//! that: it lays out kernargs, writes a kernel-dispatch packet into the SoC's own queue 0
//! and rings its doorbell. Messages name dispatches by key; the dispatches in flight and
//! the programs decoded from memory live in a registry the SoC shares with its components.
//!
//! # The runtime-facing device API
//! Everything a runtime (the scenarios, a KFD emulation) needs is on [`Soc`] (and, from
//! other threads while a run is going on, [`Submitter`]):
//! * memory: [`Soc::alloc`], [`Soc::alloc_at`] (VRAM at a VA the runtime picked),
//!   [`Soc::map_host`] (unsafe: host memory the process owns, such as USERPTR and GTT
//!   buffers, mapped at a GPU VA, usually equal to its CPU VA), [`Soc::unmap`],
//!   [`Soc::read`], [`Soc::write`];
//! * code: [`Soc::load_code_object`] (or the runtime copies code objects into memory itself
//!   and sends the vendor PM4 packet, which invalidates decoded programs);
//! * queues: [`Soc::create_queue`] (ring, size, read/write index addresses, doorbell id),
//!   [`Soc::set_queue_scratch`], [`Soc::destroy_queue`], [`Soc::ring_doorbell`] /
//!   [`Submitter::ring_doorbell`] (a doorbell write; `None` polls every queue, which is how
//!   a host that cannot see doorbell writes notices new packets);
//! * running: [`Soc::run`] (until idle), [`Soc::run_until`], [`Soc::run_until_signal`]
//!   (until a signal's value is at most a bound, or idle), [`Submitter::hold`] (keep a run
//!   waiting for doorbells from other threads);
//! * results: [`Soc::events`] and [`Soc::set_event_sink`] (signals with event mailboxes, as
//!   interrupts; packet errors), [`Soc::queue_error`], [`Soc::completions`].
//!
//! [`Soc::checkpoint`] saves the whole machine between runs (device memory, modules,
//! queues, resident waves, caches, statistics, messages in flight); [`Soc::restore`]
//! continues it, identically, in a SoC of the same config on any number of threads.

pub(crate) mod checkpoint;
mod cp;
mod cu;
mod distributed;
mod driver;
pub(crate) mod launch;
mod memsys;
mod msg;
pub mod queue;
pub mod timing;

pub use cp::CommandProcessor;
pub use cu::{ClockedStats, ComputeUnit, CuActivity, WaveRecord};
#[cfg(feature = "mpi")]
pub use distributed::{DistributedRun, RankTimes};
pub use driver::{Completion, Driver};
pub use launch::{Dispatch, LaunchRequest};
pub use memsys::{Iod, L2};
pub use msg::{L2Maint, MemReq, SocMsg, WorkgroupAssign, WorkgroupDone};
pub use queue::{
    dispatch_key, EventSink, PacketError, PacketErrorKind, QueueDesc, QueueEvent, QueueId,
};

use crate::cache::{Cache, CacheStats, Level};
use crate::config::GpuConfig;
use crate::loader::CodeObject;
use crate::memory::coherence::Coherence;
use crate::memory::{DeviceMemory, MemFault, MemoryError};
use crate::service::{DispatchOutput, ServiceError, ServiceTable, SetupError};
use simkit::component::ComponentId;
use simkit::engine::{ExitStatus, SimInit, Simulation};
use simkit::handle::{PrimaryGuard, SimHandle};
use simkit::partition::Partitioning;
use simkit::time::{ClockDomain, Tick};
use simkit::topology::TopologyBuilder;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

/// Errors building or driving the SoC. Setup errors are fatal for the launch or config at
/// hand; a kernel fault is not an error here but part of a [`Completion`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SocError {
    /// The config cannot be built (bad cache geometry, clock).
    #[error("soc config: {0}")]
    Config(String),
    /// The topology was rejected by simkit.
    #[error("soc topology: {0}")]
    Topology(#[from] simkit::topology::TopologyError),
    /// The simulation stopped with an engine error.
    #[error("simulation: {0}")]
    Sim(#[from] simkit::engine::SimError),
    /// A code object did not load.
    #[error("code object: {0}")]
    Load(#[from] crate::loader::LoadError),
    /// A code object's image did not fit in memory.
    #[error("code object image: {0}")]
    Image(#[from] crate::memory::ImageError),
    /// Device memory allocation failed.
    #[error("device memory: {0}")]
    Memory(#[from] MemoryError),
    /// A device memory access failed.
    #[error("device memory: {0}")]
    Fault(#[from] MemFault),
    /// No module with this id.
    #[error("no module {0}")]
    UnknownModule(usize),
    /// No kernel with this name.
    #[error("no kernel `{0}`")]
    UnknownKernel(String),
    /// A launch that cannot be dispatched.
    #[error("bad launch: {0}")]
    BadLaunch(String),
    /// A run spread over MPI ranks failed (every rank gets the same error). Fatal for the
    /// run.
    #[cfg(feature = "mpi")]
    #[error("distributed run: {0}")]
    Distributed(#[from] simkit::mpi::DistError),
    /// The device memory replicas of the ranks could not be kept identical. Fatal for the
    /// run.
    #[cfg(feature = "mpi")]
    #[error("distributed run: {0}")]
    Replica(#[from] crate::memory::replica::ReplicaError),
    /// A launch whose arguments do not fit the kernel's metadata, or whose static and
    /// dynamic LDS exceed a workgroup's. Fatal for that launch only.
    #[error("bad launch: kernel `{kernel}`: {source}")]
    Kernarg {
        /// The kernel.
        kernel: String,
        /// What is wrong.
        #[source]
        source: crate::dispatch::kernarg::KernargError,
    },
    /// A checkpoint could not be written, read or decoded (corrupt or truncated bytes, a
    /// file error, a component that failed to restore).
    #[error("checkpoint: {0}")]
    Checkpoint(#[from] simkit::checkpoint::CheckpointError),
    /// A checkpoint that decodes but does not fit this SoC (another config or format
    /// version). Nothing was changed.
    #[error("checkpoint: {0}")]
    CheckpointMismatch(String),
    /// No queue with this id.
    #[error("no queue {0}")]
    UnknownQueue(u32),
    /// A queue description that cannot work.
    #[error("queue: field `{field}`: {reason}")]
    BadQueue {
        /// The field.
        field: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// A queue that still has packets in flight.
    #[error("queue {0} has packets in flight")]
    QueueBusy(u32),
    /// The ring has no free slot.
    #[error("queue {queue} is full ({slots} packets in flight)")]
    QueueFull {
        /// The queue.
        queue: u32,
        /// Its slots.
        slots: u64,
    },
}

/// How the SoC is spread over worker threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum SocPartition {
    /// XCD `x` on thread `x mod threads`; driver and IODs on thread 0.
    #[default]
    PerXcd,
    /// simkit's automatic partitioner.
    Auto,
}

/// Options of a SoC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SocOptions {
    /// Worker threads (partitions).
    pub threads: usize,
    /// Partitioning.
    pub partition: SocPartition,
    /// Record wave lifetimes for traces.
    pub trace: bool,
}

impl Default for SocOptions {
    fn default() -> Self {
        SocOptions {
            threads: 1,
            partition: SocPartition::PerXcd,
            trace: false,
        }
    }
}

/// A loaded code object's id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ModuleId(pub usize);

/// Where a CU sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CuPlace {
    /// XCD.
    pub xcd: u32,
    /// Shader engine in the XCD.
    pub se: u32,
    /// CU in the shader engine.
    pub cu: u32,
    /// Its simkit id.
    pub id: ComponentId,
}

/// Cache statistics summed per level.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LevelStats {
    /// Per-CU scalar caches.
    pub l1k: CacheStats,
    /// Per-CU vector caches.
    pub l1v: CacheStats,
    /// Per-XCD L2s.
    pub l2: CacheStats,
    /// Memory-side caches.
    pub mall: CacheStats,
    /// HBM bytes read.
    pub hbm_read: u64,
    /// HBM bytes written.
    pub hbm_write: u64,
}

/// A simulated GPU.
pub struct Soc {
    config: GpuConfig,
    mem: Arc<RwLock<DeviceMemory>>,
    modules: Vec<Arc<launch::Module>>,
    sim: Simulation<SocMsg>,
    driver: ComponentId,
    cus: Vec<CuPlace>,
    l2s: Vec<ComponentId>,
    iods: Vec<ComponentId>,
    /// The `amd_queue_t` of queue 0 (its ring follows it).
    queue: u64,
    /// Next packet index of queue 0 the submitters hand out.
    next_index: Arc<AtomicU64>,
    live: Live,
    period: Tick,
    /// The CUs' buffered writes and atomics (see [`crate::memory::coherence`]).
    coherence: Arc<Coherence>,
    /// How the sync hook publishes them (replicated over MPI ranks or not); read back
    /// only by `run_distributed` (feature `mpi`).
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    publisher: distributed::Publisher,
    /// Queues, dispatches in flight, decoded programs, events.
    shared: Arc<queue::Shared>,
    /// Runtime services of live dispatches, served at sync points.
    services: Services,
    /// What retired dispatches printed, by sequence number, until taken.
    outputs: std::collections::HashMap<u64, (DispatchOutput, Option<ServiceError>)>,
}

/// The service table shared with the sync hook and the submitters.
type Services = Arc<std::sync::Mutex<ServiceTable>>;

/// Dispatches submitted and not yet retired: their device allocations are freed once
/// they complete.
type Live = Arc<std::sync::Mutex<Vec<LiveDispatch>>>;

/// A dispatch not yet retired: its key and the device allocations (kernargs, completion
/// signal, scratch, virtual-LDS backing; 0 for none) to free when it completes.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
struct LiveDispatch {
    seq: u64,
    allocations: [u64; 4],
}

/// Submits dispatches from any thread, also while another thread runs the simulation
/// (the driver's doorbell: an injected event, delivered at the engine's current time).
/// It knows the code objects loaded before it was made.
#[derive(Clone)]
pub struct Submitter {
    config: Arc<GpuConfig>,
    mem: Arc<RwLock<DeviceMemory>>,
    modules: Vec<Arc<launch::Module>>,
    handle: SimHandle<SocMsg>,
    driver: ComponentId,
    queue: u64,
    next_index: Arc<AtomicU64>,
    live: Live,
    shared: Arc<queue::Shared>,
    services: Services,
}

impl std::fmt::Debug for Submitter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Submitter")
            .field("modules", &self.modules.len())
            .finish_non_exhaustive()
    }
}

impl Submitter {
    /// Prepares a dispatch the way a runtime does (kernargs, completion signal and scratch
    /// in device memory), writes its kernel-dispatch packet (barrier bit set: launches run
    /// in submission order) into queue 0's ring and rings the doorbell; returns the
    /// dispatch's key (packet `i` of queue 0 is dispatch `i + 1`).
    pub fn submit(&self, m: ModuleId, req: &LaunchRequest<'_>) -> Result<u64, SocError> {
        let module = self.modules.get(m.0).ok_or(SocError::UnknownModule(m.0))?;
        let desc = QueueDesc::amd_queue(self.queue, self.queue + 256, DEFAULT_RING_BYTES, 0);
        // Taken before the memory lock: the sync hook locks the services, then memory.
        let heap = self
            .services
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .heap();
        let (index, p) = {
            let mut mem = self.mem.write().unwrap_or_else(|p| p.into_inner());
            // The write lock also orders submitters of other threads.
            let index = self.next_index.load(Ordering::Relaxed);
            let read = mem.load_u64(desc.read_index)?;
            if index.saturating_sub(read) >= desc.slots() {
                return Err(SocError::QueueFull {
                    queue: 0,
                    slots: desc.slots(),
                });
            }
            let p = launch::prepare(&mut mem, module, req, &self.config, self.queue, &heap)?;
            if p.scratch != 0 {
                let mut inner = self.shared.write();
                if let Some(q) = inner.queues.get_mut(&0) {
                    q.packet_scratch.insert(index, p.scratch);
                }
            }
            // Body first, then the header (a producer publishes a packet by its header),
            // then the write index.
            let mut bytes = p.packet.to_bytes();
            let header = queue::packet_header(queue::PACKET_KERNEL_DISPATCH, true);
            bytes[0..2].copy_from_slice(&header.to_le_bytes());
            queue::publish(&mem, &desc, index, &bytes)?;
            self.next_index.store(index + 1, Ordering::Relaxed);
            (index, p)
        };
        let seq = dispatch_key(0, index);
        if let Some(s) = p.services {
            self.services
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .add(seq, s);
        }
        self.live
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(LiveDispatch {
                seq,
                allocations: [
                    p.packet.kernarg_address,
                    p.packet.completion_signal,
                    p.scratch,
                    p.virtual_lds,
                ],
            });
        self.ring_doorbell(Some(QueueId(0)))?;
        Ok(seq)
    }

    /// Rings the doorbell of queue `q`, or of every queue (`None`): the packet processor
    /// reads what is ready at the engine's current time.
    pub fn ring_doorbell(&self, q: Option<QueueId>) -> Result<(), SocError> {
        self.handle
            .schedule_now(
                self.driver,
                SocMsg::Doorbell {
                    queue: q.map(|q| q.0),
                },
            )
            .map_err(|e| SocError::BadLaunch(format!("cannot ring the doorbell: {e:?}")))
    }

    /// Creates a queue the packet processor watches; returns its id. The ring's headers
    /// are set to INVALID; processing starts at the read index found in memory. Safe while
    /// a run is going on (a runtime creating queues as it goes).
    pub fn create_queue(&self, desc: QueueDesc) -> Result<QueueId, SocError> {
        let bad = |field, reason: String| SocError::BadQueue { field, reason };
        if !desc.ring_bytes.is_power_of_two() || desc.ring_bytes < queue::PACKET_BYTES {
            return Err(bad(
                "ring_bytes",
                format!(
                    "{:#x} is not a power of two of at least 64",
                    desc.ring_bytes
                ),
            ));
        }
        if !desc.ring.is_multiple_of(queue::PACKET_BYTES) {
            return Err(bad(
                "ring",
                format!("{:#x} is not 64-byte aligned", desc.ring),
            ));
        }
        let next = {
            let mem = self.mem.read().unwrap_or_else(|p| p.into_inner());
            let access = crate::memory::Access::Write;
            mem.check(desc.ring, desc.ring_bytes as usize, access)
                .map_err(|f| bad("ring", f.to_string()))?;
            mem.check(desc.write_index, 8, crate::memory::Access::Read)
                .map_err(|f| bad("write_index", f.to_string()))?;
            mem.check(desc.read_index, 8, access)
                .map_err(|f| bad("read_index", f.to_string()))?;
            queue::init_ring(&mem, &desc)?;
            mem.load_u64(desc.read_index)?
        };
        let mut inner = self.shared.write();
        if inner
            .queues
            .values()
            .any(|q| q.desc.doorbell == desc.doorbell)
        {
            return Err(bad(
                "doorbell",
                format!("doorbell {} belongs to another queue", desc.doorbell),
            ));
        }
        let id = inner.queues.keys().next_back().map_or(0, |k| k + 1);
        inner.queues.insert(id, queue::QueueState::new(desc, next));
        Ok(QueueId(id))
    }

    /// Gives queue `q` a scratch region its dispatches use (ROCr's per-queue scratch).
    pub fn set_queue_scratch(&self, q: QueueId, base: u64, bytes: u64) -> Result<(), SocError> {
        let mut inner = self.shared.write();
        let st = inner
            .queues
            .get_mut(&q.0)
            .ok_or(SocError::UnknownQueue(q.0))?;
        st.scratch = (base, bytes);
        Ok(())
    }

    /// Removes queue `q` (refused while it has packets in flight).
    pub fn destroy_queue(&self, q: QueueId) -> Result<(), SocError> {
        let mut inner = self.shared.write();
        let st = inner.queues.get(&q.0).ok_or(SocError::UnknownQueue(q.0))?;
        if st.in_flight > 0 {
            return Err(SocError::QueueBusy(q.0));
        }
        inner.queues.remove(&q.0);
        Ok(())
    }

    /// Keeps a run going while the guard lives, waiting for submissions instead of
    /// completing when idle (the driver "open" state; drop the guard to "close").
    pub fn hold(&self) -> PrimaryGuard<SocMsg> {
        self.handle.hold()
    }

    /// Asks the running simulation to stop.
    pub fn request_exit(&self, reason: &str, code: i32) -> bool {
        self.handle.request_exit(reason, code)
    }
}

impl std::fmt::Debug for Soc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Soc")
            .field("gpu", &self.config.name)
            .field("cus", &self.cus.len())
            .field("partitions", &self.sim.partitions())
            .finish_non_exhaustive()
    }
}

fn cache(spec: &crate::config::CacheSpec, level: Level) -> Result<Cache, SocError> {
    Cache::new(spec, level).map_err(|e| SocError::Config(e.to_string()))
}

/// Latency of driver <-> CP messages, in shader cycles.
const CP_LATENCY_CYCLES: u64 = 100;
/// Latency of CP <-> CU messages, in shader cycles.
const SPI_LATENCY_CYCLES: u64 = 4;
/// Address interleave of the IODs (bytes).
const IOD_INTERLEAVE: u64 = 4096;
/// Ring bytes of queue 0 (512 packets; with its 256-byte `amd_queue_t` in front it fits
/// the one page the queue descriptor always took, so buffer addresses are unchanged).
const DEFAULT_RING_BYTES: u64 = 32 << 10;

impl Soc {
    /// Builds the component graph of `config`.
    pub fn new(config: &GpuConfig, opts: &SocOptions) -> Result<Soc, SocError> {
        let clock = ClockDomain::from_mhz(u64::from(config.clocks.shader_mhz))
            .map_err(|e| SocError::Config(e.to_string()))?;
        let period = clock.period();
        let cyc = |n: u64| Tick(period.0.saturating_mul(n.max(1)));
        // The device's memory size bounds what can be allocated (storage is only made for
        // pages that are written).
        let mut mem = DeviceMemory::with_capacity(config.dram.capacity_bytes);
        // Queue 0 (the one `submit` uses): its amd_queue_t, then its ring.
        let queue = mem.allocate(256 + DEFAULT_RING_BYTES, 256)?;
        let shared = Arc::new(queue::Shared::default());
        {
            let desc = QueueDesc::amd_queue(queue, queue + 256, DEFAULT_RING_BYTES, 0);
            queue::init_ring(&mem, &desc)?;
            shared
                .write()
                .queues
                .insert(0, queue::QueueState::new(desc, 0));
        }
        let mem = Arc::new(RwLock::new(mem));
        let config_arc = Arc::new(config.clone());
        let threads = opts.threads.max(1);
        let mut b = TopologyBuilder::<SocMsg>::new();
        let mut part: Vec<usize> = Vec::new();
        b.composite("soc")?;
        let sync_period = cyc(u64::from(config.sync_cycles));
        let n_cus_total = config.xcds as usize * config.xcd.active_cus as usize;
        let coherence = Arc::new(Coherence::new(n_cus_total));
        // Clocked mode: the timing every level needs.
        let clocked = match (config.exec_mode, &config.timing) {
            (crate::config::ExecMode::Functional, _) => None,
            (_, Some(t)) => Some(*t),
            (_, None) => {
                return Err(SocError::Config(
                    "exec_mode: Clocked needs a `timing` section in the GPU config".into(),
                ))
            }
        };
        let level_timing = clocked.as_ref().map(|t| {
            let total_channels = u64::from(config.dram.channels.max(1));
            memsys::LevelTiming {
                period,
                l2: cyc(u64::from(t.l2_latency)),
                mall: cyc(u64::from(t.mall_latency)),
                dram: cyc(u64::from(t.dram_latency)),
                l2_bw: u64::from(t.l2_bytes_per_cycle) * 1000,
                mall_bw: u64::from(t.mall_bytes_per_cycle) * 1000,
                // GB/s over the shader clock, per channel, in bytes per 1000 cycles.
                channel_bw: (u64::from(config.dram.bandwidth_gbytes_per_s) * 1_000_000
                    / u64::from(config.clocks.shader_mhz.max(1))
                    / total_channels)
                    .max(1),
                channels: (config.dram.channels / config.iods.max(1)).max(1),
                l2_to_cu: cyc(1),
                iod_to_l2: cyc(u64::from(config.xcd.l2.latency_cycles)),
                atomic_hold: cyc(u64::from(t.l2_atomic_cycles)),
            }
        });
        let driver = b.add(
            "soc.driver",
            Driver::new(
                config.xcds,
                sync_period,
                shared.clone(),
                mem.clone(),
                config_arc.clone(),
            ),
        )?;
        part.push(0);
        let mut iods = Vec::new();
        for i in 0..config.iods {
            let mall = match &config.iod.mall {
                Some(s) => Some(cache(s, Level::MemorySide)?),
                None => None,
            };
            let mut iod = Iod::new(mall);
            if let Some(t) = &level_timing {
                iod.set_timed(t.clone());
            }
            iods.push(b.add(&format!("soc.iod[{i}]"), iod)?);
            part.push(0);
        }
        let mut cus = Vec::new();
        let mut l2s = Vec::new();
        for x in 0..config.xcds {
            let p = x as usize % threads;
            b.composite(&format!("soc.xcd[{x}]"))?;
            let n_cus = config.xcd.active_cus;
            let cp = b.add(
                &format!("soc.xcd[{x}].cp"),
                CommandProcessor::new(
                    x,
                    config.xcds,
                    n_cus,
                    &config.xcd.cu,
                    shared.clone(),
                    mem.clone(),
                    config_arc.clone(),
                ),
            )?;
            part.push(p);
            let mut l2c = L2::new(
                cache(&config.xcd.l2, Level::L2)?,
                config.iods,
                IOD_INTERLEAVE,
            );
            if let Some(t) = &level_timing {
                l2c.set_timed(t.clone());
            }
            let l2 = b.add(&format!("soc.xcd[{x}].l2"), l2c)?;
            part.push(p);
            l2s.push(l2);
            // Driver <-> CP.
            let d_out = b.port(driver, &format!("xcd{x}"))?;
            let d_in = b.port(driver, &format!("in{x}"))?;
            let cp_in = b.port(cp, "driver_in")?;
            let cp_out = b.port(cp, "driver_out")?;
            b.connect(d_out, cp_in, cyc(CP_LATENCY_CYCLES))?;
            b.connect(cp_out, d_in, cyc(CP_LATENCY_CYCLES))?;
            // L2 -> IODs.
            for (i, &iod) in iods.iter().enumerate() {
                let o = b.port(l2, &format!("iod{i}"))?;
                let inp = b.port(iod, &format!("xcd_in{x}"))?;
                b.connect(o, inp, cyc(u64::from(config.xcd.l2.latency_cycles)))?;
                if clocked.is_some() {
                    // Clocked mode: responses come back.
                    let o = b.port(iod, &format!("xcd_out{x}"))?;
                    let inp = b.port(l2, &format!("iod_in{i}"))?;
                    b.connect(o, inp, cyc(u64::from(config.xcd.l2.latency_cycles)))?;
                }
            }
            let mut k = 0u32;
            for se in 0..config.xcd.shader_engines {
                b.composite(&format!("soc.xcd[{x}].se[{se}]"))?;
                for c in 0..config.xcd.cus_in_se(se) {
                    let l1 = memsys::L1s {
                        target: config.target,
                        scalar: cache(&config.xcd.cu.scalar_cache, Level::L1)?,
                        vector: cache(&config.xcd.cu.vector_cache, Level::L1)?,
                        out: Vec::new(),
                        counts: [0; 4],
                    };
                    let mut unit = ComputeUnit::new(
                        x,
                        k,
                        u64::from(config.quantum.max(1)),
                        config.max_wave_instructions,
                        period,
                        config.xcd.cu.wave_slots_per_simd,
                        mem.clone(),
                        l1,
                        opts.trace,
                        (coherence.clone(), cus.len(), sync_period),
                        shared.clone(),
                    );
                    if let Some(t) = &clocked {
                        unit.set_clocked(*t, config.xcd.cu.simds);
                    }
                    let cu = b.add(&format!("soc.xcd[{x}].se[{se}].cu[{c}]"), unit)?;
                    part.push(p);
                    let to_cu = b.port(cp, &format!("cu{k}"))?;
                    let from_cu = b.port(cp, &format!("cu_in{k}"))?;
                    let cu_in = b.port(cu, "cp_in")?;
                    let cu_out = b.port(cu, "cp_out")?;
                    b.connect(to_cu, cu_in, cyc(SPI_LATENCY_CYCLES))?;
                    b.connect(cu_out, from_cu, cyc(SPI_LATENCY_CYCLES))?;
                    let l2_out = b.port(cu, "l2_out")?;
                    let l2_in = b.port(l2, &format!("cu_in{k}"))?;
                    b.connect(
                        l2_out,
                        l2_in,
                        cyc(u64::from(config.xcd.cu.vector_cache.latency_cycles)),
                    )?;
                    if clocked.is_some() {
                        let o = b.port(l2, &format!("cu_out{k}"))?;
                        let inp = b.port(cu, "l2_in")?;
                        b.connect(o, inp, cyc(1))?;
                    }
                    cus.push(CuPlace {
                        xcd: x,
                        se,
                        cu: c,
                        id: cu,
                    });
                    k += 1;
                }
            }
        }
        let topo = b.build()?;
        let partitioning = match (threads, opts.partition) {
            (1, _) => Partitioning::Single,
            (_, SocPartition::PerXcd) => Partitioning::Manual(part),
            (n, SocPartition::Auto) => Partitioning::Auto(n),
        };
        let mut sim = SimInit::new(topo).partitioning(partitioning).init()?;
        let (coh, hook_mem) = (coherence.clone(), mem.clone());
        let services = Services::default();
        let (table, handle) = (services.clone(), sim.handle());
        let publisher = distributed::Publisher::default();
        let hook_publisher = publisher.clone();
        sim.set_sync_points(sync_period, move |_| {
            let mem = hook_mem.read().unwrap_or_else(|p| p.into_inner());
            if !hook_publisher.publish(&coh, &mem) {
                // The replicas of the ranks can no longer agree: every rank stops.
                handle.request_exit("device memory replicas could not be exchanged", 1);
                return;
            }
            // Runtime services (hostcall) after the CUs' stores and atomics are published:
            // the requests waves made are visible, and the answers are visible to every CU
            // from here on (crate::service).
            let mut t = table.lock().unwrap_or_else(|p| p.into_inner());
            if !t.is_empty() && t.serve(&mem) {
                // A failed service leaves its waves waiting forever: stop the run.
                handle.request_exit("a runtime service failed", 1);
            }
        });
        Ok(Soc {
            config: config.clone(),
            mem,
            modules: Vec::new(),
            sim,
            driver,
            cus,
            l2s,
            iods,
            queue,
            next_index: Arc::new(AtomicU64::new(0)),
            live: Live::default(),
            period,
            coherence,
            publisher,
            shared,
            services,
            outputs: std::collections::HashMap::new(),
        })
    }

    /// The config it was built from.
    pub fn config(&self) -> &GpuConfig {
        &self.config
    }

    /// The shader clock period.
    pub fn period(&self) -> Tick {
        self.period
    }

    /// Worker threads.
    pub fn partitions(&self) -> usize {
        self.sim.partitions()
    }

    /// The simulation (for reports and checkpoints).
    pub fn simulation(&self) -> &Simulation<SocMsg> {
        &self.sim
    }

    /// Every CU with its place.
    pub fn cus(&self) -> &[CuPlace] {
        &self.cus
    }

    /// A CU component.
    pub fn cu(&self, p: &CuPlace) -> Option<&ComputeUnit> {
        self.sim.component::<ComputeUnit>(p.id)
    }

    fn mem_write(&self) -> std::sync::RwLockWriteGuard<'_, DeviceMemory> {
        self.mem.write().unwrap_or_else(|p| p.into_inner())
    }

    fn mem_read(&self) -> std::sync::RwLockReadGuard<'_, DeviceMemory> {
        self.mem.read().unwrap_or_else(|p| p.into_inner())
    }

    /// Allocates zeroed device memory.
    pub fn alloc(&mut self, size: u64) -> Result<u64, SocError> {
        Ok(self.mem_write().allocate(size.max(1), 256)?)
    }

    /// Copies host bytes into device memory.
    pub fn write(&self, addr: u64, data: &[u8]) -> Result<(), SocError> {
        Ok(self.mem_read().write(addr, data)?)
    }

    /// Copies device memory out.
    pub fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), SocError> {
        Ok(self.mem_read().read(addr, out)?)
    }

    /// Bytes of device memory the live allocations take (whole pages): what the host and
    /// the dispatches not yet retired hold.
    pub fn memory_in_use(&self) -> u64 {
        self.mem_read().in_use()
    }

    /// Loads a code object for this GPU's target.
    pub fn load_code_object(&mut self, bytes: &[u8]) -> Result<ModuleId, SocError> {
        let co = CodeObject::parse(bytes)?;
        if co.target() != self.config.target {
            return Err(SocError::BadLaunch(format!(
                "code object is for {}, the gpu is {}",
                co.target_id(),
                self.config.target
            )));
        }
        let loaded = self.mem_write().load_code_object(&co)?;
        self.register_code(&co, &loaded);
        self.modules.push(Arc::new(launch::Module {
            bytes: bytes.to_vec(),
            co,
            loaded,
        }));
        Ok(ModuleId(self.modules.len() - 1))
    }

    /// Tells the code cache where a loaded code object's text is (decoded exactly, not
    /// from its whole allocation) and its kernels' metadata register counts.
    fn register_code(&self, co: &CodeObject, loaded: &crate::memory::LoadedCodeObject) {
        self.shared.write().code.register(co, loaded, None);
    }

    /// The kernel object (device address of the kernel descriptor) of kernel `name` of a
    /// loaded module: what an AQL packet's `kernel_object` holds.
    pub fn kernel_object(&self, m: ModuleId, name: &str) -> Result<u64, SocError> {
        let module = self.modules.get(m.0).ok_or(SocError::UnknownModule(m.0))?;
        module
            .loaded
            .kernel(name)
            .map(|k| k.descriptor_address)
            .ok_or_else(|| SocError::UnknownKernel(name.to_string()))
    }

    /// A handle that submits dispatches from any thread (see [`Submitter`]).
    pub fn submitter(&self) -> Submitter {
        Submitter {
            config: Arc::new(self.config.clone()),
            mem: self.mem.clone(),
            modules: self.modules.clone(),
            handle: self.sim.handle(),
            driver: self.driver,
            queue: self.queue,
            next_index: self.next_index.clone(),
            live: self.live.clone(),
            shared: self.shared.clone(),
            services: self.services.clone(),
        }
    }

    /// Prepares a dispatch and injects it; returns its sequence number. Run (or keep
    /// running) to execute it.
    pub fn submit(&mut self, m: ModuleId, req: &LaunchRequest<'_>) -> Result<u64, SocError> {
        self.submitter().submit(m, req)
    }

    /// Handles every event at the next pending time (interactive stepping); returns that
    /// time, or `None` when nothing is pending.
    pub fn step(&mut self) -> Result<Option<Tick>, SocError> {
        Ok(self.sim.step()?)
    }

    /// Runs until nothing is left to do.
    pub fn run(&mut self) -> Result<ExitStatus, SocError> {
        let status = self.sim.run()?;
        self.retire()?;
        Ok(status)
    }

    /// Runs every event at or before `limit` (or until nothing is left to do), for
    /// example to stop mid-kernel and take a [`Soc::checkpoint`].
    pub fn run_until(&mut self, limit: Tick) -> Result<ExitStatus, SocError> {
        let status = self.sim.run_until(limit)?;
        self.retire()?;
        Ok(status)
    }

    /// Frees the kernargs, completion signal, scratch and virtual-LDS backing of completed
    /// dispatches.
    fn retire(&mut self) -> Result<(), SocError> {
        let done: Vec<u64> = self.completions().iter().map(|c| c.seq).collect();
        // The packet processor drops a dispatch from the registry when it completes it; a
        // rank that ran only compute units (a distributed run) decoded the dispatches it
        // was told about and learns of their completion from the packet processor's state
        // collected after the run: drop them here, on every rank alike.
        self.shared
            .write()
            .dispatches
            .retain(|seq, _| !done.contains(seq));
        let mut live = self.live.lock().unwrap_or_else(|p| p.into_inner());
        let mut mem = self.mem.write().unwrap_or_else(|p| p.into_inner());
        let mut result = Ok(());
        let mut services = self.services.lock().unwrap_or_else(|p| p.into_inner());
        live.retain(|d| {
            if !done.contains(&d.seq) {
                return true;
            }
            // The packet processor decremented the completion signal (1 -> 0) when the
            // dispatch completed: what a runtime waits on.
            let signal = d.allocations[1];
            match mem.load_u64(signal + queue::SIGNAL_VALUE) {
                Ok(0) => {}
                Ok(v) => {
                    result = Err(SocError::BadLaunch(format!(
                        "dispatch {} completed but its completion signal at {signal:#x} holds {v}",
                        d.seq
                    )))
                }
                Err(e) => result = Err(e.into()),
            }
            match services.retire(d.seq, &mut mem) {
                Ok(Some(out)) => {
                    self.outputs.insert(d.seq, out);
                }
                Ok(None) => {}
                Err(SetupError::Alloc(e)) => result = Err(e.into()),
                Err(SetupError::Memory(e)) => result = Err(e.into()),
                Err(e @ SetupError::Printf(_)) => {
                    result = Err(SocError::BadLaunch(format!("dispatch {}: {e}", d.seq)))
                }
            }
            for a in d.allocations {
                if a != 0 {
                    if let Err(e) = mem.free(a) {
                        result = Err(e.into());
                    }
                }
            }
            false
        });
        result
    }

    /// What dispatch `seq` printed (hostcall `printf`), taken once after it completed,
    /// with the service failure that stopped it if one did; empty for a kernel that printed
    /// nothing.
    pub fn take_output(&mut self, seq: u64) -> (DispatchOutput, Option<ServiceError>) {
        self.outputs.remove(&seq).unwrap_or_default()
    }

    /// A runtime service failure of a dispatch still running (the run stopped because of
    /// it): the dispatch's sequence number and the error.
    pub fn service_failure(&self) -> Option<(u64, ServiceError)> {
        let t = self.services.lock().unwrap_or_else(|p| p.into_inner());
        t.failure().map(|(k, e)| (k, e.clone()))
    }

    /// Dispatches decoded and not yet completed (the packet processor's registry, which
    /// the compute units read their dispatch from).
    pub fn registered_dispatches(&self) -> usize {
        self.shared.read().dispatches.len()
    }

    /// Completed dispatches so far.
    pub fn completions(&self) -> &[Completion] {
        self.sim
            .component::<Driver>(self.driver)
            .map_or(&[], |d| d.completed.as_slice())
    }

    /// Cache and HBM statistics, summed per level.
    pub fn level_stats(&self) -> LevelStats {
        let mut s = LevelStats::default();
        for p in &self.cus {
            if let Some(cu) = self.cu(p) {
                let (k, v) = cu.l1();
                s.l1k.merge(k.stats());
                s.l1v.merge(v.stats());
            }
        }
        for &l in &self.l2s {
            if let Some(l2) = self.sim.component::<L2>(l) {
                s.l2.merge(l2.cache().stats());
            }
        }
        for &i in &self.iods {
            if let Some(iod) = self.sim.component::<Iod>(i) {
                if let Some(m) = iod.mall() {
                    s.mall.merge(m.stats());
                }
                s.hbm_read += iod.hbm_read;
                s.hbm_write += iod.hbm_write;
            }
        }
        s
    }

    /// Zeroes per-kernel CU activity, wave records and cache statistics (between kernels;
    /// cache contents stay).
    pub fn reset_stats(&mut self) {
        self.sim.for_each_component_mut::<ComputeUnit>(|cu| {
            cu.activity = CuActivity::default();
            cu.records.clear();
            cu.l1.scalar.reset_stats();
            cu.l1.counts = [0; 4];
            cu.l1.vector.reset_stats();
            cu.reset_clocked_stats();
        });
        self.sim
            .for_each_component_mut::<L2>(|l2| l2.cache.reset_stats());
        self.sim.for_each_component_mut::<Iod>(|iod| {
            if let Some(m) = &mut iod.mall {
                m.reset_stats();
            }
            iod.hbm_read = 0;
            iod.hbm_write = 0;
        });
    }

    /// Current simulated time.
    pub fn now(&self) -> Tick {
        self.sim.now()
    }

    /// Anchors GPU timestamps (the profiling `start_ts`/`end_ts` the packet processor
    /// writes into completion signals) at GPU timestamp `counter` now: later timestamps
    /// are `counter` plus the simulated time since, in counts of the
    /// [`queue::TIMESTAMP_PERIOD_PS`] clock. A host that reports a GPU clock counter of its
    /// own (the emulated KFD's GET_CLOCK_COUNTERS follows host time) calls this before
    /// each run, so signal timestamps fall in the range its clock reports (ROCr checks
    /// that) while their differences stay simulated time. Timestamps never go back: an
    /// origin below the current timestamp is raised to it. Without a call, timestamps are
    /// the simulated time. Not part of checkpoints (the host sets it again).
    pub fn set_timestamp_origin(&self, counter: u64) {
        let now = self.sim.now().0;
        let mut inner = self.shared.write();
        let current = inner.timestamp(now);
        inner.timestamp_origin = (counter.max(current), now);
    }

    // ---- the runtime-facing device API (see the module documentation) ----

    /// Maps `size` zeroed bytes of device memory (VRAM) at `va`, which the runtime chose
    /// (64 KiB aligned: the device page).
    pub fn alloc_at(&mut self, va: u64, size: u64) -> Result<u64, SocError> {
        Ok(self.mem_write().allocate_at(va, size)?)
    }

    /// Maps host memory the process owns (KFD USERPTR and GTT buffers) into the GPU
    /// address space at `va` (for KFD, `va == ptr as u64`), in place: the simulated GPU
    /// reads and writes those bytes themselves, with the coherence described in
    /// [`crate::memory::host`]. A SoC with host memory mapped cannot be checkpointed.
    ///
    /// # Safety
    /// As [`DeviceMemory::map_host`]: the range stays valid until [`Soc::unmap_host`], and
    /// others touch it only with atomic or volatile accesses while it is mapped.
    pub unsafe fn map_host(&mut self, va: u64, ptr: *mut u8, len: u64) -> Result<(), SocError> {
        // SAFETY: the caller's contract is the one `map_host` needs.
        Ok(unsafe { self.mem_write().map_host(va, ptr, len) }?)
    }

    /// Removes a host range mapped by [`Soc::map_host`].
    pub fn unmap_host(&mut self, va: u64) -> Result<(), SocError> {
        Ok(self.mem_write().unmap_host(va)?)
    }

    /// Frees an allocation made by [`Soc::alloc`] or [`Soc::alloc_at`].
    pub fn free(&mut self, base: u64) -> Result<(), SocError> {
        Ok(self.mem_write().free(base)?)
    }

    /// Creates a queue the packet processor watches; returns its id (see
    /// [`Submitter::create_queue`], which also works while a run is going on).
    pub fn create_queue(&mut self, desc: QueueDesc) -> Result<QueueId, SocError> {
        self.submitter().create_queue(desc)
    }

    /// Gives queue `q` a scratch region its dispatches use (ROCr's per-queue scratch).
    pub fn set_queue_scratch(&mut self, q: QueueId, base: u64, bytes: u64) -> Result<(), SocError> {
        self.submitter().set_queue_scratch(q, base, bytes)
    }

    /// Removes queue `q` (refused while it has packets in flight).
    pub fn destroy_queue(&mut self, q: QueueId) -> Result<(), SocError> {
        self.submitter().destroy_queue(q)
    }

    /// The queue whose doorbell id is `doorbell`.
    pub fn queue_by_doorbell(&self, doorbell: u32) -> Option<QueueId> {
        let inner = self.shared.read();
        inner
            .queues
            .iter()
            .find(|(_, q)| q.desc.doorbell == doorbell)
            .map(|(&id, _)| QueueId(id))
    }

    /// Rings the doorbell of queue `q` (`None`: every queue). Run to process the packets.
    pub fn ring_doorbell(&self, q: Option<QueueId>) -> Result<(), SocError> {
        if let Some(q) = q {
            if !self.shared.read().queues.contains_key(&q.0) {
                return Err(SocError::UnknownQueue(q.0));
            }
        }
        self.submitter().ring_doorbell(q)
    }

    /// The error that stopped queue `q`, if one did.
    pub fn queue_error(&self, q: QueueId) -> Option<PacketError> {
        self.shared
            .read()
            .queues
            .get(&q.0)
            .and_then(|s| s.error.clone())
    }

    /// Every event delivered so far (signals with mailboxes, packet errors), in order.
    pub fn events(&self) -> Vec<QueueEvent> {
        self.shared.read().events.clone()
    }

    /// Sets (or clears) the callback events are delivered to, on a simulation thread.
    pub fn set_event_sink(&mut self, sink: Option<EventSink>) {
        *self.shared.sink.lock().unwrap_or_else(|p| p.into_inner()) = sink;
    }

    /// Runs until the value of signal `handle` is at most `value` (true) or nothing is
    /// left to do (false), in steps of one memory sync period.
    pub fn run_until_signal(&mut self, handle: u64, value: i64) -> Result<bool, SocError> {
        let step = Tick(
            self.period
                .0
                .saturating_mul(u64::from(self.config.sync_cycles.max(1))),
        );
        let done = |soc: &Soc| -> Result<bool, SocError> {
            Ok(soc.mem_read().load_u64(handle + queue::SIGNAL_VALUE)? as i64 <= value)
        };
        loop {
            if done(self)? {
                self.retire()?;
                return Ok(true);
            }
            // Injected doorbells are taken at the start of a run.
            let next = Tick(self.now().0.saturating_add(step.0));
            self.sim.run_until(next)?;
            if self.sim.pending_events() == 0 {
                let d = done(self)?;
                self.retire()?;
                return Ok(d);
            }
        }
    }
}
