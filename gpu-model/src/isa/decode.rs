//! Decoding machine code into [`Inst`]: identify the format, look the opcode up in the
//! target's generated table, check the operands LLVM would reject, attach a literal.

use super::ext::{self, ext_of};
use super::layout::{self, Format, Layout, Role, F};
use super::table::{Entry, Opnd, Table};
use super::Op;
use crate::target::{Family, Target};

/// A decoded instruction: small, `Copy`, no heap. The encoding bits are kept whole (so
/// encoding is exact) and operands are read through typed accessors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Inst {
    /// Encoding bits without literal (dword0 = bits 31:0).
    pub bits: u128,
    /// The literal dword, if any.
    pub literal: Option<u32>,
    /// The target it was decoded for.
    pub target: Target,
    /// Cross-target operation.
    pub op: Op,
    /// Layout (format) of the encoding.
    pub format: Format,
    /// Length in bytes including the literal.
    pub len: u8,
    /// Wave32 (GFX12 only; affects how lane masks print).
    pub wave32: bool,
    /// Operand-syntax variant.
    pub(crate) variant: u8,
    /// Index of the table entry (VOPD: the X half's).
    pub(crate) entry: u16,
    /// VOPD: index of the Y half's table entry (`u16::MAX` otherwise).
    pub(crate) entry_y: u16,
}

/// Why bytes do not decode. Offsets are byte offsets into the slice given to [`decode`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// Fewer bytes than the encoding (or its literal) needs.
    #[error("truncated instruction at offset {offset}: word {word:#010x} needs {need} bytes")]
    Truncated {
        /// First dword (0 if not even one dword is present).
        word: u32,
        /// Byte offset of the missing data.
        offset: usize,
        /// Bytes the instruction needs.
        need: usize,
    },
    /// No format matches, or the opcode does not exist on the target.
    #[error("invalid opcode {opcode:#x} ({format}) in word {word:#010x} at offset {offset}")]
    InvalidOpcode {
        /// The dword.
        word: u32,
        /// Its byte offset.
        offset: usize,
        /// Format name (`"?"` if none matched).
        format: &'static str,
        /// Opcode value.
        opcode: u32,
    },
    /// A field holds a value LLVM rejects (register class, reserved code, modifier).
    #[error("invalid {field} field in word {word:#010x} at offset {offset}")]
    InvalidField {
        /// The dword holding the field.
        word: u32,
        /// Its byte offset.
        offset: usize,
        /// Field name.
        field: &'static str,
    },
    /// An encoding this decoder does not support yet (DPP, SDWA, VOPD, images, ...).
    #[error("unsupported {what} encoding in word {word:#010x} at offset {offset}")]
    Unsupported {
        /// The dword.
        word: u32,
        /// Its byte offset.
        offset: usize,
        /// What it is.
        what: &'static str,
    },
}

/// The generated table of a target and wave size (an empty one if the generator did not
/// cover it).
pub(crate) fn table(t: Target, wave32: bool) -> &'static Table {
    static EMPTY: Table = Table {
        entries: &[],
        index: &[],
        classes: &[],
        strings: &[""],
        mtbuf_formats: &[],
    };
    super::generated::table(t, wave32 && t.family() == Family::Gfx12).unwrap_or(&EMPTY)
}

