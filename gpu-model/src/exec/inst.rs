//! The executor's lowered instruction ([`Inst`]): one `Copy` record per instruction slot,
//! made once per program from the shared decoder's [`crate::isa::Inst`] by
//! [`super::lower`], in one shape for both ISA families so the semantics never look at
//! encoding bits.

use crate::isa::{CmpType, Op};

/// Which semantic unit executes an instruction (the executor's dispatch on its hot path).
/// VOP1/VOP2/VOPC operations in the VOP3 encoding are [`Unit::Vop3`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Unit {
    /// Scalar ALU, one source.
    Sop1,
    /// Scalar ALU, two sources.
    Sop2,
    /// Scalar compare.
    Sopc,
    /// Scalar with a 16-bit immediate.
    Sopk,
    /// Scalar program control.
    Sopp,
    /// Scalar memory.
    Smem,
    /// Vector, one source.
    Vop1,
    /// Vector, two sources.
    Vop2,
    /// Vector compare.
    Vopc,
    /// Vector, VOP3-only operation (or the VOP3 form of a VOP1/VOP2/VOPC one).
    Vop3,
    /// Packed math, dot products and matrix cores (VOP3P, GFX9 MAI, gfx950 VOP3PX2).
    Vop3p,
    /// LDS.
    Ds,
    /// FLAT, GLOBAL and SCRATCH (the segment is [`Mem::seg`]).
    Flat,
    /// Untyped and typed buffer (GFX9 MUBUF/MTBUF, GFX12 VBUFFER).
    Mubuf,
    /// Image load, store, atomic and resource query without a sampler (GFX9 MIMG, GFX12
    /// VIMAGE); the image operands are [`Mem::img`].
    Image,
    /// GFX12 dual-issue VALU pair (VOPD): `op` is the X half, [`Inst::y`] the Y half.
    Vopd,
    /// An instruction of the graphics pipeline: faults with
    /// [`super::FaultReason::GraphicsOnly`] naming the class.
    Graphics(GraphicsClass),
    /// An instruction form the executor refuses (it decodes): faults with
    /// [`super::FaultReason::UnsupportedForm`] and this reason.
    Refused(Refusal),
}

/// The graphics-pipeline classes a compute dispatch cannot run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GraphicsClass {
    /// Exports to render targets, position and parameter buffers (`exp`, `export`).
    Export,
    /// Parameter interpolation (`v_interp_*`).
    Interpolation,
    /// LDS-direct and parameter loads (`ds_param_load`, `ds_direct_load`).
    LdsDirect,
    /// Sampled and gathered images (`image_sample*`, `image_gather4*`): they need a sampler.
    SampledImage,
    /// Ray tracing: BVH intersection (`image_bvh*_intersect_ray`) and the traversal stack
    /// (`ds_bvh_stack_*`).
    Bvh,
    /// GFX12 `global_atomic_ordered_add_b64`: the ordered count of streamout, keyed by the
    /// geometry pipeline's wave ids (VGT_GS_MAX_WAVE_ID; RDNA4 ISA guide).
    OrderedStreamout,
}

impl GraphicsClass {
    /// The class as fault reports name it.
    pub fn name(self) -> &'static str {
        match self {
            GraphicsClass::Export => "export",
            GraphicsClass::Interpolation => "parameter interpolation",
            GraphicsClass::LdsDirect => "lds-direct parameter load",
            GraphicsClass::SampledImage => "sampled image",
            GraphicsClass::Bvh => "ray tracing (bvh)",
            GraphicsClass::OrderedStreamout => "ordered streamout add",
        }
    }
}

/// Instruction forms the executor refuses (typed, so the lowered instruction stays small).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Refusal {
    /// The global data share (`gds` forms).
    Gds,
    /// GFX12 buffer `tfe` (texture fail enable).
    BufferTfe,
    /// The GFX12 VOP3 DPP form of an operation that reads a source without lane selection.
    Vop3Dpp,
}

