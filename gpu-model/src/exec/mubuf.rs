//! Buffer instructions (GFX9 MUBUF, GFX12 VBUFFER): buffer resource descriptors (V#) of
//! both families, structured/raw/swizzled addressing, range checking, loads, stores and
//! atomics.
//!
//! Address of one lane (both families): `base + soffset + buffer_offset`, where
//! `buffer_offset = index * stride + offset` (linear) or the swizzled form below,
//! `index = vgpr_index (idxen) + lane (add_tid_enable)`, `offset = vgpr_offset (offen) +
//! instruction offset`. With idxen and offen both set the VGPR pair is (index, offset).
//! Out-of-range loads return 0 and out-of-range stores and atomics are dropped.
//!
//! GFX9 V# (what this file always modelled; Vega ISA, MUBUF chapter): base = dword0 |
//! dword1[15:0] << 32, stride = dword1[29:16], swizzle_enable = dword1[31], num_records =
//! dword2, element_size = dword3[20:19] (2 << n bytes), index_stride = dword3[22:21]
//! (8 << n), add_tid_enable = dword3[23]. Raw buffers (stride 0) check the byte offset
//! against num_records, structured ones the index; swizzled buffers (the private segment
//! buffer the dispatcher gives: element size 4, index stride 64) are not range checked.
//!
//! GFX12 (RDNA4) V#, from ROCR-Runtime `core/inc/registers.h` (`SQ_BUF_RSRC_WORD1_GFX11`,
//! `SQ_BUF_RSRC_WORD3_GFX12`, "From V# Table") and Radeon GPU Detective's RDNA4 SRD
//! decoder (`SrdBufferRdna4::ExtractFields`): base = dword0 | dword1[15:0] << 32, stride =
//! dword1[29:16], swizzle_enable = dword1[31:30] (0 off, 1/2/3 = 4/8/16-byte elements:
//! Mesa `ac_build_attr_ring_descriptor` writes 3 for "16B"), num_records = dword2,
//! dst_sel = dword3[11:0], format = dword3[17:12], stride_scale = dword3[19:18] (RGD;
//! reserved in ROCr; not modelled: a non-zero value is refused), index_stride =
//! dword3[22:21] (8/16/32/64, RGD `IndexStride_8B..64B`), add_tid_enable = dword3[23],
//! compression bits dword3[27:24], oob_select = dword3[29:28], type = dword3[31:30].
//! Range check by oob_select, GFX11+ (Mesa `ac_set_buf_desc_word3` comment):
//! 0: `index >= num_records || offset + payload > stride`; 1: `index >= num_records`;
//! 2: `num_records == 0`; 3: swizzled with a stride as 0, else
//! `offset + payload > num_records` (offset here is the whole buffer offset, which is the
//! VGPR + instruction offset for the raw buffers that use it). The scalar offset is not
//! part of the checked offset. Per the RDNA ISA range-checking rules, multi-dword loads and
//! stores are checked per dword, atomics all or nothing.

use super::flat::{load, store, Place};
use super::inst::{Inst, Mem};
use super::wave::{Wave, LANES};
use super::{AccessKind, ExecCtx, FaultReason, MemRecord};
use crate::isa::Op;
use crate::memory::AtomicOp;
use crate::Family;

/// How a descriptor's range check works.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Oob {
    /// GFX9: raw buffers check the offset, structured ones the index, swizzled none.
    Gfx9,
    /// GFX12 oob_select 0: index and offset within the stride.
    IndexAndOffset,
    /// GFX12 oob_select 1: index only.
    Index,
    /// GFX12 oob_select 2: only an empty buffer (num_records 0) is out of range.
    Empty,
    /// GFX12 oob_select 3: raw byte range (structured check when swizzled with a stride).
    Raw,
}

/// A buffer resource descriptor, decoded.
#[derive(Debug, Clone, Copy)]
pub(super) struct Rsrc {
    base: u64,
    stride: u64,
    num_records: u64,
    /// (element size, index stride) when swizzled.
    swizzle: Option<(u64, u64)>,
    pub(super) add_tid: bool,
    oob: Oob,
    /// Descriptor dword 3 (destination selects and format of the formatted accesses).
    word3: u32,
    family: Family,
}

