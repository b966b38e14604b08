//! The 64-byte AMDHSA kernel descriptor and its bit fields.

use crate::{Family, Target};

/// Size of a kernel descriptor in bytes.
pub const KERNEL_DESCRIPTOR_SIZE: usize = 64;

/// A kernel descriptor, every field as stored (see CODE-OBJECT.md and LLVM's
/// AMDHSAKernelDescriptor.h). Bit fields are read through the accessors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct KernelDescriptor {
    /// Static LDS bytes (offset 0).
    pub group_segment_fixed_size: u32,
    /// Scratch bytes per work-item (offset 4).
    pub private_segment_fixed_size: u32,
    /// Kernel argument segment size in bytes (offset 8).
    pub kernarg_size: u32,
    /// Reserved (offset 12).
    pub reserved0: [u8; 4],
    /// Signed offset of the entry from the descriptor's address (offset 16).
    pub kernel_code_entry_byte_offset: i64,
    /// Reserved (offset 24).
    pub reserved1: [u8; 20],
    /// COMPUTE_PGM_RSRC3 (offset 44).
    pub compute_pgm_rsrc3: u32,
    /// COMPUTE_PGM_RSRC1 (offset 48).
    pub compute_pgm_rsrc1: u32,
    /// COMPUTE_PGM_RSRC2 (offset 52).
    pub compute_pgm_rsrc2: u32,
    /// Kernel code properties (offset 56).
    pub kernel_code_properties: u16,
    /// Kernarg preload: length (dwords) in bits 6:0, offset (dwords) in bits 15:7 (offset 58).
    pub kernarg_preload: u16,
    /// Reserved (offset 60).
    pub reserved2: [u8; 4],
}

/// Extracts bits `hi..=lo` of `v`.
const fn bits(v: u32, hi: u32, lo: u32) -> u32 {
    (v >> lo) & (u32::MAX >> (31 - (hi - lo)))
}

/// A user SGPR the kernel asks the hardware/firmware to initialise, in assignment order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UserSgpr {
    /// The 128-bit private segment buffer descriptor (4 SGPRs).
    PrivateSegmentBuffer,
    /// The 64-bit AQL dispatch packet address (2 SGPRs).
    DispatchPtr,
    /// The 64-bit AQL queue address (2 SGPRs).
    QueuePtr,
    /// The 64-bit kernarg segment address (2 SGPRs).
    KernargSegmentPtr,
    /// The 64-bit dispatch id (2 SGPRs).
    DispatchId,
    /// Flat scratch base and size (2 SGPRs).
    FlatScratchInit,
    /// The private segment size per work-item (1 SGPR).
    PrivateSegmentSize,
}

impl UserSgpr {
    /// Every user SGPR kind, in the order the hardware assigns them (kernel code property
    /// bits 0..=6).
    pub const ORDER: [UserSgpr; 7] = [
        UserSgpr::PrivateSegmentBuffer,
        UserSgpr::DispatchPtr,
        UserSgpr::QueuePtr,
        UserSgpr::KernargSegmentPtr,
        UserSgpr::DispatchId,
        UserSgpr::FlatScratchInit,
        UserSgpr::PrivateSegmentSize,
    ];

    /// How many SGPRs it takes.
    pub const fn count(self) -> u8 {
        match self {
            UserSgpr::PrivateSegmentBuffer => 4,
            UserSgpr::PrivateSegmentSize => 1,
            _ => 2,
        }
    }

    /// Its enable bit in kernel_code_properties.
    pub const fn property_bit(self) -> u16 {
        1 << match self {
            UserSgpr::PrivateSegmentBuffer => 0,
            UserSgpr::DispatchPtr => 1,
            UserSgpr::QueuePtr => 2,
            UserSgpr::KernargSegmentPtr => 3,
            UserSgpr::DispatchId => 4,
            UserSgpr::FlatScratchInit => 5,
            UserSgpr::PrivateSegmentSize => 6,
        }
    }
}

