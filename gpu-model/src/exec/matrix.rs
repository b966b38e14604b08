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
//! (`index_key`) picks the index set. Modifier bits the hardware leaves undefined (NEG on
//! 8-bit floats or integers' C, ABID on `f8f6f4`, an index set past the register) are
//! refused with [`FaultReason::UnsupportedForm`].
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
//! EXEC is ignored: the instructions require all lanes enabled (the CDNA3 and RDNA4 guides
//! make other masks undefined); every lane of the result is written.

mod elem;
mod layout;

pub(crate) use elem::Elem;

use super::wave::{Wave, LANES, VGPR_ROWS};
use super::FaultReason;
use layout::Slot;

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
            if (int && (o.neg & 4 != 0 || o.neg_hi != 0)) || (f8 && (o.neg | o.neg_hi) & 3 != 0) {
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

/// A register tuple, copied (the result may overwrite its sources).
struct Tuple {
    rows: [[u32; LANES]; MAX_REGS],
    n: usize,
}

impl Tuple {
    fn load(w: &Wave, first: usize, n: usize) -> Tuple {
        let mut rows = [[0; LANES]; MAX_REGS];
        let n = n.min(MAX_REGS);
        rows[..n].copy_from_slice(&w.v[first..first + n]);
        Tuple { rows, n }
    }

    /// The `width`-bit field at `bit` of register `reg` of `lane`, continuing into the next
    /// register when it straddles (FP6, f64).
    #[inline(always)]
    fn field(&self, reg: usize, bit: usize, width: usize, lane: usize) -> u64 {
        let reg = reg + bit / 32;
        let bit = bit % 32;
        let word = |r: usize| {
            if r < self.n {
                self.rows[r][lane] as u64
            } else {
                0
            }
        };
        let v = if bit + width > 32 {
            word(reg) | word(reg + 1) << 32
        } else {
            word(reg)
        };
        let v = v >> bit;
        if width >= 64 {
            v
        } else {
            v & ((1 << width) - 1)
        }
    }
}

/// Marks a 16-bit element read from the high half of its register (GFX12 NEG_HI).
const HI: u64 = 1 << 63;

/// Gathers dense A (`a[(b * m + i) * k + kk]`) or B (`b[(b * k + kk) * n + j]`) raw codes.
fn gather(p: &Plan, o: &Operands, t: &Tuple, is_b: bool, out: &mut [u64]) {
    let sh = &p.sh;
    let e = if is_b { p.b } else { p.a };
    let width = e.bits();
    let (outer, k) = (if is_b { sh.n } else { sh.m }, sh.k);
    let f8f6f4 = sh.a == Ty::F8f6f4;
    let run = match sh.family {
        Family::Cdna if f8f6f4 => layout::f8f6f4_run(width),
        Family::Cdna => layout::cdna_run(outer, k, sh.blocks),
        Family::Gfx12 => layout::gfx12_run(width),
    };
    let blgp_lane = |l: usize| match (
        is_b && sh.family == Family::Cdna && sh.out != Out::F64,
        o.blgp,
    ) {
        (false, _) | (true, 0) => l,
        (true, 1) => l % 32,
        (true, 2) => 32 + l % 32,
        (true, 3) => (l + 16) % 64,
        (true, g) => 16 * (g as usize - 4) + l % 16,
    };
    for b in 0..sh.blocks {
        for i in 0..outer {
            for k0 in (0..k).step_by(run) {
                let s: Slot = match sh.family {
                    Family::Cdna if f8f6f4 => layout::f8f6f4(outer, k, width, i, k0),
                    Family::Cdna => layout::cdna(outer, k, sh.blocks, width, b, i, k0),
                    Family::Gfx12 if is_b && sh.sparse => {
                        layout::gfx12_sparse_b(o.wave64, width, k, i, k0)
                    }
                    Family::Gfx12 => layout::gfx12(o.wave64, width, k, i, k0),
                };
                let lane = blgp_lane(s.lane);
                for x in 0..run {
                    let bit = s.bit + x * width;
                    let mut v = t.field(s.reg, bit, width, lane);
                    if width == 16 && bit % 32 >= 16 {
                        v |= HI;
                    }
                    let kk = k0 + x;
                    let idx = if is_b {
                        (b * k + kk) * outer + i
                    } else {
                        (b * outer + i) * k + kk
                    };
                    out[idx] = v;
                }
            }
        }
    }
}

/// Gathers a sparse A: raw codes `a[i * kc + c]` and the dense k each stored value
/// multiplies, `ks[i * kc + c]`.
fn gather_sparse(
    p: &Plan,
    o: &Operands,
    t: &Tuple,
    index: &[u32; LANES],
    out: &mut [u64],
    ks: &mut [u16],
) {
    let sh = &p.sh;
    let width = p.a.bits();
    let run = match sh.family {
        Family::Cdna => layout::cdna_sparse_run(sh.m, sh.k),
        Family::Gfx12 => layout::gfx12_run(width),
    };
    for i in 0..sh.m {
        for c0 in (0..p.kc).step_by(run) {
            let s = match sh.family {
                Family::Cdna => layout::cdna_sparse_a(sh.m, sh.k, width, i, c0),
                Family::Gfx12 => layout::gfx12_sparse_a(o.wave64, width, sh.k, i, c0),
            };
            for x in 0..run {
                let c = c0 + x;
                let bit = s.bit + x * width;
                let mut v = t.field(s.reg, bit, width, s.lane);
                if width == 16 && bit % 32 >= 16 {
                    v |= HI;
                }
                let ix = match sh.family {
                    Family::Cdna => layout::cdna_index(sh.m, sh.k, i, c, p.index_set),
                    Family::Gfx12 => layout::gfx12_index(o.wave64, width, sh.k, i, c, p.index_set),
                };
                let pos = (index[ix.lane] >> ix.bit) & 3;
                out[i * p.kc + c] = v;
                ks[i * p.kc + c] = (4 * (c / 2) + pos as usize) as u16;
            }
        }
    }
}

/// The location of result element `[i][j]` of block `b`.
fn out_slot(p: &Plan, o: &Operands, b: usize, i: usize, j: usize) -> Slot {
    let sh = &p.sh;
    match sh.family {
        Family::Cdna => layout::cdna_out(sh.m, sh.n, sh.out.bits(), b, i, j),
        Family::Gfx12 => layout::gfx12_out(o.wave64, sh.out.bits(), i, j),
    }
}

/// Multiply-accumulate rules (see the module doc, "Numerics").
trait Arith {
    type V: Copy + Default;
    fn mac(acc: Self::V, x: Self::V, y: Self::V) -> Self::V;
}

/// f32 accumulation of products that are exact in f32.
struct F32Exact;
impl Arith for F32Exact {
    type V = f32;
    #[inline(always)]
    fn mac(acc: f32, x: f32, y: f32) -> f32 {
        acc + x * y
    }
}

/// f32 fused multiply-add (f32 sources).
struct F32Fused;
impl Arith for F32Fused {
    type V = f32;
    #[inline(always)]
    fn mac(acc: f32, x: f32, y: f32) -> f32 {
        x.mul_add(y, acc)
    }
}

/// f64 fused multiply-add.
struct F64Fused;
impl Arith for F64Fused {
    type V = f64;
    #[inline(always)]
    fn mac(acc: f64, x: f64, y: f64) -> f64 {
        x.mul_add(y, acc)
    }
}

/// Exact integer accumulation (every sum of the instructions fits an i64).
struct Int;
impl Arith for Int {
    type V = i64;
    #[inline(always)]
    fn mac(acc: i64, x: i64, y: i64) -> i64 {
        acc.wrapping_add(x.wrapping_mul(y))
    }
}

/// The A/B values and the result accumulator of one instruction, in one arithmetic
/// (`ks`: the dense k of each stored sparse A value).
struct Mats<'a, V> {
    a: [V; MAX],
    ks: &'a [u16; MAX],
    b: [V; MAX],
    d: [V; MAX],
}

