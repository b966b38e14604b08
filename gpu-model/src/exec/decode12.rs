//! GFX12 (gfx1200, gfx1201) front end: the shared decoder ([`crate::isa`]) identifies the
//! instruction and reads its fields; this module maps the operation onto the executor's
//! [`Op`] by name and fills the executor's [`Inst`] in the shape the GFX9 front end uses,
//! so the semantics are shared by both families.
//!
//! Differences from GFX9 that are normalised here:
//! - register codes: GFX12 puts M0 at 125 and NULL at 124. The executor keeps the GFX9
//!   numbering (M0 = 124); NULL becomes code 128, which reads as the inline constant 0
//!   and is never written (codes >= 128 are not writable);
//! - renamed operations (`s_and_not1_b32` = `s_andn2_b32`, `global_load_b32` =
//!   `global_load_dword`, `v_add_nc_u32` = `v_add_u32`, ...; `names::RENAMES`);
//! - `v_cmpx_*` writes EXEC only (GFX9 also writes the SGPR destination);
//! - memory fields (24-bit offsets, `th`/`scope`, `sve`, VBUFFER `rsrc`/`soffset`/`offen`/
//!   `idxen`) go into [`Mem`]; buffer operations reuse the GFX9 MUBUF operations
//!   (`buffer_load_b32` = `buffer_load_dword`), and [`super::mubuf`] reads the GFX12 buffer
//!   descriptor layout;
//! - VOPD (dual issue) becomes one instruction of encoding [`Enc::Vopd`] whose `y` field
//!   holds the second half; DPP16 and DPP8 (VOP1/VOP2/VOPC with src0 = 250, 233, 234) are
//!   decoded around the shared decoder: the operation comes from the word with a plain
//!   VGPR in src0, the DPP dword is kept in `w1`.

use super::decode::{DecodeFail, Half, Inst, Mem, Seg, Sub};
use super::op::{Enc, Op};
use crate::isa::{self, layout::F, DecodeError, Format};
use crate::Target;
use names::lookup;

mod names;

/// The executor's code for a GFX12 scalar register code (see the module docs).
#[inline]
fn sreg(c: u32) -> u16 {
    match c {
        124 => 128,
        125 => 124,
        _ => c as u16,
    }
}

/// The executor's code for a 9-bit source operand.
#[inline]
fn src9(c: u32) -> u16 {
    if c < 256 {
        sreg(c)
    } else {
        c as u16
    }
}

/// Sign-extends a 24-bit offset.
#[inline]
fn sext24(v: u32) -> i32 {
    ((v << 8) as i32) >> 8
}

/// Converts a shared-decoder error.
fn fail(e: DecodeError) -> DecodeFail {
    match e {
        DecodeError::Truncated { .. } => DecodeFail::Truncated,
        DecodeError::InvalidOpcode { format, opcode, .. } => DecodeFail::Opcode {
            format,
            opcode: opcode as u16,
        },
        DecodeError::InvalidField { field, .. } => DecodeFail::Format(field),
        DecodeError::Unsupported { what, .. } => DecodeFail::Format(what),
    }
}

