//! GFX9 (gfx950) -> GFX12 (gfx1201, wave64) instruction legalization.
//!
//! Equivalence is by mnemonic only (the design's contract): the host operation is the
//! guest's own [`Op`] when gfx1201 has it, or one that `gpu_model::isa` registers as an
//! alias of the same canonical operation (`s_load_dword` -> `s_load_b32`,
//! `global_load_dword` -> `global_load_b32`, `ds_read2_b32` -> `ds_load_2addr_b32`,
//! `v_add_u32` -> `v_add_nc_u32`, `v_mad_u64_u32` -> `v_mad_co_u64_u32`, ...). The host
//! form is built from the generated gfx1201 tables in the guest's format when gfx1201
//! has it, else in the VOP3 form (a GFX9 VOP2/VOPC whose GFX12 equivalent only exists
//! as VOP3, e.g. `v_add_co_u32_e32` -> `v_add_co_u32_e64 ..., vcc, ...`); operands are
//! set from the guest's, modifiers and offsets copied field by field, and the result is
//! decoded again on gfx1201 and must read back the same operands.
//!
//! Register codes that differ (ISA-ENCODINGS.md, llvm-mc-22): M0 is 124 on GFX9 and 125
//! on GFX12 (124 is NULL there); GFX9's FLAT_SCRATCH/XNACK_MASK (102..105) and TTMPs are
//! refused. GFX9 FLAT/GLOBAL `saddr` "off" is 0x7f, GFX12's is NULL (124).
//!
//! Handwritten rules (each checked on the gfx1201 model by `dbt/tests/rdna.rs`):
//!
//! * `s_waitcnt` -> the GFX12 split counters. GFX9 `vmcnt` counts loads and stores
//!   together, GFX12 has `loadcnt` and `storecnt`; `lgkmcnt` counts LDS and scalar
//!   memory, GFX12 has `dscnt` and `kmcnt`. A GFX9 count N > 0 orders the oldest
//!   operations of a mixed stream, which neither split counter alone can express
//!   without knowing the stream, so the mapping is conservative: any waited GFX9
//!   counter waits for 0 on both of its GFX12 counters (`vmcnt(N<63)` ->
//!   `s_wait_loadcnt 0` + `s_wait_storecnt 0`, `lgkmcnt(N<15)` -> `s_wait_dscnt 0` +
//!   `s_wait_kmcnt 0`; `dscnt` shares one `s_wait_loadcnt_dscnt` or
//!   `s_wait_storecnt_dscnt` with a vector memory counter), leaving out the GFX12
//!   counters that nothing can be outstanding on there (`known::pending`: e.g. a
//!   `vmcnt(0)` after loads only waits on `loadcnt`) and `expcnt`, which nothing a
//!   translation emits counts on (see [`waitcnt`]). Field layout of the GFX9
//!   immediate: vmcnt bits 3:0 and 15:14, expcnt 6:4, lgkmcnt 11:8 (LLVM
//!   AMDGPUBaseInfo, gfx9 `Waitcnt` encoding).
//! * `s_barrier` -> `s_barrier_signal -1` + `s_barrier_wait -1` (what clang-22 emits for
//!   a workgroup barrier on gfx1201; llvm-mc-22 refuses `s_barrier` there).
//! * `v_lshl_add_u64 d, a, n, c` (gfx940+, not on gfx1201: llvm-mc-22 "instruction not
//!   supported") -> `v_lshlrev_b64 t, n, a`, `v_add_co_u32 d.lo, s[104:105], t.lo,
//!   c.lo`, `v_add_co_ci_u32 d.hi, s[104:105], t.hi, c.hi, s[104:105]` with scratch
//!   VGPRs `t` above the kernel's and the carry in s[104:105] (with `n` = 0 the adds read
//!   `a` directly, unless `a` is a literal or both sources are SGPRs): on GFX12 every wave has
//!   106 SGPRs and s102..s105 are never named by translated gfx950 code (its codes
//!   102..105 are FLAT_SCRATCH/XNACK_MASK, refused above). Where VCC is dead after it
//!   the carry goes through VCC instead and the high add is the VOP2 form; where `a`
//!   (or with `n` = 0 either source) is a 32-bit value proven zero- or sign-extended, the
//!   whole operation is one `v_mad_co_u64_u32` / `v_mad_co_i64_i32` ([`lshl_add_mad`]).
//! * `v_mov_b64` (gfx940+, not on gfx1201) and `v_pk_mov_b32` (gfx90a+, not on gfx1201)
//!   -> two `v_mov_b32`, ordered so an overlapping source half is read before it is
//!   written.
//!
//! Hazards: GFX12 wants `s_delay_alu` between dependent VALU instructions for
//! performance only (the hardware interlocks; RDNA4 ISA guide, "Data dependency
//! resolution"); none are inserted and the model does not need them.

use crate::error::TranslateError;
use crate::rules;
use gpu_model::isa::layout::{self, Format, F};
use gpu_model::isa::{self, Inst, Op, Operand};
use gpu_model::Target;

/// The host.
pub(crate) const HOST: Target = Target::Gfx1201;
/// GFX12 NULL (scalar operand code 124).
const NULL: u16 = 124;
/// The SGPR pair the expansions use for a carry (see the module doc).
pub(crate) const CARRY: u16 = 104;

/// Where an instruction comes from (diagnostics) and the kernel's scratch VGPRs.
pub(crate) struct Ctx<'a> {
    /// Kernel name.
    pub kernel: &'a str,
    /// Image address of the guest instruction.
    pub pc: u64,
    /// First scratch VGPR (above everything the kernel names).
    pub scratch_first: u16,
    /// Scratch VGPRs used so far (high-water mark).
    pub scratch_used: u16,
    /// Where the guest's AGPRs live in the host's VGPRs (`a[n]` is `v[base + n]`), when
    /// the kernel has any.
    pub agpr_base: Option<u16>,
    /// Buffer descriptors in the GFX12 layout (see [`buffer`]).
    pub rsrc: Rsrcs,
    /// Whether SCC may be read after the current instruction before it is written.
    pub scc_live: bool,
    /// Known bits of the current buffer instruction's descriptor words ([`super::known`]).
    pub known: [super::known::Bits; 4],
    /// Guest SGPRs that hold a GFX12 descriptor dword3 in place of their constant
    /// ([`buffer`], [`restore`]; `s_mov_b32` copies of one are tracked too, see
    /// `super::emit`).
    pub inplace: Vec<InPlace>,
    /// Whether descriptors may be converted in place (no SGPR is indexed through M0).
    pub inplace_ok: bool,
    /// GFX12 counters that may have operations outstanding before the current
    /// instruction (`known::LOAD | STORE | DS | KM` bits, [`super::known::pending`]).
    pub pending: u8,
    /// The kernel's initial MODE bits 7:0 (the descriptor's FLOAT_MODE).
    pub float_mode: u8,
    /// Whether the high half of the current guest instruction's destination is never
    /// read before it is overwritten ([`super::high16_dead`]): a GFX9 16-bit operation's
    /// clearing of it is then left out.
    pub high16_dead: bool,
    /// For a `v_lshl_add_u64`, whether its shifted source and its addend (VGPR pairs)
    /// hold a 32-bit value extended to 64 bits, signed (`Some(true)`) or unsigned
    /// ([`super::extended`]).
    pub extended: [Option<bool>; 2],
    /// For a `v_lshl_add_u64`, whether VCC is dead after it ([`super::vcc_live_after`]):
    /// its carry may then go through VCC, which lets the high add take the 4-byte VOP2
    /// form.
    pub vcc_dead: bool,
    /// Guest `s_mov_b32`s of constants into descriptors' dword3 whose emission waits
    /// for the buffer access that reads them ([`super::dword3_def`]), by register:
    /// [`buffer`] drops one when it writes the register's GFX12 word in place, else
    /// emits those of its descriptor first.
    pub deferred: Vec<(u16, Inst)>,
    /// The scope's 32x32 MFMA chains, whose tiles live below `scratch_first`.
    pub chains: super::matrix::Chains,
    /// The f32 MFMAs' permute bases, which live below `scratch_first`.
    pub bases: super::matrix_valu::Bases,
}

/// A guest SGPR that holds a GFX12 descriptor dword3 in place of the guest's constant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct InPlace {
    /// The SGPR.
    pub reg: u16,
    /// The guest's value, put back by [`restore`].
    pub guest: u32,
    /// The GFX12 word it holds now.
    pub host: u32,
}

/// The 4-aligned SGPR quads above everything the kernel scope names (GFX12 has 106
/// SGPRs per wave; the quads end below s[104:105], the expansions' carry) that hold
/// GFX12 copies of the guest's buffer descriptors, and which guest descriptor each
/// holds now, least recently used first. Copies are kept while the guest descriptor's
/// SGPRs are not written and control does not join or leave (see
/// [`Rsrcs::observe`]), so a block converts each descriptor once.
#[derive(Debug, Default)]
pub(crate) struct Rsrcs {
    /// First SGPR of every free quad.
    pub quads: Vec<u16>,
    /// (guest descriptor's first SGPR, quad) in use order.
    held: Vec<(u16, u16)>,
}

impl Rsrcs {
    /// Quads `s[k:k+3]` for `k` from `extent` rounded up to 4 below 104.
    pub fn above(extent: Option<u16>) -> Rsrcs {
        let quads = match extent {
            Some(e) => (e.div_ceil(4) * 4..CARRY).step_by(4).collect(),
            // SGPRs indexed through M0: nothing is known free.
            None => Vec::new(),
        };
        Rsrcs {
            quads,
            held: Vec::new(),
        }
    }

    /// Forgets the copies that `s` (a guest instruction) may make stale: all of them at
    /// a block leader or a transfer of control, else those whose guest SGPRs it writes.
    pub fn observe(&mut self, s: &crate::cfg::SrcInst, leader: bool) {
        if leader || !matches!(s.flow, crate::cfg::Flow::Next) {
            self.held.clear();
            return;
        }
        for a in s.inst.accesses() {
            if a.file == isa::RegFile::Sgpr && a.kind != isa::AccessKind::Read {
                let (lo, hi) = (a.first, a.first + u16::from(a.count));
                self.held.retain(|&(r, _)| hi <= r || lo >= r + 4);
            }
        }
    }
}

impl Ctx<'_> {
    fn unsupported(&self, g: &Inst, reason: &'static str) -> TranslateError {
        TranslateError::UnsupportedForm {
            kernel: self.kernel.to_string(),
            pc: self.pc,
            text: g.to_string(),
            reason,
        }
    }
    fn no_rule(&self, g: &Inst) -> TranslateError {
        TranslateError::NoRule {
            kernel: self.kernel.to_string(),
            pc: self.pc,
            text: g.to_string(),
            host: HOST,
        }
    }
    pub(super) fn enc(&self, source: isa::EncodeError) -> TranslateError {
        TranslateError::Encode {
            kernel: self.kernel.to_string(),
            pc: self.pc,
            source,
        }
    }
}

/// The gfx1201 sequence for guest instruction `g` (decoded on gfx950 from `bytes`).
pub(crate) fn lower(g: &Inst, bytes: &[u8], cx: &mut Ctx<'_>) -> Result<Vec<Inst>, TranslateError> {
    // gfx950-only operations with a gfx942 semantic rule: expand for gfx942, then
    // re-encode each gfx942 instruction for gfx1201 (following the counters the
    // sequence's own memory operations leave outstanding, for its waits). The transposing
    // LDS reads' rule permutes with `ds_bpermute_b32` within groups of 16 lanes only;
    // `v_cvt_pk_bf16_f32`'s (GFX12 has no f32 -> bf16 conversion) is integer only, its
    // flushing decided by the kernel's FLOAT_MODE, which the gfx1201 descriptor keeps.
    if matches!(g.op, Op::DsReadB64TrB16 | Op::DsReadB64TrB8) {
        cx.high16_dead = false;
        let bits = if g.op == Op::DsReadB64TrB16 { 16 } else { 8 };
        return read_tr(g, bits, cx);
    }
    if let Some(seq) = bitop3_short(g, cx)? {
        return Ok(seq);
    }
    if matches!(
        g.op,
        Op::VBitop3B32 | Op::VBitop3B16 | Op::VCvtPkF16F32 | Op::VCvtPkBf16F32
    ) {
        // The rules' own 16-bit operations keep their clearing.
        cx.high16_dead = false;
        let mut sc = rules::Scratch {
            first: cx.scratch_first,
            used: cx.scratch_used,
        };
        let at = rules::At {
            kernel: cx.kernel,
            pc: cx.pc,
        };
        let mut fp8 = rules::Fp8Cache::default();
        let seq = match rules::lower_in_mode(
            g,
            bytes,
            Target::Gfx942,
            &mut sc,
            &at,
            cx.float_mode,
            &mut fp8,
        )? {
            rules::Lowered::Expand(seq) => seq,
            _ => return Err(cx.no_rule(g)),
        };
        cx.scratch_used = cx.scratch_used.max(sc.used);
        let mut out = Vec::new();
        for i in &seq {
            out.extend(lower_one(i, cx)?);
            cx.pending = super::known::pending_after(i, cx.pending);
        }
        return Ok(out);
    }
    if is_lds_dma(g) {
        cx.high16_dead = false;
        return lds_dma(g, cx);
    }
    lower_one(g, cx)
}

