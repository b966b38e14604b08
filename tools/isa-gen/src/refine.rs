//! Refinements learned after the opcode tables: per-variant modifier validity, image
//! address lengths, and SOPP/SOPK immediates LLVM omits or prints in decimal.

use crate::layout::{self, Format, F};
use crate::learn::{encode, parse_reg, split_inst, sub, Tables, Tok};
use crate::llvm::{Answer, Oracle};

/// Modifier probes LLVM rejects in each valid operand-syntax variant (e.g. GFX9 MUBUF
/// and GLOBAL `lds` forms reject the acc bit that the plain forms take).
pub fn learn_variant_bad(o: &mut Oracle, gfx12: bool, t: &mut Tables) {
    let mut lines = Vec::new();
    let mut jobs = Vec::new();
    for (ei, e) in t.entries.iter().enumerate() {
        let ll = sub(gfx12, e.format);
        let vars = layout::variant_probes(gfx12, ll.format);
        if vars.len() < 2 {
            continue;
        }
        for (vi, var) in vars.iter().enumerate() {
            if !matches!(e.variants.get(vi), Some(Some(_))) {
                continue;
            }
            for (pi, (f, x)) in layout::mod_probes(gfx12, ll.format).iter().enumerate() {
                let mut v = e.vals.clone();
                for (f2, x2) in *var {
                    v.insert(*f2, *x2);
                }
                v.insert(*f, *x);
                lines.push(encode(ll, &v, None));
                jobs.push((ei, vi, pi));
            }
        }
    }
    let ans = o.ask(&lines);
    for e in t.entries.iter_mut() {
        let n = layout::variant_probes(gfx12, e.format).len();
        if n > 1 {
            e.vbad = vec![0; n];
        }
    }
    for ((ei, vi, pi), a) in jobs.into_iter().zip(ans) {
        if !matches!(a, Answer::Inst(..)) {
            t.entries[ei].vbad[vi] |= 1 << pi;
        }
    }
}

/// Image address lengths per (dim, a16): probes with the first k vaddr fields set
/// (k = 1..4); the largest k LLVM accepts says how many fields may be nonzero, and its
/// printed address list (`v20` or `[v20, v21, v[22:24]]`) the number of VGPRs (VIMAGE:
/// bit 7 set where LLVM keeps the operation's first form, see `image::fallback`).
pub fn learn_image_addr(o: &mut Oracle, gfx12: bool, t: &mut Tables) {
    // (VIMAGE has a fifth address field, vaddr4.)
    const VA: [F; 5] = [F::Vaddr, F::Vaddr1, F::Vaddr2, F::Vaddr3, F::Vaddr4];
    let mut lines = Vec::new();
    let mut jobs = Vec::new();
    for (ei, e) in t.entries.iter().enumerate() {
        if !matches!(e.format, Format::Vsample | Format::Vimage) {
            continue;
        }
        let nva = if e.format == Format::Vimage { 5 } else { 4 };
        let ll = sub(gfx12, e.format);
        for dim in 0..8u32 {
            for a16 in 0..2u32 {
                for k in 1..=nva {
                    let mut v = e.vals.clone();
                    v.insert(F::Dim, dim);
                    v.insert(F::A16, a16);
                    // VIMAGE: three data registers, a count every operation has a form
                    // for; LLVM printing fewer means it fell back to the first form.
                    if e.format == Format::Vimage {
                        v.insert(F::Dmask, 7);
                    }
                    for (j, f) in VA.iter().enumerate() {
                        v.insert(*f, if j < k { 20 + j as u32 } else { 0 });
                    }
                    lines.push(encode(ll, &v, None));
                    jobs.push((ei, (dim * 2 + a16) as usize, k));
                }
            }
        }
    }
    let ans = o.ask(&lines);
    for e in t.entries.iter_mut() {
        if matches!(e.format, Format::Vsample | Format::Vimage) {
            e.addr = vec![0; 32];
        }
    }
    for ((ei, slot, k), a) in jobs.into_iter().zip(ans) {
        let Answer::Inst(text, _) = a else { continue };
        let (_, ops) = split_inst(&text);
        let Some(list) = ops.get(1) else { continue };
        let n = if let Some(inner) = list.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            let regs: Vec<&str> = inner.split(", ").collect();
            let last = regs.last().and_then(|r| parse_reg(r)).map_or(1, |r| r.2);
            regs.len() - 1 + usize::from(last)
        } else {
            1
        };
        let e = &mut t.entries[ei];
        // Bit 7: the (dim, a16) has no form of its own; LLVM prints the first form.
        let fallback = e.format == Format::Vimage
            && ops.first().and_then(|d| parse_reg(d)).map(|r| r.2) != Some(3);
        e.addr[2 * slot] = n as u8 | if fallback { 0x80 } else { 0 };
        e.addr[2 * slot + 1] = k as u8;
    }
}

/// SOPP/SOPK immediates that LLVM leaves out when zero (`s_endpgm`).
pub fn learn_omit0(o: &mut Oracle, gfx12: bool, t: &mut Tables) {
    let mut idx = Vec::new();
    let mut lines = Vec::new();
    for (i, e) in t.entries.iter().enumerate() {
        if !matches!(e.format, Format::Sopp | Format::Sopk) {
            continue;
        }
        let has_imm = e
            .variants
            .iter()
            .flatten()
            .flatten()
            .any(|k| matches!(k, Tok::Imm { .. }));
        if !has_imm {
            continue;
        }
        let mut v = e.vals.clone();
        v.insert(F::Simm16, 0);
        lines.push(encode(sub(gfx12, e.format), &v, None));
        v.insert(F::Simm16, 4);
        lines.push(encode(sub(gfx12, e.format), &v, None));
        idx.push(i);
    }
    let ans = o.ask(&lines);
    for (k, i) in idx.into_iter().enumerate() {
        if let Answer::Inst(text, _) = &ans[2 * k + 1] {
            if text.ends_with(" 4") || text.contains(" 4,") {
                for toks in t.entries[i].variants.iter_mut().flatten() {
                    for tk in toks.iter_mut() {
                        if let Tok::Imm {
                            dec_small,
                            hex: true,
                            ..
                        } = tk
                        {
                            *dec_small = true;
                        }
                    }
                }
            }
        }
        if let Answer::Inst(text, _) = &ans[2 * k] {
            if !text.contains(' ') {
                for toks in t.entries[i].variants.iter_mut().flatten() {
                    for k in toks.iter_mut() {
                        if let Tok::Imm { omit0, .. } = k {
                            *omit0 = true;
                        }
                    }
                }
            }
        }
    }
}

/// GFX12 MTBUF `format:` text per 7-bit format code (`format:[BUF_FMT_32_FLOAT]`,
/// `format:104`, nothing for the default), read off the first typed-buffer opcode.
pub fn learn_mtbuf_formats(o: &mut Oracle, gfx12: bool, t: &mut Tables) {
    if !gfx12 {
        return;
    }
    let Some(e) = t.entries.iter().find(|e| e.format == Format::Mtbuf) else {
        return;
    };
    let ll = sub(gfx12, e.format);
    let lines: Vec<Vec<u8>> = (0..128u32)
        .map(|f| {
            let mut v = e.vals.clone();
            v.insert(F::Fmt, f);
            encode(ll, &v, None)
        })
        .collect();
    let ans = o.ask(&lines);
    t.mtbuf_formats = ans
        .iter()
        .map(|a| match a {
            Answer::Inst(text, _) => text
                .split(' ')
                .find(|w| w.starts_with("format:"))
                .unwrap_or("")
                .to_string(),
            _ => String::new(),
        })
        .collect();
}
