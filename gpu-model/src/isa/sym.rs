//! Symbolic operand syntax LLVM prints: `hwreg(...)`, GFX9 MTBUF `format:[...]`, and
//! the GFX12 SMEM modifiers that live outside the learned operand syntax, and GFX12
//! `export` (whose operands depend on its enable mask).
//!
//! The names are facts read off `llvm-mc-22 --disassemble` (every hwreg id and every
//! data/number format code was disassembled per target); `tests/isa_sweep.rs` checks
//! them against the oracle.

use super::layout::{self, F};
use super::Inst;
use crate::target::Target;
use std::fmt::{self, Write};

/// `(id, name)` of the GFX9 hardware registers LLVM names (all GFX9 targets).
const HWREG_GFX9: &[(u32, &str)] = &[
    (1, "HW_REG_MODE"),
    (2, "HW_REG_STATUS"),
    (3, "HW_REG_TRAPSTS"),
    (4, "HW_REG_HW_ID"),
    (5, "HW_REG_GPR_ALLOC"),
    (6, "HW_REG_LDS_ALLOC"),
    (7, "HW_REG_IB_STS"),
    (15, "HW_REG_SH_MEM_BASES"),
    (16, "HW_REG_TBA_LO"),
    (17, "HW_REG_TBA_HI"),
    (18, "HW_REG_TMA_LO"),
    (19, "HW_REG_TMA_HI"),
];

/// Hardware registers gfx942 and gfx950 add to [`HWREG_GFX9`].
const HWREG_GFX940: &[(u32, &str)] = &[
    (20, "HW_REG_XCC_ID"),
    (21, "HW_REG_SQ_PERF_SNAPSHOT_DATA"),
    (22, "HW_REG_SQ_PERF_SNAPSHOT_DATA1"),
    (23, "HW_REG_SQ_PERF_SNAPSHOT_PC_LO"),
    (24, "HW_REG_SQ_PERF_SNAPSHOT_PC_HI"),
];

/// `(id, name)` of the GFX12 hardware registers LLVM names.
const HWREG_GFX12: &[(u32, &str)] = &[
    (1, "HW_REG_WAVE_MODE"),
    (2, "HW_REG_WAVE_STATUS"),
    (4, "HW_REG_WAVE_STATE_PRIV"),
    (5, "HW_REG_WAVE_GPR_ALLOC"),
    (6, "HW_REG_WAVE_LDS_ALLOC"),
    (7, "HW_REG_IB_STS"),
    (10, "HW_REG_PERF_SNAPSHOT_DATA"),
    (11, "HW_REG_PERF_SNAPSHOT_PC_LO"),
    (12, "HW_REG_PERF_SNAPSHOT_PC_HI"),
    (15, "HW_REG_PERF_SNAPSHOT_DATA1"),
    (16, "HW_REG_PERF_SNAPSHOT_DATA2"),
    (17, "HW_REG_WAVE_EXCP_FLAG_PRIV"),
    (18, "HW_REG_WAVE_EXCP_FLAG_USER"),
    (19, "HW_REG_WAVE_TRAP_CTRL"),
    (20, "HW_REG_WAVE_SCRATCH_BASE_LO"),
    (21, "HW_REG_WAVE_SCRATCH_BASE_HI"),
    (23, "HW_REG_WAVE_HW_ID1"),
    (24, "HW_REG_WAVE_HW_ID2"),
    (26, "HW_REG_WAVE_SCHED_MODE"),
    (29, "HW_REG_SHADER_CYCLES_LO"),
    (30, "HW_REG_SHADER_CYCLES_HI"),
    (31, "HW_REG_WAVE_DVGPR_ALLOC_LO"),
    (32, "HW_REG_WAVE_DVGPR_ALLOC_HI"),
];

