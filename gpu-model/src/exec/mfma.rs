//! CDNA matrix core (MFMA) operations: every dense f32, f16, bf16, i8 and f64 shape of
//! gfx90a, gfx942 and gfx950 except xf32/fp8/bf8/f8f6f4 and the 4x4 f64 shape, with the
//! CBSZ/ABID A-broadcast and BLGP B-lane-group modifiers.
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

use super::decode::Inst;
use super::op::Op;
use super::wave::{Wave, AGPR_BASE, LANES};
use super::FaultReason;

/// Source element type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ty {
    F32,
    F16,
    Bf16,
    I8,
    F64,
}

impl Ty {
    /// Element width in bits.
    fn bits(self) -> usize {
        match self {
            Ty::F32 => 32,
            Ty::F16 | Ty::Bf16 => 16,
            Ty::I8 => 8,
            Ty::F64 => 64,
        }
    }
}

/// (n, k, source values per lane, type) of an MFMA operation.
fn shape(op: Op) -> Option<(usize, usize, usize, Ty)> {
    use Op::*;
    use Ty::*;
    Some(match op {
        VMfmaF32_32x32x1F32 | VMfmaF32_32x32x1_2bF32 => (32, 1, 1, F32),
        VMfmaF32_16x16x1F32 | VMfmaF32_16x16x1_4bF32 => (16, 1, 1, F32),
        VMfmaF32_4x4x1F32 | VMfmaF32_4x4x1_16bF32 => (4, 1, 1, F32),
        VMfmaF32_32x32x2F32 | VMfmaF32_32x32x2F32Gfx940 => (32, 2, 1, F32),
        VMfmaF32_16x16x4F32 | VMfmaF32_16x16x4F32Gfx940 => (16, 4, 1, F32),
        VMfmaF32_32x32x4F16 | VMfmaF32_32x32x4_2bF16 => (32, 4, 4, F16),
        VMfmaF32_16x16x4F16 | VMfmaF32_16x16x4_4bF16 => (16, 4, 4, F16),
        VMfmaF32_4x4x4F16 | VMfmaF32_4x4x4_16bF16 => (4, 4, 4, F16),
        VMfmaF32_32x32x8F16 | VMfmaF32_32x32x8F16Gfx940 => (32, 8, 4, F16),
        VMfmaF32_16x16x16F16 | VMfmaF32_16x16x16F16Gfx940 => (16, 16, 4, F16),
        VMfmaF32_16x16x32F16 => (16, 32, 8, F16),
        VMfmaF32_32x32x16F16 => (32, 16, 8, F16),
        VMfmaI32_32x32x4I8 | VMfmaI32_32x32x4_2bI8 => (32, 4, 4, I8),
        VMfmaI32_16x16x4I8 | VMfmaI32_16x16x4_4bI8 => (16, 4, 4, I8),
        VMfmaI32_4x4x4I8 | VMfmaI32_4x4x4_16bI8 => (4, 4, 4, I8),
        VMfmaI32_32x32x8I8 => (32, 8, 4, I8),
        VMfmaI32_16x16x16I8 => (16, 16, 4, I8),
        VMfmaI32_32x32x16I8 => (32, 16, 8, I8),
        VMfmaI32_16x16x32I8 => (16, 32, 8, I8),
        VMfmaI32_32x32x32I8 => (32, 32, 16, I8),
        VMfmaI32_16x16x64I8 => (16, 64, 16, I8),
        VMfmaF32_32x32x2Bf16 => (32, 2, 2, Bf16),
        VMfmaF32_16x16x2Bf16 => (16, 2, 2, Bf16),
        VMfmaF32_4x4x2Bf16 => (4, 2, 2, Bf16),
        VMfmaF32_32x32x4Bf16 => (32, 4, 2, Bf16),
        VMfmaF32_16x16x8Bf16 => (16, 8, 2, Bf16),
        VMfmaF32_32x32x4Bf16_1k | VMfmaF32_32x32x4_2bBf16 => (32, 4, 4, Bf16),
        VMfmaF32_16x16x4Bf16_1k | VMfmaF32_16x16x4_4bBf16 => (16, 4, 4, Bf16),
        VMfmaF32_4x4x4Bf16_1k | VMfmaF32_4x4x4_16bBf16 => (4, 4, 4, Bf16),
        VMfmaF32_32x32x8Bf16_1k | VMfmaF32_32x32x8Bf16 => (32, 8, 4, Bf16),
        VMfmaF32_16x16x16Bf16_1k | VMfmaF32_16x16x16Bf16 => (16, 16, 4, Bf16),
        VMfmaF32_16x16x32Bf16 => (16, 32, 8, Bf16),
        VMfmaF32_32x32x16Bf16 => (32, 16, 8, Bf16),
        VMfmaF64_16x16x4F64 | VMfmaF64_16x16x4F64Gfx940 => (16, 4, 1, F64),
        _ => return None,
    })
}

