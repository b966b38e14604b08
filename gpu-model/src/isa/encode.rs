//! Encoding: instructions back to bytes, and building instructions from typed operands.

use super::decode::{field_name, table, Inst};
use super::layout::{self, Format, Role};
use super::operand::Operand;
use super::table::Opnd;
use super::Op;
use crate::target::{Family, Target};

/// Why an instruction cannot be encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeError {
    /// The output buffer is shorter than the instruction.
    #[error("output buffer of {have} bytes is too small for a {need}-byte instruction")]
    BufferTooSmall {
        /// Bytes available.
        have: usize,
        /// Bytes needed.
        need: usize,
    },
    /// The operation has no encoding in this format on the target.
    #[error("{op:?} has no {format} encoding on {target}")]
    NoEncoding {
        /// The operation.
        op: Op,
        /// The format asked for.
        format: &'static str,
        /// The target.
        target: Target,
    },
    /// Operand index out of range for the instruction's syntax.
    #[error("operand {index} does not exist")]
    NoOperand {
        /// The index.
        index: usize,
    },
    /// The operand does not fit the field (wrong kind or out of range).
    #[error("operand does not fit the {field} field")]
    BadOperand {
        /// Field name.
        field: &'static str,
    },
}

/// Writes `inst` to `out`; returns the number of bytes written.
pub fn encode(inst: &Inst, out: &mut [u8]) -> Result<usize, EncodeError> {
    let n = usize::from(inst.len);
    if out.len() < n {
        return Err(EncodeError::BufferTooSmall {
            have: out.len(),
            need: n,
        });
    }
    // Everything but the literal is in `bits` (extension dwords included).
    let base = n - if inst.literal.is_some() { 4 } else { 0 };
    out[..base].copy_from_slice(&inst.bits.to_le_bytes()[..base]);
    if let Some(l) = inst.literal {
        out[base..base + 4].copy_from_slice(&l.to_le_bytes());
    }
    Ok(n)
}

impl Inst {
    /// A new instruction of `op` in `format` on `target` with all operand fields zero
    /// (and LLVM's default modifier bits); set operands with [`Inst::set_operand`].
    pub fn build(target: Target, op: Op, format: Format) -> Result<Inst, EncodeError> {
        let tab = table(target, false);
        let no = EncodeError::NoEncoding {
            op,
            format: format.name(),
            target,
        };
        let ei = tab
            .entries
            .iter()
            .position(|e| e.op == op && e.format == format)
            .ok_or(no)?;
        let variant = tab.entries[ei]
            .variants
            .iter()
            .position(|v| v.is_some())
            .ok_or(no)?;
        Inst::build_entry(target, false, ei, variant)
    }

    /// Every instruction form of a target's tables: one instance per opcode entry and
    /// operand-syntax variant (GFX12 VOPD: each X operation paired with `v_dual_mov_b32`
    /// and each Y operation with it), every operand field zero (register 0, `off` where
    /// the variant says so) — the shapes `gfxsim coverage --isa` executes. Each instance
    /// is encoded and decoded again, so it is exactly what [`super::decode`] reads.
    pub fn instances(target: Target, wave32: bool) -> Vec<Inst> {
        let gfx12 = target.family() == Family::Gfx12;
        let tab = table(target, wave32);
        let mut out = Vec::new();
        let mut buf = [0u8; 20];
        let mut push = |bits: u128, len: usize, lit: Option<u32>| {
            buf[..16].copy_from_slice(&bits.to_le_bytes());
            let n = len - usize::from(lit.is_some()) * 4;
            if let Some(l) = lit {
                buf[n..n + 4].copy_from_slice(&l.to_le_bytes());
            }
            buf[len..].fill(0);
            if let Ok(i) = super::decode(target, &buf[..len.max(4)], wave32) {
                out.push(i);
            }
        };
        let mov_y = tab
            .entries
            .iter()
            .find(|e| e.format == Format::VopdY && e.op == Op::VMovB32)
            .map(|e| e.opcode);
        let mov_x = tab
            .entries
            .iter()
            .find(|e| e.format == Format::Vopd && e.op == Op::VMovB32)
            .map(|e| e.opcode);
        for (ei, e) in tab.entries.iter().enumerate() {
            if matches!(e.format, Format::Vopd | Format::VopdY) {
                let (Some(lay), Some(mx), Some(my)) =
                    (layout::layout(gfx12, Format::Vopd), mov_x, mov_y)
                else {
                    continue;
                };
                let (x, y) = if e.format == Format::Vopd {
                    (e.opcode, my)
                } else {
                    (mx, e.opcode)
                };
                let mut bits = u128::from(lay.value);
                bits = layout::put(bits, lay.op_field(), u32::from(x));
                if let Some(fy) = lay.field(layout::F::OpY) {
                    bits = layout::put(bits, fy, u32::from(y));
                }
                // fmaak/fmamk take a K literal.
                push(bits, 12, Some(0));
                continue;
            }
            for (v, syn) in e.variants.iter().enumerate() {
                if syn.is_none() {
                    continue;
                }
                if let Ok(i) = Inst::build_entry(target, wave32, ei, v) {
                    let lit = i.literal;
                    push(i.bits, usize::from(i.len), lit);
                }
            }
        }
        out
    }