impl Rsrc {
    /// Reads the V# in SGPRs `s..s+3` for `family`.
    pub(super) fn read(w: &Wave, s: usize, family: Family) -> Result<Rsrc, FaultReason> {
        let d = [w.sgpr(s), w.sgpr(s + 1), w.sgpr(s + 2), w.sgpr(s + 3)];
        let base = d[0] as u64 | ((d[1] & 0xffff) as u64) << 32;
        let mut stride = ((d[1] >> 16) & 0x3fff) as u64;
        let istride = 8u64 << ((d[3] >> 21) & 3);
        let add_tid = d[3] & (1 << 23) != 0;
        Ok(match family {
            Family::Gfx9 => {
                // GFX8/GFX9: with ADD_TID_ENABLE, DATA_FORMAT (dword3[18:15]) holds
                // STRIDE[17:14] (Mesa `ac_set_buf_desc_word3`).
                if add_tid {
                    stride |= (((d[3] >> 15) & 0xf) as u64) << 14;
                }
                Rsrc {
                    base,
                    stride,
                    num_records: d[2] as u64,
                    swizzle: (d[1] >> 31 != 0).then(|| (2u64 << ((d[3] >> 19) & 3), istride)),
                    add_tid,
                    oob: Oob::Gfx9,
                    word3: d[3],
                    family,
                }
            }
            Family::Gfx12 => {
                if (d[3] >> 18) & 3 != 0 {
                    return Err(FaultReason::UnsupportedForm(
                        "gfx12 buffer descriptor with a non-zero stride_scale (dword3[19:18])",
                    ));
                }
                let sw = d[1] >> 30;
                Rsrc {
                    base,
                    stride,
                    num_records: d[2] as u64,
                    swizzle: (sw != 0).then(|| (2u64 << sw, istride)),
                    add_tid,
                    oob: match (d[3] >> 28) & 3 {
                        0 => Oob::IndexAndOffset,
                        1 => Oob::Index,
                        2 => Oob::Empty,
                        _ => Oob::Raw,
                    },
                    word3: d[3],
                    family,
                }
            }
        })
    }

    /// The element format and destination selects of the formatted accesses
    /// (`buffer_load_format_*`, `buffer_store_format_*`): GFX9 DST_SEL_X..W =
    /// dword3[11:0], NUM_FORMAT = dword3[14:12], DATA_FORMAT = dword3[18:15] (ROCr
    /// `resource_ai.h` `SQ_BUF_RSRC_WORD3`); GFX12 the same selects and the unified FORMAT
    /// = dword3[17:12] (ROCr `resource_gfx12.h`). Selects: 0 zero, 1 one, 4..7 x..w.
    pub(super) fn format(
        &self,
        target: crate::Target,
    ) -> Result<(super::format::Decoded, [u8; 4]), FaultReason> {
        let d = self.word3;
        let sel = [0, 3, 6, 9].map(|s| ((d >> s) & 7) as u8);
        let (dfmt, nfmt) = match self.family {
            Family::Gfx9 => {
                if self.add_tid {
                    return Err(FaultReason::UnsupportedForm(
                        "formatted buffer access through a GFX9 descriptor with \
                         ADD_TID_ENABLE (its DATA_FORMAT bits are the stride's high bits)",
                    ));
                }
                ((d >> 15) & 0xf, (d >> 12) & 7)
            }
            Family::Gfx12 => {
                let f = super::tbuf::gfx12_format(target, (d >> 12) & 0x3f);
                (u32::from(f & 0xf), u32::from(f >> 4))
            }
        };
        Ok((super::format::gfx9(dfmt, nfmt)?, sel))
    }

    /// Whether `payload` bytes at `offset` (VGPR + instruction offset) of record `index`
    /// are inside the buffer. `whole` is the complete access (for GFX9's all-or-nothing
    /// raw check).
    pub(super) fn in_range(&self, index: u64, offset: u64, payload: u64, whole: u64) -> bool {
        let nr = self.num_records;
        let structured = index < nr && offset + payload <= self.stride;
        match self.oob {
            Oob::Gfx9 if self.swizzle.is_some() => true,
            Oob::Gfx9 if self.stride == 0 => offset + whole <= nr,
            Oob::Gfx9 => index < nr,
            Oob::IndexAndOffset => structured,
            Oob::Index => index < nr,
            Oob::Empty => nr != 0,
            Oob::Raw if self.swizzle.is_some() && self.stride != 0 => structured,
            Oob::Raw => index * self.stride + offset + payload <= nr,
        }
    }

