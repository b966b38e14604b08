//! Virtual LDS: the sidecar variant of a kernel that needs more LDS than the host has
//! (../shared/seeds/000_*-dbt-design.txt, "Sidecars and Virtual LDS").
//!
//! The sidecar advertises no hardware LDS. Its entry prologue reads the design's
//! `VirtualLdsDispatchState` (u64 backing base, u32 strides x/y/z, u32 reserved) that the
//! runtime puts into a kernarg wrapper after the guest's bytes, and computes the
//! workgroup's slice of the backing into a permanent SGPR pair `B` above every SGPR the
//! kernel touches:
//!
//! ```text
//!   s_load_dwordx4 s[B:B+3], s[kernarg:kernarg+1], state   ; base, stride_x, stride_y
//!   s_waitcnt lgkmcnt(0)
//!   s_mul_i32  s[B+2], s[B+2], s[wg_x]        ; for each enabled workgroup id:
//!   s_add_u32  s[B],   s[B],   s[B+2]         ;   B += id * stride
//!   s_addc_u32 s[B+1], s[B+1], 0
//!   (y: stride_y is in s[B+3]; z: s_load_dword s[B+2] of stride_z first)
//! ```
//!
//! Every DS instruction that reads or writes LDS storage becomes the global access of the
//! same width at `B + zext(address) + offset` (GLOBAL with SADDR: a 32-bit VGPR offset
//! from a 64-bit SGPR base, LLVM AMDGPUUsage "global" addressing), followed by
//! `s_waitcnt vmcnt(0)`: the access is complete before the next instruction, so the
//! program's own LGKM waits and barriers order it as they ordered the LDS access.
//! ASSUMPTION: a workgroup's waves share one CU and its write-through vector L1 (gfx942
//! outside threadgroup-split mode, LLVM AMDGPUUsage memory model), so a completed store
//! is seen by the other waves' later loads as LDS would be. ASSUMPTION: the guest stays
//! inside its LDS allocation (out-of-range LDS accesses, which hardware drops or reads as
//! 0, are not emulated; they reach the backing of another workgroup or beyond).
//!
//! Cross-lane DS operations that touch no LDS storage (`ds_bpermute_b32`,
//! `ds_permute_b32`, `ds_swizzle_b32`, `ds_nop`) stay native. Every other DS operation
//! (atomics, `ds_read_*_tr_*`, GDS, ...) and LDS DMA (`buffer_load_* lds`,
//! `global_load_lds_*`) rejects the sidecar by name.

use crate::error::TranslateError;
use crate::rules::{self, At, Scratch};
use gpu_model::isa::layout::{Format, F};
use gpu_model::isa::{self, Inst, Op, Operand};
use gpu_model::Target;

/// How a DS storage operation is lowered: the global operation, whether it stores, the
/// number of accesses (2 for read2/write2) and the bytes by which each `offsetN` counts.
struct Storage {
    global: Op,
    store: bool,
    two: bool,
    scale: u32,
}

fn storage(op: Op) -> Option<Storage> {
    use Op::*;
    let s = |global, store, two, scale| {
        Some(Storage {
            global,
            store,
            two,
            scale,
        })
    };
    match op {
        DsReadB32 => s(GlobalLoadDword, false, false, 1),
        DsReadB64 => s(GlobalLoadDwordx2, false, false, 1),
        DsReadB96 => s(GlobalLoadDwordx3, false, false, 1),
        DsReadB128 => s(GlobalLoadDwordx4, false, false, 1),
        DsReadU8 => s(GlobalLoadUbyte, false, false, 1),
        DsReadI8 => s(GlobalLoadSbyte, false, false, 1),
        DsReadU16 => s(GlobalLoadUshort, false, false, 1),
        DsReadI16 => s(GlobalLoadSshort, false, false, 1),
        DsWriteB8 => s(GlobalStoreByte, true, false, 1),
        DsWriteB16 => s(GlobalStoreShort, true, false, 1),
        DsWriteB32 => s(GlobalStoreDword, true, false, 1),
        DsWriteB64 => s(GlobalStoreDwordx2, true, false, 1),
        DsWriteB96 => s(GlobalStoreDwordx3, true, false, 1),
        DsWriteB128 => s(GlobalStoreDwordx4, true, false, 1),
        DsRead2B32 => s(GlobalLoadDword, false, true, 4),
        DsRead2B64 => s(GlobalLoadDwordx2, false, true, 8),
        DsRead2st64B32 => s(GlobalLoadDword, false, true, 4 * 64),
        DsRead2st64B64 => s(GlobalLoadDwordx2, false, true, 8 * 64),
        DsWrite2B32 => s(GlobalStoreDword, true, true, 4),
        DsWrite2B64 => s(GlobalStoreDwordx2, true, true, 8),
        DsWrite2st64B32 => s(GlobalStoreDword, true, true, 4 * 64),
        DsWrite2st64B64 => s(GlobalStoreDwordx2, true, true, 8 * 64),
        _ => None,
    }
}

