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
//! - gfx950 `v_cvt_scalef32_*`: every source/destination format pair, packed, stochastic
//!   and 32-element forms, with E8M0 scales including 2^-127 and NaN (0xff);
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

/// A value on the stochastic-rounding grid of `f` for operands of `src_mbits` mantissa
/// bits: a random finite code's value plus a random number of operand places (so the
/// reference's arithmetic is exact), with a random sign.
fn sr_value(f: Fmt, src_mbits: u32, k: u32) -> f64 {
    let lad = f.ladder();
    let r = rnd(k);
    let i = (r as usize) % lad.len();
    let lo = lad[i].1;
    let hi = if i + 1 < lad.len() {
        lad[i + 1].1
    } else {
        lo + (lo - lad[i - 1].1)
    };
    let drop = src_mbits - f.mbits();
    let steps = rnd(k + 7) & ((1 << drop) - 1);
    let v = lo + (hi - lo) * steps as f64 / (1u64 << drop) as f64;
    if r >> 31 != 0 {
        -v
    } else {
        v
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
            let v = sr_value(f, 23, batch * 5000 + l * 3) as f32;
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
                let h = sr_value(Fmt::F16, 23, batch * 900 + l) as f32;
                let bh = sr_value(Fmt::Bf16, 23, batch * 700 + l) as f32;
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

/// The E8M0 scale of lane `l`: mostly near 127 (x1), with the ends of the range and NaN.
fn scale_of(batch: u32, l: u32, span: u32) -> u8 {
    const EDGE: [u8; 6] = [127, 0, 254, 255, 1, 130];
    if batch == 0 && (l as usize) < EDGE.len() {
        return EDGE[l as usize];
    }
    (127 - span + rnd(batch * 31 + l + 99) % (2 * span + 1)) as u8
}

/// A scale operand whose f32 exponent field is `s` (sign and mantissa random: only the
/// exponent is read).
fn scale_operand(s: u8, k: u32) -> u32 {
    (rnd(k) & 0x807f_ffff) | (s as u32) << 23
}

/// Operand formats of the scaled conversions.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Src {
    F32,
    F16,
    Bf16,
}

impl Src {
    fn mbits(self) -> u32 {
        match self {
            Src::F32 => 23,
            Src::F16 => 10,
            Src::Bf16 => 7,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Src::F32 => "f32",
            Src::F16 => "f16",
            Src::Bf16 => "bf16",
        }
    }

    /// The value of operand bits `x`.
    fn value(self, x: u32) -> f64 {
        match self {
            Src::F32 => f32::from_bits(x) as f64,
            Src::F16 => Fmt::F16.value(x & 0xffff),
            Src::Bf16 => Fmt::Bf16.value(x & 0xffff),
        }
    }

    /// The operand bits of `v`, if exact.
    fn bits_of(self, v: f64) -> Option<u32> {
        let (f, b) = match self {
            Src::F32 => {
                let x = v as f32;
                return (x as f64 == v).then_some(x.to_bits());
            }
            Src::F16 => (Fmt::F16, nearest(Fmt::F16, v, Ovf::Special)),
            Src::Bf16 => (Fmt::Bf16, nearest(Fmt::Bf16, v, Ovf::Special)),
        };
        (f.value(b) == v).then_some(b)
    }
}

/// Narrow format names in mnemonics.
fn fname(f: Fmt) -> &'static str {
    match f {
        Fmt::Fp8 => "fp8",
        Fmt::Bf8 => "bf8",
        Fmt::Fp6 => "fp6",
        Fmt::Bf6 => "bf6",
        _ => "fp4",
    }
}

