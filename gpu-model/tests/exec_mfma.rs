//! CDNA matrix cores: MFMA instructions assembled by llvm-mc-22 for gfx90a, gfx942 and
//! gfx950 and run in the executor, against a CPU reference that multiplies the matrices:
//! `D_b = A_(ab(b)) * B'_b + C_b` per block `b`, with every shape's block count, the
//! CBSZ/ABID A broadcast and the BLGP B lane patterns (CDNA3 ISA guide, "Matrix Arithmetic
//! Instructions"), f32/f16/bf16/i8/fp8/bf8/f64 sources with small integer values (exact in
//! every accumulation order). The 8-bit floats are encoded here independently of the
//! executor: gfx942 in the FNUZ encodings (E4M3 bias 8, E5M2 bias 16), gfx950 in the OCP
//! ones (E4M3 bias 7, E5M2 bias 15), so a wrong bias doubles or halves every product. The register layout of the matrices is AMD's matrix instruction
//! calculator layout (see `exec/mfma.rs`): lane `l` holds row/column `l % n` of block
//! `(l / n) / (k / kl)` for k values `kl * ((l / n) % (k / kl)) + j`; result value `v` of
//! lane `l` is row `r % n` of block `r / n`, column `l % n`, `r = 4 g (v / 4) + 4 (l / n)
//! + v % 4`.

#[path = "exec_util/asm.rs"]
mod asm;

use gpu_model::exec::Wave;
use gpu_model::Target;

#[derive(Clone, Copy, PartialEq, Debug)]
enum Ty {
    F32,
    F16,
    Bf16,
    I8,
    F64,
    /// 8-bit floats: (A is bf8, B is bf8); otherwise fp8.
    F8(bool, bool),
}

use Target::{Gfx90a as P, Gfx942 as C, Gfx950 as N};
use Ty::*;

/// (targets, mnemonic, n, k, values per lane, type)
type OpRow = (&'static [Target], &'static str, usize, usize, usize, Ty);

