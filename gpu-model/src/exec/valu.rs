//! Vector ALU: VOP1, VOP2, VOPC and VOP3 operations (32-bit, 64-bit and 16-bit).
//!
//! Sources are materialised as whole rows (`[u32; 64]`, inline constants broadcast), the
//! operation runs over all lanes in a tight loop the compiler can vectorise, and the
//! result is blended into the destination under EXEC (and the DPP write mask).

use super::decode::{Inst, Sub};
use super::float::{self as fl, mod16, mod32, mod64};
use super::lane;
use super::op::{Enc, Op};
use super::wave::{Wave, AGPR_BASE, LANES};
use super::FaultReason;

pub(crate) type Row = [u32; LANES];
pub(crate) type Row64 = [u64; LANES];

/// Source `n` without copying a VGPR row (constants are broadcast into `tmp`), for
/// instructions without SDWA/DPP.
#[inline(always)]
fn row<'a>(w: &'a Wave, i: &Inst, n: usize, tmp: &'a mut Row) -> &'a Row {
    let c = i.src[n];
    if c >= 256 {
        &w.v[(c - 256) as usize]
    } else {
        *tmp = [w.sread(c, i.lit); LANES];
        tmp
    }
}

/// Float input modifiers of source `n` as bit masks: `(x & and) ^ xor`.
#[inline(always)]
fn fmods(i: &Inst, n: usize) -> (u32, u32) {
    let and = if i.abs >> n & 1 != 0 {
        0x7fff_ffff
    } else {
        u32::MAX
    };
    let xor = if i.neg >> n & 1 != 0 { 0x8000_0000 } else { 0 };
    (and, xor)
}

/// Applies omod/clamp to a finished f32 row, only when the instruction has them.
#[inline(always)]
fn finish32(i: &Inst, r: &mut Row) {
    if i.omod != 0 || i.clamp {
        for x in r.iter_mut() {
            *x = fl::out32(f32::from_bits(*x), i.omod, i.clamp).to_bits();
        }
    }
}

/// Source `n` as a 32-bit row, with SDWA/DPP applied. Returns the DPP write mask too.
#[inline(always)]
pub(crate) fn src(w: &Wave, i: &Inst, n: usize) -> (Row, u64) {
    let c = i.src[n];
    let mut r = if c >= 256 {
        w.v[(c - 256) as usize]
    } else {
        [w.sread(c, i.lit); LANES]
    };
    let mut en = u64::MAX;
    match i.sub {
        Sub::None => {}
        Sub::Sdwa => lane::sdwa_src(&mut r, i, n),
        Sub::Dpp if n == 0 => en = lane::dpp_src(w, &mut r, i),
        Sub::Dpp8 | Sub::Dpp8Fi if n == 0 => lane::dpp8_src(w, &mut r, i),
        Sub::Dpp | Sub::Dpp8 | Sub::Dpp8Fi => {}
    }
    (r, en)
}

/// Source `n` as a 16-bit row (op_sel picks the high half: VOP3, or any GFX12 encoding).
#[inline(always)]
fn src16(w: &Wave, i: &Inst, n: usize) -> (Row, u64) {
    let c = i.src[n];
    let hi = (i.enc == Enc::Vop3 || i.t16) && i.op_sel >> n & 1 != 0;
    let (mut r, en) = if c >= 256 {
        src(w, i, n)
    } else {
        ([w.sread16(c, i.lit); LANES], u64::MAX)
    };
    for v in r.iter_mut() {
        *v = if hi { *v >> 16 } else { *v & 0xffff };
    }
    (r, en)
}

/// Source `n` as a 64-bit row (`float`: f64 inline constants / literal in the high dword).
#[inline(always)]
pub(crate) fn src64(w: &Wave, i: &Inst, n: usize, float: bool) -> Row64 {
    let c = i.src[n];
    if c >= 256 {
        let r = (c - 256) as usize;
        let (lo, hi) = (&w.v[r], &w.v[r + 1]);
        std::array::from_fn(|l| lo[l] as u64 | (hi[l] as u64) << 32)
    } else {
        [w.sread64(c, i.lit, float); LANES]
    }
}

/// Writes a 32-bit result row under EXEC (and `en`), applying the SDWA destination select.
#[inline(always)]
pub(crate) fn put(w: &mut Wave, i: &Inst, r: &Row, en: u64) {
    let exec = w.exec() & en;
    let dst = i.dst as usize;
    let row = &mut w.v[dst];
    if i.sub == Sub::Sdwa {
        for l in 0..LANES {
            if exec >> l & 1 != 0 {
                row[l] = lane::sdwa_dst(r[l], row[l], i.w1);
            }
        }
    } else if exec == u64::MAX {
        *row = *r;
    } else {
        for l in 0..LANES {
            if exec >> l & 1 != 0 {
                row[l] = r[l];
            }
        }
    }
}

/// Writes a 64-bit result row (a VGPR pair) under EXEC.
#[inline(always)]
pub(crate) fn put64(w: &mut Wave, dst: usize, r: &Row64) {
    let exec = w.exec();
    for (l, &x) in r.iter().enumerate() {
        if exec >> l & 1 != 0 {
            w.v[dst][l] = x as u32;
            w.v[dst + 1][l] = (x >> 32) as u32;
        }
    }
}