/// A plain `v_bitop3_b32` (no clamp, op_sel or extension) as at most two GFX12 bitwise
/// operations ([`super::logic`]), when its function takes no more.
fn bitop3_short(g: &Inst, cx: &mut Ctx<'_>) -> Result<Option<Vec<Inst>>, TranslateError> {
    let Some(table) = g.bitop3() else {
        return Ok(None);
    };
    if g.op != Op::VBitop3B32
        || g.ext().is_some()
        || g.field(F::Clamp) != 0
        || g.field(F::OpSel) != 0
    {
        return Ok(None);
    }
    let d = map_operand(g, op(g, 0, cx)?, cx)?;
    let mut srcs = [Operand::Inline(128); 3];
    for (k, s) in srcs.iter_mut().enumerate() {
        *s = map_operand(g, op(g, k + 1, cx)?, cx)?;
    }
    let Some((seq, scratch)) = super::logic::bitop3(table, d, srcs, cx.scratch_first, cx)? else {
        return Ok(None);
    };
    if scratch {
        cx.scratch_used = cx.scratch_used.max(1);
    }
    Ok(Some(seq))
}

/// Whether `g` reads only the low 16 bits of its VGPR sources: a GFX9 16-bit operation
/// with a 16-bit result ([`zeroes_high16`]) or `v_cvt_f32_f16`, without SDWA/DPP and
/// without VOP3 `op_sel`.
pub(crate) fn reads_low16(g: &Inst) -> bool {
    (zeroes_high16(g.op) || g.op == Op::VCvtF32F16)
        && g.ext().is_none()
        && match g.format {
            Format::Vop1 | Format::Vop2 => true,
            Format::Vop3 => g.field(F::OpSel) == 0,
            _ => false,
        }
}

/// Whether `g` is a GFX9 LDS DMA load (`buffer_load_* ... lds`, `global_load_lds_*`).
fn is_lds_dma(g: &Inst) -> bool {
    (g.format == Format::Mubuf && g.field(F::Lds) != 0)
        || matches!(
            g.op,
            Op::GlobalLoadLdsDword
                | Op::GlobalLoadLdsUbyte
                | Op::GlobalLoadLdsSbyte
                | Op::GlobalLoadLdsUshort
                | Op::GlobalLoadLdsSshort
                | Op::GlobalLoadLdsDwordx3
                | Op::GlobalLoadLdsDwordx4
        )
}

/// A GFX9 LDS DMA load: GFX12 has none (its VBUFFER/VGLOBAL loads have no LDS bit;
/// llvm-mc-22 refuses `lds` for gfx1201), so the gfx942 rule's sequence
/// ([`rules::expand_lds_dma`]: the same load into scratch VGPRs, `s_waitcnt vmcnt(0)`,
/// the lane's LDS address `M0 + inst_offset + lane * bytes`, `ds_write_b{32,96,128}`,
/// `s_waitcnt lgkmcnt(0)`) re-encoded for GFX12 one instruction at a time: the load
/// takes the descriptor conversion of [`buffer`], M0 its GFX12 code, the waits the
/// split counters. The counters outstanding are followed through the sequence so the
/// sequence's own waits cover its load and LDS write.
fn lds_dma(g: &Inst, cx: &mut Ctx<'_>) -> Result<Vec<Inst>, TranslateError> {
    let mut sc = rules::Scratch {
        first: cx.scratch_first,
        used: cx.scratch_used,
    };
    let at = rules::At {
        kernel: cx.kernel,
        pc: cx.pc,
    };
    let seq = rules::expand_lds_dma(g, &mut sc, &at)?;
    cx.scratch_used = cx.scratch_used.max(sc.used);
    let mut out = Vec::new();
    for i in &seq {
        out.extend(lower_one(i, cx)?);
        cx.pending = super::known::pending_after(i, cx.pending);
    }
    Ok(out)
}

/// [`lower`] for an instruction without a gfx942 rule.
fn lower_one(g: &Inst, cx: &mut Ctx<'_>) -> Result<Vec<Inst>, TranslateError> {
    let fix = zeroes_high16(g.op);
    // The clearing AND writes every active lane; a DPP lane the masks leave alone, or
    // one whose source is invalid without bound_ctrl, keeps its whole old value.
    if fix
        && g.ext() == Some(isa::Ext::Dpp16)
        && (g.field(F::RowMask) != 0xf || g.field(F::BankMask) != 0xf || g.field(F::BoundCtrl) == 0)
    {
        return Err(cx.unsupported(
            g,
            "a 16-bit DPP operation that may leave lanes unwritten is not translated to GFX12",
        ));
    }
    let mut out = lower_plain(g, cx)?;
    // SDWA results are placed by `sdwa` from the plain operation, which came through here.
    if fix && g.ext() != Some(isa::Ext::Sdwa) && !cx.high16_dead {
        out.extend(zero_high16(g, cx)?);
    }
    Ok(out)
}

/// GFX9 VALU operations with a 16-bit result that zero the destination's high half
/// (the GFX8-era 16-bit operations: LLVM `GCNSubtarget::zeroesHigh16BitsOfDest`, "On
/// gfx10, all 16-bit instructions preserve the high bits"; the gfx950 model's
/// `exec::valu::rows::put16`). Their GFX12 forms write only the low half (the gfx1201
/// model's `put16`, True16), so the high half is cleared after them. The 16-bit
/// operations gfx9 added with `op_sel` (`v_mad_u16`, `v_fma_f16`, ...) keep it on both.
fn zeroes_high16(o: Op) -> bool {
    use Op::*;
    matches!(
        o,
        VCvtF16F32
            | VCvtF16U16
            | VCvtF16I16
            | VCvtU16F16
            | VCvtI16F16
            | VRcpF16
            | VRsqF16
            | VSqrtF16
            | VLogF16
            | VExpF16
            | VFloorF16
            | VCeilF16
            | VTruncF16
            | VRndneF16
            | VLdexpF16
            | VLshlrevB16
            | VLshrrevB16
            | VAshrrevI16
            | VAddU16
            | VSubU16
            | VSubrevU16
            | VMulLoU16
            | VAddF16
            | VSubF16
            | VSubrevF16
            | VMulF16
            | VMaxF16
            | VMinF16
            | VMaxU16
            | VMinU16
            | VMaxI16
            | VMinI16
            | VMadLegacyU16
            | VMadLegacyI16
    )
}

/// `v_and_b32 d, 0xffff, d` after a [`zeroes_high16`] operation, unless it wrote the
/// high half (VOP3 `op_sel[3]`, which keeps the low half on both families) or no VGPR.
fn zero_high16(g: &Inst, cx: &Ctx<'_>) -> Result<Vec<Inst>, TranslateError> {
    if g.format == Format::Vop3 && g.field(F::OpSel) & 8 != 0 {
        return Ok(Vec::new());
    }
    let Some(d @ Operand::Vgpr { count: 1, .. }) = g.operand(0) else {
        return Err(cx.unsupported(g, "unexpected destination of a 16-bit operation"));
    };
    let mut i = build(Op::VAndB32, Format::Vop2, cx)?;
    for (k, o) in [d, Operand::Literal(0xffff), d].into_iter().enumerate() {
        i.set_operand(k, o).map_err(|e| cx.enc(e))?;
    }
    Ok(vec![i])
}

/// GFX9 16-bit integer operations whose GFX12 operation has another name: `v_add_u16`
/// / `v_sub_u16` / `v_subrev_u16` -> `v_add_nc_u16` / `v_sub_nc_u16` (the last with the
/// sources swapped), `v_add_i16` / `v_sub_i16` (gfx9 VOP3, op_sel kept) ->
/// `v_add_nc_i16` / `v_sub_nc_i16`. LLVM selects the same IR operations (`add`/`sub` on
/// i16, the saturating forms with clamp) to the GFX9 operations and to the `_nc_` ones
/// on GFX10+ (VOP2Instructions.td / VOP3Instructions.td), so they compute the same 16
/// bits; the `_u16` ones' high half is [`zero_high16`]'s, the `_i16` ones keep it on
/// both (gfx9 added them with op_sel; the models' `put16_keep`). Likewise gfx9's VOP3
/// `v_add_i32` / `v_sub_i32` (signed, saturating with clamp; clamp is VOP3 bit 15 on
/// both, llvm-mc-22) -> GFX12 `v_add_nc_i32` / `v_sub_nc_i32` (LLVM selects
/// `saddsat`/`ssubsat` on i32 to each; one rule in the models, `exec::valu::half`).
fn renamed_nc(g: &Inst, cx: &Ctx<'_>) -> Result<Option<Inst>, TranslateError> {
    let (o, swap) = match g.op {
        Op::VAddU16 => (Op::VAddNcU16, false),
        Op::VSubU16 => (Op::VSubNcU16, false),
        Op::VSubrevU16 => (Op::VSubNcU16, true),
        Op::VAddI16 => (Op::VAddNcI16, false),
        Op::VSubI16 => (Op::VSubNcI16, false),
        Op::VAddI32 => (Op::VAddNcI32, false),
        Op::VSubI32 => (Op::VSubNcI32, false),
        _ => return Ok(None),
    };
    let sel = if g.format == Format::Vop3 {
        g.field(F::OpSel)
    } else {
        0
    };
    if (swap && sel != 0) || g.field(F::Omod) != 0 {
        return Err(cx.unsupported(g, "op_sel or omod on a renamed 16-bit operation"));
    }
    let (d, a, b) = (op(g, 0, cx)?, op(g, 1, cx)?, op(g, 2, cx)?);
    let (a, b) = if swap { (b, a) } else { (a, b) };
    let ops = [
        map_operand(g, d, cx)?,
        map_operand(g, a, cx)?,
        map_operand(g, b, cx)?,
    ];
    let mut h = vop3_host(o, &ops, cx)?;
    for (f, v) in [(F::Clamp, g.field(F::Clamp)), (F::OpSel, sel)] {
        if v != 0 {
            let fl = h.layout().field(f).ok_or_else(|| cx.no_rule(g))?;
            h.bits = layout::put(h.bits, fl, v);
        }
    }
    Ok(Some(redecode(&h, g, cx)?))
}

/// gfx9's `v_mad_legacy_u16` / `v_mad_legacy_i16` (the GFX8 encodings, no op_sel) ->
/// GFX12 `v_mad_u16` / `v_mad_i16`: LLVM selects the same `V_MAD_U16_e64` /
/// `V_MAD_I16_e64` to both (the gfx9 op_sel forms are separate `_gfx9` ones), and lists
/// them as zeroing the high half on GFX9 only (`GCNSubtarget::zeroesHigh16BitsOfDest`), so
/// [`zero_high16`] follows. clang-22 emits them for `ushort` multiply-adds (generated seeds
/// 5, 6 and 7 at -O1/-O3).
fn mad_legacy16(g: &Inst, cx: &Ctx<'_>) -> Result<Option<Inst>, TranslateError> {
    let o = match g.op {
        Op::VMadLegacyU16 => Op::VMadU16,
        Op::VMadLegacyI16 => Op::VMadI16,
        _ => return Ok(None),
    };
    if g.field(F::OpSel) != 0 || g.field(F::Omod) != 0 || g.field(F::Neg) != 0 {
        return Err(cx.unsupported(g, "op_sel, omod or neg on a legacy 16-bit mad"));
    }
    let mut ops = [Operand::Inline(128); 4];
    for (k, x) in ops.iter_mut().enumerate() {
        *x = map_operand(g, op(g, k, cx)?, cx)?;
    }
    let mut h = vop3_host(o, &ops, cx)?;
    if g.field(F::Clamp) != 0 {
        let fl = h.layout().field(F::Clamp).ok_or_else(|| cx.no_rule(g))?;
        h.bits = layout::put(h.bits, fl, 1);
    }
    Ok(Some(redecode(&h, g, cx)?))
}

