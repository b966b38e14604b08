//! f16 operations added to the executor, assembled by llvm-mc-22 and run, against
//! references written from the CDNA4 / RDNA4 ISA guides' pseudocode and IEEE 754
//! rounding (the exact reference of `exec_util/fref.rs`), in every MODE rounding direction
//! and denormal setting of the f16 fields (MODE[3:2], MODE[7:6]):
//!
//! ```text
//! V_MAD_F16 / V_MAD_LEGACY_F16 / V_MAC_F16 / V_MADMK_F16 / V_MADAK_F16:
//!     S0.f16 * S1.f16 + S2.f16 (the product rounded to f16, then the sum)
//! V_FMA_LEGACY_F16, GFX12 V_FMAC_F16 / V_FMAMK_F16 / V_FMAAK_F16, V_PK_FMAC_F16: fma
//! V_FRACT_F16:  S0 + -floor(S0) (one rounding), below 1.0
//! V_DIV_FIXUP_F16: the division corner cases of S2 / S1, else sign-fixed |S0|
//! V_FREXP_MANT_F16 / V_FREXP_EXP_I16_F16: frexp(); +-INF and NaN give S0 and 0
//! V_CVT_NORM_I16_F16 / _U16_: f16_to_snorm / f16_to_unorm
//! V_SIN_F16 / V_COS_F16: sin/cos(S0 * 2 pi), the guide's special values exact
//! GFX12 V_S_EXP/LOG/RCP/RSQ/SQRT_F16: D0.f16 = f(S0.f16); D0[31:16] = 0
//! ```
//!
//! High halves: GFX9 zeroes them for the GFX8-era operations and the `_legacy` forms
//! (`D0 = { 16'0, tmp }`), keeps them for the gfx9 op_sel operations (`v_mad_f16`,
//! `v_div_fixup_f16`); GFX12 keeps them (true16).

#[path = "exec_util/asm.rs"]
mod asm;
#[path = "exec_util/fref.rs"]
mod fref;
#[path = "exec_util/sweep.rs"]
mod sweep;

use fref::{addx, as_f64, flush, mulx, rm, roundx, val, Ex, Rm, H};
use gpu_model::isa::Op;
use gpu_model::{Family, Target};
use sweep::{rnd, sweep, targets_with};

/// Finite f16 operands whose products stay finite: zeros, denormals, small and large
/// values, both signs.
const A16: [u32; 14] = [
    0x0000, 0x8000, 0x0001, 0x83ff, 0x3c00, 0xbc00, 0x3555, 0xc248, 0x5a00, 0xd640, 0x0400, 0x2e66,
    0x1001, 0x3bff,
];

/// Addends: the operands and the largest finite values (overflow by direction).
const C16: [u32; 4] = [0x7bff, 0xfbff, 0x0200, 0x8001];

/// MODE values: the default, flush everything, each f16 rounding direction, and the
/// mixed denormal settings of the f16 field.
const MODES: [u32; 7] = [0xf0, 0x00, 0xf4, 0xf8, 0xfc, 0x70, 0xb0];

/// The exact value of a finite f64.
fn ex64(x: f64) -> Ex {
    val(x.to_bits(), fref::D)
}

/// MODE's f16 environment: (rounding, keep input denormals, keep output denormals).
fn env(mode: u32) -> (Rm, bool, bool) {
    (rm(mode >> 2), mode >> 6 & 1 != 0, mode >> 7 & 1 != 0)
}

/// `a * b + c` in f16 under `mode`, fused or with the product rounded first.
fn mad16(a: u32, b: u32, c: u32, fused: bool, mode: u32) -> u32 {
    let (r, kin, kout) = env(mode);
    let f = |x: u32| flush(u64::from(x), H, kin);
    let (a, b, c) = (f(a), f(b), f(c));
    let prod = mulx(val(a, H), val(b, H));
    let p = if fused {
        prod
    } else {
        val(flush(roundx(prod, H, r), H, kout), H)
    };
    flush(roundx(addx(p, val(c, H), r), H, r), H, kout) as u32
}

