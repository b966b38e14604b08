//! Cube-map, trig-preop, DX9 and legacy float operations added to the executor, assembled
//! by llvm-mc-22 and run on every target that has them, against references written from
//! the CDNA4 / RDNA4 ISA guides' pseudocode (exact arithmetic: `exec_util/fref.rs`):
//!
//! ```text
//! V_CUBEID/SC/TC/MA_F32: the face (x, y, z) = (S0, S1, S2) hits, its coordinates and 2 * major axis
//! V_TRIG_PREOP_F64: 53 bits of 2/pi after shift = S1[4:0] * 53 (+ exponent(S0) - 1077
//!     when exponent(S0) > 1077), times 2^(-53 - shift) (times 2^128 more when
//!     exponent(S0) >= 1968)
//! V_MUL_LEGACY_F32 (GFX9) / V_MUL_DX9_ZERO_F32 (GFX12): 0.0 when S0 or S1 is 0, else S0 * S1
//! V_FMA_DX9_ZERO_F32: S2 when S0 or S1 is 0, else fma(S0, S1, S2)
//! V_MULLIT_F32: -MAX_FLOAT when S1 is -MAX_FLOAT, -inf or NaN, or S2 <= 0 or NaN; else S0 * S1
//! V_EXP_LEGACY_F32 / V_LOG_LEGACY_F32 (GFX9): as V_EXP_F32 / V_LOG_F32
//! ```
//!
//! 2/pi for the trig-preop reference is fdlibm's `two_over_pi` table (`e_rem_pio2.c`, 24
//! bits a word), independent of the executor's table.

#[path = "exec_util/asm.rs"]
mod asm;
#[path = "exec_util/fref.rs"]
mod fref;
#[path = "exec_util/sweep.rs"]
mod sweep;

use fref::{addx, flush, mulx, rm, roundx, val, Ex, Rm, D, S};
use gpu_model::isa::Op;
use gpu_model::Family;
use sweep::{rnd, set64, sweep, targets_with, triples, vgpr64};

/// f32 operands: zeros, denormals, ordinary values, the largest finite values, infinities
/// and a NaN.
const F32: [u32; 16] = [
    0x0000_0000,
    0x8000_0000,
    0x0000_0001,
    0x807f_ffff,
    0x3f80_0000,
    0xbf80_0000,
    0x4049_0fdb,
    0xc2c8_0000,
    0x7f7f_ffff,
    0xff7f_ffff,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0x0080_0000,
    0x3eaa_aaab,
    0x1fff_ffff,
];

/// MODE values: the default, flush everything, each f32 rounding direction, and the
/// mixed f32 denormal settings.
const MODES: [u32; 8] = [0xf0, 0x00, 0xf1, 0xf2, 0xf3, 0xc0, 0xd0, 0xe0];

/// MODE's f32 environment: (rounding, keep input denormals, keep output denormals).
fn env(mode: u32) -> (Rm, bool, bool) {
    (rm(mode), mode >> 4 & 1 != 0, mode >> 5 & 1 != 0)
}

fn f(x: u32) -> f32 {
    f32::from_bits(x)
}

/// `x * y (+ z)` of flushed operands, rounded once in `mode` and flushed; `None` for NaN.
fn mul_ref(x: u32, y: u32, z: Option<u32>, mode: u32) -> Option<u32> {
    let (r, _, kout) = env(mode);
    let finite = |v: u32| v & 0x7f80_0000 != 0x7f80_0000;
    if !finite(x) || !finite(y) || z.is_some_and(|z| !finite(z)) {
        // Infinite operands give an infinite (exact) result or NaN.
        let v = match z {
            Some(z) => f(x).mul_add(f(y), f(z)),
            None => f(x) * f(y),
        };
        return (!v.is_nan()).then_some(v.to_bits());
    }
    let p = mulx(val(u64::from(x), S), val(u64::from(y), S));
    let e = match z {
        Some(z) => addx(p, val(u64::from(z), S), r),
        None => p,
    };
    Some(flush(roundx(e, S, r), S, kout) as u32)
}