/// Scaled encode reference (CDNA4 guide, `V_CVT_SCALEF32_*`; AMD's host emulation
/// `amd_hip_ocp_host.hpp` for the edges): value / 2^(scale - 127), one rounding; a NaN
/// operand or a NaN scale (0xff) gives the format's NaN with the operand's sign (the MX
/// formats: the largest magnitude); an infinity overflows; fp8/bf8 overflow by
/// FP16_OVFL, fp6/bf6/fp4 always saturate.
fn scaled_enc(f: Fmt, src: Src, x: u32, scale: u8, seed: Option<u32>, ovfl: bool) -> u32 {
    let v = src.value(x);
    // The sign from the bits (a NaN's too).
    let neg = match src {
        Src::F32 => x >> 31 != 0,
        _ => x >> 15 & 1 != 0,
    };
    let ovf = if ovfl { Ovf::Saturate } else { Ovf::Special };
    if v.is_nan() || scale == 0xff {
        return match f {
            Fmt::Fp8 => (neg as u32) << 7 | 0x7f,
            Fmt::Bf8 => (neg as u32) << 7 | 0x7e,
            _ => (if neg { f.sign() } else { 0 }) | f.max_code(),
        };
    }
    if v.is_infinite() {
        return overflow(f, neg, ovf);
    }
    let s = v * 2f64.powi(127 - scale as i32);
    match seed {
        None => nearest(f, s, ovf),
        Some(r) => stochastic(f, s, r, src.mbits(), ovf),
    }
}

/// Destination formats of the scaled decodes.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Dst {
    F32,
    F16,
    Bf16,
}

/// Scaled decode reference: value * 2^(scale - 127) rounded to nearest even into the
/// destination (overflow: infinity); a NaN code or a NaN scale gives NaN with the code's
/// sign (f32 `0x7fc00000`, f16/bf16 `0x7fff`, as AMD's host emulation writes them).
fn scaled_dec(f: Fmt, d: Dst, code: u32, scale: u8) -> u32 {
    let v = f.value(code);
    let neg = code & f.sign() != 0;
    if v.is_nan() || scale == 0xff {
        return match d {
            Dst::F32 => (neg as u32) << 31 | 0x7fc0_0000,
            _ => (neg as u32) << 15 | 0x7fff,
        };
    }
    let s = v * 2f64.powi(scale as i32 - 127);
    match d {
        Dst::F32 => (s as f32).to_bits(),
        Dst::F16 if s.is_infinite() => overflow(Fmt::F16, neg, Ovf::Special),
        Dst::Bf16 if s.is_infinite() => overflow(Fmt::Bf16, neg, Ovf::Special),
        Dst::F16 => nearest(Fmt::F16, s, Ovf::Special),
        Dst::Bf16 => nearest(Fmt::Bf16, s, Ovf::Special),
    }
}

/// An operand of format `src` for scale `s`: an edge value, a random value around the
/// narrow format's range, or (`sr`) a value on its stochastic grid.
fn scaled_input(f: Fmt, src: Src, s: u8, k: u32, sr: bool) -> u32 {
    let r = rnd(k);
    let edge = r.is_multiple_of(16);
    let scale = if s == 0xff {
        1.0
    } else {
        2f64.powi(s as i32 - 127)
    };
    let v = if edge {
        [
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f.max() * 1.5,
            -f.max(),
            1.0,
        ][(r >> 4) as usize % 8]
    } else if sr {
        sr_value(f, src.mbits(), k + 1)
    } else {
        let ex = ((r >> 8) % 24) as i32 - 12;
        let m = 1.0 + ((r >> 16) & 0xff) as f64 / 256.0;
        let v = m * 2f64.powi(ex);
        if r & 1 == 1 {
            -v
        } else {
            v
        }
    };
    let v = if v.is_finite() { v * scale } else { v };
    match src.bits_of(v) {
        Some(b) if v.is_finite() => b,
        _ if v.is_nan() => match src {
            Src::F32 => 0x7fc0_0000,
            Src::F16 => 0x7e00,
            Src::Bf16 => 0x7fc0,
        },
        _ if v.is_infinite() => match (src, v < 0.0) {
            (Src::F32, n) => (n as u32) << 31 | 0x7f80_0000,
            (Src::F16, n) => (n as u32) << 15 | 0x7c00,
            (Src::Bf16, n) => (n as u32) << 15 | 0x7f80,
        },
        // Not exact in the operand format (range): a plain 1.0 instead.
        _ => src.bits_of(1.0).unwrap(),
    }
}

#[test]
fn gfx950_scaled_eight_and_four_bit() {
    let t = Target::Gfx950;
    for ovfl in [false, true] {
        for batch in 0..3u32 {
            scaled_encodes(t, ovfl, batch);
            scaled_decodes(t, batch);
        }
    }
}

