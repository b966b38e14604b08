//! Typed buffer loads and stores (MTBUF `tbuffer_load_format_*`, `tbuffer_store_format_*`
//! and their d16 forms, GFX9 and GFX12): the instruction's format converts between a
//! memory element and up to four VGPR components.
//!
//! Formats (Vega / CDNA3 ISA guides, "Buffer Data Formats" and "Numeric Formats"; LLVM
//! `SIDefines.h` `DFMT_*`/`NFMT_*`): dfmt 1 `8`, 2 `16`, 3 `8_8`, 4 `32`, 5 `16_16`,
//! 10 `8_8_8_8`, 11 `32_32`, 12 `16_16_16_16`, 13 `32_32_32`, 14 `32_32_32_32`, components
//! x, y, z, w from the lowest address up; nfmt 0 unorm (`v / (2^b - 1)`), 1 snorm
//! (`max(v / (2^(b-1) - 1), -1)`), 2 uscaled, 3 sscaled (the integer as a float), 4 uint,
//! 5 sint (zero/sign-extended), 7 float (16- and 32-bit components). GFX12 has one 7-bit
//! unified format code instead; its meaning is read off the name llvm-mc-22 prints for it
//! (`BUF_FMT_<component bits>_<numeric format>`, learned by `tools/isa-gen` into the
//! opcode tables; code 1, which LLVM omits, is `BUF_FMT_8_UNORM` per LLVM's
//! `gfx12_asm_vbuffer_mtbuf.s`) and translated into the GFX9 pair when decoding
//! ([`gfx12_format`]).
//!
//! Loads convert every component read; stores are modelled for uint, sint and float
//! (truncation to the component width, f32 to f16 rounding to nearest even). The d16 forms
//! move 16-bit components packed two per VGPR (x in the low half; LLVM: "converted to a
//! 16-bit format", packed on GFX9 and later); they are modelled where that conversion is
//! exact: 16-bit uint/sint/float components (moved unchanged) and 8-bit uint/sint ones
//! (zero/sign-extended on loads, truncated on stores). A d16 load leaves the high half of
//! the last register unchanged when the component count is odd, as the d16 MUBUF loads do
//! with the half they do not write. Not modelled, refused by name: the packed formats
//! (10_11_11, 11_11_10, 10_10_10_2, 2_10_10_10), nfmt 6, loads of more components than the
//! format has, stores of fewer, the float-to-normalized stores (their rounding is not given
//! by the ISA guides) and d16 conversions other than the exact ones above.
//!
//! Addressing and range checking are those of the untyped buffer instructions
//! ([`super::mubuf`]) with the whole element as the access (all or nothing).

use super::flat::{load, store, Place};
use super::inst::Inst;
use super::mubuf::Rsrc;
use super::wave::{Wave, LANES};
use super::{AccessKind, ExecCtx, FaultReason, MemRecord};
use crate::isa::Op;

/// The shape of a typed buffer operation.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Typed {
    /// Components moved.
    comps: usize,
    is_store: bool,
    /// 16-bit components packed two per VGPR.
    d16: bool,
}

/// The shape of a typed buffer operation, `None` for every other operation.
pub(crate) fn typed(op: Op) -> Option<Typed> {
    use Op::*;
    let (comps, is_store, d16) = match op {
        TbufferLoadFormatX => (1, false, false),
        TbufferLoadFormatXy => (2, false, false),
        TbufferLoadFormatXyz => (3, false, false),
        TbufferLoadFormatXyzw => (4, false, false),
        TbufferStoreFormatX => (1, true, false),
        TbufferStoreFormatXy => (2, true, false),
        TbufferStoreFormatXyz => (3, true, false),
        TbufferStoreFormatXyzw => (4, true, false),
        TbufferLoadFormatD16X => (1, false, true),
        TbufferLoadFormatD16Xy => (2, false, true),
        TbufferLoadFormatD16Xyz => (3, false, true),
        TbufferLoadFormatD16Xyzw => (4, false, true),
        TbufferStoreFormatD16X => (1, true, true),
        TbufferStoreFormatD16Xy => (2, true, true),
        TbufferStoreFormatD16Xyz => (3, true, true),
        TbufferStoreFormatD16Xyzw => (4, true, true),
        _ => return None,
    };
    Some(Typed {
        comps,
        is_store,
        d16,
    })
}

/// GFX9 `dfmt | nfmt << 4` of GFX12 unified format `code` on `target`, from the format's
/// name (`BUF_FMT_16_16_FLOAT` is dfmt 5 `16_16`, nfmt 7 float); 0 (invalid, refused when
/// executed) for the invalid, reserved and packed formats.
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
    let mut n = 0;
    let mut bits = 0;
    for b in sizes.split('_') {
        let Ok(b) = b.parse::<u32>() else { return 0 };
        if n > 0 && b != bits {
            // A packed format (10_11_11, 2_10_10_10, ...): not modelled.
            return 0;
        }
        (n, bits) = (n + 1, b);
    }
    let dfmt = match (n, bits) {
        (1, 8) => 1,
        (1, 16) => 2,
        (2, 8) => 3,
        (1, 32) => 4,
        (2, 16) => 5,
        (4, 8) => 10,
        (2, 32) => 11,
        (4, 16) => 12,
        (3, 32) => 13,
        (4, 32) => 14,
        _ => return 0,
    };
    dfmt | nfmt << 4
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

/// The low `bits` bits set.
fn mask(bits: u32) -> u32 {
    if bits == 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
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

/// Whether a d16 form converts exactly between a `bits`-wide component of numeric format
/// `nfmt` and 16 bits (see the module doc).
fn d16_exact(bits: u32, nfmt: u32) -> bool {
    match bits {
        16 => matches!(nfmt, 4 | 5 | 7),
        8 => matches!(nfmt, 4 | 5),
        _ => false,
    }
}

/// Executes a typed buffer load or store.
#[inline(never)]
pub(crate) fn exec(
    w: &mut Wave,
    ctx: &mut ExecCtx<'_>,
    i: &Inst,
    t: Typed,
) -> Result<(), FaultReason> {
    let Typed {
        comps,
        is_store,
        d16,
    } = t;
    let (dfmt, nfmt) = ((i.mem.fmt & 0xf) as u32, (i.mem.fmt >> 4) as u32);
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
    if d16 && !d16_exact(bits, nfmt) {
        return Err(FaultReason::UnsupportedForm(
            "tbuffer d16 conversion other than 16-bit uint/sint/float or 8-bit uint/sint",
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
            // d16: component c in half c % 2 of register c / 2.
            let (reg, shift) = if d16 {
                (vdata + c / 2, 16 * (c % 2) as u32)
            } else {
                (vdata + c, 0)
            };
            if is_store {
                if ok {
                    let v = w.vgpr(reg, l) >> shift;
                    let v = if d16 {
                        v & 0xffff
                    } else {
                        to_memory(v, bits, nfmt)
                    };
                    store(w, ctx, l, p, &[v & mask(bits)], step as usize)?;
                }
                continue;
            }
            let mut b = [0u32; 1];
            if ok {
                load(w, ctx, l, p, &mut b, step as usize)?;
            }
            let v = to_vgpr(b[0], bits, nfmt);
            if d16 {
                let old = w.vgpr(reg, l) & !(0xffff << shift);
                w.set_vgpr(reg, l, old | (v & 0xffff) << shift);
            } else {
                w.set_vgpr(reg, l, v);
            }
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
