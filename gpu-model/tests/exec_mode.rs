//! MODE register effects on the float operations beyond add/sub/mul/fma (those are in
//! `exec_fmode.rs`): ldexp, fract, f16 and packed fma/add/mul, packed f32, the
//! mixed-precision FMAs, `v_div_fmas`, int -> f16 conversion, `v_cvt_pkrtz`, med3 and f16
//! min/max (with the GFX9 IEEE bit: a signalling NaN comes back quieted, f16 included),
//! denormal flushing of rounding-to-integral, frexp and f32 -> int, the f32
//! transcendentals that flush in every mode, the f16/f64 ones that follow MODE, and the
//! GFX12 scalar float ops. Assembled by llvm-mc-22, run in the executor on gfx942 and
//! gfx1201.
//!
//! MODE (Vega / CDNA3 / RDNA4 ISA guides; LLVM `SIDefines.h`): `[1:0]` f32 round mode,
//! `[3:2]` f64/f16 round mode (nearest even, +inf, -inf, toward zero), `[5:4]` f32 and
//! `[7:6]` f64/f16 denormal mode (bit 0 keeps input denormals, bit 1 output denormals),
//! `[9]` IEEE (GFX9).
//!
//! The reference is independent of the executor: each exact result is an integer times a
//! power of two, rounded by the IEEE 754 rules (`exec_util/fref.rs`); operations are
//! taken from the guides' definitions (V_FRACT: `S0 + -floor(S0)`, at most 0x3f7fffff;
//! V_DIV_FMAS: `fma * 2^32` (f64: 2^64) where VCC is set; V_MED3_F32: V_MIN3 with a NaN,
//! else the V_MAX of the two operands other than the one equal to V_MAX3; V_MIN/MAX_F16
//! like the f32 ones). Edge lanes carry hand-picked values: denormal operands and results,
//! overflow, values whose rounding differs per direction.

#[path = "exec_util/asm.rs"]
mod asm;
#[path = "exec_util/fref.rs"]
mod fref;

use fref::{addx, as_f64, flush, med3, minmax, mulx, neg, rm, roundx, val, Ex, Fmt, Rm, D, H, S};

use gpu_model::exec::Wave;
use gpu_model::{Family, Target};

/// MODE fields: round and denormal per format group.
#[derive(Clone, Copy, Debug)]
struct Mode {
    r32: Rm,
    r64: Rm,
    d32: u32,
    d64: u32,
    ieee: bool,
}

impl Mode {
    fn of(m: u32) -> Mode {
        Mode {
            r32: rm(m),
            r64: rm(m >> 2),
            d32: (m >> 4) & 3,
            d64: (m >> 6) & 3,
            ieee: m >> 9 & 1 != 0,
        }
    }
    /// (round, keep-in, keep-out) of format `f`.
    fn env(self, f: Fmt) -> (Rm, bool, bool) {
        let (r, d) = if f.m == 23 {
            (self.r32, self.d32)
        } else {
            (self.r64, self.d64)
        };
        (r, d & 1 != 0, d & 2 != 0)
    }
}

/// `f(flushed operands)` rounded in format `f`'s environment; None when an operand is a
/// NaN or infinity (NaN propagation is not what this file checks).
fn arith(m: Mode, f: Fmt, ops: &[u64], g: impl Fn(&[Ex], Rm) -> Ex) -> Option<u64> {
    let (r, ki, ko) = m.env(f);
    if ops.iter().any(|&x| f.nan(x) || f.inf(x)) {
        return None;
    }
    let v: Vec<Ex> = ops.iter().map(|&x| val(flush(x, f, ki), f)).collect();
    Some(flush(roundx(g(&v, r), f, r), f, ko))
}

fn fma3(v: &[Ex], r: Rm) -> Ex {
    addx(mulx(v[0], v[1]), v[2], r)
}

/// Per-lane inputs.
struct In {
    a: [u32; 3],
    d: [u64; 3],
    h: [u32; 3],
    e: i32,
    u: u32,
}

