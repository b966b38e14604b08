//! Formatted buffer loads and stores: typed ones (MTBUF `tbuffer_load_format_*`,
//! `tbuffer_store_format_*` and their d16 forms, GFX9 and GFX12), whose format is in the
//! instruction, and the formatted untyped ones (`buffer_load_format_*`,
//! `buffer_store_format_*`, their d16 and d16_hi forms), whose format and destination
//! selects are in the buffer descriptor. The element formats and the conversions are
//! [`super::format`]'s.
//!
//! What moves (Vega/CDNA3/RDNA4 pseudocode: `VDATA[31:0] = ConvertFromFormat(MEM[addr +
//! ChannelOffsetX()])`, ... one register per component; the d16 forms
//! `VDATA[15:0].b16 = 16'B(ConvertFromFormat(...))`, two components per register, x in the
//! low half, the unwritten half of an odd count's last register preserved; `d16_hi_x`
//! writes the high half and keeps the low one). Which component lands in register `j`
//! (CLRX `GcnMemHandling.md`, "MUBUF/MTBUF format conversion": typed accesses take the
//! identity, formatted untyped ones the descriptor's DST_SEL): select 0 gives 0, select
//! 1 the constant one of the numeric format, selects 4..7 the format's component x..w.
//! A select of a component the format lacks, reserved selects 2 and 3, typed loads of more
//! components than the format has, and stores of other than all the format's components
//! in identity order are refused (the guides describe none of them).
//!
//! An `INVALID` or reserved format (see [`super::format`]) makes the access one to an
//! unbound resource: loads write 0 to every register they name (d16: every half they
//! name), stores write nothing, and the cache observer sees no access.
//!
//! Addressing and range checking are those of the untyped buffer instructions
//! ([`super::mubuf`]) with the whole element as the access (all or nothing); an
//! out-of-range load converts an all-zero element (then the selects apply).

use super::flat::{load, store, Place};
use super::format::{Decoded, Fmt};
use super::inst::{Inst, Mem};
use super::mubuf::Rsrc;
use super::wave::{Wave, LANES};
use super::{AccessKind, ExecCtx, FaultReason, MemRecord};
use crate::isa::Op;

/// Where the 16-bit values of a d16 form go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum D16 {
    /// Full 32-bit registers.
    No,
    /// Two per register, x in the low half.
    Packed,
    /// One value in the high half (`*_d16_hi_x`).
    Hi,
}

/// The shape of a formatted buffer operation.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Formatted {
    /// Components moved.
    comps: usize,
    is_store: bool,
    d16: D16,
    /// The format is the instruction's (MTBUF), not the descriptor's.
    typed: bool,
}

