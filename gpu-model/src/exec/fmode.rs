//! Float operations under a non-default MODE register: directed rounding, denormal
//! flushing, and the IEEE-mode NaN rules of f16 min/max.
//!
//! MODE bits 7:0 (the same on GFX9 and GFX12; Vega / CDNA3 / RDNA4 ISA guides, "MODE"
//! hardware register; LLVM `SIDefines.h` FP_ROUND_* / FP_DENORM_*): `[1:0]` f32 round
//! mode, `[3:2]` f64/f16 round mode (0 nearest even, 1 toward +inf, 2 toward -inf, 3
//! toward zero); `[5:4]` f32 denormal mode, `[7:6]` f64/f16 denormal mode (bit 0 of each:
//! keep input denormals, else they read as zero of the same sign; bit 1: keep output
//! denormals, else they become zero of the same sign). MODE[9] is the GFX9 IEEE bit.
//!
//! The default (0xf0: nearest even, every denormal kept) is what the host computes, so
//! [`super::valu`], [`super::vop3p`] and [`super::sop`] only call in here when `mode &
//! 0xff` differs from it; the fast path pays one compare. (f16 and packed f16 min/max are
//! the exception: they run here in every mode, for their NaN rules.) Here every result is
//! rounded exactly once in the requested direction by `rustc_apfloat` (LLVM's APFloat);
//! where the exact result does not fit an f32/f64 operation (fma with a scale, mixed
//! precision) it is rounded to odd in IEEE quad first, which then rounds correctly into
//! any narrower format. NaN results are left to the host arithmetic (quiet NaN
//! propagation as in the default path; f32 add, mul and fma follow its first-NaN rule,
//! `float::first_nan32`).
//!
//! What MODE does to every float operation the executor implements (`round`: the result
//! is rounded in the MODE direction of the result's format; `in`/`out`: denormal operands
//! / results flushed per the denormal field of their format; f64 and f16 share a field):
//!
//! | operations | MODE |
//! |---|---|
//! | f32 `v_add/sub/subrev/mul/fma/fmac/fmamk/fmaak/mad/mac/madmk/madak/mad_legacy`, GFX12 `s_add/sub/mul/fmac/fmaak/fmamk_f32`, `v_pk_add/mul/fma_f32` | round, in, out |
//! | f64 `v_add/mul/fma/fmac`; f16 `v_add/sub/subrev/mul/fma`, `v_pk_add/mul/fma_f16` | round, in, out |
//! | f16 `v_mad/mad_legacy/mac/madmk/madak_f16` (product and sum each rounded), `v_fma_legacy_f16`, GFX12 `v_fmac/fmamk/fmaak_f16`, `v_pk_fmac_f16` (`valu/half.rs`) | round, in, out |
//! | `v_mul_legacy_f32` (GFX9), `v_mul_dx9_zero_f32`, `v_fma_dx9_zero_f32`, `v_mullit_f32` (`valu/misc.rs`) | round, in, out; the zero and -MAX_FLOAT tests see the flushed operands |
//! | `v_fma_mix_f32`, `v_fma_mixlo/mixhi_f16` | each operand flushed by its own format's field; round and out by the result's format |
//! | `v_div_fmas_f32/f64` | round, in, out; the 2^±64 / 2^±128 scale (sign from S2's exponent, `float::div_fmas_scaled32`) is applied before the one rounding |
//! | `v_ldexp_f32/f64/f16` | round, in, out |
//! | `v_fract_f32/f64/f16` | round (the subtraction `x - floor(x)`), in, out |
//! | `v_cvt_f32_i32/u32`, GFX12 `s_cvt_f32_i32/u32`, `v_cvt_f16_u16/i16` | round |
//! | `v_cvt_f32_f64`, `v_cvt_f16_f32` | round (destination's field), in (source's), out (destination's) |
//! | `v_cvt_f64_f32`, `v_cvt_f32_f16` | in (source's field); exact |
//! | `v_cvt_pkrtz_f16_f32` | always toward zero (the instruction's definition); in (f32), out (f16) |
//! | `v_min/max/min3/max3/med3_f32`, `v_min/max_f64`, `v_min/max_f16`, `v_pk_min/max_f16` | in, out; exact. IEEE bit: a signalling NaN operand gives it quieted (all formats, f16 included) |
//! | `v_min3/max3/med3_f16`, GFX12 `v_min3/max3/med3_num_f16/f32`, `v_minmax/maxmin_num_f16/f32`, `v_minimum/maximum_f16/f32/f64`, `v_minimum3/maximum3_f16/f32`, `v_minimummaximum/maximumminimum_f16/f32`, `v_pk_minimum/maximum_f16`, gfx950 `v_pk_minimum3/maximum3_f16` (`valu/minmax.rs`) | in, out (the format's field); exact |
//! | GFX12 `s_add/sub/mul/fmac_f16` | round, in, out (f16 fields) |
//! | GFX12 `s_min/max_num_f16/f32`, `s_minimum/maximum_f16/f32` | in, out; exact (their NaN rules: `fmode/scalar.rs`) |
//! | GFX12 `s_cmp_*_f32/f16` | in; exact |
//! | GFX12 `s_cvt_f16_f32` | round (f16 field), in (f32), out (f16); `s_cvt_pk_rtz_f16_f32` the same toward zero; `s_cvt_f32_f16`, `s_cvt_hi_f32_f16`: in (f16); exact |
//! | GFX12 `s_ceil/floor/trunc/rndne_f16` | in; results integral |
//! | `v_cube{id,sc,tc,ma}_f32` | in, out (f32 field); exact (selections, negations and `2 * major axis`) |
//! | f32/f64/f16 compares (`valu::cmp`) | in; exact |
//! | `v_trunc/ceil/floor/rndne_f32/f64/f16`, GFX12 `s_trunc/ceil/floor/rndne_f32`, `v_frexp_mant/exp`, `v_cvt_flr/rpi_i32_f32` | in; results are integral (or in [0.5, 1)) so never rounded or denormal |
//! | `v_rcp/rsq/sqrt_f64`, `v_rcp/rsq/sqrt/log/exp/sin/cos_f16`, GFX12 `v_s_rcp/rsq/sqrt/log/exp_f16` | in, out (LLVM: "v_rcp_f16 and v_rsq_f16 DO support denormals"); round: not applied, they are approximations computed to nearest (documented choice: the guides give their accuracy in ulp, not a rounding) |
//! | `v_rcp/rcp_iflag/rsq/sqrt/exp/log/sin/cos_f32`, `v_exp/log_legacy_f32`, GFX12 `v_s_rcp/rsq/sqrt/exp/log_f32` | none: they flush f32 denormal operands and results in every mode ([`super::float::ftz32`] cites the sources); nearest |
//! | `v_cvt_i32/u32_f32/f64`, `v_cvt_i16/u16_f16`, GFX12 `s_cvt_i32/u32_f32`, GFX12 `v_cvt_pk_i16/u16_f32` | none: truncation, and a flushed denormal truncates to the same 0 (the pack conversions flush their operands per MODE[5:4], with the same result) |
//! | `v_cvt_pk_u8_f32`, `v_cvt_pkaccum_u8_f32` | round (to an integer, MODE[1:0]; CLRX: "with rounding mode from MODE register"), in |
//! | `v_cvt_pknorm_i16/u16_f32/f16` (GFX12 `v_cvt_pk_norm_*`), `v_cvt_norm_i16/u16_f16` | in (the source's field); round: not applied, nearest even (documented choice: the guides' `f32_to_snorm` / `f16_to_unorm` name no rounding) |
//! | `v_dot2_f32_f16`, `v_dot2c_f32_f16`, `v_dot2_f32_bf16`, `v_dot2c_f32_bf16`, GFX12 `v_dot4_f32_fp8/bf8_*`, VOPD `v_dual_dot2acc_f32_f16/bf16` (`valu/dot.rs`) | none: nearest even, every f32/f16/bf16 denormal operand and result flushed, whatever MODE says (CDNA4 guide 6.4: the dot instructions "ignore the denormal and rounding modes. They flush input and output denorms"; LLVM `SIISelLowering.cpp`) |
//! | GFX12 `v_dot2_f16_f16`, `v_dot2_bf16_bf16` | none: nearest even; f16 keeps denormals, bf16 flushes them (RDNA3 guide 7.2.4) |
//! | `v_trig_preop_f64` | none: a 53-bit segment of 2/pi scaled by a power of two (a result below the normal range rounds to nearest) |
//! | `v_cvt_off_f32_i4`, `v_cvt_f64_i32/u32`, `v_cvt_f32_ubyte0..3`, `v_cvt_f32_fp8/bf8`, `v_cvt_pk_f32_fp8/bf8` (every 8-bit float is an f32 normal), `v_cvt_f32_bf16`, `v_pack_b32_f16`, `v_cmp_class_*`, `v_prng_b32` | none: exact, or bits only (class examines the operand's encoding) |
//! | `v_cvt_pk_fp8/bf8_f32`, `v_cvt_sr_fp8/bf8_f32` | round: never (nearest even / stochastic by definition); FP16_OVFL (MODE bit 23): saturation ([`super::cvt`]) |
//! | `v_cvt_scalef32_*` to fp8/bf8/fp6/bf6/fp4 | round: never; in: f32 operands (MODE[4]; CDNA4 guide 7.3); FP16_OVFL for fp8/bf8 results |
//! | `v_cvt_scalef32_*` from fp8/bf8/fp6/bf6/fp4 | none ("F4/F6/F8 allows denorms regardless of MODE"); nearest even into the destination |
//! | `v_cvt_pk_f16_f32`, `v_cvt_sr_f16_f32` | round: never (the pseudo-code forces nearest even); in (f32), out (f16); FP16_OVFL saturates finite overflow |
//! | `v_cvt_pk_bf16_f32`, `v_cvt_sr_bf16_f32` | round: never; in and out by the f32 field (bf16 has f32's exponent range) |
//! | `v_div_scale_f32/f64`, `v_div_fixup_f32/f64/f16`, `v_div_fixup_legacy_f16` | none (documented choice): their pseudo-code (CDNA3 guide) tests the operands' classes, denormal included, and scales by powers of two or selects special values; LLVM's f32 division sequence turns f32 denormals on around them (`SIISelLowering::LowerFDIV32`) |
//!
//! Not modelled under MODE (they compute as in the default mode): MFMA / SMFMAC
//! (`exec/mfma.rs`) and the float atomics of LDS and memory (`ds_add/min/max_f32`,
//! `*_atomic_add_f32`), which are not VALU arithmetic.
//!
//! Tests: `tests/exec_fmode.rs` (the basic arithmetic and conversions),
//! `tests/exec_mode.rs`, and for the `valu/` operations `tests/exec_valu_half.rs`,
//! `exec_valu_minmax.rs`, `exec_valu_misc.rs`, `exec_valu_pack.rs` and
//! `exec_valu_dot.rs`, against an exact reference.

