//! 16-bit operations: f16 multiply-adds (`v_mad_f16`, `v_mac/madmk/madak_f16`, GFX12
//! `v_fmac/fmamk/fmaak_f16`, `v_pk_fmac_f16`, the GFX9 `_legacy` forms), `v_div_fixup_f16`,
//! `v_frexp_*_f16`, `v_fract_f16`, `v_sin/cos_f16`, `v_cvt_norm_*_f16`, GFX12 `v_s_*_f16`,
//! and the 16-bit integer and bitwise operations (`v_mad_u16/i16`, `v_add/sub_i16`,
//! GFX12 `v_add/sub_nc_*16`, `v_and/or/xor/not/mov/swap_b16`, `v_cndmask_b16`,
//! `v_cvt_i32_i16`, `v_cvt_u32_u16`, `v_sat_pk_u8_i16`), with `v_add/sub_i32` and GFX12
//! `v_add/sub_nc_i32`.
//!
//! Semantics: the CDNA4 / RDNA4 ISA guides' pseudocode. `v_mad_f16` and `v_mac_f16` are
//! unfused (`S0.f16 * S1.f16 + S2.f16`: the product is rounded to f16, then the sum),
//! the `fma` forms fused. Which half a result writes and what happens to the other: see
//! [`super::rows::put16`] (GFX8-era operations, zeroing on GFX9) and
//! [`super::rows::put16_keep`] (the gfx9 `op_sel` operations); the guides write
//! `D0 = { 16'0, tmp }` for `v_mac_f16`, `v_madmk_f16`, `v_madak_f16` and the `_legacy`
//! forms (unless `op_sel[3]` picks the high half).
//!
//! MODE: f16 arithmetic rounds in the direction of MODE[3:2] and flushes operands and
//! results per MODE[7:6] ([`super::super::fmode`]'s table lists each operation).

use super::rows::{put, put16, put16_keep, src, src16, src_pk, Row};
use crate::exec::float::{self as fl, mod16};
use crate::exec::fmode::{flush16, h, Env};
use crate::exec::inst::Inst;
use crate::exec::vop3p::Consts;
use crate::exec::wave::{Wave, LANES};
use crate::exec::FaultReason;
use crate::isa::Op;
use rustc_apfloat::{Float, Round};

/// How an f16 multiply-add rounds.
#[derive(Clone, Copy, PartialEq)]
enum Mad {
    /// `a * b + c`, the product rounded first.
    Unfused,
    /// `fma(a, b, c)`.
    Fused,
}

/// `a * b + c` on f16 bit patterns in `e` (operands already flushed).
fn mad16(e: Env, kind: Mad, a: u32, b: u32, c: u32) -> u32 {
    let (x, y, z) = (h(a), h(b), h(c));
    let v = match kind {
        Mad::Fused => x.mul_add_r(y, z, e.round).value,
        Mad::Unfused => {
            let p = x.mul_r(y, e.round).value;
            let p = h(flush16(p.to_bits() as u32, e.keep_out));
            p.add_r(z, e.round).value
        }
    };
    if v.is_nan() {
        // NaN propagation as the executor's other f16 arithmetic (a quiet NaN).
        return fl::f2h(fl::h2f(a) * fl::h2f(b) + fl::h2f(c));
    }
    flush16(v.to_bits() as u32, e.keep_out)
}

/// omod and clamp of an f16 result, when the instruction has them.
fn out16(i: &Inst, x: u32) -> u32 {
    if i.omod != 0 || i.clamp {
        fl::f2h(fl::out32(fl::h2f(x), i.omod, i.clamp))
    } else {
        x
    }
}

/// f16 source `n` with abs/neg, flushed per `e`.
fn hs(w: &Wave, i: &Inst, n: usize, e: Env) -> (Row, u64) {
    let (r, en) = src16(w, i, n);
    let (abs, neg) = (i.abs >> n & 1 != 0, i.neg >> n & 1 != 0);
    (r.map(|x| flush16(mod16(x, abs, neg), e.keep_in)), en)
}

