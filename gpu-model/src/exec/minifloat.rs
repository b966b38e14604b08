//! Narrow float formats (8-, 6- and 4-bit floats, f16/bf16, E8M0 scales): decode to f32
//! and encode from a wider value with round-to-nearest-even or stochastic rounding.
//!
//! The formats and their special values:
//!
//! | format | layout | bias | max | min denormal | specials |
//! |---|---|---|---|---|---|
//! | [`Format::Fp8`] (OCP E4M3FN) | e4m3 | 7 | 448 (`0x7e`) | 2^-9 | NaN `S.1111.111`, no infinity |
//! | [`Format::Bf8`] (OCP E5M2) | e5m2 | 15 | 57344 (`0x7b`) | 2^-16 | IEEE: infinity `S.11111.00`, NaN `S.11111.{01,10,11}` |
//! | [`Format::Fp8Fnuz`] (E4M3FNUZ) | e4m3 | 8 | 240 (`0x7f`) | 2^-10 | `0x80` the only NaN, no -0, no infinity |
//! | [`Format::Bf8Fnuz`] (E5M2FNUZ) | e5m2 | 16 | 57344 (`0x7f`) | 2^-17 | `0x80` the only NaN, no -0, no infinity |
//! | [`Format::Fp6`] (E2M3) | e2m3 | 1 | 7.5 | 0.125 | none |
//! | [`Format::Bf6`] (E3M2) | e3m2 | 3 | 28 | 0.0625 | none |
//! | [`Format::Fp4`] (E2M1) | e2m1 | 1 | 6 | 0.5 | none |
//! | [`Format::F16`], [`Format::Bf16`] | e5m10, e8m7 | 15, 127 | | | IEEE |
//!
//! Sources: OCP 8-bit Floating Point Specification (OFP8) rev. 1.0 (E4M3/E5M2); OCP
//! Microscaling Formats (MX) Specification v1.0 (E2M3, E3M2, E2M1, E8M0); the FNUZ
//! encodings of gfx942 (ROCm "FP8 numbers", composable_kernel's `float8.hpp` table: bias 8
//! and 16, `0x80` NaN); AMD CDNA4 ISA guide, "Small Float Data Formats" (Table 30), which
//! lists the same values for the formats gfx950 uses.
//!
//! Decoding is exact (every value of these formats is an f32), by lookup tables for the
//! 8-, 6- and 4-bit formats. [`decode_e8m0`] gives the MX block scale `2^(x - 127)`.
//!
//! Encoding ([`encode`]) takes an f64 so that a scaled operand (`x * 2^k`, the gfx950
//! `v_cvt_scalef32_*` conversions) is exact before its one rounding. What happens at the
//! edges is the caller's choice of [`Overflow`]:
//!
//! * [`Overflow::Special`]: a finite value that rounds past the largest finite one, and an
//!   infinity, become infinity (IEEE kinds), NaN (`S.1111.111`, OCP E4M3) or `0x80`
//!   (FNUZ). This is the AMD ISA guides' `FP16_OVFL=0` column for FP8/BF8.
//! * [`Overflow::SaturateAll`]: both become the largest finite value of their sign (the
//!   `FP16_OVFL=1` column of the same table, CDNA4 guide section 7.3 and RDNA4 guide
//!   section 7.6.2: "±Inf -> ±max_E4M3 / ±max_E5M2").
//! * [`Overflow::SaturateFinite`]: finite overflow saturates, an infinity stays an
//!   infinity (MODE.FP16_OVFL for f16 results: "clamped to +/- MAX_FP16 ... while still
//!   preserving true INF values").
//!
//! Formats without special values (FP6, BF6, FP4) always saturate (CDNA4 guide, section
//! 7.3: "If a value exceeds the FP4/FP6 representable range after rounding, the value is
//! clamped/saturated to the maximum FP4/FP6 magnitude, preserving the sign"; values below
//! the smallest denormal after rounding become zero).
//!
//! NaN operands become the format's quiet NaN with the operand's sign ([`Format::nan`]):
//! `S.1111.111` (E4M3), `S.11111.10` (E5M2), `0x80` (FNUZ), `S.11111.1000000000` (f16),
//! `S.11111111.1000000` (bf16). The ISA guides only say "NaN"; the 8-bit OCP codes are
//! those of AMD's host-side emulation of the gfx950 conversions (ROCm
//! `amd_hip_ocp_host.hpp`, `nan()`), which also writes FP6/BF6/FP4 NaN operands, having no
//! NaN, as the largest magnitude with the operand's sign, as done here (the MX
//! specification leaves that implementation-defined and the CDNA4 guide is silent).
//!
//! Stochastic rounding ([`Round::Stochastic`]) follows the AMD ISA guides:
//! "Stochastic rounding adds bits from a source VGPR supplying a random value to the input
//! data value and then truncates to the smaller precision result type" (RDNA4 guide
//! 7.6.1; CDNA4 guide 7.3 says the same), with the bits the pseudo-code of
//! `V_CVT_SR_FP8_F32` / `V_CVT_SR_BF8_F32` names: `S1[31:12]` / `S1[31:11]` are added to
//! the 23-bit f32 mantissa. In general the top `s - m` bits of the random word are added to
//! the `s - m` low mantissa bits of the operand's format (`s` mantissa bits: 23 for f32,
//! 10 for f16, 7 for bf16) that an `m`-bit result mantissa drops; AMD's host emulation of
//! the gfx950 scaled conversions (`amd_hip_ocp_host.hpp`, `from_float_sr`) aligns the
//! random word the same way for f32, f16 and bf16 operands. The pseudo-code's remark
//! "wrap around on overflow" is not followed: a carry out of the mantissa moves the value
//! to the next binade (the next representable value, as the guides' prose "add ... then
//! truncate" means, and as the host emulation does). For a result in the denormal range
//! the significand is first aligned to the smallest normal exponent and the bits shifted
//! out are lost (no sticky bit), as in the host emulation and in what a third-party RDNA4
//! emulator (`rdna4_fp8_narrow.h`) states it established by GPU captures. f16 and bf16
//! results use the same rule (documented choice: the guides' `f32_to_f16_SR` /
//! `f32_to_bf16_SR` are not spelled out).

