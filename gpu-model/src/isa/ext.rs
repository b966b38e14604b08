//! DPP16, DPP8 and SDWA: the extension dword after a VOP1/VOP2/VOPC word (validity,
//! fields, and the text LLVM prints for them).

use super::decode::Inst;
use super::layout::{self, ExtKind, Field, Format, F};
use super::table::{Entry, Opnd, Table};
use crate::target::Family;
use std::fmt::{self, Write};

/// The extension dword of a 32-bit VALU encoding (selected by the src0 code).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Ext {
    /// DPP16 (GFX9: "DPP"): src0 = 250. Fields: [`F::ExtSrc0`], [`F::DppCtrl`],
    /// [`F::RowMask`], [`F::BankMask`], [`F::BoundCtrl`], [`F::Fi`] (GFX12), and
    /// [`F::Src0Neg`]/[`F::Src0Abs`]/[`F::Src1Neg`]/[`F::Src1Abs`].
    Dpp16,
    /// DPP8 (GFX12): src0 = 233, or 234 with fetch-inactive ([`F::Fi`] reads 1).
    /// Fields: [`F::ExtSrc0`], [`F::Dpp8Sel`].
    Dpp8,
    /// SDWA (GFX9): src0 = 249. Fields: [`F::ExtSrc0`], [`F::SdwaS0`], [`F::SdwaS1`],
    /// [`F::SdwaDstSel`], [`F::SdwaDstUnused`], [`F::SdwaSrc0Sel`], [`F::SdwaSrc1Sel`],
    /// [`F::Src0Sext`]/[`F::Src1Sext`], neg/abs as DPP16, [`F::Clamp`], [`F::Omod`];
    /// VOPC: [`F::Sdst`] and [`F::SdwaSd`] instead of dst_sel/dst_unused/clamp/omod.
    Sdwa,
}

/// The extension the src0 code selects (`None` for other formats or src0 codes): VOP1,
/// VOP2, VOPC src0 in dword0; GFX12 VOP3/VOP3B src0 in dword1 (`bits` holds both).
#[inline]
pub(crate) fn ext_of(gfx12: bool, format: Format, bits: u128) -> Option<Ext> {
    let s0 = match format {
        Format::Vop1 | Format::Vop2 | Format::Vopc => bits as u32 & 0x1FF,
        Format::Vop3 | Format::Vop3b if gfx12 => (bits >> 32) as u32 & 0x1FF,
        _ => return None,
    };
    match (gfx12, s0) {
        (_, 250) => Some(Ext::Dpp16),
        (true, 233 | 234) => Some(Ext::Dpp8),
        (false, 249) => Some(Ext::Sdwa),
        _ => None,
    }
}

impl Ext {
    /// The extension's fields (bit positions over the whole instruction).
    fn fields(self, format: Format) -> &'static [Field] {
        let vop3 = matches!(format, Format::Vop3 | Format::Vop3b);
        match self {
            Ext::Dpp16 if vop3 => layout::DPP16_VOP3,
            Ext::Dpp8 if vop3 => layout::DPP8_VOP3,
            Ext::Dpp16 => layout::DPP16,
            Ext::Dpp8 => layout::DPP8,
            Ext::Sdwa if format == Format::Vopc => layout::SDWA_C,
            Ext::Sdwa => layout::SDWA,
        }
    }
}

impl Ext {
    /// The generator's probe kind of this extension.
    fn kind(self) -> ExtKind {
        match self {
            Ext::Dpp16 => ExtKind::Dpp16,
            Ext::Dpp8 => ExtKind::Dpp8,
            Ext::Sdwa => ExtKind::Sdwa,
        }
    }
}

/// Modifier fields of an extension with a learned probe each (a set field must be
/// accepted by LLVM for this opcode, and prints only if LLVM prints it).
const MOD_FIELDS: [F; 10] = [
    F::Src0Neg,
    F::Src0Abs,
    F::Src0Sext,
    F::Src1Neg,
    F::Src1Abs,
    F::Src1Sext,
    F::Clamp,
    F::Omod,
    F::SdwaS0,
    F::SdwaS1,
];

/// Whether learned probe `p` of an entry has bit set in `mask`.
fn probe_bit(mask: u32, p: Option<usize>) -> bool {
    p.is_some_and(|i| mask & (1 << i) != 0)
}