/// The shape of a formatted buffer operation, `None` for every other operation.
pub(crate) fn formatted(op: Op) -> Option<Formatted> {
    use Op::*;
    let (comps, is_store, d16, typed) = match op {
        TbufferLoadFormatX => (1, false, D16::No, true),
        TbufferLoadFormatXy => (2, false, D16::No, true),
        TbufferLoadFormatXyz => (3, false, D16::No, true),
        TbufferLoadFormatXyzw => (4, false, D16::No, true),
        TbufferStoreFormatX => (1, true, D16::No, true),
        TbufferStoreFormatXy => (2, true, D16::No, true),
        TbufferStoreFormatXyz => (3, true, D16::No, true),
        TbufferStoreFormatXyzw => (4, true, D16::No, true),
        TbufferLoadFormatD16X => (1, false, D16::Packed, true),
        TbufferLoadFormatD16Xy => (2, false, D16::Packed, true),
        TbufferLoadFormatD16Xyz => (3, false, D16::Packed, true),
        TbufferLoadFormatD16Xyzw => (4, false, D16::Packed, true),
        TbufferStoreFormatD16X => (1, true, D16::Packed, true),
        TbufferStoreFormatD16Xy => (2, true, D16::Packed, true),
        TbufferStoreFormatD16Xyz => (3, true, D16::Packed, true),
        TbufferStoreFormatD16Xyzw => (4, true, D16::Packed, true),
        BufferLoadFormatX => (1, false, D16::No, false),
        BufferLoadFormatXy => (2, false, D16::No, false),
        BufferLoadFormatXyz => (3, false, D16::No, false),
        BufferLoadFormatXyzw => (4, false, D16::No, false),
        BufferStoreFormatX => (1, true, D16::No, false),
        BufferStoreFormatXy => (2, true, D16::No, false),
        BufferStoreFormatXyz => (3, true, D16::No, false),
        BufferStoreFormatXyzw => (4, true, D16::No, false),
        BufferLoadFormatD16X | BufferLoadD16FormatX => (1, false, D16::Packed, false),
        BufferLoadFormatD16Xy | BufferLoadD16FormatXy => (2, false, D16::Packed, false),
        BufferLoadFormatD16Xyz | BufferLoadD16FormatXyz => (3, false, D16::Packed, false),
        BufferLoadFormatD16Xyzw | BufferLoadD16FormatXyzw => (4, false, D16::Packed, false),
        BufferStoreFormatD16X | BufferStoreD16FormatX => (1, true, D16::Packed, false),
        BufferStoreFormatD16Xy | BufferStoreD16FormatXy => (2, true, D16::Packed, false),
        BufferStoreFormatD16Xyz | BufferStoreD16FormatXyz => (3, true, D16::Packed, false),
        BufferStoreFormatD16Xyzw | BufferStoreD16FormatXyzw => (4, true, D16::Packed, false),
        BufferLoadFormatD16HiX | BufferLoadD16HiFormatX => (1, false, D16::Hi, false),
        BufferStoreFormatD16HiX | BufferStoreD16HiFormatX => (1, true, D16::Hi, false),
        _ => return None,
    };
    Some(Formatted {
        comps,
        is_store,
        d16,
        typed,
    })
}

/// GFX9 `dfmt | nfmt << 4` of GFX12 unified format `code` on `target`, from the format's
/// name (`BUF_FMT_16_16_FLOAT` is dfmt 5 `16_16`, nfmt 7 float; the packed
/// `BUF_FMT_2_10_10_10_UINT` dfmt 9 `2_10_10_10`, nfmt 4); 0 (`INVALID`) for the invalid
/// code and the codes LLVM names no format for (reserved). Code 1, which LLVM prints
/// without a `format:`, is `BUF_FMT_8_UNORM` per LLVM's `gfx12_asm_vbuffer_mtbuf.s`.
pub(crate) fn gfx12_format(target: crate::Target, code: u32) -> u8 {
    let Some(text) = crate::isa::mtbuf_format_text(target, code) else {
        return 0;
    };
    let name = if text.is_empty() && code == 1 {
        "8_UNORM"
    } else {
        match text
            .strip_prefix("format:[BUF_FMT_")
            .and_then(|t| t.strip_suffix(']'))
        {
            Some(n) => n,
            None => return 0,
        }
    };
    let Some((sizes, num)) = name.rsplit_once('_') else {
        return 0;
    };
    let nfmt = match num {
        "UNORM" => 0,
        "SNORM" => 1,
        "USCALED" => 2,
        "SSCALED" => 3,
        "UINT" => 4,
        "SINT" => 5,
        "FLOAT" => 7,
        _ => return 0,
    };
    let dfmt = match sizes {
        "8" => 1,
        "16" => 2,
        "8_8" => 3,
        "32" => 4,
        "16_16" => 5,
        "10_11_11" => 6,
        "11_11_10" => 7,
        "10_10_10_2" => 8,
        "2_10_10_10" => 9,
        "8_8_8_8" => 10,
        "32_32" => 11,
        "16_16_16_16" => 12,
        "32_32_32" => 13,
        "32_32_32_32" => 14,
        _ => return 0,
    };
    dfmt | nfmt << 4
}

