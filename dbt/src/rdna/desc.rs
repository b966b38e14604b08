//! The gfx1201 kernel descriptor of a gfx950 kernel, and its entry prologue.
//!
//! Field layouts: LLVM AMDGPUUsage "Kernel Descriptor" and COMPUTE_PGM_RSRC1/2/3 tables
//! (../shared/CODE-OBJECT.md), checked against clang-22's own gfx1201 wave64 build of
//! the same corpus kernels (corpus/build/gfx1201-w64: `vadd` has rsrc1 0xe00f0001,
//! rsrc2 0x84, rsrc3 0x20, properties 0x0008 where the gfx950 build has 0x00af0040,
//! 0x84, 0x1, 0x0008).
//!
//! * RSRC1: GRANULATED_WORKITEM_VGPR_COUNT in wave64 granules of 4 VGPRs
//!   (`ceil(n/4) - 1`); GRANULATED_WAVEFRONT_SGPR_COUNT is reserved (0) on GFX10+;
//!   FLOAT_MODE and FP16_OVFL are kept; GFX9's PRIV, DX10_CLAMP and IEEE_MODE bits are
//!   cleared (bits 21 and 23 are WG_RR_EN and DISABLE_PERF on GFX12, and GFX12 has
//!   no IEEE mode: its min/max are the IEEE 754-2019 `*_num` operations, which is
//!   what `v_max_f32` -> `v_max_num_f32` relies on; they differ only on signalling
//!   NaN inputs); WGP_MODE, MEM_ORDERED and FWD_PROGRESS are set as clang-22 sets
//!   them by default for gfx1201.
//! * RSRC2 has the same fields on GFX9 and GFX12 for what compute kernels use (user
//!   SGPR count, workgroup-id enables, work-item-id VGPRs, exceptions): kept.
//! * RSRC3: CDNA's ACCUM_OFFSET/TG_SPLIT do not exist; GFX12 INST_PREF_SIZE (11:4) is
//!   the code size in 128-byte lines, as LLVM sets it (its test
//!   `inst-prefetch-hint`: `.amdhsa_inst_pref_size 4` for a 4xx-byte gfx1200 kernel).
//! * kernel_code_properties: ENABLE_WAVEFRONT_SIZE32 (bit 10) stays clear: wave64.
//! * KERNARG_PRELOAD: cleared (gfx1201 does not preload; the guest's compatibility
//!   code at the entry loads those SGPRs itself).
//!
//! Initial SGPRs: user SGPRs are assigned alike on both. GFX9 then places the enabled
//! workgroup ids X, Y, Z in SGPRs after the user SGPRs; GFX12 ("architected SGPRs")
//! leaves them in TTMP9 (X) and TTMP7 (Y in 15:0, Z in 31:16) (AMDGPUUsage, "Initial
//! kernel execution state", GFX12; clang-22 reads `ttmp9` for the workgroup id on
//! gfx1201). The prologue copies them to where the gfx950 code reads them.

use super::reencode::HOST;
use crate::cfg::Cfg;
use crate::error::TranslateError;
use crate::Plan;
use gpu_model::isa::layout::Format;
use gpu_model::isa::{Inst, Op, Operand};
use gpu_model::loader::KernelDescriptor;
use gpu_model::Target;

/// TTMP7 and TTMP9 as scalar operand codes (TTMP0 is 108 on GFX12).
const TTMP7: u16 = 115;
const TTMP9: u16 = 117;

/// Refuses what the gfx1201 descriptor cannot express yet; returns the guest's
/// descriptor.
pub(crate) fn check(p: &Plan, guest: Target) -> Result<KernelDescriptor, TranslateError> {
    let d = p.kd;
    let no = |reason: &str| TranslateError::Unsupported {
        kernel: p.name.clone(),
        reason: format!("{reason} (gfx1201 host)"),
    };
    if guest != Target::Gfx950 {
        return Err(TranslateError::UnsupportedPair { guest, host: HOST });
    }
    if d.enables(gpu_model::loader::UserSgpr::PrivateSegmentBuffer) {
        return Err(no("asks for a private segment buffer"));
    }
    if d.enable_workgroup_info() {
        return Err(no("asks for the workgroup-info SGPR"));
    }
    Ok(d)
}

/// The prologue of the kernel `p` that rebuilds the GFX9 system SGPRs (workgroup ids)
/// from TTMPs, each one only where the kernel may read that SGPR before writing it at
/// one of its entries (clang enables the workgroup id X SGPR of a kernel that never reads
/// it and reuses the register: `device_global_read` writes it with `s_getpc_b64` first).
pub(crate) fn prologue(p: &Plan, cfg: &Cfg) -> Result<Vec<Inst>, TranslateError> {
    let (d, kernel) = (&p.kd, p.name.as_str());
    let live = |r: u16| {
        p.roots
            .iter()
            .any(|&e| crate::scope::sgpr_live_at(cfg, e, r))
    };
    let enc = |source| TranslateError::Encode {
        kernel: kernel.to_string(),
        pc: 0,
        source,
    };
    let mut out = Vec::new();
    let mut s = d.user_sgpr_count() as u16;
    let sg = |r: u16| Operand::Sgpr { first: r, count: 1 };
    let mk = |op: Op, f: Format, ops: &[Operand]| -> Result<Inst, TranslateError> {
        let mut i = Inst::build(HOST, op, f).map_err(enc)?;
        for (k, o) in ops.iter().enumerate() {
            i.set_operand(k, *o).map_err(enc)?;
        }
        Ok(i)
    };
    if d.enable_workgroup_id_x() {
        if live(s) {
            out.push(mk(Op::SMovB32, Format::Sop1, &[sg(s), sg(TTMP9)])?);
        }
        s += 1;
    }
    if d.enable_workgroup_id_y() {
        if live(s) {
            out.push(mk(
                Op::SAndB32,
                Format::Sop2,
                &[sg(s), sg(TTMP7), Operand::Literal(0xffff)],
            )?);
        }
        s += 1;
    }
    if d.enable_workgroup_id_z() && live(s) {
        // Inline constant 16 is source code 144.
        out.push(mk(
            Op::SLshrB32,
            Format::Sop2,
            &[sg(s), sg(TTMP7), Operand::Inline(144)],
        )?);
    }
    Ok(out)
}

/// The gfx1201 descriptor: `entry_offset` from the descriptor, `vgprs` arch VGPRs,
/// `code_bytes` of translated code (see the module doc for each field).
pub(crate) fn host_descriptor(
    g: &KernelDescriptor,
    entry_offset: i64,
    vgprs: u32,
    code_bytes: usize,
) -> KernelDescriptor {
    let mut d = *g;
    d.kernel_code_entry_byte_offset = entry_offset;
    let vg = vgprs.div_ceil(4).max(1) - 1;
    // Keep FLOAT_MODE (19:12) and FP16_OVFL (26); WGP_MODE | MEM_ORDERED | FWD_PROGRESS.
    d.compute_pgm_rsrc1 = vg | (g.compute_pgm_rsrc1 & (0xff << 12 | 1 << 26)) | 0b111 << 29;
    let pref = code_bytes.div_ceil(128).min(255) as u32;
    d.compute_pgm_rsrc3 = pref << 4;
    d.kernel_code_properties &= !(1 << 10);
    // No preload on gfx1201 (see `rdna::translate`); USER_SGPR_COUNT keeps counting the
    // preload SGPRs, so the system SGPRs stay where the guest code reads them.
    d.kernarg_preload = 0;
    d
}