/// Checks an extension dword against what LLVM accepts; `Err` names the field.
pub(crate) fn check(
    ext: Ext,
    format: Format,
    e: &Entry,
    ops: &[Opnd],
    bits: u128,
    tab: &Table,
) -> Result<(), &'static str> {
    let f = ext.fields(format);
    let g = |n: F| layout::find(f, n).map_or(0, |fl| layout::get(bits, fl));
    let kind = ext.kind();
    if !probe_bit(e.ext_ok, layout::ext_probe(kind, None)) {
        return Err(match ext {
            Ext::Dpp16 => "dpp",
            Ext::Dpp8 => "dpp8",
            Ext::Sdwa => "sdwa",
        });
    }
    for m in MOD_FIELDS {
        if g(m) != 0 && !probe_bit(e.ext_ok, layout::ext_probe(kind, Some(m))) {
            return Err(super::decode::field_name(m));
        }
    }
    if ext == Ext::Sdwa {
        if format == Format::Vopc
            && g(F::SdwaSd) != 0
            && !probe_bit(e.ext_ok, layout::ext_probe(kind, Some(F::SdwaSd)))
        {
            return Err("sd");
        }
        if format == Format::Vopc && g(F::SdwaSd) != 0 && sdwa_sdst_name(g(F::Sdst)).is_none() {
            return Err("sdst");
        }
        if format != Format::Vopc && g(F::SdwaDstSel) > 6 {
            return Err("dst_sel");
        }
        if g(F::SdwaSrc0Sel) > 6 {
            return Err("src0_sel");
        }
        if format == Format::Vop1 {
            if (bits >> 56) as u8 != 0 {
                return Err("src1_sel");
            }
        } else if g(F::SdwaSrc1Sel) > 6 {
            return Err("src1_sel");
        }
        // Scalar source codes must be valid codes of src0's class (vsrc1 has none).
        let class = ops.iter().find_map(|o| match o {
            Opnd::Reg {
                field: F::Src0,
                class,
                ..
            } => Some(*class),
            _ => None,
        });
        if let Some(class) = class {
            if g(F::SdwaS0) != 0 && !scalar_ok(tab, class, g(F::ExtSrc0)) {
                return Err("src0");
            }
            if g(F::SdwaS1) != 0 && !scalar_ok(tab, class, (bits >> 9) as u32 & 0xFF) {
                return Err("vsrc1");
            }
        }
    }
    Ok(())
}

/// The name of an SDWA VOPC SGPR-pair destination code.
enum SdstName {
    Text(&'static str),
    Sgpr(u32),
    Ttmp(u32),
}

/// SDWA VOPC destinations LLVM accepts (`None`: rejected).
fn sdwa_sdst_name(code: u32) -> Option<SdstName> {
    Some(match code {
        0..=101 => SdstName::Sgpr(code & !1),
        102 => SdstName::Text("flat_scratch"),
        104 => SdstName::Text("xnack_mask"),
        106 => SdstName::Text("vcc"),
        108..=123 => SdstName::Ttmp((code - 108) & !1),
        125 => SdstName::Text("null"),
        126 => SdstName::Text("exec"),
        _ => return None,
    })
}

/// Whether a scalar code has a name in an operand class (the src0 class for vsrc1).
fn scalar_ok(tab: &Table, class: u16, code: u32) -> bool {
    code < 255
        && tab
            .classes
            .get(usize::from(class))
            .and_then(|c| c.names.get(code as usize))
            .is_some_and(|&s| s != 0)
}

const SEL: [&str; 8] = [
    "BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD", "7",
];

impl Inst {
    /// The DPP/DPP8/SDWA extension of this instruction, if any. Its fields are read with
    /// [`Inst::field`]; [`Inst::operand`] gives the real sources (not the marker code
    /// that [`F::Src0`] holds).
    #[inline]
    pub fn ext(&self) -> Option<Ext> {
        ext_of(
            self.target.family() == Family::Gfx12,
            self.format,
            self.bits,
        )
    }

    /// A field of the extension dword, if this instruction has one with that field.
    pub(crate) fn ext_field(&self, f: F) -> Option<u32> {
        let ext = self.ext()?;
        if f == F::Fi && ext == Ext::Dpp8 {
            // The marker code: 234 is DPP8 with fetch-inactive.
            let vop3 = matches!(self.format, Format::Vop3 | Format::Vop3b);
            let s0 = (self.bits >> if vop3 { 32 } else { 0 }) as u32 & 0x1FF;
            return Some(u32::from(s0 == 234));
        }
        layout::find(ext.fields(self.format), f).map(|fl| layout::get(self.bits, fl))
    }

