//! Facts about the guest before every instruction of a kernel scope, by forward
//! dataflow: which GFX12 wait counters may have operations outstanding ([`pending`]),
//! and the known bits of the guest's SGPRs (s0..s101, [`analyse`]): a forward dataflow over the scope's graph whose meet keeps what every
//! predecessor agrees on. It lets the buffer rule see descriptor words that are
//! constants (Triton and clang build dword3 with `s_mov_b32 sN, 0x27000` and dword1 with
//! `s_and_b32 sN, sM, 0xffff`) and convert them for GFX12 with one `s_mov_b32`.
//!
//! Modelled exactly: `s_mov_b32`, `s_mov_b64` (SGPR, inline or literal sources),
//! `s_and_b32`, `s_or_b32`; every other SGPR write makes its registers unknown. Control
//! that enters from outside the tracked edges (the entries, call targets, the
//! continuations of calls, recovered indirect targets) starts with nothing known.

use crate::cfg::{Cfg, Flow};
use gpu_model::isa::{self, Op, Operand};
use std::collections::{BTreeMap, BTreeSet};

/// Guest SGPRs tracked (GFX9 operand codes 0..=101; VCC and the rest are not).
const N: usize = 102;

/// Bits known to be 0 and known to be 1 (never both).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Bits {
    pub zero: u32,
    pub one: u32,
}

impl Bits {
    const fn value(v: u32) -> Bits {
        Bits { zero: !v, one: v }
    }
    fn meet(self, o: Bits) -> Bits {
        Bits {
            zero: self.zero & o.zero,
            one: self.one & o.one,
        }
    }
    /// The value when every bit is known.
    pub fn constant(self) -> Option<u32> {
        (self.zero | self.one == u32::MAX).then_some(self.one)
    }
}

pub(crate) type State = Box<[Bits; N]>;

/// Known SGPR bits before each instruction of scope `sc` entered at `roots`.
pub(crate) fn analyse(cfg: &Cfg, sc: &BTreeSet<u64>, roots: &[u64]) -> Facts<State> {
    forward(
        cfg,
        sc,
        roots,
        (
            Box::new([Bits::default(); N]),
            Box::new([Bits::default(); N]),
        ),
        |i, st| step(i, st),
        |old, new| {
            let mut changed = false;
            for (a, b) in old.iter_mut().zip(new.iter()) {
                let m = a.meet(*b);
                changed |= m != *a;
                *a = m;
            }
            changed
        },
    )
}

/// GFX12 counters that may have operations outstanding ([`pending`]).
pub(crate) const LOAD: u8 = 1;
pub(crate) const STORE: u8 = 2;
pub(crate) const DS: u8 = 4;
pub(crate) const KM: u8 = 8;

/// The GFX12 counters (`LOAD | STORE | DS | KM` bits) that may have operations
/// outstanding before each instruction of the scope, from what the guest's memory
/// instructions become on GFX12 (`Inst::wait_counters` of the guest, split the way the
/// GFX12 counters split: GFX9 vmcnt into loadcnt for loads and returning atomics and
/// storecnt for stores and other atomics, lgkmcnt into dscnt for LDS and kmcnt for
/// scalar memory; both where the kind is not known) and the guest's waits for 0. The
/// meet is the union; the kernel entry starts with nothing outstanding, control
/// entering from outside the tracked edges with everything.
pub(crate) fn pending(cfg: &Cfg, sc: &BTreeSet<u64>, roots: &[u64]) -> Facts<u8> {
    forward(
        cfg,
        sc,
        roots,
        // A wave starts with every counter at 0.
        (0, LOAD | STORE | DS | KM),
        |i, st| *st = pending_after(i, *st),
        |old, new| {
            let m = *old | *new;
            let changed = m != *old;
            *old = m;
            changed
        },
    )
}

