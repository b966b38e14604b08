//! VOP3P: packed 16-bit math, mixed-precision FMA, packed f32 and AGPR moves.
//!
//! Packed operands: for result half `h` (0 low, 1 high) source `n` supplies its high
//! half when `op_sel` (h = 0) or `op_sel_hi` (h = 1) bit `n` is set; `neg_lo`/`neg_hi`
//! negate per half.

use super::float as fl;
use super::inst::Inst;
use super::wave::{Wave, AGPR_BASE, LANES};
use super::FaultReason;
use crate::isa::Op;
use crate::Target;

type Row = [u32; LANES];

/// What a packed source's inline float constants are. "The actual HW behavior is: integer
/// encodings (-16 .. 64) are always produced as sign-extended 32-bit values; float
/// encodings are produced as: for F16 instructions: corresponding half-precision float
/// values in the LSBs, 0 in the MSBs; for UI16 instructions: corresponding
/// single-precision float value" (LLVM 22 `AMDGPUBaseInfo.cpp`, `getInlineEncodingV216`;
/// `getInlineEncodingV2BF16` gives the bf16 values for BF16 instructions).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Consts {
    /// f32 patterns (integer and f32 operands).
    Bits,
    /// The f16 value in the low half.
    F16,
    /// The bf16 value in the low half.
    Bf16,
}

/// A scalar source code (SGPR, constant, literal) as a packed source of kind `k`.
#[inline(always)]
pub(crate) fn sread_pk(w: &Wave, c: u16, lit: u32, k: Consts) -> u32 {
    match k {
        Consts::Bits => w.sread(c, lit),
        Consts::F16 => w.sread16(c, lit),
        Consts::Bf16 => w.sread_bf16(c, lit),
    }
}

/// Raw 32-bit source row (inline float constants as `k` says).
pub(crate) fn raw(w: &Wave, i: &Inst, n: usize, k: Consts) -> Row {
    let c = i.src[n];
    if c >= 256 {
        w.v[(c - 256) as usize]
    } else {
        [sread_pk(w, c, i.lit, k); LANES]
    }
}

pub(crate) fn half(x: u32, hi: bool) -> u32 {
    if hi {
        x >> 16
    } else {
        x & 0xffff
    }
}

pub(crate) fn write(w: &mut Wave, dst: usize, r: &Row) {
    let exec = w.exec();
    for (l, &x) in r.iter().enumerate() {
        if exec >> l & 1 != 0 {
            w.v[dst][l] = x;
        }
    }
}

/// Packed f16 op over `N` sources.
fn pk_f16<const N: usize>(w: &mut Wave, i: &Inst, f: impl Fn([f32; N]) -> f32) {
    let srcs: [Row; N] = std::array::from_fn(|n| raw(w, i, n, Consts::F16));
    let r: Row = std::array::from_fn(|l| {
        let mut out = 0;
        for h in 0..2 {
            let sel = if h == 0 { i.op_sel } else { i.op_sel_hi };
            let negs = if h == 0 { i.neg } else { i.abs };
            let args: [f32; N] = std::array::from_fn(|n| {
                let x = half(srcs[n][l], sel >> n & 1 != 0);
                fl::h2f(fl::mod16(x, false, negs >> n & 1 != 0))
            });
            let v = fl::out32(f(args), 0, i.clamp);
            out |= fl::f2h(v) << (16 * h);
        }
        out
    });
    write(w, i.dst as usize, &r);
}

/// Packed 16-bit integer op over `N` sources: `f` per half on the halves the operand
/// selects pick (the integer forms take no negation), giving the exact result, which is
/// wrapped into 16 bits, or with clamp saturated to the signed/unsigned 16-bit range
/// ("for integer operations, it clamps the result to the largest and smallest
/// representable value", CDNA4 guide 6.5; LLVM selects `v_pk_add_u16 ... clamp` for
/// `uaddsat`).
fn pk_i16<const N: usize>(w: &mut Wave, i: &Inst, signed: bool, f: impl Fn([i64; N]) -> i64) {
    let srcs: [Row; N] = std::array::from_fn(|n| raw(w, i, n, Consts::Bits));
    let r: Row = std::array::from_fn(|l| {
        let mut out = 0;
        for h in 0..2 {
            let sel = if h == 0 { i.op_sel } else { i.op_sel_hi };
            let args: [i64; N] = std::array::from_fn(|n| {
                let x = half(srcs[n][l], sel >> n & 1 != 0);
                if signed {
                    x as u16 as i16 as i64
                } else {
                    x as i64
                }
            });
            let v = f(args);
            let v = match (i.clamp, signed) {
                (false, _) => v as u32 & 0xffff,
                (true, true) => v.clamp(i16::MIN as i64, i16::MAX as i64) as u32 & 0xffff,
                (true, false) => v.clamp(0, 0xffff) as u32,
            };
            out |= v << (16 * h);
        }
        out
    });
    write(w, i.dst as usize, &r);
}

