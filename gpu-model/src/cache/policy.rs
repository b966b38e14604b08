//! From an instruction's cache-policy bits to the memory type ([`MType`]) of its access.
//!
//! The bits are taken as LLVM numbers them in its `CPol` operand (SIDefines.h), which is
//! also how our decoder reports them:
//!
//! * gfx90a: `glc` = bit 0, `slc` = bit 1, `scc` = bit 4.
//! * gfx940/942/950: the same bits spelled `sc0` (bit 0), `nt` (bit 1), `sc1` (bit 4).
//! * gfx12: `th` = bits 0..2 (temporal hint), `scope` = bits 3..4
//!   (0 CU, 1 SE, 2 DEV, 3 SYS).
//!
//! What the bits mean, from LLVM's AMDGPUUsage memory-model sections and from what
//! clang-22 emits (checked on this machine; `tests/cache_policy.rs` re-checks it):
//!
//! * gfx90a: a device-scope acquire load carries `glc` (L1 miss-evict, i.e. coherent),
//!   a system-scope one also needs L2 invalidation and system coherence (`scc`);
//!   non-temporal accesses carry `glc slc` (L1 bypass, L2 STREAM). So: `scc` -> UC,
//!   `slc` -> NT, `glc` -> CC, none -> RW.
//! * gfx94x: `sc0`/`sc1` encode the coherence scope (wave 00, workgroup sc0, agent sc1,
//!   system sc0+sc1); `nt` is non-temporal. The design note's table maps `sc0` to CC,
//!   `sc1` (with or without `sc0`) to UC (the per-XCD L2s of a multi-XCD part are not
//!   coherent with each other, so agent scope must bypass them), `nt` alone to NT.
//! * gfx12: `scope:SCOPE_SYS` -> UC; `SCOPE_DEV` and `SCOPE_SE` -> CC (LLVM uses SE for
//!   workgroup scope in WGP mode, where a workgroup spans the two CUs of a WGP and their
//!   L0s); `SCOPE_CU` with a non-temporal hint at the near caches (`TH_NT`, `TH_NT_RT`,
//!   `TH_NT_HT`, `TH_NT_WB`) or last-use (`TH_LU`) -> NT; otherwise RW.
//! * Atomics: on gfx9 `glc`/`sc0` only asks for the old value to be returned and on
//!   gfx12 `th` bit 0 does the same, so neither changes the memory type. gfx9 atomics
//!   with `scc`/`sc1` (system scope) and gfx12 atomics at `SCOPE_SYS` are UC (they
//!   execute beyond the L2); all others are RW (they execute at the L2).

use super::MType;
use crate::target::{Family, Target};

/// What kind of memory instruction carries the bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MemOp {
    /// A load (vector or scalar).
    Load,
    /// A store.
    Store,
    /// A read-modify-write atomic.
    Atomic,
}

/// gfx9 `glc` / `sc0`.
pub const GLC: u32 = 1;
/// gfx9 `slc` / `nt`.
pub const SLC: u32 = 2;
/// gfx9 `scc` / `sc1`.
pub const SCC: u32 = 16;
/// gfx12 temporal-hint field.
pub const TH_MASK: u32 = 0x7;
/// gfx12 scope field shift.
pub const SCOPE_SHIFT: u32 = 3;
/// gfx12 `SCOPE_CU`.
pub const SCOPE_CU: u32 = 0;
/// gfx12 `SCOPE_SE`.
pub const SCOPE_SE: u32 = 1;
/// gfx12 `SCOPE_DEV`.
pub const SCOPE_DEV: u32 = 2;
/// gfx12 `SCOPE_SYS`.
pub const SCOPE_SYS: u32 = 3;

/// The memory type of an `op` on `target` whose cache-policy operand is `cpol`.
pub fn mtype_for(target: Target, cpol: u32, op: MemOp) -> MType {
    match target.family() {
        Family::Gfx9 => gfx9(cpol, op),
        Family::Gfx12 => gfx12(cpol, op),
    }
}

fn gfx9(cpol: u32, op: MemOp) -> MType {
    if cpol & SCC != 0 {
        return MType::Uc;
    }
    if op == MemOp::Atomic {
        return MType::Rw;
    }
    // gfx90a spells non-temporal `glc slc`, gfx94x `nt` (and `sc0 nt` at workgroup
    // scope): whenever SLC/nt is set the access bypasses L1 and streams through L2.
    if cpol & SLC != 0 {
        MType::Nt
    } else if cpol & GLC != 0 {
        MType::Cc
    } else {
        MType::Rw
    }
}