mod minmax;
mod packed;
mod round;
mod scalar;

pub(crate) use minmax::{minmax_f16, pk_minmax_f16};
pub(crate) use packed::exec_vop3p;
pub(crate) use scalar::{exec_scalar, scalar_float};

use super::float as fl;
use super::inst::Inst;
use super::valu::{dsrc, fsrc, hsrc, put, put16, put64, src, Row, Row64};
use super::wave::{Wave, LANES};
use super::FaultReason;
use crate::isa::Op;
use rustc_apfloat::ieee::{Double, Half, Quad, Single};
use rustc_apfloat::{Float, FloatConvert, Round, Status};

/// `mode & 0xff` with which the host arithmetic is exact: nearest even, denormals kept.
pub(crate) const DEFAULT: u32 = 0xf0;

/// The float environment of one format, decoded from MODE.
#[derive(Clone, Copy)]
pub(crate) struct Env {
    /// Rounding direction.
    pub(crate) round: Round,
    /// Denormal operands are kept (else read as zero of the same sign).
    pub(crate) keep_in: bool,
    /// Denormal results are kept (else written as zero of the same sign).
    pub(crate) keep_out: bool,
}

impl Env {
    /// f32 (`wide` false) or f64/f16 (`wide` true) fields of `mode`.
    pub(crate) fn of(mode: u32, wide: bool) -> Env {
        let (r, d) = if wide {
            ((mode >> 2) & 3, (mode >> 6) & 3)
        } else {
            (mode & 3, (mode >> 4) & 3)
        };
        let round = match r {
            0 => Round::NearestTiesToEven,
            1 => Round::TowardPositive,
            2 => Round::TowardNegative,
            _ => Round::TowardZero,
        };
        Env {
            round,
            keep_in: d & 1 != 0,
            keep_out: d & 2 != 0,
        }
    }
}

