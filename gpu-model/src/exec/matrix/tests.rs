//! The engine against a plain matrix product in f64: random operand codes in the
//! registers, the reference reading each element through the layouts (whose documented
//! entries are pinned in `layout`) and the modifiers' definitions, compared with the
//! tolerance of the module doc's "Numerics". Instruction-level tests with independent
//! layouts are `tests/exec_mfma.rs` and `tests/exec_wmma.rs`.

use super::layout::{self, Slot};
use super::*;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// A random finite code of `e`, exponents spread over a range whose products stay
/// normal in the accumulator.
fn code(e: Elem, r: &mut Rng, narrow: bool) -> u64 {
    let x = r.next();
    if narrow && e == Elem::F16 {
        // f16 results: sums stay inside f16 (exponents -7 .. 4).
        return (x >> 63) << 15 | (8 + (x >> 40) % 12) << 10 | x & 0x3ff;
    }
    let s = x >> 63;
    let exp = |bias: u64, span: u64| bias + (x >> 40) % (2 * span + 1) - span;
    match e {
        Elem::F64 => s << 63 | exp(1023, 60) << 52 | x & ((1 << 52) - 1),
        Elem::F32 | Elem::Xf32 => s << 31 | exp(127, 40) << 23 | x & ((1 << 23) - 1),
        Elem::Bf16 => s << 15 | exp(127, 40) << 7 | x & 0x7f,
        // Every f16 exponent but the infinity/NaN one, subnormals included.
        Elem::F16 => s << 15 | ((x >> 40) % 31) << 10 | x & 0x3ff,
        _ => loop {
            let c = r.next() & ((1 << e.bits()) - 1);
            if e.value(c).is_finite() {
                return c;
            }
        },
    }
}

fn put(w: &mut Wave, row: usize, s: Slot, width: usize, v: u64) {
    let p = s.bit;
    let word = (w.v[row + s.reg][s.lane] as u64) | (w.v[row + s.reg + 1][s.lane] as u64) << 32;
    let mask = if width == 64 {
        u64::MAX
    } else {
        ((1u64 << width) - 1) << p
    };
    let word = (word & !mask) | (v << p) & mask;
    w.v[row + s.reg][s.lane] = word as u32;
    if p + width > 32 {
        w.v[row + s.reg + 1][s.lane] = (word >> 32) as u32;
    }
}

fn get(w: &Wave, row: usize, s: Slot, width: usize, lane: usize) -> u64 {
    let word = (w.v[row + s.reg][lane] as u64) | (w.v[row + s.reg + 1][lane] as u64) << 32;
    let v = word >> s.bit;
    if width == 64 {
        v
    } else {
        v & ((1 << width) - 1)
    }
}

/// Where the test puts A (stored value `c` when sparse), B and C/D: the engine's layouts.
fn a_slot(sh: &Shape, o: &Operands, e: Elem, b: usize, i: usize, k: usize) -> Slot {
    let w = e.bits();
    match (sh.family, sh.sparse) {
        (Family::Cdna, true) => layout::cdna_sparse_a(sh.m, sh.k, w, i, k),
        (Family::Gfx12, true) => layout::gfx12_sparse_a(o.wave64, w, sh.k, i, k),
        (Family::Cdna, _) if sh.a == Ty::F8f6f4 => layout::f8f6f4(sh.m, sh.k, w, i, k),
        (Family::Cdna, _) => layout::cdna(sh.m, sh.k, sh.blocks, w, b, i, k),
        (Family::Gfx12, _) => layout::gfx12(o.wave64, w, sh.k, i, k),
    }
}

fn b_slot(sh: &Shape, o: &Operands, e: Elem, b: usize, k: usize, j: usize) -> Slot {
    let w = e.bits();
    match (sh.family, sh.sparse) {
        (Family::Gfx12, true) => layout::gfx12_sparse_b(o.wave64, w, sh.k, j, k),
        (Family::Cdna, _) if sh.b == Ty::F8f6f4 => layout::f8f6f4(sh.n, sh.k, w, j, k),
        (Family::Cdna, _) => layout::cdna(sh.n, sh.k, sh.blocks, w, b, j, k),
        (Family::Gfx12, _) => layout::gfx12(o.wave64, w, sh.k, j, k),
    }
}

