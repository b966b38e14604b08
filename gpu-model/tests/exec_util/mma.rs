//! Test helper for the matrix-core tests (`exec_mfma`, `exec_wmma`): element formats with
//! decoders written here from the formats' definitions (independent of the executor's),
//! random operand codes that make rounding visible, tuple packing, and the comparison of a
//! result with an f64 reference under the tolerance `exec/matrix.rs` documents.
#![allow(dead_code)]

/// A small deterministic generator (splitmix64).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A source element format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fmt {
    F64,
    F32,
    /// An f32 register read with a 10-bit mantissa (nearest even).
    Xf32,
    F16,
    Bf16,
    I8,
    U8,
    I4,
    U4,
    /// OCP E4M3FN.
    Fp8,
    /// OCP E5M2.
    Bf8,
    /// E4M3FNUZ (gfx942).
    Fp8Fnuz,
    /// E5M2FNUZ (gfx942).
    Bf8Fnuz,
    /// OCP MX E2M3.
    Fp6,
    /// OCP MX E3M2.
    Bf6,
    /// OCP MX E2M1.
    Fp4,
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Ieee,
    NanOnly,
    Fnuz,
    Finite,
}

/// `code` of a float with `e` exponent and `m` mantissa bits and `bias`, from the
/// definitions: OCP 8-bit FP spec (E4M3: `S.1111.111` NaN only; E5M2: IEEE specials),
/// FNUZ (`0x80` the one NaN), OCP MX v1.0 (E2M3, E3M2, E2M1: no specials).
fn minifloat(code: u64, e: u32, m: u32, bias: i32, kind: Kind) -> f64 {
    let width = 1 + e + m;
    let code = code & ((1 << width) - 1);
    let neg = code >> (e + m) != 0;
    let ex = ((code >> m) & ((1 << e) - 1)) as i32;
    let man = (code & ((1 << m) - 1)) as f64;
    let all = (1 << e) - 1;
    match kind {
        Kind::Fnuz if code == 1 << (width - 1) => return f64::NAN,
        Kind::NanOnly if ex == all && man as u64 == (1 << m) - 1 => return f64::NAN,
        Kind::Ieee if ex == all => {
            return match (man == 0.0, neg) {
                (false, _) => f64::NAN,
                (true, false) => f64::INFINITY,
                (true, true) => f64::NEG_INFINITY,
            }
        }
        _ => {}
    }
    let scale = 2f64.powi(-(m as i32));
    let v = if ex == 0 {
        man * scale * 2f64.powi(1 - bias)
    } else {
        (1.0 + man * scale) * 2f64.powi(ex - bias)
    };
    if neg {
        -v
    } else {
        v
    }
}

impl Fmt {
    pub fn bits(self) -> usize {
        match self {
            Fmt::F64 => 64,
            Fmt::F32 | Fmt::Xf32 => 32,
            Fmt::F16 | Fmt::Bf16 => 16,
            Fmt::I8 | Fmt::U8 | Fmt::Fp8 | Fmt::Bf8 | Fmt::Fp8Fnuz | Fmt::Bf8Fnuz => 8,
            Fmt::Fp6 | Fmt::Bf6 => 6,
            Fmt::I4 | Fmt::U4 | Fmt::Fp4 => 4,
        }
    }

