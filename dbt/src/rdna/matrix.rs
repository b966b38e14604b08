//! gfx950 MFMA -> gfx1201 (wave64) WMMA, with lane fix-ups.
//!
//! GFX12 has one dense matrix shape, 16x16x16 (`v_wmma_f32_16x16x16_{f16,bf16}`, A and B
//! two VGPRs, C/D four in wave64; `v_wmma_f32_16x16x16_{fp8,bf8}_{fp8,bf8}`, A and B one
//! VGPR; llvm-mc-22 `-mcpu=gfx1201 -mattr=+wavefrontsize64`). The guest's f16/bf16 and
//! fp8/bf8 MFMAs are rebuilt from it. gfx950 and GFX12 read the same 8-bit formats, OCP
//! E4M3 (`fp8`) and E5M2 (`bf8`) (LLVM's MLIR `amdgpu::hasOcpFp8`: gfx9.5 and gfx12+; the
//! models decode both as `minifloat::Format::{Fp8, Bf8}`), so the bytes move unchanged. Lane layouts are the ones the models
//! execute (`gpu-model/src/exec/matrix/layout.rs`, transcribed from AMD's matrix
//! instruction calculator: `cdna`, `cdna_out`, `gfx12`, `gfx12_out`); below, a lane is
//! written `(h, b, x)` for `32h + 16b + x`, `x < 16`, and `A[i][k]` / `B[k][j]` / `D[i][j]`.
//!
//! * CDNA dense A of an `M x M x K` MFMA with `kl = K * M / 64` values per lane: `A[i][k]`
//!   in lane `M * (k / kl) + i`, bits `16 * (k % kl)` of the register tuple (B alike with
//!   `j` for `i`). CDNA 32-bit D: `D[i][j]` in register `(i / 8) * 4 + i % 4`, lane
//!   `32 * ((i / 4) % 2) + j` for M = 32, and register `i % 4`, lane `16 * (i / 4) + j`
//!   for M = 16.
//! * GFX12 wave64 16-bit A: `A[i][k]` in lane `(k / 8 % 2, k / 4 % 2, i)`, register
//!   `k / 2 % 2`, bits `16 * (k % 2)`, i.e. lane group `g = k / 4` holds k `4g .. 4g + 3`
//!   in two registers, exactly the CDNA 16x16x16 A. GFX12 wave64 32-bit D: `D[i][j]` in
//!   register `i % 4`, lane `(i / 4 % 2, i / 8, j)`.
//!
//! The sum over k is the same whatever bijection assigns the guest's k to WMMA k slots,
//! as long as A and B use the same one; every rule below moves A and B by the same
//! (register, lane group) map, so the only difference from the guest is the order of
//! the f32 additions (the f32 reordering tolerance of the gfx942 wide-K split,
//! `crate::rules`), and each WMMA adds 16 products to its C as the MFMA does.
//!
//! **16x16xK** (`v_mfma_f32_16x16x16_{f16,bf16}`, `v_mfma_f32_16x16x32_{f16,bf16}`):
//! the two D layouts differ only in which lane group holds rows 4..7 and 8..11 (CDNA:
//! groups 1 and 2; GFX12: groups 2 and 1). Feeding the WMMA an A whose rows 4..7 and
//! 8..11 are exchanged puts every `D[i][j]` (and reads every `C[i][j]`) where the CDNA
//! layout has it, so C and D stay in the guest's registers. The exchange is inside each
//! 16-lane row: `v_permlane16_b32 t, A[r], s104, s105` with the nibble selects
//! `0xba983210` / `0xfedc7654` (lane x reads lane x for x < 4 and x >= 12, x + 4 for
//! 4..7, x - 4 for 8..11; RDNA4 ISA guide V_PERMLANE16_B32 as the model implements it,
//! `exec::lane::permlane16`). K = 32 (4 registers, `kl` = 8) is two WMMAs on register
//! pairs 0-1 then 2-3, the second accumulating into the first's D (same k pairing as
//! the gfx942 split). B registers that D overlaps are copied first.
//!
//! **32x32xK** (`v_mfma_f32_32x32x8_{f16,bf16}`, `v_mfma_f32_32x32x16_{f16,bf16}`): four
//! 16x16 tiles `T[I][J]` (rows `16I..`, columns `16J..`), each one WMMA into scratch
//! VGPRs. CDNA D register `4t + r`, lane `(h, c, x)` holds row `8t + 4h + r`, column
//! `16c + x`; tile `(t / 2, c)` holds the same element in register `r`, lane
//! `(h, t % 2, x)`. So each guest D register takes half of its lanes from one tile's
//! register in place and the other half from the other tile (same `I`) across the
//! 16-lane rows of each 32-lane half (`v_permlanex16_b32` with identity selects
//! `0x76543210` / `0xfedcba98`, lane `l` reads `l ^ 16`), merged by `v_cndmask_b32`
//! under the lane mask `0xffff0000ffff0000` (lanes with bit 4 set). C goes into the tiles
//! by the inverse map. A for tile I: CDNA lane `(h, c, x)` holds row `16c + x`, k
//! `kl * h ..`; the WMMA A of tile I is built from lanes `(h, I, x)`: with `kl` = 8,
//! WMMA register r of lane group `(h, b)` takes guest register `2b + r` (moved across
//! rows when `b != I`); with `kl` = 4 (K = 8) lane groups `(h, 0)` take guest register r
//! and groups `(h, 1)` are zero (half the WMMA's k slots carry zeros in both A and B, so
//! they add exact zeros). B for tile J alike. The selects and the mask live in s104/s105
//! (the expansions' carry pair, free between guest instructions: `reencode`'s module
//! doc); scratch: 4 + 4 + 16 VGPRs.
//!
//! **8-bit inputs.** A WMMA register holds 4 k of a row per lane group, so one WMMA
//! takes one register of A and B where the 16-bit rules take two (`Shape::per`):
//! `v_mfma_f32_16x16x32_{fp8,bf8}_{fp8,bf8}` (two registers) is two WMMAs,
//! `v_mfma_f32_32x32x16_*` one per tile. The gfx950 `v_mfma_f32_{16x16x128,32x32x64}_f8f6f4`
//! take A's format from CBSZ and B's from BLGP (0 fp8, 1 bf8, 2/3 fp6/bf6, 4 fp4; LLVM's
//! intrinsic docs); with fp8/bf8 their 8 registers hold, per lane, the k halves in
//! registers 0-3 and 4-7 (AMD's CDNA4 matrix core blog, 5.4; `exec::matrix::layout::
//! f8f6f4`), and any register pairing works as long as A and B use the same one: the
//! 16x16 rule is 8 WMMAs on register `p`, the 32x32 rule 4 WMMA steps per tile, step `w`
//! taking registers `2w` (lane groups `(h, 0)`) and `2w + 1` (`(h, 1)`). fp6/bf6/fp4 have
//! no GFX12 WMMA and the scaled forms (`v_mfma_scale_*`) have no GFX12 block scales: both
//! refused by name.
//!
//! **Chains.** A 32x32 MFMA converts C into the tiles and the tiles back into D (64
//! permutes and merges). Straight-line runs of 32x32 MFMAs accumulating into one tuple
//! (D of one is C of the next, nothing else in between reads or writes it, by the ISA
//! operand roles) keep the tiles instead ([`Chains`]): the first converts C in, the last
//! D out, every one builds its A' and B'. Interleaved accumulators (Triton's 2x2 MFMA
//! tiles) are separate chains with separate slots of 16 VGPRs below the rules' scratch.
//!
//! **Loops.** In a single-block loop (its last instruction branches back to its first,
//! entered otherwise only by falling in; no EXEC write inside), an accumulator that only
//! the loop's chainable MFMAs touch stays in its tiles across iterations: C goes in on
//! the edge into the loop, D out on its fallthrough exit. A and B operands that nothing
//! in the loop writes (Q in attention) are converted once on the edge into the loop into
//! VGPRs above the slots, and the MFMAs read them there ([`Chains`], `loops`).
//!
//! ASSUMPTION: EXEC is all ones at every MFMA. The permutes do not write inactive lanes
//! and read inactive source lanes as nothing (the model's `exec::lane::permlane16`), so
//! a partial EXEC would feed the WMMAs stale scratch lanes; a partial-EXEC MFMA is not
//! matched. The LLVM MFMA intrinsics are convergent and compilers emit them in
//! wave-uniform control flow, as in every corpus kernel.
//!
//! Hazard: on gfx1200/gfx1201 a WMMA whose A or B overlaps the previous WMMA's D needs
//! one independent instruction between them (AMD rocRoller's WMMA1201 observer tests:
//! one `v_nop`; an overlapping C, the accumulation chain, needs none). It cannot arise
//! here: every sequence starts with VALU permutes of A, each WMMA reads A (and in the
//! 32x32 rule B) from scratch that no WMMA writes, and the 16x16 rule reads B from a copy
//! when D overlaps it.
//!
//! **i8** (`v_mfma_i32_{16x16x32,16x16x64,32x32x16,32x32x32}_i8`): the CDNA i8 A/B has the
//! dense 8-bit layout of the fp8 shapes, so the same rules apply with
//! `v_wmma_i32_16x16x16_iu8` and NEG[0] = NEG[1] = 1 (A and B signed; AMD's matrix
//! calculator README, "NEG Modifier"). Integer sums wrap modulo 2^32 in any order, so the
//! chained WMMAs (CLAMP off) give the MFMA's result exactly.
//!
//! f32 and f64 MFMAs go to the VALU ([`super::matrix_valu`]). Refused by name:
//! fp6/bf6/fp4 and scaled f8f6f4 MFMAs, the multi-block shapes of the other types, and
//! CBSZ/ABID/BLGP as broadcast modifiers.