fn scaled_encodes(t: Target, ovfl: bool, batch: u32) {
    // (text, destination, source format, narrow format, kind)
    // kind: 0 pk of two f32 (S0, S1), 1 pk of a packed 16-bit S0, 2 sr of one value,
    // 3 sr pk fp4 (two values from S0 pair or packed S0, PRNG for the second).
    let mut cases: Vec<(String, usize, Src, Fmt, u32, u32)> = Vec::new();
    let mut d = 100;
    for f in [Fmt::Fp8, Fmt::Bf8, Fmt::Fp4] {
        let n = fname(f);
        // Destination select: fp8/bf8 a word (op_sel[3]), fp4 a byte (op_sel[3:2]). In
        // llvm-mc's syntax op_sel lists the sources then the destination: hardware
        // OPSEL[2] is the third entry, OPSEL[3] the last.
        let sels: Vec<u32> = if f == Fmt::Fp4 {
            vec![0, 1, 2, 3]
        } else {
            vec![0, 2]
        };
        for &sel in &sels {
            let os3 = format!("op_sel:[0,0,{},{}]", sel & 1, sel >> 1);
            cases.push((
                format!("v_cvt_scalef32_pk_{n}_f32 v{d}, v2, v3, v4 {os3}"),
                d,
                Src::F32,
                f,
                0,
                sel,
            ));
            d += 1;
            // Two sources: fp4 still takes four entries, fp8/bf8 three (OPSEL[3] only).
            let os2 = if f == Fmt::Fp4 {
                os3.clone()
            } else {
                format!("op_sel:[0,0,{}]", sel >> 1)
            };
            for (s, r) in [(Src::F16, 5), (Src::Bf16, 6)] {
                let sn = s.name();
                cases.push((
                    format!("v_cvt_scalef32_pk_{n}_{sn} v{d}, v{r}, v4 {os2}"),
                    d,
                    s,
                    f,
                    1,
                    sel,
                ));
                d += 1;
            }
        }
        for (src, s0, pair) in [
            (Src::F32, "v7", "v[40:41]"),
            (Src::F16, "v8", "v50"),
            (Src::Bf16, "v9", "v51"),
        ] {
            let sn = src.name();
            let sels: &[u32] = if f == Fmt::Fp4 {
                &[0, 3]
            } else {
                &[0, 1, 2, 3]
            };
            for &sel in sels {
                let os = format!("op_sel:[0,0,{},{}]", sel & 1, sel >> 1);
                let (text, kind) = if f == Fmt::Fp4 {
                    (
                        format!("v_cvt_scalef32_sr_pk_fp4_{sn} v{d}, {pair}, v3, v4 {os}"),
                        3,
                    )
                } else {
                    (
                        format!("v_cvt_scalef32_sr_{n}_{sn} v{d}, {s0}, v3, v4 {os}"),
                        2,
                    )
                };
                cases.push((text, d, src, f, kind, sel));
                d += 1;
            }
        }
    }
    // Source modifiers and selects: the high half of a 16-bit sr operand (OPSEL[0], kind 4),
    // neg/abs on f32 pk operands (kind 5), neg on both halves of a packed 16-bit one
    // (kind 6).
    for (f, n) in [(Fmt::Fp8, "fp8"), (Fmt::Bf8, "bf8")] {
        for (src, r) in [(Src::F16, "v8"), (Src::Bf16, "v9")] {
            let sn = src.name();
            cases.push((
                format!("v_cvt_scalef32_sr_{n}_{sn} v{d}, {r}, v3, v4 op_sel:[1,0,1,0]"),
                d,
                src,
                f,
                4,
                1,
            ));
            d += 1;
        }
        cases.push((
            format!("v_cvt_scalef32_pk_{n}_f32 v{d}, -v2, |v3|, v4"),
            d,
            Src::F32,
            f,
            5,
            0,
        ));
        d += 1;
        for (src, r) in [(Src::F16, "v5"), (Src::Bf16, "v6")] {
            let sn = src.name();
            cases.push((
                format!("v_cvt_scalef32_pk_{n}_{sn} v{d}, -{r}, v4"),
                d,
                src,
                f,
                6,
                0,
            ));
            d += 1;
        }
    }
    let src: String = cases.iter().map(|c| c.0.clone() + "\n").collect();
    // Operands per lane. v2/v3: f32 (v3 also the seed of the sr forms: the pk forms read
    // it as f32), v4 the scale, v5 packed f16, v6 packed bf16, v7/v8/v9 sr operands (f32,
    // f16, bf16; the upper half of v8/v9 random), v40:41 an f32 pair and v50/v51 packed
    // f16/bf16 for the sr-pk fp4 forms; destinations from v100.
    struct Lane {
        scale: u8,
        r: [u32; 64],
    }
    let fmts = [Fmt::Fp8, Fmt::Bf8, Fmt::Fp4];
    let lanes: Vec<Lane> = (0..64u32)
        .map(|l| {
            let scale = scale_of(batch, l, 6);
            let f = fmts[(l % 3) as usize];
            let k = batch * 100_000 + l * 50;
            let inp = |src, k, sr| scaled_input(f, src, scale, k, sr);
            let mut r = [0u32; 64];
            r[2] = inp(Src::F32, k, false);
            r[3] = inp(Src::F32, k + 1, false);
            r[4] = scale_operand(scale, k + 2);
            r[5] = inp(Src::F16, k + 3, false) | inp(Src::F16, k + 4, false) << 16;
            r[6] = inp(Src::Bf16, k + 5, false) | inp(Src::Bf16, k + 6, false) << 16;
            r[7] = inp(Src::F32, k + 7, true);
            r[8] = inp(Src::F16, k + 8, true) | rnd(k + 9) << 16;
            r[9] = inp(Src::Bf16, k + 10, true) | rnd(k + 11) << 16;
            let fp4 = |src, k| scaled_input(Fmt::Fp4, src, scale, k, true);
            r[40] = fp4(Src::F32, k + 12);
            r[41] = fp4(Src::F32, k + 13);
            r[50] = fp4(Src::F16, k + 14) | fp4(Src::F16, k + 15) << 16;
            r[51] = fp4(Src::Bf16, k + 16) | fp4(Src::Bf16, k + 17) << 16;
            Lane { scale, r }
        })
        .collect();
    let preset = |l: usize, d: usize| rnd(d as u32 * 977 + l as u32 + batch);
    let w = run(t, 64, ovfl, &src, |w| {
        for (l, x) in lanes.iter().enumerate() {
            for r in [2, 3, 4, 5, 6, 7, 8, 9, 40, 41, 50, 51] {
                w.set_vgpr(r, l, x.r[r]);
            }
            for c in &cases {
                w.set_vgpr(c.1, l, preset(l, c.1));
            }
        }
    });
    for (l, x) in lanes.iter().enumerate() {
        let r = &x.r;
        let s = x.scale;
        let seed = r[3];
        for (text, d, src, f, kind, sel) in &cases {
            let (src, f, kind, sel) = (*src, *f, *kind, *sel);
            let e = |v: u32, seed: Option<u32>| scaled_enc(f, src, v, s, seed, ovfl);
            let (bits, width) = match kind {
                0 => (e(r[2], None) | e(r[3], None) << f.bits(), 2 * f.bits()),
                1 => {
                    let p = if src == Src::F16 { r[5] } else { r[6] };
                    (
                        e(p & 0xffff, None) | e(p >> 16, None) << f.bits(),
                        2 * f.bits(),
                    )
                }
                2 => {
                    let v = match src {
                        Src::F32 => r[7],
                        Src::F16 => r[8] & 0xffff,
                        Src::Bf16 => r[9] & 0xffff,
                    };
                    (e(v, Some(seed)), 8)
                }
                4 => {
                    let v = if src == Src::F16 {
                        r[8] >> 16
                    } else {
                        r[9] >> 16
                    };
                    (e(v, Some(seed)), 8)
                }
                5 => (
                    e(r[2] ^ 0x8000_0000, None) | e(r[3] & 0x7fff_ffff, None) << f.bits(),
                    16,
                ),
                6 => {
                    let p = if src == Src::F16 { r[5] } else { r[6] } ^ 0x8000_8000;
                    (e(p & 0xffff, None) | e(p >> 16, None) << f.bits(), 16)
                }
                _ => {
                    let (a, b) = match src {
                        Src::F32 => (r[40], r[41]),
                        Src::F16 => (r[50] & 0xffff, r[50] >> 16),
                        Src::Bf16 => (r[51] & 0xffff, r[51] >> 16),
                    };
                    (e(a, Some(seed)) | e(b, Some(prng(seed))) << 4, 8)
                }
            };
            let shift = if width == 16 {
                16 * (sel >> 1)
            } else {
                8 * sel
            };
            let mask = ((1u64 << width) - 1) as u32;
            let want = preset(l, *d) & !(mask << shift) | bits << shift;
            let got = w.vgpr(*d, l);
            assert_eq!(
                got, want,
                "ovfl {ovfl} lane {l} `{text}` scale {s}: got {got:#010x} want {want:#010x}; operands {:#x?}",
                &r[2..10]
            );
        }
    }
}