const OPS: &[OpRow] = &[
    (&[P], "v_mfma_f32_32x32x1f32", 32, 1, 1, F32),
    (&[P], "v_mfma_f32_16x16x1f32", 16, 1, 1, F32),
    (&[P], "v_mfma_f32_4x4x1f32", 4, 1, 1, F32),
    (&[P], "v_mfma_f32_32x32x2f32", 32, 2, 1, F32),
    (&[P], "v_mfma_f32_16x16x4f32", 16, 4, 1, F32),
    (&[P], "v_mfma_f32_32x32x4f16", 32, 4, 4, F16),
    (&[P], "v_mfma_f32_16x16x4f16", 16, 4, 4, F16),
    (&[P], "v_mfma_f32_4x4x4f16", 4, 4, 4, F16),
    (&[P], "v_mfma_f32_32x32x8f16", 32, 8, 4, F16),
    (&[P], "v_mfma_f32_16x16x16f16", 16, 16, 4, F16),
    (&[P], "v_mfma_i32_32x32x4i8", 32, 4, 4, I8),
    (&[P], "v_mfma_i32_16x16x4i8", 16, 4, 4, I8),
    (&[P], "v_mfma_i32_4x4x4i8", 4, 4, 4, I8),
    (&[P], "v_mfma_i32_32x32x8i8", 32, 8, 4, I8),
    (&[P], "v_mfma_i32_16x16x16i8", 16, 16, 4, I8),
    (&[P], "v_mfma_f32_32x32x2bf16", 32, 2, 2, Bf16),
    (&[P], "v_mfma_f32_16x16x2bf16", 16, 2, 2, Bf16),
    (&[P], "v_mfma_f32_4x4x2bf16", 4, 2, 2, Bf16),
    (&[P], "v_mfma_f32_32x32x4bf16", 32, 4, 2, Bf16),
    (&[P], "v_mfma_f32_16x16x8bf16", 16, 8, 2, Bf16),
    (&[P], "v_mfma_f32_32x32x4bf16_1k", 32, 4, 4, Bf16),
    (&[P], "v_mfma_f32_16x16x4bf16_1k", 16, 4, 4, Bf16),
    (&[P], "v_mfma_f32_4x4x4bf16_1k", 4, 4, 4, Bf16),
    (&[P], "v_mfma_f32_32x32x8bf16_1k", 32, 8, 4, Bf16),
    (&[P], "v_mfma_f32_16x16x16bf16_1k", 16, 16, 4, Bf16),
    (&[P], "v_mfma_f64_16x16x4f64", 16, 4, 1, F64),
    (&[C, N], "v_mfma_f32_32x32x1_2b_f32", 32, 1, 1, F32),
    (&[C, N], "v_mfma_f32_16x16x1_4b_f32", 16, 1, 1, F32),
    (&[C, N], "v_mfma_f32_4x4x1_16b_f32", 4, 1, 1, F32),
    (&[C, N], "v_mfma_f32_32x32x2_f32", 32, 2, 1, F32),
    (&[C, N], "v_mfma_f32_16x16x4_f32", 16, 4, 1, F32),
    (&[C, N], "v_mfma_f32_32x32x4_2b_f16", 32, 4, 4, F16),
    (&[C, N], "v_mfma_f32_16x16x4_4b_f16", 16, 4, 4, F16),
    (&[C, N], "v_mfma_f32_4x4x4_16b_f16", 4, 4, 4, F16),
    (&[C, N], "v_mfma_f32_32x32x8_f16", 32, 8, 4, F16),
    (&[C, N], "v_mfma_f32_16x16x16_f16", 16, 16, 4, F16),
    (&[C, N], "v_mfma_i32_32x32x4_2b_i8", 32, 4, 4, I8),
    (&[C, N], "v_mfma_i32_16x16x4_4b_i8", 16, 4, 4, I8),
    (&[C, N], "v_mfma_i32_4x4x4_16b_i8", 4, 4, 4, I8),
    (&[C, N], "v_mfma_i32_32x32x16_i8", 32, 16, 8, I8),
    (&[C, N], "v_mfma_i32_16x16x32_i8", 16, 32, 8, I8),
    (&[C, N], "v_mfma_f32_32x32x4_2b_bf16", 32, 4, 4, Bf16),
    (&[C, N], "v_mfma_f32_16x16x4_4b_bf16", 16, 4, 4, Bf16),
    (&[C, N], "v_mfma_f32_4x4x4_16b_bf16", 4, 4, 4, Bf16),
    (&[C, N], "v_mfma_f32_32x32x8_bf16", 32, 8, 4, Bf16),
    (&[C, N], "v_mfma_f32_16x16x16_bf16", 16, 16, 4, Bf16),
    (&[C, N], "v_mfma_f64_16x16x4_f64", 16, 4, 1, F64),
    (&[N], "v_mfma_f32_16x16x32_f16", 16, 32, 8, F16),
    (&[N], "v_mfma_f32_32x32x16_f16", 32, 16, 8, F16),
    (&[N], "v_mfma_f32_16x16x32_bf16", 16, 32, 8, Bf16),
    (&[N], "v_mfma_f32_32x32x16_bf16", 32, 16, 8, Bf16),
    (&[N], "v_mfma_i32_16x16x64_i8", 16, 64, 16, I8),
    (&[N], "v_mfma_i32_32x32x32_i8", 32, 32, 16, I8),
    (
        &[C, N],
        "v_mfma_f32_16x16x32_fp8_fp8",
        16,
        32,
        8,
        F8(false, false),
    ),
    (
        &[C, N],
        "v_mfma_f32_16x16x32_fp8_bf8",
        16,
        32,
        8,
        F8(false, true),
    ),
    (
        &[C, N],
        "v_mfma_f32_16x16x32_bf8_fp8",
        16,
        32,
        8,
        F8(true, false),
    ),
    (
        &[C, N],
        "v_mfma_f32_16x16x32_bf8_bf8",
        16,
        32,
        8,
        F8(true, true),
    ),
    (
        &[C, N],
        "v_mfma_f32_32x32x16_fp8_fp8",
        32,
        16,
        8,
        F8(false, false),
    ),
    (
        &[C, N],
        "v_mfma_f32_32x32x16_fp8_bf8",
        32,
        16,
        8,
        F8(false, true),
    ),
    (
        &[C, N],
        "v_mfma_f32_32x32x16_bf8_fp8",
        32,
        16,
        8,
        F8(true, false),
    ),
    (
        &[C, N],
        "v_mfma_f32_32x32x16_bf8_bf8",
        32,
        16,
        8,
        F8(true, true),
    ),
];

