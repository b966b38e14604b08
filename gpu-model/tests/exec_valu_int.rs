//! Integer VALU operations, assembled by llvm-mc-22 and run in the executor, against
//! references written from the CDNA4 / RDNA4 ISA guides' pseudocode: the 16-bit
//! multiply-adds and adds (`v_mad_u16/i16`, `_legacy`, `v_mad_u32_u16/i32_i16`,
//! `v_add/sub_i16`, GFX12 `v_add/sub_nc_*`), `v_add/sub_i32`, the packed 16-bit integer
//! operations (`v_pk_add/sub/mad/min/max/*sh*_*16`), the 3-operand 16-bit and GFX12
//! `v_minmax/maxmin` integer forms, GFX12 bitwise 16-bit operations, `v_cvt_pk_*16_*32`,
//! `v_sat_pk_u8_i16`, and gfx950's `v_bitop3_b16/b32` and `v_ashr_pk_*_i32`. (Sums of
//! absolute differences: `exec_valu_sad.rs`.)
//!
//! Clamp on an integer operation saturates to the result's range ("it clamps the result to
//! the largest and smallest representable value", CDNA4 guide 6.5).

#[path = "exec_util/asm.rs"]
mod asm;
#[path = "exec_util/sweep.rs"]
mod sweep;

use gpu_model::exec::Wave;
use gpu_model::isa::Op;
use gpu_model::{Family, Target};
use sweep::{rnd, sweep, targets_with};

/// Interesting 32-bit values: zeros, all-ones, signs, byte and short patterns, randoms.
fn words() -> Vec<u32> {
    let mut v = vec![
        0,
        0xffff_ffff,
        0x8000_0000,
        0x7fff_ffff,
        0x0000_ffff,
        0xffff_0000,
        0x8000_8000,
        0x7fff_7fff,
        0x0101_0101,
        0xff00_ff00,
        0x00ff_00ff,
        0x1234_5678,
    ];
    v.extend((0..20).map(rnd));
    v
}

fn set3(w: &mut Wave, l: usize, c: &[u32; 3]) {
    for (k, &x) in c.iter().enumerate() {
        w.set_vgpr(k, l, x);
    }
}

/// The 16-bit operands of a case: shorts with signs and extremes.
fn shorts() -> Vec<u32> {
    let mut v = vec![
        0, 1, 0xffff, 0x8000, 0x7fff, 0x00ff, 0xff00, 0x1234, 0x8001, 0x4000,
    ];
    v.extend((0..8).map(|k| rnd(k + 99) & 0xffff));
    v
}

fn s16(x: u32) -> i64 {
    x as u16 as i16 as i64
}

fn fit16(v: i64, signed: bool, clamp: bool) -> u32 {
    match (clamp, signed) {
        (false, _) => v as u32 & 0xffff,
        (true, true) => v.clamp(-32768, 32767) as u32 & 0xffff,
        (true, false) => v.clamp(0, 65535) as u32,
    }
}