/// Asserts `got` is `want`, or a NaN where `want` is `None`.
fn check(got: u32, want: Option<u32>, what: &str) {
    match want {
        Some(v) => assert_eq!(got, v, "{what}: {got:#x} vs {v:#x}"),
        None => assert!(
            got & 0x7fff_ffff > 0x7f80_0000,
            "{what}: {got:#x} is not NaN"
        ),
    }
}

/// The pseudocode of V_CUBEID/SC/TC/MA_F32 on f32 values: (id, sc, tc, ma).
fn cube_ref(x: f32, y: f32, z: f32) -> [f32; 4] {
    if z.abs() >= x.abs() && z.abs() >= y.abs() {
        let id = if z < 0.0 { 5.0 } else { 4.0 };
        let sc = if z < 0.0 { -x } else { x };
        [id, sc, -y, 2.0 * z]
    } else if y.abs() >= x.abs() {
        let id = if y < 0.0 { 3.0 } else { 2.0 };
        let tc = if y < 0.0 { -z } else { z };
        [id, x, tc, 2.0 * y]
    } else {
        let id = if x < 0.0 { 1.0 } else { 0.0 };
        let sc = if x < 0.0 { z } else { -z };
        [id, sc, -y, 2.0 * x]
    }
}

#[test]
fn cube() {
    // The table's values plus ties between the axes (|x| = |y| = |z|).
    let mut vals: Vec<u32> = F32.iter().copied().filter(|&x| x != 0x7fc0_0000).collect();
    vals.extend([0x4000_0000, 0xc000_0000]);
    let cases = triples(&vals);
    assert_eq!(targets_with(Op::VCubeidF32).len(), 7);
    for (t, wave) in targets_with(Op::VCubeidF32) {
        let src = "v_cubeid_f32 v10, v0, v1, v2\n\
                   v_cubesc_f32 v11, v0, v1, v2\n\
                   v_cubetc_f32 v12, v0, v1, v2\n\
                   v_cubema_f32 v13, v0, v1, v2";
        for mode in [0xf0, 0x00, 0xd0, 0xe0] {
            sweep(
                t,
                wave,
                src,
                mode,
                &cases,
                |w, l, c| {
                    for (k, &v) in c.iter().enumerate() {
                        w.set_vgpr(k, l, v);
                    }
                },
                |w, l, &[a, b, c], ctx| {
                    let (_, kin, kout) = env(mode);
                    let fl = |v: u32| f(flush(u64::from(v), S, kin) as u32);
                    let want = cube_ref(fl(a), fl(b), fl(c));
                    for (k, v) in want.iter().enumerate() {
                        let v = flush(u64::from(v.to_bits()), S, kout) as u32;
                        let got = w.vgpr(10 + k, l);
                        assert_eq!(got, v, "{ctx} cube[{k}]({a:#x}, {b:#x}, {c:#x})");
                    }
                },
            );
        }
    }
}

/// fdlibm's 2/pi (`two_over_pi` of `e_rem_pio2.c`): 1584 fraction bits, 24 a word.
const FDLIBM_TWO_OVER_PI: [u32; 66] = [
    0xA2F983, 0x6E4E44, 0x1529FC, 0x2757D1, 0xF534DD, 0xC0DB62, 0x95993C, 0x439041, 0xFE5163,
    0xABDEBB, 0xC561B7, 0x246E3A, 0x424DD2, 0xE00649, 0x2EEA09, 0xD1921C, 0xFE1DEB, 0x1CB129,
    0xA73EE8, 0x8235F5, 0x2EBB44, 0x84E99C, 0x7026B4, 0x5F7E41, 0x3991D6, 0x398353, 0x39F49C,
    0x845F8B, 0xBDF928, 0x3B1FF8, 0x97FFDE, 0x05980F, 0xEF2F11, 0x8B5A0A, 0x6D1F6D, 0x367ECF,
    0x27CB09, 0xB74F46, 0x3F669E, 0x5FEA2D, 0x7527BA, 0xC7EBE5, 0xF17B3D, 0x0739F7, 0x8A5292,
    0xEA6BFB, 0x5FB11F, 0x8D5D08, 0x560330, 0x46FC7B, 0x6BABF0, 0xCFBC20, 0x9AF436, 0x1DA9E3,
    0x91615E, 0xE61B08, 0x659985, 0x5F14A0, 0x68408D, 0xFFD880, 0x4D7327, 0x310606, 0x1556CA,
    0x73A8C9, 0x60E27B, 0xC08C6B,
];

