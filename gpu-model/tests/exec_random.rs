//! Nothing a simulated kernel does can crash the host: random programs of instructions the
//! executor decodes (random fields, literals, registers, modifiers), run on every target
//! and wave size from random register contents (addresses into mapped memory and wild
//! ones, random EXEC, MODE and M0), must end in a [`Stop`] — never a panic — and every
//! fault must come with a report that names the instruction. A third of the instructions
//! are memory operations; after a fault the test steps over the instruction and goes on.
//! The programs must also get somewhere: the test asserts a floor on the instructions
//! retired, so it cannot pass by faulting on the first one.

use gpu_model::exec::{decode, describe, ExecCtx, Program, Stop, Wave};
use gpu_model::memory::DeviceMemory;
use gpu_model::{Family, Target};

/// Where the test code is placed.
const BASE: u64 = 0x1000;
/// Instructions per program.
const SLOTS: usize = 24;
/// Programs per target and wave size (`EXEC_RANDOM_PROGRAMS` overrides it for a longer
/// search).
fn programs() -> u32 {
    std::env::var("EXEC_RANDOM_PROGRAMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300)
}

/// A small deterministic generator (splitmix64), so a failure names its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn word(&mut self) -> u32 {
        self.next() as u32
    }
}

/// The byte length of the executor's decoding of `words`, if it decodes them.
fn decodes(t: Target, words: &[u32; 4]) -> Option<usize> {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    Some(decode(t, &bytes).ok()?.len as usize)
}

/// A program of `SLOTS` random instructions the executor decodes, then `s_endpgm`.
fn program(t: Target, rng: &mut Rng) -> Vec<u8> {
    let mut code = Vec::new();
    for _ in 0..SLOTS {
        for _ in 0..200 {
            let mut w = [rng.word(), rng.word(), rng.word(), rng.word()];
            // A third of the words get a memory encoding's identification bits, so that
            // loads, stores and atomics (DS, SMEM, FLAT/GLOBAL/SCRATCH, MUBUF, MTBUF) are
            // common.
            if rng.next().is_multiple_of(3) {
                let tops: &[u32] = match t.family() {
                    Family::Gfx9 => &[0xD8, 0xDC, 0xDD, 0xDE, 0xE0, 0xE8, 0xC0, 0xC2],
                    Family::Gfx12 => &[0xD8, 0xEC, 0xED, 0xEE, 0xC4, 0xF4],
                };
                let top = tops[(rng.next() % tops.len() as u64) as usize];
                w[0] = (w[0] & 0x00ff_ffff) | top << 24;
            }
            // Half of the literals and second dwords small, as real code has them.
            if rng.next() & 1 == 0 {
                w[1] &= 0xffff;
            }
            if let Some(len) = decodes(t, &w) {
                code.extend(w.iter().flat_map(|x| x.to_le_bytes()).take(len));
                break;
            }
        }
    }
    // s_endpgm: SOPP opcode 1 (GFX9 0xBF810000), opcode 48 (GFX12 0xBFB00000).
    let end: u32 = match t.family() {
        Family::Gfx9 => 0xBF81_0000,
        Family::Gfx12 => 0xBFB0_0000,
    };
    code.extend(end.to_le_bytes());
    code
}

/// Random register state: SGPR pairs and VGPRs holding addresses inside `buf` (mapped),
/// small offsets, or anything.
fn setup(w: &mut Wave, rng: &mut Rng, buf: u64, wave_size: u32) {
    let value = |rng: &mut Rng| -> u32 {
        match rng.next() % 4 {
            0 => (rng.next() % 0x1000) as u32 * 4,
            1 => (buf as u32).wrapping_add((rng.next() % 0x4000) as u32),
            _ => rng.word(),
        }
    };
    for s in (0..104).step_by(2) {
        if rng.next().is_multiple_of(3) {
            // A 64-bit pointer into the buffer (or a buffer descriptor base).
            w.set_sgpr(
                s,
                (buf as u32).wrapping_add((rng.next() % 0x4000) as u32) & !3,
            );
            w.set_sgpr(s + 1, (buf >> 32) as u32);
        } else {
            w.set_sgpr(s, value(rng));
            w.set_sgpr(s + 1, value(rng));
        }
    }
    for r in 0..256 {
        for l in 0..64 {
            w.set_vgpr(r, l, value(rng));
        }
    }
    w.set_sgpr(124, value(rng));
    let exec = rng.next();
    w.set_exec(if wave_size == 32 {
        exec & 0xffff_ffff
    } else {
        exec
    });
    w.mode = rng.word() & 0x3ff;
}

fn run_target(t: Target, wave_size: u32) -> (u64, u64) {
    let mut mem = DeviceMemory::new();
    let buf = mem.allocate(0x1_0000, 0x1000).expect("allocate");
    mem.write(buf, &vec![0x5a; 0x1_0000]).expect("fill");
    let mut retired = 0;
    let mut faults = 0;
    for seed in 0..programs() {
        let mut rng = Rng((u64::from(seed) << 8) | (t as u64 * 2 + u64::from(wave_size == 32)));
        let code = program(t, &mut rng);
        let prog = Program::new(t, BASE, &code);
        let mut lds = vec![0u8; 0x1_0000];
        let mut ctx = ExecCtx {
            prog: &prog,
            mem: (&mem).into(),
            lds: &mut lds,
            observer: None,
        };
        let mut w = Wave::new(wave_size, BASE);
        setup(&mut w, &mut rng, buf, wave_size);
        // After a fault the test steps over the faulting instruction and goes on (up to
        // 16 times), so that one wild address does not end the program.
        for _ in 0..16 {
            let stop = w.run(&mut ctx, 500);
            let Stop::Fault(reason) = &stop else {
                break;
            };
            faults += 1;
            let text = describe(&prog, w.pc);
            assert!(
                !text.is_empty(),
                "{} seed {seed}: empty report for {reason}",
                t.name()
            );
            match prog.fetch(w.pc) {
                Ok(i) => w.pc += u64::from(i.len),
                Err(_) => break,
            }
        }
        retired += w.retired;
    }
    (retired, faults)
}

#[test]
fn random_programs_never_crash_the_host() {
    for t in Target::ALL {
        let sizes: &[u32] = if t.family() == Family::Gfx12 {
            &[32, 64]
        } else {
            &[64]
        };
        for &ws in sizes {
            let (retired, faults) = run_target(t, ws);
            eprintln!(
                "{} wave{ws}: {retired} instructions retired, {faults} faults in {} programs",
                t.name(),
                programs()
            );
            // The programs get somewhere: ten instructions per program on average (random
            // code faults often, on wild addresses and jumps; faults are stepped over).
            assert!(
                retired >= u64::from(programs()) * 10,
                "{} wave{ws}: only {retired} instructions retired",
                t.name()
            );
        }
    }
}
