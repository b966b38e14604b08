//! The kernarg segment and the per-dispatch values every launcher derives the same way.
//!
//! Both the standalone [`Device`](crate::device::Device) and the SoC's command processor
//! build dispatches; the layout (explicit arguments at their metadata offsets, hidden
//! arguments filled per value kind, CODE-OBJECT.md) lives here once.

use crate::exec::{PRIVATE_APERTURE_HI, SHARED_APERTURE_HI};
use crate::loader::{KernelDescriptor, KernelMetadata, ValueKind};
use crate::{Family, Target};

/// Bytes a kernarg allocation must extend past the segment: compilers read the last
/// arguments with wide scalar loads (an `s_load_dwordx4` at offset 0x18 of a 0x24-byte
/// segment) and the runtime's kernarg pool always has room after a segment.
pub const KERNARG_PAD: u64 = 256;

/// Extra private bytes per lane given to kernels that use a dynamic stack when the
/// launcher does not say how much they need.
pub const DYNAMIC_STACK_BYTES: u32 = 16 * 1024;

/// Shape of a launch, as the AQL packet describes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchShape {
    /// Grid size in work-items.
    pub grid: [u32; 3],
    /// Workgroup size in work-items.
    pub workgroup: [u32; 3],
    /// HIP-style dynamic LDS bytes (`extern __shared__`, ROCclr's `sharedMemBytes`),
    /// placed after the static LDS and the `__local` pointer arguments' LDS.
    pub dynamic_lds: u32,
}

impl LaunchShape {
    /// Dimensions of the launch (the packet's `setup` field): the highest dimension with
    /// more than one work-item in the grid or workgroup.
    pub fn dims(&self) -> u16 {
        if self.grid[2] > 1 || self.workgroup[2] > 1 {
            3
        } else if self.grid[1] > 1 || self.workgroup[1] > 1 {
            2
        } else {
            1
        }
    }

    /// Workgroups per dimension (the last one of a dimension may be partial).
    pub fn workgroup_counts(&self) -> [u32; 3] {
        std::array::from_fn(|d| self.grid[d].div_ceil(self.workgroup[d].max(1)))
    }
}

/// Why explicit arguments do not fit a kernel's metadata, or a launch asks for more LDS
/// than a workgroup can have. All are errors of the launch, not of the device.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KernargError {
    /// The wrong number of explicit arguments.
    #[error("takes {expected} explicit arguments, got {got}")]
    ArgCount {
        /// Metadata count.
        expected: usize,
        /// Supplied count.
        got: usize,
    },
    /// An argument of the wrong size (for a `dynamic_shared_pointer`, the LDS byte count
    /// must have the argument's size too, as `clSetKernelArg` passes it).
    #[error("argument {index} is {expected} bytes, got {got}")]
    ArgSize {
        /// Argument index (explicit arguments, from 0).
        index: usize,
        /// Metadata size.
        expected: u32,
        /// Supplied size.
        got: usize,
    },
    /// Static plus dynamic LDS exceeds what one workgroup may allocate.
    #[error(
        "needs {static_lds} bytes of static LDS + {dynamic_lds} of dynamic LDS = {total}, \
         more than the {limit} bytes a workgroup may have"
    )]
    LdsTooLarge {
        /// The descriptor's `group_segment_fixed_size`.
        static_lds: u32,
        /// `__local` pointer arguments (with alignment padding) plus the launch's dynamic LDS.
        dynamic_lds: u64,
        /// Their sum.
        total: u64,
        /// The device's LDS per workgroup.
        limit: u32,
    },
}

/// A built kernarg segment and the workgroup LDS it implies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kernargs {
    /// The segment's bytes (explicit and hidden arguments).
    pub bytes: Vec<u8>,
    /// Total LDS per workgroup for the packet's `group_segment_size`: static LDS, then
    /// each `__local` pointer argument's bytes at its aligned offset, then the launch's
    /// dynamic LDS.
    pub group_segment_size: u32,
}

