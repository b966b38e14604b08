//! Formatted buffer accesses assembled by llvm-mc-22 and run in the executor on all five
//! targets (GFX12 in wave32 and wave64): `buffer_load_format_*`/`buffer_store_format_*`
//! (and the d16, d16_hi forms) through the descriptor's format and destination selects
//! (GFX9 V# dword3: DST_SEL [11:0], NUM_FORMAT [14:12], DATA_FORMAT [18:15]; GFX12:
//! DST_SEL [11:0], FORMAT [17:12]), the packed data formats of the typed
//! `tbuffer_*`, and the invalid format (loads 0, stores nothing).
//!
//! The reference is written from the definitions: the packed layouts (components from the
//! least significant bit: `2_10_10_10` x 9:0 .. w 31:30, `10_10_10_2` x 1:0 .. w 31:22,
//! `10_11_11` x 10:0, y 21:11, z 31:22, `11_11_10` x 9:0, y 20:10, z 31:21), the numeric
//! formats (unorm `v / (2^b - 1)`, snorm `max(v / (2^(b-1) - 1), -1)`, scaled, integers,
//! f16, the unsigned 10/11-bit floats with a 5-bit exponent biased by 15), destination
//! selects (0 zero, 1 one, 4..7 x..w), the format codes as llvm-mc-22 encodes
//! `format:[...]` operands, and range checking (raw buffer: whole element in
//! num_records, else 0 / dropped).

#[path = "exec_util/asm.rs"]
mod asm;

use gpu_model::exec::Wave;
use gpu_model::memory::DeviceMemory;
use gpu_model::{Family, Target};

/// Lanes 3, 17, 40 and 63 inactive.
const EXEC: u64 = !(1 << 3 | 1 << 17 | 1 << 40 | 1 << 63);
/// Bytes of the load buffer the descriptors allow (lane l reads at 16 * l).
const RECORDS: u64 = 0x1f4;

/// (component (shift, bits) from the least significant bit up, element bytes)
fn layout(d: &str) -> (Vec<(u32, u32)>, usize) {
    let uni = |n: u32, b: u32| ((0..n).map(|c| (c * b, b)).collect(), (n * b / 8) as usize);
    match d {
        "8" => uni(1, 8),
        "16" => uni(1, 16),
        "32" => uni(1, 32),
        "8_8" => uni(2, 8),
        "16_16" => uni(2, 16),
        "8_8_8_8" => uni(4, 8),
        "16_16_16_16" => uni(4, 16),
        "32_32_32_32" => uni(4, 32),
        "2_10_10_10" => (vec![(0, 10), (10, 10), (20, 10), (30, 2)], 4),
        "10_10_10_2" => (vec![(0, 2), (2, 10), (12, 10), (22, 10)], 4),
        "10_11_11" => (vec![(0, 11), (11, 11), (22, 10)], 4),
        "11_11_10" => (vec![(0, 10), (10, 11), (21, 11)], 4),
        _ => unreachable!("{d}"),
    }
}

/// The format code llvm-mc-22 encodes for data format `d`, numeric format `n` on `t`: GFX9
/// `dfmt | nfmt << 4` (MTBUF dword0 [22:19], [25:23]), GFX12 the unified code (MTBUF bits
/// [61:55]).
fn code(t: Target, d: &str, n: &str) -> u32 {
    let (f, soff) = match t.family() {
        Family::Gfx9 => (format!("[BUF_DATA_FORMAT_{d},BUF_NUM_FORMAT_{n}]"), "0"),
        _ => (format!("[BUF_FMT_{d}_{n}]"), "s0"),
    };
    let b = asm::assemble(
        t,
        &format!("tbuffer_load_format_x v0, off, s[0:3], {soff} format:{f}"),
    );
    let w0 = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    let w1 = u32::from_le_bytes([b[4], b[5], b[6], b[7]]);
    match t.family() {
        Family::Gfx9 => (w0 >> 19) & 0xf | ((w0 >> 23) & 7) << 4,
        _ => (w1 >> 23) & 0x7f,
    }
}

