//! The emulated `/dev/kfd`: one process's driver state and its ioctl handlers.
//!
//! [`Kfd::ioctl`] takes the raw request and argument pointer the client passed, copies
//! the argument in through [`UserMemory`] (never dereferencing it), validates it the way
//! `kfd_chardev.c` does and answers with the errno the real driver gives. Like the driver
//! it takes the argument size from the request and zero-extends a short argument.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::abi::{self, mem_flags as mf, nr, Pod};
use crate::backend::{GpuBackend, MemoryKind, Queue, Region};
use crate::events::Events;
use crate::topology::GpuNode;
use crate::user::{UserMemory, USER_VA_END};
use crate::Errno;

/// Where the doorbell page lives in the kfd file. The thunk 5.2.3 masks the first
/// queue's doorbell offset with `~(size - 1)` while `size` is still 0 (a u32), i.e. with
/// 0xFFFFFFFF00000000, so the page offset must sit in bits >= 32 (KFD-NOTES).
pub const DOORBELL_OFFSET: u64 = 1 << 32;
/// Doorbell page size on gfx9: 1024 doorbells of 8 bytes.
pub const DOORBELL_PAGE: u64 = 8192;
/// Where the HDP flush (MMIO remap) page lives in the kfd file.
pub const MMIO_OFFSET: u64 = DOORBELL_OFFSET + (1 << 20);
/// Size the kfd file must have.
pub const KFD_FILE_SIZE: u64 = MMIO_OFFSET + 4096;
/// VRAM buffers are placed in the render file from here.
pub const VRAM_FILE_BASE: u64 = 1 << 36;
/// GTT buffers are placed in the render file from here.
pub const GTT_FILE_BASE: u64 = 1 << 42;
/// Size the render file must have (sparse).
pub const RENDER_FILE_SIZE: u64 = 1 << 44;

const PAGE: u64 = 4096;
/// `max_num_of_queues_per_process` of KFD.
const MAX_QUEUES: u32 = 1024;
/// Larger WAIT_EVENTS arrays are refused (the driver's allocation would fail).
const MAX_WAIT_EVENTS: u32 = 1 << 16;

/// KFD ABI version the Debian thunk was built against.
pub const VERSION: (u32, u32) = (1, 8);

#[derive(Debug, Clone, Copy)]
struct Alloc {
    region: Region,
    mapped: bool,
}

#[derive(Debug)]
struct State {
    vm_fd: Option<i32>,
    render_fds: Vec<i32>,
    allocs: BTreeMap<u64, Alloc>,
    next_id: u32,
    vram_used: u64,
    vram_next: u64,
    gtt_next: u64,
    doorbell_allocated: bool,
    event_page: Option<u64>,
    queues: BTreeMap<u32, Queue>,
    xnack: bool,
    scratch_va: u64,
    trap: (u64, u64),
}

/// One process's emulated KFD.
#[derive(Debug)]
pub struct Kfd {
    gpu: GpuNode,
    /// The process that opened the device.
    owner: u32,
    state: Mutex<State>,
    events: Arc<Events>,
    backend: Arc<dyn GpuBackend>,
    /// Nanoseconds spent in ioctl handlers, blocking WAIT_EVENTS excluded.
    ioctl_ns: std::sync::atomic::AtomicU64,
}