/// Where each enabled user SGPR starts (SGPR number), as the dispatcher must fill them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UserSgprLayout {
    /// First SGPR of the private segment buffer descriptor.
    pub private_segment_buffer: Option<u8>,
    /// First SGPR of the dispatch packet pointer.
    pub dispatch_ptr: Option<u8>,
    /// First SGPR of the queue pointer.
    pub queue_ptr: Option<u8>,
    /// First SGPR of the kernarg segment pointer.
    pub kernarg_segment_ptr: Option<u8>,
    /// First SGPR of the dispatch id.
    pub dispatch_id: Option<u8>,
    /// First SGPR of flat scratch init.
    pub flat_scratch_init: Option<u8>,
    /// The private segment size SGPR.
    pub private_segment_size: Option<u8>,
    /// First SGPR of the preloaded kernel arguments (after the above), if any.
    pub kernarg_preload: Option<u8>,
    /// SGPRs used by everything above (the first free user SGPR).
    pub end: u8,
}

impl KernelDescriptor {
    /// Decodes a descriptor from its 64 bytes.
    pub fn from_bytes(b: &[u8; KERNEL_DESCRIPTOR_SIZE]) -> KernelDescriptor {
        let u32_at = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        let mut r1 = [0u8; 20];
        r1.copy_from_slice(&b[24..44]);
        let mut e = [0u8; 8];
        e.copy_from_slice(&b[16..24]);
        KernelDescriptor {
            group_segment_fixed_size: u32_at(0),
            private_segment_fixed_size: u32_at(4),
            kernarg_size: u32_at(8),
            reserved0: [b[12], b[13], b[14], b[15]],
            kernel_code_entry_byte_offset: i64::from_le_bytes(e),
            reserved1: r1,
            compute_pgm_rsrc3: u32_at(44),
            compute_pgm_rsrc1: u32_at(48),
            compute_pgm_rsrc2: u32_at(52),
            kernel_code_properties: u16::from_le_bytes([b[56], b[57]]),
            kernarg_preload: u16::from_le_bytes([b[58], b[59]]),
            reserved2: [b[60], b[61], b[62], b[63]],
        }
    }

    /// Encodes the descriptor back to its 64 bytes (for translators and tests).
    pub fn to_bytes(&self) -> [u8; KERNEL_DESCRIPTOR_SIZE] {
        let mut b = [0u8; KERNEL_DESCRIPTOR_SIZE];
        b[0..4].copy_from_slice(&self.group_segment_fixed_size.to_le_bytes());
        b[4..8].copy_from_slice(&self.private_segment_fixed_size.to_le_bytes());
        b[8..12].copy_from_slice(&self.kernarg_size.to_le_bytes());
        b[12..16].copy_from_slice(&self.reserved0);
        b[16..24].copy_from_slice(&self.kernel_code_entry_byte_offset.to_le_bytes());
        b[24..44].copy_from_slice(&self.reserved1);
        b[44..48].copy_from_slice(&self.compute_pgm_rsrc3.to_le_bytes());
        b[48..52].copy_from_slice(&self.compute_pgm_rsrc1.to_le_bytes());
        b[52..56].copy_from_slice(&self.compute_pgm_rsrc2.to_le_bytes());
        b[56..58].copy_from_slice(&self.kernel_code_properties.to_le_bytes());
        b[58..60].copy_from_slice(&self.kernarg_preload.to_le_bytes());
        b[60..64].copy_from_slice(&self.reserved2);
        b
    }

    // ---- compute_pgm_rsrc1 ----

