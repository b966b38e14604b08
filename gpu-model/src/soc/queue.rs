//! AQL queues in device memory, as the command processor reads them, and the state the
//! packet processor shares with the host side of the SoC.
//!
//! # Layouts (what the runtime writes, what the command processor reads)
//!
//! Sources: the HSA Platform System Architecture / Runtime specifications (packet formats,
//! header bits), ROCr's `amd_hsa_queue.h` / `amd_hsa_signal.h` (as summarised in
//! `../shared/KFD-NOTES.md`: `amd_queue_t.write_dispatch_id` at +0x38,
//! `read_dispatch_id` at +0x80; `amd_signal_t.value` at +8, `event_mailbox_ptr` at +16,
//! `event_id` at +24) and ROCr's `amd_aql_pm4_ib_packet.h` (the vendor PM4 packet:
//! `pm4_ib_format` u16 at +2, value 1 for an indirect buffer; completion signal at +56).
//!
//! * A queue is a ring of 64-byte packets (`ring_bytes` a power of two), a 64-bit write
//!   index and a 64-bit read index in memory (the runtime gives their addresses; ROCr's
//!   are inside its `amd_queue_t`), and a doorbell. Packet `i` lives in slot
//!   `i mod (ring_bytes / 64)`.
//! * Header (u16 at +0): type in bits 7:0 (0 vendor specific, 1 invalid, 2 kernel
//!   dispatch, 3 barrier-AND, 4 agent dispatch, 5 barrier-OR), barrier bit 8, acquire
//!   fence scope 10:9, release fence scope 12:11.
//! * Barrier-AND / barrier-OR: `dep_signal[5]` (u64 handles) at +8..+48, completion
//!   signal at +56. A zero handle is ignored. AND is satisfied when every dependency's
//!   value is 0, OR when any is (HSA: a signal is "satisfied" at 0).
//! * A signal handle is the address of an `amd_signal_t`.
//!
//! # What the packet processor does
//! On a doorbell (and after each completion) it walks every queue in id order: while the
//! write index is beyond the next packet, it reads the packet; an INVALID header means the
//! producer has not published it yet (it waits); a set barrier bit waits until every earlier
//! packet of the queue completed; a kernel dispatch is decoded (kernel object ->
//! descriptor in memory -> entry -> program decoded from memory and cached by address)
//! and launched; a barrier waits until its dependencies are satisfied; the vendor PM4
//! packet invalidates the decoded-program cache and completes. A consumed packet's header
//! is set back to INVALID and the read index advanced. Packets without the barrier bit
//! run concurrently (any number in flight, from any number of queues).
//! On completion the completion signal's value is atomically decremented; when its
//! `event_mailbox_ptr` is nonzero, `event_id` is written there (as a u32) and the event is
//! delivered to the host through the [`EventSink`].
//!
//! A packet that cannot be executed (unknown type, a kernel object in unmapped memory, an
//! invalid descriptor or geometry) is not executed: a [`PacketError`] naming the queue,
//! the packet index and the field is recorded and delivered, and the queue stops (the
//! HSA "queue error" state) while every other queue continues.
//!
//! Fence scopes: the model's memory is coherent at every completion (a dispatch completes
//! at the memory sync point after its last wave, when all its writes are published), so
//! acquire and release fences of any scope are already honoured and need no action.

use crate::exec::Program;
use crate::memory::{AtomicOp, DeviceMemory, MemFault};
use crate::Target;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, RwLock};

use super::launch::Dispatch;