fn inputs(l: usize, salt: u32) -> In {
    let hs = |k: u32| asm::hash(7919 * l as u32 + 131 * k + salt);
    let f32v = |k| {
        let r = hs(k);
        (r & 0x807f_ffff) | (127 - 40 + (r >> 23) % 81) << 23
    };
    let f64v = |k| {
        let r = (hs(k) as u64) << 32 | hs(k + 50) as u64;
        (r & 0x800f_ffff_ffff_ffff) | (1023 - 60 + (r >> 52) % 121) << 52
    };
    let f16v = |k| {
        let r = hs(k) & 0xffff;
        if r & 0x7c00 == 0x7c00 {
            r & 0xbfff
        } else {
            r
        }
    };
    let mut x = In {
        a: [f32v(1), f32v(2), f32v(3)],
        d: [f64v(4), f64v(5), f64v(6)],
        h: [f16v(7), f16v(8), f16v(9)],
        e: (hs(10) % 61) as i32 - 30,
        u: hs(11) & 0xffff,
    };
    match l {
        // Denormal operands everywhere.
        0 => {
            x.a = [0x8000_0300, 0x0000_0101, 0x0000_0007];
            x.d = [0x8000_0000_0300_0001, 0x0000_0000_0000_0101, 3];
            x.h = [0x8003, 0x0101, 0x0002];
            x.e = 3;
        }
        // Results in the denormal range: ldexp down by 130 (f32) / 1030 (f64) / 20 (f16).
        1 => {
            x.a = [0x3fc0_0001, 0x1d00_0003, 0x8000_0005];
            x.d = [
                0x3ff8_0000_0000_0001,
                0x1f10_0000_0000_0003,
                0x8000_0000_0000_0005,
            ];
            x.h = [0x3e01, 0x0c03, 0x8001];
            x.e = -130;
        }
        // Overflow.
        2 => {
            x.a = [0x7f7f_ffff, 0x7f7f_fffe, 0x7f7f_ffff];
            x.d = [
                0x7fef_ffff_ffff_ffff,
                0x7fef_ffff_ffff_fffe,
                0x7fef_ffff_ffff_ffff,
            ];
            x.h = [0x7bff, 0x7bfe, 0x7bff];
            x.e = 2;
            x.u = 65535;
        }
        // A tiny addend decides the direction; fract of a tiny negative number.
        3 => {
            x.a = [0xb280_0001, 0x3f80_0000, 0x2f80_0000];
            x.d = [
                0xbca0_0000_0000_0001,
                0x3ff0_0000_0000_0000,
                0x3c00_0000_0000_0001,
            ];
            x.h = [0x3c00, 0x3c00, 0x0001];
            x.u = 2049;
        }
        // rcp of 2^127 is a denormal (flushed in every mode); f16 rcp of 2^15 is one too.
        4 => {
            x.a[0] = 0x7f00_0000;
            x.h[0] = 0x7800;
            x.d[0] = 0x0000_0000_0000_0009;
        }
        // exp2(-140) is a denormal (flushed in every mode); f16 rcp of a denormal.
        5 => {
            x.a[0] = 0xc30c_0000;
            x.h[0] = 0x0200;
        }
        // NaNs for min/max/med3: signalling and quiet, both orders, with payloads.
        6 => {
            x.a = [0x7f80_0001, 0x3f80_0000, 0x4000_0000];
            x.h = [0x7c01, 0x3c00, 0x0000];
        }
        7 => {
            x.a = [0x3f80_0000, 0xff90_0000, 0x7fc0_0000];
            x.h = [0x3c00, 0xfd23, 0x0000];
        }
        8 => {
            x.a = [0x7fc0_0002, 0x3f80_0000, 0x8000_0000];
            x.h = [0x7e05, 0xbc00, 0x0000];
        }
        9 => {
            x.a = [0x0000_0000, 0x8000_0000, 0x0000_0001];
            x.h = [0x8000, 0x0000, 0x0000];
        }
        _ => {}
    }
    x
}

