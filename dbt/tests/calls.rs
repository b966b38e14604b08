//! Calls through code pointers in data, across kernels: dbt/tests/calls/pointers.hip,
//! compiled for gfx950 by clang-22, has two kernels that call through a table of
//! function pointers in `.data` (in a loop) and through C++ vtables in `.data.rel.ro`,
//! and share a direct helper and a recursive one. Translated to gfx942 (where a bf16
//! conversion expands, so the code moves) and to gfx1201, it runs on the host models
//! with the results of the gfx950 run and of the CPU reference below.

mod common;

use gpu_model::device::ArgValue;
use gpu_model::Target;

const N: u32 = 300;
const WG: u32 = 64;

/// dbt/tests/calls/`stem`.hip built for gfx950 by clang-22 as corpus/build.sh builds HIP.
fn build(stem: &str) -> Vec<u8> {
    let cuid = format!("-cuid={stem}");
    common::clang(
        &[
            "-x",
            "hip",
            "--offload-arch=gfx950",
            "-mcode-object-version=6",
            &cuid,
            "-fno-offload-uniform-block",
            "-nogpulib",
            "-nogpuinc",
            "--cuda-device-only",
            "--no-gpu-bundle-output",
            "-O2",
        ],
        &format!("tests/calls/{stem}.hip"),
        &format!("calls-{stem}"),
    )
}

fn mix(x: u32) -> u32 {
    (x ^ (x >> 7)).wrapping_mul(0x9E37_79B1)
}

fn depth(x: u32, d: u32) -> u32 {
    if d == 0 {
        x
    } else {
        depth(mix(x).wrapping_add(d), d - 1) ^ d
    }
}

/// `op_bf16`: f32 to bf16 rounds to nearest even (the values are finite).
fn op_bf16(a: u32, b: u32) -> u32 {
    let f = (a & 0xffff) as f32 * 0.5 + (b & 0xff) as f32;
    let bits = f.to_bits();
    let h = bits.wrapping_add(0x7fff + (bits >> 16 & 1)) >> 16;
    h.wrapping_add(a)
}

fn table(k: u32, a: u32, b: u32) -> u32 {
    match k {
        0 => a.wrapping_add(b),
        1 => a.wrapping_mul(b),
        2 => mix(a) ^ (b << 1),
        _ => op_bf16(a, b),
    }
}

fn reference(kernel: &str, input: &[u32]) -> Vec<u32> {
    (0..N)
        .map(|i| {
            let a = input[i as usize];
            match kernel {
                "table_calls" => {
                    let mut acc = i;
                    for k in 0..1 + (a & 3) {
                        acc = table(a >> (2 * k) & 3, acc, a.wrapping_add(k));
                    }
                    mix(acc).wrapping_add(depth(a, a & 7))
                }
                _ => {
                    let r = match a % 3 {
                        0 => a.wrapping_add(i).wrapping_add(1),
                        1 => mix(a) ^ (i << 1),
                        _ => op_bf16(i, a),
                    };
                    r ^ depth(a >> 3, a >> 8 & 3) ^ mix(i)
                }
            }
        })
        .collect()
}

fn input() -> Vec<u32> {
    (0..N)
        .map(|i| i.wrapping_mul(0x2545_F491) ^ (i >> 3).wrapping_mul(0x9E37_79B9))
        .collect()
}

fn run(bytes: &[u8], target: Target, kernel: &str) -> Vec<u32> {
    let input = input();
    common::run_words(
        bytes,
        target,
        kernel,
        [N.next_multiple_of(WG), WG],
        Some(&input),
        N as usize,
        &[ArgValue::u32(N)],
    )
}

/// Both kernels call through the same code pointers; on both hosts the pointers name one
/// shared copy of the functions, and each kernel gives the gfx950 run's and the CPU's
/// results.
#[test]
fn kernels_of_one_object_call_through_code_pointers_in_data_on_both_hosts() {
    let guest = build("pointers");
    let input = input();
    let kernels = ["table_calls", "virtual_calls"];
    for k in kernels {
        let want = reference(k, &input);
        assert_eq!(run(&guest, Target::Gfx950, k), want, "{k} on gfx950");
    }
    for host in [Target::Gfx942, Target::Gfx1201] {
        let t = dbt::translate(&guest, host);
        assert!(
            t.translated,
            "{}: {:?} {:?}",
            host.name(),
            t.diagnostics,
            t.kernels
        );
        eprintln!(
            "{}: .text {} -> {} bytes (the shared copy included)",
            host.name(),
            t.text_bytes.0,
            t.text_bytes.1
        );
        for r in &t.kernels {
            eprintln!(
                "  {}: scope {} -> {} bytes",
                r.name, r.code_before, r.code_after
            );
            assert_eq!(
                r.status,
                dbt::KernelStatus::Relocated,
                "{}: {r:?}",
                host.name()
            );
        }
        let dis =
            common::llvm_accepts_as(&t.object, &format!("pointers-{}", host.name()), host.name());
        if host == Target::Gfx1201 {
            // Every s_getpc_b64 is followed by the sign extension of its high half.
            let lines: Vec<&str> = dis.lines().collect();
            let mut getpcs = 0;
            for (n, l) in lines.iter().enumerate() {
                if let Some(rest) = l.trim().strip_prefix("s_getpc_b64 s[") {
                    getpcs += 1;
                    let hi: u32 = rest
                        .split(':')
                        .nth(1)
                        .and_then(|h| h.split(']').next())
                        .and_then(|h| h.parse().ok())
                        .expect("pair");
                    let sext = lines[n + 1..].iter().take(2).any(|m| {
                        m.trim()
                            .starts_with(&format!("s_sext_i32_i16 s{hi}, s{hi} "))
                    });
                    assert!(sext, "no s_sext_i32_i16 after {l}");
                }
            }
            assert!(getpcs > 0);
        }
        for k in kernels {
            let want = reference(k, &input);
            assert_eq!(run(&t.object, host, k), want, "{k} on {}", host.name());
        }
    }
}
