//! MODE register effects, assembled by llvm-mc-22 and run in the executor: directed
//! rounding (MODE[1:0] f32, MODE[3:2] f64/f16: nearest even, +inf, -inf, toward zero) and
//! denormal flushing (MODE[5:4] f32, MODE[7:6] f64/f16: bit 0 keeps input denormals, bit
//! 1 keeps output denormals) of f32/f64/f16 add, sub, mul, fma and conversions, set by
//! `s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 8)` (GFX9 and GFX12) and by GFX12
//! `s_round_mode` / `s_denorm_mode`. Field meanings: Vega / CDNA3 / RDNA4 ISA guides,
//! MODE register; LLVM `SIDefines.h` FP_ROUND_* and FP_DENORM_*.
//!
//! The CPU reference (`exec_util/fref.rs`, shared with `exec_mode.rs`) is independent of
//! the executor's arithmetic: it computes each exact result as an integer times a power of
//! two and rounds it with the IEEE 754 rules for the four directions.

#[path = "exec_util/asm.rs"]
mod asm;
#[path = "exec_util/fref.rs"]
mod fref;

use fref::{addx, flush, mulx, neg, roundx, val, Ex, Fmt, Rm, D, H, S};

use gpu_model::exec::Wave;
use gpu_model::Target;

/// Reference of one binary/ternary operation in format `f` under MODE fields
/// (round `rm`, denorm `dm`): inputs flushed, exact result rounded once, output flushed.
fn reference(f: Fmt, rm: Rm, dm: u32, op: &str, x: &[u64]) -> u64 {
    let x: Vec<Ex> = x
        .iter()
        .map(|&b| val(flush(b, f, dm & 1 != 0), f))
        .collect();
    let r = match op {
        "add" => addx(x[0], x[1], rm),
        "sub" => addx(x[0], neg(x[1]), rm),
        "mul" => mulx(x[0], x[1]),
        _ => addx(mulx(x[0], x[1]), x[2], rm),
    };
    flush(roundx(r, f, rm), f, dm & 2 != 0)
}

fn lane_inputs(l: usize) -> ([u32; 3], [u64; 3], u32, [u32; 2]) {
    let h = |k: u32| asm::hash(1000 * l as u32 + k);
    // f32 with exponents in [-40, 40]; f64 in [-60, 60]; f16 anywhere finite.
    let f32v = |k| {
        let r = h(k);
        let ex = 127 - 40 + (r >> 23) % 81;
        (r & 0x807f_ffff) | ex << 23
    };
    let f64v = |k| {
        let r = (h(k) as u64) << 32 | h(k + 50) as u64;
        let ex = 1023 - 60 + (r >> 52) % 121;
        (r & 0x800f_ffff_ffff_ffff) | ex << 52
    };
    let f16v = |k| {
        let r = h(k) & 0xffff;
        if r & 0x7c00 == 0x7c00 {
            r & 0xbfff
        } else {
            r
        }
    };
    let mut a = [f32v(1), f32v(2), f32v(3)];
    let mut d = [f64v(4), f64v(5), f64v(6)];
    let mut hh = [f16v(8), f16v(9)];
    // Lanes that reach the edges: denormal inputs and outputs, overflow, tiny addends.
    match l {
        0 => {
            a = [0x0000_0300, 0x0000_0101, 0x0000_0007];
            d = [0x0000_0000_0300_0001, 0x0000_0000_0000_0101, 3];
            hh = [0x0003, 0x0101];
        }
        1 => {
            a = [0x1d80_0001, 0x1d00_0003, 0x8000_0005];
            d = [
                0x1f00_0000_0000_0001,
                0x1f10_0000_0000_0003,
                0x8000_0000_0000_0005,
            ];
            hh = [0x0c01, 0x0c03];
        }
        2 => {
            a = [0x7f7f_ffff, 0x7f7f_fffe, 0x7f7f_ffff];
            d = [
                0x7fef_ffff_ffff_ffff,
                0x7fef_ffff_ffff_fffe,
                0x7fef_ffff_ffff_ffff,
            ];
            hh = [0x7bff, 0x7bfe];
        }
        3 => {
            a = [0x3f80_0000, 0x2f80_0000, 0xa080_0000];
            d = [
                0x3ff0_0000_0000_0000,
                0x3c00_0000_0000_0001,
                0xbc00_0000_0000_0001,
            ];
            hh = [0x3c00, 0x0001];
        }
        _ => {}
    }
    (a, d, h(7), hh)
}