impl<'a, V: Copy + Default> Mats<'a, V> {
    fn new(ks: &'a [u16; MAX]) -> Self {
        Mats {
            a: [V::default(); MAX],
            ks,
            b: [V::default(); MAX],
            d: [V::default(); MAX],
        }
    }
}

/// `D += A * B` per block, in k order, vectorisable over j.
fn multiply<A: Arith>(p: &Plan, o: &Operands, m: &mut Mats<'_, A::V>) {
    let sh = &p.sh;
    let (rows, n, k, kc) = (sh.m, sh.n, sh.k, p.kc);
    let cbsz = o.cbsz.min(31);
    for blk in 0..sh.blocks {
        let ab = if sh.sparse || sh.a == Ty::F8f6f4 {
            blk
        } else {
            (blk >> cbsz << cbsz) + o.abid as usize
        };
        for i in 0..rows {
            let d = &mut m.d[(blk * rows + i) * n..][..n];
            for c in 0..kc {
                let (x, kk) = if sh.sparse {
                    (m.a[i * kc + c], m.ks[i * kc + c] as usize)
                } else {
                    (m.a[(ab * rows + i) * k + c], c)
                };
                let brow = &m.b[(blk * k + kk) * n..][..n];
                for (dj, &bj) in d.iter_mut().zip(brow) {
                    *dj = A::mac(*dj, x, bj);
                }
            }
        }
    }
}

