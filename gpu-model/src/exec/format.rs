//! Element formats of formatted buffer and image accesses: the data format (component
//! count, widths and bit positions) and the numeric format of each component, and the
//! conversions between a memory component and a VGPR value (32-bit, or 16-bit for the d16
//! forms).
//!
//! Data formats (Vega / CDNA3 ISA guides, "Buffer Data Formats"; LLVM `SIDefines.h`
//! `DFMT_*`): 1 `8`, 2 `16`, 3 `8_8`, 4 `32`, 5 `16_16`, 10 `8_8_8_8`, 11 `32_32`,
//! 12 `16_16_16_16`, 13 `32_32_32`, 14 `32_32_32_32` (components x, y, z, w from the
//! lowest address up), and the packed ones, whose names list the component widths from
//! the most significant bit down (CLRX `GcnMemHandling.md`, which derives its table from
//! the GCN ISA guides: "10_11_11: two 11-bit and one 10-bit components from lowest bit";
//! Mesa `radv_translate_buffer_dataformat` maps the R10G10B10A2 layout, x in bits 9:0, to
//! `2_10_10_10` and B10G11R11, x in bits 10:0, to `10_11_11`): 6 `10_11_11` (x 10:0,
//! y 21:11, z 31:22), 7 `11_11_10` (x 9:0, y 20:10, z 31:21), 8 `10_10_10_2` (x 1:0,
//! y 11:2, z 21:12, w 31:22), 9 `2_10_10_10` (x 9:0, y 19:10, z 29:20, w 31:30).
//! 0 is `INVALID` and 15 reserved. GFX12 names one unified format code instead; its
//! meaning is read off the name llvm-mc-22 prints for it ([`super::tbuf::gfx12_format`]).
//!
//! Numeric formats: 0 unorm (`v / (2^b - 1)`), 1 snorm (`max(v / (2^(b-1) - 1), -1)`),
//! 2 uscaled, 3 sscaled (the integer as a float), 4 uint, 5 sint (zero/sign-extended),
//! 7 float (16- and 32-bit IEEE components; the 11- and 10-bit components of the packed
//! float formats are unsigned floats with a 5-bit exponent biased by 15 and a 6- or 5-bit
//! mantissa, the layout of `R11G11B10_FLOAT`); 6 is reserved on GFX9 (LLVM
//! `BUF_NUM_FORMAT_RESERVED_6`).
//!
//! Decisions where the guides are silent (each refusal names itself):
//! - A format code that is `INVALID` or reserved describes no element at all; the access
//!   behaves like one to an unbound resource: loads return 0 in every register they write
//!   and stores (and image atomics) write nothing. This is what the all-zero null
//!   descriptors of the drivers rely on, and why the compute stacks never leave the
//!   format of a buffer descriptor 0 (Composable Kernel's `CK_BUFFER_RESOURCE_3RD_DWORD`
//!   sets `BUF_DATA_FORMAT_32` on GFX9).
//! - Stores convert uint/sint by truncation to the component width and float to f16 by
//!   rounding to nearest even (as the typed-buffer stores always did); the stores that
//!   need a rounding the guides do not give (float to unorm/snorm/scaled, to the 10/11-bit
//!   floats) are refused.
//! - The d16 forms move 16-bit values where the conversion is exact: 16-bit components
//!   unchanged, 8/10/2-bit integers zero/sign-extended (truncated on stores), scaled
//!   components of at most 11 bits as f16, the 10/11-bit floats widened to f16. The other
//!   narrowings to 16 bits (32-bit components, unorm/snorm) are refused.

use super::FaultReason;

/// Numeric format of the components.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Num {
    Unorm,
    Snorm,
    Uscaled,
    Sscaled,
    Uint,
    Sint,
    Float,
}

/// A valid element format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fmt {
    /// Components in memory (1 to 4).
    pub n: usize,
    /// Bytes of one element.
    pub bytes: usize,
    /// Components share one dword (10/11/2-bit formats).
    pub packed: bool,
    /// Width of each component in bits.
    pub bits: [u8; 4],
    /// Bit position of each component in the element.
    pub shift: [u8; 4],
    /// Numeric format.
    pub num: Num,
}

/// What a format code describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Decoded {
    /// An element format.
    Fmt(Fmt),
    /// `INVALID` or a reserved code: no element (see the module doc).
    Null,
}

fn refuse(why: &'static str) -> FaultReason {
    FaultReason::UnsupportedForm(why)
}

