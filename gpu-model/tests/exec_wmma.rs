//! GFX12 matrix instructions: every WMMA and SWMMAC of gfx1200 and gfx1201, in wave32 and
//! wave64, assembled by llvm-mc-22 and run in the executor against a matrix product
//! computed here in f64.
//!
//! Random element codes fill every register slot (f16 with every exponent, fp8/bf8 over
//! all their finite codes, integers over their range), read back as matrices through this
//! file's own statement of the RDNA4 layouts in the register-to-matrix direction (the
//! inverse of AMD's matrix instruction calculator `InstCalcGfx12` formulas, which the
//! executor uses forwards): e.g. wave32 16-bit A holds row `l % 16` in lane `l`, register
//! `r` half `h` holding k = `8 (r / 2) + 4 (l / 16) + 2 (r % 2) + h`; 32-bit results hold
//! row `8 (l / 16) + r`, column `l % 16`. Modifiers as the calculator README defines them:
//! NEG/NEG_HI negate 16-bit A/B values in the low/high halves, NEG[2] negates C and
//! NEG_HI[2] takes |C| first, integer NEG bits make A/B signed, CLAMP saturates integers,
//! SWMMAC `index_key` picks the compression index set.
//!
//! What a product test can and cannot see: an order of k that the A and B layouts share
//! is invisible in `A * B` (only the f32 summation order changes), so it is checked where
//! it matters (sparse 4-wide groups, whose indices name k within the group) and pinned by
//! the calculator's documented entries in `exec/matrix/layout.rs`; rows, columns, halves,
//! result placement and everything per operand are checked here.

#[path = "exec_util/asm.rs"]
mod asm;
#[path = "exec_util/mma.rs"]
mod mma;

use gpu_model::exec::Wave;
use gpu_model::Target;
use mma::{Fmt, Out, Rng, Want};

/// Every GFX12 matrix mnemonic of the ISA tables (both wave sizes have all of them).
const OPS: &[&str] = &[
    "v_wmma_f32_16x16x16_f16",
    "v_wmma_f32_16x16x16_bf16",
    "v_wmma_f16_16x16x16_f16",
    "v_wmma_bf16_16x16x16_bf16",
    "v_wmma_i32_16x16x16_iu8",
    "v_wmma_i32_16x16x16_iu4",
    "v_wmma_i32_16x16x32_iu4",
    "v_wmma_f32_16x16x16_fp8_fp8",
    "v_wmma_f32_16x16x16_fp8_bf8",
    "v_wmma_f32_16x16x16_bf8_fp8",
    "v_wmma_f32_16x16x16_bf8_bf8",
    "v_swmmac_f32_16x16x32_f16",
    "v_swmmac_f32_16x16x32_bf16",
    "v_swmmac_f16_16x16x32_f16",
    "v_swmmac_bf16_16x16x32_bf16",
    "v_swmmac_i32_16x16x32_iu8",
    "v_swmmac_i32_16x16x32_iu4",
    "v_swmmac_i32_16x16x64_iu4",
    "v_swmmac_f32_16x16x32_fp8_fp8",
    "v_swmmac_f32_16x16x32_fp8_bf8",
    "v_swmmac_f32_16x16x32_bf8_fp8",
    "v_swmmac_f32_16x16x32_bf8_bf8",
];

