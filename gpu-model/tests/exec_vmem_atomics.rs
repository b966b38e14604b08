//! Vector-memory atomics added for the packed 16-bit adds and the GFX12 subtract/minimum
//! forms, assembled by llvm-mc-22 and run in the executor on every target that has them
//! (GFX12 in wave32 and wave64), through buffer, global and flat addressing, returning
//! the pre-operation value. The reference is the ISA pseudocode (CDNA3/RDNA4):
//! - `pk_add_f16`/`pk_add_bf16`: `dst[15:0] = src[15:0] + tmp[15:0]`, `dst[31:16] = ...`,
//!   each half an IEEE add rounded to nearest even (computed here in f64, exact for two
//!   16-bit operands, then rounded once);
//! - `sub_clamp_u32`: `old < data ? 0 : old - data`; `cond_sub_u32`: `old >= data ? old -
//!   data : old`;
//! - `min_num_f32`/`max_num_f32`: a NaN operand loses, two NaNs give the data operand
//!   quieted, `-0 < +0`.
//!
//! Edge values per lane: NaNs (quiet and signalling), ±0, ±infinity, denormals, values
//! that overflow f16/bf16, and equal operands.

#[path = "exec_util/asm.rs"]
mod asm;

use gpu_model::exec::Wave;
use gpu_model::memory::DeviceMemory;
use gpu_model::{Family, Target};

#[derive(Clone, Copy, Debug)]
enum Op {
    PkAddF16,
    PkAddBf16,
    SubClamp,
    CondSub,
    MinNum,
    MaxNum,
}

fn mnemonic(op: Op) -> &'static str {
    match op {
        Op::PkAddF16 => "pk_add_f16",
        Op::PkAddBf16 => "pk_add_bf16",
        Op::SubClamp => "sub_clamp_u32",
        Op::CondSub => "cond_sub_u32",
        Op::MinNum => "min_num_f32",
        Op::MaxNum => "max_num_f32",
    }
}

/// `x` rounded to f32 with round to odd: a later rounding to f16 or bf16 (24 bits >=
/// 11 + 2) is then the one rounding of `x`. `half`'s `from_f64` rounds twice (through f32
/// with F16C) or ignores the low 32 mantissa bits as a sticky bit (its fallbacks and
/// `bf16::from_f64`); harmless for one addition of two 16-bit values, but the
/// conversion is written to be right for any f64.
fn odd_f32(x: f64) -> f32 {
    let t = x as f32;
    if !t.is_finite() || t as f64 == x {
        return t;
    }
    let mut bits = t.to_bits();
    if (t as f64).abs() > x.abs() {
        bits -= 1;
    }
    f32::from_bits(bits | 1)
}

fn f16_add(a: u16, b: u16) -> u16 {
    let f = |x: u16| half::f16::from_bits(x).to_f64();
    half::f16::from_f32(odd_f32(f(a) + f(b))).to_bits()
}

fn bf16_add(a: u16, b: u16) -> u16 {
    let f = |x: u16| half::bf16::from_bits(x).to_f64();
    half::bf16::from_f32(odd_f32(f(a) + f(b))).to_bits()
}

fn f32_min_max(old: u32, src: u32, max: bool) -> u32 {
    let (t, s) = (f32::from_bits(old), f32::from_bits(src));
    let neg = |x: u32| x >> 31 != 0;
    match (s.is_nan(), t.is_nan()) {
        (true, true) => src | 0x0040_0000,
        (true, false) => old,
        (false, true) => src,
        _ => {
            let zeros = t == 0.0 && s == 0.0;
            let take = if max {
                s > t || (zeros && !neg(src) && neg(old))
            } else {
                s < t || (zeros && neg(src) && !neg(old))
            };
            if take {
                src
            } else {
                old
            }
        }
    }
}

