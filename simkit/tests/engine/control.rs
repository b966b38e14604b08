//! Running and stopping: exit requests, interrupts and their race, async injection,
//! primaries, quiescence and every ExitStatus.

use crate::support::{layouts, Recorder, Seen};
use simkit::component::{Component, ComponentId, Ctx, Input};
use simkit::engine::{CompletionReason, ExitStatus, SimInit, Simulation};
use simkit::partition::Partitioning;
use simkit::time::Tick;
use simkit::topology::TopologyBuilder;

/// Sets a timer every 10 ticks, forever.
struct Forever;
impl Component<u64> for Forever {
    fn init(&mut self, ctx: &mut Ctx<'_, u64>) {
        ctx.schedule(Tick(10), 0);
    }
    fn handle(&mut self, _: Input<u64>, ctx: &mut Ctx<'_, u64>) {
        ctx.schedule(Tick(10), 0);
    }
}

fn forever(layout: Partitioning) -> Simulation<u64> {
    let mut b = TopologyBuilder::new();
    b.add("f0", Forever).unwrap();
    b.add("f1", Forever).unwrap();
    SimInit::new(b.build().unwrap())
        .partitioning(layout)
        .init()
        .unwrap()
}

#[test]
fn request_exit_and_shutdown_race_cleanly() {
    for layout in layouts(2) {
        for round in 0..300 {
            let mut sim = forever(layout.clone());
            let h = sim.handle();
            let go = std::sync::Barrier::new(2);
            let (status, won_exit, won_shutdown) = std::thread::scope(|s| {
                let (h1, h2) = (h.clone(), h.clone());
                let go = &go;
                let a = s.spawn(move || {
                    go.wait();
                    h1.request_exit("race", 7)
                });
                let b = s.spawn(move || {
                    go.wait();
                    h2.shutdown()
                });
                let status = sim.run().unwrap();
                (status, a.join().unwrap(), b.join().unwrap())
            });
            assert!(
                won_exit ^ won_shutdown,
                "exactly one request wins (round {round})"
            );
            let t = status.tick();
            if won_exit {
                assert_eq!(
                    status,
                    ExitStatus::ExitRequested {
                        reason: "race".into(),
                        code: 7,
                        tick: t
                    }
                );
            } else {
                assert_eq!(status, ExitStatus::Interrupted { tick: t });
            }
            // The request was consumed: nothing lingers to stop the next run.
            let limit = t + Tick(100);
            assert_eq!(
                sim.run_until(limit).unwrap(),
                ExitStatus::MaxTick { tick: limit }
            );
        }
    }
}

#[test]
fn shutdown_is_idempotent() {
    for layout in layouts(2) {
        let mut sim = forever(layout);
        let h = sim.handle();
        assert!(h.shutdown());
        assert!(!h.shutdown());
        assert!(!h.request_exit("late", 1));
        assert_eq!(
            sim.run().unwrap(),
            ExitStatus::Interrupted { tick: Tick(0) }
        );
        assert_eq!(
            sim.run_until(Tick(55)).unwrap(),
            ExitStatus::MaxTick { tick: Tick(55) }
        );
        // Five timers each for f0 and f1 (10, 20, ..., 50).
        assert_eq!(sim.report().engine.events, 10);
    }
}

#[test]
fn events_injected_from_another_thread_are_all_delivered() {
    for layout in layouts(2) {
        let mut b = TopologyBuilder::new();
        b.add("other", Recorder::default()).unwrap();
        let target = b.add("target", Recorder::default()).unwrap();
        let mut sim = SimInit::new(b.build().unwrap())
            .partitioning(layout.clone())
            .init()
            .unwrap();
        let h = sim.handle();
        // Held open: with no events the run waits for the injector instead of completing.
        let guard = h.hold();
        let status = std::thread::scope(|s| {
            s.spawn(move || {
                for i in 0..50u64 {
                    h.schedule_now(target, i).unwrap();
                    h.schedule_async(target, Tick(1_000_000 + i), 100 + i)
                        .unwrap();
                }
                guard.release();
            });
            sim.run().unwrap()
        });
        assert!(matches!(
            status,
            ExitStatus::Completed {
                reason: CompletionReason::Quiescent,
                ..
            }
        ));
        let log = &sim.component::<Recorder>(target).unwrap().log;
        assert_eq!(log.len(), 100, "{layout:?}");
        let mut late = 0;
        let mut now_payloads = Vec::new();
        for (t, s) in log {
            let Seen::External(p) = s else {
                panic!("unexpected {s:?}")
            };
            if *p >= 100 {
                let asked = 1_000_000 + p - 100;
                assert!(t.0 >= asked);
                late += (t.0 != asked) as u64;
            } else {
                now_payloads.push(*p);
            }
        }
        // "Now" injections keep their acceptance order.
        assert_eq!(now_payloads, (0..50).collect::<Vec<_>>());
        assert_eq!(sim.report().engine.late_injections, late);
        // Time never went backwards.
        assert!(log.windows(2).all(|w| w[0].0 <= w[1].0));
    }
}

