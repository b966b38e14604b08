//! GFX9 instruction decoding into the executor's pre-decoded form ([`Inst`]).
//!
//! Runs once per code object (see [`super::Program`]); the per-instruction work at run time
//! is a table index. Operand fields of VOP1/VOP2/VOPC/VOP3/VOP3P are normalised into one
//! shape so the vector ALU code does not care which encoding it came from.

use super::op::{Avail, Enc, Op, GFX9};
use super::wave::AGPR_BASE;
use crate::Target;
use std::sync::OnceLock;

/// Sub-encoding of a VOP1/VOP2/VOPC instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sub {
    /// Plain (or VOP3) encoding.
    None,
    /// SDWA: the second dword holds sub-dword selects.
    Sdwa,
    /// DPP: the second dword holds the data-parallel-primitive control.
    Dpp,
    /// GFX10+ DPP8 (src0 = 233): the second dword holds src0 and eight 3-bit lane selects;
    /// inactive source lanes read as 0.
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

/// A pre-decoded instruction. `Copy`, fixed size: the program table holds one per dword.
#[derive(Debug, Clone, Copy)]
pub struct Inst {
    /// The operation.
    pub op: Op,
    /// The encoding it was read from (VOP3 for `_e64` forms).
    pub enc: Enc,
    /// Sub-encoding (SDWA/DPP) of VOP1/VOP2/VOPC.
    pub sub: Sub,
    /// Length in bytes (4, 8 or 12).
    pub len: u8,
    /// Compare condition (VOPC): low 4 bits (float) or 3 bits (integer) of the opcode.
    pub cond: u8,
    /// Destination: VGPR index for vector ops, SGPR code for scalar ones.
    pub dst: u16,
    /// Sources: 9-bit operand codes for vector ops (256+n = v[n]), 8-bit for scalar ones.
    pub src: [u16; 3],
    /// Scalar destination of VOPC/VOP3B (carry out, compare mask) as an SGPR code.
    pub sdst: u8,
    /// Per-source negate bits (VOP3/VOP3P `neg`; VOP3P `neg_lo`).
    pub neg: u8,
    /// Per-source absolute-value bits (VOP3; VOP3P `neg_hi`).
    pub abs: u8,
    /// Clamp.
    pub clamp: bool,
    /// Output modifier (0 none, 1 *2, 2 *4, 3 /2).
    pub omod: u8,
    /// VOP3P op_sel (3 bits) and, for VOP3, op_sel of sources/dst.
    pub op_sel: u8,
    /// VOP3P op_sel_hi.
    pub op_sel_hi: u8,
    /// The 32-bit literal, when a source code is 255.
    pub lit: u32,
    /// Raw first dword.
    pub w0: u32,
    /// Raw second dword (SDWA/DPP control, VOP3 second half, MFMA fields).
    pub w1: u32,
    /// The instruction is a vector compare (VOPC or its VOP3 form).
    pub cmp: bool,
    /// GFX10+ 16-bit register semantics (set for every GFX12 instruction): `op_sel` picks
    /// the VGPR half of 16-bit operands in every encoding (GFX12 VOP1/VOP2/VOPC carry it
    /// as bit 7 of the register field, normalised into `op_sel`), and a 16-bit result
    /// preserves the other half of its register. GFX9 (false): only VOP3 has `op_sel`,
    /// and a 16-bit result in the low half zeroes the high half.
    pub t16: bool,
    /// Memory operands, normalised across families (DS, FLAT/GLOBAL/SCRATCH, MUBUF, SMEM).
    pub mem: Mem,
    /// The second (Y) half of a GFX12 VOPD dual-issue instruction (`enc == Enc::Vopd`).
    pub y: Half,
}

