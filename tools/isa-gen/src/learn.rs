//! Learns opcode tables, operand syntax and operand classes by probing the oracle.

use crate::layout::{self, Format, Layout, Role, F};
use crate::llvm::{Answer, Oracle};
use std::collections::BTreeMap;

/// One learned operand token of an instruction's syntax.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Tok {
    /// Fixed text (an implicit operand such as `vcc`, or `off`).
    Text(String),
    /// A literal constant carried in the dword after the encoding (v_fmamk/fmaak K).
    KLit,
    /// A register/constant field; `cls` is the register class letter LLVM printed
    /// (`v`, `s`, `a`), `regs` the tuple size; `class` the learned scalar-code class.
    Reg {
        field: F,
        cls: char,
        regs: u8,
        class: Option<usize>,
        /// Register class LLVM names when the tuple starts at an odd register.
        align: Option<String>,
    },
    /// An immediate field printed in decimal (`hex` false) or hex; `omit0`: not printed
    /// at all when zero; `dec_small`: printed in decimal below 16 even if `hex`.
    Imm {
        field: F,
        hex: bool,
        omit0: bool,
        dec_small: bool,
    },
}

/// A learned opcode.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Identification format (opcode table key).
    pub key: Format,
    /// Layout that applies.
    pub format: Format,
    /// Opcode number.
    pub opcode: u32,
    /// Printed mnemonic.
    pub mnemonic: String,
    /// Operand syntax per variant (None: variant invalid).
    pub variants: Vec<Option<Vec<Tok>>>,
    /// Modifier probes that printed something.
    pub mods: u32,
    /// Modifier probes that made the word invalid.
    pub bad: u32,
    /// Per operand-syntax variant: modifier probes that made the word invalid in that
    /// variant (empty for single-variant formats).
    pub vbad: Vec<u32>,
    /// Image address lengths: per (dim, a16) the address VGPR count and how many
    /// vaddr fields may be nonzero, `[n, fields]` pairs (empty for other formats).
    pub addr: Vec<u8>,
    /// Extension probes (`layout::EXT_PROBES`) LLVM accepts.
    pub ext_ok: u32,
    /// Extension probes whose modifier LLVM prints.
    pub ext_shown: u32,
    /// The field values of the valid base probe.
    pub vals: BTreeMap<F, u32>,
}

/// A learned class of a scalar-code operand field: the text of every code (None =
/// invalid), whether VGPR codes (256+) are valid, and literal samples.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Class {
    /// Text per scalar code.
    pub names: Vec<Option<String>>,
    /// VGPRs allowed (9-bit fields).
    pub vgpr: bool,
    /// Text printed for each literal sample (code 255).
    pub lits: Vec<Option<String>>,
}

/// Literal sample values probed for code 255.
pub const LIT_SAMPLES: [u32; 10] = [
    0x1234_5678,
    0x1,
    0xffff_ffff,
    0xffff_fff0,
    0x3f80_0000,
    0x3c00,
    0x3ff0_0000,
    0x3f80,
    0xbc00,
    0x4000_0000,
];

/// Everything learned for one target.
#[derive(Debug, Default)]
pub struct Tables {
    /// Learned opcodes, sorted by (key, opcode).
    pub entries: Vec<Entry>,
    /// Distinct operand classes.
    pub classes: Vec<Class>,
    /// GFX12 MTBUF: the `format:` text per format code (empty: not printed).
    pub mtbuf_formats: Vec<String>,
    /// What each entry does (parallel to `entries`; module `meta`).
    pub meta: Vec<crate::meta::Meta>,
}