#[inline(always)]
fn word(b: &[u8], i: usize) -> Option<u32> {
    let s = b.get(4 * i..4 * i + 4)?;
    Some(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

/// Decodes the instruction at the start of `bytes` for `target`. `wave32` selects how
/// lane-mask operands print on GFX12 (ignored on GFX9, which is always wave64).
#[inline]
pub fn decode(target: Target, bytes: &[u8], wave32: bool) -> Result<Inst, DecodeError> {
    // Plain valid instructions take the compiled plan; everything else (errors included)
    // the full decoder below, which the plan agrees with (tested in `plan`).
    match super::plan::decode_fast(target, bytes, wave32) {
        Some(i) => Ok(i),
        None => decode_full(target, bytes, wave32),
    }
}

/// The full decoder: every format, extension and error (what [`decode`] falls back to).
#[inline(never)]
pub(crate) fn decode_full(target: Target, bytes: &[u8], wave32: bool) -> Result<Inst, DecodeError> {
    let gfx12 = target.family() == Family::Gfx12;
    let Some(w0) = word(bytes, 0) else {
        return Err(DecodeError::Truncated {
            word: 0,
            offset: 0,
            need: 4,
        });
    };
    let Some(id) = layout::identify(gfx12, w0) else {
        return Err(DecodeError::Unsupported {
            word: w0,
            offset: 0,
            what: "unknown-format",
        });
    };
    let n = usize::from(id.dwords);
    let mut bits = u128::from(w0);
    for i in 1..n {
        let Some(w) = word(bytes, i) else {
            return Err(DecodeError::Truncated {
                word: w0,
                offset: 4 * i,
                need: 4 * n,
            });
        };
        bits |= u128::from(w) << (32 * i);
    }
    let tab = table(target, wave32);
    let opcode = layout::get(bits, id.op_field());
    let Some(ei) = tab.lookup(id.format, opcode) else {
        return Err(DecodeError::InvalidOpcode {
            word: w0,
            offset: 0,
            format: id.format.name(),
            opcode,
        });
    };
    let e: &Entry = &tab.entries[usize::from(ei)];
    // gfx950 VOP3PX2: v_mfma_ld_scale_b32 followed by a scaled MFMA word is one
    // 16-byte `v_mfma_scale_*` instruction; anything else is the 8-byte
    // v_mfma_ld_scale_b32 alone (as LLVM decodes it).
    if e.op == Op::VMfmaLdScaleB32 {
        if let Some(r) = vop3px2(target, bytes, tab) {
            return r;
        }
    }
    let lay = if e.format == id.format {
        id
    } else {
        layout::layout(gfx12, e.format).unwrap_or(id)
    };
    // Extension dword (DPP16/DPP8/SDWA) after a 32-bit VALU encoding, or (GFX12) after
    // the two VOP3 dwords.
    let ext = ext_of(gfx12, e.format, bits);
    let mut n = n;
    if ext.is_some() {
        let Some(x) = word(bytes, n) else {
            return Err(DecodeError::Truncated {
                word: w0,
                offset: 4 * n,
                need: 4 * n + 4,
            });
        };
        bits |= u128::from(x) << (32 * n);
        n += 1;
    }
    let variant = layout::variant(gfx12, lay, bits);
    let Some(Some(ops)) = e.variants.get(variant) else {
        return Err(DecodeError::InvalidField {
            word: w0,
            offset: 0,
            field: "addressing mode",
        });
    };
    // Modifiers LLVM rejects for this opcode (in this operand-syntax variant).
    let bad = e.vbad.get(variant).copied().unwrap_or(e.bad);
    if bad != 0 {
        for (i, (f, v)) in layout::mod_probes(gfx12, lay.format).iter().enumerate() {
            if bad & (1 << i) != 0 {
                if let Some(fl) = lay.field(*f) {
                    let x = layout::get(bits, fl);
                    let hit = match f {
                        F::OpSelHi | F::OpSelHi2 => false,
                        F::Offset
                        | F::Offset0
                        | F::Offset1
                        | F::Fmt
                        | F::Dfmt
                        | F::Nfmt
                        | F::Simm16 => x != 0,
                        _ => x & v != 0,
                    };
                    if hit {
                        return Err(DecodeError::InvalidField {
                            word: w0,
                            offset: 0,
                            field: field_name(*f),
                        });
                    }
                }
            }
        }
    }
    check_zero(e, lay, bits)?;
    // GFX12 buffer offsets are 23-bit unsigned; LLVM rejects bit 23.
    if gfx12 && matches!(e.format, Format::Mubuf | Format::Mtbuf) {
        if let Some(fl) = lay.field(F::Offset) {
            if layout::get(bits, fl) >= 1 << 23 {
                return Err(DecodeError::InvalidField {
                    word: (bits >> 64) as u32,
                    offset: 8,
                    field: "offset",
                });
            }
        }
    }
    if let Some(x) = ext {
        if let Err(field) = ext::check(x, e.format, e, ops, bits, tab) {
            return Err(DecodeError::InvalidField {
                word: (bits >> (32 * (n - 1))) as u32,
                offset: 4 * (n - 1),
                field,
            });
        }
    }
    if matches!(e.format, Format::Vsample | Format::Vimage) {
        super::image::check(e, lay, bits)?;
    }
    if e.format == Format::Mimg {
        super::mimg::check(e, bits)?;
    }
    let mut lit = Lit {
        bytes,
        at: n,
        value: None,
        len: 4 * n,
    };
    check_operands(tab, e, lay, ops, bits, ext.is_some(), &mut lit)?;
    let mut entry_y = u16::MAX;
    if e.format == Format::Vopd {
        let opy = lay.field(F::OpY).map_or(0, |f| layout::get(bits, f));
        let Some(ey) = tab.lookup(Format::VopdY, opy) else {
            return Err(DecodeError::InvalidOpcode {
                word: w0,
                offset: 0,
                format: Format::VopdY.name(),
                opcode: opy,
            });
        };
        let y = &tab.entries[usize::from(ey)];
        check_zero(y, lay, bits)?;
        if let Some(Some(yops)) = y.variants.first() {
            check_operands(tab, y, lay, yops, bits, false, &mut lit)?;
        }
        entry_y = ey;
    }
    let (literal, len) = (lit.value, lit.len);
    let i = Inst {
        bits,
        literal,
        target,
        op: e.op,
        format: e.format,
        len: len as u8,
        wave32: wave32 && gfx12,
        variant: variant as u8,
        entry: ei,
        entry_y,
    };
    if e.format == Format::Mai {
        i.check_agpr_tuples()?;
    }
    Ok(i)
}

/// A gfx950 VOP3PX2 instruction at the start of `bytes` (whose dword0 is a
/// `v_mfma_ld_scale_b32`): the fixed bits of dword2, an MFMA opcode with a scaled form
/// in the table, and operands and modifiers LLVM accepts. `None`: decode the first 8
/// bytes alone.
fn vop3px2(target: Target, bytes: &[u8], tab: &Table) -> Option<Result<Inst, DecodeError>> {
    let (mask, value) = layout::VOP3PX2_HI;
    let w2 = word(bytes, 2)?;
    if w2 & mask != value {
        return None;
    }
    let mut bits = 0u128;
    for i in 0..4 {
        bits |= u128::from(word(bytes, i)?) << (32 * i);
    }
    let lay = layout::layout(false, Format::Vop3px2)?;
    let ei = tab.lookup(Format::Vop3px2, layout::get(bits, lay.op_field()))?;
    let e = &tab.entries[usize::from(ei)];
    let Some(Some(ops)) = e.variants.first() else {
        return None;
    };
    for (i, (f, v)) in layout::mod_probes(false, Format::Vop3px2)
        .iter()
        .enumerate()
    {
        if e.bad & (1 << i) != 0
            && lay
                .field(*f)
                .is_some_and(|fl| layout::get(bits, fl) & v != 0)
        {
            return None;
        }
    }
    let mut lit = Lit {
        bytes,
        at: 4,
        value: None,
        len: 16,
    };
    // An operand code its class rejects: LLVM decodes the 8 bytes alone. An AGPR
    // tuple past a255: LLVM rejects the word.
    check_operands(tab, e, lay, ops, bits, false, &mut lit).ok()?;
    let i = Inst {
        bits,
        literal: None,
        target,
        op: e.op,
        format: Format::Vop3px2,
        len: 16,
        wave32: false,
        variant: 0,
        entry: ei,
        entry_y: u16::MAX,
    };
    Some(i.check_agpr_tuples().map(|()| i))
}

impl Inst {
    /// GFX9 MFMA/SMFMAC (and gfx950 VOP3PX2): LLVM rejects an AGPR tuple that runs past
    /// a255 (a VGPR tuple past v255 it prints). The tuple is the syntax's (for
    /// `*_f8f6f4` sources the 8-register one, whatever cbsz/blgp say).
    fn check_agpr_tuples(&self) -> Result<(), DecodeError> {
        for o in self.syntax() {
            let Opnd::Reg { field, regs, .. } = *o else {
                continue;
            };
            if !self.acc_field(field) {
                continue;
            }
            let Some(fl) = self.layout().field(field) else {
                continue;
            };
            let v = layout::get(self.bits, fl);
            let first = if fl.role == Role::Src9 {
                if v < 256 {
                    continue;
                }
                v - 256
            } else {
                v
            };
            if first + u32::from(regs) > 256 {
                return Err(DecodeError::InvalidField {
                    word: (self.bits >> (32 * (fl.lo / 32))) as u32,
                    offset: usize::from(fl.lo / 32) * 4,
                    field: field_name(field),
                });
            }
        }
        Ok(())
    }
}

/// The literal dword of an instruction being decoded and its length so far.
struct Lit<'a> {
    /// The input.
    bytes: &'a [u8],
    /// Dword index where a literal would be.
    at: usize,
    value: Option<u32>,
    len: usize,
}

/// Fields an entry requires to be zero.
#[inline]
fn check_zero(e: &Entry, lay: &Layout, bits: u128) -> Result<(), DecodeError> {
    if e.zero != 0 {
        for fl in lay.fields {
            if e.zero & 1u128.checked_shl(u32::from(fl.name as u8)).unwrap_or(0) != 0
                && layout::get(bits, *fl) != 0
            {
                return Err(DecodeError::InvalidField {
                    word: (bits >> (32 * (fl.lo / 32))) as u32,
                    offset: usize::from(fl.lo / 32) * 4,
                    field: field_name(fl.name),
                });
            }
        }
    }
    Ok(())
}

/// Checks every operand of a syntax against its class and reads the literal dword (one
/// per instruction, shared by all operands and by both VOPD halves).
#[inline(always)]
fn check_operands(
    tab: &Table,
    e: &Entry,
    lay: &Layout,
    ops: &[Opnd],
    bits: u128,
    ext: bool,
    lit: &mut Lit<'_>,
) -> Result<(), DecodeError> {
    let w0 = bits as u32;
    let take_literal = |lit: &mut Lit<'_>| -> Result<(), DecodeError> {
        if lit.value.is_none() {
            let n = lit.at;
            let Some(l) = word(lit.bytes, n) else {
                return Err(DecodeError::Truncated {
                    word: w0,
                    offset: 4 * n,
                    need: 4 * n + 4,
                });
            };
            lit.value = Some(l);
            lit.len += 4;
        }
        Ok(())
    };
    for o in ops.iter() {
        if *o == Opnd::KLit {
            take_literal(lit)?;
            continue;
        }
        let Opnd::Reg { field, class, .. } = *o else {
            continue;
        };
        let Some(fl) = lay.field(field) else { continue };
        let code = layout::get(bits, fl);
        // Under an extension, src0 holds the marker (the extension checks the rest).
        if class == u16::MAX || (ext && field == F::Src0) {
            continue;
        }
        let class = sized_class(e, field, bits).unwrap_or(class);
        let c = &tab.classes[usize::from(class)];
        // Built only on failure (this loop runs for every operand of every instruction).
        let bad = || DecodeError::InvalidField {
            word: (bits >> (32 * (fl.lo / 32))) as u32,
            offset: usize::from(fl.lo / 32) * 4,
            field: field_name(field),
        };
        if code >= 256 {
            if !c.vgpr {
                return Err(bad());
            }
        } else if code == 255 && lay.literal && matches!(fl.role, Role::Src9 | Role::Ssrc8) {
            take_literal(lit)?;
        } else if c.names.get(code as usize).is_none_or(|&s| s == 0) {
            return Err(bad());
        }
    }
    Ok(())
}