/// Whether `op` is an LDS DMA load (writes LDS from the vector memory path).
fn lds_dma(inst: &Inst) -> bool {
    matches!(inst.format, Format::Mubuf | Format::Global | Format::Flat)
        && inst.layout().field(F::Lds).is_some()
        && inst.field(F::Lds) != 0
        || matches!(inst.op, Op::GlobalLoadLdsDwordx3 | Op::GlobalLoadLdsDwordx4)
}

/// Dwords of a global operation's data.
fn dwords(op: Op) -> u8 {
    match op {
        Op::GlobalLoadDwordx2 | Op::GlobalStoreDwordx2 => 2,
        Op::GlobalLoadDwordx3 | Op::GlobalStoreDwordx3 => 3,
        Op::GlobalLoadDwordx4 | Op::GlobalStoreDwordx4 => 4,
        _ => 1,
    }
}

/// The virtual-LDS form of `inst` for a sidecar whose slice base is in `s[base:base+1]`:
/// `None` when `inst` touches no LDS storage (it keeps its ordinary lowering).
pub fn lower(
    inst: &Inst,
    base: u16,
    scratch: &mut Scratch,
    at: &At<'_>,
) -> Result<Option<Vec<Inst>>, TranslateError> {
    let refuse = |reason: &'static str| TranslateError::UnsupportedForm {
        kernel: at.kernel.to_string(),
        pc: at.pc,
        text: inst.to_string(),
        reason,
    };
    if lds_dma(inst) {
        return Err(refuse(
            "an LDS DMA load cannot write virtual LDS (sidecar for a kernel over the host's LDS)",
        ));
    }
    if inst.format != Format::Ds {
        return Ok(None);
    }
    if matches!(
        inst.op,
        Op::DsBpermuteB32 | Op::DsPermuteB32 | Op::DsSwizzleB32 | Op::DsNop
    ) {
        return Ok(None);
    }
    let Some(st) = storage(inst.op) else {
        return Err(refuse(
            "this LDS operation has no virtual-LDS lowering (sidecar for a kernel over the host's LDS)",
        ));
    };
    if inst.field(F::Gds) != 0 {
        return Err(refuse("GDS is not LDS"));
    }
    let acc = inst.field(F::Acc);
    let addr = inst.field(F::Addr) as u16;
    let n = dwords(st.global);
    let (o0, o1) = (inst.field(F::Offset0), inst.field(F::Offset1));
    let offsets: Vec<u32> = if st.two {
        vec![o0 * st.scale, o1 * st.scale]
    } else {
        vec![o0 | o1 << 8]
    };
    // Data registers of each access.
    let data: Vec<u16> = if st.store {
        let (d0, d1) = (inst.field(F::Data0) as u16, inst.field(F::Data1) as u16);
        if st.two {
            vec![d0, d1]
        } else {
            vec![d0]
        }
    } else {
        let d = inst.field(F::Vdst) as u16;
        (0..offsets.len() as u16)
            .map(|k| d + k * u16::from(n))
            .collect()
    };
    // A read2 whose first destination overwrites the address before the second access
    // reads it: both take the address from a scratch copy.
    let dst_hits_addr = !st.store && st.two && (data[0]..data[0] + u16::from(n)).contains(&addr);
    let mut out = Vec::new();
    let mut src = addr;
    let mut used = 0u16;
    if dst_hits_addr {
        src = scratch.first;
        out.push(rules::vop1(Op::VMovB32, rules::v(src), rules::v(addr), at)?);
        used = 1;
    }
    for (&off, &d) in offsets.iter().zip(&data) {
        // GFX9 GLOBAL offsets are 13 bits signed: 0..=4095 fit.
        let (vaddr, imm) = if off <= 4095 {
            (src, off)
        } else {
            let t = scratch.first + 1;
            out.push(rules::vop2(
                Op::VAddU32,
                &[rules::v(t), Operand::Literal(off), rules::v(src)],
                at,
            )?);
            used = 2;
            (t, 0)
        };
        out.push(global(st.global, st.store, d, vaddr, base, imm, acc, at)?);
    }
    out.push(rules::waitcnt(rules::WAIT_VM0, at)?);
    scratch.used = scratch.used.max(used);
    Ok(Some(out))
}

