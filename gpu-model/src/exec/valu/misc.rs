//! The remaining VALU operations: cube-map coordinates (`v_cube*_f32`),
//! `v_trig_preop_f64`, the DX9 and legacy float operations (`v_mul_legacy_f32`,
//! `v_mul/fma_dx9_zero_f32`, `v_mullit_f32`, `v_exp/log_legacy_f32`), the packing
//! conversions (`v_cvt_pk_u8_f32`, `v_cvt_pkaccum_u8_f32`, `v_cvt_pk[_]norm_*`,
//! `v_cvt_pk_i16/u16_*`, `v_cvt_off_f32_i4`), gfx950's `v_ashr_pk_*` and `v_bitop3_*`, and
//! the no-ops `v_clrexcp` and `v_pipeflush`.
//!
//! Semantics: the CDNA4 / RDNA4 ISA guides' pseudocode (each function cites what it
//! follows). MODE: see the table in [`super::super::fmode`].

use super::half::norm16;
use super::rows::{put, put16_keep, src, src16, Row};
use crate::exec::float as fl;
use crate::exec::fmode::{flush32, s, Env};
use crate::exec::inst::Inst;
use crate::exec::valu::{fsrc, put64, src64, Row64};
use crate::exec::wave::Wave;
use crate::exec::FaultReason;
use crate::isa::Op;
use rustc_apfloat::Float;

