//! FLAT/GLOBAL/SCRATCH forms added to the executor, assembled by llvm-mc-22 and run on
//! every target that has them (GFX12 in wave32 and wave64), against references written
//! from the CDNA3/RDNA4 pseudocode:
//! - d16 byte loads: `VDATA[15:0].u16 = {8'0, MEM.u8}` (`_hi`: bits 31:16), `i8`
//!   sign-extended to 16 bits, the other half preserved;
//! - `global_load_addtid_b32`/`global_store_addtid_b32`: `MEM[SGPR_ADDR + INST_OFFSET[11:0]
//!   + laneID * 4]`;
//! - `*_load_block`/`*_store_block`: `if M0[i] then VGPR[VDST + i] = MEM[addr + i * 4]`;
//! - `global_load_tr_b128`/`_b64` (wave32): within each group of 8 lanes the 8x8 matrix
//!   of 16-bit (8-bit) elements the lanes' rows form is transposed (lane `l` receives
//!   element `l % 8` of the rows of lanes `8 * (l / 8) ..`; the source is in
//!   `exec/flat/special.rs`); wave64 (half the destination, per LLVM) the same on 4x4
//!   blocks of 4 lanes (decided there, from the wave64 WMMA operand layout);
//! - gfx90a `buffer_store_lds_dword`: the dword at LDS `M0 + offset + 4 * lane` stored at
//!   the lane's buffer address.

#[path = "exec_util/asm.rs"]
mod asm;

use gpu_model::exec::{ExecCtx, Program, Stop, Wave};
use gpu_model::memory::DeviceMemory;
use gpu_model::{Family, Target};

const EXEC: u64 = 0xdfff_fff7_ffbf_fffe;

fn exec_for(wave: u32) -> u64 {
    if wave == 32 {
        EXEC & 0xffff_ffff
    } else {
        EXEC
    }
}

fn waves(t: Target) -> &'static [u32] {
    if t.family() == Family::Gfx12 {
        &[32, 64]
    } else {
        &[64]
    }
}

#[test]
fn d16_byte_loads() {
    for t in Target::ALL {
        for &wave in waves(t) {
            let mut mem = DeviceMemory::new();
            let base = mem.allocate(0x1000, 256).unwrap();
            let data: Vec<u8> = (0..0x100u32).map(|i| asm::hash(i) as u8).collect();
            mem.write(base, &data).unwrap();
            let names: [&str; 4] = match t.family() {
                Family::Gfx9 => [
                    "load_ubyte_d16",
                    "load_ubyte_d16_hi",
                    "load_sbyte_d16",
                    "load_sbyte_d16_hi",
                ],
                _ => [
                    "load_d16_u8",
                    "load_d16_hi_u8",
                    "load_d16_i8",
                    "load_d16_hi_i8",
                ],
            };
            let mut src = String::new();
            for (k, n) in names.iter().enumerate() {
                src += &format!("global_{n} v{}, v[2:3], off offset:{}\n", 10 + k, k);
                if t.family() == Family::Gfx9 {
                    src += &format!("flat_{n} v{}, v[2:3] offset:{}\n", 20 + k, k);
                }
            }
            let code = asm::assemble_wave(t, wave, &src);
            let exec = exec_for(wave);
            let init = |v: usize, l: usize| asm::hash(900 + 64 * v as u32 + l as u32);
            let w = asm::run_with(t, wave, &code, &mem, &mut [0u8; 64], |w: &mut Wave| {
                for l in 0..64 {
                    let a = base + 3 * l as u64;
                    w.set_vgpr(2, l, a as u32);
                    w.set_vgpr(3, l, (a >> 32) as u32);
                    for v in 10..24 {
                        w.set_vgpr(v, l, init(v, l));
                    }
                }
                w.set_exec(exec);
            });
            for l in 0..wave as usize {
                for (k, _) in names.iter().enumerate() {
                    let b = data[3 * l + k];
                    let x = if k >= 2 {
                        b as i8 as i16 as u16
                    } else {
                        b as u16
                    } as u32;
                    for v in [10 + k, 20 + k] {
                        if v >= 20 && t.family() != Family::Gfx9 {
                            continue;
                        }
                        let old = init(v, l);
                        let want = match (exec >> l & 1, k % 2) {
                            (0, _) => old,
                            (_, 0) => (old & 0xffff_0000) | x,
                            _ => (old & 0xffff) | x << 16,
                        };
                        assert_eq!(
                            w.vgpr(v, l),
                            want,
                            "{} w{wave} {} lane {l}",
                            t.name(),
                            names[k]
                        );
                    }
                }
            }
        }
    }
}