/// Alignment of a `dynamic_shared_pointer` argument's LDS when the metadata has no
/// `.pointee_align`: ROCclr's kernel-argument setup (`device/devkernel.cpp`, "Missing
/// DynamicSharedPointer alignment") takes 128, the worst case.
pub const DEFAULT_LDS_ARG_ALIGN: u32 = 128;

/// Builds the kernarg segment: `args` are the explicit arguments' bytes in metadata order.
///
/// A `dynamic_shared_pointer` (OpenCL `__local` pointer) argument's bytes are its LDS size
/// (a little-endian integer of the argument's size, as `clSetKernelArg(k, i, size, NULL)`
/// gives it); the segment gets its LDS offset instead. As ROCclr's `processMemObjects`
/// (`device/rocm/rocvirtual.cpp`) does, offsets start after the static LDS
/// (`group_segment_fixed_size`), each is aligned up to the argument's `.pointee_align`
/// ([`DEFAULT_LDS_ARG_ALIGN`] without one), and the next starts after its bytes. The
/// launch's HIP-style `dynamic_lds` comes after all of them (`group_segment_size =
/// ldsUsage + sharedMemBytes`). `lds_limit` is the device's LDS per workgroup.
///
/// Hidden arguments get what ROCclr's `submitKernelInternal` writes; see the table in
/// the match below.
pub fn build_kernargs<'a>(
    md: &KernelMetadata,
    desc: &KernelDescriptor,
    shape: &LaunchShape,
    queue_address: u64,
    args: impl ExactSizeIterator<Item = &'a [u8]>,
    lds_limit: u32,
) -> Result<Kernargs, KernargError> {
    let explicit = md.explicit_args().count();
    if explicit != args.len() {
        return Err(KernargError::ArgCount {
            expected: explicit,
            got: args.len(),
        });
    }
    let seg = (md.kernarg_segment_size.max(desc.kernarg_size) as usize).max(16);
    let mut kernargs = vec![0u8; seg];
    let static_lds = desc.group_segment_fixed_size;
    // u64: a sum of caller-given sizes must not wrap before the limit check.
    let mut lds_next = u64::from(static_lds);
    for (index, (a, v)) in md.explicit_args().zip(args).enumerate() {
        if v.len() != a.size as usize {
            return Err(KernargError::ArgSize {
                index,
                expected: a.size,
                got: v.len(),
            });
        }
        if a.value_kind == ValueKind::DynamicSharedPointer {
            let mut size = [0u8; 8];
            size[..v.len().min(8)].copy_from_slice(&v[..v.len().min(8)]);
            let align = u64::from(a.pointee_align.unwrap_or(DEFAULT_LDS_ARG_ALIGN).max(1));
            lds_next = lds_next.div_ceil(align) * align;
            let offset = lds_next.to_le_bytes();
            put(&mut kernargs, a.offset, &offset[..v.len().min(8)]);
            lds_next = lds_next.saturating_add(u64::from_le_bytes(size));
            continue;
        }
        put(&mut kernargs, a.offset, v);
    }
    let total = lds_next.saturating_add(u64::from(shape.dynamic_lds));
    if total > u64::from(lds_limit) {
        return Err(KernargError::LdsTooLarge {
            static_lds,
            dynamic_lds: total - u64::from(static_lds),
            total,
            limit: lds_limit,
        });
    }
    let (grid, wg) = (shape.grid, shape.workgroup);
    for a in md.hidden_args() {
        // What ROCclr's submitKernelInternal (device/rocm/rocvirtual.cpp) writes, and what
        // we write where we differ (a runtime without that service):
        let v: u64 = match a.value_kind {
            // ROCclr: global / local, rounded DOWN (uint32 division): the number of FULL
            // workgroups. The device libraries' get_local_size is `group_id < block_count ?
            // group_size : remainder` (code object v5+), so a rounded-up count would give
            // the last, partial group the full size. 1 / 1 = 1 in unused dimensions.
            ValueKind::HiddenBlockCountX => u64::from(grid[0] / wg[0].max(1)),
            ValueKind::HiddenBlockCountY => u64::from(grid[1] / wg[1].max(1)),
            ValueKind::HiddenBlockCountZ => u64::from(grid[2] / wg[2].max(1)),
            // ROCclr: the workgroup size (1 in unused dimensions).
            ValueKind::HiddenGroupSizeX => u64::from(wg[0]),
            ValueKind::HiddenGroupSizeY => u64::from(wg[1]),
            ValueKind::HiddenGroupSizeZ => u64::from(wg[2]),
            // ROCclr: global % local (0 in unused dimensions, where it writes nothing).
            ValueKind::HiddenRemainderX => u64::from(grid[0] % wg[0].max(1)),
            ValueKind::HiddenRemainderY => u64::from(grid[1] % wg[1].max(1)),
            ValueKind::HiddenRemainderZ => u64::from(grid[2] % wg[2].max(1)),
            // ROCclr: the launch's dimensions, which our launches do not carry: the packet's
            // `setup` dimensions ([`LaunchShape::dims`]) stand for them.
            ValueKind::HiddenGridDims => u64::from(shape.dims()),
            // ROCclr: `sharedMemBytes`, the HIP launch's dynamic LDS only (not the OpenCL
            // `__local` arguments, which the kernel sees as pointers).
            ValueKind::HiddenDynamicLdsSize => u64::from(shape.dynamic_lds),
            // ROCclr: the queue's `private/group_segment_aperture_base_hi`.
            ValueKind::HiddenPrivateBase => u64::from(PRIVATE_APERTURE_HI),
            ValueKind::HiddenSharedBase => u64::from(SHARED_APERTURE_HI),
            // ROCclr: the AQL queue's address.
            ValueKind::HiddenQueuePtr => queue_address,
            // ROCclr: the launch's global offset; ours is always 0.
            ValueKind::HiddenGlobalOffsetX
            | ValueKind::HiddenGlobalOffsetY
            | ValueKind::HiddenGlobalOffsetZ => 0,
            // ROCclr writes 0 for these unless the launch uses the service: the default
            // queue and completion action only with device enqueue, the multigrid sync
            // info only for cooperative launches, nothing for hidden_none and the tool
            // correlation id. Same here.
            // Service buffers are written after the segment is built, by
            // [`crate::service::DispatchServices::attach`], which allocates them: the
            // hostcall buffer. Those it does not provide stay null, so a kernel that uses
            // one faults on a near-null address instead of computing garbage.
            _ => 0,
        };
        let n = (a.size as usize).min(8);
        put(&mut kernargs, a.offset, &v.to_le_bytes()[..n]);
    }
    Ok(Kernargs {
        bytes: kernargs,
        group_segment_size: u32::try_from(total).unwrap_or(u32::MAX),
    })
}

