//! The facts LLVM cannot be asked, as rules with their sources:
//!
//! - the issue class refines llvm-mca's scheduling resources (`HWSALU`, `HWVALU`,
//!   `HWXDL`, `HWLGKM`, `HWVMEM`, `HWBranch`, `HWExport`; GFX12 adds `HWRC` to
//!   everything) and may-load/may-store with names LLVM's model does not tell apart
//!   (program control, waits, messages, barriers, transcendentals);
//! - the wait counters follow LLVM's `SIInsertWaitcnts.cpp` (which events each
//!   instruction kind raises and which counter each event belongs to), cross-checked
//!   with the CDNA3 ISA guide §4.4 "Data Dependency Resolution" and the RDNA4 ISA guide's
//!   `S_WAIT_*` sections;
//! - implicit registers where no long-latency writer or reader exists (GFX9 SCC, EXEC,
//!   MODE; M0 everywhere, because LLVM's MC layer gives explicit `m0` operands the
//!   register `M0_gfx11plus`/`M0_gfxpre11` and implicit uses `M0`, so llvm-mca never
//!   links them) follow the ISA guides' instruction descriptions and LLVM's
//!   `SOPInstructions.td`/`VOPInstructions.td` `Defs`/`Uses` lists as documented in the
//!   AMDGPU backend docs;
//! - the graphics flag follows the ISA guides' chapters (export, interpolation, LDS
//!   parameter loads, sampled images, ray tracing).

use super::Imp;
use crate::layout::{Format, F};
use crate::learn::{Entry, Tok};
use crate::llvm::InstInfo;

/// Counter bits (the order of `isa::Counter`).
pub mod cnt {
    pub const VM: u16 = 1 << 0;
    pub const LGKM: u16 = 1 << 1;
    pub const EXP: u16 = 1 << 2;
    pub const LOAD: u16 = 1 << 3;
    pub const STORE: u16 = 1 << 4;
    pub const SAMPLE: u16 = 1 << 5;
    pub const BVH: u16 = 1 << 6;
    pub const KM: u16 = 1 << 7;
    pub const DS: u16 = 1 << 8;
}

/// Flag bits (the `isa::meta` flag constants).
pub mod flag {
    /// Graphics pipeline only.
    pub const GRAPHICS: u8 = 1 << 0;
    /// An atomic with a returning form chosen by a modifier (GFX9 glc/sc0, GFX12
    /// `TH_ATOMIC_RETURN`).
    pub const ATOMIC: u8 = 1 << 1;
}

/// The operation name: the mnemonic without encoding suffix (`_e32`, `_e64`, `_dpp`,
/// `_sdwa`) and with a VOPD `v_dual_` prefix read as `v_`.
pub fn base(e: &Entry) -> String {
    crate::emit::op_base(&e.mnemonic)
}

fn is_wait(m: &str) -> bool {
    m.starts_with("s_waitcnt") || m.starts_with("s_wait_")
}

fn is_message(m: &str) -> bool {
    m.starts_with("s_sendmsg") || m.starts_with("s_ttracedata")
}

fn is_barrier(m: &str) -> bool {
    m.starts_with("s_barrier")
}

fn is_branch(m: &str) -> bool {
    m.starts_with("s_branch")
        || m.starts_with("s_cbranch")
        || m.starts_with("s_setpc")
        || m.starts_with("s_swappc")
        || m.starts_with("s_call")
        || m.starts_with("s_rfe")
}

/// Program control that neither branches nor waits: the SOPP instructions that are not
/// branches, waits, messages or barriers, and their SOP1/SOPK relatives.
fn is_control(e: &Entry, m: &str) -> bool {
    (e.format == Format::Sopp && !m.starts_with("s_cbranch") && m != "s_branch")
        || matches!(
            m,
            "s_sethalt" | "s_setkill" | "s_trap" | "s_icache_inv" | "s_sleep_var" | "s_version"
        )
        || m.starts_with("s_set_gpr_idx")
        || m.starts_with("s_alloc_vgpr")
}

/// Transcendental operations: CDNA3 ISA guide Table 12 "Trans Ops" (exp, log, rcp,
/// rcp_iflag, rsq, sqrt, sin, cos in f16/f32, rcp/rsq/sqrt f64, exp/log legacy), the
/// RDNA4 guide's transcendental unit (the same operations and the `v_s_*` pseudo-scalar
/// forms); LLVM sets its `TRANS` flag on the same set (`VOP1Instructions.td`,
/// `VOP3Instructions.td`).
pub fn is_trans(op: &str) -> bool {
    let Some(rest) = op.strip_prefix("v_s_").or_else(|| op.strip_prefix("v_")) else {
        return false;
    };
    let Some((f, ty)) = rest.rsplit_once('_') else {
        return false;
    };
    let f = f.strip_suffix("_legacy").unwrap_or(f);
    matches!(ty, "f16" | "f32" | "f64")
        && matches!(
            f,
            "exp" | "log" | "rcp" | "rcp_iflag" | "rsq" | "sqrt" | "sin" | "cos"
        )
}

