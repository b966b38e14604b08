//! PHOLD, the standard PDES benchmark, as a simkit model.
//!
//! N logical processes (LPs) each start with E events. Handling an event schedules one new
//! event at `now + lookahead + Exp(mean)`, to a uniformly random LP with probability
//! `p_remote` and to itself otherwise. Every LP draws from its own counter-based generator
//! (a hash of seed, LP id and draw index), so the draws depend only on the LP's own history
//! and not on how LPs are spread over partitions.

use crate::checkpoint::{self, CheckpointError};
use crate::component::{Component, ComponentId, Ctx, Input};
use crate::engine::{ExitStatus, SimError, SimInit, Simulation};
use crate::partition::Partitioning;
use crate::port::NetId;
use crate::time::Tick;
use crate::topology::{TopologyBuilder, TopologyError};
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// SplitMix64's output function: a strong 64-bit mix of `x`.
#[inline]
pub fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A counter-based generator: draw `i` is a pure function of (stream key, i), so the state
/// is just the draw count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CounterRng {
    key: u64,
    draws: u64,
}

impl CounterRng {
    /// The stream for (`seed`, `stream`).
    pub fn new(seed: u64, stream: u64) -> CounterRng {
        CounterRng {
            key: splitmix(seed ^ splitmix(stream.wrapping_add(0x1234_5678))),
            draws: 0,
        }
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let x = splitmix(
            self.key
                .wrapping_add(self.draws.wrapping_mul(0x9e37_79b9_7f4a_7c15)),
        );
        self.draws += 1;
        x
    }

    /// Uniform in [0, 1).
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [0, n) (n > 0), by multiply-shift.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Draws taken so far.
    pub fn draws(&self) -> u64 {
        self.draws
    }
}

/// Natural log of `x` in (0, 1], to about 1e-10 relative error: exponent times ln 2 plus
/// an atanh series for the mantissa. Pure `f64` arithmetic, so the same on every machine,
/// and several times cheaper than `f64::ln`, which would otherwise be a tenth of PHOLD's cost.
#[inline]
pub fn ln_unit(x: f64) -> f64 {
    let bits = x.to_bits();
    let mut e = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mut m = f64::from_bits((bits & ((1u64 << 52) - 1)) | (1023u64 << 52));
    // Mantissa into [sqrt(1/2), sqrt(2)) so the series converges fast and nothing cancels.
    if m > std::f64::consts::SQRT_2 {
        m *= 0.5;
        e += 1;
    }
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    let series = 1.0
        + s2 * (1.0 / 3.0
            + s2 * (1.0 / 5.0 + s2 * (1.0 / 7.0 + s2 * (1.0 / 9.0 + s2 * (1.0 / 11.0)))));
    e as f64 * std::f64::consts::LN_2 + 2.0 * s * series
}

/// The exponential part of a PHOLD delay: inverse-CDF sample for uniform `u` in [0, 1) with
/// the given mean, truncated to whole ticks.
#[inline]
pub fn exp_delay(u: f64, mean: f64) -> u64 {
    // 1 - u is in (0, 1], so the log is finite.
    (-ln_unit(1.0 - u) * mean) as u64
}

/// PHOLD's parameters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Params {
    /// Number of LPs.
    pub lps: u32,
    /// Initial events per LP.
    pub events_per_lp: u32,
    /// Probability that an event goes to a random LP rather than back to its own.
    pub p_remote: f64,
    /// Fixed part of every delay, and the net latency (so the lookahead across partitions).
    pub lookahead: Tick,
    /// Mean of the exponential part of every delay, in ticks (0: every delay is exactly the
    /// lookahead).
    pub mean: f64,
    /// Random seed.
    pub seed: u64,
}

impl Default for Params {
    /// The reference configuration: N=1024, E=16, p_remote=0.5, lookahead 1000, mean 1000.
    fn default() -> Self {
        Params {
            lps: 1024,
            events_per_lp: 16,
            p_remote: 0.5,
            lookahead: Tick(1000),
            mean: 1000.0,
            seed: 1,
        }
    }
}

/// PHOLD's message: how many hops the event has made.
pub type Msg = u32;

/// One PHOLD logical process.
#[derive(Debug, Clone)]
pub struct Lp {
    params: Params,
    net: NetId,
    rng: CounterRng,
    handled: u64,
    hops: u64,
}

#[derive(Serialize, Deserialize)]
struct LpState {
    rng: CounterRng,
    handled: u64,
    hops: u64,
}

impl Lp {
    /// LP number `index` of a PHOLD model with parameters `params`, sending over `net` (for
    /// models that add components of their own next to PHOLD's; [`topology`] builds plain
    /// PHOLD). Its LP targets are component ids `0..params.lps`, so the LPs must be the first
    /// components added, in index order.
    pub fn new(params: Params, net: NetId, index: u32) -> Lp {
        Lp {
            params,
            net,
            rng: CounterRng::new(params.seed, index as u64),
            handled: 0,
            hops: 0,
        }
    }

    /// Events this LP has handled.
    pub fn handled(&self) -> u64 {
        self.handled
    }

    /// Sum of the hop counts of the events it handled.
    pub fn hops(&self) -> u64 {
        self.hops
    }

    /// Random draws it has taken.
    pub fn draws(&self) -> u64 {
        self.rng.draws()
    }

    #[inline]
    fn delay(&mut self) -> Tick {
        if self.params.mean <= 0.0 {
            return Tick::ZERO;
        }
        let u = self.rng.next_f64();
        Tick(exp_delay(u, self.params.mean))
    }

