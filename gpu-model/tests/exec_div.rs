//! v_div_scale / v_div_fmas (f32 and f64) on GFX9 and GFX12, lane by lane, against the
//! V_DIV_SCALE_F32/F64 and V_DIV_FMAS_F32/F64 pseudocode of AMD's CDNA3 ISA guide (the RDNA
//! guides give the same; V_DIV_FMAS's scale corrected as in `exec::float::div_fmas_scaled32`). Each lane takes one branch of that pseudocode; the expected
//! results below are worked out by hand from it (powers of two, so they are exact).

use gpu_model::exec::{ExecCtx, Program, Stop, Wave};
use gpu_model::memory::DeviceMemory;
use gpu_model::Target;

/// llvm-mc-22 -show-encoding (gfx942, then gfx1200 with vcc_lo):
/// v_div_scale_f32 v3, vcc, v0, v1, v2
/// v_div_fmas_f32 v4, v5, v6, v7
/// v_div_scale_f64 v[10:11], vcc, v[12:13], v[14:15], v[16:17]
/// v_div_fmas_f64 v[18:19], v[20:21], v[22:23], v[24:25]
/// s_endpgm
const GFX942: [u32; 9] = [
    0xD1E0_6A03,
    0x040A_0300,
    0xD1E2_0004,
    0x041E_0D05,
    0xD1E1_6A0A,
    0x0442_1D0C,
    0xD1E3_0012,
    0x0462_2D14,
    0xBF81_0000,
];
const GFX1200: [u32; 9] = [
    0xD6FC_6A03,
    0x040A_0300,
    0xD637_0004,
    0x041E_0D05,
    0xD6FD_6A0A,
    0x0442_1D0C,
    0xD638_0012,
    0x0462_2D14,
    0xBFB0_0000,
];

fn p32(e: i32) -> f32 {
    2f32.powi(e)
}

fn p64(e: i32) -> f64 {
    2f64.powi(e)
}

/// (S0, S1, S2) -> (D, VCC) per lane, f32.
fn cases32() -> [([f32; 3], f32, bool); 9] {
    [
        // No branch: S0 unchanged.
        ([1.0, 1.0, 3.0], 1.0, false),
        // Denominator zero: NaN.
        ([5.0, 0.0, 1.0], f32::NAN, false),
        // exponent(S2) - exponent(S1) = 120 >= 96, S0 == S1: ldexp(S0, 64), VCC.
        ([p32(-20), p32(-20), p32(100)], p32(44), true),
        // Same branch with S0 == S2: unscaled, VCC.
        ([p32(100), p32(-20), p32(100)], p32(100), true),
        // S1 subnormal: ldexp(S0, 64).
        ([p32(-130), p32(-130), p32(-100)], p32(-66), false),
        // S2 / S1 = 2^-130 subnormal, S0 == S2: ldexp(S0, 64), VCC.
        ([p32(-120), p32(10), p32(-120)], p32(-56), true),
        // Same with S0 == S1: unscaled, VCC.
        ([p32(10), p32(10), p32(-120)], p32(10), true),
        // exponent(S2) = 17 <= 23 (tiny numerator): ldexp(S0, 64).
        ([p32(-110), 1.0, p32(-110)], p32(-46), false),
        ([1.0, 1.0, 3.0], 1.0, false),
    ]
}

/// (S0, S1, S2) -> (D, VCC) per lane, f64 (thresholds 768, 2^128, 53).
fn cases64() -> [([f64; 3], f64, bool); 9] {
    [
        ([1.0, 1.0, 3.0], 1.0, false),
        // Numerator zero: NaN.
        ([1.0, 2.0, 0.0], f64::NAN, false),
        // Exponent difference 800 >= 768.
        ([p64(-200), p64(-200), p64(600)], p64(-72), true),
        ([p64(600), p64(-200), p64(600)], p64(600), true),
        // S1 subnormal.
        ([p64(-1060), p64(-1060), p64(-1000)], p64(-932), false),
        // S2 / S1 = 2^-1040 subnormal.
        ([p64(-1000), p64(40), p64(-1000)], p64(-872), true),
        ([p64(40), p64(40), p64(-1000)], p64(40), true),
        // exponent(S2) = 33 <= 53.
        ([p64(-990), 1.0, p64(-990)], p64(-862), false),
        // 1 / S1 = 2^-1023 subnormal, S2 / S1 = 2^-23 normal: ldexp(S0, -128).
        ([1.0, p64(1023), p64(1000)], p64(-128), false),
    ]
}