/// Descriptor dword 3 of a raw buffer with format `fmt` (as [`code`]) and selects `sel`.
fn word3(t: Target, fmt: u32, sel: [u32; 4]) -> u32 {
    let s = sel[0] | sel[1] << 3 | sel[2] << 6 | sel[3] << 9;
    match t.family() {
        Family::Gfx9 => s | (fmt >> 4) << 12 | (fmt & 0xf) << 15,
        // oob_select 3: raw range check against num_records.
        _ => s | fmt << 12 | 3 << 28,
    }
}

fn small_float(raw: u32, mbits: u32) -> f32 {
    let e = raw >> mbits;
    let m = raw & ((1 << mbits) - 1);
    let frac = m as f32 / (1u32 << mbits) as f32;
    match e {
        31 if m == 0 => f32::INFINITY,
        31 => f32::NAN,
        0 => frac * 2f32.powi(-14),
        _ => (1.0 + frac) * 2f32.powi(e as i32 - 15),
    }
}

/// Component `raw` of `bits` bits in numeric format `n` as a VGPR value.
fn convert(raw: u32, bits: u32, n: &str) -> u32 {
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
    match n {
        "UNORM" => ((u as f64 / max as f64) as f32).to_bits(),
        "SNORM" => ((s as f64 / ((1u64 << (bits - 1)) - 1) as f64).max(-1.0) as f32).to_bits(),
        "USCALED" => (u as f32).to_bits(),
        "SSCALED" => (s as f32).to_bits(),
        "UINT" => u as u32,
        "SINT" => s as i32 as u32,
        _ => match bits {
            16 => half::f16::from_bits(u as u16).to_f32().to_bits(),
            11 => small_float(u as u32, 6).to_bits(),
            10 => small_float(u as u32, 5).to_bits(),
            _ => u as u32,
        },
    }
}

fn one(n: &str, d16: bool) -> u32 {
    match (n, d16) {
        ("UINT" | "SINT", _) => 1,
        (_, true) => 0x3c00,
        _ => 1.0f32.to_bits(),
    }
}

/// Register-equality that treats every NaN of a float format as equal.
fn same(got: u32, want: u32, n: &str) -> bool {
    got == want || (n == "FLOAT" && f32::from_bits(got).is_nan() && f32::from_bits(want).is_nan())
}

struct Load {
    /// Mnemonic stem: "x", "xy", ... (d16: register-pair forms).
    comps: usize,
    d: &'static str,
    n: &'static str,
    sel: [u32; 4],
    d16: bool,
    hi: bool,
}

const LOADS: &[Load] = &[
    Load {
        comps: 4,
        d: "8_8_8_8",
        n: "UNORM",
        sel: [6, 5, 4, 1],
        d16: false,
        hi: false,
    },
    Load {
        comps: 4,
        d: "2_10_10_10",
        n: "UINT",
        sel: [4, 5, 6, 7],
        d16: false,
        hi: false,
    },
    Load {
        comps: 4,
        d: "2_10_10_10",
        n: "SNORM",
        sel: [4, 5, 6, 7],
        d16: false,
        hi: false,
    },
    Load {
        comps: 4,
        d: "10_11_11",
        n: "FLOAT",
        sel: [4, 5, 6, 1],
        d16: false,
        hi: false,
    },
    Load {
        comps: 3,
        d: "11_11_10",
        n: "FLOAT",
        sel: [4, 5, 6, 0],
        d16: false,
        hi: false,
    },
    Load {
        comps: 4,
        d: "10_10_10_2",
        n: "SINT",
        sel: [4, 5, 6, 7],
        d16: false,
        hi: false,
    },
    Load {
        comps: 4,
        d: "16_16",
        n: "SSCALED",
        sel: [5, 4, 0, 1],
        d16: false,
        hi: false,
    },
    Load {
        comps: 4,
        d: "32",
        n: "FLOAT",
        sel: [4, 0, 0, 1],
        d16: false,
        hi: false,
    },
    Load {
        comps: 2,
        d: "2_10_10_10",
        n: "USCALED",
        sel: [7, 6, 0, 0],
        d16: false,
        hi: false,
    },
    Load {
        comps: 4,
        d: "16_16_16_16",
        n: "FLOAT",
        sel: [4, 5, 6, 7],
        d16: true,
        hi: false,
    },
    Load {
        comps: 1,
        d: "8",
        n: "UINT",
        sel: [4, 0, 0, 0],
        d16: true,
        hi: true,
    },
    Load {
        comps: 3,
        d: "2_10_10_10",
        n: "UINT",
        sel: [4, 5, 6, 7],
        d16: true,
        hi: false,
    },
    Load {
        comps: 2,
        d: "10_11_11",
        n: "FLOAT",
        sel: [6, 1, 0, 0],
        d16: true,
        hi: false,
    },
    Load {
        comps: 3,
        d: "8_8",
        n: "SINT",
        sel: [4, 5, 1, 0],
        d16: true,
        hi: false,
    },
];

