//! C `printf` formatting of the arguments a kernel sent, as the host runtime prints them.
//!
//! ROCclr's hostcall printf (`rocclr/device/devhcprintf.cpp`, `format`) splits the format
//! string at each conversion and hands the conversion with its argument to the host C
//! library's `vfprintf`; the arguments arrive as 64-bit words (integers zero-extended,
//! floats as `double` bits, strings inline). We format the same conversions ourselves, the
//! way glibc's `printf` does, so the text does not depend on the host's C library:
//!
//! * flags `-+ #0`, a width and a precision (either may be `*`, taken from the arguments),
//!   length modifiers `hh h l ll j z t L q` (the integer conversions cast to the width they
//!   name, as `vfprintf` reads them: `%d` the low 32 bits, `%hhd` the low 8, `%ld` all 64);
//! * conversions `d i o u x X c s p f F e E g G a A n %` (`%n` consumes its argument and
//!   writes nothing, as ROCclr does);
//! * `%p` prints `0x` and lower-case hex, `(nil)` for null (glibc), `inf`/`nan` with the
//!   sign glibc gives them.
//!
//! Like ROCclr, formatting stops at the first conversion that has no argument left, and at
//! a `%` that is not followed by a conversion character.

/// Where a format's arguments come from (hostcall message words or a printf-buffer record).
pub(crate) trait Args {
    /// The next integer or pointer argument (raw bits, zero-extended).
    fn int(&mut self) -> Option<u64>;
    /// The next floating-point argument.
    fn float(&mut self) -> Option<f64>;
    /// The next string argument's bytes (without the terminating null).
    fn string(&mut self) -> Option<Vec<u8>>;
}

/// One parsed conversion specification.
#[derive(Debug, Default, Clone, Copy)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
    /// Integer width in bytes the length modifier names (4 without one).
    int_bytes: u8,
    conv: u8,
}

/// Conversion characters (ROCclr's `convSpecifiers`).
const CONVERSIONS: &[u8] = b"diouxXfFeEgGaAcspn";

/// Formats `fmt` with arguments from `args`, appending to `out`. Returns the number of
/// bytes written (what the device's `printf` returns).
pub(crate) fn format(fmt: &[u8], args: &mut dyn Args, out: &mut Vec<u8>) -> usize {
    let start = out.len();
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        if c != b'%' {
            out.push(c);
            i += 1;
            continue;
        }
        i += 1;
        if fmt.get(i) == Some(&b'%') {
            out.push(b'%');
            i += 1;
            continue;
        }
        let Some((spec, next)) = parse(fmt, i, args) else {
            break;
        };
        i = next;
        if !convert(&spec, args, out) {
            break;
        }
    }
    out.len() - start
}

/// Parses the specification after a `%` at `i`; `*` widths consume arguments. `None` when
/// there is no conversion character or an argument is missing.
fn parse(fmt: &[u8], mut i: usize, args: &mut dyn Args) -> Option<(Spec, usize)> {
    let mut s = Spec {
        int_bytes: 4,
        ..Spec::default()
    };
    while let Some(&c) = fmt.get(i) {
        match c {
            b'-' => s.left = true,
            b'+' => s.plus = true,
            b' ' => s.space = true,
            b'#' => s.alt = true,
            b'0' => s.zero = true,
            _ => break,
        }
        i += 1;
    }
    if fmt.get(i) == Some(&b'*') {
        let w = args.int()? as u32 as i32;
        if w < 0 {
            s.left = true;
        }
        s.width = w.unsigned_abs() as usize;
        i += 1;
    } else {
        while let Some(d) = fmt.get(i).filter(|c| c.is_ascii_digit()) {
            s.width = s
                .width
                .saturating_mul(10)
                .saturating_add(usize::from(d - b'0'));
            i += 1;
        }
    }
    if fmt.get(i) == Some(&b'.') {
        i += 1;
        if fmt.get(i) == Some(&b'*') {
            let p = args.int()? as u32 as i32;
            // A negative precision is taken as if it were omitted.
            s.precision = (p >= 0).then_some(p as usize);
            i += 1;
        } else {
            let mut p = 0usize;
            while let Some(d) = fmt.get(i).filter(|c| c.is_ascii_digit()) {
                p = p.saturating_mul(10).saturating_add(usize::from(d - b'0'));
                i += 1;
            }
            s.precision = Some(p);
        }
    }
    loop {
        match fmt.get(i) {
            Some(b'h') if fmt.get(i + 1) == Some(&b'h') => {
                s.int_bytes = 1;
                i += 2;
            }
            Some(b'h') => {
                s.int_bytes = 2;
                i += 1;
            }
            Some(b'l' | b'j' | b'z' | b't' | b'q' | b'L') => {
                s.int_bytes = 8;
                i += 1;
            }
            _ => break,
        }
    }
    let c = *fmt.get(i)?;
    if !CONVERSIONS.contains(&c) {
        return None;
    }
    s.conv = c;
    Some((s, i + 1))
}

