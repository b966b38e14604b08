//! `v_bitop3_b32` (gfx950 only) as the shortest GFX12 sequence of at most two bitwise
//! operations that computes its truth table.
//!
//! A three-input bitwise function is its 8-bit truth table over the sources' truth
//! vectors `a = 0xf0`, `b = 0xcc`, `c = 0xaa` (bit `a<<2 | b<<1 | c` of the table is the
//! result for those source bits: the CDNA4 ISA's BITOP3, the gfx950 model's
//! `exec::valu::bitop3`). Every GFX12 operation below is bitwise too, so a sequence
//! computes the table exactly when it computes it on those three vectors. A table of
//! the cheapest sequence for each of the 256 functions is searched once: one
//! instruction over the sources and the inline constants 0 and -1, else two, the
//! second reading the first's result. Functions that need three fall back to the
//! gfx942 rule (`rules::expand_bitop3`: two two-input functions merged by `v_bfi_b32`).
//! Clang's gfx950 selections (an AND of an XOR, an AND-OR, a masked merge) are one or
//! two operations, where the rule always takes three.

use gpu_model::isa::{Format, Inst, Op, Operand};
use std::sync::OnceLock;

use super::reencode::Ctx;
use crate::TranslateError;

/// A source of one step: a guest source, an inline constant, or the first step's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Src {
    A,
    B,
    C,
    Zero,
    Ones,
    /// The first step's result (only in a second step).
    T,
}

/// GFX12 bitwise operations (llvm-mc-22 -mcpu=gfx1201 takes each; VOP1/VOP2 are 4
/// bytes, VOP3 8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Mov,
    Not,
    And,
    Or,
    Xor,
    Xnor,
    /// `(x & y) | (!x & z)`
    Bfi,
    /// `(x & y) | z`
    AndOr,
    Or3,
    Xor3,
}

impl Kind {
    const ALL: [Kind; 10] = [
        Kind::Mov,
        Kind::Not,
        Kind::And,
        Kind::Or,
        Kind::Xor,
        Kind::Xnor,
        Kind::Bfi,
        Kind::AndOr,
        Kind::Or3,
        Kind::Xor3,
    ];

    fn arity(self) -> usize {
        match self {
            Kind::Mov | Kind::Not => 1,
            Kind::And | Kind::Or | Kind::Xor | Kind::Xnor => 2,
            Kind::Bfi | Kind::AndOr | Kind::Or3 | Kind::Xor3 => 3,
        }
    }

    /// Encoded bytes when the sources allow the short form.
    fn bytes(self) -> u32 {
        if self.arity() == 3 {
            8
        } else {
            4
        }
    }

    fn eval(self, x: u8, y: u8, z: u8) -> u8 {
        match self {
            Kind::Mov => x,
            Kind::Not => !x,
            Kind::And => x & y,
            Kind::Or => x | y,
            Kind::Xor => x ^ y,
            Kind::Xnor => !(x ^ y),
            Kind::Bfi => (x & y) | (!x & z),
            Kind::AndOr => (x & y) | z,
            Kind::Or3 => x | y | z,
            Kind::Xor3 => x ^ y ^ z,
        }
    }

    fn op(self) -> Op {
        match self {
            Kind::Mov => Op::VMovB32,
            Kind::Not => Op::VNotB32,
            Kind::And => Op::VAndB32,
            Kind::Or => Op::VOrB32,
            Kind::Xor => Op::VXorB32,
            Kind::Xnor => Op::VXnorB32,
            Kind::Bfi => Op::VBfiB32,
            Kind::AndOr => Op::VAndOrB32,
            Kind::Or3 => Op::VOr3B32,
            Kind::Xor3 => Op::VXor3B32,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Step {
    kind: Kind,
    src: [Src; 3],
}

/// The cheapest sequence for one truth table: one or two steps.
#[derive(Debug, Clone, Copy)]
struct Recipe {
    steps: [Option<Step>; 2],
    /// (instructions, bytes), compared in that order.
    cost: (u32, u32),
}

const LEAVES: [(Src, u8); 5] = [
    (Src::A, 0xf0),
    (Src::B, 0xcc),
    (Src::C, 0xaa),
    (Src::Zero, 0x00),
    (Src::Ones, 0xff),
];

/// Every source tuple of `kind` over `leaves` (unused positions `Zero`).
fn tuples(kind: Kind, leaves: &[(Src, u8)], mut f: impl FnMut([Src; 3], [u8; 3])) {
    let n = leaves.len();
    let arity = kind.arity();
    let count = n.pow(arity as u32);
    for k in 0..count {
        let (mut src, mut val) = ([Src::Zero; 3], [0u8; 3]);
        let mut r = k;
        for j in 0..arity {
            let (s, v) = leaves[r % n];
            src[j] = s;
            val[j] = v;
            r /= n;
        }
        f(src, val);
    }
}

fn better(new: (u32, u32), old: &Option<Recipe>) -> bool {
    old.as_ref().is_none_or(|o| new < o.cost)
}

/// The table of cheapest sequences, searched once.
fn recipes() -> &'static [Option<Recipe>; 256] {
    static TABLE: OnceLock<[Option<Recipe>; 256]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut best: [Option<Recipe>; 256] = [None; 256];
        for kind in Kind::ALL {
            tuples(kind, &LEAVES, |src, v| {
                let t = kind.eval(v[0], v[1], v[2]);
                let cost = (1, kind.bytes());
                if better(cost, &best[usize::from(t)]) {
                    best[usize::from(t)] = Some(Recipe {
                        steps: [Some(Step { kind, src }), None],
                        cost,
                    });
                }
            });
        }
        let first = best;
        let mut leaves = [(Src::Zero, 0u8); 6];
        leaves[..5].copy_from_slice(&LEAVES);
        for (t, r1) in first.iter().enumerate() {
            let Some(r1) = r1 else { continue };
            let Some(s1) = r1.steps[0] else { continue };
            leaves[5] = (Src::T, t as u8);
            for kind in Kind::ALL {
                tuples(kind, &leaves, |src, v| {
                    if !src[..kind.arity()].contains(&Src::T) {
                        return;
                    }
                    let out = kind.eval(v[0], v[1], v[2]);
                    let cost = (2, r1.cost.1 + kind.bytes());
                    if better(cost, &best[usize::from(out)]) {
                        best[usize::from(out)] = Some(Recipe {
                            steps: [Some(s1), Some(Step { kind, src })],
                            cost,
                        });
                    }
                });
            }
        }
        best
    })
}