// Phase 1 of the low-precision work: the conversions (`exec/cvt.rs`) and the f8f6f4
// matrix operations are wired to these next; until then only the tests call them.
#![allow(dead_code)]

/// A narrow float format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    /// OCP E4M3FN (gfx950 and GFX12 "fp8").
    Fp8,
    /// OCP E5M2 (gfx950 and GFX12 "bf8").
    Bf8,
    /// E4M3FNUZ (gfx942 "fp8").
    Fp8Fnuz,
    /// E5M2FNUZ (gfx942 "bf8").
    Bf8Fnuz,
    /// MX E2M3 ("fp6").
    Fp6,
    /// MX E3M2 ("bf6").
    Bf6,
    /// MX E2M1 ("fp4").
    Fp4,
    /// IEEE binary16.
    F16,
    /// bfloat16.
    Bf16,
}

/// What the format does with values out of its finite range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// IEEE infinities and NaNs (all-ones exponent).
    Ieee,
    /// OCP E4M3: all-ones exponent and mantissa is NaN, no infinity.
    NanOnly,
    /// FNUZ: `0x80` is NaN, no negative zero, no infinity.
    Fnuz,
    /// No special values.
    Finite,
}

/// Layout of a format.
#[derive(Debug, Clone, Copy)]
struct Spec {
    ebits: u32,
    mbits: u32,
    bias: i32,
    kind: Kind,
}

impl Format {
    const fn spec(self) -> Spec {
        let (ebits, mbits, bias, kind) = match self {
            Format::Fp8 => (4, 3, 7, Kind::NanOnly),
            Format::Bf8 => (5, 2, 15, Kind::Ieee),
            Format::Fp8Fnuz => (4, 3, 8, Kind::Fnuz),
            Format::Bf8Fnuz => (5, 2, 16, Kind::Fnuz),
            Format::Fp6 => (2, 3, 1, Kind::Finite),
            Format::Bf6 => (3, 2, 3, Kind::Finite),
            Format::Fp4 => (2, 1, 1, Kind::Finite),
            Format::F16 => (5, 10, 15, Kind::Ieee),
            Format::Bf16 => (8, 7, 127, Kind::Ieee),
        };
        Spec {
            ebits,
            mbits,
            bias,
            kind,
        }
    }

    /// Width in bits.
    pub(crate) const fn bits(self) -> u32 {
        let s = self.spec();
        1 + s.ebits + s.mbits
    }

    /// The sign bit.
    const fn sign_bit(self) -> u32 {
        1 << (self.bits() - 1)
    }

    /// The largest finite magnitude's code (sign clear).
    pub(crate) const fn max_code(self) -> u32 {
        let s = self.spec();
        let all = (1 << (s.ebits + s.mbits)) - 1;
        match s.kind {
            Kind::Ieee => all - (1 << s.mbits),
            Kind::NanOnly => all - 1,
            Kind::Fnuz | Kind::Finite => all,
        }
    }