#[derive(Clone)]
struct Case {
    target: Target,
    wave: usize,
    name: &'static str,
    k: usize,
    /// Source formats as named: "f16", "bf16", "iu8", "iu4", "fp8", "bf8".
    a_ty: &'static str,
    b_ty: &'static str,
    out: Out,
    sparse: bool,
    neg: u32,
    neg_hi: u32,
    clamp: bool,
    index_key: u32,
    /// C as an inline constant (its text and raw value for the result format).
    c_const: Option<(&'static str, u64)>,
    /// D is C's registers.
    in_place: bool,
    /// A few infinities and NaNs among the sources.
    specials: bool,
}

fn case(target: Target, wave: usize, name: &'static str) -> Case {
    let parts: Vec<&str> = name.split('_').collect();
    let k: usize = parts[3].rsplit('x').next().unwrap().parse().unwrap();
    let out = match parts[2] {
        "f32" => Out::F32,
        "f16" => Out::F16,
        "bf16" => Out::Bf16,
        _ => Out::I32,
    };
    let (a_ty, b_ty) = match parts.len() {
        6 => (parts[4], parts[5]),
        _ => (parts[4], parts[4]),
    };
    Case {
        target,
        wave,
        name,
        k,
        a_ty,
        b_ty,
        out,
        sparse: name.starts_with("v_swmmac"),
        neg: 0,
        neg_hi: 0,
        clamp: false,
        index_key: 0,
        c_const: None,
        in_place: false,
        specials: false,
    }
}

const A0: usize = 0;
const B0: usize = 8;
const IDX: usize = 16;
const C0: usize = 32;
const D0: usize = 48;

impl Case {
    fn fmt(&self, b_op: bool) -> Fmt {
        let (ty, signed) = if b_op {
            (self.b_ty, self.neg & 2 != 0)
        } else {
            (self.a_ty, self.neg & 1 != 0)
        };
        match (ty, signed) {
            ("f16", _) => Fmt::F16,
            ("bf16", _) => Fmt::Bf16,
            ("fp8", _) => Fmt::Fp8,
            ("bf8", _) => Fmt::Bf8,
            ("iu8", true) => Fmt::I8,
            ("iu8", false) => Fmt::U8,
            ("iu4", true) => Fmt::I4,
            _ => Fmt::U4,
        }
    }

    fn width(&self) -> usize {
        self.fmt(false).bits()
    }

    /// Register counts of A, B, D.
    fn regs(&self) -> (usize, usize, usize) {
        let w = self.width();
        let kc = if self.sparse { self.k / 2 } else { self.k };
        let r = |elems: usize| (elems * w).div_ceil(32 * self.wave).max(1);
        (
            r(16 * kc),
            r(16 * self.k),
            256 * self.out.bits() / 32 / self.wave,
        )
    }

    fn text(&self) -> String {
        let t = |base: usize, n: usize| {
            if n == 1 {
                format!("v{base}")
            } else {
                format!("v[{base}:{}]", base + n - 1)
            }
        };
        let (ra, rb, rd) = self.regs();
        let d = if self.in_place || self.sparse { C0 } else { D0 };
        let c = if self.sparse {
            format!("v{IDX}")
        } else if let Some((txt, _)) = self.c_const {
            txt.to_string()
        } else {
            t(C0, rd)
        };
        let mut s = format!(
            "{} {}, {}, {}, {c}",
            self.name,
            t(d, rd),
            t(A0, ra),
            t(B0, rb)
        );
        let bits = |x: u32| format!("[{},{},{}]", x & 1, x >> 1 & 1, x >> 2 & 1);
        if self.neg != 0 {
            s += &format!(" neg_lo:{}", bits(self.neg));
        }
        if self.neg_hi != 0 {
            s += &format!(" neg_hi:{}", bits(self.neg_hi));
        }
        if self.index_key != 0 {
            s += &format!(" index_key:{}", self.index_key);
        }
        if self.clamp {
            s += " clamp";
        }
        s
    }

    /// The k (dense A and B) of element `y` of register `r` of lane `l`, `None` for a slot
    /// the instruction does not read.
    fn dense_k(&self, l: usize, r: usize, y: usize) -> Option<usize> {
        let (w64, h, g) = (self.wave == 64, l / 16, (l / 16) % 2);
        Some(match (self.width(), w64) {
            (16, false) => 8 * (r / 2) + 4 * h + 2 * (r % 2) + y,
            (16, true) => 8 * (l / 32) + 4 * g + 2 * r + y,
            (8, false) => 8 * h + 4 * r + y,
            (8, true) => 4 * (l / 32) + 8 * g + y,
            (_, _) if self.k == 16 => (l < 32).then_some(8 * h + y)?,
            (_, false) => 16 * h + 8 * r + y,
            (_, true) => 8 * (l / 32) + 16 * g + y,
        })
    }

    /// The k of element `y` of register `r` of lane `l` of a SWMMAC's dense B.
    fn sparse_b_k(&self, l: usize, r: usize, y: usize) -> usize {
        let (h, g) = (l / 16, (l / 16) % 2);
        match (self.width(), self.wave == 64, self.k) {
            (16, false, _) => 16 * (r / 4) + 8 * h + 2 * (r % 4) + y,
            (16, true, _) => 8 * h + 2 * r + y,
            (8, false, _) => 16 * h + 4 * r + y,
            (8, true, _) => 16 * g + 8 * (l / 32) + 4 * r + y,
            (_, false, 32) => 16 * h + 8 * r + y,
            (_, false, _) => 32 * h + 8 * r + y,
            (_, true, 32) => 16 * g + 8 * (l / 32) + y,
            (_, true, _) => 32 * g + 16 * (l / 32) + 8 * r + y,
        }
    }

