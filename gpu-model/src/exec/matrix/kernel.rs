//! The arithmetic: element decoding into the accumulation type, the multiply-accumulate
//! loops (k order, vectorisable over the result row) and the per-arithmetic drivers, with
//! per-thread scratch buffers so an instruction neither allocates nor clears memory.

use super::elem::{self, Elem};
use super::gather::{self, Tuple};
use super::{Family, Operands, Out, Plan, ScaleSrc, Ty, MAX};
use crate::exec::minifloat;
use crate::exec::wave::{Wave, LANES};
use std::cell::RefCell;

/// Multiply-accumulate rules (see the module doc, "Numerics").
trait Arith {
    type V: Copy + Default;
    fn mac(acc: Self::V, x: Self::V, y: Self::V) -> Self::V;
}

/// f32 accumulation of products that are exact in f32.
struct F32Exact;
impl Arith for F32Exact {
    type V = f32;
    #[inline(always)]
    fn mac(acc: f32, x: f32, y: f32) -> f32 {
        acc + x * y
    }
}

/// f32 fused multiply-add (f32 sources).
struct F32Fused;
impl Arith for F32Fused {
    type V = f32;
    #[inline(always)]
    fn mac(acc: f32, x: f32, y: f32) -> f32 {
        x.mul_add(y, acc)
    }
}

/// f64 fused multiply-add.
struct F64Fused;
impl Arith for F64Fused {
    type V = f64;
    #[inline(always)]
    fn mac(acc: f64, x: f64, y: f64) -> f64 {
        x.mul_add(y, acc)
    }
}

/// Exact integer accumulation (every sum of the instructions fits an i64).
struct Int;
impl Arith for Int {
    type V = i64;
    #[inline(always)]
    fn mac(acc: i64, x: i64, y: i64) -> i64 {
        acc.wrapping_add(x.wrapping_mul(y))
    }
}

/// The A/B values and the result accumulator of one instruction in one arithmetic
/// (`ks`: the dense k of each stored sparse A value).
struct Mats<'a, V> {
    a: &'a mut [V],
    ks: &'a [u16],
    b: &'a mut [V],
    d: &'a mut [V],
}

/// Per-thread buffers of [`MAX`] elements: raw codes, and the values of each arithmetic.
struct Scratch {
    raw_a: Vec<u64>,
    raw_b: Vec<u64>,
    raw_c: Vec<u64>,
    ks: Vec<u16>,
    f32s: [Vec<f32>; 3],
    f64s: [Vec<f64>; 3],
    ints: [Vec<i64>; 3],
}

impl Scratch {
    fn new() -> Scratch {
        Scratch {
            raw_a: vec![0; MAX],
            raw_b: vec![0; MAX],
            raw_c: vec![0; MAX],
            ks: vec![0; MAX],
            f32s: std::array::from_fn(|_| vec![0.0; MAX]),
            f64s: std::array::from_fn(|_| vec![0.0; MAX]),
            ints: std::array::from_fn(|_| vec![0; MAX]),
        }
    }
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::new());
}

/// Element counts of A (stored values), B and D.
fn counts(p: &Plan) -> (usize, usize, usize) {
    let sh = &p.sh;
    (
        sh.m * sh.blocks * p.kc,
        sh.n * sh.blocks * sh.k,
        sh.m * sh.n * sh.blocks,
    )
}

/// Gathers every operand's raw codes into the scratch buffers.
fn gather_all(w: &Wave, p: &Plan, o: &Operands, s: &mut Scratch) {
    let ta = Tuple::load(w, o.a, p.a_regs);
    let tb = Tuple::load(w, o.b, p.b_regs);
    if p.sh.sparse {
        gather::gather_sparse(p, o, &ta, &w.v[o.index], &mut s.raw_a, &mut s.ks);
    } else {
        gather::gather(p, o, &ta, false, &mut s.raw_a);
    }
    gather::gather(p, o, &tb, true, &mut s.raw_b);
    gather::gather_c(w, p, o, &mut s.raw_c);
}

/// `N` consecutive values of `s` from `at`: the matrices are [`MAX`]-element buffers whose
/// rows the plan sized, so the slice is always in range.
#[inline(always)]
fn row<V, const N: usize>(s: &[V], at: usize) -> &[V; N] {
    s[at..at + N].try_into().expect("row of N values")
}

/// `D += A * B` per block, in k order (see [`mul_n`]).
fn multiply<A: Arith>(p: &Plan, o: &Operands, m: &mut Mats<'_, A::V>) {
    match p.sh.n {
        4 => mul_n::<A, 4>(p, o, m),
        16 => mul_n::<A, 16>(p, o, m),
        _ => mul_n::<A, 32>(p, o, m),
    }
}

