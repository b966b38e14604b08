//! Dot products, assembled by llvm-mc-22 and run in the executor, against references
//! written from the CDNA4 / RDNA4 ISA guides' pseudocode:
//!
//! ```text
//! V_DOT2_F32_F16:  tmp = S2.f32; tmp += f16_to_f32(S0[15:0]) * f16_to_f32(S1[15:0]);
//!                  tmp += f16_to_f32(S0[31:16]) * f16_to_f32(S1[31:16]); D0.f32 = tmp
//! V_DOT4_I32_I8:   tmp = S2.i32; tmp += i8_to_i32(S0[8k+7:8k]) * i8_to_i32(S1[8k+7:8k]) ...
//! V_DOT4_I32_IU8:  as V_DOT4_I32_I8 with S0/S1 signed when NEG[0]/NEG[1] is set
//! V_DOT2C_*:       the same with D0 as the accumulator
//! V_DOT2_F16_F16:  tmp = S2.f16; tmp += S0[15:0].f16 * S1[15:0].f16; tmp += hi * hi
//! gfx950 V_DOT2_F32_BF16: tmp = lo * lo; tmp += hi * hi; tmp += S2.f32
//! ```
//!
//! with the guides' mode rules: the f32 dots flush every denormal and round to nearest
//! even ("V_DOT2 instructions ... flush input and output denorms"), clamp saturates the
//! integer dots, clamps the float dots to [0, 1] on gfx9 and is ignored on GFX12;
//! `v_dot2_f16_f16` keeps f16 denormals, `v_dot2_bf16_bf16` flushes bf16 denormals.

#[path = "exec_util/asm.rs"]
mod asm;
#[path = "exec_util/fref.rs"]
mod fref;
#[path = "exec_util/sweep.rs"]
mod sweep;

use fref::{addx, mulx, roundx, val, Fmt, Rm, H};
use gpu_model::isa::Op;
use gpu_model::{Family, Target};
use sweep::{rnd, sweep, targets_with};

/// f16 test values: zeros, ones, the extremes, denormals of both signs, odd values.
const F16: [u16; 14] = [
    0x0000, 0x8000, 0x3c00, 0xbe00, 0x7bff, 0x0001, 0x8200, 0x3555, 0xc500, 0x2e66, 0x4248, 0xb800,
    0x1400, 0xd3ff,
];

/// f32 accumulators: zeros, a denormal, large and small values.
const F32: [u32; 8] = [
    0x0000_0000,
    0x8000_0000,
    0x0000_0003,
    0x3f80_0000,
    0xc2c8_0000,
    0x4b80_0001,
    0x3a83_126f,
    0xc700_0400,
];

fn h2f(x: u32) -> f32 {
    fref::as_f64(u64::from(x & 0xffff), H) as f32
}

