//! LLVM-compatible assembly text of a decoded instruction (no allocation).

use super::decode::{table, Inst};
use super::ext::Ext;
use super::layout::{self, Format, Role, F};
use super::table::{LitRule, Opnd};
use crate::target::{Family, Target};
use std::fmt::{self, Write};

#[path = "print/tuples.rs"]
mod tuples;

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
        if self.format == Format::Vdsdir {
            return super::sym::vdsdir(w, self);
        }
        if matches!(self.format, Format::Vsample | Format::Vimage) {
            return super::image::write(w, self);
        }
        let ops = self.syntax();
        let lead = if self.write_atomic_return(w, ops)? {
            ", "
        } else {
            " "
        };
        self.write_ops(w, ops, lead)?;
        if self.format == Format::Mimg {
            return super::mimg::write_mods(w, self);
        }
        let vop3 = matches!(self.format, Format::Vop3 | Format::Vop3b);
        if let (Some(x), false) = (ext, vop3) {
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
        self.write_mods(w, nsrc, t16)?;
        // GFX12 VOP3 DPP: the VOP3 modifiers, then the DPP controls.
        match ext {
            Some(x) => self.write_ext_mods(w, x),
            None => Ok(()),
        }
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
        let acc = self.acc_field(F::Vdst);
        let c = if acc { b'a' } else { b'v' };
        w.write_char(' ')?;
        let first = self.field(F::Vdst);
        write_regs(w, c, first, regs)?;
        // GFX9 (gfx90a+) VGPR tuples must start even; LLVM names the class.
        if self.target.family() == Family::Gfx9 && !acc && regs >= 2 && first & 1 != 0 {
            write!(
                w,
                "/*Invalid register, operand has 'VReg_{}_Align2' register class*/",
                32 * u32::from(regs)
            )?;
        }
        Ok(true)
    }

    /// A GFX12 buffer instruction whose tfe bit LLVM prints (vdata is one register
    /// wider).
    pub(crate) fn vbuffer_tfe(&self) -> bool {
        self.target.family() == Family::Gfx12
            && matches!(self.format, Format::Mubuf | Format::Mtbuf)
            && self.entry().mods & (1 << 3) != 0
            && self.field(F::Tfe) != 0
    }

    /// A GFX9 FLAT/GLOBAL/SCRATCH atomic with its return (glc/sc0) bit set.
    fn flat_atomic_returns(&self) -> bool {
        matches!(self.format, Format::Flat | Format::Global | Format::Scratch)
            && self.target.family() == Family::Gfx9
            && self.field(F::Glc) != 0
            && self.entry().mnemonic.contains("_atomic_")
    }

    /// Writes operands (after the mnemonic) in LLVM's syntax; `lead` goes before the
    /// first.
    fn write_ops(&self, w: &mut dyn Write, ops: &[Opnd], lead: &str) -> fmt::Result {
        let tab = table(self.target, self.wave32);
        let lay = self.layout();
        let gfx12 = self.target.family() == Family::Gfx12;
        let ext = self.ext();
        let vop3 = matches!(self.format, Format::Vop3 | Format::Vop3b);
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
                        let v = if gfx12 { sext(v, 24) } else { sext(v, 21) };
                        if v < 0 {
                            write!(w, "-{:#x}", v.unsigned_abs())?;
                        } else {
                            write!(w, "{v:#x}")?;
                        }
                    } else if self.format == Format::Smem && field == F::Sdata {
                        // A probe's or prefetch's sdata number: decimal up to 64.
                        if v <= 64 {
                            write!(w, "{v}")?;
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
                    // (A GFX12 VOP3 DPP word keeps its modifiers in the VOP3 fields.)
                    let (neg, abs, sx) = match ext {
                        Some(_) if !vop3 => self.ext_src_mods(field),
                        _ => {
                            let (n, a) = self.src_mods(field);
                            (n, a, false)
                        }
                    };
                    // LLVM writes the negation of a constant as `neg(c)` (not `--1`).
                    let constant = matches!(v, 128..=208 | 240..=248)
                        || (v == 255 && lay.literal && fl.role != Role::Vgpr8);
                    // VINTERP 16-bit sources are VGPRs whatever the code (LLVM reads
                    // the low 8 bits).
                    let interp16 = cls == b'l' && self.format == Format::Vinterp;
                    let imm = constant
                        && !interp16
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
                    if cls == b'l' && self.cmpx_fake16() && (class == u16::MAX || v >= 256) {
                        write!(w, "v{}", v & 0xFF)?;
                    } else if cls == b'l' && (class == u16::MAX || v >= 256 || interp16) {
                        let r = if fl.role == Role::Src9 { v & 0xFF } else { v };
                        let (n, hi) = if matches!(
                            self.format,
                            Format::Vop3 | Format::Vop3b | Format::Vinterp
                        ) {
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
                        let regs = if field == F::Vdata && self.format == Format::Mimg {
                            super::mimg::data_regs(self)
                        } else {
                            regs + u8::from(field == F::Vdata && self.vbuffer_tfe())
                        };
                        write_regs(w, c, v, regs)?;
                        self.write_align(w, tab, align, v, field)?;
                    } else if fl.role == Role::Src9 && v >= 256 {
                        let c = if self.acc_field(field) { b'a' } else { cls };
                        let c = if c == b's' { b'v' } else { c };
                        let n = self.src_regs(field, regs);
                        write_regs(w, c, v - 256, n)?;
                        if n == regs {
                            self.write_align(w, tab, align, v - 256, field)?;
                        } else {
                            self.write_sized_align(w, tab, align, v - 256, field, n)?;
                        }
                    } else if v == 255 && lay.literal {
                        let c = &tab.classes[usize::from(class)];
                        write_literal(w, c.lit, self.literal.unwrap_or(0))?;
                    } else {
                        let class = super::decode::sized_class(self.entry(), field, self.bits)
                            .unwrap_or(class);
                        let c = &tab.classes[usize::from(class)];
                        let s = c.names.get(v as usize).copied().unwrap_or(0);
                        let name = tab.strings[usize::from(s)];
                        // The class was learned without the acc bit: under it, LLVM's
                        // comment on a misaligned tuple names the AGPR class.
                        match name.split_once("'VReg_") {
                            Some((a, b)) if self.acc_field(field) => {
                                w.write_str(a)?;
                                w.write_str("'AReg_")?;
                                w.write_str(b)?;
                            }
                            _ => w.write_str(name)?,
                        }
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
            Format::Vinterp => {
                // Probe bits: 1..4 neg.
                let neg = e.mods & (1 << (1 + i)) != 0 && self.field(F::Neg) & (1 << i) != 0;
                (neg, false)
            }
            Format::Vop3p if e.mnemonic.starts_with("v_fma_mix") => (
                self.field(F::Neg) & (1 << i) != 0,
                self.field(F::NegHi) & (1 << i) != 0,
            ),
            _ => (false, false),
        }
    }

    /// A GFX12 VOP3 syntax with true16 operands and no destination operand
    /// (`v_cmpx_*_e64` on 16-bit values).
    fn t16_no_dst(&self) -> bool {
        let ops = self.syntax();
        self.format == Format::Vop3
            && self.target.family() == Family::Gfx12
            && ops.iter().any(|o| matches!(o, Opnd::Reg { cls: b'l', .. }))
            && !ops.iter().any(|o| {
                matches!(
                    o,
                    Opnd::Reg {
                        field: F::Vdst | F::Sdst,
                        ..
                    }
                )
            })
    }

    /// A true16 compare without a destination whose op_sel sets bits 2-3 (which it does
    /// not have): LLVM 22 decodes it through its fake16 tables, printing plain `vN`
    /// sources and no op_sel.
    fn cmpx_fake16(&self) -> bool {
        self.field(F::OpSel) & 0xC != 0 && self.t16_no_dst()
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
                // True16 operands show op_sel as .l/.h, and LLVM 22 (+real-true16) writes
                // op_sel out as well whenever it is set (`v_or_b16 v1.h, v2.l, v3.h
                // op_sel:[0,1,1]`, found in Triton's gfx12 output).
                // GFX12 operations whose op_sel bits 2-3 LLVM ignores (learned: their
                // probes print nothing) print the low two bits only: permlane16/x16 (fi,
                // bound_ctrl) as `op_sel:[a,b]`, fp8/bf8 conversions as `byte_sel`.
                let low2 =
                    self.target.family() == Family::Gfx12 && (m(8) || m(9)) && !(m(10) || m(11));
                // True16 compares without a destination (`v_cmpx_*_e64`): op_sel has one
                // entry per source, written whenever set (bits 2-3: see `cmpx_fake16`).
                let cmpx = t16 && self.t16_no_dst();
                let byte_sel = e.mnemonic.starts_with("v_cvt_f32_fp8")
                    || e.mnemonic.starts_with("v_cvt_f32_bf8");
                if cmpx {
                    if os & 3 != 0 && !self.cmpx_fake16() {
                        arr(w, "op_sel", os, 2)?;
                    }
                } else if low2 && os & 3 != 0 && byte_sel {
                    write!(w, " byte_sel:{}", (os & 1) << 1 | (os >> 1) & 1)?;
                } else if low2 && os & 3 != 0 {
                    arr(w, "op_sel", os, 2)?;
                } else if low2 {
                    // Bits 2-3 alone print nothing.
                } else if os != 0 && (m(8) || m(9) || m(10) || m(11)) {
                    // One entry per source, then the destination (bit 3).
                    let os = (os & ((1 << nsrc) - 1)) | ((os >> 3) & 1) << nsrc;
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
            Format::Vinterp => {
                // (op_sel is written out whenever it is set, even where .l/.h show it.)
                let os = self.field(F::OpSel);
                if m(0) && self.field(F::Clamp) != 0 {
                    w.write_str(" clamp")?;
                }
                if os != 0 && (m(4) || m(5) || m(6) || m(7)) {
                    arr(w, "op_sel", os, 4)?;
                }
                write!(w, " wait_exp:{}", self.field(F::WaitExp))?;
            }
            Format::Vop3p => {
                let os = self.field(F::OpSel);
                let hi = self.field(F::OpSelHi) | (self.field(F::OpSelHi2) << 2);
                let full = (1u32 << nsrc) - 1;
                if os & full != 0 {
                    arr(w, "op_sel", os, nsrc)?;
                }
                // v_fma_mix*: op_sel_hi selects f16 sources and defaults to 0.
                // (Not printed at all where LLVM ignores it: the learned probes.)
                let mix = e.mnemonic.starts_with("v_fma_mix");
                let hi_shown = m(4) || m(5) || m(6);
                if hi_shown && ((mix && hi & full != 0) || (!mix && hi & full != full)) {
                    arr(w, "op_sel_hi", hi, nsrc)?;
                }
                // v_fma_mix*: neg_lo/neg_hi are the sources' neg/abs (printed on them).
                let neg = self.field(F::Neg);
                // (Not printed where LLVM ignores the bits: v_mfma_ld_scale_b32.)
                if neg & full != 0 && !mix && (m(7) || m(8) || m(9)) {
                    arr(w, "neg_lo", neg, nsrc)?;
                }
                let nh = self.field(F::NegHi);
                if nh & full != 0 && !mix && (m(10) || m(11) || m(12)) {
                    arr(w, "neg_hi", nh, nsrc)?;
                }
                if m(0) && self.field(F::Clamp) != 0 {
                    w.write_str(" clamp")?;
                }
            }
            // gfx950 VOP3PX2: the scale operands' op_sel (when set) and op_sel_hi
            // (always) with three entries, then the MFMA's cbsz and blgp.
            Format::Vop3px2 => {
                let os = self.field(F::OpSel);
                if os != 0 && (m(5) || m(6)) {
                    arr(w, "op_sel", os, 3)?;
                }
                if m(7) || m(8) {
                    arr(w, "op_sel_hi", self.field(F::OpSelHi), 3)?;
                }
                for (i, (f, name)) in [(F::Cbsz, "cbsz"), (F::Blgp, "blgp")]
                    .into_iter()
                    .enumerate()
                {
                    let v = self.field(f);
                    if v != 0 && m(i as u32) {
                        write!(w, " {name}:{v}")?;
                    }
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
                    // soe: the immediate offset is added only with imm.
                    if self.variant == 2 && self.field(F::Imm) != 0 {
                        let o = sext(self.field(F::Offset), 21);
                        if o < 0 {
                            write!(w, " offset:-{:#x}", o.unsigned_abs())?;
                        } else {
                            write!(w, " offset:{o:#x}")?;
                        }
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
                        super::sym::swizzle(w, o0 | o1 << 8)?;
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
                    // FLAT offsets are unsigned: 12 bits on gfx90a, 13 on gfx94x.
                    let o = if self.format == Format::Flat && gfx940 {
                        o as i32
                    } else if self.format == Format::Flat {
                        (o & 0xFFF) as i32
                    } else {
                        sext(o, 13)
                    };
                    if o != 0 && (m(4) || m(5)) {
                        write!(w, " offset:{o}")?;
                    }
                    super::sym::cache9(w, self, gfx940, [(F::Glc, 0), (F::Slc, 1), (F::Scc, 2)])?;
                    // gfx90a GLOBAL/SCRATCH loads to LDS (the `lds` operand-syntax
                    // variants; on gfx94x the bit is SCRATCH's sve).
                    if self.target == Target::Gfx90a
                        && self.format != Format::Flat
                        && self.field(F::Lds) != 0
                    {
                        w.write_str(" lds")?;
                    }
                } else {
                    let o = sext(o, 24);
                    if o != 0 && (m(2) || m(3)) {
                        write!(w, " offset:{o}")?;
                    }
                    // Probes: 4 nv, 5 scale_offset (printed where LLVM prints them).
                    if m(5) && self.field(F::ScaleOffset) != 0 {
                        w.write_str(" scale_offset")?;
                    }
                    super::sym::th_scope(w, self)?;
                    if m(4) && self.field(F::Nv) != 0 {
                        w.write_str(" nv")?;
                    }
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
                    super::sym::cache9(w, self, gfx940, [(F::Glc, 0), (F::Slc, 1), (F::Scc, 2)])?;
                    if self.format == Format::Mubuf && self.field(F::Lds) != 0 {
                        w.write_str(" lds")?;
                    }
                } else {
                    if self.format == Format::Mtbuf {
                        let tab = table(self.target, self.wave32);
                        let f = self.field(F::Fmt) as usize;
                        if let Some(name) = tab.mtbuf_formats.get(f).filter(|n| !n.is_empty()) {
                            w.write_char(' ')?;
                            w.write_str(name)?;
                        }
                    }
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
                    super::sym::th_scope(w, self)?;
                    // Probes: 5 nv, 3 tfe (which also widens vdata by one register).
                    if m(5) && self.field(F::Nv) != 0 {
                        w.write_str(" nv")?;
                    }
                    if self.vbuffer_tfe() {
                        w.write_str(" tfe")?;
                    }
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

impl fmt::Display for Inst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_asm(f)
    }
}
