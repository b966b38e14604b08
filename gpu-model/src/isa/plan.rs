//! Decode plans: per target, the generated tables compiled once into the checks the
//! decoder's fast path needs (a reject mask and a short operand check list per opcode and
//! operand-syntax variant), so that decoding a valid instruction is a few loads and masks.
//!
//! The plan only ever *accepts*: whenever it finds anything unusual (an extension dword,
//! VOPD, images, an invalid field, a truncated literal) [`decode_fast`] returns `None` and
//! the full decoder runs, which produces the error (or the rarer encodings) exactly as
//! before. A unit test checks both paths agree on random words for every target.

use super::decode::{table, Inst};
use super::layout::{self, Field, Format, Layout, Role, F};
use super::table::{Entry, Opnd, Table};
use super::Op;
use crate::target::{Family, Target};
use std::sync::OnceLock;

/// Operand checks a slot holds at most (entries with more take the full decoder).
const MAX_CHECKS: usize = 7;

/// Everything the fast path needs of one opcode in one operand-syntax variant, in one
/// cache line, so that a decode costs one table load after the opcode index.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(64))]
struct Slot {
    /// Instruction bits that must be zero (fields LLVM requires to be zero, modifiers it
    /// rejects for this opcode and variant, the GFX12 buffer offset's bit 23).
    reject: u128,
    /// Layout the entry's fields are read with.
    lay: &'static Layout,
    /// Index of the table entry (`u16::MAX`: no such opcode, or not for the fast path).
    entry: u16,
    op: Op,
    format: Format,
    /// Variants with a slot: this one (variant 0) and `more..more + nvar - 1`.
    nvar: u8,
    /// Operand checks in `chk`.
    nchk: u8,
    /// Whether the variant exists (LLVM prints a syntax for it).
    ok: bool,
    /// Index in [`Plan::more`] of the slot of variant 1.
    more: u32,
    chk: [Check; MAX_CHECKS],
}

// One cache line per slot (the point of the layout).
const _: () = assert!(std::mem::size_of::<Slot>() == 64);

/// An operand to check: a scalar-code field against its class, or the `K` literal.
#[derive(Debug, Clone, Copy, Default)]
struct Check {
    /// Lowest bit of the field.
    lo: u8,
    /// Field width in bits.
    bits: u8,
    /// Index into [`Plan::classes`].
    class: u8,
    /// [`LIT_OK`], [`KLIT`].
    flags: u8,
}

/// Code 255 takes the literal dword (a 9-bit or 8-bit source of a format with literals).
const LIT_OK: u8 = 1;
/// The operand is the `K` literal (no field).
const KLIT: u8 = 2;

/// A slot that sends every word to the full decoder.
const NONE: Slot = Slot {
    reject: 0,
    lay: &layout::GFX9_IDENT[0],
    entry: u16::MAX,
    op: Op::SNop,
    format: Format::Sop1,
    nvar: 0,
    nchk: 0,
    ok: false,
    more: 0,
    chk: [Check {
        lo: 0,
        bits: 0,
        class: 0,
        flags: 0,
    }; MAX_CHECKS],
};

/// The compiled tables of one target and wave size.
#[derive(Debug)]
pub(crate) struct Plan {
    /// Per format: start of its opcodes in `slots`, and how many.
    ix_at: [(u32, u32); Format::ALL.len()],
    /// Variant 0 of every opcode, all formats back to back.
    slots: Vec<Slot>,
    /// Variants 1 and up.
    more: Vec<Slot>,
    /// Per operand class: bit `c` set when code `c` (0..511) is valid.
    classes: Vec<[u64; 8]>,
}

/// The instruction bits a field covers.
fn field_mask(fl: Field) -> u128 {
    ((1u128 << fl.bits) - 1) << fl.lo
}

impl Plan {
    /// Compiles a target's table.
    fn build(gfx12: bool, tab: &'static Table) -> Plan {
        let classes = tab
            .classes
            .iter()
            .map(|c| {
                let mut b = [0u64; 8];
                for code in 0..512usize {
                    let ok = if code >= 256 {
                        c.vgpr
                    } else {
                        c.names.get(code).is_some_and(|&s| s != 0)
                    };
                    if ok {
                        b[code / 64] |= 1 << (code % 64);
                    }
                }
                b
            })
            .collect();
        let mut p = Plan {
            ix_at: [(0, 0); Format::ALL.len()],
            slots: Vec::new(),
            more: Vec::new(),
            classes,
        };
        for f in Format::ALL {
            let len = tab
                .index
                .iter()
                .filter(|(g, _)| *g == f)
                .map(|(_, s)| s.len())
                .max()
                .unwrap_or(0);
            p.ix_at[f as usize] = (p.slots.len() as u32, len as u32);
            for op in 0..len as u32 {
                let s = match tab.lookup(f, op) {
                    Some(ei) => p.entry_slots(gfx12, tab, ei),
                    None => NONE,
                };
                p.slots.push(s);
            }
        }
        p
    }

