//! Instruction legalization: what one guest instruction becomes on the host.
//!
//! The decision order is the design's: a handwritten semantic EXPAND rule first, then the
//! generated re-encoding. Re-encoding relies on one equivalence contract: the same
//! [`Op`] (the same LLVM mnemonic) on two ISAs computes the same thing, and a different
//! mnemonic is equivalent only when `gpu_model::isa` registers it as an alias
//! ([`Op::canonical`]). So:
//!
//! * **Identity**: the guest bytes decode on the host to the same operation with the
//!   same operands: they are copied;
//! * **Substitute**: the host encodes the same operation in the same format under
//!   another opcode: the opcode field is replaced, the operand fields kept, and the
//!   result must decode on the host to the same operation and operands;
//! * anything else needs an EXPAND rule; without one the kernel is rejected.
//!
//! EXPAND rules (gfx950 -> gfx942), each checked against the gfx950 original on the
//! model by `dbt/tests/rules.rs`:
//!
//! * `v_bitop3_b32 d, a, b, c, table`: per bit, `d = table[a<<2 | b<<1 | c]` (LLVM
//!   AMDGPU `V_BITOP3_B32`; the index order matches the model's executor). Split on `a`:
//!   `d = v_bfi_b32(a, g1(b, c), g0(b, c))` where `g1`/`g0` are the upper/lower four
//!   table bits, each a two-input function built from one or two gfx942 bitwise
//!   instructions into scratch VGPRs (or used directly when it is `b`, `c`, 0 or -1).
//! * `v_bitop3_b16`: the same on 16-bit halves (op_sel picks source halves and the
//!   destination half, whose other half is kept), merged into the destination with
//!   `v_bfi_b32` and a 0xffff mask.
//! * LDS DMA of 12/16 bytes per lane (`buffer_load_dwordx{3,4} ... lds`,
//!   `global_load_lds_dwordx{3,4}`; gfx942 has only the dword and sub-dword widths): the
//!   same load into scratch VGPRs, `s_waitcnt vmcnt(0)`, the lane's LDS address
//!   `M0 + inst_offset + lane * bytes` (the model's `exec::flat::lds_dma_addr`, from the
//!   Vega guide's `LDS_ADDR = LDSbase + LDS_offset + inst_offset + TID * 4` widened to the
//!   gfx950 x3/x4 forms, and LLVM's `int_amdgcn_load_to_lds` "imm offset applied to both
//!   global and LDS address") built with `v_mbcnt` and `v_mad_u32_u24`, then
//!   `ds_write_b96/b128` and `s_waitcnt lgkmcnt(0)`. Waiting for everything at once is
//!   always safe: the original's outstanding-count is replaced by a completed operation,
//!   which is older than anything still outstanding, so a later `s_waitcnt vmcnt(n)` of
//!   the program waits for at least what it waited for before. Out-of-range lanes load 0
//!   either way (the model's `mubuf`/`flat` executors) and inactive lanes write nothing.
//! * `v_permlane{16,32}_swap_b32 d, s` (CDNA4 guide, LLVM `llvm.amdgcn.permlane*.swap`,
//!   the model's `exec::lane::permlane_swap`): lane `l + h` of `d` (`h` = 16 or 32, `l` in
//!   the lower half of each `2h` group) and lane `l` of `s` trade values; a lane is
//!   written only when it and its partner `l ^ h` are both active. gfx942 has
//!   `ds_bpermute_b32`, which reads a partner lane's value, 0 from an inactive one (CDNA3
//!   guide; the model's `exec::ds::lane`): with the partner address `(lane ^ h) * 4`,
//!   fetch `s`, `d` and an all-ones marker (-1 where the partner is active), wait for
//!   LGKM, then merge with `v_bfi_b32` under the masks "upper half and partner active"
//!   (into `d`) and "lower half and partner active" (into `s`). The VOP3 form's FI and
//!   BOUND_CTRL (op_sel) are refused.
//! * `v_prng_b32 d, x` (CDNA4 guide: one Galois LFSR step, `(x << 1) ^ (x[31] ? 197 :
//!   0)`; the model's `exec::cvt::prng`): `t = (x >>> 31) & 197` (arithmetic shift, then
//!   `v_and_b32_e32` with the literal, which GFX9 VOP3 cannot take), `u = x << 1`,
//!   `d = u ^ t`; a constant source is folded.
//! * `v_cvt_f32_bf16 d, a`: a bf16 is the upper half of the f32 with the same value, so
//!   `d = a << 16` (the low half of the source; the model's `exec::cvt`), then VOP3
//!   `abs` (clear bit 31) and `neg` (flip it) with VOP2 literals; constants are folded;
//!   clamp, omod, op_sel and the SDWA/DPP forms are refused.
//! * the wide-K f16/bf16 MFMAs (`v_mfma_f32_{32x32x16,16x16x32}_{f16,bf16}`, 8 values of
//!   A and B per lane) as two gfx942 MFMAs of half the K (`32x32x8`, `16x16x16`, 4 values
//!   per lane). In the CDNA operand layout (the model's `exec::matrix::layout::cdna`, from
//!   AMD's matrix instruction calculator) lane `g * M + i` holds `kl` consecutive k from
//!   `g * kl`: with `kl` = 8 the first two registers of the tuple hold k `8g .. 8g + 3`
//!   and the last two `8g + 4 .. 8g + 7`; a narrow MFMA reading either pair takes them as
//!   its k `4g .. 4g + 3`, for A and B alike. So `D = mfma(A[0:1], B[0:1], C)` then
//!   `D = mfma(A[2:3], B[2:3], D)` adds every product once; only the order of the f32
//!   additions differs (the model's notes bound that by `K * 2^-24 * (|C| + sum |a*b|)`).
//!   The second reads the first's result as C (same size, exact overlap). When D overlaps
//!   the upper A or B pair (IREE's `v_mfma_f32_16x16x32_f16 v[0:3], v[76:79], v[0:3], 0`),
//!   that pair is first copied into scratch VGPRs, which the second MFMA reads; an AGPR
//!   pair that D overlaps, and CBSZ/ABID/BLGP, are refused.
//! * `ds_read_b64_tr_b{16,8} d, addr offset:o` (the model's `exec::ds::transpose`, from
//!   AMD rocRoller's gfx950 transpose-load tests): in each group of 16 lanes, lane `t`'s
//!   element `k` (of `n` = 4 or 8) is element `(16k + t) % n` of the 64 bits that lane
//!   `group + (16k + t) / n` reads; an inactive lane contributes zeros. On gfx942: per
//!   `k`, `ds_bpermute_b32` fetches that lane's address (the permute offset steps `k`)
//!   and an all-ones marker (0 from an inactive lane), `ds_read_u16/u8` reads the element
//!   at `address + o + (t % n) * bytes`, the marker masks it, and `v_lshl_or_b32` packs.
//! * `v_cvt_pk_f16_f32 d, a, b`: `v_cvt_f16_f32` of each source (same MODE rounding,
//!   neg/abs/clamp kept) into scratch VGPRs, then `v_pack_b32_f16 d, lo, hi`.
//! * `v_cvt_pk_bf16_f32 d, a, b`: nearest-even rounding of the upper halves in integer
//!   arithmetic, NaNs quieted, the kernel's f32 denormal mode applied, then `v_perm_b32`
//!   (details at `expand_cvt_pk_bf16`).
//! * `v_mfma_f32_{32x32x64,16x16x128}_f8f6f4` with fp8 A and B (OCP E4M3): the operands'
//!   bytes re-coded for gfx942's FNUZ E4M3 (-0 and NaN codes), which reads every finite
//!   code as half its OCP value, four `v_mfma_f32_{32x32x16,16x16x32}_fp8_fp8` on C / 4,
//!   and the result times 4; `v_mfma_f32_{32x32x16,16x16x32}_fp8_fp8`, which gfx950
//!   reads as OCP, the same way with one MFMA; converted operands are reused by later MFMAs of the same
//!   straight-line code ([`Fp8Cache`]; details at `expand_mfma_fp8`).
//! * `v_dot2_f32_bf16 d, a, b, c`: the bf16 elements widened to f32 and flushed,
//!   `v_mul_f32` twice, `v_add_f32` twice (products first, then C), the result flushed;
//!   only under the default float MODE (details at `expand_dot2_bf16`).

use crate::error::TranslateError;
use gpu_model::isa::layout::{Format, F};
use gpu_model::isa::{self, Inst, Op, Operand};
use gpu_model::Target;

/// What a guest instruction became.
#[derive(Debug)]
pub enum Lowered {
    /// The guest bytes, unchanged.
    Identity,
    /// One host instruction of the same size.
    Substitute(Inst),
    /// A host sequence (needs scratch VGPRs from [`Scratch`]).
    Expand(Vec<Inst>),
}

/// Scratch VGPRs for EXPAND rules: registers from `first` on, which are either above
/// everything the kernel uses (the descriptor grows to cover them) or guest registers
/// that liveness found dead at the instruction (`scope::emit`). A rule uses them at
/// offsets from `first` that depend only on `first` modulo 4, so it can be lowered again
/// at another base with the same alignment.
#[derive(Debug, Clone, Copy)]
pub struct Scratch {
    /// The first scratch VGPR.
    pub first: u16,
    /// How many the rules of this kernel used (the high-water mark).
    pub used: u16,
}

/// Context of one instruction for diagnostics.
#[derive(Debug)]
pub struct At<'a> {
    /// Kernel name.
    pub kernel: &'a str,
    /// Image address.
    pub pc: u64,
}

