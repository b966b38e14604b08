//! Hand-written bit layouts of the encoding formats, one table per ISA family.
//!
//! This file is also compiled into the table generator (`tools/isa-gen`, through
//! `#[path]`), so it must stay self-contained: no `use` of other crate modules.
//! Facts come from ../shared/ISA-ENCODINGS.md and were re-checked against llvm-mc-22 by
//! the generator (every probe word it builds uses these layouts).

/// An instruction encoding format. Formats that share an identification prefix and are
/// told apart by the opcode (VOP3/VOP3B, VOP3P/MAI, MUBUF/MTBUF on GFX12) are separate
/// variants; the opcode table entry names the layout that applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Format {
    /// Scalar ALU, one source.
    Sop1,
    /// Scalar ALU, two sources.
    Sop2,
    /// Scalar compare.
    Sopc,
    /// Scalar ALU with a 16-bit immediate.
    Sopk,
    /// Scalar program control (branches, waits).
    Sopp,
    /// Scalar memory.
    Smem,
    /// Vector ALU, one source (32-bit encoding).
    Vop1,
    /// Vector ALU, two sources (32-bit encoding).
    Vop2,
    /// Vector compare (32-bit encoding).
    Vopc,
    /// Vector ALU, 64-bit encoding (VOP3A).
    Vop3,
    /// VOP3 with a scalar destination (carry out, div_scale).
    Vop3b,
    /// Packed math / dot / WMMA.
    Vop3p,
    /// GFX9 matrix core (MFMA/SMFMAC): VOP3P prefix, MAI layout.
    Mai,
    /// LDS/GDS.
    Ds,
    /// FLAT segment.
    Flat,
    /// GLOBAL segment.
    Global,
    /// SCRATCH segment.
    Scratch,
    /// Untyped buffer (GFX12: VBUFFER).
    Mubuf,
    /// Typed buffer (GFX12: VBUFFER with op 0x80..0x8F).
    Mtbuf,
    /// GFX12 dual issue (VOPD): the X half's opcode table; the instruction's format.
    Vopd,
    /// The Y half of a VOPD instruction (opcode table key of the Y operations only;
    /// never the format of a decoded instruction).
    VopdY,
    /// GFX12 export (EXP): one operation, printed from its fields.
    Exp,
}

impl Format {
    /// Every format, in declaration order.
    pub const ALL: [Format; 22] = [
        Format::Sop1,
        Format::Sop2,
        Format::Sopc,
        Format::Sopk,
        Format::Sopp,
        Format::Smem,
        Format::Vop1,
        Format::Vop2,
        Format::Vopc,
        Format::Vop3,
        Format::Vop3b,
        Format::Vop3p,
        Format::Mai,
        Format::Ds,
        Format::Flat,
        Format::Global,
        Format::Scratch,
        Format::Mubuf,
        Format::Mtbuf,
        Format::Vopd,
        Format::VopdY,
        Format::Exp,
    ];

    /// Lowercase name, as in ISA documents.
    pub const fn name(self) -> &'static str {
        match self {
            Format::Sop1 => "sop1",
            Format::Sop2 => "sop2",
            Format::Sopc => "sopc",
            Format::Sopk => "sopk",
            Format::Sopp => "sopp",
            Format::Smem => "smem",
            Format::Vop1 => "vop1",
            Format::Vop2 => "vop2",
            Format::Vopc => "vopc",
            Format::Vop3 => "vop3",
            Format::Vop3b => "vop3b",
            Format::Vop3p => "vop3p",
            Format::Mai => "mai",
            Format::Ds => "ds",
            Format::Flat => "flat",
            Format::Global => "global",
            Format::Scratch => "scratch",
            Format::Mubuf => "mubuf",
            Format::Mtbuf => "mtbuf",
            Format::Vopd => "vopd",
            Format::VopdY => "vopd_y",
            Format::Exp => "exp",
        }
    }
}