fn program(gfx12: bool, mode: u32, sopp: bool) -> String {
    let set = if sopp {
        format!(
            "s_round_mode {:#x}\ns_denorm_mode {:#x}",
            mode & 0xf,
            mode >> 4 & 0xf
        )
    } else {
        let bits = if gfx12 { 8 } else { 10 };
        format!("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, {bits}), {mode:#x}")
    };
    let (l, n) = if gfx12 { (".l", "_num") } else { ("", "") };
    let mut p = format!(
        "{set}\n\
         v_ldexp_f32 v10, v0, v3\n\
         v_ldexp_f64 v[12:13], v[4:5], v3\n\
         v_ldexp_f16 v14{l}, v20{l}, v3{l}\n\
         v_fract_f32 v15, v0\n\
         v_fract_f64 v[16:17], v[4:5]\n\
         v_fma_f16 v18{l}, v20{l}, v21{l}, v22{l}\n\
         v_pk_add_f16 v19, v23, v24\n\
         v_pk_mul_f16 v25, v23, v24\n\
         v_pk_fma_f16 v26, v23, v24, v27\n\
         v_fma_mix_f32 v32, v0, v20, v2 op_sel_hi:[0,1,0]\n\
         v_fma_mixlo_f16 v33, v0, v1, v20 op_sel_hi:[0,0,1]\n\
         v_div_fmas_f32 v34, v0, v1, v2\n\
         v_div_fmas_f64 v[36:37], v[4:5], v[6:7], v[8:9]\n\
         v_cvt_f16_u16 v38{l}, v39{l}\n\
         v_med3{n}_f32 v41, v0, v1, v2\n\
         v_min{n}_f16 v42{l}, v20{l}, v21{l}\n\
         v_max{n}_f16 v43{l}, v20{l}, v21{l}\n\
         v_pk_min{n}_f16 v44, v23, v24\n\
         v_pk_max{n}_f16 v45, v23, v24\n\
         v_floor_f32 v46, v0\n\
         v_rcp_f32 v47, v0\n\
         v_exp_f32 v48, v0\n\
         v_rcp_f16 v49{l}, v20{l}\n\
         v_sqrt_f64 v[50:51], v[4:5]\n\
         v_frexp_mant_f32 v52, v0\n\
         v_floor_f16 v55{l}, v20{l}\n"
    );
    if gfx12 {
        p += "v_cvt_pk_rtz_f16_f32 v40, v0, v1\n\
              v_cvt_floor_i32_f32 v53, v0\n\
              s_add_f32 s10, s0, s1\n\
              s_mul_f32 s11, s0, s1\n\
              s_fmac_f32 s12, s0, s1\n\
              s_cvt_f32_u32 s13, s3\n\
              s_min_num_f32 s14, s4, s5\n\
              s_floor_f32 s15, s4\n";
    } else {
        p += "v_cvt_pkrtz_f16_f32 v40, v0, v1\n\
              v_cvt_flr_i32_f32 v53, v0\n\
              v_pk_add_f32 v[28:29], v[56:57], v[58:59]\n\
              v_pk_fma_f32 v[30:31], v[56:57], v[58:59], v[60:61]\n";
    }
    p
}

/// The f32 `x` read as a packed pair's half for the packed f32 ops.
fn pairs(x: &In) -> [[u32; 2]; 3] {
    [[x.a[0], x.a[2]], [x.a[1], x.a[0]], [x.a[2], x.a[1]]]
}

const VCC_PATTERN: u64 = 0x5a5a_5a5a_5a5a_5a5a;

