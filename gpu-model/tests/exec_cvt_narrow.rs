//! Conversions to and from the narrow float formats, assembled by llvm-mc-22 and run in the
//! executor, against the reference of `exec_util/narrow.rs` (values by the formats'
//! definitions, nearest-even by searching every code, stochastic rounding as arithmetic on
//! values):
//!
//! - `v_cvt_pk_fp8_f32`, `v_cvt_pk_bf8_f32`, `v_cvt_sr_fp8_f32`, `v_cvt_sr_bf8_f32` on
//!   gfx942 (FNUZ), gfx950, gfx1200 and gfx1201 (OCP), wave64 and (GFX12) wave32, with
//!   MODE.FP16_OVFL (bit 23) off and on, every destination half/byte, source modifiers;
//! - gfx950 `v_cvt_pk_f16_f32`, `v_cvt_pk_bf16_f32`, `v_cvt_sr_f16_f32`,
//!   `v_cvt_sr_bf16_f32`, `v_cvt_f32_bf16`, `v_prng_b32`;
//! - MODE effects (denormal flushing, FP16_OVFL) by hand-computed values, EXEC, a typed
//!   fault for a register tuple past v255, and the integer-source conversions
//!   `v_cvt_off_f32_i4` (every target) and GFX12 `v_cvt_i32_i16` / `v_cvt_u32_u16`.
//!
//! Semantic sources (AMD CDNA4 ISA guide instruction pseudo-code and section 7.3, RDNA4
//! ISA guide section 7.6) are cited in `gpu-model/src/exec/cvt.rs`; this file repeats the
//! rules it checks next to each reference.

#[path = "exec_util/asm.rs"]
mod asm;
#[path = "exec_util/narrow.rs"]
mod narrow;

use gpu_model::exec::Wave;
use gpu_model::{Family, Target};
use narrow::{nearest, overflow, prng, stochastic, Fmt, Ovf};
use rustc_apfloat::ieee::{BFloat, Half, Single};
use rustc_apfloat::{Float, FloatConvert};

/// MODE for a test program: denormals kept, nearest even, FP16_OVFL (bit 23) as asked.
fn mode_line(ovfl: bool) -> String {
    let m = 0xf0 | (ovfl as u32) << 23;
    format!("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 24), {m:#x}")
}

/// Runs `src` (after the MODE line) with `setup` writing lane values; wave size `wave`.
fn run(t: Target, wave: u32, ovfl: bool, src: &str, setup: impl FnOnce(&mut Wave)) -> Wave {
    let text = format!("{}\n{src}", mode_line(ovfl));
    let code = asm::assemble_wave(t, wave, &text);
    asm::run(t, wave, &code, setup)
}

/// A reproducible random word.
fn rnd(k: u32) -> u32 {
    asm::hash(k)
}

/// f32 bit patterns for lane `l` of batch `b`: hand-picked edges first, then random
/// values with exponents around the narrow formats' ranges.
fn f32_input(b: u32, l: u32) -> u32 {
    const EDGES: [u32; 40] = [
        0x0000_0000,
        0x8000_0000,
        0x3f80_0000, // 1
        0xbf80_0000,
        0x43e0_0000, // 448
        0x43e8_0000, // 464: tie 448|480
        0x43e8_0001,
        0x4370_0000, // 240
        0x4378_0000, // 248: tie 240|256
        0x4377_ffff,
        0x4760_0000, // 57344
        0x4770_0000, // 61440: tie 57344|65536
        0x476f_ffff,
        0x7f80_0000, // inf
        0xff80_0000,
        0x7fc0_0000, // qNaN
        0xffc0_0001,
        0x7f80_0001, // sNaN
        0x3b00_0000, // 2^-9: smallest OCP E4M3 denormal
        0x3a80_0000, // 2^-10: half of it (tie to 0)
        0xba80_0001,
        0x3780_0000, // 2^-16: smallest E5M2 denormal
        0x3700_0000, // 2^-17
        0x3680_0000, // 2^-18
        0x0000_0001, // f32 denormals
        0x807f_ffff,
        0x3f88_0000, // 1.0625: tie 1|1.125
        0x3f98_0000, // 1.1875: tie 1.125|1.25
        0x3fa0_0000, // 1.25
        0x4f00_0000, // 2^31
        0x7f7f_ffff, // f32 max
        0x3c80_0000, // 2^-6: smallest E4M3 normal
        0x3c7f_ffff,
        0x3c00_0000, // 2^-7: smallest FNUZ E4M3 normal
        0x3880_0000, // 2^-14
        0x3800_0000, // 2^-15
        0x4780_0000, // 65536
        0xc3e0_0000,
        0x4400_0000, // 512
        0x3e00_0000,
    ];
    if b == 0 && (l as usize) < EDGES.len() {
        return EDGES[l as usize];
    }
    let r = rnd(b * 1000 + l);
    let ex = 127 - 20 + (r >> 23) % 40;
    (r & 0x807f_ffff) | ex << 23
}

