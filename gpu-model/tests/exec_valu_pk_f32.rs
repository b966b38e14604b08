//! Packed f32 math from real compiler output: an f32 escape-time loop (Mandelbrot) and an
//! all-pairs n-body step on `float2`, compiled here with clang-22 (OpenCL C, `-O2`,
//! `#pragma OPENCL FP_CONTRACT OFF` so nothing is fused), run on every target and compared
//! bit for bit with a CPU reference that performs the same f32 operations in the same
//! order.
//!
//! On gfx90a/gfx942/gfx950 clang-22 turns the `float2` arithmetic into `v_pk_mul_f32` /
//! `v_pk_add_f32` with `op_sel`/`op_sel_hi` swizzles, `neg_lo`/`neg_hi` negations and
//! SGPR-pair sources (uniform `float2` kernel arguments); the test checks with
//! llvm-objdump-22 that the code really contains those forms. GFX12 has no packed f32
//! and runs the same kernels as scalar code (wave32 and wave64).
//!
//! Skipped, with a message, when clang-22 or llvm-objdump-22 is not installed.

use gpu_model::device::{ArgValue, Device, LaunchConfig};
use gpu_model::Target;
use std::path::PathBuf;
use std::process::Command;

const SOURCE: &str = r#"
#include "prelude.h"
#pragma OPENCL FP_CONTRACT OFF

/* Escape-time iteration z <- z^2 + c on float2 (Mandelbrot). */
__kernel void escape(__global float2 *out_z, __global int *out_n, float2 c0, float2 dc,
                     int width, int maxit) {
  int gid = get_global_id(0);
  float2 c = c0 + (float2)((float)(gid % width), (float)(gid / width)) * dc;
  float2 z = c;
  int n = 0;
  while (n < maxit) {
    float2 sq = z * z;
    if (sq.x + sq.y > 4.0f) break;
    float2 cross = z * z.yx;
    z = (float2)(sq.x - sq.y, cross.x + cross.y) + c;
    n++;
  }
  out_z[gid] = z;
  out_n[gid] = n;
}

/* One all-pairs step: acc_i = sum_j (p_j - p_i) * (m_j * (r2 + eps2)); v += acc * dt;
 * p -= v * dt. Multiplications and additions only (no division or square root), so a CPU
 * reference with the same operation order is bit-exact. */
__kernel void nbody(__global const float4 *pos, __global float2 *vel, __global float4 *out,
                    int n, float eps2, float2 dt) {
  int i = get_global_id(0);
  if (i >= n) return;
  float4 p = pos[i];
  float2 axy = (float2)(0.0f, 0.0f);
  float az = 0.0f;
  for (int j = 0; j < n; j++) {
    float4 q = pos[j];
    float2 dxy = q.xy - p.xy;
    float dz = q.z - p.z;
    float2 d2 = dxy * dxy;
    float r2 = d2.x + d2.y + dz * dz + eps2;
    float s = q.w * r2;
    axy = axy + dxy * (float2)(s, s);
    az = az + dz * s;
  }
  float2 v = vel[i] + axy * dt;
  float2 pxy = p.xy - v * dt;
  out[i] = (float4)(pxy.x, pxy.y, p.z + az * dt.x, v.x - v.y);
}
"#;

fn include_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/include")
}

