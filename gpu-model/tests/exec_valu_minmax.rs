//! Float min/max forms added to the executor, assembled by llvm-mc-22 and run, against
//! references written from the RDNA4 / CDNA4 ISA guides' pseudocode on bit patterns:
//!
//! ```text
//! V_MINIMUM_F32 (IEEE 754-2019 minimum; maximum mirrors it):
//!   if isSignalNAN(S0) D = cvtToQuietNAN(S0) elsif isSignalNAN(S1) D = cvtToQuietNAN(S1)
//!   elsif isQuietNAN(S0) D = S0 elsif isQuietNAN(S1) D = S1
//!   elsif S0 < S1 || (both zero && sign(S0) && !sign(S1)) D = S0 else D = S1
//! V_MIN_NUM_F32 (minimumNumber):
//!   if isNAN(S0) && isNAN(S1) D = cvtToQuietNAN(S0) elsif isNAN(S0) D = S1
//!   elsif isNAN(S1) D = S0 elsif (as above) D = S0 else D = S1
//! V_MINIMUM3_F32 = minimum(minimum(S0, S1), S2); V_MINMAX_NUM_F32 = max_num(min_num(S0, S1),
//! S2); V_MAXIMUMMINIMUM_F32 = minimum(maximum(S0, S1), S2); ...
//! V_MED3_NUM_F16: if any NaN, min3_num; elsif max3_num == S0 max_num(S1, S2) elsif
//!   max3_num == S1 max_num(S0, S2) else max_num(S0, S1)   (== is float equality)
//! GFX9 V_MIN3_F16 / V_MAX3_F16 / V_MED3_F16: the same shapes on V_MIN_F16 / V_MAX_F16
//!   (the IEEE-mode rules, `fref::minmax`).
//! V_PK_MINIMUM_F16 / gfx950 V_PK_MINIMUM3_F16: minimum / minimum3 per half.
//! ```
//!
//! MODE: exact operations; operands flushed per the format's input-denormal bit, the
//! result per its output-denormal bit (f32: MODE[5:4], f16/f64: MODE[7:6]).

#[path = "exec_util/asm.rs"]
mod asm;
#[path = "exec_util/fref.rs"]
mod fref;
#[path = "exec_util/sweep.rs"]
mod sweep;

use fref::{flush, Fmt, D, H, S};
use gpu_model::isa::Op;
use gpu_model::{Family, Target};
use sweep::{set64, sweep, targets_with, vgpr64};

const F32: [u64; 14] = [
    0x7f80_0001, // sNaN
    0xff90_0000, // -sNaN
    0x7fc0_0000, // qNaN
    0xffc1_2345, // -qNaN with payload
    0x0000_0000,
    0x8000_0000,
    0x3f80_0000,
    0xbf80_0000,
    0x7f80_0000,
    0xff80_0000,
    0x0000_0001,
    0x8000_0005,
    0x4020_0000,
    0xc070_0000,
];

const F16: [u64; 14] = [
    0x7c01, 0xfd00, 0x7e00, 0xfe12, 0x0000, 0x8000, 0x3c00, 0xbc00, 0x7c00, 0xfc00, 0x0001, 0x8005,
    0x4100, 0xc380,
];

const F64: [u64; 10] = [
    0x7ff0_0000_0000_0001,
    0xfff4_0000_0000_0000,
    0x7ff8_0000_0000_0000,
    0x0000_0000_0000_0000,
    0x8000_0000_0000_0000,
    0x3ff0_0000_0000_0000,
    0xc008_0000_0000_0000,
    0x7ff0_0000_0000_0000,
    0x0000_0000_0000_0003,
    0xbcb0_0000_0000_0000,
];

fn snan(x: u64, f: Fmt) -> bool {
    f.nan(x) && x & f.quiet() == 0
}

