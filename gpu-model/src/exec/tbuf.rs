//! GFX9 typed buffer loads and stores (MTBUF `tbuffer_load_format_*`,
//! `tbuffer_store_format_*`): the instruction's data format (dfmt) and numeric format
//! (nfmt) convert between a memory element and up to four VGPR components.
//!
//! Formats (Vega / CDNA3 ISA guides, "Buffer Data Formats" and "Numeric Formats"; LLVM
//! `SIDefines.h` `DFMT_*`/`NFMT_*`): dfmt 1 `8`, 2 `16`, 3 `8_8`, 4 `32`, 5 `16_16`,
//! 10 `8_8_8_8`, 11 `32_32`, 12 `16_16_16_16`, 13 `32_32_32`, 14 `32_32_32_32`, components
//! x, y, z, w from the lowest address up; nfmt 0 unorm (`v / (2^b - 1)`), 1 snorm
//! (`max(v / (2^(b-1) - 1), -1)`), 2 uscaled, 3 sscaled (the integer as a float), 4 uint,
//! 5 sint (zero/sign-extended), 7 float (16- and 32-bit components). Loads convert every
//! component read; stores are modelled for uint, sint and float (truncation to the
//! component width, f32 to f16 rounding to nearest even). Not modelled, refused by
//! name: the packed formats (10_11_11, 11_11_10, 10_10_10_2, 2_10_10_10), nfmt 6, loads
//! of more components than the format has, stores of fewer, and the float-to-normalized
//! stores (their rounding is not given by the ISA guides).
//!
//! Addressing and range checking are those of the untyped buffer instructions
//! ([`super::mubuf`]) with the whole element as the access (all or nothing).

use super::decode::Inst;
use super::flat::{load, store, Place};
use super::mubuf::Rsrc;
use super::op::Op;
use super::wave::{Wave, LANES};
use super::{AccessKind, ExecCtx, FaultReason, MemRecord};

/// (components the instruction moves, is a store) of a typed buffer operation.
pub(crate) fn typed(op: Op) -> Option<(usize, bool)> {
    use Op::*;
    Some(match op {
        TLoadFormatX => (1, false),
        TLoadFormatXy => (2, false),
        TLoadFormatXyz => (3, false),
        TLoadFormatXyzw => (4, false),
        TStoreFormatX => (1, true),
        TStoreFormatXy => (2, true),
        TStoreFormatXyz => (3, true),
        TStoreFormatXyzw => (4, true),
        _ => return None,
    })
}

/// (component count, bits per component) of a data format.
fn data_format(dfmt: u32) -> Option<(usize, u32)> {
    Some(match dfmt {
        1 => (1, 8),
        2 => (1, 16),
        3 => (2, 8),
        4 => (1, 32),
        5 => (2, 16),
        10 => (4, 8),
        11 => (2, 32),
        12 => (4, 16),
        13 => (3, 32),
        14 => (4, 32),
        _ => return None,
    })
}

/// A memory component (`bits` wide) as the VGPR value of numeric format `nfmt`.
fn to_vgpr(raw: u32, bits: u32, nfmt: u32) -> u32 {
    let max = if bits == 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
    };
    let u = raw & max;
    let s = ((u << (32 - bits)) as i32 >> (32 - bits)) as i64;
    match nfmt {
        0 => ((u as f64 / max as f64) as f32).to_bits(),
        1 => {
            let m = ((1u64 << (bits - 1)) - 1) as f64;
            ((s as f64 / m).max(-1.0) as f32).to_bits()
        }
        2 => (u as f32).to_bits(),
        3 => (s as f32).to_bits(),
        4 => u,
        5 => s as u32,
        // float: 16-bit halves, 32-bit as they are.
        _ if bits == 16 => half::f16::from_bits(u as u16).to_f32().to_bits(),
        _ => u,
    }
}

/// A VGPR value as the memory component of numeric format `nfmt` (uint, sint, float).
fn to_memory(v: u32, bits: u32, nfmt: u32) -> u32 {
    match (nfmt, bits) {
        (7, 16) => half::f16::from_f32(f32::from_bits(v)).to_bits() as u32,
        (_, 32) => v,
        _ => v & ((1u32 << bits) - 1),
    }
}

/// Executes a typed buffer load or store of `comps` components.
#[inline(never)]
pub(crate) fn exec(
    w: &mut Wave,
    ctx: &mut ExecCtx<'_>,
    i: &Inst,
    (comps, is_store): (usize, bool),
) -> Result<(), FaultReason> {
    let (dfmt, nfmt) = ((i.w0 >> 19) & 0xf, (i.w0 >> 23) & 7);
    let Some((n, bits)) = data_format(dfmt) else {
        return Err(FaultReason::UnsupportedForm(
            "tbuffer data format (packed 10/11-bit formats and reserved values)",
        ));
    };
    let float_ok = bits >= 16 || nfmt != 7;
    if nfmt == 6 || !float_ok {
        return Err(FaultReason::UnsupportedForm("tbuffer numeric format"));
    }
    if !is_store && comps > n {
        return Err(FaultReason::UnsupportedForm(
            "tbuffer load of more components than its data format has",
        ));
    }
    if is_store && (comps != n || nfmt < 4 || nfmt == 6) {
        return Err(FaultReason::UnsupportedForm(
            "tbuffer store other than uint/sint/float of the format's full component count",
        ));
    }
    let m = &i.mem;
    let elem = n * bits as usize / 8;
    let vdata = m.data as usize;
    let soffset = w.sread(m.soffset as u16, 0) as u64;
    let r = Rsrc::read(w, m.sbase as usize, ctx.prog.target().family())?;
    let exec = w.exec();
    w.counters.vm += 1;
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
        let step = (bits / 8) as u64;
        for c in 0..comps {
            let p = Place::Global(a + step * c as u64);
            if is_store {
                if ok {
                    let v = to_memory(w.vgpr(vdata + c, l), bits, nfmt);
                    store(w, ctx, l, p, &[v], step as usize)?;
                }
                continue;
            }
            let mut b = [0u32; 1];
            if ok {
                load(w, ctx, l, p, &mut b, step as usize)?;
            }
            w.set_vgpr(vdata + c, l, to_vgpr(b[0], bits, nfmt));
        }
    }
    if let Some(obs) = ctx.observer.as_deref_mut() {
        obs.access(&MemRecord {
            kind: if is_store {
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
