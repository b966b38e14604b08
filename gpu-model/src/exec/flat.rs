//! FLAT, GLOBAL and SCRATCH memory instructions (GFX9 encodings).
//!
//! A FLAT address is classified per lane by its aperture: the LDS aperture maps to the
//! workgroup's LDS, the private aperture to the lane's swizzled scratch, anything else is
//! a global device address. SCRATCH addresses are per-lane private offsets.

use super::inst::{Inst, Mem, Seg};
use super::wave::{Wave, LANES};
use super::{AccessKind, ExecCtx, FaultReason, MemRecord};
use super::{PRIVATE_APERTURE_HI, SHARED_APERTURE_HI};
use crate::isa::Op;
use crate::memory::AtomicOp;

mod special;

/// Where one lane's access goes.
#[derive(Clone, Copy)]
pub(crate) enum Place {
    Global(u64),
    Lds(u64),
    Private(u64),
}

/// Resolves a generic (flat) address.
#[inline(always)]
pub(crate) fn classify(a: u64) -> Place {
    match (a >> 32) as u32 {
        SHARED_APERTURE_HI => Place::Lds(a & 0xffff_ffff),
        PRIVATE_APERTURE_HI => Place::Private(a & 0xffff_ffff),
        _ => Place::Global(a),
    }
}

/// Reads `n` bytes (1, 2, 4) or dwords from a place.
pub(crate) fn load(
    w: &Wave,
    ctx: &ExecCtx<'_>,
    lane: usize,
    p: Place,
    out: &mut [u32],
    bytes: usize,
) -> Result<(), FaultReason> {
    let memf = |fault| FaultReason::Memory {
        lane: lane as u32,
        fault,
    };
    match p {
        Place::Global(a) => {
            if bytes < 4 {
                out[0] = if bytes == 1 {
                    ctx.mem.load_u8(a).map_err(memf)? as u32
                } else {
                    ctx.mem.load_u16(a).map_err(memf)? as u32
                };
                Ok(())
            } else {
                ctx.mem.load_dwords(a, out).map_err(memf)
            }
        }
        Place::Lds(o) => {
            let mut k = 0;
            for (j, v) in out.iter_mut().enumerate() {
                let n = bytes.min(4);
                let mut b = [0u8; 4];
                let s = (o as usize).saturating_add(4 * j);
                if let Some(src) = ctx.lds.get(s..s.saturating_add(n)) {
                    if src.len() == n {
                        b[..n].copy_from_slice(src);
                    }
                }
                *v = u32::from_le_bytes(b);
                k += 1;
            }
            let _ = k;
            Ok(())
        }
        Place::Private(o) => {
            check_private(w, lane, o, bytes.max(4 * out.len()))?;
            if bytes < 4 {
                let a = w.scratch_addr(lane, o);
                out[0] = if bytes == 1 {
                    ctx.mem.load_u8(a).map_err(memf)? as u32
                } else {
                    ctx.mem.load_u16(a).map_err(memf)? as u32
                };
            } else {
                for (j, v) in out.iter_mut().enumerate() {
                    *v = ctx
                        .mem
                        .load_u32(w.scratch_addr(lane, o + 4 * j as u64))
                        .map_err(memf)?;
                }
            }
            Ok(())
        }
    }
}

/// Writes `bytes` (1, 2) or whole dwords to a place.
pub(crate) fn store(
    w: &Wave,
    ctx: &mut ExecCtx<'_>,
    lane: usize,
    p: Place,
    data: &[u32],
    bytes: usize,
) -> Result<(), FaultReason> {
    let memf = |fault| FaultReason::Memory {
        lane: lane as u32,
        fault,
    };
    match p {
        Place::Global(a) => match bytes {
            1 => ctx.mem.store_u8(a, data[0] as u8).map_err(memf),
            2 => ctx.mem.store_u16(a, data[0] as u16).map_err(memf),
            _ => ctx.mem.store_dwords(a, data).map_err(memf),
        },
        Place::Lds(o) => {
            for (j, v) in data.iter().enumerate() {
                let n = bytes.min(4);
                let s = (o as usize).saturating_add(4 * j);
                if let Some(dst) = ctx.lds.get_mut(s..s.saturating_add(n)) {
                    if dst.len() == n {
                        dst.copy_from_slice(&v.to_le_bytes()[..n]);
                    }
                }
            }
            Ok(())
        }
        Place::Private(o) => {
            check_private(w, lane, o, bytes.max(4 * data.len()))?;
            match bytes {
                1 => ctx
                    .mem
                    .store_u8(w.scratch_addr(lane, o), data[0] as u8)
                    .map_err(memf),
                2 => ctx
                    .mem
                    .store_u16(w.scratch_addr(lane, o), data[0] as u16)
                    .map_err(memf),
                _ => {
                    for (j, v) in data.iter().enumerate() {
                        let a = w.scratch_addr(lane, o + 4 * j as u64);
                        ctx.mem.store_u32(a, *v).map_err(memf)?;
                    }
                    Ok(())
                }
            }
        }
    }
}