/// Base probe value of a field (distinct numbers so printed registers map back to fields).
fn base_value(gfx12: bool, fmt: Format, f: F) -> u32 {
    match (fmt, f) {
        (Format::Vop3p, F::OpSelHi) => 3,
        (Format::Vop3p, F::OpSelHi2) => 1,
        (Format::Smem, F::Sbase) => 6,
        (Format::Smem, F::Sdata) => 20,
        (Format::Smem, F::Offset) => 0x34,
        // The low bits of the offset (GFX9: an SGPR without imm/soe).
        (Format::Smem, F::SoffsetLo) => 0x34,
        (Format::Smem, F::Soffset) => {
            if gfx12 {
                0x7C
            } else {
                40
            }
        }
        (Format::Smem, F::Imm) => 1,
        (Format::Sopk | Format::Sopp, F::Simm16) => 0x1235,
        (Format::Mubuf | Format::Mtbuf, F::Srsrc) => {
            if gfx12 {
                12
            } else {
                3
            }
        }
        (Format::Mubuf | Format::Mtbuf, F::Fmt) if gfx12 => 1,
        (Format::Mtbuf, F::Dfmt) => 1,
        (Format::Global | Format::Scratch, F::Saddr) => 50,
        (Format::Mimg, F::Srsrc) => 2,
        (Format::Vsample | Format::Vimage, F::ImgRsrc) => 8,
        (Format::Vsample, F::ImgSamp) => 16,
        // gfx950 VOP3PX2 scale operands: VGPRs (distinct from the MFMA's sources).
        (Format::Vop3px2, F::ScaleSrc0) => 256 + 50,
        (Format::Vop3px2, F::ScaleSrc1) => 256 + 60,
        (_, F::Vdst) => 10,
        (_, F::Sdst) => {
            if matches!(fmt, Format::Vop3b) {
                50
            } else {
                10
            }
        }
        (_, F::Src0 | F::Addr | F::Vaddr) => 20,
        (_, F::Src1 | F::Vsrc1 | F::Data0 | F::Data | F::Vdata) => 30,
        (_, F::Src2 | F::Data1 | F::Soffset) => 40,
        _ => 0,
    }
}

fn src_value(role: Role, v: u32, vgpr: bool) -> u32 {
    if role == Role::Src9 && vgpr {
        256 + v
    } else {
        v
    }
}

/// Builds probe bytes from a layout and field assignments (plus an optional literal).
pub fn encode(l: &Layout, vals: &BTreeMap<F, u32>, lit: Option<u32>) -> Vec<u8> {
    let mut bits: u128 = 0;
    let fixed = l.field(F::Fixed).map_or(0, |f| f.lo);
    bits |= u128::from(l.value) & (((1u128 << 32) - 1) << fixed);
    if let Some(seg) = l.field(F::Seg) {
        bits = layout::put(bits, seg, (l.value >> seg.lo) & 3);
    }
    bits |= layout::fixed_hi(l.format);
    for f in l.fields {
        if let Some(v) = vals.get(&f.name) {
            bits = layout::put(bits, *f, *v);
        }
    }
    let mut out: Vec<u8> = bits.to_le_bytes()[..usize::from(l.dwords) * 4].to_vec();
    if let Some(x) = lit {
        out.extend_from_slice(&x.to_le_bytes());
    }
    out
}

fn base_vals(gfx12: bool, l: &Layout, vgpr_srcs: [bool; 3]) -> BTreeMap<F, u32> {
    let mut m = BTreeMap::new();
    // SOPP/SOPK: some opcodes accept only a zero immediate; the non-first source sets
    // (all-SGPR etc., meaningless for scalar formats) probe it.
    if matches!(l.format, Format::Sopp | Format::Sopk) && !vgpr_srcs[0] {
        m.insert(F::Simm16, 0);
    }
    for f in l.fields {
        if matches!(f.role, Role::Fixed | Role::Op) {
            continue;
        }
        if m.contains_key(&f.name) {
            continue;
        }
        let mut v = base_value(gfx12, l.format, f.name);
        let i = match f.name {
            F::Src0 => 0,
            F::Src1 => 1,
            F::Src2 => 2,
            _ => 3,
        };
        if i < 3 {
            v = src_value(f.role, v, vgpr_srcs[i]);
        }
        m.insert(f.name, v);
    }
    m
}

