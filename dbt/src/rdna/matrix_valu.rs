//! gfx950 f32 and f64 MFMAs -> gfx1201 (wave64) VALU: GFX12 has no WMMA with f32 or f64
//! inputs (`v_wmma_f32_16x16x16_{f16,bf16,fp8_*,bf8_*}` and the integer ones only;
//! llvm-mc-22 `-mcpu=gfx1201`), so each result element is computed by a chain of
//! `v_fma_f32` (`v_fma_f64`) in its own lane, reading A and B across lanes with
//! `ds_bpermute_b32` (an f64 value with two, one per half).
//!
//! Guest semantics (the gfx950 model, `gpu-model/src/exec/matrix/kernel.rs`, `F32Fused`
//! and `F64Fused`): `D[b][i][j] = fma(A[b][i][K-1], B[b][K-1][j], ... fma(A[b][i][0],
//! B[b][0][j], C[b][i][j]))`, one fused multiply-add per k in k order, MODE ignored. The
//! host does the same FMAs in the same order, so the results are bit-identical as long as
//! the VALU does not flush what the MFMA keeps: with the kernel's FLOAT_MODE keeping f32
//! denormals (bits 5:4 = 3, clang-22's and IREE's 0xf0) and rounding to nearest even (bits
//! 1:0 = 0), `v_fma_f32` is the IEEE fused multiply-add; for f64 the same with bits 7:6
//! and 3:2. A kernel whose FLOAT_MODE flushes or rounds otherwise gets `s_denorm_mode` /
//! `s_round_mode` to that mode before the sequence and back to the kernel's after it.
//! ASSUMPTION: the kernel does not change MODE at run time (the rule restores the
//! descriptor's mode; the same assumption the `v_cvt_pk_bf16_f32` rule makes). An f64 MFMA's BLGP is the NEG of A, B and C (bits 0,
//! 1, 2; the model multiplies by -1 before the products), which become `v_fma_f64`'s
//! source NEG bits, C's on the first k only. ASSUMPTION: the two differ only in the sign
//! of a NaN result (x86 keeps a NaN operand's sign through `* -1.0`, NEG flips it).
//!
//! Layouts (f32 and f64 inputs hold one k per lane, `kl` = 1): the CDNA dense A of block
//! `b` has `A[b][i][k]` in lane `b * M + k * M * blocks + i` (B alike with `j`); 64-bit
//! D values sit in rows of one register pair (`4` below becomes `1`), and the 32-bit D
//! has `D[b][i][j]` in register `b * M * M / 64 + (i / (4 * mpr)) * 4 + i % 4`, lane
//! `(b % bpr) * M + ((i / 4) % mpr) * bpr * M + j` with `mpr = 64 / M`, `bpr = ceil(64 /
//! (M * M / 4))`: the model's `exec::matrix::layout::{cdna, cdna_out}` (AMD's matrix
//! instruction calculator). The rule inverts the D layout into, per D register `R` and k,
//! the lane each result lane reads A and B from. Every such map is a per-lane base (the
//! same for all `R` and k) plus a constant, which `ds_bpermute_b32` takes as its offset
//! (lane `(addr + offset) / 4 % 64`; RDNA4 ISA guide as the model's `exec::ds::lane`
//! implements it); the base is built from the lane id (`v_mbcnt_{lo,hi}_u32_b32`) with a
//! shift or a mask, checked against the map at translation time, once per kernel at its
//! entry into a VGPR reserved for it ([`Bases`]). A source that is the result lane itself
//! is read in place.
//!
//! In (D register, k) order, as many permutes as fit in 24 scratch VGPRs (one per A
//! operand, one per distinct B operand), `s_wait_dscnt 0`, then their FMAs (`v_fma_f32`
//! from C for the first k, `v_fmac_f32` after), so every element still adds its products
//! in k order. An A or B register inside D is copied first
//! (D is written from the first k on); C equal to D or apart from it is read before its
//! element is written; a C that partly overlaps D is refused by name. An f64 operand
//! takes two scratch VGPRs and two permutes, and its FMA is `v_fma_f64` with D as C
//! (GFX12 has no `v_fmac_f64`).
//!
//! CBSZ/ABID (A block broadcast) and the f32 BLGP (B lane broadcast) only change which
//! lane each product reads ([`Mods`]); the rule folds them into the lane maps, which then
//! must still be a base plus a constant (every value of the five f32 shapes is; checked
//! at translation time, refused by name otherwise). An ABID naming a block the shape does
//! not have is refused (the model faults).
//!
//! ASSUMPTION: EXEC is all ones at every MFMA (the MFMA writes every lane; the FMAs only
//! active ones, and a permute reads 0 from an inactive lane), as `matrix`'s rules assume.
//!
//! Cost: f32 16x16x4 37 instructions, 32x32x2 68 (the corpus and IREE shapes); f64
//! 16x16x4 58 (40 permutes, 2 waits, 16 FMAs), 4x4x4 4-block 21 (16 permutes, a wait, 4
//! FMAs); 2 more in a kernel whose FLOAT_MODE differs, 1 or 2 per copied A/B register.
//! VGPRs: one per distinct base for the whole kernel (one more for the lane id with a
//! [`Base::Mix`]); per MFMA, 2 (f64: 4) scratch for A/B copies and one per permuted
//! register of a batch (at most 24).

