//! Three-operand and IEEE 754-2019 min/max: GFX12 `v_minimum/maximum_f16/f32/f64`,
//! `v_minimum3/maximum3_*`, `v_minimummaximum/maximumminimum_*`, `v_min3/max3/med3_num_f16`,
//! `v_minmax/maxmin_num_*`, `v_minmax/maxmin_i32/u32`; gfx950 `v_minimum3/maximum3_f32`;
//! GFX9 `v_min3/max3/med3_f16`; and the 16-bit integer `v_min3/max3/med3_i16/u16`.
//!
//! Rules (RDNA4 / CDNA4 ISA guides' pseudocode, on bit patterns so NaN payloads survive):
//! - V_MINIMUM_F32 / V_MAXIMUM_F32 (IEEE 754-2019 minimum/maximum): a signalling NaN
//!   operand gives it quieted (S0 first), else a quiet NaN operand is the result (S0
//!   first); otherwise the smaller (larger) value, -0 below +0.
//! - V_MIN_NUM_F32 / V_MAX_NUM_F32 (minimumNumber/maximumNumber): two NaNs give S0
//!   quieted; one NaN loses to the other operand; -0 below +0.
//! - the 3-operand forms are the 2-operand ones nested as written: V_MINIMUM3 is
//!   `minimum(minimum(S0, S1), S2)`, V_MINMAX_NUM is `max_num(min_num(S0, S1), S2)`, ...
//! - V_MED3_NUM_F16 (and GFX9 V_MED3_F16): with a NaN operand, V_MIN3 of the three;
//!   otherwise the max of the two operands other than the first one `==` to V_MAX3 of
//!   all three (in order S0, S1), `==` being float equality (-0 == +0).
//! - GFX9 V_MIN3_F16 / V_MAX3_F16 are two V_MIN_F16 / V_MAX_F16 ([`fl::minmax16`], with
//!   the IEEE mode bit).
//!
//! MODE: exact (no rounding); operands and results flushed per the format's denormal
//! field (f32: MODE[5:4]; f16 and f64: MODE[7:6]); omod and clamp on the result.

use super::rows::{put, put64, src, src16, src64, Row, Row64};
use crate::exec::float::{self as fl, mod16, mod32, mod64};
use crate::exec::fmode::Env;
use crate::exec::inst::Inst;
use crate::exec::valu::ieee_mode;
use crate::exec::vop3p::{half, raw, write, Consts};
use crate::exec::wave::Wave;
use crate::exec::FaultReason;
use crate::isa::Op;

/// A binary float format on bit patterns: total bits and mantissa bits.
#[derive(Clone, Copy)]
pub(crate) struct Fmt {
    bits: u32,
    man: u32,
}

/// f16.
pub(crate) const H: Fmt = Fmt { bits: 16, man: 10 };
/// f32.
pub(crate) const S: Fmt = Fmt { bits: 32, man: 23 };
/// f64.
pub(crate) const D: Fmt = Fmt { bits: 64, man: 52 };

impl Fmt {
    fn sign(self) -> u64 {
        1 << (self.bits - 1)
    }
    fn mag(self, x: u64) -> u64 {
        x & (self.sign() - 1)
    }
    fn inf(self) -> u64 {
        (self.sign() - 1) & !((1 << self.man) - 1)
    }
    /// Whether `x` is a NaN.
    pub(crate) fn nan(self, x: u64) -> bool {
        self.mag(x) > self.inf()
    }
    fn snan(self, x: u64) -> bool {
        self.nan(x) && x >> (self.man - 1) & 1 == 0
    }
    fn quiet(self, x: u64) -> u64 {
        x | 1 << (self.man - 1)
    }
    /// An integer ordering non-NaN values, -0 below +0.
    fn key(self, x: u64) -> i128 {
        let m = i128::from(self.mag(x));
        if x & self.sign() != 0 {
            -m - 1
        } else {
            m
        }
    }
    /// Float equality (-0 == +0) of non-NaN values.
    fn eq(self, a: u64, b: u64) -> bool {
        a == b || (self.mag(a) == 0 && self.mag(b) == 0)
    }
    /// A denormal as zero of the same sign unless `keep`.
    pub(crate) fn flush(self, x: u64, keep: bool) -> u64 {
        if !keep && x & self.inf() == 0 {
            x & self.sign()
        } else {
            x
        }
    }
}

