//! The ioctl layer against garbage: bad handles, null and wild pointers, wrong sizes and
//! unknown commands get the driver's errno, and the next valid call is still served.

use std::sync::Arc;

use kmd::abi::{self, ioc, mem_flags as mf, request as rq, Pod};
use kmd::backend::MemoryKind;
use kmd::user::{BufferMemory, ProcessMemory, UserMemory};
use kmd::{Errno, GpuNode, Kfd, NoGpu};

const BASE: u64 = 0x10_0000;

struct Client {
    kfd: Kfd,
    gpu: Arc<NoGpu>,
    mem: BufferMemory,
}

impl Client {
    fn new() -> Self {
        let gpu = Arc::new(NoGpu::default());
        let kfd = Kfd::new(GpuNode::from_preset("mi210").unwrap(), gpu.clone());
        Self {
            kfd,
            gpu,
            mem: BufferMemory::new(BASE, 1 << 20),
        }
    }

    fn gpu_id(&self) -> u32 {
        self.kfd.gpu().gpu_id
    }

    /// Puts `v` at `BASE + at`, runs the ioctl, reads the result back.
    fn call<T: Pod>(&self, request: u64, at: u64, v: T) -> Result<T, Errno> {
        self.mem.write(BASE + at, abi::as_bytes(&v)).unwrap();
        self.kfd.ioctl(request, BASE + at, &self.mem)?;
        let mut out = vec![0u8; std::mem::size_of::<T>()];
        self.mem.read(BASE + at, &mut out).unwrap();
        Ok(abi::from_bytes(&out))
    }

    fn version(&self) -> abi::GetVersionArgs {
        self.call(rq::GET_VERSION, 0, abi::GetVersionArgs::default())
            .unwrap()
    }

    fn alloc(
        &self,
        flags: u32,
        va: u64,
        size: u64,
        mmap_offset: u64,
    ) -> Result<abi::AllocMemoryArgs, Errno> {
        let a = abi::AllocMemoryArgs {
            va_addr: va,
            size,
            handle: 0,
            mmap_offset,
            gpu_id: self.gpu_id(),
            flags,
        };
        self.call(rq::ALLOC_MEMORY_OF_GPU, 0, a)
    }
}

#[test]
fn version_and_apertures() {
    let c = Client::new();
    assert_eq!(
        c.version(),
        abi::GetVersionArgs {
            major_version: 1,
            minor_version: 8
        }
    );
    // Ask for the count, then the entries.
    let n = c
        .call(
            rq::GET_PROCESS_APERTURES_NEW,
            0,
            abi::GetProcessAperturesNewArgs::default(),
        )
        .unwrap();
    assert_eq!(n.num_of_nodes, 1);
    let args = abi::GetProcessAperturesNewArgs {
        kfd_process_device_apertures_ptr: BASE + 0x100,
        num_of_nodes: 1,
        pad: 0,
    };
    c.call(rq::GET_PROCESS_APERTURES_NEW, 0, args).unwrap();
    let mut e = [0u8; abi::ProcessDeviceApertures::SIZE];
    c.mem.read(BASE + 0x100, &mut e).unwrap();
    let e: abi::ProcessDeviceApertures = abi::from_bytes(&e);
    assert_eq!(e.gpu_id, c.gpu_id());
    assert_eq!(
        e.gpuvm_limit,
        (1 << 47) - 1,
        "GPU VA == CPU VA needs a 47-bit limit"
    );
    // The entries pointer is wild: EFAULT.
    let bad = abi::GetProcessAperturesNewArgs {
        kfd_process_device_apertures_ptr: 0xdead_0000,
        num_of_nodes: 1,
        pad: 0,
    };
    assert_eq!(
        c.call(rq::GET_PROCESS_APERTURES_NEW, 0, bad),
        Err(Errno::Fault)
    );
    assert_eq!(c.version().major_version, 1);
}

