//! PHOLD across MPI ranks: `mpirun -np N simkit-mpi [options]` runs simkit's reference PHOLD
//! model (same parameters and defaults as the `phold` benchmark binary) with `--threads`
//! partitions on each rank; `--single` runs the same partitions in one process without MPI,
//! for comparison. Rank 0 prints `key=value` lines: the exit status, the trace hash, a hash
//! of every LP's final state, the engine counters and a hash of the statistics, and the
//! throughput.
//!
//! Options for the failure and checkpoint paths: `--probe` adds a component with a counter
//! and a histogram that can request an exit, be a primary that releases, or panic at a given
//! time; `--seed-on-rank R:S` builds rank R's model with another seed (a mismatch);
//! `--save-at T --checkpoint DIR` saves each rank's part at T and goes on, `--restore DIR`
//! starts from a saved checkpoint.

use clap::Parser;
use simkit::checkpoint::{self, CheckpointError};
use simkit::component::{Component, ComponentId, Ctx, Input};
use simkit::engine::{ExitStatus, SimInit, Simulation};
use simkit::mpi::{Cluster, DistError, DistSim, Placement};
use simkit::partition::Strategy;
use simkit::phold::{splitmix, Lp, Msg, Params};
use simkit::port::NetId;
use simkit::stats::{CounterId, HistogramId, Report};
use simkit::time::Tick;
use simkit::topology::{Topology, TopologyBuilder, TopologyError};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

#[derive(Debug, Clone, Parser)]
#[command(name = "simkit-mpi", about = "PHOLD on simkit across MPI ranks")]
struct Args {
    /// Number of logical processes.
    #[arg(long, default_value_t = 1024)]
    lps: u32,
    /// Initial events per LP.
    #[arg(long, default_value_t = 16)]
    events_per_lp: u32,
    /// Probability an event goes to a random LP instead of its own.
    #[arg(long, default_value_t = 0.5)]
    p_remote: f64,
    /// Fixed delay part and cross-partition lookahead, in ticks.
    #[arg(long, default_value_t = 1000)]
    lookahead: u64,
    /// Mean of the exponential delay part, in ticks.
    #[arg(long, default_value_t = 1000.0)]
    mean: f64,
    /// Simulated end time, in ticks (inclusive).
    #[arg(long, default_value_t = 2_000_000)]
    end_tick: u64,
    /// Partitions (= worker threads) per rank.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Partitions in all with --single (default: --threads).
    #[arg(long)]
    partitions: Option<usize>,
    /// auto, block, round-robin or random:<seed>.
    #[arg(long, default_value = "block")]
    partitioning: Strategy,
    /// Partitions on ranks: balanced, round-robin or manual:<rank>,<rank>,...
    #[arg(long, default_value = "balanced")]
    placement: Placement,
    /// Model seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Run in one process without MPI.
    #[arg(long)]
    single: bool,
    /// Add the probe component.
    #[arg(long)]
    probe: bool,
    /// The probe requests an exit at its first timer at or after this tick.
    #[arg(long)]
    exit_at: Option<u64>,
    /// The probe is a primary and releases at its first timer at or after this tick.
    #[arg(long)]
    release_at: Option<u64>,
    /// The probe panics at its first timer at or after this tick.
    #[arg(long)]
    panic_at: Option<u64>,
    /// RANK:SEED: that rank builds the model with another seed.
    #[arg(long)]
    seed_on_rank: Option<String>,
    /// Save a checkpoint at this tick (with --checkpoint), then go on.
    #[arg(long)]
    save_at: Option<u64>,
    /// Checkpoint directory for --save-at.
    #[arg(long)]
    checkpoint: Option<PathBuf>,
    /// Restore this checkpoint directory before running.
    #[arg(long)]
    restore: Option<PathBuf>,
    /// The probe ends its process with `abort` (a rank that dies) at its first timer at or
    /// after this tick.
    #[arg(long)]
    abort_at: Option<u64>,
    /// Sync points every this many ticks: the hook hashes the points it is called at, and
    /// every rank prints its hash.
    #[arg(long)]
    sync_period: Option<u64>,
    /// With --sync-period, across ranks: at every sync point the hooks exchange (rank,
    /// point) with every other rank ([`simkit::mpi::SyncExchange`]); each rank prints a
    /// hash of everything it received and how many entries were not what they should be.
    #[arg(long)]
    sync_exchange: bool,
    /// The probe (not a member of PHOLD's net) sends over it at its first timer at or after
    /// this tick: a model error.
    #[arg(long)]
    bad_send_at: Option<u64>,
    /// Inject an event for the last LP through the simulation's handle before running
    /// (every rank makes the same injection; each keeps it only if the LP is its own).
    #[arg(long)]
    inject: bool,
    /// This rank panics in the driver itself (outside any component) before running.
    #[arg(long)]
    panic_outside_on_rank: Option<usize>,
    /// Spread a simulation this driver keeps owning (`DistSim::over`, as a GPU model that
    /// builds its own does) and print each rank's time in it after the run.
    #[arg(long)]
    borrowed: bool,
}