struct Store {
    comps: usize,
    d: &'static str,
    n: &'static str,
    d16: bool,
    hi: bool,
}

const STORES: &[Store] = &[
    Store {
        comps: 4,
        d: "2_10_10_10",
        n: "UINT",
        d16: false,
        hi: false,
    },
    Store {
        comps: 4,
        d: "10_10_10_2",
        n: "SINT",
        d16: false,
        hi: false,
    },
    Store {
        comps: 2,
        d: "16_16",
        n: "FLOAT",
        d16: true,
        hi: false,
    },
    Store {
        comps: 1,
        d: "16",
        n: "UINT",
        d16: true,
        hi: true,
    },
    Store {
        comps: 4,
        d: "8_8_8_8",
        n: "SINT",
        d16: true,
        hi: false,
    },
    Store {
        comps: 1,
        d: "32",
        n: "FLOAT",
        d16: false,
        hi: false,
    },
];

fn name(t: Target, op: &str, comps: usize, d16: bool, hi: bool) -> String {
    let c = ["x", "xy", "xyz", "xyzw"][comps - 1];
    match (d16, hi, t.family()) {
        (false, _, _) => format!("buffer_{op}_format_{c}"),
        (true, true, Family::Gfx9) => format!("buffer_{op}_format_d16_hi_{c}"),
        (true, true, _) => format!("buffer_{op}_d16_hi_format_{c}"),
        (true, false, Family::Gfx9) => format!("buffer_{op}_format_d16_{c}"),
        (true, false, _) => format!("buffer_{op}_d16_format_{c}"),
    }
}

fn regs(v: usize, n: usize) -> String {
    if n == 1 {
        format!("v{v}")
    } else {
        format!("v[{v}:{}]", v + n - 1)
    }
}

fn nregs(comps: usize, d16: bool) -> usize {
    if d16 {
        comps.div_ceil(2)
    } else {
        comps
    }
}

fn init(v: usize, l: usize) -> u32 {
    asm::hash(7000 + 64 * v as u32 + l as u32)
}

/// Bytes at `a` of the load buffer.
fn elem(data: &[u8], a: usize, n: usize) -> [u8; 16] {
    let mut e = [0u8; 16];
    e[..n].copy_from_slice(&data[a..a + n]);
    e
}

fn raw(e: &[u8; 16], shift: u32, bits: u32, packed: bool) -> u32 {
    if packed {
        let w = u32::from_le_bytes([e[0], e[1], e[2], e[3]]);
        (w >> shift)
            & if bits == 32 {
                u32::MAX
            } else {
                (1 << bits) - 1
            }
    } else {
        let o = (shift / 8) as usize;
        let mut b = [0u8; 4];
        b[..bits as usize / 8].copy_from_slice(&e[o..o + bits as usize / 8]);
        u32::from_le_bytes(b)
    }
}

