//! Stops the model asks for are deterministic: an exit requested at tick T (through the
//! context or a handle used inside a handler) and the last primary's release end the run after
//! exactly the events before T plus the exit horizon, with the same final state on one
//! partition and on any partitioning, however the threads happen to be timed.

use simkit::checkpoint::{self, CheckpointError};
use simkit::component::{Component, ComponentId, Ctx, Input};
use simkit::engine::{CompletionReason, ExitStatus, SimError, SimInit, Simulation};
use simkit::handle::SimHandle;
use simkit::partition::Partitioning;
use simkit::port::PortId;
use simkit::time::Tick;
use simkit::topology::{TopologyBuilder, TopologyError};

/// Latency of ring link `i -> i+1`. The largest, 1000, is the exit horizon; partitionings
/// cut the ring at links with far smaller latencies, so their epoch windows are short and
/// partitions that did not ask to exit run well past the request before they hear of it.
const LATENCY: [u64; 8] = [300, 50, 1000, 120, 700, 80, 400, 200];
const HORIZON: u64 = 1000;
/// Multi-partition runs of each case: thread timing differs from run to run.
const REPEATS: usize = 50;

/// Timer payloads.
const WORK: u64 = 0;
const EXIT: u64 = 1;
const HANDLE_EXIT: u64 = 2;
const RELEASE: u64 = 3;

fn mix(h: u64, v: u64) -> u64 {
    (h ^ v).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29)
}

