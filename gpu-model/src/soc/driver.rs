//! The packet processor (the front of the command processor, on the SoC's first thread):
//! reads AQL packets from the queues in memory, launches kernel dispatches on every XCD's
//! command processor, completes barrier and vendor packets, and on completion decrements
//! completion signals in memory and delivers their events. See [`super::queue`] for the
//! memory layouts and the rules.
//!
//! A dispatch completes at the first memory sync point after its last XCD reported (the
//! end-of-kernel release): only then are all its CUs' buffered writes in device memory
//! (see [`crate::memory::coherence`]). Packets with the barrier bit start when every
//! earlier packet of their queue completed (what HIP and OpenCL use for the kernels of one
//! stream); packets without it start as soon as they are read.

use crate::config::GpuConfig;
use crate::dispatch::Fault;
use crate::memory::DeviceMemory;
use serde::{Deserialize, Serialize};
use simkit::checkpoint::{decode, encode, CheckpointError};
use simkit::component::{Component, Ctx, Input};
use simkit::port::PortId;
use simkit::time::Tick;
use std::sync::{Arc, RwLock};

use super::launch;
use super::msg::SocMsg;
use super::queue::{
    self, Inner, PacketError, PacketErrorKind, QueueEvent, Shared, HEADER_BARRIER,
    PACKET_BARRIER_AND, PACKET_BARRIER_OR, PACKET_KERNEL_DISPATCH, PACKET_VENDOR_SPECIFIC,
};

/// A completed dispatch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Completion {
    /// Its key ([`queue::dispatch_key`]).
    pub seq: u64,
    /// When the packet processor launched it.
    pub submitted: Tick,
    /// When it completed (the memory sync point after its last XCD reported).
    pub completed: Tick,
    /// The first fault any XCD reported (in XCD order).
    pub fault: Option<Box<Fault>>,
    /// Wave-instructions its waves retired, summed over the XCDs (its own, also when
    /// other dispatches ran at the same time). Absent from images written before the
    /// count existed.
    #[serde(default)]
    pub instructions: u64,
}

#[derive(Debug, Serialize, Deserialize)]
struct Pending {
    seq: u64,
    submitted: Tick,
    remaining: u32,
    faults: Vec<(u32, Box<Fault>)>,
    /// Absent from images written before the count existed.
    #[serde(default)]
    instructions: u64,
}

/// The packet processor component.
pub struct Driver {
    xcds: u32,
    /// Memory sync period.
    sync: Tick,
    /// Finished dispatches waiting for their sync point, in finishing order.
    releasing: Vec<Completion>,
    ports: Vec<PortId>,
    pending: Vec<Pending>,
    shared: Arc<Shared>,
    mem: Arc<RwLock<DeviceMemory>>,
    config: Arc<GpuConfig>,
    /// Completed dispatches, in completion order.
    pub completed: Vec<Completion>,
}

impl std::fmt::Debug for Driver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Driver")
            .field("pending", &self.pending)
            .field("completed", &self.completed.len())
            .finish_non_exhaustive()
    }
}

/// What to do with the packet at the head of a queue.
enum Step {
    /// Wait (not published, barrier bit, unsatisfied barrier packet).
    Wait,
    /// Consumed; launched this dispatch (0: none) and completes this signal now (0: none).
    Consumed { launched: u64, complete: u64 },
    /// Stop the queue with this error.
    Fail(PacketError),
}

impl Driver {
    pub(crate) fn new(
        xcds: u32,
        sync: Tick,
        shared: Arc<Shared>,
        mem: Arc<RwLock<DeviceMemory>>,
        config: Arc<GpuConfig>,
    ) -> Driver {
        Driver {
            xcds,
            sync: sync.max(Tick(1)),
            releasing: Vec::new(),
            ports: Vec::new(),
            pending: Vec::new(),
            shared,
            mem,
            config,
            completed: Vec::new(),
        }
    }

    /// Dispatches launched and not yet complete.
    pub fn in_flight(&self) -> usize {
        self.pending.len() + self.releasing.len()
    }