fn is_matrix(m: &str) -> bool {
    m.starts_with("v_mfma") || m.starts_with("v_smfmac") || m.contains("wmma")
}

/// Whether the entry's syntax names a sampler (image sample/gather/get_lod).
fn takes_sampler(e: &Entry) -> bool {
    e.format == Format::Vsample
        || e.variants.iter().flatten().any(|v| {
            v.iter().any(|t| {
                matches!(
                    t,
                    Tok::Reg {
                        field: F::ImgSamp,
                        ..
                    }
                )
            })
        })
}

/// The issue class (an `isa::IssueClass` variant name).
pub fn class(_gfx12: bool, e: &Entry, row: Option<&InstInfo>) -> &'static str {
    let m = base(e);
    let m = m.as_str();
    let uses = |r: &str| row.is_some_and(|x| x.uses(r));
    // Program control by name: LLVM models these as SALU or branch-unit work (or no
    // resource at all).
    if is_wait(m) {
        return "Wait";
    }
    if is_barrier(m) {
        return "Barrier";
    }
    if is_message(m) {
        return "Message";
    }
    if uses("HWXDL") || is_matrix(m) {
        return "Matrix";
    }
    if e.format == Format::Exp || uses("HWExport") {
        return "Export";
    }
    if uses("HWBranch") || is_branch(m) {
        return "Branch";
    }
    if is_control(e, m) {
        return "Control";
    }
    let (load, store) = match row {
        Some(r) => (r.may_load, r.may_store),
        None => mem_guess(m),
    };
    // LLVM marks loads into LDS (`global_load_lds_*`, buffer `lds`) as storing too (to
    // LDS); cache write-backs and invalidates neither load nor store.
    let vmem = |load: bool, store: bool| {
        if m.contains("_load_lds") || (load && store && m.contains("_load")) {
            return "VectorLoad";
        }
        match (load, store) {
            (true, true) => "VectorAtomic",
            (false, true) => "VectorStore",
            (false, false) if m.contains("_wb") => "VectorStore",
            _ => "VectorLoad",
        }
    };
    match e.format {
        Format::Smem => "ScalarMemory",
        Format::Ds | Format::Vdsdir => "Lds",
        Format::Flat
        | Format::Global
        | Format::Scratch
        | Format::Mubuf
        | Format::Mtbuf
        | Format::Mimg
        | Format::Vimage
        | Format::Vsample => vmem(load, store),
        Format::Sop1 | Format::Sop2 | Format::Sopc | Format::Sopk | Format::Sopp => "ScalarAlu",
        Format::Mai | Format::Vop3px2 => "Matrix",
        _ if is_trans(m) => "Transcendental",
        _ => "VectorAlu",
    }
}

/// May-load/may-store from the name, for probes llvm-mca could not parse.
fn mem_guess(m: &str) -> (bool, bool) {
    if m.contains("atomic") {
        (true, true)
    } else if m.contains("store") || m.contains("write") || m.contains("_wb") {
        (false, true)
    } else {
        (true, false)
    }
}