/// `v_bitop3_b32 d, a, b, c` with truth table `table` as at most two GFX12 operations,
/// or `None` when the function needs three (the caller takes the gfx942 rule) or an
/// operand is not a plain one. `srcs` are the host operands of `a`, `b`, `c`; a second
/// step's temporary is `d` when the second step reads no source `d` names, else
/// `scratch`.
pub(crate) fn bitop3(
    table: u8,
    d: Operand,
    srcs: [Operand; 3],
    scratch: u16,
    cx: &Ctx<'_>,
) -> Result<Option<(Vec<Inst>, bool)>, TranslateError> {
    let Some(r) = recipes()[usize::from(table)] else {
        return Ok(None);
    };
    let Operand::Vgpr { count: 1, .. } = d else {
        return Ok(None);
    };
    let operand = |s: Src, t: Operand| match s {
        Src::A => srcs[0],
        Src::B => srcs[1],
        Src::C => srcs[2],
        Src::Zero => Operand::Inline(128),
        Src::Ones => Operand::Inline(193),
        Src::T => t,
    };
    let two = r.steps[1].is_some();
    // The second step reads its guest sources after the first wrote the temporary.
    let clobbers = r.steps[1].is_some_and(|s| {
        s.src[..s.kind.arity()]
            .iter()
            .any(|&x| x != Src::T && operand(x, d) == d)
    });
    let tmp = if two && clobbers {
        Operand::Vgpr {
            first: scratch,
            count: 1,
        }
    } else {
        d
    };
    let mut out = Vec::with_capacity(2);
    for (k, s) in r.steps.iter().flatten().enumerate() {
        let dst = if two && k == 0 { tmp } else { d };
        let mut ops = [Operand::Inline(128); 3];
        for (j, o) in ops.iter_mut().enumerate().take(s.kind.arity()) {
            *o = operand(s.src[j], tmp);
        }
        out.push(host_op(s.kind, dst, ops, cx)?);
    }
    Ok(Some((out, two && clobbers)))
}

/// One bitwise operation in its shortest GFX12 form: VOP1 for one source, VOP2 when a
/// source can be src1 (a VGPR; the two-source operations are commutative), else VOP3.
fn host_op(
    kind: Kind,
    d: Operand,
    ops: [Operand; 3],
    cx: &Ctx<'_>,
) -> Result<Inst, TranslateError> {
    let vgpr = |o: Operand| matches!(o, Operand::Vgpr { .. });
    let [x, y, z] = ops;
    let (format, ops) = match kind.arity() {
        1 => (Format::Vop1, [x, y, z]),
        2 if vgpr(y) => (Format::Vop2, [x, y, z]),
        2 if vgpr(x) => (Format::Vop2, [y, x, z]),
        _ => (Format::Vop3, [x, y, z]),
    };
    let mut i = super::reencode::build(kind.op(), format, cx)?;
    i.set_operand(0, d).map_err(|e| cx.enc(e))?;
    for (k, o) in ops.into_iter().take(kind.arity()).enumerate() {
        i.set_operand(k + 1, o).map_err(|e| cx.enc(e))?;
    }
    Ok(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every table with a recipe computes it; the functions clang selects most are short.
    #[test]
    fn recipes_compute_their_tables() {
        let leaf = |s: Src, t: u8| match s {
            Src::A => 0xf0u8,
            Src::B => 0xcc,
            Src::C => 0xaa,
            Src::Zero => 0,
            Src::Ones => 0xff,
            Src::T => t,
        };
        let mut found = 0;
        for (table, r) in recipes().iter().enumerate() {
            let Some(r) = r else { continue };
            found += 1;
            let mut t = 0u8;
            for s in r.steps.iter().flatten() {
                t = s
                    .kind
                    .eval(leaf(s.src[0], t), leaf(s.src[1], t), leaf(s.src[2], t));
            }
            assert_eq!(t, table as u8, "{r:?}");
        }
        assert!(found > 200, "only {found} of 256 tables in two steps");
        // `b & (a ^ c)` (0x48) and `a ^ b ^ c` (0x96), `(a & b) | c` (0xea).
        assert_eq!(recipes()[0x48].map(|r| r.cost.0), Some(2));
        assert_eq!(recipes()[0x96].map(|r| r.cost.0), Some(1));
        assert_eq!(recipes()[0xea].map(|r| r.cost.0), Some(1));
    }
}