#[test]
fn mad_and_add_16bit() {
    let sh = shorts();
    // Operands in both halves (the low half used unless op_sel says otherwise).
    let cases: Vec<[u32; 3]> = sweep::triples(&sh)
        .into_iter()
        .enumerate()
        .map(|(k, [a, b, c])| {
            [
                a | (rnd(k as u32) << 16),
                b << 16 | (a ^ 0x5555),
                c | 0xdead_0000,
            ]
        })
        .collect();
    // (op, gfx9 name, gfx12 name, signed, mad, sub, zeroes the high half on gfx9).
    let ops: [(Op, &str, &str, bool, bool, bool, bool); 10] = [
        (
            Op::VMadU16,
            "v_mad_u16",
            "v_mad_u16",
            false,
            true,
            false,
            false,
        ),
        (
            Op::VMadI16,
            "v_mad_i16",
            "v_mad_i16",
            true,
            true,
            false,
            false,
        ),
        (
            Op::VMadLegacyU16,
            "v_mad_legacy_u16",
            "",
            false,
            true,
            false,
            true,
        ),
        (
            Op::VMadLegacyI16,
            "v_mad_legacy_i16",
            "",
            true,
            true,
            false,
            true,
        ),
        (Op::VAddI16, "v_add_i16", "", true, false, false, false),
        (Op::VSubI16, "v_sub_i16", "", true, false, true, false),
        (Op::VAddNcI16, "", "v_add_nc_i16", true, false, false, false),
        (Op::VSubNcI16, "", "v_sub_nc_i16", true, false, true, false),
        (
            Op::VAddNcU16,
            "",
            "v_add_nc_u16",
            false,
            false,
            false,
            false,
        ),
        (Op::VSubNcU16, "", "v_sub_nc_u16", false, false, true, false),
    ];
    for (op, n9, n12, signed, mad, sub, zero_hi) in ops {
        for (t, wave) in targets_with(op) {
            let gfx12 = t.family() == Family::Gfx12;
            let name = if gfx12 { n12 } else { n9 };
            for clamp in [false, true] {
                for hi in [false, true] {
                    // hi: src1 from its high half, the result into the high half.
                    if hi && (zero_hi && !gfx12) {
                        continue;
                    }
                    let cl = if clamp { " clamp" } else { "" };
                    let src = match (gfx12, mad, hi) {
                        (true, true, false) => format!("{name} v10.l, v0.l, v1.l, v2.l{cl}"),
                        (true, true, true) => format!("{name} v10.h, v0.l, v1.h, v2.l{cl}"),
                        (true, false, false) => format!("{name} v10.l, v0.l, v1.l{cl}"),
                        (true, false, true) => format!("{name} v10.h, v0.l, v1.h{cl}"),
                        (false, true, false) => format!("{name} v10, v0, v1, v2{cl}"),
                        (false, true, true) => {
                            format!("{name} v10, v0, v1, v2 op_sel:[0,1,0,1]{cl}")
                        }
                        (false, false, false) => format!("{name} v10, v0, v1{cl}"),
                        (false, false, true) => format!("{name} v10, v0, v1 op_sel:[0,1,1]{cl}"),
                    };
                    let old = 0xabcd_1234u32;
                    sweep(
                        t,
                        wave,
                        &src,
                        0xf0,
                        &cases,
                        |w, l, c| {
                            set3(w, l, c);
                            w.set_vgpr(10, l, old);
                        },
                        |w, l, &[a, b, c], ctx| {
                            let k = |x: u32| if signed { s16(x) } else { (x & 0xffff) as i64 };
                            let (x, y, z) = (k(a), k(if hi { b >> 16 } else { b }), k(c));
                            let v = if mad {
                                x * y + z
                            } else if sub {
                                x - y
                            } else {
                                x + y
                            };
                            let r = fit16(v, signed, clamp);
                            let want = match (hi, zero_hi && !gfx12) {
                                (true, _) => (old & 0xffff) | r << 16,
                                (false, true) => r,
                                (false, false) => (old & 0xffff_0000) | r,
                            };
                            assert_eq!(w.vgpr(10, l), want, "{ctx} `{src}` {a:#x} {b:#x} {c:#x}");
                        },
                    );
                }
            }
        }
    }
}

#[test]
fn mad_u32_u16_i32_i16_op_sel() {
    let cases = sweep::triples(&words());
    for (op, name, signed) in [
        (Op::VMadU32U16, "v_mad_u32_u16", false),
        (Op::VMadI32I16, "v_mad_i32_i16", true),
    ] {
        for (t, wave) in targets_with(op) {
            let gfx12 = t.family() == Family::Gfx12;
            for clamp in [false, true] {
                let cl = if clamp { " clamp" } else { "" };
                // S0 from its high half.
                let src = if gfx12 {
                    format!("{name} v10, v0.h, v1.l, v2{cl}")
                } else {
                    format!("{name} v10, v0, v1, v2 op_sel:[1,0,0,0]{cl}")
                };
                sweep(
                    t,
                    wave,
                    &src,
                    0xf0,
                    &cases,
                    set3,
                    |w, l, &[a, b, c], ctx| {
                        let k = |x: u32| if signed { s16(x) } else { (x & 0xffff) as i64 };
                        let acc = if signed { c as i32 as i64 } else { c as i64 };
                        let v = k(a >> 16) * k(b) + acc;
                        let want = match (clamp, signed) {
                            (false, _) => v as u32,
                            (true, true) => v.clamp(i32::MIN as i64, i32::MAX as i64) as u32,
                            (true, false) => v.clamp(0, u32::MAX as i64) as u32,
                        };
                        assert_eq!(w.vgpr(10, l), want, "{ctx} `{src}` {a:#x} {b:#x} {c:#x}");
                    },
                );
            }
        }
    }
}