/// Private (scratch) bytes per lane a dispatch gives the kernel: the descriptor's fixed
/// size plus `extra`, or plus [`DYNAMIC_STACK_BYTES`] for a dynamic stack when `extra` is 0.
pub fn private_bytes_per_lane(desc: &KernelDescriptor, md: &KernelMetadata, extra: u32) -> u32 {
    let mut private = desc.private_segment_fixed_size.saturating_add(extra);
    if extra == 0 && (desc.uses_dynamic_stack() || md.uses_dynamic_stack) {
        private = private.saturating_add(DYNAMIC_STACK_BYTES);
    }
    private
}

/// Where waves start: with kernarg preload on GFX9, firmware that supports it enters
/// 256 bytes past the descriptor's entry (the code at the entry is the fallback).
pub fn entry_pc(target: Target, desc: &KernelDescriptor, entry_address: u64) -> u64 {
    if target.family() == Family::Gfx9 && desc.kernarg_preload_length() > 0 {
        entry_address + 256
    } else {
        entry_address
    }
}

/// Writes a hidden pointer argument of `size` bytes (at most 8) at `off`.
pub(crate) fn put_u64(buf: &mut [u8], off: u32, size: u32, v: u64) {
    put(buf, off, &v.to_le_bytes()[..(size as usize).min(8)]);
}

