//! Running a [`Workload`] on the SoC model: buffers in, launches one after another,
//! statistics per kernel, outputs written and checked.

use super::{compare, ArgValue, Launch, Partition, Workload};
use crate::report::{
    CacheLevel, CheckReport, CuOccupancy, KernelReport, RunReport, TranslatedReport,
};
use crate::trace::WaveSpan;
use gpu_model::cache::CacheStats;
use gpu_model::exec::InstClass;
use gpu_model::soc::{LaunchRequest, ModuleId, Soc, SocError, SocOptions, SocPartition};
use std::collections::HashMap;
use std::time::Instant;

/// How to run.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunOptions {
    /// Threads (overrides the scenario's when set).
    pub threads: Option<usize>,
    /// Record wave lifetimes.
    pub trace: bool,
}

/// Why a run stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// Building the SoC or preparing a launch failed (bad input).
    #[error("{0}")]
    Setup(#[from] SocError),
    /// A kernel faulted.
    #[error("launch {launch}: {fault}")]
    Fault {
        /// Launch index.
        launch: usize,
        /// The fault report.
        fault: String,
    },
    /// A buffer's final contents do not fit in host memory.
    #[error("buffer `{buffer}`: its {bytes} bytes do not fit in host memory")]
    HostMemory {
        /// The buffer.
        buffer: String,
        /// Its size.
        bytes: u64,
    },
    /// Writing or reading an output file failed.
    #[error("{0}")]
    Output(#[from] super::ScenarioError),
}

/// What a run produced.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    /// The report.
    pub report: RunReport,
    /// Wave lifetimes (empty unless tracing).
    pub spans: Vec<WaveSpan>,
    /// Final contents of every buffer.
    pub buffers: Vec<Vec<u8>>,
}

fn level(name: &str, instances: u32, s: &CacheStats) -> CacheLevel {
    CacheLevel {
        level: name.into(),
        instances,
        hits: s.hits,
        misses: s.misses,
        bypasses: s.bypasses,
        writebacks: s.writebacks,
        invalidations: s.invalidations,
    }
}

/// Code objects already loaded on a SoC, by path and bundle entry.
pub type Modules<'w> = HashMap<(&'w std::path::Path, Option<&'w str>), ModuleId>;

impl Workload {
    /// Allocates every buffer on `soc` and writes its initial contents; returns the
    /// device addresses in buffer order.
    pub fn place_buffers(&self, soc: &mut Soc) -> Result<Vec<u64>, SocError> {
        let mut addrs = Vec::with_capacity(self.buffers.len());
        for b in &self.buffers {
            let a = soc.alloc(b.size())?;
            if !b.bytes.is_empty() {
                soc.write(a, &b.bytes)?;
            }
            addrs.push(a);
        }
        Ok(addrs)
    }

