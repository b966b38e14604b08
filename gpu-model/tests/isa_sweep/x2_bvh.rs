//! gfx950 VOP3PX2 (`v_mfma_scale_*`, 16 bytes) and GFX12 BVH ray-intersection words
//! against llvm-mc-22 (helpers from `isa_sweep.rs`).

use super::{ask_parallel, compare, xorshift};
use gpu_model::{isa, Target};
use llvm_oracle::Answer;

/// GFX12 BVH ray intersection (VIMAGE `image_bvh_intersect_ray`,
/// `image_bvh64_intersect_ray`, `image_bvh_dual_intersect_ray`,
/// `image_bvh8_intersect_ray`; opcodes 0x19, 0x1A, 0x80, 0x81): random words with one
/// of those opcodes, leaning to the one shape LLVM accepts (r128, dmask 0xF, dim 0, no
/// d16/nv/th/scope/tfe, an aligned SGPR resource; a16 with the fifth address field
/// zero), agree with llvm-mc-22 on at least 99.9% of the words; the common forms
/// (every operation, with and without a16, registers anywhere) agree exactly; every
/// decoded word re-encodes to its bytes.
#[test]
fn bvh_words_agree_with_llvm_mc() {
    const FLOOR: f64 = 99.9;
    let mut bad = Vec::new();
    for t in [Target::Gfx1200, Target::Gfx1201] {
        let mut s = 0xB7 ^ (t as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let ops = [0x19u32, 0x1A, 0x80, 0x81];
        let word = |s: &mut u64, canonical: bool| -> [u8; 16] {
            let mut r = || xorshift(s);
            let (a, b, c) = (r(), r(), r());
            let op = ops[(a % 4) as usize];
            let mut w0 = 0xD000_0000 | op << 14 | 1 << 4 | 0xF << 22;
            let a16 = (a >> 2) & 1;
            w0 |= (a16 as u32) << 6;
            let rsrc = ((b >> 8) % 26) as u32 * 4;
            let mut w1 = (b as u32 & 0xFF) | rsrc << 9;
            let mut w2 = c as u32;
            if a16 == 1 || (a >> 3) & 1 == 0 {
                // The fifth address field zero (a16 forms have four).
                w1 &= !(0xFF << 24);
                if a16 == 0 {
                    w1 |= ((c >> 32) as u32 & 0xFF) << 24;
                }
            } else {
                w1 |= ((c >> 40) as u32 & 0xFF) << 24;
            }
            if !canonical {
                // One in three words: random bits in the other fields of dword0/1.
                match (a >> 8) % 6 {
                    0 => w0 ^= 1 << ((a >> 16) % 14),
                    1 => w0 ^= 1 << (22 + (a >> 16) % 4),
                    2 => w1 ^= 1 << (8 + (a >> 16) % 16),
                    3 => w1 ^= 1 << ((a >> 16) % 24),
                    _ => {}
                }
                w2 ^= (a >> 32) as u32 & (a >> 40) as u32 & (a >> 48) as u32;
                // Words 0xD3A0_xxxx..0xD3A3_xxxx are left out (LLVM 22's GFX9
                // `v_fma_mix*` leftover, see KNOWN-DIFFERENCES.md).
                if matches!(w0 >> 16, 0xD3A0..=0xD3A3) {
                    w0 |= 0xF << 22;
                }
            }
            let mut l = [0u8; 16];
            for (j, w) in [w0, w1, w2, (c >> 48) as u32].into_iter().enumerate() {
                l[4 * j..4 * j + 4].copy_from_slice(&w.to_le_bytes());
            }
            l
        };
        let random: Vec<[u8; 16]> = (0..6000).map(|_| word(&mut s, false)).collect();
        let common: Vec<[u8; 16]> = (0..2000).map(|_| word(&mut s, true)).collect();
        let (a, g) = compare(t, &random);
        let rate = 100.0 * g as f64 / a.max(1) as f64;
        eprintln!("{t}: bvh random words: {a} answered, {g} agree ({rate:.2}%)");
        if a == 0 || rate < FLOOR {
            bad.push(format!("{t} bvh random {rate:.2}% < {FLOOR}%"));
        }
        let (a, g) = compare(t, &common);
        eprintln!("{t}: bvh common forms: {a} answered, {g} agree");
        if a != common.len() || g != a {
            bad.push(format!("{t} bvh common forms: {g} of {a} agree"));
        }
        let mut decoded = 0;
        for l in random.iter().chain(&common) {
            let Ok(i) = isa::decode(t, l, true) else {
                continue;
            };
            decoded += usize::from(i.mnemonic().starts_with("image_bvh"));
            let mut out = [0u8; 16];
            let n = isa::encode(&i, &mut out).expect("encode");
            if out[..n] != l[..n] {
                bad.push(format!("{t}: {l:02x?} re-encodes as {:02x?}", &out[..n]));
            }
        }
        eprintln!("{t}: bvh words decoded: {decoded}");
        if decoded < 3000 {
            bad.push(format!("{t}: only {decoded} bvh words decoded"));
        }
    }
    assert!(bad.is_empty(), "bvh: {bad:?}");
}

/// gfx950 VOP3PX2 (`v_mfma_scale_*`, 16 bytes: a `v_mfma_ld_scale_b32` word pair, then
/// the MFMA word pair). Random words of that shape (dword0 a `v_mfma_ld_scale_b32`,
/// dword2 the MFMA prefix with its fixed bits 14:11 = 1 and opcode 0x2D/0x2E, every
/// other bit random; the register fields leaning to VGPRs), a tenth of them with one of
/// the fixed bits or the opcode broken (LLVM then decodes the 8-byte
/// `v_mfma_ld_scale_b32` alone), must agree with llvm-mc-22 (same validity, length and
/// text) on at least 99% of the words; every common form (VGPR or AGPR tuples at even
/// registers, VGPR scales, every cbsz/blgp format, acc bits, op_sel/op_sel_hi of the
/// scales) must agree exactly; every decoded word must re-encode to its bytes. On
/// gfx90a/gfx942 (no VOP3PX2) the same words must agree too.
#[test]
fn vop3px2_words_agree_with_llvm_mc() {
    const FLOOR: f64 = 99.0;
    let mut bad = Vec::new();
    for t in [Target::Gfx950, Target::Gfx942, Target::Gfx90a] {
        let mut s = 0x3F2 ^ (t as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut random = Vec::new();
        for k in 0..12000 {
            let mut r = || xorshift(&mut s);
            let (a, b) = (r(), r());
            let w0 = 0xD3AC_0000 | (a as u32 & 0xFFFF);
            let mut w1 = (a >> 32) as u32;
            // Scales: VGPRs three times in four (bit 8 of each 9-bit code).
            if b & 3 != 0 {
                w1 |= 1 << 8;
            }
            if (b >> 2) & 3 != 0 {
                w1 |= 1 << 17;
            }
            let op = if b >> 4 & 1 == 0 { 0x2D } else { 0x2E };
            let mut w2 = (b >> 8) as u32 & !(0xFF80_7800 | 0x7F << 16) | 0xD380_0800 | op << 16;
            let mut w3 = (b >> 40) as u32 ^ (r() as u32);
            // MFMA sources VGPRs (or AGPRs under the acc bits) nine times in ten.
            if r() % 10 != 0 {
                w3 |= 1 << 8 | 1 << 17 | 1 << 26;
            }
            if k % 10 == 9 {
                // Break the fixed bits or the opcode.
                match r() % 4 {
                    0 => w2 ^= 1 << (11 + r() % 4),
                    1 => w2 ^= 1 << (23 + r() % 9),
                    2 => w2 = w2 & !(0x7F << 16) | ((r() % 128) as u32) << 16,
                    _ => w2 ^= 1 << 16,
                }
            }
            let mut l = [0u8; 16];
            for (j, w) in [w0, w1, w2, w3].into_iter().enumerate() {
                l[4 * j..4 * j + 4].copy_from_slice(&w.to_le_bytes());
            }
            random.push(l);
        }
        // Common forms: aligned tuples, VGPR scales, every selector and modifier.
        let mut common = Vec::new();
        for op in [0x2Du32, 0x2E] {
            for sel in 0..25u32 {
                for m in 0..64u32 {
                    let mut r = || xorshift(&mut s);
                    let reg = |x: u64| (x % 120) as u32 * 2;
                    let (cbsz, blgp) = (sel % 5, sel / 5);
                    let (acc_cd, acc, os, hi) = (m & 1, (m >> 1) & 3, (m >> 3) & 1, (m >> 4) & 3);
                    let os = os * (1 + (m >> 5));
                    let w0 = 0xD3AC_0000 | os << 11;
                    let w1 = (256 + reg(r())) | (256 + reg(r()) + 1) << 9 | hi << 27;
                    let w2 =
                        0xD380_0800 | op << 16 | acc_cd << 15 | cbsz << 8 | (reg(r()) / 16 * 16);
                    let w3 = (256 + reg(r()))
                        | (256 + reg(r())) << 9
                        | (256 + reg(r()) / 16 * 16) << 18
                        | acc << 27
                        | blgp << 29;
                    let mut l = [0u8; 16];
                    for (j, w) in [w0, w1, w2, w3].into_iter().enumerate() {
                        l[4 * j..4 * j + 4].copy_from_slice(&w.to_le_bytes());
                    }
                    common.push(l);
                }
            }
        }
        let (a, g) = compare(t, &random);
        let rate = 100.0 * g as f64 / a.max(1) as f64;
        eprintln!("{t}: vop3px2 random words: {a} answered, {g} agree ({rate:.2}%)");
        if a == 0 || rate < FLOOR {
            bad.push(format!("{t} vop3px2 random {rate:.2}% < {FLOOR}%"));
        }
        let (a, g) = compare(t, &common);
        eprintln!("{t}: vop3px2 common forms: {a} answered, {g} agree");
        if a != common.len() || g != a {
            bad.push(format!("{t} vop3px2 common forms: {g} of {a} agree"));
        }
        let mut scaled = 0;
        for l in random.iter().chain(&common) {
            let Ok(i) = isa::decode(t, l, false) else {
                continue;
            };
            scaled += usize::from(i.format == isa::Format::Vop3px2);
            let mut out = [0u8; 16];
            let n = isa::encode(&i, &mut out).expect("encode");
            if out[..n] != l[..n] {
                bad.push(format!("{t}: {l:02x?} re-encodes as {:02x?}", &out[..n]));
            }
        }
        eprintln!("{t}: vop3px2 words decoded as v_mfma_scale_*: {scaled}");
        if (t == Target::Gfx950) != (scaled > 10000) {
            bad.push(format!("{t}: {scaled} words decoded as v_mfma_scale_*"));
        }
    }
    // Built from typed operands: the encoding LLVM reads back as the same text.
    use isa::Operand;
    for op in [
        isa::Op::VMfmaScaleF3216x16x128F8f6f4,
        isa::Op::VMfmaScaleF3232x32x64F8f6f4,
    ] {
        let t = Target::Gfx950;
        let mut i = isa::Inst::build(t, op, isa::Format::Vop3px2).expect("build v_mfma_scale");
        for (k, first) in [32u16, 4, 12, 32, 60, 61].into_iter().enumerate() {
            let o = if k == 0 {
                Operand::Agpr { first, count: 4 }
            } else {
                Operand::Vgpr { first, count: 1 }
            };
            i.set_operand(k, o).expect("set operand");
        }
        let mut out = [0u8; 16];
        let n = isa::encode(&i, &mut out).expect("encode");
        let a = ask_parallel(t, &[&out[..n]]);
        let back = isa::decode(t, &out[..n], false).expect("decode built");
        match &a[0] {
            Answer::Inst(x, 16) if *x == back.to_string() && n == 16 => {}
            other => bad.push(format!("built {op:?}: llvm {other:?}, ours `{back}`")),
        }
    }
    assert!(bad.is_empty(), "vop3px2: {bad:?}");
}