fn is_nan32(x: u32) -> bool {
    x & 0x7fff_ffff > 0x7f80_0000
}

/// What a NaN operand becomes in an 8-bit result (see `exec/cvt.rs`): gfx942 `0x80`;
/// gfx950 the OCP NaN with the operand's sign (`S.1111.111`, `S.11111.10`); GFX12 `0xff`
/// / `0xfe` whatever the sign.
fn nan8(t: Target, bf8: bool, neg: bool) -> u32 {
    match t {
        Target::Gfx942 => 0x80,
        Target::Gfx950 => (neg as u32) << 7 | if bf8 { 0x7e } else { 0x7f },
        _ => {
            if bf8 {
                0xfe
            } else {
                0xff
            }
        }
    }
}

/// The 8-bit format of `target`: FNUZ on gfx942, OCP elsewhere.
fn f8fmt(t: Target, bf8: bool) -> Fmt {
    match (t == Target::Gfx942, bf8) {
        (true, false) => Fmt::Fp8Fnuz,
        (true, true) => Fmt::Bf8Fnuz,
        (false, false) => Fmt::Fp8,
        (false, true) => Fmt::Bf8,
    }
}

/// f32 -> 8-bit, nearest even (or stochastic with `seed`), FP16_OVFL `ovfl`.
fn f8_ref(t: Target, bf8: bool, x: u32, seed: Option<u32>, ovfl: bool) -> u32 {
    let f = f8fmt(t, bf8);
    let neg = x >> 31 != 0;
    let ovf = if ovfl { Ovf::Saturate } else { Ovf::Special };
    if is_nan32(x) {
        return nan8(t, bf8, neg);
    }
    let v = f32::from_bits(x) as f64;
    if v.is_infinite() {
        return overflow(f, neg, ovf);
    }
    match seed {
        None => nearest(f, v, ovf),
        Some(s) => stochastic(f, v, s, 23, ovf),
    }
}

#[test]
fn pk_and_sr_eight_bit_every_target() {
    for t in [
        Target::Gfx942,
        Target::Gfx950,
        Target::Gfx1200,
        Target::Gfx1201,
    ] {
        let waves: &[u32] = if t.family() == Family::Gfx12 {
            &[32, 64]
        } else {
            &[64]
        };
        let gfx12 = t.family() == Family::Gfx12;
        for &wave in waves {
            for ovfl in [false, true] {
                for batch in 0..3u32 {
                    check_pk_sr(t, wave, ovfl, batch, gfx12);
                }
            }
        }
    }
}

