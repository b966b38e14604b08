//! The KFD ioctl ABI as Debian 12's thunk (libhsakmt 5.2.3, KFD ABI 1.8) uses it.
//!
//! Every struct mirrors one in the thunk's `include/linux/kfd_ioctl.h`; the request numbers
//! below are the exact immediates found in `/usr/lib/x86_64-linux-gnu/libhsakmt.so.1`
//! (`objdump -d | grep 4b..`), so each one also encodes the size the thunk passes. The
//! sizes are checked at compile time here and against the C header by `tests/abi_sizes.rs`.

/// `_IOC_NR`: the command number in an ioctl request.
pub const fn ioc_nr(request: u64) -> u32 {
    (request & 0xff) as u32
}

/// `_IOC_TYPE`: the driver letter ('K' for KFD).
pub const fn ioc_type(request: u64) -> u32 {
    ((request >> 8) & 0xff) as u32
}

/// `_IOC_SIZE`: the argument size the caller claims.
pub const fn ioc_size(request: u64) -> usize {
    ((request >> 16) & 0x3fff) as usize
}

/// `_IOC_DIR`: bit 0 = write (to the driver), bit 1 = read (from the driver).
pub const fn ioc_dir(request: u64) -> u32 {
    ((request >> 30) & 3) as u32
}

/// `_IOC(dir, 'K', nr, size)`.
pub const fn ioc(dir: u32, nr: u32, size: usize) -> u64 {
    ((dir as u64) << 30) | ((size as u64) << 16) | ((b'K' as u64) << 8) | nr as u64
}

const W: u32 = 1; // _IOC_WRITE
const R: u32 = 2; // _IOC_READ
const WR: u32 = 3;

/// Command numbers (`_IOC_NR`) of the ioctls the thunk issues.
pub mod nr {
    pub const GET_VERSION: u32 = 0x01;
    pub const CREATE_QUEUE: u32 = 0x02;
    pub const DESTROY_QUEUE: u32 = 0x03;
    pub const SET_MEMORY_POLICY: u32 = 0x04;
    pub const GET_CLOCK_COUNTERS: u32 = 0x05;
    pub const GET_PROCESS_APERTURES: u32 = 0x06;
    pub const UPDATE_QUEUE: u32 = 0x07;
    pub const CREATE_EVENT: u32 = 0x08;
    pub const DESTROY_EVENT: u32 = 0x09;
    pub const SET_EVENT: u32 = 0x0A;
    pub const RESET_EVENT: u32 = 0x0B;
    pub const WAIT_EVENTS: u32 = 0x0C;
    pub const SET_SCRATCH_BACKING_VA: u32 = 0x11;
    pub const GET_TILE_CONFIG: u32 = 0x12;
    pub const SET_TRAP_HANDLER: u32 = 0x13;
    pub const GET_PROCESS_APERTURES_NEW: u32 = 0x14;
    pub const ACQUIRE_VM: u32 = 0x15;
    pub const ALLOC_MEMORY_OF_GPU: u32 = 0x16;
    pub const FREE_MEMORY_OF_GPU: u32 = 0x17;
    pub const MAP_MEMORY_TO_GPU: u32 = 0x18;
    pub const UNMAP_MEMORY_FROM_GPU: u32 = 0x19;
    pub const SET_XNACK_MODE: u32 = 0x21;
    /// ROCm-only (non-upstream) ioctl 0x82 of the thunk's header.
    pub const DBG_TRAP: u32 = 0x82;
}