    /// GRANULATED_WORKITEM_VGPR_COUNT (rsrc1 5:0).
    pub const fn granulated_workitem_vgpr_count(&self) -> u32 {
        bits(self.compute_pgm_rsrc1, 5, 0)
    }
    /// GRANULATED_WAVEFRONT_SGPR_COUNT (rsrc1 9:6; gfx9 only, 0 on gfx10+).
    pub const fn granulated_wavefront_sgpr_count(&self) -> u32 {
        bits(self.compute_pgm_rsrc1, 9, 6)
    }
    /// PRIORITY (rsrc1 11:10).
    pub const fn priority(&self) -> u32 {
        bits(self.compute_pgm_rsrc1, 11, 10)
    }
    /// FLOAT_ROUND_MODE_32 (rsrc1 13:12).
    pub const fn float_round_mode_32(&self) -> u32 {
        bits(self.compute_pgm_rsrc1, 13, 12)
    }
    /// FLOAT_ROUND_MODE_16_64 (rsrc1 15:14).
    pub const fn float_round_mode_16_64(&self) -> u32 {
        bits(self.compute_pgm_rsrc1, 15, 14)
    }
    /// FLOAT_DENORM_MODE_32 (rsrc1 17:16).
    pub const fn float_denorm_mode_32(&self) -> u32 {
        bits(self.compute_pgm_rsrc1, 17, 16)
    }
    /// FLOAT_DENORM_MODE_16_64 (rsrc1 19:18).
    pub const fn float_denorm_mode_16_64(&self) -> u32 {
        bits(self.compute_pgm_rsrc1, 19, 18)
    }
    /// The 8-bit MODE register initial value the rsrc1 float fields describe
    /// (round modes in 3:0, denorm modes in 7:4), as s_getreg of MODE reads it.
    pub const fn float_mode(&self) -> u32 {
        bits(self.compute_pgm_rsrc1, 19, 12)
    }
    /// PRIV (rsrc1 bit 20).
    pub const fn priv_(&self) -> bool {
        self.compute_pgm_rsrc1 & (1 << 20) != 0
    }
    /// ENABLE_DX10_CLAMP on gfx9, WG_RR_EN on gfx12 (rsrc1 bit 21).
    pub const fn rsrc1_bit21(&self) -> bool {
        self.compute_pgm_rsrc1 & (1 << 21) != 0
    }
    /// DEBUG_MODE (rsrc1 bit 22).
    pub const fn debug_mode(&self) -> bool {
        self.compute_pgm_rsrc1 & (1 << 22) != 0
    }
    /// ENABLE_IEEE_MODE on gfx9, DISABLE_PERF on gfx12 (rsrc1 bit 23).
    pub const fn rsrc1_bit23(&self) -> bool {
        self.compute_pgm_rsrc1 & (1 << 23) != 0
    }
    /// DX10_CLAMP on gfx9 targets (rsrc1 bit 21 when `family` is Gfx9).
    pub const fn dx10_clamp(&self, family: Family) -> bool {
        matches!(family, Family::Gfx9) && self.rsrc1_bit21()
    }
    /// IEEE_MODE on gfx9 targets (rsrc1 bit 23 when `family` is Gfx9).
    pub const fn ieee_mode(&self, family: Family) -> bool {
        matches!(family, Family::Gfx9) && self.rsrc1_bit23()
    }
    /// FP16_OVFL (rsrc1 bit 26).
    pub const fn fp16_ovfl(&self) -> bool {
        self.compute_pgm_rsrc1 & (1 << 26) != 0
    }
    /// WGP_MODE (rsrc1 bit 29, gfx10+).
    pub const fn wgp_mode(&self) -> bool {
        self.compute_pgm_rsrc1 & (1 << 29) != 0
    }
    /// MEM_ORDERED (rsrc1 bit 30, gfx10+).
    pub const fn mem_ordered(&self) -> bool {
        self.compute_pgm_rsrc1 & (1 << 30) != 0
    }
    /// FWD_PROGRESS (rsrc1 bit 31, gfx10+).
    pub const fn fwd_progress(&self) -> bool {
        self.compute_pgm_rsrc1 & (1 << 31) != 0
    }

    /// VGPRs allocated per work-item as the hardware sees it: (granulated count + 1)
    /// times the allocation granule (8 on CDNA, where it covers VGPRs + AGPRs; on gfx12 8
    /// for wave32 and 4 for wave64).
    pub fn allocated_vgprs(&self, target: Target) -> u32 {
        let granule = match target.family() {
            Family::Gfx9 => 8,
            Family::Gfx12 if self.wavefront_size32() => 8,
            Family::Gfx12 => 4,
        };
        (self.granulated_workitem_vgpr_count() + 1) * granule
    }

    /// SGPRs allocated per wave on gfx9 ((granulated count + 1) * 8; gfx10+ always
    /// allocates the full set, reported as `None`).
    pub fn allocated_sgprs(&self, target: Target) -> Option<u32> {
        match target.family() {
            Family::Gfx9 => Some((self.granulated_wavefront_sgpr_count() + 1) * 8),
            Family::Gfx12 => None,
        }
    }

    // ---- compute_pgm_rsrc2 ----