/// Fraction bit `p` (0: the first after the binary point) of the guide's 1201-bit 2/pi.
fn two_over_pi_bit(p: u32) -> u64 {
    if p >= 1201 {
        return 0;
    }
    u64::from(FDLIBM_TWO_OVER_PI[(p / 24) as usize] >> (23 - p % 24) & 1)
}

fn trig_preop_ref(s0: u64, s1: u32) -> u64 {
    let e = (s0 >> 52 & 0x7ff) as i32;
    let shift = (s1 & 31) as i32 * 53 + (e - 1077).max(0);
    let seg = (0..53).fold(0u64, |acc, k| acc << 1 | two_over_pi_bit(shift as u32 + k));
    let scale = -53 - shift + if e >= 1968 { 128 } else { 0 };
    let x = Ex {
        neg: false,
        mag: u128::from(seg),
        exp: scale,
    };
    roundx(x, D, Rm::Ne)
}

#[test]
fn trig_preop() {
    // Segment 0 of a small argument is 2/pi truncated to 53 bits.
    assert_eq!(
        trig_preop_ref(0x3ff0_0000_0000_0000, 0),
        0x3fe4_5f30_6dc9_c882
    );
    let exps = [
        0u64, 1, 1023, 1076, 1077, 1078, 1100, 1500, 1967, 1968, 2000, 2046, 2047,
    ];
    let mut cases: Vec<(u64, u32)> = Vec::new();
    for (k, &e) in exps.iter().enumerate() {
        for seg in [0u32, 1, 2, 3, 7, 21, 22, 23, 31] {
            let m = u64::from(rnd(k as u32 * 40 + seg)) << 20 | u64::from(rnd(seg + 99));
            let s0 = e << 52 | m & 0xf_ffff_ffff_ffff | (seg as u64 & 1) << 63;
            // S1's bits above [4:0] are ignored.
            cases.push((s0, seg | rnd(seg + k as u32) & !31));
        }
    }
    assert_eq!(targets_with(Op::VTrigPreopF64).len(), 7);
    for (t, wave) in targets_with(Op::VTrigPreopF64) {
        sweep(
            t,
            wave,
            "v_trig_preop_f64 v[10:11], v[0:1], v2",
            0xf0,
            &cases,
            |w, l, &(a, b)| {
                set64(w, 0, l, a);
                w.set_vgpr(2, l, b);
            },
            |w, l, &(a, b), ctx| {
                let want = trig_preop_ref(a, b);
                assert_eq!(vgpr64(w, 10, l), want, "{ctx} trig_preop({a:#x}, {b})");
            },
        );
    }
}

/// V_MUL_LEGACY_F32 / V_MUL_DX9_ZERO_F32.
fn dx9_mul(x: u32, y: u32, mode: u32) -> Option<u32> {
    let (_, kin, _) = env(mode);
    let (x, y) = (
        flush(u64::from(x), S, kin) as u32,
        flush(u64::from(y), S, kin) as u32,
    );
    if x & 0x7fff_ffff == 0 || y & 0x7fff_ffff == 0 {
        return Some(0);
    }
    mul_ref(x, y, None, mode)
}