fn cases3() -> Vec<[u32; 3]> {
    let mut v: Vec<[u32; 3]> = sweep::triples(&A16);
    v.extend((0..64).map(|k| {
        let p = |j: u32| A16[(rnd(j) % A16.len() as u32) as usize];
        [p(k), p(k + 77), C16[(k % 4) as usize]]
    }));
    v
}

#[test]
fn mad_fma_f16_vop3() {
    let cases = cases3();
    // (op, name, fused, zeroes the high half on gfx9).
    for (op, name, fused, zero_hi) in [
        (Op::VMadF16, "v_mad_f16", false, false),
        (Op::VMadLegacyF16, "v_mad_legacy_f16", false, true),
        (Op::VFmaLegacyF16, "v_fma_legacy_f16", true, true),
    ] {
        for (t, wave) in targets_with(op) {
            for mode in MODES {
                let src = format!("{name} v10, v0, v1, v2");
                sweep(
                    t,
                    wave,
                    &src,
                    mode,
                    &cases,
                    |w, l, c| {
                        for (k, &x) in c.iter().enumerate() {
                            w.set_vgpr(k, l, x | 0x7777_0000);
                        }
                        w.set_vgpr(10, l, 0xdead_0000);
                    },
                    |w, l, &[a, b, c], ctx| {
                        let r = mad16(a, b, c, fused, mode);
                        let want = if zero_hi { r } else { 0xdead_0000 | r };
                        assert_eq!(w.vgpr(10, l), want, "{ctx} `{src}` {a:#x} {b:#x} {c:#x}");
                    },
                );
            }
        }
    }
}

#[test]
fn mac_and_literal_forms() {
    let cases = cases3();
    let k = 0x4a80u32; // 13.0
    for mode in MODES {
        // GFX9: v_mac_f16 (D += S0 * S1, unfused; zeroes the high half), v_madmk/madak.
        for (t, wave) in targets_with(Op::VMacF16) {
            let src = format!(
                "v_mac_f16 v10, v0, v1\n\
                 v_madmk_f16 v11, v0, {k:#x}, v1\n\
                 v_madak_f16 v12, v0, v1, {k:#x}\n\
                 v_mac_f16_e64 v13, v0, v1"
            );
            sweep(
                t,
                wave,
                &src,
                mode,
                &cases,
                |w, l, c| {
                    w.set_vgpr(0, l, c[0] | 0x1111_0000);
                    w.set_vgpr(1, l, c[1] | 0x2222_0000);
                    w.set_vgpr(10, l, c[2] | 0x3333_0000);
                    w.set_vgpr(11, l, 0x4444_4444);
                    w.set_vgpr(12, l, 0x5555_5555);
                    w.set_vgpr(13, l, c[2] | 0x6666_0000);
                },
                |w, l, &[a, b, c], ctx| {
                    assert_eq!(
                        w.vgpr(10, l),
                        mad16(a, b, c, false, mode),
                        "{ctx} mac {a:#x} {b:#x} {c:#x}"
                    );
                    assert_eq!(w.vgpr(11, l), mad16(a, k, b, false, mode), "{ctx} madmk");
                    assert_eq!(w.vgpr(12, l), mad16(a, b, k, false, mode), "{ctx} madak");
                    // VOP3 form (llvm-mc-22 takes no op_sel on it): as the VOP2 one.
                    assert_eq!(w.vgpr(13, l), mad16(a, b, c, false, mode), "{ctx} mac_e64");
                },
            );
        }
        // GFX12: v_fmac_f16 (true16: the accumulator is the half vdst names), fmamk/fmaak.
        for (t, wave) in targets_with(Op::VFmacF16) {
            let src = format!(
                "v_fmac_f16 v10.h, v0.l, v1.h\n\
                 v_fmamk_f16 v11.l, v0.l, {k:#x}, v1.h\n\
                 v_fmaak_f16 v12.l, v0.l, v1.h, {k:#x}\n\
                 v_fmac_f16_e64 v13.l, v0.l, v1.h"
            );
            sweep(
                t,
                wave,
                &src,
                mode,
                &cases,
                |w, l, c| {
                    w.set_vgpr(0, l, c[0] | 0x1111_0000);
                    w.set_vgpr(1, l, c[1] << 16 | 0x2222);
                    w.set_vgpr(10, l, c[2] << 16 | 0x3333);
                    w.set_vgpr(11, l, 0x4444_4444);
                    w.set_vgpr(12, l, 0x5555_5555);
                    w.set_vgpr(13, l, c[2] | 0x6666_0000);
                },
                |w, l, &[a, b, c], ctx| {
                    let r = mad16(a, b, c, true, mode);
                    assert_eq!(
                        w.vgpr(10, l),
                        0x3333 | r << 16,
                        "{ctx} fmac.h {a:#x} {b:#x} {c:#x}"
                    );
                    assert_eq!(
                        w.vgpr(11, l),
                        0x4444_0000 | mad16(a, k, b, true, mode),
                        "{ctx} fmamk"
                    );
                    assert_eq!(
                        w.vgpr(12, l),
                        0x5555_0000 | mad16(a, b, k, true, mode),
                        "{ctx} fmaak"
                    );
                    assert_eq!(w.vgpr(13, l), 0x6666_0000 | r, "{ctx} fmac_e64");
                },
            );
        }
    }
}

