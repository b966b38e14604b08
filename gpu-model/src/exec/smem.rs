//! Scalar memory: loads (dword tuples and GFX12 sub-dword), stores, scratch, buffers,
//! atomics, cache control, probes and prefetches, and the clocks (`s_memtime`).
//!
//! Addressing (CDNA4 guide 8.2, RDNA4 guide 16.6):
//! - global: `SGPR[base] + offset + soffset`; scratch (GFX9 `s_scratch_*`):
//!   `SGPR[base] + offset + soffset * 64` — a device address, the wave's scratch base
//!   being the program's to add (the guide: "scalar access to private space must ...
//!   manually convert the address");
//! - buffer: the V# base (48 bits) + offset + soffset, bounds-checked against
//!   num_records: a dword that does not fit is not transferred (loads return 0, stores
//!   and atomics are dropped);
//! - "the two LSBs are ignored" (dword accesses): dword transfers use `addr & !3`;
//!   atomics are naturally aligned (`& !7` for the 64-bit ones); sub-dword loads use the
//!   address as it is for bytes and `& !1` for 16 bits (documented choice: the natural
//!   alignment, as the dword rule is).
//!
//! Atomics (GFX9 `s_atomic_*`, `s_buffer_atomic_*`) go through the memory's atomic path
//! like vector ones: under a buffering view they are performed at the next memory sync
//! point, and the wave waits ([`Stop::SyncWait`]) and re-executes the instruction then.
//! SDATA holds the source (and, for cmpswap, the compare value next: `{cmp, src}`); with
//! GLC the pre-operation value is returned to SDATA.
//!
//! No effect on what a kernel computes, so no-ops here: `s_atc_probe*` (address
//! translation cache probes), `s_prefetch_*` (cache prefetches, which report nothing to
//! the wave), and `s_dcache_discard*`, which drops dirty scalar-cache lines: the model
//! writes scalar stores through to memory, so there is nothing dirty to drop (the cache
//! observer is told, as for the other cache maintenance).

use super::inst::{Inst, Mem};
use super::wave::{Flow, Wave, LANES};
use super::{AccessKind, ExecCtx, FaultReason, MemRecord, Stop};
use crate::isa::Op;
use crate::memory::AtomicOp;

/// How an instruction forms its address.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Space {
    Global,
    Buffer,
    Scratch,
}

/// What a load/store moves.
#[derive(Clone, Copy)]
enum Width {
    /// `n` dwords.
    Dwords(usize),
    /// One byte or short, sign-extended or not.
    Sub { bytes: u64, signed: bool },
}

/// (space, store, width) of a load or store.
fn transfer_shape(op: Op) -> Option<(Space, bool, Width)> {
    use Op::*;
    use Space::*;
    let dw = Width::Dwords;
    let sub = |bytes, signed| Width::Sub { bytes, signed };
    Some(match op {
        SLoadDword => (Global, false, dw(1)),
        SLoadDwordx2 => (Global, false, dw(2)),
        SLoadB96 => (Global, false, dw(3)),
        SLoadDwordx4 => (Global, false, dw(4)),
        SLoadDwordx8 => (Global, false, dw(8)),
        SLoadDwordx16 => (Global, false, dw(16)),
        SLoadU8 => (Global, false, sub(1, false)),
        SLoadI8 => (Global, false, sub(1, true)),
        SLoadU16 => (Global, false, sub(2, false)),
        SLoadI16 => (Global, false, sub(2, true)),
        SBufferLoadDword => (Buffer, false, dw(1)),
        SBufferLoadDwordx2 => (Buffer, false, dw(2)),
        SBufferLoadB96 => (Buffer, false, dw(3)),
        SBufferLoadDwordx4 => (Buffer, false, dw(4)),
        SBufferLoadDwordx8 => (Buffer, false, dw(8)),
        SBufferLoadDwordx16 => (Buffer, false, dw(16)),
        SBufferLoadU8 => (Buffer, false, sub(1, false)),
        SBufferLoadI8 => (Buffer, false, sub(1, true)),
        SBufferLoadU16 => (Buffer, false, sub(2, false)),
        SBufferLoadI16 => (Buffer, false, sub(2, true)),
        SScratchLoadDword => (Scratch, false, dw(1)),
        SScratchLoadDwordx2 => (Scratch, false, dw(2)),
        SScratchLoadDwordx4 => (Scratch, false, dw(4)),
        SStoreDword => (Global, true, dw(1)),
        SStoreDwordx2 => (Global, true, dw(2)),
        SStoreDwordx4 => (Global, true, dw(4)),
        SBufferStoreDword => (Buffer, true, dw(1)),
        SBufferStoreDwordx2 => (Buffer, true, dw(2)),
        SBufferStoreDwordx4 => (Buffer, true, dw(4)),
        SScratchStoreDword => (Scratch, true, dw(1)),
        SScratchStoreDwordx2 => (Scratch, true, dw(2)),
        SScratchStoreDwordx4 => (Scratch, true, dw(4)),
        _ => return None,
    })
}