/// The value order of non-NaN patterns (sign and magnitude; -0 below +0): `a` before `b`.
fn lt(a: u64, b: u64, f: Fmt) -> bool {
    let key = |x: u64| {
        let mag = (x & (f.sign() - 1)) as i128;
        if x & f.sign() != 0 {
            -mag - 1
        } else {
            mag
        }
    };
    key(a) < key(b)
}

/// Float equality of non-NaN patterns (-0 == +0).
fn feq(a: u64, b: u64, f: Fmt) -> bool {
    a == b || (a & (f.sign() - 1) == 0 && b & (f.sign() - 1) == 0)
}

fn minimum(a: u64, b: u64, max: bool, f: Fmt) -> u64 {
    if snan(a, f) {
        return a | f.quiet();
    }
    if snan(b, f) {
        return b | f.quiet();
    }
    if f.nan(a) {
        return a;
    }
    if f.nan(b) {
        return b;
    }
    let first = if max { lt(b, a, f) } else { lt(a, b, f) };
    if first {
        a
    } else {
        b
    }
}

fn num(a: u64, b: u64, max: bool, f: Fmt) -> u64 {
    match (f.nan(a), f.nan(b)) {
        (true, true) => a | f.quiet(),
        (true, false) => b,
        (false, true) => a,
        _ => {
            let first = if max { lt(b, a, f) } else { lt(a, b, f) };
            if first {
                a
            } else {
                b
            }
        }
    }
}

/// The guides' med3 over a min/max family `m`.
fn med3(a: u64, b: u64, c: u64, f: Fmt, m: &dyn Fn(u64, u64, bool) -> u64) -> u64 {
    if f.nan(a) || f.nan(b) || f.nan(c) {
        return m(m(a, b, false), c, false);
    }
    let hi = m(m(a, b, true), c, true);
    if feq(hi, a, f) {
        m(b, c, true)
    } else if feq(hi, b, f) {
        m(a, c, true)
    } else {
        m(a, b, true)
    }
}

/// How an operation combines its operands with a 2-operand family.
#[derive(Clone, Copy)]
enum Shape {
    Two(bool),
    Three(bool),
    Nested(bool, bool),
    Med,
}

fn combine(s: Shape, a: u64, b: u64, c: u64, f: Fmt, m: &dyn Fn(u64, u64, bool) -> u64) -> u64 {
    match s {
        Shape::Two(x) => m(a, b, x),
        Shape::Three(x) => m(m(a, b, x), c, x),
        Shape::Nested(i, o) => m(m(a, b, i), c, o),
        Shape::Med => med3(a, b, c, f, m),
    }
}

/// Family: 0 IEEE minimum, 1 num, 2 GFX9 legacy with the IEEE bit.
fn family_fn(kind: u8, f: Fmt, ieee: bool) -> impl Fn(u64, u64, bool) -> u64 {
    move |a, b, max| match kind {
        0 => minimum(a, b, max, f),
        1 => num(a, b, max, f),
        _ => fref::minmax(a, b, max, ieee, f),
    }
}

fn cases(vals: &[u64]) -> Vec<[u64; 3]> {
    sweep::triples(vals)
}

