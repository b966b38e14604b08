//! LLVM-compatible assembly text of a decoded instruction (no allocation).

use super::decode::{table, Inst};
use super::layout::{self, Format, Role, F};
use super::table::{LitRule, Opnd};
use crate::target::{Family, Target};
use std::fmt::{self, Write};

fn inline32(v: u32) -> bool {
    (-16..=64).contains(&(v as i32))
        || matches!(
            v,
            0x3f00_0000
                | 0xbf00_0000
                | 0x3f80_0000
                | 0xbf80_0000
                | 0x4000_0000
                | 0xc000_0000
                | 0x4080_0000
                | 0xc080_0000
                | 0x3e22_f983
        )
}

fn inline16f(v: u32) -> bool {
    (-16..=64).contains(&(v as u16 as i16))
        || matches!(
            v,
            0x3800 | 0xb800 | 0x3c00 | 0xbc00 | 0x4000 | 0xc000 | 0x4400 | 0xc400 | 0x3118
        )
}

/// Writes a literal under a class's rule (mirrors tools/isa-gen `emit::predict`).
pub(crate) fn write_literal(w: &mut dyn Write, rule: LitRule, v: u32) -> fmt::Result {
    let lo = v & 0xffff;
    match rule {
        LitRule::B32 if inline32(v) => write!(w, "lit({v:#x})"),
        LitRule::I64 if v <= 64 => write!(w, "lit({v:#x})"),
        LitRule::F16 if inline32(v) || inline16f(lo) => write!(w, "lit({v:#x})"),
        LitRule::F16 | LitRule::I16 if !inline32(v) => write!(w, "{lo:#x}"),
        LitRule::I16 => write!(w, "lit({v:#x})"),
        LitRule::Pk16 if (-16..=64).contains(&(v as i32)) || inline16f(v) && v <= 0xffff => {
            write!(w, "lit({v:#x})")
        }
        LitRule::F64 => match v {
            0x3fe0_0000 => w.write_str("0.5"),
            0xbfe0_0000 => w.write_str("-0.5"),
            0x3ff0_0000 => w.write_str("1.0"),
            0xbff0_0000 => w.write_str("-1.0"),
            0x4000_0000 => w.write_str("2.0"),
            0xc000_0000 => w.write_str("-2.0"),
            0x4010_0000 => w.write_str("4.0"),
            0xc010_0000 => w.write_str("-4.0"),
            _ => write!(w, "{v:#x}"),
        },
        _ => write!(w, "{v:#x}"),
    }
}

fn write_regs(w: &mut dyn Write, cls: u8, first: u32, n: u8) -> fmt::Result {
    let c = cls as char;
    if n <= 1 {
        write!(w, "{c}{first}")
    } else {
        write!(w, "{c}[{first}:{}]", first + u32::from(n) - 1)
    }
}

fn sext(v: u32, bits: u32) -> i32 {
    ((v << (32 - bits)) as i32) >> (32 - bits)
}

