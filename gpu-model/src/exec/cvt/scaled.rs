//! The gfx950 scaled conversions `v_cvt_scalef32_*` (semantics and sources: [`super`]):
//! fp8/bf8/fp4 pairs and single stochastic values, and the 32-element fp6/bf6 forms, in
//! both directions between the narrow formats and f32/f16/bf16.

use super::{check_tuple, fp16_ovfl, fsrc, insert, opsel, prng, update};
use crate::exec::float as fl;
use crate::exec::inst::Inst;
use crate::exec::minifloat::{self as mf, Format, Overflow, Round};
use crate::exec::valu::{src, Row};
use crate::exec::wave::{Wave, LANES};
use crate::exec::FaultReason;
use crate::isa::Op;

/// Float formats of the wide side of a scaled conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wide {
    F32,
    F16,
    Bf16,
}

impl Wide {
    /// Mantissa bits (stochastic rounding aligns the random word to them).
    fn mbits(self) -> u32 {
        match self {
            Wide::F32 => 23,
            Wide::F16 => 10,
            Wide::Bf16 => 7,
        }
    }

    /// The value of operand bits `x`; an f32 denormal reads as zero when MODE[4] is clear.
    fn value(self, x: u32, mode: u32) -> f64 {
        match self {
            Wide::F32 => {
                let x = if mode >> 4 & 1 == 0 && x & 0x7f80_0000 == 0 {
                    x & 0x8000_0000
                } else {
                    x
                };
                f32::from_bits(x) as f64
            }
            Wide::F16 => mf::decode(Format::F16, x & 0xffff) as f64,
            Wide::Bf16 => mf::decode(Format::Bf16, x & 0xffff) as f64,
        }
    }
}

/// Shape of a scaled conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// Two values from S0 and S1 (f32), or from the halves of a packed S0 (16-bit), into
    /// the destination half (8-bit) or byte (4-bit) OPSEL selects; scale in the last
    /// source.
    Pk,
    /// One value stochastically rounded with S1 into byte OPSEL[3:2]; scale S2.
    Sr,
    /// Two fp4 values stochastically rounded (S1, then its PRNG step) from a 64-bit S0
    /// (f32 pair) or a packed 16-bit S0, into byte OPSEL[3:2]; scale S2.
    SrPkFp4,
    /// Narrow to wide: one value (byte OPSEL[1:0]) to f32, or to the f16 half OPSEL[3].
    One,
    /// Narrow to wide: two values (8-bit: word OPSEL[0]; fp4: byte OPSEL[1:0]) to an f32
    /// pair or a packed 16-bit register.
    PkDec,
    /// 32 6-bit values to 32 wide ones.
    Pk32Dec,
    /// 32 wide values (16-bit, packed in 16 registers) to 32 6-bit ones (six registers).
    Pk32,
    /// 2 x 16 f32 values from S0 and S1, interleaved, to 32 6-bit ones.
    Pk2x16,
    /// 32 wide values stochastically rounded (S1, then PRNG steps) to 32 6-bit ones.
    SrPk32,
}

/// A scaled conversion: shape, narrow format, wide format.
#[derive(Debug, Clone, Copy)]
pub(super) struct Scaled {
    shape: Shape,
    narrow: Format,
    wide: Wide,
}

