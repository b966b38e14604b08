//! GFX9 MIMG (`image_load*`, `image_store*`, `image_atomic_*`, `image_sample`; LLVM 22
//! decodes it on gfx90a only): the data register count, validity and modifier text.
//! Opcodes, operand syntax, descriptor classes and the modifiers each opcode prints or
//! rejects are learned by `tools/isa-gen`; the rules here are checked against llvm-mc by
//! `tests/isa_sweep.rs` (`mimg_words_agree_with_llvm_mc`).

use super::decode::{DecodeError, Inst};
use super::layout::F;
use super::table::Entry;
use std::fmt::{self, Write};

/// Opcode bit 7 sits apart from the opcode field (bit 0 of dword0); LLVM knows no MIMG
/// opcode with it set.
pub(crate) fn check(e: &Entry, bits: u128) -> Result<(), DecodeError> {
    if bits & 1 != 0 {
        return Err(DecodeError::InvalidOpcode {
            word: bits as u32,
            offset: 0,
            format: "mimg",
            opcode: u32::from(e.opcode) | 0x80,
        });
    }
    Ok(())
}

/// Data VGPRs as LLVM 22 prints them: one per dmask bit (at least one), halved (rounded
/// up) with d16. LLVM only has forms of 1..3 data registers for atomics (2..4 for
/// compare-and-swap) and of an even first register for tuples; where the count has no
/// form it keeps the opcode's first form (1 register; compare-and-swap 2, with an
/// alignment comment that the generic printer writes).
pub(crate) fn data_regs(i: &Inst) -> u8 {
    let n = i.field(F::Dmask).count_ones().max(1);
    let n = if i.field(F::D16) != 0 {
        n.div_ceil(2)
    } else {
        n
    };
    let m = i.mnemonic();
    let odd = i.field(F::Vdata) & 1 != 0;
    let n = if m == "image_atomic_cmpswap" {
        if n < 2 || odd {
            2
        } else {
            n
        }
    } else if (m.starts_with("image_atomic") && n > 3) || (n > 1 && odd) {
        1
    } else {
        n
    };
    n as u8
}

/// Writes the modifiers after the operands, in LLVM's order (the probe order of
/// `layout::mod_probes` for MIMG: unorm glc slc scc a16 lwe da d16).
pub(crate) fn write_mods(w: &mut dyn Write, i: &Inst) -> fmt::Result {
    let dmask = i.field(F::Dmask);
    if dmask != 0 {
        write!(w, " dmask:{dmask:#x}")?;
    }
    const MODS: [(F, &str); 8] = [
        (F::Unorm, "unorm"),
        (F::Glc, "glc"),
        (F::Slc, "slc"),
        (F::Scc, "scc"),
        (F::A16, "a16"),
        (F::Lwe, "lwe"),
        (F::Da, "da"),
        (F::D16, "d16"),
    ];
    let mods = i.entry().mods;
    for (p, (f, name)) in MODS.iter().enumerate() {
        if mods & (1 << p) != 0 && i.field(*f) != 0 {
            w.write_char(' ')?;
            w.write_str(name)?;
        }
    }
    Ok(())
}
