//! Same trace on any thread count and partitioning, checked against an independent
//! sequential PHOLD written here from the model's definition.

use simkit::component::ComponentId;
use simkit::partition::Partitioning;
use simkit::phold::{self, CounterRng, Lp, Params};
use simkit::time::Tick;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Per-LP (handled, hop sum, draws) from a plain binary-heap simulation ordered by
/// (time, source, source sequence): the documented key (all PHOLD events are messages).
fn oracle(p: &Params, end: u64) -> Vec<(u64, u64, u64)> {
    let n = p.lps as usize;
    let mut rng: Vec<CounterRng> = (0..n).map(|i| CounterRng::new(p.seed, i as u64)).collect();
    let mut seq = vec![0u64; n];
    let mut state = vec![(0u64, 0u64); n];
    let delay = |r: &mut CounterRng| -> u64 {
        if p.mean <= 0.0 {
            0
        } else {
            phold::exp_delay(r.next_f64(), p.mean)
        }
    };
    // (time, src, seq, dst, hops)
    let mut heap = BinaryHeap::new();
    for i in 0..n {
        for _ in 0..p.events_per_lp {
            let t = p.lookahead.0 + delay(&mut rng[i]);
            heap.push(Reverse((t, i, seq[i], i, 0u32)));
            seq[i] += 1;
        }
    }
    while let Some(Reverse((t, _src, _s, dst, hops))) = heap.pop() {
        if t > end {
            break;
        }
        state[dst].0 += 1;
        state[dst].1 += hops as u64;
        let r = &mut rng[dst];
        let to = if r.next_f64() < p.p_remote {
            r.below(n as u64) as usize
        } else {
            dst
        };
        let nt = t + p.lookahead.0 + delay(r);
        heap.push(Reverse((nt, dst, seq[dst], to, hops + 1)));
        seq[dst] += 1;
    }
    (0..n)
        .map(|i| (state[i].0, state[i].1, rng[i].draws()))
        .collect()
}

fn check(mean: f64) {
    let p = Params {
        lps: 48,
        events_per_lp: 4,
        mean,
        ..Params::default()
    };
    let end = Tick(60_000);
    let expect = oracle(&p, end.0);
    let total: u64 = expect.iter().map(|e| e.0).sum();
    assert!(
        total > 5_000,
        "the run is long enough to mean something: {total}"
    );
    let mut hashes = Vec::new();
    for layout in [
        Partitioning::Single,
        Partitioning::Block(2),
        Partitioning::RoundRobin(2),
        Partitioning::Random { parts: 2, seed: 9 },
        Partitioning::Auto(2),
        Partitioning::Random { parts: 3, seed: 4 },
    ] {
        let mut sim = phold::simulation(&p, layout.clone()).unwrap();
        sim.run_until(end).unwrap();
        let got: Vec<_> = (0..p.lps as usize)
            .map(|i| {
                let lp = sim.component::<Lp>(ComponentId::from_index(i)).unwrap();
                (lp.handled(), lp.hops(), lp.draws())
            })
            .collect();
        assert_eq!(got, expect, "mean {mean} under {layout:?}");
        assert_eq!(sim.report().engine.events, total, "{layout:?}");
        if sim.partitions() > 1 {
            assert!(sim.report().engine.epochs > 0);
            assert!(sim.report().engine.cross_partition_messages > 0);
        }
        hashes.push(sim.trace_hash());
    }
    assert!(hashes.iter().all(|&h| h == hashes[0]), "{hashes:x?}");
}

#[test]
fn phold_matches_oracle_on_every_layout_mean_1000() {
    check(1000.0);
}

#[test]
fn phold_matches_oracle_on_every_layout_mean_0_ties() {
    check(0.0);
}

#[test]
fn different_seeds_give_different_traces() {
    let mk = |seed| {
        let p = Params {
            lps: 16,
            events_per_lp: 2,
            seed,
            ..Params::default()
        };
        phold::run(&p, Partitioning::Single, Tick(20_000))
            .unwrap()
            .trace_hash
    };
    assert_ne!(mk(1), mk(2));
    assert_eq!(mk(3), mk(3));
}
