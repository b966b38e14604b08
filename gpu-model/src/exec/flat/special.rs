//! GFX12 GLOBAL/SCRATCH operations that are not one access per lane and register tuple:
//! the lane-addressed `global_load_addtid_b32`/`global_store_addtid_b32`, the
//! M0-masked 32-register block moves (`global_load_block`, `scratch_store_block`, ...) and
//! the transposing matrix loads (`global_load_tr_b64`, `global_load_tr_b128`).

use super::{load, store, Place};
use crate::exec::inst::{Inst, Mem};
use crate::exec::wave::{Wave, LANES};
use crate::exec::{AccessKind, ExecCtx, FaultReason, MemRecord};
use crate::isa::Op;

/// `p` advanced by `d` bytes.
#[inline]
fn at(p: Place, d: u64) -> Place {
    match p {
        Place::Global(a) => Place::Global(a.wrapping_add(d)),
        Place::Lds(o) => Place::Lds(o.wrapping_add(d)),
        Place::Private(o) => Place::Private(o.wrapping_add(d) & 0xffff_ffff),
    }
}

/// The address a cache observer sees for `p`.
#[inline]
fn seen(p: Place) -> u64 {
    match p {
        Place::Global(a) => a,
        Place::Lds(o) | Place::Private(o) => o,
    }
}

fn observe(ctx: &mut ExecCtx<'_>, i: &Inst, kind: AccessKind, bytes: u32, exec: u64, a: &[u64]) {
    if let Some(obs) = ctx.observer.as_deref_mut() {
        let addrs: [u64; LANES] = std::array::from_fn(|l| a[l]);
        obs.access(&MemRecord {
            kind,
            bytes,
            policy: i.mem.policy,
            exec,
            addrs: &addrs,
        });
    }
}

/// Executes `i` if it is one of this module's operations (`places`: each active lane's
/// address as the FLAT unit computed it from the VGPR address, `saddr` and the offset).
pub(super) fn exec(
    w: &mut Wave,
    ctx: &mut ExecCtx<'_>,
    i: &Inst,
    places: &[Place; LANES],
) -> Option<Result<(), FaultReason>> {
    use Op::*;
    Some(match i.op {
        GlobalLoadAddtidB32 | GlobalStoreAddtidB32 => addtid(w, ctx, i),
        GlobalLoadBlock | ScratchLoadBlock => block(w, ctx, i, places, false),
        GlobalStoreBlock | ScratchStoreBlock => block(w, ctx, i, places, true),
        GlobalLoadTrB64 => transpose(w, ctx, i, places, 1),
        GlobalLoadTrB128 => transpose(w, ctx, i, places, 2),
        _ => return None,
    })
}

/// `global_load_addtid_b32` / `global_store_addtid_b32` (RDNA4 pseudocode):
/// `MEM[SGPR_ADDR[63:0] + INST_OFFSET[11:0].b64 + 64'B(laneID.i32 * 4)].u32`: no VGPR
/// address; the scalar base is 0 when `saddr` is `off`. Only the low 12 bits of the
/// instruction offset take part, zero-extended, as the pseudocode says.
#[inline(never)]
fn addtid(w: &mut Wave, ctx: &mut ExecCtx<'_>, i: &Inst) -> Result<(), FaultReason> {
    let m = &i.mem;
    let base = if m.sbase == Mem::NO_SGPR {
        0
    } else {
        w.sgpr64(m.sbase as usize)
    };
    let base = base.wrapping_add((m.offset as u32 & 0xfff) as u64);
    let exec = w.exec();
    let is_store = i.op == Op::GlobalStoreAddtidB32;
    let addrs: [u64; LANES] = std::array::from_fn(|l| base.wrapping_add(4 * l as u64));
    observe(
        ctx,
        i,
        if is_store {
            AccessKind::Store
        } else {
            AccessKind::Load
        },
        4,
        exec,
        &addrs,
    );
    w.counters.vm += 1;
    for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
        let p = Place::Global(addrs[l]);
        if is_store {
            let v = w.vgpr(m.data as usize, l);
            store(w, ctx, l, p, &[v], 4)?;
        } else {
            let mut v = [0u32; 1];
            load(w, ctx, l, p, &mut v, 4)?;
            w.set_vgpr(i.dst as usize, l, v[0]);
        }
    }
    Ok(())
}