/// Splits an operand string at top-level `, ` (not inside brackets/parentheses).
pub fn split_operands(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    let b: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            '/' if b.get(i + 1) == Some(&'*') => depth += 1,
            '*' if b.get(i + 1) == Some(&'/') => depth -= 1,
            _ => {}
        }
        if c == ',' && depth == 0 && b.get(i + 1) == Some(&' ') {
            out.push(std::mem::take(&mut cur));
            i += 2;
            continue;
        }
        cur.push(c);
        i += 1;
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Parses `v12`, `s[4:5]`, `a[0:3]`, `ttmp[4:5]` into (class, first, count).
pub fn parse_reg(t: &str) -> Option<(char, u32, u8)> {
    // True16 halves (`v5.l`, `v5.h`) are class `l`.
    if let Some(r) = t.strip_suffix(".l").or_else(|| t.strip_suffix(".h")) {
        let (c, n, regs) = parse_reg(r)?;
        return (c == 'v' && regs == 1).then_some(('l', n, 1));
    }
    let c = t.chars().next()?;
    if !matches!(c, 'v' | 's' | 'a') {
        return None;
    }
    let rest = &t[1..];
    if let Some(r) = rest.strip_prefix('[') {
        let r = r.strip_suffix(']')?;
        let (a, b) = r.split_once(':')?;
        let a: u32 = a.parse().ok()?;
        let b: u32 = b.parse().ok()?;
        Some((c, a, u8::try_from(b.checked_sub(a)? + 1).ok()?))
    } else {
        Some((c, rest.parse().ok()?, 1))
    }
}

fn parse_num(t: &str) -> Option<(u32, bool)> {
    if let Some(h) = t.strip_prefix("0x") {
        u32::from_str_radix(h, 16).ok().map(|v| (v, true))
    } else {
        t.parse::<u32>().ok().map(|v| (v, false))
    }
}

/// Splits instruction text into mnemonic, operand tokens and trailing modifiers.
pub fn split_inst(text: &str) -> (String, Vec<String>) {
    let (mn, rest) = text.split_once(' ').unwrap_or((text, ""));
    (mn.to_string(), split_operands(rest.trim()))
}

/// Maps printed operand tokens back to fields.
pub fn tokens(l: &Layout, vals: &BTreeMap<F, u32>, ops: &[String]) -> Vec<Tok> {
    let n = ops.len();
    let mut out = Vec::new();
    for (i, t) in ops.iter().enumerate() {
        // Modifiers follow the last operand after a space.
        let t = if i + 1 == n {
            first_word(t).to_string()
        } else {
            t.clone()
        };
        if t.is_empty() || (t.contains(':') && !t.contains('[')) {
            continue;
        }
        out.push(token(l, vals, &t));
    }
    out
}

/// The token of one printed operand: a register or immediate mapped back to the field
/// holding its number, else fixed text.
pub fn token(l: &Layout, vals: &BTreeMap<F, u32>, t: &str) -> Tok {
    // The probe padding dword (s_nop 0) read as a K literal.
    // (`s_setreg_imm32_b32` types its literal as f32: the padding prints as `-1.0`.)
    if t == "0xbf800000" || (l.format == Format::Sopk && t == "-1.0") {
        return Tok::KLit;
    }
    if let Some((c, n, regs)) = parse_reg(t) {
        for f in l.fields {
            let Some(&v) = vals.get(&f.name) else {
                continue;
            };
            if v == 0 && f.role == Role::Vgpr8 {
                continue;
            }
            let hit = match (f.role, c) {
                (Role::Src9, 'v' | 'a' | 'l') => v == 256 + n,
                (Role::Src9 | Role::Ssrc8 | Role::Sgpr7, 's') => v == n,
                (Role::Vgpr8, _) => v == n,
                (Role::SgprHalf, 's') => v * 2 == n,
                (Role::SgprQuarter, 's') => v * 4 == n,
                _ => false,
            };
            if hit {
                return Tok::Reg {
                    field: f.name,
                    cls: c,
                    regs,
                    class: None,
                    align: None,
                };
            }
        }
    }
    if let Some((n, hex)) = parse_num(t) {
        for f in l.fields {
            // SMEM probes and prefetches print their sdata field as a number.
            let imm = f.role == Role::Imm || (l.format == Format::Smem && f.name == F::Sdata);
            if imm && vals.get(&f.name) == Some(&n) && n != 0 {
                return Tok::Imm {
                    field: f.name,
                    hex,
                    omit0: false,
                    dec_small: false,
                };
            }
        }
    }
    Tok::Text(t.to_string())
}

