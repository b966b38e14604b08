//! Device memory replicated over MPI ranks, checked against one process.
//!
//! A small model of "writers", each with its own memory domain (as a compute unit has),
//! each in its own partition: at every step a writer reads shared words (device memory as
//! of the last sync point, plus its own buffered bytes), writes a word derived from them
//! and from the old values its atomics returned into a region overlapping its neighbour's,
//! and adds to a shared counter with an atomic. So the final bytes depend on every write's
//! order and every atomic's result.
//!
//! `memory-replicas --single` runs it in one process with the ordinary sync point
//! ([`Coherence::sync`]); under `mpirun` every rank runs some writers on its own replica of
//! device memory and the sync point exchanges the shipments
//! ([`gpu_model::memory::replica::sync_replicas`]). Every rank prints the hash of its
//! replica's bytes (`memory_rank<R>=`), rank 0 also `memory=`; they must all equal the
//! single process's `memory=`.
//!
//! Options: `--single`, `--writers N` (6), `--steps N` (40), `--threads N` (partitions per
//! rank, 1).

use gpu_model::memory::coherence::{AtomicReq, Coherence};
use gpu_model::memory::{AtomicOp, DeviceMemory};
use simkit::component::{Component, Ctx, Input};
use simkit::engine::SimInit;
use simkit::mpi::{Cluster, DistSim, Placement};
use simkit::partition::Partitioning;
use simkit::time::Tick;
use simkit::topology::TopologyBuilder;
use std::process::ExitCode;
use std::sync::Arc;

const SYNC_PERIOD: Tick = Tick(1000);
/// Bytes of the shared region: writer regions, then the counter.
const REGION: u64 = 4096;
const COUNTER: u64 = REGION - 8;

struct Writer {
    i: u64,
    steps: u64,
    done: u64,
    acc: u64,
    base: u64,
    mem: Arc<DeviceMemory>,
    coh: Arc<Coherence>,
}

fn mix(a: u64, b: u64) -> u64 {
    (a ^ b.wrapping_mul(0x9e37_79b9_7f4a_7c15))
        .rotate_left(29)
        .wrapping_mul(0xbf58_476d_1ce4_e5b9)
}

impl Writer {
    fn period(&self) -> Tick {
        Tick(300 + 37 * self.i)
    }

    fn step(&mut self, ctx: &mut Ctx<'_, u32>) {
        let Some(g) = self.coh.domain(self.i as usize) else {
            return;
        };
        let mut dom = g.borrow_mut();
        while let Some(old) = dom.take_result(self.i) {
            self.acc = mix(self.acc, old);
        }
        let k = self.done;
        // A neighbour's word (published, or our own buffered bytes over it).
        let src = self.base + ((self.i + k) % 7) * 24;
        let mut w = [0u8; 8];
        let _ = self.mem.read(src, &mut w);
        dom.patch(src, &mut w);
        let v = mix(u64::from_le_bytes(w), mix(self.acc, self.i << 32 | k));
        // Writer i's words overlap writer i+1's (stride 24 < 40 bytes of words).
        let dst = self.base + self.i * 24 + (k % 5) * 8;
        dom.write(dst, &v.to_le_bytes());
        dom.push_atomic(
            ctx.now().0,
            self.i,
            AtomicReq {
                addr: self.base + COUNTER,
                op: if k.is_multiple_of(3) {
                    AtomicOp::Add
                } else {
                    AtomicOp::Xor
                },
                wide: true,
                src: v,
                cmp: 0,
            },
        );
        self.done += 1;
        if self.done < self.steps {
            ctx.schedule(self.period(), 0);
        }
    }
}

impl Component<u32> for Writer {
    fn init(&mut self, ctx: &mut Ctx<'_, u32>) {
        ctx.schedule(self.period(), 0);
    }

    fn handle(&mut self, input: Input<u32>, ctx: &mut Ctx<'_, u32>) {
        if let Input::Timer(_) = input {
            self.step(ctx);
        }
    }
}

struct Opts {
    single: bool,
    writers: u64,
    steps: u64,
    threads: usize,
}