impl Refusal {
    /// Why, as fault reports say it.
    pub fn reason(self) -> &'static str {
        match self {
            Refusal::Gds => "global data share (gds)",
            Refusal::BufferTfe => "vbuffer tfe (texture fail enable)",
            Refusal::Vop3Dpp => "vop3 dpp form of this operation",
        }
    }
}

/// Sub-encoding of a VOP1/VOP2/VOPC instruction (and GFX12 VOP3 DPP).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sub {
    /// Plain (or VOP3) encoding.
    None,
    /// SDWA: [`Inst::ctl`] holds the sub-dword selects.
    Sdwa,
    /// DPP16: [`Inst::ctl`] holds the data-parallel-primitive control.
    Dpp,
    /// DPP8 (src0 = 233): [`Inst::ctl`] holds eight 3-bit lane selects; inactive source
    /// lanes read as 0.
    Dpp8,
    /// DPP8 with fetch-inactive (src0 = 234): inactive source lanes are read as they are.
    Dpp8Fi,
}

/// Segment of a FLAT-family instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seg {
    /// Generic address (global, LDS or private by aperture).
    Flat,
    /// Per-lane private memory.
    Scratch,
    /// Global memory.
    Global,
}

/// Matrix-core (MAI / VOP3PX2) modifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Mai {
    /// A-broadcast block size (`cbsz`); gfx950 `*_f8f6f4`: A's format.
    pub cbsz: u8,
    /// A-broadcast block id (`abid`).
    pub abid: u8,
    /// B lane-group pattern (`blgp`); gfx942/gfx950 f64 shapes: neg of A, B, C;
    /// gfx950 `*_f8f6f4`: B's format.
    pub blgp: u8,
    /// C and D are AGPRs (`acc_cd`).
    pub acc_cd: bool,
    /// A (bit 0) and B (bit 1) are AGPRs.
    pub acc: u8,
    /// gfx950 VOP3PX2 (`v_mfma_scale_*`): the scale operands of A and B as source codes
    /// (their byte selects are [`Inst::op_sel`] and [`Inst::op_sel_hi`], bit 0 for A, bit
    /// 1 for B).
    pub scale: Option<[u16; 2]>,
}

