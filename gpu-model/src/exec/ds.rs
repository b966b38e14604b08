//! LDS instructions (DS): loads and stores (plain, two-address, sub-dword, d16 and the
//! lane-indexed `addtid` forms) here; atomics in [`atomic`]; the cross-lane
//! ds_swizzle / ds_permute / ds_bpermute in [`lane`]; gfx950's transposing reads in
//! [`transpose`].
//!
//! Sources: the "LDS instructions" chapters of AMD's Vega, CDNA3, CDNA4 and RDNA4 ISA
//! reference guides (their pseudocode is quoted next to each rule that is not a plain load,
//! store or read-modify-write), and LLVM's AMDGPU backend where a guide is silent (cited
//! where used).
//!
//! Addresses: a lane's byte address is `ADDR + offset` (`offset1:offset0` as one 16-bit
//! offset); the two-address forms use `ADDR + offsetN * size` (`* 64` for the `st64` /
//! `stride64` forms). The sum is not wrapped to 32 bits. It addresses the workgroup's LDS
//! allocation (the dispatch's group segment). An access with any byte outside it does not
//! fault on the hardware (Vega / CDNA3 / CDNA4 guides, "Out-of-Range behavior": out-of-range
//! LDS writes are discarded, reads return zero). The executor does the same for every DS
//! instruction, atomics included (an out-of-range atomic returns 0 and writes nothing).
//! The GFX9 guides also clamp by M0 (`MIN(lds_size, M0)`), a GFX8 rule the executor does
//! not apply: LLVM initialises M0 for LDS only before GFX9 (`ldsRequiresM0Init`) and uses
//! M0 for other things around DS instructions (LDS DMA base, `ds_append`). Addresses are
//! not forced to alignment: the accessed bytes are the ones named.
//!
//! Atomics of a wave run lane by lane in lane order (the guides leave the order of lanes
//! that hit one location unspecified; each lane's read-modify-write is whole).
//!
//! GDS is not modelled. None of the five targets has a global data share for DS
//! instructions (LLVM 22 rejects the `gds` modifier on every one of them; the CDNA4 guide's
//! chapter is "LDS Instructions" and RDNA4's "VDS Instructions", without the GDS field of
//! the Vega guide), so a decoded form with the GDS bit set is refused by the lowering with
//! the typed reason "global data share (gds)" ([`super::lower`]). The GFX9 global-wave-sync
//! instructions (`ds_gws_*`, which LLVM accepts only with `gds`) are not in the targets'
//! ISA tables. GFX12's `ds_bvh_stack_*` (ray-tracing BVH traversal stacks, whose address
//! encoding the RDNA4 guide leaves undefined: `DECODE_ADDR`, `ENCODE_ADDR`,
//! `INVALID_NODE`) lower to [`super::Unit::Graphics`] and fault as graphics-pipeline work.

mod atomic;
mod lane;
mod transpose;

use super::inst::Inst;
use super::wave::{Wave, LANES, VGPR_ROWS};
use super::FaultReason;
use crate::isa::Op;

/// SGPR code of M0 (GFX9 numbering, which the lowering uses on both families).
const M0: usize = 124;

/// `n` (<= 8) bytes of LDS at byte `a`, little-endian; 0 when any byte is out of range.
#[inline(always)]
fn rd(lds: &[u8], a: u64, n: usize) -> u64 {
    let Ok(a) = usize::try_from(a) else {
        return 0;
    };
    match a.checked_add(n).and_then(|e| lds.get(a..e)) {
        Some(b) => {
            let mut x = [0u8; 8];
            x[..n].copy_from_slice(b);
            u64::from_le_bytes(x)
        }
        None => 0,
    }
}

/// Writes the low `n` (<= 8) bytes of `v` at byte `a`; dropped when any byte is out of
/// range.
#[inline(always)]
fn wr(lds: &mut [u8], a: u64, n: usize, v: u64) {
    let Ok(a) = usize::try_from(a) else {
        return;
    };
    if let Some(b) = a.checked_add(n).and_then(|e| lds.get_mut(a..e)) {
        b.copy_from_slice(&v.to_le_bytes()[..n]);
    }
}

