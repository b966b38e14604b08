//! Float min/max with MODE's denormal flushing: `v_med3_f32` under a non-default MODE,
//! and f16 / packed f16 min/max in every mode (their NaN rules, IEEE bit included, and
//! the flushing in one place).

use super::{flush16, flush32, Env};
use crate::exec::float as fl;
use crate::exec::inst::Inst;
use crate::exec::valu::{fsrc, ieee_mode, put, put16, src16, Row};
use crate::exec::vop3p::{half, raw, write, Consts};
use crate::exec::wave::Wave;
use crate::isa::Op;

/// `v_med3_f32` (GFX12 `v_med3_num_f32`): [`fl::med3`] on operands flushed per MODE's f32
/// input field, the result flushed per its output field.
pub(super) fn med3_f32(w: &mut Wave, i: &Inst) {
    let (e, ieee) = (Env::of(w.mode, false), ieee_mode(w));
    let (a, en) = fsrc(w, i, 0);
    let (b, _) = fsrc(w, i, 1);
    let (c, _) = fsrc(w, i, 2);
    let f = |x: f32| super::flush_f32(x, e.keep_in);
    let r: Row = std::array::from_fn(|l| {
        let v = fl::med3(f(a[l]), f(b[l]), f(c[l]), ieee);
        flush32(fl::out32(v, i.omod, i.clamp).to_bits(), e.keep_out)
    });
    put(w, i, &r, en);
}

/// Output modifier and clamp of an f16 result, only when the instruction has them.
fn out16(i: &Inst, x: u32, omod: u8) -> u32 {
    if omod != 0 || i.clamp {
        fl::f2h(fl::out32(fl::h2f(x), omod, i.clamp))
    } else {
        x
    }
}

/// `v_min_f16` / `v_max_f16` (GFX12 `v_min_num_f16` / `v_max_num_f16`): [`fl::minmax16`]
/// with the IEEE bit, operands and result flushed per MODE's f16 fields.
pub(crate) fn minmax_f16(w: &mut Wave, i: &Inst) {
    let (e, ieee, max) = (Env::of(w.mode, true), ieee_mode(w), i.op == Op::VMaxF16);
    let (a, en) = src16(w, i, 0);
    let (b, _) = src16(w, i, 1);
    let m = |x: u32, n: usize| {
        let x = fl::mod16(x, i.abs >> n & 1 != 0, i.neg >> n & 1 != 0);
        flush16(x, e.keep_in)
    };
    let r: Row = std::array::from_fn(|l| {
        let v = fl::minmax16(m(a[l], 0), m(b[l], 1), max, ieee);
        out16(i, flush16(v, e.keep_out), i.omod)
    });
    put16(w, i, &r, en);
}

/// `v_pk_min_f16` / `v_pk_max_f16` (GFX12 `_num_`): [`minmax_f16`] per half, with the
/// VOP3P operand selects and per-half negation.
pub(crate) fn pk_minmax_f16(w: &mut Wave, i: &Inst) {
    let (e, ieee, max) = (Env::of(w.mode, true), ieee_mode(w), i.op == Op::VPkMaxF16);
    let (a, b) = (raw(w, i, 0, Consts::F16), raw(w, i, 1, Consts::F16));
    let r: Row = std::array::from_fn(|l| {
        let mut out = 0;
        for hf in 0..2 {
            let sel = if hf == 0 { i.op_sel } else { i.op_sel_hi };
            let negs = if hf == 0 { i.neg } else { i.abs };
            let m = |x: u32, n: usize| {
                let x = fl::mod16(half(x, sel >> n & 1 != 0), false, negs >> n & 1 != 0);
                flush16(x, e.keep_in)
            };
            let v = fl::minmax16(m(a[l], 0), m(b[l], 1), max, ieee);
            out |= out16(i, flush16(v, e.keep_out), 0) << (16 * hf);
        }
        out
    });
    write(w, i.dst as usize, &r);
}
