//! Clock domains, clocked components, sleeping and wake collapsing.

use crate::support::layouts;
use simkit::component::{Activity, Component, Ctx, Input};
use simkit::engine::SimInit;
use simkit::time::{ClockDomain, Tick};
use simkit::topology::TopologyBuilder;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Ev {
    Edge,
    Msg,
}

/// Ticks five times, then sleeps; a message wakes it (three wake calls that must collapse);
/// the seventh tick wakes itself again and stays active, which must not double-tick.
#[derive(Default)]
struct Ticker {
    log: Vec<(u64, Ev)>,
    ticks: u32,
}

impl Component<u64> for Ticker {
    fn init(&mut self, ctx: &mut Ctx<'_, u64>) {
        ctx.wake();
    }
    fn handle(&mut self, _: Input<u64>, ctx: &mut Ctx<'_, u64>) {
        self.log.push((ctx.now().0, Ev::Msg));
        ctx.wake();
        ctx.wake();
        ctx.wake();
    }
    fn tick(&mut self, ctx: &mut Ctx<'_, u64>) -> Activity {
        self.log.push((ctx.now().0, Ev::Edge));
        self.ticks += 1;
        match self.ticks {
            1..=4 => Activity::Active,
            7 => {
                ctx.wake();
                Activity::Active
            }
            _ => Activity::Sleep,
        }
    }
}

/// Sends on "out" at the given times (the link adds 100).
struct Driver(Vec<u64>);
impl Component<u64> for Driver {
    fn init(&mut self, ctx: &mut Ctx<'_, u64>) {
        for &t in &self.0 {
            ctx.schedule_at(Tick(t), 0);
        }
    }
    fn handle(&mut self, _: Input<u64>, ctx: &mut Ctx<'_, u64>) {
        let out = ctx.port("out").unwrap();
        ctx.send(out, 0);
    }
}

#[test]
fn clocked_components_tick_sleep_and_collapse_wakes() {
    for layout in layouts(2) {
        let mut b = TopologyBuilder::new();
        let t = b.add("ticker", Ticker::default()).unwrap();
        b.clock(t, ClockDomain::new(Tick(1000), Tick(250)).unwrap())
            .unwrap();
        let d = b.add("driver", Driver(vec![6900, 9150])).unwrap();
        let (o, i) = (b.port(d, "out").unwrap(), b.port(t, "in").unwrap());
        b.connect(o, i, Tick(100)).unwrap();
        let mut sim = SimInit::new(b.build().unwrap())
            .partitioning(layout.clone())
            .init()
            .unwrap();
        sim.run().unwrap();
        let log = &sim.component::<Ticker>(t).unwrap().log;
        use Ev::{Edge, Msg};
        assert_eq!(
            log,
            &vec![
                (250, Edge),
                (1250, Edge),
                (2250, Edge),
                (3250, Edge),
                (4250, Edge), // fifth tick: sleeps
                (7000, Msg),  // three wakes ...
                (7250, Edge), // ... one tick, on the next edge; sleeps
                (9250, Msg),  // arrives on an edge: the tick of that edge follows it
                (9250, Edge), // wakes itself and stays active: still one tick per edge
                (10250, Edge),
            ],
            "{layout:?}"
        );
        // Every handled event is accounted: 8 ticks, 2 messages, 2 driver timers.
        assert_eq!(sim.report().engine.events, 12);
    }
}

/// Always active; counts its ticks and remembers the first few edges.
#[derive(Default)]
struct Busy {
    ticks: u64,
    edges: Vec<u64>,
}
impl Component<u64> for Busy {
    fn init(&mut self, ctx: &mut Ctx<'_, u64>) {
        ctx.wake();
    }
    fn handle(&mut self, _: Input<u64>, _: &mut Ctx<'_, u64>) {}
    fn tick(&mut self, ctx: &mut Ctx<'_, u64>) -> Activity {
        self.ticks += 1;
        if self.edges.len() < 4 {
            self.edges.push(ctx.now().0);
        }
        Activity::Active
    }
}

/// Never woken.
struct Idle;
impl Component<u64> for Idle {
    fn handle(&mut self, _: Input<u64>, _: &mut Ctx<'_, u64>) {}
    fn tick(&mut self, _: &mut Ctx<'_, u64>) -> Activity {
        Activity::Active
    }
}

#[test]
fn two_clock_domains_and_a_derived_one() {
    for layout in layouts(3) {
        let fast = ClockDomain::from_mhz(1000).unwrap();
        let slow = fast.derived(1, 2).unwrap();
        let odd = ClockDomain::from_mhz(300).unwrap().with_phase(Tick(100));
        let mut b = TopologyBuilder::new();
        let a = b.add("a", Busy::default()).unwrap();
        let s = b.add("s", Busy::default()).unwrap();
        let o = b.add("o", Busy::default()).unwrap();
        b.clock(a, fast).unwrap();
        b.clock(s, slow).unwrap();
        b.clock(o, odd).unwrap();
        let mut sim = SimInit::new(b.build().unwrap())
            .partitioning(layout)
            .init()
            .unwrap();
        sim.run_until(Tick(20_000)).unwrap();
        let get = |c| sim.component::<Busy>(c).unwrap();
        assert_eq!(get(a).ticks, 21); // 0, 1000, ..., 20000
        assert_eq!(get(a).edges, vec![0, 1000, 2000, 3000]);
        assert_eq!(get(s).ticks, 11); // 0, 2000, ..., 20000
        assert_eq!(get(s).edges, vec![0, 2000, 4000, 6000]);
        // 300 MHz: 3333 ps period from phase 100: edges 100 + 3333k <= 20000 -> k = 0..=5.
        assert_eq!(odd.period(), Tick(3333));
        assert_eq!(get(o).ticks, 6);
        assert_eq!(get(o).edges, vec![100, 3433, 6766, 10099]);
    }
}

#[test]
fn sleeping_components_cost_nothing() {
    for layout in layouts(200) {
        let clock = ClockDomain::from_mhz(1000).unwrap();
        let mut b = TopologyBuilder::new();
        let mut busy = Vec::new();
        for i in 0..200 {
            let c = if i % 100 == 7 {
                let c = b.add(&format!("c[{i}]"), Busy::default()).unwrap();
                busy.push(c);
                c
            } else {
                b.add(&format!("c[{i}]"), Idle).unwrap()
            };
            b.clock(c, clock).unwrap();
        }
        let mut sim = SimInit::new(b.build().unwrap())
            .partitioning(layout)
            .init()
            .unwrap();
        sim.run_until(Tick(99_999)).unwrap();
        // Only the two awake components tick: 100 edges each, nothing for the other 198.
        assert_eq!(sim.report().engine.events, 200);
        for c in busy {
            assert_eq!(sim.component::<Busy>(c).unwrap().ticks, 100);
        }
    }
}