/// The new memory value, written as the pseudocode reads.
#[allow(clippy::implicit_saturating_sub)]
fn apply(op: Op, old: u32, src: u32) -> u32 {
    let halves = |f: fn(u16, u16) -> u16| {
        f(old as u16, src as u16) as u32 | (f((old >> 16) as u16, (src >> 16) as u16) as u32) << 16
    };
    match op {
        Op::PkAddF16 => halves(f16_add),
        Op::PkAddBf16 => halves(bf16_add),
        Op::SubClamp => {
            if old < src {
                0
            } else {
                old - src
            }
        }
        Op::CondSub => {
            if old >= src {
                old - src
            } else {
                old
            }
        }
        Op::MinNum => f32_min_max(old, src, false),
        Op::MaxNum => f32_min_max(old, src, true),
    }
}

/// Equality where NaNs of the operation's format match NaNs.
fn same(op: Op, a: u32, b: u32) -> bool {
    let nan16 = |h: u32, bf: bool| {
        if bf {
            h & 0x7f80 == 0x7f80 && h & 0x7f != 0
        } else {
            h & 0x7c00 == 0x7c00 && h & 0x3ff != 0
        }
    };
    match op {
        Op::PkAddF16 | Op::PkAddBf16 => {
            let bf = matches!(op, Op::PkAddBf16);
            (0..2).all(|k| {
                let (x, y) = ((a >> (16 * k)) & 0xffff, (b >> (16 * k)) & 0xffff);
                x == y || (nan16(x, bf) && nan16(y, bf))
            })
        }
        _ => a == b,
    }
}

/// (old, data) of lane `l` for `op`.
fn operands(op: Op, l: usize) -> (u32, u32) {
    let h = asm::hash(l as u32 * 7 + 1);
    let g = asm::hash(l as u32 * 13 + 5);
    match op {
        Op::PkAddF16 => {
            const E: [u16; 10] = [
                0x7e00, 0x7c01, 0x8000, 0x0000, 0x7c00, 0xfc00, 0x0001, 0x7bff, 0x3c00, 0x03ff,
            ];
            let pick = |x: u32| {
                if x.is_multiple_of(3) {
                    E[(x as usize / 3) % E.len()]
                } else {
                    x as u16
                }
            };
            (
                pick(h) as u32 | (pick(h >> 8) as u32) << 16,
                pick(g) as u32 | (pick(g >> 9) as u32) << 16,
            )
        }
        Op::PkAddBf16 => {
            const E: [u16; 10] = [
                0x7fc0, 0x7f81, 0x8000, 0x0000, 0x7f80, 0xff80, 0x0001, 0x7f7f, 0x3f80, 0x007f,
            ];
            let pick = |x: u32| {
                if x.is_multiple_of(3) {
                    E[(x as usize / 3) % E.len()]
                } else {
                    x as u16
                }
            };
            (
                pick(h) as u32 | (pick(h >> 8) as u32) << 16,
                pick(g) as u32 | (pick(g >> 9) as u32) << 16,
            )
        }
        Op::SubClamp | Op::CondSub => match l % 4 {
            0 => (h, h),
            1 => (h % 1000, g % 1000),
            2 => (0, g),
            _ => (h, g),
        },
        Op::MinNum | Op::MaxNum => {
            const E: [u32; 10] = [
                0x7fc0_0000,
                0x7f80_0001,
                0x8000_0000,
                0x0000_0000,
                0x7f80_0000,
                0xff80_0000,
                0x0000_0001,
                0x8000_0001,
                0x3f80_0000,
                0xbf80_0000,
            ];
            (E[l % 10], E[(l / 10 + 3 * l) % 10])
        }
    }
}

