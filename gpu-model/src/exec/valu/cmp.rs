//! VOPC: vector compares and class tests, writing a lane mask (and EXEC for v_cmpx).

use super::kernels::{dsrc, fsrc, hsrc};
use super::rows::{mask_of, src, src16, src64};
use crate::exec::decode::Inst;
use crate::exec::float::{self as fl, mod16};
use crate::exec::fmode;
use crate::exec::op::Op;
use crate::exec::wave::Wave;
use crate::exec::FaultReason;

/// VOPC: compare and write the mask to `sdst` (and EXEC for v_cmpx).
pub(crate) fn compare(w: &mut Wave, i: &Inst) -> Result<(), FaultReason> {
    use Op::*;
    let cond = i.cond;
    // Compares are exact: of MODE only the input denormal flushing applies (`fmode`).
    let (k32, k64) = (w.mode >> 4 & 1 != 0, w.mode >> 6 & 1 != 0);
    let m = match i.op {
        VCmpF32 | VCmpxF32 => {
            let (a, en) = fsrc(w, i, 0);
            let (b, _) = fsrc(w, i, 1);
            let f = |x: f32| fmode::flush_f32(x, k32) as f64;
            mask_of(w, |l| fl::fcmp(cond, f(a[l]), f(b[l]))) & en
        }
        VCmpF64 | VCmpxF64 => {
            let (a, b) = (dsrc(w, i, 0), dsrc(w, i, 1));
            let f = |x: f64| fmode::flush_f64(x, k64);
            mask_of(w, |l| fl::fcmp(cond, f(a[l]), f(b[l])))
        }
        VCmpF16 | VCmpxF16 => {
            let (a, en) = hsrc(w, i, 0);
            let (b, _) = hsrc(w, i, 1);
            let f = |x: f32| fmode::flush_f16_as_f32(x, k64) as f64;
            mask_of(w, |l| fl::fcmp(cond, f(a[l]), f(b[l]))) & en
        }
        VCmpI32 | VCmpxI32 => {
            let (a, en) = src(w, i, 0);
            let (b, _) = src(w, i, 1);
            mask_of(w, |l| fl::icmp(cond, a[l] as i32, b[l] as i32)) & en
        }
        VCmpU32 | VCmpxU32 => {
            let (a, en) = src(w, i, 0);
            let (b, _) = src(w, i, 1);
            mask_of(w, |l| fl::icmp(cond, a[l], b[l])) & en
        }
        VCmpI16 | VCmpxI16 => {
            let (a, en) = src16(w, i, 0);
            let (b, _) = src16(w, i, 1);
            mask_of(w, |l| fl::icmp(cond, a[l] as i16, b[l] as i16)) & en
        }
        VCmpU16 | VCmpxU16 => {
            let (a, en) = src16(w, i, 0);
            let (b, _) = src16(w, i, 1);
            mask_of(w, |l| fl::icmp(cond, a[l] as u16, b[l] as u16)) & en
        }
        VCmpI64 | VCmpxI64 => {
            let (a, b) = (src64(w, i, 0, false), src64(w, i, 1, false));
            mask_of(w, |l| fl::icmp(cond, a[l] as i64, b[l] as i64))
        }
        VCmpU64 | VCmpxU64 => {
            let (a, b) = (src64(w, i, 0, false), src64(w, i, 1, false));
            mask_of(w, |l| fl::icmp(cond, a[l], b[l]))
        }
        VCmpClassF32 | VCmpxClassF32 => {
            let (a, en) = fsrc(w, i, 0);
            let (b, _) = src(w, i, 1);
            mask_of(w, |l| fl::class32(a[l]) & b[l] != 0) & en
        }
        VCmpClassF16 | VCmpxClassF16 => {
            let (a, en) = src16(w, i, 0);
            let (b, _) = src(w, i, 1);
            let (abs, neg) = (i.abs & 1 != 0, i.neg & 1 != 0);
            mask_of(w, |l| fl::class16(mod16(a[l], abs, neg)) & b[l] != 0) & en
        }
        VCmpClassF64 | VCmpxClassF64 => {
            let a = dsrc(w, i, 0);
            let (b, _) = src(w, i, 1);
            mask_of(w, |l| fl::class64(a[l]) & b[l] != 0)
        }
        _ => return Err(FaultReason::Unimplemented(i.op.name())),
    };
    let x = matches!(
        i.op,
        VCmpxF32
            | VCmpxF64
            | VCmpxF16
            | VCmpxI32
            | VCmpxU32
            | VCmpxI16
            | VCmpxU16
            | VCmpxI64
            | VCmpxU64
            | VCmpxClassF32
            | VCmpxClassF64
            | VCmpxClassF16
    );
    w.write_mask(i.sdst, m);
    if x {
        w.set_exec(m);
    }
    Ok(())
}
