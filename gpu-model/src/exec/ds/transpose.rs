//! gfx950's transposing LDS reads: `ds_read_b64_tr_b16`, `ds_read_b64_tr_b8`,
//! `ds_read_b64_tr_b4` and `ds_read_b96_tr_b6`.
//!
//! The CDNA4 guide only says "Read 64 (96) bits of data per lane from data share.
//! Interpret the data as a matrix with 16 (8, 4, 6) bit elements and transpose the
//! matrix". The lane mapping is taken from AMD's rocRoller (ROCm rocm-libraries,
//! `shared/rocroller/test/unit/TransposeLoadsTest.cpp`), whose GPU tests
//! (`B16Transpose16x32GPUTest`, `B8...`, `B6...`, `B4...`, two matrix shapes each) check on
//! gfx950 hardware where every element of a matrix lands. A simulation of those eight
//! tests (their LDS layouts, lane addresses and checks as written there) passes with this
//! mapping:
//!
//! Each group of 16 lanes works on its own. Each lane reads `n` elements of `bits` bits at
//! its address (`ADDR + offset`, 64 bits, or 96 for b6; element `e` at bits `e * bits`,
//! little-endian as in the registers). Numbering the group's `16 * n` elements lane-major
//! (`n * s + e` for element `e` of lane `s`), element `k` of lane `t`'s result is element
//! `16 * k + t`: the group's 16 x n matrix read back as n x 16 and transposed. For b4 and
//! b6 (`n = 16`) that is a plain 16 x 16 transpose: lane `t` element `k` = lane `k`
//! element `t`.
//!
//! Not in any source, decided here: an inactive lane contributes zeros (it reads no LDS),
//! as `ds_bpermute_b32` reads 0 from an inactive lane; only active lanes are written. The
//! b6 form's 128-bit address alignment (rocRoller: "DS_READ_B96_TR_B6 requires 128b-aligned
//! addresses") is not enforced: the 12 bytes at the address are read.

use super::{lanes, rd32, row, tuple};
use crate::exec::inst::Inst;
use crate::exec::wave::{Wave, LANES};
use crate::isa::Op;

/// Executes a transposing read.
pub(super) fn exec(w: &mut Wave, lds: &[u8], i: &Inst) {
    let (bits, dwords) = match i.op {
        Op::DsReadB64TrB16 => (16, 2),
        Op::DsReadB64TrB8 => (8, 2),
        Op::DsReadB64TrB4 => (4, 2),
        _ => (6, 3),
    };
    let n = dwords * 32 / bits;
    let mask = (1u128 << bits) - 1;
    let exec = w.exec();
    let offset = i.mem.offset as u64 & 0xffff;
    let addrs = w.v[row(i.mem.vaddr as usize)];
    let mut src = [0u128; LANES];
    for l in lanes(exec) {
        let a = addrs[l] as u64 + offset;
        src[l] = (0..dwords).fold(0, |v, k| {
            v | u128::from(rd32(lds, a + 4 * k as u64)) << (32 * k)
        });
    }
    let mut out = [0u128; LANES];
    for (l, o) in out.iter_mut().enumerate() {
        let (group, t) = (l & !15, l & 15);
        for k in 0..n {
            let x = 16 * k + t;
            let e = src[group + x / n] >> (bits * (x % n)) & mask;
            *o |= e << (bits * k);
        }
    }
    let dst = tuple::<3>(i.dst as usize);
    for (k, &r) in dst.iter().enumerate().take(dwords) {
        let d = &mut w.v[r];
        for l in lanes(exec) {
            d[l] = (out[l] >> (32 * k)) as u32;
        }
    }
}