    /// The code a NaN operand of sign `neg` becomes (see the module notes).
    pub(crate) const fn nan(self, neg: bool) -> u32 {
        let sign = if neg { self.sign_bit() } else { 0 };
        sign | match self {
            Format::Fp8 => 0x7f,
            Format::Bf8 => 0x7e,
            Format::Fp8Fnuz | Format::Bf8Fnuz => return 0x80,
            Format::F16 => 0x7e00,
            Format::Bf16 => 0x7fc0,
            Format::Fp6 | Format::Bf6 | Format::Fp4 => self.max_code(),
        }
    }
}

/// f32 bit pattern of code `x` of a format (NaN: `0x7fc0_0000`).
const fn decode_bits(f: Format, x: u32) -> u32 {
    let s = f.spec();
    let mag_bits = s.ebits + s.mbits;
    let x = x & ((1 << f.bits()) - 1);
    let sign = (x >> mag_bits) << 31;
    let e = (x >> s.mbits) & ((1 << s.ebits) - 1);
    let m = x & ((1 << s.mbits) - 1);
    let emax = (1 << s.ebits) - 1;
    match s.kind {
        Kind::Fnuz if x == 0x80 => return 0x7fc0_0000,
        Kind::NanOnly if e == emax && m == (1 << s.mbits) - 1 => return 0x7fc0_0000,
        Kind::Ieee if e == emax => {
            return if m == 0 {
                sign | 0x7f80_0000
            } else {
                0x7fc0_0000
            }
        }
        _ => {}
    }
    if e == 0 {
        if m == 0 {
            return sign;
        }
        // Denormal m * 2^(1 - bias - mbits): normalise on m's top bit p.
        let p = 31 - m.leading_zeros();
        let exp = 1 - s.bias - s.mbits as i32 + p as i32 + 127;
        return sign | (exp as u32) << 23 | (m - (1 << p)) << (23 - p);
    }
    let exp = e as i32 - s.bias + 127;
    sign | (exp as u32) << 23 | m << (23 - s.mbits)
}

const fn table<const N: usize>(f: Format) -> [u32; N] {
    let mut t = [0u32; N];
    let mut i = 0;
    while i < N {
        t[i] = decode_bits(f, i as u32);
        i += 1;
    }
    t
}

static FP8: [u32; 256] = table(Format::Fp8);
static BF8: [u32; 256] = table(Format::Bf8);
static FP8_FNUZ: [u32; 256] = table(Format::Fp8Fnuz);
static BF8_FNUZ: [u32; 256] = table(Format::Bf8Fnuz);
static FP6: [u32; 64] = table(Format::Fp6);
static BF6: [u32; 64] = table(Format::Bf6);
static FP4: [u32; 16] = table(Format::Fp4);

/// The value of code `x` (its low [`Format::bits`] bits) as an f32; exact. Every NaN code
/// decodes to the quiet NaN `0x7fc0_0000`.
#[inline(always)]
pub(crate) fn decode(f: Format, x: u32) -> f32 {
    let bits = match f {
        Format::Fp8 => FP8[(x & 0xff) as usize],
        Format::Bf8 => BF8[(x & 0xff) as usize],
        Format::Fp8Fnuz => FP8_FNUZ[(x & 0xff) as usize],
        Format::Bf8Fnuz => BF8_FNUZ[(x & 0xff) as usize],
        Format::Fp6 => FP6[(x & 0x3f) as usize],
        Format::Bf6 => BF6[(x & 0x3f) as usize],
        Format::Fp4 => FP4[(x & 0xf) as usize],
        // The 16-bit formats are the top of an f32 (bf16) or widen exactly (f16).
        Format::Bf16 => (x & 0xffff) << 16,
        Format::F16 => return half::f16::from_bits(x as u16).to_f32(),
    };
    f32::from_bits(bits)
}

/// An E8M0 block scale (OCP MX v1.0): `2^(x - 127)`, `0xff` is NaN. `2^-127` is an f32
/// denormal, still exact.
#[inline(always)]
pub(crate) fn decode_e8m0(x: u8) -> f32 {
    match x {
        0xff => f32::NAN,
        0 => f32::from_bits(0x0040_0000),
        _ => f32::from_bits((x as u32) << 23),
    }
}

/// How a value is rounded into the format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Round {
    /// Round to nearest, ties to even.
    NearestEven,
    /// Add the top bits of `seed` below the result's last place, then truncate (see the
    /// module notes); the operand's format has `src_mbits` mantissa bits (23, 10 or 7).
    Stochastic {
        /// The random word.
        seed: u32,
        /// Mantissa bits of the operand's format.
        src_mbits: u32,
    },
}