fn check_pk_sr(t: Target, wave: u32, ovfl: bool, batch: u32, gfx12: bool) {
    let byte_sel = |b: u32| {
        if gfx12 {
            format!("byte_sel:{b}")
        } else {
            format!("op_sel:[0,0,{},{}]", b & 1, b >> 1)
        }
    };
    let mut src = String::new();
    for (k, ty) in ["fp8", "bf8"].iter().enumerate() {
        let d = 10 + 8 * k;
        src += &format!("v_cvt_pk_{ty}_f32 v{d}, v2, v3\n");
        src += &format!("v_cvt_pk_{ty}_f32 v{}, v2, v3 op_sel:[0,0,1]\n", d + 1);
        src += &format!("v_cvt_pk_{ty}_f32 v{}, -v2, |v3|\n", d + 2);
        for b in 0..4 {
            src += &format!(
                "v_cvt_sr_{ty}_f32 v{}, v4, v5 {}\n",
                d + 3 + b,
                byte_sel(b as u32)
            );
        }
        src += &format!("v_cvt_sr_{ty}_f32 v{}, -|v2|, v5\n", d + 7);
    }
    // Per lane: v2, v3 any f32; v4 a value on bf8's/fp8's stochastic grid (alternating
    // lanes), v5 a random word; destinations preset to a pattern.
    let lanes = wave;
    let inputs: Vec<[u32; 4]> = (0..lanes)
        .map(|l| {
            let a = f32_input(batch, l);
            let b = f32_input(batch + 7, (l + 13) % 64);
            let f = f8fmt(t, l % 2 == 1);
            let v = narrow::sr_value(f, 23, batch * 5000 + l * 3, rnd) as f32;
            let sr_in = if batch == 0 && l < 8 {
                [
                    0x7fc0_0000,
                    0xff80_0000,
                    0x7f80_0000,
                    0x0,
                    0x8000_0000,
                    0x4780_0000,
                    0xc7f0_0000,
                    0x0000_0001,
                ][l as usize]
            } else {
                v.to_bits()
            };
            [a, b, sr_in, rnd(batch * 7000 + l)]
        })
        .collect();
    let preset = |l: u32, d: usize| rnd(d as u32 * 64 + l) | 0x0101_0101;
    let w = run(t, wave, ovfl, &src, |w| {
        for (l, x) in inputs.iter().enumerate() {
            for (r, v) in x.iter().enumerate() {
                w.set_vgpr(2 + r, l, *v);
            }
            for d in 10..26 {
                w.set_vgpr(d, l, preset(l as u32, d));
            }
        }
    });
    let name = format!("{} wave{wave} ovfl {ovfl}", t.name());
    for (l, x) in inputs.iter().enumerate() {
        let [a, b, s_in, seed] = *x;
        for (k, bf8) in [false, true].into_iter().enumerate() {
            let d = 10 + 8 * k;
            let enc = |v: u32, seed: Option<u32>| f8_ref(t, bf8, v, seed, ovfl);
            let pair = enc(a, None) | enc(b, None) << 8;
            let old = |r: usize| preset(l as u32, r);
            let got = |r: usize| w.vgpr(r, l);
            let ctx = |what: &str| format!("{name} lane {l} {what} bf8 {bf8}: a {a:#x} b {b:#x}");
            assert_eq!(got(d), old(d) & 0xffff_0000 | pair, "{}", ctx("pk lo"));
            assert_eq!(
                got(d + 1),
                old(d + 1) & 0xffff | pair << 16,
                "{}",
                ctx("pk hi")
            );
            let pair_mod = enc(a ^ 0x8000_0000, None) | enc(b & 0x7fff_ffff, None) << 8;
            assert_eq!(
                got(d + 2),
                old(d + 2) & 0xffff_0000 | pair_mod,
                "{}",
                ctx("pk neg/abs")
            );
            let sr = enc(s_in, Some(seed));
            for byte in 0..4 {
                let r = d + 3 + byte;
                let want = old(r) & !(0xff << (8 * byte)) | sr << (8 * byte);
                assert_eq!(
                    got(r),
                    want,
                    "{} value {s_in:#x} ({}) seed {seed:#x}",
                    ctx(&format!("sr byte {byte}")),
                    f32::from_bits(s_in)
                );
            }
            let sr_mod = enc(a | 0x8000_0000, Some(seed));
            assert_eq!(
                got(d + 7),
                old(d + 7) & !0xff | sr_mod,
                "{}",
                ctx("sr -|a|")
            );
        }
    }
}

/// f32 -> f16 bits, nearest even, by LLVM's APFloat; NaN: quiet, sign and the top 9
/// payload bits kept (what `v_cvt_f16_f32` writes).
fn f16_ref(x: u32) -> u32 {
    if is_nan32(x) {
        return (x >> 16) & 0x8000 | 0x7e00 | (x >> 13) & 0x3ff;
    }
    let mut lost = false;
    let h: Half = Single::from_bits(x as u128).convert(&mut lost).value;
    h.to_bits() as u32
}

/// f32 -> bf16 bits, nearest even, by LLVM's APFloat; NaN: quiet, sign and the top 6
/// payload bits kept.
fn bf16_ref(x: u32) -> u32 {
    if is_nan32(x) {
        return (x >> 16) | 0x40;
    }
    let mut lost = false;
    let h: BFloat = Single::from_bits(x as u128).convert(&mut lost).value;
    h.to_bits() as u32
}

