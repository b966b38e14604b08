//! Matrix cores: every MFMA, SMFMAC (CDNA: gfx90a, gfx942, gfx950) and WMMA, SWMMAC
//! (GFX12: gfx1200, gfx1201) operation as one engine over a [`Shape`] description, reading
//! and writing a wave's registers with the hardware's lane layouts.
//!
//! ```text
//!  Shape (M, N, K, blocks, A/B/C types, sparse, family) + Operands (registers, modifiers)
//!    ──gather (layout::*)──► A[block][i][k], B[block][k][j], C (raw codes, then values)
//!    ──multiply-accumulate in k order──► D[block][i][j] ──scatter (layout::*)──► registers
//! ```
//!
//! Layouts are in [`layout`] with their sources (AMD's matrix instruction calculator for
//! CDNA and RDNA4, AMD's CDNA3/CDNA4 matrix core blog for the gfx950 `f8f6f4` operands).
//!
//! Modifiers. CDNA: CBSZ/ABID make block `b` read A from block `(b >> cbsz << cbsz) +
//! abid`, BLGP makes lane `l` read B from lane 1: `l % 32`, 2: `32 + l % 32`, 3: `(l + 16)
//! % 64`, 4..7: `16 * (blgp - 4) + l % 16` (CDNA3 ISA guide, MFMA modifiers). On gfx942 and
//! gfx950 the f64 operations read BLGP as negate bits for A, B, C (calculator README,
//! "BLGP Modifier to Negate FP64 Input Matrices"); gfx90a's f64 operations disallow BLGP
//! (same README) and we refuse it. SMFMAC reuses CBSZ/ABID as the index-set select (ABID
//! picks the set when CBSZ is 0, else set 0; calculator README and MLIR's
//! `amdgpu.sparse_mfma` docs). The `f8f6f4` operations read CBSZ as A's format and BLGP as
//! B's (0 fp8, 1 bf8, 2 fp6, 3 bf6, 4 fp4; LLVM's intrinsic docs and its MC tests, which
//! size the register tuples by them); their scaled form reads one E8M0 byte per row (A)
//! or column (B) and 32-wide k block from `scale_src0/1`, the byte chosen by
//! `op_sel[n] | op_sel_hi[n] << 1` (AMD aiter's MXFP4 kernels encode the intrinsic's byte
//! index 0..3 that way). The block scales are applied "after the normal dot product and
//! prior to output/accumulation" (AMD's CDNA4 blog, section 5.4): lane `kb * M + i` holds
//! row `i`'s scale for k block `kb` (blog figure 9: one Ax entry per lane, Ax is M x K/32).
//! GFX12 (calculator README, "NEG Modifier" and the VOP3P encoding section): for 16-bit
//! float sources NEG[0]/NEG[1] negate A/B values in bits 15:0 and NEG_HI[0]/[1] those in
//! bits 31:16; NEG[2] negates C and NEG_HI[2] takes |C| first; integer sources read
//! NEG[0]/NEG[1] as "signed"; CLAMP saturates integer results; SWMMAC's OPSEL
//! (`index_key`) picks the index set; CLAMP does not affect float results; OPSEL_HI, and
//! OPSEL outside SWMMAC, are unused (the README's VOP3P encoding section).
//!
//! Refused with [`FaultReason::UnsupportedForm`] (LLVM rejects them and our sources give
//! them no meaning): NEG/NEG_HI on 8-bit float sources, on integer C, or on a SWMMAC's
//! index operand; ABID on `f8f6f4`; BLGP on SMFMAC and on gfx90a f64; `f8f6f4` format
//! codes 5-7; an ABID naming a block the shape lacks; an index set past the register;
//! scalar A/B operands; tuples past the register file; `v_mfma_ld_scale_b32` alone. The
//! scale operands are 9-bit source codes: a VGPR gives per-lane scales, an SGPR or inline
//! constant one word for every lane (LLVM 22's assembler takes only VGPRs there).
//!
//! Sparse A (4:2): each 4-wide k group stores two values and a 2-bit index per value
//! naming its column in the group. Documents do not say what two equal indices do; we
//! model the hardware as gathering B: every stored value multiplies the B row its index
//! names, in stored order, so any index pattern has a defined result.
//!
//! Numerics (documented choice; the hardware's internal order is not published). Products
//! accumulate into the C element in k order (the dense k order; sparse: the stored order),
//! one rounding per product added:
//! * f16, bf16, xf32, fp8/bf8 (both encodings), fp6, bf6, fp4 sources: f32 accumulation.
//!   Their products are exact in f32 (at most 11 + 11 significand bits; bf16 and xf32
//!   products whose magnitude leaves f32's range are the exception: they round/overflow
//!   before the add), so `acc + a * b` equals a fused multiply-add. A different order of
//!   the same f32 additions differs by at most about `K * 2^-24 * (|C| + sum |a*b|)`.
//!   `f8f6f4` products accumulate per 32-wide k block from zero, the block sum (times its
//!   scales for the scaled form, 1 otherwise: the same datapath) is added to the result.
//! * f32 sources: fused multiply-add in f32 (the products are not exact).
//! * f64: fused multiply-add in f64.
//! * integers: exact, then wrapped to i32 (saturated instead under GFX12 CLAMP).
//! * GFX12 f16/bf16 results: accumulated in f32 from C, rounded once to nearest even at
//!   the end (a hardware that rounds per step differs by up to about K half-ulps).
//!
//! EXEC is ignored (documented choice): a matrix instruction is one operation of the whole
//! wave, every lane of the result is written (GFX12 wave32: lanes 0-31).