    /// An instance of table entry `ei` in operand-syntax variant `variant` (see
    /// [`Inst::build`]).
    pub(crate) fn build_entry(
        target: Target,
        wave32: bool,
        ei: usize,
        variant: usize,
    ) -> Result<Inst, EncodeError> {
        let tab = table(target, wave32);
        let gfx12 = target.family() == Family::Gfx12;
        let e = tab
            .entries
            .get(ei)
            .ok_or(EncodeError::NoOperand { index: ei })?;
        let (op, format) = (e.op, e.format);
        let no = EncodeError::NoEncoding {
            op,
            format: format.name(),
            target,
        };
        // A VOPD word holds two operations; it cannot be built from one.
        if matches!(format, Format::Vopd | Format::VopdY) {
            return Err(no);
        }
        let lay = layout::layout(gfx12, format).ok_or(no)?;
        if e.variants.get(variant).copied().flatten().is_none() {
            return Err(no);
        }
        let mut bits: u128 = 0;
        if let Some(fx) = lay.field(layout::F::Fixed) {
            bits = layout::put(bits, fx, lay.value >> fx.lo);
        }
        if let Some(seg) = lay.field(layout::F::Seg) {
            bits = layout::put(bits, seg, lay.value >> seg.lo);
        }
        bits |= layout::fixed_hi(format);
        bits = layout::put(bits, lay.op_field(), u32::from(e.opcode));
        if format == Format::Vop3p {
            bits = layout::put(bits, lay.field(layout::F::OpSelHi).ok_or(no)?, 3);
            bits = layout::put(bits, lay.field(layout::F::OpSelHi2).ok_or(no)?, 1);
        }
        for (f, v) in layout::variant_probes(gfx12, format)[variant] {
            if let Some(fl) = lay.field(*f) {
                bits = layout::put(bits, fl, *v);
            }
        }
        // Fields that the syntax does not use stay 0, except address "off" codes set by
        // the variant above.
        for o in e.variants[variant].unwrap_or(&[]) {
            if let Opnd::Reg { field, .. } = o {
                if matches!(field, layout::F::Saddr) {
                    continue;
                }
                if let Some(fl) = lay.field(*field) {
                    bits = layout::put(bits, fl, if fl.role == Role::Src9 { 256 } else { 0 });
                }
            }
        }
        let klit = e.variants[variant].unwrap_or(&[]).contains(&Opnd::KLit);
        let len = usize::from(lay.dwords) * 4 + if klit { 4 } else { 0 };
        Ok(Inst {
            bits,
            literal: klit.then_some(0),
            target,
            op: e.op,
            format,
            len: len as u8,
            wave32: wave32 && gfx12,
            variant: variant as u8,
            entry: ei as u16,
            entry_y: u16::MAX,
        })
    }

    /// Sets the `index`-th operand (assembly order) from a typed operand.
    pub fn set_operand(&mut self, index: usize, op: Operand) -> Result<(), EncodeError> {
        let o = *self
            .syntax()
            .get(index)
            .ok_or(EncodeError::NoOperand { index })?;
        let lay = self.layout();
        let (field, _regs) = match o {
            Opnd::Reg { field, regs, .. } => (field, regs),
            Opnd::Imm { field, .. } => (field, 0),
            Opnd::KLit => {
                let Operand::Literal(l) = op else {
                    return Err(EncodeError::BadOperand { field: "literal" });
                };
                if self.literal.is_none() {
                    self.len += 4;
                }
                self.literal = Some(l);
                return Ok(());
            }
            Opnd::Text(_) => return Err(EncodeError::NoOperand { index }),
        };
        let fl = lay.field(field).ok_or(EncodeError::NoOperand { index })?;
        let bad = EncodeError::BadOperand {
            field: field_name(field),
        };
        let v = match (fl.role, op) {
            (Role::Src9, Operand::Vgpr { first, .. } | Operand::Agpr { first, .. }) => {
                256 + u32::from(first)
            }
            (Role::Vgpr8, Operand::Vgpr { first, .. } | Operand::Agpr { first, .. }) => {
                u32::from(first)
            }
            (Role::Vgpr8 | Role::Src9 | Role::Ssrc8 | Role::Sgpr7, Operand::Sgpr { first, .. }) => {
                u32::from(first)
            }
            (Role::SgprHalf, Operand::Sgpr { first, .. }) if first % 2 == 0 => u32::from(first / 2),
            (Role::SgprQuarter, Operand::Sgpr { first, .. }) if first % 4 == 0 => {
                u32::from(first / 4)
            }
            (Role::Src9 | Role::Ssrc8, Operand::Inline(c) | Operand::Special(c)) => u32::from(c),
            (Role::Src9 | Role::Ssrc8, Operand::Literal(l)) if lay.literal => {
                if self.literal.is_none() {
                    self.len += 4;
                }
                self.literal = Some(l);
                255
            }
            (Role::Imm, Operand::Imm(v)) => v,
            _ => return Err(bad),
        };
        if fl.bits < 32 && v >= 1 << fl.bits {
            return Err(bad);
        }
        self.bits = layout::put(self.bits, fl, v);
        Ok(())
    }
}