/// The scaled conversion `op` is, if any.
pub(super) fn scaled(op: Op) -> Option<Scaled> {
    use Format::{Bf6, Bf8, Fp4, Fp6, Fp8};
    use Op::*;
    use Shape::*;
    use Wide::{Bf16, F16, F32};
    let (shape, narrow, wide) = match op {
        VCvtScalef32PkFp8F32 => (Pk, Fp8, F32),
        VCvtScalef32PkBf8F32 => (Pk, Bf8, F32),
        VCvtScalef32PkFp4F32 => (Pk, Fp4, F32),
        VCvtScalef32PkFp8F16 => (Pk, Fp8, F16),
        VCvtScalef32PkBf8F16 => (Pk, Bf8, F16),
        VCvtScalef32PkFp4F16 => (Pk, Fp4, F16),
        VCvtScalef32PkFp8Bf16 => (Pk, Fp8, Bf16),
        VCvtScalef32PkBf8Bf16 => (Pk, Bf8, Bf16),
        VCvtScalef32PkFp4Bf16 => (Pk, Fp4, Bf16),
        VCvtScalef32SrFp8F32 => (Sr, Fp8, F32),
        VCvtScalef32SrBf8F32 => (Sr, Bf8, F32),
        VCvtScalef32SrFp8F16 => (Sr, Fp8, F16),
        VCvtScalef32SrBf8F16 => (Sr, Bf8, F16),
        VCvtScalef32SrFp8Bf16 => (Sr, Fp8, Bf16),
        VCvtScalef32SrBf8Bf16 => (Sr, Bf8, Bf16),
        VCvtScalef32SrPkFp4F32 => (SrPkFp4, Fp4, F32),
        VCvtScalef32SrPkFp4F16 => (SrPkFp4, Fp4, F16),
        VCvtScalef32SrPkFp4Bf16 => (SrPkFp4, Fp4, Bf16),
        VCvtScalef32F32Fp8 => (One, Fp8, F32),
        VCvtScalef32F32Bf8 => (One, Bf8, F32),
        VCvtScalef32F16Fp8 => (One, Fp8, F16),
        VCvtScalef32F16Bf8 => (One, Bf8, F16),
        VCvtScalef32PkF32Fp8 => (PkDec, Fp8, F32),
        VCvtScalef32PkF32Bf8 => (PkDec, Bf8, F32),
        VCvtScalef32PkF32Fp4 => (PkDec, Fp4, F32),
        VCvtScalef32PkF16Fp8 => (PkDec, Fp8, F16),
        VCvtScalef32PkF16Bf8 => (PkDec, Bf8, F16),
        VCvtScalef32PkF16Fp4 => (PkDec, Fp4, F16),
        VCvtScalef32PkBf16Fp8 => (PkDec, Fp8, Bf16),
        VCvtScalef32PkBf16Bf8 => (PkDec, Bf8, Bf16),
        VCvtScalef32PkBf16Fp4 => (PkDec, Fp4, Bf16),
        VCvtScalef32Pk32F32Fp6 => (Pk32Dec, Fp6, F32),
        VCvtScalef32Pk32F32Bf6 => (Pk32Dec, Bf6, F32),
        VCvtScalef32Pk32F16Fp6 => (Pk32Dec, Fp6, F16),
        VCvtScalef32Pk32F16Bf6 => (Pk32Dec, Bf6, F16),
        VCvtScalef32Pk32Bf16Fp6 => (Pk32Dec, Fp6, Bf16),
        VCvtScalef32Pk32Bf16Bf6 => (Pk32Dec, Bf6, Bf16),
        VCvtScalef32Pk32Fp6F16 => (Pk32, Fp6, F16),
        VCvtScalef32Pk32Bf6F16 => (Pk32, Bf6, F16),
        VCvtScalef32Pk32Fp6Bf16 => (Pk32, Fp6, Bf16),
        VCvtScalef32Pk32Bf6Bf16 => (Pk32, Bf6, Bf16),
        VCvtScalef322xpk16Fp6F32 => (Pk2x16, Fp6, F32),
        VCvtScalef322xpk16Bf6F32 => (Pk2x16, Bf6, F32),
        VCvtScalef32SrPk32Fp6F32 => (SrPk32, Fp6, F32),
        VCvtScalef32SrPk32Bf6F32 => (SrPk32, Bf6, F32),
        VCvtScalef32SrPk32Fp6F16 => (SrPk32, Fp6, F16),
        VCvtScalef32SrPk32Bf6F16 => (SrPk32, Bf6, F16),
        VCvtScalef32SrPk32Fp6Bf16 => (SrPk32, Fp6, Bf16),
        VCvtScalef32SrPk32Bf6Bf16 => (SrPk32, Bf6, Bf16),
        _ => return None,
    };
    Some(Scaled {
        shape,
        narrow,
        wide,
    })
}

