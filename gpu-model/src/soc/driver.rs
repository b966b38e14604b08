//! The driver-facing entry: takes submitted dispatches to every XCD's command processor and
//! records when each completes.
//!
//! Dispatches run one after another, as AQL packets with the barrier bit set (what HIP
//! and OpenCL runtimes use for kernels of one stream/queue): the next starts when every XCD
//! has finished the previous one, so a kernel sees all writes of the kernels before it.
//! A dispatch completes at the first memory sync point after its last XCD reported (the
//! end-of-kernel release): only then are all its CUs' buffered writes in device memory
//! (see [`crate::memory::coherence`]).

use crate::dispatch::Fault;
use serde::{Deserialize, Serialize};
use simkit::checkpoint::{decode, encode, CheckpointError};
use simkit::component::{Component, Ctx, Input};
use simkit::port::PortId;
use simkit::time::Tick;

use super::msg::SocMsg;

/// A completed dispatch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Completion {
    /// Sequence number.
    pub seq: u64,
    /// When the driver took it.
    pub submitted: Tick,
    /// When the last XCD reported its share done.
    pub completed: Tick,
    /// The first fault any XCD reported (in XCD order).
    pub fault: Option<Box<Fault>>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Pending {
    seq: u64,
    submitted: Tick,
    remaining: u32,
    faults: Vec<(u32, Box<Fault>)>,
}

/// The driver component.
#[derive(Debug)]
pub struct Driver {
    xcds: u32,
    /// Memory sync period.
    sync: Tick,
    /// Finished dispatches waiting for their sync point, in finishing order.
    releasing: Vec<Completion>,
    ports: Vec<PortId>,
    pending: Vec<Pending>,
    waiting: std::collections::VecDeque<(std::sync::Arc<super::launch::Dispatch>, Tick)>,
    /// Completed dispatches, in completion order.
    pub completed: Vec<Completion>,
}

impl Driver {
    pub(crate) fn new(xcds: u32, sync: Tick) -> Driver {
        Driver {
            xcds,
            sync: sync.max(Tick(1)),
            releasing: Vec::new(),
            ports: Vec::new(),
            pending: Vec::new(),
            waiting: std::collections::VecDeque::new(),
            completed: Vec::new(),
        }
    }

    /// Dispatches submitted and not yet complete.
    pub fn in_flight(&self) -> usize {
        self.pending.len() + self.waiting.len() + self.releasing.len()
    }

    fn start_next(&mut self, ctx: &mut Ctx<'_, SocMsg>) {
        if !self.pending.is_empty() || !self.releasing.is_empty() {
            return;
        }
        let Some((d, submitted)) = self.waiting.pop_front() else {
            return;
        };
        self.pending.push(Pending {
            seq: d.seq,
            submitted,
            remaining: self.xcds,
            faults: Vec::new(),
        });
        for &p in &self.ports {
            ctx.send(p, SocMsg::Dispatch(d.clone()));
        }
    }
}

impl Component<SocMsg> for Driver {
    fn init(&mut self, ctx: &mut Ctx<'_, SocMsg>) {
        self.ports = (0..self.xcds)
            .filter_map(|x| ctx.port(&format!("xcd{x}")))
            .collect();
    }

    fn handle(&mut self, input: Input<SocMsg>, ctx: &mut Ctx<'_, SocMsg>) {
        match input {
            Input::External(SocMsg::Submit(d)) => {
                self.waiting.push_back((d, ctx.now()));
                self.start_next(ctx);
            }
            Input::Message {
                msg: SocMsg::DispatchDone { xcd, seq, fault },
                ..
            } => {
                let Some(i) = self.pending.iter().position(|p| p.seq == seq) else {
                    return;
                };
                let p = &mut self.pending[i];
                p.remaining -= 1;
                if let Some(f) = fault {
                    p.faults.push((xcd, f));
                }
                if p.remaining == 0 {
                    let mut p = self.pending.remove(i);
                    p.faults.sort_by_key(|(x, _)| *x);
                    // The first sync point after now: writes made at `now` itself are
                    // published at the one after it.
                    let now = ctx.now();
                    let at = Tick((now.0 / self.sync.0 + 1).saturating_mul(self.sync.0));
                    self.releasing.push(Completion {
                        seq,
                        submitted: p.submitted,
                        completed: at,
                        fault: p.faults.into_iter().next().map(|(_, f)| f),
                    });
                    ctx.schedule(Tick(at.0 - now.0), SocMsg::Tick);
                }
            }
            Input::Timer(SocMsg::Tick) => {
                let now = ctx.now();
                let (done, rest): (Vec<_>, Vec<_>) =
                    self.releasing.drain(..).partition(|c| c.completed <= now);
                self.releasing = rest;
                if !done.is_empty() {
                    self.completed.extend(done);
                    self.start_next(ctx);
                }
            }
            _ => {}
        }
    }

    fn save(&self) -> Result<Vec<u8>, CheckpointError> {
        encode(&(
            &self.pending,
            &self.waiting,
            &self.completed,
            &self.releasing,
        ))
    }

    fn restore(&mut self, state: &[u8]) -> Result<(), CheckpointError> {
        (self.pending, self.waiting, self.completed, self.releasing) = decode(state)?;
        Ok(())
    }
}