/// Identity destination selects.
const IDENTITY: [u8; 4] = [4, 5, 6, 7];

/// Refuses what the guides do not describe (see the module doc); run before any lane.
fn validate(t: Formatted, f: &Fmt, sel: &[u8; 4]) -> Result<(), FaultReason> {
    let d16 = t.d16 != D16::No;
    if t.is_store {
        if t.comps != f.n || sel[..f.n] != IDENTITY[..f.n] {
            return Err(FaultReason::UnsupportedForm(
                "formatted store of other than all the format's components in identity \
                 order (destination selects)",
            ));
        }
        for c in 0..f.n {
            f.check(c, d16, true)?;
        }
        return Ok(());
    }
    for &s in &sel[..t.comps] {
        match s {
            0 | 1 => {}
            4..=7 if usize::from(s - 4) < f.n => f.check(usize::from(s - 4), d16, false)?,
            _ if t.typed => {
                return Err(FaultReason::UnsupportedForm(
                    "tbuffer load of more components than its data format has",
                ))
            }
            _ => {
                return Err(FaultReason::UnsupportedForm(
                    "buffer format load whose destination select names a component the \
                     data format lacks (or a reserved select)",
                ))
            }
        }
    }
    Ok(())
}

/// Register and bit shift of the 32- or 16-bit value of component slot `j`.
#[inline]
fn slot(d16: D16, vdata: usize, j: usize) -> (usize, u32) {
    match d16 {
        D16::No => (vdata + j, 0),
        D16::Packed => (vdata + j / 2, 16 * (j % 2) as u32),
        D16::Hi => (vdata, 16),
    }
}

/// Executes a formatted buffer load or store.
#[inline(never)]
pub(crate) fn exec(
    w: &mut Wave,
    ctx: &mut ExecCtx<'_>,
    i: &Inst,
    t: Formatted,
) -> Result<(), FaultReason> {
    let m = &i.mem;
    let r = Rsrc::read(w, m.sbase as usize, ctx.prog.target().family())?;
    let (decoded, sel) = if t.typed {
        let (dfmt, nfmt) = ((m.fmt & 0xf) as u32, (m.fmt >> 4) as u32);
        (super::format::gfx9(dfmt, nfmt)?, IDENTITY)
    } else {
        r.format(ctx.prog.target())?
    };
    let vdata = m.data as usize;
    let exec = w.exec();
    // GFX9 `lds`: the one converted dword goes to LDS, as the untyped LDS-DMA loads do
    // (CLRX `GcnMemHandling.md`: LDS loads work for ... `BUFFER_LOAD_FORMAT_X`).
    let lds_dma = m.has(Mem::LDS_DMA);
    if lds_dma && (t.typed || t.is_store || t.comps != 1 || t.d16 != D16::No) {
        return Err(FaultReason::UnsupportedForm(
            "mubuf lds bit (LDS DMA) on a formatted access other than buffer_load_format_x",
        ));
    }
    let lds0 = super::flat::lds_dma_addr(w, m.offset);
    w.counters.vm += 1;
    let Decoded::Fmt(f) = decoded else {
        // Unbound: loads read zeros, stores do nothing.
        if lds_dma {
            for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
                let at = lds0.wrapping_add(4 * l as u64);
                store(w, ctx, l, Place::Lds(at), &[0], 4)?;
            }
            return Ok(());
        }
        if !t.is_store {
            for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
                for j in 0..t.comps {
                    let (reg, sh) = slot(t.d16, vdata, j);
                    let keep = if t.d16 == D16::No { 0 } else { !(0xffff << sh) };
                    let v = w.vgpr(reg, l) & keep;
                    w.set_vgpr(reg, l, v);
                }
            }
        }
        return Ok(());
    };
    validate(t, &f, &sel)?;
    let d16 = t.d16 != D16::No;
    let soffset = w.sread(m.soffset as u16, 0) as u64;
    let elem = f.bytes;
    let mut addrs = [0u64; LANES];
    let mut seen = 0u64;
    for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
        let (index, off) = r.lane(w, m, l);
        let ok = r.in_range(index, off, elem as u64, elem as u64);
        let a = r.addr(soffset, index, off);
        if ok {
            addrs[l] = a;
            seen |= 1 << l;
        }
        let mut e = [0u8; 16];
        if t.is_store {
            if !ok {
                continue;
            }
            for c in 0..f.n {
                let (reg, sh) = slot(t.d16, vdata, c);
                let v = w.vgpr(reg, l) >> sh;
                let raw = if d16 {
                    f.store16(c, v as u16)
                } else {
                    f.store32(c, v)
                };
                f.put(&mut e, c, raw);
            }
            write_element(w, ctx, l, a, &e[..elem])?;
            continue;
        }
        if ok {
            read_element(w, ctx, l, a, &mut e[..elem])?;
        }
        for (j, &s) in sel[..t.comps].iter().enumerate() {
            let v = match s {
                0 => 0,
                1 => f.one(d16),
                _ => {
                    let c = usize::from(s - 4);
                    let raw = f.raw(&e, c);
                    if d16 {
                        u32::from(f.load16(c, raw))
                    } else {
                        f.load32(c, raw)
                    }
                }
            };
            let (reg, sh) = slot(t.d16, vdata, j);
            if lds_dma {
                let at = lds0.wrapping_add(4 * l as u64);
                store(w, ctx, l, Place::Lds(at), &[v], 4)?;
            } else if d16 {
                let old = w.vgpr(reg, l) & !(0xffff << sh);
                w.set_vgpr(reg, l, old | (v & 0xffff) << sh);
            } else {
                w.set_vgpr(reg, l, v);
            }
        }
    }
    if let Some(obs) = ctx.observer.as_deref_mut() {
        obs.access(&MemRecord {
            kind: if t.is_store {
                AccessKind::Store
            } else {
                AccessKind::Load
            },
            bytes: elem as u32,
            policy: m.policy,
            exec: seen,
            addrs: &addrs,
        });
    }
    Ok(())
}

