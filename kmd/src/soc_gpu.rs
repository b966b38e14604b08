//! The GPU side of the emulated KFD: a [`GpuBackend`] backed by the gpu-model SoC, whose
//! command processor reads the client's real AQL rings from memory.
//!
//! - Memory: GPU VA == CPU VA (the apertures make the thunk use host mmaps). USERPTR
//!   buffers are the application's own memory and are mapped into the SoC in place. VRAM
//!   and GTT buffers live in the render memfd at `file_offset`; the backend maps that range
//!   of the memfd shared into its own address space and gives the SoC that view, so a
//!   VRAM|PUBLIC buffer the client mapped shared sees every GPU write, and non-public VRAM
//!   (the client only has a PROT_NONE map) still has bytes. Doorbell and MMIO pages are not
//!   device memory.
//! - Queues: an AQL queue becomes a SoC queue whose indices are the client's
//!   `amd_queue_t.read_dispatch_id` / `write_dispatch_id` (the addresses CREATE_QUEUE
//!   gives). The client rings its doorbell with a plain store and no syscall, and the first
//!   doorbell value is 0 (KFD-NOTES), so the service thread polls: a queue has work when
//!   its write index is beyond its read index or its doorbell changed.
//! - The service thread runs the model until it is idle whenever a queue has work, then
//!   backs off (sleeps from 20 µs doubling up to 1 ms) while nothing progresses, so an
//!   idle client costs almost no CPU.
//! - Completion: the SoC's packet processor decrements the completion signal in host
//!   memory and writes `event_id` to its mailbox; its event sink calls
//!   [`Events::signal`], which wakes the client's WAIT_EVENTS.
//! - A packet the model cannot execute stops its queue (the HSA queue-error state) and is
//!   reported on stderr; a dispatch that faults completes with the fault recorded. Nothing
//!   reaches the host process as a panic.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use gpu_model::config::GpuConfig;
use gpu_model::soc::queue::{
    dispatch_key, PACKET_KERNEL_DISPATCH, SIGNAL_EVENT_ID, SIGNAL_EVENT_MAILBOX,
};
use gpu_model::soc::{QueueDesc, QueueEvent, QueueId, Soc, SocError, SocOptions};

use crate::abi;
use crate::backend::{GpuBackend, GpuStats, MemoryKind, Queue, Region};
use crate::kfd::{DOORBELL_OFFSET, DOORBELL_PAGE};
use crate::report::Dispatch;
use crate::{Errno, Events};

/// `amd_queue_t.write_dispatch_id` offset: the queue structure starts this far before
/// the write pointer CREATE_QUEUE names (KFD-NOTES).
const AMD_QUEUE_WRITE_DISPATCH_ID: u64 = 0x38;
/// Shortest and longest sleep of the idle service thread.
const IDLE_MIN: Duration = Duration::from_micros(20);
const IDLE_MAX: Duration = Duration::from_millis(1);

/// Why the SoC backend could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SocGpuError {
    /// The preset does not exist or does not build.
    #[error("gpu preset `{preset}`: {reason}")]
    Preset {
        /// The preset name.
        preset: String,
        /// What is wrong.
        reason: String,
    },
    /// The doorbell page of the kfd file cannot be mapped.
    #[error("mapping the doorbell page of the kfd file: {0}")]
    Doorbell(std::io::Error),
}

/// A region the SoC sees, and the mapping the backend made for it (0: none, the client's
/// own memory).
#[derive(Debug, Clone, Copy)]
struct Mapped {
    va: u64,
    own: usize,
    len: u64,
}

/// A queue the SoC watches.
#[derive(Debug, Clone, Copy)]
struct Watched {
    soc: QueueId,
    desc: QueueDesc,
    /// Last doorbell value seen.
    doorbell: u64,
    /// The queue's error was reported.
    reported: bool,
    /// Packets before this index were consumed and their signals woken.
    consumed: u64,
}

/// What a dispatch packet said, kept until the dispatch completes (the packet processor
/// sets consumed slots back to INVALID).
#[derive(Debug, Clone)]
struct Launched {
    kernel: String,
    grid: [u32; 3],
    workgroup: [u32; 3],
    /// The completion signal (0: none).
    signal: u64,
}

