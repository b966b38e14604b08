//! Scalar ALU (SOP1, SOP2, SOPC, SOPK) and program control (SOPP).
//!
//! This file computes the integer, bit and GFX12 f32 operations; [`control`] the program
//! flow, hardware registers, messages and mode switches; [`barrier`] the GFX12 split
//! barriers; [`relative`] the M0-relative SGPR moves; the GFX12 f16 operations, float
//! compares, conversions and IEEE minimum/maximum run in `fmode::scalar`, MODE-aware in
//! every mode; [`vmode`] applies the GFX9 GPR-indexing and VSKIP modes to vector
//! instructions.

mod barrier;
mod control;
mod relative;
mod vmode;

pub use barrier::WorkgroupSync;
pub(crate) use vmode::{vector_mode, Vector, VECTOR_MODES};

use super::float::first_nan32;
use super::inst::{Inst, Unit};
use super::wave::{Flow, Wave};
use super::{ExecCtx, FaultReason};
use crate::isa::Op;
use crate::Family;
use control::simm16;

/// Bit-field extract: `spec` holds offset in 5:0 (or 5:0 for 64-bit) and width in 22:16.
fn bfe32(v: u32, spec: u32, signed: bool) -> u32 {
    let off = spec & 31;
    let width = (spec >> 16) & 0x7f;
    if width == 0 {
        return 0;
    }
    let x = v >> off;
    if width >= 32 {
        return x;
    }
    let m = x & ((1u32 << width) - 1);
    if signed {
        ((m << (32 - width)) as i32 >> (32 - width)) as u32
    } else {
        m
    }
}

fn bfe64(v: u64, spec: u32, signed: bool) -> u64 {
    let off = spec & 63;
    let width = (spec >> 16) & 0x7f;
    if width == 0 {
        return 0;
    }
    let x = v >> off;
    if width >= 64 {
        return x;
    }
    let m = x & ((1u64 << width) - 1);
    if signed {
        ((m << (64 - width)) as i64 >> (64 - width)) as u64
    } else {
        m
    }
}

/// Applies a binary operation (keeps the per-op closures in the macros below named).
#[inline(always)]
fn apply<T, R>(f: impl Fn(T, T) -> R, a: T, b: T) -> R {
    f(a, b)
}

