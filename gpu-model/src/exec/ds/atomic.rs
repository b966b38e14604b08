//! LDS atomics: the one-address read-modify-write operations at 32 and 64 bits (integer,
//! float, compare-store, masked or, wrap, conditional and clamped subtract, packed f16/bf16
//! add), the two-address exchanges (`ds_wrxchg2*`, GFX12 `ds_storexchg_2addr*`),
//! `ds_condxchg32_rtn_b64`, and `ds_append` / `ds_consume`.
//!
//! Every one-address operation is `tmp = MEM[addr]; MEM[addr] = f(tmp, DATA, DATA2);
//! RETURN_DATA = tmp` (the `_rtn` forms write RETURN_DATA to the destination) with `f`
//! from the guides' pseudocode, quoted in [`op32`] and [`op64`]. Operand order of the
//! compare-stores differs by family: GFX9 `ds_cmpst_*` compares with DATA and stores DATA2
//! ("the order of src and cmp are the opposite of the BUFFER_ATOMIC_CMPSWAP opcode"),
//! GFX12 `ds_cmpstore_*` stores DATA and compares with DATA2.
//!
//! Float operations follow the pseudocode in round-to-nearest-even with denormal operands
//! and results kept ("Floating-point addition handles NAN/INF/denorm"); MODE does not
//! apply to them (as for the memory float atomics, see [`super::super::fmode`]). A NaN
//! result of an addition is a quiet NaN.

use super::{lanes, offsets2, rd, rd32, row, tuple, wr, wr32, M0};
use crate::exec::inst::Inst;
use crate::exec::wave::Wave;
use crate::exec::FaultReason;
use crate::isa::Op;
use half::{bf16, f16};

type F32 = fn(u32, u32, u32) -> u32;
type F64 = fn(u64, u64, u64) -> u64;

/// Executes a DS atomic (or refuses an operation no unit implements).
pub(super) fn exec(w: &mut Wave, lds: &mut [u8], i: &Inst) -> Result<(), FaultReason> {
    use Op::*;
    match i.op {
        DsWrxchg2RtnB32
        | DsWrxchg2st64RtnB32
        | DsWrxchg2RtnB64
        | DsWrxchg2st64RtnB64
        | DsStorexchg2addrRtnB32
        | DsStorexchg2addrStride64RtnB32
        | DsStorexchg2addrRtnB64
        | DsStorexchg2addrStride64RtnB64 => xchg2(w, lds, i),
        DsCondxchg32RtnB64 => condxchg(w, lds, i),
        DsAppend | DsConsume => append(w, lds, i),
        op => {
            if let Some((f, ret)) = op32(op) {
                rmw32(w, lds, i, f, ret);
            } else if let Some((f, ret)) = op64(op) {
                rmw64(w, lds, i, f, ret);
            } else {
                return Err(FaultReason::Unimplemented(i.mnemonic()));
            }
        }
    }
    Ok(())
}

/// `(plain, returning) => f` pairs of one operation, and returning-only `op => f`.
macro_rules! table {
    ($t:ty, $op:expr; $($plain:ident | $ret:ident => $f:expr,)* ; $($only:ident => $g:expr,)*) => {
        match $op {
            $(
                Op::$plain => {
                    let f: $t = $f;
                    Some((f, false))
                }
                Op::$ret => {
                    let f: $t = $f;
                    Some((f, true))
                }
            )*
            $(
                Op::$only => {
                    let f: $t = $g;
                    Some((f, true))
                }
            )*
            _ => None,
        }
    };
}