/// Whether the GFX9 result of `op` zeroes the other half of the register (the GFX8-era
/// operations and their `_legacy` names; see [`super::rows::put16_keep`]).
fn zeroes_high(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        VMadLegacyF16
            | VFmaLegacyF16
            | VDivFixupLegacyF16
            | VMadLegacyU16
            | VMadLegacyI16
            | VMacF16
            | VMadmkF16
            | VMadakF16
            | VFractF16
            | VFrexpMantF16
            | VFrexpExpI16F16
            | VSinF16
            | VCosF16
            | VCvtNormI16F16
            | VCvtNormU16F16
            | VSatPkU8I16
    )
}

/// Writes a 16-bit result with the high-half rule of `i.op`.
fn put_h(w: &mut Wave, i: &Inst, r: &Row, en: u64) {
    if zeroes_high(i.op) {
        put16(w, i, r, en)
    } else {
        put16_keep(w, i, r, en)
    }
}

/// The 16-bit literal of `v_madmk/madak/fmamk/fmaak_f16` (SIMM16: its low half).
fn k16(i: &Inst) -> u32 {
    i.lit & 0xffff
}

/// Executes one of this module's operations; `None` for others.
pub(crate) fn exec(w: &mut Wave, i: &Inst) -> Option<Result<(), FaultReason>> {
    use Op::*;
    let e = Env::of(w.mode, true);
    match i.op {
        VMadF16 | VMadLegacyF16 | VFmaLegacyF16 => {
            let kind = if i.op == VFmaLegacyF16 {
                Mad::Fused
            } else {
                Mad::Unfused
            };
            let ((a, en), (b, _), (c, _)) = (hs(w, i, 0, e), hs(w, i, 1, e), hs(w, i, 2, e));
            let r: Row = std::array::from_fn(|l| out16(i, mad16(e, kind, a[l], b[l], c[l])));
            put_h(w, i, &r, en);
        }
        // D = S0 * S1 + D (D's low half; GFX12 true16: the half vdst names).
        VMacF16 | VFmacF16 | VMadmkF16 | VMadakF16 | VFmamkF16 | VFmaakF16 => {
            let kind = if matches!(i.op, VMacF16 | VMadmkF16 | VMadakF16) {
                Mad::Unfused
            } else {
                Mad::Fused
            };
            let ((a, en), (b, _)) = (hs(w, i, 0, e), hs(w, i, 1, e));
            let d = w.v[i.dst as usize % w.v.len()];
            let dhi = i.t16 && i.op_sel & 8 != 0;
            let k = flush16(k16(i), e.keep_in);
            let r: Row = std::array::from_fn(|l| {
                let acc = flush16(if dhi { d[l] >> 16 } else { d[l] & 0xffff }, e.keep_in);
                let (x, y, z) = match i.op {
                    VMadmkF16 | VFmamkF16 => (a[l], k, b[l]),
                    VMadakF16 | VFmaakF16 => (a[l], b[l], k),
                    _ => (a[l], b[l], acc),
                };
                out16(i, mad16(e, kind, x, y, z))
            });
            put_h(w, i, &r, en);
        }
        VPkFmacF16 => {
            // Per half: D.h = fma(S0.h, S1.h, D.h); VOP3 (GFX9) abs/neg on both halves. An
            // inline float constant is the f16 value in the low half and 0 in the high one
            // (`src_pk`), not the f32 pattern (whose low half is 0 for 1.0, 2.0, ...).
            let (a, en) = src_pk(w, i, 0, Consts::F16);
            let (b, _) = src_pk(w, i, 1, Consts::F16);
            let d = w.v[i.dst as usize % w.v.len()];
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
                [0, 16].iter().fold(0, |acc, &s| {
                    let f = |v: u32| flush16((v >> s) & 0xffff, e.keep_in);
                    acc | out16(i, mad16(e, Mad::Fused, f(x), f(y), f(d[l]))) << s
                })
            });
            put(w, i, &r, en);
        }
        VDivFixupF16 | VDivFixupLegacyF16 => {
            // MODE: none, like v_div_fixup_f32/f64 (selects special values).
            let m = |n: usize| {
                let (r, en) = src16(w, i, n);
                let (abs, neg) = (i.abs >> n & 1 != 0, i.neg >> n & 1 != 0);
                (r.map(|x| mod16(x, abs, neg)), en)
            };
            let ((q, en), (d, _), (n, _)) = (m(0), m(1), m(2));
            let r: Row = std::array::from_fn(|l| out16(i, div_fixup16(q[l], d[l], n[l])));
            put_h(w, i, &r, en);
        }
        VFrexpMantF16 | VFrexpExpI16F16 => {
            let (a, en) = hs(w, i, 0, e);
            let r: Row = std::array::from_fn(|l| {
                let (m, x) = fl::frexp64(f64::from(fl::h2f(a[l])));
                if i.op == VFrexpMantF16 {
                    out16(i, fl::d2h(m))
                } else {
                    x as u32 & 0xffff
                }
            });
            put_h(w, i, &r, en);
        }
        VFractF16 => {
            // S0 + -floor(S0), rounded in MODE, capped below 1.0 (as V_FRACT_F32).
            let (a, en) = hs(w, i, 0, e);
            let r: Row = std::array::from_fn(|l| {
                let x = h(a[l]);
                let v = if x.is_finite() {
                    let f = x.round_to_integral(Round::TowardNegative).value;
                    let v = x.sub_r(f, e.round).value;
                    let below_one = h(0x3bff);
                    let v = if v > below_one { below_one } else { v };
                    flush16(v.to_bits() as u32, e.keep_out)
                } else {
                    fl::f2h(fl::fract32(fl::h2f(a[l])))
                };
                out16(i, v)
            });
            put_h(w, i, &r, en);
        }
        VSinF16 | VCosF16 => {
            // sin/cos(S0 * 2 pi): an approximation, computed in f64 and rounded once to
            // nearest f16 (as the other f16 transcendentals); denormals per MODE. The
            // argument is reduced first, 2 pi (x - round(x)), exactly in f64 (every f16 is),
            // so that the guide's table holds: V_SIN_F16(+-0x7bff) = +0, V_COS = 1
            // (CDNA3 guide, V_SIN_F16 / V_COS_F16); a zero input keeps its sign for sin.
            let (a, en) = hs(w, i, 0, e);
            let r: Row = std::array::from_fn(|l| {
                let x = f64::from(fl::h2f(a[l]));
                let t = if x == 0.0 {
                    x
                } else {
                    (x - x.round()) * std::f64::consts::TAU
                };
                let v = if i.op == VSinF16 { t.sin() } else { t.cos() };
                out16(i, flush16(fl::d2h(v), e.keep_out))
            });
            put_h(w, i, &r, en);
        }
        VCvtNormI16F16 | VCvtNormU16F16 => {
            let (a, en) = hs(w, i, 0, e);
            let signed = i.op == VCvtNormI16F16;
            let r: Row = std::array::from_fn(|l| norm16(f64::from(fl::h2f(a[l])), signed));
            put_h(w, i, &r, en);
        }
        VSExpF16 | VSLogF16 | VSRcpF16 | VSRsqF16 | VSSqrtF16 => {
            // GFX12 scalar f16 transcendentals: D0.f16 = f(S0.f16); D0[31:16] = 0.
            let c = i.src[0];
            let raw = if c >= 256 {
                w.v[(c - 256) as usize][0]
            } else {
                w.sread16(c, i.lit)
            };
            let x = if i.op_sel & 1 != 0 { raw >> 16 } else { raw };
            let x = flush16(mod16(x, i.abs & 1 != 0, i.neg & 1 != 0), e.keep_in);
            let x = fl::h2f(x);
            let v = match i.op {
                VSExpF16 => x.exp2(),
                VSLogF16 => x.log2(),
                VSRcpF16 => 1.0 / x,
                VSRsqF16 => 1.0 / x.sqrt(),
                _ => x.sqrt(),
            };
            let v = out16(i, flush16(fl::f2h(v), e.keep_out));
            w.swrite(i.dst, v);
        }
        _ => return int16(w, i),
    }
    Some(Ok(()))
}