/// gfx950 `*_f8f6f4` MFMAs: the operand class of src0 (by cbsz) or src1 (by blgp)
/// where the tuple size differs from the syntax's (learned; see `Entry::addr`).
#[inline]
pub(crate) fn sized_class(e: &Entry, field: F, bits: u128) -> Option<u16> {
    if e.addr.len() != 32 || !matches!(e.format, Format::Mai | Format::Vop3px2) {
        return None;
    }
    let lay = layout::layout(false, e.format)?;
    let k = match field {
        F::Src0 => layout::get(bits, lay.field(F::Cbsz)?),
        F::Src1 => 8 + layout::get(bits, lay.field(F::Blgp)?),
        _ => return None,
    };
    match e.addr.get(16 + k as usize) {
        Some(&c) if c != u8::MAX => Some(u16::from(c)),
        _ => None,
    }
}

/// Lowercase name of a field, for errors.
pub(crate) fn field_name(f: F) -> &'static str {
    match f {
        F::Src0 => "src0",
        F::Src1 => "src1",
        F::Src2 => "src2",
        F::Vdst => "vdst",
        F::Sdst => "sdst",
        F::Vsrc1 => "vsrc1",
        F::Sbase => "sbase",
        F::Sdata => "sdata",
        F::Soffset => "soffset",
        F::Saddr => "saddr",
        F::Srsrc => "srsrc",
        F::Offset => "offset",
        F::Clamp => "clamp",
        F::Omod => "omod",
        F::Neg => "neg",
        F::Abs => "abs",
        F::OpSel => "op_sel",
        F::Acc => "acc",
        F::Gds => "gds",
        F::Glc => "glc",
        F::Slc => "slc",
        F::Scc => "scc",
        F::Nv => "nv",
        _ => "modifier",
    }
}