/// MODE bits 7:0 (the descriptor's FLOAT_MODE) of a kernel that keeps the default:
/// nearest even, every denormal kept (the model's `exec::fmode`).
pub const DEFAULT_FLOAT_MODE: u8 = 0xf0;

/// Legalizes `inst` (decoded on `guest`, whose bytes are `bytes`) for `host`, for a kernel
/// whose float mode is the default ([`DEFAULT_FLOAT_MODE`]).
pub fn lower(
    inst: &Inst,
    bytes: &[u8],
    host: Target,
    scratch: &mut Scratch,
    at: &At<'_>,
) -> Result<Lowered, TranslateError> {
    lower_in_mode(
        inst,
        bytes,
        host,
        scratch,
        at,
        DEFAULT_FLOAT_MODE,
        &mut Fp8Cache::default(),
    )
}

/// [`lower`] for a kernel whose MODE bits 7:0 start as `float_mode` (the descriptor's
/// FLOAT_MODE, COMPUTE_PGM_RSRC1 bits 19:12: bits 1:0 the f32 round mode, 5:4 the f32
/// denormal mode, bit 0 of it keeping input denormals, bit 1 output denormals): the rules
/// of conversions that honour MODE flush as the guest would, and rules whose host
/// arithmetic would round or flush differently under a non-default MODE refuse. A kernel
/// that rewrites MODE at run time is not followed.
pub fn lower_in_mode(
    inst: &Inst,
    bytes: &[u8],
    host: Target,
    scratch: &mut Scratch,
    at: &At<'_>,
    float_mode: u8,
    fp8: &mut Fp8Cache,
) -> Result<Lowered, TranslateError> {
    // Each rule's own scratch use, to tell whether it reached the fp8 cache's slots.
    let mut own = Scratch {
        first: scratch.first,
        used: 0,
    };
    let r = lower_one(inst, bytes, host, &mut own, at, float_mode, fp8);
    if !is_fp8_mfma(inst.op) && own.used > FP8_OTHER_RULES {
        fp8.clear();
    }
    scratch.used = scratch.used.max(own.used);
    r
}

pub(crate) fn is_fp8_mfma(op: Op) -> bool {
    matches!(
        op,
        Op::VMfmaF3232x32x64F8f6f4
            | Op::VMfmaF3216x16x128F8f6f4
            | Op::VMfmaF3232x32x16Fp8Fp8
            | Op::VMfmaF3216x16x32Fp8Fp8
    )
}

fn lower_one(
    inst: &Inst,
    bytes: &[u8],
    host: Target,
    scratch: &mut Scratch,
    at: &At<'_>,
    float_mode: u8,
    fp8: &mut Fp8Cache,
) -> Result<Lowered, TranslateError> {
    let no_rule = || TranslateError::NoRule {
        kernel: at.kernel.to_string(),
        pc: at.pc,
        text: inst.to_string(),
        host,
    };
    // Semantic rules first.
    match inst.op {
        Op::VBitop3B32 => return expand_bitop3(inst, scratch, at).map(Lowered::Expand),
        Op::VBitop3B16 => return expand_bitop3_b16(inst, scratch, at).map(Lowered::Expand),
        Op::VCvtPkF16F32 => return expand_cvt_pk_f16(inst, scratch, at).map(Lowered::Expand),
        Op::VCvtPkBf16F32 => {
            return expand_cvt_pk_bf16(inst, float_mode >> 4 & 3, scratch, at).map(Lowered::Expand)
        }
        Op::VDot2F32Bf16 => {
            return expand_dot2_bf16(inst, float_mode, scratch, at).map(Lowered::Expand)
        }
        Op::VMfmaF3232x32x64F8f6f4 => {
            return expand_mfma_fp8(inst, Op::VMfmaF3232x32x16Fp8Fp8, 16, scratch, at, fp8)
                .map(Lowered::Expand)
        }
        Op::VMfmaF3216x16x128F8f6f4 => {
            return expand_mfma_fp8(inst, Op::VMfmaF3216x16x32Fp8Fp8, 4, scratch, at, fp8)
                .map(Lowered::Expand)
        }
        // The fp8 MFMAs both ISAs have: the same operation on re-coded operands.
        Op::VMfmaF3232x32x16Fp8Fp8 | Op::VMfmaF3216x16x32Fp8Fp8 if host == Target::Gfx942 => {
            let dregs = if inst.op == Op::VMfmaF3232x32x16Fp8Fp8 {
                16
            } else {
                4
            };
            return expand_mfma_fp8(inst, inst.op, dregs, scratch, at, fp8).map(Lowered::Expand);
        }
        Op::VPrngB32 => return expand_prng(inst, scratch, at).map(Lowered::Expand),
        Op::DsReadB64TrB16 => return expand_read_tr(inst, 16, scratch, at).map(Lowered::Expand),
        Op::DsReadB64TrB8 => return expand_read_tr(inst, 8, scratch, at).map(Lowered::Expand),
        Op::VMfmaF3232x32x16F16 => {
            return split_mfma(inst, Op::VMfmaF3232x32x8F16, 16, scratch, at).map(Lowered::Expand)
        }
        Op::VMfmaF3232x32x16Bf16 => {
            return split_mfma(inst, Op::VMfmaF3232x32x8Bf16, 16, scratch, at).map(Lowered::Expand)
        }
        Op::VMfmaF3216x16x32F16 => {
            return split_mfma(inst, Op::VMfmaF3216x16x16F16, 4, scratch, at).map(Lowered::Expand)
        }
        Op::VMfmaF3216x16x32Bf16 => {
            return split_mfma(inst, Op::VMfmaF3216x16x16Bf16, 4, scratch, at).map(Lowered::Expand)
        }
        Op::VCvtF32Bf16 => return expand_cvt_f32_bf16(inst, at).map(Lowered::Expand),
        Op::VPermlane16SwapB32 => {
            return expand_permlane_swap(inst, 16, scratch, at).map(Lowered::Expand)
        }
        Op::VPermlane32SwapB32 => {
            return expand_permlane_swap(inst, 32, scratch, at).map(Lowered::Expand)
        }
        Op::GlobalLoadLdsDwordx3 | Op::GlobalLoadLdsDwordx4 => {
            return expand_lds_dma(inst, scratch, at).map(Lowered::Expand)
        }
        Op::BufferLoadDwordx3 | Op::BufferLoadDwordx4 if inst.field(F::Lds) != 0 => {
            return expand_lds_dma(inst, scratch, at).map(Lowered::Expand)
        }
        _ => {}
    }
    // The same fp8/bf8 mnemonics compute differently: gfx950 reads and writes OCP E4M3 /
    // E5M2, gfx942 E4M3 / E5M2 FNUZ (the model's `exec::cvt::f8_format` and
    // `exec::matrix`; LLVM's gfx950 `FP8ConversionInsts` use the OCP types), so neither
    // Identity nor Substitute holds. Only the fp8 MFMAs above have a rule.
    if host == Target::Gfx942 {
        let m = inst.mnemonic();
        if m.contains("fp8") || m.contains("bf8") {
            return Err(unsupported(
                inst,
                at,
                "gfx950 fp8/bf8 are OCP formats, gfx942's are FNUZ: the same instruction computes differently (no rule yet)",
            ));
        }
    }
    // Identity: the same bytes mean the same thing on the host.
    if let Ok(h) = isa::decode(host, bytes, false) {
        if same_meaning(inst, &h) {
            return Ok(Lowered::Identity);
        }
    }
    // Substitute: same operation and format, another opcode.
    let built = Inst::build(host, inst.op, inst.format).map_err(|_| no_rule())?;
    let Some(opf) = inst.layout().field(F::Op) else {
        return Err(no_rule());
    };
    let mut out = [0u8; 20];
    let n = isa::encode(inst, &mut out).map_err(|source| TranslateError::Encode {
        kernel: at.kernel.to_string(),
        pc: at.pc,
        source,
    })?;
    let mask = field_mask(opf.lo, opf.bits);
    let bits = (inst.bits & !mask) | (built.bits & mask);
    out[..16.min(n)].copy_from_slice(&bits.to_le_bytes()[..16.min(n)]);
    if let Some(l) = inst.literal {
        out[n - 4..n].copy_from_slice(&l.to_le_bytes());
    }
    match isa::decode(host, &out[..n], false) {
        Ok(h) if same_meaning(inst, &h) && h.len == inst.len => Ok(Lowered::Substitute(h)),
        _ => Err(no_rule()),
    }
}

/// A mask of `bits` bits starting at bit `lo`.
fn field_mask(lo: u8, bits: u8) -> u128 {
    let m = if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    };
    m << lo
}

/// Same operation (or a registered alias) with the same operands and modifiers as text.
fn same_meaning(g: &Inst, h: &Inst) -> bool {
    if g.op.canonical() != h.op.canonical() || g.len != h.len {
        return false;
    }
    if g.num_operands() != h.num_operands() {
        return false;
    }
    if (0..g.num_operands()).any(|i| g.operand(i) != h.operand(i)) {
        return false;
    }
    // Modifiers print in the text; equal text after the mnemonic means equal
    // modifiers (allocates: legalization runs once per instruction, off any hot path).
    let (gt, ht) = (g.to_string(), h.to_string());
    gt.split_once(' ').map(|x| x.1) == ht.split_once(' ').map(|x| x.1)
        || (gt == g.mnemonic() && ht == h.mnemonic())
}