/// Flushes an f32 bit pattern if it is a denormal (keeps the sign).
#[inline]
pub(crate) fn flush32(x: u32, keep: bool) -> u32 {
    if !keep && x & 0x7f80_0000 == 0 {
        x & 0x8000_0000
    } else {
        x
    }
}

#[inline]
pub(crate) fn flush64(x: u64, keep: bool) -> u64 {
    if !keep && x & 0x7ff0_0000_0000_0000 == 0 {
        x & 0x8000_0000_0000_0000
    } else {
        x
    }
}

#[inline]
pub(crate) fn flush16(x: u32, keep: bool) -> u32 {
    let x = x & 0xffff;
    if !keep && x & 0x7c00 == 0 {
        x & 0x8000
    } else {
        x
    }
}

pub(crate) fn s(x: u32) -> Single {
    Single::from_bits(x as u128)
}

pub(crate) fn d(x: u64) -> Double {
    Double::from_bits(x as u128)
}

pub(crate) fn h(x: u32) -> Half {
    Half::from_bits((x & 0xffff) as u128)
}

/// f32 arithmetic in `env` on flushed inputs: `op` 0 add, 1 mul, 2 fma, 3 unfused mul-add.
fn arith32(env: Env, op: u8, a: f32, b: f32, c: f32) -> f32 {
    let [a, b, c] = [a, b, c].map(|x| f32::from_bits(flush32(x.to_bits(), env.keep_in)));
    let host = match op {
        0 => a + b,
        1 => a * b,
        2 => a.mul_add(b, c),
        _ => a * b + c,
    };
    if host.is_nan() {
        // The default path's NaN rule (`float::first_nan32`).
        let ops: &[f32] = if op < 2 { &[a, b] } else { &[a, b, c] };
        return f32::from_bits(fl::first_nan32(host.to_bits(), ops));
    }
    let (x, y, z) = (s(a.to_bits()), s(b.to_bits()), s(c.to_bits()));
    let r = match op {
        0 => x.add_r(y, env.round).value,
        1 => x.mul_r(y, env.round).value,
        2 => x.mul_add_r(y, z, env.round).value,
        _ => {
            let p = x.mul_r(y, env.round).value;
            let p = s(flush32(p.to_bits() as u32, env.keep_out));
            p.add_r(z, env.round).value
        }
    };
    f32::from_bits(flush32(r.to_bits() as u32, env.keep_out))
}