use super::reencode::{self, Ctx, CARRY};
use crate::cfg::{Cfg, Flow};
use crate::error::TranslateError;
use gpu_model::isa::layout::{Format, F};
use gpu_model::isa::{Inst, Op, Operand, RegFile};
use std::collections::{BTreeMap, BTreeSet};

/// Where a chained 32x32 MFMA stands in its chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Link {
    /// Converts C into the tiles (or starts them from the inline constant).
    First,
    /// Accumulates into the tiles.
    Middle,
    /// Accumulates, then converts the tiles back into D.
    Last,
}

/// The 32x32 MFMA chains of a kernel scope: straight-line runs of MFMAs that accumulate
/// into one register tuple (each C is the tuple the previous one wrote as D) with nothing
/// in between reading or writing it, by the ISA's operand roles
/// (`gpu_model::isa::Inst::accesses`). A chain keeps its accumulator as four WMMA tiles
/// in a slot of 16 VGPRs from its first MFMA to its last, so C is converted into the
/// tiles once and D back once; the guest's D registers are stale in between, which
/// nothing reads.
#[derive(Debug, Default)]
pub(crate) struct Chains {
    /// (link, slot) of every chained MFMA by address.
    links: BTreeMap<u64, (Link, u16)>,
    /// Conversions emitted after the guest instruction at an address, on the edges into
    /// and out of a loop whose accumulator stays in its tiles ([`loops`]).
    edges: BTreeMap<u64, Vec<Edge>>,
    /// Loop-invariant A/B operands converted once before their loop: (guest registers,
    /// shape, offset of the converted registers above the chain slots) by the address
    /// of the instruction that falls into the loop.
    operand_edges: BTreeMap<u64, Vec<(Regs, Shape, u16)>>,
    /// The converted operand's offset for (MFMA address, operand index).
    hoisted: BTreeMap<(u64, usize), u16>,
    /// VGPRs the hoisted operands take above the chain slots.
    pub extra: u16,
    /// Slots the scope needs at once.
    pub slots: u16,
    /// First VGPR of slot 0.
    base: u16,
}