/// A component with statistics and the stops the tests need; it only uses timers.
#[derive(Debug, Clone, Default)]
struct Probe {
    period: u64,
    exit_at: Option<u64>,
    release_at: Option<u64>,
    panic_at: Option<u64>,
    abort_at: Option<u64>,
    bad_send_at: Option<u64>,
    net: Option<NetId>,
    fired: u64,
}

impl Component<Msg> for Probe {
    fn init(&mut self, ctx: &mut Ctx<'_, Msg>) {
        ctx.schedule(Tick(self.period), 0);
    }

    fn handle(&mut self, input: Input<Msg>, ctx: &mut Ctx<'_, Msg>) {
        if let Input::Timer(n) = input {
            let now = ctx.now().0;
            self.fired += 1;
            ctx.count(CounterId::from_index(0), 1);
            ctx.record(HistogramId::from_index(0), splitmix(now) % 100_000);
            if self.abort_at.is_some_and(|t| now >= t) {
                eprintln!("probe: aborting the process at {now}");
                std::process::abort();
            }
            if let (Some(net), true) = (self.net, self.bad_send_at.is_some_and(|t| now >= t)) {
                ctx.send_net(net, ComponentId::from_index(0), Tick::ZERO, 0);
            }
            if self.panic_at.is_some_and(|t| now >= t) {
                panic!("probe told to panic at {now}");
            }
            if self.exit_at.is_some_and(|t| now >= t) {
                ctx.request_exit(format!("probe exit at {now}"), 3);
                self.exit_at = None;
            }
            if self.release_at.is_some_and(|t| now >= t) {
                ctx.release_primary();
                self.release_at = None;
            }
            ctx.schedule(Tick(self.period), n.wrapping_add(1));
        }
    }

    fn save(&self) -> Result<Vec<u8>, CheckpointError> {
        checkpoint::encode(&(self.fired, self.exit_at, self.release_at, self.panic_at))
    }

    fn restore(&mut self, b: &[u8]) -> Result<(), CheckpointError> {
        (self.fired, self.exit_at, self.release_at, self.panic_at) = checkpoint::decode(b)?;
        Ok(())
    }
}

fn topology(p: &Params, a: &Args) -> Result<Topology<Msg>, TopologyError> {
    let mut b = TopologyBuilder::new();
    let net = b.net("phold", p.lookahead)?;
    for i in 0..p.lps {
        let id = b.add(&format!("lp[{i}]"), Lp::new(*p, net, i))?;
        b.join(net, id)?;
    }
    if a.probe {
        let id = b.add(
            "probe",
            Probe {
                period: 3 * p.lookahead.0.max(1) + 7,
                exit_at: a.exit_at,
                release_at: a.release_at,
                panic_at: a.panic_at,
                abort_at: a.abort_at,
                bad_send_at: a.bad_send_at,
                net: Some(net),
                fired: 0,
            },
        )?;
        b.counter(id, "fired")?;
        b.histogram(id, "phase", 100_000)?;
        if a.release_at.is_some() {
            b.primary(id)?;
        }
    }
    b.build()
}