/// Bytes per AQL packet.
pub const PACKET_BYTES: u64 = 64;
/// Packet type: vendor specific (ROCr's PM4 indirect-buffer packet).
pub const PACKET_VENDOR_SPECIFIC: u8 = 0;
/// Packet type: invalid (slot not yet published).
pub const PACKET_INVALID: u8 = 1;
/// Packet type: kernel dispatch.
pub const PACKET_KERNEL_DISPATCH: u8 = 2;
/// Packet type: barrier-AND.
pub const PACKET_BARRIER_AND: u8 = 3;
/// Packet type: agent dispatch.
pub const PACKET_AGENT_DISPATCH: u8 = 4;
/// Packet type: barrier-OR.
pub const PACKET_BARRIER_OR: u8 = 5;
/// Header barrier bit.
pub const HEADER_BARRIER: u16 = 1 << 8;
/// Header acquire fence scope shift (2 bits: 0 none, 1 agent, 2 system).
pub const HEADER_ACQUIRE_SHIFT: u16 = 9;
/// Header release fence scope shift.
pub const HEADER_RELEASE_SHIFT: u16 = 11;
/// Fence scope: system.
pub const FENCE_SCOPE_SYSTEM: u16 = 2;
/// `amd_queue_t.write_dispatch_id` offset.
pub const AMD_QUEUE_WRITE_DISPATCH_ID: u64 = 0x38;
/// `amd_queue_t.read_dispatch_id` offset.
pub const AMD_QUEUE_READ_DISPATCH_ID: u64 = 0x80;
/// `amd_signal_t.value` offset.
pub const SIGNAL_VALUE: u64 = 8;
/// `amd_signal_t.event_mailbox_ptr` offset.
pub const SIGNAL_EVENT_MAILBOX: u64 = 16;
/// `amd_signal_t.event_id` offset.
pub const SIGNAL_EVENT_ID: u64 = 24;
/// `amd_signal_t.start_ts` offset (after `event_id` u32 and `reserved1` u32 at +24;
/// `/usr/include/hsa/amd_hsa_signal.h` of Debian's libhsa-runtime-dev 5.2.3).
pub const SIGNAL_START_TS: u64 = 32;
/// `amd_signal_t.end_ts` offset (same header).
pub const SIGNAL_END_TS: u64 = 40;
/// Period of the GPU timestamp clock in picoseconds (10 ns, a 100 MHz clock). The
/// timestamps the packet processor writes into signals and the GPU clock counter the
/// emulated KFD's GET_CLOCK_COUNTERS reports (`kmd`) count the same clock: ROCr converts
/// signal timestamps to the system domain with the ratio of two clock-counter samples,
/// so the two must agree. 100 MHz is the fixed timestamp clock of gfx940+/gfx10+ (LLVM
/// libc `src/time/gpu/time_utils.h`); LLVM libc gives 25 MHz for other gfx9 parts'
/// `s_memrealtime`, which the model does not distinguish.
pub const TIMESTAMP_PERIOD_PS: u64 = 10_000;
/// Bytes of an `amd_signal_t`.
pub const SIGNAL_BYTES: u64 = 64;
/// The vendor packet's `pm4_ib_format` for an indirect buffer.
pub const AMD_AQL_PM4_IB_FORMAT: u16 = 1;

/// The header of a packet: type, barrier bit, system-scope acquire and release fences.
pub fn packet_header(packet_type: u8, barrier: bool) -> u16 {
    u16::from(packet_type)
        | if barrier { HEADER_BARRIER } else { 0 }
        | FENCE_SCOPE_SYSTEM << HEADER_ACQUIRE_SHIFT
        | FENCE_SCOPE_SYSTEM << HEADER_RELEASE_SHIFT
}

/// The id a dispatch is known by in completions, messages and wave records: queue and
/// packet index. Packet `i` of queue 0 is dispatch `i + 1`.
pub fn dispatch_key(queue: u32, index: u64) -> u64 {
    u64::from(queue) << 44 | (index & ((1 << 44) - 1)).wrapping_add(1)
}

/// A queue's id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct QueueId(pub u32);

/// Where a queue lives in device memory (what KFD's CREATE_QUEUE carries).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueueDesc {
    /// Device address of the ring (64-byte aligned).
    pub ring: u64,
    /// Ring bytes: a power of two, at least one packet.
    pub ring_bytes: u64,
    /// Address of the 64-bit read index the command processor writes
    /// (`amd_queue_t.read_dispatch_id`).
    pub read_index: u64,
    /// Address of the 64-bit write index the producer writes
    /// (`amd_queue_t.write_dispatch_id`).
    pub write_index: u64,
    /// Doorbell id (KFD: the queue's doorbell slot).
    pub doorbell: u32,
    /// Address kernels get as their queue pointer (the `amd_queue_t`; 0 for none).
    pub queue_address: u64,
}

