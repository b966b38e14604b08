//! The hostcall buffer (`hidden_hostcall_buffer`): a device-side request queue that a
//! host thread serves, and the message layer printf is built on.
//!
//! Layout and protocol as the ROCm 5.2.3 device libraries (Debian's `ockl.bc`,
//! `__ockl_hostcall_internal`, read with `llvm-dis-22`) and ROCclr
//! (`rocclr/device/devhostcall.cpp`, `devhcmessages.cpp`) use them:
//!
//! ```text
//!  buffer  +0  headers      pointer to packet headers (24 bytes each)
//!          +8  payloads     pointer to packet payloads (4096 bytes each: 64 lanes x 8 u64)
//!          +16 doorbell     HSA signal handle (an amd_signal_t: kind @0, value @8,
//!                           event mailbox @16, event id @24); the device adds 1 to it
//!          +24 free_stack   tagged pointer: index in the low bits, ABA tag above
//!          +32 ready_stack  tagged pointer, 0 = empty
//!          +40 index_mask   packets rounded up to a power of two, minus 1 (5.2.3 reads
//!                           it as a 64-bit mask)
//!  header  +0 next (tagged)  +8 activemask (EXEC)  +16 service id  +20 control (bit 0 READY)
//! ```
//!
//! A wave's first active lane pops a packet off the free stack, fills the header (service,
//! EXEC, READY), every active lane writes its 8 words to its slot, the first lane pushes the
//! packet on the ready stack and rings the doorbell, then the wave spins (`s_sleep 1`)
//! until READY clears, reads two words back from its slot and pushes the packet, its tag
//! incremented, back on the free stack. The host takes the whole ready stack at once, for
//! each active lane (lowest first) runs the service on its slot, and clears READY.
//!
//! Initial state (ROCclr `HostcallBuffer::initialize`): every packet on the free stack,
//! the top being the last packet; packet 0's `next` is 0 (end) and packet 1 points to it
//! with tag 1, because a tagged pointer of index 0 and tag 0 would be the null pointer.
//!
//! Messages (`devhcmessages.cpp`): word 0 of a slot is a descriptor: bit 0 BEGIN, bit 1 END,
//! bits 7:5 the number of data words that follow (0..=7), bits 63:8 a message id. BEGIN
//! allocates an id (reusing freed ones, last freed first) and returns the descriptor with
//! BEGIN cleared and the id set in word 0; every packet appends its data words to the
//! message; END runs the service on the whole message and returns its result in word 0.

use super::devmem::SharedHeap;
use super::{printf, DispatchOutput, ServiceError, SetupError};
use crate::memory::DeviceMemory;

/// Bytes of one packet header.
const HEADER_BYTES: u64 = 24;
/// Bytes of one packet payload: 64 lanes x 8 words.
const PAYLOAD_BYTES: u64 = 64 * 8 * 8;
/// Where the doorbell signal sits in the allocation (after the 48-byte buffer struct).
const SIGNAL_OFFSET: u64 = 64;
/// Where the headers start.
const HEADERS_OFFSET: u64 = 128;
/// `AMD_SIGNAL_KIND_USER` (hsa `amd_hsa_signal.h`): a signal the host reads directly.
const SIGNAL_KIND_USER: u64 = 1;

/// Service ids (`rocclr/device/devhcmessages.hpp`, mirrored in ockl's `services.cl`).
pub const SERVICE_FUNCTION_CALL: u32 = 1;
/// printf and fprintf.
pub const SERVICE_PRINTF: u32 = 2;
/// Device memory allocation for the device-libs heap.
pub const SERVICE_DEVMEM: u32 = 3;
/// Address sanitizer reports.
pub const SERVICE_SANITIZER: u32 = 4;

/// Descriptor bits of a message packet.
const DESC_BEGIN: u64 = 1;
const DESC_END: u64 = 2;
const DESC_LEN_SHIFT: u32 = 5;
const DESC_ID_SHIFT: u32 = 8;

