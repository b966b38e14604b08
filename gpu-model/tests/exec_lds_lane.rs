//! Cross-lane DS instructions and gfx950's transposing LDS reads, assembled by llvm-mc-22
//! and run in the executor (GFX12: wave32 and wave64), with a partial EXEC:
//! - `ds_swizzle_b32` in all four modes against the example tables of the CDNA4 / RDNA4
//!   guides (FFT, rotate) and their pseudocode (quad, bitmask, the other FFT and rotate
//!   patterns); an inactive source lane reads 0;
//! - `ds_permute_b32` / `ds_bpermute_b32` / GFX12 `ds_bpermute_fi_b32`: lane `(ADDR +
//!   offset) / 4 % wave size`; forward: the highest active sender wins, unsent lanes get
//!   0; backward: an inactive source reads 0 (`_fi`: read anyway);
//! - `ds_read_b64_tr_b16/b8/b4` and `ds_read_b96_tr_b6`: the eight hardware checks of AMD
//!   rocRoller's `TransposeLoadsTest` (their LDS layout, lane addresses and expected element
//!   positions, rebuilt here), and a partial EXEC against a 16-lane block transposition
//!   computed here (inactive lanes contribute zeros, a decision documented in
//!   `exec/ds/transpose.rs`).

#[path = "exec_util/asm.rs"]
mod asm;
#[path = "exec_util/lds.rs"]
mod lds;

use gpu_model::{isa, Family, Target};

const KEEP: u32 = 0xdead_beef;

fn data(l: usize) -> u32 {
    0x1000 + l as u32
}

/// Runs `src` with v1 = `addr(l)`, v2 = [`data`], v3 = [`KEEP`] and EXEC `exec`; returns
/// v3 of every lane.
fn run_lanes(t: Target, ws: u32, src: &str, exec: u64, addr: impl Fn(usize) -> u32) -> Vec<u32> {
    let mut mem = lds::image(1);
    let w = lds::run(t, ws, src, &mut mem, |w| {
        w.set_exec(exec);
        for l in 0..ws as usize {
            w.set_vgpr(1, l, addr(l));
            w.set_vgpr(2, l, data(l));
            w.set_vgpr(3, l, KEEP);
        }
    });
    (0..ws as usize).map(|l| w.vgpr(3, l)).collect()
}

/// The guide's example tables (lanes 0..31 hold 1..0x20; entry `i` is what lane `i`
/// receives), as (offset, table).
fn guide_tables() -> Vec<(u32, Vec<u32>)> {
    let parse = |s: &str| {
        s.split(',')
            .map(|x| u32::from_str_radix(x, 16).unwrap())
            .collect()
    };
    vec![
        // FFT, offset[4:0] = 0x00, 0x10, 0x1f.
        (
            0xe000,
            parse(
                "1,11,9,19,5,15,d,1d,3,13,b,1b,7,17,f,1f,2,12,a,1a,6,16,e,1e,4,14,c,1c,8,18,10,20",
            ),
        ),
        (
            0xe010,
            parse(
                "1,9,5,d,3,b,7,f,2,a,6,e,4,c,8,10,11,19,15,1d,13,1b,17,1f,12,1a,16,1e,14,1c,18,20",
            ),
        ),
        (0xe01f, (1..=32).collect()),
        // Rotate by offset[9:5] = 1: left / right (offset[10]), mask 0 / 1.
        (
            0xc020,
            parse(
                "2,3,4,5,6,7,8,9,a,b,c,d,e,f,10,11,12,13,14,15,16,17,18,19,1a,1b,1c,1d,1e,1f,20,1",
            ),
        ),
        (
            0xc420,
            parse(
                "20,1,2,3,4,5,6,7,8,9,a,b,c,d,e,f,10,11,12,13,14,15,16,17,18,19,1a,1b,1c,1d,1e,1f",
            ),
        ),
        (
            0xc021,
            parse(
                "1,4,3,6,5,8,7,a,9,c,b,e,d,10,f,12,11,14,13,16,15,18,17,1a,19,1c,1b,1e,1d,20,1f,2",
            ),
        ),
        (
            0xc421,
            parse(
                "1f,2,1,4,3,6,5,8,7,a,9,c,b,e,d,10,f,12,11,14,13,16,15,18,17,1a,19,1c,1b,1e,1d,20",
            ),
        ),
    ]
}