/// The wait counters an instruction increments with its default modifiers (no atomic
/// return, no `gds`). From LLVM's `SIInsertWaitcnts.cpp`:
/// - DS: LDS_ACCESS (GFX9 lgkmcnt, GFX12 dscnt); GWS and `gds` also GDS_GPR_LOCK
///   (expcnt);
/// - FLAT-segment instructions: the vector memory event and, because they may reach LDS,
///   LDS_ACCESS (GLOBAL and SCRATCH cannot: LLVM's `usesLGKM_CNT` is false for them;
///   the CDNA3 guide §10.2 says FLAT instructions increment both VM_CNT and LGKM_CNT);
/// - vector memory: GFX9 has one counter for reads and writes (vmcnt; no vscnt on
///   GFX9); GFX12 stores and non-returning atomics count on storecnt, loads and
///   returning atomics on loadcnt, images with a sampler (or MSAA loads, or any
///   VSAMPLE) on samplecnt, BVH on bvhcnt; buffer cache invalidates count nothing;
/// - scalar memory and `s_sendmsg*` (SMEM_ACCESS, SQ_MESSAGE): lgkmcnt / kmcnt, also
///   GFX12 `s_barrier_signal_isfirst`, `s_barrier_leave`, `s_get_barrier_state`;
/// - exports and GFX12 LDS parameter/direct loads (EXP_LDS_ACCESS): expcnt.
pub fn waits(gfx12: bool, e: &Entry, class: &str) -> u16 {
    use cnt::*;
    let m = base(e);
    let m = m.as_str();
    let flat = e.format == Format::Flat;
    match class {
        "VectorLoad" | "VectorStore" | "VectorAtomic" => {
            if m.contains("buffer_inv")
                || m.starts_with("buffer_wbinvl1")
                || m.contains("_gl0_inv")
                || m.contains("_gl1_inv")
            {
                return 0;
            }
            if !gfx12 {
                return VM | if flat { LGKM } else { 0 };
            }
            let ds = if flat { DS } else { 0 };
            let vmem = if m.starts_with("image_bvh") {
                BVH
            } else if e.format == Format::Vsample || takes_sampler(e) || m.contains("msaa") {
                SAMPLE
            } else if class == "VectorLoad" {
                LOAD
            } else {
                STORE
            };
            vmem | ds
        }
        "Lds" if e.format == Format::Vdsdir => EXP,
        "Lds" => {
            let gws = m.starts_with("ds_gws") || m == "ds_ordered_count";
            if gfx12 {
                DS
            } else if gws {
                LGKM | EXP
            } else {
                LGKM
            }
        }
        "ScalarMemory" => {
            if gfx12 {
                KM
            } else {
                LGKM
            }
        }
        "Message" if m.starts_with("s_sendmsg") => {
            if gfx12 {
                KM
            } else {
                LGKM
            }
        }
        "Barrier" if gfx12 && matches!(m, "s_barrier_signal_isfirst" | "s_barrier_leave") => KM,
        _ if gfx12 && m == "s_get_barrier_state" => KM,
        "Export" => EXP,
        _ => 0,
    }
}

/// Flag bits (graphics-only operations and modifier-dependent behaviour).
///
/// Graphics only (ISA guides: "Exporting" / "Interpolation" / "LDS parameter loads" /
/// "Image sampling" / "Ray tracing"): exports, `v_interp_*`, `ds_param_load` and
/// `ds_direct_load`, image operations that take a sampler (sample, gather4, get_lod),
/// BVH intersection. Image loads, stores and atomics without a sampler serve compute.
pub fn flags(e: &Entry) -> u8 {
    let m = base(e);
    let mut f = 0;
    let sampler = takes_sampler(e);
    if e.format == Format::Exp
        || e.format == Format::Vdsdir
        || m.starts_with("v_interp")
        || sampler
        || m.starts_with("image_bvh")
        // The ray-tracing traversal stack (RDNA4 guide, "Ray tracing": LDS stack
        // management for BVH traversal).
        || m.starts_with("ds_bvh_stack")
        // The ordered count of streamout (RDNA4 pseudocode: modulo the geometry
        // pipeline's VGT_GS_MAX_WAVE_ID register).
        || m == "global_atomic_ordered_add_b64"
        // Screen partitioning across shader engines for the rasterizer (listed in the
        // CDNA4 XML, described by no guide's instruction chapter).
        || m == "v_screen_partition_4se_b32"
    {
        f |= flag::GRAPHICS;
    }
    if m.contains("_atomic") {
        f |= flag::ATOMIC;
    }
    f
}

/// Whether an operation's operands or result are floating point (LLVM's
/// `ReadsModeReg`: VALU instructions whose destination or first source type is a float
/// use MODE); judged by the type suffixes of the name.
fn float_op(m: &str) -> bool {
    m.split('_').any(|p| {
        matches!(
            p,
            "f16"
                | "f32"
                | "f64"
                | "bf16"
                | "fp8"
                | "bf8"
                | "f8"
                | "fp4"
                | "f6"
                | "bf6"
                | "fp6"
                | "pk_f32"
                | "f32bf16"
        ) || p.starts_with("f32")
            || p.starts_with("f16")
            || p.starts_with("bf16")
            || p.ends_with("f16")
            || p.ends_with("f32")
            || p.ends_with("f64")
    })
}

