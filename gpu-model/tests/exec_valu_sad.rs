//! Sums of absolute differences (`v_sad_u8/hi_u8/u16/u32`, `v_msad_u8`,
//! `v_qsad_pk_u16_u8`, `v_mqsad_pk_u16_u8`, `v_mqsad_u32_u8`) and `v_lerp_u8`, assembled by
//! llvm-mc-22 and run in the executor, against references written from the CDNA4 / RDNA4
//! ISA guides' pseudocode.
//!
//! Clamp on an integer operation saturates to the result's range ("it clamps the result to
//! the largest and smallest representable value", CDNA4 guide 6.5).

#[path = "exec_util/asm.rs"]
mod asm;
#[path = "exec_util/sweep.rs"]
mod sweep;

use gpu_model::exec::Wave;
use gpu_model::isa::Op;
use sweep::{rnd, set64, sweep, targets_with, vgpr64};

/// Interesting 32-bit values: zeros, all-ones, signs, byte and short patterns, randoms.
fn words() -> Vec<u32> {
    let mut v = vec![
        0,
        0xffff_ffff,
        0x8000_0000,
        0x7fff_ffff,
        0x0000_ffff,
        0xffff_0000,
        0x8000_8000,
        0x7fff_7fff,
        0x0101_0101,
        0xff00_ff00,
        0x00ff_00ff,
        0x1234_5678,
    ];
    v.extend((0..20).map(rnd));
    v
}

fn set3(w: &mut Wave, l: usize, c: &[u32; 3]) {
    for (k, &x) in c.iter().enumerate() {
        w.set_vgpr(k, l, x);
    }
}

fn absdiff(x: u32, y: u32) -> u64 {
    (x as i64 - y as i64).unsigned_abs()
}

/// V_SAD_U8 / V_MSAD_U8 sum of the byte differences (no accumulator).
fn sad8(a: u32, b: u32, masked: bool) -> u64 {
    (0..4)
        .map(|k| {
            let (x, y) = ((a >> (8 * k)) & 0xff, (b >> (8 * k)) & 0xff);
            if masked && y == 0 {
                0
            } else {
                absdiff(x, y)
            }
        })
        .sum()
}

fn sat_or_wrap(v: u64, bits: u32, clamp: bool) -> u64 {
    let max = (1u64 << bits) - 1;
    if clamp {
        v.min(max)
    } else {
        v & max
    }
}

#[test]
fn sad_msad_lerp() {
    let cases = sweep::triples(&words());
    type Ref = fn(u32, u32, u32) -> u64;
    let ops: [(Op, &str, Ref); 6] = [
        (Op::VSadU8, "v_sad_u8", |a, b, c| {
            sad8(a, b, false) + c as u64
        }),
        (Op::VSadHiU8, "v_sad_hi_u8", |a, b, c| {
            (sad8(a, b, false) << 16) + c as u64
        }),
        (Op::VSadU16, "v_sad_u16", |a, b, c| {
            absdiff(a & 0xffff, b & 0xffff) + absdiff(a >> 16, b >> 16) + c as u64
        }),
        (Op::VSadU32, "v_sad_u32", |a, b, c| absdiff(a, b) + c as u64),
        (Op::VMsadU8, "v_msad_u8", |a, b, c| {
            sad8(a, b, true) + c as u64
        }),
        (Op::VLerpU8, "v_lerp_u8", |a, b, c| {
            (0..4).fold(0, |r, k| {
                let f = |v: u32| (v >> (8 * k)) & 0xff;
                r | (((f(a) + f(b) + (f(c) & 1)) >> 1) as u64) << (8 * k)
            })
        }),
    ];
    for (op, name, f) in ops {
        for (t, wave) in targets_with(op) {
            let clamps: &[bool] = if op == Op::VLerpU8 {
                &[false]
            } else {
                &[false, true]
            };
            for &clamp in clamps {
                let src = format!(
                    "{name} v10, v0, v1, v2{}",
                    if clamp { " clamp" } else { "" }
                );
                sweep(
                    t,
                    wave,
                    &src,
                    0xf0,
                    &cases,
                    set3,
                    |w, l, &[a, b, c], ctx| {
                        let want = sat_or_wrap(f(a, b, c), 32, clamp) as u32;
                        assert_eq!(w.vgpr(10, l), want, "{ctx} `{src}` {a:#x} {b:#x} {c:#x}");
                    },
                );
            }
        }
    }
}

#[test]
fn qsad_mqsad() {
    let ws = words();
    let cases: Vec<[u64; 3]> = (0..160)
        .map(|k| {
            let w = |j: u32| ws[(rnd(j) % ws.len() as u32) as usize] as u64;
            [
                w(k) | w(k + 500) << 32,
                w(k + 1000),
                w(k + 1500) | w(k + 2000) << 32,
            ]
        })
        .collect();
    for (op, name, masked) in [
        (Op::VQsadPkU16U8, "v_qsad_pk_u16_u8", false),
        (Op::VMqsadPkU16U8, "v_mqsad_pk_u16_u8", true),
    ] {
        for (t, wave) in targets_with(op) {
            for clamp in [false, true] {
                let src = format!(
                    "{name} v[10:11], v[0:1], v2, v[4:5]{}",
                    if clamp { " clamp" } else { "" }
                );
                sweep(
                    t,
                    wave,
                    &src,
                    0xf0,
                    &cases,
                    |w, l, c| {
                        set64(w, 0, l, c[0]);
                        w.set_vgpr(2, l, c[1] as u32);
                        set64(w, 4, l, c[2]);
                    },
                    |w, l, &[a, b, c], ctx| {
                        // Field k: the sad of S0[8k+31:8k] and S1 plus S2[16k+15:16k].
                        let want = (0..4).fold(0u64, |r, k| {
                            let s = sad8((a >> (8 * k)) as u32, b as u32, masked)
                                + ((c >> (16 * k)) & 0xffff);
                            r | sat_or_wrap(s, 16, clamp) << (16 * k)
                        });
                        assert_eq!(vgpr64(w, 10, l), want, "{ctx} `{src}` {a:#x} {b:#x} {c:#x}");
                    },
                );
            }
        }
    }
    for (t, wave) in targets_with(Op::VMqsadU32U8) {
        let src = "v_mqsad_u32_u8 v[10:13], v[0:1], v2, v[4:7]";
        sweep(
            t,
            wave,
            src,
            0xf0,
            &cases,
            |w, l, c| {
                set64(w, 0, l, c[0]);
                w.set_vgpr(2, l, c[1] as u32);
                set64(w, 4, l, c[2]);
                set64(w, 6, l, c[2].rotate_left(7));
            },
            |w, l, &[a, b, c], ctx| {
                let acc = [
                    c as u32,
                    (c >> 32) as u32,
                    c.rotate_left(7) as u32,
                    (c.rotate_left(7) >> 32) as u32,
                ];
                for (k, &acc) in acc.iter().enumerate() {
                    let s = sad8((a >> (8 * k)) as u32, b as u32, true) + acc as u64;
                    assert_eq!(w.vgpr(10 + k, l), s as u32, "{ctx} `{src}` dword {k}");
                }
            },
        );
    }
}
