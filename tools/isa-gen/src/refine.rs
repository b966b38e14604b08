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
/// printed address list (`v20` or `[v20, v21, v[22:24]]`) the number of VGPRs (bit 7
/// set where LLVM keeps the operation's first form, see `image::fallback`).
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
                    // Three data registers, a count every operation has a form for;
                    // LLVM printing one means it fell back to the first form.
                    v.insert(F::Dmask, 7);
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
        // (gather4 returns four registers whatever the dmask.)
        let want = if e.mnemonic.starts_with("image_gather4") {
            4
        } else {
            3
        };
        let fallback = ops.first().and_then(|d| parse_reg(d)).map(|r| r.2) != Some(want);
        e.addr[2 * slot] = n as u8 | if fallback { 0x80 } else { 0 };
        e.addr[2 * slot + 1] = k as u8;
    }
}

/// GFX12 BVH ray intersection (VIMAGE `image_bvh*_intersect_ray`): words of the one
/// shape LLVM accepts (dim 0, r128, dmask 0xF, distinct address registers in all five
/// fields; with a16 the fifth zero) for every VIMAGE opcode without an entry yet. A
/// decoded answer gives an entry with the mnemonic, the resource operand, the
/// modifier probes' validity, and in `addr` 11 sizes: the data tuple, then the five
/// address tuples without a16 and with it (0: field unused; all 0: no a16 form).
pub fn learn_bvh(o: &mut Oracle, gfx12: bool, t: &mut Tables) {
    if !gfx12 {
        return;
    }
    const VA: [F; 5] = [F::Vaddr, F::Vaddr1, F::Vaddr2, F::Vaddr3, F::Vaddr4];
    let ll = sub(gfx12, Format::Vimage);
    let have: std::collections::BTreeSet<u32> = t
        .entries
        .iter()
        .filter(|e| e.key == Format::Vimage)
        .map(|e| e.opcode)
        .collect();
    let base = |op: u32, a16: u32| {
        let mut v = std::collections::BTreeMap::new();
        v.insert(F::Op, op);
        v.insert(F::R128, 1);
        v.insert(F::Dmask, 0xF);
        v.insert(F::A16, a16);
        v.insert(F::Vdata, 10);
        v.insert(F::ImgRsrc, 8);
        for (j, f) in VA.iter().enumerate() {
            v.insert(
                *f,
                if a16 == 1 && j == 4 {
                    0
                } else {
                    20 + 10 * j as u32
                },
            );
        }
        v
    };
    let ops: Vec<u32> = (0..256).filter(|op| !have.contains(op)).collect();
    let lines: Vec<Vec<u8>> = ops
        .iter()
        .flat_map(|&op| [base(op, 0), base(op, 1)])
        .map(|v| encode(ll, &v, None))
        .collect();
    let ans = o.ask(&lines);
    // (address sizes of an answer, or None)
    let sizes = |a: &Answer| -> Option<(String, Vec<String>, Vec<u8>)> {
        let Answer::Inst(text, 12) = a else {
            return None;
        };
        let (mn, toks) = split_inst(text);
        let list = toks.get(1)?.strip_prefix('[')?.strip_suffix(']')?;
        let mut n = Vec::new();
        for r in list.split(", ") {
            n.push(parse_reg(r)?.2);
        }
        Some((mn, toks, n))
    };
    let probes = layout::mod_probes(gfx12, Format::Vimage);
    let mut found = Vec::new();
    for (k, &op) in ops.iter().enumerate() {
        let Some((mn, toks, n0)) = sizes(&ans[2 * k]) else {
            continue;
        };
        let Some(vdata) = toks.first().and_then(|d| parse_reg(d)) else {
            continue;
        };
        let mut addr = vec![vdata.2];
        addr.extend((0..5).map(|j| n0.get(j).copied().unwrap_or(0)));
        let n1 = sizes(&ans[2 * k + 1]).map(|x| x.2).unwrap_or_default();
        addr.extend((0..5).map(|j| n1.get(j).copied().unwrap_or(0)));
        found.push((op, mn, toks, addr));
    }
    let mod_lines: Vec<Vec<u8>> = found
        .iter()
        .flat_map(|(op, ..)| {
            probes.iter().map(move |(f, x)| {
                let mut v = base(*op, 0);
                v.insert(*f, *x);
                encode(ll, &v, None)
            })
        })
        .collect();
    let mod_ans = o.ask(&mod_lines);
    for (i, (op, mnemonic, toks, addr)) in found.into_iter().enumerate() {
        let vals = base(op, 0);
        let first = &ans[2 * ops.iter().position(|&x| x == op).unwrap_or(0)];
        let (mut mods, mut bad) = (0u32, 0u32);
        for p in 0..probes.len() {
            match &mod_ans[i * probes.len() + p] {
                a @ Answer::Inst(..) if a != first => mods |= 1 << p,
                Answer::Inst(..) => {}
                _ => bad |= 1 << p,
            }
        }
        // a16 changes the address (the sizes above say whether a form exists).
        if let Some(p) = probes.iter().position(|(f, _)| *f == F::A16) {
            bad &= !(1 << p);
            if addr[6..].iter().any(|&n| n != 0) {
                mods |= 1 << p;
            }
        }
        let syntax = crate::learn::tokens(ll, &vals, &crate::learn::strip_mods(&toks));
        t.entries.push(crate::learn::Entry {
            key: Format::Vimage,
            format: Format::Vimage,
            opcode: op,
            mnemonic,
            // Variant 0 (r128 clear) is rejected.
            variants: vec![None, Some(syntax)],
            mods,
            bad,
            vbad: vec![0; 2],
            addr,
            ext_ok: 0,
            ext_shown: 0,
            vals,
        });
    }
    t.entries.sort_by_key(|e| (e.key, e.opcode));
}

