//! Types of the generated opcode tables (the data lives in `generated/`).

use super::layout::{Format, F};
use super::meta::{Counters, IssueClass};
use super::Op;

/// One operand of an instruction's assembly syntax, as learned from LLVM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opnd {
    /// Fixed text (an implicit operand such as `vcc`, or `off`).
    Text(&'static str),
    /// A constant in the literal dword that always follows (v_fmamk/v_fmaak K).
    KLit,
    /// A register or constant held in `field`. `cls` is the register class LLVM prints
    /// for register values (`b'v'`, `b's'`, `b'a'`), `regs` the tuple size and `class`
    /// the index of the scalar-code class (`u16::MAX`: the field holds a VGPR index).
    Reg {
        /// Which field.
        field: F,
        /// Register class letter.
        cls: u8,
        /// Registers in the tuple.
        regs: u8,
        /// Scalar-code class index.
        class: u16,
        /// GFX9 register class that requires an even first register, as LLVM names it
        /// in its "Invalid register" comment (index into the string pool; 0: none).
        align: u16,
    },
    /// An immediate printed in decimal or hex.
    Imm {
        /// Which field.
        field: F,
        /// Printed in hex.
        hex: bool,
        /// Not printed when zero.
        omit0: bool,
        /// Printed in decimal below 16 even when `hex`.
        dec_small: bool,
    },
}

/// How a literal (source code 255) prints for an operand class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LitRule {
    /// Literals are not allowed.
    None,
    /// 32-bit operand: `0x..` hex, `lit(0x..)` when the value equals an inline constant.
    B32,
    /// 16-bit float operand.
    F16,
    /// 16-bit integer operand.
    I16,
    /// 64-bit float operand (the literal is the high half).
    F64,
    /// 64-bit integer operand (the literal is sign-extended).
    I64,
    /// Packed 16-bit operand (the literal is the full dword).
    Pk16,
    /// Printed exactly as the learned samples (no rule matched); falls back to hex.
    Hex,
}

/// A class of scalar-code operand: the text of every scalar code (empty = invalid),
/// whether VGPRs are allowed, and how literals print.
#[derive(Debug, Clone, Copy)]
pub struct Class {
    /// Index into the target's string pool per scalar code.
    pub names: &'static [u16],
    /// VGPR codes (256+) valid.
    pub vgpr: bool,
    /// Literal rule.
    pub lit: LitRule,
}

/// One opcode of one target.
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    /// Cross-target operation.
    pub op: Op,
    /// Layout of the instruction.
    pub format: Format,
    /// Opcode number.
    pub opcode: u16,
    /// Mnemonic as LLVM prints it (with `_e32`/`_e64` suffix where LLVM adds one).
    pub mnemonic: &'static str,
    /// Operand syntax per variant (`None`: the variant is invalid).
    pub variants: &'static [Option<&'static [Opnd]>],
    /// Modifier probes LLVM prints (bit per [`super::layout::mod_probes`] entry).
    pub mods: u32,
    /// Modifier probes LLVM rejects.
    pub bad: u32,
    /// Per operand-syntax variant: modifier probes LLVM rejects in that variant (empty:
    /// use `bad`).
    pub vbad: &'static [u32],
    /// Images: per `dim * 2 + a16`, `[address VGPRs, vaddr fields that may be
    /// nonzero]` (0 VGPRs: LLVM rejects that dim). MFMAs whose source tuple sizes
    /// depend on the format selectors (gfx950 `*_f8f6f4`): src0's size per `cbsz`
    /// 0-7, then src1's per `blgp` 0-7. Empty for other formats and opcodes.
    pub addr: &'static [u8],
    /// Register fields that must be zero (bit `F as u8`).
    pub zero: u128,
    /// Extension probes ([`super::layout::EXT_PROBES`]) LLVM accepts.
    pub ext_ok: u32,
    /// Extension probes whose modifier LLVM prints (bit 0: the GFX9 64-bit DPP comment).
    pub ext_shown: u32,
    /// What the operation does besides its syntax (module `meta`).
    pub meta: Meta,
}

/// What an opcode does besides its syntax, learned by `tools/isa-gen` (from llvm-mca-22
/// where LLVM can be asked, else from the rules written next to the generator's code):
/// the [`Inst`](super::Inst) methods of module `meta` read it.
#[derive(Debug, Clone, Copy)]
pub struct Meta {
    /// Issue class.
    pub class: IssueClass,
    /// Wait counters incremented with the default modifiers (no atomic return, no
    /// `gds`).
    pub waits: Counters,
    /// `meta::flag` bits.
    pub flags: u8,
    /// Implicit registers read (`meta::imp` bits).
    pub imp_rd: u8,
    /// Implicit registers written (`meta::imp` bits).
    pub imp_wr: u8,
    /// Register fields read (bit `F as u8`; fields of neither mask are read).
    pub rd: u128,
    /// Register fields written (bit `F as u8`).
    pub wr: u128,
}

/// The opcode tables of one target.
#[derive(Debug)]
pub struct Table {
    /// Every opcode.
    pub entries: &'static [Entry],
    /// Per format, in [`Format`] order: entry index per opcode (`u16::MAX`: invalid).
    pub index: &'static [(Format, &'static [u16])],
    /// Operand classes.
    pub classes: &'static [Class],
    /// String pool of class names.
    pub strings: &'static [&'static str],
    /// GFX12 MTBUF: the `format:` text per format code, as LLVM prints it (empty: not
    /// printed; GFX9 prints its formats from `sym`).
    pub mtbuf_formats: &'static [&'static str],
}

impl Table {
    /// The entry for an opcode of an identification format.
    #[inline]
    pub fn lookup(&self, key: Format, opcode: u32) -> Option<u16> {
        // The generator writes one slot per format, in format order.
        let idx = match self.index.get(key as usize) {
            Some((f, idx)) if *f == key => idx,
            _ => &self.index.iter().find(|(f, _)| *f == key)?.1,
        };
        let e = *idx.get(opcode as usize)?;
        (e != u16::MAX).then_some(e)
    }
}
