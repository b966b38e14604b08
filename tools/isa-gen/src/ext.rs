//! Learns, per VOP1/VOP2/VOPC opcode (and GFX12 VOP3/VOP3B opcode), which DPP16/DPP8/SDWA
//! forms and modifiers LLVM accepts and prints (the probes are `layout::EXT_PROBES`).

use crate::layout::{self, ExtKind, Format, EXT_PROBES, F};
use crate::learn::{encode, Tables};
use crate::llvm::{Answer, Oracle};

/// The DPP16 comment LLVM prints for 64-bit operations with a control other than
/// row_newbcast (GFX9).
const DP_ALU: &str = "DP ALU dpp only supports row_newbcast";

/// Fills `ext_ok` / `ext_shown` of every VOP1/VOP2/VOPC entry, and of every GFX12
/// VOP3/VOP3B entry (DPP16 and DPP8 after the VOP3 dwords, src0 in the VOP3 word).
pub fn learn(o: &mut Oracle, gfx12: bool, t: &mut Tables) {
    let mut lines = Vec::new();
    let mut jobs = Vec::new();
    for (ei, e) in t.entries.iter().enumerate() {
        let vop3 = gfx12 && e.key == Format::Vop3;
        if !matches!(e.key, Format::Vop1 | Format::Vop2 | Format::Vopc) && !vop3 {
            continue;
        }
        let Some(l) = layout::layout(gfx12, e.format) else {
            continue;
        };
        // The extension dword follows the encoding's own dwords.
        let at = 32 * u32::from(l.dwords);
        for (pi, (kind, set)) in EXT_PROBES.iter().enumerate() {
            let applies = match kind {
                ExtKind::Dpp16 => true,
                ExtKind::Dpp8 => gfx12,
                ExtKind::Sdwa => !gfx12,
            };
            if !applies {
                continue;
            }
            let (marker, fields, base) = layout::ext_base(*kind, e.format);
            let mut w = u128::from(base) << at;
            let mut fits = true;
            for (f, v) in *set {
                match layout::find(fields, *f) {
                    Some(fl) => w = layout::put(w, fl, *v),
                    None => fits = false,
                }
            }
            if !fits {
                continue;
            }
            let mut v = e.vals.clone();
            v.insert(F::Src0, marker);
            lines.push(encode(l, &v, Some((w >> at) as u32)));
            jobs.push((ei, pi, at as usize / 8 + 4));
        }
    }
    let ans = o.ask(&lines);
    // Base text per (entry, kind) for the "shown" comparison.
    let mut base_text: std::collections::BTreeMap<(usize, usize), String> = Default::default();
    for ((ei, pi, len), a) in jobs.iter().zip(&ans) {
        if EXT_PROBES[*pi].1.is_empty() {
            if let Answer::Inst(text, n) = a {
                if n == len {
                    base_text.insert((*ei, EXT_PROBES[*pi].0 as usize), text.clone());
                }
            }
        }
    }
    for ((ei, pi, len), a) in jobs.iter().zip(&ans) {
        let Answer::Inst(text, n) = a else { continue };
        if n != len {
            continue;
        }
        let kind = EXT_PROBES[*pi].0 as usize;
        let e = &mut t.entries[*ei];
        e.ext_ok |= 1 << pi;
        let shown = if EXT_PROBES[*pi].1.is_empty() {
            *pi == 0 && text.contains(DP_ALU)
        } else {
            base_text.get(&(*ei, kind)) != Some(text)
        };
        if shown {
            e.ext_shown |= 1 << pi;
        }
    }
}
