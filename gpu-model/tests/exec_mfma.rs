//! CDNA matrix cores: every MFMA, SMFMAC and scaled MFMA of gfx90a, gfx942 and gfx950,
//! assembled by llvm-mc-22 and run in the executor, against a matrix product computed here
//! in f64.
//!
//! The operands are random element codes in every register slot (f16 with every exponent,
//! the 8-, 6- and 4-bit floats over all their finite codes, f32/bf16/f64 with spread
//! exponents: rounding is visible). This file reads them back as matrices through its own
//! statement of the hardware layout, in the register-to-matrix direction (the executor
//! states it the other way): AMD's matrix instruction calculator for gfx9 (a lane holds
//! `kl = K * M * blocks / 64` consecutive k of row/column `l % M` of block `(l / M) %
//! blocks`, lane group `l / (M * blocks)` holding the k run `kl * group`; 32-bit results
//! in rows of 4 registers by N lanes, 64-bit ones a register pair per row, `v_mfma_f64_16x16x4`
//! pair `p` holding rows `4p .. 4p + 3` one per 16 lanes as AMD's lab notes kernel reads
//! it), AMD's CDNA4 matrix-core blog for the `f8f6f4` operands (fp8: two k halves of the
//! i8-like layout; fp4 and, our documented choice, fp6: 32 consecutive k per lane) and
//! E8M0 scales (lane `kb * M + i`), the calculator's compression-index layout for SMFMAC.
//! The values are decoded with this file's own decoders (`exec_util/mma.rs`), so a wrong
//! bias, a transposed operand or a swapped half fails. (A k order A and B share is
//! invisible in `A * B`; it shows where k blocks matter: sparse groups, E8M0 scale blocks,
//! `f8f6f4` operands of different formats, all tested here.)

#[path = "exec_util/asm.rs"]
mod asm;
#[path = "exec_util/mma.rs"]
mod mma;

use gpu_model::exec::Wave;
use gpu_model::Target;
use mma::{Fmt, Out, Rng, Want};
use Target::{Gfx90a as P, Gfx942 as C, Gfx950 as N};