fn opts() -> Result<Opts, String> {
    let mut o = Opts {
        single: false,
        writers: 6,
        steps: 40,
        threads: 1,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut num = |what: &str| -> Result<u64, String> {
            args.next()
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("{what} needs a number"))
        };
        match a.as_str() {
            "--single" => o.single = true,
            "--writers" => o.writers = num("--writers")?.max(1),
            "--steps" => o.steps = num("--steps")?,
            "--threads" => o.threads = num("--threads")?.max(1) as usize,
            other => return Err(format!("unknown option {other}")),
        }
    }
    Ok(o)
}

fn hash(mem: &DeviceMemory, base: u64) -> Result<u64, String> {
    let mut b = vec![0u8; REGION as usize];
    mem.read(base, &mut b).map_err(|e| e.to_string())?;
    Ok(b.chunks(8).fold(0, |h, c| {
        mix(h, u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
    }))
}

fn run(o: &Opts, cluster: Option<&Cluster>) -> Result<(), String> {
    let mut mem = DeviceMemory::new();
    let base = mem.allocate(REGION, 256).map_err(|e| e.to_string())?;
    let mem = Arc::new(mem);
    let coh = Arc::new(Coherence::new(o.writers as usize));
    let mut b = TopologyBuilder::<u32>::new();
    for i in 0..o.writers {
        let w = Writer {
            i,
            steps: o.steps,
            done: 0,
            acc: 0,
            base,
            mem: mem.clone(),
            coh: coh.clone(),
        };
        b.add(&format!("writer[{i}]"), w)
            .map_err(|e| e.to_string())?;
    }
    let topo = b.build().map_err(|e| e.to_string())?;
    let parts = cluster.map_or(1, Cluster::size) * o.threads;
    let place: Vec<usize> = (0..o.writers as usize).map(|i| i % parts).collect();
    let partitioning = if parts == 1 {
        Partitioning::Single
    } else {
        Partitioning::Manual(place)
    };
    let mut sim = SimInit::new(topo)
        .partitioning(partitioning)
        .init()
        .map_err(|e| e.to_string())?;
    let (hook_mem, hook_coh) = (mem.clone(), coh.clone());
    let Some(cluster) = cluster else {
        sim.set_sync_points(SYNC_PERIOD, move |_| hook_coh.sync(&hook_mem));
        sim.run().map_err(|e| e.to_string())?;
        // Whatever is still buffered after the last step.
        coh.sync(&mem);
        println!("memory={:016x}", hash(&mem, base)?);
        return Ok(());
    };
    let ex = cluster.sync_exchange();
    sim.set_sync_points(SYNC_PERIOD, move |_| {
        if let Err(e) = gpu_model::memory::replica::sync_replicas(&hook_coh, &hook_mem, &ex) {
            // Every rank stops: the replicas can no longer agree.
            panic!("rank {}: {e}", ex.rank());
        }
    });
    let config = o.writers << 32 | o.steps << 8 | o.threads as u64;
    let mut ds =
        DistSim::new(sim, cluster, &Placement::RoundRobin, config).map_err(|e| e.to_string())?;
    ds.run().map_err(|e| e.to_string())?;
    // The last sync: every rank's leftovers, exchanged once more outside the run (a
    // collective call here too, made on the one thread that makes MPI calls now).
    let ex = cluster.sync_exchange();
    ds.between_runs(|| gpu_model::memory::replica::sync_replicas(&coh, &mem, &ex))
        .map_err(|e| e.to_string())?;
    let h = hash(&mem, base)?;
    println!("memory_rank{}={h:016x}", cluster.rank());
    if cluster.is_root() {
        println!(
            "memory={h:016x} ranks={} threads_per_rank={}",
            cluster.size(),
            o.threads
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    let o = match opts() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("memory-replicas: {e}");
            return ExitCode::from(2);
        }
    };
    if o.single {
        return match run(&o, None) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("memory-replicas: {e}");
                ExitCode::from(1)
            }
        };
    }
    let cluster = match Cluster::init() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("memory-replicas: {e}");
            return ExitCode::from(2);
        }
    };
    let r = cluster.abort_on_panic(|| run(&o, Some(&cluster)));
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("memory-replicas: rank {}: {e}", cluster.rank());
            ExitCode::from(1)
        }
    }
}