/// What an out-of-range value or an infinity becomes (see the module notes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Overflow {
    /// Infinity / NaN / `0x80`, by the format's kind.
    Special,
    /// Finite overflow to the largest finite value, infinities kept.
    SaturateFinite,
    /// Finite overflow and infinities to the largest finite value.
    SaturateAll,
}

/// Encodes `v` in format `f` (the code in the low [`Format::bits`] bits).
///
/// Stochastic rounding reads `v` at the precision of its format (`src_mbits`; the
/// hardware's operands are f32, f16 or bf16 values scaled by powers of two): significand
/// bits below it are ignored.
pub(crate) fn encode(f: Format, v: f64, round: Round, ovf: Overflow) -> u32 {
    let s = f.spec();
    let neg = v.is_sign_negative();
    let sign = if neg { f.sign_bit() } else { 0 };
    if v.is_nan() {
        return f.nan(neg);
    }
    if v == 0.0 {
        return if s.kind == Kind::Fnuz { 0 } else { sign };
    }
    if v.is_infinite() {
        return overflow(f, sign, true, ovf);
    }
    // |v| = sig * 2^(e - 52) with sig a 53-bit integer whose top bit is set.
    let bits = v.to_bits() & !(1u64 << 63);
    let (mut sig, mut e) = (
        (bits & ((1 << 52) - 1)) | 1 << 52,
        (bits >> 52) as i32 - 1023,
    );
    if bits >> 52 == 0 {
        // An f64 denormal: normalise (below every format's range, but keep it exact).
        let lz = (bits.leading_zeros() - 11) as i32;
        sig = bits << lz;
        e = -1022 - lz;
    }
    let m = s.mbits;
    let emin = 1 - s.bias;
    // The result's exponent before rounding: denormal results share the smallest normal
    // exponent.
    let mut e_res = e.max(emin);
    let align = (e_res - e) as u32;
    let mut n: u64 = match round {
        Round::NearestEven => {
            let shift = 52 - m + align;
            if shift >= 64 {
                0
            } else {
                let q = sig >> shift;
                let r = sig & ((1u64 << shift) - 1);
                let half = 1u64 << (shift - 1);
                q + u64::from(r > half || (r == half && q & 1 == 1))
            }
        }
        Round::Stochastic { seed, src_mbits } => {
            // The operand's significand (implicit one included) at its own precision.
            let src_mbits = src_mbits.clamp(m, 52);
            let drop = src_mbits - m;
            let sig_src = sig >> (52 - src_mbits);
            let aligned = if align >= 64 { 0 } else { sig_src >> align };
            let random = if drop == 0 { 0 } else { seed >> (32 - drop) };
            (aligned + u64::from(random)) >> drop
        }
    };
    if n >> (m + 1) != 0 {
        // Rounded up into the next binade (n is exactly 2^(m+1)).
        n >>= 1;
        e_res += 1;
    }
    if n == 0 {
        return if s.kind == Kind::Fnuz { 0 } else { sign };
    }
    let code = if n >> m == 0 {
        n
    } else {
        let biased = (e_res + s.bias) as u64;
        biased << m | (n - (1 << m))
    };
    if code > f.max_code() as u64 {
        return overflow(f, sign, false, ovf);
    }
    sign | code as u32
}

/// The code of a value past the finite range (`inf`: the operand was an infinity).
fn overflow(f: Format, sign: u32, inf: bool, ovf: Overflow) -> u32 {
    let s = f.spec();
    let special = match ovf {
        Overflow::Special => true,
        Overflow::SaturateFinite => inf,
        Overflow::SaturateAll => false,
    };
    if !special || s.kind == Kind::Finite {
        return sign | f.max_code();
    }
    match s.kind {
        Kind::Ieee => sign | (((1 << s.ebits) - 1) << s.mbits),
        // OCP E4M3 overflow keeps the sign on its NaN (`S.1111.111`).
        Kind::NanOnly => sign | ((1 << (s.ebits + s.mbits)) - 1),
        _ => 0x80,
    }
}

#[cfg(test)]
mod tests {
    use super::{decode, decode_e8m0, encode, Format, Overflow, Round};

    const SMALL: [Format; 7] = [
        Format::Fp8,
        Format::Bf8,
        Format::Fp8Fnuz,
        Format::Bf8Fnuz,
        Format::Fp6,
        Format::Bf6,
        Format::Fp4,
    ];

