//! Lane-level modifiers of vector instructions: SDWA sub-dword selects, DPP lane
//! permutations (GFX9 DPP, GFX12 DPP16 and DPP8), plus helpers shared by cross-lane
//! instructions.

use super::inst::{Inst, Sub};
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
        ((i.ctl >> 16) & 7, i.ctl & (1 << 19) != 0)
    } else if n == 1 {
        ((i.ctl >> 24) & 7, i.ctl & (1 << 27) != 0)
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
    let ctrl = (i.ctl >> 8) & 0x1ff;
    let bound_ctrl = i.ctl & (1 << 19) != 0;
    let bank_mask = (i.ctl >> 24) & 15;
    let row_mask = (i.ctl >> 28) & 15;
    let exec = if i.ctl & (1 << 18) != 0 {
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
        let s = (l & !7) | ((i.ctl >> (8 + 3 * (l & 7))) & 7) as usize;
        *v = if exec >> s & 1 != 0 { src[s] } else { 0 };
    }
}

/// Mask of lanes below `lane` (for v_mbcnt).
#[inline(always)]
pub(crate) fn below(lane: usize) -> u64 {
    (1u64 << lane) - 1
}

/// Reads lane `s` of `src` for lane `l` under the DPP-style controls that the permlane
/// instructions carry (LLVM prints them as `op_sel:[fi,bound_ctrl]` on GFX12 and as
/// `fi:1 bound_ctrl:1` on gfx950): an inactive source lane is read anyway with
/// fetch-inactive, reads as 0 with bound_ctrl, and otherwise leaves the destination lane
/// unwritten (`None`).
#[inline(always)]
fn permlane_read(src: &[u32; LANES], s: usize, exec: u64, fi: bool, bound: bool) -> Option<u32> {
    if fi || exec >> s & 1 != 0 {
        Some(src[s])
    } else if bound {
        Some(0)
    } else {
        None
    }
}

/// `v_permlane16_b32`, `v_permlanex16_b32` and their GFX12 `_var` forms (RDNA3/RDNA4 ISA
/// guides, V_PERMLANE16_B32 / V_PERMLANEX16_B32 / V_PERMLANE16_VAR_B32 /
/// V_PERMLANEX16_VAR_B32): every active lane `l` of row `r = l / 16` reads lane `sel` of
/// row `r` (or of the other row of its 32-lane half, `r ^ 1`, for the `x` forms) of src0.
/// `sel` is nibble `l % 16` of the 64-bit value `{src2, src1}` (two scalars), or bits 3:0
/// of lane `l` of the src1 VGPR for `_var`. OP_SEL[0] is FI and OP_SEL[1] BOUND_CTRL.
#[inline(never)]
pub(crate) fn permlane16(w: &mut Wave, i: &Inst, cross: bool, var: bool) {
    let src = if i.src[0] >= 256 {
        w.v[(i.src[0] - 256) as usize]
    } else {
        [w.sread(i.src[0], i.lit); LANES]
    };
    let exec = w.exec();
    let (fi, bound) = (i.op_sel & 1 != 0, i.op_sel & 2 != 0);
    let sel64 = w.sread(i.src[1], i.lit) as u64 | (w.sread(i.src[2], i.lit) as u64) << 32;
    let vsel = if var && i.src[1] >= 256 {
        w.v[(i.src[1] - 256) as usize]
    } else {
        [w.sread(i.src[1], i.lit); LANES]
    };
    let d = i.dst as usize;
    for (l, &vs) in vsel.iter().enumerate() {
        if exec >> l & 1 == 0 {
            continue;
        }
        let sel = if var {
            (vs & 15) as usize
        } else {
            (sel64 >> (4 * (l & 15)) & 15) as usize
        };
        let row = if cross { (l >> 4) ^ 1 } else { l >> 4 };
        if let Some(v) = permlane_read(&src, row * 16 + sel, exec, fi, bound) {
            w.v[d][l] = v;
        }
    }
}

/// gfx950 `v_permlane16_swap_b32` (`half` = 16) and `v_permlane32_swap_b32` (`half` =
/// 32), from the CDNA4 ISA guide and LLVM's `llvm.amdgcn.permlane{16,32}.swap`: the odd
/// 16-lane rows of vdst are exchanged with the even rows of src0 (16), or the upper 32
/// lanes of vdst with the lower 32 lanes of src0 (32). Both registers are written. Each
/// written lane follows the DPP rules of [`permlane_read`] for its source lane (VOP3
/// OP_SEL[0] = FI, OP_SEL[1] = BOUND_CTRL; the VOP1 form has neither).
#[inline(never)]
pub(crate) fn permlane_swap(w: &mut Wave, i: &Inst, half: usize) {
    let (d, s) = (
        i.dst as usize,
        (i.src[0] as usize).wrapping_sub(256) % w.v.len(),
    );
    let (old_d, old_s) = (w.v[d], w.v[s]);
    let exec = w.exec();
    let (fi, bound) = (i.op_sel & 1 != 0, i.op_sel & 2 != 0);
    for base in (0..LANES).step_by(2 * half) {
        for k in 0..half {
            // vdst lane `hi` pairs with src0 lane `lo`.
            let (lo, hi) = (base + k, base + half + k);
            if exec >> hi & 1 != 0 {
                if let Some(v) = permlane_read(&old_s, lo, exec, fi, bound) {
                    w.v[d][hi] = v;
                }
            }
            if exec >> lo & 1 != 0 {
                if let Some(v) = permlane_read(&old_d, hi, exec, fi, bound) {
                    w.v[s][lo] = v;
                }
            }
        }
    }
}