#[test]
fn pk_fmac_f16() {
    let cases: Vec<[u32; 3]> = cases3()
        .into_iter()
        .enumerate()
        .map(|(k, [a, b, c])| {
            let p = |j: u32| A16[(rnd(j) % A16.len() as u32) as usize];
            let k = k as u32;
            [a | p(k) << 16, b | p(k + 9) << 16, c | p(k + 19) << 16]
        })
        .collect();
    for (t, wave) in targets_with(Op::VPkFmacF16) {
        for mode in MODES {
            let src = "v_pk_fmac_f16 v2, v0, v1";
            sweep(
                t,
                wave,
                src,
                mode,
                &cases,
                |w, l, c| {
                    for (k, &x) in c.iter().enumerate() {
                        w.set_vgpr(k, l, x);
                    }
                },
                |w, l, &[a, b, c], ctx| {
                    let h = |x: u32, s: u32| (x >> s) & 0xffff;
                    let want = mad16(h(a, 0), h(b, 0), h(c, 0), true, mode)
                        | mad16(h(a, 16), h(b, 16), h(c, 16), true, mode) << 16;
                    assert_eq!(w.vgpr(2, l), want, "{ctx} {a:#x} {b:#x} {c:#x}");
                },
            );
        }
    }
}

/// The float inline constants (LLVM's spelling) and their f16 values.
const FCONSTS: [(&str, u32, u32); 9] = [
    ("0.5", 240, 0x3800),
    ("-0.5", 241, 0xb800),
    ("1.0", 242, 0x3c00),
    ("-1.0", 243, 0xbc00),
    ("2.0", 244, 0x4000),
    ("-2.0", 245, 0xc000),
    ("4.0", 246, 0x4400),
    ("-4.0", 247, 0xc400),
    ("0.15915494", 248, 0x3118),
];

