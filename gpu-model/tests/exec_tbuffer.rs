//! GFX9 typed buffer loads and stores (MTBUF) assembled by llvm-mc-22 for gfx90a, gfx942
//! and gfx950 and run in the executor, against a CPU reference of the buffer data formats
//! (components from the lowest address up) and numeric formats of the Vega / CDNA3 ISA
//! guides: unorm `v / (2^b - 1)`, snorm `max(v / (2^(b-1) - 1), -1)`, uscaled/sscaled (the
//! integer as a float), uint/sint (zero/sign-extended), float (f16 widened, f32 as is);
//! stores of uint/sint (truncated) and float (f16 rounded to nearest even). Raw buffer,
//! offen, partial EXEC and out-of-range lanes (loads read 0, stores are dropped).

#[path = "exec_util/asm.rs"]
mod asm;

use gpu_model::exec::Wave;
use gpu_model::memory::DeviceMemory;
use gpu_model::Target;

const NUM_RECORDS: u64 = 0x300;
const EXEC: u64 = 0xfff7_ffff_ffff_fffe;
const STORE_RECORDS: u64 = 0x1c0;

/// (dfmt name, component bits, component count)
fn dfmt(name: &str) -> (u32, usize) {
    match name {
        "8" => (8, 1),
        "8_8" => (8, 2),
        "8_8_8_8" => (8, 4),
        "16" => (16, 1),
        "16_16" => (16, 2),
        "16_16_16_16" => (16, 4),
        "32" => (32, 1),
        "32_32" => (32, 2),
        "32_32_32" => (32, 3),
        "32_32_32_32" => (32, 4),
        _ => unreachable!(),
    }
}

/// (dfmt, nfmt, components moved, first VGPR)
const LOADS: &[(&str, &str, usize, usize)] = &[
    ("8_8_8_8", "UNORM", 4, 10),
    ("8_8_8_8", "SNORM", 4, 14),
    ("8_8", "USCALED", 2, 18),
    ("8", "SSCALED", 1, 20),
    ("16_16", "UINT", 2, 22),
    ("16_16_16_16", "SINT", 4, 24),
    ("16_16", "FLOAT", 2, 28),
    ("32", "FLOAT", 1, 30),
    ("32_32_32", "UINT", 3, 32),
    ("32_32_32_32", "SINT", 4, 36),
    ("16_16_16_16", "SNORM", 2, 40),
    ("16_16_16_16", "UNORM", 3, 42),
];

/// (dfmt, nfmt, first VGPR of the data, destination byte offset in the output buffer)
const STORES: &[(&str, &str, usize, u64)] = &[
    ("16_16", "UINT", 50, 0x1000),
    ("8_8_8_8", "SINT", 52, 0x1400),
    ("16", "FLOAT", 56, 0x1800),
    ("32_32", "FLOAT", 58, 0x1c00),
];

fn load_name(c: usize) -> &'static str {
    ["x", "xy", "xyz", "xyzw"][c - 1]
}

fn convert(raw: u32, bits: u32, nfmt: &str) -> u32 {
    let max = if bits == 32 {
        u32::MAX as u64
    } else {
        (1u64 << bits) - 1
    };
    let u = raw as u64 & max;
    let s = if u >> (bits - 1) & 1 != 0 {
        u as i64 - (1i64 << bits)
    } else {
        u as i64
    };
    match nfmt {
        "UNORM" => ((u as f64 / max as f64) as f32).to_bits(),
        "SNORM" => ((s as f64 / ((1u64 << (bits - 1)) - 1) as f64).max(-1.0) as f32).to_bits(),
        "USCALED" => (u as f32).to_bits(),
        "SSCALED" => (s as f32).to_bits(),
        "UINT" => u as u32,
        "SINT" => s as i32 as u32,
        _ if bits == 16 => half::f16::from_bits(u as u16).to_f32().to_bits(),
        _ => u as u32,
    }
}