#[test]
fn null_wild_and_short_argument_pointers() {
    let c = Client::new();
    for arg in [0, 8, 0xdead_beef_0000, u64::MAX - 4, BASE + (1 << 20) - 4] {
        assert_eq!(
            c.kfd.ioctl(rq::GET_VERSION, arg, &c.mem),
            Err(Errno::Fault),
            "arg {arg:#x}"
        );
        assert_eq!(
            c.kfd.ioctl(rq::ALLOC_MEMORY_OF_GPU, arg, &c.mem),
            Err(Errno::Fault)
        );
        assert_eq!(c.kfd.ioctl(rq::WAIT_EVENTS, arg, &c.mem), Err(Errno::Fault));
    }
    // The same against the real process memory: no fault, EFAULT.
    for arg in [0u64, 8, 0xdead_beef_0000, 0xffff_8000_0000_0000] {
        assert_eq!(
            c.kfd.ioctl(rq::CREATE_QUEUE, arg, &ProcessMemory),
            Err(Errno::Fault)
        );
    }
    assert_eq!(c.version().minor_version, 8);
}

#[test]
fn wrong_sizes_and_unknown_commands() {
    let c = Client::new();
    // A truncated ALLOC (8 bytes: only va_addr) reads size 0 and gpu_id 0: EINVAL, as the
    // driver (which zero-extends short arguments) answers.
    let short = ioc(3, abi::nr::ALLOC_MEMORY_OF_GPU, 8);
    assert_eq!(c.call(short, 0, 0x20_0000u32), Err(Errno::Inval));
    // An oversized argument is accepted for what the struct has.
    let long = ioc(2, abi::nr::GET_VERSION, 64);
    c.kfd.ioctl(long, BASE, &c.mem).unwrap();
    // Unknown, removed and debugger commands: EINVAL.
    for nr in [0x00, 0x06, 0x20, 0x22, 0x7f, 0x80, 0x82, 0xff] {
        assert_eq!(
            c.kfd.ioctl(ioc(3, nr, 16), BASE, &c.mem),
            Err(Errno::Inval),
            "nr {nr:#x}"
        );
    }
    assert_eq!(c.version().major_version, 1);
}