    /// The 4-wide k group (its first k) and value slot of stored element `y` of register
    /// `r` of lane `l` of a SWMMAC's sparse A, `None` for a slot it does not read.
    fn sparse_a(&self, l: usize, r: usize, y: usize) -> Option<(usize, usize)> {
        let (h, g) = (l / 16, (l / 16) % 2);
        let w = self.width();
        // 16-bit: one group per register, the two values in its halves; narrower: two
        // values per group, groups packed in the register from bit 0.
        let (gh, s) = if w == 16 { (0, y) } else { (y / 2, y % 2) };
        let kk = match (w, self.wave == 64, self.k) {
            (16, false, _) => 16 * (r / 2) + 8 * h + 4 * (r % 2),
            (16, true, _) => 8 * h + 4 * r,
            (8, false, _) => 16 * h + 8 * r + 4 * gh,
            (8, true, _) => 16 * g + 8 * (l / 32) + 4 * gh,
            (_, _, 32) => (l < 32).then_some(16 * h + 4 * gh)?,
            (_, false, _) => 32 * h + 16 * r + 4 * gh,
            (_, true, _) => 32 * g + 16 * (l / 32) + 4 * gh,
        };
        Some((kk, s))
    }

    /// The bit of the compression index of the value in slot `s` of group `kk` (in the
    /// value's lane): calculator `__get_compression_bits` and its per-set offset.
    fn index_bit(&self, kk: usize, s: usize) -> usize {
        let (w, w64) = (self.width(), self.wave == 64);
        let base = match (w, w64) {
            (16, false) => 8 * (kk / 16) + 4 * ((kk / 4) % 2),
            (8, false) => 4 * ((kk / 4) % 4),
            (_, false) if self.k == 32 => 4 * ((kk / 4) % 4),
            (_, false) => 4 * ((kk / 4) % 8),
            (4, true) => 4 * ((kk / 4) % 4),
            (_, true) => 4 * ((kk / 4) % 2),
        };
        self.index_key as usize * (32 / self.index_sets()) + base + 2 * s
    }

    fn index_sets(&self) -> usize {
        match (self.width(), self.wave == 64) {
            (4, false) if self.k == 64 => 1,
            (_, false) => 2,
            (4, true) => 2,
            (_, true) => 4,
        }
    }

    /// `(row, col)` of result register `r` of lane `l` (16-bit results: half `h`).
    fn out_place(&self, l: usize, r: usize, h: usize) -> (usize, usize) {
        let row0 = if self.wave == 64 {
            8 * ((l / 16) % 2) + 4 * (l / 32)
        } else {
            8 * (l / 16)
        };
        let i = if self.out.bits() == 16 {
            row0 + 2 * r + h
        } else {
            row0 + r
        };
        (i, l % 16)
    }