/// The 32-bit one-address operations: `f(tmp, DATA, DATA2)` and whether the old value is
/// returned.
fn op32(op: Op) -> Option<(F32, bool)> {
    table!(F32, op;
        DsAddU32 | DsAddRtnU32 => |t, d, _| t.wrapping_add(d),
        DsSubU32 | DsSubRtnU32 => |t, d, _| t.wrapping_sub(d),
        // MEM = DATA - MEM.
        DsRsubU32 | DsRsubRtnU32 => |t, d, _| d.wrapping_sub(t),
        // tmp >= src ? 0 : tmp + 1.
        DsIncU32 | DsIncRtnU32 => |t, d, _| if t >= d { 0 } else { t + 1 },
        // (tmp == 0 || tmp > src) ? src : tmp - 1.
        DsDecU32 | DsDecRtnU32 => |t, d, _| if t == 0 || t > d { d } else { t - 1 },
        DsMinI32 | DsMinRtnI32 => |t, d, _| (t as i32).min(d as i32) as u32,
        DsMaxI32 | DsMaxRtnI32 => |t, d, _| (t as i32).max(d as i32) as u32,
        DsMinU32 | DsMinRtnU32 => |t, d, _| t.min(d),
        DsMaxU32 | DsMaxRtnU32 => |t, d, _| t.max(d),
        DsAndB32 | DsAndRtnB32 => |t, d, _| t & d,
        DsOrB32 | DsOrRtnB32 => |t, d, _| t | d,
        DsXorB32 | DsXorRtnB32 => |t, d, _| t ^ d,
        // (tmp & ~DATA) | DATA2.
        DsMskorB32 | DsMskorRtnB32 => |t, d, d2| (t & !d) | d2,
        // GFX9: cmp = DATA, src = DATA2.
        DsCmpstB32 | DsCmpstRtnB32 => |t, d, d2| if t == d { d2 } else { t },
        // The same with a float compare (NaN never equal, -0 == +0).
        DsCmpstF32 | DsCmpstRtnF32 => |t, d, d2| if f(t) == f(d) { d2 } else { t },
        // GFX12: src = DATA, cmp = DATA2.
        DsCmpstoreB32 | DsCmpstoreRtnB32 => |t, d, d2| if t == d2 { d } else { t },
        DsAddF32 | DsAddRtnF32 => |t, d, _| (f(t) + f(d)).to_bits(),
        DsMinF32 | DsMinRtnF32 => |t, d, _| pick32(t, d, legacy(wide(t), wide(d), false)),
        DsMaxF32 | DsMaxRtnF32 => |t, d, _| pick32(t, d, legacy(wide(t), wide(d), true)),
        DsMinNumF32 | DsMinNumRtnF32 => |t, d, _| pick32(t, d, number(wide(t), wide(d), false)),
        DsMaxNumF32 | DsMaxNumRtnF32 => |t, d, _| pick32(t, d, number(wide(t), wide(d), true)),
        // GFX12: tmp >= src ? tmp - src : tmp.
        DsCondSubU32 | DsCondSubRtnU32 => |t, d, _| if t >= d { t - d } else { t },
        // GFX12: old < DATA ? 0 : old - DATA.
        DsSubClampU32 | DsSubClampRtnU32 => |t, d, _| t.saturating_sub(d),
        DsPkAddF16 | DsPkAddRtnF16 => |t, d, _| pk_add(t, d, add_f16),
        DsPkAddBf16 | DsPkAddRtnBf16 => |t, d, _| pk_add(t, d, add_bf16),
        ;
        // GFX12 ds_storexchg_rtn_b32 is the same operation (Op::canonical).
        DsWrxchgRtnB32 => |_, d, _| d,
        // tmp >= DATA ? tmp - DATA : tmp + DATA2 (ring-buffer wrap).
        DsWrapRtnB32 => |t, d, d2| if t >= d { t - d } else { t.wrapping_add(d2) },
    )
}

