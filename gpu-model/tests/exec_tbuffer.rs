//! Typed buffer loads and stores (MTBUF) assembled by llvm-mc-22 for all five targets
//! (GFX9 `format:[BUF_DATA_FORMAT_*,BUF_NUM_FORMAT_*]`, GFX12 `format:[BUF_FMT_*]`) and run
//! in the executor, against a CPU reference of the buffer data formats (components from
//! the lowest address up) and numeric formats of the Vega / CDNA3 ISA guides: unorm
//! `v / (2^b - 1)`, snorm `max(v / (2^(b-1) - 1), -1)`, uscaled/sscaled (the integer as a
//! float), uint/sint (zero/sign-extended), float (f16 widened, f32 as is); stores of
//! uint/sint (truncated) and float (f16 rounded to nearest even); the d16 forms with 16-bit
//! components packed two per VGPR (the high half of an odd count's last register kept).
//! Raw buffer, offen, partial EXEC and out-of-range lanes (loads read 0, stores are
//! dropped).

#[path = "exec_util/asm.rs"]
mod asm;

use gpu_model::exec::Wave;
use gpu_model::memory::DeviceMemory;
use gpu_model::{Family, Target};

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

/// (dfmt, nfmt, components moved, first VGPR, d16)
const LOADS: &[(&str, &str, usize, usize, bool)] = &[
    ("8_8_8_8", "UNORM", 4, 10, false),
    ("8_8_8_8", "SNORM", 4, 14, false),
    ("8_8", "USCALED", 2, 18, false),
    ("8", "SSCALED", 1, 20, false),
    ("16_16", "UINT", 2, 22, false),
    ("16_16_16_16", "SINT", 4, 24, false),
    ("16_16", "FLOAT", 2, 28, false),
    ("32", "FLOAT", 1, 30, false),
    ("32_32_32", "UINT", 3, 32, false),
    ("32_32_32_32", "SINT", 4, 36, false),
    ("16_16_16_16", "SNORM", 2, 40, false),
    ("16_16_16_16", "UNORM", 3, 42, false),
    ("16_16", "FLOAT", 2, 60, true),
    ("16_16_16_16", "UINT", 3, 62, true),
    ("8_8", "SINT", 2, 64, true),
    ("8", "UINT", 1, 66, true),
    ("16_16_16_16", "SINT", 4, 68, true),
];

/// (dfmt, nfmt, first VGPR of the data, destination byte offset in the output buffer, d16)
const STORES: &[(&str, &str, usize, u64, bool)] = &[
    ("16_16", "UINT", 50, 0x1000, false),
    ("8_8_8_8", "SINT", 52, 0x1400, false),
    ("16", "FLOAT", 56, 0x1800, false),
    ("32_32", "FLOAT", 58, 0x1a00, false),
    ("16_16", "FLOAT", 70, 0x1c00, true),
    ("8_8_8_8", "UINT", 72, 0x1e00, true),
];

/// Initial value of VGPR `v` in lane `l` (d16 loads keep half of some of them).
fn init(v: usize, l: usize) -> u32 {
    asm::hash(5000 + 64 * v as u32 + l as u32)
}

/// The mnemonic of a typed load or store (`op` "load"/"store") of `c` components.
fn mnemonic(t: Target, op: &str, c: usize, d16: bool) -> String {
    let comps = load_name(c);
    match (d16, t.family()) {
        (false, _) => format!("tbuffer_{op}_format_{comps}"),
        (true, Family::Gfx9) => format!("tbuffer_{op}_format_d16_{comps}"),
        (true, _) => format!("tbuffer_{op}_d16_format_{comps}"),
    }
}

/// The `format:` operand of dfmt `d`, nfmt `n`.
fn format(t: Target, d: &str, n: &str) -> String {
    match t.family() {
        Family::Gfx9 => format!("format:[BUF_DATA_FORMAT_{d},BUF_NUM_FORMAT_{n}]"),
        _ => format!("format:[BUF_FMT_{d}_{n}]"),
    }
}

