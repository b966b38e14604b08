//! GFX12 scalar float operations (SOP1/SOP2/SOPC on f32 and f16 in SGPRs): the f32
//! arithmetic of `sop` under a non-default MODE, and, in every MODE, the f16 operations,
//! float compares, conversions and the IEEE minimum/maximum operations.
//!
//! MODE (RDNA4 guide 6.8 "SALU floating point": rounding and denormals follow MODE.round
//! and MODE.denorm, as the VALU): f32 operations use MODE's f32 fields, f16 ones the
//! f64/f16 fields; conversions round and flush their result by the destination's fields
//! and flush their operand by the source's, as `v_cvt_*` do (`fmode` table). Scalar f16
//! operations read bits [15:0] of their SGPRs and write the destination's bits [31:16]
//! as 0 (same section); their inline constants are the f16 encodings (LLVM's operand
//! types), except `s_cvt_hi_f32_f16`, whose 32-bit operand takes f32 constants.
//!
//! Compares (RDNA4 guide 16.4) are the ordered IEEE relations, `LG` being `<>`
//! (ordered and unequal) and the `N*` forms their negations (true on a NaN); `O`/`U`
//! test orderedness. Denormal operands are flushed per MODE (`in`), the result is exact.
//! The guide's quiet/signalling distinction only changes the invalid-operation flag,
//! which the model does not record: SCC is the same either way.

use super::{arith16, arith32, convert, flush16, flush32, flush_f32, h, s, Env};
use crate::exec::float as fl;
use crate::exec::inst::Inst;
use crate::exec::wave::Wave;
use crate::isa::Op;
use rustc_apfloat::ieee::{Half, Single};
use rustc_apfloat::{Float, Round};

/// Executes `i` under the wave's non-default MODE if it is a scalar float operation that
/// MODE changes; false hands it to the default path. Documented choice: they follow
/// MODE's f32 fields as the VALU f32 operations do (MODE has one f32 round field and one
/// f32 denormal field; no source we found says the SALU float ops ignore them).
#[inline]
pub(crate) fn exec_scalar(w: &mut Wave, i: &Inst) -> bool {
    use Op::*;
    if !matches!(
        i.op,
        SAddF32
            | SSubF32
            | SMulF32
            | SFmacF32
            | SFmaakF32
            | SFmamkF32
            | SCvtF32I32
            | SCvtF32U32
            | SCeilF32
            | SFloorF32
            | STruncF32
            | SRndneF32
    ) {
        return false;
    }
    scalar(w, i);
    true
}

#[cold]
#[inline(never)]
fn scalar(w: &mut Wave, i: &Inst) {
    use Op::*;
    let e = Env::of(w.mode, false);
    let raw0 = w.sread(i.src[0], i.lit);
    let (a, b) = (
        f32::from_bits(raw0),
        f32::from_bits(w.sread(i.src[1], i.lit)),
    );
    let k = f32::from_bits(i.lit);
    let f = |x: f32| flush_f32(x, e.keep_in);
    let r = match i.op {
        SAddF32 => arith32(e, 0, a, b, 0.0),
        SSubF32 => arith32(e, 0, a, -b, 0.0),
        SMulF32 => arith32(e, 1, a, b, 0.0),
        SFmacF32 => arith32(e, 2, a, b, f32::from_bits(w.sread(i.dst, 0))),
        // s_fmaak: d = s0 * s1 + K; s_fmamk: d = s0 * K + s1.
        SFmaakF32 => arith32(e, 2, a, b, k),
        SFmamkF32 => arith32(e, 2, a, k, b),
        SCvtF32I32 => f32::from_bits(
            Single::from_i128_r(raw0 as i32 as i128, e.round)
                .value
                .to_bits() as u32,
        ),
        SCvtF32U32 => {
            f32::from_bits(Single::from_u128_r(raw0 as u128, e.round).value.to_bits() as u32)
        }
        SCeilF32 => f(a).ceil(),
        SFloorF32 => f(a).floor(),
        STruncF32 => f(a).trunc(),
        _ => f(a).round_ties_even(),
    };
    w.swrite(i.dst, r.to_bits());
}

/// A float format's bit layout, for the operations done on bit patterns.
#[derive(Clone, Copy)]
struct Fmt {
    sign: u32,
    exp: u32,
    quiet: u32,
}

const F32: Fmt = Fmt {
    sign: 0x8000_0000,
    exp: 0x7f80_0000,
    quiet: 0x0040_0000,
};
const F16: Fmt = Fmt {
    sign: 0x8000,
    exp: 0x7c00,
    quiet: 0x0200,
};