/// (asm, output register, what it computes) per family.
fn program(gfx12: bool, mode: u32, use_sopp: bool) -> String {
    let set = if use_sopp {
        format!(
            "s_round_mode {:#x}\ns_denorm_mode {:#x}",
            mode & 0xf,
            mode >> 4 & 0xf
        )
    } else {
        format!("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 8), {mode:#x}")
    };
    let (l, h16) = if gfx12 { (".l", ".l") } else { ("", "") };
    format!(
        "{set}\n\
         v_add_f32 v10, v0, v1\n\
         v_sub_f32 v11, v0, v1\n\
         v_mul_f32 v12, v0, v1\n\
         v_fma_f32 v13, v0, v1, v2\n\
         v_add_f64 v[14:15], v[4:5], v[6:7]\n\
         v_mul_f64 v[16:17], v[4:5], v[6:7]\n\
         v_fma_f64 v[18:19], v[4:5], v[6:7], v[8:9]\n\
         v_cvt_f32_f64 v20, v[4:5]\n\
         v_cvt_f32_u32 v21, v3\n\
         v_cvt_f16_f32 v22{l}, v0\n\
         v_add_f16 v23{l}, v24{h16}, v25{h16}\n\
         v_mul_f16 v26{l}, v24{h16}, v25{h16}\n\
         v_fmac_f32 v27, v0, v1\n\
         v_add_f32 v28, -v0, v1"
    )
}

fn check(target: Target, wave_size: u32, mode: u32, use_sopp: bool) {
    let gfx12 = target.family() == gpu_model::Family::Gfx12;
    let code = asm::assemble(target, &program(gfx12, mode, use_sopp));
    let lanes = wave_size as usize;
    let w = asm::run(target, wave_size, &code, |w: &mut Wave| {
        for l in 0..lanes {
            let (a, d, u, hh) = lane_inputs(l);
            for k in 0..3 {
                w.set_vgpr(k, l, a[k]);
                w.set_vgpr(4 + 2 * k, l, d[k] as u32);
                w.set_vgpr(5 + 2 * k, l, (d[k] >> 32) as u32);
            }
            w.set_vgpr(3, l, u);
            w.set_vgpr(24, l, hh[0]);
            w.set_vgpr(25, l, hh[1]);
            w.set_vgpr(27, l, a[2]);
        }
    });
    let (r32, r64) = (fref::rm(mode), fref::rm(mode >> 2));
    let (d32, d64) = ((mode >> 4) & 3, (mode >> 6) & 3);
    let name = format!("{} mode {mode:#04x}", target.name());
    for l in 0..lanes {
        let (a, d, u, hh) = lane_inputs(l);
        let a64 = a.map(|x| x as u64);
        let g64 = |r: usize| w.vgpr(r, l) as u64 | (w.vgpr(r + 1, l) as u64) << 32;
        let want = [
            (10, reference(S, r32, d32, "add", &a64), "v_add_f32"),
            (11, reference(S, r32, d32, "sub", &a64), "v_sub_f32"),
            (12, reference(S, r32, d32, "mul", &a64), "v_mul_f32"),
            (13, reference(S, r32, d32, "fma", &a64), "v_fma_f32"),
            (27, reference(S, r32, d32, "fma", &a64), "v_fmac_f32"),
            (
                28,
                reference(S, r32, d32, "add", &[a64[0] ^ 0x8000_0000, a64[1]]),
                "v_add_f32 -v0",
            ),
        ];
        for (r, want, what) in want {
            assert_eq!(
                w.vgpr(r, l) as u64,
                want,
                "{name} lane {l} {what}: {:?}",
                a.map(f32::from_bits)
            );
        }
        let want64 = [
            (14, reference(D, r64, d64, "add", &d), "v_add_f64"),
            (16, reference(D, r64, d64, "mul", &d), "v_mul_f64"),
            (18, reference(D, r64, d64, "fma", &d), "v_fma_f64"),
        ];
        for (r, want, what) in want64 {
            assert_eq!(
                g64(r),
                want,
                "{name} lane {l} {what}: {:?}",
                d.map(f64::from_bits)
            );
        }
        // Conversions: f64 -> f32 rounds in the f32 direction (the destination's), the
        // f64 inputs here are normal; u32 -> f32 likewise; f32 -> f16 in the f16 one.
        let cvt = roundx(val(flush(d[0], D, d64 & 1 != 0), D), S, r32);
        assert_eq!(
            w.vgpr(20, l) as u64,
            flush(cvt, S, d32 & 2 != 0),
            "{name} lane {l} v_cvt_f32_f64"
        );
        let cu = if u == 0 {
            0
        } else {
            roundx(
                Ex {
                    neg: false,
                    mag: u as u128,
                    exp: 0,
                },
                S,
                r32,
            )
        };
        assert_eq!(
            w.vgpr(21, l) as u64,
            cu,
            "{name} lane {l} v_cvt_f32_u32 {u}"
        );
        let ch = roundx(val(flush(a64[0], S, d32 & 1 != 0), S), H, r64);
        assert_eq!(
            w.vgpr(22, l) as u64 & 0xffff,
            flush(ch, H, d64 & 2 != 0),
            "{name} lane {l} v_cvt_f16_f32"
        );
        let h64 = hh.map(|x| x as u64);
        let mask = 0xffff;
        assert_eq!(
            w.vgpr(23, l) as u64 & mask,
            reference(H, r64, d64, "add", &h64),
            "{name} lane {l} v_add_f16 {hh:x?}"
        );
        assert_eq!(
            w.vgpr(26, l) as u64 & mask,
            reference(H, r64, d64, "mul", &h64),
            "{name} lane {l} v_mul_f16 {hh:x?}"
        );
    }
}