/// A dword of LDS at byte `a` (0 when any byte is out of range); the common case of [`rd`].
#[inline(always)]
fn rd32(lds: &[u8], a: u64) -> u32 {
    let Ok(a) = usize::try_from(a) else {
        return 0;
    };
    match a.checked_add(4).and_then(|e| lds.get(a..e)) {
        Some(&[b0, b1, b2, b3]) => u32::from_le_bytes([b0, b1, b2, b3]),
        _ => 0,
    }
}

/// Writes a dword of LDS at byte `a` (dropped when any byte is out of range).
#[inline(always)]
fn wr32(lds: &mut [u8], a: u64, v: u32) {
    let Ok(a) = usize::try_from(a) else {
        return;
    };
    if let Some(b) = a.checked_add(4).and_then(|e| lds.get_mut(a..e)) {
        b.copy_from_slice(&v.to_le_bytes());
    }
}

/// The lanes set in `exec`, lowest first.
#[inline(always)]
fn lanes(exec: u64) -> impl Iterator<Item = usize> {
    let mut m = exec;
    std::iter::from_fn(move || {
        let l = m.trailing_zeros() as usize;
        m &= m.wrapping_sub(1);
        (l < LANES).then_some(l)
    })
}

/// The register row of operand row `r` (wrapped into the register file like
/// [`Wave::vgpr`] does; lowered rows are below 512, so it never wraps in practice).
#[inline(always)]
fn row(r: usize) -> usize {
    r % VGPR_ROWS
}

/// Row indices of the `N` registers of a tuple starting at row `r`, computed once rather
/// than per lane.
#[inline(always)]
fn tuple<const N: usize>(r: usize) -> [usize; N] {
    std::array::from_fn(|k| row(r + k))
}

/// Writes `out[l]` to register row `vd` of every lane in `exec`.
fn write_exec(w: &mut Wave, vd: usize, out: &[u32; LANES], exec: u64) {
    let d = &mut w.v[row(vd)];
    for l in lanes(exec) {
        d[l] = out[l];
    }
}

/// Executes a DS instruction.
pub(crate) fn exec(
    w: &mut Wave,
    ctx: &mut super::ExecCtx<'_>,
    i: &Inst,
) -> Result<(), FaultReason> {
    use Op::*;
    let lds = &mut *ctx.lds;
    w.counters.lgkm += 1;
    match i.op {
        DsNop => Ok(()),
        DsWriteB8 | DsWriteB16 | DsWriteB32 | DsWriteB64 | DsWriteB96 | DsWriteB128
        | DsWriteB8D16Hi | DsWriteB16D16Hi | DsStoreB8D16Hi | DsStoreB16D16Hi => {
            store(w, lds, i);
            Ok(())
        }
        DsWrite2B32 | DsWrite2st64B32 | DsWrite2B64 | DsWrite2st64B64 => {
            store2(w, lds, i);
            Ok(())
        }
        DsReadI8 | DsReadU8 | DsReadI16 | DsReadU16 | DsReadB32 | DsReadB64 | DsReadB96
        | DsReadB128 => {
            load(w, lds, i);
            Ok(())
        }
        DsReadU8D16 | DsReadU8D16Hi | DsReadI8D16 | DsReadI8D16Hi | DsReadU16D16
        | DsReadU16D16Hi | DsLoadU8D16 | DsLoadU8D16Hi | DsLoadI8D16 | DsLoadI8D16Hi
        | DsLoadU16D16 | DsLoadU16D16Hi => {
            load_d16(w, lds, i);
            Ok(())
        }
        DsRead2B32 | DsRead2st64B32 | DsRead2B64 | DsRead2st64B64 => {
            load2(w, lds, i);
            Ok(())
        }
        DsWriteAddtidB32 | DsStoreAddtidB32 | DsReadAddtidB32 | DsLoadAddtidB32 => {
            addtid(w, lds, i);
            Ok(())
        }
        DsSwizzleB32 | DsPermuteB32 | DsBpermuteB32 | DsBpermuteFiB32 => {
            lane::exec(w, i);
            Ok(())
        }
        DsReadB64TrB4 | DsReadB64TrB8 | DsReadB64TrB16 | DsReadB96TrB6 => {
            transpose::exec(w, lds, i);
            Ok(())
        }
        _ => atomic::exec(w, lds, i),
    }
}