/// Learns every opcode of every format for one target.
pub fn learn(o: &mut Oracle, gfx12: bool) -> Tables {
    let idents = if gfx12 {
        layout::GFX12_IDENT
    } else {
        layout::GFX9_IDENT
    };
    let mut t = Tables::default();
    for l in idents {
        if l.format == Format::Vopd {
            crate::vopd::learn(o, &mut t);
        } else {
            learn_format(o, gfx12, l, &mut t);
        }
    }
    // gfx950 VOP3PX2 (`v_mfma_scale_*`): a `v_mfma_ld_scale_b32` word pair followed by
    // an MFMA word, keyed by the MFMA's opcode (no answers on other GFX9 targets).
    if !gfx12 {
        learn_format(o, gfx12, sub(gfx12, Format::Vop3px2), &mut t);
    }
    t.entries.sort_by_key(|e| (e.key, e.opcode));
    crate::refine::learn_variant_bad(o, gfx12, &mut t);
    crate::refine::learn_image_addr(o, gfx12, &mut t);
    crate::refine::learn_bvh(o, gfx12, &mut t);
    crate::refine::learn_mfma_sizes(o, gfx12, &mut t);
    crate::refine::learn_mtbuf_formats(o, gfx12, &mut t);
    crate::ext::learn(o, gfx12, &mut t);
    crate::align::learn(o, gfx12, &mut t);
    crate::refine::learn_omit0(o, gfx12, &mut t);
    crate::classes::learn_classes(o, gfx12, &mut t);
    t
}

pub fn sub(gfx12: bool, f: Format) -> &'static Layout {
    layout::layout(gfx12, f).expect("layout exists")
}