/// Formats one conversion; false when its argument is missing.
fn convert(s: &Spec, args: &mut dyn Args, out: &mut Vec<u8>) -> bool {
    match s.conv {
        b'd' | b'i' => {
            let Some(v) = args.int() else { return false };
            let v = match s.int_bytes {
                1 => i64::from(v as i8),
                2 => i64::from(v as i16),
                4 => i64::from(v as i32),
                _ => v as i64,
            };
            let sign = if v < 0 {
                "-"
            } else if s.plus {
                "+"
            } else if s.space {
                " "
            } else {
                ""
            };
            integer(s, sign, "", &v.unsigned_abs().to_string(), out);
        }
        b'o' | b'u' | b'x' | b'X' => {
            let Some(v) = args.int() else { return false };
            let v = match s.int_bytes {
                1 => u64::from(v as u8),
                2 => u64::from(v as u16),
                4 => u64::from(v as u32),
                _ => v,
            };
            let (digits, prefix) = match s.conv {
                b'o' => (format!("{v:o}"), ""),
                b'u' => (v.to_string(), ""),
                b'x' => (format!("{v:x}"), if s.alt && v != 0 { "0x" } else { "" }),
                _ => (format!("{v:X}"), if s.alt && v != 0 { "0X" } else { "" }),
            };
            let mut digits = digits;
            if s.conv == b'o' && s.alt && !digits.starts_with('0') {
                // `#o`: the first digit is a zero (after the precision's zeros, if any).
                let p = s.precision.unwrap_or(0);
                if p <= digits.len() {
                    digits.insert(0, '0');
                }
            }
            integer(s, "", prefix, &digits, out);
        }
        b'c' => {
            let Some(v) = args.int() else { return false };
            pad(s, &[v as u8], out);
        }
        b's' => {
            let Some(mut v) = args.string() else {
                return false;
            };
            if let Some(p) = s.precision {
                v.truncate(p);
            }
            pad(s, &v, out);
        }
        b'p' => {
            let Some(v) = args.int() else { return false };
            if v == 0 {
                pad(s, b"(nil)", out);
            } else {
                let sign = if s.plus {
                    "+"
                } else if s.space {
                    " "
                } else {
                    ""
                };
                integer(s, sign, "0x", &format!("{v:x}"), out);
            }
        }
        b'n' => {
            if args.int().is_none() {
                return false;
            }
        }
        _ => {
            let Some(v) = args.float() else { return false };
            float(s, v, out);
        }
    }
    true
}

/// Writes `body` padded to the width with spaces (left or right).
fn pad(s: &Spec, body: &[u8], out: &mut Vec<u8>) {
    let fill = s.width.saturating_sub(body.len());
    if !s.left {
        out.resize(out.len() + fill, b' ');
    }
    out.extend_from_slice(body);
    if s.left {
        out.resize(out.len() + fill, b' ');
    }
}