/// Writes a 16-bit result: with op_sel[3] (VOP3, or any GFX12 encoding) the high half,
/// preserving the low one; otherwise the low half, zeroing the high half on GFX9 and
/// preserving it on GFX12 (LLVM `GCNSubtarget::zeroesHigh16BitsOfDest`: "On gfx10, all
/// 16-bit instructions preserve the high bits").
#[inline(always)]
pub(crate) fn put16(w: &mut Wave, i: &Inst, r: &Row, en: u64) {
    if (i.enc == Enc::Vop3 || i.t16) && i.op_sel & 8 != 0 {
        let old = w.v[i.dst as usize];
        let merged: Row = std::array::from_fn(|l| (old[l] & 0xffff) | (r[l] & 0xffff) << 16);
        put(w, i, &merged, en);
    } else if i.t16 {
        let old = w.v[i.dst as usize];
        let merged: Row = std::array::from_fn(|l| (old[l] & 0xffff_0000) | (r[l] & 0xffff));
        put(w, i, &merged, en);
    } else {
        let lo: Row = std::array::from_fn(|l| r[l] & 0xffff);
        put(w, i, &lo, en);
    }
}

/// Lane mask of a per-lane predicate over active lanes.
#[inline(always)]
fn mask_of(w: &Wave, f: impl Fn(usize) -> bool) -> u64 {
    let exec = w.exec();
    let mut m = 0u64;
    for l in 0..LANES {
        m |= (f(l) as u64) << l;
    }
    m & exec
}

fn int1(w: &mut Wave, i: &Inst, f: impl Fn(u32) -> u32) {
    let (a, en) = src(w, i, 0);
    let r: Row = std::array::from_fn(|l| f(a[l]));
    put(w, i, &r, en);
}

pub(crate) fn int2(w: &mut Wave, i: &Inst, f: impl Fn(u32, u32) -> u32) {
    if i.sub == Sub::None {
        let (mut ta, mut tb) = ([0u32; LANES], [0u32; LANES]);
        let (a, b) = (row(w, i, 0, &mut ta), row(w, i, 1, &mut tb));
        let mut r = [0u32; LANES];
        for l in 0..LANES {
            r[l] = f(a[l], b[l]);
        }
        return put(w, i, &r, u64::MAX);
    }
    let (a, en) = src(w, i, 0);
    let (b, _) = src(w, i, 1);
    let r: Row = std::array::from_fn(|l| f(a[l], b[l]));
    put(w, i, &r, en);
}

pub(crate) fn int3(w: &mut Wave, i: &Inst, f: impl Fn(u32, u32, u32) -> u32) {
    if i.sub == Sub::None {
        let (mut ta, mut tb, mut tc) = ([0u32; LANES], [0u32; LANES], [0u32; LANES]);
        let (a, b) = (row(w, i, 0, &mut ta), row(w, i, 1, &mut tb));
        let c = row(w, i, 2, &mut tc);
        let mut r = [0u32; LANES];
        for l in 0..LANES {
            r[l] = f(a[l], b[l], c[l]);
        }
        return put(w, i, &r, u64::MAX);
    }
    let (a, en) = src(w, i, 0);
    let (b, _) = src(w, i, 1);
    let (c, _) = src(w, i, 2);
    let r: Row = std::array::from_fn(|l| f(a[l], b[l], c[l]));
    put(w, i, &r, en);
}

/// f32 sources `n` with abs/neg applied.
#[inline(always)]
pub(crate) fn fsrc(w: &Wave, i: &Inst, n: usize) -> ([f32; LANES], u64) {
    let (r, en) = src(w, i, n);
    let (abs, neg) = (i.abs >> n & 1 != 0, i.neg >> n & 1 != 0);
    (
        std::array::from_fn(|l| f32::from_bits(mod32(r[l], abs, neg))),
        en,
    )
}

fn f1(w: &mut Wave, i: &Inst, f: impl Fn(f32) -> f32) {
    let (a, en) = fsrc(w, i, 0);
    let r: Row = std::array::from_fn(|l| fl::out32(f(a[l]), i.omod, i.clamp).to_bits());
    put(w, i, &r, en);
}

pub(crate) fn f2(w: &mut Wave, i: &Inst, f: impl Fn(f32, f32) -> f32) {
    if i.sub == Sub::None {
        let (mut ta, mut tb) = ([0u32; LANES], [0u32; LANES]);
        let (a, b) = (row(w, i, 0, &mut ta), row(w, i, 1, &mut tb));
        let ((a0, x0), (a1, x1)) = (fmods(i, 0), fmods(i, 1));
        let mut r = [0u32; LANES];
        for l in 0..LANES {
            let (x, y) = (
                f32::from_bits((a[l] & a0) ^ x0),
                f32::from_bits((b[l] & a1) ^ x1),
            );
            r[l] = f(x, y).to_bits();
        }
        finish32(i, &mut r);
        return put(w, i, &r, u64::MAX);
    }
    let (a, en) = fsrc(w, i, 0);
    let (b, _) = fsrc(w, i, 1);
    let r: Row = std::array::from_fn(|l| fl::out32(f(a[l], b[l]), i.omod, i.clamp).to_bits());
    put(w, i, &r, en);
}

