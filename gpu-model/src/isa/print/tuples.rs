//! Register tuples in the text: their sizes where an operation's format selectors set
//! them, and LLVM's comment on a tuple that must start at an even register.

use super::super::decode::Inst;
use super::super::layout::{Format, F};
use super::super::table::Table;
use std::fmt::{self, Write};

impl Inst {
    /// LLVM's comment after a register tuple that must start at an even register but
    /// does not (GFX9 `..._Align2` classes).
    pub(super) fn write_align(
        &self,
        w: &mut dyn Write,
        tab: &Table,
        align: u16,
        first: u32,
        field: F,
    ) -> fmt::Result {
        if align == 0 || first & 1 == 0 {
            return Ok(());
        }
        // LLVM 22 names no class for AGPR tuples of DS and of returning FLAT atomics,
        // and the VGPR class (not AV) for a returning FLAT atomic's data.
        let acc = self.acc_field(field);
        let flat_ret = self.flat_atomic_returns();
        if acc && (self.format == Format::Ds || flat_ret) {
            return Ok(());
        }
        let name = tab.strings.get(usize::from(align)).copied().unwrap_or("");
        // The class was learned with VGPRs in the plain encoding: an acc bit makes it the
        // AGPR class, and a DPP/SDWA src0 takes VGPRs only.
        let (pre, rest) = match (name.strip_prefix("VReg_"), name.strip_prefix("VS_")) {
            (Some(r), _) if acc => ("AReg_", r),
            _ if flat_ret && field == F::Data && name.starts_with("AV_") => ("VReg_", &name[3..]),
            (_, Some(r)) if self.ext().is_some() && field == F::Src0 => ("VReg_", r),
            _ => ("", name),
        };
        write!(
            w,
            "/*Invalid register, operand has '{pre}{rest}' register class*/"
        )
    }

    /// Registers in a source tuple: gfx950 `*_f8f6f4` MFMAs size src0 by cbsz and src1
    /// by blgp (the sizes per selector value are learned, in the entry's `addr`).
    pub(crate) fn src_regs(&self, field: F, regs: u8) -> u8 {
        if !matches!(self.format, Format::Mai | Format::Vop3px2) {
            return regs;
        }
        let sizes = self.entry().addr;
        let i = match field {
            F::Src0 => self.field(F::Cbsz),
            F::Src1 => 8 + self.field(F::Blgp),
            _ => return regs,
        };
        sizes.get(i as usize).copied().unwrap_or(regs)
    }

    /// The alignment comment of a tuple whose size is not the syntax's (`*_f8f6f4`
    /// sources under cbsz/blgp): the learned class is the base size's, LLVM names this
    /// size's (`AV_192_Align2`).
    pub(super) fn write_sized_align(
        &self,
        w: &mut dyn Write,
        tab: &Table,
        align: u16,
        first: u32,
        field: F,
        n: u8,
    ) -> fmt::Result {
        if align == 0 || first & 1 == 0 {
            return Ok(());
        }
        let name = tab.strings.get(usize::from(align)).copied().unwrap_or("");
        let pre = if self.acc_field(field) && name.starts_with("VReg_") {
            "AReg"
        } else {
            name.split('_').next().unwrap_or("")
        };
        let post = name.rsplit('_').next().unwrap_or("");
        write!(
            w,
            "/*Invalid register, operand has '{pre}_{}_{post}' register class*/",
            32 * u32::from(n)
        )
    }
}
