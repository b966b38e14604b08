//! VALU float operations other than the basic arithmetic under a non-default MODE:
//! rounding to integral, fract, ldexp, frexp, conversions, f16 fma, the f64/f16
//! transcendentals and `v_div_fmas`.

use super::{d, flush16, flush32, flush64, fma_odd, ftz, h, quad, s, Env};
use crate::exec::float as fl;
use crate::exec::inst::Inst;
use crate::exec::valu::{
    dsrc, fsrc, hsrc, ldexp16_exponent, put, put16, put64, src, src16, Row, Row64,
};
use crate::exec::wave::{Wave, LANES};
use crate::isa::Op;
use rustc_apfloat::ieee::{Half, Quad};
use rustc_apfloat::{Float, FloatConvert, Round};

/// Executes `i` if it is one of this file's operations; false hands it on.
pub(super) fn exec(w: &mut Wave, i: &Inst, e32: Env, e64: Env) -> bool {
    use Op::*;
    // f64 and f16 share MODE's second fields.
    let e16 = e64;
    match i.op {
        // Integral results (never rounded, never denormal): only input flushing applies;
        // it matters (floor(-denormal) is -1, floor(-0) is -0).
        VTruncF32 => un32(w, i, e32, f32::trunc),
        VCeilF32 => un32(w, i, e32, f32::ceil),
        VFloorF32 => un32(w, i, e32, f32::floor),
        VRndneF32 => un32(w, i, e32, f32::round_ties_even),
        VFrexpMantF32 => un32(w, i, e32, |a| fl::frexp64(a as f64).0 as f32),
        VFrexpExpI32F32 | VCvtRpiI32F32 | VCvtFlrI32F32 => {
            let (a, en) = fsrc(w, i, 0);
            let r: Row = std::array::from_fn(|l| {
                let x = super::flush_f32(a[l], e32.keep_in);
                match i.op {
                    VFrexpExpI32F32 => fl::frexp64(x as f64).1 as u32,
                    // x + 0.5 rounded to nearest, as on the default path (the guide's
                    // "floor(S0 + 0.5)" does not say in which direction).
                    VCvtRpiI32F32 => (x + 0.5).floor() as i32 as u32,
                    _ => x.floor() as i32 as u32,
                }
            });
            put(w, i, &r, en);
        }
        VFractF32 => {
            let (a, en) = fsrc(w, i, 0);
            let r: Row = std::array::from_fn(|l| {
                let x = super::flush_f32(a[l], e32.keep_in);
                let v = if x.is_finite() {
                    let v = fract(s(x.to_bits()), e32.round, s(0x3f7f_ffff));
                    f32::from_bits(flush32(v.to_bits() as u32, e32.keep_out))
                } else {
                    fl::fract32(x)
                };
                fl::out32(v, i.omod, i.clamp).to_bits()
            });
            put(w, i, &r, en);
        }
        VLdexpF32 => {
            let (a, en) = fsrc(w, i, 0);
            let (b, _) = src(w, i, 1);
            let r: Row = std::array::from_fn(|l| {
                let x = super::flush_f32(a[l], e32.keep_in);
                let v = if x.is_nan() {
                    fl::ldexp32(x, b[l] as i32)
                } else {
                    let v = s(x.to_bits()).scalbn_r(b[l] as i32, e32.round);
                    f32::from_bits(flush32(v.to_bits() as u32, e32.keep_out))
                };
                fl::out32(v, i.omod, i.clamp).to_bits()
            });
            put(w, i, &r, en);
        }
        VCvtPkrtzF16F32 => {
            let (a, en) = fsrc(w, i, 0);
            let (b, _) = fsrc(w, i, 1);
            // Toward zero whatever MODE says (the instruction's definition); the operands
            // are f32 (f32 input flushing), the results f16 (f16 output flushing).
            let rtz = |x: f32| {
                let x = super::flush_f32(x, e32.keep_in);
                if x.is_nan() {
                    return fl::f2h(x);
                }
                let mut loses = false;
                let v: Half = s(x.to_bits())
                    .convert_r(Round::TowardZero, &mut loses)
                    .value;
                flush16(v.to_bits() as u32, e16.keep_out)
            };
            let r: Row = std::array::from_fn(|l| rtz(a[l]) | rtz(b[l]) << 16);
            put(w, i, &r, en);
        }
        VDivFmasF32 => {
            let (a, en) = fsrc(w, i, 0);
            let (b, _) = fsrc(w, i, 1);
            let (c, _) = fsrc(w, i, 2);
            let vcc = w.vcc();
            let r: Row = std::array::from_fn(|l| {
                let f = |x: f32| s(super::flush_f32(x, e32.keep_in).to_bits());
                let scale = if vcc >> l & 1 != 0 {
                    fl::div_fmas_scale32(c[l])
                } else {
                    0
                };
                let v = fmas(f(a[l]), f(b[l]), f(c[l]), scale, e32);
                let v = match v {
                    Some(v) => f32::from_bits(v.to_bits() as u32),
                    None => a[l].mul_add(b[l], c[l]) * 2f32.powi(scale),
                };
                fl::out32(v, i.omod, i.clamp).to_bits()
            });
            put(w, i, &r, en);
        }
        VTruncF64 => un64(w, i, e64, f64::trunc),
        VCeilF64 => un64(w, i, e64, f64::ceil),
        VFloorF64 => un64(w, i, e64, f64::floor),
        VRndneF64 => un64(w, i, e64, fl::rndne),
        VFrexpMantF64 => un64(w, i, e64, |a| fl::frexp64(a).0),
        // Approximations (the guides give ulp bounds, not a rounding): computed to nearest
        // as on the default path; f64 denormals follow MODE.
        VRcpF64 => un64(w, i, e64, |a| 1.0 / a),
        VRsqF64 => un64(w, i, e64, |a| 1.0 / a.sqrt()),
        VSqrtF64 => un64(w, i, e64, f64::sqrt),
        VFrexpExpI32F64 => {
            let a = dsrc(w, i, 0);
            let r: Row =
                std::array::from_fn(|l| fl::frexp64(super::flush_f64(a[l], e64.keep_in)).1 as u32);
            put(w, i, &r, u64::MAX);
        }
        VFractF64 => {
            let a = dsrc(w, i, 0);
            let r: Row64 = std::array::from_fn(|l| {
                let x = super::flush_f64(a[l], e64.keep_in);
                let v = if x.is_finite() {
                    let v = fract(d(x.to_bits()), e64.round, d(0x3fef_ffff_ffff_ffff));
                    f64::from_bits(flush64(v.to_bits() as u64, e64.keep_out))
                } else {
                    fl::fract64(x)
                };
                fl::out64(v, i.omod, i.clamp).to_bits()
            });
            put64(w, i.dst as usize, &r);
        }
        VLdexpF64 => {
            let a = dsrc(w, i, 0);
            let (b, _) = src(w, i, 1);
            let r: Row64 = std::array::from_fn(|l| {
                let x = super::flush_f64(a[l], e64.keep_in);
                let v = if x.is_nan() {
                    fl::ldexp64(x, b[l] as i32)
                } else {
                    let v = d(x.to_bits()).scalbn_r(b[l] as i32, e64.round);
                    f64::from_bits(flush64(v.to_bits() as u64, e64.keep_out))
                };
                fl::out64(v, i.omod, i.clamp).to_bits()
            });
            put64(w, i.dst as usize, &r);
        }
        VDivFmasF64 => {
            let (a, b, c) = (dsrc(w, i, 0), dsrc(w, i, 1), dsrc(w, i, 2));
            let vcc = w.vcc();
            let r: Row64 = std::array::from_fn(|l| {
                let f = |x: f64| d(super::flush_f64(x, e64.keep_in).to_bits());
                let scale = if vcc >> l & 1 != 0 {
                    fl::div_fmas_scale64(c[l])
                } else {
                    0
                };
                let v = fmas(f(a[l]), f(b[l]), f(c[l]), scale, e64);
                let v = match v {
                    Some(v) => f64::from_bits(v.to_bits() as u64),
                    None => a[l].mul_add(b[l], c[l]) * 2f64.powi(scale),
                };
                fl::out64(v, i.omod, i.clamp).to_bits()
            });
            put64(w, i.dst as usize, &r);
        }
        VFloorF16 => un16(w, i, e16, f32::floor),
        VCeilF16 => un16(w, i, e16, f32::ceil),
        VTruncF16 => un16(w, i, e16, f32::trunc),
        VRndneF16 => un16(w, i, e16, f32::round_ties_even),
        // f16 transcendentals keep denormals as MODE says (LLVM AMDGPUCodeGenPrepare:
        // "v_rcp_f16 and v_rsq_f16 DO support denormals"); computed to nearest.
        VRcpF16 => un16(w, i, e16, |a| 1.0 / a),
        VSqrtF16 => un16(w, i, e16, f32::sqrt),
        VRsqF16 => un16(w, i, e16, |a| 1.0 / a.sqrt()),
        VLogF16 => un16(w, i, e16, f32::log2),
        VExpF16 => un16(w, i, e16, f32::exp2),
        VFmaF16 => fma16(w, i, e16),
        VLdexpF16 => {
            let (a, en) = hsrc(w, i, 0);
            let b = ldexp16_exponent(w, i);
            let r: Row = std::array::from_fn(|l| {
                let x = flush16(fl::f2h(a[l]), e16.keep_in);
                if fl::h2f(x).is_nan() {
                    return fl::d2h(fl::ldexp64(a[l] as f64, b[l] as i32));
                }
                let v = h(x).scalbn_r(b[l] as i32, e16.round);
                flush16(v.to_bits() as u32, e16.keep_out)
            });
            put16(w, i, &r, en);
        }
        VCvtF16U16 | VCvtF16I16 => {
            let (a, en) = src16(w, i, 0);
            let r: Row = std::array::from_fn(|l| {
                let v = if i.op == VCvtF16I16 {
                    a[l] as u16 as i16 as i128
                } else {
                    a[l] as u16 as i128
                };
                Half::from_i128_r(v, e16.round).value.to_bits() as u32
            });
            put16(w, i, &r, en);
        }
        _ => return false,
    }
    true
}