/// (targets, mnemonic, blocks): every CDNA matrix mnemonic of the ISA tables.
const OPS: &[(&[Target], &str, usize)] = &[
    (&[P], "v_mfma_f32_32x32x1f32", 2),
    (&[P], "v_mfma_f32_16x16x1f32", 4),
    (&[P], "v_mfma_f32_4x4x1f32", 16),
    (&[P], "v_mfma_f32_32x32x2f32", 1),
    (&[P], "v_mfma_f32_16x16x4f32", 1),
    (&[P], "v_mfma_f32_32x32x4f16", 2),
    (&[P], "v_mfma_f32_16x16x4f16", 4),
    (&[P], "v_mfma_f32_4x4x4f16", 16),
    (&[P], "v_mfma_f32_32x32x8f16", 1),
    (&[P], "v_mfma_f32_16x16x16f16", 1),
    (&[P], "v_mfma_i32_32x32x4i8", 2),
    (&[P], "v_mfma_i32_16x16x4i8", 4),
    (&[P], "v_mfma_i32_4x4x4i8", 16),
    (&[P], "v_mfma_i32_32x32x8i8", 1),
    (&[P], "v_mfma_i32_16x16x16i8", 1),
    (&[P], "v_mfma_f32_32x32x2bf16", 2),
    (&[P], "v_mfma_f32_16x16x2bf16", 4),
    (&[P], "v_mfma_f32_4x4x2bf16", 16),
    (&[P], "v_mfma_f32_32x32x4bf16", 1),
    (&[P], "v_mfma_f32_16x16x8bf16", 1),
    (&[P], "v_mfma_f32_32x32x4bf16_1k", 2),
    (&[P], "v_mfma_f32_16x16x4bf16_1k", 4),
    (&[P], "v_mfma_f32_4x4x4bf16_1k", 16),
    (&[P], "v_mfma_f32_32x32x8bf16_1k", 1),
    (&[P], "v_mfma_f32_16x16x16bf16_1k", 1),
    (&[P], "v_mfma_f64_16x16x4f64", 1),
    (&[P], "v_mfma_f64_4x4x4f64", 4),
    (&[C, N], "v_mfma_f32_32x32x1_2b_f32", 2),
    (&[C, N], "v_mfma_f32_16x16x1_4b_f32", 4),
    (&[C, N], "v_mfma_f32_4x4x1_16b_f32", 16),
    (&[C, N], "v_mfma_f32_32x32x2_f32", 1),
    (&[C, N], "v_mfma_f32_16x16x4_f32", 1),
    (&[C], "v_mfma_f32_16x16x8_xf32", 1),
    (&[C], "v_mfma_f32_32x32x4_xf32", 1),
    (&[C, N], "v_mfma_f32_32x32x4_2b_f16", 2),
    (&[C, N], "v_mfma_f32_16x16x4_4b_f16", 4),
    (&[C, N], "v_mfma_f32_4x4x4_16b_f16", 16),
    (&[C, N], "v_mfma_f32_32x32x8_f16", 1),
    (&[C, N], "v_mfma_f32_16x16x16_f16", 1),
    (&[C, N], "v_mfma_i32_32x32x4_2b_i8", 2),
    (&[C, N], "v_mfma_i32_16x16x4_4b_i8", 4),
    (&[C, N], "v_mfma_i32_4x4x4_16b_i8", 16),
    (&[C, N], "v_mfma_i32_32x32x16_i8", 1),
    (&[C, N], "v_mfma_i32_16x16x32_i8", 1),
    (&[C, N], "v_mfma_f32_32x32x4_2b_bf16", 2),
    (&[C, N], "v_mfma_f32_16x16x4_4b_bf16", 4),
    (&[C, N], "v_mfma_f32_4x4x4_16b_bf16", 16),
    (&[C, N], "v_mfma_f32_32x32x8_bf16", 1),
    (&[C, N], "v_mfma_f32_16x16x16_bf16", 1),
    (&[C, N], "v_mfma_f64_16x16x4_f64", 1),
    (&[C, N], "v_mfma_f64_4x4x4_4b_f64", 4),
    (&[C, N], "v_mfma_f32_16x16x32_fp8_fp8", 1),
    (&[C, N], "v_mfma_f32_16x16x32_fp8_bf8", 1),
    (&[C, N], "v_mfma_f32_16x16x32_bf8_fp8", 1),
    (&[C, N], "v_mfma_f32_16x16x32_bf8_bf8", 1),
    (&[C, N], "v_mfma_f32_32x32x16_fp8_fp8", 1),
    (&[C, N], "v_mfma_f32_32x32x16_fp8_bf8", 1),
    (&[C, N], "v_mfma_f32_32x32x16_bf8_fp8", 1),
    (&[C, N], "v_mfma_f32_32x32x16_bf8_bf8", 1),
    (&[N], "v_mfma_f32_16x16x32_f16", 1),
    (&[N], "v_mfma_f32_32x32x16_f16", 1),
    (&[N], "v_mfma_f32_16x16x32_bf16", 1),
    (&[N], "v_mfma_f32_32x32x16_bf16", 1),
    (&[N], "v_mfma_i32_16x16x64_i8", 1),
    (&[N], "v_mfma_i32_32x32x32_i8", 1),
    (&[N], "v_mfma_f32_16x16x128_f8f6f4", 1),
    (&[N], "v_mfma_f32_32x32x64_f8f6f4", 1),
    (&[N], "v_mfma_scale_f32_16x16x128_f8f6f4", 1),
    (&[N], "v_mfma_scale_f32_32x32x64_f8f6f4", 1),
    (&[C, N], "v_smfmac_f32_16x16x32_f16", 1),
    (&[C, N], "v_smfmac_f32_32x32x16_f16", 1),
    (&[C, N], "v_smfmac_f32_16x16x32_bf16", 1),
    (&[C, N], "v_smfmac_f32_32x32x16_bf16", 1),
    (&[C, N], "v_smfmac_i32_16x16x64_i8", 1),
    (&[C, N], "v_smfmac_i32_32x32x32_i8", 1),
    (&[C, N], "v_smfmac_f32_16x16x64_fp8_fp8", 1),
    (&[C, N], "v_smfmac_f32_16x16x64_fp8_bf8", 1),
    (&[C, N], "v_smfmac_f32_16x16x64_bf8_fp8", 1),
    (&[C, N], "v_smfmac_f32_16x16x64_bf8_bf8", 1),
    (&[C, N], "v_smfmac_f32_32x32x32_fp8_fp8", 1),
    (&[C, N], "v_smfmac_f32_32x32x32_fp8_bf8", 1),
    (&[C, N], "v_smfmac_f32_32x32x32_bf8_fp8", 1),
    (&[C, N], "v_smfmac_f32_32x32x32_bf8_bf8", 1),
    (&[N], "v_smfmac_f32_16x16x64_f16", 1),
    (&[N], "v_smfmac_f32_32x32x32_f16", 1),
    (&[N], "v_smfmac_f32_16x16x64_bf16", 1),
    (&[N], "v_smfmac_f32_32x32x32_bf16", 1),
    (&[N], "v_smfmac_i32_16x16x128_i8", 1),
    (&[N], "v_smfmac_i32_32x32x64_i8", 1),
    (&[N], "v_smfmac_f32_16x16x128_fp8_fp8", 1),
    (&[N], "v_smfmac_f32_16x16x128_fp8_bf8", 1),
    (&[N], "v_smfmac_f32_16x16x128_bf8_fp8", 1),
    (&[N], "v_smfmac_f32_16x16x128_bf8_bf8", 1),
    (&[N], "v_smfmac_f32_32x32x64_fp8_fp8", 1),
    (&[N], "v_smfmac_f32_32x32x64_fp8_bf8", 1),
    (&[N], "v_smfmac_f32_32x32x64_bf8_fp8", 1),
    (&[N], "v_smfmac_f32_32x32x64_bf8_bf8", 1),
];