impl QueueDesc {
    /// A queue whose indices are in an `amd_queue_t` at `amd_queue` (write index at +0x38,
    /// read index at +0x80).
    pub fn amd_queue(amd_queue: u64, ring: u64, ring_bytes: u64, doorbell: u32) -> QueueDesc {
        QueueDesc {
            ring,
            ring_bytes,
            read_index: amd_queue + AMD_QUEUE_READ_DISPATCH_ID,
            write_index: amd_queue + AMD_QUEUE_WRITE_DISPATCH_ID,
            doorbell,
            queue_address: amd_queue,
        }
    }

    /// Packets in the ring.
    pub fn slots(&self) -> u64 {
        self.ring_bytes / PACKET_BYTES
    }

    /// Address of packet `index`.
    pub fn slot(&self, index: u64) -> u64 {
        self.ring + (index % self.slots().max(1)) * PACKET_BYTES
    }
}

/// What is wrong with a packet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[non_exhaustive]
pub enum PacketErrorKind {
    /// A packet type the command processor does not execute.
    #[error("packet type {0} is not supported (supported: 0 vendor PM4, 2 kernel dispatch, 3 barrier-AND, 5 barrier-OR)")]
    UnsupportedType(u8),
    /// A vendor packet of another format than the PM4 indirect buffer.
    #[error("vendor packet format {0} is not supported (supported: 1, PM4 indirect buffer)")]
    UnsupportedVendorFormat(u16),
    /// Memory the packet points to cannot be read.
    #[error("{0}")]
    Memory(MemFault),
    /// A field with a value the command processor refuses.
    #[error("{0}")]
    Invalid(String),
}

/// A packet the command processor could not execute; its queue stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("queue {queue} packet {index}: field `{field}`: {kind}")]
pub struct PacketError {
    /// The queue.
    pub queue: u32,
    /// The packet index.
    pub index: u64,
    /// The field at fault (`header`, `kernel_object`, `setup`, ...).
    pub field: String,
    /// What is wrong.
    pub kind: PacketErrorKind,
}

/// An event the command processor delivers to the host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum QueueEvent {
    /// A completion signal with an event mailbox was decremented (an interrupt).
    Signal {
        /// The signal (address of its `amd_signal_t`).
        signal: u64,
        /// Its value after the decrement.
        value: i64,
        /// The mailbox `event_id` was written to.
        mailbox: u64,
        /// The event id.
        event_id: u32,
        /// Simulated time (ticks).
        tick: u64,
    },
    /// A packet failed and its queue stopped.
    Error(PacketError),
}

/// Receives [`QueueEvent`]s, on a simulation thread. It must not call back into the
/// [`super::Soc`] (which is running); hand the event to another thread instead (a channel).
pub type EventSink = Arc<dyn Fn(&QueueEvent) + Send + Sync>;

/// A queue's state in the packet processor.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct QueueState {
    pub(crate) desc: QueueDesc,
    /// Next packet index to read.
    pub(crate) next: u64,
    /// Packets launched and not yet complete.
    pub(crate) in_flight: u32,
    /// The error that stopped the queue.
    pub(crate) error: Option<PacketError>,
    /// Scratch the queue's dispatches use: base and bytes (ROCr's per-queue scratch).
    pub(crate) scratch: (u64, u64),
    /// Scratch reserved by the submitter for particular packets (index -> base).
    pub(crate) packet_scratch: BTreeMap<u64, u64>,
}

impl QueueState {
    pub(crate) fn new(desc: QueueDesc, next: u64) -> QueueState {
        QueueState {
            desc,
            next,
            in_flight: 0,
            error: None,
            scratch: (0, 0),
            packet_scratch: BTreeMap::new(),
        }
    }
}

/// Sets every packet header of a ring to INVALID (what a runtime does when it creates a
/// queue, so the packet processor can tell published packets from stale slots).
pub(crate) fn init_ring(mem: &DeviceMemory, desc: &QueueDesc) -> Result<(), MemFault> {
    for i in 0..desc.slots() {
        mem.store_u16(desc.ring + i * PACKET_BYTES, u16::from(PACKET_INVALID))?;
    }
    Ok(())
}

