//! CDNA matrix core (MFMA) operations: every dense f32, f16, bf16, i8, fp8/bf8 and f64
//! shape of gfx90a, gfx942 and gfx950 except xf32 (gfx942), f8f6f4 (gfx950) and the 4x4
//! f64 shape, with the CBSZ/ABID A-broadcast and BLGP B-lane-group modifiers.
//!
//! Shapes and operand layout (AMD's matrix instruction calculator and the CDNA3 ISA guide,
//! "Matrix Arithmetic Instructions"; the corpus kernels `mfma_f32` and `mfma_more` are
//! written for it). An `n` x `n` x `k` operation with `kl` source values per lane has
//! `g = 64 / n` lane groups of `n` lanes; `k / kl` consecutive groups form one block, so
//! there are `g / (k / kl)` independent blocks. Lane `l` (group `l / n`, block
//! `b = (l / n) / (k / kl)`) holds `A_b[l % n][kk]` and `B_b[kk][l % n]` for its `kl`
//! values `kk = kl * ((l / n) % (k / kl)) + j` (value `j` in bits `[w*j+w-1 : w*j]` of the
//! source register tuple, `w` the element width). Result value `v` of lane `l` is
//! `D_b[r % n][l % n]` with `r = 4 * g * (v / 4) + 4 * (l / n) + v % 4`, `b = r / n` (the
//! blocks stacked in rows); f64 results take two registers each.
//!
//! CBSZ/ABID (ISA guide, MFMA modifiers): block `b` reads A from block
//! `(b >> cbsz << cbsz) + abid`. BLGP: B of lane `l` is read from lane 1: `l % 32`,
//! 2: `32 + l % 32`, 3: `(l + 16) % 64` (rotate down by 16), 4..7: `16 * (blgp - 4) +
//! l % 16`. On gfx942/gfx950 the f64 shapes reuse the BLGP bits as source negates.
//! Accumulation: products are added in k order with one rounding each (fused multiply-
//! add, f32 for f32/f16/bf16 sources, f64 for f64); i8 products accumulate exactly in
//! wrapping i32. The hardware's internal order is not documented; with values whose sums
//! are exact (the tests use small integers) every order agrees.
//!
//! 8-bit floats (`v_mfma_f32_{16x16x32,32x32x16}_{fp8,bf8}_{fp8,bf8}`, A's type first) have
//! the operand layout of the i8 shapes with the same k (8 values per lane). gfx942 reads
//! them in the FNUZ encodings (ROCm HIP "FP8 numbers": gfx942 supports FNUZ, not OCP):
//! fp8 = E4M3 with exponent bias 8, bf8 = E5M2 with bias 16, no infinities, 0x80 the only
//! NaN. gfx950 reads the OCP encodings with the same opcodes (LLVM review D106160: "gfx12
//! and some future gfx9 ... support the OCP 8-bit float formats for their matrix
//! multiplication intrinsics ..., retaining existing opcodes"; composable_kernel selects
//! OCP for gfx950): fp8 = E4M3FN (bias 7, `S.1111.111` NaN, no infinity), bf8 = E5M2
//! (bias 15, IEEE infinities and NaNs). Every product of two 8-bit floats is exact in f32.

use super::inst::Inst;
use super::wave::{Wave, AGPR_BASE, LANES};
use super::FaultReason;
use crate::isa::Op;

/// Source element type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ty {
    F32,
    F16,
    Bf16,
    I8,
    /// An 8-bit float; which encoding (fp8/bf8) per operand is [`f8_kinds`].
    F8,
    F64,
}

impl Ty {
    /// Element width in bits.
    fn bits(self) -> usize {
        match self {
            Ty::F32 => 32,
            Ty::F16 | Ty::Bf16 => 16,
            Ty::I8 | Ty::F8 => 8,
            Ty::F64 => 64,
        }
    }
}

