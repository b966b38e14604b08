//! Conversions between f32/f16/bf16 and the narrow float formats (the formats themselves:
//! [`super::minifloat`]):
//!
//! | instructions | targets |
//! |---|---|
//! | `v_cvt_f32_fp8/bf8`, `v_cvt_pk_f32_fp8/bf8` (8-bit to f32) | gfx942, gfx950, GFX12 |
//! | `v_cvt_pk_fp8/bf8_f32`, `v_cvt_sr_fp8/bf8_f32` (f32 to 8-bit) | gfx942, gfx950, GFX12 |
//! | `v_cvt_pk_f16_f32`, `v_cvt_pk_bf16_f32`, `v_cvt_sr_f16_f32`, `v_cvt_sr_bf16_f32`, `v_cvt_f32_bf16` | gfx950 |
//! | `v_cvt_scalef32_*` (every fp8/bf8/fp6/bf6/fp4 form) | gfx950 |
//!
//! The 8-bit formats are FNUZ on gfx942 and OCP on gfx950 and GFX12 (as for the matrix
//! cores, [`super::mfma`]).
//!
//! **Sources.** AMD CDNA4 ISA guide: the instruction pseudo-code (`V_CVT_PK_FP8_F32`,
//! `V_CVT_SR_FP8_F32`, `V_CVT_SCALEF32_*`, `V_CVT_PK_F16_F32`, `V_CVT_F32_BF16`, ...),
//! section 7.3 "BF8 / FP8 and Smaller Formats and Conversions" (Tables 30-32, the
//! FP16_OVFL rule, the FP4/FP6 saturation rule, "Conversion from F32 supports MODE-based
//! denormal control; F4/F6/F8 allows denorms regardless of MODE"); RDNA4 ISA guide section
//! 7.6 (the same FP16_OVFL table, "OPSEL with FP8 and BF8 Conversions", "CVT_SR opcodes:
//! uses truncate"); AMD's host emulation of the gfx950 OCP conversions (ROCm
//! `amd_hip_ocp_host.hpp`) for the edges the guides leave open (NaN encodings, scaled
//! results that overflow a 16-bit destination: infinity, "gfx950 HW behavior").
//!
//! **Operands and results.**
//! - `OPSEL` below is the hardware field (instruction bits 14:11, [`Inst::op_sel`] bit k
//!   = OPSEL[k]); llvm-mc writes it as `op_sel:[src0, src1, (src2,) dst]` and, on GFX12,
//!   `byte_sel:n` for OPSEL[3:2].
//! - f32 to 8-bit: `pk` writes `{f8(S1), f8(S0)}` into the half OPSEL[3] selects, `sr`
//!   writes `f8(S0)` stochastically rounded with the random word S1 into byte OPSEL[3:2];
//!   the rest of the destination is kept. Rounding is nearest-even or stochastic whatever
//!   MODE says (the pseudo-code sets ROUND_NEAREST_EVEN). Source `neg`/`abs` apply (CDNA4
//!   Table 31 "supports: neg, abs"; llvm-mc encodes them on every target although the
//!   RDNA4 guide lists them as unsupported: followed as encoded). `clamp` and `omod` are
//!   ignored (CDNA4: "Ignores OMOD and clamp"; RDNA4: no CLAMP/OMOD; llvm-mc rejects both):
//!   saturation is MODE.FP16_OVFL (MODE bit 23), per the guides' table: with it clear an
//!   infinity or a value past the largest finite one becomes NaN (E4M3) or infinity
//!   (E5M2); with it set the largest finite value of its sign. gfx942 (FNUZ, no
//!   infinity): NaN `0x80` with FP16_OVFL clear (LLVM review #74153: the gfx942
//!   instruction "implements overflow-to-NaN semantics"), the largest finite value with it
//!   set (documented choice: the CDNA4/RDNA4 rule applied to FNUZ).
//! - NaN operands: gfx942 `0x80`; gfx950 the OCP NaN with the operand's sign (AMD's host
//!   emulation); GFX12 `0xff` (E4M3) / `0xfe` (E5M2) whatever the sign (what a third-party
//!   RDNA4 emulator, `rdna4_fp8_narrow.h`, states it established by GPU captures).
//! - `v_cvt_scalef32_*`: the scale is the exponent field of an f32 operand (bits 30:23,
//!   an E8M0 value `2^(e - 127)`; 0xff is NaN and makes every result NaN). To a narrow
//!   format the operand is divided by the scale (the host emulation subtracts the scale
//!   exponent), rounded once, fp8/bf8 overflow by FP16_OVFL, fp6/bf6/fp4 saturating; f32
//!   operands' denormals are flushed when MODE[4] is clear, f16/bf16 and narrow operands
//!   never. From a narrow format the value is multiplied by the scale and rounded to
//!   nearest even into the destination (f32 denormals kept; a 16-bit destination
//!   overflows to infinity). NaN results: to fp8/bf8 as above (gfx950), fp6/bf6/fp4 the
//!   largest magnitude with the operand's sign; to f32 `0x7fc00000` with the sign, to
//!   f16/bf16 `0x7fff` with the sign (host emulation). The multi-value stochastic forms
//!   use S1 for the first value and [`prng`] of the previous word for each next one
//!   (pseudo-code `randomVal = v_prng_b32(randomVal)`). Source selects: byte OPSEL[1:0]
//!   (`f32_fp8`, `f16_fp8`, `pk_*_fp4`), word OPSEL[0] (`pk_*_fp8/bf8`); destination: half
//!   OPSEL[3] (`pk_fp8/bf8`, `f16_fp8/bf8`), byte OPSEL[3:2] (`sr_*`, `pk_fp4`); a 16-bit
//!   single source takes the high half with OPSEL[0] (the VOP3 16-bit operand rule). Only
//!   the float value sources take `neg`/`abs` (on both halves of a packed 16-bit source,
//!   documented choice); `clamp`/`omod` are ignored (CDNA4: "Convert ops do not support
//!   OMOD").
//! - `v_cvt_pk_f16_f32`, `v_cvt_pk_bf16_f32`: `{cvt(S1), cvt(S0)}`, nearest even whatever
//!   MODE says (pseudo-code); `v_cvt_sr_f16_f32`, `v_cvt_sr_bf16_f32`: `cvt(S0)` with the
//!   random word S1 into the half OPSEL[3] selects, the other half kept. Denormals follow
//!   MODE like `v_cvt_f16_f32` (f32 field for the operand; f16 field for f16 results, the
//!   f32 field for bf16 results, which share f32's exponent range: documented choice).
//!   A NaN becomes quiet with its sign and top payload bits (as `v_cvt_f16_f32`). f16
//!   results saturate finite overflow when MODE.FP16_OVFL is set ("clamped to +/-
//!   MAX_FP16 ... while still preserving true INF values", Vega/CDNA MODE register).
//!   `neg`/`abs` on the f32 sources; `clamp` and `omod` apply to the f32 value before
//!   the conversion (llvm-mc encodes them for the pk forms; the pseudo-code is silent).
//! - `v_cvt_f32_bf16`: `{S0[15:0], 16'0}` (SDWA `WORD_1` takes the high half), exact, no
//!   MODE; VOP3 `neg`/`abs`/`clamp`/`omod` as on any f32 result.
//!
//! **MODE** (the [`super::fmode`] table's rows for these instructions): round — never
//! (nearest even or stochastic by definition); denormals — f32 operands of the `scalef32`,
//! `pk_f16/bf16` and `sr_f16/bf16` forms (MODE[4]) and f16/bf16 results of the
//! `pk`/`sr` 16-bit forms (MODE[7] / MODE[5]); 8-bit and narrower values never; FP16_OVFL
//! — every f32/f16/bf16 to fp8/bf8 conversion, and the f16 results of `v_cvt_pk_f16_f32` /
//! `v_cvt_sr_f16_f32`.

