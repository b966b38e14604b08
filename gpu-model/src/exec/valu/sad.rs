//! Sums of absolute differences and byte averaging: `v_sad_u8`, `v_sad_hi_u8`,
//! `v_sad_u16`, `v_sad_u32`, `v_msad_u8`, `v_qsad_pk_u16_u8`, `v_mqsad_pk_u16_u8`,
//! `v_mqsad_u32_u8` and `v_lerp_u8`, as the CDNA4 and RDNA4 ISA guides' pseudocode defines
//! them (the same on both families).
//!
//! Clamp: "for integer operations, it clamps the result to the largest and smallest
//! representable value" (CDNA4 guide 6.5): the sum saturates at the width of the field it
//! is written to (32 bits, or 16 for the packed `_pk_u16` results) instead of wrapping.

use super::rows::{put, put64, src, src64, Row, Row64};
use crate::exec::inst::Inst;
use crate::exec::wave::{Wave, LANES};
use crate::exec::FaultReason;
use crate::isa::Op;

/// `|x - y|` of unsigned values.
#[inline]
fn absdiff(x: u32, y: u32) -> u64 {
    u64::from(x.abs_diff(y))
}

/// V_SAD_U8 without the accumulator: the byte-wise absolute differences of `a` and `b`;
/// with `masked` (V_MSAD_U8) the bytes where `b` is 0 count nothing.
#[inline]
fn sad8(a: u32, b: u32, masked: bool) -> u64 {
    (0..4)
        .map(|k| {
            let (x, y) = ((a >> (8 * k)) & 0xff, (b >> (8 * k)) & 0xff);
            if masked && y == 0 {
                0
            } else {
                absdiff(x, y)
            }
        })
        .sum()
}

/// `v` written into a field of `bits` bits: wrapped, or saturated with clamp.
#[inline]
fn fit(v: u64, bits: u32, clamp: bool) -> u64 {
    let max = (1u64 << bits) - 1;
    if clamp {
        v.min(max)
    } else {
        v & max
    }
}

/// Executes one of this module's operations; `None` for others.
pub(crate) fn exec(w: &mut Wave, i: &Inst) -> Option<Result<(), FaultReason>> {
    use Op::*;
    match i.op {
        VSadU8 | VSadHiU8 | VSadU16 | VSadU32 | VMsadU8 | VLerpU8 => {
            let (a, en) = src(w, i, 0);
            let (b, _) = src(w, i, 1);
            let (c, _) = src(w, i, 2);
            let r: Row = std::array::from_fn(|l| {
                let (x, y, z) = (a[l], b[l], c[l]);
                let v = match i.op {
                    VSadU8 => sad8(x, y, false) + u64::from(z),
                    VMsadU8 => sad8(x, y, true) + u64::from(z),
                    // D = (sad_u8(S0, S1, 0) << 16) + S2.
                    VSadHiU8 => (sad8(x, y, false) << 16) + u64::from(z),
                    VSadU16 => {
                        absdiff(x & 0xffff, y & 0xffff) + absdiff(x >> 16, y >> 16) + u64::from(z)
                    }
                    VSadU32 => absdiff(x, y) + u64::from(z),
                    // Per byte: (S0 + S1 + bit 0 of the S2 byte) >> 1 (no clamp: bytes
                    // cannot overflow).
                    _ => {
                        return (0..4).fold(0, |acc, k| {
                            let f = |v: u32| (v >> (8 * k)) & 0xff;
                            acc | ((f(x) + f(y) + (f(z) & 1)) >> 1) << (8 * k)
                        });
                    }
                };
                fit(v, 32, i.clamp) as u32
            });
            put(w, i, &r, en);
        }
        VQsadPkU16U8 | VMqsadPkU16U8 => {
            // S0 is 64 bits; lane k of the result compares the 32-bit window starting at
            // byte k of S0 with S1, accumulating into 16-bit field k of S2.
            let masked = i.op == VMqsadPkU16U8;
            let a = src64(w, i, 0, false);
            let (b, _) = src(w, i, 1);
            let c = src64(w, i, 2, false);
            let r: Row64 = std::array::from_fn(|l| {
                (0..4).fold(0, |acc, k| {
                    let win = (a[l] >> (8 * k)) as u32;
                    let s = sad8(win, b[l], masked) + ((c[l] >> (16 * k)) & 0xffff);
                    acc | fit(s, 16, i.clamp) << (16 * k)
                })
            });
            put64(w, i.dst as usize, &r);
        }
        VMqsadU32U8 => {
            // S2 and D are 128-bit register quads: field k is 32 bits.
            let a = src64(w, i, 0, false);
            let (b, _) = src(w, i, 1);
            let c = quad(w, i, 2);
            let d = i.dst as usize;
            if d + 3 >= w.v.len() {
                return Some(Err(FaultReason::UnsupportedForm(
                    "v_mqsad_u32_u8 destination quad past the register file",
                )));
            }
            let exec = w.exec();
            for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
                for (k, acc) in c.iter().enumerate() {
                    let win = (a[l] >> (8 * k)) as u32;
                    let s = sad8(win, b[l], true) + u64::from(acc[l]);
                    w.v[d + k][l] = fit(s, 32, i.clamp) as u32;
                }
            }
        }
        _ => return None,
    }
    Some(Ok(()))
}

/// A 128-bit source as four 32-bit rows: a VGPR quad, an SGPR quad, or a constant (its
/// 64-bit value in the low two dwords; the high two are zero).
fn quad(w: &Wave, i: &Inst, n: usize) -> [Row; 4] {
    let c = i.src[n] as usize;
    if c >= 256 {
        let r = c - 256;
        std::array::from_fn(|k| w.v[(r + k) % w.v.len()])
    } else if c < 128 {
        std::array::from_fn(|k| [w.sgpr(c + k); LANES])
    } else {
        let v = w.sread64(i.src[n], i.lit, false);
        [
            [v as u32; LANES],
            [(v >> 32) as u32; LANES],
            [0; LANES],
            [0; LANES],
        ]
    }
}