/// A conversion on a loop edge: the guest accumulator `d` into the tiles of `slot`
/// (`into`, after the instruction that falls into the loop), or back (after the loop's
/// back branch, on its fallthrough exit).
#[derive(Debug, Clone, Copy)]
struct Edge {
    into: bool,
    d: Regs,
    slot: u16,
}

/// A single-block loop (its last instruction branches back to its leader) whose
/// accumulators live in tiles for the whole loop.
struct Loop {
    /// The block's first and last instruction.
    leader: u64,
    end: u64,
    /// The instruction that falls into the leader: the only other way in.
    prev: u64,
    /// The resident accumulators.
    acc: Vec<Regs>,
    /// A and B operands of its 32x32 MFMAs that nothing in the block writes: (MFMA
    /// address, operand index 1 = A or 2 = B, registers, shape).
    inv: Vec<(u64, usize, Regs, Shape)>,
}

/// The single-block loops of scope `sc` whose accumulators can stay in WMMA tiles
/// across iterations: the block's last instruction branches back to its leader, the
/// leader is entered otherwise only by falling in from the instruction before it (no
/// other branch, recovered indirect transfer or kernel entry reaches it), the block
/// writes no EXEC (the conversions on the edges then run under the EXEC of its MFMAs),
/// and every access in the block to an accumulator is a chainable 32x32 MFMA that
/// extends it. Converting C into the tiles on the way in and D out on the fallthrough
/// exit (the only way out: the block falls through every other instruction) then
/// replaces a conversion pair per iteration. Nothing in the scope may index VGPRs.
fn loops(cfg: &Cfg, sc: &BTreeSet<u64>, roots: &[u64]) -> Vec<Loop> {
    let mut out = Vec::new();
    let insts = || sc.iter().filter_map(|pc| cfg.insts.get(pc));
    if insts().any(|s| crate::scope::indexes_vgprs(s.inst.op)) {
        return out;
    }
    for &leader in cfg.leaders.range(..).filter(|l| sc.contains(l)) {
        // The block, straight-line from its leader.
        let mut pc = leader;
        let mut block = Vec::new();
        let end = loop {
            let Some(s) = cfg.insts.get(&pc) else {
                break None;
            };
            if pc != leader && cfg.leaders.contains(&pc) {
                break None;
            }
            block.push(s);
            match s.flow {
                Flow::Next => pc = cfg.next_pc(pc),
                Flow::CondBranch(t) if t == leader => break Some(pc),
                _ => break None,
            }
        };
        let Some(end) = end else { continue };
        let Some((&prev, ps)) = cfg.insts.range(..leader).next_back() else {
            continue;
        };
        let falls =
            matches!(ps.flow, Flow::Next) || matches!(ps.flow, Flow::CondBranch(t) if t != leader);
        let other_way_in = roots.contains(&leader)
            || cfg.recovered.values().any(|b| b.targets().any(|t| t == leader))
            || insts().any(|s| {
                s.pc != end
                    && matches!(s.flow, Flow::Branch(t) | Flow::CondBranch(t) | Flow::Call(t) if t == leader)
            });
        if !sc.contains(&prev) || !falls || cfg.next_pc(prev) != leader || other_way_in {
            continue;
        }
        let writes_exec = block.iter().any(|s| {
            s.inst.accesses().into_iter().any(|a| {
                a.kind.writes()
                    && a.file == RegFile::Sgpr
                    && a.first <= 127
                    && 126 < a.first + u16::from(a.count)
            })
        });
        if writes_exec {
            continue;
        }
        let mut acc: Vec<Regs> = Vec::new();
        for s in &block {
            if let Some((d, Some(c), ab)) = chainable(&s.inst) {
                if c == d && ab.iter().all(|&x| !overlap(x, d)) && !acc.contains(&d) {
                    acc.push(d);
                }
            }
        }
        // Every other access to an accumulator disqualifies it.
        acc.retain(|&d| {
            block.iter().all(|s| match chainable(&s.inst) {
                Some((md, Some(c), ab))
                    if md == d && c == d && ab.iter().all(|&x| !overlap(x, d)) =>
                {
                    true
                }
                _ => !s
                    .inst
                    .accesses()
                    .into_iter()
                    .any(|a| overlap((a.file, a.first, u16::from(a.count)), d)),
            })
        });
        // Loop-invariant operands: converted once on the way in.
        let mut inv = Vec::new();
        for s in &block {
            let (Some((_, _, ab)), Some(sh)) = (
                chainable(&s.inst),
                shape(s.inst.op, (s.inst.field(F::Cbsz), s.inst.field(F::Blgp))),
            ) else {
                continue;
            };
            for (k, &x) in ab.iter().enumerate() {
                let written = block.iter().any(|w| {
                    w.inst.accesses().into_iter().any(|a| {
                        a.kind.writes() && overlap((a.file, a.first, u16::from(a.count)), x)
                    })
                });
                if !written {
                    inv.push((s.pc, k + 1, x, sh));
                }
            }
        }
        if !acc.is_empty() || !inv.is_empty() {
            out.push(Loop {
                leader,
                end,
                prev,
                acc,
                inv,
            });
        }
    }
    out
}

/// Scratch VGPRs one matrix rule needs besides the chain slots (the f8f6f4 32x32 rule:
/// A' and B' 8 each, 16 for the tiles of an unchained MFMA); other rules need fewer.
const RULE_SCRATCH: u16 = 32;

/// The guest registers an MFMA accumulator occupies: file, first, count.
type Regs = (RegFile, u16, u16);