/// An integer: sign, prefix, digits with the precision's leading zeros, padded (zeros
/// after the prefix for `0` without a precision or `-`).
fn integer(s: &Spec, sign: &str, prefix: &str, digits: &str, out: &mut Vec<u8>) {
    let digits = match s.precision {
        // Precision 0 and value 0: no digits at all.
        Some(0) if digits == "0" => "",
        _ => digits,
    };
    let zeros = s.precision.map_or(0, |p| p.saturating_sub(digits.len()));
    let len = sign.len() + prefix.len() + zeros + digits.len();
    let fill = s.width.saturating_sub(len);
    let zero_pad = s.zero && !s.left && s.precision.is_none();
    if !s.left && !zero_pad {
        out.resize(out.len() + fill, b' ');
    }
    out.extend_from_slice(sign.as_bytes());
    out.extend_from_slice(prefix.as_bytes());
    if zero_pad {
        out.resize(out.len() + fill, b'0');
    }
    out.resize(out.len() + zeros, b'0');
    out.extend_from_slice(digits.as_bytes());
    if s.left {
        out.resize(out.len() + fill, b' ');
    }
}

/// `%f %e %g %a` and their upper-case forms.
fn float(s: &Spec, v: f64, out: &mut Vec<u8>) {
    let upper = s.conv.is_ascii_uppercase();
    let sign = if v.is_sign_negative() {
        "-"
    } else if s.plus {
        "+"
    } else if s.space {
        " "
    } else {
        ""
    };
    if !v.is_finite() {
        let t = match (v.is_nan(), upper) {
            (true, false) => "nan",
            (true, true) => "NAN",
            (false, false) => "inf",
            (false, true) => "INF",
        };
        let spec = Spec { zero: false, ..*s };
        integer(&spec, sign, "", t, out);
        return;
    }
    let a = v.abs();
    let body = match s.conv.to_ascii_lowercase() {
        b'f' => fixed(a, s.precision.unwrap_or(6), s.alt),
        b'e' => exponent(a, s.precision.unwrap_or(6), s.alt),
        b'g' => general(a, s.precision.unwrap_or(6), s.alt),
        _ => hex_float(a, s.precision, s.alt),
    };
    let body = if upper {
        body.to_ascii_uppercase()
    } else {
        body
    };
    let (prefix, digits) = match body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        Some(rest) => (&body[..2], rest),
        None => ("", body.as_str()),
    };
    let spec = Spec {
        precision: None,
        ..*s
    };
    integer(&spec, sign, prefix, digits, out);
}

/// `%f`: Rust's `{:.p}` prints the exact value correctly rounded, as glibc does.
fn fixed(a: f64, p: usize, alt: bool) -> String {
    let mut t = format!("{a:.p$}");
    if alt && p == 0 {
        t.push('.');
    }
    t
}

