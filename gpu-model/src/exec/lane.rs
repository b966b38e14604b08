//! Lane-level modifiers of vector instructions: SDWA sub-dword selects, DPP lane
//! permutations (GFX9 DPP, GFX12 DPP16 and DPP8), plus helpers shared by cross-lane
//! instructions.

use super::decode::{Inst, Sub};
use super::wave::{Wave, LANES};

/// Extracts an SDWA source select (`sel`: 0..3 bytes, 4/5 words, 6 dword).
#[inline(always)]
pub(crate) fn sdwa_sel(x: u32, sel: u32, sext: bool) -> u32 {
    let (shift, bits) = match sel {
        0..=3 => (8 * sel, 8),
        4 => (0, 16),
        5 => (16, 16),
        _ => return x,
    };
    let v = (x >> shift) & ((1 << bits) - 1);
    if sext {
        ((v << (32 - bits)) as i32 >> (32 - bits)) as u32
    } else {
        v
    }
}

/// Applies the SDWA select of source `n` (0 or 1) to every lane.
pub(crate) fn sdwa_src(vals: &mut [u32; LANES], i: &Inst, n: usize) {
    let (sel, sext) = if n == 0 {
        ((i.w1 >> 16) & 7, i.w1 & (1 << 19) != 0)
    } else if n == 1 {
        ((i.w1 >> 24) & 7, i.w1 & (1 << 27) != 0)
    } else {
        return;
    };
    if sel == 6 {
        return;
    }
    for v in vals.iter_mut() {
        *v = sdwa_sel(*v, sel, sext);
    }
}

/// Places an SDWA result into the destination select, given the old destination value.
#[inline(always)]
pub(crate) fn sdwa_dst(result: u32, old: u32, w1: u32) -> u32 {
    let sel = (w1 >> 8) & 7;
    let unused = (w1 >> 11) & 3;
    let (shift, bits) = match sel {
        0..=3 => (8 * sel, 8),
        4 => (0, 16),
        5 => (16, 16),
        _ => return result,
    };
    let mask = ((1u64 << bits) - 1) as u32;
    let field = (result & mask) << shift;
    match unused {
        // UNUSED_SEXT: sign-extend the field into the bits above it.
        1 => {
            let v = ((result & mask) << (32 - bits)) as i32 >> (32 - bits);
            let hi = if shift + bits >= 32 {
                0
            } else {
                (v as u32) & !((1u32 << (shift + bits)) - 1)
            };
            field | hi
        }
        // UNUSED_PRESERVE.
        2 => (old & !(mask << shift)) | field,
        _ => field,
    }
}

/// The source lane DPP control `ctrl` reads for lane `l`, or `None` when out of range.
#[inline(always)]
fn dpp_source(ctrl: u32, l: usize) -> Option<usize> {
    let row = l & !15;
    let r = l & 15;
    match ctrl {
        0x000..=0x0ff => Some((l & !3) | ((ctrl as usize >> (2 * (l & 3))) & 3)),
        0x101..=0x10f => {
            let n = (ctrl & 15) as usize;
            (r + n < 16).then_some(l + n)
        }
        0x111..=0x11f => {
            let n = (ctrl & 15) as usize;
            (r >= n).then(|| l - n)
        }
        0x121..=0x12f => {
            let n = (ctrl & 15) as usize;
            Some(row + ((r + 16 - n) & 15))
        }
        0x130 => (l < LANES - 1).then_some(l + 1),
        0x134 => Some((l + 1) % LANES),
        0x138 => (l > 0).then(|| l - 1),
        0x13c => Some((l + LANES - 1) % LANES),
        0x140 => Some(row + 15 - r),
        0x141 => Some((l & !7) + 7 - (l & 7)),
        0x142 => (row > 0).then(|| row - 1),
        0x143 => (row >= 32).then_some(31),
        // gfx90a row_newbcast / GFX10+ row_share: lane n of the row to the whole row.
        0x150..=0x15f => Some(row + (ctrl & 15) as usize),
        // GFX10+ row_xmask: lane (r ^ n) of the row.
        0x160..=0x16f => Some(row + (r ^ (ctrl & 15) as usize)),
        _ => None,
    }
}

/// Applies DPP to source 0 (`vals` = the source VGPR row) and returns the lanes allowed to
/// write (row/bank masks, and out-of-range sources without bound_ctrl). An inactive source
/// lane counts as out of range unless fetch-inactive (GFX10+ `fi`, bit 18; reserved and 0
/// on GFX9) is set: LLVM AMDGPUModifierSyntax, `fi` for dpp16.
pub(crate) fn dpp_src(w: &Wave, vals: &mut [u32; LANES], i: &Inst) -> u64 {
    let ctrl = (i.w1 >> 8) & 0x1ff;
    let bound_ctrl = i.w1 & (1 << 19) != 0;
    let bank_mask = (i.w1 >> 24) & 15;
    let row_mask = (i.w1 >> 28) & 15;
    let exec = if i.w1 & (1 << 18) != 0 {
        u64::MAX
    } else {
        w.exec()
    };
    let src = *vals;
    let mut enabled = 0u64;
    for (l, v) in vals.iter_mut().enumerate() {
        if row_mask >> (l / 16) & 1 == 0 || bank_mask >> ((l & 15) / 4) & 1 == 0 {
            continue;
        }
        match dpp_source(ctrl, l).filter(|&s| exec >> s & 1 != 0) {
            Some(s) => {
                *v = src[s];
                enabled |= 1 << l;
            }
            None if bound_ctrl => {
                *v = 0;
                enabled |= 1 << l;
            }
            None => {}
        }
    }
    enabled
}

/// Applies DPP8 to source 0: lane `l` reads lane `(l & !7) | sel[l & 7]`, where `sel[k]` is
/// bits `[3k+10:3k+8]` of the DPP8 dword. An inactive source lane reads as 0, or as its
/// register value with fetch-inactive (LLVM AMDGPUModifierSyntax, `dpp8_sel` and `fi` for
/// dpp8). Every lane writes (DPP8 has no row/bank masks).
pub(crate) fn dpp8_src(w: &Wave, vals: &mut [u32; LANES], i: &Inst) {
    let exec = if i.sub == Sub::Dpp8Fi {
        u64::MAX
    } else {
        w.exec()
    };
    let src = *vals;
    for (l, v) in vals.iter_mut().enumerate() {
        let s = (l & !7) | ((i.w1 >> (8 + 3 * (l & 7))) & 7) as usize;
        *v = if exec >> s & 1 != 0 { src[s] } else { 0 };
    }
}

/// Mask of lanes below `lane` (for v_mbcnt).
#[inline(always)]
pub(crate) fn below(lane: usize) -> u64 {
    (1u64 << lane) - 1
}