use super::matrix::Emit;
use super::reencode::{self, Ctx};
use crate::cfg::Cfg;
use crate::error::TranslateError;
use gpu_model::isa::layout::{self, Format, F};
use gpu_model::isa::{Inst, Op, Operand};
use std::collections::BTreeSet;

/// An f32 or f64 MFMA: M (= N), K, blocks, and whether its values are f64 (register
/// pairs).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shape {
    m: u16,
    k: u16,
    blocks: u16,
    wide: bool,
}

impl Shape {
    /// Registers per value.
    fn w(self) -> u16 {
        if self.wide {
            2
        } else {
            1
        }
    }

    /// Result values per lane (D registers, or register pairs when wide).
    fn dvals(self) -> u16 {
        self.m * self.m * self.blocks / 64
    }
}

/// The f32-input MFMAs of gfx950 (`v_mfma_f32_{16x16x4,32x32x2,32x32x1_2b,16x16x1_4b,
/// 4x4x1_16b}_f32`; gfx950 has no xf32 MFMAs: llvm-mc-22 refuses them there) and its
/// f64 ones (`v_mfma_f64_{16x16x4,4x4x4_4b}_f64`, the only two in its ISA tables).
pub(crate) fn shape(o: Op) -> Option<Shape> {
    let (m, k, blocks, wide) = match o {
        Op::VMfmaF3216x16x4F32 => (16, 4, 1, false),
        Op::VMfmaF3232x32x2F32 => (32, 2, 1, false),
        Op::VMfmaF3232x32x12bF32 => (32, 1, 2, false),
        Op::VMfmaF3216x16x14bF32 => (16, 1, 4, false),
        Op::VMfmaF324x4x116bF32 => (4, 1, 16, false),
        Op::VMfmaF6416x16x4F64 => (16, 4, 1, true),
        Op::VMfmaF644x4x44bF64 => (4, 4, 4, true),
        _ => return None,
    };
    Some(Shape { m, k, blocks, wide })
}

/// Most D registers an f32 MFMA has (32x32x1 2-block).
const MAX_D: usize = 32;
/// Scratch VGPRs for permuted operands: the permutes of up to this many are issued
/// before one wait.
const TEMPS: u16 = 24;

/// (value, lane) -> (block, i, j) of the CDNA D layout (see the module doc; 64-bit
/// values sit in rows of one register pair where 32-bit ones sit in rows of 4 registers).
fn owners(s: Shape) -> [[(u16, u16, u16); 64]; MAX_D] {
    let mut own = [[(0, 0, 0); 64]; MAX_D];
    let m = s.m;
    let h = if s.wide { 1 } else { 4 };
    let mpr = 64 / m;
    let bpr = 64u16.div_ceil((m * m / h).max(1));
    for b in 0..s.blocks {
        for i in 0..m {
            for j in 0..m {
                let r = b * (m * m / 64) + (i / (h * mpr)) * h + i % h;
                let lane = (b % bpr) * m + ((i / h) % mpr) * bpr * m + j;
                own[usize::from(r)][usize::from(lane)] = (b, i, j);
            }
        }
    }
    own
}

