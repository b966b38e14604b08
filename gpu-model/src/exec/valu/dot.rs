//! Dot products: the VOP3P `v_dot*` operations, the VOP2 accumulating `v_dot*c` forms
//! (and the GFX12 VOPD `v_dual_dot2acc_*`), and GFX12's VOP3 `v_dot2_f16_f16` /
//! `v_dot2_bf16_bf16`.
//!
//! Semantics: the pseudocode of the CDNA4 (gfx9) and RDNA4 (GFX12) ISA guides, e.g.
//! V_DOT2_F32_F16 `tmp = S2.f32; tmp += f16_to_f32(S0[15:0]) * f16_to_f32(S1[15:0]);
//! tmp += f16_to_f32(S0[31:16]) * f16_to_f32(S1[31:16])`: each `+=` is one rounding, in
//! the order written (gfx950 V_DOT2_F32_BF16 adds S2 last). The products of two 16-bit
//! or 8-bit floats are exact in f32.
//!
//! Modifiers (LLVM `VOP3PInstructions.td`, the VOP3P operand rules of the guides): a
//! packed 16-bit source's low element is its half picked by `op_sel`, its high element
//! the half picked by `op_sel_hi`, each negated by `neg_lo` / `neg_hi`; the f32
//! accumulator takes `neg_lo[2]` as negation and `neg_hi[2]` as absolute value (LLVM
//! `VOP3P_DOTF8_Profile`: "f32 fneg(neg_lo[2]) and f32 fabs(neg_hi[2])"). The 8- and
//! 4-bit integer forms have no operand selects (`VOP3_PACKED_NO_OPSEL`); GFX12's
//! `_iu8`/`_iu4` read `neg_lo[0]`/`neg_lo[1]` as "source is signed" (RDNA4 guide,
//! V_DOT4_I32_IU8). Clamp on an integer dot saturates the result (CDNA4 guide 6.5, "for
//! integer operations it clamps the result to the largest and smallest representable
//! value"); on a float dot it clamps to [0, 1] on gfx9 and is ignored on GFX12 (RDNA3
//! guide 7.2.4 lists "Float DOT instructions" among those that ignore clamp).
//!
//! MODE: "V_DOT2 instructions operating on floating point data do not support denormal
//! and rounding modes. They flush input and output denorms" (CDNA4 guide 6.4): the f32
//! and f16 dots round to nearest even and flush every denormal operand and result
//! (LLVM `SIISelLowering.cpp`: "fdot2_f32_f16 always flushes fp32 denormal operand and
//! output to zero, regardless of the denorm mode setting"). "DOT2_F16_F16 and
//! DOT2_BF16_BF16 support round-to-nearest-even rounding. DOT2_F16_F16 supports denorms,
//! and DOT2_BF16_BF16 disables all denorms" (RDNA3 guide 7.2.4). The bf16 and fp8/bf8 dots
//! into f32 are read the same way as the f16 one (nearest even, denormals flushed):
//! documented choice, the guides say nothing more for them.

use super::rows::{put, put16, src, src16, src_pk, Row};
use crate::exec::fmode::{flush16, flush32};
use crate::exec::inst::Inst;
use crate::exec::mfma::f8_value;
use crate::exec::vop3p::{half, raw, write, Consts};
use crate::exec::wave::{Wave, LANES};
use crate::exec::FaultReason;
use crate::isa::Op;
use rustc_apfloat::ieee::{BFloat, Half};
use rustc_apfloat::{Float, Round};

/// bf16 bits (low 16) to f32: the high half of an f32.
#[inline]
fn bf2f(x: u32) -> f32 {
    f32::from_bits(x << 16)
}

/// A 16-bit float element (f16 or bf16) as f32, denormals flushed.
#[inline]
fn elem(x: u32, bf16: bool) -> f32 {
    if bf16 {
        // bf16 has f32's exponent: flush the denormals of that range.
        f32::from_bits(flush32(x << 16, false))
    } else {
        crate::exec::float::h2f(flush16(x, false))
    }
}