impl Fmt {
    fn nan(self, x: u32) -> bool {
        x & !self.sign & self.exp == self.exp && x & !self.sign & !self.exp != 0
    }
    fn snan(self, x: u32) -> bool {
        self.nan(x) && x & self.quiet == 0
    }
    fn value(self, x: u32) -> f64 {
        if self.sign == F16.sign {
            fl::h2f(x) as f64
        } else {
            f32::from_bits(x) as f64
        }
    }
    /// `a < b` with -0 below +0 (the guides' LT_NEG_ZERO), or `a > b` with +0 above -0.
    fn before(self, a: u32, b: u32, max: bool) -> bool {
        let (x, y) = (self.value(a), self.value(b));
        if x == 0.0 && y == 0.0 {
            (a & self.sign != 0 && b & self.sign == 0) != max
        } else if max {
            x > y
        } else {
            x < y
        }
    }
}

/// IEEE 754-2019 minimumNumber/maximumNumber as RDNA4 defines `*_MIN_NUM`/`*_MAX_NUM`
/// (DS_MIN_NUM_F32 pseudo-code): two NaNs give the first one quieted, one NaN loses, -0
/// is below +0.
fn min_num(f: Fmt, a: u32, b: u32, max: bool) -> u32 {
    match (f.nan(a), f.nan(b)) {
        (true, true) => a | f.quiet,
        (true, false) => b,
        (false, true) => a,
        _ if f.before(a, b, max) => a,
        _ => b,
    }
}

/// IEEE 754-2019 minimum/maximum (`s_minimum_*`/`s_maximum_*`): a NaN operand gives a
/// NaN, a signalling one quieted (S0 checked first, as the guides' V_MIN_F32 IEEE-mode
/// order), -0 is below +0.
fn minimum(f: Fmt, a: u32, b: u32, max: bool) -> u32 {
    if f.snan(a) {
        a | f.quiet
    } else if f.snan(b) {
        b | f.quiet
    } else if f.nan(a) {
        a
    } else if f.nan(b) {
        b
    } else if f.before(a, b, max) {
        a
    } else {
        b
    }
}

/// f16 fused multiply-add in `env`, rounded once.
fn fma16(env: Env, a: u32, b: u32, c: u32) -> u32 {
    let [a, b, c] = [a, b, c].map(|x| flush16(x, env.keep_in));
    let host = fl::h2f(a).mul_add(fl::h2f(b), fl::h2f(c));
    if host.is_nan() {
        return fl::f2h(host);
    }
    let r = h(a).mul_add_r(h(b), h(c), env.round).value;
    flush16(r.to_bits() as u32, env.keep_out)
}

/// f32 bits to f16 bits in `env` (round by `round`): operand flushed by `src`'s field,
/// result by `env`'s.
fn f32_to_f16(x: u32, keep_in: bool, env: Env, round: Round) -> u32 {
    let x = flush32(x, keep_in);
    if f32::from_bits(x).is_nan() {
        return fl::f2h(f32::from_bits(x));
    }
    let v: Half = convert(s(x), Env { round, ..env });
    flush16(v.to_bits() as u32, env.keep_out)
}

/// Whether compare `op` holds for `x` and `y`. Each condition is the set of outcomes it
/// accepts, as a mask (1 less, 2 equal, 4 greater, 8 unordered) in the order of the
/// opcodes (RDNA4 S_CMP_*_F32 65..78: LT, EQ, LE, GT, LG, GE, O, U, NGE, NLG, NGT, NLE,
/// NEQ, NLT = masks 1..14).
fn compare(op: Op, x: f64, y: f64) -> bool {
    use std::cmp::Ordering::*;
    use Op::*;
    let mask = match op {
        SCmpLtF32 | SCmpLtF16 => 1,
        SCmpEqF32 | SCmpEqF16 => 2,
        SCmpLeF32 | SCmpLeF16 => 3,
        SCmpGtF32 | SCmpGtF16 => 4,
        SCmpLgF32 | SCmpLgF16 => 5,
        SCmpGeF32 | SCmpGeF16 => 6,
        SCmpOF32 | SCmpOF16 => 7,
        SCmpUF32 | SCmpUF16 => 8,
        SCmpNgeF32 | SCmpNgeF16 => 9,
        SCmpNlgF32 | SCmpNlgF16 => 10,
        SCmpNgtF32 | SCmpNgtF16 => 11,
        SCmpNleF32 | SCmpNleF16 => 12,
        SCmpNeqF32 | SCmpNeqF16 => 13,
        _ => 14,
    };
    let outcome = match x.partial_cmp(&y) {
        Some(Less) => 1,
        Some(Equal) => 2,
        Some(Greater) => 4,
        None => 8,
    };
    mask & outcome != 0
}