/// `D += A * B` for `N`-wide results: one result row lives in registers while the k loop
/// runs, each k adding `a[i][k] * b[k][..]` to all `N` columns (vectorised over j; the
/// order of the additions into each element is the k order).
fn mul_n<A: Arith, const N: usize>(p: &Plan, o: &Operands, m: &mut Mats<'_, A::V>) {
    let sh = &p.sh;
    let (rows, k, kc) = (sh.m, sh.k, p.kc);
    let cbsz = o.cbsz.min(31);
    for blk in 0..sh.blocks {
        // CBSZ/ABID broadcast A blocks of the dense CDNA shapes only (checked by the plan).
        let ab = if sh.sparse || sh.a == Ty::F8f6f4 || sh.family == Family::Gfx12 {
            blk
        } else {
            (blk >> cbsz << cbsz) + o.abid as usize
        };
        for i in 0..rows {
            let at = (blk * rows + i) * N;
            let mut acc: [A::V; N] = *row(m.d, at);
            let (arow, krow) = if sh.sparse {
                (&m.a[i * kc..][..kc], &m.ks[i * kc..][..kc])
            } else {
                (&m.a[(ab * rows + i) * k..][..kc], &m.ks[..0])
            };
            for (c, &x) in arow.iter().enumerate() {
                let kk = if sh.sparse { krow[c] as usize } else { c };
                let brow: &[A::V; N] = row(m.b, (blk * k + kk) * N);
                for j in 0..N {
                    acc[j] = A::mac(acc[j], x, brow[j]);
                }
            }
            m.d[at..at + N].copy_from_slice(&acc);
        }
    }
}

/// The f8f6f4 datapath: per 32-wide k block, products summed from zero in f32, the block
/// sum times the A and B block scales (E8M0 values, NaN for a NaN scale; the product is
/// exact in f64, one rounding to f32) added to D.
fn multiply_blocked(p: &Plan, m: &mut Mats<'_, f32>, scales: &[[f32; LANES]; 2]) {
    let sh = &p.sh;
    let (rows, n, k) = (sh.m, sh.n, sh.k);
    let mut part = [0f32; 32];
    for i in 0..rows {
        for kb in 0..k / 32 {
            let part = &mut part[..n];
            part.fill(0.0);
            for kk in 32 * kb..32 * kb + 32 {
                let x = m.a[i * k + kk];
                let brow = &m.b[kk * n..][..n];
                for (pj, &bj) in part.iter_mut().zip(brow) {
                    *pj += x * bj;
                }
            }
            let d = &mut m.d[i * n..][..n];
            let sa = scales[0][kb * rows + i] as f64;
            for (j, dj) in d.iter_mut().enumerate() {
                let sb = scales[1][kb * n + j] as f64;
                *dj += (part[j] as f64 * sa * sb) as f32;
            }
        }
    }
}

fn conv(raw: &[u64], out: &mut [f32], f: impl Fn(u64) -> f32) {
    raw.iter().zip(out).for_each(|(&r, o)| *o = f(r));
}

/// Decodes raw codes to f32, with the GFX12 16-bit NEG/NEG_HI flips (`neg` bit 0 for the
/// low half, bit 1 for the high half). One loop per format (no per-element dispatch).
fn to_f32(e: Elem, raw: &[u64], out: &mut [f32], neg: u32) {
    use minifloat::{decode, Format as F};
    let flip = |v: f32, r: u64| if neg >> (r >> 63) & 1 != 0 { -v } else { v };
    match e {
        Elem::Fp8 => conv(raw, out, |r| decode(F::Fp8, r as u32)),
        Elem::Bf8 => conv(raw, out, |r| decode(F::Bf8, r as u32)),
        Elem::Fp8Fnuz => conv(raw, out, |r| decode(F::Fp8Fnuz, r as u32)),
        Elem::Bf8Fnuz => conv(raw, out, |r| decode(F::Bf8Fnuz, r as u32)),
        Elem::Fp6 => conv(raw, out, |r| decode(F::Fp6, r as u32)),
        Elem::Bf6 => conv(raw, out, |r| decode(F::Bf6, r as u32)),
        Elem::Fp4 => conv(raw, out, |r| decode(F::Fp4, r as u32)),
        Elem::F16 => conv(raw, out, |r| flip(decode(F::F16, r as u32), r)),
        Elem::Bf16 => conv(raw, out, |r| flip(decode(F::Bf16, r as u32), r)),
        Elem::Xf32 => conv(raw, out, |r| elem::xf32(r as u32)),
        _ => conv(raw, out, |r| f32::from_bits(r as u32)),
    }
}

