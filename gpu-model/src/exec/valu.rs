//! Vector ALU: VOP1, VOP2, VOPC and VOP3 operations (32-bit, 64-bit and 16-bit).
//!
//! Most operations run in place over the lanes enabled in EXEC (`rows`: operands, result
//! writes, the chunk loop); `kernels` has the loop of each operation shape, `cmp` the
//! compares; this file maps opcodes onto them.

mod cmp;
pub(crate) mod dot;
mod half;
mod kernels;
pub(crate) mod minmax;
mod misc;
mod movrel;
mod rows;
mod sad;

pub(crate) use kernels::{
    d2, d3, dfma3, dsrc, f2, f2_arith, f3, f3_split, fma3, fma_lanes, fsrc, hsrc, int2, int3,
};
pub(crate) use rows::{put, put16, put16_keep, put64, src, src16, src64, Opnd, Row, Row64};

use super::float::{self as fl, mod32};
use super::inst::Inst;
use super::inst::Unit;
use super::lane;
use super::wave::{Wave, AGPR_BASE, LANES};
use super::FaultReason;
use crate::isa::Op;
use kernels::{carry, d1, f1, f3_ops, h1, h2, h_from, int1, int2_16};
pub(crate) use misc::bitop3;
use rows::{fmods, operands};

/// Executes a GFX12 VOPD pair. Both halves read their sources before either writes: Y
/// runs first, its result is set aside while X runs on the original registers (the
/// halves' destinations differ by construction: one even, one odd), then it is written.
pub(crate) fn exec_vopd(w: &mut Wave, i: &Inst) -> Result<(), FaultReason> {
    let mut x = *i;
    x.unit = Unit::Vop2;
    let mut y = x;
    y.op = i.y.op;
    y.dst = i.y.dst;
    y.src = [i.y.src[0], i.y.src[1], 106];
    let yd = y.dst as usize % w.v.len();
    let saved = w.v[yd];
    exec(w, &y)?;
    let ry = std::mem::replace(&mut w.v[yd], saved);
    exec(w, &x)?;
    w.v[yd] = ry;
    Ok(())
}

/// The IEEE mode bit (MODE[9]; set from the kernel descriptor's ENABLE_IEEE_MODE on GFX9,
/// never on GFX12): signalling NaNs are quieted by min/max.
#[inline(always)]
pub(crate) fn ieee_mode(w: &Wave) -> bool {
    w.mode >> 9 & 1 != 0
}