/// Works forever: a timer every 1 to 7 ticks (drawn from its own state, or a fixed period),
/// and on every fourth timer a message to the next component of the ring. Everything it sees
/// is folded into `state`. Marker timers make it request an exit, through its context or a
/// handle, or release its primary hold.
#[derive(Default)]
struct Busy {
    out: Option<PortId>,
    period: Option<u64>,
    state: u64,
    seen: u64,
    last: u64,
    exit_at: Option<(u64, &'static str, i32)>,
    handle_exit_at: Option<(u64, &'static str, i32)>,
    handle: Option<SimHandle<u64>>,
    release_at: Option<u64>,
}

impl Component<u64> for Busy {
    fn init(&mut self, ctx: &mut Ctx<'_, u64>) {
        self.out = ctx.port("out");
        ctx.schedule(Tick(1 + ctx.id().index() as u64 % 3), WORK);
        if let Some((t, ..)) = self.exit_at {
            ctx.schedule_at(Tick(t), EXIT);
        }
        if let Some((t, ..)) = self.handle_exit_at {
            ctx.schedule_at(Tick(t), HANDLE_EXIT);
        }
        if let Some(t) = self.release_at {
            ctx.schedule_at(Tick(t), RELEASE);
        }
    }

    fn handle(&mut self, input: Input<u64>, ctx: &mut Ctx<'_, u64>) {
        let now = ctx.now().0;
        self.seen += 1;
        self.last = now;
        match input {
            Input::Message { msg, .. } => self.state = mix(mix(self.state, now), msg),
            Input::Timer(WORK) => {
                self.state = mix(mix(self.state, now), WORK);
                let delay = self.period.unwrap_or(1 + self.state % 7);
                ctx.schedule(Tick(delay), WORK);
                if self.seen.is_multiple_of(4) {
                    if let Some(out) = self.out {
                        ctx.send(out, self.state & 0xffff);
                    }
                }
            }
            Input::Timer(EXIT) => {
                let (_, reason, code) = self.exit_at.unwrap();
                ctx.request_exit(reason, code);
            }
            Input::Timer(HANDLE_EXIT) => {
                let (_, reason, code) = self.handle_exit_at.unwrap();
                let h = self
                    .handle
                    .as_ref()
                    .expect("handle installed before the run");
                assert!(h.request_exit(reason, code));
                // A second request from the same handler does not replace the first.
                assert!(!h.request_exit("second", 99));
            }
            Input::Timer(RELEASE) => ctx.release_primary(),
            _ => unreachable!("no other inputs in this model"),
        }
    }

    fn save(&self) -> Result<Vec<u8>, CheckpointError> {
        checkpoint::encode(&(self.state, self.seen, self.last))
    }

    fn restore(&mut self, bytes: &[u8]) -> Result<(), CheckpointError> {
        (self.state, self.seen, self.last) = checkpoint::decode(bytes)?;
        Ok(())
    }
}

/// A ring of eight [`Busy`] components (links as in [`LATENCY`]); `setup` adjusts each
/// before the topology is built. Component 7 ticks every tick, so the last event of any
/// run stopped by the exit rule is at the cap minus one.
fn ring(
    layout: Partitioning,
    primaries: &[usize],
    setup: impl Fn(usize, &mut Busy),
) -> Simulation<u64> {
    let mut b = TopologyBuilder::new();
    let ids: Vec<ComponentId> = (0..8)
        .map(|i| {
            let mut c = Busy {
                period: (i == 7).then_some(1),
                ..Busy::default()
            };
            setup(i, &mut c);
            b.add(&format!("busy[{i}]"), c).unwrap()
        })
        .collect();
    for i in 0..8 {
        let out = b.port(ids[i], "out").unwrap();
        let inp = b.port(ids[(i + 1) % 8], "in").unwrap();
        b.connect(out, inp, Tick(LATENCY[i])).unwrap();
    }
    for &p in primaries {
        b.primary(ids[p]).unwrap();
    }
    SimInit::new(b.build().unwrap())
        .partitioning(layout)
        .init()
        .unwrap()
}

/// The partitionings compared with the sequential run: 2 and 3 partitions, cut in
/// different places.
fn parallel_layouts() -> Vec<Partitioning> {
    vec![
        Partitioning::Block(2),
        Partitioning::RoundRobin(2),
        Partitioning::Manual(vec![0, 0, 1, 1, 1, 0, 2, 2]),
        Partitioning::Random { parts: 3, seed: 5 },
        Partitioning::Auto(3),
    ]
}

/// Everything a run's end must agree on.
#[derive(Debug, Clone, PartialEq, Eq)]
struct End {
    status: ExitStatus,
    now: Tick,
    events: u64,
    traces: Vec<u64>,
    /// Per component: (state hash, events seen, time of the last one).
    states: Vec<(u64, u64, u64)>,
}

fn end_of(sim: &Simulation<u64>, status: ExitStatus) -> End {
    let ids = (0..8).map(ComponentId::from_index);
    End {
        status,
        now: sim.now(),
        events: sim.report().engine.events,
        traces: ids
            .clone()
            .map(|c| sim.component_trace(c).unwrap())
            .collect(),
        states: ids
            .map(|c| {
                let b = sim.component::<Busy>(c).unwrap();
                (b.state, b.seen, b.last)
            })
            .collect(),
    }
}

/// Runs the model sequentially, then `REPEATS` times under every parallel layout, and checks
/// they all end exactly like the sequential run. Returns the sequential end.
fn same_end_everywhere(
    primaries: &[usize],
    setup: impl Fn(usize, &mut Busy) + Copy,
    install_handles: bool,
) -> End {
    let run = |layout: Partitioning| {
        let mut sim = ring(layout, primaries, setup);
        if install_handles {
            let h = sim.handle();
            sim.for_each_component_mut::<Busy>(|b| b.handle = Some(h.clone()));
        }
        let status = sim.run().unwrap();
        end_of(&sim, status)
    };
    let want = run(Partitioning::Single);
    for layout in parallel_layouts() {
        for round in 0..REPEATS {
            let got = run(layout.clone());
            assert_eq!(got, want, "{layout:?}, round {round}");
        }
    }
    want
}

/// The run ended on the exit request (`reason`, `code`) made at `tick`, cut at
/// `tick + HORIZON`.
fn assert_exit(end: &End, reason: &str, code: i32, tick: u64) {
    assert_eq!(
        end.status,
        ExitStatus::ExitRequested {
            reason: reason.into(),
            code,
            tick: Tick(tick)
        }
    );
    assert_cut_at(end, tick + HORIZON);
}

/// The exit rule itself, on the sequential run: every event before `cap` and none after
/// (component 7 handles one every tick).
fn assert_cut_at(end: &End, cap: u64) {
    assert!(end.states.iter().all(|s| s.2 < cap), "{:?}", end.states);
    assert_eq!(end.states[7].2, cap - 1);
    assert_eq!(end.now, Tick(cap - 1));
}

#[test]
fn exit_requested_by_a_component_ends_every_partitioning_identically() {
    let end = same_end_everywhere(
        &[],
        |i, b| {
            if i == 4 {
                b.exit_at = Some((5003, "enough", 3));
            }
        },
        false,
    );
    assert_exit(&end, "enough", 3, 5003);
}

#[test]
fn the_exit_request_with_the_smallest_key_wins() {
    // Components 6 and 2 ask at the same tick (both timers: the smaller source id wins);
    // component 0 asks later, inside the first request's horizon, and loses.
    let end = same_end_everywhere(
        &[],
        |i, b| match i {
            6 => b.exit_at = Some((4007, "six", 6)),
            2 => b.exit_at = Some((4007, "two", 2)),
            0 => b.exit_at = Some((4511, "zero", 0)),
            _ => {}
        },
        false,
    );
    assert_exit(&end, "two", 2, 4007);
}

#[test]
fn exit_requested_through_a_handle_inside_a_handler_is_deterministic() {
    let end = same_end_everywhere(
        &[],
        |i, b| {
            if i == 5 {
                b.handle_exit_at = Some((4444, "handle", 9));
            }
        },
        true,
    );
    assert_exit(&end, "handle", 9, 4444);
}

#[test]
fn last_primary_release_ends_every_partitioning_identically() {
    // Three primaries in different partitions; component 6 releases last.
    let end = same_end_everywhere(
        &[1, 5, 6],
        |i, b| match i {
            1 => b.release_at = Some(3001),
            5 => b.release_at = Some(4111),
            6 => b.release_at = Some(4213),
            _ => {}
        },
        false,
    );
    assert_eq!(
        end.status,
        ExitStatus::Completed {
            reason: CompletionReason::PrimariesReleased,
            tick: Tick(4213)
        }
    );
    assert_cut_at(&end, 4213 + HORIZON);
}

#[test]
fn the_earlier_of_an_exit_and_the_last_release_wins() {
    // An exit asked after the last release (inside its horizon) loses to it ...
    let end = same_end_everywhere(
        &[1, 6],
        |i, b| match i {
            1 => b.release_at = Some(3001),
            6 => b.release_at = Some(4213),
            3 => b.exit_at = Some((4321, "late", 1)),
            _ => {}
        },
        false,
    );
    assert_eq!(
        end.status,
        ExitStatus::Completed {
            reason: CompletionReason::PrimariesReleased,
            tick: Tick(4213)
        }
    );
    assert_cut_at(&end, 4213 + HORIZON);
    // ... and one asked before it wins.
    let end = same_end_everywhere(
        &[1, 6],
        |i, b| match i {
            1 => b.release_at = Some(3001),
            6 => b.release_at = Some(4213),
            3 => b.exit_at = Some((4157, "early", 1)),
            _ => {}
        },
        false,
    );
    assert_exit(&end, "early", 1, 4157);
}

#[test]
fn an_exit_beyond_the_tick_limit_stays_pending_across_runs_and_checkpoints() {
    let setup = |i: usize, b: &mut Busy| {
        if i == 2 {
            b.exit_at = Some((4007, "pending", 5));
        }
    };
    let mut whole = ring(Partitioning::Single, &[], setup);
    assert_eq!(whole.exit_horizon(), Tick(HORIZON));
    let status = whole.run().unwrap();
    let want = end_of(&whole, status);
    let path = crate::support::temp_path("pending-exit");
    for (first, second) in [
        (Partitioning::Single, Partitioning::Block(2)),
        (Partitioning::RoundRobin(2), Partitioning::Single),
        (
            Partitioning::Auto(3),
            Partitioning::Manual(vec![0, 1, 0, 1, 0, 1, 0, 1]),
        ),
    ] {
        // Stopped at its limit after the request but before the request's cap ...
        let mut a = ring(first.clone(), &[], setup);
        assert_eq!(
            a.run_until(Tick(4511)).unwrap(),
            ExitStatus::MaxTick { tick: Tick(4511) }
        );
        a.save_checkpoint(&path).unwrap();
        // ... the next run honors the request, also in a simulation restored elsewhere.
        let status = a.run().unwrap();
        assert_eq!(end_of(&a, status), want, "continued under {first:?}");
        let mut b = ring(second.clone(), &[], setup);
        b.restore_checkpoint(&path).unwrap();
        let status = b.run().unwrap();
        let got = end_of(&b, status);
        assert_eq!(
            (got.status, got.traces, got.states),
            (
                want.status.clone(),
                want.traces.clone(),
                want.states.clone()
            ),
            "saved under {first:?}, restored under {second:?}"
        );
    }
    let _ = std::fs::remove_file(path);
}

/// Panics when its timer fires.
struct Boom;
impl Component<u64> for Boom {
    fn init(&mut self, ctx: &mut Ctx<'_, u64>) {
        ctx.schedule(Tick(30), 0);
    }
    fn handle(&mut self, _: Input<u64>, _: &mut Ctx<'_, u64>) {
        panic!("boom (expected by the test)");
    }
}

fn boom(layout: Partitioning) -> Simulation<u64> {
    let mut b = TopologyBuilder::new();
    b.add("f", Busy::default()).unwrap();
    b.add("boom", Boom).unwrap();
    SimInit::new(b.build().unwrap())
        .partitioning(layout)
        .init()
        .unwrap()
}

#[test]
fn a_panicking_component_is_a_typed_error_on_one_partition_too() {
    let mut sim = boom(Partitioning::Single);
    assert_eq!(
        sim.run().unwrap_err(),
        SimError::WorkerPanicked { partition: 0 }
    );
    let mut sim = boom(Partitioning::Single);
    assert_eq!(
        sim.run_until(Tick(100)).unwrap_err(),
        SimError::WorkerPanicked { partition: 0 }
    );
    // The same through step(), on one partition and on two.
    for (layout, partition) in [
        (Partitioning::Single, 0),
        (Partitioning::Manual(vec![0, 1]), 1),
    ] {
        let mut sim = boom(layout);
        let err = loop {
            match sim.step() {
                Ok(Some(t)) => assert!(t <= Tick(30)),
                Ok(None) => panic!("the run ended without the panic"),
                Err(e) => break e,
            }
        };
        assert_eq!(err, SimError::WorkerPanicked { partition });
    }
}

/// Panics in `init`.
struct BoomAtInit;
impl Component<u64> for BoomAtInit {
    fn init(&mut self, _: &mut Ctx<'_, u64>) {
        panic!("boom in init (expected by the test)");
    }
    fn handle(&mut self, _: Input<u64>, _: &mut Ctx<'_, u64>) {}
}

#[test]
fn a_panic_in_init_is_a_typed_error_naming_the_component() {
    for layout in [Partitioning::Single, Partitioning::Manual(vec![0, 1])] {
        let mut b = TopologyBuilder::new();
        b.add("f", Busy::default()).unwrap();
        b.add("bad", BoomAtInit).unwrap();
        let err = SimInit::new(b.build().unwrap())
            .partitioning(layout)
            .init()
            .err();
        assert_eq!(
            err,
            Some(TopologyError::InitPanicked {
                component: "bad".into()
            })
        );
    }
}