fn learn_format(o: &mut Oracle, gfx12: bool, l: &'static Layout, t: &mut Tables) {
    let opf = l.op_field();
    let nops = 1u32 << opf.bits;
    // Candidate source kinds: all-VGPR first, then all-SGPR, then mixes (the last one
    // for GFX12 `v_permlane16_b32`/`v_permlanex16_b32`: a VGPR and two SGPR selects).
    let src_sets: [[bool; 3]; 5] = [
        [true, true, true],
        [false, false, false],
        [true, false, true],
        [false, true, true],
        [true, false, false],
    ];
    // Which layout applies to each opcode.
    let mut lay_of: Vec<&'static Layout> = vec![l; nops as usize];
    if l.format == Format::Vop3 {
        let b = sub(gfx12, Format::Vop3b);
        let lines: Vec<Vec<u8>> = (0..nops)
            .map(|op| {
                let mut v = base_vals(gfx12, b, [true; 3]);
                v.insert(F::Op, op);
                encode(b, &v, None)
            })
            .collect();
        let ans = o.ask(&lines);
        for (op, a) in ans.iter().enumerate() {
            if let Answer::Inst(text, _) = a {
                let (_, ops) = split_inst(text);
                let v = base_vals(gfx12, b, [true; 3]);
                if tokens(b, &v, &ops)
                    .iter()
                    .any(|k| matches!(k, Tok::Reg { field: F::Sdst, .. }))
                {
                    lay_of[op] = b;
                }
            }
        }
    }
    if !gfx12 && l.format == Format::Vop3p {
        let m = sub(gfx12, Format::Mai);
        let lines: Vec<Vec<u8>> = (0..nops)
            .map(|op| {
                let mut v = base_vals(gfx12, m, [true; 3]);
                v.insert(F::Op, op);
                v.insert(F::Cbsz, 1);
                encode(m, &v, None)
            })
            .collect();
        let ans = o.ask(&lines);
        for (op, a) in ans.iter().enumerate() {
            if let Answer::Inst(text, _) = a {
                if text.contains("cbsz:") {
                    lay_of[op] = m;
                }
            }
        }
    }
    if gfx12 && l.format == Format::Mubuf {
        for op in 0x80..nops.min(0x90) {
            lay_of[op as usize] = sub(gfx12, Format::Mtbuf);
        }
    }
    let mut vals_of: Vec<Option<BTreeMap<F, u32>>> = vec![None; nops as usize];
    let mut first: Vec<Option<String>> = vec![None; nops as usize];
    for set in src_sets {
        let lines: Vec<Vec<u8>> = (0..nops)
            .map(|op| {
                let ll = lay_of[op as usize];
                let mut v = base_vals(gfx12, ll, set);
                v.insert(F::Op, op);
                for (f, x) in layout::variant_probes(gfx12, ll.format)[0] {
                    v.insert(*f, *x);
                }
                encode(ll, &v, None)
            })
            .collect();
        let ans = o.ask(&lines);
        for (op, a) in ans.iter().enumerate() {
            if vals_of[op].is_some() {
                continue;
            }
            if let Answer::Inst(text, len) = a {
                // A probe LLVM decodes but flags ("/*Invalid register...*/") has a
                // register class the operand does not take: prefer another source set.
                let klit = *len == lines[op].len() + 4
                    && (text.contains("0xbf800000")
                        || (l.format == Format::Sopk && text.ends_with(", -1.0")));
                if (*len == lines[op].len() || klit) && !text.contains("/*Invalid") {
                    let ll = lay_of[op];
                    let mut v = base_vals(gfx12, ll, set);
                    v.insert(F::Op, op as u32);
                    vals_of[op] = Some(v);
                    first[op] = Some(text.clone());
                }
            }
        }
    }
    // Variants that are invalid in variant 0 (e.g. buffer ops that need offen) are
    // found by probing every variant for opcodes with no answer yet.
    let mut cands = Vec::new();
    for op in 0..nops as usize {
        let ll = lay_of[op];
        let nvar = layout::variant_probes(gfx12, ll.format).len();
        if vals_of[op].is_some() || nvar == 1 {
            continue;
        }
        for set in src_sets {
            for var in layout::variant_probes(gfx12, ll.format) {
                let mut v = base_vals(gfx12, ll, set);
                v.insert(F::Op, op as u32);
                for (f, x) in *var {
                    v.insert(*f, *x);
                }
                let line = encode(ll, &v, None);
                cands.push((op, v, line));
            }
        }
    }
    let lines: Vec<Vec<u8>> = cands.iter().map(|c| c.2.clone()).collect();
    let ans = o.ask(&lines);
    for ((op, v, line), a) in cands.into_iter().zip(ans) {
        if vals_of[op].is_some() {
            continue;
        }
        if let Answer::Inst(text, len) = a {
            if len == line.len() {
                vals_of[op] = Some(v);
                first[op] = Some(text);
            }
        }
    }
    // Some decoders (GFX12 DS, ...) reject nonzero unused register fields: retry with
    // subsets of the VGPR-index fields zeroed.
    let vfields: Vec<F> = l
        .fields
        .iter()
        .filter(|f| f.role == Role::Vgpr8)
        .map(|f| f.name)
        .collect();
    if !vfields.is_empty() && vfields.len() <= 5 {
        let mut cands = Vec::new();
        for op in 0..nops as usize {
            if vals_of[op].is_some() || lay_of[op].format != l.format {
                continue;
            }
            for var in layout::variant_probes(gfx12, l.format) {
                for mask in 1u32..(1 << vfields.len()) {
                    let mut v = base_vals(gfx12, l, [true; 3]);
                    v.insert(F::Op, op as u32);
                    for (f, x) in *var {
                        v.insert(*f, *x);
                    }
                    for (i, f) in vfields.iter().enumerate() {
                        if mask & (1 << i) != 0 {
                            v.insert(*f, 0);
                        }
                    }
                    let line = encode(l, &v, None);
                    cands.push((op, v, line));
                }
            }
        }
        let lines: Vec<Vec<u8>> = cands.iter().map(|c| c.2.clone()).collect();
        let ans = o.ask(&lines);
        for ((op, v, line), a) in cands.into_iter().zip(ans) {
            if vals_of[op].is_some() {
                continue;
            }
            if let Answer::Inst(text, len) = a {
                if len == line.len() {
                    vals_of[op] = Some(v);
                    first[op] = Some(text);
                }
            }
        }
    }
    // Variants and modifier probes, batched over all valid opcodes.
    let valid: Vec<usize> = (0..nops as usize)
        .filter(|&op| vals_of[op].is_some())
        .collect();
    let mut var_lines = Vec::new();
    let mut mod_lines = Vec::new();
    for &op in &valid {
        let ll = lay_of[op];
        let v0 = vals_of[op].clone().unwrap_or_default();
        for var in layout::variant_probes(gfx12, ll.format) {
            let mut v = v0.clone();
            for (f, x) in *var {
                v.insert(*f, *x);
            }
            var_lines.push(encode(ll, &v, None));
        }
        for (f, x) in layout::mod_probes(gfx12, ll.format) {
            let mut v = v0.clone();
            v.insert(*f, *x);
            mod_lines.push(encode(ll, &v, None));
        }
    }
    let var_ans = o.ask(&var_lines);
    let mod_ans = o.ask(&mod_lines);
    let (mut vi, mut mi) = (0, 0);
    for &op in &valid {
        let ll = lay_of[op];
        let v0 = vals_of[op].clone().unwrap_or_default();
        let Some(base_text) = first[op].clone() else {
            continue;
        };
        let (mnemonic, _) = split_inst(&base_text);
        let mut variants = Vec::new();
        for var in layout::variant_probes(gfx12, ll.format) {
            let mut v = v0.clone();
            for (f, x) in *var {
                v.insert(*f, *x);
            }
            let a = &var_ans[vi];
            vi += 1;
            variants.push(match a {
                Answer::Inst(text, len)
                    if *len == usize::from(ll.dwords) * 4
                        || *len == usize::from(ll.dwords) * 4 + 4
                            && (text.contains("0xbf800000")
                                || (ll.format == Format::Sopk && text.ends_with(", -1.0"))) =>
                {
                    let (_, ops) = split_inst(text);
                    Some(tokens(ll, &v, &ops))
                }
                _ => None,
            });
        }
        let (mut mods, mut bad) = (0u32, 0u32);
        for i in 0..layout::mod_probes(gfx12, ll.format).len() {
            match &mod_ans[mi] {
                Answer::Inst(text, _) if Some(text) != first[op].as_ref() => mods |= 1 << i,
                Answer::Inst(..) => {}
                _ => bad |= 1 << i,
            }
            mi += 1;
        }
        t.entries.push(Entry {
            key: l.format,
            format: ll.format,
            opcode: op as u32,
            mnemonic,
            variants,
            mods,
            bad,
            vbad: Vec::new(),
            addr: Vec::new(),
            ext_ok: 0,
            ext_shown: 0,
            vals: v0,
        });
    }
}

/// Operand tokens with the trailing modifiers of the last one removed.
pub fn strip_mods(ops: &[String]) -> Vec<String> {
    let n = ops.len();
    ops.iter()
        .enumerate()
        .map(|(i, t)| {
            if i + 1 == n {
                first_word(t).to_string()
            } else {
                t.clone()
            }
        })
        .collect()
}

/// The text up to the first space outside a `/* ... */` comment (an operand and the
/// comment LLVM may write after it, without the modifiers that follow).
pub fn first_word(t: &str) -> &str {
    let b = t.as_bytes();
    let mut depth = 0;
    for i in 0..b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'*') => depth += 1,
            b'*' if b.get(i + 1) == Some(&b'/') && depth > 0 => depth -= 1,
            b' ' if depth == 0 => return &t[..i],
            _ => {}
        }
    }
    t
}
