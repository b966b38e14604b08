//! Float min/max, assembled by llvm-mc-22 and run in the executor, against a CPU reference
//! written from the ISA guides' pseudo-code (Vega / CDNA3 V_MIN_F32, V_MAX_F32,
//! V_MIN3_F32, V_MAX3_F32, V_MIN_F64, V_MAX_F64):
//!
//! ```text
//! if (IEEE_MODE && S0 == sNaN) D = Quiet(S0);
//! else if (IEEE_MODE && S1 == sNaN) D = Quiet(S1);
//! else if (S0 == NaN) D = S1;
//! else if (S1 == NaN) D = S0;
//! else if (S0 == +0.0 && S1 == -0.0) D = S1;   // max: S0
//! else if (S0 == -0.0 && S1 == +0.0) D = S0;   // max: S1
//! else D = (S0 < S1 ? S0 : S1);                // max: S0 >= S1 ? S0 : S1
//! ```
//!
//! min3/max3 are two min/max. The IEEE mode bit (MODE[9]) is set with `s_setreg_imm32_b32`
//! on GFX9. GFX12's `v_min_num_*`/`v_max_num_*` (IEEE 754-2019 minimumNumber /
//! maximumNumber: a NaN, signalling or not, loses; -0 below +0) are the non-IEEE case.

#[path = "exec_util/asm.rs"]
mod asm;

use gpu_model::exec::Wave;
use gpu_model::{Family, Target};

/// f32 operands: signalling and quiet NaNs of both signs (with payloads), signed zeros,
/// infinities, denormals and ordinary values.
const F32: [u32; 14] = [
    0x7f80_0001, // sNaN
    0xff90_0000, // -sNaN
    0x7fc0_0000, // qNaN
    0xffc1_2345, // -qNaN with payload
    0x0000_0000,
    0x8000_0000,
    0x3f80_0000, // 1.0
    0xbf80_0000, // -1.0
    0x7f80_0000, // +inf
    0xff80_0000, // -inf
    0x0000_0001, // smallest denormal
    0x8000_0005,
    0x4020_0000, // 2.5
    0xc070_0000, // -3.75
];

/// f64 operands of the same kinds.
const F64: [u64; 10] = [
    0x7ff0_0000_0000_0001, // sNaN
    0xfff4_0000_0000_0000, // -sNaN
    0x7ff8_0000_0000_0000, // qNaN
    0x0000_0000_0000_0000,
    0x8000_0000_0000_0000,
    0x3ff0_0000_0000_0000, // 1.0
    0xc008_0000_0000_0000, // -3.0
    0x7ff0_0000_0000_0000, // +inf
    0x0000_0000_0000_0003, // denormal
    0xbcb0_0000_0000_0000, // tiny negative
];

/// The reference for one min (`max` false) or max, on bit patterns of a format whose
/// sign is bit `sign` and whose quiet bit is bit `quiet`; `lt` is the ordered compare.
fn reference(a: u64, b: u64, max: bool, ieee: bool, sign: u32, quiet: u32) -> u64 {
    let mag = |x: u64| x & ((1 << sign) - 1);
    let inf = ((1u64 << (sign - quiet - 1)) - 1) << (quiet + 1);
    let nan = |x: u64| mag(x) > inf;
    let snan = |x: u64| nan(x) && x >> quiet & 1 == 0;
    if ieee && snan(a) {
        return a | 1 << quiet;
    }
    if ieee && snan(b) {
        return b | 1 << quiet;
    }
    if nan(a) {
        return b;
    }
    if nan(b) {
        return a;
    }
    let neg_zero = 1u64 << sign;
    if a == 0 && b == neg_zero {
        return if max { a } else { b };
    }
    if a == neg_zero && b == 0 {
        return if max { b } else { a };
    }
    // Sign-magnitude order of non-NaN patterns.
    let key = |x: u64| {
        if x >> sign & 1 != 0 {
            -(mag(x) as i128)
        } else {
            mag(x) as i128
        }
    };
    if max {
        if key(a) >= key(b) {
            a
        } else {
            b
        }
    } else if key(a) < key(b) {
        a
    } else {
        b
    }
}

fn ref32(a: u32, b: u32, max: bool, ieee: bool) -> u32 {
    reference(a as u64, b as u64, max, ieee, 31, 22) as u32
}

fn ref64(a: u64, b: u64, max: bool, ieee: bool) -> u64 {
    reference(a, b, max, ieee, 63, 51)
}