/// V_DIV_FIXUP_F16 (RDNA4 / CDNA4 guides): the special cases of `n / d`, else the
/// quotient `q` with the sign of the division. No overflow/underflow cases (unlike f32).
fn div_fixup16(q: u32, d: u32, n: u32) -> u32 {
    let nan = |x: u32| x & 0x7fff > 0x7c00;
    let zero = |x: u32| x & 0x7fff == 0;
    let inf = |x: u32| x & 0x7fff == 0x7c00;
    let sign = ((d ^ n) & 0x8000) as u16 as u32;
    if nan(n) {
        n | 0x200
    } else if nan(d) {
        d | 0x200
    } else if (zero(d) && zero(n)) || (inf(d) && inf(n)) {
        0xfe00
    } else if zero(d) || inf(n) {
        sign | 0x7c00
    } else if inf(d) || zero(n) {
        sign
    } else {
        sign | (q & 0x7fff)
    }
}

/// f16_to_snorm / f16_to_unorm (also the f32 forms): the value clamped to [-1, 1]
/// ([0, 1]) and scaled by 32767 (65535), rounded to nearest even; NaN gives 0. Documented
/// choice: the guides name the functions without defining them; this is the D3D/OpenGL
/// normalized-integer conversion they are named after.
pub(crate) fn norm16(x: f64, signed: bool) -> u32 {
    if x.is_nan() {
        return 0;
    }
    if signed {
        (x.clamp(-1.0, 1.0) * 32767.0).round_ties_even() as i32 as u32 & 0xffff
    } else {
        (x.clamp(0.0, 1.0) * 65535.0).round_ties_even() as u32
    }
}

