//! Every hidden argument clang-22 declares for code object v4, v5 and v6, read back by a
//! kernel from its implicit-argument area (`fixtures/abi/implicit.cl`, which uses
//! `__builtin_amdgcn_implicitarg_ptr`, so the metadata lists all of them), against what
//! ROCclr's `submitKernelInternal` (`device/rocm/rocvirtual.cpp`) writes, computed here from
//! the launch shape without the model. The flat apertures the hardware gives
//! (`src_shared_base`, `src_private_base`) must agree with the `hidden_shared_base` /
//! `hidden_private_base` values, and `__builtin_amdgcn_queue_ptr` with `hidden_queue_ptr`.

use gpu_model::device::{ArgValue, Device, LaunchConfig};
use gpu_model::exec::{PRIVATE_APERTURE_HI, SHARED_APERTURE_HI};
use gpu_model::loader::{CodeObject, ValueKind};
use gpu_model::Target;

fn fixture(name: &str) -> Vec<u8> {
    let p = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/abi/");
    std::fs::read(format!("{p}{name}")).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The value ROCclr writes for a hidden argument of a launch of `grid` in groups of `wg`,
/// or `None` where it is an address the runtime chooses (checked separately).
fn rocclr(kind: &ValueKind, grid: [u32; 3], wg: [u32; 3], queue: u64) -> Option<u64> {
    let d = |k: &ValueKind, x: ValueKind, y: ValueKind, z: ValueKind| {
        [x, y, z].iter().position(|v| v == k)
    };
    use ValueKind as V;
    if let Some(i) = d(
        kind,
        V::HiddenBlockCountX,
        V::HiddenBlockCountY,
        V::HiddenBlockCountZ,
    ) {
        // Full workgroups only (uint32 division): the device library's get_local_size is
        // `group_id < block_count ? group_size : remainder`.
        return Some(u64::from(grid[i] / wg[i]));
    }
    if let Some(i) = d(
        kind,
        V::HiddenGroupSizeX,
        V::HiddenGroupSizeY,
        V::HiddenGroupSizeZ,
    ) {
        return Some(u64::from(wg[i]));
    }
    if let Some(i) = d(
        kind,
        V::HiddenRemainderX,
        V::HiddenRemainderY,
        V::HiddenRemainderZ,
    ) {
        return Some(u64::from(grid[i] % wg[i]));
    }
    Some(match kind {
        // No global offset in a HIP or OpenCL launch here.
        V::HiddenGlobalOffsetX | V::HiddenGlobalOffsetY | V::HiddenGlobalOffsetZ => 0,
        V::HiddenGridDims => {
            if grid[2] > 1 || wg[2] > 1 {
                3
            } else if grid[1] > 1 || wg[1] > 1 {
                2
            } else {
                1
            }
        }
        // Not a cooperative launch, no device enqueue: ROCclr leaves these 0.
        V::HiddenMultigridSyncArg | V::HiddenDefaultQueue | V::HiddenCompletionAction => 0,
        V::HiddenQueuePtr => queue,
        V::HiddenPrivateBase => u64::from(PRIVATE_APERTURE_HI),
        V::HiddenSharedBase => u64::from(SHARED_APERTURE_HI),
        // No `hipLaunchKernel` dynamic LDS in this launch.
        V::HiddenDynamicLdsSize => 0,
        // Service buffers: an address the runtime allocates.
        _ => return None,
    })
}

fn check(target: Target, version: u32, grid: [u32; 3], wg: [u32; 3]) {
    let file = format!("implicit_{target}_v{version}.hsaco");
    let bytes = fixture(&file);
    let co = CodeObject::parse(&bytes).unwrap();
    let md = co
        .kernel("implicit_args")
        .unwrap()
        .metadata
        .clone()
        .unwrap();
    let hidden: Vec<_> = md.hidden_args().cloned().collect();
    let base = hidden.iter().map(|a| a.offset).min().unwrap();
    let kinds: Vec<ValueKind> = hidden.iter().map(|a| a.value_kind.clone()).collect();
    // What clang-22 declares for each version (AMDGPUUsage, "Code Object V4/V5 Metadata").
    let want_kinds: &[ValueKind] = if version == 4 {
        &[
            ValueKind::HiddenGlobalOffsetX,
            ValueKind::HiddenGlobalOffsetY,
            ValueKind::HiddenGlobalOffsetZ,
            ValueKind::HiddenHostcallBuffer,
            ValueKind::HiddenDefaultQueue,
            ValueKind::HiddenCompletionAction,
            ValueKind::HiddenMultigridSyncArg,
        ]
    } else {
        &[
            ValueKind::HiddenBlockCountX,
            ValueKind::HiddenBlockCountY,
            ValueKind::HiddenBlockCountZ,
            ValueKind::HiddenGroupSizeX,
            ValueKind::HiddenGroupSizeY,
            ValueKind::HiddenGroupSizeZ,
            ValueKind::HiddenRemainderX,
            ValueKind::HiddenRemainderY,
            ValueKind::HiddenRemainderZ,
            ValueKind::HiddenGlobalOffsetX,
            ValueKind::HiddenGlobalOffsetY,
            ValueKind::HiddenGlobalOffsetZ,
            ValueKind::HiddenGridDims,
            ValueKind::HiddenHostcallBuffer,
            ValueKind::HiddenMultigridSyncArg,
            ValueKind::HiddenHeapV1,
            ValueKind::HiddenDefaultQueue,
            ValueKind::HiddenCompletionAction,
            ValueKind::HiddenQueuePtr,
        ]
    };
    assert_eq!(kinds, want_kinds, "{file}: hidden arguments");

    let mut dev = Device::new(target);
    let m = dev.load_code_object(&bytes).unwrap();
    let area = dev.alloc(256).unwrap();
    let other = dev.alloc(32).unwrap();
    dev.copy_in(area, &[0xa5; 256]).unwrap();
    let id = dev
        .dispatch(
            m,
            "implicit_args",
            &LaunchConfig::new(grid, wg),
            &[ArgValue::ptr(area), ArgValue::ptr(other)],
        )
        .unwrap();
    dev.wait(id).unwrap_or_else(|e| panic!("{file}: {e}"));
    let mut a = [0u8; 256];
    dev.copy_out(area, &mut a).unwrap();
    let mut o = [0u8; 32];
    dev.copy_out(other, &mut o).unwrap();
    let o: Vec<u64> = o
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let queue = dev.queue().queue_address;
    for h in &hidden {
        let at = (h.offset - base) as usize;
        let n = h.size as usize;
        let mut v = [0u8; 8];
        v[..n].copy_from_slice(&a[at..at + n]);
        let got = u64::from_le_bytes(v);
        match rocclr(&h.value_kind, grid, wg, queue) {
            Some(want) => assert_eq!(
                got, want,
                "{file} grid {grid:?} wg {wg:?}: {:?} at implicit offset {at}",
                h.value_kind
            ),
            // A service buffer the dispatch allocated: a device address, 8-byte aligned.
            None => assert!(
                got != 0 && got % 8 == 0,
                "{file}: {:?} = {got:#x}",
                h.value_kind
            ),
        }
    }
    assert_eq!(
        o[0],
        u64::from(SHARED_APERTURE_HI),
        "{file}: src_shared_base"
    );
    assert_eq!(
        o[1],
        u64::from(PRIVATE_APERTURE_HI),
        "{file}: src_private_base"
    );
    assert_eq!(o[2], queue, "{file}: __builtin_amdgcn_queue_ptr");
    assert_ne!(o[3], 0, "{file}: __builtin_amdgcn_dispatch_ptr");
}

fn all_versions(target: Target) {
    for v in [4, 5, 6] {
        // 1-D with a partial last group (1000 = 15 * 64 + 40).
        check(target, v, [1000, 1, 1], [64, 1, 1]);
        // 3-D, partial in x and y.
        check(target, v, [1000, 7, 3], [64, 2, 1]);
    }
}

#[test]
fn gfx942_hidden_arguments_v4_v5_v6_are_what_rocclr_writes() {
    all_versions(Target::Gfx942);
}

#[test]
fn gfx1201_hidden_arguments_v4_v5_v6_are_what_rocclr_writes() {
    all_versions(Target::Gfx1201);
}