/// Request numbers as the thunk encodes them (direction, 'K', nr, size).
pub mod request {
    use super::*;
    pub const GET_VERSION: u64 = ioc(R, nr::GET_VERSION, 8);
    pub const CREATE_QUEUE: u64 = ioc(WR, nr::CREATE_QUEUE, 88);
    pub const DESTROY_QUEUE: u64 = ioc(WR, nr::DESTROY_QUEUE, 8);
    pub const SET_MEMORY_POLICY: u64 = ioc(W, nr::SET_MEMORY_POLICY, 32);
    pub const GET_CLOCK_COUNTERS: u64 = ioc(WR, nr::GET_CLOCK_COUNTERS, 40);
    pub const UPDATE_QUEUE: u64 = ioc(W, nr::UPDATE_QUEUE, 24);
    pub const CREATE_EVENT: u64 = ioc(WR, nr::CREATE_EVENT, 32);
    pub const DESTROY_EVENT: u64 = ioc(W, nr::DESTROY_EVENT, 8);
    pub const SET_EVENT: u64 = ioc(W, nr::SET_EVENT, 8);
    pub const RESET_EVENT: u64 = ioc(W, nr::RESET_EVENT, 8);
    pub const WAIT_EVENTS: u64 = ioc(WR, nr::WAIT_EVENTS, 24);
    pub const SET_SCRATCH_BACKING_VA: u64 = ioc(WR, nr::SET_SCRATCH_BACKING_VA, 16);
    pub const GET_TILE_CONFIG: u64 = ioc(WR, nr::GET_TILE_CONFIG, 40);
    pub const SET_TRAP_HANDLER: u64 = ioc(W, nr::SET_TRAP_HANDLER, 24);
    pub const GET_PROCESS_APERTURES_NEW: u64 = ioc(WR, nr::GET_PROCESS_APERTURES_NEW, 16);
    pub const ACQUIRE_VM: u64 = ioc(W, nr::ACQUIRE_VM, 8);
    pub const ALLOC_MEMORY_OF_GPU: u64 = ioc(WR, nr::ALLOC_MEMORY_OF_GPU, 40);
    pub const FREE_MEMORY_OF_GPU: u64 = ioc(W, nr::FREE_MEMORY_OF_GPU, 8);
    pub const MAP_MEMORY_TO_GPU: u64 = ioc(WR, nr::MAP_MEMORY_TO_GPU, 24);
    pub const UNMAP_MEMORY_FROM_GPU: u64 = ioc(WR, nr::UNMAP_MEMORY_FROM_GPU, 24);
    pub const SET_XNACK_MODE: u64 = ioc(WR, nr::SET_XNACK_MODE, 4);
    pub const DBG_TRAP: u64 = ioc(WR, nr::DBG_TRAP, 40);
}

/// Allocation flags of ALLOC_MEMORY_OF_GPU (`KFD_IOC_ALLOC_MEM_FLAGS_*`).
pub mod mem_flags {
    pub const VRAM: u32 = 1 << 0;
    pub const GTT: u32 = 1 << 1;
    pub const USERPTR: u32 = 1 << 2;
    pub const DOORBELL: u32 = 1 << 3;
    pub const MMIO_REMAP: u32 = 1 << 4;
    /// The memory-type bits: exactly one must be set.
    pub const TYPE_MASK: u32 = VRAM | GTT | USERPTR | DOORBELL | MMIO_REMAP;
    pub const WRITABLE: u32 = 1 << 31;
    pub const EXECUTABLE: u32 = 1 << 30;
    pub const PUBLIC: u32 = 1 << 29;
    pub const NO_SUBSTITUTE: u32 = 1 << 28;
    pub const AQL_QUEUE_MEM: u32 = 1 << 27;
    pub const COHERENT: u32 = 1 << 26;
    pub const UNCACHED: u32 = 1 << 25;
}

/// Queue types of CREATE_QUEUE (`KFD_IOC_QUEUE_TYPE_*`).
pub mod queue_type {
    pub const COMPUTE: u32 = 0;
    pub const SDMA: u32 = 1;
    pub const COMPUTE_AQL: u32 = 2;
    pub const SDMA_XGMI: u32 = 3;
}

/// `KFD_MAX_QUEUE_PERCENTAGE` and `KFD_MAX_QUEUE_PRIORITY`.
pub const MAX_QUEUE_PERCENTAGE: u32 = 100;
pub const MAX_QUEUE_PRIORITY: u32 = 15;

/// Event types (`KFD_IOC_EVENT_*`) and wait results (`KFD_IOC_WAIT_RESULT_*`).
pub mod event {
    pub const SIGNAL: u32 = 0;
    pub const NODECHANGE: u32 = 1;
    pub const DEVICESTATECHANGE: u32 = 2;
    pub const HW_EXCEPTION: u32 = 3;
    pub const SYSTEM_EVENT: u32 = 4;
    pub const DEBUG_EVENT: u32 = 5;
    pub const PROFILE_EVENT: u32 = 6;
    pub const QUEUE_EVENT: u32 = 7;
    pub const MEMORY: u32 = 8;
    pub const WAIT_COMPLETE: u32 = 0;
    pub const WAIT_TIMEOUT: u32 = 1;
    pub const WAIT_FAIL: u32 = 2;
    /// `KFD_SIGNAL_EVENT_LIMIT`: signal event ids are slots of the 32 KiB events page.
    pub const SIGNAL_EVENT_LIMIT: u32 = 4096;
    /// `KFD_EVENT_TIMEOUT_INFINITE`.
    pub const TIMEOUT_INFINITE: u32 = 0xFFFF_FFFF;
}