/// Wide value `v` to narrow code with E8M0 scale `scale` (see the module notes).
fn scaled_encode(f: Format, v: f64, scale: u32, round: Round, ovfl: bool) -> u32 {
    if scale == 0xff {
        return f.nan(v.is_sign_negative());
    }
    let ovf = match f {
        Format::Fp8 | Format::Bf8 if !ovfl => Overflow::Special,
        _ => Overflow::SaturateAll,
    };
    // v / 2^(scale - 127): exact in f64 for every f32/f16/bf16 operand.
    let v = v / mf::decode_e8m0(scale as u8) as f64;
    mf::encode(f, v, round, ovf)
}

/// Narrow code `x` to wide bits with E8M0 scale `scale` (see the module notes).
fn scaled_decode(f: Format, x: u32, scale: u32, to: Wide) -> u32 {
    let neg = x >> (f.bits() - 1) & 1 != 0;
    let v = mf::decode(f, x);
    if v.is_nan() || scale == 0xff {
        return match to {
            Wide::F32 => (neg as u32) << 31 | 0x7fc0_0000,
            _ => (neg as u32) << 15 | 0x7fff,
        };
    }
    // Exact in f64 (at most 4 significant bits times a power of two), one rounding below.
    let v = v as f64 * mf::decode_e8m0(scale as u8) as f64;
    match to {
        Wide::F32 => (v as f32).to_bits(),
        Wide::F16 => mf::encode(Format::F16, v, Round::NearestEven, Overflow::Special),
        Wide::Bf16 => mf::encode(Format::Bf16, v, Round::NearestEven, Overflow::Special),
    }
}

/// Source `n` as consecutive register rows (a tuple operand): VGPRs, or consecutive SGPRs.
fn tuple(w: &Wave, i: &Inst, n: usize, len: usize) -> Result<Vec<Row>, FaultReason> {
    let c = i.src[n] as usize;
    if c >= 256 {
        let r = c - 256;
        if r + len > 256 {
            return Err(FaultReason::UnsupportedForm(
                "v_cvt_scalef32_* source tuple past v255",
            ));
        }
        return Ok((r..r + len).map(|k| w.v[k]).collect());
    }
    if len > 1 && c + len > 102 {
        return Err(FaultReason::UnsupportedForm(
            "v_cvt_scalef32_* source tuple that is not registers",
        ));
    }
    Ok((0..len)
        .map(|k| [w.sread((c + k) as u16, i.lit); LANES])
        .collect())
}

