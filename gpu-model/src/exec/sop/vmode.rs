//! GFX9 vector modes that scalar instructions switch on: GPR indexing (`s_set_gpr_idx_on`,
//! MODE.GPR_IDX_EN) and VSKIP (`s_setvskip`, MODE.VSKIP), applied to the vector
//! instructions that follow.
//!
//! Source: CDNA4 ISA guide, 3.5 "Mode register" (GPR_IDX_EN = MODE[27], VSKIP = MODE[28],
//! CSP = MODE[31:29]), 3.6.1 "Out-of-Range behavior", 6.6 "VGPR Indexing" (the same in the
//! Vega and CDNA3 guides):
//! - VSKIP: "skip (do not execute) any vector instructions: valu, vmem, lds"; skipped
//!   memory instructions do not count in the wait counters.
//! - GPR indexing: M0[7:0] is an unsigned index added to the VGPR sources and destination
//!   selected by M0[15:12] (bit 12 src0, 13 src1, 14 src2, 15 dst) of VALU instructions;
//!   SGPRs and constants are not indexed. The mapping follows the encoded operand fields,
//!   except V_MADMK/V_FMAMK, whose encoded second source is the hardware's src2 (the
//!   guide's table 6.6.2). Instructions that read their destination (V_MAC/V_FMAC, SDWA
//!   destination preserve) read it where they write it, under the dst bit.
//! - Out of range (the index takes a VGPR past v255): a source reads VGPR0, a
//!   destination makes the instruction a NOP (3.6.1). The model has no per-wave VGPR
//!   allocation, so "in range" is the architectural v0..v255 (documented choice).
//!
//! GFX12 has neither mode (its MODE register has no such fields): there these bits change
//! nothing.

use super::super::inst::Inst;
use super::super::wave::Wave;
use super::super::InstClass;
use crate::isa::Op;
use crate::{Family, Target};

/// MODE.GPR_IDX_EN.
pub(crate) const GPR_IDX_EN: u32 = 1 << 27;
/// MODE.VSKIP.
pub(crate) const VSKIP: u32 = 1 << 28;
/// The MODE bits that make [`vector_mode`] look at an instruction.
pub(crate) const VECTOR_MODES: u32 = GPR_IDX_EN | VSKIP;

/// How a vector mode changes an instruction.
pub(crate) enum Vector {
    /// Not at all: execute it as it is.
    Plain,
    /// Skipped (VSKIP, or an indexed destination out of range).
    Skip,
    /// Execute this copy, with its VGPR operands indexed.
    Indexed(Inst),
}

/// Applies the wave's vector modes to `i` (called only when a [`VECTOR_MODES`] bit is set).
#[cold]
#[inline(never)]
pub(crate) fn vector_mode(w: &Wave, target: Target, i: &Inst) -> Vector {
    if target.family() != Family::Gfx9 {
        return Vector::Plain;
    }
    let class = i.unit.class();
    let valu = matches!(class, InstClass::Valu | InstClass::Vop3p);
    if !(valu || matches!(class, InstClass::Lds | InstClass::Vmem)) {
        return Vector::Plain;
    }
    if w.mode & VSKIP != 0 {
        return Vector::Skip;
    }
    if w.mode & GPR_IDX_EN == 0 || !valu {
        return Vector::Plain;
    }
    let m0 = w.sgpr(124);
    let idx = (m0 & 0xff) as u16;
    let enable = (m0 >> 12) & 0xf;
    let mut j = *i;
    // The encoded second source of madmk/fmamk is the hardware's third operand.
    let src_bit = |k: usize| match (i.op, k) {
        (Op::VMadmkF32 | Op::VMadmkF16 | Op::VFmamkF32 | Op::VFmamkF16, 1) => 2,
        _ => k,
    };
    for (k, s) in j.src.iter_mut().enumerate() {
        if enable >> src_bit(k) & 1 != 0 && (256..512).contains(s) {
            let v = *s - 256 + idx;
            *s = if v > 255 { 256 } else { 256 + v };
        }
    }
    if enable & 8 != 0 && writes_vgpr(i) {
        let v = j.dst + idx;
        if v > 255 {
            return Vector::Skip;
        }
        j.dst = v;
    }
    Vector::Indexed(j)
}

/// Whether `i.dst` names a VGPR row (not an SGPR, and not unused as for compares).
fn writes_vgpr(i: &Inst) -> bool {
    !i.cmp && !matches!(i.op, Op::VReadlaneB32 | Op::VReadfirstlaneB32)
}