    /// The exact value of `code`.
    pub fn value(self, code: u64) -> f64 {
        match self {
            Fmt::F64 => f64::from_bits(code),
            Fmt::F32 => f32::from_bits(code as u32) as f64,
            Fmt::Xf32 => {
                // Nearest even at 11 significant bits (normal values; the tests make no
                // others).
                let x = f32::from_bits(code as u32) as f64;
                if !x.is_finite() || x == 0.0 {
                    return x;
                }
                let e = ((code >> 23) & 0xff) as i32 - 127;
                let q = 2f64.powi(e - 10);
                (x / q).round_ties_even() * q
            }
            Fmt::F16 => minifloat(code, 5, 10, 15, Kind::Ieee),
            Fmt::Bf16 => minifloat(code, 8, 7, 127, Kind::Ieee),
            Fmt::I8 => code as u8 as i8 as f64,
            Fmt::U8 => (code & 0xff) as f64,
            Fmt::I4 => ((code & 0xf) as i64 - if code & 8 != 0 { 16 } else { 0 }) as f64,
            Fmt::U4 => (code & 0xf) as f64,
            Fmt::Fp8 => minifloat(code, 4, 3, 7, Kind::NanOnly),
            Fmt::Bf8 => minifloat(code, 5, 2, 15, Kind::Ieee),
            Fmt::Fp8Fnuz => minifloat(code, 4, 3, 8, Kind::Fnuz),
            Fmt::Bf8Fnuz => minifloat(code, 5, 2, 16, Kind::Fnuz),
            Fmt::Fp6 => minifloat(code, 2, 3, 1, Kind::Finite),
            Fmt::Bf6 => minifloat(code, 3, 2, 3, Kind::Finite),
            Fmt::Fp4 => minifloat(code, 2, 1, 1, Kind::Finite),
        }
    }

    /// A random finite code spread over the format: every code of the 8-, 6- and 4-bit
    /// floats (denormals included), f16 with every exponent (`narrow`: 2^-7 .. 2^4, so
    /// f16 results stay finite), bf16/f32/xf32 with exponents -30 .. 30, f64 -60 .. 60,
    /// random mantissas.
    pub fn random(self, r: &mut Rng, narrow: bool) -> u64 {
        let x = r.next();
        let s = x >> 63;
        let exp = |bias: u64, span: u64| bias + (x >> 40) % (2 * span + 1) - span;
        match self {
            Fmt::F64 => s << 63 | exp(1023, 60) << 52 | x & ((1 << 52) - 1),
            Fmt::F32 | Fmt::Xf32 => s << 31 | exp(127, 30) << 23 | x & 0x7f_ffff,
            Fmt::Bf16 => s << 15 | exp(127, 30) << 7 | x & 0x7f,
            Fmt::F16 if narrow => s << 15 | (8 + (x >> 40) % 12) << 10 | x & 0x3ff,
            Fmt::F16 => s << 15 | ((x >> 40) % 31) << 10 | x & 0x3ff,
            _ => loop {
                let c = r.next() & ((1 << self.bits()) - 1);
                if self.value(c).is_finite() {
                    return c;
                }
            },
        }
    }
}

impl Fmt {
    /// Codes of the format's infinities and NaNs (none for the finite-only formats and
    /// integers).
    pub fn specials(self) -> &'static [u64] {
        match self {
            Fmt::F32 | Fmt::Xf32 => &[0x7f80_0000, 0xff80_0000, 0x7fc0_0000],
            Fmt::F64 => &[0x7ff0_0000_0000_0000, 0x7ff8_0000_0000_0000],
            Fmt::F16 => &[0x7c00, 0xfc00, 0x7e00],
            Fmt::Bf16 => &[0x7f80, 0xff80, 0x7fc0],
            Fmt::Fp8 => &[0x7f, 0xff],
            Fmt::Bf8 => &[0x7c, 0xfc, 0x7e],
            Fmt::Fp8Fnuz | Fmt::Bf8Fnuz => &[0x80],
            _ => &[],
        }
    }
}

/// Replaces a few random elements of each lane group's tuples with special values:
/// `count` slots over all lanes of a tuple of `per` elements per lane.
pub fn sprinkle(t: &mut [Vec<u32>], fmt: Fmt, per: usize, count: usize, r: &mut Rng) {
    let sp = fmt.specials();
    if sp.is_empty() {
        return;
    }
    for _ in 0..count {
        let l = r.below(t.len() as u64) as usize;
        let e = r.below(per as u64) as usize;
        pack(
            &mut t[l],
            e * fmt.bits(),
            fmt.bits(),
            sp[r.below(sp.len() as u64) as usize],
        );
    }
}

/// A result element format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Out {
    F32,
    F64,
    I32,
    F16,
    Bf16,
}

impl Out {
    pub fn bits(self) -> usize {
        match self {
            Out::F64 => 64,
            Out::F16 | Out::Bf16 => 16,
            Out::F32 | Out::I32 => 32,
        }
    }

