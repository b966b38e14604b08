//! Topology validation errors, composites and partitioning.

use crate::support::{layouts, Recorder, Seen};
use simkit::component::{Component, Ctx, Input};
use simkit::engine::{SimError, SimInit};
use simkit::handle::ScheduleError;
use simkit::partition::Partitioning;
use simkit::time::Tick;
use simkit::topology::{TopologyBuilder, TopologyError};

fn rec() -> Recorder {
    Recorder::default()
}

#[test]
fn dangling_port_is_reported_by_name() {
    let mut b = TopologyBuilder::<u64>::new();
    b.composite("soc").unwrap();
    let x = b.add("soc.x", rec()).unwrap();
    let y = b.add("soc.y", rec()).unwrap();
    let (o, i) = (b.port(x, "out").unwrap(), b.port(y, "in").unwrap());
    b.port(y, "spare").unwrap();
    b.connect(o, i, Tick(1)).unwrap();
    assert_eq!(
        b.build().unwrap_err(),
        TopologyError::DanglingPort {
            port: "soc.y.spare".into()
        }
    );
}

#[test]
fn duplicate_and_malformed_names_are_rejected() {
    let mut b = TopologyBuilder::<u64>::new();
    b.composite("gpu").unwrap();
    let c = b.add("gpu.cu[0]", rec()).unwrap();
    assert_eq!(
        b.add("gpu.cu[0]", rec()).unwrap_err(),
        TopologyError::DuplicateName {
            name: "gpu.cu[0]".into()
        }
    );
    assert_eq!(
        b.composite("gpu").unwrap_err(),
        TopologyError::DuplicateName { name: "gpu".into() }
    );
    b.port(c, "mem").unwrap();
    assert_eq!(
        b.port(c, "mem").unwrap_err(),
        TopologyError::DuplicateName {
            name: "gpu.cu[0].mem".into()
        }
    );
    assert_eq!(
        b.add("cpu.core[0]", rec()).unwrap_err(),
        TopologyError::UnknownParent {
            name: "cpu.core[0]".into(),
            parent: "cpu".into()
        }
    );
    assert!(matches!(
        b.add("gpu.cu[x]", rec()),
        Err(TopologyError::BadName { .. })
    ));
}

#[test]
fn a_port_feeds_one_link() {
    let mut b = TopologyBuilder::<u64>::new();
    let x = b.add("x", rec()).unwrap();
    let y = b.add("y", rec()).unwrap();
    let o = b.port(x, "out").unwrap();
    let (i1, i2) = (b.port(y, "a").unwrap(), b.port(y, "b").unwrap());
    b.connect(o, i1, Tick(1)).unwrap();
    assert_eq!(
        b.connect(o, i2, Tick(1)).unwrap_err(),
        TopologyError::PortAlreadyLinked {
            port: "x.out".into()
        }
    );
}

fn pair(latency: u64) -> simkit::topology::Topology<u64> {
    let mut b = TopologyBuilder::<u64>::new();
    let x = b.add("x", rec()).unwrap();
    let y = b.add("y", rec()).unwrap();
    let (o, i) = (b.port(x, "out").unwrap(), b.port(y, "in").unwrap());
    b.connect(o, i, Tick(latency)).unwrap();
    b.build().unwrap()
}

#[test]
fn zero_latency_link_may_not_cross_partitions() {
    let err = SimInit::new(pair(0))
        .partitioning(Partitioning::Manual(vec![0, 1]))
        .init()
        .unwrap_err();
    assert_eq!(
        err,
        TopologyError::ZeroLatencyCrossPartition {
            from: "x.out".into(),
            to: "y.in".into(),
            from_partition: 0,
            to_partition: 1
        }
    );
    // Inside one partition it is fine, and the automatic partitioner keeps the pair together.
    assert!(SimInit::new(pair(0)).init().is_ok());
    let sim = SimInit::new(pair(0))
        .partitioning(Partitioning::Auto(2))
        .init()
        .unwrap();
    let x = sim.find("x").unwrap();
    let y = sim.find("y").unwrap();
    assert_eq!(sim.partition_of(x), sim.partition_of(y));
    // Lookahead is the smallest crossing latency.
    let sim = SimInit::new(pair(7))
        .partitioning(Partitioning::Block(2))
        .init()
        .unwrap();
    assert_eq!(sim.lookahead(), Tick(7));
}