struct State {
    soc: Soc,
    regions: BTreeMap<u64, Mapped>,
    /// The client may register the same pages in several buffers (ROCr registers
    /// sub-ranges of blocks it registered).
    /// USERPTR buffers by handle: GPU address, length, and the client's own address of
    /// the pages (the thunk registers application memory at a GPU VA of its own:
    /// ALLOC_MEMORY_OF_GPU's `va_addr` is the GPU address, `mmap_offset` the user pointer;
    /// the two are equal only for the memory the thunk allocates itself).
    user: BTreeMap<u64, UserRange>,
    /// The union of `user`, as mapped in the SoC.
    user_mapped: Vec<UserRange>,
    queues: BTreeMap<u32, Watched>,
    launched: BTreeMap<u64, Launched>,
    /// Kernel names by descriptor address (forgotten when any buffer is unmapped: a
    /// code object may be unloaded and another loaded at the same address).
    names: BTreeMap<u64, String>,
    dispatches: Vec<Dispatch>,
    /// Completions of the SoC already turned into records.
    seen: usize,
    /// Host ranges of USERPTR pages the client made inaccessible (mprotect, munmap)
    /// while registered: left out of the SoC's mappings, so GPU accesses fault.
    blocked: Vec<(u64, u64)>,
    /// Time spent in `Soc::run`.
    model: Duration,
    /// Time the service thread spent polling and recording, the model excluded.
    service: Duration,
}

struct Shared {
    state: Mutex<State>,
    /// Host address ranges of the registered USERPTR buffers, for a check of the
    /// client's mprotect/munmap that needs no `state` lock (the backend's own munmaps run
    /// under it). Never held while taking `state`.
    user_hosts: Mutex<Vec<(u64, u64)>>,
    events: OnceLock<Arc<Events>>,
    render_fd: i32,
    /// The doorbell page of the kfd file, mapped shared read-only.
    doorbells: usize,
    stop: AtomicBool,
    start: std::time::Instant,
}

/// The simulated GPU behind the emulated KFD.
pub struct SocGpu {
    shared: Arc<Shared>,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl std::fmt::Debug for SocGpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SocGpu").finish_non_exhaustive()
    }
}

impl SocGpu {
    /// The GPU of `preset` (`mi210`, `mi250x`: gfx90a, what Debian's ROCr accepts), with
    /// VRAM and GTT in `render_fd` and the doorbell page in `kfd_fd` (the memfds behind the
    /// client's fake device fds). Starts the service thread.
    pub fn new(preset: &str, render_fd: i32, kfd_fd: i32) -> Result<Self, SocGpuError> {
        let bad = |reason: String| SocGpuError::Preset {
            preset: preset.into(),
            reason,
        };
        let config = GpuConfig::preset(preset).map_err(|e| bad(e.to_string()))?;
        let soc = Soc::new(&config, &SocOptions::default()).map_err(|e| bad(e.to_string()))?;
        // SAFETY: a fresh shared read-only mapping of our own memfd; nothing else uses
        // the address.
        let doorbells = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                DOORBELL_PAGE as usize,
                libc::PROT_READ,
                libc::MAP_SHARED,
                kfd_fd,
                DOORBELL_OFFSET as libc::off_t,
            )
        };
        if doorbells == libc::MAP_FAILED {
            return Err(SocGpuError::Doorbell(std::io::Error::last_os_error()));
        }
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                soc,
                regions: BTreeMap::new(),
                user: BTreeMap::new(),
                user_mapped: Vec::new(),
                queues: BTreeMap::new(),
                launched: BTreeMap::new(),
                names: BTreeMap::new(),
                dispatches: Vec::new(),
                seen: 0,
                blocked: Vec::new(),
                model: Duration::ZERO,
                service: Duration::ZERO,
            }),
            user_hosts: Mutex::new(Vec::new()),
            events: OnceLock::new(),
            render_fd,
            doorbells: doorbells as usize,
            stop: AtomicBool::new(false),
            start: std::time::Instant::now(),
        });
        let s = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("gfxsim-gpu".into())
            .spawn(move || service(&s))
            .map_err(|e| bad(format!("cannot start the service thread: {e}")))?;
        Ok(Self {
            shared,
            thread: Mutex::new(Some(thread)),
        })
    }

    /// Stops the service thread (it finishes the run in progress).
    pub fn stop(&self) {
        self.shared.stop.store(true, Ordering::Release);
        let t = self.thread.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(t) = t {
            let _ = t.join();
        }
    }
}