fn unsupported(inst: &Inst, at: &At<'_>, reason: &'static str) -> TranslateError {
    TranslateError::UnsupportedForm {
        kernel: at.kernel.to_string(),
        pc: at.pc,
        text: inst.to_string(),
        reason,
    }
}

/// Builds a gfx942 VOP3 instruction from operands (assembly order, destination first).
fn vop3(op: Op, ops: &[Operand], at: &At<'_>) -> Result<Inst, TranslateError> {
    let enc = |source| TranslateError::Encode {
        kernel: at.kernel.to_string(),
        pc: at.pc,
        source,
    };
    let mut i = Inst::build(Target::Gfx942, op, Format::Vop3).map_err(enc)?;
    for (k, o) in ops.iter().enumerate() {
        i.set_operand(k, *o).map_err(enc)?;
    }
    Ok(i)
}

pub(crate) const fn v(r: u16) -> Operand {
    Operand::Vgpr { first: r, count: 1 }
}
/// Inline constant 0 (source code 128).
const ZERO: Operand = Operand::Inline(128);
/// Inline constant -1 (source code 193).
const ONES: Operand = Operand::Inline(193);

/// `g(b, c)` for a four-entry truth table indexed by `b<<1 | c`: either an operand to
/// use directly or instructions writing `tmp`.
fn two_input(
    g: u8,
    b: Operand,
    c: Operand,
    tmp: u16,
    out: &mut Vec<Inst>,
    at: &At<'_>,
) -> Result<Operand, TranslateError> {
    let t = v(tmp);
    let one = |op: Op, ops: &[Operand], out: &mut Vec<Inst>| -> Result<Operand, TranslateError> {
        out.push(vop3(op, ops, at)?);
        Ok(t)
    };
    match g & 0xf {
        0x0 => Ok(ZERO),
        0xf => Ok(ONES),
        0xa => Ok(c),
        0xc => Ok(b),
        0x5 => one(Op::VNotB32, &[t, c], out),
        0x3 => one(Op::VNotB32, &[t, b], out),
        0x8 => one(Op::VAndB32, &[t, b, c], out),
        0xe => one(Op::VOrB32, &[t, b, c], out),
        0x6 => one(Op::VXorB32, &[t, b, c], out),
        0x9 => one(Op::VXnorB32, &[t, b, c], out),
        // v_bfi_b32(m, x, y) = (m & x) | (!m & y).
        0x2 => one(Op::VBfiB32, &[t, b, ZERO, c], out),
        0x4 => one(Op::VBfiB32, &[t, c, ZERO, b], out),
        0xb => one(Op::VBfiB32, &[t, b, c, ONES], out),
        0xd => one(Op::VBfiB32, &[t, c, b, ONES], out),
        0x7 => {
            one(Op::VAndB32, &[t, b, c], out)?;
            one(Op::VNotB32, &[t, t], out)
        }
        _ => {
            // 0x1: nor.
            one(Op::VOrB32, &[t, b, c], out)?;
            one(Op::VNotB32, &[t, t], out)
        }
    }
}

/// `d = bitop3(table, a, b, c)` on 32 bits through `v_bfi_b32`, temporaries `t0`, `t1`.
#[allow(clippy::too_many_arguments)]
fn bitop3_into(
    table: u8,
    d: Operand,
    [a, b, c]: [Operand; 3],
    t0: u16,
    t1: u16,
    out: &mut Vec<Inst>,
    at: &At<'_>,
) -> Result<(), TranslateError> {
    let g0 = two_input(table & 0xf, b, c, t0, out, at)?;
    let g1 = two_input(table >> 4, b, c, t1, out, at)?;
    out.push(vop3(Op::VBfiB32, &[d, a, g1, g0], at)?);
    Ok(())
}

fn expand_bitop3(
    inst: &Inst,
    scratch: &mut Scratch,
    at: &At<'_>,
) -> Result<Vec<Inst>, TranslateError> {
    let table = inst
        .bitop3()
        .ok_or_else(|| unsupported(inst, at, "only the VOP3 form is handled"))?;
    if inst.field(F::Clamp) != 0 || inst.field(F::OpSel) != 0 {
        return Err(unsupported(inst, at, "clamp/op_sel are not handled"));
    }
    let (Some(d @ Operand::Vgpr { .. }), Some(a), Some(b), Some(c)) = (
        inst.operand(0),
        inst.operand(1),
        inst.operand(2),
        inst.operand(3),
    ) else {
        return Err(unsupported(inst, at, "unexpected operands"));
    };
    let mut out = Vec::new();
    bitop3_into(
        table,
        d,
        [a, b, c],
        scratch.first,
        scratch.first + 1,
        &mut out,
        at,
    )?;
    scratch.used = scratch.used.max(2);
    Ok(out)
}

/// `v_bitop3_b16`: 16-bit sources (op_sel bits 0-2 pick the high halves), the result
/// goes to the low or (op_sel bit 3) high half of `d`, the other half is kept (the model's
/// executor and the CDNA4 guide). Sources whose high half is selected are shifted down
/// into scratch VGPRs; the 32-bit expansion computes into a scratch VGPR, which
/// `v_bfi_b32` with a 0xffff mask merges into `d`.
fn expand_bitop3_b16(
    inst: &Inst,
    scratch: &mut Scratch,
    at: &At<'_>,
) -> Result<Vec<Inst>, TranslateError> {
    let table = inst
        .bitop3()
        .ok_or_else(|| unsupported(inst, at, "only the VOP3 form is handled"))?;
    if inst.field(F::Clamp) != 0 {
        return Err(unsupported(inst, at, "clamp is not handled"));
    }
    let op_sel = inst.field(F::OpSel);
    let Some(d @ Operand::Vgpr { .. }) = inst.operand(0) else {
        return Err(unsupported(inst, at, "unexpected operands"));
    };
    let f = scratch.first;
    let (t0, t1, tr, tm) = (f, f + 1, f + 2, f + 3);
    let mut out = Vec::new();
    let mut srcs = [ZERO; 3];
    for (k, s) in srcs.iter_mut().enumerate() {
        let o = inst
            .operand(k + 1)
            .ok_or_else(|| unsupported(inst, at, "unexpected operands"))?;
        let hi = op_sel >> k & 1 != 0;
        *s = match o {
            Operand::Vgpr { .. } | Operand::Sgpr { .. } if hi => {
                let t = f + 4 + k as u16;
                // v_lshrrev_b32 t, 16, src (inline constant 16 is code 144).
                out.push(vop3(Op::VLshrrevB32, &[v(t), Operand::Inline(144), o], at)?);
                v(t)
            }
            Operand::Vgpr { .. } | Operand::Sgpr { .. } => o,
            // Integer inline constants read the same low 16 bits in a b16 operation.
            Operand::Inline(c) if (128..=208).contains(&c) && !hi => o,
            _ => {
                return Err(unsupported(
                    inst,
                    at,
                    "float or high-half inline constants are not handled",
                ))
            }
        };
    }
    bitop3_into(table, v(tr), srcs, t0, t1, &mut out, at)?;
    let enc = |source| TranslateError::Encode {
        kernel: at.kernel.to_string(),
        pc: at.pc,
        source,
    };
    let mut mask = Inst::build(Target::Gfx942, Op::VMovB32, Format::Vop1).map_err(enc)?;
    mask.set_operand(0, v(tm)).map_err(enc)?;
    mask.set_operand(1, Operand::Literal(0xffff)).map_err(enc)?;
    out.push(mask);
    if op_sel & 8 == 0 {
        out.push(vop3(Op::VBfiB32, &[d, v(tm), v(tr), d], at)?);
    } else {
        out.push(vop3(
            Op::VLshlrevB32,
            &[v(tr), Operand::Inline(144), v(tr)],
            at,
        )?);
        out.push(vop3(Op::VBfiB32, &[d, v(tm), d, v(tr)], at)?);
    }
    let shifted = (0..3).filter(|k| op_sel >> k & 1 != 0).max();
    scratch.used = scratch.used.max(shifted.map_or(4, |k| 5 + k as u16));
    Ok(out)
}

fn expand_cvt_pk_f16(
    inst: &Inst,
    scratch: &mut Scratch,
    at: &At<'_>,
) -> Result<Vec<Inst>, TranslateError> {
    if inst.format != Format::Vop3 || inst.field(F::OpSel) != 0 || inst.field(F::Omod) != 0 {
        return Err(unsupported(inst, at, "op_sel/omod are not handled"));
    }
    let (Some(d @ Operand::Vgpr { .. }), Some(a), Some(b)) =
        (inst.operand(0), inst.operand(1), inst.operand(2))
    else {
        return Err(unsupported(inst, at, "unexpected operands"));
    };
    let (neg, abs, clamp) = (inst.field(F::Neg), inst.field(F::Abs), inst.field(F::Clamp));
    let (t0, t1) = (scratch.first, scratch.first + 1);
    let cvt = |t: u16, s: Operand, k: u32| -> Result<Inst, TranslateError> {
        let mut i = vop3(Op::VCvtF16F32, &[v(t), s], at)?;
        i = with_field(i, F::Neg, neg >> k & 1);
        i = with_field(i, F::Abs, abs >> k & 1);
        Ok(with_field(i, F::Clamp, clamp))
    };
    let out = vec![
        cvt(t0, a, 0)?,
        cvt(t1, b, 1)?,
        vop3(Op::VPackB32F16, &[d, v(t0), v(t1)], at)?,
    ];
    scratch.used = scratch.used.max(2);
    Ok(out)
}

