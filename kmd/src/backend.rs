//! The seam between the emulated driver and the simulated GPU.
//!
//! The driver tells the GPU side what the hardware would learn from the kernel: which
//! memory is mapped for it and which AQL queues exist (ring, read/write pointers,
//! doorbell). The GPU side (the command processor) reads rings from that memory, runs the
//! packets and signals completion events through [`Events`](crate::Events).
//! [`SocGpu`](crate::SocGpu) is the simulated GPU (the interposer uses it); [`NoGpu`]
//! records queues and runs nothing (for tests of the ioctl layer).

use std::sync::{Arc, Mutex};

use crate::report::Dispatch;
use crate::{Errno, Events};

/// Kind of memory behind a mapping (from the ALLOC_MEMORY_OF_GPU flags).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryKind {
    /// Device memory, backed by the render file at `file_offset`.
    Vram,
    /// Host memory the GPU reaches over the bus, backed by the render file.
    Gtt,
    /// The application's own memory.
    Userptr,
    /// The process's doorbell page, in the kfd file.
    Doorbell,
    /// The HDP flush page, in the kfd file.
    MmioRemap,
}

/// One buffer mapped for the GPU. GPU virtual address == CPU virtual address for what the
/// thunk allocates (the apertures make it use host mmaps), so `va` is also where the
/// client sees it; application memory the thunk registers (USERPTR through
/// hsaKmtRegisterMemory) gets a GPU VA of its own, reserved PROT_NONE on the CPU side,
/// and its pages are at the user address `file_offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    /// The KFD handle of the buffer.
    pub handle: u64,
    /// Virtual address.
    pub va: u64,
    /// Size in bytes.
    pub size: u64,
    /// Where the bytes live.
    pub kind: MemoryKind,
    /// Offset in the backing file (render file for VRAM/GTT, kfd file for doorbell/MMIO);
    /// for USERPTR the user address.
    pub file_offset: u64,
}

/// One user-mode queue as CREATE_QUEUE describes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Queue {
    /// KFD queue id.
    pub id: u32,
    /// `KFD_IOC_QUEUE_TYPE_*`.
    pub queue_type: u32,
    /// Ring buffer address and size in bytes.
    pub ring_base: u64,
    /// Ring size in bytes.
    pub ring_size: u32,
    /// Address of the 64-bit read index (`amd_queue_t.read_dispatch_id` for AQL).
    pub read_ptr: u64,
    /// Address of the 64-bit write index (`amd_queue_t.write_dispatch_id` for AQL).
    pub write_ptr: u64,
    /// Offset of this queue's doorbell in the kfd file.
    pub doorbell_offset: u64,
    /// End-of-pipe buffer.
    pub eop_buffer: u64,
    /// Context save/restore area.
    pub ctx_save_restore: u64,
    /// Percentage and priority as given.
    pub percentage: u32,
    /// Priority 0..=15.
    pub priority: u32,
}

/// What the simulated GPU must hear from the driver.
pub trait GpuBackend: Send + Sync + std::fmt::Debug {
    /// `region` became accessible to the GPU.
    fn map(&self, region: &Region);
    /// `region` is no longer accessible to the GPU.
    fn unmap(&self, region: &Region);
    /// A queue was created; the GPU starts watching it. An error is returned to the client.
    fn create_queue(&self, queue: &Queue) -> Result<(), Errno>;
    /// A queue's ring, percentage or priority changed.
    fn update_queue(&self, queue: &Queue);
    /// A queue was destroyed; the GPU stops watching it.
    fn destroy_queue(&self, id: u32);
    /// The GPU clock counter (GET_CLOCK_COUNTERS).
    fn clock_counter(&self) -> u64;
    /// Called once by [`Kfd::new`](crate::Kfd::new): the events the GPU signals when a
    /// completion signal with an event mailbox reaches zero.
    fn attach(&self, events: Arc<Events>);
    /// Every dispatch the GPU has completed so far, in completion order (for
    /// `gfxsim exec --report`).
    fn dispatches(&self) -> Vec<Dispatch>;
    /// Engine events so far, and the time spent running the model and around it (for
    /// the `--report` summary); zeros for a backend that simulates nothing.
    fn stats(&self) -> GpuStats {
        GpuStats::default()
    }
    /// The client changes the protection of host memory `addr..addr + len` or unmaps it:
    /// `accessible` false before the change when the pages stop being readable and
    /// writable, true after it when they are again. Registered USERPTR pages that are not
    /// accessible must not be touched by the GPU (its accesses fault instead).
    fn protect_user(&self, _addr: u64, _len: u64, _accessible: bool) {}
}

/// What [`GpuBackend::stats`] reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GpuStats {
    /// Engine events handled.
    pub events: u64,
    /// Time spent running the model.
    pub model: std::time::Duration,
    /// Time the GPU side spent on emulation work around the model (polling queues,
    /// records, wake-ups), sleeping excluded.
    pub service: std::time::Duration,
}

/// The backend until the command processor is wired in: keeps the driver's view of
/// mappings and queues (for reports and tests) and executes nothing.
#[derive(Debug, Default)]
pub struct NoGpu {
    state: Mutex<(Vec<Region>, Vec<Queue>)>,
    start: std::sync::OnceLock<std::time::Instant>,
}

impl NoGpu {
    /// The regions mapped now.
    pub fn regions(&self) -> Vec<Region> {
        self.state.lock().map(|s| s.0.clone()).unwrap_or_default()
    }

    /// The queues that exist now.
    pub fn queues(&self) -> Vec<Queue> {
        self.state.lock().map(|s| s.1.clone()).unwrap_or_default()
    }
}

impl GpuBackend for NoGpu {
    fn map(&self, region: &Region) {
        if let Ok(mut s) = self.state.lock() {
            s.0.push(*region);
        }
    }

    fn unmap(&self, region: &Region) {
        if let Ok(mut s) = self.state.lock() {
            s.0.retain(|r| r.handle != region.handle);
        }
    }

    fn create_queue(&self, queue: &Queue) -> Result<(), Errno> {
        if let Ok(mut s) = self.state.lock() {
            s.1.push(*queue);
        }
        Ok(())
    }

    fn update_queue(&self, queue: &Queue) {
        if let Ok(mut s) = self.state.lock() {
            if let Some(q) = s.1.iter_mut().find(|q| q.id == queue.id) {
                *q = *queue;
            }
        }
    }

    fn destroy_queue(&self, id: u32) {
        if let Ok(mut s) = self.state.lock() {
            s.1.retain(|q| q.id != id);
        }
    }

    fn attach(&self, _events: Arc<Events>) {}

    fn dispatches(&self) -> Vec<Dispatch> {
        Vec::new()
    }

    fn clock_counter(&self) -> u64 {
        // gfx9's GPU timestamp runs at the 100 MHz reference clock. ASSUMPTION: without
        // a simulated clock, host time stands in for it.
        let start = *self.start.get_or_init(std::time::Instant::now);
        (start.elapsed().as_nanos() / 10) as u64
    }
}
