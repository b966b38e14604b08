//! The source control-flow graph: instructions decoded from the roots, block leaders,
//! direct and recovered indirect edges.
//!
//! Decoding follows control flow from the roots (kernel entries, kernarg-preload entries
//! at entry + 256, function symbols) instead of sweeping `.text`, so padding and data
//! between functions are never taken for code. An instruction that starts inside another
//! one, a target outside `.text` or bytes that do not decode are errors.
//!
//! Indirect transfers (`s_setpc_b64`, `s_swappc_b64`) are recovered from the PC-builder
//! sequence that clang and `ld.lld` emit for calls and jumps
//! (`s_getpc_b64 s[n:n+1]; s_add_u32 sn, sn, lo; s_addc_u32 sn+1, sn+1, hi`, AMDGPUUsage
//! "Code Conventions": the `rel32@lo+4`/`rel32@hi+12` pair resolved by the linker): the
//! straight-line code between the builder and the consumer is evaluated (bounded to
//! [`MAX_BUILDER_DISTANCE`] instructions, no leader in between, no other write to the
//! pair), which gives one concrete target. The high add may take an inline constant
//! (hand-written code does: `s_addc_u32 s9, s9, 0`); every placement must then keep the
//! offset's high half. A computed jump whose low add takes a register that an
//! `s_cselect_b32` set from two `s_mov_b32` literals in the same straight line (a
//! two-way switch) is recovered with both targets, one per literal, when those
//! registers are read by nothing else there nor after the jump. Everything else stays
//! unrecovered; the caller decides whether that is acceptable (it is when code does not
//! move, or for an indirect call when every code pointer in data names a function entry:
//! [`Cfg::address_taken`]).
//!
//! Jump tables (a computed `s_setpc_b64` with more than two targets, read from a table in
//! `.rodata`) are not recovered, because LLVM 22 does not emit them for AMDGPU: clang
//! 22.1.8 for gfx950 keeps dense switches (12 and 16 cases, a uniform `readfirstlane`
//! selector and a divergent one, in a kernel and in a `noinline` function) as compare
//! and branch trees, with no `s_getpc_b64`/`s_setpc_b64` but calls and returns, under
//! HIP `-O2`, `-O3` and `-O3 -fjump-tables -mllvm -min-jump-table-entries=2`, and
//! OpenCL `-O1`, `-O2`, `-O3` and `-Os` with `-fjump-tables` (the IR still holds the
//! `switch`; the backend lowers it without a table). Hand-written code that jumps through
//! a table stays an unrecovered transfer, refused by name when the code moves
//! ([`TranslateError::UnrecoveredIndirect`]).

use crate::error::TranslateError;
use gpu_model::isa::layout::F;
use gpu_model::isa::{self, Inst, Op, Operand, RegFile};
use gpu_model::Target;
use std::collections::{BTreeMap, BTreeSet};

/// How far (in instructions) a PC builder may precede its consumer.
pub const MAX_BUILDER_DISTANCE: usize = 16;

/// How an instruction transfers control.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Falls through to the next instruction.
    Next,
    /// Ends the wave (`s_endpgm`).
    End,
    /// Unconditional relative branch (`s_branch`) to an image address.
    Branch(u64),
    /// Conditional relative branch: target or fallthrough.
    CondBranch(u64),
    /// Direct call (`s_call_b64`): target, then the continuation.
    Call(u64),
    /// `s_setpc_b64`: a jump or a return.
    SetPc,
    /// `s_swappc_b64`: an indirect call, then the continuation.
    SwapPc,
}

/// Most targets one recovered builder selects between.
pub const MAX_TARGETS: usize = 2;

/// The high half of a recovered builder's offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum High {
    /// The `s_addc_u32` takes a literal, which placement rewrites.
    Literal,
    /// The `s_addc_u32` takes an inline constant: the offset's high half must stay this.
    Fixed(u32),
}

/// The values a register of a PC builder's straight line may hold, each a literal of the
/// instruction at the address beside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Cases {
    v: [(u32, u64); MAX_TARGETS],
    count: u8,
}

impl Cases {
    fn one(l: u32, at: u64) -> Cases {
        Cases {
            v: [(l, at); MAX_TARGETS],
            count: 1,
        }
    }