/// Every round mode with every denormal mode (the same in both fields), plus split
/// fields (f32 toward +inf with f64/f16 toward zero, f32 flushing with f64/f16 not).
fn modes() -> Vec<u32> {
    let mut m = Vec::new();
    for r in 0..4 {
        for dm in 0..4 {
            m.push(r | r << 2 | dm << 4 | dm << 6);
        }
    }
    m.extend([1 | 3 << 2 | 0xf0, 2 | 0xc0, 3 << 2 | 0x30]);
    m
}

#[test]
fn mode_gfx942() {
    for m in modes() {
        check(Target::Gfx942, 64, m, false);
    }
}

#[test]
fn mode_gfx90a_and_gfx950() {
    for m in [0x00, 0x57, 0xfa, 0xa5] {
        check(Target::Gfx90a, 64, m, false);
        check(Target::Gfx950, 64, m, false);
    }
}

#[test]
fn mode_gfx1201_setreg_and_sopp() {
    for m in modes() {
        check(Target::Gfx1201, 32, m, false);
        check(Target::Gfx1200, 32, m, true);
    }
}

#[test]
fn reference_rounds_like_the_host_in_nearest_even() {
    // The reference agrees with the host's IEEE arithmetic where both apply.
    for l in 4..200 {
        let (a, d, _, _) = lane_inputs(l);
        let (x, y, z) = (
            f32::from_bits(a[0]),
            f32::from_bits(a[1]),
            f32::from_bits(a[2]),
        );
        let a64 = a.map(|v| v as u64);
        assert_eq!(
            reference(S, Rm::Ne, 3, "add", &a64),
            (x + y).to_bits() as u64
        );
        assert_eq!(
            reference(S, Rm::Ne, 3, "mul", &a64),
            (x * y).to_bits() as u64
        );
        assert_eq!(
            reference(S, Rm::Ne, 3, "fma", &a64),
            x.mul_add(y, z).to_bits() as u64
        );
        let (p, q, r) = (
            f64::from_bits(d[0]),
            f64::from_bits(d[1]),
            f64::from_bits(d[2]),
        );
        assert_eq!(
            reference(D, Rm::Ne, 3, "fma", &d),
            p.mul_add(q, r).to_bits()
        );
        assert_eq!(reference(D, Rm::Ne, 3, "add", &d), (p + q).to_bits());
    }
}