fn check_private(w: &Wave, lane: usize, off: u64, n: usize) -> Result<(), FaultReason> {
    // Sub-dword accesses stay inside their dword, so the bound is checked per dword.
    let end = (off & !3) + (n as u64).max(4);
    if end > w.scratch_per_lane {
        return Err(FaultReason::Scratch {
            lane: lane as u32,
            offset: off,
            size: w.scratch_per_lane,
        });
    }
    Ok(())
}

/// Access shape of a load/store op: (bytes per element access, dwords, signed, d16 mode).
fn shape(op: Op) -> Option<(usize, usize, bool, u8)> {
    use Op::*;
    Some(match op {
        FlatLoadUbyte | FlatStoreByte => (1, 1, false, 0),
        FlatLoadSbyte => (1, 1, true, 0),
        FlatLoadUshort | FlatStoreShort => (2, 1, false, 0),
        FlatLoadSshort => (2, 1, true, 0),
        FlatLoadShortD16 => (2, 1, false, 1),
        // The d16 byte loads (GFX12 `*_load_d16_u8`, ...; GLOBAL/SCRATCH names listed
        // because `Op::canonical` has no FLAT alias for them): the byte zero/sign-
        // extended to 16 bits into one half, the other half kept (CDNA3/RDNA4
        // pseudocode `VDATA[15:0].i16 = 16'I(signext(MEM[addr].i8))`).
        FlatLoadUbyteD16 | GlobalLoadUbyteD16 | GlobalLoadD16U8 | ScratchLoadUbyteD16
        | ScratchLoadD16U8 => (1, 1, false, 1),
        FlatLoadUbyteD16Hi
        | GlobalLoadUbyteD16Hi
        | GlobalLoadD16HiU8
        | ScratchLoadUbyteD16Hi
        | ScratchLoadD16HiU8 => (1, 1, false, 2),
        FlatLoadSbyteD16 | GlobalLoadSbyteD16 | GlobalLoadD16I8 | ScratchLoadSbyteD16
        | ScratchLoadD16I8 => (1, 1, true, 1),
        FlatLoadSbyteD16Hi
        | GlobalLoadSbyteD16Hi
        | GlobalLoadD16HiI8
        | ScratchLoadSbyteD16Hi
        | ScratchLoadD16HiI8 => (1, 1, true, 2),
        FlatLoadShortD16Hi | FlatStoreShortD16Hi => (2, 1, false, 2),
        FlatStoreByteD16Hi => (1, 1, false, 2),
        FlatLoadDword | FlatStoreDword => (4, 1, false, 0),
        FlatLoadDwordx2 | FlatStoreDwordx2 => (4, 2, false, 0),
        FlatLoadDwordx3 | FlatStoreDwordx3 => (4, 3, false, 0),
        FlatLoadDwordx4 | FlatStoreDwordx4 => (4, 4, false, 0),
        GlobalLoadLdsUbyte => (1, 1, false, 0),
        GlobalLoadLdsSbyte => (1, 1, true, 0),
        GlobalLoadLdsUshort => (2, 1, false, 0),
        GlobalLoadLdsSshort => (2, 1, true, 0),
        GlobalLoadLdsDword => (4, 1, false, 0),
        GlobalLoadLdsDwordx3 => (4, 3, false, 0),
        GlobalLoadLdsDwordx4 => (4, 4, false, 0),
        _ => return None,
    })
}

