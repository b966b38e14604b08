//! GFX12 scalar float operations added to the SALU: f16 arithmetic (`s_add/sub/mul/fmac_f16`),
//! `s_min/max_num_f16/f32`, IEEE `s_minimum/maximum_f16/f32`, f16 rounding to integral,
//! the f16 conversions (`s_cvt_f16_f32`, `s_cvt_f32_f16`, `s_cvt_hi_f32_f16`,
//! `s_cvt_pk_rtz_f16_f32`) and the 28 float compares, under every MODE round/denormal
//! setting, on gfx1200 and gfx1201 in wave32 and wave64.
//!
//! References written from the RDNA4 ISA guide (16.2 SOP2, 16.3 SOP1, 16.4 SOPC pseudo-code;
//! 6.8 "SALU floating point": MODE.round/denorm apply, f16 operations read bits [15:0] and
//! write bits [31:16] as 0) and IEEE 754 (exact arithmetic rounded once, `exec_util/fref.rs`,
//! which shares no code with the executor):
//! - MIN_NUM/MAX_NUM: two NaNs give the first quieted, one NaN loses, -0 < +0;
//! - MINIMUM/MAXIMUM (IEEE 754-2019): a signalling NaN quieted (S0 first), then a quiet
//!   NaN (S0 first), else the ordered choice with -0 < +0;
//! - compares: the ordered relations, `<>` = less or greater, N* = negation (true on NaN),
//!   O/U orderedness; denormal operands flushed per MODE.

#[path = "exec_util/asm.rs"]
mod asm;
#[path = "exec_util/fref.rs"]
mod fref;

use fref::{addx, as_f64, flush, mulx, roundx, val, Ex, Fmt, Rm, D, H, S};
use gpu_model::exec::Wave;
use gpu_model::Target;

/// f16 operands: zeros, denormals, normals at rounding-sensitive points, extremes,
/// infinities, quiet and signalling NaNs.
const H_POOL: [u32; 26] = [
    0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x83ff, 0x0400, 0x8400, 0x3c00, 0xbc00, 0x3c01, 0x3e00,
    0xb800, 0x3800, 0x4200, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xfe01, 0x1400, 0x0200,
    0x3555, 0xca01,
];

/// f32 operands: as above, plus values that land on f16 rounding boundaries (ties,
/// overflow to inf, underflow to f16 denormals).
const S_POOL: [u32; 24] = [
    0x0000_0000,
    0x8000_0000,
    0x0000_0001,
    0x807f_ffff,
    0x0080_0000,
    0x3f80_0000,
    0xbf80_0000,
    0x7f7f_ffff,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0x7f80_0001,
    0x477f_e000,
    0x477f_f000,
    0x3380_0000,
    0x3300_0000,
    0x3340_0000,
    0x3f80_1000,
    0x3f80_1800,
    0xbf80_1000,
    0x3880_0000,
    0x387f_c000,
    0x4780_0000,
    0xc2c8_0001,
];

/// MODE settings: every round and denormal mode for both field groups, plus mixes.
fn modes() -> Vec<u32> {
    let mut m: Vec<u32> = (0..16u32)
        .map(|k| ((k & 3) * 0b0101) | ((k >> 2) * 0b0101_0000))
        .collect();
    m.extend([0x1e, 0x3b ^ 0xc0, 0x4d, 0xb6, 0x71, 0xe2]);
    m
}

/// (round, keep-in, keep-out) of the f32 (`wide` false) or f16 fields of `mode`.
fn env(mode: u32, wide: bool) -> (Rm, bool, bool) {
    let (r, d) = if wide {
        (mode >> 2 & 3, mode >> 6 & 3)
    } else {
        (mode & 3, mode >> 4 & 3)
    };
    let rm = [Rm::Ne, Rm::Up, Rm::Down, Rm::Zero][r as usize];
    (rm, d & 1 != 0, d & 2 != 0)
}

/// An expected result: exact bits, or some quiet NaN of the format.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Want {
    Bits(u64),
    Nan,
}

/// `g` of the flushed operands in MODE, rounded once into `f` (IEEE 754 specials first).
fn arith(mode: u32, f: Fmt, ops: &[u64], host: fn(&[f64]) -> f64, g: fn(&[Ex], Rm) -> Ex) -> Want {
    let (r, ki, ko) = env(mode, f.m != 23);
    let ops: Vec<u64> = ops.iter().map(|&x| flush(x, f, ki)).collect();
    if ops.iter().any(|&x| f.nan(x)) {
        return Want::Nan;
    }
    if ops.iter().any(|&x| f.inf(x)) {
        // Infinite operands: the exact host result is the IEEE one.
        let v: Vec<f64> = ops.iter().map(|&x| as_f64(x, f)).collect();
        // With an infinite operand the result is infinite or NaN.
        let h = host(&v);
        let inf = ((1u64 << f.e) - 1) << f.m;
        return match h {
            _ if h.is_nan() => Want::Nan,
            _ if h > 0.0 => Want::Bits(inf),
            _ => Want::Bits(inf | f.sign()),
        };
    }
    let v: Vec<Ex> = ops.iter().map(|&x| val(x, f)).collect();
    Want::Bits(flush(roundx(g(&v, r), f, r), f, ko))
}

