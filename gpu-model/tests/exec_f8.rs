//! 8-bit float conversions (`v_cvt_f32_fp8/bf8`, `v_cvt_pk_f32_fp8/bf8`) assembled by
//! llvm-mc-22 for gfx942, gfx950, gfx1200 and gfx1201 and run in the executor: every byte
//! value (lane `l` holds bytes `4l..4l+3`), every byte select (GFX9 SDWA `src0_sel`, GFX12
//! `byte_sel`/`op_sel`), against a reference that widens the bits into an f32 pattern
//! (normals) or scales the mantissa (subnormals): gfx942 reads FNUZ (E4M3 bias 8, E5M2
//! bias 16, 0x80 NaN, no infinities), gfx950 and GFX12 OCP (E4M3 bias 7 with `S.1111.111`
//! NaN; E5M2 bias 15 with IEEE infinities and NaNs).

#[path = "exec_util/asm.rs"]
mod asm;

use gpu_model::exec::Wave;
use gpu_model::{Family, Target};

/// The reference value of byte `x` as f32 bits (NaN: any NaN).
fn reference(x: u8, bf8: bool, ocp: bool) -> f32 {
    let (e_bits, m_bits) = if bf8 { (5u32, 2u32) } else { (4, 3) };
    let half: i32 = 1 << (e_bits - 1);
    let bias = if ocp { half - 1 } else { half };
    let sign = (x as u32 >> 7) << 31;
    let e = (x as u32 >> m_bits) & ((1 << e_bits) - 1);
    let m = x as u32 & ((1 << m_bits) - 1);
    let e_max = (1 << e_bits) - 1;
    if !ocp && x == 0x80 {
        return f32::NAN;
    }
    if ocp && bf8 && e == e_max {
        return if m == 0 {
            f32::from_bits(sign | 0x7f80_0000)
        } else {
            f32::NAN
        };
    }
    if ocp && !bf8 && e == e_max && m == (1 << m_bits) - 1 {
        return f32::NAN;
    }
    if e == 0 {
        let v = m as f32 * (2f32).powi(1 - bias - m_bits as i32);
        return if sign != 0 { -v } else { v };
    }
    let e32 = (e as i32 - bias + 127) as u32;
    f32::from_bits(sign | e32 << 23 | m << (23 - m_bits))
}

/// (mnemonic and operands, destination VGPR, byte, bf8, packed)
fn cases(t: Target) -> Vec<(String, usize, u32, bool, bool)> {
    let mut v = Vec::new();
    for (bf8, ty) in [(false, "fp8"), (true, "bf8")] {
        let base = if bf8 { 40 } else { 10 };
        v.push((format!("v_cvt_f32_{ty} v{base}, v2"), base, 0, bf8, false));
        v.push((
            format!("v_cvt_pk_f32_{ty} v[{}:{}], v2", base + 10, base + 11),
            base + 10,
            0,
            bf8,
            true,
        ));
        for b in 1..4u32 {
            let d = base + b as usize;
            let text = match t.family() {
                Family::Gfx9 => format!("v_cvt_f32_{ty}_sdwa v{d}, v2 src0_sel:BYTE_{b}"),
                Family::Gfx12 => format!("v_cvt_f32_{ty}_e64 v{d}, v2 byte_sel:{b}"),
            };
            v.push((text, d, b, bf8, false));
        }
        let d = base + 12;
        let text = match t.family() {
            Family::Gfx9 => format!(
                "v_cvt_pk_f32_{ty}_sdwa v[{d}:{}], v2 src0_sel:WORD_1",
                d + 1
            ),
            Family::Gfx12 => format!("v_cvt_pk_f32_{ty}_e64 v[{d}:{}], v2 op_sel:[1,0]", d + 1),
        };
        v.push((text, d, 2, bf8, true));
    }
    v
}

#[test]
fn every_byte_of_every_format() {
    for t in [
        Target::Gfx942,
        Target::Gfx950,
        Target::Gfx1200,
        Target::Gfx1201,
    ] {
        let ocp = t != Target::Gfx942;
        let cases = cases(t);
        let src: String = cases.iter().map(|c| c.0.clone() + "\n").collect();
        let code = asm::assemble_wave(t, 64, &src);
        let w = asm::run(t, 64, &code, |w: &mut Wave| {
            for l in 0..64 {
                let b = 4 * l as u32;
                w.set_vgpr(2, l, b | (b + 1) << 8 | (b + 2) << 16 | (b + 3) << 24);
            }
        });
        for (text, d, byte, bf8, packed) in &cases {
            for l in 0..64usize {
                let regs = if *packed { 2 } else { 1 };
                for k in 0..regs {
                    let x = (4 * l as u32 + byte + k) as u8;
                    let want = reference(x, *bf8, ocp);
                    let got = f32::from_bits(w.vgpr(d + k as usize, l));
                    let same = if want.is_nan() {
                        got.is_nan()
                    } else {
                        got.to_bits() == want.to_bits()
                    };
                    assert!(
                        same,
                        "{} `{text}` lane {l} byte {x:#04x}: got {got:e}, want {want:e}",
                        t.name()
                    );
                }
            }
        }
    }
}
