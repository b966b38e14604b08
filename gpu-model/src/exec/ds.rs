//! LDS instructions (DS): loads, stores, two-address forms, atomics and the cross-lane
//! ds_swizzle / ds_permute / ds_bpermute.
//!
//! Out-of-range LDS addresses do not fault on the hardware: reads return 0 and writes are
//! dropped. The executor does the same. Atomics of a wave run lane by lane in lane order.

use super::inst::Inst;
use super::wave::{Wave, LANES};
use super::FaultReason;
use crate::isa::Op;

fn rd(lds: &[u8], a: u64, n: usize) -> u64 {
    let a = a as usize;
    match lds.get(a..a.saturating_add(n)) {
        Some(b) if a.checked_add(n).is_some() => {
            let mut x = [0u8; 8];
            x[..n].copy_from_slice(b);
            u64::from_le_bytes(x)
        }
        _ => 0,
    }
}

fn wr(lds: &mut [u8], a: u64, n: usize, v: u64) {
    let a = a as usize;
    if let Some(b) = lds.get_mut(a..a.saturating_add(n)) {
        if b.len() == n {
            b.copy_from_slice(&v.to_le_bytes()[..n]);
        }
    }
}

/// A dword of LDS at byte `a` (0 when any byte is out of range); the common case of [`rd`].
#[inline(always)]
fn rd32(lds: &[u8], a: u64) -> u32 {
    let a = a as usize;
    match a.checked_add(4).and_then(|e| lds.get(a..e)) {
        Some(&[b0, b1, b2, b3]) => u32::from_le_bytes([b0, b1, b2, b3]),
        _ => 0,
    }
}

/// Writes a dword of LDS at byte `a` (dropped when any byte is out of range).
#[inline(always)]
fn wr32(lds: &mut [u8], a: u64, v: u32) {
    let a = a as usize;
    if let Some(b) = a.checked_add(4).and_then(|e| lds.get_mut(a..e)) {
        b.copy_from_slice(&v.to_le_bytes());
    }
}

/// The lanes set in `exec`, lowest first.
#[inline(always)]
fn lanes(exec: u64) -> impl Iterator<Item = usize> {
    let mut m = exec;
    std::iter::from_fn(move || {
        let l = m.trailing_zeros() as usize;
        m &= m.wrapping_sub(1);
        (l < LANES).then_some(l)
    })
}

/// Row indices of the `N` registers of a tuple starting at row `r` (wrapped into the
/// register file like [`Wave::vgpr`] does), computed once rather than per lane.
#[inline(always)]
fn tuple<const N: usize>(w: &Wave, r: usize) -> [usize; N] {
    std::array::from_fn(|k| (r + k) % w.v.len())
}

