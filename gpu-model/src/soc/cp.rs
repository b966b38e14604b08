//! The command processor of one XCD: takes its share of each dispatch and places
//! workgroups on CUs where their resources fit, round-robin.
//!
//! A dispatch is spread over all XCDs by workgroup: linear workgroup `i` belongs to XCD
//! `i mod xcds` (MI300X's SPX mode deals workgroups to XCDs round-robin). Within the XCD,
//! the CP keeps the resource state of each CU (wave slots, VGPR/SGPR blocks, LDS, barriers)
//! and places a workgroup on the next CU in round-robin order that has room.

use crate::config::{CuSpec, GpuConfig};
use crate::dispatch::Fault;
use crate::memory::DeviceMemory;
use crate::occupancy::{CuResources, WaveAlloc};
use serde::{Deserialize, Serialize};
use simkit::checkpoint::{decode, encode, CheckpointError};
use simkit::component::{Component, Ctx, Input};
use simkit::port::PortId;
use std::collections::VecDeque;
use std::sync::{Arc, RwLock};

use super::launch::Dispatch;
use super::msg::{SocMsg, WorkgroupAssign};
use super::queue::Shared;

/// A dispatch being distributed.
#[derive(Debug)]
struct Current {
    d: Arc<Dispatch>,
    /// Next linear workgroup index of this XCD's share.
    next: u64,
    /// Workgroups placed and not done: running, or ended with memory operations still in
    /// flight (clocked mode, [`SocMsg::Drained`]).
    outstanding: u32,
    fault: Option<Box<Fault>>,
    /// Wave-instructions of the share's ended workgroups.
    instructions: u64,
}

/// [`Current`] with its dispatch named by key, for checkpoints.
#[derive(Debug, Serialize, Deserialize)]
struct CurrentImage {
    seq: u64,
    next: u64,
    outstanding: u32,
    fault: Option<Box<Fault>>,
    /// Absent from images written before the count existed.
    #[serde(default)]
    instructions: u64,
}

/// A command processor.
#[derive(Debug)]
pub struct CommandProcessor {
    xcd: u32,
    xcds: u32,
    cus: Vec<CuResources>,
    cu_ports: Vec<PortId>,
    driver: Option<PortId>,
    /// Dispatches with workgroups left to place or running, in arrival order.
    active: VecDeque<Current>,
    rr: usize,
    scratch: Vec<WaveAlloc>,
    shared: Arc<Shared>,
    /// For dispatches decoded again on a rank without the packet processor.
    mem: Arc<RwLock<DeviceMemory>>,
    config: Arc<GpuConfig>,
}

impl CommandProcessor {
    pub(crate) fn new(
        xcd: u32,
        xcds: u32,
        cus: u32,
        spec: &CuSpec,
        shared: Arc<Shared>,
        mem: Arc<RwLock<DeviceMemory>>,
        config: Arc<GpuConfig>,
    ) -> CommandProcessor {
        CommandProcessor {
            xcd,
            xcds,
            cus: (0..cus).map(|_| CuResources::new(spec)).collect(),
            cu_ports: Vec::new(),
            driver: None,
            active: VecDeque::new(),
            rr: 0,
            scratch: Vec::new(),
            shared,
            mem,
            config,
        }
    }