fn bits(t: Ty) -> usize {
    match t {
        F32 => 32,
        F16 | Bf16 => 16,
        I8 | F8(..) => 8,
        F64 => 64,
    }
}

/// Encodes a small nonzero-or-zero integer as an 8-bit float of `target`: bf8 (E5M2) or
/// fp8 (E4M3), OCP bias (2^(e-1) - 1) on gfx950, FNUZ bias (2^(e-1)) on gfx942.
fn enc_f8(target: Target, bf8: bool, x: i64) -> u64 {
    let (ebits, mbits) = if bf8 { (5, 2) } else { (4, 3) };
    let bias = (1i64 << (ebits - 1)) - i64::from(target != Target::Gfx942);
    let sign = if x < 0 { 0x80 } else { 0 };
    let a = x.unsigned_abs();
    if a == 0 {
        return 0;
    }
    let p = 63 - a.leading_zeros() as i64;
    // a = 2^p * (1 + m / 2^mbits); small integers need at most two significant bits.
    let m = ((a << mbits) >> p) & ((1 << mbits) - 1);
    sign | ((p + bias) as u64) << mbits | m
}

/// Encodes a small integer as the element type's bit pattern (`b`: the B operand).
fn enc(target: Target, t: Ty, b: bool, x: i64) -> u64 {
    match t {
        F8(abf, bbf) => enc_f8(target, if b { bbf } else { abf }, x),
        F32 => (x as f32).to_bits() as u64,
        F16 => half::f16::from_f64(x as f64).to_bits() as u64,
        Bf16 => ((x as f32).to_bits() >> 16) as u64,
        I8 => x as i8 as u8 as u64,
        F64 => (x as f64).to_bits(),
    }
}

fn regs(p: &str, base: usize, count: usize) -> String {
    if count == 1 {
        format!("{p}{base}")
    } else {
        format!("{p}[{base}:{}]", base + count - 1)
    }
}

struct Case<'a> {
    target: Target,
    name: &'a str,
    n: usize,
    k: usize,
    kl: usize,
    ty: Ty,
    cbsz: u32,
    abid: u32,
    blgp: u32,
    agpr: bool,
}

