//! Lowering: the shared decoder's [`isa::Inst`] (the one ISA description, generated from
//! LLVM) into the executor's compact [`Inst`], once per program, the same way for both
//! families. Every operand and modifier is read through [`isa::Inst::field`]; nothing here
//! knows an opcode number or a bit position.
//!
//! What is normalised:
//! - operations: [`isa::Op::canonical`] (GFX12 renames, GLOBAL/SCRATCH onto FLAT) and
//!   [`isa::Op::compare`] (the `v_cmp*` families) — both data of the isa layer;
//! - register codes: GFX12 puts M0 at 125 and NULL at 124. The executor keeps the GFX9
//!   numbering (M0 = 124); NULL becomes code 128, which reads as the inline constant 0
//!   and is never written (codes >= 128 are not writable);
//! - GFX12 `v_cmpx_*` writes EXEC only (GFX9 also writes the SGPR destination);
//! - memory fields (offsets of every width, `glc/slc/scc` or `th`/`scope`, `sve`, buffer
//!   `srsrc`/`soffset`/`offen`/`idxen`, AGPR data) go into [`Mem`];
//! - GFX12 true16 operands (`v1.h`): the half bit of a 16-bit operand's VGPR field moves
//!   into `op_sel` ([`t16_fields`]);
//! - DPP16/DPP8/SDWA: the real sources replace the marker code, the extension dword goes
//!   to [`Inst::ctl`], its source modifiers to `neg`/`abs`.

use super::inst::{GraphicsClass, Half, Inst, Mai, Mem, Refusal, Seg, Sub, Unit};
use super::wave::AGPR_BASE;
use crate::isa::{self, layout::F, Ext, Format, Op};
use crate::{Family, Target};

/// First AGPR row, as a register-row offset.
const AGPR_ROWS: u16 = AGPR_BASE as u16;

/// Scalar register code in the executor's (GFX9) numbering.
#[inline]
fn sreg(gfx12: bool, c: u32) -> u16 {
    match (gfx12, c) {
        (true, 124) => 128,
        (true, 125) => 124,
        _ => c as u16,
    }
}

/// A 9-bit source code in the executor's numbering.
#[inline]
fn src9(gfx12: bool, c: u32) -> u16 {
    if c < 256 {
        sreg(gfx12, c)
    } else {
        c as u16
    }
}

/// Sign-extends the low `bits` bits of `v`.
#[inline]
fn sext(v: u32, bits: u32) -> i32 {
    ((v << (32 - bits)) as i32) >> (32 - bits)
}

