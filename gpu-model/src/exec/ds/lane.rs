//! The cross-lane DS instructions, which read and write VGPRs only (no LDS memory):
//! `ds_swizzle_b32`, `ds_permute_b32`, `ds_bpermute_b32` and GFX12 `ds_bpermute_fi_b32`.
//! Only active lanes are written.

use super::{lanes, row, write_exec};
use crate::exec::inst::Inst;
use crate::exec::wave::{Wave, LANES};
use crate::isa::Op;

/// Executes a cross-lane DS instruction.
pub(super) fn exec(w: &mut Wave, i: &Inst) {
    let exec = w.exec();
    let offset = i.mem.offset as u32 & 0xffff;
    let mut out = [0u32; LANES];
    match i.op {
        Op::DsSwizzleB32 => {
            // The swizzled data is the ADDR operand (`ds_swizzle_b32 vdst, vaddr`).
            let src = &w.v[row(i.mem.vaddr as usize)];
            for (l, o) in out.iter_mut().enumerate() {
                let s = swizzle_source(offset, l);
                *o = if exec >> s & 1 != 0 { src[s] } else { 0 };
            }
        }
        Op::DsPermuteB32 => {
            // Forward: each active lane sends DATA0 to lane `(ADDR + offset) / 4 mod
            // wave size`; lanes nobody sends to get 0; the highest sender wins.
            let (src, addr) = (
                &w.v[row(i.mem.data as usize)],
                &w.v[row(i.mem.vaddr as usize)],
            );
            for l in lanes(exec) {
                out[lane_of(addr[l], offset, w.wave_size)] = src[l];
            }
        }
        _ => {
            // Backward: each lane reads DATA0 of lane `(ADDR + offset) / 4 mod wave size`,
            // 0 from an inactive lane (`ds_bpermute_fi_b32`: "Source VGPR is read even if
            // src_lane is invalid in EXEC mask").
            let fetch_inactive = i.op == Op::DsBpermuteFiB32;
            let (src, addr) = (
                &w.v[row(i.mem.data as usize)],
                &w.v[row(i.mem.vaddr as usize)],
            );
            for (l, o) in out.iter_mut().enumerate() {
                let s = lane_of(addr[l], offset, w.wave_size);
                *o = if fetch_inactive || exec >> s & 1 != 0 {
                    src[s]
                } else {
                    0
                };
            }
        }
    }
    write_exec(w, i.dst as usize, &out, exec);
}

/// The lane a permute address names: `(ADDR + offset) / 4 % wave size` ("High-order bits
/// are ignored"; CDNA3/CDNA4 `/ 4U % 64U`, RDNA4 `/ 4 % num_lanes`).
#[inline(always)]
fn lane_of(addr: u32, offset: u32, wave_size: u32) -> usize {
    (addr.wrapping_add(offset) / 4 % wave_size.max(1)) as usize
}

/// The lane whose ADDR value lane `l` receives under swizzle pattern `offset` (the
/// `offset1:offset0` field). Pseudocode of DS_SWIZZLE_B32 in the CDNA4 and RDNA4 guides;
/// LLVM 22 assembles every mode (`swizzle(FFT, ..)`, `swizzle(ROTATE, ..)`, ...) for all
/// five targets:
/// - `offset >= 0xe000`, FFT: `j = reverse_bits(i & 0x1f) >> count_ones(mask) | (i &
///   mask)`, `mask = offset[4:0]`;
/// - `offset >= 0xc000`, rotate: `j = (i & mask) | ((i + rotate) & ~mask)`, `rotate =
///   offset[9:5]`, negated when `offset[10]` (rotate right), `mask = offset[4:0]`; the
///   rotation stays within the group of 32 (the guide's examples: lane 31 rotated left by
///   one reads lane 0), so `~mask` is taken over five bits;
/// - `offset[15]`: lane `4k + n` reads lane `4k + offset[2n+1:2n]`;
/// - otherwise: `j = ((i & and_mask) | or_mask) ^ xor_mask` with the masks at
///   `offset[4:0]`, `[9:5]`, `[14:10]`.
///
/// Every mode keeps bit 5 of the lane (`j |= i & 0x20`: each half of a wave64 on its own).
#[inline(always)]
fn swizzle_source(offset: u32, l: usize) -> usize {
    let i = l as u32;
    let low = i & 0x1f;
    let mask = offset & 0x1f;
    let j = if offset >= 0xe000 {
        let rev = low.reverse_bits() >> 27;
        (rev >> mask.count_ones()) | (i & mask)
    } else if offset >= 0xc000 {
        let mut rot = (offset >> 5) & 0x1f;
        if offset & 0x400 != 0 {
            rot = rot.wrapping_neg();
        }
        (low & mask) | (low.wrapping_add(rot) & !mask & 0x1f)
    } else if offset & 0x8000 != 0 {
        (i & !3) | ((offset >> (2 * (i & 3))) & 3)
    } else {
        let (and, or, xor) = (mask, (offset >> 5) & 0x1f, (offset >> 10) & 0x1f);
        ((low & and) | or) ^ xor
    };
    ((j & 0x1f) | (i & 0x20)) as usize
}