pub(crate) fn pending_after(i: &isa::Inst, st: u8) -> u8 {
    use isa::layout::{Format, F};
    use isa::{Counter, IssueClass};
    if i.op == Op::SWaitcnt {
        let s = i.field(F::Simm16);
        let vm = (s & 0xf) | (s >> 14 & 3) << 4;
        let lgkm = s >> 8 & 0xf;
        // Any waited count becomes a wait for 0 on gfx1201 (`reencode::waitcnt`).
        let mut st = st;
        if vm < 63 {
            st &= !(LOAD | STORE);
        }
        if lgkm < 15 {
            st &= !(DS | KM);
        }
        return st;
    }
    let c = i.wait_counters();
    let mut add = 0;
    if c.contains(Counter::VmCnt) {
        // Plain loads and stores only; atomics, cache operations and the rest on both.
        let m = i.mnemonic();
        let plain = !m.contains("_atomic_");
        add |= match i.issue_class() {
            IssueClass::VectorLoad if plain && m.contains("_load_") => LOAD,
            IssueClass::VectorStore if plain && m.contains("_store_") => STORE,
            _ => LOAD | STORE,
        };
    }
    if c.contains(Counter::LgkmCnt) {
        add |= match i.format {
            Format::Ds => DS,
            Format::Smem => KM,
            _ => DS | KM,
        };
    }
    st | add
}

/// Dataflow facts at the starts of the scope's straight-line runs (block leaders,
/// entries, fallthroughs of transfers); the emitter steps through each run from its
/// start ([`Facts::enter`]), so memory stays proportional to the blocks.
pub(crate) struct Facts<S> {
    at: BTreeMap<u64, S>,
    starts: BTreeSet<u64>,
}

impl<S: Clone> Facts<S> {
    /// At `pc`: a run start resets `cur` to its fact (`None` when no tracked edge
    /// reaches it); elsewhere `cur` is what stepping the previous instruction gave.
    pub fn enter(&self, pc: u64, cur: &mut Option<S>) {
        if self.starts.contains(&pc) {
            *cur = self.at.get(&pc).cloned();
        }
    }
}

/// A forward dataflow over the scope: `entry.0` at the roots, `entry.1` wherever control
/// enters from outside the tracked edges (call targets, the continuations of calls,
/// recovered indirect targets); those keep their state. `step` per instruction, `meet`
/// merging a predecessor's state into a successor's (true when it changed).
fn forward<S: Clone>(
    cfg: &Cfg,
    sc: &BTreeSet<u64>,
    roots: &[u64],
    entry: (S, S),
    step: impl Fn(&isa::Inst, &mut S),
    meet: impl Fn(&mut S, &S) -> bool,
) -> Facts<S> {
    let mut at: BTreeMap<u64, S> = BTreeMap::new();
    let mut work: Vec<u64> = Vec::new();
    let seed = |pc: u64, e: &S, at: &mut BTreeMap<u64, S>, work: &mut Vec<u64>| {
        if sc.contains(&pc) {
            at.insert(pc, e.clone());
            work.push(pc);
        }
    };
    for &r in roots {
        seed(r, &entry.0, &mut at, &mut work);
    }
    let e = &entry.1;
    let mut starts: BTreeSet<u64> = cfg.leaders.intersection(sc).copied().collect();
    for (&pc, s) in cfg.insts.range(..) {
        if !sc.contains(&pc) {
            continue;
        }
        match s.flow {
            Flow::Next => {}
            Flow::Branch(t) | Flow::CondBranch(t) => {
                starts.insert(t);
                starts.insert(cfg.next_pc(pc));
            }
            Flow::Call(t) => {
                seed(t, e, &mut at, &mut work);
                seed(cfg.next_pc(pc), e, &mut at, &mut work);
            }
            Flow::SwapPc => seed(cfg.next_pc(pc), e, &mut at, &mut work),
            _ => {
                starts.insert(cfg.next_pc(pc));
            }
        }
    }
    for t in cfg.recovered.values().flat_map(|b| b.targets()) {
        seed(t, e, &mut at, &mut work);
    }
    let forced: BTreeSet<u64> = at.keys().copied().collect();
    starts.extend(forced.iter().copied());
    while let Some(first) = work.pop() {
        let Some(st) = at.get(&first) else {
            continue;
        };
        let mut st = st.clone();
        let mut pc = first;
        // Step through the run, then merge into its successors.
        let succ: [Option<u64>; 2] = loop {
            let Some(s) = cfg.insts.get(&pc) else {
                break [None, None];
            };
            step(&s.inst, &mut st);
            let next = cfg.next_pc(pc);
            match s.flow {
                Flow::Next if starts.contains(&next) || !sc.contains(&next) => {
                    break [Some(next), None]
                }
                Flow::Next => pc = next,
                Flow::Branch(t) => break [Some(t), None],
                Flow::CondBranch(t) => break [Some(t), Some(next)],
                // Calls and indirect transfers: their targets are seeded above.
                _ => break [None, None],
            }
        };
        for t in succ.into_iter().flatten() {
            if !sc.contains(&t) || forced.contains(&t) {
                continue;
            }
            let changed = match at.get_mut(&t) {
                Some(old) => meet(old, &st),
                None => {
                    at.insert(t, st.clone());
                    true
                }
            };
            if changed {
                work.push(t);
            }
        }
    }
    Facts { at, starts }
}