/// The 64-bit one-address operations, as [`op32`].
fn op64(op: Op) -> Option<(F64, bool)> {
    table!(F64, op;
        DsAddU64 | DsAddRtnU64 => |t, d, _| t.wrapping_add(d),
        DsSubU64 | DsSubRtnU64 => |t, d, _| t.wrapping_sub(d),
        DsRsubU64 | DsRsubRtnU64 => |t, d, _| d.wrapping_sub(t),
        DsIncU64 | DsIncRtnU64 => |t, d, _| if t >= d { 0 } else { t + 1 },
        DsDecU64 | DsDecRtnU64 => |t, d, _| if t == 0 || t > d { d } else { t - 1 },
        DsMinI64 | DsMinRtnI64 => |t, d, _| (t as i64).min(d as i64) as u64,
        DsMaxI64 | DsMaxRtnI64 => |t, d, _| (t as i64).max(d as i64) as u64,
        DsMinU64 | DsMinRtnU64 => |t, d, _| t.min(d),
        DsMaxU64 | DsMaxRtnU64 => |t, d, _| t.max(d),
        DsAndB64 | DsAndRtnB64 => |t, d, _| t & d,
        DsOrB64 | DsOrRtnB64 => |t, d, _| t | d,
        DsXorB64 | DsXorRtnB64 => |t, d, _| t ^ d,
        DsMskorB64 | DsMskorRtnB64 => |t, d, d2| (t & !d) | d2,
        DsCmpstB64 | DsCmpstRtnB64 => |t, d, d2| if t == d { d2 } else { t },
        DsCmpstF64 | DsCmpstRtnF64 => |t, d, d2| if g(t) == g(d) { d2 } else { t },
        DsCmpstoreB64 | DsCmpstoreRtnB64 => |t, d, d2| if t == d2 { d } else { t },
        DsAddF64 | DsAddRtnF64 => |t, d, _| (g(t) + g(d)).to_bits(),
        DsMinF64 | DsMinRtnF64 => |t, d, _| pick64(t, d, legacy(g(t), g(d), false)),
        DsMaxF64 | DsMaxRtnF64 => |t, d, _| pick64(t, d, legacy(g(t), g(d), true)),
        DsMinNumF64 | DsMinNumRtnF64 => |t, d, _| pick64(t, d, number(g(t), g(d), false)),
        DsMaxNumF64 | DsMaxNumRtnF64 => |t, d, _| pick64(t, d, number(g(t), g(d), true)),
        ;
        DsWrxchgRtnB64 => |_, d, _| d,
        DsStorexchgRtnB64 => |_, d, _| d,
    )
}

#[inline(always)]
fn f(x: u32) -> f32 {
    f32::from_bits(x)
}

/// An f32 pattern as f64 (exact; NaN stays NaN), for ordering.
#[inline(always)]
fn wide(x: u32) -> f64 {
    f64::from(f(x))
}

#[inline(always)]
fn g(x: u64) -> f64 {
    f64::from_bits(x)
}

/// What a float min/max stores.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Pick {
    /// The memory value (tmp).
    Tmp,
    /// The data value (src).
    Src,
    /// The data value, a NaN, quieted.
    QuietSrc,
}

/// GFX9 `ds_min/max_f32/f64`. Pseudocode (Vega / CDNA3 / CDNA4): `MEM = src < tmp ? src :
/// tmp` (max: `src > tmp`), "Floating-point compare handles NAN/INF/denorm". The guides do
/// not spell out the NaN rule; LLVM lowers `atomicrmw fmin/fmax` (minnum/maxnum, where a
/// NaN operand loses) on LDS f32/f64 to these instructions (`SIISelLowering`, "LDS float
/// and double fmin/fmax were always supported"), so a NaN operand loses here; with two
/// NaN operands memory keeps its value. Ordered values compare as the pseudocode says
/// (so -0 and +0, being equal, keep memory).
fn legacy(tmp: f64, src: f64, max: bool) -> Pick {
    let take = if src.is_nan() {
        false
    } else if tmp.is_nan() {
        true
    } else if max {
        src > tmp
    } else {
        src < tmp
    };
    if take {
        Pick::Src
    } else {
        Pick::Tmp
    }
}

/// GFX12 `ds_min/max_num_f32/f64` (RDNA4 pseudocode, IEEE 754-2019 minimumNumber /
/// maximumNumber): two NaNs give src quieted (`cvtToQuietNAN(src)`), one NaN gives the
/// other operand, and -0 < +0.
fn number(tmp: f64, src: f64, max: bool) -> Pick {
    match (tmp.is_nan(), src.is_nan()) {
        (true, true) => return Pick::QuietSrc,
        (false, true) => return Pick::Tmp,
        (true, false) => return Pick::Src,
        _ => {}
    }
    let zeros = tmp == 0.0 && src == 0.0;
    let (s_neg, t_neg) = (src.is_sign_negative(), tmp.is_sign_negative());
    let take = if max {
        src > tmp || (zeros && !s_neg && t_neg)
    } else {
        src < tmp || (zeros && s_neg && !t_neg)
    };
    if take {
        Pick::Src
    } else {
        Pick::Tmp
    }
}

