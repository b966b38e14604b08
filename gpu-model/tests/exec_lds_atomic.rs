//! One-address LDS atomics (32 and 64 bits) assembled by llvm-mc-22 and run in the
//! executor on every target whose ISA table has them (GFX12: wave32 and wave64), checked
//! against references written from the guides' pseudocode (Vega / CDNA3 / CDNA4 / RDNA4
//! "LDS instructions"): `tmp = MEM[ADDR + offset]; MEM = f(tmp, DATA, DATA2); RETURN_DATA
//! = tmp`, lane by lane in lane order, with a partial EXEC, two lanes on one location, and
//! out-of-range lanes (the read is 0 and the write dropped: Vega / CDNA3 / CDNA4 guides,
//! "Out-of-Range behavior"), over edge operands (0, all ones, signed limits; for floats
//! ±0, ±inf, quiet and signalling NaN, denormals, the largest finite value).
//!
//! Float references: sums are rounded to nearest even from the exact value (`fref`, no
//! flushing: "Floating-point addition handles NAN/INF/denorm"; MODE does not apply); a NaN
//! sum is checked as "some NaN" (the guides do not say which). GFX9 `ds_min/max_f32/f64`:
//! the pseudocode compare (`src < tmp ? src : tmp`) where a NaN operand loses (LLVM lowers
//! `atomicrmw fmin/fmax`, minnum/maxnum, to them) and two NaNs keep memory. GFX12
//! `ds_min/max_num_*`: the RDNA4 pseudocode (two NaNs give src quieted, -0 < +0).

#[path = "exec_util/asm.rs"]
mod asm;
#[path = "exec_util/fref.rs"]
mod fref;
#[path = "exec_util/lds.rs"]
mod lds;

use fref::{addx, as_f64, roundx, val, Fmt, Rm, D, H, S};
use gpu_model::{isa, Target};

const BF: Fmt = Fmt { m: 7, e: 8 };
const SENTINEL: u32 = 0x5a5a_0000;

/// A reference `f(tmp, DATA, DATA2)` on the low `bytes` bytes.
type Ref = fn(u64, u64, u64) -> u64;

struct Case {
    /// The mnemonic without and with return (either may be absent).
    plain: &'static str,
    rtn: &'static str,
    bytes: usize,
    data1: bool,
    f: Ref,
    /// Units of the memory value compared NaN-for-NaN (float results), with their format.
    float: Option<Fmt>,
    /// The operand values.
    vals: &'static [u64],
}

#[rustfmt::skip]
const INTS32: &[u64] = &[
    0, 1, 2, 5, 0x7fff_ffff, 0x8000_0000, 0x8000_0001, 0xffff_fffe, 0xffff_ffff, 0x1234_5678,
    0xdead_beef,
];
#[rustfmt::skip]
const INTS64: &[u64] = &[
    0, 1, 2, 0x7fff_ffff_ffff_ffff, 0x8000_0000_0000_0000, 0x8000_0000_0000_0001,
    0xffff_ffff_ffff_fffe, u64::MAX, 0x0000_0001_0000_0000, 0x0000_0000_ffff_ffff,
    0x1234_5678_9abc_def0,
];
#[rustfmt::skip]
const F32S: &[u64] = &[
    0, 0x8000_0000, 0x3f80_0000, 0xbf80_0000, 0x7f80_0000, 0xff80_0000, 0x7fc0_0001,
    0x7f80_0005, 0x0000_0001, 0x807f_ffff, 0x7f7f_ffff, 0x3f80_0001, 0x3380_0000, 0xff7f_ffff,
];
#[rustfmt::skip]
const F64S: &[u64] = &[
    0, 0x8000_0000_0000_0000, 0x3ff0_0000_0000_0000, 0xbff0_0000_0000_0000,
    0x7ff0_0000_0000_0000, 0xfff0_0000_0000_0000, 0x7ff8_0000_0000_0001, 0x7ff0_0000_0000_0005,
    0x0000_0000_0000_0001, 0x800f_ffff_ffff_ffff, 0x7fef_ffff_ffff_ffff, 0x3ff0_0000_0000_0001,
    0x3ca0_0000_0000_0000,
];
/// Packed pairs: f16 edge patterns in the low halves, bf16 ones in the high halves (each
/// instruction reads both halves in its own format).
#[rustfmt::skip]
const PK: &[u64] = &[
    0x0000_0000, 0x8000_8000, 0x3c00_3f80, 0xbc00_bf80, 0x7c00_7f80, 0xfc00_ff80, 0x7e01_7fc1,
    0x7c05_7f85, 0x0001_0001, 0x83ff_807f, 0x7bff_7f7f, 0x3c01_3f81, 0x1400_3380, 0xfbff_ff7f,
];