fn run(target: Target, words: &[u32], wave_size: u32) -> Wave {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let base = 0x1000;
    let prog = Program::new(target, base, &bytes);
    let mem = DeviceMemory::new();
    let mut lds = vec![0u8; 64];
    let mut ctx = ExecCtx {
        prog: &prog,
        mem: (&mem).into(),
        lds: &mut lds,
        observer: None,
        group: None,
    };
    let mut w = Wave::new(wave_size, base);
    w.set_exec(0x1ff);
    let set64 = |w: &mut Wave, r: usize, l: usize, v: f64| {
        w.set_vgpr(r, l, v.to_bits() as u32);
        w.set_vgpr(r + 1, l, (v.to_bits() >> 32) as u32);
    };
    for (l, (s, _, _)) in cases32().iter().enumerate() {
        for (k, v) in s.iter().enumerate() {
            w.set_vgpr(k, l, v.to_bits());
        }
        w.set_vgpr(5, l, 1.5f32.to_bits());
        w.set_vgpr(6, l, 2.0f32.to_bits());
        w.set_vgpr(7, l, 0.25f32.to_bits());
    }
    for (l, (s, _, _)) in cases64().iter().enumerate() {
        for (k, v) in s.iter().enumerate() {
            set64(&mut w, 12 + 2 * k, l, *v);
        }
        set64(&mut w, 20, l, 1.5);
        set64(&mut w, 22, l, 2.0);
        set64(&mut w, 24, l, 0.25);
    }
    assert_eq!(w.run(&mut ctx, 10), Stop::Endpgm);
    w
}

fn check(w: &Wave) {
    let vcc32: u64 = cases32()
        .iter()
        .enumerate()
        .map(|(l, c)| (c.2 as u64) << l)
        .sum();
    for (l, (_, d, v)) in cases32().iter().enumerate() {
        let got = f32::from_bits(w.vgpr(3, l));
        assert!(
            got.to_bits() == d.to_bits() || (d.is_nan() && got.is_nan()),
            "f32 lane {l}: {got:e} want {d:e}"
        );
        // fma(1.5, 2.0, 0.25) = 3.25, times 2^-64 where div_scale set VCC (S2 = 0.25 has a
        // biased exponent below 127; see gpu-model's `div_fmas_scaled32` for the source).
        let fmas = if *v { 3.25 * p32(-64) } else { 3.25 };
        assert_eq!(f32::from_bits(w.vgpr(4, l)), fmas, "f32 fmas lane {l}");
    }
    assert_eq!(vcc32, 0b0_0110_1100);
    let vcc64: u64 = cases64()
        .iter()
        .enumerate()
        .map(|(l, c)| (c.2 as u64) << l)
        .sum();
    assert_eq!(w.vcc(), vcc64, "VCC after v_div_scale_f64");
    let get64 =
        |r: usize, l: usize| f64::from_bits(w.vgpr(r, l) as u64 | (w.vgpr(r + 1, l) as u64) << 32);
    for (l, (_, d, v)) in cases64().iter().enumerate() {
        let got = get64(10, l);
        assert!(
            got.to_bits() == d.to_bits() || (d.is_nan() && got.is_nan()),
            "f64 lane {l}: {got:e} want {d:e}"
        );
        let fmas = if *v { 3.25 * p64(-128) } else { 3.25 };
        assert_eq!(get64(18, l), fmas, "f64 fmas lane {l}");
    }
}

#[test]
fn div_scale_and_fmas_gfx942() {
    check(&run(Target::Gfx942, &GFX942, 64));
}

#[test]
fn div_scale_and_fmas_gfx1200_wave32() {
    check(&run(Target::Gfx1200, &GFX1200, 32));
}
