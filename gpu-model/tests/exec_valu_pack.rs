//! Packing conversions added to the executor, assembled by llvm-mc-22 and run on every
//! target that has them, against references written from the CDNA4 / RDNA4 ISA guides'
//! pseudocode:
//!
//! ```text
//! V_CVT_OFF_F32_I4: the guide's table of S0[3:0] (a signed 4-bit integer / 16)
//! V_CVT_PK_U8_F32: S2 with byte S1[1:0] replaced by f32_to_u8(S0)
//! V_CVT_PKACCUM_U8_F32 (GFX9): the same into D
//!     f32_to_u8: rounded in the MODE[1:0] direction, saturated to [0, 255], NaN 0
//! V_CVT_PKNORM_I16/U16_F32, _F16 (GFX12 V_CVT_PK_NORM_*): { norm(S1), norm(S0) }
//!     snorm: clamp to [-1, 1], * 32767; unorm: clamp to [0, 1], * 65535; rounded to
//!     nearest even; NaN 0
//! GFX12 V_CVT_PK_I16_F32 / V_CVT_PK_U16_F32: { cvt(S1), cvt(S0) }: truncation,
//!     saturated, NaN 0
//! ```

#[path = "exec_util/asm.rs"]
mod asm;
#[path = "exec_util/fref.rs"]
mod fref;
#[path = "exec_util/sweep.rs"]
mod sweep;

use fref::{as_f64, flush, Rm, H, S};
use gpu_model::isa::Op;
use gpu_model::Family;
use sweep::{pairs, rnd, sweep, targets_with};

/// f32 operands for the byte and norm conversions.
const F32: [u32; 22] = [
    0x0000_0000,
    0x8000_0000,
    0x0000_0001, // smallest denormal
    0x8000_0001,
    0x3f00_0000, // 0.5
    0x3fc0_0000, // 1.5
    0x4020_0000, // 2.5
    0xbf00_0000, // -0.5
    0x437e_8000, // 254.5
    0x437f_b333, // 255.7
    0x4396_0000, // 300
    0xc040_0000, // -3
    0x7fc0_0000,
    0x7f80_0000,
    0xff80_0000,
    0x3f80_0000,
    0xbf80_0000,
    0x3f7f_ff00, // just below 1
    0x3a80_0000, // 2^-10
    0x3700_0100, // about 0.5 / 65535
    0x3800_0000, // 2^-15
    0xbf7f_ffff,
];

fn fv(x: u32) -> f64 {
    if x & 0x7fff_ffff > 0x7f80_0000 {
        f64::NAN
    } else {
        as_f64(u64::from(x), S)
    }
}

/// f32_to_u8 under MODE.
fn u8_ref(x: u32, mode: u32) -> u32 {
    let v = fv(flush(u64::from(x), S, mode >> 4 & 1 != 0) as u32);
    if v.is_nan() {
        return 0;
    }
    let r = match fref::rm(mode) {
        Rm::Ne => v.round_ties_even(),
        Rm::Up => v.ceil(),
        Rm::Down => v.floor(),
        Rm::Zero => v.trunc(),
    };
    r.clamp(0.0, 255.0) as u32
}

#[test]
fn cvt_off_f32_i4() {
    const TABLE: [f32; 16] = [
        0.0, 0.0625, 0.125, 0.1875, 0.25, 0.3125, 0.375, 0.4375, -0.5, -0.4375, -0.375, -0.3125,
        -0.25, -0.1875, -0.125, -0.0625,
    ];
    let cases: Vec<u32> = (0..64).map(|k| k & 15 | rnd(k) & !15).collect();
    assert_eq!(targets_with(Op::VCvtOffF32I4).len(), 7);
    for (t, wave) in targets_with(Op::VCvtOffF32I4) {
        sweep(
            t,
            wave,
            "v_cvt_off_f32_i4 v10, v0",
            0xf0,
            &cases,
            |w, l, &x| w.set_vgpr(0, l, x),
            |w, l, &x, ctx| {
                assert_eq!(
                    w.vgpr(10, l),
                    TABLE[(x & 15) as usize].to_bits(),
                    "{ctx} {x:#x}"
                );
            },
        );
    }
}