fn nan(x: u64, f: Fmt) -> bool {
    f.nan(x)
}

/// Exact sum rounded to nearest even; NaN operands and inf - inf give the format's quiet
/// NaN (compared as "some NaN").
fn fadd(a: u64, b: u64, f: Fmt) -> u64 {
    let qnan = ((1u64 << f.e) - 1) << f.m | f.quiet();
    if nan(a, f) || nan(b, f) || (f.inf(a) && f.inf(b) && (a ^ b) & f.sign() != 0) {
        return qnan;
    }
    if f.inf(a) {
        return a;
    }
    if f.inf(b) {
        return b;
    }
    roundx(addx(val(a, f), val(b, f), Rm::Ne), f, Rm::Ne)
}

/// The value of a non-NaN pattern, for ordering (`fref::as_f64` is exact for f16 and f32;
/// an f64 pattern is its own value).
fn value(x: u64, f: Fmt) -> f64 {
    if f.m == 52 {
        f64::from_bits(x)
    } else {
        as_f64(x, f)
    }
}

/// Float equality of two patterns (NaN unequal, -0 == +0).
fn feq(a: u64, b: u64, f: Fmt) -> bool {
    !nan(a, f) && !nan(b, f) && value(a, f) == value(b, f)
}

/// GFX9 ds_min/max_f32/f64: a NaN operand loses; two NaNs keep tmp; else the pseudocode.
fn legacy(t: u64, s: u64, max: bool, f: Fmt) -> u64 {
    if nan(s, f) {
        return t;
    }
    if nan(t, f) {
        return s;
    }
    let (x, y) = (value(t, f), value(s, f));
    if (max && y > x) || (!max && y < x) {
        s
    } else {
        t
    }
}

/// GFX12 ds_min/max_num_f32/f64 (RDNA4 pseudocode).
fn number(t: u64, s: u64, max: bool, f: Fmt) -> u64 {
    if nan(s, f) && nan(t, f) {
        return s | f.quiet();
    }
    if nan(s, f) {
        return t;
    }
    if nan(t, f) {
        return s;
    }
    let (x, y) = (value(t, f), value(s, f));
    let (sn, tn) = (s & f.sign() != 0, t & f.sign() != 0);
    let zeros = x == 0.0 && y == 0.0;
    let take = if max {
        y > x || (zeros && !sn && tn)
    } else {
        y < x || (zeros && sn && !tn)
    };
    if take {
        s
    } else {
        t
    }
}

fn pk(t: u64, d: u64, f: Fmt) -> u64 {
    fadd(t & 0xffff, d & 0xffff, f) | fadd(t >> 16 & 0xffff, d >> 16 & 0xffff, f) << 16
}

macro_rules! case {
    ($plain:expr, $rtn:expr, $bytes:expr, $data1:expr, $vals:expr, $float:expr, $f:expr) => {
        Case {
            plain: $plain,
            rtn: $rtn,
            bytes: $bytes,
            data1: $data1,
            f: $f,
            float: $float,
            vals: $vals,
        }
    };
}