/// `v_pk_fmac_f16` with an inline float constant: "for F16 instructions: corresponding
/// half-precision float values in the LSBs, 0 in the MSBs" (LLVM 22 `AMDGPUBaseInfo.cpp`,
/// `getInlineEncodingV216`; llvm-mc-22 encodes `v_pk_fmac_f16 v2, 2.0, v1` on GFX9 with
/// the inline code 244 and, on GFX12, as the literal 0x00004000: the same value). The
/// executor read the f32 pattern (0x40000000: low half 0), so the low lane got `0 * b + d`
/// (the bug class of `v_pack_b32_f16`, tools/difftest seed 13 kernel 43). GFX12's inline
/// form is checked from its bytes (VOP2 src0 = 244), which llvm-mc-22 disassembles as
/// `v_pk_fmac_f16 v2, 2.0, v1` on gfx1200.
#[test]
fn pk_fmac_f16_inline_float_constants_are_f16() {
    let cases: Vec<[u32; 2]> = (0..64u32)
        .map(|k| {
            let p = |j: u32| A16[(rnd(j) % A16.len() as u32) as usize];
            [p(k) | p(k + 5) << 16, p(k + 11) | p(k + 17) << 16]
        })
        .collect();
    let mut ran = 0;
    for (t, wave) in targets_with(Op::VPkFmacF16) {
        for (name, code, k) in FCONSTS {
            let mut forms = vec![asm::assemble_wave(
                t,
                wave,
                &format!("v_pk_fmac_f16 v2, {name}, v1"),
            )];
            if t.family() == Family::Gfx12 {
                // The inline form: `v_pk_fmac_f16 v2, v0, v1` with src0 (bits 8:0) = code.
                let mut b = asm::assemble_wave(t, wave, "v_pk_fmac_f16 v2, v0, v1");
                let w0 = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) & !0x1ff | code;
                b[..4].copy_from_slice(&w0.to_le_bytes());
                forms.push(b);
            } else {
                // VOP3: the constant as src1.
                forms.push(asm::assemble_wave(
                    t,
                    wave,
                    &format!("v_pk_fmac_f16_e64 v2, v1, {name}"),
                ));
            }
            for bytes in &forms {
                let w = asm::run(t, wave, bytes, |w| {
                    w.mode = 0xf0;
                    for (l, &[b, d]) in cases.iter().take(wave as usize).enumerate() {
                        w.set_vgpr(1, l, b);
                        w.set_vgpr(2, l, d);
                    }
                });
                for (l, &[b, d]) in cases.iter().take(wave as usize).enumerate() {
                    let h = |x: u32, s: u32| (x >> s) & 0xffff;
                    // The constant's high half is +0: D.hi = fma(0, S1.hi, D.hi).
                    let want = mad16(k, h(b, 0), h(d, 0), true, 0xf0)
                        | mad16(0, h(b, 16), h(d, 16), true, 0xf0) << 16;
                    assert_eq!(
                        w.vgpr(2, l),
                        want,
                        "{} wave{wave} v_pk_fmac_f16 {name}: b {b:#x} d {d:#x}",
                        t.name()
                    );
                }
                ran += 1;
            }
        }
    }
    assert!(ran >= 9 * 2 * 3, "ran {ran}");
}

/// V_DIV_FIXUP_F16 pseudocode on bits (quotient `q`, denominator `d`, numerator `n`).
fn div_fixup(q: u32, d: u32, n: u32) -> u32 {
    let nan = |x: u32| x & 0x7fff > 0x7c00;
    let zero = |x: u32| x & 0x7fff == 0;
    let inf = |x: u32| x & 0x7fff == 0x7c00;
    let sign = (d ^ n) & 0x8000;
    if nan(n) {
        n | 0x200
    } else if nan(d) {
        d | 0x200
    } else if zero(d) && zero(n) || inf(d) && inf(n) {
        0xfe00
    } else if zero(d) || inf(n) {
        sign | 0x7c00
    } else if inf(d) || zero(n) {
        sign
    } else {
        sign | (q & 0x7fff)
    }
}

