//! Checkpoint and restore: continuing a restored run equals never stopping.

use crate::support::{layouts, temp_path};
use simkit::checkpoint::CheckpointError;
use simkit::component::{Activity, Component, ComponentId, Ctx, Input};
use simkit::engine::{SimInit, Simulation};
use simkit::partition::Partitioning;
use simkit::phold::{self, Lp, Params};
use simkit::stats::{CounterId, HistogramId};
use simkit::time::{ClockDomain, Tick};
use simkit::topology::TopologyBuilder;

fn lp_states(sim: &Simulation<u32>, n: u32) -> Vec<(u64, u64, u64)> {
    (0..n as usize)
        .map(|i| {
            let lp = sim.component::<Lp>(ComponentId::from_index(i)).unwrap();
            (lp.handled(), lp.hops(), lp.draws())
        })
        .collect()
}

#[test]
fn phold_restored_and_continued_equals_uninterrupted() {
    let p = Params {
        lps: 64,
        events_per_lp: 4,
        ..Params::default()
    };
    let (mid, end) = (Tick(25_000), Tick(70_000));
    let mut whole = phold::simulation(&p, Partitioning::Single).unwrap();
    whole.run_until(end).unwrap();
    let want = (
        whole.trace_hash(),
        lp_states(&whole, p.lps),
        whole.report().engine.events,
    );
    for save_layout in layouts(64) {
        let mut first = phold::simulation(&p, save_layout.clone()).unwrap();
        first.run_until(mid).unwrap();
        let path = temp_path(&format!("phold-{}", save_layout.parts()));
        first.save_checkpoint(&path).unwrap();
        // Restore into fresh simulations of the same model under other partitionings.
        for restore_layout in [
            Partitioning::Single,
            Partitioning::RoundRobin(2),
            Partitioning::Auto(3),
        ] {
            let mut second = phold::simulation(&p, restore_layout.clone()).unwrap();
            second.restore_checkpoint(&path).unwrap();
            assert_eq!(second.trace_hash(), first.trace_hash());
            second.run_until(end).unwrap();
            let got = (
                second.trace_hash(),
                lp_states(&second, p.lps),
                second.report().engine.events,
            );
            assert_eq!(
                got, want,
                "saved under {save_layout:?}, restored under {restore_layout:?}"
            );
        }
        std::fs::remove_file(&path).unwrap();
    }
}

/// A clocked component with a timer, counters and a histogram: every kind of state.
#[derive(Default)]
struct Gadget {
    ticks: u64,
    seen: Vec<u64>,
    /// Saved; a restore of a poisoned state fails after taking part of it (a component
    /// refusing its state half-way).
    poisoned: bool,
    c: Option<CounterId>,
    h: Option<HistogramId>,
}

impl Component<u64> for Gadget {
    fn init(&mut self, ctx: &mut Ctx<'_, u64>) {
        ctx.wake();
        ctx.schedule(Tick(1500), 1);
    }
    fn handle(&mut self, input: Input<u64>, ctx: &mut Ctx<'_, u64>) {
        if let Input::External(v) = input {
            self.seen.push(1_000_000 + v);
            return;
        }
        if let Input::Timer(v) = input {
            self.seen.push(v);
            ctx.count(self.c.unwrap(), v);
            ctx.record(self.h.unwrap(), ctx.now().0 % 977);
            ctx.schedule(Tick(1500 + v), v + 1);
            // Alternate sleeping and waking the clock.
            ctx.wake();
        }
    }
    fn tick(&mut self, ctx: &mut Ctx<'_, u64>) -> Activity {
        self.ticks += 1;
        ctx.count(self.c.unwrap(), 1000);
        if self.ticks.is_multiple_of(3) {
            Activity::Sleep
        } else {
            Activity::Active
        }
    }
    fn save(&self) -> Result<Vec<u8>, CheckpointError> {
        simkit::checkpoint::encode(&(self.ticks, &self.seen, self.poisoned))
    }
    fn restore(&mut self, state: &[u8]) -> Result<(), CheckpointError> {
        let poisoned;
        (self.ticks, self.seen, poisoned) = simkit::checkpoint::decode(state)?;
        if poisoned {
            return Err(CheckpointError::Decode("poisoned gadget".into()));
        }
        Ok(())
    }
}