/// -0 below +0 (the guides' LT_NEG_ZERO / GT_NEG_ZERO).
fn before(f: Fmt, a: u64, b: u64, max: bool) -> bool {
    let (x, y) = (as_f64(a, f), as_f64(b, f));
    if x == 0.0 && y == 0.0 {
        (a & f.sign() != 0 && b & f.sign() == 0) != max
    } else if max {
        x > y
    } else {
        x < y
    }
}

fn min_num(mode: u32, f: Fmt, a: u64, b: u64, max: bool) -> Want {
    let (_, ki, ko) = env(mode, f.m != 23);
    let (a, b) = (flush(a, f, ki), flush(b, f, ki));
    let r = match (f.nan(a), f.nan(b)) {
        (true, true) => a | f.quiet(),
        (true, false) => b,
        (false, true) => a,
        _ if before(f, a, b, max) => a,
        _ => b,
    };
    Want::Bits(flush(r, f, ko))
}

fn minimum(mode: u32, f: Fmt, a: u64, b: u64, max: bool) -> Want {
    let (_, ki, ko) = env(mode, f.m != 23);
    let (a, b) = (flush(a, f, ki), flush(b, f, ki));
    let snan = |x: u64| f.nan(x) && x & f.quiet() == 0;
    let r = if snan(a) {
        a | f.quiet()
    } else if snan(b) {
        b | f.quiet()
    } else if f.nan(a) {
        a
    } else if f.nan(b) {
        b
    } else if before(f, a, b, max) {
        a
    } else {
        b
    };
    Want::Bits(flush(r, f, ko))
}

/// f16 round to integral by `op` (ceil, floor, trunc, nearest even) on the flushed value.
fn integral(mode: u32, x: u64, op: fn(f64) -> f64) -> Want {
    let (_, ki, _) = env(mode, true);
    let x = flush(x, H, ki);
    if H.nan(x) {
        return Want::Nan;
    }
    if H.inf(x) {
        return Want::Bits(x);
    }
    let v = op(as_f64(x, H));
    Want::Bits(roundx(val(v.to_bits(), D), H, Rm::Ne))
}

/// Converts between formats: operand flushed by the source's field, rounded by `r` (or
/// the destination's field) and flushed by the destination's.
fn convert(mode: u32, x: u64, from: Fmt, to: Fmt, r: Option<Rm>) -> Want {
    let (_, ki, _) = env(mode, from.m != 23);
    let (rd, _, ko) = env(mode, to.m != 23);
    let x = flush(x, from, ki);
    if from.nan(x) {
        return Want::Nan;
    }
    let v = if from.inf(x) {
        let inf = ((1u64 << to.e) - 1) << to.m;
        return Want::Bits(if x & from.sign() != 0 {
            inf | to.sign()
        } else {
            inf
        });
    } else {
        val(x, from)
    };
    Want::Bits(flush(roundx(v, to, r.unwrap_or(rd)), to, ko))
}

/// The compare masks in RDNA4 opcode order (LT, EQ, LE, GT, LG, GE, O, U, NGE, NLG, NGT,
/// NLE, NEQ, NLT), written as the relations.
const CMPS: [&str; 14] = [
    "lt", "eq", "le", "gt", "lg", "ge", "o", "u", "nge", "nlg", "ngt", "nle", "neq", "nlt",
];

fn cmp_ref(mode: u32, f: Fmt, a: u64, b: u64, k: usize) -> bool {
    let (_, ki, _) = env(mode, f.m != 23);
    let (a, b) = (flush(a, f, ki), flush(b, f, ki));
    if f.nan(a) || f.nan(b) {
        // Unordered: only U and the negated relations hold.
        return matches!(CMPS[k], "u" | "nge" | "nlg" | "ngt" | "nle" | "neq" | "nlt");
    }
    let (x, y) = (as_f64(a, f), as_f64(b, f));
    let rel = |c: &str| match c {
        "lt" => x < y,
        "eq" => x == y,
        "le" => x <= y,
        "gt" => x > y,
        "lg" => x != y,
        "ge" => x >= y,
        _ => true,
    };
    match CMPS[k] {
        "u" => false,
        c if c.starts_with('n') => !rel(&c[1..]),
        c => rel(c),
    }
}