/// A lowered instruction. `Copy`, fixed size: the program table holds one per dword.
#[derive(Debug, Clone, Copy)]
pub struct Inst {
    /// The operation ([`Op::canonical`]: one representative per semantics).
    pub op: Op,
    /// The operation as decoded (its own name: `global_load_b32`, `v_cmp_gt_u32`, ...).
    pub named: Op,
    /// The unit that executes it.
    pub unit: Unit,
    /// Sub-encoding (SDWA/DPP) of VOP1/VOP2/VOPC (and GFX12 VOP3 DPP).
    pub sub: Sub,
    /// Length in bytes (4 to 16).
    pub len: u8,
    /// A vector compare: [`Inst::cond`], [`Inst::cty`] and [`Inst::cmpx`] describe it.
    pub cmp: bool,
    /// Compare condition ([`crate::isa::Compare::cond`]).
    pub cond: u8,
    /// Compare operand type.
    pub cty: CmpType,
    /// `v_cmpx_*`: the compare result is written to EXEC.
    pub cmpx: bool,
    /// Destination: VGPR index for vector ops (AGPRs as 256+), SGPR code for scalar ones.
    pub dst: u16,
    /// Sources: 9-bit operand codes for vector ops (`256 + n` is `v[n]`), 8-bit for scalar ones.
    /// Scalar codes use the GFX9 numbering on both families (M0 = 124; GFX12's NULL is
    /// 128, which reads as 0 and is never written).
    pub src: [u16; 3],
    /// Scalar destination of VOPC/VOP3B (carry out, compare mask) as an SGPR code.
    pub sdst: u8,
    /// Per-source negate bits (VOP3/VOP3P `neg`; VOP3P `neg_lo`; DPP/SDWA neg).
    pub neg: u8,
    /// Per-source absolute-value bits (VOP3, DPP/SDWA abs; VOP3P `neg_hi`).
    pub abs: u8,
    /// Clamp.
    pub clamp: bool,
    /// Output modifier (0 none, 1 *2, 2 *4, 3 /2).
    pub omod: u8,
    /// VOP3P op_sel (3 bits) and, for VOP3, op_sel of sources/dst.
    pub op_sel: u8,
    /// VOP3P op_sel_hi.
    pub op_sel_hi: u8,
    /// The 32-bit literal (a source code 255, or the K of `v_fmamk`/`s_fmaak`/...).
    pub lit: u32,
    /// SOPP/SOPK 16-bit immediate (`simm16`, zero-extended); gfx950 `v_bitop3_b16/b32`:
    /// the 8-bit truth table ([`crate::isa::Inst::bitop3`], whose neg/abs/omod fields
    /// then lower to no modifiers).
    pub imm: u32,
    /// DPP16/DPP8/SDWA control: the extension dword as the hardware lays it out
    /// (`isa::layout::DPP16`, `DPP8`, `SDWA` from bit 32; for GFX12 VOP3 DPP the third
    /// dword, same layout).
    pub ctl: u32,
    /// GFX10+ 16-bit register semantics (set for every GFX12 instruction): `op_sel` picks
    /// the VGPR half of 16-bit operands in every encoding (GFX12 VOP1/VOP2/VOPC carry it
    /// as bit 7 of the register field, normalised into `op_sel`), and a 16-bit result
    /// preserves the other half of its register. GFX9 (false): only VOP3 has `op_sel`,
    /// and a 16-bit result in the low half zeroes the high half.
    pub t16: bool,
    /// Matrix-core modifiers.
    pub mai: Mai,
    /// Memory operands, normalised across families (DS, FLAT/GLOBAL/SCRATCH, MUBUF, SMEM).
    pub mem: Mem,
    /// The second (Y) half of a GFX12 VOPD dual-issue instruction (`unit == Unit::Vopd`).
    pub y: Half,
}

/// Operands of a memory instruction in one shape for both ISA families.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mem {
    /// Immediate byte offset (DS: `offset0 | offset1 << 8`).
    pub offset: i32,
    /// Address VGPR (DS `addr`, FLAT/MUBUF `vaddr`).
    pub vaddr: u16,
    /// Data register row (store data, atomic source, DS `data0`); AGPR rows included.
    pub data: u16,
    /// Second data register row (DS `data1`).
    pub data1: u16,
    /// Scalar base: FLAT `saddr`, SMEM `sbase`, MUBUF `srsrc` (an SGPR code), or
    /// [`Mem::NO_SGPR`].
    pub sbase: u8,
    /// Scalar offset source code (SMEM/MUBUF `soffset`); 128 (inline 0) when absent.
    pub soffset: u8,
    /// Flag bits ([`Mem::RETURN`], ...).
    pub flags: u8,
    /// Cache-policy bits as encoded, for observers (GFX9: glc | slc << 1 | scc << 2;
    /// GFX12: th | scope << 3).
    pub policy: u8,
    /// Segment of a FLAT-family instruction.
    pub seg: Seg,
    /// Typed buffer (MTBUF) format in GFX9 terms, `dfmt | nfmt << 4` (GFX12's unified
    /// format code is translated when lowering; 0 is the invalid format).
    pub fmt: u8,
    /// Image operands (`Unit::Image`).
    pub img: Img,
}

/// Operands of an image instruction (GFX9 MIMG, GFX12 VIMAGE) besides [`Mem::vaddr`] (the
/// first address VGPR), [`Mem::data`] (the data tuple) and [`Mem::sbase`] (the first SGPR
/// of the resource descriptor).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Img {
    /// GFX12 (NSA): the second to fifth address VGPRs; GFX9 addresses are consecutive.
    pub vaddr: [u8; 4],
    /// Data channel mask.
    pub dmask: u8,
    /// GFX12 `dim` (0 1D, 1 2D, 2 3D, 3 cube, 4 1D array, 5 2D array, 6 2D MSAA, 7 2D MSAA
    /// array); GFX9 has none (the descriptor's type decides).
    pub dim: u8,
    /// Flag bits ([`Img::D16`], ...).
    pub flags: u8,
}