/// Compiles [`SOURCE`] for `target` (wave64 on GFX12 when `w64`); fails without clang-22.
fn compile(target: Target, w64: bool) -> Vec<u8> {
    let dir = std::env::temp_dir().join(format!(
        "gfxsim-pk-f32-{}-{}-{}",
        std::process::id(),
        target.name(),
        w64
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("k.cl");
    std::fs::write(&src, SOURCE).unwrap();
    let out = dir.join("k.hsaco");
    let mut cmd = Command::new("clang-22");
    cmd.args(["-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa"])
        .arg(format!("-mcpu={}", target.name()))
        .args(["-nogpulib", "-O2", "-I"])
        .arg(include_dir());
    if w64 {
        cmd.arg("-mwavefrontsize64");
    }
    let res = match cmd.arg(&src).arg("-o").arg(&out).output() {
        Ok(r) => r,
        Err(e) => {
            panic!("clang-22 ({e}): the packed-f32 kernels need it (scripts/install-deps.sh)")
        }
    };
    assert!(
        res.status.success(),
        "clang-22 -mcpu={}: {}",
        target.name(),
        String::from_utf8_lossy(&res.stderr)
    );
    std::fs::read(&out).unwrap()
}

/// The disassembly of a code object (llvm-objdump-22, required).
fn disassemble(target: Target, bytes: &[u8]) -> String {
    let path = std::env::temp_dir().join(format!(
        "gfxsim-pk-f32-dis-{}-{}.hsaco",
        std::process::id(),
        target.name()
    ));
    std::fs::write(&path, bytes).unwrap();
    let out = Command::new("llvm-objdump-22")
        .arg("-d")
        .arg(format!("--mcpu={}", target.name()))
        .arg(&path)
        .output()
        .unwrap_or_else(|e| panic!("llvm-objdump-22 ({e}): needed (scripts/install-deps.sh)"));
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The GFX9 builds must exercise what the test is for: packed f32 operations with
/// operand selects, negations and SGPR-pair sources.
fn check_packed_forms(text: &str) {
    let pk: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("v_pk_mul_f32") || l.contains("v_pk_add_f32"))
        .collect();
    let has = |f: &dyn Fn(&str) -> bool, what: &str| {
        assert!(
            pk.iter().any(|l| f(l)),
            "no packed f32 instruction with {what} in:\n{}",
            pk.join("\n")
        );
    };
    has(&|l| l.contains("v_pk_mul_f32"), "v_pk_mul_f32");
    has(&|l| l.contains("v_pk_add_f32"), "v_pk_add_f32");
    has(&|l| l.contains(" op_sel:["), "op_sel");
    has(&|l| l.contains("op_sel_hi:["), "op_sel_hi");
    has(
        &|l| l.contains("neg_lo:[") && l.contains("neg_hi:["),
        "neg_lo/neg_hi",
    );
    has(
        &|l| {
            let ops = l.split("//").next().unwrap_or(l);
            ops.contains(", s[") || ops.contains(" s[")
        },
        "an SGPR-pair source",
    );
}

fn f32s(b: &[u8]) -> Vec<u32> {
    b.chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn to_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn float2(x: f32, y: f32) -> ArgValue {
    ArgValue::bytes(&to_bytes(&[x, y]))
}

/// The escape-time kernel's CPU reference: `(z, n)` per work-item.
fn escape_ref(gid: u32, c0: [f32; 2], dc: [f32; 2], width: i32, maxit: i32) -> ([f32; 2], i32) {
    let gid = gid as i32;
    let (fx, fy) = ((gid % width) as f32, (gid / width) as f32);
    let c = [c0[0] + fx * dc[0], c0[1] + fy * dc[1]];
    let mut z = c;
    let mut n = 0;
    while n < maxit {
        let sq = [z[0] * z[0], z[1] * z[1]];
        if sq[0] + sq[1] > 4.0 {
            break;
        }
        let cross = [z[0] * z[1], z[1] * z[0]];
        z = [(sq[0] - sq[1]) + c[0], (cross[0] + cross[1]) + c[1]];
        n += 1;
    }
    (z, n)
}

fn run_escape(target: Target, wave: u32, co: &[u8]) {
    let mut dev = Device::new(target);
    let m = dev.load_code_object(co).unwrap();
    let (width, height, maxit) = (48i32, 40i32, 64i32);
    let count = (width * height) as u32;
    let (c0, dc) = ([-2.125f32, -1.25], [0.0546875f32, 0.0625]);
    let zbuf = dev.alloc(8 * count as u64).unwrap();
    let nbuf = dev.alloc(4 * count as u64).unwrap();
    let args = [
        ArgValue::ptr(zbuf),
        ArgValue::ptr(nbuf),
        float2(c0[0], c0[1]),
        float2(dc[0], dc[1]),
        ArgValue::u32(width as u32),
        ArgValue::u32(maxit as u32),
    ];
    let cfg = LaunchConfig::new([count, 1, 1], [wave, 1, 1]);
    let id = dev.dispatch(m, "escape", &cfg, &args).unwrap();
    dev.wait(id).unwrap();
    let mut zb = vec![0u8; 8 * count as usize];
    let mut nb = vec![0u8; 4 * count as usize];
    dev.copy_out(zbuf, &mut zb).unwrap();
    dev.copy_out(nbuf, &mut nb).unwrap();
    let (z, n) = (f32s(&zb), f32s(&nb));
    let mut iters = 0u64;
    for g in 0..count {
        let (wz, wn) = escape_ref(g, c0, dc, width, maxit);
        iters += wn as u64;
        let gz = [z[2 * g as usize], z[2 * g as usize + 1]];
        assert_eq!(
            (gz, n[g as usize] as i32),
            (wz.map(f32::to_bits), wn),
            "{} escape work-item {g}",
            target.name()
        );
    }
    // The grid covers the set and its outside: many lanes iterate, some to the limit.
    assert!(iters > count as u64 * 4, "too few iterations: {iters}");
}

fn run_nbody(target: Target, wave: u32, co: &[u8]) {
    let mut dev = Device::new(target);
    let m = dev.load_code_object(co).unwrap();
    let n = 100usize;
    // Deterministic positions in [-1, 1), masses in [0.5, 1), velocities in [-1, 1).
    let frac = |k: usize, salt: u32| {
        let mut x = (k as u32).wrapping_mul(0x9E37_79B9) ^ salt;
        x ^= x >> 15;
        x = x.wrapping_mul(0x2C1B_3C6D);
        x ^= x >> 12;
        (x >> 8) as f32 / (1u32 << 24) as f32
    };
    let pos: Vec<[f32; 4]> = (0..n)
        .map(|k| {
            [
                frac(k, 1) * 2.0 - 1.0,
                frac(k, 2) * 2.0 - 1.0,
                frac(k, 3) * 2.0 - 1.0,
                0.5 + frac(k, 4) * 0.5,
            ]
        })
        .collect();
    let vel: Vec<[f32; 2]> = (0..n)
        .map(|k| [frac(k, 5) * 2.0 - 1.0, frac(k, 6) * 2.0 - 1.0])
        .collect();
    let (eps2, dt) = (0.015625f32, [0.01f32, 0.02]);
    let flat: Vec<f32> = pos.iter().flatten().copied().collect();
    let vflat: Vec<f32> = vel.iter().flatten().copied().collect();
    let pbuf = dev.alloc(16 * n as u64).unwrap();
    let vbuf = dev.alloc(8 * n as u64).unwrap();
    let obuf = dev.alloc(16 * n as u64).unwrap();
    dev.copy_in(pbuf, &to_bytes(&flat)).unwrap();
    dev.copy_in(vbuf, &to_bytes(&vflat)).unwrap();
    let args = [
        ArgValue::ptr(pbuf),
        ArgValue::ptr(vbuf),
        ArgValue::ptr(obuf),
        ArgValue::u32(n as u32),
        ArgValue::f32(eps2),
        float2(dt[0], dt[1]),
    ];
    let grid = (n as u32).div_ceil(wave) * wave;
    let cfg = LaunchConfig::new([grid, 1, 1], [wave, 1, 1]);
    let id = dev.dispatch(m, "nbody", &cfg, &args).unwrap();
    dev.wait(id).unwrap();
    let mut ob = vec![0u8; 16 * n];
    dev.copy_out(obuf, &mut ob).unwrap();
    let got = f32s(&ob);
    for i in 0..n {
        let p = pos[i];
        let (mut axy, mut az) = ([0f32; 2], 0f32);
        for q in &pos {
            let dxy = [q[0] - p[0], q[1] - p[1]];
            let dz = q[2] - p[2];
            let d2 = [dxy[0] * dxy[0], dxy[1] * dxy[1]];
            let r2 = d2[0] + d2[1] + dz * dz + eps2;
            let s = q[3] * r2;
            axy = [axy[0] + dxy[0] * s, axy[1] + dxy[1] * s];
            az += dz * s;
        }
        let v = [vel[i][0] + axy[0] * dt[0], vel[i][1] + axy[1] * dt[1]];
        let pxy = [p[0] - v[0] * dt[0], p[1] - v[1] * dt[1]];
        let want = [pxy[0], pxy[1], p[2] + az * dt[0], v[0] - v[1]].map(f32::to_bits);
        assert_eq!(
            &got[4 * i..4 * i + 4],
            &want,
            "{} nbody body {i}",
            target.name()
        );
    }
}

fn check(target: Target, w64: bool) {
    let co = compile(target, w64);
    if target.family() == gpu_model::Family::Gfx9 {
        check_packed_forms(&disassemble(target, &co));
    }
    let wave = if target.family() == gpu_model::Family::Gfx9 || w64 {
        64
    } else {
        32
    };
    run_escape(target, wave, &co);
    run_nbody(target, wave, &co);
}

#[test]
fn packed_f32_kernels_gfx9() {
    for t in [Target::Gfx90a, Target::Gfx942, Target::Gfx950] {
        check(t, false);
    }
}

#[test]
fn same_kernels_gfx12_wave32_and_wave64() {
    for t in [Target::Gfx1200, Target::Gfx1201] {
        check(t, false);
        check(t, true);
    }
}