mod scaled;

use super::float as fl;
use super::inst::{Inst, Unit};
use super::minifloat::{self as mf, Format, Overflow, Round};
use super::valu::{put, src, Row};
use super::wave::{Wave, AGPR_BASE, LANES};
use super::FaultReason;
use crate::isa::Op;
use crate::{Family, Target};

/// `v_prng_b32` (CDNA4 ISA guide): one step of a Galois LFSR, `(x << 1) ^ (x[31] ? 197 :
/// 0)` ("period 2**32 - 1 unless the input is zero").
#[inline(always)]
pub(crate) fn prng(x: u32) -> u32 {
    (x << 1) ^ if x >> 31 != 0 { 197 } else { 0 }
}

/// Whether `op` is one of this module's conversions.
pub(crate) fn converts(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        VCvtF32Fp8
            | VCvtF32Bf8
            | VCvtPkF32Fp8
            | VCvtPkF32Bf8
            | VCvtPkFp8F32
            | VCvtPkBf8F32
            | VCvtSrFp8F32
            | VCvtSrBf8F32
            | VCvtPkF16F32
            | VCvtPkBf16F32
            | VCvtSrF16F32
            | VCvtSrBf16F32
            | VCvtF32Bf16
    ) || scaled::scaled(op).is_some()
}