#[test]
fn add_sub_i32() {
    let cases = sweep::pairs(&words());
    for (op, name, sub) in [
        (Op::VAddI32, "v_add_i32", false),
        (Op::VSubI32, "v_sub_i32", true),
        (Op::VAddNcI32, "v_add_nc_i32", false),
        (Op::VSubNcI32, "v_sub_nc_i32", true),
    ] {
        for (t, wave) in targets_with(op) {
            for clamp in [false, true] {
                let src = format!("{name} v10, v0, v1{}", if clamp { " clamp" } else { "" });
                sweep(
                    t,
                    wave,
                    &src,
                    0xf0,
                    &cases,
                    |w, l, c| {
                        w.set_vgpr(0, l, c[0]);
                        w.set_vgpr(1, l, c[1]);
                    },
                    |w, l, &[a, b], ctx| {
                        let (x, y) = (a as i32 as i64, b as i32 as i64);
                        let v = if sub { x - y } else { x + y };
                        let want = if clamp {
                            v.clamp(i32::MIN as i64, i32::MAX as i64) as u32
                        } else {
                            v as u32
                        };
                        assert_eq!(w.vgpr(10, l), want, "{ctx} `{src}` {a:#x} {b:#x}");
                    },
                );
            }
        }
    }
}

/// `v_ffbh_u32`/`v_clz_i32_u32`, `v_ffbl_b32`/`v_ctz_i32_b32`, `v_ffbh_i32`/`v_cls_i32`,
/// from the CDNA3/RDNA4 pseudocode loops (the sign form: `D = -1; for i in 1..31: if
/// S0[31 - i] != S0[31] { D = i; break }`), plus the guides' own examples
/// (`V_CLS_I32(0x0000cccc) = 16`, `(0xffff3333) = 16`, `(0x7fffffff) = 1`,
/// `(0x80000000) = 1`, `(0) = (0xffffffff) = -1`).
#[test]
fn bit_scans() {
    let mut xs = words();
    xs.extend([
        0x0000_cccc,
        0xffff_3333,
        1,
        2,
        0xffff_fffe,
        0x4000_0000,
        0xbfff_ffff,
    ]);
    let cases: Vec<u32> = xs;
    let msb = |a: u32| -> u32 {
        (0..32)
            .find(|&i| a >> (31 - i) & 1 != 0)
            .unwrap_or(u32::MAX)
    };
    let lsb = |a: u32| -> u32 { (0..32).find(|&i| a >> i & 1 != 0).unwrap_or(u32::MAX) };
    let sign = |a: u32| -> u32 {
        (1..32)
            .find(|&i| a >> (31 - i) & 1 != a >> 31)
            .unwrap_or(u32::MAX)
    };
    for (a, want) in [
        (0x0000_cccc, 16),
        (0xffff_3333, 16),
        (0x7fff_ffff, 1),
        (0x8000_0000, 1),
        (0, u32::MAX),
        (u32::MAX, u32::MAX),
    ] {
        assert_eq!(sign(a), want, "reference vs the guide's example {a:#x}");
    }
    type Reference = fn(u32) -> u32;
    let refs: [(Op, &str, Reference); 6] = [
        (Op::VFfbhU32, "v_ffbh_u32", msb),
        (Op::VClzI32U32, "v_clz_i32_u32", msb),
        (Op::VFfblB32, "v_ffbl_b32", lsb),
        (Op::VCtzI32B32, "v_ctz_i32_b32", lsb),
        (Op::VFfbhI32, "v_ffbh_i32", sign),
        (Op::VClsI32, "v_cls_i32", sign),
    ];
    for (op, name, reference) in refs {
        for (t, wave) in targets_with(op) {
            let src = format!("{name} v10, v0");
            sweep(
                t,
                wave,
                &src,
                0xf0,
                &cases,
                |w, l, &a| w.set_vgpr(0, l, a),
                |w, l, &a, ctx| {
                    assert_eq!(w.vgpr(10, l), reference(a), "{ctx} `{src}` {a:#x}");
                },
            );
        }
    }
}

