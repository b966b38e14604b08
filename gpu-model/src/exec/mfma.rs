//! CDNA MFMA instructions of the executor's GFX9 decoder: their [`Shape`] and operands,
//! executed by [`super::matrix`] (layouts, modifiers and numerics are documented there).
//!
//! 8-bit floats (`v_mfma_f32_{16x16x32,32x32x16}_{fp8,bf8}_{fp8,bf8}`, A's type first) are
//! read in the FNUZ encodings on gfx942 (ROCm HIP "FP8 numbers": gfx942 supports FNUZ, not
//! OCP): fp8 = E4M3 with exponent bias 8, bf8 = E5M2 with bias 16, no infinities, 0x80 the
//! only NaN. gfx950 reads the OCP encodings with the same opcodes (LLVM review D106160:
//! "gfx12 and some future gfx9 ... support the OCP 8-bit float formats for their matrix
//! multiplication intrinsics ..., retaining existing opcodes"; composable_kernel selects
//! OCP for gfx950): fp8 = E4M3FN (bias 7, `S.1111.111` NaN, no infinity), bf8 = E5M2
//! (bias 15, IEEE infinities and NaNs).

use super::decode::Inst;
use super::matrix::{self, CSrc, Operands, Out, Shape, Ty};
use super::op::Op;
use super::wave::{Wave, AGPR_BASE};
use super::FaultReason;

/// The [`Shape`] of an MFMA operation (`None`: not one this module runs).
fn shape(op: Op) -> Option<Shape> {
    use Op::*;
    use Ty::*;
    // (m, k, values per lane, A type, result) -> blocks = 64 * kl / (m * k).
    let (m, k, kl, a, out) = match op {
        VMfmaF32_32x32x1F32 | VMfmaF32_32x32x1_2bF32 => (32, 1, 1, F32, Out::F32),
        VMfmaF32_16x16x1F32 | VMfmaF32_16x16x1_4bF32 => (16, 1, 1, F32, Out::F32),
        VMfmaF32_4x4x1F32 | VMfmaF32_4x4x1_16bF32 => (4, 1, 1, F32, Out::F32),
        VMfmaF32_32x32x2F32 | VMfmaF32_32x32x2F32Gfx940 => (32, 2, 1, F32, Out::F32),
        VMfmaF32_16x16x4F32 | VMfmaF32_16x16x4F32Gfx940 => (16, 4, 1, F32, Out::F32),
        VMfmaF32_32x32x4F16 | VMfmaF32_32x32x4_2bF16 => (32, 4, 4, F16, Out::F32),
        VMfmaF32_16x16x4F16 | VMfmaF32_16x16x4_4bF16 => (16, 4, 4, F16, Out::F32),
        VMfmaF32_4x4x4F16 | VMfmaF32_4x4x4_16bF16 => (4, 4, 4, F16, Out::F32),
        VMfmaF32_32x32x8F16 | VMfmaF32_32x32x8F16Gfx940 => (32, 8, 4, F16, Out::F32),
        VMfmaF32_16x16x16F16 | VMfmaF32_16x16x16F16Gfx940 => (16, 16, 4, F16, Out::F32),
        VMfmaF32_16x16x32F16 => (16, 32, 8, F16, Out::F32),
        VMfmaF32_32x32x16F16 => (32, 16, 8, F16, Out::F32),
        VMfmaI32_32x32x4I8 | VMfmaI32_32x32x4_2bI8 => (32, 4, 4, I8, Out::I32),
        VMfmaI32_16x16x4I8 | VMfmaI32_16x16x4_4bI8 => (16, 4, 4, I8, Out::I32),
        VMfmaI32_4x4x4I8 | VMfmaI32_4x4x4_16bI8 => (4, 4, 4, I8, Out::I32),
        VMfmaI32_32x32x8I8 => (32, 8, 4, I8, Out::I32),
        VMfmaI32_16x16x16I8 => (16, 16, 4, I8, Out::I32),
        VMfmaI32_32x32x16I8 => (32, 16, 8, I8, Out::I32),
        VMfmaI32_16x16x32I8 => (16, 32, 8, I8, Out::I32),
        VMfmaI32_32x32x32I8 => (32, 32, 16, I8, Out::I32),
        VMfmaI32_16x16x64I8 => (16, 64, 16, I8, Out::I32),
        VMfmaF32_32x32x2Bf16 => (32, 2, 2, Bf16, Out::F32),
        VMfmaF32_16x16x2Bf16 => (16, 2, 2, Bf16, Out::F32),
        VMfmaF32_4x4x2Bf16 => (4, 2, 2, Bf16, Out::F32),
        VMfmaF32_32x32x4Bf16 => (32, 4, 2, Bf16, Out::F32),
        VMfmaF32_16x16x8Bf16 => (16, 8, 2, Bf16, Out::F32),
        VMfmaF32_32x32x4Bf16_1k | VMfmaF32_32x32x4_2bBf16 => (32, 4, 4, Bf16, Out::F32),
        VMfmaF32_16x16x4Bf16_1k | VMfmaF32_16x16x4_4bBf16 => (16, 4, 4, Bf16, Out::F32),
        VMfmaF32_4x4x4Bf16_1k | VMfmaF32_4x4x4_16bBf16 => (4, 4, 4, Bf16, Out::F32),
        VMfmaF32_32x32x8Bf16_1k | VMfmaF32_32x32x8Bf16 => (32, 8, 4, Bf16, Out::F32),
        VMfmaF32_16x16x16Bf16_1k | VMfmaF32_16x16x16Bf16 => (16, 16, 4, Bf16, Out::F32),
        VMfmaF32_16x16x32Bf16 => (16, 32, 8, Bf16, Out::F32),
        VMfmaF32_32x32x16Bf16 => (32, 16, 8, Bf16, Out::F32),
        VMfmaF64_16x16x4F64 | VMfmaF64_16x16x4F64Gfx940 => (16, 4, 1, F64, Out::F64),
        VMfmaF32_16x16x32Bf8Bf8
        | VMfmaF32_16x16x32Bf8Fp8
        | VMfmaF32_16x16x32Fp8Bf8
        | VMfmaF32_16x16x32Fp8Fp8 => (16, 32, 8, Fp8, Out::F32),
        VMfmaF32_32x32x16Bf8Bf8
        | VMfmaF32_32x32x16Bf8Fp8
        | VMfmaF32_32x32x16Fp8Bf8
        | VMfmaF32_32x32x16Fp8Fp8 => (32, 16, 8, Fp8, Out::F32),
        _ => return None,
    };
    let (a_bf8, b_bf8) = f8_kinds(op);
    let f8 = |bf8: bool| if bf8 { Bf8 } else { Fp8 };
    let (a, b) = if a == Fp8 {
        (f8(a_bf8), f8(b_bf8))
    } else {
        (a, a)
    };
    Some(Shape::mfma(m, k, 64 * kl / (m * k), a, b, out))
}