pub(crate) fn f3(w: &mut Wave, i: &Inst, f: impl Fn(f32, f32, f32) -> f32) {
    if i.sub == Sub::None {
        let (mut ta, mut tb, mut tc) = ([0u32; LANES], [0u32; LANES], [0u32; LANES]);
        let (a, b) = (row(w, i, 0, &mut ta), row(w, i, 1, &mut tb));
        let c = row(w, i, 2, &mut tc);
        let ((a0, x0), (a1, x1), (a2, x2)) = (fmods(i, 0), fmods(i, 1), fmods(i, 2));
        let mut r = [0u32; LANES];
        for l in 0..LANES {
            let x = f32::from_bits((a[l] & a0) ^ x0);
            let y = f32::from_bits((b[l] & a1) ^ x1);
            let z = f32::from_bits((c[l] & a2) ^ x2);
            r[l] = f(x, y, z).to_bits();
        }
        finish32(i, &mut r);
        return put(w, i, &r, u64::MAX);
    }
    let (a, en) = fsrc(w, i, 0);
    let (b, _) = fsrc(w, i, 1);
    let (c, _) = fsrc(w, i, 2);
    let r: Row = std::array::from_fn(|l| fl::out32(f(a[l], b[l], c[l]), i.omod, i.clamp).to_bits());
    put(w, i, &r, en);
}

/// `fma(src0, src1, src2)` (VOP3 modifiers applied), f32.
pub(crate) fn fma3(w: &mut Wave, i: &Inst) {
    if i.sub == Sub::None {
        let (mut ta, mut tb, mut tc) = ([0u32; LANES], [0u32; LANES], [0u32; LANES]);
        let (a, b) = (row(w, i, 0, &mut ta), row(w, i, 1, &mut tb));
        let c = row(w, i, 2, &mut tc);
        let mut r = fl::fma_bits32(a, b, c, [fmods(i, 0), fmods(i, 1), fmods(i, 2)]);
        finish32(i, &mut r);
        return put(w, i, &r, u64::MAX);
    }
    let (a, en) = fsrc(w, i, 0);
    let (b, _) = fsrc(w, i, 1);
    let (c, _) = fsrc(w, i, 2);
    let r = fl::fma_row32(&a, &b, &c);
    let r: Row = std::array::from_fn(|l| fl::out32(r[l], i.omod, i.clamp).to_bits());
    put(w, i, &r, en);
}

/// `fma(src0, src1, src2)`, f64.
pub(crate) fn dfma3(w: &mut Wave, i: &Inst) {
    let (a, b, c) = (dsrc(w, i, 0), dsrc(w, i, 1), dsrc(w, i, 2));
    let r = fl::fma_row64(&a, &b, &c);
    let r: Row64 = std::array::from_fn(|l| fl::out64(r[l], i.omod, i.clamp).to_bits());
    put64(w, i.dst as usize, &r);
}

/// f64 source with modifiers.
#[inline(always)]
pub(crate) fn dsrc(w: &Wave, i: &Inst, n: usize) -> [f64; LANES] {
    let r = src64(w, i, n, true);
    let (abs, neg) = (i.abs >> n & 1 != 0, i.neg >> n & 1 != 0);
    std::array::from_fn(|l| f64::from_bits(mod64(r[l], abs, neg)))
}

fn d1(w: &mut Wave, i: &Inst, f: impl Fn(f64) -> f64) {
    let a = dsrc(w, i, 0);
    let r: Row64 = std::array::from_fn(|l| fl::out64(f(a[l]), i.omod, i.clamp).to_bits());
    put64(w, i.dst as usize, &r);
}

pub(crate) fn d2(w: &mut Wave, i: &Inst, f: impl Fn(f64, f64) -> f64) {
    let (a, b) = (dsrc(w, i, 0), dsrc(w, i, 1));
    let r: Row64 = std::array::from_fn(|l| fl::out64(f(a[l], b[l]), i.omod, i.clamp).to_bits());
    put64(w, i.dst as usize, &r);
}

pub(crate) fn d3(w: &mut Wave, i: &Inst, f: impl Fn(f64, f64, f64) -> f64) {
    let (a, b, c) = (dsrc(w, i, 0), dsrc(w, i, 1), dsrc(w, i, 2));
    let r: Row64 =
        std::array::from_fn(|l| fl::out64(f(a[l], b[l], c[l]), i.omod, i.clamp).to_bits());
    put64(w, i.dst as usize, &r);
}

/// f16 source with modifiers, as f32.
#[inline(always)]
pub(crate) fn hsrc(w: &Wave, i: &Inst, n: usize) -> ([f32; LANES], u64) {
    let (r, en) = src16(w, i, n);
    let (abs, neg) = (i.abs >> n & 1 != 0, i.neg >> n & 1 != 0);
    (std::array::from_fn(|l| fl::h2f(mod16(r[l], abs, neg))), en)
}