/// An f32 denormal flushed to zero of the same sign.
fn ftz(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

/// An f16 denormal flushed.
fn ftz16(x: u32) -> u32 {
    if x & 0x7c00 == 0 {
        x & 0x8000
    } else {
        x
    }
}

fn pick16(k: u32) -> u32 {
    u32::from(F16[(rnd(k) % F16.len() as u32) as usize])
}

/// Cases for the packed-16-bit float dots: (S0, S1, S2).
fn f16_cases() -> Vec<[u32; 3]> {
    (0..256)
        .map(|k| {
            [
                pick16(3 * k) | pick16(3 * k + 1) << 16,
                pick16(5 * k + 7) | pick16(7 * k + 2) << 16,
                F32[(rnd(11 * k) % F32.len() as u32) as usize],
            ]
        })
        .collect()
}

/// VOP3P operand modifiers of one variant: op_sel, op_sel_hi, neg_lo, neg_hi (bits per
/// source), clamp.
#[derive(Clone, Copy)]
struct Mods {
    os: u32,
    osh: u32,
    nl: u32,
    nh: u32,
    clamp: bool,
}

impl Mods {
    /// The modifiers as llvm-mc-22 takes them (defaults left out: gfx942/gfx950 reject
    /// any `op_sel`/`op_sel_hi` on a dot instruction, even the default one).
    fn text(self) -> String {
        let arr = |name: &str, v: u32| format!(" {name}:[{},{},{}]", v & 1, v >> 1 & 1, v >> 2 & 1);
        let mut s = String::new();
        if self.os != 0 {
            s += &arr("op_sel", self.os);
        }
        if self.osh != 7 {
            s += &arr("op_sel_hi", self.osh);
        }
        if self.nl != 0 {
            s += &arr("neg_lo", self.nl);
        }
        if self.nh != 0 {
            s += &arr("neg_hi", self.nh);
        }
        if self.clamp {
            s += " clamp";
        }
        s
    }
}

/// The variants llvm-mc-22 accepts on `t`: LLVM's assembler rejects operand selects on
/// gfx942/gfx950 dot instructions ("invalid op_sel operand").
fn variants(t: Target) -> Vec<Mods> {
    let no_sel = matches!(t, Target::Gfx942 | Target::Gfx950);
    VARIANTS
        .into_iter()
        .filter(|m| !no_sel || (m.os == 0 && m.osh == 7))
        .collect()
}

const VARIANTS: [Mods; 6] = [
    Mods {
        os: 0,
        osh: 7,
        nl: 0,
        nh: 0,
        clamp: false,
    },
    Mods {
        os: 1,
        osh: 5,
        nl: 5,
        nh: 2,
        clamp: false,
    },
    Mods {
        os: 2,
        osh: 6,
        nl: 2,
        nh: 5,
        clamp: true,
    },
    Mods {
        os: 3,
        osh: 4,
        nl: 4,
        nh: 4,
        clamp: false,
    },
    Mods {
        os: 0,
        osh: 7,
        nl: 5,
        nh: 2,
        clamp: true,
    },
    Mods {
        os: 0,
        osh: 7,
        nl: 2,
        nh: 5,
        clamp: false,
    },
];

/// Element `hi` of packed source `n` under `m`: the half op_sel/op_sel_hi picks, negated
/// per neg_lo/neg_hi.
fn elem(m: Mods, x: u32, n: u32, hi: bool) -> u32 {
    let sel = if hi { m.osh } else { m.os } >> n & 1;
    let neg = if hi { m.nh } else { m.nl } >> n & 1;
    ((x >> (16 * sel)) & 0xffff) ^ neg << 15
}

/// The f32 accumulator of a VOP3P float dot: neg_hi[2] abs, neg_lo[2] negation.
fn acc(m: Mods, c: u32) -> f32 {
    let c = if m.nh & 4 != 0 { c & 0x7fff_ffff } else { c };
    f32::from_bits(c ^ (m.nl >> 2 & 1) << 31)
}

fn same(got: u32, want: f32) -> bool {
    (want.is_nan() && f32::from_bits(got).is_nan()) || got == want.to_bits()
}

#[test]
fn dot2_f32_f16() {
    for (t, wave) in targets_with(Op::VDot2F32F16) {
        let gfx12 = t.family() == Family::Gfx12;
        for m in variants(t) {
            let src = format!("v_dot2_f32_f16 v10, v0, v1, v2{}", m.text());
            let cases = f16_cases();
            sweep(
                t,
                wave,
                &src,
                0xf0,
                &cases,
                |w, l, c| {
                    for (k, &x) in c.iter().enumerate() {
                        w.set_vgpr(k, l, x);
                    }
                },
                |w, l, &[a, b, c], ctx| {
                    let p = |hi| h2f(ftz16(elem(m, a, 0, hi))) * h2f(ftz16(elem(m, b, 1, hi)));
                    let mut want = ftz((ftz(acc(m, c)) + p(false)) + p(true));
                    if m.clamp && !gfx12 {
                        want = if want.is_nan() {
                            0.0
                        } else {
                            want.clamp(0.0, 1.0)
                        };
                    }
                    assert!(
                        same(w.vgpr(10, l), want),
                        "{ctx} `{src}` {a:#x} {b:#x} {c:#x}: {:#x} want {:#x}",
                        w.vgpr(10, l),
                        want.to_bits()
                    );
                },
            );
        }
    }
}

/// bf16 bits to f32.
fn bf(x: u32) -> f32 {
    f32::from_bits((x & 0xffff) << 16)
}

/// A bf16 denormal flushed.
fn ftzb(x: u32) -> u32 {
    if x & 0x7f80 == 0 {
        x & 0x8000
    } else {
        x
    }
}

#[test]
fn dot2_f32_bf16() {
    // bf16 values: zeros, a denormal, ones, large and odd values.
    const BF: [u32; 10] = [
        0, 0x8000, 0x0001, 0x3f80, 0xc0a0, 0x7f00, 0x3eab, 0xbd4c, 0x4049, 0x0080,
    ];
    let pick = |k: u32| BF[(rnd(k) % BF.len() as u32) as usize];
    let cases: Vec<[u32; 3]> = (0..192)
        .map(|k| {
            [
                pick(2 * k) | pick(2 * k + 1) << 16,
                pick(3 * k + 5) | pick(5 * k) << 16,
                F32[(rnd(7 * k) % 8) as usize],
            ]
        })
        .collect();
    for (t, wave) in targets_with(Op::VDot2F32Bf16) {
        let gfx12 = t.family() == Family::Gfx12;
        for m in variants(t) {
            let src = format!("v_dot2_f32_bf16 v10, v0, v1, v2{}", m.text());
            sweep(
                t,
                wave,
                &src,
                0xf0,
                &cases,
                |w, l, c| {
                    for (k, &x) in c.iter().enumerate() {
                        w.set_vgpr(k, l, x);
                    }
                },
                |w, l, &[a, b, c], ctx| {
                    let p = |hi| bf(ftzb(elem(m, a, 0, hi))) * bf(ftzb(elem(m, b, 1, hi)));
                    let s2 = ftz(acc(m, c));
                    // gfx950 adds S2 last, GFX12 first (the two guides' pseudocode).
                    let v = if gfx12 {
                        (s2 + p(false)) + p(true)
                    } else {
                        (p(false) + p(true)) + s2
                    };
                    let mut want = ftz(v);
                    if m.clamp && !gfx12 {
                        want = if want.is_nan() {
                            0.0
                        } else {
                            want.clamp(0.0, 1.0)
                        };
                    }
                    assert!(
                        same(w.vgpr(10, l), want),
                        "{ctx} `{src}` {a:#x} {b:#x} {c:#x}: {:#x} want {:#x}",
                        w.vgpr(10, l),
                        want.to_bits()
                    );
                },
            );
        }
    }
}

/// Integer dot reference: fields of `bits` bits, signedness per source, exact sum with
/// the accumulator, then wrapped or (clamp) saturated to the result's range.
/// `kind`: (field bits, S0 signed, S1 signed, result signed, clamp).
fn int_dot(a: u32, b: u32, c: u32, kind: (u32, bool, bool, bool, bool)) -> u32 {
    let (bits, sa, sb, signed, clamp) = kind;
    let f = |x: u32, k: u32, s: bool| {
        let v = (x >> (k * bits)) & ((1 << bits) - 1);
        if s && v >> (bits - 1) & 1 != 0 {
            v as i64 - (1i64 << bits)
        } else {
            v as i64
        }
    };
    let acc = if signed { c as i32 as i64 } else { c as i64 };
    let sum = (0..32 / bits).fold(acc, |s, k| s + f(a, k, sa) * f(b, k, sb));
    match (clamp, signed) {
        (false, _) => sum as u32,
        (true, true) => sum.clamp(i32::MIN as i64, i32::MAX as i64) as u32,
        (true, false) => sum.clamp(0, u32::MAX as i64) as u32,
    }
}

fn int_cases() -> Vec<[u32; 3]> {
    let edge = [
        0,
        0xffff_ffff,
        0x8080_8080,
        0x7f7f_7f7f,
        0x8000_8000,
        0x7fff_7fff,
        0x8888_8888,
        0x7777_7777,
    ];
    let accs = [
        0,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_ffff,
        0x7fff_ff00,
        0x8000_0100,
    ];
    let mut v = Vec::new();
    for (i, &a) in edge.iter().enumerate() {
        for (j, &b) in edge.iter().enumerate() {
            v.push([a, b, accs[(i + j) % accs.len()]]);
        }
    }
    v.extend((0..128).map(|k| [rnd(k), rnd(k + 1000), rnd(k + 2000)]));
    v
}

#[test]
fn integer_dots_vop3p() {
    // (op, mnemonic, field bits, signed S0, signed S1, signed result).
    let ops: [(Op, &str, u32, bool, bool, bool); 8] = [
        (Op::VDot2I32I16, "v_dot2_i32_i16", 16, true, true, true),
        (Op::VDot2U32U16, "v_dot2_u32_u16", 16, false, false, false),
        (Op::VDot4I32I8, "v_dot4_i32_i8", 8, true, true, true),
        (Op::VDot4U32U8, "v_dot4_u32_u8", 8, false, false, false),
        (Op::VDot8I32I4, "v_dot8_i32_i4", 4, true, true, true),
        (Op::VDot8U32U4, "v_dot8_u32_u4", 4, false, false, false),
        (Op::VDot4I32Iu8, "v_dot4_i32_iu8", 8, false, false, true),
        (Op::VDot8I32Iu4, "v_dot8_i32_iu4", 4, false, false, true),
    ];
    let cases = int_cases();
    let mut ran = 0;
    for (op, name, bits, sa, sb, signed) in ops {
        let iu = matches!(op, Op::VDot4I32Iu8 | Op::VDot8I32Iu4);
        for (t, wave) in targets_with(op) {
            // The _iu forms read neg_lo[0]/[1] as "signed"; the others take clamp only.
            let forms: Vec<(String, bool, bool, bool)> = if iu {
                (0..4)
                    .flat_map(|n| {
                        [false, true].map(move |cl| {
                            (
                                format!(
                                    " neg_lo:[{},{},0]{}",
                                    n & 1,
                                    n >> 1,
                                    if cl { " clamp" } else { "" }
                                ),
                                n & 1 != 0,
                                n & 2 != 0,
                                cl,
                            )
                        })
                    })
                    .collect()
            } else {
                vec![
                    (String::new(), sa, sb, false),
                    (" clamp".into(), sa, sb, true),
                ]
            };
            for (mods, sa, sb, clamp) in forms {
                // 16-bit forms: swap the halves of S0 with op_sel to check the selects.
                let sel = if bits == 16 && !clamp && !matches!(t, Target::Gfx942 | Target::Gfx950) {
                    " op_sel:[1,0,0] op_sel_hi:[0,1,1]"
                } else {
                    ""
                };
                let src = format!("{name} v10, v0, v1, v2{mods}{sel}");
                sweep(
                    t,
                    wave,
                    &src,
                    0xf0,
                    &cases,
                    |w, l, c| {
                        for (k, &x) in c.iter().enumerate() {
                            w.set_vgpr(k, l, x);
                        }
                    },
                    |w, l, &[a, b, c], ctx| {
                        let a = if sel.is_empty() { a } else { a.rotate_left(16) };
                        let want = int_dot(a, b, c, (bits, sa, sb, signed, clamp));
                        assert_eq!(w.vgpr(10, l), want, "{ctx} `{src}` {a:#x} {b:#x} {c:#x}");
                    },
                );
                ran += 1;
            }
        }
    }
    assert!(ran > 20);
}

#[test]
fn accumulating_dots_vop2() {
    // (op, mnemonic, field bits) of the integer v_dot*c (signed).
    let ops = [
        (Op::VDot2cI32I16, "v_dot2c_i32_i16", 16),
        (Op::VDot4cI32I8, "v_dot4c_i32_i8", 8),
        (Op::VDot8cI32I4, "v_dot8c_i32_i4", 4),
    ];
    let cases = int_cases();
    for (op, name, bits) in ops {
        for (t, wave) in targets_with(op) {
            for (form, clamp) in [("_e32", false), ("_e64", false), ("_e64", true)] {
                let src = format!(
                    "{name}{form} v2, v0, v1{}",
                    if clamp { " clamp" } else { "" }
                );
                sweep(
                    t,
                    wave,
                    &src,
                    0xf0,
                    &cases,
                    |w, l, c| {
                        for (k, &x) in c.iter().enumerate() {
                            w.set_vgpr(k, l, x);
                        }
                    },
                    |w, l, &[a, b, c], ctx| {
                        let want = int_dot(a, b, c, (bits, true, true, true, clamp));
                        assert_eq!(w.vgpr(2, l), want, "{ctx} `{src}` {a:#x} {b:#x} {c:#x}");
                    },
                );
            }
        }
    }
    // The float forms: D = D + dot, the VOP3 abs/neg on both elements of a source.
    for (op, name, bf16) in [
        (Op::VDot2cF32F16, "v_dot2c_f32_f16", false),
        (Op::VDot2cF32Bf16, "v_dot2c_f32_bf16", true),
    ] {
        let cases = f16_cases();
        for (t, wave) in targets_with(op) {
            for (src, neg0, abs1) in [
                (format!("{name}_e32 v2, v0, v1"), false, false),
                (format!("{name}_e64 v2, -v0, |v1|"), true, true),
            ] {
                sweep(
                    t,
                    wave,
                    &src,
                    0xf0,
                    &cases,
                    |w, l, c| {
                        for (k, &x) in c.iter().enumerate() {
                            w.set_vgpr(k, l, x);
                        }
                    },
                    |w, l, &[a, b, c], ctx| {
                        let e = |x: u32, sh: u32, neg: bool, abs: bool| {
                            let mut v = (x >> sh) & 0xffff;
                            if abs {
                                v &= 0x7fff;
                            }
                            if neg {
                                v ^= 0x8000;
                            }
                            if bf16 {
                                bf(ftzb(v))
                            } else {
                                h2f(ftz16(v))
                            }
                        };
                        let p = |sh| e(a, sh, neg0, false) * e(b, sh, false, abs1);
                        let want = ftz((ftz(f32::from_bits(c)) + p(0)) + p(16));
                        assert!(
                            same(w.vgpr(2, l), want),
                            "{ctx} `{src}` {a:#x} {b:#x} {c:#x}: {:#x} want {:#x}",
                            w.vgpr(2, l),
                            want.to_bits()
                        );
                    },
                );
            }
        }
    }
}

/// OCP FP8 (E4M3, no infinities, S.1111.111 NaN) or BF8 (E5M2, IEEE-like) to f64.
fn ocp8(x: u32, bf8: bool) -> f64 {
    let (eb, mb) = if bf8 { (5, 2) } else { (4, 3) };
    let bias = (1 << (eb - 1)) - 1;
    let e = ((x >> mb) & ((1 << eb) - 1)) as i32;
    let m = (x & ((1 << mb) - 1)) as f64;
    let s = if x & 0x80 != 0 { -1.0 } else { 1.0 };
    if bf8 && e == 31 {
        return if m == 0.0 {
            s * f64::INFINITY
        } else {
            f64::NAN
        };
    }
    if !bf8 && e == 15 && m == 7.0 {
        return f64::NAN;
    }
    let v = if e == 0 {
        m / (1 << mb) as f64 * 2f64.powi(1 - bias)
    } else {
        (1.0 + m / (1 << mb) as f64) * 2f64.powi(e - bias)
    };
    s * v
}

#[test]
fn dot4_f32_fp8_bf8_gfx12() {
    let cases: Vec<[u32; 3]> = (0..192)
        .map(|k| {
            // Random bytes, but no NaN/inf patterns (checked separately by the NaN rule).
            let b = |j: u32| {
                let x = rnd(j) & 0xff;
                if x & 0x7f >= 0x78 {
                    x & 0xbf
                } else {
                    x
                }
            };
            let w = |j: u32| b(j) | b(j + 1) << 8 | b(j + 2) << 16 | b(j + 3) << 24;
            [w(4 * k), w(4 * k + 1000), F32[(rnd(k + 77) % 8) as usize]]
        })
        .collect();
    let ops = [
        (Op::VDot4F32Fp8Bf8, "v_dot4_f32_fp8_bf8", false, true),
        (Op::VDot4F32Bf8Fp8, "v_dot4_f32_bf8_fp8", true, false),
        (Op::VDot4F32Fp8Fp8, "v_dot4_f32_fp8_fp8", false, false),
        (Op::VDot4F32Bf8Bf8, "v_dot4_f32_bf8_bf8", true, true),
    ];
    for (op, name, abf, bbf) in ops {
        let targets = targets_with(op);
        assert!(!targets.is_empty());
        for (t, wave) in targets {
            for (mods, neg, abs) in [
                ("", false, false),
                (" neg_lo:[0,0,1] neg_hi:[0,0,1]", true, true),
            ] {
                let src = format!("{name} v10, v0, v1, v2{mods}");
                sweep(
                    t,
                    wave,
                    &src,
                    0xf0,
                    &cases,
                    |w, l, c| {
                        for (k, &x) in c.iter().enumerate() {
                            w.set_vgpr(k, l, x);
                        }
                    },
                    |w, l, &[a, b, c], ctx| {
                        let mut acc = f32::from_bits(c);
                        if abs {
                            acc = acc.abs();
                        }
                        if neg {
                            acc = -acc;
                        }
                        let mut tmp = ftz(acc);
                        for k in 0..4 {
                            let x = ocp8(a >> (8 * k) & 0xff, abf) as f32;
                            let y = ocp8(b >> (8 * k) & 0xff, bbf) as f32;
                            tmp += x * y;
                        }
                        let want = ftz(tmp);
                        assert!(
                            same(w.vgpr(10, l), want),
                            "{ctx} `{src}` {a:#x} {b:#x} {c:#x}: {:#x} want {:#x}",
                            w.vgpr(10, l),
                            want.to_bits()
                        );
                    },
                );
            }
        }
    }
}

/// bf16 format for the exact reference.
const BF16: Fmt = Fmt { m: 7, e: 8 };

#[test]
fn dot2_f16_f16_and_bf16_bf16_gfx12() {
    let cases = f16_cases();
    for (op, name, fmt, bf16) in [
        (Op::VDot2F16F16, "v_dot2_f16_f16", H, false),
        (Op::VDot2Bf16Bf16, "v_dot2_bf16_bf16", BF16, true),
    ] {
        let targets = targets_with(op);
        assert!(!targets.is_empty());
        for (t, wave) in targets {
            // S2 from the high half, the result into the high half (the low one kept).
            let src = format!("{name} v10.h, v0, v1, v2.h");
            sweep(
                t,
                wave,
                &src,
                0xf0,
                &cases,
                |w, l, c| {
                    for (k, &x) in c.iter().enumerate() {
                        w.set_vgpr(k, l, x);
                    }
                    w.set_vgpr(10, l, 0x1234_5678);
                },
                |w, l, &[a, b, c], ctx| {
                    // Each operation rounded to nearest even in the 16-bit format; bf16
                    // flushes denormals (operands and every result).
                    let fl = |x: u64| if bf16 { ftzb(x as u32) as u64 } else { x };
                    let fin = |x: u64| fmt.inf(x) || fmt.nan(x);
                    let mut t = fl(u64::from(c >> 16));
                    let mut nan = false;
                    for sh in [0, 16] {
                        let (x, y) = (
                            fl(u64::from((a >> sh) & 0xffff)),
                            fl(u64::from((b >> sh) & 0xffff)),
                        );
                        if fin(x) || fin(y) || fin(t) {
                            nan = true;
                            break;
                        }
                        let p = fl(roundx(mulx(val(x, fmt), val(y, fmt)), fmt, Rm::Ne));
                        if fin(p) {
                            nan = true;
                            break;
                        }
                        t = fl(roundx(addx(val(t, fmt), val(p, fmt), Rm::Ne), fmt, Rm::Ne));
                    }
                    let got = w.vgpr(10, l);
                    assert_eq!(got & 0xffff, 0x5678, "{ctx} `{src}`: low half kept");
                    if !nan {
                        assert_eq!(
                            u64::from(got >> 16),
                            t,
                            "{ctx} `{src}` {a:#x} {b:#x} {c:#x}"
                        );
                    }
                },
            );
        }
    }
}

#[test]
fn vopd_dot2acc_gfx12() {
    let cases = f16_cases();
    for t in [Target::Gfx1200, Target::Gfx1201] {
        let src = "v_dual_dot2acc_f32_f16 v2, v0, v1 :: v_dual_mov_b32 v3, v5";
        sweep(
            t,
            32,
            src,
            0xf0,
            &cases,
            |w, l, c| {
                for (k, &x) in c.iter().enumerate() {
                    w.set_vgpr(k, l, x);
                }
                w.set_vgpr(5, l, c[0]);
            },
            |w, l, &[a, b, c], ctx| {
                let p = |sh: u32| h2f(ftz16((a >> sh) & 0xffff)) * h2f(ftz16((b >> sh) & 0xffff));
                let want = ftz((ftz(f32::from_bits(c)) + p(0)) + p(16));
                assert!(same(w.vgpr(2, l), want), "{ctx} {a:#x} {b:#x} {c:#x}");
                assert_eq!(w.vgpr(3, l), a, "{ctx}: the Y half");
            },
        );
    }
}

/// Inline float constants in packed 16-bit float sources are the operand type's values:
/// "for F16 instructions: corresponding half-precision float values in the LSBs, 0 in the
/// MSBs" (LLVM 22 `AMDGPUBaseInfo.cpp`, `getInlineEncodingV216`), the bf16 values for BF16
/// instructions (`getInlineEncodingV2BF16`: 1.0 is 0x3F80). The executor read the f32
/// pattern in the VOP2 `v_dot2c_f32_f16` (low half 0) and the f16 one for the bf16 dot
/// (0x3C00 read as bf16 is 0.0078125).
#[test]
fn dot_inline_float_constants_follow_the_operand_type() {
    // (LLVM spelling, f16 value, bf16 value).
    const K: [(&str, u32, u32); 9] = [
        ("0.5", 0x3800, 0x3f00),
        ("-0.5", 0xb800, 0xbf00),
        ("1.0", 0x3c00, 0x3f80),
        ("-1.0", 0xbc00, 0xbf80),
        ("2.0", 0x4000, 0x4000),
        ("-2.0", 0xc000, 0xc000),
        ("4.0", 0x4400, 0x4080),
        ("-4.0", 0xc400, 0xc080),
        ("0.15915494", 0x3118, 0x3e22),
    ];
    let cases: Vec<[u32; 2]> = (0..64)
        .map(|k| {
            [
                pick16(k) | pick16(k + 3) << 16,
                F32[(rnd(7 * k) % 8) as usize],
            ]
        })
        .collect();
    let bfcases: Vec<[u32; 2]> = cases
        .iter()
        .map(|&[b, c]| [b & 0x7fff_7fff | 0x3f00_3e00, c])
        .collect();
    let mut ran = 0;
    for (name, kh, kb) in K {
        // VOP2: D = D + dot(K, S1); the constant's high element is +0.
        for (t, wave) in targets_with(Op::VDot2cF32F16) {
            let src = format!("v_dot2c_f32_f16_e32 v2, {name}, v1");
            sweep(
                t,
                wave,
                &src,
                0xf0,
                &cases,
                |w, l, &[b, c]| {
                    w.set_vgpr(1, l, b);
                    w.set_vgpr(2, l, c);
                },
                |w, l, &[b, c], ctx| {
                    let p = |x: u32, y: u32| h2f(ftz16(x)) * h2f(ftz16(y & 0xffff));
                    let want = ftz((ftz(f32::from_bits(c)) + p(kh, b)) + p(0, b >> 16));
                    assert!(
                        same(w.vgpr(2, l), want),
                        "{ctx} `{src}` {b:#x} {c:#x}: {:#x} want {:#x}",
                        w.vgpr(2, l),
                        want.to_bits()
                    );
                },
            );
            ran += 1;
        }
        // VOP3P bf16: S0 = K (op_sel_hi 1: the high element reads the constant's +0 half).
        for (t, wave) in targets_with(Op::VDot2F32Bf16) {
            let gfx12 = t.family() == Family::Gfx12;
            let src = format!("v_dot2_f32_bf16 v10, {name}, v1, v2");
            sweep(
                t,
                wave,
                &src,
                0xf0,
                &bfcases,
                |w, l, &[b, c]| {
                    w.set_vgpr(1, l, b);
                    w.set_vgpr(2, l, c);
                },
                |w, l, &[b, c], ctx| {
                    let p = |x: u32, y: u32| bf(ftzb(x)) * bf(ftzb(y & 0xffff));
                    let (p0, p1, s2) = (p(kb, b), p(0, b >> 16), ftz(f32::from_bits(c)));
                    let want = ftz(if gfx12 {
                        (s2 + p0) + p1
                    } else {
                        (p0 + p1) + s2
                    });
                    assert!(
                        same(w.vgpr(10, l), want),
                        "{ctx} `{src}` {b:#x} {c:#x}: {:#x} want {:#x}",
                        w.vgpr(10, l),
                        want.to_bits()
                    );
                },
            );
            ran += 1;
        }
    }
    assert!(ran >= 9 * 3, "ran {ran}");
}