    /// Lane `l`'s record index and byte offset: the index VGPR (IDXEN) and offset VGPR
    /// (OFFEN) in that order from `m.vaddr`, the instruction offset, and the lane number
    /// when the descriptor asks for ADD_TID.
    pub(super) fn lane(&self, w: &Wave, m: &Mem, l: usize) -> (u64, u64) {
        let mut next = m.vaddr as usize;
        let mut index = 0u64;
        if m.has(Mem::IDXEN) {
            index = w.vgpr(next, l) as u64;
            next += 1;
        }
        let mut off = m.offset as u32 as u64;
        if m.has(Mem::OFFEN) {
            off += w.vgpr(next, l) as u64;
        }
        if self.add_tid {
            index += l as u64;
        }
        (index, off)
    }

    /// Device address of byte `offset` of record `index` (`soffset` added).
    pub(super) fn addr(&self, soffset: u64, index: u64, offset: u64) -> u64 {
        let b = self.base.wrapping_add(soffset);
        match self.swizzle {
            // index_msb * stride * index_stride + offset_msb * elem * index_stride
            // + index_lsb * elem + offset_lsb
            Some((elem, ist)) => b
                .wrapping_add((index / ist) * self.stride * ist)
                .wrapping_add((offset / elem) * elem * ist)
                .wrapping_add((index % ist) * elem)
                .wrapping_add(offset % elem),
            None => b.wrapping_add(index * self.stride).wrapping_add(offset),
        }
    }
}

/// Load/store shape: (bytes per access, dwords, signed, d16 mode (0 full, 1 low, 2 high),
/// store).
fn shape(op: Op) -> Option<(usize, usize, bool, u8, bool)> {
    use Op::*;
    Some(match op {
        BufferLoadUbyte => (1, 1, false, 0, false),
        BufferLoadSbyte => (1, 1, true, 0, false),
        BufferLoadUshort => (2, 1, false, 0, false),
        BufferLoadSshort => (2, 1, true, 0, false),
        BufferLoadDword => (4, 1, false, 0, false),
        BufferLoadDwordx2 => (4, 2, false, 0, false),
        BufferLoadDwordx3 => (4, 3, false, 0, false),
        BufferLoadDwordx4 => (4, 4, false, 0, false),
        BufferLoadUbyteD16 => (1, 1, false, 1, false),
        BufferLoadUbyteD16Hi => (1, 1, false, 2, false),
        BufferLoadSbyteD16 => (1, 1, true, 1, false),
        BufferLoadSbyteD16Hi => (1, 1, true, 2, false),
        BufferLoadShortD16 => (2, 1, false, 1, false),
        BufferLoadShortD16Hi => (2, 1, false, 2, false),
        BufferStoreByte => (1, 1, false, 0, true),
        BufferStoreByteD16Hi => (1, 1, false, 2, true),
        BufferStoreShort => (2, 1, false, 0, true),
        BufferStoreShortD16Hi => (2, 1, false, 2, true),
        BufferStoreDword => (4, 1, false, 0, true),
        BufferStoreDwordx2 => (4, 2, false, 0, true),
        BufferStoreDwordx3 => (4, 3, false, 0, true),
        BufferStoreDwordx4 => (4, 4, false, 0, true),
        _ => return None,
    })
}