/// Publishes a packet the way a producer does (the one submission path of the SoC's
/// submitter and of [`crate::device::Device`]): body first with an INVALID header, then
/// the header (a packet is published by its header), then the write index `index + 1`.
pub(crate) fn publish(
    mem: &DeviceMemory,
    desc: &QueueDesc,
    index: u64,
    packet: &[u8; 64],
) -> Result<(), MemFault> {
    let slot = desc.slot(index);
    let mut bytes = *packet;
    bytes[0..2].copy_from_slice(&u16::from(PACKET_INVALID).to_le_bytes());
    mem.write(slot, &bytes)?;
    mem.store_u16(slot, u16::from_le_bytes([packet[0], packet[1]]))?;
    mem.store_u64(desc.write_index, index + 1)
}

/// The packet at `index` as the packet processor sees it: `Ok(None)` while the producer's
/// write index is not beyond it or its header is still INVALID; `Err` names the field
/// whose memory could not be read (`write_index`, `ring`).
pub(crate) fn read_head(
    mem: &DeviceMemory,
    desc: &QueueDesc,
    index: u64,
) -> Result<Option<[u8; 64]>, (&'static str, MemFault)> {
    let write = mem
        .load_u64(desc.write_index)
        .map_err(|f| ("write_index", f))?;
    if index >= write {
        return Ok(None);
    }
    let mut bytes = [0u8; 64];
    mem.read(desc.slot(index), &mut bytes)
        .map_err(|f| ("ring", f))?;
    if bytes[0] == PACKET_INVALID {
        return Ok(None);
    }
    Ok(Some(bytes))
}

/// Releases the slot of consumed packet `index`: header back to INVALID, then the read
/// index `index + 1`.
pub(crate) fn release_slot(
    mem: &DeviceMemory,
    desc: &QueueDesc,
    index: u64,
) -> Result<(), MemFault> {
    mem.store_u16(desc.slot(index), u16::from(PACKET_INVALID))?;
    mem.store_u64(desc.read_index, index + 1)
}

/// A kernel the SoC loaded itself, by descriptor address: its name and the register
/// counts of its metadata (what occupancy is computed from; a descriptor alone only has
/// granulated counts).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct KnownKernel {
    pub(crate) name: String,
    pub(crate) vgprs: u32,
    pub(crate) agprs: u32,
    pub(crate) sgprs: u32,
}

/// Decoded programs, cached by the address range they were decoded from.
#[derive(Debug, Default)]
pub(crate) struct CodeCache {
    /// Text ranges of code objects the SoC loaded itself: decoded exactly these bytes.
    pub(crate) regions: Vec<(u64, u64)>,
    /// Kernels of those code objects.
    pub(crate) kernels: BTreeMap<u64, KnownKernel>,
    /// Decoded ranges (start, end, program id).
    pub(crate) decoded: Vec<(u64, u64, u32)>,
    /// Programs by id (None once dropped).
    pub(crate) programs: Vec<Option<Arc<Program>>>,
}

/// Most bytes decoded for one program found through its allocation.
const MAX_PROGRAM_BYTES: u64 = 64 << 20;

impl CodeCache {
    /// Registers a code object loaded at `loaded`: its text range (decoded exactly, not
    /// from its whole allocation), its kernels' names and metadata register counts, and
    /// `program` when the caller has already decoded that text.
    pub(crate) fn register(
        &mut self,
        co: &crate::loader::CodeObject,
        loaded: &crate::memory::LoadedCodeObject,
        program: Option<Arc<Program>>,
    ) {
        let start = loaded.base + co.text_address();
        let len = co.text().len() as u64;
        self.regions.push((start, len));
        if let Some(p) = program {
            let id = self.programs.len() as u32;
            self.programs.push(Some(p));
            self.decoded.push((start, start + len, id));
        }
        for k in co.kernels() {
            let (Some(lk), Some(md)) = (loaded.kernel(&k.name), k.metadata.as_ref()) else {
                continue;
            };
            let known = KnownKernel {
                name: k.name.clone(),
                vgprs: md.vgpr_count,
                agprs: md.agpr_count,
                sgprs: md.sgpr_count,
            };
            // A virtual-LDS sidecar is the same kernel (the translator gives both
            // variants the larger counts): a dispatch of its descriptor is known too.
            if let Some(sc) = co.sidecar(k.descriptor_address) {
                let at = lk
                    .descriptor_address
                    .wrapping_sub(k.descriptor_address)
                    .wrapping_add(sc.descriptor_address);
                self.kernels.insert(at, known.clone());
            }
            self.kernels.insert(lk.descriptor_address, known);
        }
    }

