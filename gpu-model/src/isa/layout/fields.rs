//! The field lists of every encoding format (bit positions over the whole instruction)
//! and of the DPP16/DPP8/SDWA extension dwords.

use super::Role::*;
use super::{fld, Field, Role, F};

pub(super) const SOP2: &[Field] = &[
    fld(F::Fixed, 30, 2, Fixed),
    fld(F::Op, 23, 7, Op),
    fld(F::Src0, 0, 8, Ssrc8),
    fld(F::Src1, 8, 8, Ssrc8),
    fld(F::Sdst, 16, 7, Sgpr7),
];
pub(super) const SOPK: &[Field] = &[
    fld(F::Fixed, 28, 4, Fixed),
    fld(F::Op, 23, 5, Op),
    fld(F::Simm16, 0, 16, Imm),
    fld(F::Sdst, 16, 7, Sgpr7),
];
pub(super) const SOP1: &[Field] = &[
    fld(F::Fixed, 23, 9, Fixed),
    fld(F::Op, 8, 8, Op),
    fld(F::Src0, 0, 8, Ssrc8),
    fld(F::Sdst, 16, 7, Sgpr7),
];
pub(super) const SOPC: &[Field] = &[
    fld(F::Fixed, 23, 9, Fixed),
    fld(F::Op, 16, 7, Op),
    fld(F::Src0, 0, 8, Ssrc8),
    fld(F::Src1, 8, 8, Ssrc8),
];
pub(super) const SOPP: &[Field] = &[
    fld(F::Fixed, 23, 9, Fixed),
    fld(F::Op, 16, 7, Op),
    fld(F::Simm16, 0, 16, Imm),
];
pub(super) const VOP1: &[Field] = &[
    fld(F::Fixed, 25, 7, Fixed),
    fld(F::Op, 9, 8, Op),
    fld(F::Src0, 0, 9, Src9),
    fld(F::Vdst, 17, 8, Vgpr8),
];
pub(super) const VOP2: &[Field] = &[
    fld(F::Fixed, 31, 1, Fixed),
    fld(F::Op, 25, 6, Op),
    fld(F::Src0, 0, 9, Src9),
    fld(F::Vsrc1, 9, 8, Vgpr8),
    fld(F::Vdst, 17, 8, Vgpr8),
];
pub(super) const VOPC: &[Field] = &[
    fld(F::Fixed, 25, 7, Fixed),
    fld(F::Op, 17, 8, Op),
    fld(F::Src0, 0, 9, Src9),
    fld(F::Vsrc1, 9, 8, Vgpr8),
];
pub(super) const VOP3: &[Field] = &[
    fld(F::Fixed, 26, 6, Fixed),
    fld(F::Op, 16, 10, Op),
    fld(F::Vdst, 0, 8, Vgpr8),
    fld(F::Src0, 32, 9, Src9),
    fld(F::Src1, 41, 9, Src9),
    fld(F::Src2, 50, 9, Src9),
    fld(F::Abs, 8, 3, Mod),
    fld(F::OpSel, 11, 4, Mod),
    fld(F::Clamp, 15, 1, Mod),
    fld(F::Omod, 59, 2, Mod),
    fld(F::Neg, 61, 3, Mod),
];
pub(super) const VOP3B: &[Field] = &[
    fld(F::Fixed, 26, 6, Fixed),
    fld(F::Op, 16, 10, Op),
    fld(F::Vdst, 0, 8, Vgpr8),
    fld(F::Sdst, 8, 7, Sgpr7),
    fld(F::Src0, 32, 9, Src9),
    fld(F::Src1, 41, 9, Src9),
    fld(F::Src2, 50, 9, Src9),
    fld(F::Clamp, 15, 1, Mod),
    fld(F::Omod, 59, 2, Mod),
    fld(F::Neg, 61, 3, Mod),
];
pub(super) const VOP3P_9: &[Field] = &[
    fld(F::Fixed, 23, 9, Fixed),
    fld(F::Op, 16, 7, Op),
    fld(F::Vdst, 0, 8, Vgpr8),
    fld(F::Src0, 32, 9, Src9),
    fld(F::Src1, 41, 9, Src9),
    fld(F::Src2, 50, 9, Src9),
    fld(F::NegHi, 8, 3, Mod),
    fld(F::OpSel, 11, 3, Mod),
    fld(F::OpSelHi2, 14, 1, Mod),
    fld(F::Clamp, 15, 1, Mod),
    fld(F::OpSelHi, 59, 2, Mod),
    fld(F::Neg, 61, 3, Mod),
];
pub(super) const VOP3P_12: &[Field] = &[
    fld(F::Fixed, 24, 8, Fixed),
    fld(F::Op, 16, 7, Op),
    fld(F::Rsvd0, 23, 1, Rsvd),
    fld(F::Vdst, 0, 8, Vgpr8),
    fld(F::Src0, 32, 9, Src9),
    fld(F::Src1, 41, 9, Src9),
    fld(F::Src2, 50, 9, Src9),
    fld(F::NegHi, 8, 3, Mod),
    fld(F::OpSel, 11, 3, Mod),
    fld(F::OpSelHi2, 14, 1, Mod),
    fld(F::Clamp, 15, 1, Mod),
    fld(F::OpSelHi, 59, 2, Mod),
    fld(F::Neg, 61, 3, Mod),
];
pub(super) const MAI: &[Field] = &[
    fld(F::Fixed, 23, 9, Fixed),
    fld(F::Op, 16, 7, Op),
    fld(F::Vdst, 0, 8, Vgpr8),
    fld(F::Src0, 32, 9, Src9),
    fld(F::Src1, 41, 9, Src9),
    fld(F::Src2, 50, 9, Src9),
    fld(F::Cbsz, 8, 3, Mod),
    fld(F::Abid, 11, 4, Mod),
    fld(F::AccCd, 15, 1, Mod),
    fld(F::Acc, 59, 2, Mod),
    fld(F::Blgp, 61, 3, Mod),
];
/// gfx950 VOP3PX2: dwords 0-1 a VOP3P word (`v_mfma_ld_scale_b32`: the fixed bits
/// include its opcode) whose src0/src1 are the scale operands, with their op_sel (bits
/// 12:11) and op_sel_hi (bits 60:59); dwords 2-3 the MFMA in the MAI layout (bits 78:75
/// fixed, see `VOP3PX2_HI`). LLVM 22 ignores the first word's other bits (vdst, neg_hi,
/// op_sel bit 13, op_sel_hi bit 14, clamp, src2, neg).
pub(super) const VOP3PX2: &[Field] = &[
    fld(F::Fixed, 16, 16, Fixed),
    fld(F::Op, 80, 7, Op),
    fld(F::Vdst, 64, 8, Vgpr8),
    fld(F::Src0, 96, 9, Src9),
    fld(F::Src1, 105, 9, Src9),
    fld(F::Src2, 114, 9, Src9),
    fld(F::ScaleSrc0, 32, 9, Src9),
    fld(F::ScaleSrc1, 41, 9, Src9),
    fld(F::OpSel, 11, 2, Mod),
    fld(F::OpSelHi, 59, 2, Mod),
    fld(F::Cbsz, 72, 3, Mod),
    fld(F::AccCd, 79, 1, Mod),
    fld(F::Acc, 123, 2, Mod),
    fld(F::Blgp, 125, 3, Mod),
];
pub(super) const SMEM_9: &[Field] = &[
    fld(F::Fixed, 26, 6, Fixed),
    fld(F::Op, 18, 8, Op),
    fld(F::Sbase, 0, 6, SgprHalf),
    fld(F::Sdata, 6, 7, Sgpr7),
    fld(F::Offset, 32, 21, Imm),
    fld(F::SoffsetLo, 32, 7, Sgpr7),
    fld(F::Soffset, 57, 7, Sgpr7),
    fld(F::Soe, 14, 1, Mod),
    fld(F::Imm, 17, 1, Mod),
    fld(F::Glc, 16, 1, Mod),
    fld(F::Nv, 15, 1, Mod),
    fld(F::Rsvd0, 13, 1, Rsvd),
    fld(F::Rsvd1, 53, 4, Rsvd),
];
pub(super) const SMEM_12: &[Field] = &[
    fld(F::Fixed, 26, 6, Fixed),
    fld(F::Op, 13, 7, Op),
    fld(F::Sbase, 0, 6, SgprHalf),
    fld(F::Sdata, 6, 7, Sgpr7),
    fld(F::Offset, 32, 24, Imm),
    fld(F::OffsetNeg, 55, 1, Mod),
    fld(F::Soffset, 57, 7, Sgpr7),
    fld(F::Nv, 20, 1, Mod),
    fld(F::Scope, 21, 2, Mod),
    fld(F::Th, 23, 2, Mod),
    fld(F::Rsvd0, 25, 1, Rsvd),
    fld(F::ScaleOffset, 56, 1, Mod),
];
/// GFX12 EXP: enable mask, target, done, row, four VGPR sources (LLVM ignores the
/// other bits of dword0).
pub(super) const EXP_12: &[Field] = &[
    fld(F::Fixed, 26, 6, Fixed),
    fld(F::ExpEn, 0, 4, Mod),
    fld(F::ExpTgt, 4, 6, Mod),
    fld(F::ExpDone, 11, 1, Mod),
    fld(F::ExpRow, 13, 1, Mod),
    fld(F::ExpV0, 32, 8, Vgpr8),
    fld(F::ExpV1, 40, 8, Vgpr8),
    fld(F::ExpV2, 48, 8, Vgpr8),
    fld(F::ExpV3, 56, 8, Vgpr8),
];
/// GFX12 VINTERP (`v_interp_*`, 64 bits).
pub(super) const VINTERP_12: &[Field] = &[
    fld(F::Fixed, 24, 8, Fixed),
    fld(F::Op, 16, 5, Op),
    fld(F::Vdst, 0, 8, Vgpr8),
    fld(F::Src0, 32, 9, Src9),
    fld(F::Src1, 41, 9, Src9),
    fld(F::Src2, 50, 9, Src9),
    fld(F::WaitExp, 8, 3, Mod),
    fld(F::OpSel, 11, 4, Mod),
    fld(F::Clamp, 15, 1, Mod),
    fld(F::Neg, 61, 3, Mod),
    fld(F::Rsvd0, 21, 3, Rsvd),
    fld(F::Rsvd1, 59, 2, Rsvd),
];
/// GFX12 VSAMPLE (`image_sample*`, `image_gather4*`, 96 bits).
pub(super) const VSAMPLE_12: &[Field] = &[
    fld(F::Fixed, 26, 6, Fixed),
    fld(F::Op, 14, 8, Op),
    fld(F::Dim, 0, 3, Mod),
    fld(F::Tfe, 3, 1, Mod),
    fld(F::R128, 4, 1, Mod),
    fld(F::D16, 5, 1, Mod),
    fld(F::A16, 6, 1, Mod),
    fld(F::Nv, 7, 1, Mod),
    fld(F::Rsvd0, 8, 5, Rsvd),
    fld(F::Unorm, 13, 1, Mod),
    fld(F::Dmask, 22, 4, Mod),
    fld(F::Vdata, 32, 8, Vgpr8),
    fld(F::Lwe, 40, 1, Mod),
    fld(F::ImgRsrc, 41, 9, Src9),
    fld(F::Scope, 50, 2, Mod),
    fld(F::Th, 52, 3, Mod),
    fld(F::ImgSamp, 55, 9, Src9),
    fld(F::Vaddr, 64, 8, Vgpr8),
    fld(F::Vaddr1, 72, 8, Vgpr8),
    fld(F::Vaddr2, 80, 8, Vgpr8),
    fld(F::Vaddr3, 88, 8, Vgpr8),
];
/// GFX12 VIMAGE (`image_load*`, `image_store*`, `image_atomic_*`, `image_bvh*`, 96 bits).
pub(super) const VIMAGE_12: &[Field] = &[
    fld(F::Fixed, 26, 6, Fixed),
    fld(F::Op, 14, 8, Op),
    fld(F::Dim, 0, 3, Mod),
    fld(F::Rsvd0, 3, 1, Rsvd),
    fld(F::R128, 4, 1, Mod),
    fld(F::D16, 5, 1, Mod),
    fld(F::A16, 6, 1, Mod),
    fld(F::Nv, 7, 1, Mod),
    fld(F::Rsvd1, 8, 6, Rsvd),
    fld(F::Dmask, 22, 4, Mod),
    fld(F::Vdata, 32, 8, Vgpr8),
    fld(F::Rsvd2, 40, 1, Rsvd),
    fld(F::ImgRsrc, 41, 9, Src9),
    fld(F::Scope, 50, 2, Mod),
    fld(F::Th, 52, 3, Mod),
    fld(F::Tfe, 55, 1, Mod),
    fld(F::Vaddr, 64, 8, Vgpr8),
    fld(F::Vaddr1, 72, 8, Vgpr8),
    fld(F::Vaddr2, 80, 8, Vgpr8),
    fld(F::Vaddr3, 88, 8, Vgpr8),
    fld(F::Vaddr4, 56, 8, Vgpr8),
];
/// GFX12 VDSDIR (`ds_param_load`, `ds_direct_load`, 32 bits).
pub(super) const VDSDIR_12: &[Field] = &[
    fld(F::Fixed, 24, 8, Fixed),
    fld(F::Op, 20, 2, Op),
    fld(F::Vdst, 0, 8, Vgpr8),
    fld(F::AttrChan, 8, 2, Mod),
    fld(F::Attr, 10, 6, Mod),
    fld(F::WaitVaVdst, 16, 4, Mod),
    fld(F::Rsvd0, 22, 1, Rsvd),
    fld(F::WaitVmVsrc, 23, 1, Mod),
];
pub(super) const DS_9: &[Field] = &[
    fld(F::Fixed, 26, 6, Fixed),
    fld(F::Op, 17, 8, Op),
    fld(F::Vdst, 56, 8, Vgpr8),
    fld(F::Addr, 32, 8, Vgpr8),
    fld(F::Data0, 40, 8, Vgpr8),
    fld(F::Data1, 48, 8, Vgpr8),
    fld(F::Offset0, 0, 8, Imm),
    fld(F::Offset1, 8, 8, Imm),
    fld(F::Gds, 16, 1, Mod),
    fld(F::Acc, 25, 1, Mod),
];
pub(super) const DS_12: &[Field] = &[
    fld(F::Fixed, 26, 6, Fixed),
    fld(F::Op, 18, 8, Op),
    fld(F::Vdst, 56, 8, Vgpr8),
    fld(F::Addr, 32, 8, Vgpr8),
    fld(F::Data0, 40, 8, Vgpr8),
    fld(F::Data1, 48, 8, Vgpr8),
    fld(F::Offset0, 0, 8, Imm),
    fld(F::Offset1, 8, 8, Imm),
    fld(F::Rsvd0, 16, 2, Rsvd),
];
pub(super) const FLAT_9: &[Field] = &[
    fld(F::Fixed, 26, 6, Fixed),
    fld(F::Seg, 14, 2, Fixed),
    fld(F::Op, 18, 7, Op),
    fld(F::Vdst, 56, 8, Vgpr8),
    fld(F::Addr, 32, 8, Vgpr8),
    fld(F::Data, 40, 8, Vgpr8),
    fld(F::Saddr, 48, 7, Sgpr7),
    fld(F::Offset, 0, 13, Imm),
    fld(F::Lds, 13, 1, Mod),
    fld(F::Glc, 16, 1, Mod),
    fld(F::Slc, 17, 1, Mod),
    fld(F::Scc, 25, 1, Mod),
    fld(F::Acc, 55, 1, Mod),
];
pub(super) const FLAT_12: &[Field] = &[
    fld(F::Fixed, 26, 6, Fixed),
    fld(F::Seg, 24, 2, Fixed),
    fld(F::Op, 14, 8, Op),
    fld(F::Vdst, 32, 8, Vgpr8),
    fld(F::Addr, 64, 8, Vgpr8),
    fld(F::Data, 55, 8, Vgpr8),
    fld(F::Saddr, 0, 7, Sgpr7),
    fld(F::Offset, 72, 24, Imm),
    fld(F::Sve, 49, 1, Mod),
    fld(F::Scope, 50, 2, Mod),
    fld(F::Th, 52, 3, Mod),
    fld(F::Nv, 7, 1, Mod),
    fld(F::ScaleOffset, 48, 1, Mod),
    fld(F::Rsvd0, 8, 6, Rsvd),
    fld(F::Rsvd1, 22, 2, Rsvd),
    fld(F::Rsvd2, 40, 8, Rsvd),
    fld(F::Rsvd3, 63, 1, Rsvd),
];
pub(super) const MUBUF_9: &[Field] = &[
    fld(F::Fixed, 26, 6, Fixed),
    fld(F::Op, 18, 7, Op),
    fld(F::Vaddr, 32, 8, Vgpr8),
    fld(F::Vdata, 40, 8, Vgpr8),
    fld(F::Srsrc, 48, 5, SgprQuarter),
    fld(F::Soffset, 56, 8, Ssrc8),
    fld(F::Offset, 0, 12, Imm),
    fld(F::Offen, 12, 1, Mod),
    fld(F::Idxen, 13, 1, Mod),
    fld(F::Glc, 14, 1, Mod),
    fld(F::Scc, 15, 1, Mod),
    fld(F::Lds, 16, 1, Mod),
    fld(F::Slc, 17, 1, Mod),
    fld(F::Acc, 55, 1, Mod),
    fld(F::Rsvd0, 25, 1, Rsvd),
    fld(F::Rsvd1, 53, 2, Rsvd),
];
/// GFX9 MIMG (64 bits). Opcode bit 7 (bit 0) is always 0 for the opcodes LLVM knows:
/// the opcode field is bits 24:18 and `image::check_mimg` rejects bit 0.
pub(super) const MIMG_9: &[Field] = &[
    fld(F::Fixed, 26, 6, Fixed),
    fld(F::Op, 18, 7, Op),
    fld(F::Vaddr, 32, 8, Vgpr8),
    fld(F::Vdata, 40, 8, Vgpr8),
    fld(F::Srsrc, 48, 5, SgprQuarter),
    fld(F::ImgSamp, 53, 5, SgprQuarter),
    fld(F::Scc, 7, 1, Mod),
    fld(F::Dmask, 8, 4, Mod),
    fld(F::Unorm, 12, 1, Mod),
    fld(F::Glc, 13, 1, Mod),
    fld(F::Da, 14, 1, Mod),
    fld(F::A16, 15, 1, Mod),
    fld(F::Acc, 16, 1, Mod),
    fld(F::Lwe, 17, 1, Mod),
    fld(F::Slc, 25, 1, Mod),
    fld(F::D16, 63, 1, Mod),
    fld(F::Rsvd0, 0, 1, Rsvd),
    fld(F::Rsvd1, 1, 6, Rsvd),
    fld(F::Rsvd2, 58, 5, Rsvd),
];
pub(super) const MTBUF_9: &[Field] = &[
    fld(F::Fixed, 26, 6, Fixed),
    fld(F::Op, 15, 4, Op),
    fld(F::Vaddr, 32, 8, Vgpr8),
    fld(F::Vdata, 40, 8, Vgpr8),
    fld(F::Srsrc, 48, 5, SgprQuarter),
    fld(F::Soffset, 56, 8, Ssrc8),
    fld(F::Offset, 0, 12, Imm),
    fld(F::Offen, 12, 1, Mod),
    fld(F::Idxen, 13, 1, Mod),
    fld(F::Glc, 14, 1, Mod),
    fld(F::Dfmt, 19, 4, Mod),
    fld(F::Nfmt, 23, 3, Mod),
    fld(F::Scc, 53, 1, Mod),
    fld(F::Slc, 54, 1, Mod),
    fld(F::Acc, 55, 1, Mod),
];
pub(super) const VBUFFER_12: &[Field] = &[
    fld(F::Fixed, 26, 6, Fixed),
    fld(F::Op, 14, 8, Op),
    fld(F::Vdata, 32, 8, Vgpr8),
    fld(F::Vaddr, 64, 8, Vgpr8),
    fld(F::Srsrc, 41, 7, Sgpr7),
    fld(F::Soffset, 0, 7, Sgpr7),
    fld(F::Offset, 72, 24, Imm),
    fld(F::Tfe, 22, 1, Mod),
    fld(F::Scope, 50, 2, Mod),
    fld(F::Th, 52, 3, Mod),
    fld(F::Fmt, 55, 7, Mod),
    fld(F::Offen, 62, 1, Mod),
    fld(F::Idxen, 63, 1, Mod),
    fld(F::Nv, 7, 1, Mod),
    fld(F::Rsvd0, 8, 6, Rsvd),
    fld(F::Rsvd1, 23, 3, Rsvd),
    fld(F::Rsvd2, 40, 1, Rsvd),
    fld(F::Rsvd3, 48, 2, Rsvd),
];