fn program() -> String {
    let mut p = String::from(
        "s_setreg_b32 hwreg(1, 0, 8), s20\n\
         s_add_f16 s10, s0, s1\n\
         s_sub_f16 s11, s0, s1\n\
         s_mul_f16 s12, s0, s1\n\
         s_mov_b32 s13, s2\n\
         s_fmac_f16 s13, s0, s1\n\
         s_min_num_f16 s14, s0, s1\n\
         s_max_num_f16 s15, s0, s1\n\
         s_minimum_f16 s16, s0, s1\n\
         s_maximum_f16 s17, s0, s1\n\
         s_minimum_f32 s18, s3, s4\n\
         s_maximum_f32 s19, s3, s4\n\
         s_min_num_f32 s21, s3, s4\n\
         s_max_num_f32 s22, s3, s4\n\
         s_ceil_f16 s23, s0\n\
         s_floor_f16 s24, s0\n\
         s_trunc_f16 s25, s0\n\
         s_rndne_f16 s26, s0\n\
         s_cvt_f32_f16 s27, s0\n\
         s_cvt_hi_f32_f16 s28, s5\n\
         s_cvt_f16_f32 s29, s3\n\
         s_cvt_pk_rtz_f16_f32 s30, s3, s4\n",
    );
    for (k, c) in CMPS.iter().enumerate() {
        p += &format!(
            "s_cmp_{c}_f16 s0, s1\n\
             s_cselect_b32 s{}, 1, 0\n\
             s_cmp_{c}_f32 s3, s4\n\
             s_cselect_b32 s{}, 1, 0\n",
            40 + k,
            60 + k
        );
    }
    p
}

fn check(target: Target, wave: u32, code: &[u8], mode: u32, i: usize, j: usize) {
    let (a, b) = (H_POOL[i] as u64, H_POOL[j] as u64);
    let c = H_POOL[(7 * i + 3 * j + 1) % H_POOL.len()] as u64;
    let (x, y) = (
        S_POOL[i % S_POOL.len()] as u64,
        S_POOL[(j + i / 3) % S_POOL.len()] as u64,
    );
    let w = asm::run(target, wave, code, |w: &mut Wave| {
        // Junk in the high halves: the f16 operations read bits [15:0] only.
        w.set_sgpr(0, a as u32 | 0xdead_0000);
        w.set_sgpr(1, b as u32 | 0xbeef_0000);
        w.set_sgpr(2, c as u32 | 0x1234_0000);
        w.set_sgpr(3, x as u32);
        w.set_sgpr(4, y as u32);
        w.set_sgpr(5, (a as u32) << 16 | 0x5a5a);
        w.set_sgpr(20, mode);
    });
    let ctx = format!(
        "{} w{wave} mode {mode:#04x} h=({a:#06x}, {b:#06x}, {c:#06x}) s=({x:#010x}, {y:#010x})",
        target.name()
    );
    let expect = |reg: usize, f: Fmt, want: Want, what: &str| {
        let got = w.sgpr(reg) as u64;
        match want {
            Want::Bits(v) => assert_eq!(got, v, "{what}: {ctx}: got {got:#x} want {v:#x}"),
            Want::Nan => {
                let width_ok = f.m == 23 || got >> 16 == 0;
                assert!(
                    f.nan(got) && got & f.quiet() != 0 && width_ok,
                    "{what}: {ctx}: got {got:#x}, want a quiet NaN"
                );
            }
        }
    };
    let add = |v: &[f64]| v[0] + v[1];
    let mul = |v: &[f64]| v[0] * v[1];
    let fma = |v: &[f64]| v[0].mul_add(v[1], v[2]);
    expect(
        10,
        H,
        arith(mode, H, &[a, b], add, |v, r| addx(v[0], v[1], r)),
        "s_add_f16",
    );
    expect(
        11,
        H,
        arith(mode, H, &[a, b ^ 0x8000], add, |v, r| addx(v[0], v[1], r)),
        "s_sub_f16",
    );
    expect(
        12,
        H,
        arith(mode, H, &[a, b], mul, |v, _| mulx(v[0], v[1])),
        "s_mul_f16",
    );
    expect(
        13,
        H,
        arith(mode, H, &[a, b, c], fma, |v, r| {
            addx(mulx(v[0], v[1]), v[2], r)
        }),
        "s_fmac_f16",
    );
    expect(14, H, min_num(mode, H, a, b, false), "s_min_num_f16");
    expect(15, H, min_num(mode, H, a, b, true), "s_max_num_f16");
    expect(16, H, minimum(mode, H, a, b, false), "s_minimum_f16");
    expect(17, H, minimum(mode, H, a, b, true), "s_maximum_f16");
    expect(18, S, minimum(mode, S, x, y, false), "s_minimum_f32");
    expect(19, S, minimum(mode, S, x, y, true), "s_maximum_f32");
    expect(21, S, min_num(mode, S, x, y, false), "s_min_num_f32");
    expect(22, S, min_num(mode, S, x, y, true), "s_max_num_f32");
    expect(23, H, integral(mode, a, f64::ceil), "s_ceil_f16");
    expect(24, H, integral(mode, a, f64::floor), "s_floor_f16");
    expect(25, H, integral(mode, a, f64::trunc), "s_trunc_f16");
    expect(
        26,
        H,
        integral(mode, a, f64::round_ties_even),
        "s_rndne_f16",
    );
    expect(27, S, convert(mode, a, H, S, None), "s_cvt_f32_f16");
    expect(28, S, convert(mode, a, H, S, None), "s_cvt_hi_f32_f16");
    expect(29, H, convert(mode, x, S, H, None), "s_cvt_f16_f32");
    let lo = convert(mode, x, S, H, Some(Rm::Zero));
    let hi = convert(mode, y, S, H, Some(Rm::Zero));
    let got = w.sgpr(30) as u64;
    for (half, want) in [(got & 0xffff, lo), (got >> 16, hi)] {
        match want {
            Want::Bits(v) => assert_eq!(half, v, "s_cvt_pk_rtz_f16_f32: {ctx}: got {got:#x}"),
            Want::Nan => assert!(H.nan(half), "s_cvt_pk_rtz_f16_f32: {ctx}: got {got:#x}"),
        }
    }
    for (k, c) in CMPS.iter().enumerate() {
        assert_eq!(
            w.sgpr(40 + k) != 0,
            cmp_ref(mode, H, a, b, k),
            "s_cmp_{c}_f16: {ctx}"
        );
        assert_eq!(
            w.sgpr(60 + k) != 0,
            cmp_ref(mode, S, x, y, k),
            "s_cmp_{c}_f32: {ctx}"
        );
    }
}