fn d_slot(sh: &Shape, o: &Operands, b: usize, i: usize, j: usize) -> Slot {
    match sh.family {
        Family::Cdna => layout::cdna_out(sh.m, sh.n, sh.out.bits(), b, i, j),
        Family::Gfx12 => layout::gfx12_out(o.wave64, sh.out.bits(), i, j),
    }
}

fn out_elem(out: Out) -> Elem {
    match out {
        Out::F64 => Elem::F64,
        Out::F16 => Elem::F16,
        Out::Bf16 => Elem::Bf16,
        Out::F32 | Out::I32 => Elem::F32,
    }
}

/// Fills the operands with random codes, runs the engine, checks every result element.
fn check(sh: Shape, o: Operands, seed: u64) {
    let mut r = Rng(seed);
    let mut w = Wave::new(
        if o.wave64 || sh.family == Family::Cdna {
            64
        } else {
            32
        },
        0,
    );
    let p = Plan::new(&sh, &o).expect("plan");
    let (ea, eb) = (p.a, p.b);
    let narrow = sh.out == Out::F16;
    let kc = p.kc;
    for b in 0..sh.blocks {
        for i in 0..sh.m {
            for c in 0..kc {
                let v = code(ea, &mut r, narrow);
                put(&mut w, o.a, a_slot(&sh, &o, ea, b, i, c), ea.bits(), v);
            }
        }
        for k in 0..sh.k {
            for j in 0..sh.n {
                let v = code(eb, &mut r, narrow);
                put(&mut w, o.b, b_slot(&sh, &o, eb, b, k, j), eb.bits(), v);
            }
        }
    }
    let oe = out_elem(sh.out);
    let c_row = match o.c {
        CSrc::Rows(x) => x,
        CSrc::Splat(_) => o.d,
    };
    for b in 0..sh.blocks {
        for i in 0..sh.m {
            for j in 0..sh.n {
                let v = if sh.out == Out::I32 {
                    r.next() & 0xffff_ffff
                } else {
                    code(oe, &mut r, narrow)
                };
                put(&mut w, c_row, d_slot(&sh, &o, b, i, j), sh.out.bits(), v);
            }
        }
    }
    if sh.sparse {
        for l in 0..64 {
            w.v[o.index][l] = r.next() as u32;
        }
    }
    if let Some(s) = o.scale {
        for (src, _) in s {
            if let ScaleSrc::Row(x) = src {
                // Scales near 1 (2^-8 .. 2^8) keep the products in range.
                for l in 0..64 {
                    w.v[x][l] =
                        u32::from_le_bytes(std::array::from_fn(|_| 119 + (r.next() % 17) as u8));
                }
            }
        }
    }
    let before = w.clone();
    exec(&mut w, &sh, &o).expect("exec");
    let lanes_moved = sh.family == Family::Cdna && sh.out != Out::F64 && sh.b != Ty::F8f6f4;
    let blgp = |l: usize| match (lanes_moved, o.blgp) {
        (false, _) | (true, 0) => l,
        (true, 1) => l % 32,
        (true, 2) => 32 + l % 32,
        (true, 3) => (l + 16) % 64,
        (true, g) => 16 * (g as usize - 4) + l % 16,
    };
    let neg16 = |v: f64, s: Slot, lo: u32, hi: u32| {
        let bits = if s.bit >= 16 { hi } else { lo };
        if bits != 0 && ea.bits() == 16 && sh.family == Family::Gfx12 {
            -v
        } else {
            v
        }
    };
    let f64neg = |bit: u32| {
        if sh.out == Out::F64 && o.neg >> bit & 1 != 0 {
            -1.0
        } else {
            1.0
        }
    };
    for b in 0..sh.blocks {
        let ab = if sh.sparse || sh.a == Ty::F8f6f4 {
            b
        } else {
            (b >> o.cbsz << o.cbsz) + o.abid as usize
        };
        for i in 0..sh.m {
            for j in 0..sh.n {
                let ds = d_slot(&sh, &o, b, i, j);
                let c_raw = match o.c {
                    CSrc::Rows(x) => get(&before, x, ds, sh.out.bits(), ds.lane),
                    CSrc::Splat(v) => v,
                };
                let mut c = if sh.out == Out::I32 {
                    c_raw as u32 as i32 as f64
                } else {
                    oe.value(c_raw)
                };
                if o.neg_hi & 4 != 0 {
                    c = c.abs();
                }
                if o.neg & 4 != 0 && sh.out != Out::F64 {
                    c = -c;
                }
                c *= f64neg(2);
                // (k, a * b) terms in the engine's order.
                let mut terms = Vec::new();
                for c_i in 0..kc {
                    let sa = a_slot(&sh, &o, ea, ab, i, c_i);
                    let a = neg16(
                        ea.value(get(&before, o.a, sa, ea.bits(), sa.lane)),
                        sa,
                        o.neg & 1,
                        o.neg_hi & 1,
                    ) * f64neg(0);
                    let k = if sh.sparse {
                        let ix = match sh.family {
                            Family::Cdna => layout::cdna_index(sh.m, sh.k, i, c_i, p.index_set),
                            Family::Gfx12 => {
                                layout::gfx12_index(o.wave64, ea.bits(), sh.k, i, c_i, p.index_set)
                            }
                        };
                        4 * (c_i / 2) + ((before.v[o.index][ix.lane] >> ix.bit) & 3) as usize
                    } else {
                        c_i
                    };
                    let sb = b_slot(&sh, &o, eb, b, k, j);
                    let bv = neg16(
                        eb.value(get(&before, o.b, sb, eb.bits(), blgp(sb.lane))),
                        sb,
                        o.neg & 2,
                        o.neg_hi & 2,
                    ) * f64neg(1);
                    let scale = match o.scale {
                        Some([(ScaleSrc::Row(x), bx), (ScaleSrc::Row(y), by)]) => {
                            let kb = k / 32;
                            let sa = (before.v[x][kb * sh.m + i] >> (8 * bx)) as u8 as i32 - 127;
                            let sb = (before.v[y][kb * sh.n + j] >> (8 * by)) as u8 as i32 - 127;
                            2f64.powi(sa + sb)
                        }
                        _ => 1.0,
                    };
                    terms.push(a * bv * scale);
                }
                let want = c + terms.iter().sum::<f64>();
                let mag = c.abs() + terms.iter().map(|t| t.abs()).sum::<f64>();
                let got_raw = get(&w, o.d, ds, sh.out.bits(), ds.lane);
                let got = if sh.out == Out::I32 {
                    got_raw as u32 as i32 as f64
                } else {
                    oe.value(got_raw)
                };
                let tol = match sh.out {
                    Out::I32 => 0.0,
                    Out::F64 => (sh.k + 2) as f64 * 2f64.powi(-53) * mag,
                    Out::F32 => (sh.k + 2) as f64 * 2f64.powi(-24) * mag + 2f64.powi(-140),
                    Out::F16 => {
                        (sh.k + 2) as f64 * 2f64.powi(-24) * mag
                            + 2f64.powi(-11) * want.abs()
                            + 2f64.powi(-25)
                    }
                    Out::Bf16 => {
                        (sh.k + 2) as f64 * 2f64.powi(-24) * mag
                            + 2f64.powi(-8) * want.abs()
                            + 2f64.powi(-133)
                    }
                };
                let want = if sh.out == Out::I32 && !o.clamp {
                    want as i64 as i32 as f64
                } else if sh.out == Out::I32 {
                    want.clamp(i32::MIN as f64, i32::MAX as f64)
                } else {
                    want
                };
                assert!(
                    (got - want).abs() <= tol,
                    "{sh:?} {o:?}: block {b} [{i}][{j}] got {got} want {want} (tol {tol})"
                );
            }
        }
    }
}