#[test]
fn memory_allocation_mapping_and_bad_handles() {
    let c = Client::new();
    let gpu_id = c.gpu_id();
    let vram = c
        .alloc(
            mf::VRAM | mf::PUBLIC | mf::WRITABLE,
            0x7000_0000_0000,
            1 << 20,
            0,
        )
        .unwrap();
    assert_ne!(vram.handle, 0);
    assert_eq!(vram.mmap_offset % 4096, 0);
    let door = c.alloc(mf::DOORBELL, 0x7100_0000_0000, 8192, 0).unwrap();
    assert_eq!(door.mmap_offset, kmd::kfd::DOORBELL_OFFSET);
    assert_eq!(
        c.alloc(mf::DOORBELL, 0x7100_0001_0000, 8192, 0),
        Err(Errno::Inval),
        "one doorbell page"
    );
    assert_eq!(
        c.alloc(mf::MMIO_REMAP, 0x7200_0000_0000, 8192, 0),
        Err(Errno::Inval),
        "MMIO is one page"
    );
    // USERPTR must point at existing memory.
    let up = c.alloc(mf::USERPTR, 0x7300_0000_0000, 4096, BASE).unwrap();
    assert_eq!(up.mmap_offset, BASE);
    assert_eq!(
        c.alloc(mf::USERPTR, 0x7300_0001_0000, 4096, 0xdead_0000),
        Err(Errno::Fault)
    );
    // Bad flags, sizes, gpu ids; more VRAM than the device has.
    assert_eq!(
        c.alloc(mf::VRAM | mf::GTT, 0x7400_0000_0000, 4096, 0),
        Err(Errno::Inval)
    );
    assert_eq!(c.alloc(0, 0x7400_0000_0000, 4096, 0), Err(Errno::Inval));
    assert_eq!(c.alloc(mf::VRAM, 0x7400_0000_0000, 0, 0), Err(Errno::Inval));
    assert_eq!(
        c.alloc(mf::VRAM, 0x7400_0000_0001, 4096, 0),
        Err(Errno::Inval)
    );
    assert_eq!(c.alloc(mf::VRAM, 0x1000, 128 << 30, 0), Err(Errno::NoMem));
    let mut other = abi::AllocMemoryArgs {
        va_addr: 0x7500_0000_0000,
        size: 4096,
        flags: mf::GTT,
        ..Default::default()
    };
    other.gpu_id = gpu_id + 1;
    assert_eq!(c.call(rq::ALLOC_MEMORY_OF_GPU, 0, other), Err(Errno::Inval));

    // Map: n_success must come back equal to n_devices; bad device ids and handles fail.
    c.mem.write(BASE + 0x200, &gpu_id.to_ne_bytes()).unwrap();
    let map = abi::MapMemoryArgs {
        handle: vram.handle,
        device_ids_array_ptr: BASE + 0x200,
        n_devices: 1,
        n_success: 0,
    };
    assert_eq!(c.call(rq::MAP_MEMORY_TO_GPU, 0, map).unwrap().n_success, 1);
    let regions = c.gpu.regions();
    assert_eq!(regions.len(), 1);
    assert_eq!(
        (regions[0].va, regions[0].kind),
        (0x7000_0000_0000, MemoryKind::Vram)
    );
    assert_eq!(
        c.call(
            rq::MAP_MEMORY_TO_GPU,
            0,
            abi::MapMemoryArgs {
                handle: 0x1234,
                ..map
            }
        ),
        Err(Errno::Inval)
    );
    assert_eq!(
        c.call(
            rq::MAP_MEMORY_TO_GPU,
            0,
            abi::MapMemoryArgs {
                n_devices: 0,
                ..map
            }
        ),
        Err(Errno::Inval)
    );
    assert_eq!(
        c.call(
            rq::MAP_MEMORY_TO_GPU,
            0,
            abi::MapMemoryArgs {
                device_ids_array_ptr: 0,
                ..map
            }
        ),
        Err(Errno::Fault)
    );
    c.mem
        .write(BASE + 0x300, &(gpu_id ^ 1).to_ne_bytes())
        .unwrap();
    assert_eq!(
        c.call(
            rq::MAP_MEMORY_TO_GPU,
            0,
            abi::MapMemoryArgs {
                device_ids_array_ptr: BASE + 0x300,
                ..map
            }
        ),
        Err(Errno::Inval)
    );
    assert_eq!(
        c.call(rq::UNMAP_MEMORY_FROM_GPU, 0, map).unwrap().n_success,
        1
    );
    assert!(c.gpu.regions().is_empty());

    // Free: once; a second free or a made-up handle is EINVAL.
    c.call(
        rq::FREE_MEMORY_OF_GPU,
        0,
        abi::FreeMemoryArgs {
            handle: vram.handle,
        },
    )
    .unwrap();
    for h in [vram.handle, 0, u64::MAX, 0xdead] {
        assert_eq!(
            c.call(rq::FREE_MEMORY_OF_GPU, 0, abi::FreeMemoryArgs { handle: h }),
            Err(Errno::Inval)
        );
    }
    // Freed VRAM can be allocated again.
    c.alloc(mf::VRAM, 0x7000_0000_0000, 1 << 20, 0).unwrap();
}