    /// Reads and executes what every queue (or queue `only`) has ready.
    fn process(&mut self, only: Option<u32>, ctx: &mut Ctx<'_, SocMsg>) {
        let shared = self.shared.clone();
        let mem_arc = self.mem.clone();
        let mem = mem_arc.read().unwrap_or_else(|p| p.into_inner());
        let mut inner = shared.write();
        let ids: Vec<u32> = inner.queues.keys().copied().collect();
        for q in ids {
            if only.is_some_and(|o| o != q) {
                continue;
            }
            loop {
                let step = self.head(&mem, &mut inner, q);
                match step {
                    Step::Wait => break,
                    Step::Fail(e) => {
                        if let Some(st) = inner.queues.get_mut(&q) {
                            st.error = Some(e.clone());
                        }
                        shared.deliver(&mut inner, QueueEvent::Error(e));
                        break;
                    }
                    Step::Consumed { launched, complete } => {
                        let Some(st) = inner.queues.get_mut(&q) else {
                            break;
                        };
                        let index = st.next;
                        let desc = st.desc;
                        st.next += 1;
                        if launched != 0 {
                            st.in_flight += 1;
                        }
                        // Release the slot: header back to INVALID, then the read index.
                        if let Err(f) = queue::release_slot(&mem, &desc, index) {
                            let e = PacketError {
                                queue: q,
                                index,
                                field: "read_index".into(),
                                kind: PacketErrorKind::Memory(f),
                            };
                            if let Some(st) = inner.queues.get_mut(&q) {
                                st.error = Some(e.clone());
                            }
                            shared.deliver(&mut inner, QueueEvent::Error(e));
                            break;
                        }
                        if launched != 0 {
                            self.pending.push(Pending {
                                seq: launched,
                                submitted: ctx.now(),
                                remaining: self.xcds,
                                faults: Vec::new(),
                                instructions: 0,
                            });
                            for &p in &self.ports {
                                ctx.send(p, SocMsg::Dispatch(launched));
                            }
                        }
                        if let Err(e) = signal(
                            &shared,
                            &mem,
                            &mut inner,
                            complete,
                            q,
                            index,
                            ctx.now(),
                            ctx.now(),
                        ) {
                            if let Some(st) = inner.queues.get_mut(&q) {
                                st.error = Some(e.clone());
                            }
                            shared.deliver(&mut inner, QueueEvent::Error(e));
                            break;
                        }
                    }
                }
            }
        }
    }

    /// Looks at the next packet of queue `q`.
    fn head(&self, mem: &DeviceMemory, inner: &mut Inner, q: u32) -> Step {
        let Some(st) = inner.queues.get(&q) else {
            return Step::Wait;
        };
        if st.error.is_some() {
            return Step::Wait;
        }
        let (desc, index) = (st.desc, st.next);
        let fail = |field: &str, kind: PacketErrorKind| {
            Step::Fail(PacketError {
                queue: q,
                index,
                field: field.into(),
                kind,
            })
        };
        let bytes = match queue::read_head(mem, &desc, index) {
            Ok(Some(b)) => b,
            Ok(None) => return Step::Wait,
            Err((field, f)) => return fail(field, PacketErrorKind::Memory(f)),
        };
        let slot = desc.slot(index);
        let header = u16::from_le_bytes([bytes[0], bytes[1]]);
        let ty = header as u8;
        if header & HEADER_BARRIER != 0 && st.in_flight > 0 {
            return Step::Wait;
        }
        let completion = u64::from_le_bytes(bytes[56..64].try_into().unwrap_or([0; 8]));
        match ty {
            PACKET_KERNEL_DISPATCH => {
                let st = st.clone();
                let d = launch::from_packet(
                    mem,
                    &mut inner.code,
                    &self.config,
                    &st,
                    q,
                    index,
                    slot,
                    &bytes,
                );
                match d {
                    Ok(d) => {
                        let seq = d.seq;
                        inner.dispatches.insert(seq, Arc::new(d));
                        Step::Consumed {
                            launched: seq,
                            complete: 0,
                        }
                    }
                    Err(e) => Step::Fail(e),
                }
            }
            PACKET_BARRIER_AND | PACKET_BARRIER_OR => {
                match queue::barrier_satisfied(mem, &bytes, ty == PACKET_BARRIER_OR) {
                    Ok(true) => Step::Consumed {
                        launched: 0,
                        complete: completion,
                    },
                    Ok(false) => Step::Wait,
                    Err((k, f)) => fail(&format!("dep_signal[{k}]"), PacketErrorKind::Memory(f)),
                }
            }
            PACKET_VENDOR_SPECIFIC => {
                let format = u16::from_le_bytes([bytes[2], bytes[3]]);
                if format != queue::AMD_AQL_PM4_IB_FORMAT {
                    return fail(
                        "pm4_ib_format",
                        PacketErrorKind::UnsupportedVendorFormat(format),
                    );
                }
                // ROCr sends it to invalidate caches after loading code: drop the decoded
                // programs so new code in memory is decoded again.
                inner.code.invalidate();
                Step::Consumed {
                    launched: 0,
                    complete: completion,
                }
            }
            other => fail("header", PacketErrorKind::UnsupportedType(other)),
        }
    }
}