/// MODE.FP16_OVFL (MODE bit 23).
#[inline(always)]
fn fp16_ovfl(w: &Wave) -> bool {
    w.mode >> 23 & 1 != 0
}

/// The hardware OPSEL field (bit k = OPSEL[k]).
#[inline(always)]
fn opsel(i: &Inst) -> u32 {
    i.op_sel as u32 & 0xf
}

/// The 8-bit format of `target`.
fn f8_format(target: Target, bf8: bool) -> Format {
    match (target == Target::Gfx942, bf8) {
        (true, false) => Format::Fp8Fnuz,
        (true, true) => Format::Bf8Fnuz,
        (false, false) => Format::Fp8,
        (false, true) => Format::Bf8,
    }
}

/// f32 bits to an 8-bit code of `target` (see the module notes for NaN and overflow).
fn f32_to_f8(target: Target, bf8: bool, x: u32, round: Round, ovfl: bool) -> u32 {
    let v = f32::from_bits(x);
    if v.is_nan() && target.family() == Family::Gfx12 {
        return if bf8 { 0xfe } else { 0xff };
    }
    let ovf = if ovfl {
        Overflow::SaturateAll
    } else {
        Overflow::Special
    };
    mf::encode(f8_format(target, bf8), v as f64, round, ovf)
}

/// Source `n` with VOP3 `neg`/`abs` applied as an f32 (or, `half`, to both 16-bit halves).
fn fsrc(w: &Wave, i: &Inst, n: usize, half: bool) -> (Row, u64) {
    let (mut r, en) = src(w, i, n);
    let (abs, neg) = (i.abs >> n & 1 != 0, i.neg >> n & 1 != 0);
    let (a, s) = if half {
        (0x7fff_7fff, 0x8000_8000)
    } else {
        (0x7fff_ffff, 0x8000_0000)
    };
    for x in r.iter_mut() {
        if abs {
            *x &= a;
        }
        if neg {
            *x ^= s;
        }
    }
    (r, en)
}

/// Writes `f(lane, old)` into the destination under EXEC and `en`.
fn update(w: &mut Wave, i: &Inst, en: u64, f: impl Fn(usize, u32) -> u32) {
    let exec = w.exec() & en;
    let d = i.dst as usize;
    let Some(row) = w.v.get_mut(d) else {
        return;
    };
    for (l, x) in row.iter_mut().enumerate() {
        if exec >> l & 1 != 0 {
            *x = f(l, *x);
        }
    }
}

/// `old` with the `bits`-wide field at `shift` replaced by `v`.
#[inline(always)]
fn insert(old: u32, v: u32, shift: u32, bits: u32) -> u32 {
    let m = ((1u64 << bits) - 1) as u32;
    old & !(m << shift) | (v & m) << shift
}