fn ops(a: usize, b: usize, c: usize, d: usize) -> Operands {
    Operands::new(a, b, CSrc::Rows(c), d)
}

#[test]
fn cdna_dense_shapes_and_modifiers() {
    use Ty::*;
    let shapes = [
        Shape::mfma(32, 1, 2, F32, F32, Out::F32),
        Shape::mfma(16, 1, 4, F32, F32, Out::F32),
        Shape::mfma(4, 1, 16, F32, F32, Out::F32),
        Shape::mfma(16, 4, 1, F32, F32, Out::F32),
        Shape::mfma(32, 4, 2, F16, F16, Out::F32),
        Shape::mfma(16, 32, 1, Bf16, Bf16, Out::F32),
        Shape::mfma(16, 8, 1, Xf32, Xf32, Out::F32),
        Shape::mfma(32, 4, 1, Xf32, Xf32, Out::F32),
        Shape::mfma(16, 64, 1, I8, I8, Out::I32),
        Shape::mfma(32, 16, 1, Fp8, Bf8, Out::F32),
        Shape::mfma(16, 4, 1, F64, F64, Out::F64),
        Shape::mfma(4, 4, 4, F64, F64, Out::F64),
    ];
    for (n, sh) in shapes.iter().enumerate() {
        for fnuz in [false, true] {
            check(
                *sh,
                Operands {
                    fnuz,
                    ..ops(0, 16, 40, 80)
                },
                n as u64,
            );
        }
        if sh.out == Out::F64 {
            for neg in 0..8 {
                check(
                    *sh,
                    Operands {
                        neg,
                        ..ops(0, 16, 40, 80)
                    },
                    neg as u64,
                );
            }
            continue;
        }
        for blgp in 0..8 {
            check(
                *sh,
                Operands {
                    blgp,
                    ..ops(256, 16, 300, 300)
                },
                blgp as u64,
            );
        }
        let mut cbsz = 1;
        while 1 << cbsz <= sh.blocks {
            check(
                *sh,
                Operands {
                    cbsz,
                    abid: (1 << cbsz) - 1,
                    ..ops(0, 16, 40, 80)
                },
                7,
            );
            cbsz += 1;
        }
    }
    // f64 4x4x4 broadcasts A blocks too.
    check(
        Shape::mfma(4, 4, 4, F64, F64, Out::F64),
        Operands {
            cbsz: 2,
            abid: 1,
            neg: 5,
            ..ops(0, 16, 40, 80)
        },
        3,
    );
}