#[test]
fn gfx950_sixteen_bit_conversions_and_prng() {
    let t = Target::Gfx950;
    let src = "v_cvt_pk_f16_f32 v10, v2, v3
v_cvt_pk_bf16_f32 v11, v2, v3
v_cvt_pk_f16_f32 v12, -v2, |v3|
v_cvt_sr_f16_f32 v13, v4, v5
v_cvt_sr_f16_f32 v14, v4, v5 op_sel:[0,0,1]
v_cvt_sr_bf16_f32 v15, v6, v5
v_cvt_sr_bf16_f32 v16, v6, v5 op_sel:[0,0,1]
v_cvt_f32_bf16 v17, v7
v_cvt_f32_bf16_sdwa v18, v7 src0_sel:WORD_1
v_cvt_f32_bf16_e64 v19, -v7
v_prng_b32 v20, v5
v_prng_b32_e64 v21, s9
v_cvt_sr_f16_f32 v22, -|v4|, v5";
    for batch in 0..3u32 {
        let inputs: Vec<[u32; 6]> = (0..64u32)
            .map(|l| {
                let a = f32_input(batch, l);
                let b = f32_input(batch + 3, 63 - l);
                let h = narrow::sr_value(Fmt::F16, 23, batch * 900 + l, rnd) as f32;
                let bh = narrow::sr_value(Fmt::Bf16, 23, batch * 700 + l, rnd) as f32;
                let h = if batch == 0 && l < 4 {
                    [0x477f_f000, 0xc77f_f000, 0x7fc0_0000, 0x0000_0001][l as usize]
                } else {
                    h.to_bits()
                };
                [
                    a,
                    b,
                    h,
                    rnd(batch * 300 + l),
                    bh.to_bits(),
                    rnd(batch * 100 + l),
                ]
            })
            .collect();
        let preset = |l: u32, d: usize| rnd(d as u32 * 64 + l + 5);
        let w = run(t, 64, false, src, |w| {
            for (l, x) in inputs.iter().enumerate() {
                for (r, v) in x.iter().enumerate() {
                    w.set_vgpr(2 + r, l, *v);
                }
                for d in 10..23 {
                    w.set_vgpr(d, l, preset(l as u32, d));
                }
            }
            w.set_sgpr(9, 0x8000_0001);
        });
        for (l, x) in inputs.iter().enumerate() {
            let [a, b, h, seed, bh, word] = *x;
            let got = |r: usize| w.vgpr(r, l);
            let old = |r: usize| preset(l as u32, r);
            let ctx = format!("lane {l} a {a:#x} b {b:#x} h {h:#x} bh {bh:#x} seed {seed:#x}");
            assert_eq!(got(10), f16_ref(a) | f16_ref(b) << 16, "pk_f16 {ctx}");
            assert_eq!(got(11), bf16_ref(a) | bf16_ref(b) << 16, "pk_bf16 {ctx}");
            assert_eq!(
                got(12),
                f16_ref(a ^ 0x8000_0000) | f16_ref(b & 0x7fff_ffff) << 16,
                "pk_f16 neg/abs {ctx}"
            );
            // Stochastic f16: the top 13 bits of the word below the f16 mantissa; an
            // infinity or past 65504 overflows to infinity (MODE.FP16_OVFL off).
            let sr16 = |x: u32| {
                if is_nan32(x) {
                    return f16_ref(x);
                }
                let v = f32::from_bits(x) as f64;
                if v.is_infinite() {
                    return overflow(Fmt::F16, v < 0.0, Ovf::Special);
                }
                stochastic(Fmt::F16, v, seed, 23, Ovf::Special)
            };
            let sr_bf = |x: u32| {
                let v = f32::from_bits(x) as f64;
                stochastic(Fmt::Bf16, v, seed, 23, Ovf::Special)
            };
            assert_eq!(got(13), old(13) & 0xffff_0000 | sr16(h), "sr_f16 lo {ctx}");
            assert_eq!(got(14), old(14) & 0xffff | sr16(h) << 16, "sr_f16 hi {ctx}");
            assert_eq!(
                got(15),
                old(15) & 0xffff_0000 | sr_bf(bh),
                "sr_bf16 lo {ctx}"
            );
            assert_eq!(
                got(16),
                old(16) & 0xffff | sr_bf(bh) << 16,
                "sr_bf16 hi {ctx}"
            );
            assert_eq!(
                got(22),
                old(22) & 0xffff_0000 | sr16(h | 0x8000_0000),
                "sr_f16 -|h| {ctx}"
            );
            // v_cvt_f32_bf16: the bf16 bits are the top of the f32 (CDNA4 pseudo-code).
            assert_eq!(got(17), word << 16, "f32_bf16 {ctx}");
            assert_eq!(got(18), word & 0xffff_0000, "f32_bf16 sdwa word1 {ctx}");
            assert_eq!(got(19), (word << 16) ^ 0x8000_0000, "f32_bf16 neg {ctx}");
            // v_prng_b32: (x << 1) ^ (x[31] ? 197 : 0).
            assert_eq!(got(20), prng(seed), "prng {ctx}");
            assert_eq!(got(21), prng(0x8000_0001), "prng sgpr");
        }
    }
}