    /// The module of launch `l` (its code object loaded on first use) and its kernel
    /// arguments as bytes, buffers resolved to `addrs`.
    pub fn launch_parts<'w>(
        soc: &mut Soc,
        modules: &mut Modules<'w>,
        l: &'w Launch,
        addrs: &[u64],
    ) -> Result<(ModuleId, Vec<Vec<u8>>), SocError> {
        let key = (l.code_object_path.as_path(), l.code_object_entry.as_deref());
        let m = match modules.get(&key) {
            Some(&m) => m,
            None => {
                let m = soc.load_code_object(&l.code_object_bytes)?;
                modules.insert(key, m);
                m
            }
        };
        let args = l
            .args
            .iter()
            .map(|a| match a {
                ArgValue::Buffer(i) => addrs[*i].to_le_bytes().to_vec(),
                ArgValue::Bytes(b) => b.clone(),
            })
            .collect();
        Ok((m, args))
    }

    /// Runs every launch in order and checks the outputs. `on_kernel` is told when each
    /// launch starts (for progress display).
    pub fn run(
        &self,
        opts: &RunOptions,
        on_kernel: &mut dyn FnMut(usize, &str),
    ) -> Result<RunOutcome, RunError> {
        let threads = opts.threads.unwrap_or(self.threads).max(1);
        self.run_with(threads, opts, true, on_kernel, &mut |soc| {
            soc.run().map(|_| ())
        })
    }

    /// As [`Workload::run`], as one of the ranks of `cluster` (every rank calls it): the
    /// SoC's partitions (`opts.threads`, 1 when unset, on each rank) are placed round-robin
    /// on the ranks; each kernel runs with [`Soc::run_distributed`]. Every rank gets the
    /// same outcome; only rank 0 writes output files. `config` is the caller's hash of the
    /// scenario, compared between ranks before the first kernel runs. Also gives where this
    /// rank's time went, summed over the launches.
    #[cfg(feature = "mpi")]
    pub fn run_distributed(
        &self,
        opts: &RunOptions,
        cluster: &simkit::mpi::Cluster,
        config: u64,
        on_kernel: &mut dyn FnMut(usize, &str),
    ) -> Result<(RunOutcome, gpu_model::soc::RankTimes), RunError> {
        let threads = opts.threads.unwrap_or(1).max(1) * cluster.size();
        let mut times = gpu_model::soc::RankTimes::default();
        let out = self.run_with(threads, opts, cluster.is_root(), on_kernel, &mut |soc| {
            let r = soc.run_distributed(cluster, &simkit::mpi::Placement::RoundRobin, config)?;
            times += r.times;
            // Each launch runs to completion: a dispatch still registered on any rank
            // would be one that rank never let go of.
            match soc.registered_dispatches() {
                0 => Ok(()),
                n => Err(SocError::BadLaunch(format!(
                    "rank {}: {n} dispatches still registered after the run",
                    cluster.rank()
                ))),
            }
        })?;
        Ok((out, times))
    }

    /// Runs every launch, running the SoC with `run_soc`; writes output files if `writer`.
    fn run_with(
        &self,
        threads: usize,
        opts: &RunOptions,
        writer: bool,
        on_kernel: &mut dyn FnMut(usize, &str),
        run_soc: &mut dyn FnMut(&mut Soc) -> Result<(), SocError>,
    ) -> Result<RunOutcome, RunError> {
        let soc_opts = SocOptions {
            threads,
            partition: match self.partition {
                Partition::Auto => SocPartition::Auto,
                _ => SocPartition::PerXcd,
            },
            trace: opts.trace,
        };
        let mut soc = Soc::new(&self.config, &soc_opts)?;
        let addrs = self.place_buffers(&mut soc)?;
        let mut modules = Modules::new();
        let slots = self.config.xcd.cu.simds * self.config.xcd.cu.wave_slots_per_simd;
        let mut kernels = Vec::new();
        let mut spans = Vec::new();
        let host0 = Instant::now();
        for (li, l) in self.launches.iter().enumerate() {
            on_kernel(li, &l.kernel);
            let (m, args) = Workload::launch_parts(&mut soc, &mut modules, l, &addrs)?;
            soc.reset_stats();
            let t0 = Instant::now();
            let seq = soc.submit(
                m,
                &LaunchRequest {
                    kernel: &l.kernel,
                    grid: l.grid,
                    workgroup: l.workgroup,
                    dynamic_lds: l.dynamic_lds,
                    args: &args,
                },
            )?;
            run_soc(&mut soc)?;
            let host = t0.elapsed().as_secs_f64();
            if let Some((_, e)) = soc.service_failure() {
                return Err(RunError::Fault {
                    launch: li,
                    fault: format!("kernel `{}`: {e}", l.kernel),
                });
            }
            let (printed, failed) = soc.take_output(seq);
            if let Some(e) = failed {
                return Err(RunError::Fault {
                    launch: li,
                    fault: format!("kernel `{}`: {e}", l.kernel),
                });
            }
            let Some(done) = soc.completions().iter().find(|c| c.seq == seq).cloned() else {
                return Err(RunError::Fault {
                    launch: li,
                    fault: format!(
                        "kernel `{}` did not complete (a wave may wait forever)",
                        l.kernel
                    ),
                });
            };
            if let Some(f) = done.fault {
                return Err(RunError::Fault {
                    launch: li,
                    fault: f.to_string(),
                });
            }
            let ticks = done.completed.0 - done.submitted.0;
            let mut occupancy = Vec::new();
            let (mut wgs, mut waves, mut insts) = (0, 0, 0);
            let mut mem_insts = [0u64; 4];
            let mut classes = [0u64; InstClass::COUNT];
            for p in soc.cus() {
                let Some(cu) = soc.cu(p) else { continue };
                let a = cu.activity;
                wgs += a.workgroups;
                waves += a.waves;
                insts += a.instructions;
                for (t, c) in classes.iter_mut().zip(a.classes) {
                    *t += c;
                }
                for (t, c) in mem_insts.iter_mut().zip(cu.memory_instructions()) {
                    *t += c;
                }
                if a.workgroups > 0 {
                    occupancy.push(CuOccupancy {
                        cu: format!("soc.xcd[{}].se[{}].cu[{}]", p.xcd, p.se, p.cu),
                        workgroups: a.workgroups,
                        waves: a.waves,
                        peak_waves: a.peak_waves,
                        mean_waves: if ticks == 0 {
                            0.0
                        } else {
                            a.wave_ticks as f64 / ticks as f64
                        },
                        wave_slots: slots,
                    });
                }
                for r in &cu.records {
                    spans.push(WaveSpan {
                        xcd: p.xcd,
                        se: p.se,
                        cu: p.cu,
                        slot: r.slot,
                        launch: li as u32,
                        workgroup: r.workgroup,
                        wave: r.wave,
                        start: r.start.0,
                        end: r.end.0,
                        instructions: r.instructions,
                    });
                }
            }
            let s = soc.level_stats();
            let ncu = soc.cus().len() as u32;
            let mut caches = vec![
                level("L1K", ncu, &s.l1k),
                level("L1V", ncu, &s.l1v),
                level("L2", self.config.xcds, &s.l2),
            ];
            if self.config.iod.mall.is_some() {
                caches.push(level("MALL", self.config.iods, &s.mall));
            }
            kernels.push(KernelReport {
                translated: l.translated.as_ref().map(|t| TranslatedReport {
                    guest: t.guest.to_string(),
                    host: t.host.to_string(),
                    code_bytes_before: t.code_bytes.0,
                    code_bytes_after: t.code_bytes.1,
                    expanded: t.expanded,
                }),
                kernel: l.kernel.clone(),
                code_object: l.code_object_path.display().to_string(),
                grid: l.grid,
                workgroup: l.workgroup,
                host_seconds: host,
                ticks,
                cycles: ticks / soc.period().0.max(1),
                workgroups: wgs,
                waves,
                // By class (as the executor counts them), plus the global-memory
                // accesses the cache observer saw, by kind.
                instructions: InstClass::ALL
                    .iter()
                    .map(|c| (c.name().to_string(), classes[*c as usize]))
                    .chain([
                        ("total".to_string(), insts),
                        ("vmem_load".to_string(), mem_insts[1]),
                        ("vmem_store".to_string(), mem_insts[2]),
                        ("vmem_atomic".to_string(), mem_insts[3]),
                    ])
                    .collect(),
                occupancy,
                caches,
                hbm_read_bytes: s.hbm_read,
                hbm_write_bytes: s.hbm_write,
                stdout: String::from_utf8_lossy(&printed.stdout).into_owned(),
                stderr: String::from_utf8_lossy(&printed.stderr).into_owned(),
            });
        }
        let host_seconds = host0.elapsed().as_secs_f64();
        let mut buffers = Vec::with_capacity(self.buffers.len());
        for (b, &a) in self.buffers.iter().zip(&addrs) {
            let mut out = Vec::new();
            out.try_reserve_exact(b.size() as usize)
                .map_err(|_| RunError::HostMemory {
                    buffer: b.name.clone(),
                    bytes: b.size(),
                })?;
            out.resize(b.size() as usize, 0);
            soc.read(a, &mut out)?;
            buffers.push(out);
        }
        let mut checks = Vec::new();
        for o in &self.outputs {
            let b = &self.buffers[o.buffer];
            if let Some(path) = o.write.as_ref().filter(|_| writer) {
                std::fs::write(path, &buffers[o.buffer])
                    .map_err(|e| super::ScenarioError::io(path, e))?;
            }
            if let Some(c) = &o.check {
                let r = compare(c, b.elem, &buffers[o.buffer])?;
                checks.push(CheckReport {
                    buffer: b.name.clone(),
                    passed: r.passed,
                    detail: r.detail,
                });
            }
        }
        let engine = soc.simulation().report().engine;
        Ok(RunOutcome {
            report: RunReport {
                scenario: self.origin.clone(),
                gpu: self.config.name.clone(),
                threads: soc.partitions(),
                host_seconds,
                ticks: soc.now().0,
                events: engine.events,
                epochs: engine.epochs,
                kernels,
                checks,
            },
            spans,
            buffers,
        })
    }
}