/// (operation, 64-bit, buffer) of a scalar atomic.
fn atomic_shape(op: Op) -> Option<(AtomicOp, bool, bool)> {
    use AtomicOp as A;
    use Op::*;
    let (a, wide) = match op {
        SAtomicSwap | SBufferAtomicSwap => (A::Swap, false),
        SAtomicCmpswap | SBufferAtomicCmpswap => (A::CmpSwap, false),
        SAtomicAdd | SBufferAtomicAdd => (A::Add, false),
        SAtomicSub | SBufferAtomicSub => (A::Sub, false),
        SAtomicSmin | SBufferAtomicSmin => (A::MinS, false),
        SAtomicUmin | SBufferAtomicUmin => (A::MinU, false),
        SAtomicSmax | SBufferAtomicSmax => (A::MaxS, false),
        SAtomicUmax | SBufferAtomicUmax => (A::MaxU, false),
        SAtomicAnd | SBufferAtomicAnd => (A::And, false),
        SAtomicOr | SBufferAtomicOr => (A::Or, false),
        SAtomicXor | SBufferAtomicXor => (A::Xor, false),
        SAtomicInc | SBufferAtomicInc => (A::IncWrap, false),
        SAtomicDec | SBufferAtomicDec => (A::DecWrap, false),
        SAtomicSwapX2 | SBufferAtomicSwapX2 => (A::Swap, true),
        SAtomicCmpswapX2 | SBufferAtomicCmpswapX2 => (A::CmpSwap, true),
        SAtomicAddX2 | SBufferAtomicAddX2 => (A::Add, true),
        SAtomicSubX2 | SBufferAtomicSubX2 => (A::Sub, true),
        SAtomicSminX2 | SBufferAtomicSminX2 => (A::MinS, true),
        SAtomicUminX2 | SBufferAtomicUminX2 => (A::MinU, true),
        SAtomicSmaxX2 | SBufferAtomicSmaxX2 => (A::MaxS, true),
        SAtomicUmaxX2 | SBufferAtomicUmaxX2 => (A::MaxU, true),
        SAtomicAndX2 | SBufferAtomicAndX2 => (A::And, true),
        SAtomicOrX2 | SBufferAtomicOrX2 => (A::Or, true),
        SAtomicXorX2 | SBufferAtomicXorX2 => (A::Xor, true),
        SAtomicIncX2 | SBufferAtomicIncX2 => (A::IncWrap, true),
        SAtomicDecX2 | SBufferAtomicDecX2 => (A::DecWrap, true),
        _ => return None,
    };
    Some((a, wide, op.name().starts_with("s_buffer_")))
}

/// Executes an SMEM instruction.
pub(crate) fn exec(w: &mut Wave, ctx: &mut ExecCtx<'_>, i: &Inst) -> Result<Flow, FaultReason> {
    use Op::*;
    if let Some((space, store, width)) = transfer_shape(i.op) {
        transfer(w, ctx, i, space, store, width)?;
        return Ok(Flow::Next);
    }
    if let Some(shape) = atomic_shape(i.op) {
        return atomic(w, ctx, i, shape);
    }
    match i.op {
        SDcacheInv | SDcacheWb | SDcacheInvVol | SDcacheWbVol | SDcacheDiscard
        | SDcacheDiscardX2 => {
            if let Some(obs) = ctx.observer.as_deref_mut() {
                obs.maintenance(i.op.name(), i.mem.policy);
            }
            ctx.mem.fence();
        }
        SMemtime | SMemrealtime => {
            // Deterministic: the wave's instruction clock (see `Wave::clock`).
            let t = w.clock();
            w.swrite64(i.dst, t);
            w.counters.lgkm += 1;
        }
        SAtcProbe | SAtcProbeBuffer | SPrefetchInst | SPrefetchInstPcRel | SPrefetchData
        | SPrefetchDataPcRel | SBufferPrefetchData => {}
        _ => return Err(FaultReason::Unimplemented(i.mnemonic())),
    }
    Ok(Flow::Next)
}

/// The byte offset the instruction adds to its base: the immediate plus the SGPR/M0
/// offset, whose two low bits are ignored (RDNA4 guide: "the SGPR contains an UNSIGNED
/// BYTE offset (the 2 LSBs are ignored)"; CDNA4 8.2.1.1), or for scratch the SGPR/M0
/// offset times 64 (a multiple of 4 already).
fn offset(w: &Wave, i: &Inst, space: Space) -> u64 {
    let soff = w.sread(i.mem.soffset as u16, 0) as u64;
    let soff = if space == Space::Scratch {
        soff * 64
    } else {
        soff & !3
    };
    (i.mem.offset as i64 as u64).wrapping_add(soff)
}

/// The base address and, for buffers, num_records (the byte limit of `offset`).
fn base(w: &Wave, i: &Inst, space: Space) -> (u64, Option<u64>) {
    let sbase = i.mem.sbase as usize;
    if space == Space::Buffer {
        let d0 = w.sgpr(sbase) as u64;
        let d1 = w.sgpr(sbase + 1) as u64;
        (d0 | (d1 & 0xffff) << 32, Some(w.sgpr(sbase + 2) as u64))
    } else {
        (w.sgpr64(sbase), None)
    }
}

