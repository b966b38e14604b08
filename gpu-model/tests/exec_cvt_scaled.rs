//! The gfx950 scaled conversions `v_cvt_scalef32_*`, assembled by llvm-mc-22 and run in
//! the executor, against the reference of `exec_util/narrow.rs`: every source/destination
//! format pair (fp8, bf8, fp4, fp6, bf6 with f32, f16, bf16), packed, stochastic and
//! 32-element forms, every source and destination select, source modifiers, E8M0 scales
//! including 2^-127 and NaN (0xff), MODE.FP16_OVFL off and on.
//!
//! Semantic sources (AMD CDNA4 ISA guide instruction pseudo-code and section 7.3; AMD's
//! host emulation `amd_hip_ocp_host.hpp` for the edges) are cited in
//! `gpu-model/src/exec/cvt.rs`; this file repeats the rules it checks next to each
//! reference.

#[path = "exec_util/asm.rs"]
mod asm;
#[path = "exec_util/narrow.rs"]
mod narrow;

use gpu_model::exec::Wave;
use gpu_model::Target;
use narrow::{nearest, overflow, prng, stochastic, Fmt, Ovf};

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
        narrow::sr_value(f, src.mbits(), k + 1, rnd)
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
