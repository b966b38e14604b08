//! Loom model of the epoch exchange: the LBTS min-reduction barrier every worker passes
//! between epochs, the exit cap it carries, and its abort path.
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

/// What a worker brings in the exit-cap model: its next event time and the time of an exit it
/// requested during the epoch just finished.
#[derive(Debug, Clone, Copy)]
struct Contrib {
    next: u64,
    exit: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Decision {
    Run { window_end: u64 },
    Stop,
}

/// The engine's rule through the real barrier: an exit requested at `t` caps every later
/// window at `t + H`, and the run stops once the LBTS reaches the cap. One worker requests
/// an exit in its first epoch; however the two interleave, both get the same decisions, the
/// other worker never gets a window past the cap, and both stop in the same epoch.
#[test]
fn exit_cap_reaches_every_worker() {
    const LOOKAHEAD: u64 = 10;
    const HORIZON: u64 = 30;
    loom::model(|| {
        let init = Contrib {
            next: u64::MAX,
            exit: None,
        };
        let b = Arc::new(EpochBarrier::new(2, init, None::<u64>));
        let decide = |cap: &mut Option<u64>, cs: &[Contrib]| {
            let lbts = cs.iter().map(|c| c.next).min().unwrap();
            if let Some(t) = cs.iter().filter_map(|c| c.exit).min() {
                *cap = Some(cap.map_or(t + HORIZON, |c: u64| c.min(t + HORIZON)));
            }
            match *cap {
                Some(c) if lbts >= c => Decision::Stop,
                c => Decision::Run {
                    window_end: (lbts + LOOKAHEAD).min(c.unwrap_or(u64::MAX)),
                },
            }
        };
        let worker = move |who: usize, b: Arc<EpochBarrier<Option<u64>, Contrib, Decision>>| {
            // Each worker has an event every tick; worker 1 asks to exit at tick 3.
            let mut next = 0u64;
            let mut asked = None;
            let mut got = Vec::new();
            loop {
                let d = b
                    .arrive(who, Contrib { next, exit: asked }, decide)
                    .unwrap();
                got.push(d);
                let Decision::Run { window_end } = d else {
                    return got;
                };
                if who == 1 && next <= 3 && 3 < window_end {
                    asked = Some(3);
                }
                next = window_end;
            }
        };
        let b1 = b.clone();
        let t = thread::spawn(move || worker(1, b1));
        let mine = worker(0, b.clone());
        let theirs = t.join().unwrap();
        assert_eq!(mine, theirs);
        assert_eq!(
            mine,
            vec![
                Decision::Run { window_end: 10 },
                Decision::Run { window_end: 20 },
                Decision::Run { window_end: 30 },
                Decision::Run { window_end: 33 },
                Decision::Stop,
            ]
        );
    });
}

/// Leader state (published total, points synced), contributions (next event), decisions
/// (window end, or stop).
type SyncBarrier = EpochBarrier<(u64, Vec<u64>), u64, Option<u64>>;

/// Sync points through the real barrier: each worker buffers what it does in a window
/// (here, a count of its events); the hook, run by whichever worker leads the barrier,
/// publishes every buffer while no worker is inside a window, and windows stop at the next
/// point. However the two interleave, the hook sees both workers' whole windows and the
/// published total is the same.
#[test]
fn sync_hook_runs_between_windows_with_every_buffer_complete() {
    use loom::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
    const PERIOD: u64 = 10;
    loom::model(|| {
        let b: Arc<SyncBarrier> = Arc::new(EpochBarrier::new(2, 0u64, (0u64, Vec::new())));
        let inside = Arc::new(AtomicUsize::new(0));
        let buffers = Arc::new([AtomicU64::new(0), AtomicU64::new(0)]);
        let worker = {
            let (inside, buffers) = (inside.clone(), buffers.clone());
            move |who: usize, b: Arc<SyncBarrier>| {
                let mut next = 0u64;
                loop {
                    let d = b
                        .arrive(who, next, |(total, points), cs| {
                            let lbts = cs.iter().copied().min().unwrap();
                            if lbts >= 20 {
                                return None;
                            }
                            // The hook: nobody is handling events now.
                            assert_eq!(inside.load(Ordering::SeqCst), 0);
                            if lbts > 0 && lbts % PERIOD == 0 {
                                for buf in buffers.iter() {
                                    *total += buf.swap(0, Ordering::SeqCst);
                                }
                                points.push(lbts);
                            }
                            Some(lbts - lbts % PERIOD + PERIOD)
                        })
                        .unwrap();
                    let Some(window_end) = d else { return };
                    inside.fetch_add(1, Ordering::SeqCst);
                    // Events at next .. window_end, every 5 ticks.
                    while next < window_end {
                        buffers[who].fetch_add(1, Ordering::SeqCst);
                        next += 5;
                    }
                    inside.fetch_sub(1, Ordering::SeqCst);
                }
            }
        };
        let (w1, b1) = (worker.clone(), b.clone());
        let t = thread::spawn(move || w1(1, b1));
        worker(0, b.clone());
        t.join().unwrap();
        // Points 10 (after events at 0 and 5 of both) and nothing later before the stop.
        assert_eq!(b.with_state(|s| s.clone()), (4, vec![10]));
    });
}
