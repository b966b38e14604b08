//! Scalar memory: s_load, s_buffer_load, s_store, cache control, s_memtime.

use super::inst::Inst;
use super::wave::{Wave, LANES};
use super::{AccessKind, ExecCtx, FaultReason, MemRecord};
use crate::isa::Op;

/// Executes an SMEM instruction.
pub(crate) fn exec(w: &mut Wave, ctx: &mut ExecCtx<'_>, i: &Inst) -> Result<(), FaultReason> {
    use Op::*;
    let sbase = i.mem.sbase as usize;
    let buffer = matches!(
        i.op,
        SBufferLoadDword
            | SBufferLoadDwordx2
            | SBufferLoadDwordx4
            | SBufferLoadDwordx8
            | SBufferLoadDwordx16
            | SBufferLoadB96
    );
    let offset = (i.mem.offset as i64 as u64).wrapping_add(w.sread(i.mem.soffset as u16, 0) as u64);
    let n = match i.op {
        SLoadDword | SBufferLoadDword | SStoreDword => 1,
        SLoadDwordx2 | SBufferLoadDwordx2 | SStoreDwordx2 => 2,
        SLoadB96 | SBufferLoadB96 => 3,
        SLoadDwordx4 | SBufferLoadDwordx4 | SStoreDwordx4 => 4,
        SLoadDwordx8 | SBufferLoadDwordx8 => 8,
        SLoadDwordx16 | SBufferLoadDwordx16 => 16,
        SDcacheInv | SDcacheWb | SDcacheInvVol | SDcacheWbVol => {
            if let Some(obs) = ctx.observer.as_deref_mut() {
                obs.maintenance(i.op.name(), i.mem.policy);
            }
            ctx.mem.fence();
            return Ok(());
        }
        SMemtime | SMemrealtime => {
            // A monotonic counter: the wave's retired instruction count.
            let t = w.retired;
            w.swrite64(i.dst, t);
            return Ok(());
        }
        _ => return Err(FaultReason::Unimplemented(i.mnemonic())),
    };
    let (addr, limit) = if buffer {
        let d0 = w.sgpr(sbase) as u64;
        let d1 = w.sgpr(sbase + 1) as u64;
        let base = d0 | (d1 & 0xffff) << 32;
        (base.wrapping_add(offset), Some(w.sgpr(sbase + 2) as u64))
    } else {
        (w.sgpr64(sbase).wrapping_add(offset), None)
    };
    // The hardware ignores the two low address bits of scalar accesses.
    let addr = addr & !3;
    let store = matches!(i.op, SStoreDword | SStoreDwordx2 | SStoreDwordx4);
    if let Some(obs) = ctx.observer.as_deref_mut() {
        let mut addrs = [0u64; LANES];
        addrs[0] = addr;
        obs.access(&MemRecord {
            kind: if store {
                AccessKind::Store
            } else {
                AccessKind::ScalarLoad
            },
            bytes: 4 * n,
            policy: i.mem.policy,
            exec: 1,
            addrs: &addrs,
        });
    }
    let d = i.dst as usize;
    for k in 0..n as usize {
        let a = addr.wrapping_add(4 * k as u64);
        if store {
            let v = w.sgpr(d + k);
            ctx.mem
                .store_u32(a, v)
                .map_err(|fault| FaultReason::Memory { lane: 0, fault })?;
        } else {
            let in_range = limit.is_none_or(|l| offset + 4 * k as u64 + 4 <= l);
            let v = if in_range {
                ctx.mem
                    .load_u32(a)
                    .map_err(|fault| FaultReason::Memory { lane: 0, fault })?
            } else {
                0
            };
            w.swrite((d + k) as u16, v);
        }
    }
    w.counters.lgkm += 1;
    Ok(())
}