/// [`lower_one`] before the 16-bit high-half fix-up.
fn lower_plain(g: &Inst, cx: &mut Ctx<'_>) -> Result<Vec<Inst>, TranslateError> {
    match g.ext() {
        None => {}
        Some(isa::Ext::Dpp16) if matches!(g.field(F::DppCtrl), 0x142 | 0x143) => {
            return row_bcast(g, cx)
        }
        Some(isa::Ext::Dpp16) => return dpp(g, cx).map(|h| vec![h]),
        Some(isa::Ext::Sdwa) => return sdwa(g, cx),
        Some(_) => return Err(cx.unsupported(g, "this VALU extension is not translated")),
    }
    if let Some(h) = renamed_nc(g, cx)? {
        return Ok(vec![h]);
    }
    if let Some(h) = mad_legacy16(g, cx)? {
        return Ok(vec![h]);
    }
    if let Some(o) = match g.op {
        Op::VPkAddF32 => Some(Op::VAddF32),
        Op::VPkMulF32 => Some(Op::VMulF32),
        Op::VPkFmaF32 => Some(Op::VFmaF32),
        _ => None,
    } {
        return packed_f32(g, o, cx);
    }
    if g.format == Format::Mai || g.format == Format::Vop3px2 {
        return super::matrix::lower(g, cx);
    }
    if g.op == Op::VPermlane32SwapB32 {
        return permlane32_swap(g, cx);
    }
    if g.op == Op::VPermlane16SwapB32 {
        return permlane16_swap(g, cx);
    }
    if matches!(g.op, Op::BufferWbl2 | Op::BufferInv) {
        return cache_op(g, cx);
    }
    if g.format == Format::Mubuf {
        return buffer(g, cx);
    }
    if g.op.compare().is_some_and(|c| c.writes_exec) {
        // GFX9 v_cmpx also writes its SGPR destination (VCC in VOPC), GFX12's only EXEC.
        return Err(cx.unsupported(g, "v_cmpx writes VCC on GFX9 but not on GFX12"));
    }
    match g.op {
        Op::SWaitcnt => return waitcnt(g, cx),
        Op::SBarrier => {
            let mut sig = build(Op::SBarrierSignal, Format::Sop1, cx)?;
            sig.set_operand(0, Operand::Inline(193))
                .map_err(|e| cx.enc(e))?;
            let mut wait = build(Op::SBarrierWait, Format::Sopp, cx)?;
            wait.set_operand(0, Operand::Imm(0xffff))
                .map_err(|e| cx.enc(e))?;
            return Ok(vec![sig, wait]);
        }
        Op::VLshlAddU64 => return lshl_add_u64(g, cx),
        // AGPR moves are copies between the (folded) registers.
        Op::VAccvgprWriteB32 | Op::VAccvgprReadB32 | Op::VAccvgprMovB32 => {
            let (d, s) = (op(g, 0, cx)?, op(g, 1, cx)?);
            let mut i = build(Op::VMovB32, Format::Vop1, cx)?;
            i.set_operand(0, map_operand(g, d, cx)?)
                .map_err(|e| cx.enc(e))?;
            i.set_operand(1, map_operand(g, s, cx)?)
                .map_err(|e| cx.enc(e))?;
            return Ok(vec![i]);
        }
        Op::VFmacF64 => return fmac_f64(g, cx),
        _ if cmpk(g.op).is_some() => return cmpk_rule(g, cx),
        Op::VMovB64 => {
            let (d, s) = (op(g, 0, cx)?, op(g, 1, cx)?);
            // A 32-bit literal as a 64-bit integer operand is zero-extended: llc-22
            // -mcpu=gfx950 emits `v_mov_b64_e32 v[2:3], 0xb3388de0` for the i64
            // 0x00000000b3388de0 and two v_mov_b32 (high word -1) for 0xffffffffb3388de0
            // (the gfx950 model agrees: `Wave::sread64`). clang-22 -O0 emits such literals
            // (generated seed 3 kernel 27).
            if let Operand::Literal(l) = s {
                return two_movs(g, d, [Operand::Literal(l), Operand::Inline(128)], cx);
            }
            // A float inline constant as a 64-bit operand is the f64 of that value (the
            // gfx950 model's `Wave::sread64`); 0.5, 1, 2, 4 and their negations have a
            // zero low word.
            if let Operand::Inline(c @ 240..=247) = s {
                let f = [0.5f64, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0][usize::from(c - 240)];
                let hi = (f.to_bits() >> 32) as u32;
                return two_movs(g, d, [Operand::Inline(128), Operand::Literal(hi)], cx);
            }
            return two_movs(g, d, [half(g, s, 0, cx)?, half(g, s, 1, cx)?], cx);
        }
        Op::VPkMovB32 => {
            if g.field(F::Neg) != 0 || g.field(F::NegHi) != 0 || g.field(F::Clamp) != 0 {
                return Err(cx.unsupported(g, "neg/clamp are not handled"));
            }
            let sel = g.field(F::OpSel);
            let (d, a, b) = (op(g, 0, cx)?, op(g, 1, cx)?, op(g, 2, cx)?);
            let lo = half(g, a, sel & 1, cx)?;
            let hi = half(g, b, sel >> 1 & 1, cx)?;
            return two_movs(g, d, [lo, hi], cx);
        }
        _ => {}
    }
    reencode(g, cx).map(|h| vec![h])
}

/// Builds an empty gfx1201 instruction.
pub(super) fn build(o: Op, f: Format, cx: &Ctx<'_>) -> Result<Inst, TranslateError> {
    Inst::build(HOST, o, f).map_err(|e| cx.enc(e))
}

fn op(g: &Inst, i: usize, cx: &Ctx<'_>) -> Result<Operand, TranslateError> {
    g.operand(i)
        .ok_or_else(|| cx.unsupported(g, "unexpected operands"))
}

/// The guest operand as a gfx1201 operand.
pub(super) fn map_operand(g: &Inst, o: Operand, cx: &Ctx<'_>) -> Result<Operand, TranslateError> {
    Ok(match o {
        Operand::Sgpr { first, count } => {
            let f = match first {
                // s0..s101, VCC_LO/HI, EXEC_LO/HI: the same codes on GFX12.
                0..=101 | 106 | 107 | 126 | 127 => first,
                124 if count == 1 => 125,
                102..=105 => {
                    return Err(cx.unsupported(
                        g,
                        "FLAT_SCRATCH/XNACK_MASK have no gfx1201 register equivalent",
                    ))
                }
                108..=123 => return Err(cx.unsupported(g, "TTMP registers are not translated")),
                _ => return Err(cx.unsupported(g, "unexpected scalar register code")),
            };
            Operand::Sgpr { first: f, count }
        }
        // vccz, execz, scc and the aperture registers keep their codes on GFX12.
        Operand::Special(235..=238 | 251..=253) => o,
        Operand::Special(_) => {
            return Err(cx.unsupported(g, "special source operand without a gfx1201 code"))
        }
        Operand::Agpr { first, count } => match cx.agpr_base {
            Some(b) => Operand::Vgpr {
                first: b + first,
                count,
            },
            None => return Err(cx.unsupported(g, "names an AGPR the kernel does not have")),
        },
        _ => o,
    })
}

/// Whether `h` (host) reads back `want`.
fn same(want: Operand, h: Option<Operand>) -> bool {
    match (want, h) {
        (a, Some(b)) if a == b => true,
        (Operand::Fixed("vcc"), Some(Operand::Sgpr { first: 106, .. })) => true,
        (Operand::Sgpr { first: 106, .. }, Some(Operand::Fixed("vcc"))) => true,
        _ => false,
    }
}

/// Candidate host operations: the guest's own, then every registered alias of its
/// canonical operation.
fn candidates(o: Op) -> Vec<Op> {
    let c = o.canonical();
    let mut v = vec![o, c];
    v.extend(
        Op::aliases()
            .iter()
            .filter(|(_, k)| *k == c)
            .map(|(a, _)| *a),
    );
    v
}

/// Generic re-encoding (see the module doc).
fn reencode(g: &Inst, cx: &Ctx<'_>) -> Result<Inst, TranslateError> {
    reencode_with(g, cx, None)
}

/// [`reencode`], a MUBUF instruction's descriptor replaced by the quad `rsrc_quad`.
fn reencode_with(g: &Inst, cx: &Ctx<'_>, rsrc_quad: Option<u16>) -> Result<Inst, TranslateError> {
    let formats: &[Format] = match g.format {
        Format::Vop1 => &[Format::Vop1, Format::Vop3],
        Format::Vop2 => &[Format::Vop2, Format::Vop3b, Format::Vop3],
        Format::Vopc => &[Format::Vopc, Format::Vop3],
        Format::Vop3 => &[Format::Vop3, Format::Vop3b],
        Format::Vop3b => &[Format::Vop3b, Format::Vop3],
        Format::Sop1 | Format::Sop2 | Format::Sopc | Format::Sopk | Format::Sopp => {
            std::slice::from_ref(&g.format)
        }
        Format::Smem
        | Format::Ds
        | Format::Global
        | Format::Flat
        | Format::Scratch
        | Format::Vop3p
        | Format::Mubuf => std::slice::from_ref(&g.format),
        _ => return Err(cx.unsupported(g, "this encoding format is not translated to gfx1201 yet")),
    };
    let mut h = None;
    'f: for &f in formats {
        for o in candidates(g.op) {
            if let Ok(i) = Inst::build(HOST, o, f) {
                h = Some(i);
                break 'f;
            }
        }
    }
    let mut h = h.ok_or_else(|| cx.no_rule(g))?;
    let put = |h: &mut Inst, f: F, v: u32| -> Result<(), TranslateError> {
        let fl = h
            .layout()
            .field(f)
            .ok_or_else(|| cx.unsupported(g, "a modifier has no gfx1201 field"))?;
        if fl.bits < 32 && v >= 1 << fl.bits {
            return Err(cx.unsupported(g, "a modifier or offset does not fit the gfx1201 field"));
        }
        h.bits = layout::put(h.bits, fl, v);
        Ok(())
    };
    // Fields that select the operand syntax, then a decode so `h` has the right variant.
    match g.format {
        Format::Global | Format::Flat | Format::Scratch => {
            if g.format == Format::Scratch {
                // gfx940+ SCRATCH: bit 13 (the LDS bit of the other segments) is SVE,
                // "the VGPR address is used" (LLVM `FLAT_Real_gfx940`); GFX12 has SVE at
                // bit 49. saddr "off" is 0x7f on GFX9 and NULL on GFX12.
                put(&mut h, F::Sve, g.field(F::Lds))?;
            } else if g.field(F::Lds) != 0 {
                return Err(cx.unsupported(g, "loads to LDS are not translated to gfx1201"));
            }
            // FLAT has no saddr; GLOBAL's "off" is 0x7f on GFX9.
            if g.format == Format::Flat || g.field(F::Saddr) == 0x7f {
                put(&mut h, F::Saddr, u32::from(NULL))?;
            }
            // GFX9 global offsets are 13-bit signed (gfx90a+), GFX12's 24-bit signed.
            let off = g.field(F::Offset);
            let sext = ((off << 19) as i32 >> 19) as u32 & 0xff_ffff;
            put(&mut h, F::Offset, sext)?;
            cache_policy(g, &mut h, &put)?;
        }
        Format::Mubuf => {
            // MUBUF -> VBUFFER (see [`buffer`]): offset 12 -> 24 bits unsigned, the
            // same offen/idxen, the cache policy as for GLOBAL.
            put(&mut h, F::Offset, g.field(F::Offset))?;
            put(&mut h, F::Offen, g.field(F::Offen))?;
            put(&mut h, F::Idxen, g.field(F::Idxen))?;
            cache_policy(g, &mut h, &put)?;
        }
        Format::Smem => {
            if g.field(F::Glc) != 0 || g.field(F::Nv) != 0 {
                return Err(cx.unsupported(g, "SMEM glc/nv are not translated"));
            }
            let (imm, soe) = (g.field(F::Imm), g.field(F::Soe));
            match (imm, soe) {
                (1, 0) => {
                    let off = g.field(F::Offset);
                    if off >= 1 << 20 {
                        return Err(cx.unsupported(g, "negative SMEM offsets are not translated"));
                    }
                    put(&mut h, F::Offset, off)?;
                    put(&mut h, F::Soffset, u32::from(NULL))?;
                }
                (1, 1) => {
                    // SGPR plus immediate (`s_load_dword s5, s[6:7], s4 offset:0x0`, clang
                    // for kernel-argument and indexed loads): GFX12 SMEM always adds
                    // soffset and the 24-bit signed offset. Any SGPR selects the operand
                    // form; the operand loop below writes the mapped register.
                    let off = g.field(F::Offset);
                    if off >= 1 << 20 {
                        return Err(cx.unsupported(g, "negative SMEM offsets are not translated"));
                    }
                    put(&mut h, F::Offset, off)?;
                    put(&mut h, F::Soffset, 0)?;
                }
                (0, 0) => {
                    // SGPR offset alone (`s_load_dword s0, s[2:3], s4`: GFX9 IMM=0 keeps
                    // the SGPR in OFFSET): GFX12's soffset with offset 0 (llvm-mc-22
                    // -mcpu=gfx1201 encodes `s_load_b32 s0, s[2:3], s4` with offset 0
                    // and prints `offset:0x0`); the operand loop writes the SGPR.
                    put(&mut h, F::Offset, 0)?;
                    put(&mut h, F::Soffset, 0)?;
                }
                _ => return Err(cx.unsupported(g, "SMEM SOE without IMM is not translated")),
            }
        }
        Format::Ds => {
            if g.field(F::Gds) != 0 {
                return Err(cx.unsupported(g, "GDS does not exist on gfx1201"));
            }
            put(&mut h, F::Offset0, g.field(F::Offset0))?;
            put(&mut h, F::Offset1, g.field(F::Offset1))?;
        }
        _ => {}
    }
    h = redecode(&h, g, cx)?;
    // Operands.
    let n = g.num_operands();
    if n != h.num_operands() {
        return Err(cx.no_rule(g));
    }
    let mut want = Vec::with_capacity(n);
    for i in 0..n {
        let go = op(g, i, cx)?;
        let m = match (g.format, go) {
            // The descriptor: its GFX12 copy; soffset 0: NULL.
            (Format::Mubuf, Operand::Sgpr { count: 4, .. }) => match rsrc_quad {
                Some(q) => Operand::Sgpr { first: q, count: 4 },
                None => return Err(cx.no_rule(g)),
            },
            (Format::Mubuf, Operand::Inline(128)) => Operand::Sgpr {
                first: NULL,
                count: 1,
            },
            (Format::Mubuf, Operand::Inline(_)) => {
                return Err(cx.unsupported(g, "a constant soffset other than 0 has no GFX12 form"))
            }
            _ => map_operand(g, go, cx)?,
        };
        want.push(m);
        if go == Operand::Fixed("off") {
            continue;
        }
        // SMEM: the offset is an operand; it was placed above.
        if g.format == Format::Smem && matches!(go, Operand::Imm(_)) {
            continue;
        }
        let m = match m {
            Operand::Fixed("vcc") if !matches!(h.operand(i), Some(Operand::Fixed(_))) => {
                Operand::Sgpr {
                    first: 106,
                    count: 2,
                }
            }
            Operand::Fixed(_) => continue,
            m => m,
        };
        h.set_operand(i, m).map_err(|e| cx.enc(e))?;
    }
    // Modifiers with the same meaning and name on both sides.
    for f in [F::Neg, F::Abs, F::Clamp, F::Omod, F::OpSel, F::NegHi] {
        let v = g.field(f);
        if v != 0 {
            put(&mut h, f, v)?;
        }
    }
    // A returning FLAT/GLOBAL/SCRATCH atomic (sc0) writes the old value to VDST, which the
    // operand list leaves out (the learned syntax is the non-returning one): copy it.
    // Without this the translation wrote v0 (generated seed 4 kernel 39 at -O0).
    if matches!(g.format, Format::Global | Format::Flat | Format::Scratch)
        && is_atomic(g)
        && g.field(F::Glc) != 0
    {
        let first = g.field(F::Vdst) as u16;
        let d = if g.field(F::Acc) != 0 {
            Operand::Agpr { first, count: 1 }
        } else {
            Operand::Vgpr { first, count: 1 }
        };
        match map_operand(g, d, cx)? {
            Operand::Vgpr { first, .. } => put(&mut h, F::Vdst, u32::from(first))?,
            _ => return Err(cx.no_rule(g)),
        }
    }
    if g.format == Format::Vop3p {
        put(&mut h, F::OpSelHi, g.field(F::OpSelHi))?;
        put(&mut h, F::OpSelHi2, g.field(F::OpSelHi2))?;
    }
    let h = redecode(&h, g, cx)?;
    for (i, w) in want.iter().enumerate() {
        if !same(*w, h.operand(i)) {
            return Err(cx.no_rule(g));
        }
    }
    Ok(h)
}