/// One instruction under test and its modifiers.
#[derive(Clone)]
struct Case {
    target: Target,
    name: &'static str,
    m: usize,
    k: usize,
    blocks: usize,
    a: Fmt,
    b: Fmt,
    out: Out,
    sparse: bool,
    f8f6f4: bool,
    cbsz: u32,
    abid: u32,
    blgp: u32,
    /// gfx942/gfx950 f64: negate A, B, C.
    neg: u32,
    agpr: bool,
    /// D is C's registers.
    in_place: bool,
    /// Scaled MFMA: (A byte, B byte) and where the scales come from.
    scale: Option<(u32, u32, ScaleFrom)>,
    /// A few infinities and NaNs among the sources.
    specials: bool,
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum ScaleFrom {
    /// v17 (A) and v18 (B), per lane.
    Vgprs,
    /// s4 (A) and the inline constant 1.0 (B: bits 0x3f800000). LLVM 22's assembler
    /// takes only VGPRs there (the fields are 9-bit source codes): the test patches the
    /// codes into the encoding of the VGPR form.
    Scalars,
}

/// `MxNxK` of a mnemonic.
fn dims(name: &str) -> (usize, usize) {
    let s = name
        .split('_')
        .find(|p| p.matches('x').count() == 2)
        .expect("MxNxK");
    let v: Vec<usize> = s
        .split('x')
        .map(|d| {
            d.chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
                .parse()
                .unwrap()
        })
        .collect();
    (v[0], v[2])
}

fn f8(target: Target, bf8: bool) -> Fmt {
    match (target == C, bf8) {
        (true, false) => Fmt::Fp8Fnuz,
        (true, true) => Fmt::Bf8Fnuz,
        (false, false) => Fmt::Fp8,
        (false, true) => Fmt::Bf8,
    }
}

fn f8f6f4_fmt(code: u32) -> Fmt {
    [Fmt::Fp8, Fmt::Bf8, Fmt::Fp6, Fmt::Bf6, Fmt::Fp4][code as usize]
}

fn case(target: Target, name: &'static str, blocks: usize) -> Case {
    let (m, k) = dims(name);
    let out = if name.contains("_i32_") {
        Out::I32
    } else if name.contains("_f64_") {
        Out::F64
    } else {
        Out::F32
    };
    // The source type after `MxNxK`, without a `_Nb_` block count or `_1k` suffix.
    let ty = &name[name.rfind(&format!("x{k}")).unwrap() + 1 + k.to_string().len()..];
    let ty = ty.trim_start_matches('_').trim_end_matches("_1k");
    let ty = match ty.split_once("b_") {
        Some((n, rest)) if n.chars().all(|c| c.is_ascii_digit()) => rest,
        _ => ty,
    };
    let (a, b) = match ty {
        t if t.ends_with("xf32") => (Fmt::Xf32, Fmt::Xf32),
        t if t.ends_with("f32") => (Fmt::F32, Fmt::F32),
        t if t.ends_with("bf16") => (Fmt::Bf16, Fmt::Bf16),
        t if t.ends_with("f16") => (Fmt::F16, Fmt::F16),
        t if t.ends_with("i8") => (Fmt::I8, Fmt::I8),
        t if t.ends_with("f64") => (Fmt::F64, Fmt::F64),
        t if t.ends_with("f8f6f4") => (Fmt::Fp8, Fmt::Fp8),
        t => (
            f8(target, t.starts_with("bf8")),
            f8(target, t.ends_with("bf8")),
        ),
    };
    Case {
        target,
        name,
        m,
        k,
        blocks,
        a,
        b,
        out,
        sparse: name.starts_with("v_smfmac"),
        f8f6f4: name.ends_with("f8f6f4"),
        cbsz: 0,
        abid: 0,
        blgp: 0,
        neg: 0,
        agpr: false,
        in_place: false,
        scale: name
            .starts_with("v_mfma_scale")
            .then_some((0, 0, ScaleFrom::Vgprs)),
        specials: false,
    }
}

/// Register rows of the operands (AGPR variant: A, B, C, D in AGPRs at the same offsets).
const A0: usize = 0;
const B0: usize = 8;
const IDX: usize = 16;
const C0: usize = 32;
const D0: usize = 64;

impl Case {
    /// Stored values per lane of A (sparse: half the dense run) and of B.
    fn kl(&self, sparse_a: bool) -> usize {
        if self.f8f6f4 {
            32
        } else {
            let k = if sparse_a { self.k / 2 } else { self.k };
            k * self.m * self.blocks / 64
        }
    }