#[test]
fn packed_16bit_integers() {
    let sh = shorts();
    let cases: Vec<[u32; 3]> = (0..256)
        .map(|k| {
            let s = |j: u32| sh[(rnd(j) % sh.len() as u32) as usize];
            [
                s(3 * k) | s(3 * k + 1) << 16,
                s(5 * k + 2) | s(7 * k) << 16,
                s(k + 9) | s(k + 13) << 16,
            ]
        })
        .collect();
    type F = fn([i64; 3]) -> i64;
    // (op, name, signed, sources, saturates with clamp, per-half reference).
    let ops: [(Op, &str, bool, usize, bool, F); 14] = [
        (Op::VPkAddU16, "v_pk_add_u16", false, 2, true, |[a, b, _]| {
            a + b
        }),
        (Op::VPkSubU16, "v_pk_sub_u16", false, 2, true, |[a, b, _]| {
            a - b
        }),
        (Op::VPkAddI16, "v_pk_add_i16", true, 2, true, |[a, b, _]| {
            a + b
        }),
        (Op::VPkSubI16, "v_pk_sub_i16", true, 2, true, |[a, b, _]| {
            a - b
        }),
        (
            Op::VPkMulLoU16,
            "v_pk_mul_lo_u16",
            false,
            2,
            false,
            |[a, b, _]| (a * b) & 0xffff,
        ),
        (Op::VPkMadU16, "v_pk_mad_u16", false, 3, true, |[a, b, c]| {
            a * b + c
        }),
        (Op::VPkMadI16, "v_pk_mad_i16", true, 3, true, |[a, b, c]| {
            a * b + c
        }),
        (
            Op::VPkMinU16,
            "v_pk_min_u16",
            false,
            2,
            false,
            |[a, b, _]| a.min(b),
        ),
        (
            Op::VPkMaxU16,
            "v_pk_max_u16",
            false,
            2,
            false,
            |[a, b, _]| a.max(b),
        ),
        (Op::VPkMinI16, "v_pk_min_i16", true, 2, false, |[a, b, _]| {
            a.min(b)
        }),
        (Op::VPkMaxI16, "v_pk_max_i16", true, 2, false, |[a, b, _]| {
            a.max(b)
        }),
        (
            Op::VPkLshlrevB16,
            "v_pk_lshlrev_b16",
            false,
            2,
            false,
            |[a, b, _]| (b << (a & 15)) & 0xffff,
        ),
        (
            Op::VPkLshrrevB16,
            "v_pk_lshrrev_b16",
            false,
            2,
            false,
            |[a, b, _]| b >> (a & 15),
        ),
        (
            Op::VPkAshrrevI16,
            "v_pk_ashrrev_i16",
            true,
            2,
            false,
            |[a, b, _]| b >> (a & 15),
        ),
    ];
    for (op, name, signed, n, sat, f) in ops {
        for (t, wave) in targets_with(op) {
            // (op_sel, op_sel_hi, clamp).
            for (os, osh, clamp) in [
                (0u32, 7u32, false),
                (1, 2, false),
                (6, 1, true),
                (0, 7, true),
            ] {
                let arr = |v: u32| {
                    (0..n)
                        .map(|k| ((v >> k) & 1).to_string())
                        .collect::<Vec<_>>()
                        .join(",")
                };
                let srcs = if n == 3 { "v0, v1, v2" } else { "v0, v1" };
                let src = format!(
                    "{name} v10, {srcs} op_sel:[{}] op_sel_hi:[{}]{}",
                    arr(os),
                    arr(osh),
                    if clamp { " clamp" } else { "" }
                );
                sweep(t, wave, &src, 0xf0, &cases, set3, |w, l, c, ctx| {
                    let want = (0..2).fold(0, |r, h| {
                        let sel = if h == 0 { os } else { osh };
                        let args: [i64; 3] = std::array::from_fn(|k| {
                            let x = (c[k] >> (16 * (sel >> k & 1))) & 0xffff;
                            if signed {
                                s16(x)
                            } else {
                                x as i64
                            }
                        });
                        r | fit16(f(args), signed, clamp && sat) << (16 * h)
                    });
                    assert_eq!(w.vgpr(10, l), want, "{ctx} `{src}` {:x?}", c);
                });
            }
        }
    }
}