/// Atomic operation and whether it is 64-bit.
fn atomic_kind(op: Op) -> Option<(AtomicOp, bool)> {
    use Op::*;
    Some(match op {
        BufferAtomicSwap => (AtomicOp::Swap, false),
        BufferAtomicCmpswap => (AtomicOp::CmpSwap, false),
        BufferAtomicAdd => (AtomicOp::Add, false),
        BufferAtomicSub => (AtomicOp::Sub, false),
        BufferAtomicSmin => (AtomicOp::MinS, false),
        BufferAtomicUmin => (AtomicOp::MinU, false),
        BufferAtomicSmax => (AtomicOp::MaxS, false),
        BufferAtomicUmax => (AtomicOp::MaxU, false),
        BufferAtomicAnd => (AtomicOp::And, false),
        BufferAtomicOr => (AtomicOp::Or, false),
        BufferAtomicXor => (AtomicOp::Xor, false),
        BufferAtomicInc => (AtomicOp::IncWrap, false),
        BufferAtomicDec => (AtomicOp::DecWrap, false),
        BufferAtomicAddF32 => (AtomicOp::FAdd, false),
        BufferAtomicAddF64 => (AtomicOp::FAdd, true),
        BufferAtomicMinF64 => (AtomicOp::FMin, true),
        BufferAtomicMaxF64 => (AtomicOp::FMax, true),
        BufferAtomicSwapX2 => (AtomicOp::Swap, true),
        BufferAtomicCmpswapX2 => (AtomicOp::CmpSwap, true),
        BufferAtomicAddX2 => (AtomicOp::Add, true),
        BufferAtomicSubX2 => (AtomicOp::Sub, true),
        BufferAtomicSminX2 => (AtomicOp::MinS, true),
        BufferAtomicUminX2 => (AtomicOp::MinU, true),
        BufferAtomicSmaxX2 => (AtomicOp::MaxS, true),
        BufferAtomicUmaxX2 => (AtomicOp::MaxU, true),
        BufferAtomicAndX2 => (AtomicOp::And, true),
        BufferAtomicOrX2 => (AtomicOp::Or, true),
        BufferAtomicXorX2 => (AtomicOp::Xor, true),
        BufferAtomicIncX2 => (AtomicOp::IncWrap, true),
        BufferAtomicDecX2 => (AtomicOp::DecWrap, true),
        BufferAtomicPkAddF16 => (AtomicOp::PkAddF16, false),
        BufferAtomicPkAddBf16 => (AtomicOp::PkAddBf16, false),
        BufferAtomicSubClampU32 => (AtomicOp::SubClamp, false),
        BufferAtomicCondSubU32 => (AtomicOp::CondSub, false),
        BufferAtomicMinNumF32 => (AtomicOp::FMinNum, false),
        BufferAtomicMaxNumF32 => (AtomicOp::FMaxNum, false),
        _ => return None,
    })
}

