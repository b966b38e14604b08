//! Test helper: assembles AMDGPU assembly with llvm-mc-22 (the oracle toolchain) and runs
//! the bytes as one wave in the executor. (Each test binary uses a part of it.)
#![allow(dead_code)]

use gpu_model::exec::{ExecCtx, Program, Stop, Wave};
use gpu_model::memory::DeviceMemory;
use gpu_model::Target;
use std::process::Command;

/// Device address the test code is placed at.
pub const BASE: u64 = 0x1000;

/// Machine code of `src` (one instruction per line; `s_endpgm` is appended) for `target`,
/// taken from the `; encoding: [...]` comments of `llvm-mc-22 -show-encoding`.
pub fn assemble(target: Target, src: &str) -> Vec<u8> {
    assemble_wave(target, 32, src)
}

/// [`assemble`] for a wave size: GFX12 wave64 code (64-bit lane masks such as
/// `s[20:21]`) needs `+wavefrontsize64`.
pub fn assemble_wave(target: Target, wave: u32, src: &str) -> Vec<u8> {
    let mut cmd = Command::new("llvm-mc-22");
    cmd.args([
        "-arch=amdgcn",
        &format!("-mcpu={}", target.name()),
        "-show-encoding",
    ]);
    if target.family() == gpu_model::Family::Gfx12 {
        cmd.arg(if wave == 64 {
            "-mattr=+real-true16,+wavefrontsize64"
        } else {
            "-mattr=+real-true16"
        });
    }
    let input = format!("{src}\ns_endpgm\n");
    let out = cmd
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(input.as_bytes())?;
            c.wait_with_output()
        })
        .expect("llvm-mc-22 runs (install LLVM 22: ../shared/TOOLCHAIN.md)");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "llvm-mc-22 -mcpu={} rejected the test code:\n{}",
        target.name(),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut bytes = Vec::new();
    for line in text.lines() {
        let Some(enc) = line.split("encoding: [").nth(1) else {
            continue;
        };
        for b in enc.trim_end_matches(']').split(',') {
            let b = b.trim().trim_start_matches("0x");
            bytes.push(u8::from_str_radix(b, 16).expect("hex byte"));
        }
    }
    bytes
}

/// Machine code of each line of `lines` (one instruction each), assembled by one
/// llvm-mc-22 run for `target` and wave size `wave`: one process for a whole table of
/// test instructions.
pub fn assemble_each(target: Target, wave: u32, lines: &[String]) -> Vec<Vec<u8>> {
    let mut cmd = Command::new("llvm-mc-22");
    cmd.args([
        "-arch=amdgcn",
        &format!("-mcpu={}", target.name()),
        "-show-encoding",
    ]);
    if target.family() == gpu_model::Family::Gfx12 {
        cmd.arg(if wave == 64 {
            "-mattr=+real-true16,+wavefrontsize64"
        } else {
            "-mattr=+real-true16"
        });
    }
    let input = lines.join("\n") + "\n";
    let out = cmd
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(input.as_bytes())?;
            c.wait_with_output()
        })
        .expect("llvm-mc-22 runs (install LLVM 22: ../shared/TOOLCHAIN.md)");
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "llvm-mc-22 -mcpu={} rejected test code:\n{}",
        target.name(),
        String::from_utf8_lossy(&out.stderr)
    );
    let codes: Vec<Vec<u8>> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| line.split("encoding: [").nth(1))
        .map(|enc| {
            enc.trim_end_matches(']')
                .split(',')
                .map(|b| {
                    u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).expect("hex byte")
                })
                .collect()
        })
        .collect();
    assert_eq!(codes.len(), lines.len(), "one encoding per line");
    codes
}

/// Runs `code` as one wave of `wave_size` lanes after `setup` has set its registers;
/// asserts that it reaches `s_endpgm` within 1000 instructions.
pub fn run(target: Target, wave_size: u32, code: &[u8], setup: impl FnOnce(&mut Wave)) -> Wave {
    let mem = DeviceMemory::new();
    let mut lds = vec![0u8; 1024];
    run_with(target, wave_size, code, &mem, &mut lds, setup)
}

/// [`run`] against the given device memory and LDS.
pub fn run_with(
    target: Target,
    wave_size: u32,
    code: &[u8],
    mem: &DeviceMemory,
    lds: &mut [u8],
    setup: impl FnOnce(&mut Wave),
) -> Wave {
    let prog = Program::new(target, BASE, code);
    let mut ctx = ExecCtx {
        prog: &prog,
        mem: mem.into(),
        lds,
        observer: None,
        group: None,
    };
    let mut w = Wave::new(wave_size, BASE);
    w.set_exec(if wave_size == 32 {
        0xffff_ffff
    } else {
        u64::MAX
    });
    setup(&mut w);
    let stop = w.run(&mut ctx, 1000);
    assert_eq!(stop, Stop::Endpgm, "{}: {stop:?}", target.name());
    w
}

/// A reproducible 32-bit hash of `k` (lowbias32, as the corpus generators use).
pub fn hash(k: u32) -> u32 {
    let mut x = k ^ 0x9E37_79B9;
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^ (x >> 16)
}