/// MODE effects written out by hand (see the MODE rows of `exec/fmode.rs`): with MODE = 0
/// (every denormal flushed) and FP16_OVFL set, against MODE = 0xf0 (denormals kept) and
/// FP16_OVFL clear.
#[test]
fn gfx950_mode_effects() {
    let t = Target::Gfx950;
    let src = "v_cvt_scalef32_pk_fp4_f32 v10, v2, v3, v4
v_cvt_pk_f16_f32 v11, v5, v6
v_cvt_sr_f16_f32 v12, v6, v7
v_cvt_pk_bf16_f32 v13, v2, v2
v_cvt_pk_fp8_f32 v14, v6, v9
v_cvt_pk_f16_f32 v15, v9, v9";
    for (mode, ovfl) in [(0x00u32, true), (0xf0, false)] {
        let code = asm::assemble_wave(
            t,
            64,
            &format!(
                "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 24), {:#x}\n{src}",
                mode | (ovfl as u32) << 23
            ),
        );
        let w = asm::run(t, 64, &code, |w| {
            for l in 0..64 {
                w.set_vgpr(2, l, 0x0040_0000); // 2^-127, an f32 denormal
                w.set_vgpr(3, l, 0x3f80_0000); // 1.0
                w.set_vgpr(4, l, 0); // scale exponent 0: 2^-127
                w.set_vgpr(5, l, 0x3586_37bd); // 1e-6: an f16 denormal (0x0011)
                w.set_vgpr(6, l, 0x4788_b800); // 70000: past the f16 maximum
                w.set_vgpr(7, l, 0);
                w.set_vgpr(9, l, 0xff80_0000); // -inf
            }
        });
        let keep = mode != 0;
        // 2^-127 / 2^-127 = 1.0 (fp4 0x2) unless the f32 operand is flushed; 1.0 / 2^-127
        // saturates fp4 (0x7).
        let lo = if keep { 0x2 } else { 0x0 };
        assert_eq!(
            w.vgpr(10, 0) & 0xff,
            lo | 0x7 << 4,
            "mode {mode:#x} scalef32 fp4"
        );
        // f16: 1e-6 is 0x0011 (denormal) or flushed; 70000 overflows to infinity or, with
        // FP16_OVFL, to 65504.
        let den = if keep { 0x0011 } else { 0 };
        let big = if ovfl { 0x7bff } else { 0x7c00 };
        assert_eq!(w.vgpr(11, 0), den | big << 16, "mode {mode:#x} pk_f16");
        assert_eq!(w.vgpr(12, 0) & 0xffff, big, "mode {mode:#x} sr_f16");
        // bf16 of 2^-127: the denormal 0x0040, or flushed.
        let b = if keep { 0x0040 } else { 0 };
        assert_eq!(w.vgpr(13, 0), b | b << 16, "mode {mode:#x} pk_bf16");
        // fp8: 70000 and -inf are NaN (0x7f / 0xff) or, with FP16_OVFL, +-448.
        let f8 = if ovfl {
            0x7e | 0xfe << 8
        } else {
            0x7f | 0xff << 8
        };
        assert_eq!(w.vgpr(14, 0) & 0xffff, f8, "mode {mode:#x} pk_fp8");
        // A true infinity stays one in f16 whatever FP16_OVFL says.
        assert_eq!(w.vgpr(15, 0), 0xfc00_fc00, "mode {mode:#x} pk_f16 -inf");
    }
}