/// What a field holds; decides how the generator probes it and how operands decode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The opcode.
    Op,
    /// Fixed identification bits.
    Fixed,
    /// 9-bit source operand code (0..255 scalar/constant, 256+n = v[n]).
    Src9,
    /// 8-bit scalar source code (SOP*, MUBUF soffset).
    Ssrc8,
    /// 7-bit SGPR code (destinations, SMEM data, FLAT saddr).
    Sgpr7,
    /// 8-bit VGPR (or AGPR) index.
    Vgpr8,
    /// SMEM base: SGPR index / 2.
    SgprHalf,
    /// Buffer resource: SGPR index / 4.
    SgprQuarter,
    /// Immediate printed by an opcode-specific syntax.
    Imm,
    /// Modifier or control bits.
    Mod,
    /// Bits LLVM writes as 0 and ignores.
    Rsvd,
    /// VOPD Y destination: VGPR index bits 7:1 (bit 0 is the inverse of vdstx bit 0).
    VdstY,
}

/// Field names shared by every layout (a layout holds a subset). Fields that occur in
/// layouts come first: the generated "must be zero" masks are `u64`s indexed by
/// `F as u8`, so those must stay below 64.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
#[allow(missing_docs)]
pub enum F {
    Fixed,
    Op,
    Src0,
    Src1,
    Src2,
    Vdst,
    Sdst,
    Vsrc1,
    Simm16,
    Sbase,
    Sdata,
    Soe,
    Nv,
    Glc,
    Imm,
    Offset,
    Soffset,
    Abs,
    OpSel,
    OpSelHi,
    OpSelHi2,
    NegHi,
    Clamp,
    Omod,
    Neg,
    Cbsz,
    Abid,
    AccCd,
    Acc,
    Blgp,
    Offset0,
    Offset1,
    Gds,
    Addr,
    Data0,
    Data1,
    Lds,
    Seg,
    Slc,
    Scc,
    Saddr,
    Data,
    Offen,
    Idxen,
    Srsrc,
    Dfmt,
    Nfmt,
    Vaddr,
    Vdata,
    Th,
    Scope,
    Sve,
    Fmt,
    Tfe,
    Rsvd0,
    Rsvd1,
    Rsvd2,
    Rsvd3,
    /// VOPD Y half: opcode.
    OpY,
    /// VOPD Y half: first source (9-bit code).
    Src0Y,
    /// VOPD Y half: second source (VGPR).
    Vsrc1Y,
    /// VOPD Y half: destination VGPR. [`Inst::field`](crate::isa::Inst::field) returns
    /// the whole register number (the encoding holds bits 7:1, bit 0 is the inverse of
    /// vdstx bit 0).
    VdstY,
    /// DPP/DPP8/SDWA extension dword: the real src0 (DPP: VGPR index; SDWA: 8-bit code,
    /// a VGPR index unless [`F::SdwaS0`] is set).
    ExtSrc0,
    /// DPP16: the data-share control (quad_perm, row_shl, row_shr, ...).
    DppCtrl,
    /// DPP16: row enable mask.
    RowMask,
    /// DPP16: bank enable mask.
    BankMask,
    /// DPP16: out-of-bounds or disabled lanes read zero.
    BoundCtrl,
    /// DPP16 (GFX12) / DPP8 (src0 = 234): fetch inactive lanes.
    Fi,
    /// DPP8: eight 3-bit lane selects (lane `i` in bits `3i+2..3i`).
    Dpp8Sel,
    /// DPP16/SDWA: negate src0.
    Src0Neg,
    /// DPP16/SDWA: absolute value of src0.
    Src0Abs,
    /// DPP16/SDWA: negate src1.
    Src1Neg,
    /// DPP16/SDWA: absolute value of src1.
    Src1Abs,
    /// SDWA: sign-extend the selected part of src0.
    Src0Sext,
    /// SDWA: sign-extend the selected part of src1.
    Src1Sext,
    /// SDWA: destination select (BYTE_0..3 = 0..3, WORD_0/1 = 4/5, DWORD = 6).
    SdwaDstSel,
    /// SDWA: unused destination bits (0 pad, 1 sign-extend, 2 preserve).
    SdwaDstUnused,
    /// SDWA: src0 select.
    SdwaSrc0Sel,
    /// SDWA: src1 select.
    SdwaSrc1Sel,
    /// SDWA: src0 is a scalar/constant code instead of a VGPR.
    SdwaS0,
    /// SDWA: src1 (the vsrc1 field) is an SGPR code instead of a VGPR.
    SdwaS1,
    /// SDWA VOPC: write the SGPR pair in [`F::Sdst`] instead of VCC.
    SdwaSd,
    ExpEn,
    ExpTgt,
    ExpDone,
    ExpRow,
    ExpV0,
    ExpV1,
    ExpV2,
    ExpV3,
}