    fn sites(&self) -> impl Iterator<Item = u64> + '_ {
        self.v[..usize::from(self.count)].iter().map(|&(_, a)| a)
    }
}

/// A PC builder recovered for an indirect transfer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Builder {
    /// Address of the `s_getpc_b64`.
    pub getpc: u64,
    /// Per target: the address of the instruction whose literal holds the low half of
    /// `target - (getpc + 4)` (the `s_add_u32`, or for a computed switch the
    /// `s_mov_b32` of that case) and the target. The first `count` entries are valid.
    pub lo: [(u64, u64); MAX_TARGETS],
    /// Number of targets (1 or 2).
    pub count: u8,
    /// Address of the `s_addc_u32` with the high half.
    pub add_hi: u64,
    /// How the high half is given.
    pub high: High,
}

impl Builder {
    /// The concrete targets.
    pub fn targets(&self) -> impl Iterator<Item = u64> + '_ {
        self.lo[..usize::from(self.count)].iter().map(|&(_, t)| t)
    }
}

/// One decoded source instruction.
#[derive(Debug, Clone, Copy)]
pub struct SrcInst {
    /// Image address.
    pub pc: u64,
    /// The instruction (guest ISA).
    pub inst: Inst,
    /// Its control flow.
    pub flow: Flow,
}

/// The decoded, reachable part of `.text` and its graph.
#[derive(Debug, Default)]
pub struct Cfg {
    /// Instructions by address.
    pub insts: BTreeMap<u64, SrcInst>,
    /// Block leaders.
    pub leaders: BTreeSet<u64>,
    /// Recovered builders by consumer address (`s_setpc_b64`/`s_swappc_b64`).
    pub recovered: BTreeMap<u64, Builder>,
    /// Function entries whose addresses data holds (relocations into `.text`): the
    /// targets an unrecovered `s_swappc_b64` may call. Empty unless every code pointer
    /// in data names a function entry (code builds no code pointers it does not consume
    /// at once: a PC builder that no transfer consumes is checked by its host), so that
    /// these are all the targets such a call can have.
    pub address_taken: BTreeSet<u64>,
}

/// The root of a walk and the name diagnostics use for it.
#[derive(Debug, Clone)]
pub struct Root {
    /// Image address.
    pub address: u64,
    /// Kernel or function name.
    pub name: String,
}

/// The relative target of a SOPP/SOPK branch at `pc`: `pc + 4 + 4 * simm16`.
pub fn relative_target(inst: &Inst, pc: u64) -> u64 {
    let simm = inst.field(F::Simm16) as u16 as i16;
    pc.wrapping_add(4).wrapping_add_signed(i64::from(simm) * 4)
}

/// Classifies an instruction's control flow.
pub fn flow_of(inst: &Inst, pc: u64) -> Flow {
    match inst.op {
        Op::SEndpgm | Op::SEndpgmSaved | Op::SEndpgmOrderedPsDone => Flow::End,
        Op::SBranch => Flow::Branch(relative_target(inst, pc)),
        Op::SCbranchScc0
        | Op::SCbranchScc1
        | Op::SCbranchVccz
        | Op::SCbranchVccnz
        | Op::SCbranchExecz
        | Op::SCbranchExecnz
        | Op::SCbranchCdbgsys
        | Op::SCbranchCdbguser
        | Op::SCbranchCdbgsysOrUser
        | Op::SCbranchCdbgsysAndUser => Flow::CondBranch(relative_target(inst, pc)),
        Op::SCallB64 => Flow::Call(relative_target(inst, pc)),
        Op::SSetpcB64 => Flow::SetPc,
        Op::SSwappcB64 => Flow::SwapPc,
        _ => Flow::Next,
    }
}