fn regs(o: Option<Operand>) -> Option<Regs> {
    match o? {
        Operand::Vgpr { first, count } => Some((RegFile::Vgpr, first, u16::from(count))),
        Operand::Agpr { first, count } => Some((RegFile::Agpr, first, u16::from(count))),
        _ => None,
    }
}

fn overlap(x: Regs, y: Regs) -> bool {
    x.0 == y.0 && x.1 < y.1 + y.2 && y.1 < x.1 + x.2
}

/// A chainable guest instruction: a translatable 32x32 MFMA; its D, C (`None` for a
/// constant) and A/B.
fn chainable(g: &Inst) -> Option<(Regs, Option<Regs>, [Regs; 2])> {
    let (cbsz, blgp) = (g.field(F::Cbsz), g.field(F::Blgp));
    let s = shape(g.op, (cbsz, blgp))?;
    let f8f6f4 = matches!(
        g.op,
        Op::VMfmaF3216x16x128F8f6f4 | Op::VMfmaF3232x32x64F8f6f4
    );
    let mods_ok = g.field(F::Abid) == 0
        && if f8f6f4 {
            cbsz <= 1 && blgp <= 1
        } else {
            cbsz == 0 && blgp == 0
        };
    if s.m != 32 || g.format != Format::Mai || !mods_ok {
        return None;
    }
    let d = regs(g.operand(0))?;
    let (a, b) = (regs(g.operand(1))?, regs(g.operand(2))?);
    let c = match g.operand(3)? {
        Operand::Inline(_) => None,
        o => Some(regs(Some(o))?),
    };
    Some((d, c, [a, b]))
}

/// Finds the chains of scope `sc`, keeping the slots within the 256 VGPRs of a wave
/// above `first` (the first scratch VGPR) less [`RULE_SCRATCH`].
pub(crate) fn chains(cfg: &Cfg, sc: &BTreeSet<u64>, roots: &[u64], first: u16) -> Chains {
    struct Open {
        d: Regs,
        members: Vec<u64>,
        slot: u16,
    }
    let most = 256u16.saturating_sub(first).saturating_sub(RULE_SCRATCH) / 16;
    let mut out = Chains {
        base: first,
        ..Chains::default()
    };
    let mut open: Vec<Open> = Vec::new();
    let (mut free, mut top): (Vec<u16>, u16) = (Vec::new(), 0);
    // Loop-resident accumulators take slots of their own for the whole scope.
    let mut resident: Vec<(u64, u64, Regs, u16)> = Vec::new();
    let loops = loops(cfg, sc, roots);
    for l in &loops {
        for &d in &l.acc {
            if top >= most {
                break;
            }
            let slot = top;
            top += 1;
            resident.push((l.leader, l.end, d, slot));
            for (at, into) in [(l.prev, true), (l.end, false)] {
                out.edges
                    .entry(at)
                    .or_default()
                    .push(Edge { into, d, slot });
            }
        }
    }
    let close = |o: Open, out: &mut Chains, free: &mut Vec<u16>| {
        let n = o.members.len();
        if n >= 2 {
            for (k, &pc) in o.members.iter().enumerate() {
                let link = match k {
                    0 => Link::First,
                    _ if k == n - 1 => Link::Last,
                    _ => Link::Middle,
                };
                out.links.insert(pc, (link, o.slot));
            }
        }
        free.push(o.slot);
    };
    let mut next = None;
    for &pc in sc {
        let Some(s) = cfg.insts.get(&pc) else {
            continue;
        };
        if cfg.leaders.contains(&pc) || next != Some(pc) {
            open.drain(..).for_each(|o| close(o, &mut out, &mut free));
        }
        next = matches!(s.flow, Flow::Next).then(|| cfg.next_pc(pc));
        let indexed = crate::scope::indexes_vgprs(s.inst.op);
        let mut mf = chainable(&s.inst);
        // An MFMA on a loop-resident accumulator accumulates into its tiles.
        if let Some((d, _, _)) = mf {
            if let Some(r) = resident.iter().find(|r| r.0 <= pc && pc <= r.1 && r.2 == d) {
                out.links.insert(pc, (Link::Middle, r.3));
                mf = None;
            }
        }
        // The accumulator this MFMA extends: C and D are its tuple, A and B elsewhere.
        let ext = mf.and_then(|(d, c, ab)| {
            let extends =
                c == Some(d) && ab.iter().all(|&x| !overlap(x, d)) && open.iter().any(|o| o.d == d);
            extends.then_some(d)
        });
        let mut k = 0;
        while k < open.len() {
            let d = open[k].d;
            let touched = indexed
                || (Some(d) != ext
                    && s.inst
                        .accesses()
                        .into_iter()
                        .any(|a| overlap((a.file, a.first, u16::from(a.count)), d)));
            if touched {
                let o = open.remove(k);
                close(o, &mut out, &mut free);
            } else {
                k += 1;
            }
        }
        if let Some((d, _, _)) = mf {
            if let Some(o) = open.iter_mut().find(|o| Some(o.d) == ext) {
                o.members.push(pc);
            } else {
                let slot = free.pop().or_else(|| {
                    (top < most).then(|| {
                        top += 1;
                        top - 1
                    })
                });
                if let Some(slot) = slot {
                    open.push(Open {
                        d,
                        members: vec![pc],
                        slot,
                    });
                }
            }
        }
        if next.is_none() {
            open.drain(..).for_each(|o| close(o, &mut out, &mut free));
        }
    }
    open.drain(..).for_each(|o| close(o, &mut out, &mut free));
    out.slots = out.links.values().map(|&(_, s)| s + 1).max().unwrap_or(0);
    // Loop-invariant operands in the VGPRs left above the slots, one conversion per
    // register range and shape.
    let room = 256u16
        .saturating_sub(first)
        .saturating_sub(RULE_SCRATCH)
        .saturating_sub(16 * out.slots);
    for l in &loops {
        let mut done: Vec<(Regs, u16, u16)> = Vec::new();
        for &(pc, k, x, sh) in &l.inv {
            let n = 2 * (sh.ab / (2 * sh.per)).max(1) * sh.per;
            let off = match done.iter().find(|e| e.0 == x && e.1 == n) {
                Some(e) => e.2,
                None if out.extra + n <= room => {
                    let off = out.extra;
                    out.extra += n;
                    done.push((x, n, off));
                    out.operand_edges
                        .entry(l.prev)
                        .or_default()
                        .push((x, sh, off));
                    off
                }
                None => continue,
            };
            out.hoisted.insert((pc, k), off);
        }
    }
    out
}

