//! VALU lane kernels: the per-lane loops that operations of each shape (integer, f32, f64
//! or f16; one to three sources; carry out) reduce to.

use super::rows::{
    each, finish32, fmods, lanes, operands, put16, put64, src, src16, src64, wide, Chunk, Opnd,
    Row, Row64, CH,
};
use crate::exec::float::{self as fl, mod16, mod32, mod64};
use crate::exec::inst::Inst;
use crate::exec::wave::{Wave, LANES};
use crate::isa::Op;

wide! {
    pub(crate) fn int1(w: &mut Wave, i: &Inst, f: impl Fn(u32) -> u32) {
        let ([a], exec) = operands(w, i);
        lanes(
            w,
            i,
            i.dst as usize,
            exec,
            #[inline(always)]
            |w, c| {
                let x = a.chunk(w, c);
                each(|k| f(x[k]))
            },
        );
    }
}

wide! {
    pub(crate) fn int2(w: &mut Wave, i: &Inst, f: impl Fn(u32, u32) -> u32) {
        let ([a, b], exec) = operands(w, i);
        lanes(
            w,
            i,
            i.dst as usize,
            exec,
            #[inline(always)]
            |w, c| {
                let (x, y) = (a.chunk(w, c), b.chunk(w, c));
                each(|k| f(x[k], y[k]))
            },
        );
    }
}

wide! {
    pub(crate) fn int3(w: &mut Wave, i: &Inst, f: impl Fn(u32, u32, u32) -> u32) {
        let ([a, b, d], exec) = operands(w, i);
        lanes(
            w,
            i,
            i.dst as usize,
            exec,
            #[inline(always)]
            |w, c| {
                let (x, y, z) = (a.chunk(w, c), b.chunk(w, c), d.chunk(w, c));
                each(|k| f(x[k], y[k], z[k]))
            },
        );
    }
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

/// Chunk `c` of f32 source `o` with the input modifier masks `m` applied.
#[inline(always)]
fn fchunk(w: &Wave, o: Opnd, m: (u32, u32), c: usize) -> [f32; CH] {
    let x = o.chunk(w, c);
    each(|k| f32::from_bits((x[k] & m.0) ^ m.1))
}

wide! {
    pub(crate) fn f1(w: &mut Wave, i: &Inst, f: impl Fn(f32) -> f32) {
        let ([a], exec) = operands(w, i);
        let m = fmods(i, 0);
        lanes(
            w,
            i,
            i.dst as usize,
            exec,
            #[inline(always)]
            |w, c| {
                let x = fchunk(w, a, m, c);
                let mut r: Chunk = each(|k| f(x[k]).to_bits());
                finish32(i, &mut r);
                r
            },
        );
    }
}

/// [`fl::first_nan32`] over a chunk whose operands are `ops`: one vectorised test for a
/// NaN result, then the lanes that have one.
#[inline(always)]
fn first_nan<const N: usize>(r: &mut Chunk, ops: [&[f32; CH]; N]) {
    if !r.iter().fold(false, |a, &x| a | fl::is_nan32(x)) {
        return;
    }
    for (k, x) in r.iter_mut().enumerate() {
        *x = fl::first_nan32(*x, &ops.map(|o| o[k]));
    }
}

/// A binary f32 operation without its own NaN rule.
pub(crate) fn f2(w: &mut Wave, i: &Inst, f: impl Fn(f32, f32) -> f32) {
    f2_with(w, i, false, f)
}

/// A binary f32 arithmetic operation: NaN results follow [`fl::first_nan32`].
pub(crate) fn f2_arith(w: &mut Wave, i: &Inst, f: impl Fn(f32, f32) -> f32) {
    f2_with(w, i, true, f)
}

wide! {
    fn f2_with(w: &mut Wave, i: &Inst, nan: bool, f: impl Fn(f32, f32) -> f32) {
        let ([a, b], exec) = operands(w, i);
        let (ma, mb) = (fmods(i, 0), fmods(i, 1));
        lanes(
            w,
            i,
            i.dst as usize,
            exec,
            #[inline(always)]
            |w, c| {
                let (x, y) = (fchunk(w, a, ma, c), fchunk(w, b, mb, c));
                let mut r: Chunk = each(|k| f(x[k], y[k]).to_bits());
                if nan {
                    first_nan(&mut r, [&x, &y]);
                }
                finish32(i, &mut r);
                r
            },
        );
    }
}

/// A three-source f32 operation; `nan`: arithmetic, whose NaN results follow
/// [`fl::first_nan32`].
pub(crate) fn f3(w: &mut Wave, i: &Inst, nan: bool, f: impl Fn(f32, f32, f32) -> f32) {
    let (ops, exec) = operands(w, i);
    f3_ops(
        w,
        i,
        ops,
        exec,
        [fmods(i, 0), fmods(i, 1), fmods(i, 2)],
        nan,
        f,
    )
}

wide! {
    /// [`f3`] on given operands and input modifier masks (for accumulators and literals).
    pub(crate) fn f3_ops(
        w: &mut Wave,
        i: &Inst,
        ops: [Opnd; 3],
        exec: u64,
        m: [(u32, u32); 3],
        nan: bool,
        f: impl Fn(f32, f32, f32) -> f32,
    ) {
        lanes(w, i, i.dst as usize, exec, #[inline(always)] |w, c| {
            let (x, y) = (fchunk(w, ops[0], m[0], c), fchunk(w, ops[1], m[1], c));
            let z = fchunk(w, ops[2], m[2], c);
            let mut r: Chunk = each(|k| f(x[k], y[k], z[k]).to_bits());
            if nan {
                first_nan(&mut r, [&x, &y, &z]);
            }
            finish32(i, &mut r);
            r
        });
    }
}