fn check(target: Target, wave: u32, mode: u32, sopp: bool) {
    let gfx12 = target.family() == Family::Gfx12;
    let code = asm::assemble(target, &program(gfx12, mode, sopp));
    let lanes = wave as usize;
    let salt = mode * 977;
    let w = asm::run(target, wave, &code, |w: &mut Wave| {
        for l in 0..lanes {
            let x = inputs(l, salt);
            for k in 0..3 {
                w.set_vgpr(k, l, x.a[k]);
                w.set_vgpr(4 + 2 * k, l, x.d[k] as u32);
                w.set_vgpr(5 + 2 * k, l, (x.d[k] >> 32) as u32);
                w.set_vgpr(20 + k, l, x.h[k] | 0xdead_0000);
            }
            w.set_vgpr(3, l, x.e as u32);
            w.set_vgpr(23, l, x.h[0] | x.h[1] << 16);
            w.set_vgpr(24, l, x.h[1] | x.h[2] << 16);
            w.set_vgpr(27, l, x.h[2] | x.h[0] << 16);
            w.set_vgpr(39, l, x.u);
            w.set_vgpr(33, l, 0xbeef_0000);
            for (k, p) in pairs(&x).iter().enumerate() {
                w.set_vgpr(56 + 2 * k, l, p[0]);
                w.set_vgpr(57 + 2 * k, l, p[1]);
            }
        }
        w.write_mask(
            106,
            VCC_PATTERN & if wave == 32 { 0xffff_ffff } else { u64::MAX },
        );
        let s = inputs(40, salt);
        for (k, v) in [
            s.a[0],
            s.a[1],
            s.a[2],
            s.u * 977 + 1,
            0x8000_0003,
            0x0000_0002,
        ]
        .into_iter()
        .enumerate()
        {
            w.set_sgpr(k, v);
        }
        w.set_sgpr(12, s.a[2]);
    });
    let m = Mode::of(mode);
    let name = format!("{} mode {mode:#05x}", target.name());
    let g64 = |r: usize, l: usize| w.vgpr(r, l) as u64 | (w.vgpr(r + 1, l) as u64) << 32;
    for l in 0..lanes {
        let x = inputs(l, salt);
        let a = x.a.map(|v| v as u64);
        let h = x.h.map(|v| v as u64);
        let ctx = format!(
            "{name} lane {l}: f32 {:08x?} f64 {:016x?} f16 {:04x?} e {}",
            x.a, x.d, x.h, x.e
        );
        let eq = |got: u64, want: Option<u64>, what: &str| {
            if let Some(want) = want {
                assert_eq!(got, want, "{what}: {ctx}: got {got:#x} want {want:#x}");
            }
        };
        let e = x.e;
        let ld = |v: &[Ex], _: Rm| Ex {
            exp: v[0].exp + e,
            ..v[0]
        };
        eq(
            w.vgpr(10, l) as u64,
            arith(m, S, &a[..1], ld),
            "v_ldexp_f32",
        );
        eq(g64(12, l), arith(m, D, &x.d[..1], ld), "v_ldexp_f64");
        eq(
            w.vgpr(14, l) as u64 & 0xffff,
            arith(m, H, &h[..1], ld),
            "v_ldexp_f16",
        );
        eq(
            w.vgpr(15, l) as u64,
            fract(m, S, a[0], 0x3f7f_ffff),
            "v_fract_f32",
        );
        eq(
            g64(16, l),
            fract(m, D, x.d[0], 0x3fef_ffff_ffff_ffff),
            "v_fract_f64",
        );
        eq(
            w.vgpr(18, l) as u64 & 0xffff,
            arith(m, H, &h, fma3),
            "v_fma_f16",
        );
        // Packed f16: lo = (h0, h1, h2), hi = (h1, h2, h0).
        let pk = |g: &dyn Fn(&[Ex], Rm) -> Ex, n: usize| -> Option<u64> {
            let lo = arith(m, H, &[h[0], h[1], h[2]][..n], g)?;
            let hi = arith(m, H, &[h[1], h[2], h[0]][..n], g)?;
            Some(lo | hi << 16)
        };
        let add2 = |v: &[Ex], r: Rm| addx(v[0], v[1], r);
        let mul2 = |v: &[Ex], _: Rm| mulx(v[0], v[1]);
        eq(w.vgpr(19, l) as u64, pk(&add2, 2), "v_pk_add_f16");
        eq(w.vgpr(25, l) as u64, pk(&mul2, 2), "v_pk_mul_f16");
        eq(w.vgpr(26, l) as u64, pk(&fma3, 3), "v_pk_fma_f16");
        eq(
            w.vgpr(32, l) as u64,
            mix(m, [(a[0], S), (h[0], H), (a[2], S)], S),
            "v_fma_mix_f32",
        );
        eq(
            w.vgpr(33, l) as u64,
            mix(m, [(a[0], S), (a[1], S), (h[0], H)], H).map(|v| v | 0xbeef_0000),
            "v_fma_mixlo_f16",
        );
        let vcc = VCC_PATTERN >> l & 1 != 0;
        // With VCC: 2^64 (f64: 2^128) when S2's biased exponent is above the bias, else
        // 2^-64 (2^-128), before the one rounding (see `div_fmas_scaled32`).
        let sc = |s: i32| {
            move |v: &[Ex], r: Rm| {
                let x = fma3(v, r);
                Ex {
                    exp: x.exp + if vcc { s } else { 0 },
                    ..x
                }
            }
        };
        let s32 = if (a[2] >> 23) & 0xff > 127 { 64 } else { -64 };
        let s64 = if (x.d[2] >> 52) & 0x7ff > 1023 {
            128
        } else {
            -128
        };
        eq(
            w.vgpr(34, l) as u64,
            arith(m, S, &a, sc(s32)),
            "v_div_fmas_f32",
        );
        eq(g64(36, l), arith(m, D, &x.d, sc(s64)), "v_div_fmas_f64");
        let u = Ex {
            neg: false,
            mag: x.u as u128,
            exp: 0,
        };
        eq(
            w.vgpr(38, l) as u64 & 0xffff,
            Some(roundx(u, H, m.r64)),
            "v_cvt_f16_u16",
        );
        eq(
            w.vgpr(40, l) as u64,
            pkrtz(m, a[0], a[1]),
            "v_cvt_pkrtz_f16_f32",
        );
        // Min/max/med3: exact; operands and result flushed; IEEE bit on GFX9.
        let fl = |v: u64, f: Fmt| flush(v, f, m.env(f).1);
        let fo = |v: u64, f: Fmt| flush(v, f, m.env(f).2);
        let md = fo(med3(fl(a[0], S), fl(a[1], S), fl(a[2], S), m.ieee, S), S);
        eq(w.vgpr(41, l) as u64, Some(md), "v_med3_f32");
        for (r, max, what) in [(42, false, "v_min_f16"), (43, true, "v_max_f16")] {
            let want = fo(minmax(fl(h[0], H), fl(h[1], H), max, m.ieee, H), H);
            eq(w.vgpr(r, l) as u64 & 0xffff, Some(want), what);
        }
        for (r, max, what) in [(44, false, "v_pk_min_f16"), (45, true, "v_pk_max_f16")] {
            let lo = fo(minmax(fl(h[0], H), fl(h[1], H), max, m.ieee, H), H);
            let hi = fo(minmax(fl(h[1], H), fl(h[2], H), max, m.ieee, H), H);
            eq(w.vgpr(r, l) as u64, Some(lo | hi << 16), what);
        }
        // Integral results: only input flushing applies (floor(-denormal) is -1).
        let fa = f32::from_bits(fl(a[0], S) as u32);
        if !fa.is_nan() {
            eq(
                w.vgpr(46, l) as u64,
                Some(fa.floor().to_bits() as u64),
                "v_floor_f32",
            );
            eq(
                w.vgpr(53, l) as u64,
                Some(fa.floor() as i32 as u32 as u64),
                "v_cvt_flr_i32_f32",
            );
        }
        let fh = fl(h[0], H);
        if !H.nan(fh) {
            let fv = as_f64(fh, H).floor();
            let want = if fv == 0.0 && fh & 0x8000 != 0 {
                0x8000
            } else {
                roundx(val_f64(fv), H, Rm::Ne)
            };
            eq(w.vgpr(55, l) as u64 & 0xffff, Some(want), "v_floor_f16");
        }
        // f32 transcendentals flush in every mode (hand-computed edge values).
        match l {
            0 => {
                eq(
                    w.vgpr(47, l) as u64,
                    Some(0xff80_0000),
                    "v_rcp_f32 of -denormal",
                );
                eq(
                    w.vgpr(48, l) as u64,
                    Some(0x3f80_0000),
                    "v_exp_f32 of -denormal",
                );
                let mant = if m.d32 & 1 != 0 {
                    0xbf40_0000
                } else {
                    0x8000_0000
                };
                eq(
                    w.vgpr(52, l) as u64,
                    Some(mant),
                    "v_frexp_mant_f32 of -0x300p-149",
                );
            }
            4 => {
                eq(w.vgpr(47, l) as u64, Some(0), "v_rcp_f32 of 2^127");
                let r = if m.d64 & 2 != 0 { 0x0200 } else { 0 };
                eq(w.vgpr(49, l) as u64 & 0xffff, Some(r), "v_rcp_f16 of 2^15");
                // sqrt(9 * 2^-1074) = 3 * 2^-537 (normal), or 0 when the input is flushed.
                let s = if m.d64 & 1 != 0 {
                    0x1e78_0000_0000_0000
                } else {
                    0
                };
                eq(g64(50, l), Some(s), "v_sqrt_f64 of a denormal");
            }
            5 => {
                eq(w.vgpr(48, l) as u64, Some(0), "v_exp_f32 of -140");
                let r = if m.d64 & 1 != 0 { 0x7800 } else { 0x7c00 };
                eq(w.vgpr(49, l) as u64 & 0xffff, Some(r), "v_rcp_f16 of 2^-15");
            }
            _ => {}
        }
        if !gfx12 {
            for (r, op) in [(28, 0), (30, 1)] {
                let p = pairs(&x);
                for (hf, ops) in (0..2).map(|hf| (hf, p.map(|q| q[hf] as u64))) {
                    let want = if op == 0 {
                        arith(m, S, &ops[..2], add2)
                    } else {
                        arith(m, S, &ops, fma3)
                    };
                    eq(
                        w.vgpr(r + hf, l) as u64,
                        want,
                        ["v_pk_add_f32", "v_pk_fma_f32"][op],
                    );
                }
            }
        }
    }
    if gfx12 {
        let s = inputs(40, salt);
        let sa = s.a.map(|v| v as u64);
        let ctx = format!("{name} scalar {:08x?}", s.a);
        let sg = |n: usize| w.sgpr(n) as u64;
        let chk = |got: u64, want: Option<u64>, what: &str| {
            assert_eq!(Some(got), want, "{what}: {ctx}");
        };
        chk(
            sg(10),
            arith(m, S, &sa[..2], |v, r| addx(v[0], v[1], r)),
            "s_add_f32",
        );
        chk(
            sg(11),
            arith(m, S, &sa[..2], |v, _| mulx(v[0], v[1])),
            "s_mul_f32",
        );
        chk(sg(12), arith(m, S, &sa, fma3), "s_fmac_f32");
        let u = Ex {
            neg: false,
            mag: (s.u * 977 + 1) as u128,
            exp: 0,
        };
        chk(sg(13), Some(roundx(u, S, m.r32)), "s_cvt_f32_u32");
        // s_min_num(-3p-149, 2p-149): -0 vs +0 when flushed (-0 is the smaller).
        let fl = |v: u64| flush(v, S, m.d32 & 1 != 0);
        let mn = flush(
            minmax(fl(0x8000_0003), fl(2), false, false, S),
            S,
            m.d32 & 2 != 0,
        );
        chk(sg(14), Some(mn), "s_min_num_f32");
        let fv = if m.d32 & 1 != 0 {
            0xbf80_0000
        } else {
            0x8000_0000
        };
        chk(sg(15), Some(fv), "s_floor_f32 of -denormal");
    }
}