/// Ticks forever on a 1 ns clock.
struct Clocked;
impl Component<u64> for Clocked {
    fn init(&mut self, ctx: &mut Ctx<'_, u64>) {
        ctx.wake();
    }
    fn handle(&mut self, _: Input<u64>, _: &mut Ctx<'_, u64>) {}
    fn tick(&mut self, _: &mut Ctx<'_, u64>) -> simkit::component::Activity {
        simkit::component::Activity::Active
    }
}

/// A primary that releases the run at the given time.
struct Releaser(u64);
impl Component<u64> for Releaser {
    fn init(&mut self, ctx: &mut Ctx<'_, u64>) {
        ctx.schedule_at(Tick(self.0), 0);
    }
    fn handle(&mut self, _: Input<u64>, ctx: &mut Ctx<'_, u64>) {
        ctx.release_primary();
        ctx.release_primary(); // twice is harmless
    }
}

#[test]
fn primaries_hold_the_run_until_all_release() {
    for layout in layouts(3) {
        let mut b = TopologyBuilder::new();
        let c = b.add("clk", Clocked).unwrap();
        b.clock(c, simkit::time::ClockDomain::from_mhz(1000).unwrap())
            .unwrap();
        let p1 = b.add("p1", Releaser(5000)).unwrap();
        let p2 = b.add("p2", Releaser(8000)).unwrap();
        b.primary(p1).unwrap();
        b.primary(p2).unwrap();
        let mut sim = SimInit::new(b.build().unwrap())
            .partitioning(layout)
            .init()
            .unwrap();
        let status = sim.run().unwrap();
        let ExitStatus::Completed {
            reason: CompletionReason::PrimariesReleased,
            tick,
        } = status
        else {
            panic!("{status:?}");
        };
        // The clock would tick forever; the run ended once the second primary released, on
        // every layout alike: the model has no links, so its exit horizon is one tick and
        // only the events at the release's own tick still ran.
        assert_eq!(sim.exit_horizon(), Tick(1));
        assert_eq!(tick, Tick(8000));
        // Ticks at 0..=8000 plus the two release timers.
        assert_eq!(sim.report().engine.events, 9 + 2);
        assert_eq!(sim.now(), Tick(8000));
        // Once released, a later run completes at once.
        assert_eq!(
            sim.run().unwrap(),
            ExitStatus::Completed {
                reason: CompletionReason::PrimariesReleased,
                tick: Tick(8000)
            }
        );
        assert_eq!(sim.report().engine.events, 9 + 2);
    }
}

/// Bounces a counter over two links until it reaches 10, then at 10 asks to exit if told to.
struct Player {
    exit_at: Option<u64>,
}
impl Component<u64> for Player {
    fn init(&mut self, ctx: &mut Ctx<'_, u64>) {
        if ctx.name() == "ping" {
            let out = ctx.port("out").unwrap();
            ctx.send(out, 0);
        }
    }
    fn handle(&mut self, input: Input<u64>, ctx: &mut Ctx<'_, u64>) {
        if let Input::Message { msg, .. } = input {
            if Some(msg) == self.exit_at {
                ctx.request_exit("enough", 3);
            }
            if msg < 10 {
                let out = ctx.port("out").unwrap();
                ctx.send(out, msg + 1);
            }
        }
    }
}

fn ping_pong(layout: Partitioning, exit_at: Option<u64>) -> Simulation<u64> {
    let mut b = TopologyBuilder::new();
    let ping = b.add("ping", Player { exit_at }).unwrap();
    let pong = b.add("pong", Player { exit_at }).unwrap();
    let (po, pi) = (b.port(ping, "out").unwrap(), b.port(ping, "in").unwrap());
    let (qo, qi) = (b.port(pong, "out").unwrap(), b.port(pong, "in").unwrap());
    b.connect(po, qi, Tick(100)).unwrap();
    b.connect(qo, pi, Tick(100)).unwrap();
    SimInit::new(b.build().unwrap())
        .partitioning(layout)
        .init()
        .unwrap()
}

#[test]
fn every_exit_status() {
    for layout in layouts(2) {
        // MaxTick, then the rest to quiescence.
        let mut sim = ping_pong(layout.clone(), None);
        assert_eq!(
            sim.run_until(Tick(450)).unwrap(),
            ExitStatus::MaxTick { tick: Tick(450) }
        );
        assert_eq!(sim.report().engine.events, 4); // arrivals at 100..400
        assert_eq!(
            sim.run().unwrap(),
            ExitStatus::Completed {
                reason: CompletionReason::Quiescent,
                tick: Tick(1100)
            }
        );
        assert_eq!(sim.report().engine.events, 11);
        assert_eq!(sim.pending_events(), 0);
        // A second run of a quiescent simulation completes at once.
        assert!(matches!(sim.run().unwrap(), ExitStatus::Completed { .. }));

        // A component's exit request: message 4 arrives at 500.
        let mut sim = ping_pong(layout.clone(), Some(4));
        assert_eq!(
            sim.run().unwrap(),
            ExitStatus::ExitRequested {
                reason: "enough".into(),
                code: 3,
                tick: Tick(500)
            }
        );
        // Every event before 500 + the exit horizon (the 100-tick links) ran: arrivals at
        // 100..=500, not the one at 600.
        assert_eq!(sim.report().engine.events, 5);
        assert_eq!(sim.now(), Tick(500));
        // Continuing picks up where it stopped.
        assert!(matches!(
            sim.run().unwrap(),
            ExitStatus::Completed {
                tick: Tick(1100),
                ..
            }
        ));

        // Interrupted before it starts; an external exit request.
        let mut sim = ping_pong(layout.clone(), None);
        sim.handle().shutdown();
        assert!(matches!(sim.run().unwrap(), ExitStatus::Interrupted { .. }));
        // Until the next run starts, the honored interrupt stays latched: a late exit request
        // (say, one racing the interrupt) is refused.
        assert!(!sim.handle().request_exit("outside", -1));
        assert_eq!(
            sim.run_until(Tick(150)).unwrap(),
            ExitStatus::MaxTick { tick: Tick(150) }
        );
        assert!(sim.handle().request_exit("outside", -1));
        assert!(matches!(
            sim.run().unwrap(),
            ExitStatus::ExitRequested { code: -1, .. }
        ));

        // max_tick from setup bounds run().
        let mut b = TopologyBuilder::new();
        b.add("f", Forever).unwrap();
        let mut sim = SimInit::new(b.build().unwrap())
            .partitioning(layout.clone())
            .max_tick(Tick(95))
            .init()
            .unwrap();
        assert_eq!(sim.run().unwrap(), ExitStatus::MaxTick { tick: Tick(95) });
        assert_eq!(sim.report().engine.events, 9);
    }
}

#[test]
fn step_handles_one_timestamp_at_a_time() {
    for layout in layouts(2) {
        let mut sim = ping_pong(layout, None);
        let mut times = Vec::new();
        while let Some(t) = sim.step().unwrap() {
            times.push(t.0);
        }
        assert_eq!(times, (1..=11).map(|k| k * 100).collect::<Vec<_>>());
        let _ = ComponentId::from_index(0);
    }
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

#[test]
fn a_panicking_component_fails_the_run_without_hanging_the_others() {
    let mut b = TopologyBuilder::new();
    b.add("f", Forever).unwrap();
    b.add("boom", Boom).unwrap();
    let mut sim = SimInit::new(b.build().unwrap())
        .partitioning(Partitioning::Manual(vec![0, 1]))
        .init()
        .unwrap();
    assert_eq!(
        sim.run().unwrap_err(),
        simkit::engine::SimError::WorkerPanicked { partition: 1 }
    );
}