mod elem;
mod gather;
mod kernel;
mod layout;
mod ops;

pub(crate) use elem::Elem;

use super::inst::Inst;
use super::wave::{Wave, AGPR_BASE, LANES, VGPR_ROWS};
use super::FaultReason;
use crate::isa::Op;
use crate::{Family as IsaFamily, Target};

/// Which lane-layout family an operation uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    /// gfx90a, gfx942, gfx950 (wave64, blocks, AGPRs).
    Cdna,
    /// gfx1200, gfx1201 (wave32 or wave64, 16x16 tiles).
    Gfx12,
}

/// A source element type as the opcode names it (modifiers make it concrete: [`Elem`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ty {
    F64,
    F32,
    Xf32,
    F16,
    Bf16,
    /// Signed 8-bit integers (CDNA).
    I8,
    /// GFX12 8-bit integers, signed when the operand's NEG bit is set.
    Iu8,
    /// GFX12 4-bit integers, signed when the operand's NEG bit is set.
    Iu4,
    /// FP8 (E4M3): FNUZ on gfx942, OCP elsewhere.
    Fp8,
    /// BF8 (E5M2): FNUZ on gfx942, OCP elsewhere.
    Bf8,
    /// gfx950 `f8f6f4`: the format comes from CBSZ (A) or BLGP (B).
    F8f6f4,
}

/// A result (C/D) element type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Out {
    F32,
    F64,
    I32,
    F16,
    Bf16,
}

impl Out {
    fn bits(self) -> usize {
        match self {
            Out::F64 => 64,
            Out::F16 | Out::Bf16 => 16,
            Out::F32 | Out::I32 => 32,
        }
    }
}

/// One matrix operation: `D[b] = A[ab(b)] * B[b] + C[b]` for `blocks` blocks of `m x n`,
/// inner dimension `k` (the dense k; a sparse A stores `k / 2` values per row).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shape {
    pub family: Family,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub blocks: usize,
    pub a: Ty,
    pub b: Ty,
    pub out: Out,
    pub sparse: bool,
}

impl Shape {
    /// A CDNA MFMA (`m x m`, `blocks` blocks).
    pub(crate) const fn mfma(m: usize, k: usize, blocks: usize, a: Ty, b: Ty, out: Out) -> Shape {
        Shape {
            family: Family::Cdna,
            m,
            n: m,
            k,
            blocks,
            a,
            b,
            out,
            sparse: false,
        }
    }

    /// A CDNA SMFMAC (one block, sparse A, D accumulates in place).
    pub(crate) const fn smfmac(m: usize, k: usize, a: Ty, b: Ty, out: Out) -> Shape {
        Shape {
            sparse: true,
            ..Shape::mfma(m, k, 1, a, b, out)
        }
    }

    /// A GFX12 WMMA (16 x 16 x `k`).
    pub(crate) const fn wmma(k: usize, a: Ty, b: Ty, out: Out) -> Shape {
        Shape {
            family: Family::Gfx12,
            ..Shape::mfma(16, k, 1, a, b, out)
        }
    }

    /// A GFX12 SWMMAC (16 x 16 x `k`, sparse A, D accumulates in place).
    pub(crate) const fn swmmac(k: usize, a: Ty, b: Ty, out: Out) -> Shape {
        Shape {
            sparse: true,
            ..Shape::wmma(k, a, b, out)
        }
    }
}

/// Where C comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CSrc {
    /// The register tuple starting at this row (AGPR rows included).
    Rows(usize),
    /// One value for every element: the raw 32-bit (64-bit for f64, 16-bit pattern in the
    /// low half for f16/bf16 results) bits of an inline constant or SGPR.
    Splat(u64),
}