impl Drop for SocGpu {
    fn drop(&mut self) {
        self.stop();
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The doorbell value of kfd queue `id`.
    fn doorbell(&self, id: u32) -> u64 {
        let off = u64::from(id) * 8;
        if off + 8 > DOORBELL_PAGE {
            return 0;
        }
        // SAFETY: inside the doorbell page mapped for the backend's lifetime; the client
        // stores to it concurrently, so the read is atomic.
        unsafe { AtomicU64::from_ptr((self.doorbells + off as usize) as *mut u64) }
            .load(Ordering::Acquire)
    }
}

fn read_u64(soc: &Soc, addr: u64) -> Option<u64> {
    let mut b = [0u8; 8];
    soc.read(addr, &mut b).ok()?;
    Some(u64::from_le_bytes(b))
}

/// The GPU clock counter: counts of the GPU timestamp clock, the one the packet processor
/// writes signal timestamps in (`queue::TIMESTAMP_PERIOD_PS`), since the backend started.
/// ASSUMPTION: the client compares the counter with host time (timeouts), so host time
/// stands in for it rather than the simulated clock; profiling intervals come from the
/// signal timestamps, which advance with simulated time (`Soc::set_timestamp_origin`).
fn gpu_counter(start: std::time::Instant) -> u64 {
    let ps = start.elapsed().as_nanos() * 1000;
    // Starts at 1: ROCr takes a zero timestamp for one never written.
    1 + (ps / u128::from(gpu_model::soc::queue::TIMESTAMP_PERIOD_PS)) as u64
}

/// The service thread: runs the model while queues have work, backs off while idle.
fn service(shared: &Shared) {
    let mut idle = IDLE_MIN;
    while !shared.stop.load(Ordering::Acquire) {
        let progressed = {
            let mut st = shared.lock();
            let t = std::time::Instant::now();
            let model = st.model;
            let p = poll(shared, &mut st);
            // What the poll took beyond the model's run is emulation work.
            let model_run = st.model.saturating_sub(model);
            st.service += t.elapsed().saturating_sub(model_run);
            p
        };
        if progressed {
            idle = IDLE_MIN;
        } else {
            std::thread::sleep(idle);
            idle = (idle * 2).min(IDLE_MAX);
        }
    }
}

/// Looks at every queue; when one has work, runs the model until it is idle. True when
/// something progressed (a packet consumed or a dispatch completed).
fn poll(shared: &Shared, st: &mut State) -> bool {
    let mut rang = false;
    let mut before = Vec::new();
    let ids: Vec<u32> = st.queues.keys().copied().collect();
    for id in ids {
        let Some(mut w) = st.queues.get(&id).copied() else {
            continue;
        };
        let bell = shared.doorbell(id);
        let (Some(write), Some(read)) = (
            read_u64(&st.soc, w.desc.write_index),
            read_u64(&st.soc, w.desc.read_index),
        ) else {
            continue;
        };

        if write <= read && bell == w.doorbell {
            continue;
        }
        w.doorbell = bell;
        st.queues.insert(id, w);
        note_packets(st, &w, read, write);
        before.push((id, read));
        if st.soc.ring_doorbell(Some(w.soc)).is_ok() {
            rang = true;
        }
    }
    if !rang {
        return false;
    }
    let t = std::time::Instant::now();
    // Signal timestamps continue from the clock counter the client reads (ROCr checks
    // that they are not before its first sample); their differences are simulated time.
    st.soc.set_timestamp_origin(gpu_counter(shared.start));
    if let Err(e) = st.soc.run() {
        eprintln!("gfxsim gpu: simulation error: {e}");
    }
    st.model += t.elapsed();
    let completed = collect(shared, st) + wake_consumed(shared, st);
    let mut progressed = completed > 0;
    for (id, read) in before {
        let Some(w) = st.queues.get(&id).copied() else {
            continue;
        };
        if read_u64(&st.soc, w.desc.read_index).is_some_and(|r| r != read) {
            progressed = true;
        }
        if !w.reported {
            if let Some(e) = st.soc.queue_error(w.soc) {
                eprintln!("gfxsim gpu: queue {id} stopped: {e}");
                if let Some(q) = st.queues.get_mut(&id) {
                    q.reported = true;
                }
            }
        }
    }
    progressed
}

/// Wakes the waiters of every packet the packet processor consumed since the last look
/// (the model decremented their completion signals; see [`wake`] for why a wake is
/// needed). All packet types keep the completion signal at +56, and consuming a packet
/// only marks its header INVALID, so the slot still names it. A run ends with the GPU
/// idle: a consumed packet is complete. Returns how many packets there were.
fn wake_consumed(shared: &Shared, st: &mut State) -> usize {
    let mut n = 0;
    let ids: Vec<u32> = st.queues.keys().copied().collect();
    for id in ids {
        let Some(w) = st.queues.get(&id).copied() else {
            continue;
        };
        let Some(read) = read_u64(&st.soc, w.desc.read_index) else {
            continue;
        };
        // At most one ring's worth (older slots were reused).
        let first = w.consumed.max(read.saturating_sub(w.desc.slots()));
        for index in first..read {
            if let Some(signal) = read_u64(&st.soc, w.desc.slot(index) + 56) {
                wake(shared, &st.soc, signal);
            }
            n += 1;
        }
        if let Some(q) = st.queues.get_mut(&id) {
            q.consumed = read.max(q.consumed);
        }
    }
    n
}

/// Remembers what the kernel-dispatch packets in `[read, write)` of queue `w` say.
fn note_packets(st: &mut State, w: &Watched, read: u64, write: u64) {
    // At most one ring's worth.
    let first = read.max(write.saturating_sub(w.desc.slots()));
    for index in first..write {
        let key = dispatch_key(w.soc.0, index);
        if st.launched.contains_key(&key) {
            continue;
        }
        let mut p = [0u8; 64];
        if st.soc.read(w.desc.slot(index), &mut p).is_err() || p[0] != PACKET_KERNEL_DISPATCH {
            continue;
        }
        let l = describe(st, &p);
        st.launched.insert(key, l);
    }
}

/// What dispatch packet `p` says.
fn describe(st: &mut State, p: &[u8; 64]) -> Launched {
    {
        let u16_at = |o: usize| u32::from(u16::from_le_bytes([p[o], p[o + 1]]));
        let u32_at = |o: usize| u32::from_le_bytes([p[o], p[o + 1], p[o + 2], p[o + 3]]);
        let kernel_object = u64::from_le_bytes(p[32..40].try_into().unwrap_or([0; 8]));
        let kernel = match st.names.get(&kernel_object) {
            Some(n) => n.clone(),
            None => {
                // ROCr loads code objects itself: the name comes from the dynamic symbols
                // of the image loaded around the descriptor (crate::symbols). Only inside
                // the VRAM/GTT buffer holding the descriptor (ROCr loads a dGPU's code
                // objects into VRAM): those are the backend's own mappings, always
                // readable, unlike the client's USERPTR pages, which it may protect.
                let soc = &st.soc;
                let buffer = st
                    .regions
                    .values()
                    .find(|m| m.own != 0 && kernel_object >= m.va && kernel_object - m.va < m.len)
                    .copied();
                let read = |a: u64, b: &mut [u8]| {
                    buffer.is_some_and(|m| {
                        a >= m.va && (a - m.va).saturating_add(b.len() as u64) <= m.len
                    }) && soc.read(a, b).is_ok()
                };
                let n = crate::symbols::kernel_name(&read, kernel_object)
                    .unwrap_or_else(|| format!("kernel@{kernel_object:#x}"));
                st.names.insert(kernel_object, n.clone());
                n
            }
        };
        Launched {
            kernel,
            grid: [u32_at(12), u32_at(16), u32_at(20)],
            workgroup: [u16_at(4), u16_at(6), u16_at(8)],
            signal: u64::from_le_bytes(p[56..64].try_into().unwrap_or([0; 8])),
        }
    }
}

/// Wakes the waiters of completion signal `signal` whose `amd_signal_t` has no event
/// mailbox. Debian's thunk 5.2.3 leaves ROCr's interrupt signals with
/// `event_mailbox_ptr` 0 but their KFD event id at +24 (measured: kind 1, mailbox 0,
/// event_id 3), and ROCr sleeps in WAIT_EVENTS on that event. Real KFD wakes signal
/// events from the CP's end-of-pipe interrupt; signalling the signal's own event is that
/// interrupt. A wake for a signal still above zero is harmless: ROCr re-reads the value.
fn wake(shared: &Shared, soc: &Soc, signal: u64) {
    if signal == 0 {
        return;
    }
    let mut id = [0u8; 4];
    let mailbox = read_u64(soc, signal + SIGNAL_EVENT_MAILBOX);
    if mailbox != Some(0) || soc.read(signal + SIGNAL_EVENT_ID, &mut id).is_err() {
        return;
    }
    let id = u32::from_le_bytes(id);
    if let (Some(events), true) = (shared.events.get(), id != 0) {
        let _ = events.signal(id);
    }
}

/// The dispatch packet of completion key `key` (queue and index, `dispatch_key`), read
/// back from its ring slot.
fn unnoted(st: &mut State, key: u64) -> Option<Launched> {
    let queue = (key >> 44) as u32;
    let index = (key & ((1 << 44) - 1)).checked_sub(1)?;
    let w = st.queues.values().find(|w| w.soc.0 == queue).copied()?;
    let mut p = [0u8; 64];
    st.soc.read(w.desc.slot(index), &mut p).ok()?;
    Some(describe(st, &p))
}

/// Turns new completions into dispatch records; returns how many there were.
fn collect(shared: &Shared, st: &mut State) -> usize {
    let all = st.soc.completions();
    let new: Vec<_> = all[st.seen.min(all.len())..].to_vec();
    st.seen = all.len();
    for c in &new {
        if let Some(f) = &c.fault {
            eprintln!("gfxsim gpu: dispatch {:#x} faulted: {f:?}", c.seq);
        }
        let l = match st.launched.remove(&c.seq) {
            Some(l) => l,
            // A packet the client wrote while the model ran, consumed before it was
            // noted: consuming only marked its header INVALID, the slot still says the
            // rest (the ring is not reused before the read index passes it).
            None => unnoted(st, c.seq).unwrap_or(Launched {
                kernel: format!("dispatch@{:#x}", c.seq),
                grid: [0; 3],
                workgroup: [0; 3],
                signal: 0,
            }),
        };
        wake(shared, &st.soc, l.signal);
        st.dispatches.push(Dispatch {
            kernel: l.kernel,
            grid: l.grid,
            workgroup: l.workgroup,
            // Each dispatch's own count, also when several ran at the same time.
            instructions: c.instructions,
            ticks: c.completed.0.saturating_sub(c.submitted.0),
        });
    }
    new.len()
}

/// A USERPTR range: GPU addresses `start..end` are the client's bytes at
/// `host + (gpu - start)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct UserRange {
    start: u64,
    end: u64,
    host: u64,
}