/// The 16-bit integer and bitwise operations (and `v_add/sub_i32`).
fn int16(w: &mut Wave, i: &Inst) -> Option<Result<(), FaultReason>> {
    use Op::*;
    match i.op {
        VMadU16 | VMadI16 | VMadLegacyU16 | VMadLegacyI16 => {
            let signed = matches!(i.op, VMadI16 | VMadLegacyI16);
            let (a, en) = src16(w, i, 0);
            let (b, _) = src16(w, i, 1);
            let (c, _) = src16(w, i, 2);
            let r: Row = std::array::from_fn(|l| {
                let k = |x: u32| {
                    if signed {
                        x as u16 as i16 as i64
                    } else {
                        x as u16 as i64
                    }
                };
                sat16(k(a[l]) * k(b[l]) + k(c[l]), i.clamp, signed)
            });
            put_h(w, i, &r, en);
        }
        VAddI16 | VSubI16 | VAddNcI16 | VSubNcI16 | VAddNcU16 | VSubNcU16 => {
            let signed = matches!(i.op, VAddI16 | VSubI16 | VAddNcI16 | VSubNcI16);
            let sub = matches!(i.op, VSubI16 | VSubNcI16 | VSubNcU16);
            let (a, en) = src16(w, i, 0);
            let (b, _) = src16(w, i, 1);
            let r: Row = std::array::from_fn(|l| {
                let k = |x: u32| {
                    if signed {
                        x as u16 as i16 as i64
                    } else {
                        x as u16 as i64
                    }
                };
                let v = if sub {
                    k(a[l]) - k(b[l])
                } else {
                    k(a[l]) + k(b[l])
                };
                sat16(v, i.clamp, signed)
            });
            put16_keep(w, i, &r, en);
        }
        VAddI32 | VSubI32 | VAddNcI32 | VSubNcI32 => {
            let sub = matches!(i.op, VSubI32 | VSubNcI32);
            let (a, en) = src(w, i, 0);
            let (b, _) = src(w, i, 1);
            let r: Row = std::array::from_fn(|l| {
                let (x, y) = (a[l] as i32 as i64, b[l] as i32 as i64);
                let v = if sub { x - y } else { x + y };
                if i.clamp {
                    v.clamp(i32::MIN as i64, i32::MAX as i64) as u32
                } else {
                    v as u32
                }
            });
            put(w, i, &r, en);
        }
        VAndB16 | VOrB16 | VXorB16 => {
            let (a, en) = src16(w, i, 0);
            let (b, _) = src16(w, i, 1);
            let r: Row = std::array::from_fn(|l| match i.op {
                VAndB16 => a[l] & b[l],
                VOrB16 => a[l] | b[l],
                _ => a[l] ^ b[l],
            });
            put16(w, i, &r, en);
        }
        VNotB16 | VMovB16 => {
            let (a, en) = src16(w, i, 0);
            let r: Row = std::array::from_fn(|l| {
                if i.op == VNotB16 {
                    !a[l] & 0xffff
                } else {
                    a[l]
                }
            });
            put16(w, i, &r, en);
        }
        VCvtI32I16 | VCvtU32U16 => {
            let (a, en) = src16(w, i, 0);
            let r: Row = std::array::from_fn(|l| {
                if i.op == VCvtI32I16 {
                    a[l] as u16 as i16 as i32 as u32
                } else {
                    a[l] & 0xffff
                }
            });
            put(w, i, &r, en);
        }
        VSatPkU8I16 => {
            // Each i16 half of S0 saturated into a byte: SAT8 (<= 0 -> 0, >= 255 -> 255).
            let (a, en) = src(w, i, 0);
            let sat = |x: u32| (x as u16 as i16).clamp(0, 255) as u32;
            let r: Row = std::array::from_fn(|l| sat(a[l]) | sat(a[l] >> 16) << 8);
            put_h(w, i, &r, en);
        }
        VCndmaskB16 => {
            // D.u16 = VCC[lane] ? S1.u16 : S0.u16, the VOP3 float modifiers on the halves.
            let (a, en) = src16(w, i, 0);
            let (b, _) = src16(w, i, 1);
            let m = w.mask_operand(i.src[2], i.lit);
            let r: Row = std::array::from_fn(|l| {
                if m >> l & 1 != 0 {
                    mod16(b[l], i.abs & 2 != 0, i.neg & 2 != 0)
                } else {
                    mod16(a[l], i.abs & 1 != 0, i.neg & 1 != 0)
                }
            });
            put16(w, i, &r, en);
        }
        VSwapB16 => swap16(w, i),
        _ => return None,
    }
    Some(Ok(()))
}