/// LLVM's name of hardware register `id` on `t`, if it has one.
fn hwreg_name(t: Target, id: u32) -> Option<&'static str> {
    let find = |tab: &[(u32, &'static str)]| tab.iter().find(|(i, _)| *i == id).map(|x| x.1);
    match t {
        Target::Gfx90a => find(HWREG_GFX9),
        Target::Gfx942 | Target::Gfx950 => find(HWREG_GFX9).or_else(|| find(HWREG_GFX940)),
        Target::Gfx1200 | Target::Gfx1201 => find(HWREG_GFX12),
    }
}

/// Writes the `hwreg(...)` operand of an `s_getreg`/`s_setreg` immediate: id bits 5:0,
/// offset bits 10:6, size-1 bits 15:11; offset and size are omitted when they are the
/// whole register (0, 32); unnamed ids print as numbers.
pub(crate) fn hwreg(w: &mut dyn Write, t: Target, simm16: u32) -> fmt::Result {
    let id = simm16 & 0x3F;
    let offset = (simm16 >> 6) & 0x1F;
    let size = ((simm16 >> 11) & 0x1F) + 1;
    w.write_str("hwreg(")?;
    match hwreg_name(t, id) {
        Some(n) => w.write_str(n)?,
        None => write!(w, "{id}")?,
    }
    if offset != 0 || size != 32 {
        write!(w, ", {offset}, {size}")?;
    }
    w.write_char(')')
}

/// GFX9 MTBUF data formats (`dfmt`, 4 bits), without the `BUF_DATA_FORMAT_` prefix.
const DFMT: [&str; 16] = [
    "INVALID",
    "8",
    "16",
    "8_8",
    "32",
    "16_16",
    "10_11_11",
    "11_11_10",
    "10_10_10_2",
    "2_10_10_10",
    "8_8_8_8",
    "32_32",
    "16_16_16_16",
    "32_32_32",
    "32_32_32_32",
    "RESERVED_15",
];

/// GFX9 MTBUF number formats (`nfmt`, 3 bits), without the `BUF_NUM_FORMAT_` prefix.
const NFMT: [&str; 8] = [
    "UNORM",
    "SNORM",
    "USCALED",
    "SSCALED",
    "UINT",
    "SINT",
    "RESERVED_6",
    "FLOAT",
];

/// Writes GFX9 MTBUF ` format:[...]`: nothing for the default (dfmt 1, nfmt 0), and
/// each half only when it is not its default.
pub(crate) fn mtbuf_format9(w: &mut dyn Write, dfmt: u32, nfmt: u32) -> fmt::Result {
    let (d, n) = (dfmt != 1, nfmt != 0);
    if !d && !n {
        return Ok(());
    }
    w.write_str(" format:[")?;
    if d {
        write!(w, "BUF_DATA_FORMAT_{}", DFMT[(dfmt & 15) as usize])?;
    }
    if n {
        if d {
            w.write_char(',')?;
        }
        write!(w, "BUF_NUM_FORMAT_{}", NFMT[(nfmt & 7) as usize])?;
    }
    w.write_char(']')
}

/// The modifiers after a GFX12 SMEM instruction's operands: with an SGPR `soffset` the
/// immediate offset prints as `offset:` (signed hex), then `scale_offset` (bit 56), the
/// cache policy, and `nv` (bit 20, which the tables treat as part of the opcode field
/// and learn as an alias). `s_dcache_inv` prints none of them.
pub(crate) fn smem12_tail(w: &mut dyn Write, i: &Inst) -> fmt::Result {
    if i.mnemonic() == "s_dcache_inv" {
        return Ok(());
    }
    let bits = i.bits;
    let bit = |n: u32| (bits >> n) & 1 != 0;
    // (Prefetches print the offset as an operand in both variants.)
    let offset_operand = i.syntax().iter().any(|o| {
        matches!(
            o,
            super::table::Opnd::Imm {
                field: F::Offset,
                ..
            }
        )
    });
    if i.variant == 1 && !offset_operand {
        let lay = i.layout();
        let o = lay.field(F::Offset).map_or(0, |f| layout::get(bits, f));
        let o = super::print::sext(o, 24);
        if o < 0 {
            write!(w, " offset:-{:#x}", o.unsigned_abs())?;
        } else if o != 0 {
            write!(w, " offset:{o:#x}")?;
        }
    }
    if bit(56) {
        w.write_str(" scale_offset")?;
    }
    super::print::th_scope(w, i, true)?;
    if bit(20) {
        w.write_str(" nv")?;
    }
    Ok(())
}

/// Writes the 32-bit K operand of `s_setreg_imm32_b32`, which LLVM prints like an f32
/// source: an inline-constant value as that constant (`64`, `-16`, `0.5`,
/// `0.15915494`), anything else in hex.
pub(crate) fn imm32_f32(w: &mut dyn Write, v: u32) -> fmt::Result {
    let named = match v {
        0x3F00_0000 => "0.5",
        0xBF00_0000 => "-0.5",
        0x3F80_0000 => "1.0",
        0xBF80_0000 => "-1.0",
        0x4000_0000 => "2.0",
        0xC000_0000 => "-2.0",
        0x4080_0000 => "4.0",
        0xC080_0000 => "-4.0",
        0x3E22_F983 => "0.15915494",
        _ => "",
    };
    if !named.is_empty() {
        w.write_str(named)
    } else if v <= 64 || (v as i32) >= -16 && (v as i32) < 0 {
        write!(w, "{}", v as i32)
    } else {
        write!(w, "{v:#x}")
    }
}

/// Writes a GFX12 `export`'s operands after the mnemonic: the target (`mrt0`-`mrt7`,
/// `mrtz`, `pos0`-`pos4`, `prim`, `dual_src_blend0/1`, otherwise `invalid_target_N`),
/// four sources (`off` where the enable bit is clear), `done`, `row_en`.
pub(crate) fn exp(w: &mut dyn Write, i: &Inst) -> fmt::Result {
    let tgt = i.field(F::ExpTgt);
    match tgt {
        0..=7 => write!(w, " mrt{tgt}")?,
        8 => w.write_str(" mrtz")?,
        12..=16 => write!(w, " pos{}", tgt - 12)?,
        20 => w.write_str(" prim")?,
        21 | 22 => write!(w, " dual_src_blend{}", tgt - 21)?,
        _ => write!(w, " invalid_target_{tgt}")?,
    }
    let en = i.field(F::ExpEn);
    for (k, f) in [F::ExpV0, F::ExpV1, F::ExpV2, F::ExpV3]
        .into_iter()
        .enumerate()
    {
        w.write_str(if k == 0 { " " } else { ", " })?;
        if en & (1 << k) != 0 {
            write!(w, "v{}", i.field(f))?;
        } else {
            w.write_str("off")?;
        }
    }
    if i.field(F::ExpDone) != 0 {
        w.write_str(" done")?;
    }
    if i.field(F::ExpRow) != 0 {
        w.write_str(" row_en")?;
    }
    Ok(())
}
