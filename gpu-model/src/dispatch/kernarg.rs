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
    /// Dynamic LDS bytes requested by the launch.
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

/// Why explicit arguments do not fit a kernel's metadata.
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
    /// An argument of the wrong size.
    #[error("argument {index} is {expected} bytes, got {got}")]
    ArgSize {
        /// Argument index (explicit arguments, from 0).
        index: usize,
        /// Metadata size.
        expected: u32,
        /// Supplied size.
        got: usize,
    },
}

/// Builds the kernarg segment: `args` are the explicit arguments' bytes in metadata order
/// (a dynamic-LDS pointer argument's value is ignored: its LDS offset is computed).
pub fn build_kernargs<'a>(
    md: &KernelMetadata,
    desc: &KernelDescriptor,
    shape: &LaunchShape,
    queue_address: u64,
    args: impl ExactSizeIterator<Item = &'a [u8]>,
) -> Result<Vec<u8>, KernargError> {
    let explicit = md.explicit_args().count();
    if explicit != args.len() {
        return Err(KernargError::ArgCount {
            expected: explicit,
            got: args.len(),
        });
    }
    let seg = (md.kernarg_segment_size.max(desc.kernarg_size) as usize).max(16);
    let mut kernargs = vec![0u8; seg];
    let mut dyn_lds_next = desc.group_segment_fixed_size;
    for (index, (a, v)) in md.explicit_args().zip(args).enumerate() {
        if a.value_kind == ValueKind::DynamicSharedPointer {
            // The LDS offset of this argument's dynamic allocation.
            let align = a.pointee_align.unwrap_or(4).max(1);
            dyn_lds_next = dyn_lds_next.div_ceil(align) * align;
            put(&mut kernargs, a.offset, &dyn_lds_next.to_le_bytes());
            continue;
        }
        if v.len() != a.size as usize {
            return Err(KernargError::ArgSize {
                index,
                expected: a.size,
                got: v.len(),
            });
        }
        put(&mut kernargs, a.offset, v);
    }
    let (grid, wg) = (shape.grid, shape.workgroup);
    for a in md.hidden_args() {
        let v: u64 = match a.value_kind {
            // The number of FULL workgroups (rounded down), as ROCm's runtime writes it: the
            // device libraries' get_local_size is `group_id < block_count ? group_size :
            // remainder` (code object v5+), so a rounded-up count would give the last,
            // partial group the full size.
            ValueKind::HiddenBlockCountX => u64::from(grid[0] / wg[0].max(1)),
            ValueKind::HiddenBlockCountY => u64::from(grid[1] / wg[1].max(1)),
            ValueKind::HiddenBlockCountZ => u64::from(grid[2] / wg[2].max(1)),
            ValueKind::HiddenGroupSizeX => u64::from(wg[0]),
            ValueKind::HiddenGroupSizeY => u64::from(wg[1]),
            ValueKind::HiddenGroupSizeZ => u64::from(wg[2]),
            ValueKind::HiddenRemainderX => u64::from(grid[0] % wg[0].max(1)),
            ValueKind::HiddenRemainderY => u64::from(grid[1] % wg[1].max(1)),
            ValueKind::HiddenRemainderZ => u64::from(grid[2] % wg[2].max(1)),
            ValueKind::HiddenGridDims => u64::from(shape.dims()),
            ValueKind::HiddenDynamicLdsSize => u64::from(shape.dynamic_lds),
            ValueKind::HiddenPrivateBase => u64::from(PRIVATE_APERTURE_HI),
            ValueKind::HiddenSharedBase => u64::from(SHARED_APERTURE_HI),
            ValueKind::HiddenQueuePtr => queue_address,
            // Offsets, printf/hostcall buffers, multigrid sync and the rest: zero, as a
            // runtime without those services leaves them.
            _ => 0,
        };
        let n = (a.size as usize).min(8);
        put(&mut kernargs, a.offset, &v.to_le_bytes()[..n]);
    }
    Ok(kernargs)
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

/// Copies `v` into `buf` at `off`, dropping what does not fit (the segment is sized from
/// the metadata the offsets come from).
fn put(buf: &mut [u8], off: u32, v: &[u8]) {
    let off = off as usize;
    if let Some(dst) = buf.get_mut(off..off + v.len()) {
        dst.copy_from_slice(v);
    }
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