/// `v` as a 16-bit result: wrapped, or (clamp) saturated to the signed/unsigned range.
fn sat16(v: i64, clamp: bool, signed: bool) -> u32 {
    match (clamp, signed) {
        (false, _) => v as u32 & 0xffff,
        (true, true) => v.clamp(i16::MIN as i64, i16::MAX as i64) as u32 & 0xffff,
        (true, false) => v.clamp(0, u16::MAX as i64) as u32,
    }
}

/// GFX12 `v_swap_b16 vdst, vsrc`: exchanges two 16-bit halves (each operand's half from
/// its true16 bit) in the active lanes.
fn swap16(w: &mut Wave, i: &Inst) {
    let exec = w.exec();
    let s = i.src[0].saturating_sub(256) as usize % w.v.len();
    let d = i.dst as usize % w.v.len();
    let (sh, dh) = (
        if i.op_sel & 1 != 0 { 16 } else { 0 },
        if i.op_sel & 8 != 0 { 16 } else { 0 },
    );
    for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
        let (x, y) = ((w.v[s][l] >> sh) & 0xffff, (w.v[d][l] >> dh) & 0xffff);
        w.v[d][l] = (w.v[d][l] & !(0xffff << dh)) | x << dh;
        w.v[s][l] = (w.v[s][l] & !(0xffff << sh)) | y << sh;
    }
}