fn gadgets(layout: Partitioning) -> Simulation<u64> {
    let mut b = TopologyBuilder::new();
    for i in 0..3 {
        let g = b.add(&format!("g[{i}]"), Gadget::default()).unwrap();
        b.clock(g, ClockDomain::new(Tick(400 + 100 * i), Tick(i)).unwrap())
            .unwrap();
        let c = b.counter(g, "work").unwrap();
        let h = b.histogram(g, "phase", 10_000).unwrap();
        assert_eq!((c.index(), h.index()), (0, 0));
    }
    let mut sim = SimInit::new(b.build().unwrap())
        .partitioning(layout)
        .init()
        .unwrap();
    // Component state is private to the engine after init; ids are set through restore-free
    // setup: every Gadget uses its first counter and histogram.
    sim.for_each_component_mut::<Gadget>(|g| {
        g.c = Some(CounterId::from_index(0));
        g.h = Some(HistogramId::from_index(0));
    });
    sim
}

#[test]
fn clocks_timers_and_stats_survive_a_checkpoint() {
    for layout in layouts(3) {
        let end = Tick(50_000);
        let mut whole = gadgets(layout.clone());
        whole.run_until(end).unwrap();
        let mut first = gadgets(layout.clone());
        first.run_until(Tick(17_321)).unwrap();
        let bytes = first.checkpoint_bytes().unwrap();
        let mut second = gadgets(Partitioning::Single);
        second.restore_bytes(&bytes).unwrap();
        second.run_until(end).unwrap();
        assert_eq!(second.trace_hash(), whole.trace_hash(), "{layout:?}");
        let (a, b) = (whole.report(), second.report());
        assert_eq!(a.components, b.components);
        assert_eq!(a.engine.events, b.engine.events);
        for i in 0..3 {
            let id = ComponentId::from_index(i);
            let (x, y) = (
                whole.component::<Gadget>(id).unwrap(),
                second.component::<Gadget>(id).unwrap(),
            );
            assert_eq!((x.ticks, &x.seen), (y.ticks, &y.seen));
            assert!(x.ticks > 10);
        }
    }
}

