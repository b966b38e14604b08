//! The GPU as a graph of simkit components: SoC -> IODs and XCDs -> CP, L2, SEs -> CUs.
//!
//! ```text
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
//! Each XCD (CP, L2, CUs) is one partition unit: with `threads` partitions, XCD `x` runs
//! on thread `x mod threads`, the driver and the IODs on thread 0.
//!
//! [`Soc::checkpoint`] saves the whole machine between runs (device memory, modules,
//! queues, resident waves, caches, statistics, messages in flight); [`Soc::restore`]
//! continues it, identically, in a SoC of the same config on any number of threads.

pub(crate) mod checkpoint;
mod cp;
mod cu;
mod driver;
mod launch;
mod memsys;
mod msg;

pub use cp::CommandProcessor;
pub use cu::{ComputeUnit, CuActivity, WaveRecord};
pub use driver::{Completion, Driver};
pub use launch::{Dispatch, LaunchRequest};
pub use memsys::{Iod, L2};
pub use msg::{L2Maint, MemReq, SocMsg, WorkgroupAssign, WorkgroupDone};

use crate::cache::{Cache, CacheStats, Level};
use crate::config::GpuConfig;
use crate::exec::Program;
use crate::loader::CodeObject;
use crate::memory::coherence::Coherence;
use crate::memory::{DeviceMemory, MemFault, MemoryError};
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
    queue: u64,
    next_seq: Arc<AtomicU64>,
    live: Live,
    period: Tick,
    /// The CUs' buffered writes and atomics (see [`crate::memory::coherence`]).
    coherence: Arc<Coherence>,
}

/// Dispatches submitted and not yet retired: their device allocations are freed once
/// they complete.
type Live = Arc<std::sync::Mutex<Vec<LiveDispatch>>>;

/// A dispatch not yet retired: its sequence number and the device allocations (kernargs,
/// packet, scratch; 0 for none) to free when it completes.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
struct LiveDispatch {
    seq: u64,
    allocations: [u64; 3],
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
    next_seq: Arc<AtomicU64>,
    live: Live,
}

impl std::fmt::Debug for Submitter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Submitter")
            .field("modules", &self.modules.len())
            .finish_non_exhaustive()
    }
}

impl Submitter {
    /// Prepares a dispatch (kernargs, packet and scratch in device memory) and rings the
    /// driver's doorbell; returns the dispatch's sequence number.
    pub fn submit(&self, m: ModuleId, req: &LaunchRequest<'_>) -> Result<u64, SocError> {
        let module = self.modules.get(m.0).ok_or(SocError::UnknownModule(m.0))?;
        let seq = self.next_seq.fetch_add(1, Ordering::Relaxed);
        let d = {
            let mut mem = self.mem.write().unwrap_or_else(|p| p.into_inner());
            launch::prepare(&mut mem, module, m.0, req, &self.config, self.queue, seq)?
        };
        self.live
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(LiveDispatch {
                seq,
                allocations: [d.packet.kernarg_address, d.packet_address, d.scratch_base],
            });
        let d = Arc::new(d);
        self.handle
            .schedule_now(self.driver, SocMsg::Submit(d))
            .map_err(|e| SocError::BadLaunch(format!("cannot submit: {e:?}")))?;
        Ok(seq)
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
        let queue = mem.allocate(256, 256)?;
        let mem = Arc::new(RwLock::new(mem));
        let threads = opts.threads.max(1);
        let mut b = TopologyBuilder::<SocMsg>::new();
        let mut part: Vec<usize> = Vec::new();
        b.composite("soc")?;
        let sync_period = cyc(u64::from(config.sync_cycles));
        let n_cus_total = config.xcds as usize * config.xcd.active_cus as usize;
        let coherence = Arc::new(Coherence::new(n_cus_total));
        let driver = b.add("soc.driver", Driver::new(config.xcds, sync_period))?;
        part.push(0);
        let mut iods = Vec::new();
        for i in 0..config.iods {
            let mall = match &config.iod.mall {
                Some(s) => Some(cache(s, Level::MemorySide)?),
                None => None,
            };
            iods.push(b.add(&format!("soc.iod[{i}]"), Iod::new(mall))?);
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
                CommandProcessor::new(x, config.xcds, n_cus, &config.xcd.cu),
            )?;
            part.push(p);
            let l2 = b.add(
                &format!("soc.xcd[{x}].l2"),
                L2::new(
                    cache(&config.xcd.l2, Level::L2)?,
                    config.iods,
                    IOD_INTERLEAVE,
                ),
            )?;
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
                    let cu = b.add(
                        &format!("soc.xcd[{x}].se[{se}].cu[{c}]"),
                        ComputeUnit::new(
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
                        ),
                    )?;
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
        let (coh, shared) = (coherence.clone(), mem.clone());
        sim.set_sync_points(sync_period, move |_| {
            let mem = shared.read().unwrap_or_else(|p| p.into_inner());
            coh.sync(&mem);
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
            next_seq: Arc::new(AtomicU64::new(1)),
            live: Live::default(),
            period,
            coherence,
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
        let program = Arc::new(Program::new(
            self.config.target,
            loaded.base + co.text_address(),
            co.text(),
        ));
        self.modules.push(Arc::new(launch::Module {
            bytes: bytes.to_vec(),
            co,
            loaded,
            program,
        }));
        Ok(ModuleId(self.modules.len() - 1))
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
            next_seq: self.next_seq.clone(),
            live: self.live.clone(),
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

    /// Frees the kernargs, packet and scratch of completed dispatches.
    fn retire(&mut self) -> Result<(), SocError> {
        let done: Vec<u64> = self.completions().iter().map(|c| c.seq).collect();
        let mut live = self.live.lock().unwrap_or_else(|p| p.into_inner());
        let mut mem = self.mem.write().unwrap_or_else(|p| p.into_inner());
        let mut result = Ok(());
        live.retain(|d| {
            if !done.contains(&d.seq) {
                return true;
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
}