/// `s_waitcnt vmcnt(0)` and `s_waitcnt lgkmcnt(0)` on GFX9 (llvm-mc-22 -mcpu=gfx942:
/// `[0x70,0x0f,0x8c,0xbf]` and `[0x7f,0xc0,0x8c,0xbf]`).
pub(crate) const WAIT_VM0: u32 = 0x0f70;
pub(crate) const WAIT_LGKM0: u32 = 0xc07f;

pub(crate) fn waitcnt(simm: u32, at: &At<'_>) -> Result<Inst, TranslateError> {
    let enc = |source| TranslateError::Encode {
        kernel: at.kernel.to_string(),
        pc: at.pc,
        source,
    };
    let i = Inst::build(Target::Gfx942, Op::SWaitcnt, Format::Sopp).map_err(enc)?;
    Ok(with_field(i, F::Simm16, simm))
}

/// A gfx942 VOP2 instruction (which, unlike GFX9 VOP3, takes a literal as src0).
pub(crate) fn vop2(op: Op, ops: &[Operand], at: &At<'_>) -> Result<Inst, TranslateError> {
    let enc = |source| TranslateError::Encode {
        kernel: at.kernel.to_string(),
        pc: at.pc,
        source,
    };
    let mut i = Inst::build(Target::Gfx942, op, Format::Vop2).map_err(enc)?;
    for (k, o) in ops.iter().enumerate() {
        i.set_operand(k, *o).map_err(enc)?;
    }
    Ok(i)
}

/// The 32-bit value of an integer constant operand (literal or inline integer).
fn int_constant(o: Operand) -> Option<u32> {
    match o {
        Operand::Literal(l) => Some(l),
        Operand::Inline(c @ 128..=192) => Some(u32::from(c - 128)),
        Operand::Inline(c @ 193..=208) => Some((-(i32::from(c) - 192)) as u32),
        _ => None,
    }
}

/// `v_mov_b32_e32 d, x` (a literal).
fn vop1_mov(d: Operand, x: u32, at: &At<'_>) -> Result<Inst, TranslateError> {
    let enc = |source| TranslateError::Encode {
        kernel: at.kernel.to_string(),
        pc: at.pc,
        source,
    };
    let mut m = Inst::build(Target::Gfx942, Op::VMovB32, Format::Vop1).map_err(enc)?;
    m.set_operand(0, d).map_err(enc)?;
    m.set_operand(1, Operand::Literal(x)).map_err(enc)?;
    Ok(m)
}

fn expand_cvt_f32_bf16(inst: &Inst, at: &At<'_>) -> Result<Vec<Inst>, TranslateError> {
    let vop3_form = match inst.format {
        Format::Vop1 => false,
        Format::Vop3 => true,
        _ => return Err(unsupported(inst, at, "SDWA/DPP forms are not handled")),
    };
    let (abs, neg) = if vop3_form {
        if inst.field(F::Clamp) != 0 || inst.field(F::Omod) != 0 || inst.field(F::OpSel) != 0 {
            return Err(unsupported(inst, at, "clamp/omod/op_sel are not handled"));
        }
        (inst.field(F::Abs) & 1 != 0, inst.field(F::Neg) & 1 != 0)
    } else {
        (false, false)
    };
    let (Some(d @ Operand::Vgpr { .. }), Some(a)) = (inst.operand(0), inst.operand(1)) else {
        return Err(unsupported(inst, at, "unexpected operands"));
    };
    if let Operand::Vgpr { .. } | Operand::Sgpr { .. } = a {
        let mut out = vec![vop3(
            Op::VLshlrevB32,
            &[d, Operand::Inline(128 + 16), a],
            at,
        )?];
        if abs {
            out.push(vop2(
                Op::VAndB32,
                &[d, Operand::Literal(0x7fff_ffff), d],
                at,
            )?);
        }
        if neg {
            out.push(vop2(
                Op::VXorB32,
                &[d, Operand::Literal(0x8000_0000), d],
                at,
            )?);
        }
        return Ok(out);
    }
    let k = int_constant(a).ok_or_else(|| unsupported(inst, at, "float inline constant source"))?;
    let mut x = k << 16;
    if abs {
        x &= 0x7fff_ffff;
    }
    if neg {
        x ^= 0x8000_0000;
    }
    Ok(vec![vop1_mov(d, x, at)?])
}

/// A wide-K MFMA as two of `narrow` (see the module notes); `dregs` registers of D.
fn split_mfma(
    inst: &Inst,
    narrow: Op,
    dregs: u32,
    scratch: &mut Scratch,
    at: &At<'_>,
) -> Result<Vec<Inst>, TranslateError> {
    let lay = inst.layout();
    let field = |f: F| lay.field(f);
    let (Some(opf), Some(s0), Some(s1), Some(s2)) =
        (field(F::Op), field(F::Src0), field(F::Src1), field(F::Src2))
    else {
        return Err(unsupported(inst, at, "unexpected encoding"));
    };
    if inst.field(F::Cbsz) != 0 || inst.field(F::Abid) != 0 || inst.field(F::Blgp) != 0 {
        return Err(unsupported(inst, at, "cbsz/abid/blgp are not handled"));
    }
    let (a, b, d) = (
        inst.field(F::Src0),
        inst.field(F::Src1),
        inst.field(F::Vdst),
    );
    if a < 256 || b < 256 {
        return Err(unsupported(inst, at, "A and B must be registers"));
    }
    // ACC bits: bit 0 A, bit 1 B in AGPRs; ACC_CD: C and D in AGPRs.
    let (acc, acc_cd) = (inst.field(F::Acc), inst.field(F::AccCd));
    let overlaps =
        |first: u32, agpr: bool| agpr == (acc_cd != 0) && first + 2 > d && d + dregs > first;
    let (save_a, save_b) = (
        overlaps(a - 256 + 2, acc & 1 != 0),
        overlaps(b - 256 + 2, acc & 2 != 0),
    );
    if (save_a && acc & 1 != 0) || (save_b && acc & 2 != 0) {
        return Err(unsupported(
            inst,
            at,
            "D overlaps the upper halves of A or B in AGPRs (only VGPR halves are saved)",
        ));
    }
    let enc = |source| TranslateError::Encode {
        kernel: at.kernel.to_string(),
        pc: at.pc,
        source,
    };
    let mut out = Vec::with_capacity(6);
    // An upper half that D overwrites is copied to scratch VGPRs first (an even pair: gfx90a
    // and later read VGPR tuples only from even registers, LLVM's aligned VGPR classes)
    // and the second MFMA reads the copy. ASSUMPTION: EXEC is all ones at an MFMA (the
    // copies honour EXEC, the MFMA does not); compilers issue MFMAs in uniform code.
    let pair = scratch.first.next_multiple_of(2);
    let mut upper = [a + 2, b + 2];
    for (k, save) in [save_a, save_b].into_iter().enumerate() {
        if !save {
            continue;
        }
        let to = pair + 2 * k as u16;
        let from = (upper[k] - 256) as u16;
        for j in 0..2 {
            out.push(vop1(Op::VMovB32, v(to + j), v(from + j), at)?);
        }
        upper[k] = 256 + u32::from(to);
        scratch.used = scratch.used.max(to + 2 - scratch.first);
    }
    let built = Inst::build(Target::Gfx942, narrow, inst.format).map_err(enc)?;
    let m = field_mask(opf.lo, opf.bits);
    let first = inst.bits & !m | built.bits & m;
    let put = gpu_model::isa::layout::put;
    let second = put(put(put(first, s0, upper[0]), s1, upper[1]), s2, 256 + d);
    let n = usize::from(inst.len);
    for bits in [first, second] {
        let h = isa::decode(Target::Gfx942, &bits.to_le_bytes()[..n], false)
            .ok()
            .filter(|h| h.op == narrow)
            .ok_or_else(|| unsupported(inst, at, "the narrow MFMA does not encode on the host"))?;
        out.push(h);
    }
    Ok(out)
}