    /// The effective 9-bit source code of src0 or vsrc1 under an extension (VGPRs as
    /// 256 + n), or `None` when `field` is not changed by it.
    pub(crate) fn ext_src(&self, field: F) -> Option<u32> {
        let ext = self.ext()?;
        match (ext, field) {
            (Ext::Sdwa, F::Src0) => {
                let c = self.field(F::ExtSrc0);
                Some(if self.field(F::SdwaS0) != 0 {
                    c
                } else {
                    256 + c
                })
            }
            (Ext::Sdwa, F::Vsrc1) if self.field(F::SdwaS1) != 0 => Some(self.field(F::Vsrc1)),
            (_, F::Src0) => Some(256 + self.field(F::ExtSrc0)),
            _ => None,
        }
    }

    /// Mnemonic under an extension: `_e32` replaced by `_dpp`/`_sdwa` (GFX12 VOPC DPP
    /// and operand-less ops keep the plain name); GFX12 VOP3: `_e64_dpp`, also for
    /// operations that have no other encoding.
    pub(crate) fn write_ext_mnemonic(&self, w: &mut dyn Write, ext: Ext) -> fmt::Result {
        let m = self.entry().mnemonic;
        if matches!(self.format, Format::Vop3 | Format::Vop3b) {
            w.write_str(m.strip_suffix("_e64").unwrap_or(m))?;
            return w.write_str("_e64_dpp");
        }
        let base = m.strip_suffix("_e32").unwrap_or(m);
        w.write_str(base)?;
        let gfx12 = self.target.family() == Family::Gfx12;
        if self.syntax().is_empty() || (gfx12 && self.format == Format::Vopc) {
            return Ok(());
        }
        w.write_str(if ext == Ext::Sdwa { "_sdwa" } else { "_dpp" })
    }

    /// neg/abs/sext of src0 or vsrc1 under an extension, as LLVM prints them for this
    /// opcode: (neg, abs, sext).
    pub(crate) fn ext_src_mods(&self, field: F) -> (bool, bool, bool) {
        let (n, a, s) = match field {
            F::Src0 => (F::Src0Neg, F::Src0Abs, F::Src0Sext),
            F::Vsrc1 => (F::Src1Neg, F::Src1Abs, F::Src1Sext),
            _ => return (false, false, false),
        };
        (self.ext_mod(n), self.ext_mod(a), self.ext_mod(s))
    }

    /// Whether an extension modifier field is set and LLVM prints it for this opcode.
    pub(crate) fn ext_mod(&self, f: F) -> bool {
        let Some(ext) = self.ext() else { return false };
        self.field(f) != 0
            && probe_bit(
                self.entry().ext_shown,
                layout::ext_probe(ext.kind(), Some(f)),
            )
    }

    /// The destination of an SDWA compare whose `sd` bit names an SGPR pair instead of
    /// VCC (`None` for any other instruction): what [`Inst::operand`] gives for it.
    pub(crate) fn sdwa_sdst_operand(&self) -> Option<super::Operand> {
        if self.format != Format::Vopc
            || self.ext() != Some(Ext::Sdwa)
            || self.field(F::SdwaSd) == 0
        {
            return None;
        }
        let count = if self.wave32 { 1 } else { 2 };
        Some(match sdwa_sdst_name(self.field(F::Sdst))? {
            SdstName::Text(t) => super::Operand::Fixed(t),
            SdstName::Sgpr(n) => super::Operand::Sgpr {
                first: n as u16,
                count,
            },
            SdstName::Ttmp(n) => super::Operand::Sgpr {
                first: 108 + n as u16,
                count,
            },
        })
    }

    /// The SDWA VOPC destination text (`vcc` unless the sd bit names an SGPR pair; the
    /// pair is the code rounded down to even, as LLVM prints it).
    pub(crate) fn write_sdwa_sdst(&self, w: &mut dyn Write) -> fmt::Result {
        if self.field(F::SdwaSd) == 0 {
            return w.write_str("vcc");
        }
        match sdwa_sdst_name(self.field(F::Sdst)) {
            Some(SdstName::Text(t)) => w.write_str(t),
            Some(SdstName::Sgpr(n)) => write!(w, "s[{n}:{}]", n + 1),
            Some(SdstName::Ttmp(n)) => write!(w, "ttmp[{n}:{}]", n + 1),
            None => Ok(()),
        }
    }