fn h1(w: &mut Wave, i: &Inst, f: impl Fn(f32) -> f32) {
    let (a, en) = hsrc(w, i, 0);
    let r: Row = std::array::from_fn(|l| fl::f2h(fl::out32(f(a[l]), i.omod, i.clamp)));
    put16(w, i, &r, en);
}

pub(crate) fn h2(w: &mut Wave, i: &Inst, f: impl Fn(f32, f32) -> f32) {
    let (a, en) = hsrc(w, i, 0);
    let (b, _) = hsrc(w, i, 1);
    let r: Row = std::array::from_fn(|l| fl::f2h(fl::out32(f(a[l], b[l]), i.omod, i.clamp)));
    put16(w, i, &r, en);
}

/// Carry-producing integer op: writes the result and the carry mask to `sdst`.
fn carry(w: &mut Wave, i: &Inst, f: impl Fn(u32, u32, bool) -> (u32, bool)) {
    let (a, en) = src(w, i, 0);
    let (b, _) = src(w, i, 1);
    let cin = w.read_mask(i.src[2] as u8);
    let uses_cin = matches!(i.op, Op::VAddcCoU32 | Op::VSubbCoU32 | Op::VSubbrevCoU32);
    let mut r = [0u32; LANES];
    let mut co = 0u64;
    for l in 0..LANES {
        let (v, c) = f(a[l], b[l], uses_cin && cin >> l & 1 != 0);
        r[l] = v;
        co |= (c as u64) << l;
    }
    put(w, i, &r, en);
    let m = co & w.exec() & en;
    w.write_mask(i.sdst, m);
}