/// Reads one element (1, 2 or a multiple of 4 bytes) of global memory.
pub(crate) fn read_element(
    w: &Wave,
    ctx: &ExecCtx<'_>,
    l: usize,
    a: u64,
    e: &mut [u8],
) -> Result<(), FaultReason> {
    let p = Place::Global(a);
    if e.len() < 4 {
        let mut b = [0u32; 1];
        load(w, ctx, l, p, &mut b, e.len())?;
        let n = e.len();
        e.copy_from_slice(&b[0].to_le_bytes()[..n]);
        return Ok(());
    }
    let mut b = [0u32; 4];
    let n = e.len() / 4;
    load(w, ctx, l, p, &mut b[..n], 4)?;
    for (d, v) in e.chunks_exact_mut(4).zip(&b) {
        d.copy_from_slice(&v.to_le_bytes());
    }
    Ok(())
}

/// Writes one element (1, 2 or a multiple of 4 bytes) to global memory.
pub(crate) fn write_element(
    w: &Wave,
    ctx: &mut ExecCtx<'_>,
    l: usize,
    a: u64,
    e: &[u8],
) -> Result<(), FaultReason> {
    let p = Place::Global(a);
    if e.len() < 4 {
        let mut b = [0u8; 4];
        b[..e.len()].copy_from_slice(e);
        return store(w, ctx, l, p, &[u32::from_le_bytes(b)], e.len());
    }
    let mut b = [0u32; 4];
    let n = e.len() / 4;
    for (v, d) in b.iter_mut().zip(e.chunks_exact(4)) {
        *v = u32::from_le_bytes([d[0], d[1], d[2], d[3]]);
    }
    store(w, ctx, l, p, &b[..n], 4)
}