/// f64 arithmetic in `env`: `op` 0 add, 1 mul, 2 fma.
fn arith64(env: Env, op: u8, a: f64, b: f64, c: f64) -> f64 {
    let [a, b, c] = [a, b, c].map(|x| f64::from_bits(flush64(x.to_bits(), env.keep_in)));
    let host = match op {
        0 => a + b,
        1 => a * b,
        _ => a.mul_add(b, c),
    };
    if host.is_nan() {
        return host;
    }
    let (x, y, z) = (d(a.to_bits()), d(b.to_bits()), d(c.to_bits()));
    let r = match op {
        0 => x.add_r(y, env.round).value,
        1 => x.mul_r(y, env.round).value,
        _ => x.mul_add_r(y, z, env.round).value,
    };
    f64::from_bits(flush64(r.to_bits() as u64, env.keep_out))
}

/// f16 arithmetic in `env` on f16 bit patterns: `op` 0 add, 1 mul.
fn arith16(env: Env, op: u8, a: u32, b: u32) -> u32 {
    let (a, b) = (flush16(a, env.keep_in), flush16(b, env.keep_in));
    let host = match op {
        0 => fl::h2f(a) + fl::h2f(b),
        _ => fl::h2f(a) * fl::h2f(b),
    };
    if host.is_nan() {
        return fl::f2h(host);
    }
    let r = match op {
        0 => h(a).add_r(h(b), env.round).value,
        _ => h(a).mul_r(h(b), env.round).value,
    };
    flush16(r.to_bits() as u32, env.keep_out)
}