#[test]
fn cvt_pk_u8_f32() {
    let cases: Vec<(u32, u32)> = F32
        .iter()
        .enumerate()
        .flat_map(|(k, &x)| (0..4u32).map(move |b| (x, b | rnd(k as u32 * 4 + b) & !3)))
        .collect();
    assert_eq!(targets_with(Op::VCvtPkU8F32).len(), 7);
    for mode in [0xf0, 0xf1, 0xf2, 0xf3, 0x00, 0xe0] {
        for (t, wave) in targets_with(Op::VCvtPkU8F32) {
            let gfx9 = t.family() == Family::Gfx9;
            let src = if gfx9 {
                "v_cvt_pk_u8_f32 v10, v0, v1, v2\n\
                 v_cvt_pkaccum_u8_f32 v11, v0, v1"
            } else {
                "v_cvt_pk_u8_f32 v10, v0, v1, v2"
            };
            sweep(
                t,
                wave,
                src,
                mode,
                &cases,
                |w, l, &(x, b)| {
                    w.set_vgpr(0, l, x);
                    w.set_vgpr(1, l, b);
                    w.set_vgpr(2, l, 0x1234_5678);
                    w.set_vgpr(11, l, 0x9abc_def0);
                },
                |w, l, &(x, b), ctx| {
                    let sh = 8 * (b & 3);
                    let u = u8_ref(x, mode) << sh;
                    let what = format!("{ctx} f32_to_u8({x:#x}) into byte {}", b & 3);
                    assert_eq!(w.vgpr(10, l), 0x1234_5678 & !(0xff << sh) | u, "{what}");
                    if gfx9 {
                        assert_eq!(
                            w.vgpr(11, l),
                            0x9abc_def0 & !(0xff << sh) | u,
                            "{what} accum"
                        );
                    }
                },
            );
        }
    }
}

fn snorm(v: f64) -> u32 {
    if v.is_nan() {
        0
    } else {
        (v.clamp(-1.0, 1.0) * 32767.0).round_ties_even() as i32 as u32 & 0xffff
    }
}

fn unorm(v: f64) -> u32 {
    if v.is_nan() {
        0
    } else {
        (v.clamp(0.0, 1.0) * 65535.0).round_ties_even() as u32
    }
}

#[test]
fn cvt_pknorm_f32() {
    let cases = pairs(&F32);
    let mut tw = targets_with(Op::VCvtPknormI16F32);
    tw.extend(targets_with(Op::VCvtPkNormI16F32));
    assert_eq!(tw.len(), 7);
    for mode in [0xf0, 0x00] {
        for &(t, wave) in &tw {
            let src = "v_cvt_pknorm_i16_f32 v10, v0, v1\n\
                       v_cvt_pknorm_u16_f32 v11, v0, v1";
            sweep(
                t,
                wave,
                src,
                mode,
                &cases,
                |w, l, c| {
                    w.set_vgpr(0, l, c[0]);
                    w.set_vgpr(1, l, c[1]);
                },
                |w, l, &[a, b], ctx| {
                    let keep = mode >> 4 & 1 != 0;
                    let (x, y) = (
                        fv(flush(u64::from(a), S, keep) as u32),
                        fv(flush(u64::from(b), S, keep) as u32),
                    );
                    assert_eq!(
                        w.vgpr(10, l),
                        snorm(x) | snorm(y) << 16,
                        "{ctx} snorm {a:#x} {b:#x}"
                    );
                    assert_eq!(
                        w.vgpr(11, l),
                        unorm(x) | unorm(y) << 16,
                        "{ctx} unorm {a:#x} {b:#x}"
                    );
                },
            );
        }
    }
}