fn pick32(t: u32, s: u32, p: Pick) -> u32 {
    match p {
        Pick::Tmp => t,
        Pick::Src => s,
        Pick::QuietSrc => s | 0x0040_0000,
    }
}

fn pick64(t: u64, s: u64, p: Pick) -> u64 {
    match p {
        Pick::Tmp => t,
        Pick::Src => s,
        Pick::QuietSrc => s | 0x0008_0000_0000_0000,
    }
}

/// `ds_pk_add_f16/bf16`: `dst[15:0] = tmp[15:0] + src[15:0]; dst[31:16] = tmp[31:16] +
/// src[31:16]`, each half rounded once to its format.
fn pk_add(t: u32, s: u32, add: fn(u16, u16) -> u16) -> u32 {
    let lo = add(t as u16, s as u16);
    let hi = add((t >> 16) as u16, (s >> 16) as u16);
    u32::from(lo) | u32::from(hi) << 16
}

/// f16 + f16 to nearest even. The f32 sum is rounded once more into f16; that second
/// rounding never changes the result: f32 carries 24 >= 2 * 11 + 2 significand bits, which
/// makes double rounding of a sum innocuous (Figueroa, "When is double rounding
/// innocuous?", 1995), and every f16 (denormals included) is an f32 normal.
fn add_f16(a: u16, b: u16) -> u16 {
    f16::from_f32(f16::from_bits(a).to_f32() + f16::from_bits(b).to_f32()).to_bits()
}

/// bf16 + bf16 to nearest even, through f32 as [`add_f16`] (24 >= 2 * 8 + 2; bf16 and f32
/// share the exponent range, so a bf16 denormal sum is exact in f32).
fn add_bf16(a: u16, b: u16) -> u16 {
    bf16::from_f32(bf16::from_bits(a).to_f32() + bf16::from_bits(b).to_f32()).to_bits()
}

/// Per-lane `ADDR + offset`, DATA and DATA2 rows, destination rows.
struct Operands {
    addr: usize,
    offset: u64,
    d0: [usize; 2],
    d1: [usize; 2],
    dst: [usize; 4],
}

fn operands(i: &Inst) -> Operands {
    Operands {
        addr: row(i.mem.vaddr as usize),
        offset: i.mem.offset as u64 & 0xffff,
        d0: tuple(i.mem.data as usize),
        d1: tuple(i.mem.data1 as usize),
        dst: tuple(i.dst as usize),
    }
}

/// A 32-bit one-address atomic, lane by lane in lane order.
fn rmw32(w: &mut Wave, lds: &mut [u8], i: &Inst, f: F32, ret: bool) {
    let o = operands(i);
    for l in lanes(w.exec()) {
        let a = w.v[o.addr][l] as u64 + o.offset;
        let old = rd32(lds, a);
        wr32(lds, a, f(old, w.v[o.d0[0]][l], w.v[o.d1[0]][l]));
        if ret {
            w.v[o.dst[0]][l] = old;
        }
    }
}

/// A 64-bit one-address atomic (register pairs), lane by lane in lane order.
fn rmw64(w: &mut Wave, lds: &mut [u8], i: &Inst, f: F64, ret: bool) {
    let o = operands(i);
    let pair =
        |w: &Wave, r: [usize; 2], l: usize| u64::from(w.v[r[0]][l]) | u64::from(w.v[r[1]][l]) << 32;
    for l in lanes(w.exec()) {
        let a = w.v[o.addr][l] as u64 + o.offset;
        let old = rd(lds, a, 8);
        wr(lds, a, 8, f(old, pair(w, o.d0, l), pair(w, o.d1, l)));
        if ret {
            w.v[o.dst[0]][l] = old as u32;
            w.v[o.dst[1]][l] = (old >> 32) as u32;
        }
    }
}