    /// The program containing `entry`, decoding it from memory if needed.
    pub(crate) fn program(
        &mut self,
        mem: &DeviceMemory,
        target: Target,
        entry: u64,
    ) -> Result<(u32, Arc<Program>), MemFault> {
        if let Some(&(_, _, id)) = self
            .decoded
            .iter()
            .find(|(s, e, _)| (*s..*e).contains(&entry))
        {
            if let Some(Some(p)) = self.programs.get(id as usize) {
                return Ok((id, p.clone()));
            }
        }
        let (start, end) = match self
            .regions
            .iter()
            .find(|(s, l)| (*s..s + l).contains(&entry))
        {
            Some(&(s, l)) => (s, s + l),
            None => {
                let a = mem.range_at(entry).ok_or_else(|| {
                    mem.check(entry, 4, crate::memory::Access::Read)
                        .err()
                        .unwrap_or(MemFault {
                            addr: entry,
                            size: 4,
                            access: crate::memory::Access::Read,
                            kind: crate::memory::FaultKind::Unmapped,
                        })
                })?;
                (a.0, a.1.min(entry.saturating_add(MAX_PROGRAM_BYTES)))
            }
        };
        let mut bytes = vec![0u8; (end - start) as usize];
        mem.read(start, &mut bytes)?;
        let p = Arc::new(Program::new(target, start, &bytes));
        let id = self.programs.len() as u32;
        self.programs.push(Some(p.clone()));
        self.decoded.push((start, end, id));
        Ok((id, p))
    }

    /// Drops every decoded program (the instruction-cache invalidate of the vendor PM4
    /// packet): later dispatches decode the code from memory again. Dispatches in flight
    /// keep theirs.
    pub(crate) fn invalidate(&mut self) {
        self.decoded.clear();
        for p in &mut self.programs {
            if p.as_ref().is_some_and(|a| Arc::strong_count(a) == 1) {
                *p = None;
            }
        }
    }

    /// Ranges decoded, for checkpoints.
    pub(crate) fn decoded(&self) -> &[(u64, u64, u32)] {
        &self.decoded
    }

    pub(crate) fn set_decoded(&mut self, d: Vec<(u64, u64, u32)>) {
        self.decoded = d;
    }
}

/// What the packet processor, the command processors, the CUs and the host share.
#[derive(Debug, Default)]
pub(crate) struct Inner {
    pub(crate) queues: BTreeMap<u32, QueueState>,
    /// Dispatches launched and not yet complete, by key.
    pub(crate) dispatches: BTreeMap<u64, Arc<Dispatch>>,
    pub(crate) code: CodeCache,
    /// Every packet error and signal event delivered so far.
    pub(crate) events: Vec<QueueEvent>,
    /// Where GPU timestamps start: (timestamp, simulated tick) pairs the host set
    /// ([`super::Soc::set_timestamp_origin`]); (0, 0) makes timestamps plain simulated time.
    pub(crate) timestamp_origin: (u64, u64),
}

impl Inner {
    /// The GPU timestamp of simulated time `tick` (picoseconds): the origin's timestamp
    /// plus the counts of the [`TIMESTAMP_PERIOD_PS`] clock since the origin's tick.
    pub(crate) fn timestamp(&self, tick: u64) -> u64 {
        let (ts, at) = self.timestamp_origin;
        ts + tick.saturating_sub(at) / TIMESTAMP_PERIOD_PS
    }
}

/// The shared registry (see [`Inner`]) and the host's event sink.
#[derive(Default)]
pub(crate) struct Shared {
    pub(crate) inner: RwLock<Inner>,
    pub(crate) sink: Mutex<Option<EventSink>>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared").finish_non_exhaustive()
    }
}