/// Executes one of this module's operations; `None` for others.
pub(crate) fn exec(w: &mut Wave, i: &Inst) -> Option<Result<(), FaultReason>> {
    use Op::*;
    let e32 = Env::of(w.mode, false);
    match i.op {
        // Clear the wave's exception state / flush the VALU destination cache: neither is
        // modelled (the executor keeps no SIMD exception state; results are visible at
        // once).
        VClrexcp | VPipeflush => {}
        VCubeidF32 | VCubescF32 | VCubetcF32 | VCubemaF32 => {
            let (a, en) = fsrc(w, i, 0);
            let (b, _) = fsrc(w, i, 1);
            let (c, _) = fsrc(w, i, 2);
            let f = |x: f32| f32::from_bits(flush32(x.to_bits(), e32.keep_in));
            let r: Row = std::array::from_fn(|l| {
                let v = cube(i.op, f(a[l]), f(b[l]), f(c[l]));
                let v = fl::out32(v, i.omod, i.clamp);
                flush32(v.to_bits(), e32.keep_out)
            });
            put(w, i, &r, en);
        }
        VTrigPreopF64 => {
            let a = src64(w, i, 0, true);
            let (b, _) = src(w, i, 1);
            let r: Row64 = std::array::from_fn(|l| {
                let v = trig_preop(a[l], b[l]);
                fl::out64(v, i.omod, i.clamp).to_bits()
            });
            put64(w, i.dst as usize, &r);
        }
        VMulLegacyF32 | VMulDx9ZeroF32 | VFmaDx9ZeroF32 | VMullitF32 => {
            let (a, en) = fsrc(w, i, 0);
            let (b, _) = fsrc(w, i, 1);
            let c = if i.op == VMulLegacyF32 || i.op == VMulDx9ZeroF32 {
                a
            } else {
                fsrc(w, i, 2).0
            };
            let f = |x: f32| f32::from_bits(flush32(x.to_bits(), e32.keep_in));
            let r: Row = std::array::from_fn(|l| {
                let (x, y, z) = (f(a[l]), f(b[l]), f(c[l]));
                let v = match i.op {
                    // DX9 rules, 0.0 * x = 0.0 (also for x infinite or NaN).
                    VMulLegacyF32 | VMulDx9ZeroF32 if x == 0.0 || y == 0.0 => 0.0,
                    VMulLegacyF32 | VMulDx9ZeroF32 => mul32(e32, x, y, None),
                    VFmaDx9ZeroF32 if x == 0.0 || y == 0.0 => z,
                    VFmaDx9ZeroF32 => mul32(e32, x, y, Some(z)),
                    // V_MULLIT_F32: -MAX_FLOAT when S1 is -MAX_FLOAT, -inf or NaN, or S2 is
                    // <= 0 or NaN; else S0 * S1.
                    _ if y == -f32::MAX || y == f32::NEG_INFINITY || y.is_nan() => -f32::MAX,
                    _ if z <= 0.0 || z.is_nan() => -f32::MAX,
                    _ => mul32(e32, x, y, None),
                };
                fl::out32(v, i.omod, i.clamp).to_bits()
            });
            put(w, i, &r, en);
        }
        // The legacy exp/log: as v_exp_f32 / v_log_f32 (CLRX GCN documentation, from the
        // hardware: "for values smaller than -126.0 always returns 0", which the f32
        // transcendentals' denormal flushing gives; "slightly less accurate" is within
        // the same 1-ulp tolerance).
        VExpLegacyF32 | VLogLegacyF32 => {
            let (a, en) = fsrc(w, i, 0);
            let r: Row = std::array::from_fn(|l| {
                let v = if i.op == VExpLegacyF32 {
                    fl::exp2(a[l])
                } else {
                    fl::log2(a[l])
                };
                fl::out32(v, i.omod, i.clamp).to_bits()
            });
            put(w, i, &r, en);
        }
        VCvtOffF32I4 => {
            // The guide's table: S0[3:0] as a signed 4-bit integer, divided by 16.
            let (a, en) = src(w, i, 0);
            let r: Row = std::array::from_fn(|l| {
                let k = ((a[l] << 28) as i32 >> 28) as f32;
                fl::out32(k / 16.0, i.omod, i.clamp).to_bits()
            });
            put(w, i, &r, en);
        }
        VCvtPkU8F32 | VCvtPkaccumU8F32 => {
            // Byte S1[1:0] of S2 (pkaccum: of D) replaced by f32_to_u8(S0).
            let (a, en) = fsrc(w, i, 0);
            let (b, _) = src(w, i, 1);
            let c = if i.op == VCvtPkU8F32 {
                src(w, i, 2).0
            } else {
                w.v[i.dst as usize % w.v.len()]
            };
            let r: Row = std::array::from_fn(|l| {
                let sh = 8 * (b[l] & 3);
                (c[l] & !(0xff << sh))
                    | u8_of(e32, f32::from_bits(flush32(a[l].to_bits(), e32.keep_in))) << sh
            });
            put(w, i, &r, en);
        }
        VCvtPknormI16F32 | VCvtPknormU16F32 | VCvtPkNormI16F32 | VCvtPkNormU16F32 => {
            let signed = matches!(i.op, VCvtPknormI16F32 | VCvtPkNormI16F32);
            let (a, en) = fsrc(w, i, 0);
            let (b, _) = fsrc(w, i, 1);
            let f = |x: f32| f64::from(f32::from_bits(flush32(x.to_bits(), e32.keep_in)));
            let r: Row =
                std::array::from_fn(|l| norm16(f(a[l]), signed) | norm16(f(b[l]), signed) << 16);
            put(w, i, &r, en);
        }
        VCvtPknormI16F16 | VCvtPknormU16F16 | VCvtPkNormI16F16 | VCvtPkNormU16F16 => {
            let signed = matches!(i.op, VCvtPknormI16F16 | VCvtPkNormI16F16);
            let e16 = Env::of(w.mode, true);
            let (a, en) = src16(w, i, 0);
            let (b, _) = src16(w, i, 1);
            let f = |x: u32, n: usize| {
                let x = fl::mod16(x, i.abs >> n & 1 != 0, i.neg >> n & 1 != 0);
                f64::from(fl::h2f(crate::exec::fmode::flush16(x, e16.keep_in)))
            };
            let r: Row = std::array::from_fn(|l| {
                norm16(f(a[l], 0), signed) | norm16(f(b[l], 1), signed) << 16
            });
            put(w, i, &r, en);
        }
        VCvtPkU16U32 | VCvtPkI16I32 => {
            // Saturating narrowing (CLRX GCN documentation, from the hardware: "with
            // clamping"; the guides' u32_to_u16 / i32_to_i16).
            let (a, en) = src(w, i, 0);
            let (b, _) = src(w, i, 1);
            let n = |x: u32| {
                if i.op == VCvtPkU16U32 {
                    x.min(0xffff)
                } else {
                    (x as i32).clamp(-0x8000, 0x7fff) as u32 & 0xffff
                }
            };
            let r: Row = std::array::from_fn(|l| n(a[l]) | n(b[l]) << 16);
            put(w, i, &r, en);
        }
        VCvtPkI16F32 | VCvtPkU16F32 => {
            // GFX12: v_cvt_i16_f32 / v_cvt_u16_f32 of each operand: truncation, saturated,
            // NaN gives 0 (as v_cvt_i32_f32 / v_cvt_u32_f32 into 16 bits).
            let (a, en) = fsrc(w, i, 0);
            let (b, _) = fsrc(w, i, 1);
            let n = |x: f32| {
                let x = f32::from_bits(flush32(x.to_bits(), e32.keep_in));
                if i.op == VCvtPkI16F32 {
                    x.clamp(-32768.0, 32767.0) as i32 as u32 & 0xffff
                } else {
                    x.clamp(0.0, 65535.0) as u32
                }
            };
            let r: Row = std::array::from_fn(|l| n(a[l]) | n(b[l]) << 16);
            put(w, i, &r, en);
        }
        VAshrPkI8I32 | VAshrPkU8I32 => {
            // D[15:0] = { SAT8(S1 >> S2[4:0]), SAT8(S0 >> S2[4:0]) } (arithmetic shifts).
            let (a, en) = src(w, i, 0);
            let (b, _) = src(w, i, 1);
            let (c, _) = src(w, i, 2);
            let r: Row = std::array::from_fn(|l| {
                let sh = c[l] & 31;
                let sat = |x: u32| {
                    let v = (x as i32) >> sh;
                    if i.op == VAshrPkI8I32 {
                        v.clamp(-128, 127) as u32 & 0xff
                    } else {
                        v.clamp(0, 255) as u32
                    }
                };
                sat(a[l]) | sat(b[l]) << 8
            });
            put16_keep(w, i, &r, en);
        }
        VBitop3B16 => {
            let (a, en) = src16(w, i, 0);
            let (b, _) = src16(w, i, 1);
            let (c, _) = src16(w, i, 2);
            let t = i.imm;
            let r: Row = std::array::from_fn(|l| bitop3(t, a[l], b[l], c[l]) & 0xffff);
            put16_keep(w, i, &r, en);
        }
        VScreenPartition4seB32 => {
            return Some(Err(FaultReason::GraphicsOnly("screen partitioning")));
        }
        _ => return None,
    }
    Some(Ok(()))
}

