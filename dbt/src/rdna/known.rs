//! Known bits of the guest's SGPRs (s0..s101) before every instruction of a kernel
//! scope: a forward dataflow over the scope's graph whose meet keeps what every
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

type State = [Bits; N];

/// Known SGPR bits before each instruction of scope `sc` entered at `roots`.
pub(crate) fn analyse(cfg: &Cfg, sc: &BTreeSet<u64>, roots: &[u64]) -> BTreeMap<u64, Box<State>> {
    let unknown: State = [Bits::default(); N];
    let mut at: BTreeMap<u64, Box<State>> = BTreeMap::new();
    let mut work: Vec<u64> = Vec::new();
    let seed = |pc: u64, at: &mut BTreeMap<u64, Box<State>>, work: &mut Vec<u64>| {
        if sc.contains(&pc) {
            at.insert(pc, Box::new(unknown));
            work.push(pc);
        }
    };
    for &r in roots {
        seed(r, &mut at, &mut work);
    }
    for (&pc, s) in cfg.insts.range(..) {
        if !sc.contains(&pc) {
            continue;
        }
        match s.flow {
            Flow::Call(t) => {
                seed(t, &mut at, &mut work);
                seed(cfg.next_pc(pc), &mut at, &mut work);
            }
            Flow::SwapPc => seed(cfg.next_pc(pc), &mut at, &mut work),
            _ => {}
        }
    }
    for b in cfg.recovered.values() {
        seed(b.target, &mut at, &mut work);
    }
    let forced: BTreeSet<u64> = at.keys().copied().collect();
    while let Some(pc) = work.pop() {
        let Some(s) = cfg.insts.get(&pc) else {
            continue;
        };
        let mut st = *at[&pc].clone();
        step(&s.inst, &mut st);
        let next = cfg.next_pc(pc);
        let succ: [Option<u64>; 2] = match s.flow {
            Flow::Next => [Some(next), None],
            Flow::Branch(t) => [Some(t), None],
            Flow::CondBranch(t) => [Some(t), Some(next)],
            // Calls and indirect transfers: their targets are seeded above.
            _ => [None, None],
        };
        for t in succ.into_iter().flatten() {
            if !sc.contains(&t) || forced.contains(&t) {
                continue;
            }
            let changed = match at.get_mut(&t) {
                Some(old) => {
                    let mut m = **old;
                    for (a, b) in m.iter_mut().zip(st.iter()) {
                        *a = a.meet(*b);
                    }
                    let c = m != **old;
                    **old = m;
                    c
                }
                None => {
                    at.insert(t, Box::new(st));
                    true
                }
            };
            if changed {
                work.push(t);
            }
        }
    }
    at
}

/// The value of a source operand, as far as it is known.
fn src(o: Option<Operand>, st: &State, half: u16) -> Bits {
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
fn step(i: &isa::Inst, st: &mut State) {
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