/// `x - floor(x)` rounded in `round`, below 1 (`below_one`: the largest value under it),
/// for a finite `x` (V_FRACT_F32 / V_FRACT_F64: `S0 + -floor(S0)`, at most 0x3f7fffff).
fn fract<F: Float>(x: F, round: Round, below_one: F) -> F {
    let r = x.sub_r(x.round_to_integral(Round::TowardNegative).value, round);
    if r.value > below_one {
        below_one
    } else {
        r.value
    }
}

/// `fma(a, b, c) * 2^scale` (scale from [`fl::div_fmas_scale32`]) with one rounding into `F` in `env` (V_DIV_FMAS), output
/// denormals flushed; `None` for a NaN result (left to the host arithmetic).
fn fmas<F>(a: F, b: F, c: F, scale: i32, env: Env) -> Option<F>
where
    F: Float + FloatConvert<Quad>,
    Quad: FloatConvert<F>,
{
    // Scaling the quad operands is exact (quad's exponent range covers f64's plus 64).
    let q = fma_odd(
        quad(a).scalbn(scale),
        quad(b),
        quad(c).scalbn(scale),
        env.round,
    );
    if q.is_nan() {
        return None;
    }
    let mut loses = false;
    Some(ftz(q.convert_r(env.round, &mut loses).value, env.keep_out))
}

