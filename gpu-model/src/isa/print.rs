//! LLVM-compatible assembly text of a decoded instruction (no allocation).

use super::decode::{table, Inst};
use super::ext::Ext;
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

pub(super) fn sext(v: u32, bits: u32) -> i32 {
    ((v << (32 - bits)) as i32) >> (32 - bits)
}

impl Inst {
    /// Writes the instruction as LLVM 22 prints it (`llvm-objdump -d` text column).
    pub fn write_asm(&self, w: &mut dyn Write) -> fmt::Result {
        let e = self.entry();
        let ext = self.ext();
        match ext {
            Some(x) => self.write_ext_mnemonic(w, x)?,
            None => w.write_str(e.mnemonic)?,
        }
        if self.format == Format::Sopp && self.write_special_sopp(w)? {
            return Ok(());
        }
        if self.format == Format::Exp {
            return super::sym::exp(w, self);
        }
        let ops = self.syntax();
        let lead = if self.write_atomic_return(w, ops)? {
            ", "
        } else {
            " "
        };
        self.write_ops(w, ops, lead)?;
        if let Some(x) = ext {
            return self.write_ext_mods(w, x);
        }
        if let Some(y) = self.entry_y() {
            w.write_str(" :: ")?;
            w.write_str(y.mnemonic)?;
            return self.write_ops(w, self.syntax_y(), " ");
        }
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
        self.write_mods(w, nsrc, t16)
    }

    /// A FLAT/GLOBAL/SCRATCH atomic with its return bit set (GFX9 glc/sc0, GFX12
    /// th:TH_ATOMIC_RETURN) prints its destination first: as many registers as the data
    /// operand, half of them for compare-and-swap. Returns whether it printed one. (The
    /// learned syntax is the non-returning one, so [`Inst::operand`] does not list it;
    /// read [`F::Vdst`].)
    fn write_atomic_return(&self, w: &mut dyn Write, ops: &[Opnd]) -> Result<bool, fmt::Error> {
        if !matches!(self.format, Format::Flat | Format::Global | Format::Scratch) {
            return Ok(false);
        }
        let m = self.entry().mnemonic;
        if !m.contains("_atomic_") {
            return Ok(false);
        }
        let ret = match self.target.family() {
            Family::Gfx9 => self.field(F::Glc),
            Family::Gfx12 => self.field(F::Th) & 1,
        };
        let Some(regs) = ops.iter().find_map(|o| match o {
            Opnd::Reg {
                field: F::Data,
                regs,
                ..
            } => Some(*regs),
            _ => None,
        }) else {
            return Ok(false);
        };
        if ret == 0 {
            return Ok(false);
        }
        let regs = if m.contains("cmpswap") {
            (regs / 2).max(1)
        } else {
            regs
        };
        let c = if self.acc_field(F::Vdst) { b'a' } else { b'v' };
        w.write_char(' ')?;
        write_regs(w, c, self.field(F::Vdst), regs)?;
        Ok(true)
    }

    /// LLVM's comment after a register tuple that must start at an even register but
    /// does not (GFX9 `..._Align2` classes).
    fn write_align(
        &self,
        w: &mut dyn Write,
        tab: &super::table::Table,
        align: u16,
        first: u32,
        field: F,
    ) -> fmt::Result {
        if align == 0 || first & 1 == 0 {
            return Ok(());
        }
        let name = tab.strings.get(usize::from(align)).copied().unwrap_or("");
        // The class was learned with VGPRs in the plain encoding: an acc bit makes it the
        // AGPR class, and a DPP/SDWA src0 takes VGPRs only.
        let (pre, rest) = match (name.strip_prefix("VReg_"), name.strip_prefix("VS_")) {
            (Some(r), _) if self.acc_field(field) => ("AReg_", r),
            (_, Some(r)) if self.ext().is_some() && field == F::Src0 => ("VReg_", r),
            _ => ("", name),
        };
        write!(
            w,
            "/*Invalid register, operand has '{pre}{rest}' register class*/"
        )
    }