/// Runs one planned operation.
pub(super) fn run(w: &mut Wave, p: &Plan, o: &Operands) {
    SCRATCH.with_borrow_mut(|s| {
        gather_all(w, p, o, s);
        match p.sh.out {
            Out::F64 => run_f64(w, p, o, s),
            Out::I32 => run_int(w, p, o, s),
            _ => run_f32(w, p, o, s),
        }
    })
}

/// f64 operations (gfx942+: NEG bits from BLGP negate A, B, C).
fn run_f64(w: &mut Wave, p: &Plan, o: &Operands, s: &mut Scratch) {
    let (na, nb, nd) = counts(p);
    let [a, b, d] = &mut s.f64s;
    let sign = |bit: u32| if o.neg >> bit & 1 != 0 { -1.0 } else { 1.0 };
    (0..na).for_each(|x| a[x] = sign(0) * f64::from_bits(s.raw_a[x]));
    (0..nb).for_each(|x| b[x] = sign(1) * f64::from_bits(s.raw_b[x]));
    (0..nd).for_each(|x| d[x] = sign(2) * f64::from_bits(s.raw_c[x]));
    let mut m = Mats { a, ks: &s.ks, b, d };
    multiply::<F64Fused>(p, o, &mut m);
    gather::scatter(w, p, o, |x| m.d[x].to_bits());
}

/// Integer operations: exact sums, wrapped (or, GFX12 CLAMP, saturated) to i32.
fn run_int(w: &mut Wave, p: &Plan, o: &Operands, s: &mut Scratch) {
    let (na, nb, nd) = counts(p);
    let [a, b, d] = &mut s.ints;
    (0..na).for_each(|x| a[x] = p.a.int(s.raw_a[x]));
    (0..nb).for_each(|x| b[x] = p.b.int(s.raw_b[x]));
    (0..nd).for_each(|x| d[x] = s.raw_c[x] as u32 as i32 as i64);
    let mut m = Mats { a, ks: &s.ks, b, d };
    multiply::<Int>(p, o, &mut m);
    let clamp = o.clamp && p.sh.family == Family::Gfx12;
    gather::scatter(w, p, o, |x| {
        let v = m.d[x];
        let v = if clamp {
            v.clamp(i32::MIN as i64, i32::MAX as i64)
        } else {
            v
        };
        v as i32 as u32 as u64
    });
}

/// Operations accumulating in f32 (f32, f16 or bf16 results).
fn run_f32(w: &mut Wave, p: &Plan, o: &Operands, s: &mut Scratch) {
    let sh = &p.sh;
    let (na, nb, nd) = counts(p);
    let [a, b, d] = &mut s.f32s;
    to_f32(
        p.a,
        &s.raw_a[..na],
        &mut a[..na],
        o.neg & 1 | (o.neg_hi & 1) << 1,
    );
    to_f32(
        p.b,
        &s.raw_b[..nb],
        &mut b[..nb],
        (o.neg >> 1) & 1 | (o.neg_hi & 2),
    );
    let (neg_c, abs_c) = (o.neg & 4 != 0, o.neg_hi & 4 != 0);
    for (x, &c) in d[..nd].iter_mut().zip(&s.raw_c) {
        let mut v = match sh.out {
            Out::F16 => half::f16::from_bits(c as u16).to_f32(),
            Out::Bf16 => f32::from_bits((c as u32 & 0xffff) << 16),
            _ => f32::from_bits(c as u32),
        };
        if abs_c {
            v = v.abs();
        }
        if neg_c {
            v = -v;
        }
        *x = v;
    }
    let mut m = Mats { a, ks: &s.ks, b, d };
    if sh.a == Ty::F8f6f4 {
        let mut scales = [[1f32; LANES]; 2];
        if let Some(sc) = o.scale {
            for (n, (src, byte)) in sc.iter().enumerate() {
                for (l, e) in scales[n].iter_mut().enumerate() {
                    let word = match src {
                        ScaleSrc::Row(row) => w.v[*row][l],
                        ScaleSrc::Splat(x) => *x,
                    };
                    *e = minifloat::decode_e8m0((word >> (8 * (byte & 3))) as u8);
                }
            }
        }
        multiply_blocked(p, &mut m, &scales);
    } else if p.a == Elem::F32 {
        multiply::<F32Fused>(p, o, &mut m);
    } else {
        multiply::<F32Exact>(p, o, &mut m);
    }
    gather::scatter(w, p, o, |x| {
        let v = m.d[x];
        match sh.out {
            Out::F16 => half::f16::from_f32(v).to_bits() as u64,
            Out::Bf16 => half::bf16::from_f32(v).to_bits() as u64,
            _ => v.to_bits() as u64,
        }
    });
}