#[test]
fn scalar_f16_ops_compares_and_conversions_in_every_mode() {
    for target in [Target::Gfx1200, Target::Gfx1201] {
        for wave in [32, 64] {
            let code = asm::assemble_wave(target, wave, &program());
            // wave64 repeats a subset: the scalar unit does not depend on the wave size.
            let modes = modes();
            let modes = if wave == 64 { &modes[..4] } else { &modes[..] };
            for &mode in modes {
                for i in 0..H_POOL.len() {
                    for j in 0..H_POOL.len() {
                        check(target, wave, &code, mode, i, j);
                    }
                }
            }
        }
    }
}

/// Spot values of the references themselves, from the pseudo-code by hand, so a wrong
/// reference cannot pass silently.
#[test]
fn reference_spot_values() {
    let m = 0xf0; // nearest even, denormals kept
                  // 1.0 + 2^-10 (one ulp) * 1.5 in f16: 0x3c01 * 0x3e00 = 1.5 + 1.5 * 2^-10 -> tie, even.
    let r = arith(
        m,
        H,
        &[0x3c01, 0x3e00],
        |v| v[0] * v[1],
        |v, _| mulx(v[0], v[1]),
    );
    assert_eq!(r, Want::Bits(0x3e02));
    // min_num(NaN, NaN) = first quieted; minimum(qNaN, sNaN) = the sNaN quieted.
    assert_eq!(min_num(m, H, 0x7c01, 0x7e00, false), Want::Bits(0x7e01));
    assert_eq!(minimum(m, H, 0x7e00, 0x7c01, false), Want::Bits(0x7e01));
    assert_eq!(minimum(m, S, 0x8000_0000, 0, true), Want::Bits(0));
    // f32 65520.0 to f16: ties to inf (RNE), max finite toward zero.
    assert_eq!(convert(m, 0x477f_f000, S, H, None), Want::Bits(0x7c00));
    assert_eq!(
        convert(m, 0x477f_f000, S, H, Some(Rm::Zero)),
        Want::Bits(0x7bff)
    );
    // rndne(-0.5) keeps the sign.
    assert_eq!(
        integral(m, 0xb800, f64::round_ties_even),
        Want::Bits(0x8000)
    );
    // lg is ordered inequality: false on NaN, nlg true.
    assert!(!cmp_ref(m, S, 0x7fc0_0000, 0, 4));
    assert!(cmp_ref(m, S, 0x7fc0_0000, 0, 9));
    // Flushed denormals compare equal to zero.
    assert!(cmp_ref(0x00, H, 0x0001, 0x8000, 1));
    assert!(!cmp_ref(0xf0, H, 0x0001, 0x8000, 1));
}