impl Shared {
    pub(crate) fn read(&self) -> std::sync::RwLockReadGuard<'_, Inner> {
        self.inner.read().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn write(&self) -> std::sync::RwLockWriteGuard<'_, Inner> {
        self.inner.write().unwrap_or_else(|p| p.into_inner())
    }

    /// The dispatch with key `seq`.
    pub(crate) fn dispatch(&self, seq: u64) -> Option<Arc<Dispatch>> {
        self.read().dispatches.get(&seq).cloned()
    }

    /// The dispatch with key `seq`, decoded again from its packet in the ring when this
    /// registry does not have it: on an MPI rank other than the packet processor's (which
    /// registered it in its own process), where the ring of this process's memory replica
    /// still holds the packet (the host wrote it on every rank, and the packet processor's
    /// release of the slot is only in its own replica until the run ends). The same packet
    /// and memory decode to the same dispatch. `None`: no such packet.
    pub(crate) fn dispatch_or_decode(
        &self,
        seq: u64,
        mem: &DeviceMemory,
        cfg: &crate::config::GpuConfig,
    ) -> Option<Arc<Dispatch>> {
        if let Some(d) = self.dispatch(seq) {
            return Some(d);
        }
        // The inverse of `dispatch_key`.
        let (queue, index) = ((seq >> 44) as u32, (seq & ((1 << 44) - 1)).checked_sub(1)?);
        let mut inner = self.write();
        let st = inner.queues.get(&queue)?.clone();
        let bytes = read_head(mem, &st.desc, index).ok()??;
        if bytes[0] != PACKET_KERNEL_DISPATCH {
            return None;
        }
        let d = super::launch::from_packet(
            mem,
            &mut inner.code,
            cfg,
            &st,
            queue,
            index,
            st.desc.slot(index),
            &bytes,
        )
        .ok()?;
        let d = Arc::new(d);
        inner.dispatches.insert(seq, d.clone());
        Some(d)
    }

    /// Records `e` and hands it to the sink.
    pub(crate) fn deliver(&self, inner: &mut Inner, e: QueueEvent) {
        let sink = self.sink.lock().unwrap_or_else(|p| p.into_inner()).clone();
        if let Some(s) = sink {
            s(&e);
        }
        inner.events.push(e);
    }
}

/// Writes the profiling timestamps of a completed packet into signal `handle` (0: none),
/// then decrements its value by one (the timestamps are in place before a waiter can see
/// the new value, as ROCr reads them after the wait); returns the event to deliver when the
/// signal has a mailbox. `start` and `end` are GPU timestamps (when the packet was
/// launched and when it completed); `tick` is the simulated time of the event. A signal in
/// unmapped memory is reported as the fault.
pub(crate) fn complete_signal(
    mem: &DeviceMemory,
    handle: u64,
    (start, end): (u64, u64),
    tick: u64,
) -> Result<Option<QueueEvent>, MemFault> {
    if handle == 0 {
        return Ok(None);
    }
    mem.store_u64(handle + SIGNAL_START_TS, start)?;
    mem.store_u64(handle + SIGNAL_END_TS, end)?;
    let old = mem.atomic_u64(handle + SIGNAL_VALUE, AtomicOp::Sub, 1, 0)?;
    let mailbox = mem.load_u64(handle + SIGNAL_EVENT_MAILBOX)?;
    if mailbox == 0 {
        return Ok(None);
    }
    let event_id = mem.load_u32(handle + SIGNAL_EVENT_ID)?;
    mem.store_u32(mailbox, event_id)?;
    Ok(Some(QueueEvent::Signal {
        signal: handle,
        value: old.wrapping_sub(1) as i64,
        mailbox,
        event_id,
        tick,
    }))
}

/// Whether a barrier packet's dependencies are satisfied (`or`: any, else all).
pub(crate) fn barrier_satisfied(
    mem: &DeviceMemory,
    packet: &[u8; 64],
    or: bool,
) -> Result<bool, (usize, MemFault)> {
    let mut any = false;
    let mut all = true;
    let mut deps = 0;
    for k in 0..5 {
        let o = 8 + 8 * k;
        let h = u64::from_le_bytes(packet[o..o + 8].try_into().unwrap_or([0; 8]));
        if h == 0 {
            continue;
        }
        deps += 1;
        let v = mem.load_u64(h + SIGNAL_VALUE).map_err(|e| (k, e))?;
        any |= v == 0;
        all &= v == 0;
    }
    Ok(if or { any || deps == 0 } else { all })
}