/// The f8f6f4 datapath: per 32-wide k block, products summed from zero in f32, the block
/// sum scaled by `2^(ea + eb)` (E8M0 scales; NaN for a NaN scale) and added to D.
fn multiply_blocked(p: &Plan, m: &mut Mats<'_, f32>, scales: &[[Option<i32>; LANES]; 2]) {
    let sh = &p.sh;
    let (rows, n, k) = (sh.m, sh.n, sh.k);
    let mut part = [0f32; 32];
    for i in 0..rows {
        for kb in 0..k / 32 {
            let part = &mut part[..n];
            part.fill(0.0);
            for kk in 32 * kb..32 * kb + 32 {
                let x = m.a[i * k + kk];
                let brow = &m.b[kk * n..][..n];
                for (pj, &bj) in part.iter_mut().zip(brow) {
                    *pj += x * bj;
                }
            }
            let d = &mut m.d[i * n..][..n];
            let ea = scales[0][kb * rows + i];
            for (j, dj) in d.iter_mut().enumerate() {
                let s = match (ea, scales[1][kb * n + j]) {
                    (Some(x), Some(y)) => (part[j] as f64 * 2f64.powi(x + y)) as f32,
                    _ => f32::NAN,
                };
                *dj += s;
            }
        }
    }
}

/// Decodes raw codes to f32, with the GFX12 16-bit NEG/NEG_HI flips (`neg` bit 0 for the
/// low half, bit 1 for the high half).
fn to_f32(e: Elem, raw: &[u64], out: &mut [f32], neg: u32) {
    let flip = |v: f32, r: u64| if neg >> (r >> 63) & 1 != 0 { -v } else { v };
    match (e, e.table()) {
        (_, Some(t)) => raw
            .iter()
            .zip(out)
            .for_each(|(&r, o)| *o = t[(r & 0xff) as usize]),
        (Elem::F16, _) => raw
            .iter()
            .zip(out)
            .for_each(|(&r, o)| *o = flip(half::f16::from_bits(r as u16).to_f32(), r)),
        (Elem::Bf16, _) => raw
            .iter()
            .zip(out)
            .for_each(|(&r, o)| *o = flip(f32::from_bits((r as u32 & 0xffff) << 16), r)),
        (Elem::Xf32, _) => raw
            .iter()
            .zip(out)
            .for_each(|(&r, o)| *o = elem::xf32(r as u32)),
        _ => raw
            .iter()
            .zip(out)
            .for_each(|(&r, o)| *o = f32::from_bits(r as u32)),
    }
}