/// The lane modifiers of an MFMA: CBSZ/ABID (A block `b` read from block
/// `(b >> cbsz << cbsz) + abid`) and, f32 only, BLGP (lane `l` reads B from lane 1: `l %
/// 32`, 2: `32 + l % 32`, 3: `(l + 16) % 64`, 4-7: `16 * (blgp - 4) + l % 16`; for f64
/// BLGP is the NEG of the sources). The gfx950 model's `exec::matrix` (module doc and
/// `gather`, `kernel::mul_n`).
#[derive(Debug, Clone, Copy, Default)]
struct Mods {
    cbsz: u32,
    abid: u32,
    blgp: u32,
}

impl Mods {
    /// The modifiers of `g`; `None` when ABID names a block the shape does not have (the
    /// model faults).
    fn of(g: &Inst, s: Shape) -> Option<Mods> {
        let m = Mods {
            cbsz: g.field(F::Cbsz),
            abid: g.field(F::Abid),
            blgp: if s.wide { 0 } else { g.field(F::Blgp) },
        };
        (0..u32::from(s.blocks))
            .all(|b| m.block(b) < u32::from(s.blocks))
            .then_some(m)
    }

    fn block(self, b: u32) -> u32 {
        b.checked_shr(self.cbsz)
            .and_then(|x| x.checked_shl(self.cbsz))
            .unwrap_or(0)
            + self.abid
    }

    fn b_lane(self, l: u16) -> u16 {
        match self.blgp {
            0 => l,
            1 => l % 32,
            2 => 32 + l % 32,
            3 => (l + 16) % 64,
            g => 16 * (g as u16 - 4) + l % 16,
        }
    }
}

/// The lane of the A (`col` false: row `i`) or B (`col`: column `j`) value that result
/// lane `(b, i, j)` multiplies at `k` (CDNA dense layout, one k per lane; `x` the lane
/// modifiers).
fn source(s: Shape, x: Mods, (b, i, j): (u16, u16, u16), k: u16, col: bool) -> u16 {
    if col {
        x.b_lane(b * s.m + k * s.m * s.blocks + j)
    } else {
        x.block(u32::from(b)) as u16 * s.m + k * s.m * s.blocks + i
    }
}

/// How a lane computes its permute base (in lanes) from its lane id `L`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Base {
    /// `L`.
    Lane,
    /// `L % q`.
    Low(u16),
    /// `(L / q) * c`.
    High(u16, u16),
    /// `(L & mask) + (L >> shift)`, the two parts in disjoint bits (the A of the f64
    /// 4x4 4-block shape: `(L & 12) + (L >> 4)`).
    Mix(u16, u16),
}

impl Base {
    fn of(self, l: u16) -> u16 {
        match self {
            Base::Lane => l,
            Base::Low(q) => l % q,
            Base::High(q, c) => l / q * c,
            Base::Mix(mask, shift) => (l & mask) + (l >> shift),
        }
    }

    /// The first of the candidates that gives `want` for every lane up to one constant
    /// (modulo 64).
    fn fit(want: &[u16; 64]) -> Option<Base> {
        let mut cands = vec![Base::Lane];
        for q in [4, 8, 16, 32] {
            cands.push(Base::Low(q));
            for c in [1, 2, 4, 8, 16, 32] {
                cands.push(Base::High(q, c));
            }
        }
        // The same lane for all (an A block broadcast to every block).
        cands.push(Base::High(64, 1));
        for shift in 2..6 {
            for mask in (1..64).filter(|m| m & (63 >> shift) == 0) {
                cands.push(Base::Mix(mask, shift));
            }
        }
        cands.into_iter().find(|b| {
            let d = |l: u16| (want[usize::from(l)] + 64 - b.of(l) % 64) % 64;
            (0..64u16).all(|l| d(l) == d(0))
        })
    }
}

