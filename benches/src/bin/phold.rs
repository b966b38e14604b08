//! PHOLD benchmark binary: runs simkit's reference PHOLD model and prints its throughput.
//!
//! The last line of output is machine-readable:
//! `events_per_s=... events=... threads=... trace_hash=...`.

use clap::Parser;
use simkit::partition::Strategy;
use simkit::phold::{self, Params};
use simkit::time::Tick;
use std::process::ExitCode;

#[derive(Debug, Parser)]
#[command(name = "phold", about = "PHOLD on simkit: committed events per second")]
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
    /// Mean of the exponential delay part, in ticks (0: every delay is the lookahead).
    #[arg(long, default_value_t = 1000.0)]
    mean: f64,
    /// Simulated end time, in ticks (inclusive).
    #[arg(long, default_value_t = 2_000_000)]
    end_tick: u64,
    /// Worker threads (= partitions).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// auto, block, round-robin or random:<seed>.
    #[arg(long, default_value = "block")]
    partitioning: Strategy,
    /// Model seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

fn main() -> ExitCode {
    let a = Args::parse();
    let params = Params {
        lps: a.lps,
        events_per_lp: a.events_per_lp,
        p_remote: a.p_remote,
        lookahead: Tick(a.lookahead),
        mean: a.mean,
        seed: a.seed,
    };
    match phold::run(
        &params,
        a.partitioning.with_parts(a.threads),
        Tick(a.end_tick),
    ) {
        Ok(o) => {
            println!(
                "phold lps={} events_per_lp={} p_remote={} lookahead={} mean={} end_tick={} partitioning={} seed={}",
                a.lps, a.events_per_lp, a.p_remote, a.lookahead, a.mean, a.end_tick, a.partitioning, a.seed
            );
            println!(
                "wall_s={:.3} epochs={} events_per_epoch={:.0} barrier_wait_s={:.3}",
                o.wall.as_secs_f64(),
                o.epochs,
                o.events as f64 / o.epochs.max(1) as f64,
                o.barrier_wait.as_secs_f64()
            );
            println!(
                "events_per_s={:.0} events={} threads={} trace_hash={:016x}",
                o.events_per_s(),
                o.events,
                o.threads,
                o.trace_hash
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("phold: {e}");
            ExitCode::from(2)
        }
    }
}