fn check(t: Target, wave: u32) {
    let mut mem = DeviceMemory::new();
    let base = mem.allocate(0x4000, 256).unwrap();
    let data: Vec<u8> = (0..0x1000u32).map(|i| asm::hash(i + 911) as u8).collect();
    mem.write(base, &data).unwrap();
    mem.write(base + 0x1000, &[0xcc; 0x3000]).unwrap();
    let lanes = wave as usize;
    let exec = if wave == 32 { EXEC & 0xffff_ffff } else { EXEC };
    let mut src = String::from("s_mov_b32 s12, 0\n");
    // Load descriptors at s[16 + 4k], data in v[8 + 4k].
    let mut d3 = Vec::new();
    for (k, ld) in LOADS.iter().enumerate() {
        d3.push(word3(t, code(t, ld.d, ld.n), ld.sel));
        src += &format!(
            "{} {}, v1, s[{}:{}], s12 offen\n",
            name(t, "load", ld.comps, ld.d16, ld.hi),
            regs(8 + 4 * k, nregs(ld.comps, ld.d16)),
            16 + 4 * k,
            19 + 4 * k
        );
    }
    // The invalid format: a load into v[80:83] through s[72:75] and a store of
    // v[84:87] through the same (both do nothing to memory; the load writes 0).
    let invalid = (72, 80);
    src += "buffer_load_format_xyzw v[80:83], v1, s[72:75], s12 offen\n\
            buffer_store_format_xyzw v[84:87], v2, s[72:75], s12 offen\n";
    // Store descriptors at s[76 + 4k] with soffset 0x1000 + 0x400 k (num_records
    // RECORDS from there), data in v[88 + 4k].
    for (k, st) in STORES.iter().enumerate() {
        src += &format!(
            "s_mov_b32 s13, {:#x}\n{} {}, v2, s[{}:{}], s13 offen\n",
            0x1000 + 0x400 * k,
            name(t, "store", st.comps, st.d16, st.hi),
            regs(88 + 4 * k, nregs(st.comps, st.d16)),
            76 + 4 * k,
            79 + 4 * k
        );
    }
    let code_bytes = asm::assemble_wave(t, wave, &src);
    let store_d3: Vec<u32> = STORES
        .iter()
        .map(|st| word3(t, code(t, st.d, st.n), [4, 5, 6, 7]))
        .collect();
    let store_val = |v: usize, l: usize| -> u32 {
        let x = asm::hash(100 * v as u32 + l as u32);
        match v {
            // f16 pairs for the 16_16 float store.
            96 => {
                let h = |f: f32| half::f16::from_f32(f).to_bits() as u32;
                h(l as f32 * 0.375 - 5.0) | h(1000.0 / (l as f32 + 1.0)) << 16
            }
            108 => (l as f32 * 1.25 - 9.5).to_bits(),
            _ => x,
        }
    };
    let mut lds = vec![0u8; 64];
    let w = asm::run_with(t, wave, &code_bytes, &mem, &mut lds, |w: &mut Wave| {
        let set = |w: &mut Wave, s: usize, a: u64, n: u64, d3: u32| {
            w.set_sgpr(s, a as u32);
            w.set_sgpr(s + 1, (a >> 32) as u32 & 0xffff);
            w.set_sgpr(s + 2, n as u32);
            w.set_sgpr(s + 3, d3);
        };
        for (k, &d) in d3.iter().enumerate() {
            set(w, 16 + 4 * k, base, RECORDS, d);
        }
        set(w, invalid.0, base, RECORDS, word3(t, 0, [4, 5, 6, 7]));
        for (k, &d) in store_d3.iter().enumerate() {
            set(w, 76 + 4 * k, base, RECORDS, d);
        }
        for l in 0..64 {
            for v in 0..128 {
                w.set_vgpr(v, l, init(v, l));
            }
            w.set_vgpr(1, l, 16 * l as u32);
            w.set_vgpr(2, l, 8 * l as u32);
            for v in 84..112 {
                w.set_vgpr(v, l, store_val(v, l));
            }
        }
        w.set_exec(exec);
    });
    let tn = format!("{} wave{wave}", t.name());
    for (k, ld) in LOADS.iter().enumerate() {
        let (lay, bytes) = layout(ld.d);
        let packed = ld.d.contains("10");
        let v0 = 8 + 4 * k;
        for l in (0..lanes).filter(|l| exec >> l & 1 != 0) {
            let off = 16 * l;
            let e = if off as u64 + bytes as u64 <= RECORDS {
                elem(&data, off, bytes)
            } else {
                [0; 16]
            };
            let chan = |j: usize| -> u32 {
                match ld.sel[j] {
                    0 => 0,
                    1 => one(ld.n, ld.d16),
                    s => {
                        let (sh, b) = lay[s as usize - 4];
                        let r = raw(&e, sh, b, packed);
                        if !ld.d16 {
                            return convert(r, b, ld.n);
                        }
                        match (ld.n, b) {
                            ("FLOAT", 16) => r,
                            // 10/11-bit floats widen exactly into f16.
                            ("FLOAT", _) => {
                                half::f16::from_f32(small_float(r, b - 5)).to_bits() as u32
                            }
                            ("SINT", _) => convert(r, b, "SINT") & 0xffff,
                            _ => r,
                        }
                    }
                }
            };
            if !ld.d16 {
                for j in 0..ld.comps {
                    let got = w.vgpr(v0 + j, l);
                    assert!(
                        same(got, chan(j), ld.n),
                        "{tn} load {} {} lane {l} channel {j}: {got:#x} != {:#x}",
                        ld.d,
                        ld.n,
                        chan(j)
                    );
                }
                continue;
            }
            // Halves compare equal, or both f16 NaNs of a float format.
            let same16 = |g: u32, e: u32| {
                let nan = |h: u32| h & 0x7c00 == 0x7c00 && h & 0x3ff != 0;
                g == e || (ld.n == "FLOAT" && nan(g) && nan(e))
            };
            if ld.hi {
                let got = w.vgpr(v0, l);
                assert_eq!(
                    got & 0xffff,
                    init(v0, l) & 0xffff,
                    "{tn} d16_hi keeps the low half"
                );
                assert!(same16(got >> 16, chan(0)), "{tn} d16_hi load lane {l}");
                continue;
            }
            for j in 0..2 * nregs(ld.comps, true) {
                let got = (w.vgpr(v0 + j / 2, l) >> (16 * (j % 2))) & 0xffff;
                let want = if j < ld.comps {
                    chan(j) & 0xffff
                } else {
                    init(v0 + j / 2, l) >> 16
                };
                assert!(
                    same16(got, want),
                    "{tn} d16 load {} {} lane {l} half {j}: {got:#x} != {want:#x}",
                    ld.d,
                    ld.n
                );
            }
        }
    }
    for l in (0..lanes).filter(|l| exec >> l & 1 != 0) {
        for j in 0..4 {
            assert_eq!(
                w.vgpr(invalid.1 + j, l),
                0,
                "{tn} invalid-format load lane {l}"
            );
        }
    }
    // Stores: everything outside the written elements keeps its fill.
    let mut want = vec![0xccu8; 0x3000];
    for (k, st) in STORES.iter().enumerate() {
        let (lay, bytes) = layout(st.d);
        let packed = st.d.contains("10");
        let v0 = 88 + 4 * k;
        for l in (0..lanes).filter(|l| exec >> l & 1 != 0) {
            let off = 8 * l;
            if off as u64 + bytes as u64 > RECORDS {
                continue;
            }
            let mut e = [0u8; 16];
            for (c, &(sh, b)) in lay.iter().enumerate() {
                let v = if st.hi {
                    store_val(v0, l) >> 16
                } else if st.d16 {
                    store_val(v0 + c / 2, l) >> (16 * (c % 2)) & 0xffff
                } else {
                    store_val(v0 + c, l)
                };
                let m = if b == 32 { u32::MAX } else { (1 << b) - 1 };
                let r = match (st.n, b, st.d16) {
                    ("FLOAT", 16, false) => half::f16::from_f32(f32::from_bits(v)).to_bits() as u32,
                    _ => v & m,
                };
                if packed {
                    let w0 = u32::from_le_bytes([e[0], e[1], e[2], e[3]]) | r << sh;
                    e[..4].copy_from_slice(&w0.to_le_bytes());
                } else {
                    let o = (sh / 8) as usize;
                    e[o..o + b as usize / 8].copy_from_slice(&r.to_le_bytes()[..b as usize / 8]);
                }
            }
            let a = 0x400 * k + off;
            want[a..a + bytes].copy_from_slice(&e[..bytes]);
        }
    }
    let mut got = vec![0u8; 0x3000];
    mem.read(base + 0x1000, &mut got).unwrap();
    for (i, (g, e)) in got.iter().zip(&want).enumerate() {
        assert_eq!(
            g,
            e,
            "{tn} stored byte {:#x} (store {})",
            0x1000 + i,
            i / 0x400
        );
    }
    // The invalid-format store wrote nothing into the load buffer either.
    let mut first = vec![0u8; 0x1000];
    mem.read(base, &mut first).unwrap();
    assert_eq!(first, data, "{tn} the load buffer is unchanged");
}