/// Copies `v` into `buf` at `off`, dropping what does not fit (the segment is sized from
/// the metadata the offsets come from).
fn put(buf: &mut [u8], off: u32, v: &[u8]) {
    let off = off as usize;
    if let Some(dst) = buf.get_mut(off..off + v.len()) {
        dst.copy_from_slice(v);
    }
}

/// The design's `VirtualLdsDispatchState` for a dispatch of a virtual-LDS sidecar
/// (`sidecar`, its descriptor) that asks for `lds` bytes per workgroup over `groups`
/// workgroups (../shared/seeds/000_*-dbt-design.txt, "Sidecars and Virtual LDS"): the
/// strides by which a workgroup's slice of the backing follows from its ids (0 in a
/// singleton dimension), and the backing's size. A dimension with more than one workgroup
/// needs the descriptor's workgroup-id SGPR for it.
pub fn virtual_lds_state(
    sidecar: &KernelDescriptor,
    lds: u32,
    groups: [u32; 3],
) -> Result<([u32; 3], u64), String> {
    // ASSUMPTION: slices 256-byte aligned (the design does not say; any multiple of the
    // widest LDS access, 16 bytes, keeps every access aligned as it was).
    let slice = u64::from(lds).next_multiple_of(256);
    let enabled = [
        sidecar.enable_workgroup_id_x(),
        sidecar.enable_workgroup_id_y(),
        sidecar.enable_workgroup_id_z(),
    ];
    let mut strides = [0u32; 3];
    let mut step = slice;
    for d in 0..3 {
        if groups[d] > 1 {
            if !enabled[d] {
                return Err(format!(
                    "the virtual-LDS sidecar has no workgroup id in dimension {d}, which has {} workgroups",
                    groups[d]
                ));
            }
            strides[d] = u32::try_from(step)
                .map_err(|_| format!("virtual-LDS stride {step:#x} does not fit 32 bits"))?;
        }
        step = step.saturating_mul(u64::from(groups[d].max(1)));
    }
    Ok((strides, step))
}

/// Writes the dispatch state (`backing` and `strides`, see [`virtual_lds_state`]) at
/// `offset` of the kernarg segment `kernargs`, growing it as needed.
pub fn write_virtual_lds_state(
    kernargs: &mut Vec<u8>,
    offset: u32,
    backing: u64,
    strides: &[u32; 3],
) {
    let at = offset as usize;
    let end = at + crate::loader::VIRTUAL_LDS_STATE_BYTES;
    if kernargs.len() < end {
        kernargs.resize(end, 0);
    }
    kernargs[at..at + 8].copy_from_slice(&backing.to_le_bytes());
    for (k, s) in strides.iter().enumerate() {
        kernargs[at + 8 + 4 * k..at + 12 + 4 * k].copy_from_slice(&s.to_le_bytes());
    }
    kernargs[at + 20..end].fill(0);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dims_and_counts_follow_the_packet_rules() {
        let s = LaunchShape {
            grid: [100, 1, 1],
            workgroup: [64, 1, 1],
            dynamic_lds: 0,
        };
        assert_eq!(s.dims(), 1);
        assert_eq!(s.workgroup_counts(), [2, 1, 1]);
        let s = LaunchShape {
            grid: [8, 8, 3],
            workgroup: [4, 4, 1],
            dynamic_lds: 0,
        };
        assert_eq!(s.dims(), 3);
        assert_eq!(s.workgroup_counts(), [2, 2, 3]);
    }
}
