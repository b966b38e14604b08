//! Test helper: runs one assembled program over many input cases, one case per lane and a
//! wave of cases per run, on every target and wave size that has an operation.
#![allow(dead_code)]

use crate::asm;
use gpu_model::exec::Wave;
use gpu_model::isa::{self, Op};
use gpu_model::{Family, Target};

/// The (target, wave size) pairs whose ISA tables hold `op`: GFX9 wave64, GFX12 wave32
/// and wave64.
pub fn targets_with(op: Op) -> Vec<(Target, u32)> {
    Target::ALL
        .iter()
        .filter(|&&t| isa::ops(t).contains(&op))
        .flat_map(|&t| {
            if t.family() == Family::Gfx12 {
                vec![(t, 32), (t, 64)]
            } else {
                vec![(t, 64)]
            }
        })
        .collect()
}

/// Assembles `src` for `target`, then for each chunk of `wave` cases runs it with MODE
/// `mode` after `set(wave, lane, case)` has written the lane's registers, and calls
/// `check(wave, lane, case, context)` on the result.
pub fn sweep<C>(
    target: Target,
    wave: u32,
    src: &str,
    mode: u32,
    cases: &[C],
    set: impl Fn(&mut Wave, usize, &C),
    check: impl Fn(&Wave, usize, &C, &str),
) {
    let code = asm::assemble_wave(target, wave, src);
    for chunk in cases.chunks(wave as usize) {
        let w = asm::run(target, wave, &code, |w: &mut Wave| {
            w.mode = mode;
            for (l, c) in chunk.iter().enumerate() {
                set(w, l, c);
            }
        });
        let ctx = format!("{} wave{wave} mode {mode:#x}", target.name());
        for (l, c) in chunk.iter().enumerate() {
            check(&w, l, c, &ctx);
        }
    }
}

/// Every pair of `xs` (a, b) as cases.
pub fn pairs<T: Copy>(xs: &[T]) -> Vec<[T; 2]> {
    xs.iter()
        .flat_map(|&a| xs.iter().map(move |&b| [a, b]))
        .collect()
}

/// Triples: every (a, b) pair of `xs` with c cycling through `xs` (offset so that c differs
/// from a and b along the sweep).
pub fn triples<T: Copy>(xs: &[T]) -> Vec<[T; 3]> {
    let n = xs.len();
    pairs(xs)
        .into_iter()
        .enumerate()
        .map(|(k, [a, b])| [a, b, xs[(k * 7 + 3) % n]])
        .collect()
}

/// A reproducible pseudo-random 32-bit value (lowbias32).
pub fn rnd(k: u32) -> u32 {
    asm::hash(k)
}

/// A 64-bit register pair of lane `l` starting at VGPR `r`.
pub fn vgpr64(w: &Wave, r: usize, l: usize) -> u64 {
    w.vgpr(r, l) as u64 | (w.vgpr(r + 1, l) as u64) << 32
}

/// Sets the register pair of lane `l` at VGPR `r`.
pub fn set64(w: &mut Wave, r: usize, l: usize, v: u64) {
    w.set_vgpr(r, l, v as u32);
    w.set_vgpr(r + 1, l, (v >> 32) as u32);
}