/// The conversions on loop edges after the guest instruction at `cx.pc` ([`Chains`]):
/// C into a resident accumulator's tiles before its loop, D out after it.
pub(crate) fn edge(cx: &mut Ctx<'_>) -> Result<Vec<Inst>, TranslateError> {
    let edges = cx.chains.edges.get(&cx.pc).cloned().unwrap_or_default();
    let operands = cx
        .chains
        .operand_edges
        .get(&cx.pc)
        .cloned()
        .unwrap_or_default();
    let mut e = Emit {
        out: Vec::new(),
        cx,
    };
    // A loop's exit before the next loop's entry (which may read what it writes back).
    for x in edges.iter().filter(|x| !x.into) {
        let d = e.host(x.d)?;
        e.tiles_to_d(e.cx.chains.base + 16 * x.slot, d)?;
    }
    for (x, sh, off) in operands {
        let src = e.host(x)?;
        let dst = e.cx.chains.operand(off);
        e.operands32(sh, &[(src, dst)])?;
    }
    for x in edges.iter().filter(|x| x.into) {
        let d = e.host(x.d)?;
        e.c_to_tiles(d, e.cx.chains.base + 16 * x.slot)?;
    }
    Ok(e.out)
}

impl Chains {
    /// The first VGPR of the hoisted operand at `off`.
    fn operand(&self, off: u16) -> u16 {
        self.base + 16 * self.slots + off
    }
}

impl Emit<'_, '_> {
    /// The host VGPRs of guest registers `x` (AGPRs folded).
    fn host(&self, x: Regs) -> Result<u16, TranslateError> {
        let (file, first, _) = x;
        match (file, self.cx.agpr_base) {
            (RegFile::Vgpr, _) => Ok(first),
            (RegFile::Agpr, Some(base)) => Ok(base + first),
            _ => Err(TranslateError::Unsupported {
                kernel: self.cx.kernel.to_string(),
                reason: format!(
                    "pc {:#x}: loop MFMA registers in AGPRs without a VGPR fold",
                    self.cx.pc
                ),
            }),
        }
    }
}

/// The shape of a translatable MFMA.
#[derive(Debug, Clone, Copy)]
struct Shape {
    /// M = N: 16 or 32.
    m: u16,
    /// A/B registers of the guest MFMA per lane: 2, 4 or 8.
    ab: u16,
    /// A/B registers of one WMMA per lane: 2 for 16-bit inputs, 1 for 8-bit ones.
    per: u16,
    /// The GFX12 WMMA.
    wmma: Op,
}

/// The WMMA for `(a, b)` 8-bit formats, `true` for bf8 (OCP E5M2), `false` for fp8
/// (OCP E4M3).
fn wmma8(a: bool, b: bool) -> Op {
    use Op::*;
    match (a, b) {
        (false, false) => VWmmaF3216x16x16Fp8Fp8,
        (false, true) => VWmmaF3216x16x16Fp8Bf8,
        (true, false) => VWmmaF3216x16x16Bf8Fp8,
        (true, true) => VWmmaF3216x16x16Bf8Bf8,
    }
}

/// The shape of `o`; for the `f8f6f4` MFMAs `formats` are CBSZ (A) and BLGP (B): 0 fp8,
/// 1 bf8 (anything else is refused before).
fn shape(o: Op, (fa, fb): (u32, u32)) -> Option<Shape> {
    use Op::*;
    let (m, ab, wmma) = match o {
        VMfmaF3216x16x16F16 => (16, 2, VWmmaF3216x16x16F16),
        VMfmaF3216x16x32F16 => (16, 4, VWmmaF3216x16x16F16),
        VMfmaF3216x16x16Bf16 => (16, 2, VWmmaF3216x16x16Bf16),
        VMfmaF3216x16x32Bf16 => (16, 4, VWmmaF3216x16x16Bf16),
        VMfmaF3232x32x8F16 => (32, 2, VWmmaF3216x16x16F16),
        VMfmaF3232x32x16F16 => (32, 4, VWmmaF3216x16x16F16),
        VMfmaF3232x32x8Bf16 => (32, 2, VWmmaF3216x16x16Bf16),
        VMfmaF3232x32x16Bf16 => (32, 4, VWmmaF3216x16x16Bf16),
        VMfmaF3216x16x32Fp8Fp8 => (16, 2, wmma8(false, false)),
        VMfmaF3216x16x32Fp8Bf8 => (16, 2, wmma8(false, true)),
        VMfmaF3216x16x32Bf8Fp8 => (16, 2, wmma8(true, false)),
        VMfmaF3216x16x32Bf8Bf8 => (16, 2, wmma8(true, true)),
        VMfmaF3232x32x16Fp8Fp8 => (32, 2, wmma8(false, false)),
        VMfmaF3232x32x16Fp8Bf8 => (32, 2, wmma8(false, true)),
        VMfmaF3232x32x16Bf8Fp8 => (32, 2, wmma8(true, false)),
        VMfmaF3232x32x16Bf8Bf8 => (32, 2, wmma8(true, true)),
        VMfmaF3216x16x128F8f6f4 => (16, 8, wmma8(fa == 1, fb == 1)),
        VMfmaF3232x32x64F8f6f4 => (32, 8, wmma8(fa == 1, fb == 1)),
        // Signed i8 (CDNA) as the GFX12 iu8 WMMA with both signed bits ([`Emit::wmma`]).
        VMfmaI3216x16x32I8 => (16, 2, VWmmaI3216x16x16Iu8),
        VMfmaI3216x16x64I8 => (16, 4, VWmmaI3216x16x16Iu8),
        VMfmaI3232x32x16I8 => (32, 2, VWmmaI3216x16x16Iu8),
        VMfmaI3232x32x32I8 => (32, 4, VWmmaI3216x16x16Iu8),
        _ => return None,
    };
    let per = if matches!(wmma, VWmmaF3216x16x16F16 | VWmmaF3216x16x16Bf16) {
        2
    } else {
        1
    };
    Some(Shape { m, ab, per, wmma })
}

