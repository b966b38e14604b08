//! LDS DMA loads assembled by llvm-mc-22 and run in the executor: GFX9 `buffer_load_* ...
//! lds` (gfx90a, gfx942, gfx950; dwordx4 on gfx950) and `global_load_lds_*` (gfx942,
//! gfx950; dwordx4 on gfx950). Reference (Vega/CDNA ISA guides, buffer loads to LDS; LLVM
//! `int_amdgcn_load_to_lds`: the immediate offset applies to both addresses): the memory
//! address is formed as for the same load to VGPRs (range-checked: out-of-range lanes read
//! 0), and lane `l`'s data, sub-dword values zero- or sign-extended to a dword, is written
//! to LDS at `M0 + inst_offset + l * 4 * dwords`. Inactive lanes write nothing; VGPRs are
//! not written.

#[path = "exec_util/asm.rs"]
mod asm;

use gpu_model::exec::Wave;
use gpu_model::memory::DeviceMemory;
use gpu_model::Target;

const NUM_RECORDS: u64 = 0x1c0;
const EXEC: u64 = 0xffff_0fff_7fff_fff7;
const FILL: u8 = 0xcd;

/// (asm, M0, inst offset, memory byte offset of lane l, bytes, signed, dwords, range-checked)
struct Load {
    asm: &'static str,
    m0: u32,
    off: i64,
    addr: fn(usize) -> u64,
    bytes: usize,
    signed: bool,
    dwords: usize,
    buffer: bool,
}

fn loads(t: Target) -> Vec<Load> {
    let mut v = vec![
        Load {
            asm: "buffer_load_dword v1, s[4:7], 0 offen offset:16 lds",
            m0: 0x100,
            off: 16,
            addr: |l| 16 + 4 * l as u64,
            bytes: 4,
            signed: false,
            dwords: 1,
            buffer: true,
        },
        Load {
            asm: "buffer_load_sbyte v2, s[4:7], 0 offen lds",
            m0: 0x400,
            off: 0,
            addr: |l| 3 * l as u64,
            bytes: 1,
            signed: true,
            dwords: 1,
            buffer: true,
        },
        Load {
            asm: "buffer_load_ushort v2, s[4:7], s3 offen offset:2 lds",
            m0: 0x600,
            off: 2,
            addr: |l| 8 + 2 + 3 * l as u64,
            bytes: 2,
            signed: false,
            dwords: 1,
            buffer: true,
        },
    ];
    if t != Target::Gfx90a {
        v.push(Load {
            asm: "global_load_lds_dword v1, s[8:9] offset:-4",
            m0: 0x804,
            off: -4,
            addr: |l| 0x40 - 4 + 4 * l as u64,
            bytes: 4,
            signed: false,
            dwords: 1,
            buffer: false,
        });
        v.push(Load {
            asm: "global_load_lds_sshort v2, s[8:9]",
            m0: 0x900,
            off: 0,
            addr: |l| 0x40 + 3 * l as u64,
            bytes: 2,
            signed: true,
            dwords: 1,
            buffer: false,
        });
    }
    if t == Target::Gfx950 {
        v.push(Load {
            asm: "global_load_lds_dwordx4 v3, s[8:9] offset:32",
            m0: 0xa00,
            off: 32,
            addr: |l| 0x40 + 32 + 16 * l as u64,
            bytes: 4,
            signed: false,
            dwords: 4,
            buffer: false,
        });
        v.push(Load {
            asm: "buffer_load_dwordx4 v3, s[4:7], 0 offen lds",
            m0: 0xe00,
            off: 0,
            addr: |l| 16 * l as u64,
            bytes: 4,
            signed: false,
            dwords: 4,
            buffer: true,
        });
    }
    v
}

fn check(t: Target) {
    let mut mem = DeviceMemory::new();
    let base = mem.allocate(4096, 256).unwrap();
    let data: Vec<u8> = (0..4096u32).map(|i| asm::hash(i) as u8).collect();
    mem.write(base, &data).unwrap();
    let mut src = String::new();
    for ld in loads(t) {
        src += &format!("s_mov_b32 m0, {:#x}\n{}\n", ld.m0, ld.asm);
    }
    let code = asm::assemble(t, &src);
    let mut lds = vec![FILL; 0x2000];
    let w = asm::run_with(t, 64, &code, &mem, &mut lds, |w: &mut Wave| {
        // Raw GFX9 V#: base, stride 0, num_records.
        w.set_sgpr(4, base as u32);
        w.set_sgpr(5, (base >> 32) as u32 & 0xffff);
        w.set_sgpr(6, NUM_RECORDS as u32);
        w.set_sgpr(7, 0);
        w.set_sgpr(3, 8);
        let g = base + 0x40;
        w.set_sgpr(8, g as u32);
        w.set_sgpr(9, (g >> 32) as u32);
        for l in 0..64 {
            w.set_vgpr(1, l, 4 * l as u32);
            w.set_vgpr(2, l, 3 * l as u32);
            w.set_vgpr(3, l, 16 * l as u32);
        }
        w.set_exec(EXEC);
    });
    let mut want = vec![FILL; 0x2000];
    for ld in loads(t) {
        for l in (0..64).filter(|l| EXEC >> l & 1 != 0) {
            let a = (ld.addr)(l);
            let lds_at = (ld.m0 as i64 + ld.off) as usize + 4 * ld.dwords * l;
            for k in 0..ld.dwords {
                let ak = a + 4 * k as u64;
                // A GFX9 raw buffer checks the whole access at the offset (without
                // soffset) against num_records: all or nothing.
                let off = a - if ld.asm.contains("s3") { 8 } else { 0 };
                let whole = (ld.bytes * ld.dwords) as u64;
                let inside = !ld.buffer || off + whole <= NUM_RECORDS;
                let mut v = 0u32;
                if inside {
                    for b in 0..ld.bytes {
                        v |= (data[ak as usize + b] as u32) << (8 * b);
                    }
                }
                let v = match (ld.bytes, ld.signed) {
                    (1, true) => v as u8 as i8 as i32 as u32,
                    (2, true) => v as u16 as i16 as i32 as u32,
                    _ => v,
                };
                want[lds_at + 4 * k..lds_at + 4 * k + 4].copy_from_slice(&v.to_le_bytes());
            }
        }
    }
    for (i, (g, e)) in lds.iter().zip(&want).enumerate() {
        assert_eq!(g, e, "{}: LDS byte {i:#x}", t.name());
    }
    // VGPRs are not load destinations here.
    assert_eq!(w.vgpr(1, 5), 20);
}

#[test]
fn lds_dma_loads() {
    for t in [Target::Gfx90a, Target::Gfx942, Target::Gfx950] {
        check(t);
    }
}