/// `%e`: mantissa from Rust's `{:.pe}`, exponent with a sign and at least two digits.
fn exponent(a: f64, p: usize, alt: bool) -> String {
    let t = format!("{a:.p$e}");
    let (m, e) = t.split_once('e').unwrap_or((&t, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    let mut m = m.to_string();
    if alt && p == 0 {
        m.push('.');
    }
    let sign = if e < 0 { '-' } else { '+' };
    format!("{m}e{sign}{:02}", e.unsigned_abs())
}

/// `%g`: `%e` or `%f` by the exponent the value has after rounding to `p` significant
/// digits (C11 7.21.6.1), trailing zeros removed unless `#`.
fn general(a: f64, p: usize, alt: bool) -> String {
    let p = p.max(1);
    let t = format!("{:.*e}", p - 1, a);
    let x: i64 = t
        .split_once('e')
        .and_then(|(_, e)| e.parse().ok())
        .unwrap_or(0);
    let mut body = if (p as i64) > x && x >= -4 {
        fixed(a, (p as i64 - 1 - x) as usize, alt)
    } else {
        exponent(a, p - 1, alt)
    };
    if !alt {
        let (m, e) = match body.find('e') {
            Some(k) => (body[..k].to_string(), body[k..].to_string()),
            None => (body.clone(), String::new()),
        };
        if m.contains('.') {
            let m = m.trim_end_matches('0').trim_end_matches('.');
            body = format!("{m}{e}");
        }
    }
    body
}

/// `%a`: `0x1.<hex>p<exp>` (subnormals `0x0.<hex>p-1022`), trailing zeros dropped without
/// a precision, rounded to nearest-even with one.
fn hex_float(a: f64, p: Option<usize>, alt: bool) -> String {
    let bits = a.to_bits();
    let (mut lead, mut frac, exp) = if a == 0.0 {
        (0u64, 0u64, 0i64)
    } else if bits >> 52 == 0 {
        (0, bits & ((1 << 52) - 1), -1022)
    } else {
        (1, bits & ((1 << 52) - 1), (bits >> 52) as i64 - 1023)
    };
    let digits = match p {
        None => {
            let mut d = format!("{frac:013x}");
            while d.ends_with('0') {
                d.pop();
            }
            d
        }
        Some(p) if p < 13 => {
            let drop = 4 * (13 - p) as u32;
            let half = 1u64 << (drop - 1);
            let rem = frac & ((1u64 << drop) - 1);
            let mut kept = frac >> drop;
            if rem > half || (rem == half && kept & 1 == 1) {
                kept += 1;
                if kept >> (4 * p) != 0 {
                    lead += 1;
                    kept = 0;
                }
            }
            frac = kept;
            if p == 0 {
                String::new()
            } else {
                format!("{frac:0w$x}", w = p)
            }
        }
        Some(p) => format!("{frac:013x}{}", "0".repeat(p - 13)),
    };
    let point = if digits.is_empty() && !alt { "" } else { "." };
    let sign = if exp < 0 { '-' } else { '+' };
    format!("0x{lead}{point}{digits}p{sign}{}", exp.unsigned_abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Arguments as the hostcall message carries them: words, strings inline.
    enum A<'a> {
        I(u64),
        F(f64),
        S(&'a str),
    }

    struct List<'a>(std::collections::VecDeque<A<'a>>);

    impl Args for List<'_> {
        fn int(&mut self) -> Option<u64> {
            match self.0.pop_front()? {
                A::I(v) => Some(v),
                A::F(f) => Some(f.to_bits()),
                A::S(_) => Some(0),
            }
        }
        fn float(&mut self) -> Option<f64> {
            match self.0.pop_front()? {
                A::F(f) => Some(f),
                A::I(v) => Some(f64::from_bits(v)),
                A::S(_) => Some(0.0),
            }
        }
        fn string(&mut self) -> Option<Vec<u8>> {
            match self.0.pop_front()? {
                A::S(s) => Some(s.as_bytes().to_vec()),
                _ => Some(Vec::new()),
            }
        }
    }

    fn f(fmt: &str, args: Vec<A<'_>>) -> String {
        let mut out = Vec::new();
        format(fmt.as_bytes(), &mut List(args.into()), &mut out);
        String::from_utf8(out).unwrap()
    }

    // Expected texts are what glibc's printf prints for the same calls (checked with the
    // host's printf(1), which uses the C library's conversions).
    #[test]
    fn integers_follow_c_rules() {
        use A::I;
        assert_eq!(f("%d %i", vec![I(-5i64 as u64), I(7)]), "-5 7");
        assert_eq!(f("%d", vec![I(0xffff_ffff)]), "-1");
        assert_eq!(f("%ld", vec![I(-5i64 as u64)]), "-5");
        assert_eq!(
            f("%u %x %X %o", vec![I(u64::MAX), I(255), I(255), I(8)]),
            "4294967295 ff FF 10"
        );
        assert_eq!(f("%hhd %hu", vec![I(0x1ff), I(0x1_0005)]), "-1 5");
        assert_eq!(
            f(
                "[%5d|%-5d|%05d|%+d|% d]",
                vec![I(42), I(42), I(42), I(42), I(42)]
            ),
            "[   42|42   |00042|+42| 42]"
        );
        assert_eq!(
            f(
                "[%.3d|%8.3d|%-8.3x|%#x|%#o|%.0d]",
                vec![I(7), I(7), I(7), I(255), I(8), I(0)]
            ),
            "[007|     007|007     |0xff|010|]"
        );
        assert_eq!(
            f("[%*d|%-*d|%.*d]", vec![I(4), I(1), I(4), I(2), I(3), I(3)]),
            "[   1|2   |003]"
        );
        assert_eq!(
            f("%lu %lx", vec![I(1 << 40), I(1 << 40)]),
            "1099511627776 10000000000"
        );
        assert_eq!(
            f("%c%c|%3c|%-3c|", vec![I(65), I(0x162), I(66), I(67)]),
            "Ab|  B|C  |"
        );
        assert_eq!(
            f("%p %p %10p", vec![I(0x1000), I(0), I(0xab)]),
            "0x1000 (nil)       0xab"
        );
        assert_eq!(f("100%% %n done", vec![I(0)]), "100%  done");
    }

    #[test]
    fn floats_follow_c_rules() {
        use A::F;
        assert_eq!(
            f("%f %f %f", vec![F(1.5), F(-0.0), F(1e10)]),
            "1.500000 -0.000000 10000000000.000000"
        );
        assert_eq!(
            f(
                "%.2f %.0f %.0f %#.0f",
                vec![F(0.125), F(2.5), F(3.5), F(2.0)]
            ),
            "0.12 2 4 2."
        );
        assert_eq!(
            f(
                "[%8.3f|%-8.2f|%08.2f|%+.1f]",
                vec![F(1.23456), F(2.5), F(-2.5), F(1.0)]
            ),
            "[   1.235|2.50    |-0002.50|+1.0]"
        );
        assert_eq!(
            f("%e %.2e %E", vec![F(1234.5), F(0.000123), F(0.0)]),
            "1.234500e+03 1.23e-04 0.000000E+00"
        );
        assert_eq!(f("%e", vec![F(1e-300)]), "1.000000e-300");
        assert_eq!(
            f(
                "%g %g %g %g %g",
                vec![F(100000.0), F(1000000.0), F(0.0001), F(0.00001), F(1.5)]
            ),
            "100000 1e+06 0.0001 1e-05 1.5"
        );
        assert_eq!(
            f("%g %.3g %#g %G", vec![F(0.0), F(1.23456), F(1.0), F(1e-10)]),
            "0 1.23 1.00000 1E-10"
        );
        assert_eq!(
            f(
                "%f %F %e %g",
                vec![
                    F(f64::INFINITY),
                    F(f64::NEG_INFINITY),
                    F(f64::NAN),
                    F(-f64::NAN)
                ]
            ),
            "inf -INF nan -nan"
        );
        assert_eq!(
            f("[%6f|%06f]", vec![F(f64::INFINITY), F(f64::INFINITY)]),
            "[   inf|   inf]"
        );
        assert_eq!(
            f(
                "%a %a %A %.1a %a",
                vec![F(1.0), F(0.5), F(255.0), F(1.96875), F(0.0)]
            ),
            "0x1p+0 0x1p-1 0X1.FEP+7 0x2.0p+0 0x0p+0"
        );
        assert_eq!(
            f("%a %.3a %a", vec![F(4.9e-324), F(1.0 / 3.0), F(0.1)]),
            "0x0.0000000000001p-1022 0x1.555p-2 0x1.999999999999ap-4"
        );
    }

    #[test]
    fn strings_and_running_out_of_arguments() {
        use A::{I, S};
        assert_eq!(
            f(
                "<%s|%5s|%-5s|%.2s>",
                vec![S("abc"), S("ab"), S("ab"), S("abc")]
            ),
            "<abc|   ab|ab   |ab>"
        );
        // ROCclr stops at the first conversion without an argument.
        assert_eq!(f("a=%d b=%d c", vec![I(1)]), "a=1 b=");
        // And at a conversion it does not know.
        assert_eq!(f("x%ky", vec![I(1)]), "x");
    }
}