/// `v_permlane16_b32` selects exchanging lanes 4..7 and 8..11 of every 16-lane row.
const ROWS_4_8: (u32, u32) = (0xba98_3210, 0xfedc_7654);
/// `v_permlanex16_b32` identity selects: lane `l` reads lane `l ^ 16`.
const ACROSS: (u32, u32) = (0x7654_3210, 0xfedc_ba98);
/// Lanes with bit 4 set, one half of the mask per SGPR.
const ODD_ROWS: (u32, u32) = (0xffff_0000, 0xffff_0000);

/// The gfx1201 sequence for the guest MFMA `g` (see the module doc).
pub(crate) fn lower(g: &Inst, cx: &mut Ctx<'_>) -> Result<Vec<Inst>, TranslateError> {
    // f32 and f64 inputs have no WMMA: fused multiply-adds on the VALU.
    if let Some(s) = super::matrix_valu::shape(g.op) {
        return super::matrix_valu::lower(g, s, cx);
    }
    let f8f6f4 = matches!(
        g.op,
        Op::VMfmaF3216x16x128F8f6f4 | Op::VMfmaF3232x32x64F8f6f4
    );
    if matches!(
        g.op,
        Op::VMfmaScaleF3216x16x128F8f6f4 | Op::VMfmaScaleF3232x32x64F8f6f4
    ) {
        return Err(unsupported(
            cx,
            g,
            "MFMA -> WMMA: scaled f8f6f4 MFMAs are not translated (GFX12 WMMAs have no block scales)",
        ));
    }
    let (cbsz, abid, blgp) = (g.field(F::Cbsz), g.field(F::Abid), g.field(F::Blgp));
    if f8f6f4 && (cbsz > 1 || blgp > 1) {
        return Err(unsupported(
            cx,
            g,
            "MFMA -> WMMA: fp6/bf6/fp4 operands (cbsz/blgp above 1) have no GFX12 WMMA",
        ));
    }
    let Some(s) = shape(g.op, (cbsz, blgp)) else {
        return Err(unsupported(
            cx,
            g,
            "MFMA -> WMMA: gfx1201 has no WMMA for this shape (only f16/bf16, fp8/bf8 and i8 16x16xK and 32x32xK are translated)",
        ));
    };
    if g.format != Format::Mai || abid != 0 || (!f8f6f4 && (cbsz != 0 || blgp != 0)) {
        return Err(unsupported(
            cx,
            g,
            "MFMA -> WMMA: cbsz/abid/blgp are not translated",
        ));
    }
    let reg = |i: usize, n: u16, cx: &Ctx<'_>| -> Result<u16, TranslateError> {
        match g.operand(i).map(|o| reencode::map_operand(g, o, cx)) {
            Some(Ok(Operand::Vgpr { first, count })) if u16::from(count) == n => Ok(first),
            Some(Err(e)) => Err(e),
            _ => Err(unsupported(
                cx,
                g,
                "MFMA -> WMMA: unexpected operand (A, B and D must be registers)",
            )),
        }
    };
    let dregs = s.m * s.m / 64;
    let (d, a, b) = (reg(0, dregs, cx)?, reg(1, s.ab, cx)?, reg(2, s.ab, cx)?);
    let c = match g.operand(3).map(|o| reencode::map_operand(g, o, cx)) {
        Some(Ok(Operand::Vgpr { first, count })) if u16::from(count) == dregs => Src::Reg(first),
        Some(Ok(o @ Operand::Inline(_))) => Src::Const(o),
        Some(Err(e)) => return Err(e),
        _ => {
            return Err(unsupported(
                cx,
                g,
                "MFMA -> WMMA: C must be registers or an inline constant",
            ))
        }
    };
    let mut e = Emit {
        out: Vec::new(),
        cx,
    };
    let link = e.cx.chains.links.get(&e.cx.pc).copied();
    match (s.m, link) {
        (16, _) => e.tile16(s, d, a, b, c)?,
        (_, None) => e.tile32(s, d, a, b, c)?,
        (_, Some((link, slot))) => {
            let tiles = e.cx.chains.base + 16 * slot;
            e.chained32(s, link, tiles, (d, a, b), c)?;
        }
    }
    Ok(e.out)
}

/// An MFMA C operand.
#[derive(Debug, Clone, Copy)]
enum Src {
    Reg(u16),
    Const(Operand),
}

fn unsupported(cx: &Ctx<'_>, g: &Inst, reason: &'static str) -> TranslateError {
    TranslateError::UnsupportedForm {
        kernel: cx.kernel.to_string(),
        pc: cx.pc,
        text: g.to_string(),
        reason,
    }
}

fn v(first: u16, count: u8) -> Operand {
    Operand::Vgpr { first, count }
}

fn s1(r: u16) -> Operand {
    Operand::Sgpr { first: r, count: 1 }
}

/// The host sequence being built (also by the f32 MFMA rule, `super::matrix_valu`).
pub(super) struct Emit<'a, 'b> {
    pub(super) out: Vec<Inst>,
    pub(super) cx: &'a mut Ctx<'b>,
}