/// (n, k, source values per lane, type) of an MFMA operation.
fn shape(op: Op) -> Option<(usize, usize, usize, Ty)> {
    use Op::*;
    use Ty::*;
    Some(match op {
        VMfmaF3232x32x1f32 | VMfmaF3232x32x12bF32 => (32, 1, 1, F32),
        VMfmaF3216x16x1f32 | VMfmaF3216x16x14bF32 => (16, 1, 1, F32),
        VMfmaF324x4x1f32 | VMfmaF324x4x116bF32 => (4, 1, 1, F32),
        VMfmaF3232x32x2f32 | VMfmaF3232x32x2F32 => (32, 2, 1, F32),
        VMfmaF3216x16x4f32 | VMfmaF3216x16x4F32 => (16, 4, 1, F32),
        VMfmaF3232x32x4f16 | VMfmaF3232x32x42bF16 => (32, 4, 4, F16),
        VMfmaF3216x16x4f16 | VMfmaF3216x16x44bF16 => (16, 4, 4, F16),
        VMfmaF324x4x4f16 | VMfmaF324x4x416bF16 => (4, 4, 4, F16),
        VMfmaF3232x32x8f16 | VMfmaF3232x32x8F16 => (32, 8, 4, F16),
        VMfmaF3216x16x16f16 | VMfmaF3216x16x16F16 => (16, 16, 4, F16),
        VMfmaF3216x16x32F16 => (16, 32, 8, F16),
        VMfmaF3232x32x16F16 => (32, 16, 8, F16),
        VMfmaI3232x32x4i8 | VMfmaI3232x32x42bI8 => (32, 4, 4, I8),
        VMfmaI3216x16x4i8 | VMfmaI3216x16x44bI8 => (16, 4, 4, I8),
        VMfmaI324x4x4i8 | VMfmaI324x4x416bI8 => (4, 4, 4, I8),
        VMfmaI3232x32x8i8 => (32, 8, 4, I8),
        VMfmaI3216x16x16i8 => (16, 16, 4, I8),
        VMfmaI3232x32x16I8 => (32, 16, 8, I8),
        VMfmaI3216x16x32I8 => (16, 32, 8, I8),
        VMfmaI3232x32x32I8 => (32, 32, 16, I8),
        VMfmaI3216x16x64I8 => (16, 64, 16, I8),
        VMfmaF3232x32x2bf16 => (32, 2, 2, Bf16),
        VMfmaF3216x16x2bf16 => (16, 2, 2, Bf16),
        VMfmaF324x4x2bf16 => (4, 2, 2, Bf16),
        VMfmaF3232x32x4bf16 => (32, 4, 2, Bf16),
        VMfmaF3216x16x8bf16 => (16, 8, 2, Bf16),
        VMfmaF3232x32x4bf161k | VMfmaF3232x32x42bBf16 => (32, 4, 4, Bf16),
        VMfmaF3216x16x4bf161k | VMfmaF3216x16x44bBf16 => (16, 4, 4, Bf16),
        VMfmaF324x4x4bf161k | VMfmaF324x4x416bBf16 => (4, 4, 4, Bf16),
        VMfmaF3232x32x8bf161k | VMfmaF3232x32x8Bf16 => (32, 8, 4, Bf16),
        VMfmaF3216x16x16bf161k | VMfmaF3216x16x16Bf16 => (16, 16, 4, Bf16),
        VMfmaF3216x16x32Bf16 => (16, 32, 8, Bf16),
        VMfmaF3232x32x16Bf16 => (32, 16, 8, Bf16),
        VMfmaF6416x16x4f64 | VMfmaF6416x16x4F64 => (16, 4, 1, F64),
        VMfmaF3216x16x32Bf8Bf8
        | VMfmaF3216x16x32Bf8Fp8
        | VMfmaF3216x16x32Fp8Bf8
        | VMfmaF3216x16x32Fp8Fp8 => (16, 32, 8, F8),
        VMfmaF3232x32x16Bf8Bf8
        | VMfmaF3232x32x16Bf8Fp8
        | VMfmaF3232x32x16Fp8Bf8
        | VMfmaF3232x32x16Fp8Fp8 => (32, 16, 8, F8),
        _ => return None,
    })
}

/// Whether A and B of an 8-bit float MFMA are bf8 (E5M2) rather than fp8 (E4M3).
fn f8_kinds(op: Op) -> (bool, bool) {
    use Op::*;
    match op {
        VMfmaF3216x16x32Bf8Bf8 | VMfmaF3232x32x16Bf8Bf8 => (true, true),
        VMfmaF3216x16x32Bf8Fp8 | VMfmaF3232x32x16Bf8Fp8 => (true, false),
        VMfmaF3216x16x32Fp8Bf8 | VMfmaF3232x32x16Fp8Bf8 => (false, true),
        _ => (false, false),
    }
}