#[test]
fn f8f6f4_every_format_pair_and_scale_byte() {
    for m in [16, 32] {
        let sh = Shape::mfma(m, 2048 / m, 1, Ty::F8f6f4, Ty::F8f6f4, Out::F32);
        for cbsz in 0..5 {
            for blgp in 0..5 {
                check(
                    sh,
                    Operands {
                        cbsz,
                        blgp,
                        ..ops(0, 16, 40, 80)
                    },
                    (cbsz * 5 + blgp) as u64,
                );
            }
        }
        for (ba, bb) in [(0, 0), (1, 2), (3, 1), (2, 3)] {
            let scale = Some([(ScaleSrc::Row(100), ba), (ScaleSrc::Row(101), bb)]);
            check(
                sh,
                Operands {
                    cbsz: 4,
                    blgp: 0,
                    scale,
                    ..ops(0, 16, 40, 80)
                },
                ba as u64,
            );
        }
    }
}

#[test]
fn smfmac_index_sets() {
    use Ty::*;
    for sh in [
        Shape::smfmac(16, 32, F16, F16, Out::F32),
        Shape::smfmac(32, 16, Bf16, Bf16, Out::F32),
        Shape::smfmac(16, 64, I8, I8, Out::I32),
        Shape::smfmac(32, 32, Fp8, Bf8, Out::F32),
        Shape::smfmac(16, 64, F16, F16, Out::F32),
        Shape::smfmac(16, 128, Fp8, Fp8, Out::F32),
        Shape::smfmac(32, 64, I8, I8, Out::I32),
    ] {
        let sets = layout::cdna_index_sets(sh.m, sh.k);
        for abid in 0..sets as u32 {
            let o = Operands {
                abid,
                index: 90,
                ..ops(0, 16, 40, 40)
            };
            check(sh, o, abid as u64);
        }
        // CBSZ != 0 reads set 0 whatever ABID says.
        check(
            sh,
            Operands {
                cbsz: 1,
                abid: 3,
                index: 90,
                ..ops(0, 16, 40, 40)
            },
            9,
        );
        let bad = Operands {
            abid: sets as u32,
            index: 90,
            ..ops(0, 16, 40, 40)
        };
        assert!(sets == 4 || exec(&mut Wave::new(64, 0), &sh, &bad).is_err());
    }
}