    #[inline]
    fn fire(&mut self, ctx: &mut Ctx<'_, Msg>, hops: Msg) {
        let remote = self.rng.next_f64() < self.params.p_remote;
        let to = if remote {
            ComponentId::from_index(self.rng.below(self.params.lps as u64) as usize)
        } else {
            ctx.id()
        };
        let extra = self.delay();
        ctx.send_net(self.net, to, extra, hops);
    }
}

impl Component<Msg> for Lp {
    fn init(&mut self, ctx: &mut Ctx<'_, Msg>) {
        for _ in 0..self.params.events_per_lp {
            let extra = self.delay();
            let me = ctx.id();
            ctx.send_net(self.net, me, extra, 0);
        }
    }

    #[inline]
    fn handle(&mut self, input: Input<Msg>, ctx: &mut Ctx<'_, Msg>) {
        // A message injected through a handle is one more job, like a received one.
        if let Input::Net { msg, .. } | Input::External(msg) = input {
            self.handled += 1;
            self.hops += msg as u64;
            self.fire(ctx, msg.wrapping_add(1));
        }
    }

    fn save(&self) -> Result<Vec<u8>, CheckpointError> {
        checkpoint::encode(&LpState {
            rng: self.rng,
            handled: self.handled,
            hops: self.hops,
        })
    }

    fn restore(&mut self, state: &[u8]) -> Result<(), CheckpointError> {
        let s: LpState = checkpoint::decode(state)?;
        self.rng = s.rng;
        self.handled = s.handled;
        self.hops = s.hops;
        Ok(())
    }
}

/// The PHOLD topology: LPs `lp[0]`..`lp[N-1]` on one net whose latency is the lookahead.
pub fn topology(p: &Params) -> Result<crate::topology::Topology<Msg>, TopologyError> {
    let mut b = TopologyBuilder::new();
    let net = b.net("phold", p.lookahead)?;
    for i in 0..p.lps {
        let lp = Lp::new(*p, net, i);
        let id = b.add(&format!("lp[{i}]"), lp)?;
        b.join(net, id)?;
    }
    b.build()
}

/// A PHOLD simulation under `partitioning`.
pub fn simulation(
    p: &Params,
    partitioning: Partitioning,
) -> Result<Simulation<Msg>, TopologyError> {
    SimInit::new(topology(p)?).partitioning(partitioning).init()
}

/// The result of [`run`].
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// How the run ended.
    pub status: ExitStatus,
    /// Committed events.
    pub events: u64,
    /// Wall-clock time of the run (setup excluded).
    pub wall: Duration,
    /// The engine's trace hash.
    pub trace_hash: u64,
    /// Synchronization epochs.
    pub epochs: u64,
    /// Partitions (= worker threads).
    pub threads: usize,
    /// Time workers spent at barriers, summed.
    pub barrier_wait: Duration,
}

impl Outcome {
    /// Committed events per wall-clock second.
    pub fn events_per_s(&self) -> f64 {
        self.events as f64 / self.wall.as_secs_f64().max(1e-9)
    }
}

/// Errors of [`run`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The model could not be built or partitioned.
    #[error(transparent)]
    Topology(#[from] TopologyError),
    /// The run failed.
    #[error(transparent)]
    Sim(#[from] SimError),
}

/// Builds PHOLD, runs it to `end` (inclusive), and measures it.
pub fn run(p: &Params, partitioning: Partitioning, end: Tick) -> Result<Outcome, RunError> {
    let mut sim = simulation(p, partitioning)?;
    let t0 = Instant::now();
    let status = sim.run_until(end)?;
    let wall = t0.elapsed();
    let r = sim.report();
    Ok(Outcome {
        status,
        events: r.engine.events,
        wall,
        trace_hash: sim.trace_hash(),
        epochs: r.engine.epochs,
        threads: sim.partitions(),
        barrier_wait: r.engine.barrier_wait,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ln_unit_matches_std() {
        let mut r = CounterRng::new(5, 5);
        for _ in 0..100_000 {
            let x = 1.0 - r.next_f64();
            let (a, b) = (ln_unit(x), x.ln());
            assert!((a - b).abs() <= 1e-9 * b.abs().max(1e-6), "{x}: {a} vs {b}");
        }
        assert_eq!(ln_unit(1.0), 0.0);
        assert!((ln_unit(0.5) + std::f64::consts::LN_2).abs() < 1e-12);
    }

    #[test]
    fn counter_rng_is_a_function_of_seed_stream_and_index() {
        let mut a = CounterRng::new(7, 3);
        let mut b = CounterRng::new(7, 3);
        let xs: Vec<u64> = (0..5).map(|_| a.next_u64()).collect();
        assert_eq!(xs, (0..5).map(|_| b.next_u64()).collect::<Vec<_>>());
        assert_ne!(CounterRng::new(7, 4).next_u64(), xs[0]);
        assert_ne!(CounterRng::new(8, 3).next_u64(), xs[0]);
        // Uniform-ish: mean of many draws near 0.5, `below` in range.
        let mut r = CounterRng::new(1, 1);
        let mean = (0..100_000).map(|_| r.next_f64()).sum::<f64>() / 100_000.0;
        assert!((mean - 0.5).abs() < 0.01, "{mean}");
        assert!((0..1000).all(|_| r.below(10) < 10));
    }
}
