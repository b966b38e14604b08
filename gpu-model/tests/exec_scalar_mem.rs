//! Scalar memory instructions: GFX9 scalar atomics (`s_atomic_*`, `s_buffer_atomic_*`,
//! 32 and 64 bit, with and without GLC), their deferral to memory sync points under a
//! buffering view, `s_buffer_store_*` and `s_scratch_*`, GFX12 sub-dword loads
//! (`s_load_u8/i8/u16/i16`, `s_buffer_load_*`), and the instructions without a result
//! (probes, prefetches, `s_dcache_discard`). Assembled by llvm-mc-22 and run in the
//! executor on every target that has them.
//!
//! Expected values from the guides (CDNA4 8.2 "Scalar Memory Addressing": ADDR =
//! base + inst_offset + {M0 or SGPR} (x64 for scratch), two LSBs ignored; buffer ops
//! checked against num_records; atomics "the same set as the vector memory unit", GLC
//! returns the pre-op value; RDNA4 16.6 S_LOAD_U8..I16: zero/sign extension of one byte or
//! short), the atomic operations written from the BUFFER_ATOMIC_* pseudo-code here.

#[path = "exec_util/asm.rs"]
mod asm;

use gpu_model::exec::{ExecCtx, MemObserver, MemRecord, Program, Stop, Wave, WaveState};
use gpu_model::memory::coherence::Coherence;
use gpu_model::memory::{DeviceMemory, MemView};
use gpu_model::Target;

const GFX9: [Target; 3] = [Target::Gfx90a, Target::Gfx942, Target::Gfx950];
const GFX12: [Target; 2] = [Target::Gfx1200, Target::Gfx1201];

/// A device memory with `bytes` at `base`, filled from `init`.
fn memory(base: u64, bytes: usize, init: impl Fn(usize) -> u8) -> DeviceMemory {
    let mut mem = DeviceMemory::new();
    mem.allocate_at(base, bytes as u64).expect("allocate");
    let data: Vec<u8> = (0..bytes).map(init).collect();
    mem.write(base, &data).expect("write");
    mem
}

fn rd32(mem: &DeviceMemory, a: u64) -> u32 {
    let mut b = [0u8; 4];
    mem.read(a, &mut b).expect("read");
    u32::from_le_bytes(b)
}

fn rd64(mem: &DeviceMemory, a: u64) -> u64 {
    rd32(mem, a) as u64 | (rd32(mem, a + 4) as u64) << 32
}

/// The new value of BUFFER_ATOMIC_<op> (CDNA4 / Vega pseudo-code), at `bits` width.
fn atomic_ref(op: &str, old: u64, src: u64, cmp: u64, bits: u32) -> u64 {
    let m = if bits == 64 { u64::MAX } else { 0xffff_ffff };
    let s = |x: u64| {
        if bits == 64 {
            x as i64
        } else {
            x as u32 as i32 as i64
        }
    };
    let r = match op {
        "swap" => src,
        "cmpswap" => {
            if old == cmp {
                src
            } else {
                old
            }
        }
        "add" => old.wrapping_add(src),
        "sub" => old.wrapping_sub(src),
        "smin" => s(old).min(s(src)) as u64,
        "umin" => old.min(src),
        "smax" => s(old).max(s(src)) as u64,
        "umax" => old.max(src),
        "and" => old & src,
        "or" => old | src,
        "xor" => old ^ src,
        // tmp >= src ? 0 : tmp + 1
        "inc" => {
            if old >= src {
                0
            } else {
                old + 1
            }
        }
        // (tmp == 0 || tmp > src) ? src : tmp - 1
        _ => {
            if old == 0 || old > src {
                src
            } else {
                old - 1
            }
        }
    };
    r & m
}

const OPS: [&str; 13] = [
    "swap", "cmpswap", "add", "sub", "smin", "umin", "smax", "umax", "and", "or", "xor", "inc",
    "dec",
];