    /// Every code of every small format against the definition written out in f64: sign,
    /// exponent field `e`, mantissa `m`; `(1 + m/2^mb) * 2^(e - bias)`, denormals
    /// `m/2^mb * 2^(1 - bias)`; the specials of the table in the module notes.
    #[test]
    fn every_code_decodes_by_definition() {
        for f in SMALL {
            let (eb, mb, bias): (u32, u32, i32) = match f {
                Format::Fp8 => (4, 3, 7),
                Format::Bf8 => (5, 2, 15),
                Format::Fp8Fnuz => (4, 3, 8),
                Format::Bf8Fnuz => (5, 2, 16),
                Format::Fp6 => (2, 3, 1),
                Format::Bf6 => (3, 2, 3),
                _ => (2, 1, 1),
            };
            for x in 0..1u32 << (1 + eb + mb) {
                let neg = x >> (eb + mb) == 1;
                let e = (x >> mb) & ((1 << eb) - 1);
                let m = x & ((1 << mb) - 1);
                let frac = m as f64 / (1u32 << mb) as f64;
                let mag = if e == 0 {
                    frac * 2f64.powi(1 - bias)
                } else {
                    (1.0 + frac) * 2f64.powi(e as i32 - bias)
                };
                let emax = (1 << eb) - 1;
                let want = match f {
                    Format::Fp8Fnuz | Format::Bf8Fnuz if x == 0x80 => f64::NAN,
                    Format::Fp8 if e == emax && m == 7 => f64::NAN,
                    Format::Bf8 if e == emax && m != 0 => f64::NAN,
                    Format::Bf8 if e == emax => f64::INFINITY,
                    _ => mag,
                };
                let want = if neg { -want } else { want };
                let got = decode(f, x) as f64;
                assert!(
                    got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                    "{f:?} {x:#x}: {got} want {want}"
                );
            }
        }
    }