/// The permute bases of a kernel scope's f32 MFMAs, each in a VGPR reserved for the whole
/// kernel (below the rules' scratch, above the chain tiles) and set once at the kernel
/// entry ([`Bases::setup`]): a base depends on the lane id only, and nothing else writes
/// these VGPRs, so every MFMA of the scope finds them set.
///
/// The lane id is built into the first base's VGPR, which the last base computed
/// overwrites; a [`Base::Mix`] reads the lane id twice, so a kernel with one keeps the
/// lane id in a VGPR of its own after the bases.
#[derive(Debug, Default)]
pub(crate) struct Bases {
    first: u16,
    list: Vec<Base>,
}

impl Bases {
    /// The distinct bases of the f32 MFMAs in scope `sc`, from VGPR `first` on.
    pub(crate) fn plan(cfg: &Cfg, sc: &BTreeSet<u64>, first: u16) -> Bases {
        let mut list = Vec::new();
        for s in sc.iter().filter_map(|pc| cfg.insts.get(pc)) {
            let Some(sh) = shape(s.inst.op) else {
                continue;
            };
            let own = owners(sh);
            let Some(x) = Mods::of(&s.inst, sh) else {
                continue;
            };
            for p in [perm(sh, x, &own, false), perm(sh, x, &own, true)]
                .into_iter()
                .flatten()
            {
                if !list.contains(&p.base) {
                    list.push(p.base);
                }
            }
        }
        Bases { first, list }
    }

    /// VGPRs reserved.
    pub(crate) fn count(&self) -> u16 {
        self.list.len() as u16 + u16::from(self.mixed())
    }

    fn mixed(&self) -> bool {
        self.list.iter().any(|b| matches!(b, Base::Mix(..)))
    }

    fn reg(&self, b: Base) -> Option<u16> {
        let k = self.list.iter().position(|&x| x == b)?;
        Some(self.first + k as u16)
    }

    /// The kernel-entry sequence that sets the bases: the lane id into the first VGPR,
    /// every base from it, the first last.
    pub(crate) fn setup(&self, cx: &mut Ctx<'_>) -> Result<Vec<Inst>, TranslateError> {
        if self.list.is_empty() {
            return Ok(Vec::new());
        }
        let mut e = Emit {
            out: Vec::new(),
            cx,
        };
        let lid = if self.mixed() {
            self.first + self.list.len() as u16
        } else {
            self.first
        };
        e.lane_id(lid)?;
        for (k, &b) in self.list.iter().enumerate().rev() {
            e.base(b, self.first + k as u16, lid)?;
        }
        Ok(e.out)
    }
}

/// The permutes of one operand: the base, and per (D register, k) the offset in lanes
/// from it (`None`: the operand is read in place).
struct Perm {
    base: Base,
    off: [[Option<u16>; 4]; MAX_D],
}

/// Splits the source-lane maps of A (`col` false) or B into base + offset; `None` when
/// some map is not the base shifted by a constant.
fn perm(s: Shape, x: Mods, own: &[[(u16, u16, u16); 64]; MAX_D], col: bool) -> Option<Perm> {
    let dregs = usize::from(s.dvals());
    let map = |r: usize, k: u16| -> [u16; 64] {
        std::array::from_fn(|l| source(s, x, own[r][l], k, col))
    };
    let base = Base::fit(&map(0, 0))?;
    let mut off = [[None; 4]; MAX_D];
    for (r, row) in off.iter_mut().enumerate().take(dregs) {
        for k in 0..s.k {
            let m = map(r, k);
            let d = (m[0] + 64 - base.of(0)) % 64;
            if (0..64u16).any(|l| (base.of(l) + d) % 64 != m[usize::from(l)]) {
                return None;
            }
            let in_place = (0..64u16).all(|l| m[usize::from(l)] == l);
            row[usize::from(k)] = (!in_place).then_some(d);
        }
    }
    Some(Perm { base, off })
}