/// `ds_write_b8/b16/b32/b64/b96/b128` and the `_d16_hi` stores (`MEM[ADDR].b8 =
/// DATA[23:16]`, `MEM[ADDR].b16 = DATA[31:16]`).
fn store(w: &Wave, lds: &mut [u8], i: &Inst) {
    use Op::*;
    let (n, shift) = match i.op {
        DsWriteB8 => (1, 0),
        DsWriteB16 => (2, 0),
        DsWriteB8D16Hi | DsStoreB8D16Hi => (1, 16),
        DsWriteB16D16Hi | DsStoreB16D16Hi => (2, 16),
        DsWriteB32 => (4, 0),
        DsWriteB64 => (8, 0),
        DsWriteB96 => (12, 0),
        _ => (16, 0),
    };
    let offset = i.mem.offset as u64 & 0xffff;
    let (ar, data) = (row(i.mem.vaddr as usize), tuple::<4>(i.mem.data as usize));
    for l in lanes(w.exec()) {
        let a = w.v[ar][l] as u64 + offset;
        if n < 4 {
            wr(lds, a, n, u64::from(w.v[data[0]][l] >> shift));
        } else {
            for (k, &r) in data.iter().enumerate().take(n / 4) {
                wr32(lds, a + 4 * k as u64, w.v[r][l]);
            }
        }
    }
}

/// The two offsets of a two-address form in bytes, for elements of `size` bytes
/// (`stride64`: times 64).
fn offsets2(i: &Inst, size: u64, stride64: bool) -> [u64; 2] {
    let o = i.mem.offset as u64;
    let scale = if stride64 { 64 * size } else { size };
    [(o & 0xff) * scale, ((o >> 8) & 0xff) * scale]
}

/// `ds_write2_b32/b64` and the `st64` forms: DATA at `ADDR + offset0 * size`, DATA2 at
/// `ADDR + offset1 * size`, in that order.
fn store2(w: &Wave, lds: &mut [u8], i: &Inst) {
    use Op::*;
    let wide = matches!(i.op, DsWrite2B64 | DsWrite2st64B64);
    let offs = offsets2(
        i,
        if wide { 8 } else { 4 },
        matches!(i.op, DsWrite2st64B32 | DsWrite2st64B64),
    );
    let ar = row(i.mem.vaddr as usize);
    let (x, y) = (
        tuple::<2>(i.mem.data as usize),
        tuple::<2>(i.mem.data1 as usize),
    );
    for l in lanes(w.exec()) {
        let a = w.v[ar][l] as u64;
        for (o, d) in [(offs[0], x), (offs[1], y)] {
            wr32(lds, a + o, w.v[d[0]][l]);
            if wide {
                wr32(lds, a + o + 4, w.v[d[1]][l]);
            }
        }
    }
}

/// `ds_read_i8/u8/i16/u16/b32/b64/b96/b128`.
fn load(w: &mut Wave, lds: &[u8], i: &Inst) {
    use Op::*;
    let n = match i.op {
        DsReadI8 | DsReadU8 => 1,
        DsReadI16 | DsReadU16 => 2,
        DsReadB32 => 4,
        DsReadB64 => 8,
        DsReadB96 => 12,
        _ => 16,
    };
    let offset = i.mem.offset as u64 & 0xffff;
    let exec = w.exec();
    let (addrs, dst) = (w.v[row(i.mem.vaddr as usize)], tuple::<4>(i.dst as usize));
    if n < 4 {
        let d = &mut w.v[dst[0]];
        for l in lanes(exec) {
            let v = rd(lds, addrs[l] as u64 + offset, n);
            d[l] = match i.op {
                DsReadI8 => v as u8 as i8 as i32 as u32,
                DsReadI16 => v as u16 as i16 as i32 as u32,
                _ => v as u32,
            };
        }
    } else {
        // Register by register (the addresses were read first: the address register may
        // be a destination).
        for (k, &r) in dst.iter().enumerate().take(n / 4) {
            let d = &mut w.v[r];
            for l in lanes(exec) {
                d[l] = rd32(lds, addrs[l] as u64 + offset + 4 * k as u64);
            }
        }
    }
}

