//! gfx950 f16/bf16 MFMAs translated to gfx1201 (wave64) WMMAs with lane fix-ups
//! (`dbt/src/rdna/matrix.rs`). One clang-22 gfx950 OpenCL object holds a kernel per MFMA
//! shape; each does `D = A0 * B0` (C the inline constant 0) then `D = A1 * B1 + D` (C in
//! registers) and stores its D registers lane by lane. Every kernel must translate, pass
//! the LLVM 22 tools as gfx1201, contain WMMAs and no MFMA, and on the gfx1201 model
//! write exactly what the original writes on the gfx950 model and what the CPU
//! reference computes (the inputs are small multiples of 1/8, so every product and sum
//! is exact in f32 whatever the order: a lane or register put in the wrong place
//! cannot pass). Shapes that have no WMMA stay refused by name.

mod common;

use gpu_model::Target;
use std::process::Command;

/// (kernel, M, K, bf16). A/B per lane: `K * M / 64` values; D: `M * M / 64` registers.
const SHAPES: &[(&str, usize, usize, bool)] = &[
    ("m16x16x16f16", 16, 16, false),
    ("m16x16x16bf16", 16, 16, true),
    ("m16x16x32f16", 16, 32, false),
    ("m16x16x32bf16", 16, 32, true),
    ("m32x32x8f16", 32, 8, false),
    ("m32x32x8bf16", 32, 8, true),
    ("m32x32x16f16", 32, 16, false),
    ("m32x32x16bf16", 32, 16, true),
];

const SRC: &str = r#"
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef __bf16 bf16x8 __attribute__((ext_vector_type(8)));
typedef short s16x4 __attribute__((ext_vector_type(4)));
#define K(name, T, ACC, OUT, CALL)                                                  \
  __kernel __attribute__((reqd_work_group_size(64, 1, 1))) void name(               \
      __global const uint *in, __global float *out) {                               \
    uint l = __builtin_amdgcn_workitem_id_x();                                      \
    __global const T *p = (__global const T *)in;                                   \
    T a0 = p[l], b0 = p[64 + l], a1 = p[128 + l], b1 = p[192 + l];                  \
    ACC acc = 0.0f;                                                                 \
    acc = CALL(a0, b0, acc, 0, 0, 0);                                               \
    acc = CALL(a1, b1, acc, 0, 0, 0);                                               \
    for (uint r = 0; r < OUT; r++) out[l * OUT + r] = acc[r];                       \
  }
K(m16x16x16f16, half4, float4, 4, __builtin_amdgcn_mfma_f32_16x16x16f16)
K(m16x16x16bf16, s16x4, float4, 4, __builtin_amdgcn_mfma_f32_16x16x16bf16_1k)
K(m16x16x32f16, half8, float4, 4, __builtin_amdgcn_mfma_f32_16x16x32_f16)
K(m16x16x32bf16, bf16x8, float4, 4, __builtin_amdgcn_mfma_f32_16x16x32_bf16)
K(m32x32x8f16, half4, float16, 16, __builtin_amdgcn_mfma_f32_32x32x8f16)
K(m32x32x8bf16, s16x4, float16, 16, __builtin_amdgcn_mfma_f32_32x32x8bf16_1k)
K(m32x32x16f16, half8, float16, 16, __builtin_amdgcn_mfma_f32_32x32x16_f16)
K(m32x32x16bf16, bf16x8, float16, 16, __builtin_amdgcn_mfma_f32_32x32x16_bf16)
"#;

/// The gfx950 object, compiled by clang-22.
fn guest() -> Vec<u8> {
    compile(SRC, "mfma")
}

/// OpenCL `text` compiled for gfx950 by clang-22.
fn compile(text: &str, tag: &str) -> Vec<u8> {
    compile_with(text, tag, &[])
}