/// Where an E8M0 block scale comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ScaleSrc {
    /// A VGPR row (per-lane scales).
    Row(usize),
    /// One 32-bit value for all lanes (SGPR or inline constant).
    Splat(u32),
}

/// The registers and modifier values of one matrix instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Operands {
    /// First row of A (AGPRs are rows 256..).
    pub a: usize,
    /// First row of B.
    pub b: usize,
    /// C (sparse operations: the D tuple itself).
    pub c: CSrc,
    /// First row of D.
    pub d: usize,
    /// Sparse operations: the row holding the compression indices.
    pub index: usize,
    pub cbsz: u32,
    pub abid: u32,
    pub blgp: u32,
    /// NEG (neg_lo) bits: A, B, C.
    pub neg: u32,
    /// NEG_HI bits: A, B, C (|C| for bit 2).
    pub neg_hi: u32,
    /// GFX12 SWMMAC index set (OPSEL).
    pub index_key: u32,
    /// GFX12 integer saturation.
    pub clamp: bool,
    /// gfx950 scaled MFMA: the A and B scale sources and their byte selects.
    pub scale: Option<[(ScaleSrc, u32); 2]>,
    /// GFX12 wave size 64.
    pub wave64: bool,
    /// gfx942: 8-bit floats in the FNUZ encodings.
    pub fnuz: bool,
}

impl Operands {
    /// Registers only, every modifier zero.
    pub(crate) fn new(a: usize, b: usize, c: CSrc, d: usize) -> Operands {
        Operands {
            a,
            b,
            c,
            d,
            index: 0,
            cbsz: 0,
            abid: 0,
            blgp: 0,
            neg: 0,
            neg_hi: 0,
            index_key: 0,
            clamp: false,
            scale: None,
            wave64: false,
            fnuz: false,
        }
    }
}

/// Largest operand, in elements: 64 lanes x 32 values (A, B) or 32 registers x 64 lanes (D).
const MAX: usize = 2048;
/// Largest A or B register tuple.
const MAX_REGS: usize = 8;

fn unsupported(what: &'static str) -> FaultReason {
    FaultReason::UnsupportedForm(what)
}

/// The concrete plan of one instruction: formats, tuple sizes, lane count, index set.
struct Plan {
    sh: Shape,
    a: Elem,
    b: Elem,
    lanes: usize,
    a_regs: usize,
    b_regs: usize,
    d_regs: usize,
    /// Stored A values per row (k, or k / 2 when sparse).
    kc: usize,
    index_set: usize,
}

fn f8f6f4_elem(code: u32) -> Result<Elem, FaultReason> {
    Ok(match code {
        0 => Elem::Fp8,
        1 => Elem::Bf8,
        2 => Elem::Fp6,
        3 => Elem::Bf6,
        4 => Elem::Fp4,
        _ => {
            return Err(unsupported(
                "f8f6f4 mfma with a cbsz/blgp format code above 4",
            ))
        }
    })
}