/// Cache policy of a gfx940+ memory instruction on GFX12 (LLVM AMDGPUUsage, memory
/// model GFX942): on an atomic, sc0 means "return the old value" and sc1 system (else
/// agent) scope; on other accesses sc0/sc1 give the coherence scope (none, sc0
/// workgroup, sc1 agent, both system); nt is a non-temporal hint. GFX12: th bit 0 on an
/// atomic is TH_ATOMIC_RETURN, `scope` is CU 0, SE 1, DEV 2, SYS 3 (llvm-mc-22
/// encodings). Every scope maps to the same or a wider one, which is always safe; the nt
/// hint is dropped (a hint only).
fn cache_policy(
    g: &Inst,
    h: &mut Inst,
    put: &dyn Fn(&mut Inst, F, u32) -> Result<(), TranslateError>,
) -> Result<(), TranslateError> {
    let (sc0, sc1) = (g.field(F::Glc), g.field(F::Scc));
    if is_atomic(g) {
        put(h, F::Th, sc0)?;
        put(h, F::Scope, if sc1 != 0 { 3 } else { 2 })
    } else {
        put(h, F::Scope, sc0 | sc1 << 1)
    }
}

/// Whether `g` is a memory atomic (its mnemonic says so).
fn is_atomic(g: &Inst) -> bool {
    let m = g.mnemonic();
    m.contains("_atomic_")
}

/// Encodes `h` and decodes it on gfx1201 (wave64) again.
fn redecode(h: &Inst, g: &Inst, cx: &Ctx<'_>) -> Result<Inst, TranslateError> {
    let mut buf = [0u8; 20];
    let n = isa::encode(h, &mut buf).map_err(|e| cx.enc(e))?;
    let d = isa::decode(HOST, &buf[..n], false).map_err(|_| cx.no_rule(g))?;
    if d.op != h.op {
        return Err(cx.no_rule(g));
    }
    Ok(d)
}

/// `s_waitcnt` -> GFX12 waits (see the module doc).
fn waitcnt(g: &Inst, cx: &Ctx<'_>) -> Result<Vec<Inst>, TranslateError> {
    let s = g.field(F::Simm16);
    let vm = (s & 0xf) | (s >> 14 & 3) << 4;
    let lgkm = s >> 8 & 0xf;
    let mut out = Vec::new();
    let mut wait = |o: Op, v: u32| -> Result<(), TranslateError> {
        let mut i = build(o, Format::Sopp, cx)?;
        i.set_operand(0, Operand::Imm(v)).map_err(|e| cx.enc(e))?;
        out.push(i);
        Ok(())
    };
    // A counter nothing can be outstanding on needs no wait (`cx.pending`).
    use super::known::{DS, KM, LOAD, STORE};
    let need = |waited: bool, bit: u8| waited && cx.pending & bit != 0;
    let (load, store) = (need(vm < 63, LOAD), need(vm < 63, STORE));
    let (mut ds, km) = (need(lgkm < 15, DS), need(lgkm < 15, KM));
    // dscnt rides along with loadcnt or storecnt in one `s_wait_loadcnt_dscnt` /
    // `s_wait_storecnt_dscnt` (counts in bits 13:8 and 5:0, both 0 here: llvm-mc-22
    // -mcpu=gfx1201; the gfx1201 model's `soc::timing::wait_thresholds`).
    if load {
        wait(
            if ds {
                Op::SWaitLoadcntDscnt
            } else {
                Op::SWaitLoadcnt
            },
            0,
        )?;
        ds = false;
    }
    if store {
        wait(
            if ds {
                Op::SWaitStorecntDscnt
            } else {
                Op::SWaitStorecnt
            },
            0,
        )?;
        ds = false;
    }
    if ds {
        wait(Op::SWaitDscnt, 0)?;
    }
    if km {
        wait(Op::SWaitKmcnt, 0)?;
    }
    // expcnt: on gfx1201 only `export`, `ds_param_load` and `ds_direct_load` count on it
    // (the gfx1200 tables' wait counters). No translation emits them: GFX9 exports are
    // refused (their format is not translated) and the LDS parameter loads have no GFX9
    // source. So a GFX9 `expcnt` wait, which compute code emits at every function entry,
    // waits for nothing on the host and is left out.
    Ok(out)
}

/// The 32-bit half `k` of a 64-bit source operand.
fn half(g: &Inst, o: Operand, k: u32, cx: &Ctx<'_>) -> Result<Operand, TranslateError> {
    let k16 = k as u16;
    Ok(match map_operand(g, o, cx)? {
        Operand::Vgpr { first, .. } => Operand::Vgpr {
            first: first + k16,
            count: 1,
        },
        Operand::Sgpr { first, count: 2 } => Operand::Sgpr {
            first: first + k16,
            count: 1,
        },
        // Integer inline constants: 64-bit value c sign-extended (128..=192 are 0..64,
        // 193..=208 are -1..-16).
        Operand::Inline(c) if (128..=208).contains(&c) => {
            if k == 0 {
                Operand::Inline(c)
            } else if c <= 192 {
                Operand::Inline(128)
            } else {
                Operand::Inline(193)
            }
        }
        _ => return Err(cx.unsupported(g, "64-bit literal or float constant source")),
    })
}

fn v1(r: u16) -> Operand {
    Operand::Vgpr { first: r, count: 1 }
}

/// `d.lo = src[0]; d.hi = src[1]` as two `v_mov_b32`, reading an overlapping source
/// before it is overwritten.
fn two_movs(
    g: &Inst,
    d: Operand,
    src: [Operand; 2],
    cx: &Ctx<'_>,
) -> Result<Vec<Inst>, TranslateError> {
    let Operand::Vgpr { first: d0, .. } = d else {
        return Err(cx.unsupported(g, "unexpected destination"));
    };
    let mov = |dst: u16, s: Operand| -> Result<Inst, TranslateError> {
        let mut i = build(Op::VMovB32, Format::Vop1, cx)?;
        i.set_operand(0, v1(dst)).map_err(|e| cx.enc(e))?;
        i.set_operand(1, s).map_err(|e| cx.enc(e))?;
        Ok(i)
    };
    let lo = mov(d0, src[0])?;
    let hi = mov(d0 + 1, src[1])?;
    // Writing d.lo first would clobber src[1] when src[1] is d.lo.
    if src[1] == v1(d0) {
        if src[0] == v1(d0 + 1) {
            // The halves trade places: v_swap_b32 (GFX12 VOP1, llvm-mc-22).
            let mut i = build(Op::VSwapB32, Format::Vop1, cx)?;
            i.set_operand(0, v1(d0)).map_err(|e| cx.enc(e))?;
            i.set_operand(1, v1(d0 + 1)).map_err(|e| cx.enc(e))?;
            return Ok(vec![i]);
        }
        Ok(vec![hi, lo])
    } else {
        Ok(vec![lo, hi])
    }
}

/// `v_lshl_add_u64` (see the module doc).
fn lshl_add_u64(g: &Inst, cx: &mut Ctx<'_>) -> Result<Vec<Inst>, TranslateError> {
    if g.field(F::Neg) != 0 || g.field(F::Abs) != 0 || g.field(F::Clamp) != 0 {
        return Err(cx.unsupported(g, "modifiers are not handled"));
    }
    let (d, a, n, c) = (op(g, 0, cx)?, op(g, 1, cx)?, op(g, 2, cx)?, op(g, 3, cx)?);
    let Operand::Vgpr { first: d0, .. } = d else {
        return Err(cx.unsupported(g, "unexpected destination"));
    };
    let (a, n) = (map_operand(g, a, cx)?, map_operand(g, n, cx)?);
    if let Some(h) = lshl_add_mad(g, d, [a, n, map_operand(g, c, cx)?], cx)? {
        return Ok(vec![h]);
    }
    let (c0, c1) = (half(g, c, 0, cx)?, half(g, c, 1, cx)?);
    let t = cx.scratch_first;
    cx.scratch_used = cx.scratch_used.max(2);
    let carry = Operand::Sgpr {
        first: if cx.vcc_dead { 106 } else { CARRY },
        count: 2,
    };
    // A shift by 0 (clang's 64-bit address add) adds `a` itself: no shifted copy, unless
    // both sources are SGPRs (the carry-in add would read three SGPRs, over GFX12's
    // constant-bus limit of two) or `a` is a literal.
    let sgpr = |o: Operand| matches!(o, Operand::Sgpr { .. });
    let unshifted = match (n, half(g, a, 0, cx), half(g, a, 1, cx)) {
        (Operand::Inline(128), Ok(a0), Ok(a1)) if !(sgpr(a) && sgpr(c0)) => Some((a0, a1)),
        _ => None,
    };
    let mut out = Vec::with_capacity(5);
    let (a0, a1) = match unshifted {
        Some(halves) => halves,
        None => {
            let mut shl = build(Op::VLshlrevB64, Format::Vop3, cx)?;
            for (i, o) in [Operand::Vgpr { first: t, count: 2 }, n, a]
                .into_iter()
                .enumerate()
            {
                shl.set_operand(i, o).map_err(|e| cx.enc(e))?;
            }
            out.push(shl);
            (v1(t), v1(t + 1))
        }
    };
    // When d.lo is the high half of a source, the high half must read it before the
    // low half is written: add into the scratch pair and copy.
    let direct = c1 != v1(d0) && a1 != v1(d0);
    let (r0, r1) = if direct { (d0, d0 + 1) } else { (t, t + 1) };
    let mut lo = build(Op::VAddCoU32, Format::Vop3b, cx)?;
    for (i, o) in [v1(r0), carry, a0, c0].into_iter().enumerate() {
        lo.set_operand(i, o).map_err(|e| cx.enc(e))?;
    }
    let hi = match carry_vop2(r1, a1, c1, cx)? {
        Some(h) => h,
        None => {
            let mut hi = build(Op::VAddCoCiU32, Format::Vop3b, cx)?;
            for (i, o) in [v1(r1), carry, a1, c1, carry].into_iter().enumerate() {
                hi.set_operand(i, o).map_err(|e| cx.enc(e))?;
            }
            hi
        }
    };
    out.push(lo);
    out.push(hi);
    if !direct {
        out.extend(two_movs(g, d, [v1(t), v1(t + 1)], cx)?);
    }
    Ok(out)
}

/// `v_add_co_ci_u32_e32 d, vcc, x, y, vcc` (VOP2, VCC implied, 4 bytes; llvm-mc-22
/// -mcpu=gfx1201) when the carry may go through VCC ([`Ctx::vcc_dead`]) and a source is
/// a VGPR (VOP2's src1; the add is commutative), else `None`.
fn carry_vop2(
    d: u16,
    x: Operand,
    y: Operand,
    cx: &Ctx<'_>,
) -> Result<Option<Inst>, TranslateError> {
    let vgpr = |o: Operand| matches!(o, Operand::Vgpr { .. });
    let (x, y) = match (vgpr(x), vgpr(y)) {
        _ if !cx.vcc_dead => return Ok(None),
        (_, true) => (x, y),
        (true, false) => (y, x),
        _ => return Ok(None),
    };
    let mut h = build(Op::VAddCoCiU32, Format::Vop2, cx)?;
    let mut srcs = [v1(d), x, y].into_iter();
    for i in 0..h.num_operands() {
        if matches!(h.operand(i), Some(Operand::Fixed(_))) {
            continue;
        }
        let Some(o) = srcs.next() else {
            return Ok(None);
        };
        h.set_operand(i, o).map_err(|e| cx.enc(e))?;
    }
    Ok(srcs.next().is_none().then_some(h))
}