#[test]
fn gfx12_wmma_and_swmmac() {
    use Ty::*;
    for wave64 in [false, true] {
        for sh in [
            Shape::wmma(16, F16, F16, Out::F32),
            Shape::wmma(16, Bf16, Bf16, Out::F32),
            Shape::wmma(16, F16, F16, Out::F16),
            Shape::wmma(16, Bf16, Bf16, Out::Bf16),
            Shape::wmma(16, Fp8, Bf8, Out::F32),
            Shape::wmma(16, Iu8, Iu8, Out::I32),
            Shape::wmma(16, Iu4, Iu4, Out::I32),
            Shape::wmma(32, Iu4, Iu4, Out::I32),
        ] {
            let int = sh.out == Out::I32;
            let f16 = matches!(sh.a, F16 | Bf16);
            for (neg, neg_hi, clamp) in [
                (0, 0, false),
                (3, 0, true),
                (1, 2, false),
                (4, 4, false),
                (6, 5, false),
            ] {
                if (int && (neg > 3 || neg_hi != 0)) || (!int && !f16 && (neg | neg_hi) & 3 != 0) {
                    continue;
                }
                let o = Operands {
                    wave64,
                    neg,
                    neg_hi,
                    clamp,
                    ..ops(0, 16, 40, 80)
                };
                check(sh, o, (neg * 8 + neg_hi) as u64);
            }
        }
        for sh in [
            Shape::swmmac(32, F16, F16, Out::F32),
            Shape::swmmac(32, Bf16, Bf16, Out::Bf16),
            Shape::swmmac(32, Bf8, Fp8, Out::F32),
            Shape::swmmac(32, Iu8, Iu8, Out::I32),
            Shape::swmmac(32, Iu4, Iu4, Out::I32),
            Shape::swmmac(64, Iu4, Iu4, Out::I32),
        ] {
            let sets = layout::gfx12_index_sets(
                wave64,
                Plan::new(&sh, &ops(0, 0, 0, 0)).unwrap().a.bits(),
                sh.k,
            );
            for index_key in 0..sets as u32 {
                let o = Operands {
                    wave64,
                    index_key,
                    index: 90,
                    ..ops(0, 16, 40, 40)
                };
                check(sh, o, index_key as u64);
            }
        }
    }
}

/// Register tuples past the register file and undefined modifier values are refused, not
/// a panic.
#[test]
fn refusals() {
    let mut w = Wave::new(64, 0);
    let sh = Shape::mfma(32, 16, 1, Ty::F16, Ty::F16, Out::F32);
    assert!(exec(&mut w, &sh, &ops(0, 16, 520, 40)).is_err());
    assert!(exec(&mut w, &sh, &ops(0, 16, 40, 520)).is_err());
    let f4 = Shape::mfma(16, 128, 1, Ty::F8f6f4, Ty::F8f6f4, Out::F32);
    assert!(exec(
        &mut w,
        &f4,
        &Operands {
            cbsz: 5,
            ..ops(0, 16, 40, 80)
        }
    )
    .is_err());
    assert!(exec(
        &mut w,
        &f4,
        &Operands {
            abid: 1,
            ..ops(0, 16, 40, 80)
        }
    )
    .is_err());
    let wm = Shape::wmma(16, Ty::Fp8, Ty::Fp8, Out::F32);
    assert!(exec(
        &mut w,
        &wm,
        &Operands {
            neg: 1,
            ..ops(0, 16, 40, 80)
        }
    )
    .is_err());
    let sw = Shape::swmmac(64, Ty::Iu4, Ty::Iu4, Out::I32);
    assert!(exec(
        &mut w,
        &sw,
        &Operands {
            index_key: 1,
            ..ops(0, 16, 40, 40)
        }
    )
    .is_err());
}