/// Maps the union of the USERPTR buffers into the SoC (the application's memory, in
/// place: at its GPU address, reading the client's pages), changing only the ranges whose
/// extent changed. Ranges merge when they touch and map the same host bytes.
fn sync_user(st: &mut State) {
    let mut ranges: Vec<UserRange> = st.user.values().copied().collect();
    ranges.sort_unstable_by_key(|r| (r.start, r.end));
    let mut union: Vec<UserRange> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match union.last_mut() {
            Some(last)
                if r.start <= last.end
                    && r.host.wrapping_sub(r.start) == last.host.wrapping_sub(last.start) =>
            {
                last.end = last.end.max(r.end);
            }
            _ => union.push(r),
        }
    }
    // Pages the client made inaccessible are left out: GPU accesses to them fault
    // instead of touching them (which would fault the host process).
    let union: Vec<UserRange> = union
        .into_iter()
        .flat_map(|r| {
            let host = subtract(vec![(r.host, r.host + (r.end - r.start))], &st.blocked);
            host.into_iter().map(move |(h0, h1)| UserRange {
                start: r.start + (h0 - r.host),
                end: r.start + (h1 - r.host),
                host: h0,
            })
        })
        .collect();
    let old = std::mem::take(&mut st.user_mapped);
    for r in old.iter().filter(|r| !union.contains(r)) {
        if let Err(err) = st.soc.unmap_host(r.start) {
            eprintln!(
                "gfxsim gpu: unmapping user memory {:#x}..{:#x}: {err}",
                r.start, r.end
            );
        }
    }
    for &r in &union {
        if old.contains(&r) {
            st.user_mapped.push(r);
            continue;
        }
        // SAFETY: USERPTR memory is the client's, valid while a buffer registers it
        // (UNMAP/FREE come before the client releases it); the model only touches the
        // bytes atomically.
        match unsafe { st.soc.map_host(r.start, r.host as *mut u8, r.end - r.start) } {
            Ok(()) => st.user_mapped.push(r),
            Err(err) => eprintln!(
                "gfxsim gpu: cannot map user memory {:#x}..{:#x} (host {:#x}): {err}",
                r.start, r.end, r.host
            ),
        }
    }
}