#[test]
fn zero_latency_net_may_not_span_partitions() {
    let mut b = TopologyBuilder::<u64>::new();
    let n = b.net("noc", Tick(0)).unwrap();
    for i in 0..4 {
        let c = b.add(&format!("n[{i}]"), rec()).unwrap();
        b.join(n, c).unwrap();
    }
    let err = SimInit::new(b.build().unwrap())
        .partitioning(Partitioning::RoundRobin(2))
        .init()
        .unwrap_err();
    assert_eq!(
        err,
        TopologyError::ZeroLatencyNetCrossPartition { net: "noc".into() }
    );
}

#[test]
fn scheduling_in_the_past_is_an_error_everywhere() {
    // At setup: an initial event before the start time.
    let mut b = TopologyBuilder::<u64>::new();
    let x = b.add("x", rec()).unwrap();
    b.initial_event(x, Tick(5), 0).unwrap();
    let err = SimInit::new(b.build().unwrap())
        .start_at(Tick(10))
        .init()
        .unwrap_err();
    assert_eq!(
        err,
        TopologyError::ScheduleInPast {
            component: "x".into(),
            at: Tick(5),
            start: Tick(10)
        }
    );

    // From a handler: the run stops with a typed error.
    struct Bad;
    impl Component<u64> for Bad {
        fn init(&mut self, ctx: &mut Ctx<'_, u64>) {
            ctx.schedule(Tick(50), 0);
        }
        fn handle(&mut self, _: Input<u64>, ctx: &mut Ctx<'_, u64>) {
            ctx.schedule_at(Tick(10), 1);
        }
    }
    for layout in layouts(2) {
        let mut b = TopologyBuilder::<u64>::new();
        let bad = b.add("bad", Bad).unwrap();
        b.add("other", rec()).unwrap();
        let mut sim = SimInit::new(b.build().unwrap())
            .partitioning(layout)
            .init()
            .unwrap();
        assert_eq!(
            sim.run().unwrap_err(),
            SimError::ScheduleInPast {
                component: bad,
                at: Tick(10),
                now: Tick(50)
            }
        );
        // From another thread: refused at once.
        assert_eq!(
            sim.handle().schedule_async(bad, Tick(3), 0).unwrap_err(),
            ScheduleError::InPast {
                at: Tick(3),
                now: Tick(50)
            }
        );
        assert_eq!(
            sim.handle()
                .schedule_now(simkit::component::ComponentId::from_index(9), 0),
            Err(ScheduleError::UnknownComponent(9))
        );
    }
}