#[test]
fn div_fixup_f16() {
    let vals = [
        0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xfe55, 0x3c00, 0xc100, 0x0001, 0x3555,
        0xbbff,
    ];
    let cases = sweep::triples(&vals);
    for (op, name, zero_hi) in [
        (Op::VDivFixupF16, "v_div_fixup_f16", false),
        (Op::VDivFixupLegacyF16, "v_div_fixup_legacy_f16", true),
    ] {
        for (t, wave) in targets_with(op) {
            let gfx12 = t.family() == Family::Gfx12;
            let src = if gfx12 {
                format!("{name} v10.l, v0.l, -v1.l, v2.l")
            } else {
                format!("{name} v10, v0, -v1, v2")
            };
            sweep(
                t,
                wave,
                &src,
                0xf0,
                &cases,
                |w, l, c| {
                    for (k, &x) in c.iter().enumerate() {
                        w.set_vgpr(k, l, x | 0x5a5a_0000);
                    }
                    w.set_vgpr(10, l, 0xbeef_0000);
                },
                |w, l, &[q, d, n], ctx| {
                    let r = div_fixup(q, d ^ 0x8000, n);
                    let want = if zero_hi && !gfx12 {
                        r
                    } else {
                        0xbeef_0000 | r
                    };
                    assert_eq!(
                        w.vgpr(10, l),
                        want,
                        "{ctx} `{src}` q {q:#x} d {d:#x} n {n:#x}"
                    );
                },
            );
        }
    }
}

#[test]
fn frexp_fract_norm_f16() {
    let vals: Vec<u32> = [
        0x0000u32, 0x8000, 0x0001, 0x83ff, 0x3c00, 0xbc00, 0x3555, 0xc248, 0x7bff, 0xfbff, 0x7c00,
        0xfc00, 0x7e00, 0x4001, 0xb401, 0x3bff, 0x5a3c, 0xd640, 0x0400, 0x2e66,
    ]
    .to_vec();
    for (t, wave) in targets_with(Op::VFractF16) {
        let gfx12 = t.family() == Family::Gfx12;
        let (d, s) = if gfx12 { (".l", ".l") } else { ("", "") };
        let src = format!(
            "v_fract_f16 v10{d}, v0{s}\n\
             v_frexp_mant_f16 v11{d}, v0{s}\n\
             v_frexp_exp_i16_f16 v12{d}, v0{s}\n\
             v_cvt_norm_i16_f16 v13{d}, v0{s}\n\
             v_cvt_norm_u16_f16 v14{d}, v0{s}"
        );
        for mode in MODES {
            let cases: Vec<u32> = vals.clone();
            sweep(
                t,
                wave,
                &src,
                mode,
                &cases,
                |w, l, &x| {
                    w.set_vgpr(0, l, x | 0x9999_0000);
                    for r in 10..15 {
                        w.set_vgpr(r, l, 0xabcd_0000);
                    }
                },
                |w, l, &x, ctx| {
                    let (r, kin, kout) = env(mode);
                    // GFX9 VOP1 16-bit results zero the high half; GFX12 keeps it.
                    let hi = if gfx12 { 0xabcd_0000 } else { 0 };
                    let xf = flush(u64::from(x), H, kin) as u32;
                    let finite = xf & 0x7c00 != 0x7c00;
                    let v = if finite {
                        as_f64(u64::from(xf), H)
                    } else {
                        0.0
                    };
                    // fract: exact difference rounded once, capped below 1.0.
                    if finite {
                        // x + -floor(x) with IEEE signed-zero rules (-0 toward -inf).
                        let fr = addx(val(u64::from(xf), H), ex64(-v.floor()), r);
                        let mut want = flush(roundx(fr, H, r), H, kout) as u32;
                        if want == 0x3c00 {
                            want = 0x3bff;
                        }
                        assert_eq!(w.vgpr(10, l), hi | want, "{ctx} fract {x:#x}");
                    } else {
                        let g = w.vgpr(10, l) & 0xffff;
                        assert!(g & 0x7fff > 0x7c00, "{ctx} fract of {x:#x} is NaN: {g:#x}");
                    }
                    // frexp: |mant| in [0.5, 1), x = mant * 2^exp.
                    let (m, e) = if finite && v != 0.0 {
                        let e = v.abs().log2().floor() as i32 + 1;
                        (v / 2f64.powi(e), e)
                    } else {
                        (v, 0)
                    };
                    if finite {
                        let want_m = roundx(ex64(m), H, Rm::Ne) as u32;
                        assert_eq!(w.vgpr(11, l), hi | want_m, "{ctx} frexp_mant {x:#x}");
                    } else if x & 0x7fff == 0x7c00 {
                        assert_eq!(w.vgpr(11, l) & 0xffff, x, "{ctx} frexp_mant of inf");
                    }
                    assert_eq!(
                        w.vgpr(12, l),
                        hi | (e as u32 & 0xffff),
                        "{ctx} frexp_exp {x:#x}"
                    );
                    // snorm/unorm: clamp, scale, round to nearest even; NaN gives 0.
                    let nan = x & 0x7fff > 0x7c00;
                    let vv = if finite {
                        v
                    } else if nan {
                        f64::NAN
                    } else if x & 0x8000 != 0 {
                        -1e9
                    } else {
                        1e9
                    };
                    let sn = if nan {
                        0
                    } else {
                        (vv.clamp(-1.0, 1.0) * 32767.0).round_ties_even() as i32 as u32 & 0xffff
                    };
                    let un = if nan {
                        0
                    } else {
                        (vv.clamp(0.0, 1.0) * 65535.0).round_ties_even() as u32
                    };
                    assert_eq!(w.vgpr(13, l), hi | sn, "{ctx} cvt_norm_i16 {x:#x}");
                    assert_eq!(w.vgpr(14, l), hi | un, "{ctx} cvt_norm_u16 {x:#x}");
                },
            );
        }
    }
}