/// Writes a `v_fma_mix*` result row: `v_fma_mix_f32` the whole register,
/// `v_fma_mixlo/mixhi_f16` one half (the f16 in the row's low bits), keeping the other.
pub(crate) fn write_mix(w: &mut Wave, i: &Inst, r: &Row) {
    let d = i.dst as usize;
    let old = w.v[d];
    let r: Row = match i.op {
        Op::VFmaMixloF16 => std::array::from_fn(|l| (old[l] & 0xffff_0000) | r[l]),
        Op::VFmaMixhiF16 => std::array::from_fn(|l| (old[l] & 0xffff) | r[l] << 16),
        _ => *r,
    };
    write(w, d, &r);
}

/// Packed f32 (64-bit register pairs) op: `f` per half of each lane, on the operands
/// with `op_sel`/`op_sel_hi` and `neg_lo`/`neg_hi` applied; `clamp` on the result.
///
/// Every source is 64 bits (gfx90a/gfx94x/gfx950: LLVM's operand classes are VReg_64 /
/// SReg_64): a VGPR pair, or an SGPR pair `s[n:n+1]` — the high element is `s[n+1]`
/// (clang-22 passes a `float2` kernel argument as `v_pk_mul_f32 v[4:5], v[4:5], s[4:5]`).
/// An inline constant is the f32 value in both elements (LLVM canonicalizes a `v2f32` as
/// `V_PK_MUL_F32` by the inline constant 1.0, which needs 1.0 in both elements).
pub(crate) fn pk_f32<const N: usize>(w: &mut Wave, i: &Inst, f: impl Fn([f32; N]) -> f32) {
    let srcs: [[u64; LANES]; N] = std::array::from_fn(|n| {
        let c = i.src[n];
        if c >= 256 {
            let r = (c - 256) as usize;
            std::array::from_fn(|l| w.v[r][l] as u64 | (w.v[r + 1][l] as u64) << 32)
        } else if c < 128 {
            [w.sgpr64(c as usize); LANES]
        } else {
            let v = w.sread(c, i.lit) as u64;
            [v | v << 32; LANES]
        }
    });
    let exec = w.exec();
    let d = i.dst as usize;
    #[allow(clippy::needless_range_loop)] // l indexes the sources and two destination rows
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        for h in 0..2 {
            let sel = if h == 0 { i.op_sel } else { i.op_sel_hi };
            let negs = if h == 0 { i.neg } else { i.abs };
            let args: [f32; N] = std::array::from_fn(|n| {
                let x = (srcs[n][l] >> if sel >> n & 1 != 0 { 32 } else { 0 }) as u32;
                f32::from_bits(fl::mod32(x, false, negs >> n & 1 != 0))
            });
            // The three users are arithmetic: NaN results follow `first_nan32`.
            let r = f32::from_bits(fl::first_nan32(f(args).to_bits(), &args));
            w.v[d + h][l] = fl::out32(r, 0, i.clamp).to_bits();
        }
    }
}

