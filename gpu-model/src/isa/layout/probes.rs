//! Probe tables shared by the table generator and the decoder: extension probes, the
//! field assignments that select an operand-syntax variant, and the modifier probes.

use super::{fields, get, Field, Format, Layout, F};
/// The kind of extension dword an [`EXT_PROBES`] entry uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExtKind {
    /// DPP16 (src0 = 250).
    Dpp16,
    /// DPP8 (GFX12, src0 = 233).
    Dpp8,
    /// SDWA (GFX9, src0 = 249).
    Sdwa,
}

/// Extension probes the generator runs on every VOP1/VOP2/VOPC opcode: each is the base
/// extension dword of its kind ([`ext_base`]) with these fields set. Bit `i` of an
/// entry's `ext_ok` says LLVM accepts probe `i`, of `ext_shown` that its text differs
/// from the kind's base probe (the modifier prints). Exception: `ext_shown` bit 0 (the
/// DPP16 base probe itself) means LLVM prints "DP ALU dpp only supports row_newbcast"
/// for it (GFX9 64-bit DPP).
pub const EXT_PROBES: &[(ExtKind, &[(F, u32)])] = &[
    (ExtKind::Dpp16, &[]),
    (ExtKind::Dpp16, &[(F::Src0Neg, 1)]),
    (ExtKind::Dpp16, &[(F::Src0Abs, 1)]),
    (ExtKind::Dpp16, &[(F::Src1Neg, 1)]),
    (ExtKind::Dpp16, &[(F::Src1Abs, 1)]),
    (ExtKind::Dpp8, &[]),
    (ExtKind::Sdwa, &[]),
    (ExtKind::Sdwa, &[(F::Src0Neg, 1)]),
    (ExtKind::Sdwa, &[(F::Src0Abs, 1)]),
    (ExtKind::Sdwa, &[(F::Src0Sext, 1)]),
    (ExtKind::Sdwa, &[(F::Src1Neg, 1)]),
    (ExtKind::Sdwa, &[(F::Src1Abs, 1)]),
    (ExtKind::Sdwa, &[(F::Src1Sext, 1)]),
    (ExtKind::Sdwa, &[(F::Clamp, 1)]),
    (ExtKind::Sdwa, &[(F::Omod, 1)]),
    (ExtKind::Sdwa, &[(F::SdwaS0, 1)]),
    (ExtKind::Sdwa, &[(F::SdwaS1, 1)]),
    (ExtKind::Sdwa, &[(F::SdwaSd, 1), (F::Sdst, 10)]),
];

/// Index in [`EXT_PROBES`] of the probe of `kind` that sets `field` (the base probe for
/// `None`).
pub fn ext_probe(kind: ExtKind, field: Option<F>) -> Option<usize> {
    EXT_PROBES.iter().position(|(k, set)| {
        *k == kind
            && match field {
                None => set.is_empty(),
                Some(f) => set.first().is_some_and(|(g, _)| *g == f),
            }
    })
}

/// The base extension dword of a probe kind for a format: src0 = v20, DPP16 row_shr:1
/// with all rows and banks, DPP8 lanes 7..0, SDWA DWORD selects (VOP1: no src1 byte).
/// VOP3/VOP3B (GFX12): the dword after the two VOP3 dwords.
pub fn ext_base(kind: ExtKind, format: Format) -> (u32, &'static [Field], u32) {
    let vop3 = matches!(format, Format::Vop3 | Format::Vop3b);
    match kind {
        ExtKind::Dpp16 if vop3 => (250, fields::DPP16_VOP3, 0xFF00_1114),
        ExtKind::Dpp8 if vop3 => (233, fields::DPP8_VOP3, 0x0539_7714),
        ExtKind::Dpp16 => (250, fields::DPP16, 0xFF00_1114),
        ExtKind::Dpp8 => (233, fields::DPP8, 0x0539_7714),
        ExtKind::Sdwa => match format {
            Format::Vopc => (249, fields::SDWA_C, 0x0606_0014),
            Format::Vop1 => (249, fields::SDWA, 0x0006_0614),
            _ => (249, fields::SDWA, 0x0606_0614),
        },
    }
}