macro_rules! abi_struct {
    ($(#[$m:meta])* $name:ident = $size:expr, { $($(#[$fm:meta])* $field:ident: $ty:ty,)* }) => {
        $(#[$m])*
        #[repr(C)]
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
        pub struct $name { $($(#[$fm])* pub $field: $ty,)* }
        const _: () = assert!(std::mem::size_of::<$name>() == $size);
        impl $name {
            /// Size of the C struct in bytes.
            pub const SIZE: usize = $size;
        }
    };
}

abi_struct!(
    /// `struct kfd_ioctl_get_version_args`.
    GetVersionArgs = 8, { major_version: u32, minor_version: u32, });
abi_struct!(
    /// `struct kfd_ioctl_create_queue_args`.
    CreateQueueArgs = 88, {
    ring_base_address: u64,
    write_pointer_address: u64,
    read_pointer_address: u64,
    doorbell_offset: u64,
    ring_size: u32,
    gpu_id: u32,
    queue_type: u32,
    queue_percentage: u32,
    queue_priority: u32,
    queue_id: u32,
    eop_buffer_address: u64,
    eop_buffer_size: u64,
    ctx_save_restore_address: u64,
    ctx_save_restore_size: u32,
    ctl_stack_size: u32,
});
abi_struct!(
    /// `struct kfd_ioctl_destroy_queue_args`.
    DestroyQueueArgs = 8, { queue_id: u32, pad: u32, });
abi_struct!(
    /// `struct kfd_ioctl_update_queue_args`.
    UpdateQueueArgs = 24, {
    ring_base_address: u64,
    queue_id: u32,
    ring_size: u32,
    queue_percentage: u32,
    queue_priority: u32,
});
abi_struct!(
    /// `struct kfd_ioctl_set_memory_policy_args`.
    SetMemoryPolicyArgs = 32, {
    alternate_aperture_base: u64,
    alternate_aperture_size: u64,
    gpu_id: u32,
    default_policy: u32,
    alternate_policy: u32,
    pad: u32,
});
abi_struct!(
    /// `struct kfd_ioctl_get_clock_counters_args`.
    GetClockCountersArgs = 40, {
    gpu_clock_counter: u64,
    cpu_clock_counter: u64,
    system_clock_counter: u64,
    system_clock_freq: u64,
    gpu_id: u32,
    pad: u32,
});
abi_struct!(
    /// `struct kfd_process_device_apertures`: one entry per GPU.
    ProcessDeviceApertures = 56, {
    lds_base: u64,
    lds_limit: u64,
    scratch_base: u64,
    scratch_limit: u64,
    gpuvm_base: u64,
    gpuvm_limit: u64,
    gpu_id: u32,
    pad: u32,
});
abi_struct!(
    /// `struct kfd_ioctl_get_process_apertures_new_args`.
    GetProcessAperturesNewArgs = 16, {
    kfd_process_device_apertures_ptr: u64,
    num_of_nodes: u32,
    pad: u32,
});
abi_struct!(
    /// `struct kfd_ioctl_create_event_args`.
    CreateEventArgs = 32, {
    event_page_offset: u64,
    event_trigger_data: u32,
    event_type: u32,
    auto_reset: u32,
    node_id: u32,
    event_id: u32,
    event_slot_index: u32,
});
abi_struct!(
    /// `struct kfd_ioctl_destroy_event_args` (also set/reset event).
    EventIdArgs = 8, { event_id: u32, pad: u32, });
abi_struct!(
    /// `struct kfd_event_data`: the union of exception data is kept as raw words.
    EventData = 48, {
    exception_data: [u64; 4],
    kfd_event_data_ext: u64,
    event_id: u32,
    pad: u32,
});
abi_struct!(
    /// `struct kfd_ioctl_wait_events_args`.
    WaitEventsArgs = 24, {
    events_ptr: u64,
    num_events: u32,
    wait_for_all: u32,
    timeout: u32,
    wait_result: u32,
});
abi_struct!(
    /// `struct kfd_ioctl_set_scratch_backing_va_args`.
    SetScratchBackingVaArgs = 16, { va_addr: u64, gpu_id: u32, pad: u32, });
abi_struct!(
    /// `struct kfd_ioctl_get_tile_config_args`.
    GetTileConfigArgs = 40, {
    tile_config_ptr: u64,
    macro_tile_config_ptr: u64,
    num_tile_configs: u32,
    num_macro_tile_configs: u32,
    gpu_id: u32,
    gb_addr_config: u32,
    num_banks: u32,
    num_ranks: u32,
});
abi_struct!(
    /// `struct kfd_ioctl_set_trap_handler_args`.
    SetTrapHandlerArgs = 24, { tba_addr: u64, tma_addr: u64, gpu_id: u32, pad: u32, });
abi_struct!(
    /// `struct kfd_ioctl_acquire_vm_args`.
    AcquireVmArgs = 8, { drm_fd: u32, gpu_id: u32, });
abi_struct!(
    /// `struct kfd_ioctl_alloc_memory_of_gpu_args`.
    AllocMemoryArgs = 40, {
    va_addr: u64,
    size: u64,
    handle: u64,
    mmap_offset: u64,
    gpu_id: u32,
    flags: u32,
});
abi_struct!(
    /// `struct kfd_ioctl_free_memory_of_gpu_args`.
    FreeMemoryArgs = 8, { handle: u64, });
abi_struct!(
    /// `struct kfd_ioctl_map_memory_to_gpu_args` (also unmap).
    MapMemoryArgs = 24, {
    handle: u64,
    device_ids_array_ptr: u64,
    n_devices: u32,
    n_success: u32,
});
abi_struct!(
    /// `struct kfd_ioctl_set_xnack_mode_args`.
    SetXnackModeArgs = 4, { xnack_enabled: i32, });

/// An argument struct: plain old data of a fixed size that any byte pattern is valid for.
///
/// # Safety
/// Implementors are `#[repr(C)]`, contain only integers and have no padding.
pub unsafe trait Pod: Copy + Default {}
macro_rules! pod {
    ($($t:ty),*) => { $(unsafe impl Pod for $t {})* };
}
pod!(
    GetVersionArgs,
    CreateQueueArgs,
    DestroyQueueArgs,
    UpdateQueueArgs,
    SetMemoryPolicyArgs,
    GetClockCountersArgs,
    ProcessDeviceApertures,
    GetProcessAperturesNewArgs,
    CreateEventArgs,
    EventIdArgs,
    EventData,
    WaitEventsArgs,
    SetScratchBackingVaArgs,
    GetTileConfigArgs,
    SetTrapHandlerArgs,
    AcquireVmArgs,
    AllocMemoryArgs,
    FreeMemoryArgs,
    MapMemoryArgs,
    SetXnackModeArgs,
    u32
);

/// The bytes of a `Pod` value.
pub fn as_bytes<T: Pod>(v: &T) -> &[u8] {
    // SAFETY: `Pod` types have no padding, so every byte is initialized.
    unsafe { std::slice::from_raw_parts((v as *const T).cast::<u8>(), std::mem::size_of::<T>()) }
}

/// A `Pod` value from bytes; missing trailing bytes read as zero (the driver zero-fills an
/// argument shorter than its struct).
pub fn from_bytes<T: Pod>(bytes: &[u8]) -> T {
    let mut v = T::default();
    let n = bytes.len().min(std::mem::size_of::<T>());
    // SAFETY: any byte pattern is a valid `Pod`; at most size_of::<T>() bytes are written.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), (&mut v as *mut T).cast::<u8>(), n) };
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_match_the_thunk_immediates() {
        // Immediates read from libhsakmt.so.1 5.2.3 (objdump -d).
        assert_eq!(request::GET_VERSION, 0x8008_4b01);
        assert_eq!(request::CREATE_QUEUE, 0xc058_4b02);
        assert_eq!(request::DESTROY_QUEUE, 0xc008_4b03);
        assert_eq!(request::SET_MEMORY_POLICY, 0x4020_4b04);
        assert_eq!(request::GET_CLOCK_COUNTERS, 0xc028_4b05);
        assert_eq!(request::UPDATE_QUEUE, 0x4018_4b07);
        assert_eq!(request::CREATE_EVENT, 0xc020_4b08);
        assert_eq!(request::DESTROY_EVENT, 0x4008_4b09);
        assert_eq!(request::SET_EVENT, 0x4008_4b0a);
        assert_eq!(request::RESET_EVENT, 0x4008_4b0b);
        assert_eq!(request::WAIT_EVENTS, 0xc018_4b0c);
        assert_eq!(request::SET_SCRATCH_BACKING_VA, 0xc010_4b11);
        assert_eq!(request::GET_TILE_CONFIG, 0xc028_4b12);
        assert_eq!(request::SET_TRAP_HANDLER, 0x4018_4b13);
        assert_eq!(request::GET_PROCESS_APERTURES_NEW, 0xc010_4b14);
        assert_eq!(request::ACQUIRE_VM, 0x4008_4b15);
        assert_eq!(request::ALLOC_MEMORY_OF_GPU, 0xc028_4b16);
        assert_eq!(request::FREE_MEMORY_OF_GPU, 0x4008_4b17);
        assert_eq!(request::MAP_MEMORY_TO_GPU, 0xc018_4b18);
        assert_eq!(request::UNMAP_MEMORY_FROM_GPU, 0xc018_4b19);
        assert_eq!(request::SET_XNACK_MODE, 0xc004_4b21);
        assert_eq!(request::DBG_TRAP, 0xc028_4b82);
        assert_eq!(ioc_size(request::CREATE_QUEUE), CreateQueueArgs::SIZE);
        assert_eq!(ioc_type(request::CREATE_QUEUE), u32::from(b'K'));
        assert_eq!(ioc_dir(request::GET_VERSION), 2);
    }

    #[test]
    fn short_arguments_are_zero_extended() {
        let v: GetVersionArgs = from_bytes(&[1, 0, 0, 0]);
        assert_eq!(
            v,
            GetVersionArgs {
                major_version: 1,
                minor_version: 0
            }
        );
    }
}
