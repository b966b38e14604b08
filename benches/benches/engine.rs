//! simkit engine benchmarks (PHOLD, ping-pong, ring, clocked ticks); prints events/s.
//!
//! `cargo bench -p gfxsim-benches --bench engine`. Takes well under a minute.

use gfxsim_benches::{clocked, print_rate, ring, timed};
use simkit::partition::Partitioning;
use simkit::phold::{self, Params};
use simkit::time::Tick;

fn main() {
    println!("== PHOLD N=1024 E=16 p_remote=0.5 lookahead=1000 mean=1000 ==");
    let p = Params::default();
    let mut one = 0.0;
    for threads in [1, 2] {
        let layout = if threads == 1 {
            Partitioning::Single
        } else {
            Partitioning::Block(threads)
        };
        match phold::run(&p, layout, Tick(1_000_000)) {
            Ok(o) => {
                print_rate(&format!("phold {threads} thread(s)"), o.events, o.wall);
                if threads == 1 {
                    one = o.events_per_s();
                } else {
                    println!(
                        "{:<44} {:.2}x, {} epochs, {:.0} events/epoch, trace {:016x}",
                        "  speedup over 1 thread",
                        o.events_per_s() / one.max(1.0),
                        o.epochs,
                        o.events as f64 / o.epochs.max(1) as f64,
                        o.trace_hash
                    );
                }
            }
            Err(e) => println!("phold {threads} thread(s): {e}"),
        }
    }
    let p0 = Params { mean: 0.0, ..p };
    for threads in [1, 2] {
        let layout = if threads == 1 {
            Partitioning::Single
        } else {
            Partitioning::Block(threads)
        };
        if let Ok(o) = phold::run(&p0, layout, Tick(500_000)) {
            print_rate(
                &format!("phold mean=0 (ties) {threads} thread(s)"),
                o.events,
                o.wall,
            );
        }
    }

    println!("== ping-pong and ring (latency 100 ps) ==");
    // One token bouncing: pure per-event overhead on one partition; on two, every hop is an
    // epoch (barrier + exchange), the cost of one cross-partition hop.
    for (name, layout, limit) in [
        (
            "ping-pong, 1 partition (per-event cost)",
            Partitioning::Single,
            200_000_000u64,
        ),
        (
            "ping-pong, 2 partitions (per-hop cost)",
            Partitioning::Block(2),
            2_000_000,
        ),
    ] {
        let Ok(mut sim) = ring(2, 1, Tick(100), layout) else {
            continue;
        };
        let (r, wall) = timed(|| sim.run_until(Tick(limit)));
        if r.is_ok() {
            print_rate(name, sim.report().engine.events, wall);
        }
    }
    for (name, layout) in [
        (
            "ring 256 nodes x 256 tokens, 1 partition",
            Partitioning::Single,
        ),
        (
            "ring 256 nodes x 256 tokens, 2 partitions",
            Partitioning::Block(2),
        ),
    ] {
        let Ok(mut sim) = ring(256, 256, Tick(100), layout) else {
            continue;
        };
        let (r, wall) = timed(|| sim.run_until(Tick(2_000_000)));
        if r.is_ok() {
            print_rate(name, sim.report().engine.events, wall);
        }
    }

    println!("== clocked: 2000 components, 2 GHz and 1.33 GHz domains ==");
    let mut per_active = Vec::new();
    for (name, every) in [("all active", 1usize), ("1% active", 100)] {
        let Ok(mut sim) = clocked(2000, every, Partitioning::Single) else {
            continue;
        };
        let (r, wall) = timed(|| sim.run_until(Tick(2_000_000)));
        if r.is_ok() {
            let events = sim.report().engine.events;
            print_rate(&format!("clocked, {name}"), events, wall);
            per_active.push(wall.as_secs_f64() / (2000 / every) as f64);
        }
    }
    if let [all, one] = per_active[..] {
        println!(
            "{:<44} {:.2} (1.00 = cost exactly proportional to active components)",
            "  1%-active cost per active component, relative",
            one / all
        );
    }
}