impl F {
    /// Number of field names.
    pub const COUNT: usize = F::ExpV3 as usize + 1;
}

/// One bit field of an instruction (bits numbered over the whole instruction).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    /// Which field.
    pub name: F,
    /// Lowest bit.
    pub lo: u8,
    /// Width in bits.
    pub bits: u8,
    /// What it holds.
    pub role: Role,
}

const fn fld(name: F, lo: u8, bits: u8, role: Role) -> Field {
    Field {
        name,
        lo,
        bits,
        role,
    }
}

/// The bit layout of one format in one family.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    /// The format.
    pub format: Format,
    /// Size in dwords without a literal or extension dword.
    pub dwords: u8,
    /// Identification mask on dword0.
    pub mask: u32,
    /// Identification value on dword0.
    pub value: u32,
    /// Whether a 255 source code appends a literal dword.
    pub literal: bool,
    /// The fields, opcode first after the fixed bits.
    pub fields: &'static [Field],
    /// Index into `fields` per field name (`u8::MAX`: absent), so that field look-ups
    /// on the decode path are one load instead of a search.
    pos: [u8; F::COUNT],
}

impl Layout {
    /// The field called `name`, if this layout has one.
    #[inline(always)]
    pub fn field(&self, name: F) -> Option<Field> {
        let i = self.pos[name as usize];
        if i == u8::MAX {
            None
        } else {
            Some(self.fields[i as usize])
        }
    }

    /// The opcode field.
    pub fn op_field(&self) -> Field {
        match self.field(F::Op) {
            Some(f) => f,
            None => fld(F::Op, 0, 0, Role::Op),
        }
    }
}

use Role::*;