fn scaled_decodes(t: Target, batch: u32) {
    // (text, destination, narrow format, destination format, kind, source select, dst sel)
    // kind: 0 one value to f32 (byte select), 1 pk to an f32 pair (word / byte select),
    // 2 one value to f16 (byte select, destination half), 3 pk to packed f16/bf16.
    let mut cases: Vec<(String, usize, Fmt, Dst, u32, u32, u32)> = Vec::new();
    let mut d = 10;
    for f in [Fmt::Fp8, Fmt::Bf8] {
        let n = fname(f);
        for b in 0..4u32 {
            let os = format!("op_sel:[{},{},0]", b & 1, b >> 1);
            cases.push((
                format!("v_cvt_scalef32_f32_{n} v{d}, v2, v4 {os}"),
                d,
                f,
                Dst::F32,
                0,
                b,
                0,
            ));
            d += 1;
            for hi in 0..2u32 {
                let os = format!("op_sel:[{},{},{hi}]", b & 1, b >> 1);
                cases.push((
                    format!("v_cvt_scalef32_f16_{n} v{d}, v2, v4 {os}"),
                    d,
                    f,
                    Dst::F16,
                    2,
                    b,
                    hi,
                ));
                d += 1;
            }
        }
        for wsel in 0..2u32 {
            let os = format!("op_sel:[{wsel},0,0]");
            cases.push((
                format!("v_cvt_scalef32_pk_f32_{n} v[{d}:{}], v2, v4 {os}", d + 1),
                d,
                f,
                Dst::F32,
                1,
                2 * wsel,
                0,
            ));
            d += 2;
            cases.push((
                format!("v_cvt_scalef32_pk_f16_{n} v{d}, v2, v4 {os}"),
                d,
                f,
                Dst::F16,
                3,
                2 * wsel,
                0,
            ));
            d += 1;
            cases.push((
                format!("v_cvt_scalef32_pk_bf16_{n} v{d}, v2, v4 {os}"),
                d,
                f,
                Dst::Bf16,
                3,
                2 * wsel,
                0,
            ));
            d += 1;
        }
    }
    for b in 0..4u32 {
        let os = format!("op_sel:[{},{},0]", b & 1, b >> 1);
        cases.push((
            format!("v_cvt_scalef32_pk_f32_fp4 v[{d}:{}], v2, v4 {os}", d + 1),
            d,
            Fmt::Fp4,
            Dst::F32,
            1,
            b,
            0,
        ));
        d += 2;
        cases.push((
            format!("v_cvt_scalef32_pk_f16_fp4 v{d}, v2, v4 {os}"),
            d,
            Fmt::Fp4,
            Dst::F16,
            3,
            b,
            0,
        ));
        d += 1;
        cases.push((
            format!("v_cvt_scalef32_pk_bf16_fp4 v{d}, v2, v4 {os}"),
            d,
            Fmt::Fp4,
            Dst::Bf16,
            3,
            b,
            0,
        ));
        d += 1;
    }
    let src: String = cases.iter().map(|c| c.0.clone() + "\n").collect();
    // v2: four random bytes (every code of each format over the batches), v4: scale,
    // including the extremes so results overflow f16 and go denormal in f32.
    let inputs: Vec<(u32, u8)> = (0..64u32)
        .map(|l| {
            let word = (4 * l + 256 * batch) & 0xff;
            let word = word | rnd(l + batch * 64) << 8;
            (word, scale_of(batch, l, 40))
        })
        .collect();
    let preset = |l: usize, d: usize| rnd(d as u32 * 31 + l as u32 + 7 * batch);
    let w = run(t, 64, false, &src, |w| {
        for (l, (word, s)) in inputs.iter().enumerate() {
            w.set_vgpr(2, l, *word);
            w.set_vgpr(4, l, scale_operand(*s, l as u32 + 1000 * batch));
            for c in &cases {
                for k in 0..2 {
                    w.set_vgpr(c.1 + k, l, preset(l, c.1 + k));
                }
            }
        }
    });
    for (l, &(word, s)) in inputs.iter().enumerate() {
        for (text, d, f, dst, kind, sel, hi) in &cases {
            let (f, dst, kind, sel, hi) = (*f, *dst, *kind, *sel, *hi);
            let dec = |c: u32| scaled_dec(f, dst, c, s);
            let got = |r: usize| w.vgpr(r, l);
            let ctx = format!("lane {l} `{text}` word {word:#x} scale {s}");
            let byte = (word >> (8 * sel)) & 0xff;
            match kind {
                0 => assert_eq!(got(*d), dec(byte), "{ctx}"),
                2 => {
                    let keep = preset(l, *d) & if hi == 1 { 0xffff } else { 0xffff_0000 };
                    assert_eq!(got(*d), keep | dec(byte) << (16 * hi), "{ctx}");
                }
                _ => {
                    let (c0, c1) = if f == Fmt::Fp4 {
                        (byte & 0xf, byte >> 4)
                    } else {
                        (byte, (word >> (8 * sel + 8)) & 0xff)
                    };
                    if kind == 1 {
                        assert_eq!(got(*d), dec(c0), "{ctx} first");
                        assert_eq!(got(*d + 1), dec(c1), "{ctx} second");
                    } else {
                        assert_eq!(got(*d), dec(c0) | dec(c1) << 16, "{ctx}");
                    }
                }
            }
        }
    }
}