/// The value of 8-bit float `x`: bf8 (E5M2) or fp8 (E4M3), OCP or FNUZ encoding (see the
/// module doc).
pub(crate) fn f8_value(x: u8, bf8: bool, ocp: bool) -> f64 {
    let (ebits, mbits) = if bf8 { (5, 2) } else { (4, 3) };
    let bias = (1 << (ebits - 1)) - i32::from(ocp);
    let e = ((x >> mbits) & ((1 << ebits) - 1)) as i32;
    let m = (x & ((1 << mbits) - 1)) as i32;
    let neg = x & 0x80 != 0;
    if !ocp && x == 0x80 {
        return f64::NAN;
    }
    if ocp {
        let emax = (1 << ebits) - 1;
        if bf8 && e == emax {
            return match (m, neg) {
                (0, false) => f64::INFINITY,
                (0, true) => f64::NEG_INFINITY,
                _ => f64::NAN,
            };
        }
        if !bf8 && e == emax && m == 7 {
            return f64::NAN;
        }
    }
    // Subnormals (e == 0) have exponent 1 - bias and no implicit one.
    let (sig, exp) = if e == 0 {
        (m, 1 - bias)
    } else {
        (m | 1 << mbits, e - bias)
    };
    let v = sig as f64 * 2f64.powi(exp - mbits);
    if neg {
        -v
    } else {
        v
    }
}