/// NaN, infinity and E8M0 NaN propagate.
#[test]
fn specials() {
    let sh = Shape::mfma(16, 128, 1, Ty::F8f6f4, Ty::F8f6f4, Out::F32);
    let mut w = Wave::new(64, 0);
    // A = fp8 1.0 everywhere, B = 0: D = C = 0 except where a scale is NaN.
    for r in 0..8 {
        w.v[r] = [0x3838_3838; 64];
    }
    w.v[100] = [0x7f7f_7f7f; 64];
    w.v[100][3] = 0x7f7f_ff7f;
    w.v[101] = [0x7f7f_7f7f; 64];
    let o = Operands {
        scale: Some([(ScaleSrc::Row(100), 1), (ScaleSrc::Row(101), 0)]),
        ..ops(0, 16, 40, 80)
    };
    exec(&mut w, &sh, &o).unwrap();
    // Lane 3 holds row 3's scale for k block 0: row 3 of D is NaN, the rest 0.
    for i in 0..16 {
        let s = layout::cdna_out(16, 16, 32, 0, i, 0);
        assert_eq!(
            f32::from_bits(w.v[80 + s.reg][s.lane]).is_nan(),
            i == 3,
            "row {i}"
        );
    }
    // OCP bf8 infinity times zero is NaN; times one is infinity.
    let wm = Shape::wmma(16, Ty::Bf8, Ty::Bf8, Out::F32);
    let mut w = Wave::new(32, 0);
    w.v[0] = [0x3c3c_3c7c; 64];
    w.v[1] = [0x3c3c_3c3c; 64];
    w.v[16] = [0x3c3c_3c3c; 64];
    w.v[17] = [0x3c3c_3c3c; 64];
    exec(&mut w, &wm, &ops(0, 16, 40, 80)).unwrap();
    assert_eq!(f32::from_bits(w.v[80][0]), f32::INFINITY);
    w.v[16] = [0; 64];
    w.v[17] = [0; 64];
    exec(&mut w, &wm, &ops(0, 16, 40, 80)).unwrap();
    assert!(f32::from_bits(w.v[80][0]).is_nan());
}

/// Any register numbers and modifier values on every operation: a result or a typed
/// fault, never a panic (run in the test profile: overflow checks on).
#[test]
fn any_operands_no_panic() {
    let mut r = Rng(11);
    let mut w = Wave::new(64, 0);
    for row in 0..super::VGPR_ROWS {
        for l in 0..64 {
            w.v[row][l] = r.next() as u32;
        }
    }
    let shapes: Vec<Shape> = crate::Target::ALL
        .iter()
        .flat_map(|&t| crate::isa::ops(t))
        .filter_map(super::ops::shape)
        .collect();
    for sh in shapes {
        for _ in 0..16 {
            let mut x = || r.next();
            let reg = |v: u64| (v % 540) as usize;
            let src = |v: u64| {
                if v & 1 == 0 {
                    ScaleSrc::Row(reg(v))
                } else {
                    ScaleSrc::Splat(v as u32)
                }
            };
            let o = Operands {
                a: reg(x()),
                b: reg(x()),
                c: if x() & 3 == 0 {
                    CSrc::Splat(x())
                } else {
                    CSrc::Rows(reg(x()))
                },
                d: reg(x()),
                index: reg(x()),
                cbsz: (x() % 8) as u32,
                abid: (x() % 16) as u32,
                blgp: (x() % 8) as u32,
                neg: (x() % 8) as u32,
                neg_hi: (x() % 8) as u32,
                index_key: (x() % 4) as u32,
                clamp: x() & 1 != 0,
                scale: (x() & 1 != 0)
                    .then(|| [(src(x()), (x() % 4) as u32), (src(x()), (x() % 4) as u32)]),
                wave64: x() & 1 != 0,
                fnuz: x() & 1 != 0,
            };
            let _ = exec(&mut w, &sh, &o);
        }
    }
}
