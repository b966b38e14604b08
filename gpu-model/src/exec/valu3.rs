//! Vector ALU operations that exist only in the VOP3 encoding (three sources, 64-bit
//! results, carry-out forms).

use super::float as fl;
use super::inst::Inst;
use super::lane;
use super::valu::{
    d2, d3, dfma3, dsrc, f3, f3_split, fma3, fsrc, ieee_mode, int2, int3, put, put16_keep, put64,
    src, src16, src64, Row, Row64,
};
use super::wave::{Wave, LANES};
use super::FaultReason;
use crate::isa::Op;

/// Executes a VOP3-only operation.
pub(crate) fn exec(w: &mut Wave, i: &Inst) -> Result<(), FaultReason> {
    use Op::*;
    match i.op {
        VMadF32 | VMadLegacyF32 => f3(w, i, true, |a, b, c| a * b + c),
        VFmaF32 => fma3(w, i),
        VFmaF64 => dfma3(w, i),
        // V_MIN3_F32 / V_MAX3_F32 are defined as two v_min_f32 / v_max_f32.
        VMin3F32 | VMax3F32 => {
            let (max, ieee) = (i.op == VMax3F32, ieee_mode(w));
            let m = move |a, b| fl::minmax32(a, b, max, ieee);
            f3(w, i, false, move |a, b, c| m(m(a, b), c))
        }
        // The guide's rule (`fl::med3`) is branchy; without NaNs and zeros it is the
        // plain median (`med3_plain`).
        VMed3F32 => {
            let ieee = ieee_mode(w);
            f3_split(w, i, fl::med3_plain, fl::med3_hard, move |a, b, c| {
                fl::med3(a, b, c, ieee)
            })
        }
        VMin3I32 => int3(w, i, |a, b, c| {
            (a as i32).min(b as i32).min(c as i32) as u32
        }),
        VMax3I32 => int3(w, i, |a, b, c| {
            (a as i32).max(b as i32).max(c as i32) as u32
        }),
        VMin3U32 => int3(w, i, |a, b, c| a.min(b).min(c)),
        VMax3U32 => int3(w, i, |a, b, c| a.max(b).max(c)),
        VMed3I32 => int3(w, i, |a, b, c| {
            let (a, b, c) = (a as i32, b as i32, c as i32);
            a.min(b).max(a.max(b).min(c)) as u32
        }),
        VMed3U32 => int3(w, i, |a, b, c| a.min(b).max(a.max(b).min(c))),
        VMadI32I24 => int3(w, i, |a, b, c| {
            (((a << 8) as i32 >> 8).wrapping_mul((b << 8) as i32 >> 8) as u32).wrapping_add(c)
        }),
        VMadU32U24 => int3(w, i, |a, b, c| {
            (a & 0xff_ffff).wrapping_mul(b & 0xff_ffff).wrapping_add(c)
        }),
        // 16-bit S0/S1 (op_sel picks their halves), 32-bit S2; clamp saturates.
        VMadU32U16 | VMadI32I16 => {
            let signed = i.op == VMadI32I16;
            let (a, en) = src16(w, i, 0);
            let (b, _) = src16(w, i, 1);
            let (c, _) = src(w, i, 2);
            let r: Row = std::array::from_fn(|l| {
                let k = |x: u32| {
                    if signed {
                        x as u16 as i16 as i64
                    } else {
                        x as i64
                    }
                };
                let c = if signed {
                    c[l] as i32 as i64
                } else {
                    c[l] as i64
                };
                let v = k(a[l]) * k(b[l]) + c;
                match (i.clamp, signed) {
                    (false, _) => v as u32,
                    (true, true) => v.clamp(i32::MIN as i64, i32::MAX as i64) as u32,
                    (true, false) => v.clamp(0, u32::MAX as i64) as u32,
                }
            });
            put(w, i, &r, en)
        }
        VBfeU32 => int3(w, i, |a, b, c| bfe(a, b, c, false)),
        VBfeI32 => int3(w, i, |a, b, c| bfe(a, b, c, true)),
        VBfiB32 => int3(w, i, |a, b, c| (a & b) | (!a & c)),
        VAlignbitB32 => int3(w, i, |a, b, c| {
            ((((a as u64) << 32) | b as u64) >> (c & 31)) as u32
        }),
        VAlignbyteB32 => int3(w, i, |a, b, c| {
            ((((a as u64) << 32) | b as u64) >> (8 * (c & 3))) as u32
        }),
        VPermB32 => int3(w, i, perm),
        VLshlAddU32 => int3(w, i, |a, b, c| (a << (b & 31)).wrapping_add(c)),
        VAddLshlU32 => int3(w, i, |a, b, c| a.wrapping_add(b) << (c & 31)),
        VAdd3U32 => int3(w, i, |a, b, c| a.wrapping_add(b).wrapping_add(c)),
        VLshlOrB32 => int3(w, i, |a, b, c| (a << (b & 31)) | c),
        VAndOrB32 => int3(w, i, |a, b, c| (a & b) | c),
        VOr3B32 => int3(w, i, |a, b, c| a | b | c),
        VXor3B32 => int3(w, i, |a, b, c| a ^ b ^ c),
        VXadU32 => int3(w, i, |a, b, c| (a ^ b).wrapping_add(c)),
        // The truth table comes from the lowering ([`Inst::imm`]).
        VBitop3B32 => {
            let t = i.imm;
            int3(w, i, move |a, b, c| super::valu::bitop3(t, a, b, c))
        }
        VMulLoU32 => int2(w, i, |a, b| a.wrapping_mul(b)),
        VMulHiU32 => int2(w, i, |a, b| ((a as u64 * b as u64) >> 32) as u32),
        VMulHiI32 => int2(w, i, |a, b| {
            ((a as i32 as i64 * b as i32 as i64) >> 32) as u32
        }),
        VBcntU32B32 => int2(w, i, |a, b| a.count_ones().wrapping_add(b)),
        VBfmB32 => int2(w, i, |a, b| (((1u64 << (a & 31)) - 1) as u32) << (b & 31)),
        VMbcntLoU32B32 | VMbcntHiU32B32 => {
            let (a, en) = src(w, i, 0);
            let (b, _) = src(w, i, 1);
            let hi = i.op == VMbcntHiU32B32;
            let r: Row = std::array::from_fn(|l| {
                let below = lane::below(l);
                let m = if hi { below >> 32 } else { below & 0xffff_ffff } as u32;
                (a[l] & m).count_ones().wrapping_add(b[l])
            });
            put(w, i, &r, en)
        }
        VCvtPkrtzF16F32 => {
            let (a, en) = fsrc(w, i, 0);
            let (b, _) = fsrc(w, i, 1);
            let rtz = |x: f32| {
                // Round toward zero: truncate the f32 then convert exactly when possible.
                let h = fl::f2h(x);
                if fl::h2f(h).abs() > x.abs() {
                    h - 1
                } else {
                    h
                }
            };
            let r: Row = std::array::from_fn(|l| rtz(a[l]) | rtz(b[l]) << 16);
            put(w, i, &r, en)
        }
        VPackB32F16 => {
            // Its operands are f16: an inline float constant is the f16 value (-1.0 is
            // 0xbc00), not the f32 pattern whose low half is 0 (clang-22 builds a `half2`
            // with a constant lane as `v_pack_b32_f16 v5, v44, -1.0`; reading 0xbf800000
            // made the lane 0: tools/difftest seed 13 kernel 43).
            let f16src = |n: usize| {
                let c = i.src[n];
                if c < 256 {
                    ([w.sread16(c, i.lit); LANES], u64::MAX)
                } else {
                    src(w, i, n)
                }
            };
            let (a, en) = f16src(0);
            let (b, _) = f16src(1);
            let sel = |x: u32, n: u8| {
                if i.op_sel >> n & 1 != 0 {
                    x >> 16
                } else {
                    x & 0xffff
                }
            };
            let r: Row = std::array::from_fn(|l| {
                fl::mod16(sel(a[l], 0), i.abs & 1 != 0, i.neg & 1 != 0)
                    | fl::mod16(sel(b[l], 1), i.abs & 2 != 0, i.neg & 2 != 0) << 16
            });
            put(w, i, &r, en)
        }
        VFmaF16 => {
            let ops: [[f32; LANES]; 3] = std::array::from_fn(|n| {
                let (r, _) = src(w, i, n);
                let c = i.src[n];
                let hi = i.op_sel >> n & 1 != 0;
                std::array::from_fn(|l| {
                    let raw = if c < 256 { w.sread16(c, i.lit) } else { r[l] };
                    let h = if hi { raw >> 16 } else { raw & 0xffff };
                    fl::h2f(fl::mod16(h, i.abs >> n & 1 != 0, i.neg >> n & 1 != 0))
                })
            });
            let r: Row = std::array::from_fn(|l| {
                let v = (ops[0][l] as f64).mul_add(ops[1][l] as f64, ops[2][l] as f64);
                fl::d2h(fl::out64(v, i.omod, i.clamp))
            });
            // A gfx9 op_sel operation: writes only its half ([`put16_keep`]).
            put16_keep(w, i, &r, u64::MAX)
        }
        VAddF64 => d2(w, i, |a, b| a + b),
        VMulF64 => d2(w, i, |a, b| a * b),
        VMinF64 | VMaxF64 => {
            let (max, ieee) = (i.op == VMaxF64, ieee_mode(w));
            d2(w, i, move |a, b| fl::minmax64(a, b, max, ieee))
        }
        VLdexpF64 => {
            let a = dsrc(w, i, 0);
            let (b, _) = src(w, i, 1);
            let r: Row64 = std::array::from_fn(|l| {
                fl::out64(fl::ldexp64(a[l], b[l] as i32), i.omod, i.clamp).to_bits()
            });
            put64(w, i.dst as usize, &r)
        }
        VLshlrevB64 | VLshrrevB64 | VAshrrevI64 => {
            let (a, _) = src(w, i, 0);
            let b = src64(w, i, 1, false);
            let r: Row64 = std::array::from_fn(|l| {
                let s = a[l] & 63;
                match i.op {
                    VLshlrevB64 => b[l] << s,
                    VLshrrevB64 => b[l] >> s,
                    _ => ((b[l] as i64) >> s) as u64,
                }
            });
            put64(w, i.dst as usize, &r)
        }
        VLshlAddU64 => {
            let a = src64(w, i, 0, false);
            let (b, _) = src(w, i, 1);
            let c = src64(w, i, 2, false);
            let r: Row64 = std::array::from_fn(|l| (a[l] << (b[l] & 63)).wrapping_add(c[l]));
            put64(w, i.dst as usize, &r)
        }
        VMadU64U32 | VMadI64I32 => {
            let (a, _) = src(w, i, 0);
            let (b, _) = src(w, i, 1);
            let c = src64(w, i, 2, false);
            let signed = i.op == VMadI64I32;
            let mut r = [0u64; LANES];
            let mut co = 0u64;
            for l in 0..LANES {
                let (v, o) = if signed {
                    let p = a[l] as i32 as i128 * b[l] as i32 as i128 + c[l] as i64 as i128;
                    (p as u64, p != p as i64 as i128)
                } else {
                    let p = a[l] as u128 * b[l] as u128 + c[l] as u128;
                    (p as u64, p >> 64 != 0)
                };
                r[l] = v;
                co |= (o as u64) << l;
            }
            put64(w, i.dst as usize, &r);
            let m = co & w.exec();
            w.write_mask(i.sdst, m);
        }
        VDivScaleF32 => {
            let (a, en) = fsrc(w, i, 0);
            let (b, _) = fsrc(w, i, 1);
            let (c, _) = fsrc(w, i, 2);
            let mut r = [0u32; LANES];
            let mut m = 0u64;
            for l in 0..LANES {
                let (d, v) = fl::div_scale32(a[l], b[l], c[l]);
                r[l] = d.to_bits();
                m |= (v as u64) << l;
            }
            put(w, i, &r, en);
            let m = m & w.exec();
            w.write_mask(i.sdst, m);
        }
        VDivScaleF64 => {
            let (a, b, c) = (dsrc(w, i, 0), dsrc(w, i, 1), dsrc(w, i, 2));
            let mut r = [0u64; LANES];
            let mut m = 0u64;
            for l in 0..LANES {
                let (d, v) = fl::div_scale64(a[l], b[l], c[l]);
                r[l] = d.to_bits();
                m |= (v as u64) << l;
            }
            put64(w, i.dst as usize, &r);
            let m = m & w.exec();
            w.write_mask(i.sdst, m);
        }
        // D = fma(S0, S1, S2), times 2^32 (f32) / 2^64 (f64) in lanes whose VCC bit is set
        // (V_DIV_FMAS pseudocode of the same guide).
        VDivFmasF32 => {
            let (a, en) = fsrc(w, i, 0);
            let (b, _) = fsrc(w, i, 1);
            let (c, _) = fsrc(w, i, 2);
            let f = fl::fma_row32(&a, &b, &c);
            let vcc = w.vcc();
            let r: Row = std::array::from_fn(|l| {
                let x = if vcc >> l & 1 != 0 {
                    fl::div_fmas_scaled32(a[l], b[l], c[l])
                } else {
                    f[l]
                };
                fl::out32(x, i.omod, i.clamp).to_bits()
            });
            put(w, i, &r, en);
        }
        VDivFmasF64 => {
            let (a, b, c) = (dsrc(w, i, 0), dsrc(w, i, 1), dsrc(w, i, 2));
            let f = fl::fma_row64(&a, &b, &c);
            let vcc = w.vcc();
            let r: Row64 = std::array::from_fn(|l| {
                let x = if vcc >> l & 1 != 0 {
                    fl::div_fmas_scaled64(a[l], b[l], c[l])
                } else {
                    f[l]
                };
                fl::out64(x, i.omod, i.clamp).to_bits()
            });
            put64(w, i.dst as usize, &r);
        }
        VDivFixupF32 => f3(w, i, false, fl::div_fixup32),
        VDivFixupF64 => d3(w, i, fl::div_fixup64),
        _ => return super::valu::exec_rare(w, i),
    }
    Ok(())
}