/// `ranges` without the parts inside any of `cuts` (half-open intervals).
fn subtract(mut ranges: Vec<(u64, u64)>, cuts: &[(u64, u64)]) -> Vec<(u64, u64)> {
    for &(c0, c1) in cuts {
        ranges = ranges
            .into_iter()
            .flat_map(|(a, b)| {
                if c1 <= a || b <= c0 {
                    return vec![(a, b)];
                }
                [(a, c0.min(b)), (c1.max(a), b)]
                    .into_iter()
                    .filter(|(x, y)| x < y)
                    .collect()
            })
            .collect();
    }
    ranges
}

/// Refreshes the lock-free copy of the registered USERPTR host ranges.
fn note_user_hosts(shared: &Shared, st: &State) {
    let hosts: Vec<(u64, u64)> = st
        .user
        .values()
        .map(|r| (r.host, r.host.saturating_add(r.end - r.start)))
        .collect();
    *shared.user_hosts.lock().unwrap_or_else(|p| p.into_inner()) = hosts;
}

fn errno(e: &SocError) -> Errno {
    eprintln!("gfxsim gpu: {e}");
    Errno::Inval
}

impl GpuBackend for SocGpu {
    fn map(&self, region: &Region) {
        let (ptr, own) = match region.kind {
            MemoryKind::Userptr => {
                let mut st = self.shared.lock();
                // The user pointer is the buffer's `file_offset` (kfd.rs).
                let r = UserRange {
                    start: region.va,
                    end: region.va.saturating_add(region.size),
                    host: region.file_offset,
                };
                st.user.insert(region.handle, r);
                // Registering pages means they are valid now (a range blocked before was
                // unmapped and mapped again).
                let cut = [(r.host, r.host.saturating_add(r.end - r.start))];
                st.blocked = subtract(std::mem::take(&mut st.blocked), &cut);
                note_user_hosts(&self.shared, &st);
                sync_user(&mut st);
                return;
            }
            MemoryKind::Vram | MemoryKind::Gtt => {
                // SAFETY: a fresh shared mapping of our own memfd at an offset the driver
                // handed out (inside the sparse file).
                let p = unsafe {
                    libc::mmap(
                        std::ptr::null_mut(),
                        region.size as usize,
                        libc::PROT_READ | libc::PROT_WRITE,
                        libc::MAP_SHARED,
                        self.shared.render_fd,
                        region.file_offset as libc::off_t,
                    )
                };
                if p == libc::MAP_FAILED {
                    eprintln!(
                        "gfxsim gpu: cannot map buffer {:#x} ({} bytes at render offset {:#x}): {}",
                        region.va,
                        region.size,
                        region.file_offset,
                        std::io::Error::last_os_error()
                    );
                    return;
                }
                (p as usize, p as usize)
            }
            MemoryKind::Doorbell | MemoryKind::MmioRemap => return,
        };
        let mut st = self.shared.lock();
        // SAFETY: our own mapping, alive until `unmap`; the model only touches the bytes
        // atomically.
        let r = unsafe { st.soc.map_host(region.va, ptr as *mut u8, region.size) };
        match r {
            Ok(()) => {
                st.regions.insert(
                    region.handle,
                    Mapped {
                        va: region.va,
                        own,
                        len: region.size,
                    },
                );
            }
            Err(e) => {
                eprintln!("gfxsim gpu: cannot map buffer {:#x}: {e}", region.va);
                if own != 0 {
                    // SAFETY: the mapping made above, used by nothing.
                    unsafe { libc::munmap(own as *mut libc::c_void, region.size as usize) };
                }
            }
        }
    }