fn expand_read_tr(
    inst: &Inst,
    bits: u16,
    scratch: &mut Scratch,
    at: &At<'_>,
) -> Result<Vec<Inst>, TranslateError> {
    if inst.field(F::Gds) != 0 || inst.field(F::Acc) != 0 {
        return Err(unsupported(inst, at, "gds/acc are not handled"));
    }
    let (Some(Operand::Vgpr { first: dst, .. }), Some(addr @ Operand::Vgpr { .. })) =
        (inst.operand(0), inst.operand(1))
    else {
        return Err(unsupported(inst, at, "unexpected operands"));
    };
    let enc = |source| TranslateError::Encode {
        kernel: at.kernel.to_string(),
        pc: at.pc,
        source,
    };
    let n: u16 = 64 / bits;
    let log_n = n.trailing_zeros() as u16;
    let off = inst.field(F::Offset0) | inst.field(F::Offset1) << 8;
    let f = scratch.first;
    let (t, base, eo, ones) = (v(f), v(f + 1), v(f + 2), v(f + 3));
    // Per k: the element (in place of the fetched address) and the marker.
    let val = |k: u16| v(f + 4 + 2 * k);
    let mark = |k: u16| v(f + 5 + 2 * k);
    let inline = |x: u16| Operand::Inline(128 + x);
    let ds = |op: Op, ops: &[Operand], offset: u32| -> Result<Inst, TranslateError> {
        let mut i = Inst::build(Target::Gfx942, op, Format::Ds).map_err(enc)?;
        for (k, o) in ops.iter().enumerate() {
            i.set_operand(k, *o).map_err(enc)?;
        }
        Ok(with_field(
            with_field(i, F::Offset0, offset & 0xff),
            F::Offset1,
            offset >> 8,
        ))
    };
    let mut out = vec![
        vop3(Op::VMbcntLoU32B32, &[t, ONES, ZERO], at)?,
        vop3(Op::VMbcntHiU32B32, &[t, ONES, t], at)?,
        // base = (t & 48) | (t % 16) / n, as a byte address for ds_bpermute.
        vop3(Op::VBfeU32, &[eo, t, inline(log_n), inline(4 - log_n)], at)?,
        vop3(Op::VAndB32, &[base, inline(48), t], at)?,
        vop3(Op::VOrB32, &[base, base, eo], at)?,
        vop3(Op::VLshlrevB32, &[base, inline(2), base], at)?,
        // eo = (t % n) * bytes.
        vop3(Op::VAndB32, &[eo, inline(n - 1), t], at)?,
        vop3(
            Op::VLshlrevB32,
            &[eo, inline(if bits == 16 { 1 } else { 0 }), eo],
            at,
        )?,
        vop3(Op::VMovB32, &[ones, ONES], at)?,
    ];
    for k in 0..n {
        // Lane group + (16k + t) / n = base lane + k * 16 / n: 4 * 16 / n * k bytes on.
        let step = u32::from(64 / n * k);
        out.push(ds(Op::DsBpermuteB32, &[val(k), base, addr], step)?);
        out.push(ds(Op::DsBpermuteB32, &[mark(k), base, ones], step)?);
    }
    out.push(waitcnt(WAIT_LGKM0, at)?);
    let read = if bits == 16 {
        Op::DsReadU16
    } else {
        Op::DsReadU8
    };
    for k in 0..n {
        out.push(vop3(Op::VAddU32, &[val(k), val(k), eo], at)?);
        out.push(ds(read, &[val(k), val(k)], off)?);
    }
    out.push(waitcnt(WAIT_LGKM0, at)?);
    for k in 0..n {
        out.push(vop3(Op::VAndB32, &[val(k), val(k), mark(k)], at)?);
    }
    // Pack: n / 2 elements per dword, element j at bits j * bits.
    let per = n / 2;
    for w in 0..2u16 {
        let d = v(dst + w);
        let first = val(w * per);
        for j in 1..per {
            let src_prev = if j == 1 { first } else { d };
            out.push(vop3(
                Op::VLshlOrB32,
                &[d, val(w * per + j), inline(j * bits), src_prev],
                at,
            )?);
        }
    }
    scratch.used = scratch.used.max(4 + 2 * n);
    Ok(out)
}

/// One `v_prng_b32` step (see the module notes).
fn prng_step(x: u32) -> u32 {
    (x << 1) ^ if x >> 31 != 0 { 197 } else { 0 }
}

fn expand_prng(
    inst: &Inst,
    scratch: &mut Scratch,
    at: &At<'_>,
) -> Result<Vec<Inst>, TranslateError> {
    if inst.format == Format::Vop3
        && (inst.field(F::Clamp) != 0 || inst.field(F::Omod) != 0 || inst.field(F::OpSel) != 0)
    {
        return Err(unsupported(inst, at, "clamp/omod/op_sel are not handled"));
    }
    let (Some(d @ Operand::Vgpr { .. }), Some(x)) = (inst.operand(0), inst.operand(1)) else {
        return Err(unsupported(inst, at, "unexpected operands"));
    };
    // Constants: integer inline codes 128..=192 are 0..=64, 193..=208 are -1..=-16.
    let constant = match x {
        Operand::Vgpr { .. } | Operand::Sgpr { .. } => None,
        _ => Some(
            int_constant(x).ok_or_else(|| unsupported(inst, at, "float inline constant source"))?,
        ),
    };
    if let Some(k) = constant {
        return Ok(vec![vop1_mov(d, prng_step(k), at)?]);
    }
    let (t, u) = (v(scratch.first), v(scratch.first + 1));
    let out = vec![
        vop3(Op::VAshrrevI32, &[t, Operand::Inline(128 + 31), x], at)?,
        vop2(Op::VAndB32, &[t, Operand::Literal(197), t], at)?,
        vop3(Op::VLshlrevB32, &[u, Operand::Inline(129), x], at)?,
        vop3(Op::VXorB32, &[d, u, t], at)?,
    ];
    scratch.used = scratch.used.max(2);
    Ok(out)
}

fn expand_permlane_swap(
    inst: &Inst,
    half: u16,
    scratch: &mut Scratch,
    at: &At<'_>,
) -> Result<Vec<Inst>, TranslateError> {
    if inst.format == Format::Vop3 && inst.field(F::OpSel) != 0 {
        return Err(unsupported(inst, at, "fi/bound_ctrl are not handled"));
    }
    let (Some(d @ Operand::Vgpr { .. }), Some(src @ Operand::Vgpr { .. })) =
        (inst.operand(0), inst.operand(1))
    else {
        return Err(unsupported(inst, at, "unexpected operands"));
    };
    let enc = |source| TranslateError::Encode {
        kernel: at.kernel.to_string(),
        pc: at.pc,
        source,
    };
    let f = scratch.first;
    let (a, t_s, t_d, pm, hm) = (v(f), v(f + 1), v(f + 2), v(f + 3), v(f + 4));
    let inline = |n: u16| Operand::Inline(128 + n);
    let bperm = |dst: Operand, data: Operand| -> Result<Inst, TranslateError> {
        let mut i = Inst::build(Target::Gfx942, Op::DsBpermuteB32, Format::Ds).map_err(enc)?;
        i.set_operand(0, dst).map_err(enc)?;
        i.set_operand(1, a).map_err(enc)?;
        i.set_operand(2, data).map_err(enc)?;
        Ok(i)
    };
    let shift = if half == 16 { 4 } else { 5 };
    let out = vec![
        vop3(Op::VMbcntLoU32B32, &[a, ONES, ZERO], at)?,
        vop3(Op::VMbcntHiU32B32, &[a, ONES, a], at)?,
        // hm = -1 in the upper half of each group (lane bit log2(h)).
        vop3(Op::VBfeI32, &[hm, a, inline(shift), inline(1)], at)?,
        vop3(Op::VXorB32, &[a, inline(half), a], at)?,
        vop3(Op::VLshlrevB32, &[a, inline(2), a], at)?,
        vop3(Op::VMovB32, &[pm, ONES], at)?,
        bperm(t_s, src)?,
        bperm(t_d, d)?,
        bperm(pm, pm)?,
        waitcnt(WAIT_LGKM0, at)?,
        // Upper lanes of d take s's partner value where the partner is active.
        vop3(Op::VAndB32, &[a, hm, pm], at)?,
        vop3(Op::VBfiB32, &[d, a, t_s, d], at)?,
        // Lower lanes of s take d's old partner value (t_d was read before d changed).
        vop3(Op::VBfiB32, &[a, hm, ZERO, pm], at)?,
        vop3(Op::VBfiB32, &[src, a, t_d, src], at)?,
    ];
    scratch.used = scratch.used.max(5);
    Ok(out)
}