/// SALU operations that write SCC (ISA guides' SOP1/SOP2/SOPC/SOPK descriptions: "SCC
/// = ..."; LLVM `SOPInstructions.td` `Defs = [SCC]`): integer arithmetic with carry or
/// overflow, min/max, bitwise logic, shifts, bit-field extracts, bit counts, compares,
/// `*_saveexec`/`*_wrexec`, `s_wqm`/`s_quadmask`/`s_not`/`s_abs`, `s_addk`, `s_cmpk`.
fn writes_scc(m: &str) -> bool {
    let n = m.strip_prefix("s_").unwrap_or("");
    let stem = n.split('_').next().unwrap_or("");
    if n.starts_with("cmp") || n.starts_with("bitcmp") {
        return true;
    }
    if n.contains("saveexec") || n.contains("wrexec") {
        return true;
    }
    // Float SALU (GFX12 `s_add_f32`, `s_cmp_*_f32` is a compare above) sets no SCC.
    if m.ends_with("_f32") || m.ends_with("_f16") {
        return false;
    }
    matches!(
        stem,
        "add"
            | "sub"
            | "addc"
            | "subb"
            | "min"
            | "max"
            | "and"
            | "or"
            | "xor"
            | "andn2"
            | "orn2"
            | "nand"
            | "nor"
            | "xnor"
            | "lshl"
            | "lshr"
            | "ashr"
            | "bfe"
            | "not"
            | "wqm"
            | "bcnt0"
            | "bcnt1"
            | "quadmask"
            | "abs"
            | "absdiff"
            | "addk"
            | "lshl1"
            | "lshl2"
            | "lshl3"
            | "lshl4"
    ) && !n.starts_with("add_f")
        && !n.starts_with("sub_f")
}

/// SALU operations that read SCC: selects, conditional moves, carries, SCC branches.
fn reads_scc(m: &str) -> bool {
    m.starts_with("s_cselect")
        || m.starts_with("s_cmov")
        || m.starts_with("s_addc")
        || m.starts_with("s_subb")
        || m.starts_with("s_add_co_ci")
        || m.starts_with("s_sub_co_ci")
        || m.starts_with("s_cbranch_scc")
}

fn vector_format(f: Format) -> bool {
    matches!(
        f,
        Format::Vop1
            | Format::Vop2
            | Format::Vopc
            | Format::Vop3
            | Format::Vop3b
            | Format::Vop3p
            | Format::Mai
            | Format::Vop3px2
            | Format::Vopd
            | Format::Vinterp
            | Format::Ds
            | Format::Flat
            | Format::Global
            | Format::Scratch
            | Format::Mubuf
            | Format::Mtbuf
            | Format::Mimg
            | Format::Vimage
            | Format::Vsample
            | Format::Vdsdir
            | Format::Exp
    )
}

/// Implicit registers `(read, written)` as [`Imp`] bits, from the rules (used where
/// llvm-mca cannot tell). `shown`: implicit registers the syntax prints, and whether
/// each is printed before the last operand.
pub fn implicit(gfx12: bool, e: &Entry, class: &str, shown: &[(Imp, bool)]) -> (u8, u8) {
    let m = base(e);
    let m = m.as_str();
    let (mut rd, mut wr) = (0u8, 0u8);
    // A lane mask printed before the sources is a result (VOPC e32, carry-out); printed
    // last it is an input (v_cndmask, carry-in). A printed `m0` or `scc` is read.
    for &(r, before_last) in shown {
        if matches!(r, Imp::Vcc | Imp::Exec) && before_last {
            wr |= r.bit();
        } else {
            rd |= r.bit();
        }
    }
    // EXEC: every vector instruction executes under it; the compares with `x` write it
    // (GFX9 `v_cmpx` also writes VCC in the 32-bit encoding, shown as `vcc`);
    // `s_*_saveexec`/`s_*_wrexec` read and write it; `s_cbranch_exec*` read it.
    if vector_format(e.format) {
        rd |= Imp::Exec.bit();
    }
    if m.starts_with("v_cmpx") {
        wr |= Imp::Exec.bit();
    }
    if m.contains("saveexec") || m.contains("wrexec") {
        rd |= Imp::Exec.bit();
        wr |= Imp::Exec.bit();
    }
    if m.starts_with("s_cbranch_exec") {
        rd |= Imp::Exec.bit();
    }
    // VCC: `v_div_fmas_*` reads it (not printed); the VCC branches read it.
    if m.starts_with("v_div_fmas") || m.starts_with("s_cbranch_vcc") {
        rd |= Imp::Vcc.bit();
    }
    // SCC.
    if class == "ScalarAlu" || m.starts_with("s_cbranch_scc") {
        if writes_scc(m) {
            wr |= Imp::Scc.bit();
        }
        if reads_scc(m) {
            rd |= Imp::Scc.bit();
        }
    }
    // M0 (ISA guides: the operations that take an address, count or message payload from
    // M0).
    if m.starts_with("s_movrel")
        || m.starts_with("v_movrel")
        || m == "s_sendmsg"
        || m == "s_sendmsghalt"
        || m == "s_ttracedata"
        || m.starts_with("ds_gws")
        || m == "ds_ordered_count"
        || m == "ds_append"
        || m == "ds_consume"
        || m.ends_with("_addtid_b32")
        || m.starts_with("global_load_lds")
        || e.format == Format::Vdsdir
        || (!gfx12 && m.starts_with("v_interp"))
    {
        rd |= Imp::M0.bit();
    }
    if m.starts_with("s_set_gpr_idx") && m != "s_set_gpr_idx_off" {
        wr |= Imp::M0.bit();
    }
    // MODE: float VALU reads it (LLVM `ReadsModeReg`); `s_setreg*`, `s_round_mode`,
    // `s_denorm_mode` and `s_set_gpr_idx_on/off/mode` write it (LLVM models every
    // `s_setreg` as a MODE write, whatever its register), `s_getreg` reads it.
    let valu = matches!(class, "VectorAlu" | "Transcendental" | "Matrix");
    if valu && float_op(m) {
        rd |= Imp::Mode.bit();
    }
    if m.starts_with("s_setreg") || m == "s_round_mode" || m == "s_denorm_mode" {
        wr |= Imp::Mode.bit();
    }
    // GPR indexing keeps its enable in MODE and its index in M0; `s_setvskip` sets
    // MODE.vskip.
    if m.starts_with("s_set_gpr_idx") {
        rd |= Imp::Mode.bit();
        wr |= Imp::Mode.bit();
    }
    if m == "s_setvskip" {
        wr |= Imp::Mode.bit();
    }
    if m.starts_with("s_getreg") {
        rd |= Imp::Mode.bit();
    }
    (rd, wr)
}

