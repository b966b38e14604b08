//! Pins the exact same-time order of events: (time, class, source id, source sequence).

use crate::support::{Recorder, Seen};
use simkit::component::{Component, ComponentId, Ctx, Input};
use simkit::engine::SimInit;
use simkit::partition::Partitioning;
use simkit::port::PortId;
use simkit::time::{ClockDomain, Tick};
use simkit::topology::TopologyBuilder;

/// Sends `(delay_before_send, latency, payload)` messages on its "out" port.
struct Sender {
    plan: Vec<(u64, u64)>,
    out: Option<PortId>,
}

impl Component<u64> for Sender {
    fn init(&mut self, ctx: &mut Ctx<'_, u64>) {
        self.out = ctx.port("out");
        for &(when, payload) in &self.plan {
            if when == 0 {
                ctx.send(self.out.unwrap(), payload);
            } else {
                ctx.schedule(Tick(when), payload);
            }
        }
    }
    fn handle(&mut self, input: Input<u64>, ctx: &mut Ctx<'_, u64>) {
        if let Input::Timer(p) = input {
            ctx.send(self.out.unwrap(), p);
        }
    }
}

/// The sink: wakes its clock (first edge at 100) and sets a timer for 100 in `init`.
struct Sink(Recorder);

impl Component<u64> for Sink {
    fn init(&mut self, ctx: &mut Ctx<'_, u64>) {
        ctx.schedule_at(Tick(100), 900);
        ctx.wake();
    }
    fn handle(&mut self, input: Input<u64>, ctx: &mut Ctx<'_, u64>) {
        self.0.handle(input, ctx)
    }
    fn tick(&mut self, ctx: &mut Ctx<'_, u64>) -> simkit::component::Activity {
        self.0.tick(ctx)
    }
}

#[test]
fn same_time_order_is_time_class_source_sequence() {
    // Manual layouts put the senders in other partitions than the sink: the order must not
    // depend on which queue or thread a message went through.
    for layout in [
        Partitioning::Single,
        Partitioning::Manual(vec![1, 0, 1, 0]),
        Partitioning::Manual(vec![1, 2, 0, 0]),
        Partitioning::Manual(vec![0, 1, 2, 3]),
    ] {
        let mut b = TopologyBuilder::new();
        // Component ids: a=0, b=1, c=2, sink=3. Every message lands at t=100.
        // `a` sends twice at t=0 over a 100-tick link: sequences 0 and 1.
        let a = b
            .add(
                "a",
                Sender {
                    plan: vec![(0, 10), (0, 11)],
                    out: None,
                },
            )
            .unwrap();
        // `bb` sends at t=50 (after a timer) over a 50-tick link.
        let bb = b
            .add(
                "b",
                Sender {
                    plan: vec![(50, 20)],
                    out: None,
                },
            )
            .unwrap();
        // `c` sends at t=0 over a 100-tick link: earlier than `b` in simulated time, but it
        // has the higher id, so it comes after `b`.
        let c = b
            .add(
                "c",
                Sender {
                    plan: vec![(0, 30)],
                    out: None,
                },
            )
            .unwrap();
        let sink = b.add("sink", Sink(Recorder::default())).unwrap();
        b.clock(sink, ClockDomain::new(Tick(1000), Tick(100)).unwrap())
            .unwrap();
        let inputs: Vec<PortId> = (0..3)
            .map(|i| b.port(sink, &format!("in{i}")).unwrap())
            .collect();
        for (i, (src, lat)) in [(a, 100), (bb, 50), (c, 100)].into_iter().enumerate() {
            let out = b.port(src, "out").unwrap();
            b.connect(out, inputs[i], Tick(lat)).unwrap();
        }
        // Two external events at t=100: one from the topology, one from the handle.
        b.initial_event(sink, Tick(100), 1).unwrap();
        let mut sim = SimInit::new(b.build().unwrap())
            .partitioning(layout.clone())
            .init()
            .unwrap();
        sim.handle()
            .schedule_async(ComponentId::from_index(3), Tick(100), 2)
            .unwrap();
        sim.run().unwrap();
        let log = &sim.component::<Sink>(sink).unwrap().0.log;
        let t = Tick(100);
        assert_eq!(
            log,
            &vec![
                (t, Seen::External(1)), // external, accepted first
                (t, Seen::External(2)), // external, accepted second
                (t, Seen::Msg(10)),     // message from a (id 0), its sequence 0
                (t, Seen::Msg(11)),     // message from a, its sequence 1
                (t, Seen::Msg(20)),     // message from b (id 1)
                (t, Seen::Msg(30)),     // message from c (id 2)
                (t, Seen::Timer(900)),  // the sink's own timer
                (t, Seen::Tick),        // the sink's clock edge, last
            ],
            "{layout:?}"
        );
    }
}