impl Inst {
    /// Writes the instruction as LLVM 22 prints it (`llvm-objdump -d` text column).
    pub fn write_asm(&self, w: &mut dyn Write) -> fmt::Result {
        let e = self.entry();
        let tab = table(self.target, self.wave32);
        let lay = self.layout();
        let gfx12 = self.target.family() == Family::Gfx12;
        w.write_str(e.mnemonic)?;
        if self.format == Format::Sopp && self.write_special_sopp(w)? {
            return Ok(());
        }
        let ops = self.syntax();
        let nsrc = ops
            .iter()
            .filter(|o| {
                matches!(
                    o,
                    Opnd::Reg {
                        field: F::Src0 | F::Src1 | F::Src2,
                        ..
                    }
                )
            })
            .count();
        let t16 = ops.iter().any(|o| matches!(o, Opnd::Reg { cls: b'l', .. }));
        for (i, o) in ops.iter().enumerate() {
            if let Opnd::Imm {
                field, omit0: true, ..
            } = *o
            {
                if self.field(field) == 0 {
                    continue;
                }
            }
            w.write_str(if i == 0 { " " } else { ", " })?;
            match *o {
                Opnd::Text(t) => w.write_str(t)?,
                Opnd::KLit => write!(w, "{:#x}", self.literal.unwrap_or(0))?,
                Opnd::Imm {
                    field,
                    hex,
                    dec_small,
                    ..
                } => {
                    let v = self.field(field);
                    if self.format == Format::Smem && field == F::Offset {
                        let v = if gfx12 {
                            sext(v, 24)
                        } else if e.mnemonic.starts_with("s_buffer") {
                            v as i32
                        } else {
                            sext(v, 21)
                        };
                        if v < 0 {
                            write!(w, "-{:#x}", v.unsigned_abs())?;
                        } else {
                            write!(w, "{v:#x}")?;
                        }
                    } else if hex && !(dec_small && v < 16) {
                        write!(w, "{v:#x}")?;
                    } else {
                        write!(w, "{v}")?;
                    }
                }
                Opnd::Reg {
                    field,
                    cls,
                    regs,
                    class,
                } => {
                    let Some(fl) = lay.field(field) else { continue };
                    let v = layout::get(self.bits, fl);
                    let (neg, abs) = self.src_mods(field);
                    if neg {
                        w.write_char('-')?;
                    }
                    if abs {
                        w.write_char('|')?;
                    }
                    if cls == b'l' && (class == u16::MAX || v >= 256) {
                        let r = if fl.role == Role::Src9 { v - 256 } else { v };
                        let (n, hi) = if matches!(self.format, Format::Vop3 | Format::Vop3b) {
                            let bit = match field {
                                F::Src0 => 0,
                                F::Src1 => 1,
                                F::Src2 => 2,
                                _ => 3,
                            };
                            (r, (self.field(F::OpSel) >> bit) & 1)
                        } else {
                            (r & 0x7f, (r >> 7) & 1)
                        };
                        write!(w, "v{n}.{}", if hi != 0 { 'h' } else { 'l' })?;
                    } else if class == u16::MAX {
                        let c = if self.acc_field(field) { b'a' } else { cls };
                        write_regs(w, c, v, regs)?;
                    } else if fl.role == Role::Src9 && v >= 256 {
                        let c = if self.acc_field(field) { b'a' } else { cls };
                        let c = if c == b's' { b'v' } else { c };
                        write_regs(w, c, v - 256, regs)?;
                    } else if v == 255 && lay.literal {
                        let c = &tab.classes[usize::from(class)];
                        write_literal(w, c.lit, self.literal.unwrap_or(0))?;
                    } else {
                        let c = &tab.classes[usize::from(class)];
                        let s = c.names.get(v as usize).copied().unwrap_or(0);
                        w.write_str(tab.strings[usize::from(s)])?;
                    }
                    if abs {
                        w.write_char('|')?;
                    }
                }
            }
        }
        self.write_mods(w, nsrc, t16)
    }