/// Bit field extract (v_bfe_u32/i32): `width` bits from `off`, sign-extended if `signed`.
fn bfe(v: u32, off: u32, width: u32, signed: bool) -> u32 {
    let (off, width) = (off & 31, width & 31);
    if width == 0 {
        return 0;
    }
    let x = v >> off;
    if signed {
        ((x << (32 - width)) as i32 >> (32 - width)) as u32
    } else {
        x & ((1u32 << width) - 1)
    }
}

/// Byte permute (v_perm_b32): each selector byte picks a byte of `{a, b}` or a constant.
fn perm(a: u32, b: u32, sel: u32) -> u32 {
    // Bytes 0..3 from src1, 4..7 from src0; 8..11 sign-replicate; 12 = 0x00; 13+ = 0xff.
    let bytes = (b as u64) | (a as u64) << 32;
    let mut r = 0u32;
    for k in 0..4 {
        let s = (sel >> (8 * k)) & 0xff;
        let v = match s {
            0..=7 => (bytes >> (8 * s)) as u8 as u32,
            8 => ((b >> 15) & 1) * 0xff,
            9 => ((b >> 31) & 1) * 0xff,
            10 => ((a >> 15) & 1) * 0xff,
            11 => ((a >> 31) & 1) * 0xff,
            12 => 0,
            _ => 0xff,
        };
        r |= v << (8 * k);
    }
    r
}