/// Lowers a decoded instruction. Never fails: instructions without semantics lower to a
/// unit that faults when executed ([`Unit::Graphics`], [`Unit::Refused`]), or fault in the
/// semantics as [`super::FaultReason::Unimplemented`].
pub fn lower(d: &isa::Inst) -> Inst {
    let gfx12 = d.target.family() == Family::Gfx12;
    let f = |x: F| d.field(x);
    let sreg = |c: u32| sreg(gfx12, c);
    let src9 = |c: u32| src9(gfx12, c);
    let unit = match d.format {
        Format::Sop1 => Unit::Sop1,
        Format::Sop2 => Unit::Sop2,
        Format::Sopc => Unit::Sopc,
        Format::Sopk => Unit::Sopk,
        Format::Sopp => Unit::Sopp,
        Format::Smem => Unit::Smem,
        Format::Vop1 => Unit::Vop1,
        Format::Vop2 => Unit::Vop2,
        Format::Vopc => Unit::Vopc,
        Format::Vop3 | Format::Vop3b => Unit::Vop3,
        Format::Vop3p | Format::Mai | Format::Vop3px2 => Unit::Vop3p,
        Format::Ds => Unit::Ds,
        Format::Flat | Format::Global | Format::Scratch => Unit::Flat,
        Format::Mubuf | Format::Mtbuf => Unit::Mubuf,
        Format::Vopd | Format::VopdY => Unit::Vopd,
        Format::Exp => Unit::Graphics(GraphicsClass::Export),
        Format::Vinterp => Unit::Graphics(GraphicsClass::Interpolation),
        Format::Vdsdir => Unit::Graphics(GraphicsClass::LdsDirect),
        Format::Vsample => Unit::Graphics(GraphicsClass::SampledImage),
        Format::Mimg | Format::Vimage => image_unit(d.op),
    };
    let mut i = Inst::new(d.op, unit);
    i.len = d.len;
    i.lit = d.literal.unwrap_or(0);
    i.t16 = gfx12;
    if let Some(c) = d.op.compare() {
        i.cmp = true;
        i.cond = c.cond;
        i.cty = c.ty;
        i.cmpx = c.writes_exec;
    }
    // GFX12 v_cmpx writes EXEC only: its mask destination is a discarded code.
    let exec_only = gfx12 && i.cmpx;
    let mask_dst = |code: u32| {
        if exec_only {
            128
        } else {
            sreg(code) as u8
        }
    };
    match d.format {
        Format::Sop1 => {
            i.dst = sreg(f(F::Sdst));
            i.src[0] = sreg(f(F::Src0));
        }
        Format::Sop2 => {
            i.dst = sreg(f(F::Sdst));
            i.src = [sreg(f(F::Src0)), sreg(f(F::Src1)), 0];
        }
        Format::Sopc => i.src = [sreg(f(F::Src0)), sreg(f(F::Src1)), 0],
        Format::Sopk => {
            i.dst = sreg(f(F::Sdst));
            i.imm = f(F::Simm16);
        }
        Format::Sopp => i.imm = f(F::Simm16),
        Format::Vop1 | Format::Vop2 | Format::Vopc => vop_short(d, &mut i, gfx12, mask_dst),
        Format::Vop3 | Format::Vop3b => {
            i.dst = f(F::Vdst) as u16;
            i.src = [src9(f(F::Src0)), src9(f(F::Src1)), src9(f(F::Src2))];
            i.neg = f(F::Neg) as u8;
            i.omod = f(F::Omod) as u8;
            i.clamp = f(F::Clamp) != 0;
            if d.format == Format::Vop3b {
                i.sdst = sreg(f(F::Sdst)) as u8;
            } else {
                i.abs = f(F::Abs) as u8;
                i.op_sel = f(F::OpSel) as u8;
                if i.cmp {
                    i.sdst = mask_dst(f(F::Vdst));
                }
            }
            if let Some(ext) = d.ext() {
                vop3_dpp(d, &mut i, ext);
            }
            // gfx950 v_bitop3: the truth table lives in the neg/abs/omod fields.
            if let Some(t) = d.bitop3() {
                i.imm = u32::from(t);
                (i.neg, i.abs, i.omod) = (0, 0, 0);
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
        Format::Mai | Format::Vop3px2 => {
            i.dst = f(F::Vdst) as u16;
            i.src = [src9(f(F::Src0)), src9(f(F::Src1)), src9(f(F::Src2))];
            i.mai = Mai {
                cbsz: f(F::Cbsz) as u8,
                abid: f(F::Abid) as u8,
                blgp: f(F::Blgp) as u8,
                acc_cd: f(F::AccCd) != 0,
                acc: f(F::Acc) as u8,
                scale: None,
            };
            // gfx950 scaled MFMA: the scale operands and their byte selects.
            if d.format == Format::Vop3px2 {
                i.mai.scale = Some([src9(f(F::ScaleSrc0)), src9(f(F::ScaleSrc1))]);
                i.op_sel = f(F::OpSel) as u8;
                i.op_sel_hi = f(F::OpSelHi) as u8;
            }
        }
        Format::Smem => smem(d, &mut i, gfx12),
        Format::Ds => {
            let acc = agpr_rows(d, gfx12);
            let m = &mut i.mem;
            m.offset = (f(F::Offset0) | f(F::Offset1) << 8) as i32;
            m.vaddr = f(F::Addr) as u16;
            m.data = acc + f(F::Data0) as u16;
            m.data1 = acc + f(F::Data1) as u16;
            i.dst = acc + f(F::Vdst) as u16;
            if f(F::Gds) != 0 {
                i.unit = Unit::Refused(Refusal::Gds);
            }
            // Ray-tracing traversal stacks (see `exec/ds.rs`).
            if matches!(
                d.op,
                Op::DsBvhStackPush4Pop1RtnB32
                    | Op::DsBvhStackPush8Pop1RtnB32
                    | Op::DsBvhStackPush8Pop2RtnB64
            ) {
                i.unit = Unit::Graphics(GraphicsClass::Bvh);
            }
        }
        Format::Flat | Format::Global | Format::Scratch => {
            flat(d, &mut i, gfx12);
            // The ordered streamout add (RDNA4 pseudocode: increments an ordered GS wave
            // id modulo the graphics register VGT_GS_MAX_WAVE_ID, "add the streamout
            // offset") belongs to the geometry pipeline.
            if d.op == Op::GlobalAtomicOrderedAddB64 {
                i.unit = Unit::Graphics(GraphicsClass::OrderedStreamout);
            }
        }
        Format::Mubuf | Format::Mtbuf => buffer(d, &mut i, gfx12),
        Format::Mimg | Format::Vimage => image(d, &mut i, gfx12),
        Format::Vopd | Format::VopdY => {
            i.dst = f(F::Vdst) as u16;
            i.src = [src9(f(F::Src0)), 256 + f(F::Vsrc1) as u16, 106];
            i.sdst = 106;
            let y = d.vopd().map_or(Op::VNop, |(_, y)| y);
            i.y = Half {
                op: y.canonical(),
                dst: f(F::VdstY) as u16,
                src: [src9(f(F::Src0Y)), 256 + f(F::Vsrc1Y) as u16],
            };
        }
        Format::Exp | Format::Vinterp | Format::Vdsdir | Format::Vsample => {}
    }
    // VALU operations whose destination field names an SGPR.
    if matches!(
        i.op,
        Op::VReadfirstlaneB32
            | Op::VReadlaneB32
            | Op::VSRcpF32
            | Op::VSRsqF32
            | Op::VSSqrtF32
            | Op::VSExpF32
            | Op::VSLogF32
            | Op::VSRcpF16
            | Op::VSRsqF16
            | Op::VSSqrtF16
            | Op::VSExpF16
            | Op::VSLogF16
    ) {
        i.dst = sreg(u32::from(i.dst));
    }
    i
}

/// VOP1/VOP2/VOPC, with their DPP16/DPP8/SDWA extensions and GFX12 true16 halves.
fn vop_short(d: &isa::Inst, i: &mut Inst, gfx12: bool, mask_dst: impl Fn(u32) -> u8) {
    let f = |x: F| d.field(x);
    i.src[0] = src9(gfx12, f(F::Src0));
    match d.format {
        Format::Vop1 => i.dst = f(F::Vdst) as u16,
        Format::Vop2 => {
            i.dst = f(F::Vdst) as u16;
            // Implicit VCC: carry in/out and cndmask's mask.
            i.src[1] = 256 + f(F::Vsrc1) as u16;
            i.src[2] = 106;
            i.sdst = 106;
        }
        _ => {
            i.src[1] = 256 + f(F::Vsrc1) as u16;
            i.sdst = mask_dst(106);
        }
    }
    let ext = d.ext();
    if let Some(ext) = ext {
        i.ctl = (d.bits >> 32) as u32;
        i.lit = 0;
        match ext {
            Ext::Sdwa => {
                i.sub = Sub::Sdwa;
                let s0 = f(F::ExtSrc0) as u16;
                i.src[0] = if f(F::SdwaS0) != 0 { s0 } else { 256 + s0 };
                if d.format != Format::Vop1 && f(F::SdwaS1) != 0 {
                    i.src[1] -= 256;
                }
                if d.format == Format::Vopc {
                    if f(F::SdwaSd) != 0 {
                        i.sdst = f(F::Sdst) as u8;
                    }
                } else {
                    i.clamp = f(F::Clamp) != 0;
                    i.omod = f(F::Omod) as u8;
                }
                ext_mods(d, i);
            }
            Ext::Dpp16 => {
                i.sub = Sub::Dpp;
                i.src[0] = 256 + f(F::ExtSrc0) as u16;
                ext_mods(d, i);
            }
            Ext::Dpp8 => {
                i.sub = if f(F::Fi) != 0 {
                    Sub::Dpp8Fi
                } else {
                    Sub::Dpp8
                };
                i.src[0] = 256 + f(F::ExtSrc0) as u16;
            }
        }
    }
    if gfx12 {
        // The DPP dword's src0 field carries the half bit like the VOP field, so the
        // extension's source already holds it.
        half_split(i, t16_fields(d));
    }
}

/// neg/abs of src0 and src1 from a DPP16 or SDWA dword.
fn ext_mods(d: &isa::Inst, i: &mut Inst) {
    let f = |x: F| d.field(x) as u8;
    i.neg = f(F::Src0Neg) | f(F::Src1Neg) << 1;
    i.abs = f(F::Src0Abs) | f(F::Src1Abs) << 1;
}

/// GFX12 VOP3/VOP3B with DPP16/DPP8 (`v_add3_u32_e64_dpp`): the DPP dword is the third;
/// the source modifiers stay in the VOP3 fields. Operations whose semantics read a source
/// without the lane selection (64-bit operands, scalar-source and cross-lane operations)
/// are refused.
fn vop3_dpp(d: &isa::Inst, i: &mut Inst, ext: Ext) {
    if !dpp_capable(i.op) {
        i.unit = Unit::Refused(Refusal::Vop3Dpp);
        return;
    }
    i.ctl = (d.bits >> 64) as u32;
    i.lit = 0;
    i.src[0] = 256 + d.field(F::ExtSrc0) as u16;
    i.sub = match ext {
        Ext::Dpp8 if d.field(F::Fi) != 0 => Sub::Dpp8Fi,
        Ext::Dpp8 => Sub::Dpp8,
        _ => Sub::Dpp,
    };
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
                | VSRcpF16
                | VSRsqF16
                | VSSqrtF16
                | VSExpF16
                | VSLogF16
                | VPermlane64B32
                | VMovrelsB32
                | VMovreldB32
                | VMovrelsdB32
                | VMovrelsd2B32
                | VSwaprelB32
                | VSwapB16
                | VQsadPkU16U8
                | VMqsadPkU16U8
                | VMqsadU32U8
                | VFmaF16
                | VMovB64
                | VSwapB32
        ))
}

