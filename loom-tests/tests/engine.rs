//! Loom models of whole parallel runs: the engine's own worker loop, epoch decision
//! (`decide_inner`: LBTS, exit cap, sync points, completion), cross-partition exchange slots
//! and `SyncPoints` hook, on two worker threads, under every interleaving loom explores.
//! Each run must end exactly as the same run on one partition does (results, event trace,
//! exit tick, the sync points the hook saw).
#![cfg(loom)]

use simkit::component::{Component, ComponentId, Ctx, Input};
use simkit::engine::{ExitStatus, SimInit, Simulation};
use simkit::partition::Partitioning;
use simkit::port::NetId;
use simkit::time::Tick;
use simkit::topology::TopologyBuilder;
use std::sync::{Arc, Mutex};

/// Net latency: the lookahead across partitions.
const LATENCY: Tick = Tick(100);

/// Sends a counter back and forth with its partner; `exit_at` asks the run to end when it
/// receives that count.
struct Pinger {
    net: NetId,
    partner: ComponentId,
    serve: bool,
    got: Vec<(u64, u32)>,
    exit_at: Option<u32>,
}

impl Component<u32> for Pinger {
    fn init(&mut self, ctx: &mut Ctx<'_, u32>) {
        if self.serve {
            ctx.send_net(self.net, self.partner, Tick(7), 0);
        }
    }
    fn handle(&mut self, input: Input<u32>, ctx: &mut Ctx<'_, u32>) {
        if let Input::Net { msg, .. } = input {
            self.got.push((ctx.now().0, msg));
            if Some(msg) == self.exit_at {
                ctx.request_exit("enough", 3);
            }
            ctx.send_net(self.net, self.partner, Tick(msg as u64 % 3), msg + 1);
        }
    }
}

/// Two pingers on one net, each in its own partition when `parts` is 2; the hook records
/// the sync points it is called for.
fn pingers(parts: usize, exit_at: Option<u32>, points: Arc<Mutex<Vec<u64>>>) -> Simulation<u32> {
    let mut b = TopologyBuilder::new();
    let net = b.net("wire", LATENCY).unwrap();
    for i in 0..2 {
        let p = Pinger {
            net,
            partner: ComponentId::from_index(1 - i),
            serve: i == 0,
            got: Vec::new(),
            exit_at: exit_at.filter(|_| i == 1),
        };
        let id = b.add(&format!("p[{i}]"), p).unwrap();
        b.join(net, id).unwrap();
    }
    let layout = match parts {
        1 => Partitioning::Single,
        n => Partitioning::RoundRobin(n),
    };
    let mut sim = SimInit::new(b.build().unwrap())
        .partitioning(layout)
        .init()
        .unwrap();
    sim.set_sync_points(Tick(150), move |t| points.lock().unwrap().push(t.0));
    sim
}

/// What a run ends with.
#[derive(Debug, PartialEq)]
struct End {
    status: ExitStatus,
    trace: u64,
    got: Vec<Vec<(u64, u32)>>,
    points: Vec<u64>,
}

fn run(parts: usize, exit_at: Option<u32>, limit: Tick) -> End {
    let points = Arc::new(Mutex::new(Vec::new()));
    let mut sim = pingers(parts, exit_at, points.clone());
    assert_eq!(sim.partitions(), parts);
    let status = sim.run_until(limit).unwrap();
    let got = (0..2)
        .map(|i| {
            let p = sim.component::<Pinger>(ComponentId::from_index(i)).unwrap();
            p.got.clone()
        })
        .collect();
    let points = points.lock().unwrap().clone();
    End {
        status,
        trace: sim.trace_hash(),
        got,
        points,
    }
}

/// A run to a tick limit: messages cross partitions every epoch, sync points fall between
/// windows, and both partitions stop at the limit.
#[test]
fn two_partitions_run_like_one() {
    loom::model(|| {
        let want = run(1, None, Tick(650));
        assert!(
            want.got[1].len() >= 3 && !want.points.is_empty(),
            "{want:?}"
        );
        assert_eq!(run(2, None, Tick(650)), want);
    });
}

/// A component asks to exit: the request travels through the epoch decision (the exit
/// cap) and the run ends at the same tick with the same events handled as on one partition.
#[test]
fn an_exit_request_ends_both_partitions_where_one_would_end() {
    loom::model(|| {
        let want = run(1, Some(2), Tick(10_000));
        assert!(
            matches!(want.status, ExitStatus::ExitRequested { code: 3, .. }),
            "{want:?}"
        );
        assert_eq!(run(2, Some(2), Tick(10_000)), want);
    });
}