/// |a - b| in f16 units in the last place (same sign assumed).
fn ulps(a: u32, b: u32) -> u32 {
    let k = |x: u32| {
        let m = (x & 0x7fff) as i32;
        if x & 0x8000 != 0 {
            -m
        } else {
            m
        }
    };
    (k(a) - k(b)).unsigned_abs()
}

#[test]
fn sin_cos_f16() {
    // The guide's special values, then a sweep within one ulp of sin/cos(2 pi x).
    let special: [(u32, u32, u32); 7] = [
        (0xfc00, 0xfe00, 0xfe00),
        (0xfbff, 0x0000, 0x3c00),
        (0x8000, 0x8000, 0x3c00),
        (0x3400, 0x3c00, 0x0000),
        (0x7bff, 0x0000, 0x3c00),
        (0x7c00, 0xfe00, 0xfe00),
        (0x0000, 0x0000, 0x3c00),
    ];
    let mut cases: Vec<u32> = special.iter().map(|s| s.0).collect();
    cases.extend((0..200).map(|k| {
        let x = rnd(k) & 0x7fff;
        // Arguments of moderate size (the reduction then keeps full precision).
        (x % 0x4c00) | (rnd(k + 5) & 0x8000)
    }));
    for (t, wave) in targets_with(Op::VSinF16) {
        let gfx12 = t.family() == Family::Gfx12;
        let (d, s) = if gfx12 { (".l", ".l") } else { ("", "") };
        let src = format!("v_sin_f16 v10{d}, v0{s}\nv_cos_f16 v11{d}, v0{s}");
        sweep(
            t,
            wave,
            &src,
            0xf0,
            &cases,
            |w, l, &x| w.set_vgpr(0, l, x),
            |w, l, &x, ctx| {
                let (gs, gc) = (w.vgpr(10, l) & 0xffff, w.vgpr(11, l) & 0xffff);
                if let Some(&(_, ws, wc)) = special.iter().find(|s| s.0 == x) {
                    if ws & 0x7fff > 0x7c00 {
                        assert!(
                            gs & 0x7fff > 0x7c00 && gc & 0x7fff > 0x7c00,
                            "{ctx} sin/cos {x:#x} NaN"
                        );
                    } else {
                        assert_eq!((gs, gc), (ws, wc), "{ctx} sin/cos {x:#x}");
                    }
                    return;
                }
                let v = as_f64(u64::from(x), H);
                let arg = (v - v.round()) * std::f64::consts::TAU;
                let ws = roundx(ex64(arg.sin()), H, Rm::Ne) as u32;
                let wc = roundx(ex64(arg.cos()), H, Rm::Ne) as u32;
                assert!(
                    ulps(gs, ws) <= 1 || (gs & 0x7fff == 0 && ws & 0x7fff <= 1),
                    "{ctx} sin {x:#x}: {gs:#x} vs {ws:#x}"
                );
                assert!(
                    ulps(gc, wc) <= 1 || (gc & 0x7fff == 0 && wc & 0x7fff <= 1),
                    "{ctx} cos {x:#x}: {gc:#x} vs {wc:#x}"
                );
            },
        );
    }
}

