//! Lane layouts: which register, bits and lane hold element `[i][k]` of a matrix operand
//! (A: row `i`; B: column `i`), the sparse compression index of a stored A value, and
//! element `[i][j]` of C/D. Every function maps a matrix coordinate to its storage, the
//! direction AMD's matrix instruction calculator states its formulas in
//! (`amd_matrix_instruction_calculator`, `matrix_calculator.py`, commit e7603ec; the
//! function each layout transcribes is named in its doc).
//!
//! Within one lane, the calculator's layouts store consecutive `k` in consecutive bit
//! fields (the element width apart, continuing into the next register of the tuple); the
//! `*_run` functions give how many, so the executor locates one element per run.

/// Where an element lives: register (relative to the operand's first register), first bit
/// in that register, and lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Slot {
    pub reg: usize,
    pub bit: usize,
    pub lane: usize,
}

fn at(bitpos: usize, lane: usize) -> Slot {
    Slot {
        reg: bitpos / 32,
        bit: bitpos % 32,
        lane,
    }
}

/// Values per lane of a CDNA dense operand: `K * M * blocks / 64` consecutive k.
pub(crate) fn cdna_run(m: usize, k: usize, blocks: usize) -> usize {
    k * m * blocks / 64
}

/// CDNA (gfx90a, gfx942, gfx950) dense MFMA operand, block `b`. Calculator
/// `InstCalcGfx9.__get_input_reg_lanes`: `kl` values per lane, lane `b * M + (k / kl) * M *
/// blocks + i` (the lane groups that hold successive k runs are outermost, blocks inside),
/// value `k % kl` at bits `width * (k % kl)` of the register tuple.
pub(crate) fn cdna(
    m: usize,
    k: usize,
    blocks: usize,
    width: usize,
    b: usize,
    i: usize,
    kk: usize,
) -> Slot {
    let kl = cdna_run(m, k, blocks);
    at((kk % kl) * width, b * m + (kk / kl) * m * blocks + i)
}

/// Run length of a gfx950 `*_f8f6f4` operand of `width`-bit elements.
pub(crate) fn f8f6f4_run(width: usize) -> usize {
    if width == 8 {
        16
    } else {
        32
    }
}

/// gfx950 `v_mfma{,_scale}_f32_{16x16x128,32x32x64}_f8f6f4` operand (one block, 32 values
/// per lane). FP8/BF8 (8 registers): the k range is split in two halves, registers 0-3
/// holding the first and 4-7 the second, and each half has the i8-like layout of 16
/// consecutive k per lane: value `e` of lane `l` is k = `(K/2) * (e / 16) + 16 * (l / M) +
/// e % 16` (AMD ROCm blog "Matrix Core Programming on AMD CDNA3 and CDNA4 architecture",
/// section 5.4, figure 9 and its kernel: `a_reg[i*16 + j] = A[row][(lane/32)*16 + i*32 +
/// j]`). FP4 (4 registers): 32 consecutive k per lane, k = `32 * (l / M) + e` (same blog,
/// section 5.5: lane reads bytes `(lane/32)*16 ..` of its row, two values per byte, low
/// nibble first). FP6 (6 registers, values packed 6 bits apart across register
/// boundaries): not in our sources; documented choice, the FP4 layout, because FP6 and
/// FP4 run in the same time (16/32 cycles, blog section 3 table: only FP8 operands take
/// the longer count), i.e. in one pass over the register tuple as FP4 does.
pub(crate) fn f8f6f4(m: usize, k: usize, width: usize, i: usize, kk: usize) -> Slot {
    if width == 8 {
        let half = k / 2;
        let (h, r) = (kk / half, kk % half);
        at((16 * h + r % 16) * width, (r / 16) * m + i)
    } else {
        at((kk % 32) * width, (kk / 32) * m + i)
    }
}

/// Stored (non-zero) A values per lane of a CDNA SMFMAC: half the dense run.
pub(crate) fn cdna_sparse_run(m: usize, k: usize) -> usize {
    (k / 2) * m / 64
}

/// CDNA SMFMAC sparse A: stored value `c` of row `i` (the pair `c / 2` of values of the
/// 4-wide k group `c / 2`, `c % 2` the first or second). Calculator `_get_reg_lanes` halves
/// K for the sparse A and lays the stored values out as a dense operand; the 16-bit and
/// 8-bit register equations of `_coord_to_input_reg_eqn` ("sparse a") agree.
pub(crate) fn cdna_sparse_a(m: usize, k: usize, width: usize, i: usize, c: usize) -> Slot {
    let kl = cdna_sparse_run(m, k);
    at((c % kl) * width, (c / kl) * m + i)
}

