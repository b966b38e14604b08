//! Test helper: a reference for the narrow float formats written from their definitions
//! (OCP 8-bit FP spec v1.0, OCP MX spec v1.0, the FNUZ variants, IEEE 754 binary16 and
//! bfloat16), independent of the executor: values by the formula, rounding to nearest
//! even by searching every code for the nearest value, stochastic rounding as "the lower
//! neighbour, or the upper one when the fraction of a place plus the random fraction
//! reaches one place". (Each test binary uses a part of it.)
#![allow(dead_code)]

/// A narrow float format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fmt {
    /// OCP E4M3 (bias 7, `S.1111.111` NaN, no infinity).
    Fp8,
    /// OCP E5M2 (bias 15, IEEE specials).
    Bf8,
    /// E4M3 FNUZ (bias 8, `0x80` NaN).
    Fp8Fnuz,
    /// E5M2 FNUZ (bias 16, `0x80` NaN).
    Bf8Fnuz,
    /// MX E2M3 (bias 1).
    Fp6,
    /// MX E3M2 (bias 3).
    Bf6,
    /// MX E2M1 (bias 1).
    Fp4,
    /// IEEE binary16.
    F16,
    /// bfloat16.
    Bf16,
}

impl Fmt {
    /// (exponent bits, mantissa bits, bias).
    pub fn layout(self) -> (u32, u32, i32) {
        match self {
            Fmt::Fp8 => (4, 3, 7),
            Fmt::Bf8 => (5, 2, 15),
            Fmt::Fp8Fnuz => (4, 3, 8),
            Fmt::Bf8Fnuz => (5, 2, 16),
            Fmt::Fp6 => (2, 3, 1),
            Fmt::Bf6 => (3, 2, 3),
            Fmt::Fp4 => (2, 1, 1),
            Fmt::F16 => (5, 10, 15),
            Fmt::Bf16 => (8, 7, 127),
        }
    }

    /// Width in bits.
    pub fn bits(self) -> u32 {
        let (e, m, _) = self.layout();
        1 + e + m
    }

    /// Mantissa bits.
    pub fn mbits(self) -> u32 {
        self.layout().1
    }

    /// Has IEEE infinities.
    pub fn has_inf(self) -> bool {
        matches!(self, Fmt::Bf8 | Fmt::F16 | Fmt::Bf16)
    }

    /// FNUZ (one NaN `0x80`, no negative zero).
    pub fn fnuz(self) -> bool {
        matches!(self, Fmt::Fp8Fnuz | Fmt::Bf8Fnuz)
    }

    /// No NaN and no infinity.
    pub fn finite_only(self) -> bool {
        matches!(self, Fmt::Fp6 | Fmt::Bf6 | Fmt::Fp4)
    }

    /// The sign bit.
    pub fn sign(self) -> u32 {
        1 << (self.bits() - 1)
    }

    /// The value of `code` by the definition (NaN codes: NaN).
    pub fn value(self, code: u32) -> f64 {
        let (eb, mb, bias) = self.layout();
        let code = code & ((1 << self.bits()) - 1);
        let neg = code & self.sign() != 0;
        let e = (code >> mb) & ((1 << eb) - 1);
        let m = code & ((1 << mb) - 1);
        let emax = (1 << eb) - 1;
        if self.fnuz() && code == 0x80 {
            return f64::NAN;
        }
        if self == Fmt::Fp8 && e == emax && m == 7 {
            return f64::NAN;
        }
        if self.has_inf() && e == emax {
            return if m != 0 {
                f64::NAN
            } else if neg {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            };
        }
        let frac = m as f64 / (1u64 << mb) as f64;
        let mag = if e == 0 {
            frac * 2f64.powi(1 - bias)
        } else {
            (1.0 + frac) * 2f64.powi(e as i32 - bias)
        };
        if neg {
            -mag
        } else {
            mag
        }
    }

    /// Every finite non-negative code with its value, ascending (+0 first); computed once
    /// per format.
    pub fn ladder(self) -> &'static [(u32, f64)] {
        use std::sync::OnceLock;
        static LADDERS: [OnceLock<Vec<(u32, f64)>>; 9] = [const { OnceLock::new() }; 9];
        LADDERS[self as usize].get_or_init(|| {
            let mut v: Vec<(u32, f64)> = (0..self.sign())
                .map(|c| (c, self.value(c)))
                .filter(|(_, x)| x.is_finite())
                .collect();
            v.sort_by(|a, b| a.1.partial_cmp(&b.1).unwrap());
            v
        })
    }

    /// The smallest normal exponent.
    pub fn emin(self) -> i32 {
        1 - self.layout().2
    }

    /// The largest finite value.
    pub fn max(self) -> f64 {
        self.ladder().last().unwrap().1
    }

    /// The code of the largest finite magnitude.
    pub fn max_code(self) -> u32 {
        self.ladder().last().unwrap().0
    }

    /// The code of zero with the sign of `neg` (FNUZ: always +0).
    pub fn zero(self, neg: bool) -> u32 {
        if neg && !self.fnuz() {
            self.sign()
        } else {
            0
        }
    }
}

/// What a value past the finite range becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ovf {
    /// Infinity (IEEE kinds), NaN `S.1111.111` (OCP E4M3), `0x80` (FNUZ); the MX formats
    /// saturate.
    Special,
    /// Finite overflow and infinities to the largest finite value.
    Saturate,
}