/// The d16 loads: a byte (zero- or sign-extended to 16 bits) or a half into the low
/// (`_d16`) or high (`_d16_hi`) half of the destination; the other half is preserved
/// (`RETURN_DATA[31:16] is preserved`, both families).
fn load_d16(w: &mut Wave, lds: &[u8], i: &Inst) {
    use Op::*;
    let (n, signed, hi) = match i.op {
        DsReadU8D16 | DsLoadU8D16 => (1, false, false),
        DsReadU8D16Hi | DsLoadU8D16Hi => (1, false, true),
        DsReadI8D16 | DsLoadI8D16 => (1, true, false),
        DsReadI8D16Hi | DsLoadI8D16Hi => (1, true, true),
        DsReadU16D16 | DsLoadU16D16 => (2, false, false),
        _ => (2, false, true),
    };
    let offset = i.mem.offset as u64 & 0xffff;
    let exec = w.exec();
    let addrs = w.v[row(i.mem.vaddr as usize)];
    let d = &mut w.v[row(i.dst as usize)];
    for l in lanes(exec) {
        let v = rd(lds, addrs[l] as u64 + offset, n) as u32;
        let h = if signed {
            v as u8 as i8 as u16 as u32
        } else {
            v
        };
        d[l] = if hi {
            (d[l] & 0xffff) | h << 16
        } else {
            (d[l] & 0xffff_0000) | h
        };
    }
}

/// `ds_read2_b32/b64` and the `st64` forms: destination `k * per + j` is dword `j` at
/// `ADDR + offset_k * size`.
fn load2(w: &mut Wave, lds: &[u8], i: &Inst) {
    use Op::*;
    let wide = matches!(i.op, DsRead2B64 | DsRead2st64B64);
    let offs = offsets2(
        i,
        if wide { 8 } else { 4 },
        matches!(i.op, DsRead2st64B32 | DsRead2st64B64),
    );
    let per = if wide { 2 } else { 1 };
    let exec = w.exec();
    let (addrs, dst) = (w.v[row(i.mem.vaddr as usize)], tuple::<4>(i.dst as usize));
    for (k, o) in offs.into_iter().enumerate() {
        for j in 0..per {
            let d = &mut w.v[dst[k * per + j]];
            for l in lanes(exec) {
                d[l] = rd32(lds, addrs[l] as u64 + o + 4 * j as u64);
            }
        }
    }
}

/// `ds_write_addtid_b32` / `ds_read_addtid_b32` (GFX12 `ds_store/load_addtid_b32`): the
/// address is `offset + M0[15:0] + laneID * 4`, no address VGPR (CDNA3/CDNA4/RDNA4:
/// `MEM[32'I({OFFSET1, OFFSET0} + M0[15:0]) + laneID.i32 * 4]`).
fn addtid(w: &mut Wave, lds: &mut [u8], i: &Inst) {
    let base = (i.mem.offset as u64 & 0xffff) + u64::from(w.sgpr(M0) & 0xffff);
    let exec = w.exec();
    if matches!(i.op, Op::DsWriteAddtidB32 | Op::DsStoreAddtidB32) {
        let data = &w.v[row(i.mem.data as usize)];
        for l in lanes(exec) {
            wr32(lds, base + 4 * l as u64, data[l]);
        }
    } else {
        let d = &mut w.v[row(i.dst as usize)];
        for l in lanes(exec) {
            d[l] = rd32(lds, base + 4 * l as u64);
        }
    }
}
