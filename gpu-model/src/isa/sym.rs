//! Symbolic operand syntax LLVM prints: `hwreg(...)`, GFX9 MTBUF `format:[...]`, cache
//! policies (GFX9 glc/sc0.., GFX12 `th:`/`scope:`), `ds_swizzle` offsets, SOPP
//! `s_waitcnt`/`s_wait_alu`/`s_delay_alu` fields, and
//! the GFX12 SMEM modifiers that live outside the learned operand syntax, and GFX12
//! `export` (whose operands depend on its enable mask).
//!
//! The names are facts read off `llvm-mc-22 --disassemble` (every hwreg id and every
//! data/number format code was disassembled per target); `tests/isa_sweep.rs` checks
//! them against the oracle.

use super::layout::{self, F};
use super::Inst;
use crate::target::{Family, Target};
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
/// cache policy, and `nv` (bit 20). `s_dcache_inv` prints none of them.
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
    // What LLVM prints of these bits is learned per opcode (modifier probes 0-3 th and
    // scope, 4 nv, 5 scale_offset; prefetches print none of them).
    let m = |p: u32| i.entry().mods & (1 << p) != 0;
    if bit(56) && m(5) {
        w.write_str(" scale_offset")?;
    }
    if m(0) || m(1) || m(2) || m(3) {
        th_scope(w, i)?;
    }
    if bit(20) && m(4) {
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

/// Writes a GFX12 VDSDIR instruction's operands: the destination, `ds_param_load`'s
/// `attrN.c`, and both wait counts (always printed).
pub(crate) fn vdsdir(w: &mut dyn Write, i: &Inst) -> fmt::Result {
    write!(w, " v{}", i.field(F::Vdst))?;
    let param = i
        .syntax()
        .iter()
        .any(|o| matches!(o, super::table::Opnd::Text(t) if t.starts_with("attr")));
    if param {
        let c = ['x', 'y', 'z', 'w'][i.field(F::AttrChan) as usize & 3];
        write!(w, ", attr{}.{c}", i.field(F::Attr))?;
    }
    write!(
        w,
        " wait_va_vdst:{} wait_vm_vsrc:{}",
        i.field(F::WaitVaVdst),
        i.field(F::WaitVmVsrc)
    )
}

/// The `ds_swizzle_b32` offset in LLVM's symbolic `swizzle(...)` syntax: bits 15:8 =
/// 0x80 is a quad permute (four 2-bit lane selects), bits 15:13 = 0b111 an FFT swizzle,
/// 0b110 a rotate (direction bit 10, amount bits 9:5), other values with bit 15 set
/// print in decimal; otherwise bits 4:0, 9:5 and 14:10 are the
/// and/or/xor masks of a bitmask permute, printed in its most specific form.
pub(crate) fn swizzle(w: &mut dyn Write, v: u32) -> fmt::Result {
    if v & 0xFF00 == 0x8000 {
        return write!(
            w,
            "swizzle(QUAD_PERM,{},{},{},{})",
            v & 3,
            (v >> 2) & 3,
            (v >> 4) & 3,
            (v >> 6) & 3
        );
    }
    if v & 0xE000 == 0xE000 {
        return write!(w, "swizzle(FFT,{})", v & 0x1F);
    }
    if v & 0xE000 == 0xC000 {
        return write!(w, "swizzle(ROTATE,{},{})", (v >> 10) & 1, (v >> 5) & 0x1F);
    }
    if v & 0x8000 != 0 {
        return write!(w, "{v}");
    }
    let (and, or, xor) = (v & 0x1F, (v >> 5) & 0x1F, (v >> 10) & 0x1F);
    if and == 0x1F && or == 0 && xor.count_ones() == 1 {
        return write!(w, "swizzle(SWAP,{xor})");
    }
    if and == 0x1F && or == 0 && xor > 0 && (xor + 1).is_power_of_two() {
        return write!(w, "swizzle(REVERSE,{})", xor + 1);
    }
    let group = 0x1F - and + 1;
    if group > 1 && group.is_power_of_two() && or < group && xor == 0 {
        return write!(w, "swizzle(BROADCAST,{group},{or})");
    }
    // Per lane-id bit (high to low): what a lane with that bit 0 / 1 reads.
    let p0 = or ^ xor;
    let p1 = ((0x1F & and) | or) ^ xor;
    w.write_str("swizzle(BITMASK_PERM,\"")?;
    for b in (0..5).rev() {
        let (a, c) = ((p0 >> b) & 1, (p1 >> b) & 1);
        w.write_char(match (a, c) {
            (1, 1) => '1',
            (0, 0) => '0',
            (0, _) => 'p',
            _ => 'i',
        })?;
    }
    w.write_str("\")")
}

/// GFX9 cache-policy bits: glc/slc/scc (gfx90a) or sc0/nt/sc1 (gfx94x), printed in
/// LLVM's order.
pub(crate) fn cache9(
    w: &mut dyn Write,
    i: &Inst,
    gfx940: bool,
    probes: [(F, u32); 3],
) -> fmt::Result {
    let e = i.entry();
    let on = |f: F, p: u32| e.mods & (1 << p) != 0 && i.field(f) != 0;
    let [(glc, pg), (slc, ps), (scc, pc)] = probes;
    if gfx940 {
        // LLVM 22 prints the gfx94x bits in this order (nt before sc1) on every
        // format.
        if on(glc, pg) {
            w.write_str(" sc0")?;
        }
        if on(slc, ps) {
            w.write_str(" nt")?;
        }
        if on(scc, pc) {
            w.write_str(" sc1")?;
        }
    } else {
        if on(glc, pg) {
            w.write_str(" glc")?;
        }
        if on(slc, ps) {
            w.write_str(" slc")?;
        }
        if on(scc, pc) {
            w.write_str(" scc")?;
        }
    }
    Ok(())
}

/// GFX12 temporal hint and scope, as LLVM 22 names them: loads/stores by name (`th:0x7`
/// for the unnamed load hint, BYPASS for th 3 at system scope); atomics RETURN, NT,
/// NT_RETURN, and with the cascade bit CASCADE_RT/CASCADE_NT at device or system scope
/// (`th:TH_ATOMIC_0xN` below it).
pub(crate) fn th_scope(w: &mut dyn Write, i: &Inst) -> fmt::Result {
    let th = i.field(F::Th);
    let scope = i.field(F::Scope);
    let m = i.mnemonic();
    let store = m.contains("store");
    let atomic = m.contains("atomic");
    if th != 0 {
        if atomic {
            match th {
                1 => w.write_str(" th:TH_ATOMIC_RETURN")?,
                2 => w.write_str(" th:TH_ATOMIC_NT")?,
                3 => w.write_str(" th:TH_ATOMIC_NT_RETURN")?,
                _ if scope < 2 => write!(w, " th:TH_ATOMIC_{th:#x}")?,
                4 | 5 => w.write_str(" th:TH_ATOMIC_CASCADE_RT")?,
                _ => w.write_str(" th:TH_ATOMIC_CASCADE_NT")?,
            }
        } else {
            let names_load = ["RT", "NT", "HT", "LU", "NT_RT", "RT_NT", "NT_HT", ""];
            let names_store = ["RT", "NT", "HT", "WB", "NT_RT", "RT_NT", "NT_HT", "NT_WB"];
            let th = th as usize & 7;
            let name = if store {
                names_store[th]
            } else {
                names_load[th]
            };
            let name = if th == 3 && scope == 3 {
                "BYPASS"
            } else {
                name
            };
            let kind = if store { "STORE" } else { "LOAD" };
            if name.is_empty() {
                write!(w, " th:{th:#x}")?;
            } else {
                write!(w, " th:TH_{kind}_{name}")?;
            }
        }
    }
    if scope != 0 {
        let s = ["CU", "SE", "DEV", "SYS"][scope as usize & 3];
        write!(w, " scope:SCOPE_{s}")?;
    }
    Ok(())
}

impl Inst {
    /// SOPP immediates with a symbolic syntax; returns whether it printed.
    pub(crate) fn write_special_sopp(&self, w: &mut dyn Write) -> Result<bool, fmt::Error> {
        let v = self.field(F::Simm16);
        match (self.target.family(), self.mnemonic()) {
            (Family::Gfx9, "s_waitcnt") => {
                let vm = (v & 0xf) | ((v >> 14) & 3) << 4;
                let exp = (v >> 4) & 7;
                let lgkm = (v >> 8) & 0xf;
                if v & 0x3080 != 0 {
                    write!(w, " {v:#x}")?;
                    return Ok(true);
                }
                let all = vm == 63 && exp == 7 && lgkm == 15;
                let mut sep = " ";
                if vm != 63 || all {
                    write!(w, "{sep}vmcnt({vm})")?;
                    sep = " ";
                }
                if exp != 7 || all {
                    write!(w, "{sep}expcnt({exp})")?;
                }
                if lgkm != 15 || all {
                    write!(w, "{sep}lgkmcnt({lgkm})")?;
                }
                Ok(true)
            }
            // The message names llvm-mc-22 prints for GFX12 `s_sendmsg` (gfx1200/gfx1201;
            // other values keep the plain immediate: KNOWN-DIFFERENCES.md).
            (Family::Gfx12, "s_sendmsg") => {
                let name = match v {
                    1 => "MSG_INTERRUPT",
                    2 => "MSG_HS_TESSFACTOR",
                    3 => "MSG_DEALLOC_VGPRS",
                    9 => "MSG_GS_ALLOC_REQ",
                    _ => return Ok(false),
                };
                write!(w, " sendmsg({name})")?;
                Ok(true)
            }
            (Family::Gfx12, "s_wait_alu") => {
                // (name, lowest bit, width); unset fields default to all ones.
                const FIELDS: [(&str, u32, u32); 7] = [
                    ("depctr_hold_cnt", 7, 1),
                    ("depctr_sa_sdst", 0, 1),
                    ("depctr_va_vdst", 12, 4),
                    ("depctr_va_sdst", 9, 3),
                    ("depctr_va_ssrc", 8, 1),
                    ("depctr_va_vcc", 1, 1),
                    ("depctr_vm_vsrc", 2, 3),
                ];
                if v & 0x60 != 0 {
                    write!(w, " {v:#x}")?;
                    return Ok(true);
                }
                let all = v & 0xff9f == 0xff9f;
                for (name, lo, bits) in FIELDS {
                    let x = (v >> lo) & ((1 << bits) - 1);
                    if all || x != (1 << bits) - 1 {
                        write!(w, " {name}({x})")?;
                    }
                }
                Ok(true)
            }
            (Family::Gfx12, "s_delay_alu") => {
                const ID: [&str; 12] = [
                    "NO_DEP",
                    "VALU_DEP_1",
                    "VALU_DEP_2",
                    "VALU_DEP_3",
                    "VALU_DEP_4",
                    "TRANS32_DEP_1",
                    "TRANS32_DEP_2",
                    "TRANS32_DEP_3",
                    "FMA_ACCUM_CYCLE_1",
                    "SALU_CYCLE_1",
                    "SALU_CYCLE_2",
                    "SALU_CYCLE_3",
                ];
                const SKIP: [&str; 6] = ["SAME", "NEXT", "SKIP_1", "SKIP_2", "SKIP_3", "SKIP_4"];
                let (id0, skip, id1) = (v & 0xf, (v >> 4) & 7, (v >> 7) & 0xf);
                if v >> 11 != 0 || id0 >= 12 || id1 >= 12 || skip >= 6 || v == 0 {
                    write!(w, " {v:#x}")?;
                    return Ok(true);
                }
                let mut first = true;
                let mut part = |w: &mut dyn Write, s: fmt::Arguments<'_>| -> fmt::Result {
                    w.write_str(if first { " " } else { " | " })?;
                    first = false;
                    w.write_fmt(s)
                };
                if id0 != 0 {
                    part(w, format_args!("instid0({})", ID[id0 as usize]))?;
                }
                if skip != 0 {
                    part(w, format_args!("instskip({})", SKIP[skip as usize]))?;
                }
                if id1 != 0 {
                    part(w, format_args!("instid1({})", ID[id1 as usize]))?;
                }
                Ok(true)
            }
            _ => Ok(false),
        }
    }
}