/// A VGPR range of `n` registers from `v`.
fn regs(v: usize, n: usize) -> String {
    if n == 1 {
        format!("v{v}")
    } else {
        format!("v[{v}:{}]", v + n - 1)
    }
}

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
    // GFX12 takes no inline constant as soffset: s12 holds 0.
    let mut src = String::from("s_mov_b32 s12, 0\n");
    for &(d, n, c, v, d16) in LOADS {
        let nregs = if d16 { c.div_ceil(2) } else { c };
        src += &format!(
            "{} {}, v1, s[4:7], s12 {} offen offset:4\n",
            mnemonic(t, "load", c, d16),
            regs(v, nregs),
            format(t, d, n),
        );
    }
    for &(d, n, v, off, d16) in STORES {
        let c = dfmt(d).1;
        let nregs = if d16 { c.div_ceil(2) } else { c };
        src += &format!(
            "s_mov_b32 s3, {off:#x}\n{} {}, v2, s[8:11], s3 {} offen\n",
            mnemonic(t, "store", c, d16),
            regs(v, nregs),
            format(t, d, n),
        );
    }
    let code = asm::assemble(t, &src);
    let store_val = |v: usize, l: usize| match v {
        56 | 58 | 59 => ((l as f32) * 0.3 - 7.0 + v as f32).to_bits(),
        // Two f16 values.
        70 => {
            let h = |x: f32| half::f16::from_f32(x).to_bits() as u32;
            h(l as f32 * 0.25 - 3.0) | h(100.0 - l as f32) << 16
        }
        _ => asm::hash(1000 * v as u32 + l as u32),
    };
    let mut lds = vec![0u8; 64];
    let w = asm::run_with(t, 64, &code, &mem, &mut lds, |w: &mut Wave| {
        // Raw V#s: loads from base (num_records NUM_RECORDS), stores to base with
        // soffset (num_records STORE_RECORDS, checked without soffset). GFX12 raw buffers
        // check `offset + payload <= num_records` with oob_select 3 (dword3[29:28]).
        let d3 = if t.family() == Family::Gfx9 {
            0
        } else {
            3 << 28
        };
        for (s, n) in [(4, NUM_RECORDS), (8, STORE_RECORDS)] {
            w.set_sgpr(s, base as u32);
            w.set_sgpr(s + 1, (base >> 32) as u32 & 0xffff);
            w.set_sgpr(s + 2, n as u32);
            w.set_sgpr(s + 3, d3);
        }
        for l in 0..64 {
            for v in 0..80 {
                w.set_vgpr(v, l, init(v, l));
            }
            w.set_vgpr(1, l, 12 * l as u32);
            w.set_vgpr(2, l, 8 * l as u32);
            for &(_, _, v, _, _) in STORES {
                for k in 0..4 {
                    w.set_vgpr(v + k, l, store_val(v + k, l));
                }
            }
        }
        w.set_exec(EXEC);
    });
    let name = t.name();
    for &(d, n, c, v, d16) in LOADS {
        let (bits, comps) = dfmt(d);
        let elem = bits as u64 / 8 * comps as u64;
        let what = mnemonic(t, "load", c, d16);
        for l in (0..64).filter(|l| EXEC >> l & 1 != 0) {
            let off = 12 * l as u64 + 4;
            let comp = |k: usize| {
                let raw = if off + elem <= NUM_RECORDS {
                    let a = (off + k as u64 * bits as u64 / 8) as usize;
                    (0..bits as usize / 8).fold(0u32, |x, b| x | (data[a + b] as u32) << (8 * b))
                } else {
                    0
                };
                // d16: the 16-bit value itself (an f16 component is moved unchanged, an
                // integer one zero/sign-extended to 16 bits).
                if d16 && n == "FLOAT" {
                    raw
                } else {
                    convert(raw, bits, n)
                }
            };
            if !d16 {
                for k in 0..c {
                    assert_eq!(
                        w.vgpr(v + k, l),
                        comp(k),
                        "{name} {what} {d} {n} lane {l} component {k}"
                    );
                }
                continue;
            }
            for r in 0..c.div_ceil(2) {
                let lo = comp(2 * r) & 0xffff;
                let hi = if 2 * r + 1 < c {
                    comp(2 * r + 1) << 16
                } else {
                    init(v + r, l) & 0xffff_0000
                };
                assert_eq!(
                    w.vgpr(v + r, l),
                    lo | hi,
                    "{name} {what} {d} {n} lane {l} register {r}"
                );
            }
        }
    }
    let mut want = vec![0xccu8; 0x1000];
    for &(d, n, v, dst, d16) in STORES {
        let (bits, comps) = dfmt(d);
        let elem = bits as u64 / 8 * comps as u64;
        for l in (0..64).filter(|l| EXEC >> l & 1 != 0) {
            let off = 8 * l as u64;
            if off + elem > STORE_RECORDS {
                continue;
            }
            for k in 0..comps {
                let x = if d16 {
                    store_val(v + k / 2, l) >> (16 * (k % 2)) & 0xffff
                } else {
                    store_val(v + k, l)
                };
                let m = match (n, bits) {
                    // d16 components are 16 bits already: moved unchanged or truncated.
                    _ if d16 => x & ((1u32 << bits) - 1),
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
    for t in Target::ALL {
        check(t);
    }
}