fn fold(h: u64, v: u64) -> u64 {
    splitmix(h ^ v)
}

/// Hash of every LP's (handled, hop sum, draws), in id order.
fn lp_state(sim: &Simulation<Msg>, lps: u32) -> u64 {
    (0..lps).fold(0, |h, i| {
        let id = ComponentId::from_index(i as usize);
        match sim.component::<Lp>(id) {
            Some(lp) => fold(fold(fold(h, lp.handled()), lp.hops()), lp.draws()),
            None => fold(h, u64::MAX),
        }
    })
}

fn stats_hash(r: &Report) -> u64 {
    format!("{:?}", r.components)
        .bytes()
        .fold(0, |h, b| fold(h, b as u64))
}

fn status_text(s: &ExitStatus) -> String {
    match s {
        ExitStatus::Completed { reason, tick } => format!("completed:{reason:?}@{}", tick.0),
        ExitStatus::ExitRequested { reason, code, tick } => {
            format!("exit:{code}:{}@{}", reason.replace(' ', "_"), tick.0)
        }
        ExitStatus::Interrupted { tick } => format!("interrupted@{}", tick.0),
        ExitStatus::MaxTick { tick } => format!("max_tick@{}", tick.0),
        other => format!("{other:?}").replace(' ', "_"),
    }
}

fn print(a: &Args, status: &ExitStatus, sim: &Simulation<Msg>, trace: u64, r: &Report, wall: f64) {
    let e = &r.engine;
    println!("status={}", status_text(status));
    println!(
        "trace_hash={trace:016x} lp_state={:016x} stats={:016x} events={} epochs={} cross={} partitions={}",
        lp_state(sim, a.lps),
        stats_hash(r),
        e.events,
        e.epochs,
        e.cross_partition_messages,
        e.partitions
    );
    if let Some(c) = r.component("probe") {
        println!("probe_fired={}", c.counter("fired").unwrap_or(0));
    }
    println!(
        "wall_s={wall:.3} barrier_wait_s={:.3} events_per_s={:.0}",
        e.barrier_wait.as_secs_f64(),
        e.events as f64 / wall.max(1e-9)
    );
}

#[derive(Debug, thiserror::Error)]
enum Error {
    #[error(transparent)]
    Topology(#[from] TopologyError),
    #[error(transparent)]
    Sim(#[from] simkit::engine::SimError),
    #[error(transparent)]
    Dist(#[from] DistError),
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    #[error("{0}")]
    Usage(String),
}

/// Replaces the hook of `--sync-period` with one that also exchanges (rank, point) with
/// every rank (`--sync-exchange`); the cells hold the hash of everything received and the
/// number of wrong entries (another point, another rank, or a failed exchange).
fn sync_exchange(
    a: &Args,
    sim: &mut Simulation<Msg>,
    cluster: &Cluster,
    points: Option<Arc<AtomicU64>>,
) -> Option<(Arc<AtomicU64>, Arc<AtomicU64>)> {
    let (period, points) = (a.sync_period?, points?);
    if !a.sync_exchange {
        return None;
    }
    let (got, bad) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let (g_cell, b_cell) = (got.clone(), bad.clone());
    let ex = cluster.sync_exchange();
    sim.set_sync_points(Tick(period), move |g| {
        points.store(fold(points.load(Ordering::Relaxed), g.0), Ordering::Relaxed);
        let mine = [ex.rank() as u64, g.0]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<u8>>();
        let Ok(all) = ex.all_gather(&mine) else {
            b_cell.fetch_add(1, Ordering::Relaxed);
            return;
        };
        let mut h = g_cell.load(Ordering::Relaxed);
        for (r, bytes) in all.iter().enumerate() {
            let words: Vec<u64> = bytes
                .chunks(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0xff; 8])))
                .collect();
            if words != [r as u64, g.0] {
                b_cell.fetch_add(1, Ordering::Relaxed);
            }
            h = words.iter().fold(h, |h, &w| fold(h, w));
        }
        g_cell.store(h, Ordering::Relaxed);
    });
    Some((got, bad))
}