/// Executes a `v_cvt_scalef32_*` conversion.
pub(super) fn exec(w: &mut Wave, i: &Inst, s: Scaled) -> Result<(), FaultReason> {
    let (f, wide) = (s.narrow, s.wide);
    let mode = w.mode;
    let ovfl = fp16_ovfl(w);
    let sel = opsel(i);
    let exec = w.exec();
    let on = |l: usize| exec >> l & 1 != 0;
    // The scale operand: the last source.
    let scale_src = match s.shape {
        Shape::Sr | Shape::SrPkFp4 | Shape::SrPk32 | Shape::Pk2x16 => 2,
        Shape::Pk if wide == Wide::F32 => 2,
        _ => 1,
    };
    let (sc, _) = src(w, i, scale_src);
    let scale: Vec<u32> = sc.iter().map(|x| x >> 23 & 0xff).collect();
    let half = wide != Wide::F32;
    let d = i.dst as usize;
    match s.shape {
        Shape::Pk => {
            let (a, _) = fsrc(w, i, 0, half);
            let b = if half { a } else { fsrc(w, i, 1, false).0 };
            let (x0, x1): (Vec<u32>, Vec<u32>) = if half {
                (
                    a.iter().map(|x| x & 0xffff).collect(),
                    a.iter().map(|x| x >> 16).collect(),
                )
            } else {
                (a.to_vec(), b.to_vec())
            };
            let nb = f.bits();
            let shift = if nb == 4 {
                8 * (sel >> 2)
            } else {
                16 * (sel >> 3)
            };
            update(w, i, u64::MAX, |l, old| {
                let e =
                    |x| scaled_encode(f, wide.value(x, mode), scale[l], Round::NearestEven, ovfl);
                insert(old, e(x0[l]) | e(x1[l]) << nb, shift, 2 * nb)
            });
        }
        Shape::Sr => {
            let (a, _) = fsrc(w, i, 0, half);
            let hi = half && sel & 1 != 0;
            let (seed, _) = src(w, i, 1);
            update(w, i, u64::MAX, |l, old| {
                let x = if hi { a[l] >> 16 } else { a[l] };
                let round = Round::Stochastic {
                    seed: seed[l],
                    src_mbits: wide.mbits(),
                };
                let c = scaled_encode(f, wide.value(x, mode), scale[l], round, ovfl);
                insert(old, c, 8 * (sel >> 2), 8)
            });
        }
        Shape::SrPkFp4 => {
            let rows = if half {
                vec![fsrc(w, i, 0, true).0]
            } else {
                tuple(w, i, 0, 2)?
            };
            let (neg, abs) = (i.neg & 1 != 0, i.abs & 1 != 0);
            let (seed, _) = src(w, i, 1);
            update(w, i, u64::MAX, |l, old| {
                let (x0, x1) = if half {
                    (rows[0][l] & 0xffff, rows[0][l] >> 16)
                } else {
                    let m = |x| fl::mod32(x, abs, neg);
                    (m(rows[0][l]), m(rows[1][l]))
                };
                let mut r = seed[l];
                let mut e = |x| {
                    let round = Round::Stochastic {
                        seed: r,
                        src_mbits: wide.mbits(),
                    };
                    r = prng(r);
                    scaled_encode(f, wide.value(x, mode), scale[l], round, ovfl)
                };
                let c = e(x0) | e(x1) << 4;
                insert(old, c, 8 * (sel >> 2), 8)
            });
        }
        Shape::One => {
            let (a, _) = src(w, i, 0);
            let byte = 8 * (sel & 3);
            let hi = 16 * (sel >> 3);
            update(w, i, u64::MAX, |l, old| {
                let r = scaled_decode(f, a[l] >> byte & 0xff, scale[l], wide);
                if wide == Wide::F32 {
                    r
                } else {
                    insert(old, r, hi, 16)
                }
            });
        }
        Shape::PkDec => {
            let (a, _) = src(w, i, 0);
            let codes = |x: u32| {
                if f == Format::Fp4 {
                    let b = x >> (8 * (sel & 3));
                    (b & 0xf, b >> 4 & 0xf)
                } else {
                    let h = x >> (16 * (sel & 1));
                    (h & 0xff, h >> 8 & 0xff)
                }
            };
            if wide == Wide::F32 {
                check_tuple(
                    d,
                    2,
                    "v_cvt_scalef32_pk_f32_* destination pair past the register file",
                )?;
                for l in (0..LANES).filter(|&l| on(l)) {
                    let (c0, c1) = codes(a[l]);
                    w.v[d][l] = scaled_decode(f, c0, scale[l], wide);
                    w.v[d + 1][l] = scaled_decode(f, c1, scale[l], wide);
                }
            } else {
                update(w, i, u64::MAX, |l, _| {
                    let (c0, c1) = codes(a[l]);
                    scaled_decode(f, c0, scale[l], wide)
                        | scaled_decode(f, c1, scale[l], wide) << 16
                });
            }
        }
        Shape::Pk32Dec => {
            let rows = tuple(w, i, 0, 6)?;
            let out = if wide == Wide::F32 { 32 } else { 16 };
            check_tuple(
                d,
                out,
                "v_cvt_scalef32_pk32_* destination past the register file",
            )?;
            for l in (0..LANES).filter(|&l| on(l)) {
                let packed: [u32; 6] = std::array::from_fn(|k| rows[k][l]);
                let dec = |k: usize| scaled_decode(f, unpack6(&packed, k), scale[l], wide);
                for r in 0..out {
                    w.v[d + r][l] = if wide == Wide::F32 {
                        dec(r)
                    } else {
                        dec(2 * r) | dec(2 * r + 1) << 16
                    };
                }
            }
        }
        Shape::Pk32 | Shape::Pk2x16 | Shape::SrPk32 => {
            check_tuple(
                d,
                6,
                "v_cvt_scalef32_*pk*_fp6/bf6 destination past the register file",
            )?;
            // The 32 operands per lane in element order.
            let elems: Vec<Row> = match (s.shape, wide) {
                (Shape::Pk2x16, _) => {
                    let (s0, s1) = (tuple(w, i, 0, 16)?, tuple(w, i, 1, 16)?);
                    (0..32)
                        .map(|k| if k % 2 == 0 { s0[k / 2] } else { s1[k / 2] })
                        .collect()
                }
                (_, Wide::F32) => tuple(w, i, 0, 32)?,
                _ => {
                    let t = tuple(w, i, 0, 16)?;
                    (0..32)
                        .map(|k| std::array::from_fn(|l| t[k / 2][l] >> (16 * (k % 2)) & 0xffff))
                        .collect()
                }
            };
            let seed = if s.shape == Shape::SrPk32 {
                Some(src(w, i, 1).0)
            } else {
                None
            };
            let (neg, abs) = (i.neg & 1 != 0, i.abs & 1 != 0);
            for l in (0..LANES).filter(|&l| on(l)) {
                let mut r = seed.map(|s| s[l]);
                let mut codes = [0u32; 32];
                for (k, c) in codes.iter_mut().enumerate() {
                    let x = elems[k][l];
                    let x = if wide == Wide::F32 {
                        fl::mod32(x, abs, neg)
                    } else {
                        fl::mod16(x, abs, neg)
                    };
                    let round = match r {
                        Some(seed) => Round::Stochastic {
                            seed,
                            src_mbits: wide.mbits(),
                        },
                        None => Round::NearestEven,
                    };
                    r = r.map(prng);
                    *c = scaled_encode(f, wide.value(x, mode), scale[l], round, ovfl);
                }
                for (k, v) in pack6(&codes).into_iter().enumerate() {
                    w.v[d + k][l] = v;
                }
            }
        }
    }
    Ok(())
}