    fn unmap(&self, region: &Region) {
        let mut st = self.shared.lock();
        st.names.clear();
        if st.user.remove(&region.handle).is_some() {
            note_user_hosts(&self.shared, &st);
            sync_user(&mut st);
            return;
        }
        let Some(m) = st.regions.remove(&region.handle) else {
            return;
        };
        if let Err(e) = st.soc.unmap_host(m.va) {
            eprintln!("gfxsim gpu: unmapping buffer {:#x}: {e}", m.va);
        }
        if m.own != 0 {
            // SAFETY: our mapping, no longer known to the SoC (and the lock keeps the
            // service thread out of a run).
            unsafe { libc::munmap(m.own as *mut libc::c_void, m.len as usize) };
        }
    }

    fn create_queue(&self, queue: &Queue) -> Result<(), Errno> {
        if queue.queue_type != abi::queue_type::COMPUTE_AQL {
            // PM4 compute queues are accepted as KFD does, but nothing reads them.
            eprintln!(
                "gfxsim gpu: queue {} is a PM4 queue: its packets are not executed",
                queue.id
            );
            return Ok(());
        }
        let desc = QueueDesc {
            ring: queue.ring_base,
            ring_bytes: u64::from(queue.ring_size),
            read_index: queue.read_ptr,
            write_index: queue.write_ptr,
            doorbell: queue.id + 1,
            queue_address: queue.write_ptr.wrapping_sub(AMD_QUEUE_WRITE_DISPATCH_ID),
        };
        let doorbell = self.shared.doorbell(queue.id);
        let mut st = self.shared.lock();
        let soc = st.soc.create_queue(desc).map_err(|e| errno(&e))?;
        let consumed = read_u64(&st.soc, desc.read_index).unwrap_or(0);
        st.queues.insert(
            queue.id,
            Watched {
                soc,
                desc,
                doorbell,
                reported: false,
                consumed,
            },
        );
        Ok(())
    }