/// `v_lshl_add_u64 d, a, n, c` as one `v_mad_co_u64_u32` / `v_mad_co_i64_i32 d, null,
/// x, 1 << n, y` when a 64-bit source is a 32-bit value extended ([`Ctx::extended`]):
/// `zext(a.lo) << n == zext(a.lo) * 2^n` and, for `2^n` positive as an i32 (n <= 30),
/// `sext(a.lo) << n == sext(a.lo) * sext(2^n)` modulo 2^64, plus the 64-bit addend. With
/// no shift either addend may be the extended one. The addend must be a register pair
/// or an integer inline constant (the same 64-bit value on both families).
fn lshl_add_mad(
    g: &Inst,
    d: Operand,
    [a, n, c]: [Operand; 3],
    cx: &Ctx<'_>,
) -> Result<Option<Inst>, TranslateError> {
    let Operand::Inline(code @ 128..=159) = n else {
        return Ok(None);
    };
    let shift = u32::from(code - 128);
    let lo = |o: Operand| match o {
        Operand::Vgpr { first, count: 2 } => Some(v1(first)),
        _ => None,
    };
    let addend = |o: Operand| {
        matches!(
            o,
            Operand::Vgpr { count: 2, .. }
                | Operand::Sgpr { count: 2, .. }
                | Operand::Inline(128..=208)
        )
    };
    let pick = match (cx.extended, lo(a), lo(c)) {
        ([Some(signed), _], Some(x), _) if addend(c) => Some((signed, x, c)),
        ([_, Some(signed)], _, Some(x)) if shift == 0 && addend(a) => Some((signed, x, a)),
        _ => None,
    };
    let Some((signed, x, y)) = pick else {
        return Ok(None);
    };
    if signed && shift > 30 {
        return Ok(None);
    }
    let o = if signed {
        Op::VMadCoI64I32
    } else {
        Op::VMadCoU64U32
    };
    let mut h = build(o, Format::Vop3b, cx)?;
    let null = Operand::Sgpr {
        first: NULL,
        count: 2,
    };
    for (k, v) in [d, null, x, constant(1 << shift), y]
        .into_iter()
        .enumerate()
    {
        h.set_operand(k, v).map_err(|e| cx.enc(e))?;
    }
    Ok(Some(redecode(&h, g, cx)?))
}

/// The GFX12 `s_cmp_*` of a GFX9 `s_cmpk_*` (GFX12 has no SOPK compares: llvm-mc-22
/// refuses them) and whether the 16-bit immediate is sign-extended (`_i32`).
fn cmpk(o: Op) -> Option<(Op, bool)> {
    Some(match o {
        Op::SCmpkEqI32 => (Op::SCmpEqI32, true),
        Op::SCmpkLgI32 => (Op::SCmpLgI32, true),
        Op::SCmpkGtI32 => (Op::SCmpGtI32, true),
        Op::SCmpkGeI32 => (Op::SCmpGeI32, true),
        Op::SCmpkLtI32 => (Op::SCmpLtI32, true),
        Op::SCmpkLeI32 => (Op::SCmpLeI32, true),
        Op::SCmpkEqU32 => (Op::SCmpEqU32, false),
        Op::SCmpkLgU32 => (Op::SCmpLgU32, false),
        Op::SCmpkGtU32 => (Op::SCmpGtU32, false),
        Op::SCmpkGeU32 => (Op::SCmpGeU32, false),
        Op::SCmpkLtU32 => (Op::SCmpLtU32, false),
        Op::SCmpkLeU32 => (Op::SCmpLeU32, false),
        _ => return None,
    })
}

/// `s_cmpk_<c> s, imm16` -> `s_cmp_<c> s, imm` (GFX9 ISA: the `_i32` forms
/// sign-extend the immediate, the `_u32` forms zero-extend it).
fn cmpk_rule(g: &Inst, cx: &Ctx<'_>) -> Result<Vec<Inst>, TranslateError> {
    let Some((o, signed)) = cmpk(g.op) else {
        return Err(cx.no_rule(g));
    };
    let imm = g.field(F::Simm16);
    let v = if signed {
        i32::from(imm as u16 as i16) as u32
    } else {
        imm
    };
    let s = map_operand(g, op(g, 0, cx)?, cx)?;
    let mut i = build(o, Format::Sopc, cx)?;
    i.set_operand(0, s).map_err(|e| cx.enc(e))?;
    i.set_operand(1, constant(v)).map_err(|e| cx.enc(e))?;
    Ok(vec![i])
}

/// A 32-bit integer as an inline constant when it is one (0..=64 are codes 128..=192,
/// -1..=-16 are 193..=208), else a literal.
fn constant(v: u32) -> Operand {
    match v as i32 {
        0..=64 => Operand::Inline(128 + v as u16),
        -16..=-1 => Operand::Inline((192 - v as i32) as u16),
        _ => Operand::Literal(v),
    }
}

/// `v_fmac_f64 d, a, b` (d = a * b + d; gfx90a+, not on gfx1201: llvm-mc-22) ->
/// `v_fma_f64 d, a, b, d`, with the sources' neg/abs, clamp and omod kept.
fn fmac_f64(g: &Inst, cx: &Ctx<'_>) -> Result<Vec<Inst>, TranslateError> {
    let (d, a, b) = (op(g, 0, cx)?, op(g, 1, cx)?, op(g, 2, cx)?);
    let mut i = build(Op::VFmaF64, Format::Vop3, cx)?;
    for (k, o) in [d, a, b, d].into_iter().enumerate() {
        let o = map_operand(g, o, cx)?;
        i.set_operand(k, o).map_err(|e| cx.enc(e))?;
    }
    for f in [F::Neg, F::Abs, F::Clamp, F::Omod] {
        let v = g.field(f);
        if v != 0 {
            let fl = i
                .layout()
                .field(f)
                .ok_or_else(|| cx.unsupported(g, "a modifier has no gfx1201 field"))?;
            i.bits = layout::put(i.bits, fl, v & 3);
        }
    }
    Ok(vec![i])
}

/// A GFX9 DPP instruction: the plain operation re-encoded for GFX12 in the same 32-bit
/// format, followed by the guest's DPP dword. The DPP16 dword has the same layout on
/// GFX9 and GFX12 (src0 7:0, dpp_ctrl 16:8, bound_ctrl 19, src neg/abs 23:20,
/// bank_mask 27:24, row_mask 31:28; GFX12 adds fetch-inactive at bit 18, reserved 0
/// on GFX9; ISA-ENCODINGS.md, LLVM `DPP` encodings) and the controls both have mean the
/// same (rows of 16 lanes); GFX9's wave shifts/rotates and row broadcasts
/// (0x130..=0x13f, 0x142, 0x143) do not exist on GFX12 and are refused.
fn dpp(g: &Inst, cx: &mut Ctx<'_>) -> Result<Inst, TranslateError> {
    let ctrl = g.field(F::DppCtrl);
    if !matches!(ctrl, 0x000..=0x0ff | 0x101..=0x10f | 0x111..=0x11f | 0x121..=0x12f | 0x140 | 0x141)
    {
        return Err(cx.unsupported(
            g,
            "DPP wave shifts and row broadcasts do not exist on GFX12",
        ));
    }
    let ext = (g.bits >> 32) as u32 & !(1 << 18);
    // The plain guest instruction: src0 is the DPP dword's VGPR.
    let w0 = (g.bits as u32 & !0x1ff) | (256 + (ext & 0xff));
    let plain = isa::decode(g.target, &w0.to_le_bytes(), false).map_err(|_| cx.no_rule(g))?;
    let h = reencode(&plain, cx)?;
    if h.len != 4 || !matches!(h.format, Format::Vop1 | Format::Vop2 | Format::Vopc) {
        return Err(cx.unsupported(g, "the GFX12 form of this DPP operation is VOP3"));
    }
    let hw = (h.bits as u32 & !0x1ff) | 250;
    let mut b = [0u8; 8];
    b[..4].copy_from_slice(&hw.to_le_bytes());
    b[4..].copy_from_slice(&ext.to_le_bytes());
    let d = isa::decode(HOST, &b, false).map_err(|_| cx.no_rule(g))?;
    let same = [
        F::DppCtrl,
        F::RowMask,
        F::BankMask,
        F::BoundCtrl,
        F::Src0Neg,
        F::Src0Abs,
        F::Src1Neg,
        F::Src1Abs,
    ]
    .iter()
    .all(|&f| d.field(f) == g.field(f));
    if d.op != h.op || !same || (0..g.num_operands()).any(|i| !same_operand(g, &d, i, cx)) {
        return Err(cx.no_rule(g));
    }
    Ok(d)
}

fn same_operand(g: &Inst, h: &Inst, i: usize, cx: &Ctx<'_>) -> bool {
    match g.operand(i).map(|o| map_operand(g, o, cx)) {
        Some(Ok(o)) => same(o, h.operand(i)),
        _ => false,
    }
}

/// `(offset, width)` of an SDWA select (BYTE_0..3 = 0..3, WORD_0/1 = 4/5); `None` for
/// DWORD (6).
fn sel_bits(sel: u32) -> Option<(u32, u32)> {
    match sel {
        0..=3 => Some((8 * sel, 8)),
        4 | 5 => Some((16 * (sel - 4), 16)),
        _ => None,
    }
}

/// A GFX9 SDWA instruction (GFX12 has no SDWA). SDWA semantics (Vega ISA guide, "SDWA"):
/// each source's selected byte/word is zero- or (sext) sign-extended to 32 bits, the
/// operation runs on those, and the result's low bits go to the destination's selected
/// field, the other bits zero (UNUSED_PAD) or kept (UNUSED_PRESERVE). Lowered to
/// `v_bfe_{u,i}32` extractions into scratch VGPRs, the operation as VOP3 (clamp/omod
/// kept), and for a partial destination a shift (PAD) or `v_bfi_b32` merge (PRESERVE).
fn sdwa(g: &Inst, cx: &mut Ctx<'_>) -> Result<Vec<Inst>, TranslateError> {
    if g.field(F::Src0Neg) != 0
        || g.field(F::Src0Abs) != 0
        || g.field(F::Src1Neg) != 0
        || g.field(F::Src1Abs) != 0
    {
        return Err(cx.unsupported(g, "SDWA neg/abs are not translated"));
    }
    if let Some(seq) = sdwa_op_sel(g, cx)? {
        return Ok(seq);
    }
    let vopc = g.format == Format::Vopc;
    let n = g.num_operands();
    let mut ops: Vec<Operand> = (0..n).map(|i| op(g, i, cx)).collect::<Result<_, _>>()?;
    // The sources: src0 from the SDWA dword, src1 from vsrc1 (VGPR or SGPR code).
    let code = sdwa_source;
    let s0 = code(g.field(F::ExtSrc0), g.field(F::SdwaS0) != 0);
    let i0 = (1..n)
        .find(|&i| ops[i] == s0)
        .ok_or_else(|| cx.unsupported(g, "unexpected operands"))?;
    let mut srcs = vec![(i0, g.field(F::SdwaSrc0Sel), g.field(F::Src0Sext))];
    if g.format != Format::Vop1 {
        let s1 = code(g.field(F::Vsrc1), g.field(F::SdwaS1) != 0);
        let i1 = (i0 + 1..n)
            .find(|&i| ops[i] == s1)
            .ok_or_else(|| cx.unsupported(g, "unexpected operands"))?;
        srcs.push((i1, g.field(F::SdwaSrc1Sel), g.field(F::Src1Sext)));
    }
    let f = cx.scratch_first;
    let mut out = Vec::new();
    for (k, &(i, sel, sext)) in srcs.iter().enumerate() {
        let Some((off, width)) = sel_bits(sel) else {
            continue;
        };
        let t = f + k as u16;
        let o = map_operand(g, ops[i], cx)?;
        let bfe = if sext != 0 { Op::VBfeI32 } else { Op::VBfeU32 };
        out.push(vop3_host(
            bfe,
            &[v1(t), o, constant(off), constant(width)],
            cx,
        )?);
        ops[i] = v1(t);
    }
    // The operation as GFX9 VOP3 (then re-encoded like any other instruction).
    let (dst_sel, unused) = if vopc {
        (6, 0)
    } else {
        (g.field(F::SdwaDstSel), g.field(F::SdwaDstUnused))
    };
    let partial = sel_bits(dst_sel);
    let tr = f + 2;
    if partial.is_some() {
        ops[0] = v1(tr);
    }
    // An SDWA compare writes VCC, or with SD the SGPR pair in its SDST field, which the
    // decoded operand list does not show (it prints `vcc` for the VOPC syntax either way).
    if vopc {
        let first = if g.field(F::SdwaSd) == 0 {
            106
        } else {
            let c = g.field(F::Sdst);
            if c & 1 != 0 {
                return Err(cx.unsupported(g, "an SDWA compare's SDST is not an SGPR pair"));
            }
            c as u16
        };
        ops[0] = map_operand(g, Operand::Sgpr { first, count: 2 }, cx)?;
    }
    let mut plain = None;
    for fm in [Format::Vop3, Format::Vop3b] {
        if let Ok(i) = Inst::build(g.target, g.op, fm) {
            plain = Some(i);
            break;
        }
    }
    let mut plain = plain.ok_or_else(|| cx.no_rule(g))?;
    if plain.num_operands() != n {
        return Err(cx.no_rule(g));
    }
    for (i, o) in ops.iter().enumerate() {
        let o = match o {
            Operand::Fixed("vcc") => Operand::Sgpr {
                first: 106,
                count: 2,
            },
            o => *o,
        };
        plain.set_operand(i, o).map_err(|e| cx.enc(e))?;
    }
    if !vopc {
        for fl in [F::Clamp, F::Omod] {
            let v = g.field(fl);
            if v != 0 {
                let field = plain.layout().field(fl).ok_or_else(|| cx.no_rule(g))?;
                plain.bits = layout::put(plain.bits, field, v);
            }
        }
    }
    cx.scratch_used = cx.scratch_used.max(3);
    out.extend(lower_one(&plain, cx)?);
    if let Some((off, width)) = partial {
        let Operand::Vgpr { first: d, .. } = op(g, 0, cx)? else {
            return Err(cx.unsupported(g, "unexpected destination"));
        };
        match unused {
            // UNUSED_PAD: the field's bits, shifted into place, zeros elsewhere.
            0 => {
                out.push(vop3_host(
                    Op::VBfeU32,
                    &[v1(tr), v1(tr), constant(0), constant(width)],
                    cx,
                )?);
                out.push(vop3_host(
                    Op::VLshlrevB32,
                    &[v1(d), constant(off), v1(tr)],
                    cx,
                )?);
            }
            // UNUSED_PRESERVE: merge the field into the old value.
            2 => {
                let mask = ((1u64 << width) - 1) << off;
                out.push(vop3_host(
                    Op::VLshlrevB32,
                    &[v1(tr), constant(off), v1(tr)],
                    cx,
                )?);
                out.push(vop3_host(
                    Op::VBfiB32,
                    &[v1(d), Operand::Literal(mask as u32), v1(tr), v1(d)],
                    cx,
                )?);
            }
            _ => return Err(cx.unsupported(g, "SDWA UNUSED_SEXT is not translated")),
        }
    }
    Ok(out)
}

