//! GFX12 scalar float operations (SOP1/SOP2/SOPK f32 in SGPRs) under a non-default MODE.

use super::{arith32, flush_f32, Env};
use crate::exec::float as fl;
use crate::exec::inst::Inst;
use crate::exec::wave::Wave;
use crate::isa::Op;
use rustc_apfloat::ieee::Single;
use rustc_apfloat::Float;

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
            | SMinNumF32
            | SMaxNumF32
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
        SMinNumF32 | SMaxNumF32 => {
            let m = fl::minmax32(f(a), f(b), i.op == SMaxNumF32, false);
            super::flush_f32(m, e.keep_out)
        }
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