/// SCRATCH d16 byte loads read back bytes stored by `scratch_store_byte`/`_b8`.
#[test]
fn scratch_d16_byte_loads() {
    for t in Target::ALL {
        for &wave in waves(t) {
            let mut mem = DeviceMemory::new();
            let scratch = mem.allocate(0x10000, 256).unwrap();
            let (st, lu, ls) = match t.family() {
                Family::Gfx9 => (
                    "scratch_store_byte",
                    "scratch_load_ubyte_d16_hi",
                    "scratch_load_sbyte_d16",
                ),
                _ => (
                    "scratch_store_b8",
                    "scratch_load_d16_hi_u8",
                    "scratch_load_d16_i8",
                ),
            };
            let src = format!(
                "{st} v2, v6, off offset:5\n{lu} v7, v2, off offset:5\n{ls} v8, v2, off offset:5\n"
            );
            let code = asm::assemble_wave(t, wave, &src);
            let w = asm::run_with(t, wave, &code, &mem, &mut [0u8; 64], |w: &mut Wave| {
                w.scratch_base = scratch;
                w.scratch_per_lane = 64;
                for l in 0..64 {
                    w.set_vgpr(2, l, 4 * (l as u32 % 8));
                    w.set_vgpr(6, l, 0x80 + l as u32);
                    w.set_vgpr(7, l, 0x1234_5678);
                    w.set_vgpr(8, l, 0x1234_5678);
                }
            });
            for l in 0..wave as usize {
                let b = 0x80 + l as u32;
                assert_eq!(
                    w.vgpr(7, l),
                    0x5678 | (b & 0xff) << 16,
                    "{} lane {l}",
                    t.name()
                );
                let s = (b as u8 as i8 as i16 as u16) as u32;
                assert_eq!(w.vgpr(8, l), 0x1234_0000 | s, "{} lane {l}", t.name());
            }
        }
    }
}

#[test]
fn gfx12_addtid_and_block() {
    for t in [Target::Gfx1200, Target::Gfx1201] {
        for wave in [32u32, 64] {
            let mut mem = DeviceMemory::new();
            let base = mem.allocate(0x4000, 256).unwrap();
            let data: Vec<u8> = (0..0x2000u32).map(|i| asm::hash(i + 5) as u8).collect();
            mem.write(base, &data).unwrap();
            mem.write(base + 0x2000, &[0xee; 0x2000]).unwrap();
            let mask: u32 = 0x8421_00f3;
            let src = "global_load_addtid_b32 v1, s[8:9] offset:0x1004\n\
                       global_store_addtid_b32 v4, s[10:11] offset:16\n\
                       s_mov_b32 m0, 0x842100f3\n\
                       global_load_block v[10:41], v[2:3], off offset:8\n\
                       global_store_block v[50:51], v[10:41], off\n";
            let code = asm::assemble_wave(t, wave, src);
            let exec = exec_for(wave);
            let init = |v: usize, l: usize| asm::hash(3000 + 64 * v as u32 + l as u32);
            let w = asm::run_with(t, wave, &code, &mem, &mut [0u8; 64], |w: &mut Wave| {
                w.set_sgpr64(8, base);
                w.set_sgpr64(10, base + 0x2000);
                for l in 0..64 {
                    let a = base + 0x78 * l as u64;
                    w.set_vgpr(2, l, a as u32);
                    w.set_vgpr(3, l, (a >> 32) as u32);
                    let o = base + 0x3000 + 0x80 * (l as u64 % 32);
                    w.set_vgpr(50, l, o as u32);
                    w.set_vgpr(51, l, (o >> 32) as u32);
                    for v in [1, 4].into_iter().chain(10..42) {
                        w.set_vgpr(v, l, init(v, l));
                    }
                }
                w.set_exec(exec);
            });
            let word = |a: usize| u32::from_le_bytes(data[a..a + 4].try_into().unwrap());
            let mut out = vec![0u8; 0x2000];
            mem.read(base + 0x2000, &mut out).unwrap();
            let oword = |a: usize| u32::from_le_bytes(out[a..a + 4].try_into().unwrap());
            let n = t.name();
            for l in 0..wave as usize {
                let on = exec >> l & 1 != 0;
                // addtid: only offset bits 11:0 (0x004) take part.
                let want = if on { word(4 + 4 * l) } else { init(1, l) };
                assert_eq!(w.vgpr(1, l), want, "{n} w{wave} load_addtid lane {l}");
                let want = if on { init(4, l) } else { 0xeeee_eeee };
                assert_eq!(oword(16 + 4 * l), want, "{n} w{wave} store_addtid lane {l}");
                for k in 0..32 {
                    let want = if on && mask >> k & 1 != 0 {
                        word(0x78 * l + 8 + 4 * k)
                    } else {
                        init(10 + k, l)
                    };
                    assert_eq!(
                        w.vgpr(10 + k, l),
                        want,
                        "{n} w{wave} load_block lane {l} v{}",
                        10 + k
                    );
                }
            }
            // store_block: lanes l and l + 32 share a destination (wave64: the later lane's
            // data stays); holes keep the fill.
            for slot in 0..32usize {
                let lane = [slot + 32, slot]
                    .into_iter()
                    .find(|&l| l < wave as usize && exec >> l & 1 != 0);
                for k in 0..32 {
                    let got = oword(0x1000 + 0x80 * slot + 4 * k);
                    let want = match lane {
                        Some(l) if mask >> k & 1 != 0 => w.vgpr(10 + k, l),
                        _ => 0xeeee_eeee,
                    };
                    assert_eq!(got, want, "{n} w{wave} store_block slot {slot} dword {k}");
                }
            }
        }
    }
}

