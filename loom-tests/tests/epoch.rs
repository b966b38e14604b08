//! Loom model of the epoch barrier itself: the LBTS min-reduction every worker passes
//! between epochs, and its abort path. The engine's decisions made at the barrier (exit
//! cap, sync points) are modelled on the real engine in `engine.rs`.
#![cfg(loom)]

use loom::sync::Arc;
use loom::thread;
use simkit::epoch::EpochBarrier;

/// Two workers through two epochs: both get the same decision each time (the minimum of
/// what both contributed that epoch), and the leader ran exactly once per epoch.
#[test]
fn lbts_reduction_agrees_every_epoch() {
    loom::model(|| {
        let b = Arc::new(EpochBarrier::new(2, u64::MAX, 0u32));
        let worker = |who: usize, b: Arc<EpochBarrier<u32, u64, u64>>| {
            let mut got = Vec::new();
            for epoch in 0..2u64 {
                // Worker 1 has the earlier event in epoch 0, worker 0 in epoch 1.
                let mine = 100 * (epoch + 1) + if (who as u64) == epoch { 0 } else { 7 };
                let d = b
                    .arrive(who, mine, |leader_runs, cs| {
                        *leader_runs += 1;
                        cs.iter().copied().min().unwrap()
                    })
                    .unwrap();
                got.push(d);
            }
            got
        };
        let b1 = b.clone();
        let t = thread::spawn(move || worker(1, b1));
        let mine = worker(0, b.clone());
        let theirs = t.join().unwrap();
        assert_eq!(mine, vec![100, 200]);
        assert_eq!(mine, theirs);
        assert_eq!(b.with_state(|s| *s), 2);
    });
}

/// A worker that fails aborts the barrier: a partner already waiting, or arriving later,
/// is released with `None` instead of hanging.
#[test]
fn abort_releases_partner() {
    loom::model(|| {
        let b = Arc::new(EpochBarrier::new(2, 0u8, ()));
        let b1 = b.clone();
        let t = thread::spawn(move || b1.arrive(0, 1, |_, _| 1u8));
        b.abort();
        assert_eq!(t.join().unwrap(), None);
    });
}