/// The register fields of every operand-syntax variant of an entry.
pub fn syntax_regs(e: &Entry) -> Vec<F> {
    let mut out = Vec::new();
    for v in e.variants.iter().flatten() {
        for t in v {
            if let Tok::Reg { field, .. } = t {
                if !out.contains(field) {
                    out.push(*field);
                }
            }
        }
    }
    out
}

/// Destination fields whose old value the operation keeps or accumulates (LLVM ties
/// them to a source): multiply-accumulate into the destination (`*mac*`, `*fmac*`,
/// `*dot*c*`), `v_writelane`, `s_cmovk`/`s_addk`/`s_mulk`, D16 high/low-half loads.
pub fn tied_dst(m: &str) -> bool {
    m.contains("fmac")
        || m.starts_with("v_mac_")
        || (m.starts_with("v_dot") && m.contains("c_"))
        || m.starts_with("v_writelane")
        || m.starts_with("s_cmov")
        || m.starts_with("s_addk")
        || m.starts_with("s_mulk")
        || m.contains("_d16")
}

/// Operations that exchange their two operands (`v_swap_b32`, `v_swap_b16`, gfx950
/// `v_permlane16_swap_b32`, `v_permlane32_swap_b32`): both are read and written.
pub fn swaps(m: &str) -> bool {
    m.starts_with("v_swap")
        || m.starts_with("v_permlane16_swap")
        || m.starts_with("v_permlane32_swap")
}

/// Operations that write their destination only under a condition (`s_cmov*`: SCC), so
/// that it keeps its old value otherwise (ISA guides' SOP1/SOPK descriptions).
pub fn conditional_write(m: &str) -> bool {
    m.starts_with("s_cmov")
}

/// Explicit register fields `(read, written)` from the rules, for probes llvm-mca
/// cannot parse: the destination fields of loads and ALU operations are written
/// (read too when tied), every other register field is read.
pub fn explicit(_gfx12: bool, e: &Entry, class: &str, fields: &[F]) -> (u128, u128) {
    let m = base(e);
    let (mut rd, mut wr) = (0u128, 0u128);
    for &f in fields {
        let bit = 1u128 << (f as u8);
        let dst = match f {
            F::Vdst | F::Sdst | F::VdstY => true,
            F::Src0 => swaps(&m),
            F::Sdata => class == "ScalarMemory" && !m.contains("store") && !m.contains("atomic"),
            F::Vdata => class == "VectorLoad",
            _ => false,
        };
        if dst {
            wr |= bit;
            if tied_dst(&m) || swaps(&m) {
                rd |= bit;
            }
        } else {
            rd |= bit;
        }
    }
    (rd, wr)
}