/// Sets the sync-point hook `--sync-period` asks for; the returned cell holds the hash of
/// the points it has been called at.
fn sync_points(a: &Args, sim: &mut Simulation<Msg>) -> Option<Arc<AtomicU64>> {
    let period = a.sync_period?;
    let h = Arc::new(AtomicU64::new(0));
    let cell = h.clone();
    sim.set_sync_points(Tick(period), move |g| {
        cell.store(fold(cell.load(Ordering::Relaxed), g.0), Ordering::Relaxed);
    });
    Some(h)
}

/// `--inject`: a message for the last LP (in the last partition), through the handle,
/// before running: one more job circulating.
fn inject(h: simkit::handle::SimHandle<Msg>, lps: u32) -> Result<(), Error> {
    let last = lps.saturating_sub(1) as usize;
    h.schedule_now(ComponentId::from_index(last), 7)
        .map_err(|e| Error::Usage(e.to_string()))
}

fn params(a: &Args, rank: usize) -> Result<Params, Error> {
    let mut seed = a.seed;
    if let Some(s) = &a.seed_on_rank {
        let bad = || Error::Usage(format!("--seed-on-rank {s:?}: expected RANK:SEED"));
        let (r, v) = s.split_once(':').ok_or_else(bad)?;
        let (r, v): (usize, u64) = (r.parse().map_err(|_| bad())?, v.parse().map_err(|_| bad())?);
        if r == rank {
            seed = v;
        }
    }
    Ok(Params {
        lps: a.lps,
        events_per_lp: a.events_per_lp,
        p_remote: a.p_remote,
        lookahead: Tick(a.lookahead),
        mean: a.mean,
        seed,
    })
}

fn single(a: &Args) -> Result<(), Error> {
    let p = params(a, 0)?;
    let parts = a.partitions.unwrap_or(a.threads);
    let mut sim = SimInit::new(topology(&p, a)?)
        .partitioning(a.partitioning.with_parts(parts))
        .init()?;
    let sync = sync_points(a, &mut sim);
    if let Some(dir) = &a.restore {
        sim.restore_checkpoint(dir.join("single.simkit"))?;
    }
    if a.inject {
        inject(sim.handle(), a.lps)?;
    }
    let t0 = Instant::now();
    if let (Some(t), Some(dir)) = (a.save_at, &a.checkpoint) {
        sim.run_until(Tick(t))?;
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::Usage(format!("{}: {e}", dir.display())))?;
        sim.save_checkpoint(dir.join("single.simkit"))?;
    }
    let status = sim.run_until(Tick(a.end_tick))?;
    let wall = t0.elapsed().as_secs_f64();
    let r = sim.report();
    print(a, &status, &sim, sim.trace_hash(), &r, wall);
    if let Some(h) = sync {
        println!("sync_points={:016x}", h.load(Ordering::Relaxed));
    }
    Ok(())
}