/// Checks that `n` destination rows from `dst` stay in one register file (VGPRs or AGPRs).
fn check_tuple(dst: usize, n: usize, what: &'static str) -> Result<(), FaultReason> {
    let base = if dst >= AGPR_BASE { AGPR_BASE } else { 0 };
    if dst + n > base + AGPR_BASE {
        return Err(FaultReason::UnsupportedForm(what));
    }
    Ok(())
}

/// Executes a conversion of `target`.
pub(crate) fn exec(w: &mut Wave, i: &Inst, target: Target) -> Result<(), FaultReason> {
    use Op::*;
    if let Some(s) = scaled::scaled(i.op) {
        return scaled::exec(w, i, s);
    }
    match i.op {
        VCvtF32Fp8 | VCvtF32Bf8 | VCvtPkF32Fp8 | VCvtPkF32Bf8 => f8_to_f32(w, i, target),
        VCvtPkFp8F32 | VCvtPkBf8F32 => {
            let bf8 = i.op == VCvtPkBf8F32;
            let ovfl = fp16_ovfl(w);
            let (a, en) = fsrc(w, i, 0, false);
            let (b, _) = fsrc(w, i, 1, false);
            let shift = 16 * (opsel(i) >> 3);
            let enc = |x| f32_to_f8(target, bf8, x, Round::NearestEven, ovfl);
            update(w, i, en, |l, old| {
                insert(old, enc(a[l]) | enc(b[l]) << 8, shift, 16)
            });
            Ok(())
        }
        VCvtSrFp8F32 | VCvtSrBf8F32 => {
            let bf8 = i.op == VCvtSrBf8F32;
            let ovfl = fp16_ovfl(w);
            let (a, en) = fsrc(w, i, 0, false);
            let (seed, _) = src(w, i, 1);
            let shift = 8 * (opsel(i) >> 2);
            update(w, i, en, |l, old| {
                let round = Round::Stochastic {
                    seed: seed[l],
                    src_mbits: 23,
                };
                insert(old, f32_to_f8(target, bf8, a[l], round, ovfl), shift, 8)
            });
            Ok(())
        }
        VCvtPkF16F32 | VCvtPkBf16F32 => {
            let to = if i.op == VCvtPkF16F32 {
                Format::F16
            } else {
                Format::Bf16
            };
            let (a, en) = fsrc(w, i, 0, false);
            let (b, _) = fsrc(w, i, 1, false);
            let (mode, omod, clamp) = (w.mode, i.omod, i.clamp);
            let cvt = |x| to_16(to, x, Round::NearestEven, mode, omod, clamp);
            update(w, i, en, |l, _| cvt(a[l]) | cvt(b[l]) << 16);
            Ok(())
        }
        VCvtSrF16F32 | VCvtSrBf16F32 => {
            let to = if i.op == VCvtSrF16F32 {
                Format::F16
            } else {
                Format::Bf16
            };
            let (a, en) = fsrc(w, i, 0, false);
            let (seed, _) = src(w, i, 1);
            let mode = w.mode;
            let shift = 16 * (opsel(i) >> 3);
            update(w, i, en, |l, old| {
                let round = Round::Stochastic {
                    seed: seed[l],
                    src_mbits: 23,
                };
                insert(old, to_16(to, a[l], round, mode, 0, false), shift, 16)
            });
            Ok(())
        }
        VCvtF32Bf16 => {
            let (a, en) = src(w, i, 0);
            let r: Row = std::array::from_fn(|l| {
                let x = fl::mod32(a[l] << 16, i.abs & 1 != 0, i.neg & 1 != 0);
                fl::out32(f32::from_bits(x), i.omod, i.clamp).to_bits()
            });
            put(w, i, &r, en);
            Ok(())
        }
        _ => Err(FaultReason::Unimplemented(i.named.name())),
    }
}