/// Unary f32 operation with exact (or nearest) results: operand and result flushed per
/// `e`, then omod/clamp.
fn un32(w: &mut Wave, i: &Inst, e: Env, f: impl Fn(f32) -> f32) {
    let (a, en) = fsrc(w, i, 0);
    let r: Row = std::array::from_fn(|l| {
        let v = f(super::flush_f32(a[l], e.keep_in));
        let v = f32::from_bits(flush32(v.to_bits(), e.keep_out));
        fl::out32(v, i.omod, i.clamp).to_bits()
    });
    put(w, i, &r, en);
}

/// [`un32`] for f64.
fn un64(w: &mut Wave, i: &Inst, e: Env, f: impl Fn(f64) -> f64) {
    let a = dsrc(w, i, 0);
    let r: Row64 = std::array::from_fn(|l| {
        let v = f(super::flush_f64(a[l], e.keep_in));
        let v = f64::from_bits(flush64(v.to_bits(), e.keep_out));
        fl::out64(v, i.omod, i.clamp).to_bits()
    });
    put64(w, i.dst as usize, &r);
}

/// [`un32`] for f16 (computed on the exact f32 value, rounded to nearest f16).
fn un16(w: &mut Wave, i: &Inst, e: Env, f: impl Fn(f32) -> f32) {
    let (a, en) = hsrc(w, i, 0);
    let r: Row = std::array::from_fn(|l| {
        let v = f(super::flush_f16_as_f32(a[l], e.keep_in));
        flush16(fl::f2h(fl::out32(v, i.omod, i.clamp)), e.keep_out)
    });
    put16(w, i, &r, en);
}

/// `v_fma_f16` in `e`: the operands as the default path reads them (op_sel halves, f16
/// inline constants), one rounding.
fn fma16(w: &mut Wave, i: &Inst, e: Env) {
    let ops: [[u32; LANES]; 3] = std::array::from_fn(|n| {
        let (r, _) = src(w, i, n);
        let c = i.src[n];
        let hi = i.op_sel >> n & 1 != 0;
        std::array::from_fn(|l| {
            let raw = if c < 256 { w.sread16(c, i.lit) } else { r[l] };
            let x = if hi { raw >> 16 } else { raw & 0xffff };
            flush16(
                fl::mod16(x, i.abs >> n & 1 != 0, i.neg >> n & 1 != 0),
                e.keep_in,
            )
        })
    });
    let r: Row = std::array::from_fn(|l| {
        let [a, b, c] = [ops[0][l], ops[1][l], ops[2][l]];
        let v = h(a).mul_add_r(h(b), h(c), e.round).value;
        let v = if v.is_nan() {
            let (x, y, z) = (fl::h2f(a) as f64, fl::h2f(b) as f64, fl::h2f(c) as f64);
            fl::d2h(x.mul_add(y, z))
        } else {
            flush16(v.to_bits() as u32, e.keep_out)
        };
        if i.omod != 0 || i.clamp {
            fl::f2h(fl::out32(fl::h2f(v), i.omod, i.clamp))
        } else {
            v
        }
    });
    let old = w.v[i.dst as usize];
    let r: Row = if i.op_sel & 8 != 0 {
        std::array::from_fn(|l| (old[l] & 0xffff) | r[l] << 16)
    } else {
        r
    };
    put(w, i, &r, u64::MAX);
}
