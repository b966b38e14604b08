//! VGPR liveness over a kernel scope: which guest VGPRs an EXPAND rule may use as scratch
//! at one instruction instead of growing the descriptor.
//!
//! The operand roles come from the ISA description (`Inst::accesses`): a read-write
//! access (accumulators, partial writes: 16-bit halves, SDWA preserve, DPP row masks)
//! reads the old value, a write-only access replaces it. Registers are tracked per wave,
//! lanes are not, so a write kills a value only where the write is sure to cover every
//! lane the scratch use covers: the scratch sequence writes the lanes active at the
//! instruction, and a later write covers those same lanes only while EXEC is unchanged.
//! Hence two parts:
//!
//! * [`Liveness::new`]: per instruction, the VGPRs that any path from it may read (a
//!   backward fixpoint without kills; an unknown successor, such as an unrecovered
//!   `s_setpc_b64` return, makes every register live);
//! * [`Liveness::free_run`]: from the instruction, a forward walk along the fallthrough
//!   while no instruction writes EXEC and control stays straight: a register written
//!   (write-only) before it is read is dead, one read first is live, and the rest are
//!   live when the fixpoint says a path from the walk's end reads them.
//!
//! Writes that land after they issue (loads, DS, returning atomics, MFMAs) are not
//! ordered with the scratch use: their destinations are never free.
//!
//! The instruction's own registers are never free (its expansion reads sources and writes
//! destinations while the scratch holds values). Scopes that index VGPRs through M0 hide
//! their accesses: the caller does not ask then.

use crate::cfg::{Cfg, Flow};
use gpu_model::isa::{self, IssueClass, RegFile};
use std::collections::{BTreeMap, BTreeSet};

/// A set of VGPRs 0..256.
type Regs = [u64; 4];

const ALL: Regs = [u64::MAX; 4];

/// How far the forward walk of [`Liveness::free_run`] goes.
const WALK: usize = 4096;

fn add(r: &mut Regs, first: u16, count: u8) {
    for x in first..(first + u16::from(count)).min(256) {
        r[usize::from(x / 64)] |= 1 << (x % 64);
    }
}

fn has(r: &Regs, x: u16) -> bool {
    x < 256 && r[usize::from(x / 64)] >> (x % 64) & 1 != 0
}

fn or(a: &mut Regs, b: &Regs) -> bool {
    let mut changed = false;
    for (x, y) in a.iter_mut().zip(b) {
        let n = *x | y;
        changed |= n != *x;
        *x = n;
    }
    changed
}

/// VGPRs read (or read-written) and written only by an instruction.
fn uses(inst: &isa::Inst) -> (Regs, Regs) {
    let (mut reads, mut writes) = ([0; 4], [0; 4]);
    for a in inst.accesses() {
        if a.file != RegFile::Vgpr {
            continue;
        }
        if a.kind.reads() {
            add(&mut reads, a.first, a.count);
        } else {
            add(&mut writes, a.first, a.count);
        }
    }
    (reads, writes)
}

/// Whether an instruction writes EXEC (SGPR codes 126, 127).
fn writes_exec(inst: &isa::Inst) -> bool {
    inst.accesses().any(|a| {
        a.kind.writes()
            && a.file == RegFile::Sgpr
            && a.first <= 127
            && a.first + u16::from(a.count) > 126
    })
}

/// The successors of the instruction at `pc` (a recovered switch has two targets),
/// `None` when one is unknown (an unrecovered indirect transfer).
fn successors(cfg: &Cfg, pc: u64) -> Option<[Option<u64>; 3]> {
    let s = cfg.insts.get(&pc)?;
    let next = cfg.next_pc(pc);
    let far = |b: &crate::cfg::Builder, k: usize| b.targets().nth(k);
    Some(match s.flow {
        Flow::Next => [Some(next), None, None],
        Flow::End => [None, None, None],
        Flow::Branch(t) => [Some(t), None, None],
        Flow::CondBranch(t) | Flow::Call(t) => [Some(t), Some(next), None],
        Flow::SwapPc => {
            let b = cfg.recovered.get(&pc)?;
            [far(b, 0), far(b, 1), Some(next)]
        }
        Flow::SetPc => {
            let b = cfg.recovered.get(&pc)?;
            [far(b, 0), far(b, 1), None]
        }
    })
}