/// Executes an MFMA operation of `target` (or reports the operation as unimplemented).
#[inline(never)]
pub(crate) fn exec(w: &mut Wave, i: &Inst, target: crate::Target) -> Result<(), FaultReason> {
    let Some((n, k, kl, ty)) = shape(i.op) else {
        return Err(FaultReason::Unimplemented(i.mnemonic()));
    };
    let g = LANES / n;
    let gpb = k / kl;
    let blocks = g / gpb;
    let cbsz = u32::from(i.mai.cbsz);
    let abid = u32::from(i.mai.abid);
    // gfx942/gfx950 f64 MFMA: bits 63:61 are neg (A, B, C) instead of BLGP.
    let f64_neg = ty == Ty::F64 && i.op == Op::VMfmaF6416x16x4F64;
    let (blgp, neg) = if f64_neg {
        (0, u32::from(i.mai.blgp))
    } else {
        (u32::from(i.mai.blgp), 0)
    };
    if f64_neg && (cbsz != 0 || abid != 0) {
        return Err(FaultReason::UnsupportedForm("f64 mfma with cbsz/abid"));
    }
    let a_block = |b: usize| (b >> cbsz << cbsz) + abid as usize;
    if (0..blocks).any(|b| a_block(b) >= blocks) {
        return Err(FaultReason::UnsupportedForm(
            "mfma abid names a block the shape does not have",
        ));
    }
    let b_lane = |l: usize| match blgp {
        0 => l,
        1 => l % 32,
        2 => 32 + l % 32,
        3 => (l + 16) % 64,
        p => 16 * (p as usize - 4) + l % 16,
    };
    let acc_cd = i.mai.acc_cd;
    let reg = |code: u16, agpr: bool| -> Option<usize> {
        (code >= 256).then(|| (code - 256) as usize + if agpr { AGPR_BASE } else { 0 })
    };
    let (Some(ra), Some(rb)) = (
        reg(i.src[0], i.mai.acc & 1 != 0),
        reg(i.src[1], i.mai.acc & 2 != 0),
    ) else {
        return Err(FaultReason::UnsupportedForm(
            "mfma with scalar A/B operands",
        ));
    };
    let rc = reg(i.src[2], acc_cd);
    let bits = ty.bits();
    let (a_bf8, b_bf8) = f8_kinds(i.op);
    let ocp = target != crate::Target::Gfx942;
    // Value `j` of lane `l` in the register tuple starting at row `r`, exactly as f64
    // (`bf8`: an 8-bit float source is bf8).
    let val = |r: usize, l: usize, j: usize, bf8: bool| -> f64 {
        let bit = bits * j;
        let word = |x: usize| w.v[(r + x) % w.v.len()][l];
        let raw = word(bit / 32) >> (bit % 32);
        match ty {
            Ty::F32 => f32::from_bits(raw) as f64,
            Ty::F16 => half::f16::from_bits(raw as u16).to_f64(),
            Ty::Bf16 => f32::from_bits((raw & 0xffff) << 16) as f64,
            Ty::I8 => raw as u8 as i8 as f64,
            Ty::F8 => f8_value(raw as u8, bf8, ocp),
            Ty::F64 => f64::from_bits(raw as u64 | (word(1) as u64) << 32),
        }
    };
    let sign = |bit: u32| if neg >> bit & 1 != 0 { -1.0 } else { 1.0 };
    // Source lane and value index of element kk of row/column `m` of block `b`.
    let at = |b: usize, m: usize, kk: usize| ((b * gpb + kk / kl) * n + m, kk % kl);
    let vals = blocks * n * n / LANES;
    let dregs = if ty == Ty::F64 { 2 } else { 1 };
    let c_const = w.sread(i.src[2], i.lit);
    let mut out = [[0u32; LANES]; 32];
    for v in 0..vals {
        // Lane-indexed: the lane picks matrix coordinates and up to two result rows.
        #[allow(clippy::needless_range_loop)]
        for l in 0..LANES {
            let r = 4 * g * (v / 4) + 4 * (l / n) + v % 4;
            let (b, row, col) = (r / n, r % n, l % n);
            let c_raw = |x: usize| match rc {
                Some(c) => w.v[(c + dregs * v + x) % w.v.len()][l],
                None => c_const,
            };
            let ab = a_block(b);
            let (lo, hi) = match ty {
                Ty::F64 => {
                    let c = f64::from_bits(c_raw(0) as u64 | (c_raw(1) as u64) << 32);
                    let c = if rc.is_none() {
                        f64::from_bits(w.sread64(i.src[2], i.lit, true))
                    } else {
                        c
                    };
                    let mut acc = sign(2) * c;
                    for kk in 0..k {
                        let (la, ja) = at(ab, row, kk);
                        let (lb, jb) = at(b, col, kk);
                        let x = sign(0) * val(ra, la, ja, false);
                        let y = sign(1) * val(rb, b_lane(lb), jb, false);
                        acc = x.mul_add(y, acc);
                    }
                    let bits = acc.to_bits();
                    (bits as u32, (bits >> 32) as u32)
                }
                Ty::I8 => {
                    let mut acc = c_raw(0) as i32;
                    for kk in 0..k {
                        let (la, ja) = at(ab, row, kk);
                        let (lb, jb) = at(b, col, kk);
                        let p =
                            val(ra, la, ja, false) as i32 * val(rb, b_lane(lb), jb, false) as i32;
                        acc = acc.wrapping_add(p);
                    }
                    (acc as u32, 0)
                }
                _ => {
                    let mut acc = f32::from_bits(c_raw(0));
                    for kk in 0..k {
                        let (la, ja) = at(ab, row, kk);
                        let (lb, jb) = at(b, col, kk);
                        let x = val(ra, la, ja, a_bf8) as f32;
                        let y = val(rb, b_lane(lb), jb, b_bf8) as f32;
                        acc = x.mul_add(y, acc);
                    }
                    (acc.to_bits(), 0)
                }
            };
            out[dregs * v][l] = lo;
            if dregs == 2 {
                out[2 * v + 1][l] = hi;
            }
        }
    }
    let dst = i.dst as usize + if acc_cd { AGPR_BASE } else { 0 };
    for (r, row) in out.iter().enumerate().take(vals * dregs) {
        let d = (dst + r) % w.v.len();
        w.v[d] = *row;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::f8_value;

    /// Edge values of the four 8-bit float encodings, from their definitions (OCP 8-bit
    /// floating point specification: E4M3 max 448, E5M2 max 57344 and infinities; FNUZ:
    /// one more exponent step, E4M3 max 240, 0x80 the only NaN).
    #[test]
    fn eight_bit_float_edges() {
        let p = |e: i32| 2f64.powi(e);
        // (byte, bf8, ocp, value)
        let cases = [
            (0x38, false, true, 1.0),
            (0x40, false, false, 1.0),
            (0x3c, true, true, 1.0),
            (0x40, true, false, 1.0),
            (0x7e, false, true, 448.0),
            (0x7f, false, false, 240.0),
            (0x7b, true, true, 57344.0),
            (0x7f, true, false, 57344.0),
            (0x01, false, true, p(-9)),
            (0x01, false, false, p(-10)),
            (0x01, true, true, p(-16)),
            (0x01, true, false, p(-17)),
            (0x80, false, true, -0.0),
            (0xc4, false, true, -3.0),
            (0x7c, true, true, f64::INFINITY),
            (0xfc, true, true, f64::NEG_INFINITY),
        ];
        for (x, bf8, ocp, want) in cases {
            let got = f8_value(x, bf8, ocp);
            assert_eq!(
                got.to_bits(),
                want.to_bits(),
                "{x:#04x} bf8 {bf8} ocp {ocp}: {got}"
            );
        }
        for (x, bf8, ocp) in [
            (0x80, false, false),
            (0x80, true, false),
            (0x7f, false, true),
            (0xff, false, true),
            (0x7d, true, true),
        ] {
            assert!(
                f8_value(x, bf8, ocp).is_nan(),
                "{x:#04x} bf8 {bf8} ocp {ocp}"
            );
        }
    }
}