/// An SDWA source operand from its register code: a VGPR (`sgpr` false), else an inline
/// constant (code 128 and up) or an SGPR.
fn sdwa_source(c: u32, sgpr: bool) -> Operand {
    if !sgpr {
        v1(c as u16)
    } else if c >= 128 {
        Operand::Inline(c as u16)
    } else {
        Operand::Sgpr {
            first: c as u16,
            count: 1,
        }
    }
}

/// A GFX9 SDWA 16-bit operation whose selects are all words or dwords, as the GFX12 VOP3
/// operation with `op_sel` (GFX12 16-bit operations read either half of a VGPR source
/// and write either half of the destination, keeping the other: llvm-mc-22 takes
/// `v_add_f16_e64 v4.h, v1.h, v2.l` as `op_sel:[1,0,1]`; the gfx1201 model's `put16`),
/// where the general rule ([`sdwa`]) extracts, computes and merges in up to six
/// instructions. A 16-bit operation reads only the low 16 bits of the SDWA-extended
/// source, so WORD_1 is the high half and WORD_0/DWORD the low one, whatever the sign
/// extension. The destination: WORD_1 or WORD_0 with UNUSED_PRESERVE is the half alone;
/// a DWORD or WORD_0 result with UNUSED_PAD (the 16-bit result zero-extended, as
/// without SDWA) clears the high half after it unless it is dead ([`zero_high16`]); WORD_1
/// with UNUSED_PAD clears the low half. Taken: the 16-bit-result operations of
/// [`zeroes_high16`] but `v_ldexp_f16` (its GFX9 exponent is 32 bits), `v_cvt_f16_f32`
/// (a dword source) and `v_cvt_f32_f16` (a dword result), on VGPR sources where a high
/// half is selected. Compares (GFX12 VOP3 with an SGPR destination, whose op_sel this
/// does not place) and anything else: `None`.
fn sdwa_op_sel(g: &Inst, cx: &mut Ctx<'_>) -> Result<Option<Vec<Inst>>, TranslateError> {
    // GFX12 compares in VOP3 (sdst) take no op_sel here: the general rule.
    if g.format == Format::Vopc {
        return Ok(None);
    }
    let (src32, dst32) = match g.op {
        Op::VCvtF16F32 => (true, false),
        Op::VCvtF32F16 => (false, true),
        Op::VLdexpF16 => return Ok(None),
        o if zeroes_high16(o) => (false, false),
        _ => return Ok(None),
    };
    if g.field(F::Omod) != 0 {
        return Ok(None);
    }
    let n = g.num_operands();
    let code = sdwa_source;
    let mut srcs = [(
        code(g.field(F::ExtSrc0), g.field(F::SdwaS0) != 0),
        g.field(F::SdwaSrc0Sel),
    ); 2];
    let nsrc = if g.format == Format::Vop1 { 1 } else { 2 };
    if nsrc == 2 {
        srcs[1] = (
            code(g.field(F::Vsrc1), g.field(F::SdwaS1) != 0),
            g.field(F::SdwaSrc1Sel),
        );
    }
    let mut sel = 0u32;
    for (k, &(o, s)) in srcs.iter().take(nsrc).enumerate() {
        match s {
            6 => {}
            4 if !src32 => {}
            5 if !src32 && matches!(o, Operand::Vgpr { .. }) => sel |= 1 << k,
            _ => return Ok(None),
        }
    }
    // (write the high half, clear the high half after, clear the low half after)
    let (hi, clear_hi, clear_lo) = match (g.field(F::SdwaDstSel), g.field(F::SdwaDstUnused)) {
        (6, 0 | 2) if dst32 => (false, false, false),
        _ if dst32 => return Ok(None),
        (6, 0 | 2) | (4, 0) => (false, !cx.high16_dead, false),
        (4, 2) => (false, false, false),
        (5, 2) => (true, false, false),
        (5, 0) => (true, false, true),
        _ => return Ok(None),
    };
    if hi {
        sel |= 8;
    }
    // The plain operation as GFX9 VOP3, lowered like any other, then given op_sel.
    let mut plain = None;
    for fm in [Format::Vop3, Format::Vop3b] {
        if let Ok(i) = Inst::build(g.target, g.op, fm) {
            plain = Some(i);
            break;
        }
    }
    let Some(mut plain) = plain else {
        return Ok(None);
    };
    if plain.num_operands() != n {
        return Ok(None);
    }
    for i in 0..n {
        plain.set_operand(i, op(g, i, cx)?).map_err(|e| cx.enc(e))?;
    }
    // The sources sit after the destination, in order.
    if (0..nsrc).any(|k| plain.operand(1 + k) != Some(srcs[k].0)) {
        return Ok(None);
    }
    if g.field(F::Clamp) != 0 {
        let field = plain
            .layout()
            .field(F::Clamp)
            .ok_or_else(|| cx.no_rule(g))?;
        plain.bits = layout::put(plain.bits, field, 1);
    }
    let mut seq = lower_plain(&plain, cx)?;
    let [h] = seq.as_mut_slice() else {
        return Ok(None);
    };
    if sel != 0 {
        let Some(fl) = h.layout().field(F::OpSel) else {
            return Ok(None);
        };
        h.bits = layout::put(h.bits, fl, sel);
        *h = redecode(h, g, cx)?;
    }
    if clear_hi {
        seq.extend(zero_high16(g, cx)?);
    }
    if clear_lo {
        let Some(d @ Operand::Vgpr { count: 1, .. }) = g.operand(0) else {
            return Ok(None);
        };
        let mut i = build(Op::VAndB32, Format::Vop2, cx)?;
        for (k, o) in [d, Operand::Literal(0xffff_0000), d]
            .into_iter()
            .enumerate()
        {
            i.set_operand(k, o).map_err(|e| cx.enc(e))?;
        }
        seq.push(i);
    }
    Ok(Some(seq))
}

/// A gfx1201 VOP3 instruction from operands in assembly order.
fn vop3_host(o: Op, ops: &[Operand], cx: &Ctx<'_>) -> Result<Inst, TranslateError> {
    let mut i = build(o, Format::Vop3, cx)?;
    for (k, x) in ops.iter().enumerate() {
        i.set_operand(k, *x).map_err(|e| cx.enc(e))?;
    }
    Ok(i)
}

/// A GFX9 MUBUF instruction on GFX12: the descriptor converted into a free SGPR quad
/// (once per block while the guest's descriptor SGPRs are unchanged, [`Rsrcs`]), then
/// the VBUFFER instruction through the quad.
///
/// When the dataflow of [`super::known`] proves dword3 a constant and dword1's stride
/// and swizzle bits known (what Triton and clang emit), the conversion is one
/// `s_mov_b32` of the GFX12 dword3 into the guest's own dword3 register, which keeps it
/// until an instruction other than a buffer access through the same descriptor reads or
/// writes it, or the block ends; the guest's constant is put back then ([`restore`],
/// called by the emitter). Words 0..2 are used as they are.
///
/// The V# layouts (GFX9: Mesa `sid.h` SQ_BUF_RSRC_WORD1/3 for GFX6-9 and
/// `gpu-model/src/exec/mubuf.rs`; GFX12: ROCr `resource_gfx12.h`, and clang-22's and
/// Triton's own gfx1201 builds, `corpus/triton/build/gfx1201`, which set dword3 to
/// 0x31027000 for a raw buffer): dword0 and dword2 (base low, num_records) are the same;
/// dword1 is the same except bits 31:30 (GFX9 swizzle_enable 31 and cache_swizzle 30,
/// GFX12 the swizzle element size); dword3 keeps dst_sel 11:0, index_stride 22:21 and
/// add_tid_enable 23 at the same places, while GFX12 has one FORMAT at 17:12 (0 is
/// INVALID, so a valid 32-bit format, BUF_FMT_32_UINT = 0x14, goes there; untyped
/// accesses do not read it) and an explicit OOB_SELECT at 29:28 where GFX9 derives the
/// range check from the stride: raw (stride 0) checks the byte offset (GFX12 3),
/// structured the index (GFX12 1; `corpus/src/asm/gfx12/asm_buffer.s` uses the same
/// two). The conversion, for guest descriptor `s[r:r+3]` into quad `s[q:q+3]`:
///
/// ```text
///   s_and_b32     s[q+3], s[r+3], 0x00e00fff   ; dst_sel, index_stride, add_tid
///   s_or_b32      s[q+3], s[q+3], 0x10014000   ; OOB_SELECT 1, FORMAT 32_UINT
///   s_bfe_u32     s[q+2], s[r+1], 0x000e0010   ; stride; SCC = stride != 0
///   s_cselect_b32 s[q+2], 0, 0x20000000        ; raw: OOB_SELECT 3
///   s_or_b32      s[q+3], s[q+3], s[q+2]
///   s_mov_b64     s[q:q+1], s[r:r+1]
///   s_bitset0_b32 s[q+1], 30                   ; cache_swizzle is not a GFX12 bit
///   s_mov_b32     s[q+2], s[r+2]
/// ```
///
/// bracketed by `s_cselect_b32 s104, 1, 0` / `s_cmp_lg_u32 s104, 0` when SCC is live.
/// Not converted (a kernel that builds such descriptors gets different addressing):
/// GFX9 swizzled descriptors (dword1 bit 31, the private-segment style, which the
/// translator does not take as a user SGPR either) and add_tid descriptors whose stride
/// exceeds 14 bits (GFX9 keeps the high bits in DATA_FORMAT). Range checks differ in one
/// case the model also distinguishes: a multi-dword raw access that is only partly in
/// range is dropped whole on GFX9 and per dword on GFX12. Formatted accesses
/// (`*_format_*`, which read the format) and loads to LDS are refused.
fn buffer(g: &Inst, cx: &mut Ctx<'_>) -> Result<Vec<Inst>, TranslateError> {
    if g.mnemonic().contains("_format") {
        return Err(cx.unsupported(
            g,
            "formatted buffer accesses need the descriptor's format converted",
        ));
    }
    if g.field(F::Lds) != 0 {
        // Handled by [`lds_dma`] before this is reached.
        return Err(cx.unsupported(g, "buffer loads to LDS are not translated to gfx1201"));
    }
    let r = (g.field(F::Srsrc) * 4) as u16;
    let mut out = Vec::new();
    if let Some(w3) = cx.inplace_ok.then(|| word3_in_place(&cx.known)).flatten() {
        let reg = r + 3;
        // A register already converted (here or by a copy of a converted one) holds its
        // GFX12 word; it is written again only when this descriptor's dword1 asks for
        // another one.
        // A deferred guest constant for this register is overwritten unread.
        cx.deferred.retain(|d| d.0 != reg);
        match cx.inplace.iter().position(|e| e.reg == reg) {
            Some(k) if cx.inplace[k].host == w3 => {}
            Some(k) => {
                out.push(mov_constant(reg, w3, cx)?);
                cx.inplace[k].host = w3;
            }
            None => {
                let guest = cx.known[3].constant().unwrap_or(0);
                out.push(mov_constant(reg, w3, cx)?);
                cx.inplace.push(InPlace {
                    reg,
                    guest,
                    host: w3,
                });
            }
        }
        out.push(reencode_with(g, cx, Some(r))?);
        return Ok(out);
    }
    // The conversion reads the whole guest descriptor.
    cx.deferred.retain(|(reg, d)| {
        let keep = *reg < r || *reg >= r + 4;
        if !keep {
            out.push(*d);
        }
        keep
    });
    let q = if let Some(k) = cx.rsrc.held.iter().position(|&(s, _)| s == r) {
        let e = cx.rsrc.held.remove(k);
        cx.rsrc.held.push(e);
        e.1
    } else {
        let free = cx
            .rsrc
            .quads
            .iter()
            .copied()
            .find(|q| cx.rsrc.held.iter().all(|e| e.1 != *q));
        let q = match free {
            Some(q) => q,
            None if !cx.rsrc.held.is_empty() => cx.rsrc.held.remove(0).1,
            None => {
                return Err(cx.unsupported(
                    g,
                    "no SGPR quad below s104 is free for the GFX12 buffer descriptor",
                ))
            }
        };
        out.extend(rsrc_gfx12(r, q, cx)?);
        cx.rsrc.held.push((r, q));
        q
    };
    out.push(reencode_with(g, cx, Some(q))?);
    Ok(out)
}