/// Lanes outside EXEC keep their destinations (one- and multi-register results).
#[test]
fn exec_mask_is_respected() {
    for t in [Target::Gfx950, Target::Gfx1201] {
        let mut src = String::from("v_cvt_pk_fp8_f32 v10, v2, v3\nv_cvt_sr_bf8_f32 v11, v2, v3\n");
        if t == Target::Gfx950 {
            src += "v_cvt_scalef32_pk32_f32_fp6 v[20:51], v[60:65], v4\n";
            src += "v_cvt_scalef32_pk_f32_fp8 v[12:13], v2, v4\n";
        }
        let code = asm::assemble_wave(t, 64, &format!("s_mov_b64 exec, s[20:21]\n{src}"));
        let mask = 0x0f0f_3c3c_5555_aaaau64;
        let w = asm::run(t, 64, &code, |w| {
            w.set_sgpr(20, mask as u32);
            w.set_sgpr(21, (mask >> 32) as u32);
            for l in 0..64 {
                for r in 2..66 {
                    w.set_vgpr(r, l, 0x3f80_0000 + r as u32);
                }
                w.set_vgpr(4, l, 0x3f80_0000);
            }
        });
        for l in 0..64 {
            let on = mask >> l & 1 != 0;
            for r in [10usize, 11, 12, 13, 20, 35, 51] {
                if t != Target::Gfx950 && r > 11 {
                    continue;
                }
                let old = 0x3f80_0000 + r as u32;
                assert_eq!(w.vgpr(r, l) == old, !on, "{} lane {l} v{r}", t.name());
            }
        }
    }
}

/// A 32-register result past v255 is a typed fault, not a panic (the destination byte of
/// an assembled `v_cvt_scalef32_pk32_f32_fp6 v[200:231]` patched to v240).
#[test]
fn tuple_past_the_register_file_faults() {
    use gpu_model::exec::{ExecCtx, FaultReason, Program, Stop};
    use gpu_model::memory::DeviceMemory;
    let t = Target::Gfx950;
    let mut code = asm::assemble(t, "v_cvt_scalef32_pk32_f32_fp6 v[200:231], v[60:65], v4");
    code[0] = 240;
    let prog = Program::new(t, asm::BASE, &code);
    let mem = DeviceMemory::new();
    let mut lds = vec![0u8; 64];
    let mut ctx = ExecCtx {
        prog: &prog,
        mem: (&mem).into(),
        lds: &mut lds,
        observer: None,
        group: None,
    };
    let mut w = Wave::new(64, asm::BASE);
    w.set_exec(u64::MAX);
    match w.run(&mut ctx, 10) {
        Stop::Fault(FaultReason::UnsupportedForm(m)) => assert!(m.contains("pk32"), "{m}"),
        s => panic!("expected a fault, got {s:?}"),
    }
}

/// `v_cvt_off_f32_i4` (every target: the table of the ISA guides, S0[3:0] as a signed
/// 4-bit value over 16) and GFX12 `v_cvt_i32_i16` / `v_cvt_u32_u16` (sign / zero
/// extension of the low or, `.h`, high half).
#[test]
fn integer_sources() {
    const TABLE: [f32; 16] = [
        0.0, 0.0625, 0.125, 0.1875, 0.25, 0.3125, 0.375, 0.4375, -0.5, -0.4375, -0.375, -0.3125,
        -0.25, -0.1875, -0.125, -0.0625,
    ];
    for t in Target::ALL {
        let mut src = String::from("v_cvt_off_f32_i4 v10, v2\n");
        if t.family() == Family::Gfx12 {
            src += "v_cvt_i32_i16 v11, v2.l\nv_cvt_i32_i16 v12, v2.h\n";
            src += "v_cvt_u32_u16 v13, v2.l\nv_cvt_u32_u16_e64 v14, v2.h\n";
        }
        let code = asm::assemble_wave(t, 64, &src);
        let w = asm::run(t, 64, &code, |w| {
            for l in 0..64 {
                w.set_vgpr(2, l, rnd(l as u32 + 5) & !0xf | (l as u32 & 0xf));
            }
        });
        for l in 0..64 {
            let x = rnd(l as u32 + 5) & !0xf | (l as u32 & 0xf);
            let name = format!("{} lane {l} {x:#x}", t.name());
            assert_eq!(
                f32::from_bits(w.vgpr(10, l)),
                TABLE[l & 0xf],
                "{name} off_f32_i4"
            );
            if t.family() == Family::Gfx12 {
                assert_eq!(
                    w.vgpr(11, l),
                    x as u16 as i16 as i32 as u32,
                    "{name} i32_i16"
                );
                assert_eq!(
                    w.vgpr(12, l),
                    (x >> 16) as u16 as i16 as i32 as u32,
                    "{name} .h"
                );
                assert_eq!(w.vgpr(13, l), x & 0xffff, "{name} u32_u16");
                assert_eq!(w.vgpr(14, l), x >> 16, "{name} u32_u16 .h");
            }
        }
    }
}