#[test]
fn gfx12_transposing_loads() {
    for t in [Target::Gfx1200, Target::Gfx1201] {
        let mut mem = DeviceMemory::new();
        let base = mem.allocate(0x1000, 256).unwrap();
        let data: Vec<u8> = (0..0x1000u32).map(|i| asm::hash(i + 77) as u8).collect();
        mem.write(base, &data).unwrap();
        for wave in [32u32, 64] {
            // Elements per lane (and lanes per transposed block): 8 in wave32, 4 in wave64.
            let g = if wave == 32 { 8 } else { 4 };
            let (r16, r8) = (g / 2, g / 4);
            let text = format!(
                "global_load_tr_b128 v[4:{}], v[2:3], off\nglobal_load_tr_b64 v[8:{}], v[2:3], off offset:0x800",
                3 + r16,
                7 + r8
            );
            let code = asm::assemble_wave(t, wave, &text);
            let exec = exec_for(wave);
            // Lane l's row at 24 * l (rows need not be 16-byte aligned).
            let row = |l: usize| 24 * l;
            let w = asm::run_with(t, wave, &code, &mem, &mut [0u8; 64], |w: &mut Wave| {
                for l in 0..64 {
                    let a = base + row(l) as u64;
                    w.set_vgpr(2, l, a as u32);
                    w.set_vgpr(3, l, (a >> 32) as u32);
                    for v in 4..10 {
                        w.set_vgpr(v, l, 0xdead_0000 + v as u32);
                    }
                }
                w.set_exec(exec);
            });
            for l in 0..wave as usize {
                let blk = l / g * g;
                let mut want16 = [0u32; 4];
                let mut want8 = [0u32; 2];
                for e in 0..g {
                    let src = blk + e;
                    let (h, b) = if exec >> src & 1 != 0 {
                        let a = row(src) + 2 * (l % g);
                        (
                            u16::from_le_bytes([data[a], data[a + 1]]) as u32,
                            data[0x800 + row(src) + l % g] as u32,
                        )
                    } else {
                        (0, 0)
                    };
                    want16[e / 2] |= h << (16 * (e % 2));
                    want8[e / 4] |= b << (8 * (e % 4));
                }
                for (v, wants) in [(4, &want16[..r16]), (8, &want8[..r8])] {
                    for (k, &tr) in wants.iter().enumerate() {
                        let want = if exec >> l & 1 != 0 {
                            tr
                        } else {
                            0xdead_0000 + (v + k) as u32
                        };
                        assert_eq!(
                            w.vgpr(v + k, l),
                            want,
                            "{} w{wave} tr lane {l} v{}",
                            t.name(),
                            v + k
                        );
                    }
                }
                // Registers past the wave64 tuple are untouched.
                for v in 4 + r16..8 {
                    assert_eq!(w.vgpr(v, l), 0xdead_0000 + v as u32);
                }
            }
        }
    }
}

#[test]
fn gfx90a_buffer_store_lds_dword_and_invl2() {
    let t = Target::Gfx90a;
    let mut mem = DeviceMemory::new();
    let base = mem.allocate(0x1000, 256).unwrap();
    mem.write(base, &[0x55; 0x1000]).unwrap();
    let code = asm::assemble(
        t,
        "s_mov_b32 m0, 0x40\nbuffer_store_lds_dword s[4:7], s3 offset:8 lds\nbuffer_invl2",
    );
    let mut lds: Vec<u8> = (0..1024u32).map(|i| asm::hash(i) as u8).collect();
    let lds0 = lds.clone();
    let exec = 0xfff0_ffff_ffff_fffe_u64;
    asm::run_with(t, 64, &code, &mem, &mut lds, |w: &mut Wave| {
        // Raw buffer with ADD_TID (index = lane, stride 16), 60 records.
        w.set_sgpr(4, base as u32);
        w.set_sgpr(5, (base >> 32) as u32 & 0xffff | 16 << 16);
        w.set_sgpr(6, 60);
        w.set_sgpr(7, 1 << 23);
        w.set_sgpr(3, 0x100);
        w.set_exec(exec);
    });
    let mut got = vec![0u8; 0x1000];
    mem.read(base, &mut got).unwrap();
    let mut want = vec![0x55u8; 0x1000];
    for l in (0..60).filter(|l| exec >> l & 1 != 0) {
        // Memory: base + soffset + index * stride + offset; LDS: M0 + offset + 4 * lane.
        let a = 0x100 + 16 * l + 8;
        let s = 0x40 + 8 + 4 * l;
        want[a..a + 4].copy_from_slice(&lds0[s..s + 4]);
    }
    assert_eq!(got, want);
}