impl Cfg {
    /// Decodes everything reachable from `roots` in `text` (at image address `base`).
    pub fn build(
        guest: Target,
        text: &[u8],
        base: u64,
        roots: &[Root],
    ) -> Result<Cfg, TranslateError> {
        let end = base + text.len() as u64;
        let mut cfg = Cfg::default();
        let mut work: Vec<(u64, usize)> = Vec::new();
        for (i, r) in roots.iter().enumerate() {
            cfg.leaders.insert(r.address);
            work.push((r.address, i));
        }
        let bad = |ri: usize, pc: u64, what: &'static str, target: u64, reason: &'static str| {
            TranslateError::BadTarget {
                kernel: roots[ri].name.clone(),
                pc,
                what,
                target,
                reason,
            }
        };
        // Decode, then recover the indirect transfers found (their builders are decoded
        // by then) and decode what they reach, until nothing new turns up.
        let mut consumers: Vec<(u64, usize)> = Vec::new();
        // Recovered switches and their case registers (checked once all is decoded).
        let mut switches: Vec<(u64, Vec<u16>)> = Vec::new();
        loop {
            while let Some((pc, ri)) = work.pop() {
                if cfg.insts.contains_key(&pc) {
                    continue;
                }
                if pc < base || pc >= end {
                    return Err(bad(ri, pc, "code", pc, "is outside .text"));
                }
                if pc % 4 != 0 {
                    return Err(bad(ri, pc, "code", pc, "is not 4-byte aligned"));
                }
                let off = (pc - base) as usize;
                let inst = isa::decode(guest, &text[off..], false).map_err(|source| {
                    TranslateError::Undecodable {
                        kernel: roots[ri].name.clone(),
                        pc,
                        source,
                    }
                })?;
                let len = u64::from(inst.len);
                // No instruction may start inside this one, nor this one inside another.
                if let Some((&p, prev)) = cfg.insts.range(..pc).next_back() {
                    if p + u64::from(prev.inst.len) > pc {
                        return Err(bad(ri, p, "code", pc, "starts inside the instruction here"));
                    }
                }
                if let Some((&n, _)) = cfg.insts.range(pc + 1..pc + len).next() {
                    return Err(bad(ri, pc, "code", n, "starts inside this instruction"));
                }
                let flow = flow_of(&inst, pc);
                cfg.insts.insert(pc, SrcInst { pc, inst, flow });
                let next = pc + len;
                let mut push_target = |t: u64, what: &'static str, cfg: &mut Cfg| {
                    if t < base || t >= end {
                        return Err(bad(ri, pc, what, t, "is outside .text"));
                    }
                    cfg.leaders.insert(t);
                    work.push((t, ri));
                    Ok(())
                };
                match flow {
                    Flow::Next => work.push((next, ri)),
                    Flow::End | Flow::SetPc => {
                        cfg.leaders.insert(next);
                    }
                    Flow::Branch(t) => {
                        push_target(t, "branch", &mut cfg)?;
                        cfg.leaders.insert(next);
                    }
                    Flow::CondBranch(t) | Flow::Call(t) => {
                        push_target(t, "branch", &mut cfg)?;
                        push_target(next, "fallthrough", &mut cfg)?;
                    }
                    Flow::SwapPc => push_target(next, "fallthrough", &mut cfg)?,
                }
                if matches!(flow, Flow::SetPc | Flow::SwapPc) {
                    consumers.push((pc, ri));
                }
            }
            let mut grew = false;
            for (pc, ri) in std::mem::take(&mut consumers) {
                let inst = cfg.insts[&pc].inst;
                if let Some((b, regs)) = cfg.recover(pc, &inst) {
                    for t in b.targets() {
                        if t % 4 != 0 || t < base || t >= end {
                            return Err(bad(ri, pc, "recovered jump", t, "is outside .text"));
                        }
                        cfg.leaders.insert(t);
                        work.push((t, ri));
                    }
                    cfg.recovered.insert(pc, b);
                    if !regs.is_empty() {
                        switches.push((pc, regs));
                    }
                    grew = true;
                }
            }
            if !grew {
                break;
            }
        }
        // A recovery is valid only over straight-line code: drop any whose range a
        // leader (a join) splits. A switch's case registers get offsets that differ
        // from the guest's: drop it when a target may read them.
        for (c, regs) in switches {
            let b = cfg.recovered[&c];
            if b.targets().any(|t| cfg.sgprs_read_at(t, &regs)) {
                cfg.recovered.remove(&c);
            }
        }
        let leaders = &cfg.leaders;
        cfg.recovered
            .retain(|&c, b| leaders.range(b.getpc + 1..=c).next().is_none());
        Ok(cfg)
    }

    /// Whether code from `target` may read one of the SGPRs `regs` before writing it:
    /// follows fallthrough and branches for a bounded number of instructions and answers
    /// `true` when in doubt (calls, indirect transfers, the budget).
    fn sgprs_read_at(&self, target: u64, regs: &[u16]) -> bool {
        let mut work = vec![(target, 0u64)];
        let mut seen = BTreeSet::new();
        let mut budget = 256;
        // Per path: a bit per entry of `regs` once written.
        while let Some((pc, written)) = work.pop() {
            if !seen.insert((pc, written)) {
                continue;
            }
            budget -= 1;
            let Some(s) = self.insts.get(&pc) else {
                return true;
            };
            if budget == 0 {
                return true;
            }
            let mut w = written;
            for a in s.inst.accesses() {
                if a.file != RegFile::Sgpr {
                    continue;
                }
                for (k, &r) in regs.iter().enumerate() {
                    if w & 1 << k != 0 || r < a.first || r >= a.first + u16::from(a.count) {
                        continue;
                    }
                    if a.kind.writes() && !a.kind.reads() {
                        w |= 1 << k;
                    } else {
                        return true;
                    }
                }
            }
            if w.count_ones() as usize == regs.len() {
                continue;
            }
            let next = self.next_pc(pc);
            match s.flow {
                Flow::Next => work.push((next, w)),
                Flow::End => {}
                Flow::Branch(t) => work.push((t, w)),
                Flow::CondBranch(t) => work.extend([(t, w), (next, w)]),
                Flow::Call(_) | Flow::SwapPc | Flow::SetPc => return true,
            }
        }
        false
    }

    /// The instruction that ends right before `pc`, if it was decoded.
    fn previous(&self, pc: u64) -> Option<&SrcInst> {
        let (_, p) = self.insts.range(..pc).next_back()?;
        (p.pc + u64::from(p.inst.len) == pc).then_some(p)
    }

    /// Evaluates the PC builder of the indirect transfer `consumer` at `pc`: the builder
    /// and, for a switch, the registers that hold its case offsets.
    fn recover(&self, pc: u64, consumer: &Inst) -> Option<(Builder, Vec<u16>)> {
        // s_setpc_b64 s[n:n+1] (operand 0); s_swappc_b64 sdst, s[n:n+1] (operand 1).
        let idx = usize::from(consumer.op == Op::SSwappcB64);
        let Some(Operand::Sgpr { first: n, count: 2 }) = consumer.operand(idx) else {
            return None;
        };
        let (lo_reg, hi_reg) = (n, n + 1);
        // Walk back over straight-line code to the s_getpc_b64 of the pair.
        let mut chain = Vec::new();
        let mut at = pc;
        let getpc = loop {
            let p = self.previous(at)?;
            if chain.len() >= MAX_BUILDER_DISTANCE || p.flow != Flow::Next {
                return None;
            }
            if p.inst.op == Op::SGetpcB64
                && p.inst.operand(0) == Some(Operand::Sgpr { first: n, count: 2 })
            {
                break p;
            }
            chain.push(*p);
            at = p.pc;
        };
        chain.reverse();
        // Registers holding case offsets: set by `s_mov_b32` from a literal (one case)
        // or by `s_cselect_b32` of two such (both cases). A case read by anything else
        // leaks its literal (`poisoned`), which then cannot be rewritten.
        let mut cases: Vec<(u16, Cases)> = Vec::new();
        let mut poisoned: Vec<u64> = Vec::new();
        let case_of = |cases: &[(u16, Cases)], r: u16| cases.iter().find(|c| c.0 == r).map(|c| c.1);
        let sgpr = |o: Option<Operand>| match o {
            Some(Operand::Sgpr { first, count: 1 }) => Some(first),
            _ => None,
        };
        let (mut lo, mut high): (Option<Cases>, Option<(High, u32, u64)>) = (None, None);
        for s in &chain {
            let i = &s.inst;
            let dst = sgpr(i.operand(0));
            let (a, b) = (i.operand(1), i.operand(2));
            let outside = dst.is_some_and(|d| d < lo_reg || d > hi_reg);
            // For `x = x + y`: y.
            let other = |own: u16| match (a, b) {
                (Some(Operand::Sgpr { first, count: 1 }), y) if first == own => y,
                (y, Some(Operand::Sgpr { first, count: 1 })) if first == own => y,
                _ => None,
            };
            match i.op {
                Op::SAddU32 if lo.is_none() && dst == Some(lo_reg) => {
                    lo = Some(match other(lo_reg)? {
                        Operand::Literal(l) => Cases::one(l, s.pc),
                        Operand::Sgpr { first, count: 1 } => case_of(&cases, first)?,
                        _ => return None,
                    });
                    continue;
                }
                Op::SAddcU32 if lo.is_some() && high.is_none() && dst == Some(hi_reg) => {
                    high = Some(match other(hi_reg)? {
                        Operand::Literal(h) => (High::Literal, h, s.pc),
                        // GFX9 integer inline constants: 128..=192 are 0..64,
                        // 193..=208 are -1..-16.
                        Operand::Inline(c @ 128..=192) => {
                            let h = u32::from(c) - 128;
                            (High::Fixed(h), h, s.pc)
                        }
                        Operand::Inline(c @ 193..=208) => {
                            let h = (192 - i32::from(c)) as u32;
                            (High::Fixed(h), h, s.pc)
                        }
                        _ => return None,
                    });
                    continue;
                }
                Op::SMovB32 if outside => {
                    if let Some(Operand::Literal(l)) = a {
                        let d = dst?;
                        cases.retain(|c| c.0 != d);
                        cases.push((d, Cases::one(l, s.pc)));
                        continue;
                    }
                }
                Op::SCselectB32 if outside => {
                    let (x, y) = (
                        sgpr(a).and_then(|r| case_of(&cases, r)),
                        sgpr(b).and_then(|r| case_of(&cases, r)),
                    );
                    if let (Some(x), Some(y)) = (x, y) {
                        if x.count == 1 && y.count == 1 {
                            let d = dst?;
                            cases.retain(|c| c.0 != d);
                            cases.push((
                                d,
                                Cases {
                                    v: [x.v[0], y.v[0]],
                                    count: 2,
                                },
                            ));
                            continue;
                        }
                    }
                }
                _ => {}
            }
            let mut writes_pair = false;
            let mut writes_scc = false;
            for acc in i.accesses() {
                if acc.file == RegFile::Special(isa::Special::Scc) && acc.kind.writes() {
                    writes_scc = true;
                }
                if acc.file != RegFile::Sgpr {
                    continue;
                }
                let span = acc.first..acc.first + u16::from(acc.count);
                if acc.kind.writes() && (span.contains(&lo_reg) || span.contains(&hi_reg)) {
                    writes_pair = true;
                }
                for c in cases.iter().filter(|c| span.contains(&c.0)) {
                    if acc.kind.reads() {
                        poisoned.extend(c.1.sites());
                    }
                }
                if acc.kind.writes() {
                    cases.retain(|c| !span.contains(&c.0));
                }
            }
            // Nothing else may write the pair, nor SCC between the adds.
            if writes_pair || (writes_scc && lo.is_some() && high.is_none()) {
                return None;
            }
        }
        let (lo, (high, hi_bits, add_hi)) = (lo?, high?);
        // A literal high half belongs to one offset.
        if lo.count > 1 && high == High::Literal {
            return None;
        }
        if lo.sites().any(|a| poisoned.contains(&a)) {
            return None;
        }
        let mut targets = [(0, 0); MAX_TARGETS];
        for (k, &(l, at)) in lo.v[..usize::from(lo.count)].iter().enumerate() {
            let offset = (u64::from(hi_bits) << 32) | u64::from(l);
            targets[k] = (at, (getpc.pc + 4).wrapping_add(offset));
        }
        // Registers that still hold a rewritten literal after the jump.
        let regs = cases
            .iter()
            .filter(|c| c.1.sites().any(|a| lo.sites().any(|b| a == b)))
            .map(|c| c.0)
            .collect();
        Some((
            Builder {
                getpc: getpc.pc,
                lo: targets,
                count: lo.count,
                add_hi,
                high,
            },
            regs,
        ))
    }

    /// The address of the instruction after `pc` (its fallthrough).
    pub fn next_pc(&self, pc: u64) -> u64 {
        self.insts
            .get(&pc)
            .map_or(pc, |s| s.pc + u64::from(s.inst.len))
    }
}