/// IEEE 754-2019 minimum (`max` false) or maximum of two values (V_MINIMUM_* /
/// V_MAXIMUM_*).
pub(crate) fn minimum(f: Fmt, a: u64, b: u64, max: bool) -> u64 {
    if f.snan(a) {
        return f.quiet(a);
    }
    if f.snan(b) {
        return f.quiet(b);
    }
    if f.nan(a) {
        return a;
    }
    if f.nan(b) {
        return b;
    }
    pick(f, a, b, max)
}

/// minimumNumber (`max` false) or maximumNumber (V_MIN_NUM_* / V_MAX_NUM_*).
pub(crate) fn num(f: Fmt, a: u64, b: u64, max: bool) -> u64 {
    match (f.nan(a), f.nan(b)) {
        (true, true) => f.quiet(a),
        (true, false) => b,
        (false, true) => a,
        _ => pick(f, a, b, max),
    }
}

/// The smaller (larger) of two non-NaN values, -0 below +0; S1 when equal.
fn pick(f: Fmt, a: u64, b: u64, max: bool) -> u64 {
    let (ka, kb) = (f.key(a), f.key(b));
    if (ka < kb && !max) || (ka > kb && max) {
        a
    } else {
        b
    }
}

/// The guides' med3 on `min`/`max` of one family: V_MIN3 with a NaN operand, else the
/// max of the operands other than the first `==` to max3.
fn med3(f: Fmt, a: u64, b: u64, c: u64, m2: &impl Fn(u64, u64, bool) -> u64) -> u64 {
    if f.nan(a) || f.nan(b) || f.nan(c) {
        return m2(m2(a, b, false), c, false);
    }
    let hi = m2(m2(a, b, true), c, true);
    if f.eq(hi, a) {
        m2(b, c, true)
    } else if f.eq(hi, b) {
        m2(a, c, true)
    } else {
        m2(a, b, true)
    }
}

/// How a family combines its operands.
#[derive(Clone, Copy)]
enum Shape {
    /// `m(a, b)`.
    Two(bool),
    /// `m(m(a, b), c)`.
    Three(bool),
    /// `outer(inner(a, b), c)`: `(inner is max, outer is max)`.
    Nested(bool, bool),
    /// The median.
    Med,
}

/// The family and shape of a float operation of this module: `(kind, fmt, shape)`, kind
/// 0 IEEE minimum/maximum, 1 min/max_num, 2 GFX9 legacy (IEEE-mode bit).
fn float_op(op: Op) -> Option<(u8, Fmt, Shape)> {
    use Op::*;
    use Shape::*;
    Some(match op {
        VMinimumF16 => (0, H, Two(false)),
        VMaximumF16 => (0, H, Two(true)),
        VMinimumF32 => (0, S, Two(false)),
        VMaximumF32 => (0, S, Two(true)),
        VMinimumF64 => (0, D, Two(false)),
        VMaximumF64 => (0, D, Two(true)),
        VMinimum3F16 => (0, H, Three(false)),
        VMaximum3F16 => (0, H, Three(true)),
        VMinimum3F32 => (0, S, Three(false)),
        VMaximum3F32 => (0, S, Three(true)),
        VMinimummaximumF16 => (0, H, Nested(false, true)),
        VMaximumminimumF16 => (0, H, Nested(true, false)),
        VMinimummaximumF32 => (0, S, Nested(false, true)),
        VMaximumminimumF32 => (0, S, Nested(true, false)),
        VMin3NumF16 => (1, H, Three(false)),
        VMax3NumF16 => (1, H, Three(true)),
        VMed3NumF16 => (1, H, Med),
        VMinmaxNumF16 => (1, H, Nested(false, true)),
        VMaxminNumF16 => (1, H, Nested(true, false)),
        VMinmaxNumF32 => (1, S, Nested(false, true)),
        VMaxminNumF32 => (1, S, Nested(true, false)),
        VMin3F16 => (2, H, Three(false)),
        VMax3F16 => (2, H, Three(true)),
        VMed3F16 => (2, H, Med),
        _ => return None,
    })
}