const SOP2: &[Field] = &[
    fld(F::Fixed, 30, 2, Fixed),
    fld(F::Op, 23, 7, Op),
    fld(F::Src0, 0, 8, Ssrc8),
    fld(F::Src1, 8, 8, Ssrc8),
    fld(F::Sdst, 16, 7, Sgpr7),
];
const SOPK: &[Field] = &[
    fld(F::Fixed, 28, 4, Fixed),
    fld(F::Op, 23, 5, Op),
    fld(F::Simm16, 0, 16, Imm),
    fld(F::Sdst, 16, 7, Sgpr7),
];
const SOP1: &[Field] = &[
    fld(F::Fixed, 23, 9, Fixed),
    fld(F::Op, 8, 8, Op),
    fld(F::Src0, 0, 8, Ssrc8),
    fld(F::Sdst, 16, 7, Sgpr7),
];
const SOPC: &[Field] = &[
    fld(F::Fixed, 23, 9, Fixed),
    fld(F::Op, 16, 7, Op),
    fld(F::Src0, 0, 8, Ssrc8),
    fld(F::Src1, 8, 8, Ssrc8),
];
const SOPP: &[Field] = &[
    fld(F::Fixed, 23, 9, Fixed),
    fld(F::Op, 16, 7, Op),
    fld(F::Simm16, 0, 16, Imm),
];
const VOP1: &[Field] = &[
    fld(F::Fixed, 25, 7, Fixed),
    fld(F::Op, 9, 8, Op),
    fld(F::Src0, 0, 9, Src9),
    fld(F::Vdst, 17, 8, Vgpr8),
];
const VOP2: &[Field] = &[
    fld(F::Fixed, 31, 1, Fixed),
    fld(F::Op, 25, 6, Op),
    fld(F::Src0, 0, 9, Src9),
    fld(F::Vsrc1, 9, 8, Vgpr8),
    fld(F::Vdst, 17, 8, Vgpr8),
];
const VOPC: &[Field] = &[
    fld(F::Fixed, 25, 7, Fixed),
    fld(F::Op, 17, 8, Op),
    fld(F::Src0, 0, 9, Src9),
    fld(F::Vsrc1, 9, 8, Vgpr8),
];
const VOP3: &[Field] = &[
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
const VOP3B: &[Field] = &[
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
const VOP3P_9: &[Field] = &[
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
const VOP3P_12: &[Field] = &[
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
const MAI: &[Field] = &[
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
const SMEM_9: &[Field] = &[
    fld(F::Fixed, 26, 6, Fixed),
    fld(F::Op, 18, 8, Op),
    fld(F::Sbase, 0, 6, SgprHalf),
    fld(F::Sdata, 6, 7, Sgpr7),
    fld(F::Offset, 32, 21, Imm),
    fld(F::Soffset, 57, 7, Sgpr7),
    fld(F::Soe, 14, 1, Mod),
    fld(F::Imm, 17, 1, Mod),
    fld(F::Glc, 16, 1, Mod),
    fld(F::Nv, 15, 1, Mod),
    fld(F::Rsvd0, 13, 1, Rsvd),
    fld(F::Rsvd1, 53, 4, Rsvd),
];
const SMEM_12: &[Field] = &[
    fld(F::Fixed, 26, 6, Fixed),
    fld(F::Op, 13, 8, Op),
    fld(F::Sbase, 0, 6, SgprHalf),
    fld(F::Sdata, 6, 7, Sgpr7),
    fld(F::Offset, 32, 24, Imm),
    fld(F::Soffset, 57, 7, Sgpr7),
    fld(F::Scope, 21, 2, Mod),
    fld(F::Th, 23, 2, Mod),
    fld(F::Rsvd0, 25, 1, Rsvd),
    fld(F::Rsvd1, 56, 1, Rsvd),
];
/// GFX12 EXP: enable mask, target, done, row, four VGPR sources (LLVM ignores the
/// other bits of dword0).
const EXP_12: &[Field] = &[
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
const DS_9: &[Field] = &[
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
const DS_12: &[Field] = &[
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
const FLAT_9: &[Field] = &[
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
const FLAT_12: &[Field] = &[
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
    fld(F::Rsvd0, 7, 7, Rsvd),
    fld(F::Rsvd1, 22, 2, Rsvd),
    fld(F::Rsvd2, 40, 9, Rsvd),
    fld(F::Rsvd3, 63, 1, Rsvd),
];
const MUBUF_9: &[Field] = &[
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
const MTBUF_9: &[Field] = &[
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
const VBUFFER_12: &[Field] = &[
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
    fld(F::Rsvd0, 7, 7, Rsvd),
    fld(F::Rsvd1, 23, 3, Rsvd),
    fld(F::Rsvd2, 40, 1, Rsvd),
    fld(F::Rsvd3, 48, 2, Rsvd),
];

const VOPD: &[Field] = &[
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

/// The kind of extension dword an [`EXT_PROBES`] entry uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExtKind {
    /// DPP16 (src0 = 250).
    Dpp16,
    /// DPP8 (GFX12, src0 = 233).
    Dpp8,
    /// SDWA (GFX9, src0 = 249).
    Sdwa,
}

/// Extension probes the generator runs on every VOP1/VOP2/VOPC opcode: each is the base
/// extension dword of its kind ([`ext_base`]) with these fields set. Bit `i` of an
/// entry's `ext_ok` says LLVM accepts probe `i`, of `ext_shown` that its text differs
/// from the kind's base probe (the modifier prints). Exception: `ext_shown` bit 0 (the
/// DPP16 base probe itself) means LLVM prints "DP ALU dpp only supports row_newbcast"
/// for it (GFX9 64-bit DPP).
pub const EXT_PROBES: &[(ExtKind, &[(F, u32)])] = &[
    (ExtKind::Dpp16, &[]),
    (ExtKind::Dpp16, &[(F::Src0Neg, 1)]),
    (ExtKind::Dpp16, &[(F::Src0Abs, 1)]),
    (ExtKind::Dpp16, &[(F::Src1Neg, 1)]),
    (ExtKind::Dpp16, &[(F::Src1Abs, 1)]),
    (ExtKind::Dpp8, &[]),
    (ExtKind::Sdwa, &[]),
    (ExtKind::Sdwa, &[(F::Src0Neg, 1)]),
    (ExtKind::Sdwa, &[(F::Src0Abs, 1)]),
    (ExtKind::Sdwa, &[(F::Src0Sext, 1)]),
    (ExtKind::Sdwa, &[(F::Src1Neg, 1)]),
    (ExtKind::Sdwa, &[(F::Src1Abs, 1)]),
    (ExtKind::Sdwa, &[(F::Src1Sext, 1)]),
    (ExtKind::Sdwa, &[(F::Clamp, 1)]),
    (ExtKind::Sdwa, &[(F::Omod, 1)]),
    (ExtKind::Sdwa, &[(F::SdwaS0, 1)]),
    (ExtKind::Sdwa, &[(F::SdwaS1, 1)]),
    (ExtKind::Sdwa, &[(F::SdwaSd, 1), (F::Sdst, 10)]),
];

/// Index in [`EXT_PROBES`] of the probe of `kind` that sets `field` (the base probe for
/// `None`).
pub fn ext_probe(kind: ExtKind, field: Option<F>) -> Option<usize> {
    EXT_PROBES.iter().position(|(k, set)| {
        *k == kind
            && match field {
                None => set.is_empty(),
                Some(f) => set.first().is_some_and(|(g, _)| *g == f),
            }
    })
}

/// The base extension dword of a probe kind for a format: src0 = v20, DPP16 row_shr:1
/// with all rows and banks, DPP8 lanes 7..0, SDWA DWORD selects (VOP1: no src1 byte).
pub fn ext_base(kind: ExtKind, format: Format) -> (u32, &'static [Field], u32) {
    match kind {
        ExtKind::Dpp16 => (250, DPP16, 0xFF00_1114),
        ExtKind::Dpp8 => (233, DPP8, 0x0539_7714),
        ExtKind::Sdwa => match format {
            Format::Vopc => (249, SDWA_C, 0x0606_0014),
            Format::Vop1 => (249, SDWA, 0x0006_0614),
            _ => (249, SDWA, 0x0606_0614),
        },
    }
}

/// Finds field `name` in a field list.
pub fn find(fields: &[Field], name: F) -> Option<Field> {
    fields.iter().copied().find(|f| f.name == name)
}

/// Whether a field belongs to the Y half of a VOPD word.
pub const fn vopd_y_field(f: F) -> bool {
    matches!(f, F::OpY | F::Src0Y | F::Vsrc1Y | F::VdstY)
}

const fn lay(
    format: Format,
    dwords: u8,
    mask: u32,
    value: u32,
    literal: bool,
    fields: &'static [Field],
) -> Layout {
    // First field of each name wins (as a search would find it).
    let mut pos = [u8::MAX; F::COUNT];
    let mut i = fields.len();
    while i > 0 {
        i -= 1;
        pos[fields[i].name as usize] = i as u8;
    }
    Layout {
        format,
        dwords,
        mask,
        value,
        literal,
        fields,
        pos,
    }
}

/// GFX9 identification order (first match wins); VOP3B/MAI/MTBUF are reached through
/// the opcode table of VOP3/VOP3P/MTBUF's own prefix.
pub const GFX9_IDENT: &[Layout] = &[
    lay(Format::Sop1, 1, 0xFF80_0000, 0xBE80_0000, true, SOP1),
    lay(Format::Sopc, 1, 0xFF80_0000, 0xBF00_0000, true, SOPC),
    lay(Format::Sopp, 1, 0xFF80_0000, 0xBF80_0000, false, SOPP),
    lay(Format::Sopk, 1, 0xF000_0000, 0xB000_0000, false, SOPK),
    lay(Format::Sop2, 1, 0xC000_0000, 0x8000_0000, true, SOP2),
    lay(Format::Vop1, 1, 0xFE00_0000, 0x7E00_0000, true, VOP1),
    lay(Format::Vopc, 1, 0xFE00_0000, 0x7C00_0000, true, VOPC),
    lay(Format::Vop2, 1, 0x8000_0000, 0x0000_0000, true, VOP2),
    lay(Format::Smem, 2, 0xFC00_0000, 0xC000_0000, false, SMEM_9),
    lay(Format::Vop3p, 2, 0xFF80_0000, 0xD380_0000, false, VOP3P_9),
    lay(Format::Vop3, 2, 0xFC00_0000, 0xD000_0000, false, VOP3),
    lay(Format::Ds, 2, 0xFC00_0000, 0xD800_0000, false, DS_9),
    lay(Format::Flat, 2, 0xFC00_C000, 0xDC00_0000, false, FLAT_9),
    lay(Format::Scratch, 2, 0xFC00_C000, 0xDC00_4000, false, FLAT_9),
    lay(Format::Global, 2, 0xFC00_C000, 0xDC00_8000, false, FLAT_9),
    lay(Format::Mubuf, 2, 0xFC00_0000, 0xE000_0000, false, MUBUF_9),
    lay(Format::Mtbuf, 2, 0xFC00_0000, 0xE800_0000, false, MTBUF_9),
];

/// GFX9 layouts reached through another format's opcode table.
pub const GFX9_SUB: &[Layout] = &[
    lay(Format::Vop3b, 2, 0xFC00_0000, 0xD000_0000, false, VOP3B),
    lay(Format::Mai, 2, 0xFF80_0000, 0xD380_0000, false, MAI),
];

/// GFX12 identification order (first match wins).
pub const GFX12_IDENT: &[Layout] = &[
    lay(Format::Sop1, 1, 0xFF80_0000, 0xBE80_0000, true, SOP1),
    lay(Format::Sopc, 1, 0xFF80_0000, 0xBF00_0000, true, SOPC),
    lay(Format::Sopp, 1, 0xFF80_0000, 0xBF80_0000, false, SOPP),
    lay(Format::Sopk, 1, 0xF000_0000, 0xB000_0000, false, SOPK),
    lay(Format::Sop2, 1, 0xC000_0000, 0x8000_0000, true, SOP2),
    lay(Format::Vop1, 1, 0xFE00_0000, 0x7E00_0000, true, VOP1),
    lay(Format::Vopc, 1, 0xFE00_0000, 0x7C00_0000, true, VOPC),
    lay(Format::Vop2, 1, 0x8000_0000, 0x0000_0000, true, VOP2),
    lay(Format::Vop3p, 2, 0xFF00_0000, 0xCC00_0000, true, VOP3P_12),
    lay(Format::Vopd, 2, 0xFC00_0000, 0xC800_0000, true, VOPD),
    lay(Format::Vop3, 2, 0xFC00_0000, 0xD400_0000, true, VOP3),
    lay(Format::Smem, 2, 0xFC00_0000, 0xF400_0000, false, SMEM_12),
    lay(Format::Ds, 2, 0xFC00_0000, 0xD800_0000, false, DS_12),
    lay(Format::Flat, 3, 0xFF00_0000, 0xEC00_0000, false, FLAT_12),
    lay(Format::Scratch, 3, 0xFF00_0000, 0xED00_0000, false, FLAT_12),
    lay(Format::Global, 3, 0xFF00_0000, 0xEE00_0000, false, FLAT_12),
    lay(
        Format::Mubuf,
        3,
        0xFC00_0000,
        0xC400_0000,
        false,
        VBUFFER_12,
    ),
    lay(Format::Exp, 2, 0xFC00_0000, 0xF800_0000, false, EXP_12),
];

/// GFX12 layouts reached through another format's opcode table.
pub const GFX12_SUB: &[Layout] = &[
    lay(Format::Vop3b, 2, 0xFC00_0000, 0xD400_0000, true, VOP3B),
    lay(
        Format::Mtbuf,
        3,
        0xFC00_0000,
        0xC400_0000,
        false,
        VBUFFER_12,
    ),
];

/// The layout of `format` in a family (`gfx12` false = GFX9).
#[inline]
pub fn layout(gfx12: bool, format: Format) -> Option<&'static Layout> {
    let (by, a, b) = if gfx12 {
        (&GFX12_BY_FORMAT, GFX12_IDENT, GFX12_SUB)
    } else {
        (&GFX9_BY_FORMAT, GFX9_IDENT, GFX9_SUB)
    };
    let i = by[format as usize];
    match i {
        u8::MAX => None,
        i if usize::from(i) < a.len() => a.get(usize::from(i)),
        i => b.get(usize::from(i) - a.len()),
    }
}

/// Per format, the index of its layout in `ident` followed by `sub` (`u8::MAX`: none);
/// the first one wins, as a search would find it.
const fn by_format(ident: &[Layout], sub: &[Layout]) -> [u8; Format::ALL.len()] {
    let mut out = [u8::MAX; Format::ALL.len()];
    let mut i = ident.len() + sub.len();
    while i > 0 {
        i -= 1;
        let l = if i < ident.len() {
            &ident[i]
        } else {
            &sub[i - ident.len()]
        };
        out[l.format as usize] = i as u8;
    }
    out
}

const GFX9_BY_FORMAT: [u8; Format::ALL.len()] = by_format(GFX9_IDENT, GFX9_SUB);
const GFX12_BY_FORMAT: [u8; Format::ALL.len()] = by_format(GFX12_IDENT, GFX12_SUB);

/// Per top 9 bits of dword0, the index of the first identification layout whose mask
/// and value agree on those bits (`u8::MAX`: none): where [`identify`]'s first-match
/// search may start, since no earlier layout can match.
const fn ident_start(ident: &[Layout]) -> [u8; 512] {
    let mut out = [u8::MAX; 512];
    let mut p = 0;
    while p < 512 {
        let w = (p as u32) << 23;
        let mut i = 0;
        while i < ident.len() {
            let m = ident[i].mask & 0xFF80_0000;
            if w & m == ident[i].value & m {
                out[p] = i as u8;
                break;
            }
            i += 1;
        }
        p += 1;
    }
    out
}

const GFX9_IDENT_START: [u8; 512] = ident_start(GFX9_IDENT);
const GFX12_IDENT_START: [u8; 512] = ident_start(GFX12_IDENT);

/// The identification layout of dword0 (first match in the family's order).
#[inline]
pub fn identify(gfx12: bool, w0: u32) -> Option<&'static Layout> {
    let (start, ls) = if gfx12 {
        (&GFX12_IDENT_START, GFX12_IDENT)
    } else {
        (&GFX9_IDENT_START, GFX9_IDENT)
    };
    let s = usize::from(start[(w0 >> 23) as usize]);
    ls.get(s..)?.iter().find(|l| w0 & l.mask == l.value)
}

/// Reads field `f` from instruction bits.
#[inline(always)]
pub const fn get(bits: u128, f: Field) -> u32 {
    ((bits >> f.lo) & ((1u128 << f.bits) - 1)) as u32
}

/// Writes field `f` into instruction bits (the value is truncated to the field width).
#[inline(always)]
pub const fn put(bits: u128, f: Field, v: u32) -> u128 {
    let m = ((1u128 << f.bits) - 1) << f.lo;
    (bits & !m) | (((v as u128) << f.lo) & m)
}

/// Field assignments that select an operand-syntax variant of a format (e.g. `off` vs an
/// SGPR base for GLOBAL). Each entry lists the assignments of one variant; the variant's
/// index is what [`variant`] computes from the bits.
pub fn variant_probes(gfx12: bool, format: Format) -> &'static [&'static [(F, u32)]] {
    match (gfx12, format) {
        (false, Format::Global | Format::Scratch) => &[
            &[(F::Saddr, 50), (F::Lds, 0)],
            &[(F::Saddr, 0x7F), (F::Lds, 0)],
            &[(F::Saddr, 50), (F::Lds, 1)],
            &[(F::Saddr, 0x7F), (F::Lds, 1)],
        ],
        (true, Format::Global | Format::Scratch) => &[
            &[(F::Saddr, 50), (F::Sve, 0)],
            &[(F::Saddr, 0x7C), (F::Sve, 0)],
            &[(F::Saddr, 50), (F::Sve, 1)],
            &[(F::Saddr, 0x7C), (F::Sve, 1)],
        ],
        (false, Format::Mubuf) => &[
            &[(F::Offen, 0), (F::Idxen, 0), (F::Lds, 0)],
            &[(F::Offen, 1), (F::Idxen, 0), (F::Lds, 0)],
            &[(F::Offen, 0), (F::Idxen, 1), (F::Lds, 0)],
            &[(F::Offen, 1), (F::Idxen, 1), (F::Lds, 0)],
            &[(F::Offen, 0), (F::Idxen, 0), (F::Lds, 1)],
            &[(F::Offen, 1), (F::Idxen, 0), (F::Lds, 1)],
            &[(F::Offen, 0), (F::Idxen, 1), (F::Lds, 1)],
            &[(F::Offen, 1), (F::Idxen, 1), (F::Lds, 1)],
        ],
        (_, Format::Mubuf | Format::Mtbuf) => &[
            &[(F::Offen, 0), (F::Idxen, 0)],
            &[(F::Offen, 1), (F::Idxen, 0)],
            &[(F::Offen, 0), (F::Idxen, 1)],
            &[(F::Offen, 1), (F::Idxen, 1)],
        ],
        (false, Format::Smem) => &[
            &[(F::Imm, 1), (F::Soe, 0)],
            &[(F::Imm, 0), (F::Soe, 0)],
            &[(F::Imm, 1), (F::Soe, 1)],
        ],
        (true, Format::Smem) => &[&[(F::Soffset, 0x7C)], &[(F::Soffset, 40)]],
        _ => &[&[]],
    }
}

/// The operand-syntax variant of an instruction (index into [`variant_probes`]).
#[inline]
pub fn variant(gfx12: bool, layout: &Layout, bits: u128) -> usize {
    let g = |n: F| layout.field(n).map_or(0, |f| get(bits, f));
    match (gfx12, layout.format) {
        (false, Format::Global | Format::Scratch) => {
            usize::from(g(F::Saddr) == 0x7F) | ((g(F::Lds) as usize) << 1)
        }
        (true, Format::Global | Format::Scratch) => {
            usize::from(g(F::Saddr) == 0x7C) | ((g(F::Sve) as usize) << 1)
        }
        (false, Format::Mubuf) => {
            (g(F::Offen) as usize) | ((g(F::Idxen) as usize) << 1) | ((g(F::Lds) as usize) << 2)
        }
        (_, Format::Mubuf | Format::Mtbuf) => {
            (g(F::Offen) as usize) | ((g(F::Idxen) as usize) << 1)
        }
        (false, Format::Smem) => match (g(F::Imm), g(F::Soe)) {
            (1, 0) => 0,
            (0, 0) => 1,
            _ => 2,
        },
        (true, Format::Smem) => usize::from(g(F::Soffset) != 0x7C),
        _ => 0,
    }
}

/// Modifier probes: each sets one field to a value on top of a valid instruction; the
/// generator records, per opcode, whether LLVM then prints something more, ignores the
/// bits, or rejects the word. Bit `i` of an entry's `mods`/`bad` refers to probe `i`.
pub fn mod_probes(gfx12: bool, format: Format) -> &'static [(F, u32)] {
    match (gfx12, format) {
        (_, Format::Vop3) => &[
            (F::Clamp, 1),
            (F::Omod, 1),
            (F::Abs, 1),
            (F::Abs, 2),
            (F::Abs, 4),
            (F::Neg, 1),
            (F::Neg, 2),
            (F::Neg, 4),
            (F::OpSel, 1),
            (F::OpSel, 2),
            (F::OpSel, 4),
            (F::OpSel, 8),
        ],
        (_, Format::Vop3b) => &[
            (F::Clamp, 1),
            (F::Omod, 1),
            (F::Neg, 1),
            (F::Neg, 2),
            (F::Neg, 4),
        ],
        (_, Format::Vop3p) => &[
            (F::Clamp, 1),
            (F::OpSel, 1),
            (F::OpSel, 2),
            (F::OpSel, 4),
            (F::OpSelHi, 2),
            (F::OpSelHi, 1),
            (F::OpSelHi2, 0),
            (F::Neg, 1),
            (F::Neg, 2),
            (F::Neg, 4),
            (F::NegHi, 1),
            (F::NegHi, 2),
            (F::NegHi, 4),
        ],
        (_, Format::Mai) => &[
            (F::Cbsz, 1),
            (F::Abid, 1),
            (F::Blgp, 1),
            (F::AccCd, 1),
            (F::Acc, 1),
            (F::Acc, 2),
        ],
        (false, Format::Smem) => &[(F::Glc, 1), (F::Nv, 1)],
        (true, Format::Smem) => &[(F::Th, 1), (F::Scope, 1)],
        (false, Format::Ds) => &[(F::Gds, 1), (F::Acc, 1), (F::Offset0, 5), (F::Offset1, 7)],
        (true, Format::Ds) => &[(F::Offset0, 5), (F::Offset1, 7)],
        (false, Format::Flat | Format::Global | Format::Scratch) => &[
            (F::Glc, 1),
            (F::Slc, 1),
            (F::Scc, 1),
            (F::Acc, 1),
            (F::Offset, 16),
            (F::Offset, 0x1FF0),
        ],
        (true, Format::Flat | Format::Global | Format::Scratch) => &[
            (F::Th, 1),
            (F::Scope, 1),
            (F::Offset, 16),
            (F::Offset, 0xFF_FFF0),
        ],
        (false, Format::Mubuf) => &[
            (F::Glc, 1),
            (F::Slc, 1),
            (F::Scc, 1),
            (F::Acc, 1),
            (F::Offset, 16),
        ],
        (false, Format::Mtbuf) => &[
            (F::Glc, 1),
            (F::Slc, 1),
            (F::Scc, 1),
            (F::Acc, 1),
            (F::Offset, 16),
            (F::Dfmt, 4),
            (F::Nfmt, 7),
        ],
        (true, Format::Mubuf | Format::Mtbuf) => &[
            (F::Th, 1),
            (F::Scope, 1),
            (F::Offset, 16),
            (F::Tfe, 1),
            (F::Fmt, 22),
        ],
        _ => &[],
    }
}