/// A gfx950 LDS DMA load (see the module notes): the 12- and 16-byte forms gfx942
/// lacks, and for hosts without any LDS DMA (gfx1201, `rdna::reencode`) also the dword
/// and sub-dword forms, whose LDS write is one dword per lane holding the zero- or
/// sign-extended value (the model's `exec::flat::lds_dma_extend`), which the same
/// extending load into a VGPR and `ds_write_b32` reproduce.
pub(crate) fn expand_lds_dma(
    inst: &Inst,
    scratch: &mut Scratch,
    at: &At<'_>,
) -> Result<Vec<Inst>, TranslateError> {
    let mubuf = inst.format == Format::Mubuf;
    let (load_op, dwords, global) = match inst.op {
        Op::BufferLoadDwordx3 => (Op::BufferLoadDwordx3, 3u16, false),
        Op::BufferLoadDwordx4 => (Op::BufferLoadDwordx4, 4, false),
        Op::GlobalLoadLdsDwordx3 => (Op::GlobalLoadDwordx3, 3, true),
        Op::GlobalLoadLdsDwordx4 => (Op::GlobalLoadDwordx4, 4, true),
        Op::BufferLoadDword
        | Op::BufferLoadUbyte
        | Op::BufferLoadSbyte
        | Op::BufferLoadUshort
        | Op::BufferLoadSshort
            if mubuf =>
        {
            (inst.op, 1, false)
        }
        Op::GlobalLoadLdsDword => (Op::GlobalLoadDword, 1, true),
        Op::GlobalLoadLdsUbyte => (Op::GlobalLoadUbyte, 1, true),
        Op::GlobalLoadLdsSbyte => (Op::GlobalLoadSbyte, 1, true),
        Op::GlobalLoadLdsUshort => (Op::GlobalLoadUshort, 1, true),
        Op::GlobalLoadLdsSshort => (Op::GlobalLoadSshort, 1, true),
        _ => return Err(unsupported(inst, at, "not an LDS DMA load")),
    };
    if mubuf && inst.field(F::Lds) == 0 {
        return Err(unsupported(inst, at, "not an LDS DMA load"));
    }
    let enc = |source| TranslateError::Encode {
        kernel: at.kernel.to_string(),
        pc: at.pc,
        source,
    };
    // Data tuples start at an even VGPR on gfx90a and later.
    let data = scratch.first.next_multiple_of(2);
    let addr = data + dwords;
    // The load: the guest's fields with the host opcode, the LDS and ACC bits cleared and
    // the data going to the scratch tuple.
    let lay = inst.layout();
    let (Some(opf), Some(lds), Some(vd)) = (
        lay.field(F::Op),
        lay.field(F::Lds),
        lay.field(if global { F::Vdst } else { F::Vdata }),
    ) else {
        return Err(unsupported(inst, at, "unexpected encoding"));
    };
    let built = Inst::build(Target::Gfx942, load_op, inst.format).map_err(enc)?;
    let mut bits =
        inst.bits & !field_mask(opf.lo, opf.bits) | built.bits & field_mask(opf.lo, opf.bits);
    bits = gpu_model::isa::layout::put(bits, lds, 0);
    bits = gpu_model::isa::layout::put(bits, vd, u32::from(data));
    if let Some(acc) = lay.field(F::Acc) {
        bits = gpu_model::isa::layout::put(bits, acc, 0);
    }
    let n = usize::from(inst.len);
    let load = isa::decode(Target::Gfx942, &bits.to_le_bytes()[..n], false)
        .ok()
        .filter(|h| h.op == load_op)
        .ok_or_else(|| unsupported(inst, at, "the load does not re-encode on the host"))?;
    // The instruction offset applies to the LDS address too: 12 bits unsigned (MUBUF),
    // 13 bits signed (global).
    let off = inst.field(F::Offset);
    let off = if global {
        ((off << 19) as i32) >> 19
    } else {
        off as i32
    };
    let m0 = Operand::Sgpr {
        first: 124,
        count: 1,
    };
    let a = v(addr);
    let mut out = vec![
        load,
        waitcnt(WAIT_VM0, at)?,
        // Lane id: mbcnt of all ones below this lane.
        vop3(Op::VMbcntLoU32B32, &[a, ONES, ZERO], at)?,
        vop3(Op::VMbcntHiU32B32, &[a, ONES, a], at)?,
        // lane * bytes + M0 (inline integers 12 and 16 are codes 140 and 144).
        vop3(
            Op::VMadU32U24,
            &[a, a, Operand::Inline(128 + 4 * dwords), m0],
            at,
        )?,
    ];
    let ds_off = if off < 0 {
        // VOP2: GFX9 VOP3 takes no literal.
        let mut add = Inst::build(Target::Gfx942, Op::VAddU32, Format::Vop2).map_err(enc)?;
        for (k, o) in [a, Operand::Literal(off as u32), a].into_iter().enumerate() {
            add.set_operand(k, o).map_err(enc)?;
        }
        out.push(add);
        0
    } else {
        off as u32
    };
    let ds_op = match dwords {
        1 => Op::DsWriteB32,
        3 => Op::DsWriteB96,
        _ => Op::DsWriteB128,
    };
    let mut w = Inst::build(Target::Gfx942, ds_op, Format::Ds).map_err(enc)?;
    w.set_operand(0, a).map_err(enc)?;
    w.set_operand(
        1,
        Operand::Vgpr {
            first: data,
            count: dwords as u8,
        },
    )
    .map_err(enc)?;
    w = with_field(w, F::Offset0, ds_off & 0xff);
    w = with_field(w, F::Offset1, ds_off >> 8);
    out.push(w);
    out.push(waitcnt(WAIT_LGKM0, at)?);
    scratch.used = scratch.used.max(addr + 1 - scratch.first);
    Ok(out)
}

/// `i` with field `f` set to `val` (no-op when the format has no such field).
fn with_field(mut i: Inst, f: F, val: u32) -> Inst {
    if let Some(fl) = i.layout().field(f) {
        i.bits = gpu_model::isa::layout::put(i.bits, fl, val);
    }
    i
}

/// A GFX9 VOP1 instruction `op d, s` (takes a literal, an SGPR or an inline constant).
pub(crate) fn vop1(op: Op, d: Operand, s: Operand, at: &At<'_>) -> Result<Inst, TranslateError> {
    let enc = |source| TranslateError::Encode {
        kernel: at.kernel.to_string(),
        pc: at.pc,
        source,
    };
    let mut i = Inst::build(Target::Gfx942, op, Format::Vop1).map_err(enc)?;
    i.set_operand(0, d).map_err(enc)?;
    i.set_operand(1, s).map_err(enc)?;
    Ok(i)
}

/// Inline integer constant `n` (0..=64).
const fn int(n: u16) -> Operand {
    Operand::Inline(128 + n)
}

/// `y` (a VGPR holding an f32 pattern) becomes a zero of its sign when its exponent field
/// is zero (a denormal flushed), through `n` and `s`: `n = ((y & 0x7f800000) - 1) >> 31`
/// (arithmetic: -1 exactly when the exponent is zero), `s = y & 0x80000000`, `y =
/// v_bfi_b32(n, s, y)`. Literals go in VOP2 src0 (GFX9 VOP3 takes none).
fn flush_denormal(
    y: u16,
    n: u16,
    s: u16,
    out: &mut Vec<Inst>,
    at: &At<'_>,
) -> Result<(), TranslateError> {
    out.push(vop2(
        Op::VAndB32,
        &[v(n), Operand::Literal(0x7f80_0000), v(y)],
        at,
    )?);
    out.push(vop2(Op::VAddU32, &[v(n), ONES, v(n)], at)?);
    out.push(vop2(Op::VAshrrevI32, &[v(n), int(31), v(n)], at)?);
    out.push(vop2(
        Op::VAndB32,
        &[v(s), Operand::Literal(0x8000_0000), v(y)],
        at,
    )?);
    out.push(vop3(Op::VBfiB32, &[v(y), v(n), v(s), v(y)], at)?);
    Ok(())
}

/// `v_cvt_pk_bf16_f32 d, a, b` (CDNA4: two f32 to bf16, `a` into bits 15:0, `b` into
/// 31:16; the model's `exec::cvt::to_16`: nearest even whatever MODE's round field says,
/// f32 input denormals flushed unless MODE[4], bf16 output denormals unless MODE[5], a NaN
/// becomes its upper half with the quiet bit 0x40 set; VOP3 neg/abs read the f32 sign).
/// gfx942 has no bf16 conversion; per source `x` into a scratch VGPR `r`, integer only
/// (no VCC or SGPR is written):
///
/// * `r = x + 0x7fff + bit 16 of x` (`v_bfe_u32`, `v_add3_u32`): nearest even on the
///   upper half; a carry into the exponent rounds up to the next binade or to infinity,
///   as IEEE rounding does;
/// * a NaN (`(x & 0x7fffffff) > 0x7f800000`, made an all-ones mask by `0x7f800000 -
///   that`, shifted arithmetically by 31) takes `x | 0x400000` instead (`v_bfi_b32`);
/// * the descriptor's FLOAT_DENORM_MODE_32 (`denorm32`; a kernel that rewrites MODE at
///   run time is not followed) decides whether `x` (input) and `r` (output) are flushed
///   first ([`flush_denormal`]);
///
/// then `v_perm_b32 d, r_b, r_a, 0x07060302` takes the upper halves (bytes 2, 3 of
/// `r_a` = src1 and 6, 7 of `r_b` = src0; the model's `exec::valu3::perm`). Clamp, omod
/// and op_sel are refused.
fn expand_cvt_pk_bf16(
    inst: &Inst,
    denorm32: u8,
    scratch: &mut Scratch,
    at: &At<'_>,
) -> Result<Vec<Inst>, TranslateError> {
    if inst.format != Format::Vop3
        || inst.field(F::OpSel) != 0
        || inst.field(F::Omod) != 0
        || inst.field(F::Clamp) != 0
    {
        return Err(unsupported(inst, at, "clamp/omod/op_sel are not handled"));
    }
    let (Some(d @ Operand::Vgpr { .. }), Some(a), Some(b)) =
        (inst.operand(0), inst.operand(1), inst.operand(2))
    else {
        return Err(unsupported(inst, at, "unexpected operands"));
    };
    let (neg, abs) = (inst.field(F::Neg), inst.field(F::Abs));
    let f = scratch.first;
    let (k7fff, ksel) = (f, f + 1);
    let mut out = vec![vop1_mov(v(k7fff), 0x7fff, at)?];
    let mut r = [0u16; 2];
    for (k, src) in [a, b].into_iter().enumerate() {
        let base = f + 2 + 4 * k as u16;
        let (x, rr, q, n) = (base, base + 1, base + 2, base + 3);
        let (sabs, sneg) = (abs >> k & 1 != 0, neg >> k & 1 != 0);
        let mut xs = src;
        if !matches!(src, Operand::Vgpr { .. }) || sabs || sneg || denorm32 & 1 == 0 {
            out.push(vop1(Op::VMovB32, v(x), src, at)?);
            xs = v(x);
        }
        if sabs {
            out.push(vop2(
                Op::VAndB32,
                &[v(x), Operand::Literal(0x7fff_ffff), v(x)],
                at,
            )?);
        }
        if sneg {
            out.push(vop2(
                Op::VXorB32,
                &[v(x), Operand::Literal(0x8000_0000), v(x)],
                at,
            )?);
        }
        if denorm32 & 1 == 0 {
            flush_denormal(x, n, q, &mut out, at)?;
        }
        out.push(vop3(Op::VBfeU32, &[v(rr), xs, int(16), int(1)], at)?);
        out.push(vop3(Op::VAdd3U32, &[v(rr), xs, v(rr), v(k7fff)], at)?);
        if denorm32 & 2 == 0 {
            flush_denormal(rr, n, q, &mut out, at)?;
        }
        out.push(vop2(
            Op::VOrB32,
            &[v(q), Operand::Literal(0x40_0000), xs],
            at,
        )?);
        out.push(vop2(
            Op::VAndB32,
            &[v(n), Operand::Literal(0x7fff_ffff), xs],
            at,
        )?);
        out.push(vop2(
            Op::VSubU32,
            &[v(n), Operand::Literal(0x7f80_0000), v(n)],
            at,
        )?);
        out.push(vop2(Op::VAshrrevI32, &[v(n), int(31), v(n)], at)?);
        out.push(vop3(Op::VBfiB32, &[v(rr), v(n), v(q), v(rr)], at)?);
        r[k] = rr;
    }
    out.push(vop1_mov(v(ksel), 0x0706_0302, at)?);
    out.push(vop3(Op::VPermB32, &[d, v(r[1]), v(r[0]), v(ksel)], at)?);
    scratch.used = scratch.used.max(10);
    Ok(out)
}