/// Index sets in the CDNA SMFMAC index register: `32 / (2 * values per lane)`. Calculator
/// `get_num_compression_sets` (CDNA3): 4 for 16-bit sources, 2 for 8-bit; the gfx950
/// shapes with twice the values per lane have half as many (LLVM accepts `abid:1` for
/// `v_smfmac_f32_16x16x64_f16`).
pub(crate) fn cdna_index_sets(m: usize, k: usize) -> usize {
    (32 / (2 * cdna_sparse_run(m, k))).max(1)
}

/// The 2-bit compression index of stored value `c` (same lane as the value), in index set
/// `set`: bits `4 * group + 2 * (c % 2)` of the set (calculator `_reg_lane_to_k_coord_eqn`
/// for `k`: 4 bits per 4-wide group; README "Example of Printing Compression Index
/// Information": `K[2][31] = v0{50}.[7:4]` for `v_smfmac_f32_16x16x32_f16`, the second
/// value of the group at the upper two bits; CBSZ = 0 lets ABID pick the set).
pub(crate) fn cdna_index(m: usize, k: usize, i: usize, c: usize, set: usize) -> Slot {
    let kl = cdna_sparse_run(m, k);
    at(set * 2 * kl + 2 * (c % kl), (c / kl) * m + i)
}

/// CDNA C/D element `[i][j]` of block `b` (`out_bits` 32 or 64; a 64-bit element's `reg`
/// is its first register). Calculator `InstCalcGfx9.__get_output_reg_lanes`: 32-bit
/// results in multi-rows of 4 registers by N lanes, 64-bit results in rows of one register
/// pair (so `v_mfma_f64_16x16x4f64` result pair `p` holds rows `4p .. 4p + 3`, one per 16
/// lanes, as AMD's lab notes kernel `dgemm_16x16x16` stores it).
pub(crate) fn cdna_out(m: usize, n: usize, out_bits: usize, b: usize, i: usize, j: usize) -> Slot {
    let h = if out_bits == 64 { 1 } else { 4 };
    let mpr = 64 / n;
    let per_block = (n * m / h).max(1);
    let bpr = 64_usize.div_ceil(per_block);
    let r = b * (m * n / 64) + (i / (h * mpr)) * h + i % h;
    let lane = (b % bpr) * n + ((i / h) % mpr) * bpr * n + j;
    Slot {
        reg: r * out_bits / 32,
        bit: 0,
        lane,
    }
}

/// Consecutive k per register of a GFX12 operand (sparse A: stored values).
pub(crate) fn gfx12_run(width: usize) -> usize {
    32 / width
}

/// GFX12 (gfx1200, gfx1201) WMMA dense A/B operand. Calculator
/// `InstCalcGfx12.__get_input_reg` and `__get_input_lane` (non-sparse cases).
pub(crate) fn gfx12(w64: bool, width: usize, k: usize, i: usize, kk: usize) -> Slot {
    let (reg, lane) = match (w64, width) {
        (false, 16) => (2 * (kk / 8) + (kk / 2) % 2, 16 * ((kk / 4) % 2) + i),
        (false, 8) => ((kk / 4) % 2, 16 * (kk / 8) + i),
        (false, _) if k == 16 => (0, 16 * (kk / 8) + i),
        (false, _) => ((kk / 8) % 2, 16 * (kk / 16) + i),
        (true, 16) => ((kk / 2) % 2, 32 * ((kk / 8) % 2) + 16 * ((kk / 4) % 2) + i),
        (true, 8) => (0, 32 * ((kk / 4) % 2) + 16 * ((kk / 8) % 2) + i),
        // 4-bit K = 16 uses lanes 0-31 only, whatever the wave size.
        (true, _) if k == 16 => (0, 16 * (kk / 8) + i),
        (true, _) => (0, 32 * ((kk / 8) % 2) + 16 * ((kk / 16) % 2) + i),
    };
    Slot {
        reg,
        bit: width * (kk % (32 / width)),
        lane,
    }
}