    /// Places as many workgroups as fit, dispatches in arrival order (a later dispatch's
    /// workgroups start once every workgroup of the earlier ones is placed); reports each
    /// dispatch whose share is done.
    fn pump(&mut self, ctx: &mut Ctx<'_, SocMsg>) {
        let n = self.cus.len();
        for cur in self.active.iter_mut() {
            let total = cur.d.total_workgroups();
            // After a fault, place nothing more: drain what is running.
            let mut blocked = false;
            while cur.fault.is_none() && cur.next < total {
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
                let Some((c, alloc)) = placed else {
                    blocked = true;
                    break;
                };
                self.rr = (c + 1) % n;
                let id = cur.d.workgroup_id(cur.next);
                cur.next += u64::from(self.xcds);
                cur.outstanding += 1;
                ctx.send(
                    self.cu_ports[c],
                    SocMsg::Workgroup(Box::new(WorkgroupAssign {
                        dispatch: cur.d.seq,
                        id,
                        alloc,
                        waves: std::mem::take(&mut self.scratch),
                        cu: c as u32,
                    })),
                );
            }
            if blocked {
                break;
            }
        }
        let mut i = 0;
        while i < self.active.len() {
            let cur = &self.active[i];
            let total = cur.d.total_workgroups();
            let finished = cur.outstanding == 0 && (cur.next >= total || cur.fault.is_some());
            if !finished {
                i += 1;
                continue;
            }
            let Some(done) = self.active.remove(i) else {
                break;
            };
            if let Some(p) = self.driver {
                ctx.send(
                    p,
                    SocMsg::DispatchDone {
                        xcd: self.xcd,
                        seq: done.d.seq,
                        fault: done.fault,
                        instructions: done.instructions,
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
            SocMsg::Dispatch(seq) => {
                // The packet processor registered it before sending; on another MPI
                // rank it is decoded from this rank's replica of the ring.
                let d = {
                    let mem = self.mem.read().unwrap_or_else(|p| p.into_inner());
                    self.shared.dispatch_or_decode(seq, &mem, &self.config)
                };
                let Some(d) = d else {
                    return;
                };
                self.active.push_back(Current {
                    next: u64::from(self.xcd),
                    d,
                    outstanding: 0,
                    fault: None,
                    instructions: 0,
                });
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
                if let Some(cur) = self.active.iter_mut().find(|c| c.d.seq == done.seq) {
                    if !done.draining {
                        cur.outstanding = cur.outstanding.saturating_sub(1);
                    }
                    cur.instructions += done.instructions;
                    if cur.fault.is_none() {
                        cur.fault = done.fault;
                    }
                }
                self.pump(ctx);
            }
            SocMsg::Drained {
                seq, workgroups, ..
            } => {
                if let Some(cur) = self.active.iter_mut().find(|c| c.d.seq == seq) {
                    cur.outstanding = cur.outstanding.saturating_sub(workgroups);
                }
                self.pump(ctx);
            }
            _ => {}
        }
    }

    // `scratch` is empty between events; ports come from `init`.
    fn save(&self) -> Result<Vec<u8>, CheckpointError> {
        let active: Vec<CurrentImage> = self
            .active
            .iter()
            .map(|c| CurrentImage {
                seq: c.d.seq,
                next: c.next,
                outstanding: c.outstanding,
                fault: c.fault.clone(),
                instructions: c.instructions,
            })
            .collect();
        encode(&(&self.cus, &active, self.rr))
    }

    fn restore(&mut self, state: &[u8]) -> Result<(), CheckpointError> {
        let (cus, active, rr): (Vec<CuResources>, Vec<CurrentImage>, usize) = decode(state)?;
        if cus.len() != self.cus.len() || rr >= cus.len().max(1) {
            return Err(CheckpointError::Decode(format!(
                "command processor of xcd {} with {} cus (this one has {})",
                self.xcd,
                cus.len(),
                self.cus.len()
            )));
        }
        let mut restored = VecDeque::with_capacity(active.len());
        for c in active {
            let d = self.shared.dispatch(c.seq).ok_or_else(|| {
                CheckpointError::Decode(format!(
                    "command processor of xcd {}: dispatch {} is not in the checkpoint",
                    self.xcd, c.seq
                ))
            })?;
            restored.push_back(Current {
                d,
                next: c.next,
                outstanding: c.outstanding,
                fault: c.fault,
                instructions: c.instructions,
            });
        }
        (self.cus, self.active, self.rr) = (cus, restored, rr);
        Ok(())
    }
}