/// Executes a scalar instruction.
pub(crate) fn exec(w: &mut Wave, ctx: &mut ExecCtx<'_>, i: &Inst) -> Result<Flow, FaultReason> {
    use Op::*;
    // GFX12 float ops under a non-default MODE: off the fast path (one compare).
    if w.mode & 0xff != super::fmode::DEFAULT && super::fmode::exec_scalar(w, i) {
        return Ok(Flow::Next);
    }
    let s0 = || w.sread(i.src[0], i.lit);
    let s1 = || w.sread(i.src[1], i.lit);
    let d = i.dst;
    macro_rules! b32 {
        ($e:expr) => {{
            let r: u32 = apply($e, s0(), s1());
            w.swrite(d, r);
            w.scc = r != 0;
        }};
    }
    macro_rules! b64 {
        ($e:expr) => {{
            let a = w.sread64(i.src[0], i.lit, false);
            let b = w.sread64(i.src[1], i.lit, false);
            let r: u64 = apply($e, a, b);
            w.swrite64(d, r);
            w.scc = r != 0;
        }};
    }
    macro_rules! cmp {
        ($t:ty, $e:expr) => {{
            let (a, b) = (s0() as $t, s1() as $t);
            w.scc = apply::<$t, bool>($e, a, b);
        }};
    }
    macro_rules! cmpk {
        ($t:ty, $e:expr) => {{
            let a = w.sread(d, 0) as $t;
            let k = if stringify!($t) == "i32" {
                simm16(i.imm) as $t
            } else {
                i.imm as $t
            };
            w.scc = apply::<$t, bool>($e, a, k);
        }};
    }
    // GFX12 scalar float ops (f32 in an SGPR).
    let f0 = || f32::from_bits(w.sread(i.src[0], i.lit));
    let f1 = || f32::from_bits(w.sread(i.src[1], i.lit));
    // s_*_saveexec_b64 and (GFX12 wave32) _b32: the b32 forms see and change EXEC_LO only.
    macro_rules! saveexec {
        ($e:expr) => {{
            let b32 = saveexec_b32(i.op);
            let mask = if b32 { 0xffff_ffff } else { u64::MAX };
            let a = w.sread64(i.src[0], i.lit, false) & mask;
            let old = w.exec() & mask;
            let n: u64 = apply($e, a, old) & mask;
            if b32 {
                w.swrite(d, old as u32);
            } else {
                w.swrite64(d, old);
            }
            w.set_exec(n | (w.exec() & !mask));
            w.scc = w.exec() != 0;
        }};
    }
    match i.op {
        // ---- SOP2 ----
        SAddU32 => {
            let (a, b) = (s0(), s1());
            let (r, c) = a.overflowing_add(b);
            w.swrite(d, r);
            w.scc = c;
        }
        SSubU32 => {
            let (a, b) = (s0(), s1());
            let (r, c) = a.overflowing_sub(b);
            w.swrite(d, r);
            w.scc = c;
        }
        SAddI32 => {
            let (a, b) = (s0() as i32, s1() as i32);
            let (r, o) = a.overflowing_add(b);
            w.swrite(d, r as u32);
            w.scc = o;
        }
        SSubI32 => {
            let (a, b) = (s0() as i32, s1() as i32);
            let (r, o) = a.overflowing_sub(b);
            w.swrite(d, r as u32);
            w.scc = o;
        }
        SAddcU32 => {
            let r = s0() as u64 + s1() as u64 + w.scc as u64;
            w.swrite(d, r as u32);
            w.scc = r >> 32 != 0;
        }
        SSubbU32 => {
            let (a, b) = (s0() as u64, s1() as u64 + w.scc as u64);
            w.swrite(d, a.wrapping_sub(b) as u32);
            w.scc = b > a;
        }
        SMinI32 | SMaxI32 | SMinU32 | SMaxU32 => {
            let (a, b) = (s0(), s1());
            let (r, first) = match i.op {
                SMinI32 => ((a as i32).min(b as i32) as u32, (a as i32) < (b as i32)),
                SMaxI32 => ((a as i32).max(b as i32) as u32, (a as i32) > (b as i32)),
                SMinU32 => (a.min(b), a < b),
                _ => (a.max(b), a > b),
            };
            w.swrite(d, r);
            w.scc = first;
        }
        SCselectB32 => {
            let r = if w.scc { s0() } else { s1() };
            w.swrite(d, r);
        }
        SCselectB64 => {
            let r = if w.scc {
                w.sread64(i.src[0], i.lit, false)
            } else {
                w.sread64(i.src[1], i.lit, false)
            };
            w.swrite64(d, r);
        }
        SAndB32 => b32!(|a, b| a & b),
        SOrB32 => b32!(|a, b| a | b),
        SXorB32 => b32!(|a, b| a ^ b),
        SAndn2B32 => b32!(|a, b| a & !b),
        SOrn2B32 => b32!(|a, b| a | !b),
        SNandB32 => b32!(|a, b| !(a & b)),
        SNorB32 => b32!(|a, b| !(a | b)),
        SXnorB32 => b32!(|a, b| !(a ^ b)),
        SAndB64 => b64!(|a, b| a & b),
        SOrB64 => b64!(|a, b| a | b),
        SXorB64 => b64!(|a, b| a ^ b),
        SAndn2B64 => b64!(|a, b| a & !b),
        SOrn2B64 => b64!(|a, b| a | !b),
        SNandB64 => b64!(|a, b| !(a & b)),
        SNorB64 => b64!(|a, b| !(a | b)),
        SXnorB64 => b64!(|a, b| !(a ^ b)),
        SLshlB32 => b32!(|a, b| a << (b & 31)),
        SLshrB32 => b32!(|a, b| a >> (b & 31)),
        SAshrI32 => b32!(|a, b| ((a as i32) >> (b & 31)) as u32),
        SLshlB64 => {
            let a = w.sread64(i.src[0], i.lit, false);
            let r = a << (s1() & 63);
            w.swrite64(d, r);
            w.scc = r != 0;
        }
        SLshrB64 => {
            let a = w.sread64(i.src[0], i.lit, false);
            let r = a >> (s1() & 63);
            w.swrite64(d, r);
            w.scc = r != 0;
        }
        SAshrI64 => {
            let a = w.sread64(i.src[0], i.lit, false) as i64;
            let r = (a >> (s1() & 63)) as u64;
            w.swrite64(d, r);
            w.scc = r != 0;
        }
        SBfmB32 => {
            let r = ((1u64 << (s0() & 31)) - 1) as u32;
            w.swrite(d, r << (s1() & 31));
        }
        SBfmB64 => {
            let r = (1u64 << (s0() & 63)).wrapping_sub(1);
            w.swrite64(d, r << (s1() & 63));
        }
        SMulI32 => w.swrite(d, s0().wrapping_mul(s1())),
        SMulHiU32 => w.swrite(d, ((s0() as u64 * s1() as u64) >> 32) as u32),
        SMulHiI32 => w.swrite(d, ((s0() as i32 as i64 * s1() as i32 as i64) >> 32) as u32),
        SBfeU32 => b32!(|a, b| bfe32(a, b, false)),
        SBfeI32 => b32!(|a, b| bfe32(a, b, true)),
        SBfeU64 | SBfeI64 => {
            let a = w.sread64(i.src[0], i.lit, false);
            let r = bfe64(a, s1(), i.op == SBfeI64);
            w.swrite64(d, r);
            w.scc = r != 0;
        }
        SAbsdiffI32 => b32!(|a, b| (a as i32).wrapping_sub(b as i32).unsigned_abs()),
        SLshl1AddU32 | SLshl2AddU32 | SLshl3AddU32 | SLshl4AddU32 => {
            let sh = match i.op {
                SLshl1AddU32 => 1,
                SLshl2AddU32 => 2,
                SLshl3AddU32 => 3,
                _ => 4,
            };
            let a = s0() as u64;
            let r = (a << sh) + s1() as u64;
            w.swrite(d, r as u32);
            w.scc = r >> 32 != 0;
        }
        SPackLlB32B16 => w.swrite(d, (s0() & 0xffff) | s1() << 16),
        SPackLhB32B16 => w.swrite(d, (s0() & 0xffff) | (s1() & 0xffff_0000)),
        SPackHhB32B16 => w.swrite(d, (s0() >> 16) | (s1() & 0xffff_0000)),
        // D = { S1[15:0], S0[31:16] } (RDNA4 guide S_PACK_HL_B32_B16).
        SPackHlB32B16 => w.swrite(d, (s0() >> 16) | s1() << 16),
        // ---- SOP1 ----
        SMovB32 => w.swrite(d, s0()),
        SMovB64 => {
            let v = w.sread64(i.src[0], i.lit, false);
            w.swrite64(d, v)
        }
        SCmovB32 => {
            if w.scc {
                w.swrite(d, s0())
            }
        }
        SCmovB64 => {
            if w.scc {
                let v = w.sread64(i.src[0], i.lit, false);
                w.swrite64(d, v)
            }
        }
        SNotB32 => {
            let r = !s0();
            w.swrite(d, r);
            w.scc = r != 0;
        }
        SNotB64 => {
            let r = !w.sread64(i.src[0], i.lit, false);
            w.swrite64(d, r);
            w.scc = r != 0;
        }
        SBrevB32 => w.swrite(d, s0().reverse_bits()),
        SBrevB64 => {
            let v = w.sread64(i.src[0], i.lit, false).reverse_bits();
            w.swrite64(d, v)
        }
        SBcnt0I32B32 | SBcnt1I32B32 => {
            let a = s0();
            let r = if i.op == SBcnt1I32B32 {
                a.count_ones()
            } else {
                a.count_zeros()
            };
            w.swrite(d, r);
            w.scc = r != 0;
        }
        SBcnt0I32B64 | SBcnt1I32B64 => {
            let a = w.sread64(i.src[0], i.lit, false);
            let r = if i.op == SBcnt1I32B64 {
                a.count_ones()
            } else {
                a.count_zeros()
            };
            w.swrite(d, r);
            w.scc = r != 0;
        }
        SFf0I32B32 | SFf1I32B32 => {
            let a = if i.op == SFf1I32B32 { s0() } else { !s0() };
            w.swrite(d, if a == 0 { u32::MAX } else { a.trailing_zeros() });
        }
        SFf0I32B64 | SFf1I32B64 => {
            let a = w.sread64(i.src[0], i.lit, false);
            let a = if i.op == SFf1I32B64 { a } else { !a };
            w.swrite(d, if a == 0 { u32::MAX } else { a.trailing_zeros() });
        }
        SFlbitI32B32 => {
            let a = s0();
            w.swrite(d, if a == 0 { u32::MAX } else { a.leading_zeros() });
        }
        SFlbitI32B64 => {
            let a = w.sread64(i.src[0], i.lit, false);
            w.swrite(d, if a == 0 { u32::MAX } else { a.leading_zeros() });
        }
        // Leading bits equal to the sign bit, the sign bit included; -1 when all bits are
        // (RDNA4 guide S_CLS_I32: S_CLS_I32(0x0000cccc) = 16, (0x7fffffff) = 1).
        SFlbitI32 => {
            let a = s0();
            let x = if (a as i32) < 0 { !a } else { a };
            w.swrite(d, if x == 0 { u32::MAX } else { x.leading_zeros() });
        }
        SFlbitI32I64 => {
            let a = w.sread64(i.src[0], i.lit, false);
            let x = if (a as i64) < 0 { !a } else { a };
            w.swrite(d, if x == 0 { u32::MAX } else { x.leading_zeros() });
        }
        SSextI32I8 => w.swrite(d, s0() as i8 as i32 as u32),
        SSextI32I16 => w.swrite(d, s0() as i16 as i32 as u32),
        SBitset0B32 => {
            let v = w.sread(d, 0) & !(1 << (s0() & 31));
            w.swrite(d, v)
        }
        SBitset1B32 => {
            let v = w.sread(d, 0) | 1 << (s0() & 31);
            w.swrite(d, v)
        }
        SBitset0B64 => {
            let v = w.sread64(d, 0, false) & !(1u64 << (s0() & 63));
            w.swrite64(d, v)
        }
        SBitset1B64 => {
            let v = w.sread64(d, 0, false) | 1u64 << (s0() & 63);
            w.swrite64(d, v)
        }
        SAbsI32 => {
            let r = (s0() as i32).unsigned_abs();
            w.swrite(d, r);
            w.scc = r != 0;
        }
        SQuadmaskB64 => {
            let a = w.sread64(i.src[0], i.lit, false);
            let mut r = 0u64;
            for q in 0..16 {
                if (a >> (4 * q)) & 0xf != 0 {
                    r |= 1 << q;
                }
            }
            w.swrite64(d, r);
            w.scc = r != 0;
        }
        // D[i] = OR(S0[4i+3:4i]), SCC = D != 0 (RDNA4 guide S_QUADMASK_B32).
        SQuadmaskB32 => {
            let a = s0();
            let r = (0..8).fold(0u32, |r, q| r | u32::from(a >> (4 * q) & 0xf != 0) << q);
            w.swrite(d, r);
            w.scc = r != 0;
        }
        SWqmB32 | SWqmB64 => {
            let a = if i.op == SWqmB32 {
                u64::from(s0())
            } else {
                w.sread64(i.src[0], i.lit, false)
            };
            let mut r = 0u64;
            for q in 0..16 {
                if (a >> (4 * q)) & 0xf != 0 {
                    r |= 0xf << (4 * q);
                }
            }
            if i.op == SWqmB32 {
                w.swrite(d, r as u32);
            } else {
                w.swrite64(d, r);
            }
            w.scc = r != 0;
        }
        SBitreplicateB64B32 => {
            let a = s0();
            let mut r = 0u64;
            for b in 0..32 {
                if a >> b & 1 != 0 {
                    r |= 3 << (2 * b);
                }
            }
            w.swrite64(d, r);
        }
        SAndSaveexecB64 | SAndSaveexecB32 => saveexec!(|s, e| s & e),
        SOrSaveexecB64 | SOrSaveexecB32 => saveexec!(|s, e| s | e),
        SXorSaveexecB64 | SXorSaveexecB32 => saveexec!(|s, e| s ^ e),
        SAndn2SaveexecB64 | SAndNot1SaveexecB32 => saveexec!(|s, e| s & !e),
        SOrn2SaveexecB64 | SOrNot1SaveexecB32 => saveexec!(|s, e| s | !e),
        SNandSaveexecB64 | SNandSaveexecB32 => saveexec!(|s, e| !(s & e)),
        SNorSaveexecB64 | SNorSaveexecB32 => saveexec!(|s, e| !(s | e)),
        SXnorSaveexecB64 | SXnorSaveexecB32 => saveexec!(|s, e| !(s ^ e)),
        SAndn1SaveexecB64 | SAndNot0SaveexecB32 => saveexec!(|s, e| !s & e),
        SOrn1SaveexecB64 | SOrNot0SaveexecB32 => saveexec!(|s, e| !s | e),
        // GFX12 wave32 forms: EXEC_LO only (RDNA4 guide S_AND_NOT0/1_WREXEC_B32).
        SAndNot0WrexecB32 | SAndNot1WrexecB32 => {
            let (a, e) = (s0(), w.exec() as u32);
            let n = if i.op == SAndNot0WrexecB32 {
                !a & e
            } else {
                a & !e
            };
            w.set_exec(w.exec() & !0xffff_ffff | u64::from(n));
            w.swrite(d, n);
            w.scc = n != 0;
        }
        SAndn1WrexecB64 | SAndn2WrexecB64 => {
            let a = w.sread64(i.src[0], i.lit, false);
            let e = w.exec();
            let n = if i.op == SAndn1WrexecB64 {
                !a & e
            } else {
                a & !e
            };
            w.set_exec(n);
            w.swrite64(d, n);
            w.scc = n != 0;
        }
        SCvtF32I32 => w.swrite(d, (s0() as i32 as f32).to_bits()),
        SCvtF32U32 => w.swrite(d, (s0() as f32).to_bits()),
        // Rust's float-to-int casts saturate and send NaN to 0, as the hardware does.
        SCvtI32F32 => w.swrite(d, f0() as i32 as u32),
        SCvtU32F32 => w.swrite(d, f0() as u32),
        SCeilF32 => w.swrite(d, f0().ceil().to_bits()),
        SFloorF32 => w.swrite(d, f0().floor().to_bits()),
        STruncF32 => w.swrite(d, f0().trunc().to_bits()),
        SRndneF32 => w.swrite(d, (super::float::rndne(f0() as f64) as f32).to_bits()),
        // NaN results: `float::first_nan32`, as the VALU's.
        SAddF32 | SSubF32 | SMulF32 => {
            let (a, b) = (f0(), f1());
            let r = match i.op {
                SAddF32 => a + b,
                SSubF32 => a - b,
                _ => a * b,
            };
            w.swrite(d, first_nan32(r.to_bits(), &[a, b]))
        }
        // s_fmac: d = s0 * s1 + d; s_fmaak: d = s0 * s1 + K; s_fmamk: d = s0 * K + s1 (K
        // is the literal).
        SFmacF32 | SFmaakF32 | SFmamkF32 => {
            let k = f32::from_bits(i.lit);
            let (a, b, c) = match i.op {
                SFmacF32 => (f0(), f1(), f32::from_bits(w.sread(d, 0))),
                SFmaakF32 => (f0(), f1(), k),
                _ => (f0(), k, f1()),
            };
            w.swrite(d, first_nan32(a.mul_add(b, c).to_bits(), &[a, b, c]))
        }
        SAddNcU64 | SSubNcU64 | SMulU64 => {
            let a = w.sread64(i.src[0], i.lit, false);
            let b = w.sread64(i.src[1], i.lit, false);
            let r = match i.op {
                SAddNcU64 => a.wrapping_add(b),
                SSubNcU64 => a.wrapping_sub(b),
                _ => a.wrapping_mul(b),
            };
            w.swrite64(d, r);
        }
        // ---- SOPC ----
        SCmpEqI32 | SCmpEqU32 => cmp!(u32, |a, b| a == b),
        SCmpLgI32 | SCmpLgU32 => cmp!(u32, |a, b| a != b),
        SCmpGtI32 => cmp!(i32, |a, b| a > b),
        SCmpGeI32 => cmp!(i32, |a, b| a >= b),
        SCmpLtI32 => cmp!(i32, |a, b| a < b),
        SCmpLeI32 => cmp!(i32, |a, b| a <= b),
        SCmpGtU32 => cmp!(u32, |a, b| a > b),
        SCmpGeU32 => cmp!(u32, |a, b| a >= b),
        SCmpLtU32 => cmp!(u32, |a, b| a < b),
        SCmpLeU32 => cmp!(u32, |a, b| a <= b),
        SBitcmp0B32 => w.scc = s0() >> (s1() & 31) & 1 == 0,
        SBitcmp1B32 => w.scc = s0() >> (s1() & 31) & 1 == 1,
        SBitcmp0B64 => w.scc = w.sread64(i.src[0], i.lit, false) >> (s1() & 63) & 1 == 0,
        SBitcmp1B64 => w.scc = w.sread64(i.src[0], i.lit, false) >> (s1() & 63) & 1 == 1,
        SCmpEqU64 | SCmpLgU64 => {
            let a = w.sread64(i.src[0], i.lit, false);
            let b = w.sread64(i.src[1], i.lit, false);
            w.scc = (a == b) == (i.op == SCmpEqU64);
        }
        // ---- SOPK ----
        SMovkI32 => w.swrite(d, simm16(i.imm) as u32),
        SCmovkI32 => {
            if w.scc {
                w.swrite(d, simm16(i.imm) as u32)
            }
        }
        SCmpkEqI32 => cmpk!(i32, |a, b| a == b),
        SCmpkLgI32 => cmpk!(i32, |a, b| a != b),
        SCmpkGtI32 => cmpk!(i32, |a, b| a > b),
        SCmpkGeI32 => cmpk!(i32, |a, b| a >= b),
        SCmpkLtI32 => cmpk!(i32, |a, b| a < b),
        SCmpkLeI32 => cmpk!(i32, |a, b| a <= b),
        SCmpkEqU32 => cmpk!(u32, |a, b| a == b),
        SCmpkLgU32 => cmpk!(u32, |a, b| a != b),
        SCmpkGtU32 => cmpk!(u32, |a, b| a > b),
        SCmpkGeU32 => cmpk!(u32, |a, b| a >= b),
        SCmpkLtU32 => cmpk!(u32, |a, b| a < b),
        SCmpkLeU32 => cmpk!(u32, |a, b| a <= b),
        SAddkI32 => {
            let a = w.sread(d, 0) as i32;
            let (r, o) = a.overflowing_add(simm16(i.imm));
            w.swrite(d, r as u32);
            w.scc = o;
        }
        SMulkI32 => {
            let a = w.sread(d, 0) as i32;
            w.swrite(d, a.wrapping_mul(simm16(i.imm)) as u32);
        }
        SMovrelsB32 | SMovrelsB64 | SMovreldB32 | SMovreldB64 | SMovrelsd2B32 => {
            relative::exec(w, i, ctx.prog.target().family() == Family::Gfx12)
        }
        _ => {
            // Program control (SOPP: branches, waits) skips the float table.
            if i.unit != Unit::Sopp && super::fmode::scalar_float(w, i) {
                return Ok(Flow::Next);
            }
            return control::exec(w, ctx, i);
        }
    }
    Ok(Flow::Next)
}

/// The wave32 (`_b32`) forms of the saveexec family.
fn saveexec_b32(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        SAndSaveexecB32
            | SOrSaveexecB32
            | SXorSaveexecB32
            | SAndNot1SaveexecB32
            | SOrNot1SaveexecB32
            | SNandSaveexecB32
            | SNorSaveexecB32
            | SXnorSaveexecB32
            | SAndNot0SaveexecB32
            | SOrNot0SaveexecB32
    )
}