/// Atomic op, 64-bit or not.
fn atomic_kind(op: Op) -> Option<(AtomicOp, bool)> {
    use Op::*;
    Some(match op {
        FlatAtomicSwap => (AtomicOp::Swap, false),
        FlatAtomicCmpswap => (AtomicOp::CmpSwap, false),
        FlatAtomicAdd => (AtomicOp::Add, false),
        FlatAtomicSub => (AtomicOp::Sub, false),
        FlatAtomicSmin => (AtomicOp::MinS, false),
        FlatAtomicUmin => (AtomicOp::MinU, false),
        FlatAtomicSmax => (AtomicOp::MaxS, false),
        FlatAtomicUmax => (AtomicOp::MaxU, false),
        FlatAtomicAnd => (AtomicOp::And, false),
        FlatAtomicOr => (AtomicOp::Or, false),
        FlatAtomicXor => (AtomicOp::Xor, false),
        FlatAtomicInc => (AtomicOp::IncWrap, false),
        FlatAtomicDec => (AtomicOp::DecWrap, false),
        FlatAtomicAddF32 => (AtomicOp::FAdd, false),
        FlatAtomicAddF64 => (AtomicOp::FAdd, true),
        FlatAtomicMinF64 => (AtomicOp::FMin, true),
        FlatAtomicMaxF64 => (AtomicOp::FMax, true),
        FlatAtomicSwapX2 => (AtomicOp::Swap, true),
        FlatAtomicCmpswapX2 => (AtomicOp::CmpSwap, true),
        FlatAtomicAddX2 => (AtomicOp::Add, true),
        FlatAtomicSubX2 => (AtomicOp::Sub, true),
        FlatAtomicSminX2 => (AtomicOp::MinS, true),
        FlatAtomicUminX2 => (AtomicOp::MinU, true),
        FlatAtomicSmaxX2 => (AtomicOp::MaxS, true),
        FlatAtomicUmaxX2 => (AtomicOp::MaxU, true),
        FlatAtomicAndX2 => (AtomicOp::And, true),
        FlatAtomicOrX2 => (AtomicOp::Or, true),
        FlatAtomicXorX2 => (AtomicOp::Xor, true),
        FlatAtomicIncX2 => (AtomicOp::IncWrap, true),
        FlatAtomicDecX2 => (AtomicOp::DecWrap, true),
        FlatAtomicPkAddF16 | GlobalAtomicPkAddF16 => (AtomicOp::PkAddF16, false),
        FlatAtomicPkAddBf16 | GlobalAtomicPkAddBf16 => (AtomicOp::PkAddBf16, false),
        GlobalAtomicSubClampU32 => (AtomicOp::SubClamp, false),
        GlobalAtomicCondSubU32 => (AtomicOp::CondSub, false),
        GlobalAtomicMinNumF32 => (AtomicOp::FMinNum, false),
        GlobalAtomicMaxNumF32 => (AtomicOp::FMaxNum, false),
        _ => return None,
    })
}

/// LDS/private atomics through a flat address: done on plain memory (the wave is the
/// only one touching it at this moment in functional mode).
fn rmw_local(
    w: &Wave,
    ctx: &mut ExecCtx<'_>,
    lane: usize,
    p: Place,
    (op, src, cmp, wide): (AtomicOp, u64, u64, bool),
) -> Result<u64, FaultReason> {
    let n = if wide { 2 } else { 1 };
    let mut old = [0u32; 2];
    load(w, ctx, lane, p, &mut old[..n], 4)?;
    let o = old[0] as u64 | (old[1] as u64) << 32;
    let new = if wide {
        op.apply_u64(o, src, cmp)
    } else {
        op.apply_u32(o as u32, src as u32, cmp as u32) as u64
    };
    store(w, ctx, lane, p, &[new as u32, (new >> 32) as u32][..n], 4)?;
    Ok(o)
}