/// The gfx1201 sequence for the f32 or f64 MFMA `g` of shape `s` (see the module doc).
pub(crate) fn lower(g: &Inst, s: Shape, cx: &mut Ctx<'_>) -> Result<Vec<Inst>, TranslateError> {
    let fail = |cx: &Ctx<'_>, reason| TranslateError::UnsupportedForm {
        kernel: cx.kernel.to_string(),
        pc: cx.pc,
        text: g.to_string(),
        reason,
    };
    if g.format != Format::Mai {
        return Err(fail(cx, "MFMA -> FMA: only the MAI encoding is translated"));
    }
    // f64: BLGP is the NEG of A, B and C (the gfx950 model's `run_f64`), which
    // `v_fma_f64` has as source modifiers.
    let neg = if s.wide { g.field(F::Blgp) } else { 0 };
    // The FLOAT_MODE the FMAs need: FP_ROUND bits 1:0 (f32) or 3:2 (f64/f16) nearest
    // even, FP_DENORM bits 5:4 (f32) or 7:6 (f64/f16) keeping denormals.
    let (mask, keep) = if s.wide { (0xcc, 0xc0) } else { (0x33, 0x30) };
    let mode = cx.float_mode & !mask | keep;
    let w = s.w();
    let dvals = s.dvals();
    let reg = |i: usize, n: u16, cx: &Ctx<'_>| -> Result<Operand, TranslateError> {
        match g.operand(i).map(|o| reencode::map_operand(g, o, cx)) {
            Some(Ok(o @ Operand::Vgpr { count, .. })) if u16::from(count) == n => Ok(o),
            Some(Err(e)) => Err(e),
            _ => Err(fail(
                cx,
                "MFMA -> FMA: unexpected operand (A, B and D must be registers)",
            )),
        }
    };
    let first = |o: Operand| match o {
        Operand::Vgpr { first, .. } => first,
        _ => 0,
    };
    let d = first(reg(0, dvals * w, cx)?);
    let (mut a, mut b) = (first(reg(1, w, cx)?), first(reg(2, w, cx)?));
    // C: `Ok(first register)` or `Err(inline constant)`.
    let c = match g.operand(3).map(|o| reencode::map_operand(g, o, cx)) {
        Some(Ok(Operand::Vgpr { first, count })) if u16::from(count) == dvals * w => {
            if first != d && first < d + dvals * w && d < first + dvals * w {
                return Err(fail(cx, "MFMA -> FMA: C partly overlaps D"));
            }
            Ok(first)
        }
        Some(Ok(o @ Operand::Inline(_))) => Err(o),
        Some(Err(e)) => return Err(e),
        _ => {
            return Err(fail(
                cx,
                "MFMA -> FMA: C must be registers or an inline constant",
            ))
        }
    };
    let own = owners(s);
    let Some(x) = Mods::of(g, s) else {
        return Err(fail(
            cx,
            "MFMA -> FMA: abid names a block the shape does not have",
        ));
    };
    let (Some(pa), Some(pb)) = (perm(s, x, &own, false), perm(s, x, &own, true)) else {
        return Err(fail(
            cx,
            "MFMA -> FMA: a lane map is not a base plus a constant",
        ));
    };
    let kernel_mode = cx.float_mode;
    let mut e = Emit {
        out: Vec::new(),
        cx,
    };
    e.mode(kernel_mode, mode)?;
    // Scratch: copies of A/B inside D, then the permuted operands of one batch.
    // The bases set at the kernel entry ([`Bases::plan`] saw every such MFMA of the scope).
    let (Some(base_a), Some(base_b)) = (e.cx.bases.reg(pa.base), e.cx.bases.reg(pb.base)) else {
        return Err(fail(
            e.cx,
            "MFMA -> FMA: no permute base was set for this MFMA",
        ));
    };
    for (k, x) in [&mut a, &mut b].into_iter().enumerate() {
        if *x < d + dvals * w && d < *x + w {
            let t = e.scratch(k as u16 * w, w);
            for h in 0..w {
                e.push(Op::VMovB32, Format::Vop1, &[v(t + h), v(*x + h)])?;
            }
            *x = t;
        }
    }
    let mut f = Fmas {
        pending: Vec::with_capacity(usize::from(TEMPS)),
        d,
        c,
        wide: s.wide,
        neg,
        temp: 2 * w,
    };
    // B permutes of the batch: (k, offset, register).
    let mut seen: Vec<(u16, u16, u16)> = Vec::with_capacity(usize::from(TEMPS));
    // Scratch VGPRs of the batch in use, from `f.temp` on.
    let mut next = 0;
    let slots = TEMPS / w * w;
    for k in 0..s.k {
        // A k whose permutes fit in a batch of their own does not straddle two.
        let mut offs: Vec<u16> = (0..dvals)
            .filter_map(|r| pb.off[usize::from(r)][usize::from(k)])
            .collect();
        offs.sort_unstable();
        offs.dedup();
        let per_k = w
            * (offs.len() as u16
                + (0..dvals)
                    .filter(|&r| pa.off[usize::from(r)][usize::from(k)].is_some())
                    .count() as u16);
        if next + per_k > slots && per_k <= slots {
            e.flush(&mut f)?;
            seen.clear();
            next = 0;
        }
        for r in 0..dvals {
            let (oa, ob) = (
                pa.off[usize::from(r)][usize::from(k)],
                pb.off[usize::from(r)][usize::from(k)],
            );
            let new_b = ob.is_some_and(|o| !seen.iter().any(|x| (x.0, x.1) == (k, o)));
            let need = w * (u16::from(oa.is_some()) + u16::from(new_b));
            if next + need > slots {
                e.flush(&mut f)?;
                seen.clear();
                next = 0;
            }
            let y = match ob {
                None => b,
                Some(o) => match seen.iter().find(|x| (x.0, x.1) == (k, o)) {
                    Some(x) => x.2,
                    None => {
                        let t = e.scratch(f.temp + next, w);
                        next += w;
                        for h in 0..w {
                            e.bpermute(t + h, base_b, b + h, o)?;
                        }
                        seen.push((k, o, t));
                        t
                    }
                },
            };
            let x = match oa {
                None => a,
                Some(o) => {
                    let t = e.scratch(f.temp + next, w);
                    next += w;
                    for h in 0..w {
                        e.bpermute(t + h, base_a, a + h, o)?;
                    }
                    t
                }
            };
            f.pending.push((r, k, x, y));
        }
    }
    e.flush(&mut f)?;
    e.mode(mode, kernel_mode)?;
    Ok(e.out)
}