impl Emit<'_, '_> {
    /// A scratch VGPR block of `n` at `off` above the kernel's registers.
    pub(super) fn scratch(&mut self, off: u16, n: u16) -> u16 {
        self.cx.scratch_used = self.cx.scratch_used.max(off + n);
        self.cx.scratch_first + off
    }

    /// Appends `o` in format `f` with the operands `ops`, built for the host.
    pub(super) fn push(&mut self, o: Op, f: Format, ops: &[Operand]) -> Result<(), TranslateError> {
        let mut i = reencode::build(o, f, self.cx)?;
        for (k, x) in ops.iter().enumerate() {
            i.set_operand(k, *x).map_err(|e| self.cx.enc(e))?;
        }
        self.out.push(i);
        Ok(())
    }

    /// s104/s105 = the two words.
    fn pair(&mut self, (lo, hi): (u32, u32)) -> Result<(), TranslateError> {
        for (r, x) in [(CARRY, lo), (CARRY + 1, hi)] {
            self.push(Op::SMovB32, Format::Sop1, &[s1(r), Operand::Literal(x)])?;
        }
        Ok(())
    }

    /// `v_permlane{,x}16_b32 d, src, s104, s105`.
    fn permlane(&mut self, across: bool, d: u16, src: u16) -> Result<(), TranslateError> {
        let o = if across {
            Op::VPermlanex16B32
        } else {
            Op::VPermlane16B32
        };
        self.push(
            o,
            Format::Vop3,
            &[v(d, 1), v(src, 1), s1(CARRY), s1(CARRY + 1)],
        )
    }

    /// `v_cndmask_b32 d, f, t, s[104:105]`: `t` in lanes with bit 4 set, `f` elsewhere.
    fn select(&mut self, d: u16, f: Operand, t: Operand) -> Result<(), TranslateError> {
        self.push(
            Op::VCndmaskB32,
            Format::Vop3,
            &[
                v(d, 1),
                f,
                t,
                Operand::Sgpr {
                    first: CARRY,
                    count: 2,
                },
            ],
        )
    }

    fn wmma(&mut self, s: Shape, d: u16, a: u16, b: u16, c: Operand) -> Result<(), TranslateError> {
        let n = s.per as u8;
        self.push(s.wmma, Format::Vop3p, &[v(d, 4), v(a, n), v(b, n), c])?;
        if s.wmma == Op::VWmmaI3216x16x16Iu8 {
            // NEG[0]/NEG[1] make the iu8 A/B signed (calculator README, "NEG Modifier").
            let i = self.out.last_mut().expect("just pushed");
            let fl = i.layout().field(F::Neg).ok_or_else(|| {
                unsupported(
                    self.cx,
                    i,
                    "MFMA -> WMMA: the gfx1201 VOP3P layout has no neg field",
                )
            })?;
            i.bits = gpu_model::isa::layout::put(i.bits, fl, 3);
        }
        Ok(())
    }

    /// 16x16xK: A's rows 4..7 and 8..11 exchanged, one WMMA per register pair.
    fn tile16(
        &mut self,
        s: Shape,
        d: u16,
        a: u16,
        mut b: u16,
        c: Src,
    ) -> Result<(), TranslateError> {
        let t = self.scratch(0, s.ab);
        self.pair(ROWS_4_8)?;
        for r in 0..s.ab {
            self.permlane(false, t + r, a + r)?;
        }
        // A WMMA reading B registers that D (written by an earlier or the same WMMA)
        // overlaps reads a copy.
        if b < d + 4 && d < b + s.ab {
            let u = self.scratch(s.ab, s.ab);
            for r in 0..s.ab {
                self.push(Op::VMovB32, Format::Vop1, &[v(u + r, 1), v(b + r, 1)])?;
            }
            b = u;
        }
        let mut acc = match c {
            Src::Reg(r) => v(r, 4),
            Src::Const(o) => o,
        };
        for p in (0..s.ab).step_by(usize::from(s.per)) {
            self.wmma(s, d, t + p, b + p, acc)?;
            acc = v(d, 4);
        }
        Ok(())
    }

    /// 32x32xK: four 16x16 tiles (see the module doc).
    fn tile32(&mut self, s: Shape, d: u16, a: u16, b: u16, c: Src) -> Result<(), TranslateError> {
        // Scratch: A' then B' (per WMMA step w and tile row/column I: `per` registers at
        // `(2w + I) * per`), then the tiles T[I][J].
        let steps = (s.ab / (2 * s.per)).max(1);
        let n = 2 * steps * s.per;
        let tiles = self.scratch(2 * n, 16);
        let (ap, bp) = self.ab32(s, n, a, b)?;
        if let Src::Reg(cr) = c {
            self.c_to_tiles(cr, tiles)?;
        }
        self.wmmas32(s, ap, bp, tiles, c)?;
        self.tiles_to_d(tiles, d)
    }

    /// A 32x32 MFMA of a chain whose tiles are at `tiles` ([`Chains`]): the first converts
    /// C in, the last converts D out.
    fn chained32(
        &mut self,
        s: Shape,
        link: Link,
        tiles: u16,
        (d, a, b): (u16, u16, u16),
        c: Src,
    ) -> Result<(), TranslateError> {
        let steps = (s.ab / (2 * s.per)).max(1);
        let n = 2 * steps * s.per;
        let (ap, bp) = self.ab32(s, n, a, b)?;
        let acc = match (link, c) {
            (Link::First, Src::Reg(cr)) => {
                self.c_to_tiles(cr, tiles)?;
                c
            }
            (Link::First, Src::Const(_)) => c,
            _ => Src::Reg(tiles),
        };
        self.wmmas32(s, ap, bp, tiles, acc)?;
        if link == Link::Last {
            self.tiles_to_d(tiles, d)?;
        }
        Ok(())
    }