/// Executes a VOP3P instruction of `target`.
pub(crate) fn exec(w: &mut Wave, i: &Inst, target: Target) -> Result<(), FaultReason> {
    use Op::*;
    // Directed rounding / denormal flushing: off the fast path (one compare).
    if w.mode & 0xff != super::fmode::DEFAULT {
        if let Some(r) = super::fmode::exec_vop3p(w, i) {
            return r;
        }
    }
    match i.op {
        VPkAddF16 => pk_f16(w, i, |[a, b]| a + b),
        VPkMulF16 => pk_f16(w, i, |[a, b]| a * b),
        // On f16 bit patterns (NaN payloads, IEEE-mode sNaN quieting) and MODE's flushing.
        VPkMinF16 | VPkMaxF16 => super::fmode::pk_minmax_f16(w, i),
        // Rounded to odd at f32 precision, so the rounding to f16 after it is the only one.
        VPkFmaF16 => pk_f16(w, i, |[a, b, c]| {
            fl::odd_f32(fl::fma_odd(a as f64, b as f64, c as f64))
        }),
        VPkAddU16 => pk_i16(w, i, false, |[a, b]| a + b),
        VPkSubU16 => pk_i16(w, i, false, |[a, b]| a - b),
        VPkAddI16 => pk_i16(w, i, true, |[a, b]| a + b),
        VPkSubI16 => pk_i16(w, i, true, |[a, b]| a - b),
        // The low 16 bits of the product; clamp does not apply (the guide's pseudocode
        // has no saturation; LLVM selects it for `mul`).
        VPkMulLoU16 => pk_i16(w, i, false, |[a, b]| (a * b) & 0xffff),
        VPkMadU16 => pk_i16(w, i, false, |[a, b, c]| a * b + c),
        VPkMadI16 => pk_i16(w, i, true, |[a, b, c]| a * b + c),
        VPkMinU16 => pk_i16(w, i, false, |[a, b]| a.min(b)),
        VPkMaxU16 => pk_i16(w, i, false, |[a, b]| a.max(b)),
        VPkMinI16 => pk_i16(w, i, true, |[a, b]| a.min(b)),
        VPkMaxI16 => pk_i16(w, i, true, |[a, b]| a.max(b)),
        // S1 >> S0[3:0] per half (the shift amount is the low 4 bits of S0's half).
        VPkLshlrevB16 => pk_i16(w, i, false, |[a, b]| (b << (a & 15)) & 0xffff),
        VPkLshrrevB16 => pk_i16(w, i, false, |[a, b]| b >> (a & 15)),
        VPkAshrrevI16 => pk_i16(w, i, true, |[a, b]| b >> (a & 15)),
        VPkAddF32 => pk_f32(w, i, |[a, b]| a + b),
        VPkMulF32 => pk_f32(w, i, |[a, b]| a * b),
        VPkFmaF32 => pk_f32(w, i, |[a, b, c]| a.mul_add(b, c)),
        VPkMovB32 => {
            let (s0, s1) = (i.src[0], i.src[1]);
            let pick = |c: u16, hi: bool, l: usize| -> u32 {
                if c >= 256 {
                    w.vgpr((c - 256) as usize + hi as usize, l)
                } else {
                    let v = w.sread64(c, i.lit, false);
                    (v >> if hi { 32 } else { 0 }) as u32
                }
            };
            let lo: Row = std::array::from_fn(|l| pick(s0, i.op_sel & 1 != 0, l));
            let hi: Row = std::array::from_fn(|l| pick(s1, i.op_sel & 2 != 0, l));
            write(w, i.dst as usize, &lo);
            write(w, i.dst as usize + 1, &hi);
        }
        VFmaMixF32 | VFmaMixloF16 | VFmaMixhiF16 => {
            // op_sel_hi bit n: source n is f16 (op_sel bit n picks its half); else f32.
            let srcs: [Row; 3] = std::array::from_fn(|n| {
                let is16 = i.op_sel_hi >> n & 1 != 0;
                raw(w, i, n, if is16 { Consts::F16 } else { Consts::Bits })
            });
            let r: Row = std::array::from_fn(|l| {
                let args: [f64; 3] = std::array::from_fn(|n| {
                    let (neg, abs) = (i.neg >> n & 1 != 0, i.abs >> n & 1 != 0);
                    if i.op_sel_hi >> n & 1 != 0 {
                        let x = half(srcs[n][l], i.op_sel >> n & 1 != 0);
                        fl::h2f(fl::mod16(x, abs, neg)) as f64
                    } else {
                        f32::from_bits(fl::mod32(srcs[n][l], abs, neg)) as f64
                    }
                });
                // One rounding into the result format (see `fma_odd`).
                let v = fl::fma_odd(args[0], args[1], args[2]);
                match i.op {
                    VFmaMixF32 => fl::out32(v as f32, 0, i.clamp).to_bits(),
                    _ => fl::d2h(fl::out64(v, 0, i.clamp)),
                }
            });
            write_mix(w, i, &r);
        }
        VAccvgprReadB32 => {
            let s = AGPR_BASE + (i.src[0] & 0xff) as usize;
            let r = w.v[s];
            write(w, i.dst as usize, &r);
        }
        VAccvgprWriteB32 => {
            let r = raw(w, i, 0, Consts::Bits);
            write(w, AGPR_BASE + i.dst as usize, &r);
        }
        _ => {
            let gfx12 = target.family() == crate::Family::Gfx12;
            if let Some(r) = super::valu::dot::exec_vop3p(w, i, gfx12) {
                return r;
            }
            if let Some(r) = super::valu::minmax::exec(w, i) {
                return r;
            }
            return super::matrix::exec_inst(w, i, target);
        }
    }
    Ok(())
}