#[test]
fn buffer_format_accesses_follow_the_descriptor() {
    for t in Target::ALL {
        check(t, 64);
        if t.family() == Family::Gfx12 {
            check(t, 32);
        }
    }
}

/// Typed accesses with the packed formats and the invalid format.
#[test]
fn tbuffer_packed_and_invalid_formats() {
    for t in Target::ALL {
        let mut mem = DeviceMemory::new();
        let base = mem.allocate(0x2000, 256).unwrap();
        let data: Vec<u8> = (0..0x1000u32).map(|i| asm::hash(i + 3) as u8).collect();
        mem.write(base, &data).unwrap();
        mem.write(base + 0x1000, &[0xcc; 0x1000]).unwrap();
        let fmt = |d: &str, n: &str| match t.family() {
            Family::Gfx9 => format!("format:[BUF_DATA_FORMAT_{d},BUF_NUM_FORMAT_{n}]"),
            _ => format!("format:[BUF_FMT_{d}_{n}]"),
        };
        let invalid = match t.family() {
            Family::Gfx9 => "format:[BUF_DATA_FORMAT_INVALID]".to_string(),
            _ => "format:[BUF_FMT_INVALID]".to_string(),
        };
        let d16 = |s: &str| match t.family() {
            Family::Gfx9 => format!("tbuffer_{s}_format_d16_xy"),
            _ => format!("tbuffer_{s}_d16_format_xy"),
        };
        let src = format!(
            "s_mov_b32 s12, 0\n\
             tbuffer_load_format_xyzw v[10:13], v1, s[4:7], s12 {} offen\n\
             tbuffer_load_format_xyz v[14:16], v1, s[4:7], s12 {} offen\n\
             tbuffer_load_format_xyzw v[20:23], v1, s[4:7], s12 {invalid} offen\n\
             {} v24, v1, s[4:7], s12 {} offen\n\
             s_mov_b32 s13, 0x1000\n\
             tbuffer_store_format_xyzw v[30:33], v2, s[4:7], s13 {} offen\n\
             s_mov_b32 s13, 0x1800\n\
             tbuffer_store_format_xyzw v[30:33], v2, s[4:7], s13 {invalid} offen\n",
            fmt("2_10_10_10", "UNORM"),
            fmt("11_11_10", "FLOAT"),
            d16("load"),
            fmt("10_10_10_2", "UINT"),
            fmt("2_10_10_10", "SINT"),
        );
        let code = asm::assemble(t, &src);
        let w = asm::run_with(t, 64, &code, &mem, &mut [0u8; 64], |w: &mut Wave| {
            w.set_sgpr(4, base as u32);
            w.set_sgpr(5, (base >> 32) as u32 & 0xffff);
            w.set_sgpr(6, 0x1000);
            w.set_sgpr(
                7,
                if t.family() == Family::Gfx9 {
                    0
                } else {
                    3 << 28
                },
            );
            for l in 0..64 {
                for v in 0..40 {
                    w.set_vgpr(v, l, asm::hash(40 * l as u32 + v as u32));
                }
                w.set_vgpr(1, l, 8 * l as u32);
                w.set_vgpr(2, l, 4 * l as u32);
            }
        });
        let word = |l: usize| u32::from_le_bytes(data[8 * l..8 * l + 4].try_into().unwrap());
        for l in 0..64 {
            let x = word(l);
            let n = t.name();
            for (c, (sh, b)) in [(0, 10), (10, 10), (20, 10), (30, 2)]
                .into_iter()
                .enumerate()
            {
                let u = (x >> sh) & ((1 << b) - 1);
                let want = (u as f64 / ((1u64 << b) - 1) as f64) as f32;
                assert_eq!(
                    w.vgpr(10 + c, l),
                    want.to_bits(),
                    "{n} 2_10_10_10 unorm lane {l} c{c}"
                );
            }
            for (c, (sh, b)) in [(0, 10), (10, 11), (21, 11)].into_iter().enumerate() {
                let u = (x >> sh) & ((1 << b) - 1);
                let want = small_float(u, b - 5);
                let got = f32::from_bits(w.vgpr(14 + c, l));
                assert!(
                    got == want || got.is_nan() && want.is_nan(),
                    "{n} 11_11_10 lane {l} c{c}"
                );
            }
            for c in 0..4 {
                assert_eq!(w.vgpr(20 + c, l), 0, "{n} invalid format lane {l}");
            }
            // d16 xy of 10_10_10_2 uint: x (2 bits) low, y (10 bits) high.
            assert_eq!(
                w.vgpr(24, l),
                (x & 3) | ((x >> 2) & 0x3ff) << 16,
                "{n} d16 lane {l}"
            );
            // Store: components truncated into 2_10_10_10.
            let v = |c: usize| asm::hash(40 * l as u32 + 30 + c as u32);
            let want =
                (v(0) & 0x3ff) | (v(1) & 0x3ff) << 10 | (v(2) & 0x3ff) << 20 | (v(3) & 3) << 30;
            let mut b = [0u8; 4];
            mem.read(base + 0x1000 + 4 * l as u64, &mut b).unwrap();
            assert_eq!(u32::from_le_bytes(b), want, "{n} packed store lane {l}");
        }
        let mut after = vec![0u8; 0x800];
        mem.read(base + 0x1800, &mut after).unwrap();
        assert!(
            after.iter().all(|&b| b == 0xcc),
            "{}: invalid-format store wrote",
            t.name()
        );
    }
}