/// Field assignments that select an operand-syntax variant of a format (e.g. `off` vs an
/// SGPR base for GLOBAL). Each entry lists the assignments of one variant; the variant's
/// index is what [`variant`] computes from the bits.
pub fn variant_probes(gfx12: bool, format: Format) -> &'static [&'static [(F, u32)]] {
    match (gfx12, format) {
        (false, Format::Global | Format::Scratch) => &[
            &[(F::Saddr, 50), (F::Lds, 0)],
            &[(F::Saddr, 0x7F), (F::Lds, 0)],
            &[(F::Saddr, 50), (F::Lds, 1)],
            &[(F::Saddr, 0x7F), (F::Lds, 1)],
        ],
        (true, Format::Global | Format::Scratch) => &[
            &[(F::Saddr, 50), (F::Sve, 0)],
            &[(F::Saddr, 0x7C), (F::Sve, 0)],
            &[(F::Saddr, 50), (F::Sve, 1)],
            &[(F::Saddr, 0x7C), (F::Sve, 1)],
        ],
        // GFX12 FLAT has no scalar base: llvm-mc-22 decodes `flat_load_b32` only with the
        // saddr field NULL (0x7C), and rejects any other value.
        (true, Format::Flat) => &[&[(F::Saddr, 0x7C)], &[(F::Saddr, 50)]],
        (false, Format::Mubuf) => &[
            &[(F::Offen, 0), (F::Idxen, 0), (F::Lds, 0)],
            &[(F::Offen, 1), (F::Idxen, 0), (F::Lds, 0)],
            &[(F::Offen, 0), (F::Idxen, 1), (F::Lds, 0)],
            &[(F::Offen, 1), (F::Idxen, 1), (F::Lds, 0)],
            &[(F::Offen, 0), (F::Idxen, 0), (F::Lds, 1)],
            &[(F::Offen, 1), (F::Idxen, 0), (F::Lds, 1)],
            &[(F::Offen, 0), (F::Idxen, 1), (F::Lds, 1)],
            &[(F::Offen, 1), (F::Idxen, 1), (F::Lds, 1)],
        ],
        (_, Format::Mubuf | Format::Mtbuf) => &[
            &[(F::Offen, 0), (F::Idxen, 0)],
            &[(F::Offen, 1), (F::Idxen, 0)],
            &[(F::Offen, 0), (F::Idxen, 1)],
            &[(F::Offen, 1), (F::Idxen, 1)],
        ],
        (false, Format::Smem) => &[
            &[(F::Imm, 1), (F::Soe, 0)],
            &[(F::Imm, 0), (F::Soe, 0)],
            &[(F::Imm, 1), (F::Soe, 1)],
            &[(F::Imm, 0), (F::Soe, 1)],
        ],
        (true, Format::Smem) => &[&[(F::Soffset, 0x7C)], &[(F::Soffset, 40)]],
        // The resource descriptor is 8 SGPRs, or 4 with r128.
        (true, Format::Vsample | Format::Vimage) => &[&[(F::R128, 0)], &[(F::R128, 1)]],
        // Only the sample operations take a sampler; the others need the field zero.
        (false, Format::Mimg) => &[&[(F::ImgSamp, 4)], &[(F::ImgSamp, 0)]],
        _ => &[&[]],
    }
}

/// The operand-syntax variant of an instruction (index into [`variant_probes`]).
#[inline]
pub fn variant(gfx12: bool, layout: &Layout, bits: u128) -> usize {
    let g = |n: F| layout.field(n).map_or(0, |f| get(bits, f));
    match (gfx12, layout.format) {
        (false, Format::Global | Format::Scratch) => {
            usize::from(g(F::Saddr) == 0x7F) | ((g(F::Lds) as usize) << 1)
        }
        (true, Format::Global | Format::Scratch) => {
            usize::from(g(F::Saddr) == 0x7C) | ((g(F::Sve) as usize) << 1)
        }
        (true, Format::Flat) => usize::from(g(F::Saddr) != 0x7C),
        (false, Format::Mubuf) => {
            (g(F::Offen) as usize) | ((g(F::Idxen) as usize) << 1) | ((g(F::Lds) as usize) << 2)
        }
        (_, Format::Mubuf | Format::Mtbuf) => {
            (g(F::Offen) as usize) | ((g(F::Idxen) as usize) << 1)
        }
        (false, Format::Smem) => match (g(F::Imm), g(F::Soe)) {
            (1, 0) => 0,
            (0, 0) => 1,
            (1, _) => 2,
            _ => 3,
        },
        (true, Format::Smem) => usize::from(g(F::Soffset) != 0x7C),
        (true, Format::Vsample | Format::Vimage) => g(F::R128) as usize,
        (false, Format::Mimg) => usize::from(g(F::ImgSamp) == 0),
        _ => 0,
    }
}