/// A hostcall buffer placed in device memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Hostcall {
    /// The buffer (what the hidden argument points to).
    pub base: u64,
    headers: u64,
    payloads: u64,
    mask: u64,
}

impl Hostcall {
    /// Allocates and initialises a buffer with `packets` packets (at least 2; the device
    /// libraries assume one per wave that can be resident at once).
    pub fn allocate(mem: &mut DeviceMemory, packets: u32) -> Result<Hostcall, SetupError> {
        let packets = u64::from(packets.max(2));
        let mask = packets.next_power_of_two() - 1;
        let headers_end = HEADERS_OFFSET + packets * HEADER_BYTES;
        let payloads_off = headers_end.div_ceil(64) * 64;
        let size = payloads_off + packets * PAYLOAD_BYTES;
        let base = mem.allocate(size, 4096)?;
        let h = Hostcall {
            base,
            headers: base + HEADERS_OFFSET,
            payloads: base + payloads_off,
            mask,
        };
        let signal = base + SIGNAL_OFFSET;
        mem.store_u64(signal, SIGNAL_KIND_USER)?;
        // Free stack: packet k (k >= 1) links to k - 1, packet 1 to packet 0 with tag 1.
        let mut next = mask + 1;
        mem.store_u64(h.headers, 0)?;
        for k in 1..packets {
            mem.store_u64(h.headers + k * HEADER_BYTES, next)?;
            next = k;
        }
        for (off, v) in [
            (0, h.headers),
            (8, h.payloads),
            (16, signal),
            (24, next),
            (32, 0),
            (40, mask),
        ] {
            mem.store_u64(base + off, v)?;
        }
        Ok(h)
    }

    /// Whether a packet waits on the ready stack (one 8-byte read: the cheap check the
    /// runner makes when a wave of this dispatch sleeps).
    pub fn pending(&self, mem: &DeviceMemory) -> bool {
        mem.load_u64(self.base + 32).is_ok_and(|v| v != 0)
    }

    /// Serves every packet on the ready stack, oldest first (ROCclr walks the stack from
    /// the top; a wave has at most one packet on it, so only the order between waves
    /// differs, and oldest first prints in the order the requests were made). Returns the
    /// number of packets served.
    pub fn serve(
        &self,
        mem: &DeviceMemory,
        messages: &mut Messages,
        out: &mut DispatchOutput,
        heap: &SharedHeap,
    ) -> Result<u32, ServiceError> {
        let mut top = mem.load_u64(self.base + 32)?;
        if top == 0 {
            return Ok(0);
        }
        mem.store_u64(self.base + 32, 0)?;
        let mut stack = Vec::new();
        while top != 0 {
            // A cycle would be a corrupted stack: it cannot have more entries than packets.
            if stack.len() as u64 > self.mask {
                return Err(ServiceError::CorruptStack { top });
            }
            stack.push(top);
            top = mem.load_u64(self.header(top))?;
        }
        let mut slot = [0u64; 8];
        for &p in stack.iter().rev() {
            let header = self.header(p);
            let mut active = mem.load_u64(header + 8)?;
            let service = mem.load_u32(header + 16)?;
            let payload = self.payloads + (p & self.mask) * PAYLOAD_BYTES;
            while active != 0 {
                let lane = u64::from(active.trailing_zeros());
                active &= active - 1;
                let at = payload + lane * 64;
                for (k, w) in slot.iter_mut().enumerate() {
                    *w = mem.load_u64(at + 8 * k as u64)?;
                }
                match service {
                    SERVICE_PRINTF => messages.handle(&mut slot, out)?,
                    SERVICE_DEVMEM => {
                        let mut h = heap.lock().unwrap_or_else(|p| p.into_inner());
                        slot[0] = h
                            .request(slot[0], slot[1])
                            .ok_or(ServiceError::EmptyDevmemRequest)?;
                    }
                    other => return Err(ServiceError::UnknownService { service: other }),
                }
                for (k, w) in slot.iter().enumerate().take(2) {
                    mem.store_u64(at + 8 * k as u64, *w)?;
                }
            }
            let control = mem.load_u32(header + 20)?;
            mem.store_u32(header + 20, control & !1)?;
        }
        Ok(stack.len() as u32)
    }