wide! {
    /// [`f3`] whose operation has a rare slow case (`v_med3_f32` with a NaN): `fast` for
    /// every lane, then `slow` for the lanes of a chunk where `hard` holds. The check is
    /// per chunk, outside the per-lane loop, so that loop stays vectorised.
    pub(crate) fn f3_split(
        w: &mut Wave,
        i: &Inst,
        fast: impl Fn(f32, f32, f32) -> f32,
        hard: impl Fn(f32, f32, f32) -> bool,
        slow: impl Fn(f32, f32, f32) -> f32,
    ) {
        let (ops, exec): ([Opnd; 3], u64) = operands(w, i);
        let m = [fmods(i, 0), fmods(i, 1), fmods(i, 2)];
        lanes(w, i, i.dst as usize, exec, #[inline(always)] |w, c| {
            let (x, y) = (fchunk(w, ops[0], m[0], c), fchunk(w, ops[1], m[1], c));
            let z = fchunk(w, ops[2], m[2], c);
            let mut r: Chunk = each(|k| fast(x[k], y[k], z[k]).to_bits());
            let h: [bool; CH] = each(|k| hard(x[k], y[k], z[k]));
            if h.iter().fold(false, |a, &b| a | b) {
                for k in 0..CH {
                    if h[k] {
                        r[k] = slow(x[k], y[k], z[k]).to_bits();
                    }
                }
            }
            finish32(i, &mut r);
            r
        });
    }
}

/// `fma(src0, src1, src2)` (VOP3 modifiers applied), f32.
pub(crate) fn fma3(w: &mut Wave, i: &Inst) {
    let (ops, exec) = operands(w, i);
    fma_lanes(w, i, ops, exec, [fmods(i, 0), fmods(i, 1), fmods(i, 2)]);
}

wide! {
    /// In-place f32 `fma(a, b, c)` into `i.dst` under `exec`, each operand's input
    /// modifiers given as `(and, xor)` masks, then omod/clamp. (Without the FMA build,
    /// `f32::mul_add` is a libm call per lane.)
    pub(crate) fn fma_lanes(w: &mut Wave, i: &Inst, ops: [Opnd; 3], exec: u64, m: [(u32, u32); 3]) {
        lanes(w, i, i.dst as usize, exec, #[inline(always)] |w, c| {
            let x = fchunk(w, ops[0], m[0], c);
            let y = fchunk(w, ops[1], m[1], c);
            let z = fchunk(w, ops[2], m[2], c);
            let mut r: Chunk = each(|k| x[k].mul_add(y[k], z[k]).to_bits());
            first_nan(&mut r, [&x, &y, &z]);
            finish32(i, &mut r);
            r
        })
    }
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

pub(crate) fn d1(w: &mut Wave, i: &Inst, f: impl Fn(f64) -> f64) {
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

pub(crate) fn h1(w: &mut Wave, i: &Inst, f: impl Fn(f32) -> f32) {
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

pub(crate) fn h_from(w: &mut Wave, i: &Inst, f: impl Fn(u32) -> f32) {
    let (a, en) = src16(w, i, 0);
    let r: Row = std::array::from_fn(|l| fl::f2h(f(a[l])));
    put16(w, i, &r, en)
}

pub(crate) fn int2_16(w: &mut Wave, i: &Inst, f: impl Fn(u16, u16) -> u16) {
    let (a, en) = src16(w, i, 0);
    let (b, _) = src16(w, i, 1);
    let r: Row = std::array::from_fn(|l| f(a[l] as u16, b[l] as u16) as u32);
    put16(w, i, &r, en)
}

wide! {
/// Carry-producing integer op: writes the result and the carry mask to `sdst`.
pub(crate) fn carry(w: &mut Wave, i: &Inst, f: impl Fn(u32, u32, bool) -> (u32, bool)) {
    let cin = w.mask_operand(i.src[2], i.lit);
    let uses_cin = matches!(i.op, Op::VAddcCoU32 | Op::VSubbCoU32 | Op::VSubbrevCoU32);
    let cin = if uses_cin { cin } else { 0 };
    let ([a, b], exec) = operands(w, i);
    let mut co = 0u64;
    lanes(
        w,
        i,
        i.dst as usize,
        exec,
        #[inline(always)]
        |w, c| {
            let (x, y) = (a.chunk(w, c), b.chunk(w, c));
            let base = c * CH;
            each(|k| {
                let (v, o) = f(x[k], y[k], cin >> (base + k) & 1 != 0);
                co |= (o as u64) << (base + k);
                v
            })
        },
    );
    w.write_mask(i.sdst, co & exec);
}
}
