//! The memory hierarchy's components: a CU's L1s (as a wave-memory observer), the per-XCD
//! L2 and the IODs (memory-side cache + HBM), connected by [`SocMsg::Mem`] messages.

use crate::cache::{mtype_for, AccessKind, Cache, MType, MemOp};
use crate::exec::{self, MemObserver, MemRecord};
use crate::Target;
use simkit::component::{Component, Ctx, Input};
use simkit::port::PortId;

use super::msg::{MemReq, SocMsg};

/// A CU's K$ and V$, fed by the executor's memory observer. Requests for the L2 collect in
/// `out` and the CU sends them at the end of its quantum.
#[derive(Debug)]
pub(crate) struct L1s {
    pub(crate) target: Target,
    pub(crate) scalar: Cache,
    pub(crate) vector: Cache,
    pub(crate) out: Vec<MemReq>,
    /// Executed memory instructions by kind: scalar loads, vector loads, stores, atomics.
    pub(crate) counts: [u64; 4],
}

/// The LLVM `CPol` bits from the executor's policy byte (its bit 2 is scc/sc1, LLVM's 4).
fn cpol(policy: u8) -> u32 {
    u32::from(policy & 3) | u32::from(policy >> 2 & 1) << 4
}

fn push(
    out: &mut Vec<MemReq>,
    o: crate::cache::Outcome,
    addr: u64,
    bytes: u32,
    kind: AccessKind,
    mtype: MType,
    line: u64,
) {
    if let Some(f) = o.fill {
        out.push(MemReq {
            addr: f,
            bytes: line as u32,
            kind: AccessKind::Read,
            mtype,
        });
    }
    if o.forward {
        out.push(MemReq {
            addr,
            bytes,
            kind,
            mtype,
        });
    }
    if let Some(w) = o.writeback {
        out.push(MemReq {
            addr: w,
            bytes: line as u32,
            kind: AccessKind::Write,
            mtype: MType::Rw,
        });
    }
}

impl MemObserver for L1s {
    fn access(&mut self, rec: &MemRecord<'_>) {
        let (op, kind) = match rec.kind {
            exec::AccessKind::Load | exec::AccessKind::ScalarLoad => {
                (MemOp::Load, AccessKind::Read)
            }
            exec::AccessKind::Store => (MemOp::Store, AccessKind::Write),
            exec::AccessKind::Atomic => (MemOp::Atomic, AccessKind::Atomic),
        };
        self.counts[match rec.kind {
            exec::AccessKind::ScalarLoad => 0,
            exec::AccessKind::Load => 1,
            exec::AccessKind::Store => 2,
            exec::AccessKind::Atomic => 3,
        }] += 1;
        let mtype = mtype_for(self.target, cpol(rec.policy), op);
        let cache = if rec.kind == exec::AccessKind::ScalarLoad {
            &mut self.scalar
        } else {
            &mut self.vector
        };
        let line = cache.line_bytes();
        // Coalesce: one access per distinct line among consecutive active lanes.
        let mut last = u64::MAX;
        let mut exec_mask = rec.exec;
        while exec_mask != 0 {
            let lane = exec_mask.trailing_zeros() as usize;
            exec_mask &= exec_mask - 1;
            let addr = rec.addrs[lane];
            let l = addr / line;
            if l == last && kind != AccessKind::Atomic {
                continue;
            }
            last = l;
            let o = cache.access(addr, rec.bytes, kind, mtype);
            push(&mut self.out, o, addr, rec.bytes, kind, mtype, line);
            if rec.kind == exec::AccessKind::ScalarLoad {
                // A scalar load reads one address (lane 0); its width is `bytes`.
                break;
            }
        }
    }
}

/// The L2 of one XCD.
#[derive(Debug)]
pub struct L2 {
    pub(crate) cache: Cache,
    pub(crate) iods: u32,
    pub(crate) interleave: u64,
    ports: Vec<PortId>,
    batches: Vec<Vec<MemReq>>,
}

impl L2 {
    pub(crate) fn new(cache: Cache, iods: u32, interleave: u64) -> L2 {
        L2 {
            cache,
            iods,
            interleave,
            ports: Vec::new(),
            batches: vec![Vec::new(); iods as usize],
        }
    }

    /// The cache (for statistics).
    pub fn cache(&self) -> &Cache {
        &self.cache
    }
}

/// Which IOD serves `addr`.
pub(crate) fn iod_of(addr: u64, iods: u32, interleave: u64) -> usize {
    ((addr / interleave) % u64::from(iods.max(1))) as usize
}

impl Component<SocMsg> for L2 {
    fn init(&mut self, ctx: &mut Ctx<'_, SocMsg>) {
        self.ports = (0..self.iods)
            .filter_map(|i| ctx.port(&format!("iod{i}")))
            .collect();
    }

    fn handle(&mut self, input: Input<SocMsg>, ctx: &mut Ctx<'_, SocMsg>) {
        let (Input::Message {
            msg: SocMsg::Mem(reqs),
            ..
        }
        | Input::Net {
            msg: SocMsg::Mem(reqs),
            ..
        }) = input
        else {
            return;
        };
        let line = self.cache.line_bytes();
        for r in reqs.iter() {
            let o = self.cache.access(r.addr, r.bytes, r.kind, r.mtype);
            let i = iod_of(r.addr, self.iods, self.interleave);
            push(
                &mut self.batches[i],
                o,
                r.addr,
                r.bytes,
                r.kind,
                r.mtype,
                line,
            );
        }
        for (i, b) in self.batches.iter_mut().enumerate() {
            if !b.is_empty() {
                if let Some(&p) = self.ports.get(i) {
                    ctx.send(p, SocMsg::Mem(Box::new(std::mem::take(b))));
                }
            }
        }
    }
}

/// One I/O die: its slice of the memory-side cache and its HBM controllers.
#[derive(Debug)]
pub struct Iod {
    pub(crate) mall: Option<Cache>,
    /// Bytes read from HBM.
    pub hbm_read: u64,
    /// Bytes written to HBM.
    pub hbm_write: u64,
}

impl Iod {
    pub(crate) fn new(mall: Option<Cache>) -> Iod {
        Iod {
            mall,
            hbm_read: 0,
            hbm_write: 0,
        }
    }

    /// The memory-side cache, if the GPU has one.
    pub fn mall(&self) -> Option<&Cache> {
        self.mall.as_ref()
    }
}

impl Component<SocMsg> for Iod {
    fn handle(&mut self, input: Input<SocMsg>, _ctx: &mut Ctx<'_, SocMsg>) {
        let Input::Message {
            msg: SocMsg::Mem(reqs),
            ..
        } = input
        else {
            return;
        };
        for r in reqs.iter() {
            let Some(m) = &mut self.mall else {
                match r.kind {
                    AccessKind::Read => self.hbm_read += u64::from(r.bytes),
                    AccessKind::Write => self.hbm_write += u64::from(r.bytes),
                    AccessKind::Atomic => {
                        self.hbm_read += u64::from(r.bytes);
                        self.hbm_write += u64::from(r.bytes);
                    }
                }
                continue;
            };
            let line = m.line_bytes();
            let o = m.access(r.addr, r.bytes, r.kind, r.mtype);
            if o.fill.is_some() {
                self.hbm_read += line;
            }
            if o.forward {
                self.hbm_write += u64::from(r.bytes);
            }
            if o.writeback.is_some() {
                self.hbm_write += line;
            }
        }
    }
}