#[test]
fn three_operand_integer_min_max() {
    let sh = shorts();
    let cases16: Vec<[u32; 3]> = sweep::triples(&sh)
        .into_iter()
        .map(|[a, b, c]| [a | 0x7777_0000, b << 16 | 0x1111, c | 0x8888_0000])
        .collect();
    type F = fn(i64, i64, i64) -> i64;
    let med: F = |a, b, c| a.min(b).max(a.max(b).min(c));
    let ops16: [(Op, &str, bool, F); 6] = [
        (Op::VMin3I16, "v_min3_i16", true, |a, b, c| a.min(b).min(c)),
        (Op::VMax3I16, "v_max3_i16", true, |a, b, c| a.max(b).max(c)),
        (Op::VMed3I16, "v_med3_i16", true, med),
        (Op::VMin3U16, "v_min3_u16", false, |a, b, c| a.min(b).min(c)),
        (Op::VMax3U16, "v_max3_u16", false, |a, b, c| a.max(b).max(c)),
        (Op::VMed3U16, "v_med3_u16", false, med),
    ];
    for (op, name, signed, f) in ops16 {
        for (t, wave) in targets_with(op) {
            let gfx12 = t.family() == Family::Gfx12;
            // S1 from its high half; the result into the high half, the low one kept.
            let src = if gfx12 {
                format!("{name} v10.h, v0.l, v1.h, v2.l")
            } else {
                format!("{name} v10, v0, v1, v2 op_sel:[0,1,0,1]")
            };
            sweep(
                t,
                wave,
                &src,
                0xf0,
                &cases16,
                |w, l, c| {
                    set3(w, l, c);
                    w.set_vgpr(10, l, 0x5a5a_a5a5);
                },
                |w, l, &[a, b, c], ctx| {
                    let k = |x: u32| if signed { s16(x) } else { (x & 0xffff) as i64 };
                    let r = f(k(a), k(b >> 16), k(c)) as u32 & 0xffff;
                    assert_eq!(
                        w.vgpr(10, l),
                        0xa5a5 | r << 16,
                        "{ctx} `{src}` {a:#x} {b:#x} {c:#x}"
                    );
                },
            );
        }
    }
    let cases = sweep::triples(&words());
    let ops32: [(Op, &str, bool, F); 4] = [
        (Op::VMinmaxI32, "v_minmax_i32", true, |a, b, c| {
            a.min(b).max(c)
        }),
        (Op::VMaxminI32, "v_maxmin_i32", true, |a, b, c| {
            a.max(b).min(c)
        }),
        (Op::VMinmaxU32, "v_minmax_u32", false, |a, b, c| {
            a.min(b).max(c)
        }),
        (Op::VMaxminU32, "v_maxmin_u32", false, |a, b, c| {
            a.max(b).min(c)
        }),
    ];
    for (op, name, signed, f) in ops32 {
        for (t, wave) in targets_with(op) {
            let src = format!("{name} v10, v0, v1, v2");
            sweep(
                t,
                wave,
                &src,
                0xf0,
                &cases,
                set3,
                |w, l, &[a, b, c], ctx| {
                    let k = |x: u32| if signed { x as i32 as i64 } else { x as i64 };
                    assert_eq!(w.vgpr(10, l), f(k(a), k(b), k(c)) as u32, "{ctx} `{src}`");
                },
            );
        }
    }
}

