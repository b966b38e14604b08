//! 8-bit float to f32 conversions: `v_cvt_f32_fp8`, `v_cvt_f32_bf8` (one byte),
//! `v_cvt_pk_f32_fp8`, `v_cvt_pk_f32_bf8` (two bytes of a 16-bit half into a register
//! pair, the lower byte into the lower register), on gfx942 and gfx950 (VOP1 opcodes
//! 0x54-0x57) and GFX12 (0x6c-0x6f).
//!
//! The encodings are those of the matrix cores ([`super::mfma`]): FNUZ on gfx942, OCP on
//! gfx950 and GFX12. Which byte: byte 0 of the source in the VOP1 and GFX9 VOP3 forms
//! (llvm-mc-22 takes no `op_sel` there); GFX9 SDWA `src0_sel` moves the chosen byte or
//! word down first (the common SDWA source path); GFX12 VOP3 `byte_sel:n` is `op_sel[1]`
//! for bit 0 of n and `op_sel[0]` for bit 1 (llvm-mc-22: `byte_sel:1` sets instruction bit
//! 12, `byte_sel:2` bit 11), and the packed forms' `op_sel[0]` picks the high half. Every
//! 8-bit float is exact in f32; the VOP3 output modifiers (`mul:`, `clamp`, GFX9 only)
//! apply to the result.

use super::float as fl;
use super::inst::Enc;
use super::inst::Inst;
use super::mfma::f8_value;
use super::valu::{put, src, Row};
use super::wave::{Wave, LANES};
use super::FaultReason;
use crate::isa::Op;
use crate::{Family, Target};

/// Whether `op` is one of this module's conversions.
pub(crate) fn converts(op: Op) -> bool {
    matches!(
        op,
        Op::VCvtF32Fp8 | Op::VCvtF32Bf8 | Op::VCvtPkF32Fp8 | Op::VCvtPkF32Bf8
    )
}

/// Executes an 8-bit float conversion of `target`.
pub(crate) fn exec(w: &mut Wave, i: &Inst, target: Target) -> Result<(), FaultReason> {
    let bf8 = matches!(i.op, Op::VCvtF32Bf8 | Op::VCvtPkF32Bf8);
    let packed = matches!(i.op, Op::VCvtPkF32Fp8 | Op::VCvtPkF32Bf8);
    let ocp = target != Target::Gfx942;
    let gfx12_vop3 = target.family() == Family::Gfx12 && i.enc == Enc::Vop3;
    let shift = match (gfx12_vop3, packed) {
        (false, _) => 0,
        (true, false) => 8 * (((i.op_sel >> 1) & 1) | (i.op_sel & 1) << 1) as u32,
        (true, true) => 16 * (i.op_sel & 1) as u32,
    };
    let (a, en) = src(w, i, 0);
    let cvt = |x: u32, k: u32| {
        let v = f8_value((x >> (shift + 8 * k)) as u8, bf8, ocp) as f32;
        fl::out32(v, i.omod, i.clamp).to_bits()
    };
    if !packed {
        let r: Row = std::array::from_fn(|l| cvt(a[l], 0));
        put(w, i, &r, en);
        return Ok(());
    }
    let d = i.dst as usize;
    if d + 1 >= w.v.len() {
        return Err(FaultReason::UnsupportedForm(
            "v_cvt_pk_f32_* destination pair past the register file",
        ));
    }
    let exec = w.exec() & en;
    for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
        let (lo, hi) = (cvt(a[l], 0), cvt(a[l], 1));
        w.v[d][l] = lo;
        w.v[d + 1][l] = hi;
    }
    Ok(())
}