fn gfx12(cpol: u32, op: MemOp) -> MType {
    let scope = (cpol >> SCOPE_SHIFT) & 0x3;
    let th = cpol & TH_MASK;
    match scope {
        SCOPE_SYS => MType::Uc,
        _ if op == MemOp::Atomic => MType::Rw,
        SCOPE_DEV | SCOPE_SE => MType::Cc,
        // TH_NT=1, TH_LU/TH_WB=3, TH_NT_RT=4, TH_NT_HT=6, TH_NT_WB=7 are non-temporal
        // (or last-use) at the CU caches; TH_RT=0, TH_HT=2, TH_RT_NT=5 are regular there.
        _ => match th {
            1 | 3 | 4 | 6 | 7 => MType::Nt,
            _ => MType::Rw,
        },
    }
}

/// What a cache-maintenance instruction does to this CU's caches and its XCD's L2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Maintenance {
    /// Drop every line of the vector L1 (V$ / L0).
    pub invalidate_vector_l1: bool,
    /// Drop every line of the scalar L1 (K$).
    pub invalidate_scalar_l1: bool,
    /// Write back dirty L2 lines and drop every L2 line.
    pub invalidate_l2: bool,
    /// Write back dirty L2 lines and keep them.
    pub write_back_l2: bool,
}

/// The cache maintenance done by the instruction `mnemonic` with cache-policy bits `cpol`
/// on `target`, or `None` if it is not a cache-maintenance instruction.
///
/// From LLVM AMDGPUUsage's memory-model code sequences (and what clang-22 emits for
/// acquire/release, re-checked in `tests/cache_policy.rs`):
/// * gfx90a: `buffer_wbinvl1_vol`/`buffer_wbinvl1` invalidate the vector L1 (acquire at
///   agent scope); `buffer_invl2` invalidates the L2 (acquire at system scope);
///   `buffer_wbl2` writes the L2 back (release at system scope).
/// * gfx94x: `buffer_inv` invalidates the vector L1, and with `sc1` (agent or system
///   scope) the L2 too; `buffer_wbl2` writes the L2 back.
/// * gfx9: `s_dcache_inv`/`s_dcache_inv_vol` invalidate the scalar L1.
/// * gfx12: `global_inv scope:SE/DEV` invalidates the CU's vector and scalar caches, at
///   `scope:SYS` the L2 as well; `global_wb scope:SYS` writes the L2 back.
///
/// Invalidating an L2 writes its dirty lines back first (the model never drops stores).
pub fn maintenance(target: Target, mnemonic: &str, cpol: u32) -> Option<Maintenance> {
    let none = Maintenance::default();
    let l1 = Maintenance {
        invalidate_vector_l1: true,
        ..none
    };
    let wb = Maintenance {
        write_back_l2: true,
        ..none
    };
    let gfx94x = matches!(target, Target::Gfx942 | Target::Gfx950);
    match (target.family(), mnemonic) {
        (Family::Gfx9, "buffer_wbinvl1_vol" | "buffer_wbinvl1") if !gfx94x => Some(l1),
        (Family::Gfx9, "buffer_invl2") if !gfx94x => Some(Maintenance {
            invalidate_l2: true,
            ..none
        }),
        (Family::Gfx9, "buffer_inv") if gfx94x => Some(Maintenance {
            invalidate_l2: cpol & SCC != 0,
            ..l1
        }),
        (Family::Gfx9, "buffer_wbl2") => Some(wb),
        (Family::Gfx9, "s_dcache_inv" | "s_dcache_inv_vol") => Some(Maintenance {
            invalidate_scalar_l1: true,
            ..none
        }),
        (Family::Gfx12, "global_inv") => {
            let scope = (cpol >> SCOPE_SHIFT) & 0x3;
            Some(Maintenance {
                invalidate_vector_l1: scope >= SCOPE_SE,
                invalidate_scalar_l1: scope >= SCOPE_SE,
                invalidate_l2: scope == SCOPE_SYS,
                write_back_l2: false,
            })
        }
        (Family::Gfx12, "global_wb") => {
            let scope = (cpol >> SCOPE_SHIFT) & 0x3;
            Some(Maintenance {
                write_back_l2: scope == SCOPE_SYS,
                ..none
            })
        }
        _ => None,
    }
}