/// `tmp = c; tmp += p0; tmp += p1` (or `p0 + p1 + c` for gfx950's bf16 dot) in f32,
/// nearest even, result flushed.
#[inline]
fn acc2(c: f32, p: [f32; 2], c_last: bool) -> f32 {
    let r = if c_last {
        (p[0] + p[1]) + c
    } else {
        (c + p[0]) + p[1]
    };
    f32::from_bits(flush32(r.to_bits(), false))
}

/// The two elements of packed 16-bit VOP3P source `n` of lane value `x`.
#[inline]
fn elems(i: &Inst, x: u32, n: usize) -> [u32; 2] {
    let lo = half(x, i.op_sel >> n & 1 != 0) ^ (u32::from(i.neg >> n & 1) << 15);
    let hi = half(x, i.op_sel_hi >> n & 1 != 0) ^ (u32::from(i.abs >> n & 1) << 15);
    [lo, hi]
}

/// The f32 accumulator of a VOP3P float dot: `neg_hi[2]` is abs, `neg_lo[2]` negation.
#[inline]
fn acc_mods(i: &Inst, c: u32) -> u32 {
    let c = if i.abs & 4 != 0 { c & 0x7fff_ffff } else { c };
    if i.neg & 4 != 0 {
        c ^ 0x8000_0000
    } else {
        c
    }
}

/// Saturates an exact integer dot into `[min, max]` when `clamp` is set, else wraps.
#[inline]
fn int_out(v: i64, clamp: bool, signed: bool) -> u32 {
    match (clamp, signed) {
        (false, _) => v as u32,
        (true, true) => v.clamp(i32::MIN as i64, i32::MAX as i64) as u32,
        (true, false) => v.clamp(0, u32::MAX as i64) as u32,
    }
}

/// `sum(a[k] * b[k])` of the `n`-bit fields of `a` and `b`, each signed as asked.
#[inline]
fn int_dot(a: u32, b: u32, bits: u32, sa: bool, sb: bool) -> i64 {
    let field = |x: u32, k: u32, s: bool| -> i64 {
        let v = (x >> (k * bits)) & ((1u32 << bits) - 1);
        if s {
            (((v << (32 - bits)) as i32) >> (32 - bits)) as i64
        } else {
            v as i64
        }
    };
    (0..32 / bits)
        .map(|k| field(a, k, sa) * field(b, k, sb))
        .sum()
}