/// The FMAs of a batch, waiting for their permutes.
struct Fmas {
    /// (D value, k, A register, B register).
    pending: Vec<(u16, u16, u16, u16)>,
    d: u16,
    /// C: `Ok(first register)` or `Err(inline constant)`.
    c: Result<u16, Operand>,
    wide: bool,
    /// f64: NEG of A (bit 0), B (bit 1) and C (bit 2).
    neg: u32,
    /// The first scratch VGPR (offset) of permuted operands.
    temp: u16,
}

fn v(first: u16) -> Operand {
    Operand::Vgpr { first, count: 1 }
}

impl Emit<'_, '_> {
    /// `s_wait_dscnt 0` (when a permute is outstanding), then the FMAs of `f.pending`:
    /// the first k reads C unless C is D (f32: `v_fmac_f32` on D), f64 with the NEG bits.
    fn flush(&mut self, f: &mut Fmas) -> Result<(), TranslateError> {
        if f.pending.is_empty() {
            return Ok(());
        }
        let temp = self.cx.scratch_first + f.temp;
        if f.pending.iter().any(|p| p.2 >= temp || p.3 >= temp) {
            let mut w = reencode::build(Op::SWaitDscnt, Format::Sopp, self.cx)?;
            w.set_operand(0, Operand::Imm(0))
                .map_err(|x| self.cx.enc(x))?;
            self.out.push(w);
        }
        let d = f.d;
        for (r, k, x, y) in f.pending.drain(..) {
            if f.wide {
                let p = |first: u16| Operand::Vgpr { first, count: 2 };
                let acc = match (k, f.c) {
                    (0, Ok(cr)) => p(cr + 2 * r),
                    (0, Err(o)) => o,
                    _ => p(d + 2 * r),
                };
                // NEG of C on the first k only: later ks add to the result so far.
                let neg = if k == 0 { f.neg } else { f.neg & 3 };
                self.vop3(Op::VFmaF64, &[p(d + 2 * r), p(x), p(y), acc])?;
                if neg != 0 {
                    let i = self.out.last_mut().expect("just pushed");
                    let fl =
                        i.layout()
                            .field(F::Neg)
                            .ok_or_else(|| TranslateError::Unsupported {
                                kernel: self.cx.kernel.to_string(),
                                reason: "the gfx1201 VOP3 layout has no neg field".into(),
                            })?;
                    i.bits = layout::put(i.bits, fl, neg);
                }
                continue;
            }
            let acc = match (k, f.c) {
                (0, Ok(cr)) if cr != d => Some(v(cr + r)),
                (0, Err(o)) => Some(o),
                _ => None,
            };
            match acc {
                Some(acc) => self.vop3(Op::VFmaF32, &[v(d + r), v(x), v(y), acc])?,
                None => self.push(Op::VFmacF32, Format::Vop2, &[v(d + r), v(x), v(y)])?,
            }
        }
        Ok(())
    }