    /// ENABLE_PRIVATE_SEGMENT (rsrc2 bit 0).
    pub const fn enable_private_segment(&self) -> bool {
        self.compute_pgm_rsrc2 & 1 != 0
    }
    /// USER_SGPR_COUNT (rsrc2 5:1): user SGPRs including preloaded kernel arguments.
    pub const fn user_sgpr_count(&self) -> u32 {
        bits(self.compute_pgm_rsrc2, 5, 1)
    }
    /// ENABLE_TRAP_HANDLER (rsrc2 bit 6).
    pub const fn enable_trap_handler(&self) -> bool {
        self.compute_pgm_rsrc2 & (1 << 6) != 0
    }
    /// ENABLE_SGPR_WORKGROUP_ID_X (rsrc2 bit 7).
    pub const fn enable_workgroup_id_x(&self) -> bool {
        self.compute_pgm_rsrc2 & (1 << 7) != 0
    }
    /// ENABLE_SGPR_WORKGROUP_ID_Y (rsrc2 bit 8).
    pub const fn enable_workgroup_id_y(&self) -> bool {
        self.compute_pgm_rsrc2 & (1 << 8) != 0
    }
    /// ENABLE_SGPR_WORKGROUP_ID_Z (rsrc2 bit 9).
    pub const fn enable_workgroup_id_z(&self) -> bool {
        self.compute_pgm_rsrc2 & (1 << 9) != 0
    }
    /// ENABLE_SGPR_WORKGROUP_INFO (rsrc2 bit 10).
    pub const fn enable_workgroup_info(&self) -> bool {
        self.compute_pgm_rsrc2 & (1 << 10) != 0
    }
    /// ENABLE_VGPR_WORKITEM_ID (rsrc2 12:11): 0 x only, 1 x and y, 2 x, y and z.
    pub const fn vgpr_workitem_id(&self) -> u32 {
        bits(self.compute_pgm_rsrc2, 12, 11)
    }
    /// ENABLE_EXCEPTION_ADDRESS_WATCH (rsrc2 bit 13).
    pub const fn enable_exception_address_watch(&self) -> bool {
        self.compute_pgm_rsrc2 & (1 << 13) != 0
    }
    /// ENABLE_EXCEPTION_MEMORY (rsrc2 bit 14).
    pub const fn enable_exception_memory(&self) -> bool {
        self.compute_pgm_rsrc2 & (1 << 14) != 0
    }
    /// GRANULATED_LDS_SIZE (rsrc2 23:15; written by the CP, 0 in objects).
    pub const fn granulated_lds_size(&self) -> u32 {
        bits(self.compute_pgm_rsrc2, 23, 15)
    }
    /// The floating point and integer divide exception enables (rsrc2 30:24).
    pub const fn exception_enables(&self) -> u32 {
        bits(self.compute_pgm_rsrc2, 30, 24)
    }
    /// Number of system SGPRs that follow the user SGPRs on CDNA: workgroup ids X/Y/Z,
    /// workgroup info and the private segment wave offset, in that order.
    pub const fn system_sgpr_count(&self) -> u32 {
        self.enable_workgroup_id_x() as u32
            + self.enable_workgroup_id_y() as u32
            + self.enable_workgroup_id_z() as u32
            + self.enable_workgroup_info() as u32
            + self.enable_private_segment() as u32
    }

    // ---- compute_pgm_rsrc3 ----

    /// ACCUM_OFFSET (rsrc3 5:0, CDNA): the first AGPR is `4 * (accum_offset + 1)`.
    pub const fn accum_offset(&self) -> u32 {
        bits(self.compute_pgm_rsrc3, 5, 0)
    }
    /// The first AGPR's index in the unified VGPR file (CDNA).
    pub const fn first_agpr(&self) -> u32 {
        4 * (self.accum_offset() + 1)
    }
    /// TG_SPLIT (rsrc3 bit 16, CDNA).
    pub const fn tg_split(&self) -> bool {
        self.compute_pgm_rsrc3 & (1 << 16) != 0
    }
    /// INST_PREF_SIZE (rsrc3 11:4, gfx12).
    pub const fn inst_pref_size(&self) -> u32 {
        bits(self.compute_pgm_rsrc3, 11, 4)
    }
    /// GLG_EN (rsrc3 bit 13, gfx12).
    pub const fn glg_en(&self) -> bool {
        self.compute_pgm_rsrc3 & (1 << 13) != 0
    }
    /// IMAGE_OP (rsrc3 bit 31, gfx12).
    pub const fn image_op(&self) -> bool {
        self.compute_pgm_rsrc3 & (1 << 31) != 0
    }

    // ---- kernel_code_properties ----