/// MFMA source tuple sizes that depend on the `cbsz`/`blgp` format selectors (gfx950
/// `*_f8f6f4`: 8 registers for fp8/bf8, 6 for fp6/bf6, 4 for fp4): every value of
/// each selector is probed and the printed tuple size of src0 (cbsz) or src1 (blgp)
/// recorded. Stored in `addr` as 16 sizes (cbsz 0-7, then blgp 0-7) for the opcodes
/// where a size differs from the base syntax's; empty for the others.
pub fn learn_mfma_sizes(o: &mut Oracle, gfx12: bool, t: &mut Tables) {
    if gfx12 {
        return;
    }
    let mut lines = Vec::new();
    let mut jobs = Vec::new();
    for (ei, e) in t.entries.iter().enumerate() {
        if !matches!(e.format, Format::Mai | Format::Vop3px2) {
            continue;
        }
        let Some(Some(toks)) = e.variants.first() else {
            continue;
        };
        let ll = sub(gfx12, e.format);
        for (sel, src) in [(F::Cbsz, F::Src0), (F::Blgp, F::Src1)] {
            let Some(ti) = toks
                .iter()
                .position(|k| matches!(k, Tok::Reg { field, .. } if *field == src))
            else {
                continue;
            };
            let Some(Tok::Reg { regs, .. }) = toks.get(ti) else {
                continue;
            };
            for x in 0..8 {
                let mut v = e.vals.clone();
                v.insert(sel, x);
                lines.push(encode(ll, &v, None));
                jobs.push((ei, ti, *regs));
            }
        }
    }
    let ans = o.ask(&lines);
    let mut sizes: Vec<Vec<u8>> = vec![Vec::new(); t.entries.len()];
    for ((ei, ti, base), a) in jobs.into_iter().zip(ans) {
        let n = match a {
            Answer::Inst(text, _) => {
                let (_, ops) = split_inst(&text);
                crate::learn::strip_mods(&ops)
                    .get(ti)
                    .and_then(|t| parse_reg(t))
                    .map_or(base, |r| r.2)
            }
            _ => base,
        };
        sizes[ei].push(n);
    }
    for (ei, s) in sizes.into_iter().enumerate() {
        let e = &mut t.entries[ei];
        let base = |src: F| {
            e.variants
                .first()
                .and_then(|v| v.as_ref())
                .and_then(|toks| {
                    toks.iter().find_map(|k| match k {
                        Tok::Reg { field, regs, .. } if *field == src => Some(*regs),
                        _ => None,
                    })
                })
        };
        let (b0, b1) = (base(F::Src0), base(F::Src1));
        if s.len() == 16
            && (s[..8].iter().any(|&n| Some(n) != b0) || s[8..].iter().any(|&n| Some(n) != b1))
        {
            e.addr = s;
        }
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