pub(super) const VOPD: &[Field] = &[
    fld(F::Fixed, 26, 6, Fixed),
    fld(F::Op, 22, 4, Op),
    fld(F::Src0, 0, 9, Src9),
    fld(F::Vsrc1, 9, 8, Vgpr8),
    fld(F::Vdst, 56, 8, Vgpr8),
    fld(F::OpY, 17, 5, Mod),
    fld(F::Src0Y, 32, 9, Src9),
    fld(F::Vsrc1Y, 41, 8, Vgpr8),
    fld(F::VdstY, 49, 7, Role::VdstY),
];
/// DPP16 extension dword of a VOP1/VOP2/VOPC word (src0 = 250).
pub const DPP16: &[Field] = &[
    fld(F::ExtSrc0, 32, 8, Mod),
    fld(F::DppCtrl, 40, 9, Mod),
    fld(F::Fi, 50, 1, Mod),
    fld(F::BoundCtrl, 51, 1, Mod),
    fld(F::Src0Neg, 52, 1, Mod),
    fld(F::Src0Abs, 53, 1, Mod),
    fld(F::Src1Neg, 54, 1, Mod),
    fld(F::Src1Abs, 55, 1, Mod),
    fld(F::BankMask, 56, 4, Mod),
    fld(F::RowMask, 60, 4, Mod),
];
/// DPP8 extension dword (GFX12, src0 = 233, or 234 with fetch-inactive).
pub const DPP8: &[Field] = &[fld(F::ExtSrc0, 32, 8, Mod), fld(F::Dpp8Sel, 40, 24, Mod)];
/// DPP16 dword after a GFX12 VOP3/VOP3B word with src0 = 250 (the third dword; the
/// source modifiers stay in the VOP3 fields).
pub const DPP16_VOP3: &[Field] = &[
    fld(F::ExtSrc0, 64, 8, Mod),
    fld(F::DppCtrl, 72, 9, Mod),
    fld(F::Fi, 82, 1, Mod),
    fld(F::BoundCtrl, 83, 1, Mod),
    fld(F::Src0Neg, 84, 1, Mod),
    fld(F::Src0Abs, 85, 1, Mod),
    fld(F::Src1Neg, 86, 1, Mod),
    fld(F::Src1Abs, 87, 1, Mod),
    fld(F::BankMask, 88, 4, Mod),
    fld(F::RowMask, 92, 4, Mod),
];
/// DPP8 dword after a GFX12 VOP3/VOP3B word with src0 = 233/234.
pub const DPP8_VOP3: &[Field] = &[fld(F::ExtSrc0, 64, 8, Mod), fld(F::Dpp8Sel, 72, 24, Mod)];
/// SDWA extension dword of a VOP1/VOP2 word (GFX9, src0 = 249).
pub const SDWA: &[Field] = &[
    fld(F::ExtSrc0, 32, 8, Mod),
    fld(F::SdwaDstSel, 40, 3, Mod),
    fld(F::SdwaDstUnused, 43, 2, Mod),
    fld(F::Clamp, 45, 1, Mod),
    fld(F::Omod, 46, 2, Mod),
    fld(F::SdwaSrc0Sel, 48, 3, Mod),
    fld(F::Src0Sext, 51, 1, Mod),
    fld(F::Src0Neg, 52, 1, Mod),
    fld(F::Src0Abs, 53, 1, Mod),
    fld(F::SdwaS0, 55, 1, Mod),
    fld(F::SdwaSrc1Sel, 56, 3, Mod),
    fld(F::Src1Sext, 59, 1, Mod),
    fld(F::Src1Neg, 60, 1, Mod),
    fld(F::Src1Abs, 61, 1, Mod),
    fld(F::SdwaS1, 63, 1, Mod),
];
/// SDWA extension dword of a VOPC word (GFX9): an SGPR-pair destination instead of
/// dst_sel/dst_unused/clamp/omod.
pub const SDWA_C: &[Field] = &[
    fld(F::ExtSrc0, 32, 8, Mod),
    fld(F::Sdst, 40, 7, Sgpr7),
    fld(F::SdwaSd, 47, 1, Mod),
    fld(F::SdwaSrc0Sel, 48, 3, Mod),
    fld(F::Src0Sext, 51, 1, Mod),
    fld(F::Src0Neg, 52, 1, Mod),
    fld(F::Src0Abs, 53, 1, Mod),
    fld(F::SdwaS0, 55, 1, Mod),
    fld(F::SdwaSrc1Sel, 56, 3, Mod),
    fld(F::Src1Sext, 59, 1, Mod),
    fld(F::Src1Neg, 60, 1, Mod),
    fld(F::Src1Abs, 61, 1, Mod),
    fld(F::SdwaS1, 63, 1, Mod),
];