    /// A' and B' of the 32x32 rule: for WMMA step `w` and tile row (column) I, lane group
    /// `(h, b)` register `r` takes guest register `2 * per * w + per * b + r` of lane
    /// `(h, I, x)` (in place when `b == I`, across the 16-lane rows otherwise); with two
    /// guest registers of 16-bit values (K = 8) groups `(h, 0)` take register `r` and
    /// groups `(h, 1)` zero.
    /// A' and B' of a 32x32 MFMA (`n` registers each): in scratch, or where the loop's
    /// conversion of an invariant operand put them ([`Chains`]).
    fn ab32(&mut self, s: Shape, n: u16, a: u16, b: u16) -> Result<(u16, u16), TranslateError> {
        let pc = self.cx.pc;
        let mut todo = Vec::with_capacity(2);
        let mut at = [0u16; 2];
        for (k, src) in [a, b].into_iter().enumerate() {
            at[k] = match self.cx.chains.hoisted.get(&(pc, k + 1)) {
                Some(&off) => self.cx.chains.operand(off),
                None => {
                    let dst = self.scratch(k as u16 * n, n);
                    todo.push((src, dst));
                    dst
                }
            };
        }
        if !todo.is_empty() {
            self.operands32(s, &todo)?;
        }
        Ok((at[0], at[1]))
    }

    fn operands32(&mut self, s: Shape, ops: &[(u16, u16)]) -> Result<(), TranslateError> {
        let steps = (s.ab / (2 * s.per)).max(1);
        let zero_half = s.ab < 2 * s.per;
        let slot = |w: u16, i: u16, r: u16| (2 * w + i) * s.per + r;
        // Phase 1 (selects ACROSS): everything that crosses the 16-lane rows.
        self.pair(ACROSS)?;
        for &(src, dst) in ops {
            for w in 0..steps {
                for i in 0..2u16 {
                    for r in 0..s.per {
                        if zero_half {
                            if i == 1 {
                                self.permlane(true, dst + slot(w, i, r), src + r)?;
                            }
                        } else {
                            let from = 2 * s.per * w + (1 - i) * s.per + r;
                            self.permlane(true, dst + slot(w, i, r), src + from)?;
                        }
                    }
                }
            }
        }
        // Phase 2 (mask ODD_ROWS): merge the in-place halves.
        self.pair(ODD_ROWS)?;
        let zero = Operand::Inline(128);
        for &(src, dst) in ops {
            for w in 0..steps {
                for i in 0..2u16 {
                    for r in 0..s.per {
                        let t = dst + slot(w, i, r);
                        if zero_half {
                            let x = if i == 0 { v(src + r, 1) } else { v(t, 1) };
                            self.select(t, x, zero)?;
                        } else {
                            let here = v(src + 2 * s.per * w + i * s.per + r, 1);
                            if i == 0 {
                                self.select(t, here, v(t, 1))?;
                            } else {
                                self.select(t, v(t, 1), here)?;
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The guest C (CDNA 32x32 D layout at `cr`) into the four tiles at `tiles`: T[I][J]
    /// register r, lane group b == J from C register `4(2I + J) + r` in place, the others
    /// from register `4(2I + 1 - J) + r` across.
    fn c_to_tiles(&mut self, cr: u16, tiles: u16) -> Result<(), TranslateError> {
        let tile = |i: u16, j: u16| tiles + 4 * (2 * i + j);
        self.pair(ACROSS)?;
        for i in 0..2u16 {
            for j in 0..2u16 {
                for r in 0..4u16 {
                    self.permlane(true, tile(i, j) + r, cr + 4 * (2 * i + 1 - j) + r)?;
                }
            }
        }
        self.pair(ODD_ROWS)?;
        for i in 0..2u16 {
            for j in 0..2u16 {
                for r in 0..4u16 {
                    let w = tile(i, j) + r;
                    let here = v(cr + 4 * (2 * i + j) + r, 1);
                    if j == 0 {
                        self.select(w, here, v(w, 1))?;
                    } else {
                        self.select(w, v(w, 1), here)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// The WMMAs of one 32x32 MFMA: every tile accumulates its steps, the first from `c`
    /// (the tile itself when C is in registers).
    fn wmmas32(
        &mut self,
        s: Shape,
        ap: u16,
        bp: u16,
        tiles: u16,
        c: Src,
    ) -> Result<(), TranslateError> {
        let steps = (s.ab / (2 * s.per)).max(1);
        for i in 0..2u16 {
            for j in 0..2u16 {
                let t = tiles + 4 * (2 * i + j);
                for w in 0..steps {
                    let acc = match c {
                        Src::Const(o) if w == 0 => o,
                        _ => v(t, 4),
                    };
                    let (x, y) = ((2 * w + i) * s.per, (2 * w + j) * s.per);
                    self.wmma(s, t, ap + x, bp + y, acc)?;
                }
            }
        }
        Ok(())
    }

    /// The tiles back into the guest D: register 4t + r, t = 2I + u, lanes with bit 4 ==
    /// u from T[I][u] in place, the others from T[I][1 - u] across.
    fn tiles_to_d(&mut self, tiles: u16, d: u16) -> Result<(), TranslateError> {
        let tile = |i: u16, j: u16| tiles + 4 * (2 * i + j);
        self.pair(ACROSS)?;
        for i in 0..2u16 {
            for u in 0..2u16 {
                for r in 0..4u16 {
                    self.permlane(true, d + 4 * (2 * i + u) + r, tile(i, 1 - u) + r)?;
                }
            }
        }
        self.pair(ODD_ROWS)?;
        for i in 0..2u16 {
            for u in 0..2u16 {
                for r in 0..4u16 {
                    let w = d + 4 * (2 * i + u) + r;
                    let here = v(tile(i, u) + r, 1);
                    if u == 0 {
                        self.select(w, here, v(w, 1))?;
                    } else {
                        self.select(w, v(w, 1), here)?;
                    }
                }
            }
        }
        Ok(())
    }
}