/// An f64 holding an exactly representable value, as `Ex`.
fn val_f64(v: f64) -> Ex {
    val(v.to_bits(), D)
}

/// V_FRACT: `x + -floor(x)` rounded, at most `below_one`; operand and result flushed.
fn fract(m: Mode, f: Fmt, x: u64, below_one: u64) -> Option<u64> {
    let (r, ki, ko) = m.env(f);
    let xf = flush(x, f, ki);
    if f.nan(xf) || f.inf(xf) {
        return None;
    }
    let v = val(xf, f);
    let fl = if v.exp >= 0 || v.mag == 0 {
        v
    } else {
        let sh = (-v.exp) as u32;
        let (q, rest) = if sh >= 128 {
            (0, v.mag)
        } else {
            (v.mag >> sh, v.mag & ((1 << sh) - 1))
        };
        let q = if v.neg && rest != 0 { q + 1 } else { q };
        Ex {
            neg: v.neg,
            mag: q,
            exp: 0,
        }
    };
    let d = roundx(addx(v, neg(fl), r), f, r);
    let d = if d & f.sign() == 0 && d > below_one {
        below_one
    } else {
        d
    };
    Some(flush(d, f, ko))
}

/// Mixed-precision fma: operands of their own formats (flushed by their own fields),
/// one rounding into `out`.
fn mix(m: Mode, ops: [(u64, Fmt); 3], out: Fmt) -> Option<u64> {
    if ops.iter().any(|&(x, f)| f.nan(x) || f.inf(x)) {
        return None;
    }
    let v = ops.map(|(x, f)| val(flush(x, f, m.env(f).1), f));
    let (r, _, ko) = m.env(out);
    Some(flush(roundx(fma3(&v, r), out, r), out, ko))
}