/// Operands of `lane` in `pass`: every (a, b) pair of the tables over the passes, c
/// another table entry.
fn inputs(pass: usize, lane: usize) -> ([u32; 3], [u64; 2]) {
    let p = pass * 64 + lane;
    let n = F32.len();
    let a = [F32[p % n], F32[(p / n) % n], F32[(7 * p + 3) % n]];
    let m = F64.len();
    (a, [F64[p % m], F64[(p / m) % m]])
}

fn program(gfx12: bool, ieee: bool) -> String {
    let (mn, mx) = if gfx12 { ("_num", "_num") } else { ("", "") };
    let set = if gfx12 {
        String::new()
    } else {
        format!(
            "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 9, 1), {}\n",
            ieee as u32
        )
    };
    format!(
        "{set}\
         v_min{mn}_f32 v10, v0, v1\n\
         v_max{mx}_f32 v11, v0, v1\n\
         v_min3{mn}_f32 v12, v0, v1, v2\n\
         v_max3{mx}_f32 v13, v0, v1, v2\n\
         v_min{mn}_f64 v[14:15], v[4:5], v[6:7]\n\
         v_max{mx}_f64 v[16:17], v[4:5], v[6:7]\n\
         v_min{mn}_f32 v18, v0, v0\n\
         v_max{mx}_f32 v19, v0, v0"
    )
}

fn check(target: Target, wave_size: u32, ieee: bool) {
    let gfx12 = target.family() == Family::Gfx12;
    let code = asm::assemble_wave(target, wave_size, &program(gfx12, ieee));
    let lanes = wave_size as usize;
    let passes = (F32.len() * F32.len()).div_ceil(lanes);
    for pass in 0..passes {
        let w = asm::run(target, wave_size, &code, |w: &mut Wave| {
            // Denormals kept, round to nearest even (MODE 0 would flush them).
            w.mode = 0xf0;
            for l in 0..lanes {
                let (a, d) = inputs(pass, l);
                for (k, &x) in a.iter().enumerate() {
                    w.set_vgpr(k, l, x);
                }
                for (k, &x) in d.iter().enumerate() {
                    w.set_vgpr(4 + 2 * k, l, x as u32);
                    w.set_vgpr(5 + 2 * k, l, (x >> 32) as u32);
                }
            }
        });
        for l in 0..lanes {
            let ([a, b, c], [x, y]) = inputs(pass, l);
            let want32 = [
                (10, ref32(a, b, false, ieee), "min"),
                (11, ref32(a, b, true, ieee), "max"),
                (12, ref32(ref32(a, b, false, ieee), c, false, ieee), "min3"),
                (13, ref32(ref32(a, b, true, ieee), c, true, ieee), "max3"),
                (18, ref32(a, a, false, ieee), "min x, x"),
                (19, ref32(a, a, true, ieee), "max x, x"),
            ];
            for (r, want, what) in want32 {
                assert_eq!(
                    w.vgpr(r, l),
                    want,
                    "{} ieee {ieee} lane {l}: v_{what}_f32 of {a:#010x}, {b:#010x}, {c:#010x}",
                    target.name()
                );
            }
            for (r, max) in [(14, false), (16, true)] {
                let got = w.vgpr(r, l) as u64 | (w.vgpr(r + 1, l) as u64) << 32;
                assert_eq!(
                    got,
                    ref64(x, y, max, ieee),
                    "{} ieee {ieee} lane {l}: v_{}_f64 of {x:#018x}, {y:#018x}",
                    target.name(),
                    if max { "max" } else { "min" }
                );
            }
        }
    }
}

#[test]
fn min_max_gfx9_ieee_and_not() {
    for t in [Target::Gfx942, Target::Gfx90a, Target::Gfx950] {
        check(t, 64, true);
        check(t, 64, false);
    }
}

#[test]
fn min_max_num_gfx12() {
    check(Target::Gfx1201, 32, false);
    check(Target::Gfx1200, 64, false);
}

#[test]
fn reference_matches_the_host_on_ordinary_values() {
    // Where the host's min/max are specified (no NaN, no equal zeros), they agree.
    for &a in &F32[6..] {
        for &b in &F32[6..] {
            let (x, y) = (f32::from_bits(a), f32::from_bits(b));
            if x == y {
                continue;
            }
            assert_eq!(ref32(a, b, false, true), x.min(y).to_bits());
            assert_eq!(ref32(a, b, true, false), x.max(y).to_bits());
        }
    }
}

/// An f32 pattern with a denormal flushed to zero of the same sign unless `keep`.
fn flush32(x: u32, keep: bool) -> u32 {
    if !keep && x & 0x7f80_0000 == 0 {
        x & 0x8000_0000
    } else {
        x
    }
}