/// Executes a DS instruction.
pub(crate) fn exec(
    w: &mut Wave,
    ctx: &mut super::ExecCtx<'_>,
    i: &Inst,
) -> Result<(), FaultReason> {
    use Op::*;
    let lds = &mut *ctx.lds;
    let offset = i.mem.offset as u64 & 0xffff;
    let (off0, off1) = (offset & 0xff, offset >> 8);
    let addr_r = i.mem.vaddr as usize;
    let d0 = i.mem.data as usize;
    let d1 = i.mem.data1 as usize;
    let vd = i.dst as usize;
    let exec = w.exec();
    let addr = |w: &Wave, l: usize| w.vgpr(addr_r, l) as u64;
    let addr_row = |w: &Wave| addr_r % w.v.len();
    w.counters.lgkm += 1;
    match i.op {
        DsNop => {}
        DsWriteB8 | DsWriteB16 | DsWriteB32 | DsWriteB64 | DsWriteB96 | DsWriteB128 => {
            let n = match i.op {
                DsWriteB8 => 1,
                DsWriteB16 => 2,
                DsWriteB32 => 4,
                DsWriteB64 => 8,
                DsWriteB96 => 12,
                _ => 16,
            };
            let (ar, data) = (addr_row(w), tuple::<4>(w, d0));
            for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
                let a = w.v[ar][l] as u64 + offset;
                if n < 4 {
                    wr(lds, a, n, w.v[data[0]][l] as u64);
                } else {
                    for (k, &r) in data.iter().enumerate().take(n / 4) {
                        wr32(lds, a + 4 * k as u64, w.v[r][l]);
                    }
                }
            }
        }
        DsWrite2B32 | DsWrite2st64B32 | DsWrite2B64 | DsWrite2st64B64 => {
            let wide = matches!(i.op, DsWrite2B64 | DsWrite2st64B64);
            let size = if wide { 8 } else { 4 };
            let stride = if matches!(i.op, DsWrite2st64B32 | DsWrite2st64B64) {
                64 * size
            } else {
                size
            };
            let (ar, x, y) = (addr_row(w), tuple::<2>(w, d0), tuple::<2>(w, d1));
            for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
                let a = w.v[ar][l] as u64;
                for (o, d) in [(off0, x), (off1, y)] {
                    let at = a + o * stride;
                    wr32(lds, at, w.v[d[0]][l]);
                    if wide {
                        wr32(lds, at + 4, w.v[d[1]][l]);
                    }
                }
            }
        }
        DsReadI8 | DsReadU8 | DsReadI16 | DsReadU16 | DsReadB32 | DsReadB64 | DsReadB96
        | DsReadB128 => {
            let n = match i.op {
                DsReadI8 | DsReadU8 => 1,
                DsReadI16 | DsReadU16 => 2,
                DsReadB32 => 4,
                DsReadB64 => 8,
                DsReadB96 => 12,
                _ => 16,
            };
            let (addrs, dst) = (w.v[addr_row(w)], tuple::<4>(w, vd));
            if n < 4 {
                let d = &mut w.v[dst[0]];
                for l in lanes(exec) {
                    let v = rd(lds, addrs[l] as u64 + offset, n);
                    d[l] = match i.op {
                        DsReadI8 => v as u8 as i8 as i32 as u32,
                        DsReadI16 => v as u16 as i16 as i32 as u32,
                        _ => v as u32,
                    };
                }
            } else {
                // Register by register (the addresses were read first: the address
                // register may be a destination).
                for (k, &r) in dst.iter().enumerate().take(n / 4) {
                    let d = &mut w.v[r];
                    for l in lanes(exec) {
                        d[l] = rd32(lds, addrs[l] as u64 + offset + 4 * k as u64);
                    }
                }
            }
        }
        DsRead2B32 | DsRead2st64B32 | DsRead2B64 | DsRead2st64B64 => {
            let wide = matches!(i.op, DsRead2B64 | DsRead2st64B64);
            let size = if wide { 8 } else { 4 };
            let stride = if matches!(i.op, DsRead2st64B32 | DsRead2st64B64) {
                64 * size
            } else {
                size
            };
            let per = if wide { 2 } else { 1 };
            let (addrs, dst) = (w.v[addr_row(w)], tuple::<4>(w, vd));
            // Register by register, as for ds_read_b*: destination `k * per + j` is dword
            // `j` at `offset_k * stride`.
            for (k, o) in [off0, off1].into_iter().enumerate() {
                for j in 0..per {
                    let d = &mut w.v[dst[k * per + j]];
                    for l in lanes(exec) {
                        d[l] = rd32(lds, addrs[l] as u64 + o * stride + 4 * j as u64);
                    }
                }
            }
        }
        DsSwizzleB32 => {
            // The swizzled data comes from the ADDR operand.
            let src = w.v[addr_r];
            let pattern = offset as u32;
            let mut out = [0u32; LANES];
            for (l, o) in out.iter_mut().enumerate() {
                let s = if pattern & 0x8000 != 0 {
                    (l & !3) | ((pattern as usize >> (2 * (l & 3))) & 3)
                } else {
                    let and = (pattern & 0x1f) as usize;
                    let or = ((pattern >> 5) & 0x1f) as usize;
                    let xor = ((pattern >> 10) & 0x1f) as usize;
                    (l & !31) | ((((l & 31) & and) | or) ^ xor)
                };
                *o = if exec >> s & 1 != 0 { src[s] } else { 0 };
            }
            write_exec(w, vd, &out, exec);
        }
        DsBpermuteB32 => {
            let src = w.v[d0 % w.v.len()];
            let n = w.wave_size as usize;
            let mut out = [0u32; LANES];
            for (l, o) in out.iter_mut().enumerate() {
                let s = ((addr(w, l) + offset) / 4) as usize % n;
                *o = if exec >> s & 1 != 0 { src[s] } else { 0 };
            }
            write_exec(w, vd, &out, exec);
        }
        DsPermuteB32 => {
            let src = w.v[d0 % w.v.len()];
            let n = w.wave_size as usize;
            let mut out = [0u32; LANES];
            for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
                let dl = ((addr(w, l) + offset) / 4) as usize % n;
                out[dl] = src[l];
            }
            write_exec(w, vd, &out, exec);
        }
        DsAddU64 | DsAddRtnU64 => {
            for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
                let a = addr(w, l) + offset;
                let old = rd(lds, a, 8);
                let v = w.vgpr(d0, l) as u64 | (w.vgpr(d0 + 1, l) as u64) << 32;
                wr(lds, a, 8, old.wrapping_add(v));
                if i.op == DsAddRtnU64 {
                    w.set_vgpr(vd, l, old as u32);
                    w.set_vgpr(vd + 1, l, (old >> 32) as u32);
                }
            }
        }
        _ => return atomic32(w, lds, i, offset, addr_r, d0, d1, vd),
    }
    Ok(())
}