    /// The slot of an entry's variant 0 (the others go to `more`).
    fn entry_slots(&mut self, gfx12: bool, tab: &'static Table, ei: u16) -> Slot {
        let e = &tab.entries[usize::from(ei)];
        let Some(lay) = layout::layout(gfx12, e.format) else {
            return NONE;
        };
        // (v_mfma_ld_scale_b32 may open a gfx950 VOP3PX2 pair: see `decode_full`.)
        if matches!(
            e.format,
            Format::Vopd | Format::Vsample | Format::Mimg | Format::Vimage | Format::Vop3px2
        ) || e.variants.len() > 16
            || !e.addr.is_empty()
            || e.op == super::Op::VMfmaLdScaleB32
        {
            return NONE;
        }
        let slot = |v: usize| -> Slot {
            // A variant LLVM rejects, or one with more checks than a slot holds.
            let Some((chk, nchk)) = e.variants[v].and_then(|o| checks(lay, o)) else {
                return Slot { lay, ..NONE };
            };
            Slot {
                reject: reject_mask(gfx12, e, lay, v),
                lay,
                entry: ei,
                op: e.op,
                format: e.format,
                nvar: e.variants.len() as u8,
                nchk,
                ok: true,
                more: 0,
                chk,
            }
        };
        let more = self.more.len() as u32;
        for v in 1..e.variants.len() {
            let s = slot(v);
            self.more.push(s);
        }
        let mut s0 = if e.variants.is_empty() { NONE } else { slot(0) };
        s0.more = more;
        s0.nvar = e.variants.len() as u8;
        s0
    }
}

/// The operand checks of a syntax (`None`: more than a slot holds, a class index above
/// `u8`, or a field wider than 9 bits).
fn checks(lay: &Layout, ops: &[Opnd]) -> Option<([Check; MAX_CHECKS], u8)> {
    let mut out = [Check::default(); MAX_CHECKS];
    let mut n = 0;
    for o in ops {
        let c = match *o {
            Opnd::KLit => Check {
                flags: KLIT,
                ..Check::default()
            },
            Opnd::Reg { field, class, .. } if class != u16::MAX => {
                let Some(fl) = lay.field(field) else { continue };
                // Codes index a 512-bit set.
                if fl.bits > 9 {
                    return None;
                }
                Check {
                    lo: fl.lo,
                    bits: fl.bits,
                    class: u8::try_from(class).ok()?,
                    flags: if lay.literal && matches!(fl.role, Role::Src9 | Role::Ssrc8) {
                        LIT_OK
                    } else {
                        0
                    },
                }
            }
            _ => continue,
        };
        *out.get_mut(n)? = c;
        n += 1;
    }
    Some((out, n as u8))
}

/// The bits of an entry's variant that must be zero: fields the entry requires to be
/// zero, modifiers LLVM rejects in the variant, the GFX12 buffer offset's bit 23.
fn reject_mask(gfx12: bool, e: &Entry, lay: &Layout, variant: usize) -> u128 {
    let mut m = 0u128;
    let bad = e.vbad.get(variant).copied().unwrap_or(e.bad);
    for (i, (f, v)) in layout::mod_probes(gfx12, lay.format).iter().enumerate() {
        if bad & 1u32.checked_shl(i as u32).unwrap_or(0) == 0 {
            continue;
        }
        let Some(fl) = lay.field(*f) else { continue };
        m |= match f {
            F::OpSelHi | F::OpSelHi2 => 0,
            F::Offset | F::Offset0 | F::Offset1 | F::Fmt | F::Dfmt | F::Nfmt | F::Simm16 => {
                field_mask(fl)
            }
            _ => (u128::from(*v) << fl.lo) & field_mask(fl),
        };
    }
    for fl in lay.fields {
        if e.zero & 1u128.checked_shl(u32::from(fl.name as u8)).unwrap_or(0) != 0 {
            m |= field_mask(*fl);
        }
    }
    if gfx12 && matches!(e.format, Format::Mubuf | Format::Mtbuf) {
        if let Some(fl) = lay.field(F::Offset) {
            if fl.bits > 23 {
                m |= field_mask(fl) & !((1u128 << (fl.lo + 23)) - 1);
            }
        }
    }
    m
}

/// The plan of a target and wave size, compiled on first use.
#[inline]
fn plan(target: Target, wave32: bool) -> &'static Plan {
    // Two per target (wave32, wave64): `Target` is a fieldless enum, so the index is in
    // range.
    static PLANS: [OnceLock<Plan>; 2 * Target::ALL.len()] =
        [const { OnceLock::new() }; 2 * Target::ALL.len()];
    let gfx12 = target.family() == Family::Gfx12;
    let w32 = wave32 && gfx12;
    PLANS[target as usize * 2 + usize::from(w32)]
        .get_or_init(|| Plan::build(gfx12, table(target, w32)))
}