/// First AGPR row when a GFX9 memory instruction's `acc` bit names AGPRs (0 otherwise).
fn agpr_rows(d: &isa::Inst, gfx12: bool) -> u16 {
    if !gfx12 && d.field(F::Acc) != 0 {
        AGPR_ROWS
    } else {
        0
    }
}

/// The cache-policy bits observers see (GFX9: `glc | slc << 1 | scc << 2`; GFX12: `th |
/// scope << 3`) and, for an atomic, whether it returns the pre-operation value (GFX9
/// `glc`/`sc0`, GFX12 `th[0]` = TH_ATOMIC_RETURN).
fn policy(d: &isa::Inst, gfx12: bool, m: &mut Mem, atomic: bool) {
    let f = |x: F| d.field(x);
    let (policy, ret) = if gfx12 {
        let th = f(F::Th);
        (th | f(F::Scope) << 3, th & 1 != 0)
    } else {
        let glc = f(F::Glc);
        (glc | f(F::Slc) << 1 | f(F::Scc) << 2, glc != 0)
    };
    m.policy = policy as u8;
    if atomic && ret {
        m.flags |= Mem::RETURN;
    }
}

/// Scalar memory.
fn smem(d: &isa::Inst, i: &mut Inst, gfx12: bool) {
    let f = |x: F| d.field(x);
    i.dst = sreg(gfx12, f(F::Sdata));
    let m = &mut i.mem;
    m.sbase = (f(F::Sbase) * 2) as u8;
    if gfx12 {
        m.offset = sext(f(F::Offset), 24);
        m.soffset = sreg(gfx12, f(F::Soffset)) as u8;
        m.flags |= Mem::IMM;
        m.policy = (f(F::Th) | f(F::Scope) << 3) as u8;
        return;
    }
    m.policy = f(F::Glc) as u8;
    // Scalar atomics return the pre-operation value when GLC is set.
    if f(F::Glc) != 0 {
        m.flags |= Mem::RETURN;
    }
    if f(F::Imm) != 0 {
        m.flags |= Mem::IMM;
        // 20-bit unsigned for buffer loads, 21-bit signed otherwise.
        m.offset = if d.op.name().starts_with("s_buffer_") {
            (f(F::Offset) & 0xf_ffff) as i32
        } else {
            sext(f(F::Offset), 21)
        };
        if f(F::Soe) != 0 {
            m.soffset = f(F::Soffset) as u8;
        }
    } else {
        m.soffset = f(F::SoffsetLo) as u8;
    }
}