/// DS_SWIZZLE_B32 pseudocode: the lane lane `i` reads under `offset`.
fn swizzle_ref(offset: u32, i: usize) -> usize {
    let i = i as u32;
    let j = if offset >= 0xe000 {
        let mask = offset & 0x1f;
        let mut rev = 0;
        for b in 0..5 {
            rev |= ((i >> b) & 1) << (4 - b);
        }
        (rev >> mask.count_ones()) | (i & mask) | (i & 0x20)
    } else if offset >= 0xc000 {
        let mask = offset & 0x1f;
        let rot = (offset >> 5) & 0x1f;
        let low = i & 0x1f;
        let moved = (if offset & 0x400 != 0 {
            low + 32 - rot
        } else {
            low + rot
        }) % 32;
        (i & mask) | (moved & !mask & 0x1f) | (i & 0x20)
    } else if offset & 0x8000 != 0 {
        (i & !3) + ((offset >> (2 * (i % 4))) & 3)
    } else {
        let (and, or, xor) = (offset & 0x1f, (offset >> 5) & 0x1f, (offset >> 10) & 0x1f);
        ((((i & 0x1f) & and) | or) ^ xor) | (i & 0x20)
    };
    j as usize
}

#[test]
fn swizzle_matches_the_guide() {
    let mut offsets: Vec<u32> = vec![
        0xe005, 0xe003, 0xc7e0, 0xc3e3, 0xc0f0, 0xc5ff, 0x80e4, 0x801b, 0x841f, 0x041f, 0x7c1f,
        0x00a3, 0x03e0,
    ];
    offsets.extend(guide_tables().iter().map(|(o, _)| o));
    for t in Target::ALL {
        for &ws in lds::waves(t) {
            let full = if ws == 32 { 0xffff_ffff } else { u64::MAX };
            for (k, exec) in [full, lds::exec_mask(ws)].into_iter().enumerate() {
                for &off in &offsets {
                    let src = format!("ds_swizzle_b32 v3, v1 offset:{off:#x}");
                    let got = run_lanes(t, ws, &src, exec, |l| {
                        1 + (l as u32 & 31) + 0x100 * (l as u32 / 32)
                    });
                    for (l, &g) in got.iter().enumerate() {
                        let s = swizzle_ref(off, l);
                        let want = if exec >> l & 1 == 0 {
                            KEEP
                        } else if exec >> s & 1 == 0 {
                            0
                        } else {
                            1 + (s as u32 & 31) + 0x100 * (s as u32 / 32)
                        };
                        assert_eq!(g, want, "{} w{ws} `{src}` lane {l}", t.name());
                    }
                    if k == 0 {
                        if let Some((_, table)) =
                            guide_tables().into_iter().find(|(o, _)| *o == off)
                        {
                            assert_eq!(
                                &got[..32],
                                &table[..],
                                "{} w{ws} `{src}`: the guide's table",
                                t.name()
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn permutes_match_the_pseudocode() {
    for t in Target::ALL {
        for &ws in lds::waves(t) {
            let n = ws as usize;
            let exec = lds::exec_mask(ws);
            // Multiples of 4, low bits set, high bits set, an offset.
            let addr = |l: usize| match l % 4 {
                0 => 4 * ((l * 5 + 3) % n) as u32,
                1 => 4 * ((l * 7) % n) as u32 + 3,
                2 => 0xfff0_0000 | (4 * ((l + 9) % n)) as u32,
                _ => 4 * (n - 1 - l) as u32,
            };
            for offset in [0u32, 8, 0xfffc] {
                let lane = |l: usize| (addr(l).wrapping_add(offset) / 4) as usize % n;
                let src = format!("ds_permute_b32 v3, v1, v2 offset:{offset}");
                let got = run_lanes(t, ws, &src, exec, addr);
                let mut tmp = vec![0u32; n];
                for l in lds::active(exec, ws) {
                    tmp[lane(l)] = data(l);
                }
                for (l, &g) in got.iter().enumerate() {
                    let want = if exec >> l & 1 != 0 { tmp[l] } else { KEEP };
                    assert_eq!(g, want, "{} w{ws} `{src}` lane {l}", t.name());
                }
                for fi in [false, true] {
                    let m = if fi {
                        "ds_bpermute_fi_b32"
                    } else {
                        "ds_bpermute_b32"
                    };
                    if !isa::ops(t).iter().any(|o| o.name() == m) {
                        assert!(fi && t.family() != Family::Gfx12, "{m} on {}", t.name());
                        continue;
                    }
                    let src = format!("{m} v3, v1, v2 offset:{offset}");
                    let got = run_lanes(t, ws, &src, exec, addr);
                    for (l, &g) in got.iter().enumerate() {
                        let s = lane(l);
                        let want = if exec >> l & 1 == 0 {
                            KEEP
                        } else if fi || exec >> s & 1 != 0 {
                            data(s)
                        } else {
                            0
                        };
                        assert_eq!(g, want, "{} w{ws} `{src}` lane {l}", t.name());
                    }
                }
            }
        }
    }
}

/// (mnemonic, element bits, bits a lane reads)
const TR: [(&str, usize, usize); 4] = [
    ("ds_read_b64_tr_b16", 16, 64),
    ("ds_read_b64_tr_b8", 8, 64),
    ("ds_read_b64_tr_b4", 4, 64),
    ("ds_read_b96_tr_b6", 6, 96),
];

/// Element `e` of `bits` bits in a little-endian bit string of dwords.
fn get(words: &[u32], bits: usize, e: usize) -> u32 {
    let mut v = 0;
    for b in 0..bits {
        let p = e * bits + b;
        v |= ((words[p / 32] >> (p % 32)) & 1) << b;
    }
    v
}

fn put(words: &mut [u32], bits: usize, e: usize, v: u32) {
    for b in 0..bits {
        let p = e * bits + b;
        words[p / 32] = (words[p / 32] & !(1 << (p % 32))) | ((v >> b) & 1) << (p % 32);
    }
}

/// rocRoller `TransposeLoadsTest::executeTransposeLoad` for one shape: a MN x K matrix of
/// `bits`-bit elements stored row-major (for b6, each 96-bit block padded to 128 bits);
/// lane `l` loads at `trLoadIdx[l]` blocks, twice (the second `MN` blocks further); the
/// results, register by register (b6: lane by lane), must hold the matrix at the test's
/// expected positions.
fn rocroller_case(bits: usize, lane_bits: usize, mn: usize, kk: usize, mnemonic: &str) {
    let t = Target::Gfx950;
    let per = lane_bits / bits;
    let block = if bits == 6 { 16 } else { lane_bits / 8 };
    let matrix: Vec<u32> = (0..mn * kk)
        .map(|k| asm::hash(k as u32 + 99) % (1 << bits))
        .collect();
    // LDS: block q holds elements [per*q, per*q + per).
    let mut mem = vec![0u8; lds::LDS_BYTES];
    for q in 0..mn * kk / per {
        let mut words = [0u32; 3];
        for e in 0..per {
            put(&mut words, bits, e, matrix[q * per + e]);
        }
        for (k, b) in words
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .take(lane_bits / 8)
            .enumerate()
        {
            mem[q * block + k] = b;
        }
    }
    let (nx1, ny0) = (mn / 16, per);
    let (nx0, ny1) = (4 / nx1, 16 / ny0);
    let mut idx = [0usize; 64];
    for x0 in 0..nx0 {
        for x1 in 0..nx1 {
            for y0 in 0..ny0 {
                for y1 in 0..ny1 {
                    idx[nx1 * ny0 * ny1 * x0 + ny0 * ny1 * x1 + ny1 * y0 + y1] =
                        2 * nx1 * ny0 * ny1 * x0 + nx1 * ny1 * y0 + ny1 * x1 + y1;
                }
            }
        }
    }
    let dw = lane_bits / 32;
    let src = format!(
        "{mnemonic} v[4:{}], v1\n{mnemonic} v[8:{}], v1 offset:{}",
        3 + dw,
        7 + dw,
        mn * block
    );
    let w = lds::run(t, 64, &src, &mut mem, |w| {
        w.set_exec(u64::MAX);
        for (l, &q) in idx.iter().enumerate() {
            w.set_vgpr(1, l, (q * block) as u32);
        }
    });
    // The kernel's result buffer: b6 lane by lane (12 bytes each), else register-major.
    let mut result = vec![0u32; 2 * 64 * dw];
    for (load, base) in [(0, 4), (1, 8)] {
        for l in 0..64 {
            for r in 0..dw {
                let v = w.vgpr(base + r, l);
                let at = if bits == 6 {
                    (load * 64 + l) * dw + r
                } else {
                    (load * dw + r) * 64 + l
                };
                result[at] = v;
            }
        }
    }
    let (ny0, ny2) = if bits == 6 {
        (2, 96 / bits)
    } else {
        (4, 32 / bits)
    };
    let (ny1, nx0) = (kk / ny2 / ny0, mn / 16);
    for y0 in 0..ny0 {
        for y1 in 0..ny1 {
            for x0 in 0..nx0 {
                for x1 in 0..4 {
                    for x2 in 0..4 {
                        for y2 in 0..ny2 {
                            let d = matrix[y1 * ny0 * ny2 * nx0 * 16
                                + y0 * ny2 * nx0 * 16
                                + y2 * nx0 * 16
                                + x0 * 16
                                + x1 * 4
                                + x2];
                            let r = get(
                                &result,
                                bits,
                                y0 * ny1 * nx0 * ny2 * 16
                                    + y1 * nx0 * ny2 * 16
                                    + x0 * 16 * ny2
                                    + x1 * 4 * ny2
                                    + x2 * ny2
                                    + y2,
                            );
                            assert_eq!(
                                r, d,
                                "{mnemonic} {mn}x{kk}: y {y0} {y1} {y2} x {x0} {x1} {x2}"
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn transposing_reads_pass_rocrollers_hardware_checks() {
    // rocRoller's shapes: b16 16x32 and 32x16, b8 16x64 and 32x32, b6 16x128 and 32x64,
    // b4 16x128 and 32x64.
    for (m, bits, lane_bits) in TR {
        let shapes = match bits {
            16 => [(16, 32), (32, 16)],
            8 => [(16, 64), (32, 32)],
            _ => [(16, 128), (32, 64)],
        };
        for (mn, kk) in shapes {
            rocroller_case(bits, lane_bits, mn, kk, m);
        }
    }
    // Only gfx950 has them.
    for t in Target::ALL {
        let has = isa::ops(t).iter().any(|o| o.name() == "ds_read_b64_tr_b16");
        assert_eq!(has, t == Target::Gfx950, "{}", t.name());
    }
}

#[test]
fn transposing_reads_with_inactive_and_out_of_range_lanes() {
    let t = Target::Gfx950;
    let exec = lds::exec_mask(64);
    for (m, bits, lane_bits) in TR {
        let dw = lane_bits / 32;
        let per = lane_bits / bits;
        let src = format!("{m} v[4:{}], v1 offset:8", 3 + dw);
        let addr = |l: usize| lds::lane_addr(l, 16);
        let mut mem = lds::image(bits as u32);
        let model = mem.clone();
        // Each lane's elements, zero for an inactive lane.
        let lane_words = |l: usize| -> Vec<u32> {
            (0..dw)
                .map(|k| {
                    if exec >> l & 1 == 0 {
                        0
                    } else {
                        lds::rd(&model, u64::from(addr(l)) + 8 + 4 * k as u64, 4) as u32
                    }
                })
                .collect()
        };
        let w = lds::run(t, 64, &src, &mut mem, |w| {
            for l in 0..64 {
                w.set_vgpr(1, l, addr(l));
                for r in 4..7 {
                    w.set_vgpr(r, l, KEEP);
                }
            }
        });
        for g in 0..4 {
            // The block's elements as a 16 x per matrix (lane, element), read back as a
            // per x 16 matrix and transposed: lane t's element k is row k, column t.
            let flat: Vec<u32> = (0..16)
                .flat_map(|s| (0..per).map(move |e| (s, e)))
                .map(|(s, e)| get(&lane_words(16 * g + s), bits, e))
                .collect();
            for tl in 0..16 {
                let l = 16 * g + tl;
                let mut want = vec![0u32; dw];
                for k in 0..per {
                    put(&mut want, bits, k, flat[k * 16 + tl]);
                }
                if exec >> l & 1 == 0 {
                    want = vec![KEEP; dw];
                }
                let got: Vec<u32> = (0..dw).map(|r| w.vgpr(4 + r, l)).collect();
                assert_eq!(got, want, "`{src}` lane {l}");
            }
        }
    }
}