/// The code of an overflowed magnitude of sign `neg`.
pub fn overflow(f: Fmt, neg: bool, ovf: Ovf) -> u32 {
    let s = if neg { f.sign() } else { 0 };
    if ovf == Ovf::Saturate || f.finite_only() {
        return s | f.max_code();
    }
    match f {
        Fmt::Fp8Fnuz | Fmt::Bf8Fnuz => 0x80,
        Fmt::Fp8 => s | 0x7f,
        Fmt::Bf8 => s | 0x7c,
        Fmt::F16 => s | 0x7c00,
        _ => s | 0x7f80,
    }
}

/// Round to nearest, ties to the even code, by searching the ladder. `v` finite. A value
/// at or past the midpoint between the largest finite value and the next value the
/// format's exponent would give (a tie goes to the even of the two: up, except for OCP
/// E4M3 whose largest mantissa `110` is even) is an overflow; NaN and infinity are the
/// caller's.
pub fn nearest(f: Fmt, v: f64, ovf: Ovf) -> u32 {
    let neg = v.is_sign_negative();
    let a = v.abs();
    let lad = f.ladder();
    let (max_code, max) = *lad.last().unwrap();
    let ulp_top = max - lad[lad.len() - 2].1;
    let beyond = max + ulp_top;
    let tie = (max + beyond) / 2.0;
    if a > tie || (a == tie && max_code & 1 == 1) {
        return overflow(f, neg, ovf);
    }
    // The two ladder values around `a`, the nearer one (a tie: the even code).
    let i = lad.partition_point(|&(_, x)| x < a).min(lad.len() - 1);
    let mut best = (0u32, f64::INFINITY);
    for &(c, x) in &lad[i.saturating_sub(1)..=i] {
        let d = (x - a).abs();
        if d < best.1 || (d == best.1 && c & 1 == 0) {
            best = (c, d);
        }
    }
    if best.0 == 0 {
        return f.zero(neg);
    }
    best.0 | if neg { f.sign() } else { 0 }
}

/// Stochastic rounding of a finite `v` given at the operand's precision (`src_mbits`
/// mantissa bits): the lower neighbour `L` on the ladder, or the next value up when
/// `(|v| - L) / (U - L) + r >= 1` with `r` the top `src_mbits - m` bits of `seed` as a
/// fraction. (The hardware adds those bits to the dropped mantissa bits and truncates;
/// this is the same sum, as arithmetic on values.) Below the smallest normal the operand
/// is first cut to a multiple of `2^(emin - src_mbits)`: the hardware aligns the
/// significand to the smallest normal exponent and the bits shifted out are lost.
pub fn stochastic(f: Fmt, v: f64, seed: u32, src_mbits: u32, ovf: Ovf) -> u32 {
    let neg = v.is_sign_negative();
    let mut a = v.abs();
    if a < 2f64.powi(f.emin()) {
        let q = 2f64.powi(f.emin() - src_mbits as i32);
        a = (a / q).floor() * q;
    }
    let lad = f.ladder();
    let (max_code, max) = *lad.last().unwrap();
    let ulp_top = max - lad[lad.len() - 2].1;
    let idx = lad.iter().rposition(|&(_, x)| x <= a).unwrap();
    let (lc, lv) = lad[idx];
    let (uc, uv) = if idx + 1 < lad.len() {
        (Some(lad[idx + 1].0), lad[idx + 1].1)
    } else {
        (None, max + ulp_top)
    };
    if a > max + ulp_top {
        return overflow(f, neg, ovf);
    }
    let drop = src_mbits - f.mbits();
    let r = if drop == 0 {
        0.0
    } else {
        (seed >> (32 - drop)) as f64 / (1u64 << drop) as f64
    };
    let frac = (a - lv) / (uv - lv);
    let up = a != lv && frac + r >= 1.0;
    let code = if up {
        match uc {
            Some(c) => c,
            None => return overflow(f, neg, ovf),
        }
    } else {
        lc
    };
    let _ = max_code;
    if code == 0 {
        return f.zero(neg);
    }
    code | if neg { f.sign() } else { 0 }
}

/// `v_prng_b32` (CDNA4 ISA guide): a Galois LFSR step with taps 197.
pub fn prng(x: u32) -> u32 {
    (x << 1) ^ if x >> 31 != 0 { 197 } else { 0 }
}

/// A value on the stochastic-rounding grid of `f` for operands of `src_mbits` mantissa
/// bits: a random finite code's value plus a random number of operand places (so the
/// reference's arithmetic is exact), with a random sign.
pub fn sr_value(f: Fmt, src_mbits: u32, k: u32, rnd: impl Fn(u32) -> u32) -> f64 {
    let lad = f.ladder();
    let r = rnd(k);
    let i = (r as usize) % lad.len();
    let lo = lad[i].1;
    let hi = if i + 1 < lad.len() {
        lad[i + 1].1
    } else {
        lo + (lo - lad[i - 1].1)
    };
    let drop = src_mbits - f.mbits();
    let steps = rnd(k + 7) & ((1 << drop) - 1);
    let v = lo + (hi - lo) * steps as f64 / (1u64 << drop) as f64;
    if r >> 31 != 0 {
        -v
    } else {
        v
    }
}