/// gfx950 `v_mfma_f32_{32x32x64,16x16x128}_f8f6f4` with fp8 A and B (CBSZ = BLGP = 0:
/// OCP E4M3, the model's `exec::matrix` and `exec::minifloat`) on gfx942, whose fp8 MFMAs
/// (`v_mfma_f32_{32x32x16,16x16x32}_fp8_fp8`) read E4M3 FNUZ. The two encodings differ
/// only in the exponent bias (7 against 8) and the special codes (OCP: 0x80 is -0,
/// S.1111.111 NaN, no infinity; FNUZ: 0x80 is the only NaN, every other code finite; OCP
/// spec v1.0 and LLVM's `APFloat` `Float8E4M3FN` / `Float8E4M3FNUZ`), so a finite OCP
/// code read as FNUZ is exactly half its value, denormals included. Each dword of A and
/// B is copied into scratch VGPRs with, per byte, -0 made +0 (FNUZ has no -0; 0 * x adds
/// the same) and NaN made 0x80 (bytewise, no carry crosses a byte: `l = x & 0x7f7f7f7f`;
/// `l + 0x7f` has bit 7 set unless `l` is 0, `l + 1` has it set exactly for NaN):
/// every product is then exactly a quarter of the guest's. So `D = 4 * mfma'(A', B', C /
/// 4)`, the scalings exact (powers of two in f32, barring results below 2^-124 or
/// above the f32 range): `v_mul_f32` by 0.25 of C into D, four narrow MFMAs chained
/// through D over the register pairs of A' and B' (the wide operand holds 32 values per
/// lane, the narrow one 8, and A and B share their k layout, so pairing the same
/// registers of both adds every product of the wide K once; `split_mfma` argues the same
/// for f16), then `v_mul_f32` by 4. Only the order of the f32 additions differs from the
/// model's gfx950 (per 32-wide k block from zero). C = inline 0 skips the first scaling.
/// The fp8 MFMAs both ISAs name (`v_mfma_f32_{32x32x16,16x16x32}_fp8_fp8`, OCP on gfx950)
/// take the same path with their 2-register operands and one host MFMA of the same
/// operation (CBSZ/ABID/BLGP kept: they act on the re-coded registers alike).
/// The converted tuples are kept in [`Fp8Cache`] slots, so MFMAs of the same
/// straight-line code that read the same guest tuple convert it once.
/// Refused: the other formats (CBSZ/BLGP != 0), ABID, AGPR operands, a D overlapping A
/// or B. The VALU steps honour EXEC, the MFMAs do not: compilers issue MFMAs with every
/// lane on, and a partial EXEC here would leave inactive lanes of A'/B' stale.
fn expand_mfma_fp8(
    inst: &Inst,
    narrow: Op,
    dregs: u32,
    scratch: &mut Scratch,
    at: &At<'_>,
    cache: &mut Fp8Cache,
) -> Result<Vec<Inst>, TranslateError> {
    let lay = inst.layout();
    let field = |f: F| lay.field(f);
    let (Some(opf), Some(s0), Some(s1), Some(s2)) =
        (field(F::Op), field(F::Src0), field(F::Src1), field(F::Src2))
    else {
        return Err(unsupported(inst, at, "unexpected encoding"));
    };
    // The f8f6f4 operations (8 registers per operand, split into four narrow MFMAs) or
    // an fp8 MFMA both ISAs have (2 registers, kept whole with its modifiers).
    let wide = narrow != inst.op;
    let (regs, parts): (u16, u32) = if wide { (8, 4) } else { (2, 1) };
    if wide && (inst.field(F::Cbsz) != 0 || inst.field(F::Blgp) != 0) {
        return Err(unsupported(
            inst,
            at,
            "only fp8 (E4M3) A and B are handled (cbsz/blgp select bf8, fp6 or fp4)",
        ));
    }
    if (wide && inst.field(F::Abid) != 0) || inst.field(F::Acc) != 0 || inst.field(F::AccCd) != 0 {
        return Err(unsupported(
            inst,
            at,
            "abid and AGPR operands are not handled",
        ));
    }
    let (a, b, c, d) = (
        inst.field(F::Src0),
        inst.field(F::Src1),
        inst.field(F::Src2),
        inst.field(F::Vdst),
    );
    if a < 256 || b < 256 || !(c >= 256 || c == 128) {
        return Err(unsupported(
            inst,
            at,
            "A, B and C must be VGPRs (C may be 0)",
        ));
    }
    let (a, b) = ((a - 256) as u16, (b - 256) as u16);
    let overlaps =
        |first: u16| u32::from(first) < d + dregs && d < u32::from(first) + u32::from(regs);
    if overlaps(a) || overlaps(b) {
        return Err(unsupported(inst, at, "D overlaps A or B"));
    }
    let enc = |source| TranslateError::Encode {
        kernel: at.kernel.to_string(),
        pc: at.pc,
        source,
    };
    let f = scratch.first;
    let (k7f, k80, k01, l, t, n) = (f, f + 1, f + 2, f + 3, f + 4, f + 5);
    let mut out = Vec::new();
    // The converted tuples: cached ones are reused, the others converted into a slot.
    let mut conv = [0u16; 2];
    for (k, g) in [a, b].into_iter().enumerate() {
        let (slot, fresh) = cache.slot_for((g, regs), if k == 1 { Some((a, regs)) } else { None });
        let y0 = cache.base(f) + 8 * slot;
        conv[k] = y0;
        scratch.used = scratch.used.max(y0 + 8 - f);
        if !fresh {
            continue;
        }
        if out.is_empty() {
            out.extend([
                vop1_mov(v(k7f), 0x7f7f_7f7f, at)?,
                vop1_mov(v(k80), 0x8080_8080, at)?,
                vop1_mov(v(k01), 0x0101_0101, at)?,
            ]);
        }
        for j in 0..regs {
            let (x, y) = (v(g + j), v(y0 + j));
            out.extend([
                vop3(Op::VAndB32, &[v(l), x, v(k7f)], at)?,
                // keep = 0x7f per byte, | 0x80 where the byte is not +-0.
                vop3(Op::VAddU32, &[v(t), v(l), v(k7f)], at)?,
                vop3(Op::VAndOrB32, &[v(t), v(t), v(k80), v(k7f)], at)?,
                // n = 0x80 in NaN bytes; l = 0x7f there.
                vop3(Op::VAddU32, &[v(n), v(l), v(k01)], at)?,
                vop3(Op::VAndB32, &[v(n), v(n), v(k80)], at)?,
                vop3(Op::VLshrrevB32, &[v(l), int(7), v(n)], at)?,
                vop3(Op::VSubU32, &[v(l), v(n), v(l)], at)?,
                // y = x & (keep ^ l) | n: -0 -> 0, NaN -> 0x80, the rest kept.
                vop3(Op::VXorB32, &[v(t), v(t), v(l)], at)?,
                vop3(Op::VAndOrB32, &[y, x, v(t), v(n)], at)?,
            ]);
        }
    }
    scratch.used = scratch.used.max(n + 1 - f);
    let d16 = d as u16;
    if c != 128 {
        let c16 = (c - 256) as u16;
        // 0.25 (not a GFX9 inline constant) as a VOP2 literal.
        for j in 0..dregs as u16 {
            out.push(vop2(
                Op::VMulF32,
                &[v(d16 + j), Operand::Literal(0x3e80_0000), v(c16 + j)],
                at,
            )?);
        }
    }
    let built = Inst::build(Target::Gfx942, narrow, inst.format).map_err(enc)?;
    let m = field_mask(opf.lo, opf.bits);
    let first = inst.bits & !m | built.bits & m;
    let put = gpu_model::isa::layout::put;
    let n_bytes = usize::from(inst.len);
    let (ya, yb) = (u32::from(conv[0]), u32::from(conv[1]));
    for p in 0..parts {
        let src_c = if p == 0 && c == 128 { 128 } else { 256 + d };
        let bits = put(
            put(put(first, s0, 256 + ya + 2 * p), s1, 256 + yb + 2 * p),
            s2,
            src_c,
        );
        let h = isa::decode(Target::Gfx942, &bits.to_le_bytes()[..n_bytes], false)
            .ok()
            .filter(|h| h.op == narrow)
            .ok_or_else(|| unsupported(inst, at, "the fp8 MFMA does not encode on the host"))?;
        out.push(h);
    }
    // 4.0 is inline constant 246.
    for j in 0..dregs as u16 {
        out.push(vop2(
            Op::VMulF32,
            &[v(d16 + j), Operand::Inline(246), v(d16 + j)],
            at,
        )?);
    }
    Ok(out)
}

