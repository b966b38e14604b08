//! Sync points: the model's hook runs at multiples of its period, between the events before
//! the point and those at or after it, at the same points and with the same effects on one
//! partition and on any partitioning.

use simkit::component::{Component, Ctx, Input};
use simkit::engine::{SimInit, Simulation};
use simkit::partition::Partitioning;
use simkit::port::PortId;
use simkit::time::Tick;
use simkit::topology::TopologyBuilder;
use std::sync::{Arc, Mutex};

const N: usize = 6;
const PERIOD: u64 = 37;
const LATENCY: [u64; N] = [40, 15, 90, 25, 60, 10];
const END: u64 = 20_000;
const REPEATS: usize = 20;

fn mix(h: u64, v: u64) -> u64 {
    (h ^ v).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29)
}

/// State shared outside messages: what every component last published, what each wrote
/// since the last sync point, and the points synced.
#[derive(Debug, Default, Clone, PartialEq)]
struct Board {
    published: [u64; N],
    pending: [Option<(u64, u64)>; N],
    synced: u64,
    points: Vec<u64>,
}

type Shared = Arc<Mutex<Board>>;

/// Reads the board on every timer (folding what others published into its state), writes
/// its own state to the board, and now and then sends a message around the ring.
struct Node {
    me: usize,
    board: Shared,
    out: Option<PortId>,
    state: u64,
}

impl Component<u64> for Node {
    fn init(&mut self, ctx: &mut Ctx<'_, u64>) {
        self.out = ctx.port("out");
        ctx.schedule(Tick(1 + self.me as u64), 0);
    }

    fn handle(&mut self, input: Input<u64>, ctx: &mut Ctx<'_, u64>) {
        let now = ctx.now().0;
        let mut b = self.board.lock().unwrap();
        // The hook ran for the latest point at or before every event handled.
        assert_eq!(b.synced, now - now % PERIOD, "event at {now}");
        match input {
            Input::Message { msg, .. } => self.state = mix(self.state, msg),
            Input::Timer(_) => {
                for (i, v) in b.published.iter().enumerate() {
                    if i != self.me {
                        self.state = mix(self.state, *v);
                    }
                }
                self.state = mix(self.state, now);
                b.pending[self.me] = Some((now, self.state));
                ctx.schedule(Tick(1 + self.state % 11), 0);
                if self.state.is_multiple_of(5) {
                    if let Some(out) = self.out {
                        ctx.send(out, self.state & 0xfff);
                    }
                }
            }
            _ => {}
        }
    }

    fn save(&self) -> Result<Vec<u8>, simkit::checkpoint::CheckpointError> {
        Ok(self.state.to_le_bytes().to_vec())
    }

    fn restore(&mut self, s: &[u8]) -> Result<(), simkit::checkpoint::CheckpointError> {
        let b: [u8; 8] = s
            .try_into()
            .map_err(|_| simkit::checkpoint::CheckpointError::Decode("state".into()))?;
        self.state = u64::from_le_bytes(b);
        Ok(())
    }
}

fn build(p: Partitioning, board: &Shared) -> Simulation<u64> {
    let mut b = TopologyBuilder::<u64>::new();
    let ids: Vec<_> = (0..N)
        .map(|me| {
            b.add(
                &format!("n{me}"),
                Node {
                    me,
                    board: board.clone(),
                    out: None,
                    state: me as u64,
                },
            )
            .unwrap()
        })
        .collect();
    for i in 0..N {
        let o = b.port(ids[i], "out").unwrap();
        let inp = b.port(ids[(i + 1) % N], "in").unwrap();
        b.connect(o, inp, Tick(LATENCY[i])).unwrap();
    }
    let mut sim = SimInit::new(b.build().unwrap())
        .partitioning(p)
        .max_tick(Tick(END))
        .init()
        .unwrap();
    let hb = board.clone();
    sim.set_sync_points(Tick(PERIOD), move |g| {
        let mut b = hb.lock().unwrap();
        assert_eq!(g.0 % PERIOD, 0);
        assert!(g.0 > b.synced || b.points.is_empty());
        for i in 0..N {
            if let Some((t, v)) = b.pending[i].take() {
                // Only events before the point have been handled.
                assert!(t < g.0, "write at {t} published at {}", g.0);
                b.published[i] = v;
            }
        }
        b.synced = g.0;
        b.points.push(g.0);
    });
    sim
}

fn states(sim: &Simulation<u64>) -> Vec<u64> {
    (0..N)
        .map(|i| {
            let id = sim.find(&format!("n{i}")).unwrap();
            sim.component::<Node>(id).unwrap().state
        })
        .collect()
}

fn run(p: Partitioning) -> (Vec<u64>, Board, u64) {
    let board = Shared::default();
    let mut sim = build(p, &board);
    sim.run().unwrap();
    let b = board.lock().unwrap().clone();
    (states(&sim), b, sim.last_sync_point().0)
}

fn layouts() -> Vec<Partitioning> {
    vec![
        Partitioning::Block(2),
        Partitioning::RoundRobin(2),
        Partitioning::RoundRobin(3),
        Partitioning::Random { parts: 3, seed: 7 },
    ]
}

#[test]
fn sync_points_see_the_same_effects_on_every_partitioning() {
    let reference = run(Partitioning::Single);
    // The hook ran, for points that are multiples of the period, up to the end.
    assert!(reference.1.points.len() > (END / PERIOD) as usize / 2);
    assert_eq!(reference.2, *reference.1.points.last().unwrap());
    for p in layouts() {
        for _ in 0..REPEATS {
            assert_eq!(run(p.clone()), reference, "{p:?}");
        }
    }
}

#[test]
fn stepping_syncs_like_running() {
    let board = Shared::default();
    let mut sim = build(Partitioning::Single, &board);
    while let Some(t) = sim.step().unwrap() {
        if t.0 >= END {
            break;
        }
    }
    let stepped = (states(&sim), board.lock().unwrap().points.clone());
    let board2 = Shared::default();
    let mut sim2 = build(Partitioning::Single, &board2);
    sim2.run_until(Tick(stepped.1.last().copied().unwrap_or(0) + PERIOD - 1))
        .unwrap();
    let pts = board2.lock().unwrap().points.clone();
    assert_eq!(pts, stepped.1);
}

#[test]
fn a_checkpoint_between_sync_points_continues_identically() {
    let reference = run(Partitioning::Single);
    for (p, at) in [
        (Partitioning::Single, 5_003),
        (Partitioning::Block(2), 7_400),
        (Partitioning::RoundRobin(3), 9_001),
    ] {
        let board = Shared::default();
        let mut sim = build(p.clone(), &board);
        sim.run_until(Tick(at)).unwrap();
        let bytes = sim.checkpoint_bytes().unwrap();
        let saved = board.lock().unwrap().clone();
        // Restore into a fresh simulation on another partitioning, board included.
        let board2: Shared = Arc::new(Mutex::new(saved));
        let mut sim2 = build(Partitioning::RoundRobin(2), &board2);
        sim2.restore_bytes(&bytes).unwrap();
        assert_eq!(sim2.last_sync_point(), sim.last_sync_point());
        sim2.run().unwrap();
        let got = (states(&sim2), board2.lock().unwrap().clone());
        assert_eq!(got.0, reference.0, "{p:?} at {at}");
        assert_eq!(got.1, reference.1, "{p:?} at {at}");
    }
}