#[test]
fn checkpoint_errors_are_typed() {
    let p = Params {
        lps: 8,
        events_per_lp: 1,
        ..Params::default()
    };
    let sim = phold::simulation(&p, Partitioning::Single).unwrap();
    let bytes = sim.checkpoint_bytes().unwrap();
    // Another topology.
    let q = Params { lps: 9, ..p };
    let mut other = phold::simulation(&q, Partitioning::Single).unwrap();
    assert!(matches!(
        other.restore_bytes(&bytes),
        Err(CheckpointError::TopologyMismatch { .. })
    ));
    // Garbage.
    assert!(matches!(
        other.restore_bytes(b"nope"),
        Err(CheckpointError::Decode(_))
    ));
    // A missing file.
    assert!(matches!(
        other.restore_checkpoint(temp_path("does-not-exist")),
        Err(CheckpointError::Io { .. })
    ));
    // A component that cannot save.
    struct Opaque;
    impl Component<u64> for Opaque {
        fn handle(&mut self, _: Input<u64>, _: &mut Ctx<'_, u64>) {}
    }
    let mut b = TopologyBuilder::new();
    b.add("opaque", Opaque).unwrap();
    let sim = SimInit::new(b.build().unwrap()).init().unwrap();
    let err = sim.checkpoint_bytes().unwrap_err();
    assert!(
        matches!(&err, CheckpointError::Component { component, source } if component == "opaque" && matches!(**source, CheckpointError::Unsupported)),
        "{err}"
    );
}

/// Everything observable about the gadgets: engine state (as its own checkpoint), trace.
fn gadget_state(sim: &Simulation<u64>) -> (Vec<u8>, u64) {
    (sim.checkpoint_bytes().unwrap(), sim.trace_hash())
}

#[test]
fn a_refused_checkpoint_leaves_the_simulation_as_it_was() {
    let end = Tick(50_000);
    for layout in layouts(3) {
        let mut whole = gadgets(layout.clone());
        whole.run_until(end).unwrap();
        // A good checkpoint and one whose last component refuses its state after the
        // others have taken theirs.
        let mut source = gadgets(Partitioning::Single);
        source.run_until(Tick(9_000)).unwrap();
        let good = source.checkpoint_bytes().unwrap();
        source
            .component_mut::<Gadget>(ComponentId::from_index(2))
            .unwrap()
            .poisoned = true;
        let poisoned = source.checkpoint_bytes().unwrap();
        let mut sim = gadgets(layout.clone());
        sim.run_until(Tick(21_000)).unwrap();
        let before = gadget_state(&sim);
        let mut refusals = 0;
        let mut rolled_back = false;
        let mut tries: Vec<Vec<u8>> = vec![poisoned.clone()];
        for cut in 0..good.len() {
            tries.push(good[..cut].to_vec());
        }
        for at in 0..good.len() {
            let mut b = good.clone();
            b[at] = 0xc1; // a MessagePack marker that is never valid
            tries.push(b);
        }
        for bad in &tries {
            match sim.restore_bytes(bad) {
                Err(e) => {
                    refusals += 1;
                    if let CheckpointError::Component { component, .. } = &e {
                        rolled_back |= component == "g[2]";
                    }
                    assert_eq!(
                        gadget_state(&sim),
                        before,
                        "{layout:?}: refused ({e}) and changed"
                    );
                }
                // A byte inside a number's payload can make another valid checkpoint:
                // put the state back and go on.
                Ok(()) => sim.restore_bytes(&before.0).unwrap(),
            }
        }
        // Every truncation, and a good share of the invalid markers, is refused.
        assert!(refusals > good.len() && rolled_back, "{refusals} refusals");
        // Still the same run: it finishes exactly like the one never offered a checkpoint.
        sim.run_until(end).unwrap();
        assert_eq!(sim.trace_hash(), whole.trace_hash(), "{layout:?}");
        for i in 0..3 {
            let id = ComponentId::from_index(i);
            let (x, y) = (
                whole.component::<Gadget>(id).unwrap(),
                sim.component::<Gadget>(id).unwrap(),
            );
            assert_eq!((x.ticks, &x.seen), (y.ticks, &y.seen), "{layout:?}");
        }
    }
}

#[test]
fn injections_not_yet_taken_are_in_the_checkpoint() {
    let end = Tick(30_000);
    for layout in layouts(3) {
        let mut whole = gadgets(layout.clone());
        whole.run_until(Tick(5_000)).unwrap();
        whole
            .handle()
            .schedule_now(ComponentId::from_index(1), 7)
            .unwrap();
        whole
            .handle()
            .schedule_async(ComponentId::from_index(2), Tick(12_000), 8)
            .unwrap();
        let bytes = whole.checkpoint_bytes().unwrap();
        whole.run_until(end).unwrap();
        let mut second = gadgets(Partitioning::Single);
        second.restore_bytes(&bytes).unwrap();
        // Injections made before a restore belong to the state it replaced.
        let mut third = gadgets(layout.clone());
        third
            .handle()
            .schedule_now(ComponentId::from_index(0), 9)
            .unwrap();
        third.restore_bytes(&bytes).unwrap();
        for sim in [&mut second, &mut third] {
            sim.run_until(end).unwrap();
            assert_eq!(sim.trace_hash(), whole.trace_hash(), "{layout:?}");
            for i in 0..3 {
                let id = ComponentId::from_index(i);
                let (x, y) = (
                    whole.component::<Gadget>(id).unwrap(),
                    sim.component::<Gadget>(id).unwrap(),
                );
                assert_eq!(&x.seen, &y.seen, "{layout:?}");
            }
        }
        let seen = |i| {
            &whole
                .component::<Gadget>(ComponentId::from_index(i))
                .unwrap()
                .seen
        };
        assert!(seen(1).contains(&1_000_007) && seen(2).contains(&1_000_008));
        assert!(!seen(0).contains(&1_000_009));
    }
}
