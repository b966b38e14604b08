//! Learns which GFX9 register-tuple operands LLVM wants even-aligned (gfx90a and later
//! require it for 64-bit and wider VGPR/AGPR tuples): each such operand is probed
//! starting at an odd register, and the register class LLVM names in its
//! `/*Invalid register, operand has '...' register class*/` comment is recorded.

use crate::layout::{self, Role};
use crate::learn::{encode, split_inst, Tables, Tok};
use crate::llvm::{Answer, Oracle};

const PREFIX: &str = "/*Invalid register, operand has '";

/// Fills `align` of the register tokens that need an even first register.
pub fn learn(o: &mut Oracle, gfx12: bool, t: &mut Tables) {
    if gfx12 {
        return;
    }
    let mut lines = Vec::new();
    let mut jobs = Vec::new();
    for (ei, e) in t.entries.iter().enumerate() {
        let Some(l) = layout::layout(gfx12, e.format) else {
            continue;
        };
        for (vi, var) in e.variants.iter().enumerate() {
            let Some(toks) = var else { continue };
            for (ti, tok) in toks.iter().enumerate() {
                let Tok::Reg {
                    field, cls, regs, ..
                } = tok
                else {
                    continue;
                };
                if *regs < 2 || !matches!(cls, 'v' | 'a') {
                    continue;
                }
                let Some(f) = l.field(*field) else { continue };
                if !matches!(f.role, Role::Vgpr8 | Role::Src9) {
                    continue;
                }
                let mut v = e.vals.clone();
                for (f2, x) in layout::variant_probes(gfx12, l.format)[vi] {
                    v.insert(*f2, *x);
                }
                let Some(&x) = v.get(field) else { continue };
                if f.role == Role::Src9 && x < 256 {
                    continue;
                }
                v.insert(*field, x | 1);
                lines.push(encode(l, &v, None));
                jobs.push((ei, vi, ti));
            }
        }
    }
    let ans = o.ask(&lines);
    for ((ei, vi, ti), a) in jobs.into_iter().zip(ans) {
        let Answer::Inst(text, _) = a else { continue };
        // The comment holds spaces, so the last operand is searched unstripped.
        let (_, ops) = split_inst(&text);
        let Some(op) = ops.get(ti) else { continue };
        let Some(i) = op.find(PREFIX) else { continue };
        let rest = &op[i + PREFIX.len()..];
        let Some(j) = rest.find('\'') else { continue };
        let name = rest[..j].to_string();
        if let Some(Some(toks)) = t.entries[ei].variants.get_mut(vi) {
            if let Some(Tok::Reg { align, .. }) = toks.get_mut(ti) {
                *align = Some(name);
            }
        }
    }
}