    /// Values quoted by the OCP MX v1.0 specification (E2M1 all positive values; E2M3 and
    /// E3M2 max normal, min normal, max/min subnormal) and the OFP8 specification (E4M3
    /// and E5M2 max, min normal, min subnormal, special encodings).
    #[test]
    fn spec_values() {
        let fp4 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0];
        for (x, v) in fp4.iter().enumerate() {
            assert_eq!(decode(Format::Fp4, x as u32), *v as f32);
            assert_eq!(decode(Format::Fp4, x as u32 | 8), -*v as f32);
        }
        let p = |e: i32| 2f32.powi(e);
        let cases: [(Format, u32, f32); 22] = [
            (Format::Fp6, 0x1f, 7.5),
            (Format::Fp6, 0x08, 1.0),
            (Format::Fp6, 0x07, 0.875),
            (Format::Fp6, 0x01, 0.125),
            (Format::Bf6, 0x1f, 28.0),
            (Format::Bf6, 0x04, 0.25),
            (Format::Bf6, 0x03, 0.1875),
            (Format::Bf6, 0x01, 0.0625),
            (Format::Fp8, 0x7e, 448.0),
            (Format::Fp8, 0x08, p(-6)),
            (Format::Fp8, 0x07, 0.875 * p(-6)),
            (Format::Fp8, 0x01, p(-9)),
            (Format::Bf8, 0x7b, 57344.0),
            (Format::Bf8, 0x04, p(-14)),
            (Format::Bf8, 0x03, 0.75 * p(-14)),
            (Format::Bf8, 0x01, p(-16)),
            (Format::Bf8, 0x7c, f32::INFINITY),
            (Format::Bf8, 0xfc, f32::NEG_INFINITY),
            (Format::Fp8Fnuz, 0x7f, 240.0),
            (Format::Fp8Fnuz, 0x01, p(-10)),
            (Format::Bf8Fnuz, 0x7f, 57344.0),
            (Format::Bf8Fnuz, 0x01, p(-17)),
        ];
        for (f, x, v) in cases {
            assert_eq!(decode(f, x), v, "{f:?} {x:#x}");
        }
        for (f, x) in [
            (Format::Fp8, 0x7f),
            (Format::Fp8, 0xff),
            (Format::Bf8, 0x7d),
            (Format::Bf8, 0xfe),
            (Format::Fp8Fnuz, 0x80),
            (Format::Bf8Fnuz, 0x80),
        ] {
            assert!(decode(f, x).is_nan(), "{f:?} {x:#x}");
        }
        assert_eq!(decode(Format::Fp8, 0x80).to_bits(), 0x8000_0000);
        assert_eq!(decode(Format::Fp6, 0x20).to_bits(), 0x8000_0000);
        assert_eq!(decode(Format::Bf16, 0xbf80), -1.0);
        assert_eq!(decode(Format::F16, 0x3c00), 1.0);
        assert_eq!(decode_e8m0(127), 1.0);
        assert_eq!(decode_e8m0(0), p(-127));
        assert_eq!(decode_e8m0(254), p(127));
        assert!(decode_e8m0(255).is_nan());
    }

    fn rne(f: Format, v: f64) -> u32 {
        encode(f, v, Round::NearestEven, Overflow::Special)
    }

    fn sat(f: Format, v: f64) -> u32 {
        encode(f, v, Round::NearestEven, Overflow::SaturateAll)
    }

    /// Edges of round-to-nearest-even with the expected codes written from the format
    /// tables: max normal, the tie above it, overflow, infinities, NaN, signed zeros,
    /// underflow to the smallest denormal and to zero, ties to even.
    #[test]
    fn nearest_even_edges() {
        let p = |e: i32| 2f64.powi(e);
        let cases: [(Format, f64, u32, u32); 28] = [
            // (format, value, code without saturation, code with saturation)
            (Format::Fp8, 448.0, 0x7e, 0x7e),
            (Format::Fp8, 464.0, 0x7e, 0x7e), // tie 448|480: even mantissa 110
            (Format::Fp8, 464.5, 0x7f, 0x7e), // past the tie: 480 is not finite
            (Format::Fp8, -1e9, 0xff, 0xfe),
            (Format::Fp8, f64::INFINITY, 0x7f, 0x7e),
            (Format::Fp8, p(-10), 0x00, 0x00), // half the smallest denormal: tie to 0
            (Format::Fp8, -p(-10) * 1.01, 0x81, 0x81),
            (Format::Fp8, -p(-12), 0x80, 0x80),
            (Format::Fp8, 1.0625, 0x38, 0x38), // tie 1|1.125 to even
            (Format::Fp8, 1.1875, 0x3a, 0x3a), // tie 1.125|1.25 to even
            (Format::Bf8, 57344.0, 0x7b, 0x7b),
            (Format::Bf8, 61440.0, 0x7c, 0x7b), // tie 57344|65536 to even: infinity
            (Format::Bf8, 61439.0, 0x7b, 0x7b),
            (Format::Bf8, f64::NEG_INFINITY, 0xfc, 0xfb),
            (Format::Bf8, p(-17), 0x00, 0x00),
            (Format::Bf8, 3.0 * p(-17), 0x02, 0x02), // tie 1|2 denormal to even
            (Format::Fp8Fnuz, 240.0, 0x7f, 0x7f),
            (Format::Fp8Fnuz, 248.0, 0x80, 0x7f), // tie 240|256 to even 256: overflow
            (Format::Fp8Fnuz, -247.0, 0xff, 0xff),
            (Format::Fp8Fnuz, -0.0, 0x00, 0x00), // no negative zero
            (Format::Fp8Fnuz, -p(-12), 0x00, 0x00),
            (Format::Bf8Fnuz, f64::INFINITY, 0x80, 0x7f),
            (Format::Fp6, 100.0, 0x1f, 0x1f),
            (Format::Fp6, -0.0625, 0x20, 0x20), // tie 0|0.125 to even
            (Format::Bf6, -30.0, 0x3f, 0x3f),
            (Format::Fp4, 5.0, 0x6, 0x6), // tie 4|6 to even (4)
            (Format::Fp4, 0.25, 0x0, 0x0),
            (Format::Fp4, f64::NEG_INFINITY, 0xf, 0xf),
        ];
        for (f, v, want, want_sat) in cases {
            assert_eq!(rne(f, v), want, "{f:?} {v}");
            assert_eq!(sat(f, v), want_sat, "{f:?} {v} saturating");
        }
        let nans: [(Format, u32, u32); 7] = [
            (Format::Fp8, 0x7f, 0xff),
            (Format::Bf8, 0x7e, 0xfe),
            (Format::Fp8Fnuz, 0x80, 0x80),
            (Format::Bf8Fnuz, 0x80, 0x80),
            (Format::Fp6, 0x1f, 0x3f),
            (Format::Fp4, 0x7, 0xf),
            (Format::Bf16, 0x7fc0, 0xffc0),
        ];
        for (f, pos, neg) in nans {
            assert_eq!(rne(f, f64::NAN), pos, "{f:?}");
            assert_eq!(sat(f, -f64::NAN), neg, "{f:?}");
        }
        // Infinity kept, finite overflow saturated.
        let fin = |f, v| encode(f, v, Round::NearestEven, Overflow::SaturateFinite);
        assert_eq!(fin(Format::F16, 70000.0), 0x7bff);
        assert_eq!(fin(Format::F16, f64::NEG_INFINITY), 0xfc00);
        assert_eq!(rne(Format::F16, 65520.0), 0x7c00);
        assert_eq!(rne(Format::Bf16, 1.0 + p(-8)), 0x3f80);
        assert_eq!(rne(Format::Bf16, 1.0 + 3.0 * p(-8)), 0x3f82);
    }

    /// Round-to-nearest-even of every format against an exhaustive search: the finite
    /// code whose value is nearest (ties: the code with an even mantissa), on every
    /// midpoint between neighbouring values, points a little either side of them, and the
    /// values themselves.
    #[test]
    fn nearest_even_is_nearest() {
        for f in SMALL {
            let finite: Vec<(u32, f64)> = (0..1u32 << f.bits())
                .map(|x| (x, decode(f, x) as f64))
                .filter(|(x, v)| v.is_finite() && *v >= 0.0 && (*x == 0 || *v > 0.0))
                .collect();
            let max = finite.iter().map(|c| c.1).fold(0.0, f64::max);
            let nearest = |v: f64| -> u32 {
                let mut best = (u32::MAX, f64::INFINITY);
                for &(x, c) in &finite {
                    let d = (c - v).abs();
                    if d < best.1 || (d == best.1 && x & 1 == 0) {
                        best = (x, d);
                    }
                }
                best.0
            };
            let mut probes = Vec::new();
            for w in finite.windows(2) {
                let mid = (w[0].1 + w[1].1) / 2.0;
                probes.extend([w[0].1, mid, mid * (1.0 + 1e-9), mid * (1.0 - 1e-9)]);
            }
            for v in probes {
                // Below the top midpoint (the overflow cases are in `nearest_even_edges`).
                if v > max {
                    continue;
                }
                let want = nearest(v);
                assert_eq!(rne(f, v), want, "{f:?} {v}");
                let neg = rne(f, -v);
                let want_neg = match f {
                    Format::Fp8Fnuz | Format::Bf8Fnuz if want == 0 => 0,
                    _ => want | 1 << (f.bits() - 1),
                };
                assert_eq!(neg, want_neg, "{f:?} -{v}");
            }
        }
    }

    /// The OCP 8-bit formats against LLVM's APFloat (`rustc_apfloat`, an independent IEEE
    /// implementation with Float8E4M3FN / Float8E5M2 semantics): round to nearest even,
    /// overflow to NaN / infinity, on f32 patterns spread over the whole range.
    #[test]
    fn ocp_eight_bit_matches_apfloat() {
        use rustc_apfloat::ieee::{Float8E4M3FN, Float8E5M2, Single};
        use rustc_apfloat::{Float, FloatConvert};
        let mut x = 0x1234_5678u32;
        for i in 0..200_000u32 {
            // xorshift over all f32 patterns, plus every short pattern near 1.0.
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let bits = if i < 65536 { 0x3f80_0000 ^ (i << 8) } else { x };
            let v = f32::from_bits(bits);
            if v.is_nan() {
                continue;
            }
            let s = Single::from_bits(bits as u128);
            let mut lost = false;
            let e4: Float8E4M3FN = s.convert(&mut lost).value;
            let e5: Float8E5M2 = s.convert(&mut lost).value;
            let got4 = rne(Format::Fp8, v as f64);
            let got5 = rne(Format::Bf8, v as f64);
            if e4.is_nan() {
                assert_eq!(got4 & 0x7f, 0x7f, "fp8 {v:e}");
            } else {
                assert_eq!(got4, e4.to_bits() as u32, "fp8 {v:e}");
            }
            assert_eq!(got5, e5.to_bits() as u32, "bf8 {v:e}");
        }
    }

    /// Stochastic rounding with chosen random words: the top `23 - m` bits of the word are
    /// added below the result's last place and the sum truncated.
    #[test]
    fn stochastic_rounding() {
        // Operands of f32 precision unless said otherwise.
        let sr = |f, v, seed| {
            let round = Round::Stochastic {
                seed,
                src_mbits: 23,
            };
            encode(f, v, round, Overflow::Special)
        };
        let p = |e: i32| 2f64.powi(e);
        // 1 + 1/16 is halfway between fp8 1.0 (0x38) and 1.125 (0x39): the dropped f32
        // mantissa bits are 0x80000 of 20; a random top of 0x7ffff stays, 0x80000 carries.
        assert_eq!(sr(Format::Fp8, 1.0625, 0x7fff_f000), 0x38);
        assert_eq!(sr(Format::Fp8, 1.0625, 0x8000_0000), 0x39);
        // Only the top 20 bits count: the low 12 are ignored.
        assert_eq!(sr(Format::Fp8, 1.0625, 0x7fff_ffff), 0x38);
        // An exact value never moves: the random bits stay below one place.
        assert_eq!(sr(Format::Fp8, 1.0, u32::MAX), 0x38);
        // bf8 drops 21 bits: 1 + 1/8 is halfway between 1.0 (0x3c) and 1.25 (0x3d).
        assert_eq!(sr(Format::Bf8, 1.125, 0x7fff_f800), 0x3c);
        assert_eq!(sr(Format::Bf8, 1.125, 0x8000_0000), 0x3d);
        // A carry out of the mantissa moves to the next binade: 1.9375 (between 1.875 and
        // 2.0) with a large random word becomes 2.0 (0x40), not a wrapped mantissa.
        assert_eq!(sr(Format::Fp8, 1.9375, 0xffff_f000), 0x40);
        assert_eq!(sr(Format::Fp8, 1.9375, 0), 0x3f);
        // Past the largest value: overflow rules apply.
        assert_eq!(sr(Format::Fp8, 460.0, 0xffff_f000), 0x7f);
        let max_seed = Round::Stochastic {
            seed: u32::MAX,
            src_mbits: 23,
        };
        assert_eq!(
            encode(Format::Fp8, -460.0, max_seed, Overflow::SaturateAll),
            0xfe
        );
        // Denormal results: 1.5 * 2^-9 is halfway between the two smallest fp8 denormals.
        assert_eq!(sr(Format::Fp8, 1.5 * p(-9), 0x7fff_f000), 0x01);
        assert_eq!(sr(Format::Fp8, 1.5 * p(-9), 0x8000_0000), 0x02);
        // Below the smallest denormal: 0 or the smallest denormal, with the sign.
        assert_eq!(sr(Format::Fp8, -0.25 * p(-9), 0xbfff_f000), 0x80);
        assert_eq!(sr(Format::Fp8, -0.25 * p(-9), 0xc000_0000), 0x81);
        assert_eq!(sr(Format::Fp8Fnuz, -0.25 * p(-10), 0), 0x00);
        // fp4 drops 22 bits: 1.25 is halfway from 1.0 (0x2) to 1.5 (0x3), 1.125 a quarter.
        assert_eq!(sr(Format::Fp4, 1.25, 0x7fff_fc00), 0x2);
        assert_eq!(sr(Format::Fp4, 1.25, 0x8000_0000), 0x3);
        assert_eq!(sr(Format::Fp4, 1.125, 0xbfff_fc00), 0x2);
        assert_eq!(sr(Format::Fp4, 1.125, 0xc000_0000), 0x3);
        // f16 drops 13 bits (the top 13 of the word).
        assert_eq!(sr(Format::F16, 1.0 + p(-11), 0x7ff8_0000), 0x3c00);
        assert_eq!(sr(Format::F16, 1.0 + p(-11), 0x8000_0000), 0x3c01);
        // bf16 drops 16.
        assert_eq!(sr(Format::Bf16, 1.0 + p(-9), 0xbfff_0000), 0x3f80);
        assert_eq!(sr(Format::Bf16, 1.0 + p(-9), 0xc000_0000), 0x3f81);
        // An f16 operand: 7 random bits (10 - 3) for fp8; 1 + 2^-4 is halfway.
        let sr16 = |v, seed| {
            let round = Round::Stochastic {
                seed,
                src_mbits: 10,
            };
            encode(Format::Fp8, v, round, Overflow::Special)
        };
        assert_eq!(sr16(1.0625, 0x7fff_ffff), 0x38);
        assert_eq!(sr16(1.0625, 0x8000_0000), 0x39);
        // A bf16 operand into fp6 (e2m3): 4 random bits (7 - 3).
        let sr_bf16 = |v, seed| {
            let round = Round::Stochastic { seed, src_mbits: 7 };
            encode(Format::Fp6, v, round, Overflow::Special)
        };
        assert_eq!(sr_bf16(1.0625, 0x7fff_ffff), 0x08);
        assert_eq!(sr_bf16(1.0625, 0x8000_0000), 0x09);
        // No random bits when the operand has no more mantissa than the result.
        let exact = Round::Stochastic {
            seed: u32::MAX,
            src_mbits: 3,
        };
        assert_eq!(encode(Format::Fp8, 1.125, exact, Overflow::Special), 0x39);
        // NaN and zeros as in nearest-even.
        assert_eq!(sr(Format::Bf8, f64::NAN, 123), 0x7e);
        assert_eq!(sr(Format::Bf8, -0.0, u32::MAX), 0x80);
    }
}
