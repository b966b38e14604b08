//! Per-component counters and histograms, and engine counters, in the report.

use crate::support::layouts;
use simkit::component::{Component, Ctx, Input};
use simkit::engine::SimInit;
use simkit::stats::{CounterId, HistogramId};
use simkit::time::Tick;
use simkit::topology::TopologyBuilder;

/// Sends its send time at 0, 10, ..., 90, each with 3*i extra delay.
struct Src;
impl Component<u64> for Src {
    fn init(&mut self, ctx: &mut Ctx<'_, u64>) {
        for i in 0..10 {
            ctx.schedule(Tick(10 * i), i);
        }
    }
    fn handle(&mut self, input: Input<u64>, ctx: &mut Ctx<'_, u64>) {
        if let Input::Timer(i) = input {
            let out = ctx.port("out").unwrap();
            let now = ctx.now().0;
            ctx.send_after(out, Tick(3 * i), now);
        }
    }
}

struct Dst {
    rx: CounterId,
    lat: HistogramId,
}
impl Component<u64> for Dst {
    fn handle(&mut self, input: Input<u64>, ctx: &mut Ctx<'_, u64>) {
        if let Input::Message { msg, .. } = input {
            ctx.count(self.rx, 1);
            ctx.record(self.lat, ctx.now().0 - msg);
        }
    }
}

#[test]
fn counters_histograms_and_engine_counters_are_reported() {
    for layout in layouts(2) {
        let multi = layout.parts() > 1;
        let mut b = TopologyBuilder::new();
        let s = b.add("src", Src).unwrap();
        // Ids are known before the component exists: reserve by declaring on a placeholder
        // order (the destination is added next, so its id is s + 1).
        let d_id = simkit::component::ComponentId::from_index(s.index() + 1);
        let d = b
            .add(
                "dst",
                Dst {
                    rx: CounterId::from_index(0),
                    lat: HistogramId::from_index(0),
                },
            )
            .unwrap();
        assert_eq!(d, d_id);
        let rx = b.counter(d, "rx").unwrap();
        let lat = b.histogram(d, "latency", 1_000_000).unwrap();
        assert_eq!(
            (rx, lat),
            (CounterId::from_index(0), HistogramId::from_index(0))
        );
        let (o, i) = (b.port(s, "out").unwrap(), b.port(d, "in").unwrap());
        b.connect(o, i, Tick(25)).unwrap();
        let mut sim = SimInit::new(b.build().unwrap())
            .partitioning(layout)
            .init()
            .unwrap();
        sim.run().unwrap();
        let r = sim.report();
        let c = r.component("dst").unwrap();
        assert_eq!(c.counter("rx"), Some(10));
        let h = c.histogram("latency").unwrap();
        assert_eq!((h.count, h.min, h.max), (10, 25, 25 + 27));
        let mean = (0..10).map(|i| 25.0 + 3.0 * i as f64).sum::<f64>() / 10.0;
        assert!((h.mean - mean).abs() < 0.01, "{}", h.mean);
        assert!(
            r.component("src").is_none(),
            "components without stats are left out"
        );
        assert_eq!(r.engine.events, 20);
        if multi {
            assert_eq!(r.engine.cross_partition_messages, 10);
            assert!(r.engine.epochs > 0);
            assert!(r.engine.events_per_epoch() <= 20.0);
        } else {
            assert_eq!(r.engine.epochs, 0);
            assert_eq!(r.engine.cross_partition_messages, 0);
        }
    }
}