impl Plan {
    fn new(sh: &Shape, o: &Operands) -> Result<Plan, FaultReason> {
        let cdna = sh.family == Family::Cdna;
        let lanes = if cdna || o.wave64 { 64 } else { 32 };
        let concrete = |t: Ty, fmt: u32, signed: bool| -> Result<Elem, FaultReason> {
            Ok(match t {
                Ty::F64 => Elem::F64,
                Ty::F32 => Elem::F32,
                Ty::Xf32 => Elem::Xf32,
                Ty::F16 => Elem::F16,
                Ty::Bf16 => Elem::Bf16,
                Ty::I8 => Elem::I8,
                Ty::Iu8 if signed => Elem::I8,
                Ty::Iu8 => Elem::U8,
                Ty::Iu4 if signed => Elem::I4,
                Ty::Iu4 => Elem::U4,
                Ty::Fp8 if o.fnuz => Elem::Fp8Fnuz,
                Ty::Fp8 => Elem::Fp8,
                Ty::Bf8 if o.fnuz => Elem::Bf8Fnuz,
                Ty::Bf8 => Elem::Bf8,
                Ty::F8f6f4 => f8f6f4_elem(fmt)?,
            })
        };
        let a = concrete(sh.a, o.cbsz, o.neg & 1 != 0)?;
        let b = concrete(sh.b, o.blgp, o.neg & 2 != 0)?;
        let kc = if sh.sparse { sh.k / 2 } else { sh.k };
        let regs = |elems: usize, width: usize| (elems * width).div_ceil(32 * lanes).max(1);
        let a_regs = regs(sh.m * sh.blocks * kc, a.bits());
        let b_regs = regs(sh.n * sh.blocks * sh.k, b.bits());
        let d_regs = regs(sh.m * sh.n * sh.blocks, sh.out.bits());
        let mut index_set = 0;
        if cdna {
            if sh.a == Ty::F8f6f4 && o.abid != 0 {
                return Err(unsupported("f8f6f4 mfma with abid"));
            }
            if sh.sparse {
                if o.blgp != 0 {
                    return Err(unsupported("smfmac with blgp"));
                }
                let sets = layout::cdna_index_sets(sh.m, sh.k);
                index_set = if o.cbsz != 0 { 0 } else { o.abid as usize };
                if index_set >= sets {
                    return Err(unsupported(
                        "smfmac abid names an index set the source width does not have",
                    ));
                }
            } else if sh.a != Ty::F8f6f4 {
                let blocks = sh.blocks;
                let cbsz = o.cbsz.min(31);
                if (0..blocks).any(|b| (b >> cbsz << cbsz) + o.abid as usize >= blocks) {
                    return Err(unsupported(
                        "mfma abid names a block the shape does not have",
                    ));
                }
            }
        } else {
            let int = a.is_int();
            let f8 = matches!(sh.a, Ty::Fp8 | Ty::Bf8);
            // SWMMAC's src2 is the index (C is D): NEG[2]/NEG_HI[2] name nothing.
            if (int && (o.neg & 4 != 0 || o.neg_hi != 0))
                || (f8 && (o.neg | o.neg_hi) & 3 != 0)
                || (sh.sparse && (o.neg | o.neg_hi) & 4 != 0)
            {
                return Err(unsupported(
                    "wmma neg/neg_hi bits the source format does not have",
                ));
            }
            if sh.sparse {
                let sets = layout::gfx12_index_sets(o.wave64, a.bits(), sh.k);
                index_set = o.index_key as usize;
                if index_set >= sets {
                    return Err(unsupported(
                        "swmmac index_key names an index set the format does not have",
                    ));
                }
            }
        }
        let rows = |first: usize, n: usize| first + n <= VGPR_ROWS;
        let c_ok = match o.c {
            CSrc::Rows(r) => rows(r, d_regs),
            CSrc::Splat(_) => true,
        };
        let scale_ok = o.scale.is_none_or(|s| {
            s.iter().all(|(src, _)| match src {
                ScaleSrc::Row(r) => rows(*r, 1),
                ScaleSrc::Splat(_) => true,
            })
        });
        if !(rows(o.a, a_regs) && rows(o.b, b_regs) && rows(o.d, d_regs) && c_ok && scale_ok)
            || (sh.sparse && !rows(o.index, 1))
        {
            return Err(unsupported("matrix operand tuple past the register file"));
        }
        Ok(Plan {
            sh: *sh,
            a,
            b,
            lanes,
            a_regs,
            b_regs,
            d_regs,
            kc,
            index_set,
        })
    }
}

/// Executes one matrix operation on `w`.
pub(crate) fn exec(w: &mut Wave, sh: &Shape, o: &Operands) -> Result<(), FaultReason> {
    let p = Plan::new(sh, o)?;
    debug_assert!(p.d_regs <= 32 && p.lanes <= LANES);
    kernel::run(w, &p, o);
    Ok(())
}

/// Executes a matrix instruction of `target` (MFMA, SMFMAC, scaled MFMA, WMMA, SWMMAC):
/// its [`Shape`] from [`ops::shape`], its registers and modifiers from the lowered
/// instruction.
pub(crate) fn exec_inst(w: &mut Wave, i: &Inst, target: Target) -> Result<(), FaultReason> {
    // `v_mfma_ld_scale_b32` on its own (not followed by an MFMA it scales, which the
    // decoder would read as one 16-byte VOP3PX2 instruction, executed above): its only
    // architectural effect is the scale of the MFMA it opens (LLVM 22 models it as the
    // first word of `v_mfma_scale_*` and gives it no destination), so alone it changes
    // nothing a program can observe.
    if i.op == Op::VMfmaLdScaleB32 {
        return Ok(());
    }
    let Some(sh) = ops::shape(i.op) else {
        return Err(FaultReason::Unimplemented(i.mnemonic()));
    };
    let o = match target.family() {
        IsaFamily::Gfx9 => cdna_operands(w, i, &sh, target)?,
        IsaFamily::Gfx12 => gfx12_operands(w, i, &sh)?,
    };
    exec(w, &sh, &o)
}