/// Tells the cache observer about a scalar access at `addr`.
fn observe(ctx: &mut ExecCtx<'_>, kind: AccessKind, bytes: u32, i: &Inst, addr: u64) {
    if let Some(obs) = ctx.observer.as_deref_mut() {
        let mut addrs = [0u64; LANES];
        addrs[0] = addr;
        obs.access(&MemRecord {
            kind,
            bytes,
            policy: i.mem.policy,
            exec: 1,
            addrs: &addrs,
        });
    }
}

fn transfer(
    w: &mut Wave,
    ctx: &mut ExecCtx<'_>,
    i: &Inst,
    space: Space,
    store: bool,
    width: Width,
) -> Result<(), FaultReason> {
    let off = offset(w, i, space);
    let (base, limit) = base(w, i, space);
    let fits = |o: u64, n: u64| limit.is_none_or(|l| o.checked_add(n).is_some_and(|e| e <= l));
    let memf = |fault| FaultReason::Memory { lane: 0, fault };
    let d = i.dst as usize;
    let kind = if store {
        AccessKind::Store
    } else {
        AccessKind::ScalarLoad
    };
    match width {
        Width::Sub { bytes, signed } => {
            // Naturally aligned (documented choice); the range check is on that offset.
            let off = off & !(bytes - 1);
            let addr = base.wrapping_add(off) & !(bytes - 1);
            observe(ctx, kind, bytes as u32, i, addr);
            let v = if !fits(off, bytes) {
                0
            } else if bytes == 1 {
                let b = ctx.mem.load_u8(addr).map_err(memf)?;
                if signed {
                    b as i8 as i32 as u32
                } else {
                    b as u32
                }
            } else {
                let h = ctx.mem.load_u16(addr).map_err(memf)?;
                if signed {
                    h as i16 as i32 as u32
                } else {
                    h as u32
                }
            };
            w.swrite(d as u16, v);
        }
        Width::Dwords(n) => {
            // The hardware ignores the two low address bits of scalar accesses.
            let addr = base.wrapping_add(off) & !3;
            observe(ctx, kind, 4 * n as u32, i, addr);
            for k in 0..n {
                let a = addr.wrapping_add(4 * k as u64);
                let ok = fits(off.wrapping_add(4 * k as u64), 4);
                if store {
                    if ok {
                        let v = w.sgpr(d + k);
                        ctx.mem.store_u32(a, v).map_err(memf)?;
                    }
                } else {
                    let v = if ok {
                        ctx.mem.load_u32(a).map_err(memf)?
                    } else {
                        0
                    };
                    w.swrite((d + k) as u16, v);
                }
            }
        }
    }
    w.counters.lgkm += 1;
    Ok(())
}

fn atomic(
    w: &mut Wave,
    ctx: &mut ExecCtx<'_>,
    i: &Inst,
    (op, wide, buffer): (AtomicOp, bool, bool),
) -> Result<Flow, FaultReason> {
    let space = if buffer { Space::Buffer } else { Space::Global };
    let off = offset(w, i, space);
    let (base, limit) = base(w, i, space);
    let bytes: u64 = if wide { 8 } else { 4 };
    // Naturally aligned.
    let addr = base.wrapping_add(off) & !(bytes - 1);
    let d = i.dst;
    let rd = |k: u16| w.sread(d + k, 0) as u64;
    let (src, cmp) = match (wide, op == AtomicOp::CmpSwap) {
        (false, false) => (rd(0), 0),
        (false, true) => (rd(0), rd(1)),
        (true, false) => (rd(0) | rd(1) << 32, 0),
        (true, true) => (rd(0) | rd(1) << 32, rd(2) | rd(3) << 32),
    };
    let in_range = limit.is_none_or(|l| off.checked_add(bytes).is_some_and(|e| e <= l));
    let old = if in_range {
        // Only the first execution is shown to the cache observer (a deferred atomic is
        // executed again once performed).
        if !ctx.mem.replaying() {
            observe(ctx, AccessKind::Atomic, bytes as u32, i, addr);
        }
        let memf = |fault| FaultReason::Memory { lane: 0, fault };
        let old = if wide {
            ctx.mem.atomic_u64(addr, op, src, cmp).map_err(memf)?
        } else {
            ctx.mem
                .atomic_u32(addr, op, src as u32, cmp as u32)
                .map_err(memf)? as u64
        };
        if ctx.mem.take_deferred() {
            return Ok(Flow::Stop(Stop::SyncWait));
        }
        old
    } else {
        0
    };
    if i.mem.has(Mem::RETURN) {
        if wide {
            w.swrite64(d, old);
        } else {
            w.swrite(d, old as u32);
        }
    }
    w.counters.lgkm += 1;
    Ok(Flow::Next)
}