fn run(c: &Case<'_>) {
    let (n, k, kl, ty) = (c.n, c.k, c.kl, c.ty);
    let g = 64 / n;
    let gpb = k / kl;
    let blocks = g / gpb;
    let vals = blocks * n * n / 64;
    let dregs = if ty == F64 { 2 } else { 1 };
    let src_regs = (kl * bits(ty)).div_ceil(32);
    let cd = if c.agpr { "a" } else { "v" };
    let mut mods = String::new();
    if c.cbsz != 0 || c.abid != 0 {
        mods += &format!(" cbsz:{} abid:{}", c.cbsz, c.abid);
    }
    if c.blgp != 0 {
        mods += &format!(" blgp:{}", c.blgp);
    }
    let (a0, b0, c0, d0) = (0, 8, 16, if c.agpr { 128 } else { 64 });
    let text = format!(
        "{} {}, {}, {}, {}{mods}",
        c.name,
        regs(cd, d0, vals * dregs),
        regs("v", a0, src_regs),
        regs("v", b0, src_regs),
        regs(cd, c0, vals * dregs)
    );
    let code = asm::assemble(c.target, &text);
    // Matrices: A[b][row][kk], B[b][kk][col], C[b][row][col], small integers.
    let h = |s: u32, x: usize| (asm::hash(s.wrapping_mul(7919) ^ x as u32) % 7) as i64 - 3;
    let a = |b: usize, r: usize, kk: usize| h(1, (b * n + r) * k + kk);
    let bm = |b: usize, kk: usize, col: usize| h(2, (b * k + kk) * n + col);
    let cm = |b: usize, r: usize, col: usize| 10 * h(3, (b * n + r) * n + col);
    // Register placement (the calculator layout).
    let place = |l: usize, j: usize| {
        let grp = l / n;
        (grp / gpb, l % n, (grp % gpb) * kl + j)
    };
    // f64 results are one register pair per row group: pair v holds rows 4v .. 4v + 3,
    // one per 16 lanes (calculator `__get_output_reg_lanes`; AMD lab notes dgemm_16x16x16).
    let out_pos = |v: usize, l: usize| {
        if ty == F64 {
            return (0, 4 * v + l / n, l % n);
        }
        let r = 4 * g * (v / 4) + 4 * (l / n) + v % 4;
        (r / n, r % n, l % n)
    };
    let cbase = if c.agpr { 256 } else { 0 };
    let w = asm::run(c.target, 64, &code, |w: &mut Wave| {
        for l in 0..64 {
            let (mut wa, mut wb) = ([0u64; 8], [0u64; 8]);
            for j in 0..kl {
                let (b, m, kk) = place(l, j);
                let bit = bits(ty) * j;
                wa[bit / 64] |= enc(c.target, ty, false, a(b, m, kk)) << (bit % 64);
                wb[bit / 64] |= enc(c.target, ty, true, bm(b, kk, m)) << (bit % 64);
            }
            for x in 0..src_regs {
                w.set_vgpr(a0 + x, l, (wa[x / 2] >> (32 * (x % 2))) as u32);
                w.set_vgpr(b0 + x, l, (wb[x / 2] >> (32 * (x % 2))) as u32);
            }
            for v in 0..vals {
                let (b, r, col) = out_pos(v, l);
                let cv = match ty {
                    I8 => cm(b, r, col) as i32 as u32 as u64,
                    F64 => (cm(b, r, col) as f64).to_bits(),
                    _ => (cm(b, r, col) as f32).to_bits() as u64,
                };
                w.set_vgpr(cbase + c0 + dregs * v, l, cv as u32);
                if dregs == 2 {
                    w.set_vgpr(cbase + c0 + 2 * v + 1, l, (cv >> 32) as u32);
                }
            }
        }
    });
    // B as the lanes see it under BLGP: lane l reads the value lane src(l) holds.
    let src_lane = |l: usize| match c.blgp {
        0 => l,
        1 => l % 32,
        2 => 32 + l % 32,
        3 => (l + 16) % 64,
        p => 16 * (p as usize - 4) + l % 16,
    };
    for v in 0..vals {
        for l in 0..64 {
            let (b, r, col) = out_pos(v, l);
            let ab = (b >> c.cbsz << c.cbsz) + c.abid as usize;
            let mut want = cm(b, r, col);
            for kk in 0..k {
                // The lane and value index that hold B[b][kk][col], then where BLGP reads.
                let lane = (b * gpb + kk / kl) * n + col;
                let (sb, sm, skk) = place(src_lane(lane), kk % kl);
                want += a(ab, r, kk) * bm(sb, skk, sm);
            }
            let got = w.vgpr(cbase + d0 + dregs * v, l) as u64
                | if dregs == 2 {
                    (w.vgpr(cbase + d0 + 2 * v + 1, l) as u64) << 32
                } else {
                    0
                };
            let got = match ty {
                I8 => got as u32 as i32 as i64,
                F64 => f64::from_bits(got) as i64,
                _ => f32::from_bits(got as u32) as i64,
            };
            assert_eq!(
                got,
                want,
                "{} `{text}` value {v} lane {l} (block {b}, row {r}, col {col})",
                c.target.name()
            );
        }
    }
}

fn case(target: Target, op: &OpRow) -> Case<'static> {
    Case {
        target,
        name: op.1,
        n: op.2,
        k: op.3,
        kl: op.4,
        ty: op.5,
        cbsz: 0,
        abid: 0,
        blgp: 0,
        agpr: false,
    }
}

#[test]
fn every_shape_on_every_target() {
    for op in OPS {
        for &t in op.0 {
            run(&case(t, op));
        }
    }
}

#[test]
fn broadcast_and_lane_group_modifiers() {
    for t in [P, C, N] {
        for op in OPS.iter().filter(|o| o.0.contains(&t) && o.5 != F64) {
            let blocks = 64 / op.2 / (op.3 / op.4);
            for blgp in 1..8 {
                run(&Case {
                    blgp,
                    ..case(t, op)
                });
            }
            let mut cbsz = 1;
            while 1 << cbsz <= blocks {
                for abid in [0, (1 << cbsz) - 1] {
                    run(&Case {
                        cbsz,
                        abid,
                        blgp: 3,
                        ..case(t, op)
                    });
                }
                cbsz += 1;
            }
        }
    }
}

#[test]
fn accumulator_registers() {
    for t in [P, C, N] {
        for op in OPS.iter().filter(|o| o.0.contains(&t)) {
            run(&Case {
                agpr: true,
                ..case(t, op)
            });
        }
    }
}