#[test]
fn scalar_atomics() {
    const BASE: u64 = 0x10000;
    // Memory words and operands chosen so every operation changes the word: signed and
    // unsigned orders differ, inc/dec wrap at the bound, cmpswap both matches and not.
    let olds: [u64; 3] = [0xffff_fff0_8000_0005, 7, 0x0000_0001_0000_0000];
    let srcs: [u64; 3] = [0x0000_0003_0000_0007, 7, 0xffff_ffff_ffff_fffe];
    for t in GFX9 {
        for op in OPS {
            for glc in [false, true] {
                let g = if glc { " glc" } else { "" };
                // s[2:3] base, s[4:7] descriptor; data: s8 / s[8:9] (+cmp next).
                let p = format!(
                    "s_atomic_{op} s[8:9], s[2:3], 0x10{g}\n\
                         s_atomic_{op}_x2 s[12:15], s[2:3], 0x20{g}\n\
                         s_buffer_atomic_{op} s[16:17], s[4:7], 0x30{g}\n\
                         s_buffer_atomic_{op} s[18:19], s[4:7], m0{g}\n",
                );
                let p = if op == "cmpswap" {
                    p
                } else {
                    p.replace("s[8:9]", "s8")
                        .replace("s[12:15]", "s[12:13]")
                        .replace("s[16:17]", "s16")
                        .replace("s[18:19]", "s18")
                };
                let code = asm::assemble_wave(t, 64, &p);
                for (k, (&old, &src)) in olds.iter().zip(&srcs).enumerate() {
                    let cmp = if k == 1 { old } else { old ^ 1 };
                    let mem = memory(BASE, 0x100, |_| 0);
                    for a in [0x10, 0x30, 0x40] {
                        mem.write(BASE + a, &(old as u32).to_le_bytes()).unwrap();
                    }
                    mem.write(BASE + 0x20, &old.to_le_bytes()).unwrap();
                    let mut lds = vec![0u8; 64];
                    let w = asm::run_with(t, 64, &code, &mem, &mut lds, |w: &mut Wave| {
                        w.set_sgpr64(2, BASE);
                        // V#: base, stride 0, num_records 0x40 (the access at 0x40 is out
                        // of range).
                        w.set_sgpr64(4, BASE);
                        w.set_sgpr(6, 0x40);
                        w.set_sgpr(7, 0);
                        w.set_sgpr(8, src as u32);
                        w.set_sgpr(9, cmp as u32);
                        w.set_sgpr64(12, src);
                        w.set_sgpr64(14, cmp);
                        w.set_sgpr(16, src as u32);
                        w.set_sgpr(17, cmp as u32);
                        w.set_sgpr(18, src as u32);
                        w.set_sgpr(19, cmp as u32);
                        w.set_sgpr(124, 0x40);
                    });
                    let ctx = format!("{} s_atomic_{op}{g} old {old:#x} src {src:#x}", t.name());
                    let (o32, s32, c32) = (old & 0xffff_ffff, src & 0xffff_ffff, cmp & 0xffff_ffff);
                    let new32 = atomic_ref(op, o32, s32, c32, 32);
                    assert_eq!(rd32(&mem, BASE + 0x10) as u64, new32, "{ctx}");
                    assert_eq!(
                        rd64(&mem, BASE + 0x20),
                        atomic_ref(op, old, src, cmp, 64),
                        "{ctx} x2"
                    );
                    assert_eq!(rd32(&mem, BASE + 0x30) as u64, new32, "{ctx} buffer");
                    // Out of range (offset 0x40 + 4 > num_records): not performed.
                    assert_eq!(rd32(&mem, BASE + 0x40) as u64, o32, "{ctx} buffer oob");
                    // GLC: the pre-op value comes back to SDATA; otherwise SDATA is kept.
                    let (r8, r12, r16, r18) = if glc {
                        (o32, old, o32, 0)
                    } else {
                        (s32, src, s32, s32)
                    };
                    assert_eq!(w.sgpr(8) as u64, r8, "{ctx}");
                    assert_eq!(w.sgpr64(12), r12, "{ctx}");
                    assert_eq!(w.sgpr(16) as u64, r16, "{ctx}");
                    assert_eq!(w.sgpr(18) as u64, r18, "{ctx}");
                    assert_eq!(w.counters.lgkm, 4);
                }
            }
        }
    }
}

/// Counts what the cache models are shown.
#[derive(Default)]
struct Seen {
    atomics: usize,
    accesses: usize,
    maintenance: Vec<&'static str>,
}

impl MemObserver for Seen {
    fn access(&mut self, rec: &MemRecord<'_>) {
        self.accesses += 1;
        if rec.kind == gpu_model::exec::AccessKind::Atomic {
            self.atomics += 1;
        }
    }
    fn maintenance(&mut self, m: &'static str, _policy: u8) {
        self.maintenance.push(m);
    }
}