fn word(bytes: &[u8], i: usize) -> Result<u32, DecodeFail> {
    let b = bytes.get(4 * i..4 * i + 4).ok_or(DecodeFail::Truncated)?;
    Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Decodes the GFX12 instruction at the start of `bytes`.
pub fn decode_gfx12(target: Target, bytes: &[u8]) -> Result<Inst, DecodeFail> {
    let w0 = word(bytes, 0)?;
    if w0 & 0xFC00_0000 == 0xC800_0000 {
        return vopd(bytes, w0);
    }
    // VOP1/VOP2/VOPC (bit 31 clear) with a DPP marker in src0.
    if w0 >> 31 == 0 && matches!(w0 & 0x1ff, 233 | 234 | 250) {
        let w1 = word(bytes, 1)?;
        // The operation and the other fields, with a plain VGPR in src0.
        let plain = ((w0 & !0x1ff) | 256).to_le_bytes();
        let inst = isa::decode(target, &plain, true).map_err(fail)?;
        let mut i = build(&inst, w0)?;
        i.src[0] = 256 + (w1 & 0xff) as u16;
        i.w1 = w1;
        i.len = 8;
        i.lit = 0;
        // The DPP dword's src0 field carries the true16 half bit like the VOP field.
        let mask = t16_fields(i.op) & 1;
        half_split(&mut i, mask);
        match w0 & 0x1ff {
            // DPP8: no input modifiers; the rest of the dword is the lane selects.
            233 => i.sub = Sub::Dpp8,
            234 => i.sub = Sub::Dpp8Fi,
            _ => {
                i.sub = Sub::Dpp;
                (i.neg, i.abs) = super::decode::dpp_mods(w1);
            }
        }
        return Ok(i);
    }
    // VOP3/VOP3b with a DPP marker in src0: a third dword holds the DPP control.
    if w0 >> 26 == 0x35 {
        let w1 = word(bytes, 1)?;
        if matches!(w1 & 0x1ff, 233 | 234 | 250) {
            return vop3_dpp(target, bytes, w0, w1);
        }
    }
    match isa::decode(target, bytes, true) {
        Ok(inst) => build(&inst, w0),
        Err(e) => permlane16_vop3(bytes, w0).unwrap_or(Err(fail(e))),
    }
}

/// GFX12 VOP3 (and VOP3b) DPP16/DPP8 (`v_add3_u32_e64_dpp`, ...; llvm-mc-22
/// `-show-encoding`): the VOP3 words with src0 = 250 (DPP16), 233 (DPP8) or 234 (DPP8 with
/// fetch-inactive), then the DPP dword, laid out as for VOP1/VOP2 (`[7:0]` src0 VGPR, then
/// the DPP16 control or the DPP8 lane selects). Decoded around the shared decoder like the
/// VOP1/VOP2 forms: the operation and the VOP3 fields come from the two VOP3 words with the
/// DPP dword's VGPR as src0; the DPP dword goes to `w1`, where the lane code reads it. The
/// source modifiers stay in the VOP3 `neg`/`abs` fields (LLVM leaves the DPP dword's
/// modifier bits 0 for VOP3). Operations whose semantics read a source without the lane
/// selection (64-bit operands, scalar-source and cross-lane operations) are refused.
fn vop3_dpp(target: Target, bytes: &[u8], w0: u32, w1: u32) -> Result<Inst, DecodeFail> {
    let w2 = word(bytes, 2)?;
    let mut plain = [0u8; 8];
    plain[..4].copy_from_slice(&w0.to_le_bytes());
    plain[4..].copy_from_slice(&((w1 & !0x1ff) | (256 + (w2 & 0xff))).to_le_bytes());
    let inst = isa::decode(target, &plain, true).map_err(fail)?;
    let mut i = build(&inst, w0)?;
    if !dpp_capable(i.op) {
        return Err(DecodeFail::Unimplemented(inst.mnemonic()));
    }
    i.w1 = w2;
    i.len = 12;
    i.lit = 0;
    i.sub = match w1 & 0x1ff {
        233 => Sub::Dpp8,
        234 => Sub::Dpp8Fi,
        _ => Sub::Dpp,
    };
    Ok(i)
}

/// Whether the executor reads source 0 of `op` through the lane-selecting path (DPP).
fn dpp_capable(op: Op) -> bool {
    use Op::*;
    let name = op.name();
    !(name.ends_with("f64")
        || name.ends_with("b64")
        || name.ends_with("u64")
        || name.ends_with("i64")
        || name.contains("64_")
        || matches!(
            op,
            VReadlaneB32
                | VWritelaneB32
                | VReadfirstlaneB32
                | VPermlane16B32
                | VPermlanex16B32
                | VPermlane16VarB32
                | VPermlanex16VarB32
                | VSRcpF32
                | VSRsqF32
                | VSSqrtF32
                | VSExpF32
                | VSLogF32
                | VFmaF16
                | VMovB64
                | VSwapB32
        ))
}

/// `v_permlane16_b32` / `v_permlanex16_b32` (VOP3 opcodes 0x25b / 0x25c, llvm-mc-22
/// `-show-encoding` on gfx1200 and gfx1201), decoded here because the shared decoder's
/// generated GFX12 table has no valid operand list for them yet (it rejects the `vdst`
/// field). VOP3 layout: `[7:0]` vdst, `[14:11]` op_sel (FI, BOUND_CTRL), `[25:16]`
/// opcode, `[31:26]` = 0x35; second dword src0 `[8:0]`, src1 `[17:9]`, src2 `[26:18]`;
/// a literal dword follows when a scalar source is 255. `None`: not one of these.
fn permlane16_vop3(bytes: &[u8], w0: u32) -> Option<Result<Inst, DecodeFail>> {
    if w0 >> 26 != 0x35 {
        return None;
    }
    let op = match (w0 >> 16) & 0x3ff {
        0x25b => Op::VPermlane16B32,
        0x25c => Op::VPermlanex16B32,
        _ => return None,
    };
    Some((|| {
        let w1 = word(bytes, 1)?;
        let mut i = Inst::new(op, Enc::Vop3, w0, w1);
        i.len = 8;
        i.dst = (w0 & 0xff) as u16;
        i.op_sel = ((w0 >> 11) & 0xf) as u8;
        i.src = [
            src9(w1 & 0x1ff),
            src9((w1 >> 9) & 0x1ff),
            src9((w1 >> 18) & 0x1ff),
        ];
        if i.src.contains(&255) {
            i.lit = word(bytes, 2)?;
            i.len = 12;
        }
        i.t16 = true;
        Ok(i)
    })())
}

/// The executor instruction for a decoded GFX12 instruction.
fn build(inst: &isa::Inst, w0: u32) -> Result<Inst, DecodeFail> {
    let m = lookup(inst.op.name()).ok_or(DecodeFail::Unimplemented(inst.mnemonic()))?;
    let f = |x: F| inst.field(x);
    let enc = match inst.format {
        Format::Sop1 => Enc::Sop1,
        Format::Sop2 => Enc::Sop2,
        Format::Sopc => Enc::Sopc,
        Format::Sopk => Enc::Sopk,
        Format::Sopp => Enc::Sopp,
        Format::Smem => Enc::Smem,
        Format::Vop1 => Enc::Vop1,
        Format::Vop2 => Enc::Vop2,
        Format::Vopc => Enc::Vopc,
        Format::Vop3 | Format::Vop3b => Enc::Vop3,
        Format::Vop3p => Enc::Vop3p,
        Format::Ds => Enc::Ds,
        Format::Flat | Format::Global | Format::Scratch => Enc::Flat,
        Format::Mubuf | Format::Mtbuf => Enc::Mubuf,
        _ => return Err(DecodeFail::Format("gfx12 format")),
    };
    let mut i = Inst::new(m.op, enc, w0, (inst.bits >> 32) as u32);
    i.len = inst.len;
    i.lit = inst.literal.unwrap_or(0);
    i.cmp = m.cmp;
    i.cond = m.cond;
    // v_cmpx writes EXEC only: its mask destination is a discarded code.
    let mask_dst = |d: u32| if m.cmpx { 128 } else { sreg(d) as u8 };
    match inst.format {
        Format::Sop1 => {
            i.dst = sreg(f(F::Sdst));
            i.src[0] = sreg(f(F::Src0));
        }
        Format::Sop2 => {
            i.dst = sreg(f(F::Sdst));
            i.src = [sreg(f(F::Src0)), sreg(f(F::Src1)), 0];
        }
        Format::Sopc => i.src = [sreg(f(F::Src0)), sreg(f(F::Src1)), 0],
        Format::Sopk => i.dst = sreg(f(F::Sdst)),
        Format::Sopp => {}
        Format::Vop1 => {
            i.dst = f(F::Vdst) as u16;
            i.src[0] = src9(f(F::Src0));
        }
        Format::Vop2 => {
            i.dst = f(F::Vdst) as u16;
            // Implicit VCC: carry in/out and cndmask's mask.
            i.src = [src9(f(F::Src0)), 256 + f(F::Vsrc1) as u16, 106];
            i.sdst = 106;
        }
        Format::Vopc => {
            i.src = [src9(f(F::Src0)), 256 + f(F::Vsrc1) as u16, 0];
            i.sdst = mask_dst(106);
        }
        Format::Vop3 | Format::Vop3b => {
            i.dst = f(F::Vdst) as u16;
            i.src = [src9(f(F::Src0)), src9(f(F::Src1)), src9(f(F::Src2))];
            i.neg = f(F::Neg) as u8;
            i.omod = f(F::Omod) as u8;
            i.clamp = f(F::Clamp) != 0;
            if inst.format == Format::Vop3b {
                i.sdst = sreg(f(F::Sdst)) as u8;
            } else {
                i.abs = f(F::Abs) as u8;
                i.op_sel = f(F::OpSel) as u8;
                if m.cmp {
                    i.sdst = mask_dst(f(F::Vdst));
                }
            }
        }
        Format::Vop3p => {
            i.dst = f(F::Vdst) as u16;
            i.src = [src9(f(F::Src0)), src9(f(F::Src1)), src9(f(F::Src2))];
            i.neg = f(F::Neg) as u8;
            i.abs = f(F::NegHi) as u8;
            i.op_sel = f(F::OpSel) as u8;
            i.op_sel_hi = (f(F::OpSelHi) | f(F::OpSelHi2) << 2) as u8;
            i.clamp = f(F::Clamp) != 0;
        }
        Format::Smem => {
            i.dst = sreg(f(F::Sdata));
            let mm = &mut i.mem;
            mm.sbase = (f(F::Sbase) * 2) as u8;
            mm.offset = sext24(f(F::Offset));
            mm.soffset = sreg(f(F::Soffset)) as u8;
            mm.flags |= Mem::IMM;
            mm.policy = (f(F::Th) | f(F::Scope) << 3) as u8;
        }
        Format::Mubuf | Format::Mtbuf => {
            if f(F::Tfe) != 0 {
                return Err(DecodeFail::Format("vbuffer tfe (texture fail enable)"));
            }
            let th = f(F::Th);
            let mm = &mut i.mem;
            mm.vaddr = f(F::Vaddr) as u16;
            mm.data = f(F::Vdata) as u16;
            // The descriptor quad's first SGPR (GFX12 encodes the register, not quad / 4).
            mm.sbase = sreg(f(F::Srsrc)) as u8;
            mm.soffset = sreg(f(F::Soffset)) as u8;
            // 24-bit field; LLVM accepts 0..=0x7FFFFF (an unsigned offset).
            mm.offset = f(F::Offset) as i32;
            mm.policy = (th | f(F::Scope) << 3) as u8;
            if inst.format == Format::Mtbuf {
                mm.fmt = super::tbuf::gfx12_format(inst.target, f(F::Fmt));
            }
            if th & 1 != 0 && m.op.name().starts_with("buffer_atomic") {
                mm.flags |= Mem::RETURN;
            }
            if f(F::Offen) != 0 {
                mm.flags |= Mem::OFFEN;
            }
            if f(F::Idxen) != 0 {
                mm.flags |= Mem::IDXEN;
            }
        }
        Format::Ds => {
            let mm = &mut i.mem;
            mm.offset = (f(F::Offset0) | f(F::Offset1) << 8) as i32;
            mm.vaddr = f(F::Addr) as u16;
            mm.data = f(F::Data0) as u16;
            mm.data1 = f(F::Data1) as u16;
            i.dst = f(F::Vdst) as u16;
        }
        _ => {
            let th = f(F::Th);
            let saddr = f(F::Saddr);
            let mm = &mut i.mem;
            mm.seg = match inst.format {
                Format::Global => Seg::Global,
                Format::Scratch => Seg::Scratch,
                _ => Seg::Flat,
            };
            mm.offset = sext24(f(F::Offset));
            mm.vaddr = f(F::Addr) as u16;
            mm.data = f(F::Data) as u16;
            mm.sbase = if saddr == 124 {
                Mem::NO_SGPR
            } else {
                saddr as u8
            };
            mm.policy = (th | f(F::Scope) << 3) as u8;
            // Atomics return the pre-operation value when th[0] (TH_ATOMIC_RETURN) is set.
            if th & 1 != 0 {
                mm.flags |= Mem::RETURN;
            }
            if f(F::Sve) != 0 {
                mm.flags |= Mem::VADDR;
            }
            i.dst = f(F::Vdst) as u16;
        }
    }
    i.t16 = true;
    if matches!(inst.format, Format::Vop1 | Format::Vop2 | Format::Vopc) {
        let mask = t16_fields(m.op);
        if mask == 0 && inst.op.name().ends_with("16") {
            // A 16-bit operation whose operand halves this front end does not know: refuse
            // a `.h` operand rather than read v128+ in its place.
            let wide = |c: u16| (256..512).contains(&c) && (c - 256) & 0x80 != 0;
            let dst_vgpr = inst.format != Format::Vopc;
            if wide(i.src[0]) || wide(i.src[1]) || (dst_vgpr && i.dst & 0x80 != 0) {
                return Err(DecodeFail::Unimplemented(inst.mnemonic()));
            }
        }
        half_split(&mut i, mask);
    }
    // VALU operations whose destination field names an SGPR.
    if matches!(
        m.op,
        Op::VReadfirstlaneB32
            | Op::VReadlaneB32
            | Op::VSRcpF32
            | Op::VSRsqF32
            | Op::VSSqrtF32
            | Op::VSExpF32
            | Op::VSLogF32
    ) {
        i.dst = sreg(i.dst as u32);
    }
    Ok(i)
}

/// Which register fields of a GFX12 VOP1/VOP2/VOPC operation are 16-bit operands, as
/// `op_sel` bits (1 src0, 2 vsrc1, 8 vdst). With `-mattr=+real-true16` semantics such a
/// field is `hi << 7 | vgpr` (../shared/ISA-ENCODINGS.md 2.4; checked with llvm-mc-22:
/// `v_cvt_f32_f16 v200, v1.h` keeps an 8-bit destination, `v_ldexp_f16` and
/// `v_cmp_class_f16` take 16-bit second sources).
fn t16_fields(op: Op) -> u8 {
    use Op::*;
    match op {
        VCvtF32F16 => 1,
        VCvtF16F32 => 8,
        VCvtF16U16 | VCvtF16I16 | VCvtU16F16 | VCvtI16F16 | VRcpF16 | VSqrtF16 | VRsqF16
        | VLogF16 | VExpF16 | VFloorF16 | VCeilF16 | VTruncF16 | VRndneF16 => 1 | 8,
        VAddF16 | VSubF16 | VSubrevF16 | VMulF16 | VMaxF16 | VMinF16 | VLdexpF16 => 1 | 2 | 8,
        VCmpF16 | VCmpxF16 | VCmpI16 | VCmpU16 | VCmpxI16 | VCmpxU16 | VCmpClassF16
        | VCmpxClassF16 => 1 | 2,
        _ => 0,
    }
}

/// Moves the true16 half bit (bit 7 of a VGPR field) of the operands in `mask` (see
/// [`t16_fields`]) into `op_sel`, leaving the VGPR index.
fn half_split(i: &mut Inst, mask: u8) {
    for n in 0..2 {
        let c = i.src[n];
        if mask >> n & 1 != 0 && (256..512).contains(&c) {
            let v = c - 256;
            i.op_sel |= ((v >> 7) as u8 & 1) << n;
            i.src[n] = 256 + (v & 0x7f);
        }
    }
    if mask & 8 != 0 {
        i.op_sel |= ((i.dst >> 7) as u8 & 1) << 3;
        i.dst &= 0x7f;
    }
}

/// VOPD operation codes (X: 0..=13; Y: the same plus 16..=18), verified with llvm-mc-22.
fn vopd_op(code: u32) -> Result<Op, DecodeFail> {
    Ok(match code {
        0 => Op::VFmacF32,
        1 => Op::VFmaakF32,
        2 => Op::VFmamkF32,
        3 => Op::VMulF32,
        4 => Op::VAddF32,
        5 => Op::VSubF32,
        6 => Op::VSubrevF32,
        8 => Op::VMovB32,
        9 => Op::VCndmaskB32,
        10 => Op::VMaxF32,
        11 => Op::VMinF32,
        16 => Op::VAddU32,
        17 => Op::VLshlrevB32,
        18 => Op::VAndB32,
        _ => {
            return Err(DecodeFail::Opcode {
                format: "vopd",
                opcode: code as u16,
            })
        }
    })
}

/// Decodes a VOPD pair: `[8:0]` srcx0, `[16:9]` vsrcx1, `[21:17]` opy, `[25:22]` opx;
/// `[40:32]` srcy0, `[48:41]` vsrcy1, `[55:49]` vdsty[7:1] (vdsty[0] = !vdstx[0]),
/// `[63:56]` vdstx; one literal dword shared by both halves.
fn vopd(bytes: &[u8], w0: u32) -> Result<Inst, DecodeFail> {
    let w1 = word(bytes, 1)?;
    let (opx, opy) = ((w0 >> 22) & 15, (w0 >> 17) & 31);
    let (srcx0, srcy0) = (w0 & 0x1ff, w1 & 0x1ff);
    let vdstx = w1 >> 24;
    let vdsty = ((w1 >> 17) & 0x7f) << 1 | (!vdstx & 1);
    let x = vopd_op(opx)?;
    let y = vopd_op(opy)?;
    let mut i = Inst::new(x, Enc::Vopd, w0, w1);
    i.len = 8;
    let k = matches!(opx, 1 | 2) || matches!(opy, 1 | 2);
    if srcx0 == 255 || srcy0 == 255 || k {
        i.lit = word(bytes, 2)?;
        i.len = 12;
    }
    i.dst = vdstx as u16;
    i.src = [src9(srcx0), 256 + ((w0 >> 9) & 0xff) as u16, 106];
    i.sdst = 106;
    i.y = Half {
        op: y,
        dst: vdsty as u16,
        src: [src9(srcy0), 256 + ((w1 >> 9) & 0xff) as u16],
    };
    Ok(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gfx12_names_map_to_executor_operations() {
        let m = |n: &str| lookup(n).map(|m| (m.op, m.cond, m.cmp, m.cmpx));
        assert_eq!(m("s_and_not1_b32"), Some((Op::SAndn2B32, 0, false, false)));
        assert_eq!(
            m("global_load_b128"),
            Some((Op::FLoadDwordx4, 0, false, false))
        );
        assert_eq!(
            m("scratch_store_b32"),
            Some((Op::FStoreDword, 0, false, false))
        );
        assert_eq!(
            m("global_atomic_max_u64"),
            Some((Op::FAtomicUmaxX2, 0, false, false))
        );
        assert_eq!(m("v_cmp_gt_u32"), Some((Op::VCmpU32, 4, true, false)));
        assert_eq!(m("v_cmpx_ne_u64"), Some((Op::VCmpxU64, 5, true, true)));
        assert_eq!(m("v_cmp_nlt_f32"), Some((Op::VCmpF32, 14, true, false)));
        assert_eq!(m("v_cmp_t_f32"), Some((Op::VCmpF32, 15, true, false)));
        assert_eq!(
            m("ds_load_2addr_stride64_b32"),
            Some((Op::DsRead2st64B32, 0, false, false))
        );
        assert_eq!(m("v_dual_mov_b32"), None);
        assert_eq!(
            m("s_wait_loadcnt"),
            Some((Op::SWaitLoadcnt, 0, false, false))
        );
    }

    #[test]
    fn vbuffer_fields_normalise_into_mem() {
        // llvm-mc-22 -mcpu=gfx1200: `buffer_load_b32 v1, v2, s[8:11], null offen
        // offset:0x7fffff th:TH_LOAD_NT scope:SCOPE_SYS` (../shared/ISA-ENCODINGS.md 7.3).
        let w: Vec<u8> = [0xC405_007Cu32, 0x409C_1001, 0x7FFF_FF02]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let i = decode_gfx12(Target::Gfx1200, &w).unwrap();
        assert_eq!((i.op, i.enc, i.len), (Op::BLoadDword, Enc::Mubuf, 12));
        let m = i.mem;
        assert_eq!((m.vaddr, m.data, m.sbase, m.soffset), (2, 1, 8, 128));
        assert_eq!(m.offset, 0x7f_ffff);
        assert!(m.has(Mem::OFFEN) && !m.has(Mem::IDXEN) && !m.has(Mem::RETURN));
        // `buffer_atomic_add_u32 v17, v16, s[32:35], null offen th:TH_ATOMIC_RETURN`
        // (llvm-objdump-22 of corpus/build/gfx1201/asm_buffer.hsaco).
        let w: Vec<u8> = [0xC40D_407Cu32, 0x4090_4011, 0x0000_0010]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let i = decode_gfx12(Target::Gfx1201, &w).unwrap();
        assert_eq!(i.op, Op::BAtomicAdd);
        assert_eq!((i.mem.vaddr, i.mem.data, i.mem.sbase), (16, 17, 32));
        assert!(i.mem.has(Mem::RETURN) && i.mem.has(Mem::OFFEN));
    }

    fn dwords(w: &[u32]) -> Vec<u8> {
        w.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn true16_halves_become_op_sel() {
        // ../shared/ISA-ENCODINGS.md 2.4 (llvm-mc-22 -mattr=+real-true16):
        // `v_add_f16 v0.h, v1.l, v2.h` = 0x65010501.
        let i = decode_gfx12(Target::Gfx1200, &dwords(&[0x6501_0501])).unwrap();
        assert_eq!(
            (i.op, i.dst, i.src[0], i.src[1]),
            (Op::VAddF16, 0, 257, 258)
        );
        assert_eq!(i.op_sel, 0b1010);
        assert!(i.t16);
        // `v_cvt_f32_f16_e32 v200, v1.h` = 0x7F901781: 32-bit destination keeps bit 7.
        let i = decode_gfx12(Target::Gfx1200, &dwords(&[0x7F90_1781])).unwrap();
        assert_eq!(
            (i.op, i.dst, i.src[0], i.op_sel),
            (Op::VCvtF32F16, 200, 257, 1)
        );
        // `v_add_f16_dpp v0.h, v1.h, v2.l dpp8:[7,6,5,4,3,2,1,0]` = 0x650004E9 0x05397781:
        // the DPP8 dword's src0 carries the half bit too.
        let i = decode_gfx12(Target::Gfx1200, &dwords(&[0x6500_04E9, 0x0539_7781])).unwrap();
        assert_eq!((i.sub, i.dst, i.src[0], i.src[1]), (Sub::Dpp8, 0, 257, 258));
        assert_eq!(i.op_sel, 0b1001);
    }

    #[test]
    fn dpp8_forms() {
        // ISA-ENCODINGS.md 6.3: `v_add_f32 v0, v1, v2 dpp8:[7,6,5,4,3,2,1,0]`.
        let i = decode_gfx12(Target::Gfx1201, &dwords(&[0x0600_04E9, 0x0539_7701])).unwrap();
        assert_eq!(
            (i.op, i.sub, i.len, i.src[0], i.src[1]),
            (Op::VAddF32, Sub::Dpp8, 8, 257, 258)
        );
        assert_eq!(i.w1, 0x0539_7701);
        // llvm-objdump-22 of corpus asm_dpp: `v_mov_b32_dpp v8, v2 dpp8:[3,...] fi:1`.
        let i = decode_gfx12(Target::Gfx1201, &dwords(&[0x7E10_02EA, 0x6DB6_DB02])).unwrap();
        assert_eq!(
            (i.op, i.sub, i.dst, i.src[0]),
            (Op::VMovB32, Sub::Dpp8Fi, 8, 258)
        );
    }

    #[test]
    fn register_codes_use_gfx9_numbering() {
        assert_eq!(sreg(125), 124); // M0
        assert_eq!(sreg(124), 128); // NULL reads 0, writes are dropped
        assert_eq!(sreg(106), 106);
        assert_eq!(src9(300), 300);
    }
}
