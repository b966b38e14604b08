//! 8-bit float values of the matrix cores and conversions: bf8 (E5M2) or fp8 (E4M3), in the
//! gfx942 FNUZ or the gfx950/GFX12 OCP encoding. (The matrix instructions themselves are
//! [`super::matrix`].)
//!
//! gfx942 reads them in the FNUZ encodings (ROCm HIP "FP8 numbers": gfx942 supports FNUZ,
//! not OCP): fp8 = E4M3 with exponent bias 8, bf8 = E5M2 with bias 16, no infinities, 0x80
//! the only NaN. gfx950 reads the OCP encodings with the same opcodes (LLVM review
//! D106160: "gfx12 and some future gfx9 ... support the OCP 8-bit float formats for their
//! matrix multiplication intrinsics ..., retaining existing opcodes"; composable_kernel
//! selects OCP for gfx950): fp8 = E4M3FN (bias 7, `S.1111.111` NaN, no infinity), bf8 =
//! E5M2 (bias 15, IEEE infinities and NaNs). Every product of two 8-bit floats is exact in
//! f32.

/// The value of 8-bit float `x`: bf8 (E5M2) or fp8 (E4M3), OCP or FNUZ encoding (see the
/// module doc).
pub(crate) fn f8_value(x: u8, bf8: bool, ocp: bool) -> f64 {
    let (ebits, mbits) = if bf8 { (5, 2) } else { (4, 3) };
    let bias = (1 << (ebits - 1)) - i32::from(ocp);
    let e = ((x >> mbits) & ((1 << ebits) - 1)) as i32;
    let m = (x & ((1 << mbits) - 1)) as i32;
    let neg = x & 0x80 != 0;
    if !ocp && x == 0x80 {
        return f64::NAN;
    }
    if ocp {
        let emax = (1 << ebits) - 1;
        if bf8 && e == emax {
            return match (m, neg) {
                (0, false) => f64::INFINITY,
                (0, true) => f64::NEG_INFINITY,
                _ => f64::NAN,
            };
        }
        if !bf8 && e == emax && m == 7 {
            return f64::NAN;
        }
    }
    // Subnormals (e == 0) have exponent 1 - bias and no implicit one.
    let (sig, exp) = if e == 0 {
        (m, 1 - bias)
    } else {
        (m | 1 << mbits, e - bias)
    };
    let v = sig as f64 * 2f64.powi(exp - mbits);
    if neg {
        -v
    } else {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::f8_value;

    /// Edge values of the four 8-bit float encodings, from their definitions (OCP 8-bit
    /// floating point specification: E4M3 max 448, E5M2 max 57344 and infinities; FNUZ:
    /// one more exponent step, E4M3 max 240, 0x80 the only NaN).
    #[test]
    fn eight_bit_float_edges() {
        let p = |e: i32| 2f64.powi(e);
        // (byte, bf8, ocp, value)
        let cases = [
            (0x38, false, true, 1.0),
            (0x40, false, false, 1.0),
            (0x3c, true, true, 1.0),
            (0x40, true, false, 1.0),
            (0x7e, false, true, 448.0),
            (0x7f, false, false, 240.0),
            (0x7b, true, true, 57344.0),
            (0x7f, true, false, 57344.0),
            (0x01, false, true, p(-9)),
            (0x01, false, false, p(-10)),
            (0x01, true, true, p(-16)),
            (0x01, true, false, p(-17)),
            (0x80, false, true, -0.0),
            (0xc4, false, true, -3.0),
            (0x7c, true, true, f64::INFINITY),
            (0xfc, true, true, f64::NEG_INFINITY),
        ];
        for (x, bf8, ocp, want) in cases {
            let got = f8_value(x, bf8, ocp);
            assert_eq!(
                got.to_bits(),
                want.to_bits(),
                "{x:#04x} bf8 {bf8} ocp {ocp}: {got}"
            );
        }
        for (x, bf8, ocp) in [
            (0x80, false, false),
            (0x80, true, false),
            (0x7f, false, true),
            (0xff, false, true),
            (0x7d, true, true),
        ] {
            assert!(
                f8_value(x, bf8, ocp).is_nan(),
                "{x:#04x} bf8 {bf8} ocp {ocp}"
            );
        }
    }
}