/// GFX9 `buffer_load_format_x ... lds`: the converted x channel (after the selects) is
/// written to LDS at `M0 + 4 * lane` instead of a VGPR (out-of-range lanes write 0).
#[test]
fn buffer_load_format_x_to_lds() {
    for t in [Target::Gfx90a, Target::Gfx942, Target::Gfx950] {
        let mut mem = DeviceMemory::new();
        let base = mem.allocate(0x1000, 256).unwrap();
        let data: Vec<u8> = (0..0x1000u32).map(|i| asm::hash(i + 17) as u8).collect();
        mem.write(base, &data).unwrap();
        let code_bytes = asm::assemble(
            t,
            "s_mov_b32 m0, 0x80\nbuffer_load_format_x v1, s[4:7], 0 offen lds",
        );
        let mut lds = vec![0xeeu8; 0x400];
        let w = asm::run_with(t, 64, &code_bytes, &mem, &mut lds, |w: &mut Wave| {
            w.set_sgpr(4, base as u32);
            w.set_sgpr(5, (base >> 32) as u32 & 0xffff);
            w.set_sgpr(6, 0xf0);
            // 16_16 float, x channel = y component.
            w.set_sgpr(7, word3(t, code(t, "16_16", "FLOAT"), [5, 4, 0, 1]));
            for l in 0..64 {
                w.set_vgpr(1, l, 4 * l as u32);
                w.set_vgpr(2, l, 0x1234);
            }
            w.set_exec(EXEC);
        });
        for l in 0..64usize {
            let got = u32::from_le_bytes(lds[0x80 + 4 * l..0x84 + 4 * l].try_into().unwrap());
            let want = if EXEC >> l & 1 == 0 {
                0xeeee_eeee
            } else if 4 * l + 4 <= 0xf0 {
                let h = u16::from_le_bytes([data[4 * l + 2], data[4 * l + 3]]);
                half::f16::from_bits(h).to_f32().to_bits()
            } else {
                0
            };
            assert!(
                same(got, want, "FLOAT"),
                "{} lane {l}: {got:#x} != {want:#x}",
                t.name()
            );
            assert_eq!(w.vgpr(2, l), 0x1234, "VGPRs are not written");
        }
    }
}