/// Executes a FLAT/GLOBAL/SCRATCH instruction.
pub(crate) fn exec(w: &mut Wave, ctx: &mut ExecCtx<'_>, i: &Inst) -> Result<(), FaultReason> {
    if matches!(i.op, Op::GlobalInv | Op::GlobalWb | Op::GlobalWbinv) {
        // GFX12 global_inv/wb: device memory is coherent in functional mode; the cache
        // models are told.
        if let Some(obs) = ctx.observer.as_deref_mut() {
            let name = match i.op {
                Op::GlobalInv => "global_inv",
                Op::GlobalWb => "global_wb",
                _ => "global_wbinv",
            };
            obs.maintenance(name, i.mem.policy);
        }
        ctx.mem.fence();
        return Ok(());
    }
    let m = &i.mem;
    let seg = m.seg;
    let offset = m.offset as i64;
    let ret = m.has(Mem::RETURN);
    let policy = m.policy;
    let vaddr = m.vaddr as usize;
    let data = m.data as usize;
    let saddr = (m.sbase != Mem::NO_SGPR).then_some(m.sbase as usize);
    let vdst = i.dst as usize;
    let exec = w.exec();
    let use_v = m.has(Mem::VADDR);

    // Register rows of the address pair and the data/destination tuples, wrapped into the
    // register file once (as `Wave::vgpr` does per access).
    let rows = |r: usize| -> [usize; 4] { std::array::from_fn(|k| (r + k) % w.v.len()) };
    let (va, dr, vr) = (rows(vaddr), rows(data), rows(vdst));
    let sbase = saddr.map(|s| (w.sgpr64(s), w.sgpr(s)));

    // Per-lane place.
    let mut places = [Place::Global(0); LANES];
    for (l, p) in places.iter_mut().enumerate() {
        if exec >> l & 1 == 0 {
            continue;
        }
        let (lo, hi) = (w.v[va[0]][l] as u64, w.v[va[1]][l] as u64);
        *p = match seg {
            Seg::Global => {
                let base = match sbase {
                    Some((s64, _)) => s64.wrapping_add(lo),
                    None => lo | hi << 32,
                };
                Place::Global(base.wrapping_add_signed(offset))
            }
            Seg::Flat => classify((lo | hi << 32).wrapping_add_signed(offset)),
            Seg::Scratch => {
                let mut o = 0u64;
                if use_v {
                    o = o.wrapping_add(lo);
                }
                if let Some((_, s32)) = sbase {
                    o = o.wrapping_add(s32 as u64);
                }
                Place::Private((o as u32 as u64).wrapping_add_signed(offset) & 0xffff_ffff)
            }
        };
    }
    if let Some(r) = special::exec(w, ctx, i, &places) {
        return r;
    }
    if let Some(obs) = ctx.observer.as_deref_mut() {
        let addrs: [u64; LANES] = std::array::from_fn(|l| match places[l] {
            Place::Global(a) => a,
            Place::Lds(o) | Place::Private(o) => o,
        });
        let kind = if shape(i.op).is_some() {
            if is_store(i.op) {
                AccessKind::Store
            } else {
                AccessKind::Load
            }
        } else {
            AccessKind::Atomic
        };
        obs.access(&MemRecord {
            kind,
            bytes: shape(i.op).map(|(b, n, _, _)| (b * n) as u32).unwrap_or(4),
            policy,
            exec,
            addrs: &addrs,
        });
    }
    w.counters.vm += 1;

    if let Some((bytes, n, signed, d16)) = shape(i.op) {
        if is_store(i.op) {
            for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
                let mut buf = [0u32; 4];
                for (b, &r) in buf.iter_mut().zip(&dr).take(n) {
                    *b = w.v[r][l];
                }
                if d16 == 2 {
                    buf[0] >>= 16;
                }
                store(w, ctx, l, places[l], &buf[..n], bytes)?;
            }
        } else if is_lds_dma(i.op) {
            // gfx942/gfx950 global_load_lds_*: see [`lds_dma_addr`].
            let lds0 = lds_dma_addr(w, m.offset);
            for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
                let mut buf = [0u32; 4];
                load(w, ctx, l, places[l], &mut buf[..n], bytes)?;
                buf[0] = lds_dma_extend(buf[0], bytes, signed);
                let at = lds0.wrapping_add((4 * n * l) as u64);
                store(w, ctx, l, Place::Lds(at), &buf[..n], 4)?;
            }
        } else {
            for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
                let mut buf = [0u32; 4];
                load(w, ctx, l, places[l], &mut buf[..n], bytes)?;
                let v = buf[0];
                let v = match (bytes, signed) {
                    (1, true) => v as u8 as i8 as i32 as u32,
                    (2, true) => v as u16 as i16 as i32 as u32,
                    _ => v,
                };
                let d = &mut w.v[vr[0]][l];
                match d16 {
                    1 => *d = (*d & 0xffff_0000) | (v & 0xffff),
                    2 => *d = (*d & 0xffff) | v << 16,
                    _ => {
                        *d = v;
                        for (&r, &b) in vr[1..n].iter().zip(&buf[1..n]) {
                            w.v[r][l] = b;
                        }
                    }
                }
            }
        }
        return Ok(());
    }
    let Some((op, wide)) = atomic_kind(i.op) else {
        return Err(FaultReason::Unimplemented(i.mnemonic()));
    };
    let cmpswap = op == AtomicOp::CmpSwap;
    for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
        let rd = |k: usize| w.vgpr(data + k, l);
        let (src, cmp) = match (wide, cmpswap) {
            (false, false) => (rd(0) as u64, 0),
            (false, true) => (rd(0) as u64, rd(1) as u64),
            (true, false) => (rd(0) as u64 | (rd(1) as u64) << 32, 0),
            (true, true) => (
                rd(0) as u64 | (rd(1) as u64) << 32,
                rd(2) as u64 | (rd(3) as u64) << 32,
            ),
        };
        let memf = |fault| FaultReason::Memory {
            lane: l as u32,
            fault,
        };
        let old = match places[l] {
            Place::Global(a) if wide => ctx.mem.atomic_u64(a, op, src, cmp).map_err(memf)?,
            Place::Global(a) => ctx
                .mem
                .atomic_u32(a, op, src as u32, cmp as u32)
                .map_err(memf)? as u64,
            p => rmw_local(w, ctx, l, p, (op, src, cmp, wide))?,
        };
        if ret {
            w.set_vgpr(vdst, l, old as u32);
            if wide {
                w.set_vgpr(vdst + 1, l, (old >> 32) as u32);
            }
        }
    }
    Ok(())
}