    fn regs(&self) -> (usize, usize, usize) {
        let a = (self.kl(self.sparse) * self.a.bits()).div_ceil(32);
        let b = (self.kl(false) * self.b.bits()).div_ceil(32);
        let d = self.blocks * self.m * self.m / 64 * self.out.bits() / 32;
        (a, b, d)
    }

    fn text(&self) -> String {
        let (ra, rb, rd) = self.regs();
        let t = |p: &str, base: usize, n: usize| {
            if n == 1 {
                format!("{p}{base}")
            } else {
                format!("{p}[{base}:{}]", base + n - 1)
            }
        };
        let v = if self.agpr { "a" } else { "v" };
        // SMFMAC accumulates in place: D is C.
        let d = t(v, if self.in_place || self.sparse { C0 } else { D0 }, rd);
        let mut s = format!("{} {d}, {}, {}, ", self.name, t(v, A0, ra), t(v, B0, rb));
        if self.sparse {
            s += &format!("v{IDX}");
        } else {
            s += &t(v, C0, rd);
        }
        if let Some((x, y, from)) = self.scale {
            let _ = from;
            s += ", v17, v18";
            s += &format!(
                " op_sel:[{},{},0] op_sel_hi:[{},{},0]",
                x & 1,
                y & 1,
                x >> 1,
                y >> 1
            );
        }
        if self.f8f6f4 && self.cbsz != 0 {
            s += &format!(" cbsz:{}", self.cbsz);
        } else if self.cbsz != 0 || self.abid != 0 {
            s += &format!(" cbsz:{} abid:{}", self.cbsz, self.abid);
        }
        if self.blgp != 0 {
            s += &format!(" blgp:{}", self.blgp);
        }
        if self.neg != 0 {
            s += &format!(
                " neg:[{},{},{}]",
                self.neg & 1,
                self.neg >> 1 & 1,
                self.neg >> 2
            );
        }
        s
    }

