//! Typed operands of a decoded instruction.

use super::decode::Inst;
use super::layout::{self, Role, F};
use super::table::Opnd;

/// A decoded operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Operand {
    /// Scalar registers `s[first .. first+count]` (also special registers by code:
    /// VCC = 106, EXEC = 126, M0 = 124 on GFX9 / 125 on GFX12, NULL = 124 on GFX12).
    Sgpr {
        /// First register code.
        first: u16,
        /// Number of registers.
        count: u8,
    },
    /// Vector registers `v[first .. first+count]`.
    Vgpr {
        /// First register.
        first: u16,
        /// Number of registers.
        count: u8,
    },
    /// Accumulation registers `a[first .. first+count]` (GFX9).
    Agpr {
        /// First register.
        first: u16,
        /// Number of registers.
        count: u8,
    },
    /// An inline constant: the raw source code (128..=208 integers, 240..=248 floats).
    Inline(u16),
    /// A 32-bit literal.
    Literal(u32),
    /// A special source code (235..=253: apertures, vccz, execz, scc, ...).
    Special(u16),
    /// An immediate field value.
    Imm(u32),
    /// An implicit or fixed operand printed as text (e.g. `vcc`, `off`).
    Fixed(&'static str),
}

impl Inst {
    /// Number of operands in the assembly syntax.
    pub fn num_operands(&self) -> usize {
        self.syntax().len()
    }

    /// The `i`-th operand in assembly order, if any (VOPD: of the X half).
    pub fn operand(&self, i: usize) -> Option<Operand> {
        self.operand_of(self.syntax(), i)
    }

    /// VOPD: number of operands of the Y half (0 for other formats).
    pub fn num_operands_y(&self) -> usize {
        self.syntax_y().len()
    }

    /// VOPD: the `i`-th operand of the Y half in assembly order, if any. The Y
    /// destination is the whole register (see [`F::VdstY`]).
    pub fn operand_y(&self, i: usize) -> Option<Operand> {
        self.operand_of(self.syntax_y(), i)
    }

    fn operand_of(&self, syntax: &[Opnd], i: usize) -> Option<Operand> {
        let o = *syntax.get(i)?;
        let lay = self.layout();
        Some(match o {
            // An SDWA compare with `sd` writes the SGPR pair its sdst names, not VCC.
            Opnd::Text(t) => match i {
                0 => self.sdwa_sdst_operand().unwrap_or(Operand::Fixed(t)),
                _ => Operand::Fixed(t),
            },
            Opnd::KLit => Operand::Literal(self.literal.unwrap_or(0)),
            Opnd::Imm { field, .. } => Operand::Imm(self.field(field)),
            Opnd::Reg {
                field, cls, regs, ..
            } => {
                let fl = lay.field(field)?;
                let ext_v = self.ext_src(field);
                if field == F::Vsrc1 && ext_v.is_some() {
                    // SDWA vsrc1 holding an SGPR code.
                    return Some(Operand::Sgpr {
                        first: self.field(F::Vsrc1) as u16,
                        count: regs,
                    });
                }
                let v = ext_v.unwrap_or_else(|| layout::get(self.bits, fl));
                let regs = self.src_regs(field, regs);
                let reg = |first: u32| {
                    let first = first as u16;
                    if cls == b'a' || self.acc_field(field) {
                        Operand::Agpr { first, count: regs }
                    } else {
                        Operand::Vgpr { first, count: regs }
                    }
                };
                match fl.role {
                    Role::VdstY => reg(self.field(F::VdstY)),
                    Role::Vgpr8 if cls == b's' => Operand::Sgpr {
                        first: v as u16,
                        count: regs,
                    },
                    Role::Vgpr8 => reg(v),
                    Role::SgprHalf => Operand::Sgpr {
                        first: (v * 2) as u16,
                        count: regs,
                    },
                    Role::SgprQuarter => Operand::Sgpr {
                        first: (v * 4) as u16,
                        count: regs,
                    },
                    _ if v >= 256 => reg(v - 256),
                    _ if v == 255 => Operand::Literal(self.literal.unwrap_or(0)),
                    _ if (128..=208).contains(&v) || (240..=248).contains(&v) => {
                        Operand::Inline(v as u16)
                    }
                    _ if v >= 209 => Operand::Special(v as u16),
                    _ => Operand::Sgpr {
                        first: v as u16,
                        count: regs,
                    },
                }
            }
        })
    }

    /// Whether a GFX9 acc bit turns this register field into AGPRs.
    pub(crate) fn acc_field(&self, field: F) -> bool {
        use super::layout::Format as Fm;
        if self.target.family() != crate::target::Family::Gfx9 {
            return false;
        }
        match self.format {
            Fm::Ds => matches!(field, F::Vdst | F::Data0 | F::Data1) && self.field(F::Acc) != 0,
            Fm::Flat | Fm::Global | Fm::Scratch => {
                matches!(field, F::Vdst | F::Data) && self.field(F::Acc) != 0
            }
            Fm::Mubuf | Fm::Mtbuf | Fm::Mimg => field == F::Vdata && self.field(F::Acc) != 0,
            Fm::Mai | Fm::Vop3px2 => match field {
                F::Vdst => self.field(F::AccCd) != 0,
                // SMFMAC src2 is the sparsity index: always a VGPR.
                F::Src2 => {
                    self.field(F::AccCd) != 0 && !self.entry().mnemonic.starts_with("v_smfmac")
                }
                F::Src0 => self.field(F::Acc) & 1 != 0,
                F::Src1 => self.field(F::Acc) & 2 != 0,
                _ => false,
            },
            _ => false,
        }
    }
}