impl Kfd {
    /// The driver for one simulated GPU, talking to `backend`.
    pub fn new(gpu: GpuNode, backend: Arc<dyn GpuBackend>) -> Self {
        let events = Arc::new(Events::default());
        backend.attach(Arc::clone(&events));
        Self {
            gpu,
            owner: std::process::id(),
            state: Mutex::new(State {
                vm_fd: None,
                render_fds: Vec::new(),
                allocs: BTreeMap::new(),
                next_id: 0,
                vram_used: 0,
                vram_next: VRAM_FILE_BASE,
                gtt_next: GTT_FILE_BASE,
                doorbell_allocated: false,
                event_page: None,
                queues: BTreeMap::new(),
                // amdgpu.noretry defaults to 1 on gfx90a: XNACK off.
                xnack: false,
                scratch_va: 0,
                trap: (0, 0),
            }),
            events,
            backend,
            ioctl_ns: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// The simulated GPU.
    pub fn gpu(&self) -> &GpuNode {
        &self.gpu
    }

    /// The GPU side.
    pub fn backend(&self) -> &Arc<dyn GpuBackend> {
        &self.backend
    }

    /// The events, for the GPU side to signal completions.
    pub fn events(&self) -> &Arc<Events> {
        &self.events
    }

    /// Records that `fd` is an open render node of this GPU (ACQUIRE_VM accepts only those).
    pub fn render_fd_opened(&self, fd: i32) {
        self.lock().render_fds.push(fd);
    }

    /// Forgets a closed render fd.
    pub fn render_fd_closed(&self, fd: i32) {
        self.lock().render_fds.retain(|&f| f != fd);
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Handlers validate before they mutate, so a panic cannot leave half an update.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn check_gpu(&self, gpu_id: u32) -> Result<(), Errno> {
        if gpu_id == self.gpu.gpu_id {
            Ok(())
        } else {
            Err(Errno::Inval)
        }
    }

    /// Time spent in ioctl handlers so far, blocking WAIT_EVENTS excluded (it waits for
    /// the GPU rather than emulating anything).
    pub fn ioctl_time(&self) -> std::time::Duration {
        std::time::Duration::from_nanos(self.ioctl_ns.load(std::sync::atomic::Ordering::Relaxed))
    }

    /// Serves one ioctl on the kfd fd: `request` as passed, `arg` the user pointer.
    pub fn ioctl(&self, request: u64, arg: u64, mem: &dyn UserMemory) -> Result<(), Errno> {
        if abi::ioc_nr(request) == nr::WAIT_EVENTS {
            return self.serve(request, arg, mem);
        }
        let t = std::time::Instant::now();
        let r = self.serve(request, arg, mem);
        let ns = u64::try_from(t.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.ioctl_ns
            .fetch_add(ns, std::sync::atomic::Ordering::Relaxed);
        r
    }

    fn serve(&self, request: u64, arg: u64, mem: &dyn UserMemory) -> Result<(), Errno> {
        // kfd_ioctl: "Using KFD FD in wrong process" — a forked child inherits the fd but
        // not the process context (EBADF).
        if std::process::id() != self.owner {
            return Err(Errno::BadFd);
        }
        let size = abi::ioc_size(request);
        match abi::ioc_nr(request) {
            nr::GET_VERSION => self.with(arg, size, mem, |a: &mut abi::GetVersionArgs| {
                a.major_version = VERSION.0;
                a.minor_version = VERSION.1;
                Ok(())
            }),
            nr::GET_PROCESS_APERTURES_NEW => self.with(arg, size, mem, |a| self.apertures(a, mem)),
            nr::ACQUIRE_VM => self.with(arg, size, mem, |a| self.acquire_vm(a)),
            nr::SET_MEMORY_POLICY => {
                self.with(arg, size, mem, |a: &mut abi::SetMemoryPolicyArgs| {
                    self.check_gpu(a.gpu_id)?;
                    // KFD_IOC_CACHE_POLICY_COHERENT (0) or _NONCOHERENT (1).
                    if a.default_policy > 1 || a.alternate_policy > 1 {
                        return Err(Errno::Inval);
                    }
                    Ok(())
                })
            }
            nr::ALLOC_MEMORY_OF_GPU => self.with(arg, size, mem, |a| self.alloc(a, mem)),
            nr::FREE_MEMORY_OF_GPU => self.with(arg, size, mem, |a| self.free(a)),
            nr::MAP_MEMORY_TO_GPU => self.with(arg, size, mem, |a| self.map(a, mem, true)),
            nr::UNMAP_MEMORY_FROM_GPU => self.with(arg, size, mem, |a| self.map(a, mem, false)),
            nr::GET_CLOCK_COUNTERS => {
                self.with(arg, size, mem, |a: &mut abi::GetClockCountersArgs| {
                    // kfd_ioctl_get_clock_counters: an unknown gpu_id reads a zero GPU
                    // clock rather than failing.
                    a.gpu_clock_counter = if a.gpu_id == self.gpu.gpu_id {
                        self.backend.clock_counter()
                    } else {
                        0
                    };
                    a.cpu_clock_counter = clock_ns(libc::CLOCK_MONOTONIC_RAW);
                    a.system_clock_counter = clock_ns(libc::CLOCK_BOOTTIME);
                    a.system_clock_freq = 1_000_000_000;
                    Ok(())
                })
            }
            nr::SET_XNACK_MODE => self.with(arg, size, mem, |a: &mut abi::SetXnackModeArgs| {
                let mut s = self.lock();
                if a.xnack_enabled >= 0 {
                    // Changing the mode with queues alive is refused (EBUSY in KFD).
                    if !s.queues.is_empty() && s.xnack != (a.xnack_enabled != 0) {
                        return Err(Errno::Busy);
                    }
                    s.xnack = a.xnack_enabled != 0;
                }
                a.xnack_enabled = i32::from(s.xnack);
                Ok(())
            }),
            nr::CREATE_EVENT => self.with(arg, size, mem, |a| self.create_event(a)),
            nr::DESTROY_EVENT => self.with(arg, size, mem, |a: &mut abi::EventIdArgs| {
                self.events.destroy(a.event_id)
            }),
            nr::SET_EVENT => self.with(arg, size, mem, |a: &mut abi::EventIdArgs| {
                self.events.signal(a.event_id)
            }),
            nr::RESET_EVENT => self.with(arg, size, mem, |a: &mut abi::EventIdArgs| {
                self.events.reset(a.event_id)
            }),
            nr::WAIT_EVENTS => self.with(arg, size, mem, |a| self.wait_events(a, mem)),
            nr::SET_SCRATCH_BACKING_VA => {
                self.with(arg, size, mem, |a: &mut abi::SetScratchBackingVaArgs| {
                    self.check_gpu(a.gpu_id)?;
                    self.lock().scratch_va = a.va_addr;
                    Ok(())
                })
            }
            nr::GET_TILE_CONFIG => self.with(arg, size, mem, |a| self.tile_config(a, mem)),
            nr::SET_TRAP_HANDLER => self.with(arg, size, mem, |a: &mut abi::SetTrapHandlerArgs| {
                self.check_gpu(a.gpu_id)?;
                self.lock().trap = (a.tba_addr, a.tma_addr);
                Ok(())
            }),
            nr::CREATE_QUEUE => self.with(arg, size, mem, |a| self.create_queue(a)),
            nr::UPDATE_QUEUE => self.with(arg, size, mem, |a| self.update_queue(a)),
            nr::DESTROY_QUEUE => self.with(arg, size, mem, |a: &mut abi::DestroyQueueArgs| {
                let removed = self.lock().queues.remove(&a.queue_id);
                match removed {
                    Some(_) => {
                        self.backend.destroy_queue(a.queue_id);
                        Ok(())
                    }
                    // pqm_destroy_queue: "Queue id does not match any known queue".
                    None => Err(Errno::Inval),
                }
            }),
            // The ROCm debugger interface is not emulated: EINVAL, which ROCr's
            // RuntimeEnable accepts (KFD-NOTES). Everything else is "not supported": the
            // KFD 1.8-era kfd_ioctl answers EINVAL for a command it has no handler for.
            _ => Err(Errno::Inval),
        }
    }

    /// Copies the argument in (size from the request, zero-extended), runs `f`, copies
    /// the result back (as many bytes as the caller passed).
    fn with<T: Pod>(
        &self,
        arg: u64,
        size: usize,
        mem: &dyn UserMemory,
        f: impl FnOnce(&mut T) -> Result<(), Errno>,
    ) -> Result<(), Errno> {
        let n = size.min(std::mem::size_of::<T>());
        let mut buf = [0u8; 128];
        let buf = buf.get_mut(..n).ok_or(Errno::Inval)?;
        mem.read(arg, buf)?;
        let mut v: T = abi::from_bytes(buf);
        f(&mut v)?;
        mem.write(arg, &abi::as_bytes(&v)[..n])
    }

    fn apertures(
        &self,
        a: &mut abi::GetProcessAperturesNewArgs,
        mem: &dyn UserMemory,
    ) -> Result<(), Errno> {
        // kfd_ioctl_get_process_apertures_new: 0 entries asks for the count.
        if a.num_of_nodes == 0 {
            a.num_of_nodes = 1;
            return Ok(());
        }
        // kfd_flat_memory.c kfd_init_apertures_v9: LDS at 1<<48, scratch at 2<<48, each
        // 4 GiB; GPUVM from SVM_USER_BASE (16 KiB) to 2^47 - 1 (gfx9's 48-bit VM). A
        // limit >= 2^47-1 makes the thunk map buffers at GPU VA == CPU VA.
        let entry = abi::ProcessDeviceApertures {
            lds_base: 1 << 48,
            lds_limit: (1 << 48) | 0xFFFF_FFFF,
            scratch_base: 2 << 48,
            scratch_limit: (2 << 48) | 0xFFFF_FFFF,
            gpuvm_base: 16 * 1024,
            gpuvm_limit: (1 << 47) - 1,
            gpu_id: self.gpu.gpu_id,
            pad: 0,
        };
        mem.write(a.kfd_process_device_apertures_ptr, abi::as_bytes(&entry))?;
        a.num_of_nodes = 1;
        Ok(())
    }

    /// GET_TILE_CONFIG as `kfd_ioctl_get_tile_config` answers it, with the values
    /// `amdgpu_amdkfd_get_tile_config` (amdgpu_amdkfd_gpuvm.c) takes from the gfx config:
    /// - `gb_addr_config`: `gfx_v9_0_gpu_early_init`, case Aldebaran (GC 9.4.2), reads the
    ///   GB_ADDR_CONFIG register, clears `0xf3e777ff` and ORs in the golden `0x22014042`.
    ///   The bits it keeps from the register are NUM_SHADER_ENGINES (bits 19-20, log2)
    ///   and NUM_RB_PER_SE (bits 26-27, log2) (gc_9_0_sh_mask.h) plus reserved bits 11
    ///   and 15 (zero); the register describes the chip, so the simulated one states its
    ///   shader engines from the preset and one render backend per engine (the model
    ///   has none; 1 is the field's smallest value).
    /// - `num_banks`, `num_ranks`: "not set from GFX9 onwards" (0).
    /// - the tile arrays: `tile_mode_array[32]` and `macrotile_mode_array[16]` of
    ///   amdgpu_gfx.h, filled only by gfx6-8 code, so zeros on gfx9; the driver copies
    ///   min(asked, array size) entries and answers EFAULT (count 0) when a copy fails.
    fn tile_config(
        &self,
        a: &mut abi::GetTileConfigArgs,
        mem: &dyn UserMemory,
    ) -> Result<(), Errno> {
        self.check_gpu(a.gpu_id)?;
        a.gb_addr_config = gb_addr_config(self.gpu.shader_engines);
        a.num_banks = 0;
        a.num_ranks = 0;
        let zeros = [0u8; 32 * 4];
        a.num_tile_configs = a.num_tile_configs.min(TILE_MODES);
        let n = a.num_tile_configs as usize * 4;
        if n > 0 && mem.write(a.tile_config_ptr, &zeros[..n]).is_err() {
            a.num_tile_configs = 0;
            return Err(Errno::Fault);
        }
        a.num_macro_tile_configs = a.num_macro_tile_configs.min(MACRO_TILE_MODES);
        let n = a.num_macro_tile_configs as usize * 4;
        if n > 0 && mem.write(a.macro_tile_config_ptr, &zeros[..n]).is_err() {
            a.num_macro_tile_configs = 0;
            return Err(Errno::Fault);
        }
        Ok(())
    }

    fn acquire_vm(&self, a: &mut abi::AcquireVmArgs) -> Result<(), Errno> {
        self.check_gpu(a.gpu_id)?;
        let mut s = self.lock();
        let fd = a.drm_fd as i32;
        if !s.render_fds.contains(&fd) {
            // The fd is not a DRM file of this device.
            return Err(Errno::Inval);
        }
        match s.vm_fd {
            // A second acquire must name the same file (EBUSY otherwise).
            Some(prev) if prev != fd => Err(Errno::Busy),
            _ => {
                s.vm_fd = Some(fd);
                Ok(())
            }
        }
    }

    fn alloc(&self, a: &mut abi::AllocMemoryArgs, mem: &dyn UserMemory) -> Result<(), Errno> {
        self.check_gpu(a.gpu_id)?;
        let kind = match a.flags & mf::TYPE_MASK {
            mf::VRAM => MemoryKind::Vram,
            mf::GTT => MemoryKind::Gtt,
            mf::USERPTR => MemoryKind::Userptr,
            mf::DOORBELL => MemoryKind::Doorbell,
            mf::MMIO_REMAP => MemoryKind::MmioRemap,
            _ => return Err(Errno::Inval),
        };
        if a.size == 0 || !a.size.is_multiple_of(PAGE) || !a.va_addr.is_multiple_of(PAGE) {
            return Err(Errno::Inval);
        }
        match a.va_addr.checked_add(a.size) {
            Some(end) if end <= USER_VA_END => {}
            _ => return Err(Errno::Inval),
        }
        let mut s = self.lock();
        let file_offset = match kind {
            MemoryKind::Vram => {
                // amdgpu_amdkfd_reserve_mem_limit: -ENOMEM past the device's memory.
                let used = s.vram_used.checked_add(a.size).ok_or(Errno::NoMem)?;
                if used > self.gpu.vram_bytes {
                    return Err(Errno::NoMem);
                }
                s.vram_used = used;
                bump(&mut s.vram_next, a.size, GTT_FILE_BASE)?
            }
            MemoryKind::Gtt => bump(&mut s.gtt_next, a.size, RENDER_FILE_SIZE)?,
            MemoryKind::Userptr => {
                // The pages must exist (get_user_pages fails with EFAULT otherwise).
                let mut probe = [0u8; 1];
                mem.read(a.mmap_offset, &mut probe)?;
                mem.read(a.mmap_offset + a.size - 1, &mut probe)?;
                a.mmap_offset
            }
            MemoryKind::Doorbell => {
                // The process's doorbell slice: exactly one page, once.
                if a.size != DOORBELL_PAGE || s.doorbell_allocated {
                    return Err(Errno::Inval);
                }
                s.doorbell_allocated = true;
                DOORBELL_OFFSET
            }
            MemoryKind::MmioRemap => {
                if a.size != PAGE {
                    return Err(Errno::Inval);
                }
                MMIO_OFFSET
            }
        };
        // MAKE_HANDLE(gpu_id, idr handle) as kfd_chardev.c builds it.
        let handle = (u64::from(self.gpu.gpu_id) << 32) | u64::from(s.next_id);
        s.next_id = s.next_id.wrapping_add(1);
        let region = Region {
            handle,
            va: a.va_addr,
            size: a.size,
            kind,
            file_offset,
        };
        s.allocs.insert(
            handle,
            Alloc {
                region,
                mapped: false,
            },
        );
        a.handle = handle;
        if kind != MemoryKind::Userptr {
            a.mmap_offset = file_offset;
        }
        Ok(())
    }

    fn free(&self, a: &mut abi::FreeMemoryArgs) -> Result<(), Errno> {
        let mut s = self.lock();
        let alloc = s.allocs.remove(&a.handle).ok_or(Errno::Inval)?;
        match alloc.region.kind {
            MemoryKind::Vram => s.vram_used -= alloc.region.size,
            MemoryKind::Doorbell => s.doorbell_allocated = false,
            _ => {}
        }
        if s.event_page == Some(a.handle) {
            s.event_page = None;
        }
        drop(s);
        if alloc.mapped {
            self.backend.unmap(&alloc.region);
        }
        Ok(())
    }

    fn map(
        &self,
        a: &mut abi::MapMemoryArgs,
        mem: &dyn UserMemory,
        map: bool,
    ) -> Result<(), Errno> {
        // kfd_ioctl_map_memory_to_gpu: at least one device, n_success <= n_devices.
        if a.n_devices == 0 || a.n_success > a.n_devices || a.n_devices > 1024 {
            return Err(Errno::Inval);
        }
        let mut ids = vec![0u8; a.n_devices as usize * 4];
        mem.read(a.device_ids_array_ptr, &mut ids)?;
        let mut s = self.lock();
        let alloc = s.allocs.get_mut(&a.handle).ok_or(Errno::Inval)?;
        for (i, id) in ids.chunks_exact(4).enumerate().skip(a.n_success as usize) {
            let id = u32::from_ne_bytes([id[0], id[1], id[2], id[3]]);
            if id != self.gpu.gpu_id {
                a.n_success = i as u32;
                return Err(Errno::Inval);
            }
        }
        a.n_success = a.n_devices;
        let changed = alloc.mapped != map;
        alloc.mapped = map;
        let region = alloc.region;
        drop(s);
        if changed {
            if map {
                self.backend.map(&region);
            } else {
                self.backend.unmap(&region);
            }
        }
        Ok(())
    }

    fn create_event(&self, a: &mut abi::CreateEventArgs) -> Result<(), Errno> {
        if a.event_page_offset != 0 {
            // The first signal event names the client's events page (a GTT buffer).
            let mut s = self.lock();
            if s.event_page.is_some() || !s.allocs.contains_key(&a.event_page_offset) {
                return Err(Errno::Inval);
            }
            s.event_page = Some(a.event_page_offset);
        }
        let id = self.events.create(a.event_type, a.auto_reset != 0)?;
        a.event_id = id;
        if id < abi::event::SIGNAL_EVENT_LIMIT {
            a.event_slot_index = id;
            a.event_trigger_data = id;
        }
        Ok(())
    }

    fn wait_events(&self, a: &mut abi::WaitEventsArgs, mem: &dyn UserMemory) -> Result<(), Errno> {
        if a.num_events > MAX_WAIT_EVENTS {
            return Err(Errno::NoMem);
        }
        let mut ids = Vec::with_capacity(a.num_events as usize);
        let mut data = [0u8; abi::EventData::SIZE];
        for i in 0..u64::from(a.num_events) {
            let at = i
                .checked_mul(abi::EventData::SIZE as u64)
                .and_then(|o| a.events_ptr.checked_add(o))
                .ok_or(Errno::Fault)?;
            mem.read(at, &mut data)?;
            ids.push(abi::from_bytes::<abi::EventData>(&data).event_id);
        }
        a.wait_result = self.events.wait(&ids, a.wait_for_all != 0, a.timeout)?;
        Ok(())
    }

    fn queue_args(q: &abi::CreateQueueArgs) -> Result<(), Errno> {
        // set_queue_properties_from_user in kfd_chardev.c.
        if q.queue_percentage > abi::MAX_QUEUE_PERCENTAGE
            || q.queue_priority > abi::MAX_QUEUE_PRIORITY
            || (q.ring_size != 0 && !q.ring_size.is_power_of_two())
        {
            return Err(Errno::Inval);
        }
        let user = |addr: u64, len: u64| match addr.checked_add(len) {
            Some(end) if end <= USER_VA_END => Ok(()),
            _ => Err(Errno::Fault),
        };
        user(q.ring_base_address, u64::from(q.ring_size))?;
        user(q.read_pointer_address, 8)?;
        user(q.write_pointer_address, 8)?;
        user(q.eop_buffer_address, q.eop_buffer_size)?;
        user(
            q.ctx_save_restore_address,
            u64::from(q.ctx_save_restore_size),
        )?;
        Ok(())
    }

    fn create_queue(&self, a: &mut abi::CreateQueueArgs) -> Result<(), Errno> {
        self.check_gpu(a.gpu_id)?;
        Self::queue_args(a)?;
        match a.queue_type {
            abi::queue_type::COMPUTE | abi::queue_type::COMPUTE_AQL => {}
            // No SDMA engine is simulated (num_sdma_engines 0): allocate_sdma_queue finds
            // none free.
            abi::queue_type::SDMA | abi::queue_type::SDMA_XGMI => return Err(Errno::NoMem),
            _ => return Err(Errno::Inval),
        }
        let mut s = self.lock();
        let id = (0..MAX_QUEUES)
            .find(|id| !s.queues.contains_key(id))
            .ok_or(Errno::NoMem)?;
        let queue = Queue {
            id,
            queue_type: a.queue_type,
            ring_base: a.ring_base_address,
            ring_size: a.ring_size,
            read_ptr: a.read_pointer_address,
            write_ptr: a.write_pointer_address,
            doorbell_offset: DOORBELL_OFFSET + u64::from(id) * 8,
            eop_buffer: a.eop_buffer_address,
            ctx_save_restore: a.ctx_save_restore_address,
            percentage: a.queue_percentage,
            priority: a.queue_priority,
        };
        self.backend.create_queue(&queue)?;
        s.queues.insert(id, queue);
        a.queue_id = id;
        a.doorbell_offset = queue.doorbell_offset;
        Ok(())
    }

    fn update_queue(&self, a: &mut abi::UpdateQueueArgs) -> Result<(), Errno> {
        if a.queue_percentage > abi::MAX_QUEUE_PERCENTAGE
            || a.queue_priority > abi::MAX_QUEUE_PRIORITY
            || (a.ring_size != 0 && !a.ring_size.is_power_of_two())
        {
            return Err(Errno::Inval);
        }
        if a.ring_base_address
            .checked_add(u64::from(a.ring_size))
            .is_none_or(|e| e > USER_VA_END)
        {
            return Err(Errno::Fault);
        }
        let mut s = self.lock();
        // pqm_update_queue_properties answers EFAULT for an unknown queue.
        let q = s.queues.get_mut(&a.queue_id).ok_or(Errno::Fault)?;
        q.ring_base = a.ring_base_address;
        q.ring_size = a.ring_size;
        q.percentage = a.queue_percentage;
        q.priority = a.queue_priority;
        let q = *q;
        drop(s);
        self.backend.update_queue(&q);
        Ok(())
    }
}

/// `ARRAY_SIZE(adev->gfx.config.tile_mode_array)` and `.macrotile_mode_array` (amdgpu_gfx.h).
const TILE_MODES: u32 = 32;
const MACRO_TILE_MODES: u32 = 16;

/// GB_ADDR_CONFIG as `gfx_v9_0_gpu_early_init` leaves it for Aldebaran (see
/// [`Kfd::tile_config`]): the golden value `0x22014042` under the mask `0xf3e777ff`,
/// NUM_SHADER_ENGINES = log2(engines) (a 2-bit field: at most 8) and NUM_RB_PER_SE = 0.
pub fn gb_addr_config(shader_engines: u32) -> u32 {
    const GOLDEN: u32 = 0x2201_4042;
    const GOLDEN_MASK: u32 = 0xf3e7_77ff;
    const NUM_SHADER_ENGINES_SHIFT: u32 = 19;
    let se_log2 = shader_engines
        .clamp(1, 8)
        .next_power_of_two()
        .trailing_zeros();
    (GOLDEN & GOLDEN_MASK) | (se_log2 << NUM_SHADER_ENGINES_SHIFT)
}

fn bump(next: &mut u64, size: u64, limit: u64) -> Result<u64, Errno> {
    let at = *next;
    let end = at
        .checked_add(size)
        .filter(|&e| e <= limit)
        .ok_or(Errno::NoMem)?;
    *next = end;
    Ok(at)
}

fn clock_ns(clock: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid out-pointer.
    unsafe { libc::clock_gettime(clock, &mut ts) };
    (ts.tv_sec as u64)
        .wrapping_mul(1_000_000_000)
        .wrapping_add(ts.tv_nsec as u64)
}