/// GFX12 SWMMAC sparse A: stored value `c` of row `i` (value `c % 2` of the 4-wide group
/// `c / 2`). Calculator `__get_input_reg` / `__get_input_lane`, sparse A cases (a 16-bit
/// group fills a register, value 0 in the low half).
pub(crate) fn gfx12_sparse_a(w64: bool, width: usize, k: usize, i: usize, c: usize) -> Slot {
    let (kk, s) = (4 * (c / 2), c % 2);
    let (reg, bit, lane) = match (w64, width) {
        (false, 16) => (
            2 * (kk / 16) + (kk / 4) % 2,
            16 * s,
            16 * ((kk / 8) % 2) + i,
        ),
        (false, 8) => (
            (kk / 8) % 2,
            16 * ((kk / 4) % 2) + 8 * s,
            16 * (kk / 16) + i,
        ),
        (false, _) if k == 32 => (0, 8 * ((kk / 4) % 4) + 4 * s, 16 * (kk / 16) + i),
        (false, _) => (
            (kk / 16) % 2,
            8 * ((kk / 4) % 4) + 4 * s,
            16 * (kk / 32) + i,
        ),
        (true, 16) => ((kk / 4) % 2, 16 * s, 16 * (kk / 8) + i),
        (true, 8) => (
            0,
            16 * ((kk / 4) % 2) + 8 * s,
            32 * ((kk / 8) % 2) + 16 * (kk / 16) + i,
        ),
        // 4-bit K = 32: the sparse A uses lanes 0-31 only in wave64.
        (true, _) if k == 32 => (0, 8 * ((kk / 4) % 4) + 4 * s, 16 * (kk / 16) + i),
        (true, _) => (
            0,
            8 * ((kk / 4) % 4) + 4 * s,
            32 * ((kk / 16) % 2) + 16 * (kk / 32) + i,
        ),
    };
    Slot { reg, bit, lane }
}

/// GFX12 SWMMAC dense B. Calculator `__get_input_reg` / `__get_input_lane`, "dense matrix B
/// for sparse instruction".
pub(crate) fn gfx12_sparse_b(w64: bool, width: usize, k: usize, j: usize, kk: usize) -> Slot {
    let (reg, lane) = match (w64, width) {
        (false, 16) => (4 * (kk / 16) + (kk / 2) % 4, 16 * ((kk / 8) % 2) + j),
        (false, 8) => ((kk / 4) % 4, 16 * (kk / 16) + j),
        (false, _) if k == 32 => ((kk / 8) % 2, 16 * (kk / 16) + j),
        (false, _) => ((kk / 8) % 4, 16 * (kk / 32) + j),
        (true, 16) => ((kk / 2) % 4, 16 * (kk / 8) + j),
        (true, 8) => ((kk / 4) % 2, 32 * ((kk / 8) % 2) + 16 * (kk / 16) + j),
        (true, _) if k == 32 => (0, 32 * ((kk / 8) % 2) + 16 * (kk / 16) + j),
        (true, _) => ((kk / 8) % 2, 32 * ((kk / 16) % 2) + 16 * (kk / 32) + j),
    };
    Slot {
        reg,
        bit: width * (kk % (32 / width)),
        lane,
    }
}

/// Index sets in a GFX12 SWMMAC index register (calculator `get_num_compression_sets`;
/// llvm-mc-22 accepts `index_key` below it and rejects the rest).
pub(crate) fn gfx12_index_sets(w64: bool, width: usize, k: usize) -> usize {
    match (w64, width) {
        (false, 4) if k == 64 => 1,
        (false, _) => 2,
        (true, 4) => 2,
        (true, _) => 4,
    }
}

/// The 2-bit compression index of stored value `c` of row `i` in index set `key` (the
/// instruction's `index_key`, its OPSEL): calculator `__get_compression_bits` plus
/// `_get_num_compression_bit_offset` (`key * 32 / sets`), in the lane of the value.
pub(crate) fn gfx12_index(
    w64: bool,
    width: usize,
    k: usize,
    i: usize,
    c: usize,
    key: usize,
) -> Slot {
    let (kk, s) = (4 * (c / 2), c % 2);
    let base = match (w64, width) {
        (false, 16) => 8 * (kk / 16) + 4 * ((kk / 4) % 2),
        (false, 8) => 4 * ((kk / 4) % 4),
        (false, _) if k == 32 => 4 * ((kk / 4) % 4),
        (false, _) => 4 * ((kk / 4) % 8),
        (true, 4) => 4 * ((kk / 4) % 4),
        (true, _) => 4 * ((kk / 4) % 2),
    };
    let sets = gfx12_index_sets(w64, width, k);
    Slot {
        reg: 0,
        bit: key * (32 / sets) + base + 2 * s,
        lane: gfx12_sparse_a(w64, width, k, i, c).lane,
    }
}

