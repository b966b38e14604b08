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
    /// GFX12 parameter interpolation (VINTERP, `v_interp_*`).
    Vinterp,
    /// GFX12 LDS direct/parameter loads (VDSDIR, `ds_param_load`, `ds_direct_load`).
    Vdsdir,
    /// GFX12 image sample/gather (VSAMPLE, 96 bits).
    Vsample,
    /// GFX9 image (MIMG, 64 bits; LLVM 22 decodes it on gfx90a only).
    Mimg,
    /// GFX12 image load/store/atomic/BVH (VIMAGE, 96 bits).
    Vimage,
    /// gfx950 scaled MFMA (VOP3PX2, 128 bits): a `v_mfma_ld_scale_b32`-shaped VOP3P
    /// word pair holding the scale operands, then the MFMA in the MAI layout (opcode
    /// table keyed by the MFMA's opcode, bits 86:80). Never identified from dword0
    /// alone: [`VOP3PX2_HI`] says when a `v_mfma_ld_scale_b32` word opens one.
    Vop3px2,
}

impl Format {
    /// Every format, in declaration order.
    pub const ALL: [Format; 28] = [
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
        Format::Vinterp,
        Format::Vdsdir,
        Format::Vsample,
        Format::Mimg,
        Format::Vimage,
        Format::Vop3px2,
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
            Format::Vinterp => "vinterp",
            Format::Vdsdir => "vdsdir",
            Format::Vsample => "vsample",
            Format::Mimg => "mimg",
            Format::Vimage => "vimage",
            Format::Vop3px2 => "vop3px2",
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
/// layouts come first (the generated "must be zero" masks are `u128`s indexed by
/// `F as u8`).
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
    /// GFX9 SMEM without `imm`/`soe`: the SGPR offset held in the low 7 bits of the
    /// offset field.
    SoffsetLo,
    /// GFX12 SMEM/FLAT: `scale_offset` (the offset is scaled by the access size).
    ScaleOffset,
    /// GFX12 SMEM: the sign bit of the 24-bit offset (some opcodes reject it).
    OffsetNeg,
    /// VINTERP: `wait_exp` (export wait count).
    WaitExp,
    /// VDSDIR: attribute number of `ds_param_load`.
    Attr,
    /// VDSDIR: attribute channel (x, y, z, w).
    AttrChan,
    /// VDSDIR: `wait_va_vdst`.
    WaitVaVdst,
    /// VDSDIR: `wait_vm_vsrc`.
    WaitVmVsrc,
    /// Image: dimension (`dim:SQ_RSRC_IMG_*`).
    Dim,
    /// Image: data channel mask.
    Dmask,
    /// Image: 128-bit resource descriptor.
    R128,
    /// Image: 16-bit data.
    D16,
    /// Image: 16-bit addresses.
    A16,
    /// Image: unnormalized coordinates.
    Unorm,
    /// Image: LOD warning enable.
    Lwe,
    /// Image: resource descriptor (9-bit scalar code).
    ImgRsrc,
    /// Image: sampler descriptor (9-bit scalar code).
    ImgSamp,
    /// Image: second address VGPR.
    Vaddr1,
    /// Image: third address VGPR.
    Vaddr2,
    /// Image: fourth address VGPR (the rest of the address when it is longer).
    Vaddr3,
    /// Image (GFX9 MIMG): array (`da`).
    Da,
    /// Image (GFX12 VIMAGE): fifth address VGPR (the rest of the address when longer).
    Vaddr4,
    /// gfx950 VOP3PX2: the scale operand of src0 (A), a 9-bit source code.
    ScaleSrc0,
    /// gfx950 VOP3PX2: the scale operand of src1 (B), a 9-bit source code.
    ScaleSrc1,
}

impl F {
    /// Number of field names.
    pub const COUNT: usize = F::ScaleSrc1 as usize + 1;
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
    #[inline]
    pub fn op_field(&self) -> Field {
        match self.field(F::Op) {
            Some(f) => f,
            None => fld(F::Op, 0, 0, Role::Op),
        }
    }
}

#[path = "layout/fields.rs"]
mod fields;
use fields::*;
pub use fields::{DPP16, DPP16_VOP3, DPP8, DPP8_VOP3, SDWA, SDWA_C};
#[path = "layout/probes.rs"]
mod probes;
pub use probes::*;

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
    lay(Format::Mimg, 2, 0xFC00_0000, 0xF000_0000, false, MIMG_9),
];

/// GFX9 layouts reached through another format's opcode table.
pub const GFX9_SUB: &[Layout] = &[
    lay(Format::Vop3b, 2, 0xFC00_0000, 0xD000_0000, false, VOP3B),
    lay(Format::Mai, 2, 0xFF80_0000, 0xD380_0000, false, MAI),
    // Dword0 is `v_mfma_ld_scale_b32`'s (VOP3P opcode 0x2C); dword2 is checked
    // against `VOP3PX2_HI`.
    lay(Format::Vop3px2, 4, 0xFFFF_0000, 0xD3AC_0000, false, VOP3PX2),
];

/// gfx950 VOP3PX2: the fixed bits of dword2 (the MFMA word), as `(mask, value)`: the
/// VOP3P prefix, and bits 14:11 (the MAI `abid` position) exactly 1. LLVM 22 decodes a
/// `v_mfma_ld_scale_b32` word followed by such a dword (and an MFMA opcode it has a
/// scaled form of) as one 16-byte instruction, and any other as the 8-byte
/// `v_mfma_ld_scale_b32` alone.
pub const VOP3PX2_HI: (u32, u32) = (0xFF80_7800, 0xD380_0800);

/// Fixed bits of a format above dword0 (ORed into every word the format builds).
pub const fn fixed_hi(format: Format) -> u128 {
    match format {
        Format::Vop3px2 => (VOP3PX2_HI.1 as u128) << 64,
        _ => 0,
    }
}

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
    lay(
        Format::Vinterp,
        2,
        0xFF00_0000,
        0xCD00_0000,
        false,
        VINTERP_12,
    ),
    lay(
        Format::Vdsdir,
        1,
        0xFF00_0000,
        0xCE00_0000,
        false,
        VDSDIR_12,
    ),
    lay(
        Format::Vsample,
        3,
        0xFC00_0000,
        0xE400_0000,
        false,
        VSAMPLE_12,
    ),
    lay(
        Format::Vimage,
        3,
        0xFC00_0000,
        0xD000_0000,
        false,
        VIMAGE_12,
    ),
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