#[test]
fn cvt_pknorm_f16() {
    // f16 operands in the low halves, others in the high halves (op_sel picks them).
    let h16: [u32; 12] = [
        0x0000, 0x8000, 0x0001, 0x3800, 0xb800, 0x3bff, 0x3c00, 0xc000, 0x7c00, 0xfc00, 0x7e00,
        0x1400,
    ];
    let cases: Vec<[u32; 2]> = pairs(&h16)
        .into_iter()
        .enumerate()
        .map(|(k, [a, b])| [a | h16[k % 12] << 16, b | h16[(k * 5 + 1) % 12] << 16])
        .collect();
    let mut tw = targets_with(Op::VCvtPknormI16F16);
    tw.extend(targets_with(Op::VCvtPkNormI16F16));
    assert_eq!(tw.len(), 7);
    for mode in [0xf0, 0x30] {
        for &(t, wave) in &tw {
            let src = "v_cvt_pknorm_i16_f16 v10, v0, v1\n\
                       v_cvt_pknorm_u16_f16 v11, -v0, |v1| op_sel:[1,1,0]";
            sweep(
                t,
                wave,
                src,
                mode,
                &cases,
                |w, l, c| {
                    w.set_vgpr(0, l, c[0]);
                    w.set_vgpr(1, l, c[1]);
                },
                |w, l, &[a, b], ctx| {
                    let keep = mode >> 6 & 1 != 0;
                    let hv = |x: u32| {
                        let x = flush(u64::from(x & 0xffff), H, keep);
                        if x & 0x7fff > 0x7c00 {
                            f64::NAN
                        } else {
                            as_f64(x, H)
                        }
                    };
                    let (x, y) = (hv(a), hv(b));
                    assert_eq!(
                        w.vgpr(10, l),
                        snorm(x) | snorm(y) << 16,
                        "{ctx} snorm {a:#x} {b:#x}"
                    );
                    let (x, y) = (-hv(a >> 16), hv(b >> 16).abs());
                    assert_eq!(
                        w.vgpr(11, l),
                        unorm(x) | unorm(y) << 16,
                        "{ctx} unorm hi {a:#x} {b:#x}"
                    );
                },
            );
        }
    }
}

#[test]
fn cvt_pk_i16_u16_f32_gfx12() {
    let mut vals: Vec<u32> = F32.to_vec();
    vals.extend([
        0x46ff_fe00,
        0x4700_0000,
        0xc700_0000,
        0xc700_0100,
        0x477f_ff00,
        0x4780_0000,
    ]);
    let cases = pairs(&vals);
    assert_eq!(targets_with(Op::VCvtPkI16F32).len(), 4);
    for (t, wave) in targets_with(Op::VCvtPkI16F32) {
        let src = "v_cvt_pk_i16_f32 v10, v0, v1\n\
                   v_cvt_pk_u16_f32 v11, v0, v1";
        sweep(
            t,
            wave,
            src,
            0xf0,
            &cases,
            |w, l, c| {
                w.set_vgpr(0, l, c[0]);
                w.set_vgpr(1, l, c[1]);
            },
            |w, l, &[a, b], ctx| {
                let i = |x: u32| {
                    let v = fv(x);
                    if v.is_nan() {
                        0
                    } else {
                        v.trunc().clamp(-32768.0, 32767.0) as i32 as u32 & 0xffff
                    }
                };
                let u = |x: u32| {
                    let v = fv(x);
                    if v.is_nan() {
                        0
                    } else {
                        v.trunc().clamp(0.0, 65535.0) as u32
                    }
                };
                assert_eq!(w.vgpr(10, l), i(a) | i(b) << 16, "{ctx} i16 {a:#x} {b:#x}");
                assert_eq!(w.vgpr(11, l), u(a) | u(b) << 16, "{ctx} u16 {a:#x} {b:#x}");
            },
        );
    }
}