fn write_exec(w: &mut Wave, vd: usize, out: &[u32; LANES], exec: u64) {
    for (l, &v) in out.iter().enumerate() {
        if exec >> l & 1 != 0 {
            w.set_vgpr(vd, l, v);
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn atomic32(
    w: &mut Wave,
    lds: &mut [u8],
    i: &Inst,
    offset: u64,
    addr_r: usize,
    d0: usize,
    d1: usize,
    vd: usize,
) -> Result<(), FaultReason> {
    use Op::*;
    let f = |x: u32| f32::from_bits(x);
    type F = fn(u32, u32, u32) -> u32;
    let (op, rtn): (F, bool) = match i.op {
        DsAddU32 => (|o, s, _| o.wrapping_add(s), false),
        DsAddRtnU32 => (|o, s, _| o.wrapping_add(s), true),
        DsSubU32 => (|o, s, _| o.wrapping_sub(s), false),
        DsSubRtnU32 => (|o, s, _| o.wrapping_sub(s), true),
        DsRsubU32 => (|o, s, _| s.wrapping_sub(o), false),
        DsRsubRtnU32 => (|o, s, _| s.wrapping_sub(o), true),
        DsIncU32 => (|o, s, _| if o >= s { 0 } else { o + 1 }, false),
        DsIncRtnU32 => (|o, s, _| if o >= s { 0 } else { o + 1 }, true),
        DsDecU32 => (|o, s, _| if o == 0 || o > s { s } else { o - 1 }, false),
        DsDecRtnU32 => (|o, s, _| if o == 0 || o > s { s } else { o - 1 }, true),
        DsMinI32 => (|o, s, _| (o as i32).min(s as i32) as u32, false),
        DsMinRtnI32 => (|o, s, _| (o as i32).min(s as i32) as u32, true),
        DsMaxI32 => (|o, s, _| (o as i32).max(s as i32) as u32, false),
        DsMaxRtnI32 => (|o, s, _| (o as i32).max(s as i32) as u32, true),
        DsMinU32 => (|o, s, _| o.min(s), false),
        DsMinRtnU32 => (|o, s, _| o.min(s), true),
        DsMaxU32 => (|o, s, _| o.max(s), false),
        DsMaxRtnU32 => (|o, s, _| o.max(s), true),
        DsAndB32 => (|o, s, _| o & s, false),
        DsAndRtnB32 => (|o, s, _| o & s, true),
        DsOrB32 => (|o, s, _| o | s, false),
        DsOrRtnB32 => (|o, s, _| o | s, true),
        DsXorB32 => (|o, s, _| o ^ s, false),
        DsXorRtnB32 => (|o, s, _| o ^ s, true),
        DsWrxchgRtnB32 => (|_, s, _| s, true),
        // ds_cmpst: data0 is the compare value, data1 the new value.
        DsCmpstB32 => (|o, c, s| if o == c { s } else { o }, false),
        DsCmpstRtnB32 => (|o, c, s| if o == c { s } else { o }, true),
        DsAddF32 => (
            |o, s, _| (f32::from_bits(o) + f32::from_bits(s)).to_bits(),
            false,
        ),
        DsAddRtnF32 => (
            |o, s, _| (f32::from_bits(o) + f32::from_bits(s)).to_bits(),
            true,
        ),
        DsMinF32 => (
            |o, s, _| f32::from_bits(o).min(f32::from_bits(s)).to_bits(),
            false,
        ),
        DsMinRtnF32 => (
            |o, s, _| f32::from_bits(o).min(f32::from_bits(s)).to_bits(),
            true,
        ),
        DsMaxF32 => (
            |o, s, _| f32::from_bits(o).max(f32::from_bits(s)).to_bits(),
            false,
        ),
        DsMaxRtnF32 => (
            |o, s, _| f32::from_bits(o).max(f32::from_bits(s)).to_bits(),
            true,
        ),
        _ => return Err(FaultReason::Unimplemented(i.mnemonic())),
    };
    let _ = f;
    let exec = w.exec();
    for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
        let a = w.vgpr(addr_r, l) as u64 + offset;
        let old = rd(lds, a, 4) as u32;
        let new = op(old, w.vgpr(d0, l), w.vgpr(d1, l));
        wr(lds, a, 4, new as u64);
        if rtn {
            w.set_vgpr(vd, l, old);
        }
    }
    Ok(())
}