    pub fn value(self, code: u64) -> f64 {
        match self {
            Out::F32 => f32::from_bits(code as u32) as f64,
            Out::F64 => f64::from_bits(code),
            Out::I32 => code as u32 as i32 as f64,
            Out::F16 => Fmt::F16.value(code),
            Out::Bf16 => Fmt::Bf16.value(code),
        }
    }

    /// A random C value (integers: any i32; floats: exponents -8 .. 8).
    pub fn random(self, r: &mut Rng) -> u64 {
        let x = r.next();
        let s = x >> 63;
        let e = (x >> 40) % 17;
        match self {
            Out::I32 => x & 0xffff_ffff,
            Out::F32 => s << 31 | (119 + e) << 23 | x & 0x7f_ffff,
            Out::F64 => s << 63 | (1015 + e) << 52 | x & ((1 << 52) - 1),
            Out::F16 => s << 15 | (7 + e % 12) << 10 | x & 0x3ff,
            Out::Bf16 => s << 15 | (119 + e) << 7 | x & 0x7f,
        }
    }
}

/// Writes `width`-bit `code` at bit `bit` of a lane's register tuple `words`.
pub fn pack(words: &mut [u32], bit: usize, width: usize, code: u64) {
    for b in 0..width {
        let (w, o) = ((bit + b) / 32, (bit + b) % 32);
        words[w] = words[w] & !(1 << o) | (((code >> b) & 1) as u32) << o;
    }
}

/// The `width`-bit field at bit `bit` of a lane's register tuple `words`.
pub fn unpack(words: &[u32], bit: usize, width: usize) -> u64 {
    (0..width).fold(0, |v, b| {
        let (w, o) = ((bit + b) / 32, (bit + b) % 32);
        v | (((words[w] >> o) & 1) as u64) << b
    })
}

/// The reference of one result element: `c` plus the products `terms` (in k order),
/// exact in f64.
pub struct Want {
    pub c: f64,
    pub terms: Vec<f64>,
}

impl Want {
    /// Checks the result `got` (raw bits of format `out`) against the reference with the
    /// tolerance of `exec/matrix.rs` ("Numerics"): f32 accumulation within `(k + 2) *
    /// 2^-24 * (|C| + sum |a*b|)`, f64 the same with 2^-53, f16/bf16 results one more
    /// half-ulp of the result, integers exact (wrapped to i32, or saturated under
    /// `clamp`); NaN and infinities exactly.
    pub fn check(&self, got: u64, out: Out, clamp: bool, what: &dyn Fn() -> String) {
        let want = self.c + self.terms.iter().sum::<f64>();
        let got = out.value(got);
        if out == Out::I32 {
            let want = if clamp {
                want.clamp(i32::MIN as f64, i32::MAX as f64)
            } else {
                want as i64 as i32 as f64
            };
            assert_eq!(got, want, "{}", what());
            return;
        }
        if want.is_nan() || want.is_infinite() {
            assert!(
                got.is_nan() && want.is_nan() || got == want,
                "{}: got {got}, want {want}",
                what()
            );
            return;
        }
        let k = self.terms.len() as f64;
        let mag = self.c.abs() + self.terms.iter().map(|t| t.abs()).sum::<f64>();
        let tol = match out {
            Out::F64 => (k + 2.0) * 2f64.powi(-53) * mag,
            Out::F32 => (k + 2.0) * 2f64.powi(-24) * mag + 2f64.powi(-140),
            Out::F16 => {
                (k + 2.0) * 2f64.powi(-24) * mag + 2f64.powi(-11) * want.abs() + 2f64.powi(-25)
            }
            Out::Bf16 => {
                (k + 2.0) * 2f64.powi(-24) * mag + 2f64.powi(-8) * want.abs() + 2f64.powi(-133)
            }
            Out::I32 => 0.0,
        };
        assert!(
            (got - want).abs() <= tol,
            "{}: got {got}, want {want} (tolerance {tol})",
            what()
        );
    }
}