/// The element format of GFX9 data format `dfmt` and numeric format `nfmt` (instruction
/// `format:` of MTBUF, V# `DATA_FORMAT`/`NUM_FORMAT`, and the buffer-style image data
/// formats 1 to 14).
pub(crate) fn gfx9(dfmt: u32, nfmt: u32) -> Result<Decoded, FaultReason> {
    let uniform = |n: usize, b: u8| {
        let mut bits = [0u8; 4];
        let mut shift = [0u8; 4];
        for c in 0..n {
            bits[c] = b;
            shift[c] = b * c as u8;
        }
        (n, bits, shift, false)
    };
    let (n, bits, shift, packed) = match dfmt {
        1 => uniform(1, 8),
        2 => uniform(1, 16),
        3 => uniform(2, 8),
        4 => uniform(1, 32),
        5 => uniform(2, 16),
        6 => (3, [11, 11, 10, 0], [0, 11, 22, 0], true),
        7 => (3, [10, 11, 11, 0], [0, 10, 21, 0], true),
        8 => (4, [2, 10, 10, 10], [0, 2, 12, 22], true),
        9 => (4, [10, 10, 10, 2], [0, 10, 20, 30], true),
        10 => uniform(4, 8),
        11 => uniform(2, 32),
        12 => uniform(4, 16),
        13 => uniform(3, 32),
        14 => uniform(4, 32),
        _ => return Ok(Decoded::Null),
    };
    let num = match nfmt {
        0 => Num::Unorm,
        1 => Num::Snorm,
        2 => Num::Uscaled,
        3 => Num::Sscaled,
        4 => Num::Uint,
        5 => Num::Sint,
        7 => Num::Float,
        _ => return Ok(Decoded::Null),
    };
    if num == Num::Float && bits[..n].iter().any(|b| !matches!(b, 10 | 11 | 16 | 32)) {
        return Err(refuse(
            "float numeric format on 8-bit or 2-bit components (no such float format)",
        ));
    }
    let bytes = if packed { 4 } else { n * bits[0] as usize / 8 };
    Ok(Decoded::Fmt(Fmt {
        n,
        bytes,
        packed,
        bits,
        shift,
        num,
    }))
}

/// The low `bits` bits set.
#[inline]
pub(crate) fn mask(bits: u32) -> u32 {
    if bits >= 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
    }
}

impl Fmt {
    /// The raw bits of component `c` of an element held little-endian in `e`.
    #[inline]
    pub(crate) fn raw(&self, e: &[u8; 16], c: usize) -> u32 {
        let bits = u32::from(self.bits[c]);
        if self.packed {
            let w = u32::from_le_bytes([e[0], e[1], e[2], e[3]]);
            return (w >> self.shift[c]) & mask(bits);
        }
        let o = self.shift[c] as usize / 8;
        let mut b = [0u8; 4];
        let n = bits as usize / 8;
        b[..n].copy_from_slice(&e[o..o + n]);
        u32::from_le_bytes(b)
    }

    /// Places the raw bits `v` of component `c` into element `e`.
    #[inline]
    pub(crate) fn put(&self, e: &mut [u8; 16], c: usize, v: u32) {
        let bits = u32::from(self.bits[c]);
        if self.packed {
            let w = u32::from_le_bytes([e[0], e[1], e[2], e[3]]);
            let m = mask(bits) << self.shift[c];
            let w = (w & !m) | ((v << self.shift[c]) & m);
            e[..4].copy_from_slice(&w.to_le_bytes());
            return;
        }
        let o = self.shift[c] as usize / 8;
        let n = bits as usize / 8;
        e[o..o + n].copy_from_slice(&v.to_le_bytes()[..n]);
    }

    /// Whether component `c` converts to and from VGPRs in the requested mode: `d16` (16-bit
    /// values) and `store`. Checked before an instruction touches memory.
    pub(crate) fn check(&self, c: usize, d16: bool, store: bool) -> Result<(), FaultReason> {
        let bits = self.bits[c];
        let num = self.num;
        if store {
            if d16 && bits == 32 {
                return Err(refuse("d16 formatted store to a 32-bit component"));
            }
            return match num {
                Num::Uint | Num::Sint => Ok(()),
                Num::Float if matches!(bits, 16 | 32) => Ok(()),
                _ => Err(refuse(
                    "formatted store needing a rounding the ISA guides do not give \
                     (float to unorm/snorm/scaled or to a 10/11-bit float)",
                )),
            };
        }
        if d16 {
            let ok = match num {
                Num::Uint | Num::Sint => bits <= 16,
                Num::Uscaled | Num::Sscaled => bits <= 11,
                Num::Float => bits <= 16,
                Num::Unorm | Num::Snorm => false,
            };
            if !ok {
                return Err(refuse(
                    "d16 formatted load whose narrowing to 16 bits is not exact \
                     (32-bit or unorm/snorm components)",
                ));
            }
        }
        Ok(())
    }