/// Executes a VOP3P dot product; `None` for other operations. `gfx12`: the RDNA4 rules.
pub(crate) fn exec_vop3p(w: &mut Wave, i: &Inst, gfx12: bool) -> Option<Result<(), FaultReason>> {
    use Op::*;
    // Packed 16-bit sources: f16 or bf16 values for the float dots, f32 patterns for
    // the integer ones (see `Consts`).
    let k = match i.op {
        VDot2F32F16 => Consts::F16,
        VDot2F32Bf16 => Consts::Bf16,
        _ => Consts::Bits,
    };
    let (a, b) = (raw(w, i, 0, k), raw(w, i, 1, k));
    let c = raw(w, i, 2, Consts::Bits);
    let r: Row = match i.op {
        VDot2F32F16 | VDot2F32Bf16 => {
            let bf16 = i.op == VDot2F32Bf16;
            // gfx950's V_DOT2_F32_BF16 sums the products first, then S2 (CDNA4 guide).
            let c_last = bf16 && !gfx12;
            std::array::from_fn(|l| {
                let (x, y) = (elems(i, a[l], 0), elems(i, b[l], 1));
                let p = [0, 1].map(|k| elem(x[k], bf16) * elem(y[k], bf16));
                let acc = f32::from_bits(flush32(acc_mods(i, c[l]), false));
                let v = acc2(acc, p, c_last);
                let v = if i.clamp && !gfx12 {
                    crate::exec::float::out32(v, 0, true)
                } else {
                    v
                };
                v.to_bits()
            })
        }
        VDot2I32I16 | VDot2U32U16 => {
            let s = i.op == VDot2I32I16;
            std::array::from_fn(|l| {
                let (x, y) = (elems(i, a[l], 0), elems(i, b[l], 1));
                let e = |v: u32| {
                    if s {
                        v as u16 as i16 as i64
                    } else {
                        v as u16 as i64
                    }
                };
                let d = e(x[0]) * e(y[0]) + e(x[1]) * e(y[1]);
                let acc = if s { c[l] as i32 as i64 } else { c[l] as i64 };
                int_out(acc + d, i.clamp, s)
            })
        }
        VDot4I32I8 | VDot4U32U8 | VDot8I32I4 | VDot8U32U4 | VDot4I32Iu8 | VDot8I32Iu4 => {
            let bits = if matches!(i.op, VDot4I32I8 | VDot4U32U8 | VDot4I32Iu8) {
                8
            } else {
                4
            };
            let (sa, sb) = match i.op {
                VDot4I32I8 | VDot8I32I4 => (true, true),
                VDot4I32Iu8 | VDot8I32Iu4 => (i.neg & 1 != 0, i.neg & 2 != 0),
                _ => (false, false),
            };
            let signed = sa || sb || matches!(i.op, VDot4I32Iu8 | VDot8I32Iu4);
            std::array::from_fn(|l| {
                let acc = if signed {
                    c[l] as i32 as i64
                } else {
                    c[l] as i64
                };
                int_out(acc + int_dot(a[l], b[l], bits, sa, sb), i.clamp, signed)
            })
        }
        VDot4F32Fp8Bf8 | VDot4F32Bf8Fp8 | VDot4F32Fp8Fp8 | VDot4F32Bf8Bf8 => {
            let (abf, bbf) = match i.op {
                VDot4F32Fp8Bf8 => (false, true),
                VDot4F32Bf8Fp8 => (true, false),
                VDot4F32Fp8Fp8 => (false, false),
                _ => (true, true),
            };
            // GFX12 8-bit floats are the OCP formats (RDNA4 guide, FP8/BF8 data types).
            let (a, b) = (raw(w, i, 0, Consts::Bits), raw(w, i, 1, Consts::Bits));
            std::array::from_fn(|l| {
                let mut t = f32::from_bits(flush32(acc_mods(i, c[l]), false));
                for k in 0..4 {
                    let x = f8_value((a[l] >> (8 * k)) as u8, abf, true) as f32;
                    let y = f8_value((b[l] >> (8 * k)) as u8, bbf, true) as f32;
                    t += x * y;
                }
                flush32(t.to_bits(), false)
            })
        }
        _ => return None,
    };
    write(w, i.dst as usize, &r);
    Some(Ok(()))
}

/// The accumulating VOP2/VOP3 dots (`v_dot*c`, VOPD `v_dual_dot2acc_*`) and GFX12's VOP3
/// `v_dot2_f16_f16` / `v_dot2_bf16_bf16`; `None` for other operations.
pub(crate) fn exec(w: &mut Wave, i: &Inst) -> Option<Result<(), FaultReason>> {
    use Op::*;
    match i.op {
        VDot2cF32F16 | VDot2cF32Bf16 | VDot2accF32F16 | VDot2accF32Bf16 => {
            let bf16 = matches!(i.op, VDot2cF32Bf16 | VDot2accF32Bf16);
            let k = if bf16 { Consts::Bf16 } else { Consts::F16 };
            let (a, en) = src_pk(w, i, 0, k);
            let (b, _) = src_pk(w, i, 1, k);
            let d = w.v[i.dst as usize % w.v.len()];
            // VOP3 abs/neg apply to both elements of a packed source.
            let m = |x: u32, n: usize| {
                let x = if i.abs >> n & 1 != 0 {
                    x & 0x7fff_7fff
                } else {
                    x
                };
                if i.neg >> n & 1 != 0 {
                    x ^ 0x8000_8000
                } else {
                    x
                }
            };
            let r: Row = std::array::from_fn(|l| {
                let (x, y) = (m(a[l], 0), m(b[l], 1));
                let p = [0, 16].map(|s| elem(x >> s & 0xffff, bf16) * elem(y >> s & 0xffff, bf16));
                let acc = f32::from_bits(flush32(d[l], false));
                let v = acc2(acc, p, false);
                crate::exec::float::out32(v, i.omod, i.clamp && !i.t16).to_bits()
            });
            put(w, i, &r, en);
        }
        VDot2cI32I16 | VDot4cI32I8 | VDot8cI32I4 => {
            let bits = match i.op {
                VDot2cI32I16 => 16,
                VDot4cI32I8 => 8,
                _ => 4,
            };
            let (a, en) = src(w, i, 0);
            let (b, _) = src(w, i, 1);
            let d = w.v[i.dst as usize % w.v.len()];
            let r: Row = std::array::from_fn(|l| {
                let v = d[l] as i32 as i64 + int_dot(a[l], b[l], bits, true, true);
                int_out(v, i.clamp, true)
            });
            put(w, i, &r, en);
        }
        VDot2F16F16 | VDot2Bf16Bf16 => dot2_16(w, i),
        _ => return None,
    }
    Some(Ok(()))
}