#[test]
fn gfx12_16bit_bitwise_moves_and_conversions() {
    let cases = sweep::triples(&words());
    for t in [Target::Gfx1200, Target::Gfx1201] {
        for wave in [32, 64] {
            let vcc = if wave == 32 { "vcc_lo" } else { "vcc" };
            let src = format!(
                "v_and_b16 v10.l, v0.l, v1.h\n\
                 v_or_b16 v10.h, v0.h, v1.l\n\
                 v_xor_b16 v11.l, v0.l, v2.l\n\
                 v_not_b16 v11.h, v2.h\n\
                 v_mov_b16 v12.l, v1.h\n\
                 v_mov_b16_e64 v12.h, v0.l\n\
                 v_cvt_i32_i16 v13, v0.h\n\
                 v_cvt_u32_u16 v14, v1.l\n\
                 v_cndmask_b16 v15.l, v0.l, v1.h, {vcc}\n\
                 v_cndmask_b16 v15.h, -v0.h, |v1.l|, {vcc}\n\
                 v_swap_b16 v3.l, v4.h"
            );
            sweep(
                t,
                wave,
                &src,
                0xf0,
                &cases,
                |w, l, c| {
                    set3(w, l, c);
                    w.set_vgpr(3, l, c[2].rotate_left(3));
                    w.set_vgpr(4, l, c[0].rotate_left(11));
                    // VCC: every third lane.
                    let m = (0..64).filter(|k| k % 3 == 0).fold(0u64, |m, k| m | 1 << k);
                    w.set_sgpr(106, m as u32);
                    w.set_sgpr(107, (m >> 32) as u32);
                },
                |w, l, &[a, b, c], ctx| {
                    let lo = |x: u32| x & 0xffff;
                    let hi = |x: u32| x >> 16;
                    let pair = |l16: u32, h16: u32| l16 | h16 << 16;
                    assert_eq!(
                        w.vgpr(10, l),
                        pair(lo(a) & hi(b), hi(a) | lo(b)),
                        "{ctx} and/or"
                    );
                    assert_eq!(
                        w.vgpr(11, l),
                        pair(lo(a) ^ lo(c), !hi(c) & 0xffff),
                        "{ctx} xor/not"
                    );
                    assert_eq!(w.vgpr(12, l), pair(hi(b), lo(a)), "{ctx} mov_b16");
                    assert_eq!(
                        w.vgpr(13, l),
                        hi(a) as u16 as i16 as i32 as u32,
                        "{ctx} cvt_i32_i16"
                    );
                    assert_eq!(w.vgpr(14, l), lo(b), "{ctx} cvt_u32_u16");
                    let sel = l % 3 == 0;
                    let want = pair(
                        if sel { hi(b) } else { lo(a) },
                        if sel { lo(b) & 0x7fff } else { hi(a) ^ 0x8000 },
                    );
                    assert_eq!(w.vgpr(15, l), want, "{ctx} cndmask_b16 {a:#x} {b:#x}");
                    let (v3, v4) = (c.rotate_left(3), a.rotate_left(11));
                    assert_eq!(
                        w.vgpr(3, l),
                        (v3 & 0xffff_0000) | hi(v4),
                        "{ctx} swap_b16 v3"
                    );
                    assert_eq!(
                        w.vgpr(4, l),
                        (v4 & 0xffff) | lo(v3) << 16,
                        "{ctx} swap_b16 v4"
                    );
                },
            );
        }
    }
}