/// Under a buffering memory view a scalar atomic is performed at the next sync point: the
/// wave waits and re-executes it then, receiving the old value; the cache observer sees
/// it once.
#[test]
fn scalar_atomics_wait_for_the_sync_point() {
    const BASE: u64 = 0x20000;
    for t in GFX9 {
        let code = asm::assemble_wave(
            t,
            64,
            "s_atomic_add s4, s[2:3], 0x0 glc\n\
             s_atomic_cmpswap_x2 s[8:11], s[2:3], 0x8 glc\n\
             s_mov_b32 s20, 1",
        );
        let prog = Program::new(t, asm::BASE, &code);
        let mem = memory(BASE, 64, |_| 0);
        mem.write(BASE, &40u32.to_le_bytes()).unwrap();
        mem.write(BASE + 8, &0x1_0000_0002u64.to_le_bytes())
            .unwrap();
        let coh = Coherence::new(1);
        let mut w = Wave::new(64, asm::BASE);
        w.set_exec(u64::MAX);
        w.set_sgpr64(2, BASE);
        w.set_sgpr(4, 2);
        w.set_sgpr64(8, 0xaaaa_bbbb_cccc_dddd);
        w.set_sgpr64(10, 0x1_0000_0002);
        let mut seen = Seen::default();
        let mut lds = vec![0u8; 64];
        let mut stops = Vec::new();
        for tick in 0..10 {
            // The domain is locked while the wave runs and released before the sync.
            let s = {
                let g = coh.domain(0).unwrap();
                let mut ctx = ExecCtx {
                    prog: &prog,
                    mem: MemView::buffered(&mem, &g, 7, tick),
                    lds: &mut lds,
                    observer: Some(&mut seen),
                    group: None,
                };
                w.run(&mut ctx, 100)
            };
            stops.push(s.clone());
            if s == Stop::Endpgm {
                break;
            }
            assert_eq!(s, Stop::SyncWait);
            assert_eq!(w.state, WaveState::SyncWait);
            coh.sync(&mem);
        }
        assert_eq!(
            stops,
            [Stop::SyncWait, Stop::SyncWait, Stop::Endpgm],
            "{}",
            t.name()
        );
        assert_eq!(w.sgpr(4), 40);
        assert_eq!(w.sgpr64(8), 0x1_0000_0002);
        assert_eq!(w.sgpr(20), 1);
        coh.sync(&mem);
        assert_eq!(rd32(&mem, BASE), 42);
        assert_eq!(rd64(&mem, BASE + 8), 0xaaaa_bbbb_cccc_dddd);
        assert_eq!(seen.atomics, 2);
        // The waits are not retired: the two atomics, the s_mov and s_endpgm.
        assert_eq!(w.retired, 4);
    }
}

#[test]
fn scalar_stores_scratch_and_buffer_stores() {
    const BASE: u64 = 0x30000;
    for t in GFX9 {
        let p = "s_store_dword s10, s[2:3], 0x4\n\
                 s_buffer_store_dwordx4 s[12:15], s[4:7], 0x18\n\
                 s_scratch_store_dwordx2 s[16:17], s[2:3], m0\n\
                 s_scratch_load_dwordx2 s[18:19], s[2:3], m0\n\
                 s_scratch_load_dword s21, s[2:3], 0x83\n\
                 s_dcache_discard s[2:3], 0x0\n\
                 s_dcache_discard_x2 s[2:3], 0x40\n\
                 s_atc_probe 7, s[2:3], 0x0\n\
                 s_atc_probe_buffer 7, s[4:7], 0x0\n\
                 s_waitcnt lgkmcnt(0)";
        let code = asm::assemble_wave(t, 64, p);
        let mem = memory(BASE, 0x200, |k| k as u8);
        let mut lds = vec![0u8; 64];
        let mut seen = Seen::default();
        let prog = Program::new(t, asm::BASE, &code);
        let mut w = Wave::new(64, asm::BASE);
        w.set_exec(u64::MAX);
        w.set_sgpr64(2, BASE);
        w.set_sgpr64(4, BASE + 0x100);
        w.set_sgpr(6, 0x20); // num_records: dwords at 0x18, 0x1c fit, 0x20, 0x24 do not
        w.set_sgpr(7, 0);
        w.set_sgpr(10, 0xdead_beef);
        for k in 0..4 {
            w.set_sgpr(12 + k, 0x1111_1111 * (k as u32 + 1));
        }
        w.set_sgpr64(16, 0x0123_4567_89ab_cdef);
        w.set_sgpr(124, 2); // M0: scratch offsets are * 64
        {
            let mut ctx = ExecCtx {
                prog: &prog,
                mem: (&mem).into(),
                lds: &mut lds,
                observer: Some(&mut seen),
                group: None,
            };
            assert_eq!(w.run(&mut ctx, 100), Stop::Endpgm, "{}", t.name());
        }
        assert_eq!(rd32(&mem, BASE + 4), 0xdead_beef);
        assert_eq!(rd32(&mem, BASE + 0x118), 0x1111_1111);
        assert_eq!(rd32(&mem, BASE + 0x11c), 0x2222_2222);
        // Out of range: memory keeps its bytes.
        assert_eq!(
            rd32(&mem, BASE + 0x120),
            u32::from_le_bytes([0x20, 0x21, 0x22, 0x23])
        );
        // Scratch: SGPR[base] + M0 * 64.
        assert_eq!(rd64(&mem, BASE + 128), 0x0123_4567_89ab_cdef);
        assert_eq!(w.sgpr64(18), 0x0123_4567_89ab_cdef);
        // Immediate 0x83: the two low address bits are ignored (0x80).
        assert_eq!(w.sgpr(21), 0x89ab_cdef);
        assert_eq!(
            seen.maintenance,
            ["s_dcache_discard", "s_dcache_discard_x2"]
        );
        // Five transfers seen by the cache models; probes transfer nothing.
        assert_eq!(seen.accesses, 5);
    }
}