/// Executes a MUBUF (GFX9) or VBUFFER (GFX12) instruction.
pub(crate) fn exec(w: &mut Wave, ctx: &mut ExecCtx<'_>, i: &Inst) -> Result<(), FaultReason> {
    if matches!(
        i.op,
        Op::BufferWbl2 | Op::BufferInv | Op::BufferWbinvl1 | Op::BufferWbinvl1Vol | Op::BufferInvl2
    ) {
        // Device memory is coherent in functional mode; the cache models are told.
        if let Some(obs) = ctx.observer.as_deref_mut() {
            obs.maintenance(i.op.name(), i.mem.policy);
        }
        ctx.mem.fence();
        return Ok(());
    }
    if let Some(t) = super::tbuf::formatted(i.op) {
        return super::tbuf::exec(w, ctx, i, t);
    }
    if i.op == Op::BufferStoreLdsDword {
        return store_lds_dword(w, ctx, i);
    }
    let shp = shape(i.op);
    let atom = atomic_kind(i.op);
    if shp.is_none() && atom.is_none() {
        return Err(FaultReason::Unimplemented(i.mnemonic()));
    }
    let m = &i.mem;
    let lds_dma = m.has(Mem::LDS_DMA);
    if lds_dma && !matches!(shp, Some((_, _, _, 0, false))) {
        return Err(FaultReason::UnsupportedForm(
            "mubuf lds bit (LDS DMA) on a store, d16 load or atomic",
        ));
    }
    // LDS DMA: lane data goes to LDS (see `flat::lds_dma_addr`), not to VGPRs.
    let lds0 = super::flat::lds_dma_addr(w, m.offset);
    let vdata = m.data as usize;
    let soffset = w.sread(m.soffset as u16, 0) as u64;
    let r = Rsrc::read(w, m.sbase as usize, ctx.prog.target().family())?;
    let exec = w.exec();
    w.counters.vm += 1;
    // What the cache models see: each in-range lane's first byte address.
    let mut addrs = [0u64; LANES];
    let mut seen = 0u64;
    for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
        let (index, off) = r.lane(w, m, l);
        if let Some((bytes, n, _, _, _)) = shp {
            if r.in_range(index, off, bytes as u64, (bytes * n) as u64) {
                addrs[l] = r.addr(soffset, index, off);
                seen |= 1 << l;
            }
        } else if r.in_range(index, off, 4, 4) {
            addrs[l] = r.addr(soffset, index, off);
            seen |= 1 << l;
        }
        if let Some((bytes, n, signed, d16, is_store)) = shp {
            let whole = (bytes * n) as u64;
            for k in 0..n {
                let o = off + 4 * k as u64;
                let ok = r.in_range(index, o, bytes as u64, whole - 4 * k as u64);
                let p = Place::Global(r.addr(soffset, index, o));
                if is_store {
                    if ok {
                        let v = w.vgpr(vdata + k, l);
                        let v = if d16 == 2 { v >> 16 } else { v };
                        store(w, ctx, l, p, &[v], bytes)?;
                    }
                    continue;
                }
                let mut b = [0u32; 1];
                if ok {
                    load(w, ctx, l, p, &mut b, bytes)?;
                }
                if lds_dma {
                    let v = super::flat::lds_dma_extend(b[0], bytes, signed);
                    let at = lds0.wrapping_add((4 * (n * l + k)) as u64);
                    store(w, ctx, l, Place::Lds(at), &[v], 4)?;
                    continue;
                }
                let v = sext(b[0], bytes, signed);
                let old = w.vgpr(vdata + k, l);
                let v = match d16 {
                    1 => (old & 0xffff_0000) | (v & 0xffff),
                    2 => (old & 0xffff) | v << 16,
                    _ => v,
                };
                w.set_vgpr(vdata + k, l, v);
            }
            continue;
        }
        // Atomics (checked above: `atom` is Some when `shp` is None).
        let Some((op, wide)) = atom else { continue };
        let rd = |k: usize| w.vgpr(vdata + k, l) as u64;
        let (src, cmp) = match (wide, op == AtomicOp::CmpSwap) {
            (false, false) => (rd(0), 0),
            (false, true) => (rd(0), rd(1)),
            (true, false) => (rd(0) | rd(1) << 32, 0),
            (true, true) => (rd(0) | rd(1) << 32, rd(2) | rd(3) << 32),
        };
        let size = if wide { 8 } else { 4 };
        let mut old = 0u64;
        if r.in_range(index, off, size, size) {
            let a = r.addr(soffset, index, off);
            let memf = |fault| FaultReason::Memory {
                lane: l as u32,
                fault,
            };
            old = if wide {
                ctx.mem.atomic_u64(a, op, src, cmp).map_err(memf)?
            } else {
                ctx.mem
                    .atomic_u32(a, op, src as u32, cmp as u32)
                    .map_err(memf)? as u64
            };
        }
        if m.has(Mem::RETURN) {
            w.set_vgpr(vdata, l, old as u32);
            if wide {
                w.set_vgpr(vdata + 1, l, (old >> 32) as u32);
            }
        }
    }
    if let Some(obs) = ctx.observer.as_deref_mut() {
        let (kind, bytes) = match (shp, atom) {
            (Some((b, n, _, _, true)), _) => (AccessKind::Store, (b * n) as u32),
            (Some((b, n, _, _, false)), _) => (AccessKind::Load, (b * n) as u32),
            (None, Some((_, wide))) => (AccessKind::Atomic, if wide { 8 } else { 4 }),
            (None, None) => return Ok(()),
        };
        obs.access(&MemRecord {
            kind,
            bytes,
            policy: m.policy,
            exec: seen,
            addrs: &addrs,
        });
    }
    Ok(())
}