#[test]
fn sending_on_someone_elses_port_is_an_error() {
    struct Thief(simkit::port::PortId);
    impl Component<u64> for Thief {
        fn init(&mut self, ctx: &mut Ctx<'_, u64>) {
            ctx.send(self.0, 1);
        }
        fn handle(&mut self, _: Input<u64>, _: &mut Ctx<'_, u64>) {}
    }
    let mut b = TopologyBuilder::<u64>::new();
    let x = b.add("x", rec()).unwrap();
    let y = b.add("y", rec()).unwrap();
    let (o, i) = (b.port(x, "out").unwrap(), b.port(y, "in").unwrap());
    b.connect(o, i, Tick(1)).unwrap();
    let t = b.add("t", Thief(o)).unwrap();
    let mut sim = SimInit::new(b.build().unwrap()).init().unwrap();
    assert_eq!(
        sim.run().unwrap_err(),
        SimError::NotAnOutputPort {
            component: t,
            port: o,
            tick: Tick(0)
        }
    );
}

/// A component that forwards what it gets on "in" to "out".
struct Relay;
impl Component<u64> for Relay {
    fn handle(&mut self, input: Input<u64>, ctx: &mut Ctx<'_, u64>) {
        if let Input::Message { msg, .. } = input {
            let out = ctx.port("out").unwrap();
            ctx.send(out, msg + 1);
        }
    }
}

#[test]
fn composites_export_their_childrens_ports() {
    for layout in layouts(3) {
        let mut b = TopologyBuilder::<u64>::new();
        let soc = b.composite("soc").unwrap();
        b.composite("soc.xcd[0]").unwrap();
        let r = b.add("soc.xcd[0].relay", Relay).unwrap();
        let (ri, ro) = (b.port(r, "in").unwrap(), b.port(r, "out").unwrap());
        let soc_in = b.export(soc, "in", ri).unwrap();
        let soc_out = b.export(soc, "out", ro).unwrap();
        let kick = b.add("kick", Kick).unwrap();
        let ko = b.port(kick, "out").unwrap();
        let sink = b.add("sink", rec()).unwrap();
        let si = b.port(sink, "in").unwrap();
        // An export must come from inside the composite.
        assert!(matches!(
            b.export(soc, "bad", ko),
            Err(TopologyError::ExportOutsideComposite { .. })
        ));
        b.connect(ko, soc_in, Tick(10)).unwrap();
        b.connect(soc_out, si, Tick(5)).unwrap();
        let mut sim = SimInit::new(b.build().unwrap())
            .partitioning(layout)
            .init()
            .unwrap();
        sim.run().unwrap();
        // kick sends 7 at t=0; the relay gets it at 10 and sends 8, arriving at 15.
        assert_eq!(
            sim.component::<Recorder>(sink).unwrap().log,
            vec![(Tick(15), Seen::Msg(8))]
        );
    }
}

/// Sends 7 on "out" at init.
struct Kick;
impl Component<u64> for Kick {
    fn init(&mut self, ctx: &mut Ctx<'_, u64>) {
        let out = ctx.port("out").unwrap();
        ctx.send(out, 7);
    }
    fn handle(&mut self, _: Input<u64>, _: &mut Ctx<'_, u64>) {}
}

#[test]
fn manual_partitioning_is_checked() {
    let err = SimInit::new(pair(1))
        .partitioning(Partitioning::Manual(vec![0]))
        .init()
        .unwrap_err();
    assert!(matches!(err, TopologyError::BadPartitioning(_)));
}

#[test]
fn auto_partitioning_balances_and_cuts_little() {
    // Two 8-component rings joined by one link: the natural cut is that one link
    // (plus the link back), where round-robin would cut almost everything.
    let mut b = TopologyBuilder::<u64>::new();
    let ids: Vec<_> = (0..16)
        .map(|i| b.add(&format!("c[{i}]"), Relay).unwrap())
        .collect();
    let mut links = Vec::new();
    for ring in 0..2 {
        for k in 0..8 {
            let a = ids[ring * 8 + k];
            let z = ids[ring * 8 + (k + 1) % 8];
            links.push((a, z));
        }
    }
    links.push((ids[0], ids[8]));
    links.push((ids[8], ids[0]));
    // Interleave ids so that id order alone does not give the answer.
    for (n, (a, z)) in links.iter().enumerate() {
        let o = b.port(*a, &format!("o{n}")).unwrap();
        let i = b.port(*z, &format!("i{n}")).unwrap();
        b.connect(o, i, Tick(10)).unwrap();
    }
    let topo = b.build().unwrap();
    let assign = Partitioning::Auto(2).assign(&topo).unwrap();
    let cut = |a: &[usize]| {
        links
            .iter()
            .filter(|(x, z)| a[x.index()] != a[z.index()])
            .count()
    };
    let per: Vec<usize> = (0..2)
        .map(|p| assign.iter().filter(|&&x| x == p).count())
        .collect();
    assert_eq!(per, vec![8, 8]);
    assert_eq!(cut(&assign), 2);
    let rr = Partitioning::RoundRobin(2).assign(&topo).unwrap();
    assert!(cut(&rr) > 10);
}

#[test]
fn auto_partitioning_balances_weight_not_count() {
    // A chain of five: one heavy component (weight 4) and four light ones.
    let mut b = TopologyBuilder::<u64>::new();
    let ids: Vec<_> = (0..5)
        .map(|i| b.add(&format!("c[{i}]"), Relay).unwrap())
        .collect();
    b.weight(ids[0], 4).unwrap();
    for k in 0..4 {
        let o = b.port(ids[k], "out").unwrap();
        let i = b.port(ids[k + 1], "in").unwrap();
        b.connect(o, i, Tick(10)).unwrap();
    }
    let topo = b.build().unwrap();
    let assign = Partitioning::Auto(2).assign(&topo).unwrap();
    let weights = [4, 1, 1, 1, 1];
    let mut load = [0u64; 2];
    for (c, &p) in assign.iter().enumerate() {
        load[p] += weights[c];
    }
    load.sort();
    assert_eq!(load, [4, 4], "{assign:?}");
    // A chain is cut once.
    assert_eq!((0..4).filter(|&k| assign[k] != assign[k + 1]).count(), 1);
}
