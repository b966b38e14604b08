//! Every matrix operation of the ISA tables (`isa::Op`) and its [`Shape`]: the CDNA MFMA
//! and SMFMAC of gfx90a, gfx942 and gfx950 (both the gfx90a names and the gfx940 ones), and
//! the GFX12 WMMA and SWMMAC. M, N, K and the block count are the mnemonic's (blocks: the
//! `_Nb` suffix, or 64 lanes over the operand's lane groups for the gfx90a names); the
//! register tuple sizes the generated tables list follow from them ([`super::layout`]).

use super::{Out, Shape, Ty};
use crate::isa::Op;

/// The shape of a matrix operation, `None` for any other operation.
pub(crate) fn shape(op: Op) -> Option<Shape> {
    use Op::*;
    use Ty::*;
    let mfma = |m, k, blocks, t: Ty, out| Shape::mfma(m, k, blocks, t, t, out);
    let f8 = |bf8: bool| if bf8 { Bf8 } else { Fp8 };
    Some(match op {
        // f32 sources.
        VMfmaF3232x32x1f32 | VMfmaF3232x32x12bF32 => mfma(32, 1, 2, F32, Out::F32),
        VMfmaF3216x16x1f32 | VMfmaF3216x16x14bF32 => mfma(16, 1, 4, F32, Out::F32),
        VMfmaF324x4x1f32 | VMfmaF324x4x116bF32 => mfma(4, 1, 16, F32, Out::F32),
        VMfmaF3232x32x2f32 | VMfmaF3232x32x2F32 => mfma(32, 2, 1, F32, Out::F32),
        VMfmaF3216x16x4f32 | VMfmaF3216x16x4F32 => mfma(16, 4, 1, F32, Out::F32),
        VMfmaF3216x16x8Xf32 => mfma(16, 8, 1, Xf32, Out::F32),
        VMfmaF3232x32x4Xf32 => mfma(32, 4, 1, Xf32, Out::F32),
        // f16.
        VMfmaF3232x32x4f16 | VMfmaF3232x32x42bF16 => mfma(32, 4, 2, F16, Out::F32),
        VMfmaF3216x16x4f16 | VMfmaF3216x16x44bF16 => mfma(16, 4, 4, F16, Out::F32),
        VMfmaF324x4x4f16 | VMfmaF324x4x416bF16 => mfma(4, 4, 16, F16, Out::F32),
        VMfmaF3232x32x8f16 | VMfmaF3232x32x8F16 => mfma(32, 8, 1, F16, Out::F32),
        VMfmaF3216x16x16f16 | VMfmaF3216x16x16F16 => mfma(16, 16, 1, F16, Out::F32),
        VMfmaF3216x16x32F16 => mfma(16, 32, 1, F16, Out::F32),
        VMfmaF3232x32x16F16 => mfma(32, 16, 1, F16, Out::F32),
        // bf16: the gfx90a two-value shapes, then the four-value (`_1k`, gfx940) ones.
        VMfmaF3232x32x2bf16 => mfma(32, 2, 2, Bf16, Out::F32),
        VMfmaF3216x16x2bf16 => mfma(16, 2, 4, Bf16, Out::F32),
        VMfmaF324x4x2bf16 => mfma(4, 2, 16, Bf16, Out::F32),
        VMfmaF3232x32x4bf16 => mfma(32, 4, 1, Bf16, Out::F32),
        VMfmaF3216x16x8bf16 => mfma(16, 8, 1, Bf16, Out::F32),
        VMfmaF3232x32x4bf161k | VMfmaF3232x32x42bBf16 => mfma(32, 4, 2, Bf16, Out::F32),
        VMfmaF3216x16x4bf161k | VMfmaF3216x16x44bBf16 => mfma(16, 4, 4, Bf16, Out::F32),
        VMfmaF324x4x4bf161k | VMfmaF324x4x416bBf16 => mfma(4, 4, 16, Bf16, Out::F32),
        VMfmaF3232x32x8bf161k | VMfmaF3232x32x8Bf16 => mfma(32, 8, 1, Bf16, Out::F32),
        VMfmaF3216x16x16bf161k | VMfmaF3216x16x16Bf16 => mfma(16, 16, 1, Bf16, Out::F32),
        VMfmaF3216x16x32Bf16 => mfma(16, 32, 1, Bf16, Out::F32),
        VMfmaF3232x32x16Bf16 => mfma(32, 16, 1, Bf16, Out::F32),
        // i8.
        VMfmaI3232x32x4i8 | VMfmaI3232x32x42bI8 => mfma(32, 4, 2, I8, Out::I32),
        VMfmaI3216x16x4i8 | VMfmaI3216x16x44bI8 => mfma(16, 4, 4, I8, Out::I32),
        VMfmaI324x4x4i8 | VMfmaI324x4x416bI8 => mfma(4, 4, 16, I8, Out::I32),
        VMfmaI3232x32x8i8 => mfma(32, 8, 1, I8, Out::I32),
        VMfmaI3216x16x16i8 => mfma(16, 16, 1, I8, Out::I32),
        VMfmaI3232x32x16I8 => mfma(32, 16, 1, I8, Out::I32),
        VMfmaI3216x16x32I8 => mfma(16, 32, 1, I8, Out::I32),
        VMfmaI3232x32x32I8 => mfma(32, 32, 1, I8, Out::I32),
        VMfmaI3216x16x64I8 => mfma(16, 64, 1, I8, Out::I32),
        // f64.
        VMfmaF6416x16x4f64 | VMfmaF6416x16x4F64 => mfma(16, 4, 1, F64, Out::F64),
        VMfmaF644x4x4f64 | VMfmaF644x4x44bF64 => mfma(4, 4, 4, F64, Out::F64),
        // 8-bit floats (A's type first).
        VMfmaF3216x16x32Fp8Fp8 => Shape::mfma(16, 32, 1, f8(false), f8(false), Out::F32),
        VMfmaF3216x16x32Fp8Bf8 => Shape::mfma(16, 32, 1, f8(false), f8(true), Out::F32),
        VMfmaF3216x16x32Bf8Fp8 => Shape::mfma(16, 32, 1, f8(true), f8(false), Out::F32),
        VMfmaF3216x16x32Bf8Bf8 => Shape::mfma(16, 32, 1, f8(true), f8(true), Out::F32),
        VMfmaF3232x32x16Fp8Fp8 => Shape::mfma(32, 16, 1, f8(false), f8(false), Out::F32),
        VMfmaF3232x32x16Fp8Bf8 => Shape::mfma(32, 16, 1, f8(false), f8(true), Out::F32),
        VMfmaF3232x32x16Bf8Fp8 => Shape::mfma(32, 16, 1, f8(true), f8(false), Out::F32),
        VMfmaF3232x32x16Bf8Bf8 => Shape::mfma(32, 16, 1, f8(true), f8(true), Out::F32),
        // gfx950 fp8/fp6/fp4 by CBSZ/BLGP, plain and scaled (VOP3PX2).
        VMfmaF3216x16x128F8f6f4 | VMfmaScaleF3216x16x128F8f6f4 => {
            mfma(16, 128, 1, F8f6f4, Out::F32)
        }
        VMfmaF3232x32x64F8f6f4 | VMfmaScaleF3232x32x64F8f6f4 => mfma(32, 64, 1, F8f6f4, Out::F32),
        // SMFMAC: 16-bit sources.
        VSmfmacF3216x16x32F16 => Shape::smfmac(16, 32, F16, F16, Out::F32),
        VSmfmacF3232x32x16F16 => Shape::smfmac(32, 16, F16, F16, Out::F32),
        VSmfmacF3216x16x64F16 => Shape::smfmac(16, 64, F16, F16, Out::F32),
        VSmfmacF3232x32x32F16 => Shape::smfmac(32, 32, F16, F16, Out::F32),
        VSmfmacF3216x16x32Bf16 => Shape::smfmac(16, 32, Bf16, Bf16, Out::F32),
        VSmfmacF3232x32x16Bf16 => Shape::smfmac(32, 16, Bf16, Bf16, Out::F32),
        VSmfmacF3216x16x64Bf16 => Shape::smfmac(16, 64, Bf16, Bf16, Out::F32),
        VSmfmacF3232x32x32Bf16 => Shape::smfmac(32, 32, Bf16, Bf16, Out::F32),
        // SMFMAC: 8-bit sources.
        VSmfmacI3216x16x64I8 => Shape::smfmac(16, 64, I8, I8, Out::I32),
        VSmfmacI3232x32x32I8 => Shape::smfmac(32, 32, I8, I8, Out::I32),
        VSmfmacI3216x16x128I8 => Shape::smfmac(16, 128, I8, I8, Out::I32),
        VSmfmacI3232x32x64I8 => Shape::smfmac(32, 64, I8, I8, Out::I32),
        VSmfmacF3216x16x64Fp8Fp8 => Shape::smfmac(16, 64, f8(false), f8(false), Out::F32),
        VSmfmacF3216x16x64Fp8Bf8 => Shape::smfmac(16, 64, f8(false), f8(true), Out::F32),
        VSmfmacF3216x16x64Bf8Fp8 => Shape::smfmac(16, 64, f8(true), f8(false), Out::F32),
        VSmfmacF3216x16x64Bf8Bf8 => Shape::smfmac(16, 64, f8(true), f8(true), Out::F32),
        VSmfmacF3232x32x32Fp8Fp8 => Shape::smfmac(32, 32, f8(false), f8(false), Out::F32),
        VSmfmacF3232x32x32Fp8Bf8 => Shape::smfmac(32, 32, f8(false), f8(true), Out::F32),
        VSmfmacF3232x32x32Bf8Fp8 => Shape::smfmac(32, 32, f8(true), f8(false), Out::F32),
        VSmfmacF3232x32x32Bf8Bf8 => Shape::smfmac(32, 32, f8(true), f8(true), Out::F32),
        VSmfmacF3216x16x128Fp8Fp8 => Shape::smfmac(16, 128, f8(false), f8(false), Out::F32),
        VSmfmacF3216x16x128Fp8Bf8 => Shape::smfmac(16, 128, f8(false), f8(true), Out::F32),
        VSmfmacF3216x16x128Bf8Fp8 => Shape::smfmac(16, 128, f8(true), f8(false), Out::F32),
        VSmfmacF3216x16x128Bf8Bf8 => Shape::smfmac(16, 128, f8(true), f8(true), Out::F32),
        VSmfmacF3232x32x64Fp8Fp8 => Shape::smfmac(32, 64, f8(false), f8(false), Out::F32),
        VSmfmacF3232x32x64Fp8Bf8 => Shape::smfmac(32, 64, f8(false), f8(true), Out::F32),
        VSmfmacF3232x32x64Bf8Fp8 => Shape::smfmac(32, 64, f8(true), f8(false), Out::F32),
        VSmfmacF3232x32x64Bf8Bf8 => Shape::smfmac(32, 64, f8(true), f8(true), Out::F32),
        // GFX12 WMMA.
        VWmmaF3216x16x16F16 => Shape::wmma(16, F16, F16, Out::F32),
        VWmmaF3216x16x16Bf16 => Shape::wmma(16, Bf16, Bf16, Out::F32),
        VWmmaF1616x16x16F16 => Shape::wmma(16, F16, F16, Out::F16),
        VWmmaBf1616x16x16Bf16 => Shape::wmma(16, Bf16, Bf16, Out::Bf16),
        VWmmaI3216x16x16Iu8 => Shape::wmma(16, Iu8, Iu8, Out::I32),
        VWmmaI3216x16x16Iu4 => Shape::wmma(16, Iu4, Iu4, Out::I32),
        VWmmaI3216x16x32Iu4 => Shape::wmma(32, Iu4, Iu4, Out::I32),
        VWmmaF3216x16x16Fp8Fp8 => Shape::wmma(16, f8(false), f8(false), Out::F32),
        VWmmaF3216x16x16Fp8Bf8 => Shape::wmma(16, f8(false), f8(true), Out::F32),
        VWmmaF3216x16x16Bf8Fp8 => Shape::wmma(16, f8(true), f8(false), Out::F32),
        VWmmaF3216x16x16Bf8Bf8 => Shape::wmma(16, f8(true), f8(true), Out::F32),
        // GFX12 SWMMAC.
        VSwmmacF3216x16x32F16 => Shape::swmmac(32, F16, F16, Out::F32),
        VSwmmacF3216x16x32Bf16 => Shape::swmmac(32, Bf16, Bf16, Out::F32),
        VSwmmacF1616x16x32F16 => Shape::swmmac(32, F16, F16, Out::F16),
        VSwmmacBf1616x16x32Bf16 => Shape::swmmac(32, Bf16, Bf16, Out::Bf16),
        VSwmmacI3216x16x32Iu8 => Shape::swmmac(32, Iu8, Iu8, Out::I32),
        VSwmmacI3216x16x32Iu4 => Shape::swmmac(32, Iu4, Iu4, Out::I32),
        VSwmmacI3216x16x64Iu4 => Shape::swmmac(64, Iu4, Iu4, Out::I32),
        VSwmmacF3216x16x32Fp8Fp8 => Shape::swmmac(32, f8(false), f8(false), Out::F32),
        VSwmmacF3216x16x32Fp8Bf8 => Shape::swmmac(32, f8(false), f8(true), Out::F32),
        VSwmmacF3216x16x32Bf8Fp8 => Shape::swmmac(32, f8(true), f8(false), Out::F32),
        VSwmmacF3216x16x32Bf8Bf8 => Shape::swmmac(32, f8(true), f8(true), Out::F32),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Target;
    use std::collections::BTreeSet;

    /// Every matrix operation of every target's table has a shape (the one refused alone,
    /// `v_mfma_ld_scale_b32`, is the first word of the scaled MFMAs) whose M, N and K are
    /// the mnemonic's.
    #[test]
    fn every_matrix_operation_has_its_shape() {
        let mut seen = BTreeSet::new();
        for t in Target::ALL {
            for op in crate::isa::ops(t) {
                let name = op.name();
                let matrix = ["v_mfma", "v_smfmac", "v_wmma", "v_swmmac"]
                    .iter()
                    .any(|p| name.starts_with(p));
                if !matrix || op == Op::VMfmaLdScaleB32 {
                    continue;
                }
                let sh = shape(op).unwrap_or_else(|| panic!("{name} has no shape"));
                let dims = format!("{}x{}x{}", sh.m, sh.n, sh.k);
                assert!(name.contains(&dims), "{name}: {dims}");
                seen.insert(op);
            }
        }
        assert_eq!(seen.len(), 119);
    }
}