/// Executes one of this module's operations; `None` for others.
pub(crate) fn exec(w: &mut Wave, i: &Inst) -> Option<Result<(), FaultReason>> {
    if let Some((kind, f, shape)) = float_op(i.op) {
        float(w, i, kind, f, shape);
        return Some(Ok(()));
    }
    use Op::*;
    match i.op {
        VMinmaxI32 | VMaxminI32 | VMinmaxU32 | VMaxminU32 => {
            let (a, en) = src(w, i, 0);
            let (b, _) = src(w, i, 1);
            let (c, _) = src(w, i, 2);
            let r: Row = std::array::from_fn(|l| match i.op {
                // V_MINMAX: max(min(S0, S1), S2); V_MAXMIN: min(max(S0, S1), S2).
                VMinmaxI32 => (a[l] as i32).min(b[l] as i32).max(c[l] as i32) as u32,
                VMaxminI32 => (a[l] as i32).max(b[l] as i32).min(c[l] as i32) as u32,
                VMinmaxU32 => a[l].min(b[l]).max(c[l]),
                _ => a[l].max(b[l]).min(c[l]),
            });
            put(w, i, &r, en);
        }
        VMin3I16 | VMax3I16 | VMed3I16 | VMin3U16 | VMax3U16 | VMed3U16 => {
            let (a, en) = src16(w, i, 0);
            let (b, _) = src16(w, i, 1);
            let (c, _) = src16(w, i, 2);
            let signed = matches!(i.op, VMin3I16 | VMax3I16 | VMed3I16);
            let r: Row = std::array::from_fn(|l| {
                // Sign-extended into i32 order for the signed forms.
                let k = |x: u32| {
                    if signed {
                        x as u16 as i16 as i32
                    } else {
                        x as i32
                    }
                };
                let (x, y, z) = (k(a[l]), k(b[l]), k(c[l]));
                let v = match i.op {
                    VMin3I16 | VMin3U16 => x.min(y).min(z),
                    VMax3I16 | VMax3U16 => x.max(y).max(z),
                    // The median (the guide's max3 == S0 / S1 rule, on integers).
                    _ => x.min(y).max(x.max(y).min(z)),
                };
                v as u32 & 0xffff
            });
            super::rows::put16_keep(w, i, &r, en);
        }
        VPkMinimumF16 | VPkMaximumF16 | VPkMinimum3F16 | VPkMaximum3F16 => pk(w, i),
        _ => return None,
    }
    Some(Ok(()))
}