/// FLAT, GLOBAL and SCRATCH.
fn flat(d: &isa::Inst, i: &mut Inst, gfx12: bool) {
    let f = |x: F| d.field(x);
    let acc = agpr_rows(d, gfx12);
    let atomic = i.op.name().contains("_atomic_");
    let m = &mut i.mem;
    policy(d, gfx12, m, atomic);
    m.seg = match d.format {
        Format::Global => Seg::Global,
        Format::Scratch => Seg::Scratch,
        _ => Seg::Flat,
    };
    m.vaddr = f(F::Addr) as u16;
    m.data = acc + f(F::Data) as u16;
    i.dst = acc + f(F::Vdst) as u16;
    let saddr = f(F::Saddr);
    let off = if gfx12 { 124 } else { 0x7f };
    m.sbase = if saddr == off {
        Mem::NO_SGPR
    } else {
        saddr as u8
    };
    if gfx12 {
        m.offset = sext(f(F::Offset), 24);
        if f(F::Sve) != 0 {
            m.flags |= Mem::VADDR;
        }
        return;
    }
    // FLAT: 12-bit unsigned offset; GLOBAL/SCRATCH: 13-bit signed.
    m.offset = match m.seg {
        Seg::Flat => (f(F::Offset) & 0xfff) as i32,
        _ => sext(f(F::Offset), 13),
    };
    // Scratch VGPR address: gfx90a uses it when saddr is off, the targets with
    // architected flat scratch when the SVE bit (the `lds` field's position) is set.
    let use_v = if d.target == Target::Gfx90a {
        saddr == 0x7f
    } else {
        f(F::Lds) != 0
    };
    if use_v {
        m.flags |= Mem::VADDR;
    }
}