/// gfx942/gfx950 `global_load_lds_*` (LDS DMA through the FLAT encoding).
fn is_lds_dma(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        GlobalLoadLdsUbyte
            | GlobalLoadLdsSbyte
            | GlobalLoadLdsUshort
            | GlobalLoadLdsSshort
            | GlobalLoadLdsDword
            | GlobalLoadLdsDwordx3
            | GlobalLoadLdsDwordx4
    )
}

/// LDS byte address where lane 0 of an LDS DMA load (`buffer_load_* ... lds`,
/// `global_load_lds_*`) writes: M0 (the wave's LDS destination, which LLVM's LDS-DMA
/// lowering loads with the LDS pointer) plus the instruction offset, which applies to the
/// memory and the LDS address alike (LLVM `IntrinsicsAMDGPU.td`, `int_amdgcn_load_to_lds`:
/// "imm offset (applied to both global and LDS address)"). Lane `l` writes its data at
/// `l * 4 * dwords` past it (Vega ISA guide, buffer loads to LDS: `LDS_ADDR = LDSbase +
/// LDS_offset + inst_offset + TID * 4`; gfx950's x3/x4 forms write 12/16 bytes per lane).
/// An LDS address outside the workgroup's allocation drops the write, as DS stores do.
pub(crate) fn lds_dma_addr(w: &Wave, inst_offset: i32) -> u64 {
    (w.sgpr(124) as u64).wrapping_add_signed(inst_offset as i64) & 0xffff_ffff
}

/// A sub-dword LDS DMA value as the dword written to LDS: zero- or sign-extended (the
/// `sbyte`/`sshort` forms exist because the LDS write is a whole dword).
pub(crate) fn lds_dma_extend(v: u32, bytes: usize, signed: bool) -> u32 {
    match (bytes, signed) {
        (1, true) => v as u8 as i8 as i32 as u32,
        (1, false) => v & 0xff,
        (2, true) => v as u16 as i16 as i32 as u32,
        (2, false) => v & 0xffff,
        _ => v,
    }
}

fn is_store(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        FlatStoreByte
            | FlatStoreByteD16Hi
            | FlatStoreShort
            | FlatStoreShortD16Hi
            | FlatStoreDword
            | FlatStoreDwordx2
            | FlatStoreDwordx3
            | FlatStoreDwordx4
    )
}