/// `global_load_block` / `global_store_block` / `scratch_*_block` (RDNA4 pseudocode):
/// `for i in 0 : 31 do if M0[i].u1 then VGPR[laneId][VDST.u32 + i.u32] =
/// MEM[addr + i * 4].b32` ("can skip over holes both in the memory block and VGPR
/// block"); the stores move `VDATA + i` the other way. The address is the lane's
/// GLOBAL/SCRATCH address (VGPR, `saddr` and offset, as every GLOBAL/SCRATCH access).
#[inline(never)]
fn block(
    w: &mut Wave,
    ctx: &mut ExecCtx<'_>,
    i: &Inst,
    places: &[Place; LANES],
    is_store: bool,
) -> Result<(), FaultReason> {
    let mask = w.sgpr(124);
    let exec = w.exec();
    let addrs: [u64; LANES] = std::array::from_fn(|l| seen(places[l]));
    let kind = if is_store {
        AccessKind::Store
    } else {
        AccessKind::Load
    };
    observe(ctx, i, kind, 4 * mask.count_ones(), exec, &addrs);
    w.counters.vm += 1;
    for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
        for k in (0..32).filter(|k| mask >> k & 1 != 0) {
            let p = at(places[l], 4 * k as u64);
            if is_store {
                let v = w.vgpr(i.mem.data as usize + k, l);
                store(w, ctx, l, p, &[v], 4)?;
            } else {
                let mut v = [0u32; 1];
                load(w, ctx, l, p, &mut v, 4)?;
                w.set_vgpr(i.dst as usize + k, l, v[0]);
            }
        }
    }
    Ok(())
}

/// `global_load_tr_b64` (8-bit elements) and `global_load_tr_b128` (16-bit elements).
///
/// Wave32: every lane reads 8 elements at its address (a row of 8 or 16 bytes); within
/// each group of 8 lanes the 8x8 element matrix is transposed, so element `e` of lane `l`
/// is element `l % 8` of the row lane `8 * (l / 8) + e` read (element `e` in bits
/// `ebits * e` upward of the destination tuple).
///
/// Source: AMD's ISA guide for the family that shares these encodings (CDNA5 §10.9 "WMMA
/// Matrix Load Ops with Transpose": GLOBAL_LOAD_TR16_B128 "Load a 16x16 matrix of 16-bit
/// data into VGPRs and transpose between row-major and column-major order"; gfx12's
/// `global_load_tr_b128` is opcode 0x57 = gfx1250's `global_load_tr16_b128`, and
/// `global_load_tr_b64` 0x58 = `global_load_tr8_b64`, LLVM 22) and a public hardware
/// measurement of that instruction on gfx1250 (lane `l` receives element `l % 8` of the
/// rows of lanes `8 * (l / 8) .. + 8`). The 8-bit form is taken to be the same transpose of
/// 8-bit elements (its name's element size; not measured). A row whose lane is inactive
/// contributes zeros.
///
/// Wave64 (decided, no document gives it): LLVM 22 gives the wave64 forms half the
/// destination (`GLOBAL_LOAD_TR_B64_w64`: one VGPR, `_B128_w64`: two; the intrinsics return
/// `i32` / `v4i16`), so a lane reads and receives 4 elements, and the 16x16 tile is spread
/// over 64 lanes. The GFX12 wave64 WMMA operand layout (AMD's matrix instruction
/// calculator, `matrix::layout::gfx12`) puts 4 consecutive k in each lane for both 8- and
/// 16-bit inputs, the wave32 layout 8 (in two runs of 4 for 16-bit), so the wave64 load is
/// the same transpose on 4x4 blocks: element `e` of lane `l` is element `l % 4` of the row
/// lane `4 * (l / 4) + e` read. This is the only reading under which the load fills a
/// wave64 WMMA operand from a k-major tile without a shuffle, which is what the instruction
/// exists for.
#[inline(never)]
fn transpose(
    w: &mut Wave,
    ctx: &mut ExecCtx<'_>,
    i: &Inst,
    places: &[Place; LANES],
    ebytes: usize,
) -> Result<(), FaultReason> {
    let lanes = w.wave_size as usize;
    // Elements per lane and lanes per transposed block.
    let g = if lanes == 64 { 4 } else { 8 };
    let exec = w.exec();
    let addrs: [u64; LANES] = std::array::from_fn(|l| seen(places[l]));
    observe(ctx, i, AccessKind::Load, (g * ebytes) as u32, exec, &addrs);
    w.counters.vm += 1;
    let regs = g * ebytes / 4;
    // Each active lane's row: `g` elements of `ebytes` bytes.
    let mut rows = [[0u32; 4]; LANES];
    for l in (0..lanes).filter(|l| exec >> l & 1 != 0) {
        load(w, ctx, l, places[l], &mut rows[l][..regs], 4)?;
    }
    let ebits = 8 * ebytes;
    let elem = |row: &[u32; 4], e: usize| -> u32 {
        let bit = ebits * e;
        (row[bit / 32] >> (bit % 32)) & ((1u32 << ebits) - 1)
    };
    for l in (0..lanes).filter(|l| exec >> l & 1 != 0) {
        let base = l / g * g;
        let mut out = [0u32; 4];
        for e in 0..g {
            let v = elem(&rows[base + e], l % g);
            let bit = ebits * e;
            out[bit / 32] |= v << (bit % 32);
        }
        for (k, &v) in out[..regs].iter().enumerate() {
            w.set_vgpr(i.dst as usize + k, l, v);
        }
    }
    Ok(())
}