    /// `(block, row/col, k)` of value `e` of lane `l` of A (`b_op`: B).
    fn place(&self, b_op: bool, l: usize, e: usize) -> (usize, usize, usize) {
        let (m, k) = (self.m, self.k);
        if self.f8f6f4 {
            let g = l / m;
            let kk = if (if b_op { self.b } else { self.a }).bits() == 8 {
                (k / 2) * (e / 16) + 16 * g + e % 16
            } else {
                32 * g + e
            };
            return (0, l % m, kk);
        }
        let kl = self.kl(self.sparse && !b_op);
        (
            (l / m) % self.blocks,
            l % m,
            (l / (m * self.blocks)) * kl + e,
        )
    }

    /// `(block, row, col)` of result register `v` (f64: pair `v`) of lane `l`.
    fn out_place(&self, v: usize, l: usize) -> (usize, usize, usize) {
        let n = self.m;
        if self.out == Out::F64 {
            return if self.blocks == 1 {
                (0, 4 * v + l / 16, l % 16)
            } else {
                ((l / 4) % 4, l / 16, l % 4)
            };
        }
        let r = 4 * (64 / n) * (v / 4) + 4 * (l / n) + v % 4;
        (r / n, r % n, l % n)
    }

    // The lane indexes the registers and every operand table at once.
    #[allow(clippy::needless_range_loop)]
    fn run(&self, code: &[u8], seed: u64) {
        let mut rng = Rng(seed);
        let (ra, rb, rd) = self.regs();
        let lanes = 64;
        // Operand register tuples per lane, filled with random element codes.
        let mut fill = |fmt: Fmt, regs: usize, per: usize| -> Vec<Vec<u32>> {
            (0..lanes)
                .map(|_| {
                    let mut w = vec![0u32; regs + 1];
                    for e in 0..per {
                        mma::pack(
                            &mut w,
                            e * fmt.bits(),
                            fmt.bits(),
                            fmt.random(&mut rng, false),
                        );
                    }
                    w
                })
                .collect()
        };
        let mut ta = fill(self.a, ra, self.kl(self.sparse));
        let mut tb = fill(self.b, rb, self.kl(false));
        if self.specials {
            mma::sprinkle(&mut ta, self.a, self.kl(self.sparse), 3, &mut rng);
            mma::sprinkle(&mut tb, self.b, self.kl(false), 3, &mut rng);
        }
        let out_regs = rd * 32 / self.out.bits();
        let tc: Vec<Vec<u64>> = (0..lanes)
            .map(|_| (0..out_regs).map(|_| self.out.random(&mut rng)).collect())
            .collect();
        let index: Vec<u32> = (0..lanes).map(|_| rng.next() as u32).collect();
        let scale_byte = |r: &mut Rng| 120 + r.below(16) as u32;
        let scales: [Vec<u32>; 2] = std::array::from_fn(|_| {
            (0..lanes)
                .map(|_| (0..4).fold(0, |v, b| v | scale_byte(&mut rng) << (8 * b)))
                .collect()
        });
        let s4 = (0..4).fold(0, |v, b| v | scale_byte(&mut rng) << (8 * b));
        let base = if self.agpr { 256 } else { 0 };
        let w = asm::run(self.target, 64, code, |w: &mut Wave| {
            for l in 0..lanes {
                for r in 0..ra {
                    w.set_vgpr(base + A0 + r, l, ta[l][r]);
                }
                for r in 0..rb {
                    w.set_vgpr(base + B0 + r, l, tb[l][r]);
                }
                for (v, &c) in tc[l].iter().enumerate() {
                    let (lo, hi) = (c as u32, (c >> 32) as u32);
                    if self.out == Out::F64 {
                        w.set_vgpr(base + C0 + 2 * v, l, lo);
                        w.set_vgpr(base + C0 + 2 * v + 1, l, hi);
                    } else {
                        w.set_vgpr(base + C0 + v, l, lo);
                    }
                }
                w.set_vgpr(IDX, l, index[l]);
                w.set_vgpr(17, l, scales[0][l]);
                w.set_vgpr(18, l, scales[1][l]);
            }
            w.set_sgpr(4, s4);
        });
        // The matrices, read from the registers through the layout.
        let (m, k, blocks) = (self.m, self.k, self.blocks);
        let mut amat = vec![None; blocks * m * k];
        // Sparse: the stored values of row i as (dense k, value), in stored order.
        let mut sparse: Vec<Vec<(usize, usize, f64)>> = vec![Vec::new(); m];
        for l in 0..lanes {
            for e in 0..self.kl(self.sparse) {
                let v = self
                    .a
                    .value(mma::unpack(&ta[l], e * self.a.bits(), self.a.bits()));
                let (b, i, c) = self.place(false, l, e);
                if self.sparse {
                    // The index of stored value e: bits `set * 2kl + 2e` of the lane's index
                    // register (4 bits per 4-wide group, the second value above the first).
                    let kl = self.kl(true);
                    let set = if self.cbsz != 0 {
                        0
                    } else {
                        self.abid as usize
                    };
                    let pos = (index[l] >> (set * 2 * kl + 2 * e)) & 3;
                    sparse[i].push((c, 4 * (c / 2) + pos as usize, v));
                } else {
                    amat[(b * m + i) * k + c] = Some(v);
                }
            }
        }
        for row in sparse.iter_mut().filter(|_| self.sparse) {
            // Stored order is the compressed column order.
            row.sort_by_key(|&(c, _, _)| c);
            assert_eq!(row.len(), k / 2, "sparse A fully placed");
        }
        // BLGP broadcasts B's lanes, except on f8f6f4 MFMAs, where it is B's format (as
        // CBSZ is A's: the same bits cannot also select a broadcast).
        let blgp = if self.f8f6f4 { 0 } else { self.blgp };
        let src_lane = |l: usize| match blgp {
            0 => l,
            1 => l % 32,
            2 => 32 + l % 32,
            3 => (l + 16) % 64,
            g => 16 * (g as usize - 4) + l % 16,
        };
        let mut bmat = vec![None; blocks * k * m];
        for l in 0..lanes {
            for e in 0..self.kl(false) {
                let (b, j, kk) = self.place(true, l, e);
                let code = mma::unpack(&tb[src_lane(l)], e * self.b.bits(), self.b.bits());
                bmat[(b * k + kk) * m + j] = Some(self.b.value(code));
            }
        }
        assert!(
            self.sparse || amat.iter().all(Option::is_some),
            "A fully placed"
        );
        assert!(bmat.iter().all(Option::is_some), "B fully placed");
        let amat: Vec<f64> = amat.into_iter().map(|v| v.unwrap_or(0.0)).collect();
        let bmat: Vec<f64> = bmat.into_iter().map(|v| v.unwrap_or(0.0)).collect();
        let sign = |bit: u32| if self.neg >> bit & 1 != 0 { -1.0 } else { 1.0 };
        let scale_of = |which: usize, lane: usize, byte: u32| -> f64 {
            let word = match self.scale {
                Some((_, _, ScaleFrom::Scalars)) if which == 0 => s4,
                Some((_, _, ScaleFrom::Scalars)) => 0x3f80_0000,
                _ => scales[which][lane],
            };
            let x = (word >> (8 * byte)) & 0xff;
            if x == 0xff {
                f64::NAN
            } else {
                2f64.powi(x as i32 - 127)
            }
        };
        let d_base = base + if self.in_place || self.sparse { C0 } else { D0 };
        for l in 0..lanes {
            for v in 0..out_regs {
                let (b, i, j) = self.out_place(v, l);
                let ab = (b >> self.cbsz << self.cbsz) + self.abid as usize;
                let ab = if self.sparse || self.f8f6f4 { b } else { ab };
                let terms: Vec<f64> = if self.sparse {
                    sparse[i]
                        .iter()
                        .map(|&(_, kk, a)| a * bmat[kk * m + j])
                        .collect()
                } else {
                    (0..k)
                        .map(|kk| {
                            let s = match self.scale {
                                Some((x, y, _)) => {
                                    scale_of(0, (kk / 32) * m + i, x)
                                        * scale_of(1, (kk / 32) * m + j, y)
                                }
                                None => 1.0,
                            };
                            sign(0)
                                * amat[(ab * m + i) * k + kk]
                                * sign(1)
                                * bmat[(b * k + kk) * m + j]
                                * s
                        })
                        .collect()
                };
                let want = Want {
                    c: sign(2) * self.out.value(tc[l][v]),
                    terms,
                };
                let got = if self.out == Out::F64 {
                    w.vgpr(d_base + 2 * v, l) as u64 | (w.vgpr(d_base + 2 * v + 1, l) as u64) << 32
                } else {
                    w.vgpr(d_base + v, l) as u64
                };
                want.check(got, self.out, false, &|| {
                    format!(
                        "{} `{}`: D block {b} [{i}][{j}] (register {v}, lane {l})",
                        self.target.name(),
                        self.text()
                    )
                });
            }
        }
    }
}

/// Assembles every case with one llvm-mc-22 run per target and runs it.
fn run_all(cases: &[Case]) {
    for t in [P, C, N] {
        let mine: Vec<&Case> = cases.iter().filter(|c| c.target == t).collect();
        if mine.is_empty() {
            continue;
        }
        let texts: Vec<String> = mine.iter().map(|c| c.text()).collect();
        let codes = asm::assemble_each(t, 64, &texts);
        for (n, (c, code)) in mine.iter().zip(codes).enumerate() {
            let mut code = code;
            if let Some((_, _, ScaleFrom::Scalars)) = c.scale {
                // scale_src0 = s4, scale_src1 = 242 (1.0): bits 8:0 and 17:9 of dword 1.
                let d1 = u32::from_le_bytes(code[4..8].try_into().unwrap());
                let d1 = d1 & !0x3ffff | 4 | 242 << 9;
                code[4..8].copy_from_slice(&d1.to_le_bytes());
            }
            code.extend_from_slice(&[0x00, 0x00, 0x81, 0xbf]); // s_endpgm
            c.run(&code, n as u64 * 7919 + 1);
        }
    }
}

fn every() -> impl Iterator<Item = Case> {
    OPS.iter()
        .flat_map(|&(ts, name, blocks)| ts.iter().map(move |&t| case(t, name, blocks)))
}

#[test]
fn every_matrix_instruction_on_every_target() {
    let cases: Vec<Case> = every().collect();
    assert_eq!(cases.len(), 27 + 46 + 69 - 1);
    run_all(&cases);
}

#[test]
fn accumulator_registers_and_d_equal_c() {
    let mut cases = Vec::new();
    for c in every() {
        cases.push(Case {
            agpr: true,
            ..c.clone()
        });
        if !c.sparse {
            cases.push(Case {
                in_place: true,
                ..c
            });
        }
    }
    run_all(&cases);
}

#[test]
fn broadcast_and_lane_group_modifiers() {
    let mut cases = Vec::new();
    for c in every().filter(|c| !c.sparse && !c.f8f6f4 && c.out != Out::F64) {
        for blgp in 1..8 {
            cases.push(Case { blgp, ..c.clone() });
        }
        let mut cbsz = 1;
        while 1 << cbsz <= c.blocks {
            for abid in [0, 1, (1 << cbsz) - 1] {
                cases.push(Case {
                    cbsz,
                    abid,
                    blgp: 3,
                    ..c.clone()
                });
            }
            cbsz += 1;
        }
    }
    run_all(&cases);
}

/// f64: gfx942/gfx950 read BLGP as negate bits; the 4x4x4 shape broadcasts A blocks.
#[test]
fn f64_negate_and_broadcast() {
    let mut cases = Vec::new();
    for c in every().filter(|c| c.out == Out::F64) {
        if c.target != P {
            for neg in 1..8 {
                cases.push(Case { neg, ..c.clone() });
            }
        }
        if c.blocks == 4 {
            cases.push(Case {
                cbsz: 2,
                abid: 1,
                ..c.clone()
            });
            cases.push(Case {
                cbsz: 1,
                abid: 1,
                ..c
            });
        }
    }
    run_all(&cases);
}

/// Every A format (CBSZ) against every B format (BLGP), plain and scaled, both shapes.
#[test]
fn f8f6f4_every_format_pair() {
    let mut cases = Vec::new();
    for c in every().filter(|c| c.f8f6f4) {
        for cbsz in 0..5 {
            for blgp in 0..5 {
                let (a, b) = (f8f6f4_fmt(cbsz), f8f6f4_fmt(blgp));
                cases.push(Case {
                    cbsz,
                    blgp,
                    a,
                    b,
                    ..c.clone()
                });
            }
        }
    }
    run_all(&cases);
}

/// The scaled MFMA's byte selects (op_sel, op_sel_hi) and scale sources.
#[test]
fn scale_bytes_and_sources() {
    let mut cases = Vec::new();
    for c in every().filter(|c| c.scale.is_some()) {
        for x in 0..4 {
            for y in 0..4 {
                let (cbsz, blgp) = ((x + y) % 5, (x * 3 + y) % 5);
                let (a, b) = (f8f6f4_fmt(cbsz), f8f6f4_fmt(blgp));
                cases.push(Case {
                    scale: Some((x, y, ScaleFrom::Vgprs)),
                    cbsz,
                    blgp,
                    a,
                    b,
                    ..c.clone()
                });
            }
        }
        cases.push(Case {
            scale: Some((2, 0, ScaleFrom::Scalars)),
            ..c
        });
    }
    run_all(&cases);
}

/// SMFMAC index sets: ABID picks one when CBSZ is 0, CBSZ != 0 reads set 0.
#[test]
fn sparse_index_sets() {
    let mut cases = Vec::new();
    for c in every().filter(|c| c.sparse) {
        let sets = 32 / (2 * c.kl(true));
        for abid in 1..sets as u32 {
            cases.push(Case { abid, ..c.clone() });
        }
        cases.push(Case {
            cbsz: 1,
            abid: 1,
            ..c
        });
    }
    run_all(&cases);
}

/// Infinities and NaNs in the sources propagate (products with them, inf - inf, 0 * inf),
/// in every format that has them.
#[test]
fn special_values() {
    let cases: Vec<Case> = every()
        .filter(|c| !c.a.specials().is_empty() || c.f8f6f4)
        .map(|c| Case {
            specials: true,
            ..c
        })
        .collect();
    run_all(&cases);
}