#[test]
fn queues_follow_the_doorbell_quirk_and_refuse_garbage() {
    let c = Client::new();
    let good = abi::CreateQueueArgs {
        ring_base_address: 0x7000_0000_0000,
        write_pointer_address: 0x7000_1000_0038,
        read_pointer_address: 0x7000_1000_0080,
        ring_size: 4096,
        gpu_id: c.gpu_id(),
        queue_type: abi::queue_type::COMPUTE_AQL,
        queue_percentage: 100,
        queue_priority: 7,
        eop_buffer_address: 0x7000_2000_0000,
        eop_buffer_size: 4096,
        ctx_save_restore_address: 0x7000_3000_0000,
        ctx_save_restore_size: 4096,
        ..Default::default()
    };
    let q0 = c.call(rq::CREATE_QUEUE, 0, good).unwrap();
    let q1 = c.call(rq::CREATE_QUEUE, 0, good).unwrap();
    assert_eq!((q0.queue_id, q1.queue_id), (0, 1));
    // The thunk masks the first offset with 0xFFFFFFFF00000000: the page is in bits >= 32.
    assert_eq!(
        q0.doorbell_offset & 0xFFFF_FFFF_0000_0000,
        kmd::kfd::DOORBELL_OFFSET
    );
    assert_eq!(q1.doorbell_offset - q0.doorbell_offset, 8);
    assert_eq!(c.gpu.queues().len(), 2);
    for bad in [
        abi::CreateQueueArgs {
            ring_size: 3000,
            ..good
        },
        abi::CreateQueueArgs {
            queue_percentage: 101,
            ..good
        },
        abi::CreateQueueArgs {
            queue_priority: 16,
            ..good
        },
        abi::CreateQueueArgs {
            queue_type: 9,
            ..good
        },
        abi::CreateQueueArgs { gpu_id: 0, ..good },
    ] {
        assert_eq!(c.call(rq::CREATE_QUEUE, 0, bad), Err(Errno::Inval));
    }
    let kernel_ptr = abi::CreateQueueArgs {
        read_pointer_address: 0xffff_8000_0000_0000,
        ..good
    };
    assert_eq!(c.call(rq::CREATE_QUEUE, 0, kernel_ptr), Err(Errno::Fault));
    let sdma = abi::CreateQueueArgs {
        queue_type: abi::queue_type::SDMA,
        ..good
    };
    assert_eq!(c.call(rq::CREATE_QUEUE, 0, sdma), Err(Errno::NoMem));
    // xnack cannot change while queues exist; a query still works.
    let x = c
        .call(
            rq::SET_XNACK_MODE,
            0,
            abi::SetXnackModeArgs { xnack_enabled: -1 },
        )
        .unwrap();
    assert_eq!(x.xnack_enabled, 0);
    assert_eq!(
        c.call(
            rq::SET_XNACK_MODE,
            0,
            abi::SetXnackModeArgs { xnack_enabled: 1 }
        ),
        Err(Errno::Busy)
    );
    // Update and destroy: unknown queues fail as in the driver.
    let up = abi::UpdateQueueArgs {
        ring_base_address: good.ring_base_address,
        queue_id: 1,
        ring_size: 8192,
        queue_percentage: 50,
        queue_priority: 1,
    };
    c.call(rq::UPDATE_QUEUE, 0, up).unwrap();
    assert_eq!(
        c.gpu.queues().iter().find(|q| q.id == 1).unwrap().ring_size,
        8192
    );
    assert_eq!(
        c.call(
            rq::UPDATE_QUEUE,
            0,
            abi::UpdateQueueArgs { queue_id: 77, ..up }
        ),
        Err(Errno::Fault)
    );
    c.call(
        rq::DESTROY_QUEUE,
        0,
        abi::DestroyQueueArgs {
            queue_id: 0,
            pad: 0,
        },
    )
    .unwrap();
    assert_eq!(
        c.call(
            rq::DESTROY_QUEUE,
            0,
            abi::DestroyQueueArgs {
                queue_id: 0,
                pad: 0
            }
        ),
        Err(Errno::Inval)
    );
    c.call(
        rq::DESTROY_QUEUE,
        0,
        abi::DestroyQueueArgs {
            queue_id: 1,
            pad: 0,
        },
    )
    .unwrap();
    assert!(c.gpu.queues().is_empty());
    let x = c
        .call(
            rq::SET_XNACK_MODE,
            0,
            abi::SetXnackModeArgs { xnack_enabled: 1 },
        )
        .unwrap();
    assert_eq!(x.xnack_enabled, 1);
}