fn flush64(x: u64, keep: bool) -> u64 {
    if !keep && x & 0x7ff0_0000_0000_0000 == 0 {
        x & 1 << 63
    } else {
        x
    }
}

/// Min/max and compares under MODE denormal fields (`[5:4]` f32, `[7:6]` f64: bit 0 keeps
/// input denormals, bit 1 output denormals; the round fields, set to non-default values
/// too, do not apply to these exact operations): inputs are flushed before the operation,
/// a denormal result after it.
fn check_mode(target: Target, wave_size: u32, mode: u32) {
    let gfx12 = target.family() == Family::Gfx12;
    let num = if gfx12 { "_num" } else { "" };
    let sd = |n: u32| {
        if wave_size == 32 {
            format!("s{n}")
        } else {
            format!("s[{n}:{}]", n + 1)
        }
    };
    let src = format!(
        "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 8), {mode:#x}\n\
         v_min{num}_f32 v10, v0, v1\n\
         v_max{num}_f32 v11, v0, v1\n\
         v_min{num}_f64 v[14:15], v[4:5], v[6:7]\n\
         v_max{num}_f64 v[16:17], v[4:5], v[6:7]\n\
         v_cmp_lt_f32_e64 {}, v0, v1\n\
         v_cmp_eq_f32_e64 {}, v0, v1\n\
         v_cmp_lt_f64_e64 {}, v[4:5], v[6:7]\n\
         v_cmp_eq_f64_e64 {}, v[4:5], v[6:7]",
        sd(20),
        sd(22),
        sd(24),
        sd(26)
    );
    let code = asm::assemble_wave(target, wave_size, &src);
    let lanes = wave_size as usize;
    let (k32, k64) = ((mode >> 4) & 3, (mode >> 6) & 3);
    let (i32_, o32, i64_, o64) = (k32 & 1 != 0, k32 & 2 != 0, k64 & 1 != 0, k64 & 2 != 0);
    let passes = (F32.len() * F32.len()).div_ceil(lanes);
    for pass in 0..passes {
        let w = asm::run(target, wave_size, &code, |w: &mut Wave| {
            for l in 0..lanes {
                let (a, d) = inputs(pass, l);
                w.set_vgpr(0, l, a[0]);
                w.set_vgpr(1, l, a[1]);
                for (k, &x) in d.iter().enumerate() {
                    w.set_vgpr(4 + 2 * k, l, x as u32);
                    w.set_vgpr(5 + 2 * k, l, (x >> 32) as u32);
                }
            }
        });
        let mask = |n: usize| {
            let lo = w.sgpr(n) as u64;
            if wave_size == 32 {
                lo
            } else {
                lo | (w.sgpr(n + 1) as u64) << 32
            }
        };
        for l in 0..lanes {
            let ([a, b, _], [x, y]) = inputs(pass, l);
            let (fa, fb) = (flush32(a, i32_), flush32(b, i32_));
            let (fx, fy) = (flush64(x, i64_), flush64(y, i64_));
            let ctx = format!(
                "{} mode {mode:#04x} lane {l}: {a:#010x}, {b:#010x} / {x:#018x}, {y:#018x}",
                target.name()
            );
            for (r, max) in [(10, false), (11, true)] {
                let want = flush32(ref32(fa, fb, max, false), o32);
                assert_eq!(w.vgpr(r, l), want, "{ctx}: f32 max {max}");
            }
            for (r, max) in [(14, false), (16, true)] {
                let got = w.vgpr(r, l) as u64 | (w.vgpr(r + 1, l) as u64) << 32;
                let want = flush64(ref64(fx, fy, max, false), o64);
                assert_eq!(got, want, "{ctx}: f64 max {max}");
            }
            let (p, q) = (f32::from_bits(fa), f32::from_bits(fb));
            let (u, v) = (f64::from_bits(fx), f64::from_bits(fy));
            let want = [(20, p < q), (22, p == q), (24, u < v), (26, u == v)];
            for (s, want) in want {
                assert_eq!(mask(s) >> l & 1 != 0, want, "{ctx}: compare into s{s}");
            }
        }
    }
}

#[test]
fn min_max_compare_under_mode_denormals() {
    for dm in 0..4 {
        // Round fields non-default as well (toward +inf / toward zero).
        let mode = 1 | 3 << 2 | dm << 4 | dm << 6;
        check_mode(Target::Gfx942, 64, mode);
        check_mode(Target::Gfx1201, 32, mode);
    }
    check_mode(Target::Gfx942, 64, 0xf0);
    check_mode(Target::Gfx942, 64, 0x30);
    check_mode(Target::Gfx950, 64, 0xc0);
}