/// gfx90a `buffer_store_lds_dword`: "Store one DWORD from LDS memory to system memory
/// without utilizing VGPRs" (CDNA2 ISA guide, via gem5's `.arch` descriptions). The
/// LDS side is addressed as the LDS-DMA loads address it in the other direction
/// ([`super::flat::lds_dma_addr`]: M0 + instruction offset, then 4 bytes per lane); the
/// memory side as every buffer access (the instruction has no VGPR address, so only the
/// instruction offset, `soffset` and ADD_TID place it), range checked per dword. An LDS
/// address outside the allocation reads 0, as DS loads do.
fn store_lds_dword(w: &mut Wave, ctx: &mut ExecCtx<'_>, i: &Inst) -> Result<(), FaultReason> {
    let m = &i.mem;
    let r = Rsrc::read(w, m.sbase as usize, ctx.prog.target().family())?;
    let soffset = w.sread(m.soffset as u16, 0) as u64;
    let lds0 = super::flat::lds_dma_addr(w, m.offset);
    let exec = w.exec();
    w.counters.vm += 1;
    let mut addrs = [0u64; LANES];
    let mut seen = 0u64;
    for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
        let (index, off) = r.lane(w, m, l);
        if !r.in_range(index, off, 4, 4) {
            continue;
        }
        let mut v = [0u32; 1];
        let at = lds0.wrapping_add(4 * l as u64);
        load(w, ctx, l, Place::Lds(at), &mut v, 4)?;
        let a = r.addr(soffset, index, off);
        store(w, ctx, l, Place::Global(a), &v, 4)?;
        addrs[l] = a;
        seen |= 1 << l;
    }
    if let Some(obs) = ctx.observer.as_deref_mut() {
        obs.access(&MemRecord {
            kind: AccessKind::Store,
            bytes: 4,
            policy: m.policy,
            exec: seen,
            addrs: &addrs,
        });
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Records what a cache model would see.
    #[derive(Default)]
    struct Seen(Vec<(AccessKind, u32, u64, u64)>);

    impl super::super::MemObserver for Seen {
        fn access(&mut self, rec: &MemRecord<'_>) {
            let first = rec.addrs[rec.exec.trailing_zeros() as usize % LANES];
            self.0.push((rec.kind, rec.bytes, rec.exec, first));
        }
    }

    #[test]
    fn buffer_accesses_reach_the_cache_observer() {
        // gfx942 (llvm-mc-22): buffer_load_dword v1, v0, s[4:7], 0 offen;
        // buffer_store_dword v1, v0, s[4:7], 0 offen offset:4
        let words = [0xE050_1000u32, 0x8001_0100, 0xE070_1004, 0x8001_0100];
        let text: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let prog = super::super::Program::new(crate::Target::Gfx942, 0x1000, &text);
        let mut mem = crate::memory::DeviceMemory::new();
        let base = mem.allocate(4096, 256).unwrap();
        let mut w = Wave::new(64, 0x1000);
        w.set_exec(0xff);
        // Raw buffer: base, stride 0, 4096 records, dword format.
        w.set_sgpr64(4, base);
        w.set_sgpr(6, 4096);
        w.set_sgpr(7, 4 << 15);
        for l in 0..8 {
            w.set_vgpr(0, l, 4 * l as u32);
        }
        let mut lds = [0u8; 0];
        let mut seen = Seen::default();
        let mut ctx = ExecCtx {
            prog: &prog,
            mem: (&mem).into(),
            lds: &mut lds,
            observer: Some(&mut seen),
        };
        w.run(&mut ctx, 2);
        assert_eq!(
            seen.0,
            [
                (AccessKind::Load, 4, 0xff, base),
                (AccessKind::Store, 4, 0xff, base + 4)
            ]
        );
    }

    fn gfx12(d: [u32; 4]) -> Rsrc {
        let mut w = Wave::new(32, 0);
        for (k, v) in d.iter().enumerate() {
            w.set_sgpr(8 + k, *v);
        }
        Rsrc::read(&w, 8, Family::Gfx12).unwrap()
    }

    #[test]
    fn gfx12_descriptor_fields() {
        // base 0x1234_5678_9abc, stride 8, swizzle off, 100 records, index stride 32,
        // add_tid, oob_select 1, format 32_UINT (0x14).
        let r = gfx12([
            0x5678_9abc,
            0x1234 | 8 << 16,
            100,
            1 << 28 | 1 << 23 | 2 << 21 | 0x14 << 12,
        ]);
        assert_eq!(r.base, 0x1234_5678_9abc);
        assert_eq!(r.stride, 8);
        assert_eq!(r.num_records, 100);
        assert!(r.swizzle.is_none() && r.add_tid);
        assert_eq!(r.oob, Oob::Index);
        assert!(r.in_range(99, 100, 4, 4) && !r.in_range(100, 0, 4, 4));
        // swizzle_enable 3 = 16-byte elements, index stride 64.
        let r = gfx12([0, 3 << 30 | 16 << 16, 64, 3 << 28 | 3 << 21]);
        assert_eq!(r.swizzle, Some((16, 64)));
        // Raw (oob 3): offset + payload against num_records, per dword.
        let r = gfx12([0, 0, 10, 3 << 28]);
        assert!(r.in_range(0, 6, 4, 4) && !r.in_range(0, 7, 4, 4));
        // oob 0: offset within the stride.
        let r = gfx12([0, 8 << 16, 4, 0]);
        assert!(r.in_range(3, 4, 4, 4) && !r.in_range(3, 5, 4, 4) && !r.in_range(4, 0, 4, 4));
        let mut w = Wave::new(32, 0);
        w.set_sgpr(11, 1 << 18);
        assert!(Rsrc::read(&w, 8, Family::Gfx12).is_err());
    }
}