/// The GFX12 dword3 of a descriptor whose dword3 is a known constant and whose dword1
/// has known stride bits and a clear bit 31:30 (no swizzle, no cache swizzle): the same
/// word [`rsrc_gfx12`] computes at run time. `None` when not all of that is known.
fn word3_in_place(k: &[super::known::Bits; 4]) -> Option<u32> {
    let c = k[3].constant()?;
    let w1 = k[1];
    let stride = 0x3fff_0000u32;
    if w1.zero & 0xc000_0000 != 0xc000_0000 || (w1.zero | w1.one) & stride != stride {
        return None;
    }
    // GFX9 with add_tid keeps stride bits 17:14 in DATA_FORMAT (dword3 18:15).
    let structured = w1.one & stride != 0 || (c & 1 << 23 != 0 && c >> 15 & 0xf != 0);
    Some((c & 0x00e0_0fff) | 0x1001_4000 | if structured { 0 } else { 0x2000_0000 })
}

/// Puts the guest's constants back into the in-place converted registers `which`
/// selects (`s_mov_b32`, which leaves SCC alone), and forgets them.
pub(crate) fn restore(
    cx: &mut Ctx<'_>,
    which: &dyn Fn(u16) -> bool,
) -> Result<Vec<Inst>, TranslateError> {
    let mut out = Vec::new();
    let mut keep = Vec::new();
    for &e in &cx.inplace {
        if !which(e.reg) {
            keep.push(e);
            continue;
        }
        out.push(mov_constant(e.reg, e.guest, cx)?);
    }
    cx.inplace = keep;
    Ok(out)
}

/// `s_mov_b32 s[reg], value`.
fn mov_constant(reg: u16, value: u32, cx: &Ctx<'_>) -> Result<Inst, TranslateError> {
    let mut m = build(Op::SMovB32, Format::Sop1, cx)?;
    m.set_operand(
        0,
        Operand::Sgpr {
            first: reg,
            count: 1,
        },
    )
    .map_err(|e| cx.enc(e))?;
    m.set_operand(1, constant(value)).map_err(|e| cx.enc(e))?;
    Ok(m)
}

/// The conversion sequence of [`buffer`].
fn rsrc_gfx12(r: u16, q: u16, cx: &Ctx<'_>) -> Result<Vec<Inst>, TranslateError> {
    let s = |first: u16| Operand::Sgpr { first, count: 1 };
    let sop = |o: Op, f: Format, ops: &[Operand]| -> Result<Inst, TranslateError> {
        let mut i = build(o, f, cx)?;
        for (k, x) in ops.iter().enumerate() {
            i.set_operand(k, *x).map_err(|e| cx.enc(e))?;
        }
        Ok(i)
    };
    let mut out = Vec::with_capacity(10);
    if cx.scc_live {
        out.push(sop(
            Op::SCselectB32,
            Format::Sop2,
            &[s(CARRY), Operand::Inline(129), Operand::Inline(128)],
        )?);
    }
    out.push(sop(
        Op::SAndB32,
        Format::Sop2,
        &[s(q + 3), s(r + 3), Operand::Literal(0x00e0_0fff)],
    )?);
    out.push(sop(
        Op::SOrB32,
        Format::Sop2,
        &[s(q + 3), s(q + 3), Operand::Literal(0x1001_4000)],
    )?);
    out.push(sop(
        Op::SBfeU32,
        Format::Sop2,
        &[s(q + 2), s(r + 1), Operand::Literal(0x000e_0010)],
    )?);
    out.push(sop(
        Op::SCselectB32,
        Format::Sop2,
        &[
            s(q + 2),
            Operand::Inline(128),
            Operand::Literal(0x2000_0000),
        ],
    )?);
    out.push(sop(
        Op::SOrB32,
        Format::Sop2,
        &[s(q + 3), s(q + 3), s(q + 2)],
    )?);
    out.push(sop(
        Op::SMovB64,
        Format::Sop1,
        &[
            Operand::Sgpr { first: q, count: 2 },
            Operand::Sgpr { first: r, count: 2 },
        ],
    )?);
    out.push(sop(
        Op::SBitset0B32,
        Format::Sop1,
        &[s(q + 1), Operand::Inline(128 + 30)],
    )?);
    out.push(sop(Op::SMovB32, Format::Sop1, &[s(q + 2), s(r + 2)])?);
    if cx.scc_live {
        out.push(sop(
            Op::SCmpLgU32,
            Format::Sopc,
            &[s(CARRY), Operand::Inline(128)],
        )?);
    }
    Ok(out)
}

/// gfx940+ `buffer_wbl2` / `buffer_inv` (write back / invalidate the caches up to the
/// scope their sc0/sc1 bits name: LLVM AMDGPUUsage, memory model GFX942, release and
/// acquire sequences) -> GFX12 `global_wb` / `global_inv` with the same scope, mapped as
/// for the accesses ([`cache_policy`]: sc1 agent -> SCOPE_DEV, sc0+sc1 -> SCOPE_SYS).
/// LLVM's SIMemoryLegalizer (`SIGfx12CacheControl::insertRelease`) emits `global_wb`
/// only at system scope on GFX12.0 and calls it "a slow no-op" below that, so the agent
/// form is kept for exactness at a small cost; `corpus/src/asm/gfx12/asm_semaphore.s`
/// acquires with `global_inv scope:SCOPE_DEV`. Encoding (llvm-mc-22): saddr NULL, no
/// VGPRs.
fn cache_op(g: &Inst, cx: &Ctx<'_>) -> Result<Vec<Inst>, TranslateError> {
    let o = if g.op == Op::BufferWbl2 {
        Op::GlobalWb
    } else {
        Op::GlobalInv
    };
    let mut h = build(o, Format::Global, cx)?;
    for (f, v) in [
        (F::Saddr, u32::from(NULL)),
        (F::Scope, g.field(F::Glc) | g.field(F::Scc) << 1),
    ] {
        let fl = h
            .layout()
            .field(f)
            .ok_or_else(|| cx.unsupported(g, "a cache-control field has no gfx1201 field"))?;
        h.bits = layout::put(h.bits, fl, v);
    }
    Ok(vec![redecode(&h, g, cx)?])
}

/// GFX9 DPP `row_bcast:15` (0x142: lane 15 of the row below, rows 1..3) and
/// `row_bcast:31` (0x143: lane 31, rows 2 and 3), which GFX12 lacks (ISA-ENCODINGS.md;
/// llvm-mc-22 refuses them for gfx1201). Semantics as the gfx950 model has them
/// (`gpu-model/src/exec/lane.rs`, `dpp_source`/`dpp_src`): a lane in the row and bank
/// masks reads its source lane; a source out of range or inactive reads 0 with
/// bound_ctrl (the only form taken: without it such lanes keep their old value). The
/// broadcast value goes to a scratch VGPR `t` (0 where the source is out of range or
/// inactive), then the operation runs as DPP16 `quad_perm:[0,1,2,3]` from `t` with the
/// guest's row/bank masks, neg/abs and bound_ctrl, so every other operand and modifier
/// is the guest's.
///
/// * `row_bcast:15` when the row mask leaves rows 0 and 2 alone (LLVM and Triton
///   reductions use 0xa): `v_permlanex16_b32 t, src, -1, -1 op_sel:[0,1]` (every lane
///   reads lane 15 of the other row of its 32-lane half, 0 when inactive: BOUND_CTRL is
///   OP_SEL[1], RDNA4 ISA guide V_PERMLANEX16_B32), exact for rows 1 and 3.
/// * `row_bcast:31`: `v_readlane_b32 s104, src, 31`, `s_bitcmp1_b32 exec_lo, 31`,
///   `s_cselect_b32 s104, s104, 0` (0 when lane 31 is inactive; SCC saved in s105 and
///   restored when live), `v_mov_b32 t, s104` and the operation on rows 2/3, then
///   `v_mov_b32 t, 0` and the operation on rows 0/1 (their source is out of range). The
///   two row sets are disjoint, so the second operation reads what the guest's reads.
fn row_bcast(g: &Inst, cx: &mut Ctx<'_>) -> Result<Vec<Inst>, TranslateError> {
    let ext = (g.bits >> 32) as u32;
    let ctrl = g.field(F::DppCtrl);
    let rows = g.field(F::RowMask);
    if g.field(F::BoundCtrl) == 0 {
        return Err(cx.unsupported(
            g,
            "DPP row broadcasts without bound_ctrl are not translated to GFX12",
        ));
    }
    let src = v1((ext & 0xff) as u16);
    let t = cx.scratch_first;
    cx.scratch_used = cx.scratch_used.max(1);
    // The guest instruction reading `t` with identity quad_perm under row mask `m`.
    let op_from_t = |m: u32, cx: &mut Ctx<'_>| -> Result<Inst, TranslateError> {
        let e = (ext & !0x1_ffff & 0x0fff_ffff) | 0xe4 << 8 | u32::from(t) | m << 28;
        let mut b = [0u8; 8];
        b[..4].copy_from_slice(&(g.bits as u32).to_le_bytes());
        b[4..].copy_from_slice(&e.to_le_bytes());
        let g2 = isa::decode(g.target, &b, false).map_err(|_| cx.no_rule(g))?;
        dpp(&g2, cx)
    };
    let s = |first: u16| Operand::Sgpr { first, count: 1 };
    let mut out = Vec::new();
    if ctrl == 0x142 {
        if rows & 0x5 != 0 {
            return Err(cx.unsupported(
                g,
                "DPP row_bcast:15 writing rows 0 or 2 is not translated to GFX12",
            ));
        }
        let mut p = vop3_host(
            Op::VPermlanex16B32,
            &[v1(t), src, Operand::Inline(193), Operand::Inline(193)],
            cx,
        )?;
        let fl = p.layout().field(F::OpSel).ok_or_else(|| cx.no_rule(g))?;
        p.bits = layout::put(p.bits, fl, 2);
        out.push(p);
        out.push(op_from_t(rows, cx)?);
        return Ok(out);
    }
    let hi = CARRY + 1;
    if cx.scc_live {
        let mut c = build(Op::SCselectB32, Format::Sop2, cx)?;
        for (k, x) in [s(hi), Operand::Inline(129), Operand::Inline(128)]
            .into_iter()
            .enumerate()
        {
            c.set_operand(k, x).map_err(|e| cx.enc(e))?;
        }
        out.push(c);
    }
    out.push(vop3_host(
        Op::VReadlaneB32,
        &[s(CARRY), src, constant(31)],
        cx,
    )?);
    let mut bc = build(Op::SBitcmp1B32, Format::Sopc, cx)?;
    bc.set_operand(0, s(126)).map_err(|e| cx.enc(e))?;
    bc.set_operand(1, constant(31)).map_err(|e| cx.enc(e))?;
    out.push(bc);
    let mut sel = build(Op::SCselectB32, Format::Sop2, cx)?;
    for (k, x) in [s(CARRY), s(CARRY), Operand::Inline(128)]
        .into_iter()
        .enumerate()
    {
        sel.set_operand(k, x).map_err(|e| cx.enc(e))?;
    }
    out.push(sel);
    if cx.scc_live {
        let mut c = build(Op::SCmpLgU32, Format::Sopc, cx)?;
        c.set_operand(0, s(hi)).map_err(|e| cx.enc(e))?;
        c.set_operand(1, Operand::Inline(128))
            .map_err(|e| cx.enc(e))?;
        out.push(c);
    }
    for (m, v) in [(rows & 0xc, s(CARRY)), (rows & 0x3, Operand::Inline(128))] {
        if m == 0 {
            continue;
        }
        let mut mv = build(Op::VMovB32, Format::Vop1, cx)?;
        mv.set_operand(0, v1(t)).map_err(|e| cx.enc(e))?;
        mv.set_operand(1, v).map_err(|e| cx.enc(e))?;
        out.push(mv);
        out.push(op_from_t(m, cx)?);
    }
    Ok(out)
}

/// gfx90a+ packed f32 VALU (`v_pk_add_f32`, `v_pk_mul_f32`, `v_pk_fma_f32`; GFX12 has no
/// packed f32: llvm-mc-22 refuses them for gfx1201) as two VOP3 f32 operations, one per
/// 32-bit half of the destination pair. Semantics as the gfx950 model has them
/// (`exec::vop3p::pk_f32`): for the low result each source's half is op_sel's bit and
/// neg_lo negates it, for the high result op_sel_hi's bit and neg_hi; clamp on both; a
/// constant source is the same 32-bit value for both halves. The low result goes to a
/// scratch VGPR first and is moved into place last, so a source pair that overlaps the
/// destination is read before it is written.
fn packed_f32(g: &Inst, o: Op, cx: &mut Ctx<'_>) -> Result<Vec<Inst>, TranslateError> {
    let n = g.num_operands();
    let Some(Operand::Vgpr { first: d, count: 2 }) = g.operand(0) else {
        return Err(cx.unsupported(g, "unexpected destination"));
    };
    let sel = [
        g.field(F::OpSel),
        g.field(F::OpSelHi) | g.field(F::OpSelHi2) << 2,
    ];
    let neg = [g.field(F::Neg), g.field(F::NegHi)];
    let t = cx.scratch_first;
    cx.scratch_used = cx.scratch_used.max(1);
    let mut out = Vec::with_capacity(3);
    for (h, dst) in [(0usize, t), (1, d + 1)] {
        let mut ops = vec![v1(dst)];
        for k in 1..n {
            let src = map_operand(g, op(g, k, cx)?, cx)?;
            let b = (sel[h] >> (k - 1) & 1) as u16;
            ops.push(match src {
                Operand::Vgpr { first, count: 2 } => v1(first + b),
                Operand::Sgpr { first, count: 2 } => Operand::Sgpr {
                    first: first + b,
                    count: 1,
                },
                Operand::Inline(_) | Operand::Literal(_) => src,
                _ => return Err(cx.unsupported(g, "unexpected packed f32 source")),
            });
        }
        let mut i = vop3_host(o, &ops, cx)?;
        for (f, v) in [(F::Neg, neg[h]), (F::Clamp, g.field(F::Clamp))] {
            if v != 0 {
                let fl = i.layout().field(f).ok_or_else(|| cx.no_rule(g))?;
                i.bits = layout::put(i.bits, fl, v);
            }
        }
        out.push(redecode(&i, g, cx)?);
    }
    let mut mv = build(Op::VMovB32, Format::Vop1, cx)?;
    mv.set_operand(0, v1(d)).map_err(|e| cx.enc(e))?;
    mv.set_operand(1, v1(t)).map_err(|e| cx.enc(e))?;
    out.push(mv);
    Ok(out)
}