    fn update_queue(&self, queue: &Queue) {
        let st = self.shared.lock();
        let Some(w) = st.queues.get(&queue.id).copied() else {
            return;
        };
        if w.desc.ring == queue.ring_base && w.desc.ring_bytes == u64::from(queue.ring_size) {
            return;
        }
        drop(st);
        self.destroy_queue(queue.id);
        if let Err(e) = self.create_queue(queue) {
            eprintln!(
                "gfxsim gpu: queue {} cannot take its new ring: {e}",
                queue.id
            );
        }
    }

    fn destroy_queue(&self, id: u32) {
        let mut st = self.shared.lock();
        let Some(w) = st.queues.remove(&id) else {
            return;
        };
        // Dispatches in flight finish first (the SoC refuses to drop a busy queue).
        if let Err(SocError::QueueBusy(_)) = st.soc.destroy_queue(w.soc) {
            st.soc.set_timestamp_origin(gpu_counter(self.shared.start));
            if let Err(e) = st.soc.run() {
                eprintln!("gfxsim gpu: simulation error: {e}");
            }
            collect(&self.shared, &mut st);
            if let Err(e) = st.soc.destroy_queue(w.soc) {
                eprintln!("gfxsim gpu: destroying queue {id}: {e}");
            }
        }
    }

    fn clock_counter(&self) -> u64 {
        gpu_counter(self.shared.start)
    }

    fn attach(&self, events: Arc<Events>) {
        if self.shared.events.set(Arc::clone(&events)).is_err() {
            return;
        }
        let sink = Arc::new(move |e: &QueueEvent| match e {
            QueueEvent::Signal { event_id, .. } => {
                // An id the client already destroyed is not an error of the GPU.
                let _ = events.signal(*event_id);
            }
            QueueEvent::Error(e) => eprintln!("gfxsim gpu: {e}"),
            _ => {}
        });
        self.shared.lock().soc.set_event_sink(Some(sink));
    }

    fn dispatches(&self) -> Vec<Dispatch> {
        self.shared.lock().dispatches.clone()
    }

    fn protect_user(&self, addr: u64, len: u64, accessible: bool) {
        let end = addr.saturating_add(len);
        let touches = self
            .shared
            .user_hosts
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .any(|&(a, b)| a < end && addr < b);
        if !touches {
            return;
        }
        // Waits for a run in progress: the model may be using the pages right now.
        let mut st = self.shared.lock();
        if accessible {
            st.blocked = subtract(std::mem::take(&mut st.blocked), &[(addr, end)]);
        } else {
            st.blocked.push((addr, end));
        }
        sync_user(&mut st);
    }

    fn stats(&self) -> GpuStats {
        let st = self.shared.lock();
        GpuStats {
            events: st.soc.simulation().report().engine.events,
            model: st.model,
            service: st.service,
        }
    }
}