/// `x` with a denormal flushed to zero of the same sign unless `keep`.
pub(crate) fn ftz<F: Float>(x: F, keep: bool) -> F {
    if !keep && x.is_denormal() {
        F::ZERO.copy_sign(x)
    } else {
        x
    }
}

/// `x` (any narrower IEEE format) exactly as an IEEE quad.
pub(crate) fn quad<F: FloatConvert<Quad>>(x: F) -> Quad {
    let mut loses = false;
    x.convert(&mut loses).value
}

/// `a * b + c` in IEEE quad, rounded to odd: truncated, with the last bit set when that
/// lost anything. Rounding this once more into a format with at least two bits less
/// precision (f64 and narrower) gives the correctly rounded result in any direction, so
/// the operands may be f64 products (106 bits, exact in quad's 113). `round` is the final
/// direction: it decides the sign of an exact zero sum (-0 only toward -inf).
pub(crate) fn fma_odd(a: Quad, b: Quad, c: Quad, round: Round) -> Quad {
    let r = a.mul_add_r(b, c, Round::TowardZero);
    if r.value.is_zero() {
        // Exact (quad cannot underflow here), so the real direction gives the right sign.
        return a.mul_add_r(b, c, round).value;
    }
    if r.status.contains(Status::INEXACT) && r.value.is_finite() {
        Quad::from_bits(r.value.to_bits() | 1)
    } else {
        r.value
    }
}

/// Rounds `x` (exact in `F`) into `T` in `env`; NaNs are left to the host conversion.
pub(crate) fn convert<F: FloatConvert<T>, T: Float>(x: F, env: Env) -> T {
    let mut loses = false;
    x.convert_r(env.round, &mut loses).value
}

/// An f32 operand with input denormals flushed to zero of the same sign unless `keep`.
#[inline(always)]
pub(crate) fn flush_f32(x: f32, keep: bool) -> f32 {
    f32::from_bits(flush32(x.to_bits(), keep))
}

/// [`flush_f32`] for f64.
#[inline(always)]
pub(crate) fn flush_f64(x: f64, keep: bool) -> f64 {
    f64::from_bits(flush64(x.to_bits(), keep))
}

/// [`flush_f32`] for an f16 operand held as f32 (f16 denormals are below 2^-14).
#[inline(always)]
pub(crate) fn flush_f16_as_f32(x: f32, keep: bool) -> f32 {
    if !keep && x != 0.0 && x.abs() < 6.103_515_6e-5 {
        0.0f32.copysign(x)
    } else {
        x
    }
}