/// Packs 6-bit codes: code `i` in bits `[6i+5 : 6i]` of a 192-bit little-endian row of
/// six registers.
fn pack6(codes: &[u32; 32]) -> [u32; 6] {
    let mut r = [0u32; 6];
    for (i, &c) in codes.iter().enumerate() {
        let bit = 6 * i;
        let v = (c as u64) << (bit % 32);
        r[bit / 32] |= v as u32;
        if bit % 32 > 26 {
            r[bit / 32 + 1] |= (v >> 32) as u32;
        }
    }
    r
}

#[test]
fn gfx950_scaled_six_bit_thirty_two_element() {
    let t = Target::Gfx950;
    for batch in 0..3u32 {
        for f in [Fmt::Fp6, Fmt::Bf6] {
            six_bit(t, f, batch);
        }
    }
}

fn six_bit(t: Target, f: Fmt, batch: u32) {
    let n = fname(f);
    // Registers: v[40:71] 32 f32 operands, v[80:95] 32 f16, v[96:111] 32 bf16, v[120:125]
    // 32 codes, v4 scale, v5 seed, v[130:135] 2xpk16 second source's codes (none: it
    // reads v[72:79] f32 * 2 = v[40:55] and v[56:71]).
    let src = format!(
        "v_cvt_scalef32_pk32_f32_{n} v[140:171], v[120:125], v4
v_cvt_scalef32_pk32_f16_{n} v[172:187], v[120:125], v4
v_cvt_scalef32_pk32_bf16_{n} v[188:203], v[120:125], v4
v_cvt_scalef32_pk32_{n}_f16 v[204:209], v[80:95], v4
v_cvt_scalef32_pk32_{n}_bf16 v[210:215], v[96:111], v4
v_cvt_scalef32_2xpk16_{n}_f32 v[216:221], v[40:55], v[56:71], v4
v_cvt_scalef32_sr_pk32_{n}_f32 v[222:227], v[40:71], v5, v4
v_cvt_scalef32_sr_pk32_{n}_f16 v[228:233], v[80:95], v5, v4
v_cvt_scalef32_sr_pk32_{n}_bf16 v[234:239], v[96:111], v5, v4"
    );
    struct Lane {
        scale: u8,
        f32s: [u32; 32],
        f16s: [u32; 32],
        bf16s: [u32; 32],
        codes: [u32; 32],
        seed: u32,
    }
    let lanes: Vec<Lane> = (0..64u32)
        .map(|l| {
            let scale = scale_of(batch, l, 6);
            let k = batch * 1_000_000 + l * 200;
            let sr = l % 2 == 1;
            Lane {
                scale,
                f32s: std::array::from_fn(|i| scaled_input(f, Src::F32, scale, k + i as u32, sr)),
                f16s: std::array::from_fn(|i| {
                    scaled_input(f, Src::F16, scale, k + 40 + i as u32, sr)
                }),
                bf16s: std::array::from_fn(|i| {
                    scaled_input(f, Src::Bf16, scale, k + 80 + i as u32, sr)
                }),
                codes: std::array::from_fn(|i| (l + 64 * i as u32 + batch) & 0x3f),
                seed: rnd(k + 150),
            }
        })
        .collect();
    let w = run(t, 64, false, &src, |w| {
        for (l, x) in lanes.iter().enumerate() {
            for i in 0..32 {
                w.set_vgpr(40 + i, l, x.f32s[i]);
            }
            for i in 0..16 {
                w.set_vgpr(80 + i, l, x.f16s[2 * i] | x.f16s[2 * i + 1] << 16);
                w.set_vgpr(96 + i, l, x.bf16s[2 * i] | x.bf16s[2 * i + 1] << 16);
            }
            for (i, v) in pack6(&x.codes).iter().enumerate() {
                w.set_vgpr(120 + i, l, *v);
            }
            w.set_vgpr(4, l, scale_operand(x.scale, l as u32 + 77));
            w.set_vgpr(5, l, x.seed);
        }
    });
    for (l, x) in lanes.iter().enumerate() {
        let s = x.scale;
        let got = |r: usize| w.vgpr(r, l);
        let ctx = format!("{n} batch {batch} lane {l} scale {s}");
        for i in 0..32 {
            let c = x.codes[i];
            assert_eq!(
                got(140 + i),
                scaled_dec(f, Dst::F32, c, s),
                "{ctx} pk32_f32 {i}"
            );
            let h = got(172 + i / 2) >> (16 * (i % 2)) & 0xffff;
            assert_eq!(h, scaled_dec(f, Dst::F16, c, s), "{ctx} pk32_f16 {i}");
            let b = got(188 + i / 2) >> (16 * (i % 2)) & 0xffff;
            assert_eq!(b, scaled_dec(f, Dst::Bf16, c, s), "{ctx} pk32_bf16 {i}");
        }
        let rows = |r: usize| -> [u32; 6] { std::array::from_fn(|k| got(r + k)) };
        let enc = |src: Src, v: &[u32; 32], seed: Option<u32>| {
            let mut seed = seed;
            pack6(&std::array::from_fn(|i| {
                let c = scaled_enc(f, src, v[i], s, seed, false);
                seed = seed.map(prng);
                c
            }))
        };
        assert_eq!(
            rows(204),
            enc(Src::F16, &x.f16s, None),
            "{ctx} pk32_{n}_f16"
        );
        assert_eq!(
            rows(210),
            enc(Src::Bf16, &x.bf16s, None),
            "{ctx} pk32_{n}_bf16"
        );
        // 2xpk16: S0's element i at 12i, S1's at 12i + 6.
        let inter: [u32; 32] = std::array::from_fn(|i| x.f32s[(i % 2) * 16 + i / 2]);
        assert_eq!(rows(216), enc(Src::F32, &inter, None), "{ctx} 2xpk16");
        assert_eq!(
            rows(222),
            enc(Src::F32, &x.f32s, Some(x.seed)),
            "{ctx} sr_pk32 f32"
        );
        assert_eq!(
            rows(228),
            enc(Src::F16, &x.f16s, Some(x.seed)),
            "{ctx} sr_pk32 f16"
        );
        assert_eq!(
            rows(234),
            enc(Src::Bf16, &x.bf16s, Some(x.seed)),
            "{ctx} sr_pk32 bf16"
        );
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