/// `op` (GLOBAL, SADDR form) with `data` as its destination or source VGPR, `vaddr` the
/// 32-bit offset VGPR, `s[saddr:saddr+1]` the base and `imm` the instruction offset.
#[allow(clippy::too_many_arguments)]
fn global(
    op: Op,
    store: bool,
    data: u16,
    vaddr: u16,
    saddr: u16,
    imm: u32,
    acc: u32,
    at: &At<'_>,
) -> Result<Inst, TranslateError> {
    let mut fields = vec![
        (F::Addr, u32::from(vaddr)),
        (F::Saddr, u32::from(saddr)),
        (F::Offset, imm),
        (F::Acc, acc),
    ];
    fields.push((if store { F::Data } else { F::Vdst }, u32::from(data)));
    raw(op, Format::Global, &fields, at)
}

/// A gfx942 `op` in `format` with the given raw field values, checked by decoding it.
pub(crate) fn raw(
    op: Op,
    format: Format,
    fields: &[(F, u32)],
    at: &At<'_>,
) -> Result<Inst, TranslateError> {
    let enc = |source| TranslateError::Encode {
        kernel: at.kernel.to_string(),
        pc: at.pc,
        source,
    };
    let mut i = Inst::build(Target::Gfx942, op, format).map_err(enc)?;
    for &(f, val) in fields {
        if let Some(fl) = i.layout().field(f) {
            i.bits = gpu_model::isa::layout::put(i.bits, fl, val);
        }
    }
    let mut buf = [0u8; 20];
    let n = isa::encode(&i, &mut buf).map_err(enc)?;
    isa::decode(Target::Gfx942, &buf[..n], false)
        .ok()
        .filter(|d| d.op == op)
        .ok_or_else(|| TranslateError::UnsupportedForm {
            kernel: at.kernel.to_string(),
            pc: at.pc,
            text: format!("{op:?}"),
            reason: "the virtual-LDS form does not encode on the host",
        })
}

/// The sidecar entry prologue (see the module notes): `kernarg` is the first SGPR of the
/// kernarg pointer, `wg` the workgroup-id SGPRs (x, y, z; `None` when the descriptor does
/// not enable one), `state` the dispatch state's offset in the kernarg segment and `base`
/// the first of the four SGPRs the prologue uses (the slice base stays in the first two).
pub fn prologue(
    kernarg: u16,
    wg: [Option<u16>; 3],
    state: u32,
    base: u16,
    at: &At<'_>,
) -> Result<Vec<Inst>, TranslateError> {
    let s = |r: u16| u32::from(r);
    let smem = |op: Op, sdata: u16, off: u32| {
        raw(
            op,
            Format::Smem,
            &[
                (F::Sbase, s(kernarg) / 2),
                (F::Sdata, s(sdata)),
                (F::Offset, off),
                (F::Imm, 1),
            ],
            at,
        )
    };
    let sop2 = |op: Op, d: u16, a: u32, b: u32| {
        raw(
            op,
            Format::Sop2,
            &[(F::Sdst, s(d)), (F::Src0, a), (F::Src1, b)],
            at,
        )
    };
    let mut out = vec![
        smem(Op::SLoadDwordx4, base, state)?,
        rules::waitcnt(rules::WAIT_LGKM0, at)?,
    ];
    // Inline constant 0 is source code 128.
    let add = |out: &mut Vec<Inst>, t: u16| -> Result<(), TranslateError> {
        out.push(sop2(Op::SAddU32, base, s(base), s(t))?);
        out.push(sop2(Op::SAddcU32, base + 1, s(base + 1), 128)?);
        Ok(())
    };
    if let Some(x) = wg[0] {
        out.push(sop2(Op::SMulI32, base + 2, s(base + 2), s(x))?);
        add(&mut out, base + 2)?;
    }
    if let Some(y) = wg[1] {
        out.push(sop2(Op::SMulI32, base + 3, s(base + 3), s(y))?);
        add(&mut out, base + 3)?;
    }
    if let Some(z) = wg[2] {
        out.push(smem(Op::SLoadDword, base + 2, state + 16)?);
        out.push(rules::waitcnt(rules::WAIT_LGKM0, at)?);
        out.push(sop2(Op::SMulI32, base + 2, s(base + 2), s(z))?);
        add(&mut out, base + 2)?;
    }
    Ok(out)
}
