//! VOP3P float operations under a non-default MODE: packed f16 and f32 arithmetic and
//! the mixed-precision FMAs.

use super::{arith32, flush16, flush32, fma_odd, ftz, h, quad, s, Env};
use crate::exec::float as fl;
use crate::exec::inst::Inst;
use crate::exec::vop3p::{half, pk_f32, raw, write, write_mix, Consts};
use crate::exec::wave::{Wave, LANES};
use crate::exec::FaultReason;
use crate::isa::Op;
use rustc_apfloat::ieee::{Half, Single};
use rustc_apfloat::{Float, FloatConvert};

type Row = [u32; LANES];

/// Executes `i` under the wave's non-default MODE if it is one of the packed float
/// operations; `None` hands it to the default path.
#[cold]
#[inline(never)]
pub(crate) fn exec_vop3p(w: &mut Wave, i: &Inst) -> Option<Result<(), FaultReason>> {
    use Op::*;
    let (e32, e16) = (Env::of(w.mode, false), Env::of(w.mode, true));
    match i.op {
        VPkAddF16 => pk16::<2>(w, i, e16, 0),
        VPkMulF16 => pk16::<2>(w, i, e16, 1),
        VPkFmaF16 => pk16::<3>(w, i, e16, 2),
        VPkAddF32 => pk32::<2>(w, i, e32, 0),
        VPkMulF32 => pk32::<2>(w, i, e32, 1),
        VPkFmaF32 => pk32::<3>(w, i, e32, 2),
        VFmaMixF32 | VFmaMixloF16 | VFmaMixhiF16 => mix(w, i, e32, e16),
        _ => return None,
    }
    Some(Ok(()))
}

/// Packed f16 `op` (0 add, 1 mul, 2 fma) over `N` sources, each half rounded once in `e`.
fn pk16<const N: usize>(w: &mut Wave, i: &Inst, e: Env, op: u8) {
    let srcs: [Row; N] = std::array::from_fn(|n| raw(w, i, n, Consts::F16));
    let r: Row = std::array::from_fn(|l| {
        let mut out = 0;
        for hf in 0..2 {
            let sel = if hf == 0 { i.op_sel } else { i.op_sel_hi };
            let negs = if hf == 0 { i.neg } else { i.abs };
            let x: [u32; 3] = std::array::from_fn(|n| {
                if n >= N {
                    return 0;
                }
                let v = fl::mod16(
                    half(srcs[n][l], sel >> n & 1 != 0),
                    false,
                    negs >> n & 1 != 0,
                );
                flush16(v, e.keep_in)
            });
            let v = match op {
                0 => h(x[0]).add_r(h(x[1]), e.round),
                1 => h(x[0]).mul_r(h(x[1]), e.round),
                _ => h(x[0]).mul_add_r(h(x[1]), h(x[2]), e.round),
            }
            .value;
            let v = if v.is_nan() {
                // NaN propagation as on the default path.
                let [a, b, c] = x.map(|v| fl::h2f(v) as f64);
                fl::d2h(match op {
                    0 => a + b,
                    1 => a * b,
                    _ => a.mul_add(b, c),
                })
            } else {
                flush16(v.to_bits() as u32, e.keep_out)
            };
            let v = if i.clamp {
                fl::f2h(fl::out32(fl::h2f(v), 0, true))
            } else {
                v
            };
            out |= v << (16 * hf);
        }
        out
    });
    write(w, i.dst as usize, &r);
}

/// Packed f32 `op` (0 add, 1 mul, 2 fma) on register pairs, each half in `e`.
fn pk32<const N: usize>(w: &mut Wave, i: &Inst, e: Env, op: u8) {
    pk_f32::<N>(w, i, |x| {
        let at = |n: usize| x.get(n).copied().unwrap_or(0.0);
        arith32(e, op, at(0), at(1), at(2))
    });
}

/// `v_fma_mix_f32` / `v_fma_mixlo_f16` / `v_fma_mixhi_f16`: each operand (f16 where its
/// `op_sel_hi` bit is set, else f32) flushed per its own format's input field; the exact
/// `a * b + c` rounded once into the result format in that format's direction.
fn mix(w: &mut Wave, i: &Inst, e32: Env, e16: Env) {
    use Op::*;
    let srcs: [Row; 3] = std::array::from_fn(|n| {
        let is16 = i.op_sel_hi >> n & 1 != 0;
        raw(w, i, n, if is16 { Consts::F16 } else { Consts::Bits })
    });
    let r: Row = std::array::from_fn(|l| {
        let mut host = [0f64; 3];
        let q: [_; 3] = std::array::from_fn(|n| {
            let (neg, abs) = (i.neg >> n & 1 != 0, i.abs >> n & 1 != 0);
            if i.op_sel_hi >> n & 1 != 0 {
                let x = fl::mod16(half(srcs[n][l], i.op_sel >> n & 1 != 0), abs, neg);
                let x = flush16(x, e16.keep_in);
                host[n] = fl::h2f(x) as f64;
                quad(h(x))
            } else {
                let x = flush32(fl::mod32(srcs[n][l], abs, neg), e32.keep_in);
                host[n] = f32::from_bits(x) as f64;
                quad(s(x))
            }
        });
        let round = if i.op == VFmaMixF32 {
            e32.round
        } else {
            e16.round
        };
        let v = fma_odd(q[0], q[1], q[2], round);
        let mut loses = false;
        if i.op == VFmaMixF32 {
            let v = if v.is_nan() {
                host[0].mul_add(host[1], host[2]) as f32
            } else {
                let v: Single = v.convert_r(e32.round, &mut loses).value;
                f32::from_bits(ftz(v, e32.keep_out).to_bits() as u32)
            };
            fl::out32(v, 0, i.clamp).to_bits()
        } else if v.is_nan() {
            fl::d2h(fl::out64(host[0].mul_add(host[1], host[2]), 0, i.clamp))
        } else {
            let v: Half = v.convert_r(e16.round, &mut loses).value;
            let v = ftz(v, e16.keep_out).to_bits() as u32;
            if i.clamp {
                fl::f2h(fl::out32(fl::h2f(v), 0, true))
            } else {
                v
            }
        }
    });
    write_mix(w, i, &r);
}