/// The value of a source operand, as far as it is known.
fn src(o: Option<Operand>, st: &[Bits; N], half: u16) -> Bits {
    match o {
        Some(Operand::Sgpr { first, .. }) if usize::from(first + half) < N => {
            st[usize::from(first + half)]
        }
        // Integer inline constants (GFX9 codes 128..=192 are 0..64, 193..=208 are
        // -1..-16), sign-extended to 64 bits for the high half.
        Some(Operand::Inline(c @ 128..=208)) => {
            let v = if c <= 192 {
                i64::from(c) - 128
            } else {
                192 - i64::from(c)
            };
            Bits::value((v >> (32 * half)) as u32)
        }
        Some(Operand::Literal(v)) if half == 0 => Bits::value(v),
        _ => Bits::default(),
    }
}

/// `st` after instruction `i`.
pub(crate) fn step(i: &isa::Inst, st: &mut [Bits; N]) {
    let mut out: [(usize, Bits); 2] = [(usize::MAX, Bits::default()); 2];
    match (i.op, i.operand(0)) {
        (Op::SMovB32, Some(Operand::Sgpr { first, .. })) => {
            out[0] = (usize::from(first), src(i.operand(1), st, 0));
        }
        (Op::SMovB64, Some(Operand::Sgpr { first, .. })) => {
            out[0] = (usize::from(first), src(i.operand(1), st, 0));
            out[1] = (usize::from(first) + 1, src(i.operand(1), st, 1));
        }
        (Op::SAndB32, Some(Operand::Sgpr { first, .. })) => {
            let (a, b) = (src(i.operand(1), st, 0), src(i.operand(2), st, 0));
            out[0] = (
                usize::from(first),
                Bits {
                    zero: a.zero | b.zero,
                    one: a.one & b.one,
                },
            );
        }
        (Op::SOrB32, Some(Operand::Sgpr { first, .. })) => {
            let (a, b) = (src(i.operand(1), st, 0), src(i.operand(2), st, 0));
            out[0] = (
                usize::from(first),
                Bits {
                    zero: a.zero & b.zero,
                    one: a.one | b.one,
                },
            );
        }
        _ => {}
    }
    for a in i.accesses() {
        if a.file == isa::RegFile::Sgpr && a.kind != isa::AccessKind::Read {
            for b in st
                .iter_mut()
                .skip(usize::from(a.first))
                .take(usize::from(a.count))
            {
                *b = Bits::default();
            }
        }
    }
    for (r, b) in out {
        if r < N {
            st[r] = b;
        }
    }
}