#[test]
fn sub_dword_scalar_loads() {
    const BASE: u64 = 0x40000;
    // Bytes 0x80..0xff at BASE: every byte has its sign bit set, so sign extension shows.
    let byte = |k: usize| 0x80 | (k as u8 & 0x7f);
    for t in GFX12 {
        for wave in [32, 64] {
            let p = "s_load_u8 s10, s[2:3], 0x5\n\
                     s_load_i8 s11, s[2:3], 0x5\n\
                     s_load_u16 s12, s[2:3], 0x6\n\
                     s_load_i16 s13, s[2:3], 0x7\n\
                     s_load_u8 s14, s[2:3], s20 offset:0x1\n\
                     s_load_i8 s15, s[2:3], -0x1\n\
                     s_buffer_load_u8 s16, s[4:7], 0x3\n\
                     s_buffer_load_i16 s17, s[4:7], 0xa\n\
                     s_buffer_load_u16 s18, s[4:7], 0x1f\n\
                     s_buffer_load_i8 s19, s[4:7], 0x20\n\
                     s_prefetch_data s[2:3], 0x10, m0, 3\n\
                     s_prefetch_inst s[2:3], 0x10, m0, 3\n\
                     s_prefetch_data_pc_rel 0x10, m0, 3\n\
                     s_prefetch_inst_pc_rel 0x10, m0, 3\n\
                     s_buffer_prefetch_data s[4:7], 0x10, m0, 3\n\
                     s_atc_probe 7, s[2:3], 0x0\n\
                     s_atc_probe_buffer 7, s[4:7], 0x0\n\
                     s_wait_kmcnt 0";
            let code = asm::assemble_wave(t, wave, p);
            let mem = memory(BASE, 0x100, byte);
            let mut lds = vec![0u8; 64];
            let w = asm::run_with(t, wave, &code, &mem, &mut lds, |w: &mut Wave| {
                w.set_sgpr64(2, BASE + 0x10);
                w.set_sgpr64(4, BASE + 0x40);
                w.set_sgpr(6, 0x20); // num_records
                w.set_sgpr(7, 0);
                w.set_sgpr(20, 0x13); // SGPR offset: two LSBs ignored -> 0x10
                for k in 10..20 {
                    w.set_sgpr(k, 0xffff_ffff);
                }
            });
            let b = |off: usize| byte(off) as u32;
            let h = |off: usize| b(off) | b(off + 1) << 8;
            let ctx = format!("{} w{wave}", t.name());
            assert_eq!(w.sgpr(10), b(0x15), "{ctx}");
            assert_eq!(w.sgpr(11), b(0x15) as u8 as i8 as i32 as u32, "{ctx}");
            assert_eq!(w.sgpr(12), h(0x16), "{ctx}");
            // 16-bit loads are naturally aligned: 0x17 reads the short at 0x16.
            assert_eq!(w.sgpr(13), h(0x16) as u16 as i16 as i32 as u32, "{ctx}");
            assert_eq!(w.sgpr(14), b(0x10 + 0x10 + 1), "{ctx}");
            // A negative immediate offset.
            assert_eq!(w.sgpr(15), b(0xf) as u8 as i8 as i32 as u32, "{ctx}");
            assert_eq!(w.sgpr(16), b(0x43), "{ctx}");
            assert_eq!(w.sgpr(17), h(0x4a) as u16 as i16 as i32 as u32, "{ctx}");
            // 0x1f reads the short at 0x1e, which fits below num_records (0x20); the byte
            // at 0x20 does not: 0.
            assert_eq!(w.sgpr(18), h(0x5e), "{ctx}");
            assert_eq!(w.sgpr(19), 0, "{ctx}");
        }
    }
}