/// A VGPR row from a 9-bit source code (256 + n), `None` for a scalar source.
fn vgpr(code: u16) -> Option<usize> {
    (code >= 256).then(|| (code - 256) as usize)
}

/// Operands of a GFX9 MAI or VOP3PX2 instruction. A and B (AGPRs by `acc`) must be vector
/// registers; C may be a scalar or inline constant; C and D are AGPRs under `acc_cd`.
fn cdna_operands(w: &Wave, i: &Inst, sh: &Shape, target: Target) -> Result<Operands, FaultReason> {
    let m = i.mai;
    let agpr = |on: bool| if on { AGPR_BASE } else { 0 };
    let (Some(a), Some(b)) = (vgpr(i.src[0]), vgpr(i.src[1])) else {
        return Err(unsupported("mfma with scalar A/B operands"));
    };
    let (a, b) = (a + agpr(m.acc & 1 != 0), b + agpr(m.acc & 2 != 0));
    let d = i.dst as usize + agpr(m.acc_cd);
    let c = if sh.sparse {
        CSrc::Rows(d)
    } else {
        match vgpr(i.src[2]) {
            Some(r) => CSrc::Rows(r + agpr(m.acc_cd)),
            None if sh.out == Out::F64 => CSrc::Splat(w.sread64(i.src[2], i.lit, true)),
            None => CSrc::Splat(w.sread(i.src[2], i.lit) as u64),
        }
    };
    let mut o = Operands::new(a, b, c, d);
    (o.cbsz, o.abid) = (u32::from(m.cbsz), u32::from(m.abid));
    o.fnuz = target == Target::Gfx942;
    let blgp = u32::from(m.blgp);
    match (sh.out == Out::F64, target) {
        (true, Target::Gfx90a) if blgp != 0 => {
            return Err(unsupported("gfx90a f64 mfma with blgp"))
        }
        (true, _) => o.neg = blgp,
        _ => o.blgp = blgp,
    }
    if sh.sparse {
        // The compression index is an architectural VGPR (calculator README, SMFMAC).
        o.index = vgpr(i.src[2]).ok_or(unsupported("smfmac index in a scalar operand"))?;
    }
    if let Some([s0, s1]) = m.scale {
        let src = |c: u16| match vgpr(c) {
            Some(r) => ScaleSrc::Row(r),
            None => ScaleSrc::Splat(w.sread(c, i.lit)),
        };
        let byte = |n: u32| u32::from(i.op_sel >> n & 1 | (i.op_sel_hi >> n & 1) << 1);
        o.scale = Some([(src(s0), byte(0)), (src(s1), byte(1))]);
    }
    Ok(o)
}

/// Operands of a GFX12 WMMA/SWMMAC (VOP3P): A and B VGPRs, C a VGPR tuple or an inline
/// constant (f16 results: its f16 pattern; bf16 results: a float constant's bf16 pattern,
/// the top half of its f32 one, a documented choice), NEG/NEG_HI/CLAMP as encoded, OPSEL
/// the SWMMAC index set.
fn gfx12_operands(w: &Wave, i: &Inst, sh: &Shape) -> Result<Operands, FaultReason> {
    let (Some(a), Some(b)) = (vgpr(i.src[0]), vgpr(i.src[1])) else {
        return Err(unsupported("wmma with scalar A/B operands"));
    };
    let d = i.dst as usize;
    let c = if sh.sparse {
        CSrc::Rows(d)
    } else {
        match vgpr(i.src[2]) {
            Some(r) => CSrc::Rows(r),
            None => CSrc::Splat(match sh.out {
                Out::F16 => w.sread16(i.src[2], i.lit) as u64 & 0xffff,
                Out::Bf16 if (240..=248).contains(&i.src[2]) => {
                    (w.sread(i.src[2], i.lit) >> 16) as u64
                }
                Out::Bf16 => w.sread(i.src[2], i.lit) as u64 & 0xffff,
                _ => w.sread(i.src[2], i.lit) as u64,
            }),
        }
    };
    let mut o = Operands::new(a, b, c, d);
    o.neg = u32::from(i.neg);
    o.neg_hi = u32::from(i.abs);
    o.clamp = i.clamp;
    o.wave64 = w.wave_size == 64;
    if sh.sparse {
        o.index = vgpr(i.src[2]).ok_or(unsupported("swmmac index in a scalar operand"))?;
        o.index_key = u32::from(i.op_sel & 3);
    }
    Ok(o)
}

#[cfg(test)]
mod tests;