#[test]
fn dx9_and_legacy_mul() {
    let cases = triples(&F32);
    for mode in MODES {
        let (_, kin, _) = env(mode);
        let fl = |v: u32| flush(u64::from(v), S, kin) as u32;
        let mut tw = targets_with(Op::VMulLegacyF32);
        tw.extend(targets_with(Op::VMulDx9ZeroF32));
        assert_eq!(tw.len(), 7);
        for (t, wave) in tw {
            let gfx12 = t.family() == Family::Gfx12;
            let src = if gfx12 {
                "v_mul_dx9_zero_f32 v10, v0, v1\n\
                 v_fma_dx9_zero_f32 v11, v0, v1, v2\n\
                 v_mullit_f32 v12, v0, v1, v2\n\
                 v_pipeflush"
            } else {
                "v_mul_legacy_f32 v10, v0, v1\n\
                 v_clrexcp"
            };
            sweep(
                t,
                wave,
                src,
                mode,
                &cases,
                |w, l, c| {
                    for (k, &v) in c.iter().enumerate() {
                        w.set_vgpr(k, l, v);
                    }
                },
                |w, l, &[a, b, c], ctx| {
                    let what = format!("{ctx} ({a:#x}, {b:#x}, {c:#x})");
                    check(w.vgpr(10, l), dx9_mul(a, b, mode), &format!("{what} mul"));
                    if !gfx12 {
                        return;
                    }
                    let (x, y, z) = (fl(a), fl(b), fl(c));
                    let fma = if x & 0x7fff_ffff == 0 || y & 0x7fff_ffff == 0 {
                        (z & 0x7fff_ffff <= 0x7f80_0000).then_some(z)
                    } else {
                        mul_ref(x, y, Some(z), mode)
                    };
                    check(w.vgpr(11, l), fma, &format!("{what} fma_dx9_zero"));
                    let lit = if y == 0xff7f_ffff
                        || y == 0xff80_0000
                        || f(y).is_nan()
                        || f(z) <= 0.0
                        || f(z).is_nan()
                    {
                        Some(0xff7f_ffff)
                    } else {
                        mul_ref(x, y, None, mode)
                    };
                    check(w.vgpr(12, l), lit, &format!("{what} mullit"));
                },
            );
        }
    }
}

#[test]
fn exp_log_legacy() {
    // Exact points, then as v_exp_f32 / v_log_f32 on the same operands.
    let mut vals: Vec<u32> = F32.to_vec();
    vals.extend([0x4040_0000, 0xc302_0000, 0x4100_0000, 0x3e80_0000]);
    vals.extend((0..40).map(|k| rnd(k + 700)));
    assert_eq!(targets_with(Op::VExpLegacyF32).len(), 3);
    for (t, wave) in targets_with(Op::VExpLegacyF32) {
        let src = "v_exp_legacy_f32 v10, v0\n\
                   v_log_legacy_f32 v11, v0\n\
                   v_exp_f32 v12, v0\n\
                   v_log_f32 v13, v0";
        sweep(
            t,
            wave,
            src,
            0xf0,
            &vals,
            |w, l, &x| w.set_vgpr(0, l, x),
            |w, l, &x, ctx| {
                let (e, g) = (w.vgpr(10, l), w.vgpr(11, l));
                match x {
                    0x4040_0000 => assert_eq!(e, 0x4100_0000, "{ctx} exp_legacy(3)"),
                    // 2^-130 is an f32 denormal: flushed to 0.
                    0xc302_0000 => assert_eq!(e, 0, "{ctx} exp_legacy(-130)"),
                    0x4100_0000 => assert_eq!(g, 0x4040_0000, "{ctx} log_legacy(8)"),
                    0x3e80_0000 => assert_eq!(g, 0xc000_0000, "{ctx} log_legacy(0.25)"),
                    _ => {}
                }
                check(
                    e,
                    Some(w.vgpr(12, l)).filter(|v| !f(*v).is_nan()),
                    &format!("{ctx} exp_legacy({x:#x})"),
                );
                check(
                    g,
                    Some(w.vgpr(13, l)).filter(|v| !f(*v).is_nan()),
                    &format!("{ctx} log_legacy({x:#x})"),
                );
            },
        );
    }
}