    /// Component `c` (raw bits `raw`) as a 32-bit VGPR value.
    pub(crate) fn load32(&self, c: usize, raw: u32) -> u32 {
        let bits = u32::from(self.bits[c]);
        let max = mask(bits);
        let u = raw & max;
        let s = ((u << (32 - bits)) as i32 >> (32 - bits)) as i64;
        match self.num {
            Num::Unorm => ((u as f64 / max as f64) as f32).to_bits(),
            Num::Snorm => {
                let m = ((1u64 << (bits - 1)) - 1) as f64;
                ((s as f64 / m).max(-1.0) as f32).to_bits()
            }
            Num::Uscaled => (u as f32).to_bits(),
            Num::Sscaled => (s as f32).to_bits(),
            Num::Uint => u,
            Num::Sint => s as u32,
            Num::Float => match bits {
                16 => half::f16::from_bits(u as u16).to_f32().to_bits(),
                11 | 10 => half::f16::from_bits(small_float_f16(u, bits - 5))
                    .to_f32()
                    .to_bits(),
                _ => u,
            },
        }
    }

    /// Component `c` as a 16-bit value (d16 forms; [`Fmt::check`] passed).
    pub(crate) fn load16(&self, c: usize, raw: u32) -> u16 {
        let bits = u32::from(self.bits[c]);
        let u = raw & mask(bits);
        let s = ((u << (32 - bits)) as i32) >> (32 - bits);
        match self.num {
            Num::Uint => u as u16,
            Num::Sint => s as u16,
            Num::Uscaled => half::f16::from_f32(u as f32).to_bits(),
            Num::Sscaled => half::f16::from_f32(s as f32).to_bits(),
            Num::Float if bits == 16 => u as u16,
            Num::Float => small_float_f16(u, bits - 5),
            // Refused by `check`.
            Num::Unorm | Num::Snorm => 0,
        }
    }

    /// The raw memory bits of component `c` from a 32-bit VGPR value ([`Fmt::check`]
    /// passed).
    pub(crate) fn store32(&self, c: usize, v: u32) -> u32 {
        let bits = u32::from(self.bits[c]);
        match (self.num, bits) {
            (Num::Float, 16) => u32::from(half::f16::from_f32(f32::from_bits(v)).to_bits()),
            _ => v & mask(bits),
        }
    }

    /// The raw memory bits of component `c` from a 16-bit value (d16 stores).
    pub(crate) fn store16(&self, c: usize, v: u16) -> u32 {
        u32::from(v) & mask(u32::from(self.bits[c]))
    }

    /// The constant 1 a destination select `SEL_1` yields: 1.0 for the formats that
    /// load as floats, the integer 1 for uint/sint.
    pub(crate) fn one(&self, d16: bool) -> u32 {
        match (self.num, d16) {
            (Num::Uint | Num::Sint, _) => 1,
            (_, true) => 0x3c00,
            (_, false) => 1.0f32.to_bits(),
        }
    }
}

/// An unsigned 10- or 11-bit float (5-bit exponent, bias 15, `mbits` mantissa bits) as
/// the f16 with the same value: the same exponent field and the mantissa shifted up (exact,
/// Inf/NaN and denormals included).
#[inline]
fn small_float_f16(u: u32, mbits: u32) -> u16 {
    let e = (u >> mbits) & 0x1f;
    let m = u & mask(mbits);
    ((e << 10) | (m << (10 - mbits))) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(d: u32, n: u32) -> Fmt {
        match gfx9(d, n).unwrap() {
            Decoded::Fmt(f) => f,
            Decoded::Null => panic!("null format"),
        }
    }

    #[test]
    fn packed_layouts() {
        // 2_10_10_10 uint: x in 9:0, w in 31:30.
        let f = fmt(9, 4);
        let mut e = [0u8; 16];
        e[..4].copy_from_slice(&(3u32 << 30 | 5 << 20 | 7 << 10 | 9).to_le_bytes());
        assert_eq!([0, 1, 2, 3].map(|c| f.raw(&e, c)), [9, 7, 5, 3]);
        // 10_11_11 float: 1.0 in x (11-bit: e=15, m=0), 2.0 in z (10-bit: e=16).
        let f = fmt(6, 7);
        e[..4].copy_from_slice(&((16u32 << 5) << 22 | (15 << 6)).to_le_bytes());
        assert_eq!(f32::from_bits(f.load32(0, f.raw(&e, 0))), 1.0);
        assert_eq!(f32::from_bits(f.load32(2, f.raw(&e, 2))), 2.0);
        assert_eq!(gfx9(0, 4).unwrap(), Decoded::Null);
        assert_eq!(gfx9(15, 4).unwrap(), Decoded::Null);
        assert_eq!(gfx9(4, 6).unwrap(), Decoded::Null);
        assert!(gfx9(1, 7).is_err());
    }
}
