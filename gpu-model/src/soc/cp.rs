//! The command processor of one XCD: takes its share of each dispatch and places
//! workgroups on CUs where their resources fit, round-robin.
//!
//! A dispatch is spread over all XCDs by workgroup: linear workgroup `i` belongs to XCD
//! `i mod xcds` (MI300X's SPX mode deals workgroups to XCDs round-robin). Within the XCD,
//! the CP keeps the resource state of each CU (wave slots, VGPR/SGPR blocks, LDS, barriers)
//! and places a workgroup on the next CU in round-robin order that has room.

use crate::config::CuSpec;
use crate::dispatch::Fault;
use crate::occupancy::{CuResources, WaveAlloc};
use serde::{Deserialize, Serialize};
use simkit::checkpoint::{decode, encode, CheckpointError};
use simkit::component::{Component, Ctx, Input};
use simkit::port::PortId;
use std::collections::VecDeque;
use std::sync::Arc;

use super::launch::Dispatch;
use super::msg::{SocMsg, WorkgroupAssign};

/// The dispatch being distributed.
#[derive(Debug, Serialize, Deserialize)]
struct Current {
    d: Arc<Dispatch>,
    /// Next linear workgroup index of this XCD's share.
    next: u64,
    outstanding: u32,
    fault: Option<Box<Fault>>,
}

/// A command processor.
#[derive(Debug)]
pub struct CommandProcessor {
    xcd: u32,
    xcds: u32,
    cus: Vec<CuResources>,
    cu_ports: Vec<PortId>,
    driver: Option<PortId>,
    queue: VecDeque<Arc<Dispatch>>,
    cur: Option<Current>,
    rr: usize,
    scratch: Vec<WaveAlloc>,
}

impl CommandProcessor {
    pub(crate) fn new(xcd: u32, xcds: u32, cus: u32, spec: &CuSpec) -> CommandProcessor {
        CommandProcessor {
            xcd,
            xcds,
            cus: (0..cus).map(|_| CuResources::new(spec)).collect(),
            cu_ports: Vec::new(),
            driver: None,
            queue: VecDeque::new(),
            cur: None,
            rr: 0,
            scratch: Vec::new(),
        }
    }

    /// Places as many workgroups as fit; completes the dispatch when its share is done.
    fn pump(&mut self, ctx: &mut Ctx<'_, SocMsg>) {
        loop {
            if self.cur.is_none() {
                let Some(d) = self.queue.pop_front() else {
                    return;
                };
                self.cur = Some(Current {
                    d,
                    next: u64::from(self.xcd),
                    outstanding: 0,
                    fault: None,
                });
            }
            let Some(cur) = self.cur.as_mut() else { return };
            let total = cur.d.total_workgroups();
            // After a fault, place nothing more: drain what is running.
            while cur.fault.is_none() && cur.next < total {
                let n = self.cus.len();
                let mut placed = None;
                for k in 0..n {
                    let c = (self.rr + k) % n;
                    if let Ok(a) =
                        self.cus[c].place_workgroup(&cur.d.occupancy.shape, &mut self.scratch)
                    {
                        placed = Some((c, a));
                        break;
                    }
                }
                let Some((c, alloc)) = placed else { break };
                self.rr = (c + 1) % n;
                let id = cur.d.workgroup_id(cur.next);
                cur.next += u64::from(self.xcds);
                cur.outstanding += 1;
                ctx.send(
                    self.cu_ports[c],
                    SocMsg::Workgroup(Box::new(WorkgroupAssign {
                        dispatch: cur.d.clone(),
                        id,
                        alloc,
                        waves: std::mem::take(&mut self.scratch),
                        cu: c as u32,
                    })),
                );
            }
            let finished = cur.outstanding == 0 && (cur.next >= total || cur.fault.is_some());
            if !finished {
                return;
            }
            let Some(done) = self.cur.take() else { return };
            if let Some(p) = self.driver {
                ctx.send(
                    p,
                    SocMsg::DispatchDone {
                        xcd: self.xcd,
                        seq: done.d.seq,
                        fault: done.fault,
                    },
                );
            }
        }
    }
}

impl Component<SocMsg> for CommandProcessor {
    fn init(&mut self, ctx: &mut Ctx<'_, SocMsg>) {
        self.driver = ctx.port("driver_out");
        self.cu_ports = (0..self.cus.len())
            .filter_map(|c| ctx.port(&format!("cu{c}")))
            .collect();
    }

    fn handle(&mut self, input: Input<SocMsg>, ctx: &mut Ctx<'_, SocMsg>) {
        let Input::Message { msg, .. } = input else {
            return;
        };
        match msg {
            SocMsg::Dispatch(d) => {
                self.queue.push_back(d);
                self.pump(ctx);
            }
            SocMsg::WorkgroupDone(done) => {
                let c = done.cu as usize;
                if let Some(r) = self.cus.get_mut(c) {
                    for w in &done.waves {
                        r.release_wave(w);
                    }
                    r.release_workgroup(&done.alloc);
                }
                if let Some(cur) = self.cur.as_mut() {
                    if cur.d.seq == done.seq {
                        cur.outstanding = cur.outstanding.saturating_sub(1);
                        if cur.fault.is_none() {
                            cur.fault = done.fault;
                        }
                    }
                }
                self.pump(ctx);
            }
            _ => {}
        }
    }

    // `scratch` is empty between events; ports come from `init`.
    fn save(&self) -> Result<Vec<u8>, CheckpointError> {
        encode(&(&self.cus, &self.queue, &self.cur, self.rr))
    }

    fn restore(&mut self, state: &[u8]) -> Result<(), CheckpointError> {
        let (cus, queue, cur, rr): (Vec<CuResources>, _, _, usize) = decode(state)?;
        if cus.len() != self.cus.len() || rr >= cus.len().max(1) {
            return Err(CheckpointError::Decode(format!(
                "command processor of xcd {} with {} cus (this one has {})",
                self.xcd,
                cus.len(),
                self.cus.len()
            )));
        }
        (self.cus, self.queue, self.cur, self.rr) = (cus, queue, cur, rr);
        Ok(())
    }
}