/// Executes a VALU instruction (VOP1/VOP2/VOPC/VOP3).
pub(crate) fn exec(w: &mut Wave, i: &Inst) -> Result<(), FaultReason> {
    use Op::*;
    if i.cmp {
        return cmp::compare(w, i);
    }
    // Directed rounding / denormal flushing: off the fast path (one compare).
    if w.mode & 0xff != super::fmode::DEFAULT {
        if let Some(r) = super::fmode::exec(w, i) {
            return r;
        }
    }
    match i.op {
        VNop => {}
        VMovB32 => int1(w, i, |a| a),
        VNotB32 => int1(w, i, |a| !a),
        VPrngB32 => int1(w, i, super::cvt::prng),
        VBfrevB32 => int1(w, i, |a| a.reverse_bits()),
        VFfbhU32 => int1(w, i, |a| if a == 0 { u32::MAX } else { a.leading_zeros() }),
        VFfblB32 => int1(w, i, |a| if a == 0 { u32::MAX } else { a.trailing_zeros() }),
        // Leading bits equal to the sign bit, the sign bit included; -1 when all are
        // (CDNA3/RDNA4 pseudocode; V_CLS_I32(0x0000cccc) = 16, (0x80000000) = 1).
        VFfbhI32 => int1(w, i, |a| {
            let x = if (a as i32) < 0 { !a } else { a };
            if x == 0 {
                u32::MAX
            } else {
                x.leading_zeros()
            }
        }),
        VReadfirstlaneB32 => {
            let e = w.exec();
            let lane = if e == 0 {
                0
            } else {
                e.trailing_zeros() as usize
            };
            let (a, _) = src(w, i, 0);
            w.swrite(i.dst, a[lane]);
        }
        VReadlaneB32 => {
            let (a, _) = src(w, i, 0);
            let sel = w.sread(i.src[1], i.lit) as usize % w.wave_size as usize;
            w.swrite(i.dst, a[sel]);
        }
        VWritelaneB32 => {
            let v = w.sread(i.src[0], i.lit);
            let sel = w.sread(i.src[1], i.lit) as usize % w.wave_size as usize;
            w.v[i.dst as usize][sel] = v;
        }
        VCvtF32I32 => int1(w, i, |a| (a as i32 as f32).to_bits()),
        VCvtF32U32 => int1(w, i, |a| (a as f32).to_bits()),
        VCvtU32F32 => {
            let (a, en) = fsrc(w, i, 0);
            put(w, i, &std::array::from_fn(|l| a[l] as u32), en)
        }
        VCvtI32F32 => {
            let (a, en) = fsrc(w, i, 0);
            put(w, i, &std::array::from_fn(|l| a[l] as i32 as u32), en)
        }
        VCvtRpiI32F32 => {
            let (a, en) = fsrc(w, i, 0);
            put(
                w,
                i,
                &std::array::from_fn(|l| (a[l] + 0.5).floor() as i32 as u32),
                en,
            )
        }
        VCvtFlrI32F32 => {
            let (a, en) = fsrc(w, i, 0);
            put(
                w,
                i,
                &std::array::from_fn(|l| a[l].floor() as i32 as u32),
                en,
            )
        }
        VCvtF16F32 => {
            let (a, en) = fsrc(w, i, 0);
            let r: Row = std::array::from_fn(|l| fl::f2h(fl::out32(a[l], i.omod, i.clamp)));
            put16(w, i, &r, en);
        }
        VCvtF32F16 => {
            let (a, en) = hsrc(w, i, 0);
            put(
                w,
                i,
                &std::array::from_fn(|l| fl::out32(a[l], i.omod, i.clamp).to_bits()),
                en,
            )
        }
        VCvtF32Ubyte0 | VCvtF32Ubyte1 | VCvtF32Ubyte2 | VCvtF32Ubyte3 => {
            let k = match i.op {
                VCvtF32Ubyte0 => 0,
                VCvtF32Ubyte1 => 8,
                VCvtF32Ubyte2 => 16,
                _ => 24,
            };
            int1(w, i, |a| (((a >> k) & 0xff) as f32).to_bits())
        }
        // V_CVT_OFF_F32_I4 (CDNA4 / RDNA guides): a table lookup on S0[3:0], the signed
        // 4-bit value divided by 16 (1000b -0.5 ... 0111b +0.4375); exact.
        VCvtOffF32I4 => int1(w, i, |a| {
            ((((a << 28) as i32) >> 28) as f32 / 16.0).to_bits()
        }),
        // GFX12 16-bit integer to 32-bit: sign or zero extension of the (op_sel-selected)
        // 16-bit operand.
        VCvtI32I16 | VCvtU32U16 => {
            let (a, en) = src16(w, i, 0);
            let signed = i.op == VCvtI32I16;
            let r: Row = a.map(|x| {
                if signed {
                    x as u16 as i16 as i32 as u32
                } else {
                    x & 0xffff
                }
            });
            put(w, i, &r, en);
        }
        VCvtF64I32 | VCvtF64U32 => {
            let (a, _) = src(w, i, 0);
            let signed = i.op == VCvtF64I32;
            let r: Row64 = std::array::from_fn(|l| {
                let v = if signed {
                    a[l] as i32 as f64
                } else {
                    a[l] as f64
                };
                fl::out64(v, i.omod, i.clamp).to_bits()
            });
            put64(w, i.dst as usize, &r)
        }
        VCvtF64F32 => {
            let (a, _) = fsrc(w, i, 0);
            let r: Row64 =
                std::array::from_fn(|l| fl::out64(a[l] as f64, i.omod, i.clamp).to_bits());
            put64(w, i.dst as usize, &r)
        }
        VCvtF32F64 => {
            let a = dsrc(w, i, 0);
            put(
                w,
                i,
                &std::array::from_fn(|l| fl::out32(a[l] as f32, i.omod, i.clamp).to_bits()),
                u64::MAX,
            )
        }
        VCvtI32F64 => {
            let a = dsrc(w, i, 0);
            put(w, i, &std::array::from_fn(|l| a[l] as i32 as u32), u64::MAX)
        }
        VCvtU32F64 => {
            let a = dsrc(w, i, 0);
            put(w, i, &std::array::from_fn(|l| a[l] as u32), u64::MAX)
        }
        VTruncF32 => f1(w, i, f32::trunc),
        VCeilF32 => f1(w, i, f32::ceil),
        VFloorF32 => f1(w, i, f32::floor),
        VRndneF32 => f1(w, i, |a| a.round_ties_even()),
        VFractF32 => f1(w, i, fl::fract32),
        VExpF32 => f1(w, i, fl::exp2),
        VLogF32 => f1(w, i, fl::log2),
        VRcpF32 | VRcpIflagF32 => f1(w, i, fl::rcp),
        // GFX12 scalar transcendentals: a VALU op on an SGPR value, SGPR result.
        VSRcpF32 | VSRsqF32 | VSSqrtF32 | VSExpF32 | VSLogF32 => {
            let a = f32::from_bits(w.sread(i.src[0], i.lit));
            let a = f32::from_bits(mod32(a.to_bits(), i.abs & 1 != 0, i.neg & 1 != 0));
            let r = match i.op {
                VSRcpF32 => fl::rcp(a),
                VSRsqF32 => fl::rsq(a),
                VSSqrtF32 => fl::sqrt32(a),
                VSExpF32 => fl::exp2(a),
                _ => fl::log2(a),
            };
            w.swrite(i.dst, fl::out32(r, i.omod, i.clamp).to_bits());
        }
        VRsqF32 => f1(w, i, fl::rsq),
        VSqrtF32 => f1(w, i, fl::sqrt32),
        VSinF32 => f1(w, i, fl::sin),
        VCosF32 => f1(w, i, fl::cos),
        VFrexpMantF32 => f1(w, i, |a| fl::frexp64(a as f64).0 as f32),
        VFrexpExpI32F32 => {
            let (a, en) = fsrc(w, i, 0);
            put(
                w,
                i,
                &std::array::from_fn(|l| fl::frexp64(a[l] as f64).1 as u32),
                en,
            )
        }
        VTruncF64 => d1(w, i, f64::trunc),
        VCeilF64 => d1(w, i, f64::ceil),
        VFloorF64 => d1(w, i, f64::floor),
        VRndneF64 => d1(w, i, fl::rndne),
        VFractF64 => d1(w, i, fl::fract64),
        VRcpF64 => d1(w, i, |a| 1.0 / a),
        VRsqF64 => d1(w, i, |a| 1.0 / a.sqrt()),
        VSqrtF64 => d1(w, i, f64::sqrt),
        VFrexpMantF64 => d1(w, i, |a| fl::frexp64(a).0),
        VFrexpExpI32F64 => {
            let a = dsrc(w, i, 0);
            put(
                w,
                i,
                &std::array::from_fn(|l| fl::frexp64(a[l]).1 as u32),
                u64::MAX,
            )
        }
        VMovB64 => {
            let a = src64(w, i, 0, false);
            put64(w, i.dst as usize, &a)
        }
        VCvtF16U16 => h_from(w, i, |a| a as u16 as f32),
        VCvtF16I16 => h_from(w, i, |a| a as u16 as i16 as f32),
        VCvtU16F16 => {
            let (a, en) = hsrc(w, i, 0);
            put16(w, i, &std::array::from_fn(|l| a[l] as u16 as u32), en)
        }
        VCvtI16F16 => {
            let (a, en) = hsrc(w, i, 0);
            put16(
                w,
                i,
                &std::array::from_fn(|l| a[l] as i16 as u16 as u32),
                en,
            )
        }
        VRcpF16 => h1(w, i, |a| 1.0 / a),
        VSqrtF16 => h1(w, i, f32::sqrt),
        VRsqF16 => h1(w, i, |a| 1.0 / a.sqrt()),
        VLogF16 => h1(w, i, f32::log2),
        VExpF16 => h1(w, i, f32::exp2),
        VFloorF16 => h1(w, i, f32::floor),
        VCeilF16 => h1(w, i, f32::ceil),
        VTruncF16 => h1(w, i, f32::trunc),
        VRndneF16 => h1(w, i, |a| a.round_ties_even()),
        VSwapB32 => {
            let exec = w.exec();
            let (d, s) = (i.dst as usize, (i.src[0].saturating_sub(256)) as usize);
            for l in 0..LANES {
                if exec >> l & 1 != 0 {
                    let t = w.v[d][l];
                    w.v[d][l] = w.v[s][l];
                    w.v[s][l] = t;
                }
            }
        }
        VAccvgprMovB32 => {
            let exec = w.exec();
            let (d, s) = (
                AGPR_BASE + i.dst as usize,
                AGPR_BASE + (i.src[0] & 0xff) as usize,
            );
            for l in 0..LANES {
                if exec >> l & 1 != 0 {
                    w.v[d][l] = w.v[s][l];
                }
            }
        }
        VPermlane16SwapB32 => lane::permlane_swap(w, i, 16),
        VPermlane32SwapB32 => lane::permlane_swap(w, i, 32),
        VPermlane16B32 => lane::permlane16(w, i, false, false),
        VPermlanex16B32 => lane::permlane16(w, i, true, false),
        VPermlane16VarB32 => lane::permlane16(w, i, false, true),
        VPermlanex16VarB32 => lane::permlane16(w, i, true, true),
        VPermlane64B32 => lane::permlane64(w, i),
        // ---- VOP2 ----
        VCndmaskB32 => {
            let (a, en) = src(w, i, 0);
            let (b, _) = src(w, i, 1);
            let m = w.mask_operand(i.src[2], i.lit);
            // Float source modifiers apply in the VOP3 form.
            let r: Row = std::array::from_fn(|l| {
                let (x, y) = if i.unit == Unit::Vop3 {
                    (
                        mod32(a[l], i.abs & 1 != 0, i.neg & 1 != 0),
                        mod32(b[l], i.abs & 2 != 0, i.neg & 2 != 0),
                    )
                } else {
                    (a[l], b[l])
                };
                if m >> l & 1 != 0 {
                    y
                } else {
                    x
                }
            });
            put(w, i, &r, en)
        }
        VAddF32 => f2_arith(w, i, |a, b| a + b),
        VSubF32 => f2_arith(w, i, |a, b| a - b),
        VSubrevF32 => f2_arith(w, i, |a, b| b - a),
        VMulF32 => f2_arith(w, i, |a, b| a * b),
        VMinF32 | VMaxF32 => {
            let (max, ieee) = (i.op == VMaxF32, ieee_mode(w));
            f2(w, i, move |a, b| fl::minmax32(a, b, max, ieee))
        }
        VLdexpF32 => {
            let (a, en) = fsrc(w, i, 0);
            let (b, _) = src(w, i, 1);
            let r: Row = std::array::from_fn(|l| {
                fl::out32(fl::ldexp32(a[l], b[l] as i32), i.omod, i.clamp).to_bits()
            });
            put(w, i, &r, en)
        }
        VMulI32I24 => int2(w, i, |a, b| {
            (((a << 8) as i32 >> 8) as i64 * ((b << 8) as i32 >> 8) as i64) as u32
        }),
        VMulHiI32I24 => int2(w, i, |a, b| {
            ((((a << 8) as i32 >> 8) as i64 * ((b << 8) as i32 >> 8) as i64) >> 32) as u32
        }),
        VMulU32U24 => int2(w, i, |a, b| (a & 0xff_ffff).wrapping_mul(b & 0xff_ffff)),
        VMulHiU32U24 => int2(w, i, |a, b| {
            (((a & 0xff_ffff) as u64 * (b & 0xff_ffff) as u64) >> 32) as u32
        }),
        VMinI32 => int2(w, i, |a, b| (a as i32).min(b as i32) as u32),
        VMaxI32 => int2(w, i, |a, b| (a as i32).max(b as i32) as u32),
        VMinU32 => int2(w, i, |a, b| a.min(b)),
        VMaxU32 => int2(w, i, |a, b| a.max(b)),
        VLshrrevB32 => int2(w, i, |a, b| b >> (a & 31)),
        VAshrrevI32 => int2(w, i, |a, b| ((b as i32) >> (a & 31)) as u32),
        VLshlrevB32 => int2(w, i, |a, b| b << (a & 31)),
        VAndB32 => int2(w, i, |a, b| a & b),
        VOrB32 => int2(w, i, |a, b| a | b),
        VXorB32 => int2(w, i, |a, b| a ^ b),
        VXnorB32 => int2(w, i, |a, b| !(a ^ b)),
        // VOP3 clamp on unsigned add/sub saturates instead of wrapping.
        VAddU32 if i.clamp => int2(w, i, |a, b| a.saturating_add(b)),
        VSubU32 if i.clamp => int2(w, i, |a, b| a.saturating_sub(b)),
        VSubrevU32 if i.clamp => int2(w, i, |a, b| b.saturating_sub(a)),
        VAddU32 => int2(w, i, |a, b| a.wrapping_add(b)),
        VSubU32 => int2(w, i, |a, b| a.wrapping_sub(b)),
        VSubrevU32 => int2(w, i, |a, b| b.wrapping_sub(a)),
        VFmacF32 => {
            let ([a, b], exec) = operands(w, i);
            let ops = [a, b, Opnd(i.dst as usize)];
            fma_lanes(w, i, ops, exec, [fmods(i, 0), fmods(i, 1), (u32::MAX, 0)])
        }
        VFmamkF32 | VFmaakF32 => {
            // fmamk: src0 * K + vsrc1; fmaak: src0 * vsrc1 + K.
            let ([a, b], exec) = operands(w, i);
            let k = Opnd::splat(w, 2, i.lit);
            let ops = if i.op == VFmamkF32 {
                [a, k, b]
            } else {
                [a, b, k]
            };
            fma_lanes(w, i, ops, exec, [(u32::MAX, 0); 3])
        }
        VMacF32 => {
            let ([a, b], exec) = operands(w, i);
            let ops = [a, b, Opnd(i.dst as usize)];
            let m = [fmods(i, 0), fmods(i, 1), (u32::MAX, 0)];
            f3_ops(w, i, ops, exec, m, true, |a, b, c| a * b + c)
        }
        VFmacF64 => {
            let (a, b) = (dsrc(w, i, 0), dsrc(w, i, 1));
            let d = src64(
                w,
                &Inst {
                    src: [256 + i.dst, 0, 0],
                    ..*i
                },
                0,
                true,
            );
            let c: [f64; LANES] = std::array::from_fn(|l| f64::from_bits(d[l]));
            let v = fl::fma_row64(&a, &b, &c);
            let r: Row64 = std::array::from_fn(|l| fl::out64(v[l], i.omod, i.clamp).to_bits());
            put64(w, i.dst as usize, &r)
        }
        VMadmkF32 | VMadakF32 => {
            // madmk: src0 * K + vsrc1; madak: src0 * vsrc1 + K (not fused).
            let ([a, b], exec) = operands(w, i);
            let k = Opnd::splat(w, 2, i.lit);
            let ops = if i.op == VMadmkF32 {
                [a, k, b]
            } else {
                [a, b, k]
            };
            f3_ops(w, i, ops, exec, [(u32::MAX, 0); 3], true, |a, b, c| {
                a * b + c
            })
        }
        VAddCoU32 => carry(w, i, |a, b, _| a.overflowing_add(b)),
        VSubCoU32 => carry(w, i, |a, b, _| a.overflowing_sub(b)),
        VSubrevCoU32 => carry(w, i, |a, b, _| b.overflowing_sub(a)),
        VAddcCoU32 => carry(w, i, |a, b, c| {
            let s = a as u64 + b as u64 + c as u64;
            (s as u32, s >> 32 != 0)
        }),
        VSubbCoU32 => carry(w, i, |a, b, c| {
            let bb = b as u64 + c as u64;
            (a.wrapping_sub(bb as u32), bb > a as u64)
        }),
        VSubbrevCoU32 => carry(w, i, |a, b, c| {
            let aa = a as u64 + c as u64;
            (b.wrapping_sub(aa as u32), aa > b as u64)
        }),
        VAddF16 => h2(w, i, |a, b| a + b),
        VSubF16 => h2(w, i, |a, b| a - b),
        VSubrevF16 => h2(w, i, |a, b| b - a),
        VMulF16 => h2(w, i, |a, b| a * b),
        // On f16 bit patterns (NaN payloads, IEEE-mode sNaN quieting) and MODE's flushing.
        VMaxF16 | VMinF16 => super::fmode::minmax_f16(w, i),
        VLdexpF16 => {
            let (a, en) = hsrc(w, i, 0);
            let b = ldexp16_exponent(w, i);
            let r: Row = std::array::from_fn(|l| fl::d2h(fl::ldexp64(a[l] as f64, b[l] as i32)));
            put16(w, i, &r, en)
        }
        VAddU16 if i.clamp => int2_16(w, i, |a, b| a.saturating_add(b)),
        VSubU16 if i.clamp => int2_16(w, i, |a, b| a.saturating_sub(b)),
        VAddU16 => int2_16(w, i, |a, b| a.wrapping_add(b)),
        VSubU16 => int2_16(w, i, |a, b| a.wrapping_sub(b)),
        VSubrevU16 => int2_16(w, i, |a, b| b.wrapping_sub(a)),
        VMulLoU16 => int2_16(w, i, |a, b| a.wrapping_mul(b)),
        VLshlrevB16 => int2_16(w, i, |a, b| b << (a & 15)),
        VLshrrevB16 => int2_16(w, i, |a, b| b >> (a & 15)),
        VAshrrevI16 => int2_16(w, i, |a, b| ((b as i16) >> (a & 15)) as u16),
        VMaxU16 => int2_16(w, i, |a, b| a.max(b)),
        VMinU16 => int2_16(w, i, |a, b| a.min(b)),
        VMaxI16 => int2_16(w, i, |a, b| (a as i16).max(b as i16) as u16),
        VMinI16 => int2_16(w, i, |a, b| (a as i16).min(b as i16) as u16),
        _ => return super::valu3::exec(w, i),
    }
    Ok(())
}

/// The operations of this module's less common families (dot products, sums of absolute
/// differences, min/max forms, 16-bit operations, M0-relative moves, the rest), tried in
/// turn; `Unimplemented` when none has `i.op`.
pub(crate) fn exec_rare(w: &mut Wave, i: &Inst) -> Result<(), FaultReason> {
    type Unit = fn(&mut Wave, &Inst) -> Option<Result<(), FaultReason>>;
    const UNITS: [Unit; 6] = [
        sad::exec,
        minmax::exec,
        half::exec,
        dot::exec,
        movrel::exec,
        misc::exec,
    ];
    for unit in UNITS {
        if let Some(r) = unit(w, i) {
            return r;
        }
    }
    Err(FaultReason::Unimplemented(i.mnemonic()))
}

/// The exponent operand of `v_ldexp_f16`, as i32 per lane: GFX12 (true16 operand) reads
/// an i16 half, GFX9 the whole dword.
pub(crate) fn ldexp16_exponent(w: &Wave, i: &Inst) -> Row {
    if i.t16 {
        src16(w, i, 1).0.map(|x| x as u16 as i16 as i32 as u32)
    } else {
        src(w, i, 1).0
    }
}