fn check(t: Target) {
    let mut mem = DeviceMemory::new();
    let base = mem.allocate(0x2000, 256).unwrap();
    let data: Vec<u8> = (0..0x1000u32).map(|i| asm::hash(i + 77) as u8).collect();
    mem.write(base, &data).unwrap();
    mem.write(base + 0x1000, &[0xcc; 0x1000]).unwrap();
    let mut src = String::new();
    for &(d, n, c, v) in LOADS {
        src += &format!(
            "tbuffer_load_format_{} v[{v}:{}], v1, s[4:7], 0 format:[BUF_DATA_FORMAT_{d},BUF_NUM_FORMAT_{n}] offen offset:4\n",
            load_name(c),
            v + c - 1
        );
    }
    for &(d, n, v, off) in STORES {
        let c = dfmt(d).1;
        let regs = if c == 1 {
            format!("v{v}")
        } else {
            format!("v[{v}:{}]", v + c - 1)
        };
        src += &format!(
            "s_mov_b32 s3, {off:#x}\ntbuffer_store_format_{} {regs}, v2, s[8:11], s3 format:[BUF_DATA_FORMAT_{d},BUF_NUM_FORMAT_{n}] offen\n",
            load_name(c)
        );
    }
    let code = asm::assemble(t, &src);
    let store_val = |v: usize, l: usize| match v {
        56 | 58 | 59 => ((l as f32) * 0.3 - 7.0 + v as f32).to_bits(),
        _ => asm::hash(1000 * v as u32 + l as u32),
    };
    let mut lds = vec![0u8; 64];
    let w = asm::run_with(t, 64, &code, &mem, &mut lds, |w: &mut Wave| {
        // Raw GFX9 V#s: loads from base (num_records NUM_RECORDS), stores to base with
        // soffset (num_records STORE_RECORDS, checked without soffset).
        for (s, n) in [(4, NUM_RECORDS), (8, STORE_RECORDS)] {
            w.set_sgpr(s, base as u32);
            w.set_sgpr(s + 1, (base >> 32) as u32 & 0xffff);
            w.set_sgpr(s + 2, n as u32);
            w.set_sgpr(s + 3, 0);
        }
        for l in 0..64 {
            w.set_vgpr(1, l, 12 * l as u32);
            w.set_vgpr(2, l, 8 * l as u32);
            for &(_, _, v, _) in STORES {
                for k in 0..4 {
                    w.set_vgpr(v + k, l, store_val(v + k, l));
                }
            }
        }
        w.set_exec(EXEC);
    });
    let name = t.name();
    for &(d, n, c, v) in LOADS {
        let (bits, comps) = dfmt(d);
        let elem = bits as u64 / 8 * comps as u64;
        for l in (0..64).filter(|l| EXEC >> l & 1 != 0) {
            let off = 12 * l as u64 + 4;
            for k in 0..c {
                let raw = if off + elem <= NUM_RECORDS {
                    let a = (off + k as u64 * bits as u64 / 8) as usize;
                    (0..bits as usize / 8).fold(0u32, |x, b| x | (data[a + b] as u32) << (8 * b))
                } else {
                    0
                };
                assert_eq!(
                    w.vgpr(v + k, l),
                    convert(raw, bits, n),
                    "{name} tbuffer_load_format_{} {d} {n} lane {l} component {k}",
                    load_name(c)
                );
            }
        }
    }
    let mut want = vec![0xccu8; 0x1000];
    for &(d, n, v, dst) in STORES {
        let (bits, comps) = dfmt(d);
        let elem = bits as u64 / 8 * comps as u64;
        for l in (0..64).filter(|l| EXEC >> l & 1 != 0) {
            let off = 8 * l as u64;
            if off + elem > STORE_RECORDS {
                continue;
            }
            for k in 0..comps {
                let x = store_val(v + k, l);
                let m = match (n, bits) {
                    ("FLOAT", 16) => half::f16::from_f32(f32::from_bits(x)).to_bits() as u32,
                    (_, 32) => x,
                    _ => x & ((1u32 << bits) - 1),
                };
                let a = (dst - 0x1000 + off) as usize + k * bits as usize / 8;
                want[a..a + bits as usize / 8]
                    .copy_from_slice(&m.to_le_bytes()[..bits as usize / 8]);
            }
        }
    }
    let mut got = vec![0u8; 0x1000];
    mem.read(base + 0x1000, &mut got).unwrap();
    for (i, (g, e)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, e, "{name} stored byte {:#x}", 0x1000 + i);
    }
}

#[test]
fn typed_buffer_loads_and_stores() {
    for t in [Target::Gfx90a, Target::Gfx942, Target::Gfx950] {
        check(t);
    }
}