/// Element `k` of 32 6-bit codes packed little-endian in six registers.
fn unpack6(p: &[u32; 6], k: usize) -> u32 {
    let bit = 6 * k;
    let lo = p[bit / 32] >> (bit % 32);
    let hi = if bit % 32 > 26 {
        p[bit / 32 + 1] << (32 - bit % 32)
    } else {
        0
    };
    (lo | hi) & 0x3f
}

/// 32 6-bit codes packed little-endian into six registers.
fn pack6(c: &[u32; 32]) -> [u32; 6] {
    let mut p = [0u32; 6];
    for (k, &x) in c.iter().enumerate() {
        let bit = 6 * k;
        let v = ((x & 0x3f) as u64) << (bit % 32);
        p[bit / 32] |= v as u32;
        if bit / 32 + 1 < 6 {
            p[bit / 32 + 1] |= (v >> 32) as u32;
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::{pack6, unpack6};

    #[test]
    fn six_bit_packing_round_trips() {
        let c: [u32; 32] = std::array::from_fn(|k| (k as u32 * 37 + 5) & 0x3f);
        let p = pack6(&c);
        for (k, &x) in c.iter().enumerate() {
            assert_eq!(unpack6(&p, k), x, "{k}");
        }
        // Element 5 straddles registers 0 and 1 (bits 30..35).
        let mut one = [0u32; 32];
        one[5] = 0x3f;
        assert_eq!(pack6(&one), [0xc000_0000, 0xf, 0, 0, 0, 0]);
    }
}