fn check_scalar(op: Op, name: &str, kind: u8, f: Fmt, shape: Shape) {
    let targets = targets_with(op);
    assert!(!targets.is_empty(), "{name} exists somewhere");
    let three = !matches!(shape, Shape::Two(_));
    let vals: &[u64] = match f.m {
        10 => &F16,
        23 => &F32,
        _ => &F64,
    };
    let cs = cases(vals);
    for (t, wave) in targets {
        let gfx12 = t.family() == Family::Gfx12;
        for mode in [0xf0u32, 0x00, 0x50, 0xa0] {
            // IEEE bit on or off for the GFX9 legacy forms.
            for ieee in [false, true] {
                if ieee && (gfx12 || kind != 2) {
                    continue;
                }
                let src = match (f.m, gfx12, three) {
                    (10, true, true) => format!("{name} v10.l, v0.l, v1.l, v2.l"),
                    (10, true, false) => format!("{name} v10.l, v0.l, v1.l"),
                    (52, _, _) => format!("{name} v[10:11], v[0:1], v[2:3]"),
                    (_, _, true) => format!("{name} v10, v0, v1, v2"),
                    _ => format!("{name} v10, v0, v1"),
                };
                let set = if gfx12 {
                    String::new()
                } else {
                    format!(
                        "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 9, 1), {}\n",
                        ieee as u32
                    )
                };
                let src = format!("{set}{src}");
                let wide = f.m != 23;
                let dn = if wide { mode >> 6 & 3 } else { mode >> 4 & 3 };
                let (kin, kout) = (dn & 1 != 0, dn & 2 != 0);
                sweep(
                    t,
                    wave,
                    &src,
                    mode,
                    &cs,
                    |w, l, c| {
                        if f.m == 52 {
                            set64(w, 0, l, c[0]);
                            set64(w, 2, l, c[1]);
                        } else {
                            for (k, &x) in c.iter().enumerate() {
                                w.set_vgpr(k, l, x as u32);
                            }
                            w.set_vgpr(10, l, 0xdead_0000);
                        }
                    },
                    |w, l, &[a, b, c], ctx| {
                        let m = family_fn(kind, f, ieee);
                        let fi = |x| flush(x, f, kin);
                        let want = flush(combine(shape, fi(a), fi(b), fi(c), f, &m), f, kout);
                        let got = match f.m {
                            52 => vgpr64(w, 10, l),
                            10 => {
                                assert_eq!(
                                    w.vgpr(10, l) >> 16,
                                    0xdead,
                                    "{ctx} `{src}` keeps the high half"
                                );
                                u64::from(w.vgpr(10, l) & 0xffff)
                            }
                            _ => u64::from(w.vgpr(10, l)),
                        };
                        assert_eq!(got, want, "{ctx} ieee {ieee} `{src}`: {a:#x} {b:#x} {c:#x}");
                    },
                );
            }
        }
    }
}

#[test]
fn ieee_minimum_maximum() {
    use Op::*;
    use Shape::*;
    let ops: [(Op, &str, Fmt, Shape); 14] = [
        (VMinimumF16, "v_minimum_f16", H, Two(false)),
        (VMaximumF16, "v_maximum_f16", H, Two(true)),
        (VMinimumF32, "v_minimum_f32", S, Two(false)),
        (VMaximumF32, "v_maximum_f32", S, Two(true)),
        (VMinimumF64, "v_minimum_f64", D, Two(false)),
        (VMaximumF64, "v_maximum_f64", D, Two(true)),
        (VMinimum3F16, "v_minimum3_f16", H, Three(false)),
        (VMaximum3F16, "v_maximum3_f16", H, Three(true)),
        (VMinimum3F32, "v_minimum3_f32", S, Three(false)),
        (VMaximum3F32, "v_maximum3_f32", S, Three(true)),
        (
            VMinimummaximumF16,
            "v_minimummaximum_f16",
            H,
            Nested(false, true),
        ),
        (
            VMaximumminimumF16,
            "v_maximumminimum_f16",
            H,
            Nested(true, false),
        ),
        (
            VMinimummaximumF32,
            "v_minimummaximum_f32",
            S,
            Nested(false, true),
        ),
        (
            VMaximumminimumF32,
            "v_maximumminimum_f32",
            S,
            Nested(true, false),
        ),
    ];
    for (op, name, f, shape) in ops {
        check_scalar(op, name, 0, f, shape);
    }
}