/// Executes a GFX12 scalar f16 operation, float compare, f16 conversion or IEEE
/// minimum/maximum (and `s_min/max_num_f32`) in the wave's MODE; false if `i` is none of
/// them.
pub(crate) fn scalar_float(w: &mut Wave, i: &Inst) -> bool {
    use Op::*;
    let (e32, e16) = (Env::of(w.mode, false), Env::of(w.mode, true));
    let h0 = || w.sread16(i.src[0], i.lit) & 0xffff;
    let h1 = || w.sread16(i.src[1], i.lit) & 0xffff;
    let f0 = || w.sread(i.src[0], i.lit);
    let f1 = || w.sread(i.src[1], i.lit);
    let r16 = |x: u32| flush16(x, e16.keep_in);
    let r32 = |x: u32| flush32(x, e32.keep_in);
    let r = match i.op {
        SAddF16 => arith16(e16, 0, h0(), h1()),
        SSubF16 => arith16(e16, 0, h0(), h1() ^ 0x8000),
        SMulF16 => arith16(e16, 1, h0(), h1()),
        SFmacF16 => fma16(e16, h0(), h1(), w.sread(i.dst, 0) & 0xffff),
        SMinNumF16 | SMaxNumF16 => {
            let m = min_num(F16, r16(h0()), r16(h1()), i.op == SMaxNumF16);
            flush16(m, e16.keep_out)
        }
        SMinimumF16 | SMaximumF16 => {
            let m = minimum(F16, r16(h0()), r16(h1()), i.op == SMaximumF16);
            flush16(m, e16.keep_out)
        }
        SMinNumF32 | SMaxNumF32 => {
            let m = min_num(F32, r32(f0()), r32(f1()), i.op == SMaxNumF32);
            flush32(m, e32.keep_out)
        }
        SMinimumF32 | SMaximumF32 => {
            let m = minimum(F32, r32(f0()), r32(f1()), i.op == SMaximumF32);
            flush32(m, e32.keep_out)
        }
        // Integral results: exact, never denormal. The guides' pseudo-code for
        // S_RNDNE (floor(x + 0.5), adjusted) would give +0 for -0.5; LLVM selects it for
        // llvm.roundeven, whose result keeps the sign (-0), as the host's does.
        SCeilF16 | SFloorF16 | STruncF16 | SRndneF16 => {
            let x = fl::h2f(r16(h0()));
            fl::f2h(match i.op {
                SCeilF16 => x.ceil(),
                SFloorF16 => x.floor(),
                STruncF16 => x.trunc(),
                _ => x.round_ties_even(),
            })
        }
        SCvtF16F32 => f32_to_f16(f0(), e32.keep_in, e16, e16.round),
        SCvtF32F16 => fl::h2f(r16(h0())).to_bits(),
        SCvtHiF32F16 => fl::h2f(r16(f0() >> 16)).to_bits(),
        // Round toward zero whatever MODE says (the instruction's definition).
        SCvtPkRtzF16F32 => {
            let lo = f32_to_f16(f0(), e32.keep_in, e16, Round::TowardZero);
            let hi = f32_to_f16(f1(), e32.keep_in, e16, Round::TowardZero);
            lo | hi << 16
        }
        SCmpLtF32 | SCmpEqF32 | SCmpLeF32 | SCmpGtF32 | SCmpLgF32 | SCmpGeF32 | SCmpOF32
        | SCmpUF32 | SCmpNgeF32 | SCmpNlgF32 | SCmpNgtF32 | SCmpNleF32 | SCmpNeqF32
        | SCmpNltF32 => {
            let (x, y) = (F32.value(r32(f0())), F32.value(r32(f1())));
            w.scc = compare(i.op, x, y);
            return true;
        }
        SCmpLtF16 | SCmpEqF16 | SCmpLeF16 | SCmpGtF16 | SCmpLgF16 | SCmpGeF16 | SCmpOF16
        | SCmpUF16 | SCmpNgeF16 | SCmpNlgF16 | SCmpNgtF16 | SCmpNleF16 | SCmpNeqF16
        | SCmpNltF16 => {
            let (x, y) = (F16.value(r16(h0())), F16.value(r16(h1())));
            w.scc = compare(i.op, x, y);
            return true;
        }
        _ => return false,
    };
    w.swrite(i.dst, r);
    true
}