/// Runs `line` (an atomic returning into v1 whose lane address is 4 * lane) and checks
/// memory and the returned values.
fn check(t: Target, wave: u32, op: Op, line: &str) {
    let mut mem = DeviceMemory::new();
    let base = mem.allocate(0x1000, 256).unwrap();
    let lanes = wave as usize;
    let exec: u64 = if wave == 32 {
        0xfeff_fffd
    } else {
        0xffff_7fff_feff_fffd
    };
    for l in 0..64 {
        mem.write(base + 4 * l as u64, &operands(op, l).0.to_le_bytes())
            .unwrap();
    }
    let code = asm::assemble_wave(t, wave, &format!("s_mov_b32 s12, 0\n{line}"));
    let w = asm::run_with(t, wave, &code, &mem, &mut [0u8; 64], |w: &mut Wave| {
        w.set_sgpr(4, base as u32);
        w.set_sgpr(5, (base >> 32) as u32 & 0xffff);
        w.set_sgpr(6, 0x1000);
        w.set_sgpr(
            7,
            if t.family() == Family::Gfx9 {
                4 << 15
            } else {
                3 << 28
            },
        );
        for l in 0..64 {
            w.set_vgpr(0, l, 4 * l as u32);
            w.set_vgpr(1, l, operands(op, l).1);
            let a = base + 4 * l as u64;
            w.set_vgpr(2, l, a as u32);
            w.set_vgpr(3, l, (a >> 32) as u32);
        }
        w.set_exec(exec);
    });
    for l in 0..64 {
        let (old, src) = operands(op, l);
        let mut b = [0u8; 4];
        mem.read(base + 4 * l as u64, &mut b).unwrap();
        let got = u32::from_le_bytes(b);
        let active = l < lanes && exec >> l & 1 != 0;
        let want = if active { apply(op, old, src) } else { old };
        assert!(
            same(op, got, want),
            "{} wave{wave} `{line}` lane {l}: memory {got:#x}, expected {want:#x} (old {old:#x}, data {src:#x})",
            t.name()
        );
        if active {
            assert_eq!(
                w.vgpr(1, l),
                old,
                "{} `{line}` lane {l} returns the old value",
                t.name()
            );
        } else if l < lanes {
            assert_eq!(w.vgpr(1, l), src, "{} `{line}` inactive lane {l}", t.name());
        }
    }
}

#[test]
fn packed_16_bit_adds_gfx9() {
    for t in [Target::Gfx90a, Target::Gfx942, Target::Gfx950] {
        let ret = if t == Target::Gfx90a { "glc" } else { "sc0" };
        let mut ops = vec![
            format!("buffer_atomic_pk_add_f16 v1, v0, s[4:7], 0 offen {ret}"),
            format!("global_atomic_pk_add_f16 v1, v[2:3], v1, off {ret}"),
        ];
        if t != Target::Gfx90a {
            ops.push(format!(
                "global_atomic_pk_add_bf16 v1, v[2:3], v1, off {ret}"
            ));
            ops.push(format!("flat_atomic_pk_add_f16 v1, v[2:3], v1 {ret}"));
            ops.push(format!("flat_atomic_pk_add_bf16 v1, v[2:3], v1 {ret}"));
        }
        if t == Target::Gfx950 {
            ops.push(format!(
                "buffer_atomic_pk_add_bf16 v1, v0, s[4:7], 0 offen {ret}"
            ));
        }
        for line in &ops {
            let op = if line.contains("bf16") {
                Op::PkAddBf16
            } else {
                Op::PkAddF16
            };
            check(t, 64, op, line);
        }
    }
}

#[test]
fn gfx12_atomics() {
    for t in [Target::Gfx1200, Target::Gfx1201] {
        for wave in [32, 64] {
            for op in [
                Op::PkAddF16,
                Op::PkAddBf16,
                Op::SubClamp,
                Op::CondSub,
                Op::MinNum,
                Op::MaxNum,
            ] {
                let m = mnemonic(op);
                check(
                    t,
                    wave,
                    op,
                    &format!("buffer_atomic_{m} v1, v0, s[4:7], s12 offen th:TH_ATOMIC_RETURN"),
                );
                check(
                    t,
                    wave,
                    op,
                    &format!("global_atomic_{m} v1, v[2:3], v1, off th:TH_ATOMIC_RETURN"),
                );
            }
        }
    }
}