/// The unit of a GFX9 MIMG or GFX12 VIMAGE operation: the sampler-based ones (GFX9
/// `image_sample*`, `image_gather4*`, `image_get_lod`) and the BVH ray intersections are
/// graphics-pipeline classes; the loads, stores, atomics and `image_get_resinfo` run.
fn image_unit(op: Op) -> Unit {
    let name = op.name();
    if name.starts_with("image_bvh") {
        Unit::Graphics(GraphicsClass::Bvh)
    } else if name.starts_with("image_sample")
        || name.starts_with("image_gather")
        || name == "image_get_lod"
    {
        Unit::Graphics(GraphicsClass::SampledImage)
    } else {
        Unit::Image
    }
}

/// MIMG (GFX9) and VIMAGE (GFX12) operands into [`Mem`] and [`super::inst::Img`].
fn image(d: &isa::Inst, i: &mut Inst, gfx12: bool) {
    use super::inst::Img;
    let f = |x: F| d.field(x);
    let acc = agpr_rows(d, gfx12);
    let m = &mut i.mem;
    m.vaddr = f(F::Vaddr) as u16;
    m.data = acc + f(F::Vdata) as u16;
    i.dst = m.data;
    m.img.dmask = f(F::Dmask) as u8;
    let mut flags = 0;
    if f(F::D16) != 0 {
        flags |= Img::D16;
    }
    if f(F::A16) != 0 {
        flags |= Img::A16;
    }
    if f(F::Tfe) != 0 || f(F::Lwe) != 0 {
        flags |= Img::STATUS;
    }
    let atomic = i.op.name().starts_with("image_atomic");
    if gfx12 {
        m.sbase = sreg(gfx12, f(F::ImgRsrc)) as u8;
        m.img.dim = f(F::Dim) as u8;
        m.img.vaddr = [F::Vaddr1, F::Vaddr2, F::Vaddr3, F::Vaddr4].map(|x| f(x) as u8);
        flags |= Img::NSA;
        if f(F::R128) != 0 {
            flags |= Img::R128;
        }
    } else {
        m.sbase = (f(F::Srsrc) * 4) as u8;
    }
    policy(d, gfx12, m, atomic);
    m.img.flags = flags;
}