#[inline(always)]
fn word(b: &[u8], i: usize) -> Option<u32> {
    let s = b.get(4 * i..4 * i + 4)?;
    Some(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

/// Decodes a plain valid instruction through the target's plan; `None` means "ask the
/// full decoder" (invalid, truncated, or an encoding the plan leaves to it).
#[inline]
pub(crate) fn decode_fast(target: Target, bytes: &[u8], wave32: bool) -> Option<Inst> {
    let gfx12 = target.family() == Family::Gfx12;
    let w0 = word(bytes, 0)?;
    let id = layout::identify(gfx12, w0)?;
    // Extension dwords (DPP/SDWA after VOP1/VOP2/VOPC, GFX12 VOP3 DPP) go the full way.
    match id.format {
        Format::Vop1 | Format::Vop2 | Format::Vopc => {
            let s0 = w0 & 0x1FF;
            if s0 == 250 || (gfx12 && matches!(s0, 233 | 234)) || (!gfx12 && s0 == 249) {
                return None;
            }
        }
        Format::Vop3 if gfx12 => {
            let s0 = word(bytes, 1)? & 0x1FF;
            if matches!(s0, 233 | 234 | 250) {
                return None;
            }
        }
        _ => {}
    }
    let n = usize::from(id.dwords);
    let mut bits = u128::from(w0);
    for i in 1..n {
        bits |= u128::from(word(bytes, i)?) << (32 * i);
    }
    let p = plan(target, wave32);
    let opcode = layout::get(bits, id.op_field());
    let (at, len) = p.ix_at[id.format as usize];
    if opcode >= len {
        return None;
    }
    let mut s = &p.slots[(at + opcode) as usize];
    let variant = layout::variant(gfx12, s.lay, bits);
    if variant != 0 {
        if variant >= usize::from(s.nvar) {
            return None;
        }
        s = p.more.get(s.more as usize + variant - 1)?;
    }
    if !s.ok || bits & s.reject != 0 {
        return None;
    }
    let mut need_lit = false;
    for c in &s.chk[..usize::from(s.nchk)] {
        if c.flags & KLIT != 0 {
            need_lit = true;
            continue;
        }
        let code = (bits >> c.lo) as u32 & ((1 << c.bits) - 1);
        if code == 255 && c.flags & LIT_OK != 0 {
            need_lit = true;
        } else if p.classes[usize::from(c.class)][(code / 64) as usize] & (1 << (code % 64)) == 0 {
            return None;
        }
    }
    let (literal, len) = if need_lit {
        (Some(word(bytes, n)?), 4 * n + 4)
    } else {
        (None, 4 * n)
    };
    // MFMA/SMFMAC with AGPR operands (acc_cd, bit 15; acc, bits 60:59): the full
    // decoder checks that their tuples end by a255 (a mask test keeps this path short).
    if s.format == Format::Mai && bits & (1 << 15 | 3 << 59) != 0 {
        return None;
    }
    Some(Inst {
        bits,
        literal,
        target,
        op: s.op,
        format: s.format,
        len: len as u8,
        wave32: wave32 && gfx12,
        variant: variant as u8,
        entry: s.entry,
        entry_y: u16::MAX,
    })
}

#[cfg(test)]
mod tests {
    use super::super::decode::{decode, decode_full};
    use super::*;

    /// Random instruction bytes whose dword0 carries a format's identification bits (so
    /// most words reach the opcode tables), the rest random.
    fn words(seed: u64, gfx12: bool, n: usize) -> Vec<[u8; 20]> {
        let mut s = seed | 1;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let ident = if gfx12 {
            layout::GFX12_IDENT
        } else {
            layout::GFX9_IDENT
        };
        (0..n)
            .map(|_| {
                let mut b = [0u8; 20];
                for c in b.chunks_mut(8) {
                    let r = next().to_le_bytes();
                    c.copy_from_slice(&r[..c.len()]);
                }
                let l = &ident[next() as usize % ident.len()];
                let w0 = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                let mut w0 = (w0 & !l.mask) | l.value;
                // Often a small source code, so that scalar checks pass and literals occur.
                if next() % 4 == 0 {
                    w0 = (w0 & !0x1FF) | 255;
                }
                b[..4].copy_from_slice(&w0.to_le_bytes());
                b
            })
            .collect()
    }

    #[test]
    fn fast_path_agrees_with_full_decoder() {
        for t in [
            Target::Gfx90a,
            Target::Gfx942,
            Target::Gfx950,
            Target::Gfx1200,
            Target::Gfx1201,
        ] {
            for w32 in [false, true] {
                let gfx12 = t.family() == Family::Gfx12;
                let (mut fast, mut ok) = (0, 0);
                for (i, b) in words(0x9E37_79B9 + t as u64, gfx12, 200_000)
                    .iter()
                    .enumerate()
                {
                    // Every length, so truncated words and literals are covered too.
                    let b = &b[..4 + i % 17];
                    let full = decode_full(t, b, w32);
                    assert_eq!(decode(t, b, w32), full, "{t:?} w32={w32} bytes {b:02x?}");
                    fast += usize::from(decode_fast(t, b, w32).is_some());
                    ok += usize::from(full.is_ok());
                }
                // The plan must carry most valid words, not hand them all back.
                assert!(fast * 10 > ok * 8, "{t:?}: {fast} fast of {ok} valid");
            }
        }
    }
}