    /// Whether the user SGPR `s` is enabled.
    pub const fn enables(&self, s: UserSgpr) -> bool {
        self.kernel_code_properties & s.property_bit() != 0
    }
    /// ENABLE_WAVEFRONT_SIZE32 (bit 10).
    pub const fn wavefront_size32(&self) -> bool {
        self.kernel_code_properties & (1 << 10) != 0
    }
    /// USES_DYNAMIC_STACK (bit 11).
    pub const fn uses_dynamic_stack(&self) -> bool {
        self.kernel_code_properties & (1 << 11) != 0
    }
    /// The wave size on `target`: 32 only when gfx10+ and ENABLE_WAVEFRONT_SIZE32 is set.
    pub const fn wave_size(&self, target: Target) -> u32 {
        match target.family() {
            Family::Gfx12 if self.wavefront_size32() => 32,
            _ => 64,
        }
    }

    /// Where each enabled user SGPR goes, in kernel_code_properties order from s0,
    /// followed by the preloaded kernel arguments.
    pub fn user_sgpr_layout(&self) -> UserSgprLayout {
        let mut l = UserSgprLayout::default();
        let mut next = 0u8;
        for s in UserSgpr::ORDER {
            if !self.enables(s) {
                continue;
            }
            let slot = match s {
                UserSgpr::PrivateSegmentBuffer => &mut l.private_segment_buffer,
                UserSgpr::DispatchPtr => &mut l.dispatch_ptr,
                UserSgpr::QueuePtr => &mut l.queue_ptr,
                UserSgpr::KernargSegmentPtr => &mut l.kernarg_segment_ptr,
                UserSgpr::DispatchId => &mut l.dispatch_id,
                UserSgpr::FlatScratchInit => &mut l.flat_scratch_init,
                UserSgpr::PrivateSegmentSize => &mut l.private_segment_size,
            };
            *slot = Some(next);
            next += s.count();
        }
        let preload = self.kernarg_preload_length();
        if preload > 0 {
            l.kernarg_preload = Some(next);
            // At most 127 dwords; the hardware has 32 user SGPRs, so saturate.
            next = next.saturating_add(preload as u8);
        }
        l.end = next;
        l
    }

    // ---- kernarg_preload ----

    /// KERNARG_PRELOAD_SPEC_LENGTH (bits 6:0): dwords of kernel arguments preloaded into
    /// user SGPRs.
    pub const fn kernarg_preload_length(&self) -> u32 {
        bits(self.kernarg_preload as u32, 6, 0)
    }
    /// KERNARG_PRELOAD_SPEC_OFFSET (bits 15:7): dword offset in the kernarg segment of the
    /// first preloaded argument.
    pub const fn kernarg_preload_offset(&self) -> u32 {
        bits(self.kernarg_preload as u32, 15, 7)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_round_trip_and_fields_land_at_their_offsets() {
        let mut b = [0u8; 64];
        for (i, x) in b.iter_mut().enumerate() {
            *x = (i as u8).wrapping_mul(7).wrapping_add(1);
        }
        let d = KernelDescriptor::from_bytes(&b);
        assert_eq!(d.to_bytes(), b);
        assert_eq!(
            d.kernarg_size,
            u32::from_le_bytes([b[8], b[9], b[10], b[11]])
        );
        assert_eq!(
            d.compute_pgm_rsrc2,
            u32::from_le_bytes([b[52], b[53], b[54], b[55]])
        );
        assert_eq!(d.kernarg_preload, u16::from_le_bytes([b[58], b[59]]));
    }

    #[test]
    fn user_sgprs_are_assigned_in_property_bit_order() {
        let mut b = [0u8; 64];
        // private segment buffer, dispatch ptr, kernarg ptr, private segment size.
        b[56] = 0b100_1011;
        // preload 3 dwords at dword offset 2.
        b[58..60].copy_from_slice(&(3u16 | (2 << 7)).to_le_bytes());
        let d = KernelDescriptor::from_bytes(&b);
        let l = d.user_sgpr_layout();
        assert_eq!(l.private_segment_buffer, Some(0));
        assert_eq!(l.dispatch_ptr, Some(4));
        assert_eq!(l.queue_ptr, None);
        assert_eq!(l.kernarg_segment_ptr, Some(6));
        assert_eq!(l.private_segment_size, Some(8));
        assert_eq!(l.kernarg_preload, Some(9));
        assert_eq!(l.end, 12);
        assert_eq!(d.kernarg_preload_offset(), 2);
    }
}