    fn header(&self, ptr: u64) -> u64 {
        self.headers + (ptr & self.mask) * HEADER_BYTES
    }
}

/// Messages being assembled from hostcall packets (ROCclr's `MessageHandler`).
#[derive(Debug, Default)]
pub(crate) struct Messages {
    /// Message slots by id; `None` when free.
    slots: Vec<Option<Vec<u64>>>,
    /// Freed ids, reused last freed first.
    free: Vec<u64>,
}

impl Messages {
    /// Handles one lane's slot of a message packet; writes its return words into `slot`.
    fn handle(
        &mut self,
        slot: &mut [u64; 8],
        out: &mut DispatchOutput,
    ) -> Result<(), ServiceError> {
        let mut desc = slot[0];
        let id = if desc & DESC_BEGIN != 0 {
            let id = match self.free.pop() {
                Some(id) => id,
                None => {
                    self.slots.push(None);
                    self.slots.len() as u64 - 1
                }
            };
            if let Some(s) = self.slots.get_mut(id as usize) {
                *s = Some(Vec::new());
            }
            desc = (desc & !DESC_BEGIN & ((1 << DESC_ID_SHIFT) - 1)) | id << DESC_ID_SHIFT;
            slot[0] = desc;
            id
        } else {
            desc >> DESC_ID_SHIFT
        };
        let Some(Some(data)) = self.slots.get_mut(id as usize) else {
            return Err(ServiceError::NoMessage { id });
        };
        let len = (desc >> DESC_LEN_SHIFT & 7) as usize;
        data.extend_from_slice(&slot[1..1 + len.min(7)]);
        if desc & DESC_END == 0 {
            return Ok(());
        }
        let data = self.slots[id as usize].take().unwrap_or_default();
        self.free.push(id);
        slot[0] = print(&data, out);
        Ok(())
    }
}

/// ROCclr's `handlePrintf`: word 0 is the control word (bit 0: stderr; any other bit set
/// makes the call fail with -1), then the format string (null-terminated, padded to 8
/// bytes), then the arguments: one word each, strings inline and padded. Returns what
/// `printf` returns on the device.
fn print(data: &[u64], out: &mut DispatchOutput) -> u64 {
    let Some((&control, rest)) = data.split_first() else {
        return u64::MAX;
    };
    if control & !1 != 0 {
        return u64::MAX;
    }
    let mut words = Words { words: rest };
    let Some(fmt) = printf::Args::string(&mut words) else {
        return 0;
    };
    let stream = if control & 1 != 0 {
        &mut out.stderr
    } else {
        &mut out.stdout
    };
    printf::format(&fmt, &mut words, stream) as u64
}

/// A message's words as printf arguments.
struct Words<'a> {
    words: &'a [u64],
}

impl printf::Args for Words<'_> {
    fn int(&mut self) -> Option<u64> {
        let (&w, rest) = self.words.split_first()?;
        self.words = rest;
        Some(w)
    }

    fn float(&mut self) -> Option<f64> {
        self.int().map(f64::from_bits)
    }

    fn string(&mut self) -> Option<Vec<u8>> {
        if self.words.is_empty() {
            return None;
        }
        let mut s = Vec::new();
        let mut used = 0;
        'words: for w in self.words {
            used += 1;
            for b in w.to_le_bytes() {
                if b == 0 {
                    break 'words;
                }
                s.push(b);
            }
        }
        self.words = &self.words[used..];
        Some(s)
    }
}