/// Modifier probes: each sets one field to a value on top of a valid instruction; the
/// generator records, per opcode, whether LLVM then prints something more, ignores the
/// bits, or rejects the word. Bit `i` of an entry's `mods`/`bad` refers to probe `i`.
pub fn mod_probes(gfx12: bool, format: Format) -> &'static [(F, u32)] {
    match (gfx12, format) {
        (_, Format::Vop3) => &[
            (F::Clamp, 1),
            (F::Omod, 1),
            (F::Abs, 1),
            (F::Abs, 2),
            (F::Abs, 4),
            (F::Neg, 1),
            (F::Neg, 2),
            (F::Neg, 4),
            (F::OpSel, 1),
            (F::OpSel, 2),
            (F::OpSel, 4),
            (F::OpSel, 8),
        ],
        (_, Format::Vop3b) => &[
            (F::Clamp, 1),
            (F::Omod, 1),
            (F::Neg, 1),
            (F::Neg, 2),
            (F::Neg, 4),
        ],
        (_, Format::Vop3p) => &[
            (F::Clamp, 1),
            (F::OpSel, 1),
            (F::OpSel, 2),
            (F::OpSel, 4),
            (F::OpSelHi, 2),
            (F::OpSelHi, 1),
            (F::OpSelHi2, 0),
            (F::Neg, 1),
            (F::Neg, 2),
            (F::Neg, 4),
            (F::NegHi, 1),
            (F::NegHi, 2),
            (F::NegHi, 4),
        ],
        (_, Format::Mai) => &[
            (F::Cbsz, 1),
            (F::Abid, 1),
            (F::Blgp, 1),
            (F::AccCd, 1),
            (F::Acc, 1),
            (F::Acc, 2),
        ],
        // gfx950 VOP3PX2: the MAI probes without abid (fixed bits here), then the
        // scale operands' op_sel and op_sel_hi.
        (false, Format::Vop3px2) => &[
            (F::Cbsz, 1),
            (F::Blgp, 1),
            (F::AccCd, 1),
            (F::Acc, 1),
            (F::Acc, 2),
            (F::OpSel, 1),
            (F::OpSel, 2),
            (F::OpSelHi, 1),
            (F::OpSelHi, 2),
        ],
        (false, Format::Smem) => &[(F::Glc, 1), (F::Nv, 1)],
        // Operations without an immediate operand reject a nonzero one (any bit).
        (_, Format::Sopp) => &[(F::Simm16, 0xFFFF)],
        (true, Format::Smem) => &[
            (F::Th, 1),
            (F::Scope, 1),
            (F::Th, 2),
            (F::Scope, 2),
            (F::Nv, 1),
            (F::ScaleOffset, 1),
            (F::OffsetNeg, 1),
            (F::Sdata, 0x20),
            (F::Sdata, 0x40),
        ],
        (false, Format::Ds) => &[(F::Gds, 1), (F::Acc, 1), (F::Offset0, 5), (F::Offset1, 7)],
        (true, Format::Ds) => &[
            (F::Offset0, 5),
            (F::Offset1, 7),
            (F::Rsvd0, 1),
            (F::Rsvd0, 2),
        ],
        (true, Format::Vinterp) => &[
            (F::Clamp, 1),
            (F::Neg, 1),
            (F::Neg, 2),
            (F::Neg, 4),
            (F::OpSel, 1),
            (F::OpSel, 2),
            (F::OpSel, 4),
            (F::OpSel, 8),
            (F::WaitExp, 1),
        ],
        (true, Format::Vdsdir) => &[(F::Rsvd0, 1), (F::Attr, 5), (F::WaitVmVsrc, 1)],
        (true, Format::Vsample | Format::Vimage) => &[
            (F::Tfe, 1),
            (F::D16, 1),
            (F::A16, 1),
            (F::Nv, 1),
            (F::Unorm, 1),
            (F::Lwe, 1),
            (F::Th, 1),
            (F::Scope, 1),
            (F::Rsvd0, 1),
        ],
        // FLAT: LLVM rejects a nonzero saddr field (learned as the last probe).
        (false, Format::Flat) => &[
            (F::Glc, 1),
            (F::Slc, 1),
            (F::Scc, 1),
            (F::Acc, 1),
            (F::Offset, 16),
            (F::Offset, 0x1FF0),
            (F::Saddr, 0x7F),
        ],
        (false, Format::Global | Format::Scratch) => &[
            (F::Glc, 1),
            (F::Slc, 1),
            (F::Scc, 1),
            (F::Acc, 1),
            (F::Offset, 16),
            (F::Offset, 0x1FF0),
        ],
        (true, Format::Flat | Format::Global | Format::Scratch) => &[
            (F::Th, 1),
            (F::Scope, 1),
            (F::Offset, 16),
            (F::Offset, 0xFF_FFF0),
            (F::Nv, 1),
            (F::ScaleOffset, 1),
            (F::Th, 2),
            (F::Th, 4),
            (F::Scope, 2),
        ],
        (false, Format::Mubuf) => &[
            (F::Glc, 1),
            (F::Slc, 1),
            (F::Scc, 1),
            (F::Acc, 1),
            (F::Offset, 16),
        ],
        // GFX9 MIMG: printed in `image::write_mimg`'s order.
        (false, Format::Mimg) => &[
            (F::Unorm, 1),
            (F::Glc, 1),
            (F::Slc, 1),
            (F::Scc, 1),
            (F::A16, 1),
            (F::Lwe, 1),
            (F::Da, 1),
            (F::D16, 1),
            (F::Acc, 1),
        ],
        (false, Format::Mtbuf) => &[
            (F::Glc, 1),
            (F::Slc, 1),
            (F::Scc, 1),
            (F::Acc, 1),
            (F::Offset, 16),
            (F::Dfmt, 4),
            (F::Nfmt, 7),
        ],
        (true, Format::Mubuf | Format::Mtbuf) => &[
            (F::Th, 1),
            (F::Scope, 1),
            (F::Offset, 16),
            (F::Tfe, 1),
            (F::Fmt, 22),
            (F::Nv, 1),
            (F::Rsvd3, 1),
            (F::Rsvd3, 2),
            (F::Th, 2),
            (F::Th, 4),
            (F::Scope, 2),
        ],
        _ => &[],
    }
}