/// GFX12 FLAT (generic addresses; the ISA tables learned these opcodes once the generator
/// probed them with the NULL scalar base LLVM requires): a load and a store through a
/// global address, and a store and a load through the LDS aperture (`src_shared_base`),
/// on both wave sizes. Reference: `flat_load_b32 vD, v[A:A+1]` reads the dword at the
/// lane's 64-bit address; an address whose high dword is the shared aperture is an LDS
/// offset (RDNA4 guide, "Flat memory instructions").
#[test]
fn gfx12_flat_generic_addresses() {
    for t in [Target::Gfx1200, Target::Gfx1201] {
        for &wave in waves(t) {
            let mut mem = DeviceMemory::new();
            let base = mem.allocate(0x1000, 256).unwrap();
            let words: Vec<u32> = (0..64).map(asm::hash).collect();
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            mem.write(base, &bytes).unwrap();
            // v[2:3] = base + 4 * lane; v4 = LDS offset 4 * lane; v[4:5] its flat address.
            let src = "v_lshlrev_b32 v1, 2, v0
                v_add_co_u32 v2, vcc_lo, s0, v1
                v_add_co_ci_u32 v3, vcc_lo, s1, 0, vcc_lo
                flat_load_b32 v6, v[2:3]
                s_wait_loadcnt_dscnt 0x0
                v_xor_b32 v7, 0x5a5a5a5a, v6
                flat_store_b32 v[2:3], v7 offset:256
                s_mov_b64 s[4:5], src_shared_base
                v_mov_b32 v4, v1
                v_mov_b32 v5, s5
                flat_store_b32 v[4:5], v6
                s_wait_storecnt_dscnt 0x0
                flat_load_b32 v8, v[4:5]
                s_wait_loadcnt_dscnt 0x0";
            let src = if wave == 64 {
                src.replace("vcc_lo", "vcc")
            } else {
                src.to_string()
            };
            let code = asm::assemble_wave(t, wave, &src);
            let prog = Program::new(t, asm::BASE, &code);
            let mut lds = vec![0u8; 4096];
            let mut w = Wave::new(wave, asm::BASE);
            let exec = exec_for(wave);
            w.set_exec(exec);
            w.set_sgpr(0, base as u32);
            w.set_sgpr(1, (base >> 32) as u32);
            for l in 0..64 {
                w.set_vgpr(0, l, l as u32);
            }
            let mut ctx = ExecCtx {
                prog: &prog,
                mem: (&mem).into(),
                lds: &mut lds,
                observer: None,
                group: None,
            };
            assert_eq!(
                w.run(&mut ctx, 100),
                Stop::Endpgm,
                "{} wave{wave}",
                t.name()
            );
            for l in 0..wave as usize {
                let on = exec >> l & 1 != 0;
                let want = if on { words[l] } else { 0 };
                assert_eq!(
                    w.vgpr(6, l),
                    want,
                    "{} wave{wave} lane {l} global load",
                    t.name()
                );
                let mut b = [0u8; 4];
                mem.read(base + 256 + 4 * l as u64, &mut b).unwrap();
                let stored = u32::from_le_bytes(b);
                let expect = if on {
                    words[l] ^ 0x5a5a_5a5a
                } else {
                    words_at(&words, l + 64)
                };
                assert_eq!(
                    stored,
                    expect,
                    "{} wave{wave} lane {l} global store",
                    t.name()
                );
                assert_eq!(
                    w.vgpr(8, l),
                    want,
                    "{} wave{wave} lane {l} lds round trip",
                    t.name()
                );
                let lds_word = u32::from_le_bytes(lds[4 * l..4 * l + 4].try_into().unwrap());
                assert_eq!(lds_word, want, "{} wave{wave} lane {l} lds store", t.name());
            }
        }
    }
}

/// The word initially at index `i` of the 64-word buffer (0 past it: the allocation is
/// zeroed there).
fn words_at(words: &[u32], i: usize) -> u32 {
    words.get(i).copied().unwrap_or(0)
}