/// gfx950 V_BITOP3: bit `k` of the result is bit `{S0[k], S1[k], S2[k]}` of the truth
/// table `t` (CDNA4 guide: `D0[i] = TTBL[{S0[i], S1[i], S2[i]}]`).
#[inline]
pub(crate) fn bitop3(t: u32, a: u32, b: u32, c: u32) -> u32 {
    (0..8).fold(0, |r, idx| {
        if t >> idx & 1 == 0 {
            return r;
        }
        let pick = |x: u32, bit: u32| if idx >> bit & 1 != 0 { x } else { !x };
        r | (pick(a, 2) & pick(b, 1) & pick(c, 0))
    })
}

/// `x * y` (or `fma(x, y, z)`) in f32 in `e` (rounded in MODE[1:0], result flushed per
/// MODE[5:4]); NaNs as the host arithmetic gives them.
fn mul32(e: Env, x: f32, y: f32, z: Option<f32>) -> f32 {
    let host = match z {
        Some(z) => x.mul_add(y, z),
        None => x * y,
    };
    if host.is_nan() {
        return host;
    }
    let v = match z {
        Some(z) => s(x.to_bits()).mul_add_r(s(y.to_bits()), s(z.to_bits()), e.round),
        None => s(x.to_bits()).mul_r(s(y.to_bits()), e.round),
    }
    .value;
    f32::from_bits(flush32(v.to_bits() as u32, e.keep_out))
}

/// f32_to_u8 of V_CVT_PK_U8_F32: rounded to an integer in the MODE[1:0] direction
/// (CLRX GCN documentation, from the hardware: "with rounding mode from MODE register"),
/// saturated to [0, 255]; NaN gives 0.
fn u8_of(e: Env, x: f32) -> u32 {
    if x.is_nan() {
        return 0;
    }
    let r = s(x.to_bits()).round_to_integral(e.round).value;
    f32::from_bits(r.to_bits() as u32).clamp(0.0, 255.0) as u32
}

