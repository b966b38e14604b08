//! Learns the GFX12 dual-issue (VOPD) operations: per half (X, Y), every opcode's
//! mnemonic and operand syntax.
//!
//! A VOPD word holds two operations, so a probe needs a valid partner in the other half.
//! Every (X, Y) opcode pair is probed, with each half's unused second source both
//! nonzero and zero (LLVM rejects a nonzero unused field, e.g. vsrc1 of `v_dual_mov_b32`);
//! the first valid answer that names an opcode gives that half's text.

use crate::layout::{self, Format, F};
use crate::learn::{parse_reg, split_operands, Entry, Tables, Tok};
use crate::llvm::{Answer, Oracle};
use std::collections::BTreeMap;

/// Probe register numbers: distinct, and in different VGPR banks between the halves.
const SRCX0: u32 = 1;
const VSRCX1: u32 = 2;
const VDSTX: u32 = 4;
const SRCY0: u32 = 7;
const VSRCY1: u32 = 10;
/// VdstY field value 4 gives v9 (bit 0 = NOT vdstx bit 0).
const VDSTY_FIELD: u32 = 4;

/// The field of a probe register number (either half).
pub fn field_of_reg(n: u32) -> Option<F> {
    Some(match n {
        VDSTX => F::Vdst,
        SRCX0 => F::Src0,
        VSRCX1 => F::Vsrc1,
        SRCY0 => F::Src0Y,
        VSRCY1 => F::Vsrc1Y,
        n if n == 2 * VDSTY_FIELD + 1 => F::VdstY,
        _ => return None,
    })
}

/// The text of one half of a VOPD answer (`x :: y`).
pub fn half(text: &str, y: bool) -> &str {
    match text.split_once(" :: ") {
        Some((a, b)) => {
            if y {
                b
            } else {
                a
            }
        }
        None => text,
    }
}

fn vals(x: u32, y: u32, vx1: bool, vy1: bool) -> BTreeMap<F, u32> {
    let mut v = BTreeMap::new();
    v.insert(F::Op, x);
    v.insert(F::OpY, y);
    v.insert(F::Src0, 256 + SRCX0);
    v.insert(F::Vsrc1, if vx1 { VSRCX1 } else { 0 });
    v.insert(F::Vdst, VDSTX);
    v.insert(F::Src0Y, 256 + SRCY0);
    v.insert(F::Vsrc1Y, if vy1 { VSRCY1 } else { 0 });
    v.insert(F::VdstY, VDSTY_FIELD);
    v
}

fn tokens(text: &str, y: bool) -> Vec<Tok> {
    let (_, rest) = text.split_once(' ').unwrap_or((text, ""));
    let fields = if y {
        [
            (F::VdstY, 2 * VDSTY_FIELD + 1),
            (F::Src0Y, SRCY0),
            (F::Vsrc1Y, VSRCY1),
        ]
    } else {
        [(F::Vdst, VDSTX), (F::Src0, SRCX0), (F::Vsrc1, VSRCX1)]
    };
    split_operands(rest.trim())
        .iter()
        .map(|t| {
            // The oracle's padding dword (s_nop 0) read as the K literal.
            if t == "0xbf800000" {
                return Tok::KLit;
            }
            if let Some(('v', n, regs)) = parse_reg(t) {
                if let Some((f, _)) = fields.iter().find(|(_, r)| *r == n) {
                    return Tok::Reg {
                        field: *f,
                        cls: 'v',
                        regs,
                        class: None,
                        align: None,
                    };
                }
            }
            Tok::Text(t.clone())
        })
        .collect()
}

/// Learns both halves' opcodes into `t` (keys [`Format::Vopd`] for X and
/// [`Format::VopdY`] for Y; both use the VOPD layout).
pub fn learn(o: &mut Oracle, t: &mut Tables) {
    let Some(l) = layout::layout(true, Format::Vopd) else {
        return;
    };
    let nx = 1u32 << l.field(F::Op).map_or(0, |f| f.bits);
    let ny = 1u32 << l.field(F::OpY).map_or(0, |f| f.bits);
    // Nonzero unused sources first, so that a zero requirement is only recorded when
    // LLVM insists on it.
    let combos = [(true, true), (false, true), (true, false), (false, false)];
    let mut probes = Vec::new();
    for &(vx1, vy1) in &combos {
        for x in 0..nx {
            for y in 0..ny {
                probes.push(vals(x, y, vx1, vy1));
            }
        }
    }
    let lines: Vec<Vec<u8>> = probes
        .iter()
        .map(|v| crate::learn::encode(l, v, None))
        .collect();
    let ans = o.ask(&lines);
    for (key, y, n) in [(Format::Vopd, false, nx), (Format::VopdY, true, ny)] {
        for op in 0..n {
            let opf = if y { F::OpY } else { F::Op };
            // The first valid probe of this opcode in which this half's unused source is
            // nonzero wins; otherwise the first valid one at all.
            let hit = probes
                .iter()
                .zip(&ans)
                .zip(&lines)
                .filter(|((v, _), _)| v.get(&opf) == Some(&op))
                .filter_map(|((v, a), line)| match a {
                    Answer::Inst(text, len) if *len == line.len() || *len == line.len() + 4 => {
                        Some((v, text))
                    }
                    _ => None,
                })
                .min_by_key(|(v, _)| {
                    let own = if y { F::Vsrc1Y } else { F::Vsrc1 };
                    u32::from(v.get(&own) == Some(&0))
                });
            let Some((v, text)) = hit else { continue };
            let h = half(text, y);
            let mnemonic = h.split(' ').next().unwrap_or(h).to_string();
            let toks = tokens(h, y);
            t.entries.push(Entry {
                key,
                format: Format::Vopd,
                opcode: op,
                mnemonic,
                variants: vec![Some(toks)],
                mods: 0,
                bad: 0,
                vbad: Vec::new(),
                addr: Vec::new(),
                ext_ok: 0,
                ext_shown: 0,
                vals: v.clone(),
            });
        }
    }
}