/// A float operation of this module in the format `f`.
fn float(w: &mut Wave, i: &Inst, kind: u8, f: Fmt, shape: Shape) {
    let wide = f.bits != 32;
    let e = Env::of(w.mode, wide);
    let ieee = ieee_mode(w);
    let m2 = move |a: u64, b: u64, max: bool| match kind {
        0 => minimum(f, a, b, max),
        1 => num(f, a, b, max),
        _ => u64::from(fl::minmax16(a as u32, b as u32, max, ieee)),
    };
    let combine = |a: u64, b: u64, c: u64| match shape {
        Shape::Two(max) => m2(a, b, max),
        Shape::Three(max) => m2(m2(a, b, max), c, max),
        Shape::Nested(inner, outer) => m2(m2(a, b, inner), c, outer),
        Shape::Med => med3(f, a, b, c, &m2),
    };
    let three = !matches!(shape, Shape::Two(_));
    let fin = |x: u64| f.flush(x, e.keep_in);
    let fout = |x: u64| f.flush(x, e.keep_out);
    match f.bits {
        16 => {
            let (a, en) = src16(w, i, 0);
            let (b, _) = src16(w, i, 1);
            let c = if three { src16(w, i, 2).0 } else { a };
            let m = |x: u32, n: usize| {
                fin(u64::from(mod16(
                    x,
                    i.abs >> n & 1 != 0,
                    i.neg >> n & 1 != 0,
                )))
            };
            let r: Row = std::array::from_fn(|l| {
                let v = combine(m(a[l], 0), m(b[l], 1), m(c[l], 2)) as u32;
                out16(i, fout(u64::from(v)) as u32)
            });
            // GFX9's min3/max3/med3_f16 are gfx9 op_sel operations (see `put16_keep`).
            super::rows::put16_keep(w, i, &r, en);
        }
        32 => {
            let (a, en) = src(w, i, 0);
            let (b, _) = src(w, i, 1);
            let c = if three { src(w, i, 2).0 } else { a };
            let m = |x: u32, n: usize| {
                fin(u64::from(mod32(
                    x,
                    i.abs >> n & 1 != 0,
                    i.neg >> n & 1 != 0,
                )))
            };
            let r: Row = std::array::from_fn(|l| {
                let v = combine(m(a[l], 0), m(b[l], 1), m(c[l], 2)) as u32;
                let v = fl::out32(f32::from_bits(v), i.omod, i.clamp).to_bits();
                fout(u64::from(v)) as u32
            });
            put(w, i, &r, en);
        }
        _ => {
            let (a, b) = (src64(w, i, 0, true), src64(w, i, 1, true));
            let m = |x: u64, n: usize| fin(mod64(x, i.abs >> n & 1 != 0, i.neg >> n & 1 != 0));
            let r: Row64 = std::array::from_fn(|l| {
                let v = combine(m(a[l], 0), m(b[l], 1), 0);
                fout(fl::out64(f64::from_bits(v), i.omod, i.clamp).to_bits())
            });
            put64(w, i.dst as usize, &r);
        }
    }
}

/// omod and clamp on an f16 result, when the instruction has them.
fn out16(i: &Inst, x: u32) -> u32 {
    if i.omod != 0 || i.clamp {
        fl::f2h(fl::out32(fl::h2f(x), i.omod, i.clamp))
    } else {
        x
    }
}

/// `v_pk_minimum_f16` / `v_pk_maximum_f16` (GFX12) and gfx950's `v_pk_minimum3_f16` /
/// `v_pk_maximum3_f16`: [`minimum`] per half with the VOP3P operand selects and per-half
/// negation; MODE's f16 denormal field on operands and results; clamp on the result.
fn pk(w: &mut Wave, i: &Inst) {
    let max = matches!(i.op, Op::VPkMaximumF16 | Op::VPkMaximum3F16);
    let three = matches!(i.op, Op::VPkMinimum3F16 | Op::VPkMaximum3F16);
    let e = Env::of(w.mode, true);
    let srcs: [Row; 3] = std::array::from_fn(|n| raw(w, i, n, Consts::F16));
    let r: Row = std::array::from_fn(|l| {
        let mut out = 0;
        for hf in 0..2 {
            let sel = if hf == 0 { i.op_sel } else { i.op_sel_hi };
            let negs = if hf == 0 { i.neg } else { i.abs };
            let x = |n: usize| {
                let v = mod16(
                    half(srcs[n][l], sel >> n & 1 != 0),
                    false,
                    negs >> n & 1 != 0,
                );
                H.flush(u64::from(v), e.keep_in)
            };
            let v = minimum(H, x(0), x(1), max);
            let v = if three { minimum(H, v, x(2), max) } else { v };
            let v = H.flush(v, e.keep_out) as u32;
            out |= out16_clamp(i, v) << (16 * hf);
        }
        out
    });
    write(w, i.dst as usize, &r);
}

/// Clamp (VOP3P has no omod) on an f16 result.
fn out16_clamp(i: &Inst, x: u32) -> u32 {
    if i.clamp {
        fl::f2h(fl::out32(fl::h2f(x), 0, true))
    } else {
        x
    }
}