/// f32 bits to f16/bf16 bits (see the module notes): denormal operands flushed by MODE[4],
/// `omod` and `clamp` on the f32 value, a NaN quieted with its sign and top payload bits,
/// f16 overflow saturated when MODE.FP16_OVFL is set, denormal results flushed by the
/// result's MODE field.
fn to_16(to: Format, x: u32, round: Round, mode: u32, omod: u8, clamp: bool) -> u32 {
    let x = if mode >> 4 & 1 == 0 && x & 0x7f80_0000 == 0 {
        x & 0x8000_0000
    } else {
        x
    };
    let v = f32::from_bits(x);
    let v = if omod != 0 || clamp {
        fl::out32(v, omod, clamp)
    } else {
        v
    };
    let x = v.to_bits();
    let bf16 = to == Format::Bf16;
    if v.is_nan() {
        return if bf16 {
            x >> 16 | 0x40
        } else {
            (x >> 16) & 0x8000 | 0x7e00 | (x >> 13) & 0x3ff
        };
    }
    let ovf = if !bf16 && mode >> 23 & 1 != 0 {
        Overflow::SaturateFinite
    } else {
        Overflow::Special
    };
    let r = mf::encode(to, v as f64, round, ovf);
    // Denormal results: exponent field zero, flushed unless the field keeps them.
    let (exp_mask, keep) = if bf16 {
        (0x7f80, mode >> 5 & 1 != 0)
    } else {
        (0x7c00, mode >> 7 & 1 != 0)
    };
    if !keep && r & exp_mask == 0 {
        r & 0x8000
    } else {
        r
    }
}

/// `v_cvt_f32_fp8/bf8`, `v_cvt_pk_f32_fp8/bf8`: one byte, or two bytes of a 16-bit half
/// into a register pair (the lower byte into the lower register). Which byte: byte 0 in
/// the VOP1 and GFX9 VOP3 forms (llvm-mc-22 takes no `op_sel` there); GFX9 SDWA
/// `src0_sel` moves the chosen byte or word down first (the common SDWA source path);
/// GFX12 VOP3 `byte_sel:n` is OPSEL[1:0] with OPSEL[1] the low bit of n (llvm-mc-22:
/// `byte_sel:1` sets instruction bit 12, `byte_sel:2` bit 11) and the packed forms'
/// OPSEL[0] picks the high half (RDNA4 guide 7.6.2). Every 8-bit float is exact in f32;
/// the VOP3 output modifiers (`mul:`, `clamp`, GFX9 only) apply to the result.
fn f8_to_f32(w: &mut Wave, i: &Inst, target: Target) -> Result<(), FaultReason> {
    let bf8 = matches!(i.op, Op::VCvtF32Bf8 | Op::VCvtPkF32Bf8);
    let packed = matches!(i.op, Op::VCvtPkF32Fp8 | Op::VCvtPkF32Bf8);
    let f = f8_format(target, bf8);
    let gfx12_vop3 = target.family() == Family::Gfx12 && i.unit == Unit::Vop3;
    let sel = opsel(i);
    let shift = match (gfx12_vop3, packed) {
        (false, _) => 0,
        (true, false) => 8 * ((sel >> 1) & 1 | (sel & 1) << 1),
        (true, true) => 16 * (sel & 1),
    };
    let (a, en) = src(w, i, 0);
    let cvt = |x: u32, k: u32| {
        let v = mf::decode(f, x >> (shift + 8 * k));
        fl::out32(v, i.omod, i.clamp).to_bits()
    };
    if !packed {
        let r: Row = std::array::from_fn(|l| cvt(a[l], 0));
        put(w, i, &r, en);
        return Ok(());
    }
    let d = i.dst as usize;
    check_tuple(
        d,
        2,
        "v_cvt_pk_f32_* destination pair past the register file",
    )?;
    let exec = w.exec() & en;
    for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
        let (lo, hi) = (cvt(a[l], 0), cvt(a[l], 1));
        w.v[d][l] = lo;
        w.v[d + 1][l] = hi;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::prng;

    /// The LFSR of the CDNA4 guide: shift left, feed back 197 when bit 31 falls out.
    #[test]
    fn prng_steps() {
        assert_eq!(prng(1), 2);
        assert_eq!(prng(0x8000_0000), 197);
        assert_eq!(prng(0xffff_ffff), 0xffff_fffe ^ 197);
        assert_eq!(prng(0), 0);
    }
}
