//! Test helper: an exact reference for binary float arithmetic (f16, f32, f64) in the four
//! IEEE 754 rounding directions, written from the standard (values as an integer times a
//! power of two), and the ISA guides' float min/max/med3 rules on bit patterns. It shares
//! no code with the executor (which rounds with `rustc_apfloat`).
#![allow(dead_code)]

/// A binary float format: mantissa and exponent bits.
#[derive(Clone, Copy, Debug)]
pub struct Fmt {
    pub m: u32,
    pub e: u32,
}

pub const H: Fmt = Fmt { m: 10, e: 5 };
pub const S: Fmt = Fmt { m: 23, e: 8 };
pub const D: Fmt = Fmt { m: 52, e: 11 };

impl Fmt {
    pub fn bias(self) -> i32 {
        (1 << (self.e - 1)) - 1
    }
    pub fn sign(self) -> u64 {
        1 << (self.m + self.e)
    }
    pub fn expf(self, x: u64) -> u64 {
        (x >> self.m) & ((1 << self.e) - 1)
    }
    pub fn nan(self, x: u64) -> bool {
        self.expf(x) == (1 << self.e) - 1 && x & ((1 << self.m) - 1) != 0
    }
    pub fn inf(self, x: u64) -> bool {
        self.expf(x) == (1 << self.e) - 1 && x & ((1 << self.m) - 1) == 0
    }
    pub fn quiet(self) -> u64 {
        1 << (self.m - 1)
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rm {
    Ne,
    Up,
    Down,
    Zero,
}

pub fn rm(bits: u32) -> Rm {
    [Rm::Ne, Rm::Up, Rm::Down, Rm::Zero][(bits & 3) as usize]
}

/// `(-1)^neg * mag * 2^exp`, exactly.
#[derive(Clone, Copy, Debug)]
pub struct Ex {
    pub neg: bool,
    pub mag: u128,
    pub exp: i32,
}

pub fn bitlen(x: u128) -> i32 {
    128 - x.leading_zeros() as i32
}

/// The exact value of a finite bit pattern.
pub fn val(x: u64, f: Fmt) -> Ex {
    let ef = f.expf(x) as i32;
    let frac = (x & ((1 << f.m) - 1)) as u128;
    let (mag, e) = if ef == 0 {
        (frac, 1)
    } else {
        (frac | 1 << f.m, ef)
    };
    Ex {
        neg: x & f.sign() != 0,
        mag,
        exp: e - f.bias() - f.m as i32,
    }
}

pub fn neg(x: Ex) -> Ex {
    Ex { neg: !x.neg, ..x }
}

pub fn mulx(a: Ex, b: Ex) -> Ex {
    Ex {
        neg: a.neg != b.neg,
        mag: a.mag * b.mag,
        exp: a.exp + b.exp,
    }
}

/// `a + b`; an exact zero is -0 for two negative zeros, or for any exact cancellation
/// when rounding toward -inf (IEEE 754 6.3).
pub fn addx(a: Ex, b: Ex, r: Rm) -> Ex {
    if a.mag == 0 && b.mag == 0 {
        let n = if a.neg == b.neg { a.neg } else { r == Rm::Down };
        return Ex {
            neg: n,
            mag: 0,
            exp: 0,
        };
    }
    if a.mag == 0 {
        return b;
    }
    if b.mag == 0 {
        return a;
    }
    // Work at the lower exponent, but keep at most 120 bits: an operand that far below
    // the other one only matters as a sticky bit.
    let top = (a.exp + bitlen(a.mag)).max(b.exp + bitlen(b.mag));
    let e = a.exp.min(b.exp).max(top - 120);
    let at = |x: Ex| -> i128 {
        let m = if x.exp >= e {
            x.mag << (x.exp - e)
        } else {
            let sh = (e - x.exp) as u32;
            if sh >= 128 {
                1
            } else {
                (x.mag >> sh) | (x.mag & ((1 << sh) - 1) != 0) as u128
            }
        };
        if x.neg {
            -(m as i128)
        } else {
            m as i128
        }
    };
    let sum = at(a) + at(b);
    Ex {
        neg: if sum == 0 { r == Rm::Down } else { sum < 0 },
        mag: sum.unsigned_abs(),
        exp: e,
    }
}

/// Rounds an exact value into `f` in direction `r` (overflow to inf or the largest
/// finite value by direction; gradual underflow).
pub fn roundx(x: Ex, f: Fmt, r: Rm) -> u64 {
    let sign = if x.neg { f.sign() } else { 0 };
    if x.mag == 0 {
        return sign;
    }
    let emin = 1 - f.bias();
    let top = bitlen(x.mag) - 1 + x.exp;
    // Exponent of the last kept bit.
    let q = top.max(emin) - f.m as i32;
    let (mut kept, up) = if x.exp >= q {
        (x.mag << (x.exp - q), false)
    } else {
        let sh = (q - x.exp) as u32;
        let (k, rest) = if sh >= 128 {
            (0, x.mag)
        } else {
            (x.mag >> sh, x.mag & ((1 << sh) - 1))
        };
        let half = if sh > 128 {
            u128::MAX
        } else {
            1u128 << (sh - 1)
        };
        let up = rest != 0
            && match r {
                Rm::Ne => rest > half || (rest == half && k & 1 == 1),
                Rm::Up => !x.neg,
                Rm::Down => x.neg,
                Rm::Zero => false,
            };
        (k, up)
    };
    kept += up as u128;
    let mut q = q;
    if kept >> (f.m + 1) != 0 {
        kept >>= 1;
        q += 1;
    }
    let inf = ((1u64 << f.e) - 1) << f.m;
    if kept >> f.m == 0 {
        // Denormal (or zero after rounding down).
        return sign | kept as u64;
    }
    let biased = q + f.m as i32 + f.bias();
    if biased >= (1 << f.e) - 1 {
        let to_inf = match r {
            Rm::Ne => true,
            Rm::Zero => false,
            Rm::Up => !x.neg,
            Rm::Down => x.neg,
        };
        return sign | if to_inf { inf } else { inf - 1 };
    }
    sign | (biased as u64) << f.m | (kept as u64 & ((1 << f.m) - 1))
}

/// A denormal as zero of the same sign unless `keep`.
pub fn flush(x: u64, f: Fmt, keep: bool) -> u64 {
    if !keep && f.expf(x) == 0 {
        x & f.sign()
    } else {
        x
    }
}

/// The value of a non-NaN pattern as f64 (exact for f16 and f32), for ordering only.
pub fn as_f64(x: u64, f: Fmt) -> f64 {
    if f.inf(x) {
        return if x & f.sign() != 0 {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
    }
    let v = val(x, f);
    let m = v.mag as f64 * 2f64.powi(v.exp);
    if v.neg {
        -m
    } else {
        m
    }
}

/// V_MIN / V_MAX (Vega / CDNA3 pseudo-code) on bit patterns.
pub fn minmax(a: u64, b: u64, max: bool, ieee: bool, f: Fmt) -> u64 {
    let snan = |x: u64| f.nan(x) && x & f.quiet() == 0;
    if ieee && snan(a) {
        return a | f.quiet();
    }
    if ieee && snan(b) {
        return b | f.quiet();
    }
    if f.nan(a) {
        return b;
    }
    if f.nan(b) {
        return a;
    }
    let (x, y) = (as_f64(a, f), as_f64(b, f));
    let a_wins = if x == y {
        (a & f.sign() != 0) != max
    } else {
        (x < y) != max
    };
    if a_wins {
        a
    } else {
        b
    }
}

/// V_MED3_F32 pseudo-code.
pub fn med3(a: u64, b: u64, c: u64, ieee: bool, f: Fmt) -> u64 {
    let mn = |x, y| minmax(x, y, false, ieee, f);
    let mx = |x, y| minmax(x, y, true, ieee, f);
    if f.nan(a) || f.nan(b) || f.nan(c) {
        return mn(mn(a, b), c);
    }
    let m = as_f64(mx(mx(a, b), c), f);
    if m == as_f64(a, f) {
        mx(b, c)
    } else if m == as_f64(b, f) {
        mx(a, c)
    } else {
        mx(a, b)
    }
}
