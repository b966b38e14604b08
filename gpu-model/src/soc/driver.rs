//! The driver-facing entry: takes submitted dispatches to every XCD's command processor and
//! records when each completes.

use crate::dispatch::Fault;
use simkit::component::{Component, Ctx, Input};
use simkit::port::PortId;
use simkit::time::Tick;

use super::msg::SocMsg;

/// A completed dispatch.
#[derive(Debug, Clone, PartialEq)]
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

#[derive(Debug)]
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
    ports: Vec<PortId>,
    pending: Vec<Pending>,
    /// Completed dispatches, in completion order.
    pub completed: Vec<Completion>,
}

impl Driver {
    pub(crate) fn new(xcds: u32) -> Driver {
        Driver {
            xcds,
            ports: Vec::new(),
            pending: Vec::new(),
            completed: Vec::new(),
        }
    }

    /// Dispatches submitted and not yet complete.
    pub fn in_flight(&self) -> usize {
        self.pending.len()
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
                self.pending.push(Pending {
                    seq: d.seq,
                    submitted: ctx.now(),
                    remaining: self.xcds,
                    faults: Vec::new(),
                });
                for &p in &self.ports {
                    ctx.send(p, SocMsg::Dispatch(d.clone()));
                }
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
                    self.completed.push(Completion {
                        seq,
                        submitted: p.submitted,
                        completed: ctx.now(),
                        fault: p.faults.into_iter().next().map(|(_, f)| f),
                    });
                }
            }
            _ => {}
        }
    }
}
