//! Learns the operand classes: every scalar-code operand slot is probed with all of its
//! codes (and literal samples), giving the text LLVM prints for each; distinct results
//! become the target's classes.

use crate::layout::{self, Field, Format, Role, F};
use crate::learn::{encode, split_inst, strip_mods, sub, Class, Tables, Tok, LIT_SAMPLES};
use crate::llvm::{Answer, Oracle};
use std::collections::BTreeMap;

fn scalar_codes(role: Role) -> u32 {
    match role {
        Role::Src9 | Role::Ssrc8 | Role::Vgpr8 => 256,
        Role::Sgpr7 => 128,
        Role::SgprHalf => 64,
        Role::SgprQuarter => 32,
        _ => 0,
    }
}

/// Learns the class of every scalar-code operand slot: the text of each code.
pub fn learn_classes(o: &mut Oracle, gfx12: bool, t: &mut Tables) {
    // (entry, variant, token index, codes, first line index, sized slot)
    let mut jobs = Vec::new();
    // (entry, token index, `addr` slot, field, field values): see below.
    let mut sized = Vec::new();
    let mut lines = Vec::new();
    for (ei, e) in t.entries.iter().enumerate() {
        let ll = sub(gfx12, e.format);
        for (vi, var) in e.variants.iter().enumerate() {
            let Some(toks) = var else { continue };
            for (ti, tok) in toks.iter().enumerate() {
                let Tok::Reg { field, cls, .. } = tok else {
                    continue;
                };
                let f: Field = ll.field(*field).expect("field of layout");
                if f.role == Role::Vgpr8 && *cls != 's' {
                    continue;
                }
                let n = scalar_codes(f.role);
                if n == 0 {
                    continue;
                }
                let mut v0 = e.vals.clone();
                for (f2, x) in layout::variant_probes(gfx12, ll.format)[vi] {
                    v0.insert(*f2, *x);
                }
                // gfx950 `*_f8f6f4` MFMA sources: a class per tuple size too (LLVM
                // accepts and prints other codes at 6 and 4 registers than at 8), for
                // the selector values whose size differs from the base syntax's.
                if vi == 0 && e.addr.len() == 16 {
                    let sel = match field {
                        F::Src0 => Some((F::Cbsz, 0)),
                        F::Src1 => Some((F::Blgp, 8)),
                        _ => None,
                    };
                    if let (Some((sel, k0)), Tok::Reg { regs, .. }) = (sel, tok) {
                        for x in 0..8u32 {
                            if e.addr[k0 + x as usize] != *regs {
                                let mut v = v0.clone();
                                v.insert(sel, x);
                                sized.push((ei, ti, k0 + x as usize, f, v));
                            }
                        }
                    }
                }
                let start = lines.len();
                let mut codes = Vec::new();
                for c in 0..n {
                    if f.role == Role::Src9 || f.role == Role::Ssrc8 {
                        if c == 255 {
                            continue;
                        }
                        if matches!(e.key, Format::Vop1 | Format::Vop2 | Format::Vopc)
                            && f.name == F::Src0
                            && (if gfx12 {
                                matches!(c, 233 | 234 | 250)
                            } else {
                                matches!(c, 249 | 250)
                            })
                        {
                            continue;
                        }
                    }
                    let mut v = v0.clone();
                    v.insert(f.name, c);
                    lines.push(encode(ll, &v, None));
                    codes.push(Code::Scalar(c));
                }
                if f.role == Role::Src9 {
                    let mut v = v0.clone();
                    v.insert(f.name, 256 + 20);
                    lines.push(encode(ll, &v, None));
                    codes.push(Code::Vgpr);
                }
                if ll.literal && matches!(f.role, Role::Src9 | Role::Ssrc8) {
                    for x in LIT_SAMPLES {
                        let mut v = v0.clone();
                        v.insert(f.name, 255);
                        lines.push(encode(ll, &v, Some(x)));
                        codes.push(Code::Lit);
                    }
                }
                jobs.push((ei, vi, ti, n, codes, start, None));
            }
        }
    }
    for (ei, ti, k, f, v0) in sized {
        let start = lines.len();
        let mut codes = Vec::new();
        for c in 0..256 {
            if c == 255 {
                continue;
            }
            let mut v = v0.clone();
            v.insert(f.name, c);
            lines.push(encode(sub(gfx12, t.entries[ei].format), &v, None));
            codes.push(Code::Scalar(c));
        }
        let mut v = v0.clone();
        v.insert(f.name, 256 + 20);
        lines.push(encode(sub(gfx12, t.entries[ei].format), &v, None));
        codes.push(Code::Vgpr);
        jobs.push((ei, 0, ti, 256, codes, start, Some(k)));
    }
    let ans = o.ask(&lines);
    let mut class_ids: BTreeMap<Class, usize> = BTreeMap::new();
    for (ei, vi, ti, n, codes, start, sized) in jobs {
        let mut names = vec![None; n as usize];
        let mut lits = Vec::new();
        let mut vgpr = false;
        for (k, c) in codes.iter().enumerate() {
            let line = &lines[start + k];
            let tok = match &ans[start + k] {
                // `-show-encoding` lengths are re-encodings: an inline constant LLVM
                // prints as a value that is not inline for the operand (`0x4400` for
                // 4.0 in a 16-bit integer operand) re-encodes with a literal.
                Answer::Inst(s, len)
                    if *len == line.len()
                        || *len == line.len() + 4
                            && (s.contains("0xbf800000")
                                || matches!(c, Code::Scalar(128..=208 | 240..=248))) =>
                {
                    let e = &t.entries[ei];
                    let s = if e.format == Format::Vopd {
                        crate::vopd::half(s, e.key == Format::VopdY)
                    } else {
                        s
                    };
                    let (_, ops) = split_inst(s);
                    Some(strip_mods(&ops).get(ti).cloned().unwrap_or_default())
                }
                _ => None,
            };
            match c {
                Code::Vgpr => vgpr = tok.is_some(),
                Code::Lit => lits.push(tok),
                Code::Scalar(c) => names[*c as usize] = tok,
            }
        }
        let class = Class { names, vgpr, lits };
        let next = class_ids.len();
        let id = *class_ids.entry(class).or_insert(next);
        if let Some(k) = sized {
            // `addr` grows to 32: the class per selector value after the sizes (255:
            // the syntax's own class).
            let a = &mut t.entries[ei].addr;
            a.resize(32, u8::MAX);
            a[16 + k] = u8::try_from(id).expect("class index below 255");
            continue;
        }
        if let Some(Some(toks)) = t.entries[ei].variants.get_mut(vi) {
            if let Tok::Reg { class, .. } = &mut toks[ti] {
                *class = Some(id);
            }
        }
    }
    let mut classes: Vec<(usize, Class)> = class_ids.into_iter().map(|(c, i)| (i, c)).collect();
    classes.sort_by_key(|(i, _)| *i);
    t.classes = classes.into_iter().map(|(_, c)| c).collect();
}

enum Code {
    Scalar(u32),
    Vgpr,
    Lit,
}
