//! Matrix source element formats and their decoding to the accumulation type.
//!
//! Every narrow format (8-, 6- and 4-bit floats) is decoded through a 256-entry table built
//! once, so a matrix operand costs one lookup per element. Values of all formats here are
//! exact in f32 (and f64), so decoding never rounds; only [`Elem::Xf32`] rounds, by design
//! of the format (see [`xf32`]).

use std::sync::LazyLock;

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

    /// The decode table of a narrow float format (indexed by the raw code), or `None`.
    pub(crate) fn table(self) -> Option<&'static [f32; 256]> {
        Some(match self {
            Elem::Fp8 => &FP8,
            Elem::Bf8 => &BF8,
            Elem::Fp8Fnuz => &FP8_FNUZ,
            Elem::Bf8Fnuz => &BF8_FNUZ,
            Elem::Fp6 => &FP6,
            Elem::Bf6 => &BF6,
            Elem::Fp4 => &FP4,
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
            _ => self.table().map_or(0.0, |t| t[(x & 0xff) as usize] as f64),
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

/// Value of a finite-only minifloat code (OCP MX FP6/BF6/FP4: no infinities, no NaN):
/// `(-1)^s * 2^(e - bias) * 1.m`, subnormal `2^(1 - bias) * 0.m` for `e == 0`.
fn finite_minifloat(x: u32, ebits: u32, mbits: u32, bias: i32) -> f32 {
    let e = (x >> mbits) & ((1 << ebits) - 1);
    let m = x & ((1 << mbits) - 1);
    let (sig, exp) = if e == 0 {
        (m, 1 - bias)
    } else {
        (m | 1 << mbits, e as i32 - bias)
    };
    let v = sig as f32 * 2f32.powi(exp - mbits as i32);
    if x >> (ebits + mbits) & 1 != 0 {
        -v
    } else {
        v
    }
}

fn table(f: impl Fn(u32) -> f32) -> [f32; 256] {
    std::array::from_fn(|x| f(x as u32))
}

// 8-bit floats (`super::super::mfma::f8_value` holds the definitions and their sources).
static FP8: LazyLock<[f32; 256]> =
    LazyLock::new(|| table(|x| super::super::mfma::f8_value(x as u8, false, true) as f32));
static BF8: LazyLock<[f32; 256]> =
    LazyLock::new(|| table(|x| super::super::mfma::f8_value(x as u8, true, true) as f32));
static FP8_FNUZ: LazyLock<[f32; 256]> =
    LazyLock::new(|| table(|x| super::super::mfma::f8_value(x as u8, false, false) as f32));
static BF8_FNUZ: LazyLock<[f32; 256]> =
    LazyLock::new(|| table(|x| super::super::mfma::f8_value(x as u8, true, false) as f32));
// OCP Microscaling Formats (MX) v1.0, section 5.3.2: E2M3 bias 1, E3M2 bias 3, E2M1 bias
// 1, no special values. Codes past the format's width repeat (only the low bits count).
static FP6: LazyLock<[f32; 256]> = LazyLock::new(|| table(|x| finite_minifloat(x & 63, 2, 3, 1)));
static BF6: LazyLock<[f32; 256]> = LazyLock::new(|| table(|x| finite_minifloat(x & 63, 3, 2, 3)));
static FP4: LazyLock<[f32; 256]> = LazyLock::new(|| table(|x| finite_minifloat(x & 15, 2, 1, 1)));

/// The value of an E8M0 block scale byte as a power-of-two exponent: `x - 127`, or `None`
/// for `0xff`, the format's NaN (OCP MX v1.0, section 5.4).
pub(crate) fn e8m0_exp(x: u8) -> Option<i32> {
    (x != 0xff).then_some(x as i32 - 127)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Extremes of the MX formats from the OCP MX v1.0 tables (max normal, min subnormal).
    #[test]
    #[allow(clippy::unusual_byte_groupings)] // sign | exponent | mantissa
    fn mx_format_edges() {
        assert_eq!(FP6[0b0_11_111], 7.5);
        assert_eq!(FP6[0b0_00_001], 0.125);
        assert_eq!(FP6[0b1_01_000], -1.0);
        assert_eq!(BF6[0b0_111_11], 28.0);
        assert_eq!(BF6[0b0_000_01], 0.0625);
        assert_eq!(FP4[0b0111], 6.0);
        assert_eq!(FP4[0b0001], 0.5);
        assert_eq!(FP4[0b1010], -1.0);
        assert_eq!(e8m0_exp(127), Some(0));
        assert_eq!(e8m0_exp(0), Some(-127));
        assert_eq!(e8m0_exp(0xff), None);
    }

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