/// VOPC: compare and write the mask to `sdst` (and EXEC for v_cmpx).
fn compare(w: &mut Wave, i: &Inst) -> Result<(), FaultReason> {
    use Op::*;
    let cond = i.cond;
    let m = match i.op {
        VCmpF32 | VCmpxF32 => {
            let (a, en) = fsrc(w, i, 0);
            let (b, _) = fsrc(w, i, 1);
            mask_of(w, |l| fl::fcmp(cond, a[l] as f64, b[l] as f64)) & en
        }
        VCmpF64 | VCmpxF64 => {
            let (a, b) = (dsrc(w, i, 0), dsrc(w, i, 1));
            mask_of(w, |l| fl::fcmp(cond, a[l], b[l]))
        }
        VCmpF16 | VCmpxF16 => {
            let (a, en) = hsrc(w, i, 0);
            let (b, _) = hsrc(w, i, 1);
            mask_of(w, |l| fl::fcmp(cond, a[l] as f64, b[l] as f64)) & en
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

pub(crate) fn bfe(v: u32, off: u32, width: u32, signed: bool) -> u32 {
    let (off, width) = (off & 31, width & 31);
    if width == 0 {
        return 0;
    }
    let x = v >> off;
    if signed {
        ((x << (32 - width)) as i32 >> (32 - width)) as u32
    } else {
        x & ((1u32 << width) - 1)
    }
}

pub(crate) fn perm(a: u32, b: u32, sel: u32) -> u32 {
    // Bytes 0..3 from src1, 4..7 from src0; 8..11 sign-replicate; 12 = 0x00; 13+ = 0xff.
    let bytes = (b as u64) | (a as u64) << 32;
    let mut r = 0u32;
    for k in 0..4 {
        let s = (sel >> (8 * k)) & 0xff;
        let v = match s {
            0..=7 => (bytes >> (8 * s)) as u8 as u32,
            8 => ((b >> 15) & 1) * 0xff,
            9 => ((b >> 31) & 1) * 0xff,
            10 => ((a >> 15) & 1) * 0xff,
            11 => ((a >> 31) & 1) * 0xff,
            12 => 0,
            _ => 0xff,
        };
        r |= v << (8 * k);
    }
    r
}

/// Executes a GFX12 VOPD pair. Both halves read their sources before either writes: Y
/// runs first, its result is set aside while X runs on the original registers (the
/// halves' destinations differ by construction: one even, one odd), then it is written.
pub(crate) fn exec_vopd(w: &mut Wave, i: &Inst) -> Result<(), FaultReason> {
    let mut x = *i;
    x.enc = Enc::Vop2;
    let mut y = x;
    y.op = i.y.op;
    y.dst = i.y.dst;
    y.src = [i.y.src[0], i.y.src[1], 106];
    let yd = y.dst as usize % w.v.len();
    let saved = w.v[yd];
    exec(w, &y)?;
    let ry = std::mem::replace(&mut w.v[yd], saved);
    exec(w, &x)?;
    w.v[yd] = ry;
    Ok(())
}

/// Executes a VALU instruction (VOP1/VOP2/VOPC/VOP3).
pub(crate) fn exec(w: &mut Wave, i: &Inst) -> Result<(), FaultReason> {
    use Op::*;
    if i.cmp {
        return compare(w, i);
    }
    // Directed rounding / denormal flushing: off the fast path (one compare).
    if w.mode & 0xff != super::fmode::DEFAULT {
        if let Some(r) = super::fmode::exec(w, i) {
            return r;
        }
    }
    match i.op {
        VNop => {}
        VMovB32 => int1(w, i, |a| a),
        VNotB32 => int1(w, i, |a| !a),
        VBfrevB32 => int1(w, i, |a| a.reverse_bits()),
        VFfbhU32 => int1(w, i, |a| if a == 0 { u32::MAX } else { a.leading_zeros() }),
        VFfblB32 => int1(w, i, |a| if a == 0 { u32::MAX } else { a.trailing_zeros() }),
        VFfbhI32 => int1(w, i, |a| {
            let x = if (a as i32) < 0 { !a } else { a };
            if x == 0 {
                u32::MAX
            } else {
                x.leading_zeros() - 1
            }
        }),
        VReadfirstlaneB32 => {
            let e = w.exec();
            let lane = if e == 0 {
                0
            } else {
                e.trailing_zeros() as usize
            };
            let (a, _) = src(w, i, 0);
            w.swrite(i.dst, a[lane]);
        }
        VReadlaneB32 => {
            let (a, _) = src(w, i, 0);
            let sel = w.sread(i.src[1], i.lit) as usize % w.wave_size as usize;
            w.swrite(i.dst, a[sel]);
        }
        VWritelaneB32 => {
            let v = w.sread(i.src[0], i.lit);
            let sel = w.sread(i.src[1], i.lit) as usize % w.wave_size as usize;
            w.v[i.dst as usize][sel] = v;
        }
        VCvtF32I32 => int1(w, i, |a| (a as i32 as f32).to_bits()),
        VCvtF32U32 => int1(w, i, |a| (a as f32).to_bits()),
        VCvtU32F32 => {
            let (a, en) = fsrc(w, i, 0);
            put(w, i, &std::array::from_fn(|l| a[l] as u32), en)
        }
        VCvtI32F32 => {
            let (a, en) = fsrc(w, i, 0);
            put(w, i, &std::array::from_fn(|l| a[l] as i32 as u32), en)
        }
        VCvtRpiI32F32 => {
            let (a, en) = fsrc(w, i, 0);
            put(
                w,
                i,
                &std::array::from_fn(|l| (a[l] + 0.5).floor() as i32 as u32),
                en,
            )
        }
        VCvtFlrI32F32 => {
            let (a, en) = fsrc(w, i, 0);
            put(
                w,
                i,
                &std::array::from_fn(|l| a[l].floor() as i32 as u32),
                en,
            )
        }
        VCvtF16F32 => {
            let (a, en) = fsrc(w, i, 0);
            let r: Row = std::array::from_fn(|l| fl::f2h(fl::out32(a[l], i.omod, i.clamp)));
            put16(w, i, &r, en);
        }
        VCvtF32F16 => {
            let (a, en) = hsrc(w, i, 0);
            put(
                w,
                i,
                &std::array::from_fn(|l| fl::out32(a[l], i.omod, i.clamp).to_bits()),
                en,
            )
        }
        VCvtF32Ubyte0 | VCvtF32Ubyte1 | VCvtF32Ubyte2 | VCvtF32Ubyte3 => {
            let k = match i.op {
                VCvtF32Ubyte0 => 0,
                VCvtF32Ubyte1 => 8,
                VCvtF32Ubyte2 => 16,
                _ => 24,
            };
            int1(w, i, |a| (((a >> k) & 0xff) as f32).to_bits())
        }
        VCvtF64I32 | VCvtF64U32 => {
            let (a, _) = src(w, i, 0);
            let signed = i.op == VCvtF64I32;
            let r: Row64 = std::array::from_fn(|l| {
                let v = if signed {
                    a[l] as i32 as f64
                } else {
                    a[l] as f64
                };
                fl::out64(v, i.omod, i.clamp).to_bits()
            });
            put64(w, i.dst as usize, &r)
        }
        VCvtF64F32 => {
            let (a, _) = fsrc(w, i, 0);
            let r: Row64 =
                std::array::from_fn(|l| fl::out64(a[l] as f64, i.omod, i.clamp).to_bits());
            put64(w, i.dst as usize, &r)
        }
        VCvtF32F64 => {
            let a = dsrc(w, i, 0);
            put(
                w,
                i,
                &std::array::from_fn(|l| fl::out32(a[l] as f32, i.omod, i.clamp).to_bits()),
                u64::MAX,
            )
        }
        VCvtI32F64 => {
            let a = dsrc(w, i, 0);
            put(w, i, &std::array::from_fn(|l| a[l] as i32 as u32), u64::MAX)
        }
        VCvtU32F64 => {
            let a = dsrc(w, i, 0);
            put(w, i, &std::array::from_fn(|l| a[l] as u32), u64::MAX)
        }
        VTruncF32 => f1(w, i, f32::trunc),
        VCeilF32 => f1(w, i, f32::ceil),
        VFloorF32 => f1(w, i, f32::floor),
        VRndneF32 => f1(w, i, |a| a.round_ties_even()),
        VFractF32 => f1(w, i, fl::fract32),
        VExpF32 => f1(w, i, fl::exp2),
        VLogF32 => f1(w, i, fl::log2),
        VRcpF32 | VRcpIflagF32 => f1(w, i, fl::rcp),
        // GFX12 scalar transcendentals: a VALU op on an SGPR value, SGPR result.
        VSRcpF32 | VSRsqF32 | VSSqrtF32 | VSExpF32 | VSLogF32 => {
            let a = f32::from_bits(w.sread(i.src[0], i.lit));
            let a = f32::from_bits(mod32(a.to_bits(), i.abs & 1 != 0, i.neg & 1 != 0));
            let r = match i.op {
                VSRcpF32 => fl::rcp(a),
                VSRsqF32 => fl::rsq(a),
                VSSqrtF32 => a.sqrt(),
                VSExpF32 => fl::exp2(a),
                _ => fl::log2(a),
            };
            w.swrite(i.dst, fl::out32(r, i.omod, i.clamp).to_bits());
        }
        VRsqF32 => f1(w, i, fl::rsq),
        VSqrtF32 => f1(w, i, |a| (a as f64).sqrt() as f32),
        VSinF32 => f1(w, i, fl::sin),
        VCosF32 => f1(w, i, fl::cos),
        VFrexpMantF32 => f1(w, i, |a| fl::frexp64(a as f64).0 as f32),
        VFrexpExpI32F32 => {
            let (a, en) = fsrc(w, i, 0);
            put(
                w,
                i,
                &std::array::from_fn(|l| fl::frexp64(a[l] as f64).1 as u32),
                en,
            )
        }
        VTruncF64 => d1(w, i, f64::trunc),
        VCeilF64 => d1(w, i, f64::ceil),
        VFloorF64 => d1(w, i, f64::floor),
        VRndneF64 => d1(w, i, fl::rndne),
        VFractF64 => d1(w, i, fl::fract64),
        VRcpF64 => d1(w, i, |a| 1.0 / a),
        VRsqF64 => d1(w, i, |a| 1.0 / a.sqrt()),
        VSqrtF64 => d1(w, i, f64::sqrt),
        VFrexpMantF64 => d1(w, i, |a| fl::frexp64(a).0),
        VFrexpExpI32F64 => {
            let a = dsrc(w, i, 0);
            put(
                w,
                i,
                &std::array::from_fn(|l| fl::frexp64(a[l]).1 as u32),
                u64::MAX,
            )
        }
        VMovB64 => {
            let a = src64(w, i, 0, false);
            put64(w, i.dst as usize, &a)
        }
        VCvtF16U16 => h_from(w, i, |a| a as u16 as f32),
        VCvtF16I16 => h_from(w, i, |a| a as u16 as i16 as f32),
        VCvtU16F16 => {
            let (a, en) = hsrc(w, i, 0);
            put16(w, i, &std::array::from_fn(|l| a[l] as u16 as u32), en)
        }
        VCvtI16F16 => {
            let (a, en) = hsrc(w, i, 0);
            put16(
                w,
                i,
                &std::array::from_fn(|l| a[l] as i16 as u16 as u32),
                en,
            )
        }
        VRcpF16 => h1(w, i, |a| 1.0 / a),
        VSqrtF16 => h1(w, i, f32::sqrt),
        VRsqF16 => h1(w, i, |a| 1.0 / a.sqrt()),
        VLogF16 => h1(w, i, f32::log2),
        VExpF16 => h1(w, i, f32::exp2),
        VFloorF16 => h1(w, i, f32::floor),
        VCeilF16 => h1(w, i, f32::ceil),
        VTruncF16 => h1(w, i, f32::trunc),
        VRndneF16 => h1(w, i, |a| a.round_ties_even()),
        VSwapB32 => {
            let exec = w.exec();
            let (d, s) = (i.dst as usize, (i.src[0].saturating_sub(256)) as usize);
            for l in 0..LANES {
                if exec >> l & 1 != 0 {
                    let t = w.v[d][l];
                    w.v[d][l] = w.v[s][l];
                    w.v[s][l] = t;
                }
            }
        }
        VAccvgprMovB32 => {
            let exec = w.exec();
            let (d, s) = (
                AGPR_BASE + i.dst as usize,
                AGPR_BASE + (i.src[0] & 0xff) as usize,
            );
            for l in 0..LANES {
                if exec >> l & 1 != 0 {
                    w.v[d][l] = w.v[s][l];
                }
            }
        }
        VPermlane16SwapB32 => lane::permlane_swap(w, i, 16),
        VPermlane32SwapB32 => lane::permlane_swap(w, i, 32),
        VPermlane16B32 => lane::permlane16(w, i, false, false),
        VPermlanex16B32 => lane::permlane16(w, i, true, false),
        VPermlane16VarB32 => lane::permlane16(w, i, false, true),
        VPermlanex16VarB32 => lane::permlane16(w, i, true, true),
        // ---- VOP2 ----
        VCndmaskB32 => {
            let (a, en) = src(w, i, 0);
            let (b, _) = src(w, i, 1);
            let m = w.read_mask(i.src[2] as u8);
            // Float source modifiers apply in the VOP3 form.
            let r: Row = std::array::from_fn(|l| {
                let (x, y) = if i.enc == Enc::Vop3 {
                    (
                        mod32(a[l], i.abs & 1 != 0, i.neg & 1 != 0),
                        mod32(b[l], i.abs & 2 != 0, i.neg & 2 != 0),
                    )
                } else {
                    (a[l], b[l])
                };
                if m >> l & 1 != 0 {
                    y
                } else {
                    x
                }
            });
            put(w, i, &r, en)
        }
        VAddF32 => f2(w, i, |a, b| a + b),
        VSubF32 => f2(w, i, |a, b| a - b),
        VSubrevF32 => f2(w, i, |a, b| b - a),
        VMulF32 => f2(w, i, |a, b| a * b),
        VMinF32 => f2(w, i, fl::fmin),
        VMaxF32 => f2(w, i, fl::fmax),
        VLdexpF32 => {
            let (a, en) = fsrc(w, i, 0);
            let (b, _) = src(w, i, 1);
            let r: Row = std::array::from_fn(|l| {
                fl::out32(fl::ldexp32(a[l], b[l] as i32), i.omod, i.clamp).to_bits()
            });
            put(w, i, &r, en)
        }
        VMulI32I24 => int2(w, i, |a, b| {
            (((a << 8) as i32 >> 8) as i64 * ((b << 8) as i32 >> 8) as i64) as u32
        }),
        VMulHiI32I24 => int2(w, i, |a, b| {
            ((((a << 8) as i32 >> 8) as i64 * ((b << 8) as i32 >> 8) as i64) >> 32) as u32
        }),
        VMulU32U24 => int2(w, i, |a, b| (a & 0xff_ffff).wrapping_mul(b & 0xff_ffff)),
        VMulHiU32U24 => int2(w, i, |a, b| {
            (((a & 0xff_ffff) as u64 * (b & 0xff_ffff) as u64) >> 32) as u32
        }),
        VMinI32 => int2(w, i, |a, b| (a as i32).min(b as i32) as u32),
        VMaxI32 => int2(w, i, |a, b| (a as i32).max(b as i32) as u32),
        VMinU32 => int2(w, i, |a, b| a.min(b)),
        VMaxU32 => int2(w, i, |a, b| a.max(b)),
        VLshrrevB32 => int2(w, i, |a, b| b >> (a & 31)),
        VAshrrevI32 => int2(w, i, |a, b| ((b as i32) >> (a & 31)) as u32),
        VLshlrevB32 => int2(w, i, |a, b| b << (a & 31)),
        VAndB32 => int2(w, i, |a, b| a & b),
        VOrB32 => int2(w, i, |a, b| a | b),
        VXorB32 => int2(w, i, |a, b| a ^ b),
        VXnorB32 => int2(w, i, |a, b| !(a ^ b)),
        // VOP3 clamp on unsigned add/sub saturates instead of wrapping.
        VAddU32 if i.clamp => int2(w, i, |a, b| a.saturating_add(b)),
        VSubU32 if i.clamp => int2(w, i, |a, b| a.saturating_sub(b)),
        VSubrevU32 if i.clamp => int2(w, i, |a, b| b.saturating_sub(a)),
        VAddU32 => int2(w, i, |a, b| a.wrapping_add(b)),
        VSubU32 => int2(w, i, |a, b| a.wrapping_sub(b)),
        VSubrevU32 => int2(w, i, |a, b| b.wrapping_sub(a)),
        VFmacF32 if i.sub == Sub::None => {
            let (mut ta, mut tb) = ([0u32; LANES], [0u32; LANES]);
            let (a, b) = (row(w, i, 0, &mut ta), row(w, i, 1, &mut tb));
            let c = &w.v[i.dst as usize % w.v.len()];
            let mut r = fl::fma_bits32(a, b, c, [fmods(i, 0), fmods(i, 1), (u32::MAX, 0)]);
            finish32(i, &mut r);
            put(w, i, &r, u64::MAX)
        }
        VFmamkF32 | VFmaakF32 if i.sub == Sub::None => {
            // fmamk: src0 * K + vsrc1; fmaak: src0 * vsrc1 + K.
            let (mut ta, mut tb) = ([0u32; LANES], [0u32; LANES]);
            let (a, b) = (row(w, i, 0, &mut ta), row(w, i, 1, &mut tb));
            let k = [i.lit; LANES];
            let none = (u32::MAX, 0);
            let r = if i.op == VFmamkF32 {
                fl::fma_bits32(a, &k, b, [none; 3])
            } else {
                fl::fma_bits32(a, b, &k, [none; 3])
            };
            put(w, i, &r, u64::MAX)
        }
        VMacF32 | VFmacF32 => {
            let (a, en) = fsrc(w, i, 0);
            let (b, _) = fsrc(w, i, 1);
            let d = w.v[i.dst as usize];
            let c: [f32; LANES] = std::array::from_fn(|l| f32::from_bits(d[l]));
            let v = if i.op == VFmacF32 {
                fl::fma_row32(&a, &b, &c)
            } else {
                std::array::from_fn(|l| a[l] * b[l] + c[l])
            };
            let r: Row = std::array::from_fn(|l| fl::out32(v[l], i.omod, i.clamp).to_bits());
            put(w, i, &r, en)
        }
        VFmacF64 => {
            let (a, b) = (dsrc(w, i, 0), dsrc(w, i, 1));
            let d = src64(
                w,
                &Inst {
                    src: [256 + i.dst, 0, 0],
                    ..*i
                },
                0,
                true,
            );
            let c: [f64; LANES] = std::array::from_fn(|l| f64::from_bits(d[l]));
            let v = fl::fma_row64(&a, &b, &c);
            let r: Row64 = std::array::from_fn(|l| fl::out64(v[l], i.omod, i.clamp).to_bits());
            put64(w, i.dst as usize, &r)
        }
        VMadmkF32 | VFmamkF32 | VMadakF32 | VFmaakF32 => {
            let (a, en) = src(w, i, 0);
            let (b, _) = src(w, i, 1);
            let k = f32::from_bits(i.lit);
            let fused = matches!(i.op, VFmamkF32 | VFmaakF32);
            let mk = matches!(i.op, VMadmkF32 | VFmamkF32);
            // madmk: src0 * K + vsrc1; madak: src0 * vsrc1 + K.
            let x: [f32; LANES] = std::array::from_fn(|l| f32::from_bits(a[l]));
            let y: [f32; LANES] = std::array::from_fn(|l| f32::from_bits(b[l]));
            let kk = [k; LANES];
            let (m, c) = if mk { (&kk, &y) } else { (&y, &kk) };
            let v = if fused {
                fl::fma_row32(&x, m, c)
            } else {
                std::array::from_fn(|l| x[l] * m[l] + c[l])
            };
            let r: Row = std::array::from_fn(|l| v[l].to_bits());
            put(w, i, &r, en)
        }
        VAddCoU32 => carry(w, i, |a, b, _| a.overflowing_add(b)),
        VSubCoU32 => carry(w, i, |a, b, _| a.overflowing_sub(b)),
        VSubrevCoU32 => carry(w, i, |a, b, _| b.overflowing_sub(a)),
        VAddcCoU32 => carry(w, i, |a, b, c| {
            let s = a as u64 + b as u64 + c as u64;
            (s as u32, s >> 32 != 0)
        }),
        VSubbCoU32 => carry(w, i, |a, b, c| {
            let bb = b as u64 + c as u64;
            (a.wrapping_sub(bb as u32), bb > a as u64)
        }),
        VSubbrevCoU32 => carry(w, i, |a, b, c| {
            let aa = a as u64 + c as u64;
            (b.wrapping_sub(aa as u32), aa > b as u64)
        }),
        VAddF16 => h2(w, i, |a, b| a + b),
        VSubF16 => h2(w, i, |a, b| a - b),
        VSubrevF16 => h2(w, i, |a, b| b - a),
        VMulF16 => h2(w, i, |a, b| a * b),
        VMaxF16 => h2(w, i, fl::fmax),
        VMinF16 => h2(w, i, fl::fmin),
        VLdexpF16 => {
            let (a, en) = hsrc(w, i, 0);
            // GFX12 (true16 operand): S1 is an i16 half; GFX9 reads the whole dword.
            let (b, _) = if i.t16 {
                let (h, e) = src16(w, i, 1);
                (h.map(|x| x as u16 as i16 as i32 as u32), e)
            } else {
                src(w, i, 1)
            };
            let r: Row = std::array::from_fn(|l| fl::d2h(fl::ldexp64(a[l] as f64, b[l] as i32)));
            put16(w, i, &r, en)
        }
        VAddU16 if i.clamp => int2_16(w, i, |a, b| a.saturating_add(b)),
        VSubU16 if i.clamp => int2_16(w, i, |a, b| a.saturating_sub(b)),
        VAddU16 => int2_16(w, i, |a, b| a.wrapping_add(b)),
        VSubU16 => int2_16(w, i, |a, b| a.wrapping_sub(b)),
        VSubrevU16 => int2_16(w, i, |a, b| b.wrapping_sub(a)),
        VMulLoU16 => int2_16(w, i, |a, b| a.wrapping_mul(b)),
        VLshlrevB16 => int2_16(w, i, |a, b| b << (a & 15)),
        VLshrrevB16 => int2_16(w, i, |a, b| b >> (a & 15)),
        VAshrrevI16 => int2_16(w, i, |a, b| ((b as i16) >> (a & 15)) as u16),
        VMaxU16 => int2_16(w, i, |a, b| a.max(b)),
        VMinU16 => int2_16(w, i, |a, b| a.min(b)),
        VMaxI16 => int2_16(w, i, |a, b| (a as i16).max(b as i16) as u16),
        VMinI16 => int2_16(w, i, |a, b| (a as i16).min(b as i16) as u16),
        _ => return super::valu3::exec(w, i),
    }
    Ok(())
}

fn h_from(w: &mut Wave, i: &Inst, f: impl Fn(u32) -> f32) {
    let (a, en) = src16(w, i, 0);
    let r: Row = std::array::from_fn(|l| fl::f2h(f(a[l])));
    put16(w, i, &r, en)
}

fn int2_16(w: &mut Wave, i: &Inst, f: impl Fn(u16, u16) -> u16) {
    let (a, en) = src16(w, i, 0);
    let (b, _) = src16(w, i, 1);
    let r: Row = std::array::from_fn(|l| f(a[l] as u16, b[l] as u16) as u32);
    put16(w, i, &r, en)
}