    /// SOPP immediates with a symbolic syntax; returns whether it printed.
    fn write_special_sopp(&self, w: &mut dyn Write) -> Result<bool, fmt::Error> {
        let v = self.field(F::Simm16);
        match (self.target.family(), self.mnemonic()) {
            (Family::Gfx9, "s_waitcnt") => {
                let vm = (v & 0xf) | ((v >> 14) & 3) << 4;
                let exp = (v >> 4) & 7;
                let lgkm = (v >> 8) & 0xf;
                if v & 0x3080 != 0 {
                    write!(w, " {v:#x}")?;
                    return Ok(true);
                }
                let all = vm == 63 && exp == 7 && lgkm == 15;
                let mut sep = " ";
                if vm != 63 || all {
                    write!(w, "{sep}vmcnt({vm})")?;
                    sep = " ";
                }
                if exp != 7 || all {
                    write!(w, "{sep}expcnt({exp})")?;
                }
                if lgkm != 15 || all {
                    write!(w, "{sep}lgkmcnt({lgkm})")?;
                }
                Ok(true)
            }
            (Family::Gfx12, "s_wait_alu") => {
                // (name, lowest bit, width); unset fields default to all ones.
                const FIELDS: [(&str, u32, u32); 7] = [
                    ("depctr_hold_cnt", 7, 1),
                    ("depctr_sa_sdst", 0, 1),
                    ("depctr_va_vdst", 12, 4),
                    ("depctr_va_sdst", 9, 3),
                    ("depctr_va_ssrc", 8, 1),
                    ("depctr_va_vcc", 1, 1),
                    ("depctr_vm_vsrc", 2, 3),
                ];
                if v & 0x60 != 0 {
                    write!(w, " {v:#x}")?;
                    return Ok(true);
                }
                let all = v & 0xff9f == 0xff9f;
                for (name, lo, bits) in FIELDS {
                    let x = (v >> lo) & ((1 << bits) - 1);
                    if all || x != (1 << bits) - 1 {
                        write!(w, " {name}({x})")?;
                    }
                }
                Ok(true)
            }
            (Family::Gfx12, "s_delay_alu") => {
                const ID: [&str; 12] = [
                    "NO_DEP",
                    "VALU_DEP_1",
                    "VALU_DEP_2",
                    "VALU_DEP_3",
                    "VALU_DEP_4",
                    "TRANS32_DEP_1",
                    "TRANS32_DEP_2",
                    "TRANS32_DEP_3",
                    "FMA_ACCUM_CYCLE_1",
                    "SALU_CYCLE_1",
                    "SALU_CYCLE_2",
                    "SALU_CYCLE_3",
                ];
                const SKIP: [&str; 6] = ["SAME", "NEXT", "SKIP_1", "SKIP_2", "SKIP_3", "SKIP_4"];
                let (id0, skip, id1) = (v & 0xf, (v >> 4) & 7, (v >> 7) & 0xf);
                if v >> 11 != 0 || id0 >= 12 || id1 >= 12 || skip >= 6 || v == 0 {
                    write!(w, " {v:#x}")?;
                    return Ok(true);
                }
                let mut first = true;
                let mut part = |w: &mut dyn Write, s: fmt::Arguments<'_>| -> fmt::Result {
                    w.write_str(if first { " " } else { " | " })?;
                    first = false;
                    w.write_fmt(s)
                };
                if id0 != 0 {
                    part(w, format_args!("instid0({})", ID[id0 as usize]))?;
                }
                if skip != 0 {
                    part(w, format_args!("instskip({})", SKIP[skip as usize]))?;
                }
                if id1 != 0 {
                    part(w, format_args!("instid1({})", ID[id1 as usize]))?;
                }
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// neg/abs of a VOP3 source.
    fn src_mods(&self, field: F) -> (bool, bool) {
        let i = match field {
            F::Src0 => 0,
            F::Src1 => 1,
            F::Src2 => 2,
            _ => return (false, false),
        };
        let e = self.entry();
        match self.format {
            Format::Vop3 => {
                // Probe bits: 2..5 abs, 5..8 neg.
                let abs = e.mods & (1 << (2 + i)) != 0 && self.field(F::Abs) & (1 << i) != 0;
                let neg = e.mods & (1 << (5 + i)) != 0 && self.field(F::Neg) & (1 << i) != 0;
                (neg, abs)
            }
            Format::Vop3b => {
                let neg = e.mods & (1 << (2 + i)) != 0 && self.field(F::Neg) & (1 << i) != 0;
                (neg, false)
            }
            _ => (false, false),
        }
    }

    fn write_mods(&self, w: &mut dyn Write, nsrc: usize, t16: bool) -> fmt::Result {
        let e = self.entry();
        let m = |i: u32| e.mods & (1 << i) != 0;
        let gfx940 = matches!(self.target, Target::Gfx942 | Target::Gfx950);
        let arr = |w: &mut dyn Write, name: &str, v: u32, n: usize| -> fmt::Result {
            write!(w, " {name}:[")?;
            for i in 0..n {
                if i > 0 {
                    w.write_char(',')?;
                }
                write!(w, "{}", (v >> i) & 1)?;
            }
            w.write_char(']')
        };
        match self.format {
            Format::Vop3 => {
                let os = self.field(F::OpSel);
                if os != 0 && !t16 && (m(8) || m(9) || m(10) || m(11)) {
                    arr(w, "op_sel", os, nsrc + 1)?;
                }
                if m(0) && self.field(F::Clamp) != 0 {
                    w.write_str(" clamp")?;
                }
                if m(1) {
                    omod(w, self.field(F::Omod))?;
                }
            }
            Format::Vop3b => {
                if m(0) && self.field(F::Clamp) != 0 {
                    w.write_str(" clamp")?;
                }
                if m(1) {
                    omod(w, self.field(F::Omod))?;
                }
            }
            Format::Vop3p => {
                let os = self.field(F::OpSel);
                let hi = self.field(F::OpSelHi) | (self.field(F::OpSelHi2) << 2);
                let full = (1u32 << nsrc) - 1;
                if os & full != 0 {
                    arr(w, "op_sel", os, nsrc)?;
                }
                if hi & full != full {
                    arr(w, "op_sel_hi", hi, nsrc)?;
                }
                let neg = self.field(F::Neg);
                if neg & full != 0 {
                    arr(w, "neg_lo", neg, nsrc)?;
                }
                let nh = self.field(F::NegHi);
                if nh & full != 0 {
                    arr(w, "neg_hi", nh, nsrc)?;
                }
                if m(0) && self.field(F::Clamp) != 0 {
                    w.write_str(" clamp")?;
                }
            }
            Format::Mai => {
                for (i, (f, name)) in [(F::Cbsz, "cbsz"), (F::Abid, "abid"), (F::Blgp, "blgp")]
                    .into_iter()
                    .enumerate()
                {
                    let v = self.field(f);
                    if v != 0 && m(i as u32) {
                        write!(w, " {name}:{v}")?;
                    }
                }
            }
            Format::Smem => {
                if self.target.family() == Family::Gfx9 {
                    if self.variant == 2 {
                        write!(w, " offset:{:#x}", self.field(F::Offset))?;
                    }
                    if m(0) && self.field(F::Glc) != 0 {
                        w.write_str(" glc")?;
                    }
                } else {
                    th_scope(w, self, true)?;
                }
            }
            Format::Ds => {
                let (o0, o1) = (self.field(F::Offset0), self.field(F::Offset1));
                let two = e.mnemonic.contains("2addr")
                    || e.mnemonic.contains("read2")
                    || e.mnemonic.contains("write2")
                    || e.mnemonic.contains("wrxchg2")
                    || e.mnemonic.contains("load_2")
                    || e.mnemonic.contains("store_2")
                    || e.mnemonic.contains("storexchg_2");
                let gds = self.target.family() == Family::Gfx9;
                let (mo0, mo1) = if gds { (2, 3) } else { (0, 1) };
                if two {
                    if o0 != 0 && m(mo0) {
                        write!(w, " offset0:{o0}")?;
                    }
                    if o1 != 0 && m(mo1) {
                        write!(w, " offset1:{o1}")?;
                    }
                } else if (o0 | o1 << 8) != 0 && (m(mo0) || m(mo1)) {
                    write!(w, " offset:{}", o0 | o1 << 8)?;
                }
                if gds && m(0) && self.field(F::Gds) != 0 {
                    w.write_str(" gds")?;
                }
            }
            Format::Flat | Format::Global | Format::Scratch => {
                let o = self.field(F::Offset);
                if self.target.family() == Family::Gfx9 {
                    let o = if self.format == Format::Flat {
                        (o & 0xFFF) as i32
                    } else {
                        sext(o, 13)
                    };
                    if o != 0 && (m(4) || m(5)) {
                        write!(w, " offset:{o}")?;
                    }
                    cache9(w, self, gfx940, [(F::Glc, 0), (F::Slc, 1), (F::Scc, 2)])?;
                } else {
                    let o = sext(o, 24);
                    if o != 0 && (m(2) || m(3)) {
                        write!(w, " offset:{o}")?;
                    }
                    th_scope(w, self, false)?;
                }
            }
            Format::Mubuf | Format::Mtbuf => {
                if self.target.family() == Family::Gfx9 {
                    if self.field(F::Idxen) != 0 {
                        w.write_str(" idxen")?;
                    }
                    if self.field(F::Offen) != 0 {
                        w.write_str(" offen")?;
                    }
                    let o = self.field(F::Offset);
                    if o != 0 && m(4) {
                        write!(w, " offset:{o}")?;
                    }
                    cache9(w, self, gfx940, [(F::Glc, 0), (F::Slc, 1), (F::Scc, 2)])?;
                    if self.format == Format::Mubuf && self.field(F::Lds) != 0 {
                        w.write_str(" lds")?;
                    }
                } else {
                    if self.field(F::Idxen) != 0 {
                        w.write_str(" idxen")?;
                    }
                    if self.field(F::Offen) != 0 {
                        w.write_str(" offen")?;
                    }
                    let o = self.field(F::Offset);
                    if o != 0 && m(2) {
                        write!(w, " offset:{o:#x}")?;
                    }
                    th_scope(w, self, false)?;
                }
            }
            _ => {}
        }
        Ok(())
    }
}

fn omod(w: &mut dyn Write, v: u32) -> fmt::Result {
    match v {
        1 => w.write_str(" mul:2"),
        2 => w.write_str(" mul:4"),
        3 => w.write_str(" div:2"),
        _ => Ok(()),
    }
}

/// GFX9 cache-policy bits: glc/slc/scc (gfx90a) or sc0/nt/sc1 (gfx94x), printed in
/// LLVM's order.
fn cache9(w: &mut dyn Write, i: &Inst, gfx940: bool, probes: [(F, u32); 3]) -> fmt::Result {
    let e = i.entry();
    let on = |f: F, p: u32| e.mods & (1 << p) != 0 && i.field(f) != 0;
    let [(glc, pg), (slc, ps), (scc, pc)] = probes;
    if gfx940 && i.format == Format::Mtbuf {
        // MTBUF prints its cache bits in encoding order (nt at bit 54 before sc1 at 53
        // is what LLVM 22 prints).
        if on(glc, pg) {
            w.write_str(" sc0")?;
        }
        if on(slc, ps) {
            w.write_str(" nt")?;
        }
        if on(scc, pc) {
            w.write_str(" sc1")?;
        }
    } else if gfx940 {
        if on(glc, pg) {
            w.write_str(" sc0")?;
        }
        if on(scc, pc) {
            w.write_str(" sc1")?;
        }
        if on(slc, ps) {
            w.write_str(" nt")?;
        }
    } else {
        if on(glc, pg) {
            w.write_str(" glc")?;
        }
        if on(slc, ps) {
            w.write_str(" slc")?;
        }
        if on(scc, pc) {
            w.write_str(" scc")?;
        }
    }
    Ok(())
}

/// GFX12 temporal hint and scope.
fn th_scope(w: &mut dyn Write, i: &Inst, smem: bool) -> fmt::Result {
    let th = i.field(F::Th);
    let scope = i.field(F::Scope);
    let m = i.mnemonic();
    let store = m.contains("store");
    let atomic = m.contains("atomic");
    if th != 0 {
        if atomic {
            let mut parts = [""; 3];
            let mut n = 0;
            if th & 1 != 0 {
                parts[n] = "TH_ATOMIC_RETURN";
                n += 1;
            }
            if th & 2 != 0 {
                parts[n] = "TH_ATOMIC_NT";
                n += 1;
            }
            if th & 4 != 0 {
                parts[n] = "TH_ATOMIC_CASCADE";
                n += 1;
            }
            w.write_str(" th:")?;
            for (k, p) in parts[..n].iter().enumerate() {
                if k > 0 {
                    w.write_char('_')?;
                }
                w.write_str(p)?;
            }
        } else {
            let names_load = ["RT", "NT", "HT", "LU", "NT_RT", "RT_NT", "NT_HT", "7"];
            let names_store = ["RT", "NT", "HT", "WB", "NT_RT", "RT_NT", "NT_HT", "NT_WB"];
            let th = th as usize;
            let name = if store {
                names_store[th]
            } else {
                names_load[th]
            };
            let name = if th == 3 && scope == 3 {
                "BYPASS"
            } else {
                name
            };
            let kind = if store { "STORE" } else { "LOAD" };
            write!(w, " th:TH_{kind}_{name}")?;
        }
    }
    let _ = smem;
    if scope != 0 {
        let s = ["CU", "SE", "DEV", "SYS"][scope as usize & 3];
        write!(w, " scope:SCOPE_{s}")?;
    }
    Ok(())
}

impl fmt::Display for Inst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_asm(f)
    }
}