/// Whether A and B of an 8-bit float MFMA are bf8 (E5M2) rather than fp8 (E4M3).
fn f8_kinds(op: Op) -> (bool, bool) {
    use Op::*;
    match op {
        VMfmaF32_16x16x32Bf8Bf8 | VMfmaF32_32x32x16Bf8Bf8 => (true, true),
        VMfmaF32_16x16x32Bf8Fp8 | VMfmaF32_32x32x16Bf8Fp8 => (true, false),
        VMfmaF32_16x16x32Fp8Bf8 | VMfmaF32_32x32x16Fp8Bf8 => (false, true),
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
    let Some(sh) = shape(i.op) else {
        return Err(FaultReason::Unimplemented(i.op.name()));
    };
    let acc_cd = i.w0 & (1 << 15) != 0;
    let reg = |code: u16, agpr: bool| -> Option<usize> {
        (code >= 256).then(|| (code - 256) as usize + if agpr { AGPR_BASE } else { 0 })
    };
    let (Some(a), Some(b)) = (
        reg(i.src[0], i.w1 & (1 << 27) != 0),
        reg(i.src[1], i.w1 & (1 << 28) != 0),
    ) else {
        return Err(FaultReason::UnsupportedForm(
            "mfma with scalar A/B operands",
        ));
    };
    let f64 = sh.out == Out::F64;
    let c = match reg(i.src[2], acc_cd) {
        Some(r) => CSrc::Rows(r),
        None if f64 => CSrc::Splat(w.sread64(i.src[2], i.lit, true)),
        None => CSrc::Splat(w.sread(i.src[2], i.lit) as u64),
    };
    let d = i.dst as usize + if acc_cd { AGPR_BASE } else { 0 };
    let mut o = Operands::new(a, b, c, d);
    o.cbsz = (i.w0 >> 8) & 7;
    o.abid = (i.w0 >> 11) & 0xf;
    o.fnuz = target == crate::Target::Gfx942;
    let blgp = i.w1 >> 29;
    // gfx942/gfx950 f64 MFMA: BLGP's bits negate A, B, C; gfx90a disallows BLGP there.
    match (f64, i.op == Op::VMfmaF64_16x16x4F64Gfx940) {
        (true, true) => o.neg = blgp,
        (true, false) if blgp != 0 => {
            return Err(FaultReason::UnsupportedForm("gfx90a f64 mfma with blgp"))
        }
        _ => o.blgp = blgp,
    }
    matrix::exec(w, &sh, &o)
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