/// Reads C: every result element's raw bits (64-bit results: both registers) into `raw`
/// in `[b][i][j]` order.
fn gather_c(w: &Wave, p: &Plan, o: &Operands, raw: &mut [u64]) {
    let sh = &p.sh;
    let bits = sh.out.bits();
    for b in 0..sh.blocks {
        for i in 0..sh.m {
            let s = out_slot(p, o, b, i, 0);
            for j in 0..sh.n {
                let lane = s.lane + j;
                let v = match o.c {
                    CSrc::Splat(x) => x,
                    CSrc::Rows(r) => {
                        let lo = w.v[r + s.reg][lane] as u64;
                        if bits == 64 {
                            lo | (w.v[r + s.reg + 1][lane] as u64) << 32
                        } else {
                            lo >> s.bit
                        }
                    }
                };
                raw[(b * sh.m + i) * sh.n + j] = v;
            }
        }
    }
}

/// Writes the results, `bits(v)` giving each element's raw bits.
fn scatter(w: &mut Wave, p: &Plan, o: &Operands, bits: impl Fn(usize) -> u64) {
    let sh = &p.sh;
    let width = sh.out.bits();
    for b in 0..sh.blocks {
        for i in 0..sh.m {
            let s = out_slot(p, o, b, i, 0);
            for j in 0..sh.n {
                let (lane, v) = (s.lane + j, bits((b * sh.m + i) * sh.n + j));
                let r = o.d + s.reg;
                match width {
                    64 => {
                        w.v[r][lane] = v as u32;
                        w.v[r + 1][lane] = (v >> 32) as u32;
                    }
                    16 => {
                        let keep = w.v[r][lane] & !(0xffff << s.bit);
                        w.v[r][lane] = keep | (v as u32 & 0xffff) << s.bit;
                    }
                    _ => w.v[r][lane] = v as u32,
                }
            }
        }
    }
}

/// Raw codes of one instruction's operands, in matrix order (see [`gather`]).
struct Raw {
    a: [u64; MAX],
    ks: [u16; MAX],
    b: [u64; MAX],
    c: [u64; MAX],
    na: usize,
    nb: usize,
    nd: usize,
}

impl Raw {
    fn gather(w: &Wave, p: &Plan, o: &Operands) -> Raw {
        let sh = &p.sh;
        let mut r = Raw {
            a: [0; MAX],
            ks: [0; MAX],
            b: [0; MAX],
            c: [0; MAX],
            na: sh.m * sh.blocks * p.kc,
            nb: sh.n * sh.blocks * sh.k,
            nd: sh.m * sh.n * sh.blocks,
        };
        let ta = Tuple::load(w, o.a, p.a_regs);
        let tb = Tuple::load(w, o.b, p.b_regs);
        if sh.sparse {
            gather_sparse(p, o, &ta, &w.v[o.index], &mut r.a, &mut r.ks);
        } else {
            gather(p, o, &ta, false, &mut r.a);
        }
        gather(p, o, &tb, true, &mut r.b);
        gather_c(w, p, o, &mut r.c);
        r
    }
}

/// Executes one matrix operation on `w`.
pub(crate) fn exec(w: &mut Wave, sh: &Shape, o: &Operands) -> Result<(), FaultReason> {
    let p = Plan::new(sh, o)?;
    debug_assert!(p.d_regs <= 32 && p.lanes <= LANES);
    match sh.out {
        Out::F64 => run_f64(w, &p, o),
        Out::I32 => run_int(w, &p, o),
        _ => run_f32(w, &p, o),
    }
    Ok(())
}