/// Executes `i` under the wave's non-default MODE if it is one of the covered operations;
/// `None` hands it to the default path.
#[cold]
#[inline(never)]
pub(crate) fn exec(w: &mut Wave, i: &Inst) -> Option<Result<(), FaultReason>> {
    use Op::*;
    let (e32, e64) = (Env::of(w.mode, false), Env::of(w.mode, true));
    let out32 = |x: f32| fl::out32(x, i.omod, i.clamp).to_bits();
    let out64 = |x: f64| fl::out64(x, i.omod, i.clamp).to_bits();
    match i.op {
        VAddF32 | VSubF32 | VSubrevF32 | VMulF32 => {
            let (a, en) = fsrc(w, i, 0);
            let (b, _) = fsrc(w, i, 1);
            let r: Row = std::array::from_fn(|l| {
                let (x, y) = match i.op {
                    VSubF32 => (a[l], -b[l]),
                    VSubrevF32 => (b[l], -a[l]),
                    _ => (a[l], b[l]),
                };
                let op = if i.op == VMulF32 { 1 } else { 0 };
                out32(arith32(e32, op, x, y, 0.0))
            });
            put(w, i, &r, en);
        }
        // v_mad_legacy_f32 computes as v_mad_f32 on the default path too.
        VFmaF32 | VMadF32 | VMadLegacyF32 => {
            let (a, en) = fsrc(w, i, 0);
            let (b, _) = fsrc(w, i, 1);
            let (c, _) = fsrc(w, i, 2);
            let op = if i.op == VFmaF32 { 2 } else { 3 };
            let r: Row = std::array::from_fn(|l| out32(arith32(e32, op, a[l], b[l], c[l])));
            put(w, i, &r, en);
        }
        VFmacF32 | VMacF32 | VFmamkF32 | VFmaakF32 | VMadmkF32 | VMadakF32 => {
            let (a, en) = fsrc(w, i, 0);
            let (b, _) = fsrc(w, i, 1);
            let dst = w.v[i.dst as usize];
            let k = f32::from_bits(i.lit);
            let fused = matches!(i.op, VFmacF32 | VFmamkF32 | VFmaakF32);
            let r: Row = std::array::from_fn(|l| {
                // fmac: a * b + vdst; fmamk: a * K + b; fmaak: a * b + K.
                let (y, z) = match i.op {
                    VFmamkF32 | VMadmkF32 => (k, b[l]),
                    VFmaakF32 | VMadakF32 => (b[l], k),
                    _ => (b[l], f32::from_bits(dst[l])),
                };
                out32(arith32(e32, if fused { 2 } else { 3 }, a[l], y, z))
            });
            put(w, i, &r, en);
        }
        VAddF64 | VMulF64 | VFmaF64 | VFmacF64 => {
            let (a, b) = (dsrc(w, i, 0), dsrc(w, i, 1));
            let c = match i.op {
                VFmaF64 => dsrc(w, i, 2),
                VFmacF64 => {
                    let (lo, hi) = (&w.v[i.dst as usize], &w.v[i.dst as usize + 1]);
                    std::array::from_fn(|l| f64::from_bits(lo[l] as u64 | (hi[l] as u64) << 32))
                }
                _ => [0.0; LANES],
            };
            let op = match i.op {
                VAddF64 => 0,
                VMulF64 => 1,
                _ => 2,
            };
            let r: Row64 = std::array::from_fn(|l| out64(arith64(e64, op, a[l], b[l], c[l])));
            put64(w, i.dst as usize, &r);
        }
        VAddF16 | VSubF16 | VSubrevF16 | VMulF16 => {
            let (a, en) = hsrc(w, i, 0);
            let (b, _) = hsrc(w, i, 1);
            // hsrc widened the (modified) f16 operands exactly; narrow them back.
            let r: Row = std::array::from_fn(|l| {
                let (x, y) = (fl::f2h(a[l]), fl::f2h(b[l]));
                let (x, y) = match i.op {
                    VSubF16 => (x, y ^ 0x8000),
                    VSubrevF16 => (y, x ^ 0x8000),
                    _ => (x, y),
                };
                let r = arith16(e64, (i.op == VMulF16) as u8, x, y);
                if i.omod != 0 || i.clamp {
                    fl::f2h(fl::out32(fl::h2f(r), i.omod, i.clamp))
                } else {
                    r
                }
            });
            put16(w, i, &r, en);
        }
        VCvtF32I32 | VCvtF32U32 => {
            let (a, en) = src(w, i, 0);
            let r: Row = std::array::from_fn(|l| {
                let v = if i.op == VCvtF32I32 {
                    Single::from_i128_r(a[l] as i32 as i128, e32.round).value
                } else {
                    Single::from_u128_r(a[l] as u128, e32.round).value
                };
                out32(f32::from_bits(v.to_bits() as u32))
            });
            put(w, i, &r, en);
        }
        VCvtF32F64 => {
            let a = dsrc(w, i, 0);
            let r: Row = std::array::from_fn(|l| {
                let x = flush64(a[l].to_bits(), e64.keep_in);
                if f64::from_bits(x).is_nan() {
                    return out32(a[l] as f32);
                }
                let v: Single = convert(d(x), e32);
                out32(f32::from_bits(flush32(v.to_bits() as u32, e32.keep_out)))
            });
            put(w, i, &r, u64::MAX);
        }
        VCvtF64F32 => {
            let (a, _) = fsrc(w, i, 0);
            let r: Row64 = std::array::from_fn(|l| {
                let x = f32::from_bits(flush32(a[l].to_bits(), e32.keep_in));
                out64(x as f64)
            });
            put64(w, i.dst as usize, &r);
        }
        VCvtF32F16 => {
            let (a, en) = hsrc(w, i, 0);
            let r: Row =
                std::array::from_fn(|l| out32(fl::h2f(flush16(fl::f2h(a[l]), e64.keep_in))));
            put(w, i, &r, en);
        }
        VCvtF16F32 => {
            let (a, en) = fsrc(w, i, 0);
            let r: Row = std::array::from_fn(|l| {
                let x = fl::out32(a[l], i.omod, i.clamp);
                let x = flush32(x.to_bits(), e32.keep_in);
                if f32::from_bits(x).is_nan() {
                    return fl::f2h(f32::from_bits(x));
                }
                let v: Half = convert(s(x), e64);
                flush16(v.to_bits() as u32, e64.keep_out)
            });
            put16(w, i, &r, en);
        }
        // Exact operations: rounding does not apply; denormal inputs are flushed, and so
        // is a denormal result (one of the inputs kept under a mixed mode).
        VMinF32 | VMaxF32 | VMin3F32 | VMax3F32 => {
            let max = matches!(i.op, VMaxF32 | VMax3F32);
            let three = matches!(i.op, VMin3F32 | VMax3F32);
            let ieee = super::valu::ieee_mode(w);
            let (a, en) = fsrc(w, i, 0);
            let (b, _) = fsrc(w, i, 1);
            let c = if three { fsrc(w, i, 2).0 } else { a };
            let f = |x: f32| flush_f32(x, e32.keep_in);
            let m = |x, y| fl::minmax32(x, y, max, ieee);
            let r: Row = std::array::from_fn(|l| {
                let v = m(f(a[l]), f(b[l]));
                let v = if three { m(v, f(c[l])) } else { v };
                flush32(out32(v), e32.keep_out)
            });
            put(w, i, &r, en);
        }
        VMed3F32 => minmax::med3_f32(w, i),
        VMinF64 | VMaxF64 => {
            let (max, ieee) = (i.op == VMaxF64, super::valu::ieee_mode(w));
            let (a, b) = (dsrc(w, i, 0), dsrc(w, i, 1));
            let f = |x: f64| flush_f64(x, e64.keep_in);
            let r: Row64 = std::array::from_fn(|l| {
                let v = fl::minmax64(f(a[l]), f(b[l]), max, ieee);
                flush64(out64(v), e64.keep_out)
            });
            put64(w, i.dst as usize, &r);
        }
        _ => {
            if !round::exec(w, i, e32, e64) {
                return None;
            }
        }
    }
    Some(Ok(()))
}