/// V_CUBEID/SC/TC/MA_F32 (CDNA4 / RDNA4 guides): the face of the cube map the direction
/// `(x, y, z)` hits, and the coordinates on it.
fn cube(op: Op, x: f32, y: f32, z: f32) -> f32 {
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    let zface = az >= ax && az >= ay;
    let yface = !zface && ay >= ax;
    match op {
        Op::VCubeidF32 => {
            let (v, neg) = if zface {
                (4.0, z < 0.0)
            } else if yface {
                (2.0, y < 0.0)
            } else {
                (0.0, x < 0.0)
            };
            if neg {
                v + 1.0
            } else {
                v
            }
        }
        Op::VCubescF32 => {
            if zface {
                if z < 0.0 {
                    -x
                } else {
                    x
                }
            } else if yface {
                x
            } else if x < 0.0 {
                z
            } else {
                -z
            }
        }
        Op::VCubetcF32 => {
            if zface {
                -y
            } else if yface {
                if y < 0.0 {
                    -z
                } else {
                    z
                }
            } else {
                -y
            }
        }
        _ => {
            if zface {
                z * 2.0
            } else if yface {
                y * 2.0
            } else {
                x * 2.0
            }
        }
    }
}

/// 2/pi as a 1201-bit binary fraction `0.b1200 b1199 ... b0`, most significant bit first
/// (b1200 is bit 63 of the first word), zero-padded to 19 words. Computed from pi (Machin's
/// formula, exact integer arithmetic); the first words are the well-known
/// `a2f9836e 4e441529 fc2757d1 f534ddc0`.
const TWO_OVER_PI: [u64; 19] = [
    0xa2f9_836e_4e44_1529,
    0xfc27_57d1_f534_ddc0,
    0xdb62_9599_3c43_9041,
    0xfe51_63ab_debb_c561,
    0xb724_6e3a_424d_d2e0,
    0x0649_2eea_09d1_921c,
    0xfe1d_eb1c_b129_a73e,
    0xe882_35f5_2ebb_4484,
    0xe99c_7026_b45f_7e41,
    0x3991_d639_8353_39f4,
    0x9c84_5f8b_bdf9_283b,
    0x1ff8_97ff_de05_980f,
    0xef2f_118b_5a0a_6d1f,
    0x6d36_7ecf_27cb_09b7,
    0x4f46_3f66_9e5f_ea2d,
    0x7527_bac7_ebe5_f17b,
    0x3d07_39f7_8a52_92ea,
    0x6bfb_5fb1_1f8d_5d08,
    0x5603_3046_fc7b_0000,
];

/// The 53 bits of 2/pi that follow its first `skip` fraction bits (zeros past bit 1200).
fn two_over_pi_bits(skip: u32) -> u64 {
    let bit = |p: u32| -> u64 {
        if p >= 1201 {
            return 0;
        }
        TWO_OVER_PI[(p / 64) as usize] >> (63 - p % 64) & 1
    };
    (0..53).fold(0, |acc, k| acc << 1 | bit(skip + k))
}

/// V_TRIG_PREOP_F64 (CDNA4 / RDNA4 guides): segment `S1[4:0]` of 53 bits of 2/pi, skipping
/// `exponent(S0) - 1077` more bits for large arguments, as a value: the segment times
/// `2^(-53 - shift)` (times 2^128 more when `exponent(S0) >= 1968`). The guide's
/// `(1201'B(2/PI)[1200:0] << shift) & 0x1fffffffffffff` keeps "only the whole part": read
/// with the binary point above bit 1200, those are the 53 fraction bits after the first
/// `shift`. MODE: none (a bit field scaled by a power of two; a result below the f64
/// normal range rounds to nearest).
fn trig_preop(s0: u64, s1: u32) -> f64 {
    let exp = ((s0 >> 52) & 0x7ff) as i32;
    let mut shift = (s1 & 31) as i32 * 53;
    if exp > 1077 {
        shift += exp - 1077;
    }
    let bits = two_over_pi_bits(shift as u32);
    let mut scale = -53 - shift;
    if exp >= 1968 {
        scale += 128;
    }
    fl::ldexp64(bits as f64, scale)
}