impl Inst {
    /// The generated table entry of this instruction.
    pub(crate) fn entry(&self) -> &'static Entry {
        &table(self.target, self.wave32).entries[usize::from(self.entry)]
    }

    /// The layout of this instruction's format.
    pub fn layout(&self) -> &'static Layout {
        let gfx12 = self.target.family() == Family::Gfx12;
        // The entry's format always has a layout in its family (tables are generated
        // from these layouts).
        layout::layout(gfx12, self.format).unwrap_or(&layout::GFX9_IDENT[0])
    }

    /// The raw value of a field (0 if the format has no such field). Fields of a
    /// DPP/DPP8/SDWA extension dword ([`Inst::ext`]) read from that dword. Exception:
    /// [`F::VdstY`] gives the whole VOPD Y destination register number.
    #[inline]
    pub fn field(&self, f: F) -> u32 {
        let lay = self.layout();
        let Some(fl) = lay.field(f) else {
            return self.ext_field(f).unwrap_or(0);
        };
        let v = layout::get(self.bits, fl);
        if f == F::VdstY {
            let x = lay
                .field(F::Vdst)
                .map_or(0, |fx| layout::get(self.bits, fx));
            (v << 1) | (!x & 1)
        } else {
            v
        }
    }

    /// gfx950 `v_bitop3_b16/b32`: the 8-bit truth table, which the encoding keeps in
    /// the neg (bits 2:0), abs (bits 5:3) and omod (bits 7:6) fields.
    pub fn bitop3(&self) -> Option<u8> {
        if !matches!(self.op, Op::VBitop3B16 | Op::VBitop3B32) || self.format != Format::Vop3 {
            return None;
        }
        Some((self.field(F::Neg) | self.field(F::Abs) << 3 | self.field(F::Omod) << 6) as u8)
    }

    /// VOPD (GFX12 dual issue): the X and Y operations (`None` for any other format).
    /// [`Inst::op`] is the X operation; the X operands are [`Inst::operand`], the Y
    /// operands [`Inst::operand_y`].
    #[inline]
    pub fn vopd(&self) -> Option<(Op, Op)> {
        self.entry_y().map(|y| (self.op, y.op))
    }

    /// VOPD: the Y half's mnemonic as LLVM prints it (e.g. `v_dual_mov_b32`).
    pub fn mnemonic_y(&self) -> Option<&'static str> {
        self.entry_y().map(|y| y.mnemonic)
    }

    /// The Y half's generated table entry (VOPD only).
    pub(crate) fn entry_y(&self) -> Option<&'static Entry> {
        if self.entry_y == u16::MAX {
            return None;
        }
        table(self.target, self.wave32)
            .entries
            .get(usize::from(self.entry_y))
    }

    /// The Y half's operand syntax (empty unless VOPD).
    pub(crate) fn syntax_y(&self) -> &'static [Opnd] {
        self.entry_y()
            .and_then(|y| y.variants.first().copied().flatten())
            .unwrap_or(&[])
    }

    /// The mnemonic as LLVM prints it (e.g. `v_add_f32_e32`).
    pub fn mnemonic(&self) -> &'static str {
        self.entry().mnemonic
    }

    /// The opcode number in this target's encoding.
    pub fn opcode(&self) -> u16 {
        self.entry().opcode
    }

    /// The operand syntax of this instruction.
    pub(crate) fn syntax(&self) -> &'static [Opnd] {
        self.entry()
            .variants
            .get(usize::from(self.variant))
            .copied()
            .flatten()
            .unwrap_or(&[])
    }
}