#[test]
fn pack_and_saturate() {
    let cases = sweep::pairs(&words());
    for (t, wave) in targets_with(Op::VCvtPkU16U32) {
        let gfx12 = t.family() == Family::Gfx12;
        let dst = if gfx12 { "v12.l" } else { "v12" };
        let src = format!(
            "v_cvt_pk_u16_u32 v10, v0, v1\n\
             v_cvt_pk_i16_i32 v11, v0, v1\n\
             v_sat_pk_u8_i16 {dst}, v0"
        );
        sweep(
            t,
            wave,
            &src,
            0xf0,
            &cases,
            |w, l, c| {
                w.set_vgpr(0, l, c[0]);
                w.set_vgpr(1, l, c[1]);
                w.set_vgpr(12, l, 0xbeef_0000);
            },
            |w, l, &[a, b], ctx| {
                let u = |x: u32| x.min(0xffff);
                let i = |x: u32| (x as i32).clamp(-32768, 32767) as u32 & 0xffff;
                assert_eq!(w.vgpr(10, l), u(a) | u(b) << 16, "{ctx} cvt_pk_u16_u32");
                assert_eq!(w.vgpr(11, l), i(a) | i(b) << 16, "{ctx} cvt_pk_i16_i32");
                let s8 = |x: u32| (x as u16 as i16).clamp(0, 255) as u32;
                let r = s8(a) | s8(a >> 16) << 8;
                // GFX9 (a GFX8-era-style VOP1 16-bit result) zeroes the high half; GFX12
                // true16 keeps it.
                let want = if gfx12 { 0xbeef_0000 | r } else { r };
                assert_eq!(w.vgpr(12, l), want, "{ctx} sat_pk_u8_i16 {a:#x}");
            },
        );
    }
}

/// The bitop3 reference: bit k of the result is bit {a[k], b[k], c[k]} of the table.
fn bitop3(t: u32, a: u32, b: u32, c: u32) -> u32 {
    (0..32).fold(0, |r, k| {
        let idx = (a >> k & 1) << 2 | (b >> k & 1) << 1 | (c >> k & 1);
        r | (t >> idx & 1) << k
    })
}

#[test]
fn gfx950_bitop3_and_ashr_pk() {
    let cases = sweep::triples(&words());
    let t = Target::Gfx950;
    for table in [0x00u32, 0xff, 0x96, 0xe8, 0x80, 0x01, 0x5a, 0xca] {
        let src = format!(
            "v_bitop3_b32 v10, v0, v1, v2 bitop3:{table:#x}\n\
             v_bitop3_b16 v11, v0, v1, v2 bitop3:{table:#x} op_sel:[1,0,0,1]"
        );
        sweep(
            t,
            64,
            &src,
            0xf0,
            &cases,
            |w, l, c| {
                set3(w, l, c);
                w.set_vgpr(11, l, 0x1357_9bdf);
            },
            |w, l, &[a, b, c], ctx| {
                assert_eq!(
                    w.vgpr(10, l),
                    bitop3(table, a, b, c),
                    "{ctx} bitop3_b32 {table:#x}"
                );
                let r = bitop3(table, a >> 16, b, c) & 0xffff;
                assert_eq!(
                    w.vgpr(11, l),
                    0x9bdf | r << 16,
                    "{ctx} bitop3_b16 {table:#x}"
                );
            },
        );
    }
    let shifts: Vec<[u32; 3]> = sweep::pairs(&words())
        .into_iter()
        .enumerate()
        .map(|(k, [a, b])| [a, b, rnd(k as u32) & 0x3f])
        .collect();
    let src = "v_ashr_pk_i8_i32 v10, v0, v1, v2\nv_ashr_pk_u8_i32 v11, v0, v1, v2";
    sweep(
        t,
        64,
        src,
        0xf0,
        &shifts,
        |w, l, c| {
            set3(w, l, c);
            w.set_vgpr(10, l, 0xaaaa_0000);
            w.set_vgpr(11, l, 0xbbbb_0000);
        },
        |w, l, &[a, b, c], ctx| {
            let sh = c & 31;
            let i8s = |x: u32| ((x as i32) >> sh).clamp(-128, 127) as u32 & 0xff;
            let u8s = |x: u32| ((x as i32) >> sh).clamp(0, 255) as u32;
            assert_eq!(
                w.vgpr(10, l),
                0xaaaa_0000 | i8s(a) | i8s(b) << 8,
                "{ctx} ashr_pk_i8 {a:#x} {b:#x} {c}"
            );
            assert_eq!(
                w.vgpr(11, l),
                0xbbbb_0000 | u8s(a) | u8s(b) << 8,
                "{ctx} ashr_pk_u8"
            );
        },
    );
}
