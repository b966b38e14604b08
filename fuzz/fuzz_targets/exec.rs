//! Fuzz target: executing arbitrary bytes as code on every target never panics. The first
//! bytes pick register contents (SGPRs, one VGPR pattern, EXEC, MODE); the rest is the
//! code, run for at most 256 instructions against a small mapped buffer. Run with
//! `cargo fuzz run exec` from /fuzz; `gpu-model/tests/exec_random.rs` is the same idea as
//! a test with generated programs.
#![no_main]

use gpu_model::exec::{describe, ExecCtx, Program, Stop, Wave};
use gpu_model::memory::DeviceMemory;
use gpu_model::Target;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() < 16 {
        return;
    }
    let (seed, code) = data.split_at(16);
    let word = |i: usize| u32::from_le_bytes([seed[i], seed[i + 1], seed[i + 2], seed[i + 3]]);
    let mut mem = DeviceMemory::new();
    let Ok(buf) = mem.allocate(0x1000, 0x1000) else {
        return;
    };
    for t in Target::ALL {
        for wave_size in [64, 32] {
            if wave_size == 32 && t.family() == gpu_model::Family::Gfx9 {
                continue;
            }
            let prog = Program::new(t, 0x1000, code);
            let mut lds = vec![0u8; 0x1000];
            let mut ctx = ExecCtx {
                prog: &prog,
                mem: (&mem).into(),
                lds: &mut lds,
                observer: None,
                group: None,
            };
            let mut w = Wave::new(wave_size, 0x1000);
            for s in (0..104).step_by(2) {
                w.set_sgpr(s, (buf as u32).wrapping_add(word(0) >> (s % 16)));
                w.set_sgpr(s + 1, (buf >> 32) as u32 ^ (word(4) & (s as u32)));
            }
            for r in 0..256 {
                for l in 0..64 {
                    w.set_vgpr(r, l, word(8).rotate_left((r + l) as u32));
                }
            }
            w.set_exec(u64::from(word(12)) << 32 | u64::from(word(0)));
            w.mode = word(4) & 0x3ff;
            if let Stop::Fault(_) = w.run(&mut ctx, 256) {
                let _ = describe(&prog, w.pc);
            }
        }
    }
});