#[test]
fn scalar_f16_transcendentals_gfx12() {
    // The guide's tables for V_RCP/RSQ/SQRT/LOG/EXP_F16, then values within one ulp.
    let table: [(&str, u32, u32); 20] = [
        ("rcp", 0xfc00, 0x8000),
        ("rcp", 0xc000, 0xb800),
        ("rcp", 0x8000, 0xfc00),
        ("rcp", 0x0000, 0x7c00),
        ("rcp", 0x7c00, 0x0000),
        ("rsq", 0xfc00, 0xfe00),
        ("rsq", 0x8000, 0xfc00),
        ("rsq", 0x0000, 0x7c00),
        ("rsq", 0x4400, 0x3800),
        ("rsq", 0x7c00, 0x0000),
        ("sqrt", 0xfc00, 0xfe00),
        ("sqrt", 0x8000, 0x8000),
        ("sqrt", 0x4400, 0x4000),
        ("sqrt", 0x7c00, 0x7c00),
        ("log", 0xbc00, 0xfe00),
        ("log", 0x8000, 0xfc00),
        ("log", 0x3c00, 0x0000),
        ("log", 0x7c00, 0x7c00),
        ("exp", 0xfc00, 0x0000),
        ("exp", 0x8000, 0x3c00),
    ];
    for t in [Target::Gfx1200, Target::Gfx1201] {
        for wave in [32, 64] {
            for &(f, x, want) in &table {
                let src = format!("v_s_{f}_f16 s10, s0");
                let code = asm::assemble_wave(t, wave, &src);
                let w = asm::run(t, wave, &code, |w| {
                    w.mode = 0xf0;
                    w.set_sgpr(0, x | 0x1234_0000);
                    w.set_sgpr(10, 0xffff_ffff);
                });
                let got = w.sgpr(10);
                if want & 0x7fff > 0x7c00 {
                    assert!(
                        got & 0x7fff > 0x7c00 && got >> 16 == 0,
                        "{} v_s_{f}_f16({x:#x}) = {got:#x}",
                        t.name()
                    );
                } else {
                    assert_eq!(got, want, "{} v_s_{f}_f16({x:#x})", t.name());
                }
            }
            // A few ordinary values within one ulp of the exact function; the source's high
            // half is ignored (llvm-mc-22 takes no op_sel on these).
            for x in [0x3555u32, 0x4a00, 0x2e66, 0x5640] {
                for (f, exact) in [
                    ("rcp", 1.0 / as_f64(u64::from(x), H)),
                    ("sqrt", as_f64(u64::from(x), H).sqrt()),
                    ("log", as_f64(u64::from(x), H).log2()),
                    ("exp", (as_f64(u64::from(x), H) / 16.0).exp2()),
                ] {
                    // exp gets x / 16 so that the result stays finite.
                    let (arg, src) = if f == "exp" {
                        let a = roundx(ex64(as_f64(u64::from(x), H) / 16.0), H, Rm::Ne) as u32;
                        (a, format!("v_s_{f}_f16 s10, s0"))
                    } else {
                        (x, format!("v_s_{f}_f16 s10, s0"))
                    };
                    let code = asm::assemble_wave(t, wave, &src);
                    let w = asm::run(t, wave, &code, |w| {
                        w.mode = 0xf0;
                        w.set_sgpr(0, arg | 0x0bad_0000);
                    });
                    let want = roundx(ex64(exact), H, Rm::Ne) as u32;
                    let got = w.sgpr(10);
                    assert!(
                        got >> 16 == 0 && ulps(got, want) <= 1,
                        "{} `{src}` of {arg:#x}: {got:#x} vs {want:#x}",
                        t.name()
                    );
                }
            }
        }
    }
}