/// v_cvt_pkrtz_f16_f32: toward zero whatever MODE says; f32 input flushing, f16 output.
fn pkrtz(m: Mode, a: u64, b: u64) -> Option<u64> {
    let one = |x: u64| {
        if S.nan(x) || S.inf(x) {
            return None;
        }
        let v = val(flush(x, S, m.d32 & 1 != 0), S);
        Some(flush(roundx(v, H, Rm::Zero), H, m.d64 & 2 != 0))
    };
    Some(one(a)? | one(b)? << 16)
}

/// Round modes crossed with denormal modes, split fields, and the GFX9 IEEE bit.
fn modes(gfx12: bool) -> Vec<u32> {
    let mut v = Vec::new();
    for r in 0..4u32 {
        for d in [0u32, 1, 2, 3] {
            v.push(r | (3 - r) << 2 | d << 4 | (3 - d) << 6);
        }
    }
    // 0xf0 is the default mode: the host-arithmetic fast paths, checked the same way.
    v.extend([0xf1, 0xf6, 0x3b, 0xc4, 0xf0]);
    if !gfx12 {
        let with_ieee: Vec<u32> = v.iter().map(|m| m | 0x200).collect();
        v.extend(with_ieee);
    }
    v
}

#[test]
fn mode_ops_gfx942() {
    for m in modes(false) {
        check(Target::Gfx942, 64, m, false);
    }
}

