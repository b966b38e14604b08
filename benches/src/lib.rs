//! Shared helpers for the throughput benchmarks: timing, reporting, and the small simkit
//! models the engine benchmarks run (ring, clocked array).

use simkit::component::{Activity, Component, Ctx, Input};
use simkit::engine::{SimInit, Simulation};
use simkit::partition::Partitioning;
use simkit::port::PortId;
use simkit::time::{ClockDomain, Tick};
use simkit::topology::{TopologyBuilder, TopologyError};
use std::time::{Duration, Instant};

/// Runs `f`, returning what it returns and how long it took.
pub fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let t0 = Instant::now();
    let r = f();
    (r, t0.elapsed())
}

/// Prints one benchmark figure line: `name: events, events/s, ns/event`.
pub fn print_rate(name: &str, events: u64, wall: Duration) {
    let s = wall.as_secs_f64().max(1e-9);
    println!(
        "{name:<44} {events:>10} events {:>8.2} M events/s {:>8.1} ns/event",
        events as f64 / s / 1e6,
        s * 1e9 / events.max(1) as f64
    );
}

/// A ring node: forwards every token to the next node after the link latency.
#[derive(Debug, Default)]
pub struct RingNode {
    out: Option<PortId>,
    tokens: u32,
}

impl Component<u32> for RingNode {
    fn init(&mut self, ctx: &mut Ctx<'_, u32>) {
        self.out = ctx.port("out");
        for t in 0..self.tokens {
            if let Some(out) = self.out {
                ctx.send(out, t);
            }
        }
    }

    #[inline]
    fn handle(&mut self, input: Input<u32>, ctx: &mut Ctx<'_, u32>) {
        if let (Input::Message { msg, .. }, Some(out)) = (input, self.out) {
            ctx.send(out, msg);
        }
    }
}

/// A ring of `n` nodes (links of `latency`), node 0 starting with `tokens` tokens. With
/// `n = 2` this is ping-pong.
pub fn ring(
    n: usize,
    tokens: u32,
    latency: Tick,
    partitioning: Partitioning,
) -> Result<Simulation<u32>, TopologyError> {
    let mut b = TopologyBuilder::new();
    let ids: Vec<_> = (0..n)
        .map(|i| {
            b.add(
                &format!("node[{i}]"),
                RingNode {
                    out: None,
                    tokens: if i == 0 { tokens } else { 0 },
                },
            )
        })
        .collect::<Result<_, _>>()?;
    for i in 0..n {
        let out = b.port(ids[i], "out")?;
        let inp = b.port(ids[(i + 1) % n], "in")?;
        b.connect(out, inp, latency)?;
    }
    SimInit::new(b.build()?).partitioning(partitioning).init()
}

/// A clocked component that does a little work on every edge while awake.
#[derive(Debug, Default)]
pub struct Worker {
    awake: bool,
    acc: u64,
}

impl Component<u32> for Worker {
    fn init(&mut self, ctx: &mut Ctx<'_, u32>) {
        if self.awake {
            ctx.wake();
        }
    }

    fn handle(&mut self, _: Input<u32>, _: &mut Ctx<'_, u32>) {}

    #[inline]
    fn tick(&mut self, ctx: &mut Ctx<'_, u32>) -> Activity {
        self.acc = self.acc.wrapping_mul(31).wrapping_add(ctx.now().0);
        Activity::Active
    }
}

/// `n` clocked workers, half on a 2 GHz clock and half on a derived 2/3 (1.33 GHz) clock;
/// every `1/active_every`-th one is awake, the rest sleep.
pub fn clocked(
    n: usize,
    active_every: usize,
    partitioning: Partitioning,
) -> Result<Simulation<u32>, TopologyError> {
    let fast =
        ClockDomain::from_mhz(2000).map_err(|e| TopologyError::BadPartitioning(e.to_string()))?;
    let slow = fast
        .derived(2, 3)
        .map_err(|e| TopologyError::BadPartitioning(e.to_string()))?;
    let mut b = TopologyBuilder::new();
    for i in 0..n {
        let c = b.add(
            &format!("w[{i}]"),
            Worker {
                awake: i % active_every.max(1) == 0,
                acc: 0,
            },
        )?;
        b.clock(c, if i % 2 == 0 { fast } else { slow })?;
    }
    SimInit::new(b.build()?).partitioning(partitioning).init()
}