fn distributed(a: &Args, cluster: &Cluster) -> Result<(), Error> {
    let p = params(a, cluster.rank())?;
    let parts = cluster.size() * a.threads;
    let mut sim = SimInit::new(topology(&p, a)?)
        .partitioning(a.partitioning.with_parts(parts))
        .init()?;
    let sync = sync_points(a, &mut sim);
    let exchanged = sync_exchange(a, &mut sim, cluster, sync.clone());
    if exchanged.is_some() {
        // Outside a sync-point hook the exchange is refused.
        let outside = cluster.sync_exchange().all_gather(b"x");
        println!(
            "sync_exchange_outside_rank{}={}",
            cluster.rank(),
            match outside {
                Err(DistError::Unsupported { .. }) => "refused",
                _ => "allowed",
            }
        );
    }
    // What configures the model and its partitioning (not --seed-on-rank, whose effect the
    // component-state digest has to find, nor the checkpoint options).
    let config = format!(
        "{:?}",
        (
            (
                a.lps,
                a.events_per_lp,
                a.p_remote,
                a.lookahead,
                a.mean,
                a.seed
            ),
            (
                a.probe,
                a.exit_at,
                a.release_at,
                a.panic_at,
                a.abort_at,
                a.bad_send_at
            ),
            (a.sync_period, a.sync_exchange),
            (a.threads, a.partitioning, &a.placement),
        )
    )
    .bytes()
    .fold(0, |h, b| fold(h, b as u64));
    if a.borrowed {
        return borrowed(a, cluster, &mut sim, config);
    }
    let mut ds = DistSim::new(sim, cluster, &a.placement, config)?;
    if let Some(dir) = &a.restore {
        ds.restore_checkpoint(dir)?;
    }
    if a.inject {
        inject(ds.sim().handle(), a.lps)?;
    }
    if a.panic_outside_on_rank == Some(cluster.rank()) {
        panic!("told to panic outside the engine");
    }
    let t0 = Instant::now();
    if let (Some(t), Some(dir)) = (a.save_at, &a.checkpoint) {
        ds.run_until(Tick(t))?;
        ds.save_checkpoint(dir)?;
    }
    let status = ds.run_until(Tick(a.end_tick))?;
    let wall = t0.elapsed().as_secs_f64();
    // Where this rank's time went: handling events (encoding and decoding its messages
    // included), and exchanging with the others (waiting for them included).
    let local = &ds.sim().report().engine;
    println!(
        "rank{}_wall_s={wall:.3} rank{}_exchange_s={:.3} rank{}_events={}",
        cluster.rank(),
        cluster.rank(),
        ds.exchange_time().as_secs_f64(),
        cluster.rank(),
        local.events
    );
    if let Some(h) = sync {
        // Each rank's own hook: they must all have run at the same points.
        println!(
            "sync_points_rank{}={:016x}",
            cluster.rank(),
            h.load(Ordering::Relaxed)
        );
    }
    if let Some((got, bad)) = exchanged {
        println!(
            "sync_exchange_rank{}={:016x} sync_exchange_bad_rank{}={}",
            cluster.rank(),
            got.load(Ordering::Relaxed),
            cluster.rank(),
            bad.load(Ordering::Relaxed)
        );
    }
    if let Some(c) = ds.collect()? {
        print(a, &status, ds.sim(), c.trace_hash, &c.report, wall);
        println!("ranks={} threads_per_rank={}", cluster.size(), a.threads);
    }
    Ok(())
}

/// The run over a borrowed simulation: the same results, and the simulation is back with
/// its owner afterwards, at the time the run reached.
fn borrowed(
    a: &Args,
    cluster: &Cluster,
    sim: &mut Simulation<Msg>,
    config: u64,
) -> Result<(), Error> {
    let t0 = Instant::now();
    {
        let mut ds = DistSim::over(sim, cluster, &a.placement, config)?;
        let status = ds.run_until(Tick(a.end_tick))?;
        let wall = t0.elapsed().as_secs_f64();
        if let Some(c) = ds.collect()? {
            print(a, &status, ds.sim(), c.trace_hash, &c.report, wall);
            println!("ranks={} threads_per_rank={}", cluster.size(), a.threads);
        }
    }
    println!("borrowed_now_rank{}={}", cluster.rank(), sim.now().0);
    Ok(())
}

fn main() -> ExitCode {
    let a = Args::parse();
    if a.single {
        return match single(&a) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("simkit-mpi: {e}");
                ExitCode::from(2)
            }
        };
    }
    let cluster = match Cluster::init() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("simkit-mpi: {e}");
            return ExitCode::from(2);
        }
    };
    let r = cluster.abort_on_panic(|| distributed(&a, &cluster));
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // Every rank has the same error; rank 0 says it.
            if cluster.is_root() {
                eprintln!("simkit-mpi: {e}");
            }
            ExitCode::from(2)
        }
    }
}
