//! GFX12 M0-relative VGPR moves: `v_movrels_b32`, `v_movreld_b32`, `v_movrelsd_b32`,
//! `v_movrelsd_2_b32` and `v_swaprel_b32` (RDNA4 ISA guide pseudocode: the register
//! number in the instruction plus M0 (`M0[31:0]`, or `M0[9:0]` for the source and
//! `M0[25:16]` for the destination of the `_2`/`swaprel` forms) names the VGPR).
//!
//! Out of range (RDNA4 guide 7.2.7, "Out-of-Range GPRs"): "When a source VGPR is
//! out-of-range, it acts as if the instruction indicated VGPR0. When the destination GPR
//! is out-of-range, the instruction issues to the VALU but does not write the results."
//! The range is the 256 architectural VGPRs (the executor does not track a wave's VGPR
//! allocation).

use super::rows::Row;
use crate::exec::inst::Inst;
use crate::exec::wave::{Wave, LANES};
use crate::exec::FaultReason;
use crate::isa::Op;

/// Architectural VGPRs.
const VGPRS: u64 = 256;

/// M0 (SGPR code 124).
const M0: usize = 124;

/// The VGPR `base + off`, or `None` when out of range.
fn reg(base: u16, off: u32) -> Option<usize> {
    let r = u64::from(base) + u64::from(off);
    (r < VGPRS).then_some(r as usize)
}

/// Executes one of this module's operations; `None` for others.
pub(crate) fn exec(w: &mut Wave, i: &Inst) -> Option<Result<(), FaultReason>> {
    use Op::*;
    if !matches!(
        i.op,
        VMovrelsB32 | VMovreldB32 | VMovrelsdB32 | VMovrelsd2B32 | VSwaprelB32
    ) {
        return None;
    }
    let m0 = w.sgpr(M0);
    let (soff, doff) = match i.op {
        VMovrelsd2B32 | VSwaprelB32 => (m0 & 0x3ff, (m0 >> 16) & 0x3ff),
        VMovrelsB32 => (m0, 0),
        VMovreldB32 => (0, m0),
        _ => (m0, m0),
    };
    let exec = w.exec();
    let s0 = i.src[0];
    // The source: a VGPR index (relative unless v_movreld), or any other operand read as
    // usual (v_movreld's S0 may be a scalar or a constant).
    let read: Row = if s0 >= 256 {
        let r = if i.op == VMovreldB32 {
            Some((s0 - 256) as usize)
        } else {
            reg(s0 - 256, soff)
        };
        w.v[r.unwrap_or(0)]
    } else {
        [w.sread(s0, i.lit); LANES]
    };
    let dst = if i.op == VMovrelsB32 {
        Some(i.dst as usize % 256)
    } else {
        reg(i.dst, doff)
    };
    if i.op == VSwaprelB32 {
        // Both registers are written. VDST + M0[25:16] out of range: nothing is written
        // (the guide: "does not write the results"); SRC0 + M0[9:0] out of range: it
        // reads as v0 and is not written back (documented choice where the two rules of
        // 7.2.7 meet).
        let (Some(d), src) = (dst, (s0 >= 256).then(|| reg(s0 - 256, soff)).flatten()) else {
            return Some(Ok(()));
        };
        let old = w.v[d];
        for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
            w.v[d][l] = read[l];
            if let Some(s) = src {
                w.v[s][l] = old[l];
            }
        }
        return Some(Ok(()));
    }
    if let Some(d) = dst {
        for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
            w.v[d][l] = read[l];
        }
    }
    Some(Ok(()))
}