    // The lane indexes the registers and every operand table at once.
    #[allow(clippy::needless_range_loop)]
    fn run(&self, code: &[u8], seed: u64) {
        let mut rng = Rng(seed);
        let (ra, rb, rd) = self.regs();
        let lanes = self.wave;
        let (fa, fb) = (self.fmt(false), self.fmt(true));
        let narrow = self.out == Out::F16;
        let mut fill = |fmt: Fmt, regs: usize| -> Vec<Vec<u32>> {
            (0..lanes)
                .map(|_| {
                    let mut w = vec![0u32; regs];
                    for e in 0..regs * 32 / fmt.bits() {
                        mma::pack(
                            &mut w,
                            e * fmt.bits(),
                            fmt.bits(),
                            fmt.random(&mut rng, narrow),
                        );
                    }
                    w
                })
                .collect()
        };
        let mut ta = fill(fa, ra);
        let mut tb = fill(fb, rb);
        if self.specials {
            mma::sprinkle(&mut ta, fa, ra * 32 / fa.bits(), 3, &mut rng);
            mma::sprinkle(&mut tb, fb, rb * 32 / fb.bits(), 3, &mut rng);
        }
        let tc: Vec<Vec<u32>> = (0..lanes)
            .map(|_| {
                (0..rd)
                    .map(|_| match self.out.bits() {
                        16 => (self.out.random(&mut rng) | self.out.random(&mut rng) << 16) as u32,
                        _ => self.out.random(&mut rng) as u32,
                    })
                    .collect()
            })
            .collect();
        let index: Vec<u32> = (0..lanes).map(|_| rng.next() as u32).collect();
        let w = asm::run(self.target, self.wave as u32, code, |w: &mut Wave| {
            for l in 0..lanes {
                for r in 0..ra {
                    w.set_vgpr(A0 + r, l, ta[l][r]);
                }
                for r in 0..rb {
                    w.set_vgpr(B0 + r, l, tb[l][r]);
                }
                for r in 0..rd {
                    w.set_vgpr(C0 + r, l, tc[l][r]);
                }
                w.set_vgpr(IDX, l, index[l]);
            }
        });
        // 16-bit float sources: NEG/NEG_HI negate the low/high half's values.
        let signed = |v: f64, fmt: Fmt, half: usize, bit: u32| {
            let flip = if half == 0 { self.neg } else { self.neg_hi } >> bit & 1 != 0;
            if flip && matches!(fmt, Fmt::F16 | Fmt::Bf16) {
                -v
            } else {
                v
            }
        };
        let k = self.k;
        // A: dense a[i][k]; sparse: per row (k, value) in stored order.
        let mut amat = vec![None; 16 * k];
        let mut sparse: Vec<Vec<(usize, usize, f64)>> = vec![Vec::new(); 16];
        let wa = fa.bits();
        for l in 0..lanes {
            for r in 0..ra {
                for y in 0..32 / wa {
                    let code = mma::unpack(&ta[l], r * 32 + y * wa, wa);
                    let v = signed(fa.value(code), fa, (y * wa) / 16, 0);
                    if self.sparse {
                        if let Some((kk, s)) = self.sparse_a(l, r, y) {
                            let pos = (index[l] >> self.index_bit(kk, s)) & 3;
                            sparse[l % 16].push((kk / 2 + s, kk + pos as usize, v));
                        }
                    } else if let Some(kk) = self.dense_k(l, r, y) {
                        amat[(l % 16) * k + kk] = Some(v);
                    }
                }
            }
        }
        for row in sparse.iter_mut().filter(|_| self.sparse) {
            row.sort_by_key(|&(c, _, _)| c);
            assert_eq!(row.len(), k / 2, "sparse A fully placed");
        }
        let mut bmat = vec![None; k * 16];
        let wb = fb.bits();
        for l in 0..lanes {
            for r in 0..rb {
                for y in 0..32 / wb {
                    let kk = if self.sparse {
                        Some(self.sparse_b_k(l, r, y))
                    } else {
                        self.dense_k(l, r, y)
                    };
                    if let Some(kk) = kk {
                        let code = mma::unpack(&tb[l], r * 32 + y * wb, wb);
                        bmat[kk * 16 + l % 16] = Some(signed(fb.value(code), fb, (y * wb) / 16, 1));
                    }
                }
            }
        }
        assert!(
            self.sparse || amat.iter().all(Option::is_some),
            "A fully placed"
        );
        assert!(bmat.iter().all(Option::is_some), "B fully placed");
        let amat: Vec<f64> = amat.into_iter().map(|v| v.unwrap_or(0.0)).collect();
        let bmat: Vec<f64> = bmat.into_iter().map(|v| v.unwrap_or(0.0)).collect();
        let d0 = if self.in_place || self.sparse { C0 } else { D0 };
        let per = 32 / self.out.bits();
        for l in 0..lanes {
            for r in 0..rd {
                for h in 0..per {
                    let (i, j) = self.out_place(l, r, h);
                    let width = self.out.bits();
                    let c_code = match self.c_const {
                        Some((_, v)) => v,
                        None => mma::unpack(&tc[l], r * 32 + h * width, width),
                    };
                    let mut c = self.out.value(c_code);
                    if self.neg_hi & 4 != 0 {
                        c = c.abs();
                    }
                    if self.neg & 4 != 0 {
                        c = -c;
                    }
                    let terms: Vec<f64> = if self.sparse {
                        sparse[i]
                            .iter()
                            .map(|&(_, kk, a)| a * bmat[kk * 16 + j])
                            .collect()
                    } else {
                        (0..k)
                            .map(|kk| amat[i * k + kk] * bmat[kk * 16 + j])
                            .collect()
                    };
                    let got = mma::unpack(&[w.vgpr(d0 + r, l)], h * width, width);
                    Want { c, terms }.check(got, self.out, self.clamp, &|| {
                        format!(
                            "{} wave{} `{}`: D[{i}][{j}] (register {r}, lane {l})",
                            self.target.name(),
                            self.wave,
                            self.text()
                        )
                    });
                }
            }
        }
    }
}

/// Assembles every case with one llvm-mc-22 run per target and wave size, and runs it.
fn run_all(cases: &[Case]) {
    for t in [Target::Gfx1200, Target::Gfx1201] {
        for wave in [32, 64] {
            let mine: Vec<&Case> = cases
                .iter()
                .filter(|c| c.target == t && c.wave == wave)
                .collect();
            if mine.is_empty() {
                continue;
            }
            let texts: Vec<String> = mine.iter().map(|c| c.text()).collect();
            let codes = asm::assemble_each(t, wave as u32, &texts);
            for (n, (c, code)) in mine.iter().zip(codes).enumerate() {
                let mut code = code;
                code.extend_from_slice(&[0x00, 0x00, 0xb0, 0xbf]); // s_endpgm
                c.run(&code, n as u64 * 104_729 + wave as u64);
            }
        }
    }
}

fn every() -> impl Iterator<Item = Case> {
    [Target::Gfx1200, Target::Gfx1201]
        .into_iter()
        .flat_map(|t| {
            [32, 64]
                .into_iter()
                .flat_map(move |wave| OPS.iter().map(move |&name| case(t, wave, name)))
        })
}

#[test]
fn every_instruction_both_wave_sizes() {
    let cases: Vec<Case> = every().collect();
    assert_eq!(cases.len(), 2 * 2 * 22);
    run_all(&cases);
}

/// NEG/NEG_HI on 16-bit float sources per half, C's negate and absolute value; the
/// integer signedness bits with and without CLAMP; C from an inline constant; D = C.
#[test]
fn modifiers() {
    let mut cases = Vec::new();
    for c in every() {
        let float16 = matches!(c.a_ty, "f16" | "bf16");
        let int = c.out == Out::I32;
        let mut mods: Vec<(u32, u32, bool)> = Vec::new();
        if float16 {
            mods.extend([
                (0b011, 0b000, false),
                (0b001, 0b010, false),
                (0b010, 0b011, false),
            ]);
            if !c.sparse {
                mods.extend([
                    (0b110, 0b101, false),
                    (0b100, 0b100, false),
                    (0b111, 0b111, false),
                ]);
            }
        } else if int {
            for neg in 0..4 {
                mods.extend([(neg, 0, false), (neg, 0, true)]);
            }
        } else if !c.sparse {
            mods.extend([(0b100, 0, false), (0, 0b100, false), (0b100, 0b100, false)]);
        }
        for (neg, neg_hi, clamp) in mods {
            cases.push(Case {
                neg,
                neg_hi,
                clamp,
                ..c.clone()
            });
        }
        if !c.sparse {
            cases.push(Case {
                in_place: true,
                ..c.clone()
            });
            let k = match c.out {
                Out::F32 => ("-2.0", 0xc000_0000),
                Out::F16 => ("1.0", 0x3c00),
                Out::Bf16 => ("1.0", 0x3f80),
                _ => ("-3", 0xffff_fffd),
            };
            cases.push(Case {
                c_const: Some(k),
                ..c
            });
        }
    }
    run_all(&cases);
}

/// SWMMAC: every index set `index_key` names.
#[test]
fn sparse_index_sets() {
    let mut cases = Vec::new();
    for c in every().filter(|c| c.sparse) {
        for index_key in 1..c.index_sets() as u32 {
            cases.push(Case {
                index_key,
                ..c.clone()
            });
        }
    }
    run_all(&cases);
}

/// Infinities and NaNs in f16, bf16, fp8 and bf8 sources propagate.
#[test]
fn special_values() {
    let cases: Vec<Case> = every()
        .filter(|c| c.out != Out::I32)
        .map(|c| Case {
            specials: true,
            ..c
        })
        .collect();
    run_all(&cases);
}