#[rustfmt::skip]
fn cases() -> Vec<Case> {
    vec![
        // 32-bit integer.
        case!("ds_add_u32", "ds_add_rtn_u32", 4, false, INTS32, None, |t, d, _| (t + d) & 0xffff_ffff),
        case!("ds_sub_u32", "ds_sub_rtn_u32", 4, false, INTS32, None, |t, d, _| t.wrapping_sub(d) & 0xffff_ffff),
        case!("ds_rsub_u32", "ds_rsub_rtn_u32", 4, false, INTS32, None, |t, d, _| d.wrapping_sub(t) & 0xffff_ffff),
        case!("ds_inc_u32", "ds_inc_rtn_u32", 4, false, INTS32, None, |t, d, _| if t >= d { 0 } else { t + 1 }),
        case!("ds_dec_u32", "ds_dec_rtn_u32", 4, false, INTS32, None, |t, d, _| if t == 0 || t > d { d } else { t - 1 }),
        case!("ds_min_i32", "ds_min_rtn_i32", 4, false, INTS32, None, |t, d, _| if (d as i32) < (t as i32) { d } else { t }),
        case!("ds_max_i32", "ds_max_rtn_i32", 4, false, INTS32, None, |t, d, _| if (d as i32) >= (t as i32) { d } else { t }),
        case!("ds_min_u32", "ds_min_rtn_u32", 4, false, INTS32, None, |t, d, _| if d < t { d } else { t }),
        case!("ds_max_u32", "ds_max_rtn_u32", 4, false, INTS32, None, |t, d, _| if d >= t { d } else { t }),
        case!("ds_and_b32", "ds_and_rtn_b32", 4, false, INTS32, None, |t, d, _| t & d),
        case!("ds_or_b32", "ds_or_rtn_b32", 4, false, INTS32, None, |t, d, _| t | d),
        case!("ds_xor_b32", "ds_xor_rtn_b32", 4, false, INTS32, None, |t, d, _| t ^ d),
        case!("ds_mskor_b32", "ds_mskor_rtn_b32", 4, true, INTS32, None, |t, d, d2| (t & !d & 0xffff_ffff) | d2),
        case!("", "ds_wrxchg_rtn_b32", 4, false, INTS32, None, |_, d, _| d),
        case!("", "ds_storexchg_rtn_b32", 4, false, INTS32, None, |_, d, _| d),
        case!("ds_cmpst_b32", "ds_cmpst_rtn_b32", 4, true, INTS32, None, |t, d, d2| if t == d { d2 } else { t }),
        case!("ds_cmpstore_b32", "ds_cmpstore_rtn_b32", 4, true, INTS32, None, |t, d, d2| if t == d2 { d } else { t }),
        case!("", "ds_wrap_rtn_b32", 4, true, INTS32, None, |t, d, d2| if t >= d { t - d } else { (t + d2) & 0xffff_ffff }),
        case!("ds_cond_sub_u32", "ds_cond_sub_rtn_u32", 4, false, INTS32, None, |t, d, _| if t >= d { t - d } else { t }),
        case!("ds_sub_clamp_u32", "ds_sub_clamp_rtn_u32", 4, false, INTS32, None, |t, d, _| t.max(d) - d),
        // 32-bit float.
        case!("ds_add_f32", "ds_add_rtn_f32", 4, false, F32S, Some(S), |t, d, _| fadd(t, d, S)),
        case!("ds_cmpst_f32", "ds_cmpst_rtn_f32", 4, true, F32S, None, |t, d, d2| if feq(t, d, S) { d2 } else { t }),
        case!("ds_min_f32", "ds_min_rtn_f32", 4, false, F32S, None, |t, d, _| legacy(t, d, false, S)),
        case!("ds_max_f32", "ds_max_rtn_f32", 4, false, F32S, None, |t, d, _| legacy(t, d, true, S)),
        case!("ds_min_num_f32", "ds_min_num_rtn_f32", 4, false, F32S, None, |t, d, _| number(t, d, false, S)),
        case!("ds_max_num_f32", "ds_max_num_rtn_f32", 4, false, F32S, None, |t, d, _| number(t, d, true, S)),
        case!("ds_pk_add_f16", "ds_pk_add_rtn_f16", 4, false, PK, Some(H), |t, d, _| pk(t, d, H)),
        case!("ds_pk_add_bf16", "ds_pk_add_rtn_bf16", 4, false, PK, Some(BF), |t, d, _| pk(t, d, BF)),
        // 64-bit integer.
        case!("ds_add_u64", "ds_add_rtn_u64", 8, false, INTS64, None, |t, d, _| t.wrapping_add(d)),
        case!("ds_sub_u64", "ds_sub_rtn_u64", 8, false, INTS64, None, |t, d, _| t.wrapping_sub(d)),
        case!("ds_rsub_u64", "ds_rsub_rtn_u64", 8, false, INTS64, None, |t, d, _| d.wrapping_sub(t)),
        case!("ds_inc_u64", "ds_inc_rtn_u64", 8, false, INTS64, None, |t, d, _| if t >= d { 0 } else { t + 1 }),
        case!("ds_dec_u64", "ds_dec_rtn_u64", 8, false, INTS64, None, |t, d, _| if t == 0 || t > d { d } else { t - 1 }),
        case!("ds_min_i64", "ds_min_rtn_i64", 8, false, INTS64, None, |t, d, _| if (d as i64) < (t as i64) { d } else { t }),
        case!("ds_max_i64", "ds_max_rtn_i64", 8, false, INTS64, None, |t, d, _| if (d as i64) >= (t as i64) { d } else { t }),
        case!("ds_min_u64", "ds_min_rtn_u64", 8, false, INTS64, None, |t, d, _| if d < t { d } else { t }),
        case!("ds_max_u64", "ds_max_rtn_u64", 8, false, INTS64, None, |t, d, _| if d >= t { d } else { t }),
        case!("ds_and_b64", "ds_and_rtn_b64", 8, false, INTS64, None, |t, d, _| t & d),
        case!("ds_or_b64", "ds_or_rtn_b64", 8, false, INTS64, None, |t, d, _| t | d),
        case!("ds_xor_b64", "ds_xor_rtn_b64", 8, false, INTS64, None, |t, d, _| t ^ d),
        case!("ds_mskor_b64", "ds_mskor_rtn_b64", 8, true, INTS64, None, |t, d, d2| (t & !d) | d2),
        case!("", "ds_wrxchg_rtn_b64", 8, false, INTS64, None, |_, d, _| d),
        case!("", "ds_storexchg_rtn_b64", 8, false, INTS64, None, |_, d, _| d),
        case!("ds_cmpst_b64", "ds_cmpst_rtn_b64", 8, true, INTS64, None, |t, d, d2| if t == d { d2 } else { t }),
        case!("ds_cmpstore_b64", "ds_cmpstore_rtn_b64", 8, true, INTS64, None, |t, d, d2| if t == d2 { d } else { t }),
        // 64-bit float.
        case!("ds_add_f64", "ds_add_rtn_f64", 8, false, F64S, Some(D), |t, d, _| fadd(t, d, D)),
        case!("ds_cmpst_f64", "ds_cmpst_rtn_f64", 8, true, F64S, None, |t, d, d2| if feq(t, d, D) { d2 } else { t }),
        case!("ds_min_f64", "ds_min_rtn_f64", 8, false, F64S, None, |t, d, _| legacy(t, d, false, D)),
        case!("ds_max_f64", "ds_max_rtn_f64", 8, false, F64S, None, |t, d, _| legacy(t, d, true, D)),
        case!("ds_min_num_f64", "ds_min_num_rtn_f64", 8, false, F64S, None, |t, d, _| number(t, d, false, D)),
        case!("ds_max_num_f64", "ds_max_num_rtn_f64", 8, false, F64S, None, |t, d, _| number(t, d, true, D)),
    ]
}