/// Completes signal `handle` of packet `index` of queue `q` (0: none), launched at
/// `start`, with its profiling timestamps; delivers its event.
#[allow(clippy::too_many_arguments)]
fn signal(
    shared: &Shared,
    mem: &DeviceMemory,
    inner: &mut Inner,
    handle: u64,
    q: u32,
    index: u64,
    start: Tick,
    tick: Tick,
) -> Result<(), PacketError> {
    let ts = (inner.timestamp(start.0), inner.timestamp(tick.0));
    match queue::complete_signal(mem, handle, ts, tick.0) {
        Ok(Some(e)) => {
            shared.deliver(inner, e);
            Ok(())
        }
        Ok(None) => Ok(()),
        Err(f) => Err(PacketError {
            queue: q,
            index,
            field: "completion_signal".into(),
            kind: PacketErrorKind::Memory(f),
        }),
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
            Input::External(SocMsg::Doorbell { queue }) => self.process(queue, ctx),
            Input::Message {
                msg:
                    SocMsg::DispatchDone {
                        xcd,
                        seq,
                        fault,
                        instructions,
                    },
                ..
            } => {
                let Some(i) = self.pending.iter().position(|p| p.seq == seq) else {
                    return;
                };
                let p = &mut self.pending[i];
                p.remaining -= 1;
                p.instructions += instructions;
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
                        instructions: p.instructions,
                    });
                    ctx.schedule(Tick(at.0 - now.0), SocMsg::Tick);
                }
            }
            Input::Timer(SocMsg::Tick) => {
                let now = ctx.now();
                let (done, rest): (Vec<_>, Vec<_>) =
                    self.releasing.drain(..).partition(|c| c.completed <= now);
                self.releasing = rest;
                if done.is_empty() {
                    return;
                }
                {
                    let shared = self.shared.clone();
                    let mem = self.mem.read().unwrap_or_else(|p| p.into_inner());
                    let mut inner = shared.write();
                    for c in &done {
                        let Some(d) = inner.dispatches.remove(&c.seq) else {
                            continue;
                        };
                        if let Some(st) = inner.queues.get_mut(&d.queue) {
                            st.in_flight = st.in_flight.saturating_sub(1);
                            st.packet_scratch.remove(&d.index);
                        }
                        let h = d.packet.completion_signal;
                        let (q, i) = (d.queue, d.index);
                        if let Err(e) = signal(&shared, &mem, &mut inner, h, q, i, c.submitted, now)
                        {
                            if let Some(st) = inner.queues.get_mut(&d.queue) {
                                st.error = Some(e.clone());
                            }
                            shared.deliver(&mut inner, QueueEvent::Error(e));
                        }
                    }
                }
                self.completed.extend(done);
                self.process(None, ctx);
            }
            _ => {}
        }
    }

    fn save(&self) -> Result<Vec<u8>, CheckpointError> {
        encode(&(&self.pending, &self.completed, &self.releasing))
    }

    fn restore(&mut self, state: &[u8]) -> Result<(), CheckpointError> {
        (self.pending, self.completed, self.releasing) = decode(state)?;
        Ok(())
    }
}
