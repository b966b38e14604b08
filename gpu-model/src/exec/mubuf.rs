//! MUBUF buffer instructions (GFX9): buffer resource descriptors, swizzled private
//! segment buffers, bounds checking, cache control.
//!
//! Descriptor (V#, 4 SGPRs): base = dword0 | dword1[15:0] << 32, stride = dword1[29:16],
//! swizzle enable = dword1[31], num_records = dword2, add_tid_enable = dword3[23].
//! A swizzled, add-tid buffer (what the dispatcher gives as the private segment buffer,
//! element size 4, index stride 64, stride 0) lays out each lane's bytes with the same
//! dword interleave as flat scratch.

use super::decode::{Inst, Mem};
use super::flat::{load, store, Place};
use super::op::Op;
use super::wave::{Wave, LANES};
use super::{ExecCtx, FaultReason};

/// Executes a MUBUF instruction.
pub(crate) fn exec(w: &mut Wave, ctx: &mut ExecCtx<'_>, i: &Inst) -> Result<(), FaultReason> {
    use Op::*;
    let (bytes, n, signed, store_op) = match i.op {
        BLoadUbyte => (1, 1, false, false),
        BLoadSbyte => (1, 1, true, false),
        BLoadUshort => (2, 1, false, false),
        BLoadSshort => (2, 1, true, false),
        BLoadDword => (4, 1, false, false),
        BLoadDwordx2 => (4, 2, false, false),
        BLoadDwordx3 => (4, 3, false, false),
        BLoadDwordx4 => (4, 4, false, false),
        BStoreByte => (1, 1, false, true),
        BStoreShort => (2, 1, false, true),
        BStoreDword => (4, 1, false, true),
        BStoreDwordx2 => (4, 2, false, true),
        BStoreDwordx3 => (4, 3, false, true),
        BStoreDwordx4 => (4, 4, false, true),
        BWbl2 | BInv | BWbinvl1 | BWbinvl1Vol => {
            if let Some(obs) = ctx.observer.as_deref_mut() {
                obs.maintenance(i.op.name(), i.mem.policy);
            }
            ctx.mem.fence();
            return Ok(());
        }
        _ => return Err(FaultReason::Unimplemented(i.op.name())),
    };
    let inst_off = i.mem.offset as u32 as u64;
    let offen = i.mem.has(Mem::OFFEN);
    let idxen = i.mem.has(Mem::IDXEN);
    let vaddr = i.mem.vaddr as usize;
    let vdata = i.mem.data as usize;
    let srsrc = i.mem.sbase as usize;
    let soffset = w.sread(i.mem.soffset as u16, 0) as u64;
    let d = [
        w.sgpr(srsrc),
        w.sgpr(srsrc + 1),
        w.sgpr(srsrc + 2),
        w.sgpr(srsrc + 3),
    ];
    let base = d[0] as u64 | ((d[1] & 0xffff) as u64) << 32;
    let stride = ((d[1] >> 16) & 0x3fff) as u64;
    let swizzle = d[1] >> 31 != 0;
    let num_records = d[2] as u64;
    let add_tid = d[3] & (1 << 23) != 0;
    let exec = w.exec();
    w.counters.vm += 1;
    for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
        let mut next = vaddr;
        let mut index = 0u64;
        if idxen {
            index = w.vgpr(next, l) as u64;
            next += 1;
        }
        let mut off = inst_off;
        if offen {
            off += w.vgpr(next, l) as u64;
        }
        if add_tid {
            index += l as u64;
        }
        if swizzle {
            // addr = base + soffset + index_msb * stride * index_stride
            //        + offset_msb * elem * index_stride + index_lsb * elem + offset_lsb
            let elem = 2u64 << ((d[3] >> 19) & 3);
            let istride = 8u64 << ((d[3] >> 21) & 3);
            let at = |o: u64| {
                base.wrapping_add(soffset)
                    .wrapping_add((index / istride) * stride * istride)
                    .wrapping_add((o / elem) * elem * istride)
                    .wrapping_add((index % istride) * elem)
                    .wrapping_add(o % elem)
            };
            for k in 0..n {
                let p = Place::Global(at(off + 4 * k as u64));
                if store_op {
                    let v = w.vgpr(vdata + k, l);
                    store(w, ctx, l, p, &[v], bytes)?;
                } else {
                    let mut b = [0u32; 1];
                    load(w, ctx, l, p, &mut b, bytes)?;
                    w.set_vgpr(vdata + k, l, sext(b[0], bytes, signed));
                }
            }
            continue;
        }
        let addr_off = off + index * stride;
        // Raw buffers check the byte offset against num_records; structured ones
        // (stride != 0) check the index.
        let in_range = if stride == 0 {
            addr_off + (bytes * n) as u64 <= num_records
        } else {
            index < num_records
        };
        if !in_range {
            if !store_op {
                for k in 0..n {
                    w.set_vgpr(vdata + k, l, 0);
                }
            }
            continue;
        }
        let place = Place::Global(base.wrapping_add(soffset).wrapping_add(addr_off));
        if store_op {
            let buf: [u32; 4] = std::array::from_fn(|k| w.vgpr(vdata + k, l));
            store(w, ctx, l, place, &buf[..n], bytes)?;
        } else {
            let mut buf = [0u32; 4];
            load(w, ctx, l, place, &mut buf[..n], bytes)?;
            buf[0] = sext(buf[0], bytes, signed);
            for (k, &b) in buf.iter().enumerate().take(n) {
                w.set_vgpr(vdata + k, l, b);
            }
        }
    }
    Ok(())
}

fn sext(v: u32, bytes: usize, signed: bool) -> u32 {
    match (bytes, signed) {
        (1, true) => v as u8 as i8 as i32 as u32,
        (2, true) => v as u16 as i16 as i32 as u32,
        _ => v,
    }
}