#[test]
fn mode_ops_gfx1201() {
    for m in modes(true) {
        check(Target::Gfx1201, 32, m, m & 1 != 0);
    }
}

#[test]
fn reference_matches_the_host_in_nearest_even() {
    // Where the host's IEEE arithmetic applies (nearest even, denormals kept), the
    // reference agrees with it: a check of the reference itself.
    let m = Mode::of(0xf0);
    for l in 10..400 {
        let x = inputs(l, 5);
        let a = x.a.map(|v| v as u64);
        let [p, q, r] = x.a.map(f32::from_bits);
        let got = arith(m, S, &a, fma3).unwrap();
        assert_eq!(got, p.mul_add(q, r).to_bits() as u64);
        let got = arith(m, S, &a[..2], |v, r| addx(v[0], v[1], r)).unwrap();
        assert_eq!(got, (p + q).to_bits() as u64);
        let [dp, dq, dr] = x.d.map(f64::from_bits);
        assert_eq!(
            arith(m, D, &x.d, fma3).unwrap(),
            dp.mul_add(dq, dr).to_bits()
        );
        let e = x.e;
        let ld = arith(m, S, &a[..1], |v: &[Ex], _: Rm| Ex {
            exp: v[0].exp + e,
            ..v[0]
        });
        let want = (p as f64 * 2f64.powi(e)) as f32;
        assert_eq!(ld.unwrap(), want.to_bits() as u64);
        assert_eq!(
            fract(m, S, a[0], 0x3f7f_ffff).unwrap(),
            (p - p.floor()).min(f32::from_bits(0x3f7f_ffff)).to_bits() as u64
        );
    }
}