/// The (vdst, vsrc) VGPRs of a `v_permlane{16,32}_swap_b32`; the VOP3 form's
/// fi/bound_ctrl are refused by name.
fn swap_operands(g: &Inst, cx: &Ctx<'_>) -> Result<(u16, u16), TranslateError> {
    if g.format == Format::Vop3 && g.field(F::OpSel) != 0 {
        return Err(cx.unsupported(g, "fi/bound_ctrl are not handled"));
    }
    let (Some(Operand::Vgpr { first: d, .. }), Some(Operand::Vgpr { first: src, .. })) = (
        map_operand(g, op(g, 0, cx)?, cx).ok(),
        map_operand(g, op(g, 1, cx)?, cx).ok(),
    ) else {
        return Err(cx.unsupported(g, "unexpected operands"));
    };
    Ok((d, src))
}

/// A host instruction `o` in format `f` with `ops` as its operands, in order.
fn host_inst(o: Op, f: Format, ops: &[Operand], cx: &Ctx<'_>) -> Result<Inst, TranslateError> {
    let mut i = build(o, f, cx)?;
    for (k, x) in ops.iter().enumerate() {
        i.set_operand(k, *x).map_err(|e| cx.enc(e))?;
    }
    Ok(i)
}

/// gfx950 `v_permlane32_swap_b32 vdst, vsrc` (the upper 32 lanes of vdst exchanged with
/// the lower 32 lanes of vsrc; a lane whose partner lane is inactive keeps its value, the
/// model's `exec::lane::permlane_swap` without FI/BOUND_CTRL) on gfx1201 wave64 through
/// GFX12's `v_permlane64_b32` (every active lane reads lane `l ^ 32`): both registers'
/// partner values go to scratch first (so vdst may equal vsrc), then `v_cndmask_b32`
/// takes them where the partner is active: `{exec_lo, 0}` as the mask for vdst's upper
/// lanes, `{0, exec_hi}` for vsrc's lower ones, built with `s_mov_b32` in s[104:105]
/// (free between guest instructions) so SCC is untouched.
fn permlane32_swap(g: &Inst, cx: &mut Ctx<'_>) -> Result<Vec<Inst>, TranslateError> {
    let (d, src) = swap_operands(g, cx)?;
    let (ts, td) = (cx.scratch_first, cx.scratch_first + 1);
    cx.scratch_used = cx.scratch_used.max(2);
    let s1 = |first: u16| Operand::Sgpr { first, count: 1 };
    let mask = Operand::Sgpr {
        first: CARRY,
        count: 2,
    };
    let one = |o: Op, f: Format, ops: &[Operand]| host_inst(o, f, ops, cx);
    let (exec_lo, exec_hi, zero) = (s1(126), s1(127), Operand::Inline(128));
    Ok(vec![
        one(Op::VPermlane64B32, Format::Vop1, &[v1(ts), v1(src)])?,
        one(Op::VPermlane64B32, Format::Vop1, &[v1(td), v1(d)])?,
        one(Op::SMovB32, Format::Sop1, &[s1(CARRY), zero])?,
        one(Op::SMovB32, Format::Sop1, &[s1(CARRY + 1), exec_lo])?,
        vop3_host(Op::VCndmaskB32, &[v1(d), v1(d), v1(ts), mask], cx)?,
        one(Op::SMovB32, Format::Sop1, &[s1(CARRY), exec_hi])?,
        one(Op::SMovB32, Format::Sop1, &[s1(CARRY + 1), zero])?,
        vop3_host(Op::VCndmaskB32, &[v1(src), v1(src), v1(td), mask], cx)?,
    ])
}

/// gfx950 `v_permlane16_swap_b32 vdst, vsrc` (the odd 16-lane rows of vdst exchanged with
/// the even rows of vsrc, lane `l` of an odd row pairing with lane `l - 16`; the model's
/// `exec::lane::permlane_swap` without FI/BOUND_CTRL, which are refused) on gfx1201
/// through GFX12's `v_permlanex16_b32` with the identity selects `{0xfedcba98,
/// 0x76543210}` (every active lane reads lane `l ^ 16`, its partner, and without
/// FI/BOUND_CTRL an inactive partner leaves the lane unwritten: the model's
/// `exec::lane::permlane16`; RDNA4 ISA guide V_PERMLANEX16_B32). Each permute writes a scratch VGPR seeded with the register it
/// stands for, so a lane whose partner is inactive (no FI, no BOUND_CTRL) keeps its old
/// value as on gfx950; both permutes read the old registers (vdst may be vsrc); then
/// `v_cndmask_b32` under the constant row mask 0xffff0000ffff0000 takes the odd rows for
/// vdst and the even rows for vsrc. The selects and the mask go through s[104:105] with
/// `s_mov_b32` (SCC untouched).
fn permlane16_swap(g: &Inst, cx: &mut Ctx<'_>) -> Result<Vec<Inst>, TranslateError> {
    let (d, src) = swap_operands(g, cx)?;
    let (td, ts) = (cx.scratch_first, cx.scratch_first + 1);
    cx.scratch_used = cx.scratch_used.max(2);
    let s1 = |first: u16| Operand::Sgpr { first, count: 1 };
    let one = |o: Op, f: Format, ops: &[Operand]| host_inst(o, f, ops, cx);
    let permx = |dst: u16, from: u16| {
        vop3_host(
            Op::VPermlanex16B32,
            &[v1(dst), v1(from), s1(CARRY), s1(CARRY + 1)],
            cx,
        )
    };
    let mask = Operand::Sgpr {
        first: CARRY,
        count: 2,
    };
    let rows = Operand::Literal(0xffff_0000);
    Ok(vec![
        one(
            Op::SMovB32,
            Format::Sop1,
            &[s1(CARRY), Operand::Literal(0x7654_3210)],
        )?,
        one(
            Op::SMovB32,
            Format::Sop1,
            &[s1(CARRY + 1), Operand::Literal(0xfedc_ba98)],
        )?,
        one(Op::VMovB32, Format::Vop1, &[v1(td), v1(d)])?,
        permx(td, src)?,
        one(Op::VMovB32, Format::Vop1, &[v1(ts), v1(src)])?,
        permx(ts, d)?,
        one(Op::SMovB32, Format::Sop1, &[s1(CARRY), rows])?,
        one(Op::SMovB32, Format::Sop1, &[s1(CARRY + 1), rows])?,
        // Odd rows of vdst: the partner's vsrc; even rows of vsrc: the partner's vdst.
        vop3_host(Op::VCndmaskB32, &[v1(d), v1(d), v1(td), mask], cx)?,
        vop3_host(Op::VCndmaskB32, &[v1(src), v1(ts), v1(src), mask], cx)?,
    ])
}

/// gfx950 `ds_read_b64_tr_b{16,8} d, addr offset:o` on GFX12, where every 16-lane row is
/// a `v_permlane16_var_b32` away: in each group of 16 lanes, lane `t`'s element `k` (of
/// `n` = 4 16-bit or 8 8-bit elements) is element `t % n` of the 64 bits that lane
/// `16k / n + t / n` of its group reads (the rule's model, `exec::ds::transpose`; see
/// `crate::rules` for the gfx942 form, which needs `ds_bpermute_b32` and one LDS read per
/// element). Every active lane reads its own 64 bits (`ds_load_b64`, the guest's address
/// and offset); per `k`, two `v_permlane16_var_b32` with the per-lane select
/// `16k / n + x / n` for lane `x` of the row (a VGPR stepped by `16 / n`) fetch the source
/// lane's two dwords, BOUND_CTRL (`op_sel:[0,1]`) reading an inactive source lane as 0
/// (the guest's zeros from inactive lanes); `v_lshrrev_b64` by `bits * (t % n)` brings
/// element `t % n` down, and `v_perm_b32` packs the elements (two for 16-bit, six for
/// 8-bit elements). Scratch: the own 64 bits, the shift, `n` element pairs, the select.
fn read_tr(g: &Inst, bits: u16, cx: &mut Ctx<'_>) -> Result<Vec<Inst>, TranslateError> {
    let (Some(d), Some(addr)) = (g.operand(0), g.operand(1)) else {
        return Err(cx.unsupported(g, "unexpected operands of a transposing LDS read"));
    };
    let Operand::Vgpr {
        first: d0,
        count: 2,
    } = map_operand(g, d, cx)?
    else {
        return Err(cx.unsupported(g, "unexpected destination of a transposing LDS read"));
    };
    let n = 64 / bits;
    let (log_n, log_bits) = (n.trailing_zeros() as u16, bits.trailing_zeros() as u16);
    let f = cx.scratch_first;
    cx.scratch_used = cx.scratch_used.max(4 + 2 * n);
    let (own, sh, elem, sel) = (f, f + 2, |k: u16| f + 3 + 2 * k, f + 3 + 2 * n);
    let pair = |r: u16| Operand::Vgpr { first: r, count: 2 };
    let int = |x: u16| Operand::Inline(128 + x);
    let at = rules::At {
        kernel: cx.kernel,
        pc: cx.pc,
    };
    // The own read and the wait for it, as GFX9 instructions re-encoded like the
    // guest's (M0, the split counters).
    let mut load = Inst::build(Target::Gfx950, Op::DsReadB64, Format::Ds).map_err(|e| cx.enc(e))?;
    load.set_operand(0, pair(own)).map_err(|e| cx.enc(e))?;
    load.set_operand(1, addr).map_err(|e| cx.enc(e))?;
    for f in [F::Offset0, F::Offset1] {
        if let Some(fl) = load.layout().field(f) {
            load.bits = layout::put(load.bits, fl, g.field(f));
        }
    }
    let mut out = lower_one(&load, cx)?;
    cx.pending = super::known::pending_after(&load, cx.pending);
    let wait = rules::waitcnt(rules::WAIT_LGKM0, &at)?;
    // Meanwhile the lane id t, the select x / n of lane x of its row for k = 0, and the
    // shift bits * (t % n).
    out.push(vop3_host(
        Op::VMbcntLoU32B32,
        &[v1(sh), Operand::Inline(193), int(0)],
        cx,
    )?);
    out.push(vop3_host(
        Op::VMbcntHiU32B32,
        &[v1(sh), Operand::Inline(193), v1(sh)],
        cx,
    )?);
    out.push(vop3_host(
        Op::VBfeU32,
        &[v1(sel), v1(sh), int(log_n), int(4 - log_n)],
        cx,
    )?);
    out.push(vop3_host(Op::VAndB32, &[v1(sh), int(n - 1), v1(sh)], cx)?);
    out.push(vop3_host(
        Op::VLshlrevB32,
        &[v1(sh), int(log_bits), v1(sh)],
        cx,
    )?);
    out.extend(lower_one(&wait, cx)?);
    cx.pending = super::known::pending_after(&wait, cx.pending);
    for k in 0..n {
        if k > 0 {
            out.push(vop3_host(
                Op::VAddNcU32,
                &[v1(sel), int(16 / n), v1(sel)],
                cx,
            )?);
        }
        let e = elem(k);
        for h in 0..2u16 {
            let mut p = vop3_host(
                Op::VPermlane16VarB32,
                &[v1(e + h), v1(own + h), v1(sel)],
                cx,
            )?;
            let fl = p
                .layout()
                .field(F::OpSel)
                .ok_or_else(|| cx.unsupported(g, "v_permlane16_var_b32 has no op_sel field"))?;
            p.bits = layout::put(p.bits, fl, 2);
            out.push(p);
        }
        out.push(vop3_host(Op::VLshrrevB64, &[pair(e), v1(sh), pair(e)], cx)?);
    }
    // `v_perm_b32 x, hi, lo, s` takes bytes 0..3 from lo and 4..7 from hi (0x0c: zero).
    let perm = |x: u16, hi: u16, lo: u16, s: u32, cx: &Ctx<'_>| {
        vop3_host(
            Op::VPermB32,
            &[v1(x), v1(hi), v1(lo), Operand::Literal(s)],
            cx,
        )
    };
    for w in 0..2u16 {
        if bits == 16 {
            // d.w = e[2w].lo16 | e[2w + 1].lo16 << 16.
            out.push(perm(d0 + w, elem(2 * w + 1), elem(2 * w), 0x0504_0100, cx)?);
        } else {
            // Byte pairs, then d.w = e[4w].b0 | e[4w + 1].b0 << 8 | ... << 24.
            let (x, y) = (elem(4 * w), elem(4 * w + 2));
            out.push(perm(x, elem(4 * w + 1), x, 0x0c0c_0400, cx)?);
            out.push(perm(y, elem(4 * w + 3), y, 0x0c0c_0400, cx)?);
            out.push(perm(d0 + w, y, x, 0x0504_0100, cx)?);
        }
    }
    Ok(out)
}