/// Scratch VGPRs (from the first) that the rules other than the fp8 MFMAs' use at most
/// (`expand_read_tr` of 8-bit elements: 20); the fp8 cache's slots lie above them. A rule
/// that uses more clears the cache ([`lower_in_mode`]).
const FP8_OTHER_RULES: u16 = 20;
/// Converted fp8 tuples kept at once (8 VGPRs each).
const FP8_SLOTS: u16 = 4;

/// The fp8 MFMA operands already re-coded for FNUZ (`expand_mfma_fp8`) in the current
/// straight-line code: a later MFMA reading the same guest tuple reuses the converted
/// copy instead of converting it again. The translator forgets a tuple when a guest
/// instruction may write it, at block leaders, after control flow, on writes to EXEC
/// (the copies were made under the EXEC of their time) and when another rule's scratch
/// use reaches the slots; a kernel that indexes VGPRs through M0 (`s_set_gpr_idx_on`,
/// `v_movrel*`) never caches.
#[derive(Debug, Default)]
pub struct Fp8Cache {
    /// ((guest tuple's first VGPR, its size), slot), least recently used first.
    slots: Vec<((u16, u16), u16)>,
    /// Caching is off for this kernel.
    pub disabled: bool,
}

impl Fp8Cache {
    /// Forgets every tuple.
    pub fn clear(&mut self) {
        self.slots.clear();
    }

    /// The first VGPR of the slots, for scratch VGPRs from `first`.
    fn base(&self, first: u16) -> u16 {
        (first + FP8_OTHER_RULES).next_multiple_of(2)
    }

    /// The slot holding guest tuple `g`, and whether it must be converted now; `keep` is a
    /// tuple the same instruction also reads, whose slot must not be reused.
    fn slot_for(&mut self, g: (u16, u16), keep: Option<(u16, u16)>) -> (u16, bool) {
        if let Some(i) = self.slots.iter().position(|&(t, _)| t == g) {
            let e = self.slots.remove(i);
            self.slots.push(e);
            return (e.1, false);
        }
        if self.disabled {
            // Without a cache the two operands take slots 0 and 1.
            return (u16::from(keep.is_some()), true);
        }
        let slot = if (self.slots.len() as u16) < FP8_SLOTS {
            (0..FP8_SLOTS)
                .find(|s| self.slots.iter().all(|&(_, x)| x != *s))
                .unwrap_or(0)
        } else {
            let i = self
                .slots
                .iter()
                .position(|&(t, _)| Some(t) != keep)
                .unwrap_or(0);
            self.slots.remove(i).1
        };
        self.slots.push((g, slot));
        (slot, true)
    }

    /// Forgets what guest instruction `inst` may change.
    pub fn after(&mut self, inst: &Inst) {
        for a in inst.accesses() {
            if !a.kind.writes() {
                continue;
            }
            match a.file {
                isa::RegFile::Vgpr => {
                    let (lo, hi) = (a.first, a.first + u16::from(a.count));
                    self.slots.retain(|&((t, n), _)| t + n <= lo || hi <= t);
                }
                // EXEC (codes 126, 127).
                isa::RegFile::Sgpr if a.first <= 127 && a.first + u16::from(a.count) > 126 => {
                    self.slots.clear()
                }
                _ => {}
            }
        }
    }
}

/// `t` (a VGPR holding an f32) becomes a zero of its sign when its exponent field is zero,
/// through `n`: `n = (((t & 0x7f800000) - 1) >> 31 arithmetic) >> 1 logical` is 0x7fffffff
/// exactly for a zero exponent, then `t = v_bfi_b32(n, 0, t)` clears what it covers.
fn flush_in_place(t: u16, n: u16, out: &mut Vec<Inst>, at: &At<'_>) -> Result<(), TranslateError> {
    out.push(vop2(
        Op::VAndB32,
        &[v(n), Operand::Literal(0x7f80_0000), v(t)],
        at,
    )?);
    out.push(vop2(Op::VAddU32, &[v(n), ONES, v(n)], at)?);
    out.push(vop2(Op::VAshrrevI32, &[v(n), int(31), v(n)], at)?);
    out.push(vop2(Op::VLshrrevB32, &[v(n), int(1), v(n)], at)?);
    out.push(vop3(Op::VBfiB32, &[v(t), v(n), ZERO, v(t)], at)?);
    Ok(())
}

/// gfx950 `v_dot2_f32_bf16 d, a, b, c` (VOP3P; the model's `exec::valu::dot`, from the
/// CDNA4 guide: the two bf16 products are summed first, then C; the dot instructions
/// "ignore the denormal and rounding modes. They flush input and output denorms": bf16
/// elements, C and the result are flushed to zeros of their sign, every step rounds to
/// nearest even; neg_lo/neg_hi negate the low/high elements of A and B, and of C
/// neg_lo negates and neg_hi takes |C| first). gfx942 has no bf16 dot: each element is
/// widened to its f32 (a bf16 is the upper half of the f32 of the same value) and
/// flushed ([`flush_in_place`]), `v_mul_f32` forms the two products (exact: 8-bit
/// significands; the model's products are host f32 multiplications, not flushed),
/// `v_add_f32` adds them and then C, and the result is flushed. gfx942's f32 arithmetic
/// follows MODE, so this equals the guest only under nearest-even rounding with f32
/// denormals kept: another descriptor FLOAT_MODE is refused, as are op_sel, op_sel_hi
/// other than the default and clamp.
fn expand_dot2_bf16(
    inst: &Inst,
    float_mode: u8,
    scratch: &mut Scratch,
    at: &At<'_>,
) -> Result<Vec<Inst>, TranslateError> {
    if float_mode & 0x33 != 0x30 {
        return Err(unsupported(
            inst,
            at,
            "the kernel's f32 MODE is not nearest even with denormals kept, which the gfx942 arithmetic needs",
        ));
    }
    if inst.format != Format::Vop3p
        || inst.field(F::OpSel) != 0
        || inst.field(F::OpSelHi) != 3
        || inst.field(F::OpSelHi2) != 1
        || inst.field(F::Clamp) != 0
    {
        return Err(unsupported(
            inst,
            at,
            "op_sel/op_sel_hi/clamp are not handled",
        ));
    }
    let (Some(d @ Operand::Vgpr { .. }), Some(a), Some(b), Some(c)) = (
        inst.operand(0),
        inst.operand(1),
        inst.operand(2),
        inst.operand(3),
    ) else {
        return Err(unsupported(inst, at, "unexpected operands"));
    };
    let (neg_lo, neg_hi) = (inst.field(F::Neg), inst.field(F::NegHi));
    let f = scratch.first;
    // Elements a0 a1 b0 b1, C, the mask temporary.
    let (a0, a1, b0, b1, tc, n) = (f, f + 1, f + 2, f + 3, f + 4, f + 5);
    let mut out = Vec::new();
    let sign = |t: u16, out: &mut Vec<Inst>| -> Result<(), TranslateError> {
        out.push(vop2(
            Op::VXorB32,
            &[v(t), Operand::Literal(0x8000_0000), v(t)],
            at,
        )?);
        Ok(())
    };
    for (k, (src, lo, hi)) in [(a, a0, a1), (b, b0, b1)].into_iter().enumerate() {
        let bad = |o: Operand| !matches!(o, Operand::Vgpr { .. } | Operand::Sgpr { .. });
        let src = if bad(src) {
            out.push(vop1(Op::VMovB32, v(hi), src, at)?);
            v(hi)
        } else {
            src
        };
        out.push(vop3(Op::VLshlrevB32, &[v(lo), int(16), src], at)?);
        out.push(vop3(Op::VLshrrevB32, &[v(hi), int(16), src], at)?);
        out.push(vop3(Op::VLshlrevB32, &[v(hi), int(16), v(hi)], at)?);
        for t in [lo, hi] {
            flush_in_place(t, n, &mut out, at)?;
        }
        if neg_lo >> k & 1 != 0 {
            sign(lo, &mut out)?;
        }
        if neg_hi >> k & 1 != 0 {
            sign(hi, &mut out)?;
        }
    }
    out.push(vop1(Op::VMovB32, v(tc), c, at)?);
    if neg_hi & 4 != 0 {
        out.push(vop2(
            Op::VAndB32,
            &[v(tc), Operand::Literal(0x7fff_ffff), v(tc)],
            at,
        )?);
    }
    if neg_lo & 4 != 0 {
        sign(tc, &mut out)?;
    }
    flush_in_place(tc, n, &mut out, at)?;
    out.push(vop3(Op::VMulF32, &[v(a0), v(a0), v(b0)], at)?);
    out.push(vop3(Op::VMulF32, &[v(a1), v(a1), v(b1)], at)?);
    out.push(vop3(Op::VAddF32, &[v(a0), v(a0), v(a1)], at)?);
    out.push(vop3(Op::VAddF32, &[v(a0), v(a0), v(tc)], at)?);
    flush_in_place(a0, n, &mut out, at)?;
    out.push(vop1(Op::VMovB32, d, v(a0), at)?);
    scratch.used = scratch.used.max(6);
    Ok(out)
}