/// GFX12 C/D element `[i][j]` (16x16; `out_bits` 32, or 16 for f16/bf16 results, which
/// pack two rows per register). Calculator `InstCalcGfx12.__get_output_reg_lanes`.
pub(crate) fn gfx12_out(w64: bool, out_bits: usize, i: usize, j: usize) -> Slot {
    let lane = if w64 {
        32 * ((i / 4) % 2) + 16 * (i / 8) + j
    } else {
        16 * (i / 8) + j
    };
    let (reg, bit) = match (w64, out_bits) {
        (false, 32) => (i % 8, 0),
        (false, _) => ((i / 2) % 4, 16 * (i % 2)),
        (true, 32) => (i % 4, 0),
        (true, _) => ((i / 2) % 2, 16 * (i % 2)),
    };
    Slot { reg, bit, lane }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// Data points the calculator's README prints, and AMD's published kernels.
    #[test]
    fn documented_entries() {
        // CDNA3 v_smfmac_f32_16x16x32_f16: K[2][31] = v0{50}.[7:4] (its second value at
        // [7:6]); with cbsz 0, abid 3: v0{50}.[31:28].
        let c = 2 * (31 / 4) + 1;
        assert_eq!(cdna_index(16, 32, 2, c, 0), at(6, 50));
        assert_eq!(cdna_index(16, 32, 2, c - 1, 3), at(28, 50));
        // RDNA4 v_swmmac_f32_16x16x32_f16 (wave32): K[2][31] = v0{18}.[15:12]; with
        // OPSEL 1: v0{18}.[31:28].
        assert_eq!(gfx12_index(false, 16, 32, 2, c - 1, 0), at(12, 18));
        assert_eq!(gfx12_index(false, 16, 32, 2, c - 1, 1), at(28, 18));
        // CDNA3 v_mfma_f64_16x16x4_f64 B: lane 16 holds B[1][0] (README BLGP example).
        assert_eq!(cdna(16, 4, 1, 64, 0, 0, 1), at(0, 16));
        // Lab notes dgemm_16x16x16: D pair p, lane l holds row 4p + l / 16.
        assert_eq!(
            cdna_out(16, 16, 64, 0, 4 * 3 + 2, 5),
            Slot {
                reg: 6,
                bit: 0,
                lane: 37
            }
        );
        // Lab notes dgemm_4x4x4_batch: D lane = 16 * row + 4 * block + col.
        assert_eq!(
            cdna_out(4, 4, 64, 3, 2, 1),
            Slot {
                reg: 0,
                bit: 0,
                lane: 45
            }
        );
        // Blog 5.4 (32x32x64 fp8): lane 32 holds A[0][16 .. 32) in v0-3, A[0][48 ..) in v4-7.
        assert_eq!(f8f6f4(32, 64, 8, 0, 16), at(0, 32));
        assert_eq!(f8f6f4(32, 64, 8, 0, 48), at(128, 32));
        // Blog 5.5 (32x32x64 fp4): lane 32 holds A[0][32 .. 64) in v0-3.
        assert_eq!(f8f6f4(32, 64, 4, 0, 33), at(4, 32));
        // RDNA4 16-bit D (wave32): two rows per register, rows 8-15 in lanes 16-31.
        assert_eq!(
            gfx12_out(false, 16, 9, 3),
            Slot {
                reg: 0,
                bit: 16,
                lane: 19
            }
        );
    }

    /// Every layout is one-to-one onto the register tuple and lanes the instruction has
    /// (so a formula typo that sends two elements to one place cannot pass).
    #[test]
    fn layouts_are_bijective() {
        let check =
            |name: &str, n: usize, slots: Vec<Slot>, width: usize, regs: usize, lanes: usize| {
                let mut seen = HashSet::new();
                for s in &slots {
                    assert!(
                        s.reg < regs && s.lane < lanes && s.bit + width <= 32 * (regs - s.reg),
                        "{name}: {s:?}"
                    );
                    for b in 0..width {
                        let p = s.reg * 32 + s.bit + b;
                        assert!(seen.insert((p, s.lane)), "{name}: {s:?} overlaps");
                    }
                }
                assert_eq!(slots.len(), n, "{name}");
            };
        // CDNA dense: every shape of the instruction tables.
        for &(m, k, blocks, width) in &[
            (32, 1, 2, 32),
            (16, 1, 4, 32),
            (4, 1, 16, 32),
            (32, 2, 1, 32),
            (16, 4, 1, 32),
            (32, 4, 2, 16),
            (16, 4, 4, 16),
            (4, 4, 16, 16),
            (32, 8, 1, 16),
            (16, 16, 1, 16),
            (16, 32, 1, 16),
            (32, 16, 1, 16),
            (16, 64, 1, 8),
            (32, 32, 1, 8),
            (16, 4, 1, 64),
            (4, 4, 4, 64),
            (16, 8, 1, 32),
            (32, 4, 1, 32),
            (32, 2, 2, 16),
        ] {
            let regs = (cdna_run(m, k, blocks) * width).div_ceil(32);
            let s = (0..blocks)
                .flat_map(|b| {
                    (0..m).flat_map(move |i| {
                        (0..k).map(move |kk| cdna(m, k, blocks, width, b, i, kk))
                    })
                })
                .collect();
            check("cdna", m * k * blocks, s, width, regs, 64);
        }
        for &(m, k) in &[(16, 128), (32, 64)] {
            for width in [8, 6, 4] {
                let s = (0..m)
                    .flat_map(|i| (0..k).map(move |kk| f8f6f4(m, k, width, i, kk)))
                    .collect();
                check("f8f6f4", m * k, s, width, width, 64);
            }
        }
        for &(m, k, width) in &[
            (16, 32, 16),
            (32, 16, 16),
            (16, 64, 8),
            (32, 32, 8),
            (16, 64, 16),
            (32, 32, 16),
            (16, 128, 8),
            (32, 64, 8),
        ] {
            let regs = (cdna_sparse_run(m, k) * width).div_ceil(32);
            let s = (0..m)
                .flat_map(|i| (0..k / 2).map(move |c| cdna_sparse_a(m, k, width, i, c)))
                .collect();
            check("smfmac A", m * k / 2, s, width, regs, 64);
            let sets = cdna_index_sets(m, k);
            let s = (0..sets)
                .flat_map(|set| {
                    (0..m).flat_map(move |i| (0..k / 2).map(move |c| cdna_index(m, k, i, c, set)))
                })
                .collect();
            check("smfmac index", m * k / 2 * sets, s, 2, 1, 64);
        }
        for &(m, n, blocks, bits) in &[
            (32, 32, 2, 32),
            (16, 16, 4, 32),
            (4, 4, 16, 32),
            (32, 32, 1, 32),
            (16, 16, 1, 32),
            (16, 16, 1, 64),
            (4, 4, 4, 64),
        ] {
            let regs = blocks * m * n / 64 * bits / 32;
            let s = (0..blocks)
                .flat_map(|b| {
                    (0..m).flat_map(move |i| (0..n).map(move |j| cdna_out(m, n, bits, b, i, j)))
                })
                .collect();
            check("cdna D", blocks * m * n, s, bits, regs.max(bits / 32), 64);
        }
        for w64 in [false, true] {
            let lanes = if w64 { 64 } else { 32 };
            for &(width, k) in &[(16usize, 16usize), (8, 16), (4, 16), (4, 32)] {
                let regs = (16 * k * width).div_ceil(32 * lanes).max(1);
                let s = (0..16)
                    .flat_map(|i| (0..k).map(move |kk| gfx12(w64, width, k, i, kk)))
                    .collect();
                check("wmma A/B", 16 * k, s, width, regs, lanes);
            }
            for &(width, k) in &[(16usize, 32usize), (8, 32), (4, 32), (4, 64)] {
                let regs = (16 * k / 2 * width).div_ceil(32 * lanes).max(1);
                let s = (0..16)
                    .flat_map(|i| (0..k / 2).map(move |c| gfx12_sparse_a(w64, width, k, i, c)))
                    .collect();
                check("swmmac A", 16 * k / 2, s, width, regs, lanes);
                let regs = (16 * k * width).div_ceil(32 * lanes).max(1);
                let s = (0..16)
                    .flat_map(|j| (0..k).map(move |kk| gfx12_sparse_b(w64, width, k, j, kk)))
                    .collect();
                check("swmmac B", 16 * k, s, width, regs, lanes);
                let sets = gfx12_index_sets(w64, width, k);
                let s = (0..sets)
                    .flat_map(|key| {
                        (0..16).flat_map(move |i| {
                            (0..k / 2).map(move |c| gfx12_index(w64, width, k, i, c, key))
                        })
                    })
                    .collect();
                check("swmmac index", 16 * k / 2 * sets, s, 2, 1, lanes);
            }
            for bits in [32, 16] {
                let regs = 256 * bits / 32 / lanes;
                let s = (0..16)
                    .flat_map(|i| (0..16).map(move |j| gfx12_out(w64, bits, i, j)))
                    .collect();
                check("wmma D", 256, s, bits, regs, lanes);
            }
        }
    }
}