/// Executes an MFMA operation (or reports the operation as unimplemented).
#[inline(never)]
pub(crate) fn exec(w: &mut Wave, i: &Inst) -> Result<(), FaultReason> {
    let Some((n, k, kl, ty)) = shape(i.op) else {
        return Err(FaultReason::Unimplemented(i.op.name()));
    };
    let g = LANES / n;
    let gpb = k / kl;
    let blocks = g / gpb;
    let cbsz = (i.w0 >> 8) & 7;
    let abid = (i.w0 >> 11) & 0xf;
    // gfx942/gfx950 f64 MFMA: bits 63:61 are neg (A, B, C) instead of BLGP.
    let f64_neg = ty == Ty::F64 && i.op == Op::VMfmaF64_16x16x4F64Gfx940;
    let (blgp, neg) = if f64_neg {
        (0, i.w1 >> 29)
    } else {
        (i.w1 >> 29, 0)
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
    let acc_cd = i.w0 & (1 << 15) != 0;
    let reg = |code: u16, agpr: bool| -> Option<usize> {
        (code >= 256).then(|| (code - 256) as usize + if agpr { AGPR_BASE } else { 0 })
    };
    let (Some(ra), Some(rb)) = (
        reg(i.src[0], i.w1 & (1 << 27) != 0),
        reg(i.src[1], i.w1 & (1 << 28) != 0),
    ) else {
        return Err(FaultReason::UnsupportedForm(
            "mfma with scalar A/B operands",
        ));
    };
    let rc = reg(i.src[2], acc_cd);
    let bits = ty.bits();
    // Value `j` of lane `l` in the register tuple starting at row `r`, exactly as f64.
    let val = |r: usize, l: usize, j: usize| -> f64 {
        let bit = bits * j;
        let word = |x: usize| w.v[(r + x) % w.v.len()][l];
        let raw = word(bit / 32) >> (bit % 32);
        match ty {
            Ty::F32 => f32::from_bits(raw) as f64,
            Ty::F16 => half::f16::from_bits(raw as u16).to_f64(),
            Ty::Bf16 => f32::from_bits((raw & 0xffff) << 16) as f64,
            Ty::I8 => raw as u8 as i8 as f64,
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
                        let x = sign(0) * val(ra, la, ja);
                        let y = sign(1) * val(rb, b_lane(lb), jb);
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
                        let p = val(ra, la, ja) as i32 * val(rb, b_lane(lb), jb) as i32;
                        acc = acc.wrapping_add(p);
                    }
                    (acc as u32, 0)
                }
                _ => {
                    let mut acc = f32::from_bits(c_raw(0));
                    for kk in 0..k {
                        let (la, ja) = at(ab, row, kk);
                        let (lb, jb) = at(b, col, kk);
                        let x = val(ra, la, ja) as f32;
                        let y = val(rb, b_lane(lb), jb) as f32;
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
