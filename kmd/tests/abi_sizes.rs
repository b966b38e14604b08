//! The `#[repr(C)]` argument structs have the sizes and field offsets of the C header's.
//!
//! Compiles a C program with gcc against `linux/kfd_ioctl.h` (linux-libc-dev; its structs
//! for these ioctls are those of the thunk's KFD 1.8 header) and compares with Rust.

use std::mem::{offset_of, size_of};
use std::process::Command;

use kmd::abi;

#[test]
fn structs_match_the_c_header() {
    let dir = std::env::temp_dir().join(format!("kmd-abi-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("drm")).unwrap();
    // kfd_ioctl.h includes <drm/drm.h> (libdrm-dev) only for the __u32-style types.
    std::fs::write(dir.join("drm/drm.h"), "#include <linux/types.h>\n").unwrap();
    let src = dir.join("sizes.c");
    std::fs::write(
        &src,
        r#"#include <stdio.h>
#include <stddef.h>
#include <linux/kfd_ioctl.h>
#define S(t) printf(#t " %zu\n", sizeof(struct t));
#define O(t, f) printf(#t "." #f " %zu\n", offsetof(struct t, f));
int main(void) {
S(kfd_ioctl_get_version_args) S(kfd_ioctl_create_queue_args) S(kfd_ioctl_destroy_queue_args)
S(kfd_ioctl_update_queue_args) S(kfd_ioctl_set_memory_policy_args)
S(kfd_ioctl_get_clock_counters_args) S(kfd_process_device_apertures)
S(kfd_ioctl_get_process_apertures_new_args) S(kfd_ioctl_create_event_args)
S(kfd_ioctl_destroy_event_args) S(kfd_event_data) S(kfd_ioctl_wait_events_args)
S(kfd_ioctl_set_scratch_backing_va_args) S(kfd_ioctl_set_trap_handler_args)
S(kfd_ioctl_acquire_vm_args) S(kfd_ioctl_alloc_memory_of_gpu_args)
S(kfd_ioctl_free_memory_of_gpu_args) S(kfd_ioctl_map_memory_to_gpu_args)
S(kfd_ioctl_set_xnack_mode_args) S(kfd_ioctl_get_tile_config_args)
O(kfd_ioctl_get_tile_config_args, gpu_id) O(kfd_ioctl_get_tile_config_args, num_ranks)
O(kfd_ioctl_create_queue_args, queue_id) O(kfd_ioctl_create_queue_args, eop_buffer_address)
O(kfd_ioctl_create_queue_args, ctl_stack_size) O(kfd_ioctl_create_event_args, event_slot_index)
O(kfd_ioctl_alloc_memory_of_gpu_args, flags) O(kfd_ioctl_map_memory_to_gpu_args, n_success)
O(kfd_event_data, event_id) O(kfd_ioctl_wait_events_args, wait_result)
printf("AMDKFD_IOC_ALLOC_MEMORY_OF_GPU %lu\n", (unsigned long)AMDKFD_IOC_ALLOC_MEMORY_OF_GPU);
printf("AMDKFD_IOC_CREATE_QUEUE %lu\n", (unsigned long)AMDKFD_IOC_CREATE_QUEUE);
printf("AMDKFD_IOC_WAIT_EVENTS %lu\n", (unsigned long)AMDKFD_IOC_WAIT_EVENTS);
printf("AMDKFD_IOC_SET_XNACK_MODE %lu\n", (unsigned long)AMDKFD_IOC_SET_XNACK_MODE);
return 0; }
"#,
    )
    .unwrap();
    let exe = dir.join("sizes");
    let cc = Command::new("gcc")
        .arg("-I")
        .arg(&dir)
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("gcc is needed (scripts/install-deps.sh installs it)");
    assert!(
        cc.status.success(),
        "gcc: {}",
        String::from_utf8_lossy(&cc.stderr)
    );
    let out = Command::new(&exe).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let got = |name: &str| -> usize {
        text.lines()
            .find_map(|l| l.strip_prefix(name).and_then(|r| r.strip_prefix(' ')))
            .unwrap_or_else(|| panic!("{name} missing in\n{text}"))
            .parse()
            .unwrap()
    };
    let expect = [
        (
            "kfd_ioctl_get_version_args",
            size_of::<abi::GetVersionArgs>(),
        ),
        (
            "kfd_ioctl_create_queue_args",
            size_of::<abi::CreateQueueArgs>(),
        ),
        (
            "kfd_ioctl_destroy_queue_args",
            size_of::<abi::DestroyQueueArgs>(),
        ),
        (
            "kfd_ioctl_update_queue_args",
            size_of::<abi::UpdateQueueArgs>(),
        ),
        (
            "kfd_ioctl_set_memory_policy_args",
            size_of::<abi::SetMemoryPolicyArgs>(),
        ),
        (
            "kfd_ioctl_get_clock_counters_args",
            size_of::<abi::GetClockCountersArgs>(),
        ),
        (
            "kfd_process_device_apertures",
            size_of::<abi::ProcessDeviceApertures>(),
        ),
        (
            "kfd_ioctl_get_process_apertures_new_args",
            size_of::<abi::GetProcessAperturesNewArgs>(),
        ),
        (
            "kfd_ioctl_create_event_args",
            size_of::<abi::CreateEventArgs>(),
        ),
        (
            "kfd_ioctl_destroy_event_args",
            size_of::<abi::EventIdArgs>(),
        ),
        ("kfd_event_data", size_of::<abi::EventData>()),
        (
            "kfd_ioctl_wait_events_args",
            size_of::<abi::WaitEventsArgs>(),
        ),
        (
            "kfd_ioctl_set_scratch_backing_va_args",
            size_of::<abi::SetScratchBackingVaArgs>(),
        ),
        (
            "kfd_ioctl_set_trap_handler_args",
            size_of::<abi::SetTrapHandlerArgs>(),
        ),
        ("kfd_ioctl_acquire_vm_args", size_of::<abi::AcquireVmArgs>()),
        (
            "kfd_ioctl_alloc_memory_of_gpu_args",
            size_of::<abi::AllocMemoryArgs>(),
        ),
        (
            "kfd_ioctl_free_memory_of_gpu_args",
            size_of::<abi::FreeMemoryArgs>(),
        ),
        (
            "kfd_ioctl_map_memory_to_gpu_args",
            size_of::<abi::MapMemoryArgs>(),
        ),
        (
            "kfd_ioctl_set_xnack_mode_args",
            size_of::<abi::SetXnackModeArgs>(),
        ),
        (
            "kfd_ioctl_get_tile_config_args",
            size_of::<abi::GetTileConfigArgs>(),
        ),
        (
            "kfd_ioctl_get_tile_config_args.gpu_id",
            offset_of!(abi::GetTileConfigArgs, gpu_id),
        ),
        (
            "kfd_ioctl_get_tile_config_args.num_ranks",
            offset_of!(abi::GetTileConfigArgs, num_ranks),
        ),
        (
            "kfd_ioctl_create_queue_args.queue_id",
            offset_of!(abi::CreateQueueArgs, queue_id),
        ),
        (
            "kfd_ioctl_create_queue_args.eop_buffer_address",
            offset_of!(abi::CreateQueueArgs, eop_buffer_address),
        ),
        (
            "kfd_ioctl_create_queue_args.ctl_stack_size",
            offset_of!(abi::CreateQueueArgs, ctl_stack_size),
        ),
        (
            "kfd_ioctl_create_event_args.event_slot_index",
            offset_of!(abi::CreateEventArgs, event_slot_index),
        ),
        (
            "kfd_ioctl_alloc_memory_of_gpu_args.flags",
            offset_of!(abi::AllocMemoryArgs, flags),
        ),
        (
            "kfd_ioctl_map_memory_to_gpu_args.n_success",
            offset_of!(abi::MapMemoryArgs, n_success),
        ),
        (
            "kfd_event_data.event_id",
            offset_of!(abi::EventData, event_id),
        ),
        (
            "kfd_ioctl_wait_events_args.wait_result",
            offset_of!(abi::WaitEventsArgs, wait_result),
        ),
    ];
    for (name, rust) in expect {
        assert_eq!(got(name), rust, "{name}");
    }
    // The request numbers (which also encode the sizes) the header and the thunk agree on.
    assert_eq!(
        got("AMDKFD_IOC_ALLOC_MEMORY_OF_GPU") as u64,
        abi::request::ALLOC_MEMORY_OF_GPU
    );
    assert_eq!(
        got("AMDKFD_IOC_CREATE_QUEUE") as u64,
        abi::request::CREATE_QUEUE
    );
    assert_eq!(
        got("AMDKFD_IOC_WAIT_EVENTS") as u64,
        abi::request::WAIT_EVENTS
    );
    assert_eq!(
        got("AMDKFD_IOC_SET_XNACK_MODE") as u64,
        abi::request::SET_XNACK_MODE
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