/// f64 operations (gfx942+: NEG bits from BLGP negate A, B, C).
#[inline(never)]
fn run_f64(w: &mut Wave, p: &Plan, o: &Operands) {
    let r = Raw::gather(w, p, o);
    let mut m = Mats::<f64>::new(&r.ks);
    let sign = |bit: u32| if o.neg >> bit & 1 != 0 { -1.0 } else { 1.0 };
    (0..r.na).for_each(|x| m.a[x] = sign(0) * f64::from_bits(r.a[x]));
    (0..r.nb).for_each(|x| m.b[x] = sign(1) * f64::from_bits(r.b[x]));
    (0..r.nd).for_each(|x| m.d[x] = sign(2) * f64::from_bits(r.c[x]));
    multiply::<F64Fused>(p, o, &mut m);
    scatter(w, p, o, |x| m.d[x].to_bits());
}

/// Integer operations: exact sums, wrapped (or, GFX12 CLAMP, saturated) to i32.
#[inline(never)]
fn run_int(w: &mut Wave, p: &Plan, o: &Operands) {
    let r = Raw::gather(w, p, o);
    let mut m = Mats::<i64>::new(&r.ks);
    (0..r.na).for_each(|x| m.a[x] = p.a.int(r.a[x]));
    (0..r.nb).for_each(|x| m.b[x] = p.b.int(r.b[x]));
    (0..r.nd).for_each(|x| m.d[x] = r.c[x] as u32 as i32 as i64);
    multiply::<Int>(p, o, &mut m);
    let clamp = o.clamp && p.sh.family == Family::Gfx12;
    scatter(w, p, o, |x| {
        let v = m.d[x];
        let v = if clamp {
            v.clamp(i32::MIN as i64, i32::MAX as i64)
        } else {
            v
        };
        v as i32 as u32 as u64
    });
}

/// Operations accumulating in f32 (f32, f16 or bf16 results).
#[inline(never)]
fn run_f32(w: &mut Wave, p: &Plan, o: &Operands) {
    let sh = &p.sh;
    let r = Raw::gather(w, p, o);
    let mut m = Mats::<f32>::new(&r.ks);
    to_f32(
        p.a,
        &r.a[..r.na],
        &mut m.a[..r.na],
        o.neg & 1 | (o.neg_hi & 1) << 1,
    );
    to_f32(
        p.b,
        &r.b[..r.nb],
        &mut m.b[..r.nb],
        (o.neg >> 1) & 1 | (o.neg_hi & 2),
    );
    let (neg_c, abs_c) = (o.neg & 4 != 0, o.neg_hi & 4 != 0);
    for x in 0..r.nd {
        let c = r.c[x];
        let mut v = match sh.out {
            Out::F16 => half::f16::from_bits(c as u16).to_f32(),
            Out::Bf16 => f32::from_bits((c as u32 & 0xffff) << 16),
            _ => f32::from_bits(c as u32),
        };
        if abs_c {
            v = v.abs();
        }
        if neg_c {
            v = -v;
        }
        m.d[x] = v;
    }
    if sh.a == Ty::F8f6f4 {
        let mut scales = [[Some(0); LANES]; 2];
        if let Some(s) = o.scale {
            for (n, (src, byte)) in s.iter().enumerate() {
                for (l, e) in scales[n].iter_mut().enumerate() {
                    let word = match src {
                        ScaleSrc::Row(row) => w.v[*row][l],
                        ScaleSrc::Splat(x) => *x,
                    };
                    *e = elem::e8m0_exp((word >> (8 * (byte & 3))) as u8);
                }
            }
        }
        multiply_blocked(p, &mut m, &scales);
    } else if p.a == Elem::F32 {
        multiply::<F32Fused>(p, o, &mut m);
    } else {
        multiply::<F32Exact>(p, o, &mut m);
    }
    scatter(w, p, o, |x| {
        let v = m.d[x];
        match sh.out {
            Out::F16 => half::f16::from_f32(v).to_bits() as u64,
            Out::Bf16 => half::bf16::from_f32(v).to_bits() as u64,
            _ => v.to_bits() as u64,
        }
    });
}

#[cfg(test)]
mod tests;
