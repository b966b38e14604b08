//! VOPC: vector compares and class tests, writing a lane mask (and EXEC for v_cmpx).

use super::kernels::{dsrc, fsrc, hsrc};
use super::rows::{mask_of, src, src16, src64};
use crate::exec::float::{self as fl, mod16};
use crate::exec::fmode;
use crate::exec::inst::Inst;
use crate::exec::wave::Wave;
use crate::exec::FaultReason;
use crate::isa::CmpType;

/// VOPC: compare and write the mask to `sdst` (and EXEC for v_cmpx).
pub(crate) fn compare(w: &mut Wave, i: &Inst) -> Result<(), FaultReason> {
    use CmpType::*;
    let cond = i.cond;
    // Compares are exact: of MODE only the input denormal flushing applies (`fmode`).
    let (k32, k64) = (w.mode >> 4 & 1 != 0, w.mode >> 6 & 1 != 0);
    if !i.cmp {
        return Err(FaultReason::Unimplemented(i.mnemonic()));
    }
    let m = match i.cty {
        F32 => {
            let (a, en) = fsrc(w, i, 0);
            let (b, _) = fsrc(w, i, 1);
            let f = |x: f32| fmode::flush_f32(x, k32) as f64;
            mask_of(w, |l| fl::fcmp(cond, f(a[l]), f(b[l]))) & en
        }
        F64 => {
            let (a, b) = (dsrc(w, i, 0), dsrc(w, i, 1));
            let f = |x: f64| fmode::flush_f64(x, k64);
            mask_of(w, |l| fl::fcmp(cond, f(a[l]), f(b[l])))
        }
        F16 => {
            let (a, en) = hsrc(w, i, 0);
            let (b, _) = hsrc(w, i, 1);
            let f = |x: f32| fmode::flush_f16_as_f32(x, k64) as f64;
            mask_of(w, |l| fl::fcmp(cond, f(a[l]), f(b[l]))) & en
        }
        I32 => {
            let (a, en) = src(w, i, 0);
            let (b, _) = src(w, i, 1);
            mask_of(w, |l| fl::icmp(cond, a[l] as i32, b[l] as i32)) & en
        }
        U32 => {
            let (a, en) = src(w, i, 0);
            let (b, _) = src(w, i, 1);
            mask_of(w, |l| fl::icmp(cond, a[l], b[l])) & en
        }
        I16 => {
            let (a, en) = src16(w, i, 0);
            let (b, _) = src16(w, i, 1);
            mask_of(w, |l| fl::icmp(cond, a[l] as i16, b[l] as i16)) & en
        }
        U16 => {
            let (a, en) = src16(w, i, 0);
            let (b, _) = src16(w, i, 1);
            mask_of(w, |l| fl::icmp(cond, a[l] as u16, b[l] as u16)) & en
        }
        I64 => {
            let (a, b) = (src64(w, i, 0, false), src64(w, i, 1, false));
            mask_of(w, |l| fl::icmp(cond, a[l] as i64, b[l] as i64))
        }
        U64 => {
            let (a, b) = (src64(w, i, 0, false), src64(w, i, 1, false));
            mask_of(w, |l| fl::icmp(cond, a[l], b[l]))
        }
        ClassF32 => {
            let (a, en) = fsrc(w, i, 0);
            let (b, _) = src(w, i, 1);
            mask_of(w, |l| fl::class32(a[l]) & b[l] != 0) & en
        }
        ClassF16 => {
            let (a, en) = src16(w, i, 0);
            let (b, _) = src(w, i, 1);
            let (abs, neg) = (i.abs & 1 != 0, i.neg & 1 != 0);
            mask_of(w, |l| fl::class16(mod16(a[l], abs, neg)) & b[l] != 0) & en
        }
        ClassF64 => {
            let a = dsrc(w, i, 0);
            let (b, _) = src(w, i, 1);
            mask_of(w, |l| fl::class64(a[l]) & b[l] != 0)
        }
    };
    w.write_mask(i.sdst, m);
    if i.cmpx {
        w.set_exec(m);
    }
    Ok(())
}