/// MUBUF/MTBUF (GFX9) and VBUFFER (GFX12).
fn buffer(d: &isa::Inst, i: &mut Inst, gfx12: bool) {
    let f = |x: F| d.field(x);
    let acc = agpr_rows(d, gfx12);
    let atomic = i.op.name().starts_with("buffer_atomic");
    let m = &mut i.mem;
    policy(d, gfx12, m, atomic);
    m.vaddr = f(F::Vaddr) as u16;
    m.data = acc + f(F::Vdata) as u16;
    m.soffset = sreg(gfx12, f(F::Soffset)) as u8;
    if f(F::Offen) != 0 {
        m.flags |= Mem::OFFEN;
    }
    if f(F::Idxen) != 0 {
        m.flags |= Mem::IDXEN;
    }
    if gfx12 {
        if f(F::Tfe) != 0 {
            i.unit = Unit::Refused(Refusal::BufferTfe);
        }
        // The descriptor quad's first SGPR (GFX12 encodes the register, not quad / 4).
        m.sbase = sreg(gfx12, f(F::Srsrc)) as u8;
        // 24-bit field; LLVM accepts 0..=0x7FFFFF (an unsigned offset).
        m.offset = f(F::Offset) as i32;
        if d.format == Format::Mtbuf {
            m.fmt = super::tbuf::gfx12_format(d.target, f(F::Fmt));
        }
        return;
    }
    m.sbase = (f(F::Srsrc) * 4) as u8;
    m.offset = f(F::Offset) as i32;
    if f(F::Lds) != 0 {
        m.flags |= Mem::LDS_DMA;
    }
    if d.format == Format::Mtbuf {
        m.fmt = (f(F::Dfmt) | f(F::Nfmt) << 4) as u8;
    }
}

/// Which register fields of a GFX12 VOP1/VOP2/VOPC instruction are 16-bit operands, as
/// `op_sel` bits (1 src0, 2 vsrc1, 8 vdst): the operands LLVM prints as `vN.l`/`vN.h`
/// (register class `l` in the generated tables, learned from llvm-mc-22 with
/// `-mattr=+real-true16`). Such a field is `hi << 7 | vgpr` (../shared/ISA-ENCODINGS.md
/// 2.4); every other VGPR field is a whole 32-bit register (`v_cvt_f32_f16 v200, v1.h`
/// keeps an 8-bit destination).
fn t16_fields(d: &isa::Inst) -> u8 {
    use isa::table::Opnd;
    d.syntax().iter().fold(0, |m, o| match *o {
        Opnd::Reg {
            field, cls: b'l', ..
        } => {
            m | match field {
                F::Src0 => 1,
                F::Vsrc1 => 2,
                F::Vdst => 8,
                _ => 0,
            }
        }
        _ => m,
    })
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

/// Decodes and lowers the instruction at the start of `bytes`.
pub fn decode(target: Target, bytes: &[u8]) -> Result<Inst, isa::DecodeError> {
    match isa::decode(target, bytes, true) {
        // The program does not know its wave size when it is decoded, and GFX12's tables
        // differ by wave size only in what they accept (e.g. SWMMAC `index_key` 2 and 3
        // exist in wave64 only): an encoding the wave64 table accepts is an instruction.
        Err(e) if target.family() == Family::Gfx12 => isa::decode(target, bytes, false)
            .map(|d| lower(&d))
            .map_err(|_| e),
        r => r.map(|d| lower(&d)),
    }
}