/// Operands of a memory instruction in one shape for both ISA families, so the memory
/// semantics never look at encoding bits.
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
    /// format code is translated when decoding; 0 is the invalid format).
    pub fmt: u8,
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

    const NONE: Mem = Mem {
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

/// Why bytes could not be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecodeFail {
    /// The encoding format is not one the executor handles (MIMG, MTBUF, ...).
    Format(&'static str),
    /// The opcode is not in the executor's table for this target.
    Opcode {
        /// Format name.
        format: &'static str,
        /// Opcode number.
        opcode: u16,
    },
    /// The instruction runs past the end of the code.
    Truncated,
    /// The instruction decodes (this is its mnemonic) but the executor has no semantics
    /// for it.
    Unimplemented(&'static str),
}

type Table = Vec<Option<Op>>;

/// Opcode lookup tables of one target, indexed by [`enc_index`] then opcode.
struct Tables {
    by_enc: [Table; 15],
}

fn enc_index(e: Enc) -> usize {
    match e {
        Enc::Sop1 => 0,
        Enc::Sop2 => 1,
        Enc::Sopc => 2,
        Enc::Sopk => 3,
        Enc::Sopp => 4,
        Enc::Smem => 5,
        Enc::Vop1 => 6,
        Enc::Vop2 => 7,
        Enc::Vopc => 8,
        Enc::Vop3 => 9,
        Enc::Vop3p => 10,
        Enc::Ds => 11,
        Enc::Flat => 12,
        Enc::Mubuf => 13,
        Enc::Vopd => 14,
    }
}

fn available(a: Avail, t: Target) -> bool {
    match a {
        Avail::A => true,
        Avail::P => t == Target::Gfx90a,
        Avail::C => matches!(t, Target::Gfx942 | Target::Gfx950),
        Avail::N => t == Target::Gfx950,
        Avail::G | Avail::T => false,
    }
}

fn build(t: Target) -> Tables {
    let mut by_enc: [Table; 15] = std::array::from_fn(|_| vec![None; 1024]);
    for &(op, enc, code, avail) in GFX9 {
        if !available(avail, t) {
            continue;
        }
        let code = code as usize;
        by_enc[enc_index(enc)][code] = Some(op);
        // The VOP3 forms of VOP1/VOP2/VOPC operations.
        let vop3 = match enc {
            Enc::Vopc => Some(code),
            Enc::Vop2 => Some(0x100 + code),
            Enc::Vop1 => Some(0x140 + code),
            _ => None,
        };
        if let Some(c) = vop3 {
            by_enc[enc_index(Enc::Vop3)][c] = Some(op);
        }
    }
    // Compare families: every condition of a family maps to its base entry.
    for base in (0x20..0x80).step_by(16) {
        let op = by_enc[8][base];
        for c in 1..16 {
            by_enc[8][base + c] = op;
            by_enc[9][base + c] = op;
        }
    }
    for base in (0xa0..0x100).step_by(8) {
        let op = by_enc[8][base];
        for c in 1..8 {
            by_enc[8][base + c] = op;
            by_enc[9][base + c] = op;
        }
    }
    Tables { by_enc }
}

fn tables(t: Target) -> &'static Tables {
    static T: [OnceLock<Tables>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    let i = match t {
        Target::Gfx90a => 0,
        Target::Gfx942 => 1,
        _ => 2,
    };
    T[i].get_or_init(|| build(t))
}

impl Inst {
    pub(crate) fn new(op: Op, enc: Enc, w0: u32, w1: u32) -> Inst {
        Inst {
            op,
            enc,
            sub: Sub::None,
            len: 4,
            cond: 0,
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
            w0,
            w1,
            cmp: false,
            t16: false,
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

    /// The LLVM mnemonic this instruction prints as (without encoding suffixes), e.g.
    /// `global_load_dword` or `v_cmp_gt_u32`.
    pub fn mnemonic(&self) -> String {
        let name = self.op.name();
        if self.enc == Enc::Flat {
            let p = match self.seg() {
                Seg::Flat => "flat_",
                Seg::Scratch => "scratch_",
                Seg::Global => "global_",
            };
            return format!("{p}{name}");
        }
        if let Some(i) = name.find('*') {
            let float = ["f16", "f32", "f64"].iter().any(|s| name.ends_with(s));
            let c = if float {
                [
                    "f", "lt", "eq", "le", "gt", "lg", "ge", "o", "u", "nge", "nlg", "ngt", "nle",
                    "neq", "nlt", "tru",
                ][self.cond as usize & 15]
            } else {
                ["f", "lt", "eq", "le", "gt", "ne", "ge", "t"][self.cond as usize & 7]
            };
            return format!("{}{}{}", &name[..i], c, &name[i + 1..]);
        }
        name.to_string()
    }
}

/// First AGPR row, as a register-row offset.
const AGPR_ROWS: u16 = AGPR_BASE as u16;

/// Source neg/abs bits of a DPP16 control dword (GFX9 DPP and GFX12 DPP16 agree):
/// src0 neg 20, abs 21; src1 neg 22, abs 23.
pub(crate) fn dpp_mods(w1: u32) -> (u8, u8) {
    let neg = ((w1 >> 20) & 1) | (((w1 >> 22) & 1) << 1);
    let abs = ((w1 >> 21) & 1) | (((w1 >> 23) & 1) << 1);
    (neg as u8, abs as u8)
}

/// Reads dword `i` of `words`, or reports truncation.
fn word(words: &[u32], i: usize) -> Result<u32, DecodeFail> {
    words.get(i).copied().ok_or(DecodeFail::Truncated)
}

/// Decodes the GFX9 instruction at the start of `words`.
pub fn decode_gfx9(target: Target, words: &[u32]) -> Result<Inst, DecodeFail> {
    let t = tables(target);
    let w0 = word(words, 0)?;
    let look = |enc: Enc, code: u32, format: &'static str| {
        t.by_enc[enc_index(enc)]
            .get(code as usize)
            .copied()
            .flatten()
            .ok_or(DecodeFail::Opcode {
                format,
                opcode: code as u16,
            })
    };
    // Attaches a literal when any scalar-capable source is 255.
    let with_lit = |mut i: Inst, srcs: &[u16]| -> Result<Inst, DecodeFail> {
        if srcs.contains(&255) {
            i.lit = word(words, (i.len / 4) as usize)?;
            i.len += 4;
        }
        Ok(i)
    };
    if w0 & 0xFF80_0000 == 0xBE80_0000 {
        let op = look(Enc::Sop1, (w0 >> 8) & 0xff, "sop1")?;
        let mut i = Inst::new(op, Enc::Sop1, w0, 0);
        i.dst = ((w0 >> 16) & 0x7f) as u16;
        i.src[0] = (w0 & 0xff) as u16;
        return with_lit(i, &[i.src[0]]);
    }
    if w0 & 0xFF80_0000 == 0xBF00_0000 {
        let op = look(Enc::Sopc, (w0 >> 16) & 0x7f, "sopc")?;
        let mut i = Inst::new(op, Enc::Sopc, w0, 0);
        i.src = [(w0 & 0xff) as u16, ((w0 >> 8) & 0xff) as u16, 0];
        return with_lit(i, &[i.src[0], i.src[1]]);
    }
    if w0 & 0xFF80_0000 == 0xBF80_0000 {
        let op = look(Enc::Sopp, (w0 >> 16) & 0x7f, "sopp")?;
        return Ok(Inst::new(op, Enc::Sopp, w0, 0));
    }
    if w0 & 0xF000_0000 == 0xB000_0000 {
        let op = look(Enc::Sopk, (w0 >> 23) & 0x1f, "sopk")?;
        let mut i = Inst::new(op, Enc::Sopk, w0, 0);
        i.dst = ((w0 >> 16) & 0x7f) as u16;
        if op == Op::SSetregImm32B32 {
            i.lit = word(words, 1)?;
            i.len = 8;
        }
        return Ok(i);
    }
    if w0 & 0xC000_0000 == 0x8000_0000 {
        let op = look(Enc::Sop2, (w0 >> 23) & 0x7f, "sop2")?;
        let mut i = Inst::new(op, Enc::Sop2, w0, 0);
        i.dst = ((w0 >> 16) & 0x7f) as u16;
        i.src = [(w0 & 0xff) as u16, ((w0 >> 8) & 0xff) as u16, 0];
        return with_lit(i, &[i.src[0], i.src[1]]);
    }
    // VOP1 / VOPC / VOP2 (32-bit encodings, possibly with SDWA/DPP/literal).
    let vop32 = if w0 & 0xFE00_0000 == 0x7E00_0000 {
        Some((Enc::Vop1, (w0 >> 9) & 0xff, "vop1"))
    } else if w0 & 0xFE00_0000 == 0x7C00_0000 {
        Some((Enc::Vopc, (w0 >> 17) & 0xff, "vopc"))
    } else if w0 & 0x8000_0000 == 0 {
        Some((Enc::Vop2, (w0 >> 25) & 0x3f, "vop2"))
    } else {
        None
    };
    if let Some((enc, code, name)) = vop32 {
        let op = look(enc, code, name)?;
        let mut i = Inst::new(op, enc, w0, 0);
        i.src[0] = (w0 & 0x1ff) as u16;
        match enc {
            Enc::Vop1 => i.dst = ((w0 >> 17) & 0xff) as u16,
            Enc::Vopc => {
                i.src[1] = 256 + ((w0 >> 9) & 0xff) as u16;
                i.sdst = 106;
                i.cmp = true;
                i.cond = (code & 0xf) as u8;
            }
            _ => {
                i.src[1] = 256 + ((w0 >> 9) & 0xff) as u16;
                i.dst = ((w0 >> 17) & 0xff) as u16;
                // Implicit VCC: carry in (src2) and carry out (sdst), cndmask's mask.
                i.src[2] = 106;
                i.sdst = 106;
            }
        }
        match i.src[0] {
            249 => {
                let w1 = word(words, 1)?;
                i.sub = Sub::Sdwa;
                i.w1 = w1;
                i.len = 8;
                // SDWA src0: VGPR unless the s0 bit says SGPR/constant.
                let s0 = (w1 & 0xff) as u16;
                i.src[0] = if w1 & (1 << 23) != 0 { s0 } else { 256 + s0 };
                if enc != Enc::Vop1 && w1 & (1 << 31) != 0 {
                    i.src[1] -= 256;
                }
                if enc == Enc::Vopc && w1 & (1 << 15) != 0 {
                    i.sdst = ((w1 >> 8) & 0x7f) as u8;
                }
                // Modifiers live in the SDWA dword: neg/abs per source.
                i.neg = (((w1 >> 20) & 1) | (((w1 >> 28) & 1) << 1)) as u8;
                i.abs = (((w1 >> 21) & 1) | (((w1 >> 29) & 1) << 1)) as u8;
                if enc != Enc::Vopc {
                    i.clamp = w1 & (1 << 13) != 0;
                    i.omod = ((w1 >> 14) & 3) as u8;
                }
            }
            250 => {
                let w1 = word(words, 1)?;
                i.sub = Sub::Dpp;
                i.w1 = w1;
                i.len = 8;
                i.src[0] = 256 + (w1 & 0xff) as u16;
                (i.neg, i.abs) = dpp_mods(w1);
            }
            _ => {}
        }
        // madmk/fmamk (K is src1... order: dst = src0 * K + vsrc1) and madak/fmaak.
        let mut lit_srcs = [i.src[0], 0];
        if matches!(
            op,
            Op::VMadmkF32 | Op::VMadakF32 | Op::VFmamkF32 | Op::VFmaakF32
        ) {
            lit_srcs[1] = 255;
        }
        if i.sub == Sub::None {
            return with_lit(i, &lit_srcs);
        }
        return Ok(i);
    }
    if w0 & 0xFC00_0000 == 0xC000_0000 {
        let op = look(Enc::Smem, (w0 >> 18) & 0xff, "smem")?;
        let w1 = word(words, 1)?;
        let mut i = Inst::new(op, Enc::Smem, w0, w1);
        i.len = 8;
        i.dst = ((w0 >> 6) & 0x7f) as u16;
        let (imm, soe) = (w0 & (1 << 17) != 0, w0 & (1 << 14) != 0);
        let buffer = op.name().starts_with("s_buffer_");
        i.mem.sbase = ((w0 & 0x3f) * 2) as u8;
        i.mem.policy = ((w0 >> 16) & 1) as u8;
        if imm {
            i.mem.flags |= Mem::IMM;
            // 20-bit unsigned for buffer loads, 21-bit signed otherwise.
            i.mem.offset = if buffer {
                (w1 & 0xf_ffff) as i32
            } else {
                ((w1 & 0x1f_ffff) << 11) as i32 >> 11
            };
            if soe {
                i.mem.soffset = ((w1 >> 25) & 0x7f) as u8;
            }
        } else {
            i.mem.soffset = (w1 & 0x7f) as u8;
        }
        return Ok(i);
    }
    if w0 & 0xFF80_0000 == 0xD380_0000 {
        let op = look(Enc::Vop3p, (w0 >> 16) & 0x7f, "vop3p")?;
        let w1 = word(words, 1)?;
        let mut i = Inst::new(op, Enc::Vop3p, w0, w1);
        i.len = 8;
        i.dst = (w0 & 0xff) as u16;
        i.src = [
            (w1 & 0x1ff) as u16,
            ((w1 >> 9) & 0x1ff) as u16,
            ((w1 >> 18) & 0x1ff) as u16,
        ];
        i.neg = ((w1 >> 29) & 7) as u8; // neg_lo
        i.abs = ((w0 >> 8) & 7) as u8; // neg_hi
        i.op_sel = ((w0 >> 11) & 7) as u8;
        i.op_sel_hi = (((w1 >> 27) & 3) | (((w0 >> 14) & 1) << 2)) as u8;
        i.clamp = w0 & (1 << 15) != 0;
        return Ok(i);
    }
    if w0 & 0xFC00_0000 == 0xD000_0000 {
        let code = (w0 >> 16) & 0x3ff;
        let op = look(Enc::Vop3, code, "vop3")?;
        let w1 = word(words, 1)?;
        let mut i = Inst::new(op, Enc::Vop3, w0, w1);
        i.len = 8;
        i.src = [
            (w1 & 0x1ff) as u16,
            ((w1 >> 9) & 0x1ff) as u16,
            ((w1 >> 18) & 0x1ff) as u16,
        ];
        i.neg = ((w1 >> 29) & 7) as u8;
        i.omod = ((w1 >> 27) & 3) as u8;
        let vop3b = matches!(
            op,
            Op::VAddCoU32
                | Op::VSubCoU32
                | Op::VSubrevCoU32
                | Op::VAddcCoU32
                | Op::VSubbCoU32
                | Op::VSubbrevCoU32
                | Op::VDivScaleF32
                | Op::VDivScaleF64
                | Op::VMadU64U32
                | Op::VMadI64I32
        );
        if vop3b {
            i.sdst = ((w0 >> 8) & 0x7f) as u8;
            i.dst = (w0 & 0xff) as u16;
            i.clamp = w0 & (1 << 15) != 0;
        } else if code < 0x100 {
            // VOPC as VOP3: the destination is an SGPR (pair).
            i.cmp = true;
            i.sdst = (w0 & 0xff) as u8;
            i.cond = (code & 0xf) as u8;
            i.abs = ((w0 >> 8) & 7) as u8;
            i.clamp = w0 & (1 << 15) != 0;
        } else {
            i.dst = (w0 & 0xff) as u16;
            i.abs = ((w0 >> 8) & 7) as u8;
            i.op_sel = ((w0 >> 11) & 0xf) as u8;
            i.clamp = w0 & (1 << 15) != 0;
        }
        return Ok(i);
    }
    let mem = |enc: Enc, code: u32, name: &'static str| -> Result<Inst, DecodeFail> {
        let op = look(enc, code, name)?;
        let w1 = word(words, 1)?;
        let mut i = Inst::new(op, enc, w0, w1);
        i.len = 8;
        let m = &mut i.mem;
        match enc {
            Enc::Ds => {
                let acc = if w0 & (1 << 25) != 0 { AGPR_ROWS } else { 0 };
                m.offset = (w0 & 0xffff) as i32;
                m.vaddr = (w1 & 0xff) as u16;
                m.data = acc + ((w1 >> 8) & 0xff) as u16;
                m.data1 = acc + ((w1 >> 16) & 0xff) as u16;
                i.dst = acc + ((w1 >> 24) & 0xff) as u16;
            }
            Enc::Flat => {
                m.seg = match (w0 >> 14) & 3 {
                    1 => Seg::Scratch,
                    2 => Seg::Global,
                    _ => Seg::Flat,
                };
                // FLAT: 12-bit unsigned offset; GLOBAL/SCRATCH: 13-bit signed.
                m.offset = match m.seg {
                    Seg::Flat => (w0 & 0xfff) as i32,
                    _ => ((w0 & 0x1fff) << 19) as i32 >> 19,
                };
                let acc = if w1 & (1 << 23) != 0 { AGPR_ROWS } else { 0 };
                m.vaddr = (w1 & 0xff) as u16;
                m.data = acc + ((w1 >> 8) & 0xff) as u16;
                i.dst = acc + ((w1 >> 24) & 0xff) as u16;
                let saddr = ((w1 >> 16) & 0x7f) as u8;
                m.sbase = if saddr == 0x7f { Mem::NO_SGPR } else { saddr };
                let glc = w0 & (1 << 16) != 0;
                m.policy =
                    glc as u8 | (((w0 >> 17) & 1) as u8) << 1 | (((w0 >> 25) & 1) as u8) << 2;
                if glc {
                    m.flags |= Mem::RETURN;
                }
                // Scratch VGPR address: gfx90a uses it when saddr is off, the targets
                // with architected flat scratch when the SVE bit (13) is set.
                let use_v = if target == Target::Gfx90a {
                    saddr == 0x7f
                } else {
                    w0 & (1 << 13) != 0
                };
                if use_v {
                    m.flags |= Mem::VADDR;
                }
            }
            _ => {
                let acc = if w1 & (1 << 23) != 0 { AGPR_ROWS } else { 0 };
                m.offset = (w0 & 0xfff) as i32;
                m.vaddr = (w1 & 0xff) as u16;
                m.data = acc + ((w1 >> 8) & 0xff) as u16;
                m.sbase = (((w1 >> 16) & 0x1f) * 4) as u8;
                m.soffset = ((w1 >> 24) & 0xff) as u8;
                m.policy = (((w0 >> 14) & 1) | ((w0 >> 17) & 1) << 1 | ((w0 >> 15) & 1) << 2) as u8;
                if w0 & (1 << 12) != 0 {
                    m.flags |= Mem::OFFEN;
                }
                if w0 & (1 << 13) != 0 {
                    m.flags |= Mem::IDXEN;
                }
                if w0 & (1 << 14) != 0 {
                    m.flags |= Mem::RETURN;
                }
                if w0 & (1 << 16) != 0 {
                    m.flags |= Mem::LDS_DMA;
                }
            }
        }
        Ok(i)
    };
    match w0 & 0xFC00_0000 {
        0xD800_0000 => mem(Enc::Ds, (w0 >> 17) & 0xff, "ds"),
        0xDC00_0000 => mem(Enc::Flat, (w0 >> 18) & 0x7f, "flat"),
        0xE000_0000 => mem(Enc::Mubuf, (w0 >> 18) & 0x7f, "mubuf"),
        0xE800_0000 => mtbuf(words, w0),
        0xF000_0000 => Err(DecodeFail::Format("mimg")),
        _ => Err(DecodeFail::Format("unknown")),
    }
}

/// GFX9 MTBUF (Vega / CDNA3 ISA guides, MTBUF encoding; checked with llvm-mc-22 on
/// gfx942): `[11:0]` offset, `[12]` offen, `[13]` idxen, `[14]` glc/sc0, `[18:15]` opcode
/// (0-7 `tbuffer_{load,store}_format_*`, 8-15 their `_d16_` forms: llvm-mc-22 encodes
/// `tbuffer_load_format_d16_x` as 8, `tbuffer_store_format_d16_x` as 12), `[22:19]` dfmt,
/// `[25:23]` nfmt; second dword as MUBUF (`[7:0]` vaddr, `[15:8]` vdata, `[20:16]` srsrc / 4,
/// `[22]` slc, `[23]` acc, `[31:24]` soffset).
fn mtbuf(words: &[u32], w0: u32) -> Result<Inst, DecodeFail> {
    use Op::*;
    let code = (w0 >> 15) & 0xf;
    let op = [
        TLoadFormatX,
        TLoadFormatXy,
        TLoadFormatXyz,
        TLoadFormatXyzw,
        TStoreFormatX,
        TStoreFormatXy,
        TStoreFormatXyz,
        TStoreFormatXyzw,
        TLoadFormatD16X,
        TLoadFormatD16Xy,
        TLoadFormatD16Xyz,
        TLoadFormatD16Xyzw,
        TStoreFormatD16X,
        TStoreFormatD16Xy,
        TStoreFormatD16Xyz,
        TStoreFormatD16Xyzw,
    ][code as usize];
    let w1 = word(words, 1)?;
    let mut i = Inst::new(op, Enc::Mubuf, w0, w1);
    i.len = 8;
    let acc = if w1 & (1 << 23) != 0 { AGPR_ROWS } else { 0 };
    let m = &mut i.mem;
    m.offset = (w0 & 0xfff) as i32;
    m.vaddr = (w1 & 0xff) as u16;
    m.data = acc + ((w1 >> 8) & 0xff) as u16;
    m.sbase = (((w1 >> 16) & 0x1f) * 4) as u8;
    m.soffset = ((w1 >> 24) & 0xff) as u8;
    m.policy = (((w0 >> 14) & 1) | ((w1 >> 22) & 1) << 1) as u8;
    m.fmt = (((w0 >> 19) & 0xf) | ((w0 >> 23) & 7) << 4) as u8;
    if w0 & (1 << 12) != 0 {
        m.flags |= Mem::OFFEN;
    }
    if w0 & (1 << 13) != 0 {
        m.flags |= Mem::IDXEN;
    }
    Ok(i)
}