#[test]
fn num_three_operand_forms_gfx12() {
    use Op::*;
    use Shape::*;
    let ops: [(Op, &str, Fmt, Shape); 7] = [
        (VMin3NumF16, "v_min3_num_f16", H, Three(false)),
        (VMax3NumF16, "v_max3_num_f16", H, Three(true)),
        (VMed3NumF16, "v_med3_num_f16", H, Med),
        (VMinmaxNumF16, "v_minmax_num_f16", H, Nested(false, true)),
        (VMaxminNumF16, "v_maxmin_num_f16", H, Nested(true, false)),
        (VMinmaxNumF32, "v_minmax_num_f32", S, Nested(false, true)),
        (VMaxminNumF32, "v_maxmin_num_f32", S, Nested(true, false)),
    ];
    for (op, name, f, shape) in ops {
        check_scalar(op, name, 1, f, shape);
    }
}

#[test]
fn gfx9_min3_max3_med3_f16() {
    use Shape::*;
    for (op, name, shape) in [
        (Op::VMin3F16, "v_min3_f16", Three(false)),
        (Op::VMax3F16, "v_max3_f16", Three(true)),
        (Op::VMed3F16, "v_med3_f16", Med),
    ] {
        check_scalar(op, name, 2, H, shape);
    }
}

#[test]
fn packed_minimum_maximum_f16() {
    let pk: Vec<[u64; 3]> = (0..256u32)
        .map(|k| {
            let p = |j: u32| F16[(sweep::rnd(j) % F16.len() as u32) as usize];
            [
                p(k) | p(k + 300) << 16,
                p(k + 600) | p(k + 900) << 16,
                p(k + 1200) | p(k + 1500) << 16,
            ]
        })
        .collect();
    for (op, name, three, max) in [
        (Op::VPkMinimumF16, "v_pk_minimum_f16", false, false),
        (Op::VPkMaximumF16, "v_pk_maximum_f16", false, true),
        (Op::VPkMinimum3F16, "v_pk_minimum3_f16", true, false),
        (Op::VPkMaximum3F16, "v_pk_maximum3_f16", true, true),
    ] {
        let targets = targets_with(op);
        assert!(!targets.is_empty());
        for (t, wave) in targets {
            for mode in [0xf0u32, 0x30] {
                // Swap the halves of S0 and negate S1's low element.
                let src = if three {
                    format!(
                        "{name} v10, v0, v1, v2 op_sel:[1,0,0] op_sel_hi:[0,1,1] neg_lo:[0,1,0]"
                    )
                } else {
                    format!("{name} v10, v0, v1 op_sel:[1,0] op_sel_hi:[0,1] neg_lo:[0,1]")
                };
                let keep = mode >> 6 & 3;
                sweep(
                    t,
                    wave,
                    &src,
                    mode,
                    &pk,
                    |w, l, c| {
                        for (k, &x) in c.iter().enumerate() {
                            w.set_vgpr(k, l, x as u32);
                        }
                    },
                    |w, l, &[a, b, c], ctx| {
                        let fi = |x: u64| flush(x & 0xffff, H, keep & 1 != 0);
                        let half = |lo: bool| {
                            let x = if lo { a >> 16 } else { a };
                            let y = if lo { b ^ 0x8000 } else { b >> 16 };
                            let z = if lo { c } else { c >> 16 };
                            let v = minimum(fi(x), fi(y), max, H);
                            let v = if three { minimum(v, fi(z), max, H) } else { v };
                            flush(v, H, keep & 2 != 0)
                        };
                        let want = half(true) | half(false) << 16;
                        assert_eq!(
                            u64::from(w.vgpr(10, l)),
                            want,
                            "{ctx} `{src}` {a:#x} {b:#x} {c:#x}"
                        );
                    },
                );
            }
        }
    }
}

#[test]
fn gfx12_targets_have_the_ieee_forms() {
    assert!(targets_with(Op::VMinimumF32)
        .iter()
        .all(|(t, _)| t.family() == Family::Gfx12));
    assert!(targets_with(Op::VMinimum3F32)
        .iter()
        .any(|(t, _)| *t == Target::Gfx950));
}