    /// The controls LLVM prints after the operands of a DPP/DPP8/SDWA instruction.
    pub(crate) fn write_ext_mods(&self, w: &mut dyn Write, ext: Ext) -> fmt::Result {
        let gfx12 = self.target.family() == Family::Gfx12;
        match ext {
            Ext::Dpp8 => {
                let s = self.field(F::Dpp8Sel);
                w.write_str(" dpp8:[")?;
                for i in 0..8 {
                    if i > 0 {
                        w.write_char(',')?;
                    }
                    write!(w, "{}", (s >> (3 * i)) & 7)?;
                }
                w.write_char(']')?;
                if self.field(F::Fi) != 0 {
                    w.write_str(" fi:1")?;
                }
            }
            Ext::Dpp16 => {
                let c = self.field(F::DppCtrl);
                w.write_char(' ')?;
                // GFX9 64-bit operations take only row_newbcast.
                let dp = self.entry().ext_shown & 1 != 0 && !(0x150..=0x15F).contains(&c);
                match c {
                    _ if dp => w.write_str(" /* DP ALU dpp only supports row_newbcast */")?,
                    0..=0xFF => write!(
                        w,
                        "quad_perm:[{},{},{},{}]",
                        c & 3,
                        (c >> 2) & 3,
                        (c >> 4) & 3,
                        (c >> 6) & 3
                    )?,
                    0x101..=0x10F => write!(w, "row_shl:{}", c & 0xF)?,
                    0x111..=0x11F => write!(w, "row_shr:{}", c & 0xF)?,
                    0x121..=0x12F => write!(w, "row_ror:{}", c & 0xF)?,
                    0x140 => w.write_str("row_mirror")?,
                    0x141 => w.write_str("row_half_mirror")?,
                    0x150..=0x15F if gfx12 => write!(w, "row_share:{}", c & 0xF)?,
                    0x160..=0x16F if gfx12 => write!(w, "row_xmask:{}", c & 0xF)?,
                    0x130 | 0x134 | 0x138 | 0x13C | 0x142 | 0x143 if gfx12 => {
                        let name = match c {
                            0x130 => "wave_shl",
                            0x134 => "wave_rol",
                            0x138 => "wave_shr",
                            0x13C => "wave_ror",
                            _ => "row_bcast",
                        };
                        write!(w, "/* {name} is not supported starting from GFX10 */")?
                    }
                    0x130 => w.write_str("wave_shl:1")?,
                    0x134 => w.write_str("wave_rol:1")?,
                    0x138 => w.write_str("wave_shr:1")?,
                    0x13C => w.write_str("wave_ror:1")?,
                    0x142 => w.write_str("row_bcast:15")?,
                    0x143 => w.write_str("row_bcast:31")?,
                    0x150..=0x15F => write!(w, "row_newbcast:{}", c & 0xF)?,
                    0x160..=0x16F => {
                        w.write_str("/* row_xmask is not supported on ASICs earlier than GFX10 */")?
                    }
                    _ => w.write_str("/* Invalid dpp_ctrl value */")?,
                }
                write!(
                    w,
                    " row_mask:{:#x} bank_mask:{:#x}",
                    self.field(F::RowMask),
                    self.field(F::BankMask)
                )?;
                if self.field(F::BoundCtrl) != 0 {
                    w.write_str(" bound_ctrl:1")?;
                }
                if gfx12 && self.field(F::Fi) != 0 {
                    w.write_str(" fi:1")?;
                }
            }
            Ext::Sdwa => {
                if self.syntax().is_empty() {
                    return Ok(());
                }
                if self.format != Format::Vopc {
                    if self.ext_mod(F::Clamp) {
                        w.write_str(" clamp")?;
                    }
                    let omod = if self.ext_mod(F::Omod) {
                        self.field(F::Omod)
                    } else {
                        0
                    };
                    match omod {
                        1 => w.write_str(" mul:2")?,
                        2 => w.write_str(" mul:4")?,
                        3 => w.write_str(" div:2")?,
                        _ => {}
                    }
                    let un = ["UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE", "UNUSED_PAD"];
                    write!(
                        w,
                        " dst_sel:{} dst_unused:{}",
                        SEL[self.field(F::SdwaDstSel) as usize & 7],
                        un[self.field(F::SdwaDstUnused) as usize & 3]
                    )?;
                }
                write!(
                    w,
                    " src0_sel:{}",
                    SEL[self.field(F::SdwaSrc0Sel) as usize & 7]
                )?;
                if self.format != Format::Vop1 {
                    write!(
                        w,
                        " src1_sel:{}",
                        SEL[self.field(F::SdwaSrc1Sel) as usize & 7]
                    )?;
                }
            }
        }
        Ok(())
    }
}