    /// `s_round_mode` / `s_denorm_mode` (MODE bits 3:0 / 7:4) where FLOAT_MODE `from`
    /// and `to` differ. LLVM 22 puts `s_denorm_mode 15` right before a `v_fma_f32` for
    /// gfx1201 (its f32 division in a flushing kernel), so no wait follows.
    fn mode(&mut self, from: u8, to: u8) -> Result<(), TranslateError> {
        for (o, sh) in [(Op::SRoundMode, 0), (Op::SDenormMode, 4)] {
            if (from ^ to) >> sh & 0xf != 0 {
                let mut i = reencode::build(o, Format::Sopp, self.cx)?;
                i.set_operand(0, Operand::Imm(u32::from(to >> sh & 0xf)))
                    .map_err(|x| self.cx.enc(x))?;
                self.out.push(i);
            }
        }
        Ok(())
    }

    fn vop3(&mut self, o: Op, ops: &[Operand]) -> Result<(), TranslateError> {
        self.push(o, Format::Vop3, ops)
    }

    /// `t` = the lane id (`v_mbcnt_lo_u32_b32 t, -1, 0`; `v_mbcnt_hi_u32_b32 t, -1, t`).
    fn lane_id(&mut self, t: u16) -> Result<(), TranslateError> {
        self.vop3(
            Op::VMbcntLoU32B32,
            &[v(t), Operand::Inline(193), Operand::Inline(128)],
        )?;
        self.vop3(Op::VMbcntHiU32B32, &[v(t), Operand::Inline(193), v(t)])
    }

    /// `t` = 4 * base (bytes) from the lane id in `lid` (`t` may be `lid`).
    fn base(&mut self, b: Base, t: u16, lid: u16) -> Result<(), TranslateError> {
        let int = |n: u16| Operand::Inline(128 + n);
        let log2 = |x: u16| x.trailing_zeros() as u16;
        match b {
            Base::Lane => self.push(Op::VLshlrevB32, Format::Vop2, &[v(t), int(2), v(lid)]),
            Base::Low(q) => {
                self.push(Op::VAndB32, Format::Vop2, &[v(t), int(q - 1), v(lid)])?;
                self.push(Op::VLshlrevB32, Format::Vop2, &[v(t), int(2), v(t)])
            }
            Base::High(q, c) => {
                self.push(Op::VLshrrevB32, Format::Vop2, &[v(t), int(log2(q)), v(lid)])?;
                self.push(
                    Op::VLshlrevB32,
                    Format::Vop2,
                    &[v(t), int(log2(c) + 2), v(t)],
                )
            }
            // `lid` is not `t` here ([`Bases`] keeps the lane id apart).
            Base::Mix(mask, shift) => {
                self.push(Op::VLshrrevB32, Format::Vop2, &[v(t), int(shift), v(lid)])?;
                self.vop3(Op::VAndOrB32, &[v(t), v(lid), int(mask), v(t)])?;
                self.push(Op::VLshlrevB32, Format::Vop2, &[v(t), int(2), v(t)])
            }
        }
    }