/// `ds_wrxchg2_rtn_b32/b64`, `ds_wrxchg2st64_rtn_*` (GFX12 `ds_storexchg_2addr_*`):
/// `addr1 = ADDR + offset0 * size; addr2 = ADDR + offset1 * size` (`* 64` for st64);
/// both old values are read, then DATA goes to addr1 and DATA2 to addr2; RETURN_DATA is
/// the old value at addr1 followed by the old value at addr2.
fn xchg2(w: &mut Wave, lds: &mut [u8], i: &Inst) {
    use Op::*;
    let wide = matches!(
        i.op,
        DsWrxchg2RtnB64
            | DsWrxchg2st64RtnB64
            | DsStorexchg2addrRtnB64
            | DsStorexchg2addrStride64RtnB64
    );
    let st64 = matches!(
        i.op,
        DsWrxchg2st64RtnB32
            | DsWrxchg2st64RtnB64
            | DsStorexchg2addrStride64RtnB32
            | DsStorexchg2addrStride64RtnB64
    );
    let n = if wide { 8 } else { 4 };
    let offs = offsets2(i, n as u64, st64);
    let o = operands(i);
    for l in lanes(w.exec()) {
        let a = w.v[o.addr][l] as u64;
        let (a1, a2) = (a + offs[0], a + offs[1]);
        let (t1, t2) = (rd(lds, a1, n), rd(lds, a2, n));
        let data = |r: [usize; 2]| {
            u64::from(w.v[r[0]][l])
                | if wide {
                    u64::from(w.v[r[1]][l]) << 32
                } else {
                    0
                }
        };
        let (x, y) = (data(o.d0), data(o.d1));
        wr(lds, a1, n, x);
        wr(lds, a2, n, y);
        if wide {
            for (k, v) in [t1 as u32, (t1 >> 32) as u32, t2 as u32, (t2 >> 32) as u32]
                .into_iter()
                .enumerate()
            {
                w.v[o.dst[k]][l] = v;
            }
        } else {
            w.v[o.dst[0]][l] = t1 as u32;
            w.v[o.dst[1]][l] = t2 as u32;
        }
    }
}

/// `ds_condxchg32_rtn_b64` (CDNA3 / CDNA4 / RDNA4 pseudocode):
/// `ADDR0 = (ADDR + offset) & 0xfff8; ADDR1 = ADDR0 + 4`; for each half `k` of the 64-bit
/// DATA, return the dword at `ADDRk`, then write `{0, DATA[31 + 32k : 32k]}` there if bit
/// `31 + 32k` of DATA is set.
fn condxchg(w: &mut Wave, lds: &mut [u8], i: &Inst) {
    let o = operands(i);
    for l in lanes(w.exec()) {
        let a0 = u64::from(w.v[o.addr][l].wrapping_add(o.offset as u32) & 0xfff8);
        for k in 0..2 {
            let a = a0 + 4 * k as u64;
            let data = w.v[o.d0[k]][l];
            let old = rd32(lds, a);
            if data >> 31 != 0 {
                wr32(lds, a, data & 0x7fff_ffff);
            }
            w.v[o.dst[k]][l] = old;
        }
    }
}

/// `ds_append` / `ds_consume`: one atomic add (subtract) of the number of active lanes at
/// the counter, whose old value every active lane receives. With no active lane nothing
/// happens.
///
/// The counter's LDS address is `M0 + offset`. The guides disagree here: RDNA3.5 gives
/// `addr = M0.base + offset` for LDS, CDNA4 and RDNA4 give `instr_offset` alone. LLVM
/// (`llvm.amdgcn.ds.append`/`consume`, `SelectDSAppendConsume`) writes the counter pointer
/// into M0 and folds only a constant offset into the instruction on every target
/// (`test/CodeGen/AMDGPU/llvm.amdgcn.ds.append.ll`: `s_mov_b32 m0, ptr; ds_append v offset:16`),
/// so compiled code only works with the M0 + offset reading, which the executor takes.
/// With M0 = 0 both readings agree.
fn append(w: &mut Wave, lds: &mut [u8], i: &Inst) {
    let exec = w.exec();
    if exec == 0 {
        return;
    }
    let a = u64::from(w.sgpr(M0)) + (i.mem.offset as u64 & 0xffff);
    let old = rd32(lds, a);
    let n = exec.count_ones();
    let new = if i.op == Op::DsAppend {
        old.wrapping_add(n)
    } else {
        old.wrapping_sub(n)
    };
    wr32(lds, a, new);
    let d = &mut w.v[row(i.dst as usize)];
    for l in lanes(exec) {
        d[l] = old;
    }
}