/// [`compile`] with extra clang-22 flags.
fn compile_with(text: &str, tag: &str, flags: &[&str]) -> Vec<u8> {
    let dir = std::env::temp_dir().join(format!("dbt-wmma-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (src, obj) = (dir.join("mfma.cl"), dir.join("mfma.hsaco"));
    std::fs::write(&src, text).unwrap();
    let out = Command::new("clang-22")
        .args([
            "-x",
            "cl",
            "-cl-std=CL2.0",
            "-target",
            "amdgcn-amd-amdhsa",
            "-mcpu=gfx950",
            "-O2",
            "-nogpulib",
        ])
        .args(flags)
        .arg(&src)
        .arg("-o")
        .arg(&obj)
        .output()
        .expect("clang-22 is required (scripts/install-deps.sh)");
    assert!(
        out.status.success(),
        "clang-22: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let b = std::fs::read(&obj).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    b
}

/// A small deterministic value, a multiple of 1/8 in [-2, 2) (exact in f16 and bf16).
fn value(seed: &mut u32) -> f32 {
    *seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
    ((*seed >> 16) % 32) as f32 / 8.0 - 2.0
}

fn bits16(x: f32, bf16: bool) -> u16 {
    if bf16 {
        // Exact: the values need 5 significant bits.
        (x.to_bits() >> 16) as u16
    } else {
        half::f16::from_f32(x).to_bits()
    }
}

/// Input words (A0, B0, A1, B1 per lane in the CDNA layout: lane `M * (k / kl) + i`
/// holds `A[i][k]` as value `k % kl`, B alike with the column) and the reference D in
/// the CDNA D layout (`out[lane * regs + reg]`).
fn case(m: usize, k: usize, bf16: bool, seed: u32) -> (Vec<u32>, Vec<u32>) {
    let kl = k * m / 64;
    let mut s = seed;
    let mut mats = Vec::new();
    for _ in 0..2 {
        let a: Vec<f32> = (0..m * k).map(|_| value(&mut s)).collect(); // a[i * k + kk]
        let b: Vec<f32> = (0..k * m).map(|_| value(&mut s)).collect(); // b[kk * m + j]
        mats.push((a, b));
    }
    let mut halves = vec![0u16; 4 * 64 * kl];
    for (step, (a, b)) in mats.iter().enumerate() {
        for i in 0..m {
            for kk in 0..k {
                let lane = m * (kk / kl) + i;
                halves[(2 * step * 64 + lane) * kl + kk % kl] = bits16(a[i * k + kk], bf16);
                halves[((2 * step + 1) * 64 + lane) * kl + kk % kl] = bits16(b[kk * m + i], bf16);
            }
        }
    }
    let words = halves
        .chunks(2)
        .map(|p| u32::from(p[0]) | u32::from(p[1]) << 16)
        .collect();
    (words, reference_d(m, k, &mats))
}

/// `A0 B0 + A1 B1` (`a[i * k + kk]`, `b[kk * m + j]`) in the CDNA D layout
/// (`out[lane * regs + reg]`).
fn reference_d(m: usize, k: usize, mats: &[(Vec<f32>, Vec<f32>)]) -> Vec<u32> {
    let regs = m * m / 64;
    let mut d = vec![0u32; 64 * regs];
    for i in 0..m {
        for j in 0..m {
            let mut x = 0f64;
            for (a, b) in mats {
                for kk in 0..k {
                    x += f64::from(a[i * k + kk]) * f64::from(b[kk * m + j]);
                }
            }
            let (reg, lane) = if m == 16 {
                (i % 4, 16 * (i / 4) + j)
            } else {
                ((i / 8) * 4 + i % 4, 32 * ((i / 4) % 2) + j)
            };
            d[lane * regs + reg] = (x as f32).to_bits();
        }
    }
    d
}

/// Runs `name` on the gfx950 model (`guest`) and, translated, on the gfx1201 model
/// (`t`), asserts both outputs are `want` (the CPU reference) and prints the kernel's
/// code and dynamic-instruction growth.
fn both_give(guest: &[u8], t: &dbt::Translation, name: &str, input: &[u32], want: &[u32]) {
    let (native, n_guest) = launch(guest, Target::Gfx950, name, input, want.len());
    assert_eq!(native, want, "{name}: gfx950 against the CPU reference");
    let (host, n_host) = launch(&t.object, Target::Gfx1201, name, input, want.len());
    assert_eq!(
        host, want,
        "{name}: gfx1201 translation against the CPU reference"
    );
    let rep = t.kernels.iter().find(|r| r.name == name).expect(name);
    eprintln!(
        "{name}: code {} -> {} bytes ({:.2}x), wave-instructions {n_guest} -> {n_host} ({:.2}x), VGPRs {:?}",
        rep.code_before,
        rep.code_after,
        rep.code_after as f64 / rep.code_before as f64,
        n_host as f64 / n_guest as f64,
        rep.vgprs
    );
}

/// Runs `kernel` (arguments: a buffer holding `input`, a zeroed output of `words`
/// words) on one wave of `target`; returns the output and the wave-instructions retired.
fn launch(
    bytes: &[u8],
    target: Target,
    kernel: &str,
    input: &[u32],
    words: usize,
) -> (Vec<u32>, u64) {
    use gpu_model::device::{ArgValue, Device, LaunchConfig};
    let mut dev = Device::new(target);
    let m = dev.load_code_object(bytes).expect("loads");
    let inb: Vec<u8> = input.iter().flat_map(|w| w.to_le_bytes()).collect();
    let ia = dev.alloc(inb.len() as u64).unwrap();
    dev.copy_in(ia, &inb).unwrap();
    let oa = dev.alloc(4 * words as u64).unwrap();
    dev.copy_in(oa, &vec![0u8; 4 * words]).unwrap();
    let cfg = LaunchConfig::new([64, 1, 1], [64, 1, 1]);
    let id = dev
        .dispatch(m, kernel, &cfg, &[ArgValue::ptr(ia), ArgValue::ptr(oa)])
        .expect("dispatch");
    let stats = dev.wait(id).expect("runs");
    let mut out = vec![0u8; 4 * words];
    dev.copy_out(oa, &mut out).unwrap();
    let words = out
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    (words, stats.instructions)
}

#[test]
fn f16_and_bf16_mfmas_run_as_wmmas_on_gfx1201() {
    let g = guest();
    let t = dbt::translate(&g, Target::Gfx1201);
    assert!(t.translated, "{:?}", t.diagnostics);
    let dis = common::llvm_accepts_as(&t.object, "wmma", "gfx1201");
    assert!(dis.contains("v_wmma_f32_16x16x16_f16"), "{dis}");
    assert!(dis.contains("v_wmma_f32_16x16x16_bf16"), "{dis}");
    assert!(!dis.contains("mfma"), "{dis}");
    for (n, &(name, m, k, bf16)) in SHAPES.iter().enumerate() {
        let (input, want) = case(m, k, bf16, 7 + n as u32);
        both_give(&g, &t, name, &input, &want);
    }
}

/// (kernel, M, K, A bf8, B bf8, f8f6f4). fp8 is OCP E4M3, bf8 OCP E5M2 on both gfx950 and
/// GFX12 (LLVM's MLIR `amdgpu::hasOcpFp8`: gfx9.5 and gfx12+; the models decode both as
/// `minifloat::Format::{Fp8, Bf8}`), so the WMMAs read the guest's bytes unchanged.
const SHAPES8: &[(&str, usize, usize, bool, bool, bool)] = &[
    ("m16x16x32fp8", 16, 32, false, false, false),
    ("m16x16x32bf8fp8", 16, 32, true, false, false),
    ("m32x32x16fp8bf8", 32, 16, false, true, false),
    ("m32x32x16bf8", 32, 16, true, true, false),
    ("m16x16x128f8", 16, 128, false, true, true),
    ("m32x32x64f8", 32, 64, true, false, true),
];

const SRC8: &str = r#"
typedef int i32x8 __attribute__((ext_vector_type(8)));
#define K(name, T, ACC, OUT, CALL, ...)                                             \
  __kernel __attribute__((reqd_work_group_size(64, 1, 1))) void name(               \
      __global const uint *in, __global float *out) {                               \
    uint l = __builtin_amdgcn_workitem_id_x();                                      \
    __global const T *p = (__global const T *)in;                                   \
    T a0 = p[l], b0 = p[64 + l], a1 = p[128 + l], b1 = p[192 + l];                  \
    ACC acc = 0.0f;                                                                 \
    acc = CALL(a0, b0, acc, __VA_ARGS__);                                           \
    acc = CALL(a1, b1, acc, __VA_ARGS__);                                           \
    for (uint r = 0; r < OUT; r++) out[l * OUT + r] = acc[r];                       \
  }
K(m16x16x32fp8, long, float4, 4, __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8, 0, 0, 0)
K(m16x16x32bf8fp8, long, float4, 4, __builtin_amdgcn_mfma_f32_16x16x32_bf8_fp8, 0, 0, 0)
K(m32x32x16fp8bf8, long, float16, 16, __builtin_amdgcn_mfma_f32_32x32x16_fp8_bf8, 0, 0, 0)
K(m32x32x16bf8, long, float16, 16, __builtin_amdgcn_mfma_f32_32x32x16_bf8_bf8, 0, 0, 0)
K(m16x16x128f8, i32x8, float4, 4, __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4, 0, 1, 0, 0, 0, 0)
K(m32x32x64f8, i32x8, float16, 16, __builtin_amdgcn_mfma_scale_f32_32x32x64_f8f6f4, 1, 0, 0, 0, 0, 0)
"#;

/// `x` (a multiple of 1/4 with at most 3 significant bits, at least 1/4 in magnitude) as
/// an OCP E5M2 (`bf8`) or E4M3 byte: exact, normal in both.
fn bits8(x: f32, bf8: bool) -> u8 {
    if x == 0.0 {
        return 0;
    }
    let (m, bias) = if bf8 { (2, 15) } else { (3, 7) };
    let b = x.to_bits();
    let e = ((b >> 23) & 0xff) as i32 - 127 + bias;
    ((b >> 31) << 7) as u8 | (e as u8) << m | ((b & 0x7f_ffff) >> (23 - m)) as u8
}

/// Input words and reference D of an 8-bit case: values `n / 4`, `n` in -8..8 (exact in
/// both formats; every product and sum exact in f32). The CDNA A/B layouts: dense shapes
/// lane `M * (k / 8) + i` byte `k % 8`; `f8f6f4` (AMD's CDNA4 matrix core blog, 5.4) k
/// halves in registers 0-3 / 4-7, in each 16 consecutive k per lane: lane `M * (r / 16) +
/// i`, byte `16 * (k / (K/2)) + r % 16` for `r = k % (K/2)`.
fn case8(m: usize, k: usize, fmt: (bool, bool), f8f6f4: bool, seed: u32) -> (Vec<u32>, Vec<u32>) {
    let bytes_per_lane = if f8f6f4 { 32 } else { k * m / 64 };
    let mut s = seed;
    let mut val = || {
        s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        ((s >> 16) % 16) as f32 / 4.0 - 2.0
    };
    let mut mats = Vec::new();
    for _ in 0..2 {
        let a: Vec<f32> = (0..m * k).map(|_| val()).collect();
        let b: Vec<f32> = (0..k * m).map(|_| val()).collect();
        mats.push((a, b));
    }
    let place = |i: usize, kk: usize| -> (usize, usize) {
        if f8f6f4 {
            let half = k / 2;
            let r = kk % half;
            (m * (r / 16) + i, 16 * (kk / half) + r % 16)
        } else {
            (m * (kk / 8) + i, kk % 8)
        }
    };
    let mut bytes = vec![0u8; 4 * 64 * bytes_per_lane];
    for (step, (a, b)) in mats.iter().enumerate() {
        for i in 0..m {
            for kk in 0..k {
                let (lane, byte) = place(i, kk);
                bytes[(2 * step * 64 + lane) * bytes_per_lane + byte] = bits8(a[i * k + kk], fmt.0);
                bytes[((2 * step + 1) * 64 + lane) * bytes_per_lane + byte] =
                    bits8(b[kk * m + i], fmt.1);
            }
        }
    }
    let words = bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    (words, reference_d(m, k, &mats))
}

#[test]
fn fp8_and_bf8_mfmas_run_as_wmmas_on_gfx1201() {
    let g = compile(SRC8, "f8");
    let t = dbt::translate(&g, Target::Gfx1201);
    assert!(t.translated, "{:?}", t.diagnostics);
    let dis = common::llvm_accepts_as(&t.object, "wmma8", "gfx1201");
    for w in ["fp8_fp8", "bf8_fp8", "fp8_bf8", "bf8_bf8"] {
        assert!(
            dis.contains(&format!("v_wmma_f32_16x16x16_{w}")),
            "{w}: {dis}"
        );
    }
    assert!(!dis.contains("mfma"), "{dis}");
    for (n, &(name, m, k, fa, fb, f8f6f4)) in SHAPES8.iter().enumerate() {
        let (input, want) = case8(m, k, (fa, fb), f8f6f4, 70 + n as u32);
        both_give(&g, &t, name, &input, &want);
    }
}

/// The `f8f6f4` formats without a GFX12 WMMA (here fp4 A) and the scaled form with a
/// run-time scale are refused by name on gfx1201 and on gfx942, returning the original
/// object.
#[test]
fn fp4_and_scaled_mfmas_stay_refused_by_name() {
    for (tag, args, what) in [
        ("fp4", "4, 0, 0, 0, 0, 0", "fp6/bf6/fp4"),
        ("scaled", "0, 0, 0, s, 0, s", "scaled f8f6f4"),
    ] {
        let src = format!(
            "typedef int i32x8 __attribute__((ext_vector_type(8)));\n\
             __kernel void k(__global const i32x8 *in, __global float *out, int s) {{\n\
               uint l = __builtin_amdgcn_workitem_id_x();\n\
               float16 acc = __builtin_amdgcn_mfma_scale_f32_32x32x64_f8f6f4(in[l], in[64 + l], (float16)0.0f, {args});\n\
               for (int r = 0; r < 16; r++) out[l * 16 + r] = acc[r];\n\
             }}\n"
        );
        let g = compile(&src, tag);
        let t = dbt::translate(&g, Target::Gfx1201);
        assert!(!t.translated, "{tag}");
        assert_eq!(t.object, g);
        let d = t.diagnostics[0].to_string();
        assert!(d.contains("f8f6f4") && d.contains(what), "{tag}: {d}");
        // gfx942 (which has fp8 MFMAs only) refuses both too, naming the instruction.
        let t = dbt::translate(&g, Target::Gfx942);
        assert!(!t.translated, "{tag} on gfx942");
        assert_eq!(t.object, g);
        let d = t.diagnostics[0].to_string();
        let why = if tag == "fp4" {
            "only fp8 (E4M3) A and B"
        } else {
            "no gfx942 equivalent"
        };
        assert!(
            d.contains("f8f6f4") && d.contains(why),
            "{tag} on gfx942: {d}"
        );
    }
}

/// (kernel, M, K, blocks): every f32 MFMA of gfx950.
const SHAPES32: &[(&str, usize, usize, usize)] = &[
    ("m16x16x4f32", 16, 4, 1),
    ("m32x32x2f32", 32, 2, 1),
    ("m32x32x1f32", 32, 1, 2),
    ("m16x16x1f32", 16, 1, 4),
    ("m4x4x1f32", 4, 1, 16),
];

const SRC32: &str = r#"
typedef float f32x32 __attribute__((ext_vector_type(32)));
#define K(name, ACC, OUT, CALL)                                                     \
  __kernel __attribute__((reqd_work_group_size(64, 1, 1))) void name(               \
      __global const uint *in, __global float *out) {                               \
    uint l = __builtin_amdgcn_workitem_id_x();                                      \
    __global const float *p = (__global const float *)in;                           \
    float a0 = p[l], b0 = p[64 + l], a1 = p[128 + l], b1 = p[192 + l];              \
    ACC acc = 0.0f;                                                                 \
    acc = CALL(a0, b0, acc, 0, 0, 0);                                               \
    acc = CALL(a1, b1, acc, 0, 0, 0);                                               \
    for (uint r = 0; r < OUT; r++) out[l * OUT + r] = acc[r];                       \
  }
K(m16x16x4f32, float4, 4, __builtin_amdgcn_mfma_f32_16x16x4f32)
K(m32x32x2f32, float16, 16, __builtin_amdgcn_mfma_f32_32x32x2f32)
K(m32x32x1f32, f32x32, 32, __builtin_amdgcn_mfma_f32_32x32x1f32)
K(m16x16x1f32, float16, 16, __builtin_amdgcn_mfma_f32_16x16x1f32)
K(m4x4x1f32, float4, 4, __builtin_amdgcn_mfma_f32_4x4x1f32)
"#;

/// Input words (A0, B0, A1, B1: lane `b * M + k * M * blocks + i` holds `A[b][i][k]`, B
/// alike with the column) and the reference D: per element one fused multiply-add per k
/// in k order from 0, the gfx950 model's f32 MFMA numerics (`exec::matrix`, "Numerics"),
/// in the CDNA D layout (`out[lane * regs + reg]`). The values are arbitrary f32 in
/// [-1, 1), so another order or unfused products would round differently.
fn case32(m: usize, k: usize, blocks: usize, seed: u32, scale: f32) -> (Vec<u32>, Vec<u32>) {
    let mut s = seed;
    let mut val = || {
        s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        ((s >> 8) as f32 / (1 << 23) as f32 - 1.0) * scale
    };
    let mut words = vec![0u32; 4 * 64];
    let mut mats = Vec::new();
    for step in 0..2 {
        let a: Vec<f32> = (0..blocks * m * k).map(|_| val()).collect(); // [b][i][kk]
        let b: Vec<f32> = (0..blocks * k * m).map(|_| val()).collect(); // [b][kk][j]
        for blk in 0..blocks {
            for i in 0..m {
                for kk in 0..k {
                    let lane = blk * m + kk * m * blocks + i;
                    words[2 * step * 64 + lane] = a[(blk * m + i) * k + kk].to_bits();
                    words[(2 * step + 1) * 64 + lane] = b[(blk * k + kk) * m + i].to_bits();
                }
            }
        }
        mats.push((a, b));
    }
    let regs = m * m * blocks / 64;
    let (mpr, bpr) = (64 / m, 64usize.div_ceil(m * m / 4));
    let mut d = vec![0u32; 64 * regs];
    for blk in 0..blocks {
        for i in 0..m {
            for j in 0..m {
                let mut acc = 0f32;
                for (a, b) in &mats {
                    for kk in 0..k {
                        acc = a[(blk * m + i) * k + kk].mul_add(b[(blk * k + kk) * m + j], acc);
                    }
                }
                let reg = blk * (m * m / 64) + (i / (4 * mpr)) * 4 + i % 4;
                let lane = (blk % bpr) * m + ((i / 4) % mpr) * bpr * m + j;
                d[lane * regs + reg] = acc.to_bits();
            }
        }
    }
    (words, d)
}

/// f32 MFMAs (no GFX12 WMMA takes f32) become `v_fma_f32` chains over `ds_bpermute_b32`
/// (`dbt/src/rdna/matrix_valu.rs`): every gfx950 shape, C the constant 0 then registers,
/// bit-exact against the gfx950 run and the fused k-order CPU reference.
#[test]
fn f32_mfmas_run_as_fma_chains_on_gfx1201() {
    let g = compile(SRC32, "f32");
    let t = dbt::translate(&g, Target::Gfx1201);
    assert!(t.translated, "{:?}", t.diagnostics);
    let dis = common::llvm_accepts_as(&t.object, "fma32", "gfx1201");
    assert!(
        dis.contains("ds_bpermute_b32") && dis.contains("v_fma"),
        "{dis}"
    );
    assert!(!dis.contains("mfma"), "{dis}");
    for (n, &(name, m, k, blocks)) in SHAPES32.iter().enumerate() {
        let (input, want) = case32(m, k, blocks, 90 + n as u32, 1.0);
        both_give(&g, &t, name, &input, &want);
    }
}

/// An f32 MFMA whose D holds its own A and B (`v[0:3] = v1 * v2`: the rule copies them
/// before the first FMA writes D), then one whose C is another tuple
/// (`v[12:15] = v4 * v5 + v[0:3]`). gfx950 assembly (llvm-mc-22); the gfx1201 run must
/// match the gfx950 run and the fused k-order reference bit for bit.
#[test]
fn f32_mfma_whose_d_holds_a_and_b_runs_the_same_on_gfx1201() {
    let src = r#"
  .amdhsa_code_object_version 5
  .text
  .globl fma_overlap
  .p2align 8
  .type fma_overlap,@function
fma_overlap:
  s_load_dwordx4 s[0:3], s[0:1], 0x0
  v_lshlrev_b32 v10, 2, v0
  v_lshlrev_b32 v11, 4, v0
  s_waitcnt lgkmcnt(0)
  global_load_dword v1, v10, s[0:1]
  global_load_dword v2, v10, s[0:1] offset:256
  global_load_dword v4, v10, s[0:1] offset:512
  global_load_dword v5, v10, s[0:1] offset:768
  s_waitcnt vmcnt(0)
  v_mfma_f32_16x16x4_f32 v[0:3], v1, v2, 0
  v_mfma_f32_16x16x4_f32 v[12:15], v4, v5, v[0:3]
  s_nop 7
  s_nop 7
  global_store_dwordx4 v11, v[12:15], s[2:3]
  s_endpgm
.Lfma_overlap_end:
  .size fma_overlap, .Lfma_overlap_end-fma_overlap
  .rodata
  .p2align 6
  .amdhsa_kernel fma_overlap
    .amdhsa_kernarg_size 16
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_next_free_vgpr 16
    .amdhsa_next_free_sgpr 4
    .amdhsa_accum_offset 16
    .amdhsa_float_denorm_mode_32 3
  .end_amdhsa_kernel

.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.target: amdgcn-amd-amdhsa--gfx950
amdhsa.kernels:
  - { .name: fma_overlap, .symbol: fma_overlap.kd, .kernarg_segment_size: 16, .kernarg_segment_align: 8, .group_segment_fixed_size: 0, .private_segment_fixed_size: 0, .wavefront_size: 64, .sgpr_count: 4, .vgpr_count: 16, .agpr_count: 0, .max_flat_workgroup_size: 64, .args: [ { .name: in, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }, { .name: out, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global } ] }
...
.end_amdgpu_metadata
"#;
    let g = common::assemble(src, "gfx950", "fma-overlap");
    let t = dbt::translate(&g, Target::Gfx1201);
    assert!(t.translated, "{:?}", t.diagnostics);
    common::llvm_accepts_as(&t.object, "fma-overlap", "gfx1201");
    let (input, want) = case32(16, 4, 1, 200, 1.0);
    let run = |bytes: &[u8], target: Target| {
        common::run_words(
            bytes,
            target,
            "fma_overlap",
            [64, 64],
            Some(&input),
            want.len(),
            &[],
        )
    };
    assert_eq!(run(&g, Target::Gfx950), want, "gfx950");
    assert_eq!(run(&t.object, Target::Gfx1201), want, "gfx1201");
}

/// CBSZ, ABID and BLGP (f64: NEG) of an MFMA.
type Bc = (u32, u32, u32);

/// (kernel, M, K, blocks, (CBSZ, ABID, BLGP) of the second MFMA): f32 MFMAs whose
/// second product broadcasts A blocks and/or B lanes.
const SHAPES32_MODS: &[(&str, usize, usize, usize, Bc)] = &[
    ("bc16x16x4", 16, 4, 1, (0, 0, 3)),
    ("bc32x32x2", 32, 2, 1, (0, 0, 5)),
    ("bc16x16x1", 16, 1, 4, (2, 1, 1)),
    ("bc4x4x1", 4, 1, 16, (3, 5, 6)),
    ("bc32x32x1", 32, 1, 2, (1, 1, 2)),
];

const SRC32_MODS: &str = r#"
typedef float f32x32 __attribute__((ext_vector_type(32)));
#define K(name, ACC, OUT, CALL, CBSZ, ABID, BLGP)                                   \
  __kernel __attribute__((reqd_work_group_size(64, 1, 1))) void name(               \
      __global const uint *in, __global float *out) {                               \
    uint l = __builtin_amdgcn_workitem_id_x();                                      \
    __global const float *p = (__global const float *)in;                           \
    float a0 = p[l], b0 = p[64 + l], a1 = p[128 + l], b1 = p[192 + l];              \
    ACC acc = 0.0f;                                                                 \
    acc = CALL(a0, b0, acc, 0, 0, 0);                                               \
    acc = CALL(a1, b1, acc, CBSZ, ABID, BLGP);                                      \
    for (uint r = 0; r < OUT; r++) out[l * OUT + r] = acc[r];                       \
  }
K(bc16x16x4, float4, 4, __builtin_amdgcn_mfma_f32_16x16x4f32, 0, 0, 3)
K(bc32x32x2, float16, 16, __builtin_amdgcn_mfma_f32_32x32x2f32, 0, 0, 5)
K(bc16x16x1, float16, 16, __builtin_amdgcn_mfma_f32_16x16x1f32, 2, 1, 1)
K(bc4x4x1, float4, 4, __builtin_amdgcn_mfma_f32_4x4x1f32, 3, 5, 6)
K(bc32x32x1, f32x32, 32, __builtin_amdgcn_mfma_f32_32x32x1f32, 1, 1, 2)
"#;

/// Input words (A0, B0, A1, B1, one f32 per lane) and the reference D of an f32 MFMA
/// pair whose second MFMA has the modifiers `(cbsz, abid, blgp)`, computed from the
/// lanes: block `b` of A from block `(b >> cbsz << cbsz) + abid`, B of lane `l` from
/// lane 1: `l % 32`, 2: `32 + l % 32`, 3: `(l + 16) % 64`, 4-7: `16 * (blgp - 4) + l %
/// 16` (the gfx950 model's `exec::matrix` doc), one fused multiply-add per k in k order.
fn case32_mods(
    m: usize,
    k: usize,
    blocks: usize,
    (cbsz, abid, blgp): (u32, u32, u32),
    seed: u32,
) -> (Vec<u32>, Vec<u32>) {
    let mut s = seed;
    let words: Vec<u32> = (0..4 * 64)
        .map(|_| {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            ((s >> 8) as f32 / (1 << 23) as f32 - 1.0).to_bits()
        })
        .collect();
    let lane = |step: usize, l: usize| f32::from_bits(words[step * 64 + l]);
    let b_lane = |l: usize, g: u32| match g {
        0 => l,
        1 => l % 32,
        2 => 32 + l % 32,
        3 => (l + 16) % 64,
        g => 16 * (g as usize - 4) + l % 16,
    };
    let regs = m * m * blocks / 64;
    let (mpr, bpr) = (64 / m, 64usize.div_ceil(m * m / 4));
    let mut d = vec![0u32; 64 * regs];
    for blk in 0..blocks {
        for i in 0..m {
            for j in 0..m {
                let mut acc = 0f32;
                for (step, (cb, ab, bg)) in [(0, 0, 0), (cbsz, abid, blgp)].into_iter().enumerate()
                {
                    let ablk = (blk >> cb << cb) + ab as usize;
                    for kk in 0..k {
                        let x = lane(2 * step, ablk * m + kk * m * blocks + i);
                        let y = lane(2 * step + 1, b_lane(blk * m + kk * m * blocks + j, bg));
                        acc = x.mul_add(y, acc);
                    }
                }
                let reg = blk * (m * m / 64) + (i / (4 * mpr)) * 4 + i % 4;
                let l = (blk % bpr) * m + ((i / 4) % mpr) * bpr * m + j;
                d[l * regs + reg] = acc.to_bits();
            }
        }
    }
    (words, d)
}

/// CBSZ/ABID (A block broadcast) and BLGP (B lane broadcast) on f32 MFMAs, as clang-22
/// emits them from the builtins' arguments: the rule folds them into its lane maps; every
/// shape, bit-exact against the gfx950 run and the lane-level reference.
#[test]
fn f32_mfma_broadcasts_run_as_fma_chains_on_gfx1201() {
    let g = compile(SRC32_MODS, "f32-bc");
    let t = dbt::translate(&g, Target::Gfx1201);
    assert!(t.translated, "{:?}", t.diagnostics);
    let dis = common::llvm_accepts_as(&t.object, "fma32-bc", "gfx1201");
    assert!(!dis.contains("mfma"), "{dis}");
    for (n, &(name, m, k, blocks, mods)) in SHAPES32_MODS.iter().enumerate() {
        let (input, want) = case32_mods(m, k, blocks, mods, 400 + n as u32);
        both_give(&g, &t, name, &input, &want);
    }
}

/// (kernel, M, K, blocks, (CBSZ, ABID, NEG bits) of the second MFMA): the f64 MFMAs of
/// gfx950 (BLGP is their NEG).
const SHAPES64: &[(&str, usize, usize, usize, Bc)] = &[
    ("m16x16x4f64", 16, 4, 1, (0, 0, 5)),
    ("m4x4x4f64", 4, 4, 4, (0, 0, 6)),
    ("bc4x4x4f64", 4, 4, 4, (2, 3, 1)),
];

/// Each kernel: `D = A0 * B0` (C the inline constant 0), then `D = (-A1) * B1 + (-D)`
/// (16x16x4) or `D = A1 * (-B1) + (-D)` (4x4x4, whose D is its own A0 in the compiled
/// code: the rule copies A first); `bc4x4x4f64` also broadcasts A's block 3 to blocks
/// 0-3 (CBSZ 2, ABID 3) and negates A. BLGP is the f64 MFMA's NEG.
const SRC64: &str = r#"
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void m16x16x4f64(
    __global const double *in, __global double *out) {
  uint l = __builtin_amdgcn_workitem_id_x();
  double a0 = in[l], b0 = in[64 + l], a1 = in[128 + l], b1 = in[192 + l];
  double4 acc = 0.0;
  acc = __builtin_amdgcn_mfma_f64_16x16x4f64(a0, b0, acc, 0, 0, 0);
  acc = __builtin_amdgcn_mfma_f64_16x16x4f64(a1, b1, acc, 0, 0, 5);
  for (uint r = 0; r < 4; r++) out[l * 4 + r] = acc[r];
}
__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void m4x4x4f64(
    __global const double *in, __global double *out) {
  uint l = __builtin_amdgcn_workitem_id_x();
  double a0 = in[l], b0 = in[64 + l], a1 = in[128 + l], b1 = in[192 + l];
  double acc = 0.0;
  acc = __builtin_amdgcn_mfma_f64_4x4x4f64(a0, b0, acc, 0, 0, 0);
  acc = __builtin_amdgcn_mfma_f64_4x4x4f64(a1, b1, acc, 0, 0, 6);
  out[l] = acc;
}
__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void bc4x4x4f64(
    __global const double *in, __global double *out) {
  uint l = __builtin_amdgcn_workitem_id_x();
  double a0 = in[l], b0 = in[64 + l], a1 = in[128 + l], b1 = in[192 + l];
  double acc = 0.0;
  acc = __builtin_amdgcn_mfma_f64_4x4x4f64(a0, b0, acc, 0, 0, 0);
  acc = __builtin_amdgcn_mfma_f64_4x4x4f64(a1, b1, acc, 2, 3, 1);
  out[l] = acc;
}
"#;

/// Input words (A0, B0, A1, B1 as f64: lane `b * M + k * M * blocks + i` holds
/// `A[b][i][k]`, B alike with the column) and the reference D: the second MFMA reads A
/// block `b` from block `(b >> cbsz << cbsz) + abid` and applies the NEG bits `neg` to A,
/// B and C, then per element one fused multiply-add per k in k
/// order, the gfx950 model's f64 MFMA numerics, in the CDNA 64-bit D layout (value `r` of
/// lane `l` at `out[l * values + r]`, rows of one register pair). The values are
/// arbitrary f64 in [-1, 1), so another order or unfused products would round
/// differently.
fn case64(
    m: usize,
    k: usize,
    blocks: usize,
    (cbsz, abid, neg): (u32, u32, u32),
    seed: u64,
    scale: f64,
) -> (Vec<u32>, Vec<u32>) {
    let mut s = seed;
    let mut val = || {
        s = s
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((s >> 11) as f64 / (1u64 << 52) as f64 - 1.0) * scale
    };
    let mut words = vec![0u32; 8 * 64];
    let mut mats = Vec::new();
    for step in 0..2 {
        let a: Vec<f64> = (0..blocks * m * k).map(|_| val()).collect(); // [b][i][kk]
        let b: Vec<f64> = (0..blocks * k * m).map(|_| val()).collect(); // [b][kk][j]
        for blk in 0..blocks {
            for i in 0..m {
                for kk in 0..k {
                    let lane = blk * m + kk * m * blocks + i;
                    let (x, y) = (a[(blk * m + i) * k + kk], b[(blk * k + kk) * m + i]);
                    for (t, z) in [(2 * step, x), (2 * step + 1, y)] {
                        let at = 2 * (t * 64 + lane);
                        words[at] = z.to_bits() as u32;
                        words[at + 1] = (z.to_bits() >> 32) as u32;
                    }
                }
            }
        }
        mats.push((a, b));
    }
    let vals = m * m * blocks / 64;
    let (mpr, bpr) = (64 / m, 64usize.div_ceil(m * m));
    let sign = |bit: u32| if neg >> bit & 1 != 0 { -1.0 } else { 1.0 };
    let mut d = vec![0u32; 2 * 64 * vals];
    for blk in 0..blocks {
        for i in 0..m {
            for j in 0..m {
                let mut acc = 0f64;
                for (step, (a, b)) in mats.iter().enumerate() {
                    let (sa, sb, ab) = if step == 1 {
                        acc *= sign(2);
                        (sign(0), sign(1), (blk >> cbsz << cbsz) + abid as usize)
                    } else {
                        (1.0, 1.0, blk)
                    };
                    for kk in 0..k {
                        let x = sa * a[(ab * m + i) * k + kk];
                        acc = x.mul_add(sb * b[(blk * k + kk) * m + j], acc);
                    }
                }
                let r = blk * (m * m / 64) + i / mpr;
                let lane = (blk % bpr) * m + (i % mpr) * bpr * m + j;
                let at = 2 * (lane * vals + r);
                d[at] = acc.to_bits() as u32;
                d[at + 1] = (acc.to_bits() >> 32) as u32;
            }
        }
    }
    (words, d)
}

/// f64 MFMAs (no GFX12 WMMA takes f64) become `v_fma_f64` chains over pairs of
/// `ds_bpermute_b32` (`dbt/src/rdna/matrix_valu.rs`), BLGP as the FMAs' NEG: both gfx950
/// shapes, bit-exact against the gfx950 run and the fused k-order CPU reference; the same
/// object translated to gfx942 (which has both MFMAs) gives the same bits.
#[test]
fn f64_mfmas_run_as_fma_chains_on_gfx1201_and_gfx942() {
    let g = compile(SRC64, "f64");
    let t = dbt::translate(&g, Target::Gfx1201);
    assert!(t.translated, "{:?}", t.diagnostics);
    let dis = common::llvm_accepts_as(&t.object, "fma64", "gfx1201");
    assert!(
        dis.contains("ds_bpermute_b32") && dis.contains("v_fma_f64"),
        "{dis}"
    );
    assert!(!dis.contains("mfma"), "{dis}");
    let t942 = dbt::translate(&g, Target::Gfx942);
    assert!(t942.translated, "{:?}", t942.diagnostics);
    common::llvm_accepts_as(&t942.object, "fma64-942", "gfx942");
    for (n, &(name, m, k, blocks, mods)) in SHAPES64.iter().enumerate() {
        let (input, want) = case64(m, k, blocks, mods, 300 + n as u64, 1.0);
        both_give(&g, &t, name, &input, &want);
        let (on942, _) = launch(&t942.object, Target::Gfx942, name, &input, want.len());
        assert_eq!(on942, want, "{name}: gfx942 translation");
    }
}

/// An f64 MFMA in a kernel that flushes f64 denormals (`-fdenormal-fp-math=preserve-sign`:
/// FLOAT_MODE bits 7:6 = 0) runs with f64 denormals kept around its FMAs
/// (`s_denorm_mode`): the inputs are scaled by 2^-520, so the products and sums are f64
/// denormals, which the MFMA keeps and a flushing `v_fma_f64` would not.
#[test]
fn f64_mfma_in_a_flushing_kernel_keeps_denormals_on_gfx1201() {
    let g = compile_with(SRC64, "f64-ftz", &["-fdenormal-fp-math=preserve-sign"]);
    let t = dbt::translate(&g, Target::Gfx1201);
    assert!(t.translated, "{:?}", t.diagnostics);
    let dis = common::llvm_accepts_as(&t.object, "fma64-ftz", "gfx1201");
    assert!(dis.contains("s_denorm_mode"), "{dis}");
    for (n, &(name, m, k, blocks, mods)) in SHAPES64.iter().enumerate() {
        let (input, want) = case64(m, k, blocks, mods, 310 + n as u64, 2f64.powi(-520));
        assert!(
            want.chunks(2)
                .any(|w| (w[1] & 0x7ff0_0000) == 0 && (w[0] | w[1] & 0xf_ffff) != 0),
            "{name}: no denormal result"
        );
        both_give(&g, &t, name, &input, &want);
    }
}

/// (kernel, M, K): the single-block i8 MFMAs of gfx950.
const SHAPES_I8: &[(&str, usize, usize)] = &[
    ("m16x16x32i8", 16, 32),
    ("m16x16x64i8", 16, 64),
    ("m32x32x16i8", 32, 16),
    ("m32x32x32i8", 32, 32),
];

const SRC_I8: &str = r#"
typedef int i32x16 __attribute__((ext_vector_type(16)));
#define K(name, T, ACC, OUT, CALL)                                                  \
  __kernel __attribute__((reqd_work_group_size(64, 1, 1))) void name(               \
      __global const uint *in, __global int *out) {                                 \
    uint l = __builtin_amdgcn_workitem_id_x();                                      \
    __global const T *p = (__global const T *)in;                                   \
    T a0 = p[l], b0 = p[64 + l], a1 = p[128 + l], b1 = p[192 + l];                  \
    ACC acc = 0;                                                                    \
    acc = CALL(a0, b0, acc, 0, 0, 0);                                               \
    acc = CALL(a1, b1, acc, 0, 0, 0);                                               \
    for (uint r = 0; r < OUT; r++) out[l * OUT + r] = acc[r];                       \
  }
K(m16x16x32i8, long, int4, 4, __builtin_amdgcn_mfma_i32_16x16x32_i8)
K(m16x16x64i8, int4, int4, 4, __builtin_amdgcn_mfma_i32_16x16x64_i8)
K(m32x32x16i8, long, i32x16, 16, __builtin_amdgcn_mfma_i32_32x32x16_i8)
K(m32x32x32i8, int4, i32x16, 16, __builtin_amdgcn_mfma_i32_32x32x32_i8)
"#;

/// Input words and reference D of an i8 case: bytes over the whole i8 range in the CDNA
/// dense layout (lane `M * (k / kl) + i`, byte `k % kl`, `kl = K * M / 64`), D the exact
/// integer sums in the CDNA D layout.
fn case_i8(m: usize, k: usize, seed: u32) -> (Vec<u32>, Vec<u32>) {
    let kl = k * m / 64;
    let mut s = seed;
    let mut val = || {
        s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (s >> 24) as u8 as i8
    };
    let mut bytes = vec![0u8; 4 * 64 * kl];
    let mut mats = Vec::new();
    for step in 0..2 {
        let a: Vec<i8> = (0..m * k).map(|_| val()).collect(); // a[i * k + kk]
        let b: Vec<i8> = (0..k * m).map(|_| val()).collect(); // b[kk * m + j]
        for i in 0..m {
            for kk in 0..k {
                let (lane, byte) = (m * (kk / kl) + i, kk % kl);
                bytes[(2 * step * 64 + lane) * kl + byte] = a[i * k + kk] as u8;
                bytes[((2 * step + 1) * 64 + lane) * kl + byte] = b[kk * m + i] as u8;
            }
        }
        mats.push((a, b));
    }
    let regs = m * m / 64;
    let mut d = vec![0u32; 64 * regs];
    for i in 0..m {
        for j in 0..m {
            let mut x = 0i64;
            for (a, b) in &mats {
                for kk in 0..k {
                    x += i64::from(a[i * k + kk]) * i64::from(b[kk * m + j]);
                }
            }
            let (reg, lane) = if m == 16 {
                (i % 4, 16 * (i / 4) + j)
            } else {
                ((i / 8) * 4 + i % 4, 32 * ((i / 4) % 2) + j)
            };
            d[lane * regs + reg] = x as i32 as u32;
        }
    }
    let words = bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    (words, d)
}

/// i8 MFMAs become signed `v_wmma_i32_16x16x16_iu8` (chained over K as the fp8 ones):
/// every single-block gfx950 shape, exact against the gfx950 run and the CPU reference.
#[test]
fn i8_mfmas_run_as_iu8_wmmas_on_gfx1201() {
    let g = compile(SRC_I8, "i8");
    let t = dbt::translate(&g, Target::Gfx1201);
    assert!(t.translated, "{:?}", t.diagnostics);
    let dis = common::llvm_accepts_as(&t.object, "iu8", "gfx1201");
    assert!(dis.contains("v_wmma_i32_16x16x16_iu8"), "{dis}");
    assert!(!dis.contains("mfma"), "{dis}");
    for (n, &(name, m, k)) in SHAPES_I8.iter().enumerate() {
        let (input, want) = case_i8(m, k, 120 + n as u32);
        both_give(&g, &t, name, &input, &want);
    }
}

/// A kernel whose FLOAT_MODE flushes f32 denormals (`-cl-denorms-are-zero`) runs its f32
/// MFMAs with f32 denormals kept around their FMAs (`s_denorm_mode`): the inputs are
/// scaled by 2^-64, so the products and sums are f32 denormals, which the MFMA keeps and
/// a flushing `v_fma_f32` would not.
#[test]
fn f32_mfma_in_a_flushing_kernel_keeps_denormals_on_gfx1201() {
    let g = compile_with(SRC32, "f32-daz", &["-cl-denorms-are-zero"]);
    let t = dbt::translate(&g, Target::Gfx1201);
    assert!(t.translated, "{:?}", t.diagnostics);
    let dis = common::llvm_accepts_as(&t.object, "fma32-daz", "gfx1201");
    assert!(dis.contains("s_denorm_mode"), "{dis}");
    for (n, &(name, m, k, blocks)) in SHAPES32.iter().enumerate() {
        let (input, want) = case32(m, k, blocks, 95 + n as u32, 2f32.powi(-64));
        assert!(
            want.iter()
                .any(|&w| w & 0x7f80_0000 == 0 && w & 0x7f_ffff != 0),
            "{name}: no denormal result"
        );
        both_give(&g, &t, name, &input, &want);
    }
}

/// One gfx950 assembly kernel (llvm-mc-22) per shape whose C and D are AGPRs (as in
/// kernels with many accumulators), stored straight from the AGPRs: the AGPRs fold into
/// VGPRs above the arch VGPRs and the WMMA rules read and write them there.
fn agpr_kernel(name: &str, mfma: &str, dregs: u32) -> String {
    let top = dregs - 1;
    let stores: String = (0..dregs / 4)
        .map(|q| {
            format!(
                "  global_store_dwordx4 v10, a[{}:{}], s[2:3] offset:{}\n",
                4 * q,
                4 * q + 3,
                16 * q
            )
        })
        .collect();
    format!(
        r#"
  .text
  .globl {name}
  .p2align 8
  .type {name},@function
{name}:
  s_load_dwordx4 s[0:3], s[0:1], 0x0
  v_lshlrev_b32 v1, 3, v0
  v_lshlrev_b32 v10, {shift}, v0
  s_waitcnt lgkmcnt(0)
  global_load_dwordx2 v[2:3], v1, s[0:1]
  global_load_dwordx2 v[4:5], v1, s[0:1] offset:512
  global_load_dwordx2 v[6:7], v1, s[0:1] offset:1024
  global_load_dwordx2 v[8:9], v1, s[0:1] offset:1536
  s_waitcnt vmcnt(0)
  {mfma} a[0:{top}], v[2:3], v[4:5], 0
  {mfma} a[0:{top}], v[6:7], v[8:9], a[0:{top}]
  s_nop 7
  s_nop 7
  s_nop 3
{stores}  s_endpgm
.L{name}_end:
  .size {name}, .L{name}_end-{name}
  .rodata
  .p2align 6
  .amdhsa_kernel {name}
    .amdhsa_kernarg_size 16
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_next_free_vgpr {next}
    .amdhsa_next_free_sgpr 4
    .amdhsa_accum_offset 12
  .end_amdhsa_kernel
"#,
        shift = if dregs == 4 { 4 } else { 6 },
        next = 12 + dregs,
    )
}

#[test]
fn mfmas_with_agpr_accumulators_run_as_wmmas_on_gfx1201() {
    let shapes = [
        ("acc16", "v_mfma_f32_16x16x16_f16", 16usize, 16usize, 4u32),
        ("acc32", "v_mfma_f32_32x32x8_f16", 32, 8, 16),
    ];
    let mut src = String::from("  .amdhsa_code_object_version 5\n");
    for (name, mfma, _, _, dregs) in shapes {
        src += &agpr_kernel(name, mfma, dregs);
    }
    src += "\n.amdgpu_metadata\n---\namdhsa.version: [ 1, 2 ]\namdhsa.target: amdgcn-amd-amdhsa--gfx950\namdhsa.kernels:\n";
    for (name, _, _, _, dregs) in shapes {
        src += &format!(
            "  - {{ .name: {name}, .symbol: {name}.kd, .kernarg_segment_size: 16, .kernarg_segment_align: 8, .group_segment_fixed_size: 0, .private_segment_fixed_size: 0, .wavefront_size: 64, .sgpr_count: 4, .vgpr_count: 11, .agpr_count: {dregs}, .max_flat_workgroup_size: 64, .args: [ {{ .name: in, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }}, {{ .name: out, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global }} ] }}\n"
        );
    }
    src += "...\n.end_amdgpu_metadata\n";
    let g = common::assemble(&src, "gfx950", "wmma-agpr");
    let t = dbt::translate(&g, Target::Gfx1201);
    assert!(t.translated, "{:?}", t.diagnostics);
    common::llvm_accepts_as(&t.object, "wmma-agpr", "gfx1201");
    for (n, (name, _, m, k, _)) in shapes.into_iter().enumerate() {
        let (input, want) = case(m, k, false, 40 + n as u32);
        let run = |bytes: &[u8], target: Target| {
            common::run_words(bytes, target, name, [64, 64], Some(&input), want.len(), &[])
        };
        assert_eq!(run(&g, Target::Gfx950), want, "{name}: gfx950");
        assert_eq!(run(&t.object, Target::Gfx1201), want, "{name}: gfx1201");
    }
}

/// A chain of 32x32 MFMAs broken by a read of its accumulator: `D = A0 B0`, `D += A1 B1`,
/// `v11 = a5` (must see `A0 B0 + A1 B1`: the chain's tiles go back into D before it),
/// then `D += A0 B0`, `D += A1 B1` (a second chain whose first C is the registers the
/// first chain wrote). gfx950 assembly (llvm-mc-22), AGPR accumulators; the gfx1201 run
/// must match the gfx950 run and the CPU reference (`2 (A0 B0 + A1 B1)`, and the
/// first half in v11).
#[test]
fn a_read_between_chained_mfmas_sees_the_accumulator() {
    let mfma = "v_mfma_f32_32x32x8_f16";
    let stores: String = (0..4)
        .map(|q| {
            format!(
                "  global_store_dwordx4 v10, a[{}:{}], s[2:3] offset:{}\n",
                4 * q,
                4 * q + 3,
                16 * q
            )
        })
        .collect();
    let src = format!(
        r#"
  .amdhsa_code_object_version 5
  .text
  .globl brk
  .p2align 8
  .type brk,@function
brk:
  s_load_dwordx4 s[0:3], s[0:1], 0x0
  v_lshlrev_b32 v1, 3, v0
  v_lshlrev_b32 v10, 6, v0
  v_lshlrev_b32 v12, 2, v0
  v_add_u32 v12, 0x1000, v12
  s_waitcnt lgkmcnt(0)
  global_load_dwordx2 v[2:3], v1, s[0:1]
  global_load_dwordx2 v[4:5], v1, s[0:1] offset:512
  global_load_dwordx2 v[6:7], v1, s[0:1] offset:1024
  global_load_dwordx2 v[8:9], v1, s[0:1] offset:1536
  s_waitcnt vmcnt(0)
  {mfma} a[0:15], v[2:3], v[4:5], 0
  {mfma} a[0:15], v[6:7], v[8:9], a[0:15]
  s_nop 7
  s_nop 7
  s_nop 3
  v_accvgpr_read_b32 v11, a5
  {mfma} a[0:15], v[2:3], v[4:5], a[0:15]
  {mfma} a[0:15], v[6:7], v[8:9], a[0:15]
  s_nop 7
  s_nop 7
  s_nop 3
{stores}  global_store_dword v12, v11, s[2:3]
  s_endpgm
.Lbrk_end:
  .size brk, .Lbrk_end-brk
  .rodata
  .p2align 6
  .amdhsa_kernel brk
    .amdhsa_kernarg_size 16
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_next_free_vgpr 32
    .amdhsa_next_free_sgpr 4
    .amdhsa_accum_offset 16
  .end_amdhsa_kernel
.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.target: amdgcn-amd-amdhsa--gfx950
amdhsa.kernels:
  - {{ .name: brk, .symbol: brk.kd, .kernarg_segment_size: 16, .kernarg_segment_align: 8, .group_segment_fixed_size: 0, .private_segment_fixed_size: 0, .wavefront_size: 64, .sgpr_count: 4, .vgpr_count: 13, .agpr_count: 16, .max_flat_workgroup_size: 64, .args: [ {{ .name: in, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }}, {{ .name: out, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global }} ] }}
...
.end_amdgpu_metadata
"#
    );
    let g = common::assemble(&src, "gfx950", "wmma-brk");
    let t = dbt::translate(&g, Target::Gfx1201);
    assert!(t.translated, "{:?}", t.diagnostics);
    common::llvm_accepts_as(&t.object, "wmma-brk", "gfx1201");
    let (input, half) = case(32, 8, false, 123);
    let mut want: Vec<u32> = half
        .iter()
        .map(|&x| (2.0 * f32::from_bits(x)).to_bits())
        .collect();
    want.extend((0..64).map(|l| half[l * 16 + 5]));
    let run = |bytes: &[u8], target: Target| {
        common::run_words(
            bytes,
            target,
            "brk",
            [64, 64],
            Some(&input),
            want.len(),
            &[],
        )
    };
    assert_eq!(run(&g, Target::Gfx950), want, "gfx950");
    assert_eq!(run(&t.object, Target::Gfx1201), want, "gfx1201");
}

/// An MFMA with a broadcast/permute modifier (here BLGP) is refused by name, and the
/// original object comes back.
#[test]
fn mfma_modifiers_are_refused_by_name() {
    let mut src = String::from("  .amdhsa_code_object_version 5\n");
    src += &agpr_kernel("mods", "v_mfma_f32_16x16x16_f16", 4).replacen(
        "v[4:5], 0\n",
        "v[4:5], 0 blgp:1\n",
        1,
    );
    src += "\n.amdgpu_metadata\n---\namdhsa.version: [ 1, 2 ]\namdhsa.target: amdgcn-amd-amdhsa--gfx950\namdhsa.kernels:\n  - { .name: mods, .symbol: mods.kd, .kernarg_segment_size: 16, .kernarg_segment_align: 8, .group_segment_fixed_size: 0, .private_segment_fixed_size: 0, .wavefront_size: 64, .sgpr_count: 4, .vgpr_count: 11, .agpr_count: 4, .max_flat_workgroup_size: 64, .args: [ { .name: in, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }, { .name: out, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global } ] }\n...\n.end_amdgpu_metadata\n";
    let g = common::assemble(&src, "gfx950", "wmma-mods");
    let t = dbt::translate(&g, Target::Gfx1201);
    assert!(!t.translated);
    assert_eq!(t.object, g);
    let d = t.diagnostics[0].to_string();
    assert!(
        matches!(
            t.diagnostics[0],
            dbt::TranslateError::UnsupportedForm { .. }
        ) && d.contains("kernel `mods` pc 0x")
            && d.contains("blgp:1")
            && d.contains("cbsz/abid/blgp"),
        "{d}"
    );
}

/// D overlapping B (the 16x16 rule reads B from a copy, since its second WMMA still
/// reads B's upper pair after the first wrote D) and a C that is not D: a gfx950
/// assembly kernel (llvm-mc-22) of two `v_mfma_f32_16x16x32_f16` with D = B, the second
/// accumulating the first's D into another register tuple.
#[test]
fn mfma_whose_d_overlaps_b_runs_the_same_on_gfx1201() {
    let src = r#"
  .amdhsa_code_object_version 5
  .text
  .globl ovl
  .p2align 8
  .type ovl,@function
ovl:
  s_load_dwordx4 s[0:3], s[0:1], 0x0
  v_lshlrev_b32 v1, 4, v0
  s_waitcnt lgkmcnt(0)
  global_load_dwordx4 v[2:5], v1, s[0:1]
  global_load_dwordx4 v[6:9], v1, s[0:1] offset:1024
  global_load_dwordx4 v[10:13], v1, s[0:1] offset:2048
  global_load_dwordx4 v[14:17], v1, s[0:1] offset:3072
  s_waitcnt vmcnt(0)
  v_mfma_f32_16x16x32_f16 v[6:9], v[2:5], v[6:9], 0
  v_mfma_f32_16x16x32_f16 v[14:17], v[10:13], v[14:17], v[6:9]
  s_nop 7
  s_nop 3
  global_store_dwordx4 v1, v[14:17], s[2:3]
  s_endpgm
.Lovl_end:
  .size ovl, .Lovl_end-ovl
  .rodata
  .p2align 6
  .amdhsa_kernel ovl
    .amdhsa_kernarg_size 16
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_next_free_vgpr 20
    .amdhsa_next_free_sgpr 4
    .amdhsa_accum_offset 20
  .end_amdhsa_kernel
.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.target: amdgcn-amd-amdhsa--gfx950
amdhsa.kernels:
  - { .name: ovl, .symbol: ovl.kd, .kernarg_segment_size: 16, .kernarg_segment_align: 8, .group_segment_fixed_size: 0, .private_segment_fixed_size: 0, .wavefront_size: 64, .sgpr_count: 4, .vgpr_count: 18, .agpr_count: 0, .max_flat_workgroup_size: 64, .args: [ { .name: in, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }, { .name: out, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global } ] }
...
.end_amdgpu_metadata
"#;
    let g = common::assemble(src, "gfx950", "wmma-ovl");
    let t = dbt::translate(&g, Target::Gfx1201);
    assert!(t.translated, "{:?}", t.diagnostics);
    common::llvm_accepts_as(&t.object, "wmma-ovl", "gfx1201");
    let (input, want) = case(16, 32, false, 99);
    let (native, _) = launch(&g, Target::Gfx950, "ovl", &input, want.len());
    assert_eq!(native, want, "gfx950");
    let (host, _) = launch(&t.object, Target::Gfx1201, "ovl", &input, want.len());
    assert_eq!(host, want, "gfx1201");
}

/// A single-block K loop of chained 32x32 MFMAs (two iterations of `D += A0 B0; D +=
/// A1 B1` from a zeroed AGPR accumulator): the accumulator stays in WMMA tiles for the
/// whole loop, converted in on the edge into the loop and out on its exit. With `read`,
/// the loop also reads the accumulator (`v_accvgpr_read_b32` after the MFMAs), which
/// must see it in the guest layout every iteration: the loop then keeps per-iteration
/// conversions. gfx950 assembly (llvm-mc-22); both runs must give the CPU reference
/// (`2 (A0 B0 + A1 B1)`, and with `read` the last iteration's element 5 in v13).
fn mfma_loop(read: bool) {
    let mfma = "v_mfma_f32_32x32x8_f16";
    let zero: String = (0..16)
        .map(|r| format!("  v_accvgpr_write_b32 a{r}, 0\n"))
        .collect();
    let stores: String = (0..4)
        .map(|q| {
            format!(
                "  global_store_dwordx4 v10, a[{}:{}], s[2:3] offset:{}\n",
                4 * q,
                4 * q + 3,
                16 * q
            )
        })
        .collect();
    let (inside, after) = if read {
        (
            "  s_nop 7\n  s_nop 7\n  s_nop 3\n  v_accvgpr_read_b32 v13, a5\n",
            "  global_store_dword v12, v13, s[2:3]\n",
        )
    } else {
        ("", "")
    };
    let src = format!(
        r#"
  .amdhsa_code_object_version 5
  .text
  .globl kloop
  .p2align 8
  .type kloop,@function
kloop:
  s_load_dwordx4 s[0:3], s[0:1], 0x0
  v_lshlrev_b32 v1, 3, v0
  v_lshlrev_b32 v10, 6, v0
  v_lshlrev_b32 v12, 2, v0
  v_add_u32 v12, 0x1000, v12
  s_mov_b32 s4, 2
  s_waitcnt lgkmcnt(0)
  global_load_dwordx2 v[2:3], v1, s[0:1]
  global_load_dwordx2 v[4:5], v1, s[0:1] offset:512
  global_load_dwordx2 v[6:7], v1, s[0:1] offset:1024
  global_load_dwordx2 v[8:9], v1, s[0:1] offset:1536
  s_waitcnt vmcnt(0)
{zero}.Lloop:
  {mfma} a[0:15], v[2:3], v[4:5], a[0:15]
  {mfma} a[0:15], v[6:7], v[8:9], a[0:15]
{inside}  s_sub_u32 s4, s4, 1
  s_cmp_lg_u32 s4, 0
  s_cbranch_scc1 .Lloop
  s_nop 7
  s_nop 7
  s_nop 3
{stores}{after}  s_endpgm
.Lkloop_end:
  .size kloop, .Lkloop_end-kloop
  .rodata
  .p2align 6
  .amdhsa_kernel kloop
    .amdhsa_kernarg_size 16
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_next_free_vgpr 32
    .amdhsa_next_free_sgpr 5
    .amdhsa_accum_offset 16
  .end_amdhsa_kernel
.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.target: amdgcn-amd-amdhsa--gfx950
amdhsa.kernels:
  - {{ .name: kloop, .symbol: kloop.kd, .kernarg_segment_size: 16, .kernarg_segment_align: 8, .group_segment_fixed_size: 0, .private_segment_fixed_size: 0, .wavefront_size: 64, .sgpr_count: 5, .vgpr_count: 14, .agpr_count: 16, .max_flat_workgroup_size: 64, .args: [ {{ .name: in, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }}, {{ .name: out, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global }} ] }}
...
.end_amdgpu_metadata
"#
    );
    let tag = if read {
        "wmma-kloop-read"
    } else {
        "wmma-kloop"
    };
    let g = common::assemble(&src, "gfx950", tag);
    let t = dbt::translate(&g, Target::Gfx1201);
    assert!(t.translated, "{:?}", t.diagnostics);
    common::llvm_accepts_as(&t.object, tag, "gfx1201");
    let (input, half) = case(32, 8, false, 321);
    let mut want: Vec<u32> = half
        .iter()
        .map(|&x| (2.0 * f32::from_bits(x)).to_bits())
        .collect();
    if read {
        let fifth: Vec<u32> = (0..64).map(|l| want[l * 16 + 5]).collect();
        want.extend(fifth);
    }
    let run = |bytes: &[u8], target: Target| {
        common::run_words(
            bytes,
            target,
            "kloop",
            [64, 64],
            Some(&input),
            want.len(),
            &[],
        )
    };
    assert_eq!(run(&g, Target::Gfx950), want, "{tag}: gfx950");
    assert_eq!(run(&t.object, Target::Gfx1201), want, "{tag}: gfx1201");
}

#[test]
fn k_loop_accumulators_stay_in_wmma_tiles_across_iterations() {
    mfma_loop(false);
}

#[test]
fn a_read_inside_the_k_loop_keeps_the_accumulator_in_guest_layout() {
    mfma_loop(true);
}