    /// `ds_bpermute_b32 t, base, src offset:4*off`: lane `l` reads `src` of lane
    /// `(base[l] / 4 + off) % 64`.
    fn bpermute(&mut self, t: u16, base: u16, src: u16, off: u16) -> Result<(), TranslateError> {
        let mut i = reencode::build(Op::DsBpermuteB32, Format::Ds, self.cx)?;
        for (k, x) in [v(t), v(base), v(src)].into_iter().enumerate() {
            i.set_operand(k, x).map_err(|e| self.cx.enc(e))?;
        }
        let bytes = u32::from(4 * off);
        for (f, x) in [(F::Offset0, bytes & 0xff), (F::Offset1, bytes >> 8)] {
            if x != 0 {
                let fl = i
                    .layout()
                    .field(f)
                    .ok_or_else(|| TranslateError::Unsupported {
                        kernel: self.cx.kernel.to_string(),
                        reason: "the gfx1201 DS layout has no offset field".into(),
                    })?;
                i.bits = layout::put(i.bits, fl, x);
            }
        }
        self.out.push(i);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The gfx950 f32 and f64 MFMAs.
    const SHAPES: [Op; 7] = [
        Op::VMfmaF3216x16x4F32,
        Op::VMfmaF3232x32x2F32,
        Op::VMfmaF3232x32x12bF32,
        Op::VMfmaF3216x16x14bF32,
        Op::VMfmaF324x4x116bF32,
        Op::VMfmaF6416x16x4F64,
        Op::VMfmaF644x4x44bF64,
    ];

    /// Every gfx950 f32 and f64 shape splits into base + offset for A and B (the f64
    /// 4x4 4-block A through a [`Base::Mix`]), and the B of the
    /// 4x4 16-block shape (column `j` of block `b` in lane `4b + j`, D alike) is read in
    /// place.
    #[test]
    fn every_f32_shape_has_affine_lane_maps() {
        for o in SHAPES {
            let s = shape(o).unwrap();
            let own = owners(s);
            let x = Mods::default();
            assert!(perm(s, x, &own, false).is_some(), "{o:?} A");
            assert!(perm(s, x, &own, true).is_some(), "{o:?} B");
        }
        let s = shape(Op::VMfmaF324x4x116bF32).unwrap();
        let pb = perm(s, Mods::default(), &owners(s), true).unwrap();
        assert!(pb.off[..4].iter().all(|r| r[0].is_none()));
        let s = shape(Op::VMfmaF644x4x44bF64).unwrap();
        let pa = perm(s, Mods::default(), &owners(s), false).unwrap();
        assert_eq!(pa.base, Base::Mix(12, 4));
    }

    /// Every BLGP and every in-range CBSZ/ABID of every f32 and f64 shape keeps the lane
    /// maps a base plus a constant (so the rule never refuses one for its lane map).
    #[test]
    fn every_broadcast_keeps_the_lane_maps_affine() {
        for o in SHAPES {
            let s = shape(o).unwrap();
            let own = owners(s);
            for blgp in 0..if s.wide { 1 } else { 8 } {
                for cbsz in 0..5 {
                    for abid in 0..16 {
                        let x = Mods { cbsz, abid, blgp };
                        if (0..u32::from(s.blocks)).any(|b| x.block(b) >= u32::from(s.blocks)) {
                            continue;
                        }
                        assert!(perm(s, x, &own, false).is_some(), "{o:?} A {x:?}");
                        assert!(perm(s, x, &own, true).is_some(), "{o:?} B {x:?}");
                    }
                }
            }
        }
    }
}