#[test]
fn events_through_ioctls() {
    let c = Client::new();
    let gtt = c.alloc(mf::GTT, 0x7000_0000_0000, 32768, 0).unwrap();
    // The first signal event names the events page; a bogus page handle is EINVAL.
    let bogus = abi::CreateEventArgs {
        event_page_offset: 0xbad,
        auto_reset: 1,
        ..Default::default()
    };
    assert_eq!(c.call(rq::CREATE_EVENT, 0, bogus), Err(Errno::Inval));
    let ev = c
        .call(
            rq::CREATE_EVENT,
            0,
            abi::CreateEventArgs {
                event_page_offset: gtt.handle,
                auto_reset: 1,
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(ev.event_slot_index, ev.event_id);
    // Wait with a timeout: nothing signalled yet.
    let data = abi::EventData {
        event_id: ev.event_id,
        ..Default::default()
    };
    c.mem.write(BASE + 0x400, abi::as_bytes(&data)).unwrap();
    let wait = abi::WaitEventsArgs {
        events_ptr: BASE + 0x400,
        num_events: 1,
        wait_for_all: 1,
        timeout: 10,
        wait_result: 9,
    };
    assert_eq!(
        c.call(rq::WAIT_EVENTS, 0, wait).unwrap().wait_result,
        abi::event::WAIT_TIMEOUT
    );
    c.call(
        rq::SET_EVENT,
        0,
        abi::EventIdArgs {
            event_id: ev.event_id,
            pad: 0,
        },
    )
    .unwrap();
    assert_eq!(
        c.call(rq::WAIT_EVENTS, 0, wait).unwrap().wait_result,
        abi::event::WAIT_COMPLETE
    );
    // Unknown events, wild arrays and absurd counts.
    assert_eq!(
        c.call(
            rq::SET_EVENT,
            0,
            abi::EventIdArgs {
                event_id: 999,
                pad: 0
            }
        ),
        Err(Errno::Inval)
    );
    let unknown = abi::EventData {
        event_id: 999,
        ..Default::default()
    };
    c.mem.write(BASE + 0x500, abi::as_bytes(&unknown)).unwrap();
    assert_eq!(
        c.call(
            rq::WAIT_EVENTS,
            0,
            abi::WaitEventsArgs {
                events_ptr: BASE + 0x500,
                ..wait
            }
        ),
        Err(Errno::Inval)
    );
    assert_eq!(
        c.call(
            rq::WAIT_EVENTS,
            0,
            abi::WaitEventsArgs {
                events_ptr: 0x40,
                ..wait
            }
        ),
        Err(Errno::Fault)
    );
    assert_eq!(
        c.call(
            rq::WAIT_EVENTS,
            0,
            abi::WaitEventsArgs {
                num_events: u32::MAX,
                ..wait
            }
        ),
        Err(Errno::NoMem)
    );
    c.call(
        rq::DESTROY_EVENT,
        0,
        abi::EventIdArgs {
            event_id: ev.event_id,
            pad: 0,
        },
    )
    .unwrap();
    assert_eq!(
        c.call(
            rq::DESTROY_EVENT,
            0,
            abi::EventIdArgs {
                event_id: ev.event_id,
                pad: 0
            }
        ),
        Err(Errno::Inval)
    );
    assert_eq!(c.version().major_version, 1);
}

#[test]
fn vm_policy_scratch_trap_and_clocks() {
    let c = Client::new();
    let id = c.gpu_id();
    // ACQUIRE_VM only takes an open render fd of this device.
    assert_eq!(
        c.call(
            rq::ACQUIRE_VM,
            0,
            abi::AcquireVmArgs {
                drm_fd: 5,
                gpu_id: id
            }
        ),
        Err(Errno::Inval)
    );
    c.kfd.render_fd_opened(5);
    c.kfd.render_fd_opened(6);
    c.call(
        rq::ACQUIRE_VM,
        0,
        abi::AcquireVmArgs {
            drm_fd: 5,
            gpu_id: id,
        },
    )
    .unwrap();
    assert_eq!(
        c.call(
            rq::ACQUIRE_VM,
            0,
            abi::AcquireVmArgs {
                drm_fd: 6,
                gpu_id: id
            }
        ),
        Err(Errno::Busy)
    );
    assert_eq!(
        c.call(
            rq::ACQUIRE_VM,
            0,
            abi::AcquireVmArgs {
                drm_fd: 5,
                gpu_id: 0
            }
        ),
        Err(Errno::Inval)
    );
    let pol = abi::SetMemoryPolicyArgs {
        gpu_id: id,
        default_policy: 1,
        alternate_policy: 0,
        ..Default::default()
    };
    c.call(rq::SET_MEMORY_POLICY, 0, pol).unwrap();
    assert_eq!(
        c.call(
            rq::SET_MEMORY_POLICY,
            0,
            abi::SetMemoryPolicyArgs {
                default_policy: 2,
                ..pol
            }
        ),
        Err(Errno::Inval)
    );
    c.call(
        rq::SET_SCRATCH_BACKING_VA,
        0,
        abi::SetScratchBackingVaArgs {
            va_addr: 0x7000_0000_0000,
            gpu_id: id,
            pad: 0,
        },
    )
    .unwrap();
    assert_eq!(
        c.call(
            rq::SET_SCRATCH_BACKING_VA,
            0,
            abi::SetScratchBackingVaArgs {
                va_addr: 0,
                gpu_id: 7,
                pad: 0
            }
        ),
        Err(Errno::Inval)
    );
    c.call(
        rq::SET_TRAP_HANDLER,
        0,
        abi::SetTrapHandlerArgs {
            tba_addr: 0x1000,
            tma_addr: 0x2000,
            gpu_id: id,
            pad: 0,
        },
    )
    .unwrap();
    assert_eq!(
        c.call(
            rq::SET_TRAP_HANDLER,
            0,
            abi::SetTrapHandlerArgs {
                gpu_id: 0,
                ..Default::default()
            }
        ),
        Err(Errno::Inval)
    );
    let a = c
        .call(
            rq::GET_CLOCK_COUNTERS,
            0,
            abi::GetClockCountersArgs {
                gpu_id: id,
                ..Default::default()
            },
        )
        .unwrap();
    let b = c
        .call(
            rq::GET_CLOCK_COUNTERS,
            0,
            abi::GetClockCountersArgs {
                gpu_id: id,
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(a.system_clock_freq, 1_000_000_000);
    assert!(
        b.cpu_clock_counter >= a.cpu_clock_counter && b.gpu_clock_counter >= a.gpu_clock_counter
    );
    assert!(a.cpu_clock_counter > 0);
    // An unknown gpu id reads a zero GPU clock (the driver does not fail it).
    let z = c
        .call(
            rq::GET_CLOCK_COUNTERS,
            0,
            abi::GetClockCountersArgs {
                gpu_id: 3,
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(z.gpu_clock_counter, 0);
}

/// GET_TILE_CONFIG (what ROCr's image manager asks at start-up): the gfx9 answer of
/// amdgpu (GB_ADDR_CONFIG of Aldebaran, no banks/ranks, zeroed tile arrays clamped to
/// 32 and 16 entries), EINVAL for another GPU, EFAULT with a zero count for a wild array.
#[test]
fn tile_config() {
    let c = Client::new();
    let id = c.gpu_id();
    // Poison the arrays so the zeros must really be written.
    c.mem.write(BASE + 0x200, &[0xAA; 256]).unwrap();
    c.mem.write(BASE + 0x400, &[0xAA; 256]).unwrap();
    let ask = abi::GetTileConfigArgs {
        tile_config_ptr: BASE + 0x200,
        macro_tile_config_ptr: BASE + 0x400,
        num_tile_configs: 40,
        num_macro_tile_configs: 4,
        gpu_id: id,
        ..Default::default()
    };
    let got = c.call(rq::GET_TILE_CONFIG, 0, ask).unwrap();
    let se = c.kfd.gpu().shader_engines;
    assert_eq!(se, 8, "mi210: 8 shader engines");
    // 0x22014042 with NUM_SHADER_ENGINES (bits 19-20) = log2(8) = 3.
    assert_eq!(got.gb_addr_config, 0x2201_4042 | (3 << 19));
    assert_eq!(got.gb_addr_config, kmd::kfd::gb_addr_config(se));
    assert_eq!((got.num_banks, got.num_ranks), (0, 0));
    assert_eq!((got.num_tile_configs, got.num_macro_tile_configs), (32, 4));
    let mut tiles = [0u8; 256];
    c.mem.read(BASE + 0x200, &mut tiles).unwrap();
    assert!(tiles[..128].iter().all(|&b| b == 0), "32 zeroed entries");
    assert!(tiles[128..].iter().all(|&b| b == 0xAA), "nothing past them");
    c.mem.read(BASE + 0x400, &mut tiles).unwrap();
    assert!(tiles[..16].iter().all(|&b| b == 0));
    assert!(tiles[16..].iter().all(|&b| b == 0xAA));
    // Another GPU: EINVAL. A wild tile array: EFAULT.
    assert_eq!(
        c.call(
            rq::GET_TILE_CONFIG,
            0,
            abi::GetTileConfigArgs { gpu_id: 1, ..ask }
        ),
        Err(Errno::Inval)
    );
    let wild = abi::GetTileConfigArgs {
        tile_config_ptr: 0xdead_0000,
        ..ask
    };
    assert_eq!(c.call(rq::GET_TILE_CONFIG, 0, wild), Err(Errno::Fault));
    // Zero-sized arrays need no pointers.
    let none = abi::GetTileConfigArgs {
        tile_config_ptr: 0,
        macro_tile_config_ptr: 0,
        num_tile_configs: 0,
        num_macro_tile_configs: 0,
        ..ask
    };
    let got = c.call(rq::GET_TILE_CONFIG, 0, none).unwrap();
    assert_eq!(got.gb_addr_config, 0x2201_4042 | (3 << 19));
    assert_eq!(c.version().major_version, 1);
}