impl Img {
    /// 16-bit data, two values per VGPR.
    pub const D16: u8 = 1;
    /// 16-bit addresses, two per VGPR.
    pub const A16: u8 = 2;
    /// Texture-fail / LOD-warning status: one more data register (`tfe`, `lwe`).
    pub const STATUS: u8 = 4;
    /// GFX12 `r128`: a 128-bit (4-SGPR) resource descriptor.
    pub const R128: u8 = 8;
    /// GFX12: the address VGPRs are [`Mem::vaddr`] then [`Img::vaddr`].
    pub const NSA: u8 = 16;

    /// Whether flag bit(s) `f` are set.
    #[inline(always)]
    pub fn has(&self, f: u8) -> bool {
        self.flags & f != 0
    }
}

impl Mem {
    /// No scalar base register (`off`).
    pub const NO_SGPR: u8 = 0xff;
    /// An atomic returns the pre-operation value (GFX9 `glc`/`sc0`, GFX12 `th[0]`).
    pub const RETURN: u8 = 1;
    /// SCRATCH adds the VGPR address (GFX9 `saddr` off, gfx94x/GFX12 `sve`).
    pub const VADDR: u8 = 2;
    /// MUBUF: the VGPR supplies an offset.
    pub const OFFEN: u8 = 4;
    /// MUBUF: the VGPR supplies an index.
    pub const IDXEN: u8 = 8;
    /// SMEM: the immediate offset is present (GFX9 `imm`).
    pub const IMM: u8 = 16;
    /// GFX9 MUBUF `lds`: the load goes to LDS (LDS DMA), not to VGPRs.
    pub const LDS_DMA: u8 = 32;

    pub(crate) const NONE: Mem = Mem {
        offset: 0,
        vaddr: 0,
        data: 0,
        data1: 0,
        sbase: Mem::NO_SGPR,
        soffset: 128,
        flags: 0,
        policy: 0,
        seg: Seg::Flat,
        fmt: 0,
        img: Img {
            vaddr: [0; 4],
            dmask: 0,
            dim: 0,
            flags: 0,
        },
    };

    /// Whether flag bit(s) `f` are set.
    #[inline(always)]
    pub fn has(&self, f: u8) -> bool {
        self.flags & f != 0
    }
}

/// One half of a VOPD instruction as a plain VOP2/VOP1 operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Half {
    /// The operation.
    pub op: Op,
    /// Destination VGPR.
    pub dst: u16,
    /// Source 0 (9-bit code) and source 1 (256 + VGPR).
    pub src: [u16; 2],
}

impl Inst {
    pub(crate) fn new(op: Op, unit: Unit) -> Inst {
        Inst {
            op: op.canonical(),
            named: op,
            unit,
            sub: Sub::None,
            len: 4,
            cmp: false,
            cond: 0,
            cty: CmpType::U32,
            cmpx: false,
            dst: 0,
            src: [0; 3],
            sdst: 0,
            neg: 0,
            abs: 0,
            clamp: false,
            omod: 0,
            op_sel: 0,
            op_sel_hi: 0,
            lit: 0,
            imm: 0,
            ctl: 0,
            t16: false,
            mai: Mai::default(),
            mem: Mem::NONE,
            y: Half {
                op: Op::VNop,
                dst: 0,
                src: [0; 2],
            },
        }
    }

    /// The segment of a FLAT-family instruction.
    pub fn seg(&self) -> Seg {
        self.mem.seg
    }

    /// The LLVM mnemonic of the operation (without encoding suffixes), e.g.
    /// `global_load_dword` or `v_cmp_gt_u32`.
    pub fn mnemonic(&self) -> &'static str {
        self.named.name()
    }
}