    /// Writes operands (after the mnemonic) in LLVM's syntax; `lead` goes before the
    /// first.
    fn write_ops(&self, w: &mut dyn Write, ops: &[Opnd], lead: &str) -> fmt::Result {
        let tab = table(self.target, self.wave32);
        let lay = self.layout();
        let gfx12 = self.target.family() == Family::Gfx12;
        let e = self.entry();
        let ext = self.ext();
        // SDWA: an SGPR in vsrc1 prints with src0's class names.
        let src0_class = ops.iter().find_map(|o| match o {
            Opnd::Reg {
                field: F::Src0,
                class,
                ..
            } => Some(*class),
            _ => None,
        });
        // LLVM 22 quirk (GFX12 DPP v_cndmask_b32): the `|` closing an abs src1 is
        // written after the implicit mask that follows it (`|v1, vcc_lo|`).
        let mut close_abs_after_text = false;
        for (i, o) in ops.iter().enumerate() {
            if let Opnd::Imm {
                field, omit0: true, ..
            } = *o
            {
                if self.field(field) == 0 {
                    continue;
                }
            }
            w.write_str(if i == 0 { lead } else { ", " })?;
            match *o {
                Opnd::Text(_)
                    if i == 0 && ext == Some(Ext::Sdwa) && self.format == Format::Vopc =>
                {
                    self.write_sdwa_sdst(w)?
                }
                // The generator learns one sample of the symbolic hwreg operand.
                Opnd::Text(t) if t.starts_with("hwreg(") => {
                    super::sym::hwreg(w, self.target, self.field(F::Simm16))?
                }
                Opnd::Text(t) => {
                    w.write_str(t)?;
                    if close_abs_after_text {
                        close_abs_after_text = false;
                        w.write_char('|')?;
                    }
                }
                Opnd::KLit if self.format == Format::Sopk => {
                    super::sym::imm32_f32(w, self.literal.unwrap_or(0))?
                }
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
                    align,
                } => {
                    let Some(fl) = lay.field(field) else { continue };
                    let ext_v = self.ext_src(field);
                    let v = if field == F::VdstY {
                        self.field(field)
                    } else {
                        ext_v.unwrap_or_else(|| layout::get(self.bits, fl))
                    };
                    let (neg, abs, sx) = match ext {
                        Some(_) => self.ext_src_mods(field),
                        None => {
                            let (n, a) = self.src_mods(field);
                            (n, a, false)
                        }
                    };
                    // LLVM writes the negation of a constant as `neg(c)` (not `--1`).
                    let constant = matches!(v, 128..=208 | 240..=248)
                        || (v == 255 && lay.literal && fl.role != Role::Vgpr8);
                    let imm = constant
                        && match fl.role {
                            Role::Src9 | Role::Ssrc8 => true,
                            // SDWA vsrc1 holding a scalar code.
                            Role::Vgpr8 => field == F::Vsrc1 && ext_v.is_some(),
                            _ => false,
                        };
                    let negm = neg && !abs && imm;
                    if negm {
                        w.write_str("neg(")?;
                    } else if neg {
                        w.write_char('-')?;
                    }
                    if abs {
                        w.write_char('|')?;
                    }
                    if sx {
                        w.write_str("sext(")?;
                    }
                    if field == F::Vsrc1 && ext_v.is_some() {
                        // SDWA vsrc1 holding an SGPR code.
                        let c = &tab.classes[usize::from(src0_class.unwrap_or(0))];
                        let s = c.names.get(v as usize).copied().unwrap_or(0);
                        w.write_str(tab.strings[usize::from(s)])?;
                        if sx {
                            w.write_char(')')?;
                        }
                        if abs {
                            w.write_char('|')?;
                        }
                        if negm {
                            w.write_char(')')?;
                        }
                        continue;
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
                        self.write_align(w, tab, align, v, field)?;
                    } else if fl.role == Role::Src9 && v >= 256 {
                        let c = if self.acc_field(field) { b'a' } else { cls };
                        let c = if c == b's' { b'v' } else { c };
                        write_regs(w, c, v - 256, regs)?;
                        self.write_align(w, tab, align, v - 256, field)?;
                    } else if v == 255 && lay.literal {
                        let c = &tab.classes[usize::from(class)];
                        write_literal(w, c.lit, self.literal.unwrap_or(0))?;
                    } else {
                        let c = &tab.classes[usize::from(class)];
                        let s = c.names.get(v as usize).copied().unwrap_or(0);
                        w.write_str(tab.strings[usize::from(s)])?;
                    }
                    if sx {
                        w.write_char(')')?;
                    }
                    let defer = abs
                        && gfx12
                        && ext.is_some()
                        && field == F::Vsrc1
                        && matches!(ops.get(i + 1), Some(Opnd::Text(_)));
                    if defer {
                        close_abs_after_text = true;
                    } else if abs {
                        w.write_char('|')?;
                    }
                    if negm {
                        w.write_char(')')?;
                    }
                }
            }
        }
        Ok(())
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
            Format::Vop3 if self.bitop3().is_some() => (false, false),
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
                let b3 = self.bitop3();
                match b3 {
                    Some(v @ 1..=10) => write!(w, " bitop3:{v}")?,
                    Some(v @ 11..) => write!(w, " bitop3:{v:#x}")?,
                    _ => {}
                }
                let os = self.field(F::OpSel);
                if os != 0 && !t16 && (m(8) || m(9) || m(10) || m(11)) {
                    arr(w, "op_sel", os, nsrc + 1)?;
                }
                if m(0) && self.field(F::Clamp) != 0 {
                    w.write_str(" clamp")?;
                }
                if m(1) && b3.is_none() {
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
                // v_fma_mix*: op_sel_hi selects f16 sources and defaults to 0.
                let mix = e.mnemonic.starts_with("v_fma_mix");
                if (mix && hi & full != 0) || (!mix && hi & full != full) {
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
                    super::sym::smem12_tail(w, self)?;
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
                    if e.mnemonic == "ds_swizzle_b32" {
                        w.write_str(" offset:")?;
                        swizzle(w, o0 | o1 << 8)?;
                    } else {
                        write!(w, " offset:{}", o0 | o1 << 8)?;
                    }
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
                    if self.format == Format::Mtbuf {
                        super::sym::mtbuf_format9(w, self.field(F::Dfmt), self.field(F::Nfmt))?;
                    }
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
                        write!(w, " offset:{o}")?;
                    }
                    th_scope(w, self, false)?;
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// The `ds_swizzle_b32` offset in LLVM's symbolic `swizzle(...)` syntax: bits 15:8 =
/// 0x80 is a quad permute (four 2-bit lane selects), bits 15:13 = 0b111 an FFT swizzle,
/// 0b110 a rotate (direction bit 10, amount bits 9:5), other values with bit 15 set
/// print in decimal; otherwise bits 4:0, 9:5 and 14:10 are the
/// and/or/xor masks of a bitmask permute, printed in its most specific form.
fn swizzle(w: &mut dyn Write, v: u32) -> fmt::Result {
    if v & 0xFF00 == 0x8000 {
        return write!(
            w,
            "swizzle(QUAD_PERM,{},{},{},{})",
            v & 3,
            (v >> 2) & 3,
            (v >> 4) & 3,
            (v >> 6) & 3
        );
    }
    if v & 0xE000 == 0xE000 {
        return write!(w, "swizzle(FFT,{})", v & 0x1F);
    }
    if v & 0xE000 == 0xC000 {
        return write!(w, "swizzle(ROTATE,{},{})", (v >> 10) & 1, (v >> 5) & 0x1F);
    }
    if v & 0x8000 != 0 {
        return write!(w, "{v}");
    }
    let (and, or, xor) = (v & 0x1F, (v >> 5) & 0x1F, (v >> 10) & 0x1F);
    if and == 0x1F && or == 0 && xor.count_ones() == 1 {
        return write!(w, "swizzle(SWAP,{xor})");
    }
    if and == 0x1F && or == 0 && xor > 0 && (xor + 1).is_power_of_two() {
        return write!(w, "swizzle(REVERSE,{})", xor + 1);
    }
    let group = 0x1F - and + 1;
    if group > 1 && group.is_power_of_two() && or < group && xor == 0 {
        return write!(w, "swizzle(BROADCAST,{group},{or})");
    }
    // Per lane-id bit (high to low): what a lane with that bit 0 / 1 reads.
    let p0 = or ^ xor;
    let p1 = ((0x1F & and) | or) ^ xor;
    w.write_str("swizzle(BITMASK_PERM,\"")?;
    for b in (0..5).rev() {
        let (a, c) = ((p0 >> b) & 1, (p1 >> b) & 1);
        w.write_char(match (a, c) {
            (1, 1) => '1',
            (0, 0) => '0',
            (0, _) => 'p',
            _ => 'i',
        })?;
    }
    w.write_str("\")")
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
pub(super) fn th_scope(w: &mut dyn Write, i: &Inst, smem: bool) -> fmt::Result {
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