fn has(t: Target, name: &str) -> bool {
    !name.is_empty() && isa::ops(t).iter().any(|o| o.name() == name)
}

/// Units of `a` and `b` equal, or both NaN in `f`.
fn same(a: u64, b: u64, unit: usize, f: Option<Fmt>) -> bool {
    match f {
        None => a == b,
        Some(f) => (0..8 / unit).all(|k| {
            let m = if unit == 8 {
                u64::MAX
            } else {
                (1u64 << (8 * unit)) - 1
            };
            let (x, y) = (a >> (8 * unit * k) & m, b >> (8 * unit * k) & m);
            x == y || (f.nan(x) && f.nan(y))
        }),
    }
}

/// Operand `k` of lane `l` in round `r` (0: the memory value, 1: DATA, 2: DATA2): the
/// edge values in varying pairs, and in every fourth lane DATA (or, one lane on, DATA2)
/// equal to the memory value, for the compares and ties.
fn pick(vals: &[u64], l: usize, r: usize, k: usize) -> u64 {
    let n = vals.len();
    let tmp = vals[(l * 5 + r * 3) % n];
    match k {
        0 => tmp,
        1 if (l + r).is_multiple_of(4) => tmp,
        1 => vals[(l * 7 + r + 1) % n],
        _ if (l + r) % 4 == 1 => tmp,
        _ => vals[(l * 3 + 2 * r + 5) % n],
    }
}

/// The instruction text: `mnemonic [vdst,] v1, DATA[, DATA2][ offset:..]` (registers v8,
/// v2, v6; pairs for 64-bit forms).
fn source(c: &Case, mnemonic: &str, ret: bool, offset: u64) -> String {
    let reg = |r: u32| {
        if c.bytes == 8 {
            format!("v[{r}:{}]", r + 1)
        } else {
            format!("v{r}")
        }
    };
    let mut src = String::from(mnemonic);
    if ret {
        src += &format!(" {},", reg(8));
    }
    src += &format!(" v1, {}", reg(2));
    if c.data1 {
        src += &format!(", {}", reg(6));
    }
    if offset != 0 {
        src += &format!(" offset:{offset}");
    }
    src
}