/// GFX12 `v_dot2_f16_f16` / `v_dot2_bf16_bf16` (VOP3): `tmp = S2; tmp += S0.lo * S1.lo;
/// tmp += S0.hi * S1.hi`, every operation rounded to nearest even in the 16-bit format
/// (the pseudocode's types); f16 keeps denormals, bf16 flushes them (RDNA3 guide 7.2.4).
/// S0 and S1 are packed (VOP3 abs/neg apply to both halves); S2 and the result are 16-bit
/// operands (`op_sel[2]`, `op_sel[3]` pick their halves).
fn dot2_16(w: &mut Wave, i: &Inst) {
    let bf16 = i.op == Op::VDot2Bf16Bf16;
    let k = if bf16 { Consts::Bf16 } else { Consts::F16 };
    let (a, en) = src_pk(w, i, 0, k);
    let (b, _) = src_pk(w, i, 1, k);
    let (c, _) = if bf16 && i.src[2] < 256 {
        // S2 is a bf16 operand: a float constant is its bf16 value.
        let v = w.sread_bf16(i.src[2], i.lit);
        let v = if i.op_sel & 4 != 0 {
            v >> 16
        } else {
            v & 0xffff
        };
        ([v; LANES], u64::MAX)
    } else {
        src16(w, i, 2)
    };
    let m = |x: u32, n: usize| {
        let x = if i.abs >> n & 1 != 0 {
            x & 0x7fff_7fff
        } else {
            x
        };
        if i.neg >> n & 1 != 0 {
            x ^ 0x8000_8000
        } else {
            x
        }
    };
    let r: Row = std::array::from_fn(|l| {
        let (x, y, z) = (m(a[l], 0), m(b[l], 1), m(c[l], 2) & 0xffff);
        if bf16 {
            let f = |v: u32| BFloat::from_bits(u128::from(flush_bf16(v & 0xffff)));
            let mut t = f(z);
            for s in [0, 16] {
                // No denormal anywhere: the product is flushed as well as the sum.
                let p = f(x >> s).mul_r(f(y >> s), Round::NearestTiesToEven).value;
                let p = f(p.to_bits() as u32);
                t = t.add_r(p, Round::NearestTiesToEven).value;
                t = f(t.to_bits() as u32);
            }
            if t.is_nan() {
                return nan16(x, y, z, true);
            }
            t.to_bits() as u32
        } else {
            let f = |v: u32| Half::from_bits(u128::from(v & 0xffff));
            let mut t = f(z);
            for s in [0, 16] {
                let p = f(x >> s).mul_r(f(y >> s), Round::NearestTiesToEven).value;
                t = t.add_r(p, Round::NearestTiesToEven).value;
            }
            if t.is_nan() {
                return nan16(x, y, z, false);
            }
            t.to_bits() as u32
        }
    });
    put16(w, i, &r, en);
}

/// A bf16 denormal as zero of the same sign.
#[inline]
fn flush_bf16(x: u32) -> u32 {
    if x & 0x7f80 == 0 {
        x & 0x8000
    } else {
        x
    }
}

/// The NaN a 16-bit dot produces: as the host arithmetic propagates it through the same
/// operations (the first NaN operand, quieted; the default NaN for an invalid operation),
/// like the executor's other NaN results.
fn nan16(x: u32, y: u32, z: u32, bf16: bool) -> u32 {
    let f = |v: u32| {
        if bf16 {
            bf2f(v & 0xffff)
        } else {
            crate::exec::float::h2f(v & 0xffff)
        }
    };
    let v = f(z) + f(x) * f(y) + f(x >> 16) * f(y >> 16);
    if bf16 {
        (v.to_bits() >> 16) | 0x40
    } else {
        crate::exec::float::f2h(v)
    }
}
