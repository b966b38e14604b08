//! Moving operands between a wave's registers and matrix order: the gathers (A, B, the
//! sparse A with its indices, C) and the result scatter, each locating one run of
//! consecutive elements at a time through [`super::layout`].

use super::layout::{self, Slot};
use super::{CSrc, Family, Operands, Out, Plan, Ty, MAX_REGS};
use crate::exec::wave::{Wave, LANES};

/// A register tuple, copied (the result may overwrite its sources).
pub(super) struct Tuple {
    rows: [[u32; LANES]; MAX_REGS],
    n: usize,
}

impl Tuple {
    pub(super) fn load(w: &Wave, first: usize, n: usize) -> Tuple {
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

    /// Calls `f(x, raw, hi)` for the `count` consecutive `width`-bit fields from `bit` of
    /// register `reg` of `lane` (`hi`: the field is a 16-bit one in its register's high
    /// half). Widths that divide 32 are read a register at a time.
    #[inline(always)]
    fn run(
        &self,
        reg: usize,
        bit: usize,
        width: usize,
        lane: usize,
        count: usize,
        mut f: impl FnMut(usize, u64, bool),
    ) {
        if 32 % width != 0 {
            for x in 0..count {
                f(x, self.field(reg, bit + x * width, width, lane), false);
            }
            return;
        }
        let mask = (1u64 << width) - 1;
        let (mut x, mut r, mut b) = (0, reg, bit);
        while x < count && r < self.n {
            let word = (self.rows[r][lane] >> b) as u64;
            let n = ((32 - b) / width).min(count - x);
            for e in 0..n {
                f(
                    x + e,
                    (word >> (e * width)) & mask,
                    width == 16 && b + e * width >= 16,
                );
            }
            x += n;
            r += 1;
            b = 0;
        }
    }
}

/// Marks a 16-bit element read from the high half of its register (GFX12 NEG_HI).
pub(super) const HI: u64 = 1 << 63;

/// Gathers dense A (`a[(b * m + i) * k + kk]`) or B (`b[(b * k + kk) * n + j]`) raw codes.
pub(super) fn gather(p: &Plan, o: &Operands, t: &Tuple, is_b: bool, out: &mut [u64]) {
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
    // BLGP is a lane broadcast except where it is a negation (f64) or B's format (f8f6f4).
    let blgp_lane = |l: usize| match (
        is_b && sh.family == Family::Cdna && sh.out != Out::F64 && !f8f6f4,
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
                let (base, step) = if is_b {
                    ((b * k + k0) * outer + i, outer)
                } else {
                    ((b * outer + i) * k + k0, 1)
                };
                t.run(s.reg, s.bit, width, lane, run, |x, v, hi| {
                    out[base + x * step] = if hi { v | HI } else { v };
                });
            }
        }
    }
}

/// Gathers a sparse A: raw codes `a[i * kc + c]` and the dense k each stored value
/// multiplies, `ks[i * kc + c]`.
pub(super) fn gather_sparse(
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
            t.run(s.reg, s.bit, width, s.lane, run, |x, v, hi| {
                let c = c0 + x;
                let ix = match sh.family {
                    Family::Cdna => layout::cdna_index(sh.m, sh.k, i, c, p.index_set),
                    Family::Gfx12 => layout::gfx12_index(o.wave64, width, sh.k, i, c, p.index_set),
                };
                let pos = (index[ix.lane] >> ix.bit) & 3;
                out[i * p.kc + c] = if hi { v | HI } else { v };
                ks[i * p.kc + c] = (4 * (c / 2) + pos as usize) as u16;
            });
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

/// Reads C: every result element's raw bits (64-bit results: both registers) into `raw`
/// in `[b][i][j]` order.
pub(super) fn gather_c(w: &Wave, p: &Plan, o: &Operands, raw: &mut [u64]) {
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
pub(super) fn scatter(w: &mut Wave, p: &Plan, o: &Operands, bits: impl Fn(usize) -> u64) {
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