/// Runs `mnemonic` (with or without return) on every wave size of `t` in three rounds of
/// operands, one with an instruction offset, and checks LDS and the returned values.
fn check(t: Target, c: &Case, mnemonic: &str, ret: bool) {
    let wide = c.bytes == 8;
    let unit = match c.float {
        Some(f) if f.m == 52 => 8,
        Some(f) if f.m == 23 => 4,
        Some(_) => 2,
        None => c.bytes,
    };
    for &ws in lds::waves(t) {
        for round in 0..3 {
            let offset = if round == 1 { 24u64 } else { 0 };
            let src = source(c, mnemonic, ret, offset);
            let mut mem = lds::image(round as u32 * 77 + c.bytes as u32);
            let addr = |l: usize| lds::lane_addr(l, c.bytes as u64);
            // Memory operands: each lane's location starts with its "tmp" value.
            for l in 0..ws as usize {
                lds::wr(
                    &mut mem,
                    addr(l) as u64 + offset,
                    c.bytes,
                    pick(c.vals, l, round, 0),
                );
            }
            let (d0, d1) = (|l| pick(c.vals, l, round, 1), |l| pick(c.vals, l, round, 2));
            let mut model = mem.clone();
            let exec = lds::exec_mask(ws);
            let mut expect = vec![None; ws as usize];
            for l in lds::active(exec, ws) {
                let a = addr(l) as u64 + offset;
                let old = lds::rd(&model, a, c.bytes);
                let new = (c.f)(old, d0(l), d1(l));
                lds::wr(&mut model, a, c.bytes, new);
                expect[l] = Some(old);
            }
            let w = lds::run(t, ws, &src, &mut mem, |w| {
                for l in 0..ws as usize {
                    w.set_vgpr(1, l, addr(l));
                    for (r, v) in [(2, d0(l)), (6, d1(l))] {
                        w.set_vgpr(r, l, v as u32);
                        w.set_vgpr(r + 1, l, (v >> 32) as u32);
                    }
                    w.set_vgpr(8, l, SENTINEL);
                    w.set_vgpr(9, l, SENTINEL + 1);
                }
            });
            let ctx = format!("{} w{ws} `{src}` round {round}", t.name());
            for (k, (x, y)) in mem.chunks(8).zip(model.chunks(8)).enumerate() {
                let le = |b: &[u8]| b.iter().rev().fold(0u64, |v, &x| v << 8 | u64::from(x));
                assert!(
                    same(le(x), le(y), unit, c.float),
                    "{ctx}: LDS bytes {:#x}: {:#018x}, expected {:#018x}",
                    8 * k,
                    le(x),
                    le(y)
                );
            }
            for (l, e) in expect.iter().enumerate() {
                let got = u64::from(w.vgpr(8, l)) | u64::from(w.vgpr(9, l)) << 32;
                let want = match *e {
                    Some(old) if ret => {
                        if wide {
                            old
                        } else {
                            old | u64::from(SENTINEL + 1) << 32
                        }
                    }
                    _ => u64::from(SENTINEL) | u64::from(SENTINEL + 1) << 32,
                };
                // A lane may return a NaN an earlier lane stored.
                assert!(
                    same(got, want, unit, c.float),
                    "{ctx}: lane {l} returned {got:#018x}, expected {want:#018x}"
                );
            }
        }
    }
}

#[test]
fn lds_atomics_match_the_pseudocode() {
    let cases = cases();
    let mut ran = 0;
    for t in Target::ALL {
        // One llvm-mc run per target and wave size.
        let forms: Vec<String> = cases
            .iter()
            .flat_map(|c| [(c, c.plain, false), (c, c.rtn, true)])
            .filter(|&(_, m, _)| has(t, m))
            .flat_map(|(c, m, ret)| [0, 24].map(|o| source(c, m, ret, o)))
            .collect();
        for &ws in lds::waves(t) {
            lds::prefetch(t, ws, &forms);
        }
        for c in &cases {
            for (m, ret) in [(c.plain, false), (c.rtn, true)] {
                if has(t, m) {
                    check(t, c, m, ret);
                    ran += 1;
                }
            }
        }
    }
    // Every mnemonic of the list exists on some target.
    for c in &cases {
        for m in [c.plain, c.rtn] {
            assert!(
                m.is_empty() || Target::ALL.iter().any(|&t| has(t, m)),
                "{m} on no target"
            );
        }
    }
    assert!(ran > 200, "{ran} forms ran");
}
