//! Matrix source element formats and their decoding to the accumulation type.
//!
//! The narrow float formats (8-, 6- and 4-bit floats, E8M0 scales) decode through
//! [`crate::exec::minifloat`]'s lookup tables, so a matrix operand costs one lookup per
//! element. Values of all formats here are exact in f32 (and f64), so decoding never
//! rounds; only [`Elem::Xf32`] rounds, by design of the format (see [`xf32`]).

#[cfg(test)]
use crate::exec::minifloat::Format;

/// One concrete source element format (after the instruction's modifiers chose it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Elem {
    /// IEEE binary64.
    F64,
    /// IEEE binary32.
    F32,
    /// gfx942 xf32: an f32 register read with a 10-bit mantissa ([`xf32`]).
    Xf32,
    /// IEEE binary16.
    F16,
    /// bfloat16.
    Bf16,
    /// Signed 8-bit integer.
    I8,
    /// Unsigned 8-bit integer (GFX12 `iu8` with its NEG bit clear).
    U8,
    /// Signed 4-bit integer (GFX12 `iu4` with its NEG bit set).
    I4,
    /// Unsigned 4-bit integer.
    U4,
    /// OCP E4M3FN (gfx950, GFX12).
    Fp8,
    /// OCP E5M2 (gfx950, GFX12).
    Bf8,
    /// E4M3FNUZ (gfx942).
    Fp8Fnuz,
    /// E5M2FNUZ (gfx942).
    Bf8Fnuz,
    /// OCP MX E2M3 (FP6).
    Fp6,
    /// OCP MX E3M2 (BF6).
    Bf6,
    /// OCP MX E2M1 (FP4).
    Fp4,
}

impl Elem {
    /// Width in bits.
    pub(crate) fn bits(self) -> usize {
        match self {
            Elem::F64 => 64,
            Elem::F32 | Elem::Xf32 => 32,
            Elem::F16 | Elem::Bf16 => 16,
            Elem::I8 | Elem::U8 | Elem::Fp8 | Elem::Bf8 | Elem::Fp8Fnuz | Elem::Bf8Fnuz => 8,
            Elem::Fp6 | Elem::Bf6 => 6,
            Elem::I4 | Elem::U4 | Elem::Fp4 => 4,
        }
    }

    /// Whether the format is an integer one.
    pub(crate) fn is_int(self) -> bool {
        matches!(self, Elem::I8 | Elem::U8 | Elem::I4 | Elem::U4)
    }

    /// The narrow float format of [`crate::exec::minifloat`] this is, if any.
    #[cfg(test)]
    pub(crate) fn mini(self) -> Option<Format> {
        Some(match self {
            Elem::Fp8 => Format::Fp8,
            Elem::Bf8 => Format::Bf8,
            Elem::Fp8Fnuz => Format::Fp8Fnuz,
            Elem::Bf8Fnuz => Format::Bf8Fnuz,
            Elem::Fp6 => Format::Fp6,
            Elem::Bf6 => Format::Bf6,
            Elem::Fp4 => Format::Fp4,
            _ => return None,
        })
    }

    /// The value of raw code `x` (the low [`Elem::bits`] bits) as f64, exactly.
    #[cfg(test)]
    pub(crate) fn value(self, x: u64) -> f64 {
        match self {
            Elem::F64 => f64::from_bits(x),
            Elem::F32 => f32::from_bits(x as u32) as f64,
            Elem::Xf32 => xf32(x as u32) as f64,
            Elem::F16 => half::f16::from_bits(x as u16).to_f64(),
            Elem::Bf16 => f32::from_bits((x as u32 & 0xffff) << 16) as f64,
            Elem::I8 => x as u8 as i8 as f64,
            Elem::U8 => (x & 0xff) as f64,
            Elem::I4 => (((x as u8) << 4) as i8 >> 4) as f64,
            Elem::U4 => (x & 0xf) as f64,
            _ => self
                .mini()
                .map_or(0.0, |f| crate::exec::minifloat::decode(f, x as u32) as f64),
        }
    }

    /// The integer value of raw code `x` of an integer format (0 for float formats).
    pub(crate) fn int(self, x: u64) -> i64 {
        match self {
            Elem::I8 => x as u8 as i8 as i64,
            Elem::U8 => (x & 0xff) as i64,
            Elem::I4 => (((x as u8) << 4) as i8 >> 4) as i64,
            Elem::U4 => (x & 0xf) as i64,
            _ => 0,
        }
    }
}

/// An f32 register read as xf32: rounded to a 10-bit mantissa, to nearest even; infinities
/// and NaNs pass unchanged (a NaN keeps its payload's top bits and stays a NaN).
///
/// Why: `v_mfma_f32_{16x16x8,32x32x4}_xf32` take f32 registers (LLVM: `<2 x float>`
/// operands) and Tensile describes XF32 as "tensorfloat equivalent"; the CDNA3 guide we
/// have does not say how the 13 dropped mantissa bits are treated. Documented choice:
/// round to nearest even, as TF32 conversions do. Products of two xf32 values (11-bit
/// significands) are exact in f32, so the rest of the datapath is the f16 one.
pub(crate) fn xf32(x: u32) -> f32 {
    if x & 0x7f80_0000 == 0x7f80_0000 {
        return f32::from_bits(if x & 0x007f_ffff != 0 {
            x | 0x0040_0000
        } else {
            x
        });
    }
    let drop = 13;
    let half = 1u32 << (drop - 1);
    let lsb = (x >> drop) & 1;
    let r = x.wrapping_add(half - 1 + lsb) & !((1u32 << drop) - 1);
    f32::from_bits(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xf32_rounds_to_ten_mantissa_bits() {
        let one = 1.0f32.to_bits();
        // Exactly halfway between 1 and 1 + 2^-10: to even (1).
        assert_eq!(xf32(one | 1 << 12), 1.0);
        // Just above halfway: up.
        assert_eq!(xf32(one | 1 << 12 | 1), 1.0 + 2f32.powi(-10));
        // Halfway above an odd mantissa: up to even.
        assert_eq!(xf32(one | 1 << 13 | 1 << 12), 1.0 + 2f32.powi(-9));
        assert!(xf32(f32::NAN.to_bits()).is_nan());
        assert_eq!(xf32(f32::INFINITY.to_bits()), f32::INFINITY);
        assert_eq!(xf32(f32::MAX.to_bits()), f32::INFINITY);
        assert_eq!(Elem::I4.int(0xf), -1);
        assert_eq!(Elem::U4.int(0xf), 15);
    }
}