/// Fused mixed-precision operations round once: `v_fma_mix_f32` and `v_pk_fma_f16` on
/// products that land exactly halfway between two results, with an addend too small to
/// matter anywhere but in breaking that tie (a rounding of the f64 fma to nearest first,
/// then to the result format, rounds the tie to even instead: found by tools/difftest,
/// seed 3 kernel 357). Reference: the exact arithmetic of `exec_util/fref.rs`.
#[test]
fn fused_mixed_precision_rounds_once() {
    // f32 a, f16 b, f32 c: a * b = -2439.5123291015625 is a tie at f32 precision.
    let mix: Vec<[u32; 3]> = [0x881024a1u32, 0x081024a1, 0x8000_0000, 0, 0x0000_0001]
        .iter()
        .flat_map(|&c| [[0x4ca2_a258, 0x81e0, c], [0xcca2_a258, 0x81e0, c]])
        .collect();
    // f16 a, b, c per half: (1 + 2^-10) * 1.5 is a tie at f16 precision.
    let pk: Vec<[u32; 3]> = [0x8001u32, 0x0001, 0x8000, 0]
        .iter()
        .map(|&c| {
            [
                0x3c01 | 0xbc01 << 16,
                0x3e00 | 0x3e00 << 16,
                c | (c ^ 0x8000) << 16,
            ]
        })
        .collect();
    for mode in MODES {
        let r = rm(mode);
        for (t, wave) in targets_with(Op::VFmaMixF32) {
            let src = "v_fma_mix_f32 v3, v0, v1, v2 op_sel_hi:[0,1,0]";
            sweep(
                t,
                wave,
                src,
                mode,
                &mix,
                |w, l, c| {
                    for (k, &x) in c.iter().enumerate() {
                        w.set_vgpr(k, l, x);
                    }
                },
                |w, l, &[a, b, c], ctx| {
                    // MODE: f32 rounding [1:0], f32 denormals in/out [4]/[5], f16 in [6].
                    let (kin32, kout32) = (mode >> 4 & 1 != 0, mode >> 5 & 1 != 0);
                    let fa = flush(u64::from(a), fref::S, kin32);
                    let fb = flush(u64::from(b), H, mode >> 6 & 1 != 0);
                    let fc = flush(u64::from(c), fref::S, kin32);
                    let exact = addx(mulx(val(fa, fref::S), val(fb, H)), val(fc, fref::S), r);
                    let want = flush(roundx(exact, fref::S, r), fref::S, kout32) as u32;
                    assert_eq!(w.vgpr(3, l), want, "{ctx} `{src}` {a:#x} {b:#x} {c:#x}");
                },
            );
        }
        for (t, wave) in targets_with(Op::VPkFmaF16) {
            let src = "v_pk_fma_f16 v3, v0, v1, v2";
            sweep(
                t,
                wave,
                src,
                mode,
                &pk,
                |w, l, c| {
                    for (k, &x) in c.iter().enumerate() {
                        w.set_vgpr(k, l, x);
                    }
                },
                |w, l, &[a, b, c], ctx| {
                    let h = |x: u32, s: u32| (x >> s) & 0xffff;
                    let want = mad16(h(a, 0), h(b, 0), h(c, 0), true, mode)
                        | mad16(h(a, 16), h(b, 16), h(c, 16), true, mode) << 16;
                    assert_eq!(w.vgpr(3, l), want, "{ctx} `{src}` {a:#x} {b:#x} {c:#x}");
                },
            );
        }
    }
}
