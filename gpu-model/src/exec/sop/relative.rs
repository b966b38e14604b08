//! M0-relative SGPR moves: `s_movrels_b32/b64`, `s_movreld_b32/b64` and GFX12
//! `s_movrelsd_2_b32`.
//!
//! RDNA4 guide 16.3 and CDNA4 guide 5.7: `D = SGPR[S0 + M0]`, `SGPR[D + M0] = S0`; the
//! address is the raw register field plus M0 (all 32 bits; `s_movrelsd_2` adds M0[9:0] to
//! the source and M0[25:16] to the destination). Out of range (CDNA4 guide 3.6.1): "It is
//! illegal to index from one register type into another"; an out-of-range source reads
//! SGPR0, an out-of-range destination is not written. The register types are the user
//! SGPRs (s0..s101 on GFX9, s0..s105 on GFX12), FLAT_SCRATCH and XNACK_MASK (GFX9), VCC,
//! the trap temporaries, and each other special register on its own. A constant in the
//! source field is read as it is (indexing into constants is illegal; LLVM never emits it).

use super::super::inst::Inst;
use super::super::wave::Wave;
use crate::isa::Op;
use std::ops::Range;

/// The register type (as a range of codes) that code `c` belongs to.
fn kind(c: u16, gfx12: bool) -> Range<u64> {
    let user: u16 = if gfx12 { 106 } else { 102 };
    match c {
        _ if c < user => 0..user as u64,
        102..=103 if !gfx12 => 102..104,
        104..=105 if !gfx12 => 104..106,
        106..=107 => 106..108,
        108..=123 => 108..124,
        126..=127 => 126..128,
        _ => c as u64..c as u64 + 1,
    }
}

/// `base + index` when the `n` registers from there stay in `base`'s register type.
fn relative(base: u16, index: u32, n: u64, gfx12: bool) -> Option<u16> {
    let k = kind(base, gfx12);
    let a = base as u64 + index as u64;
    (a >= k.start && a + n <= k.end).then_some(a as u16)
}

/// Executes a relative move; `gfx12` selects the family's register file.
pub(super) fn exec(w: &mut Wave, i: &Inst, gfx12: bool) {
    use Op::*;
    let m0 = w.sgpr(124);
    let (s, d) = (i.src[0], i.dst);
    match i.op {
        SMovrelsB32 | SMovrelsB64 => {
            let n = if i.op == SMovrelsB64 { 2 } else { 1 };
            // Out of range: SGPR0 (s[0:1] for the 64-bit form).
            let src = if s < 128 {
                relative(s, m0, n, gfx12).unwrap_or(0)
            } else {
                s
            };
            if n == 2 {
                let v = w.sread64(src, i.lit, false);
                w.swrite64(d, v);
            } else {
                let v = w.sread(src, i.lit);
                w.swrite(d, v);
            }
        }
        SMovreldB32 | SMovreldB64 => {
            let n = if i.op == SMovreldB64 { 2 } else { 1 };
            if let Some(dst) = relative(d, m0, n, gfx12) {
                if n == 2 {
                    let v = w.sread64(s, i.lit, false);
                    w.swrite64(dst, v);
                } else {
                    let v = w.sread(s, i.lit);
                    w.swrite(dst, v);
                }
            }
        }
        _ => {
            // s_movrelsd_2_b32.
            let src = if s < 128 {
                relative(s, m0 & 0x3ff, 1, gfx12).unwrap_or(0)
            } else {
                s
            };
            let v = w.sread(src, i.lit);
            if let Some(dst) = relative(d, (m0 >> 16) & 0x3ff, 1, gfx12) {
                w.swrite(dst, v);
            }
        }
    }
}
