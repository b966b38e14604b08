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
//! pair), which gives one concrete target. Everything else stays unrecovered; the caller
//! decides whether that is acceptable (it is when code does not move).

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

/// A PC builder recovered for an indirect transfer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Builder {
    /// Address of the `s_getpc_b64`.
    pub getpc: u64,
    /// Address of the `s_add_u32` with the low literal.
    pub add_lo: u64,
    /// Address of the `s_addc_u32` with the high literal.
    pub add_hi: u64,
    /// The concrete target.
    pub target: u64,
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
                if let Some(b) = cfg.recover(pc, &inst) {
                    if b.target % 4 != 0 || b.target < base || b.target >= end {
                        return Err(bad(ri, pc, "recovered jump", b.target, "is outside .text"));
                    }
                    cfg.recovered.insert(pc, b);
                    cfg.leaders.insert(b.target);
                    work.push((b.target, ri));
                    grew = true;
                }
            }
            if !grew {
                break;
            }
        }
        // A recovery is valid only over straight-line code: drop any whose range a
        // leader (a join) splits.
        let leaders = &cfg.leaders;
        cfg.recovered
            .retain(|&c, b| leaders.range(b.getpc + 1..=c).next().is_none());
        Ok(cfg)
    }

    /// The instruction that ends right before `pc`, if it was decoded.
    fn previous(&self, pc: u64) -> Option<&SrcInst> {
        let (_, p) = self.insts.range(..pc).next_back()?;
        (p.pc + u64::from(p.inst.len) == pc).then_some(p)
    }

    /// Evaluates the PC builder of the indirect transfer `consumer` at `pc`.
    fn recover(&self, pc: u64, consumer: &Inst) -> Option<Builder> {
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
        let (mut lo_lit, mut hi_lit) = (None, None);
        for s in &chain {
            let writes_pair = s.inst.accesses().any(|a| {
                a.kind.writes()
                    && a.file == RegFile::Sgpr
                    && a.first <= hi_reg
                    && lo_reg < a.first + u16::from(a.count)
            });
            let lit = |i: &Inst| match (i.operand(1), i.operand(2)) {
                (Some(Operand::Sgpr { first, count: 1 }), Some(Operand::Literal(l)))
                | (Some(Operand::Literal(l)), Some(Operand::Sgpr { first, count: 1 })) => {
                    Some((first, l))
                }
                _ => None,
            };
            let dst = match s.inst.operand(0) {
                Some(Operand::Sgpr { first, count: 1 }) => Some(first),
                _ => None,
            };
            match s.inst.op {
                Op::SAddU32 if lo_lit.is_none() && dst == Some(lo_reg) => {
                    let (src, l) = lit(&s.inst)?;
                    (src == lo_reg).then_some(())?;
                    lo_lit = Some((s.pc, l));
                }
                Op::SAddcU32 if lo_lit.is_some() && hi_lit.is_none() && dst == Some(hi_reg) => {
                    let (src, l) = lit(&s.inst)?;
                    (src == hi_reg).then_some(())?;
                    hi_lit = Some((s.pc, l));
                }
                _ => {
                    // Anything else may not touch the pair, nor SCC between the adds.
                    let touches_scc = s
                        .inst
                        .accesses()
                        .any(|a| a.kind.writes() && a.file == RegFile::Special(isa::Special::Scc));
                    if writes_pair || (touches_scc && lo_lit.is_some() && hi_lit.is_none()) {
                        return None;
                    }
                }
            }
        }
        let ((add_lo, lo), (add_hi, hi)) = (lo_lit?, hi_lit?);
        let offset = (u64::from(hi) << 32) | u64::from(lo);
        Some(Builder {
            getpc: getpc.pc,
            add_lo,
            add_hi,
            target: (getpc.pc + 4).wrapping_add(offset),
        })
    }

    /// The address of the instruction after `pc` (its fallthrough).
    pub fn next_pc(&self, pc: u64) -> u64 {
        self.insts
            .get(&pc)
            .map_or(pc, |s| s.pc + u64::from(s.inst.len))
    }
}