/// The read-later sets of one kernel scope.
pub(crate) struct Liveness<'a> {
    cfg: &'a Cfg,
    /// Per instruction: VGPRs some path from it (itself included) may read.
    later: BTreeMap<u64, Regs>,
    /// VGPRs that an instruction completing after it issues (loads, DS, returning atomics,
    /// matrix ops) writes somewhere in the scope: such a write may still be in flight at
    /// any point, so these are never free.
    late: Regs,
}

impl<'a> Liveness<'a> {
    /// Solves the read-later sets of `scope`.
    pub(crate) fn new(cfg: &'a Cfg, scope: &BTreeSet<u64>) -> Liveness<'a> {
        let mut later: BTreeMap<u64, Regs> = scope.iter().map(|&pc| (pc, [0; 4])).collect();
        let mut late = [0; 4];
        let mut reads = BTreeMap::new();
        for &pc in scope {
            let Some(s) = cfg.insts.get(&pc) else {
                continue;
            };
            let (r, w) = uses(&s.inst);
            reads.insert(pc, r);
            if matches!(
                s.inst.issue_class(),
                IssueClass::VectorLoad
                    | IssueClass::VectorAtomic
                    | IssueClass::Lds
                    | IssueClass::Matrix
            ) {
                or(&mut late, &w);
                // A read-write destination (a d16 load's kept half) is written late too.
                for a in s.inst.accesses() {
                    if a.file == RegFile::Vgpr && a.kind.writes() {
                        add(&mut late, a.first, a.count);
                    }
                }
            }
        }
        // Reverse address order visits most successors first; loops take more rounds.
        let mut changed = true;
        while changed {
            changed = false;
            for &pc in scope.iter().rev() {
                let mut r = reads.get(&pc).copied().unwrap_or(ALL);
                or(&mut r, &Self::after_in(cfg, &later, pc));
                if let Some(l) = later.get_mut(&pc) {
                    changed |= or(l, &r);
                }
            }
        }
        Liveness { cfg, later, late }
    }

    /// What the successors of `pc` may read.
    fn after_in(cfg: &Cfg, later: &BTreeMap<u64, Regs>, pc: u64) -> Regs {
        let Some(succ) = successors(cfg, pc) else {
            return ALL;
        };
        let mut r = [0; 4];
        for t in succ.into_iter().flatten() {
            match later.get(&t) {
                Some(l) => {
                    or(&mut r, l);
                }
                None => return ALL,
            }
        }
        r
    }

    /// The lowest `n` consecutive VGPRs below `limit`, starting at `want` modulo 4 (the
    /// alignment the rule would have had at its usual scratch base), that hold nothing
    /// live at the instruction at `pc` and that it does not access; `None` when there are
    /// none.
    pub(crate) fn free_run(&self, pc: u64, n: u16, want: u16, limit: u16) -> Option<u16> {
        let s = self.cfg.insts.get(&pc)?;
        let (r, w) = uses(&s.inst);
        let mut live = self.late;
        or(&mut live, &r);
        or(&mut live, &w);
        let mut killed: Regs = [0; 4];
        let mut cur = pc;
        let mut steps = 0;
        // Walk the straight line after `pc` while EXEC stays the same.
        let tail = loop {
            let flow = self.cfg.insts.get(&cur).map(|s| s.flow);
            if flow != Some(Flow::Next) || steps == WALK {
                break Self::after_in(self.cfg, &self.later, cur);
            }
            let next = self.cfg.next_pc(cur);
            let (Some(t), Some(l)) = (self.cfg.insts.get(&next), self.later.get(&next)) else {
                break ALL;
            };
            if writes_exec(&t.inst) {
                break *l;
            }
            steps += 1;
            cur = next;
            let (r, w) = uses(&t.inst);
            for (x, (y, k)) in live.iter_mut().zip(r.iter().zip(&killed)) {
                *x |= y & !k;
            }
            for (k, (y, l)) in killed.iter_mut().zip(w.iter().zip(&live)) {
                *k |= y & !l;
            }
        };
        for (x, (y, k)) in live.iter_mut().zip(tail.iter().zip(&killed)) {
            *x |= y & !k;
        }
        let limit = limit.min(256);
        let mut start = want % 4;
        while start + n <= limit {
            if (start..start + n).all(|x| !has(&live, x)) {
                return Some(start);
            }
            start += 4;
        }
        None
    }
}
